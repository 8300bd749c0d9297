/* Tests of Sinew palettes: LBS/DQS skin matrices, the DQS-with-scale split
 * (global, local, mixed) against independent transcriptions of the formulas,
 * the scale semantics on a chain, error paths and the GPU packing. */
#include "testutil.h"
#include <sinew/palette_job.h>
#include <stdlib.h>
#include <string.h>

/* The rest-segment marker of a singular joint (SINEW_PAL_BULGE_SINGULAR, shaders/sinew_layout.h). */
#define BULGE_SINGULAR 3.0e38f

enum { MAXJ = 64 };

static double mat4_maxabs(const sinew_mat4 *a)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) e = fmax(e, fabs(a->m[c][r]));
    return e;
}
/* max |a - b| / max(1, max |a|) */
static double rel(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) e = fmax(e, fabs(a->m[c][r] - b->m[c][r]));
    return e / fmax(1, mat4_maxabs(a));
}
static sinew_mat4 mul(sinew_mat4 a, sinew_mat4 b) { return sinew_mat4_mul(&a, &b); }
static sinew_mat4 inv(sinew_mat4 a)
{
    sinew_mat4 o = sinew_mat4_identity();
    TU_CHECK_OK(sinew_mat4_inverse(&a, &o));
    return o;
}
static sinew_vec3 tr(const sinew_mat4 *m) { return sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]); }
static double vdist(sinew_vec3 a, sinew_vec3 b) { return sinew_v3_length(sinew_v3_sub(a, b)); }

static void random_parents(tu_rng *r, uint32_t n, int32_t *parents)
{
    for (uint32_t j = 0; j < n; j++) {
        if (j == 0 || tu_uniform(r, 0, 1) < 0.1) parents[j] = -1;
        else parents[j] = tu_range(r, 2) ? (int32_t)j - 1 : (int32_t)tu_range(r, j);
    }
}

/* Rest: random rotation, offset 0.5..1.5 long; rigid unless bind_scale
 * (1: non-uniform scale in [0.7, 1.4], 2: uniform). */
static sinew_transform random_rest(tu_rng *r, int bind_scale)
{
    sinew_transform t;
    t.translation = sinew_v3_scale(tu_random_unit(r), tu_uniform(r, 0.5, 1.5));
    t.rotation = tu_random_quat(r);
    t.scale = bind_scale ? tu_random_vec3(r, 0.7, 1.4) : sinew_v3(1, 1, 1);
    if (bind_scale == 2) t.scale.y = t.scale.z = t.scale.x;
    return t;
}

/* Pose: random rotation, rest translation perturbed, and on ~40% of the joints
 * a random non-uniform scale in [0.5, 2] per axis. */
static sinew_transform random_pose(tu_rng *r, const sinew_transform *rest, int scaled)
{
    sinew_transform t;
    t.translation = sinew_v3_add(rest->translation, tu_random_vec3(r, -0.2, 0.2));
    t.rotation = tu_random_quat(r);
    t.scale = rest->scale;
    if (scaled && tu_uniform(r, 0, 1) < 0.4) {
        t.scale.x *= tu_uniform(r, 0.5, 2);
        t.scale.y *= tu_uniform(r, 0.5, 2);
        t.scale.z *= tu_uniform(r, 0.5, 2);
    }
    return t;
}

static sinew_skeleton *make_skeleton(uint32_t n, const int32_t *parents, const sinew_transform *rest,
                                     const bool *prop)
{
    sinew_skeleton_desc d = { 0 };
    d.joint_count = n;
    d.parents = parents;
    d.rest_local = rest;
    d.scale_propagates = prop;
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    return s;
}

/* Per-joint user-local polar factors, computed independently of palette.c:
 * U_k = L_k^-1 Local_k (general inverse), Ur_k = [Ur3 | t(U_k)], Us_k = [Us3 | 0]. */
static void user_local(const sinew_skeleton *s, const sinew_transform *pose, uint32_t k,
                       sinew_mat4 *ur, sinew_mat4 *us)
{
    sinew_mat4 l = *sinew_skeleton_bind_local(s, k);
    sinew_mat4 u = mul(inv(l), sinew_mat4_from_transform(&pose[k]));
    sinew_mat3 u3 = sinew_mat4_upper3(&u), r3, s3;
    TU_CHECK_OK(sinew_polar_decompose(&u3, &r3, &s3));
    *ur = sinew_mat4_from_mat3(&r3, tr(&u));
    *us = sinew_mat4_from_mat3(&s3, sinew_v3(0, 0, 0));
}

static int chain(const sinew_skeleton *s, uint32_t j, uint32_t *out) /* root .. j */
{
    int n = 0;
    for (int32_t k = (int32_t)j; k >= 0; k = sinew_skeleton_parent(s, (uint32_t)k)) out[n++] = (uint32_t)k;
    for (int i = 0; i < n / 2; i++) { uint32_t t = out[i]; out[i] = out[n - 1 - i]; out[n - 1 - i] = t; }
    return n;
}

/* Kavan's local-scale formulas, transcribed directly (root = identity):
 *   Ls_k = mat4(rot(L_k), Us_p(k) trans(L_k))  (Ls_root = L_root)
 *   Ws_j = Ls_root ... Ls_p Ls_j Us_j,  Wr_j = Ls_root Ur_root ... Ls_j Ur_j
 *   S_j = Ws_j B_j^-1,  R_j = Wr_j (Ws_j Us_j^-1)^-1. */
static void kavan_local(const sinew_skeleton *s, const sinew_transform *pose, uint32_t j,
                        sinew_mat4 *S, sinew_mat4 *R)
{
    uint32_t c[MAXJ];
    int n = chain(s, j, c);
    sinew_mat4 ws = sinew_mat4_identity(), wr = sinew_mat4_identity(), ur, us, usp = sinew_mat4_identity();
    for (int i = 0; i < n; i++) {
        uint32_t k = c[i];
        sinew_mat4 ls = *sinew_skeleton_bind_local(s, k);
        if (i > 0) {
            sinew_mat3 ps = sinew_mat4_upper3(&usp);
            sinew_vec3 t = sinew_mat3_mul_v3(&ps, tr(&ls));
            ls.m[3][0] = t.x; ls.m[3][1] = t.y; ls.m[3][2] = t.z;
        }
        user_local(s, pose, k, &ur, &us);
        ws = mul(ws, ls);
        wr = mul(mul(wr, ls), ur);
        usp = us;
    }
    ws = mul(ws, us);
    *S = mul(ws, inv(*sinew_skeleton_bind_global(s, j)));
    *R = mul(wr, inv(mul(ws, inv(us))));
}

/* Global mode's scaled-rest position: a_j = t(L_root Us_root ... L_j Us_j). */
static sinew_vec3 global_scaled_rest(const sinew_skeleton *s, const sinew_transform *pose, uint32_t j)
{
    uint32_t c[MAXJ];
    int n = chain(s, j, c);
    sinew_mat4 g = sinew_mat4_identity(), ur, us;
    for (int i = 0; i < n; i++) {
        user_local(s, pose, c[i], &ur, &us);
        g = mul(mul(g, *sinew_skeleton_bind_local(s, c[i])), us);
    }
    return tr(&g);
}

typedef struct errs { double rigid, rs, ca, tj, kavS, kavR, kavX, mixed, seg, root; } errs;

/* Random forests (1..48 joints), rigid or scaled binds, random poses with
 * non-uniform scales on random joints, every DQS-with-scale mode:
 *  - R_j (from the DQ) is rigid: orthonormality < 1e-9, det within 1e-9 of 1;
 *  - R_j S_j = X_j within 1e-9 relative;
 *  - S_j maps c_j to a_j (global: independent a_j; all modes: within 1e-9);
 *  - global: X_j = T_j = M_j B_j^-1 from FK within 1e-9 relative;
 *  - local (rigid binds): S_j, R_j, X_j equal the Kavan transcription (1e-9);
 *  - mixed: a joint whose strict ancestors all propagate equals global, one
 *    whose strict ancestors all compensate equals local (1e-9);
 *  - root placement W: X_j(W) = W X_j within 1e-9; segments = X_j * bind segment. */
static void test_scale_modes(tu_rng *rng)
{
    static int32_t parents[MAXJ];
    static sinew_transform rest[MAXJ], pose[MAXJ];
    static bool prop[MAXJ];
    static sinew_mat4 scratch[3 * MAXJ], glob[MAXJ];
    static sinew_palette_joint pg[MAXJ], pl[MAXJ], pm[MAXJ], pr[MAXJ];
    errs e = { 0 };
    int kav_count = 0, mixed_g = 0, mixed_l = 0;
    TU_CHECK(sinew_palette_scratch_count(MAXJ) <= 3 * MAXJ);
    for (int it = 0; it < 300; it++) {
        uint32_t n = 1 + tu_range(rng, 48);
        int bind_scale = it % 4 == 3;
        random_parents(rng, n, parents);
        for (uint32_t j = 0; j < n; j++) {
            rest[j] = random_rest(rng, bind_scale);
            pose[j] = random_pose(rng, &rest[j], 1);
            prop[j] = tu_range(rng, 2) != 0;
        }
        sinew_skeleton *s = make_skeleton(n, parents, rest, prop);
        if (!s) continue;
        TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS_SCALE, pose, NULL, scratch, pg));
        TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS_SCALE_LOCAL, pose, NULL, scratch, pl));
        TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS_SCALE_MIXED, pose, NULL, scratch, pm));
        TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, glob));
        sinew_transform wt = { tu_random_vec3(rng, -5, 5), tu_random_quat(rng), { 1, 1, 1 } };
        sinew_mat4 w = sinew_mat4_from_transform(&wt);
        sinew_method mroot = (sinew_method)(SINEW_METHOD_DQS_SCALE + it % 3);
        TU_CHECK_OK(sinew_palette_build(s, mroot, pose, &w, scratch, pr));
        const sinew_palette_joint *proot = mroot == SINEW_METHOD_DQS_SCALE ? pg : mroot == SINEW_METHOD_DQS_SCALE_LOCAL ? pl : pm;
        for (uint32_t j = 0; j < n; j++) {
            const sinew_mat4 *b = sinew_skeleton_bind_global(s, j);
            sinew_vec3 cj = tr(b);
            const sinew_palette_joint *modes[3] = { &pg[j], &pl[j], &pm[j] };
            for (int m = 0; m < 3; m++) {
                const sinew_palette_joint *p = modes[m];
                sinew_mat4 r = sinew_dq_to_mat4(p->rigid);
                sinew_mat3 r3 = sinew_mat4_upper3(&r);
                e.rigid = fmax(e.rigid, sinew_mat3_orthonormality_error(&r3));
                e.rigid = fmax(e.rigid, fabs(sinew_mat3_det(&r3) - 1));
                sinew_mat4 rs = mul(r, p->scale);
                e.rs = fmax(e.rs, rel(&p->skin, &rs));
                sinew_vec3 h, t;
                sinew_skeleton_bone_segment(s, j, &h, &t);
                e.seg = fmax(e.seg, vdist(p->seg_head, sinew_mat4_transform_point(&p->skin, h)));
                e.seg = fmax(e.seg, vdist(p->seg_tail, sinew_mat4_transform_point(&p->skin, t)));
            }
            /* global */
            sinew_mat4 tj = mul(glob[j], inv(*b));
            e.tj = fmax(e.tj, rel(&tj, &pg[j].skin));
            e.ca = fmax(e.ca, vdist(sinew_mat4_transform_point(&pg[j].scale, cj), global_scaled_rest(s, pose, j)));
            /* local vs Kavan (rigid binds only) */
            if (!bind_scale) {
                sinew_mat4 ks, kr;
                kavan_local(s, pose, j, &ks, &kr);
                sinew_mat4 pr_m = sinew_dq_to_mat4(pl[j].rigid), kx = mul(kr, ks);
                e.kavS = fmax(e.kavS, rel(&ks, &pl[j].scale));
                e.kavR = fmax(e.kavR, rel(&kr, &pr_m));
                e.kavX = fmax(e.kavX, rel(&kx, &pl[j].skin));
                kav_count++;
            }
            /* mixed, per joint */
            int all1 = 1, all0 = 1;
            for (int32_t k = parents[j]; k >= 0; k = parents[k]) { if (prop[k]) all0 = 0; else all1 = 0; }
            const sinew_palette_joint *ref = all1 ? &pg[j] : all0 ? &pl[j] : NULL;
            if (ref) {
                sinew_mat4 a = sinew_dq_to_mat4(ref->rigid), bm = sinew_dq_to_mat4(pm[j].rigid);
                e.mixed = fmax(e.mixed, rel(&ref->skin, &pm[j].skin));
                e.mixed = fmax(e.mixed, rel(&ref->scale, &pm[j].scale));
                e.mixed = fmax(e.mixed, rel(&a, &bm));
                if (all1) mixed_g++; else mixed_l++;
            }
            /* root placement */
            sinew_mat4 wx = mul(w, proot[j].skin);
            e.root = fmax(e.root, rel(&wx, &pr[j].skin));
        }
        sinew_skeleton_destroy(s);
    }
    fprintf(stderr, "scale modes: rigid %.3g, RS-X %.3g, S c-a %.3g, global X-T %.3g, kavan S %.3g R %.3g X %.3g (%d joints), "
            "mixed %.3g (%d global-like, %d local-like), segments %.3g, root %.3g\n",
            e.rigid, e.rs, e.ca, e.tj, e.kavS, e.kavR, e.kavX, kav_count, e.mixed, mixed_g, mixed_l, e.seg, e.root);
    TU_CHECK_NEAR(e.rigid, 0, 1e-9);
    TU_CHECK_NEAR(e.rs, 0, 1e-9);
    TU_CHECK_NEAR(e.ca, 0, 1e-9);
    TU_CHECK_NEAR(e.tj, 0, 1e-9);
    TU_CHECK_NEAR(e.kavS, 0, 1e-9);
    TU_CHECK_NEAR(e.kavR, 0, 1e-9);
    TU_CHECK_NEAR(e.kavX, 0, 1e-9);
    TU_CHECK_NEAR(e.mixed, 0, 1e-9);
    TU_CHECK_NEAR(e.seg, 0, 1e-9);
    TU_CHECK_NEAR(e.root, 0, 1e-9);
    TU_CHECK(kav_count > 1000 && mixed_g > 100 && mixed_l > 100);
}

/* LBS and DQS on random rigid poses (binds rigid or uniformly scaled, so T_j is
 * rigid): skin = M_j B_j^-1 (1e-12 relative), scale = identity, DQS rigid =
 * skin (1e-12), LBS rigid = identity; build_from_globals gives the same
 * (bit-identical for LBS/DQS; DQS_SCALE global within 1e-9, with a rigid root
 * placement only when the binds are rigid: see palette.h). */
static void test_lbs_dqs(tu_rng *rng)
{
    static int32_t parents[MAXJ];
    static sinew_transform rest[MAXJ], pose[MAXJ];
    static sinew_mat4 scratch[3 * MAXJ], glob[MAXJ];
    static sinew_palette_joint pa[MAXJ], pb[MAXJ];
    double eskin = 0, edq = 0, efg = 0;
    int lbs_rigid_id = 1, scale_id = 1, same = 1;
    for (int it = 0; it < 200; it++) {
        uint32_t n = 1 + tu_range(rng, MAXJ);
        random_parents(rng, n, parents);
        int bind_scale = it % 2 ? 2 : 0;
        for (uint32_t j = 0; j < n; j++) { rest[j] = random_rest(rng, bind_scale); pose[j] = random_pose(rng, &rest[j], 0); }
        sinew_skeleton *s = make_skeleton(n, parents, rest, NULL);
        if (!s) continue;
        sinew_transform wt = { tu_random_vec3(rng, -5, 5), tu_random_quat(rng), { 1, 1, 1 } };
        sinew_mat4 w = sinew_mat4_from_transform(&wt);
        TU_CHECK_OK(sinew_skeleton_fk(s, pose, &w, glob));
        for (int m = 0; m < 2; m++) {
            sinew_method method = m ? SINEW_METHOD_DQS : SINEW_METHOD_LBS;
            TU_CHECK_OK(sinew_palette_build(s, method, pose, &w, scratch, pa));
            TU_CHECK_OK(sinew_palette_build_from_globals(s, method, glob, pb));
            if (memcmp(pa, pb, n * sizeof *pa) != 0) same = 0;
            for (uint32_t j = 0; j < n; j++) {
                sinew_mat4 t = mul(glob[j], inv(*sinew_skeleton_bind_global(s, j)));
                eskin = fmax(eskin, rel(&t, &pa[j].skin));
                sinew_mat4 id = sinew_mat4_identity();
                if (rel(&id, &pa[j].scale) != 0) scale_id = 0;
                if (m) {
                    sinew_mat4 r = sinew_dq_to_mat4(pa[j].rigid);
                    edq = fmax(edq, rel(&t, &r));
                } else if (pa[j].rigid.real.w != 1 || pa[j].rigid.dual.w != 0 || pa[j].rigid.real.x != 0) {
                    lbs_rigid_id = 0;
                }
            }
        }
        /* DQS_SCALE (global) from model matrices, with scaled poses; with
         * non-uniformly scaled binds and no root placement */
        if (it % 4 == 1) {
            sinew_skeleton_destroy(s);
            for (uint32_t j = 0; j < n; j++) rest[j] = random_rest(rng, 1);
            s = make_skeleton(n, parents, rest, NULL);
            if (!s) continue;
            w = sinew_mat4_identity();
        }
        for (uint32_t j = 0; j < n; j++) pose[j] = random_pose(rng, &rest[j], 1);
        TU_CHECK_OK(sinew_skeleton_fk(s, pose, &w, glob));
        TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS_SCALE, pose, &w, scratch, pa));
        TU_CHECK_OK(sinew_palette_build_from_globals(s, SINEW_METHOD_DQS_SCALE, glob, pb));
        for (uint32_t j = 0; j < n; j++) {
            sinew_mat4 ra = sinew_dq_to_mat4(pa[j].rigid), rb = sinew_dq_to_mat4(pb[j].rigid);
            efg = fmax(efg, rel(&pa[j].skin, &pb[j].skin));
            efg = fmax(efg, rel(&pa[j].scale, &pb[j].scale));
            efg = fmax(efg, rel(&ra, &rb));
        }
        sinew_skeleton_destroy(s);
    }
    fprintf(stderr, "lbs/dqs: skin %.3g, dq %.3g, from_globals dqs-scale %.3g\n", eskin, edq, efg);
    TU_CHECK_NEAR(eskin, 0, 1e-12);
    TU_CHECK_NEAR(edq, 0, 1e-12);
    TU_CHECK_NEAR(efg, 0, 1e-9);
    TU_CHECK(lbs_rigid_id && scale_id && same);
}

/* A 4-joint chain along x, spacing 1; joint 1 scaled (1.5, 1, 1). Posed joint
 * position = X_j c_j. Tolerance 1e-12. */
static void test_chain_semantics(void)
{
    const int32_t parents[4] = { -1, 0, 1, 2 };
    sinew_transform rest[4], pose[4];
    for (int j = 0; j < 4; j++) {
        rest[j].translation = sinew_v3(j ? 1 : 0, 0, 0);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    memcpy(pose, rest, sizeof pose);
    pose[1].scale = sinew_v3(1.5, 1, 1);
    sinew_mat4 scratch[12];
    sinew_palette_joint p[4];
    sinew_vec3 pos[4];
    const bool flags_local[4] = { 1, 0, 1, 1 }, flags_global[4] = { 1, 1, 1, 1 };

    for (int mode = 0; mode < 4; mode++) {
        const bool *flags = mode == 2 ? flags_local : mode == 3 ? flags_global : NULL;
        sinew_skeleton *s = make_skeleton(4, parents, rest, flags);
        if (!s) return;
        sinew_method m = mode == 0 ? SINEW_METHOD_DQS_SCALE : mode == 1 ? SINEW_METHOD_DQS_SCALE_LOCAL : SINEW_METHOD_DQS_SCALE_MIXED;
        TU_CHECK_OK(sinew_palette_build(s, m, pose, NULL, scratch, p));
        for (int j = 0; j < 4; j++) pos[j] = sinew_mat4_transform_point(&p[j].skin, sinew_v3(j, 0, 0));
        int global_like = mode == 0 || mode == 3;
        TU_CHECK_NEAR(pos[1].x, 1, 1e-12);
        TU_CHECK_NEAR(pos[2].x, 2.5, 1e-12);              /* joint 1's own bone is stretched in both */
        if (global_like) {
            TU_CHECK_NEAR(pos[3].x, 4.0, 1e-12);          /* the next segment is scaled too */
            TU_CHECK_NEAR(p[2].skin.m[0][0], 1.5, 1e-12); /* and joint 2's skin carries the scale */
        } else {
            TU_CHECK_NEAR(pos[3].x - pos[2].x, 1.0, 1e-12); /* segment 2->3 keeps length 1 */
            TU_CHECK_NEAR(p[2].skin.m[0][0], 1.0, 1e-12);   /* joint 2's skin is a pure translation */
            TU_CHECK_NEAR(p[2].skin.m[3][0], 0.5, 1e-12);
            TU_CHECK_NEAR(p[3].skin.m[3][0], 0.5, 1e-12);
        }
        for (int j = 0; j < 4; j++) { TU_CHECK_NEAR(pos[j].y, 0, 1e-12); TU_CHECK_NEAR(pos[j].z, 0, 1e-12); }
        /* the scale stage of joint 1: x scaled 1.5 about the joint (S_1 maps 2 -> 2.5) */
        sinew_vec3 s1 = sinew_mat4_transform_point(&p[1].scale, sinew_v3(2, 0, 0));
        TU_CHECK_NEAR(s1.x, 2.5, 1e-12);
        sinew_skeleton_destroy(s);
    }
}

/* Plain DQS refuses scale, shear and mirror (orthonormality error > 1e-4 or
 * det < 0); a scale of 1 + 4e-5 (error ~8e-5) is accepted. DQS with scale
 * accepts all of them, including a zero scale (finite, R S = X within 1e-12). */
static void test_not_rigid(void)
{
    const int32_t parents[3] = { -1, 0, 1 };
    sinew_transform rest[3], pose[3];
    for (int j = 0; j < 3; j++) {
        rest[j].translation = sinew_v3(j ? 1 : 0, 0, 0);
        rest[j].rotation = sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), 0.3 * j);
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton *s = make_skeleton(3, parents, rest, NULL);
    if (!s) return;
    sinew_mat4 scratch[9];
    sinew_palette_joint p[3];
    memcpy(pose, rest, sizeof pose);
    TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS, pose, NULL, scratch, p));
    pose[1].scale = sinew_v3(1.3, 1, 1);
    TU_CHECK_RESULT(sinew_palette_build(s, SINEW_METHOD_DQS, pose, NULL, scratch, p), SINEW_ERROR_NOT_RIGID);
    pose[1].scale = sinew_v3(1 + 4e-5, 1, 1);
    TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_DQS, pose, NULL, scratch, p));
    pose[1].scale = sinew_v3(1 + 1e-4, 1, 1);
    TU_CHECK_RESULT(sinew_palette_build(s, SINEW_METHOD_DQS, pose, NULL, scratch, p), SINEW_ERROR_NOT_RIGID);
    pose[1].scale = sinew_v3(-1, 1, 1); /* orthonormal but mirrored */
    TU_CHECK_RESULT(sinew_palette_build(s, SINEW_METHOD_DQS, pose, NULL, scratch, p), SINEW_ERROR_NOT_RIGID);
    sinew_mat4 g[3];
    TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, g));
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_DQS, g, p), SINEW_ERROR_NOT_RIGID);
    TU_CHECK_OK(sinew_palette_build(s, SINEW_METHOD_LBS, pose, NULL, scratch, p));
    /* DQS with scale: mirror and zero scale are fine */
    double worst = 0;
    for (int z = 0; z < 2; z++) {
        pose[1].scale = z ? sinew_v3(0, 1, 1) : sinew_v3(-1, 1, 1);
        for (int m = SINEW_METHOD_DQS_SCALE; m <= SINEW_METHOD_DQS_SCALE_MIXED; m++) {
            TU_CHECK_OK(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p));
            for (int j = 0; j < 3; j++) {
                sinew_mat4 r = sinew_dq_to_mat4(p[j].rigid), rs = mul(r, p[j].scale);
                TU_CHECK(sinew_mat4_is_finite(&r) && sinew_mat4_is_finite(&p[j].scale));
                worst = fmax(worst, rel(&p[j].skin, &rs));
            }
        }
    }
    TU_CHECK_NEAR(worst, 0, 1e-12);
    sinew_skeleton_destroy(s);
}

/* Error paths: NaN/inf in a pose (each method) or root, NULLs, bad methods,
 * from_globals with local/mixed or NaN or a singular parent (DQS_SCALE). */
static void test_errors(void)
{
    const int32_t parents[2] = { -1, 0 };
    sinew_transform rest[2], pose[2];
    for (int j = 0; j < 2; j++) {
        rest[j].translation = sinew_v3(j, 0, 0);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton *s = make_skeleton(2, parents, rest, NULL);
    if (!s) return;
    sinew_mat4 scratch[6], g[2];
    sinew_palette_joint p[2];
    for (int m = 0; m < (int)SINEW_METHOD_COUNT; m++) {
        memcpy(pose, rest, sizeof pose);
        pose[1].rotation.z = NAN;
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p), SINEW_ERROR_NON_FINITE);
        memcpy(pose, rest, sizeof pose);
        pose[0].scale.y = INFINITY;
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p), SINEW_ERROR_NON_FINITE);
        memcpy(pose, rest, sizeof pose);
        pose[1].translation.x = -NAN;
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p), SINEW_ERROR_NON_FINITE);
        memcpy(pose, rest, sizeof pose);
        pose[0].scale = sinew_v3(1e300, 1e300, 1e300); /* overflows where scale propagates */
        pose[1].scale = sinew_v3(1e300, 1e300, 1e300);
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p),
                        m == SINEW_METHOD_DQS_SCALE_LOCAL || m == SINEW_METHOD_COR_SCALE_LOCAL ? SINEW_OK
                                                                                              : SINEW_ERROR_NON_FINITE);
        memcpy(pose, rest, sizeof pose);
        sinew_mat4 root = sinew_mat4_identity();
        root.m[0][0] = NAN;
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, &root, scratch, p), SINEW_ERROR_NON_FINITE);
        TU_CHECK_RESULT(sinew_palette_build(NULL, (sinew_method)m, pose, NULL, scratch, p), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, NULL, NULL, scratch, p), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, NULL, p), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_OK(sinew_palette_build(s, (sinew_method)m, pose, NULL, scratch, p));
        for (int j = 0; j < 2; j++) {
            /* the rest pose gives identity skin matrices */
            sinew_mat4 id = sinew_mat4_identity();
            TU_CHECK_NEAR(rel(&id, &p[j].skin), 0, 1e-15);
        }
    }
    memcpy(pose, rest, sizeof pose);
    TU_CHECK_RESULT(sinew_palette_build(s, SINEW_METHOD_COUNT, pose, NULL, scratch, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build(s, (sinew_method)-1, pose, NULL, scratch, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, g));
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_DQS_SCALE_LOCAL, g, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_DQS_SCALE_MIXED, g, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_COUNT, g, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build_from_globals(NULL, SINEW_METHOD_LBS, g, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_LBS, NULL, p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_LBS, g, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    g[1].m[3][2] = NAN;
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_LBS, g, p), SINEW_ERROR_NON_FINITE);
    TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, g));
    g[0].m[1][0] = g[0].m[1][1] = g[0].m[1][2] = 0; /* a zero axis on the parent */
    TU_CHECK_OK(sinew_palette_build_from_globals(s, SINEW_METHOD_LBS, g, p));
    TU_CHECK_RESULT(sinew_palette_build_from_globals(s, SINEW_METHOD_DQS_SCALE, g, p), SINEW_ERROR_SINGULAR);
    sinew_skeleton_destroy(s);
}

/* Packing: strides, and the float layout of every method, with and without
 * the bulge flag (values are distinct per slot so any misplacement shows). */
static void test_pack(void)
{
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_LBS, 0) == 3);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS, 0) == 2);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE, 0) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE_LOCAL, 0) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE_MIXED, 0) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_LBS, SINEW_SKIN_BULGE_CORRECTION) == 7); /* 6, padded (odd) */
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE_MIXED, SINEW_SKIN_BULGE_CORRECTION) == TU_PAL_MAX_STRIDE); /* 8, padded */
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_COR, 0) == 2 && sinew_palette_gpu_stride(SINEW_METHOD_COR_SCALE, 0) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_COR, SINEW_SKIN_BULGE_CORRECTION) == 5);
    TU_CHECK(sinew_palette_gpu_stride(SINEW_METHOD_COUNT, 0) == 0);
    TU_CHECK(SINEW_PALETTE_GPU_STRIDE_MAX == TU_PAL_MAX_STRIDE);

    sinew_palette_joint e[2];
    for (int j = 0; j < 2; j++) {
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                e[j].skin.m[c][r] = 100 * j + 10 * c + r;
                e[j].scale.m[c][r] = 1000 + 100 * j + 10 * c + r;
            }
        e[j].rigid.real = (sinew_quat){ 2000 + j, 2001 + j, 2002 + j, 2003 + j };
        e[j].rigid.dual = (sinew_quat){ 3000 + j, 3001 + j, 3002 + j, 3003 + j };
        e[j].seg_head = sinew_v3(4000 + j, 4001 + j, 4002 + j);
        e[j].seg_tail = sinew_v3(5000 + j, 5001 + j, 5002 + j);
    }
    float buf[2 * TU_PAL_MAX_STRIDE * 4 + 4];
    for (int m = 0; m < (int)SINEW_METHOD_COUNT; m++)
        for (int bulge = 0; bulge < 2; bulge++) {
            uint32_t flags = bulge ? SINEW_SKIN_BULGE_CORRECTION : 0;
            uint32_t stride = sinew_palette_gpu_stride((sinew_method)m, flags);
            for (size_t i = 0; i < sizeof buf / sizeof *buf; i++) buf[i] = -1;
            sinew_palette_pack((sinew_method)m, flags, e, 2, buf);
            TU_CHECK(buf[2 * stride * 4] == -1); /* nothing written past the end */
            for (int j = 0; j < 2; j++) {
                const float *d = buf + j * stride * 4;
                int slot = 0;
                if (m == SINEW_METHOD_LBS) {
                    for (int r = 0; r < 3; r++, slot++)
                        for (int c = 0; c < 4; c++) TU_CHECK(d[slot * 4 + c] == (float)(100 * j + 10 * c + r));
                } else {
                    if (m != SINEW_METHOD_DQS && m != SINEW_METHOD_COR) /* CoR: the dual quaternion only, as DQS */
                        for (int r = 0; r < 3; r++, slot++)
                            for (int c = 0; c < 4; c++) TU_CHECK(d[slot * 4 + c] == (float)(1000 + 100 * j + 10 * c + r));
                    for (int k = 0; k < 4; k++) TU_CHECK(d[slot * 4 + k] == (float)(2000 + j + k));
                    slot++;
                    for (int k = 0; k < 4; k++) TU_CHECK(d[slot * 4 + k] == (float)(3000 + j + k));
                    slot++;
                }
                if (bulge) {
                    for (int k = 0; k < 3; k++) TU_CHECK(d[slot * 4 + k] == (float)(4000 + j + k));
                    for (int k = 0; k < 3; k++) TU_CHECK(d[slot * 4 + 4 + k] == (float)(5000 + j + k));
                    /* the rest-space segment in the w's and the third slot: these skin and scale
                     * 3x3s are singular (columns in arithmetic progression): the marker; DQS and
                     * CoR map back by the (non-unit) DQ */
                    int rigid = m == SINEW_METHOD_DQS || m == SINEW_METHOD_COR;
                    static const int at[6] = { 3, 7, 8, 9, 10, 11 };
                    for (int k = 0; k < 6; k++) {
                        float x = d[slot * 4 + at[k]];
                        TU_CHECK(rigid ? isfinite(x) && fabsf(x) < BULGE_SINGULAR
                                       : x == BULGE_SINGULAR);
                    }
                    slot += 3;
                }
                if (slot + 1 == (int)stride) { /* the pad slot of an even entry: zeros */
                    TU_CHECK(stride % 2 == 1 && stride > 3);
                    for (int k = 0; k < 4; k++) TU_CHECK(d[slot * 4 + k] == 0.0f);
                    slot++;
                }
                TU_CHECK(slot == (int)stride);
            }
        }
}

/* The rest-space bulge segment (in the pack's bulge slots, sinew_layout.h; the kernels' g):
 * X^-1 of the posed segment, which is the bind segment itself; from sinew_palette_pack
 * (float64, mapped back) and from the float32 fast path (written directly), for every
 * method on poses with non-uniform and mirrored scales: equal to the bind segment
 * within 1e-5 x max(1, |segment|). A zero scale on a chain with identity bind
 * rotations (the skin 3x3 has an exact zero column, det 0): SINEW_PAL_BULGE_SINGULAR
 * from both, so the kernels use g = 0 as reference.c's rest_radial does. */
static void test_bulge_rest(tu_rng *rng)
{
    enum { N = 6 };
    const int32_t parents[N] = { -1, 0, 1, 2, 1, 4 };
    sinew_transform rest[N], pose[N];
    for (uint32_t j = 0; j < N; j++) {
        rest[j] = random_rest(rng, j & 1);
        if (j == 0) rest[j].translation = sinew_v3(0, 0, 0);
    }
    sinew_skeleton *s = make_skeleton(N, parents, rest, NULL);
    sinew_transform rest_id[N];
    for (uint32_t j = 0; j < N; j++) {
        rest_id[j].translation = sinew_v3(0, j ? 1.0 : 0.0, 0);
        rest_id[j].rotation = (sinew_quat){ 0, 0, 0, 1 };
        rest_id[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton *sid = make_skeleton(N, parents, rest_id, NULL);
    if (!s || !sid) return;
    sinew_mat4 mats[3 * N];
    sinew_palette_joint pal[N];
    float ref[N * TU_PAL_MAX_STRIDE * 4], fast[N * TU_PAL_MAX_STRIDE * 4];
    size_t sb = sinew_palette_scratch_bytes(N);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    double worst = 0;
    uint32_t checked = 0, zeroed = 0;
    for (int iter = 0; iter < 40; iter++) {
        const int singular = iter >= 30;
        const sinew_skeleton *sk = singular ? sid : s;
        for (uint32_t j = 0; j < N; j++) {
            pose[j] = random_pose(rng, singular ? &rest_id[j] : &rest[j], 1);
            if (!singular && j == 2 + (uint32_t)(iter % 3)) pose[j].scale.x = -pose[j].scale.x; /* mirrored */
        }
        if (singular) pose[4].scale = sinew_v3(0, 1.3, 0.8); /* joint 4 singular (5 below it too) */
        for (unsigned m = 0; m < SINEW_METHOD_COUNT; m++) {
            if (singular && m != SINEW_METHOD_LBS) continue;
            const uint32_t stride = sinew_palette_gpu_stride((sinew_method)m, SINEW_SKIN_BULGE_CORRECTION);
            const uint32_t base = m == SINEW_METHOD_LBS ? 3 : (m == SINEW_METHOD_DQS || m == SINEW_METHOD_COR) ? 2 : 5;
            (void)stride;
            const uint32_t off = 4 * base; /* the bulge part: (a, ra.x), (b, ra.y), (ra.z, rb); a pad slot may follow */
            static const int at[6] = { 3, 7, 8, 9, 10, 11 };
            sinew_result r = sinew_palette_build(sk, (sinew_method)m, pose, NULL, mats, pal);
            if (r == SINEW_ERROR_NOT_RIGID) continue;
            TU_CHECK_OK(r);
            TU_CHECK_OK(sinew_palette_pack((sinew_method)m, SINEW_SKIN_BULGE_CORRECTION, pal, N, ref));
            sinew_palette_character ch = { 0 };
            ch.skeleton = sk;
            ch.method = (sinew_method)m;
            ch.flags = SINEW_SKIN_BULGE_CORRECTION;
            ch.pose = pose;
            TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, fast));
            for (uint32_t j = 0; j < N; j++) {
                sinew_vec3 h, t;
                sinew_skeleton_bone_segment(sk, j, &h, &t);
                const double want[6] = { h.x, h.y, h.z, t.x, t.y, t.z };
                const float *a = ref + (size_t)j * stride * 4 + off, *b = fast + (size_t)j * stride * 4 + off;
                if (singular && j == 5) continue; /* rank 2 up to rounding: det tiny, not 0 (ill-defined) */
                if (singular && j == 4) {
                    for (int k = 0; k < 6; k++)
                        TU_CHECK_MSG(a[at[k]] == BULGE_SINGULAR && b[at[k]] == BULGE_SINGULAR,
                                     "%s joint %u (singular): rest coordinate %d = %g (pack), %g (fast)",
                                     sinew_method_name((sinew_method)m), j, k, a[at[k]], b[at[k]]);
                    zeroed++;
                    continue;
                }
                double mag = fmax(1, fmax(sinew_v3_length(h), sinew_v3_length(t))), e = 0;
                for (int k = 0; k < 6; k++)
                    e = fmax(e, fmax(fabs(a[at[k]] - want[k]), fabs(b[at[k]] - want[k])) / mag);
                TU_CHECK_MSG(e <= 1e-5, "%s joint %u: rest segment off by %.3g (relative)", sinew_method_name((sinew_method)m), j, e);
                worst = fmax(worst, e);
                checked++;
            }
        }
    }
    fprintf(stderr, "bulge rest segments: %u checked, worst relative difference %.3g (tolerance 1e-5); %u singular marked\n",
            checked, worst, zeroed);
    TU_CHECK(checked > 400 && zeroed >= 10);
    free(scratch);
    sinew_skeleton_destroy(s);
    sinew_skeleton_destroy(sid);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5eed0003ull);
    test_scale_modes(&rng);
    test_lbs_dqs(&rng);
    test_chain_semantics();
    test_not_rigid();
    test_errors();
    test_pack();
    test_bulge_rest(&rng);
    return tu_finish("test_palette");
}
