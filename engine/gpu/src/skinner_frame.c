/* Frames of the GPU skinner: the ring slots (begin_frame, set_instances,
 * record, end_frame, submit, wait), GPU time and the read-backs of the output,
 * previous-position and tangent buffers. */
#include "skinner_internal.h"

#include <string.h>

/* The stages that read the output after a frame (and must finish before the next
 * frame writes it): desc.consumer_stages, or compute + transfer (+ vertex input and
 * vertex shader where the queue family supports graphics). Compute and transfer
 * are always included: Sinew's own read-backs and the next frame's previous-position reads. */
static VkPipelineStageFlags consumer_stages(const sinew_skinner *sk)
{
    VkPipelineStageFlags s = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    if (sk->d.consumer_stages) return s | sk->d.consumer_stages;
    if (sk->gpu->queue_flags & VK_QUEUE_GRAPHICS_BIT)
        s |= VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT;
    return s;
}

/* The accesses of those stages: desc.consumer_access, or the default set. */
static VkAccessFlags consumer_access(const sinew_skinner *sk)
{
    VkAccessFlags a = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT;
    if (sk->d.consumer_stages) return a | sk->d.consumer_access;
    if (sk->gpu->queue_flags & VK_QUEUE_GRAPHICS_BIT) a |= VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
    return a;
}

/* The slot's GPU time (start to end of its timed span) and *morph_ms, the part
 * from the start to the timestamp after the morph pass. */
static double slot_ms(sinew_skinner *sk, uint32_t slot, int *ok, double *morph_ms)
{
    uint64_t t[6];
    *ok = 0;
    *morph_ms = 0;
    if (!sk->queries || !sk->has_times[slot]) return 0;
    VkResult vr = sk->gpu->vk.vkGetQueryPoolResults(sk->gpu->device, sk->queries, 3 * slot, 3, sizeof t, t,
                                                    2 * sizeof(uint64_t),
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (vr != VK_SUCCESS || !t[1] || !t[3] || !t[5]) return 0;
    uint32_t bits = sk->gpu->timestamp_valid_bits;
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    double period = (double)sk->gpu->props.limits.timestampPeriod * 1e-6;
    double all = (double)((t[2] - t[0]) & mask) * period, morph = (double)((t[4] - t[0]) & mask) * period;
    *ok = 1;
    *morph_ms = morph < all ? morph : all;
    return all;
}

/* Waits until ring slot s is free, keeping its timing. Own fences always
 * signal (unbounded wait); a caller fence is waited on for at most
 * fence_timeout_ns: SINEW_ERROR_TIMEOUT leaves it pending in the slot. */
static sinew_result wait_slot(sinew_skinner *sk, uint32_t s)
{
    sinew_gpu *gpu = sk->gpu;
    VkResult vr = VK_SUCCESS;
    if (sk->own_pending[s]) {
        vr = gpu->vk.vkWaitForFences(gpu->device, 1, &sk->own_fence[s], VK_TRUE, UINT64_MAX);
        if (vr == VK_SUCCESS) sk->own_pending[s] = 0;
    }
    if (vr == VK_SUCCESS && sk->caller_fence[s]) {
        vr = gpu->vk.vkWaitForFences(gpu->device, 1, &sk->caller_fence[s], VK_TRUE, sk->d.fence_timeout_ns);
        if (vr == VK_TIMEOUT) return SINEW_ERROR_TIMEOUT;
        if (vr == VK_SUCCESS) sk->caller_fence[s] = VK_NULL_HANDLE;
    }
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    /* The slot's frame is complete: keep its time if it is the newest seen. */
    if (sk->serial[s] > sk->last_ms_serial) {
        int ok;
        double morph_ms;
        double ms = slot_ms(sk, s, &ok, &morph_ms);
        if (ok) {
            sk->last_ms = ms;
            sk->last_morph_ms = morph_ms;
            sk->last_ms_serial = sk->serial[s];
            sk->have_last_ms = 1;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_skinner_begin_frame(sinew_skinner *sk, sinew_frame *frame)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!frame) return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "frame is NULL");
    if (sk->in_frame)
        return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "begin_frame while the frame in ring slot %u is open: end it with end_frame or submit first",
                           sk->slot);
    sinew_result r = wait_slot(sk, sk->slot);
    if (r == SINEW_ERROR_TIMEOUT)
        return snw_sk_fail(sk, NULL, r, SINEW_ITEM_CALL_ORDER, sk->slot,
                           "the fence given to end_frame for ring slot %u did not signal within fence_timeout_ns "
                           "(never submitted? sinew_skinner_forget_fence drops it)", sk->slot);
    if (r != SINEW_OK) return snw_sk_fail_plain(sk, NULL, r, "waiting for the ring slot");
    frame->palette = (float *)((char *)sk->palette.mapped + sk->slot * sk->pal_slot_stride);
    frame->palette_capacity_vec4 = sk->d.max_palette_vec4;
    frame->slot = sk->slot;
    frame->serial = sk->serial_next;
    sk->in_frame = 1;
    sk->instances_set = 0;
    return SINEW_OK;
}

sinew_result sinew_skinner_forget_fence(sinew_skinner *sk, VkFence caller_fence)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!caller_fence)
        return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "caller_fence is VK_NULL_HANDLE");
    int found = 0;
    for (uint32_t s = 0; s < sk->d.frames_in_flight; s++)
        if (sk->caller_fence[s] == caller_fence) {
            sk->caller_fence[s] = VK_NULL_HANDLE;
            found = 1;
        }
    return found ? SINEW_OK : SINEW_ERROR_INVALID_ARGUMENT;
}

/* Per variant in use: can its instances run in grid mode (one mesh, palettes
 * and outputs evenly spaced in the order given)? */
typedef struct variant_plan {
    uint32_t count, groups, mesh, grid, first_group;
    uint32_t pal0, pal_step, out0, out_step;
} variant_plan;

static void plan_add(variant_plan *p, const sinew_instance *in)
{
    if (p->count == 0) {
        p->mesh = in->mesh.value;
        p->pal0 = in->palette_offset;
        p->out0 = in->output_offset;
        p->grid = 1;
    } else if (p->grid) {
        uint64_t k = p->count;
        if (p->count == 1) {
            if (in->palette_offset < p->pal0 || in->output_offset < p->out0) p->grid = 0;
            p->pal_step = in->palette_offset - p->pal0;
            p->out_step = in->output_offset - p->out0;
        }
        if (in->mesh.value != p->mesh || (uint64_t)p->pal0 + k * p->pal_step != in->palette_offset ||
            (uint64_t)p->out0 + k * p->out_step != in->output_offset)
            p->grid = 0;
    }
    p->count++;
}

/* Plans one dispatch per variant in use (no writes to the skinner). */
static uint32_t plan_variants(const sinew_skinner *sk, const sinew_instance *instances, uint32_t count,
                              variant_plan plan[SNW_VARIANTS], snw_dispatch disp[SNW_VARIANTS])
{
    const VkPhysicalDeviceLimits *lim = &sk->gpu->props.limits;
    uint32_t wgs = sk->wg_size;
    memset(plan, 0, sizeof(variant_plan) * SNW_VARIANTS);
    for (uint32_t i = 0; i < count; i++) {
        const mesh_rec *m = &sk->meshes[instances[i].mesh.value];
        variant_plan *p = &plan[snw_variant_of(sk, &instances[i], m)];
        plan_add(p, &instances[i]);
        p->groups += (m->count + wgs - 1) / wgs;
    }
    uint32_t row = snw_grid_row(sk);
    /* Grid mode where the grid fits the device's limits; group records elsewhere. */
    uint32_t groups = 0, nd = 0;
    for (uint32_t v = 0; v < SNW_VARIANTS; v++) {
        variant_plan *p = &plan[v];
        p->first_group = groups;
        if (!p->count) continue;
        const mesh_rec *m = &sk->meshes[p->mesh];
        uint32_t gpi = (m->count + wgs - 1) / wgs;
        uint32_t rows = p->count < lim->maxComputeWorkGroupCount[1] ? p->count : lim->maxComputeWorkGroupCount[1];
        uint32_t slices = (p->count + rows - 1) / rows;
        if (sk->force_records || gpi > row || slices > lim->maxComputeWorkGroupCount[2])
            p->grid = 0;
        snw_dispatch *d = &disp[nd++];
        memset(d, 0, sizeof *d);
        d->variant = v;
        d->grid = p->grid;
        if (p->grid) {
            d->push[SINEW_PG_REST_FIRST] = m->first_slot; /* compact: the header slot */
            d->push[SINEW_PG_VERTEX_COUNT] = m->count;
            d->push[SINEW_PG_PALETTE_BASE] = p->pal0;
            d->push[SINEW_PG_PALETTE_STEP] = p->pal_step;
            d->push[SINEW_PG_OUTPUT_BASE] = p->out0;
            d->push[SINEW_PG_OUTPUT_STEP] = p->out_step;
            d->push[SINEW_PG_JOINT_MAX] = m->joints - 1u;
            d->push[SINEW_PG_INSTANCES] = p->count;
            d->push[SINEW_PG_ROWS] = rows;
            if (m->compact) { /* the header's box and aux base */
                memcpy(d->push + SINEW_PG_BOX_OFFSET, m->header, 12);
                memcpy(d->push + SINEW_PG_BOX_STEP, m->header + 4, 12);
                d->push[SINEW_PG_AUX_BASE] = m->header[3];
            }
            d->gx = gpi;
            d->gy = rows;
            d->gz = slices;
        } else {
            d->push[SINEW_PR_GROUP_BASE] = groups;
            d->push[SINEW_PR_GROUP_COUNT] = p->groups;
            d->gx = p->groups < row ? p->groups : row;
            d->push[SINEW_PR_GRID_X] = d->gx;
            d->gy = (p->groups + d->gx - 1) / d->gx;
            d->gz = 1;
            groups += p->groups;
        }
    }
    return nd;
}

/* Writes the slot's group records (instance order within each variant) and its dispatches. */
static void write_variants(sinew_skinner *sk, const sinew_instance *instances, uint32_t count,
                           variant_plan plan[SNW_VARIANTS], const snw_dispatch disp[SNW_VARIANTS], uint32_t nd)
{
    uint32_t wgs = sk->wg_size, s = sk->slot;
    uint32_t cursor[SNW_VARIANTS];
    for (uint32_t v = 0; v < SNW_VARIANTS; v++) cursor[v] = plan[v].first_group;
    uint32_t *gr = (uint32_t *)((char *)sk->frame.mapped + s * sk->frame_slot_stride + sk->work_offset);
    for (uint32_t i = 0; i < count; i++) {
        const sinew_instance *in = &instances[i];
        const mesh_rec *m = &sk->meshes[in->mesh.value];
        uint32_t v = snw_variant_of(sk, in, m);
        if (plan[v].grid) continue;
        uint32_t slots = SINEW_REST_SLOTS(m->influences);
        for (uint32_t first = 0; first < m->count; first += wgs) {
            uint32_t *g = gr + 4u * cursor[v]++;
            uint32_t n = m->count - first < wgs ? m->count - first : wgs;
            g[SINEW_GROUP_OUTPUT] = in->output_offset + first;
            g[SINEW_GROUP_PALETTE] = in->palette_offset;
            if (m->compact) { /* sinew_layout.h, "Compact rest layout" */
                g[SINEW_GROUP_REST] = m->first_slot;
                g[SINEW_GROUP_COUNT_JMAX] = (n - 1u) | ((m->joints - 1u) << 8) | ((first / wgs) << 16);
            } else {
                g[SINEW_GROUP_REST] = m->first_slot + first * slots;
                g[SINEW_GROUP_COUNT_JMAX] = n | ((m->joints - 1u) << 16);
            }
        }
    }
    memcpy(sk->disp[s], disp, sizeof(snw_dispatch) * nd);
    sk->disp_count[s] = nd;
    sk->slot_override[s] = NULL;
}

sinew_result sinew_skinner_set_instances(sinew_skinner *sk, const sinew_instance *instances, uint32_t count,
                                         sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (count && !instances)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "instances is NULL with count %u", count);
    if (!sk->in_frame)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "set_instances outside a frame: call begin_frame first");
    if (count > sk->d.max_instances)
        return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                           "max_instances (%u): %u instances given", sk->d.max_instances, count);
    const snw_kernel_override *ov = sk->override;
    uint64_t work = 0, work_base = 0;
    uint32_t texel = sk->path == SINEW_READ_TEXEL ? 1u : 0u;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_instance *in = &instances[i];
        if (!snw_mesh_live(sk, in->mesh.value))
            return snw_sk_fail(sk, err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_INSTANCE, i, "instance %u: mesh %u %s", i,
                               in->mesh.value, in->mesh.value < sk->mesh_count ? "was removed" : "is not a mesh of the skinner");
        if ((unsigned)in->method >= SINEW_METHOD_COUNT)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                               "instance %u: method %u is not a sinew_method", i, (unsigned)in->method);
        if (in->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                               "instance %u: unknown flags 0x%x", i, in->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL);
        if ((in->flags & SINEW_SKIN_BULGE_INNER) && !(in->flags & SINEW_SKIN_BULGE_CORRECTION))
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                               "instance %u: SINEW_SKIN_BULGE_INNER without SINEW_SKIN_BULGE_CORRECTION", i);
        const mesh_rec *m = &sk->meshes[in->mesh.value];
        if ((in->flags & SINEW_SKIN_BULGE_CORRECTION) && !m->has_bulge)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                               "instance %u: bulge correction, but mesh %u was added without bulge_rest distances", i,
                               in->mesh.value);
        /* CoR needs the mesh's centers */
        if (sinew_method_uses_centers(in->method) && !m->has_cor)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                               "instance %u: method %s needs centers of rotation, but mesh %u was added without cor_centers",
                               i, sinew_method_name(in->method), in->mesh.value);
        const char *why = ov ? ov->refuse(in, m) : NULL;
        if (why)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i, "instance %u (mesh %u, %s): %s",
                               i, in->mesh.value, sinew_method_name(in->method), why);
        uint64_t pal_end = (uint64_t)in->palette_offset + (uint64_t)m->joints * sinew_palette_gpu_stride(in->method, in->flags);
        if (pal_end > sk->d.max_palette_vec4)
            return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_INSTANCE, i,
                               "instance %u: palette slots [%u, %llu) beyond max_palette_vec4 (%u)", i, in->palette_offset,
                           (unsigned long long)pal_end, sk->d.max_palette_vec4);
        if ((uint64_t)in->output_offset + m->count > sk->d.max_output_vertices)
            return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_INSTANCE, i,
                               "instance %u: output vertices [%u, %llu) beyond max_output_vertices (%u)", i,
                           in->output_offset, (unsigned long long)in->output_offset + m->count,
                           sk->d.max_output_vertices);
        work += (m->count + sk->wg_size - 1) / sk->wg_size;
        work_base += (m->count + SINEW_WG_SIZE - 1) / SINEW_WG_SIZE;
    }
    if (work > sk->max_work || work_base > sk->max_work)
        return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                           "work list: %llu workgroups this frame, the skinner holds %u (max_output_vertices and "
                           "max_instances set it)", (unsigned long long)(work > work_base ? work : work_base), sk->max_work);
    /* Plan, then the pipelines in use (each created once, at its first use). */
    variant_plan plan[SNW_VARIANTS];
    snw_dispatch disp[SNW_VARIANTS];
    uint32_t nd = ov ? 0 : plan_variants(sk, instances, count, plan, disp);
    VkPipeline pl;
    if (ov && count) {
        sinew_result r = ov->pipeline(sk, texel, &pl);
        if (r != SINEW_OK) return r;
    }
    for (uint32_t i = 0; i < nd; i++) {
        sinew_result r = snw_skinner_pipeline(sk, snw_dispatch_key(sk, &disp[i], texel), &pl);
        if (r != SINEW_OK) return r;
    }
    /* Valid: write this slot's records and dispatches. */
    if (ov) {
        ov->write(sk, instances, count);
        sk->slot_override[sk->slot] = ov;
    } else
        write_variants(sk, instances, count, plan, disp, nd);
    sk->instances_set = 1;
    return SINEW_OK;
}

/* A compute timestamp, then an execution-only barrier (compute to compute), for the
 * start and the morph/skin split of the timed span. On a GPU the barrier costs
 * nothing (the compute stage is already drained there). lavapipe (Mesa 22.3) bins a
 * timestamp into llvmpipe's render scene whenever a framebuffer is bound (any command
 * buffer after the first render pass on the queue) and dates it when the scene is
 * next flushed; a barrier flushes. Without it the start timestamp got the time after
 * the dispatches, and hosts that render (the viewer) read 0.02 ms for ~11 ms of
 * skinning (bench/RESULTS.md, 2026-11-27 viewer GPU time). The end timestamp is
 * followed by the final barrier (or the host's, desc.host_final_barrier). */
static void timestamp_then_flush(sinew_gpu *gpu, VkCommandBuffer cmd, VkQueryPool pool, uint32_t query)
{
    gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, pool, query);
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                 NULL, 0, NULL, 0, NULL);
}

sinew_result sinew_skinner_record(sinew_skinner *sk, VkCommandBuffer cmd)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!cmd) return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "cmd is VK_NULL_HANDLE");
    if (!sk->in_frame || !sk->instances_set)
        return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "record %s: call begin_frame, then set_instances", !sk->in_frame ? "outside a frame" : "before set_instances");
    sinew_gpu *gpu = sk->gpu;
    uint32_t s = sk->slot;
    uint32_t texel = sk->path == SINEW_READ_TEXEL ? 1u : 0u;
    /* Pipelines first (the read path may have changed since set_instances). */
    VkPipeline pipes[SNW_VARIANTS];
    for (uint32_t i = 0; i < sk->disp_count[s]; i++) {
        sinew_result r = sk->slot_override[s] ? sk->slot_override[s]->pipeline(sk, texel, &pipes[i])
                                         : snw_skinner_pipeline(sk, snw_dispatch_key(sk, &sk->disp[s][i], texel), &pipes[i]);
        if (r != SINEW_OK) return r;
    }
    VkPipelineStageFlags cons = consumer_stages(sk);
    /* Host writes (palette, instances, work list) -> shader reads; earlier
     * reads and writes of the output (vertex input, shaders, transfers) -> shader writes. */
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | cons, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    if (sk->queries) {
        gpu->vk.vkCmdResetQueryPool(cmd, sk->queries, 3 * s, 3);
        timestamp_then_flush(gpu, cmd, sk->queries, 3 * s);
    }
    /* The morph pass (morph.c), inside the timed span; the timestamp after it
     * splits the span (sinew_skinner_gpu_stage_times). */
    if (sk->prepass) {
        sinew_result r = sk->prepass(sk->prepass_user, cmd, s);
        if (r != SINEW_OK) return r;
    }
    if (sk->queries) {
        timestamp_then_flush(gpu, cmd, sk->queries, 3 * s + 2);
    }
    if (sk->disp_count[s])
        gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sk->layout, 0, 1, &sk->sets[s], 0, NULL);
    if (sk->slot_override[s] && sk->disp_count[s]) {
        sk->slot_override[s]->record(sk, cmd, pipes[0], s);
    } else {
        /* One dispatch per variant in use; their outputs are disjoint, no barrier between them. */
        for (uint32_t i = 0; i < sk->disp_count[s]; i++) {
            const snw_dispatch *d = &sk->disp[s][i];
            gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[i]);
            gpu->vk.vkCmdPushConstants(cmd, sk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, SINEW_PUSH_BYTES, d->push);
            gpu->vk.vkCmdDispatch(cmd, d->gx, d->gy, d->gz);
        }
    }
    if (sk->queries) {
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, sk->queries, 3 * s + 1);
        sk->has_times[s] = 1;
    }
    /* Output writes -> the consumers' reads (and later writes), unless the host records
     * that barrier itself (desc.host_final_barrier). */
    if (!sk->d.host_final_barrier) {
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = consumer_access(sk);
        gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, cons, 0, 1, &mb, 0, NULL, 0, NULL);
    }
    return SINEW_OK;
}

sinew_result sinew_skinner_end_frame(sinew_skinner *sk, VkFence caller_fence)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!sk->in_frame)
        return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "end_frame without begin_frame");
    sk->caller_fence[sk->slot] = caller_fence;
    sk->serial[sk->slot] = ++sk->serial_next;
    sk->last_slot = (int)sk->slot;
    sk->slot = (sk->slot + 1) % sk->d.frames_in_flight;
    sk->in_frame = 0;
    sk->instances_set = 0;
    return SINEW_OK;
}

sinew_result sinew_skinner_submit(sinew_skinner *sk)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!sk->in_frame || !sk->instances_set)
        return snw_sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "submit %s: call begin_frame, then set_instances", !sk->in_frame ? "outside a frame" : "before set_instances");
    sinew_gpu *gpu = sk->gpu;
    uint32_t s = sk->slot;
    VkCommandBuffer cmd = sk->cmd[s];
    VkResult vr = gpu->vk.vkResetCommandBuffer(cmd, 0);
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (vr == VK_SUCCESS) vr = gpu->vk.vkBeginCommandBuffer(cmd, &bi);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    sinew_result r = sinew_skinner_record(sk, cmd);
    vr = gpu->vk.vkEndCommandBuffer(cmd);
    if (r != SINEW_OK) return r;
    if (vr == VK_SUCCESS) vr = gpu->vk.vkResetFences(gpu->device, 1, &sk->own_fence[s]);
    if (vr == VK_SUCCESS) {
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vr = snw_vk_queue_submit(gpu, 1, &si, sk->own_fence[s]);
    }
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    sk->own_pending[s] = 1;
    return sinew_skinner_end_frame(sk, VK_NULL_HANDLE);
}

sinew_result snw_skinner_wait_all(sinew_skinner *sk)
{
    sinew_result first = SINEW_OK;
    for (uint32_t s = 0; s < sk->d.frames_in_flight; s++) {
        sinew_result r = wait_slot(sk, s);
        if (r != SINEW_OK && first == SINEW_OK) first = r;
    }
    return first;
}

sinew_result sinew_skinner_wait(sinew_skinner *sk)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    return snw_skinner_wait_all(sk);
}

sinew_result sinew_skinner_gpu_time(sinew_skinner *sk, double *ms)
{
    if (!sk || !ms) return SINEW_ERROR_INVALID_ARGUMENT;
    *ms = 0;
    if (!sk->queries) return SINEW_ERROR_LIMIT_EXCEEDED;
    /* Own submissions: wait for the newest one. Caller fences: never block,
     * take the newest slot whose fence has signalled (a frame whose queries
     * are still pending must not be read: the pool may hold stale values). */
    for (uint32_t s = 0; s < sk->d.frames_in_flight; s++) {
        if (!sk->serial[s] || sk->serial[s] <= sk->last_ms_serial) continue;
        int done = 0;
        if ((int)s == sk->last_slot && sk->own_pending[s]) {
            done = 1; /* wait_slot blocks on our own fence */
        } else if (sk->own_pending[s]) {
            done = sk->gpu->vk.vkGetFenceStatus(sk->gpu->device, sk->own_fence[s]) == VK_SUCCESS;
        } else if (sk->caller_fence[s]) {
            done = sk->gpu->vk.vkGetFenceStatus(sk->gpu->device, sk->caller_fence[s]) == VK_SUCCESS;
        } else {
            done = 1; /* no fence: the caller has waited for it */
        }
        if (done) {
            sinew_result r = wait_slot(sk, s);
            if (r != SINEW_OK) return r;
        }
    }
    if (!sk->have_last_ms) return SINEW_ERROR_NOT_FOUND;
    *ms = sk->last_ms;
    return SINEW_OK;
}

sinew_result sinew_skinner_gpu_stage_times(sinew_skinner *sk, double *morph_ms, double *skin_ms)
{
    if (!morph_ms || !skin_ms) return SINEW_ERROR_INVALID_ARGUMENT;
    *morph_ms = *skin_ms = 0;
    double all = 0;
    sinew_result r = sinew_skinner_gpu_time(sk, &all);
    if (r != SINEW_OK) return r;
    *morph_ms = sk->last_morph_ms;
    *skin_ms = all - sk->last_morph_ms;
    return SINEW_OK;
}

static float snorm10(uint32_t v)
{
    int32_t q = (int32_t)(v << 22) >> 22;
    float f = (float)q / 511.0f;
    return f < -1.0f ? -1.0f : f;
}

/* The 2-bit snorm w of A2B10G10R10_SNORM_PACK32 (bits 0-1 of v): -1, 0 or 1. */
static float snorm2(uint32_t v)
{
    int32_t q = (int32_t)(v << 30) >> 30;
    return q < -1 ? -1.0f : (float)q;
}

/* Reads count vertices of the output (prev = 0), previous-position (prev = 1) or tangent buffer (prev = 2). */
static sinew_result read_back(sinew_skinner *sk, int prev, uint32_t first, uint32_t count, float *pos3, float *nrm3)
{
    if (!sk || !pos3) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_result r = snw_skinner_check_range(sk, first, count);
    if (r != SINEW_OK) return r;
    sinew_gpu *gpu = sk->gpu;
    uint32_t stride = prev == 2 ? sk->tan_stride : prev ? SINEW_PREV_BYTES : sk->out_stride;
    VkBuffer src = prev == 2 ? sk->tan_out.buffer : prev ? sk->previous.buffer : sk->output.buffer;
    VkDeviceSize bytes = (VkDeviceSize)count * stride;
    snw_vk_buffer st;
    r = snw_vk_buffer_create(gpu, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                               VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1, &st);
    if (r != SINEW_OK) return r;
    VkCommandBuffer cmd;
    r = snw_vk_oneshot_begin(gpu, &cmd);
    if (r == SINEW_OK) {
        VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
        gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        VkDeviceSize base = prev == 2 ? sk->tan_base : prev ? sk->prev_base : sk->out_base;
        VkBufferCopy c = { base + (VkDeviceSize)first * stride, 0, bytes };
        gpu->vk.vkCmdCopyBuffer(cmd, src, st.buffer, 1, &c);
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                     NULL, 0, NULL);
        r = snw_vk_oneshot_end(gpu, cmd);
    }
    if (r == SINEW_OK) {
        const uint32_t *wd = (const uint32_t *)st.mapped;
        uint32_t words = stride / 4;
        for (uint32_t i = 0; i < count; i++) {
            const uint32_t *v = wd + (size_t)i * words;
            if (prev == 2) { /* tangents: 4 floats (decoded if packed) */
                if (sk->d.output_format == SINEW_OUTPUT_PACKED) {
                    pos3[4 * (size_t)i + 0] = snorm10(v[0]);
                    pos3[4 * (size_t)i + 1] = snorm10(v[0] >> 10);
                    pos3[4 * (size_t)i + 2] = snorm10(v[0] >> 20);
                    pos3[4 * (size_t)i + 3] = snorm2(v[0] >> 30);
                } else {
                    memcpy(&pos3[4 * (size_t)i], v, 16);
                }
                continue;
            }
            memcpy(&pos3[3 * (size_t)i], v, 12);
            if (!nrm3) continue;
            if (sk->d.output_format == SINEW_OUTPUT_PACKED) {
                nrm3[3 * (size_t)i + 0] = snorm10(v[3]);
                nrm3[3 * (size_t)i + 1] = snorm10(v[3] >> 10);
                nrm3[3 * (size_t)i + 2] = snorm10(v[3] >> 20);
            } else {
                memcpy(&nrm3[3 * (size_t)i], v + 3, 12);
            }
        }
    }
    snw_vk_buffer_destroy(gpu, &st);
    return r;
}

sinew_result sinew_skinner_read_output(sinew_skinner *sk, uint32_t first, uint32_t count, float *pos3, float *nrm3)
{
    return read_back(sk, 0, first, count, pos3, nrm3);
}

sinew_result sinew_skinner_read_previous(sinew_skinner *sk, uint32_t first, uint32_t count, float *pos3)
{
    if (sk && !sk->d.keep_previous) return SINEW_ERROR_INVALID_ARGUMENT;
    return read_back(sk, 1, first, count, pos3, NULL);
}

sinew_result sinew_skinner_read_tangents(sinew_skinner *sk, uint32_t first, uint32_t count, float *tan4)
{
    if (sk && !sk->d.tangents) return SINEW_ERROR_INVALID_ARGUMENT;
    return read_back(sk, 2, first, count, tan4, NULL);
}

sinew_result snw_skinner_frame_slot(sinew_skinner *sk, uint32_t *slot)
{
    *slot = sk->slot;
    return sk->in_frame ? SINEW_OK : wait_slot(sk, sk->slot);
}
