/* Sinew conservative character bounds (bounds.h): per-joint bind-space
 * spheres of a mesh, and their images under a packed palette. */
#include <sinew/linalg.h>
#include "sinew/bounds.h"
#include "sinew_layout.h" /* shaders/: SINEW_PAL_OFF_* */

#include <math.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SNW_BOUNDS_SSE 1
#else
#define SNW_BOUNDS_SSE 0
#endif

typedef struct bv3 { double x, y, z; } bv3;

static bv3 b3(double x, double y, double z) { bv3 r = { x, y, z }; return r; }
static bv3 bsub(bv3 a, bv3 b) { return b3(a.x - b.x, a.y - b.y, a.z - b.z); }
static double blen(bv3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

/* One vertex of either layout. */
typedef struct bvert { const float *pos; const uint16_t *j, *w; uint32_t K; } bvert;

static bvert vert_at(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t i)
{
    bvert r;
    if (v8) { r.pos = v8[i].position; r.j = v8[i].joints; r.w = v8[i].weights; r.K = 8; }
    else { r.pos = v[i].position; r.j = v[i].joints; r.w = v[i].weights; r.K = 4; }
    return r;
}

static int influences(const bvert *x, uint32_t a)
{
    for (uint32_t k = 0; k < x->K; k++)
        if (x->w[k] && x->j[k] == a) return 1;
    return 0;
}

/* The slot of the vertex's largest weight (the first of equal ones): its major joint,
 * slot 0 for sorted vertices. */
static uint32_t major_slot(const bvert *x)
{
    uint32_t m = 0;
    for (uint32_t k = 1; k < x->K; k++) m = x->w[k] > x->w[m] ? k : m;
    return m;
}

/* Checks a vertex array as sinew_joint_bounds_build does. */
static sinew_result check_vertices(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n, uint32_t joint_count)
{
    for (uint32_t i = 0; i < n; i++) {
        bvert x = vert_at(v, v8, i);
        uint32_t sum = 0;
        if (!isfinite(x.pos[0]) || !isfinite(x.pos[1]) || !isfinite(x.pos[2])) return SINEW_ERROR_NON_FINITE;
        for (uint32_t k = 0; k < x.K; k++) {
            if (x.j[k] >= joint_count) return SINEW_ERROR_JOINT_INDEX;
            sum += x.w[k];
        }
        if (sum != 65535u) return SINEW_ERROR_INVALID_WEIGHT;
    }
    return SINEW_OK;
}

sinew_result sinew_joint_bounds_build(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                      uint32_t joint_count, sinew_joint_bounds *joints, uint16_t *neighbors,
                                      uint32_t neighbor_capacity, uint32_t *neighbor_count)
{
    if (neighbor_count) *neighbor_count = 0;
    if ((!v == !v8) || !joints || !neighbor_count || (neighbor_capacity && !neighbors))
        return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0 || joint_count == 0) return SINEW_ERROR_EMPTY;
    if (joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    sinew_result vr = check_vertices(v, v8, n, joint_count);
    if (vr != SINEW_OK) return vr;
    uint32_t used = 0;
    for (uint32_t a = 0; a < joint_count; a++) {
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        uint32_t minw = 65535u, count = 0, majors = 0;
        for (uint32_t i = 0; i < n; i++) {
            bvert x = vert_at(v, v8, i);
            if (!influences(&x, a)) continue;
            count++;
            for (int c = 0; c < 3; c++) {
                lo[c] = x.pos[c] < lo[c] ? x.pos[c] : lo[c];
                hi[c] = x.pos[c] > hi[c] ? x.pos[c] : hi[c];
            }
            uint32_t m = major_slot(&x);
            if (x.j[m] != a) continue;
            majors++;
            minw = x.w[m] < minw ? x.w[m] : minw;
        }
        sinew_joint_bounds *jb = &joints[a];
        memset(jb, 0, sizeof *jb);
        jb->first_neighbor = used;
        if (!count) {
            jb->radius = -1.0f;
            continue;
        }
        bv3 c = b3(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
        double r = 0;
        uint32_t first = used;
        if (majors) { /* a itself first: the lanes skip it cheaply */
            if (used < neighbor_capacity) neighbors[used] = (uint16_t)a;
            used++;
        }
        for (uint32_t i = 0; i < n; i++) {
            bvert x = vert_at(v, v8, i);
            if (!influences(&x, a)) continue;
            double d = blen(bsub(b3(x.pos[0], x.pos[1], x.pos[2]), c));
            r = d > r ? d : r;
            if (x.j[major_slot(&x)] != a) continue;
            for (uint32_t k = 0; k < x.K; k++) { /* N(a): the joints of the vertices a is the major joint of, once */
                if (!x.w[k]) continue;
                int seen = 0;
                for (uint32_t e = first; e < used && e < neighbor_capacity && !seen; e++) seen = neighbors[e] == x.j[k];
                if (seen) continue;
                if (used < neighbor_capacity) neighbors[used] = x.j[k];
                used++; /* past the capacity: counted, not stored (so possibly counted twice) */
            }
        }
        jb->center[0] = (float)c.x;
        jb->center[1] = (float)c.y;
        jb->center[2] = (float)c.z;
        /* rounded up so the float sphere still holds every vertex */
        jb->radius = (float)(r * (1.0 + 1e-6) + 1e-30);
        jb->min_major_weight = majors ? (float)((double)minw / 65535.0 * (1.0 - 1e-6)) : 0.0f;
        jb->neighbor_count = used - jb->first_neighbor;
    }
    *neighbor_count = used;
    return used > neighbor_capacity ? SINEW_ERROR_CAPACITY : SINEW_OK;
}

/* The sphere around spheres (c_k, r_k), k in 0..n-1, r_k >= 0: centered on their joint box,
 * radius the largest |c - c_k| + r_k from the float center, rounded up. */
static void merge_spheres(const float (*c)[3], const float *r, uint32_t n, float out_c[3], float *out_r)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY }, m = 0.0;
    for (uint32_t k = 0; k < n; k++)
        for (int e = 0; e < 3; e++) {
            lo[e] = (double)c[k][e] - r[k] < lo[e] ? (double)c[k][e] - r[k] : lo[e];
            hi[e] = (double)c[k][e] + r[k] > hi[e] ? (double)c[k][e] + r[k] : hi[e];
        }
    for (int e = 0; e < 3; e++) out_c[e] = (float)(0.5 * (lo[e] + hi[e]));
    for (uint32_t k = 0; k < n; k++) {
        double d = blen(bsub(b3(c[k][0], c[k][1], c[k][2]), b3(out_c[0], out_c[1], out_c[2]))) + r[k];
        m = d > m ? d : m;
    }
    *out_r = (float)(m * (1.0 + 1e-6) + 1e-30);
}

sinew_result sinew_joint_bounds_merge(const sinew_joint_bounds *const *joints, const uint16_t *const *neighbors,
                                      uint32_t mesh_count, uint32_t joint_count, sinew_joint_bounds *out,
                                      uint16_t *out_neighbors, uint32_t neighbor_capacity, uint32_t *neighbor_count)
{
    if (neighbor_count) *neighbor_count = 0;
    if (!joints || !neighbors || !out || !neighbor_count || (neighbor_capacity && !out_neighbors))
        return SINEW_ERROR_INVALID_ARGUMENT;
    if (mesh_count == 0 || joint_count == 0) return SINEW_ERROR_EMPTY;
    if (joint_count > SINEW_MAX_JOINTS || mesh_count > SINEW_JOINT_BOUNDS_MERGE_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
    for (uint32_t k = 0; k < mesh_count; k++) {
        if (!joints[k] || !neighbors[k]) return SINEW_ERROR_INVALID_ARGUMENT;
        for (uint32_t a = 0; a < joint_count; a++) {
            const sinew_joint_bounds *jb = &joints[k][a];
            if (!(jb->radius >= 0.0f)) continue;
            if (!isfinite(jb->radius) || !isfinite(jb->center[0]) || !isfinite(jb->center[1]) || !isfinite(jb->center[2]) ||
                !(jb->min_major_weight >= 0.0f && jb->min_major_weight <= 1.0f))
                return SINEW_ERROR_NON_FINITE;
            if (jb->has_centers && (!(jb->cor_radius >= 0.0f) || !isfinite(jb->cor_radius) || !(jb->cor_offset >= 0.0f) ||
                                    !isfinite(jb->cor_offset) || !isfinite(jb->cor_center[0]) ||
                                    !isfinite(jb->cor_center[1]) || !isfinite(jb->cor_center[2])))
                return SINEW_ERROR_NON_FINITE;
            for (uint32_t e = 0; e < jb->neighbor_count; e++)
                if (neighbors[k][jb->first_neighbor + e] >= joint_count) return SINEW_ERROR_JOINT_INDEX;
        }
    }
    uint32_t used = 0;
    for (uint32_t a = 0; a < joint_count; a++) {
        float c[SINEW_JOINT_BOUNDS_MERGE_MAX][3], r[SINEW_JOINT_BOUNDS_MERGE_MAX], g[SINEW_JOINT_BOUNDS_MERGE_MAX][3], q[SINEW_JOINT_BOUNDS_MERGE_MAX];
        uint32_t n = 0, nc = 0, majors = 0;
        float w = 1.0f, o = 0.0f;
        int centers = 1;
        sinew_joint_bounds *jb = &out[a];
        for (uint32_t k = 0; k < mesh_count; k++) {
            const sinew_joint_bounds *x = &joints[k][a];
            if (!(x->radius >= 0.0f)) continue;
            memcpy(c[n], x->center, sizeof c[n]);
            r[n++] = x->radius;
            if (x->has_centers) {
                memcpy(g[nc], x->cor_center, sizeof g[nc]);
                q[nc++] = x->cor_radius;
                o = x->cor_offset > o ? x->cor_offset : o;
            } else {
                centers = 0;
            }
            if (x->neighbor_count) {
                majors++;
                w = x->min_major_weight < w ? x->min_major_weight : w;
            }
        }
        memset(jb, 0, sizeof *jb);
        jb->first_neighbor = used;
        if (!n) {
            jb->radius = -1.0f;
            continue;
        }
        merge_spheres((const float (*)[3])c, r, n, jb->center, &jb->radius);
        if (centers) {
            jb->has_centers = 1;
            merge_spheres((const float (*)[3])g, q, nc, jb->cor_center, &jb->cor_radius);
            jb->cor_offset = o;
        }
        jb->min_major_weight = majors ? w : 0.0f;
        /* N(a): the union of the meshes' lists, a first */
        if (majors) {
            if (used < neighbor_capacity) out_neighbors[used] = (uint16_t)a;
            used++;
        }
        for (uint32_t k = 0; k < mesh_count; k++) {
            const sinew_joint_bounds *x = &joints[k][a];
            if (!(x->radius >= 0.0f)) continue;
            for (uint32_t e = 0; e < x->neighbor_count; e++) {
                uint16_t j = neighbors[k][x->first_neighbor + e];
                int seen = 0;
                for (uint32_t f = jb->first_neighbor; f < used && f < neighbor_capacity && !seen; f++) seen = out_neighbors[f] == j;
                if (seen) continue;
                if (used < neighbor_capacity) out_neighbors[used] = j;
                used++;
            }
        }
        jb->neighbor_count = used - jb->first_neighbor;
    }
    *neighbor_count = used;
    return used > neighbor_capacity ? SINEW_ERROR_CAPACITY : SINEW_OK;
}

sinew_result sinew_joint_bounds_add_centers(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                            uint32_t joint_count, const float *centers, sinew_joint_bounds *joints)
{
    if ((!v == !v8) || !centers || !joints) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0 || joint_count == 0) return SINEW_ERROR_EMPTY;
    if (joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    sinew_result r = check_vertices(v, v8, n, joint_count);
    if (r != SINEW_OK) return r;
    for (uint64_t i = 0; i < 3ull * n; i++)
        if (!isfinite(centers[i])) return SINEW_ERROR_NON_FINITE;
    /* the joints must be those of these vertices: a joint has a sphere iff it influences one */
    for (uint32_t a = 0; a < joint_count; a++) {
        int used = 0;
        for (uint32_t i = 0; i < n && !used; i++) {
            bvert x = vert_at(v, v8, i);
            used = influences(&x, a);
        }
        if (used != (joints[a].radius >= 0.0f)) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    for (uint32_t a = 0; a < joint_count; a++) {
        sinew_joint_bounds *jb = &joints[a];
        jb->has_centers = 1;
        jb->cor_center[0] = jb->cor_center[1] = jb->cor_center[2] = 0.0f;
        jb->cor_radius = jb->cor_offset = -1.0f;
        if (!(jb->radius >= 0.0f)) continue;
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (uint32_t i = 0; i < n; i++) {
            bvert x = vert_at(v, v8, i);
            if (!influences(&x, a)) continue;
            for (int c = 0; c < 3; c++) {
                double y = centers[3 * (size_t)i + c];
                lo[c] = y < lo[c] ? y : lo[c];
                hi[c] = y > hi[c] ? y : hi[c];
            }
        }
        for (int c = 0; c < 3; c++) jb->cor_center[c] = (float)(0.5 * (lo[c] + hi[c]));
        /* distances from the float centre as stored, rounded up so that the float
         * values still bound every center and every offset */
        bv3 g = b3(jb->cor_center[0], jb->cor_center[1], jb->cor_center[2]);
        double rc = 0, off = 0;
        for (uint32_t i = 0; i < n; i++) {
            bvert x = vert_at(v, v8, i);
            if (!influences(&x, a)) continue;
            bv3 c = b3(centers[3 * (size_t)i], centers[3 * (size_t)i + 1], centers[3 * (size_t)i + 2]);
            double dc = blen(bsub(c, g)), dp = blen(bsub(b3(x.pos[0], x.pos[1], x.pos[2]), c));
            rc = dc > rc ? dc : rc;
            off = dp > off ? dp : off;
        }
        jb->cor_radius = (float)(rc * (1.0 + 1e-6) + 1e-30);
        jb->cor_offset = (float)(off * (1.0 + 1e-6) + 1e-30);
    }
    return SINEW_OK;
}

/* An upper bound of the spectral norm of the 3x3 A of rows r, without
 * transcendental functions: lambda_max(A^T A) = lambda_max(A A^T) is at most the
 * largest Gershgorin row sum of either (diagonal + |off-diagonals|) and at most
 * ||A||_F^2; the smallest of the three is taken, raised by 1e-9 relative. Exact for
 * A = R diag(s) (A^T A diagonal) and diag(s) R (A A^T diagonal): rotations with
 * uniform or per-axis scale, the common skin matrices. */
static double spectral_norm(const float *r)
{
    double a00 = r[0], a01 = r[1], a02 = r[2], a10 = r[4], a11 = r[5], a12 = r[6], a20 = r[8], a21 = r[9], a22 = r[10];
    /* A^T A: column dot products (symmetric: 6 of them); A A^T: row dot products */
    double c00 = a00 * a00 + a10 * a10 + a20 * a20, c11 = a01 * a01 + a11 * a11 + a21 * a21;
    double c22 = a02 * a02 + a12 * a12 + a22 * a22;
    double c01 = fabs(a00 * a01 + a10 * a11 + a20 * a21), c02 = fabs(a00 * a02 + a10 * a12 + a20 * a22);
    double c12 = fabs(a01 * a02 + a11 * a12 + a21 * a22);
    double w00 = a00 * a00 + a01 * a01 + a02 * a02, w11 = a10 * a10 + a11 * a11 + a12 * a12;
    double w22 = a20 * a20 + a21 * a21 + a22 * a22;
    double w01 = fabs(a00 * a10 + a01 * a11 + a02 * a12), w02 = fabs(a00 * a20 + a01 * a21 + a02 * a22);
    double w12 = fabs(a10 * a20 + a11 * a21 + a12 * a22);
    /* (ternaries, not fmax/fmin: libm calls without -ffast-math; the palette is finite) */
    double s0 = c00 + c01 + c02, s1 = c11 + c01 + c12, s2 = c22 + c02 + c12;
    double g1 = s0 > s1 ? s0 : s1;
    g1 = s2 > g1 ? s2 : g1;
    s0 = w00 + w01 + w02, s1 = w11 + w01 + w12, s2 = w22 + w02 + w12;
    double g2 = s0 > s1 ? s0 : s1;
    g2 = s2 > g2 ? s2 : g2;
    double fro = c00 + c11 + c22; /* ||A||_F^2 */
    double l = g1 < g2 ? g1 : g2;
    l = fro < l ? fro : l;
    return sqrt(l) * (1.0 + 1e-9) + 1e-300;
}

/* 1 when no value of p[0..n) is NaN or infinite: an exponent of all ones,
 * found with integer operations (branch-free, vectorizable). */
static int palette_finite(const float *p, size_t n)
{
    uint32_t flag = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, p + i, sizeof b);
        flag |= (b & 0x7f800000u) + 0x00800000u; /* bit 31 set only for exponent 0xff */
    }
    return (flag & 0x80000000u) == 0;
}

/* Joints whose per-joint terms sinew_character_bounds keeps on the stack. */
#define BOUNDS_CACHE 128u

/* Affine rows (LBS skin or S of the scale methods) applied to p; a bound of the 3x3's spectral norm. */
static bv3 rows_apply(const float *r, bv3 p, double *norm)
{
    if (norm) *norm = spectral_norm(r);
    return b3(r[0] * p.x + r[1] * p.y + r[2] * p.z + r[3], r[4] * p.x + r[5] * p.y + r[6] * p.z + r[7],
              r[8] * p.x + r[9] * p.y + r[10] * p.z + r[11]);
}

/* Unit dual quaternion (real xyzw, dual xyzw) applied to p (the kernel's formula). */
static bv3 dq_apply(const float *q, bv3 p)
{
    double rx = q[0], ry = q[1], rz = q[2], rw = q[3], dx = q[4], dy = q[5], dz = q[6], dw = q[7];
    double l = sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
    rx /= l; ry /= l; rz /= l; rw /= l; dx /= l; dy /= l; dz /= l; dw /= l;
    /* u = r x p + w p; p' = p + 2 r x u + 2 (w d - dw r + r x d) */
    double ux = ry * p.z - rz * p.y + rw * p.x, uy = rz * p.x - rx * p.z + rw * p.y, uz = rx * p.y - ry * p.x + rw * p.z;
    double vx = ry * uz - rz * uy, vy = rz * ux - rx * uz, vz = rx * uy - ry * ux;
    double cx = ry * dz - rz * dy, cy = rz * dx - rx * dz, cz = rx * dy - ry * dx;
    return b3(p.x + 2 * vx + 2 * (rw * dx - dw * rx + cx), p.y + 2 * vy + 2 * (rw * dy - dw * ry + cy),
              p.z + 2 * vz + 2 * (rw * dz - dw * rz + cz));
}

/* A unit dual quaternion (as dq_apply normalizes it) as the rigid map
 * p -> R p + t, 12 doubles (rows of R, then t): the same map as dq_apply up to
 * rounding, without its square root and divisions per point. */
static void dq_matrix(const float *q, double *m)
{
    double rx = q[0], ry = q[1], rz = q[2], rw = q[3], dx = q[4], dy = q[5], dz = q[6], dw = q[7];
    double il = 1.0 / sqrt(rx * rx + ry * ry + rz * rz + rw * rw); /* one division, not eight */
    rx *= il; ry *= il; rz *= il; rw *= il; dx *= il; dy *= il; dz *= il; dw *= il;
    /* R = I + 2 [r]x^2 + 2 w [r]x; t = 2 (w d - dw r + r x d) */
    m[0] = 1 - 2 * (ry * ry + rz * rz); m[1] = 2 * (rx * ry - rw * rz); m[2] = 2 * (rx * rz + rw * ry);
    m[3] = 2 * (rx * ry + rw * rz); m[4] = 1 - 2 * (rx * rx + rz * rz); m[5] = 2 * (ry * rz - rw * rx);
    m[6] = 2 * (rx * rz - rw * ry); m[7] = 2 * (ry * rz + rw * rx); m[8] = 1 - 2 * (rx * rx + ry * ry);
    m[9] = 2 * (rw * dx - dw * rx + ry * dz - rz * dy);
    m[10] = 2 * (rw * dy - dw * ry + rz * dx - rx * dz);
    m[11] = 2 * (rw * dz - dw * rz + rx * dy - ry * dx);
}

static bv3 matrix_apply(const double *m, bv3 p)
{
    return b3(m[0] * p.x + m[1] * p.y + m[2] * p.z + m[9], m[3] * p.x + m[4] * p.y + m[5] * p.z + m[10],
              m[6] * p.x + m[7] * p.y + m[8] * p.z + m[11]);
}

/* Over a joint's neighbours j (joints sharing a vertex with it): the largest distance
 * from x's image under j's affine rows to xa, and in *norm the largest bound of their
 * 3x3's spectral norm. */
static double rows_spread(const float *pal, uint32_t stride, const uint16_t *nb, uint32_t n, bv3 x, bv3 xa,
                          const double *norms, double *norm)
{
    double spread2 = 0;
    *norm = 0;
    for (uint32_t k = 0; k < n; k++) {
        bv3 d = bsub(rows_apply(pal + (size_t)stride * nb[k], x, NULL), xa);
        double d2 = d.x * d.x + d.y * d.y + d.z * d.z;
        double f = norms ? norms[nb[k]] : spectral_norm(pal + (size_t)stride * nb[k]);
        spread2 = d2 > spread2 ? d2 : spread2;
        *norm = f > *norm ? f : *norm;
    }
    return sqrt(spread2) * (1.0 + 1e-12);
}

/* The same for the neighbours' dual quaternions (at dq_off floats in each joint's slots). */
static double dq_spread(const float *pal, uint32_t stride, uint32_t dq_off, const uint16_t *nb, uint32_t n, bv3 x,
                        bv3 xa, const double *mats)
{
    double spread2 = 0;
    for (uint32_t k = 0; k < n; k++) {
        bv3 d = bsub(mats ? matrix_apply(mats + 12u * nb[k], x) : dq_apply(pal + (size_t)stride * nb[k] + dq_off, x), xa);
        double d2 = d.x * d.x + d.y * d.y + d.z * d.z;
        spread2 = d2 > spread2 ? d2 : spread2;
    }
    return sqrt(spread2) * (1.0 + 1e-12);
}

/* p mapped back by the inverse of a joint's transform as packed (reference.c
 * major_inverse): the unit dual quaternion dq (NULL for LBS), then the affine rows
 * (NULL for DQS). 0 when the 3x3 to invert is singular. */
static int joint_inverse(const float *dq, const float *rows, bv3 p, bv3 *out)
{
    if (dq) {
        double rx = dq[0], ry = dq[1], rz = dq[2], rw = dq[3], dx = dq[4], dy = dq[5], dz = dq[6], dw = dq[7];
        double l = sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
        if (!(l > 0.0)) return 0;
        rx /= -l; ry /= -l; rz /= -l; rw /= l; dx /= l; dy /= l; dz /= l; dw /= l;
        /* the translation 2 (w d - dw r + r x d) with r = -(rx, ry, rz) */
        double cx = -(ry * dz - rz * dy), cy = -(rz * dx - rx * dz), cz = -(rx * dy - ry * dx);
        double yx = p.x - 2 * (rw * dx + dw * rx + cx), yy = p.y - 2 * (rw * dy + dw * ry + cy);
        double yz = p.z - 2 * (rw * dz + dw * rz + cz);
        /* rotation by the conjugate: y + 2 r' x (r' x y + w y), r' = (rx, ry, rz) (negated above) */
        double ux = ry * yz - rz * yy + rw * yx, uy = rz * yx - rx * yz + rw * yy, uz = rx * yy - ry * yx + rw * yz;
        p = b3(yx + 2 * (ry * uz - rz * uy), yy + 2 * (rz * ux - rx * uz), yz + 2 * (rx * uy - ry * ux));
    }
    if (rows) {
        bv3 a0 = b3(rows[0], rows[1], rows[2]), a1 = b3(rows[4], rows[5], rows[6]), a2 = b3(rows[8], rows[9], rows[10]);
        bv3 k0 = b3(a1.y * a2.z - a1.z * a2.y, a1.z * a2.x - a1.x * a2.z, a1.x * a2.y - a1.y * a2.x);
        bv3 k1 = b3(a2.y * a0.z - a2.z * a0.y, a2.z * a0.x - a2.x * a0.z, a2.x * a0.y - a2.y * a0.x);
        bv3 k2 = b3(a0.y * a1.z - a0.z * a1.y, a0.z * a1.x - a0.x * a1.z, a0.x * a1.y - a0.y * a1.x);
        double det = a0.x * k0.x + a0.y * k0.y + a0.z * k0.z;
        double y0 = p.x - rows[3], y1 = p.y - rows[7], y2 = p.z - rows[11];
        if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
        p = b3((k0.x * y0 + k1.x * y1 + k2.x * y2) / det, (k0.y * y0 + k1.y * y1 + k2.y * y2) / det,
               (k0.z * y0 + k1.z * y1 + k2.z * y2) / det);
    }
    *out = p;
    return 1;
}

/* Distance from p to the segment [a, b]. */
static double segment_distance(bv3 p, bv3 a, bv3 b)
{
    bv3 ab = bsub(b, a), ap = bsub(p, a);
    double ll = ab.x * ab.x + ab.y * ab.y + ab.z * ab.z;
    double t = ll > 0.0 ? (ap.x * ab.x + ap.y * ab.y + ap.z * ab.z) / ll : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return blen(bsub(ap, b3(t * ab.x, t * ab.y, t * ab.z)));
}

static void grow(double lo[3], double hi[3], bv3 c, double e)
{
    double p[3] = { c.x, c.y, c.z };
    for (int i = 0; i < 3; i++) {
        lo[i] = p[i] - e < lo[i] ? p[i] - e : lo[i];
        hi[i] = p[i] + e > hi[i] ? p[i] + e : hi[i];
    }
}

sinew_result sinew_joint_bounds_morph_deltas(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                             uint32_t joint_count, const sinew_morph_target *targets,
                                             uint32_t target_count, float *max_delta)
{
    if ((!v == !v8) || !max_delta || (target_count && !targets)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0 || joint_count == 0) return SINEW_ERROR_EMPTY;
    if (joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    sinew_result r = check_vertices(v, v8, n, joint_count);
    if (r != SINEW_OK) return r;
    r = sinew_morph_validate(n, targets, target_count, NULL);
    if (r != SINEW_OK) return r;
    for (uint32_t t = 0; t < target_count; t++) {
        float *row = max_delta + (size_t)t * joint_count;
        for (uint32_t a = 0; a < joint_count; a++) row[a] = 0.0f;
        const sinew_morph_target *tg = &targets[t];
        for (uint32_t e = 0; e < tg->count; e++) {
            const float *d = tg->position_deltas + 3 * (size_t)e;
            double len = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
            float f = (float)len; /* rounded up so that the float still bounds the length */
            if ((double)f < len) f = nextafterf(f, INFINITY);
            bvert x = vert_at(v, v8, tg->indices[e]);
            for (uint32_t k = 0; k < x.K; k++)
                if (x.w[k] && f > row[x.j[k]]) row[x.j[k]] = f;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_joint_bounds_morph_growth(const float *max_delta, uint32_t joint_count, uint32_t target_count,
                                             const float *weights, float *growth)
{
    if (!max_delta || !growth || (target_count && !weights)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    for (uint32_t a = 0; a < joint_count; a++) growth[a] = 0.0f;
    for (uint32_t t = 0; t < target_count; t++)
        if (!isfinite(weights[t])) return SINEW_ERROR_NON_FINITE;
    for (uint32_t t = 0; t < target_count; t++) {
        float w = fabsf(weights[t]);
        if (w == 0.0f) continue; /* inactive targets cost nothing */
        const float *row = max_delta + (size_t)t * joint_count;
        for (uint32_t a = 0; a < joint_count; a++) growth[a] += w * row[a];
    }
    /* float sums of non-negative products: within (target_count + 1) 2^-24 relative
     * of the exact sum (first order), so raised by (target_count + 2) 2^-23 */
    double up = 1.0 + (double)(target_count + 2) * 1.2e-7;
    for (uint32_t a = 0; a < joint_count; a++) {
        double g = (double)growth[a] * up;
        if (!(g < 3.0e38)) return SINEW_ERROR_NON_FINITE;
        float f = (float)g;
        growth[a] = (double)f < g ? nextafterf(f, INFINITY) : f;
    }
    return SINEW_OK;
}

#if SNW_BOUNDS_SSE
/* The LBS rule (one ball per joint: P_a = T_a c_a, e_a = ||A_a||_2 (r_a + G_a)) in
 * SSE float32, widened by bounds of its own rounding so the box still holds the
 * exact balls: P's error is at most 4u sum_j |a_ij c_j| + |t_i| (u = 2^-24; taken
 * as 3e-7 x that sum), the Gershgorin and Frobenius sums' at most about 5u ||A||_F^2
 * each (taken as 2e-6 ||A||_F^2), sqrt's and the products' a few u (1 + 2e-6).
 * Without bulge correction (its segment ends need the scalar loop). 0 when no
 * joint has a vertex. */
static int lbs_boxes_sse(const sinew_joint_bounds *joints, uint32_t joint_count, const float *pal, uint32_t stride,
                         const float *growth, double lo[3], double hi[3])
{
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
    __m128 vlo = _mm_set1_ps(INFINITY), vhi = _mm_set1_ps(-INFINITY);
    int any = 0;
    for (uint32_t a = 0; a < joint_count; a++) {
        const sinew_joint_bounds *jb = &joints[a];
        if (!(jb->radius >= 0.0f)) continue;
        any = 1;
        const float *pa = pal + (size_t)stride * a;
        __m128 r0 = _mm_loadu_ps(pa), r1 = _mm_loadu_ps(pa + 4), r2 = _mm_loadu_ps(pa + 8);
        __m128 c = _mm_set_ps(1.0f, jb->center[2], jb->center[1], jb->center[0]);
        /* P = T c and sum |a_ij c_j| + |t_i|: rows times (c, 1), lanes summed by a transpose */
        __m128 m0 = _mm_mul_ps(r0, c), m1 = _mm_mul_ps(r1, c), m2 = _mm_mul_ps(r2, c), m3 = _mm_setzero_ps();
        __m128 s0 = _mm_and_ps(m0, absm), s1 = _mm_and_ps(m1, absm), s2 = _mm_and_ps(m2, absm), s3 = m3;
        _MM_TRANSPOSE4_PS(m0, m1, m2, m3);
        _MM_TRANSPOSE4_PS(s0, s1, s2, s3);
        __m128 P = _mm_add_ps(_mm_add_ps(m0, m1), _mm_add_ps(m2, m3));
        __m128 E = _mm_mul_ps(_mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)), _mm_set1_ps(3e-7f));
        /* A^T A from the rows: diagonal (c00, c11, c22) and off-diagonal (c01, c12, c20) */
        __m128 x0 = _mm_and_ps(r0, xyz), x1 = _mm_and_ps(r1, xyz), x2 = _mm_and_ps(r2, xyz), x3 = _mm_setzero_ps();
#define SNW_ROT(v) _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 0, 2, 1))
#define SNW_ROT2(v) _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 1, 0, 2))
        __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, x0), _mm_mul_ps(x1, x1)), _mm_mul_ps(x2, x2));
        __m128 o = _mm_and_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, SNW_ROT(x0)), _mm_mul_ps(x1, SNW_ROT(x1))),
                                         _mm_mul_ps(x2, SNW_ROT(x2))), absm);
        __m128 g1 = _mm_add_ps(_mm_add_ps(d, o), SNW_ROT2(o)); /* Gershgorin row sums of A^T A */
        /* A A^T the same way from the columns */
        _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
        __m128 dw = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, x0), _mm_mul_ps(x1, x1)), _mm_mul_ps(x2, x2));
        __m128 ow = _mm_and_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, SNW_ROT(x0)), _mm_mul_ps(x1, SNW_ROT(x1))),
                                          _mm_mul_ps(x2, SNW_ROT(x2))), absm);
        __m128 g2 = _mm_add_ps(_mm_add_ps(dw, ow), SNW_ROT2(ow));
#undef SNW_ROT
#undef SNW_ROT2
        float t1[4], t2[4], td[4];
        _mm_storeu_ps(t1, g1);
        _mm_storeu_ps(t2, g2);
        _mm_storeu_ps(td, d);
        float fro = td[0] + td[1] + td[2];
        float l1 = t1[0] > t1[1] ? t1[0] : t1[1], l2 = t2[0] > t2[1] ? t2[0] : t2[1];
        l1 = t1[2] > l1 ? t1[2] : l1;
        l2 = t2[2] > l2 ? t2[2] : l2;
        float l = l1 < l2 ? l1 : l2;
        l = fro < l ? fro : l;
        float r = growth ? jb->radius + growth[a] : jb->radius;
        float e = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(l + 2e-6f * fro))) * r * (1.0f + 2e-6f) + 1e-30f;
        __m128 ev = _mm_add_ps(_mm_set1_ps(e), E);
        vlo = _mm_min_ps(vlo, _mm_sub_ps(P, ev));
        vhi = _mm_max_ps(vhi, _mm_add_ps(P, ev));
    }
    float fl[4], fh[4];
    _mm_storeu_ps(fl, vlo);
    _mm_storeu_ps(fh, vhi);
    for (int i = 0; i < 3; i++) {
        lo[i] = fl[i];
        hi[i] = fh[i];
    }
    return any;
}
#endif

static sinew_result finish_box(int any, const double lo[3], const double hi[3], float box_min[3], float box_max[3]);

/* The box [lo, hi] padded by 1e-5 of its size and position for float32 rounding. */
static inline __attribute__((always_inline)) void pad_box(const double lo[3], const double hi[3], float box_min[3],
                                                          float box_max[3])
{
    double size = 0, mag = 0;
    for (int i = 0; i < 3; i++) {
        size = hi[i] - lo[i] > size ? hi[i] - lo[i] : size;
        mag = fabs(lo[i]) > mag ? fabs(lo[i]) : mag;
        mag = fabs(hi[i]) > mag ? fabs(hi[i]) : mag;
    }
    double pad = 1e-5 * (size + mag);
    for (int i = 0; i < 3; i++) {
        box_min[i] = (float)(lo[i] - pad);
        box_max[i] = (float)(hi[i] + pad);
    }
}

/* (a build with -DSNW_BOUNDS_NO_AVX2 keeps the four-lane SSE code only, for comparisons) */
#if SNW_BOUNDS_SSE && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(SNW_BOUNDS_NO_AVX2)
#include <immintrin.h>
#define SNW_BOUNDS_AVX2 1
/* The same LBS rule eight joints at a time (AVX2 + FMA, selected at run time;
 * structure of arrays: lane k is joint a + k). The rounding terms: P's error is at
 * most 3u sum_j |a_ij c_j| + |t_i| u (fused multiply-adds), and sum_j |a_ij c_j| <=
 * |row_i| |c|_1 <= s |c|_1 with s the computed bound of ||A_a||_2 (a row is at most
 * the spectral norm long), so 3e-7 (s |c|_1 + |t_i|) covers it; the norm's terms as
 * in lbs_boxes_sse. The norm bound is min(Gershgorin of A^T A, ||A||_F^2): exact for
 * A = R diag(s) and uniform scale (A^T A diagonal), as before; since issue 21 item 2
 * (round 5) without the Gershgorin bound of A A^T (the scalar and SSE paths keep it), which
 * is six of the twelve dot products and 15 % of the rule's operations and was the smaller
 * one only for some non-uniformly scaled joints (random skin matrices Q diag(s) B^T, s in
 * 0.5..2: box volume +0.4-0.8 % on average, +3.7 % at most over 2,000 64-joint palettes).
 * Since issue 21 item 2 (round 5) a group of eight joints is read at fixed offsets
 * from its first joint (the palette entries and joint bounds of consecutive joints
 * are consecutive; the last, partial group is copied to the stack first, its missing
 * lanes repeating the last joint), so no per-lane index or address is computed, and
 * finiteness is checked on results the rule computes anyway: each of the 9 values of
 * A_a is in ||A_a||_F^2 (a sum of squares: a NaN or infinity makes it NaN or +inf)
 * and each t_i in P_i = (A_a c_a)_i + t_i (finite A_a c_a plus a NaN or infinity is
 * not finite), so the lanes' sum of P_x + P_y + P_z + ||A_a||_F^2 over all joints is
 * finite only if every value read is (a finite overflow also makes it infinite: the
 * caller then decides with the exact scan, as before). */
typedef struct snw_lbs8 { __m256 lx, ly, lz, hx, hy, hz, chk; int any; } snw_lbs8;

/* The Gershgorin bound (largest row sum of absolute values) of the Gram matrix of the
 * three vectors (x_i, y_i, z_i), i = 0, 1, 2, in eight lanes; *trace = its trace. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256 snw_gram_gershgorin8(
    __m256 x0, __m256 y0, __m256 z0, __m256 x1, __m256 y1, __m256 z1, __m256 x2, __m256 y2, __m256 z2, __m256 *trace)
{
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
#define SNW_DOT3(a0, a1, a2, b0, b1, b2) _mm256_fmadd_ps(a0, b0, _mm256_fmadd_ps(a1, b1, _mm256_mul_ps(a2, b2)))
    __m256 c00 = SNW_DOT3(x0, y0, z0, x0, y0, z0);
    __m256 c11 = SNW_DOT3(x1, y1, z1, x1, y1, z1);
    __m256 c22 = SNW_DOT3(x2, y2, z2, x2, y2, z2);
    __m256 c01 = _mm256_and_ps(SNW_DOT3(x0, y0, z0, x1, y1, z1), absm);
    __m256 c02 = _mm256_and_ps(SNW_DOT3(x0, y0, z0, x2, y2, z2), absm);
    __m256 c12 = _mm256_and_ps(SNW_DOT3(x1, y1, z1, x2, y2, z2), absm);
#undef SNW_DOT3
    *trace = _mm256_add_ps(c00, _mm256_add_ps(c11, c22));
    return _mm256_max_ps(_mm256_add_ps(c00, _mm256_add_ps(c01, c02)),
                         _mm256_max_ps(_mm256_add_ps(c11, _mm256_add_ps(c01, c12)),
                                       _mm256_add_ps(c22, _mm256_add_ps(c02, c12))));
}

/* A bound of ||A||_2^2 for eight 3x3 matrices A (m: their 3x4 rows, transposed, lane =
 * joint): min(||A||_F^2, Gershgorin of A^T A [, Gershgorin of A A^T when rows_too]);
 * *fro = ||A||_F^2. Shared by the LBS lanes and the rigid rules' scale pass. */
static inline __attribute__((always_inline, target("avx2,fma"))) __m256 snw_norm2_bound8(const __m256 *m, int rows_too,
                                                                                        __m256 *fro)
{
    /* A^T A: the Gram matrix of the columns; A A^T: of the rows (same trace, ||A||_F^2) */
    __m256 g = snw_gram_gershgorin8(m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10], fro);
    if (rows_too) {
        __m256 t;
        __m256 g2 = snw_gram_gershgorin8(m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10], &t);
        return _mm256_min_ps(*fro, _mm256_min_ps(g, g2));
    }
    return _mm256_min_ps(*fro, g);
}

/* groups x eight consecutive joints: p their palette entries (12 floats each), jb their
 * joint bounds, g their growths (NULL: none); the balls' boxes join the accumulators in
 * s (kept in registers over the groups). lane_rows / lane_cr (one group, the last, partial
 * one): lane k's palette entry and its (center, radius) by pointer instead of at fixed
 * offsets from p and jb (no copy of the entries and joint bounds to the stack). */
static inline __attribute__((always_inline, target("avx2,fma"))) void lbs_groups8(const float *p,
                                                                                 const sinew_joint_bounds *jb,
                                                                                 const float *g, uint32_t groups,
                                                                                 snw_lbs8 *st,
                                                                                 const float *const *lane_rows,
                                                                                 const float *const *lane_cr)
{
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 ninf = _mm256_set1_ps(-INFINITY), zero = _mm256_setzero_ps();
    __m256 lx = st->lx, ly = st->ly, lz = st->lz, hx = st->hx, hy = st->hy, hz = st->hz, chk = st->chk;
    int any = 0;
    for (uint32_t gi = 0; gi < groups; gi++, p += 96, jb += 8, g = g ? g + 8 : NULL) {
        __m256 m[12]; /* a00 a01 a02 t0 a10 a11 a12 t1 a20 a21 a22 t2, lane = joint */
#define SNW_LOAD2(p, q) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(q), 1)
#define SNW_T8X4(q0, q1, q2, q3, o0, o1, o2, o3)                                                     \
        do {                                                                                            \
            __m256 u0 = _mm256_unpacklo_ps(q0, q1), u1 = _mm256_unpacklo_ps(q2, q3);                     \
            __m256 u2 = _mm256_unpackhi_ps(q0, q1), u3 = _mm256_unpackhi_ps(q2, q3);                     \
            o0 = _mm256_shuffle_ps(u0, u1, 0x44); o1 = _mm256_shuffle_ps(u0, u1, 0xee);                  \
            o2 = _mm256_shuffle_ps(u2, u3, 0x44); o3 = _mm256_shuffle_ps(u2, u3, 0xee);                  \
        } while (0)
        for (int row = 0; row < 3; row++) {
            __m256 q0, q1, q2, q3;
            if (lane_rows) {
                const float *const *lr = lane_rows;
                q0 = SNW_LOAD2(lr[0] + 4 * row, lr[4] + 4 * row); q1 = SNW_LOAD2(lr[1] + 4 * row, lr[5] + 4 * row);
                q2 = SNW_LOAD2(lr[2] + 4 * row, lr[6] + 4 * row); q3 = SNW_LOAD2(lr[3] + 4 * row, lr[7] + 4 * row);
            } else {
                const float *b = p + 4 * row; /* lane k's row at b + 12 k: constant offsets */
                q0 = SNW_LOAD2(b, b + 48); q1 = SNW_LOAD2(b + 12, b + 60);
                q2 = SNW_LOAD2(b + 24, b + 72); q3 = SNW_LOAD2(b + 36, b + 84);
            }
            SNW_T8X4(q0, q1, q2, q3, m[4 * row], m[4 * row + 1], m[4 * row + 2], m[4 * row + 3]);
        }
        __m256 cx, cy, cz, r; /* (cx, cy, cz, r) of each joint, transposed */
        if (lane_cr) {
            __m256 q0 = SNW_LOAD2(lane_cr[0], lane_cr[4]), q1 = SNW_LOAD2(lane_cr[1], lane_cr[5]);
            __m256 q2 = SNW_LOAD2(lane_cr[2], lane_cr[6]), q3 = SNW_LOAD2(lane_cr[3], lane_cr[7]);
            SNW_T8X4(q0, q1, q2, q3, cx, cy, cz, r);
        } else {
            __m256 q0 = SNW_LOAD2(jb[0].center, jb[4].center), q1 = SNW_LOAD2(jb[1].center, jb[5].center);
            __m256 q2 = SNW_LOAD2(jb[2].center, jb[6].center), q3 = SNW_LOAD2(jb[3].center, jb[7].center);
            SNW_T8X4(q0, q1, q2, q3, cx, cy, cz, r);
        }
#undef SNW_LOAD2
#undef SNW_T8X4
        __m256 used = _mm256_cmp_ps(r, zero, _CMP_GE_OQ);
        any |= _mm256_movemask_ps(used);
        if (g) r = _mm256_add_ps(r, _mm256_loadu_ps(g));
        /* P = A c + t */
        __m256 px = _mm256_fmadd_ps(m[0], cx, _mm256_fmadd_ps(m[1], cy, _mm256_fmadd_ps(m[2], cz, m[3])));
        __m256 py = _mm256_fmadd_ps(m[4], cx, _mm256_fmadd_ps(m[5], cy, _mm256_fmadd_ps(m[6], cz, m[7])));
        __m256 pz = _mm256_fmadd_ps(m[8], cx, _mm256_fmadd_ps(m[9], cy, _mm256_fmadd_ps(m[10], cz, m[11])));
        __m256 fro;
        __m256 l = snw_norm2_bound8(m, 0, &fro); /* A A^T's Gershgorin bound left out: see above */
        __m256 sn = _mm256_sqrt_ps(_mm256_fmadd_ps(fro, _mm256_set1_ps(2e-6f), l));
        /* finiteness of everything read (see above) */
        chk = _mm256_add_ps(chk, _mm256_add_ps(_mm256_add_ps(px, py), _mm256_add_ps(pz, fro)));
        /* e_i = s (r (1 + 2e-6) + 3e-7 |c|_1) + 3e-7 |t_i| + 1e-30; unused joints: -inf */
        __m256 c1 = _mm256_add_ps(_mm256_and_ps(cx, absm), _mm256_add_ps(_mm256_and_ps(cy, absm), _mm256_and_ps(cz, absm)));
        __m256 k = _mm256_fmadd_ps(r, _mm256_set1_ps(1.0f + 2e-6f), _mm256_mul_ps(c1, _mm256_set1_ps(3e-7f)));
        __m256 e = _mm256_fmadd_ps(sn, k, _mm256_set1_ps(1e-30f));
        e = _mm256_blendv_ps(ninf, e, used);
        const __m256 eps = _mm256_set1_ps(3e-7f);
        __m256 ex = _mm256_fmadd_ps(_mm256_and_ps(m[3], absm), eps, e);
        __m256 ey = _mm256_fmadd_ps(_mm256_and_ps(m[7], absm), eps, e);
        __m256 ez = _mm256_fmadd_ps(_mm256_and_ps(m[11], absm), eps, e);
        lx = _mm256_min_ps(lx, _mm256_sub_ps(px, ex));
        ly = _mm256_min_ps(ly, _mm256_sub_ps(py, ey));
        lz = _mm256_min_ps(lz, _mm256_sub_ps(pz, ez));
        hx = _mm256_max_ps(hx, _mm256_add_ps(px, ex));
        hy = _mm256_max_ps(hy, _mm256_add_ps(py, ey));
        hz = _mm256_max_ps(hz, _mm256_add_ps(pz, ez));
    }
    st->lx = lx; st->ly = ly; st->lz = lz; st->hx = hx; st->hy = hy; st->hz = hz; st->chk = chk;
    st->any |= any;
}

/* Returns 1 when some joint has a vertex (the padded box then written to box_min /
 * box_max), 0 when none, -1 when a value of the first 12 floats of a joint's entry may
 * not be finite (the caller then decides with palette_finite; nothing written). The
 * joints from `a` on (fewer than 16) in groups of eight (the last, partial one by
 * per-lane pointers), then the reduction of s. */
static inline __attribute__((always_inline, target("avx2,fma"))) int lbs_finish8(const sinew_joint_bounds *joints,
                                                                                uint32_t joint_count, const float *pal,
                                                                                const float *growth, uint32_t a,
                                                                                snw_lbs8 *sp, float box_min[3],
                                                                                float box_max[3])
{
    snw_lbs8 s = *sp;
    uint32_t full = (joint_count - a) / 8u;
    if (growth) lbs_groups8(pal + 12u * a, joints + a, growth + a, full, &s, NULL, NULL);
    else lbs_groups8(pal + 12u * a, joints + a, NULL, full, &s, NULL, NULL);
    a += 8u * full;
    if (a < joint_count) { /* the last group by per-lane pointers, the last joint repeated (its ball again) */
        const float *lr[8], *lc[8];
        float tg[8];
        for (uint32_t k = 0; k < 8; k++) {
            uint32_t j = a + k < joint_count ? a + k : joint_count - 1;
            lr[k] = pal + 12u * j;
            lc[k] = joints[j].center;
            tg[k] = growth ? growth[j] : 0.0f;
        }
        lbs_groups8(NULL, NULL, growth ? tg : NULL, 1, &s, lr, lc);
    }
    /* a sum of finite values may overflow to infinity: then the caller checks exactly */
    __m256 f = _mm256_sub_ps(s.chk, s.chk); /* NaN in a lane iff the sum is not finite */
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q))) return -1;
    /* the eight lanes' min / max, in registers */
#define SNW_HRED(v, op)                                                                                 \
    _mm256_cvtss_f32(op(op(op(v, _mm256_permute2f128_ps(v, v, 1)), _mm256_permute_ps(op(v, _mm256_permute2f128_ps(v, v, 1)), 0x4e)), \
                        _mm256_permute_ps(op(op(v, _mm256_permute2f128_ps(v, v, 1)), _mm256_permute_ps(op(v, _mm256_permute2f128_ps(v, v, 1)), 0x4e)), 0xb1)))
    double lo[3] = { SNW_HRED(s.lx, _mm256_min_ps), SNW_HRED(s.ly, _mm256_min_ps), SNW_HRED(s.lz, _mm256_min_ps) };
    double hi[3] = { SNW_HRED(s.hx, _mm256_max_ps), SNW_HRED(s.hy, _mm256_max_ps), SNW_HRED(s.hz, _mm256_max_ps) };
#undef SNW_HRED
    /* the box written here, from registers (through the caller's memory, a vector load of
     * two scalar stores stalled store forwarding: ~10 ns of a 12-joint call) */
    if (s.any) pad_box(lo, hi, box_min, box_max);
    return s.any != 0;
}

/* stride must be 12 (the caller checks it); returns as lbs_finish8. */
__attribute__((target("avx2,fma"), aligned(64))) static int lbs_boxes_avx2(const sinew_joint_bounds *joints, uint32_t joint_count,
                                                               const float *pal, const float *growth, float box_min[3],
                                                               float box_max[3])
{
    snw_lbs8 s;
    s.lx = s.ly = s.lz = _mm256_set1_ps(INFINITY);
    s.hx = s.hy = s.hz = _mm256_set1_ps(-INFINITY);
    s.chk = _mm256_setzero_ps();
    s.any = 0;
    return lbs_finish8(joints, joint_count, pal, growth, 0, &s, box_min, box_max);
}

#if !defined(SNW_BOUNDS_NO_AVX512)
#define SNW_BOUNDS_AVX512 1
/* The same rule sixteen joints at a time where the CPU has AVX-512F (selected at run
 * time; a build with -DSNW_BOUNDS_NO_AVX512 keeps the eight lanes, for comparisons):
 * the same operations in the same order on 16 lanes (lane k = joint a + k; the 16-byte
 * rows of joints k, k + 4, k + 8, k + 12 loaded into one register, transposed within
 * each 128-bit block, as the eight-lane code does with two), so the same box bit for bit;
 * 32 registers, so the accumulators and the 12 transposed values need no spills. The
 * joints past the last full group of 16 take the eight-lane code. The same norm bound,
 * min(Gershgorin of A^T A, ||A||_F^2). */
__attribute__((target("avx512f,avx2,fma"), aligned(64))) static int lbs_boxes_avx512(const sinew_joint_bounds *joints,
                                                                         uint32_t joint_count, const float *pal,
                                                                         const float *growth, float box_min[3],
                                                                         float box_max[3])
{
    const __m512 ninf = _mm512_set1_ps(-INFINITY), zero = _mm512_setzero_ps();
    __m512 lx = _mm512_set1_ps(INFINITY), ly = lx, lz = lx, hx = ninf, hy = ninf, hz = ninf, chk = zero;
    uint32_t any = 0, a = 0;
    const float *p = pal;
    const sinew_joint_bounds *jb = joints;
    for (; a + 16 <= joint_count; a += 16, p += 192, jb += 16) {
        __m512 m[12]; /* a00 a01 a02 t0 a10 a11 a12 t1 a20 a21 a22 t2, lane = joint */
#define SNW_LOAD4(p0, p1, p2, p3)                                                                               \
    _mm512_insertf32x4(_mm512_insertf32x4(_mm512_insertf32x4(_mm512_castps128_ps512(_mm_loadu_ps(p0)), _mm_loadu_ps(p1), 1), \
                                          _mm_loadu_ps(p2), 2),                                                  \
                       _mm_loadu_ps(p3), 3)
#define SNW_T16X4(q0, q1, q2, q3, o0, o1, o2, o3)                                                    \
    do {                                                                                            \
        __m512 u0 = _mm512_unpacklo_ps(q0, q1), u1 = _mm512_unpacklo_ps(q2, q3);                     \
        __m512 u2 = _mm512_unpackhi_ps(q0, q1), u3 = _mm512_unpackhi_ps(q2, q3);                     \
        o0 = _mm512_shuffle_ps(u0, u1, 0x44); o1 = _mm512_shuffle_ps(u0, u1, 0xee);                  \
        o2 = _mm512_shuffle_ps(u2, u3, 0x44); o3 = _mm512_shuffle_ps(u2, u3, 0xee);                  \
    } while (0)
        for (int row = 0; row < 3; row++) {
            const float *b = p + 4 * row; /* joint k's row at b + 12 k */
            __m512 q0 = SNW_LOAD4(b, b + 48, b + 96, b + 144), q1 = SNW_LOAD4(b + 12, b + 60, b + 108, b + 156);
            __m512 q2 = SNW_LOAD4(b + 24, b + 72, b + 120, b + 168), q3 = SNW_LOAD4(b + 36, b + 84, b + 132, b + 180);
            SNW_T16X4(q0, q1, q2, q3, m[4 * row], m[4 * row + 1], m[4 * row + 2], m[4 * row + 3]);
        }
        __m512 cx, cy, cz, r;
        {
            __m512 q0 = SNW_LOAD4(jb[0].center, jb[4].center, jb[8].center, jb[12].center);
            __m512 q1 = SNW_LOAD4(jb[1].center, jb[5].center, jb[9].center, jb[13].center);
            __m512 q2 = SNW_LOAD4(jb[2].center, jb[6].center, jb[10].center, jb[14].center);
            __m512 q3 = SNW_LOAD4(jb[3].center, jb[7].center, jb[11].center, jb[15].center);
            SNW_T16X4(q0, q1, q2, q3, cx, cy, cz, r);
        }
#undef SNW_LOAD4
#undef SNW_T16X4
        __mmask16 used = _mm512_cmp_ps_mask(r, zero, _CMP_GE_OQ);
        any |= used;
        if (growth) r = _mm512_add_ps(r, _mm512_loadu_ps(growth + a));
        __m512 px = _mm512_fmadd_ps(m[0], cx, _mm512_fmadd_ps(m[1], cy, _mm512_fmadd_ps(m[2], cz, m[3])));
        __m512 py = _mm512_fmadd_ps(m[4], cx, _mm512_fmadd_ps(m[5], cy, _mm512_fmadd_ps(m[6], cz, m[7])));
        __m512 pz = _mm512_fmadd_ps(m[8], cx, _mm512_fmadd_ps(m[9], cy, _mm512_fmadd_ps(m[10], cz, m[11])));
#define SNW_DOT3(a0, a1, a2, b0, b1, b2) _mm512_fmadd_ps(a0, b0, _mm512_fmadd_ps(a1, b1, _mm512_mul_ps(a2, b2)))
        __m512 c00 = SNW_DOT3(m[0], m[4], m[8], m[0], m[4], m[8]);
        __m512 c11 = SNW_DOT3(m[1], m[5], m[9], m[1], m[5], m[9]);
        __m512 c22 = SNW_DOT3(m[2], m[6], m[10], m[2], m[6], m[10]);
        __m512 c01 = _mm512_abs_ps(SNW_DOT3(m[0], m[4], m[8], m[1], m[5], m[9]));
        __m512 c02 = _mm512_abs_ps(SNW_DOT3(m[0], m[4], m[8], m[2], m[6], m[10]));
        __m512 c12 = _mm512_abs_ps(SNW_DOT3(m[1], m[5], m[9], m[2], m[6], m[10]));
#undef SNW_DOT3
        __m512 g1 = _mm512_max_ps(_mm512_add_ps(c00, _mm512_add_ps(c01, c02)),
                                  _mm512_max_ps(_mm512_add_ps(c11, _mm512_add_ps(c01, c12)),
                                                _mm512_add_ps(c22, _mm512_add_ps(c02, c12))));
        __m512 fro = _mm512_add_ps(c00, _mm512_add_ps(c11, c22));
        __m512 l = _mm512_min_ps(fro, g1); /* A A^T's Gershgorin bound left out: see above */
        __m512 sn = _mm512_sqrt_ps(_mm512_fmadd_ps(fro, _mm512_set1_ps(2e-6f), l));
        chk = _mm512_add_ps(chk, _mm512_add_ps(_mm512_add_ps(px, py), _mm512_add_ps(pz, fro)));
        __m512 c1 = _mm512_add_ps(_mm512_abs_ps(cx), _mm512_add_ps(_mm512_abs_ps(cy), _mm512_abs_ps(cz)));
        __m512 k = _mm512_fmadd_ps(r, _mm512_set1_ps(1.0f + 2e-6f), _mm512_mul_ps(c1, _mm512_set1_ps(3e-7f)));
        __m512 e = _mm512_fmadd_ps(sn, k, _mm512_set1_ps(1e-30f));
        e = _mm512_mask_blend_ps(used, ninf, e);
        const __m512 eps = _mm512_set1_ps(3e-7f);
        __m512 ex = _mm512_fmadd_ps(_mm512_abs_ps(m[3]), eps, e);
        __m512 ey = _mm512_fmadd_ps(_mm512_abs_ps(m[7]), eps, e);
        __m512 ez = _mm512_fmadd_ps(_mm512_abs_ps(m[11]), eps, e);
        lx = _mm512_min_ps(lx, _mm512_sub_ps(px, ex));
        ly = _mm512_min_ps(ly, _mm512_sub_ps(py, ey));
        lz = _mm512_min_ps(lz, _mm512_sub_ps(pz, ez));
        hx = _mm512_max_ps(hx, _mm512_add_ps(px, ex));
        hy = _mm512_max_ps(hy, _mm512_add_ps(py, ey));
        hz = _mm512_max_ps(hz, _mm512_add_ps(pz, ez));
    }
    /* the two halves into the eight-lane accumulators, then the rest of the joints */
#define SNW_HI(v) _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))
    snw_lbs8 s;
    s.lx = _mm256_min_ps(_mm512_castps512_ps256(lx), SNW_HI(lx));
    s.ly = _mm256_min_ps(_mm512_castps512_ps256(ly), SNW_HI(ly));
    s.lz = _mm256_min_ps(_mm512_castps512_ps256(lz), SNW_HI(lz));
    s.hx = _mm256_max_ps(_mm512_castps512_ps256(hx), SNW_HI(hx));
    s.hy = _mm256_max_ps(_mm512_castps512_ps256(hy), SNW_HI(hy));
    s.hz = _mm256_max_ps(_mm512_castps512_ps256(hz), SNW_HI(hz));
    s.chk = _mm256_add_ps(_mm512_castps512_ps256(chk), SNW_HI(chk));
#undef SNW_HI
    s.any = any != 0;
    return lbs_finish8(joints, joint_count, pal, growth, a, &s, box_min, box_max);
}
#endif

/* (The lane functions start on a 64-byte boundary: with their loops placed wherever
 * the linker put them, the same code of rigid_boxes_avx2 ran 6 % slower in one build of
 * sinew-bench than in another on this machine, AMD Zen 4.) */

/* Joints the eight-lane rule of the rigid-part methods takes (its per-joint norm
 * bounds live on the stack); larger skeletons take the scalar loop. */
#define BOUNDS_SIMD_MAX 256u

/* DQS, CoR and their scale variants, with or without bulge but not its inner push
 * (bulge: each joint's posed segment ends join the box, as in the scalar loop),
 * eight joints per lane group
 * (AVX2 + FMA, float32). The same rules as the scalar loop (bounds.h), evaluated
 * differently: lane = joint a, with y_a (c_a, or g_a for CoR), Z_a = y_a (S_a y_a
 * for the scale methods) and P_a = R_a Z_a + t_a; then slot s of every lane's
 * N(a) \ {a} at once (lanes with fewer neighbours repeat a itself, which adds
 * nothing): the eight neighbours' dual quaternions (r, d) transposed in registers
 * and applied to Z_a as they are, not normalized first (exactly the normalized
 * map: R Z + t = Z + (2 / |r|^2) (r x (r x Z + w Z) + w d - dw r + r x d), one
 * division per slot), max |R_k Z_a + t_k - P_a|^2 and, for the scale methods,
 * max |S_k y_a - Z_a|^2 and max ||A_k||_2 (bounds per joint from a first pass, as
 * in lbs_boxes_avx2), all in the lane: no per-pair square root, normalization,
 * double arithmetic or stored matrix.
 * Rounding (u = 2^-24): an image R_k Z + t_k is within ~12u (|Z|_1 + |t_k|_1) of the
 * exact one and |t_k|_1 <= |X_k - P_a|_1 + |P_a|_1 + |R_k Z|_1 <= sqrt3 d + |P_a|_1 +
 * sqrt3 |Z|_1 (d the largest distance), so the distance term is within ~30u (8 |Z|_1 +
 * 2 |P_a|_1 + 4 d); the stage-1 distance and Z's own error within ~20u (2 max_k ||A_k||
 * |y|_1 + 2 max |tS_k|_1 + d1). The rule adds 4e-6 (~67u) times those sums and scales
 * e by 1 + 1e-5. Returns 1 when a joint has a vertex, 0 when none, -1 when the caller
 * must decide with the scalar loop (a loaded value or a result not finite, too many
 * joints). */
__attribute__((target("avx2,fma"), aligned(64))) static int rigid_boxes_avx2(const sinew_joint_bounds *joints,
                                                                 const uint16_t *neighbors, uint32_t joint_count,
                                                                 sinew_method method, const float *pal,
                                                                 uint32_t stride, int bulge, const float *growth,
                                                                 double lo[3], double hi[3])
{
    if (joint_count > BOUNDS_SIMD_MAX) return -1;
    const int cor = sinew_method_uses_centers(method);
    const int scale = method != SINEW_METHOD_DQS && method != SINEW_METHOD_COR;
    /* bulge (without the inner push): the segment ends of every joint with vertices join
     * the box; the bulge slots and the entry's pad slot are summed for finiteness too */
    const uint32_t bulge_off = SINEW_PAL_OFF_BULGE((uint32_t)method) * 4u;
    const int pad = bulge && stride > bulge_off + 12u;
    const uint32_t dq_off = SINEW_PAL_OFF_DQ((uint32_t)method) * 4u;
    const uint32_t jstep = (uint32_t)(sizeof(sinew_joint_bounds) / sizeof(float));
    float norms[BOUNDS_SIMD_MAX + 8u] __attribute__((aligned(32)));
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    __m256 fin = zero, tsmax = zero;
#define SNW_LOAD2(p, q) _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(q), 1)
#define SNW_T8X4(q0, q1, q2, q3, o0, o1, o2, o3)                                                     \
    do {                                                                                            \
        __m256 u0 = _mm256_unpacklo_ps(q0, q1), u1 = _mm256_unpacklo_ps(q2, q3);                     \
        __m256 u2 = _mm256_unpackhi_ps(q0, q1), u3 = _mm256_unpackhi_ps(q2, q3);                     \
        o0 = _mm256_shuffle_ps(u0, u1, 0x44); o1 = _mm256_shuffle_ps(u0, u1, 0xee);                  \
        o2 = _mm256_shuffle_ps(u2, u3, 0x44); o3 = _mm256_shuffle_ps(u2, u3, 0xee);                  \
    } while (0)
    /* the 16-byte rows at base + step * jx[0..7], transposed: o0..o3 = components */
#define SNW_GATHER4(base, step, jx, o0, o1, o2, o3)                                                  \
    do {                                                                                            \
        __m256 g0 = SNW_LOAD2((base) + (size_t)(step) * (jx)[0], (base) + (size_t)(step) * (jx)[4]); \
        __m256 g1 = SNW_LOAD2((base) + (size_t)(step) * (jx)[1], (base) + (size_t)(step) * (jx)[5]); \
        __m256 g2 = SNW_LOAD2((base) + (size_t)(step) * (jx)[2], (base) + (size_t)(step) * (jx)[6]); \
        __m256 g3 = SNW_LOAD2((base) + (size_t)(step) * (jx)[3], (base) + (size_t)(step) * (jx)[7]); \
        SNW_T8X4(g0, g1, g2, g3, o0, o1, o2, o3);                                                    \
    } while (0)
    /* the same with offsets (in floats) instead of indices times a step */
#define SNW_GATHER4O(base, o, o0, o1, o2, o3)                                                        \
    do {                                                                                            \
        __m256 g0 = SNW_LOAD2((base) + (o)[0], (base) + (o)[4]), g1 = SNW_LOAD2((base) + (o)[1], (base) + (o)[5]); \
        __m256 g2 = SNW_LOAD2((base) + (o)[2], (base) + (o)[6]), g3 = SNW_LOAD2((base) + (o)[3], (base) + (o)[7]); \
        SNW_T8X4(g0, g1, g2, g3, o0, o1, o2, o3);                                                    \
    } while (0)
#define SNW_ABS1(x, y, z) _mm256_add_ps(_mm256_and_ps(x, absm), _mm256_add_ps(_mm256_and_ps(y, absm), _mm256_and_ps(z, absm)))
#define SNW_ROWS(p, x, y, z) _mm256_fmadd_ps(p##0, x, _mm256_fmadd_ps(p##1, y, _mm256_fmadd_ps(p##2, z, p##3)))
    /* the dual quaternions of joints jx applied to (zx, zy, zz): (ox, oy, oz); fin += the loaded values */
#define SNW_DQ_APPLY(ofs, ox, oy, oz)                                                                 \
    do {                                                                                            \
        __m256 rx_, ry_, rz_, rw_, dx_, dy_, dz_, dw_;                                                      \
        SNW_GATHER4O(pal + dq_off, ofs, rx_, ry_, rz_, rw_);                                       \
        SNW_GATHER4O(pal + dq_off + 4, ofs, dx_, dy_, dz_, dw_);                                   \
        fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(rx_, ry_), _mm256_add_ps(rz_, rw_)), \
                                               _mm256_add_ps(_mm256_add_ps(dx_, dy_), _mm256_add_ps(dz_, dw_)))); \
        __m256 s_ = _mm256_div_ps(two, _mm256_fmadd_ps(rx_, rx_, _mm256_fmadd_ps(ry_, ry_, _mm256_fmadd_ps(rz_, rz_, _mm256_mul_ps(rw_, rw_))))); \
        __m256 ux_ = _mm256_fmadd_ps(rw_, zx, _mm256_fmsub_ps(ry_, zz, _mm256_mul_ps(rz_, zy)));        \
        __m256 uy_ = _mm256_fmadd_ps(rw_, zy, _mm256_fmsub_ps(rz_, zx, _mm256_mul_ps(rx_, zz)));        \
        __m256 uz_ = _mm256_fmadd_ps(rw_, zz, _mm256_fmsub_ps(rx_, zy, _mm256_mul_ps(ry_, zx)));        \
        /* r x u + w d - dw_ r + r x d = r x (u + d) + w d - dw_ r */                                   \
        ux_ = _mm256_add_ps(ux_, dx_); uy_ = _mm256_add_ps(uy_, dy_); uz_ = _mm256_add_ps(uz_, dz_);          \
        __m256 vx_ = _mm256_fmsub_ps(ry_, uz_, _mm256_mul_ps(rz_, uy_));                                  \
        __m256 vy_ = _mm256_fmsub_ps(rz_, ux_, _mm256_mul_ps(rx_, uz_));                                  \
        __m256 vz_ = _mm256_fmsub_ps(rx_, uy_, _mm256_mul_ps(ry_, ux_));                                  \
        vx_ = _mm256_fmadd_ps(rw_, dx_, _mm256_fnmadd_ps(dw_, rx_, vx_));                                  \
        vy_ = _mm256_fmadd_ps(rw_, dy_, _mm256_fnmadd_ps(dw_, ry_, vy_));                                  \
        vz_ = _mm256_fmadd_ps(rw_, dz_, _mm256_fnmadd_ps(dw_, rz_, vz_));                                  \
        ox = _mm256_fmadd_ps(s_, vx_, zx); oy = _mm256_fmadd_ps(s_, vy_, zy); oz = _mm256_fmadd_ps(s_, vz_, zz); \
    } while (0)
    /* pass 1 (scale methods): the bound of ||A_k||_2 of each joint's scale rows (as in
     * lbs_boxes_avx2) and the largest |tS_k|_1; lanes past the end write the padding */
    for (uint32_t a = 0; scale && a < joint_count; a += 8) {
        uint32_t jx[8];
        for (uint32_t k = 0; k < 8; k++) jx[k] = a + k < joint_count ? a + k : joint_count - 1;
        __m256 m[12];
        for (int row = 0; row < 3; row++) SNW_GATHER4(pal + 4 * row, stride, jx, m[4 * row], m[4 * row + 1], m[4 * row + 2], m[4 * row + 3]);
        fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(m[0], m[1]), _mm256_add_ps(m[2], m[3])),
                                               _mm256_add_ps(_mm256_add_ps(m[4], m[5]), _mm256_add_ps(m[6], m[7]))));
        fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(m[8], m[9]), _mm256_add_ps(m[10], m[11])));
        __m256 fro;
        __m256 l = snw_norm2_bound8(m, 1, &fro);
        _mm256_storeu_ps(norms + a, _mm256_mul_ps(_mm256_sqrt_ps(_mm256_fmadd_ps(fro, _mm256_set1_ps(2e-6f), l)),
                                                  _mm256_set1_ps(1.0f + 2e-6f)));
        tsmax = _mm256_max_ps(tsmax, SNW_ABS1(m[3], m[7], m[11]));
    }
    if (scale) { /* the largest |tS|_1 in every lane */
        tsmax = _mm256_max_ps(tsmax, _mm256_permute2f128_ps(tsmax, tsmax, 1));
        tsmax = _mm256_max_ps(tsmax, _mm256_permute_ps(tsmax, 0x4e));
        tsmax = _mm256_max_ps(tsmax, _mm256_permute_ps(tsmax, 0xb1));
    }
    /* pass 2: lane = joint */
    __m256 lx = _mm256_set1_ps(INFINITY), ly = lx, lz = lx, hx = ninf, hy = ninf, hz = ninf, chk = zero;
    int anymask = 0;
    const __m256 eps = _mm256_set1_ps(4e-6f);
    /* the lanes' joints: without bulge only the major joints of vertices (the others add
     * no ball), with it every joint (its segment ends join the box if it has vertices) */
    uint16_t lane_joint[BOUNDS_SIMD_MAX];
    uint32_t lanes = 0;
    for (uint32_t j = 0; j < joint_count; j++)
        if (bulge || (joints[j].radius >= 0.0f && joints[j].neighbor_count > 0)) lane_joint[lanes++] = (uint16_t)j;
    for (uint32_t a = 0; a < lanes; a += 8) {
        uint32_t jx[8], first[8], cnt[8], selfp[8], maxc = 0;
        int32_t major[8]; /* -1: the lane's joint is the major joint of a vertex (its ball joins the box) */
        size_t jo[8];
        for (uint32_t k = 0; k < 8; k++) {
            uint32_t j = lane_joint[a + k < lanes ? a + k : lanes - 1];
            const sinew_joint_bounds *jb = &joints[j];
            uint32_t f = jb->first_neighbor, c = jb->radius >= 0.0f ? jb->neighbor_count : 0u, self = c;
            major[k] = c ? -1 : 0;
            /* a itself (in N(a), usually first) adds nothing: its slot is skipped */
            if (c && neighbors[f] == j) self = 0;
            else
                for (uint32_t e = 0; e < c; e++)
                    if (neighbors[f + e] == j) { self = e; break; }
            c -= self < c;
            jx[k] = j; first[k] = f; cnt[k] = c; selfp[k] = self; jo[k] = (size_t)stride * j;
            maxc = c > maxc ? c : maxc;
        }
        /* the lane's point y and radius (c, r) or (g, q), the weight bound w, the offset o (CoR) */
        __m256 yx, yy, yz, rad, r0, wv, off = zero;
        {
            __m256 t0, t1, t2, t3;
            SNW_GATHER4(joints->center, jstep, jx, t0, t1, t2, r0);
            if (cor) {
                SNW_GATHER4(joints->cor_center, jstep, jx, yx, yy, yz, rad);
                SNW_GATHER4(joints->cor_center + 1, jstep, jx, t1, t2, t3, off);
            } else { yx = t0; yy = t1; yz = t2; rad = r0; }
            SNW_GATHER4(&joints->min_major_weight, jstep, jx, wv, t1, t2, t3);
            (void)t3;
        }
        __m256 used = _mm256_cmp_ps(r0, zero, _CMP_GE_OQ);
        /* the balls of the joints that are some vertex's major joint (N(a) not empty) */
        __m256 ball = _mm256_and_ps(used, _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)major)));
        anymask |= _mm256_movemask_ps(bulge ? used : ball);
        /* morph growth G: r + G for DQS; o + G for CoR (bounds.h, "Morph targets") */
        if (growth) {
            __m256 G = _mm256_set_ps(growth[jx[7]], growth[jx[6]], growth[jx[5]], growth[jx[4]],
                                     growth[jx[3]], growth[jx[2]], growth[jx[1]], growth[jx[0]]);
            if (cor) off = _mm256_add_ps(off, G);
            else rad = _mm256_add_ps(rad, G);
        }
        /* 1 / w (1/8 when no weight was recorded) */
        __m256 iw = _mm256_div_ps(one, _mm256_blendv_ps(_mm256_set1_ps(0.125f), wv, _mm256_cmp_ps(wv, zero, _CMP_GT_OQ)));
        /* Z = y or S_a y, P = R_a Z + t_a */
        __m256 zx = yx, zy = yy, zz = yz, nmax = one;
        if (scale) {
            __m256 s0, s1, s2, s3;
            SNW_GATHER4O(pal, jo, s0, s1, s2, s3);
            zx = SNW_ROWS(s, yx, yy, yz);
            SNW_GATHER4O(pal + 4, jo, s0, s1, s2, s3);
            zy = SNW_ROWS(s, yx, yy, yz);
            SNW_GATHER4O(pal + 8, jo, s0, s1, s2, s3);
            zz = SNW_ROWS(s, yx, yy, yz);
            nmax = _mm256_set_ps(norms[jx[7]], norms[jx[6]], norms[jx[5]], norms[jx[4]],
                                 norms[jx[3]], norms[jx[2]], norms[jx[1]], norms[jx[0]]);
        }
        __m256 px, py, pz;
        SNW_DQ_APPLY(jo, px, py, pz);
        __m256 sp1 = zero, sp2 = zero;
        for (uint32_t sl = 0; sl < maxc; sl++) {
            uint32_t kx[8];
            size_t ko[8];
            for (uint32_t k = 0; k < 8; k++) {
                kx[k] = sl < cnt[k] ? neighbors[first[k] + sl + (sl >= selfp[k])] : jx[k];
                ko[k] = (size_t)stride * kx[k];
            }
            __m256 ux, uy, uz;
            SNW_DQ_APPLY(ko, ux, uy, uz);
            ux = _mm256_sub_ps(ux, px); uy = _mm256_sub_ps(uy, py); uz = _mm256_sub_ps(uz, pz);
            sp2 = _mm256_max_ps(sp2, _mm256_fmadd_ps(ux, ux, _mm256_fmadd_ps(uy, uy, _mm256_mul_ps(uz, uz))));
            if (scale) {
                __m256 s0, s1, s2, s3;
                SNW_GATHER4O(pal, ko, s0, s1, s2, s3);
                ux = _mm256_sub_ps(SNW_ROWS(s, yx, yy, yz), zx);
                SNW_GATHER4O(pal + 4, ko, s0, s1, s2, s3);
                uy = _mm256_sub_ps(SNW_ROWS(s, yx, yy, yz), zy);
                SNW_GATHER4O(pal + 8, ko, s0, s1, s2, s3);
                uz = _mm256_sub_ps(SNW_ROWS(s, yx, yy, yz), zz);
                sp1 = _mm256_max_ps(sp1, _mm256_fmadd_ps(ux, ux, _mm256_fmadd_ps(uy, uy, _mm256_mul_ps(uz, uz))));
                nmax = _mm256_max_ps(nmax, _mm256_set_ps(norms[kx[7]], norms[kx[6]], norms[kx[5]], norms[kx[4]],
                                                         norms[kx[3]], norms[kx[2]], norms[kx[1]], norms[kx[0]]));
            }
        }
        /* the rule (bounds.h) with the rounding terms above */
        __m256 d2 = _mm256_sqrt_ps(sp2);
        __m256 err2 = _mm256_mul_ps(eps, _mm256_fmadd_ps(_mm256_set1_ps(8.0f), SNW_ABS1(zx, zy, zz),
                                                         _mm256_fmadd_ps(two, SNW_ABS1(px, py, pz),
                                                                         _mm256_mul_ps(_mm256_set1_ps(4.0f), d2))));
        __m256 spread2 = _mm256_add_ps(d2, err2), e;
        if (scale) {
            __m256 d1 = _mm256_sqrt_ps(sp1);
            __m256 err1 = _mm256_mul_ps(eps, _mm256_fmadd_ps(two, _mm256_fmadd_ps(nmax, SNW_ABS1(yx, yy, yz), tsmax), d1));
            __m256 e1 = _mm256_fmadd_ps(nmax, rad, _mm256_add_ps(d1, err1));
            e = cor ? _mm256_fmadd_ps(nmax, off, _mm256_add_ps(e1, spread2)) : _mm256_fmadd_ps(spread2, iw, e1);
        } else {
            e = cor ? _mm256_add_ps(_mm256_add_ps(rad, off), spread2) : _mm256_fmadd_ps(spread2, iw, rad);
        }
        e = _mm256_fmadd_ps(e, _mm256_set1_ps(1.0f + 1e-5f), _mm256_set1_ps(1e-30f));
        chk = _mm256_add_ps(chk, _mm256_and_ps(_mm256_add_ps(_mm256_add_ps(px, py), _mm256_add_ps(pz, e)), ball));
        e = _mm256_blendv_ps(ninf, e, ball);
        lx = _mm256_min_ps(lx, _mm256_sub_ps(px, e));
        ly = _mm256_min_ps(ly, _mm256_sub_ps(py, e));
        lz = _mm256_min_ps(lz, _mm256_sub_ps(pz, e));
        hx = _mm256_max_ps(hx, _mm256_add_ps(px, e));
        hy = _mm256_max_ps(hy, _mm256_add_ps(py, e));
        hz = _mm256_max_ps(hz, _mm256_add_ps(pz, e));
        if (bulge) {
            __m256 ax, ay, az, a3, bx, by, bz, b3v, q0, q1, q2, q3;
            SNW_GATHER4O(pal + bulge_off, jo, ax, ay, az, a3);
            SNW_GATHER4O(pal + bulge_off + 4, jo, bx, by, bz, b3v);
            SNW_GATHER4O(pal + bulge_off + 8, jo, q0, q1, q2, q3);
            fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(ax, ay), _mm256_add_ps(az, a3)),
                                                   _mm256_add_ps(_mm256_add_ps(bx, by), _mm256_add_ps(bz, b3v))));
            fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(q0, q1), _mm256_add_ps(q2, q3)));
            if (pad) {
                SNW_GATHER4O(pal + bulge_off + 12, jo, q0, q1, q2, q3);
                fin = _mm256_add_ps(fin, _mm256_add_ps(_mm256_add_ps(q0, q1), _mm256_add_ps(q2, q3)));
            }
            const __m256 pinf = _mm256_set1_ps(INFINITY);
            lx = _mm256_min_ps(lx, _mm256_blendv_ps(pinf, _mm256_min_ps(ax, bx), used));
            ly = _mm256_min_ps(ly, _mm256_blendv_ps(pinf, _mm256_min_ps(ay, by), used));
            lz = _mm256_min_ps(lz, _mm256_blendv_ps(pinf, _mm256_min_ps(az, bz), used));
            hx = _mm256_max_ps(hx, _mm256_blendv_ps(ninf, _mm256_max_ps(ax, bx), used));
            hy = _mm256_max_ps(hy, _mm256_blendv_ps(ninf, _mm256_max_ps(ay, by), used));
            hz = _mm256_max_ps(hz, _mm256_blendv_ps(ninf, _mm256_max_ps(az, bz), used));
        }
    }
#undef SNW_DQ_APPLY
#undef SNW_ROWS
#undef SNW_ABS1
#undef SNW_GATHER4
#undef SNW_GATHER4O
#undef SNW_T8X4
#undef SNW_LOAD2
    /* a sum of finite palette values may overflow to infinity, a zero quaternion give
     * a non-finite centre: then the scalar loop decides (and checks the palette exactly) */
    __m256 f = _mm256_add_ps(_mm256_sub_ps(fin, fin), _mm256_sub_ps(chk, chk));
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q))) return -1;
    float b[6][8];
    _mm256_storeu_ps(b[0], lx); _mm256_storeu_ps(b[1], ly); _mm256_storeu_ps(b[2], lz);
    _mm256_storeu_ps(b[3], hx); _mm256_storeu_ps(b[4], hy); _mm256_storeu_ps(b[5], hz);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 8; k++) {
            lo[i] = b[i][k] < lo[i] ? b[i][k] : lo[i];
            hi[i] = b[3 + i][k] > hi[i] ? b[3 + i][k] : hi[i];
        }
    return anymask != 0;
}
#else
#define SNW_BOUNDS_AVX2 0
#endif

static sinew_result bounds_scalar(const sinew_joint_bounds *joints, const uint16_t *neighbors, uint32_t joint_count,
                                  sinew_method method, uint32_t flags, const float *packed_palette,
                                  const float *growth, uint32_t stride, float box_min[3], float box_max[3]);

sinew_result sinew_character_bounds(const sinew_joint_bounds *joints, const uint16_t *neighbors,
                                    uint32_t joint_count, sinew_method method, uint32_t flags,
                                    const float *packed_palette, float box_min[3], float box_max[3])
{
    return sinew_character_bounds_morphed(joints, neighbors, joint_count, method, flags, packed_palette, NULL,
                                          box_min, box_max);
}

sinew_result sinew_character_bounds_morphed(const sinew_joint_bounds *joints, const uint16_t *neighbors,
                                            uint32_t joint_count, sinew_method method, uint32_t flags,
                                            const float *packed_palette, const float *growth, float box_min[3],
                                            float box_max[3])
{
    if (!joints || !neighbors || !packed_palette || !box_min || !box_max) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t a = 0; growth && a < joint_count; a++) {
        if (!isfinite(growth[a])) return SINEW_ERROR_NON_FINITE;
        if (growth[a] < 0.0f) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if ((unsigned)method >= SINEW_METHOD_COUNT || (flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL) ||
        ((flags & SINEW_SKIN_BULGE_INNER) && !(flags & SINEW_SKIN_BULGE_CORRECTION)))
        return SINEW_ERROR_INVALID_ARGUMENT;
    int cor = sinew_method_uses_centers(method);
    for (uint32_t a = 0; cor && a < joint_count; a++)
        if (joints[a].radius >= 0.0f && !joints[a].has_centers) return SINEW_ERROR_NOT_FOUND;
    uint32_t stride = sinew_palette_gpu_stride(method, flags) * 4u; /* floats per joint */
#if SNW_BOUNDS_AVX2
    /* LBS without bulge (12 floats per joint) on AVX2: the eight-lane rule, which
     * checks finiteness on the values it loads (the exact scan only if that fails) */
    if (method == SINEW_METHOD_LBS && !(flags & SINEW_SKIN_BULGE_CORRECTION) && stride == 12u &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        int any8 =
#ifdef SNW_BOUNDS_AVX512
            __builtin_cpu_supports("avx512f") ? lbs_boxes_avx512(joints, joint_count, packed_palette, growth, box_min, box_max) :
#endif
            lbs_boxes_avx2(joints, joint_count, packed_palette, growth, box_min, box_max);
        if (any8 >= 0) return any8 ? SINEW_OK : SINEW_ERROR_EMPTY;
    }
    /* DQS, CoR and the scale methods without the inner push: their neighbour rule eight joints
     * at a time (rigid_boxes_avx2; same box up to its rounding terms; a build with
     * -DSNW_BOUNDS_NO_RIGID_AVX2 keeps the scalar loop, for comparisons) */
#ifndef SNW_BOUNDS_NO_RIGID_AVX2
    if (method != SINEW_METHOD_LBS && !(flags & SINEW_SKIN_BULGE_INNER) &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        double l8[3] = { INFINITY, INFINITY, INFINITY }, h8[3] = { -INFINITY, -INFINITY, -INFINITY };
        int any8 = rigid_boxes_avx2(joints, neighbors, joint_count, method, packed_palette, stride,
                                    (flags & SINEW_SKIN_BULGE_CORRECTION) != 0, growth, l8, h8);
        if (any8 >= 0) return finish_box(any8, l8, h8, box_min, box_max);
    }
#endif
#endif
    return bounds_scalar(joints, neighbors, joint_count, method, flags, packed_palette, growth, stride, box_min,
                         box_max);
}

/* The float64 loop (and the four-lane SSE LBS rule), one joint at a time: its ~13 KiB of
 * per-joint caches live in this frame, not in the lanes' caller. */
static __attribute__((noinline)) sinew_result bounds_scalar(const sinew_joint_bounds *joints,
                                                             const uint16_t *neighbors, uint32_t joint_count,
                                                             sinew_method method, uint32_t flags,
                                                             const float *packed_palette, const float *growth,
                                                             uint32_t stride, float box_min[3], float box_max[3])
{
    int cor = sinew_method_uses_centers(method);
    if (!palette_finite(packed_palette, (size_t)stride * joint_count)) return SINEW_ERROR_NON_FINITE;
    int scale = method != SINEW_METHOD_LBS && method != SINEW_METHOD_DQS && method != SINEW_METHOD_COR;
    uint32_t dq_off = SINEW_PAL_OFF_DQ((uint32_t)method) * 4u; /* floats */
    uint32_t bulge_off = SINEW_PAL_OFF_BULGE((uint32_t)method) * 4u;
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    int any = 0;
#if SNW_BOUNDS_SSE
    /* LBS without bulge: the per-joint rule in SIMD (lbs_boxes_sse), nothing else to do */
    int simd = method == SINEW_METHOD_LBS && !(flags & SINEW_SKIN_BULGE_CORRECTION);
    if (simd) any = lbs_boxes_sse(joints, joint_count, packed_palette, stride, growth, lo, hi);
#else
    int simd = 0;
#endif
    /* Per joint, once per call rather than once per (joint, neighbour) pair: the
     * spectral-norm bound of the affine rows and the rigid map of the dual
     * quaternion. On the stack up to BOUNDS_CACHE joints (13 KiB), computed in
     * the neighbour loops beyond (no allocation either way). */
    double norm_cache[BOUNDS_CACHE], mat_cache[12u * BOUNDS_CACHE];
    const double *norms = NULL, *mats = NULL;
    if (!simd && joint_count <= BOUNDS_CACHE) {
        if (method == SINEW_METHOD_LBS || scale) {
            for (uint32_t a = 0; a < joint_count; a++) norm_cache[a] = spectral_norm(packed_palette + (size_t)stride * a);
            norms = norm_cache;
        }
        if (method != SINEW_METHOD_LBS) {
            for (uint32_t a = 0; a < joint_count; a++) dq_matrix(packed_palette + (size_t)stride * a + dq_off, mat_cache + 12u * a);
            mats = mat_cache;
        }
    }
    for (uint32_t a = 0; !simd && a < joint_count; a++) {
        const sinew_joint_bounds *jb = &joints[a];
        if (!(jb->radius >= 0.0f)) continue;
        const float *pa = packed_palette + (size_t)stride * a;
        bv3 c = b3(jb->center[0], jb->center[1], jb->center[2]);
        /* morphed rest vertices: within growth[a] of the rest ones (bounds.h), so the
         * sphere's radius and the CoR offset grow by it; the centers of rotation do not move */
        double G = growth ? (double)growth[a] : 0.0;
        double r = jb->radius + G, wmin = jb->min_major_weight > 0 ? jb->min_major_weight : 1.0 / 8.0;
        const uint16_t *nb = neighbors + jb->first_neighbor;
        uint32_t nn = jb->neighbor_count;
        bv3 P;
        double e;
        /* the neighbour rules: a ball only around the major joints of vertices (bounds.h) */
        int ball = method == SINEW_METHOD_LBS || nn > 0;
        if (!ball && !(flags & SINEW_SKIN_BULGE_CORRECTION)) continue;
        any = 1;
        if (!ball) {
            P = b3(0.0, 0.0, 0.0);
            e = -INFINITY;
        } else if (cor) {
            /* CoR (bounds.h; proof in README "Bounds for culling"): the vertex's center
             * c lies within q of g, p within o of c. */
            bv3 g = b3(jb->cor_center[0], jb->cor_center[1], jb->cor_center[2]);
            double q = jb->cor_radius, o = jb->cor_offset + G, e1 = q, norm = 1.0;
            if (scale) { /* stage 1: c1 = sum w_k S_k c within e1 of S_a g; |p1 - c1| <= max ||A_k|| o */
                bv3 Ga = rows_apply(pa, g, NULL);
                e1 = rows_spread(packed_palette, stride, nb, nn, g, Ga, norms, &norm) + norm * q;
                g = Ga;
            }
            /* c' = sum w_k R_k c1 (T_k c for plain CoR): within e1 + max_k |R_k g - R_a g| of R_a g */
            bv3 Ra = mats ? matrix_apply(mats + 12u * a, g) : dq_apply(pa + dq_off, g);
            P = Ra; /* p' = R (p1 - c1) + c', R a rotation */
            e = e1 + dq_spread(packed_palette, stride, dq_off, nb, nn, g, Ra, mats) + norm * o;
        } else if (method == SINEW_METHOD_LBS) {
            /* LBS: a skinned vertex is a convex blend of the points T_k p, k its joints,
             * and each T_k p lies within ||A_k|| r_k of T_k c_k (p is in joint k's
             * sphere): inside the union of those balls' boxes, a convex set. One
             * transform and one norm per joint, no neighbour loop. */
            P = rows_apply(pa, c, NULL);
            e = (norms ? norms[a] : spectral_norm(pa)) * r;
        } else if (scale) {
            /* stage 1: around S_a c, by the neighbour rule (stage 2 needs one center) */
            double norm;
            P = rows_apply(pa, c, NULL);
            e = rows_spread(packed_palette, stride, nb, nn, c, P, norms, &norm) + norm * r;
            /* stage 2: DQS of the R_k around S_a c with radius e */
            bv3 Ra = mats ? matrix_apply(mats + 12u * a, P) : dq_apply(pa + dq_off, P);
            e = e + dq_spread(packed_palette, stride, dq_off, nb, nn, P, Ra, mats) / wmin;
            P = Ra;
        } else { /* DQS */
            P = mats ? matrix_apply(mats + 12u * a, c) : dq_apply(pa + dq_off, c);
            e = r + dq_spread(packed_palette, stride, dq_off, nb, nn, c, P, mats) / wmin;
        }
        if (ball) grow(lo, hi, P, e);
        if (flags & SINEW_SKIN_BULGE_CORRECTION) {
            bv3 sa = b3(pa[bulge_off], pa[bulge_off + 1], pa[bulge_off + 2]);
            bv3 sb = b3(pa[bulge_off + 4], pa[bulge_off + 5], pa[bulge_off + 6]);
            double ri = 0.0;
            if (flags & SINEW_SKIN_BULGE_INNER) {
                /* the inner push keeps a vertex within its target distance d0 |A_a g| of its
                 * major joint's posed segment; d0 <= dist(c_a, rest segment) + r_a, the rest
                 * segment being the posed one mapped back by X_a^-1 (unbounded if singular),
                 * and |A_a g| <= ||A_a||_2 (A_a the 3x3 of the rows that carry scale: LBS skin,
                 * scale methods S_a; 1 for DQS and CoR) */
                bv3 ra, rb;
                const float *dq = method == SINEW_METHOD_LBS ? NULL : pa + dq_off;
                const float *rows = method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR ? NULL : pa;
                if (joint_inverse(dq, rows, sa, &ra) && joint_inverse(dq, rows, sb, &rb))
                    ri = (segment_distance(c, ra, rb) + r) * (rows ? spectral_norm(rows) : 1.0);
                else
                    ri = INFINITY;
            }
            grow(lo, hi, sa, ri);
            grow(lo, hi, sb, ri);
        }
    }
    return finish_box(any, lo, hi, box_min, box_max);
}

/* The box from lo/hi, padded by 1e-5 of its size and position for float32 rounding. */
static sinew_result finish_box(int any, const double lo[3], const double hi[3], float box_min[3], float box_max[3])
{
    if (!any) return SINEW_ERROR_EMPTY;
    pad_box(lo, hi, box_min, box_max);
    return SINEW_OK;
}
