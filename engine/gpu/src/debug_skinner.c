/* The skinner's debug and test hooks of sinew/debug.h (debug layer, not in
 * sinew::gpu): the grid row limit, the kernel choice (variants or the baseline
 * kernel: its shader, pipeline, instance records, work list and dispatch are
 * here, installed into the skinner as a snw_kernel_override), the workgroup
 * size, the dispatch count and the poison fills of the output buffers. The
 * context's hooks and the copy roofline: debug.c. */
#include "skinner_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Stages of Sinew's own one-shot submissions that touch the output (read-backs, poison). */
static VkPipelineStageFlags queue_stages(const sinew_gpu *gpu)
{
    VkPipelineStageFlags s = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    if (gpu->queue_flags & VK_QUEUE_GRAPHICS_BIT)
        s |= VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT;
    return s;
}

sinew_result sinew_debug_set_max_grid_x(sinew_skinner *sk, uint32_t max_grid_x)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    const VkPhysicalDeviceLimits *lim = &sk->gpu->props.limits;
    uint64_t row = lim->maxComputeWorkGroupCount[0];
    if (max_grid_x && max_grid_x < row) row = max_grid_x;
    if ((uint64_t)sk->max_work > row * lim->maxComputeWorkGroupCount[1]) return SINEW_ERROR_LIMIT_EXCEEDED;
    sk->max_grid_x = max_grid_x;
    return SINEW_OK;
}

static void baseline_write(sinew_skinner *sk, const sinew_instance *instances, uint32_t count)
{
    char *base = (char *)sk->frame.mapped + sk->slot * sk->frame_slot_stride;
    gpu_instance *gi = (gpu_instance *)base;
    uint32_t *wl = (uint32_t *)(base + sk->work_offset);
    uint32_t w = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_instance *in = &instances[i];
        const mesh_rec *m = &sk->meshes[in->mesh.value];
        gpu_instance g = { m->first, m->count, in->palette_offset, in->output_offset,
                           m->joints, (uint32_t)in->method, in->flags, sinew_palette_gpu_stride(in->method, in->flags) };
        gi[i] = g;
        for (uint32_t v = 0; v < m->count; v += SINEW_WG_SIZE) {
            wl[2 * w] = i;
            wl[2 * w + 1] = v;
            w++;
        }
    }
    sk->work_count[sk->slot] = w;
    sk->disp_count[sk->slot] = w ? 1u : 0u;
}

static void baseline_record(sinew_skinner *sk, VkCommandBuffer cmd, VkPipeline pipe, uint32_t s)
{
    sinew_gpu *gpu = sk->gpu;
    uint32_t work = sk->work_count[s];
    uint32_t row = snw_grid_row(sk);
    uint32_t gx = work < row ? work : row;
    uint32_t gy = (work + gx - 1) / gx;
    gpu_push push;
    memset(&push, 0, sizeof push);
    push.work_count = work;
    push.grid_x = gx;
    gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    gpu->vk.vkCmdPushConstants(cmd, sk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    gpu->vk.vkCmdDispatch(cmd, gx, gy, 1);
}

static const char *baseline_refuse(const sinew_instance *in, const mesh_rec *m)
{
    if (sinew_method_uses_centers(in->method)) return "the baseline debug kernel has no centers of rotation";
    if (m->compact) return "the baseline debug kernel has no compact rest layout";
    if (m->influences != 4u || (m->first_slot & 1u))
        return "the baseline debug kernel reads only 4-influence meshes at even slots";
    return NULL;
}

static sinew_result baseline_pipeline(sinew_skinner *sk, uint32_t texel, VkPipeline *out)
{
    if (!sk->shader_base) {
        sinew_result r = snw_vk_shader(sk->gpu, snw_spv_skin_baseline_comp, snw_spv_skin_baseline_comp_size,
                                       &sk->shader_base);
        if (r != SINEW_OK) return r;
    }
    if (!sk->pipe_base[texel]) {
        uint32_t spec[2] = { sk->d.output_format == SINEW_OUTPUT_PACKED ? 1u : 0u, texel };
        VkSpecializationMapEntry me[2] = { { SINEW_SPEC_OUTPUT_PACKED, 0, 4 }, { SINEW_SPEC_READ_TEXEL, 4, 4 } };
        VkSpecializationInfo si = { 2, me, sizeof spec, spec };
        sinew_result r = snw_vk_compute_pipeline(sk->gpu, SNW_VKA(sk->gpu), sk->shader_base, sk->layout, &si,
                                                 &sk->pipe_base[texel]);
        if (r != SINEW_OK) return r;
    }
    *out = sk->pipe_base[texel];
    return SINEW_OK;
}

static const snw_kernel_override baseline_kernel = { baseline_refuse, baseline_pipeline, baseline_write, baseline_record };

sinew_result sinew_debug_set_kernel(sinew_skinner *sk, sinew_debug_kernel kernel)
{
    if (!sk || (unsigned)kernel > SINEW_DEBUG_KERNEL_BASELINE) return SINEW_ERROR_INVALID_ARGUMENT;
    sk->override = kernel == SINEW_DEBUG_KERNEL_BASELINE ? &baseline_kernel : NULL;
    sk->force_records = kernel == SINEW_DEBUG_KERNEL_RECORDS;
    return SINEW_OK;
}

sinew_result sinew_debug_set_workgroup_size(sinew_skinner *sk, uint32_t size)
{
    if (!sk || (size != 0 && size != 64u && size != 128u && size != 256u)) return SINEW_ERROR_INVALID_ARGUMENT;
    sk->wg_size = size ? size : sk->wg_default;
    return SINEW_OK;
}

uint32_t sinew_debug_workgroup_size(const sinew_skinner *sk) { return sk ? sk->wg_size : 0; }

uint32_t sinew_debug_dispatch_count(const sinew_skinner *sk, uint32_t *grid_dispatches)
{
    uint32_t n = 0, g = 0;
    if (sk && sk->last_slot >= 0) {
        uint32_t s = (uint32_t)sk->last_slot;
        n = sk->disp_count[s];
        if (!sk->slot_override[s])
            for (uint32_t i = 0; i < n; i++) g += sk->disp[s][i].grid;
    }
    if (grid_dispatches) *grid_dispatches = g;
    return n;
}

static sinew_result poison(sinew_skinner *sk, int prev, uint32_t first, uint32_t count, uint32_t pattern);

sinew_result sinew_debug_poison_output(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern)
{
    return poison(sk, 0, first, count, pattern);
}

sinew_result sinew_debug_poison_tangents(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern)
{
    if (sk && !sk->d.tangents) return SINEW_ERROR_INVALID_ARGUMENT;
    return poison(sk, 2, first, count, pattern);
}

sinew_result sinew_debug_poison_previous(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern)
{
    if (sk && !sk->d.keep_previous) return SINEW_ERROR_INVALID_ARGUMENT;
    return poison(sk, 1, first, count, pattern);
}

static sinew_result poison(sinew_skinner *sk, int prev, uint32_t first, uint32_t count, uint32_t pattern)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_result r = snw_skinner_check_range(sk, first, count);
    if (r != SINEW_OK) return r;
    sinew_gpu *gpu = sk->gpu;
    VkCommandBuffer cmd;
    r = snw_vk_oneshot_begin(gpu, &cmd);
    if (r != SINEW_OK) return r;
    VkPipelineStageFlags cons = queue_stages(gpu);
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, cons, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    uint32_t stride = prev == 2 ? sk->tan_stride : prev ? SINEW_PREV_BYTES : sk->out_stride;
    VkDeviceSize base = prev == 2 ? sk->tan_base : prev ? sk->prev_base : sk->out_base;
    gpu->vk.vkCmdFillBuffer(cmd, prev == 2 ? sk->tan_out.buffer : prev ? sk->previous.buffer : sk->output.buffer,
                            base + (VkDeviceSize)first * stride,
                            (VkDeviceSize)count * stride, pattern);
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, cons, 0, 1, &mb, 0, NULL, 0, NULL);
    return snw_vk_oneshot_end(gpu, cmd);
}

/* "dqs-scale+bulge grid storage wg64": what sinew_skinner.pipe[slot] is specialized on
 * (the slot numbering of skinner_pipelines.c's pipe_slot). */
static void slot_describe(uint32_t slot, char *buf, size_t size)
{
    static const char *kinds[SINEW_KK_COUNT] = { "lbs", "dqs", "dqs-scale", "cor", "cor-scale" };
    static const char *bulges[3] = { "", "+bulge", "+bulge+inner" };
    static const char *layouts[3] = { "", " 8infl", " compact" };
    uint32_t wg = slot % SNW_WG_CHOICES, rest = slot / SNW_WG_CHOICES;
    uint32_t texel = rest % 2u, grid = (rest / 2u) % 2u;
    variant_fields f = snw_variant_fields_of(rest / 4u);
    snprintf(buf, size, "%s%s%s%s%s %s %s wg%u", f.kind < SINEW_KK_COUNT ? kinds[f.kind] : "?", bulges[f.bulge % 3u],
             layouts[f.layout % 3u], f.tangents ? " +tangents" : "", f.reset ? " +reset" : "",
             grid ? "grid" : "records", texel ? "texel" : "storage", 64u << wg);
}

/* Appends to buf at *used (always NUL-terminated; the rest cut when full). */
static void put(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    if (*used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

sinew_result sinew_debug_pipeline_statistics(const sinew_skinner *sk, char *buf, size_t size)
{
    if (!sk || !buf || size == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    buf[0] = '\0';
    sinew_gpu *gpu = sk->gpu;
    if (!gpu->capture_stats) return SINEW_ERROR_NOT_FOUND;
    size_t used = 0;
    for (uint32_t slot = 0; slot < SNW_PIPES; slot++) {
        if (!sk->pipe[slot]) continue;
        char what[96];
        slot_describe(slot, what, sizeof what);
        VkPipelineInfoKHR pi = { VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR };
        pi.pipeline = sk->pipe[slot];
        uint32_t ne = 0;
        if (gpu->exec_properties(gpu->device, &pi, &ne, NULL) != VK_SUCCESS) continue;
        for (uint32_t e = 0; e < ne && e < 4u; e++) {
            VkPipelineExecutableInfoKHR ei = { VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR };
            ei.pipeline = sk->pipe[slot];
            ei.executableIndex = e;
            VkPipelineExecutableStatisticKHR st[32];
            uint32_t ns = 32;
            for (uint32_t i = 0; i < ns; i++) {
                memset(&st[i], 0, sizeof st[i]);
                st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
            }
            VkResult vr = gpu->exec_statistics(gpu->device, &ei, &ns, st);
            if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) continue;
            put(buf, size, &used, "%s", what);
            if (ne > 1) put(buf, size, &used, " [%u]", e);
            for (uint32_t i = 0; i < ns; i++) {
                put(buf, size, &used, "; %s=", st[i].name);
                switch (st[i].format) {
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                    put(buf, size, &used, "%s", st[i].value.b32 ? "true" : "false");
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                    put(buf, size, &used, "%lld", (long long)st[i].value.i64);
                    break;
                case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                    put(buf, size, &used, "%llu", (unsigned long long)st[i].value.u64);
                    break;
                default:
                    put(buf, size, &used, "%g", st[i].value.f64);
                    break;
                }
            }
            put(buf, size, &used, "\n");
        }
    }
    return SINEW_OK;
}
