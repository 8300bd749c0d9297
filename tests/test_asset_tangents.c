/* The glTF importer reads TANGENT (sinew_asset_tangents), issue 9 item 3.
 *
 * A glTF authored here (data URI buffer, fresh random values each run):
 *  - mesh "m0", skinned (2 joints): float TANGENT, random lengths and signs;
 *  - mesh "m1", unskinned under a mirroring node (scale -1 in x): TANGENT as
 *    normalized int16 (KHR_mesh_quantization) with a sparse part replacing vertex 1;
 *  - mesh "m2": no TANGENT (its vertices get zero tangents).
 * Checks (tolerances):
 *  - imported tangents against the file's, normalized (m1: through the node's
 *    3x3, bitangent sign flipped by the mirror): max |component| error <= 2e-4
 *    (16-bit octahedral quantization, ~1e-4 worst case); signs exact;
 *  - m2: SINEW_OCT_ZERO, sign +1; stats.tangent_meshes == 2;
 *  - m0 skinned by a random LBS pose with sinew_reference_tangents against a
 *    float64 evaluation from the file's own tangents and weights
 *    (normalize(sum w_k X_k t), sign * sign(det)): <= 1e-3 (oct quantization
 *    of the rest tangent plus 16-bit weights, amplified by the blend);
 *  - a glTF without any TANGENT: sinew_asset_tangents is NULL, tangent_meshes 0;
 *  - the assimp path with known values: a Collada file written here (assimp reads
 *    TEXTANGENT / TEXBINORMAL into mTangents / mBitangents), two triangles under a
 *    node whose matrix is A = Rz(90 deg) diag(-1, 2, 1) (det -2: mirroring, non-uniform).
 *    Triangle 1: N (0,0,1), T (1,0,0), B (0,1,0) (sign +1); triangle 2: T (1,1,0)/sqrt2,
 *    B (1,-1,0)/sqrt2 (sign -1). Hand-computed: A T1 = (0,-1,0), A T2 = (-2,-1,0) ->
 *    (-2,-1,0)/sqrt5; the mirror flips both signs (-1, +1). Tolerance 2e-4 per component
 *    (octahedral snorm16 storage), signs exact;
 *  - the assimp path on a real FBX: every tangent across its normal (2e-4). */
#define _DEFAULT_SOURCE /* mkstemps */
#include "testutil.h"
#include "gltf_writer.h"
#include <sinew/asset.h>
#include <sinew/palette.h>
#include <sinew/reference.h>
#include <sinew/skeleton.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tu_gltf G;
   /* the document being authored (tests/util/gltf_writer.h) */

static sinew_asset *load_json(const char *json, const char *label)
{
    char path[] = "/tmp/sinew_tan_XXXXXX.gltf";
    int fd = mkstemps(path, 5);
    TU_CHECK(fd >= 0);
    if (fd < 0) return NULL;
    size_t n = strlen(json);
    TU_CHECK(write(fd, json, n) == (ssize_t)n);
    close(fd);
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", label, err.message);
    unlink(path);
    return a;
}

#define N0 12
static float p0[N0 * 3], n0[N0 * 3], t0[N0 * 4], w0[N0 * 4];
static uint8_t jnt0[N0 * 4];
static uint16_t i0[N0];
static const float p1[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 }, n1[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 };
static int16_t t1[12], t1_sparse[4];
static const uint16_t t1_sparse_idx[1] = { 1 };
static const uint16_t i12[3] = { 0, 1, 2 };


static double deq16(int16_t c) { double x = c / 32767.0; return x < -1 ? -1 : x; }

static const sinew_asset_mesh_info *find_mesh(const sinew_asset *a, const char *name)
{
    for (uint32_t i = 0; i < sinew_asset_mesh_count(a); i++)
        if (!strcmp(sinew_asset_mesh(a, i)->name, name)) return sinew_asset_mesh(a, i);
    TU_CHECK_MSG(0, "mesh %s not found", name);
    return NULL;
}

static double tan_err(const sinew_tangent *t, const double *want_dir, double want_sign)
{
    sinew_vec3 d = sinew_oct_decode(t->tangent_oct);
    double e = fmax(fabs(d.x - want_dir[0]), fmax(fabs(d.y - want_dir[1]), fabs(d.z - want_dir[2])));
    return (double)t->sign == want_sign ? e : INFINITY;
}

static void normalize3(double *v)
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int e = 0; e < 3; e++) v[e] /= l;
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x7a9e);
    /* m0: random vertices, unit normals, tangents of random length roughly across the normal */
    for (int v = 0; v < N0; v++) {
        sinew_vec3 p = tu_random_vec3(&rng, -1, 1), n = tu_random_unit(&rng), r = tu_random_unit(&rng);
        sinew_vec3 t = sinew_v3_cross(n, r);
        double len = tu_uniform(&rng, 0.3, 3.0) / sinew_v3_length(t);
        p0[v * 3] = (float)p.x; p0[v * 3 + 1] = (float)p.y; p0[v * 3 + 2] = (float)p.z;
        n0[v * 3] = (float)n.x; n0[v * 3 + 1] = (float)n.y; n0[v * 3 + 2] = (float)n.z;
        t0[v * 4] = (float)(t.x * len); t0[v * 4 + 1] = (float)(t.y * len); t0[v * 4 + 2] = (float)(t.z * len);
        t0[v * 4 + 3] = tu_range(&rng, 2) ? 1.0f : -1.0f;
        float w = (float)tu_uniform(&rng, 0.05, 0.95);
        jnt0[v * 4] = 0; jnt0[v * 4 + 1] = 1;
        w0[v * 4] = w; w0[v * 4 + 1] = 1.0f - w;
        i0[v] = (uint16_t)v;
    }
    /* m1: int16 tangents (vertex 1 from the sparse part) */
    for (int v = 0; v < 3; v++) {
        sinew_vec3 t = tu_random_unit(&rng);
        t1[v * 4] = (int16_t)lrint(t.x * 32767); t1[v * 4 + 1] = (int16_t)lrint(t.y * 32767); t1[v * 4 + 2] = (int16_t)lrint(t.z * 32767);
        t1[v * 4 + 3] = v == 2 ? -32767 : 32767;
    }
    t1[4] = 32767; t1[5] = t1[6] = 0; /* replaced by the sparse part */
    sinew_vec3 ts = tu_random_unit(&rng);
    t1_sparse[0] = (int16_t)lrint(ts.x * 32767); t1_sparse[1] = (int16_t)lrint(ts.y * 32767);
    t1_sparse[2] = (int16_t)lrint(ts.z * 32767); t1_sparse[3] = -32767;
    static const float ibm[32] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                   1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1 };

    int a_p0 = tu_gltf_acc(&G, p0, sizeof p0, 5126, "VEC3", N0, 0, NULL);
    int a_n0 = tu_gltf_acc(&G, n0, sizeof n0, 5126, "VEC3", N0, 0, NULL);
    int a_t0 = tu_gltf_acc(&G, t0, sizeof t0, 5126, "VEC4", N0, 0, NULL);
    int a_j0 = tu_gltf_acc(&G, jnt0, sizeof jnt0, 5121, "VEC4", N0, 0, NULL);
    int a_w0 = tu_gltf_acc(&G, w0, sizeof w0, 5126, "VEC4", N0, 0, NULL);
    int a_i0 = tu_gltf_acc(&G, i0, sizeof i0, 5123, "SCALAR", N0, 0, NULL);
    int a_p1 = tu_gltf_acc(&G, p1, sizeof p1, 5126, "VEC3", 3, 0, NULL);
    int a_n1 = tu_gltf_acc(&G, n1, sizeof n1, 5126, "VEC3", 3, 0, NULL);
    int vi = tu_gltf_view(&G, t1_sparse_idx, sizeof t1_sparse_idx), vv = tu_gltf_view(&G, t1_sparse, sizeof t1_sparse);
    char sp[200];
    snprintf(sp, sizeof sp, ",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":%d,\"componentType\":5123},\"values\":{\"bufferView\":%d}}", vi, vv);
    int a_t1 = tu_gltf_acc(&G, t1, sizeof t1, 5122, "VEC4", 3, 1, sp);
    int a_i1 = tu_gltf_acc(&G, i12, sizeof i12, 5123, "SCALAR", 3, 0, NULL);
    int a_ibm = tu_gltf_acc(&G, ibm, sizeof ibm, 5126, "MAT4", 2, 0, NULL);
    char *b64 = tu_base64(G.bin, G.binlen);
    size_t cap = strlen(b64) + 16384;
    char *json = malloc(cap);
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
             "\"scene\":0,\"scenes\":[{\"nodes\":[0,2,3,4]}],"
             "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"tip\",\"translation\":[0,1,0]},"
             "{\"name\":\"skinned\",\"mesh\":0,\"skin\":0},{\"name\":\"mirror\",\"mesh\":1,\"scale\":[-1,1,1],\"translation\":[2,0,0]},"
             "{\"name\":\"plain\",\"mesh\":2}],"
             "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":%d}],"
             "\"meshes\":[{\"name\":\"m0\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,\"TANGENT\":%d,\"JOINTS_0\":%d,\"WEIGHTS_0\":%d},\"indices\":%d}]},"
             "{\"name\":\"m1\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,\"TANGENT\":%d},\"indices\":%d}]},"
             "{\"name\":\"m2\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d}]}],"
             "\"accessors\":[%s],\"bufferViews\":[%s],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]}",
             a_ibm, a_p0, a_n0, a_t0, a_j0, a_w0, a_i0, a_p1, a_n1, a_t1, a_i1, a_p1, a_n1, a_i1, G.accs, G.views, G.binlen, b64);
    sinew_asset *a = load_json(json, "tangents");
    if (a) {
        const sinew_tangent *tg = sinew_asset_tangents(a);
        TU_CHECK(tg != NULL);
        TU_CHECK(sinew_asset_stats(a)->tangent_meshes == 2);
        const sinew_asset_mesh_info *m0 = find_mesh(a, "m0"), *m1 = find_mesh(a, "m1"), *m2 = find_mesh(a, "m2");
        if (tg && m0 && m1 && m2) {
            double worst = 0;
            TU_CHECK(m0->vertex_count == N0 && m1->vertex_count == 3 && m2->vertex_count == 3);
            for (int v = 0; v < N0; v++) { /* skinned: as in the file */
                double want[3] = { t0[v * 4], t0[v * 4 + 1], t0[v * 4 + 2] };
                normalize3(want);
                worst = fmax(worst, tan_err(&tg[m0->first_vertex + v], want, t0[v * 4 + 3]));
            }
            for (int v = 0; v < 3; v++) { /* mirrored by the node: x negated, sign flipped */
                const int16_t *q = v == 1 ? t1_sparse : t1 + v * 4;
                double want[3] = { -deq16(q[0]), deq16(q[1]), deq16(q[2]) };
                normalize3(want);
                worst = fmax(worst, tan_err(&tg[m1->first_vertex + v], want, q[3] < 0 ? 1.0 : -1.0));
            }
            printf("rest tangents: worst component error %.3g (tolerance 2e-4)\n", worst);
            TU_CHECK_MSG(worst <= 2e-4, "rest tangents off by %g", worst);
            for (int v = 0; v < 3; v++)
                TU_CHECK(tg[m2->first_vertex + v].tangent_oct == SINEW_OCT_ZERO && tg[m2->first_vertex + v].sign == 1.0f);

            /* skinned by a random LBS pose against float64 from the file's values */
            const sinew_skeleton *sk = sinew_asset_skeleton(a);
            uint32_t nj = sinew_skeleton_joint_count(sk);
            int jr = sinew_skeleton_find(sk, "root"), jt = sinew_skeleton_find(sk, "tip");
            TU_CHECK(jr >= 0 && jt >= 0);
            sinew_transform *local = malloc(nj * sizeof *local);
            memcpy(local, sinew_skeleton_rest_pose(sk), nj * sizeof *local);
            for (uint32_t j = 0; j < nj; j++) {
                local[j].rotation = tu_random_quat(&rng);
                local[j].scale = sinew_v3(tu_uniform(&rng, 0.5, 2), tu_uniform(&rng, 0.5, 2), tu_uniform(&rng, 0.5, 2));
            }
            sinew_mat4 root = sinew_mat4_identity();
            sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(nj));
            sinew_palette_joint *pal = malloc(nj * sizeof *pal);
            double *rt = malloc(sizeof(double) * 4 * N0);
            TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, local, &root, scratch, pal));
            TU_CHECK_OK(sinew_reference_tangents(N0, sinew_asset_vertices(a) + m0->first_vertex, NULL, tg + m0->first_vertex,
                                                 pal, nj, SINEW_METHOD_LBS, rt));
            double werr = 0;
            for (int v = 0; v < N0 && jr >= 0 && jt >= 0; v++) {
                double A[3][3] = { { 0 } };
                for (int k = 0; k < 2; k++) {
                    const sinew_mat4 *X = &pal[k ? jt : jr].skin;
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 3; c++) A[r][c] += w0[v * 4 + k] * X->m[c][r];
                }
                double t[3];
                for (int r = 0; r < 3; r++) t[r] = A[r][0] * t0[v * 4] + A[r][1] * t0[v * 4 + 1] + A[r][2] * t0[v * 4 + 2];
                normalize3(t);
                double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                             A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
                double sign = t0[v * 4 + 3] * (det < 0 ? -1.0 : 1.0);
                double e = fmax(fabs(rt[v * 4] - t[0]), fmax(fabs(rt[v * 4 + 1] - t[1]), fabs(rt[v * 4 + 2] - t[2])));
                if (rt[v * 4 + 3] != sign) e = INFINITY;
                werr = fmax(werr, e);
            }
            printf("skinned tangents: worst component error %.3g (tolerance 1e-3)\n", werr);
            TU_CHECK_MSG(werr <= 1e-3, "skinned tangents off by %g", werr);
            free(local); free(scratch); free(pal); free(rt);
        }
        sinew_asset_destroy(a);
    }

    /* the same file without any TANGENT: NULL */
    char *no = malloc(cap);
    snprintf(no, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],"
             "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"plain\",\"mesh\":0}],"
             "\"meshes\":[{\"name\":\"m2\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d}]}],"
             "\"accessors\":[%s],\"bufferViews\":[%s],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}]}",
             a_p1, a_n1, a_i1, G.accs, G.views, G.binlen, b64);
    sinew_asset *b = load_json(no, "no tangents");
    if (b) {
        TU_CHECK(sinew_asset_tangents(b) == NULL);
        TU_CHECK(sinew_asset_stats(b)->tangent_meshes == 0);
        sinew_asset_destroy(b);
    }
    TU_CHECK(sinew_asset_tangents(NULL) == NULL);
    /* the assimp path with known values: Collada with TEXTANGENT / TEXBINORMAL */
    {
        static const char dae[] =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
            "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
            " <asset><unit meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
            " <library_geometries><geometry id=\"g\" name=\"tri\"><mesh>\n"
            "  <source id=\"p\"><float_array id=\"pa\" count=\"18\">0 0 0 1 0 0 0 1 0 2 0 0 3 0 0 2 1 0</float_array>\n"
            "   <technique_common><accessor source=\"#pa\" count=\"6\" stride=\"3\"><param name=\"X\" type=\"float\"/>"
            "<param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
            "  <source id=\"n\"><float_array id=\"na\" count=\"3\">0 0 1</float_array>\n"
            "   <technique_common><accessor source=\"#na\" count=\"1\" stride=\"3\"><param name=\"X\" type=\"float\"/>"
            "<param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
            "  <source id=\"t\"><float_array id=\"ta\" count=\"6\">1 0 0 0.70710678 0.70710678 0</float_array>\n"
            "   <technique_common><accessor source=\"#ta\" count=\"2\" stride=\"3\"><param name=\"X\" type=\"float\"/>"
            "<param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
            "  <source id=\"b\"><float_array id=\"ba\" count=\"6\">0 1 0 0.70710678 -0.70710678 0</float_array>\n"
            "   <technique_common><accessor source=\"#ba\" count=\"2\" stride=\"3\"><param name=\"X\" type=\"float\"/>"
            "<param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n"
            "  <vertices id=\"v\"><input semantic=\"POSITION\" source=\"#p\"/></vertices>\n"
            "  <triangles count=\"2\"><input semantic=\"VERTEX\" source=\"#v\" offset=\"0\"/>"
            "<input semantic=\"NORMAL\" source=\"#n\" offset=\"1\"/><input semantic=\"TEXTANGENT\" source=\"#t\" offset=\"2\"/>"
            "<input semantic=\"TEXBINORMAL\" source=\"#b\" offset=\"2\"/>\n"
            "   <p>0 0 0 1 0 0 2 0 0 3 0 1 4 0 1 5 0 1</p></triangles>\n"
            " </mesh></geometry></library_geometries>\n"
            " <library_visual_scenes><visual_scene id=\"s\"><node id=\"mirror\" name=\"mirror\">\n"
            "  <matrix>0 -2 0 0 -1 0 0 0 0 0 1 0 0 0 0 1</matrix>\n"
            "  <instance_geometry url=\"#g\"/></node></visual_scene></library_visual_scenes>\n"
            " <scene><instance_visual_scene url=\"#s\"/></scene>\n"
            "</COLLADA>\n";
        char path[] = "/tmp/sinew_tan_XXXXXX.dae";
        int fd = mkstemps(path, 4);
        TU_CHECK(fd >= 0);
        if (fd >= 0) {
            TU_CHECK(write(fd, dae, sizeof dae - 1) == (ssize_t)(sizeof dae - 1));
            close(fd);
            sinew_error_info err;
            sinew_asset_desc d = { 0 };
            d.path = path;
            sinew_asset *c = NULL;
            TU_CHECK_MSG(sinew_asset_load(&d, &c, &err) == SINEW_OK, "dae: %s", err.message);
            unlink(path);
            const sinew_tangent *ct = c ? sinew_asset_tangents(c) : NULL;
            TU_CHECK(ct != NULL && sinew_asset_vertex_count(c) == 6 && sinew_asset_stats(c)->gltf == 0);
            const double s5 = sqrt(5.0);
            const double want[2][4] = { { 0, -1, 0, -1 }, { -2 / s5, -1 / s5, 0, 1 } };
            double worst = 0;
            for (uint32_t v = 0; ct && v < 6; v++) {
                double e = tan_err(&ct[v], want[v / 3], want[v / 3][3]);
                worst = fmax(worst, e);
                sinew_vec3 g = sinew_oct_decode(ct[v].tangent_oct);
                TU_CHECK_MSG(e <= 2e-4, "dae vertex %u: tangent (%g %g %g) sign %g, expected (%g %g %g) sign %g", v, g.x,
                             g.y, g.z, (double)ct[v].sign, want[v / 3][0], want[v / 3][1], want[v / 3][2], want[v / 3][3]);
            }
            printf("dae (assimp): worst tangent error %.3g against the hand-computed values (tolerance 2e-4)\n", worst);
            sinew_asset_destroy(c);
        }
    }

    /* the assimp path: an FBX with tangents + bitangents under mirroring / pivot
     * nodes; tangents must stay across the (cofactor-transformed) normals */
    const char *fbx = "/usr/share/assimp/models/FBX/cubes_with_mirroring_and_pivot.fbx";
    if (access(fbx, R_OK) == 0) {
        sinew_error_info err;
        sinew_asset_desc d = { 0 };
        d.path = fbx;
        sinew_asset *c = NULL;
        TU_CHECK_MSG(sinew_asset_load(&d, &c, &err) == SINEW_OK, "fbx: %s", err.message);
        if (c) {
            const sinew_tangent *ct = sinew_asset_tangents(c);
            const double *rn = sinew_asset_rest_normals(c);
            TU_CHECK(ct != NULL && sinew_asset_stats(c)->tangent_meshes == sinew_asset_mesh_count(c));
            double worst = 0;
            uint32_t checked = 0;
            for (uint32_t v = 0; ct && v < sinew_asset_vertex_count(c); v++) {
                sinew_vec3 t = sinew_oct_decode(ct[v].tangent_oct);
                if (ct[v].tangent_oct == SINEW_OCT_ZERO) continue;
                worst = fmax(worst, fabs(t.x * rn[v * 3] + t.y * rn[v * 3 + 1] + t.z * rn[v * 3 + 2]));
                checked++;
            }
            printf("fbx: %u tangents, worst |dot(t, n)| %.3g (tolerance 2e-4)\n", checked, worst);
            TU_CHECK(checked == sinew_asset_vertex_count(c));
            TU_CHECK_MSG(worst <= 2e-4, "fbx tangents not across the normals: %g", worst);
            sinew_asset_destroy(c);
        }
    }
    free(json); free(no); free(b64);
    return tu_finish("test_asset_tangents");
}
