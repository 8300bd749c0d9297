/* Debug and test hooks of sinew/debug.h that live with the context: the
 * memory roofline (compute-shader copy and vkCmdCopyBuffer, timestamps). */
#define _POSIX_C_SOURCE 200809L
#include <sinew/linalg.h>
#include "vk_internal.h"
#include "sinew_layout.h"
#include <sinew/debug.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- copy roofline ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double ts_ms(const sinew_gpu *gpu, const uint64_t t[2])
{
    uint64_t mask = gpu->timestamp_valid_bits >= 64 ? ~0ull : ((1ull << gpu->timestamp_valid_bits) - 1);
    uint64_t dt = (t[1] - t[0]) & mask;
    return (double)dt * (double)gpu->props.limits.timestampPeriod * 1e-6;
}

/* Everything one roofline measurement creates, and its sizes. */
typedef struct copy_bench {
    uint64_t bytes;          /* rounded up to 16 */
    uint64_t count;          /* 16-byte elements */
    uint32_t grid_x;         /* dispatch grid of the copy shader */
    uint64_t grid_y;
    uint32_t repeats;        /* timed copies of each kind */
    uint32_t texel;          /* the shader copy reads through a uniform texel buffer */
    snw_vk_buffer src, dst;
    VkBufferView src_view;
    VkShaderModule sm;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout pl;
    VkPipeline pipe;
    VkDescriptorPool dp;
    VkDescriptorSet set;
    VkQueryPool qp;
    double *times;           /* repeats shader copies, then repeats vkCmdCopyBuffer, in ms */
} copy_bench;

/* Sizes and dispatch grid; SINEW_ERROR_LIMIT_EXCEEDED when the device cannot
 * copy that many bytes in one buffer and one dispatch. */
static sinew_result copy_plan(const sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, copy_bench *b)
{
    if (repeats == 0) repeats = 5;
    if (repeats > 1000) repeats = 1000;
    b->repeats = repeats;
    b->bytes = bytes = (bytes + 15) & ~(uint64_t)15;
    b->count = bytes / 16;
    uint64_t groups = (b->count + SINEW_COPY_WG_SIZE - 1) / SINEW_COPY_WG_SIZE;
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    b->grid_x = groups < lim->maxComputeWorkGroupCount[0] ? (uint32_t)groups : lim->maxComputeWorkGroupCount[0];
    b->grid_y = (groups + b->grid_x - 1) / b->grid_x;
    if (bytes > lim->maxStorageBufferRange || bytes > gpu->max_allocation || b->count > UINT32_MAX ||
        b->grid_y > lim->maxComputeWorkGroupCount[1] || (b->texel && b->count > lim->maxTexelBufferElements))
        return SINEW_ERROR_LIMIT_EXCEEDED;
    return SINEW_OK;
}

/* Source and destination, device local, usable by both copies. */
static sinew_result copy_create_buffers(sinew_gpu *gpu, copy_bench *b)
{
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    sinew_result r = snw_vk_buffer_create(gpu, b->bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &b->src);
    if (r == SINEW_OK) r = snw_vk_buffer_create(gpu, b->bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &b->dst);
    if (r == SINEW_OK) {
        /* over the first min(bytes, maxTexelBufferElements * 16) bytes; only read when texel */
        VkDeviceSize max = (VkDeviceSize)gpu->props.limits.maxTexelBufferElements * 16u;
        VkBufferViewCreateInfo ci = { VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO };
        ci.buffer = b->src.buffer;
        ci.format = VK_FORMAT_R32G32B32A32_UINT;
        ci.range = b->bytes < max ? b->bytes : max;
        r = snw_vk_result(gpu->vk.vkCreateBufferView(gpu->device, &ci, NULL, &b->src_view));
    }
    return r;
}

/* The copy shader's pipeline: module, set layout (src, dst), layout with the
 * push constants, compute pipeline. */
static sinew_result copy_create_pipeline(sinew_gpu *gpu, copy_bench *b)
{
    sinew_result r = snw_vk_shader(gpu, snw_spv_copy_comp, snw_spv_copy_comp_size, &b->sm);
    if (r != SINEW_OK) return r;
    VkDescriptorType types[3];
    types[SINEW_COPY_BIND_SRC] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    types[SINEW_COPY_BIND_DST] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    types[SINEW_COPY_BIND_SRC_TEXEL] = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    r = snw_vk_compute_layout(gpu, NULL, types, 3, SINEW_COPY_PUSH_BYTES, &b->dsl, &b->pl);
    if (r != SINEW_OK) return r;
    VkSpecializationMapEntry me = { SINEW_COPY_SPEC_READ_TEXEL, 0, 4 };
    VkSpecializationInfo si = { 1, &me, 4, &b->texel };
    return snw_vk_compute_pipeline(gpu, NULL, b->sm, b->pl, &si, &b->pipe);
}

/* One descriptor set from its own pool, pointing at src and dst. */
static sinew_result copy_create_descriptors(sinew_gpu *gpu, copy_bench *b)
{
    VkDescriptorPoolSize ps[2] = { { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 },
                                   { VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1 } };
    sinew_result r = snw_vk_descriptor_sets(gpu, NULL, b->dsl, 1, ps, 2, &b->dp, &b->set);
    if (r != SINEW_OK) return r;
    VkDescriptorBufferInfo bi[2] = { { b->src.buffer, 0, b->bytes }, { b->dst.buffer, 0, b->bytes } };
    VkWriteDescriptorSet w[3];
    memset(w, 0, sizeof w);
    for (int i = 0; i < 3; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstSet = b->set;
        w[i].dstBinding = (uint32_t)i;
        w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &bi[i < 2 ? i : 0];
    }
    w[2].dstBinding = SINEW_COPY_BIND_SRC_TEXEL;
    w[2].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    w[2].pBufferInfo = NULL;
    w[2].pTexelBufferView = &b->src_view;
    gpu->vk.vkUpdateDescriptorSets(gpu->device, 3, w, 0, NULL);
    return SINEW_OK;
}

/* Two timestamps around each copy, and room for the times. */
static sinew_result copy_create_queries(sinew_gpu *gpu, copy_bench *b)
{
    VkQueryPoolCreateInfo ci = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
    ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    ci.queryCount = 2;
    VkResult vr = gpu->vk.vkCreateQueryPool(gpu->device, &ci, NULL, &b->qp);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    b->times = (double *)snw_gpu_alloc(gpu, 2 * sizeof(double) * b->repeats);
    return b->times ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
}

/* Records one copy between two timestamps (the shader copy or
 * vkCmdCopyBuffer), after a barrier on the previous one; the first command
 * buffer also fills src. */
static void copy_record(sinew_gpu *gpu, const copy_bench *b, VkCommandBuffer cmd, int shader, int first)
{
    if (first) gpu->vk.vkCmdFillBuffer(cmd, b->src.buffer, 0, VK_WHOLE_SIZE, 0x3f800000u);
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    VkPipelineStageFlags st = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
    gpu->vk.vkCmdResetQueryPool(cmd, b->qp, 0, 2);
    if (shader) {
        uint32_t push[2] = { (uint32_t)b->count, b->grid_x };
        gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->pipe);
        gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->pl, 0, 1, &b->set, 0, NULL);
        gpu->vk.vkCmdPushConstants(cmd, b->pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, b->qp, 0);
        gpu->vk.vkCmdDispatch(cmd, b->grid_x, (uint32_t)b->grid_y, 1);
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, b->qp, 1);
    } else {
        VkBufferCopy c = { 0, 0, b->bytes };
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, b->qp, 0);
        gpu->vk.vkCmdCopyBuffer(cmd, b->src.buffer, b->dst.buffer, 1, &c);
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, b->qp, 1);
    }
}

/* Warm-up (2 of each, pipelines compile on first use), then the two copies
 * alternate, each in its own one-shot submission; times in ms. */
static sinew_result copy_time(sinew_gpu *gpu, copy_bench *b)
{
    const uint32_t warm = 2;
    for (uint32_t it = 0; it < 2 * (warm + b->repeats); it++) {
        int shader = (it & 1) == 0;
        VkCommandBuffer cmd;
        sinew_result r = snw_vk_oneshot_begin(gpu, &cmd);
        if (r != SINEW_OK) return r;
        copy_record(gpu, b, cmd, shader, it == 0);
        r = snw_vk_oneshot_end(gpu, cmd);
        if (r != SINEW_OK) return r;
        uint64_t t[2];
        VkResult vr = gpu->vk.vkGetQueryPoolResults(gpu->device, b->qp, 0, 2, sizeof t, t, sizeof t[0],
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (vr != VK_SUCCESS) return snw_vk_result(vr);
        uint32_t k = it / 2;
        if (k >= warm) b->times[(shader ? 0 : b->repeats) + (k - warm)] = ts_ms(gpu, t);
    }
    return SINEW_OK;
}

/* Medians of both copies as read + write bandwidth. */
static void copy_medians(copy_bench *b, sinew_copy_roofline *out)
{
    uint32_t n = b->repeats;
    qsort(b->times, n, sizeof(double), cmp_double);
    qsort(b->times + n, n, sizeof(double), cmp_double);
    double ms_shader = b->times[n / 2], ms_copy = b->times[n + n / 2];
    out->bytes = b->bytes;
    out->shader_copy_gbps = ms_shader > 0 ? 2.0 * (double)b->bytes / (ms_shader * 1e-3) * 1e-9 : 0;
    out->transfer_copy_gbps = ms_copy > 0 ? 2.0 * (double)b->bytes / (ms_copy * 1e-3) * 1e-9 : 0;
}

/* Destroys whatever was created (null handles are skipped). */
static void copy_destroy(sinew_gpu *gpu, copy_bench *b)
{
    snw_gpu_free(gpu, b->times);
    if (b->qp) gpu->vk.vkDestroyQueryPool(gpu->device, b->qp, NULL);
    if (b->dp) gpu->vk.vkDestroyDescriptorPool(gpu->device, b->dp, NULL);
    if (b->pipe) gpu->vk.vkDestroyPipeline(gpu->device, b->pipe, NULL);
    if (b->pl) gpu->vk.vkDestroyPipelineLayout(gpu->device, b->pl, NULL);
    if (b->dsl) gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, b->dsl, NULL);
    snw_vk_shader_destroy(gpu, b->sm);
    if (b->src_view) gpu->vk.vkDestroyBufferView(gpu->device, b->src_view, NULL);
    snw_vk_buffer_destroy(gpu, &b->src);
    snw_vk_buffer_destroy(gpu, &b->dst);
}

static sinew_result measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, uint32_t texel,
                                 sinew_copy_roofline *out)
{
    if (!gpu->timestamp_valid_bits) return SINEW_ERROR_LIMIT_EXCEEDED;
    copy_bench b;
    memset(&b, 0, sizeof b);
    b.texel = texel;
    sinew_result r = copy_plan(gpu, bytes, repeats, &b);
    if (r != SINEW_OK) return r;
    r = copy_create_buffers(gpu, &b);
    if (r == SINEW_OK) r = copy_create_pipeline(gpu, &b);
    if (r == SINEW_OK) r = copy_create_descriptors(gpu, &b);
    if (r == SINEW_OK) r = copy_create_queries(gpu, &b);
    if (r == SINEW_OK) r = copy_time(gpu, &b);
    if (r == SINEW_OK) copy_medians(&b, out);
    out->read_path = texel ? SINEW_READ_TEXEL : SINEW_READ_STORAGE;
    copy_destroy(gpu, &b);
    return r;
}

sinew_result sinew_debug_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, sinew_copy_roofline *out)
{
    if (!gpu || !out || bytes == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    return measure_copy(gpu, bytes, repeats, 0, out);
}

/* Largest CPU cache, 0 if unknown: a CPU device's last-level cache. Read from
 * sysfs (cpu0's cache/indexN/size), or from the directory named by
 * SINEW_CPU_CACHE_SYSFS laid out the same way (tests fake a large LLC with it). */
static uint64_t host_llc_bytes(void)
{
    const char *dir = getenv("SINEW_CPU_CACHE_SYSFS");
    if (!dir || !dir[0]) dir = "/sys/devices/system/cpu/cpu0/cache";
    uint64_t best = 0;
    for (int i = 0; i < 16; i++) {
        char path[512];
        int n = snprintf(path, sizeof path, "%s/index%d/size", dir, i);
        if (n < 0 || (size_t)n >= sizeof path) break;
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long long v = 0;
        char unit = 0;
        if (fscanf(f, "%llu%c", &v, &unit) >= 1 && v < (1ull << 40)) {
            uint64_t bytes = unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
            if (bytes > best) best = bytes;
        }
        fclose(f);
    }
    return best;
}

/* Where the copy sits against the host's LLC: beyond when the source alone is at
 * least twice the LLC (source + destination = 4x), unknown without an LLC figure. */
static sinew_roofline_cache cache_relation(uint64_t bytes, uint64_t llc)
{
    if (llc == 0) return SINEW_ROOFLINE_CACHE_UNKNOWN;
    return bytes >= 2 * llc ? SINEW_ROOFLINE_BEYOND_LLC : SINEW_ROOFLINE_INSIDE_LLC;
}

const char *sinew_debug_roofline_describe(const sinew_copy_roofline *roof, char *buf, size_t size)
{
    if (!buf || size == 0) return "";
    if (!roof) {
        snprintf(buf, size, "no roofline");
        return buf;
    }
    unsigned long long mib = (unsigned long long)(roof->bytes >> 20), llc = (unsigned long long)(roof->llc_bytes >> 20);
    switch (roof->cache) {
    case SINEW_ROOFLINE_BEYOND_LLC:
        snprintf(buf, size, "copy of %llu MiB, beyond the %llu MiB last-level cache: a memory roofline", mib, llc);
        break;
    case SINEW_ROOFLINE_INSIDE_LLC:
        snprintf(buf, size,
                 "copy of %llu MiB, inside the %llu MiB last-level cache (the device's buffer limits stop a larger "
                 "copy): a cache roofline",
                 mib, llc);
        break;
    default:
        snprintf(buf, size, "copy of %llu MiB, device cache size not reported", mib);
        break;
    }
    return buf;
}

sinew_result sinew_debug_measure_copy_path(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, sinew_read_path path,
                                           sinew_copy_roofline *out)
{
    if (!gpu || !out || bytes == 0 || (path != SINEW_READ_STORAGE && path != SINEW_READ_TEXEL))
        return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    return measure_copy(gpu, bytes, repeats, path == SINEW_READ_TEXEL, out);
}

sinew_result sinew_debug_roofline_plan(const sinew_gpu *gpu, sinew_copy_roofline *plan)
{
    if (!gpu || !plan) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(plan, 0, sizeof *plan);
    int cpu = gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    uint64_t llc = cpu ? host_llc_bytes() : 0;
    /* Aimed beyond the last-level cache: 4x the host's LLC on CPU devices (at least
     * 64 MiB); 256 MiB on GPUs (several times the L2 of the GPUs we know). The
     * device's buffer limits may stop it short: `cache` then says INSIDE_LLC. */
    uint64_t bytes = cpu ? (4 * llc > (64ull << 20) ? 4 * llc : (64ull << 20)) : (256ull << 20);
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    while (bytes > (16ull << 20) && (bytes > lim->maxStorageBufferRange || bytes > gpu->max_allocation))
        bytes /= 2;
    /* The skinner's automatic read path (SINEW_READ_AUTO): texel reads on CPU devices. */
    plan->read_path = cpu && bytes / 16 <= lim->maxTexelBufferElements ? SINEW_READ_TEXEL : SINEW_READ_STORAGE;
    plan->bytes = bytes;
    plan->llc_bytes = llc;
    plan->cache = cache_relation(bytes, llc);
    return SINEW_OK;
}

sinew_result sinew_debug_measure_roofline(sinew_gpu *gpu, uint32_t repeats, sinew_copy_roofline *out)
{
    if (!gpu || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_copy_roofline plan;
    sinew_debug_roofline_plan(gpu, &plan);
    sinew_result r = sinew_debug_measure_copy_path(gpu, plan.bytes, repeats, plan.read_path, out);
    out->llc_bytes = plan.llc_bytes;
    out->cache = plan.cache;
    return r;
}

uint32_t sinew_debug_validation_message_count(const sinew_gpu *gpu)
{
    return gpu ? __atomic_load_n(&gpu->message_count, __ATOMIC_RELAXED) : 0;
}
bool sinew_debug_validation_enabled(const sinew_gpu *gpu) { return gpu ? gpu->validation != 0 : false; }
