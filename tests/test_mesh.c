/* Tests of mesh.h: influence packing (prune, renormalize, quantize, sort),
 * every error path, automatic weights, bulge rest distances. */
#include "testutil.h"
#include <string.h>

static sinew_influences fixed_inf(uint32_t per_vertex, const uint32_t *j, const float *w)
{
    sinew_influences inf = {0};
    inf.per_vertex = per_vertex;
    inf.joints = j;
    inf.weights = w;
    return inf;
}

/* Independent distance to a segment (projection by parameter, no shared code). */
static double seg_dist(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b)
{
    sinew_vec3 ab = sinew_v3_sub(b, a), ap = sinew_v3_sub(p, a);
    double l2 = sinew_v3_dot(ab, ab), t = l2 > 0 ? sinew_v3_dot(ap, ab) / l2 : 0;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    return sinew_v3_length(sinew_v3_sub(p, sinew_v3_add(a, sinew_v3_scale(ab, t))));
}

static void test_prune_6_to_4(void)
{
    const float pos[3] = { 0, 0, 0 }, nrm[3] = { 0, 0, 1 };
    const uint32_t j[6] = { 0, 1, 2, 3, 4, 5 };
    const float w[6] = { 0.05f, 0.3f, 0.1f, 0.2f, 0.25f, 0.1f };
    sinew_influences inf = fixed_inf(6, j, w);
    sinew_vertex v;
    sinew_pack_stats st;
    uint32_t bad = 77;
    /* kept: 0.3 (j1), 0.25 (j4), 0.2 (j3), 0.1 tie between j2 and j5 -> j2 (lower index) */
    const uint32_t ej[4] = { 1, 4, 3, 2 };
    const double ew[4] = { 0.3f, 0.25f, 0.2f, 0.1f };
    double ks = ew[0] + ew[1] + ew[2] + ew[3];
    uint32_t sum = 0;
    TU_CHECK_OK(sinew_pack_vertices(1, pos, nrm, &inf, 6, &v, &st, &bad));
    TU_CHECK(bad == 0);
    for (int k = 0; k < 4; k++) {
        TU_CHECK_MSG(v.joints[k] == ej[k], "slot %d joint %u, expected %u", k, v.joints[k], ej[k]);
        /* renormalized over the kept four; quantization error < 1 unit */
        TU_CHECK_NEAR(sinew_vertex_weight(&v, k), ew[k] / ks, 1.0 / 65535);
        sum += v.weights[k];
    }
    TU_CHECK(sum == 65535u);
    TU_CHECK(st.max_influences == 6 && st.vertices_pruned == 1 && st.influences_pruned == 2);
    TU_CHECK(sinew_vertex_weight(&v, -1) == 0.0 && sinew_vertex_weight(&v, 4) == 0.0);
}

static void test_ties_sort_duplicates(void)
{
    const float pos[3] = { 1, 2, 3 }, nrm[3] = { 0, 0, 0 };
    sinew_vertex v;
    /* 4 equal weights: 65535/4 = 16383.75, floors sum to 65532, the 3 missing units go
     * to the first three slots (equal remainders: larger weight / earlier slot first) */
    {
        const uint32_t j[4] = { 7, 3, 5, 1 };
        const float w[4] = { 0.25f, 0.25f, 0.25f, 0.25f };
        sinew_influences inf = fixed_inf(4, j, w);
        TU_CHECK_OK(sinew_pack_vertices(1, pos, nrm, &inf, 8, &v, NULL, NULL));
        TU_CHECK(v.joints[0] == 1 && v.joints[1] == 3 && v.joints[2] == 5 && v.joints[3] == 7);
        TU_CHECK(v.weights[0] == 16384 && v.weights[1] == 16384 && v.weights[2] == 16384 && v.weights[3] == 16383);
        TU_CHECK(v.normal_oct == SINEW_OCT_ZERO);     /* a zero normal stays zero */
        TU_CHECK(memcmp(v.position, pos, sizeof pos) == 0);
    }
    /* increasing input order comes out decreasing; zero weights dropped, slot repeats joints[0] */
    {
        const uint32_t j[4] = { 2, 6, 4, 9 };
        const float w[4] = { 0.1f, 0.0f, 0.3f, 0.6f };
        sinew_influences inf = fixed_inf(4, j, w);
        TU_CHECK_OK(sinew_pack_vertices(1, pos, nrm, &inf, 10, &v, NULL, NULL));
        TU_CHECK(v.joints[0] == 9 && v.joints[1] == 4 && v.joints[2] == 2 && v.joints[3] == 9);
        TU_CHECK(v.weights[0] > v.weights[1] && v.weights[1] > v.weights[2] && v.weights[3] == 0);
        TU_CHECK_NEAR(sinew_vertex_weight(&v, 0), 0.6f / (0.1 + 0.3 + 0.6), 1.0 / 65535);
    }
    /* duplicate joints are merged (0.3 + 0.3 on joint 2 beats 0.4 on joint 1) */
    {
        const uint32_t j[3] = { 2, 1, 2 };
        const float w[3] = { 0.3f, 0.4f, 0.3f };
        sinew_influences inf = fixed_inf(3, j, w);
        sinew_pack_stats st;
        TU_CHECK_OK(sinew_pack_vertices(1, pos, nrm, &inf, 3, &v, &st, NULL));
        TU_CHECK(v.joints[0] == 2 && v.joints[1] == 1 && v.weights[2] == 0 && v.weights[3] == 0);
        TU_CHECK_NEAR(sinew_vertex_weight(&v, 0), 0.6, 1.0 / 65535);
        TU_CHECK(st.max_influences == 2 && st.vertices_pruned == 0);
    }
    /* a tiny weight that quantizes to 0 becomes an unused slot repeating joints[0] */
    {
        const uint32_t j[2] = { 3, 5 };
        const float w[2] = { 1.0f, 1e-7f };
        sinew_influences inf = fixed_inf(2, j, w);
        TU_CHECK_OK(sinew_pack_vertices(1, pos, nrm, &inf, 6, &v, NULL, NULL));
        TU_CHECK(v.weights[0] == 65535 && v.weights[1] == 0 && v.joints[1] == 3);
    }
    /* non-unit normal: encoded like its unit direction */
    {
        const float big[3] = { 0, 3, 4 }, unit[3] = { 0, 0.6f, 0.8f };
        const uint32_t j[1] = { 0 };
        const float w[1] = { 1 };
        sinew_influences inf = fixed_inf(1, j, w);
        sinew_vertex a, b;
        TU_CHECK_OK(sinew_pack_vertices(1, pos, big, &inf, 1, &a, NULL, NULL));
        TU_CHECK_OK(sinew_pack_vertices(1, pos, unit, &inf, 1, &b, NULL, NULL));
        TU_CHECK(a.normal_oct == b.normal_oct);
        sinew_vec3 d = sinew_oct_decode(a.normal_oct);
        TU_CHECK_NEAR(d.y, 0.6, 1e-4);
        TU_CHECK_NEAR(d.z, 0.8, 1e-4);
    }
}

/* 100k random lists (1..8 entries, some zero weights), fixed and CSR: exact sum,
 * order, unused slots, weights within one unit of the renormalized 4 largest. */
static void test_random_lists(tu_rng *r)
{
    enum { N = 100000, MAXL = 8, JC = 300 };
    uint32_t *off = malloc(sizeof(uint32_t) * (N + 1)), *jo = malloc(sizeof(uint32_t) * N * MAXL);
    float *we = malloc(sizeof(float) * N * MAXL), *pos = calloc(3 * N, sizeof(float));
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * N);
    sinew_influences inf = {0};
    sinew_pack_stats st;
    uint32_t e = 0, bad_sum = 0, bad_order = 0, bad_unused = 0, bad_set = 0, pruned = 0;
    double max_err = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t len = 1 + tu_range(r, MAXL);
        off[i] = e;
        for (uint32_t k = 0; k < len; k++, e++) {
            jo[e] = tu_range(r, JC);
            for (uint32_t f = off[i]; f < e; f++) if (jo[f] == jo[e]) { jo[e] = (jo[e] + 1) % JC; f = off[i] - 1; }
            we[e] = (k > 0 && tu_range(r, 5) == 0) ? 0.0f : (float)tu_uniform(r, 1e-4, 1.0);
        }
        {
            uint32_t nz = 0;
            for (uint32_t f = off[i]; f < e; f++) nz += we[f] > 0;
            if (nz > 4) pruned++;
        }
    }
    off[N] = e;
    inf.offsets = off; inf.joints = jo; inf.weights = we;
    TU_CHECK_OK(sinew_pack_vertices(N, pos, NULL, &inf, JC, v, &st, NULL));
    for (uint32_t i = 0; i < N; i++) {
        /* independent expectation: selection sort of the list by (weight desc, joint asc) */
        uint32_t n = off[i + 1] - off[i], idx[MAXL], kept, sum = 0;
        double ks = 0;
        for (uint32_t k = 0; k < n; k++) idx[k] = off[i] + k;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++)
                if (we[idx[b]] > we[idx[a]] || (we[idx[b]] == we[idx[a]] && jo[idx[b]] < jo[idx[a]])) {
                    uint32_t t = idx[a]; idx[a] = idx[b]; idx[b] = t;
                }
        kept = 0;
        while (kept < n && kept < 4 && we[idx[kept]] > 0) ks += we[idx[kept++]];
        for (int k = 0; k < 4; k++) sum += v[i].weights[k];
        if (sum != 65535u) bad_sum++;
        for (int k = 1; k < 4; k++)
            if (v[i].weights[k] > v[i].weights[k - 1] ||
                (v[i].weights[k] > 0 && v[i].weights[k] == v[i].weights[k - 1] && v[i].joints[k] < v[i].joints[k - 1]))
                bad_order++;
        for (int k = 0; k < 4; k++) if (v[i].weights[k] == 0 && v[i].joints[k] != v[i].joints[0]) bad_unused++;
        for (uint32_t k = 0; k < kept; k++) {
            /* find expected joint among the slots (order can differ only for equal quanta) */
            int found = -1;
            for (int s = 0; s < 4; s++) if (v[i].joints[s] == jo[idx[k]] && v[i].weights[s] > 0) found = s;
            double wexp = we[idx[k]] / ks;
            if (found < 0) { if (wexp * 65535 >= 1) bad_set++; continue; }
            double err = fabs(v[i].weights[found] / 65535.0 - wexp);
            if (err > max_err) max_err = err;
        }
        /* the major joint: the largest input weight, unless another quantized equally */
        if (v[i].joints[0] != jo[idx[0]] && !(v[i].weights[1] == v[i].weights[0] && v[i].joints[1] == jo[idx[0]])) bad_set++;
    }
    fprintf(stderr, "random lists: %d vertices, pruned %u, max |q/65535 - w| = %.3g (bound %.3g)\n",
            N, st.vertices_pruned, max_err, 1.0 / 65535);
    TU_CHECK(bad_sum == 0);
    TU_CHECK(bad_order == 0);
    TU_CHECK(bad_unused == 0);
    TU_CHECK(bad_set == 0);
    TU_CHECK(max_err < 1.0 / 65535);
    TU_CHECK(st.max_influences == MAXL);
    TU_CHECK_MSG(st.vertices_pruned == pruned, "%u vs %u", st.vertices_pruned, pruned);
    free(off); free(jo); free(we); free(pos); free(v);
}

static void test_pack_errors(void)
{
    enum { N = 5 };
    float pos[3 * N] = {0}, nrm[3 * N];
    uint32_t j[4 * N] = {0};
    float w[4 * N] = {0};
    sinew_vertex v[N];
    sinew_influences inf = fixed_inf(4, j, w);
    uint32_t bad;
    for (int i = 0; i < 3 * N; i++) nrm[i] = (i % 3 == 2) ? 1.0f : 0.0f;
    for (int i = 0; i < 4 * N; i++) { j[i] = (uint32_t)(i % 4); w[i] = 0.25f; }
#define RESET() do { for (int i_ = 0; i_ < 4 * N; i_++) { j[i_] = (uint32_t)(i_ % 4); w[i_] = 0.25f; } \
                     for (int i_ = 0; i_ < 3 * N; i_++) { pos[i_] = 0; nrm[i_] = (i_ % 3 == 2) ? 1.0f : 0.0f; } } while (0)
#define EXPECT(code) do { bad = 99; TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &inf, 4, v, NULL, &bad), code); \
                          TU_CHECK_MSG(bad == 3, "bad_vertex %u, expected 3", bad); RESET(); } while (0)
    TU_CHECK_OK(sinew_pack_vertices(N, pos, nrm, &inf, 4, v, NULL, &bad));
    j[4 * 3 + 1] = 4;            EXPECT(SINEW_ERROR_JOINT_INDEX);     /* joint == joint_count */
    j[4 * 3 + 2] = 0xFFFFFFFFu;  EXPECT(SINEW_ERROR_JOINT_INDEX);
    w[4 * 3 + 0] = NAN;          EXPECT(SINEW_ERROR_INVALID_WEIGHT);
    w[4 * 3 + 1] = INFINITY;     EXPECT(SINEW_ERROR_INVALID_WEIGHT);
    w[4 * 3 + 2] = -0.25f;       EXPECT(SINEW_ERROR_INVALID_WEIGHT);
    w[4 * 3 + 0] = w[4 * 3 + 1] = w[4 * 3 + 2] = w[4 * 3 + 3] = 0.0f; EXPECT(SINEW_ERROR_INVALID_WEIGHT);
    pos[3 * 3 + 1] = NAN;        EXPECT(SINEW_ERROR_NON_FINITE);
    pos[3 * 3 + 0] = -INFINITY;  EXPECT(SINEW_ERROR_NON_FINITE);
    nrm[3 * 3 + 2] = INFINITY;   EXPECT(SINEW_ERROR_NON_FINITE);
    /* a zero-weight entry's joint is not checked (padding such as 0xFFFF is common) */
    j[4 * 3 + 3] = 1000; w[4 * 3 + 3] = 0.0f;
    TU_CHECK_OK(sinew_pack_vertices(N, pos, nrm, &inf, 4, v, NULL, &bad));
    RESET();
    bad = 99;
    TU_CHECK_RESULT(sinew_pack_vertices(0, pos, nrm, &inf, 4, v, NULL, &bad), SINEW_ERROR_EMPTY);
    TU_CHECK(bad == 0);
    TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &inf, 0, v, NULL, NULL), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &inf, 70000, v, NULL, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK_RESULT(sinew_pack_vertices(N, NULL, nrm, &inf, 4, v, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, NULL, 4, v, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &inf, 4, NULL, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    {
        sinew_influences z = fixed_inf(0, j, w);
        TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &z, 4, v, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    }
    {   /* CSR with decreasing offsets at vertex 3 */
        uint32_t off[N + 1] = { 0, 4, 8, 12, 11, 16 };
        sinew_influences c = {0};
        c.offsets = off; c.joints = j; c.weights = w;
        bad = 99;
        TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &c, 4, v, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(bad == 3);
        off[4] = 16;  /* vertex 3 owns 4 entries, vertex 4 none: zero sum at vertex 4 */
        off[3] = 12;
        TU_CHECK_RESULT(sinew_pack_vertices(N, pos, nrm, &c, 4, v, NULL, &bad), SINEW_ERROR_INVALID_WEIGHT);
        TU_CHECK(bad == 4);
    }
#undef EXPECT
#undef RESET
}

static void test_distance_to_segment(void)
{
    sinew_vec3 a = { 0, 0, 0 }, b = { 2, 0, 0 }, c;
    TU_CHECK_NEAR(sinew_distance_to_segment(sinew_v3(1, 3, 4), a, b, &c), 5.0, 1e-15);
    TU_CHECK_NEAR(c.x, 1.0, 1e-15);
    TU_CHECK_NEAR(sinew_distance_to_segment(sinew_v3(-3, 4, 0), a, b, &c), 5.0, 1e-15);
    TU_CHECK(c.x == 0 && c.y == 0 && c.z == 0);
    TU_CHECK_NEAR(sinew_distance_to_segment(sinew_v3(5, 0, 4), a, b, &c), 5.0, 1e-15);
    TU_CHECK(c.x == 2);
    TU_CHECK_NEAR(sinew_distance_to_segment(sinew_v3(3, 4, 0), b, b, NULL), sqrt(17.0), 1e-15);
}

/* Tube bones (joint 0 [0,0.5], joint 1 [0.5,1], joint 2 the point (1,0,0)):
 * on one bone, on a shared joint, at the tip, off the bones. */
static void test_auto_weights_exact(const sinew_skeleton *sk)
{
    uint32_t jo[4 * 8];
    float we[4 * 8];
    const float p[3 * 4] = { 0.25f, 0, 0,   0.5f, 0, 0,   1.0f, 0, 0,   0.25f, 0.1f, 0 };
    TU_CHECK_OK(sinew_auto_weights(sk, 4, p, 2.0, jo, we));
    /* exactly on bone 0 only */
    TU_CHECK(jo[0] == 0 && we[0] == 1.0f && we[1] == 0 && we[2] == 0 && we[3] == 0);
    /* on bones 0 and 1 (their shared joint): equal shares */
    TU_CHECK(jo[4] == 0 && jo[5] == 1 && we[4] == 0.5f && we[5] == 0.5f && we[6] == 0);
    /* at the tip: on bone 1 and on joint 2's point */
    TU_CHECK(jo[8] == 1 && jo[9] == 2 && we[8] == 0.5f && we[9] == 0.5f && we[10] == 0);
    /* off the bones: w0/w1 = (d1/d0)^alpha */
    double d0 = 0.1f, d1 = sqrt(0.25 * 0.25 + (double)0.1f * 0.1f), d2 = sqrt(0.75 * 0.75 + (double)0.1f * 0.1f);
    double k0 = pow(d0, -2), k1 = pow(d1, -2), k2 = pow(d2, -2), ks = k0 + k1 + k2;
    TU_CHECK(jo[12] == 0 && jo[13] == 1 && jo[14] == 2);
    TU_CHECK_NEAR(we[12], k0 / ks, 1e-6);
    TU_CHECK_NEAR(we[13], k1 / ks, 1e-6);
    TU_CHECK_NEAR(we[14], k2 / ks, 1e-6);
}

/* alpha effect: the major/second ratio grows as (d1/d0)^alpha */
static void test_auto_weights_alpha(const sinew_skeleton *sk)
{
    uint32_t jo[4 * 8];
    float we[4 * 8];
    const float p[3] = { 0.25f, 0.1f, 0 };
    double d0 = 0.1f, d1 = sqrt(0.25 * 0.25 + (double)0.1f * 0.1f), prev = 0;
    const double alphas[4] = { 0.5, 1, 2, 4 };
    for (int a = 0; a < 4; a++) {
        TU_CHECK_OK(sinew_auto_weights(sk, 1, p, alphas[a], jo, we));
        double ratio = (double)we[0] / we[1], expect = pow(d1 / d0, alphas[a]);
        fprintf(stderr, "auto weights: alpha %.1f major weight %.4f, w0/w1 = %.4f (expected %.4f)\n",
                alphas[a], we[0], ratio, expect);
        TU_CHECK(fabs(ratio / expect - 1) < 1e-5);
        TU_CHECK(we[0] > prev);            /* sharper: the major weight grows with alpha */
        prev = we[0];
    }
}

/* far vertices: nearly equal shares, never NaN (1e30 overflows d^-alpha naively) */
static void test_auto_weights_far_vertices(const sinew_skeleton *sk)
{
    uint32_t jo[4 * 8];
    float we[4 * 8];
    const float p[3 * 2] = { 0.25f, 1000.0f, 0,   0.25f, 1e30f, 0 };
    TU_CHECK_OK(sinew_auto_weights(sk, 2, p, 2.0, jo, we));
    for (int i = 0; i < 2; i++) {
        double s = 0;
        for (int k = 0; k < 3; k++) { TU_CHECK_NEAR(we[4 * i + k], 1.0 / 3.0, 1e-3); s += we[4 * i + k]; }
        TU_CHECK_NEAR(s, 1.0, 1e-6);
    }
}

static void test_auto_weights_errors(const sinew_skeleton *sk)
{
    uint32_t jo[4 * 8];
    float we[4 * 8];
    const float p[3] = { 0, 1, 0 }, bad[3] = { 0, NAN, 0 };
    TU_CHECK_RESULT(sinew_auto_weights(sk, 1, p, 0.0, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_auto_weights(sk, 1, p, -1.0, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_auto_weights(sk, 1, p, NAN, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_auto_weights(sk, 0, p, 2.0, jo, we), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_auto_weights(sk, 1, bad, 2.0, jo, we), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_auto_weights(NULL, 1, p, 2.0, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_auto_weights(sk, 1, p, 2.0, NULL, we), SINEW_ERROR_INVALID_ARGUMENT);
    /* joints 1e300 apart: refused, never NaN weights with SINEW_OK */
    int32_t parents[2] = { -1, 0 };
    sinew_transform rest[2];
    for (int j = 0; j < 2; j++) {
        rest[j].translation = sinew_v3(j ? 1e300 : 0, 0, 0);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = 2;
    sd.parents = parents;
    sd.rest_local = rest;
    sinew_skeleton *far = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&sd, &far));
    if (far) TU_CHECK_RESULT(sinew_auto_weights(far, 1, p, 2.0, jo, we), SINEW_ERROR_LIMIT_EXCEEDED);
    sinew_skeleton_destroy(far);
}

/* random skeletons: weights sum to 1, slot 0 is a nearest bone, pack accepts them */
static void test_auto_weights_random_skeleton(tu_rng *r)
{
    enum { JC = 40, NV = 2000 };
    sinew_skeleton *rs = NULL;
    float *p = malloc(sizeof(float) * 3 * NV), *w4 = malloc(sizeof(float) * 4 * NV);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * NV), bad_near = 0;
    double worst_sum = 0;
    TU_CHECK_OK(tu_make_random_skeleton(r, JC, NULL, &rs));
    for (uint32_t i = 0; i < 3 * NV; i++) p[i] = (float)tu_uniform(r, -3, 3);
    if (rs) {
        TU_CHECK_OK(sinew_auto_weights(rs, NV, p, 2.0, j4, w4));
        for (uint32_t i = 0; i < NV; i++) {
            double s = 0, dmin = INFINITY, d0;
            sinew_vec3 q = { p[3 * i], p[3 * i + 1], p[3 * i + 2] }, h, t;
            for (int k = 0; k < 4; k++) s += w4[4 * i + k];
            if (fabs(s - 1) > worst_sum) worst_sum = fabs(s - 1);
            for (uint32_t j = 0; j < JC; j++) {
                sinew_skeleton_bone_segment(rs, j, &h, &t);
                double d = seg_dist(q, h, t);
                if (d < dmin) dmin = d;
            }
            sinew_skeleton_bone_segment(rs, j4[4 * i], &h, &t);
            d0 = seg_dist(q, h, t);
            if (d0 > dmin + 1e-12) bad_near++;
        }
        {
            sinew_vertex *vv = malloc(sizeof(sinew_vertex) * NV);
            sinew_influences inf = fixed_inf(4, j4, w4);
            TU_CHECK_OK(sinew_pack_vertices(NV, p, NULL, &inf, JC, vv, NULL, NULL));
            free(vv);
        }
        fprintf(stderr, "auto weights on a random %d-joint skeleton: max |sum - 1| = %.3g\n", JC, worst_sum);
        TU_CHECK(worst_sum < 1e-6);
        TU_CHECK(bad_near == 0);
        sinew_skeleton_destroy(rs);
    }
    free(p); free(w4); free(j4);
}

/* A skeleton from parents and rest translations only (identity rotations, unit scale). */
static sinew_skeleton *make_chain(uint32_t n, const int32_t *parents, const double (*t)[3])
{
    sinew_transform rest[8];
    sinew_skeleton_desc sd = {0};
    sinew_skeleton *sk = NULL;
    for (uint32_t j = 0; j < n; j++) {
        rest[j].translation = sinew_v3(t[j][0], t[j][1], t[j][2]);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sd.joint_count = n;
    sd.parents = parents;
    sd.rest_local = rest;
    TU_CHECK_OK(sinew_skeleton_create(&sd, &sk));
    return sk;
}

/* sinew_auto_weights_ex: joint mask, point segments skipped, no eligible joint,
 * disconnected parts (two chains), every joint at one point. */
static void test_auto_weights_ex(const sinew_skeleton *tube_sk)
{
    uint32_t jo[4 * 4];
    float we[4 * 4];
    sinew_auto_weights_desc d;
    const float p[3 * 2] = { 0.8f, 0.1f, 0,   1.0f, 0, 0 };
    memset(&d, 0, sizeof d);
    d.alpha = 2.0;
    {   /* mask: joint 1 excluded, so the vertex over bone 1 goes to joints 0 and 2 only */
        const uint8_t mask[3] = { 1, 0, 1 };
        d.joint_mask = mask;
        TU_CHECK_OK(sinew_auto_weights_ex(tube_sk, &d, 2, p, jo, we));
        TU_CHECK(jo[0] == 2 && jo[1] == 0 && we[2] == 0 && we[3] == 0);
        for (int k = 0; k < 4; k++) TU_CHECK(jo[k] != 1);
        TU_CHECK(jo[4] == 2 && we[4] == 1.0f);    /* the tip is on joint 2's point */
        {
            const uint8_t none[3] = { 0, 0, 0 };
            d.joint_mask = none;
            TU_CHECK_RESULT(sinew_auto_weights_ex(tube_sk, &d, 2, p, jo, we), SINEW_ERROR_EMPTY);
        }
        d.joint_mask = NULL;
    }
    /* point segments skipped: the tip belongs to bone 1 alone, joint 2 gets nothing */
    d.skip_point_segments = 1;
    TU_CHECK_OK(sinew_auto_weights_ex(tube_sk, &d, 2, p, jo, we));
    TU_CHECK(jo[4] == 1 && we[4] == 1.0f && we[5] == 0);
    for (int k = 0; k < 8; k++) TU_CHECK(jo[k] != 2 || we[k] == 0);
    {   /* a single joint has no segment: with skip_point_segments nothing is eligible */
        const int32_t par[1] = { -1 };
        const double t[1][3] = { { 0, 0, 0 } };
        sinew_skeleton *one = make_chain(1, par, t);
        if (one) {
            TU_CHECK_RESULT(sinew_auto_weights_ex(one, &d, 2, p, jo, we), SINEW_ERROR_EMPTY);
            d.skip_point_segments = 0;    /* without it: the joint's point takes every vertex */
            TU_CHECK_OK(sinew_auto_weights_ex(one, &d, 2, p, jo, we));
            TU_CHECK(jo[0] == 0 && we[0] == 1.0f && jo[4] == 0 && we[4] == 1.0f);
            sinew_skeleton_destroy(one);
        }
    }
    d.skip_point_segments = 0;
    TU_CHECK_RESULT(sinew_auto_weights_ex(tube_sk, NULL, 2, p, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    d.alpha = INFINITY;
    TU_CHECK_RESULT(sinew_auto_weights_ex(tube_sk, &d, 2, p, jo, we), SINEW_ERROR_INVALID_ARGUMENT);
    d.alpha = 2.0;
    {   /* two disconnected chains (a forest) 10 apart: each part's vertices go to its own chain */
        const int32_t par[4] = { -1, 0, -1, 2 };
        const double t[4][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 10, 0 }, { 1, 0, 0 } };
        const float q[3 * 2] = { 0.5f, 0.2f, 0,   0.5f, 9.8f, 0 };
        sinew_skeleton *two = make_chain(4, par, t);
        if (two) {
            TU_CHECK_OK(sinew_auto_weights_ex(two, &d, 2, q, jo, we));
            double other[2] = { 0, 0 };
            TU_CHECK(jo[0] == 0 && jo[4] == 2);
            for (int k = 0; k < 4; k++) {
                if (jo[k] >= 2) other[0] += we[k];
                if (jo[4 + k] < 2) other[1] += we[4 + k];
            }
            fprintf(stderr, "auto weights, two chains 10 apart: weight on the other chain %.3g / %.3g\n", other[0], other[1]);
            TU_CHECK(other[0] < 1e-3 && other[1] < 1e-3);  /* the other chain is 49x farther: (1/49)^2 */
            sinew_skeleton_destroy(two);
        }
    }
    {   /* every joint at one point (skeleton size 0 -> 1): all equidistant, equal shares;
         * a vertex on that point is on every bone: equal shares too */
        const int32_t par[3] = { -1, 0, 1 };
        const double t[3][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
        const float q[3 * 2] = { 1, 0, 0,   0, 0, 0 };
        sinew_skeleton *pt = make_chain(3, par, t);
        if (pt) {
            TU_CHECK_OK(sinew_auto_weights_ex(pt, &d, 2, q, jo, we));
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 3; k++) TU_CHECK_NEAR(we[4 * i + k], 1.0 / 3.0, 1e-7);
            d.skip_point_segments = 1;
            TU_CHECK_RESULT(sinew_auto_weights_ex(pt, &d, 2, q, jo, we), SINEW_ERROR_EMPTY);
            d.skip_point_segments = 0;
            sinew_skeleton_destroy(pt);
        }
    }
}

/* sinew_auto_weights_packed = sinew_auto_weights_ex + sinew_pack_vertices, positions and
 * normals kept bit for bit; on error nothing is written. */
static void test_auto_weights_packed(tu_rng *r)
{
    enum { JC = 12, NV = 500 };
    sinew_skeleton *sk = NULL;
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * NV), *orig = malloc(sizeof(sinew_vertex) * NV);
    sinew_vertex *expect = malloc(sizeof(sinew_vertex) * NV);
    float *p = malloc(sizeof(float) * 3 * NV), *w4 = malloc(sizeof(float) * 4 * NV);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * NV), mism = 0;
    sinew_auto_weights_desc d;
    memset(&d, 0, sizeof d);
    d.alpha = 3.0;
    TU_CHECK_OK(tu_make_random_skeleton(r, JC, NULL, &sk));
    if (!sk) goto out;
    TU_CHECK_OK(tu_make_random_mesh(r, sk, NV, 0.5, v, NULL));
    memcpy(orig, v, sizeof(sinew_vertex) * NV);
    for (uint32_t i = 0; i < NV; i++)
        for (int k = 0; k < 3; k++) p[3 * i + k] = v[i].position[k];
    TU_CHECK_OK(sinew_auto_weights_ex(sk, &d, NV, p, j4, w4));
    {
        sinew_influences inf = fixed_inf(4, j4, w4);
        TU_CHECK_OK(sinew_pack_vertices(NV, p, NULL, &inf, JC, expect, NULL, NULL));
    }
    TU_CHECK_OK(sinew_auto_weights_packed(sk, &d, NV, v));
    for (uint32_t i = 0; i < NV; i++) {
        if (memcmp(v[i].position, orig[i].position, sizeof v[i].position) || v[i].normal_oct != orig[i].normal_oct ||
            memcmp(v[i].joints, expect[i].joints, sizeof v[i].joints) ||
            memcmp(v[i].weights, expect[i].weights, sizeof v[i].weights))
            mism++;
    }
    TU_CHECK(mism == 0);
    /* errors leave the array untouched */
    memcpy(expect, v, sizeof(sinew_vertex) * NV);
    v[NV - 1].position[1] = NAN;
    TU_CHECK_RESULT(sinew_auto_weights_packed(sk, &d, NV, v), SINEW_ERROR_NON_FINITE);
    v[NV - 1].position[1] = expect[NV - 1].position[1];
    TU_CHECK(memcmp(v, expect, sizeof(sinew_vertex) * NV) == 0);
    d.alpha = 0;
    TU_CHECK_RESULT(sinew_auto_weights_packed(sk, &d, NV, v), SINEW_ERROR_INVALID_ARGUMENT);
    d.alpha = 2;
    TU_CHECK_RESULT(sinew_auto_weights_packed(sk, &d, 0, v), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_auto_weights_packed(sk, &d, NV, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_auto_weights_packed(NULL, &d, NV, v), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(memcmp(v, expect, sizeof(sinew_vertex) * NV) == 0);
    sinew_skeleton_destroy(sk);
out:
    free(v); free(orig); free(expect); free(p); free(w4); free(j4);
}

static void test_auto_weights(tu_rng *r)
{
    sinew_skeleton *sk = NULL;
    TU_CHECK_OK(scene_tube_skeleton(NULL, &sk));
    if (!sk) return;
    test_auto_weights_exact(sk);
    test_auto_weights_alpha(sk);
    test_auto_weights_far_vertices(sk);
    test_auto_weights_errors(sk);
    test_auto_weights_ex(sk);
    sinew_skeleton_destroy(sk);
    test_auto_weights_random_skeleton(r);
    test_auto_weights_packed(r);
}

static void test_bulge_rest(tu_rng *r)
{
    enum { JC = 25, NV = 3000 };
    sinew_skeleton *sk = NULL;
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * NV);
    float *rest = malloc(sizeof(float) * NV);
    double worst = 0;
    TU_CHECK_OK(tu_make_random_skeleton(r, JC, NULL, &sk));
    if (!sk) { free(v); free(rest); return; }
    TU_CHECK_OK(tu_make_random_mesh(r, sk, NV, 0.5, v, NULL));
    TU_CHECK_OK(sinew_bulge_rest_distances(sk, NV, v, rest));
    for (uint32_t i = 0; i < NV; i++) {
        sinew_vec3 h, t, p = { v[i].position[0], v[i].position[1], v[i].position[2] };
        sinew_skeleton_bone_segment(sk, v[i].joints[0], &h, &t);
        double d = seg_dist(p, h, t), e = fabs(rest[i] - d) / (d > 1e-3 ? d : 1e-3);
        if (e > worst) worst = e;
    }
    fprintf(stderr, "bulge rest distances: max relative error vs direct float64 = %.3g (tol 1e-6)\n", worst);
    TU_CHECK(worst <= 1e-6);   /* float32 storage */
    v[7].joints[0] = JC;
    TU_CHECK_RESULT(sinew_bulge_rest_distances(sk, NV, v, rest), SINEW_ERROR_JOINT_INDEX);
    v[7].joints[0] = 0;
    v[9].position[2] = NAN;
    TU_CHECK_RESULT(sinew_bulge_rest_distances(sk, NV, v, rest), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_bulge_rest_distances(sk, 0, v, rest), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_bulge_rest_distances(NULL, NV, v, rest), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_bulge_rest_distances(sk, NV, v, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skeleton_destroy(sk);
    free(v);
    free(rest);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x6d657368ull);
    test_prune_6_to_4();
    test_ties_sort_duplicates();
    test_random_lists(&r);
    test_pack_errors();
    test_distance_to_segment();
    test_auto_weights(&r);
    test_bulge_rest(&r);
    return tu_finish("test_mesh");
}
