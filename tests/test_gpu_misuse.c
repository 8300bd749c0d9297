/* GPU context and skinner misuse: clean error codes instead of hangs, races or
 * leaks. Validation on; 0 messages required.
 *  - two skinners on one sinew_gpu, each driven from its own thread (uploads,
 *    submits, waits, readbacks): the gpu's queue lock keeps the shared queue and
 *    one-shot pool safe; results exact;
 *  - a caller fence that is never submitted: begin_frame / wait get
 *    SINEW_ERROR_TIMEOUT (bounded by fence_timeout_ns), forget_fence clears it,
 *    destroy does not hang;
 *  - the allocator rule of sinew_gpu_create / sinew_gpu_create_external;
 *  - Vulkan host allocations through the caller's allocator: balance 0 after
 *    sinew_gpu_destroy;
 *  - sinew_gpu_desc.get_instance_proc_addr used instead of the loader, and a
 *    device table that cannot be loaded fails sinew_gpu_create and
 *    sinew_gpu_create_external with SINEW_ERROR_VULKAN. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <sinew/sinew.h>

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define NJ 3
#define NV 300

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Positions in [-1, 1]^3, two influences over NJ joints. */
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

/* LBS palette of NJ joints that all translate by t: every vertex moves by t. */
static void write_translation_palette(float *pal, const float t[3])
{
    for (uint32_t j = 0; j < NJ; j++) {
        float *p = pal + 4u * sinew_palette_gpu_stride(SINEW_METHOD_LBS, 0) * j;
        for (int r = 0; r < 3; r++) {
            p[4 * r + 0] = r == 0 ? 1.0f : 0.0f;
            p[4 * r + 1] = r == 1 ? 1.0f : 0.0f;
            p[4 * r + 2] = r == 2 ? 1.0f : 0.0f;
            p[4 * r + 3] = t[r];
        }
    }
}

/* ---- two skinners, two threads ---- */

typedef struct thread_job {
    sinew_gpu *gpu;
    uint64_t seed;
    int frames;
    int failures;           /* counted here, added to tu_failures by the main thread */
    sinew_result first_error;
} thread_job;

#define JOB_FAIL(job, r) do { if ((job)->failures++ == 0) (job)->first_error = (r); } while (0)

static void *skin_thread(void *user)
{
    thread_job *job = (thread_job *)user;
    tu_rng rng = { job->seed };
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 8 * NV;
    sd.max_meshes = 8;
    sd.max_instances = 4;
    sd.max_output_vertices = NV;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    sinew_result r = sinew_skinner_create(job->gpu, &sd, &sk, NULL);
    if (r != SINEW_OK) {
        JOB_FAIL(job, r);
        return NULL;
    }
    static _Thread_local sinew_vertex v[NV];
    static _Thread_local float pos[3 * NV];
    sinew_mesh_id mesh = { 0 };
    for (int f = 0; f < job->frames; f++) {
        if (f % 8 == 0) { /* an upload (one-shot pool, queue submit + wait) now and then */
            make_mesh(&rng, v, NV);
            sinew_skinner_mesh_desc md = { v, NV, NJ, NULL };
            r = sinew_skinner_add_mesh(sk, &md, &mesh, NULL);
            if (r != SINEW_OK) {
                JOB_FAIL(job, r);
                break;
            }
        }
        float t[3] = { (float)tu_uniform(&rng, -2, 2), (float)tu_uniform(&rng, -2, 2), (float)f };
        sinew_frame fr;
        r = sinew_skinner_begin_frame(sk, &fr);
        if (r != SINEW_OK) {
            JOB_FAIL(job, r);
            break;
        }
        write_translation_palette(fr.palette, t);
        sinew_instance in = { mesh, SINEW_METHOD_LBS, 0, 0, 0 };
        r = sinew_skinner_set_instances(sk, &in, 1, NULL);
        if (r == SINEW_OK) r = sinew_skinner_submit(sk);
        if (r == SINEW_OK) r = sinew_skinner_wait(sk);
        if (r == SINEW_OK) r = sinew_skinner_read_output(sk, 0, NV, pos, NULL);
        if (r != SINEW_OK) {
            JOB_FAIL(job, r);
            break;
        }
        for (uint32_t i = 0; i < NV; i++)
            for (int k = 0; k < 3; k++)
                if (!(fabsf(pos[3 * i + k] - (v[i].position[k] + t[k])) <= 1e-5f * (1.0f + fabsf(t[k])))) {
                    JOB_FAIL(job, SINEW_OK);
                    i = NV;
                    break;
                }
    }
    sinew_skinner_destroy(sk);
    return NULL;
}

static void check_threads(sinew_gpu *gpu)
{
    enum { NT = 2 };
    thread_job jobs[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].gpu = gpu;
        jobs[i].seed = 0x7468726561640000ull + (uint64_t)i;
        jobs[i].frames = 48;
        TU_CHECK(pthread_create(&th[i], NULL, skin_thread, &jobs[i]) == 0);
    }
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        TU_CHECK_MSG(jobs[i].failures == 0, "thread %d: %d failure(s), first %s", i, jobs[i].failures,
                     sinew_result_string(jobs[i].first_error));
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
}

/* ---- a caller fence that never signals ---- */

static PFN_vkGetInstanceProcAddr loader_gipa(void **handle)
{
    void *h = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    *handle = h;
    if (!h) return NULL;
    PFN_vkGetInstanceProcAddr f;
    *(void **)&f = dlsym(h, "vkGetInstanceProcAddr");
    return f;
}

static void check_fence_timeout(sinew_gpu *gpu, PFN_vkGetInstanceProcAddr gipa)
{
    VkInstance inst = sinew_gpu_instance(gpu);
    VkDevice dev = sinew_gpu_device(gpu);
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(inst, "vkGetDeviceProcAddr");
    TU_CHECK(gdpa != NULL);
    if (!gdpa) return;
    PFN_vkCreateFence create_fence = (PFN_vkCreateFence)gdpa(dev, "vkCreateFence");
    PFN_vkDestroyFence destroy_fence = (PFN_vkDestroyFence)gdpa(dev, "vkDestroyFence");
    VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VkFence never = VK_NULL_HANDLE;
    TU_CHECK(create_fence(dev, &fci, NULL, &never) == VK_SUCCESS);

    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_meshes = 1;
    sd.max_instances = 1;
    sd.max_output_vertices = NV;
    sd.max_palette_vec4 = 64;
    sd.frames_in_flight = 2;
    sd.fence_timeout_ns = 50ull * 1000 * 1000; /* 50 ms */
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    sinew_frame fr;
    /* Frame 0 (slot 0) ends with a fence that is never submitted. */
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
    TU_CHECK_OK(sinew_skinner_end_frame(sk, never));
    /* Frame 1 (slot 1): the own queue. */
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    /* Frame 2 reuses slot 0: bounded wait, TIMEOUT, slot left as it was. */
    double t0 = now_s();
    TU_CHECK_RESULT(sinew_skinner_begin_frame(sk, &fr), SINEW_ERROR_TIMEOUT);
    double waited = now_s() - t0;
    /* The configured bound was honoured (Vulkan returns VK_TIMEOUT only once the
     * timeout has expired); how much longer it took is the host's business, so
     * only a hang guard far above it. */
    TU_CHECK_MSG(waited >= 0.045 && waited < 120.0, "begin_frame waited %.3f s", waited);
    TU_CHECK_RESULT(sinew_skinner_begin_frame(sk, &fr), SINEW_ERROR_TIMEOUT); /* repeatable */
    TU_CHECK_RESULT(sinew_skinner_wait(sk), SINEW_ERROR_TIMEOUT);
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, NULL, 0, NULL), SINEW_ERROR_INVALID_ARGUMENT); /* no frame begun */
    /* Forget it: the slot is free again. */
    TU_CHECK_RESULT(sinew_skinner_forget_fence(sk, VK_NULL_HANDLE), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_skinner_forget_fence(sk, never));
    TU_CHECK_RESULT(sinew_skinner_forget_fence(sk, never), SINEW_ERROR_INVALID_ARGUMENT); /* no longer pending */
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    /* destroy with a never-signalled fence pending: bounded, and it frees. */
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
    TU_CHECK_OK(sinew_skinner_end_frame(sk, never));
    t0 = now_s();
    sinew_skinner_destroy(sk);
    waited = now_s() - t0;
    TU_CHECK_MSG(waited < 120.0, "destroy waited %.3f s (hang guard)", waited);
    destroy_fence(dev, never, NULL);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
}

/* ---- get_instance_proc_addr ---- */

static PFN_vkGetInstanceProcAddr real_gipa;
static PFN_vkGetDeviceProcAddr real_gdpa;
static int gipa_calls;

static PFN_vkVoidFunction VKAPI_PTR gdpa_missing_dispatch(VkDevice dev, const char *name)
{
    if (strcmp(name, "vkCmdDispatch") == 0) return NULL;
    return real_gdpa(dev, name);
}

static PFN_vkVoidFunction VKAPI_PTR gipa_counting(VkInstance inst, const char *name)
{
    gipa_calls++;
    return real_gipa(inst, name);
}

static PFN_vkVoidFunction VKAPI_PTR gipa_broken_device(VkInstance inst, const char *name)
{
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
        real_gdpa = (PFN_vkGetDeviceProcAddr)real_gipa(inst, name);
        return (PFN_vkVoidFunction)gdpa_missing_dispatch;
    }
    return real_gipa(inst, name);
}

/* ---- allocators ---- */

typedef struct counting {
    long allocs, frees;
    long live_bytes;
} counting;

typedef struct block_head { size_t size; void *base; } block_head;

static void *count_alloc(void *user, size_t size, size_t align)
{
    counting *c = (counting *)user;
    if (align < 16) align = 16;
    size_t head = (sizeof(block_head) + align - 1) / align * align;
    char *base = (char *)aligned_alloc(align, (head + size + align - 1) / align * align);
    if (!base) return NULL;
    block_head h = { size, base };
    memcpy(base + head - sizeof h, &h, sizeof h);
    __atomic_add_fetch(&c->allocs, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&c->live_bytes, (long)size, __ATOMIC_RELAXED);
    return base + head;
}

static void count_free(void *user, void *p)
{
    counting *c = (counting *)user;
    if (!p) return;
    block_head h;
    memcpy(&h, (char *)p - sizeof h, sizeof h);
    __atomic_add_fetch(&c->frees, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&c->live_bytes, (long)h.size, __ATOMIC_RELAXED);
    free(h.base);
}

static void check_allocator_rule(sinew_gpu *gpu)
{
    counting cnt = { 0 };
    sinew_allocator none = { NULL, NULL, NULL };
    sinew_allocator half_a = { count_alloc, NULL, &cnt };
    sinew_allocator half_f = { NULL, count_free, &cnt };
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *g = (sinew_gpu *)(uintptr_t)1;
    gd.allocator = &half_a;
    TU_CHECK_RESULT(sinew_gpu_create(&gd, &g, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(g == NULL);
    gd.allocator = &half_f;
    TU_CHECK_RESULT(sinew_gpu_create(&gd, &g, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    gd.allocator = &none;
    TU_CHECK_OK(sinew_gpu_create(&gd, &g, NULL));
    if (g) {
        TU_CHECK(sinew_debug_validation_message_count(g) == 0);
        sinew_gpu_destroy(g);
    }
    TU_CHECK(cnt.allocs == 0 && cnt.frees == 0);

    sinew_gpu_external_desc ed = { 0 };
    ed.instance = sinew_gpu_instance(gpu);
    ed.physical_device = sinew_gpu_physical_device(gpu);
    ed.device = sinew_gpu_device(gpu);
    ed.queue = sinew_gpu_queue(gpu);
    ed.queue_family = sinew_gpu_queue_family(gpu);
    ed.api_version = VK_API_VERSION_1_1;
    ed.allocator = &half_a;
    TU_CHECK_RESULT(sinew_gpu_create_external(&ed, &g, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    ed.allocator = &half_f;
    TU_CHECK_RESULT(sinew_gpu_create_external(&ed, &g, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    ed.allocator = &none;
    TU_CHECK_OK(sinew_gpu_create_external(&ed, &g, NULL));
    sinew_gpu_destroy(g);
    /* A device function missing from vkGetDeviceProcAddr: a clean failure. */
    ed.get_instance_proc_addr = gipa_broken_device;
    g = (sinew_gpu *)(uintptr_t)1;
    TU_CHECK_RESULT(sinew_gpu_create_external(&ed, &g, NULL), SINEW_ERROR_VULKAN);
    TU_CHECK(g == NULL);
}

/* Every Vulkan host allocation of the objects Sinew owns goes through the
 * caller's allocator and is freed by sinew_gpu_destroy. */
static void check_vulkan_allocations(tu_rng *rng)
{
    counting cnt = { 0 };
    sinew_allocator a = { count_alloc, count_free, &cnt };
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    gd.allocator = &a;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return;
    long after_create = cnt.allocs;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_meshes = 1;
    sd.max_instances = 1;
    sd.max_output_vertices = NV;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (sk) {
        static sinew_vertex v[NV];
        static float pos[3 * NV];
        make_mesh(rng, v, NV);
        sinew_skinner_mesh_desc md = { v, NV, NJ, NULL };
        sinew_mesh_id mesh;
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
        for (int f = 0; f < 3; f++) {
            sinew_frame fr;
            float t[3] = { 0.5f, -1.0f, (float)f };
            TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
            write_translation_palette(fr.palette, t);
            sinew_instance in = { mesh, SINEW_METHOD_LBS, 0, 0, 0 };
            TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
            TU_CHECK_OK(sinew_skinner_submit(sk));
        }
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, NULL));
        TU_CHECK_NEAR(pos[2], v[0].position[2] + 2.0f, 1e-5);
        sinew_skinner_destroy(sk);
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    fprintf(stderr, "counting allocator: %ld allocations (%ld by sinew_gpu_create), %ld frees, %ld bytes live\n",
            cnt.allocs, after_create, cnt.frees, cnt.live_bytes);
    /* The instance and device alone make far more than Sinew's own few blocks. */
    TU_CHECK_MSG(after_create > 20, "only %ld allocations: Vulkan does not use the allocator", after_create);
    TU_CHECK_MSG(cnt.allocs == cnt.frees, "%ld allocations, %ld frees", cnt.allocs, cnt.frees);
    TU_CHECK(cnt.live_bytes == 0);
}

static void check_proc_addr(void)
{
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    gd.get_instance_proc_addr = gipa_counting;
    sinew_gpu *g = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &g, NULL));
    TU_CHECK_MSG(gipa_calls > 0, "the given vkGetInstanceProcAddr was not used");
    if (g) {
        sinew_skinner *sk = NULL;
        TU_CHECK_OK(sinew_skinner_create(g, NULL, &sk, NULL));
        sinew_skinner_destroy(sk);
        TU_CHECK(sinew_debug_validation_message_count(g) == 0);
        sinew_gpu_destroy(g);
    }
    /* A device function missing from vkGetDeviceProcAddr: clean failure. */
    counting cnt = { 0 };
    sinew_allocator a = { count_alloc, count_free, &cnt };
    gd.get_instance_proc_addr = gipa_broken_device;
    gd.allocator = &a;
    g = (sinew_gpu *)(uintptr_t)1;
    TU_CHECK_RESULT(sinew_gpu_create(&gd, &g, NULL), SINEW_ERROR_VULKAN);
    TU_CHECK(g == NULL);
    TU_CHECK_MSG(cnt.allocs == cnt.frees, "%ld allocations, %ld frees", cnt.allocs, cnt.frees);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x6d69737573650000ull);
    void *loader = NULL;
    PFN_vkGetInstanceProcAddr gipa = loader_gipa(&loader);
    TU_CHECK(gipa != NULL);
    real_gipa = gipa;
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu || !gipa) return tu_finish("test_gpu_misuse");
    TU_CHECK(sinew_debug_validation_enabled(gpu));

    check_threads(gpu);
    check_fence_timeout(gpu, gipa);
    check_allocator_rule(gpu);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);

    check_vulkan_allocations(&rng);
    check_proc_addr();
    dlclose(loader);
    return tu_finish("test_gpu_misuse");
}
