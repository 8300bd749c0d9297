/* Blending a character's animation layers (anim.h, "Blending"): the checks and
 * the morph-weight blend in float64, and the pose blend of the production
 * palette path in float32 (SSE where available, scalar otherwise). Each clip is
 * sampled by the per-clip sampler of the fast path (snw_clip_sample_f32), so the
 * blend works with whatever representation that sampler reads. The float64
 * reference of the pose blend is sinew_reference_blend_pose (engine/reference). */
#include "blend_internal.h"
#include "core_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SNW_BLEND_SSE 1
#else
#define SNW_BLEND_SSE 0
#endif

double sinew_anim_layer_weight(const sinew_anim_layer *l)
{
    if (!l) return 0.0;
    double w = l->weight;
    if (l->fade_duration > 0) {
        double f = l->fade_time / l->fade_duration;
        f = f < 0 ? 0 : (f > 1 ? 1 : f);
        if (l->flags & SINEW_LAYER_FADE_OUT) f = 1 - f;
        w *= f;
    }
    return w;
}

double snw_layer_sample_time(const sinew_anim_layer *l)
{
    if ((l->flags & SINEW_LAYER_SYNC) && l->clip) return l->time * sinew_clip_duration(l->clip);
    return l->time;
}

sinew_result sinew_anim_layers_validate(const sinew_anim_layer *layers, uint32_t count, uint32_t joint_count)
{
    if (count > SINEW_MAX_ANIM_LAYERS || (count && !layers)) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_anim_layer *l = &layers[i];
        if ((l->flags & ~(uint32_t)SINEW_LAYER_FLAGS_ALL) || (unsigned)l->wrap > (unsigned)SINEW_WRAP_CLAMP)
            return SINEW_ERROR_INVALID_ARGUMENT;
        if (l->clip && sinew_clip_joint_count(l->clip) != joint_count) return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(l->time) || !isfinite(l->weight) || !isfinite(l->fade_time) || !isfinite(l->fade_duration) ||
            !isfinite(l->reference_time))
            return SINEW_ERROR_NON_FINITE;
        if (l->weight < 0 || l->fade_duration < 0) return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(snw_layer_sample_time(l))) return SINEW_ERROR_NON_FINITE;
        if (l->joint_weights)
            for (uint32_t j = 0; j < joint_count; j++) {
                float m = l->joint_weights[j];
                if (!(m >= 0.f && m <= 1.f)) return isnan(m) ? SINEW_ERROR_NON_FINITE : SINEW_ERROR_INVALID_ARGUMENT;
            }
    }
    return SINEW_OK;
}

sinew_result sinew_clip_blend_weights(const sinew_anim_layer *layers, uint32_t layer_count, const double *defaults,
                                      uint32_t count, double *scratch, double *out)
{
    if ((count && (!scratch || !out)) || layer_count > SINEW_MAX_ANIM_LAYERS || (layer_count && !layers))
        return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < layer_count; i++) {
        const sinew_anim_layer *l = &layers[i];
        if (l->clip && sinew_clip_weight_count(l->clip) != count) return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(l->weight) || !isfinite(l->fade_time) || !isfinite(l->fade_duration) ||
            !isfinite(l->reference_time) || !isfinite(snw_layer_sample_time(l)))
            return SINEW_ERROR_NON_FINITE;
        if (l->weight < 0 || l->fade_duration < 0 || (l->flags & ~(uint32_t)SINEW_LAYER_FLAGS_ALL) ||
            (unsigned)l->wrap > (unsigned)SINEW_WRAP_CLAMP)
            return SINEW_ERROR_INVALID_ARGUMENT;
    }
    double *v = scratch, *r = scratch + count, total = 0;
    for (uint32_t k = 0; k < count; k++) out[k] = 0;
    for (uint32_t i = 0; i < layer_count; i++) { /* 1. blend layers */
        const sinew_anim_layer *l = &layers[i];
        double w = sinew_anim_layer_weight(l);
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sinew_result e = sinew_clip_sample_weights(l->clip, snw_layer_sample_time(l), l->wrap, defaults, count, v);
        if (e != SINEW_OK) return e;
        for (uint32_t k = 0; k < count; k++) out[k] += w * v[k];
        total += w;
    }
    if (total < SINEW_BLEND_REST_THRESHOLD) {
        double w = SINEW_BLEND_REST_THRESHOLD - total;
        for (uint32_t k = 0; k < count; k++) out[k] += w * (defaults ? defaults[k] : 0.0);
        total = SINEW_BLEND_REST_THRESHOLD;
    }
    for (uint32_t k = 0; k < count; k++) out[k] /= total;
    for (uint32_t i = 0; i < layer_count; i++) { /* 2. additive layers */
        const sinew_anim_layer *l = &layers[i];
        double w = sinew_anim_layer_weight(l);
        if (!(l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sinew_result e = sinew_clip_sample_weights(l->clip, snw_layer_sample_time(l), l->wrap, defaults, count, v);
        if (e == SINEW_OK)
            e = (l->flags & SINEW_LAYER_REFERENCE_REST)
                    ? sinew_clip_sample_weights(NULL, 0, SINEW_WRAP_CLAMP, defaults, count, r)
                    : sinew_clip_sample_weights(l->clip, l->reference_time, l->wrap, defaults, count, r);
        if (e != SINEW_OK) return e;
        for (uint32_t k = 0; k < count; k++) out[k] += w * (v[k] - r[k]);
    }
    return SINEW_OK;
}

/* ---- the float32 pose blend ---- */

/* Samples a layer's clip (or the rest pose) with rotations normalized: the
 * fast sampler leaves them unit only within its interpolation's error (FK
 * normalizes later), and weighted sums and deltas need unit quaternions. */
static void sample_layer(const sinew_anim_layer *l, const snw_fast_joint *fj, uint32_t n, double t, snw_ftrs *o)
{
    if (!l->clip) {
        for (uint32_t j = 0; j < n; j++) o[j] = fj[j].rest;
        return;
    }
    snw_clip_sample_f32(l->clip, fj, n, t, l->wrap, o);
    for (uint32_t j = 0; j < n; j++) {
        float *q = o[j].q;
        float n2 = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
        if (!(n2 > 1e-30f) || !(n2 <= FLT_MAX)) {
            q[0] = q[1] = q[2] = 0; q[3] = 1;
            continue;
        }
        /* near 1 (LINEAR keys): one Newton step, error ~ (n2 - 1)^2 */
        float inv = fabsf(n2 - 1.f) < 1e-4f ? 1.5f - 0.5f * n2 : 1.f / sqrtf(n2);
        q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
    }
}

/* acc += w p, p's rotation negated first when dot(acc.q, p.q) < 0 */
static inline void accumulate(snw_ftrs *acc, const snw_ftrs *p, float w)
{
#if SNW_BLEND_SSE
    __m128 vw = _mm_set1_ps(w);
    __m128 aq = _mm_load_ps(acc->q), pq = _mm_load_ps(p->q);
    __m128 d = _mm_mul_ps(aq, pq);
    d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 3, 0, 1)));
    d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 0, 3, 2)));
    __m128 sign = _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), _mm_set1_ps(-0.f));
    _mm_store_ps(acc->t, _mm_add_ps(_mm_load_ps(acc->t), _mm_mul_ps(vw, _mm_load_ps(p->t))));
    _mm_store_ps(acc->q, _mm_add_ps(aq, _mm_mul_ps(_mm_xor_ps(vw, sign), pq)));
    _mm_store_ps(acc->s, _mm_add_ps(_mm_load_ps(acc->s), _mm_mul_ps(vw, _mm_load_ps(p->s))));
#else
    float d = (acc->q[0] * p->q[0] + acc->q[1] * p->q[1]) + (acc->q[2] * p->q[2] + acc->q[3] * p->q[3]);
    float wq = d < 0 ? -w : w;
    for (int k = 0; k < 4; k++) {
        acc->t[k] += w * p->t[k];
        acc->q[k] += wq * p->q[k];
        acc->s[k] += w * p->s[k];
    }
#endif
}

static inline void quat_normalize4(float *q)
{
    float n2 = (q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3]);
    if (!(n2 > 1e-30f) || !(n2 <= FLT_MAX)) {
        q[0] = q[1] = q[2] = 0; q[3] = 1;
        return;
    }
    float inv = 1.f / sqrtf(n2);
    q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
}

static inline void quat_mul4(const float *a, const float *b, float *o)
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x; o[1] = y; o[2] = z; o[3] = w;
}

/* o = o + w (p - r): T += w dT, Q = Q nlerp(1, conj(R) P, w), S *= 1 + w (dS - 1) */
static inline void add_delta(snw_ftrs *o, const snw_ftrs *p, const snw_ftrs *r, float w)
{
    float rc[4] = { -r->q[0], -r->q[1], -r->q[2], r->q[3] }, dq[4], nq[4];
    quat_mul4(rc, p->q, dq);
    float wq = dq[3] < 0 ? -w : w;
    nq[0] = wq * dq[0]; nq[1] = wq * dq[1]; nq[2] = wq * dq[2]; nq[3] = (1.f - w) + wq * dq[3];
    quat_normalize4(nq);
    float q[4];
    quat_mul4(o->q, nq, q);
    for (int k = 0; k < 3; k++) {
        o->t[k] += w * (p->t[k] - r->t[k]);
        float ds = r->s[k] != 0.f ? p->s[k] / r->s[k] : 1.f;
        o->s[k] *= 1.f + w * (ds - 1.f);
    }
    memcpy(o->q, q, sizeof q);
}

void snw_blend_sample_f32(const sinew_anim_layer *layers, uint32_t count, const snw_fast_joint *fj, uint32_t n,
                          snw_ftrs *out, snw_ftrs *tmp, snw_ftrs *ref, float *wsum)
{
    memset(out, 0, (size_t)n * sizeof *out);
    memset(wsum, 0, (size_t)n * sizeof *wsum);
    /* 1. blend layers */
    for (uint32_t i = 0; i < count; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = (float)sinew_anim_layer_weight(l);
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), tmp);
        const float *mask = l->joint_weights;
        for (uint32_t j = 0; j < n; j++) {
            const float wj = mask ? w * mask[j] : w;
            if (!(wj > 0)) continue;
            accumulate(&out[j], &tmp[j], wj);
            wsum[j] += wj;
        }
    }
    const float thr = (float)SINEW_BLEND_REST_THRESHOLD;
    for (uint32_t j = 0; j < n; j++) {
        float W = wsum[j];
        if (W < thr) {
            accumulate(&out[j], &fj[j].rest, thr - W);
            W += thr - W;
        }
        snw_ftrs *o = &out[j];
        for (int k = 0; k < 3; k++) {
            o->t[k] /= W;
            o->s[k] /= W;
        }
        o->t[3] = o->s[3] = 0;
        quat_normalize4(o->q);
    }
    /* 2. additive layers */
    for (uint32_t i = 0; i < count; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = (float)sinew_anim_layer_weight(l);
        if (!(l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), tmp);
        const snw_ftrs *rp = ref;
        if (l->flags & SINEW_LAYER_REFERENCE_REST) rp = NULL;
        else sample_layer(l, fj, n, l->reference_time, ref);
        const float *mask = l->joint_weights;
        for (uint32_t j = 0; j < n; j++) {
            const float wj = mask ? w * mask[j] : w;
            if (!(wj > 0)) continue;
            add_delta(&out[j], &tmp[j], rp ? &rp[j] : &fj[j].rest, wj);
        }
    }
}
