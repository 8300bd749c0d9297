/* Sinew animation clips: creation, validation and sampling (see anim.h). */
#include <sinew/linalg.h>
#include "sinew/anim.h"
#include "alloc_internal.h"
#include "fast_internal.h"
#include "clip_internal.h"
#include "slerp_internal.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SNW_ANIM_SSE 1
#else
#define SNW_ANIM_SSE 0
#endif

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

/* One track of the float32 copy (fast path): keys at [first, first + count)
 * of fkeys / ktimes; CUBICSPLINE tangents at ftan[tan + 2k] (in), [tan + 2k + 1]
 * (out); a bucket table of nb entries over [t0, last key]: bucket b holds the
 * last key whose time is <= t0 + b / inv_w, so a time finds its interval in
 * O(1) (a step or two from the bucket's key). */
typedef struct snw_ftrack {
    uint32_t first, count, mode, tan, bucket, nb;
    uint32_t timeline;   /* equal for tracks with identical key times (their interval is found once) */
    uint32_t vstride;    /* key k's value at fkeys[4 (vfirst + k vstride)]: the tracks of one
                            timeline run are stored key-major, so the keys one time needs from
                            every track of a character lie together */
    uint32_t vfirst;
    uint32_t pad;
    double t0, inv_w;
} snw_ftrack;

/* One morph-weight track: keys at wtimes[t_first ..], values wvals[v_first +
 * k * width + i], CUBICSPLINE tangents wtan[tan + (2k + side) * width + i]. */
typedef struct clip_wtrack {
    uint32_t first_weight, width, count, mode;
    uint32_t t_first, v_first, tan;
} clip_wtrack;

#define SNW_WEIGHT_MAX 1e6

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
    /* float32 copy for the production path (built at creation) */
    snw_ftrack *ftracks;          /* joint_count * 3: translation, rotation, scale */
    float *fkeys;                 /* 4 floats per key (vec3 keys: w = 0) */
    double *ktimes;               /* per key */
    float *ftan;                  /* 4 floats per tangent */
    uint32_t *buckets;
    /* morph-weight tracks (float64 only) */
    uint32_t weight_count, wtrack_count;
    clip_wtrack *wtracks;
    int32_t *weight_track;        /* slot -> track, -1 = none */
    double *wtimes, *wvals, *wtan;
    snw_cclip *cmp;               /* compressed form (clip_compress.c), or NULL: own block */
    int rot_unit;                 /* no CUBICSPLINE rotation track: sampled rotations are unit (see fast_internal.h) */
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

/* Validates the weight tracks; counts times, values and tangents and raises the last key time. */
static sinew_result check_weight_tracks(const sinew_clip_desc *d, uint64_t keys_so_far, uint64_t wc[3], double *last_key)
{
    wc[0] = wc[1] = wc[2] = 0;
    if (d->weight_track_count && !d->weight_tracks) return SINEW_ERROR_INVALID_ARGUMENT;
    if (d->weight_track_count > d->weight_count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (d->weight_count > SINEW_MAX_CLIP_WEIGHTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < d->weight_track_count; i++) {
        const sinew_weight_track_desc *w = &d->weight_tracks[i];
        if (!w->width || !w->key_count || !w->times || !w->values) return SINEW_ERROR_INVALID_ARGUMENT;
        if ((uint64_t)w->first_weight + w->width > d->weight_count) return SINEW_ERROR_INVALID_ARGUMENT;
        if ((unsigned)w->interpolation >= (unsigned)SINEW_INTERPOLATION_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
        if (cubic(w->interpolation) && !w->tangents) return SINEW_ERROR_INVALID_ARGUMENT;
        /* slots shared with an earlier track: found by copy_weight_tracks (linear) */
        keys_so_far += w->key_count;
        if (keys_so_far > SINEW_MAX_CLIP_KEYS) return SINEW_ERROR_LIMIT_EXCEEDED;
        sinew_result r = check_track_times(w->times, sizeof(double), w->key_count);
        if (r) return r;
        uint64_t nv = (uint64_t)w->key_count * w->width;
        if (nv + wc[1] > 4ull * SINEW_MAX_CLIP_KEYS) return SINEW_ERROR_LIMIT_EXCEEDED;
        for (uint64_t k = 0; k < nv; k++)
            if (!(fabs(w->values[k]) <= SNW_WEIGHT_MAX)) return SINEW_ERROR_NON_FINITE;
        if (cubic(w->interpolation))
            for (uint64_t k = 0; k < 2 * nv; k++)
                if (!(fabs(w->tangents[k]) <= SNW_WEIGHT_MAX)) return SINEW_ERROR_NON_FINITE;
        if (w->times[w->key_count - 1] > *last_key) *last_key = w->times[w->key_count - 1];
        wc[0] += w->key_count;
        wc[1] += nv;
        if (cubic(w->interpolation)) wc[2] += 2 * nv;
    }
    return SINEW_OK;
}

/* Copies the weight tracks into a laid-out clip; false when two tracks share a
 * slot (found through the slot map, in time linear in the slots). */
static bool copy_weight_tracks(sinew_clip *clip, const sinew_clip_desc *d)
{
    uint32_t it = 0, iv = 0, itan = 0;
    for (uint32_t w = 0; w < clip->weight_count; w++) clip->weight_track[w] = -1;
    for (uint32_t i = 0; i < d->weight_track_count; i++) {
        const sinew_weight_track_desc *src = &d->weight_tracks[i];
        clip_wtrack *t = &clip->wtracks[i];
        uint32_t nv = src->key_count * src->width;
        t->first_weight = src->first_weight; t->width = src->width; t->count = src->key_count;
        t->mode = (uint32_t)src->interpolation;
        t->t_first = it; t->v_first = iv; t->tan = itan;
        memcpy(clip->wtimes + it, src->times, src->key_count * sizeof(double));
        memcpy(clip->wvals + iv, src->values, (size_t)nv * sizeof(double));
        if (cubic(src->interpolation)) {
            memcpy(clip->wtan + itan, src->tangents, 2u * (size_t)nv * sizeof(double));
            itan += 2u * nv;
        }
        it += src->key_count;
        iv += nv;
        for (uint32_t w = 0; w < src->width; w++) {
            if (clip->weight_track[src->first_weight + w] >= 0) return false;
            clip->weight_track[src->first_weight + w] = (int32_t)i;
        }
    }
    return true;
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

/* Buckets of a track of n keys: 2n for n >= 3 (fewer keys need no table). */
static uint64_t track_buckets(uint32_t n) { return n >= 3 ? 2u * (uint64_t)n : 0; }

static uint64_t bucket_count(const sinew_clip_desc *d)
{
    uint64_t nb = 0;
    for (uint32_t c = 0; c < d->channel_count; c++)
        nb += track_buckets(d->channels[c].translation_count) + track_buckets(d->channels[c].rotation_count) +
              track_buckets(d->channels[c].scale_count);
    return nb;
}

/* Fills one float32 track from keys [first, first + n) (times already in
 * ktimes) and builds its bucket table at buckets + *next_bucket. */
static void build_track(sinew_clip *clip, snw_ftrack *tr, uint32_t first, uint32_t n, uint32_t mode,
                        uint32_t tan, uint32_t *next_bucket)
{
    tr->first = first;
    tr->count = n;
    tr->mode = mode;
    tr->tan = tan;
    tr->bucket = *next_bucket;
    tr->nb = (uint32_t)track_buckets(n);
    tr->t0 = n ? clip->ktimes[first] : 0;
    tr->inv_w = 0;
    if (!tr->nb) return;
    const double *kt = clip->ktimes + first;
    double span = kt[n - 1] - kt[0];
    if (!(span > 0)) { tr->nb = 0; return; } /* all keys at one time: no interior */
    tr->inv_w = (double)tr->nb / span;
    uint32_t *b = clip->buckets + tr->bucket;
    uint32_t i = 0;
    for (uint32_t k = 0; k < tr->nb; k++) {
        double tb = kt[0] + span * ((double)k / (double)tr->nb);
        while (i + 1 < n && kt[i + 1] <= tb) i++;
        b[k] = i;
    }
    *next_bucket += tr->nb;
}

/* The float32 copy of every track (keys, times, tangents) and the bucket tables. */
static void build_float_copy(sinew_clip *clip)
{
    uint32_t tan_total = 0, next_bucket = 0;
    for (uint32_t j = 0; j < clip->joint_count * 3u; j++) memset(&clip->ftracks[j], 0, sizeof(snw_ftrack));
    /* global key order: translations, rotations, scales (as the double arrays) */
    uint32_t tcount = 0, rcount = 0;
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        tcount += clip->channels[c].t_count;
        rcount += clip->channels[c].r_count;
    }
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        const clip_channel *ch = &clip->channels[c];
        for (uint32_t k = 0; k < ch->t_count; k++) {
            const sinew_vec3_key *key = &clip->tkeys[ch->t_first + k];
            uint32_t g = ch->t_first + k;
            clip->ktimes[g] = key->time;
        }
        for (uint32_t k = 0; k < ch->r_count; k++) {
            const sinew_quat_key *key = &clip->rkeys[ch->r_first + k];
            uint32_t g = tcount + ch->r_first + k;
            clip->ktimes[g] = key->time;
        }
        for (uint32_t k = 0; k < ch->s_count; k++) {
            const sinew_vec3_key *key = &clip->skeys[ch->s_first + k];
            uint32_t g = tcount + rcount + ch->s_first + k;
            clip->ktimes[g] = key->time;
        }
    }
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        const clip_channel *ch = &clip->channels[c];
        snw_ftrack *tr = &clip->ftracks[3u * ch->joint];
        const uint32_t firsts[3] = { ch->t_first, tcount + ch->r_first, tcount + rcount + ch->s_first };
        const uint32_t counts[3] = { ch->t_count, ch->r_count, ch->s_count };
        const uint32_t modes[3] = { ch->t_mode, ch->r_mode, ch->s_mode };
        for (int kind = 0; kind < 3; kind++) {
            uint32_t tan = 0;
            if (modes[kind] == SINEW_INTERPOLATION_CUBICSPLINE && counts[kind]) {
                tan = tan_total;
                for (uint32_t k = 0; k < 2u * counts[kind]; k++) {
                    float *f = clip->ftan + 4u * (tan_total + k);
                    if (kind == 1) {
                        sinew_quat q = clip->qtan[ch->r_tan + k];
                        f[0] = (float)q.x; f[1] = (float)q.y; f[2] = (float)q.z; f[3] = (float)q.w;
                    } else {
                        sinew_vec3 v = clip->vtan[(kind == 0 ? ch->t_tan : ch->s_tan) + k];
                        f[0] = (float)v.x; f[1] = (float)v.y; f[2] = (float)v.z; f[3] = 0;
                    }
                }
                tan_total += 2u * counts[kind];
            }
            build_track(clip, &tr[kind], firsts[kind], counts[kind], modes[kind], tan, &next_bucket);
        }
    }
    /* timelines: a track whose key times equal those of the track sampled just
     * before it (in joint order) shares its id */
    const snw_ftrack *prev = NULL;
    uint32_t id = 0;
    for (uint32_t k = 0; k < clip->joint_count * 3u; k++) {
        snw_ftrack *tr = &clip->ftracks[k];
        if (!tr->count) continue;
        int same = prev && prev->count == tr->count &&
                   memcmp(clip->ktimes + prev->first, clip->ktimes + tr->first, tr->count * sizeof(double)) == 0;
        if (!same) id++;
        tr->timeline = id;
        prev = tr;
    }
    /* values, key-major within each run of tracks of one timeline */
    uint32_t base = 0;
    for (uint32_t k = 0; k < clip->joint_count * 3u;) {
        if (!clip->ftracks[k].count) { k++; continue; }
        uint32_t e = k, nt = 0;
        while (e < clip->joint_count * 3u &&
               (!clip->ftracks[e].count || clip->ftracks[e].timeline == clip->ftracks[k].timeline)) {
            if (clip->ftracks[e].count) nt++;
            e++;
        }
        uint32_t m = 0;
        for (uint32_t q = k; q < e; q++) {
            snw_ftrack *tr = &clip->ftracks[q];
            if (!tr->count) continue;
            tr->vfirst = base + m++;
            tr->vstride = nt;
            const clip_channel *ch = &clip->channels[clip->joint_channel[q / 3u]];
            for (uint32_t key = 0; key < tr->count; key++) {
                float *f = clip->fkeys + 4u * ((size_t)tr->vfirst + (size_t)key * nt);
                if (q % 3u == 1) {
                    sinew_quat v = clip->rkeys[ch->r_first + key].value;
                    f[0] = (float)v.x; f[1] = (float)v.y; f[2] = (float)v.z; f[3] = (float)v.w;
                } else {
                    sinew_vec3 v = q % 3u == 0 ? clip->tkeys[ch->t_first + key].value : clip->skeys[ch->s_first + key].value;
                    f[0] = (float)v.x; f[1] = (float)v.y; f[2] = (float)v.z; f[3] = 0;
                }
            }
        }
        base += nt * clip->ftracks[k].count;
        k = e;
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
    const uint64_t nk = nt + nr + ns, nb = bucket_count(d);
    uint64_t wc[3];
    if ((r = check_weight_tracks(d, nk, wc, &last_key))) return r;

    /* one block: the clip, then its arrays, then the name */
    size_t name_len = d->name ? strlen(d->name) : 0;
    size_t off_jc = align_up(sizeof(sinew_clip));
    size_t off_ch = off_jc + align_up((size_t)d->joint_count * sizeof(int32_t));
    size_t off_t = off_ch + align_up((size_t)d->channel_count * sizeof(clip_channel));
    size_t off_r = off_t + align_up((size_t)nt * sizeof(sinew_vec3_key));
    size_t off_s = off_r + align_up((size_t)nr * sizeof(sinew_quat_key));
    size_t off_vt = off_s + align_up((size_t)ns * sizeof(sinew_vec3_key));
    size_t off_qt = off_vt + align_up((size_t)nvt * sizeof(sinew_vec3));
    size_t off_ft = off_qt + align_up((size_t)nqt * sizeof(sinew_quat));
    size_t off_fk = off_ft + align_up((size_t)d->joint_count * 3u * sizeof(snw_ftrack));
    size_t off_kt = off_fk + align_up((size_t)nk * 4u * sizeof(float));
    size_t off_fn = off_kt + align_up((size_t)nk * sizeof(double));
    size_t off_bk = off_fn + align_up((size_t)(nvt + nqt) * 4u * sizeof(float));
    size_t off_wt = off_bk + align_up((size_t)nb * sizeof(uint32_t));
    size_t off_wm = off_wt + align_up((size_t)d->weight_track_count * sizeof(clip_wtrack));
    size_t off_wk = off_wm + align_up((size_t)d->weight_count * sizeof(int32_t));
    size_t off_wv = off_wk + align_up((size_t)wc[0] * sizeof(double));
    size_t off_wg = off_wv + align_up((size_t)wc[1] * sizeof(double));
    size_t off_n = off_wg + align_up((size_t)wc[2] * sizeof(double));
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
    clip->ftracks = (snw_ftrack *)(mem + off_ft);
    clip->fkeys = (float *)(mem + off_fk);
    clip->ktimes = (double *)(mem + off_kt);
    clip->ftan = (float *)(mem + off_fn);
    clip->buckets = (uint32_t *)(mem + off_bk);
    clip->wtracks = (clip_wtrack *)(mem + off_wt);
    clip->weight_track = (int32_t *)(mem + off_wm);
    clip->wtimes = (double *)(mem + off_wk);
    clip->wvals = (double *)(mem + off_wv);
    clip->wtan = (double *)(mem + off_wg);
    clip->weight_count = d->weight_count;
    clip->wtrack_count = d->weight_track_count;
    clip->name = mem + off_n;
    if (name_len) memcpy(clip->name, d->name, name_len);
    clip->joint_count = d->joint_count;
    clip->channel_count = d->channel_count;
    clip->key_count = (uint32_t)(nt + nr + ns + wc[0]);
    clip->ticks_per_second = d->ticks_per_second > 0 ? d->ticks_per_second : SINEW_DEFAULT_TICKS_PER_SECOND;
    clip->duration_ticks = d->duration > 0 ? d->duration : (last_key > 0 ? last_key : 0);
    copy_channels(clip, d);
    clip->rot_unit = 1;
    for (uint32_t c = 0; c < clip->channel_count; c++)
        if (clip->channels[c].r_count && clip->channels[c].r_mode == SINEW_INTERPOLATION_CUBICSPLINE) clip->rot_unit = 0;
    build_float_copy(clip);
    if (!copy_weight_tracks(clip, d)) { snw_free(&al, clip); return SINEW_ERROR_INVALID_ARGUMENT; }
    *out = clip;
    return SINEW_OK;
}

void sinew_clip_destroy(sinew_clip *clip)
{
    if (!clip) return;
    sinew_allocator al = clip->alloc; /* copied out: it lives in the block being freed */
    if (clip->cmp) snw_free(&al, clip->cmp);
    snw_free(&al, clip);
}

const char *sinew_clip_name(const sinew_clip *c) { return c ? c->name : ""; }
double sinew_clip_duration(const sinew_clip *c) { return c ? c->duration_ticks / c->ticks_per_second : 0; }
double sinew_clip_duration_ticks(const sinew_clip *c) { return c ? c->duration_ticks : 0; }
double sinew_clip_ticks_per_second(const sinew_clip *c) { return c ? c->ticks_per_second : 0; }
uint32_t sinew_clip_joint_count(const sinew_clip *c) { return c ? c->joint_count : 0; }
uint32_t sinew_clip_channel_count(const sinew_clip *c) { return c ? c->channel_count : 0; }
uint32_t sinew_clip_key_count(const sinew_clip *c) { return c ? c->key_count : 0; }
uint32_t sinew_clip_weight_count(const sinew_clip *c) { return c ? c->weight_count : 0; }
uint32_t sinew_clip_weight_track_count(const sinew_clip *c) { return c ? c->wtrack_count : 0; }
bool sinew_clip_animates_weight(const sinew_clip *c, uint32_t w)
{
    return c && w < c->weight_count && c->weight_track[w] >= 0;
}

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

static double wrap_ticks(const sinew_clip *c, double time_s, sinew_wrap wrap);

sinew_result sinew_clip_sample_weights(const sinew_clip *clip, double time_s, sinew_wrap wrap,
                                       const double *defaults, uint32_t count, double *out)
{
    if ((count && !out) || (unsigned)wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    if (clip && count != clip->weight_count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!isfinite(time_s)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t w = 0; w < count; w++) out[w] = defaults ? defaults[w] : 0.0;
    if (!clip) return SINEW_OK;
    double t = wrap_ticks(clip, time_s, wrap);
    for (uint32_t i = 0; i < clip->wtrack_count; i++) {
        const clip_wtrack *tr = &clip->wtracks[i];
        const double *kt = clip->wtimes + tr->t_first, *v = clip->wvals + tr->v_first;
        uint32_t i0, i1;
        double a = find_keys(kt, sizeof(double), tr->count, t, &i0, &i1);
        double *o = out + tr->first_weight;
        if (i0 == i1 || tr->mode == SINEW_INTERPOLATION_STEP) {
            for (uint32_t e = 0; e < tr->width; e++) o[e] = v[(size_t)i0 * tr->width + e];
        } else if (tr->mode == SINEW_INTERPOLATION_CUBICSPLINE) {
            double hw[4], d = kt[i1] - kt[i0];
            hermite(a, hw);
            const double *tan = clip->wtan + tr->tan;
            for (uint32_t e = 0; e < tr->width; e++) {
                double p = v[(size_t)i0 * tr->width + e], q = v[(size_t)i1 * tr->width + e];
                double b = tan[(2 * (size_t)i0 + 1) * tr->width + e], c = tan[(2 * (size_t)i1) * tr->width + e];
                o[e] = hw[0] * p + d * hw[1] * b + hw[2] * q + d * hw[3] * c;
            }
        } else {
            for (uint32_t e = 0; e < tr->width; e++) {
                double p = v[(size_t)i0 * tr->width + e], q = v[(size_t)i1 * tr->width + e];
                o[e] = p + (q - p) * a;
            }
        }
    }
    return SINEW_OK;
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
    if (!c) { memcpy(out, rest, (size_t)joints * sizeof *out); return; }
    snw_clip_sample_ticks(c, rest, joints, wrap_ticks(c, time_s, wrap), out);
}

void snw_clip_sample_ticks(const sinew_clip *c, const sinew_transform *rest, uint32_t joints, double t,
                           sinew_transform *out)
{
    memcpy(out, rest, (size_t)joints * sizeof *out);
    if (c->cmp) { snw_cclip_sample_f64(c->cmp, t, out); return; }
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

/* ---- float32 sampling (production path) ---- */

/* The key interval of time t in a track: returns i0; *hold = 1 when the value
 * is key i0's (before the first key, after the last, a single key), else the
 * blend factor in [0, 1] goes to *a (computed in float64, as the reference). */
static inline uint32_t fast_find(const sinew_clip *c, const snw_ftrack *tr, double t, int *hold, float *a)
{
    const double *kt = c->ktimes + tr->first;
    const uint32_t n = tr->count;
    if (n == 1 || t <= kt[0]) { *hold = 1; return 0; }
    if (t >= kt[n - 1]) { *hold = 1; return n - 1; }
    uint32_t i = 0;
    if (tr->nb) {
        double fb = (t - tr->t0) * tr->inv_w;
        uint32_t b = fb <= 0 ? 0 : (fb >= (double)(tr->nb - 1) ? tr->nb - 1 : (uint32_t)fb);
        i = c->buckets[tr->bucket + b];
        while (i > 0 && kt[i] > t) i--;      /* rounding of the bucket index */
    }
    while (kt[i + 1] <= t) i++;              /* kt[n - 1] > t stops it */
    double al = (t - kt[i]) / (kt[i + 1] - kt[i]);
    *a = (float)(al < 0 ? 0 : (al > 1 ? 1 : al));
    *hold = 0;
    return i;
}

static inline void hermite_f(float s, const sinew_clip *c, const snw_ftrack *tr, uint32_t i, float d,
                             const float *p, const float *q, float *out, int lanes)
{
    float s2 = s * s, s3 = s2 * s;
    float w0 = 2 * s3 - 3 * s2 + 1, w1 = d * (s3 - 2 * s2 + s), w2 = -2 * s3 + 3 * s2, w3 = d * (s3 - s2);
    const float *b = c->ftan + 4u * (tr->tan + 2u * i + 1u), *a = c->ftan + 4u * (tr->tan + 2u * i + 2u);
    for (int k = 0; k < lanes; k++) out[k] = w0 * p[k] + w1 * b[k] + w2 * q[k] + w3 * a[k];
}

/* The interval of the last track sampled, reused by tracks of the same timeline. */
typedef struct find_cache { uint32_t timeline, i; int hold; float a; } find_cache;

static inline uint32_t cached_find(const sinew_clip *c, const snw_ftrack *tr, double t, int *hold, float *a, find_cache *fc)
{
    if (tr->timeline != fc->timeline) {
        fc->i = fast_find(c, tr, t, &fc->hold, &fc->a);
        fc->timeline = tr->timeline;
    }
    *hold = fc->hold;
    *a = fc->a;
    return fc->i;
}

static inline void sample_vec_f(const sinew_clip *c, const snw_ftrack *tr, double t, float *out, find_cache *fc)
{
    int hold;
    float a = 0;
    uint32_t i = cached_find(c, tr, t, &hold, &a, fc);
    const float *p = c->fkeys + 4u * ((size_t)tr->vfirst + (size_t)i * tr->vstride);
    if (hold || tr->mode == SINEW_INTERPOLATION_STEP) {
        out[0] = p[0]; out[1] = p[1]; out[2] = p[2]; out[3] = 0;
        return;
    }
    const float *q = p + 4u * tr->vstride;
    if (tr->mode == SINEW_INTERPOLATION_CUBICSPLINE) {
        const double *kt = c->ktimes + tr->first;
        hermite_f(a, c, tr, i, (float)(kt[i + 1] - kt[i]), p, q, out, 3);
        out[3] = 0;
        return;
    }
#if SNW_ANIM_SSE
    __m128 vp = _mm_load_ps(p); /* keys and out are 16-byte aligned; w lanes are 0 */
    _mm_store_ps(out, _mm_add_ps(vp, _mm_mul_ps(_mm_sub_ps(_mm_load_ps(q), vp), _mm_set1_ps(a))));
#else
    out[0] = p[0] + (q[0] - p[0]) * a;
    out[1] = p[1] + (q[1] - p[1]) * a;
    out[2] = p[2] + (q[2] - p[2]) * a;
    out[3] = 0;
#endif
}

/* sin(t th) / sin th and sin((1-t) th) / sin th for x = cos th in [0.5, 1]:
 * Eberly's polynomial ("A fast and accurate algorithm for computing SLERP",
 * 2011), 8 terms, no correction: |error| <= 5e-7 for th <= 60 degrees. */
static inline float eberly(float x, float t)
{
    static const float u[8] = { 1.f / 3, 1.f / 10, 1.f / 21, 1.f / 36, 1.f / 55, 1.f / 78, 1.f / 105, 1.f / 136 };
    static const float v[8] = { 1.f / 3, 2.f / 5, 3.f / 7, 4.f / 9, 5.f / 11, 6.f / 13, 7.f / 15, 8.f / 17 };
    float xm1 = x - 1, t2 = t * t, acc = 1;
    for (int i = 7; i >= 0; i--) acc = 1 + (u[i] * t2 - v[i]) * xm1 * acc;
    return t * acc;
}

/* The same with 3 terms for x >= 0.95 (keys <= 36 degrees apart, e.g. any
 * clip sampled at 30 keys/s): |error| <= 6e-8. */
static inline float eberly3(float x, float t)
{
    float xm1 = x - 1, t2 = t * t;
    float acc = 1 + (t2 * (1.f / 21) - 3.f / 7) * xm1;
    acc = 1 + (t2 * (1.f / 10) - 2.f / 5) * xm1 * acc;
    acc = 1 + (t2 * (1.f / 3) - 1.f / 3) * xm1 * acc;
    return t * acc;
}

/* Slerp along the shorter arc (not normalized: FK normalizes). */
static inline void slerp_f(const float *p, const float *q, float a, float *out)
{
#if SNW_ANIM_SSE /* both weights in two lanes (slerp_internal.h): the same bits, fewer instructions */
    _mm_storeu_ps(out, snw_slerp_ps(_mm_loadu_ps(p), _mm_loadu_ps(q), a));
    return;
#endif
    float d = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    float sgn = 1;
    if (d < 0) { d = -d; sgn = -1; }
    float wp, wq;
    if (d >= 0.95f) {
        wp = eberly3(d, 1 - a);
        wq = eberly3(d, a);
    } else if (d >= 0.5f) {
        wp = eberly(d, 1 - a);
        wq = eberly(d, a);
    } else { /* keys more than 120 degrees apart: the trigonometric formula */
        float th = acosf(d), sn = sinf(th);
        wp = sinf((1 - a) * th) / sn;
        wq = sinf(a * th) / sn;
    }
    wq *= sgn;
#if SNW_ANIM_SSE
    _mm_store_ps(out, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(wp), _mm_load_ps(p)), _mm_mul_ps(_mm_set1_ps(wq), _mm_load_ps(q))));
#else
    for (int k = 0; k < 4; k++) out[k] = wp * p[k] + wq * q[k];
#endif
}

void snw_slerp_f32(const float *p, const float *q, float a, float *out) { slerp_f(p, q, a, out); }

static inline void sample_rot_f(const sinew_clip *c, const snw_ftrack *tr, double t, float *out, find_cache *fc)
{
    int hold;
    float a = 0;
    uint32_t i = cached_find(c, tr, t, &hold, &a, fc);
    const float *p = c->fkeys + 4u * ((size_t)tr->vfirst + (size_t)i * tr->vstride);
    if (hold || tr->mode == SINEW_INTERPOLATION_STEP) {
        out[0] = p[0]; out[1] = p[1]; out[2] = p[2]; out[3] = p[3];
        return;
    }
    const float *q = p + 4u * tr->vstride;
    if (tr->mode == SINEW_INTERPOLATION_CUBICSPLINE) {
        const double *kt = c->ktimes + tr->first;
        hermite_f(a, c, tr, i, (float)(kt[i + 1] - kt[i]), p, q, out, 4);
        float n2 = out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3];
        if (!(n2 >= 1e-24f) || !(n2 <= 3e38f)) { /* the reference's rule: the nearer key */
            const float *k = a < 0.5f ? p : q;
            out[0] = k[0]; out[1] = k[1]; out[2] = k[2]; out[3] = k[3];
        }
        return;
    }
    slerp_f(p, q, a, out);
}

void snw_clip_sample_f32_cut(const sinew_clip *c, const snw_fast_joint *joints, uint32_t n, double time_s,
                             sinew_wrap wrap, uint32_t cut, snw_ftrs *out)
{
    if (!cut) { snw_clip_sample_f32(c, joints, n, time_s, wrap, out); return; }
    const double t = wrap_ticks(c, time_s, wrap);
    if (c->cmp) { /* compressed: decoded whole, then the cut joints set to rest */
        snw_cclip_sample_f32(c->cmp, joints, n, t, out);
        for (uint32_t j = 0; j < n; j++)
            if (joints[j].depth >= cut) out[j] = joints[j].rest;
        return;
    }
    find_cache fc = { 0, 0, 1, 0 };
    for (uint32_t j = 0; j < n; j++) {
        snw_ftrs *o = &out[j];
        const snw_ftrs *rest = &joints[j].rest;
        if (joints[j].depth >= cut) { *o = *rest; continue; }
        const snw_ftrack *tr = &c->ftracks[3u * j];
        if (tr[0].count) sample_vec_f(c, &tr[0], t, o->t, &fc); else memcpy(o->t, rest->t, sizeof o->t);
        if (tr[1].count) sample_rot_f(c, &tr[1], t, o->q, &fc); else memcpy(o->q, rest->q, sizeof o->q);
        if (tr[2].count) sample_vec_f(c, &tr[2], t, o->s, &fc); else memcpy(o->s, rest->s, sizeof o->s);
    }
}

void snw_clip_sample_f32(const sinew_clip *c, const snw_fast_joint *joints, uint32_t n, double time_s,
                         sinew_wrap wrap, snw_ftrs *out)
{
    const double t = wrap_ticks(c, time_s, wrap);
    if (c->cmp) { snw_cclip_sample_f32(c->cmp, joints, n, t, out); return; }
    find_cache fc = { 0, 0, 1, 0 }; /* timeline ids start at 1 */
    for (uint32_t j = 0; j < n; j++) {
        const snw_ftrack *tr = &c->ftracks[3u * j];
        snw_ftrs *o = &out[j];
        const snw_ftrs *rest = &joints[j].rest;
        if (tr[0].count) sample_vec_f(c, &tr[0], t, o->t, &fc); else memcpy(o->t, rest->t, sizeof o->t);
        if (tr[1].count) sample_rot_f(c, &tr[1], t, o->q, &fc); else memcpy(o->q, rest->q, sizeof o->q);
        if (tr[2].count) sample_vec_f(c, &tr[2], t, o->s, &fc); else memcpy(o->s, rest->s, sizeof o->s);
    }
}

/* ---- helpers for the compressor (clip_internal.h) ---- */

void snw_clip_track_view(const sinew_clip *c, uint32_t joint, int kind, snw_track_view *v)
{
    memset(v, 0, sizeof *v);
    if (c->cmp || joint >= c->joint_count || c->joint_channel[joint] < 0) return;
    const clip_channel *ch = &c->channels[c->joint_channel[joint]];
    if (kind == 1) {
        v->count = ch->r_count; v->mode = ch->r_mode;
        v->qkeys = c->rkeys + ch->r_first;
        v->times = &v->qkeys[0].time;
        v->time_stride = sizeof(sinew_quat_key) / sizeof(double);
    } else {
        v->count = kind == 0 ? ch->t_count : ch->s_count;
        v->mode = kind == 0 ? ch->t_mode : ch->s_mode;
        v->vkeys = kind == 0 ? c->tkeys + ch->t_first : c->skeys + ch->s_first;
        v->times = &v->vkeys[0].time;
        v->time_stride = sizeof(sinew_vec3_key) / sizeof(double);
    }
    if (!v->count) { v->times = NULL; v->vkeys = NULL; v->qkeys = NULL; }
}

void snw_clip_track_sample(const sinew_clip *c, uint32_t joint, int kind, double t, double out[4])
{
    const clip_channel *ch = &c->channels[c->joint_channel[joint]];
    if (kind == 1) {
        sinew_quat q = sample_quat(c->rkeys + ch->r_first, ch->r_count, ch->r_mode, c->qtan + ch->r_tan, t);
        out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
    } else {
        sinew_vec3 v = kind == 0 ? sample_vec3(c->tkeys + ch->t_first, ch->t_count, ch->t_mode, c->vtan + ch->t_tan, t)
                                 : sample_vec3(c->skeys + ch->s_first, ch->s_count, ch->s_mode, c->vtan + ch->s_tan, t);
        out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = 0;
    }
}

const snw_cclip *snw_clip_compressed(const sinew_clip *c) { return c ? c->cmp : NULL; }
int snw_clip_rotations_unit(const sinew_clip *c) { return !c || c->rot_unit; }
const sinew_allocator *snw_clip_allocator(const sinew_clip *c) { return &c->alloc; }

sinew_result snw_clip_make_compressed(const sinew_clip *c, snw_cclip *cc, uint32_t keys, sinew_clip **out)
{
    size_t bytes = (size_t)c->channel_count * sizeof(sinew_channel_desc) +
                   (size_t)c->wtrack_count * sizeof(sinew_weight_track_desc) + 16;
    char *tmp = snw_calloc(&c->alloc, 1, bytes);
    if (!tmp) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_channel_desc *chs = (sinew_channel_desc *)tmp;
    sinew_weight_track_desc *wts = (sinew_weight_track_desc *)(tmp + (size_t)c->channel_count * sizeof *chs);
    for (uint32_t i = 0; i < c->channel_count; i++) chs[i].joint = c->channels[i].joint;
    uint32_t wkeys = 0;
    for (uint32_t i = 0; i < c->wtrack_count; i++) {
        const clip_wtrack *w = &c->wtracks[i];
        wts[i].first_weight = w->first_weight; wts[i].width = w->width; wts[i].key_count = w->count;
        wts[i].times = c->wtimes + w->t_first; wts[i].values = c->wvals + w->v_first;
        wts[i].interpolation = (sinew_interpolation)w->mode;
        wts[i].tangents = w->mode == SINEW_INTERPOLATION_CUBICSPLINE ? c->wtan + w->tan : NULL;
        wkeys += w->count;
    }
    sinew_clip_desc d = { 0 };
    d.name = c->name;
    d.joint_count = c->joint_count;
    d.duration = c->duration_ticks;
    d.ticks_per_second = c->ticks_per_second;
    d.channel_count = c->channel_count;
    d.channels = chs;
    d.allocator = &c->alloc;
    d.weight_count = c->weight_count;
    d.weight_track_count = c->wtrack_count;
    d.weight_tracks = wts;
    sinew_clip *nc = NULL;
    sinew_result r = sinew_clip_create(&d, &nc);
    snw_free(&c->alloc, tmp);
    if (r) return r;
    nc->duration_ticks = c->duration_ticks; /* exactly, whatever the (empty) channels say */
    nc->cmp = cc;
    nc->key_count = keys + wkeys;
    *out = nc;
    return SINEW_OK;
}
