/* Sinew pose-space drivers (sinew/rbf.h): the RBF driver (Lewis et al. 2000)
 * and SMPL-style pose features. */
#include <sinew/linalg.h>
#include "error_internal.h"
#include "alloc_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sinew/rbf.h"



/* ---- RBF driver ------------------------------------------------------------ */

struct sinew_rbf {
    sinew_allocator alloc;
    uint32_t drivers, examples, outputs;
    sinew_rbf_kernel kernel;
    double width, condition;
    sinew_quat *ex;       /* examples x drivers, normalized */
    double *w;            /* examples x outputs */
};

static int quat_normalize(sinew_quat q, sinew_quat *out)
{
    double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!isfinite(l) || !(l > 1e-12)) return 0;
    out->x = q.x / l; out->y = q.y / l; out->z = q.z / l; out->w = q.w / l;
    return 1;
}

static double pose_distance_n(const sinew_quat *a, const sinew_quat *b, uint32_t n)
{
    /* theta = 2 acos|a.b| for unit a, b, evaluated as 4 atan2(|a - sb|, |a + sb|)
     * (s = sign(a.b)): acos loses half the digits near |a.b| = 1 (a pose 1e-12 rad
     * away came out ~3e-8), the half-angle form keeps full relative precision. */
    double s = 0.0;
    for (uint32_t j = 0; j < n; j++) {
        double d = a[j].x * b[j].x + a[j].y * b[j].y + a[j].z * b[j].z + a[j].w * b[j].w;
        double sg = d < 0.0 ? -1.0 : 1.0;
        double mx = a[j].x - sg * b[j].x, my = a[j].y - sg * b[j].y, mz = a[j].z - sg * b[j].z,
               mw = a[j].w - sg * b[j].w;
        double px = a[j].x + sg * b[j].x, py = a[j].y + sg * b[j].y, pz = a[j].z + sg * b[j].z,
               pw = a[j].w + sg * b[j].w;
        double th = 4.0 * atan2(sqrt(mx * mx + my * my + mz * mz + mw * mw), sqrt(px * px + py * py + pz * pz + pw * pw));
        s += th * th;
    }
    return sqrt(s);
}

double sinew_pose_distance(const sinew_quat *a, const sinew_quat *b, uint32_t driver_count)
{
    if (!a || !b) return NAN;
    double s = 0.0;
    for (uint32_t j = 0; j < driver_count; j++) {
        sinew_quat qa, qb;
        if (!quat_normalize(a[j], &qa) || !quat_normalize(b[j], &qb)) return NAN;
        double d = pose_distance_n(&qa, &qb, 1);
        s += d * d;
    }
    return sqrt(s);
}

static double phi(sinew_rbf_kernel k, double r, double width)
{
    switch (k) {
    case SINEW_RBF_GAUSSIAN: return exp(-(r / width) * (r / width));
    case SINEW_RBF_THIN_PLATE: return r > 0.0 ? r * r * log(r) : 0.0;
    default: return sqrt(r * r + width * width);
    }
}

/* In-place LU with partial pivoting of the n x n row-major a; 0 if singular. */
static int lu_factor(double *a, uint32_t n, uint32_t *piv)
{
    for (uint32_t c = 0; c < n; c++) {
        uint32_t p = c;
        for (uint32_t r = c + 1; r < n; r++)
            if (fabs(a[(size_t)r * n + c]) > fabs(a[(size_t)p * n + c])) p = r;
        piv[c] = p;
        if (!(fabs(a[(size_t)p * n + c]) > 0.0)) return 0;
        if (p != c)
            for (uint32_t k = 0; k < n; k++) {
                double t = a[(size_t)c * n + k];
                a[(size_t)c * n + k] = a[(size_t)p * n + k];
                a[(size_t)p * n + k] = t;
            }
        for (uint32_t r = c + 1; r < n; r++) {
            double f = a[(size_t)r * n + c] / a[(size_t)c * n + c];
            a[(size_t)r * n + c] = f;
            for (uint32_t k = c + 1; k < n; k++) a[(size_t)r * n + k] -= f * a[(size_t)c * n + k];
        }
    }
    return 1;
}

/* Solves LU x = b in place (b: n values with stride s). */
static void lu_solve(const double *a, uint32_t n, const uint32_t *piv, double *b, size_t s)
{
    for (uint32_t c = 0; c < n; c++)
        if (piv[c] != c) {
            double t = b[c * s];
            b[c * s] = b[piv[c] * s];
            b[piv[c] * s] = t;
        }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t k = 0; k < r; k++) b[r * s] -= a[(size_t)r * n + k] * b[k * s];
    for (uint32_t r = n; r-- > 0;) {
        for (uint32_t k = r + 1; k < n; k++) b[r * s] -= a[(size_t)r * n + k] * b[k * s];
        b[r * s] /= a[(size_t)r * n + r];
    }
}

sinew_result sinew_rbf_create(const sinew_rbf_desc *d, sinew_rbf **out, sinew_morph_error *err)
{
    snw_error_clear(err);
    if (!out) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out is NULL");
    *out = NULL;
    if (!d || !d->example_rotations)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "NULL desc or example rotations");
    sinew_allocator al;
    if (snw_allocator_resolve(d->allocator, &al) != SINEW_OK)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "allocator with one NULL callback");
    uint32_t D = d->driver_count, E = d->example_count, O = d->output_count;
    if (D == 0 || O == 0) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "zero drivers or outputs");
    if ((unsigned)d->kernel > SINEW_RBF_MULTIQUADRIC)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "unknown kernel %d", (int)d->kernel);
    if (!(d->width >= 0.0) || !isfinite(d->width) || !(d->regularization >= 0.0) || !isfinite(d->regularization) ||
        !(d->max_condition >= 0.0))
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                    "width, regularization and max_condition must be finite and >= 0");
    if (E < 2) return snw_fail_entry(err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "%u example(s): at least 2 needed", E);
    if (E > 4096 || D > 1024 || O > SINEW_MORPH_MAX_TARGETS * 4u)
        return snw_fail_entry(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "too many examples, drivers or outputs");
    if (!d->example_outputs && O != E)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                    "identity outputs need output_count (%u) == example_count (%u)", O, E);
    if (d->example_outputs)
        for (uint32_t e = 0; e < E; e++)
            for (uint32_t o = 0; o < O; o++)
                if (!isfinite(d->example_outputs[(size_t)e * O + o]))
                    return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, e, o, "example %u: output %u is not finite", e, o);

    sinew_rbf *rb = (sinew_rbf *)snw_calloc(&al, 1, sizeof *rb);
    double *a = NULL;
    uint32_t *piv = NULL;
    if (rb) {
        rb->alloc = al;
        rb->ex = (sinew_quat *)snw_alloc(&al, sizeof(sinew_quat) * (size_t)E * D);
        rb->w = (double *)snw_alloc(&al, sizeof(double) * (size_t)E * O);
        a = (double *)snw_alloc(&al, sizeof(double) * (size_t)E * E * 3);
        piv = (uint32_t *)snw_alloc(&al, sizeof(uint32_t) * E);
    }
    sinew_result r = SINEW_OK;
    if (!rb || !rb->ex || !rb->w || !a || !piv) {
        r = snw_fail_entry(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out of host memory");
        goto done;
    }
    rb->drivers = D;
    rb->examples = E;
    rb->outputs = O;
    rb->kernel = d->kernel;
    for (uint32_t e = 0; e < E && r == SINEW_OK; e++)
        for (uint32_t j = 0; j < D; j++)
            if (!quat_normalize(d->example_rotations[(size_t)e * D + j], &rb->ex[(size_t)e * D + j])) {
                r = snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, e, j,
                         "example %u: rotation of driver %u is non-finite or zero-length", e, j);
                break;
            }
    if (r != SINEW_OK) goto done;
    /* Distances, duplicates, default width. */
    double *dist = a + (size_t)E * E;
    double sum = 0.0;
    for (uint32_t i = 0; i < E; i++)
        for (uint32_t k = 0; k < E; k++) {
            double dd = pose_distance_n(&rb->ex[(size_t)i * D], &rb->ex[(size_t)k * D], D);
            dist[(size_t)i * E + k] = dd;
            if (k > i) {
                sum += dd;
                if (dd < 1e-9) {
                    r = snw_fail_entry(err, SINEW_ERROR_SINGULAR, SINEW_ITEM_MORPH_TARGET, k, i, "example %u duplicates example %u (pose distance %g rad)",
                             k, i, dd);
                    goto done;
                }
            }
        }
    rb->width = d->width > 0.0 ? d->width : sum / ((double)E * (E - 1) / 2.0);
    for (size_t i = 0; i < (size_t)E * E; i++) a[i] = phi(rb->kernel, dist[i], rb->width);
    /* Regularization (blendshape.h): the coefficients' Tikhonov problem,
     * min |Phi W - Y|^2 + lambda |W|^2, i.e. (Phi^T Phi + lambda I) W = Phi^T Y: positive
     * definite for any lambda > 0 and any kernel. (Phi + lambda I) would need Phi positive
     * definite: thin plate and multiquadric are not, nor is a Gaussian of the geodesic
     * pose distance in general, and an eigenvalue near -lambda blows the fit up.
     * |Phi W - Y| <= |Y| per output. Phi is kept (third block) for Phi^T Y. */
    const double lambda = d->regularization;
    const int normal_eq = lambda > 0.0;
    double *phim = a + (size_t)E * E * 2;
    if (normal_eq) {
        memcpy(phim, a, sizeof(double) * (size_t)E * E);
        for (uint32_t i = 0; i < E; i++)
            for (uint32_t k = 0; k < E; k++) {
                double s = 0.0;
                for (uint32_t m = 0; m < E; m++) s += phim[(size_t)m * E + i] * phim[(size_t)m * E + k];
                a[(size_t)i * E + k] = s;
            }
    }
    for (uint32_t i = 0; i < E; i++) a[(size_t)i * E + i] += lambda;
    /* 1-norm of the matrix before factoring. */
    double norm = 0.0;
    for (uint32_t c = 0; c < E; c++) {
        double s = 0.0;
        for (uint32_t rr = 0; rr < E; rr++) s += fabs(a[(size_t)rr * E + c]);
        if (s > norm) norm = s;
    }
    if (!lu_factor(a, E, piv)) {
        r = snw_fail_entry(err, SINEW_ERROR_SINGULAR, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "the RBF system is singular (ill-conditioned beyond float64)");
        goto done;
    }
    /* 1-norm of the inverse, column by column (dist is free again). */
    double inorm = 0.0;
    for (uint32_t c = 0; c < E; c++) {
        double *col = dist;
        for (uint32_t rr = 0; rr < E; rr++) col[rr] = rr == c ? 1.0 : 0.0;
        lu_solve(a, E, piv, col, 1);
        double s = 0.0;
        for (uint32_t rr = 0; rr < E; rr++) s += fabs(col[rr]);
        if (!isfinite(s)) s = INFINITY;
        if (s > inorm) inorm = s;
    }
    rb->condition = norm * inorm;
    double maxc = d->max_condition > 0.0 ? d->max_condition : 1e12;
    if (!(rb->condition <= maxc)) {
        r = snw_fail_entry(err, SINEW_ERROR_SINGULAR, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                 "the RBF system is ill-conditioned (condition number %g > %g): spread the examples, change the "
                 "width or add regularization",
                 rb->condition, maxc);
        goto done;
    }
    for (uint32_t e = 0; e < E; e++)
        for (uint32_t o = 0; o < O; o++) {
            double y;
            if (!normal_eq) {
                y = d->example_outputs ? d->example_outputs[(size_t)e * O + o] : (e == o ? 1.0 : 0.0);
            } else { /* (Phi^T Y)[e][o] */
                y = 0.0;
                for (uint32_t m = 0; m < E; m++)
                    y += phim[(size_t)m * E + e] *
                         (d->example_outputs ? d->example_outputs[(size_t)m * O + o] : (m == o ? 1.0 : 0.0));
            }
            rb->w[(size_t)e * O + o] = y;
        }
    for (uint32_t o = 0; o < O; o++) lu_solve(a, E, piv, rb->w + o, O);

done:
    if (a) snw_free(&al, a);
    if (piv) snw_free(&al, piv);
    if (r != SINEW_OK) {
        sinew_rbf_destroy(rb);
        return r;
    }
    *out = rb;
    return SINEW_OK;
}

void sinew_rbf_destroy(sinew_rbf *rb)
{
    if (!rb) return;
    sinew_allocator al = rb->alloc;
    if (rb->ex) snw_free(&al, rb->ex);
    if (rb->w) snw_free(&al, rb->w);
    snw_free(&al, rb);
}

/* acc[0..no) += sum over examples of w[e][o0 + o] * phi(d(rotations, example e)),
 * in example order (the same sums for the float64 and float32 entry points).
 * The rotations were checked normalizable. */
static void rbf_accumulate(const sinew_rbf *rb, const sinew_quat *rotations, uint32_t o0, uint32_t no, double *acc)
{
    uint32_t D = rb->drivers, O = rb->outputs;
    for (uint32_t e = 0; e < rb->examples; e++) {
        double s = 0.0;
        for (uint32_t j = 0; j < D; j++) {
            sinew_quat q;
            quat_normalize(rotations[j], &q);
            double th = pose_distance_n(&q, &rb->ex[(size_t)e * D + j], 1);
            s += th * th;
        }
        double f = phi(rb->kernel, sqrt(s), rb->width);
        for (uint32_t o = 0; o < no; o++) acc[o] += rb->w[(size_t)e * O + o0 + o] * f;
    }
}

static int rotations_ok(const sinew_rbf *rb, const sinew_quat *rotations)
{
    for (uint32_t j = 0; j < rb->drivers; j++) {
        sinew_quat q;
        if (!quat_normalize(rotations[j], &q)) return 0;
    }
    return 1;
}

sinew_result sinew_rbf_evaluate_f64(const sinew_rbf *rb, const sinew_quat *rotations, double *out)
{
    if (!rb || !rotations || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t o = 0; o < rb->outputs; o++) out[o] = 0.0;
    if (!rotations_ok(rb, rotations)) return SINEW_ERROR_NON_FINITE;
    rbf_accumulate(rb, rotations, 0, rb->outputs, out);
    return SINEW_OK;
}

sinew_result sinew_rbf_evaluate(const sinew_rbf *rb, const sinew_quat *rotations, float *weights_out)
{
    if (!rb || !rotations || !weights_out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!rotations_ok(rb, rotations)) return SINEW_ERROR_NON_FINITE;
    /* The float64 sums on the stack (outputs in chunks of RBF_CHUNK; the kernel
     * values are recomputed per chunk), rounded to float once. */
    enum { RBF_CHUNK = 64 };
    for (uint32_t o0 = 0; o0 < rb->outputs; o0 += RBF_CHUNK) {
        uint32_t no = rb->outputs - o0 < RBF_CHUNK ? rb->outputs - o0 : RBF_CHUNK;
        double acc[RBF_CHUNK];
        for (uint32_t o = 0; o < no; o++) acc[o] = 0.0;
        rbf_accumulate(rb, rotations, o0, no, acc);
        for (uint32_t o = 0; o < no; o++) weights_out[o0 + o] = (float)acc[o];
    }
    for (uint32_t o = 0; o < rb->outputs; o++)
        if (!isfinite(weights_out[o])) return SINEW_ERROR_NON_FINITE;
    return SINEW_OK;
}

uint32_t sinew_rbf_output_count(const sinew_rbf *rb) { return rb ? rb->outputs : 0; }
double sinew_rbf_condition(const sinew_rbf *rb) { return rb ? rb->condition : 0.0; }

/* ---- SMPL pose features ------------------------------------------------------ */

sinew_result sinew_smpl_pose_features(const sinew_quat *rotations, uint32_t driver_count, float *out)
{
    if (!rotations || !out || driver_count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t j = 0; j < driver_count; j++) {
        sinew_quat q;
        if (!quat_normalize(rotations[j], &q)) return SINEW_ERROR_NON_FINITE;
        double x = q.x, y = q.y, z = q.z, w = q.w;
        double m[9] = {
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
            2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y),
        };
        for (int k = 0; k < 9; k++) out[9 * (size_t)j + k] = (float)(m[k] - ((k % 4) == 0 ? 1.0 : 0.0));
    }
    return SINEW_OK;
}
