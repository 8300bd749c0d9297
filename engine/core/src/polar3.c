/* Float32 polar decompositions A = Q P of 3x3 matrices for the palette job
 * (fastpath.c): Q a proper rotation, P symmetric.
 *
 * snw_polar_f32 is one matrix: it skips a rotation (|A^T A - I| <= 2e-6,
 * det > 0: Q = A, P = I), runs scaled Newton then Newton-Schulz steps on a
 * proper, well-conditioned matrix, and hands a mirrored, singular,
 * ill-conditioned or non-finite one to the float64 reference
 * (sinew_polar_decompose), which keeps the reference's mirror and singular rules.
 *
 * snw_polar_batch does many at once, sixteen at a time with AVX (two 8-lane
 * registers per value; chosen at run time where the CPU has it) or eight with
 * SSE (two 4-lane registers), one matrix per lane, structure of arrays: two
 * independent chains of divisions and square roots keep the core busy. Both
 * come from one source (polar3_simd.h) and run the same IEEE operations per
 * lane (no fused multiply-add), so they give bit-identical results. The same
 * skip test, then the Frobenius-scaled Newton iteration X <- (g X + X^-T / g) / 2
 * (Higham; g = (|X^-1|_F / |X|_F)^1/2, X^-T = cof(X) / det X) from A scaled to
 * RMS singular value 1, each lane stopping on its own once a step moved no
 * entry by more than 1e-2 (Newton converges quadratically: the error after
 * that step is of order 1e-4), then one Newton-Schulz step
 * X <- X (3I - X^T X) / 2 on every lane (no division or square root; it
 * squares the error again, to float32 rounding, and leaves the identity of
 * skipped lanes exact), then P = sym(Q^T A). A lane
 * is handed to snw_polar_f32 (so to the same fallbacks as before) when its
 * det is not positive or not finite, a step's det or g is not positive and
 * finite, it did not converge within 12 steps, or the result's |Q^T Q - I|
 * exceeds 4e-6. Each lane's result depends only on its own matrix (lanes that
 * stopped are held), so a character's palette does not depend on how its
 * joints fall into groups (nor on the instruction set). The Newton-Schulz step
 * takes the place of the last Newton step (its division and two square
 * roots). No allocation, no state. */
#include <sinew/linalg.h>
#include "fast_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#include <xmmintrin.h>
#define SNW_SSE 1
#else
#define SNW_SSE 0
#endif
/* AVX (8 lanes) beside SSE where the compiler can target it per function
 * (GCC's target pragmas) and the CPU says so at run time */
#if SNW_SSE && defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SNW_AVX 1
#else
#define SNW_AVX 0
#endif

/* ---- one matrix ---- */

static inline float maxf(float a, float b) { return a > b ? a : b; }

static inline void cross3(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* The float64 reference. Returns 0, or 1 when a value is not finite. */
static int polar_ref(const float a[3][4], float q[3][4], float p[3][4])
{
    sinew_mat3 m, r, s;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) m.m[j][i] = a[i][j];
    if (sinew_polar_decompose(&m, &r, &s) != SINEW_OK) return 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            q[i][j] = (float)r.m[j][i];
            p[i][j] = (float)s.m[j][i];
        }
    return 0;
}

int snw_polar_f32(const float a[3][4], float q[3][4], float p[3][4], int *skipped)
{
    float d = snw_det3(a);
    *skipped = 0;
    if (d > 0 && snw_ortho_error(a) <= 2e-6f) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                q[i][j] = a[i][j];
                p[i][j] = i == j ? 1.f : 0.f;
            }
        *skipped = 1;
        return 0;
    }
    if (!(d > 0)) return polar_ref(a, q, p); /* mirrored, singular or NaN */
    float x[3][4];
    int converged = 0;
    /* Start from A scaled to RMS singular value 1. Each step: while X is far
     * from orthogonal (|I - X^T X|_F >= 0.9), a scaled Newton step
     * X <- (g X + X^-T / g) / 2 (Higham; g from Frobenius norms); once within,
     * Newton-Schulz steps X <- X (3I - X^T X) / 2 (no inverse, no square root,
     * quadratic convergence there); done one step after |I - X^T X| <= 1e-6. */
    float tr = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) tr += a[i][j] * a[i][j];
    float sc = sqrtf(3.f / tr);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) x[i][j] = a[i][j] * sc;
    for (int it = 0; it < 24 && !converged; it++) {
        float y[3][3], e = 0, emax = 0;
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) {
                float v = x[0][i] * x[0][j] + x[1][i] * x[1][j] + x[2][i] * x[2][j];
                y[i][j] = y[j][i] = v;
                float r = (i == j ? 1.f : 0.f) - v;
                e += (i == j ? 1.f : 2.f) * r * r;
                emax = maxf(emax, fabsf(r));
            }
        if (e < 0.81f) { /* Newton-Schulz */
            float nx[3][3];
            for (int r = 0; r < 3; r++)
                for (int j = 0; j < 3; j++)
                    nx[r][j] = 1.5f * x[r][j] - 0.5f * (x[r][0] * y[0][j] + x[r][1] * y[1][j] + x[r][2] * y[2][j]);
            for (int r = 0; r < 3; r++)
                for (int j = 0; j < 3; j++) x[r][j] = nx[r][j];
            converged = emax <= 1e-6f;
            continue;
        }
        float c[3][4];
        cross3(x[1], x[2], c[0]);
        cross3(x[2], x[0], c[1]);
        cross3(x[0], x[1], c[2]);
        float det = x[0][0] * c[0][0] + x[0][1] * c[0][1] + x[0][2] * c[0][2];
        if (!(det > 0) || !isfinite(det)) return polar_ref(a, q, p);
        float nc = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) nc += c[i][j] * c[i][j];
        /* ||X||_F^2 = trace(Y); ||X^-1||_F = ||C||_F / det */
        float g = sqrtf(sqrtf(nc) / (det * sqrtf(y[0][0] + y[1][1] + y[2][2])));
        if (!(g > 0) || !isfinite(g)) return polar_ref(a, q, p);
        float ga = 0.5f * g, gb = 0.5f / (g * det);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) x[i][j] = ga * x[i][j] + gb * c[i][j];
    }
    if (!converged) return polar_ref(a, q, p);
    /* P = Q^T A, symmetrized */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) q[i][j] = x[i][j];
    float pm[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) pm[i][j] = q[0][i] * a[0][j] + q[1][i] * a[1][j] + q[2][i] * a[2][j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) p[i][j] = 0.5f * (pm[i][j] + pm[j][i]);
    return 0;
}

int snw_polar_rotation(const snw_faff *a, snw_faff *q, snw_faff *p)
{
    if (!(snw_det3(a->r) > 0) || !(snw_ortho_error(a->r) <= 2e-6f)) return 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            q->r[r][c] = c < 3 ? a->r[r][c] : 0.f;
            p->r[r][c] = r == c ? 1.f : 0.f;
        }
    return 1;
}

/* ---- four at a time ---- */

#define SNW_POLAR_MAX_STEPS 12
/* (overridable at compile time to check that test_polar_simd catches a loose stop) */
#ifndef SNW_POLAR_STEP_TOL
#define SNW_POLAR_STEP_TOL 1e-2f
#endif
#ifndef SNW_POLAR_NS_STEPS
#define SNW_POLAR_NS_STEPS 1
#endif
#define SNW_POLAR_ORTHO_TOL 4e-6f

static void put_3x3(const float (*src)[4], snw_faff *dst)
{
    for (int r = 0; r < 3; r++) {
        dst->r[r][0] = src[r][0]; dst->r[r][1] = src[r][1]; dst->r[r][2] = src[r][2]; dst->r[r][3] = 0;
    }
}

#if SNW_SSE
/* Two groups of VL matrices per call: the Newton step is a chain of dependent
 * divisions and square roots, and two independent chains keep the core busy. */
#define NG 2
#define FOR_H _Pragma("GCC unroll 2") for (int h = 0; h < ng; h++)

/* SSE: four lanes */
#define V __m128
#define VL 4
#define VZERO _mm_setzero_ps
#define VSET1 _mm_set1_ps
#define VADD _mm_add_ps
#define VSUB _mm_sub_ps
#define VMUL _mm_mul_ps
#define VDIV _mm_div_ps
#define VSQRT _mm_sqrt_ps
#define VMAX _mm_max_ps
#define VAND _mm_and_ps
#define VOR _mm_or_ps
#define VANDNOT _mm_andnot_ps
#define VGT _mm_cmpgt_ps
#define VLE _mm_cmple_ps
#define VEQ _mm_cmpeq_ps
#define VMASK _mm_movemask_ps
#define VFROM4(c) ((c)[0])
#define VTO4(v, c) ((c)[0] = (v))
#define VSEL sel4
#define VABS abs4
#define PG_NAME polar_groups_sse
#define BATCH_NAME polar_batch_sse
static inline __m128 sel4(__m128 m, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
static inline __m128 abs4(__m128 a) { return _mm_andnot_ps(_mm_set1_ps(-0.f), a); }
#include "polar3_simd.h"
#undef V
#undef VL
#undef VZERO
#undef VSET1
#undef VADD
#undef VSUB
#undef VMUL
#undef VDIV
#undef VSQRT
#undef VMAX
#undef VAND
#undef VOR
#undef VANDNOT
#undef VGT
#undef VLE
#undef VEQ
#undef VMASK
#undef VFROM4
#undef VTO4
#undef VSEL
#undef VABS
#undef PG_NAME
#undef BATCH_NAME

#if SNW_AVX
/* AVX (no FMA: the same operations as SSE, eight lanes), chosen at run time */
#pragma GCC push_options
#pragma GCC target("avx")
#define V __m256
#define VL 8
#define VZERO _mm256_setzero_ps
#define VSET1 _mm256_set1_ps
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VMUL _mm256_mul_ps
#define VDIV _mm256_div_ps
#define VSQRT _mm256_sqrt_ps
#define VMAX _mm256_max_ps
#define VAND _mm256_and_ps
#define VOR _mm256_or_ps
#define VANDNOT _mm256_andnot_ps
#define VGT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OS)
#define VLE(a, b) _mm256_cmp_ps(a, b, _CMP_LE_OS)
#define VEQ(a, b) _mm256_cmp_ps(a, b, _CMP_EQ_OQ)
#define VMASK _mm256_movemask_ps
#define VFROM4(c) _mm256_insertf128_ps(_mm256_castps128_ps256((c)[0]), (c)[1], 1)
#define VTO4(v, c) ((c)[0] = _mm256_castps256_ps128(v), (c)[1] = _mm256_extractf128_ps(v, 1))
#define VSEL sel8
#define VABS abs8
#define PG_NAME polar_groups_avx
#define BATCH_NAME polar_batch_avx
static inline __m256 sel8(__m256 m, __m256 a, __m256 b) { return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b)); }
static inline __m256 abs8(__m256 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), a); }
#include "polar3_simd.h"
#pragma GCC pop_options
#endif
#endif

int snw_polar_batch_isa(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p, int isa)
{
#if SNW_AVX
    if (isa != 0 && __builtin_cpu_supports("avx")) return polar_batch_avx(a, idx, n, q, p);
#endif
#if SNW_SSE
    (void)isa;
    return polar_batch_sse(a, idx, n, q, p);
#else
    (void)isa;
    return snw_polar_batch(a, idx, n, q, p);
#endif
}

int snw_polar_batch(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p)
{
#if SNW_SSE
    return snw_polar_batch_isa(a, idx, n, q, p, -1);
#else
    for (uint32_t m = 0; m < n; m++) {
        const uint32_t j = idx ? idx[m] : m;
        float q3[3][4], p3[3][4];
        int skipped;
        if (snw_polar_f32(a[j].r, q3, p3, &skipped)) return 1;
        put_3x3((const float(*)[4])q3, &q[j]);
        put_3x3((const float(*)[4])p3, &p[j]);
    }
    return 0;
#endif
}
