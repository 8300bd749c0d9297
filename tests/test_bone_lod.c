/* Bone LOD (sinew_palette_character.joint_lod / sinew_crowd_character.joint_lod):
 * joints at depth >= D keep their rest local transform and are not sampled.
 * On random skeletons (up to 90 joints, random forests), random clips keying
 * every joint (translation, rotation, positive scales 0.7..1.4 on some), every
 * method, every cut-off D from 1 to beyond the deepest joint:
 *  - bit-identical to the full evaluation (joint_lod 0) of the same clip with
 *    the cut joints' channels removed (their rest pose), and of a pose whose
 *    cut joints are at rest;
 *  - against the float64 reference (sinew_clip_sample, cut joints set to the
 *    rest pose, sinew_palette_build + sinew_palette_pack): per joint, relative
 *    to its largest |value| (at least 1), within TOL x (1 + depth / 16), the
 *    tolerance of test_palette_fast for well-conditioned characters;
 *  - blended characters (two layers) against the float64 blend reference with
 *    the cut joints set to rest, same tolerance;
 *  - D beyond the deepest joint: bit-identical to no LOD; the crowd's
 *    sinew_crowd_build_palettes with joint_lod bit-identical to the palette job's. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <sinew/palette_job.h>
#include <stdlib.h>
#include <string.h>

#define MAXJ 90
#define KEYS 5
#define TOL 2e-5

static uint32_t depth_of(const sinew_skeleton *s, uint32_t j)
{
    uint32_t d = 0;
    for (int32_t p = sinew_skeleton_parent(s, j); p >= 0; p = sinew_skeleton_parent(s, (uint32_t)p)) d++;
    return d;
}

/* every joint keyed; max_depth: only joints of depth < max_depth get channels
 * (the "cut joints at rest" clip), keys identical to the full clip's */
static sinew_clip *make_clip(uint64_t seed, const sinew_skeleton *s, uint32_t n, int scaled, uint32_t max_depth)
{
    tu_rng r = { seed | 1u }; /* not tu_rng_seeded: the same keys for the full and the cut clip */
    static sinew_channel_desc ch[MAXJ];
    static sinew_vec3_key tk[MAXJ][KEYS], sk[MAXJ][KEYS];
    static sinew_quat_key rk[MAXJ][KEYS];
    const sinew_transform *rest = sinew_skeleton_rest_pose(s);
    uint32_t nch = 0;
    memset(ch, 0, sizeof ch);
    for (uint32_t j = 0; j < n; j++) {
        for (uint32_t k = 0; k < KEYS; k++) {
            tk[j][k].time = rk[j][k].time = sk[j][k].time = k;
            tk[j][k].value = sinew_v3_add(rest[j].translation, tu_random_vec3(&r, -0.2, 0.2));
            rk[j][k].value = sinew_quat_mul(rest[j].rotation, tu_quat_axis_angle_random(&r, tu_uniform(&r, 0, 1.0)));
            sk[j][k].value = sinew_v3(tu_uniform(&r, 0.7, 1.4), tu_uniform(&r, 0.7, 1.4), tu_uniform(&r, 0.7, 1.4));
        }
        int has_scale = scaled && tu_range(&r, 3) == 0;
        if (depth_of(s, j) >= max_depth) continue;
        sinew_channel_desc *c = &ch[nch++];
        c->joint = j;
        c->translation_count = c->rotation_count = KEYS;
        c->translations = tk[j];
        c->rotations = rk[j];
        c->scale_count = has_scale ? KEYS : 0;
        c->scales = sk[j];
    }
    sinew_clip_desc d = { 0 };
    d.joint_count = n;
    d.ticks_per_second = 2;
    d.duration = KEYS - 1;
    d.channel_count = nch;
    d.channels = ch;
    sinew_clip *clip = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &clip));
    return clip;
}

static double compare(const sinew_skeleton *s, uint32_t n, uint32_t stride, const float *ref, const float *fast)
{
    double worst = 0;
    for (uint32_t j = 0; j < n; j++) {
        double big = 1, e = 0;
        for (uint32_t k = 0; k < 4 * stride; k++) big = fmax(big, fabs(ref[4 * stride * j + k]));
        for (uint32_t k = 0; k < 4 * stride; k++) {
            double d = fabs((double)ref[4 * stride * j + k] - fast[4 * stride * j + k]);
            e = isnan(d) ? INFINITY : fmax(e, d);
        }
        e /= big;
        double tol = TOL * (1 + depth_of(s, j) / 16.0);
        TU_CHECK_MSG(e <= tol, "joint %u (depth %u): relative difference %.3g > %.3g", j, depth_of(s, j), e, tol);
        worst = fmax(worst, e / (1 + depth_of(s, j) / 16.0));
    }
    return worst;
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xb0e10dull);
    size_t sb = sinew_palette_scratch_bytes(MAXJ);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    static float a[MAXJ * TU_PAL_MAX_STRIDE * 4], b[MAXJ * TU_PAL_MAX_STRIDE * 4], ref[MAXJ * TU_PAL_MAX_STRIDE * 4];
    static sinew_transform local[MAXJ], sc2[2 * MAXJ];
    static sinew_mat4 mats[8 * MAXJ];
    static sinew_palette_joint pj[MAXJ];
    TU_CHECK(sinew_palette_scratch_count(MAXJ) <= 8 * MAXJ);
    uint64_t exact = 0, against_ref = 0, blended = 0, cut_joints = 0;
    double worst = 0;
    sinew_crowd_desc cd = { 0 };
    cd.max_characters = 1;
    cd.max_joints = MAXJ;
    cd.threads = 1;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, NULL));
    for (int iter = 0; iter < 24 && crowd; iter++) {
        uint32_t n = 2 + tu_range(&r, MAXJ - 1);
        sinew_skeleton *s = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&r, n, NULL, &s));
        if (!s) continue;
        uint32_t maxd = 0;
        for (uint32_t j = 0; j < n; j++) maxd = depth_of(s, j) > maxd ? depth_of(s, j) : maxd;
        int scaled = iter % 2;
        uint64_t seed = tu_next(&r);
        sinew_clip *full = make_clip(seed, s, n, scaled, UINT32_MAX);
        sinew_clip *other = make_clip(seed ^ 0x5a5aull, s, n, scaled, UINT32_MAX);
        sinew_mat4 root = sinew_mat4_from_transform(&(sinew_transform){ tu_random_vec3(&r, -3, 3), tu_random_quat(&r), { 1, 1, 1 } });
        sinew_model_id model;
        sinew_crowd_model_desc md = { 0 };
        md.skeleton = s;
        TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &model, NULL));
        for (uint32_t D = 1; D <= maxd + 2; D++) {
            sinew_clip *cut = make_clip(seed, s, n, scaled, D);
            for (uint32_t j = 0; j < n; j++) cut_joints += D <= maxd && depth_of(s, j) >= D;
            for (unsigned m = 0; m < SINEW_METHOD_COUNT; m++) {
                const uint32_t stride = sinew_palette_gpu_stride((sinew_method)m, 0);
                sinew_palette_character ch = { 0 };
                ch.skeleton = s;
                ch.method = (sinew_method)m;
                ch.root = &root;
                ch.time = tu_uniform(&r, -5, 5);
                ch.clip = full;
                ch.joint_lod = D;
                for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) a[k] = b[k] = NAN;
                sinew_result ra = sinew_palette_build_f32(&ch, scratch, sb, a);
                /* the full evaluation of the clip whose cut joints have no keys */
                sinew_palette_character full_ch = ch;
                full_ch.clip = cut;
                full_ch.joint_lod = 0;
                sinew_result rb = sinew_palette_build_f32(&full_ch, scratch, sb, b);
                TU_CHECK_MSG(ra == rb, "n %u D %u %s: %s vs %s", n, D, sinew_method_name(ch.method),
                             sinew_result_string(ra), sinew_result_string(rb));
                if (ra != SINEW_OK || rb != SINEW_OK) continue;
                TU_CHECK_MSG(memcmp(a, b, sizeof(float) * 4 * stride * n) == 0,
                             "n %u D %u %s: bone LOD differs from the clip with the cut joints at rest", n, D,
                             sinew_method_name(ch.method));
                /* a pose whose cut joints are at rest; and D beyond the deepest joint = no LOD */
                TU_CHECK_OK(sinew_clip_sample(full, s, ch.time, ch.wrap, local));
                sinew_palette_character pose_ch = ch;
                pose_ch.clip = NULL;
                pose_ch.pose = local;
                TU_CHECK_OK(sinew_palette_build_f32(&pose_ch, scratch, sb, b));
                const sinew_transform *rest = sinew_skeleton_rest_pose(s);
                for (uint32_t j = 0; j < n; j++)
                    if (depth_of(s, j) >= D) local[j] = rest[j];
                pose_ch.joint_lod = 0;
                static float c2[MAXJ * TU_PAL_MAX_STRIDE * 4];
                TU_CHECK_OK(sinew_palette_build_f32(&pose_ch, scratch, sb, c2));
                TU_CHECK(memcmp(b, c2, sizeof(float) * 4 * stride * n) == 0);
                if (D > maxd) {
                    ch.joint_lod = 0;
                    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, b));
                    TU_CHECK(memcmp(a, b, sizeof(float) * 4 * stride * n) == 0);
                    ch.joint_lod = D;
                }
                exact++;
                /* float64 reference: the clip sampled in float64, cut joints at rest */
                TU_CHECK_OK(sinew_clip_sample(full, s, ch.time, ch.wrap, local));
                for (uint32_t j = 0; j < n; j++)
                    if (depth_of(s, j) >= D) local[j] = rest[j];
                TU_CHECK_OK(sinew_palette_build(s, ch.method, local, &root, mats, pj));
                TU_CHECK_OK(sinew_palette_pack(ch.method, 0, pj, n, ref));
                worst = fmax(worst, compare(s, n, stride, ref, a));
                against_ref++;
                /* blended: two layers, cut joints at rest after the blend */
                sinew_anim_layer ls[2] = { { 0 } };
                ls[0].clip = full, ls[0].time = ch.time, ls[0].weight = tu_uniform(&r, 0.2, 1);
                ls[1].clip = other, ls[1].time = ch.time * 0.7, ls[1].weight = tu_uniform(&r, 0.2, 1);
                sinew_palette_character bl = ch;
                bl.clip = NULL;
                bl.layers = ls;
                bl.layer_count = 2;
                sinew_result fa = sinew_palette_build_f32(&bl, scratch, sb, a);
                TU_CHECK_OK(sinew_reference_blend_pose(s, ls, 2, sc2, local));
                for (uint32_t j = 0; j < n; j++)
                    if (depth_of(s, j) >= D) local[j] = rest[j];
                sinew_result fr = sinew_palette_build(s, ch.method, local, &root, mats, pj);
                TU_CHECK(fa == fr); /* plain DQS / CoR: both refuse a scaled blend (NOT_RIGID) */
                if (fa == SINEW_OK && fr == SINEW_OK) {
                    TU_CHECK_OK(sinew_palette_pack(ch.method, 0, pj, n, ref));
                    worst = fmax(worst, compare(s, n, stride, ref, a));
                    blended++;
                }
                /* the crowd passes joint_lod to the same path */
                if (m == SINEW_METHOD_DQS) {
                    sinew_crowd_character cc = { 0 };
                    cc.model = model;
                    cc.method = ch.method;
                    cc.root = &root;
                    cc.clip = full;
                    cc.time = ch.time;
                    cc.joint_lod = D;
                    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, a));
                    TU_CHECK_OK(sinew_crowd_build_palettes(crowd, &cc, 1, b, MAXJ * TU_PAL_MAX_STRIDE, NULL, NULL));
                    TU_CHECK(memcmp(a, b, sizeof(float) * 4 * stride * n) == 0);
                }
            }
            sinew_clip_destroy(cut);
        }
        sinew_crowd_remove_model(crowd, model, NULL);
        sinew_clip_destroy(full);
        sinew_clip_destroy(other);
        sinew_skeleton_destroy(s);
    }
    TU_CHECK(exact > 300 && cut_joints > 1000);
    fprintf(stderr, "%llu palettes bit-identical to the evaluation with cut joints at rest (%llu cut joints over the "
            "cut-offs); %llu clip and %llu blended palettes against the float64 reference: worst %.3g x (1 + depth / 16) "
            "(tolerance %g)\n", (unsigned long long)exact, (unsigned long long)cut_joints,
            (unsigned long long)against_ref, (unsigned long long)blended, worst, TOL);
    sinew_crowd_destroy(crowd);
    free(scratch);
    return tu_finish("test_bone_lod");
}
