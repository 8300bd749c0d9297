/* Root motion (anim.h, "Root motion"): extraction against the analytic motion
 * of a walking, turning root; the in-place pose; deltas across loops against
 * explicit composition of whole cycles (float64 matrices); per-frame
 * accumulation of deltas against one delta; the fast path's in-place layers
 * against the float64 reference; errors.
 * Tolerances: 1e-9 for float64 results (rounding only: the test motion is
 * linear in time between the track's samples, so its linear interpolation is
 * exact); the float32 palette as test_blend (4e-5 x (1 + depth / 16)). */
#include "testutil.h"
#include <sinew/palette_job.h>
#include <stdlib.h>
#include <string.h>

#define TOL64 1e-9

enum { N = 6, KEYS = 9 };

/* Joint 0: translation (v t, h + 0.2 t, 0.5 v t) and rotation Ry(w t) Rx(0.3)
 * keyed at integer ticks (linear; rotation keys w apart, so slerp is exact);
 * other joints: small random keyed rotations. ticks_per_second 4. */
static sinew_clip *walk_clip(tu_rng *r, const sinew_skeleton *skel, double v, double w, double h)
{
    (void)skel;
    sinew_channel_desc ch[N];
    sinew_vec3_key tk[N][KEYS];
    sinew_quat_key rk[N][KEYS];
    memset(ch, 0, sizeof ch);
    for (uint32_t j = 0; j < N; j++) {
        ch[j].joint = j;
        for (uint32_t k = 0; k < KEYS; k++) {
            tk[j][k].time = rk[j][k].time = k;
            if (j == 0) {
                tk[j][k].value = sinew_v3(v * k, h + 0.2 * k, 0.5 * v * k);
                rk[j][k].value = sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), w * k),
                                                sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), 0.3));
            } else {
                tk[j][k].value = sinew_v3(0, 0.5, 0);
                rk[j][k].value = tu_quat_axis_angle_random(r, tu_uniform(r, 0, 0.5));
            }
        }
        ch[j].translation_count = ch[j].rotation_count = KEYS;
        ch[j].translations = tk[j];
        ch[j].rotations = rk[j];
    }
    sinew_clip_desc d = { 0 };
    d.joint_count = N;
    d.ticks_per_second = 4;
    d.channel_count = N;
    d.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    return c;
}

static double mat_diff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) e = fmax(e, fabs(a->m[i][j] - b->m[i][j]));
    return e;
}

static sinew_mat4 planar_mat(double psi, sinew_vec3 d)
{
    sinew_transform t = { d, sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), psi), { 1, 1, 1 } };
    return sinew_mat4_from_transform(&t);
}

/* world = world x delta, as a crowd's caller moves a character's root */
static void apply(const sinew_transform *delta, sinew_mat4 *world)
{
    sinew_mat4 m = sinew_mat4_from_transform(delta);
    *world = sinew_mat4_mul(world, &m);
}

static void test_walk(tu_rng *r)
{
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, N, NULL, &skel));
    const double v = 0.7, w = 0.25, h = 1.1, tps = 4, D = (KEYS - 1) / tps;
    sinew_clip *clip = walk_clip(r, skel, v, w, h);
    sinew_root_motion_desc rd = { 0 };
    rd.clip = clip;
    rd.skeleton = skel;
    rd.samples_per_second = 8; /* the keys fall on samples: linear in between, exact */
    sinew_root_motion *rm = NULL;
    TU_CHECK_OK(sinew_root_motion_create(&rd, &rm));
    TU_CHECK(sinew_root_motion_joint(rm) == 0);
    /* W(t): psi = w ticks, d = planar position (start at the origin) */
    for (int k = 0; k < 20; k++) {
        double t = tu_uniform(r, 0, D), ticks = t * tps;
        sinew_transform W;
        TU_CHECK_OK(sinew_root_motion_sample(rm, t, SINEW_WRAP_CLAMP, &W));
        sinew_mat4 got = sinew_mat4_from_transform(&W), want = planar_mat(w * ticks, sinew_v3(v * ticks, 0, 0.5 * v * ticks));
        TU_CHECK_NEAR(mat_diff(&got, &want), 0, TOL64);
        /* the in-place pose (reference blend with the root motion): heading and plane position of t = 0 */
        sinew_anim_layer l = { 0 };
        l.clip = clip; l.time = t; l.weight = 1; l.wrap = SINEW_WRAP_CLAMP; l.root_motion = rm;
        sinew_transform pose[N], sc[2 * N];
        TU_CHECK_OK(sinew_reference_blend_pose(skel, &l, 1, sc, pose));
        TU_CHECK_NEAR(pose[0].translation.x, 0, TOL64);
        TU_CHECK_NEAR(pose[0].translation.z, 0, TOL64);
        TU_CHECK_NEAR(pose[0].translation.y, h + 0.2 * ticks, TOL64); /* vertical motion stays in the pose */
        sinew_quat q0 = sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), 0.3);
        TU_CHECK_NEAR(fabs(pose[0].rotation.x * q0.x + pose[0].rotation.y * q0.y + pose[0].rotation.z * q0.z +
                           pose[0].rotation.w * q0.w), 1, TOL64);
    }
    /* deltas across loops: A(t) = E^c W(t - c D) by explicit composition */
    sinew_transform E;
    TU_CHECK_OK(sinew_root_motion_sample(rm, D, SINEW_WRAP_CLAMP, &E));
    sinew_mat4 Em = sinew_mat4_from_transform(&E);
    for (int k = 0; k < 10; k++) {
        double t1 = tu_uniform(r, 0, 5 * D);
        int c = (int)floor(t1 / D);
        sinew_mat4 A = sinew_mat4_identity();
        for (int i = 0; i < c; i++) A = sinew_mat4_mul(&A, &Em);
        sinew_transform Wf, delta;
        TU_CHECK_OK(sinew_root_motion_sample(rm, t1 - c * D, SINEW_WRAP_CLAMP, &Wf));
        sinew_mat4 Wm = sinew_mat4_from_transform(&Wf);
        A = sinew_mat4_mul(&A, &Wm);
        TU_CHECK_OK(sinew_root_motion_delta(rm, 0, t1, SINEW_WRAP_LOOP, &delta));
        sinew_mat4 got = sinew_mat4_from_transform(&delta);
        TU_CHECK_NEAR(mat_diff(&got, &A), 0, TOL64 * 10);
        /* clamped: no motion past the end */
        TU_CHECK_OK(sinew_root_motion_delta(rm, 0, t1 + D, SINEW_WRAP_CLAMP, &delta));
        got = sinew_mat4_from_transform(&delta);
        TU_CHECK_NEAR(mat_diff(&got, &Em), 0, TOL64);
    }
    /* a character walking frame by frame over several loops: world x delta per
     * frame equals one delta over the whole time, and each frame's world x the
     * in-place root equals where the clip's own root would be on that loop */
    sinew_mat4 world = sinew_mat4_identity();
    double t = 0.3, dt = 1.0 / 60;
    sinew_transform d0;
    TU_CHECK_OK(sinew_root_motion_delta(rm, 0, t, SINEW_WRAP_LOOP, &d0));
    apply(&d0, &world);
    for (int f = 0; f < 600; f++) {
        sinew_transform d;
        TU_CHECK_OK(sinew_root_motion_delta(rm, t, t + dt, SINEW_WRAP_LOOP, &d));
        apply(&d, &world);
        t += dt;
    }
    sinew_transform whole;
    TU_CHECK_OK(sinew_root_motion_delta(rm, 0, t, SINEW_WRAP_LOOP, &whole));
    sinew_mat4 wm = sinew_mat4_from_transform(&whole);
    TU_CHECK_NEAR(mat_diff(&world, &wm), 0, 1e-8);
    TU_CHECK(t > 4 * D); /* several loops */
    /* the fast path plays the layer in place too */
    sinew_anim_layer l = { 0 };
    l.clip = clip; l.time = 1.3; l.weight = 1; l.root_motion = rm;
    sinew_palette_character pc = { 0 };
    pc.skeleton = skel;
    pc.method = SINEW_METHOD_LBS;
    pc.layers = &l;
    pc.layer_count = 1;
    size_t sb = sinew_palette_scratch_bytes(N);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    float fast[N * 12], ref[N * 12];
    TU_CHECK_OK(sinew_palette_build_f32(&pc, scratch, sb, fast));
    sinew_transform pose[N], sc[2 * N];
    sinew_mat4 mats[64];
    sinew_palette_joint pal[N];
    TU_CHECK(sinew_palette_scratch_count(N) <= 64);
    TU_CHECK_OK(sinew_reference_blend_pose(skel, &l, 1, sc, pose));
    TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_LBS, pose, NULL, mats, pal));
    TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_LBS, 0, pal, N, ref));
    double e = 0;
    for (uint32_t i = 0; i < N * 12; i++) e = fmax(e, fabs((double)fast[i] - ref[i]) / fmax(1, fabs(ref[i])));
    TU_CHECK_MSG(e <= 4e-5 * (1 + N / 16.0), "in-place fast vs reference: %.3g", e);
    /* errors */
    sinew_clip *other = walk_clip(r, skel, 1, 0, 0);
    l.clip = other; /* root motion of another clip */
    TU_CHECK_RESULT(sinew_palette_build_f32(&pc, scratch, sb, fast), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_anim_layers_validate(&l, 1, N), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_root_motion *bad = NULL;
    sinew_root_motion_desc e1 = rd;
    e1.joint = N;
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_INVALID_ARGUMENT);
    e1 = rd; e1.flags = 1u << 5;
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_INVALID_ARGUMENT);
    e1 = rd; e1.up = sinew_v3(NAN, 1, 0);
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_NON_FINITE);
    e1 = rd; e1.samples_per_second = -1;
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_INVALID_ARGUMENT);
    e1 = rd; e1.clip = NULL;
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(bad == NULL);
    sinew_transform tr;
    TU_CHECK_RESULT(sinew_root_motion_delta(rm, 0, INFINITY, SINEW_WRAP_LOOP, &tr), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_root_motion_delta(rm, 0, 1e300, SINEW_WRAP_LOOP, &tr), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_root_motion_sample(rm, NAN, SINEW_WRAP_LOOP, &tr), SINEW_ERROR_NON_FINITE);
    /* a non-root joint */
    int32_t par[3] = { -1, 0, 1 };
    sinew_transform rest3[3];
    for (int j = 0; j < 3; j++) rest3[j] = (sinew_transform){ { 0, 0.5, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = 3;
    sd.parents = par;
    sd.rest_local = rest3;
    sinew_skeleton *chain = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&sd, &chain));
    sinew_clip_desc cd = { 0 };
    cd.joint_count = 3;
    sinew_clip *empty = NULL;
    TU_CHECK_OK(sinew_clip_create(&cd, &empty));
    e1 = rd; e1.clip = empty; e1.skeleton = chain; e1.joint = 1;
    TU_CHECK_RESULT(sinew_root_motion_create(&e1, &bad), SINEW_ERROR_INVALID_ARGUMENT);
    e1.joint = 0; /* an empty clip: no motion */
    TU_CHECK_OK(sinew_root_motion_create(&e1, &bad));
    TU_CHECK_OK(sinew_root_motion_delta(bad, 0, 3, SINEW_WRAP_LOOP, &tr));
    TU_CHECK_NEAR(sinew_v3_length(tr.translation), 0, 0);
    sinew_root_motion_destroy(bad);
    sinew_clip_destroy(empty);
    sinew_skeleton_destroy(chain);
    sinew_clip_destroy(other);
    free(scratch);
    sinew_root_motion_destroy(rm);
    sinew_clip_destroy(clip);
    sinew_skeleton_destroy(skel);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x2007ull);
    test_walk(&r);
    return tu_finish("test_root_motion");
}
