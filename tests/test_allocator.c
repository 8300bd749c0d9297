/* Tests of the allocator rule on every core create call (skeleton, clip,
 * thread pool): a counting allocator sees every allocation (count > 0) and a
 * zero balance after destroy; {NULL, NULL} is the default; {f, NULL} and
 * {NULL, f} are INVALID_ARGUMENT; an allocator that fails after N allocations
 * gives OUT_OF_HOST_MEMORY and leaks nothing, for every N below the number a
 * successful create needs. The counting allocator returns blocks aligned to
 * exactly the requested alignment (never more), so code relying on more than
 * it asked for would fault under the sanitizers. */
#include "testutil.h"
#include <sinew/palette_job.h>
#include "count_alloc.h"
#include <string.h>

/* ---- the create calls under test ---------------------------------------- */

typedef sinew_result (*create_fn)(const sinew_allocator *al, void **out);
typedef void (*destroy_fn)(void *obj);

static sinew_result make_skeleton(const sinew_allocator *al, void **out)
{
    static const int32_t parents[4] = { -1, 0, 1, 1 };
    static const char *names[4] = { "root", "spine", "arm_l", "arm_r" };
    sinew_transform rest[4];
    for (int j = 0; j < 4; j++) {
        rest[j].translation = sinew_v3(j ? 0.5 : 0, j == 3 ? -0.2 : 0.1, 0);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton_desc d = { 0 };
    d.joint_count = 4;
    d.parents = parents;
    d.names = names;
    d.rest_local = rest;
    d.allocator = al;
    sinew_skeleton *s = NULL;
    sinew_result r = sinew_skeleton_create(&d, &s);
    *out = s;
    return r;
}
static void destroy_skeleton(void *s) { sinew_skeleton_destroy(s); }

static sinew_result make_clip(const sinew_allocator *al, void **out)
{
    static const sinew_vec3_key t[2] = { { 0, { 0, 0, 0 } }, { 10, { 1, 0, 0 } } };
    static const sinew_quat_key q[2] = { { 0, { 0, 0, 0, 1 } }, { 10, { 0, 0, 0.7071067811865476, 0.7071067811865476 } } };
    sinew_channel_desc ch[2];
    memset(ch, 0, sizeof ch);
    ch[0].joint = 0; ch[0].translation_count = 2; ch[0].translations = t;
    ch[1].joint = 2; ch[1].rotation_count = 2; ch[1].rotations = q;
    sinew_clip_desc d = { 0 };
    d.name = "walk";
    d.joint_count = 4;
    d.channel_count = 2;
    d.channels = ch;
    d.allocator = al;
    sinew_clip *c = NULL;
    sinew_result r = sinew_clip_create(&d, &c);
    *out = c;
    return r;
}
static void destroy_clip(void *c) { sinew_clip_destroy(c); }

static sinew_result make_pool(const sinew_allocator *al, void **out)
{
    sinew_thread_pool_desc d = { 0 };
    d.threads = 3;
    d.allocator = al;
    sinew_thread_pool *p = NULL;
    sinew_result r = sinew_thread_pool_create(&d, &p);
    *out = p;
    return r;
}
static void destroy_pool(void *p) { sinew_thread_pool_destroy(p); }

static void square(void *user, uint32_t task, uint32_t worker)
{
    (void)worker;
    ((uint32_t *)user)[task] = task * task;
}

/* ---- the checks, the same for every create call ---------------------------- */

static void check_create(const char *what, create_fn create, destroy_fn destroy)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    void *obj = NULL;

    /* through the allocator, balanced after destroy */
    TU_CHECK_OK(create(&al, &obj));
    TU_CHECK_MSG(obj != NULL, "%s: no object", what);
    long needed = ca.allocs;
    TU_CHECK_MSG(needed > 0, "%s: no allocation went through the allocator", what);
    TU_CHECK_MSG(ca.live_blocks > 0 && ca.live_bytes > 0, "%s: nothing live after create", what);
    destroy(obj);
    TU_CHECK_MSG(ca.live_blocks == 0 && ca.live_bytes == 0, "%s: %ld blocks, %lld bytes left after destroy",
                 what, ca.live_blocks, ca.live_bytes);
    TU_CHECK_MSG(ca.bad_align == 0 && ca.bad_free == 0, "%s: %ld bad alignment requests, %ld bad frees",
                 what, ca.bad_align, ca.bad_free);
    fprintf(stderr, "%s: %ld allocation(s), largest alignment asked %zu\n", what, needed, ca.max_align);

    /* {NULL, NULL} = the default allocator; a NULL pointer too */
    sinew_allocator none = { NULL, NULL, &ca };
    obj = NULL;
    TU_CHECK_OK(create(&none, &obj));
    TU_CHECK(obj != NULL);
    destroy(obj);
    obj = NULL;
    TU_CHECK_OK(create(NULL, &obj));
    TU_CHECK(obj != NULL);
    destroy(obj);

    /* exactly one callback NULL: refused, nothing allocated, *out NULL */
    long before = ca.allocs;
    sinew_allocator half1 = { ca_alloc, NULL, &ca }, half2 = { NULL, ca_free, &ca };
    obj = (void *)&ca;
    TU_CHECK_RESULT(create(&half1, &obj), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_MSG(obj == NULL, "%s: *out not NULL after {alloc, NULL}", what);
    obj = (void *)&ca;
    TU_CHECK_RESULT(create(&half2, &obj), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_MSG(obj == NULL, "%s: *out not NULL after {NULL, free}", what);
    TU_CHECK_MSG(ca.allocs == before, "%s: a refused allocator was used", what);
    TU_CHECK(sinew_allocator_check(&half1) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_allocator_check(&half2) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_allocator_check(&none) == SINEW_OK && sinew_allocator_check(NULL) == SINEW_OK);

    /* failure after N allocations, for every N a successful create needs */
    for (long n = 0; n < needed; n++) {
        ca_init(&ca);
        ca.fail_after = n;
        obj = (void *)&ca;
        sinew_result r = create(&al, &obj);
        TU_CHECK_MSG(r == SINEW_ERROR_OUT_OF_HOST_MEMORY, "%s failing after %ld: %s", what, n, sinew_result_string(r));
        TU_CHECK_MSG(obj == NULL, "%s failing after %ld: *out not NULL", what, n);
        TU_CHECK_MSG(ca.live_blocks == 0 && ca.live_bytes == 0, "%s failing after %ld: leaked %ld blocks",
                     what, n, ca.live_blocks);
        if (r == SINEW_OK) destroy(obj);
    }
    /* ... and with exactly enough it works */
    ca_init(&ca);
    ca.fail_after = needed;
    TU_CHECK_OK(create(&al, &obj));
    destroy(obj);
    TU_CHECK(ca.live_blocks == 0);
}

/* A pool from the counting allocator runs tasks (it is a working pool). */
static void test_pool_works(void)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    void *p = NULL;
    TU_CHECK_OK(make_pool(&al, &p));
    uint32_t out[64] = { 0 };
    TU_CHECK_OK(sinew_thread_pool_run(p, 64, square, out));
    int ok = 1;
    for (uint32_t i = 0; i < 64; i++) ok &= out[i] == i * i;
    TU_CHECK(ok);
    destroy_pool(p);
    TU_CHECK(ca.live_blocks == 0);
}

/* A skeleton and clip from the counting allocator are usable: sampling and FK
 * read every array of the block (unaligned use would trip the sanitizers). */
static void test_objects_work(void)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    void *s = NULL, *c = NULL;
    TU_CHECK_OK(make_skeleton(&al, &s));
    TU_CHECK_OK(make_clip(&al, &c));
    if (s && c) {
        sinew_transform pose[4];
        sinew_mat4 global[4];
        TU_CHECK_OK(sinew_clip_sample(c, s, 0.2, SINEW_WRAP_LOOP, pose));
        TU_CHECK_OK(sinew_skeleton_fk(s, pose, NULL, global));
        TU_CHECK(strcmp(sinew_skeleton_name(s, 2), "arm_l") == 0);
        TU_CHECK(strcmp(sinew_clip_name(c), "walk") == 0);
        /* the float32 production path reads the float copies in the same blocks
         * and allocates nothing per frame, for every method */
        long allocs = ca.allocs;
        _Alignas(16) unsigned char scratch[4096];
        TU_CHECK(sinew_palette_scratch_bytes(4) <= sizeof scratch);
        float dst[4 * TU_PAL_MAX_STRIDE * 4];
        for (unsigned m = 0; m < SINEW_METHOD_COUNT; m++)
            for (int frame = 0; frame < 3; frame++) {
                sinew_palette_character ch = { s, (sinew_method)m, SINEW_SKIN_BULGE_CORRECTION, NULL, NULL, c,
                                                SINEW_WRAP_LOOP, 0.1 * frame, 0 };
                sinew_palette_job job = { &ch, 1, dst, 4 * TU_PAL_MAX_STRIDE };
                sinew_result r = sinew_palette_job_run_range(&job, 0, 1, scratch, sizeof scratch, NULL);
                TU_CHECK_MSG(r == SINEW_OK || ((m == SINEW_METHOD_DQS || m == SINEW_METHOD_COR) && r == SINEW_ERROR_NOT_RIGID), "%s: %s",
                             sinew_method_name((sinew_method)m), sinew_result_string(r));
            }
        TU_CHECK_MSG(ca.allocs == allocs, "%ld allocations in the per-frame palette path", ca.allocs - allocs);
    }
    destroy_clip(c);
    destroy_skeleton(s);
    TU_CHECK(ca.live_blocks == 0 && ca.live_bytes == 0);
}

/* A validation error after the block is allocated (a cycle) frees it. */
static void test_late_error_frees(void)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    const int32_t cyc[2] = { 1, 0 };
    sinew_transform rest[2];
    for (int j = 0; j < 2; j++) { rest[j].translation = sinew_v3(j, 0, 0); rest[j].rotation = sinew_quat_identity(); rest[j].scale = sinew_v3(1, 1, 1); }
    sinew_skeleton_desc d = { 0 };
    d.joint_count = 2;
    d.parents = cyc;
    d.rest_local = rest;
    d.allocator = &al;
    sinew_skeleton *s = NULL;
    TU_CHECK_RESULT(sinew_skeleton_create(&d, &s), SINEW_ERROR_CYCLE);
    TU_CHECK(s == NULL && ca.allocs >= 1 && ca.live_blocks == 0);
}

int main(void)
{
    check_create("sinew_skeleton_create", make_skeleton, destroy_skeleton);
    check_create("sinew_clip_create", make_clip, destroy_clip);
    check_create("sinew_thread_pool_create", make_pool, destroy_pool);
    test_pool_works();
    test_objects_work();
    test_late_error_frees();
    return tu_finish("test_allocator");
}
