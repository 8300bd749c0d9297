/* Culling boxes of morphed crowd characters (sinew_crowd_mesh_bounds.morph_deltas,
 * sinew_joint_bounds_morph_deltas / _growth, sinew_character_bounds_morphed):
 * one 12-joint random skeleton, two meshes with random centers of rotation
 * (A: 400 vertices, 8 random sparse targets, its set given the skeleton so the
 * morph pass recomputes bulge distances; B: 250 vertices, 5 targets, base
 * distances, non-zero default weights), position deltas up to 2.5 per axis
 * (the mesh's vertices lie within 0.5 of their joint). Clip weight tracks give
 * weights in [-2.5, 3.5] (negative and > 1); rotation keys on every joint (up
 * to 1.2 rad) and, for LBS and the scale methods, non-uniform scale keys
 * (0.6 .. 1.5); random roots. 36 characters: every method (CoR included) x
 * {no bulge, bulge, bulge + inner}; both meshes morphed, mesh A only, one with
 * a pose (weights 0), one without slots; model 1 has the same meshes with
 * bounds data without morph_deltas: its morphed characters' boxes are
 * NOT_FOUND, its unmorphed ones are given. Three frames at changing times.
 * Every GPU-skinned vertex and every float64 reference vertex (sinew_morph_reference,
 * then sinew_reference_skin_cor with the morphed rest positions rounded to float,
 * the base centers, and the bulge distances the morph pass uses) must lie inside
 * its character's box (no tolerance: boxes are padded for float32, bounds.h).
 * Validation clean. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <sinew/morpher.h>
#include <string.h>

#define NCHAR 36
#define NFRAME 3
#define JC 12
#define NW 13
#define TPS 10.0

typedef struct mesh {
    uint32_t nv, nt, first;
    sinew_vertex *v, *mv;    /* base; morphed (float positions) for the reference */
    float *bulge, *mbulge, *centers;
    sinew_mesh_id id;
    sinew_morph_set_id set;
    sinew_morph_target t[8];
    uint32_t *idx;
    float *dp;
    float defaults[8];
    sinew_joint_bounds jb[JC];
    uint16_t nb[JC * JC];
    float *md;               /* morph deltas: nt x JC */
} mesh;

static void make_targets(tu_rng *r, mesh *m)
{
    m->idx = malloc(sizeof(uint32_t) * m->nv * m->nt);
    m->dp = malloc(sizeof(float) * 3 * m->nv * m->nt);
    uint8_t *used = malloc(m->nv);
    for (uint32_t t = 0; t < m->nt; t++) {
        uint32_t *ix = m->idx + (size_t)t * m->nv;
        float *dp = m->dp + (size_t)3 * t * m->nv;
        uint32_t n = 1 + tu_range(r, m->nv / 3);
        memset(used, 0, m->nv);
        for (uint32_t e = 0; e < n; e++) {
            uint32_t v;
            do v = tu_range(r, m->nv); while (used[v]);
            used[v] = 1;
            ix[e] = v;
            for (int k = 0; k < 3; k++) dp[3 * e + k] = (float)tu_uniform(r, -2.5, 2.5);
        }
        m->t[t] = (sinew_morph_target){ NULL, n, ix, dp, NULL, NULL };
    }
    free(used);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x40B5ull);
    sinew_gpu_desc gd = { 0 };
    sinew_gpu *gpu = NULL;
    sinew_result res = sinew_gpu_create(&gd, &gpu, NULL);
    TU_CHECK_OK(res);
    if (res != SINEW_OK) return tu_finish("test_gpu_crowd_morph_bounds");
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 128;
    sd.max_rest_vertices = 1u << 16;
    sd.max_output_vertices = 1u << 16;
    sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_morpher *mo = NULL;
    if (sk) TU_CHECK_OK(sinew_morpher_create(sk, NULL, &mo));
    if (!sk || !mo) return tu_finish("test_gpu_crowd_morph_bounds");

    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, JC, NULL, &skel));
    if (!skel) return tu_finish("test_gpu_crowd_morph_bounds");
    static mesh M[2];
    M[0].nv = 400; M[0].nt = 8; M[0].first = 0;
    M[1].nv = 250; M[1].nt = 5; M[1].first = 8;
    for (int i = 0; i < 2; i++) {
        mesh *m = &M[i];
        m->v = malloc(sizeof(sinew_vertex) * m->nv);
        m->mv = malloc(sizeof(sinew_vertex) * m->nv);
        m->bulge = malloc(sizeof(float) * m->nv);
        m->mbulge = malloc(sizeof(float) * m->nv);
        m->centers = malloc(sizeof(float) * 3 * m->nv);
        m->md = malloc(sizeof(float) * m->nt * JC);
        TU_CHECK_OK(tu_make_random_mesh(&r, skel, m->nv, 0.5, m->v, m->bulge));
        for (uint32_t v = 0; v < m->nv; v++)
            for (int c = 0; c < 3; c++) m->centers[3 * v + c] = m->v[v].position[c] + (float)tu_uniform(&r, -0.4, 0.4);
        sinew_skinner_mesh_desc md = { m->v, m->nv, JC, m->bulge, NULL };
        md.cor_centers = m->centers;
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &m->id, NULL));
        make_targets(&r, m);
        sinew_morph_error err;
        TU_CHECK_OK(sinew_morpher_add_targets(mo, m->id, m->t, m->nt, &m->set, &err));
        if (i == 0) TU_CHECK_OK(sinew_morpher_set_skeleton(mo, m->set, skel)); /* d0 from the morphed vertices */
        for (uint32_t t = 0; t < m->nt; t++) m->defaults[t] = i == 1 ? (float)tu_uniform(&r, -0.5, 0.8) : 0.0f;
        uint32_t used = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(m->v, NULL, m->nv, JC, m->jb, m->nb, JC * JC, &used));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(m->v, NULL, m->nv, JC, m->centers, m->jb));
        TU_CHECK_OK(sinew_joint_bounds_morph_deltas(m->v, NULL, m->nv, JC, m->t, m->nt, m->md));
    }

    /* Two clips with the same weight tracks: rotations + scales (LBS, scale methods), rotations only (DQS, CoR). */
    sinew_weight_track_desc wt[2];
    double wtimes[2][4] = { { 0, 6, 13, 20 }, { 0, 9, 20, 20 } };
    static double wvals[2][4 * 8];
    for (int i = 0; i < 2; i++) {
        uint32_t width = i == 0 ? M[0].nt : M[1].nt, keys = i == 0 ? 4 : 3;
        for (uint32_t k = 0; k < keys * width; k++) wvals[i][k] = tu_uniform(&r, -2.5, 3.5);
        wt[i] = (sinew_weight_track_desc){ M[i].first, width, keys, wtimes[i], wvals[i], SINEW_INTERPOLATION_LINEAR, NULL };
    }
    static sinew_quat_key rk[JC][4];
    static sinew_vec3_key sk_keys[JC][4];
    sinew_channel_desc chd[2][JC];
    memset(chd, 0, sizeof chd);
    for (uint32_t j = 0; j < JC; j++) {
        for (int k = 0; k < 4; k++) {
            rk[j][k].time = 20.0 * k / 3.0;
            rk[j][k].value = tu_quat_axis_angle_random(&r, 1.2);
            sk_keys[j][k].time = 20.0 * k / 3.0;
            sk_keys[j][k].value = sinew_v3(tu_uniform(&r, 0.6, 1.5), tu_uniform(&r, 0.6, 1.5), tu_uniform(&r, 0.6, 1.5));
        }
        for (int c = 0; c < 2; c++) {
            chd[c][j].joint = j;
            chd[c][j].rotation_count = 4;
            chd[c][j].rotations = rk[j];
            chd[c][j].scale_count = c == 0 ? 4 : 0;
            chd[c][j].scales = c == 0 ? sk_keys[j] : NULL;
        }
    }
    sinew_clip *clips[2] = { NULL, NULL };
    for (int c = 0; c < 2; c++) {
        sinew_clip_desc cd = { 0 };
        cd.name = c ? "rigid" : "scaled";
        cd.joint_count = JC;
        cd.ticks_per_second = TPS;
        cd.channel_count = JC;
        cd.channels = chd[c];
        cd.weight_count = NW;
        cd.weight_track_count = 2;
        cd.weight_tracks = wt;
        TU_CHECK_OK(sinew_clip_create(&cd, &clips[c]));
    }
    if (!clips[0] || !clips[1]) return tu_finish("test_gpu_crowd_morph_bounds");

    sinew_crowd_desc crd = { 0 };
    crd.skinner = sk;
    crd.max_characters = NCHAR;
    crd.max_joints = JC;
    crd.threads = 2;
    crd.morpher = mo;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&crd, &crowd, NULL));
    if (!crowd) return tu_finish("test_gpu_crowd_morph_bounds");
    sinew_mesh_id ids[2] = { M[0].id, M[1].id };
    uint32_t vcs[2] = { M[0].nv, M[1].nv };
    sinew_crowd_mesh_morph mm[2] = { { M[0].nt, M[0].first, NULL }, { M[1].nt, M[1].first, M[1].defaults } };
    sinew_crowd_mesh_bounds mb[2], mb_plain[2];
    for (int i = 0; i < 2; i++) {
        mb[i] = (sinew_crowd_mesh_bounds){ M[i].jb, M[i].nb, M[i].md, M[i].nt };
        mb_plain[i] = (sinew_crowd_mesh_bounds){ M[i].jb, M[i].nb, NULL, 0 };
    }
    sinew_crowd_model_desc md = { skel, 2, ids, vcs, mb, mm };
    sinew_model_id model[2];
    mb[1].morph_target_count = 4; /* not the mesh's target count: refused */
    TU_CHECK_RESULT(sinew_crowd_add_model(crowd, &md, &model[0], NULL), SINEW_ERROR_INVALID_ARGUMENT);
    mb[1].morph_target_count = M[1].nt;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &model[0], NULL));
    md.bounds = mb_plain;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &model[1], NULL));

    /* kind: 0 both meshes morphed, 1 mesh A only, 2 no slots, 3 slots + a pose (weights 0) */
    static sinew_morph_slot_id slots[NCHAR][2];
    static sinew_crowd_character ch[NCHAR];
    static sinew_mat4 roots[NCHAR];
    sinew_transform pose[JC];
    memcpy(pose, sinew_skeleton_rest_pose(skel), sizeof pose);
    tu_random_pose(&r, JC, pose, 1.0, 0.0);
    int kind[NCHAR], mod[NCHAR];
    for (int c = 0; c < NCHAR; c++) {
        kind[c] = c == 11 ? 3 : c == 17 ? 2 : c % 6 == 4 ? 1 : 0;
        mod[c] = c % 6 == 5 || c == 11 || c == 17 ? 1 : 0;
        for (int k = 0; k < 2; k++) {
            slots[c][k].value = UINT32_MAX;
            if (kind[c] == 2 || (kind[c] == 1 && k == 1)) continue;
            TU_CHECK_OK(sinew_morpher_add_slot(mo, M[k].set, &slots[c][k]));
        }
        ch[c].model = model[mod[c]];
        ch[c].method = (sinew_method)(c % SINEW_METHOD_COUNT);
        uint32_t fl = (uint32_t)(c / SINEW_METHOD_COUNT + c) % 3;
        ch[c].flags = fl == 0 ? 0u : fl == 1 ? SINEW_SKIN_BULGE_CORRECTION : SINEW_SKIN_BULGE_CORRECTION | SINEW_SKIN_BULGE_INNER;
        int rigid = ch[c].method == SINEW_METHOD_DQS || ch[c].method == SINEW_METHOD_COR;
        ch[c].clip = clips[rigid];
        ch[c].wrap = SINEW_WRAP_LOOP;
        ch[c].pose = kind[c] == 3 ? pose : NULL;
        ch[c].morph_slots = kind[c] == 2 ? NULL : slots[c];
        ch[c].root = &roots[c];
    }

    uint32_t total = NCHAR * (M[0].nv + M[1].nv);
    float *gp = malloc(sizeof(float) * 3 * total);
    double *mp = malloc(sizeof(double) * 3 * 400), *rp = malloc(sizeof(double) * 3 * 400);
    double ws[NW];
    sinew_transform local[JC];
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(JC));
    sinew_palette_joint pal[JC];
    double worst_ref = 0, worst_gpu = 0, wmin = 0, wmax = 0;
    uint32_t checked = 0, morphed = 0, cor = 0, inner = 0, not_found = 0, bad = 0;
    for (int f = 0; f < NFRAME; f++) {
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total, 0x7fc00000u));
        for (int c = 0; c < NCHAR; c++) {
            ch[c].time = 0.37 * f + 0.113 * c;
            sinew_transform rt = { tu_random_vec3(&r, -50, 50), tu_random_quat(&r), sinew_v3(1, 1, 1) };
            roots[c] = sinew_mat4_from_transform(&rt);
        }
        sinew_error_info cerr;
        TU_CHECK_OK(sinew_crowd_update(crowd, ch, NCHAR, NULL, &cerr));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total, gp, NULL));
        for (int c = 0; c < NCHAR; c++) {
            /* this frame's weights, as the crowd takes them from the clip */
            TU_CHECK_OK(sinew_clip_sample_weights(ch[c].clip, ch[c].time, ch[c].wrap, NULL, NW, ws));
            float w[2][8];
            int any[2] = { 0, 0 };
            for (int k = 0; k < 2; k++)
                for (uint32_t t = 0; t < M[k].nt; t++) {
                    int on = kind[c] != 3 && slots[c][k].value != UINT32_MAX;
                    w[k][t] = on ? (float)(ws[M[k].first + t] - M[k].defaults[t]) : 0.0f;
                    any[k] |= w[k][t] != 0.0f;
                    if (w[k][t] < wmin) wmin = w[k][t];
                    if (w[k][t] > wmax) wmax = w[k][t];
                }
            float lo[3], hi[3];
            sinew_result br = sinew_crowd_character_bounds(crowd, (uint32_t)c, lo, hi);
            if (mod[c] == 1 && (any[0] || any[1])) { /* morphed without growth data: no box */
                TU_CHECK_MSG(br == SINEW_ERROR_NOT_FOUND, "frame %d char %d: %d, expected NOT_FOUND", f, c, (int)br);
                not_found++;
                continue;
            }
            TU_CHECK_OK(br);
            if (br != SINEW_OK) continue;
            TU_CHECK_OK(sinew_clip_sample(ch[c].pose ? NULL : ch[c].clip, skel, ch[c].time, ch[c].wrap, local));
            if (ch[c].pose) memcpy(local, pose, sizeof local);
            TU_CHECK_OK(sinew_palette_build(skel, ch[c].method, local, &roots[c], scratch, pal));
            for (uint32_t k = 0; k < 2; k++) {
                mesh *m = &M[k];
                uint32_t o = 0, n = 0;
                TU_CHECK_OK(sinew_crowd_character_output(crowd, (uint32_t)c, k, &o, &n));
                sinew_morph_error err;
                TU_CHECK_OK(sinew_morph_reference(m->nv, m->v, m->t, m->nt, w[k], mp, NULL, &err));
                memcpy(m->mv, m->v, sizeof(sinew_vertex) * m->nv);
                for (uint32_t i = 0; i < m->nv; i++)
                    for (int q = 0; q < 3; q++) m->mv[i].position[q] = (float)mp[3 * i + q];
                const float *bulge = m->bulge;
                if (k == 0 && any[k]) { /* the set has the skeleton: d0 of the morphed vertices */
                    TU_CHECK_OK(sinew_bulge_rest_distances(skel, m->nv, m->mv, m->mbulge));
                    bulge = m->mbulge;
                }
                TU_CHECK_OK(sinew_reference_skin_cor(m->nv, m->mv, NULL, m->centers, bulge, pal, JC, ch[c].method,
                                                     ch[c].flags, rp, NULL));
                for (uint32_t i = 0; i < m->nv; i++) {
                    double g[3] = { gp[3 * (size_t)(o + i)], gp[3 * (size_t)(o + i) + 1], gp[3 * (size_t)(o + i) + 2] };
                    double orr = tu_box_outside(lo, hi, rp + 3 * i), og = tu_box_outside(lo, hi, g);
                    if (orr > worst_ref) worst_ref = orr;
                    if (og > worst_gpu) worst_gpu = og;
                    if ((orr > 0 || og > 0) && bad++ < 5)
                        TU_CHECK_MSG(0, "frame %d char %d (%s flags %u, model %d) mesh %u vertex %u outside its box: ref by %.3g, gpu by %.3g of the size",
                                     f, c, sinew_method_name(ch[c].method), ch[c].flags, mod[c], k, i, orr, og);
                }
                morphed += any[k];
            }
            checked++;
            cor += sinew_method_uses_centers(ch[c].method) && (any[0] || any[1]);
            inner += (ch[c].flags & SINEW_SKIN_BULGE_INNER) && (any[0] || any[1]);
        }
    }
    fprintf(stderr, "morphed crowd boxes: %u boxes checked (%u morphed meshes, %u CoR and %u inner-push characters "
                    "morphed), %u NOT_FOUND; weights %.2f .. %.2f; %u vertices outside (worst ref %.3g, gpu %.3g of the box size)\n",
            checked, morphed, cor, inner, not_found, wmin, wmax, bad, worst_ref, worst_gpu);
    TU_CHECK(checked > 60 && morphed > 80 && cor > 10 && inner > 10 && not_found > 10 && wmin < -1 && wmax > 2);

    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    TU_CHECK_MSG(msgs == 0, "%u validation messages", msgs);
    sinew_crowd_destroy(crowd);
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    sinew_clip_destroy(clips[0]);
    sinew_clip_destroy(clips[1]);
    sinew_skeleton_destroy(skel);
    for (int i = 0; i < 2; i++) {
        free(M[i].v); free(M[i].mv); free(M[i].bulge); free(M[i].mbulge); free(M[i].centers); free(M[i].md);
        free(M[i].idx); free(M[i].dp);
    }
    free(gp); free(mp); free(rp); free(scratch);
    return tu_finish("test_gpu_crowd_morph_bounds");
}
