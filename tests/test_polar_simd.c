/* The float32 SIMD polar batch of the palette path (engine/core/src/polar3.c,
 * compiled into this test with its symbols renamed) against the float64
 * reference sinew_polar_decompose, and its two instruction sets against each
 * other:
 *  - well-conditioned matrices (products of 1..4 random rotations and
 *    non-uniform scales 0.7 .. 1.4 per axis, then a rotation; rotations;
 *    rotations times a uniform scale): |Q - Qref| <= TOL_Q = 1e-6 and
 *    |P - Pref| <= TOL_P = 1e-6 x max(1, max |Pref|) per entry (seen over 9 seeds:
 *    1.8e-7 and 2.2e-7 relative), Q orthonormal within 4e-6;
 *  - SSE (4 lanes) and AVX (8 lanes; SSE again where the CPU has no AVX)
 *    give bit-identical Q and P for every batch size 1..40, through an index
 *    list in shuffled order, on a mix that also holds mirrored, near-singular
 *    and singular matrices (the scalar fallbacks' lanes);
 *  - each matrix's result is the same whichever batch and position it is
 *    decomposed in (lanes independent);
 *  - a non-finite matrix makes the batch return 1. */
#include "testutil.h"

#define snw_polar_f32 test_polar_f32
#define snw_polar_batch test_polar_batch
#define snw_polar_batch_isa test_polar_batch_isa
#include "../engine/core/src/polar3.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL_Q 1e-6
#define TOL_P 1e-6
#define N_MAT 1024

static void mat_mul3(const double a[3][3], const double b[3][3], double c[3][3])
{
    double t[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) t[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
    memcpy(c, t, sizeof t);
}

static void rot3(tu_rng *r, double m[3][3])
{
    sinew_quat q = tu_random_quat(r);
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double v[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y) },
                       { 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x) },
                       { 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) } };
    memcpy(m, v, sizeof v);
}

/* kind 0: well conditioned product, 1: rotation, 2: rotation x uniform scale,
 * 3: mirrored, 4: near-singular, 5: singular */
static void make(tu_rng *r, int kind, snw_faff *a)
{
    double m[3][3], t[3][3];
    rot3(r, m);
    if (kind == 0) {
        int k = 1 + (int)tu_range(r, 4);
        for (int s = 0; s < k; s++) {
            double d[3][3] = { { 0 } };
            for (int i = 0; i < 3; i++) d[i][i] = tu_uniform(r, 0.7, 1.4);
            mat_mul3(m, d, m);
            rot3(r, t);
            mat_mul3(m, t, m);
        }
    } else if (kind >= 2) {
        double d[3][3] = { { 0 } };
        double u = tu_uniform(r, 0.5, 2.0);
        for (int i = 0; i < 3; i++) d[i][i] = kind == 2 ? u : tu_uniform(r, 0.7, 1.4);
        if (kind == 3) d[0][0] = -d[0][0];
        if (kind == 4) d[2][2] = 1e-4;
        if (kind == 5) d[1][1] = 0;
        mat_mul3(m, d, m);
        rot3(r, t);
        mat_mul3(m, t, m);
    }
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a->r[i][j] = (float)m[i][j];
        a->r[i][3] = 0;
    }
}

static double max_eq, max_ep_rel;

static void check_reference(const snw_faff *a, const snw_faff *q, const snw_faff *p, int m)
{
    sinew_mat3 x, rr, ss;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) x.m[j][i] = a->r[i][j]; /* m[col][row] */
    TU_CHECK_OK(sinew_polar_decompose(&x, &rr, &ss));
    double eq = 0, ep = 0, pmax = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double dq = fabs(q->r[i][j] - rr.m[j][i]), dp = fabs(p->r[i][j] - ss.m[j][i]);
            if (dq > eq) eq = dq;
            if (dp > ep) ep = dp;
            if (fabs(ss.m[j][i]) > pmax) pmax = fabs(ss.m[j][i]);
        }
    if (eq > max_eq) max_eq = eq;
    if (ep / pmax > max_ep_rel) max_ep_rel = ep / pmax;
    TU_CHECK_MSG(eq <= TOL_Q, "matrix %d: |Q - Qref| = %.3g", m, eq);
    TU_CHECK_MSG(ep <= TOL_P * pmax, "matrix %d: |P - Pref| = %.3g (max |Pref| %.3g)", m, ep, pmax);
    TU_CHECK_MSG(snw_ortho_error(q->r) <= 4e-6f, "matrix %d: Q not orthonormal (%.3g)", m,
                 (double)snw_ortho_error(q->r));
}

static int same(const snw_faff *a, const snw_faff *b) { return memcmp(a, b, sizeof *a) == 0; }

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x501A2501ull);
    snw_faff *a = aligned_alloc(16, N_MAT * sizeof *a), *q0 = aligned_alloc(16, N_MAT * sizeof *a),
             *p0 = aligned_alloc(16, N_MAT * sizeof *a), *q1 = aligned_alloc(16, N_MAT * sizeof *a),
             *p1 = aligned_alloc(16, N_MAT * sizeof *a), *qs = aligned_alloc(16, N_MAT * sizeof *a),
             *ps = aligned_alloc(16, N_MAT * sizeof *a);
    int *kind = malloc(N_MAT * sizeof *kind);
    uint32_t *idx = malloc(N_MAT * sizeof *idx);
    if (!a || !q0 || !p0 || !q1 || !p1 || !qs || !ps || !kind || !idx) return 1;
#if SNW_AVX
    printf("AVX %s on this CPU\n", __builtin_cpu_supports("avx") ? "available" : "not available (SSE twice)");
#endif

    /* 1. well-conditioned: against the float64 reference, both instruction sets */
    for (int m = 0; m < N_MAT; m++) make(&rng, m % 8 == 0 ? 1 : m % 8 == 1 ? 2 : 0, &a[m]);
    TU_CHECK(test_polar_batch_isa(a, NULL, N_MAT, q0, p0, 0) == 0);
    TU_CHECK(test_polar_batch_isa(a, NULL, N_MAT, q1, p1, 1) == 0);
    int diff = 0;
    for (int m = 0; m < N_MAT; m++) {
        check_reference(&a[m], &q0[m], &p0[m], m);
        diff += !same(&q0[m], &q1[m]) || !same(&p0[m], &p1[m]);
    }
    TU_CHECK_MSG(diff == 0, "%d matrices differ between SSE and AVX", diff);

    /* 2. a mix with the fallbacks' kinds: bit-identity across instruction sets,
     * batch sizes and positions (each result as when decomposed alone) */
    for (int m = 0; m < N_MAT; m++) {
        kind[m] = (int)tu_range(&rng, 6);
        make(&rng, kind[m], &a[m]);
    }
    for (int m = 0; m < N_MAT; m++) {
        uint32_t one = (uint32_t)m;
        TU_CHECK(test_polar_batch_isa(a, &one, 1, qs, ps, 0) == 0);
    }
    diff = 0;
    for (uint32_t n = 1; n <= 40; n++) {
        for (uint32_t i = 0; i < n; i++) idx[i] = i;
        for (uint32_t i = n; i > 1; i--) { /* shuffle */
            uint32_t j = tu_range(&rng, i), t = idx[i - 1];
            idx[i - 1] = idx[j];
            idx[j] = t;
        }
        uint32_t base = tu_range(&rng, N_MAT - 40);
        for (uint32_t i = 0; i < n; i++) idx[i] += base;
        TU_CHECK(test_polar_batch_isa(a, idx, n, q0, p0, 0) == 0);
        TU_CHECK(test_polar_batch_isa(a, idx, n, q1, p1, 1) == 0);
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t j = idx[i];
            diff += !same(&q0[j], &q1[j]) || !same(&p0[j], &p1[j]);
            diff += !same(&q0[j], &qs[j]) || !same(&p0[j], &ps[j]);
            if (kind[j] <= 2) check_reference(&a[j], &q0[j], &p0[j], (int)j);
        }
    }
    TU_CHECK_MSG(diff == 0, "%d results differ across instruction sets, batch sizes or positions", diff);

    /* 3. a non-finite matrix: the batch says so, with either instruction set */
    for (int isa = 0; isa <= 1; isa++) {
        snw_faff bad[9];
        for (int m = 0; m < 9; m++) make(&rng, 0, &bad[m]);
        bad[5].r[1][2] = NAN;
        TU_CHECK(test_polar_batch_isa(bad, NULL, 9, q0, p0, isa) == 1);
    }

    printf("max |Q - Qref| %.3g (tolerance %.3g), max |P - Pref| / max(1, |Pref|) %.3g (tolerance %.3g)\n", max_eq,
           TOL_Q, max_ep_rel, TOL_P);
    free(a); free(q0); free(p0); free(q1); free(p1); free(qs); free(ps); free(kind); free(idx);
    return tu_finish("test_polar_simd");
}
