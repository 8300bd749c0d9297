/* Animation LOD with interpolation (sinew_crowd_character.lod_interpolate):
 * characters with update_every 2..4 driven by a moving pose callback, with
 * keep_previous, output and previous positions poisoned before the first frame,
 * characters inserted and removed every few frames. Every frame, for every
 * character, the output AND the previous positions are compared with a float64
 * model of the rule in crowd.h: the palettes evaluated on the update frames (the
 * float32 palettes sinew_crowd_build_palettes gives for the character at that
 * time: the same production path), interpolated in float64 (rows lerped; dual
 * quaternions hemisphere-aligned, lerped, divided by the real part's length,
 * the dual part made orthogonal to it) and skinned by sinew_reference_skin.
 * Also: the callback runs only on update and fresh frames (counted), held
 * frames have non-zero motion (output != previous), stats.interpolated counts
 * the held characters, and a second crowd (1 thread, through the host-job API
 * with random range splits) gives bit-identical output and previous positions.
 * One frame fails (a pose callback error) in both crowds: the next frame every
 * character is evaluated afresh, its previous positions still right. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NJ 7
#define NV 240
#define MAXC 16
#define NFRAMES 48
#define DT (1.0 / 30.0)
/* float32 GPU skinning of the float32 interpolation vs float64 skinning of the
 * float64 interpolation of the same float32 palettes: positions within about 3
 * units of the origin, a few float32 ulps of rounding per operation (about 1e-6
 * seen here) */
#define TOL 1e-5
/* a held frame of a moving character must move at least this much somewhere */
#define MIN_MOTION 1e-3
#define FAIL_FRAME 23

typedef struct motion {     /* one per character id: its (moving) pose as a function of time */
    sinew_vec3 axis[NJ];
    double amp[NJ], freq, phase;
    sinew_vec3 walk;        /* root translation per second */
    int scaled;             /* joint 2 scales non-uniformly (not for plain DQS: NOT_RIGID) */
    uint32_t evals;         /* callback calls by the GPU crowds (atomic) */
    int fail;               /* the callback fails (a failed frame) */
} motion;

static motion motions[512];
static const sinew_skeleton *g_skel;

static void pose_at(const motion *mo, double t, sinew_transform *out)
{
    const sinew_transform *rest = sinew_skeleton_rest_pose(g_skel);
    for (uint32_t j = 0; j < NJ; j++) {
        out[j] = rest[j];
        double a = mo->amp[j] * sin(mo->freq * t + mo->phase + 0.7 * j);
        out[j].rotation = sinew_quat_mul(rest[j].rotation, sinew_quat_from_axis_angle(mo->axis[j], a));
        if (j == 0) out[j].translation = sinew_v3_add(rest[j].translation, sinew_v3_scale(mo->walk, t));
        if (j == 2 && mo->scaled) out[j].scale = sinew_v3(1.0 + 0.2 * sin(t * 2.0), 1.0, 1.0 - 0.15 * sin(t * 1.3));
    }
}

static sinew_result pose_cb(void *user, const sinew_skeleton *skel, uint32_t character, double time, sinew_transform *local)
{
    (void)skel, (void)character;
    motion *mo = (motion *)user;
    __atomic_fetch_add(&mo->evals, 1u, __ATOMIC_RELAXED);
    if (mo->fail) return SINEW_ERROR_NON_FINITE;
    pose_at(mo, time, local);
    return SINEW_OK;
}

static sinew_result pose_cb_quiet(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                  sinew_transform *local)
{
    (void)skel, (void)character;
    pose_at((const motion *)user, time, local);
    return SINEW_OK;
}

typedef struct person {
    uint32_t id;
    sinew_method method;
    uint32_t update_every;
} person;

/* What the test expects at an index (the rule of crowd.h, kept independently). */
typedef struct slot_state {
    int valid;
    double t_older, t_newer;   /* times of the last two evaluations */
    uint32_t id;
} slot_state;

/* The float32 palette the crowd evaluates for person p at time t. */
static void eval_palette(sinew_crowd *cpu, sinew_model_id model, const person *p, double t, float *pal)
{
    sinew_crowd_character ch = { 0 };
    ch.model = model;
    ch.method = p->method;
    ch.sample = pose_cb_quiet;
    ch.sample_user = &motions[p->id];
    ch.time = t;
    TU_CHECK_OK(sinew_crowd_build_palettes(cpu, &ch, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, NULL));
}

/* float64 model of the interpolation at fraction t, unpacked for sinew_reference_skin. */
static void model_palette(const float *a, const float *b, double t, sinew_method method, sinew_palette_joint *out)
{
    uint32_t stride = sinew_palette_gpu_stride(method, 0);
    for (uint32_t j = 0; j < NJ; j++) {
        const float *pa = a + 4 * stride * j, *pb = b + 4 * stride * j;
        sinew_palette_joint *e = &out[j];
        memset(e, 0, sizeof *e);
        sinew_mat4 rows = { { { 0 } } };
        rows.m[3][3] = 1.0;
        int affine = method != SINEW_METHOD_DQS;
        for (int r = 0; affine && r < 3; r++)
            for (int col = 0; col < 4; col++)
                rows.m[col][r] = (1.0 - t) * (double)pa[4 * r + col] + t * (double)pb[4 * r + col];
        if (method == SINEW_METHOD_LBS) {
            e->skin = rows;
            e->scale = sinew_mat4_identity();
            e->rigid.real = sinew_quat_identity();
            continue;
        }
        e->scale = affine ? rows : sinew_mat4_identity();
        uint32_t o = affine ? 12 : 0;
        double ra[4], rb[4], da[4], db[4], dot = 0;
        for (int k = 0; k < 4; k++) {
            ra[k] = pa[o + k], rb[k] = pb[o + k], da[k] = pa[o + 4 + k], db[k] = pb[o + 4 + k];
            dot += ra[k] * rb[k];
        }
        double tb = dot < 0 ? -t : t, r[4], d[4], n = 0;
        for (int k = 0; k < 4; k++) {
            r[k] = (1.0 - t) * ra[k] + tb * rb[k];
            d[k] = (1.0 - t) * da[k] + tb * db[k];
            n += r[k] * r[k];
        }
        n = sqrt(n);
        double rd = 0;
        for (int k = 0; k < 4; k++) r[k] /= n, d[k] /= n, rd += r[k] * d[k];
        for (int k = 0; k < 4; k++) d[k] -= rd * r[k];
        e->rigid.real = (sinew_quat){ r[0], r[1], r[2], r[3] };
        e->rigid.dual = (sinew_quat){ d[0], d[1], d[2], d[3] };
    }
}

static void make_person(tu_rng *r, uint32_t id, person *p)
{
    static const sinew_method methods[3] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
    p->id = id;
    p->method = methods[id % 3];
    p->update_every = 2 + id % 3;
    motion *mo = &motions[id];
    for (uint32_t j = 0; j < NJ; j++) {
        mo->axis[j] = tu_random_unit(r);
        mo->amp[j] = tu_uniform(r, 0.3, 0.9);
    }
    mo->freq = tu_uniform(r, 2.0, 5.0);
    mo->phase = tu_uniform(r, 0, 6.28);
    mo->walk = sinew_v3(tu_uniform(r, -1, 1), 0, tu_uniform(r, -1, 1));
    mo->evals = 0;
    mo->scaled = p->method != SINEW_METHOD_DQS;
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x10d1e7ull);
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, NULL, &skel));
    g_skel = skel;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(NULL, &gpu, NULL));
    if (!gpu || !skel) return tu_finish("test_gpu_crowd_lod");
    sinew_rest_mesh *rm = tu_random_rest_mesh(&r, skel, NV, 2);
    tu_gpu_crowd A = { 0 }, B = { 0 };
    const sinew_crowd_desc opts = { .lod_interpolate = true };
    tu_gpu_crowd_create(gpu, skel, rm, MAXC, 2, &opts, &A);
    tu_gpu_crowd_create(gpu, skel, rm, MAXC, 1, &opts, &B);
    sinew_crowd_desc cpud = { 0 };
    cpud.max_characters = 1;
    cpud.max_joints = NJ;
    cpud.threads = 1;
    sinew_crowd *cpu = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cpud, &cpu, NULL));
    sinew_model_id cpu_model = { 0 };
    sinew_crowd_model_desc cmd = { 0 };
    cmd.skeleton = skel;
    TU_CHECK_OK(sinew_crowd_add_model(cpu, &cmd, &cpu_model, NULL));
    if (!A.crowd || !B.crowd || !cpu) return tu_finish("test_gpu_crowd_lod");

    /* a crowd made without lod_interpolate refuses characters that ask for it */
    {
        sinew_crowd_character bad = { 0 };
        bad.model = cpu_model;
        bad.lod_interpolate = true;
        bad.update_every = 2;
        float pal[NJ * TU_PAL_MAX_STRIDE * 4];
        sinew_error_info e;
        TU_CHECK(sinew_crowd_build_palettes(cpu, &bad, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, &e) == SINEW_ERROR_INVALID_ARGUMENT &&
                 e.item == SINEW_ITEM_CHARACTER && e.index == 0);
    }

    static person people[MAXC];
    uint32_t count = 0, next_id = 0;
    for (; count < 10; count++) make_person(&r, next_id++, &people[count]);
    static sinew_crowd_character ch[MAXC];
    static float outA[3 * MAXC * NV], prevA[3 * MAXC * NV], outB[3 * MAXC * NV], prevB[3 * MAXC * NV];
    static double ref_now[MAXC][3 * NV], ref_last[MAXC][3 * NV];
    static float pal_old[NJ * TU_PAL_MAX_STRIDE * 4], pal_new[NJ * TU_PAL_MAX_STRIDE * 4];
    static sinew_palette_joint pj[NJ];
    static slot_state st_at[MAXC];
    uint32_t last_ids[MAXC], last_count = 0, last_first[MAXC];
    uint64_t checked = 0, held = 0, moving_held = 0, fresh_frames = 0;
    double worst = 0, worst_prev = 0;
    uint32_t evals_before = 0;
    for (int f = 0; f < NFRAMES; f++) {
        if (f > 0 && f % 5 == 0 && count > 4) { /* churn: remove one, insert one elsewhere */
            uint32_t at = tu_range(&r, count);
            memmove(&people[at], &people[at + 1], sizeof(person) * (count - at - 1));
            count--;
        }
        if (f > 0 && f % 7 == 0 && count < MAXC) {
            uint32_t at = tu_range(&r, count + 1);
            memmove(&people[at + 1], &people[at], sizeof(person) * (count - at));
            make_person(&r, next_id++, &people[at]);
            count++;
        }
        double time = f * DT;
        for (uint32_t i = 0; i < count; i++) {
            memset(&ch[i], 0, sizeof ch[i]);
            ch[i].model = A.model; /* the same id in both crowds */
            ch[i].method = people[i].method;
            ch[i].sample = pose_cb;
            ch[i].sample_user = &motions[people[i].id];
            ch[i].time = time;
            ch[i].update_every = people[i].update_every;
            ch[i].lod_interpolate = true;
            ch[i].reset_previous = i < last_count && last_ids[i] != people[i].id;
        }
        if (f == 0) {
            TU_CHECK_OK(sinew_debug_poison_output(A.sk, 0, MAXC * NV, 0x7fc00000u));
            TU_CHECK_OK(sinew_debug_poison_output(B.sk, 0, MAXC * NV, 0x7fc00000u));
        }
        sinew_crowd_stats st;
        sinew_error_info e;
        int after_failure = 0;
        if (f == FAIL_FRAME) {
            /* a failed frame (one callback fails): nothing handed to the GPU, the
             * frame count unchanged, and every LOD character starts afresh next
             * frame (its slots may have been written): evaluated, shown at once,
             * its previous positions those of the last successful frame */
            uint32_t bad = 0; /* the last character evaluated this frame: those before it wrote their slots */
            for (uint32_t i = 0; i < count; i++)
                if ((f + i) % people[i].update_every == 0) bad = i;
            motions[people[bad].id].fail = 1;
            TU_CHECK(sinew_crowd_update(A.crowd, ch, count, NULL, &e) == SINEW_ERROR_NON_FINITE &&
                     e.item == SINEW_ITEM_CHARACTER && e.index == bad);
            TU_CHECK_OK(sinew_crowd_prepare_begin(B.crowd, ch, count, NULL, &e));
            (void)sinew_crowd_prepare_run_range(B.crowd, 0, count, &e);
            TU_CHECK(sinew_crowd_prepare_end(B.crowd, NULL, &e) == SINEW_ERROR_NON_FINITE && e.index == bad);
            motions[people[bad].id].fail = 0;
            for (uint32_t i = 0; i < MAXC; i++) st_at[i].valid = 0;
            evals_before = 0;
            for (uint32_t id = 0; id < next_id; id++) evals_before += __atomic_load_n(&motions[id].evals, __ATOMIC_RELAXED);
            after_failure = 1;
        }
        TU_CHECK_OK(sinew_crowd_update(A.crowd, ch, count, &st, &e));
        /* the second crowd through the host-job API, random splits */
        TU_CHECK_OK(sinew_crowd_prepare_begin(B.crowd, ch, count, NULL, &e));
        for (uint32_t first = 0; first < count;) {
            uint32_t n = 1 + tu_range(&r, count - first);
            TU_CHECK_OK(sinew_crowd_prepare_run_range(B.crowd, first, n, &e));
            first += n;
        }
        sinew_crowd_stats stB;
        TU_CHECK_OK(sinew_crowd_prepare_end(B.crowd, &stB, &e));
        TU_CHECK_OK(sinew_skinner_submit(B.sk));
        TU_CHECK_OK(sinew_skinner_read_output(A.sk, 0, count * NV, outA, NULL));
        TU_CHECK_OK(sinew_skinner_read_previous(A.sk, 0, count * NV, prevA));
        TU_CHECK_OK(sinew_skinner_read_output(B.sk, 0, count * NV, outB, NULL));
        TU_CHECK_OK(sinew_skinner_read_previous(B.sk, 0, count * NV, prevB));
        TU_CHECK_MSG(memcmp(outA, outB, sizeof(float) * 3 * count * NV) == 0 &&
                     memcmp(prevA, prevB, sizeof(float) * 3 * count * NV) == 0,
                     "frame %d: 2 threads (prepare) and 1 thread (jobs, random ranges) differ", f);
        TU_CHECK(st.skipped == 0 && stB.interpolated == st.interpolated);

        uint32_t expect_evals = 0, expect_held = 0;
        for (uint32_t i = 0; i < count; i++) {
            const person *p = &people[i];
            uint32_t first = 0, n = 0;
            TU_CHECK_OK(sinew_crowd_character_output(A.crowd, i, 0, &first, &n));
            slot_state *s = &st_at[i];
            /* the rule: fresh (nothing to interpolate from) when the index is new,
             * holds another character (reset_previous) or its output moved */
            int reset = i >= last_count || last_ids[i] != p->id || last_first[i] != first;
            int fresh = reset || !s->valid;
            uint32_t k = (uint32_t)(((uint64_t)f + i) % p->update_every);
            double frac;
            if (fresh) {
                s->valid = 1, s->t_older = s->t_newer = time, s->id = p->id;
                frac = 0;
                expect_evals++;
                fresh_frames++;
            } else if (k == 0) {
                s->t_older = s->t_newer, s->t_newer = time;
                frac = 0;
                expect_evals++;
            } else {
                frac = (double)k / p->update_every;
                expect_held++;
            }
            eval_palette(cpu, cpu_model, p, s->t_older, pal_old);
            eval_palette(cpu, cpu_model, p, s->t_newer, pal_new);
            model_palette(pal_old, pal_new, frac, p->method, pj);
            TU_CHECK_OK(sinew_reference_skin(NV, sinew_rest_mesh_vertices(rm), NULL, pj, NJ, p->method, 0, ref_now[i], NULL));
            double e_out = 0, e_prev = 0, motion_max = 0;
            for (uint32_t v = 0; v < 3 * NV; v++) {
                double o = outA[3 * (size_t)first + v], pv = prevA[3 * (size_t)first + v];
                double want_prev = reset ? ref_now[i][v] : ref_last[i][v]; /* reset: previous = current */
                double d = fabs(o - ref_now[i][v]), dp = fabs(pv - want_prev);
                e_out = isnan(d) ? INFINITY : fmax(e_out, d);
                e_prev = isnan(dp) ? INFINITY : fmax(e_prev, dp);
                motion_max = fmax(motion_max, fabs(o - pv));
            }
            TU_CHECK_MSG(e_out <= TOL, "frame %d character %u (id %u, %s, every %u, k %u%s): output off by %g", f, i, p->id,
                         sinew_method_name(p->method), p->update_every, k, fresh ? ", fresh" : "", e_out);
            TU_CHECK_MSG(e_prev <= TOL, "frame %d character %u (id %u, every %u, k %u%s): previous off by %g", f, i, p->id,
                         p->update_every, k, fresh ? ", fresh" : "", e_prev);
            worst = fmax(worst, e_out);
            worst_prev = fmax(worst_prev, e_prev);
            if (after_failure) TU_CHECK(fresh);
            if (!fresh && k != 0) {
                held++;
                if (s->t_older != s->t_newer) { /* a held frame between two different poses moves */
                    TU_CHECK_MSG(motion_max > MIN_MOTION, "frame %d character %u: held frame without motion (%g)", f, i,
                                 motion_max);
                    moving_held++;
                }
            }
            checked++;
            last_first[i] = first;
        }
        /* the states of indices beyond the count are gone (a later character there is fresh) */
        for (uint32_t i = count; i < MAXC; i++) st_at[i].valid = 0;
        uint32_t evals = 0;
        for (uint32_t id = 0; id < next_id; id++) evals += __atomic_load_n(&motions[id].evals, __ATOMIC_RELAXED);
        /* both GPU crowds call the callback: twice the evaluations of one */
        TU_CHECK_MSG(evals - evals_before == 2 * expect_evals, "frame %d: %u callback calls, expected 2 x %u", f,
                     evals - evals_before, expect_evals);
        evals_before = evals;
        TU_CHECK_MSG(st.interpolated == expect_held, "frame %d: stats.interpolated %u, expected %u", f, st.interpolated,
                     expect_held);
        memcpy(ref_last, ref_now, sizeof ref_now);
        for (uint32_t i = 0; i < count; i++) last_ids[i] = people[i].id;
        last_count = count;
    }
    fprintf(stderr, "%llu character-frames checked (%llu held, %llu of them moving; %llu fresh); worst output %.3g, "
            "previous %.3g (tolerance %g)\n", (unsigned long long)checked, (unsigned long long)held,
            (unsigned long long)moving_held, (unsigned long long)fresh_frames, worst, worst_prev, TOL);
    TU_CHECK(checked > 400 && moving_held > 100 && fresh_frames > 10);
    sinew_crowd_destroy(cpu);
    tu_gpu_crowd_destroy(&A);
    tu_gpu_crowd_destroy(&B);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_rest_mesh_destroy(rm);
    sinew_gpu_destroy(gpu);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_gpu_crowd_lod");
}
