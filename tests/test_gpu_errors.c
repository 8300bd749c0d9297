/* Error detail of the GPU layer: every INVALID_ARGUMENT / CAPACITY / LIMIT /
 * NOT_FOUND of sinew_gpu_create[_external], sinew_skinner_create, add_mesh and
 * set_instances fills sinew_error_info with the result, the item kind, which
 * item, and a message naming it; frame calls made in the wrong order report
 * CALL_ORDER through sinew_skinner_last_error. Each case checks all four. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NV 64
#define NJ 3

/* err holds (r, item, index) and its message contains every needle. */
static void expect(const char *what, sinew_result got, const sinew_error_info *e, sinew_result r,
                   sinew_item_kind item, uint32_t index, const char *needle1, const char *needle2)
{
    TU_CHECK_MSG(got == r, "%s: returned %s, expected %s", what, sinew_result_string(got), sinew_result_string(r));
    TU_CHECK_MSG(e->result == r, "%s: err.result %s", what, sinew_result_string(e->result));
    TU_CHECK_MSG(e->item == item, "%s: err.item %s, expected %s", what, sinew_item_kind_name(e->item),
                 sinew_item_kind_name(item));
    TU_CHECK_MSG(e->index == index, "%s: err.index %u, expected %u", what, e->index, index);
    TU_CHECK_MSG(needle1 == NULL || strstr(e->message, needle1), "%s: message \"%s\" lacks \"%s\"", what, e->message,
                 needle1);
    TU_CHECK_MSG(needle2 == NULL || strstr(e->message, needle2), "%s: message \"%s\" lacks \"%s\"", what, e->message,
                 needle2);
    fprintf(stderr, "  %-34s %s / %s %u: %s\n", what, sinew_result_string(e->result), sinew_item_kind_name(e->item),
            e->index, e->message);
}

static void make_vertices(sinew_vertex *v, uint32_t n)
{
    tu_rng rng = tu_rng_seeded(7);
    for (uint32_t i = 0; i < n; i++) {
        memset(&v[i], 0, sizeof v[i]);
        for (int k = 0; k < 3; k++) v[i].position[k] = (float)tu_uniform(&rng, -1, 1);
        v[i].normal_oct = sinew_oct_encode(tu_random_unit(&rng));
        v[i].joints[0] = (uint16_t)(i % NJ);
        v[i].weights[0] = 65535;
    }
}

static void check_gpu_create(void)
{
    sinew_error_info e;
    sinew_gpu *g = NULL;
    sinew_gpu_desc gd = { 0 };
    gd.device = "no device is called this";
    expect("gpu_create, unknown device", sinew_gpu_create(&gd, &g, &e), &e, SINEW_ERROR_NO_DEVICE, SINEW_ITEM_DEVICE,
           UINT32_MAX, "no device is called this", "1.1");
    TU_CHECK(g == NULL);
    gd.device = NULL;
    sinew_allocator half = { 0 };
    half.free = (void (*)(void *, void *))1; /* alloc NULL, free set: refused before any use */
    gd.allocator = &half;
    expect("gpu_create, half an allocator", sinew_gpu_create(&gd, &g, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.allocator", NULL);
}

static void check_external(sinew_gpu *gpu)
{
    sinew_error_info e;
    sinew_gpu *g = NULL;
    sinew_gpu_external_desc ed = { 0 };
    ed.instance = sinew_gpu_instance(gpu);
    ed.physical_device = sinew_gpu_physical_device(gpu);
    ed.device = sinew_gpu_device(gpu);
    ed.queue = sinew_gpu_queue(gpu);
    ed.queue_family = sinew_gpu_queue_family(gpu);
    expect("external, api_version 0", sinew_gpu_create_external(&ed, &g, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "api_version", "1.1");
    ed.api_version = VK_API_VERSION_1_0;
    expect("external, Vulkan 1.0 instance", sinew_gpu_create_external(&ed, &g, &e), &e, SINEW_ERROR_NO_DEVICE,
           SINEW_ITEM_DEVICE, UINT32_MAX, "Vulkan 1.0", "1.1 or later");
    TU_CHECK(g == NULL);
    ed.api_version = VK_API_VERSION_1_1;
    ed.device = VK_NULL_HANDLE;
    expect("external, no device", sinew_gpu_create_external(&ed, &g, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.device", NULL);
    ed.device = sinew_gpu_device(gpu);
    TU_CHECK_OK(sinew_gpu_create_external(&ed, &g, &e));
    TU_CHECK(e.result == SINEW_OK && e.item == SINEW_ITEM_NONE && e.message[0] == 0);
    sinew_gpu_destroy(g);
}

static void check_skinner_create(sinew_gpu *gpu)
{
    sinew_error_info e;
    sinew_skinner *sk = NULL;
    sinew_skinner_desc d = { 0 };
    d.max_rest_vertices = NV;
    d.max_output_vertices = NV;
    d.output_format = (sinew_output_format)7;
    expect("create, bad output_format", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "output_format", NULL);
    d.output_format = SINEW_OUTPUT_FLOAT;
    d.frames_in_flight = SINEW_MAX_FRAMES_IN_FLIGHT + 1;
    expect("create, frames_in_flight", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_LIMIT_EXCEEDED,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "frames_in_flight", NULL);
    d.frames_in_flight = 0;
    d.max_output_vertices = UINT32_MAX;
    expect("create, output beyond the device", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_LIMIT_EXCEEDED,
           SINEW_ITEM_DEVICE, UINT32_MAX, "max_output_vertices", "maxStorageBufferRange");
    d.max_output_vertices = NV;
    /* Host buffers: checked before anything is made (a fake non-null handle is never used). */
    d.previous_buffer.buffer = (VkBuffer)(uintptr_t)0x1234;
    d.previous_buffer.size = 1u << 20;
    expect("create, previous_buffer alone", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "previous_buffer", "keep_previous");
    memset(&d.previous_buffer, 0, sizeof d.previous_buffer);
    d.output_buffer.buffer = (VkBuffer)(uintptr_t)0x1234;
    d.output_buffer.size = NV * 24 - 1;
    expect("create, output_buffer too small", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_CAPACITY, UINT32_MAX, "output_buffer.size", "max_output_vertices");
    d.output_buffer.size = 1u << 20;
    d.output_buffer.offset = 1;
    expect("create, output_buffer offset", sinew_skinner_create(gpu, &d, &sk, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "output_buffer.offset", "alignment");
    TU_CHECK(sk == NULL);
}

static void check_meshes_and_instances(sinew_gpu *gpu)
{
    sinew_error_info e;
    sinew_skinner *sk = NULL;
    sinew_skinner_desc d = { 0 };
    d.max_rest_vertices = 2 * NV;
    d.max_meshes = 2;
    d.max_instances = 2;
    d.max_output_vertices = 2 * NV;
    d.max_palette_vec4 = 64;
    TU_CHECK_OK(sinew_skinner_create(gpu, &d, &sk, &e));
    if (!sk) return;
    static sinew_vertex v[NV];
    make_vertices(v, NV);
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = v;
    md.vertex_count = NV;
    md.joint_count = NJ;
    sinew_mesh_id id;
    /* Bad vertices: joint index, weights, position. */
    v[17].joints[0] = NJ;
    expect("add_mesh, joint index", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_JOINT_INDEX,
           SINEW_ITEM_VERTEX, 17, "vertex 17", "joint 3");
    v[17].joints[0] = 0;
    v[5].weights[0] = 60000;
    expect("add_mesh, weight sum", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_INVALID_WEIGHT,
           SINEW_ITEM_VERTEX, 5, "vertex 5", "60000");
    v[5].weights[0] = 65535;
    sinew_tangent tan[NV];
    memset(tan, 0, sizeof tan);
    md.tangents = tan;
    expect("add_mesh, tangents off", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "mesh.tangents", "desc.tangents");
    md.tangents = NULL;
    md.vertices8 = (const sinew_vertex8 *)v;
    expect("add_mesh, both layouts", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_ARGUMENT, UINT32_MAX, "vertices8", "both");
    md.vertices8 = NULL;
    sinew_mesh_id m0, m1;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &m0, &e));
    TU_CHECK(e.result == SINEW_OK && e.item == SINEW_ITEM_NONE);
    md.vertex_count = NV + 1;
    static sinew_vertex vbig[NV + 1];
    make_vertices(vbig, NV + 1);
    md.vertices = vbig;
    expect("add_mesh, max_rest_vertices", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_CAPACITY, UINT32_MAX, "max_rest_vertices", NULL);
    md.vertices = v;
    md.vertex_count = NV;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &m1, NULL));
    expect("add_mesh, max_meshes", sinew_skinner_add_mesh(sk, &md, &id, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_CAPACITY, UINT32_MAX, "max_meshes (2)", NULL);

    /* Instances. */
    sinew_instance in[3];
    memset(in, 0, sizeof in);
    in[0].mesh = m0;
    in[1].mesh = m1;
    in[1].output_offset = NV;
    in[1].palette_offset = 12;
    expect("set_instances outside a frame", sinew_skinner_set_instances(sk, in, 2, &e), &e,
           SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX, "begin_frame", NULL);
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_RESULT(sinew_skinner_begin_frame(sk, &fr), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skinner_last_error(sk, &e);
    expect("begin_frame twice", e.result, &e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
           "begin_frame", "end_frame or submit");
    TU_CHECK_RESULT(sinew_skinner_submit(sk), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skinner_last_error(sk, &e);
    expect("submit before set_instances", e.result, &e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER,
           UINT32_MAX, "before set_instances", NULL);

    in[1].method = SINEW_METHOD_COR;
    expect("CoR without centers", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_INSTANCE, 1, "cor_centers", "mesh 1");
    in[1].method = SINEW_METHOD_DQS;
    in[1].flags = SINEW_SKIN_BULGE_CORRECTION;
    expect("bulge without distances", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_INSTANCE, 1, "bulge", "bulge_rest");
    in[1].flags = SINEW_SKIN_BULGE_INNER;
    expect("inner without bulge", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_INVALID_ARGUMENT,
           SINEW_ITEM_INSTANCE, 1, "BULGE_INNER", NULL);
    in[1].flags = 0;
    in[1].mesh.value = 9;
    expect("unknown mesh", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_INSTANCE,
           1, "mesh 9", NULL);
    in[1].mesh = m1;
    in[1].palette_offset = 60;
    expect("palette capacity", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_INSTANCE, 1, "max_palette_vec4 (64)", NULL);
    in[1].palette_offset = 12;
    in[1].output_offset = NV + 1;
    expect("output capacity", sinew_skinner_set_instances(sk, in, 2, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_INSTANCE, 1, "max_output_vertices", NULL);
    in[1].output_offset = NV;
    in[2] = in[0];
    expect("instance capacity", sinew_skinner_set_instances(sk, in, 3, &e), &e, SINEW_ERROR_CAPACITY,
           SINEW_ITEM_CAPACITY, UINT32_MAX, "max_instances (2)", NULL);
    /* The frame is still usable after every refusal. */
    for (uint32_t k = 0; k < 24; k++) fr.palette[k] = (k % 5 == 0) ? 1.0f : 0.0f;
    TU_CHECK_OK(sinew_skinner_set_instances(sk, in, 2, &e));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    TU_CHECK_RESULT(sinew_skinner_end_frame(sk, VK_NULL_HANDLE), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skinner_last_error(sk, &e);
    expect("end_frame without a frame", e.result, &e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
           "without begin_frame", NULL);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_skinner_destroy(sk);
}

/* The final barrier's variants record validation-clean frames that skin right:
 * default consumers, fragment-shader consumers, and none (host_final_barrier,
 * Sinew's read-back then orders itself). */
static void check_barrier_variants(sinew_gpu *gpu)
{
    static sinew_vertex v[NV];
    make_vertices(v, NV);
    for (int variant = 0; variant < 3; variant++) {
        sinew_skinner_desc d = { 0 };
        d.max_rest_vertices = NV;
        d.max_output_vertices = NV;
        d.max_instances = 1;
        d.max_meshes = 1;
        d.max_palette_vec4 = 64;
        if (variant == 1) {
            d.consumer_stages = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
            d.consumer_access = VK_ACCESS_SHADER_READ_BIT;
        }
        d.host_final_barrier = variant == 2;
        sinew_skinner *sk = NULL;
        TU_CHECK_OK(sinew_skinner_create(gpu, &d, &sk, NULL));
        if (!sk) continue;
        sinew_skinner_mesh_desc md = { 0 };
        md.vertices = v;
        md.vertex_count = NV;
        md.joint_count = NJ;
        sinew_mesh_id id;
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NV, 0x7fc00000u));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        /* every joint translates by (1, 2, 3): every vertex moves by it */
        for (int j = 0; j < NJ; j++)
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) fr.palette[12 * j + 4 * r + c] = c == r ? 1.0f : c == 3 ? (float)(r + 1) : 0.0f;
        sinew_instance in = { id, SINEW_METHOD_LBS, 0, 0, 0, false };
        TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        static float pos[3 * NV];
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, NULL));
        double worst = 0;
        for (uint32_t i = 0; i < NV; i++)
            for (int k = 0; k < 3; k++) {
                double dlt = fabs(pos[3 * i + k] - (v[i].position[k] + (k + 1)));
                worst = dlt <= worst ? worst : (isnan(dlt) ? INFINITY : dlt);
            }
        TU_CHECK_MSG(worst <= 1e-6, "barrier variant %d: error %g", variant, worst);
        sinew_skinner_destroy(sk);
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
}

int main(void)
{
    check_gpu_create();
    sinew_gpu *gpu = NULL;
    sinew_error_info e;
    sinew_result r = sinew_gpu_create(NULL, &gpu, &e);
    if (r != SINEW_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", e.message);
        return 1;
    }
    check_external(gpu);
    check_skinner_create(gpu);
    check_meshes_and_instances(gpu);
    check_barrier_variants(gpu);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_errors");
}
