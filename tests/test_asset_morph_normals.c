/* Morph normals and tangents by glTF's rule: n = normalize(N + sum w_i dN_i),
 * t = normalize(T + sum w_i dT_i) with the weights in force, on a skinned and an
 * unskinned instance of one mesh, both with non-zero default weights (mesh
 * weights [0.6, -0.3]; the unskinned node's own [0.25, 0.8], under a rotated,
 * non-uniformly scaled node: normals by the inverse transpose). The glTF is
 * written here (tu_gltf). The expected values are evaluated in float64 from
 * the spec in this file, independently of the importer.
 *
 *   test_asset_morph_normals                 the importer's targets (normal and tangent
 *                                            deltas on both instances), rest normals /
 *                                            tangents at the defaults, and
 *                                            sinew_morph_reference(_tangents) with w - default
 *                                            at random weights (1e-3 rad: oct16 codes)
 *   test_asset_morph_normals --write F       writes the glTF to F (CLI tests)
 *   test_asset_morph_normals --check F.obj WA WB   the OBJ 'sinew deform F --rest --morph
 *                                            a=WA --morph b=WB' wrote: positions within
 *                                            1e-5 x size, normals within 1e-3 rad */
#include "testutil.h"
#include "gltf_writer.h"
#include <sinew/asset.h>
#include <sinew/linalg.h>
#include <sinew/reference.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 4
static float P[NV][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0.2f } };
static float N[NV][3], T[NV][4];
static float DP[2][NV][3], DN[2][NV][3], DT[2][NV][3];
static const double MESH_W[2] = { 0.6, -0.3 }, NODE_W[2] = { 0.25, 0.8 };
/* unskinned node: translation, rotation about z by 2 atan2(0.6, 0.8), scale */
static const double NT[3] = { 1, 2, 3 }, NS[3] = { 2, 1, 0.5 };

static void unit3(float *v)
{
    double l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / l);
}

static void fill(void)
{
    static const float n0[NV][3] = { { 0, 0, 1 }, { 0.3f, 0, 1 }, { 0, -0.4f, 1 }, { 0.2f, 0.2f, 1 } };
    static const float t0[NV][3] = { { 1, 0, 0 }, { 1, 0, -0.3f }, { 1, 0.2f, 0 }, { 0.9f, -0.1f, -0.2f } };
    for (int v = 0; v < NV; v++) {
        memcpy(N[v], n0[v], sizeof N[v]); unit3(N[v]);
        memcpy(T[v], t0[v], 3 * sizeof(float)); unit3(T[v]); T[v][3] = v == 2 ? -1.0f : 1.0f;
    }
    memset(DP, 0, sizeof DP); memset(DN, 0, sizeof DN); memset(DT, 0, sizeof DT);
    DP[0][1][2] = 0.5f; DP[0][2][0] = 0.1f; DP[1][3][2] = -0.4f;
    DN[0][1][0] = 0.8f; DN[0][1][2] = -0.2f; DN[0][2][1] = 0.5f; DN[0][2][2] = 0.3f; DN[0][3][0] = -0.6f; DN[0][3][1] = 0.1f;
    DN[1][0][0] = 0.3f; DN[1][0][1] = -0.7f; DN[1][0][2] = 0.1f; DN[1][2][0] = 0.4f; DN[1][2][1] = 0.4f;
    DT[0][1][1] = 0.5f; DT[0][2][0] = 0.2f; DT[0][2][1] = 0.3f; DT[1][3][2] = 0.6f;
}

static char *build_gltf(void)
{
    static tu_gltf g;
    tu_gltf_reset(&g);
    fill();
    static const uint8_t J[NV][4] = { { 0, 0, 0, 0 }, { 0, 1, 0, 0 }, { 1, 0, 0, 0 }, { 0, 1, 0, 0 } };
    static const float W[NV][4] = { { 1, 0, 0, 0 }, { 0.5f, 0.5f, 0, 0 }, { 1, 0, 0, 0 }, { 0.3f, 0.7f, 0, 0 } };
    static const uint16_t I[6] = { 0, 1, 2, 0, 2, 3 };
    static const float IBM[2][16] = { { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 },
                                      { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1 } };
    tu_gltf_acc(&g, P, sizeof P, 5126, "VEC3", NV, 0, ",\"min\":[0,0,0],\"max\":[1,1,0.2]"); /* 0 */
    tu_gltf_acc(&g, N, sizeof N, 5126, "VEC3", NV, 0, NULL);                               /* 1 */
    tu_gltf_acc(&g, T, sizeof T, 5126, "VEC4", NV, 0, NULL);                               /* 2 */
    tu_gltf_acc(&g, J, sizeof J, 5121, "VEC4", NV, 0, NULL);                               /* 3 */
    tu_gltf_acc(&g, W, sizeof W, 5126, "VEC4", NV, 0, NULL);                               /* 4 */
    tu_gltf_acc(&g, I, sizeof I, 5123, "SCALAR", 6, 0, NULL);                              /* 5 */
    tu_gltf_acc(&g, IBM, sizeof IBM, 5126, "MAT4", 2, 0, NULL);                            /* 6 */
    for (int t = 0; t < 2; t++) {                                                          /* 7 + 3t .. */
        char mm[128];
        float lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
        for (int v = 0; v < NV; v++)
            for (int k = 0; k < 3; k++) { lo[k] = fminf(lo[k], DP[t][v][k]); hi[k] = fmaxf(hi[k], DP[t][v][k]); }
        snprintf(mm, sizeof mm, ",\"min\":[%.9g,%.9g,%.9g],\"max\":[%.9g,%.9g,%.9g]", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        tu_gltf_acc(&g, DP[t], sizeof DP[t], 5126, "VEC3", NV, 0, mm);
        tu_gltf_acc(&g, DN[t], sizeof DN[t], 5126, "VEC3", NV, 0, NULL);
        tu_gltf_acc(&g, DT[t], sizeof DT[t], 5126, "VEC3", NV, 0, NULL);
    }
    char *b = tu_base64(g.bin, g.binlen);
    size_t cap = strlen(b) + 8192;
    char *json = malloc(cap);
    if (!b || !json) abort();
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2,3]}],"
             "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"child\",\"translation\":[0,1,0]},"
             "{\"name\":\"skinned\",\"mesh\":0,\"skin\":0},"
             "{\"name\":\"rigid\",\"mesh\":0,\"translation\":[%g,%g,%g],\"rotation\":[0,0,0.6,0.8],\"scale\":[%g,%g,%g],"
             "\"weights\":[%g,%g]}],"
             "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":6}],"
             "\"meshes\":[{\"name\":\"m\",\"weights\":[%g,%g],\"extras\":{\"targetNames\":[\"a\",\"b\"]},"
             "\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TANGENT\":2,\"JOINTS_0\":3,\"WEIGHTS_0\":4},"
             "\"indices\":5,\"targets\":[{\"POSITION\":7,\"NORMAL\":8,\"TANGENT\":9},{\"POSITION\":10,\"NORMAL\":11,\"TANGENT\":12}]}]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[%s],\"accessors\":[%s]}",
             NT[0], NT[1], NT[2], NS[0], NS[1], NS[2], NODE_W[0], NODE_W[1], MESH_W[0], MESH_W[1], g.binlen, b, g.views, g.accs);
    free(b);
    return json;
}

/* The spec's evaluation at weights w of one instance: position, unit normal, unit
 * tangent (model space). rigid: the node's T R S (normals by R S^-1). */
static void spec(int rigid, const double w[2], int v, double p[3], double n[3], double t[3])
{
    double c = 0.8 * 0.8 - 0.6 * 0.6, s = 2 * 0.6 * 0.8;
    double q[3], m[3], d[3];
    for (int k = 0; k < 3; k++) {
        q[k] = P[v][k] + w[0] * DP[0][v][k] + w[1] * DP[1][v][k];
        m[k] = N[v][k] + w[0] * DN[0][v][k] + w[1] * DN[1][v][k];
        d[k] = T[v][k] + w[0] * DT[0][v][k] + w[1] * DT[1][v][k];
    }
    if (rigid) {
        double a[3], b[3], e[3];
        for (int k = 0; k < 3; k++) { a[k] = q[k] * NS[k]; b[k] = m[k] / NS[k]; e[k] = d[k] * NS[k]; }
        q[0] = NT[0] + c * a[0] - s * a[1]; q[1] = NT[1] + s * a[0] + c * a[1]; q[2] = NT[2] + a[2];
        m[0] = c * b[0] - s * b[1]; m[1] = s * b[0] + c * b[1]; m[2] = b[2];
        d[0] = c * e[0] - s * e[1]; d[1] = s * e[0] + c * e[1]; d[2] = e[2];
    }
    double ln = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]), lt = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) { p[k] = q[k]; n[k] = m[k] / ln; t[k] = d[k] / lt; }
}

static double angle(const double *a, const double *b)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), d);
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

/* 1 for the instance whose defaults are the node's (the rigid one). */
static int instance_rigid(const sinew_asset *a, uint32_t mesh)
{
    const float *dw = NULL;
    uint32_t c = 0;
    sinew_asset_morph_targets(a, mesh, &c, &dw);
    return c == 2 && dw && dw[0] == (float)NODE_W[0];
}

static int check_obj(const char *path, double wa, double wb)
{
    char *json = build_gltf();
    sinew_asset *a = load(json);
    free(json);
    if (!a) return tu_finish("test_asset_morph_normals --check");
    FILE *f = fopen(path, "r");
    TU_CHECK_MSG(f != NULL, "cannot read %s", path);
    uint32_t nv = sinew_asset_vertex_count(a), iv = 0, in = 0;
    double *pos = calloc((size_t)nv * 3, sizeof(double)), *nrm = calloc((size_t)nv * 3, sizeof(double));
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        double x, y, z;
        if (sscanf(line, "v %lf %lf %lf", &x, &y, &z) == 3 && iv < nv) { pos[3 * iv] = x; pos[3 * iv + 1] = y; pos[3 * iv + 2] = z; iv++; }
        if (sscanf(line, "vn %lf %lf %lf", &x, &y, &z) == 3 && in < nv) { nrm[3 * in] = x; nrm[3 * in + 1] = y; nrm[3 * in + 2] = z; in++; }
    }
    if (f) fclose(f);
    TU_CHECK(iv == nv && in == nv && nv == 2 * NV);
    double size = sinew_asset_size(a), w[2] = { wa, wb }, worst_p = 0, worst_n = 0;
    for (uint32_t m = 0; m < sinew_asset_mesh_count(a) && iv == nv && in == nv; m++) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, m);
        int rigid = instance_rigid(a, m);
        for (int v = 0; v < NV; v++) {
            double p[3], n[3], t[3];
            spec(rigid, w, v, p, n, t);
            uint32_t gv = mi->first_vertex + (uint32_t)v;
            worst_p = fmax(worst_p, tu_vec3_diff(&pos[3 * gv], p, 0));
            worst_n = fmax(worst_n, angle(&nrm[3 * gv], n));
        }
    }
    printf("OBJ vs glTF spec at weights (%g, %g): positions %.3g x size, normals %.3g rad\n", wa, wb, worst_p / size, worst_n);
    TU_CHECK(worst_p <= 1e-5 * size);
    TU_CHECK(worst_n <= 1e-3);
    free(pos); free(nrm);
    sinew_asset_destroy(a);
    return tu_finish("test_asset_morph_normals --check");
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
    if (argc == 5 && !strcmp(argv[1], "--check")) return check_obj(argv[2], atof(argv[3]), atof(argv[4]));

    char *json = build_gltf();
    sinew_asset *a = load(json);
    free(json);
    if (!a) return tu_finish("test_asset_morph_normals");
    TU_CHECK(sinew_asset_mesh_count(a) == 2 && sinew_asset_vertex_count(a) == 2 * NV && sinew_asset_tangents(a));
    tu_rng rng = tu_rng_seeded(0x6d6f7270686e726dull);
    int rigid_seen = 0, skinned_seen = 0;
    double worst_rest = 0, worst_n = 0, worst_t = 0, worst_p = 0;
    for (uint32_t m = 0; m < sinew_asset_mesh_count(a) && sinew_asset_tangents(a); m++) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, m);
        uint32_t c = 0;
        const float *dw = NULL;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, m, &c, &dw);
        int rigid = instance_rigid(a, m);
        rigid_seen += rigid; skinned_seen += !rigid;
        TU_CHECK(c == 2 && tg && dw && mi->vertex_count == NV);
        if (c != 2 || !tg || !dw || mi->vertex_count != NV) continue;
        /* every target keeps its normal and tangent deltas, skinned or not */
        for (uint32_t t = 0; t < 2; t++) TU_CHECK(tg[t].normal_deltas != NULL && tg[t].tangent_deltas != NULL);
        const double *w0 = rigid ? NODE_W : MESH_W;
        TU_CHECK(dw[0] == (float)w0[0] && dw[1] == (float)w0[1]);
        const sinew_vertex *vx = sinew_asset_vertices(a) + mi->first_vertex;
        const sinew_tangent *tx = sinew_asset_tangents(a) + mi->first_vertex;
        const double *rn = sinew_asset_rest_normals(a) + 3 * (size_t)mi->first_vertex;
        /* the rest mesh at the defaults */
        for (int v = 0; v < NV; v++) {
            double p[3], n[3], t[3];
            spec(rigid, w0, v, p, n, t);
            worst_rest = fmax(worst_rest, angle(&rn[3 * v], n));
        }
        /* the reference at other weights, with w - default (what deform and the crowds pass) */
        for (int trial = 0; trial < 20; trial++) {
            double w[2] = { tu_uniform(&rng, -1.6, 1.6), tu_uniform(&rng, -1.6, 1.6) };
            if (trial == 0) { w[0] = 1.6; w[1] = 0; }
            float wr[2] = { (float)(w[0] - w0[0]), (float)(w[1] - w0[1]) };
            w[0] = (double)wr[0] + w0[0]; w[1] = (double)wr[1] + w0[1]; /* the float weights actually given */
            double mp[NV * 3], mn[NV * 3], mt[NV * 3];
            sinew_morph_error err;
            TU_CHECK_OK(sinew_morph_reference(NV, vx, tg, 2, wr, mp, mn, &err));
            TU_CHECK_OK(sinew_morph_reference_tangents(NV, tx, tg, 2, wr, mt, &err));
            for (int v = 0; v < NV; v++) {
                double p[3], n[3], t[3];
                spec(rigid, w, v, p, n, t);
                worst_p = fmax(worst_p, tu_vec3_diff(&mp[3 * v], p, 0) / sinew_asset_size(a));
                worst_n = fmax(worst_n, angle(&mn[3 * v], n));
                worst_t = fmax(worst_t, angle(&mt[3 * v], t));
            }
        }
    }
    printf("rest normals at the defaults %.3g rad; at random weights: positions %.3g x size, normals %.3g rad, "
           "tangents %.3g rad\n", worst_rest, worst_p, worst_n, worst_t);
    TU_CHECK(rigid_seen == 1 && skinned_seen == 1);
    TU_CHECK(worst_rest <= 1e-9);
    TU_CHECK(worst_p <= 1e-6);
    TU_CHECK(worst_n <= 1e-3);
    TU_CHECK(worst_t <= 1e-3);
    sinew_asset_destroy(a);
    return tu_finish("test_asset_morph_normals");
}
