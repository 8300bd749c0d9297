// The tests' Draco encoder (Debian libdraco-dev): a triangle mesh with
// POSITION, NORMAL and two GENERIC attributes (joints uint8 x4, weights float
// x4) to a Draco bitstream, for test_asset_gltf_compressed to wrap in a
// KHR_draco_mesh_compression glTF. C interface.
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>

#include <cstdint>
#include <cstring>

extern "C" size_t tu_draco_encode(const float *pos, const float *nrm, const uint8_t *joints, const float *weights, uint32_t nv,
                                  const uint16_t *idx, uint32_t ni, int pos_bits, int nrm_bits, int generic_bits, uint8_t *out,
                                  size_t cap, uint32_t ids[4])
{
    draco::Mesh mesh;
    mesh.set_num_points(nv);
    auto add = [&](draco::GeometryAttribute::Type t, int comps, draco::DataType dt, const void *data, size_t elem) {
        draco::GeometryAttribute ga;
        ga.Init(t, nullptr, static_cast<uint8_t>(comps), dt, false, static_cast<int64_t>(elem), 0);
        int id = mesh.AddAttribute(ga, true, nv);
        draco::PointAttribute *pa = mesh.attribute(id);
        for (uint32_t i = 0; i < nv; i++)
            pa->SetAttributeValue(draco::AttributeValueIndex(i), static_cast<const uint8_t *>(data) + i * elem);
        return pa->unique_id();
    };
    ids[0] = add(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32, pos, 12);
    ids[1] = add(draco::GeometryAttribute::NORMAL, 3, draco::DT_FLOAT32, nrm, 12);
    ids[2] = add(draco::GeometryAttribute::GENERIC, 4, draco::DT_UINT8, joints, 4);
    ids[3] = add(draco::GeometryAttribute::GENERIC, 4, draco::DT_FLOAT32, weights, 16);
    for (uint32_t t = 0; t + 2 < ni; t += 3) {
        draco::Mesh::Face f = { draco::PointIndex(idx[t]), draco::PointIndex(idx[t + 1]), draco::PointIndex(idx[t + 2]) };
        mesh.AddFace(f);
    }
    draco::Encoder enc;
    enc.SetAttributeQuantization(draco::GeometryAttribute::POSITION, pos_bits);
    enc.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, nrm_bits);
    enc.SetAttributeQuantization(draco::GeometryAttribute::GENERIC, generic_bits);
    // sequential: the points keep their order, so the uncompressed morph
    // targets (which the extension leaves as they are) still match them
    enc.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
    draco::EncoderBuffer buf;
    if (!enc.EncodeMeshToBuffer(mesh, &buf).ok() || buf.size() > cap) return 0;
    std::memcpy(out, buf.data(), buf.size());
    return buf.size();
}
