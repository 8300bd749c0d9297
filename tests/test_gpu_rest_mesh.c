/* sinew_rest_mesh: built from strided, interleaved host arrays with up to 6
 * influences per vertex, it must hold exactly what the step-by-step recipe
 * gives (pack_vertices / pack_vertices8, bulge distances, pack_tangents,
 * joint_bounds_build, cor_compute + add_centers), bit for bit; the layout is
 * chosen from the data (4 when no vertex has more, else 8) or forced, with the
 * pruning reported; the centers' progress callback runs to 1 and cancels
 * cleanly; errors name the item. On the GPU, sinew_skinner_add_rest_mesh and
 * add_mesh with the recipe's arrays skin to identical bytes (LBS with bulge,
 * DQS, CoR), output poisoned first; validation clean. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NJ 12
#define NV 600

/* The host's interleaved vertex: position, normal, tangent, padding. */
typedef struct host_vertex {
    float pos[3];
    float pad0;
    float nrm[3];
    float tan[4];
    float pad1[3];
} host_vertex;

typedef struct case_data {
    host_vertex hv[NV];
    float pos[3 * NV], nrm[3 * NV], tan[4 * NV];
    uint32_t offsets[NV + 1];
    uint32_t joints[6 * NV];
    float weights[6 * NV];
    uint32_t tris[3 * (NV - 2)];
} case_data;

/* Influences: 1..max_k per vertex, CSR; positions near the bind pose. */
static void make_case(tu_rng *r, const sinew_skeleton *skel, uint32_t max_k, case_data *c)
{
    uint32_t e = 0;
    for (uint32_t i = 0; i < NV; i++) {
        uint32_t home = tu_range(r, NJ);
        const sinew_mat4 *b = sinew_skeleton_bind_global(skel, home);
        sinew_vec3 off = tu_random_unit(r), n = tu_random_unit(r), t = tu_random_unit(r);
        for (int k = 0; k < 3; k++) {
            c->hv[i].pos[k] = (float)(b->m[3][k] + (&off.x)[k] * tu_uniform(r, 0, 0.3));
            c->hv[i].nrm[k] = (float)(&n.x)[k];
            c->hv[i].tan[k] = (float)(&t.x)[k];
        }
        c->hv[i].tan[3] = tu_range(r, 2) ? 1.0f : -1.0f;
        memcpy(c->pos + 3 * i, c->hv[i].pos, 12);
        memcpy(c->nrm + 3 * i, c->hv[i].nrm, 12);
        memcpy(c->tan + 4 * i, c->hv[i].tan, 16);
        c->offsets[i] = e;
        uint32_t k = 1 + tu_range(r, max_k);
        for (uint32_t q = 0; q < k; q++, e++) {
            c->joints[e] = q == 0 ? home : tu_range(r, NJ);
            c->weights[e] = (float)tu_uniform(r, 0.05, 1.0) * (q == 0 ? 3.0f : 1.0f);
        }
    }
    c->offsets[NV] = e;
    for (uint32_t t = 0; t < NV - 2; t++) {
        c->tris[3 * t] = t;
        c->tris[3 * t + 1] = t + 1;
        c->tris[3 * t + 2] = t + 2;
    }
}

static sinew_rest_mesh_desc desc_of(const sinew_skeleton *skel, const case_data *c, uint32_t max_influences)
{
    sinew_rest_mesh_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = skel;
    d.vertex_count = NV;
    d.positions = c->hv[0].pos;
    d.position_stride = sizeof(host_vertex);
    d.normals = c->hv[0].nrm;
    d.normal_stride = sizeof(host_vertex);
    d.tangents = c->hv[0].tan;
    d.tangent_stride = sizeof(host_vertex);
    d.influences.offsets = c->offsets;
    d.influences.joints = c->joints;
    d.influences.weights = c->weights;
    d.max_influences = max_influences;
    d.triangles = c->tris;
    d.triangle_count = NV - 2;
    return d;
}

static uint32_t progress_calls, cancel_after;
static double last_fraction;
static bool on_progress(void *user, double f)
{
    (void)user;
    TU_CHECK(f >= last_fraction && f <= 1.0);
    last_fraction = f;
    return ++progress_calls < cancel_after;
}

/* The rest mesh against the recipe, on the CPU. */
static void check_cpu(const sinew_skeleton *skel, const case_data *c, uint32_t max_k, uint32_t force,
                      sinew_rest_mesh **out)
{
    sinew_rest_mesh_desc d = desc_of(skel, c, force);
    sinew_rest_mesh *m = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, &e));
    *out = m;
    if (!m) return;
    uint32_t want_k = force ? force : max_k <= 4 ? 4 : 8;
    TU_CHECK_MSG(sinew_rest_mesh_influences(m) == want_k, "influences %u, expected %u", sinew_rest_mesh_influences(m),
                 want_k);
    sinew_influences inf = { c->offsets, 0, c->joints, c->weights };
    sinew_pack_stats st;
    static sinew_vertex v4[NV];
    static sinew_vertex8 v8[NV];
    static float bulge[NV], centers[3 * NV];
    static sinew_tangent tg[NV];
    if (want_k == 4) {
        TU_CHECK_OK(sinew_pack_vertices(NV, c->pos, c->nrm, &inf, NJ, v4, &st, NULL));
        TU_CHECK(sinew_rest_mesh_vertices8(m) == NULL && memcmp(sinew_rest_mesh_vertices(m), v4, sizeof v4) == 0);
        TU_CHECK_OK(sinew_bulge_rest_distances(skel, NV, v4, bulge));
    } else {
        TU_CHECK_OK(sinew_pack_vertices8(NV, c->pos, c->nrm, &inf, NJ, v8, &st, NULL));
        TU_CHECK(sinew_rest_mesh_vertices(m) == NULL && memcmp(sinew_rest_mesh_vertices8(m), v8, sizeof v8) == 0);
        TU_CHECK_OK(sinew_bulge_rest_distances8(skel, NV, v8, bulge));
    }
    const sinew_pack_stats *ms = sinew_rest_mesh_pack_stats(m);
    TU_CHECK(ms->max_influences == st.max_influences && ms->vertices_pruned == st.vertices_pruned &&
             ms->influences_pruned == st.influences_pruned);
    if (force == 4 && max_k > 4) TU_CHECK(ms->vertices_pruned > 0);
    fprintf(stderr, "rest mesh (up to %u influences, layout %u): max %u, %u vertices pruned, %u influences dropped\n",
            max_k, want_k, ms->max_influences, ms->vertices_pruned, ms->influences_pruned);
    TU_CHECK(memcmp(sinew_rest_mesh_bulge_distances(m), bulge, sizeof bulge) == 0);
    TU_CHECK_OK(sinew_pack_tangents(NV, c->tan, tg, NULL));
    TU_CHECK(memcmp(sinew_rest_mesh_tangents(m), tg, sizeof tg) == 0);
    uint32_t nt = 0;
    TU_CHECK(sinew_rest_mesh_triangles(m, &nt) != NULL && nt == NV - 2);

    static sinew_joint_bounds jb[NJ];
    static uint16_t nb[NJ * NJ];
    uint32_t nn = 0;
    TU_CHECK_OK(sinew_joint_bounds_build(want_k == 4 ? v4 : NULL, want_k == 8 ? v8 : NULL, NV, NJ, jb, nb, NJ * NJ, &nn));
    const uint16_t *mnb = NULL;
    const sinew_joint_bounds *mjb = sinew_rest_mesh_joint_bounds(m, &mnb);
    TU_CHECK(memcmp(mjb, jb, sizeof jb) == 0 && memcmp(mnb, nb, nn * sizeof(uint16_t)) == 0);

    /* Centers: cancelled first (nothing kept), then computed with progress to 1. */
    TU_CHECK(sinew_rest_mesh_centers(m) == NULL);
    sinew_rest_mesh_centers_desc cd = { 0 };
    cd.progress = on_progress;
    progress_calls = 0, last_fraction = 0, cancel_after = 2;
    TU_CHECK_RESULT(sinew_rest_mesh_compute_centers(m, &cd, &e), SINEW_ERROR_CANCELLED);
    TU_CHECK(e.result == SINEW_ERROR_CANCELLED && strstr(e.message, "cancelled") && progress_calls == 2);
    TU_CHECK(sinew_rest_mesh_centers(m) == NULL && memcmp(sinew_rest_mesh_joint_bounds(m, NULL), jb, sizeof jb) == 0);
    progress_calls = 0, last_fraction = 0, cancel_after = UINT32_MAX;
    TU_CHECK_OK(sinew_rest_mesh_compute_centers(m, &cd, &e));
    TU_CHECK(progress_calls >= 1 && last_fraction == 1.0);
    sinew_cor_desc cor = { 0 };
    cor.vertex_count = NV;
    cor.vertices = want_k == 4 ? v4 : NULL;
    cor.vertices8 = want_k == 8 ? v8 : NULL;
    cor.joint_count = NJ;
    cor.triangle_count = NV - 2;
    cor.triangles = c->tris;
    TU_CHECK_OK(sinew_cor_compute(&cor, centers, NULL));
    TU_CHECK(sinew_rest_mesh_centers(m) && memcmp(sinew_rest_mesh_centers(m), centers, sizeof centers) == 0);
    TU_CHECK_OK(sinew_joint_bounds_add_centers(cor.vertices, cor.vertices8, NV, NJ, centers, jb));
    TU_CHECK(memcmp(sinew_rest_mesh_joint_bounds(m, NULL), jb, sizeof jb) == 0);
    /* A cache: the same centers set back. */
    TU_CHECK_OK(sinew_rest_mesh_set_centers(m, centers, &e));
    TU_CHECK(memcmp(sinew_rest_mesh_centers(m), centers, sizeof centers) == 0);
}

/* Already packed vertices: copied bit for bit, with the same bulge distances,
 * joint bounds and layout as the mesh they came from; bad ones named. */
static void check_packed(const sinew_skeleton *skel, const sinew_rest_mesh *from)
{
    sinew_rest_mesh_desc d = { 0 };
    d.skeleton = skel;
    d.vertex_count = NV;
    d.packed_vertices = sinew_rest_mesh_vertices(from);
    d.packed_vertices8 = sinew_rest_mesh_vertices8(from);
    d.packed_tangents = sinew_rest_mesh_tangents(from);
    uint32_t nt = 0;
    d.triangles = sinew_rest_mesh_triangles(from, &nt);
    d.triangle_count = nt;
    sinew_rest_mesh *m = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, &e));
    if (!m) return;
    uint32_t k = sinew_rest_mesh_influences(from);
    TU_CHECK(sinew_rest_mesh_influences(m) == k);
    TU_CHECK(k == 8 ? memcmp(sinew_rest_mesh_vertices8(m), d.packed_vertices8, sizeof(sinew_vertex8) * NV) == 0
                    : memcmp(sinew_rest_mesh_vertices(m), d.packed_vertices, sizeof(sinew_vertex) * NV) == 0);
    TU_CHECK(memcmp(sinew_rest_mesh_bulge_distances(m), sinew_rest_mesh_bulge_distances(from), sizeof(float) * NV) == 0);
    const sinew_joint_bounds *b0 = sinew_rest_mesh_joint_bounds(from, NULL), *b1 = sinew_rest_mesh_joint_bounds(m, NULL);
    for (uint32_t j = 0; j < NJ; j++) /* the same bounds (`from` also has its centers' CoR data) */
        TU_CHECK(memcmp(b0[j].center, b1[j].center, sizeof b0[j].center) == 0 && b0[j].radius == b1[j].radius &&
                 b0[j].min_major_weight == b1[j].min_major_weight && b0[j].neighbor_count == b1[j].neighbor_count);
    TU_CHECK(memcmp(sinew_rest_mesh_tangents(m), d.packed_tangents, sizeof(sinew_tangent) * NV) == 0);
    sinew_rest_mesh_destroy(m);
    /* a bad packed vertex is named */
    if (k == 4) {
        static sinew_vertex bad[NV];
        memcpy(bad, d.packed_vertices, sizeof bad);
        bad[33].weights[0] = (uint16_t)(bad[33].weights[0] - 1);
        d.packed_vertices = bad;
        TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_INVALID_WEIGHT);
        TU_CHECK(e.item == SINEW_ITEM_VERTEX && e.index == 33 && m == NULL);
        float pos[3] = { 0, 0, 0 };
        d.positions = pos;
        TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(strstr(e.message, "leave them NULL") != NULL);
    }
}

static void check_errors(const sinew_skeleton *skel, case_data *c)
{
    sinew_error_info e;
    sinew_rest_mesh *m = NULL;
    sinew_rest_mesh_desc d = desc_of(skel, c, 0);
    d.skeleton = NULL;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && strstr(e.message, "desc.skeleton"));
    d = desc_of(skel, c, 3);
    TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && strstr(e.message, "max_influences 3"));
    d = desc_of(skel, c, 0);
    c->tris[3 * 7 + 1] = NV;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && e.index == 7 && strstr(e.message, "triangle 7"));
    c->tris[3 * 7 + 1] = 8;
    uint32_t saved = c->joints[c->offsets[42]];
    c->joints[c->offsets[42]] = NJ + 5;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_JOINT_INDEX);
    TU_CHECK_MSG(e.item == SINEW_ITEM_VERTEX && e.index == 42 && strstr(e.message, "vertex 42"), "%s / %u: %s",
                 sinew_item_kind_name(e.item), e.index, e.message);
    c->joints[c->offsets[42]] = saved;
    c->hv[9].pos[1] = NAN;
    TU_CHECK_RESULT(sinew_rest_mesh_create(&d, &m, &e), SINEW_ERROR_NON_FINITE);
    TU_CHECK(e.item == SINEW_ITEM_VERTEX && e.index == 9);
    c->hv[9].pos[1] = c->pos[3 * 9 + 1];
    TU_CHECK(m == NULL);
    d.triangles = NULL;
    d.triangle_count = 0;
    TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, &e));
    TU_CHECK_RESULT(sinew_rest_mesh_compute_centers(m, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "triangles"));
    sinew_rest_mesh_destroy(m);
}

/* A crowd model given the rest mesh (vertex counts and culling data from it)
 * and one given the recipe's bounds: the same boxes and the same output. */
static void check_crowd(sinew_skinner *sk, const sinew_skeleton *skel, const sinew_rest_mesh *m, sinew_mesh_id a,
                        sinew_mesh_id b, tu_rng *r)
{
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = 4;
    cd.max_joints = NJ;
    cd.threads = 2;
    sinew_crowd *crowd = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, &e));
    if (!crowd) return;
    const sinew_rest_mesh *rms[1] = { m };
    sinew_crowd_model_desc ma = { 0 };
    ma.skeleton = skel;
    ma.mesh_count = 1;
    ma.meshes = &a;
    ma.rest_meshes = rms;
    sinew_model_id ida, idb;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &ma, &ida, &e));
    static sinew_joint_bounds jb[NJ];
    static uint16_t nb[NJ * NJ];
    uint32_t nn = 0;
    TU_CHECK_OK(sinew_joint_bounds_build(sinew_rest_mesh_vertices(m), sinew_rest_mesh_vertices8(m), NV, NJ, jb, nb,
                                         NJ * NJ, &nn));
    TU_CHECK_OK(sinew_joint_bounds_add_centers(sinew_rest_mesh_vertices(m), sinew_rest_mesh_vertices8(m), NV, NJ,
                                               sinew_rest_mesh_centers(m), jb));
    sinew_crowd_mesh_bounds mb = { jb, nb, NULL, 0 };
    const uint32_t nv = NV;
    sinew_crowd_model_desc mbd = { 0 };
    mbd.skeleton = skel;
    mbd.mesh_count = 1;
    mbd.meshes = &b;
    mbd.vertex_counts = &nv;
    mbd.bounds = &mb;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &mbd, &idb, &e));
    /* A rest mesh that does not match the mesh's vertex count is named. */
    const uint32_t wrong = NV + 1;
    ma.vertex_counts = &wrong;
    TU_CHECK_RESULT(sinew_crowd_add_model(crowd, &ma, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_MODEL && strstr(e.message, "rest_meshes[0]"));
    static sinew_transform pose[NJ];
    for (uint32_t j = 0; j < NJ; j++) {
        pose[j] = sinew_skeleton_rest_pose(skel)[j];
        pose[j].rotation = sinew_quat_mul(pose[j].rotation, tu_quat_axis_angle_random(r, tu_uniform(r, 0, 1.0)));
    }
    sinew_crowd_character ch[4];
    memset(ch, 0, sizeof ch);
    const sinew_method methods[2] = { SINEW_METHOD_DQS, SINEW_METHOD_COR };
    for (int k = 0; k < 4; k++) {
        ch[k].model = k % 2 ? idb : ida;
        ch[k].method = methods[k / 2];
        ch[k].pose = pose;
    }
    TU_CHECK_OK(sinew_crowd_update(crowd, ch, 4, NULL, &e));
    if (e.result != SINEW_OK) fprintf(stderr, "crowd: %s\n", e.message);
    TU_CHECK_OK(sinew_skinner_wait(sk));
    for (int k = 0; k < 4; k += 2) {
        float lo[2][3], hi[2][3];
        TU_CHECK_OK(sinew_crowd_character_bounds(crowd, (uint32_t)k, lo[0], hi[0]));
        TU_CHECK_OK(sinew_crowd_character_bounds(crowd, (uint32_t)k + 1, lo[1], hi[1]));
        TU_CHECK(memcmp(lo[0], lo[1], sizeof lo[0]) == 0 && memcmp(hi[0], hi[1], sizeof hi[0]) == 0);
        uint32_t f0, n0, f1, n1;
        TU_CHECK_OK(sinew_crowd_character_output(crowd, (uint32_t)k, 0, &f0, &n0));
        TU_CHECK_OK(sinew_crowd_character_output(crowd, (uint32_t)k + 1, 0, &f1, &n1));
        static float p0[3 * NV], p1[3 * NV];
        TU_CHECK_OK(sinew_skinner_read_output(sk, f0, n0, p0, NULL));
        TU_CHECK_OK(sinew_skinner_read_output(sk, f1, n1, p1, NULL));
        TU_CHECK(n0 == NV && n1 == NV && memcmp(p0, p1, sizeof p0) == 0);
        /* every skinned vertex inside the box */
        double out = 0;
        for (uint32_t i = 0; i < NV; i++)
            for (int c = 0; c < 3; c++) {
                double d = fmax(lo[0][c] - p0[3 * i + c], p0[3 * i + c] - hi[0][c]);
                if (d > out) out = d;
            }
        TU_CHECK_MSG(out == 0, "%s: a vertex %.3g outside the box", sinew_method_name(methods[k / 2]), out);
    }
    sinew_crowd_destroy(crowd);
}

/* The rest mesh and the recipe's arrays, skinned in one dispatch: identical bytes. */
static void check_gpu(sinew_gpu *gpu, const sinew_skeleton *skel, sinew_rest_mesh *m, tu_rng *r)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 4 * NV;
    sd.max_output_vertices = 4 * NV;
    sd.max_instances = 4;
    sd.max_meshes = 2;
    sd.max_palette_vec4 = 256;
    sd.tangents = true;
    sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    sinew_mesh_id a, b;
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, m, &a, NULL));
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = sinew_rest_mesh_vertices(m);
    md.vertices8 = sinew_rest_mesh_vertices8(m);
    md.vertex_count = NV;
    md.joint_count = NJ;
    md.bulge_rest = sinew_rest_mesh_bulge_distances(m);
    md.tangents = sinew_rest_mesh_tangents(m);
    md.cor_centers = sinew_rest_mesh_centers(m);
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &b, NULL));
    TU_CHECK(sinew_skinner_mesh_influences(sk, a) == sinew_rest_mesh_influences(m));
    const sinew_method methods[] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_COR };
    for (int mi = 0; mi < 3; mi++) {
        sinew_method method = methods[mi];
        uint32_t flags = method == SINEW_METHOD_LBS ? SINEW_SKIN_BULGE_CORRECTION : 0;
        /* A posed palette from random joint rotations. */
        sinew_transform pose[NJ];
        for (uint32_t j = 0; j < NJ; j++) {
            pose[j] = sinew_skeleton_rest_pose(skel)[j];
            pose[j].rotation = sinew_quat_mul(pose[j].rotation, tu_quat_axis_angle_random(r, tu_uniform(r, 0, 1.2)));
        }
        size_t scratch = sinew_palette_scratch_count(NJ);
        sinew_palette_joint *pal = (sinew_palette_joint *)malloc(sizeof(sinew_palette_joint) * NJ);
        sinew_mat4 *tmp = (sinew_mat4 *)malloc(sizeof(sinew_mat4) * scratch);
        TU_CHECK_OK(sinew_palette_build(skel, method, pose, NULL, tmp, pal));
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, 2 * NV, 0x7fc00000u));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        uint32_t stride = sinew_palette_gpu_stride(method, flags);
        TU_CHECK_OK(sinew_palette_pack(method, flags, pal, NJ, fr.palette));
        sinew_instance in[2] = { { a, method, flags, 0, 0, true }, { b, method, flags, 0, NV, true } };
        (void)stride;
        TU_CHECK_OK(sinew_skinner_set_instances(sk, in, 2, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        static float pos[6 * NV], nrm[6 * NV], tan[8 * NV];
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, 2 * NV, pos, nrm));
        TU_CHECK_OK(sinew_skinner_read_tangents(sk, 0, 2 * NV, tan));
        int finite = 1;
        for (uint32_t i = 0; i < 3 * NV; i++) finite &= isfinite(pos[i]) && isfinite(nrm[i]);
        TU_CHECK_MSG(finite, "%s: output not written", sinew_method_name(method));
        TU_CHECK_MSG(memcmp(pos, pos + 3 * NV, 12 * NV) == 0 && memcmp(nrm, nrm + 3 * NV, 12 * NV) == 0 &&
                         memcmp(tan, tan + 4 * NV, 16 * NV) == 0,
                     "%s: rest mesh and recipe differ", sinew_method_name(method));
        free(pal);
        free(tmp);
    }
    check_crowd(sk, skel, m, a, b, r);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_skinner_destroy(sk);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x4e57u);
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, NULL, &skel));
    if (!skel) return tu_finish("test_gpu_rest_mesh");
    static case_data c4, c6;
    make_case(&r, skel, 4, &c4);
    make_case(&r, skel, 6, &c6);
    sinew_rest_mesh *m4 = NULL, *m6 = NULL, *m6as4 = NULL, *m4as8 = NULL;
    check_cpu(skel, &c4, 4, 0, &m4);
    check_cpu(skel, &c6, 6, 0, &m6);
    check_cpu(skel, &c6, 6, 4, &m6as4);
    check_cpu(skel, &c4, 4, 8, &m4as8);
    check_errors(skel, &c6);
    check_packed(skel, m6as4);
    check_packed(skel, m6);
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(NULL, &gpu, NULL));
    if (gpu) {
        check_gpu(gpu, skel, m4, &r);
        check_gpu(gpu, skel, m6, &r);
        sinew_gpu_destroy(gpu);
    }
    sinew_rest_mesh_destroy(m4);
    sinew_rest_mesh_destroy(m6);
    sinew_rest_mesh_destroy(m6as4);
    sinew_rest_mesh_destroy(m4as8);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_gpu_rest_mesh");
}
