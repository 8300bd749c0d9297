/* Clips and sampling: validation errors, exact values at keys, linear / slerp,
 * step and cubic-spline interpolation against values computed by hand from
 * the glTF 2.0 formulas (tolerance 1e-15) and against an independent
 * brute-force evaluator on random clips in all three modes,
 * loop and clamp, rest pose for joints without channels, the batch job, and
 * the T R S decomposition. Tolerances: 1e-12 (same float64 formulas). */
#include "testutil.h"
#include <sinew/anim.h>
#include <string.h>

#define NJ 4

static sinew_skeleton *make_skeleton(tu_rng *rng, sinew_transform *rest)
{
    int32_t parents[NJ] = { -1, 0, 1, 1 };
    for (int j = 0; j < NJ; j++) {
        rest[j].translation = tu_random_vec3(rng, -1, 1);
        rest[j].rotation = tu_random_quat(rng);
        rest[j].scale = tu_random_vec3(rng, 0.5, 2);
    }
    sinew_skeleton_desc d = { 0 };
    d.joint_count = NJ;
    d.parents = parents;
    d.rest_local = rest;
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    return s;
}

static double vdiff(sinew_vec3 a, sinew_vec3 b)
{
    return fmax(fabs(a.x - b.x), fmax(fabs(a.y - b.y), fabs(a.z - b.z)));
}

/* rotation distance insensitive to the sign of q */
static double qdiff(sinew_quat a, sinew_quat b)
{
    double d1 = fmax(fmax(fabs(a.x - b.x), fabs(a.y - b.y)), fmax(fabs(a.z - b.z), fabs(a.w - b.w)));
    double d2 = fmax(fmax(fabs(a.x + b.x), fabs(a.y + b.y)), fmax(fabs(a.z + b.z), fabs(a.w + b.w)));
    return fmin(d1, d2);
}

static double tdiff(const sinew_transform *a, const sinew_transform *b)
{
    return fmax(vdiff(a->translation, b->translation), fmax(qdiff(a->rotation, b->rotation), vdiff(a->scale, b->scale)));
}

/* Independent evaluator: linear search, explicit formulas (glTF 2.0 spec,
 * appendix C); tan: CUBICSPLINE tangents, in_k at 2k, out_k at 2k+1. */
static sinew_vec3 brute_vec3(const sinew_vec3_key *k, uint32_t n, int mode, const sinew_vec3 *tan, double t)
{
    if (t <= k[0].time) return k[0].value;
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (t >= k[i].time && t < k[i + 1].time) {
            double td = k[i + 1].time - k[i].time, a = (t - k[i].time) / td;
            if (mode == SINEW_INTERPOLATION_STEP) return k[i].value;
            if (mode == SINEW_INTERPOLATION_CUBICSPLINE) {
                double a2 = a * a, a3 = a2 * a;
                sinew_vec3 r = sinew_v3_scale(k[i].value, 2 * a3 - 3 * a2 + 1);
                r = sinew_v3_add(r, sinew_v3_scale(tan[2 * i + 1], td * (a3 - 2 * a2 + a)));
                r = sinew_v3_add(r, sinew_v3_scale(k[i + 1].value, -2 * a3 + 3 * a2));
                return sinew_v3_add(r, sinew_v3_scale(tan[2 * i + 2], td * (a3 - a2)));
            }
            return sinew_v3_add(sinew_v3_scale(k[i].value, 1 - a), sinew_v3_scale(k[i + 1].value, a));
        }
    }
    return k[n - 1].value;
}

static sinew_quat brute_quat(const sinew_quat_key *k, uint32_t n, int mode, const sinew_quat *tan, double t)
{
    if (t <= k[0].time) return sinew_quat_normalize(k[0].value);
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (t >= k[i].time && t < k[i + 1].time) {
            double td = k[i + 1].time - k[i].time, a = (t - k[i].time) / td;
            sinew_quat p = sinew_quat_normalize(k[i].value), q = sinew_quat_normalize(k[i + 1].value);
            if (mode == SINEW_INTERPOLATION_STEP) return p;
            if (mode == SINEW_INTERPOLATION_CUBICSPLINE) {
                double a2 = a * a, a3 = a2 * a;
                double w0 = 2 * a3 - 3 * a2 + 1, w1 = td * (a3 - 2 * a2 + a), w2 = -2 * a3 + 3 * a2, w3 = td * (a3 - a2);
                sinew_quat b = tan[2 * i + 1], c = tan[2 * i + 2];
                sinew_quat r = { w0 * p.x + w1 * b.x + w2 * q.x + w3 * c.x, w0 * p.y + w1 * b.y + w2 * q.y + w3 * c.y,
                                 w0 * p.z + w1 * b.z + w2 * q.z + w3 * c.z, w0 * p.w + w1 * b.w + w2 * q.w + w3 * c.w };
                return sinew_quat_normalize(r);
            }
            double d = p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
            if (d < 0) { q.x = -q.x; q.y = -q.y; q.z = -q.z; q.w = -q.w; d = -d; }
            double th = acos(fmin(1, d));
            double wa, wb;
            if (th < 1e-9) { wa = 1 - a; wb = a; }
            else { wa = sin((1 - a) * th) / sin(th); wb = sin(a * th) / sin(th); }
            sinew_quat r = { wa * p.x + wb * q.x, wa * p.y + wb * q.y, wa * p.z + wb * q.z, wa * p.w + wb * q.w };
            return sinew_quat_normalize(r);
        }
    }
    return sinew_quat_normalize(k[n - 1].value);
}

static void test_errors(void)
{
    sinew_vec3_key vk[2] = { { 0, { 0, 0, 0 } }, { 1, { 1, 1, 1 } } };
    sinew_quat_key qk[2] = { { 0, { 0, 0, 0, 1 } }, { 1, { 0, 0, 1, 0 } } };
    sinew_channel_desc ch = { 1, 2, vk, 2, qk, 0, NULL };
    sinew_clip_desc d = { 0 };
    d.joint_count = 3;
    d.channel_count = 1;
    d.channels = &ch;
    sinew_clip *c = NULL;
    TU_CHECK_RESULT(sinew_clip_create(NULL, &c), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_create(&d, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    TU_CHECK(c != NULL);
    TU_CHECK_NEAR(sinew_clip_ticks_per_second(c), 25.0, 0);
    TU_CHECK_NEAR(sinew_clip_duration_ticks(c), 1.0, 0);   /* 0 -> last key */
    TU_CHECK_NEAR(sinew_clip_duration(c), 1.0 / 25.0, 1e-15);
    TU_CHECK(sinew_clip_key_count(c) == 4);
    TU_CHECK(sinew_clip_animates(c, 1) && !sinew_clip_animates(c, 0) && !sinew_clip_animates(c, 7));
    TU_CHECK(strcmp(sinew_clip_name(c), "") == 0);
    sinew_clip_destroy(c);
    sinew_clip_destroy(NULL);

    sinew_clip_desc e = d;
    e.joint_count = 0; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.channels = NULL; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.duration = -1; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.duration = NAN; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    e = d; e.ticks_per_second = -5; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.ticks_per_second = INFINITY; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    sinew_channel_desc bad = ch;
    e = d; e.channels = &bad;
    bad.joint = 3; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_JOINT_INDEX);
    bad = ch; bad.translations = NULL; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_vec3_key vbad[2] = { { 1, { 0, 0, 0 } }, { 0, { 1, 1, 1 } } };    /* out of order */
    bad = ch; bad.translations = vbad; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    vbad[0].time = NAN;
    TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    vbad[0].time = 0; vbad[1].time = 1; vbad[1].value.y = INFINITY;
    TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    bad = ch; bad.scale_count = 2; bad.scales = vbad; /* scale with inf */
    TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    sinew_quat_key qbad[2] = { { 0, { 0, 0, 0, 0 } }, { 1, { 0, 0, 0, 1 } } };
    bad = ch; bad.rotations = qbad; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    qbad[0].value.w = NAN; TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_NON_FINITE);
    sinew_channel_desc two[2] = { ch, ch };   /* same joint twice */
    e = d; e.channels = two; e.channel_count = 2;
    TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.channel_count = 4; e.channels = two; /* more channels than joints */
    TU_CHECK_RESULT(sinew_clip_create(&e, &c), SINEW_ERROR_INVALID_ARGUMENT);
}

static void test_basic_sampling(tu_rng *rng)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = make_skeleton(rng, rest);
    if (!s) return;
    /* joint 1: T at ticks 0, 10, 20 and R at 0, 20; joint 3: S only. tps 10 -> 2 s. */
    sinew_vec3_key tk[3] = { { 0, { 0, 0, 0 } }, { 10, { 1, 2, 3 } }, { 20, { 1, 0, 3 } } };
    sinew_quat_key rk[2] = { { 0, { 0, 0, 0, 1 } }, { 20, { 0, 0, sin(M_PI / 4), cos(M_PI / 4) } } }; /* 90 deg about z */
    sinew_vec3_key sk[1] = { { 5, { 2, 3, 4 } } };
    sinew_channel_desc ch[2] = { { 1, 3, tk, 2, rk, 0, NULL }, { 3, 0, NULL, 0, NULL, 1, sk } };
    sinew_clip_desc d = { 0 };
    d.name = "walk";
    d.joint_count = NJ;
    d.ticks_per_second = 10;
    d.channel_count = 2;
    d.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    if (!c) { sinew_skeleton_destroy(s); return; }
    TU_CHECK(strcmp(sinew_clip_name(c), "walk") == 0);
    TU_CHECK_NEAR(sinew_clip_duration(c), 2.0, 1e-15);
    sinew_transform out[NJ];
    /* at t = 0.5 s = tick 5: T halfway between key 0 and 1, R a quarter of the way */
    TU_CHECK_OK(sinew_clip_sample(c, s, 0.5, SINEW_WRAP_CLAMP, out));
    TU_CHECK(tdiff(&out[0], &rest[0]) == 0);            /* no channel: rest, exactly */
    TU_CHECK(tdiff(&out[2], &rest[2]) == 0);
    TU_CHECK(vdiff(out[1].translation, sinew_v3(0.5, 1, 1.5)) < 1e-12);
    sinew_quat q = { 0, 0, sin(M_PI / 16), cos(M_PI / 16) };  /* 22.5 deg */
    TU_CHECK_MSG(qdiff(out[1].rotation, q) < 1e-12, "slerp off by %g", qdiff(out[1].rotation, q));
    TU_CHECK(vdiff(out[1].scale, rest[1].scale) == 0);  /* no scale keys: rest scale */
    TU_CHECK(vdiff(out[3].scale, sinew_v3(2, 3, 4)) == 0);
    TU_CHECK(vdiff(out[3].translation, rest[3].translation) == 0);
    TU_CHECK(qdiff(out[3].rotation, rest[3].rotation) == 0);
    /* exact key */
    TU_CHECK_OK(sinew_clip_sample(c, s, 1.0, SINEW_WRAP_CLAMP, out));
    TU_CHECK(vdiff(out[1].translation, sinew_v3(1, 2, 3)) == 0);
    /* clamp past the end and before the start */
    TU_CHECK_OK(sinew_clip_sample(c, s, 7.0, SINEW_WRAP_CLAMP, out));
    TU_CHECK(vdiff(out[1].translation, sinew_v3(1, 0, 3)) == 0);
    TU_CHECK(qdiff(out[1].rotation, rk[1].value) < 1e-15);
    TU_CHECK_OK(sinew_clip_sample(c, s, -3.0, SINEW_WRAP_CLAMP, out));
    TU_CHECK(vdiff(out[1].translation, sinew_v3(0, 0, 0)) == 0);
    /* loop: 2.5 s == 0.5 s, -1.5 s == 0.5 s */
    sinew_transform ref[NJ], lp[NJ];
    TU_CHECK_OK(sinew_clip_sample(c, s, 0.5, SINEW_WRAP_LOOP, ref));
    TU_CHECK_OK(sinew_clip_sample(c, s, 2.5, SINEW_WRAP_LOOP, lp));
    TU_CHECK(tdiff(&ref[1], &lp[1]) < 1e-12);
    TU_CHECK_OK(sinew_clip_sample(c, s, -1.5, SINEW_WRAP_LOOP, lp));
    TU_CHECK(tdiff(&ref[1], &lp[1]) < 1e-12);
    /* NULL clip = rest pose; errors */
    TU_CHECK_OK(sinew_clip_sample(NULL, s, 3.0, SINEW_WRAP_LOOP, out));
    for (int j = 0; j < NJ; j++) TU_CHECK(tdiff(&out[j], &rest[j]) == 0);
    TU_CHECK_RESULT(sinew_clip_sample(c, s, NAN, SINEW_WRAP_LOOP, out), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_clip_sample(c, s, INFINITY, SINEW_WRAP_CLAMP, out), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_clip_sample(c, NULL, 0, SINEW_WRAP_LOOP, out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_sample(c, s, 0, SINEW_WRAP_LOOP, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_sample(c, s, 0, (sinew_wrap)7, out), SINEW_ERROR_INVALID_ARGUMENT);
    /* a clip made for another joint count */
    sinew_clip_desc d2 = d;
    d2.joint_count = NJ + 1;
    sinew_clip *c2 = NULL;
    TU_CHECK_OK(sinew_clip_create(&d2, &c2));
    TU_CHECK_RESULT(sinew_clip_sample(c2, s, 0, SINEW_WRAP_LOOP, out), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_clip_destroy(c2);
    sinew_clip_destroy(c);
    sinew_skeleton_destroy(s);
}

/* Random clips: compares against the brute-force evaluator. */
static void test_random_clips(tu_rng *rng)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = make_skeleton(rng, rest);
    if (!s) return;
    double worst = 0;
    for (int iter = 0; iter < 40; iter++) {
        enum { MAXK = 24 };
        sinew_vec3_key tk[NJ][MAXK], sk[NJ][MAXK];
        sinew_quat_key rk[NJ][MAXK];
        sinew_vec3 ttan[NJ][2 * MAXK], stan[NJ][2 * MAXK];
        sinew_quat rtan[NJ][2 * MAXK];
        sinew_channel_desc ch[NJ];
        uint32_t nch = 0;
        for (uint32_t j = 0; j < NJ; j++) {
            if (tu_range(rng, 4) == 0) continue;  /* some joints without a channel */
            sinew_channel_desc *c = &ch[nch++];
            memset(c, 0, sizeof *c);
            c->joint = j;
            uint32_t n[3] = { tu_range(rng, MAXK + 1), tu_range(rng, MAXK + 1), tu_range(rng, MAXK + 1) };
            double t = tu_uniform(rng, -2, 2);
            for (uint32_t k = 0; k < n[0]; k++) {
                t += tu_range(rng, 5) == 0 ? 0 : tu_uniform(rng, 0.01, 3); /* repeated times too */
                tk[j][k].time = t; tk[j][k].value = tu_random_vec3(rng, -5, 5);
            }
            t = tu_uniform(rng, -2, 2);
            for (uint32_t k = 0; k < n[1]; k++) {
                t += tu_uniform(rng, 0.01, 3);
                rk[j][k].time = t; rk[j][k].value = tu_random_quat(rng);
                double m = tu_uniform(rng, 0.1, 3); /* non-unit input is normalized */
                rk[j][k].value.x *= m; rk[j][k].value.y *= m; rk[j][k].value.z *= m; rk[j][k].value.w *= m;
            }
            t = tu_uniform(rng, -2, 2);
            for (uint32_t k = 0; k < n[2]; k++) {
                t += tu_uniform(rng, 0.01, 3);
                sk[j][k].time = t; sk[j][k].value = tu_random_vec3(rng, 0.2, 3);
            }
            c->translation_count = n[0]; c->translations = tk[j];
            c->rotation_count = n[1]; c->rotations = rk[j];
            c->scale_count = n[2]; c->scales = sk[j];
            for (uint32_t k = 0; k < 2 * MAXK; k++) {
                ttan[j][k] = tu_random_vec3(rng, -3, 3);
                stan[j][k] = tu_random_vec3(rng, -1, 1);
                sinew_quat q = { tu_uniform(rng, -1, 1), tu_uniform(rng, -1, 1), tu_uniform(rng, -1, 1), tu_uniform(rng, -1, 1) };
                rtan[j][k] = q;
            }
            c->translation_interpolation = (sinew_interpolation)tu_range(rng, 3);
            c->rotation_interpolation = (sinew_interpolation)tu_range(rng, 3);
            c->scale_interpolation = (sinew_interpolation)tu_range(rng, 3);
            c->translation_tangents = ttan[j];
            c->rotation_tangents = rtan[j];
            c->scale_tangents = stan[j];
        }
        sinew_clip_desc d = { 0 };
        d.joint_count = NJ;
        d.duration = tu_uniform(rng, 1, 60);
        d.ticks_per_second = tu_range(rng, 3) == 0 ? 0 : tu_uniform(rng, 1, 60);
        d.channel_count = nch;
        d.channels = ch;
        sinew_clip *clip = NULL;
        TU_CHECK_OK(sinew_clip_create(&d, &clip));
        if (!clip) continue;
        double tps = d.ticks_per_second > 0 ? d.ticks_per_second : 25.0;
        for (int k = 0; k < 20; k++) {
            double ts = tu_uniform(rng, -2, 2) * d.duration / tps;
            int loop = (int)tu_range(rng, 2);
            sinew_transform out[NJ];
            TU_CHECK_OK(sinew_clip_sample(clip, s, ts, loop ? SINEW_WRAP_LOOP : SINEW_WRAP_CLAMP, out));
            double tick = ts * tps;
            if (loop) { tick = fmod(tick, d.duration); if (tick < 0) tick += d.duration; }
            else tick = fmin(fmax(tick, 0), d.duration);
            sinew_transform exp[NJ];
            memcpy(exp, rest, sizeof exp);
            for (uint32_t c = 0; c < nch; c++) {
                sinew_transform *x = &exp[ch[c].joint];
                const sinew_channel_desc *cc = &ch[c];
                if (cc->translation_count)
                    x->translation = brute_vec3(cc->translations, cc->translation_count,
                                                cc->translation_interpolation, cc->translation_tangents, tick);
                if (cc->rotation_count)
                    x->rotation = brute_quat(cc->rotations, cc->rotation_count, cc->rotation_interpolation,
                                             cc->rotation_tangents, tick);
                if (cc->scale_count)
                    x->scale = brute_vec3(cc->scales, cc->scale_count, cc->scale_interpolation, cc->scale_tangents, tick);
            }
            for (int j = 0; j < NJ; j++) {
                double e = tdiff(&out[j], &exp[j]);
                if (e > worst) worst = e;
            }
        }
        sinew_clip_destroy(clip);
    }
    fprintf(stderr, "random clips (linear, step, cubic): worst difference to brute force %.3g (tolerance 1e-11)\n", worst);
    TU_CHECK(worst < 1e-11);
    sinew_skeleton_destroy(s);
}

static void test_job(tu_rng *rng)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = make_skeleton(rng, rest);
    if (!s) return;
    sinew_vec3_key tk[4];
    sinew_quat_key rk[4];
    for (int k = 0; k < 4; k++) {
        tk[k].time = rk[k].time = k * 7.0;
        tk[k].value = tu_random_vec3(rng, -1, 1);
        rk[k].value = tu_random_quat(rng);
    }
    sinew_channel_desc ch = { 2, 4, tk, 4, rk, 0, NULL };
    sinew_clip_desc d = { 0 };
    d.joint_count = NJ; d.channel_count = 1; d.channels = &ch; d.ticks_per_second = 30;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    enum { N = 50, STRIDE = NJ + 3 };
    const sinew_clip *clips[N];
    double times[N];
    uint8_t wraps[N];
    static sinew_transform poses[N * STRIDE];
    for (int i = 0; i < N; i++) {
        clips[i] = tu_range(rng, 5) == 0 ? NULL : c;
        times[i] = tu_uniform(rng, -3, 3);
        wraps[i] = (uint8_t)tu_range(rng, 2);
    }
    sinew_sample_job job = { 0 };
    job.skeleton = s; job.count = N; job.clips = clips; job.times = times; job.wraps = wraps;
    job.poses = poses; job.pose_stride = STRIDE;
    TU_CHECK_OK(sinew_sample_job_validate(&job));
    TU_CHECK_OK(sinew_sample_job_run_range(&job, 0, 20));
    TU_CHECK_OK(sinew_sample_job_run_range(&job, 20, N - 20));
    TU_CHECK_OK(sinew_sample_job_run_range(&job, N, 0));
    int mismatches = 0;
    for (int i = 0; i < N; i++) {
        sinew_transform one[NJ];
        TU_CHECK_OK(sinew_clip_sample(clips[i], s, times[i], (sinew_wrap)wraps[i], one));
        if (memcmp(one, poses + i * STRIDE, sizeof one)) mismatches++;
    }
    TU_CHECK_MSG(mismatches == 0, "%d characters differ from single sampling", mismatches);
    /* one wrap for all, default stride */
    static sinew_transform packed[N * NJ];
    sinew_sample_job j2 = job;
    j2.wraps = NULL; j2.wrap = SINEW_WRAP_CLAMP; j2.poses = packed; j2.pose_stride = 0;
    TU_CHECK_OK(sinew_sample_job_run(&j2));
    sinew_transform one[NJ];
    TU_CHECK_OK(sinew_clip_sample(clips[N - 1], s, times[N - 1], SINEW_WRAP_CLAMP, one));
    TU_CHECK(memcmp(one, packed + (N - 1) * NJ, sizeof one) == 0);

    /* validation: every error path, and nothing written on error */
    memset(packed, 0xff, sizeof packed);
    sinew_sample_job b;
    b = j2; b.skeleton = NULL; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.clips = NULL; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.times = NULL; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.poses = NULL; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.count = 0; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.pose_stride = NJ - 1; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; b.wrap = (sinew_wrap)9; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    b = j2; wraps[7] = 5; b.wraps = wraps; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    wraps[7] = 0;
    b = j2; times[9] = NAN; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_NON_FINITE);
    times[9] = 0;
    TU_CHECK_RESULT(sinew_sample_job_run_range(&j2, 10, N), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_sample_job_run_range(&j2, N + 1, 0), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_sample_job_run(NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_clip_desc dw = d; dw.joint_count = NJ + 2;
    sinew_clip *cw = NULL;
    TU_CHECK_OK(sinew_clip_create(&dw, &cw));
    clips[3] = cw;
    b = j2; TU_CHECK_RESULT(sinew_sample_job_run(&b), SINEW_ERROR_INVALID_ARGUMENT);
    unsigned char ff[sizeof packed];
    memset(ff, 0xff, sizeof ff);
    TU_CHECK_MSG(memcmp(ff, packed, sizeof packed) == 0, "a failed job wrote poses");
    sinew_clip_destroy(cw);
    sinew_clip_destroy(c);
    sinew_skeleton_destroy(s);
}

static void test_decompose(tu_rng *rng)
{
    double worst = 0;
    for (int i = 0; i < 500; i++) {
        sinew_transform t = { tu_random_vec3(rng, -10, 10), tu_random_quat(rng), tu_random_vec3(rng, 0.1, 5) };
        if (i % 3 == 0) t.scale.x = -t.scale.x;   /* mirror */
        sinew_mat4 m = sinew_mat4_from_transform(&t);
        sinew_transform o;
        double e = -1;
        TU_CHECK_OK(sinew_transform_from_mat4(&m, &o, &e));
        sinew_mat4 back = sinew_mat4_from_transform(&o);
        double d = 0;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) d = fmax(d, fabs(back.m[c][r] - m.m[c][r]));
        TU_CHECK_NEAR(d, e, 1e-15);
        worst = fmax(worst, d);
    }
    fprintf(stderr, "TRS split round trip: worst element error %.3g (tolerance 1e-12)\n", worst);
    TU_CHECK(worst < 1e-12);
    /* shear is reported */
    sinew_mat4 sh = sinew_mat4_identity();
    sh.m[1][0] = 0.5;
    sinew_transform o;
    double e = 0;
    TU_CHECK_OK(sinew_transform_from_mat4(&sh, &o, &e));
    TU_CHECK_MSG(e > 0.05, "shear error %g", e);
    sinew_mat4 z = sinew_mat4_identity();
    z.m[2][2] = 0; z.m[2][0] = 0;
    TU_CHECK_RESULT(sinew_transform_from_mat4(&z, &o, NULL), SINEW_ERROR_SINGULAR);
    z = sinew_mat4_identity();
    z.m[3][1] = NAN;
    TU_CHECK_RESULT(sinew_transform_from_mat4(&z, &o, NULL), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_transform_from_mat4(NULL, &o, NULL), SINEW_ERROR_INVALID_ARGUMENT);
}

/* Hand-computed values of the glTF 2.0 interpolation formulas. One joint,
 * ticks_per_second 1 so key times are seconds. */
static void test_interpolation_modes(tu_rng *rng)
{
    sinew_transform rest[NJ];
    sinew_skeleton *s = make_skeleton(rng, rest);
    if (!s) return;
    /* CUBICSPLINE translation: v0 = 0 at t=0, v1 = (1,2,3) at t=2, out_0 = (1,0,0),
     * in_1 = (0,0,-1); in_0 and out_1 are large and must not matter inside [0,2].
     * s = 0.5: weights (0.5, 0.125, 0.5, -0.125), d = 2:
     *   p = 0.5 v1 + 0.25 out_0 - 0.25 in_1 = (0.75, 1, 1.75)
     * s = 0.25 (t = 0.5): weights (0.84375, 0.140625, 0.15625, -0.046875):
     *   p = 0.15625 v1 + 0.28125 out_0 - 0.09375 in_1 = (0.4375, 0.3125, 0.5625) */
    sinew_vec3_key tk[2] = { { 0, { 0, 0, 0 } }, { 2, { 1, 2, 3 } } };
    sinew_vec3 ttan[4] = { { 100, 100, 100 }, { 1, 0, 0 }, { 0, 0, -1 }, { -100, 50, 100 } };
    /* CUBICSPLINE rotation: identity at 0, (0,0,1,0) (180 deg about z) at 2.
     * out_0 = (0,0,1,0), in_1 = 0. s = 0.5: 0.5 q0 + 0.5 q1 + 0.25 out_0 =
     * (0, 0, 0.75, 0.5) -> normalized (0, 0, 0.75, 0.5) / sqrt(0.8125). */
    sinew_quat_key rk[2] = { { 0, { 0, 0, 0, 1 } }, { 2, { 0, 0, 1, 0 } } };
    sinew_quat rtan[4] = { { 9, 9, 9, 9 }, { 0, 0, 1, 0 }, { 0, 0, 0, 0 }, { -9, 9, -9, 9 } };
    /* STEP scale: (1,1,1) at 0, (2,2,2) at 1, (5,5,5) at 3. */
    sinew_vec3_key sk[3] = { { 0, { 1, 1, 1 } }, { 1, { 2, 2, 2 } }, { 3, { 5, 5, 5 } } };
    /* joint 2: STEP rotation, LINEAR (slerp) translation from the same keys */
    sinew_quat_key rk2[2] = { { 0, { 0, 0, 0, 1 } }, { 2, { 0, 0, -sqrt(0.5), -sqrt(0.5) } } }; /* 90 deg about z, far sign */
    sinew_channel_desc ch[2];
    memset(ch, 0, sizeof ch);
    ch[0].joint = 1;
    ch[0].translation_count = 2; ch[0].translations = tk;
    ch[0].translation_interpolation = SINEW_INTERPOLATION_CUBICSPLINE; ch[0].translation_tangents = ttan;
    ch[0].rotation_count = 2; ch[0].rotations = rk;
    ch[0].rotation_interpolation = SINEW_INTERPOLATION_CUBICSPLINE; ch[0].rotation_tangents = rtan;
    ch[0].scale_count = 3; ch[0].scales = sk;
    ch[0].scale_interpolation = SINEW_INTERPOLATION_STEP;
    ch[1].joint = 2;
    ch[1].rotation_count = 2; ch[1].rotations = rk2;
    ch[1].rotation_interpolation = SINEW_INTERPOLATION_STEP;
    ch[1].scale_count = 3; ch[1].scales = sk;        /* LINEAR by default */
    ch[1].translation_count = 2; ch[1].translations = tk; /* LINEAR */
    sinew_clip_desc d = { 0 };
    d.joint_count = NJ; d.ticks_per_second = 1; d.channel_count = 2; d.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    if (!c) { sinew_skeleton_destroy(s); return; }
    TU_CHECK_NEAR(sinew_clip_duration(c), 3.0, 0);
    sinew_transform o[NJ];
    TU_CHECK_OK(sinew_clip_sample(c, s, 1.0, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].translation, sinew_v3(0.75, 1, 1.75)) < 1e-15);
    double n = sqrt(0.8125);
    sinew_quat qe = { 0, 0, 0.75 / n, 0.5 / n };
    TU_CHECK(qdiff(o[1].rotation, qe) < 1e-15);
    TU_CHECK(vdiff(o[1].scale, sinew_v3(2, 2, 2)) == 0);          /* step: key at t = 1 holds from t = 1 */
    TU_CHECK(vdiff(o[2].translation, sinew_v3(0.5, 1, 1.5)) < 1e-15); /* linear */
    TU_CHECK(vdiff(o[2].scale, sinew_v3(2, 2, 2)) < 1e-15);
    TU_CHECK(qdiff(o[2].rotation, rk2[0].value) == 0);            /* step: first key until t = 2 */
    TU_CHECK_OK(sinew_clip_sample(c, s, 0.5, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].translation, sinew_v3(0.4375, 0.3125, 0.5625)) < 1e-15);
    TU_CHECK(vdiff(o[1].scale, sinew_v3(1, 1, 1)) == 0);
    TU_CHECK(vdiff(o[2].scale, sinew_v3(1.5, 1.5, 1.5)) < 1e-15);
    /* slerp takes the shorter arc: half way to 90 deg about z is 45 deg about z */
    sinew_quat q45 = { 0, 0, sin(M_PI / 8), cos(M_PI / 8) };
    TU_CHECK(qdiff(o[2].rotation, rk2[0].value) == 0);
    TU_CHECK_OK(sinew_clip_sample(c, s, 0.999999, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].scale, sinew_v3(1, 1, 1)) == 0);
    TU_CHECK_OK(sinew_clip_sample(c, s, 2.5, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].scale, sinew_v3(2, 2, 2)) == 0);
    TU_CHECK(vdiff(o[2].scale, sinew_v3(4.25, 4.25, 4.25)) < 1e-15); /* 2 + 0.75 * 3 */
    TU_CHECK(vdiff(o[1].translation, sinew_v3(1, 2, 3)) == 0);    /* after the last key it holds */
    TU_CHECK(qdiff(o[1].rotation, rk[1].value) == 0);
    TU_CHECK(qdiff(o[2].rotation, rk2[1].value) < 1e-15);
    TU_CHECK_OK(sinew_clip_sample(c, s, 3, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].scale, sinew_v3(5, 5, 5)) == 0);
    TU_CHECK_OK(sinew_clip_sample(c, s, 0, SINEW_WRAP_CLAMP, o));
    TU_CHECK(vdiff(o[1].translation, sinew_v3(0, 0, 0)) == 0);
    TU_CHECK(qdiff(o[1].rotation, rk[0].value) == 0);
    sinew_clip_destroy(c);

    /* the same rotation keys LINEAR: slerp half way, 45 deg about z */
    ch[1].rotation_interpolation = SINEW_INTERPOLATION_LINEAR;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    if (c) {
        TU_CHECK_OK(sinew_clip_sample(c, s, 1.0, SINEW_WRAP_CLAMP, o));
        TU_CHECK(qdiff(o[2].rotation, q45) < 1e-15);
        sinew_clip_destroy(c);
    }

    /* A cubic rotation through zero (q and -q, zero tangents) falls back to a key, no NaN. */
    sinew_quat_key rz[2] = { { 0, { 0, 0, 0, 1 } }, { 2, { 0, 0, 0, -1 } } };
    sinew_quat zt[4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
    sinew_channel_desc cz;
    memset(&cz, 0, sizeof cz);
    cz.joint = 0; cz.rotation_count = 2; cz.rotations = rz;
    cz.rotation_interpolation = SINEW_INTERPOLATION_CUBICSPLINE; cz.rotation_tangents = zt;
    d.channel_count = 1; d.channels = &cz;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    if (c) {
        TU_CHECK_OK(sinew_clip_sample(c, s, 1.0, SINEW_WRAP_CLAMP, o));
        TU_CHECK(qdiff(o[0].rotation, rz[1].value) == 0);
        TU_CHECK_OK(sinew_clip_sample(c, s, 0.5, SINEW_WRAP_CLAMP, o));
        TU_CHECK(qdiff(o[0].rotation, rz[0].value) == 0);
        sinew_clip_destroy(c);
    }

    /* errors: bad mode, CUBICSPLINE without tangents, non-finite tangent */
    sinew_channel_desc bad = ch[0];
    d.channels = &bad;
    bad.scale_interpolation = SINEW_INTERPOLATION_COUNT;
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_INVALID_ARGUMENT);
    bad = ch[0]; bad.rotation_tangents = NULL;
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_INVALID_ARGUMENT);
    bad = ch[0]; bad.translation_tangents = NULL;
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_INVALID_ARGUMENT);
    bad = ch[0]; bad.scale_interpolation = SINEW_INTERPOLATION_CUBICSPLINE; /* no scale tangents */
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_INVALID_ARGUMENT);
    bad = ch[0]; bad.scale_count = 0; bad.scale_interpolation = SINEW_INTERPOLATION_CUBICSPLINE; /* empty: fine */
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    sinew_clip_destroy(c);
    c = NULL;
    ttan[3].y = NAN; /* an unused tangent (out of the last key) is still checked */
    bad = ch[0];
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_NON_FINITE);
    ttan[3].y = 50;
    rtan[0].w = INFINITY;
    TU_CHECK_RESULT(sinew_clip_create(&d, &c), SINEW_ERROR_NON_FINITE);
    rtan[0].w = 9;
    bad.translation_interpolation = SINEW_INTERPOLATION_LINEAR; bad.translation_tangents = NULL; /* ignored */
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    sinew_clip_destroy(c);
    sinew_skeleton_destroy(s);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xA11A7E5ull);
    test_errors();
    test_basic_sampling(&rng);
    test_interpolation_modes(&rng);
    test_random_clips(&rng);
    test_job(&rng);
    test_decompose(&rng);
    return tu_finish("test_anim");
}
