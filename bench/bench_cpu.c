/* sinew-bench --cpu-only: palette throughput of the CPU side of the crowd,
 * without any GPU work. For a 64-joint and a 40-joint character, clips of
 * 2 s at 30 keys/s with translation, rotation and scale keys on every joint
 * (LINEAR; scale keys (1,1,1), or with --scale-fraction F real non-uniform
 * scale keys in 0.7..1.4 per axis, animated, on a fraction F of the joints,
 * so no joint below them takes the unit-scale fast case), every character at
 * its own time, playing
 * forward frame after frame: frame time and joints/s of the float32 production
 * path (sinew_palette_job_run_range on a sinew_thread_pool, 64 characters per
 * task) for 1..10,000 characters, every method, 1 thread and all threads; the
 * per-step breakdown on one thread (sinew_palette_build_f32_timed); and, for
 * 10,000 characters of 64 joints, the float64 path the crowd used before
 * (sinew_clip_sample + sinew_palette_build + sinew_palette_pack per character)
 * measured in the same run. Table on stdout, CSV in the output directory.
 * With --blend K / --layers L (bench_cpu_blend.c) every character plays
 * blended clips and additive layers instead, and a table compares the cost
 * with one clip per character in the same run. */
#define _POSIX_C_SOURCE 200809L
#include "bench_cpu.h"
#include "bench_util.h"

#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x5151AB1Eull;
static double rnd(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static sinew_quat small_rotation(double max_angle)
{
    sinew_vec3 axis = sinew_v3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
    if (sinew_v3_length(axis) < 1e-3) axis = sinew_v3(0, 0, 1);
    return sinew_quat_from_axis_angle(axis, (rnd() * 2 - 1) * max_angle);
}

/* A character: a chain-heavy joint tree, its rest pose, and a clip. */
typedef struct cpu_model {
    uint32_t joints;
    sinew_skeleton *skel;
    sinew_clip *clip;
    sinew_joint_bounds *jb;  /* --bounds: joint bounds of a synthetic mesh on the skeleton */
    uint16_t *nb;
} cpu_model;

/* --bounds: a mesh of 16 vertices around each joint's bind position (within 0.08),
 * weighted 0.7 to the joint and 0.3 to its parent, and its joint bounds (with the
 * vertices' own positions as centers of rotation, for the CoR methods). */
static int make_bounds(cpu_model *m)
{
    const uint32_t jc = m->joints, per = 16, n = jc * per;
    float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n), *w = malloc(sizeof(float) * 2 * n);
    uint32_t *jo = malloc(sizeof(uint32_t) * 2 * n), used = 0;
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * n);
    m->jb = calloc(jc, sizeof(sinew_joint_bounds));
    m->nb = malloc(sizeof(uint16_t) * jc * jc);
    int ok = pos && nrm && w && jo && v && m->jb && m->nb;
    for (uint32_t j = 0; ok && j < jc; j++) {
        const sinew_mat4 *g = sinew_skeleton_bind_global(m->skel, j);
        int32_t par = sinew_skeleton_parent(m->skel, j);
        for (uint32_t k = 0; k < per; k++) {
            uint32_t i = j * per + k;
            for (int c = 0; c < 3; c++) {
                pos[3 * i + c] = (float)(g->m[3][c] + 0.16 * (rnd() - 0.5));
                nrm[3 * i + c] = c == 1 ? 1.0f : 0.0f;
            }
            jo[2 * i] = j; jo[2 * i + 1] = par >= 0 ? (uint32_t)par : j;
            w[2 * i] = par >= 0 ? 0.7f : 1.0f; w[2 * i + 1] = par >= 0 ? 0.3f : 0.0f;
        }
    }
    sinew_influences inf = { NULL, 2, jo, w };
    ok = ok && sinew_pack_vertices(n, pos, nrm, &inf, jc, v, NULL, NULL) == SINEW_OK &&
         sinew_joint_bounds_build(v, NULL, n, jc, m->jb, m->nb, jc * jc, &used) == SINEW_OK &&
         sinew_joint_bounds_add_centers(v, NULL, n, jc, pos, m->jb) == SINEW_OK;
    free(pos); free(nrm); free(w); free(jo); free(v);
    return ok;
}

/* scaled: every 4th joint gets non-uniform scale keys oscillating in [0.85, 1.15]
 * (the scale methods then take the polar path on those joints and below them);
 * frac > 0 (--scale-fraction): instead, joint j is scaled when floor((j + 1) frac)
 * > floor(j frac) (exactly round-down(n frac) joints, spread evenly), each axis
 * 1.05 + 0.35 sin(w t + phase) with its own w and phase: 0.7 .. 1.4, animated. */
static int is_scaled_joint(uint32_t j, double frac)
{
    return frac > 0 && floor((j + 1) * frac + 1e-9) > floor(j * frac + 1e-9);
}

static int make_model(uint32_t n, cpu_model *m, int scaled, double frac)
{
    enum { KEYS = 61 }; /* 2 s at 30 keys/s, both ends */
    int32_t *par = malloc(n * sizeof *par);
    sinew_transform *rest = malloc(n * sizeof *rest);
    sinew_channel_desc *ch = calloc(n, sizeof *ch);
    sinew_vec3_key *tk = malloc((size_t)n * KEYS * sizeof *tk), *sk = malloc((size_t)n * KEYS * sizeof *sk);
    sinew_quat_key *rk = malloc((size_t)n * KEYS * sizeof *rk);
    int ok = par && rest && ch && tk && sk && rk;
    if (ok) {
        for (uint32_t j = 0; j < n; j++) {
            par[j] = j == 0 ? -1 : (rnd() < 0.7 ? (int32_t)j - 1 : (int32_t)(rnd() * j));
            rest[j].translation = sinew_v3_scale(sinew_v3(rnd() - 0.5, rnd() + 0.2, rnd() - 0.5), 0.3);
            rest[j].rotation = small_rotation(0.5);
            rest[j].scale = sinew_v3(1, 1, 1);
            ch[j].joint = j;
            sinew_quat q = rest[j].rotation;
            for (uint32_t k = 0; k < KEYS; k++) {
                double t = (double)k;
                tk[(size_t)j * KEYS + k].time = t;
                tk[(size_t)j * KEYS + k].value = sinew_v3_add(rest[j].translation, sinew_v3(0.01 * sin(0.2 * t), 0, 0));
                q = sinew_quat_normalize(sinew_quat_mul(q, small_rotation(0.08)));
                rk[(size_t)j * KEYS + k].time = t;
                rk[(size_t)j * KEYS + k].value = q;
                sk[(size_t)j * KEYS + k].time = t;
                sk[(size_t)j * KEYS + k].value = sinew_v3(1, 1, 1);
                if (scaled && j % 4 == 3)
                    sk[(size_t)j * KEYS + k].value = sinew_v3(1 + 0.15 * sin(0.3 * t + j), 1 + 0.1 * cos(0.2 * t), 1);
                if (!scaled && is_scaled_joint(j, frac))
                    sk[(size_t)j * KEYS + k].value = sinew_v3(1.05 + 0.35 * sin(0.21 * t + j), 1.05 + 0.35 * sin(0.17 * t + 2.0 * j + 1),
                                                              1.05 + 0.35 * sin(0.13 * t + 3.0 * j + 2));
            }
            ch[j].translation_count = KEYS; ch[j].translations = tk + (size_t)j * KEYS;
            ch[j].rotation_count = KEYS; ch[j].rotations = rk + (size_t)j * KEYS;
            ch[j].scale_count = KEYS; ch[j].scales = sk + (size_t)j * KEYS;
        }
        sinew_skeleton_desc sd = { 0 };
        sd.joint_count = n;
        sd.parents = par;
        sd.rest_local = rest;
        sinew_clip_desc cd = { 0 };
        cd.joint_count = n;
        cd.ticks_per_second = 30;
        cd.duration = KEYS - 1;
        cd.channel_count = n;
        cd.channels = ch;
        m->joints = n;
        ok = sinew_skeleton_create(&sd, &m->skel) == SINEW_OK && sinew_clip_create(&cd, &m->clip) == SINEW_OK;
    }
    free(par); free(rest); free(ch); free(tk); free(sk); free(rk);
    return ok;
}

/* ---- the production path on a pool ---- */
#define CHARS_PER_TASK 64u
typedef struct pool_job {
    const sinew_palette_job *job;
    void **scratch;
    size_t scratch_bytes;
    int failed;
} pool_job;

static void job_task(void *user, uint32_t task, uint32_t worker)
{
    pool_job *pj = (pool_job *)user;
    uint32_t a = task * CHARS_PER_TASK, b = a + CHARS_PER_TASK;
    if (b > pj->job->count) b = pj->job->count;
    if (sinew_palette_job_run_range(pj->job, a, b, pj->scratch[worker], pj->scratch_bytes, NULL) != SINEW_OK)
        pj->failed = 1;
}

/* --bounds: each character's box from its packed palette, 64 characters per task */
typedef struct bounds_job {
    const cpu_model *m;
    const sinew_palette_character *chars;
    uint32_t count;
    const float *dst;
    int failed;
} bounds_job;

static void bounds_task(void *user, uint32_t task, uint32_t worker)
{
    (void)worker;
    bounds_job *bj = (bounds_job *)user;
    uint32_t a = task * CHARS_PER_TASK, b = a + CHARS_PER_TASK;
    if (b > bj->count) b = bj->count;
    for (uint32_t i = a; i < b; i++) {
        float lo[3], hi[3];
        if (sinew_character_bounds(bj->m->jb, bj->m->nb, bj->m->joints, bj->chars[i].method, bj->chars[i].flags,
                                   bj->dst + (size_t)bj->chars[i].palette_offset * 4, lo, hi) != SINEW_OK)
            bj->failed = 1;
    }
}

/* ---- the float64 path the crowd used before, on the same pool ---- */
typedef struct ref_job {
    const sinew_palette_character *chars;
    uint32_t count;
    float *dst;
    sinew_transform **local;
    sinew_mat4 **mats;
    sinew_palette_joint **pal;
    int failed;
} ref_job;

static void ref_task(void *user, uint32_t task, uint32_t worker)
{
    ref_job *rj = (ref_job *)user;
    uint32_t a = task * CHARS_PER_TASK, b = a + CHARS_PER_TASK;
    if (b > rj->count) b = rj->count;
    for (uint32_t i = a; i < b; i++) {
        const sinew_palette_character *c = &rj->chars[i];
        uint32_t n = sinew_skeleton_joint_count(c->skeleton);
        sinew_result r = sinew_clip_sample(c->clip, c->skeleton, c->time, c->wrap, rj->local[worker]);
        if (r == SINEW_OK) r = sinew_palette_build(c->skeleton, c->method, rj->local[worker], c->root, rj->mats[worker], rj->pal[worker]);
        if (r == SINEW_OK) r = sinew_palette_pack(c->method, c->flags, rj->pal[worker], n, rj->dst + (size_t)c->palette_offset * 4);
        if (r != SINEW_OK) rj->failed = 1;
    }
}

static void set_times(sinew_palette_character *ch, uint32_t count, int frame)
{
    for (uint32_t i = 0; i < count; i++)
        ch[i].time = fmod((double)i * 0.6180339887, 1.0) * 2.0 + frame / 60.0; /* own phase, forward playback */
}

typedef struct cpu_row {
    uint32_t joints, chars, threads;
    const char *method, *path;
    double ms, mjps;
} cpu_row;

/* 1 when name is in the comma-separated list (NULL list: every name) */
static int method_selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int sinew_bench_cpu_only(const char *out_dir, double seconds_per_case)
{
    return sinew_bench_cpu_only_opts(out_dir, seconds_per_case, NULL);
}

int sinew_bench_cpu_only_opts(const char *out_dir, double seconds_per_case, const sinew_bench_cpu_options *opt)
{
    static const uint32_t def_sizes[] = { 1, 10, 100, 1000, 10000 };
    const sinew_bench_cpu_options defaults = { 0 };
    if (!opt) opt = &defaults;
    const uint32_t *sizes = opt->sizes && opt->nsizes ? opt->sizes : def_sizes;
    const uint32_t nsizes = opt->sizes && opt->nsizes ? opt->nsizes : (uint32_t)(sizeof def_sizes / sizeof def_sizes[0]);
    const uint32_t maxc = 10000; /* sizes above are skipped */
    const double frac = opt->scale_fraction;
    const int bounds = opt->bounds;
    cpu_model models[3];
    memset(models, 0, sizeof models);
    if (!make_model(64, &models[0], 0, frac) || !make_model(40, &models[1], 0, frac) || !make_model(64, &models[2], 1, 0)) {
        fprintf(stderr, "sinew-bench --cpu-only: model setup failed\n");
        return 1;
    }
    if (bench_blend_active())
        for (int mi = 0; mi < 3; mi++)
            if (!bench_blend_setup(models[mi].skel, models[mi].clip, mi == 2, maxc)) {
                fprintf(stderr, "sinew-bench --cpu-only: blend clip setup failed\n");
                return 1;
            }
    if (bounds && (!make_bounds(&models[0]) || !make_bounds(&models[1]))) {
        fprintf(stderr, "sinew-bench --cpu-only: joint bounds setup failed\n");
        return 1;
    }
    if (opt->compressed &&
        (!sinew_bench_compress_clip(models[0].skel, "64-joint bench clip", opt->compress_tol, !opt->compress_per_track,
                                    &models[0].clip) ||
         !sinew_bench_compress_clip(models[1].skel, "40-joint bench clip", opt->compress_tol, !opt->compress_per_track,
                                    &models[1].clip) ||
         !sinew_bench_long_clip(opt->compress_tol)))
        return 1;
    uint32_t cores = sinew_cpu_count();
    uint32_t thread_counts[2] = { 1, cores };
    int nthreads = cores > 1 ? 2 : 1;
    sinew_thread_pool *pools[2] = { NULL, NULL };
    for (int t = 0; t < nthreads; t++) {
        sinew_thread_pool_desc pd = { thread_counts[t], NULL };
        if (sinew_thread_pool_create(&pd, &pools[t]) != SINEW_OK) return 1;
    }
    size_t sb = sinew_palette_scratch_bytes(64);
    sb = (sb + 63) & ~(size_t)63;
    void *scratch[SINEW_THREAD_POOL_MAX_THREADS];
    for (uint32_t w = 0; w < cores && w < SINEW_THREAD_POOL_MAX_THREADS; w++) scratch[w] = aligned_alloc(64, sb);
    sinew_palette_character *chars = calloc(maxc, sizeof *chars);
    float *dst = aligned_alloc(64, (size_t)maxc * 64 * SINEW_PALETTE_GPU_STRIDE_MAX * 16);
    cpu_row rows[256];
    int nrows = 0;
    printf("sinew-bench --cpu-only: float32 palette path, %u CPU threads; clips 2 s at 30 keys/s, T R S keys on every "
           "joint, each character at its own time, playing forward\n", cores);
    if (frac > 0)
        printf("--scale-fraction %.3g: real non-uniform scale keys (0.7 .. 1.4 per axis, animated) on %u of 64 and %u of 40 "
               "joints\n", frac, (unsigned)floor(64 * frac + 1e-9), (unsigned)floor(40 * frac + 1e-9));
    if (opt->compressed) printf("--compressed: the 64- and 40-joint characters play their clips compressed (above)\n");
    if (bench_blend_active())
        printf("every character: --blend %u (%u clips blended, normalized-time sync, one crossfading) --layers %u "
               "(additive, masked to 2/3 of the joints)\n", bench_blend_k(), bench_blend_k(), bench_blend_l());
    if (bounds)
        printf("--bounds: after each frame's palettes, every character's box (sinew_character_bounds on its packed "
               "palette, 64 characters per task on the same pool; joint bounds of 16 vertices per joint); bounds_ms "
               "its median time, bounds%% = bounds_ms / ms/frame\n");
    printf("%-7s %-16s %6s %7s %9s %9s%s\n", "joints", "method", "chars", "threads", "ms/frame", "Mjoint/s",
           bounds ? " bounds_ms   bounds%" : "");
    for (int mi = 0; mi < 2; mi++) {
        cpu_model *m = &models[mi];
        for (unsigned meth = 0; meth < SINEW_METHOD_COUNT; meth++) {
            if (!method_selected(opt->methods, sinew_method_name((sinew_method)meth))) continue;
            for (uint32_t i = 0; i < maxc; i++) {
                memset(&chars[i], 0, sizeof chars[i]);
                chars[i].skeleton = m->skel;
                chars[i].clip = m->clip;
                chars[i].method = (sinew_method)meth;
            }
            uint64_t total = 0;
            sinew_palette_job_layout(chars, maxc, &total);
            for (uint32_t si = 0; si < nsizes; si++) {
                uint32_t count = sizes[si];
                if (count > maxc) continue;
                sinew_palette_job job = { chars, count, dst, total };
                for (int t = 0; t < nthreads; t++) {
                    double ms[64], msb[64];
                    int n = 0, failed = 0;
                    double start = now_s();
                    for (int f = 0; f < 64; f++) {
                        set_times(chars, count, f);
                        bench_blend_apply(chars, count);
                        pool_job pj = { &job, scratch, sb, 0 };
                        double t0 = now_s();
                        sinew_thread_pool_run(pools[t], (count + CHARS_PER_TASK - 1) / CHARS_PER_TASK, job_task, &pj);
                        double t1 = now_s(), t2 = t1;
                        failed |= pj.failed;
                        if (bounds) {
                            bounds_job bj = { m, chars, count, dst, 0 };
                            sinew_thread_pool_run(pools[t], (count + CHARS_PER_TASK - 1) / CHARS_PER_TASK, bounds_task, &bj);
                            t2 = now_s();
                            failed |= bj.failed;
                        }
                        if (f > 0) { msb[n] = (t2 - t1) * 1e3; ms[n++] = (t1 - t0) * 1e3; }
                        if (n >= 3 && now_s() - start > seconds_per_case) break;
                    }
                    double med = median(ms, n);
                    cpu_row *r = &rows[nrows++];
                    r->joints = m->joints; r->chars = count; r->threads = thread_counts[t];
                    r->method = sinew_method_name((sinew_method)meth); r->path = "float32";
                    r->ms = med; r->mjps = (double)count * m->joints / (med * 1e-3) * 1e-6;
                    printf("%-7u %-16s %6u %7u %9.3f %9.1f", m->joints, r->method, count, r->threads, med, r->mjps);
                    if (bounds) {
                        double medb = median(msb, n);
                        printf(" %9.3f %8.1f%%", medb, 100.0 * medb / med);
                    }
                    printf("%s\n", failed ? "  FAILED" : "");
                    fflush(stdout);
                }
            }
        }
    }

    /* per-step breakdown, one thread, 1000 characters: the median over
     * characters and frames of each step (robust to preemption on a shared machine) */
    printf("\nper-step breakdown, 1 thread, 1000 characters x 3 frames, median ns per joint (float32 path):\n");
    double *samples = malloc(sizeof(double) * 4 * 3000);
    printf("%-7s %-16s %8s %8s %8s %8s %8s\n", "joints", "method", "sample", "FK", "palette", "pack", "total");
    double steps_out[2][SINEW_METHOD_COUNT][4];
    for (int mi = 0; mi < 2; mi++) {
        cpu_model *m = &models[mi];
        for (unsigned meth = 0; meth < SINEW_METHOD_COUNT; meth++) {
            if (!method_selected(opt->methods, sinew_method_name((sinew_method)meth))) continue;
            double steps[4] = { 0, 0, 0, 0 };
            uint32_t count = 1000, ns = 0;
            for (uint32_t i = 0; i < count; i++) {
                memset(&chars[i], 0, sizeof chars[i]);
                chars[i].skeleton = m->skel;
                chars[i].clip = m->clip;
                chars[i].method = (sinew_method)meth;
            }
            uint64_t total = 0;
            sinew_palette_job_layout(chars, count, &total);
            for (int f = 0; f < 4; f++) {
                set_times(chars, count, f);
                bench_blend_apply(chars, count);
                for (uint32_t i = 0; i < count; i++) {
                    double s4[4] = { 0, 0, 0, 0 };
                    sinew_palette_build_f32_timed(&chars[i], scratch[0], sb, dst + (size_t)chars[i].palette_offset * 4, s4);
                    if (f > 0) {
                        for (int k = 0; k < 4; k++) samples[(size_t)k * 3000 + ns] = s4[k];
                        ns++;
                    }
                }
            }
            for (int k = 0; k < 4; k++) steps[k] = median(samples + (size_t)k * 3000, (int)ns);
            double per = 1.0 / m->joints;
            for (int k = 0; k < 4; k++) steps_out[mi][meth][k] = steps[k] * per;
            printf("%-7u %-16s %8.1f %8.1f %8.1f %8.1f %8.1f\n", m->joints, sinew_method_name((sinew_method)meth),
                   steps[0] * per, steps[1] * per, steps[2] * per, steps[3] * per,
                   (steps[0] + steps[1] + steps[2] + steps[3]) * per);
        }
    }

    free(samples);
    if (bench_blend_active()) { /* blended vs one clip, frames alternating */
        printf("\nblend cost, 10000 characters x 64 joints, same run, frames alternating: one clip vs --blend %u "
               "--layers %u (float32 path)\n", bench_blend_k(), bench_blend_l());
        printf("%-16s %7s %10s %10s %10s %10s %7s\n", "method", "threads", "1-clip ms", "Mjoint/s", "blend ms", "Mjoint/s",
               "ratio");
        for (unsigned meth = 0; meth < SINEW_METHOD_COUNT; meth++) {
            for (uint32_t i = 0; i < maxc; i++) {
                memset(&chars[i], 0, sizeof chars[i]);
                chars[i].skeleton = models[0].skel;
                chars[i].clip = models[0].clip;
                chars[i].method = (sinew_method)meth;
            }
            uint64_t total = 0;
            sinew_palette_job_layout(chars, maxc, &total);
            for (int t = 0; t < nthreads; t++) {
                double m1[8], mb[8];
                int n = 0, failed = 0;
                for (int f = 0; f < 7; f++) {
                    set_times(chars, maxc, f);
                    for (uint32_t i = 0; i < maxc; i++) chars[i].layer_count = 0;
                    sinew_palette_job job = { chars, maxc, dst, total };
                    pool_job pj = { &job, scratch, sb, 0 };
                    double t0 = now_s();
                    sinew_thread_pool_run(pools[t], (maxc + CHARS_PER_TASK - 1) / CHARS_PER_TASK, job_task, &pj);
                    double t1 = now_s();
                    bench_blend_apply(chars, maxc);
                    pool_job pb = { &job, scratch, sb, 0 };
                    double t2 = now_s();
                    sinew_thread_pool_run(pools[t], (maxc + CHARS_PER_TASK - 1) / CHARS_PER_TASK, job_task, &pb);
                    double t3 = now_s();
                    failed |= pj.failed | pb.failed;
                    if (f > 0) { m1[n] = (t1 - t0) * 1e3; mb[n] = (t3 - t2) * 1e3; n++; }
                }
                double a = median(m1, n), b = median(mb, n), joints = (double)maxc * 64;
                printf("%-16s %7u %10.2f %10.1f %10.2f %10.1f %7.2f%s\n", sinew_method_name((sinew_method)meth),
                       thread_counts[t], a, joints / (a * 1e-3) * 1e-6, b, joints / (b * 1e-3) * 1e-6, b / a,
                       failed ? "  FAILED" : "");
                fflush(stdout);
            }
        }
    }

    /* before: the float64 path, 10,000 x 64 joints, same pool and data */
    printf("\nbefore/after, 10000 characters x 64 joints, same run (float64 = sample + palette_build + pack per "
           "character, the crowd's path before; one clip per character):\n");
    printf("%-16s %7s %12s %12s %12s %12s\n", "method", "threads", "f64 ms", "f64 Mjoint/s", "f32 ms", "f32 Mjoint/s");
    sinew_transform *loc[SINEW_THREAD_POOL_MAX_THREADS];
    sinew_mat4 *mats[SINEW_THREAD_POOL_MAX_THREADS];
    sinew_palette_joint *pals[SINEW_THREAD_POOL_MAX_THREADS];
    for (uint32_t w = 0; w < cores && w < SINEW_THREAD_POOL_MAX_THREADS; w++) {
        loc[w] = malloc(64 * sizeof(sinew_transform));
        mats[w] = malloc(sinew_palette_scratch_count(64) * sizeof(sinew_mat4));
        pals[w] = malloc(64 * sizeof(sinew_palette_joint));
    }
    for (unsigned meth = 0; meth < SINEW_METHOD_COUNT; meth++) {
        if (!method_selected(opt->methods, sinew_method_name((sinew_method)meth))) continue;
        for (uint32_t i = 0; i < maxc; i++) {
            memset(&chars[i], 0, sizeof chars[i]);
            chars[i].skeleton = models[0].skel;
            chars[i].clip = models[0].clip;
            chars[i].method = (sinew_method)meth;
        }
        uint64_t total = 0;
        sinew_palette_job_layout(chars, maxc, &total);
        for (int t = 0; t < nthreads; t++) {
            double ms[8], ms32[8];
            int n = 0;
            for (int f = 0; f < 4; f++) { /* alternate the two paths, frame by frame */
                set_times(chars, maxc, f);
                ref_job rj = { chars, maxc, dst, loc, mats, pals, 0 };
                double t0 = now_s();
                sinew_thread_pool_run(pools[t], (maxc + CHARS_PER_TASK - 1) / CHARS_PER_TASK, ref_task, &rj);
                double t1 = now_s();
                sinew_palette_job job = { chars, maxc, dst, total };
                pool_job pj = { &job, scratch, sb, 0 };
                sinew_thread_pool_run(pools[t], (maxc + CHARS_PER_TASK - 1) / CHARS_PER_TASK, job_task, &pj);
                double t2 = now_s();
                if (f > 0) { ms[n] = (t1 - t0) * 1e3; ms32[n] = (t2 - t1) * 1e3; n++; }
            }
            double a = median(ms, n), b = median(ms32, n);
            double joints = (double)maxc * 64;
            printf("%-16s %7u %12.2f %12.1f %12.2f %12.1f\n", sinew_method_name((sinew_method)meth), thread_counts[t], a,
                   joints / (a * 1e-3) * 1e-6, b, joints / (b * 1e-3) * 1e-6);
            fflush(stdout);
        }
    }

    /* the scale methods with real scale: a quarter of the joints scaled */
    printf("\nscale methods with scale keys != 1 on every 4th joint, 10000 characters x 64 joints (float32 path):\n");
    printf("%-16s %7s %9s %9s\n", "method", "threads", "ms/frame", "Mjoint/s");
    for (unsigned meth = SINEW_METHOD_DQS_SCALE; meth < SINEW_METHOD_COUNT; meth++) {
        if (!method_selected(opt->methods, sinew_method_name((sinew_method)meth))) continue;
        for (uint32_t i = 0; i < maxc; i++) {
            memset(&chars[i], 0, sizeof chars[i]);
            chars[i].skeleton = models[2].skel;
            chars[i].clip = models[2].clip;
            chars[i].method = (sinew_method)meth;
        }
        uint64_t total = 0;
        sinew_palette_job_layout(chars, maxc, &total);
        for (int t = 0; t < nthreads; t++) {
            double ms[8];
            int n = 0;
            for (int f = 0; f < 4; f++) {
                set_times(chars, maxc, f);
                bench_blend_apply(chars, maxc);
                sinew_palette_job job = { chars, maxc, dst, total };
                pool_job pj = { &job, scratch, sb, 0 };
                double t0 = now_s();
                sinew_thread_pool_run(pools[t], (maxc + CHARS_PER_TASK - 1) / CHARS_PER_TASK, job_task, &pj);
                if (f > 0) ms[n++] = (now_s() - t0) * 1e3;
            }
            double b = median(ms, n);
            printf("%-16s %7u %9.2f %9.1f\n", sinew_method_name((sinew_method)meth), thread_counts[t], b,
                   (double)maxc * 64 / (b * 1e-3) * 1e-6);
        }
    }

    char path[1024];
    snprintf(path, sizeof path, "%s/cpu.csv", out_dir);
    FILE *csv = fopen(path, "w");
    if (csv) {
        fprintf(csv, "joints,method,characters,threads,ms_per_frame,joints_per_s\n");
        for (int i = 0; i < nrows; i++)
            fprintf(csv, "%u,%s,%u,%u,%.6f,%.1f\n", rows[i].joints, rows[i].method, rows[i].chars, rows[i].threads,
                    rows[i].ms, rows[i].mjps * 1e6);
        fprintf(csv, "\njoints,method,sample_ns_per_joint,fk_ns_per_joint,palette_ns_per_joint,pack_ns_per_joint\n");
        for (int mi = 0; mi < 2; mi++)
            for (unsigned meth = 0; meth < SINEW_METHOD_COUNT; meth++)
                if (method_selected(opt->methods, sinew_method_name((sinew_method)meth)))
                fprintf(csv, "%u,%s,%.2f,%.2f,%.2f,%.2f\n", models[mi].joints, sinew_method_name((sinew_method)meth),
                        steps_out[mi][meth][0], steps_out[mi][meth][1], steps_out[mi][meth][2], steps_out[mi][meth][3]);
        fclose(csv);
        printf("\nwrote %s\n", path);
    }
    for (uint32_t w = 0; w < cores && w < SINEW_THREAD_POOL_MAX_THREADS; w++) {
        free(scratch[w]); free(loc[w]); free(mats[w]); free(pals[w]);
    }
    free(chars);
    free(dst);
    for (int t = 0; t < nthreads; t++) sinew_thread_pool_destroy(pools[t]);
    bench_blend_free();
    for (int mi = 0; mi < 3; mi++) {
        sinew_clip_destroy(models[mi].clip);
        sinew_skeleton_destroy(models[mi].skel);
    }
    return 0;
}
