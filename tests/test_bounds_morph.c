/* Bounds of morphed meshes (bounds.h, "Morph targets"): random skeletons of 7,
 * 33 and 64 joints, random 4-influence meshes (vertices within 0.6 of their
 * joint), 6 random sparse targets with position deltas up to 2 per axis.
 * sinew_joint_bounds_morph_deltas matches a brute-force maximum (never below
 * it, within 1e-6 relative); sinew_joint_bounds_morph_growth matches the float64
 * sum (never below it). Per case, weights in [-3, 4] (some 0), every method
 * with no bulge / bulge / bulge + inner, random pose (non-uniform scale except
 * DQS / CoR) and root: every vertex of the float64 reference (sinew_morph_reference,
 * then sinew_reference_skin_cor on those positions rounded to float, the base
 * mesh's centers, and bulge distances recomputed on the morphed vertices in
 * half the cases, the base mesh's in the others) lies inside the box of
 * sinew_character_bounds_morphed (no tolerance). Not vacuous: the unmorphed box
 * (growth NULL) misses vertices in more than 1 case in 10 (43 of 243 at the default seed; the random poses make boxes loose). growth all 0 gives
 * sinew_character_bounds' box bit for bit. Errors: NULL, both/no vertex arrays,
 * bad target (INVALID_ARGUMENT), NaN delta (NON_FINITE), NaN weight, a growth
 * beyond float32 (NON_FINITE), negative / NaN growth. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/bounds.h>

#include <string.h>

#define NV 500
#define NT 6
#define MAXJ 64

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x3047B5ull);
    static sinew_vertex v[NV], mv[NV];
    static float bulge[NV], mbulge[NV], centers[3 * NV];
    static double mp[3 * NV], pos[3 * NV];
    static uint32_t idx[NT][NV];
    static float dp[NT][3 * NV];
    sinew_morph_target tg[NT];
    static sinew_joint_bounds jb[MAXJ];
    static uint16_t nb[MAXJ * MAXJ];
    static float md[NT * MAXJ], growth[MAXJ], zero[MAXJ];
    static sinew_palette_joint pal[MAXJ];
    static float packed[4 * TU_PAL_MAX_STRIDE * MAXJ];
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(MAXJ));
    const uint32_t jcs[3] = { 7, 33, 64 };
    uint32_t cases = 0, outside = 0, plain_misses = 0;
    double worst_ratio = 0;

    for (int s = 0; s < 3; s++) {
        uint32_t jc = jcs[s];
        sinew_transform rest[MAXJ];
        sinew_skeleton *skel = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jc, rest, &skel));
        if (!skel) continue;
        TU_CHECK_OK(tu_make_random_mesh(&rng, skel, NV, 0.6, v, bulge));
        for (uint32_t i = 0; i < NV; i++)
            for (int c = 0; c < 3; c++) centers[3 * i + c] = v[i].position[c] + (float)tu_uniform(&rng, -0.5, 0.5);
        for (int t = 0; t < NT; t++) {
            uint8_t used[NV] = { 0 };
            uint32_t n = 1 + tu_range(&rng, NV / 3);
            for (uint32_t e = 0; e < n; e++) {
                uint32_t x;
                do x = tu_range(&rng, NV); while (used[x]);
                used[x] = 1;
                idx[t][e] = x;
                for (int c = 0; c < 3; c++) dp[t][3 * e + c] = (float)tu_uniform(&rng, -2.0, 2.0);
            }
            tg[t] = (sinew_morph_target){ NULL, n, idx[t], dp[t], NULL, NULL };
        }
        uint32_t nused = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(v, NULL, NV, jc, jb, nb, MAXJ * MAXJ, &nused));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v, NULL, NV, jc, centers, jb));
        TU_CHECK_OK(sinew_joint_bounds_morph_deltas(v, NULL, NV, jc, tg, NT, md));
        /* brute force: the largest delta length per target and joint */
        for (int t = 0; t < NT; t++)
            for (uint32_t a = 0; a < jc; a++) {
                double mx = 0;
                for (uint32_t e = 0; e < tg[t].count; e++) {
                    const sinew_vertex *x = &v[idx[t][e]];
                    int inf = 0;
                    for (int k = 0; k < 4; k++) inf |= x->weights[k] && x->joints[k] == a;
                    if (!inf) continue;
                    const float *d = dp[t] + 3 * e;
                    double l = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
                    mx = l > mx ? l : mx;
                }
                double got = md[t * jc + a];
                TU_CHECK_MSG(got >= mx && got <= mx * (1 + 1e-6), "target %d joint %u: %.9g, brute force %.9g", t, a, got, mx);
            }
        for (int trial = 0; trial < 3; trial++)
            for (int m = 0; m < SINEW_METHOD_COUNT; m++)
                for (int b = 0; b < 3; b++) {
                    float w[NT];
                    for (int t = 0; t < NT; t++) w[t] = tu_range(&rng, 4) == 0 ? 0.0f : (float)tu_uniform(&rng, -3.0, 4.0);
                    TU_CHECK_OK(sinew_joint_bounds_morph_growth(md, jc, NT, w, growth));
                    for (uint32_t a = 0; a < jc; a++) {
                        double g = 0;
                        for (int t = 0; t < NT; t++) g += fabs((double)w[t]) * md[t * jc + a];
                        TU_CHECK_MSG(growth[a] >= g && growth[a] <= g * (1 + 1e-5) + 1e-30, "growth %u: %.9g, sum %.9g", a, growth[a], g);
                    }
                    sinew_method method = (sinew_method)m;
                    uint32_t flags = b ? SINEW_SKIN_BULGE_CORRECTION | (b == 2 ? SINEW_SKIN_BULGE_INNER : 0u) : 0u;
                    sinew_transform local[MAXJ];
                    memcpy(local, rest, sizeof(sinew_transform) * jc);
                    tu_random_pose(&rng, jc, local, 1.2 * M_PI,
                                   method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR ? 0.0 : 0.3);
                    sinew_transform rt = { tu_random_vec3(&rng, -50, 50), tu_random_quat(&rng), { 1, 1, 1 } };
                    sinew_mat4 root = sinew_mat4_from_transform(&rt);
                    TU_CHECK_OK(sinew_palette_build(skel, method, local, &root, scratch, pal));
                    TU_CHECK_OK(sinew_palette_pack(method, flags, pal, jc, packed));
                    float lo[3], hi[3], plo[3], phi[3];
                    TU_CHECK_OK(sinew_character_bounds_morphed(jb, nb, jc, method, flags, packed, growth, lo, hi));
                    TU_CHECK_OK(sinew_character_bounds(jb, nb, jc, method, flags, packed, plo, phi));
                    sinew_morph_error err;
                    TU_CHECK_OK(sinew_morph_reference(NV, v, tg, NT, w, mp, NULL, &err));
                    memcpy(mv, v, sizeof mv);
                    for (uint32_t i = 0; i < NV; i++)
                        for (int c = 0; c < 3; c++) mv[i].position[c] = (float)mp[3 * i + c];
                    const float *bu = bulge;
                    if ((trial + m) % 2) { /* the morpher with the skeleton: d0 of the morphed vertices */
                        TU_CHECK_OK(sinew_bulge_rest_distances(skel, NV, mv, mbulge));
                        bu = mbulge;
                    }
                    TU_CHECK_OK(sinew_reference_skin_cor(NV, mv, NULL, centers, bu, pal, jc, method, flags, pos, NULL));
                    uint32_t out = 0, pout = 0;
                    double vlo[3] = { INFINITY, INFINITY, INFINITY }, vhi[3] = { -INFINITY, -INFINITY, -INFINITY };
                    for (uint32_t i = 0; i < NV; i++)
                        for (int c = 0; c < 3; c++) {
                            double x = pos[3 * i + c];
                            if (!(x >= lo[c] && x <= hi[c])) out++;
                            if (!(x >= plo[c] && x <= phi[c])) pout++;
                            vlo[c] = x < vlo[c] ? x : vlo[c];
                            vhi[c] = x > vhi[c] ? x : vhi[c];
                        }
                    cases++;
                    outside += out != 0;
                    plain_misses += pout != 0;
                    if (out)
                        TU_CHECK_MSG(0, "%u joints, %s%s: %u coordinates outside the morphed bounds", jc,
                                     sinew_method_name(method), b == 2 ? "+inner" : b ? "+bulge" : "", out);
                    double dv = 0, db = 0;
                    for (int c = 0; c < 3; c++) {
                        dv += (vhi[c] - vlo[c]) * (vhi[c] - vlo[c]);
                        db += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
                    }
                    double ratio = sqrt(db / (dv > 1e-18 ? dv : 1e-18));
                    worst_ratio = ratio > worst_ratio ? ratio : worst_ratio;
                    /* zero growth: the unmorphed box, bit for bit */
                    float zlo[3], zhi[3];
                    TU_CHECK_OK(sinew_character_bounds_morphed(jb, nb, jc, method, flags, packed, zero, zlo, zhi));
                    TU_CHECK(!memcmp(zlo, plo, sizeof zlo) && !memcmp(zhi, phi, sizeof zhi));
                }
        sinew_skeleton_destroy(skel);
    }
    fprintf(stderr, "%u morphed cases: %u with a vertex outside; the unmorphed box misses vertices in %u; "
                    "largest box diagonal / vertex box diagonal %.2f\n", cases, outside, plain_misses, worst_ratio);
    TU_CHECK(outside == 0 && cases == 3 * 3 * SINEW_METHOD_COUNT * 3);
    TU_CHECK(plain_misses > cases / 10);

    /* errors (v, tg, jb still those of the 64-joint skeleton) */
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(NULL, NULL, NV, 64, tg, NT, md), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, (const sinew_vertex8 *)v, NV, 64, tg, NT, md), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, NULL, NV, 64, tg, NT, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, NULL, 0, 64, tg, NT, md), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, NULL, NV, 63, tg, NT, md), SINEW_ERROR_JOINT_INDEX);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, NULL, 10, 64, tg, NT, md), SINEW_ERROR_INVALID_ARGUMENT); /* index >= 10 */
    float keep = dp[2][4];
    dp[2][4] = NAN;
    TU_CHECK_RESULT(sinew_joint_bounds_morph_deltas(v, NULL, NV, 64, tg, NT, md), SINEW_ERROR_NON_FINITE);
    dp[2][4] = keep;
    TU_CHECK_OK(sinew_joint_bounds_morph_deltas(v, NULL, NV, 64, tg, NT, md));
    float w[NT] = { 1, -2, 0.5f, 0, 3, -1 };
    TU_CHECK_RESULT(sinew_joint_bounds_morph_growth(NULL, 64, NT, w, growth), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_morph_growth(md, 64, NT, NULL, growth), SINEW_ERROR_INVALID_ARGUMENT);
    w[3] = NAN;
    TU_CHECK_RESULT(sinew_joint_bounds_morph_growth(md, 64, NT, w, growth), SINEW_ERROR_NON_FINITE);
    w[3] = 0;
    float huge[NT * MAXJ];
    for (int i = 0; i < NT * MAXJ; i++) huge[i] = 1e30f;
    w[0] = 1e9f;
    TU_CHECK_RESULT(sinew_joint_bounds_morph_growth(huge, 64, NT, w, growth), SINEW_ERROR_NON_FINITE);
    w[0] = 1;
    TU_CHECK_OK(sinew_joint_bounds_morph_growth(md, 64, NT, w, growth));
    float lo[3], hi[3];
    growth[5] = -1.0f;
    TU_CHECK_RESULT(sinew_character_bounds_morphed(jb, nb, 64, SINEW_METHOD_LBS, 0, packed, growth, lo, hi),
                    SINEW_ERROR_INVALID_ARGUMENT);
    growth[5] = NAN;
    TU_CHECK_RESULT(sinew_character_bounds_morphed(jb, nb, 64, SINEW_METHOD_LBS, 0, packed, growth, lo, hi),
                    SINEW_ERROR_NON_FINITE);
    free(scratch);
    return tu_finish("test_bounds_morph");
}
