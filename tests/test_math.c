/* Tests of Sinew's float64 math: dual quaternions, quaternions, slerp,
 * octahedral normals, 4x4 inverse, polar decomposition, result strings. */
#include "testutil.h"
#include <string.h>

static double mat4_maxdiff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) e = fmax(e, fabs(a->m[c][r] - b->m[c][r]));
    return e;
}
static double mat3_maxdiff(const sinew_mat3 *a, const sinew_mat3 *b)
{
    double e = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) e = fmax(e, fabs(a->m[c][r] - b->m[c][r]));
    return e;
}
static double mat3_maxabs(const sinew_mat3 *a)
{
    double e = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) e = fmax(e, fabs(a->m[c][r]));
    return e;
}
static sinew_mat3 diag3(double a, double b, double c)
{
    sinew_mat3 m = { { { a, 0, 0 }, { 0, b, 0 }, { 0, 0, c } } };
    return m;
}
static sinew_mat3 mul3(sinew_mat3 a, sinew_mat3 b) { return sinew_mat3_mul(&a, &b); }
static sinew_mat3 rand_rot(tu_rng *r) { return sinew_quat_to_mat3(tu_random_quat(r)); }

/* A quaternion whose rotation angle is within ~1e-9 of 180 degrees. */
static sinew_quat near_half_turn(tu_rng *r)
{
    sinew_vec3 a = tu_random_unit(r);
    double ang = M_PI + tu_uniform(r, -1e-9, 1e-9);
    return sinew_quat_from_axis_angle(a, ang);
}

static double quat_abs_dot(sinew_quat a, sinew_quat b)
{
    return fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
}

static void test_result_strings(void)
{
    for (int i = 0; i < (int)SINEW_RESULT_COUNT; i++) {
        const char *s = sinew_result_string((sinew_result)i);
        TU_CHECK(s && *s && strcmp(s, "unknown result") != 0);
        for (int j = 0; j < i; j++) TU_CHECK(strcmp(s, sinew_result_string((sinew_result)j)) != 0);
    }
    TU_CHECK(strcmp(sinew_result_string((sinew_result)999), "unknown result") == 0);
    for (int m = 0; m < (int)SINEW_METHOD_COUNT; m++) {
        sinew_method out = SINEW_METHOD_COUNT;
        TU_CHECK_OK(sinew_method_parse(sinew_method_name((sinew_method)m), &out));
        TU_CHECK(out == (sinew_method)m);
    }
    sinew_method out;
    TU_CHECK(strcmp(sinew_method_name(SINEW_METHOD_DQS_SCALE_LOCAL), "dqs-scale-local") == 0);
    TU_CHECK(strcmp(sinew_method_name((sinew_method)77), "unknown") == 0);
    TU_CHECK_RESULT(sinew_method_parse("DQS", &out), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_method_parse("", &out), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_method_parse(NULL, &out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_method_parse("lbs", NULL), SINEW_ERROR_INVALID_ARGUMENT);
}

/* 10k random rigid transforms (uniform rotations, plus every 10th within 1e-9
 * of a half turn; |t| <= 100): matrix -> DQ -> matrix differs by < 1e-12 in the
 * rotation and < 1e-11 in the translation; the DQ is unit (|real| - 1 < 1e-14,
 * real.dual < 1e-12); its real part is +-q (|dot| - 1 < 1e-13). */
static void test_dq_roundtrip(tu_rng *rng)
{
    double erot = 0, etr = 0, eunit = 0, eorth = 0, eq = 0;
    for (int i = 0; i < 10000; i++) {
        sinew_quat q = (i % 10 == 0) ? near_half_turn(rng) : tu_random_quat(rng);
        sinew_vec3 t = tu_random_vec3(rng, -100, 100);
        sinew_mat4 m = sinew_mat4_from_rigid(q, t);
        sinew_dualquat d = sinew_dq_from_mat4(&m);
        sinew_mat4 m2 = sinew_dq_to_mat4(d);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 4; r++) erot = fmax(erot, fabs(m.m[c][r] - m2.m[c][r]));
        for (int r = 0; r < 4; r++) etr = fmax(etr, fabs(m.m[3][r] - m2.m[3][r]));
        double n = sqrt(d.real.x * d.real.x + d.real.y * d.real.y + d.real.z * d.real.z + d.real.w * d.real.w);
        eunit = fmax(eunit, fabs(n - 1));
        eorth = fmax(eorth, fabs(d.real.x * d.dual.x + d.real.y * d.dual.y + d.real.z * d.dual.z + d.real.w * d.dual.w));
        eq = fmax(eq, fabs(quat_abs_dot(d.real, q) - 1));
        /* from_rigid agrees with from_mat4 up to the sign of the whole DQ */
        sinew_dualquat d2 = sinew_dq_from_rigid(q, t);
        sinew_vec3 t2 = sinew_dq_translation(d2);
        etr = fmax(etr, sinew_v3_length(sinew_v3_sub(t2, t)));
    }
    fprintf(stderr, "dq round trip: rot %.3g, trans %.3g, unit %.3g, real.dual %.3g, quat %.3g\n", erot, etr, eunit, eorth, eq);
    TU_CHECK_NEAR(erot, 0, 1e-12);
    TU_CHECK_NEAR(etr, 0, 1e-11);
    TU_CHECK_NEAR(eunit, 0, 1e-14);
    TU_CHECK_NEAR(eorth, 0, 1e-12);
    TU_CHECK_NEAR(eq, 0, 1e-13);
}

/* DQ product equals matrix product (< 1e-11 for |t| <= 10, two factors), and
 * DQ point/normal transforms equal the matrix's (< 1e-11 for |p| <= 10). */
static void test_dq_product(tu_rng *rng)
{
    double emul = 0, ept = 0, enrm = 0, econj = 0, enorm = 0;
    for (int i = 0; i < 10000; i++) {
        sinew_quat qa = (i % 7 == 0) ? near_half_turn(rng) : tu_random_quat(rng);
        sinew_quat qb = tu_random_quat(rng);
        sinew_vec3 ta = tu_random_vec3(rng, -10, 10), tb = tu_random_vec3(rng, -10, 10);
        sinew_mat4 ma = sinew_mat4_from_rigid(qa, ta), mb = sinew_mat4_from_rigid(qb, tb);
        sinew_dualquat da = sinew_dq_from_mat4(&ma), db = sinew_dq_from_mat4(&mb);
        sinew_mat4 mab = sinew_mat4_mul(&ma, &mb);
        sinew_mat4 dab = sinew_dq_to_mat4(sinew_dq_mul(da, db));
        emul = fmax(emul, mat4_maxdiff(&mab, &dab));
        sinew_vec3 p = tu_random_vec3(rng, -10, 10);
        ept = fmax(ept, sinew_v3_length(sinew_v3_sub(sinew_dq_transform_point(da, p), sinew_mat4_transform_point(&ma, p))));
        enrm = fmax(enrm, sinew_v3_length(sinew_v3_sub(sinew_dq_transform_normal(da, p), sinew_mat4_transform_vector(&ma, p))));
        /* the conjugate of a unit DQ is its inverse: da * conj(da) = identity */
        sinew_dualquat id = sinew_dq_mul(da, sinew_dq_conjugate(da));
        sinew_mat4 mid = sinew_dq_to_mat4(id), eye = sinew_mat4_identity();
        econj = fmax(econj, mat4_maxdiff(&mid, &eye));
        /* normalize undoes a scaling of both parts plus a real-parallel dual error */
        sinew_dualquat sc = da;
        double k = tu_uniform(rng, 0.1, 10), e = tu_uniform(rng, -0.5, 0.5);
        sc.real.x *= k; sc.real.y *= k; sc.real.z *= k; sc.real.w *= k;
        sc.dual.x = sc.dual.x * k + e * sc.real.x; sc.dual.y = sc.dual.y * k + e * sc.real.y;
        sc.dual.z = sc.dual.z * k + e * sc.real.z; sc.dual.w = sc.dual.w * k + e * sc.real.w;
        sinew_mat4 mn = sinew_dq_to_mat4(sinew_dq_normalize(sc));
        enorm = fmax(enorm, mat4_maxdiff(&mn, &ma));
    }
    fprintf(stderr, "dq product: mul %.3g, point %.3g, normal %.3g, conj %.3g, normalize %.3g\n", emul, ept, enrm, econj, enorm);
    TU_CHECK_NEAR(emul, 0, 1e-11);
    TU_CHECK_NEAR(ept, 0, 1e-11);
    TU_CHECK_NEAR(enrm, 0, 1e-11);
    TU_CHECK_NEAR(econj, 0, 1e-12);
    TU_CHECK_NEAR(enorm, 0, 1e-11);
    sinew_dualquat zero = { { 0, 0, 0, 0 }, { 1, 2, 3, 4 } };
    sinew_dualquat n = sinew_dq_normalize(zero);
    TU_CHECK(n.real.w == 1 && n.real.x == 0 && n.dual.x == 0 && n.dual.w == 0);
}

/* quat -> mat3 -> quat returns +-q with w >= 0 (|dot| - 1 < 1e-14); the matrix
 * is a rotation (orthonormality < 1e-14, |det - 1| < 1e-14); quat_mul matches
 * the matrix product and quat_rotate the matrix-vector product (< 1e-14). */
static void test_quat(tu_rng *rng)
{
    double eq = 0, eo = 0, ed = 0, emul = 0, erot = 0;
    int wneg = 0;
    for (int i = 0; i < 10000; i++) {
        sinew_quat q = (i % 5 == 0) ? near_half_turn(rng) : tu_random_quat(rng);
        if (i == 1) q = sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), M_PI); /* exact half turns */
        if (i == 2) q = sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), M_PI);
        if (i == 3) q = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), M_PI);
        if (i == 4) q = sinew_quat_identity();
        sinew_mat3 m = sinew_quat_to_mat3(q);
        sinew_quat q2 = sinew_quat_from_mat3(&m);
        if (q2.w < 0) wneg++;
        eq = fmax(eq, fabs(quat_abs_dot(q, q2) - 1));
        eo = fmax(eo, sinew_mat3_orthonormality_error(&m));
        ed = fmax(ed, fabs(sinew_mat3_det(&m) - 1));
        sinew_quat b = tu_random_quat(rng);
        sinew_mat3 mb = sinew_quat_to_mat3(b);
        sinew_mat3 p1 = sinew_mat3_mul(&m, &mb), p2 = sinew_quat_to_mat3(sinew_quat_mul(q, b));
        emul = fmax(emul, mat3_maxdiff(&p1, &p2));
        sinew_vec3 v = tu_random_vec3(rng, -1, 1);
        erot = fmax(erot, sinew_v3_length(sinew_v3_sub(sinew_quat_rotate(q, v), sinew_mat3_mul_v3(&m, v))));
    }
    fprintf(stderr, "quat: roundtrip %.3g, ortho %.3g, det %.3g, mul %.3g, rotate %.3g\n", eq, eo, ed, emul, erot);
    TU_CHECK(wneg == 0);
    TU_CHECK_NEAR(eq, 0, 1e-14);
    TU_CHECK_NEAR(eo, 0, 1e-14);
    TU_CHECK_NEAR(ed, 0, 1e-14);
    TU_CHECK_NEAR(emul, 0, 1e-14);
    TU_CHECK_NEAR(erot, 0, 1e-14);
    /* axis-angle: 90 degrees about z maps x to y */
    sinew_vec3 y = sinew_quat_rotate(sinew_quat_from_axis_angle(sinew_v3(0, 0, 2), M_PI / 2), sinew_v3(1, 0, 0));
    TU_CHECK_NEAR(y.x, 0, 1e-15);
    TU_CHECK_NEAR(y.y, 1, 1e-15);
    sinew_quat z = { 0, 0, 0, 0 };
    TU_CHECK(sinew_quat_normalize(z).w == 1);
}

static double quat_angle(sinew_quat a, sinew_quat b) /* rotation angle between a and b */
{
    double d = quat_abs_dot(a, b);
    return 2 * acos(d > 1 ? 1 : d);
}

/* slerp: endpoints reproduce a and +-b (< 1e-14); the midpoint lies at half the
 * angle from both and slerp(t) at t times the angle (< 1e-9 rad; the nlerp
 * branch under 0.0316 rad apart is exact at the midpoint only); q and -q give
 * the same (shorter-arc) result. */
static void test_slerp(tu_rng *rng)
{
    double eend = 0, emid = 0, esign = 0, efrac = 0;
    for (int i = 0; i < 2000; i++) {
        sinew_quat a = tu_random_quat(rng), b = tu_random_quat(rng);
        if (i % 10 == 0) { /* nearly identical: the nlerp branch */
            sinew_quat d = sinew_quat_from_axis_angle(tu_random_unit(rng), tu_uniform(rng, 0, 0.05));
            b = sinew_quat_mul(d, a);
        }
        sinew_quat s0 = sinew_quat_slerp(a, b, 0), s1 = sinew_quat_slerp(a, b, 1);
        eend = fmax(eend, fabs(quat_abs_dot(s0, a) - 1));
        eend = fmax(eend, fabs(quat_abs_dot(s1, b) - 1));
        double full = quat_angle(a, b);
        sinew_quat m = sinew_quat_slerp(a, b, 0.5);
        emid = fmax(emid, fabs(quat_angle(a, m) - 0.5 * full));
        emid = fmax(emid, fabs(quat_angle(m, b) - 0.5 * full));
        sinew_quat nb = { -b.x, -b.y, -b.z, -b.w };
        sinew_quat m2 = sinew_quat_slerp(a, nb, 0.5);
        esign = fmax(esign, fabs(quat_abs_dot(m, m2) - 1));
        if (i % 10 != 0) { /* constant angular speed: at t, the angle from a is t * full */
            double t = tu_uniform(rng, 0, 1);
            sinew_quat st = sinew_quat_slerp(a, b, t);
            efrac = fmax(efrac, fabs(quat_angle(a, st) - t * full));
        }
    }
    fprintf(stderr, "slerp: ends %.3g, mid %.3g, sign %.3g, fraction %.3g\n", eend, emid, esign, efrac);
    TU_CHECK_NEAR(eend, 0, 1e-14);
    TU_CHECK_NEAR(emid, 0, 1e-9); /* acos near 1 limits how precisely the angle is measured */
    TU_CHECK_NEAR(esign, 0, 1e-14);
    TU_CHECK_NEAR(efrac, 0, 1e-9);
    /* known midpoint: identity to 120 degrees about z -> 60 degrees about z */
    sinew_quat m = sinew_quat_slerp(sinew_quat_identity(), sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 2 * M_PI / 3), 0.5);
    sinew_quat e = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), M_PI / 3);
    TU_CHECK_NEAR(quat_abs_dot(m, e), 1, 1e-15);
}

/* An independent transcription of the GLSL decode (math.h), in float. */
static void glsl_decode(uint32_t p, float out[3])
{
    int16_t qx = (int16_t)(p & 0xffff), qy = (int16_t)(p >> 16);
    float fx = fminf(fmaxf((float)qx / 32767.0f, -1.0f), 1.0f);
    float fy = fminf(fmaxf((float)qy / 32767.0f, -1.0f), 1.0f);
    float n[3] = { fx, fy, 1.0f - fabsf(fx) - fabsf(fy) };
    float t = fmaxf(-n[2], 0.0f);
    n[0] += (n[0] >= 0.0f) ? -t : t;
    n[1] += (n[1] >= 0.0f) ? -t : t;
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int i = 0; i < 3; i++) out[i] = n[i] / l;
}

/* Octahedral normals: angle error of the round trip < 5e-5 rad (measured 4.3e-5) on 200k random
 * unit vectors plus the axes and the octahedron's edges; decoded length within
 * 1e-6 of 1; the decode is bit-identical to the GLSL transcription on 200k
 * random packed values; zero / NaN encode to the zero code which decodes to 0. */
static void test_oct(tu_rng *rng)
{
    double emax = 0, elen = 0;
    int mismatches = 0;
    for (int i = 0; i < 200000 + 26; i++) {
        sinew_vec3 n;
        if (i < 26) { /* the 26 directions of {-1,0,1}^3 minus the origin */
            int k = i < 13 ? i : i + 1;
            n = sinew_v3(k % 3 - 1, (k / 3) % 3 - 1, k / 9 - 1);
        } else {
            n = tu_random_unit(rng);
            if (i % 4 == 0) n = sinew_v3_scale(n, tu_uniform(rng, 1e-3, 1e3)); /* not unit */
        }
        uint32_t p = sinew_oct_encode(n);
        TU_CHECK(p != SINEW_OCT_ZERO);
        sinew_vec3 d = sinew_oct_decode(p);
        sinew_vec3 u = sinew_v3_normalize(n);
        double c = sinew_v3_length(sinew_v3_cross(u, d)), s = sinew_v3_dot(u, d);
        emax = fmax(emax, atan2(c, s));
        elen = fmax(elen, fabs(sinew_v3_length(d) - 1));
        uint32_t q = (uint32_t)tu_next(rng);
        if (q == SINEW_OCT_ZERO) continue;
        float g[3];
        glsl_decode(q, g);
        sinew_vec3 dq = sinew_oct_decode(q);
        if ((float)dq.x != g[0] || (float)dq.y != g[1] || (float)dq.z != g[2]) mismatches++;
    }
    fprintf(stderr, "oct: max angle error %.3g rad, length error %.3g, GLSL mismatches %d\n", emax, elen, mismatches);
    TU_CHECK_NEAR(emax, 0, 5e-5);
    TU_CHECK_NEAR(elen, 0, 1e-6);
    TU_CHECK(mismatches == 0);
    TU_CHECK(sinew_oct_encode(sinew_v3(0, 0, 0)) == SINEW_OCT_ZERO);
    TU_CHECK(sinew_oct_encode(sinew_v3(NAN, 0, 1)) == SINEW_OCT_ZERO);
    TU_CHECK(sinew_oct_encode(sinew_v3(INFINITY, 0, 1)) == SINEW_OCT_ZERO);
    sinew_vec3 z = sinew_oct_decode(SINEW_OCT_ZERO);
    TU_CHECK(z.x == 0 && z.y == 0 && z.z == 0);
    /* layout: +z is (0,0); +x has x = 32767 in the low half; -z folds to (32767, 32767) */
    TU_CHECK(sinew_oct_encode(sinew_v3(0, 0, 1)) == 0u);
    TU_CHECK(sinew_oct_encode(sinew_v3(1, 0, 0)) == 0x7fffu);
    TU_CHECK(sinew_oct_encode(sinew_v3(0, -1, 0)) == 0x80010000u);
    TU_CHECK(sinew_oct_encode(sinew_v3(0, 0, -1)) == 0x7fff7fffu);
}

/* mat4 inverse: random affine (scales 0.1..10, |t| <= 100) and random general
 * 4x4: |M inv(M) - I| < 1e-11 (condition <= ~1e3); singular and non-finite
 * matrices give SINEW_ERROR_SINGULAR. Also from_transform = T * R * S. */
static void test_mat4(tu_rng *rng)
{
    double e = 0, eg = 0, etrs = 0;
    sinew_mat4 eye = sinew_mat4_identity();
    for (int i = 0; i < 10000; i++) {
        sinew_transform t = { tu_random_vec3(rng, -100, 100), tu_random_quat(rng),
                              { tu_uniform(rng, 0.1, 10), tu_uniform(rng, 0.1, 10), tu_uniform(rng, 0.1, 10) } };
        if (i % 2) t.scale.y = -t.scale.y;
        sinew_mat4 m = sinew_mat4_from_transform(&t), inv;
        TU_CHECK_OK(sinew_mat4_inverse(&m, &inv));
        sinew_mat4 p = sinew_mat4_mul(&m, &inv);
        e = fmax(e, mat4_maxdiff(&p, &eye));
        /* T * R * S by explicit products */
        sinew_mat4 T = sinew_mat4_identity(), S = sinew_mat4_identity();
        T.m[3][0] = t.translation.x; T.m[3][1] = t.translation.y; T.m[3][2] = t.translation.z;
        S.m[0][0] = t.scale.x; S.m[1][1] = t.scale.y; S.m[2][2] = t.scale.z;
        sinew_mat4 R = sinew_mat4_from_rigid(t.rotation, sinew_v3(0, 0, 0));
        sinew_mat4 TR = sinew_mat4_mul(&T, &R), TRS = sinew_mat4_mul(&TR, &S);
        etrs = fmax(etrs, mat4_maxdiff(&TRS, &m));
        sinew_mat4 g;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) g.m[c][r] = tu_uniform(rng, -1, 1) + (c == r ? 3 : 0);
        if (sinew_mat4_inverse(&g, &inv) == SINEW_OK) {
            sinew_mat4 pg = sinew_mat4_mul(&inv, &g);
            eg = fmax(eg, mat4_maxdiff(&pg, &eye));
        } else {
            TU_CHECK(0);
        }
    }
    fprintf(stderr, "mat4 inverse: affine %.3g, general %.3g; from_transform %.3g\n", e, eg, etrs);
    TU_CHECK_NEAR(e, 0, 1e-11);
    TU_CHECK_NEAR(eg, 0, 1e-11);
    TU_CHECK_NEAR(etrs, 0, 1e-12);
    sinew_mat4 s = sinew_mat4_identity(), inv;
    s.m[1][1] = 0;
    TU_CHECK_RESULT(sinew_mat4_inverse(&s, &inv), SINEW_ERROR_SINGULAR);
    s = sinew_mat4_identity();
    s.m[2][0] = 1; s.m[2][1] = 1; s.m[2][2] = 0; s.m[1][0] = 1; s.m[0][1] = 0; s.m[0][0] = 0; /* col2 = col0+col1 */
    s.m[0][0] = 1; s.m[0][1] = 0; s.m[0][2] = 0; s.m[1][0] = 0; s.m[1][1] = 1; s.m[1][2] = 0;
    s.m[2][0] = 1; s.m[2][1] = 1; s.m[2][2] = 0;
    TU_CHECK_RESULT(sinew_mat4_inverse(&s, &inv), SINEW_ERROR_SINGULAR);
    s = sinew_mat4_identity();
    s.m[3][1] = NAN;
    TU_CHECK_RESULT(sinew_mat4_inverse(&s, &inv), SINEW_ERROR_SINGULAR);
    TU_CHECK(!sinew_mat4_is_finite(&s));
    s.m[3][1] = INFINITY;
    TU_CHECK_RESULT(sinew_mat4_inverse(&s, &inv), SINEW_ERROR_SINGULAR);
    TU_CHECK_RESULT(sinew_mat4_inverse(NULL, &inv), SINEW_ERROR_INVALID_ARGUMENT);
}

/* 3x3 helpers: cofactor = det(A) A^-T on random A (< 1e-13), defined on a
 * singular A (rank 2 -> cofactor rank 1, non-zero); orthonormality error of
 * diag(1, 1, 1.5) is exactly 1.25. */
static void test_mat3(tu_rng *rng)
{
    double e = 0;
    for (int i = 0; i < 1000; i++) {
        sinew_mat3 a;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) a.m[c][r] = tu_uniform(rng, -1, 1);
        sinew_mat3 cof = sinew_mat3_cofactor(&a);
        /* cof(A)^T A = det(A) I */
        sinew_mat3 ct = sinew_mat3_transpose(&cof);
        sinew_mat3 p = sinew_mat3_mul(&ct, &a);
        double d = sinew_mat3_det(&a);
        sinew_mat3 di = diag3(d, d, d);
        e = fmax(e, mat3_maxdiff(&p, &di));
    }
    TU_CHECK_NEAR(e, 0, 1e-13);
    sinew_mat3 sing = diag3(2, 3, 0);
    sinew_mat3 cs = sinew_mat3_cofactor(&sing);
    TU_CHECK_NEAR(cs.m[2][2], 6, 0);
    TU_CHECK_NEAR(cs.m[0][0], 0, 0);
    sinew_mat3 d = diag3(1, 1, 1.5);
    TU_CHECK_NEAR(sinew_mat3_orthonormality_error(&d), 1.25, 0);
    sinew_mat3 r = rand_rot(rng), rt = sinew_mat3_transpose(&r);
    sinew_mat3 rrt = sinew_mat3_mul(&r, &rt), id = sinew_mat3_identity();
    TU_CHECK_NEAR(mat3_maxdiff(&rrt, &id), 0, 1e-15);
    TU_CHECK_NEAR(sinew_mat3_det(&r), 1, 1e-15);
}

typedef struct polar_stats { double resid, ortho, det, sym, factor; int count; } polar_stats;

/* Decomposes a, checks residual/orthonormality/det/symmetry, and (when
 * expect_r is given) compares R and S with the expected factors. */
static void check_polar(const char *what, sinew_mat3 a, const sinew_mat3 *expect_r, const sinew_mat3 *expect_s,
                        polar_stats *st)
{
    sinew_mat3 r, s;
    TU_CHECK_OK(sinew_polar_decompose(&a, &r, &s));
    sinew_mat3 rs = sinew_mat3_mul(&r, &s);
    double scale = mat3_maxabs(&a);
    double res = scale > 0 ? mat3_maxdiff(&rs, &a) / scale : mat3_maxabs(&rs);
    double sym = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) sym = fmax(sym, fabs(s.m[i][j] - s.m[j][i]));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) TU_CHECK_MSG(isfinite(r.m[i][j]) && isfinite(s.m[i][j]), "%s", what);
    st->resid = fmax(st->resid, res);
    st->ortho = fmax(st->ortho, sinew_mat3_orthonormality_error(&r));
    st->det = fmax(st->det, fabs(sinew_mat3_det(&r) - 1));
    st->sym = fmax(st->sym, sym);
    if (expect_r) {
        double f = fmax(mat3_maxdiff(&r, expect_r), scale > 0 ? mat3_maxdiff(&s, expect_s) / scale : 0);
        st->factor = fmax(st->factor, f);
    }
    st->count++;
}

static void report_polar(const char *what, const polar_stats *st, double factor_tol)
{
    fprintf(stderr, "polar %-14s n=%5d: residual %.3g, ortho %.3g, |det R - 1| %.3g, asym %.3g, factors %.3g\n",
            what, st->count, st->resid, st->ortho, st->det, st->sym, st->factor);
    /* |A - R S| / max|A| < 1e-12; R orthonormal (< 1e-13) and proper; S exactly symmetric. */
    TU_CHECK_MSG(st->resid < 1e-12, "%s residual %.3g", what, st->resid);
    TU_CHECK_MSG(st->ortho < 1e-13, "%s ortho %.3g", what, st->ortho);
    TU_CHECK_MSG(st->det < 1e-13, "%s det %.3g", what, st->det);
    TU_CHECK_MSG(st->sym == 0, "%s asymmetry %.3g", what, st->sym);
    TU_CHECK_MSG(st->factor <= factor_tol, "%s factors %.3g > %.3g", what, st->factor, factor_tol);
}

static sinew_mat3 sym_from(sinew_mat3 v, double a, double b, double c)
{
    sinew_mat3 vt = sinew_mat3_transpose(&v);
    return mul3(mul3(v, diag3(a, b, c)), vt);
}

static void test_polar(tu_rng *rng)
{
    /* random entries in [-1, 1] (either sign of det) */
    polar_stats st = { 0 };
    int mirrored = 0, mirror_ok = 0;
    for (int i = 0; i < 20000; i++) {
        sinew_mat3 a;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) a.m[c][r] = tu_uniform(rng, -1, 1);
        check_polar("random", a, NULL, NULL, &st);
        if (sinew_mat3_det(&a) < 0) {
            sinew_mat3 r, s;
            sinew_polar_decompose(&a, &r, &s);
            mirrored++;
            mirror_ok += sinew_mat3_det(&s) < 0;
        }
    }
    report_polar("random", &st, 0);
    TU_CHECK(mirrored > 5000 && mirror_ok == mirrored); /* mirror policy: det S < 0 for det A < 0 */

    /* A = Q P with P SPD of known spectrum: R = Q and S = P (unique); error
     * bound ~ eps * condition number: uniform scale (cond 1), non-uniform
     * (cond <= 100), mirrored with the reflection on the smallest axis. */
    polar_stats su = { 0 }, sn = { 0 }, sm = { 0 }, sb = { 0 };
    for (int i = 0; i < 5000; i++) {
        sinew_mat3 q = rand_rot(rng), v = rand_rot(rng);
        double k = tu_uniform(rng, 0.01, 100);
        sinew_mat3 p = diag3(k, k, k);
        check_polar("uniform", mul3(q, p), &q, &p, &su);
        double s1 = tu_uniform(rng, 1, 10), s2 = tu_uniform(rng, 1, 10), s3 = tu_uniform(rng, 0.1, 0.9);
        p = sym_from(v, s1, s2, s3);
        check_polar("non-uniform", mul3(q, p), &q, &p, &sn);
        /* mirrored: the negative eigenvalue on the smallest singular value s3 */
        sinew_mat3 pm = sym_from(v, s1, s2, -s3);
        sinew_mat3 am = mul3(q, pm);
        TU_CHECK(sinew_mat3_det(&am) < 0);
        check_polar("mirrored", am, &q, &pm, &sm);
        /* axis-aligned scale in a rotated frame, huge and tiny magnitudes */
        double mag = (i & 1) ? 1e150 : 1e-150;
        sinew_mat3 pb = sym_from(v, s1 * mag, s2 * mag, s3 * mag);
        check_polar("huge/tiny", mul3(q, pb), &q, &pb, &sb);
    }
    report_polar("uniform", &su, 1e-13);
    report_polar("non-uniform", &sn, 1e-12);
    report_polar("mirrored", &sm, 1e-12);
    report_polar("huge/tiny", &sb, 1e-12);

    /* near-singular: sigma_min = 1e-9 (and 1e-14): residual stays < 1e-12 and R
     * stays a rotation; R is ill-determined so not compared. Mirror sign kept. */
    polar_stats sns = { 0 };
    int ns_mirror_ok = 0;
    for (int i = 0; i < 5000; i++) {
        sinew_mat3 u = rand_rot(rng), v = rand_rot(rng), vt = sinew_mat3_transpose(&v);
        double tinyv = (i % 2) ? 1e-9 : 1e-14;
        double sgn = (i % 4 < 2) ? 1 : -1;
        sinew_mat3 a = mul3(mul3(u, diag3(tu_uniform(rng, 0.5, 2), tu_uniform(rng, 0.5, 2), sgn * tinyv)), vt);
        check_polar("near-singular", a, NULL, NULL, &sns);
        sinew_mat3 r, s;
        sinew_polar_decompose(&a, &r, &s);
        double ds = sinew_mat3_det(&s), da = sinew_mat3_det(&a);
        ns_mirror_ok += (ds < 0) == (da < 0);
    }
    report_polar("near-singular", &sns, 0);
    TU_CHECK_MSG(ns_mirror_ok == 5000, "near-singular mirror sign kept in %d of 5000", ns_mirror_ok);

    /* exactly singular: a zero axis (rank 2), rank 1, the zero matrix */
    polar_stats ss = { 0 };
    for (int i = 0; i < 3000; i++) {
        sinew_mat3 u = rand_rot(rng), v = rand_rot(rng), vt = sinew_mat3_transpose(&v);
        sinew_mat3 a;
        if (i % 3 == 0) a = mul3(mul3(u, diag3(tu_uniform(rng, 0.5, 2), tu_uniform(rng, 0.5, 2), 0)), vt);
        else if (i % 3 == 1) a = mul3(mul3(u, diag3(tu_uniform(rng, 0.5, 2), 0, 0)), vt);
        else a = mul3(u, diag3(2, 0, 3)); /* a zero column, no rounding */
        check_polar("singular", a, NULL, NULL, &ss);
    }
    sinew_mat3 zero = diag3(0, 0, 0), eye = sinew_mat3_identity();
    check_polar("singular", zero, &eye, &zero, &ss);
    sinew_mat3 onecol = { { { 0, 0, 0 }, { 0, 0, 0 }, { 1, 2, 3 } } };
    check_polar("singular", onecol, NULL, NULL, &ss);
    report_polar("singular", &ss, 0);

    /* identity and a plain mirror diag(1,1,-1): R = I, S = A */
    polar_stats sx = { 0 };
    sinew_mat3 mir = diag3(2, 3, -1);
    check_polar("exact", eye, &eye, &eye, &sx);
    check_polar("exact", mir, &eye, &mir, &sx);
    report_polar("exact", &sx, 1e-15);

    /* non-finite input and NULLs */
    sinew_mat3 r, s, bad = eye;
    bad.m[1][2] = NAN;
    TU_CHECK_RESULT(sinew_polar_decompose(&bad, &r, &s), SINEW_ERROR_NON_FINITE);
    bad.m[1][2] = -INFINITY;
    TU_CHECK_RESULT(sinew_polar_decompose(&bad, &r, &s), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_polar_decompose(NULL, &r, &s), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_polar_decompose(&eye, NULL, &s), SINEW_ERROR_INVALID_ARGUMENT);
}

static void test_vec(void)
{
    sinew_vec3 a = sinew_v3(1, 2, 3), b = sinew_v3(-2, 0.5, 4);
    sinew_vec3 c = sinew_v3_cross(a, b);
    TU_CHECK_NEAR(sinew_v3_dot(c, a), 0, 1e-15);
    TU_CHECK_NEAR(sinew_v3_dot(c, b), 0, 1e-15);
    TU_CHECK_NEAR(sinew_v3_length(sinew_v3(3, 4, 0)), 5, 0);
    sinew_vec3 z = sinew_v3_normalize(sinew_v3(0, 0, 0));
    TU_CHECK(z.x == 0 && z.y == 0 && z.z == 0);
    sinew_vec3 n = sinew_v3_normalize(sinew_v3(0, 0, -7));
    TU_CHECK_NEAR(n.z, -1, 0);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5eed0001ull);
    test_result_strings();
    test_vec();
    test_dq_roundtrip(&rng);
    test_dq_product(&rng);
    test_quat(&rng);
    test_slerp(&rng);
    test_oct(&rng);
    test_mat4(&rng);
    test_mat3(&rng);
    test_polar(&rng);
    return tu_finish("test_math");
}
