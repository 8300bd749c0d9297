/* The compact rest layout (SINEW_REST_LAYOUT_COMPACT, docs/vertex-streams.md):
 *  - codec (CPU): sinew_compact_encode / sinew_compact_decode on random vertices:
 *    position within step / 2 per axis (+ 2 float32 ulps), weights summing to 255 each
 *    within 1/255 of the unorm16 value, order and joints kept, normal within 1e-3 of
 *    the 16-bit one (12-bit octahedral grid: spacing 16/32767, a quarter diagonal of
 *    it stretched by at most sqrt(6) is 8.5e-4), the zero normal kept, a flat axis
 *    exact; errors (joint 256, NaN, weight sum);
 *  - GPU against the float64 reference on the SAME quantized inputs (the decoded
 *    vertices, bulge distances computed from them): 3 meshes (3, 64, 256 joints) x 9
 *    methods x bulge (outer, inner on mesh 1) = 54 characters plus 3 on a default-layout
 *    mesh in the same skinner (its aux records next to the compact ones'), random
 *    poses (rotations up to 1.2 pi, scale except for DQS and CoR), NaN-poisoned output
 *    with gaps that must stay NaN; float/texel, float/storage in group records,
 *    packed/texel with workgroups of 256, and a grid-mode subset (the records and grid runs
 *    with tangent frames: against sinew_reference_tangents, 1e-4 x max(1, k) for k <= 100,
 *    the sign exact). Tolerances as
 *    test_gpu_skin8: position 2e-5 x extent; normal 1e-4 (float) or 4e-3 (packed) x
 *    max(1, k) + 8 x the measured bulge sensitivity;
 *  - the same GPU output against the float64 reference on the FULL-precision vertices:
 *    per vertex, with dp = |decoded - rest position|, dw = sum_k |w8_k / 255 - w_k|,
 *    dn = |decoded - rest normal|, L = max_k ||X_k||_F (3x3), R = max_k |X_k p - out|
 *    (CoR: + 2 max_k |X_k c - X_0 c| + 2 L |p - c|), G = 1 (LBS) or 2 / |sum_k w_k r_k|
 *    (the blended real quaternions, sign-aligned), the position error is at most
 *    2 (L dp + G dw R) + the tolerance above (for LBS, L dp + dw R is exact to first
 *    order: sum_k dw_k = 0); with bulge correction + 2 dp + the bulge displacements
 *    |with - without| on both inputs (the correction is not smooth in its inputs: near
 *    the bone a vertex's push can change by its whole size); the normal error (no
 *    bulge) at most 4 (k (dn + dw Rs) + G dw Rq) + the tolerance above, Rs = max_k
 *    ||A_k - A_0||_F / ||A||_F of the LBS stage's matrices (0 for DQS, CoR), Rq = 2 max_k
 *    |r_k - r_0| (0 for LBS), checked where that bound is <= 0.05, k <= 100 and
 *    |det A| >= 3 ||A||_F^2 ||dA||_F with the same sign for both weight sets (the
 *    first-order regime: beyond it a perturbation of the inputs of that size may flip
 *    the skinned normal, quantization or not). The worst ratio to the bound is printed
 *    per method;
 *  - misuse: vertices8, 257 joints, an unknown layout, the morpher, the baseline
 *    debug kernel, rest-mesh descs; remove and re-add frees the rest range. */
#include "testutil.h"
#include <sinew/sinew.h>

#include <string.h>

#define N_MESH 3
#define N_CHAR (N_MESH * (int)SINEW_METHOD_COUNT * 2)
#define N_DEF 3           /* characters on the default-layout copy of mesh 1 */
#define GAP 3

static const uint32_t joint_counts[N_MESH] = { 3, 64, 256 };
static tu_rng rng;

typedef struct mesh_data {
    sinew_skeleton *skel;
    uint32_t jc, n;
    sinew_vertex *v;          /* full precision (sinew_pack_vertices) */
    sinew_vertex *vq;         /* decoded compact vertices: what the GPU skins */
    sinew_compact_box box;
    float *bulge, *bulge_q, *centers;
    sinew_tangent *tan;
} mesh_data;

typedef struct character {
    uint32_t mesh, def;       /* def: on the default-layout mesh */
    sinew_method method;
    uint32_t flags;
    uint32_t out_offset, pal_offset;
    sinew_palette_joint *pal[2];
    double *ref_pos[2], *ref_nrm[2], *cond[2], *sens[2]; /* on the quantized inputs (def: full) */
    double *full_pos[2], *full_nrm[2];                   /* on the full-precision inputs */
    double *bound_p[2], *bound_n[2];                     /* full-precision bounds (see above) */
    double extent[2];
} character;

static sinew_result make_skeleton(uint32_t jc, sinew_skeleton **out)
{
    int32_t parents[256];
    sinew_transform rest[256];
    bool prop[256];
    tu_random_forest(&rng, jc, parents);
    tu_random_bind(&rng, jc, parents, rest);
    for (uint32_t j = 0; j < jc; j++) prop[j] = tu_range(&rng, 2) != 0;
    sinew_skeleton_desc d = { 0 };
    d.joint_count = jc;
    d.parents = parents;
    d.rest_local = rest;
    d.scale_propagates = prop;
    return sinew_skeleton_create(&d, out);
}

static void make_mesh(mesh_data *md, uint32_t jc)
{
    md->jc = jc;
    md->n = 1100 + tu_range(&rng, 200);
    TU_CHECK_OK(make_skeleton(jc, &md->skel));
    uint32_t n = md->n;
    md->v = malloc(sizeof(sinew_vertex) * n);
    md->vq = malloc(sizeof(sinew_vertex) * n);
    md->bulge = malloc(sizeof(float) * n);
    md->bulge_q = malloc(sizeof(float) * n);
    md->centers = malloc(sizeof(float) * 3 * n);
    md->tan = malloc(sizeof(sinew_tangent) * n);
    TU_CHECK_OK(tu_make_random_mesh(&rng, md->skel, n, 0.5, md->v, md->bulge));
    sinew_vertex_compact *c = malloc(sizeof *c * n);
    TU_CHECK_OK(sinew_compact_encode(n, md->v, c, &md->box, NULL));
    TU_CHECK_OK(sinew_compact_decode(n, c, &md->box, md->vq));
    TU_CHECK_OK(sinew_bulge_rest_distances(md->skel, n, md->vq, md->bulge_q));
    free(c);
    for (uint32_t i = 0; i < n; i++) {
        sinew_vec3 o = tu_random_vec3(&rng, -0.6, 0.6);
        md->centers[3 * i] = md->v[i].position[0] + (float)o.x;
        md->centers[3 * i + 1] = md->v[i].position[1] + (float)o.y;
        md->centers[3 * i + 2] = md->v[i].position[2] + (float)o.z;
        md->tan[i].tangent_oct = sinew_oct_encode(tu_random_unit(&rng));
        md->tan[i].sign = tu_range(&rng, 2) ? 1.0f : -1.0f;
    }
}

/* ---- codec ---- */
static void check_codec(void)
{
    enum { N = 4000 };
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(make_skeleton(200, &skel));
    sinew_vertex *v = malloc(sizeof *v * N), *d = malloc(sizeof *d * N);
    sinew_vertex_compact *c = malloc(sizeof *c * N);
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, N, 0.5, v, NULL));
    v[7].normal_oct = SINEW_OCT_ZERO;
    for (uint32_t i = 0; i < N; i++) v[i].position[1] = 0.25f; /* a flat axis */
    /* some exact axis normals (the octahedron's corners) */
    v[8].normal_oct = sinew_oct_encode((sinew_vec3){ 1, 0, 0 });
    v[9].normal_oct = sinew_oct_encode((sinew_vec3){ 0, 0, -1 });
    sinew_compact_box box;
    TU_CHECK_OK(sinew_compact_encode(N, v, c, &box, NULL));
    TU_CHECK_OK(sinew_compact_decode(N, c, &box, d));
    TU_CHECK(box.step[1] == 0.0f && box.offset[1] == 0.25f);
    double worst_p = 0, worst_n = 0, worst_w = 0;
    for (uint32_t i = 0; i < N; i++) {
        for (int a = 0; a < 3; a++) {
            double e = fabs((double)d[i].position[a] - v[i].position[a]);
            double lim = box.step[a] / 2 + 2.0 * (fabs(v[i].position[a]) + fabs(box.offset[a])) * 0x1p-24;
            TU_CHECK_MSG(e <= lim, "vertex %u axis %d: position error %.3g > %.3g", i, a, e, lim);
            if (box.step[a] > 0 && e / box.step[a] > worst_p) worst_p = e / box.step[a];
        }
        TU_CHECK(d[i].position[1] == 0.25f);
        uint32_t sum = 0;
        for (int k = 0; k < 4; k++) {
            sum += d[i].weights[k];
            TU_CHECK(d[i].weights[k] % 257u == 0);
            double e = fabs(d[i].weights[k] / 65535.0 - v[i].weights[k] / 65535.0);
            TU_CHECK_MSG(e < 1.0 / 255, "vertex %u slot %d: weight error %.3g", i, k, e);
            worst_w = e > worst_w ? e : worst_w;
            TU_CHECK(d[i].joints[k] == v[i].joints[k]);
            if (k) TU_CHECK(d[i].weights[k] <= d[i].weights[k - 1]);
        }
        TU_CHECK(sum == 65535u);
        sinew_vec3 a = sinew_oct_decode(v[i].normal_oct), b = sinew_oct_decode(d[i].normal_oct);
        double e = sinew_v3_length(sinew_v3_sub(a, b));
        TU_CHECK_MSG(e <= 1e-3, "vertex %u: normal error %.3g", i, e);
        worst_n = e > worst_n ? e : worst_n;
    }
    TU_CHECK(d[7].normal_oct == SINEW_OCT_ZERO);
    fprintf(stderr, "codec: position %.3f steps, weight %.4f (1/255 = %.4f), normal %.3g\n", worst_p, worst_w, 1.0 / 255,
            worst_n);
    /* errors */
    uint32_t bad = 0;
    sinew_vertex w = v[3];
    w.joints[2] = 256;
    TU_CHECK_RESULT(sinew_compact_encode(1, &w, c, &box, &bad), SINEW_ERROR_JOINT_INDEX);
    TU_CHECK(bad == 0);
    w = v[3];
    w.position[2] = NAN;
    TU_CHECK_RESULT(sinew_compact_encode(1, &w, c, &box, &bad), SINEW_ERROR_NON_FINITE);
    w = v[3];
    w.weights[0]--;
    TU_CHECK_RESULT(sinew_compact_encode(1, &w, c, &box, &bad), SINEW_ERROR_INVALID_WEIGHT);
    TU_CHECK_RESULT(sinew_compact_encode(0, v, c, &box, NULL), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_compact_encode(1, NULL, c, &box, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_compact_decode(1, NULL, &box, d), SINEW_ERROR_INVALID_ARGUMENT);
    free(v); free(d); free(c);
    sinew_skeleton_destroy(skel);
}

/* ---- references and bounds ---- */
static double frob3(const sinew_mat4 *m)
{
    double s = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) s += m->m[c][r] * m->m[c][r];
    return sqrt(s);
}

/* disp_f, disp_q: with bulge correction, |the reference with it - without it| per vertex on the
 * full-precision and the quantized inputs (NULL without). */
static void make_bounds(character *c, const mesh_data *md, int f, const double *disp_f, const double *disp_q)
{
    const sinew_palette_joint *pal = c->pal[f];
    int cor = sinew_method_uses_centers(c->method);
    for (uint32_t i = 0; i < md->n; i++) {
        const sinew_vertex *v = &md->v[i], *q = &md->vq[i];
        sinew_vec3 p = { v->position[0], v->position[1], v->position[2] };
        sinew_vec3 pq = { q->position[0], q->position[1], q->position[2] };
        double dp = sinew_v3_length(sinew_v3_sub(p, pq));
        double dn = sinew_v3_length(sinew_v3_sub(sinew_oct_decode(v->normal_oct), sinew_oct_decode(q->normal_oct)));
        double dw = 0, L = 0, R = 0, Rc = 0, Rn = 0, Rq = 0;
        sinew_vec3 out = { c->full_pos[f][3 * i], c->full_pos[f][3 * i + 1], c->full_pos[f][3 * i + 2] };
        sinew_vec3 cc = { md->centers[3 * i], md->centers[3 * i + 1], md->centers[3 * i + 2] };
        sinew_quat r0 = pal[v->joints[0]].rigid.real;
        double b[4] = { 0, 0, 0, 0 }, A[9] = { 0 }, Aq[9] = { 0 }, An = 0;
        for (int k = 0; k < 4; k++) {
            double w = v->weights[k] / 65535.0;
            dw += fabs(q->weights[k] / 65535.0 - w);
            const sinew_mat4 *X = &pal[v->joints[k]].skin;
            double l = frob3(X);
            L = l > L ? l : L;
            double e = sinew_v3_length(sinew_v3_sub(sinew_mat4_transform_point(X, p), out));
            R = e > R ? e : R;
            double ec = sinew_v3_length(sinew_v3_sub(sinew_mat4_transform_point(X, cc),
                                                     sinew_mat4_transform_point(&pal[v->joints[0]].skin, cc)));
            Rc = ec > Rc ? ec : Rc;
            sinew_quat rk = pal[v->joints[k]].rigid.real;
            double s = (rk.x * r0.x + rk.y * r0.y + rk.z * r0.z + rk.w * r0.w) < 0 ? -w : w;
            b[0] += s * rk.x; b[1] += s * rk.y; b[2] += s * rk.z; b[3] += s * rk.w;
            double sg = s < 0 ? -1 : 1;
            double qd = sqrt((sg * rk.x - r0.x) * (sg * rk.x - r0.x) + (sg * rk.y - r0.y) * (sg * rk.y - r0.y) +
                             (sg * rk.z - r0.z) * (sg * rk.z - r0.z) + (sg * rk.w - r0.w) * (sg * rk.w - r0.w));
            Rq = 2 * qd > Rq ? 2 * qd : Rq;
            const sinew_mat4 *Y = c->method == SINEW_METHOD_LBS || c->method == SINEW_METHOD_DQS ||
                                          c->method == SINEW_METHOD_COR ? X : &pal[v->joints[k]].scale;
            double d0 = 0;
            for (int cc2 = 0; cc2 < 3; cc2++)
                for (int r = 0; r < 3; r++) {
                    A[3 * cc2 + r] += w * Y->m[cc2][r];
                    Aq[3 * cc2 + r] += q->weights[k] / 65535.0 * Y->m[cc2][r];
                    double dd = Y->m[cc2][r] - (c->method == SINEW_METHOD_LBS || c->method == SINEW_METHOD_DQS ||
                                                         c->method == SINEW_METHOD_COR
                                                     ? pal[v->joints[0]].skin.m[cc2][r]
                                                     : pal[v->joints[0]].scale.m[cc2][r]);
                    d0 += dd * dd;
                }
            Rn = sqrt(d0) > Rn ? sqrt(d0) : Rn;
        }
        for (int k = 0; k < 9; k++) An += A[k] * A[k];
        An = sqrt(An);
        Rn = c->method == SINEW_METHOD_DQS || c->method == SINEW_METHOD_COR ? 0.0 : An > 1e-9 ? Rn / An : 1e9;
        if (c->method == SINEW_METHOD_LBS) Rq = 0;
        double bl = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        double G = c->method == SINEW_METHOD_LBS ? 1.0 : 2.0 / (bl > 1e-9 ? bl : 1e-9);
        if (cor) R += 2 * Rc + 2 * L * sinew_v3_length(sinew_v3_sub(p, cc));
        double bp = 2 * (L * dp + G * dw * R);
        if (c->flags) bp += disp_f[i] + disp_q[i] + 2 * dp;
        c->bound_p[f][i] = bp;
        double k = c->cond[f][i] > 1 ? c->cond[f][i] : 1;
        c->bound_n[f][i] = 4 * (k * (dn + dw * Rn) + G * dw * Rq);
        /* the normal takes the sign of det(A): where the weights' change can flip it, no bound */
        double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[3] * (A[1] * A[8] - A[2] * A[7]) + A[6] * (A[1] * A[5] - A[2] * A[4]);
        double detq = Aq[0] * (Aq[4] * Aq[8] - Aq[5] * Aq[7]) - Aq[3] * (Aq[1] * Aq[8] - Aq[2] * Aq[7]) +
                      Aq[6] * (Aq[1] * Aq[5] - Aq[2] * Aq[4]);
        double dA = 0;
        for (int e = 0; e < 9; e++) dA += (Aq[e] - A[e]) * (Aq[e] - A[e]);
        if (Rn > 0 && (det * detq <= 0 || fabs(det) < 3 * An * An * sqrt(dA))) c->bound_n[f][i] = INFINITY;
    }
}

static void make_pose(character *c, const mesh_data *md, int f, sinew_mat4 *scratch)
{
    sinew_transform local[256];
    memcpy(local, sinew_skeleton_rest_pose(md->skel), sizeof(sinew_transform) * md->jc);
    int rigid = c->method == SINEW_METHOD_COR || c->method == SINEW_METHOD_DQS;
    tu_random_pose(&rng, md->jc, local, 1.2 * M_PI, rigid ? 0.0 : 0.2);
    sinew_transform root_t = { tu_random_vec3(&rng, -2, 2), tu_random_quat(&rng), { 1, 1, 1 } };
    sinew_mat4 root = sinew_mat4_from_transform(&root_t);
    uint32_t n = md->n;
    c->pal[f] = malloc(sizeof(sinew_palette_joint) * md->jc);
    TU_CHECK_OK(sinew_palette_build(md->skel, c->method, local, &root, scratch, c->pal[f]));
    const sinew_vertex *vin = c->def ? md->v : md->vq;
    const float *bin = c->def ? md->bulge : md->bulge_q;
    c->ref_pos[f] = malloc(sizeof(double) * 3 * n);
    c->ref_nrm[f] = malloc(sizeof(double) * 3 * n);
    c->full_pos[f] = malloc(sizeof(double) * 3 * n);
    c->full_nrm[f] = malloc(sizeof(double) * 3 * n);
    c->cond[f] = malloc(sizeof(double) * n);
    c->sens[f] = calloc(n, sizeof(double));
    c->bound_p[f] = malloc(sizeof(double) * n);
    c->bound_n[f] = malloc(sizeof(double) * n);
    TU_CHECK_OK(sinew_reference_skin_cor(n, vin, NULL, md->centers, bin, c->pal[f], md->jc, c->method, c->flags,
                                         c->ref_pos[f], c->ref_nrm[f]));
    TU_CHECK_OK(sinew_reference_skin_cor(n, md->v, NULL, md->centers, md->bulge, c->pal[f], md->jc, c->method, c->flags,
                                         c->full_pos[f], c->full_nrm[f]));
    if (c->flags)
        TU_CHECK_OK(tu_bulge_sensitivity(&rng, n, vin, NULL, NULL, NULL, md->centers, bin, c->pal[f], md->jc, c->method,
                                         c->flags, c->ref_nrm[f], c->sens[f]));
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) {
            double x = c->ref_pos[f][3 * v + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
        c->cond[f][v] = tu_normal_condition(c->pal[f], &vin[v], NULL, c->method);
    }
    double e = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    c->extent[f] = e > 1 ? e : 1;
    double *df = NULL, *dq = NULL;
    if (c->flags) { /* the bulge displacements: the plain method's outputs */
        double *pf = malloc(sizeof(double) * 3 * n), *pq = malloc(sizeof(double) * 3 * n);
        df = malloc(sizeof(double) * n);
        dq = malloc(sizeof(double) * n);
        TU_CHECK_OK(sinew_reference_skin_cor(n, md->v, NULL, md->centers, NULL, c->pal[f], md->jc, c->method, 0, pf, NULL));
        TU_CHECK_OK(sinew_reference_skin_cor(n, md->vq, NULL, md->centers, NULL, c->pal[f], md->jc, c->method, 0, pq, NULL));
        for (uint32_t v = 0; v < n; v++) {
            double a = 0, b = 0;
            for (int k = 0; k < 3; k++) {
                a += (c->full_pos[f][3 * v + k] - pf[3 * v + k]) * (c->full_pos[f][3 * v + k] - pf[3 * v + k]);
                double rq = c->def ? c->full_pos[f][3 * v + k] : c->ref_pos[f][3 * v + k];
                b += (rq - pq[3 * v + k]) * (rq - pq[3 * v + k]);
            }
            df[v] = sqrt(a);
            dq[v] = sqrt(b);
        }
        free(pf);
        free(pq);
    }
    make_bounds(c, md, f, df, dq);
    free(df);
    free(dq);
}

/* ---- GPU runs ---- */
typedef struct worst {
    double ratio_p[SINEW_METHOD_COUNT], ratio_n[SINEW_METHOD_COUNT], full_p[SINEW_METHOD_COUNT];
    uint64_t checked, skipped_n;
} worst;

static void run_list(sinew_gpu *gpu, const char *label, sinew_output_format fmt, sinew_read_path path,
                     sinew_debug_kernel kernel, uint32_t wg, mesh_data *meshes, const character *list, uint32_t nlist,
                     uint32_t total_rest, uint32_t total_out, uint32_t total_pal, worst *wr, int tangents)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = total_rest;
    sd.max_meshes = N_MESH + 1;
    sd.max_instances = N_CHAR + N_DEF;
    sd.max_output_vertices = total_out;
    sd.max_palette_vec4 = total_pal;
    sd.output_format = fmt;
    sd.read_path = path;
    sd.cor_centers = true;
    sd.tangents = tangents != 0;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    TU_CHECK_OK(sinew_debug_set_kernel(sk, kernel));
    TU_CHECK_OK(sinew_debug_set_workgroup_size(sk, wg));
    sinew_mesh_id ids[N_MESH + 1];
    for (int m = 0; m <= N_MESH; m++) {
        /* the default-layout copy of mesh 1 goes between the compact ones */
        int mm = m == 2 ? 1 : m < 2 ? m : m - 1;
        int def = m == 2;
        sinew_skinner_mesh_desc md = { 0 };
        md.vertices = meshes[mm].v;
        md.vertex_count = meshes[mm].n;
        md.joint_count = meshes[mm].jc;
        md.bulge_rest = def ? meshes[mm].bulge : meshes[mm].bulge_q;
        md.cor_centers = meshes[mm].centers;
        md.rest_layout = def ? SINEW_REST_LAYOUT_DEFAULT : SINEW_REST_LAYOUT_COMPACT;
        md.tangents = tangents ? meshes[mm].tan : NULL;
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &ids[def ? N_MESH : mm], NULL));
    }
    float *pos = malloc(sizeof(float) * 3 * total_out), *nrm = malloc(sizeof(float) * 3 * total_out);
    uint8_t *covered = calloc(total_out, 1);
    for (uint32_t i = 0; i < nlist; i++)
        for (uint32_t v = 0; v < meshes[list[i].mesh].n; v++) covered[list[i].out_offset + v] = 1;
    double ntol = fmt == SINEW_OUTPUT_PACKED ? 4e-3 : 1e-4;
    for (int f = 0; f < 2; f++) {
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total_out, 0x7fc00000u));
        sinew_frame fr;
        sinew_instance inst[N_CHAR + N_DEF];
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        for (uint32_t i = 0; i < nlist; i++) {
            const character *c = &list[i];
            sinew_palette_pack(c->method, c->flags, c->pal[f], meshes[c->mesh].jc, fr.palette + 4 * (size_t)c->pal_offset);
            sinew_instance in = { ids[c->def ? N_MESH : c->mesh], c->method, c->flags, c->pal_offset, c->out_offset };
            inst[i] = in;
        }
        TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, nlist, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        uint32_t grid = 0, nd = sinew_debug_dispatch_count(sk, &grid);
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total_out, pos, nrm));
        uint32_t bad = 0, badf = 0, written = 0;
        double worst_p = 0;
        for (uint32_t i = 0; i < nlist; i++) {
            const character *c = &list[i];
            const mesh_data *m = &meshes[c->mesh];
            for (uint32_t v = 0; v < m->n; v++) {
                const float *gp = pos + 3 * (size_t)(c->out_offset + v), *gn = nrm + 3 * (size_t)(c->out_offset + v);
                double ep = 0, en = 0, fp = 0, fn = 0;
                for (int k = 0; k < 3; k++) {
                    double dp = fabs(gp[k] - c->ref_pos[f][3 * v + k]), dn = fabs(gn[k] - c->ref_nrm[f][3 * v + k]);
                    double ap = fabs(gp[k] - c->full_pos[f][3 * v + k]), an = fabs(gn[k] - c->full_nrm[f][3 * v + k]);
                    if (!(dp <= ep)) ep = dp == dp ? dp : INFINITY;
                    if (!(dn <= en)) en = dn == dn ? dn : INFINITY;
                    if (!(ap <= fp)) fp = ap == ap ? ap : INFINITY;
                    if (!(an <= fn)) fn = an == an ? an : INFINITY;
                }
                double k = c->cond[f][v] > 1 ? c->cond[f][v] : 1;
                double tp = 2e-5 * c->extent[f], tn = ntol * k + 8.0 * c->sens[f][v];
                if (ep / c->extent[f] > worst_p) worst_p = ep / c->extent[f];
                if (!(ep <= tp) || !(en <= tn)) {
                    if (bad++ < 5)
                        TU_CHECK_MSG(0, "%s frame %d char %u (%s%s%s) v %u: quantized inputs: pos %.3g normal %.3g (cond %.3g)",
                                     label, f, i, sinew_method_name(c->method), c->flags ? "+bulge" : "",
                                     c->def ? ", default layout" : "", v, ep, en, k);
                }
                if (c->def) continue;
                /* against the full-precision reference: the stated bound */
                double bp = c->bound_p[f][v] + tp, bn = c->bound_n[f][v] + tn;
                int nchk = !c->flags && k <= 100 && c->bound_n[f][v] <= 0.05;
                if (wr && !nchk) wr->skipped_n++;
                if (wr) wr->checked++;
                if (!(fp <= bp) || (nchk && !(fn <= bn))) {
                    if (badf++ < 5)
                        TU_CHECK_MSG(0, "%s frame %d char %u (%s%s) v %u: full precision: pos %.3g > %.3g or normal %.3g > %.3g",
                                     label, f, i, sinew_method_name(c->method), c->flags ? "+bulge" : "", v, fp, bp,
                                     fn, bn);
                }
                if (wr) {
                    double rp = fp / bp, rn = nchk ? fn / bn : 0;
                    if (rp > wr->ratio_p[c->method]) wr->ratio_p[c->method] = rp;
                    if (rn > wr->ratio_n[c->method]) wr->ratio_n[c->method] = rn;
                    if (fp / c->extent[f] > wr->full_p[c->method]) wr->full_p[c->method] = fp / c->extent[f];
                }
            }
        }
        /* tangents (their aux records beside the bulge distances and centers): against
         * sinew_reference_tangents on the same vertices, 1e-4 x max(1, k) (k <= 100), sign exact */
        for (uint32_t i = 0; tangents && i < nlist; i++) {
            const character *c = &list[i];
            const mesh_data *m = &meshes[c->mesh];
            float *gt = malloc(sizeof(float) * 4 * m->n);
            double *rt = malloc(sizeof(double) * 4 * m->n);
            TU_CHECK_OK(sinew_skinner_read_tangents(sk, c->out_offset, m->n, gt));
            TU_CHECK_OK(sinew_reference_tangents(m->n, c->def ? m->v : m->vq, NULL, m->tan, c->pal[f], m->jc, c->method, rt));
            uint32_t tb = 0;
            for (uint32_t v = 0; v < m->n; v++) {
                double et = 0, k = c->cond[f][v] > 1 ? c->cond[f][v] : 1;
                for (int a = 0; a < 3; a++) {
                    double d = fabs((double)gt[4 * v + a] - rt[4 * v + a]);
                    if (!(d <= et)) et = d == d ? d : INFINITY;
                }
                if (k > 100) continue;
                if ((!(et <= 1e-4 * k) || (double)gt[4 * v + 3] != rt[4 * v + 3]) && tb++ < 3)
                    TU_CHECK_MSG(0, "%s frame %d char %u (%s) v %u: tangent %.3g (cond %.3g), sign %g want %g", label, f, i,
                                 sinew_method_name(c->method), v, et, k, gt[4 * v + 3], rt[4 * v + 3]);
            }
            free(gt);
            free(rt);
        }
        for (uint32_t o = 0; o < total_out; o++) written += !covered[o] && pos[3 * (size_t)o] == pos[3 * (size_t)o];
        TU_CHECK_MSG(bad == 0, "%s: %u vertices out of tolerance (quantized inputs)", label, bad);
        TU_CHECK_MSG(badf == 0, "%s: %u vertices beyond the full-precision bound", label, badf);
        TU_CHECK_MSG(written == 0, "%s: %u vertices written outside the frame's characters", label, written);
        fprintf(stderr, "%s frame %d: %u dispatches (%u grid), worst position %.3g x extent (quantized inputs)\n", label,
                f, nd, grid, worst_p);
    }
    free(pos);
    free(nrm);
    free(covered);
    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
}

static void check_misuse(sinew_gpu *gpu, mesh_data *meshes)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 4 * meshes[0].n + 16;
    sd.max_meshes = 4;
    sd.max_palette_vec4 = 4096;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    sinew_error_info e;
    sinew_mesh_id id;
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = meshes[0].v;
    md.vertex_count = meshes[0].n;
    md.joint_count = meshes[0].jc;
    md.rest_layout = SINEW_REST_LAYOUT_COMPACT;
    sinew_skinner_memory_report mr;
    /* no aux data: header + one slot per vertex; removed, the range is free again */
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
    sinew_skinner_memory(sk, &mr);
    TU_CHECK(mr.rest_used_bytes == 16ull * (meshes[0].n + 2));
    TU_CHECK_OK(sinew_skinner_remove_mesh(sk, id, NULL));
    sinew_skinner_memory(sk, &mr);
    TU_CHECK(mr.rest_used_bytes == 0);
    md.bulge_rest = meshes[0].bulge_q;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
    sinew_skinner_memory(sk, &mr);
    TU_CHECK(mr.rest_used_bytes == 16ull * (2 * meshes[0].n + 1));
    /* 8 influences, too many joints, an unknown layout */
    sinew_vertex8 v8[2];
    memset(v8, 0, sizeof v8);
    v8[0].weights[0] = v8[1].weights[0] = 65535;
    sinew_skinner_mesh_desc m8 = md;
    m8.vertices = NULL;
    m8.vertices8 = v8;
    m8.vertex_count = 2;
    m8.bulge_rest = NULL;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &m8, &id, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "4 influences") != NULL);
    sinew_skinner_mesh_desc mj = md;
    mj.joint_count = 257;
    mj.bulge_rest = NULL;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &mj, &id, &e), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK(strstr(e.message, "8-bit joint") != NULL);
    mj.joint_count = meshes[0].jc;
    mj.rest_layout = (sinew_rest_layout)7;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &mj, &id, &e), SINEW_ERROR_INVALID_ARGUMENT);
    /* the morpher writes the default layout: refused */
    sinew_morpher *mo = NULL;
    sinew_morpher_desc mdesc = { 0 };
    mdesc.max_sets = 1;
    mdesc.max_slots = 1;
    if (sinew_morpher_create(sk, &mdesc, &mo) == SINEW_OK) {
        sinew_morph_target t = { 0 };
        uint32_t idx = 0;
        float dpos[3] = { 0.1f, 0, 0 };
        t.count = 1;
        t.indices = &idx;
        t.position_deltas = dpos;
        sinew_morph_set_id set;
        sinew_morph_error me;
        sinew_mesh_id cid = { 0 };
        TU_CHECK_RESULT(sinew_morpher_add_targets(mo, cid, &t, 1, &set, &me), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(strstr(me.message, "compact") != NULL);
        sinew_morpher_destroy(mo);
    } else {
        TU_CHECK_MSG(0, "morpher create failed");
    }
    /* the baseline debug kernel: refused by set_instances */
    TU_CHECK_OK(sinew_debug_set_kernel(sk, SINEW_DEBUG_KERNEL_BASELINE));
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    sinew_instance in = { { 0 }, SINEW_METHOD_LBS, 0, 0, 0 };
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "compact") != NULL);
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
    TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
    sinew_skinner_destroy(sk);

    /* rest meshes: compact kept; 8 influences or 257 joints refused */
    sinew_rest_mesh_desc rd = { 0 };
    rd.skeleton = meshes[0].skel;
    rd.vertex_count = meshes[0].n;
    rd.packed_vertices = meshes[0].v;
    rd.rest_layout = SINEW_REST_LAYOUT_COMPACT;
    sinew_rest_mesh *rm = NULL;
    TU_CHECK_OK(sinew_rest_mesh_create(&rd, &rm, NULL));
    TU_CHECK(sinew_rest_mesh_rest_layout(rm) == SINEW_REST_LAYOUT_COMPACT);
    {   /* add_rest_mesh keeps the layout: the compact range (bulge distances: 2 n + 1 slots) */
        sinew_skinner *s2 = NULL;
        sinew_skinner_desc d2 = { 0 };
        d2.max_rest_vertices = 2 * meshes[0].n;
        TU_CHECK_OK(sinew_skinner_create(gpu, &d2, &s2, NULL));
        sinew_mesh_id rid;
        TU_CHECK_OK(sinew_skinner_add_rest_mesh(s2, rm, &rid, NULL));
        sinew_skinner_memory(s2, &mr);
        TU_CHECK(mr.rest_used_bytes == 16ull * (2 * meshes[0].n + 1));
        sinew_skinner_destroy(s2);
    }
    sinew_rest_mesh_destroy(rm);
    rd.packed_vertices = NULL;
    rd.packed_vertices8 = v8;
    rd.vertex_count = 2;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&rd, &rm, &e), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skeleton *big = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, 257, NULL, &big));
    rd.skeleton = big;
    rd.packed_vertices8 = NULL;
    rd.packed_vertices = meshes[0].v;
    rd.vertex_count = meshes[0].n;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&rd, &rm, &e), SINEW_ERROR_LIMIT_EXCEEDED);
    sinew_skeleton_destroy(big);
}

int main(void)
{
    rng = tu_rng_seeded(0x636f6d7061637431ull);
    check_codec();
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_compact");

    mesh_data meshes[N_MESH];
    memset(meshes, 0, sizeof meshes);
    uint32_t total_rest = 0;
    for (int m = 0; m < N_MESH; m++) {
        make_mesh(&meshes[m], joint_counts[m]);
        total_rest += meshes[m].n + 1;
    }
    total_rest += meshes[1].n; /* the default-layout copy */
    character ch[N_CHAR + N_DEF];
    uint32_t out = 0, pal = 0, nch = 0;
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(256));
    for (uint32_t i = 0; i < N_CHAR + N_DEF; i++) {
        character *c = &ch[nch++];
        memset(c, 0, sizeof *c);
        if (i < N_CHAR) {
            c->mesh = i % N_MESH;
            c->method = (sinew_method)((i / N_MESH) % SINEW_METHOD_COUNT);
            c->flags = i / (N_MESH * SINEW_METHOD_COUNT) ? SINEW_SKIN_BULGE_CORRECTION : 0;
            if (c->flags && c->mesh == 1) c->flags |= SINEW_SKIN_BULGE_INNER;
        } else {
            static const sinew_method dm[N_DEF] = { SINEW_METHOD_LBS, SINEW_METHOD_COR_SCALE, SINEW_METHOD_DQS };
            c->mesh = 1;
            c->def = 1;
            c->method = dm[i - N_CHAR];
            c->flags = i - N_CHAR == 0 ? SINEW_SKIN_BULGE_CORRECTION : 0;
        }
        c->out_offset = out;
        c->pal_offset = pal + tu_range(&rng, 3);
        out += meshes[c->mesh].n + GAP;
        pal = c->pal_offset + meshes[c->mesh].jc * sinew_palette_gpu_stride(c->method, c->flags);
        for (int f = 0; f < 2; f++) make_pose(c, &meshes[c->mesh], f, scratch);
    }
    free(scratch);

    worst wr;
    memset(&wr, 0, sizeof wr);
    run_list(gpu, "float/texel", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, SINEW_DEBUG_KERNEL_AUTO, 0, meshes, ch, nch,
             total_rest, out, pal, &wr, 0);
    run_list(gpu, "float/storage/records", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_RECORDS, 0, meshes,
             ch, nch, total_rest, out, pal, NULL, 1);
    run_list(gpu, "packed/texel/wg256", SINEW_OUTPUT_PACKED, SINEW_READ_TEXEL, SINEW_DEBUG_KERNEL_AUTO, 256, meshes, ch,
             nch, total_rest, out, pal, NULL, 0);
    /* grid mode: one instance per variant of mesh 2 (256 joints), records forced off */
    {
        character sub[2 * SINEW_METHOD_COUNT];
        uint32_t ns = 0;
        for (uint32_t i = 0; i < N_CHAR; i++)
            if (ch[i].mesh == 2 && ch[i].method <= SINEW_METHOD_DQS) sub[ns++] = ch[i];
        run_list(gpu, "grid float/storage wg128", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_AUTO, 128,
                 meshes, sub, ns, total_rest, out, pal, NULL, 1);
    }
    for (int m = 0; m < (int)SINEW_METHOD_COUNT; m++)
        fprintf(stderr, "%-22s full precision: worst position %.3g x extent, ratio to bound: position %.3f normal %.3f\n",
                sinew_method_name((sinew_method)m), wr.full_p[m], wr.ratio_p[m], wr.ratio_n[m]);
    fprintf(stderr, "full-precision normals checked on %llu of %llu vertex-frames (the others: bulge, k > 100, bound > 0.05 or det A near a sign change)\n",
            (unsigned long long)(wr.checked - wr.skipped_n), (unsigned long long)wr.checked);
    check_misuse(gpu, meshes);

    for (uint32_t i = 0; i < nch; i++)
        for (int f = 0; f < 2; f++) {
            free(ch[i].pal[f]); free(ch[i].ref_pos[f]); free(ch[i].ref_nrm[f]); free(ch[i].cond[f]); free(ch[i].sens[f]);
            free(ch[i].full_pos[f]); free(ch[i].full_nrm[f]); free(ch[i].bound_p[f]); free(ch[i].bound_n[f]);
        }
    for (int m = 0; m < N_MESH; m++) {
        sinew_skeleton_destroy(meshes[m].skel);
        free(meshes[m].v); free(meshes[m].vq); free(meshes[m].bulge); free(meshes[m].bulge_q); free(meshes[m].centers);
        free(meshes[m].tan);
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_compact");
}
