/* Sampling of compressed clips (the format of clip_internal.h, made by
 * clip_compress.c): float64 for sinew_clip_sample / sinew_sample_job, float32
 * for the palette job. Stateless: each track finds its key interval by a
 * binary search over its key time indices (O(log n), the same cost forward,
 * backward or at random times); tracks that share their key times (the
 * compressor stores identical index runs once) reuse the interval found. */
#include <sinew/linalg.h>
#include "clip_internal.h"
#include "slerp_internal.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define SNW_CDEC_INLINE inline __attribute__((always_inline)) /* measured: -4 ns per joint */
#else
#define SNW_CDEC_INLINE inline
#endif

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SNW_CDEC_SSE 1
#else
#define SNW_CDEC_SSE 0
#endif

/* The last entry of the clip's time table at or before t (-1: before the first). */
static inline int64_t time_slot(const snw_cclip *cc, double t)
{
    const double *T = cc->times;
    if (!cc->time_count || t < T[0]) return -1;
    uint32_t lo = 0, len = cc->time_count; /* branchless: the last entry <= t in [lo, lo + len) */
    while (len > 1) {
        uint32_t half = len >> 1;
        lo = T[lo + half] <= t ? lo + half : lo;
        len -= half;
    }
    return lo;
}

/* Key interval of time t (ticks; u = time_slot(t)) in a track: returns i0;
 * *hold = 1 when key i0 holds (before the first key, from the last on), else
 * *a in [0, 1]. Keys with equal times: the later one from that time on (the
 * source sampler's rule). Integer compares on the key's time indices. */
#define CFIND_BODY(K)                                                                     \
    {                                                                                     \
        const uint32_t n = tr->count;                                                     \
        if (u < (int64_t)K[0]) { *hold = 1; return 0; }                                   \
        if (u >= (int64_t)K[n - 1]) { *hold = 1; return n - 1; }                          \
        /* branchless: the last k in [0, n - 1) with K[k] <= u (K[0] <= u < K[n - 1]) */ \
        uint32_t lo = 0, len = n - 1;                                                     \
        while (len > 1) {                                                                 \
            uint32_t half = len >> 1;                                                     \
            lo = (int64_t)K[lo + half] <= u ? lo + half : lo;                             \
            len -= half;                                                                  \
        }                                                                                 \
        const uint32_t hi = lo + 1;                                                       \
        double t0 = cc->times[K[lo]], t1 = cc->times[K[hi]];                              \
        double al = (t - t0) / (t1 - t0);                                                 \
        *a = al < 0 ? 0 : (al > 1 ? 1 : al);                                              \
        *hold = 0;                                                                        \
        return lo;                                                                        \
    }
static inline uint32_t cfind16(const snw_cclip *cc, const snw_ctrack *tr, double t, int64_t u, int *hold, double *a)
{
    const uint16_t *K = (const uint16_t *)cc->index + tr->idx;
    CFIND_BODY(K)
}
static inline uint32_t cfind32(const snw_cclip *cc, const snw_ctrack *tr, double t, int64_t u, int *hold, double *a)
{
    const uint32_t *K = (const uint32_t *)cc->index + tr->idx;
    CFIND_BODY(K)
}
#undef CFIND_BODY

/* The interval found for the last track, reused by a track with the same index run. */
typedef struct cfind_cache { uint32_t idx, count, i; int hold; double a; int64_t u; } cfind_cache;

static inline uint32_t cfind_cached(const snw_cclip *cc, const snw_ctrack *tr, double t, int *hold, double *a,
                                    cfind_cache *fc)
{
    if (tr->idx != fc->idx || tr->count != fc->count) {
        fc->i = cc->wide ? cfind32(cc, tr, t, fc->u, &fc->hold, &fc->a) : cfind16(cc, tr, t, fc->u, &fc->hold, &fc->a);
        fc->idx = tr->idx;
        fc->count = tr->count;
    }
    *hold = fc->hold;
    *a = fc->a;
    return fc->i;
}

static void decode_f64(const snw_cclip *cc, const snw_ctrack *tr, uint32_t k, double v[4])
{
    if (tr->format == SNW_CT_Q16) {
        const uint16_t *q = (const uint16_t *)(cc->data + tr->data) + (size_t)k * 3u;
        for (int c = 0; c < 3; c++) v[c] = (double)tr->lo[c] + (double)tr->ext[c] * ((double)q[c] / 65535.0);
        if (tr->rot) {
            double w2 = 1 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2];
            v[3] = w2 > 0 ? sqrt(w2) : 0;
        } else {
            v[3] = 0;
        }
    } else {
        const float *f = (const float *)(cc->data + tr->data) + (size_t)k * tr->comps;
        for (int c = 0; c < tr->comps; c++) v[c] = f[c];
        if (tr->comps == 3) v[3] = 0;
    }
}

/* One track in float64: CONST, or its keys interpolated. */
static void track_f64(const snw_cclip *cc, const snw_ctrack *tr, double t, double v[4], cfind_cache *fc)
{
    int hold;
    double a = 0;
    uint32_t i = cfind_cached(cc, tr, t, &hold, &a, fc);
    decode_f64(cc, tr, i, v);
    if (hold || tr->step) return;
    double w[4];
    decode_f64(cc, tr, i + 1, w);
    if (tr->rot) {
        sinew_quat p = { v[0], v[1], v[2], v[3] }, q = { w[0], w[1], w[2], w[3] };
        sinew_quat r = sinew_quat_slerp(sinew_quat_normalize(p), sinew_quat_normalize(q), a);
        v[0] = r.x; v[1] = r.y; v[2] = r.z; v[3] = r.w;
    } else {
        for (int c = 0; c < 3; c++) v[c] += (w[c] - v[c]) * a;
    }
}

void snw_cclip_sample_f64(const snw_cclip *cc, double t, sinew_transform *out)
{
    cfind_cache fc = { UINT32_MAX, 0, 0, 1, 0, time_slot(cc, t) };
    const snw_ctrack *kt = cc->tracks; /* keyed tracks in order */
    const float *cv = cc->consts;      /* constant values in order */
    double v[4];
    for (uint32_t j = 0; j < cc->joint_count; j++) {
        const uint32_t m = cc->jmask[j];
        for (int kind = 0; kind < 3; kind++) {
            const uint32_t code = (m >> (2 * kind)) & 3u;
            if (code == SNW_CT_NONE) continue;
            if (code == SNW_CT_CONST) { for (int c = 0; c < 4; c++) v[c] = cv[c]; cv += 4; }
            else track_f64(cc, kt++, t, v, &fc);
            if (kind == 0) out[j].translation = sinew_v3(v[0], v[1], v[2]);
            else if (kind == 2) out[j].scale = sinew_v3(v[0], v[1], v[2]);
            else { sinew_quat q = { v[0], v[1], v[2], v[3] }; out[j].rotation = sinew_quat_normalize(q); }
        }
    }
}

/* ---- float32 ---- */

static SNW_CDEC_INLINE void decode_f32(const snw_cclip *cc, const snw_ctrack *tr, uint32_t k, float v[4])
{
#if SNW_CDEC_SSE
    if (tr->format == SNW_CT_Q16) {
        /* 8 bytes read for 6 (the block is padded); lane 3: 0 + 0 x q = 0 */
        const unsigned char *q = cc->data + tr->data + (size_t)k * 6u;
        __m128i u = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)q), _mm_setzero_si128());
        __m128 ext = _mm_mul_ps(_mm_load_ps(tr->ext), _mm_set1_ps(1.0f / 65535.0f));
        __m128 r = _mm_add_ps(_mm_load_ps(tr->lo), _mm_mul_ps(ext, _mm_cvtepi32_ps(u)));
        _mm_storeu_ps(v, r);
        if (tr->rot) {
            float w2 = 1 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2];
            v[3] = w2 > 0 ? sqrtf(w2) : 0;
        }
        return;
    }
#endif
    if (tr->format == SNW_CT_Q16) {
        const uint16_t *q = (const uint16_t *)(cc->data + tr->data) + (size_t)k * 3u;
        const float s = 1.0f / 65535.0f;
        v[0] = tr->lo[0] + tr->ext[0] * ((float)q[0] * s);
        v[1] = tr->lo[1] + tr->ext[1] * ((float)q[1] * s);
        v[2] = tr->lo[2] + tr->ext[2] * ((float)q[2] * s);
        if (tr->rot) {
            float w2 = 1 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2];
            v[3] = w2 > 0 ? sqrtf(w2) : 0;
        } else {
            v[3] = 0;
        }
    } else {
        const float *f = (const float *)(cc->data + tr->data) + (size_t)k * tr->comps;
        v[0] = f[0]; v[1] = f[1]; v[2] = f[2];
        v[3] = tr->comps == 4 ? f[3] : 0;
    }
}

#if SNW_CDEC_SSE
/* Key k of a Q16 track: lo + (ext / 65535) q (lane 3: 0 + 0 q = 0; 8 bytes
 * read for 6, the block is padded) */
static SNW_CDEC_INLINE __m128 q16_key(const snw_cclip *cc, const snw_ctrack *tr, uint32_t k, __m128 lo, __m128 e)
{
    const unsigned char *q = cc->data + tr->data + (size_t)k * 6u;
    const __m128i u = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)q), _mm_setzero_si128());
    return _mm_add_ps(lo, _mm_mul_ps(e, _mm_cvtepi32_ps(u)));
}

/* w = sqrt(1 - x^2 - y^2 - z^2) (0 when not positive) into lane 3 of p and q,
 * as decode_f32 computes it (((1 - x^2) - y^2) - z^2), both keys at once */
static SNW_CDEC_INLINE void q16_w2(__m128 *p, __m128 *q)
{
    const __m128 pp = _mm_mul_ps(*p, *p), qq = _mm_mul_ps(*q, *q);
    const __m128 x = _mm_unpacklo_ps(pp, qq), z = _mm_unpackhi_ps(pp, qq); /* p0 q0 p1 q1, p2 q2 .. */
    const __m128 y = _mm_movehl_ps(x, x);
    const __m128 w2 = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_set1_ps(1.f), x), y), z);
    const __m128 w = _mm_sqrt_ps(_mm_max_ps(w2, _mm_setzero_ps())); /* NaN, <= 0: 0 */
    const __m128 l3 = _mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, -1));
    *p = _mm_or_ps(*p, _mm_and_ps(l3, _mm_shuffle_ps(w, w, 0x00)));
    *q = _mm_or_ps(*q, _mm_and_ps(l3, _mm_shuffle_ps(w, w, 0x55)));
}

/* One key: lane 3 rebuilt for a rotation (hold / step) */
static SNW_CDEC_INLINE __m128 q16_w1(__m128 p)
{
    const __m128 pp = _mm_mul_ps(p, p);
    const __m128 y = _mm_shuffle_ps(pp, pp, 0x55), z = _mm_movehl_ps(pp, pp);
    const __m128 w2 = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_set1_ps(1.f), pp), y), z);
    const __m128 w = _mm_sqrt_ps(_mm_max_ps(w2, _mm_setzero_ps()));
    return _mm_or_ps(p, _mm_and_ps(_mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, -1)), _mm_shuffle_ps(w, w, 0x00)));
}
#endif

static SNW_CDEC_INLINE void track_f32(const snw_cclip *cc, const snw_ctrack *tr, double t, float *o, cfind_cache *fc)
{
    int hold;
    double a = 0;
    uint32_t i = cfind_cached(cc, tr, t, &hold, &a, fc);
#if SNW_CDEC_SSE
    if (tr->format == SNW_CT_Q16) { /* in registers: o is 16-byte aligned */
        const __m128 lo = _mm_load_ps(tr->lo), e = _mm_mul_ps(_mm_load_ps(tr->ext), _mm_set1_ps(1.0f / 65535.0f));
        __m128 p = q16_key(cc, tr, i, lo, e);
        if (hold || tr->step) {
            _mm_store_ps(o, tr->rot ? q16_w1(p) : p);
            return;
        }
        __m128 q = q16_key(cc, tr, i + 1, lo, e);
        const float af = (float)a;
        if (tr->rot) {
            q16_w2(&p, &q);
            _mm_store_ps(o, snw_slerp_ps(p, q, af)); /* no round trip through memory */
            return;
        }
        _mm_store_ps(o, _mm_add_ps(p, _mm_mul_ps(_mm_sub_ps(q, p), _mm_set1_ps(af))));
        return;
    }
    if (tr->comps == 4) { /* F32 rotation: keys loaded as vectors */
        const float *f = (const float *)(cc->data + tr->data) + (size_t)i * 4u;
        const __m128 p = _mm_loadu_ps(f);
        if (hold || tr->step) { _mm_store_ps(o, p); return; }
        _mm_store_ps(o, snw_slerp_ps(p, _mm_loadu_ps(f + 4), (float)a));
        return;
    }
#endif
    float p[4];
    decode_f32(cc, tr, i, p);
    if (hold || tr->step) { memcpy(o, p, sizeof p); return; }
    float q[4];
    decode_f32(cc, tr, i + 1, q);
    const float af = (float)a;
    if (tr->rot) { snw_slerp_f32(p, q, af, o); return; }
    o[0] = p[0] + (q[0] - p[0]) * af;
    o[1] = p[1] + (q[1] - p[1]) * af;
    o[2] = p[2] + (q[2] - p[2]) * af;
    o[3] = 0;
}

void snw_cclip_sample_f32(const snw_cclip *cc, const snw_fast_joint *joints, uint32_t n, double t, snw_ftrs *out)
{
    cfind_cache fc = { UINT32_MAX, 0, 0, 1, 0, time_slot(cc, t) };
    const snw_ctrack *kt = cc->tracks;
    const float *cv = cc->consts;
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t m = cc->jmask[j];
        snw_ftrs *o = &out[j];
        const snw_ftrs *rest = &joints[j].rest;
#define SNW_KIND(code, dst, src)                                            \
        do {                                                                \
            if ((code) == SNW_CT_KEYED) track_f32(cc, kt++, t, dst, &fc);   \
            else if (code) { memcpy(dst, cv, 4 * sizeof(float)); cv += 4; } \
            else memcpy(dst, src, 4 * sizeof(float));                      \
        } while (0)
        SNW_KIND(m & 3u, o->t, rest->t);
        SNW_KIND((m >> 2) & 3u, o->q, rest->q);
        SNW_KIND((m >> 4) & 3u, o->s, rest->s);
#undef SNW_KIND
    }
}
