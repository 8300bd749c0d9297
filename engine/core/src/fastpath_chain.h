/* Included by fastpath.c twice (SSE and AVX copies): the chain of
 * stage_fk_scaled_global, G_j = G_p Local_j and Hs_j = Hs_p L_j Us_j in joint
 * order, joints j0 to n - 1 (listed joints: Local_j rebuilt, Us_j from the polar batch), with
 * CHAIN_NAME the function's name and CHAIN_MUL the 3x4 product. */
static void CHAIN_NAME(const snw_fast_joint *fj, uint32_t j0, uint32_t n, const snw_ftrs *local, const snw_faff *root,
                       const fast_scratch *sc, const unsigned char *listed)
{
    snw_faff *G = sc->G, *H = sc->H, *Hs = sc->Hs, *Us = sc->Us;
    for (uint32_t j = j0; j < n; j++) {
        const snw_fast_joint *f = &fj[j];
        const int32_t p = f->parent;
        snw_faff lm, hslc, gs;
        if (listed[j]) aff_from_trs(&local[j], &lm);
        else lm = H[j];
        if (p >= 0) CHAIN_MUL(&G[p], &lm, &G[j]); /* H_p = G_p */
        else if (root) CHAIN_MUL(root, &lm, &G[j]);
        else G[j] = lm;
        if (p < 0) hslc = f->bind_local;
        else CHAIN_MUL(&Hs[p], &f->bind_local, &hslc);
        const float *sv = local[j].s;
        if (listed[j]) {
            CHAIN_MUL(&hslc, &Us[j], &gs);
#if SNW_SSE
        } else { /* hslc diag(s_j), branch-free: a unit scale multiplies by exactly 1 */
            const __m128 s4 = _mm_or_ps(_mm_and_ps(_mm_loadu_ps(sv), _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1))),
                                        _mm_set_ps(1.f, 0.f, 0.f, 0.f));
            for (int r = 0; r < 3; r++) _mm_storeu_ps(gs.r[r], _mm_mul_ps(_mm_loadu_ps(hslc.r[r]), s4));
        }
#else
        } else if (sv[0] == 1.f && sv[1] == 1.f && sv[2] == 1.f) {
            gs = hslc;
        } else { /* hslc diag(s_j) */
            gs = hslc;
            for (int r = 0; r < 3; r++) {
                gs.r[r][0] *= sv[0]; gs.r[r][1] *= sv[1]; gs.r[r][2] *= sv[2];
            }
        }
#endif
        Hs[j] = gs;
        put4v(sc->a + 4u * j, gs.r[0][3], gs.r[1][3], gs.r[2][3], 0);
    }
}
