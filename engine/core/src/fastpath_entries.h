/* Included by fastpath.c twice: the scale methods' entries of ENT_VL joints
 * k[0 .. ENT_VL - 1] (SSE: 4, AVX: 8, two groups of four in the halves), with
 * V the lane vector and the V* operations; see entries4_sse's comment there.
 * The same IEEE operations per lane in both copies (no FMA): the same bits. */
static inline void ENT_NAME(const snw_fast_joint *fj, const uint32_t *k, uint32_t lanes, const fast_scratch *sc,
                                const float *qj, uint32_t stride, const int derived)
{
    const float *X = (const float *)sc->H, *Qm = (const float *)sc->Hs, *Pm = (const float *)sc->Us;
    const V one = VSET1(1.f), half = VSET1(0.5f), two = VSET1(2.f);
    const V sgn = VSET1(-0.f);
    V q[4], x0[4], x1[4], x2[4], a[4], c[4], Q[3][4], P[3][4];
    ENT_LOAD_T(q, qj, 12u, k, 4u);
    ENT_LOAD_T(x0, X, 12u, k, 0u);
    ENT_LOAD_T(x1, X, 12u, k, 4u);
    ENT_LOAD_T(x2, X, 12u, k, 8u);
    if (derived) {
        /* normalize: one Newton step near 1, else 1 / sqrt; sign w >= 0 */
        const V c15 = VSET1(1.5f), eps = VSET1(1e-4f), zero = VSET1(0.f);
        const V absm = VABSMASK;
        V m2 = VADD(VADD(VADD(VMUL(q[0], q[0]), VMUL(q[1], q[1])), VMUL(q[2], q[2])),
                               VMUL(q[3], q[3]));
        V near1 = VCMPLT(VAND(VSUB(m2, one), absm), eps);
        V s = VSEL(near1, VSUB(c15, VMUL(half, m2)), VDIV(one, VSQRT(m2)));
        s = VXOR(s, VAND(VCMPLT(q[3], zero), sgn));
        for (int i = 0; i < 4; i++) q[i] = VMUL(q[i], s);
        /* Q from the quaternion (rows_from_quat) */
        const V qx = q[0], qy = q[1], qz = q[2], qw = q[3];
        const V xx = VMUL(VMUL(two, qx), qx), yy = VMUL(VMUL(two, qy), qy);
        const V zz = VMUL(VMUL(two, qz), qz), xy = VMUL(VMUL(two, qx), qy);
        const V xz = VMUL(VMUL(two, qx), qz), yz = VMUL(VMUL(two, qy), qz);
        const V wx = VMUL(VMUL(two, qw), qx), wy = VMUL(VMUL(two, qw), qy);
        const V wz = VMUL(VMUL(two, qw), qz);
        Q[0][0] = VSUB(one, VADD(yy, zz)); Q[0][1] = VSUB(xy, wz); Q[0][2] = VADD(xz, wy);
        Q[1][0] = VADD(xy, wz); Q[1][1] = VSUB(one, VADD(xx, zz)); Q[1][2] = VSUB(yz, wx);
        Q[2][0] = VSUB(xz, wy); Q[2][1] = VADD(yz, wx); Q[2][2] = VSUB(one, VADD(xx, yy));
        /* P = sym(Q^T X) (sym_qt_x) */
        const V *xr[3] = { x0, x1, x2 };
        V pm[3][3];
        for (int i = 0; i < 3; i++)
            for (int jj = 0; jj < 3; jj++)
                pm[i][jj] = VADD(VADD(VMUL(Q[0][i], xr[0][jj]), VMUL(Q[1][i], xr[1][jj])),
                                       VMUL(Q[2][i], xr[2][jj]));
        for (int i = 0; i < 3; i++)
            for (int jj = 0; jj < 3; jj++) P[i][jj] = VMUL(half, VADD(pm[i][jj], pm[jj][i]));
    } else {
        for (int r = 0; r < 3; r++) {
            ENT_LOAD_T(Q[r], Qm, 12u, k, 4u * (uint32_t)r);
            ENT_LOAD_T(P[r], Pm, 12u, k, 4u * (uint32_t)r);
        }
    }
    ENT_LOAD_T(a, sc->a, 4u, k, 0u);
    ENT_LOAD_T(c, fj[0].c, (uint32_t)(sizeof(snw_fast_joint) / sizeof(float)), k, 0u);
    V st[3], rt[3];
    const V xt[3] = { x0[3], x1[3], x2[3] };
    for (int r = 0; r < 3; r++)
        st[r] = VSUB(a[r], VADD(VADD(VMUL(P[r][0], c[0]), VMUL(P[r][1], c[1])),
                                            VMUL(P[r][2], c[2])));
    for (int r = 0; r < 3; r++)
        rt[r] = VSUB(xt[r], VADD(VADD(VMUL(Q[r][0], st[0]), VMUL(Q[r][1], st[1])),
                                             VMUL(Q[r][2], st[2])));
    /* dual part 0.5 (t, 0) q (dq_dual) */
    V du[4];
    du[0] = VMUL(half, VSUB(VADD(VMUL(rt[0], q[3]), VMUL(rt[1], q[2])), VMUL(rt[2], q[1])));
    du[1] = VMUL(half, VADD(VADD(VMUL(VXOR(rt[0], sgn), q[2]), VMUL(rt[1], q[3])),
                                        VMUL(rt[2], q[0])));
    du[2] = VMUL(half, VADD(VSUB(VMUL(rt[0], q[1]), VMUL(rt[1], q[0])), VMUL(rt[2], q[3])));
    du[3] = VMUL(VSET1(-0.5f),
                       VADD(VADD(VMUL(rt[0], q[0]), VMUL(rt[1], q[1])), VMUL(rt[2], q[2])));
    /* back to joints: S rows, q, du */
    V o[5][4];
    for (int r = 0; r < 3; r++) {
        o[r][0] = P[r][0]; o[r][1] = P[r][1]; o[r][2] = P[r][2]; o[r][3] = st[r];
        ENT_TRANSPOSE4(o[r][0], o[r][1], o[r][2], o[r][3]);
    }
    for (int i = 0; i < 4; i++) { o[3][i] = q[i]; o[4][i] = du[i]; }
    ENT_TRANSPOSE4(o[3][0], o[3][1], o[3][2], o[3][3]);
    ENT_TRANSPOSE4(o[4][0], o[4][1], o[4][2], o[4][3]);
    for (uint32_t l = 0; l < lanes; l++) {
        float *d = sc->pal + (size_t)k[l] * stride * 4u;
        for (int e = 0; e < 5; e++) ENT_STORE_LANE(d + 4 * e, o[e], l);
    }
}

/* the template's parameters, for the next inclusion */
#undef ENT_NAME
#undef V
#undef VSET1
#undef VADD
#undef VSUB
#undef VMUL
#undef VDIV
#undef VSQRT
#undef VAND
#undef VXOR
#undef VCMPLT
#undef VSEL
#undef VABSMASK
#undef ENT_LOAD_T
#undef ENT_TRANSPOSE4
#undef ENT_STORE_LANE
