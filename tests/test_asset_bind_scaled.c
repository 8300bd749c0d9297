/* '--bind' with inverse bind matrices that carry a non-uniform scale, the way
 * quantizing exporters write them (KHR_mesh_quantization: positions as snorm16
 * in [-1, 1], the dequantization Q = T(offset) diag(3.46, 1.7, 0.9) folded into
 * every inverse bind matrix, IBM_j = G_j^-1 Q). The root joint is rotated, so
 * its bind-local matrix Q^-1 G_0 shears: no T R S pose holds it. Written here
 * (tu_gltf).
 *
 *   test_asset_bind_scaled              the import: the rest mesh is the file's
 *                                       dequantized-to-[-1,1] positions (1e-12), the
 *                                       bind-local matrix of the root shears (the T R S
 *                                       split is lossy by > 1e-3), and a palette from the
 *                                       bind matrices reproduces the rest mesh through
 *                                       the float64 reference (LBS, 1e-12 x size)
 *   test_asset_bind_scaled --write F    writes the glTF to F (CLI tests)
 *   test_asset_bind_scaled --check F.obj   the OBJ 'sinew deform F --bind' wrote:
 *                                       positions within 1e-5 x size of the rest mesh */
#include "testutil.h"
#include "gltf_writer.h"
#include <sinew/asset.h>
#include <sinew/linalg.h>
#include <sinew/reference.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 6

static char *build_gltf(void)
{
    static tu_gltf g;
    tu_gltf_reset(&g);
    /* joints: root at (0.5, 0.2, 0) rotated about (1, 2, 0.5); child at (0, 1.5, 0) rotated about z */
    sinew_transform t0 = { sinew_v3(0.5, 0.2, 0), sinew_quat_from_axis_angle(sinew_v3_normalize(sinew_v3(1, 2, 0.5)), 0.9),
                           sinew_v3(1, 1, 1) };
    sinew_transform t1 = { sinew_v3(0, 1.5, 0), sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), -0.6), sinew_v3(1, 1, 1) };
    sinew_mat4 g0 = sinew_mat4_from_transform(&t0), l1 = sinew_mat4_from_transform(&t1), g1 = sinew_mat4_mul(&g0, &l1);
    sinew_transform qt = { sinew_v3(0.1, -0.3, 0.2), sinew_quat_identity(), sinew_v3(3.46, 1.7, 0.9) };
    sinew_mat4 q = sinew_mat4_from_transform(&qt), gi[2];
    if (sinew_mat4_inverse(&g0, &gi[0]) || sinew_mat4_inverse(&g1, &gi[1])) abort();
    float ibm[2][16];
    for (int j = 0; j < 2; j++) {
        sinew_mat4 m = sinew_mat4_mul(&gi[j], &q);
        for (int c = 0; c < 16; c++) ibm[j][c] = (float)m.m[c / 4][c % 4];
    }
    static const int16_t P[NV][4] = { { -32767, -32767, 0, 0 }, { 32767, -32767, 1000, 0 }, { 32767, 0, -2000, 0 },
                                      { -32767, 0, 3000, 0 }, { -32767, 32767, 0, 0 }, { 32767, 32767, 12000, 0 } };
    static const uint8_t J[NV][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 1, 0, 0 }, { 1, 0, 0, 0 }, { 1, 0, 0, 0 } };
    static const float W[NV][4] = { { 1, 0, 0, 0 }, { 1, 0, 0, 0 }, { 0.5f, 0.5f, 0, 0 }, { 0.7f, 0.3f, 0, 0 }, { 1, 0, 0, 0 }, { 1, 0, 0, 0 } };
    static const uint16_t I[12] = { 0, 1, 2, 0, 2, 3, 3, 2, 5, 3, 5, 4 };
    tu_gltf_acc(&g, P, sizeof P, 5122, "VEC3", NV, 1, NULL); /* view 0: its byteStride is added below */
    tu_gltf_acc(&g, J, sizeof J, 5121, "VEC4", NV, 0, NULL);
    tu_gltf_acc(&g, W, sizeof W, 5126, "VEC4", NV, 0, NULL);
    tu_gltf_acc(&g, I, sizeof I, 5123, "SCALAR", 12, 0, NULL);
    tu_gltf_acc(&g, ibm, sizeof ibm, 5126, "MAT4", 2, 0, NULL);
    char *b = tu_base64(g.bin, g.binlen);
    size_t cap = strlen(b) + 8192;
    char *json = malloc(cap);
    if (!b || !json) abort();
    /* view 0 (positions: VEC3 of int16, padded to 8 bytes per vertex) needs its byteStride */
    char fixed[1 << 15];
    const char *first = strchr(g.views, '}');
    snprintf(fixed, sizeof fixed, "%.*s,\"byteStride\":8%s", (int)(first - g.views), g.views, first);
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
             "\"extensionsRequired\":[\"KHR_mesh_quantization\"],\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
             "\"nodes\":[{\"name\":\"root\",\"children\":[1],\"translation\":[%.17g,%.17g,%.17g],\"rotation\":[%.17g,%.17g,%.17g,%.17g]},"
             "{\"name\":\"child\",\"translation\":[0,1.5,0],\"rotation\":[%.17g,%.17g,%.17g,%.17g]},"
             "{\"name\":\"body\",\"mesh\":0,\"skin\":0}],"
             "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":4}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},\"indices\":3}]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[%s],\"accessors\":[%s]}",
             t0.translation.x, t0.translation.y, t0.translation.z, t0.rotation.x, t0.rotation.y, t0.rotation.z, t0.rotation.w,
             t1.rotation.x, t1.rotation.y, t1.rotation.z, t1.rotation.w, g.binlen, b, fixed, g.accs);
    free(b);
    return json;
}

static sinew_asset *load(char *json)
{
    sinew_asset_desc d = { 0 };
    d.data = json;
    d.size = strlen(json);
    d.hint = "gltf";
    sinew_error_info ae;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &ae);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", sinew_result_string(r), ae.message);
    return a;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write")) {
        char *json = build_gltf();
        FILE *f = fopen(argv[2], "w");
        int ok = f && fputs(json, f) >= 0;
        if (f && fclose(f)) ok = 0;
        free(json);
        return ok ? 0 : 1;
    }
    char *json = build_gltf();
    sinew_asset *a = load(json);
    free(json);
    if (!a) return tu_finish("test_asset_bind_scaled");
    uint32_t nv = sinew_asset_vertex_count(a);
    const double *rp = sinew_asset_rest_positions(a);
    double size = sinew_asset_size(a);
    TU_CHECK(nv == NV);
    if (argc == 3 && !strcmp(argv[1], "--check")) {
        FILE *f = fopen(argv[2], "r");
        TU_CHECK_MSG(f != NULL, "cannot read %s", argv[2]);
        char line[512];
        uint32_t iv = 0;
        double worst = 0;
        while (f && fgets(line, sizeof line, f)) {
            double p[3];
            if (sscanf(line, "v %lf %lf %lf", &p[0], &p[1], &p[2]) == 3 && iv < nv) {
                worst = fmax(worst, tu_vec3_diff(p, rp + 3 * (size_t)iv, 0));
                iv++;
            }
        }
        if (f) fclose(f);
        printf("--bind OBJ vs the rest mesh: %.3g x size over %u vertices\n", worst / size, iv);
        TU_CHECK(iv == nv);
        TU_CHECK(worst <= 1e-5 * size);
        sinew_asset_destroy(a);
        return tu_finish("test_asset_bind_scaled --check");
    }
    /* the rest mesh: the snorm16 positions as decoded (the dequantization lives in the binds) */
    TU_CHECK_NEAR(rp[0], -1.0, 1e-12);
    TU_CHECK_NEAR(rp[3 * 5 + 2], 12000 / 32767.0, 1e-12);
    /* the root's bind-local matrix shears: its T R S split is lossy */
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    double worst_split = 0;
    for (uint32_t j = 0; j < sinew_skeleton_joint_count(sk); j++) {
        sinew_transform t;
        double e = 0;
        TU_CHECK_OK(sinew_transform_from_mat4(sinew_skeleton_bind_local(sk, j), &t, &e));
        worst_split = fmax(worst_split, e);
    }
    printf("bind-local T R S split error: %.3g\n", worst_split);
    TU_CHECK(worst_split > 1e-3);
    /* the palette from the bind matrices reproduces the rest mesh (LBS reference) */
    uint32_t nj = sinew_skeleton_joint_count(sk);
    sinew_mat4 *bg = calloc(nj, sizeof *bg);
    sinew_palette_joint *pal = calloc(nj, sizeof *pal);
    double *pos = calloc(3 * (size_t)nv, sizeof *pos), *nrm = calloc(3 * (size_t)nv, sizeof *nrm);
    for (uint32_t j = 0; j < nj; j++) bg[j] = *sinew_skeleton_bind_global(sk, j);
    TU_CHECK_OK(sinew_palette_build_from_globals(sk, SINEW_METHOD_LBS, bg, pal));
    TU_CHECK_OK(sinew_reference_skin(nv, sinew_asset_vertices(a), NULL, pal, nj, SINEW_METHOD_LBS, 0, pos, nrm));
    double worst = 0;
    for (uint32_t v = 0; v < nv; v++) worst = fmax(worst, tu_vec3_diff(pos, rp, v));
    printf("palette from the bind matrices vs the rest mesh: %.3g x size\n", worst / size);
    TU_CHECK(worst <= 1e-6 * size); /* float32 vertex positions in sinew_vertex */
    free(bg); free(pal); free(pos); free(nrm);
    sinew_asset_destroy(a);
    return tu_finish("test_asset_bind_scaled");
}
