/* CPU side of blend shapes (sinew/blendshape.h):
 *  - sinew_morph_reference against a dense brute-force accumulation written
 *    here (random sparse targets, weights in [-2, 3]): positions within 1e-12,
 *    normals within 1e-12 of the normalized dense sum;
 *  - validation errors name the target/entry/weight;
 *  - the RBF driver: exact interpolation at every example (1e-9) for the three
 *    kernels, smaller-but-nonzero reproduction with regularization, the pose
 *    distance (q and -q, a known angle), duplicate / too few examples, an
 *    ill-conditioned system, bad rotations and outputs refused with messages;
 *  - SMPL pose features: zero at rest, R - I of a known rotation (1e-7). */
#include "testutil.h"
#include <string.h>

static void test_reference(tu_rng *r)
{
    enum { NV = 300, NT = 25 };
    sinew_vertex v[NV];
    float pos[3 * NV], nrm[3 * NV];
    for (int i = 0; i < NV; i++) {
        sinew_vec3 n = tu_random_unit(r);
        pos[3 * i] = (float)tu_uniform(r, -1, 1); pos[3 * i + 1] = (float)tu_uniform(r, -1, 1);
        pos[3 * i + 2] = (float)tu_uniform(r, -1, 1);
        nrm[3 * i] = (float)n.x; nrm[3 * i + 1] = (float)n.y; nrm[3 * i + 2] = (float)n.z;
    }
    uint32_t jw[4 * NV];
    float ww[4 * NV];
    for (int i = 0; i < NV; i++) { jw[4 * i] = jw[4 * i + 1] = jw[4 * i + 2] = jw[4 * i + 3] = 0; ww[4 * i] = 1; ww[4 * i + 1] = ww[4 * i + 2] = ww[4 * i + 3] = 0; }
    sinew_influences inf = { NULL, 4, jw, ww };
    TU_CHECK_OK(sinew_pack_vertices(NV, pos, nrm, &inf, 1, v, NULL, NULL));
    static uint32_t idx[NT][NV];
    static float dp[NT][3 * NV], dn[NT][3 * NV];
    sinew_morph_target t[NT];
    float w[NT];
    static double dense_p[3 * NV], dense_n[3 * NV];
    for (int i = 0; i < NV; i++) {
        sinew_vec3 n = sinew_oct_decode(v[i].normal_oct);
        dense_p[3 * i] = v[i].position[0]; dense_p[3 * i + 1] = v[i].position[1]; dense_p[3 * i + 2] = v[i].position[2];
        dense_n[3 * i] = n.x; dense_n[3 * i + 1] = n.y; dense_n[3 * i + 2] = n.z;
    }
    for (int k = 0; k < NT; k++) {
        uint8_t used[NV] = { 0 };
        uint32_t c = tu_range(r, NV / 3);
        w[k] = tu_range(r, 3) == 0 ? 0.0f : (float)tu_uniform(r, -2, 3);
        for (uint32_t e = 0; e < c; e++) {
            uint32_t i;
            do i = tu_range(r, NV); while (used[i]);
            used[i] = 1;
            idx[k][e] = i;
            for (int a = 0; a < 3; a++) {
                dp[k][3 * e + a] = (float)tu_uniform(r, -0.5, 0.5);
                dn[k][3 * e + a] = (float)tu_uniform(r, -0.5, 0.5);
                dense_p[3 * i + a] += (double)w[k] * dp[k][3 * e + a];
                if (k % 3) dense_n[3 * i + a] += (double)w[k] * dn[k][3 * e + a];
            }
        }
        sinew_morph_target g = { "t", c, idx[k], dp[k], k % 3 ? dn[k] : NULL };
        t[k] = g;
    }
    static double mp[3 * NV], mn[3 * NV];
    sinew_morph_error err;
    TU_CHECK_OK(sinew_morph_reference(NV, v, t, NT, w, mp, mn, &err));
    double ep = 0, en = 0;
    for (int i = 0; i < NV; i++) {
        double l = sqrt(dense_n[3 * i] * dense_n[3 * i] + dense_n[3 * i + 1] * dense_n[3 * i + 1] +
                        dense_n[3 * i + 2] * dense_n[3 * i + 2]);
        for (int a = 0; a < 3; a++) {
            ep = fmax(ep, fabs(mp[3 * i + a] - dense_p[3 * i + a]));
            en = fmax(en, fabs(mn[3 * i + a] - dense_n[3 * i + a] / l));
        }
    }
    TU_CHECK_MSG(ep <= 1e-12 && en <= 1e-12, "reference vs dense: %g %g", ep, en);

    /* Errors naming the target, entry or weight. */
    uint32_t bad_idx[2] = { 3, NV };
    float d6[6] = { 0 };
    sinew_morph_target b = { "jaw_open", 2, bad_idx, d6, NULL };
    TU_CHECK_RESULT(sinew_morph_validate(NV, &b, 1, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.index == 0 && err.entry == 1 && strstr(err.message, "jaw_open") && strstr(err.message, "vertex"));
    bad_idx[1] = 3;
    TU_CHECK_RESULT(sinew_morph_validate(NV, &b, 1, &err), SINEW_ERROR_INVALID_ARGUMENT);
    bad_idx[1] = 4;
    d6[5] = NAN;
    TU_CHECK_RESULT(sinew_morph_validate(NV, &b, 1, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.entry == 1 && strstr(err.message, "jaw_open"));
    d6[5] = 1e31f;
    TU_CHECK_RESULT(sinew_morph_validate(NV, &b, 1, &err), SINEW_ERROR_NON_FINITE);
    d6[5] = 0;
    TU_CHECK_OK(sinew_morph_validate(NV, &b, 1, &err));
    TU_CHECK_RESULT(sinew_morph_check_weights(w, NT - 1, NT, &err), SINEW_ERROR_INVALID_ARGUMENT);
    w[4] = INFINITY;
    TU_CHECK_RESULT(sinew_morph_check_weights(w, NT, NT, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 4 && strstr(err.message, "weight 4"));
    TU_CHECK_RESULT(sinew_morph_reference(NV, v, t, NT, w, mp, mn, &err), SINEW_ERROR_NON_FINITE);
}

static sinew_quat axis_angle(double x, double y, double z, double a)
{
    double l = sqrt(x * x + y * y + z * z), s = sin(a / 2) / l;
    sinew_quat q = { x * s, y * s, z * s, cos(a / 2) };
    return q;
}

static void test_rbf(tu_rng *r)
{
    enum { D = 2, E = 6, O = 3 };
    sinew_quat ex[E * D];
    double out[E * O];
    for (int e = 0; e < E; e++) {
        for (int j = 0; j < D; j++) ex[e * D + j] = tu_random_quat(r);
        for (int o = 0; o < O; o++) out[e * O + o] = tu_uniform(r, -1, 2);
    }
    sinew_morph_error err;
    for (int k = 0; k < 3; k++) {
        sinew_rbf_desc d = { 0 };
        d.driver_count = D;
        d.example_count = E;
        d.example_rotations = ex;
        d.output_count = O;
        d.example_outputs = out;
        d.kernel = (sinew_rbf_kernel)k;
        sinew_rbf *rb = NULL;
        TU_CHECK_OK(sinew_rbf_create(&d, &rb, &err));
        if (!rb) continue;
        double worst = 0;
        for (int e = 0; e < E; e++) {
            double y[O];
            TU_CHECK_OK(sinew_rbf_evaluate_f64(rb, &ex[e * D], y));
            for (int o = 0; o < O; o++) worst = fmax(worst, fabs(y[o] - out[e * O + o]));
            /* q and -q are the same pose. */
            sinew_quat neg[D];
            for (int j = 0; j < D; j++) {
                neg[j] = ex[e * D + j];
                neg[j].x = -neg[j].x; neg[j].y = -neg[j].y; neg[j].z = -neg[j].z; neg[j].w = -neg[j].w;
            }
            float yf[O];
            double yn[O];
            TU_CHECK_OK(sinew_rbf_evaluate(rb, neg, yf));
            TU_CHECK_OK(sinew_rbf_evaluate_f64(rb, neg, yn));
            /* float32 output: the float64 sums rounded once (accumulated in double), so
             * as accurate as the float64 path whatever the condition number */
            for (int o = 0; o < O; o++) TU_CHECK(yf[o] == (float)yn[o]);
            for (int o = 0; o < O; o++) TU_CHECK_NEAR(yf[o], out[e * O + o], 1e-9 + 0x1p-23 * fabs(out[e * O + o]));
        }
        TU_CHECK_MSG(worst <= 1e-9, "kernel %d: interpolation error %g (condition %g)", k, worst, sinew_rbf_condition(rb));
        sinew_rbf_destroy(rb);
        /* Regularization: no longer exact, and never farther from the wanted outputs than
         * they are from 0, per output: |Phi W - Y| <= |Y| (the Tikhonov normal equations,
         * blendshape.h). Adding lambda to Phi's diagonal instead broke this for thin plate
         * and multiquadric on random examples (deviation up to 2.5, SINEW_TEST_SEED=671475). */
        for (int li = 0; li < 3; li++) {
            d.regularization = li == 0 ? 1e-4 : li == 1 ? 1e-2 : 1.0;
            TU_CHECK_OK(sinew_rbf_create(&d, &rb, &err));
            if (!rb) continue;
            double res2[O], y2[O], dev = 0;
            for (int o = 0; o < O; o++) res2[o] = y2[o] = 0;
            for (int e = 0; e < E; e++) {
                double y[O];
                TU_CHECK_OK(sinew_rbf_evaluate_f64(rb, &ex[e * D], y));
                for (int o = 0; o < O; o++) {
                    double r0 = y[o] - out[e * O + o];
                    res2[o] += r0 * r0;
                    y2[o] += out[e * O + o] * out[e * O + o];
                    dev = fmax(dev, fabs(r0));
                }
            }
            for (int o = 0; o < O; o++)
                TU_CHECK_MSG(sqrt(res2[o]) <= sqrt(y2[o]) * (1 + 1e-9) + 1e-12,
                             "kernel %d lambda %g output %d: |Phi W - Y| = %g > |Y| = %g", k, d.regularization, o,
                             sqrt(res2[o]), sqrt(y2[o]));
            TU_CHECK_MSG(dev > 1e-9 && isfinite(sinew_rbf_condition(rb)), "kernel %d regularized deviation %g", k, dev);
            sinew_rbf_destroy(rb);
            rb = NULL;
        }
        d.regularization = 0.0;
    }
    /* Pose distance. */
    sinew_quat a[2] = { axis_angle(1, 0, 0, 0.3), axis_angle(0, 1, 0, 0) };
    sinew_quat b[2] = { axis_angle(1, 0, 0, 0.7), axis_angle(0, 0, 1, 0.3) };
    TU_CHECK_NEAR(sinew_pose_distance(a, b, 2), sqrt(0.4 * 0.4 + 0.3 * 0.3), 1e-12);
    sinew_quat n = a[0];
    n.x = -n.x; n.w = -n.w;
    TU_CHECK_NEAR(sinew_pose_distance(a, &n, 1), 0.0, 1e-7);
    /* Near-equal poses keep their relative precision (2 acos|a.b| gave ~3e-8 for these,
     * so a duplicate 1e-12 rad away passed the 1e-9 duplicate check, e.g. seed 1038). */
    for (int sgn = 0; sgn < 2; sgn++)
        for (double ang = 1e-12; ang < 1e-3; ang *= 100) {
            sinew_quat p0 = axis_angle(0.3, -0.5, 0.8, 1.1), p1[2] = { axis_angle(0.3, -0.5, 0.8, 1.1 + ang), a[1] };
            sinew_quat p2[2] = { p0, a[1] };
            if (sgn) { p1[0].x = -p1[0].x; p1[0].y = -p1[0].y; p1[0].z = -p1[0].z; p1[0].w = -p1[0].w; }
            double dd = sinew_pose_distance(p1, p2, 2);
            TU_CHECK_MSG(fabs(dd - ang) <= 1e-6 * ang + 1e-15, "pose distance %g for an angle %g", dd, ang);
        }

    /* Errors. */
    sinew_rbf_desc d = { 0 };
    sinew_rbf *rb = NULL;
    d.driver_count = D;
    d.example_count = E;
    d.example_rotations = ex;
    d.output_count = O;
    d.example_outputs = out;
    d.example_count = 1;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_EMPTY);
    d.example_count = E;
    sinew_quat saved = ex[4 * D + 1];
    ex[4 * D] = ex[2 * D];
    ex[4 * D + 1] = ex[2 * D + 1];
    ex[4 * D + 1].w = -ex[4 * D + 1].w; ex[4 * D + 1].x = -ex[4 * D + 1].x; ex[4 * D + 1].y = -ex[4 * D + 1].y;
    ex[4 * D + 1].z = -ex[4 * D + 1].z;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_SINGULAR);
    TU_CHECK(err.index == 4 && err.entry == 2 && strstr(err.message, "duplicates"));
    ex[4 * D] = tu_random_quat(r);
    ex[4 * D + 1] = saved;
    ex[3 * D + 1].x = NAN;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 3 && strstr(err.message, "example 3"));
    ex[3 * D + 1] = tu_random_quat(r);
    out[5] = NAN;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_NON_FINITE);
    TU_CHECK(err.index == 1 && err.entry == 2);
    out[5] = 0.5;
    d.example_outputs = NULL;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_INVALID_ARGUMENT);
    d.output_count = E;
    TU_CHECK_OK(sinew_rbf_create(&d, &rb, &err));
    sinew_rbf_destroy(rb);
    rb = NULL;
    /* Ill-conditioned: a Gaussian far wider than the examples' spread. */
    d.kernel = SINEW_RBF_GAUSSIAN;
    d.width = 1e3;
    d.max_condition = 1e6;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_SINGULAR);
    TU_CHECK(strstr(err.message, "ill-conditioned") != NULL);
    TU_CHECK(rb == NULL);
    d.regularization = 1e-3; /* regularization cures it */
    TU_CHECK_OK(sinew_rbf_create(&d, &rb, &err));
    sinew_rbf_destroy(rb);
    d.kernel = (sinew_rbf_kernel)7;
    TU_CHECK_RESULT(sinew_rbf_create(&d, &rb, &err), SINEW_ERROR_INVALID_ARGUMENT);
}

/* An accepted but ill-conditioned driver (condition 1e7..1e11, under the 1e12
 * default): the float32 evaluation reproduces its examples as the float64 one
 * does (it used to accumulate in float: errors of condition x 2^-24). */
static void test_rbf_ill_conditioned(tu_rng *r)
{
    enum { D = 1, E = 8, O = 2 };
    sinew_quat ex[E * D];
    double out[E * O];
    for (int e = 0; e < E; e++) {
        ex[e] = axis_angle(0, 0, 1, 0.25 * e);
        for (int o = 0; o < O; o++) out[e * O + o] = tu_uniform(r, -1, 1);
    }
    double cond = 0;
    for (double width = 0.5; width < 1e3 && !(cond >= 1e7); width *= 1.5) {
        sinew_rbf_desc d = { 0 };
        d.driver_count = D;
        d.example_count = E;
        d.example_rotations = ex;
        d.output_count = O;
        d.example_outputs = out;
        d.kernel = SINEW_RBF_GAUSSIAN;
        d.width = width;
        sinew_rbf *rb = NULL;
        sinew_morph_error err;
        if (sinew_rbf_create(&d, &rb, &err) != SINEW_OK) break; /* past the accepted condition */
        cond = sinew_rbf_condition(rb);
        if (cond >= 1e7) {
            double worst = 0, worst64 = 0;
            for (int e = 0; e < E; e++) {
                float yf[O];
                double yn[O];
                TU_CHECK_OK(sinew_rbf_evaluate(rb, &ex[e], yf));
                TU_CHECK_OK(sinew_rbf_evaluate_f64(rb, &ex[e], yn));
                for (int o = 0; o < O; o++) {
                    worst = fmax(worst, fabs(yf[o] - out[e * O + o]));
                    worst64 = fmax(worst64, fabs(yn[o] - out[e * O + o]));
                }
            }
            fprintf(stderr, "rbf width %.3g condition %.3g: float32 error %.3g, float64 error %.3g\n", width, cond,
                    worst, worst64);
            TU_CHECK(worst <= worst64 + 0x1p-23);
        }
        sinew_rbf_destroy(rb);
    }
    TU_CHECK_MSG(cond >= 1e7, "no accepted driver reached condition 1e7 (%g)", cond);
}

static void test_smpl(void)
{
    sinew_quat q[2] = { { 0, 0, 0, 1 }, { 0, 0, 0, 0 } };
    q[1] = axis_angle(0, 0, 1, 0.5);
    float f[18];
    TU_CHECK_OK(sinew_smpl_pose_features(q, 2, f));
    for (int k = 0; k < 9; k++) TU_CHECK_NEAR(f[k], 0.0, 1e-7);
    double c = cos(0.5), s = sin(0.5);
    double want[9] = { c - 1, -s, 0, s, c - 1, 0, 0, 0, 0 };
    for (int k = 0; k < 9; k++) TU_CHECK_NEAR(f[9 + k], want[k], 1e-7);
    q[0].w = NAN;
    TU_CHECK_RESULT(sinew_smpl_pose_features(q, 2, f), SINEW_ERROR_NON_FINITE);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xB1E5Dull);
    test_reference(&r);
    test_rbf(&r);
    test_rbf_ill_conditioned(&r);
    test_smpl();
    return tu_finish("test_blendshape");
}
