/* Sinew animation clips: creation, validation and sampling (see anim.h). */
#include "sinew/anim.h"
#include "alloc_internal.h"

#include <math.h>
#include <string.h>

typedef struct clip_channel {
    uint32_t joint;
    uint32_t t_first, t_count;
    uint32_t r_first, r_count;
    uint32_t s_first, s_count;
    uint8_t t_mode, r_mode, s_mode;   /* sinew_interpolation */
    uint32_t t_tan, r_tan, s_tan;     /* CUBICSPLINE: first tangent (in_k at 2k, out_k at 2k+1) */
} clip_channel;

struct sinew_clip {
    sinew_allocator alloc;        /* resolved at creation; frees the clip */
    char *name;
    uint32_t joint_count, channel_count, key_count;
    double duration_ticks, ticks_per_second;
    int32_t *joint_channel;       /* joint -> channel index, -1 = none */
    clip_channel *channels;
    sinew_vec3_key *tkeys;
    sinew_quat_key *rkeys;
    sinew_vec3_key *skeys;
    sinew_vec3 *vtan;             /* tangents of CUBICSPLINE translation and scale tracks */
    sinew_quat *qtan;             /* tangents of CUBICSPLINE rotation tracks */
};

static int finite3(sinew_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static size_t align_up(size_t x) { return (x + 15u) & ~(size_t)15u; }

static sinew_result check_track_times(const void *keys, size_t key_size, uint32_t n)
{
    double prev = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double t = *(const double *)((const char *)keys + (size_t)i * key_size);
        if (!isfinite(t)) return SINEW_ERROR_NON_FINITE;
        if (t < prev) return SINEW_ERROR_INVALID_ARGUMENT;
        prev = t;
    }
    return SINEW_OK;
}

static int cubic(sinew_interpolation m) { return m == SINEW_INTERPOLATION_CUBICSPLINE; }

/* Checks a channel's interpolation modes and the tangents of its CUBICSPLINE tracks. */
static sinew_result check_channel_modes(const sinew_channel_desc *ch)
{
    if ((unsigned)ch->translation_interpolation >= (unsigned)SINEW_INTERPOLATION_COUNT ||
        (unsigned)ch->rotation_interpolation >= (unsigned)SINEW_INTERPOLATION_COUNT ||
        (unsigned)ch->scale_interpolation >= (unsigned)SINEW_INTERPOLATION_COUNT)
        return SINEW_ERROR_INVALID_ARGUMENT;
    if ((cubic(ch->translation_interpolation) && ch->translation_count && !ch->translation_tangents) ||
        (cubic(ch->rotation_interpolation) && ch->rotation_count && !ch->rotation_tangents) ||
        (cubic(ch->scale_interpolation) && ch->scale_count && !ch->scale_tangents))
        return SINEW_ERROR_INVALID_ARGUMENT;
    if (cubic(ch->translation_interpolation))
        for (uint32_t k = 0; k < 2 * ch->translation_count; k++)
            if (!finite3(ch->translation_tangents[k])) return SINEW_ERROR_NON_FINITE;
    if (cubic(ch->scale_interpolation))
        for (uint32_t k = 0; k < 2 * ch->scale_count; k++)
            if (!finite3(ch->scale_tangents[k])) return SINEW_ERROR_NON_FINITE;
    if (cubic(ch->rotation_interpolation))
        for (uint32_t k = 0; k < 2 * ch->rotation_count; k++) {
            sinew_quat q = ch->rotation_tangents[k];
            if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w)) return SINEW_ERROR_NON_FINITE;
        }
    return SINEW_OK;
}

/* Checks a channel's keys: times finite and ordered, values finite, rotations
 * non-zero; then its modes and tangents. */
static sinew_result check_channel_keys(const sinew_channel_desc *ch)
{
    sinew_result r;
    if ((r = check_track_times(ch->translations, sizeof(sinew_vec3_key), ch->translation_count))) return r;
    if ((r = check_track_times(ch->rotations, sizeof(sinew_quat_key), ch->rotation_count))) return r;
    if ((r = check_track_times(ch->scales, sizeof(sinew_vec3_key), ch->scale_count))) return r;
    for (uint32_t k = 0; k < ch->translation_count; k++)
        if (!finite3(ch->translations[k].value)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t k = 0; k < ch->scale_count; k++)
        if (!finite3(ch->scales[k].value)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t k = 0; k < ch->rotation_count; k++) {
        sinew_quat q = ch->rotations[k].value;
        if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w)) return SINEW_ERROR_NON_FINITE;
        double n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (!(n2 > 1e-24)) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    return check_channel_modes(ch);
}

/* Validates a clip description (everything but the allocator); returns the key
 * counts per kind (translation, rotation, scale), the tangent counts (vec3,
 * quat) and the last key time. */
static sinew_result check_clip_desc(const sinew_clip_desc *d, uint64_t counts[5], double *last_key_out)
{
    if (d->joint_count == 0 || d->joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_INVALID_ARGUMENT;
    if (d->channel_count && !d->channels) return SINEW_ERROR_INVALID_ARGUMENT;
    if (d->channel_count > d->joint_count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!isfinite(d->duration) || !isfinite(d->ticks_per_second)) return SINEW_ERROR_NON_FINITE;
    if (d->duration < 0 || d->ticks_per_second < 0) return SINEW_ERROR_INVALID_ARGUMENT;

    uint64_t nt = 0, nr = 0, ns = 0, nvt = 0, nqt = 0;
    double last_key = 0;
    for (uint32_t c = 0; c < d->channel_count; c++) {
        const sinew_channel_desc *ch = &d->channels[c];
        if (ch->joint >= d->joint_count) return SINEW_ERROR_JOINT_INDEX;
        if ((ch->translation_count && !ch->translations) || (ch->rotation_count && !ch->rotations) ||
            (ch->scale_count && !ch->scales))
            return SINEW_ERROR_INVALID_ARGUMENT;
        nt += ch->translation_count;
        nr += ch->rotation_count;
        ns += ch->scale_count;
        if (nt + nr + ns > SINEW_MAX_CLIP_KEYS) return SINEW_ERROR_LIMIT_EXCEEDED;
        sinew_result r = check_channel_keys(ch);
        if (r) return r;
        if (cubic(ch->translation_interpolation)) nvt += 2u * ch->translation_count;
        if (cubic(ch->scale_interpolation)) nvt += 2u * ch->scale_count;
        if (cubic(ch->rotation_interpolation)) nqt += 2u * ch->rotation_count;
        if (ch->translation_count && ch->translations[ch->translation_count - 1].time > last_key)
            last_key = ch->translations[ch->translation_count - 1].time;
        if (ch->rotation_count && ch->rotations[ch->rotation_count - 1].time > last_key)
            last_key = ch->rotations[ch->rotation_count - 1].time;
        if (ch->scale_count && ch->scales[ch->scale_count - 1].time > last_key)
            last_key = ch->scales[ch->scale_count - 1].time;
    }
    /* at most one channel per joint */
    for (uint32_t c = 0; c < d->channel_count; c++)
        for (uint32_t e = c + 1; e < d->channel_count; e++)
            if (d->channels[c].joint == d->channels[e].joint) return SINEW_ERROR_INVALID_ARGUMENT;
    counts[0] = nt; counts[1] = nr; counts[2] = ns; counts[3] = nvt; counts[4] = nqt;
    *last_key_out = last_key;
    return SINEW_OK;
}

/* Copies the channels and their keys (rotations normalized) into a laid-out clip. */
static void copy_channels(sinew_clip *clip, const sinew_clip_desc *d)
{
    uint32_t it = 0, ir = 0, is = 0, ivt = 0, iqt = 0;
    for (uint32_t j = 0; j < d->joint_count; j++) clip->joint_channel[j] = -1;
    for (uint32_t c = 0; c < d->channel_count; c++) {
        const sinew_channel_desc *src = &d->channels[c];
        clip_channel *ch = &clip->channels[c];
        ch->joint = src->joint;
        ch->t_first = it; ch->t_count = src->translation_count;
        ch->r_first = ir; ch->r_count = src->rotation_count;
        ch->s_first = is; ch->s_count = src->scale_count;
        ch->t_mode = (uint8_t)src->translation_interpolation;
        ch->r_mode = (uint8_t)src->rotation_interpolation;
        ch->s_mode = (uint8_t)src->scale_interpolation;
        if (cubic(src->translation_interpolation) && src->translation_count) {
            ch->t_tan = ivt;
            memcpy(clip->vtan + ivt, src->translation_tangents, 2u * src->translation_count * sizeof(sinew_vec3));
            ivt += 2u * src->translation_count;
        }
        if (cubic(src->scale_interpolation) && src->scale_count) {
            ch->s_tan = ivt;
            memcpy(clip->vtan + ivt, src->scale_tangents, 2u * src->scale_count * sizeof(sinew_vec3));
            ivt += 2u * src->scale_count;
        }
        if (cubic(src->rotation_interpolation) && src->rotation_count) {
            ch->r_tan = iqt;
            memcpy(clip->qtan + iqt, src->rotation_tangents, 2u * src->rotation_count * sizeof(sinew_quat));
            iqt += 2u * src->rotation_count;
        }
        if (src->translation_count) memcpy(clip->tkeys + it, src->translations, src->translation_count * sizeof(sinew_vec3_key));
        if (src->scale_count) memcpy(clip->skeys + is, src->scales, src->scale_count * sizeof(sinew_vec3_key));
        for (uint32_t k = 0; k < src->rotation_count; k++) {
            clip->rkeys[ir + k].time = src->rotations[k].time;
            clip->rkeys[ir + k].value = sinew_quat_normalize(src->rotations[k].value);
        }
        it += src->translation_count;
        ir += src->rotation_count;
        is += src->scale_count;
        clip->joint_channel[src->joint] = (int32_t)c;
    }
}

sinew_result sinew_clip_create(const sinew_clip_desc *d, sinew_clip **out)
{
    if (!d || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    sinew_allocator al;
    if (snw_allocator_resolve(d->allocator, &al) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    uint64_t counts[5];
    double last_key = 0;
    sinew_result r = check_clip_desc(d, counts, &last_key);
    if (r) return r;
    const uint64_t nt = counts[0], nr = counts[1], ns = counts[2], nvt = counts[3], nqt = counts[4];

    /* one block: the clip, then its arrays, then the name */
    size_t name_len = d->name ? strlen(d->name) : 0;
    size_t off_jc = align_up(sizeof(sinew_clip));
    size_t off_ch = off_jc + align_up((size_t)d->joint_count * sizeof(int32_t));
    size_t off_t = off_ch + align_up((size_t)d->channel_count * sizeof(clip_channel));
    size_t off_r = off_t + align_up((size_t)nt * sizeof(sinew_vec3_key));
    size_t off_s = off_r + align_up((size_t)nr * sizeof(sinew_quat_key));
    size_t off_vt = off_s + align_up((size_t)ns * sizeof(sinew_vec3_key));
    size_t off_qt = off_vt + align_up((size_t)nvt * sizeof(sinew_vec3));
    size_t off_n = off_qt + align_up((size_t)nqt * sizeof(sinew_quat));
    size_t total = off_n + name_len + 1;

    char *mem = snw_calloc(&al, 1, total);
    if (!mem) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_clip *clip = (sinew_clip *)mem;
    clip->alloc = al;
    clip->joint_channel = (int32_t *)(mem + off_jc);
    clip->channels = (clip_channel *)(mem + off_ch);
    clip->tkeys = (sinew_vec3_key *)(mem + off_t);
    clip->rkeys = (sinew_quat_key *)(mem + off_r);
    clip->skeys = (sinew_vec3_key *)(mem + off_s);
    clip->vtan = (sinew_vec3 *)(mem + off_vt);
    clip->qtan = (sinew_quat *)(mem + off_qt);
    clip->name = mem + off_n;
    if (name_len) memcpy(clip->name, d->name, name_len);
    clip->joint_count = d->joint_count;
    clip->channel_count = d->channel_count;
    clip->key_count = (uint32_t)(nt + nr + ns);
    clip->ticks_per_second = d->ticks_per_second > 0 ? d->ticks_per_second : SINEW_DEFAULT_TICKS_PER_SECOND;
    clip->duration_ticks = d->duration > 0 ? d->duration : (last_key > 0 ? last_key : 0);
    copy_channels(clip, d);
    *out = clip;
    return SINEW_OK;
}

void sinew_clip_destroy(sinew_clip *clip)
{
    if (!clip) return;
    sinew_allocator al = clip->alloc; /* copied out: it lives in the block being freed */
    snw_free(&al, clip);
}

const char *sinew_clip_name(const sinew_clip *c) { return c ? c->name : ""; }
double sinew_clip_duration(const sinew_clip *c) { return c ? c->duration_ticks / c->ticks_per_second : 0; }
double sinew_clip_duration_ticks(const sinew_clip *c) { return c ? c->duration_ticks : 0; }
double sinew_clip_ticks_per_second(const sinew_clip *c) { return c ? c->ticks_per_second : 0; }
uint32_t sinew_clip_joint_count(const sinew_clip *c) { return c ? c->joint_count : 0; }
uint32_t sinew_clip_channel_count(const sinew_clip *c) { return c ? c->channel_count : 0; }
uint32_t sinew_clip_key_count(const sinew_clip *c) { return c ? c->key_count : 0; }
bool sinew_clip_animates(const sinew_clip *c, uint32_t j)
{
    return c && j < c->joint_count && c->joint_channel[j] >= 0;
}

/* Finds the key interval for time t: *i0, *i1 and the blend factor in [0,1]. */
static double find_keys(const double *time0, size_t stride, uint32_t n, double t, uint32_t *i0, uint32_t *i1)
{
#define KT(i) (*(const double *)((const char *)time0 + (size_t)(i) * stride))
    if (n == 1 || t <= KT(0)) { *i0 = *i1 = 0; return 0; }
    if (t >= KT(n - 1)) { *i0 = *i1 = n - 1; return 0; }
    uint32_t lo = 0, hi = n - 1; /* KT(lo) <= t < KT(hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (KT(mid) <= t) lo = mid; else hi = mid;
    }
    *i0 = lo; *i1 = hi;
    double dt = KT(hi) - KT(lo);
    double a = dt > 0 ? (t - KT(lo)) / dt : 0;
    return a < 0 ? 0 : (a > 1 ? 1 : a);
#undef KT
}

/* Cubic Hermite weights (glTF 2.0): for v_k, d b_k, v_k+1 and d a_k+1. */
static void hermite(double s, double w[4])
{
    double s2 = s * s, s3 = s2 * s;
    w[0] = 2 * s3 - 3 * s2 + 1;
    w[1] = s3 - 2 * s2 + s;
    w[2] = -2 * s3 + 3 * s2;
    w[3] = s3 - s2;
}

/* tan: the track's tangents (in_k at 2k, out_k at 2k+1), only for CUBICSPLINE. */
static sinew_vec3 sample_vec3(const sinew_vec3_key *k, uint32_t n, int mode, const sinew_vec3 *tan, double t)
{
    uint32_t i0, i1;
    double a = find_keys(&k[0].time, sizeof *k, n, t, &i0, &i1);
    if (i0 == i1 || mode == SINEW_INTERPOLATION_STEP) return k[i0].value;
    sinew_vec3 p = k[i0].value, q = k[i1].value;
    if (mode == SINEW_INTERPOLATION_CUBICSPLINE) {
        double w[4], d = k[i1].time - k[i0].time;
        hermite(a, w);
        sinew_vec3 b = tan[2 * i0 + 1], c = tan[2 * i1];
        sinew_vec3 r = { w[0] * p.x + d * w[1] * b.x + w[2] * q.x + d * w[3] * c.x,
                         w[0] * p.y + d * w[1] * b.y + w[2] * q.y + d * w[3] * c.y,
                         w[0] * p.z + d * w[1] * b.z + w[2] * q.z + d * w[3] * c.z };
        return r;
    }
    sinew_vec3 r = { p.x + (q.x - p.x) * a, p.y + (q.y - p.y) * a, p.z + (q.z - p.z) * a };
    return r;
}

static sinew_quat sample_quat(const sinew_quat_key *k, uint32_t n, int mode, const sinew_quat *tan, double t)
{
    uint32_t i0, i1;
    double a = find_keys(&k[0].time, sizeof *k, n, t, &i0, &i1);
    if (i0 == i1 || mode == SINEW_INTERPOLATION_STEP) return k[i0].value;
    if (mode == SINEW_INTERPOLATION_CUBICSPLINE) {
        double w[4], d = k[i1].time - k[i0].time;
        hermite(a, w);
        sinew_quat p = k[i0].value, q = k[i1].value, b = tan[2 * i0 + 1], c = tan[2 * i1];
        sinew_quat r = { w[0] * p.x + d * w[1] * b.x + w[2] * q.x + d * w[3] * c.x,
                         w[0] * p.y + d * w[1] * b.y + w[2] * q.y + d * w[3] * c.y,
                         w[0] * p.z + d * w[1] * b.z + w[2] * q.z + d * w[3] * c.z,
                         w[0] * p.w + d * w[1] * b.w + w[2] * q.w + d * w[3] * c.w };
        double len = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
        if (!(len >= 1e-12) || !isfinite(len)) return a < 0.5 ? p : q;
        r.x /= len; r.y /= len; r.z /= len; r.w /= len;
        return r;
    }
    return sinew_quat_slerp(k[i0].value, k[i1].value, a);
}

static double wrap_ticks(const sinew_clip *c, double time_s, sinew_wrap wrap)
{
    double t = time_s * c->ticks_per_second, d = c->duration_ticks;
    if (!(d > 0)) return 0;
    if (wrap == SINEW_WRAP_CLAMP) return t < 0 ? 0 : (t > d ? d : t);
    t = fmod(t, d);
    if (t < 0) t += d;
    return t;
}

/* Samples without validation (arguments already checked). */
static void sample_unchecked(const sinew_clip *c, const sinew_transform *rest, uint32_t joints,
                             double time_s, sinew_wrap wrap, sinew_transform *out)
{
    memcpy(out, rest, (size_t)joints * sizeof *out);
    if (!c) return;
    double t = wrap_ticks(c, time_s, wrap);
    for (uint32_t i = 0; i < c->channel_count; i++) {
        const clip_channel *ch = &c->channels[i];
        sinew_transform *x = &out[ch->joint];
        if (ch->t_count)
            x->translation = sample_vec3(c->tkeys + ch->t_first, ch->t_count, ch->t_mode, c->vtan + ch->t_tan, t);
        if (ch->r_count)
            x->rotation = sample_quat(c->rkeys + ch->r_first, ch->r_count, ch->r_mode, c->qtan + ch->r_tan, t);
        if (ch->s_count)
            x->scale = sample_vec3(c->skeys + ch->s_first, ch->s_count, ch->s_mode, c->vtan + ch->s_tan, t);
    }
}

sinew_result sinew_clip_sample(const sinew_clip *clip, const sinew_skeleton *skel, double time_s,
                               sinew_wrap wrap, sinew_transform *local_out)
{
    if (!skel || !local_out) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((unsigned)wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t n = sinew_skeleton_joint_count(skel);
    if (clip && clip->joint_count != n) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!isfinite(time_s)) return SINEW_ERROR_NON_FINITE;
    const sinew_transform *rest = sinew_skeleton_rest_pose(skel);
    if (!rest) return SINEW_ERROR_INVALID_ARGUMENT;
    sample_unchecked(clip, rest, n, time_s, wrap, local_out);
    return SINEW_OK;
}

sinew_result sinew_sample_job_validate(const sinew_sample_job *job)
{
    if (!job || !job->skeleton || !job->clips || !job->times || !job->poses || job->count == 0)
        return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t n = sinew_skeleton_joint_count(job->skeleton);
    if (n == 0 || !sinew_skeleton_rest_pose(job->skeleton)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (job->pose_stride != 0 && job->pose_stride < n) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!job->wraps && (unsigned)job->wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < job->count; i++) {
        if (job->clips[i] && job->clips[i]->joint_count != n) return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(job->times[i])) return SINEW_ERROR_NON_FINITE;
        if (job->wraps && job->wraps[i] > (uint8_t)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    return SINEW_OK;
}

sinew_result sinew_sample_job_run_range(const sinew_sample_job *job, uint32_t first, uint32_t count)
{
    sinew_result r = sinew_sample_job_validate(job);
    if (r) return r;
    if (first > job->count || count > job->count - first) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t n = sinew_skeleton_joint_count(job->skeleton);
    size_t stride = job->pose_stride ? job->pose_stride : n;
    const sinew_transform *rest = sinew_skeleton_rest_pose(job->skeleton);
    for (uint32_t i = first; i < first + count; i++) {
        sinew_wrap w = job->wraps ? (sinew_wrap)job->wraps[i] : job->wrap;
        sample_unchecked(job->clips[i], rest, n, job->times[i], w, job->poses + (size_t)i * stride);
    }
    return SINEW_OK;
}

sinew_result sinew_sample_job_run(const sinew_sample_job *job)
{
    if (!job) return SINEW_ERROR_INVALID_ARGUMENT;
    return sinew_sample_job_run_range(job, 0, job->count);
}

sinew_result sinew_transform_from_mat4(const sinew_mat4 *m, sinew_transform *out, double *error)
{
    if (!m || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!sinew_mat4_is_finite(m)) return SINEW_ERROR_NON_FINITE;
    sinew_mat3 a = sinew_mat4_upper3(m);
    double s[3];
    for (int c = 0; c < 3; c++) {
        s[c] = sqrt(a.m[c][0] * a.m[c][0] + a.m[c][1] * a.m[c][1] + a.m[c][2] * a.m[c][2]);
        if (!(s[c] > 1e-300) || !isfinite(s[c])) return SINEW_ERROR_SINGULAR;
    }
    if (sinew_mat3_det(&a) < 0) s[0] = -s[0];
    sinew_mat3 r;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) r.m[c][k] = a.m[c][k] / s[c];
    /* Remove any shear: the nearest proper rotation. */
    if (sinew_mat3_orthonormality_error(&r) > 1e-12) {
        sinew_mat3 rp, sp;
        sinew_result res = sinew_polar_decompose(&r, &rp, &sp);
        if (res) return res;
        r = rp;
    }
    out->translation = sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]);
    out->rotation = sinew_quat_from_mat3(&r);
    out->scale = sinew_v3(s[0], s[1], s[2]);
    if (error) {
        sinew_mat4 b = sinew_mat4_from_transform(out);
        double e = 0;
        for (int c = 0; c < 4; c++)
            for (int k = 0; k < 4; k++) {
                double d = fabs(b.m[c][k] - m->m[c][k]);
                if (d > e) e = d;
            }
        *error = e;
    }
    return SINEW_OK;
}
