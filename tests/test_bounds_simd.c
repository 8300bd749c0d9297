/* The eight-lane bounds of DQS, CoR and their scale variants, without bulge and with
 * bulge correction but not its inner push (bounds.c,
 * rigid_boxes_avx2; the scalar loop where the CPU lacks AVX2 + FMA, which must
 * pass the same checks), and (since issue 21 item 2, round 5) of LBS (lbs_boxes_avx512
 * where the CPU has AVX-512F, sixteen joints per group, the rest by lbs_boxes_avx2's
 * eight: groups read at fixed offsets, the partial last group from a stack copy,
 * finiteness from the rule's own results; with bulge the scalar loop) on fresh random input,
 * LBS with the scale methods' non-uniform scale and mirrored axes:
 *  - random forests of 1, 5, 8, 9, 23, 64, 200, 256 joints (full groups of eight,
 *    tails, the largest skeleton the lanes take) and 257 (the scalar fallback);
 *    random 4-influence meshes, random centers of rotation up to 0.6 from their
 *    vertices; random poses (rotations up to 1.2 pi; for the scale methods
 *    non-uniform scale 0.5..2 on 40 % of the joints and, where the palette builder
 *    accepts it, a mirrored axis on some joints); a random root up to 1,000 away
 *    (so the float32 rounding terms matter); random morph growth on half the cases.
 *    each with flags 0 and SINEW_SKIN_BULGE_CORRECTION (with bulge, also every joint's
 *    posed segment ends, as packed, lie in the box: the rule's own term, which the
 *    reference vertices of these meshes do not always need).
 *    EVERY vertex skinned by the float64 reference (sinew_reference_skin_cor, from
 *    the float64 palette the packed one was made from) lies inside the box: no
 *    tolerance, the box carries its own padding (1e-5 of its size and position).
 *  - not vacuous: rigidly bound vertices (one influence each, N(a) = {a}) give a
 *    box within 2x the vertices' own box diagonal that, shrunk by 40 % about its
 *    centre, loses vertices, for every method;
 *  - LBS, the rule itself: the box against the exact union of the joints' balls
 *    (each ball matters; see below);
 *  - a NaN or an infinity in any joint of a 19-joint palette (first group, second
 *    group, tail; every third float of the entry, bulge slots and pad slot included)
 *    gives NON_FINITE for every method, with and without bulge; finite values whose
 *    sum overflows float32 do not. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/bounds.h>

#include <string.h>

static const uint32_t joint_counts[] = { 1, 5, 8, 9, 23, 64, 200, 256, 257 };
#define NJC (sizeof joint_counts / sizeof joint_counts[0])
#define MAXJ 257u

static int rigid_method(sinew_method m) { return m == SINEW_METHOD_DQS || m == SINEW_METHOD_COR; }

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x51dd0b0cull);
    const uint32_t n = 600;
    sinew_vertex *v4 = malloc(sizeof(sinew_vertex) * n);
    double *pos = malloc(sizeof(double) * 3 * n), *nrm = malloc(sizeof(double) * 3 * n);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(MAXJ));
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * MAXJ);
    float *packed = malloc(sizeof(float) * 4 * TU_PAL_MAX_STRIDE * MAXJ);
    sinew_joint_bounds *jb = malloc(sizeof(sinew_joint_bounds) * MAXJ);
    uint32_t ncap = MAXJ * MAXJ;
    uint16_t *nb = malloc(sizeof(uint16_t) * ncap);
    float *centers = malloc(sizeof(float) * 3 * n), growth[MAXJ], *bulge = malloc(sizeof(float) * n);
    sinew_transform *rest = malloc(sizeof(sinew_transform) * MAXJ), *local = malloc(sizeof(sinew_transform) * MAXJ);
    uint32_t cases = 0, outside = 0, mirrored = 0, grown = 0, segment_ends_out = 0;

    for (uint32_t s = 0; s < NJC; s++) {
        uint32_t jc = joint_counts[s];
        sinew_skeleton *skel = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jc, rest, &skel));
        if (!skel) continue;
        TU_CHECK_OK(tu_make_random_mesh(&rng, skel, n, 0.6, v4, bulge));
        uint32_t used = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, n, jc, jb, nb, ncap, &used));
        for (uint32_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) centers[3 * i + c] = v4[i].position[c] + (float)tu_uniform(&rng, -0.6, 0.6);
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v4, NULL, n, jc, centers, jb));
        for (int trial = 0; trial < 6; trial++)
            for (int mb = 0; mb < 2 * SINEW_METHOD_COUNT; mb++) {
                sinew_method method = (sinew_method)(mb / 2);
                uint32_t flags = mb % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0u;
                memcpy(local, rest, sizeof(sinew_transform) * jc);
                tu_random_pose(&rng, jc, local, 1.2 * M_PI, rigid_method(method) ? 0.0 : 0.4);
                int mirror = !rigid_method(method) && trial % 2 == 1;
                if (mirror) /* a mirrored axis on about a fifth of the joints */
                    for (uint32_t j = 0; j < jc; j++)
                        if (tu_range(&rng, 5) == 0) local[j].scale.y = -local[j].scale.y;
                double far = trial < 3 ? 50.0 : 1000.0;
                sinew_transform rt = { tu_random_vec3(&rng, -far, far), tu_random_quat(&rng), { 1, 1, 1 } };
                sinew_mat4 root = sinew_mat4_from_transform(&rt);
                sinew_result br = sinew_palette_build(skel, method, local, &root, scratch, pal);
                if (mirror && br != SINEW_OK) { /* not accepted by this method: unmirrored instead */
                    for (uint32_t j = 0; j < jc; j++) local[j].scale.y = local[j].scale.y < 0 ? -local[j].scale.y : local[j].scale.y;
                    br = sinew_palette_build(skel, method, local, &root, scratch, pal);
                    mirror = 0;
                }
                TU_CHECK_OK(br);
                mirrored += (uint32_t)mirror;
                TU_CHECK_OK(sinew_palette_pack(method, flags, pal, jc, packed));
                float lo[3], hi[3], glo[3], ghi[3];
                TU_CHECK_OK(sinew_character_bounds(jb, nb, jc, method, flags, packed, lo, hi));
                /* growth only widens the box (the morphed mesh is not skinned here; test_bounds_morph does) */
                int grow = trial % 3 == 2;
                if (grow) {
                    for (uint32_t j = 0; j < jc; j++) growth[j] = (float)tu_uniform(&rng, 0.0, 0.2);
                    TU_CHECK_OK(sinew_character_bounds_morphed(jb, nb, jc, method, flags, packed, growth, glo, ghi));
                    for (int c = 0; c < 3; c++) TU_CHECK(glo[c] <= lo[c] && ghi[c] >= hi[c]);
                    grown++;
                }
                if (flags) { /* the rule puts every joint's posed segment ends (palette bulge slots) in the box */
                    uint32_t st = sinew_palette_gpu_stride(method, flags) * 4u, bo = (method == SINEW_METHOD_LBS ? 3u : method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR ? 2u : 5u) * 4u;
                    uint32_t ends_out = 0;
                    for (uint32_t j = 0; j < jc; j++)
                        for (int e2 = 0; e2 < 2 && jb[j].radius >= 0.0f; e2++)
                            for (int c = 0; c < 3; c++) {
                                float x = packed[st * j + bo + 4u * (uint32_t)e2 + (uint32_t)c];
                                ends_out += !(x >= lo[c] && x <= hi[c]);
                            }
                    segment_ends_out += ends_out;
                }
                TU_CHECK_OK(sinew_reference_skin_cor(n, v4, NULL, centers, bulge, pal, jc, method, flags, pos, nrm));
                uint32_t out = 0;
                for (uint32_t i = 0; i < n; i++)
                    for (int c = 0; c < 3; c++) {
                        double x = pos[3 * i + c];
                        if (!(x >= lo[c] && x <= hi[c])) out++;
                    }
                cases++;
                outside += out != 0;
                if (out)
                    TU_CHECK_MSG(0, "%u joints, %s%s, trial %d%s: %u coordinates outside the bounds", jc,
                                 sinew_method_name(method), flags ? "+bulge" : "", trial, mirror ? " (mirrored)" : "", out);
            }
        sinew_skeleton_destroy(skel);
    }
    fprintf(stderr, "%u cases (%u mirrored, %u with growth): %u with a vertex outside\n", cases, mirrored, grown,
            outside);
    TU_CHECK(outside == 0);
    TU_CHECK(segment_ends_out == 0);
    TU_CHECK(cases == NJC * 6 * 2 * SINEW_METHOD_COUNT);
    TU_CHECK(mirrored > 0); /* some scale method takes mirrored joints */

    /* Not vacuous: one influence per vertex, 9 and 64 joints, every method */
    for (int sz = 0; sz < 2; sz++) {
        uint32_t jc = sz ? 64 : 9;
        sinew_skeleton *sk = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jc, rest, &sk));
        float *p1 = malloc(sizeof(float) * 3 * n), *w1 = malloc(sizeof(float) * n);
        uint32_t *j1 = malloc(sizeof(uint32_t) * n);
        for (uint32_t i = 0; i < n; i++) {
            j1[i] = tu_range(&rng, jc);
            w1[i] = 1.0f;
            const sinew_mat4 *b = sinew_skeleton_bind_global(sk, j1[i]);
            sinew_vec3 d = tu_random_vec3(&rng, -0.3, 0.3);
            p1[3 * i] = (float)(b->m[3][0] + d.x);
            p1[3 * i + 1] = (float)(b->m[3][1] + d.y);
            p1[3 * i + 2] = (float)(b->m[3][2] + d.z);
        }
        sinew_influences inf = { NULL, 1, j1, w1 };
        TU_CHECK_OK(sinew_pack_vertices(n, p1, NULL, &inf, jc, v4, NULL, NULL));
        uint32_t used1 = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, n, jc, jb, nb, ncap, &used1));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v4, NULL, n, jc, p1, jb)); /* centers on the vertices */
        for (int m = 0; m < SINEW_METHOD_COUNT; m++) {
            sinew_method method = (sinew_method)m;
            memcpy(local, rest, sizeof(sinew_transform) * jc);
            tu_random_pose(&rng, jc, local, M_PI, 0.0); /* rigid: the scale rows are rotations, norm 1 */
            sinew_transform rt = { tu_random_vec3(&rng, 100, 200), tu_random_quat(&rng), { 1, 1, 1 } };
            sinew_mat4 root = sinew_mat4_from_transform(&rt);
            TU_CHECK_OK(sinew_palette_build(sk, method, local, &root, scratch, pal));
            TU_CHECK_OK(sinew_palette_pack(method, 0, pal, jc, packed));
            float lo[3], hi[3];
            TU_CHECK_OK(sinew_character_bounds(jb, nb, jc, method, 0, packed, lo, hi));
            TU_CHECK_OK(sinew_reference_skin_cor(n, v4, NULL, p1, NULL, pal, jc, method, 0, pos, nrm));
            double vlo[3] = { INFINITY, INFINITY, INFINITY }, vhi[3] = { -INFINITY, -INFINITY, -INFINITY };
            uint32_t out = 0, lost = 0;
            for (uint32_t i = 0; i < n; i++)
                for (int c = 0; c < 3; c++) {
                    double x = pos[3 * i + c];
                    vlo[c] = x < vlo[c] ? x : vlo[c];
                    vhi[c] = x > vhi[c] ? x : vhi[c];
                    out += !(x >= lo[c] && x <= hi[c]);
                    double mid = 0.5 * ((double)lo[c] + hi[c]), half = 0.5 * ((double)hi[c] - lo[c]) * 0.6;
                    lost += !(x >= mid - half && x <= mid + half);
                }
            double dv = 0, db = 0;
            for (int c = 0; c < 3; c++) {
                dv += (vhi[c] - vlo[c]) * (vhi[c] - vlo[c]);
                db += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
            }
            TU_CHECK_MSG(out == 0, "rigid %u joints %s: %u outside", jc, sinew_method_name(method), out);
            TU_CHECK_MSG(sqrt(db) <= 2.0 * sqrt(dv), "rigid %u joints %s: box diagonal %.3f vs vertices' %.3f", jc,
                         sinew_method_name(method), sqrt(db), sqrt(dv));
            TU_CHECK_MSG(lost > 0, "rigid %u joints %s: the box shrunk by 40%% still holds every vertex", jc,
                         sinew_method_name(method));
        }
        free(p1); free(w1); free(j1);
        sinew_skeleton_destroy(sk);
    }

    /* LBS, the rule itself (each joint's ball matters, not only the outermost vertices):
     * skin matrices s_a R_a + t_a (random rotations, uniform scale 0.25..4, translations
     * up to 20) and joint bounds set directly (centres up to 10 away, radii 0.01..2, some
     * joints without vertices, growth on half the cases), 1..40, 64, 200 and 256 joints
     * (the 16- and 8-lane groups and the stack tail): the box holds the exact union of
     * the balls' boxes [T_a c_a -+ s_a (r_a + G_a)] (computed in float64 from the float
     * matrices; s_a taken 1e-6 low for the float rounding of s_a R_a) and exceeds it by at
     * most 1e-4 of its size and position (the box's own padding is 1e-5; its rounding
     * terms ~1e-6). Shrinking one lane's radius by 5 % fails it. */
    {
        const uint32_t extra[3] = { 64, 200, 256 };
        uint32_t rule_cases = 0, rule_out = 0, rule_loose = 0;
        for (uint32_t ci = 0; ci < 43; ci++) {
            uint32_t jc = ci < 40 ? ci + 1 : extra[ci - 40];
            for (int trial = 0; trial < 8; trial++) {
                double elo[3] = { INFINITY, INFINITY, INFINITY }, ehi[3] = { -INFINITY, -INFINITY, -INFINITY };
                int grow = trial % 2;
                for (uint32_t a = 0; a < jc; a++) {
                    sinew_quat q = tu_random_quat(&rng);
                    double sc = exp(tu_uniform(&rng, log(0.25), log(4.0)));
                    sinew_mat4 R = sinew_mat4_from_rigid(q, tu_random_vec3(&rng, -20, 20));
                    float *e = packed + 12u * a;
                    for (int i = 0; i < 3; i++) {
                        for (int j = 0; j < 3; j++) e[4 * i + j] = (float)(sc * R.m[j][i]);
                        e[4 * i + 3] = (float)R.m[3][i];
                    }
                    memset(&jb[a], 0, sizeof jb[a]);
                    sinew_vec3 c = tu_random_vec3(&rng, -10, 10);
                    jb[a].center[0] = (float)c.x; jb[a].center[1] = (float)c.y; jb[a].center[2] = (float)c.z;
                    jb[a].radius = tu_range(&rng, 7) == 0 && a > 0 ? -1.0f : (float)tu_uniform(&rng, 0.01, 2.0);
                    jb[a].min_major_weight = 1.0f;
                    growth[a] = grow ? (float)tu_uniform(&rng, 0.0, 0.5) : 0.0f;
                    if (jb[a].radius < 0.0f) continue;
                    double rr = ((double)jb[a].radius + growth[a]) * sc * (1.0 - 1e-6);
                    for (int i = 0; i < 3; i++) {
                        double P = (double)e[4 * i + 3];
                        for (int j = 0; j < 3; j++) P += (double)e[4 * i + j] * jb[a].center[j];
                        elo[i] = P - rr < elo[i] ? P - rr : elo[i];
                        ehi[i] = P + rr > ehi[i] ? P + rr : ehi[i];
                    }
                }
                float lo[3], hi[3];
                TU_CHECK_OK(sinew_character_bounds_morphed(jb, nb, jc, SINEW_METHOD_LBS, 0, packed, grow ? growth : NULL,
                                                           lo, hi));
                double size = 0, mag = 0;
                for (int i = 0; i < 3; i++) {
                    size = ehi[i] - elo[i] > size ? ehi[i] - elo[i] : size;
                    mag = fabs(elo[i]) > mag ? fabs(elo[i]) : mag;
                    mag = fabs(ehi[i]) > mag ? fabs(ehi[i]) : mag;
                }
                int out = 0, loose = 0;
                for (int i = 0; i < 3; i++) {
                    out += !(lo[i] <= elo[i] && hi[i] >= ehi[i]);
                    loose += !(elo[i] - lo[i] <= 1e-4 * (size + mag) && hi[i] - ehi[i] <= 1e-4 * (size + mag));
                }
                rule_cases++;
                rule_out += out != 0;
                rule_loose += loose != 0;
                if (out || loose)
                    TU_CHECK_MSG(0, "lbs rule, %u joints, trial %d: %d faces inside the balls' box, %d too far out", jc,
                                 trial, out, loose);
            }
        }
        fprintf(stderr, "lbs rule: %u cases, %u with a ball outside the box, %u looser than 1e-4\n", rule_cases,
                rule_out, rule_loose);
        TU_CHECK(rule_cases == 43 * 8);
    }

    /* Non-finite palettes: NaN / infinity in joint 0, 12 or 18 of 19 (the lanes read it) */
    {
        const uint32_t jc = 19;
        sinew_skeleton *sk = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jc, rest, &sk));
        TU_CHECK_OK(tu_make_random_mesh(&rng, sk, n, 0.6, v4, NULL));
        uint32_t used2 = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, n, jc, jb, nb, ncap, &used2));
        for (uint32_t i = 0; i < 3 * n; i++) centers[i] = v4[i / 3].position[i % 3];
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v4, NULL, n, jc, centers, jb));
        const uint32_t bad_joint[3] = { 0, 12, 18 };
        for (int mb = 0; mb < 2 * SINEW_METHOD_COUNT; mb++) {
            sinew_method method = (sinew_method)(mb / 2);
            uint32_t flags = mb % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0u;
            uint32_t stride = sinew_palette_gpu_stride(method, flags) * 4u;
            TU_CHECK_OK(sinew_palette_build(sk, method, rest, NULL, scratch, pal));
            for (int b = 0; b < 3; b++)
                for (uint32_t slot = 0; slot < stride; slot += 3) {
                    float lo[3], hi[3];
                    TU_CHECK_OK(sinew_palette_pack(method, flags, pal, jc, packed));
                    packed[stride * bad_joint[b] + slot] = slot % 2 ? INFINITY : NAN;
                    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, jc, method, flags, packed, lo, hi), SINEW_ERROR_NON_FINITE);
                }
            /* finite values whose float sum overflows: not NON_FINITE */
            float lo[3], hi[3];
            TU_CHECK_OK(sinew_palette_pack(method, flags, pal, jc, packed));
            /* dual part x of joint 3, and of joint 11 (same lane); LBS: their translation x */
            uint32_t dq = method == SINEW_METHOD_LBS ? 3u : method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR ? 4u : 16u;
            packed[stride * 3 + dq] = 3.0e38f;
            packed[stride * 11 + dq] = 3.0e38f;
            TU_CHECK(sinew_character_bounds(jb, nb, jc, method, flags, packed, lo, hi) != SINEW_ERROR_NON_FINITE);
        }
        sinew_skeleton_destroy(sk);
    }

    free(bulge);
    free(v4); free(pos); free(nrm); free(scratch); free(pal); free(packed); free(jb); free(nb); free(centers);
    free(rest); free(local);
    return tu_finish("test_bounds_simd");
}
