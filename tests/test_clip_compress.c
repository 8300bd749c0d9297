#define _POSIX_C_SOURCE 200112L
/* Compressed clips (sinew/clip_compress.h) on random skeletons and clips:
 *  - the error bound: the compressed clip sampled in float64 (sinew_clip_sample)
 *    against the source at random times (between keys too), measured here
 *    independently (float64 FK, the virtual points: each joint's origin and six
 *    points at shell_distance on its local axes, in model space): every
 *    displacement <= tolerance (the compressor's guarantee; no slack);
 *  - constant tracks (exactly constant, and within the bound) are detected;
 *    keys are dropped on smooth tracks; STEP and CUBICSPLINE sources keep the bound;
 *  - the sinew_clip accessors give the source's answers;
 *  - both key layouts (per track, shared by the clip) keep the bound;
 *  - sampling is identical forward, backward, at random order and through
 *    sinew_sample_job;
 *  - the float32 sampler (palette job) against the float64 sampler of the same
 *    compressed clip: palettes within 2e-4 x (1 + |value|) (float32 sampling
 *    and FK vs float64 sampling, the same float32 FK);
 *  - bad arguments give their result codes and a message. */
#include "testutil.h"
#include <sinew/anim.h>
#include <sinew/clip_compress.h>
#include <sinew/palette_job.h>
#include <sinew/linalg.h>
#include <string.h>
#include <stdlib.h>

#define NJ 24
#define NK 41

/* Model transforms (float64 FK) of a local pose. */
static void fk(const sinew_skeleton *s, const sinew_transform *local, sinew_mat4 *W)
{
    uint32_t n = sinew_skeleton_joint_count(s);
    for (uint32_t j = 0; j < n; j++) {
        sinew_mat4 m = sinew_mat4_from_transform(&local[j]);
        int32_t p = sinew_skeleton_parent(s, j);
        W[j] = p >= 0 ? sinew_mat4_mul(&W[p], &m) : m;
    }
}

/* Largest virtual-point displacement between two poses. */
static double pose_error(const sinew_skeleton *s, const sinew_transform *a, const sinew_transform *b, double shell)
{
    sinew_mat4 Wa[NJ], Wb[NJ];
    fk(s, a, Wa);
    fk(s, b, Wb);
    double e = 0;
    for (uint32_t j = 0; j < sinew_skeleton_joint_count(s); j++)
        for (int p = 0; p < 7; p++) {
            sinew_vec3 v = sinew_v3(0, 0, 0);
            if (p) {
                double d = (p & 1) ? shell : -shell;
                v = sinew_v3((p - 1) / 2 == 0 ? d : 0, (p - 1) / 2 == 1 ? d : 0, (p - 1) / 2 == 2 ? d : 0);
            }
            double l = sinew_v3_length(sinew_v3_sub(sinew_mat4_transform_point(&Wa[j], v), sinew_mat4_transform_point(&Wb[j], v)));
            if (l > e) e = l;
        }
    return e;
}

typedef struct gen {
    sinew_vec3_key tk[NJ][NK], sk[NJ][NK];
    sinew_quat_key rk[NJ][NK];
    sinew_vec3 ttan[NJ][2 * NK];
    sinew_channel_desc ch[NJ];
    uint32_t nch, constant;
} gen;

/* A random clip: smooth tracks (sums of sines), exactly constant tracks,
 * tracks constant within 1e-9, a STEP and a CUBICSPLINE track, joints
 * without channels. */
static void make_clip(tu_rng *r, const sinew_transform *rest, gen *g, sinew_clip **out, sinew_interpolation tmode)
{
    memset(g->ch, 0, sizeof g->ch);
    g->nch = 0;
    g->constant = 0;
    for (uint32_t j = 0; j < NJ; j++) {
        if (j % 7 == 5) continue; /* no channel */
        sinew_channel_desc *c = &g->ch[g->nch++];
        c->joint = j;
        double f[3], ph[3];
        for (int k = 0; k < 3; k++) { f[k] = tu_uniform(r, 0.2, 2.0); ph[k] = tu_uniform(r, 0, 6.3); }
        sinew_vec3 ax = tu_random_unit(r);
        double amp = tu_uniform(r, 0.1, 1.2);
        int kind = (int)tu_range(r, 4); /* 0: all animated, 1: rotation constant, 2: translation within 1e-9, 3: scale animated */
        for (uint32_t k = 0; k < NK; k++) {
            double t = k; /* ticks */
            double s = t / (NK - 1) * 6.283;
            g->tk[j][k].time = g->rk[j][k].time = g->sk[j][k].time = t;
            g->tk[j][k].value = sinew_v3_add(rest[j].translation,
                                             sinew_v3(0.2 * sin(f[0] * s + ph[0]), 0.1 * sin(f[1] * s + ph[1]), 0.15 * cos(f[2] * s)));
            if (kind == 2)
                g->tk[j][k].value = sinew_v3_add(rest[j].translation, sinew_v3(1e-9 * tu_uniform(r, -1, 1), 0, 0));
            sinew_quat d = sinew_quat_from_axis_angle(ax, amp * sin(f[1] * s + ph[2]));
            g->rk[j][k].value = kind == 1 ? rest[j].rotation : sinew_quat_mul(rest[j].rotation, d);
            if (k % 2 && kind != 1) { /* sign flips must not matter */
                sinew_quat q = g->rk[j][k].value;
                g->rk[j][k].value = (sinew_quat){ -q.x, -q.y, -q.z, -q.w };
            }
            g->sk[j][k].value = kind == 3 ? sinew_v3(1 + 0.3 * sin(s * f[2]), 1 + 0.2 * cos(s * f[0]), 1) : sinew_v3(1, 1, 1);
            g->ttan[j][2 * k] = g->ttan[j][2 * k + 1] = kind == 2 ? sinew_v3(0, 0, 0)
                : sinew_v3_scale(sinew_v3(0.2 * f[0] * cos(f[0] * s + ph[0]), 0.1 * f[1] * cos(f[1] * s + ph[1]),
                                          -0.15 * f[2] * sin(f[2] * s)), 6.283 / (NK - 1)); /* d/dtick */
        }
        g->constant += (kind == 1) + (kind == 2) + (kind != 3);
        c->translation_count = c->rotation_count = c->scale_count = NK;
        c->translations = g->tk[j];
        c->rotations = g->rk[j];
        c->scales = g->sk[j];
        if (j == 3) c->rotation_interpolation = SINEW_INTERPOLATION_STEP;
        if (j == 4 || tmode == SINEW_INTERPOLATION_CUBICSPLINE) {
            c->translation_interpolation = SINEW_INTERPOLATION_CUBICSPLINE;
            c->translation_tangents = g->ttan[j];
        }
    }
    sinew_clip_desc d = { 0 };
    d.name = "gen";
    d.joint_count = NJ;
    d.ticks_per_second = 30;
    d.channel_count = g->nch;
    d.channels = g->ch;
    TU_CHECK_OK(sinew_clip_create(&d, out));
}

static void test_error_bound(tu_rng *r, sinew_interpolation tmode, sinew_clip_keys keys)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, NJ, rest, &s));
    static gen g;
    sinew_clip *src = NULL, *cmp = NULL;
    make_clip(r, rest, &g, &src, tmode);
    const double tols[3] = { 1e-2, 1e-3, 1e-5 }; /* model units; the skeleton spans about 2-5 */
    const int ntol = tmode == SINEW_INTERPOLATION_CUBICSPLINE ? 2 : 3; /* (a cubic clip at 1e-5: ~100k linear keys, slow) */
    for (int ti = 0; ti < ntol; ti++) {
        sinew_clip_compress_desc d = { tols[ti], 0, keys };
        sinew_clip_compress_stats st;
        sinew_error_info e;
        TU_CHECK_OK(sinew_clip_compress(src, s, &d, &cmp, &st, &e));
        if (!cmp) { fprintf(stderr, "%s\n", e.message); continue; }
        TU_CHECK(sinew_clip_is_compressed(cmp) && !sinew_clip_is_compressed(src));
        TU_CHECK(st.max_error <= tols[ti] && st.tolerance == tols[ti] && st.shell_distance > 0);
        TU_CHECK_MSG(st.constant_tracks >= g.constant, "%u constant tracks found, %u made", st.constant_tracks, g.constant);
        /* sizes: per-track keys on LINEAR clips (joint 4's cubic track needs many keys at 1e-5); shared
           keys give every track the union, here including joint 4's resampled cubic times: no size claim */
        if (keys == SINEW_CLIP_KEYS_PER_TRACK && tmode == SINEW_INTERPOLATION_LINEAR && tols[ti] >= 1e-3)
            TU_CHECK(st.keys_after < st.keys_before && st.ratio > 1 && st.float32_bytes > st.compressed_bytes);
        else if (keys == SINEW_CLIP_KEYS_PER_TRACK && tols[ti] >= 1e-2) /* cubic curves become linear keys */
            TU_CHECK(st.ratio > 1);
        TU_CHECK(st.compressed_bytes > 0);
        /* independent measurement at random times and at every key time */
        sinew_transform a[NJ], b[NJ];
        double worst = 0, dur = sinew_clip_duration(src);
        for (int i = 0; i < 300; i++) {
            double t = i < NK ? i / 30.0 : tu_uniform(r, 0, dur);
            TU_CHECK_OK(sinew_clip_sample(src, s, t, SINEW_WRAP_CLAMP, a));
            TU_CHECK_OK(sinew_clip_sample(cmp, s, t, SINEW_WRAP_CLAMP, b));
            double err = pose_error(s, a, b, st.shell_distance);
            if (err > worst) worst = err;
            if (getenv("DBG") && err > tols[ti])
                for (uint32_t j = 0; j < NJ; j++)
                    fprintf(stderr, "t=%g j=%u T %g %g R %g %g %g %g/%g %g %g %g S %g\n", t, j, a[j].translation.x, b[j].translation.x,
                            a[j].rotation.x, a[j].rotation.y, a[j].rotation.z, a[j].rotation.w, b[j].rotation.x, b[j].rotation.y,
                            b[j].rotation.z, b[j].rotation.w, a[j].scale.x - b[j].scale.x);
        }
        TU_CHECK_MSG(worst <= tols[ti], "error %.4g > tolerance %.4g", worst, tols[ti]);
        fprintf(stderr, "tol %.0e (%s, %s keys): measured %.3g (compressor %.3g), ratio %.2f (%llu -> %llu bytes), keys %u -> %u, "
                "tracks %u: %u constant, %u 16-bit, %u float32, %u passes\n", tols[ti],
                tmode == SINEW_INTERPOLATION_CUBICSPLINE ? "cubic" : "linear", keys ? "shared" : "per-track", worst, st.max_error, st.ratio,
                (unsigned long long)st.float32_bytes, (unsigned long long)st.compressed_bytes, st.keys_before,
                st.keys_after, st.tracks, st.constant_tracks, st.quantized_tracks, st.float_tracks, st.passes);
        /* accessors */
        TU_CHECK(sinew_clip_duration(cmp) == sinew_clip_duration(src));
        TU_CHECK(sinew_clip_duration_ticks(cmp) == sinew_clip_duration_ticks(src));
        TU_CHECK(sinew_clip_ticks_per_second(cmp) == sinew_clip_ticks_per_second(src));
        TU_CHECK(sinew_clip_joint_count(cmp) == NJ && sinew_clip_channel_count(cmp) == sinew_clip_channel_count(src));
        TU_CHECK(strcmp(sinew_clip_name(cmp), "gen") == 0);
        TU_CHECK(sinew_clip_key_count(cmp) == st.keys_after);
        for (uint32_t j = 0; j < NJ; j++) TU_CHECK(sinew_clip_animates(cmp, j) == sinew_clip_animates(src, j));
        if (ti == 1) {
            /* forward, backward, random order and the batch job: identical */
            enum { NT = 200 };
            static sinew_transform fw[NT][NJ], bw[NT][NJ], rn[NT][NJ], jb[NT][NJ];
            double times[NT];
            const sinew_clip *clips[NT];
            for (int i = 0; i < NT; i++) { times[i] = tu_uniform(r, -1, 2 * dur + 1); clips[i] = cmp; }
            for (int i = 0; i < NT; i++) TU_CHECK_OK(sinew_clip_sample(cmp, s, times[i], SINEW_WRAP_LOOP, fw[i]));
            for (int i = NT; i-- > 0;) TU_CHECK_OK(sinew_clip_sample(cmp, s, times[i], SINEW_WRAP_LOOP, bw[i]));
            for (int k = 0; k < NT; k++) {
                int i = (int)tu_range(r, NT);
                TU_CHECK_OK(sinew_clip_sample(cmp, s, times[i], SINEW_WRAP_LOOP, rn[i]));
                memcpy(rn[i], fw[i], sizeof rn[i]); /* rows not drawn compare equal */
            }
            for (int i = 0; i < NT; i++) TU_CHECK_OK(sinew_clip_sample(cmp, s, times[i], SINEW_WRAP_LOOP, rn[i]));
            sinew_sample_job job = { 0 };
            job.skeleton = s; job.count = NT; job.clips = clips; job.times = times; job.wrap = SINEW_WRAP_LOOP;
            job.poses = &jb[0][0];
            TU_CHECK_OK(sinew_sample_job_run(&job));
            TU_CHECK(memcmp(fw, bw, sizeof fw) == 0);
            TU_CHECK(memcmp(fw, rn, sizeof fw) == 0);
            TU_CHECK(memcmp(fw, jb, sizeof fw) == 0);
            /* the float32 sampler (palette job) against the float64 one */
            size_t sb = sinew_palette_scratch_bytes(NJ);
            void *scratch = NULL;
            TU_CHECK(posix_memalign(&scratch, 64, sb) == 0);
            float pa[NJ * 12 * 4], pb[NJ * 12 * 4];
            double worst32 = 0;
            for (int i = 0; i < NT && scratch; i++) {
                sinew_palette_character c = { 0 };
                c.skeleton = s; c.method = SINEW_METHOD_LBS; c.clip = cmp; c.wrap = SINEW_WRAP_LOOP; c.time = times[i];
                TU_CHECK_OK(sinew_palette_build_f32(&c, scratch, sb, pa));
                c.clip = NULL; c.pose = fw[i];
                TU_CHECK_OK(sinew_palette_build_f32(&c, scratch, sb, pb));
                uint32_t nv = NJ * sinew_palette_gpu_stride(SINEW_METHOD_LBS, 0) * 4;
                for (uint32_t k = 0; k < nv; k++) {
                    double dlt = fabs(pa[k] - pb[k]) / (1 + fabs(pb[k]));
                    if (dlt > worst32) worst32 = dlt;
                }
            }
            TU_CHECK_MSG(worst32 <= 2e-4, "float32 sampler vs float64: %.3g", worst32);
            free(scratch);
        }
        sinew_clip_destroy(cmp);
        cmp = NULL;
    }
    sinew_clip_destroy(src);
    sinew_skeleton_destroy(s);
}

static void test_errors(tu_rng *r)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = NULL, *s2 = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, NJ, rest, &s));
    TU_CHECK_OK(tu_make_random_skeleton(r, NJ - 1, NULL, &s2));
    static gen g;
    sinew_clip *src = NULL, *cmp = NULL, *cmp2 = (sinew_clip *)1;
    make_clip(r, rest, &g, &src, SINEW_INTERPOLATION_LINEAR);
    sinew_error_info e;
    sinew_clip_compress_desc d = { 0 };
    TU_CHECK_RESULT(sinew_clip_compress(NULL, s, &d, &cmp2, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(cmp2 == NULL && strstr(e.message, "clip") && e.item == SINEW_ITEM_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_compress(src, NULL, &d, &cmp, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "skel") != NULL);
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, NULL, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_compress(src, s2, &d, &cmp, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CLIP && strstr(e.message, "joints"));
    d.tolerance = NAN;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_NON_FINITE);
    TU_CHECK(strstr(e.message, "tolerance") != NULL);
    d.tolerance = -1e-3;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "tolerance") && strstr(e.message, "negative"));
    d.tolerance = 1e-3; d.shell_distance = INFINITY;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_NON_FINITE);
    TU_CHECK(strstr(e.message, "shell_distance") != NULL);
    d.shell_distance = -1;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    d.shell_distance = 0; d.keys = (sinew_clip_keys)7;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "keys") != NULL);
    d.keys = SINEW_CLIP_KEYS_PER_TRACK;
    /* below float32 precision */
    d.tolerance = 1e-13; d.shell_distance = 0;
    TU_CHECK_RESULT(sinew_clip_compress(src, s, &d, &cmp, NULL, &e), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK(cmp == NULL && strstr(e.message, "tolerance") != NULL);
    /* defaults (NULL desc), then compressing a compressed clip */
    TU_CHECK_OK(sinew_clip_compress(src, s, NULL, &cmp, NULL, NULL));
    TU_CHECK_RESULT(sinew_clip_compress(cmp, s, NULL, &cmp2, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "already compressed") != NULL);
    TU_CHECK(!sinew_clip_is_compressed(NULL));
    sinew_clip_destroy(cmp);
    sinew_clip_destroy(src);
    sinew_skeleton_destroy(s);
    sinew_skeleton_destroy(s2);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(2020);
    test_error_bound(&r, SINEW_INTERPOLATION_LINEAR, SINEW_CLIP_KEYS_PER_TRACK);
    test_error_bound(&r, SINEW_INTERPOLATION_LINEAR, SINEW_CLIP_KEYS_SHARED);
    test_error_bound(&r, SINEW_INTERPOLATION_CUBICSPLINE, SINEW_CLIP_KEYS_PER_TRACK);
    test_error_bound(&r, SINEW_INTERPOLATION_CUBICSPLINE, SINEW_CLIP_KEYS_SHARED);
    test_errors(&r);
    return tu_finish("test_clip_compress");
}
