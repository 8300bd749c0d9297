/* Private: the float32 slerp of the fast path on SSE registers (anim.c's
 * sampler, clip_decompress.c's). The two weights sin((1-a) th) / sin th and
 * sin(a th) / sin th are Eberly's polynomial ("A fast and accurate algorithm
 * for computing SLERP", 2011) evaluated for both in two lanes at once: per
 * lane the same operations in the same order as the scalar form, so the same
 * bits. */
#ifndef SINEW_SLERP_INTERNAL_H
#define SINEW_SLERP_INTERNAL_H

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define SNW_SLERP_INLINE static inline __attribute__((always_inline))
#else
#define SNW_SLERP_INLINE static inline
#endif

/* lanes 0, 1 of T: t * acc for x = cos th in [0.5, 1], 8 terms (|error| <= 5e-7
 * for th <= 60 degrees) */
SNW_SLERP_INLINE __m128 snw_eberly8_ps(float x, __m128 T)
{
    static const float u[8] = { 1.f / 3, 1.f / 10, 1.f / 21, 1.f / 36, 1.f / 55, 1.f / 78, 1.f / 105, 1.f / 136 };
    static const float v[8] = { 1.f / 3, 2.f / 5, 3.f / 7, 4.f / 9, 5.f / 11, 6.f / 13, 7.f / 15, 8.f / 17 };
    const __m128 xm1 = _mm_set1_ps(x - 1), t2 = _mm_mul_ps(T, T), one = _mm_set1_ps(1.f);
    __m128 acc = one;
    for (int i = 7; i >= 0; i--)
        acc = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(_mm_set1_ps(u[i]), t2), _mm_set1_ps(v[i])), xm1), acc));
    return _mm_mul_ps(T, acc);
}

/* the same with 3 terms for x >= 0.95 (keys <= 36 degrees apart): |error| <= 6e-8 */
SNW_SLERP_INLINE __m128 snw_eberly3_ps(float x, __m128 T)
{
    const __m128 xm1 = _mm_set1_ps(x - 1), t2 = _mm_mul_ps(T, T), one = _mm_set1_ps(1.f);
    __m128 acc = _mm_add_ps(one, _mm_mul_ps(_mm_sub_ps(_mm_mul_ps(t2, _mm_set1_ps(1.f / 21)), _mm_set1_ps(3.f / 7)), xm1));
    acc = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(t2, _mm_set1_ps(1.f / 10)), _mm_set1_ps(2.f / 5)), xm1), acc));
    acc = _mm_add_ps(one, _mm_mul_ps(_mm_mul_ps(_mm_sub_ps(_mm_mul_ps(t2, _mm_set1_ps(1.f / 3)), _mm_set1_ps(1.f / 3)), xm1), acc));
    return _mm_mul_ps(T, acc);
}

/* Slerp of p to q at a along the shorter arc (not normalized: FK normalizes). */
SNW_SLERP_INLINE __m128 snw_slerp_ps(__m128 p, __m128 q, float a)
{
    const __m128 m = _mm_mul_ps(p, q); /* the dot product summed left to right */
    float d = _mm_cvtss_f32(m) + _mm_cvtss_f32(_mm_shuffle_ps(m, m, 0x55));
    d = d + _mm_cvtss_f32(_mm_movehl_ps(m, m));
    d = d + _mm_cvtss_f32(_mm_shuffle_ps(m, m, 0xFF));
    int neg = 0;
    if (d < 0) { d = -d; neg = 1; }
    __m128 W; /* lane 0: the weight of p, lane 1: of q */
    const __m128 T = _mm_setr_ps(1 - a, a, 0, 0);
    if (d >= 0.95f) {
        W = snw_eberly3_ps(d, T);
    } else if (d >= 0.5f) {
        W = snw_eberly8_ps(d, T);
    } else { /* keys more than 120 degrees apart: the trigonometric formula */
        float th = acosf(d), sn = sinf(th);
        W = _mm_setr_ps(sinf((1 - a) * th) / sn, sinf(a * th) / sn, 0, 0);
    }
    const __m128 wp = _mm_shuffle_ps(W, W, 0x00);
    __m128 wq = _mm_shuffle_ps(W, W, 0x55);
    if (neg) wq = _mm_xor_ps(wq, _mm_set1_ps(-0.f)); /* wq * -1 */
    return _mm_add_ps(_mm_mul_ps(wp, p), _mm_mul_ps(wq, q));
}
#endif

#endif
