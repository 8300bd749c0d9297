/* Morph targets on the GPU (sinew/morpher.h) against the float64 reference
 * (sinew_morph_reference, then sinew_reference_skin_rest): three random meshes
 * (8, 24 and 40 joints; 40, 200 and 300 random sparse targets, some without
 * normal deltas, unsorted indices), 36 characters with every method, bulge on
 * and off, weights random in [-1.5, 2.5] on a few active targets (some
 * characters all zero: they must get the base mesh and no morph work), eight
 * frames (passes AUTO, ACTIVE, ROWS, LISTS in turn; a LISTS frame must find
 * targets the copy holds at zero weight now) through both ring slots with changing weights (active -> zero ->
 * active again, so stale copies would show), then one crowd frame
 * (sinew_crowd_update with the morphed mesh ids). Output poisoned with NaN before
 * every frame; vertices past the frame's output must stay NaN. Bad input
 * (targets naming vertices out of range, repeated vertices, NaN deltas, weight
 * arrays of the wrong size, NaN weights, unknown or repeated slots) is refused with an error naming the target / item.
 * Bulge distances of morphed copies: mesh 0's set gets its skeleton
 * (sinew_morpher_set_skeleton), so its reference uses each morphed vertex's
 * distance to its joints[0] bone segment (sinew_distance_to_segment), the
 * other meshes keep the base distances.
 * Tangent deltas (test_tangent_deltas): a mesh with tangent frames (random
 * directions and signs) and 30 targets, most with tangent deltas, on a skinner
 * made with tangents, 12 characters over every method +- bulge, three frames
 * through AUTO, ACTIVE and ROWS with changing weights; tangents against
 * sinew_morph_reference_tangents, re-encoded as the GPU stores them
 * (sinew_pack_tangents), then sinew_reference_tangents: within 1e-3 (as
 * normals: one 16-bit octahedral step of the morphed rest tangent, skinned),
 * signs exact; tangent deltas on a mesh without tangent frames are refused.
 * Validation must stay clean.
 *
 * Tolerances, per character, E = bounding-box diagonal of its reference
 * positions (at least 1): |gpu - ref| <= 2e-5 * E per coordinate; normals
 * |gpu - ref| <= 1e-3 x max(1, k / 10), beyond 8 x the measured sensitivity of the
 * bulge-corrected normal (tu_bulge_sensitivity). The morphed rest normal reaches
 * the kernel re-quantized to the 16-bit octahedral code of the rest vertex (an
 * error dn of at most about 1e-4; 3.5e-5 per component measured) while the
 * reference uses it exact, and skinning moves such an error by up to k |dn| / sqrt(2),
 * k = tu_normal_condition of the morphed rest normal (||A||_F^2 / |cof(A) n|, A the
 * LBS-stage 3x3): hence max(1e-3, 1e-4 k). With a flat 1e-3, seeds 1029, 1038, 1161
 * and 1180 (4 of 201) failed on LBS characters without bulge at k = 145 .. 760
 * (errors 1.06e-3 .. 1.34e-3), where the GPU matched the reference run on the
 * re-quantized morphed normals within 3.7e-5: the kernel was right, the flat
 * tolerance was not. */
#include "testutil.h"
#include <sinew/morpher.h>
#include <sinew/crowd.h>
#include <string.h>

#define NMESH 3
#define NCHAR 36
#define NFRAME 8 /* passes AUTO, ACTIVE, ROWS, LISTS in turn, twice */

typedef struct mesh {
    sinew_skeleton *skel;
    uint32_t jc, nv, nt;
    sinew_vertex *v;
    float *bulge;
    sinew_mesh_id id;
    sinew_morph_set_id set;
    sinew_morph_target *t;
    uint32_t *idx;
    float *dp, *dn, *dt;
    sinew_tangent *tan;     /* rest tangent frames, or NULL (then no tangent deltas) */
} mesh;

typedef struct character {
    uint32_t mesh;
    sinew_method method;
    uint32_t flags;
    sinew_morph_slot_id slot;
    float *w;
} character;



static const uint32_t JC[NMESH] = { 8, 24, 40 };
static const uint32_t NV[NMESH] = { 400, 1500, 900 };
static const uint32_t NT[NMESH] = { 40, 200, 300 };

static double extent_of(const double *p, uint32_t n)
{
    double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            if (p[3 * i + k] < lo[k]) lo[k] = p[3 * i + k];
            if (p[3 * i + k] > hi[k]) hi[k] = p[3 * i + k];
        }
    double e = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                    (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return e > 1 ? e : 1;
}

static void make_targets(tu_rng *r, mesh *m)
{
    uint32_t cap = 0;
    uint32_t *counts = malloc(sizeof(uint32_t) * m->nt);
    for (uint32_t t = 0; t < m->nt; t++) {
        counts[t] = tu_range(r, 5) == 0 ? 0 : 1 + tu_range(r, m->nv / 8);
        cap += counts[t];
    }
    m->t = calloc(m->nt, sizeof *m->t);
    m->idx = malloc(sizeof(uint32_t) * (cap + 1));
    m->dp = malloc(sizeof(float) * 3 * (cap + 1));
    m->dn = malloc(sizeof(float) * 3 * (cap + 1));
    m->dt = malloc(sizeof(float) * 3 * (cap + 1));
    uint8_t *used = malloc(m->nv);
    uint32_t at = 0;
    for (uint32_t t = 0; t < m->nt; t++) {
        memset(used, 0, m->nv);
        sinew_morph_target *g = &m->t[t];
        g->name = NULL;
        g->count = counts[t];
        g->indices = m->idx + at;
        g->position_deltas = m->dp + 3 * at;
        g->normal_deltas = tu_range(r, 4) == 0 ? NULL : m->dn + 3 * at;
        g->tangent_deltas = m->tan && tu_range(r, 5) != 0 ? m->dt + 3 * at : NULL;
        for (uint32_t e = 0; e < counts[t]; e++) {
            uint32_t v;
            do v = tu_range(r, m->nv); while (used[v]);
            used[v] = 1;
            m->idx[at + e] = v;
            for (int k = 0; k < 3; k++) {
                m->dp[3 * (at + e) + k] = (float)tu_uniform(r, -0.3, 0.3);
                m->dn[3 * (at + e) + k] = (float)tu_uniform(r, -0.6, 0.6);
                m->dt[3 * (at + e) + k] = (float)tu_uniform(r, -0.6, 0.6);
            }
        }
        at += counts[t];
    }
    free(used);
    free(counts);
}

/* Random weights: a few active targets, the rest zero; all zero with probability 1/4. */
static void random_weights(tu_rng *r, float *w, uint32_t nt)
{
    memset(w, 0, sizeof(float) * nt);
    if (tu_range(r, 4) == 0) return;
    uint32_t k = 1 + tu_range(r, 12);
    for (uint32_t i = 0; i < k; i++) w[tu_range(r, nt)] = (float)tu_uniform(r, -1.5, 2.5);
}

static void test_errors(sinew_skinner *sk, sinew_morpher *mo, mesh *m, sinew_morph_slot_id slot)
{
    sinew_morph_error err;
    sinew_morph_set_id set;
    uint32_t idx[3] = { 1, 2, m->nv };
    float dp[9] = { 0 }, dn[9] = { 0 };
    sinew_morph_target t[2] = { { "ok", 1, idx, dp, NULL }, { "smile", 3, idx, dp, dn } };
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m->id, t, 2, &set, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.index == 1 && err.entry == 2 && strstr(err.message, "smile") != NULL);
    idx[2] = 1;
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m->id, t, 2, &set, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.index == 1 && strstr(err.message, "twice") != NULL);
    idx[2] = 3;
    dn[4] = NAN;
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m->id, t, 2, &set, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 1 && err.entry == 1 && strstr(err.message, "normal") != NULL);
    dn[4] = 0;
    dp[0] = INFINITY;
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m->id, t, 2, &set, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 0 && strstr(err.message, "'ok'") != NULL);
    dp[0] = 0;
    sinew_mesh_id bad = { 999 };
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, bad, t, 2, &set, &err), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m->id, t, 0, &set, &err), SINEW_ERROR_EMPTY);
    /* A target that moves no vertex (glTF "targets": [{}]) is accepted: nothing to
     * sort for it (UBSan: no qsort on an empty list). */
    sinew_morph_target with_empty[2] = { { "empty", 0, idx, dp, NULL }, { "ok", 1, idx, dp, NULL } };
    TU_CHECK_OK(sinew_morpher_add_targets(mo, m->id, with_empty, 2, &set, &err));

    /* Per-frame errors. */
    float *w = calloc(m->nt + 1, sizeof(float));
    sinew_morph_item it = { slot, w, m->nt };
    sinew_mesh_id out[2];
    TU_CHECK_OK(sinew_morpher_set_frame(mo, &it, 1, out, &err)); /* outside a frame: the next frame's */
    TU_CHECK(out[0].value == m->id.value); /* all zero: the base mesh */
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    it.weight_count = m->nt + 1;
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, &it, 1, out, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.index == 0 && strstr(err.message, "weights given") != NULL);
    it.weight_count = m->nt;
    w[7] = NAN;
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, &it, 1, out, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 0 && err.entry == 7 && strstr(err.message, "weight 7") != NULL);
    w[7] = 1e30f;
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, &it, 1, out, &err), SINEW_ERROR_NON_FINITE);
    w[7] = 0;
    sinew_morph_item two[2] = { it, it };
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, two, 2, out, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.index == 1 && strstr(err.message, "twice") != NULL);
    w[3] = 0.5f; /* a non-zero weight: the slot's copy, as sinew_morpher_slot_mesh names it */
    sinew_mesh_id copy = { 0 };
    TU_CHECK_OK(sinew_morpher_set_frame(mo, &it, 1, out, &err));
    TU_CHECK_OK(sinew_morpher_slot_mesh(mo, slot, &copy));
    TU_CHECK(out[0].value == copy.value && copy.value != m->id.value);
    w[3] = 0;
    it.slot.value = 12345;
    TU_CHECK_RESULT(sinew_morpher_slot_mesh(mo, it.slot, &copy), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_morpher_slot_mesh(mo, slot, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, &it, 1, out, &err), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_OK(sinew_morpher_set_frame(mo, NULL, 0, NULL, &err));
    TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
    tu_check_destroy_refused(sk);
    sinew_morpher *second = NULL;
    TU_CHECK_RESULT(sinew_morpher_create(sk, NULL, &second), SINEW_ERROR_IN_USE);
    TU_CHECK_RESULT(sinew_morpher_set_pass(mo, (sinew_morph_pass)4), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_morpher_set_pass(NULL, SINEW_MORPH_PASS_ROWS), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(second == NULL);
    free(w);
}

/* The bulge rest distances the reference uses for a morphed rest mp of mesh
 * index mi: recomputed for mesh 0 (its set has its skeleton), else the base's. */
static const float *ref_bulge(const mesh *m, uint32_t mi, const double *mp, float *scratch)
{
    if (mi != 0) return m->bulge;
    for (uint32_t i = 0; i < m->nv; i++) {
        sinew_vec3 h, t;
        sinew_skeleton_bone_segment(m->skel, m->v[i].joints[0], &h, &t);
        scratch[i] = (float)sinew_distance_to_segment(sinew_v3(mp[3 * i], mp[3 * i + 1], mp[3 * i + 2]), h, t, NULL);
    }
    return scratch;
}

/* Tangent deltas: see the header. */
static void test_tangent_deltas(tu_rng *r, sinew_gpu *gpu)
{
    enum { TNV = 500, TNT = 30, TCH = 12, TJ = 16 };
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 32;
    sd.max_rest_vertices = 1u << 14;
    sd.max_output_vertices = TCH * TNV + 64;
    sd.tangents = true;
    sinew_skinner *sk = NULL;
    sinew_morpher *mo = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (sk) TU_CHECK_OK(sinew_morpher_create(sk, NULL, &mo));
    if (!sk || !mo) return;
    mesh m;
    memset(&m, 0, sizeof m);
    m.jc = TJ;
    m.nv = TNV;
    m.nt = TNT;
    TU_CHECK_OK(tu_make_random_skeleton(r, m.jc, NULL, &m.skel));
    m.v = malloc(sizeof(sinew_vertex) * m.nv);
    m.bulge = malloc(sizeof(float) * m.nv);
    m.tan = malloc(sizeof(sinew_tangent) * m.nv);
    float *t4 = malloc(sizeof(float) * 4 * m.nv);
    for (uint32_t i = 0; i < m.nv; i++) {
        sinew_vec3 d = tu_random_unit(r);
        t4[4 * i + 0] = (float)d.x; t4[4 * i + 1] = (float)d.y; t4[4 * i + 2] = (float)d.z;
        t4[4 * i + 3] = tu_range(r, 2) ? 1.0f : -1.0f;
    }
    TU_CHECK_OK(sinew_pack_tangents(m.nv, t4, m.tan, NULL));
    TU_CHECK_OK(tu_make_random_mesh(r, m.skel, m.nv, 0.5, m.v, m.bulge));
    sinew_skinner_mesh_desc md = { m.v, m.nv, m.jc, m.bulge, NULL, m.tan };
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &m.id, NULL));
    sinew_skinner_mesh_desc plain = { m.v, m.nv, m.jc, m.bulge, NULL, NULL };
    sinew_mesh_id plain_id;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &plain, &plain_id, NULL));
    make_targets(r, &m);
    uint32_t with_t = 0;
    for (uint32_t t = 0; t < m.nt; t++) with_t += m.t[t].tangent_deltas != NULL && m.t[t].count;
    sinew_morph_error err;
    TU_CHECK_RESULT(sinew_morpher_add_targets(mo, plain_id, m.t, m.nt, &m.set, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(err.message, "no tangent frames") != NULL);
    m.dt[0] = NAN;
    sinew_morph_target *first = NULL;
    for (uint32_t t = 0; t < m.nt && !first; t++)
        if (m.t[t].tangent_deltas == m.dt && m.t[t].count) first = &m.t[t];
    if (first) {
        TU_CHECK_RESULT(sinew_morpher_add_targets(mo, m.id, m.t, m.nt, &m.set, &err), SINEW_ERROR_NON_FINITE);
        TU_CHECK(strstr(err.message, "tangent") != NULL);
    }
    m.dt[0] = 0.25f;
    TU_CHECK_OK(sinew_morpher_add_targets(mo, m.id, m.t, m.nt, &m.set, &err));
    character C[TCH];
    for (int c = 0; c < TCH; c++) {
        C[c].method = (sinew_method)(c % TU_PLAIN_METHODS);
        C[c].flags = (c / TU_PLAIN_METHODS) % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0u;
        C[c].w = malloc(sizeof(float) * m.nt);
        TU_CHECK_OK(sinew_morpher_add_slot(mo, m.set, &C[c].slot));
    }
    uint32_t total = TCH * TNV;
    float *gp = malloc(sizeof(float) * 3 * total), *gt = malloc(sizeof(float) * 4 * total);
    double *mp = malloc(sizeof(double) * 3 * m.nv), *mn = malloc(sizeof(double) * 3 * m.nv);
    double *md_t = malloc(sizeof(double) * 3 * m.nv), *rp = malloc(sizeof(double) * 3 * m.nv);
    double *rt = malloc(sizeof(double) * 4 * m.nv);
    sinew_tangent *mt = malloc(sizeof(sinew_tangent) * m.nv);
    sinew_transform *pose = malloc(sizeof(sinew_transform) * TJ);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(TJ));
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * TJ * TCH);
    double worst_t = 0, worst_p = 0;
    uint32_t moved_tangents = 0;
    for (int f = 0; f < 3; f++) {
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total, 0x7fc00000u));
        TU_CHECK_OK(sinew_debug_poison_tangents(sk, 0, total, 0x7fc00000u));
        TU_CHECK_OK(sinew_morpher_set_pass(mo, (sinew_morph_pass)(f % 4)));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        sinew_morph_item items[TCH];
        sinew_mesh_id meshes[TCH];
        sinew_instance inst[TCH];
        uint32_t pal_at = 0;
        for (int c = 0; c < TCH; c++) {
            random_weights(r, C[c].w, m.nt);
            memcpy(pose, sinew_skeleton_rest_pose(m.skel), sizeof(sinew_transform) * TJ);
            tu_random_pose(r, TJ, pose, 0.9, C[c].method == SINEW_METHOD_DQS ? 0.0 : 0.3);
            TU_CHECK_OK(sinew_palette_build(m.skel, C[c].method, pose, NULL, scratch, pal + TJ * c));
            TU_CHECK_OK(sinew_palette_pack(C[c].method, C[c].flags, pal + TJ * c, TJ, fr.palette + 4 * pal_at));
            items[c] = (sinew_morph_item){ C[c].slot, C[c].w, m.nt };
            inst[c] = (sinew_instance){ { 0 }, C[c].method, C[c].flags, pal_at, (uint32_t)c * TNV };
            pal_at += sinew_palette_gpu_stride(C[c].method, C[c].flags) * TJ;
        }
        TU_CHECK_OK(sinew_morpher_set_frame(mo, items, TCH, meshes, &err));
        for (int c = 0; c < TCH; c++) inst[c].mesh = meshes[c];
        TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, TCH, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total, gp, NULL));
        TU_CHECK_OK(sinew_skinner_read_tangents(sk, 0, total, gt));
        for (int c = 0; c < TCH; c++) {
            TU_CHECK_OK(sinew_morph_reference(m.nv, m.v, m.t, m.nt, C[c].w, mp, mn, &err));
            TU_CHECK_OK(sinew_morph_reference_tangents(m.nv, m.tan, m.t, m.nt, C[c].w, md_t, &err));
            for (uint32_t i = 0; i < m.nv; i++) {
                for (int k = 0; k < 3; k++) t4[4 * i + k] = (float)md_t[3 * i + k];
                t4[4 * i + 3] = m.tan[i].sign;
            }
            TU_CHECK_OK(sinew_pack_tangents(m.nv, t4, mt, NULL));
            for (uint32_t i = 0; i < m.nv; i++) moved_tangents += mt[i].tangent_oct != m.tan[i].tangent_oct;
            TU_CHECK_OK(sinew_reference_tangents(m.nv, m.v, NULL, mt, pal + TJ * c, TJ, C[c].method, rt));
            TU_CHECK_OK(sinew_reference_skin_rest(m.nv, m.v, mp, mn, m.bulge, pal + TJ * c, TJ, C[c].method,
                                                  C[c].flags, rp, NULL));
            double E = extent_of(rp, m.nv), et = 0, ep = 0;
            uint32_t signs = 0;
            for (uint32_t i = 0; i < m.nv; i++) {
                size_t o = (size_t)c * TNV + i;
                for (int k = 0; k < 3; k++) {
                    double d = fabs((double)gt[4 * o + k] - rt[4 * i + k]);
                    if (!(d <= et)) et = isnan(d) ? INFINITY : d;
                    d = fabs((double)gp[3 * o + k] - rp[3 * i + k]);
                    if (!(d <= ep)) ep = isnan(d) ? INFINITY : d;
                }
                signs += (double)gt[4 * o + 3] != rt[4 * i + 3];
            }
            TU_CHECK_MSG(et <= 1e-3 && signs == 0 && ep <= 2e-5 * E,
                         "tangent deltas, frame %d char %d (method %d flags %u): tangent %g, %u signs, position %g (E %g)",
                         f, c, (int)C[c].method, C[c].flags, et, signs, ep, E);
            if (et > worst_t) worst_t = et;
            if (ep / E > worst_p) worst_p = ep / E;
        }
    }
    fprintf(stderr, "tangent deltas: %u of %u targets carry them, %u morphed rest tangents checked; worst tangent "
            "error %.3g, position %.3g x extent\n", with_t, m.nt, moved_tangents, worst_t, worst_p);
    TU_CHECK(moved_tangents > 100);
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    for (int c = 0; c < TCH; c++) free(C[c].w);
    sinew_skeleton_destroy(m.skel);
    free(m.v); free(m.bulge); free(m.tan); free(m.t); free(m.idx); free(m.dp); free(m.dn); free(m.dt);
    free(t4); free(gp); free(gt); free(mp); free(mn); free(md_t); free(rp); free(rt); free(mt); free(pose);
    free(scratch); free(pal);
}

/* The crowd path: morph weights set before sinew_crowd_update (outside a
 * frame), the returned mesh ids given as sinew_crowd_character.meshes; same
 * tolerances against the reference with the crowd's poses. */
static void test_crowd_path(tu_rng *r, sinew_skinner *sk, sinew_morpher *mo, mesh *M, character *C)
{
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = NCHAR;
    cd.max_joints = 64;
    cd.threads = 2;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, NULL));
    if (!crowd) return;
    sinew_model_id models[NMESH];
    for (int i = 0; i < NMESH; i++) {
        sinew_crowd_model_desc cm = { M[i].skel, 1, &M[i].id, &M[i].nv };
        TU_CHECK_OK(sinew_crowd_add_model(crowd, &cm, &models[i], NULL));
    }
    static sinew_transform poses[NCHAR][64];
    static sinew_palette_joint pal[64];
    sinew_mat4 scratch[3 * 64];
    sinew_crowd_character ch[NCHAR];
    sinew_morph_item items[NCHAR];
    sinew_mesh_id meshes[NCHAR];
    uint32_t total = 0;
    memset(ch, 0, sizeof ch);
    for (int c = 0; c < NCHAR; c++) {
        mesh *m = &M[C[c].mesh];
        random_weights(r, C[c].w, m->nt);
        memcpy(poses[c], sinew_skeleton_rest_pose(m->skel), sizeof(sinew_transform) * m->jc);
        tu_random_pose(r, m->jc, poses[c], 0.9, C[c].method == SINEW_METHOD_DQS ? 0.0 : 0.3);
        items[c].slot = C[c].slot;
        items[c].weights = C[c].w;
        items[c].weight_count = m->nt;
        ch[c].model = models[C[c].mesh];
        ch[c].method = C[c].method;
        ch[c].flags = C[c].flags;
        ch[c].pose = poses[c];
        ch[c].meshes = &meshes[c];
        total += m->nv;
    }
    sinew_morph_error err;
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total + 64, 0x7fc00000u));
    TU_CHECK_OK(sinew_morpher_set_frame(mo, items, NCHAR, meshes, &err));
    /* A wrong override is refused (vertex count of another mesh). */
    sinew_mesh_id wrong = M[(C[0].mesh + 1) % NMESH].id;
    ch[0].meshes = &wrong;
    sinew_error_info cerr;
    TU_CHECK_RESULT(sinew_crowd_prepare(crowd, ch, NCHAR, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(cerr.index == 0);
    ch[0].meshes = &meshes[0];
    TU_CHECK_OK(sinew_morpher_set_frame(mo, items, NCHAR, meshes, &err)); /* the abandoned frame dropped nothing */
    TU_CHECK_OK(sinew_crowd_update(crowd, ch, NCHAR, NULL, &cerr));
    float *gp = malloc(sizeof(float) * 3 * (total + 64)), *gn = malloc(sizeof(float) * 3 * (total + 64));
    double *mp = malloc(sizeof(double) * 3 * 2000), *mn = malloc(sizeof(double) * 3 * 2000);
    double *rp = malloc(sizeof(double) * 3 * 2000), *rn = malloc(sizeof(double) * 3 * 2000);
    float *mb = malloc(sizeof(float) * 2000);
    double *sens = calloc(2000, sizeof(double));
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total + 64, gp, gn));
    double worst = 0;
    for (int c = 0; c < NCHAR; c++) {
        mesh *m = &M[C[c].mesh];
        uint32_t o = 0, n = 0;
        TU_CHECK_OK(sinew_crowd_character_output(crowd, (uint32_t)c, 0, &o, &n));
        TU_CHECK_OK(sinew_palette_build(m->skel, C[c].method, poses[c], NULL, scratch, pal));
        TU_CHECK_OK(sinew_morph_reference(m->nv, m->v, m->t, m->nt, C[c].w, mp, mn, &err));
        const float *rb = ref_bulge(m, C[c].mesh, mp, mb);
        TU_CHECK_OK(sinew_reference_skin_rest(m->nv, m->v, mp, mn, rb, pal, m->jc, C[c].method, C[c].flags, rp, rn));
        double E = extent_of(rp, m->nv), ep = 0, en = 0;
        for (uint32_t i = 0; i < m->nv; i++) sens[i] = 0.0;
        if (C[c].flags) {   /* bulge: + 8 x the corrected normal's measured sensitivity */
            tu_rng sr = { 0x9e3779b97f4a7c15ull ^ (uint64_t)c };
            TU_CHECK_OK(tu_bulge_sensitivity(&sr, m->nv, m->v, NULL, mp, mn, NULL, rb, pal, m->jc, C[c].method,
                                             C[c].flags, rn, sens));
        }
        for (uint32_t i = 0; i < m->nv; i++) {
            double k = tu_normal_condition(pal, &m->v[i], mn + 3 * i, C[c].method), kf = k > 10.0 ? k / 10.0 : 1.0;
            for (int q = 0; q < 3; q++) {
                double dp = fabs((double)gp[3 * (o + i) + q] - rp[3 * i + q]);
                double dn = (fabs((double)gn[3 * (o + i) + q] - rn[3 * i + q]) - 8.0 * sens[i]) / kf;
                if (!(dp <= ep)) ep = isnan(dp) ? INFINITY : dp;
                if (!(dn <= en)) en = isnan(dn) ? INFINITY : dn;
            }
        }
        TU_CHECK_MSG(ep <= 2e-5 * E && en <= 1e-3,
                     "crowd char %d: position %g (E %g), normal %g (beyond 8 x its sensitivity, over max(1, k / 10))", c, ep,
                     E, en);
        if (ep / E > worst) worst = ep / E;
    }
    for (uint32_t i = total; i < total + 64; i++) TU_CHECK(isnan(gp[3 * i]));
    fprintf(stderr, "crowd path: worst position error %.3g x extent\n", worst);
    free(gp); free(gn); free(mp); free(mn); free(rp); free(rn); free(mb); free(sens);
    sinew_crowd_destroy(crowd);
}

/* max_list_words: a forced LISTS frame beyond it is refused (CAPACITY, naming
 * the bound), AUTO then takes another pass and the frame goes through. */
static void test_list_capacity(tu_rng *r, sinew_gpu *gpu)
{
    enum { LNV = 200 };
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 4;
    sd.max_rest_vertices = 1u << 12;
    sd.max_output_vertices = LNV;
    sinew_skinner *sk = NULL;
    sinew_morpher *mo = NULL;
    sinew_morpher_desc mdsc = { 0 };
    mdsc.max_list_words = 104; /* 8 vertices moved by one delta each: 8 x (4 + 1) + 8 x 8 = 104 words fit, 9 do not (120) */
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (sk) TU_CHECK_OK(sinew_morpher_create(sk, &mdsc, &mo));
    if (!sk || !mo) {
        sinew_skinner_destroy(sk);
        return;
    }
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, 4, NULL, &skel));
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * LNV);
    TU_CHECK_OK(tu_make_random_mesh(r, skel, LNV, 0.5, v, NULL));
    sinew_skinner_mesh_desc md = { v, LNV, 4, NULL, NULL, NULL };
    sinew_mesh_id id;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
    uint32_t ix[2][9];
    float dp[2][27];
    for (uint32_t k = 0; k < 9; k++) {
        ix[0][k] = k;
        ix[1][k] = 100 + k;
        for (int a = 0; a < 3; a++) dp[0][3 * k + a] = dp[1][3 * k + a] = 0.01f * (float)(a + 1);
    }
    sinew_morph_target tg[2] = { { NULL, 8, ix[0], dp[0], NULL }, { NULL, 9, ix[1], dp[1], NULL } };
    sinew_morph_error err;
    sinew_morph_set_id set;
    sinew_morph_slot_id slot;
    TU_CHECK_OK(sinew_morpher_add_targets(mo, id, tg, 2, &set, &err));
    TU_CHECK_OK(sinew_morpher_add_slot(mo, set, &slot));
    float w[2] = { 1.0f, 0.0f };
    sinew_morph_item it = { slot, w, 2 };
    sinew_mesh_id out;
    TU_CHECK_OK(sinew_morpher_set_pass(mo, SINEW_MORPH_PASS_LISTS));
    TU_CHECK_OK(sinew_morpher_set_frame(mo, &it, 1, &out, &err)); /* 104 words */
    w[0] = 0.0f;
    w[1] = 1.0f; /* 120 words; target 0 not baked (no frame recorded) */
    TU_CHECK_RESULT(sinew_morpher_set_frame(mo, &it, 1, &out, &err), SINEW_ERROR_CAPACITY);
    TU_CHECK(strstr(err.message, "max_list_words") != NULL);
    TU_CHECK_OK(sinew_morpher_set_pass(mo, SINEW_MORPH_PASS_AUTO));
    TU_CHECK_OK(sinew_morpher_set_frame(mo, &it, 1, &out, &err));
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
    free(v);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x3012ull);
    sinew_gpu_desc gd = { 0 };
    sinew_gpu *gpu = NULL;
    sinew_result res = sinew_gpu_create(&gd, &gpu, NULL);
    TU_CHECK_OK(res);
    if (res != SINEW_OK) return tu_finish("test_gpu_morph");
    fprintf(stderr, "device: %s\n", sinew_gpu_info(gpu)->name);
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 64;
    sd.max_rest_vertices = 1u << 17;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_morpher *mo = NULL;
    TU_CHECK_OK(sinew_morpher_create(sk, NULL, &mo));
    if (!sk || !mo) return tu_finish("test_gpu_morph");

    mesh M[NMESH];
    memset(M, 0, sizeof M);
    for (int i = 0; i < NMESH; i++) {
        mesh *m = &M[i];
        m->jc = JC[i];
        m->nv = NV[i];
        m->nt = NT[i];
        TU_CHECK_OK(tu_make_random_skeleton(&r, m->jc, NULL, &m->skel));
        m->v = malloc(sizeof(sinew_vertex) * m->nv);
        m->bulge = malloc(sizeof(float) * m->nv);
        TU_CHECK_OK(tu_make_random_mesh(&r, m->skel, m->nv, 0.5, m->v, m->bulge));
        sinew_skinner_mesh_desc md = { m->v, m->nv, m->jc, m->bulge };
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &m->id, NULL));
        make_targets(&r, m);
        sinew_morph_error err;
        TU_CHECK_OK(sinew_morpher_add_targets(mo, m->id, m->t, m->nt, &m->set, &err));
        TU_CHECK(sinew_morpher_target_count(mo, m->set) == m->nt);
        uint32_t moved = 0, stored = 0;
        TU_CHECK_OK(sinew_morpher_set_stats(mo, m->set, &moved, &stored));
        fprintf(stderr, "mesh %d: %u vertices, %u targets, %u moved vertices, %u stored deltas\n", i, m->nv, m->nt,
                moved, stored);
    }

    character C[NCHAR];
    uint32_t total_out = 0;
    for (int c = 0; c < NCHAR; c++) {
        C[c].mesh = (uint32_t)c % NMESH;
        C[c].method = (sinew_method)((c / NMESH) % TU_PLAIN_METHODS);
        C[c].flags = (c / 7) % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0u;
        TU_CHECK_OK(sinew_morpher_add_slot(mo, M[C[c].mesh].set, &C[c].slot));
        C[c].w = malloc(sizeof(float) * M[C[c].mesh].nt);
        total_out += M[C[c].mesh].nv;
    }
    test_errors(sk, mo, &M[0], C[0].slot);
    sinew_morph_set_id bad_set = { 999 };
    TU_CHECK_RESULT(sinew_morpher_set_skeleton(mo, M[0].set, M[1].skel), SINEW_ERROR_INVALID_ARGUMENT); /* 24 joints, mesh has 8 */
    TU_CHECK_RESULT(sinew_morpher_set_skeleton(mo, bad_set, M[0].skel), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_OK(sinew_morpher_set_skeleton(mo, M[0].set, M[0].skel));
    float *mbulge = malloc(sizeof(float) * 2000);

    float *gpos = malloc(sizeof(float) * 3 * (total_out + 64)), *gnrm = malloc(sizeof(float) * 3 * (total_out + 64));
    double *mpos = malloc(sizeof(double) * 3 * 2000), *mnrm = malloc(sizeof(double) * 3 * 2000);
    double *rpos = malloc(sizeof(double) * 3 * 2000), *rnrm = malloc(sizeof(double) * 3 * 2000);
    double *sens = calloc(2000, sizeof(double));
    sinew_transform *pose = malloc(sizeof(sinew_transform) * 64);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(64));
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * 64 * NCHAR);
    sinew_morph_item items[NCHAR];
    sinew_mesh_id meshes[NCHAR];
    sinew_instance inst[NCHAR];
    double worst_p = 0, worst_n = 0;
    uint32_t zero_chars = 0, active_total = 0, widened = 0;
    /* LISTS frames: targets the copy still holds (non-zero the frame before) at zero weight
     * now, whose deltas the lists leave out while their vertices are rewritten from the base */
    uint32_t lists_unbaked = 0;
    float prev_w[300];
    for (int f = 0; f < NFRAME; f++) {
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total_out + 64, 0x7fc00000u));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        /* Each pass sees copies left by the others: targets active in one frame
         * and not in the next must be taken out of the copy. */
        TU_CHECK_OK(sinew_morpher_set_pass(mo, (sinew_morph_pass)(f % 4)));
        uint32_t pal_at = 0, out_at = 0;
        for (int c = 0; c < NCHAR; c++) {
            mesh *m = &M[C[c].mesh];
            memcpy(prev_w, C[c].w, sizeof(float) * m->nt);
            random_weights(&r, C[c].w, m->nt);
            if (f % 4 == SINEW_MORPH_PASS_LISTS)
                for (uint32_t t = 0; t < m->nt; t++) lists_unbaked += prev_w[t] != 0.0f && C[c].w[t] == 0.0f && m->t[t].count;
            if ((f == 2 || f == 4) && c % 2 == 0) memset(C[c].w, 0, sizeof(float) * m->nt); /* active -> zero -> active */
            memcpy(pose, sinew_skeleton_rest_pose(m->skel), sizeof(sinew_transform) * m->jc);
            tu_random_pose(&r, m->jc, pose, 0.9, C[c].method == SINEW_METHOD_DQS ? 0.0 : 0.3);
            TU_CHECK_OK(sinew_palette_build(m->skel, C[c].method, pose, NULL, scratch, pal + 64 * c));
            uint32_t stride = sinew_palette_gpu_stride(C[c].method, C[c].flags);
            TU_CHECK_OK(sinew_palette_pack(C[c].method, C[c].flags, pal + 64 * c, m->jc, fr.palette + 4 * pal_at));
            items[c].slot = C[c].slot;
            items[c].weights = C[c].w;
            items[c].weight_count = m->nt;
            inst[c].method = C[c].method;
            inst[c].flags = C[c].flags;
            inst[c].palette_offset = pal_at;
            inst[c].output_offset = out_at;
            pal_at += stride * m->jc;
            out_at += m->nv;
        }
        sinew_morph_error err;
        TU_CHECK_OK(sinew_morpher_set_frame(mo, items, NCHAR, meshes, &err));
        uint32_t expect_active = 0;
        for (int c = 0; c < NCHAR; c++) {
            mesh *m = &M[C[c].mesh];
            int any = 0;
            for (uint32_t t = 0; t < m->nt; t++) any |= C[c].w[t] != 0.0f;
            expect_active += any;
            zero_chars += !any;
            if (!any) TU_CHECK(meshes[c].value == m->id.value);
            else TU_CHECK(meshes[c].value != m->id.value);
            inst[c].mesh = meshes[c];
        }
        TU_CHECK(sinew_morpher_active_items(mo) == expect_active);
        active_total += expect_active;
        TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, NCHAR, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total_out + 64, gpos, gnrm));
        for (int c = 0; c < NCHAR; c++) {
            mesh *m = &M[C[c].mesh];
            TU_CHECK_OK(sinew_morph_reference(m->nv, m->v, m->t, m->nt, C[c].w, mpos, mnrm, &err));
            const float *rb = ref_bulge(m, C[c].mesh, mpos, mbulge);
            TU_CHECK_OK(sinew_reference_skin_rest(m->nv, m->v, mpos, mnrm, rb, pal + 64 * c, m->jc,
                                                  C[c].method, C[c].flags, rpos, rnrm));
            double E = extent_of(rpos, m->nv), ep = 0, en = 0, en_over = 0, kw = 1;
            uint32_t o = inst[c].output_offset;
            for (uint32_t i = 0; i < m->nv; i++) sens[i] = 0.0;
            if (C[c].flags)   /* bulge: + 8 x the corrected normal's measured sensitivity */
                TU_CHECK_OK(tu_bulge_sensitivity(&r, m->nv, m->v, NULL, mpos, mnrm, NULL, rb, pal + 64 * c, m->jc,
                                                 C[c].method, C[c].flags, rnrm, sens));
            for (uint32_t i = 0; i < m->nv; i++) {
                double eni = 0;
                for (int k = 0; k < 3; k++) {
                    double dp = fabs((double)gpos[3 * (o + i) + k] - rpos[3 * i + k]);
                    double dn = fabs((double)gnrm[3 * (o + i) + k] - rnrm[3 * i + k]);
                    if (!(dp <= ep)) ep = isnan(dp) ? INFINITY : dp;
                    if (!(dn <= eni)) eni = isnan(dn) ? INFINITY : dn;
                }
                if (!(eni <= en)) en = eni;
                /* normal tolerance 1e-3 x max(1, k / 10) (k: tu_normal_condition of the morphed rest normal) */
                double k = tu_normal_condition(pal + 64 * c, &m->v[i], mnrm + 3 * i, C[c].method);
                double over = (eni - 8.0 * sens[i]) / (k > 10.0 ? k / 10.0 : 1.0);
                if (!(over <= en_over)) { en_over = over; kw = k; }
                widened += k > 10.0;
            }
            TU_CHECK_MSG(ep <= 2e-5 * E, "frame %d char %d (method %d flags %u): position error %g > %g", f, c,
                         (int)C[c].method, C[c].flags, ep, 2e-5 * E);
            TU_CHECK_MSG(en_over <= 1e-3, "frame %d char %d (method %d flags %u): normal error %g (beyond 8 x its sensitivity, over max(1, k / 10): %g, k %g)",
                         f, c, (int)C[c].method, C[c].flags, en, en_over, kw);
            if (ep / E > worst_p) worst_p = ep / E;
            if (en > worst_n) worst_n = en;
        }
        for (uint32_t i = total_out; i < total_out + 64; i++) TU_CHECK(isnan(gpos[3 * i]));
    }
    fprintf(stderr, "LISTS frames: %u zero-weight targets still in their copies\n", lists_unbaked);
    fprintf(stderr, "worst position error %.3g x extent, normal %.3g; %u active items, %u all-zero characters; "
            "%u vertex checks with k > 10\n", worst_p, worst_n, active_total, zero_chars, widened);
    TU_CHECK(zero_chars > 0 && active_total > 0);
    TU_CHECK(lists_unbaked > 0);
    free(mbulge);
    test_crowd_path(&r, sk, mo, M, C);
    test_tangent_deltas(&r, gpu);
    test_list_capacity(&r, gpu);

    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    TU_CHECK_MSG(msgs == 0, "%u validation messages", msgs);
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    for (int i = 0; i < NMESH; i++) {
        sinew_skeleton_destroy(M[i].skel);
        free(M[i].v); free(M[i].bulge); free(M[i].t); free(M[i].idx); free(M[i].dp); free(M[i].dn); free(M[i].dt);
    }
    for (int c = 0; c < NCHAR; c++) free(C[c].w);
    free(gpos); free(gnrm); free(mpos); free(mnrm); free(rpos); free(rnrm); free(sens); free(pose); free(scratch); free(pal);
    return tu_finish("test_gpu_morph");
}
