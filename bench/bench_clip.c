/* sinew-bench --cpu-only --compressed (bench_clip.c): compressed clips.
 * Compresses the --cpu-only characters' clips (the palette table then runs on
 * them), and measures, for those clips and for a long generated clip (64
 * joints, 100 s at 30 keys/s, smooth mocap-like motion on every joint), the
 * compression (bytes, ratio to float32 keys, max error) and the float32
 * sampling cost per joint (the palette job's sample step,
 * sinew_palette_build_f32_timed, median over characters): times playing
 * forward frame after frame, and at random; both key layouts
 * (SINEW_CLIP_KEYS_PER_TRACK, SINEW_CLIP_KEYS_SHARED) for the long clip, the
 * --compress-keys choice (default shared) for the characters. */
#define _POSIX_C_SOURCE 200809L
#include "bench_cpu.h"

#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/palette_job.h>
#include <sinew/clip_compress.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 0xC11Bull;
static double urand(void) { rs = rs * 6364136223846793005ull + 1442695040888963407ull; return (double)(rs >> 11) * 0x1.0p-53; }

static int cmp_d(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

/* Median ns per joint of the sample step: `frames` frames of `chars` characters. */
static double sample_ns(const sinew_skeleton *s, const sinew_clip *c, int random_times, void *scratch, size_t sb, float *dst)
{
    enum { CHARS = 200, FRAMES = 8 };
    static double v[CHARS * FRAMES];
    uint32_t n = sinew_skeleton_joint_count(s), k = 0;
    double dur = sinew_clip_duration(c);
    for (int f = 0; f < FRAMES; f++)
        for (int i = 0; i < CHARS; i++) {
            sinew_palette_character ch = { 0 };
            ch.skeleton = s; ch.method = SINEW_METHOD_DQS; ch.clip = c; ch.wrap = SINEW_WRAP_LOOP;
            ch.time = random_times ? urand() * dur : fmod(dur * i / CHARS + f / 30.0, dur);
            double st[4] = { 0, 0, 0, 0 };
            if (sinew_palette_build_f32_timed(&ch, scratch, sb, dst, st) != SINEW_OK) return NAN;
            v[k++] = st[0] / n;
        }
    qsort(v, k, sizeof v[0], cmp_d);
    return v[k / 2];
}

/* The long clip: 64 joints, 3001 keys per track, smooth noise (a few sines per joint). */
static int make_long(sinew_skeleton **sk, sinew_clip **clip)
{
    enum { N = 64, K = 3001 };
    rs = 0x10C11Bull; /* the same clip every call */
    int32_t par[N];
    sinew_transform rest[N];
    static sinew_channel_desc ch[N];
    sinew_vec3_key *tk = malloc(sizeof *tk * N * K), *sc = malloc(sizeof *sc * N * K);
    sinew_quat_key *rk = malloc(sizeof *rk * N * K);
    if (!tk || !sc || !rk) { free(tk); free(sc); free(rk); return 0; }
    for (int j = 0; j < N; j++) {
        par[j] = j == 0 ? -1 : (urand() < 0.7 ? j - 1 : (int)(urand() * j));
        rest[j].translation = sinew_v3(0.3 * (urand() - 0.5), 0.3 * urand() + 0.06, 0.3 * (urand() - 0.5));
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
        double w[3], p[3];
        for (int a = 0; a < 3; a++) { w[a] = 0.5 + 3 * urand(); p[a] = 6.3 * urand(); }
        for (int k = 0; k < K; k++) {
            double t = k / 30.0;
            tk[j * K + k].time = rk[j * K + k].time = sc[j * K + k].time = k;
            tk[j * K + k].value = j == 0 ? sinew_v3(0.5 * t, 0.02 * sin(w[0] * t), 0) : rest[j].translation;
            sinew_vec3 e = sinew_v3(0.6 * sin(w[0] * t + p[0]) + 0.1 * sin(3.1 * w[1] * t),
                                    0.4 * sin(w[1] * t + p[1]), 0.3 * sin(w[2] * t + p[2]));
            sinew_quat q = sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), e.x),
                                          sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), e.y),
                                                         sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), e.z)));
            rk[j * K + k].value = q;
            sc[j * K + k].value = sinew_v3(1, 1, 1);
        }
        ch[j].joint = (uint32_t)j;
        ch[j].translation_count = K; ch[j].translations = tk + j * K;
        ch[j].rotation_count = K; ch[j].rotations = rk + j * K;
        ch[j].scale_count = K; ch[j].scales = sc + j * K;
    }
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = N; sd.parents = par; sd.rest_local = rest;
    sinew_clip_desc cd = { 0 };
    cd.name = "long"; cd.joint_count = N; cd.ticks_per_second = 30; cd.channel_count = N; cd.channels = ch;
    int ok = sinew_skeleton_create(&sd, sk) == SINEW_OK && sinew_clip_create(&cd, clip) == SINEW_OK;
    free(tk); free(sc); free(rk);
    return ok;
}

int sinew_bench_compress_clip(const sinew_skeleton *s, const char *label, double tol, int shared, sinew_clip **clip)
{
    sinew_clip_compress_desc d = { tol, 0, shared ? SINEW_CLIP_KEYS_SHARED : SINEW_CLIP_KEYS_PER_TRACK };
    sinew_clip_compress_stats st;
    sinew_error_info e;
    sinew_clip *c = NULL;
    if (sinew_clip_compress(*clip, s, &d, &c, &st, &e) != SINEW_OK) {
        fprintf(stderr, "sinew-bench --compressed: %s: %s\n", label, e.message);
        return 0;
    }
    size_t sb = (sinew_palette_scratch_bytes(sinew_skeleton_joint_count(s)) + 63) & ~(size_t)63;
    void *scratch = aligned_alloc(64, sb);
    float *dst = aligned_alloc(64, (size_t)sinew_skeleton_joint_count(s) * SINEW_PALETTE_GPU_STRIDE_MAX * 16 + 64);
    double f0 = scratch && dst ? sample_ns(s, *clip, 0, scratch, sb, dst) : NAN;
    double r0 = scratch && dst ? sample_ns(s, *clip, 1, scratch, sb, dst) : NAN;
    double f1 = scratch && dst ? sample_ns(s, c, 0, scratch, sb, dst) : NAN;
    double r1 = scratch && dst ? sample_ns(s, c, 1, scratch, sb, dst) : NAN;
    free(scratch); free(dst);
    printf("compressed %-22s %-9s %2u joints %6.1f s: %8llu -> %7llu bytes (ratio %5.2f), keys %6u -> %6u, tracks %u "
           "(%u constant, %u 16-bit, %u float32), max error %.3g (tolerance %.3g, shell %.3g, %u passes); sample ns/joint "
           "forward %.1f -> %.1f, random %.1f -> %.1f\n",
           label, shared ? "shared" : "per-track", sinew_skeleton_joint_count(s), sinew_clip_duration(*clip), (unsigned long long)st.float32_bytes,
           (unsigned long long)st.compressed_bytes, st.ratio, st.keys_before, st.keys_after, st.tracks, st.constant_tracks,
           st.quantized_tracks, st.float_tracks, st.max_error, st.tolerance, st.shell_distance, st.passes, f0, f1, r0, r1);
    sinew_clip_destroy(*clip);
    *clip = c;
    return 1;
}

int sinew_bench_long_clip(double tol)
{
    int ok = 1;
    for (int shared = 0; shared < 2 && ok; shared++) {
        sinew_skeleton *s = NULL;
        sinew_clip *c = NULL;
        ok = make_long(&s, &c) && sinew_bench_compress_clip(s, "long generated", tol, shared, &c);
        sinew_clip_destroy(c);
        sinew_skeleton_destroy(s);
    }
    return ok;
}
