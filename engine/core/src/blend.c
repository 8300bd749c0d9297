/* Blending a character's animation layers (anim.h, "Blending"): the checks and
 * the morph-weight blend in float64, and the pose blend of the production
 * palette path in float32 (SSE where available, scalar otherwise). Each clip is
 * sampled by the per-clip sampler of the fast path (snw_clip_sample_f32), so the
 * blend works with whatever representation that sampler reads. The float64
 * reference of the pose blend is sinew_reference_blend_pose (engine/reference). */
#include "blend_internal.h"
#include "core_internal.h"
#include "root_motion_internal.h"

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
        if (l->root_motion && snw_root_motion_clip(l->root_motion) != l->clip) return SINEW_ERROR_INVALID_ARGUMENT;
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

static inline void quat_mul4(const float *a, const float *b, float *o);

/* ---- the float32 pose blend ----
 * Per joint the running sums live in the output pose itself: T and S sums in
 * t[0..2] and s[0..2], the quaternion sum in q, and the total weight W in t[3]
 * (the sampler's 4th lanes are 0). Rotations of clips with a CUBICSPLINE
 * rotation track are normalized as they are added, so each weighs its weight;
 * those of other clips (snw_clip_rotations_unit: slerp, keys, compressed keys)
 * are unit within ~1e-6 and are added as sampled (FK normalizes later). */

/* The layer's clip (or the rest pose) at t; with root motion, the root joint
 * in place: W(t)^-1 applied (W in float64, applied in float32). */
static void sample_layer(const sinew_anim_layer *l, const snw_fast_joint *fj, uint32_t n, double t, uint32_t cut,
                         snw_ftrs *o)
{
    if (!l->clip) {
        for (uint32_t j = 0; j < n; j++) o[j] = fj[j].rest;
        return;
    }
    snw_clip_sample_f32_cut(l->clip, fj, n, t, l->wrap, cut, o);
    if (!l->root_motion) return;
    uint32_t j;
    const planar_motion w = snw_root_motion_at(l->root_motion, t, l->wrap, &j);
    const sinew_vec3 up = snw_root_motion_up(l->root_motion);
    const double h = -0.5 * w.psi, sh = sin(h);
    const float r[4] = { (float)(up.x * sh), (float)(up.y * sh), (float)(up.z * sh), (float)cos(h) }; /* R^-1 */
    snw_ftrs *x = &o[j];
    const float v[3] = { x->t[0] - (float)w.d.x, x->t[1] - (float)w.d.y, x->t[2] - (float)w.d.z };
    /* v + 2 r.xyz x (r.xyz x v + r.w v) */
    float c[3] = { r[1] * v[2] - r[2] * v[1] + r[3] * v[0], r[2] * v[0] - r[0] * v[2] + r[3] * v[1],
                   r[0] * v[1] - r[1] * v[0] + r[3] * v[2] };
    x->t[0] = v[0] + 2 * (r[1] * c[2] - r[2] * c[1]);
    x->t[1] = v[1] + 2 * (r[2] * c[0] - r[0] * c[2]);
    x->t[2] = v[2] + 2 * (r[0] * c[1] - r[1] * c[0]);
    float q[4];
    quat_mul4(r, x->q, q);
    memcpy(x->q, q, sizeof q);
}

/* 1 / |q| for a sampled rotation, 0 when |q|^2 is not in (1e-30, FLT_MAX]
 * (the caller then takes the identity). Near 1 (the fast sampler's LINEAR
 * output) one Newton step from 1, error ~ (n2 - 1)^2. */
static inline float inv_len(float n2)
{
    if (fabsf(n2 - 1.f) < 1e-4f) return 1.5f - 0.5f * n2;
    return n2 > 1e-30f && n2 <= FLT_MAX ? 1.f / sqrtf(n2) : 0.f;
}

#if defined(__GNUC__) || defined(__clang__)
#define SNW_BLEND_INLINE inline __attribute__((always_inline))
#else
#define SNW_BLEND_INLINE inline
#endif

#if SNW_BLEND_SSE
/* The running sums of one joint in registers (t lane 3: W). */
typedef struct acc4 { __m128 t, q, s; } acc4;

/* a += w (p.t, 1), w p.s, +-w p.q / |p.q| (negated when dot(a.q, p.q) < 0);
 * first: a is zero (a plain store, no sign test) */
static SNW_BLEND_INLINE void acc_add_unit(acc4 *a, const snw_ftrs *p, float w, int first);

static SNW_BLEND_INLINE void acc_add(acc4 *a, const snw_ftrs *p, float w, int first)
{
    const __m128 pq = _mm_load_ps(p->q), aq = first ? pq : a->q;
    /* |p.q|^2 and dot(a.q, p.q) in every lane */
    __m128 n2 = _mm_mul_ps(pq, pq), d = _mm_mul_ps(aq, pq);
    n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(2, 3, 0, 1)));
    d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 3, 0, 1)));
    n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(1, 0, 3, 2)));
    d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 0, 3, 2)));
    const __m128 one = _mm_set1_ps(1.f), sgnbit = _mm_set1_ps(-0.f);
    __m128 q = pq, il;
    if (_mm_movemask_ps(_mm_cmplt_ps(_mm_andnot_ps(sgnbit, _mm_sub_ps(n2, one)), _mm_set1_ps(1e-4f))) == 0xF) {
        il = _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_set1_ps(0.5f), n2)); /* inv_len's Newton step */
    } else {
        const float l = inv_len(_mm_cvtss_f32(n2));
        il = _mm_set1_ps(l > 0 ? l : 1.f);
        if (!(l > 0)) q = _mm_setr_ps(0, 0, 0, 1);
    }
    const __m128 vw = _mm_set1_ps(w);
    __m128 wq = _mm_mul_ps(vw, il);
    if (!first) wq = _mm_xor_ps(wq, _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), sgnbit));
    const __m128 one3 = _mm_setr_ps(0, 0, 0, 1.f);
    const __m128 t = _mm_mul_ps(vw, _mm_or_ps(_mm_load_ps(p->t), one3)), s = _mm_mul_ps(vw, _mm_load_ps(p->s));
    const __m128 qw = _mm_mul_ps(wq, q);
    if (first) {
        a->t = t;
        a->q = qw;
        a->s = s;
    } else {
        a->t = _mm_add_ps(a->t, t);
        a->q = _mm_add_ps(a->q, qw);
        a->s = _mm_add_ps(a->s, s);
    }
}

/* acc_add for a rotation known to be unit within ~1e-6 (snw_clip_rotations_unit):
 * no normalization, the weight error is that of the sampler's */
static SNW_BLEND_INLINE void acc_add_unit(acc4 *a, const snw_ftrs *p, float w, int first)
{
    const __m128 pq = _mm_load_ps(p->q), sgnbit = _mm_set1_ps(-0.f), vw = _mm_set1_ps(w);
    __m128 wq = vw;
    if (!first) {
        __m128 d = _mm_mul_ps(a->q, pq);
        d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(2, 3, 0, 1)));
        d = _mm_add_ps(d, _mm_shuffle_ps(d, d, _MM_SHUFFLE(1, 0, 3, 2)));
        wq = _mm_xor_ps(wq, _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), sgnbit));
    }
    const __m128 one3 = _mm_setr_ps(0, 0, 0, 1.f);
    const __m128 t = _mm_mul_ps(vw, _mm_or_ps(_mm_load_ps(p->t), one3)), s = _mm_mul_ps(vw, _mm_load_ps(p->s));
    const __m128 qw = _mm_mul_ps(wq, pq);
    if (first) {
        a->t = t;
        a->q = qw;
        a->s = s;
    } else {
        a->t = _mm_add_ps(a->t, t);
        a->q = _mm_add_ps(a->q, qw);
        a->s = _mm_add_ps(a->s, s);
    }
}

static SNW_BLEND_INLINE void acc_load(acc4 *a, const snw_ftrs *o)
{
    a->t = _mm_load_ps(o->t);
    a->q = _mm_load_ps(o->q);
    a->s = _mm_load_ps(o->s);
}

static SNW_BLEND_INLINE void acc_store(snw_ftrs *o, const acc4 *a)
{
    _mm_store_ps(o->t, a->t);
    _mm_store_ps(o->q, a->q);
    _mm_store_ps(o->s, a->s);
}

/* The sums to the pose, with iw = 1 / W: T iw, S iw (exactly 1 on an axis where
 * every blended scale was 1: that sum equals W), the rotation sum times iw (left
 * unnormalized: it is a positive multiple of the normalized blend, and FK
 * normalizes every local rotation); lanes 3 back to 0. */
static SNW_BLEND_INLINE void acc_finish(snw_ftrs *o, const acc4 *a, float iw)
{
    const __m128 t = a->t, W = _mm_shuffle_ps(t, t, 0xFF), vi = _mm_set1_ps(iw);
    const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
    const __m128 s = a->s, unit = _mm_cmpeq_ps(s, W);
    _mm_store_ps(o->t, _mm_and_ps(_mm_mul_ps(t, vi), xyz));
    _mm_store_ps(o->s, _mm_and_ps(_mm_or_ps(_mm_andnot_ps(unit, _mm_mul_ps(s, vi)), _mm_and_ps(unit, _mm_set1_ps(1.f))), xyz));
    _mm_store_ps(o->q, _mm_mul_ps(a->q, vi));
}

static SNW_BLEND_INLINE void accumulate(snw_ftrs *acc, const snw_ftrs *p, float w, int first)
{
    acc4 a;
    if (!first) acc_load(&a, acc);
    acc_add(&a, p, w, first);
    acc_store(acc, &a);
}

static SNW_BLEND_INLINE void finish(snw_ftrs *o, float iw)
{
    acc4 a;
    acc_load(&a, o);
    acc_finish(o, &a, iw);
}
#else
/* acc += w (p.t, 1), w p.s, +-w p.q / |p.q| (negated when dot(acc.q, p.q) < 0);
 * first: acc is zero */
static inline void accumulate(snw_ftrs *acc, const snw_ftrs *p, float w, int first)
{
    if (first) memset(acc, 0, sizeof *acc);
    float pq[4] = { p->q[0], p->q[1], p->q[2], p->q[3] };
    const float n2 = (pq[0] * pq[0] + pq[2] * pq[2]) + (pq[1] * pq[1] + pq[3] * pq[3]);
    const float d = (acc->q[0] * pq[0] + acc->q[2] * pq[2]) + (acc->q[1] * pq[1] + acc->q[3] * pq[3]);
    float il = inv_len(n2);
    if (!(il > 0)) { pq[0] = pq[1] = pq[2] = 0; pq[3] = 1; il = 1; }
    const float wq = (d < 0 ? -w : w) * il;
    for (int k = 0; k < 3; k++) {
        acc->t[k] += w * p->t[k];
        acc->s[k] += w * p->s[k];
    }
    acc->t[3] += w;
    for (int k = 0; k < 4; k++) acc->q[k] += wq * pq[k];
}

/* The sums to the pose (see the SSE acc_finish) */
static inline void finish(snw_ftrs *o, float iw)
{
    const float W = o->t[3];
    for (int k = 0; k < 3; k++) {
        o->t[k] *= iw;
        o->s[k] = o->s[k] == W ? 1.f : o->s[k] * iw;
    }
    o->t[3] = o->s[3] = 0;
    for (int k = 0; k < 4; k++) o->q[k] *= iw;
}
#endif

static inline void quat_mul4(const float *a, const float *b, float *o)
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x; o[1] = y; o[2] = z; o[3] = w;
}

static inline void unit4(const float *q, float *o)
{
    float il = inv_len((q[0] * q[0] + q[2] * q[2]) + (q[1] * q[1] + q[3] * q[3]));
    if (il > 0) { o[0] = q[0] * il; o[1] = q[1] * il; o[2] = q[2] * il; o[3] = q[3] * il; }
    else { o[0] = o[1] = o[2] = 0; o[3] = 1; }
}

/* o += w (p - r): T += w dT, Q = Q nlerp(1, conj(R) P, w), S *= 1 + w (dS - 1) */
#if SNW_BLEND_SSE
/* a (x) b (Hamilton), as fastpath.c's qmul */
static inline __m128 qmul_ps(__m128 va, __m128 vb)
{
    const __m128 s1 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, 0, (int)0x80000000, 0));
    const __m128 s2 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, (int)0x80000000, 0, 0));
    const __m128 s3 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, 0, 0, (int)0x80000000));
    __m128 r = _mm_mul_ps(_mm_shuffle_ps(va, va, 0xFF), vb);
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0x00), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(0, 1, 2, 3)), s1)));
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0x55), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(1, 0, 3, 2)), s2)));
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0xAA), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(2, 3, 0, 1)), s3)));
    return r;
}

/* q / |q| (inv_len's rules: Newton step near 1, identity when degenerate) */
static inline __m128 unit_ps(__m128 q)
{
    __m128 n2 = _mm_mul_ps(q, q);
    n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(2, 3, 0, 1)));
    n2 = _mm_add_ps(n2, _mm_shuffle_ps(n2, n2, _MM_SHUFFLE(1, 0, 3, 2)));
    const __m128 one = _mm_set1_ps(1.f);
    if (_mm_movemask_ps(_mm_cmplt_ps(_mm_andnot_ps(_mm_set1_ps(-0.f), _mm_sub_ps(n2, one)), _mm_set1_ps(1e-4f))) == 0xF)
        return _mm_mul_ps(q, _mm_sub_ps(_mm_set1_ps(1.5f), _mm_mul_ps(_mm_set1_ps(0.5f), n2)));
    const float l = inv_len(_mm_cvtss_f32(n2));
    return l > 0 ? _mm_mul_ps(q, _mm_set1_ps(l)) : _mm_setr_ps(0, 0, 0, 1);
}

static inline void add_delta(snw_ftrs *o, const snw_ftrs *p, const snw_ftrs *r, float w)
{
    const __m128 conj = _mm_castsi128_ps(_mm_setr_epi32((int)0x80000000, (int)0x80000000, (int)0x80000000, 0));
    const __m128 pu = unit_ps(_mm_load_ps(p->q)), rc = _mm_xor_ps(unit_ps(_mm_load_ps(r->q)), conj);
    const __m128 dq = qmul_ps(rc, pu), vw = _mm_set1_ps(w), one = _mm_set1_ps(1.f);
    const __m128 sign = _mm_and_ps(_mm_cmplt_ps(_mm_shuffle_ps(dq, dq, 0xFF), _mm_setzero_ps()), _mm_set1_ps(-0.f));
    __m128 nq = _mm_add_ps(_mm_mul_ps(_mm_xor_ps(vw, sign), dq), _mm_setr_ps(0, 0, 0, 1.f - w));
    _mm_store_ps(o->q, qmul_ps(_mm_load_ps(o->q), unit_ps(nq)));
    const __m128 pt = _mm_load_ps(p->t), rt = _mm_load_ps(r->t);
    _mm_store_ps(o->t, _mm_add_ps(_mm_load_ps(o->t), _mm_mul_ps(vw, _mm_sub_ps(pt, rt))));
    const __m128 rs = _mm_load_ps(r->s), zero = _mm_cmpeq_ps(rs, _mm_setzero_ps());
    const __m128 rs1 = _mm_or_ps(_mm_andnot_ps(zero, rs), _mm_and_ps(zero, one)); /* 1 where R.s = 0 (and lane 3) */
    __m128 ds = _mm_div_ps(_mm_load_ps(p->s), rs1);
    ds = _mm_or_ps(_mm_andnot_ps(zero, ds), _mm_and_ps(zero, one));
    _mm_store_ps(o->s, _mm_mul_ps(_mm_load_ps(o->s), _mm_add_ps(one, _mm_mul_ps(vw, _mm_sub_ps(ds, one)))));
}
#else
static inline void add_delta(snw_ftrs *o, const snw_ftrs *p, const snw_ftrs *r, float w)
{
    float pu[4], ru[4], dq[4], nq[4], q[4];
    unit4(p->q, pu);
    unit4(r->q, ru);
    ru[0] = -ru[0]; ru[1] = -ru[1]; ru[2] = -ru[2];
    quat_mul4(ru, pu, dq);
    float wq = dq[3] < 0 ? -w : w;
    nq[0] = wq * dq[0]; nq[1] = wq * dq[1]; nq[2] = wq * dq[2]; nq[3] = (1.f - w) + wq * dq[3];
    unit4(nq, nq);
    quat_mul4(o->q, nq, q);
    for (int k = 0; k < 3; k++) {
        o->t[k] += w * (p->t[k] - r->t[k]);
        float ds = r->s[k] != 0.f ? p->s[k] / r->s[k] : 1.f;
        o->s[k] *= 1.f + w * (ds - 1.f);
    }
    memcpy(o->q, q, sizeof q);
}
#endif

/* Step 1 when no blend layer has a mask and the total weight W reaches the
 * threshold: the first layer is sampled straight into out, each further one
 * into tmp and added in one pass, the last pass also applying 1 / W. The same
 * float operations in the same order as the general path below (accumulate
 * into a zero pose, add, finish), so the same bits, with fewer passes. */
static void blend_unmasked(const sinew_anim_layer *layers, const float *wl, uint32_t count, const snw_fast_joint *fj,
                           uint32_t n, uint32_t cut, float W_all, snw_ftrs *out, snw_ftrs *tmp)
{
    const float iw = 1.f / W_all;
    uint32_t i0 = 0;
    while (!(wl[i0] > 0) || (layers[i0].flags & SINEW_LAYER_ADDITIVE)) i0++;
    sample_layer(&layers[i0], fj, n, snw_layer_sample_time(&layers[i0]), cut, out);
    const float w0 = wl[i0];
    uint32_t last = count - 1;
    while (!(wl[last] > 0) || (layers[last].flags & SINEW_LAYER_ADDITIVE)) last--;
#if SNW_BLEND_SSE
    /* rotations from clips without CUBICSPLINE rotation tracks are unit within
     * ~1e-6: added without normalizing (the sampler's error is the weight's) */
#define SNW_ADD(p, w, first, unit) \
    do { if (unit) acc_add_unit(&a, p, w, first); else acc_add(&a, p, w, first); } while (0)
    const int u0 = snw_clip_rotations_unit(layers[i0].clip);
    if (last == i0) { /* one layer: scale and finish */
        if (u0)
            for (uint32_t j = 0; j < n; j++) { acc4 a; SNW_ADD(&out[j], w0, 1, 1); acc_finish(&out[j], &a, iw); }
        else
            for (uint32_t j = 0; j < n; j++) { acc4 a; SNW_ADD(&out[j], w0, 1, 0); acc_finish(&out[j], &a, iw); }
        return;
    }
    if (u0)
        for (uint32_t j = 0; j < n; j++) { acc4 a; SNW_ADD(&out[j], w0, 1, 1); acc_store(&out[j], &a); }
    else
        for (uint32_t j = 0; j < n; j++) { acc4 a; SNW_ADD(&out[j], w0, 1, 0); acc_store(&out[j], &a); }
    for (uint32_t i = i0 + 1; i <= last; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = wl[i];
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), cut, tmp);
        const int u = snw_clip_rotations_unit(l->clip);
#define SNW_PASS(unit, fin)                                                   \
        for (uint32_t j = 0; j < n; j++) {                                    \
            acc4 a;                                                           \
            acc_load(&a, &out[j]);                                            \
            SNW_ADD(&tmp[j], w, 0, unit);                                     \
            if (fin) acc_finish(&out[j], &a, iw); else acc_store(&out[j], &a); \
        }
        if (i == last) {
            if (u) SNW_PASS(1, 1) else SNW_PASS(0, 1)
        } else {
            if (u) SNW_PASS(1, 0) else SNW_PASS(0, 0)
        }
#undef SNW_PASS
    }
#undef SNW_ADD
#else
    if (last == i0) {
        for (uint32_t j = 0; j < n; j++) {
            const snw_ftrs p0 = out[j];
            accumulate(&out[j], &p0, w0, 1);
            finish(&out[j], iw);
        }
        return;
    }
    int first = 1;
    for (uint32_t i = i0 + 1; i <= last; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = wl[i];
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), cut, tmp);
        for (uint32_t j = 0; j < n; j++) {
            if (first) {
                snw_ftrs p0 = out[j];
                accumulate(&out[j], &p0, w0, 1);
            }
            accumulate(&out[j], &tmp[j], w, 0);
            if (i == last) finish(&out[j], iw);
        }
        first = 0;
    }
#endif
}

static void blend_general(const sinew_anim_layer *layers, const float *wl, uint32_t count, const snw_fast_joint *fj,
                          uint32_t n, uint32_t cut, snw_ftrs *out, snw_ftrs *tmp);
static void add_layers(const sinew_anim_layer *layers, const float *wl, uint32_t count, const snw_fast_joint *fj,
                       uint32_t n, uint32_t cut, snw_ftrs *out, snw_ftrs *tmp, snw_ftrs *ref);

void snw_blend_sample_f32(const sinew_anim_layer *layers, uint32_t count, const snw_fast_joint *fj, uint32_t n,
                          uint32_t cut, snw_ftrs *out, snw_ftrs *tmp, snw_ftrs *ref)
{
    /* the layers' weights, once; W_all in layer order, as the general path adds it */
    float wl[SINEW_MAX_ANIM_LAYERS];
    int any_mask = 0, any_blend = 0;
    float W_sum = 0;
    if (count > SINEW_MAX_ANIM_LAYERS) count = SINEW_MAX_ANIM_LAYERS; /* validated before */
    for (uint32_t i = 0; i < count; i++) {
        wl[i] = (float)sinew_anim_layer_weight(&layers[i]);
        if ((layers[i].flags & SINEW_LAYER_ADDITIVE) || !(wl[i] > 0)) continue;
        any_blend = 1;
        if (layers[i].joint_weights) any_mask = 1;
        else W_sum += wl[i];
    }
    if (any_blend && !any_mask && W_sum >= (float)SINEW_BLEND_REST_THRESHOLD) {
        blend_unmasked(layers, wl, count, fj, n, cut, W_sum, out, tmp);
    } else {
        blend_general(layers, wl, count, fj, n, cut, out, tmp);
    }
    add_layers(layers, wl, count, fj, n, cut, out, tmp, ref);
}

/* Step 1, the general case (masks, or a total weight under the threshold). */
static void blend_general(const sinew_anim_layer *layers, const float *wl, uint32_t count, const snw_fast_joint *fj,
                          uint32_t n, uint32_t cut, snw_ftrs *out, snw_ftrs *tmp)
{
    /* 1. blend layers. Until a layer without mask has been added, a joint's
     * first contribution is a store (zeroed first when a masked layer came
     * first); with no mask at all, every joint has the same total W. */
    int started = 0, zeroed = 0, masked = 0;
    float W_all = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = wl[i];
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), cut, tmp);
        const float *mask = l->joint_weights;
        if (mask && !started && !zeroed) {
            memset(out, 0, (size_t)n * sizeof *out);
            zeroed = 1;
        }
        if (!mask) {
            const int first = !started && !zeroed;
            if (first)
                for (uint32_t j = 0; j < n; j++) accumulate(&out[j], &tmp[j], w, 1);
            else
                for (uint32_t j = 0; j < n; j++) accumulate(&out[j], &tmp[j], w, 0);
            started = 1;
            W_all += w;
        } else {
            masked = 1;
            for (uint32_t j = 0; j < n; j++) {
                const float wj = w * mask[j];
                if (wj > 0) accumulate(&out[j], &tmp[j], wj, 0);
            }
        }
    }
    if (!started && !zeroed) memset(out, 0, (size_t)n * sizeof *out);
    const float thr = (float)SINEW_BLEND_REST_THRESHOLD;
    if (!masked && W_all >= thr) { /* one 1 / W for every joint (W_all: the same sums, in the same order) */
        const float iw = 1.f / W_all;
        for (uint32_t j = 0; j < n; j++) finish(&out[j], iw);
    } else {
        for (uint32_t j = 0; j < n; j++) {
            const float W = out[j].t[3];
            if (W < thr) accumulate(&out[j], &fj[j].rest, thr - W, 0);
            finish(&out[j], 1.f / out[j].t[3]);
        }
    }
}

/* Step 2: the additive layers, in order. */
static void add_layers(const sinew_anim_layer *layers, const float *wl, uint32_t count, const snw_fast_joint *fj,
                       uint32_t n, uint32_t cut, snw_ftrs *out, snw_ftrs *tmp, snw_ftrs *ref)
{
    for (uint32_t i = 0; i < count; i++) {
        const sinew_anim_layer *l = &layers[i];
        const float w = wl[i];
        if (!(l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        sample_layer(l, fj, n, snw_layer_sample_time(l), cut, tmp);
        const snw_ftrs *rp = ref;
        if (l->flags & SINEW_LAYER_REFERENCE_REST) rp = NULL;
        else sample_layer(l, fj, n, l->reference_time, cut, ref);
        const float *mask = l->joint_weights;
        for (uint32_t j = 0; j < n; j++) {
            const float wj = mask ? w * mask[j] : w;
            if (!(wj > 0)) continue;
            add_delta(&out[j], &tmp[j], rp ? &rp[j] : &fj[j].rest, wj);
        }
    }
}
