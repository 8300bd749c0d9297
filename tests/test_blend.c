/* Blended and layered clips (anim.h, "Blending"):
 *  - the float32 production path (sinew_palette_build_f32 with layers) against
 *    the float64 reference (sinew_reference_blend_pose + sinew_palette_build +
 *    sinew_palette_pack) on random skeletons of 1..64 joints, random clips in all
 *    three interpolation modes, 1..6 random layers (blend and additive, random
 *    weights including 0, random masks including exact 0 and 1, sync, fades,
 *    references at a time or the rest pose, layers played in place with root
 *    motion of random axes and flags); LBS with scale keys, DQS without;
 *  - properties of the rules on the reference: hemisphere alignment (a clip and
 *    the same clip with every rotation key negated blend to that clip), crossfade
 *    ends, sync, an additive layer at its own reference adds nothing, a single
 *    layer of weight 1 is the plain clip;
 *  - bit-identical output for any split of a job over ranges and threads;
 *  - per-frame errors; the morph-weight blend (sinew_clip_blend_weights) against
 *    the rule written out per slot.
 *
 * Tolerance of the palette comparison, per joint on the packed floats relative
 * to the joint's largest |value| (at least 1): TOL = 4e-5 x (1 + depth / 16),
 * twice the plain path's (test_palette_fast): the blend adds float32 rounding of
 * the weighted sums, one normalization and, per additive layer, two quaternion
 * products to each local pose (seen up to 6.3e-6 over 60 seeds of 288 cases each).
 * The reference properties hold to 1e-12 (float64 rounding only). */
#include "testutil.h"
#include <sinew/palette_job.h>
#include <sinew/threadpool.h>
#include <stdlib.h>
#include <string.h>

#define TOL 4e-5
#define TOL_REF 1e-12

enum { MAXK = 10, MAXN = 64, NCLIPS = 5 };

/* A random clip: each joint animated with probability 3/4 (else the rest pose
 * shows through), 1..MAXK keys per track, random interpolation modes; rotations
 * near the rest rotation (within about 1.5 rad of it) so blends of different clips
 * stay away from the hemisphere tie; negate: every rotation key negated (the same
 * rotations). Scale keys in [0.7, 1.4] when scaled. weights: slots with tracks. */
static sinew_clip *make_clip(tu_rng *r, uint32_t n, const sinew_transform *rest, int scaled, uint64_t seed, int negate,
                             uint32_t weight_count)
{
    tu_rng rr = { seed };
    (void)r;
    sinew_channel_desc *ch = (sinew_channel_desc *)calloc(n, sizeof *ch);
    sinew_vec3_key *tk = (sinew_vec3_key *)malloc((size_t)n * MAXK * sizeof *tk);
    sinew_vec3_key *sk = (sinew_vec3_key *)malloc((size_t)n * MAXK * sizeof *sk);
    sinew_quat_key *rk = (sinew_quat_key *)malloc((size_t)n * MAXK * sizeof *rk);
    sinew_vec3 *tt = (sinew_vec3 *)malloc((size_t)n * 2 * MAXK * sizeof *tt);
    sinew_vec3 *st = (sinew_vec3 *)malloc((size_t)n * 2 * MAXK * sizeof *st);
    sinew_quat *rt = (sinew_quat *)malloc((size_t)n * 2 * MAXK * sizeof *rt);
    uint32_t nch = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (tu_range(&rr, 4) == 0) continue;
        sinew_channel_desc *c = &ch[nch++];
        c->joint = j;
        uint32_t nk = 1 + tu_range(&rr, MAXK);
        sinew_vec3_key *t = tk + (size_t)j * MAXK, *s = sk + (size_t)j * MAXK;
        sinew_quat_key *q = rk + (size_t)j * MAXK;
        for (uint32_t k = 0; k < nk; k++) {
            double time = 3.0 * k / MAXK;
            t[k].time = s[k].time = q[k].time = time;
            t[k].value = sinew_v3_add(rest[j].translation, tu_random_vec3(&rr, -0.3, 0.3));
            q[k].value = sinew_quat_mul(rest[j].rotation, tu_quat_axis_angle_random(&rr, tu_uniform(&rr, 0, 0.75)));
            if (negate) { q[k].value.x *= -1; q[k].value.y *= -1; q[k].value.z *= -1; q[k].value.w *= -1; }
            s[k].value = tu_random_vec3(&rr, 0.7, 1.4);
        }
        for (uint32_t k = 0; k < 2 * MAXK; k++) {
            tt[(size_t)j * 2 * MAXK + k] = tu_random_vec3(&rr, -0.3, 0.3);
            st[(size_t)j * 2 * MAXK + k] = tu_random_vec3(&rr, -0.1, 0.1);
            sinew_quat e = { tu_uniform(&rr, -0.1, 0.1), tu_uniform(&rr, -0.1, 0.1), tu_uniform(&rr, -0.1, 0.1),
                             tu_uniform(&rr, -0.1, 0.1) };
            if (negate) { e.x = -e.x; e.y = -e.y; e.z = -e.z; e.w = -e.w; }
            rt[(size_t)j * 2 * MAXK + k] = e;
        }
        c->translation_count = nk; c->translations = t;
        c->rotation_count = nk; c->rotations = q;
        c->scale_count = scaled ? nk : 0; c->scales = s;
        c->translation_interpolation = (sinew_interpolation)tu_range(&rr, 3);
        c->rotation_interpolation = (sinew_interpolation)tu_range(&rr, 3);
        c->scale_interpolation = (sinew_interpolation)tu_range(&rr, 3);
        c->translation_tangents = tt + (size_t)j * 2 * MAXK;
        c->rotation_tangents = rt + (size_t)j * 2 * MAXK;
        c->scale_tangents = st + (size_t)j * 2 * MAXK;
    }
    double wt[4] = { 0, 1, 2, 3 }, wv[4 * 3];
    for (int k = 0; k < 12; k++) wv[k] = tu_uniform(&rr, -0.5, 1.5);
    sinew_weight_track_desc wtr = { 0 };
    wtr.first_weight = 1;
    wtr.width = weight_count > 1 ? weight_count - 1 : 0;
    if (wtr.width > 3) wtr.width = 3;
    wtr.key_count = 4;
    wtr.times = wt;
    wtr.values = wv;
    sinew_clip_desc d = { 0 };
    d.joint_count = n;
    d.ticks_per_second = tu_range(&rr, 2) ? 1 : 10;
    d.duration = 3.0;
    d.channel_count = nch;
    d.channels = ch;
    d.weight_count = weight_count;
    d.weight_track_count = wtr.width ? 1 : 0;
    d.weight_tracks = &wtr;
    sinew_clip *clip = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &clip));
    free(ch); free(tk); free(sk); free(rk); free(tt); free(st); free(rt);
    return clip;
}

static uint32_t depth_of(const sinew_skeleton *s, uint32_t j)
{
    uint32_t d = 0;
    for (int32_t p = sinew_skeleton_parent(s, j); p >= 0; p = sinew_skeleton_parent(s, (uint32_t)p)) d++;
    return d;
}

/* Random layers over the clips; masks from mask_pool (NCLIPS masks of n). */
static uint32_t random_layers(tu_rng *r, sinew_clip *const *clips, sinew_root_motion *const *rms,
                              const float *mask_pool, uint32_t n, sinew_anim_layer *l)
{
    uint32_t count = 1 + tu_range(r, 6);
    for (uint32_t i = 0; i < count; i++) {
        memset(&l[i], 0, sizeof l[i]);
        uint32_t ci = tu_range(r, NCLIPS);
        l[i].clip = tu_range(r, 8) == 0 ? NULL : clips[ci];
        if (l[i].clip && tu_range(r, 3) == 0) l[i].root_motion = rms[ci]; /* played in place */
        l[i].time = tu_uniform(r, -2, 6);
        l[i].weight = tu_range(r, 6) == 0 ? 0.0 : tu_uniform(r, 0, 1.5);
        l[i].wrap = (sinew_wrap)tu_range(r, 2);
        if (tu_range(r, 3) == 0) l[i].flags |= SINEW_LAYER_ADDITIVE;
        if (tu_range(r, 3) == 0) { l[i].flags |= SINEW_LAYER_SYNC; l[i].time = tu_uniform(r, -1, 2); }
        if (tu_range(r, 3) == 0) {
            l[i].fade_duration = tu_uniform(r, 0.1, 1);
            l[i].fade_time = tu_uniform(r, -0.2, 1.2);
            if (tu_range(r, 2)) l[i].flags |= SINEW_LAYER_FADE_OUT;
        }
        if (tu_range(r, 2)) l[i].flags |= SINEW_LAYER_REFERENCE_REST;
        l[i].reference_time = tu_uniform(r, 0, 3);
        if (tu_range(r, 2)) l[i].joint_weights = mask_pool + (size_t)tu_range(r, NCLIPS) * n;
    }
    return count;
}

static double worst_seen;

/* The fast palette of the character against the reference's; returns failures. */
static int compare_palettes(const sinew_skeleton *s, sinew_method m, const sinew_anim_layer *layers, uint32_t count,
                            void *scratch, size_t sb)
{
    const uint32_t n = sinew_skeleton_joint_count(s), stride = sinew_palette_gpu_stride(m, 0);
    sinew_transform *pose = (sinew_transform *)malloc(3u * n * sizeof *pose);
    sinew_mat4 *mats = (sinew_mat4 *)malloc(sinew_palette_scratch_count(n) * sizeof *mats);
    sinew_palette_joint *pal = (sinew_palette_joint *)malloc(n * sizeof *pal);
    float *ref = (float *)malloc((size_t)n * stride * 16u), *fast = (float *)malloc((size_t)n * stride * 16u);
    int bad = 0;
    TU_CHECK_OK(sinew_reference_blend_pose(s, layers, count, pose + n, pose));
    TU_CHECK_OK(sinew_palette_build(s, m, pose, NULL, mats, pal));
    TU_CHECK_OK(sinew_palette_pack(m, 0, pal, n, ref));
    sinew_palette_character ch = { 0 };
    ch.skeleton = s;
    ch.method = m;
    ch.layers = layers;
    ch.layer_count = count;
    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, fast));
    for (uint32_t j = 0; j < n && !bad; j++) {
        const float *a = ref + (size_t)j * stride * 4u, *b = fast + (size_t)j * stride * 4u;
        double mx = 1, e = 0, e_neg = 0;
        for (uint32_t k = 0; k < stride * 4u; k++) mx = fmax(mx, fabs(a[k]));
        for (uint32_t k = 0; k < stride * 4u; k++) {
            e = fmax(e, fabs((double)a[k] - b[k]));
            e_neg = fmax(e_neg, fabs((double)a[k] + b[k])); /* DQ: the whole dual quaternion's sign is free */
        }
        if (m == SINEW_METHOD_DQS) e = fmin(e, e_neg);
        e /= mx;
        if (e > worst_seen) worst_seen = e;
        double tol = TOL * (1 + depth_of(s, j) / 16.0);
        if (!(e <= tol)) {
            fprintf(stderr, "joint %u of %u (depth %u), %s: error %.3g > %.3g\n", j, n, depth_of(s, j),
                    sinew_method_name(m), e, tol);
            for (uint32_t i = 0; i < count; i++)
                fprintf(stderr, "  layer %u: clip %p t %g w %g flags %x wrap %d mask %p fade %g/%g ref %g eff %g\n", i,
                        (const void *)layers[i].clip, layers[i].time, layers[i].weight, layers[i].flags, layers[i].wrap,
                        (const void *)layers[i].joint_weights, layers[i].fade_time, layers[i].fade_duration,
                        layers[i].reference_time, sinew_anim_layer_weight(&layers[i]));
            for (uint32_t k = 0; k < stride * 4u; k++) fprintf(stderr, " %g/%g", a[k], b[k]);
            fprintf(stderr, "\n");
            bad = 1;
        }
    }
    TU_CHECK(!bad);
    free(pose); free(mats); free(pal); free(ref); free(fast);
    return bad;
}

typedef struct fixture {
    uint32_t n;
    sinew_transform rest[MAXN];
    sinew_skeleton *skel;
    sinew_clip *clips[NCLIPS], *scaled[NCLIPS];
    sinew_root_motion *rms[NCLIPS], *srms[NCLIPS];
    float masks[NCLIPS * MAXN];
} fixture;

static void fixture_make(tu_rng *r, fixture *f, uint32_t n)
{
    f->n = n;
    TU_CHECK_OK(tu_make_random_skeleton(r, n, f->rest, &f->skel));
    for (int c = 0; c < NCLIPS; c++) {
        uint64_t seed = tu_next(r);
        f->clips[c] = make_clip(r, n, f->rest, 0, seed, 0, 4);
        f->scaled[c] = make_clip(r, n, f->rest, 1, seed, 0, 4);
        sinew_root_motion_desc rd = { 0 };
        rd.skeleton = f->skel;
        rd.flags = (uint32_t)(1 + tu_range(r, 7)); /* every combination of translation, yaw, vertical */
        rd.up = tu_range(r, 2) ? sinew_v3(0, 0, 0) : tu_random_unit(r);
        rd.samples_per_second = tu_uniform(r, 5, 60);
        rd.clip = f->clips[c];
        TU_CHECK_OK(sinew_root_motion_create(&rd, &f->rms[c]));
        rd.clip = f->scaled[c];
        TU_CHECK_OK(sinew_root_motion_create(&rd, &f->srms[c]));
    }
    for (uint32_t k = 0; k < NCLIPS * n; k++) {
        uint32_t kind = tu_range(r, 4);
        f->masks[k] = kind == 0 ? 0.f : kind == 1 ? 1.f : (float)tu_uniform(r, 0, 1);
    }
}

static void fixture_free(fixture *f)
{
    for (int c = 0; c < NCLIPS; c++) {
        sinew_clip_destroy(f->clips[c]);
        sinew_clip_destroy(f->scaled[c]);
        sinew_root_motion_destroy(f->rms[c]);
        sinew_root_motion_destroy(f->srms[c]);
    }
    sinew_skeleton_destroy(f->skel);
}

static void test_random(tu_rng *r, void *scratch, size_t sb)
{
    int fails = 0;
    for (int trial = 0; trial < 24 && !fails; trial++) {
        fixture f;
        fixture_make(r, &f, 1 + tu_range(r, MAXN));
        for (int rep = 0; rep < 6 && !fails; rep++) {
            sinew_anim_layer l[8];
            uint32_t count = random_layers(r, f.clips, f.rms, f.masks, f.n, l);
            fails += compare_palettes(f.skel, SINEW_METHOD_DQS, l, count, scratch, sb);
            for (uint32_t i = 0; i < count; i++)
                if (l[i].clip) {
                    uint32_t ci = tu_range(r, NCLIPS);
                    l[i].clip = f.scaled[ci];
                    if (l[i].root_motion) l[i].root_motion = f.srms[ci];
                }
            fails += compare_palettes(f.skel, SINEW_METHOD_LBS, l, count, scratch, sb);
        }
        fixture_free(&f);
    }
    printf("random blends: worst palette error %.3g (tolerance %.3g x (1 + depth / 16))\n", worst_seen, TOL);
}

static double pose_diff(const sinew_transform *a, const sinew_transform *b, uint32_t n)
{
    double e = 0;
    for (uint32_t j = 0; j < n; j++) {
        double d = a[j].rotation.x * b[j].rotation.x + a[j].rotation.y * b[j].rotation.y + a[j].rotation.z * b[j].rotation.z + a[j].rotation.w * b[j].rotation.w;
        e = fmax(e, 1 - fabs(d));
        e = fmax(e, sinew_v3_length(sinew_v3_sub(a[j].translation, b[j].translation)));
        e = fmax(e, sinew_v3_length(sinew_v3_sub(a[j].scale, b[j].scale)));
    }
    return e;
}

/* Rules on the float64 reference, and the fast path on the hemisphere case. */
static void test_properties(tu_rng *r, void *scratch, size_t sb)
{
    fixture f;
    fixture_make(r, &f, 40);
    const uint32_t n = f.n;
    sinew_transform a[MAXN], b[MAXN], sc[2 * MAXN];
    sinew_clip *neg = make_clip(r, n, f.rest, 1, 77, 1, 4), *pos = make_clip(r, n, f.rest, 1, 77, 0, 4);
    /* hemisphere alignment: pos and neg are the same rotations with opposite signs */
    for (int k = 0; k < 8; k++) {
        double t = tu_uniform(r, 0, 3);
        sinew_anim_layer l[2] = { { 0 }, { 0 } };
        l[0].clip = pos; l[0].time = t; l[0].weight = tu_uniform(r, 0.1, 1);
        l[1].clip = neg; l[1].time = t; l[1].weight = tu_uniform(r, 0.1, 1);
        TU_CHECK_OK(sinew_reference_blend_pose(f.skel, l, 2, sc, a));
        TU_CHECK_OK(sinew_clip_sample(pos, f.skel, t, SINEW_WRAP_LOOP, b));
        TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
        compare_palettes(f.skel, SINEW_METHOD_LBS, l, 2, scratch, sb);
        /* the fast path agrees with the plain single clip */
        sinew_palette_character c1 = { 0 }, c2 = { 0 };
        c1.skeleton = c2.skeleton = f.skel;
        c1.method = c2.method = SINEW_METHOD_LBS;
        c1.layers = l; c1.layer_count = 2;
        c2.clip = pos; c2.time = t;
        float p1[MAXN * 12], p2[MAXN * 12];
        TU_CHECK_OK(sinew_palette_build_f32(&c1, scratch, sb, p1));
        TU_CHECK_OK(sinew_palette_build_f32(&c2, scratch, sb, p2));
        double e = 0;
        for (uint32_t i = 0; i < n * 12; i++) e = fmax(e, fabs((double)p1[i] - p2[i]) / fmax(1, fabs(p2[i])));
        TU_CHECK_MSG(e <= TOL * 5, "hemisphere blend vs single clip, fast path: %.3g", e);
    }
    /* crossfade ends and middle: A fading out, B fading in */
    sinew_anim_layer x[2] = { { 0 }, { 0 } };
    x[0].clip = f.scaled[0]; x[0].time = 1.3; x[0].weight = 1; x[0].flags = SINEW_LAYER_FADE_OUT; x[0].fade_duration = 0.5;
    x[1].clip = f.scaled[1]; x[1].time = 0.4; x[1].weight = 1; x[1].fade_duration = 0.5;
    x[0].fade_time = x[1].fade_time = 0;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, x, 2, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[0], f.skel, 1.3, SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    x[0].fade_time = x[1].fade_time = 0.75;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, x, 2, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[1], f.skel, 0.4, SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    x[0].fade_time = x[1].fade_time = 0.125; /* 3/4 of A, 1/4 of B */
    TU_CHECK_NEAR(sinew_anim_layer_weight(&x[0]), 0.75, 1e-15);
    TU_CHECK_NEAR(sinew_anim_layer_weight(&x[1]), 0.25, 1e-15);
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, x, 2, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[0], f.skel, 1.3, SINEW_WRAP_LOOP, b));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[1], f.skel, 0.4, SINEW_WRAP_LOOP, sc));
    for (uint32_t j = 0; j < n; j++) /* translations are the weighted mean */
        TU_CHECK_NEAR(a[j].translation.x, 0.75 * b[j].translation.x + 0.25 * sc[j].translation.x, 1e-12);
    /* sync: phase p samples at p x duration */
    sinew_anim_layer s1 = { 0 };
    s1.clip = f.scaled[2]; s1.time = 0.3; s1.weight = 1; s1.flags = SINEW_LAYER_SYNC;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, &s1, 1, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[2], f.skel, 0.3 * sinew_clip_duration(f.scaled[2]), SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    /* an additive layer at its reference time adds nothing; at weight 1 over the rest pose it gives the clip */
    sinew_anim_layer ad[2] = { { 0 }, { 0 } };
    ad[0].clip = f.scaled[3]; ad[0].time = 0.9; ad[0].weight = 1;
    ad[1].clip = f.scaled[4]; ad[1].time = 1.7; ad[1].reference_time = 1.7; ad[1].weight = 0.8;
    ad[1].flags = SINEW_LAYER_ADDITIVE;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, ad, 2, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[3], f.skel, 0.9, SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    ad[1].weight = 1; ad[1].time = 0.6; ad[1].flags |= SINEW_LAYER_REFERENCE_REST;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, &ad[1], 1, sc, a)); /* no blend layer: rest + delta */
    TU_CHECK_OK(sinew_clip_sample(f.scaled[4], f.skel, 0.6, SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    /* a mask of zeros leaves those joints to the other layers */
    float zmask[MAXN];
    for (uint32_t j = 0; j < n; j++) zmask[j] = 0;
    ad[1].joint_weights = zmask; ad[1].flags = SINEW_LAYER_ADDITIVE; ad[1].time = 2.2;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, ad, 2, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[3], f.skel, 0.9, SINEW_WRAP_LOOP, b));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    /* weights are normalized; below the threshold the rest pose joins in */
    sinew_anim_layer one = { 0 };
    one.clip = f.scaled[1]; one.time = 2.5; one.weight = 0.04;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, &one, 1, sc, a));
    TU_CHECK_OK(sinew_clip_sample(f.scaled[1], f.skel, 2.5, SINEW_WRAP_LOOP, b));
    const sinew_transform *rest = sinew_skeleton_rest_pose(f.skel);
    double w = (float)0.04; /* the layer weight as the production path holds it */
    for (uint32_t j = 0; j < n; j++)
        TU_CHECK_NEAR(a[j].translation.y, (w * b[j].translation.y + (0.1 - w) * rest[j].translation.y) / 0.1, 1e-12);
    one.weight = 3;
    TU_CHECK_OK(sinew_reference_blend_pose(f.skel, &one, 1, sc, a));
    TU_CHECK_NEAR(pose_diff(a, b, n), 0, TOL_REF);
    sinew_clip_destroy(neg);
    sinew_clip_destroy(pos);
    fixture_free(&f);
}

/* ---- any split of a job, any thread count: the same bytes ---- */
typedef struct split_job {
    const sinew_palette_job *job;
    void *scratch[4];
    size_t sb;
    uint32_t per_task;
    int failed;
} split_job;

static void split_task(void *user, uint32_t task, uint32_t worker)
{
    split_job *s = (split_job *)user;
    uint32_t a = task * s->per_task, b = a + s->per_task;
    if (b > s->job->count) b = s->job->count;
    if (sinew_palette_job_run_range(s->job, a, b, s->scratch[worker], s->sb, NULL) != SINEW_OK) s->failed = 1;
}

static void test_splits(tu_rng *r, void *scratch, size_t sb)
{
    fixture f;
    fixture_make(r, &f, 33);
    enum { C = 150 };
    sinew_palette_character *ch = (sinew_palette_character *)calloc(C, sizeof *ch);
    sinew_anim_layer *layers = (sinew_anim_layer *)calloc((size_t)C * 8, sizeof *layers);
    for (uint32_t i = 0; i < C; i++) {
        ch[i].skeleton = f.skel;
        ch[i].method = (sinew_method)tu_range(r, 2) == 0 ? SINEW_METHOD_LBS : SINEW_METHOD_DQS_SCALE;
        ch[i].layers = layers + (size_t)i * 8;
        ch[i].layer_count = random_layers(r, f.scaled, f.srms, f.masks, f.n, layers + (size_t)i * 8);
    }
    uint64_t total = 0;
    TU_CHECK_OK(sinew_palette_job_layout(ch, C, &total));
    float *d0 = (float *)malloc(total * 16), *d1 = (float *)malloc(total * 16);
    sinew_palette_job job = { ch, C, d0, total };
    TU_CHECK_OK(sinew_palette_job_run_range(&job, 0, C, scratch, sb, NULL));
    for (uint32_t threads = 1; threads <= 3; threads++) {
        sinew_thread_pool_desc pd = { threads, NULL };
        sinew_thread_pool *pool = NULL;
        TU_CHECK_OK(sinew_thread_pool_create(&pd, &pool));
        split_job sj = { 0 };
        sinew_palette_job j1 = { ch, C, d1, total };
        sj.job = &j1;
        sj.sb = sb;
        for (int w = 0; w < 4; w++) sj.scratch[w] = aligned_alloc(16, sb);
        sj.per_task = 1 + tu_range(r, 40);
        memset(d1, 0xCD, total * 16);
        sinew_thread_pool_run(pool, (C + sj.per_task - 1) / sj.per_task, split_task, &sj);
        TU_CHECK(!sj.failed);
        TU_CHECK_MSG(memcmp(d0, d1, total * 16) == 0, "%u threads, %u per task: output differs", threads, sj.per_task);
        for (int w = 0; w < 4; w++) free(sj.scratch[w]);
        sinew_thread_pool_destroy(pool);
    }
    free(d0); free(d1); free(ch); free(layers);
    fixture_free(&f);
}

static void test_errors(tu_rng *r, void *scratch, size_t sb)
{
    fixture f;
    fixture_make(r, &f, 12);
    sinew_transform other_rest[5];
    sinew_skeleton *small = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, 5, other_rest, &small));
    sinew_clip *wrong = make_clip(r, 5, other_rest, 0, 5, 0, 4);
    sinew_anim_layer l[SINEW_MAX_ANIM_LAYERS + 1];
    memset(l, 0, sizeof l);
    for (uint32_t i = 0; i <= SINEW_MAX_ANIM_LAYERS; i++) { l[i].clip = f.clips[0]; l[i].weight = 1; }
    sinew_palette_character ch = { 0 };
    ch.skeleton = f.skel;
    ch.method = SINEW_METHOD_DQS;
    ch.layers = l;
    float dst[12 * TU_PAL_MAX_STRIDE * 4];
    ch.layer_count = SINEW_MAX_ANIM_LAYERS;
    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, dst));
    ch.layer_count = SINEW_MAX_ANIM_LAYERS + 1;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    ch.layer_count = 2;
    ch.layers = NULL;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    ch.layers = l;
    sinew_anim_layer keep = l[1];
    l[1].clip = wrong;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    l[1] = keep; l[1].flags = 1u << 7;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    l[1] = keep; l[1].wrap = (sinew_wrap)5;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    l[1] = keep; l[1].weight = -0.5;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    l[1] = keep; l[1].weight = NAN;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_NON_FINITE);
    l[1] = keep; l[1].time = INFINITY;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_NON_FINITE);
    l[1] = keep; l[1].fade_duration = -1;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    l[1] = keep; l[1].flags = SINEW_LAYER_SYNC; l[1].time = 1e308; /* phase x duration overflows */
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_NON_FINITE);
    float mask[12];
    for (int j = 0; j < 12; j++) mask[j] = 0.5f;
    mask[7] = 1.5f;
    l[1] = keep; l[1].joint_weights = mask;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_INVALID_ARGUMENT);
    mask[7] = NAN;
    TU_CHECK_RESULT(sinew_palette_build_f32(&ch, scratch, sb, dst), SINEW_ERROR_NON_FINITE);
    mask[7] = 0;
    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, dst));
    sinew_transform sc[24], out[12];
    l[1].joint_weights = NULL; l[1].clip = wrong;
    TU_CHECK_RESULT(sinew_reference_blend_pose(f.skel, l, 2, sc, out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_reference_blend_pose(NULL, l, 2, sc, out), SINEW_ERROR_INVALID_ARGUMENT);
    /* a pose given wins over layers, which are then not looked at */
    l[1] = keep;
    ch.pose = sinew_skeleton_rest_pose(f.skel);
    ch.layers = NULL;
    TU_CHECK_OK(sinew_palette_build_f32(&ch, scratch, sb, dst));
    sinew_clip_destroy(wrong);
    sinew_skeleton_destroy(small);
    fixture_free(&f);
}

/* sinew_clip_blend_weights against the rule written per slot */
static void test_weights(tu_rng *r)
{
    fixture f;
    fixture_make(r, &f, 6);
    const uint32_t W = 4;
    double def[4] = { 0.25, -0.5, 0.0, 1.0 }, sc[8], out[4], va[4], vb[4], vc[4], vr[4];
    for (int rep = 0; rep < 20; rep++) {
        sinew_anim_layer l[3];
        memset(l, 0, sizeof l);
        for (int i = 0; i < 3; i++) {
            l[i].clip = f.clips[tu_range(r, NCLIPS)];
            l[i].time = tu_uniform(r, -1, 4);
            l[i].weight = tu_uniform(r, 0, 1) * (rep < 10 ? 1 : 0.05);
        }
        l[2].flags = SINEW_LAYER_ADDITIVE;
        l[2].reference_time = tu_uniform(r, 0, 3);
        if (rep % 3 == 0) { l[1].flags = SINEW_LAYER_SYNC; l[1].time = tu_uniform(r, 0, 1); }
        TU_CHECK_OK(sinew_clip_blend_weights(l, 3, def, W, sc, out));
        TU_CHECK_OK(sinew_clip_sample_weights(l[0].clip, l[0].time, SINEW_WRAP_LOOP, def, W, va));
        double t1 = rep % 3 == 0 ? l[1].time * sinew_clip_duration(l[1].clip) : l[1].time;
        TU_CHECK_OK(sinew_clip_sample_weights(l[1].clip, t1, SINEW_WRAP_LOOP, def, W, vb));
        TU_CHECK_OK(sinew_clip_sample_weights(l[2].clip, l[2].time, SINEW_WRAP_LOOP, def, W, vc));
        TU_CHECK_OK(sinew_clip_sample_weights(l[2].clip, l[2].reference_time, SINEW_WRAP_LOOP, def, W, vr));
        double w0 = l[0].weight, w1 = l[1].weight, tot = w0 + w1, wr = tot < 0.1 ? 0.1 - tot : 0;
        for (uint32_t k = 0; k < W; k++) {
            double want = (w0 * va[k] + w1 * vb[k] + wr * def[k]) / (tot + wr) + l[2].weight * (vc[k] - vr[k]);
            TU_CHECK_NEAR(out[k], want, 1e-12);
        }
    }
    sinew_anim_layer bad = { 0 };
    bad.clip = f.clips[0];
    bad.weight = 1;
    TU_CHECK_RESULT(sinew_clip_blend_weights(&bad, 1, def, 3, sc, out), SINEW_ERROR_INVALID_ARGUMENT);
    bad.weight = NAN;
    TU_CHECK_RESULT(sinew_clip_blend_weights(&bad, 1, def, W, sc, out), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_clip_blend_weights(&bad, 1, def, W, NULL, out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_clip_blend_weights(NULL, 0, def, W, sc, out)); /* no layer: the defaults */
    for (uint32_t k = 0; k < W; k++) TU_CHECK_NEAR(out[k], def[k], 1e-15);
    fixture_free(&f);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xB1E4D5ull);
    size_t sb = sinew_palette_scratch_bytes(MAXN);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    test_random(&r, scratch, sb);
    test_properties(&r, scratch, sb);
    test_splits(&r, scratch, sb);
    test_errors(&r, scratch, sb);
    test_weights(&r);
    free(scratch);
    return tu_finish("test_blend");
}
