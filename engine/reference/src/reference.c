/* Sinew float64 reference skinner: the algorithm of reference.h, step by step. */
#include <sinew/linalg.h>
#include "sinew/reference.h"
#include "sinew_layout.h" /* shaders/: SINEW_BULGE_INNER_RAMP, shared with the kernels */

#include <math.h>

typedef struct v3 { double x, y, z; } v3;

static v3 cross(v3 a, v3 b)
{
    v3 c = { a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
    return c;
}

/* Step 1: blended 3x4 A (A[col][row], col 3 = translation) applied to p and n. */
static void lbs_apply(const double a[4][3], v3 p, v3 n, v3 *po, v3 *no)
{
    /* columns of the 3x3 */
    v3 c0 = { a[0][0], a[0][1], a[0][2] }, c1 = { a[1][0], a[1][1], a[1][2] }, c2 = { a[2][0], a[2][1], a[2][2] };
    /* cof(A) = det(A) A^-T has columns c1 x c2, c2 x c0, c0 x c1 */
    v3 k0 = cross(c1, c2), k1 = cross(c2, c0), k2 = cross(c0, c1);
    double det = c0.x * k0.x + c0.y * k0.y + c0.z * k0.z;
    v3 m, r;
    double len, s;
    r.x = a[0][0] * p.x + a[1][0] * p.y + a[2][0] * p.z + a[3][0];
    r.y = a[0][1] * p.x + a[1][1] * p.y + a[2][1] * p.z + a[3][1];
    r.z = a[0][2] * p.x + a[1][2] * p.y + a[2][2] * p.z + a[3][2];
    *po = r;
    m.x = k0.x * n.x + k1.x * n.y + k2.x * n.z;
    m.y = k0.y * n.x + k1.y * n.y + k2.y * n.z;
    m.z = k0.z * n.x + k1.z * n.y + k2.z * n.z;
    len = sqrt(m.x * m.x + m.y * m.y + m.z * m.z);
    if (!(len >= 1e-30)) { no->x = no->y = no->z = 0.0; return; }
    s = (det < 0.0 ? -1.0 : 1.0) / len;
    no->x = m.x * s; no->y = m.y * s; no->z = m.z * s;
}

/* Blends the rows of the chosen 4x4 (skin or scale) into a 3x4. */
static void lbs_blend(const sinew_palette_joint *pal, const uint16_t *joints, const double *w, int K,
                      int use_scale, double a[4][3])
{
    for (int c = 0; c < 4; c++) for (int r = 0; r < 3; r++) a[c][r] = 0.0;
    for (int k = 0; k < K; k++) {
        const sinew_mat4 *m;
        if (w[k] == 0.0) continue;
        m = use_scale ? &pal[joints[k]].scale : &pal[joints[k]].skin;
        for (int c = 0; c < 4; c++) for (int r = 0; r < 3; r++) a[c][r] += w[k] * m->m[c][r];
    }
}

/* Step 2: sign-aligned dual quaternion blend applied to p and n. */
static void dqs_apply(const sinew_palette_joint *pal, const uint16_t *joints, const double *w, int K,
                      v3 p, v3 n, v3 *po, v3 *no)
{
    const sinew_quat q0 = pal[joints[0]].rigid.real;
    double br[4] = { 0, 0, 0, 0 }, bd[4] = { 0, 0, 0, 0 }, len, inv;
    v3 rv, dv, t, u, np;
    double rw, dw, nl;
    for (int k = 0; k < K; k++) {
        const sinew_dualquat *q;
        double wk = w[k];
        if (wk == 0.0) continue;
        q = &pal[joints[k]].rigid;
        if (q->real.x * q0.x + q->real.y * q0.y + q->real.z * q0.z + q->real.w * q0.w < 0.0) wk = -wk;
        br[0] += wk * q->real.x; br[1] += wk * q->real.y; br[2] += wk * q->real.z; br[3] += wk * q->real.w;
        bd[0] += wk * q->dual.x; bd[1] += wk * q->dual.y; bd[2] += wk * q->dual.z; bd[3] += wk * q->dual.w;
    }
    len = sqrt(br[0] * br[0] + br[1] * br[1] + br[2] * br[2] + br[3] * br[3]);
    inv = 1.0 / len;                       /* len >= w_0 > 0 for a vertex with weight */
    rv.x = br[0] * inv; rv.y = br[1] * inv; rv.z = br[2] * inv; rw = br[3] * inv;
    dv.x = bd[0] * inv; dv.y = bd[1] * inv; dv.z = bd[2] * inv; dw = bd[3] * inv;
    /* p' = p + 2 r x (r x p + w p) + 2 (w d - dw r + r x d) */
    u = cross(rv, p);
    u.x += rw * p.x; u.y += rw * p.y; u.z += rw * p.z;
    u = cross(rv, u);
    t = cross(rv, dv);
    po->x = p.x + 2.0 * u.x + 2.0 * (rw * dv.x - dw * rv.x + t.x);
    po->y = p.y + 2.0 * u.y + 2.0 * (rw * dv.y - dw * rv.y + t.y);
    po->z = p.z + 2.0 * u.z + 2.0 * (rw * dv.z - dw * rv.z + t.z);
    u = cross(rv, n);
    u.x += rw * n.x; u.y += rw * n.y; u.z += rw * n.z;
    u = cross(rv, u);
    np.x = n.x + 2.0 * u.x; np.y = n.y + 2.0 * u.y; np.z = n.z + 2.0 * u.z;
    nl = sqrt(np.x * np.x + np.y * np.y + np.z * np.z);
    if (!(nl >= 1e-30)) { no->x = no->y = no->z = 0.0; return; }
    no->x = np.x / nl; no->y = np.y / nl; no->z = np.z / nl;
}

/* Rotation of the CoR methods: the sign-aligned blend of the rigid.real
 * quaternions (as step 2), normalized (xyzw). */
static void cor_rotation(const sinew_palette_joint *pal, const uint16_t *joints, const double *w, int K, double r[4])
{
    const sinew_quat q0 = pal[joints[0]].rigid.real;
    double b[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < K; k++) {
        const sinew_quat *q;
        double wk = w[k];
        if (wk == 0.0) continue;
        q = &pal[joints[k]].rigid.real;
        if (q->x * q0.x + q->y * q0.y + q->z * q0.z + q->w * q0.w < 0.0) wk = -wk;
        b[0] += wk * q->x; b[1] += wk * q->y; b[2] += wk * q->z; b[3] += wk * q->w;
    }
    double len = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    for (int i = 0; i < 4; i++) r[i] = b[i] / len; /* len >= w_0 > 0 */
}

/* v + 2 r.xyz x (r.xyz x v + r.w v): v rotated by the unit quaternion r. */
static v3 quat_rotate(const double r[4], v3 v)
{
    v3 rv = { r[0], r[1], r[2] }, u = cross(rv, v);
    u.x += r[3] * v.x; u.y += r[3] * v.y; u.z += r[3] * v.z;
    u = cross(rv, u);
    v3 o = { v.x + 2.0 * u.x, v.y + 2.0 * u.y, v.z + 2.0 * u.z };
    return o;
}

static v3 unit_or_zero(v3 v)
{
    double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    v3 z = { 0, 0, 0 };
    if (!(l >= 1e-30)) return z;
    v.x /= l; v.y /= l; v.z /= l;
    return v;
}

/* Steps 5 and 6: CoR about the center c (after the scale stage for COR_SCALE). */
static void cor_apply(const sinew_palette_joint *pal, const uint16_t *joints, const double *w, int K, int scale,
                      v3 p, v3 n, v3 c, v3 *po, v3 *no)
{
    double a[4][3], r[4];
    v3 cm;
    if (!scale) {
        lbs_blend(pal, joints, w, K, 0, a);
        cm.x = a[0][0] * c.x + a[1][0] * c.y + a[2][0] * c.z + a[3][0];
        cm.y = a[0][1] * c.x + a[1][1] * c.y + a[2][1] * c.z + a[3][1];
        cm.z = a[0][2] * c.x + a[1][2] * c.y + a[2][2] * c.z + a[3][2];
    } else {
        v3 c1, dummy, zero = { 0, 0, 0 };
        lbs_blend(pal, joints, w, K, 1, a);
        lbs_apply((const double(*)[3])a, p, n, &p, &n);
        lbs_apply((const double(*)[3])a, c, zero, &c1, &dummy);
        c = c1;
        /* c' = sum_k w_k R_k c1, each R_k applied as its unit dual quaternion */
        cm.x = cm.y = cm.z = 0.0;
        for (int k = 0; k < K; k++) {
            if (w[k] == 0.0) continue;
            const sinew_dualquat *q = &pal[joints[k]].rigid;
            double rq[4] = { q->real.x, q->real.y, q->real.z, q->real.w };
            v3 rv = { q->real.x, q->real.y, q->real.z }, dv = { q->dual.x, q->dual.y, q->dual.z };
            v3 x = quat_rotate(rq, c), t = cross(rv, dv);
            cm.x += w[k] * (x.x + 2.0 * (q->real.w * dv.x - q->dual.w * rv.x + t.x));
            cm.y += w[k] * (x.y + 2.0 * (q->real.w * dv.y - q->dual.w * rv.y + t.y));
            cm.z += w[k] * (x.z + 2.0 * (q->real.w * dv.z - q->dual.w * rv.z + t.z));
        }
    }
    cor_rotation(pal, joints, w, K, r);
    v3 d = { p.x - c.x, p.y - c.y, p.z - c.z };
    v3 rd = quat_rotate(r, d);
    po->x = rd.x + cm.x; po->y = rd.y + cm.y; po->z = rd.z + cm.z;
    *no = unit_or_zero(quat_rotate(r, n));
}

/* Width, in 1 - f, of the band where the bulge normal is blended in (reference.h). */
#define SINEW_BULGE_NORMAL_BAND 0.0625
/* Largest length of the carried rest-distance gradient g, smallest ratio f used for
 * the normal (reference.h step 4). */
#define SINEW_BULGE_GRADIENT_MAX 4.0
#define SINEW_BULGE_NORMAL_FMIN 0.125

static double dot3(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* x mapped back by the inverse of the major joint's transform X_m as the palette
 * holds it (LBS: the skin rows; DQS: the unit dual quaternion; DQS with scale: the
 * dual quaternion R_m, then the scale rows S_m, X_m = R_m S_m). Returns 0 when the
 * 3x3 to invert has det 0 (or not finite). */
static int major_inverse(const sinew_palette_joint *pj, sinew_method method, v3 x, v3 *out)
{
    const sinew_mat4 *m;
    if (method != SINEW_METHOD_LBS) {
        /* rigid inverse: R^-1 (x - t), t = 2 (w d - dw r + r x d) of the unit DQ */
        v3 r = { pj->rigid.real.x, pj->rigid.real.y, pj->rigid.real.z }, d = { pj->rigid.dual.x, pj->rigid.dual.y, pj->rigid.dual.z };
        double w = pj->rigid.real.w, dw = pj->rigid.dual.w;
        v3 rd = cross(r, d), y, u, nr = { -r.x, -r.y, -r.z };
        y.x = x.x - 2.0 * (w * d.x - dw * r.x + rd.x);
        y.y = x.y - 2.0 * (w * d.y - dw * r.y + rd.y);
        y.z = x.z - 2.0 * (w * d.z - dw * r.z + rd.z);
        u = cross(nr, y);
        u.x += w * y.x; u.y += w * y.y; u.z += w * y.z;
        u = cross(nr, u);
        x.x = y.x + 2.0 * u.x; x.y = y.y + 2.0 * u.y; x.z = y.z + 2.0 * u.z;
        if (method == SINEW_METHOD_DQS) { *out = x; return 1; }
        m = &pj->scale;
    } else {
        m = &pj->skin;
    }
    {
        v3 c0 = { m->m[0][0], m->m[0][1], m->m[0][2] }, c1 = { m->m[1][0], m->m[1][1], m->m[1][2] };
        v3 c2 = { m->m[2][0], m->m[2][1], m->m[2][2] };
        v3 k0 = cross(c1, c2), k1 = cross(c2, c0), k2 = cross(c0, c1);
        double det = dot3(c0, k0);
        v3 y = { x.x - m->m[3][0], x.y - m->m[3][1], x.z - m->m[3][2] };
        if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
        out->x = dot3(k0, y) / det; out->y = dot3(k1, y) / det; out->z = dot3(k2, y) / det;
        return 1;
    }
}

/* Rest radial direction of a vertex (step 4): the unit vector from the closest point
 * of its major joint's rest segment (the posed segment mapped back by major_inverse)
 * to the rest position, the gradient of the rest distance; (0,0,0) when it cannot
 * be formed (singular transform, or a vertex within 1e-30 of its bone). *u_out: the
 * unit rest bone direction (0 if the segment has length 0), *inside_out: 1 when the
 * closest point lies strictly inside the segment, 0 at or beyond its ends. */
static v3 rest_radial(const sinew_palette_joint *pj, sinew_method method, v3 p, v3 *u_out, double *inside_out)
{
    v3 a, b, ab, g = { 0, 0, 0 };
    v3 ha = { pj->seg_head.x, pj->seg_head.y, pj->seg_head.z }, tb = { pj->seg_tail.x, pj->seg_tail.y, pj->seg_tail.z };
    double ll, t;
    u_out->x = u_out->y = u_out->z = 0.0;
    *inside_out = 0.0;
    if (!major_inverse(pj, method, ha, &a) || !major_inverse(pj, method, tb, &b)) return g;
    ab.x = b.x - a.x; ab.y = b.y - a.y; ab.z = b.z - a.z;
    ll = dot3(ab, ab);
    t = ll > 0.0 ? ((p.x - a.x) * ab.x + (p.y - a.y) * ab.y + (p.z - a.z) * ab.z) / ll : 0.0;
    if (ll > 0.0) {
        double il = 1.0 / sqrt(ll);
        u_out->x = ab.x * il; u_out->y = ab.y * il; u_out->z = ab.z * il;
        *inside_out = (t > 0.0 && t < 1.0) ? 1.0 : 0.0;
    }
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    g.x = p.x - (a.x + t * ab.x); g.y = p.y - (a.y + t * ab.y); g.z = p.z - (a.z + t * ab.z);
    ll = sqrt(dot3(g, g));
    if (!(ll >= 1e-30)) { g.x = g.y = g.z = 0.0; return g; }
    g.x /= ll; g.y /= ll; g.z /= ll;
    return g;
}

/* The major joint's scale along the rest radial direction (step 4): sigma = |A_m g|
 * with A_m the 3x3 of the stage that carries scale (LBS: skin_m; DQS with scale and
 * COR_SCALE: scale_m; DQS and COR: sigma = 1), and the rest gradient of the target
 * distance D = d0 sigma written to *grad (in place of g): sigma g + P (A^T A g) / sigma,
 * P = I - inside u u^T - g g^T. g = 0 (no rest direction): sigma = 1, grad = 0. */
static double major_sigma(const sinew_palette_joint *pj, sinew_method method, v3 g, v3 u, double inside, v3 *grad)
{
    const sinew_mat4 *m;
    v3 ag, atag;
    double sigma, pu, pg;
    *grad = g;
    if (method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR) return 1.0;
    if (!(dot3(g, g) > 0.0)) return 1.0;
    m = method == SINEW_METHOD_LBS ? &pj->skin : &pj->scale;
    ag.x = m->m[0][0] * g.x + m->m[1][0] * g.y + m->m[2][0] * g.z;
    ag.y = m->m[0][1] * g.x + m->m[1][1] * g.y + m->m[2][1] * g.z;
    ag.z = m->m[0][2] * g.x + m->m[1][2] * g.y + m->m[2][2] * g.z;
    sigma = sqrt(dot3(ag, ag));
    atag.x = m->m[0][0] * ag.x + m->m[0][1] * ag.y + m->m[0][2] * ag.z;
    atag.y = m->m[1][0] * ag.x + m->m[1][1] * ag.y + m->m[1][2] * ag.z;
    atag.z = m->m[2][0] * ag.x + m->m[2][1] * ag.y + m->m[2][2] * ag.z;
    /* P (A^T A g) / sigma; 0 when sigma is 0 (then A g = 0 and so A^T A g = 0) */
    pu = inside * dot3(u, atag);
    pg = dot3(g, atag);
    {
        double is = sigma > 1e-30 ? 1.0 / sigma : 0.0;
        grad->x = sigma * g.x + (atag.x - pu * u.x - pg * g.x) * is;
        grad->y = sigma * g.y + (atag.y - pu * u.y - pg * g.y) * is;
        grad->z = sigma * g.z + (atag.z - pu * u.z - pg * g.z) * is;
    }
    return sigma;
}

/* A gradient (covector) g through a blended 3x4 a: A^-T g = cof(A) g / det(A); 0 if det is 0. */
static v3 lbs_gradient(const double a[4][3], v3 g)
{
    v3 c0 = { a[0][0], a[0][1], a[0][2] }, c1 = { a[1][0], a[1][1], a[1][2] }, c2 = { a[2][0], a[2][1], a[2][2] };
    v3 k0 = cross(c1, c2), k1 = cross(c2, c0), k2 = cross(c0, c1), m = { 0, 0, 0 };
    double det = dot3(c0, k0);
    if (!(fabs(det) > 0.0)) return m;
    m.x = (k0.x * g.x + k1.x * g.y + k2.x * g.z) / det;
    m.y = (k0.y * g.x + k1.y * g.y + k2.y * g.z) / det;
    m.z = (k0.z * g.x + k1.z * g.y + k2.z * g.z) / det;
    return m;
}

/* g rotated by the normalized DQ blend (dqs_apply's rotation, no renormalization). */
static v3 dqs_gradient(const sinew_palette_joint *pal, const uint16_t *joints, const double *w, int K, v3 g)
{
    v3 zero = { 0, 0, 0 }, po, no;
    double len = sqrt(dot3(g, g));
    if (!(len > 0.0)) return zero;
    g.x /= len; g.y /= len; g.z /= len;
    dqs_apply(pal, joints, w, K, zero, g, &po, &no);
    no.x *= len; no.y *= len; no.z *= len;
    return no;
}

/* Normal of the bulge-corrected surface (step 4, README "Bulge correction"):
 * n' = normalize(cof(L) n) with L v = f v + inside (1 - f) (u.v) u + r (h.v),
 * h = k g_t - (f - e) r, g_t = g - (g.n) n (outer branch: e = 0, k = 1); n unchanged
 * when cof(L) n is shorter than 1e-30; blended in from n by the weight blend (< 1
 * near where the correction starts). */
static v3 bulge_normal(v3 n, v3 g, v3 r, v3 u, double inside, double f, double e, double k, double blend,
                       double gscale)
{
    /* L = B + r h^T with B = f I + al u u^T (al = inside (1 - f)), h = k g_t - (f - e) r.
     * cof(L) n = a' x b' for a tangent basis with a x b = n, which gives, without
     * forming L (its columns nearly parallel when |h| is large):
     * cof(L) n = cof(B) n + (B (h x n)) x r,
     * cof(B) n = f (f + al) (n - (u.n) u) + f^2 (u.n) u = f ((f + al) n - al (u.n) u).
     * The r part of h cancels most of cof(B) n: with s = n.(u x r),
     * (B (r x n)) x r = f (n - (r.n) r) + al s (u x r), and wherever al > 0 the
     * closest point is inside the segment, so r is perpendicular to u and
     * s (u x r) = n - (u.n) u - (r.n) r. Hence
     * cof(L) n = e ((f + al) n - al (u.n) u) + (f - e)(f + al)(r.n) r + k (B (g_t x n)) x r,
     * written that way: the difference of nearly equal terms (size f^2, difference
     * f^2 (r.n)), which in float32 left an error of about 2^-24 / |r.n| (5e-4 at
     * r.n = 1.7e-4, g faded out, seen on the GPU), is gone. */
    double al, gn, rn = dot3(r, n), un = dot3(u, n), uw, len, gl = sqrt(dot3(g, g));
    if (gl > SINEW_BULGE_GRADIENT_MAX) gscale *= SINEW_BULGE_GRADIENT_MAX / gl;   /* a blend collapsing the surface */
    g.x *= gscale; g.y *= gscale; g.z *= gscale;
    if (f < SINEW_BULGE_NORMAL_FMIN) f = SINEW_BULGE_NORMAL_FMIN;   /* pulled nearly onto the bone */
    al = inside * (1.0 - f);
    gn = dot3(g, n);
    v3 h = { k * (g.x - gn * n.x), k * (g.y - gn * n.y), k * (g.z - gn * n.z) };   /* k g_t */
    v3 w = cross(h, n), bw, m, x;
    double c1 = e * (f + al), c2 = e * al * un, c3 = (f - e) * (f + al) * rn;
    uw = dot3(u, w);
    bw.x = f * w.x + al * uw * u.x; bw.y = f * w.y + al * uw * u.y; bw.z = f * w.z + al * uw * u.z;
    x = cross(bw, r);
    m.x = c1 * n.x - c2 * u.x + c3 * r.x + x.x;
    m.y = c1 * n.y - c2 * u.y + c3 * r.y + x.y;
    m.z = c1 * n.z - c2 * u.z + c3 * r.z + x.z;
    len = sqrt(dot3(m, m));
    if (!(len >= 1e-30)) return n;
    m.x /= len; m.y /= len; m.z /= len;
    if (blend < 1.0) {
        v3 b = { n.x + blend * (m.x - n.x), n.y + blend * (m.y - n.y), n.z + blend * (m.z - n.z) };
        double lb = sqrt(dot3(b, b));
        if (!(lb >= 1e-30)) return n;
        b.x /= lb; b.y /= lb; b.z /= lb;
        return b;
    }
    return m;
}

/* One vertex in either layout: K influences (4 or 8). */
typedef struct ref_vertex {
    const float *position;
    uint32_t normal_oct;
    const uint16_t *joints, *weights;
    int K;
} ref_vertex;

static ref_vertex ref_vertex_at(const sinew_vertex *v4, const sinew_vertex8 *v8, uint32_t i)
{
    ref_vertex r;
    if (v8) {
        r.position = v8[i].position; r.normal_oct = v8[i].normal_oct;
        r.joints = v8[i].joints; r.weights = v8[i].weights; r.K = 8;
    } else {
        r.position = v4[i].position; r.normal_oct = v4[i].normal_oct;
        r.joints = v4[i].joints; r.weights = v4[i].weights; r.K = 4;
    }
    return r;
}

/* rest_pos / rest_nrm (3 doubles per vertex, may be NULL): rest position and
 * normal used instead of the packed ones (morphed rest, sinew_reference_skin_rest). */
static sinew_result reference_skin(uint32_t n, const sinew_vertex *v4, const sinew_vertex8 *v8, const double *rest_pos,
                                   const double *rest_nrm, const float *centers, const float *bulge_rest,
                                   const sinew_palette_joint *palette, uint32_t joint_count,
                                   sinew_method method, uint32_t flags, double *pos_out, double *nrm_out)
{
    int bulge = (flags & SINEW_SKIN_BULGE_CORRECTION) != 0, inner = (flags & SINEW_SKIN_BULGE_INNER) != 0;
    if ((!v4 && !v8) || !palette || !pos_out) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL) || (inner && !bulge)) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((unsigned)method >= (unsigned)SINEW_METHOD_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
    if (bulge && !bulge_rest) return SINEW_ERROR_INVALID_ARGUMENT;
    if (sinew_method_uses_centers(method) && !centers) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    for (uint32_t i = 0; i < n; i++) {
        ref_vertex vx = ref_vertex_at(v4, v8, i);
        for (int k = 0; k < vx.K; k++)
            if (vx.joints[k] >= joint_count) return SINEW_ERROR_JOINT_INDEX;
        if (sinew_method_uses_centers(method) &&
            !(isfinite(centers[3 * (size_t)i]) && isfinite(centers[3 * (size_t)i + 1]) && isfinite(centers[3 * (size_t)i + 2])))
            return SINEW_ERROR_NON_FINITE;
        if (bulge) {
            if (!isfinite(bulge_rest[i])) return SINEW_ERROR_NON_FINITE;
            if (bulge_rest[i] < 0.0f) return SINEW_ERROR_INVALID_ARGUMENT;
        }
    }

    for (uint32_t i = 0; i < n; i++) {
        ref_vertex vx = ref_vertex_at(v4, v8, i);
        sinew_vec3 dn = sinew_oct_decode(vx.normal_oct);
        v3 p = { vx.position[0], vx.position[1], vx.position[2] };
        v3 nr = { dn.x, dn.y, dn.z }, po, no;
        if (rest_pos) {
            p.x = rest_pos[3 * (size_t)i]; p.y = rest_pos[3 * (size_t)i + 1]; p.z = rest_pos[3 * (size_t)i + 2];
        }
        if (rest_nrm) {
            nr.x = rest_nrm[3 * (size_t)i]; nr.y = rest_nrm[3 * (size_t)i + 1]; nr.z = rest_nrm[3 * (size_t)i + 2];
        }
        double w[8], a[4][3];
        uint32_t wsum = 0;
        for (int k = 0; k < vx.K; k++) {
            w[k] = (double)vx.weights[k] / 65535.0;
            wsum += vx.weights[k];
        }

        if (wsum == 0) {
            po = p;
            no = nr;
        } else {
            /* g: the gradient of the rest distance, carried to the pose as a covector (step 4) */
            v3 g = { 0, 0, 0 };
            double sigma = 1.0;
            if (bulge) {
                v3 ur;
                double ins;
                g = rest_radial(&palette[vx.joints[0]], method, p, &ur, &ins);
                sigma = major_sigma(&palette[vx.joints[0]], method, g, ur, ins, &g);
            }
            switch (method) {
            case SINEW_METHOD_LBS:
                lbs_blend(palette, vx.joints, w, vx.K, 0, a);
                lbs_apply((const double(*)[3])a, p, nr, &po, &no);
                if (bulge) g = lbs_gradient((const double(*)[3])a, g);
                break;
            case SINEW_METHOD_DQS:
                dqs_apply(palette, vx.joints, w, vx.K, p, nr, &po, &no);
                if (bulge) g = dqs_gradient(palette, vx.joints, w, vx.K, g);
                break;
            case SINEW_METHOD_COR:
            case SINEW_METHOD_COR_SCALE:
            case SINEW_METHOD_COR_SCALE_LOCAL:
            case SINEW_METHOD_COR_SCALE_MIXED: {
                v3 c = { centers[3 * (size_t)i], centers[3 * (size_t)i + 1], centers[3 * (size_t)i + 2] };
                cor_apply(palette, vx.joints, w, vx.K, method != SINEW_METHOD_COR, p, nr, c, &po, &no);
                if (bulge) {   /* the CoR normal rule: the scale stage (cor-scale*), then the blended rotation */
                    double rq[4];
                    if (method != SINEW_METHOD_COR) {
                        lbs_blend(palette, vx.joints, w, vx.K, 1, a);
                        g = lbs_gradient((const double(*)[3])a, g);
                    }
                    cor_rotation(palette, vx.joints, w, vx.K, rq);
                    g = quat_rotate(rq, g);
                }
                break;
            }
            default: { /* the three DQS-with-scale methods */
                v3 p1, n1;
                lbs_blend(palette, vx.joints, w, vx.K, 1, a);
                lbs_apply((const double(*)[3])a, p, nr, &p1, &n1);
                dqs_apply(palette, vx.joints, w, vx.K, p1, n1, &po, &no);
                if (bulge) g = dqs_gradient(palette, vx.joints, w, vx.K, lbs_gradient((const double(*)[3])a, g));
                break;
            }
            }
            if (bulge) {
                const sinew_palette_joint *pj = &palette[vx.joints[0]];
                v3 sa = { pj->seg_head.x, pj->seg_head.y, pj->seg_head.z };
                v3 ab = { pj->seg_tail.x - sa.x, pj->seg_tail.y - sa.y, pj->seg_tail.z - sa.z };
                double ll = dot3(ab, ab), t = 0.0, tc, d, d0r = (double)bulge_rest[i], d0 = d0r * sigma;
                v3 c, dv;
                if (ll > 0.0) t = ((po.x - sa.x) * ab.x + (po.y - sa.y) * ab.y + (po.z - sa.z) * ab.z) / ll;
                tc = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
                c.x = sa.x + tc * ab.x; c.y = sa.y + tc * ab.y; c.z = sa.z + tc * ab.z;
                dv.x = po.x - c.x; dv.y = po.y - c.y; dv.z = po.z - c.z;
                d = sqrt(dot3(dv, dv));
                if (d > d0 || (inner && d > 0.0)) {
                    double f, e = 0.0, k = 1.0, il = ll > 0.0 ? 1.0 / sqrt(ll) : 0.0;
                    v3 r = { dv.x / d, dv.y / d, dv.z / d }, u = { ab.x * il, ab.y * il, ab.z * il };
                    /* blend weight of the corrected normal: (d - d0 - 2^-16 max|p'|) over
                     * the larger of BAND * d and 2^-12 max|p'| (float32 cannot place p'
                     * relative to its bone much better than a few 2^-24 max|p'|) */
                    double ax = fabs(po.x) > fabs(po.y) ? fabs(po.x) : fabs(po.y);
                    double den = SINEW_BULGE_NORMAL_BAND * d, blend, inside = 0.0, gsc;
                    ax = ax > fabs(po.z) ? ax : fabs(po.z);
                    if (den < ax * (1.0 / 4096.0)) den = ax * (1.0 / 4096.0);
                    /* no normal change for a bulge below 2^-16 max|p'| (float32 noise) */
                    blend = (d - d0 - ax * (1.0 / 65536.0)) / den;
                    /* weight of the axial term: 0 beyond the segment's ends, 1 inside,
                     * ramped over an axial distance den from each end */
                    if (ll > 0.0) {
                        double ax_in = (t < 1.0 - t ? t : 1.0 - t) * sqrt(ll) / den;
                        inside = ax_in < 0.0 ? 0.0 : (ax_in > 1.0 ? 1.0 : ax_in);
                    }
                    /* g faded out for a vertex within 2^-12 max|p'| of its bone at rest
                     * (its rest direction from the bone is float32 noise on the GPU) */
                    gsc = (d0r - ax * (1.0 / 65536.0)) / (ax * (1.0 / 4096.0));
                    gsc = gsc < 0.0 ? 0.0 : (gsc > 1.0 ? 1.0 : gsc);
                    if (!inner) {
                        f = d0 / d;   /* pulled back to d0 */
                    } else {
                        /* with the inner push, at any d > 0: d -> phi = d + (d0 - d) w(d / d0) gsc,
                         * w a smoothstep from 0 at d = 0 to 1 at RAMP d0 (1 beyond); e = dphi/dd,
                         * k gsc = dphi/dd0 (the derivatives of gsc left out) */
                        double x = d / d0, w = 1.0;
                        e = 1.0 - gsc;
                        if (x < SINEW_BULGE_INNER_RAMP) {
                            double tt = x / SINEW_BULGE_INNER_RAMP, wp;
                            w = tt * tt * (3.0 - 2.0 * tt);
                            wp = 6.0 * tt * (1.0 - tt) / SINEW_BULGE_INNER_RAMP;
                            e = 1.0 - gsc * w + gsc * (1.0 - x) * wp;
                            k = w - (1.0 - x) * x * wp;
                        }
                        f = (d + (d0 - d) * w * gsc) / d;
                    }
                    /* with the inner push the map's derivative is continuous across d0:
                     * the corrected normal throughout, no blend band */
                    if (inner) blend = 1.0;
                    po.x = c.x + dv.x * f;
                    po.y = c.y + dv.y * f;
                    po.z = c.z + dv.z * f;
                    if (blend > 0.0) no = bulge_normal(no, g, r, u, inside, f, e, k, blend, gsc);
                }
            }
        }
        pos_out[3 * (size_t)i + 0] = po.x;
        pos_out[3 * (size_t)i + 1] = po.y;
        pos_out[3 * (size_t)i + 2] = po.z;
        if (nrm_out) {
            nrm_out[3 * (size_t)i + 0] = no.x;
            nrm_out[3 * (size_t)i + 1] = no.y;
            nrm_out[3 * (size_t)i + 2] = no.z;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_reference_skin(uint32_t n, const sinew_vertex *v, const float *bulge_rest,
                                  const sinew_palette_joint *palette, uint32_t joint_count,
                                  sinew_method method, uint32_t flags,
                                  double *pos_out, double *nrm_out)
{
    if (!v) return SINEW_ERROR_INVALID_ARGUMENT;
    return reference_skin(n, v, NULL, NULL, NULL, NULL, bulge_rest, palette, joint_count, method, flags, pos_out, nrm_out);
}

sinew_result sinew_reference_skin8(uint32_t n, const sinew_vertex8 *v, const float *bulge_rest,
                                   const sinew_palette_joint *palette, uint32_t joint_count,
                                   sinew_method method, uint32_t flags,
                                   double *pos_out, double *nrm_out)
{
    if (!v) return SINEW_ERROR_INVALID_ARGUMENT;
    return reference_skin(n, NULL, v, NULL, NULL, NULL, bulge_rest, palette, joint_count, method, flags, pos_out, nrm_out);
}

sinew_result sinew_reference_skin_cor(uint32_t n, const sinew_vertex *v, const sinew_vertex8 *v8, const float *centers,
                                      const float *bulge_rest, const sinew_palette_joint *palette, uint32_t joint_count,
                                      sinew_method method, uint32_t flags, double *pos_out, double *nrm_out)
{
    if (!v == !v8) return SINEW_ERROR_INVALID_ARGUMENT;
    return reference_skin(n, v, v8, NULL, NULL, centers, bulge_rest, palette, joint_count, method, flags, pos_out,
                          nrm_out);
}

sinew_result sinew_reference_skin_rest(uint32_t n, const sinew_vertex *v, const double *rest_pos,
                                       const double *rest_nrm, const float *bulge_rest,
                                       const sinew_palette_joint *palette, uint32_t joint_count,
                                       sinew_method method, uint32_t flags, double *pos_out, double *nrm_out)
{
    if (!v || !rest_pos) return SINEW_ERROR_INVALID_ARGUMENT;
    return reference_skin(n, v, NULL, rest_pos, rest_nrm, NULL, bulge_rest, palette, joint_count, method, flags, pos_out,
                          nrm_out);
}

/* Tangent rule of step 1: t' = A3 t normalized (0 if shorter than 1e-30), the
 * bitangent sign times sign(det A3) (det 0 -> +1), as the normal's. */
static v3 lbs_tangent(const double a[4][3], v3 t, double *sign)
{
    v3 c0 = { a[0][0], a[0][1], a[0][2] }, c1 = { a[1][0], a[1][1], a[1][2] }, c2 = { a[2][0], a[2][1], a[2][2] };
    v3 k0 = cross(c1, c2);
    double det = c0.x * k0.x + c0.y * k0.y + c0.z * k0.z;
    v3 r = { a[0][0] * t.x + a[1][0] * t.y + a[2][0] * t.z, a[0][1] * t.x + a[1][1] * t.y + a[2][1] * t.z,
             a[0][2] * t.x + a[1][2] * t.y + a[2][2] * t.z };
    double len = sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (det < 0.0) *sign = -*sign;
    if (!(len >= 1e-30)) { r.x = r.y = r.z = 0.0; return r; }
    r.x /= len; r.y /= len; r.z /= len;
    return r;
}

sinew_result sinew_reference_tangents(uint32_t n, const sinew_vertex *v, const sinew_vertex8 *v8,
                                      const sinew_tangent *tangents, const sinew_palette_joint *palette,
                                      uint32_t joint_count, sinew_method method, double *tan_out)
{
    if ((!v) == (!v8) || !tangents || !palette || !tan_out) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((unsigned)method >= (unsigned)SINEW_METHOD_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    for (uint32_t i = 0; i < n; i++) {
        ref_vertex vx = ref_vertex_at(v, v8, i);
        for (int k = 0; k < vx.K; k++)
            if (vx.joints[k] >= joint_count) return SINEW_ERROR_JOINT_INDEX;
        if (tangents[i].sign != 1.0f && tangents[i].sign != -1.0f) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < n; i++) {
        ref_vertex vx = ref_vertex_at(v, v8, i);
        sinew_vec3 dt = sinew_oct_decode(tangents[i].tangent_oct);
        v3 t = { dt.x, dt.y, dt.z }, zero = { 0, 0, 0 }, po;
        double sign = tangents[i].sign, w[8], a[4][3];
        uint32_t wsum = 0;
        for (int k = 0; k < vx.K; k++) {
            w[k] = (double)vx.weights[k] / 65535.0;
            wsum += vx.weights[k];
        }
        if (wsum != 0) {
            switch (method) {
            case SINEW_METHOD_LBS:
                lbs_blend(palette, vx.joints, w, vx.K, 0, a);
                t = lbs_tangent((const double(*)[3])a, t, &sign);
                break;
            case SINEW_METHOD_DQS:
                dqs_apply(palette, vx.joints, w, vx.K, zero, t, &po, &t);
                break;
            case SINEW_METHOD_COR: { /* the blended rotation */
                double r[4];
                cor_rotation(palette, vx.joints, w, vx.K, r);
                t = unit_or_zero(quat_rotate(r, t));
                break;
            }
            case SINEW_METHOD_COR_SCALE:
            case SINEW_METHOD_COR_SCALE_LOCAL:
            case SINEW_METHOD_COR_SCALE_MIXED: { /* stage 1 with the S_j, then the blended rotation */
                double r[4];
                lbs_blend(palette, vx.joints, w, vx.K, 1, a);
                t = lbs_tangent((const double(*)[3])a, t, &sign);
                cor_rotation(palette, vx.joints, w, vx.K, r);
                t = unit_or_zero(quat_rotate(r, t));
                break;
            }
            default: /* stage 1 with the S_j, then the rotation */
                lbs_blend(palette, vx.joints, w, vx.K, 1, a);
                t = lbs_tangent((const double(*)[3])a, t, &sign);
                dqs_apply(palette, vx.joints, w, vx.K, zero, t, &po, &t);
                break;
            }
        }
        tan_out[4 * (size_t)i + 0] = t.x;
        tan_out[4 * (size_t)i + 1] = t.y;
        tan_out[4 * (size_t)i + 2] = t.z;
        tan_out[4 * (size_t)i + 3] = sign;
    }
    return SINEW_OK;
}
