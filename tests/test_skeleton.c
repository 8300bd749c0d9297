/* Tests of Sinew skeletons: validation errors, bind-pose derivation, rest-pose
 * decomposition, names, bone segments and forward kinematics. */
#include "testutil.h"
#include <string.h>

static double mat4_maxdiff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) e = fmax(e, fabs(a->m[c][r] - b->m[c][r]));
    return e;
}
static double mat4_maxabs(const sinew_mat4 *a)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) e = fmax(e, fabs(a->m[c][r]));
    return e;
}

/* Random forest: joint 0 is a root, later joints are roots with probability
 * 0.1, else children of a random earlier joint (or of j-1, for deep chains). */
static void random_parents(tu_rng *r, uint32_t n, int32_t *parents)
{
    int chainy = tu_range(r, 2);
    for (uint32_t j = 0; j < n; j++) {
        if (j == 0 || tu_uniform(r, 0, 1) < 0.1) parents[j] = -1;
        else parents[j] = chainy && tu_range(r, 4) ? (int32_t)j - 1 : (int32_t)tu_range(r, j);
    }
}

/* Random TRS; scales non-uniform in [0.9, 1.1] with a random sign when mirror. */
static sinew_transform random_trs(tu_rng *r, int mirror)
{
    sinew_transform t;
    t.translation = tu_random_vec3(r, -1, 1);
    t.rotation = tu_random_quat(r);
    t.scale = tu_random_vec3(r, 0.9, 1.1);
    if (mirror) {
        if (tu_range(r, 2)) t.scale.x = -t.scale.x;
        if (tu_range(r, 2)) t.scale.y = -t.scale.y;
        if (tu_range(r, 2)) t.scale.z = -t.scale.z;
    }
    return t;
}

/* M_j by a direct, right-to-left product of the chain: L_r (L_.. (L_p L_j)). */
static sinew_mat4 direct_global(const int32_t *parents, const sinew_transform *local, uint32_t j, const sinew_mat4 *root)
{
    sinew_mat4 m = sinew_mat4_from_transform(&local[j]);
    int32_t k = parents[j];
    while (k >= 0) {
        sinew_mat4 l = sinew_mat4_from_transform(&local[k]);
        m = sinew_mat4_mul(&l, &m);
        k = parents[k];
    }
    if (root) m = sinew_mat4_mul(root, &m);
    return m;
}

/* FK on random forests of 1..256 joints with random (unit-quaternion) poses and
 * a random root: matches the direct products to 1e-12 relative to max(1, |M|);
 * also bind sources: rest_local, bind_global and inverse_bind describe the same
 * skeleton (bind_global/inverse/bind_local agree to 1e-12 relative), and the
 * decomposed rest pose reproduces bind_local (1e-12 relative, mirrors included). */
static void test_fk_and_bind(tu_rng *rng)
{
    enum { MAXN = 256 };
    static int32_t parents[MAXN];
    static sinew_transform rest[MAXN], pose[MAXN];
    static sinew_mat4 glob[MAXN], binds[MAXN], invb[MAXN];
    double efk = 0, ebind = 0, erest = 0, einv = 0;
    for (int it = 0; it < 200; it++) {
        uint32_t n = 1 + tu_range(rng, MAXN);
        if (it == 0) n = 1;
        if (it == 1) n = MAXN;
        random_parents(rng, n, parents);
        int mirror = it % 3 == 0;
        for (uint32_t j = 0; j < n; j++) { rest[j] = random_trs(rng, mirror); pose[j] = random_trs(rng, mirror); }
        sinew_skeleton_desc d = { 0 };
        d.joint_count = n;
        d.parents = parents;
        d.rest_local = rest;
        sinew_skeleton *s = NULL;
        TU_CHECK_OK(sinew_skeleton_create(&d, &s));
        if (!s) continue;
        TU_CHECK(sinew_skeleton_joint_count(s) == n);
        sinew_transform rt = random_trs(rng, 0);
        sinew_mat4 root = sinew_mat4_from_transform(&rt);
        TU_CHECK_OK(sinew_skeleton_fk(s, pose, (it & 1) ? &root : NULL, glob));
        for (uint32_t j = 0; j < n; j++) {
            sinew_mat4 m = direct_global(parents, pose, j, (it & 1) ? &root : NULL);
            efk = fmax(efk, mat4_maxdiff(&m, &glob[j]) / fmax(1, mat4_maxabs(&m)));
            sinew_mat4 b = direct_global(parents, rest, j, NULL);
            const sinew_mat4 *bg = sinew_skeleton_bind_global(s, j);
            ebind = fmax(ebind, mat4_maxdiff(&b, bg) / fmax(1, mat4_maxabs(&b)));
            sinew_mat4 id = sinew_mat4_identity(), p = sinew_mat4_mul(bg, sinew_skeleton_inverse_bind(s, j));
            einv = fmax(einv, mat4_maxdiff(&p, &id));
            binds[j] = *bg;
            invb[j] = *sinew_skeleton_inverse_bind(s, j);
            TU_CHECK(sinew_skeleton_parent(s, j) == parents[j]);
        }
        /* the same skeleton from bind_global and from inverse_bind */
        for (int src = 0; src < 2; src++) {
            sinew_skeleton_desc d2 = { 0 };
            d2.joint_count = n;
            d2.parents = parents;
            if (src == 0) d2.bind_global = binds; else d2.inverse_bind = invb;
            sinew_skeleton *s2 = NULL;
            TU_CHECK_OK(sinew_skeleton_create(&d2, &s2));
            if (!s2) continue;
            const sinew_transform *rp = sinew_skeleton_rest_pose(s2);
            for (uint32_t j = 0; j < n; j++) {
                const sinew_mat4 *l1 = sinew_skeleton_bind_local(s, j), *l2 = sinew_skeleton_bind_local(s2, j);
                ebind = fmax(ebind, mat4_maxdiff(l1, l2) / fmax(1, mat4_maxabs(l1)));
                /* bind_local consistency: M_j^0 = M_p^0 L_j */
                const sinew_mat4 *bg = sinew_skeleton_bind_global(s2, j);
                sinew_mat4 chk = parents[j] < 0 ? *l2 : sinew_mat4_mul(sinew_skeleton_bind_global(s2, (uint32_t)parents[j]), l2);
                ebind = fmax(ebind, mat4_maxdiff(&chk, bg) / fmax(1, mat4_maxabs(bg)));
                /* the decomposed rest pose reproduces L_j */
                sinew_mat4 lr = sinew_mat4_from_transform(&rp[j]);
                erest = fmax(erest, mat4_maxdiff(&lr, l2) / fmax(1, mat4_maxabs(l2)));
                /* rotation unit, scale magnitudes = the given ones */
                double qn = sqrt(rp[j].rotation.x * rp[j].rotation.x + rp[j].rotation.y * rp[j].rotation.y +
                                 rp[j].rotation.z * rp[j].rotation.z + rp[j].rotation.w * rp[j].rotation.w);
                erest = fmax(erest, fabs(qn - 1));
                erest = fmax(erest, fabs(fabs(rp[j].scale.y) - fabs(rest[j].scale.y)));
            }
            sinew_skeleton_destroy(s2);
        }
        sinew_skeleton_destroy(s);
    }
    fprintf(stderr, "fk %.3g, bind %.3g, bind*inverse %.3g, rest decomposition %.3g\n", efk, ebind, einv, erest);
    TU_CHECK_NEAR(efk, 0, 1e-12);
    TU_CHECK_NEAR(ebind, 0, 1e-12);
    TU_CHECK_NEAR(einv, 0, 1e-12);
    TU_CHECK_NEAR(erest, 0, 1e-12);
}

static sinew_result try_create(uint32_t n, const int32_t *parents, const sinew_mat4 *bind)
{
    sinew_skeleton_desc d = { 0 };
    d.joint_count = n;
    d.parents = parents;
    d.bind_global = bind;
    sinew_skeleton *s = (sinew_skeleton *)&d; /* must be reset to NULL on failure */
    sinew_result r = sinew_skeleton_create(&d, &s);
    if (r == SINEW_OK) sinew_skeleton_destroy(s);
    else if (s != NULL) { fprintf(stderr, "out not NULL after failure\n"); tu_failures++; }
    return r;
}

typedef struct count_alloc { int allocs, frees; } count_alloc;
static void *ca_alloc(void *u, size_t size, size_t align)
{
    ((count_alloc *)u)->allocs++;
    return aligned_alloc(align, (size + align - 1) / align * align);
}
static void ca_free(void *u, void *p) { ((count_alloc *)u)->frees++; free(p); }

/* Every validation error has a case in the test_errors cases below. */
static const int32_t ok_parents[4] = { -1, 0, 1, 1 };

/* Parents out of range, after their child, and cycles. */
static void test_parent_errors(const sinew_mat4 *b)
{
    /* parents out of range */
    const int32_t oor1[3] = { -1, 3, 0 }, oor2[3] = { -1, -2, 0 }, oor3[2] = { -1, 2147483647 };
    TU_CHECK_RESULT(try_create(3, oor1, b), SINEW_ERROR_PARENT_OUT_OF_RANGE);
    TU_CHECK_RESULT(try_create(3, oor2, b), SINEW_ERROR_PARENT_OUT_OF_RANGE);
    TU_CHECK_RESULT(try_create(2, oor3, b), SINEW_ERROR_PARENT_OUT_OF_RANGE);
    /* parent after child (no cycle) */
    const int32_t order[3] = { -1, 2, 0 }, order2[3] = { 1, -1, 1 };
    TU_CHECK_RESULT(try_create(3, order, b), SINEW_ERROR_PARENT_ORDER);
    TU_CHECK_RESULT(try_create(3, order2, b), SINEW_ERROR_PARENT_ORDER);
    /* cycles: 2-cycle, 3-cycle (with a tail hanging off it), self-parent */
    const int32_t c2[2] = { 1, 0 }, c3[5] = { -1, 3, 1, 2, 3 }, self[3] = { -1, 1, 0 }, self0[1] = { 0 };
    TU_CHECK_RESULT(try_create(2, c2, b), SINEW_ERROR_CYCLE);
    TU_CHECK_RESULT(try_create(5, c3, b), SINEW_ERROR_CYCLE);
    TU_CHECK_RESULT(try_create(3, self, b), SINEW_ERROR_CYCLE);
    TU_CHECK_RESULT(try_create(1, self0, b), SINEW_ERROR_CYCLE);
}

/* Bind matrices: singular, NaN / inf, not affine (a tiny deviation is snapped). */
static void test_bind_matrix_errors(const sinew_mat4 *b)
{
    const int32_t *ok = ok_parents;
    /* singular bind: a zero axis; also a scale so small that |det| < 1e-300 */
    sinew_mat4 sb[4] = { b[0], b[1], b[2], b[3] };
    sb[2].m[1][0] = sb[2].m[1][1] = sb[2].m[1][2] = 0;
    TU_CHECK_RESULT(try_create(4, ok, sb), SINEW_ERROR_SINGULAR);
    sb[2] = b[2];
    sb[2].m[0][0] = sb[2].m[1][1] = sb[2].m[2][2] = 1e-110;
    TU_CHECK_RESULT(try_create(4, ok, sb), SINEW_ERROR_SINGULAR);
    /* NaN / inf bind, not affine */
    sb[2] = b[2];
    sb[2].m[3][1] = NAN;
    TU_CHECK_RESULT(try_create(4, ok, sb), SINEW_ERROR_NON_FINITE);
    sb[2].m[3][1] = INFINITY;
    TU_CHECK_RESULT(try_create(4, ok, sb), SINEW_ERROR_NON_FINITE);
    sb[2] = b[2];
    sb[2].m[0][3] = 0.5;
    TU_CHECK_RESULT(try_create(4, ok, sb), SINEW_ERROR_INVALID_ARGUMENT);
    sb[2].m[0][3] = 1e-9; /* within 1e-6: accepted and snapped */
    TU_CHECK_OK(try_create(4, ok, sb));
}

/* Joint counts: none, one over the limit; a 65535-joint chain is fine, closing
 * it into a 65535-cycle is a CYCLE (O(n) check). */
static void test_joint_count_limits(const sinew_mat4 *b)
{
    TU_CHECK_RESULT(try_create(0, ok_parents, b), SINEW_ERROR_EMPTY);
    int32_t *big = malloc(sizeof(int32_t) * (SINEW_MAX_JOINTS + 1));
    sinew_transform *bigrest = calloc(SINEW_MAX_JOINTS + 1, sizeof(sinew_transform));
    for (uint32_t j = 0; j <= SINEW_MAX_JOINTS; j++) {
        big[j] = (int32_t)j - 1;
        bigrest[j].rotation.w = 1;
        bigrest[j].scale = sinew_v3(1, 1, 1);
        bigrest[j].translation = sinew_v3(1e-3, 0, 0);
    }
    sinew_skeleton_desc d = { 0 };
    sinew_skeleton *s = NULL;
    d.joint_count = SINEW_MAX_JOINTS + 1;
    d.parents = big;
    d.rest_local = bigrest;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_LIMIT_EXCEEDED);
    d.joint_count = SINEW_MAX_JOINTS;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    if (s) {
        sinew_vec3 h, t;
        sinew_skeleton_bone_segment(s, SINEW_MAX_JOINTS - 1, &h, &t);
        TU_CHECK_NEAR(h.x, 1e-3 * SINEW_MAX_JOINTS, 1e-9);
        sinew_skeleton_destroy(s);
        s = NULL;
    }
    big[0] = SINEW_MAX_JOINTS - 1;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_CYCLE);
    free(big);
    free(bigrest);
}

/* Bind sources (none, both; rest_local with a matrix source is fine), NaN
 * rest pose, zero rest scale, NaN or singular inverse bind, NaN bone tail. */
static void test_bind_sources_and_rest(const sinew_mat4 *b)
{
    sinew_skeleton_desc d = { 0 };
    sinew_skeleton *s = NULL;
    sinew_transform rest[4];
    for (int i = 0; i < 4; i++) { rest[i].translation = sinew_v3(i, 0, 0); rest[i].rotation = sinew_quat_identity(); rest[i].scale = sinew_v3(1, 1, 1); }
    d.joint_count = 4;
    d.parents = ok_parents;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_INVALID_ARGUMENT);
    d.bind_global = b;
    d.inverse_bind = b;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_INVALID_ARGUMENT);
    d.rest_local = rest;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_INVALID_ARGUMENT);
    d.inverse_bind = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    if (s) {
        /* the given rest pose is kept as is (not derived from the bind pose) */
        TU_CHECK(sinew_skeleton_rest_pose(s)[3].translation.x == 3);
        sinew_skeleton_destroy(s);
        s = NULL;
    }
    /* NaN rest pose; zero scale in a rest-only skeleton -> singular bind */
    rest[1].rotation.y = NAN;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_NON_FINITE);
    rest[1].rotation.y = 0;
    d.bind_global = NULL;
    rest[1].scale.z = 0;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_SINGULAR);
    rest[1].scale.z = 1;
    /* NaN inverse bind, NaN bone tail */
    sinew_mat4 ib[4] = { b[0], b[1], b[2], b[3] };
    ib[3].m[2][2] = NAN;
    d.rest_local = NULL;
    d.inverse_bind = ib;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_NON_FINITE);
    ib[3] = b[3];
    ib[3].m[2][2] = 0;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_SINGULAR);
    ib[3] = b[3];
    sinew_vec3 tails[4] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, NAN, 0 }, { 0, 0, 0 } };
    d.bone_tail = tails;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_NON_FINITE);
}

/* NULLs and a half-filled allocator; a failure after allocation frees
 * through the allocator too. */
static void test_null_args_and_allocator(const sinew_mat4 *b)
{
    sinew_skeleton_desc d = { 0 };
    sinew_skeleton *s = NULL;
    d.joint_count = 4;
    d.inverse_bind = b;
    TU_CHECK_RESULT(sinew_skeleton_create(NULL, &s), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_skeleton_create(&d, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    d.parents = NULL;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_INVALID_ARGUMENT);
    d.parents = ok_parents;
    count_alloc ca = { 0, 0 };
    sinew_allocator al = { ca_alloc, NULL, &ca };
    d.allocator = &al;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_INVALID_ARGUMENT);
    al.free = ca_free;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    sinew_skeleton_destroy(s);
    s = NULL;
    const int32_t c2[2] = { 1, 0 };
    d.parents = c2;
    d.joint_count = 2;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_CYCLE);
    TU_CHECK(ca.allocs >= 1 && ca.allocs == ca.frees);
    sinew_skeleton_destroy(NULL);
}

static void test_errors(void)
{
    sinew_mat4 b[5];
    for (int i = 0; i < 5; i++) { b[i] = sinew_mat4_identity(); b[i].m[3][0] = i; }
    TU_CHECK_OK(try_create(4, ok_parents, b));
    test_parent_errors(b);
    test_bind_matrix_errors(b);
    test_joint_count_limits(b);
    test_bind_sources_and_rest(b);
    test_null_args_and_allocator(b);
}

/* FK error paths: NaN/inf in translation, rotation, scale, root; NULLs; overflow. */
static void test_fk_errors(void)
{
    const int32_t par[3] = { -1, 0, 1 };
    sinew_transform rest[3], pose[3];
    for (int i = 0; i < 3; i++) { rest[i].translation = sinew_v3(i ? 1 : 0, 0, 0); rest[i].rotation = sinew_quat_identity(); rest[i].scale = sinew_v3(1, 1, 1); }
    sinew_skeleton_desc d = { 0 };
    d.joint_count = 3;
    d.parents = par;
    d.rest_local = rest;
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    if (!s) return;
    sinew_mat4 g[3];
    memcpy(pose, rest, sizeof pose);
    TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, g));
    TU_CHECK_NEAR(g[2].m[3][0], 2, 0);
    pose[1].translation.y = NAN;
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, NULL, g), SINEW_ERROR_NON_FINITE);
    memcpy(pose, rest, sizeof pose);
    pose[2].rotation.w = INFINITY;
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, NULL, g), SINEW_ERROR_NON_FINITE);
    memcpy(pose, rest, sizeof pose);
    pose[0].scale.x = NAN;
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, NULL, g), SINEW_ERROR_NON_FINITE);
    memcpy(pose, rest, sizeof pose);
    pose[0].scale = sinew_v3(1e200, 1e200, 1e200);
    pose[1].scale = sinew_v3(1e200, 1e200, 1e200);
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, NULL, g), SINEW_ERROR_NON_FINITE);
    memcpy(pose, rest, sizeof pose);
    sinew_mat4 root = sinew_mat4_identity();
    root.m[3][2] = NAN;
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, &root, g), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_skeleton_fk(NULL, pose, NULL, g), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_skeleton_fk(s, NULL, NULL, g), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_skeleton_fk(s, pose, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* a non-unit quaternion is normalized; a zero one is the identity */
    pose[1].rotation = (sinew_quat){ 0, 0, 2, 2 }; /* 90 degrees about z */
    pose[2].rotation = (sinew_quat){ 0, 0, 0, 0 };
    TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, g));
    TU_CHECK_NEAR(g[2].m[3][0], 1, 1e-15);
    TU_CHECK_NEAR(g[2].m[3][1], 1, 1e-15);
    TU_CHECK_NEAR(g[2].m[0][1], 1, 1e-15); /* x axis of joint 2 now points along +y */
    /* accessors out of range */
    TU_CHECK(sinew_skeleton_parent(s, 3) == -1);
    TU_CHECK(sinew_skeleton_bind_global(s, 3) == NULL);
    TU_CHECK(sinew_skeleton_inverse_bind(s, 99) == NULL);
    TU_CHECK(sinew_skeleton_bind_local(s, 3) == NULL);
    TU_CHECK(strcmp(sinew_skeleton_name(s, 3), "") == 0);
    sinew_skeleton_destroy(s);
}

/* Names (copied, NULL entries are ""), find, propagation flags, bone segments. */
static void test_names_and_segments(void)
{
    /*        0 root at origin
     *       / \
     *      1   2        1 at (1,0,0), 2 at (0,2,0)
     *      |
     *      3            3 at (1,0,3), a leaf; 2 is a leaf too */
    const int32_t par[4] = { -1, 0, 0, 1 };
    char n0[8] = "hips";
    const char *names[4] = { n0, "spine", NULL, "spine" };
    sinew_mat4 b[4];
    const double pos[4][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 2, 0 }, { 1, 0, 3 } };
    for (int i = 0; i < 4; i++) {
        b[i] = sinew_mat4_from_rigid(sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 0.3 * i), sinew_v3(pos[i][0], pos[i][1], pos[i][2]));
    }
    const bool prop[4] = { true, false, true, false }; /* the API takes bool: any other byte value is UB */
    sinew_skeleton_desc d = { 0 };
    d.joint_count = 4;
    d.parents = par;
    d.names = names;
    d.bind_global = b;
    d.scale_propagates = prop;
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    if (!s) return;
    strcpy(n0, "xxxx"); /* the skeleton holds its own copy */
    TU_CHECK(strcmp(sinew_skeleton_name(s, 0), "hips") == 0);
    TU_CHECK(strcmp(sinew_skeleton_name(s, 2), "") == 0);
    TU_CHECK(sinew_skeleton_find(s, "hips") == 0);
    TU_CHECK(sinew_skeleton_find(s, "spine") == 1); /* first of duplicates */
    TU_CHECK(sinew_skeleton_find(s, "xxxx") == -1);
    TU_CHECK(sinew_skeleton_find(s, "") == -1);
    TU_CHECK(sinew_skeleton_find(s, NULL) == -1);
    TU_CHECK(sinew_skeleton_scale_propagates(s, 0) == 1 && sinew_skeleton_scale_propagates(s, 1) == 0);
    TU_CHECK(sinew_skeleton_scale_propagates(s, 2) == 1 && sinew_skeleton_scale_propagates(s, 3) == 0);
    sinew_vec3 h, t;
    sinew_skeleton_bone_segment(s, 0, &h, &t); /* branching: mean of (1,0,0) and (0,2,0) */
    TU_CHECK_NEAR(h.x, 0, 0); TU_CHECK_NEAR(t.x, 0.5, 1e-15); TU_CHECK_NEAR(t.y, 1, 1e-15); TU_CHECK_NEAR(t.z, 0, 1e-15);
    sinew_skeleton_bone_segment(s, 1, &h, &t); /* one child */
    TU_CHECK_NEAR(h.x, 1, 1e-15); TU_CHECK_NEAR(t.x, 1, 1e-15); TU_CHECK_NEAR(t.z, 3, 1e-15);
    sinew_skeleton_bone_segment(s, 3, &h, &t); /* leaf: a point */
    TU_CHECK_NEAR(h.z, 3, 1e-15); TU_CHECK_NEAR(t.x, h.x, 0); TU_CHECK_NEAR(t.y, h.y, 0); TU_CHECK_NEAR(t.z, h.z, 0);
    sinew_skeleton_destroy(s);
    /* unnamed skeleton, default flags, given bone tails */
    const sinew_vec3 tails[4] = { { 9, 9, 9 }, { 1, 1, 1 }, { 0, 5, 0 }, { 1, 0, 4 } };
    d.names = NULL;
    d.scale_propagates = NULL;
    d.bone_tail = tails;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    if (!s) return;
    TU_CHECK(strcmp(sinew_skeleton_name(s, 1), "") == 0);
    TU_CHECK(sinew_skeleton_find(s, "hips") == -1);
    TU_CHECK(sinew_skeleton_scale_propagates(s, 1) == 1);
    sinew_skeleton_bone_segment(s, 3, &h, &t);
    TU_CHECK_NEAR(t.z, 4, 0);
    sinew_skeleton_bone_segment(s, 0, &h, &t);
    TU_CHECK_NEAR(t.x, 9, 0);
    sinew_skeleton_destroy(s);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5eed0002ull);
    test_fk_and_bind(&rng);
    test_errors();
    test_fk_errors();
    test_names_and_segments();
    return tu_finish("test_skeleton");
}
