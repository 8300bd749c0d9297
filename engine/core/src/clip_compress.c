/* The clip compressor (sinew/clip_compress.h): per-track error budgets from
 * the skeleton's hierarchy, constant-track detection, 16-bit range-reduced
 * quantization (float32 where 16 bits miss the budget), key reduction under
 * the budget, then the object-space error of virtual points measured in
 * float64 over the whole clip; a pass that misses the tolerance is redone
 * with half the budgets. The format and its samplers: clip_internal.h,
 * clip_decompress.c.
 *
 * Budget of joint i (first order, exact for the telescoped error sum): with
 * M_i = T R S its local transform and W_p its parent's model transform, a
 * virtual point x below i (of i or a descendant) moves by at most
 *   |W_p| (|dT| + |y| (|dS| + 2 sin(dtheta / 2) |S|)),  y = W_i^-1 x,
 * so with b_i = tolerance / H_i (H_i: the most joints on a root-to-leaf path
 * through i, so the budgets along any chain add up to the tolerance), a third
 * of b_i goes to each of the translation, rotation and scale tracks, divided
 * by the largest |W_p| (Frobenius), |y| and |S| seen over the clip. */
#include <sinew/clip_compress.h>
#include <sinew/linalg.h>
#include "clip_internal.h"
#include "alloc_internal.h"
#include "error_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PASSES 14
#define FIRST_BUDGET 64.0 /* the first-order bounds are loose: start above them, halve until measured within */
#define MAX_ANALYSIS_TIMES 512

/* One track as the compressor leaves it. */
typedef struct enc_track {
    snw_ctrack h;
    uint32_t kept;     /* keys kept */
    double *times;     /* kept key times (ticks) */
    void *vals;        /* Q16: 3 uint16 per key; F32: comps floats per key */
} enc_track;

typedef struct cctx {
    const sinew_clip *clip;
    const sinew_allocator *al;
    uint32_t n;
    const int32_t *parent;
    double duration;
    /* scratch for one track (sized for the largest) */
    uint32_t cap;
    double *tau, *O, *M, *D;
    uint8_t *must;
    uint32_t *keep;
} cctx;

static void *xcalloc(const sinew_allocator *al, size_t n, size_t s) { return snw_calloc(al, n ? n : 1, s); }

static double errv(const double *a, const double *b, int rot)
{
    if (rot) {
        double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
        double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
        if (!(na > 0) || !(nb > 0)) return INFINITY;
        double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) / (na * nb);
        if (d > 1) d = 1;
        return 2 * sqrt(1 - d * d); /* 2 sin(theta / 2) for theta the angle between them */
    }
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}

/* The compressed interpolation between decoded keys p (time ta) and q (tb) at t. */
static void interp(const double *p, const double *q, double ta, double tb, double t, int rot, double *out)
{
    double a = tb > ta ? (t - ta) / (tb - ta) : 0;
    if (rot) {
        sinew_quat P = { p[0], p[1], p[2], p[3] }, Q = { q[0], q[1], q[2], q[3] };
        sinew_quat r = sinew_quat_slerp(sinew_quat_normalize(P), sinew_quat_normalize(Q), a);
        out[0] = r.x; out[1] = r.y; out[2] = r.z; out[3] = r.w;
    } else {
        for (int c = 0; c < 3; c++) out[c] = p[c] + (q[c] - p[c]) * a;
        out[3] = 0;
    }
}

/* Keys a..b (a < b) replaced by their interpolation: within tol at the keys between and at the midpoints? */
static int seg_ok(const cctx *x, uint32_t a, uint32_t b, int rot, double tol)
{
    if (x->tau[b] <= x->tau[a]) return b == a + 1;
    double v[4];
    for (uint32_t k = a; k < b; k++) {
        if (k > a) {
            interp(x->D + 4 * a, x->D + 4 * b, x->tau[a], x->tau[b], x->tau[k], rot, v);
            if (errv(v, x->O + 4 * k, rot) > tol) return 0;
        }
        if (x->tau[k + 1] > x->tau[k]) {
            interp(x->D + 4 * a, x->D + 4 * b, x->tau[a], x->tau[b], 0.5 * (x->tau[k] + x->tau[k + 1]), rot, v);
            if (errv(v, x->M + 4 * k, rot) > tol) return 0;
        }
    }
    return 1;
}

/* Points inside [ta, tb] of a cubic track where a line through the curve's
 * points misses it by more than tol at the quarter points (depth <= 6: at
 * most 63 points per key interval), appended in time order from m. */
static uint32_t subdivide(cctx *x, uint32_t j, int kind, double ta, const double *va, double tb, const double *vb,
                          double tol, int depth, uint32_t m)
{
    const int rot = kind == 1;
    double tm = 0.5 * (ta + tb), vm[4], q[4], l[4];
    snw_clip_track_sample(x->clip, j, kind, tm, vm);
    int split = 0;
    for (int s = 0; s < 3 && !split; s++) {
        double ts = ta + (tb - ta) * (0.25 * (s + 1));
        if (s == 1) memcpy(q, vm, sizeof q); else snw_clip_track_sample(x->clip, j, kind, ts, q);
        interp(va, vb, ta, tb, ts, rot, l);
        split = errv(l, q, rot) > tol;
    }
    if (!split || depth >= 6 || !(tm > ta && tm < tb)) return m;
    m = subdivide(x, j, kind, ta, va, tm, vm, tol, depth + 1, m);
    x->tau[m] = tm;
    memcpy(x->O + 4 * m, vm, sizeof vm);
    m++;
    return subdivide(x, j, kind, tm, vm, tb, vb, tol, depth + 1, m);
}

/* Compresses one track of joint j (kind 0 T, 1 R, 2 S) under tol into e
 * (arrays from the allocator). Returns 0 or OUT_OF_HOST_MEMORY. */
static sinew_result compress_track(cctx *x, uint32_t j, int kind, double tol, enc_track *e)
{
    memset(e, 0, sizeof *e);
    snw_track_view v;
    snw_clip_track_view(x->clip, j, kind, &v);
    if (!v.count) return SINEW_OK;
    const int rot = kind == 1, cub = v.mode == SINEW_INTERPOLATION_CUBICSPLINE;
    e->h.rot = (uint8_t)rot;
    e->h.step = v.mode == SINEW_INTERPOLATION_STEP;
    /* candidates: the keys (and three points inside each interval of a cubic track) */
    uint32_t m = 0;
    for (uint32_t k = 0; k < v.count; k++) {
        double tk = v.times[(size_t)k * v.time_stride];
        double *o = x->O + 4 * m;
        if (rot) { sinew_quat q = v.qkeys[k].value; o[0] = q.x; o[1] = q.y; o[2] = q.z; o[3] = q.w; }
        else { sinew_vec3 p = v.vkeys[k].value; o[0] = p.x; o[1] = p.y; o[2] = p.z; o[3] = 0; }
        x->tau[m++] = tk;
        if (cub && k + 1 < v.count) {
            double tn = v.times[(size_t)(k + 1) * v.time_stride];
            if (tn > tk) {
                double vn[4];
                if (rot) { sinew_quat q = v.qkeys[k + 1].value; vn[0] = q.x; vn[1] = q.y; vn[2] = q.z; vn[3] = q.w; }
                else { sinew_vec3 p = v.vkeys[k + 1].value; vn[0] = p.x; vn[1] = p.y; vn[2] = p.z; vn[3] = 0; }
                double o0[4];
                memcpy(o0, o, sizeof o0);
                m = subdivide(x, j, kind, tk, o0, tn, vn, tol * 0.25, 0, m);
            }
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        x->must[k] = 0;
        if (rot && x->O[4 * k + 3] < 0)
            for (int c = 0; c < 4; c++) x->O[4 * k + c] = -x->O[4 * k + c];
    }
    for (uint32_t k = 0; k + 1 < m; k++)
        if (x->tau[k + 1] <= x->tau[k]) x->must[k] = x->must[k + 1] = 1;
    for (uint32_t k = 0; k + 1 < m; k++)
        if (x->tau[k + 1] > x->tau[k]) snw_clip_track_sample(x->clip, j, kind, 0.5 * (x->tau[k] + x->tau[k + 1]), x->M + 4 * k);

    /* constant? */
    {
        float cf[4] = { (float)x->O[0], (float)x->O[1], (float)x->O[2], rot ? (float)x->O[3] : 0.f };
        if (rot) {
            double n2 = (double)cf[0] * cf[0] + (double)cf[1] * cf[1] + (double)cf[2] * cf[2] + (double)cf[3] * cf[3];
            float inv = (float)(1 / sqrt(n2));
            for (int c = 0; c < 4; c++) cf[c] *= inv;
        }
        double cd[4] = { cf[0], cf[1], cf[2], cf[3] };
        int ok = 1;
        for (uint32_t k = 0; k < m && ok; k++) ok = errv(cd, x->O + 4 * k, rot) <= tol;
        for (uint32_t k = 0; k + 1 < m && ok; k++)
            if (x->tau[k + 1] > x->tau[k]) ok = errv(cd, x->M + 4 * k, rot) <= tol;
        if (ok) {
            e->h.format = SNW_CT_CONST;
            e->h.comps = (uint8_t)(rot ? 4 : 3);
            memcpy(e->h.lo, cf, sizeof cf);
            return SINEW_OK;
        }
    }

    /* 16 bits over the track's range, else float32 */
    uint16_t *q16 = xcalloc(x->al, (size_t)m * 3u, sizeof(uint16_t));
    if (!q16) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    int q_ok = 1;
    for (int c = 0; c < 3; c++) {
        double mn = INFINITY, mx = -INFINITY;
        for (uint32_t k = 0; k < m; k++) { double t = x->O[4 * k + c]; if (t < mn) mn = t; if (t > mx) mx = t; }
        float lo = (float)mn;
        if ((double)lo > mn) lo = nextafterf(lo, -INFINITY);
        float ext = (float)(mx - (double)lo);
        while ((double)lo + (double)ext < mx) ext = nextafterf(ext, INFINITY);
        e->h.lo[c] = lo;
        e->h.ext[c] = ext;
        for (uint32_t k = 0; k < m; k++) {
            double u = ext > 0 ? (x->O[4 * k + c] - lo) / ext * 65535.0 : 0;
            long r = lround(u);
            q16[3 * k + c] = (uint16_t)(r < 0 ? 0 : (r > 65535 ? 65535 : r));
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        double *d = x->D + 4 * k;
        for (int c = 0; c < 3; c++) d[c] = (double)e->h.lo[c] + (double)e->h.ext[c] * ((double)q16[3 * k + c] / 65535.0);
        if (rot) { double w2 = 1 - d[0] * d[0] - d[1] * d[1] - d[2] * d[2]; d[3] = w2 > 0 ? sqrt(w2) : 0; }
        else d[3] = 0;
        if (errv(d, x->O + 4 * k, rot) > 0.5 * tol) { q_ok = 0; break; }
    }
    float *f32 = NULL;
    if (!q_ok) {
        memset(e->h.lo, 0, sizeof e->h.lo);
        memset(e->h.ext, 0, sizeof e->h.ext);
        snw_free(x->al, q16);
        q16 = NULL;
        f32 = xcalloc(x->al, (size_t)m * 4u, sizeof(float));
        if (!f32) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        for (uint32_t k = 0; k < m; k++)
            for (int c = 0; c < 4; c++) {
                f32[4 * k + c] = (float)x->O[4 * k + c];
                x->D[4 * k + c] = f32[4 * k + c];
            }
    }
    e->h.format = (uint8_t)(q_ok ? SNW_CT_Q16 : SNW_CT_F32);
    e->h.comps = (uint8_t)(q_ok ? 3 : (rot ? 4 : 3));

    /* key reduction */
    uint32_t nk = 0;
    x->keep[nk++] = 0;
    if (e->h.step) {
        uint32_t last = 0;
        for (uint32_t k = 1; k < m; k++)
            if (x->must[k] || errv(x->D + 4 * last, x->O + 4 * k, rot) > tol) { x->keep[nk++] = k; last = k; }
    } else {
        uint32_t a = 0;
        while (a + 1 < m) {
            uint32_t limit = a + 1;
            while (limit < m - 1 && !x->must[limit]) limit++;
            uint32_t lo = a + 1, hi = limit + 1, probe = a + 2;
            while (probe <= limit) {
                if (seg_ok(x, a, probe, rot, tol)) { lo = probe; probe = a + 2 * (probe - a); }
                else { hi = probe; break; }
            }
            if (hi == limit + 1 && lo < limit) {
                if (seg_ok(x, a, limit, rot, tol)) lo = limit; else hi = limit;
            }
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (seg_ok(x, a, mid, rot, tol)) lo = mid; else hi = mid;
            }
            x->keep[nk++] = lo;
            a = lo;
        }
    }
    e->kept = nk;
    e->times = xcalloc(x->al, nk, sizeof(double));
    e->vals = xcalloc(x->al, (size_t)nk * 4u, q_ok ? sizeof(uint16_t) : sizeof(float));
    if (!e->times || !e->vals) {
        snw_free(x->al, q16); snw_free(x->al, f32);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t k = x->keep[i];
        e->times[i] = x->tau[k];
        if (q_ok) memcpy((uint16_t *)e->vals + 3u * i, q16 + 3u * k, 3 * sizeof(uint16_t));
        else memcpy((float *)e->vals + (size_t)e->h.comps * i, f32 + 4u * k, e->h.comps * sizeof(float));
    }
    e->h.count = nk;
    snw_free(x->al, q16);
    snw_free(x->al, f32);
    return SINEW_OK;
}

static int cmp_double(const void *a, const void *b);
static uint32_t sort_unique(double *v, uint32_t n);

static void decode_key(const enc_track *e, uint32_t k, double *v)
{
    if (e->h.format == SNW_CT_Q16) {
        const uint16_t *q = (const uint16_t *)e->vals + 3u * k;
        for (int c = 0; c < 3; c++) v[c] = (double)e->h.lo[c] + (double)e->h.ext[c] * ((double)q[c] / 65535.0);
        if (e->h.rot) { double w2 = 1 - v[0] * v[0] - v[1] * v[1] - v[2] * v[2]; v[3] = w2 > 0 ? sqrt(w2) : 0; }
        else v[3] = 0;
    } else {
        const float *f = (const float *)e->vals + (size_t)e->h.comps * k;
        for (int c = 0; c < 4; c++) v[c] = c < e->h.comps ? f[c] : 0;
    }
}

/* SINEW_CLIP_KEYS_SHARED: every keyed track gets the union U of all kept key
 * times (values: the track's compressed curve at those times, quantized
 * again), so one interval search serves the whole clip. */
static sinew_result share_keys(cctx *x, enc_track *et)
{
    const uint32_t nt = 3u * x->n;
    uint64_t tot = 0;
    for (uint32_t i = 0; i < nt; i++)
        if (et[i].h.format == SNW_CT_Q16 || et[i].h.format == SNW_CT_F32) tot += et[i].kept;
    if (!tot) return SINEW_OK;
    double *U = xcalloc(x->al, (size_t)tot, sizeof(double));
    if (!U) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t nu = 0;
    for (uint32_t i = 0; i < nt; i++)
        if (et[i].h.format == SNW_CT_Q16 || et[i].h.format == SNW_CT_F32)
            for (uint32_t k = 0; k < et[i].kept; k++) U[nu++] = et[i].times[k];
    nu = sort_unique(U, nu);
    for (uint32_t i = 0; i < nt; i++) {
        enc_track *e = &et[i];
        if (e->h.format != SNW_CT_Q16 && e->h.format != SNW_CT_F32) continue;
        double *nt_ = xcalloc(x->al, nu, sizeof(double));
        void *nv = xcalloc(x->al, (size_t)nu * 4u, e->h.format == SNW_CT_Q16 ? sizeof(uint16_t) : sizeof(float));
        if (!nt_ || !nv) { snw_free(x->al, nt_); snw_free(x->al, nv); snw_free(x->al, U); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
        uint32_t k = 0; /* kept key at or before U[u] */
        for (uint32_t u = 0; u < nu; u++) {
            double t = U[u], v[4], p[4], q[4];
            while (k + 1 < e->kept && e->times[k + 1] <= t) k++;
            decode_key(e, k, p);
            if (e->h.step || k + 1 >= e->kept || t <= e->times[k]) memcpy(v, p, sizeof v);
            else { decode_key(e, k + 1, q); interp(p, q, e->times[k], e->times[k + 1], t, e->h.rot, v); }
            if (e->h.rot && v[3] < 0) for (int c = 0; c < 4; c++) v[c] = -v[c];
            nt_[u] = t;
            if (e->h.format == SNW_CT_Q16) {
                for (int c = 0; c < 3; c++) {
                    double r = e->h.ext[c] > 0 ? (v[c] - e->h.lo[c]) / e->h.ext[c] * 65535.0 : 0;
                    long l = lround(r);
                    ((uint16_t *)nv)[3u * u + c] = (uint16_t)(l < 0 ? 0 : (l > 65535 ? 65535 : l));
                }
            } else {
                for (int c = 0; c < e->h.comps; c++) ((float *)nv)[(size_t)e->h.comps * u + c] = (float)v[c];
            }
        }
        snw_free(x->al, e->times);
        snw_free(x->al, e->vals);
        e->times = nt_;
        e->vals = nv;
        e->kept = e->h.count = nu;
    }
    snw_free(x->al, U);
    return SINEW_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y);
}

static uint32_t sort_unique(double *v, uint32_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    uint32_t u = 1;
    for (uint32_t i = 1; i < n; i++)
        if (v[i] != v[u - 1]) v[u++] = v[i];
    return u;
}

static uint32_t find_time(const double *T, uint32_t n, double t)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (T[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
}

static size_t al16(size_t x) { return (x + 15u) & ~(size_t)15u; }

/* Lays the encoded tracks out in one block (the time table, shared index runs, values). */
static sinew_result build_block(cctx *x, enc_track *et, snw_cclip **out)
{
    const uint32_t nt = 3u * x->n;
    uint64_t total_keys = 0;
    for (uint32_t i = 0; i < nt; i++) total_keys += et[i].kept;
    if (total_keys > SINEW_MAX_CLIP_KEYS * 4ull) return SINEW_ERROR_LIMIT_EXCEEDED;
    double *T = xcalloc(x->al, (size_t)total_keys, sizeof(double));
    uint32_t *run = xcalloc(x->al, nt, sizeof(uint32_t)); /* first index entry of each track */
    uint32_t *idx = xcalloc(x->al, (size_t)total_keys, sizeof(uint32_t));
    if (!T || !run || !idx) { snw_free(x->al, T); snw_free(x->al, run); snw_free(x->al, idx); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    uint32_t nT = 0;
    for (uint32_t i = 0; i < nt; i++)
        for (uint32_t k = 0; k < et[i].kept; k++) T[nT++] = et[i].times[k];
    nT = sort_unique(T, nT);
    /* index runs, a run equal to an earlier track's stored once */
    uint32_t nidx = 0;
    size_t data_bytes = 0;
    for (uint32_t i = 0; i < nt; i++) {
        enc_track *e = &et[i];
        if (e->h.format == SNW_CT_Q16 || e->h.format == SNW_CT_F32) {
            uint32_t first = nidx;
            for (uint32_t k = 0; k < e->kept; k++) idx[nidx + k] = find_time(T, nT, e->times[k]);
            e->h.idx = first;
            for (uint32_t p = 0; p < i; p++) {
                const enc_track *o = &et[p];
                if ((o->h.format == SNW_CT_Q16 || o->h.format == SNW_CT_F32) && o->h.count == e->kept &&
                    memcmp(idx + o->h.idx, idx + first, e->kept * sizeof(uint32_t)) == 0) {
                    e->h.idx = o->h.idx;
                    break;
                }
            }
            if (e->h.idx == first) nidx += e->kept;
            e->h.data = (uint32_t)data_bytes;
            data_bytes += (size_t)e->kept * (e->h.format == SNW_CT_Q16 ? 3u * sizeof(uint16_t) : e->h.comps * sizeof(float));
            data_bytes = (data_bytes + 3u) & ~(size_t)3u;
        }
        run[i] = e->h.idx;
    }
    const int wide = nT > 65536u;
    uint32_t nconst = 0, nkeyed = 0;
    for (uint32_t i = 0; i < nt; i++) {
        nconst += et[i].h.format == SNW_CT_CONST;
        nkeyed += et[i].h.format == SNW_CT_Q16 || et[i].h.format == SNW_CT_F32;
    }
    size_t off_m = al16(sizeof(snw_cclip));
    size_t off_c = off_m + al16(x->n);
    size_t off_tr = off_c + al16((size_t)nconst * 4u * sizeof(float));
    size_t off_t = off_tr + al16((size_t)nkeyed * sizeof(snw_ctrack));
    size_t off_i = off_t + al16((size_t)nT * sizeof(double));
    size_t off_d = off_i + al16((size_t)nidx * (wide ? 4u : 2u));
    size_t total = off_d + data_bytes + 16; /* padding: the float32 sampler reads 8 bytes for a 6-byte key */
    char *mem = xcalloc(x->al, 1, total);
    if (!mem) { snw_free(x->al, T); snw_free(x->al, run); snw_free(x->al, idx); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    snw_cclip *cc = (snw_cclip *)mem;
    snw_ctrack *tr = (snw_ctrack *)(mem + off_tr);
    cc->joint_count = x->n;
    cc->time_count = nT;
    cc->wide = (uint32_t)wide;
    cc->bytes = total;
    cc->times = (const double *)(mem + off_t);
    cc->tracks = tr;
    cc->jmask = (const uint8_t *)(mem + off_m);
    cc->consts = (const float *)(mem + off_c);
    cc->index = mem + off_i;
    cc->data = (const unsigned char *)(mem + off_d);
    memcpy(mem + off_t, T, (size_t)nT * sizeof(double));
    for (uint32_t k = 0; k < nidx; k++) {
        if (wide) ((uint32_t *)(mem + off_i))[k] = idx[k];
        else ((uint16_t *)(mem + off_i))[k] = (uint16_t)idx[k];
    }
    uint8_t *jm = (uint8_t *)(mem + off_m);
    float *cv = (float *)(mem + off_c);
    for (uint32_t i = 0, ic = 0, ik = 0; i < nt; i++) {
        const uint32_t f = et[i].h.format;
        const uint32_t code = f == SNW_CT_CONST ? (uint32_t)SNW_CT_CONST : (f ? (uint32_t)SNW_CT_KEYED : (uint32_t)SNW_CT_NONE);
        jm[i / 3u] = (uint8_t)(jm[i / 3u] | (code << (2u * (i % 3u))));
        if (f == SNW_CT_CONST) memcpy(cv + 4u * ic++, et[i].h.lo, 4 * sizeof(float));
        if (f == SNW_CT_Q16 || f == SNW_CT_F32) tr[ik++] = et[i].h;
        if (et[i].h.format == SNW_CT_Q16 || et[i].h.format == SNW_CT_F32) {
            size_t b = (size_t)et[i].kept * (et[i].h.format == SNW_CT_Q16 ? 3u * sizeof(uint16_t) : et[i].h.comps * sizeof(float));
            memcpy(mem + off_d + et[i].h.data, et[i].vals, b);
        }
    }
    snw_free(x->al, T); snw_free(x->al, run); snw_free(x->al, idx);
    *out = cc;
    return SINEW_OK;
}

/* Model transforms of a local pose (float64 FK). */
static void fk64(const cctx *x, const sinew_transform *local, sinew_mat4 *W)
{
    for (uint32_t j = 0; j < x->n; j++) {
        sinew_mat4 m = sinew_mat4_from_transform(&local[j]);
        W[j] = x->parent[j] >= 0 ? sinew_mat4_mul(&W[x->parent[j]], &m) : m;
    }
}

/* The virtual points of joint j in model space: origin, +-shell on each local axis. */
static void vpoints(const sinew_mat4 *W, double shell, sinew_vec3 p[7])
{
    p[0] = sinew_mat4_transform_point(W, sinew_v3(0, 0, 0));
    for (int a = 0; a < 3; a++) {
        sinew_vec3 d = sinew_v3(a == 0 ? shell : 0, a == 1 ? shell : 0, a == 2 ? shell : 0);
        p[1 + 2 * a] = sinew_mat4_transform_point(W, d);
        p[2 + 2 * a] = sinew_mat4_transform_point(W, sinew_v3(-d.x, -d.y, -d.z));
    }
}

static double frob3(const sinew_mat4 *m)
{
    double s = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) s += m->m[c][r] * m->m[c][r];
    return sqrt(s);
}

bool sinew_clip_is_compressed(const sinew_clip *clip) { return snw_clip_compressed(clip) != NULL; }

sinew_result sinew_clip_compress(const sinew_clip *clip, const sinew_skeleton *skel, const sinew_clip_compress_desc *desc,
                                 sinew_clip **out, sinew_clip_compress_stats *stats, sinew_error_info *err)
{
    snw_error_clear(err);
    if (out) *out = NULL;
    if (!clip || !skel || !out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "sinew_clip_compress: %s is NULL", !clip ? "clip" : (!skel ? "skel" : "out"));
    const uint32_t n = sinew_skeleton_joint_count(skel);
    if (sinew_clip_joint_count(clip) != n)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CLIP, UINT32_MAX,
                        "clip made for %u joints, skeleton has %u", sinew_clip_joint_count(clip), n);
    if (snw_clip_compressed(clip))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CLIP, UINT32_MAX, "clip is already compressed");
    sinew_clip_compress_desc d = { 0 };
    if (desc) d = *desc;
    if (!isfinite(d.tolerance) || !isfinite(d.shell_distance))
        return snw_fail(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "%s is not finite", !isfinite(d.tolerance) ? "tolerance" : "shell_distance");
    if ((unsigned)d.keys > (unsigned)SINEW_CLIP_KEYS_SHARED)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "keys %d is not a sinew_clip_keys value",
                        (int)d.keys);
    if (d.tolerance < 0 || d.shell_distance < 0)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s %g is negative",
                        d.tolerance < 0 ? "tolerance" : "shell_distance", d.tolerance < 0 ? d.tolerance : d.shell_distance);
    /* the skeleton's size: the diagonal of the box around the bind-pose joints */
    double lo3[3] = { INFINITY, INFINITY, INFINITY }, hi3[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t a = 0; a < n; a++) {
        const sinew_mat4 *A = sinew_skeleton_bind_global(skel, a);
        for (int c = 0; c < 3; c++) { lo3[c] = fmin(lo3[c], A->m[3][c]); hi3[c] = fmax(hi3[c], A->m[3][c]); }
    }
    double size = n ? sqrt((hi3[0] - lo3[0]) * (hi3[0] - lo3[0]) + (hi3[1] - lo3[1]) * (hi3[1] - lo3[1]) +
                           (hi3[2] - lo3[2]) * (hi3[2] - lo3[2])) : 0;
    if (!(size > 0) || !isfinite(size)) size = 1;
    const double tol = d.tolerance > 0 ? d.tolerance : 1e-4 * size;
    const double shell = d.shell_distance > 0 ? d.shell_distance : 0.02 * size;

    const sinew_allocator *al = snw_clip_allocator(clip);
    const sinew_transform *rest = sinew_skeleton_rest_pose(skel);
    cctx x = { 0 };
    x.clip = clip; x.al = al; x.n = n; x.duration = sinew_clip_duration_ticks(clip);
    /* the largest track (with the interior points of cubic tracks), and every key time in [0, duration] */
    uint64_t all_keys = 0;
    for (uint32_t j = 0; j < n; j++)
        for (int k = 0; k < 3; k++) {
            snw_track_view v;
            snw_clip_track_view(clip, j, k, &v);
            uint32_t m = v.mode == SINEW_INTERPOLATION_CUBICSPLINE && v.count ? 64u * v.count : v.count;
            if (m > x.cap) x.cap = m;
            all_keys += v.count;
        }
    sinew_result r = SINEW_OK;
    int32_t *parent = xcalloc(al, n, sizeof(int32_t));
    uint32_t *H = xcalloc(al, n, sizeof(uint32_t)), *height = xcalloc(al, n, sizeof(uint32_t));
    double *sig = xcalloc(al, n, sizeof(double)), *Y = xcalloc(al, n, sizeof(double)), *smax = xcalloc(al, n, sizeof(double));
    sinew_transform *pose = xcalloc(al, n, sizeof(sinew_transform)), *pose2 = xcalloc(al, n, sizeof(sinew_transform));
    sinew_mat4 *W = xcalloc(al, n, sizeof(sinew_mat4)), *W2 = xcalloc(al, n, sizeof(sinew_mat4)), *Wi = xcalloc(al, n, sizeof(sinew_mat4));
    enc_track *et = xcalloc(al, 3u * (size_t)n, sizeof(enc_track));
    x.tau = xcalloc(al, x.cap, sizeof(double));
    x.O = xcalloc(al, (size_t)x.cap * 4u, sizeof(double));
    x.M = xcalloc(al, (size_t)x.cap * 4u, sizeof(double));
    x.D = xcalloc(al, (size_t)x.cap * 4u, sizeof(double));
    x.must = xcalloc(al, x.cap, 1);
    x.keep = xcalloc(al, x.cap, sizeof(uint32_t));
    double *kt = xcalloc(al, (size_t)all_keys + 2u, sizeof(double)); /* key times in [0, duration] */
    double *vt = NULL;                                                /* verification times */
    sinew_clip *res = NULL;
    if (!parent || !H || !height || !sig || !Y || !smax || !pose || !pose2 || !W || !W2 || !Wi || !et || !x.tau || !x.O ||
        !x.M || !x.D || !x.must || !x.keep || !kt) {
        r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_CLIP, UINT32_MAX, "out of host memory");
        goto done;
    }
    x.parent = parent;
    for (uint32_t j = 0; j < n; j++) parent[j] = sinew_skeleton_parent(skel, j);
    /* H_j = depth (joints from the root, j included) + the longest chain below j */
    for (uint32_t j = n; j-- > 0;)
        if (parent[j] >= 0 && height[parent[j]] < height[j] + 1) height[parent[j]] = height[j] + 1;
    for (uint32_t j = 0; j < n; j++) H[j] = (parent[j] >= 0 ? H[parent[j]] - height[parent[j]] : 0) + 1 + height[j];

    /* key times in [0, duration], 0 and the duration */
    uint32_t nkt = 0;
    kt[nkt++] = 0;
    kt[nkt++] = x.duration;
    for (uint32_t j = 0; j < n; j++)
        for (int k = 0; k < 3; k++) {
            snw_track_view v;
            snw_clip_track_view(clip, j, k, &v);
            for (uint32_t i = 0; i < v.count; i++) {
                double t = v.times[(size_t)i * v.time_stride];
                if (t >= 0 && t <= x.duration) kt[nkt++] = t;
            }
        }
    nkt = sort_unique(kt, nkt);

    /* analysis: |W_p|, |y| and |S| over (at most MAX_ANALYSIS_TIMES of) the key times */
    {
        uint32_t na = nkt < MAX_ANALYSIS_TIMES ? nkt : MAX_ANALYSIS_TIMES;
        for (uint32_t s = 0; s < na; s++) {
            double t = kt[na == nkt ? s : (uint32_t)((uint64_t)s * (nkt - 1) / (na - 1))];
            snw_clip_sample_ticks(clip, rest, n, t, pose);
            fk64(&x, pose, W);
            for (uint32_t j = 0; j < n; j++) {
                double f = frob3(&W[j]);
                if (!(f <= sig[j])) sig[j] = f;
                double sm = fmax(fabs(pose[j].scale.x), fmax(fabs(pose[j].scale.y), fabs(pose[j].scale.z)));
                if (!(sm <= smax[j])) smax[j] = sm;
                if (sinew_mat4_inverse(&W[j], &Wi[j]) != SINEW_OK) for (int c = 0; c < 16; c++) Wi[j].m[c / 4][c % 4] = INFINITY;
            }
            for (uint32_t j = 0; j < n; j++) {
                sinew_vec3 p[7];
                vpoints(&W[j], shell, p);
                for (int32_t i = (int32_t)j; i >= 0; i = parent[i])
                    for (int q = 0; q < 7; q++) {
                        double l = sinew_v3_length(sinew_mat4_transform_point(&Wi[i], p[q]));
                        if (!(l <= Y[i])) Y[i] = l;
                    }
            }
        }
    }


    double budget = FIRST_BUDGET;
    uint32_t pass, nv_used = 0;
    size_t vcap = 0; /* verification times: 4 x (source key times + kept key times) */
    double max_err = INFINITY, max_t = 0;
    uint32_t max_j = 0, keys_after = 0;
    for (pass = 1; pass <= MAX_PASSES; pass++, budget *= 0.5) {
        for (uint32_t i = 0; i < 3u * n; i++) { snw_free(al, et[i].times); snw_free(al, et[i].vals); }
        memset(et, 0, 3u * (size_t)n * sizeof *et);
        keys_after = 0;
        for (uint32_t j = 0; j < n && !r; j++) {
            double b = budget * tol / H[j] / 3.0;
            double sp = parent[j] >= 0 ? sig[parent[j]] : 1.0;
            double tt = b / sp, ts = b / (sp * Y[j]), tr = ts / (smax[j] > 0 ? smax[j] : 1);
            const double tk[3] = { tt, tr, ts };
            for (int k = 0; k < 3 && !r; k++) {
                double tl = isfinite(tk[k]) && tk[k] > 0 ? tk[k] : 0;
                r = compress_track(&x, j, k, tl, &et[3u * j + k]);
                keys_after += et[3u * j + k].kept;
            }
        }
        if (!r && d.keys == SINEW_CLIP_KEYS_SHARED) {
            r = share_keys(&x, et);
            keys_after = 0;
            for (uint32_t i = 0; i < 3u * n; i++) keys_after += et[i].kept;
        }
        if (r) { r = snw_fail(err, r, SINEW_ITEM_CLIP, UINT32_MAX, "out of host memory"); goto done; }
        snw_cclip *cc = NULL;
        r = build_block(&x, et, &cc);
        if (!r) {
            r = snw_clip_make_compressed(clip, cc, keys_after, &res);
            if (r) snw_free(al, cc);
        }
        if (r) { r = snw_fail(err, r, SINEW_ITEM_CLIP, UINT32_MAX, "could not build the compressed clip"); goto done; }
        /* measure at the key times of the source and of the result in [0, duration] and
           at three points inside each interval between them */
        size_t need = 4u * ((size_t)nkt + keys_after) + 8u;
        if (need > vcap) {
            snw_free(al, vt);
            vcap = 0;
            if (!(vt = xcalloc(al, need, sizeof(double)))) {
                r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_CLIP, UINT32_MAX, "out of host memory");
                goto done;
            }
            vcap = need;
        }
        uint32_t nv = nkt;
        for (uint32_t i = 0; i < 3u * n; i++)
            for (uint32_t k = 0; k < et[i].kept; k++)
                if (et[i].times[k] >= 0 && et[i].times[k] <= x.duration) vt[nv++] = et[i].times[k];
        memcpy(vt, kt, nkt * sizeof(double));
        nv = sort_unique(vt, nv);
        for (uint32_t i = 0, e0 = nv; i + 1 < e0; i++)
            for (int s = 1; s <= 3; s++) vt[nv++] = vt[i] + (vt[i + 1] - vt[i]) * (s / 4.0);
        nv = sort_unique(vt, nv);
        nv_used = nv;
        max_err = 0;
        for (uint32_t s = 0; s < nv; s++) {
            snw_clip_sample_ticks(clip, rest, n, vt[s], pose);
            snw_clip_sample_ticks(res, rest, n, vt[s], pose2);
            fk64(&x, pose, W);
            fk64(&x, pose2, W2);
            for (uint32_t j = 0; j < n; j++) {
                sinew_vec3 p[7], q[7];
                vpoints(&W[j], shell, p);
                vpoints(&W2[j], shell, q);
                for (int c = 0; c < 7; c++) {
                    double e = sinew_v3_length(sinew_v3_sub(p[c], q[c]));
                    if (!(e <= max_err)) { max_err = e; max_j = j; max_t = vt[s]; }
                }
            }
        }
        if (max_err <= tol) break;
        sinew_clip_destroy(res);
        res = NULL;
    }
    if (!res) {
        r = snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CLIP, UINT32_MAX,
                     "tolerance %g not met after %d passes (error %g at joint %u): below float32 key precision?",
                     tol, MAX_PASSES, max_err, max_j);
        goto done;
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->tolerance = tol;
        stats->shell_distance = shell;
        stats->max_error = max_err;
        stats->max_error_joint = max_j;
        stats->max_error_time = max_t / sinew_clip_ticks_per_second(clip);
        for (uint32_t i = 0; i < 3u * n; i++) {
            snw_track_view v;
            snw_clip_track_view(clip, i / 3u, (int)(i % 3u), &v);
            if (!v.count) continue;
            stats->tracks++;
            stats->keys_before += v.count;
            stats->float32_bytes += (uint64_t)v.count * (4u + 4u * (i % 3u == 1 ? 4u : 3u));
            if (et[i].h.format == SNW_CT_CONST) stats->constant_tracks++;
            else if (et[i].h.format == SNW_CT_Q16) stats->quantized_tracks++;
            else stats->float_tracks++;
        }
        stats->keys_after = keys_after;
        stats->compressed_bytes = snw_clip_compressed(res)->bytes;
        stats->ratio = stats->compressed_bytes ? (double)stats->float32_bytes / (double)stats->compressed_bytes : 0;
        stats->error_samples = nv_used;
        stats->passes = pass;
    }
    *out = res;
    r = SINEW_OK;
done:
    if (r && res) sinew_clip_destroy(res);
    if (et)
        for (uint32_t i = 0; i < 3u * n; i++) { snw_free(al, et[i].times); snw_free(al, et[i].vals); }
    snw_free(al, parent); snw_free(al, H); snw_free(al, height); snw_free(al, sig); snw_free(al, Y); snw_free(al, smax);
    snw_free(al, pose); snw_free(al, pose2); snw_free(al, W); snw_free(al, W2); snw_free(al, Wi); snw_free(al, et);
    snw_free(al, x.tau); snw_free(al, x.O); snw_free(al, x.M); snw_free(al, x.D); snw_free(al, x.must); snw_free(al, x.keep);
    snw_free(al, kt);
    snw_free(al, vt);
    return r;
}
