/* Tests of cor.h (the optimized-centers-of-rotation precompute) and of the CoR
 * steps of the float64 reference skinner (reference.h, steps 5 and 6):
 *  - precompute against a brute-force evaluation of the paper's integral (no
 *    buckets, no grouping) on random meshes, 4 and 8 influences;
 *  - a two-joint tube: every center on the axis by symmetry, the middle ring's
 *    center at the joint, one-influence vertices keep their rest position;
 *  - bit-identical results for 1, 2, 3 threads and no pool; user allocator;
 *  - errors (and nothing written on error);
 *  - reference: an independent per-vertex evaluation (sinew_mat4 / quaternion
 *    products), rigid parts move rigidly whatever the center, equal rotations give
 *    LBS whatever the center, COR_SCALE = COR on rigid poses, tangents;
 *  - COR_SCALE_LOCAL / _MIXED: DQS_SCALE_LOCAL's / _MIXED's palettes, the reference
 *    against a separate evaluation from them, mixed = local / global at the flags' extremes. */
#include "testutil.h"
#include "count_alloc.h"
#include <sinew/cor.h>
#include <string.h>

static double d3(const float *a, const double *b)
{
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}

/* ---- brute force: the paper's sum over subdivided triangles, dense weights ---- */

typedef struct bf_mesh {
    uint32_t n, nt, J;
    const float *pos;      /* 3 per vertex */
    const double *w;       /* J per vertex */
    const uint32_t *tri;
    double sigma, eps;
    uint32_t depth;
} bf_mesh;

static double bf_sim(const double *a, const double *b, uint32_t J, double sigma)
{
    double s = 0;
    for (uint32_t j = 0; j < J; j++)
        for (uint32_t k = j + 1; k < J; k++) {
            double x = a[j] * b[k] - a[k] * b[j];
            s += a[j] * a[k] * b[j] * b[k] * exp(-x * x / (sigma * sigma));
        }
    return s;
}

static void bf_tri(const bf_mesh *m, const double *wv, const double p[3][3], double *const w[3], uint32_t depth,
                   double num[3], double *den)
{
    uint32_t J = m->J;
    double dmax = 0;
    for (int e = 0; e < 3; e++) {
        double s = 0;
        for (uint32_t j = 0; j < J; j++) s += (w[e][j] - w[(e + 1) % 3][j]) * (w[e][j] - w[(e + 1) % 3][j]);
        dmax = s > dmax ? s : dmax;
    }
    if (depth >= m->depth || !(dmax > m->eps * m->eps)) {
        double e1[3], e2[3], c[3], wl[64];
        for (int k = 0; k < 3; k++) { e1[k] = p[1][k] - p[0][k]; e2[k] = p[2][k] - p[0][k]; c[k] = (p[0][k] + p[1][k] + p[2][k]) / 3; }
        double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2], cz = e1[0] * e2[1] - e1[1] * e2[0];
        double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
        for (uint32_t j = 0; j < J; j++) wl[j] = (w[0][j] + w[1][j] + w[2][j]) / 3;
        double s = bf_sim(wv, wl, J, m->sigma) * area;
        for (int k = 0; k < 3; k++) num[k] += s * c[k];
        *den += s;
        return;
    }
    double mp[3][3], mwb[3][64], *mw[3] = { mwb[0], mwb[1], mwb[2] };
    for (int e = 0; e < 3; e++) {
        for (int k = 0; k < 3; k++) mp[e][k] = 0.5 * (p[e][k] + p[(e + 1) % 3][k]);
        for (uint32_t j = 0; j < J; j++) mw[e][j] = 0.5 * (w[e][j] + w[(e + 1) % 3][j]);
    }
    for (int c = 0; c < 3; c++) {
        int pv = (c + 2) % 3;
        double cp[3][3];
        double *cw[3] = { w[c], mw[c], mw[pv] };
        memcpy(cp[0], p[c], sizeof cp[0]);
        memcpy(cp[1], mp[c], sizeof cp[1]);
        memcpy(cp[2], mp[pv], sizeof cp[2]);
        bf_tri(m, wv, (const double(*)[3])cp, cw, depth + 1, num, den);
    }
    bf_tri(m, wv, (const double(*)[3])mp, mw, depth + 1, num, den);
}

static void bf_center(const bf_mesh *m, uint32_t i, double out[3])
{
    double num[3] = { 0, 0, 0 }, den = 0;
    for (uint32_t t = 0; t < m->nt; t++) {
        double p[3][3], wb[3][64], *w[3] = { wb[0], wb[1], wb[2] };
        for (int c = 0; c < 3; c++) {
            uint32_t v = m->tri[3 * t + c];
            for (int k = 0; k < 3; k++) p[c][k] = m->pos[3 * v + k];
            for (uint32_t j = 0; j < m->J; j++) w[c][j] = m->w[(size_t)m->J * v + j];
        }
        bf_tri(m, m->w + (size_t)m->J * i, (const double(*)[3])p, w, 0, num, &den);
    }
    if (den > 0) for (int k = 0; k < 3; k++) out[k] = num[k] / den;
    else for (int k = 0; k < 3; k++) out[k] = m->pos[3 * i + k];
}

/* A random triangle soup over a grid of vertices with random 1..K-influence weights. */
static void test_brute_force(tu_rng *r, int eight)
{
    enum { GX = 9, GY = 7, NV = GX * GY, J = 7, NT = 2 * (GX - 1) * (GY - 1) };
    static sinew_vertex v4[NV];
    static sinew_vertex8 v8[NV];
    static float pos[3 * NV], nrm[3 * NV], wts[8 * NV], cen[3 * NV];
    static uint32_t jo[8 * NV], tri[3 * NT];
    static double wd[J * NV];
    const uint32_t K = eight ? 8 : 4;
    for (uint32_t y = 0; y < GY; y++)
        for (uint32_t x = 0; x < GX; x++) {
            uint32_t i = y * GX + x;
            pos[3 * i] = (float)(x + tu_uniform(r, -0.3, 0.3));
            pos[3 * i + 1] = (float)(y + tu_uniform(r, -0.3, 0.3));
            pos[3 * i + 2] = (float)tu_uniform(r, -0.5, 0.5);
            nrm[3 * i] = 0; nrm[3 * i + 1] = 0; nrm[3 * i + 2] = 1;
            /* smooth-ish weights: a few joints near x, random mixing */
            uint32_t nk = 1 + tu_range(r, K);
            float sum = 0;
            for (uint32_t k = 0; k < K; k++) {
                jo[K * i + k] = (x / 2 + k + tu_range(r, 2)) % J;
                wts[K * i + k] = k < nk ? (float)tu_uniform(r, 0.05, 1.0) : 0.0f;
                sum += wts[K * i + k];
            }
            for (uint32_t k = 0; k < K; k++) wts[K * i + k] /= sum;
        }
    uint32_t t = 0;
    for (uint32_t y = 0; y + 1 < GY; y++)
        for (uint32_t x = 0; x + 1 < GX; x++) {
            uint32_t a = y * GX + x, b = a + 1, c = a + GX, d = c + 1;
            tri[3 * t] = a; tri[3 * t + 1] = b; tri[3 * t + 2] = d; t++;
            tri[3 * t] = a; tri[3 * t + 1] = d; tri[3 * t + 2] = c; t++;
        }
    sinew_influences inf = { 0 };
    inf.per_vertex = K; inf.joints = jo; inf.weights = wts;
    if (eight) TU_CHECK_OK(sinew_pack_vertices8(NV, pos, nrm, &inf, J, v8, NULL, NULL));
    else TU_CHECK_OK(sinew_pack_vertices(NV, pos, nrm, &inf, J, v4, NULL, NULL));
    /* dense packed weights and packed positions for the brute force */
    memset(wd, 0, sizeof wd);
    for (uint32_t i = 0; i < NV; i++)
        for (uint32_t k = 0; k < K; k++) {
            uint16_t jj = eight ? v8[i].joints[k] : v4[i].joints[k];
            uint16_t q = eight ? v8[i].weights[k] : v4[i].weights[k];
            wd[J * i + jj] += q / 65535.0;
            if (k < 3) pos[3 * i + k] = eight ? v8[i].position[k] : v4[i].position[k];
        }
    const double sigmas[2] = { 0.1, 0.3 }, epss[2] = { 0.1, 0.05 };
    static double bf[3 * NV];
    for (int s = 0; s < 2; s++) {
        bf_mesh m = { NV, NT, J, pos, wd, tri, sigmas[s], epss[s], SINEW_COR_DEFAULT_MAX_DEPTH };
        for (uint32_t i = 0; i < NV; i++) bf_center(&m, i, &bf[3 * i]);
        for (int exact = 1; exact >= 0; exact--) {
            sinew_cor_desc d = { 0 };
            sinew_cor_stats st;
            d.vertex_count = NV;
            d.vertices = eight ? NULL : v4;
            d.vertices8 = eight ? v8 : NULL;
            d.joint_count = J;
            d.triangle_count = NT;
            d.triangles = tri;
            d.sigma = s == 0 ? 0.0 : sigmas[s]; /* 0: the default 0.1 */
            d.epsilon = s == 0 ? 0.0 : epss[s];
            d.exact = exact;
            TU_CHECK_OK(sinew_cor_compute(&d, cen, &st));
            double worst = 0;
            for (uint32_t i = 0; i < NV; i++) {
                const double *c = &bf[3 * i];
                double e = d3(&cen[3 * i], c) / (1.0 + sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]));
                worst = e > worst ? e : worst;
            }
            fprintf(stderr, "brute force, %u influences, sigma %.2f eps %.2f, %s: %llu samples, %llu pair entries, "
                            "%llu cells, %u groups, %u fallbacks, worst relative difference %.3g\n", K, sigmas[s], epss[s],
                    exact ? "exact" : "accelerated", (unsigned long long)st.samples, (unsigned long long)st.pair_entries,
                    (unsigned long long)st.weight_cells, st.weight_groups, st.fallback_vertices, worst);
            /* exact: float output of a float64 computation, rounding of the final float only;
             * accelerated: the second-order expansion over weight cells of side <= 0.16 sigma
             * (cor.h states 1e-5 of the mesh's size at most) */
            const double tol = exact ? 1e-6 : 1e-5;
            TU_CHECK_MSG(worst <= tol, "%s centers differ from the brute force by %.3g (relative)",
                         exact ? "exact" : "accelerated", worst);
            TU_CHECK(st.samples > NT); /* subdivision happened */
            TU_CHECK(exact ? st.weight_cells == 0 : st.weight_cells > 0 && st.weight_cells <= st.pair_entries);
        }
    }
}

/* ---- the two-joint tube ---- */

enum { TR = 24, TS = 41 }; /* ring segments, rings along x in [0, 4] */

typedef struct tube {
    sinew_vertex v[TR * TS];
    uint32_t tri[3 * 2 * TR * (TS - 1)];
    uint32_t nt;
} tube;

/* Radius 1 along x, joint 0 at x = 0, joint 1 at x = 2; w1 = smoothstep over
 * x in [1, 3], so the weights are symmetric about x = 2. */
static void make_tube(tube *t)
{
    static float pos[3 * TR * TS], nrm[3 * TR * TS], w[2 * TR * TS];
    static uint32_t jo[2 * TR * TS];
    for (uint32_t s = 0; s < TS; s++)
        for (uint32_t k = 0; k < TR; k++) {
            uint32_t i = s * TR + k;
            double x = 4.0 * s / (TS - 1), a = 2 * M_PI * k / TR;
            pos[3 * i] = (float)x; pos[3 * i + 1] = (float)cos(a); pos[3 * i + 2] = (float)sin(a);
            nrm[3 * i] = 0; nrm[3 * i + 1] = (float)cos(a); nrm[3 * i + 2] = (float)sin(a);
            double u = (x - 1.0) / 2.0;
            u = u < 0 ? 0 : u > 1 ? 1 : u;
            double w1 = u * u * (3 - 2 * u);
            jo[2 * i] = 0; jo[2 * i + 1] = 1;
            w[2 * i] = (float)(1 - w1); w[2 * i + 1] = (float)w1;
        }
    t->nt = 0;
    for (uint32_t s = 0; s + 1 < TS; s++)
        for (uint32_t k = 0; k < TR; k++) {
            uint32_t a = s * TR + k, b = s * TR + (k + 1) % TR, c = a + TR, d = b + TR;
            uint32_t *o = t->tri + 3 * t->nt;
            o[0] = a; o[1] = b; o[2] = d; o[3] = a; o[4] = d; o[5] = c;
            t->nt += 2;
        }
    sinew_influences inf = { 0 };
    inf.per_vertex = 2; inf.joints = jo; inf.weights = w;
    TU_CHECK_OK(sinew_pack_vertices(TR * TS, pos, nrm, &inf, 2, t->v, NULL, NULL));
}

static void test_tube(void)
{
    static tube t;
    static float cen[3 * TR * TS];
    make_tube(&t);
    sinew_cor_desc d = { 0 };
    sinew_cor_stats st;
    d.vertex_count = TR * TS;
    d.vertices = t.v;
    d.joint_count = 2;
    d.triangle_count = t.nt;
    d.triangles = t.tri;
    TU_CHECK_OK(sinew_cor_compute(&d, cen, &st));
    double off_axis = 0, mid = 0;
    int mid_seen = 0;
    uint32_t blended = 0, rigid_ok = 1;
    for (uint32_t i = 0; i < TR * TS; i++) {
        const sinew_vertex *v = &t.v[i];
        int one = v->weights[1] == 0;
        if (one) { /* one influence: no similar triangle, the rest position */
            rigid_ok &= cen[3 * i] == v->position[0] && cen[3 * i + 1] == v->position[1] && cen[3 * i + 2] == v->position[2];
            continue;
        }
        blended++;
        double oa = sqrt((double)cen[3 * i + 1] * cen[3 * i + 1] + (double)cen[3 * i + 2] * cen[3 * i + 2]);
        off_axis = oa > off_axis ? oa : off_axis;
        if (v->position[0] == 2.0f) {
            mid_seen = 1;
            mid = fabs(cen[3 * i] - 2.0) > mid ? fabs(cen[3 * i] - 2.0) : mid;
        }
        /* the center lies within the blend region */
        TU_CHECK_MSG(cen[3 * i] > 0.9f && cen[3 * i] < 3.1f, "vertex %u: center x %g", i, cen[3 * i]);
    }
    fprintf(stderr, "tube (%u vertices, %u triangles): %llu samples, %u groups, %u blended vertices, "
                    "max distance of a center from the axis %.3g, middle ring's center |x - 2| = %.3g, %u fallbacks\n",
            TR * TS, t.nt, (unsigned long long)st.samples, st.weight_groups, blended, off_axis, mid, st.fallback_vertices);
    TU_CHECK(rigid_ok);
    TU_CHECK(blended > 0 && mid_seen);
    /* symmetry about the axis: ring positions are float-rounded (1e-7 of the radius) -> 1e-5;
     * symmetry about x = 2 is broken by the unorm16 weights (0.5 packs as 32768 / 65535 vs
     * 32767 / 65535, 1.5e-5), which moves the middle center by ~1e-5 -> 1e-4 */
    TU_CHECK_MSG(off_axis <= 1e-5, "a center is %.3g off the axis", off_axis);
    TU_CHECK_MSG(mid <= 1e-4, "middle ring's center %.3g from the joint", mid);
    TU_CHECK(st.weight_groups <= TS + 1); /* one group per ring (rings share weights) */
}

/* ---- threads, allocator, errors ---- */

static void test_threads_alloc_errors(void)
{
    static tube t;
    static float c0[3 * TR * TS], c1[3 * TR * TS], poison[3 * TR * TS];
    make_tube(&t);
    /* perturb weights so that groups are many (every vertex its own) */
    for (uint32_t i = 0; i < TR * TS; i++)
        if (t.v[i].weights[1] > 100 && t.v[i].weights[0] > 100) {
            uint16_t dlt = (uint16_t)(i % 37);
            t.v[i].weights[0] -= dlt;
            t.v[i].weights[1] += dlt;
        }
    sinew_cor_desc d = { 0 };
    d.vertex_count = TR * TS;
    d.vertices = t.v;
    d.joint_count = 2;
    d.triangle_count = t.nt;
    d.triangles = t.tri;
    TU_CHECK_OK(sinew_cor_compute(&d, c0, NULL));
    for (uint32_t th = 1; th <= 3; th++) {
        sinew_thread_pool_desc pd = { 0 };
        sinew_thread_pool *pool = NULL;
        pd.threads = th;
        TU_CHECK_OK(sinew_thread_pool_create(&pd, &pool));
        d.pool = pool;
        memset(c1, 0xAB, sizeof c1);
        TU_CHECK_OK(sinew_cor_compute(&d, c1, NULL));
        TU_CHECK_MSG(memcmp(c0, c1, sizeof c0) == 0, "%u threads: centers differ from the pool-less run", th);
        sinew_thread_pool_destroy(pool);
    }
    d.pool = NULL;

    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    d.allocator = &al;
    TU_CHECK_OK(sinew_cor_compute(&d, c1, NULL));
    TU_CHECK(ca.allocs > 0 && ca.live_blocks == 0 && ca.bad_free == 0);
    TU_CHECK(memcmp(c0, c1, sizeof c0) == 0);
    ca.fail_after = 2; /* an allocation fails: clean error, nothing leaked */
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_OUT_OF_HOST_MEMORY);
    TU_CHECK(ca.live_blocks == 0);
    /* every allocation failing in turn, both evaluations: OUT_OF_HOST_MEMORY or OK, nothing leaked */
    for (int ex = 0; ex < 2; ex++) {
        uint32_t oom = 0;
        d.exact = ex;
        for (int k = 0; k < 40; k++) {
            ca_init(&ca);
            ca.fail_after = k;
            sinew_result rr = sinew_cor_compute(&d, c1, NULL);
            TU_CHECK_MSG(rr == SINEW_OK || rr == SINEW_ERROR_OUT_OF_HOST_MEMORY, "allocation %d failing: %s", k,
                         sinew_result_string(rr));
            TU_CHECK_MSG(ca.live_blocks == 0 && ca.bad_free == 0, "allocation %d failing: %d blocks leaked", k,
                         (int)ca.live_blocks);
            oom += rr == SINEW_ERROR_OUT_OF_HOST_MEMORY;
        }
        TU_CHECK(oom >= 8);
    }
    d.exact = 0;
    ca_init(&ca);
    sinew_allocator half = { ca_alloc, NULL, &ca };
    d.allocator = &half;
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    d.allocator = NULL;

    /* errors: nothing written */
    memset(poison, 0x7F, sizeof poison);
    memcpy(c1, poison, sizeof c1);
    sinew_cor_desc e = d;
    TU_CHECK_RESULT(sinew_cor_compute(NULL, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_cor_compute(&e, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e.sigma = -0.1;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e.sigma = NAN;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.epsilon = -1;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.max_depth = SINEW_COR_MAX_DEPTH + 1;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.weight_cells = SINEW_COR_MAX_WEIGHT_CELLS + 1;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.triangle_count = 0;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_EMPTY);
    e = d; e.vertex_count = 0;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_EMPTY);
    e = d; e.joint_count = 0;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_EMPTY);
    e = d; e.triangles = NULL;
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.vertices8 = (const sinew_vertex8 *)t.v; /* both */
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.vertices = NULL; /* neither */
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    e = d; e.joint_count = 1; /* joint 1 out of range */
    TU_CHECK_RESULT(sinew_cor_compute(&e, c1, NULL), SINEW_ERROR_JOINT_INDEX);
    t.tri[3 * 17 + 1] = TR * TS; /* triangle index out of range */
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    t.tri[3 * 17 + 1] = 0;
    float keep = t.v[5].position[1];
    t.v[5].position[1] = NAN;
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_NON_FINITE);
    t.v[5].position[1] = INFINITY;
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_NON_FINITE);
    t.v[5].position[1] = keep;
    t.v[9].weights[0] ^= 1; /* weights no longer sum to 65535 */
    TU_CHECK_RESULT(sinew_cor_compute(&d, c1, NULL), SINEW_ERROR_INVALID_WEIGHT);
    t.v[9].weights[0] ^= 1;
    TU_CHECK(memcmp(c1, poison, sizeof c1) == 0);
    TU_CHECK_OK(sinew_cor_compute(&d, c1, NULL));
}

/* ---- reference ---- */

enum { JC = 20, NV = 1500 };

static double pos_a[3 * NV], nrm_a[3 * NV], pos_b[3 * NV], nrm_b[3 * NV], tan_a[4 * NV];

static sinew_vec3 at3(const double *a, uint32_t i) { return sinew_v3(a[3 * i], a[3 * i + 1], a[3 * i + 2]); }

static void test_reference(tu_rng *r)
{
    static sinew_vertex v[NV];
    static float cen[3 * NV];
    static sinew_tangent tg[NV];
    sinew_transform rest[JC], pose[JC];
    sinew_mat4 scratch[3 * JC], global[JC], T[JC];
    sinew_palette_joint pal[JC], pal2[JC];
    sinew_skeleton *sk = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(r, JC, rest, &sk));
    if (!sk) return;
    TU_CHECK_OK(tu_make_random_mesh(r, sk, NV, 0.5, v, NULL));
    for (uint32_t i = 0; i < NV; i++) {
        sinew_vec3 c = tu_random_vec3(r, -2, 2);
        cen[3 * i] = (float)c.x; cen[3 * i + 1] = (float)c.y; cen[3 * i + 2] = (float)c.z;
        tg[i].tangent_oct = sinew_oct_encode(tu_random_unit(r));
        tg[i].sign = tu_range(r, 2) ? 1.0f : -1.0f;
    }
    double e_ind = 0, e_rigid = 0, e_lbs = 0, e_scale = 0, e_tan = 0;
    for (int iter = 0; iter < 6; iter++) {
        memcpy(pose, rest, sizeof rest);
        tu_random_pose(r, JC, pose, 1.2 * M_PI, 0.0);
        TU_CHECK_OK(sinew_skeleton_fk(sk, pose, NULL, global));
        for (uint32_t j = 0; j < JC; j++) T[j] = sinew_mat4_mul(&global[j], sinew_skeleton_inverse_bind(sk, j));
        TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_COR, pose, NULL, scratch, pal));
        TU_CHECK_RESULT(sinew_reference_skin(NV, v, NULL, pal, JC, SINEW_METHOD_COR, 0, pos_a, nrm_a),
                        SINEW_ERROR_INVALID_ARGUMENT); /* needs centers */
        TU_CHECK_OK(sinew_reference_skin_cor(NV, v, NULL, cen, NULL, pal, JC, SINEW_METHOD_COR, 0, pos_a, nrm_a));
        /* independent: quaternions of T_j (sinew_quat_from_mat3), sinew_mat4 products */
        for (uint32_t i = 0; i < NV; i++) {
            sinew_mat3 r0 = sinew_mat4_upper3(&T[v[i].joints[0]]);
            sinew_quat q0 = sinew_quat_from_mat3(&r0), b = { 0, 0, 0, 0 };
            sinew_vec3 c = sinew_v3(cen[3 * i], cen[3 * i + 1], cen[3 * i + 2]), cm = sinew_v3(0, 0, 0);
            sinew_vec3 p = sinew_v3(v[i].position[0], v[i].position[1], v[i].position[2]);
            for (int k = 0; k < 4; k++) {
                double w = v[i].weights[k] / 65535.0;
                sinew_mat3 rk = sinew_mat4_upper3(&T[v[i].joints[k]]);
                sinew_quat q = sinew_quat_from_mat3(&rk);
                double s = q.x * q0.x + q.y * q0.y + q.z * q0.z + q.w * q0.w < 0 ? -w : w;
                b.x += s * q.x; b.y += s * q.y; b.z += s * q.z; b.w += s * q.w;
                cm = sinew_v3_add(cm, sinew_v3_scale(sinew_mat4_transform_point(&T[v[i].joints[k]], c), w));
            }
            b = sinew_quat_normalize(b);
            sinew_vec3 pe = sinew_v3_add(sinew_quat_rotate(b, sinew_v3_sub(p, c)), cm);
            sinew_vec3 ne = sinew_v3_normalize(sinew_quat_rotate(b, sinew_oct_decode(v[i].normal_oct)));
            double e = sinew_v3_length(sinew_v3_sub(pe, at3(pos_a, i))) / (1 + sinew_v3_length(pe));
            e += sinew_v3_length(sinew_v3_sub(ne, at3(nrm_a, i)));
            e_ind = e > e_ind ? e : e_ind;
            /* one influence: the rigid transform, whatever the center */
            if (v[i].weights[0] == 65535) {
                sinew_vec3 pr = sinew_mat4_transform_point(&T[v[i].joints[0]], p);
                double er = sinew_v3_length(sinew_v3_sub(pr, at3(pos_a, i))) / (1 + sinew_v3_length(pr));
                e_rigid = er > e_rigid ? er : e_rigid;
            }
        }
        /* COR_SCALE on a pose without scale: S = identity-ish, same result */
        TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_COR_SCALE, pose, NULL, scratch, pal2));
        TU_CHECK_OK(sinew_reference_skin_cor(NV, v, NULL, cen, NULL, pal2, JC, SINEW_METHOD_COR_SCALE, 0, pos_b, nrm_b));
        for (uint32_t i = 0; i < 3 * NV; i++) {
            double e = fabs(pos_a[i] - pos_b[i]) / (1 + fabs(pos_a[i])) + fabs(nrm_a[i] - nrm_b[i]);
            e_scale = e > e_scale ? e : e_scale;
        }
        /* tangents: rotated as the normal, so dot(n, t) is kept */
        TU_CHECK_OK(sinew_reference_tangents(NV, v, NULL, tg, pal, JC, SINEW_METHOD_COR, tan_a));
        for (uint32_t i = 0; i < NV; i++) {
            sinew_vec3 n0 = sinew_oct_decode(v[i].normal_oct), t0 = sinew_oct_decode(tg[i].tangent_oct);
            sinew_vec3 t1 = sinew_v3(tan_a[4 * i], tan_a[4 * i + 1], tan_a[4 * i + 2]);
            double e = fabs(sinew_v3_dot(n0, t0) - sinew_v3_dot(at3(nrm_a, i), t1)) + fabs(tan_a[4 * i + 3] - tg[i].sign);
            e_tan = e > e_tan ? e : e_tan;
        }
        /* every joint rotated alike (different translations): CoR = LBS, whatever the center */
        {
            sinew_quat qr = tu_random_quat(r);
            sinew_palette_joint pl[JC];
            for (uint32_t j = 0; j < JC; j++) {
                sinew_mat4 m = sinew_mat4_from_rigid(qr, tu_random_vec3(r, -1, 1));
                pl[j].skin = m;
                pl[j].scale = sinew_mat4_identity();
                pl[j].rigid = sinew_dq_from_mat4(&m);
                pl[j].seg_head = pl[j].seg_tail = sinew_v3(0, 0, 0);
            }
            TU_CHECK_OK(sinew_reference_skin_cor(NV, v, NULL, cen, NULL, pl, JC, SINEW_METHOD_COR, 0, pos_b, nrm_b));
            TU_CHECK_OK(sinew_reference_skin(NV, v, NULL, pl, JC, SINEW_METHOD_LBS, 0, pos_a, nrm_a));
            for (uint32_t i = 0; i < 3 * NV; i++) {
                double e = fabs(pos_a[i] - pos_b[i]) / (1 + fabs(pos_a[i])) + fabs(nrm_a[i] - nrm_b[i]);
                e_lbs = e > e_lbs ? e : e_lbs;
            }
        }
    }
    fprintf(stderr, "reference CoR: vs independent %.3g, rigid vertices %.3g, COR_SCALE vs COR %.3g, "
                    "equal rotations vs LBS %.3g, tangent dot %.3g\n", e_ind, e_rigid, e_scale, e_lbs, e_tan);
    TU_CHECK(e_ind <= 1e-9);   /* quaternion extraction of T_j differs in rounding only */
    TU_CHECK(e_rigid <= 1e-12);
    TU_CHECK(e_scale <= 1e-9);  /* polar decomposition of a rotation: rounding */
    TU_CHECK(e_lbs <= 1e-12);
    TU_CHECK(e_tan <= 1e-6);   /* oct-decoded rest frames are unit to ~1e-9; rotation keeps the dot */

    /* other methods through skin_cor: identical to sinew_reference_skin */
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_DQS, pose, NULL, scratch, pal));
    TU_CHECK_OK(sinew_reference_skin(NV, v, NULL, pal, JC, SINEW_METHOD_DQS, 0, pos_a, nrm_a));
    TU_CHECK_OK(sinew_reference_skin_cor(NV, v, NULL, NULL, NULL, pal, JC, SINEW_METHOD_DQS, 0, pos_b, nrm_b));
    TU_CHECK(memcmp(pos_a, pos_b, sizeof pos_a) == 0 && memcmp(nrm_a, nrm_b, sizeof nrm_a) == 0);
    /* errors */
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_COR, pose, NULL, scratch, pal));
    TU_CHECK_RESULT(sinew_reference_skin_cor(NV, v, NULL, NULL, NULL, pal, JC, SINEW_METHOD_COR, 0, pos_a, nrm_a),
                    SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_reference_skin_cor(NV, NULL, NULL, cen, NULL, pal, JC, SINEW_METHOD_COR, 0, pos_a, nrm_a),
                    SINEW_ERROR_INVALID_ARGUMENT);
    cen[7] = NAN;
    TU_CHECK_RESULT(sinew_reference_skin_cor(NV, v, NULL, cen, NULL, pal, JC, SINEW_METHOD_COR, 0, pos_a, nrm_a),
                    SINEW_ERROR_NON_FINITE);
    cen[7] = 0;
    /* plain CoR refuses a scaled pose (as DQS) */
    memcpy(pose, rest, sizeof rest);
    pose[0].scale = sinew_v3(1.5, 1, 1);
    TU_CHECK_RESULT(sinew_palette_build(sk, SINEW_METHOD_COR, pose, NULL, scratch, pal), SINEW_ERROR_NOT_RIGID);
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_COR_SCALE, pose, NULL, scratch, pal));
    sinew_skeleton_destroy(sk);
}

/* CoR with the local and mixed scale modes (COR_SCALE_LOCAL, COR_SCALE_MIXED): the
 * palettes are DQS_SCALE_LOCAL's / _MIXED's (bit for bit), and the reference equals a
 * separate float64 computation from that palette with sinew_mat4 / quaternion
 * products: p1 = sum w S_k p, c1 = sum w S_k c, n1 = cof(A) n sign(det A),
 * c' = sum w R_k c1 (R_k = sinew_dq_to_mat4 of rigid_k), r = the normalized blend
 * of the sign-aligned rigid_k.real, p' = rot(r)(p1 - c1) + c', n' = rot(r) n1.
 * Random forest with random scale_propagates flags, poses with non-uniform scale,
 * random centers. Not vacuous: the three modes give different positions. */
static void test_reference_scale_modes(tu_rng *r)
{
    static sinew_vertex v[NV];
    static float cen[3 * NV];
    int32_t parents[JC];
    bool prop[JC];
    sinew_transform rest[JC], pose[JC];
    sinew_mat4 scratch[3 * JC];
    sinew_palette_joint pal[JC], pal_dqs[JC];
    static double modes_pos[3][3 * NV];
    tu_random_forest(r, JC, parents);
    tu_random_bind(r, JC, parents, rest);
    for (uint32_t j = 0; j < JC; j++) prop[j] = tu_range(r, 2) != 0;
    sinew_skeleton_desc d = { 0 };
    d.joint_count = JC; d.parents = parents; d.rest_local = rest; d.scale_propagates = prop;
    sinew_skeleton *sk = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &sk));
    if (!sk) return;
    TU_CHECK_OK(tu_make_random_mesh(r, sk, NV, 0.5, v, NULL));
    for (uint32_t i = 0; i < NV; i++)
        for (int c = 0; c < 3; c++) cen[3 * i + c] = v[i].position[c] + (float)tu_uniform(r, -0.5, 0.5);
    const sinew_method cm[3] = { SINEW_METHOD_COR_SCALE, SINEW_METHOD_COR_SCALE_LOCAL, SINEW_METHOD_COR_SCALE_MIXED };
    const sinew_method dm[3] = { SINEW_METHOD_DQS_SCALE, SINEW_METHOD_DQS_SCALE_LOCAL, SINEW_METHOD_DQS_SCALE_MIXED };
    double e_pos = 0, e_nrm = 0, diff_local = 0, diff_mixed = 0;
    uint32_t same_palette = 0, compared = 0;
    for (int iter = 0; iter < 6; iter++) {
        memcpy(pose, rest, sizeof rest);
        tu_random_pose(r, JC, pose, 1.2 * M_PI, 0.5);
        for (int m = 0; m < 3; m++) {
            TU_CHECK_OK(sinew_palette_build(sk, cm[m], pose, NULL, scratch, pal));
            TU_CHECK_OK(sinew_palette_build(sk, dm[m], pose, NULL, scratch, pal_dqs));
            same_palette += memcmp(pal, pal_dqs, sizeof pal) == 0;
            TU_CHECK_OK(sinew_reference_skin_cor(NV, v, NULL, cen, NULL, pal, JC, cm[m], 0, pos_a, nrm_a));
            memcpy(modes_pos[m], pos_a, sizeof pos_a);
            for (uint32_t i = 0; i < NV; i++) {
                sinew_vec3 p = sinew_v3(v[i].position[0], v[i].position[1], v[i].position[2]);
                sinew_vec3 c = sinew_v3(cen[3 * i], cen[3 * i + 1], cen[3 * i + 2]);
                sinew_vec3 p1 = sinew_v3(0, 0, 0), c1 = sinew_v3(0, 0, 0), cc = sinew_v3(0, 0, 0);
                sinew_mat3 A = { { { 0 } } };
                sinew_quat q0 = pal[v[i].joints[0]].rigid.real, b = { 0, 0, 0, 0 };
                for (int k = 0; k < 4; k++) {
                    double w = v[i].weights[k] / 65535.0;
                    const sinew_mat4 *S = &pal[v[i].joints[k]].scale;
                    p1 = sinew_v3_add(p1, sinew_v3_scale(sinew_mat4_transform_point(S, p), w));
                    c1 = sinew_v3_add(c1, sinew_v3_scale(sinew_mat4_transform_point(S, c), w));
                    sinew_mat3 s3 = sinew_mat4_upper3(S);
                    for (int x = 0; x < 3; x++)
                        for (int y = 0; y < 3; y++) A.m[x][y] += w * s3.m[x][y];
                }
                for (int k = 0; k < 4; k++) {
                    double w = v[i].weights[k] / 65535.0;
                    sinew_mat4 R = sinew_dq_to_mat4(pal[v[i].joints[k]].rigid);
                    cc = sinew_v3_add(cc, sinew_v3_scale(sinew_mat4_transform_point(&R, c1), w));
                    sinew_quat q = pal[v[i].joints[k]].rigid.real;
                    double sg = q.x * q0.x + q.y * q0.y + q.z * q0.z + q.w * q0.w < 0 ? -w : w;
                    b.x += sg * q.x; b.y += sg * q.y; b.z += sg * q.z; b.w += sg * q.w;
                }
                b = sinew_quat_normalize(b);
                sinew_vec3 pe = sinew_v3_add(sinew_quat_rotate(b, sinew_v3_sub(p1, c1)), cc);
                sinew_mat3 cof = sinew_mat3_cofactor(&A);
                sinew_vec3 n1 = sinew_mat3_mul_v3(&cof, sinew_oct_decode(v[i].normal_oct));
                if (sinew_mat3_det(&A) < 0) n1 = sinew_v3_scale(n1, -1);
                sinew_vec3 ne = sinew_v3_normalize(sinew_quat_rotate(b, n1));
                double ep = sinew_v3_length(sinew_v3_sub(pe, at3(pos_a, i))) / (1 + sinew_v3_length(pe));
                double en = sinew_v3_length(sinew_v3_sub(ne, at3(nrm_a, i)));
                e_pos = ep > e_pos ? ep : e_pos;
                if (sinew_v3_length(n1) > 1e-6) e_nrm = en > e_nrm ? en : e_nrm;
                compared++;
            }
        }
        for (uint32_t i = 0; i < 3 * NV; i++) {
            double dl = fabs(modes_pos[1][i] - modes_pos[0][i]), dx = fabs(modes_pos[2][i] - modes_pos[0][i]);
            diff_local = dl > diff_local ? dl : diff_local;
            diff_mixed = dx > diff_mixed ? dx : diff_mixed;
        }
    }
    fprintf(stderr, "reference CoR scale modes: %u vertices vs a separate computation: position %.3g, normal %.3g; "
                    "palettes equal to DQS's %u/18; largest change from global: local %.3g, mixed %.3g\n",
            compared, e_pos, e_nrm, same_palette, diff_local, diff_mixed);
    TU_CHECK(same_palette == 18);
    TU_CHECK(e_pos <= 1e-12 && e_nrm <= 1e-9);
    TU_CHECK(diff_local > 1e-3 && diff_mixed > 1e-3);
    /* mixed on a skeleton whose joints all propagate (the default) = global; none propagate = local */
    for (uint32_t j = 0; j < JC; j++) prop[j] = false;
    sinew_skeleton *sk_none = NULL, *sk_all = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &sk_none));
    d.scale_propagates = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &sk_all));
    if (sk_none && sk_all) {
        sinew_palette_joint pm[JC];
        memcpy(pose, rest, sizeof rest);
        tu_random_pose(r, JC, pose, 1.2 * M_PI, 0.5);
        TU_CHECK_OK(sinew_palette_build(sk_none, SINEW_METHOD_COR_SCALE_MIXED, pose, NULL, scratch, pm));
        TU_CHECK_OK(sinew_palette_build(sk_none, SINEW_METHOD_COR_SCALE_LOCAL, pose, NULL, scratch, pal));
        TU_CHECK(memcmp(pm, pal, sizeof pm) == 0);
        TU_CHECK_OK(sinew_palette_build(sk_all, SINEW_METHOD_COR_SCALE_MIXED, pose, NULL, scratch, pm));
        TU_CHECK_OK(sinew_palette_build(sk_all, SINEW_METHOD_COR_SCALE, pose, NULL, scratch, pal));
        TU_CHECK(memcmp(pm, pal, sizeof pm) == 0);
        /* from model-space matrices: refused, as DQS's local / mixed modes */
        sinew_mat4 g[JC];
        TU_CHECK_OK(sinew_skeleton_fk(sk_all, pose, NULL, g));
        TU_CHECK_RESULT(sinew_palette_build_from_globals(sk_all, SINEW_METHOD_COR_SCALE_LOCAL, g, pm), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_palette_build_from_globals(sk_all, SINEW_METHOD_COR_SCALE_MIXED, g, pm), SINEW_ERROR_INVALID_ARGUMENT);
    }
    sinew_skeleton_destroy(sk_none);
    sinew_skeleton_destroy(sk_all);
    sinew_skeleton_destroy(sk);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xC0C0C0);
    TU_CHECK(sinew_method_uses_centers(SINEW_METHOD_COR) && sinew_method_uses_centers(SINEW_METHOD_COR_SCALE) &&
             sinew_method_uses_centers(SINEW_METHOD_COR_SCALE_LOCAL) && sinew_method_uses_centers(SINEW_METHOD_COR_SCALE_MIXED));
    TU_CHECK(!sinew_method_uses_centers(SINEW_METHOD_DQS) && !sinew_method_uses_centers((sinew_method)99));
    test_brute_force(&r, 0);
    test_brute_force(&r, 1);
    test_tube();
    test_threads_alloc_errors();
    test_reference(&r);
    test_reference_scale_modes(&r);
    return tu_finish("test_cor");
}
