/* The SIMD polar batch of polar3.c, written once for a vector type V of VL
 * float lanes (4: SSE, 8: AVX) and included once per instruction set; see
 * polar3.c for the method. Every lane runs the same sequence of IEEE
 * operations (additions, multiplications, divisions, square roots, no fused
 * multiply-add) whatever VL, so both instantiations give bit-identical
 * results. The includer defines V, VL, VZERO, VSET1, VADD, VSUB, VMUL, VDIV,
 * VSQRT, VMAX, VAND, VOR, VANDNOT, VGT, VLE, VEQ, VMASK, VSEL, VABS, VFROM4
 * (VL/4 __m128 -> V), VTO4 (V -> VL/4 __m128), PG_NAME and BATCH_NAME. */

/* Two groups of VL matrices at once (lane k of group h = matrix VL h + k):
 * the Newton step is a chain of dependent divisions and square roots, and two
 * independent chains keep the core busy. A[h][r][c]: element (r, c). Returns
 * the matrices (bits VL h + k) whose results are final (skipped or converged);
 * the others need snw_polar_f32. */
/* ng: 1 or 2 groups (1 for a batch's last VL or fewer) */
static int PG_NAME(V A[NG][3][3], V Q[NG][3][3], V P[NG][3][3], int ng)
{
    const V one = VSET1(1.f), zero = VZERO(), half = VSET1(0.5f);
    V proper[NG], skip[NG], act[NG], fail[NG], X[NG][3][3];
    for (int h = 0; h < NG; h++) proper[h] = skip[h] = act[h] = fail[h] = zero; /* unused groups stay idle */
    int need = 0;
    FOR_H {
        V(*a)[3] = A[h];
        /* det as snw_det3 (same order), finiteness, orthonormality error as snw_ortho_error */
        V det = VADD(
            VSUB(VMUL(a[0][0], VSUB(VMUL(a[1][1], a[2][2]), VMUL(a[1][2], a[2][1]))),
                       VMUL(a[0][1], VSUB(VMUL(a[1][0], a[2][2]), VMUL(a[1][2], a[2][0])))),
            VMUL(a[0][2], VSUB(VMUL(a[1][0], a[2][1]), VMUL(a[1][1], a[2][0]))));
        V fin = zero, oe = zero;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) fin = VADD(fin, VMUL(a[i][j], zero));
        for (int i = 0; i < 3; i++)
            for (int j = i; j < 3; j++) {
                V d = VADD(VADD(VMUL(a[0][i], a[0][j]), VMUL(a[1][i], a[1][j])),
                                      VMUL(a[2][i], a[2][j]));
                if (i == j) d = VSUB(d, one);
                oe = VMAX(oe, VABS(d));
            }
        proper[h] = VAND(VGT(det, zero), VEQ(fin, zero));
        skip[h] = VAND(proper[h], VLE(oe, VSET1(2e-6f)));
        act[h] = VANDNOT(skip[h], proper[h]);
        fail[h] = zero;
        need |= VMASK(act[h]);
        /* RMS singular value 1; the skipped and fallback lanes run on the identity */
        V tr = zero;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) tr = VADD(tr, VMUL(a[i][j], a[i][j]));
        V s = VSQRT(VDIV(VSET1(3.f), VSEL(act[h], tr, VSET1(3.f))));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) X[h][i][j] = VSEL(act[h], VMUL(a[i][j], s), i == j ? one : zero);
    }
    if (need) {
        const V fmax = VSET1(FLT_MAX), tol = VSET1(SNW_POLAR_STEP_TOL);
        for (int it = 0; it < SNW_POLAR_MAX_STEPS; it++) {
            int more = 0;
            FOR_H {
                V(*x)[3] = X[h];
                V C[3][3];
                /* rows of the cofactor matrix: c0 = x1 x x2, c1 = x2 x x0, c2 = x0 x x1 */
                for (int r = 0; r < 3; r++) {
                    const V *u = x[(r + 1) % 3], *v = x[(r + 2) % 3];
                    C[r][0] = VSUB(VMUL(u[1], v[2]), VMUL(u[2], v[1]));
                    C[r][1] = VSUB(VMUL(u[2], v[0]), VMUL(u[0], v[2]));
                    C[r][2] = VSUB(VMUL(u[0], v[1]), VMUL(u[1], v[0]));
                }
                V d = VADD(VADD(VMUL(x[0][0], C[0][0]), VMUL(x[0][1], C[0][1])),
                                      VMUL(x[0][2], C[0][2]));
                V nx[3], nc[3]; /* three partial sums: shorter chains */
                for (int i = 0; i < 3; i++) {
                    nx[i] = VADD(VADD(VMUL(x[i][0], x[i][0]), VMUL(x[i][1], x[i][1])),
                                       VMUL(x[i][2], x[i][2]));
                    nc[i] = VADD(VADD(VMUL(C[i][0], C[i][0]), VMUL(C[i][1], C[i][1])),
                                       VMUL(C[i][2], C[i][2]));
                }
                V snx = VADD(VADD(nx[0], nx[1]), nx[2]);
                V snc = VADD(VADD(nc[0], nc[1]), nc[2]);
                /* g = (|X^-1|_F / |X|_F)^(1/2) = (nc / (det^2 nx))^(1/4) */
                V g = VSQRT(VSQRT(VDIV(snc, VMUL(VMUL(d, d), snx))));
                V gb = VDIV(half, VMUL(g, d)), ga = VMUL(half, g);
                V ok = VAND(VAND(VGT(d, zero), VLE(d, fmax)),
                                       VAND(VGT(g, zero), VLE(g, fmax)));
                ok = VAND(ok, VLE(VABS(gb), fmax));
                fail[h] = VOR(fail[h], VANDNOT(ok, act[h]));
                V upd = VAND(act[h], ok), delta = zero;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        V xn = VADD(VMUL(ga, x[i][j]), VMUL(gb, C[i][j]));
                        delta = VMAX(delta, VABS(VSUB(xn, x[i][j])));
                        x[i][j] = VSEL(upd, xn, x[i][j]);
                    }
                act[h] = VANDNOT(VLE(delta, tol), upd);
                more |= VMASK(act[h]);
            }
            if (!more) break;
        }
        FOR_H {
            V(*x)[3] = X[h];
            fail[h] = VOR(fail[h], act[h]);
            /* SNW_POLAR_NS_STEPS Newton-Schulz steps X <- X (3I - X^T X) / 2 on
             * every lane (no division or square root; the identity of the
             * skipped and idle lanes stays exactly the identity) */
            for (int it = 0; it < SNW_POLAR_NS_STEPS; it++) {
                V y[3][3], nx[3][3];
                for (int i = 0; i < 3; i++)
                    for (int j = i; j < 3; j++)
                        y[i][j] = y[j][i] = VADD(
                            VADD(VMUL(x[0][i], x[0][j]), VMUL(x[1][i], x[1][j])),
                            VMUL(x[2][i], x[2][j]));
                for (int r = 0; r < 3; r++)
                    for (int j = 0; j < 3; j++) {
                        V xy = VADD(VADD(VMUL(x[r][0], y[0][j]), VMUL(x[r][1], y[1][j])),
                                               VMUL(x[r][2], y[2][j]));
                        nx[r][j] = VSUB(VMUL(VSET1(1.5f), x[r][j]), VMUL(half, xy));
                    }
                for (int r = 0; r < 3; r++)
                    for (int j = 0; j < 3; j++) x[r][j] = nx[r][j];
            }
            /* the result must be orthonormal */
            V qe = zero;
            for (int i = 0; i < 3; i++)
                for (int j = i; j < 3; j++) {
                    V v = VADD(VADD(VMUL(x[0][i], x[0][j]), VMUL(x[1][i], x[1][j])),
                                          VMUL(x[2][i], x[2][j]));
                    if (i == j) v = VSUB(v, one);
                    qe = VMAX(qe, VABS(v));
                }
            fail[h] = VOR(fail[h], VANDNOT(VLE(qe, VSET1(SNW_POLAR_ORTHO_TOL)), proper[h]));
        }
    }
    int done = 0;
    FOR_H {
        V(*a)[3] = A[h], (*x)[3] = X[h];
        /* Q = X (A where skipped), P = sym(Q^T A) (I where skipped) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Q[h][i][j] = VSEL(skip[h], a[i][j], x[i][j]);
        V pm[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                pm[i][j] = VADD(VADD(VMUL(x[0][i], a[0][j]), VMUL(x[1][i], a[1][j])),
                                      VMUL(x[2][i], a[2][j]));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                P[h][i][j] = VSEL(skip[h], i == j ? one : zero, VMUL(half, VADD(pm[i][j], pm[j][i])));
        done |= VMASK(VANDNOT(fail[h], proper[h])) << (VL * h); /* skip lanes are proper */
    }
    return done;
}

/* snw_polar_batch with this instruction set (the same contract). */
static int BATCH_NAME(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p)
{
    for (uint32_t j0 = 0; j0 < n; j0 += VL * NG) {
        const uint32_t cnt = n - j0 < VL * NG ? n - j0 : VL * NG;
        V A[NG][3][3], Q[NG][3][3], P[NG][3][3];
        const int ng = cnt > VL ? 2 : 1;
        for (int h = 0; h < ng; h++)
            for (int r = 0; r < 3; r++) {
                __m128 c[3][VL / 4];
                for (int b = 0; b < VL / 4; b++) {
                    __m128 v[4];
                    for (uint32_t k = 0; k < 4; k++) {
                        const uint32_t m = (uint32_t)VL * (uint32_t)h + 4u * (uint32_t)b + k;
                        if (m < cnt) v[k] = _mm_load_ps(a[idx ? idx[j0 + m] : j0 + m].r[r]);
                        else v[k] = _mm_set_ps(0.f, r == 2 ? 1.f : 0.f, r == 1 ? 1.f : 0.f, r == 0 ? 1.f : 0.f);
                    }
                    _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
                    c[0][b] = v[0]; c[1][b] = v[1]; c[2][b] = v[2];
                }
                A[h][r][0] = VFROM4(c[0]); A[h][r][1] = VFROM4(c[1]); A[h][r][2] = VFROM4(c[2]);
            }
        const int done = PG_NAME(A, Q, P, ng);
        for (int h = 0; h < ng; h++)
            for (int r = 0; r < 3; r++) {
                __m128 cq[3][VL / 4], cp[3][VL / 4];
                for (int i = 0; i < 3; i++) {
                    VTO4(Q[h][r][i], cq[i]);
                    VTO4(P[h][r][i], cp[i]);
                }
                for (int b = 0; b < VL / 4; b++) {
                    __m128 vq[4] = { cq[0][b], cq[1][b], cq[2][b], _mm_setzero_ps() };
                    __m128 vp[4] = { cp[0][b], cp[1][b], cp[2][b], _mm_setzero_ps() };
                    _MM_TRANSPOSE4_PS(vq[0], vq[1], vq[2], vq[3]);
                    _MM_TRANSPOSE4_PS(vp[0], vp[1], vp[2], vp[3]);
                    for (uint32_t k = 0; k < 4; k++) {
                        const uint32_t m = (uint32_t)VL * (uint32_t)h + 4u * (uint32_t)b + k;
                        if (m >= cnt) break;
                        const uint32_t j = idx ? idx[j0 + m] : j0 + m;
                        _mm_store_ps(q[j].r[r], vq[k]);
                        _mm_store_ps(p[j].r[r], vp[k]);
                    }
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
}
