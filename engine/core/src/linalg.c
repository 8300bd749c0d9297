/* Sinew CPU math in float64. See math.h for the conventions. */
#include "sinew/linalg.h"

#include <float.h>
#include <math.h>

/* ---- vectors ---- */
sinew_vec3 sinew_v3(double x, double y, double z) { sinew_vec3 v = { x, y, z }; return v; }
sinew_vec3 sinew_v3_add(sinew_vec3 a, sinew_vec3 b) { return sinew_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
sinew_vec3 sinew_v3_sub(sinew_vec3 a, sinew_vec3 b) { return sinew_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
sinew_vec3 sinew_v3_scale(sinew_vec3 a, double s) { return sinew_v3(a.x * s, a.y * s, a.z * s); }
double sinew_v3_dot(sinew_vec3 a, sinew_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
sinew_vec3 sinew_v3_cross(sinew_vec3 a, sinew_vec3 b)
{
    return sinew_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
double sinew_v3_length(sinew_vec3 a) { return sqrt(sinew_v3_dot(a, a)); }
sinew_vec3 sinew_v3_normalize(sinew_vec3 a)
{
    double l = sinew_v3_length(a);
    if (!(l > 0)) return sinew_v3(0, 0, 0);
    return sinew_v3(a.x / l, a.y / l, a.z / l);
}

/* ---- 4x4 ---- */
sinew_mat4 sinew_mat4_identity(void)
{
    sinew_mat4 m = { { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } } };
    return m;
}

sinew_mat4 sinew_mat4_mul(const sinew_mat4 *a, const sinew_mat4 *b)
{
    sinew_mat4 r;
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++)
            r.m[c][i] = a->m[0][i] * b->m[c][0] + a->m[1][i] * b->m[c][1] +
                        a->m[2][i] * b->m[c][2] + a->m[3][i] * b->m[c][3];
    return r;
}

bool sinew_mat4_is_finite(const sinew_mat4 *m)
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!isfinite(m->m[c][r])) return 0;
    return 1;
}

sinew_result sinew_mat4_inverse(const sinew_mat4 *a, sinew_mat4 *out)
{
    if (!a || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!sinew_mat4_is_finite(a)) return SINEW_ERROR_SINGULAR;
    /* Cofactor expansion on the flat column-major array (valid for either
     * storage order, since inv(A^T) = inv(A)^T). */
    const double *m = &a->m[0][0];
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (!isfinite(det) || fabs(det) < 1e-300) return SINEW_ERROR_SINGULAR;
    double *o = &out->m[0][0];
    for (int i = 0; i < 16; i++) o[i] = inv[i] / det;
    if (!sinew_mat4_is_finite(out)) return SINEW_ERROR_SINGULAR;
    return SINEW_OK;
}

sinew_vec3 sinew_mat4_transform_point(const sinew_mat4 *m, sinew_vec3 p)
{
    return sinew_v3(m->m[0][0] * p.x + m->m[1][0] * p.y + m->m[2][0] * p.z + m->m[3][0],
                    m->m[0][1] * p.x + m->m[1][1] * p.y + m->m[2][1] * p.z + m->m[3][1],
                    m->m[0][2] * p.x + m->m[1][2] * p.y + m->m[2][2] * p.z + m->m[3][2]);
}

sinew_vec3 sinew_mat4_transform_vector(const sinew_mat4 *m, sinew_vec3 v)
{
    return sinew_v3(m->m[0][0] * v.x + m->m[1][0] * v.y + m->m[2][0] * v.z,
                    m->m[0][1] * v.x + m->m[1][1] * v.y + m->m[2][1] * v.z,
                    m->m[0][2] * v.x + m->m[1][2] * v.y + m->m[2][2] * v.z);
}

sinew_mat4 sinew_mat4_from_transform(const sinew_transform *t)
{
    sinew_mat3 r = sinew_quat_to_mat3(t->rotation);
    const double s[3] = { t->scale.x, t->scale.y, t->scale.z };
    sinew_mat4 m;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++) m.m[c][i] = r.m[c][i] * s[c];
        m.m[c][3] = 0;
    }
    m.m[3][0] = t->translation.x;
    m.m[3][1] = t->translation.y;
    m.m[3][2] = t->translation.z;
    m.m[3][3] = 1;
    return m;
}

sinew_mat4 sinew_mat4_from_rigid(sinew_quat r, sinew_vec3 t)
{
    sinew_mat3 m3 = sinew_quat_to_mat3(r);
    return sinew_mat4_from_mat3(&m3, t);
}

sinew_mat3 sinew_mat4_upper3(const sinew_mat4 *m)
{
    sinew_mat3 r;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) r.m[c][i] = m->m[c][i];
    return r;
}

sinew_mat4 sinew_mat4_from_mat3(const sinew_mat3 *m, sinew_vec3 t)
{
    sinew_mat4 r;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++) r.m[c][i] = m->m[c][i];
        r.m[c][3] = 0;
    }
    r.m[3][0] = t.x;
    r.m[3][1] = t.y;
    r.m[3][2] = t.z;
    r.m[3][3] = 1;
    return r;
}

/* ---- 3x3 ---- */
sinew_mat3 sinew_mat3_identity(void)
{
    sinew_mat3 m = { { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } };
    return m;
}

sinew_mat3 sinew_mat3_mul(const sinew_mat3 *a, const sinew_mat3 *b)
{
    sinew_mat3 r;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++)
            r.m[c][i] = a->m[0][i] * b->m[c][0] + a->m[1][i] * b->m[c][1] + a->m[2][i] * b->m[c][2];
    return r;
}

sinew_mat3 sinew_mat3_transpose(const sinew_mat3 *a)
{
    sinew_mat3 r;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) r.m[c][i] = a->m[i][c];
    return r;
}

double sinew_mat3_det(const sinew_mat3 *a)
{
    const double(*m)[3] = a->m;
    return m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) -
           m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
           m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
}

sinew_mat3 sinew_mat3_cofactor(const sinew_mat3 *a)
{
    /* Column c of cof(A) is the cross product of the other two columns of A
     * (cyclically): cof(A) = det(A) A^-T. */
    sinew_vec3 c0 = sinew_v3(a->m[0][0], a->m[0][1], a->m[0][2]);
    sinew_vec3 c1 = sinew_v3(a->m[1][0], a->m[1][1], a->m[1][2]);
    sinew_vec3 c2 = sinew_v3(a->m[2][0], a->m[2][1], a->m[2][2]);
    sinew_vec3 k[3] = { sinew_v3_cross(c1, c2), sinew_v3_cross(c2, c0), sinew_v3_cross(c0, c1) };
    sinew_mat3 r;
    for (int c = 0; c < 3; c++) {
        r.m[c][0] = k[c].x;
        r.m[c][1] = k[c].y;
        r.m[c][2] = k[c].z;
    }
    return r;
}

sinew_vec3 sinew_mat3_mul_v3(const sinew_mat3 *a, sinew_vec3 v)
{
    return sinew_v3(a->m[0][0] * v.x + a->m[1][0] * v.y + a->m[2][0] * v.z,
                    a->m[0][1] * v.x + a->m[1][1] * v.y + a->m[2][1] * v.z,
                    a->m[0][2] * v.x + a->m[1][2] * v.y + a->m[2][2] * v.z);
}

double sinew_mat3_orthonormality_error(const sinew_mat3 *a)
{
    double e = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = a->m[i][0] * a->m[j][0] + a->m[i][1] * a->m[j][1] + a->m[i][2] * a->m[j][2];
            d -= (i == j) ? 1.0 : 0.0;
            if (!(fabs(d) <= e)) e = fabs(d); /* NaN propagates as NaN */
        }
    return e;
}

/* ---- polar decomposition ----
 * One-sided Jacobi SVD (Hestenes) of the scaled matrix: rotate pairs of
 * columns of W = A V until they are mutually orthogonal, accumulating the
 * rotations in V. Then sigma_i = |w_i|, u_i = w_i / sigma_i, and A = U Sigma V^T.
 * This has a tiny residual |A - W V^T| whatever the conditioning (no A^T A is
 * formed). U is made proper by construction (u3 = u1 x u2, u2 Gram-Schmidt'ed
 * against u1, with fallbacks for zero columns), V is made proper by flipping
 * its last column; the signed s3 = u3 . (A v3) then carries the reflection:
 *   R = U V^T (proper), S = V diag(s1, s2, s3) V^T (symmetric). */
static sinew_vec3 col3(const sinew_mat3 *m, int c) { return sinew_v3(m->m[c][0], m->m[c][1], m->m[c][2]); }
static void set_col3(sinew_mat3 *m, int c, sinew_vec3 v) { m->m[c][0] = v.x; m->m[c][1] = v.y; m->m[c][2] = v.z; }

static sinew_vec3 any_perpendicular(sinew_vec3 u)
{
    /* Cross with the axis least aligned with u. */
    double ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
    sinew_vec3 e = (ax <= ay && ax <= az) ? sinew_v3(1, 0, 0) : (ay <= az ? sinew_v3(0, 1, 0) : sinew_v3(0, 0, 1));
    return sinew_v3_normalize(sinew_v3_cross(u, e));
}

sinew_result sinew_polar_decompose(const sinew_mat3 *a, sinew_mat3 *r, sinew_mat3 *s)
{
    if (!a || !r || !s) return SINEW_ERROR_INVALID_ARGUMENT;
    double amax = 0;
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < 3; i++) {
            double v = a->m[c][i];
            if (!isfinite(v)) return SINEW_ERROR_NON_FINITE;
            if (fabs(v) > amax) amax = fabs(v);
        }
    if (amax == 0) {
        *r = sinew_mat3_identity();
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < 3; i++) s->m[c][i] = 0;
        return SINEW_OK;
    }
    /* Scale so the largest element is 1 (no overflow in the sums of squares). */
    sinew_vec3 w[3];
    for (int c = 0; c < 3; c++) w[c] = sinew_v3(a->m[c][0] / amax, a->m[c][1] / amax, a->m[c][2] / amax);
    sinew_vec3 v[3] = { sinew_v3(1, 0, 0), sinew_v3(0, 1, 0), sinew_v3(0, 0, 1) };

    static const int pairs[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
    const double tol = 4.0 * DBL_EPSILON;
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int k = 0; k < 3; k++) {
            int i = pairs[k][0], j = pairs[k][1];
            double alpha = sinew_v3_dot(w[i], w[i]);
            double beta = sinew_v3_dot(w[j], w[j]);
            double gamma = sinew_v3_dot(w[i], w[j]);
            if (alpha == 0 || beta == 0 || gamma == 0) continue;
            if (fabs(gamma) <= tol * sqrt(alpha) * sqrt(beta)) continue;
            double zeta = (beta - alpha) / (2.0 * gamma);
            double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + hypot(1.0, zeta));
            double cs = 1.0 / sqrt(1.0 + t * t), sn = cs * t;
            if (sn == 0) continue;
            sinew_vec3 wi = w[i], wj = w[j], vi = v[i], vj = v[j];
            w[i] = sinew_v3_sub(sinew_v3_scale(wi, cs), sinew_v3_scale(wj, sn));
            w[j] = sinew_v3_add(sinew_v3_scale(wi, sn), sinew_v3_scale(wj, cs));
            v[i] = sinew_v3_sub(sinew_v3_scale(vi, cs), sinew_v3_scale(vj, sn));
            v[j] = sinew_v3_add(sinew_v3_scale(vi, sn), sinew_v3_scale(vj, cs));
            rotated = 1;
        }
        if (!rotated) break;
    }
    /* Sort by decreasing singular value. */
    double sig[3];
    for (int c = 0; c < 3; c++) sig[c] = sinew_v3_length(w[c]);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2 - i; j++)
            if (sig[j] < sig[j + 1]) {
                double ts = sig[j]; sig[j] = sig[j + 1]; sig[j + 1] = ts;
                sinew_vec3 tw = w[j]; w[j] = w[j + 1]; w[j + 1] = tw;
                sinew_vec3 tv = v[j]; v[j] = v[j + 1]; v[j + 1] = tv;
            }
    /* Make V proper (rotations keep det V = +1; the sort may have swapped columns). */
    if (sinew_v3_dot(v[0], sinew_v3_cross(v[1], v[2])) < 0) {
        v[2] = sinew_v3_scale(v[2], -1);
        w[2] = sinew_v3_scale(w[2], -1);
    }
    /* Proper U: u1 from w1, u2 from w2 orthogonalized, u3 = u1 x u2. */
    const double tiny = 1e-280;
    sinew_vec3 u0, u1, u2;
    u0 = sinew_v3_scale(w[0], 1.0 / sig[0]); /* sig[0] > 0: amax > 0 */
    u0 = sinew_v3_normalize(u0);
    u1 = sinew_v3(0, 0, 0);
    if (sig[1] > tiny) {
        u1 = sinew_v3_scale(w[1], 1.0 / sig[1]);
        u1 = sinew_v3_sub(u1, sinew_v3_scale(u0, sinew_v3_dot(u0, u1)));
        if (sinew_v3_length(u1) < 0.5) u1 = sinew_v3(0, 0, 0);
        else u1 = sinew_v3_normalize(u1);
    }
    if (sinew_v3_length(u1) == 0) u1 = any_perpendicular(u0);
    u2 = sinew_v3_normalize(sinew_v3_cross(u0, u1));
    double d[3] = { sig[0], sig[1], sinew_v3_dot(u2, w[2]) };

    sinew_mat3 um, vm;
    set_col3(&um, 0, u0); set_col3(&um, 1, u1); set_col3(&um, 2, u2);
    set_col3(&vm, 0, v[0]); set_col3(&vm, 1, v[1]); set_col3(&vm, 2, v[2]);
    sinew_mat3 vt = sinew_mat3_transpose(&vm);
    *r = sinew_mat3_mul(&um, &vt);
    /* S = V diag(d) V^T, built symmetric element by element, scaled back. */
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += vm.m[k][i] * d[k] * vm.m[k][j];
            acc *= amax;
            s->m[i][j] = acc;
            s->m[j][i] = acc;
        }
    (void)col3;
    return SINEW_OK;
}

/* ---- quaternions ---- */
static sinew_quat q4(double x, double y, double z, double w) { sinew_quat q = { x, y, z, w }; return q; }
sinew_quat sinew_quat_identity(void) { return q4(0, 0, 0, 1); }

sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b)
{
    return q4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
              a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

sinew_quat sinew_quat_conjugate(sinew_quat q) { return q4(-q.x, -q.y, -q.z, q.w); }

static double qdot(sinew_quat a, sinew_quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static sinew_quat qscale(sinew_quat a, double s) { return q4(a.x * s, a.y * s, a.z * s, a.w * s); }
static sinew_quat qadd(sinew_quat a, sinew_quat b) { return q4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

sinew_quat sinew_quat_normalize(sinew_quat q)
{
    double n = sqrt(qdot(q, q));
    if (!(n > 0) || !isfinite(n)) return sinew_quat_identity();
    return qscale(q, 1.0 / n);
}

sinew_quat sinew_quat_from_axis_angle(sinew_vec3 axis, double radians)
{
    sinew_vec3 a = sinew_v3_normalize(axis);
    double s = sin(0.5 * radians);
    return q4(a.x * s, a.y * s, a.z * s, cos(0.5 * radians));
}

sinew_quat sinew_quat_from_mat3(const sinew_mat3 *r)
{
    /* R(row, col) = r->m[col][row]. Shepperd: take the largest of 4w^2, 4x^2,
     * 4y^2, 4z^2 (from the trace and the diagonal) as the pivot. */
    double r00 = r->m[0][0], r11 = r->m[1][1], r22 = r->m[2][2];
    double r01 = r->m[1][0], r10 = r->m[0][1];
    double r02 = r->m[2][0], r20 = r->m[0][2];
    double r12 = r->m[2][1], r21 = r->m[1][2];
    double tr = r00 + r11 + r22;
    sinew_quat q;
    if (tr >= r00 && tr >= r11 && tr >= r22) {
        double w = 0.5 * sqrt(fmax(1.0 + tr, 0.0));
        double f = 0.25 / w;
        q = q4((r21 - r12) * f, (r02 - r20) * f, (r10 - r01) * f, w);
    } else if (r00 >= r11 && r00 >= r22) {
        double x = 0.5 * sqrt(fmax(1.0 + r00 - r11 - r22, 0.0));
        double f = 0.25 / x;
        q = q4(x, (r01 + r10) * f, (r02 + r20) * f, (r21 - r12) * f);
    } else if (r11 >= r22) {
        double y = 0.5 * sqrt(fmax(1.0 - r00 + r11 - r22, 0.0));
        double f = 0.25 / y;
        q = q4((r01 + r10) * f, y, (r12 + r21) * f, (r02 - r20) * f);
    } else {
        double z = 0.5 * sqrt(fmax(1.0 - r00 - r11 + r22, 0.0));
        double f = 0.25 / z;
        q = q4((r02 + r20) * f, (r12 + r21) * f, z, (r10 - r01) * f);
    }
    if (q.w < 0) q = qscale(q, -1);
    return sinew_quat_normalize(q);
}

sinew_mat3 sinew_quat_to_mat3(sinew_quat q)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    sinew_mat3 m;
    m.m[0][0] = 1 - 2 * (y * y + z * z);
    m.m[0][1] = 2 * (x * y + w * z);
    m.m[0][2] = 2 * (x * z - w * y);
    m.m[1][0] = 2 * (x * y - w * z);
    m.m[1][1] = 1 - 2 * (x * x + z * z);
    m.m[1][2] = 2 * (y * z + w * x);
    m.m[2][0] = 2 * (x * z + w * y);
    m.m[2][1] = 2 * (y * z - w * x);
    m.m[2][2] = 1 - 2 * (x * x + y * y);
    return m;
}

sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v)
{
    /* v' = v + 2w (q x v) + 2 q x (q x v), q = (x, y, z) unit */
    sinew_vec3 u = sinew_v3(q.x, q.y, q.z);
    sinew_vec3 t = sinew_v3_scale(sinew_v3_cross(u, v), 2.0);
    return sinew_v3_add(sinew_v3_add(v, sinew_v3_scale(t, q.w)), sinew_v3_cross(u, t));
}

sinew_quat sinew_quat_slerp(sinew_quat a, sinew_quat b, double t)
{
    double d = qdot(a, b);
    if (d < 0) { b = qscale(b, -1); d = -d; }
    if (d > 0.9995) /* nearly parallel: normalized lerp is accurate */
        return sinew_quat_normalize(qadd(qscale(a, 1 - t), qscale(b, t)));
    double theta = acos(d > 1 ? 1 : d);
    double s = sin(theta);
    return sinew_quat_normalize(qadd(qscale(a, sin((1 - t) * theta) / s), qscale(b, sin(t * theta) / s)));
}

/* ---- unit dual quaternions ---- */
sinew_dualquat sinew_dq_identity(void)
{
    sinew_dualquat d = { q4(0, 0, 0, 1), q4(0, 0, 0, 0) };
    return d;
}

sinew_dualquat sinew_dq_from_rigid(sinew_quat r, sinew_vec3 t)
{
    sinew_dualquat d;
    d.real = r;
    d.dual = qscale(sinew_quat_mul(q4(t.x, t.y, t.z, 0), r), 0.5);
    return d;
}

sinew_dualquat sinew_dq_from_mat4(const sinew_mat4 *m)
{
    sinew_mat3 r = sinew_mat4_upper3(m);
    return sinew_dq_from_rigid(sinew_quat_from_mat3(&r), sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]));
}

sinew_vec3 sinew_dq_translation(sinew_dualquat dq)
{
    sinew_quat t = sinew_quat_mul(dq.dual, sinew_quat_conjugate(dq.real));
    return sinew_v3(2 * t.x, 2 * t.y, 2 * t.z);
}

sinew_mat4 sinew_dq_to_mat4(sinew_dualquat dq)
{
    return sinew_mat4_from_rigid(dq.real, sinew_dq_translation(dq));
}

sinew_dualquat sinew_dq_mul(sinew_dualquat a, sinew_dualquat b)
{
    sinew_dualquat r;
    r.real = sinew_quat_mul(a.real, b.real);
    r.dual = qadd(sinew_quat_mul(a.real, b.dual), sinew_quat_mul(a.dual, b.real));
    return r;
}

sinew_dualquat sinew_dq_conjugate(sinew_dualquat dq)
{
    sinew_dualquat r = { sinew_quat_conjugate(dq.real), sinew_quat_conjugate(dq.dual) };
    return r;
}

sinew_dualquat sinew_dq_normalize(sinew_dualquat dq)
{
    double n = sqrt(qdot(dq.real, dq.real));
    if (!(n > 0) || !isfinite(n)) return sinew_dq_identity();
    sinew_dualquat r;
    r.real = qscale(dq.real, 1.0 / n);
    r.dual = qscale(dq.dual, 1.0 / n);
    r.dual = qadd(r.dual, qscale(r.real, -qdot(r.real, r.dual)));
    return r;
}

sinew_vec3 sinew_dq_transform_point(sinew_dualquat dq, sinew_vec3 p)
{
    return sinew_v3_add(sinew_quat_rotate(dq.real, p), sinew_dq_translation(dq));
}

sinew_vec3 sinew_dq_transform_normal(sinew_dualquat dq, sinew_vec3 n)
{
    return sinew_quat_rotate(dq.real, n);
}

/* ---- octahedral normals ---- */
#define OCT_ZERO SINEW_OCT_ZERO

sinew_vec3 sinew_oct_decode(uint32_t packed)
{
    if (packed == OCT_ZERO) return sinew_v3(0, 0, 0);
    /* Step 1: unpackSnorm2x16 (float). */
    int16_t qx = (int16_t)(uint16_t)(packed & 0xffffu);
    int16_t qy = (int16_t)(uint16_t)(packed >> 16);
    float fx = (float)qx / 32767.0f, fy = (float)qy / 32767.0f;
    fx = fx < -1.0f ? -1.0f : (fx > 1.0f ? 1.0f : fx);
    fy = fy < -1.0f ? -1.0f : (fy > 1.0f ? 1.0f : fy);
    /* Step 2: octahedral unfold. */
    float nx = fx, ny = fy;
    float nz = 1.0f - fabsf(fx) - fabsf(fy);
    float t = -nz > 0.0f ? -nz : 0.0f;
    nx += nx >= 0.0f ? -t : t;
    ny += ny >= 0.0f ? -t : t;
    /* Step 3: normalize as n / sqrt(dot(n, n)). */
    float len = sqrtf(nx * nx + ny * ny + nz * nz);
    return sinew_v3((double)(nx / len), (double)(ny / len), (double)(nz / len));
}

static int16_t snorm16(double f)
{
    if (f > 1) f = 1;
    if (f < -1) f = -1;
    return (int16_t)lrint(f * 32767.0);
}

uint32_t sinew_oct_encode(sinew_vec3 n)
{
    if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z)) return OCT_ZERO;
    double l1 = fabs(n.x) + fabs(n.y) + fabs(n.z);
    if (!(l1 > 0) || !isfinite(l1)) return OCT_ZERO;
    double px = n.x / l1, py = n.y / l1;
    if (n.z < 0) {
        double ox = px, oy = py;
        px = (1.0 - fabs(oy)) * (ox >= 0 ? 1.0 : -1.0);
        py = (1.0 - fabs(ox)) * (oy >= 0 ? 1.0 : -1.0);
    }
    /* Try the four neighbouring grid points and keep the one whose decode
     * is closest to n (the encoder never emits -32768, so OCT_ZERO is free). */
    sinew_vec3 nn = sinew_v3_normalize(n);
    double bx = floor(px * 32767.0), by = floor(py * 32767.0);
    /* Closeness is |n x d| (with n . d > 0): 1 - n.d would drown in the
     * float32 rounding of the decode. */
    uint32_t best = 0;
    double best_err = 1e300;
    for (int i = 0; i < 4; i++) {
        int16_t qx = snorm16((bx + (i & 1)) / 32767.0);
        int16_t qy = snorm16((by + (i >> 1)) / 32767.0);
        uint32_t p = (uint32_t)(uint16_t)qx | ((uint32_t)(uint16_t)qy << 16);
        sinew_vec3 d = sinew_oct_decode(p);
        sinew_vec3 c = sinew_v3_cross(d, nn);
        double err = sinew_v3_dot(d, nn) > 0 ? sinew_v3_dot(c, c) : 1e299;
        if (err < best_err) { best_err = err; best = p; }
    }
    return best;
}
