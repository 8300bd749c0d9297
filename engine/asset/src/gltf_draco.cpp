// KHR_draco_mesh_compression decoding (gltf_ext.h) with Google's Draco
// (Debian libdraco-dev, C++): the one C++ translation unit of Sinew, behind a
// C interface. A primitive's Draco bitstream decodes to a triangle mesh whose
// points carry the attributes the extension maps by unique id; gltf.c reads
// them as if they were the primitive's accessors' data. Draco's own
// allocations (std::unique_ptr<Mesh>) live until snw_draco_free; exceptions
// (allocation failures) never cross the C interface.
#include "gltf_ext.h"

#include <cstdio>
#include <cstring>
#include <new>

#ifdef SINEW_HAVE_DRACO
#include <draco/compression/decode.h>
#include <draco/mesh/mesh.h>

struct snw_draco_mesh {
    std::unique_ptr<draco::Mesh> mesh;
};

extern "C" int snw_draco_available(void) { return 1; }

extern "C" snw_draco_mesh *snw_draco_decode(const uint8_t *data, size_t len, char *msg, size_t msg_len)
{
    try {
        draco::DecoderBuffer buf;
        buf.Init(reinterpret_cast<const char *>(data), len);
        auto type = draco::Decoder::GetEncodedGeometryType(&buf);
        if (!type.ok() || type.value() != draco::TRIANGULAR_MESH) {
            std::snprintf(msg, msg_len, "not a Draco triangle mesh%s%s", type.ok() ? "" : ": ",
                          type.ok() ? "" : type.status().error_msg());
            return nullptr;
        }
        draco::Decoder dec;
        auto res = dec.DecodeMeshFromBuffer(&buf);
        if (!res.ok()) {
            std::snprintf(msg, msg_len, "Draco: %s", res.status().error_msg());
            return nullptr;
        }
        snw_draco_mesh *m = new snw_draco_mesh;
        m->mesh = std::move(res).value();
        if (!m->mesh) {
            delete m;
            std::snprintf(msg, msg_len, "Draco: no mesh");
            return nullptr;
        }
        return m;
    } catch (const std::bad_alloc &) {
        std::snprintf(msg, msg_len, "out of memory decoding Draco data");
    } catch (...) {
        std::snprintf(msg, msg_len, "Draco decoder failed");
    }
    return nullptr;
}

extern "C" void snw_draco_free(snw_draco_mesh *m) { delete m; }

extern "C" uint32_t snw_draco_points(const snw_draco_mesh *m) { return m->mesh->num_points(); }

extern "C" uint32_t snw_draco_faces(const snw_draco_mesh *m) { return m->mesh->num_faces(); }

extern "C" void snw_draco_indices(const snw_draco_mesh *m, uint32_t *out)
{
    const draco::Mesh &mesh = *m->mesh;
    for (draco::FaceIndex f(0); f < mesh.num_faces(); ++f) {
        const draco::Mesh::Face &face = mesh.face(f);
        for (int k = 0; k < 3; k++) out[3 * (size_t)f.value() + k] = face[k].value();
    }
}

template <typename T>
static bool convert_all(const draco::PointAttribute *att, uint32_t points, uint32_t comps, void *out)
{
    T *o = static_cast<T *>(out);
    for (draco::PointIndex p(0); p < points; ++p) {
        draco::AttributeValueIndex avi = att->mapped_index(p);
        if (avi.value() >= att->size()) return false;
        if (!att->ConvertValue<T>(avi, static_cast<int8_t>(comps), o + (size_t)p.value() * comps)) return false;
    }
    return true;
}

extern "C" int snw_draco_attribute(const snw_draco_mesh *m, uint32_t uid, int64_t ctype, uint32_t comps, void *out, char *msg,
                                   size_t msg_len)
{
    const draco::PointAttribute *att = m->mesh->GetAttributeByUniqueId(uid);
    if (!att) {
        std::snprintf(msg, msg_len, "no Draco attribute with id %u", uid);
        return -1;
    }
    if (att->num_components() < comps) {
        std::snprintf(msg, msg_len, "Draco attribute %u has %d components, %u expected", uid, att->num_components(), comps);
        return -1;
    }
    uint32_t n = m->mesh->num_points();
    bool ok = false;
    switch (ctype) {
    case 5120: ok = convert_all<int8_t>(att, n, comps, out); break;
    case 5121: ok = convert_all<uint8_t>(att, n, comps, out); break;
    case 5122: ok = convert_all<int16_t>(att, n, comps, out); break;
    case 5123: ok = convert_all<uint16_t>(att, n, comps, out); break;
    case 5125: ok = convert_all<uint32_t>(att, n, comps, out); break;
    case 5126: ok = convert_all<float>(att, n, comps, out); break;
    default: break;
    }
    if (!ok) {
        std::snprintf(msg, msg_len, "Draco attribute %u does not convert to component type %lld", uid, (long long)ctype);
        return -1;
    }
    return 0;
}
#else
extern "C" int snw_draco_available(void) { return 0; }
extern "C" snw_draco_mesh *snw_draco_decode(const uint8_t *, size_t, char *msg, size_t msg_len)
{
    std::snprintf(msg, msg_len, "this Sinew was built without Draco (Debian libdraco-dev)");
    return nullptr;
}
extern "C" void snw_draco_free(snw_draco_mesh *) {}
extern "C" uint32_t snw_draco_points(const snw_draco_mesh *) { return 0; }
extern "C" uint32_t snw_draco_faces(const snw_draco_mesh *) { return 0; }
extern "C" void snw_draco_indices(const snw_draco_mesh *, uint32_t *) {}
extern "C" int snw_draco_attribute(const snw_draco_mesh *, uint32_t, int64_t, uint32_t, void *, char *msg, size_t msg_len)
{
    std::snprintf(msg, msg_len, "this Sinew was built without Draco");
    return -1;
}
#endif
