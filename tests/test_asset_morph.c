/* glTF morph targets kept by the importer (sinew_asset_morph_targets) used the
 * way 'sinew deform --morph' uses them: a two-triangle mesh under a translated,
 * rotated, non-uniformly scaled node (unskinned), two targets (position +
 * normal deltas; position only), default weights [0.5, 0], written here as a
 * .gltf with a data-URI buffer. Checks, against a float64 evaluation written
 * from the glTF spec (node matrix applied to base + sum w delta): the targets'
 * sparse entries (only moved vertices, local indices), position deltas in
 * model space (1e-6), default weights; the rest mesh includes the default
 * weights (1e-9 x size); the float64 morph reference with w - default
 * reproduces the spec evaluation at other weights (1e-6 x size). */
#include "testutil.h"
#include <sinew/asset.h>
#include <string.h>

static void b64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = 0;
}

#define NV 6

int main(void)
{
    /* buffer: positions, normals, target0 POSITION, target0 NORMAL, target1 POSITION (6 x vec3 each) */
    float data[5][NV][3];
    memset(data, 0, sizeof data);
    for (int v = 0; v < NV; v++) {
        data[0][v][0] = (float)(v % 3); data[0][v][1] = (float)(v / 3); data[0][v][2] = 0.25f * (float)v;
        data[1][v][2] = 1.0f;
    }
    data[2][1][0] = 0.5f; data[2][1][2] = -0.25f; data[2][4][1] = 1.0f;
    data[3][1][0] = 0.3f;
    data[4][5][2] = 2.0f;
    static char uri[4096], json[8192];
    b64((const unsigned char *)data, sizeof data, uri);
    const int L = NV * 12;
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0,\"translation\":[1,2,3],\"rotation\":[0,0,0.6,0.8],\"scale\":[2,1,0.5]}],"
             "\"meshes\":[{\"name\":\"face\",\"weights\":[0.5,0],\"extras\":{\"targetNames\":[\"smile\",\"blink\"]},"
             "\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1},"
             "\"targets\":[{\"POSITION\":2,\"NORMAL\":3},{\"POSITION\":4}]}]}],"
             "\"buffers\":[{\"byteLength\":%d,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%d},{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d},"
             "{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d},{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d},"
             "{\"buffer\":0,\"byteOffset\":%d,\"byteLength\":%d}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[2,1,1.25]},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\",\"min\":[0,0,-0.25],\"max\":[0.5,1,0]},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0,0,2]}]}",
             (int)sizeof data, uri, L, L, L, 2 * L, L, 3 * L, L, 4 * L, L);
    sinew_error_info ae;
    sinew_asset_desc d = { 0 };
    d.data = json;
    d.size = strlen(json);
    d.hint = "gltf";
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &ae);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", sinew_result_string(r), ae.message);
    if (!a) return tu_finish("test_asset_morph");
    TU_CHECK(sinew_asset_mesh_count(a) == 1 && sinew_asset_vertex_count(a) == NV);
    uint32_t nmt = 0;
    const float *dwp = NULL;
    const sinew_morph_target *tp = sinew_asset_morph_targets(a, 0, &nmt, &dwp);
    TU_CHECK(nmt == 2 && tp && dwp);
    if (nmt != 2 || !tp || !dwp) {
        sinew_asset_destroy(a);
        return tu_finish("test_asset_morph");
    }
    /* node matrix: T R S with R = 2 * atan2(0.6, 0.8) about z */
    double c = 0.8 * 0.8 - 0.6 * 0.6, s = 2 * 0.6 * 0.8, S[3] = { 2, 1, 0.5 }, T[3] = { 1, 2, 3 };
    double M[3][3] = { { c * S[0], -s * S[1], 0 }, { s * S[0], c * S[1], 0 }, { 0, 0, S[2] } };
    sinew_morph_target t[2];
    float dw[2];
    t[0] = tp[0]; t[1] = tp[1]; dw[0] = dwp[0]; dw[1] = dwp[1];
    TU_CHECK(dw[0] == 0.5f && dw[1] == 0.0f);
    TU_CHECK(t[0].count == 2 && t[0].indices[0] == 1 && t[0].indices[1] == 4);
    TU_CHECK(t[1].count == 1 && t[1].indices[0] == 5);
    for (int k = 0; k < 2; k++)
        for (uint32_t e = 0; e < t[k].count; e++) {
            uint32_t v = t[k].indices[e];
            for (int row = 0; row < 3; row++) {
                double want = 0;
                for (int col = 0; col < 3; col++) want += M[row][col] * data[k ? 4 : 2][v][col];
                TU_CHECK_NEAR(t[k].position_deltas[3 * e + row], want, 1e-6);
            }
        }
    /* rest = node(base + 0.5 d0); other weights through the reference with w - default */
    const double *rp = sinew_asset_rest_positions(a);
    double size = sinew_asset_size(a);
    float w[2] = { 1.5f, -0.75f }, wr[2] = { w[0] - dw[0], w[1] - dw[1] };
    double mp[NV * 3];
    sinew_morph_error err;
    TU_CHECK_OK(sinew_morph_reference(NV, sinew_asset_vertices(a), t, 2, wr, mp, NULL, &err));
    for (int v = 0; v < NV; v++)
        for (int row = 0; row < 3; row++) {
            double rest = T[row], want = T[row];
            for (int col = 0; col < 3; col++) {
                rest += M[row][col] * (data[0][v][col] + 0.5 * data[2][v][col]);
                want += M[row][col] * (data[0][v][col] + w[0] * data[2][v][col] + w[1] * data[4][v][col]);
            }
            TU_CHECK_NEAR(rp[3 * v + row], rest, 1e-9 * size);
            TU_CHECK_NEAR(mp[3 * v + row], want, 1e-6 * size);
        }
    sinew_asset_destroy(a);
    return tu_finish("test_asset_morph");
}
