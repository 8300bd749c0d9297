/* GPU skinner limits and bad input: capacities above the device's limits are
 * refused with SINEW_ERROR_LIMIT_EXCEEDED before anything is allocated; bad
 * meshes and bad instances get clear errors, and nothing is written on error
 * (the poisoned output stays poisoned). Validation on; 0 messages required. */
#include "testutil.h"
#include <sinew/sinew.h>

#include <string.h>

#define NV 100
#define NJ 3

static void make_mesh(tu_rng *r, sinew_vertex *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        for (int k = 0; k < 3; k++) v[i].position[k] = (float)tu_uniform(r, -1, 1);
        v[i].normal_oct = sinew_oct_encode(tu_random_unit(r));
        uint16_t a = (uint16_t)(32768 + tu_range(r, 32768));
        v[i].joints[0] = (uint16_t)tu_range(r, NJ);
        v[i].joints[1] = (uint16_t)tu_range(r, NJ);
        v[i].joints[2] = v[i].joints[3] = v[i].joints[0];
        v[i].weights[0] = a;
        v[i].weights[1] = (uint16_t)(65535 - a);
    }
}

static void check_create_limits(sinew_gpu *gpu)
{
    const VkPhysicalDeviceLimits *lim = &sinew_gpu_properties(gpu)->limits;
    uint64_t range = lim->maxStorageBufferRange;
    fprintf(stderr, "maxStorageBufferRange %llu, maxMemoryAllocationSize %llu, maxComputeWorkGroupCount %u x %u\n",
            (unsigned long long)range, (unsigned long long)sinew_gpu_max_allocation(gpu),
            lim->maxComputeWorkGroupCount[0], lim->maxComputeWorkGroupCount[1]);
    struct { const char *what; sinew_skinner_desc d; sinew_result expect; } cases[8];
    int n = 0;
    memset(cases, 0, sizeof cases);
    /* Each capacity just above what one storage range holds. */
    if (range / 32 + 1 <= UINT32_MAX) {
        cases[n].what = "rest vertices";
        cases[n].d.max_rest_vertices = (uint32_t)(range / 32 + 1);
        cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
    }
    if (range / 24 + 1 <= UINT32_MAX) {
        cases[n].what = "output vertices (float)";
        cases[n].d.max_output_vertices = (uint32_t)(range / 24 + 1);
        cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
    }
    if (range / 16 + 1 <= UINT32_MAX) {
        cases[n].what = "output vertices (packed)";
        cases[n].d.max_output_vertices = (uint32_t)(range / 16 + 1);
        cases[n].d.output_format = SINEW_OUTPUT_PACKED;
        cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
        cases[n].what = "palette slots";
        cases[n].d.max_palette_vec4 = (uint32_t)(range / 16 + 1);
        cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
    }
    if (range / 32 + 1 <= UINT32_MAX) {
        cases[n].what = "instances";
        cases[n].d.max_instances = (uint32_t)(range / 32 + 1);
        cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
    }
    cases[n].what = "frames in flight";
    cases[n].d.frames_in_flight = SINEW_MAX_FRAMES_IN_FLIGHT + 1;
    cases[n++].expect = SINEW_ERROR_LIMIT_EXCEEDED;
    cases[n].what = "bad output format";
    cases[n].d.output_format = (sinew_output_format)7;
    cases[n++].expect = SINEW_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < n; i++) {
        sinew_skinner *sk = (sinew_skinner *)(uintptr_t)1;
        if (cases[i].d.max_output_vertices == 0) cases[i].d.max_output_vertices = 1024;
        if (cases[i].d.max_rest_vertices == 0) cases[i].d.max_rest_vertices = 1024;
        if (cases[i].d.max_palette_vec4 == 0) cases[i].d.max_palette_vec4 = 1024;
        sinew_result r = sinew_skinner_create(gpu, &cases[i].d, &sk, NULL);
        TU_CHECK_MSG(r == cases[i].expect, "%s: %s, expected %s", cases[i].what, sinew_result_string(r),
                     sinew_result_string(cases[i].expect));
        if (r != SINEW_OK) TU_CHECK(sk == NULL);
        else sinew_skinner_destroy(sk);
    }
    TU_CHECK_RESULT(sinew_skinner_create(NULL, NULL, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);

    /* Workgroups: with the grid row capped at 1 (sinew/debug.h), a capacity
     * beyond maxComputeWorkGroupCount[1] workgroups no longer fits. */
    uint64_t big = ((uint64_t)lim->maxComputeWorkGroupCount[1] + 1) * 64;
    if (big < range / 24) {
        sinew_skinner_desc d = { 0 };
        d.max_output_vertices = (uint32_t)big;
        d.max_rest_vertices = 1024;
        d.max_palette_vec4 = 1024;
        sinew_skinner *sk = NULL;
        TU_CHECK_OK(sinew_skinner_create(gpu, &d, &sk, NULL));
        if (sk) {
            TU_CHECK_RESULT(sinew_debug_set_max_grid_x(sk, 1), SINEW_ERROR_LIMIT_EXCEEDED);
            TU_CHECK_OK(sinew_debug_set_max_grid_x(sk, 0));
            sinew_skinner_destroy(sk);
        }
    }
}

static sinew_vertex mesh_v[NV], mesh_bad[NV], mesh_big[2 * NV + 1];
static float mesh_bulge[NV];
static float out_pos[2 * NV * 3];

/* Bad meshes, each refused with its error, the id untouched: empty, no
 * vertices, joint index out of range (used or unused slot), weights not
 * summing to 65535, non-finite position, bad bulge data, too many joints.
 * md is left as the last case set it. */
static void test_bad_meshes(sinew_skinner *sk, tu_rng *rng, sinew_skinner_mesh_desc *md)
{
    sinew_mesh_id id = { 77 };
    md->vertex_count = 0;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_EMPTY);
    md->vertex_count = NV;
    md->joint_count = 0;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_EMPTY);
    md->joint_count = NJ;
    md->vertices = NULL;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    md->vertices = mesh_bad;
    uint32_t at = tu_range(rng, NV);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    mesh_bad[at].joints[1] = NJ; /* joint index == joint_count */
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_JOINT_INDEX);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    mesh_bad[at].joints[3] = 65535; /* an unused slot, still validated */
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_JOINT_INDEX);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    mesh_bad[at].weights[1] = (uint16_t)(mesh_bad[at].weights[1] - 1); /* sums to 65534 */
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_INVALID_WEIGHT);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    memset(mesh_bad[at].weights, 0, sizeof mesh_bad[at].weights); /* zero sum */
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_INVALID_WEIGHT);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    mesh_bad[at].position[2] = NAN;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_NON_FINITE);
    memcpy(mesh_bad, mesh_v, sizeof mesh_v);
    md->bulge_rest = mesh_bulge;
    mesh_bulge[at] = -1.0f;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    mesh_bulge[at] = INFINITY;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_NON_FINITE);
    mesh_bulge[at] = 0.5f;
    md->joint_count = SINEW_MAX_JOINTS + 1;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK(id.value == 77); /* untouched by the failures */
}

/* Good meshes: one with bulge data, one without; then capacity (rest
 * vertices, max_meshes). */
static void test_good_meshes_and_capacity(sinew_skinner *sk, tu_rng *rng, sinew_skinner_mesh_desc *md,
                                          sinew_mesh_id *with_bulge, sinew_mesh_id *without)
{
    sinew_mesh_id id;
    md->joint_count = NJ;
    md->vertices = mesh_v;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, md, with_bulge, NULL));
    md->bulge_rest = NULL;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, md, without, NULL));
    md->vertex_count = 2 * NV + 1; /* more rest vertices than are left */
    make_mesh(rng, mesh_big, 2 * NV + 1);
    md->vertices = mesh_big;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_CAPACITY);
    md->vertex_count = NV;
    md->vertices = mesh_v;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, md, &id, NULL)); /* third mesh: max_meshes reached */
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, md, &id, NULL), SINEW_ERROR_CAPACITY);
}

/* Bad instances: each refused, nothing dispatched, output stays poisoned.
 * Leaves the frame begun and submitted (empty). */
static void test_bad_instances_refused(sinew_skinner *sk, sinew_mesh_id with_bulge, sinew_mesh_id without)
{
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, 2 * NV, 0x7fc00000u));
    sinew_frame fr;
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT); /* no frame begun */
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_RESULT(sinew_skinner_begin_frame(sk, &fr), SINEW_ERROR_INVALID_ARGUMENT); /* twice */
    for (uint32_t i = 0; i < 64; i++) fr.palette[4 * i] = fr.palette[4 * i + 1] = fr.palette[4 * i + 2] = fr.palette[4 * i + 3] = 0.25f;
    TU_CHECK_RESULT(sinew_skinner_submit(sk), SINEW_ERROR_INVALID_ARGUMENT); /* no instances set */
    sinew_instance good = { with_bulge, SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION, 64 - NJ * TU_PAL_MAX_STRIDE, NV };
    struct { const char *what; sinew_instance in; uint32_t count; sinew_result expect; } cases[] = {
        { "unknown mesh", { { 3 }, SINEW_METHOD_LBS, 0, 0, 0 }, 1, SINEW_ERROR_NOT_FOUND },
        { "bad method", { without, (sinew_method)9, 0, 0, 0 }, 1, SINEW_ERROR_INVALID_ARGUMENT },
        { "bad flags", { without, SINEW_METHOD_LBS, 8, 0, 0 }, 1, SINEW_ERROR_INVALID_ARGUMENT },
        { "bulge without data", { without, SINEW_METHOD_LBS, SINEW_SKIN_BULGE_CORRECTION, 0, 0 }, 1, SINEW_ERROR_INVALID_ARGUMENT },
        { "palette out of range", { with_bulge, SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION, 64 - NJ * TU_PAL_MAX_STRIDE + 1, 0 }, 1, SINEW_ERROR_CAPACITY },
        { "palette offset huge", { without, SINEW_METHOD_LBS, 0, UINT32_MAX, 0 }, 1, SINEW_ERROR_CAPACITY },
        { "output out of range", { without, SINEW_METHOD_LBS, 0, 0, NV + 1 }, 1, SINEW_ERROR_CAPACITY },
        { "output offset huge", { without, SINEW_METHOD_LBS, 0, 0, UINT32_MAX }, 1, SINEW_ERROR_CAPACITY },
        { "too many instances", { without, SINEW_METHOD_LBS, 0, 0, 0 }, 5, SINEW_ERROR_CAPACITY },
    };
    sinew_instance list[5];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        /* the bad instance comes after a good one: the whole call must be refused */
        list[0] = good;
        for (int k = 1; k < 5; k++) list[k] = cases[c].in;
        uint32_t count = cases[c].count == 1 ? 2 : cases[c].count;
        if (cases[c].count == 5) for (int k = 0; k < 5; k++) list[k] = cases[c].in;
        sinew_result r = sinew_skinner_set_instances(sk, list, count, NULL);
        TU_CHECK_MSG(r == cases[c].expect, "%s: %s, expected %s", cases[c].what, sinew_result_string(r),
                     sinew_result_string(cases[c].expect));
        TU_CHECK_RESULT(sinew_skinner_submit(sk), SINEW_ERROR_INVALID_ARGUMENT); /* nothing valid to run */
    }
    /* Instances whose outputs overlap more work than the work list holds are refused too. */
    sinew_instance many[4] = { good, good, good, good };
    TU_CHECK_OK(sinew_skinner_set_instances(sk, many, 4, NULL)); /* 4 x 2 groups fits (4 + 200/64 + ...) */
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL)); /* an empty frame is valid */
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, 2 * NV, out_pos, NULL));
    uint32_t written = 0;
    for (int i = 0; i < 2 * NV * 3; i++)
        if (out_pos[i] == out_pos[i]) written++;
    TU_CHECK_MSG(written == 0, "%u output floats written after refused instances", written);
}

/* Read/poison ranges; end_frame without an open frame. */
static void test_output_range_errors(sinew_skinner *sk)
{
    TU_CHECK_RESULT(sinew_skinner_read_output(sk, 2 * NV, 1, out_pos, NULL), SINEW_ERROR_CAPACITY);
    TU_CHECK_RESULT(sinew_skinner_read_output(sk, 0, 0, out_pos, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_debug_poison_output(sk, UINT32_MAX, 2, 0), SINEW_ERROR_CAPACITY);
    TU_CHECK_RESULT(sinew_skinner_end_frame(sk, VK_NULL_HANDLE), SINEW_ERROR_INVALID_ARGUMENT); /* no frame open */
}

/* A valid frame afterwards works: output written and finite (identity skin);
 * read path setting. */
static void test_valid_frame_after_errors(sinew_skinner *sk, sinew_mesh_id without)
{
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    for (uint32_t j = 0; j < NJ; j++) { /* identity LBS rows */
        float *p = fr.palette + 12 * j;
        memset(p, 0, 12 * sizeof(float));
        p[0] = p[5] = p[10] = 1.0f;
    }
    sinew_instance ok = { without, SINEW_METHOD_LBS, 0, 0, 0 };
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &ok, 1, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, out_pos, NULL));
    double err = 0;
    for (int i = 0; i < NV; i++)
        for (int k = 0; k < 3; k++) {
            double d = fabs(out_pos[3 * i + k] - mesh_v[i].position[k]);
            if (!(d <= err)) err = d == d ? d : INFINITY;
        }
    fprintf(stderr, "identity skin max error %.3g\n", err);
    TU_CHECK(err <= 1e-6);
    TU_CHECK_RESULT(sinew_skinner_set_read_path(sk, (sinew_read_path)5), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_skinner_set_read_path(sk, SINEW_READ_STORAGE));
    TU_CHECK(sinew_skinner_read_path(sk) == SINEW_READ_STORAGE);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x11417500ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_limits");
    check_create_limits(gpu);

    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 4 * NV;
    sd.max_meshes = 3;
    sd.max_instances = 4;
    sd.max_output_vertices = 2 * NV;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_limits");

    make_mesh(&rng, mesh_v, NV);
    for (int i = 0; i < NV; i++) mesh_bulge[i] = (float)tu_uniform(&rng, 0, 1);
    sinew_skinner_mesh_desc md = { mesh_v, NV, NJ, NULL };
    sinew_mesh_id with_bulge, without;
    test_bad_meshes(sk, &rng, &md);
    test_good_meshes_and_capacity(sk, &rng, &md, &with_bulge, &without);
    test_bad_instances_refused(sk, with_bulge, without);
    test_output_range_errors(sk);
    test_valid_frame_after_errors(sk, without);

    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_limits");
}
