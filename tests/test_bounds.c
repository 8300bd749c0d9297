/* Conservative character bounds (bounds.h): on random forests of 1..200
 * joints, random meshes with 4 and 8 influences, random poses (rotations up to
 * 1.2 pi, non-uniform scale 0.5..2 except for plain DQS), random roots, every
 * method with and without bulge correction, EVERY vertex skinned by the float64
 * reference lies inside the box computed from the packed float32 palette (no
 * tolerance: the box itself carries its 1e-5 padding). Not vacuous: for rigidly
 * skinned vertices (one influence each) the box is within 2x the vertices' own box
 * and loses vertices when shrunk by 40%; the looseness on random meshes is printed.
 * The CoR methods (sinew_joint_bounds_add_centers) the same way, with random
 * centers up to 0.6 from their vertices in each axis (the bound holds for any
 * centers), COR_SCALE with non-uniform scale; a bent and twisted tube with centers
 * from sinew_cor_compute (tightness printed, next to DQS's box); rigid vertices with
 * their centers on them give a box as tight as LBS's.
 * Errors: NULL, both/no vertex arrays, bad joint, capacity, non-finite palette,
 * CoR without centers (NOT_FOUND), add_centers' errors (nothing written). */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/bounds.h>

#include <string.h>

static const uint32_t joint_counts[] = { 1, 2, 7, 33, 64, 200 };
#define NJC (sizeof joint_counts / sizeof joint_counts[0])

/* A random 8-influence mesh (1..10 raw influences per vertex) around the bind pose. */
static void make_mesh8(tu_rng *r, const sinew_skeleton *skel, uint32_t n, sinew_vertex8 *out, float *bulge)
{
    uint32_t jc = sinew_skeleton_joint_count(skel);
    float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n);
    uint32_t *jo = malloc(sizeof(uint32_t) * 10 * n);
    float *we = malloc(sizeof(float) * 10 * n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t home = tu_range(r, jc);
        const sinew_mat4 *b = sinew_skeleton_bind_global(skel, home);
        sinew_vec3 d = tu_random_unit(r), nn = tu_random_unit(r);
        double len = tu_uniform(r, 0, 0.6);
        pos[3 * i] = (float)(b->m[3][0] + d.x * len);
        pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
        pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
        nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        uint32_t cnt = 1 + tu_range(r, 10);
        for (uint32_t k = 0; k < 10; k++) {
            jo[10 * i + k] = k == 0 ? home : tu_range(r, jc);
            we[10 * i + k] = k < cnt ? (float)tu_uniform(r, 0.01, 1.0) : 0.0f;
        }
    }
    sinew_influences inf = { NULL, 10, jo, we };
    TU_CHECK_OK(sinew_pack_vertices8(n, pos, nrm, &inf, jc, out, NULL, NULL));
    TU_CHECK_OK(sinew_bulge_rest_distances8(skel, n, out, bulge));
    free(pos); free(nrm); free(jo); free(we);
}

/* A tube of two joints (smooth weights over its middle) with centers from
 * sinew_cor_compute, bent and twisted: no reference vertex outside the CoR boxes;
 * their size next to the vertices' own and DQS's box. */
static void test_tube(tu_rng *rng)
{
    enum { R = 24, S = 48, N = R * S };
    static float pos[3 * N], we[2 * N], cen[3 * N];
    static uint32_t jo[2 * N], tri[6 * R * (S - 1)];
    static sinew_vertex v[N];
    static double rp[3 * N];
    uint32_t nt = tu_cor_tube(R, S, pos, NULL, jo, we, tri);
    int32_t parents[2] = { -1, 0 };
    sinew_transform rest[2] = { { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } }, { { 2, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } } };
    sinew_skeleton_desc skd = { 0 };
    skd.joint_count = 2; skd.parents = parents; skd.rest_local = rest;
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&skd, &skel));
    if (!skel) return;
    sinew_influences inf = { NULL, 2, jo, we };
    TU_CHECK_OK(sinew_pack_vertices(N, pos, NULL, &inf, 2, v, NULL, NULL));
    sinew_cor_desc cd = { 0 };
    cd.vertex_count = N; cd.vertices = v; cd.joint_count = 2; cd.triangle_count = nt; cd.triangles = tri;
    TU_CHECK_OK(sinew_cor_compute(&cd, cen, NULL));
    sinew_joint_bounds jb[2];
    uint16_t nb[4];
    uint32_t used = 0;
    TU_CHECK_OK(sinew_joint_bounds_build(v, NULL, N, 2, jb, nb, 4, &used));
    TU_CHECK_OK(sinew_joint_bounds_add_centers(v, NULL, N, 2, cen, jb));
    sinew_mat4 scratch[6];
    sinew_palette_joint pal[2];
    float packed[2 * 7 * 4];
    double worst[SINEW_METHOD_COUNT] = { 0 };
    uint32_t out = 0;
    const sinew_method ms[3] = { SINEW_METHOD_DQS, SINEW_METHOD_COR, SINEW_METHOD_COR_SCALE };
    for (int trial = 0; trial < 24; trial++) {
        sinew_transform pose[2] = { rest[0], rest[1] };
        double ang = tu_uniform(rng, 0, 2.6);
        sinew_vec3 ax = tu_random_unit(rng);
        pose[1].rotation = sinew_quat_from_axis_angle(ax, ang);
        for (int mi = 0; mi < 3; mi++) {
            sinew_method m = ms[mi];
            if (m == SINEW_METHOD_COR_SCALE) pose[1].scale = sinew_v3(tu_uniform(rng, 0.5, 2), tu_uniform(rng, 0.5, 2), 1.3);
            TU_CHECK_OK(sinew_palette_build(skel, m, pose, NULL, scratch, pal));
            TU_CHECK_OK(sinew_palette_pack(m, 0, pal, 2, packed));
            float lo[3], hi[3];
            TU_CHECK_OK(sinew_character_bounds(jb, nb, 2, m, 0, packed, lo, hi));
            TU_CHECK_OK(sinew_reference_skin_cor(N, v, NULL, cen, NULL, pal, 2, m, 0, rp, NULL));
            double vlo[3] = { INFINITY, INFINITY, INFINITY }, vhi[3] = { -INFINITY, -INFINITY, -INFINITY }, dv = 0, db = 0;
            for (uint32_t i = 0; i < N; i++)
                for (int c = 0; c < 3; c++) {
                    double x = rp[3 * i + c];
                    vlo[c] = x < vlo[c] ? x : vlo[c];
                    vhi[c] = x > vhi[c] ? x : vhi[c];
                    out += !(x >= lo[c] && x <= hi[c]);
                }
            for (int c = 0; c < 3; c++) {
                dv += (vhi[c] - vlo[c]) * (vhi[c] - vlo[c]);
                db += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
            }
            double ratio = sqrt(db / dv);
            worst[m] = ratio > worst[m] ? ratio : worst[m];
        }
    }
    fprintf(stderr, "tube (centers from sinew_cor_compute), 24 poses to 149 deg: %u coordinates outside; largest box "
                    "diagonal / vertex box diagonal: dqs %.2f, cor %.2f, cor-scale %.2f\n", out,
            worst[SINEW_METHOD_DQS], worst[SINEW_METHOD_COR], worst[SINEW_METHOD_COR_SCALE]);
    TU_CHECK(out == 0);
    TU_CHECK(worst[SINEW_METHOD_COR] < 4.0 && worst[SINEW_METHOD_COR] <= worst[SINEW_METHOD_DQS]);
    sinew_skeleton_destroy(skel);
}

/* One random case of the loops below: bulge variant b (0 none, 1 bulge, 2 with its inner
 * push), a random pose of up to 1.2 pi (with scale for the methods that take it), a random
 * root transform up to 50 away; the float64 palette and its packed form. Returns the flags. */
static uint32_t case_palette(tu_rng *rng, const sinew_skeleton *skel, const sinew_transform *rest, uint32_t jc,
                             sinew_method method, int b, sinew_mat4 *scratch, sinew_palette_joint *pal, float *packed)
{
    uint32_t flags = b ? SINEW_SKIN_BULGE_CORRECTION | (b == 2 ? SINEW_SKIN_BULGE_INNER : 0u) : 0u;
    sinew_transform local[256];
    memcpy(local, rest, sizeof(sinew_transform) * jc);
    tu_random_pose(rng, jc, local, 1.2 * M_PI, method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR ? 0.0 : 0.3);
    sinew_transform rt = { tu_random_vec3(rng, -50, 50), tu_random_quat(rng), { 1, 1, 1 } };
    sinew_mat4 root = sinew_mat4_from_transform(&rt);
    TU_CHECK_OK(sinew_palette_build(skel, method, local, &root, scratch, pal));
    TU_CHECK_OK(sinew_palette_pack(method, flags, pal, jc, packed));
    return flags;
}

/* sinew_joint_bounds_merge: a mesh split in two (the crowd's several meshes on one palette),
 * each half with its own joint bounds and centers, merged; the merged box holds every vertex
 * of both halves skinned by the float64 reference, for every method with and without bulge. */
static void test_merge(tu_rng *rng)
{
    const uint32_t n = 600, h = 250;
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * n);
    float *bulge = malloc(sizeof(float) * n), *centers = malloc(sizeof(float) * 3 * n);
    double *pos = malloc(sizeof(double) * 3 * n), *nrm = malloc(sizeof(double) * 3 * n);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(64));
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * 64);
    float *packed = malloc(sizeof(float) * 4 * TU_PAL_MAX_STRIDE * 64);
    sinew_joint_bounds *jb[2], *mj = malloc(sizeof(sinew_joint_bounds) * 64);
    uint16_t *nb[2], *mn = malloc(sizeof(uint16_t) * 64 * 64);
    for (int k = 0; k < 2; k++) {
        jb[k] = malloc(sizeof(sinew_joint_bounds) * 64);
        nb[k] = malloc(sizeof(uint16_t) * 64 * 64);
    }
    uint32_t cases = 0, out = 0;
    const uint32_t jcs[2] = { 9, 40 };
    for (int s = 0; s < 2; s++) {
        uint32_t jc = jcs[s], used = 0;
        sinew_transform rest[64];
        sinew_skeleton *skel = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(rng, jc, rest, &skel));
        TU_CHECK_OK(tu_make_random_mesh(rng, skel, n, 0.6, v, bulge));
        for (uint32_t i = 0; i < 3 * n; i++) centers[i] = v[i / 3].position[i % 3] + (float)tu_uniform(rng, -0.6, 0.6);
        TU_CHECK_OK(sinew_joint_bounds_build(v, NULL, h, jc, jb[0], nb[0], 64 * 64, &used));
        TU_CHECK_OK(sinew_joint_bounds_build(v + h, NULL, n - h, jc, jb[1], nb[1], 64 * 64, &used));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v, NULL, h, jc, centers, jb[0]));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v + h, NULL, n - h, jc, centers + 3 * h, jb[1]));
        const sinew_joint_bounds *jl[2] = { jb[0], jb[1] };
        const uint16_t *nl[2] = { nb[0], nb[1] };
        TU_CHECK_OK(sinew_joint_bounds_merge(jl, nl, 2, jc, mj, mn, 64 * 64, &used));
        for (uint32_t a = 0; a < jc; a++) { /* each mesh's sphere inside the merged one, lists united */
            for (int k = 0; k < 2; k++) {
                if (!(jb[k][a].radius >= 0.0f)) continue;
                double d = 0;
                for (int e = 0; e < 3; e++) d += pow((double)jb[k][a].center[e] - mj[a].center[e], 2);
                TU_CHECK(sqrt(d) + jb[k][a].radius <= mj[a].radius);
                for (uint32_t e = 0; e < jb[k][a].neighbor_count; e++) {
                    int found = 0;
                    for (uint32_t f = 0; f < mj[a].neighbor_count; f++) found |= mn[mj[a].first_neighbor + f] == nb[k][jb[k][a].first_neighbor + e];
                    TU_CHECK(found);
                }
                if (jb[k][a].neighbor_count) TU_CHECK(mj[a].min_major_weight <= jb[k][a].min_major_weight);
            }
            TU_CHECK(mj[a].has_centers == (mj[a].radius >= 0.0f));
        }
        for (int trial = 0; trial < 3; trial++)
            for (int m = 0; m < SINEW_METHOD_COUNT; m++)
                for (int b = 0; b < 3; b++) {
                    sinew_method method = (sinew_method)m;
                    uint32_t flags = case_palette(rng, skel, rest, jc, method, b, scratch, pal, packed);
                    float lo[3], hi[3];
                    TU_CHECK_OK(sinew_character_bounds(mj, mn, jc, method, flags, packed, lo, hi));
                    TU_CHECK_OK(sinew_reference_skin_cor(n, v, NULL, centers, bulge, pal, jc, method, flags, pos, nrm));
                    uint32_t o = 0;
                    for (uint32_t i = 0; i < 3 * n; i++) o += !(pos[i] >= lo[i % 3] && pos[i] <= hi[i % 3]);
                    cases++;
                    out += o != 0;
                    if (o) TU_CHECK_MSG(0, "merged bounds, %u joints, %s flags %u: %u coordinates outside", jc, sinew_method_name(method), flags, o);
                }
        /* errors */
        TU_CHECK_RESULT(sinew_joint_bounds_merge(NULL, nl, 2, jc, mj, mn, 64 * 64, &used), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_joint_bounds_merge(jl, nl, 0, jc, mj, mn, 64 * 64, &used), SINEW_ERROR_EMPTY);
        TU_CHECK_RESULT(sinew_joint_bounds_merge(jl, nl, SINEW_JOINT_BOUNDS_MERGE_MAX + 1, jc, mj, mn, 64 * 64, &used),
                        SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK_RESULT(sinew_joint_bounds_merge(jl, nl, 2, jc, mj, mn, 1, &used), SINEW_ERROR_CAPACITY);
        uint32_t a0 = 0;
        while (jb[1][a0].neighbor_count == 0) a0++;
        uint16_t keep = nb[1][jb[1][a0].first_neighbor];
        nb[1][jb[1][a0].first_neighbor] = (uint16_t)jc;
        TU_CHECK_RESULT(sinew_joint_bounds_merge(jl, nl, 2, jc, mj, mn, 64 * 64, &used), SINEW_ERROR_JOINT_INDEX);
        nb[1][jb[1][a0].first_neighbor] = keep;
        sinew_skeleton_destroy(skel);
    }
    fprintf(stderr, "merged bounds: %u cases, %u with a vertex outside\n", cases, out);
    TU_CHECK(out == 0 && cases == 2u * 3u * SINEW_METHOD_COUNT * 3u);
    free(v); free(bulge); free(centers); free(pos); free(nrm); free(scratch); free(pal); free(packed); free(mj); free(mn);
    for (int k = 0; k < 2; k++) { free(jb[k]); free(nb[k]); }
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xb0b0b0b5ull);
    const uint32_t n = 700;
    sinew_vertex *v4 = malloc(sizeof(sinew_vertex) * n);
    sinew_vertex8 *v8 = malloc(sizeof(sinew_vertex8) * n);
    float *bulge = malloc(sizeof(float) * n);
    double *pos = malloc(sizeof(double) * 3 * n), *nrm = malloc(sizeof(double) * 3 * n);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(256));
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * 256);
    float *packed = malloc(sizeof(float) * 4 * TU_PAL_MAX_STRIDE * 256);
    sinew_joint_bounds *jb = malloc(sizeof(sinew_joint_bounds) * 256);
    uint32_t ncap = 256 * 256;
    uint16_t *nb = malloc(sizeof(uint16_t) * ncap);
    float *centers = malloc(sizeof(float) * 3 * n);
    uint32_t cases = 0, outside = 0, shrunk_fail = 0, cor_cases = 0;
    double worst_ratio = 0, worst_cor_ratio = 0, worst_lbs_ratio = 0;

    for (uint32_t s = 0; s < NJC; s++) {
        uint32_t jc = joint_counts[s];
        sinew_transform rest[256];
        sinew_skeleton *skel = NULL;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jc, rest, &skel));
        if (!skel) continue;
        for (int eight = 0; eight < 2; eight++) {
            if (eight)
                make_mesh8(&rng, skel, n, v8, bulge);
            else
                TU_CHECK_OK(tu_make_random_mesh(&rng, skel, n, 0.6, v4, bulge));
            uint32_t used = 0;
            TU_CHECK_OK(sinew_joint_bounds_build(eight ? NULL : v4, eight ? v8 : NULL, n, jc, jb, nb, ncap, &used));
            for (uint32_t i = 0; i < n; i++) /* random centers near the vertices (any centers are bounded) */
                for (int c = 0; c < 3; c++)
                    centers[3 * i + c] = (eight ? v8[i].position[c] : v4[i].position[c]) + (float)tu_uniform(&rng, -0.6, 0.6);
            /* CoR without centers: NOT_FOUND; then added */
            {
                float lo[3], hi[3];
                TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_COR, rest, NULL, scratch, pal));
                TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_COR, 0, pal, jc, packed));
                TU_CHECK_RESULT(sinew_character_bounds(jb, nb, jc, SINEW_METHOD_COR, 0, packed, lo, hi), SINEW_ERROR_NOT_FOUND);
            }
            TU_CHECK_OK(sinew_joint_bounds_add_centers(eight ? NULL : v4, eight ? v8 : NULL, n, jc, centers, jb));
            for (int trial = 0; trial < 4; trial++)
                for (int m = 0; m < SINEW_METHOD_COUNT; m++)
                    for (int b = 0; b < 3; b++) {
                        sinew_method method = (sinew_method)m;
                        uint32_t flags = case_palette(&rng, skel, rest, jc, method, b, scratch, pal, packed);
                        float lo[3], hi[3];
                        TU_CHECK_OK(sinew_character_bounds(jb, nb, jc, method, flags, packed, lo, hi));
                        TU_CHECK_OK(sinew_reference_skin_cor(n, eight ? NULL : v4, eight ? v8 : NULL, centers, bulge, pal,
                                                             jc, method, flags, pos, nrm));
                        double vlo[3] = { INFINITY, INFINITY, INFINITY }, vhi[3] = { -INFINITY, -INFINITY, -INFINITY };
                        uint32_t out = 0, out_shrunk = 0;
                        for (uint32_t i = 0; i < n; i++)
                            for (int c = 0; c < 3; c++) {
                                double x = pos[3 * i + c];
                                vlo[c] = x < vlo[c] ? x : vlo[c];
                                vhi[c] = x > vhi[c] ? x : vhi[c];
                                if (!(x >= lo[c] && x <= hi[c])) out++;
                                double mid = 0.5 * ((double)lo[c] + hi[c]), half = 0.5 * ((double)hi[c] - lo[c]) * 0.95;
                                if (!(x >= mid - half && x <= mid + half)) out_shrunk++;
                            }
                        cases++;
                        outside += out != 0;
                        shrunk_fail += out_shrunk != 0;
                        if (out)
                            TU_CHECK_MSG(0, "%u joints, %d influences, %s%s: %u coordinates outside the bounds", jc,
                                         eight ? 8 : 4, sinew_method_name(method), b == 2 ? "+inner" : b ? "+bulge" : "", out);
                        double dv = 0, db = 0;
                        for (int c = 0; c < 3; c++) {
                            dv += (vhi[c] - vlo[c]) * (vhi[c] - vlo[c]);
                            db += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
                        }
                        double ratio = sqrt(db) / (sqrt(dv) > 1e-9 ? sqrt(dv) : 1e-9);
                        worst_ratio = ratio > worst_ratio ? ratio : worst_ratio;
                        if (method == SINEW_METHOD_LBS && !b)
                            worst_lbs_ratio = ratio > worst_lbs_ratio ? ratio : worst_lbs_ratio;
                        if (sinew_method_uses_centers(method)) {
                            cor_cases++;
                            worst_cor_ratio = ratio > worst_cor_ratio ? ratio : worst_cor_ratio;
                        }
                    }
        }
        sinew_skeleton_destroy(skel);
    }
    fprintf(stderr, "%u cases (%u CoR): %u with a vertex outside; box shrunk 5%% loses vertices in %u; "
                    "largest box diagonal / vertex box diagonal %.2f (CoR %.2f, LBS %.2f)\n", cases, cor_cases, outside,
            shrunk_fail, worst_ratio, worst_cor_ratio, worst_lbs_ratio);
    TU_CHECK(outside == 0);
    TU_CHECK(cor_cases * SINEW_METHOD_COUNT == cases * 4); /* cor, cor-scale, cor-scale-local, cor-scale-mixed */
    test_merge(&rng);

    test_tube(&rng);

    /* Not vacuous: rigidly skinned vertices (one influence each) under rigid poses
     * and a far root: N(a) = {a}, e_a = r_a, so the box is the union of the joints'
     * transformed spheres: within 2x the vertices' own box, and shrunk by 40% about its
     * centre it loses vertices. */
    {
        sinew_skeleton *sk1 = NULL;
        sinew_transform rest1[64];
        TU_CHECK_OK(tu_make_random_skeleton(&rng, 12, rest1, &sk1));
        float *p1 = malloc(sizeof(float) * 3 * n);
        uint32_t *j1 = malloc(sizeof(uint32_t) * n);
        float *w1 = malloc(sizeof(float) * n);
        for (uint32_t i = 0; i < n; i++) {
            j1[i] = tu_range(&rng, 12);
            w1[i] = 1.0f;
            const sinew_mat4 *b = sinew_skeleton_bind_global(sk1, j1[i]);
            sinew_vec3 d = tu_random_vec3(&rng, -0.3, 0.3);
            p1[3 * i] = (float)(b->m[3][0] + d.x);
            p1[3 * i + 1] = (float)(b->m[3][1] + d.y);
            p1[3 * i + 2] = (float)(b->m[3][2] + d.z);
        }
        sinew_influences inf = { NULL, 1, j1, w1 };
        TU_CHECK_OK(sinew_pack_vertices(n, p1, NULL, &inf, 12, v4, NULL, NULL));
        uint32_t used1 = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, n, 12, jb, nb, ncap, &used1));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v4, NULL, n, 12, p1, jb)); /* centers on the vertices */
        for (int mi = 0; mi < 3; mi++) {
            int m = mi < 2 ? mi : (int)SINEW_METHOD_COR;
            sinew_transform local[64];
            memcpy(local, rest1, sizeof(sinew_transform) * 12);
            tu_random_pose(&rng, 12, local, M_PI, 0.0);
            sinew_transform rt = { tu_random_vec3(&rng, 100, 200), tu_random_quat(&rng), { 1, 1, 1 } };
            sinew_mat4 root = sinew_mat4_from_transform(&rt);
            TU_CHECK_OK(sinew_palette_build(sk1, (sinew_method)m, local, &root, scratch, pal));
            TU_CHECK_OK(sinew_palette_pack((sinew_method)m, 0, pal, 12, packed));
            float lo[3], hi[3];
            TU_CHECK_OK(sinew_character_bounds(jb, nb, 12, (sinew_method)m, 0, packed, lo, hi));
            TU_CHECK_OK(sinew_reference_skin_cor(n, v4, NULL, p1, NULL, pal, 12, (sinew_method)m, 0, pos, nrm));
            double dv = 0, db = 0;
            uint32_t out = 0, out_shrunk = 0;
            for (int c = 0; c < 3; c++) {
                double vlo = INFINITY, vhi = -INFINITY;
                double mid = 0.5 * ((double)lo[c] + hi[c]), half = 0.5 * ((double)hi[c] - lo[c]) * 0.6;
                for (uint32_t i = 0; i < n; i++) {
                    double x = pos[3 * i + c];
                    vlo = x < vlo ? x : vlo;
                    vhi = x > vhi ? x : vhi;
                    out += !(x >= lo[c] && x <= hi[c]);
                    out_shrunk += !(x >= mid - half && x <= mid + half);
                }
                dv += (vhi - vlo) * (vhi - vlo);
                db += ((double)hi[c] - lo[c]) * ((double)hi[c] - lo[c]);
            }
            fprintf(stderr, "rigid %s: box diagonal / vertex box diagonal %.3f\n", sinew_method_name((sinew_method)m),
                    sqrt(db / dv));
            TU_CHECK(out == 0 && out_shrunk > 0);
            TU_CHECK(sqrt(db / dv) < 2.0);
        }
        free(p1); free(j1); free(w1);
        sinew_skeleton_destroy(sk1);
    }

    /* N(a) and w_a from the vertices a is the major joint of (bounds.h): joint 0 is the
     * major joint of v0 and v1, joint 1 of v2, joint 2 of none (it still has its sphere). */
    {
        sinew_vertex t[3];
        memset(t, 0, sizeof t);
        const uint16_t tj[3][4] = { { 0, 0, 0, 0 }, { 0, 1, 0, 0 }, { 1, 2, 1, 1 } };
        const uint16_t tw[3][4] = { { 65535, 0, 0, 0 }, { 39321, 26214, 0, 0 }, { 45875, 19660, 0, 0 } };
        for (int i = 0; i < 3; i++) {
            t[i].position[0] = (float)i;
            memcpy(t[i].joints, tj[i], sizeof tj[i]);
            memcpy(t[i].weights, tw[i], sizeof tw[i]);
        }
        uint32_t tu = 0;
        TU_CHECK_OK(sinew_joint_bounds_build(t, NULL, 3, 3, jb, nb, ncap, &tu));
        TU_CHECK(tu == 4 && jb[0].neighbor_count == 2 && nb[jb[0].first_neighbor] == 0 && nb[jb[0].first_neighbor + 1] == 1);
        TU_CHECK(jb[1].neighbor_count == 2 && nb[jb[1].first_neighbor] == 1 && nb[jb[1].first_neighbor + 1] == 2);
        TU_CHECK(jb[2].neighbor_count == 0 && jb[2].radius >= 0.0f && jb[2].min_major_weight == 0.0f);
        TU_CHECK(fabs(jb[0].min_major_weight - 0.6) < 1e-5 && fabs(jb[1].min_major_weight - 0.7) < 1e-5);
        TU_CHECK(fabs(jb[1].radius - 0.5) < 1e-5); /* the sphere of every vertex joint 1 influences: v1, v2 */
    }

    /* Errors. */
    uint32_t used = 0;
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, 5, NULL, &skel));
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, 50, 0.5, v4, NULL));
    TU_CHECK_RESULT(sinew_joint_bounds_build(NULL, NULL, 50, 5, jb, nb, ncap, &used), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_build(v4, v8, 50, 5, jb, nb, ncap, &used), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_joint_bounds_build(v4, NULL, 0, 5, jb, nb, ncap, &used), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_joint_bounds_build(v4, NULL, 50, 5, jb, nb, 1, &used), SINEW_ERROR_CAPACITY);
    TU_CHECK(used > 1);
    sinew_vertex bad = v4[0];
    bad.joints[0] = 5;
    TU_CHECK_RESULT(sinew_joint_bounds_build(&bad, NULL, 1, 5, jb, nb, ncap, &used), SINEW_ERROR_JOINT_INDEX);
    bad = v4[0];
    bad.weights[0]--;
    TU_CHECK_RESULT(sinew_joint_bounds_build(&bad, NULL, 1, 5, jb, nb, ncap, &used), SINEW_ERROR_INVALID_WEIGHT);
    TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, 50, 5, jb, nb, ncap, &used));
    TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_LBS, sinew_skeleton_rest_pose(skel), NULL, scratch, pal));
    TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_LBS, 0, pal, 5, packed));
    float lo[3], hi[3];
    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_COUNT, 0, packed, lo, hi), SINEW_ERROR_INVALID_ARGUMENT);
    /* CoR methods on joint bounds without centers */
    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_COR, 0, packed, lo, hi), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_COR_SCALE, 0, packed, lo, hi), SINEW_ERROR_NOT_FOUND);
    /* add_centers: errors, nothing written */
    {
        for (uint32_t i = 0; i < 50; i++)
            for (int c = 0; c < 3; c++) centers[3 * i + c] = v4[i].position[c];
        sinew_joint_bounds keep[5];
        memcpy(keep, jb, sizeof keep);
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(NULL, NULL, 50, 5, centers, jb), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, v8, 50, 5, centers, jb), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 50, 5, NULL, jb), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 50, 5, centers, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 0, 5, centers, jb), SINEW_ERROR_EMPTY);
        /* joints of other vertices (the first vertex's influences only) */
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 1, 5, centers, jb), SINEW_ERROR_INVALID_ARGUMENT);
        centers[40] = NAN;
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 50, 5, centers, jb), SINEW_ERROR_NON_FINITE);
        centers[40] = INFINITY;
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(v4, NULL, 50, 5, centers, jb), SINEW_ERROR_NON_FINITE);
        centers[40] = v4[13].position[1];
        sinew_vertex bad2 = v4[0];
        bad2.joints[0] = 5;
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(&bad2, NULL, 1, 5, centers, jb), SINEW_ERROR_JOINT_INDEX);
        bad2 = v4[0];
        bad2.weights[0]--;
        TU_CHECK_RESULT(sinew_joint_bounds_add_centers(&bad2, NULL, 1, 5, centers, jb), SINEW_ERROR_INVALID_WEIGHT);
        TU_CHECK(!memcmp(keep, jb, sizeof keep));
        TU_CHECK_OK(sinew_joint_bounds_add_centers(v4, NULL, 50, 5, centers, jb));
        TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_COR, sinew_skeleton_rest_pose(skel), NULL, scratch, pal));
        TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_COR, 0, pal, 5, packed));
        TU_CHECK_OK(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_COR, 0, packed, lo, hi));
        TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_LBS, sinew_skeleton_rest_pose(skel), NULL, scratch, pal));
        TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_LBS, 0, pal, 5, packed));
    }
    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_LBS, 0, NULL, lo, hi), SINEW_ERROR_INVALID_ARGUMENT);
    packed[3] = NAN;
    TU_CHECK_RESULT(sinew_character_bounds(jb, nb, 5, SINEW_METHOD_LBS, 0, packed, lo, hi), SINEW_ERROR_NON_FINITE);
    sinew_skeleton_destroy(skel);
    /* LBS with more than 8 joints (the eight-lane path where the CPU has it, which checks
     * finiteness on sums of the values it loads): a NaN or infinity anywhere in the
     * palette, in a full group of eight or the tail, also in a joint without vertices,
     * gives NON_FINITE; large finite values whose sum overflows do not */
    {
        const uint32_t jn = 19, nv = 200;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jn, NULL, &skel));
        TU_CHECK_OK(tu_make_random_mesh(&rng, skel, nv, 0.5, v4, NULL));
        for (uint32_t i = 0; i < nv; i++) /* joint 6 influences no vertex */
            for (int k = 0; k < 4; k++)
                if (v4[i].joints[k] == 6) v4[i].joints[k] = 7;
        TU_CHECK_OK(sinew_joint_bounds_build(v4, NULL, nv, jn, jb, nb, ncap, &used));
        TU_CHECK(jb[6].radius < 0.0f);
        TU_CHECK_OK(sinew_palette_build(skel, SINEW_METHOD_LBS, sinew_skeleton_rest_pose(skel), NULL, scratch, pal));
        TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_LBS, 0, pal, jn, packed));
        TU_CHECK_OK(sinew_character_bounds(jb, nb, jn, SINEW_METHOD_LBS, 0, packed, lo, hi));
        const uint32_t at[] = { 0, 6 * 12 + 5, 9 * 12 + 3, 15 * 12 + 11, 18 * 12 + 7 };
        const float badv[] = { NAN, INFINITY, -INFINITY };
        for (uint32_t i = 0; i < sizeof at / sizeof at[0]; i++)
            for (uint32_t b = 0; b < 3; b++) {
                float keep = packed[at[i]];
                packed[at[i]] = badv[b];
                TU_CHECK_RESULT(sinew_character_bounds(jb, nb, jn, SINEW_METHOD_LBS, 0, packed, lo, hi),
                                SINEW_ERROR_NON_FINITE);
                packed[at[i]] = keep;
            }
        for (uint32_t k = 0; k < 16; k++) packed[k * 12 + 3] = 3.0e38f; /* translations: their sum overflows */
        TU_CHECK(sinew_character_bounds(jb, nb, jn, SINEW_METHOD_LBS, 0, packed, lo, hi) != SINEW_ERROR_NON_FINITE);
        sinew_skeleton_destroy(skel);
    }

    free(centers);
    free(v4); free(v8); free(bulge); free(pos); free(nrm); free(scratch); free(pal); free(packed); free(jb); free(nb);
    return tu_finish("test_bounds");
}
