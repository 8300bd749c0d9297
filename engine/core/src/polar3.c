/* Float32 polar decompositions A = Q P of 3x3 matrices for the palette job
 * (fastpath.c): Q a proper rotation, P symmetric.
 *
 * snw_polar_f32 is one matrix: it skips a rotation (|A^T A - I| <= 2e-6,
 * det > 0: Q = A, P = I), runs scaled Newton then Newton-Schulz steps on a
 * proper, well-conditioned matrix, and hands a mirrored, singular,
 * ill-conditioned or non-finite one to the float64 reference
 * (sinew_polar_decompose), which keeps the reference's mirror and singular rules.
 *
 * snw_polar_batch does many at once, eight at a time (two SSE registers of
 * four per value, one matrix per lane, structure of arrays: two independent
 * chains of divisions and square roots keep the core busy): the same skip
 * test, then the Frobenius-scaled Newton iteration X <- (g X + X^-T / g) / 2
 * (Higham; g = (|X^-1|_F / |X|_F)^1/2, X^-T = cof(X) / det X) from A scaled to
 * RMS singular value 1, each lane stopping on its own once a step moved no
 * entry by more than 4e-4 (Newton converges quadratically: the error after
 * that step is of order 1e-7, float32 rounding), then P = sym(Q^T A). A lane
 * is handed to snw_polar_f32 (so to the same fallbacks as before) when its
 * det is not positive or not finite, a step's det or g is not positive and
 * finite, it did not converge within 12 steps, or the result's |Q^T Q - I|
 * exceeds 4e-6. Each lane's result depends only on its own matrix (lanes that
 * stopped are held), so a character's palette does not depend on how its
 * joints fall into groups. For a rotation times a scale of 0.7 .. 1.4 per
 * axis a group takes about 4 steps (3.7 on average over random ones). No
 * allocation, no state. */
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

/* ---- four at a time ---- */

#define SNW_POLAR_MAX_STEPS 12
#define SNW_POLAR_STEP_TOL 4e-4f
#define SNW_POLAR_ORTHO_TOL 4e-6f

static void put_3x3(const float (*src)[4], snw_faff *dst)
{
    for (int r = 0; r < 3; r++) {
        dst->r[r][0] = src[r][0]; dst->r[r][1] = src[r][1]; dst->r[r][2] = src[r][2]; dst->r[r][3] = 0;
    }
}

#if SNW_SSE
static inline __m128 sel(__m128 m, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
static inline __m128 absps(__m128 a) { return _mm_andnot_ps(_mm_set1_ps(-0.f), a); }

/* Two groups of four matrices at once (lane k of group h = matrix 4h + k):
 * the Newton step is a chain of dependent divisions and square roots, and two
 * independent chains keep the core busy. A[h][r][c]: element (r, c). Returns
 * the matrices (bits 4h + k) whose results are final (skipped or converged);
 * the others need snw_polar_f32. */
#define NG 2
#define FOR_H _Pragma("GCC unroll 2") for (int h = 0; h < ng; h++)
/* ng: 1 or 2 groups (1 for a batch's last four or fewer) */
static int polar_groups(__m128 A[NG][3][3], __m128 Q[NG][3][3], __m128 P[NG][3][3], int ng)
{
    const __m128 one = _mm_set1_ps(1.f), zero = _mm_setzero_ps(), half = _mm_set1_ps(0.5f);
    __m128 proper[NG], skip[NG], act[NG], fail[NG], X[NG][3][3];
    for (int h = 0; h < NG; h++) proper[h] = skip[h] = act[h] = fail[h] = zero; /* unused groups stay idle */
    int need = 0;
    FOR_H {
        __m128(*a)[3] = A[h];
        /* det as snw_det3 (same order), finiteness, orthonormality error as snw_ortho_error */
        __m128 det = _mm_add_ps(
            _mm_sub_ps(_mm_mul_ps(a[0][0], _mm_sub_ps(_mm_mul_ps(a[1][1], a[2][2]), _mm_mul_ps(a[1][2], a[2][1]))),
                       _mm_mul_ps(a[0][1], _mm_sub_ps(_mm_mul_ps(a[1][0], a[2][2]), _mm_mul_ps(a[1][2], a[2][0])))),
            _mm_mul_ps(a[0][2], _mm_sub_ps(_mm_mul_ps(a[1][0], a[2][1]), _mm_mul_ps(a[1][1], a[2][0]))));
        __m128 fin = zero, oe = zero;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) fin = _mm_add_ps(fin, _mm_mul_ps(a[i][j], zero));
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) {
                __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a[0][i], a[0][j]), _mm_mul_ps(a[1][i], a[1][j])),
                                      _mm_mul_ps(a[2][i], a[2][j]));
                if (i == j) d = _mm_sub_ps(d, one);
                oe = _mm_max_ps(oe, absps(d));
            }
        proper[h] = _mm_and_ps(_mm_cmpgt_ps(det, zero), _mm_cmpeq_ps(fin, zero));
        skip[h] = _mm_and_ps(proper[h], _mm_cmple_ps(oe, _mm_set1_ps(2e-6f)));
        act[h] = _mm_andnot_ps(skip[h], proper[h]);
        fail[h] = zero;
        need |= _mm_movemask_ps(act[h]);
        /* RMS singular value 1; the skipped and fallback lanes run on the identity */
        __m128 tr = zero;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) tr = _mm_add_ps(tr, _mm_mul_ps(a[i][j], a[i][j]));
        __m128 s = _mm_sqrt_ps(_mm_div_ps(_mm_set1_ps(3.f), sel(act[h], tr, _mm_set1_ps(3.f))));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) X[h][i][j] = sel(act[h], _mm_mul_ps(a[i][j], s), i == j ? one : zero);
    }
    if (need) {
        const __m128 fmax = _mm_set1_ps(FLT_MAX), tol = _mm_set1_ps(SNW_POLAR_STEP_TOL);
        for (int it = 0; it < SNW_POLAR_MAX_STEPS; it++) {
            int more = 0;
            FOR_H {
                __m128(*x)[3] = X[h];
                __m128 C[3][3];
                /* rows of the cofactor matrix: c0 = x1 x x2, c1 = x2 x x0, c2 = x0 x x1 */
                for (int r = 0; r < 3; r++) {
                    const __m128 *u = x[(r + 1) % 3], *v = x[(r + 2) % 3];
                    C[r][0] = _mm_sub_ps(_mm_mul_ps(u[1], v[2]), _mm_mul_ps(u[2], v[1]));
                    C[r][1] = _mm_sub_ps(_mm_mul_ps(u[2], v[0]), _mm_mul_ps(u[0], v[2]));
                    C[r][2] = _mm_sub_ps(_mm_mul_ps(u[0], v[1]), _mm_mul_ps(u[1], v[0]));
                }
                __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[0][0], C[0][0]), _mm_mul_ps(x[0][1], C[0][1])),
                                      _mm_mul_ps(x[0][2], C[0][2]));
                __m128 nx[3], nc[3]; /* three partial sums: shorter chains */
                for (int i = 0; i < 3; i++) {
                    nx[i] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[i][0], x[i][0]), _mm_mul_ps(x[i][1], x[i][1])),
                                       _mm_mul_ps(x[i][2], x[i][2]));
                    nc[i] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(C[i][0], C[i][0]), _mm_mul_ps(C[i][1], C[i][1])),
                                       _mm_mul_ps(C[i][2], C[i][2]));
                }
                __m128 snx = _mm_add_ps(_mm_add_ps(nx[0], nx[1]), nx[2]);
                __m128 snc = _mm_add_ps(_mm_add_ps(nc[0], nc[1]), nc[2]);
                /* g = (|X^-1|_F / |X|_F)^(1/2) = (nc / (det^2 nx))^(1/4) */
                __m128 g = _mm_sqrt_ps(_mm_sqrt_ps(_mm_div_ps(snc, _mm_mul_ps(_mm_mul_ps(d, d), snx))));
                __m128 gb = _mm_div_ps(half, _mm_mul_ps(g, d)), ga = _mm_mul_ps(half, g);
                __m128 ok = _mm_and_ps(_mm_and_ps(_mm_cmpgt_ps(d, zero), _mm_cmple_ps(d, fmax)),
                                       _mm_and_ps(_mm_cmpgt_ps(g, zero), _mm_cmple_ps(g, fmax)));
                ok = _mm_and_ps(ok, _mm_cmple_ps(absps(gb), fmax));
                fail[h] = _mm_or_ps(fail[h], _mm_andnot_ps(ok, act[h]));
                __m128 upd = _mm_and_ps(act[h], ok), delta = zero;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        __m128 xn = _mm_add_ps(_mm_mul_ps(ga, x[i][j]), _mm_mul_ps(gb, C[i][j]));
                        delta = _mm_max_ps(delta, absps(_mm_sub_ps(xn, x[i][j])));
                        x[i][j] = sel(upd, xn, x[i][j]);
                    }
                act[h] = _mm_andnot_ps(_mm_cmple_ps(delta, tol), upd);
                more |= _mm_movemask_ps(act[h]);
            }
            if (!more) break;
        }
        FOR_H {
            __m128(*x)[3] = X[h];
            fail[h] = _mm_or_ps(fail[h], act[h]);
            /* the result must be orthonormal */
            __m128 qe = zero;
            for (int i = 0; i < 3; i++)
                for (int j = i; j < 3; j++) {
                    __m128 v = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[0][i], x[0][j]), _mm_mul_ps(x[1][i], x[1][j])),
                                          _mm_mul_ps(x[2][i], x[2][j]));
                    if (i == j) v = _mm_sub_ps(v, one);
                    qe = _mm_max_ps(qe, absps(v));
                }
            fail[h] = _mm_or_ps(fail[h], _mm_andnot_ps(_mm_cmple_ps(qe, _mm_set1_ps(SNW_POLAR_ORTHO_TOL)), proper[h]));
        }
    }
    int done = 0;
    FOR_H {
        __m128(*a)[3] = A[h], (*x)[3] = X[h];
        /* Q = X (A where skipped), P = sym(Q^T A) (I where skipped) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Q[h][i][j] = sel(skip[h], a[i][j], x[i][j]);
        __m128 pm[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                pm[i][j] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[0][i], a[0][j]), _mm_mul_ps(x[1][i], a[1][j])),
                                      _mm_mul_ps(x[2][i], a[2][j]));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                P[h][i][j] = sel(skip[h], i == j ? one : zero, _mm_mul_ps(half, _mm_add_ps(pm[i][j], pm[j][i])));
        done |= _mm_movemask_ps(_mm_andnot_ps(fail[h], proper[h])) << (4 * h); /* skip lanes are proper */
    }
    return done;
}
#endif

int snw_polar_batch(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p)
{
#if SNW_SSE
    for (uint32_t j0 = 0; j0 < n; j0 += 4 * NG) {
        const uint32_t cnt = n - j0 < 4 * NG ? n - j0 : 4 * NG;
        __m128 A[NG][3][3], Q[NG][3][3], P[NG][3][3];
        const int ng = cnt > 4 ? 2 : 1;
        for (int h = 0; h < ng; h++)
            for (int r = 0; r < 3; r++) {
                __m128 v[4];
                for (uint32_t k = 0; k < 4; k++) {
                    const uint32_t m = 4u * (uint32_t)h + k;
                    if (m < cnt) v[k] = _mm_load_ps(a[idx ? idx[j0 + m] : j0 + m].r[r]);
                    else v[k] = _mm_set_ps(0.f, r == 2 ? 1.f : 0.f, r == 1 ? 1.f : 0.f, r == 0 ? 1.f : 0.f);
                }
                _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
                A[h][r][0] = v[0]; A[h][r][1] = v[1]; A[h][r][2] = v[2];
            }
        const int done = polar_groups(A, Q, P, ng);
        for (int h = 0; h < ng; h++)
            for (int r = 0; r < 3; r++) {
                __m128 vq[4] = { Q[h][r][0], Q[h][r][1], Q[h][r][2], _mm_setzero_ps() };
                __m128 vp[4] = { P[h][r][0], P[h][r][1], P[h][r][2], _mm_setzero_ps() };
                _MM_TRANSPOSE4_PS(vq[0], vq[1], vq[2], vq[3]);
                _MM_TRANSPOSE4_PS(vp[0], vp[1], vp[2], vp[3]);
                for (uint32_t k = 0; k < 4; k++) {
                    const uint32_t m = 4u * (uint32_t)h + k;
                    if (m >= cnt) break;
                    const uint32_t j = idx ? idx[j0 + m] : j0 + m;
                    _mm_store_ps(q[j].r[r], vq[k]);
                    _mm_store_ps(p[j].r[r], vp[k]);
                }
            }
        for (uint32_t m = 0; m < cnt; m++) {
            if (done >> m & 1) continue;
            const uint32_t j = idx ? idx[j0 + m] : j0 + m;
            float q3[3][4], p3[3][4];
            int skipped;
            if (snw_polar_f32(a[j].r, q3, p3, &skipped)) return 1;
            put_3x3((const float(*)[4])q3, &q[j]);
            put_3x3((const float(*)[4])p3, &p[j]);
        }
    }
    return 0;
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
