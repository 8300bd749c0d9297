/* Sinew optimized centers of rotation: the precompute of cor.h.
 * Steps: validate; subdivide every triangle (three identical passes over the
 * mesh: count the joint-pair entries, collect and sort their keys into
 * buckets, write the entries in emission order); group vertices by packed
 * weights; evaluate each group's center on the pool; scatter to vertices. */
#include <sinew/linalg.h>
#include "sinew/cor.h"
#include "alloc_internal.h"
#include "cor_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COR_MAXU 24 /* joints in the union of a triangle's three corners (8 each) */

/* Sparse weights of one vertex: nonzero entries, joints ascending. */
typedef struct cor_w {
    uint16_t j[8];
    double w[8];
    uint32_t n;
} cor_w;

/* One (subdivided triangle, joint pair (ja < jb)) entry. */
typedef struct cor_entry {
    double wa, wb;   /* the triangle's weights of ja and jb */
    double m;        /* area * wa * wb */
    double c[3];     /* centroid */
} cor_entry;

/* Entries of one bucket whose weights (wa, wb) fall in one cell of a grid of
 * side 1 / weight_cells, summed with their moments about the cell's mass-weighted
 * mean weights (a, b) (da = wa - a, db = wb - b, sums over the cell's entries):
 * the similarity kernel is expanded to second order about the mean. */
typedef struct cor_cell {
    double a, b;             /* mass-weighted mean weights */
    double m;                /* sum m */
    double saa, sab, sbb;    /* sum m da^2, m da db, m db^2 */
    double c[3];             /* sum m c */
    double ca[3], cb[3];     /* sum m c da, m c db */
    double caa[3], cab[3], cbb[3]; /* sum m c da^2, m c da db, m c db^2 */
} cor_cell;

/* The cells of every bucket at one grid resolution H (cells per unit of weight). */
#define COR_MAX_LEVELS 5
typedef struct cor_level {
    uint32_t H;
    uint64_t *cstart;     /* nbuckets + 1 starts into cells */
    cor_cell *cells;
    double *ab;           /* the cells' mean weights a then b, contiguous (the kernel's argument) */
    uint64_t ncells;
} cor_level;

typedef struct cor_ctx {
    const sinew_cor_desc *d;
    uint32_t K;
    double eps2;
    uint32_t max_depth;
    int pass;               /* 0 count, 1 keys, 2 entries */
    uint64_t samples, count;
    uint64_t *keys;         /* pass 1 */
    const uint64_t *bkeys;  /* bucket keys (sorted, unique) */
    uint64_t nbuckets;
    uint64_t *cursor;       /* pass 2: next entry of each bucket */
    cor_entry *entries;
} cor_ctx;

static void vertex_weights(const sinew_cor_desc *d, uint32_t i, cor_w *o)
{
    const uint16_t *j, *w;
    uint32_t K;
    if (d->vertices8) { j = d->vertices8[i].joints; w = d->vertices8[i].weights; K = 8; }
    else { j = d->vertices[i].joints; w = d->vertices[i].weights; K = 4; }
    o->n = 0;
    for (uint32_t k = 0; k < K; k++) {
        if (w[k] == 0) continue;
        uint32_t at = 0;
        while (at < o->n && o->j[at] < j[k]) at++;
        if (at < o->n && o->j[at] == j[k]) { o->w[at] += w[k] / 65535.0; continue; }
        for (uint32_t m = o->n; m > at; m--) { o->j[m] = o->j[m - 1]; o->w[m] = o->w[m - 1]; }
        o->j[at] = j[k];
        o->w[at] = w[k] / 65535.0;
        o->n++;
    }
}

static const float *vertex_pos(const sinew_cor_desc *d, uint32_t i)
{
    return d->vertices8 ? d->vertices8[i].position : d->vertices[i].position;
}

static uint64_t bucket_of(const uint64_t *bkeys, uint64_t n, uint64_t key)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bkeys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo; /* == n or bkeys[lo] >= key */
}

/* One leaf of the subdivision: emit its joint-pair entries. */
static void emit_leaf(cor_ctx *cx, const uint16_t *U, uint32_t nu, const double p[3][3], const double w[3][COR_MAXU])
{
    double e1[3], e2[3], cr[3], c[3], wl[COR_MAXU];
    for (int k = 0; k < 3; k++) {
        e1[k] = p[1][k] - p[0][k];
        e2[k] = p[2][k] - p[0][k];
        c[k] = (p[0][k] + p[1][k] + p[2][k]) / 3.0;
    }
    cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
    cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
    cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double area = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    for (uint32_t u = 0; u < nu; u++) wl[u] = (w[0][u] + w[1][u] + w[2][u]) / 3.0;
    cx->samples++;
    for (uint32_t a = 0; a < nu; a++) {
        if (!(wl[a] > 0.0)) continue;
        for (uint32_t b = a + 1; b < nu; b++) {
            if (!(wl[b] > 0.0)) continue;
            uint64_t key = (uint64_t)U[a] * cx->d->joint_count + U[b];
            if (cx->pass == 1) {
                cx->keys[cx->count] = key;
            } else if (cx->pass == 2) {
                uint64_t bi = bucket_of(cx->bkeys, cx->nbuckets, key);
                cor_entry *e = &cx->entries[cx->cursor[bi]++];
                e->wa = wl[a];
                e->wb = wl[b];
                e->m = area * wl[a] * wl[b];
                e->c[0] = c[0]; e->c[1] = c[1]; e->c[2] = c[2];
            }
            cx->count++;
        }
    }
}

static double wdist2(const double *a, const double *b, uint32_t nu)
{
    double s = 0;
    for (uint32_t u = 0; u < nu; u++) s += (a[u] - b[u]) * (a[u] - b[u]);
    return s;
}

/* Splits into four at the edge midpoints while two corners' weights differ by more than epsilon. */
static void subdivide(cor_ctx *cx, const uint16_t *U, uint32_t nu, const double p[3][3], const double w[3][COR_MAXU],
                      uint32_t depth)
{
    double dmax = wdist2(w[0], w[1], nu), t;
    t = wdist2(w[1], w[2], nu); dmax = t > dmax ? t : dmax;
    t = wdist2(w[2], w[0], nu); dmax = t > dmax ? t : dmax;
    if (depth >= cx->max_depth || !(dmax > cx->eps2)) {
        emit_leaf(cx, U, nu, p, w);
        return;
    }
    /* midpoints m01, m12, m20 */
    double mp[3][3], mw[3][COR_MAXU];
    for (int e = 0; e < 3; e++) {
        int a = e, b = (e + 1) % 3;
        for (int k = 0; k < 3; k++) mp[e][k] = 0.5 * (p[a][k] + p[b][k]);
        for (uint32_t u = 0; u < nu; u++) mw[e][u] = 0.5 * (w[a][u] + w[b][u]);
    }
    double cp[3][3], cw[3][COR_MAXU];
    /* corner triangles (corner c, midpoint c, midpoint c-1), then the middle one */
    for (int cidx = 0; cidx < 3; cidx++) {
        int prev = (cidx + 2) % 3;
        memcpy(cp[0], p[cidx], sizeof cp[0]);
        memcpy(cp[1], mp[cidx], sizeof cp[1]);
        memcpy(cp[2], mp[prev], sizeof cp[2]);
        memcpy(cw[0], w[cidx], sizeof(double) * nu);
        memcpy(cw[1], mw[cidx], sizeof(double) * nu);
        memcpy(cw[2], mw[prev], sizeof(double) * nu);
        subdivide(cx, U, nu, (const double(*)[3])cp, (const double(*)[COR_MAXU])cw, depth + 1);
    }
    subdivide(cx, U, nu, (const double(*)[3])mp, (const double(*)[COR_MAXU])mw, depth + 1);
}

/* One pass over every triangle. */
static void run_pass(cor_ctx *cx, int pass)
{
    const sinew_cor_desc *d = cx->d;
    cx->pass = pass;
    cx->count = 0;
    cx->samples = 0;
    for (uint32_t t = 0; t < d->triangle_count; t++) {
        cor_w cw[3];
        uint16_t U[COR_MAXU];
        uint32_t nu = 0;
        double p[3][3], w[3][COR_MAXU];
        for (int c = 0; c < 3; c++) {
            uint32_t vi = d->triangles[3 * (size_t)t + c];
            const float *pos = vertex_pos(d, vi);
            p[c][0] = pos[0]; p[c][1] = pos[1]; p[c][2] = pos[2];
            vertex_weights(d, vi, &cw[c]);
            for (uint32_t k = 0; k < cw[c].n; k++) {
                uint32_t at = 0;
                while (at < nu && U[at] < cw[c].j[k]) at++;
                if (at < nu && U[at] == cw[c].j[k]) continue;
                for (uint32_t m = nu; m > at; m--) U[m] = U[m - 1];
                U[at] = cw[c].j[k];
                nu++;
            }
        }
        if (nu < 2) { cx->samples++; continue; } /* no joint pair: contributes nothing */
        for (int c = 0; c < 3; c++) {
            for (uint32_t u = 0; u < nu; u++) w[c][u] = 0.0;
            for (uint32_t k = 0; k < cw[c].n; k++) {
                uint32_t u = 0;
                while (U[u] != cw[c].j[k]) u++;
                w[c][u] = cw[c].w[k];
            }
        }
        subdivide(cx, U, nu, (const double(*)[3])p, (const double(*)[COR_MAXU])w, 0);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A vertex's canonical packed weights (joints ascending, zero weights dropped,
 * padding 0xFFFF / 0), for grouping equal weight vectors. */
typedef struct cor_vkey {
    uint16_t j[8];
    uint16_t q[8];
    uint32_t index;
} cor_vkey;

static int cmp_vkey(const void *a, const void *b)
{
    const cor_vkey *x = (const cor_vkey *)a, *y = (const cor_vkey *)b;
    int c = memcmp(x->j, y->j, sizeof x->j);
    if (!c) c = memcmp(x->q, y->q, sizeof x->q);
    if (c) return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int vkey_equal(const cor_vkey *x, const cor_vkey *y)
{
    return memcmp(x->j, y->j, sizeof x->j) == 0 && memcmp(x->q, y->q, sizeof x->q) == 0;
}

typedef struct cor_job {
    const sinew_cor_desc *d;
    const cor_vkey *vk;
    const uint32_t *group_first; /* groups + 1 entries: first sorted vertex of each group */
    uint32_t groups, per_task;
    const uint64_t *bkeys, *bstart; /* nbuckets keys, nbuckets + 1 starts */
    uint64_t nbuckets;
    const cor_entry *entries;
    const cor_level *levels;     /* NULL = exact (entries) */
    uint32_t nlevels;
    double inv_sigma2;
    double *center;              /* 3 per group */
    uint8_t *ok;                 /* per group */
    uint64_t *evals;             /* per task */
    uint32_t task_base;          /* first task of the batch being run */
} cor_job;

#define COR_BLOCK 64

/* exp(-y) for y >= 0 (0 beyond y = 700), within 2e-16 relative: y = n ln2 - r,
 * |r| <= ln2 / 2, e^-r by its Taylor series to degree 13, 2^-n by the exponent
 * bits. Branch-free so the cell loop vectorizes. */
static inline double exp_neg(double y)
{
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds to an integer */
    const double yc = y < 700.0 ? y : 700.0;
    const double u = -yc * 1.4426950408889634 + shifter;
    const double nd = u - shifter; /* round(-y / ln2) */
    const double r = (-yc - nd * 6.93147180369123816490e-01) - nd * 1.90821492927058770002e-10;
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    uint64_t ub, sb;
    double scale;
    memcpy(&ub, &u, sizeof ub);
    sb = (ub - 0x4338000000000000ull + 1023ull) << 52; /* bits of u - bits of shifter = n */
    memcpy(&scale, &sb, sizeof scale);
    return p * scale * (double)(y < 700.0);
}

static void group_task(void *user, uint32_t task, uint32_t worker)
{
    (void)worker;
    cor_job *jb = (cor_job *)user;
    task += jb->task_base;
    uint32_t g0 = task * jb->per_task, g1 = g0 + jb->per_task;
    if (g1 > jb->groups) g1 = jb->groups;
    uint64_t evals = 0;
    for (uint32_t g = g0; g < g1; g++) {
        cor_w w;
        vertex_weights(jb->d, jb->vk[jb->group_first[g]].index, &w);
        double num[3] = { 0, 0, 0 }, den = 0;
        for (uint32_t a = 0; a < w.n; a++) {
            for (uint32_t b = a + 1; b < w.n; b++) {
                uint64_t key = (uint64_t)w.j[a] * jb->d->joint_count + w.j[b];
                uint64_t bi = bucket_of(jb->bkeys, jb->nbuckets, key);
                if (bi >= jb->nbuckets || jb->bkeys[bi] != key) continue;
                const double va = w.w[a], vb = w.w[b], vab = va * vb;
                if (jb->levels) {
                    const double k = jb->inv_sigma2, va2 = va * va, vb2 = vb * vb, vab2 = 2.0 * vab;
                    /* the coarsest level whose cells, scaled by |v|, are no wider than the finest:
                     * the expansion's argument |v| * (cell size) stays within its bound */
                    uint32_t L = 0;
                    while (L + 1 < jb->nlevels && (va2 + vb2) * (double)(1u << (2 * (L + 1))) <= 1.0) L++;
                    const cor_level *lv = &jb->levels[L];
                    const uint64_t c0 = lv->cstart[bi], c1 = lv->cstart[bi + 1];
                    evals += c1 - c0;
                    double pd = 0, pn[3] = { 0, 0, 0 };
                    for (uint64_t cb = c0; cb < c1; cb += COR_BLOCK) {
                        const uint32_t nbk = (uint32_t)(c1 - cb < COR_BLOCK ? c1 - cb : COR_BLOCK);
                        const double *ca = lv->ab + cb, *cbv = lv->ab + lv->ncells + cb;
                        double X[COR_BLOCK], G[COR_BLOCK];
                        for (uint32_t q = 0; q < nbk; q++) {
                            X[q] = va * cbv[q] - vb * ca[q];
                            G[q] = exp_neg(k * X[q] * X[q]);
                        }
                        const cor_cell *c = lv->cells + cb;
                        for (uint32_t q = 0; q < nbk; q++, c++) {
                            const double x = X[q], g = G[q], g1 = -2.0 * k * x, g2 = 2.0 * k * k * x * x - k;
                            pd += g * (c->m + g2 * (va2 * c->sbb - vab2 * c->sab + vb2 * c->saa));
                            for (int r3 = 0; r3 < 3; r3++)
                                pn[r3] += g * (c->c[r3] + g1 * (va * c->cb[r3] - vb * c->ca[r3]) +
                                               g2 * (va2 * c->cbb[r3] - vab2 * c->cab[r3] + vb2 * c->caa[r3]));
                        }
                    }
                    den += vab * pd;
                    num[0] += vab * pn[0];
                    num[1] += vab * pn[1];
                    num[2] += vab * pn[2];
                    continue;
                }
                const cor_entry *e = jb->entries + jb->bstart[bi], *end = jb->entries + jb->bstart[bi + 1];
                evals += (uint64_t)(end - e);
                for (; e < end; e++) {
                    double x = va * e->wb - vb * e->wa;
                    double s = vab * e->m * exp(-x * x * jb->inv_sigma2);
                    den += s;
                    num[0] += s * e->c[0];
                    num[1] += s * e->c[1];
                    num[2] += s * e->c[2];
                }
            }
        }
        jb->ok[g] = den > 0.0;
        if (den > 0.0) {
            jb->center[3 * (size_t)g + 0] = num[0] / den;
            jb->center[3 * (size_t)g + 1] = num[1] / den;
            jb->center[3 * (size_t)g + 2] = num[2] / den;
        }
    }
    jb->evals[task] = evals;
}

static sinew_result validate(const sinew_cor_desc *d, double sigma, double eps, uint32_t depth)
{
    if (!d->triangles) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!d->vertices == !d->vertices8) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!(isfinite(sigma) && sigma > 0) || !(isfinite(eps) && eps > 0)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (depth > SINEW_COR_MAX_DEPTH) return SINEW_ERROR_INVALID_ARGUMENT;
    if (d->vertex_count == 0 || d->triangle_count == 0 || d->joint_count == 0) return SINEW_ERROR_EMPTY;
    const uint32_t K = d->vertices8 ? 8u : 4u;
    for (uint32_t i = 0; i < d->vertex_count; i++) {
        const float *p = vertex_pos(d, i);
        const uint16_t *j = d->vertices8 ? d->vertices8[i].joints : d->vertices[i].joints;
        const uint16_t *w = d->vertices8 ? d->vertices8[i].weights : d->vertices[i].weights;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) return SINEW_ERROR_NON_FINITE;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            if (j[k] >= d->joint_count) return SINEW_ERROR_JOINT_INDEX;
            sum += w[k];
        }
        if (sum != 65535u) return SINEW_ERROR_INVALID_WEIGHT;
    }
    for (uint64_t t = 0; t < 3ull * d->triangle_count; t++)
        if (d->triangles[t] >= d->vertex_count) return SINEW_ERROR_INVALID_ARGUMENT;
    return SINEW_OK;
}

/* Morton (Z-order) index of cell (ia, ib): the cells of a coarser grid (H / 2^L)
 * are contiguous runs of the finer order (index >> 2L). */
static uint64_t morton2(uint32_t ia, uint32_t ib)
{
    uint64_t m = 0;
    for (int bit = 0; bit < 16; bit++)
        m |= (uint64_t)((ia >> bit) & 1u) << (2 * bit + 1) | (uint64_t)((ib >> bit) & 1u) << (2 * bit);
    return m;
}

/* Sums one run of a bucket's sorted entries (key[e0 .. e1)) into cell c: mean
 * weights first, then the moments about them. */
static void sum_cell(cor_cell *c, const cor_entry *be, const uint64_t *key, uint64_t e0, uint64_t e1)
{
    const uint64_t lo_mask = (1ull << 40) - 1;
    double m = 0, sa = 0, sb = 0;
    memset(c, 0, sizeof *c);
    for (uint64_t q = e0; q < e1; q++) {
        const cor_entry *en = &be[key[q] & lo_mask];
        m += en->m; sa += en->m * en->wa; sb += en->m * en->wb;
    }
    const cor_entry *first = &be[key[e0] & lo_mask];
    c->a = m > 0 && e1 - e0 > 1 ? sa / m : first->wa; /* one entry: exact */
    c->b = m > 0 && e1 - e0 > 1 ? sb / m : first->wb;
    c->m = m;
    for (uint64_t q = e0; q < e1; q++) {
        const cor_entry *en = &be[key[q] & lo_mask];
        const double da = en->wa - c->a, db = en->wb - c->b, mm = en->m;
        c->saa += mm * da * da; c->sab += mm * da * db; c->sbb += mm * db * db;
        for (int k = 0; k < 3; k++) {
            const double mc = mm * en->c[k];
            c->c[k] += mc;
            c->ca[k] += mc * da; c->cb[k] += mc * db;
            c->caa[k] += mc * da * da; c->cab[k] += mc * da * db; c->cbb[k] += mc * db * db;
        }
    }
}

/* Sums each bucket's entries into cells of side 1 / H in (wa, wb), H a power of
 * two, and at the coarser levels H / 2, H / 4, ... (at least 4 cells per unit,
 * COR_MAX_LEVELS in all): (Morton cell, entry) keys sorted per bucket, so a
 * cell's entries are summed in one fixed order. */
static sinew_result build_cells(const sinew_allocator *al, const cor_entry *entries, const uint64_t *bstart, uint64_t nb,
                                uint32_t H, cor_level *lv, uint32_t *nlevels)
{
    const uint64_t E = bstart[nb];
    uint32_t nl = 0;
    while (nl < COR_MAX_LEVELS && (H >> nl) >= 4) nl++;
    if (nl == 0) nl = 1;
    uint64_t *key = (uint64_t *)snw_alloc(al, (size_t)(E ? E : 1) * sizeof(uint64_t));
    if (!key) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint64_t b = 0; b < nb; b++) {
        for (uint64_t e = bstart[b]; e < bstart[b + 1]; e++) {
            uint32_t ia = (uint32_t)(entries[e].wa * H), ib = (uint32_t)(entries[e].wb * H);
            if (ia >= H) ia = H - 1;
            if (ib >= H) ib = H - 1;
            /* cell in the high 24 bits, the entry's place in its bucket in the low 40 */
            key[e] = morton2(ia, ib) << 40 | (e - bstart[b]);
        }
        qsort(key + bstart[b], (size_t)(bstart[b + 1] - bstart[b]), sizeof(uint64_t), cmp_u64);
    }
    sinew_result r = SINEW_OK;
    for (uint32_t L = 0; L < nl && r == SINEW_OK; L++) {
        cor_level *l = &lv[L];
        const unsigned shift = 40 + 2 * L;
        l->H = H >> L;
        uint64_t nc = 0;
        for (uint64_t b = 0; b < nb; b++)
            for (uint64_t e = bstart[b]; e < bstart[b + 1]; e++)
                if (e == bstart[b] || (key[e] >> shift) != (key[e - 1] >> shift)) nc++;
        l->ncells = nc;
        l->cstart = (uint64_t *)snw_alloc(al, (size_t)(nb + 1) * sizeof(uint64_t));
        l->cells = (cor_cell *)snw_alloc(al, (size_t)(nc ? nc : 1) * sizeof(cor_cell));
        l->ab = (double *)snw_alloc(al, (size_t)(nc ? nc : 1) * 2 * sizeof(double));
        if (!l->cstart || !l->cells || !l->ab) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
        uint64_t ci = 0;
        for (uint64_t b = 0; b < nb; b++) {
            l->cstart[b] = ci;
            uint64_t e0 = bstart[b];
            while (e0 < bstart[b + 1]) {
                uint64_t e1 = e0 + 1;
                while (e1 < bstart[b + 1] && (key[e1] >> shift) == (key[e0] >> shift)) e1++;
                sum_cell(&l->cells[ci], entries + bstart[b], key, e0, e1);
                l->ab[ci] = l->cells[ci].a;
                l->ab[nc + ci] = l->cells[ci].b;
                ci++;
                e0 = e1;
            }
        }
        l->cstart[nb] = ci;
    }
    snw_free(al, key);
    *nlevels = nl;
    return r;
}

static void free_levels(const sinew_allocator *al, cor_level *lv)
{
    for (uint32_t L = 0; L < COR_MAX_LEVELS; L++) {
        snw_free(al, lv[L].cstart);
        snw_free(al, lv[L].cells);
        snw_free(al, lv[L].ab);
    }
}

sinew_result snw_cor_check(const sinew_cor_desc *d, snw_cor_params *p)
{
    sinew_allocator al;
    if (!d || snw_allocator_resolve(d->allocator, &al) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    p->sigma = d->sigma != 0.0 ? d->sigma : SINEW_COR_DEFAULT_SIGMA;
    p->epsilon = d->epsilon != 0.0 ? d->epsilon : SINEW_COR_DEFAULT_EPSILON;
    p->max_depth = d->max_depth ? d->max_depth : SINEW_COR_DEFAULT_MAX_DEPTH;
    p->weight_cells = 0;
    p->exact = d->exact != 0;
    sinew_result r = validate(d, p->sigma, p->epsilon, p->max_depth);
    if (r != SINEW_OK) return r;
    if (d->weight_cells > SINEW_COR_MAX_WEIGHT_CELLS) return SINEW_ERROR_INVALID_ARGUMENT;
    /* default: cells of side 1 / ceil(6.4 / sigma) (64 at sigma 0.1), 16 .. 4096 */
    double auto_cells = ceil(SINEW_COR_DEFAULT_WEIGHT_CELLS * SINEW_COR_DEFAULT_SIGMA / p->sigma);
    auto_cells = auto_cells < 16.0 ? 16.0 : auto_cells > SINEW_COR_MAX_WEIGHT_CELLS ? SINEW_COR_MAX_WEIGHT_CELLS : auto_cells;
    if (!p->exact) {
        uint32_t want = d->weight_cells ? d->weight_cells : (uint32_t)auto_cells, H = 1;
        while (H < want) H <<= 1; /* a power of two (the coarser levels halve it) */
        p->weight_cells = H;
    }
    return SINEW_OK;
}

sinew_result sinew_cor_compute(const sinew_cor_desc *desc, float *centers_out, sinew_cor_stats *stats)
{
    if (!desc || !centers_out) return SINEW_ERROR_INVALID_ARGUMENT;
    const sinew_cor_desc *d = desc;
    snw_cor_params prm;
    sinew_result r = snw_cor_check(d, &prm);
    if (r != SINEW_OK) return r;
    sinew_allocator al;
    if (snw_allocator_resolve(d->allocator, &al) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT; /* not reached: checked above */
    const double sigma = prm.sigma, eps = prm.epsilon;
    const uint32_t depth = prm.max_depth, cells_per_unit = prm.weight_cells;
    const uint32_t n = d->vertex_count;

    cor_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.d = d;
    cx.eps2 = eps * eps;
    cx.max_depth = depth;
    uint64_t *keys = NULL, *bkeys = NULL, *bstart = NULL, *cursor = NULL, *evals = NULL;
    cor_entry *entries = NULL;
    cor_level levels[COR_MAX_LEVELS];
    uint32_t nlevels = 0;
    memset(levels, 0, sizeof levels);
    cor_vkey *vk = NULL;
    uint32_t *group_first = NULL;
    double *center = NULL;
    uint8_t *ok = NULL;
    r = SINEW_ERROR_OUT_OF_HOST_MEMORY;

    /* 1. subdivision: count, keys, buckets, entries */
    run_pass(&cx, 0);
    const uint64_t E = cx.count, samples = cx.samples;
    uint64_t nb = 0;
    if (E > 0) {
        if (E > SIZE_MAX / sizeof(cor_entry)) goto done;
        keys = (uint64_t *)snw_alloc(&al, (size_t)E * sizeof(uint64_t));
        if (!keys) goto done;
        cx.keys = keys;
        run_pass(&cx, 1);
        qsort(keys, (size_t)E, sizeof(uint64_t), cmp_u64);
        for (uint64_t i = 0; i < E; i++)
            if (i == 0 || keys[i] != keys[i - 1]) nb++;
        bkeys = (uint64_t *)snw_alloc(&al, (size_t)nb * sizeof(uint64_t));
        bstart = (uint64_t *)snw_alloc(&al, (size_t)(nb + 1) * sizeof(uint64_t));
        cursor = (uint64_t *)snw_alloc(&al, (size_t)nb * sizeof(uint64_t));
        if (!bkeys || !bstart || !cursor) goto done;
        nb = 0;
        for (uint64_t i = 0; i < E; i++)
            if (i == 0 || keys[i] != keys[i - 1]) {
                bkeys[nb] = keys[i];
                bstart[nb] = i;
                nb++;
            }
        bstart[nb] = E;
        snw_free(&al, keys);
        keys = NULL;
        memcpy(cursor, bstart, (size_t)nb * sizeof(uint64_t));
        entries = (cor_entry *)snw_alloc(&al, (size_t)E * sizeof(cor_entry));
        if (!entries) goto done;
        cx.bkeys = bkeys;
        cx.nbuckets = nb;
        cx.cursor = cursor;
        cx.entries = entries;
        run_pass(&cx, 2);
        if (!prm.exact) {
            r = build_cells(&al, entries, bstart, nb, cells_per_unit, levels, &nlevels);
            if (r != SINEW_OK) goto done;
            snw_free(&al, entries); /* the cells replace them */
            entries = NULL;
            r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        }
    }

    /* 2. vertices grouped by packed weights */
    vk = (cor_vkey *)snw_alloc(&al, (size_t)n * sizeof(cor_vkey));
    group_first = (uint32_t *)snw_alloc(&al, ((size_t)n + 1) * sizeof(uint32_t));
    if (!vk || !group_first) goto done;
    for (uint32_t i = 0; i < n; i++) {
        cor_w w;
        vertex_weights(d, i, &w);
        for (uint32_t k = 0; k < 8; k++) {
            vk[i].j[k] = k < w.n ? w.j[k] : 0xFFFFu;
            vk[i].q[k] = k < w.n ? (uint16_t)lround(w.w[k] * 65535.0) : 0u;
        }
        vk[i].index = i;
    }
    qsort(vk, n, sizeof(cor_vkey), cmp_vkey);
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || !vkey_equal(&vk[i], &vk[i - 1])) group_first[groups++] = i;
    group_first[groups] = n;

    /* 3. one center per group, on the pool */
    center = (double *)snw_alloc(&al, (size_t)groups * 3u * sizeof(double));
    ok = (uint8_t *)snw_calloc(&al, groups, 1);
    const uint32_t per_task = 8;
    const uint32_t tasks = (groups + per_task - 1) / per_task;
    evals = (uint64_t *)snw_calloc(&al, tasks, sizeof(uint64_t));
    if (!center || !ok || !evals) goto done;
    cor_job jb;
    memset(&jb, 0, sizeof jb);
    jb.d = d;
    jb.vk = vk;
    jb.group_first = group_first;
    jb.groups = groups;
    jb.per_task = per_task;
    jb.bkeys = bkeys;
    jb.bstart = bstart;
    jb.nbuckets = nb;
    jb.entries = entries;
    jb.levels = nlevels ? levels : NULL;
    jb.nlevels = nlevels;
    jb.inv_sigma2 = 1.0 / (sigma * sigma);
    jb.center = center;
    jb.ok = ok;
    jb.evals = evals;
    if (E > 0) {
        /* In batches of tasks when progress is wanted (each task's work is the
         * same whatever the batch, so the result is too). */
        const uint32_t batch = d->progress ? (tasks + 63u) / 64u : tasks;
        for (uint32_t t0 = 0; t0 < tasks; t0 += batch) {
            uint32_t nt = tasks - t0 < batch ? tasks - t0 : batch;
            jb.task_base = t0;
            if (d->pool) {
                r = sinew_thread_pool_run(d->pool, nt, group_task, &jb);
                if (r != SINEW_OK) goto done;
            } else {
                for (uint32_t t = 0; t < nt; t++) group_task(&jb, t, 0);
            }
            if (d->progress && !d->progress(d->progress_user, (double)(t0 + nt) / tasks)) {
                r = SINEW_ERROR_CANCELLED;
                goto done;
            }
        }
    }

    /* 4. scatter (fallback: the rest position) */
    uint32_t fallback = 0;
    for (uint32_t g = 0; g < groups; g++) {
        for (uint32_t s = group_first[g]; s < group_first[g + 1]; s++) {
            uint32_t i = vk[s].index;
            if (ok[g]) {
                for (int k = 0; k < 3; k++) centers_out[3 * (size_t)i + k] = (float)center[3 * (size_t)g + k];
            } else {
                const float *p = vertex_pos(d, i);
                for (int k = 0; k < 3; k++) centers_out[3 * (size_t)i + k] = p[k];
                fallback++;
            }
        }
    }
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->samples = samples;
        stats->pair_entries = E;
        stats->weight_cells = nlevels ? levels[0].ncells : 0;
        for (uint32_t t = 0; t < tasks; t++) stats->kernel_evaluations += evals[t];
        stats->weight_groups = groups;
        stats->fallback_vertices = fallback;
    }
    r = SINEW_OK;

done:
    snw_free(&al, keys);
    snw_free(&al, bkeys);
    snw_free(&al, bstart);
    snw_free(&al, cursor);
    snw_free(&al, entries);
    free_levels(&al, levels);
    snw_free(&al, vk);
    snw_free(&al, group_first);
    snw_free(&al, center);
    snw_free(&al, ok);
    snw_free(&al, evals);
    return r;
}
