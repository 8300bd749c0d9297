/* Sinew GPU skinner: rest meshes in one buffer, a ring of palette and
 * instance/work-list slots in persistently mapped memory, one compute dispatch
 * per frame for every character. Layout constants: shaders/sinew_layout.h.
 * This room: create/destroy, meshes (add/remove, the rest-slot allocator),
 * accessors, bindings, the memory report and the morph pass's hooks; frames
 * are in skinner_frame.c, pipelines in skinner_pipelines.c, the debug entry
 * points of sinew/debug.h in the debug layer, debug_skinner.c (shared
 * internals: skinner_internal.h). */
#include "skinner_internal.h"
#include <sinew/mesh.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SNW_WORD_AT(type, field, word) (offsetof(type, field) == (size_t)(word) * 4u)
_Static_assert(sizeof(gpu_instance) == SINEW_INSTANCE_BYTES && sizeof(gpu_instance) == SINEW_INST_WORDS * 4u,
               "instance record size");
_Static_assert(SNW_WORD_AT(gpu_instance, rest_first, SINEW_INST_REST_FIRST) &&
                   SNW_WORD_AT(gpu_instance, vertex_count, SINEW_INST_VERTEX_COUNT) &&
                   SNW_WORD_AT(gpu_instance, palette_offset, SINEW_INST_PALETTE_OFFSET) &&
                   SNW_WORD_AT(gpu_instance, output_offset, SINEW_INST_OUTPUT_OFFSET) &&
                   SNW_WORD_AT(gpu_instance, joint_count, SINEW_INST_JOINT_COUNT) &&
                   SNW_WORD_AT(gpu_instance, method, SINEW_INST_METHOD) &&
                   SNW_WORD_AT(gpu_instance, flags, SINEW_INST_FLAGS) &&
                   SNW_WORD_AT(gpu_instance, stride, SINEW_INST_STRIDE),
               "instance record field offsets");
_Static_assert(sizeof(gpu_push) == SINEW_PUSH_BYTES && SNW_WORD_AT(gpu_push, work_count, SINEW_PUSH_WORK_COUNT) &&
                   SNW_WORD_AT(gpu_push, grid_x, SINEW_PUSH_GRID_X),
               "push constant layout");
_Static_assert(sizeof(sinew_vertex) == SINEW_REST_VERTEX_BYTES, "rest vertex layout");
_Static_assert(sizeof(sinew_tangent) == SINEW_TANGENT_REST_BYTES, "rest tangent layout");
_Static_assert(sizeof(sinew_vertex_compact) == SINEW_COMPACT_VERTEX_BYTES && sizeof(sinew_compact_box) == 24, "compact vertex layout");
_Static_assert(SINEW_K_LBS == (unsigned)SINEW_METHOD_LBS && SINEW_K_DQS == (unsigned)SINEW_METHOD_DQS &&
                   SINEW_K_DQS_SCALE == (unsigned)SINEW_METHOD_DQS_SCALE &&
                   SINEW_K_DQS_SCALE_LOCAL == (unsigned)SINEW_METHOD_DQS_SCALE_LOCAL &&
                   SINEW_K_DQS_SCALE_MIXED == (unsigned)SINEW_METHOD_DQS_SCALE_MIXED &&
                   SINEW_K_COR == (unsigned)SINEW_METHOD_COR && SINEW_K_COR_SCALE == (unsigned)SINEW_METHOD_COR_SCALE &&
                   SINEW_K_COR_SCALE_LOCAL == (unsigned)SINEW_METHOD_COR_SCALE_LOCAL &&
                   SINEW_K_COR_SCALE_MIXED == (unsigned)SINEW_METHOD_COR_SCALE_MIXED &&
                   SINEW_K_COR_SCALE_MIXED + 1u == (unsigned)SINEW_METHOD_COUNT,
               "kernel method values equal sinew_method");
_Static_assert(SINEW_K_FLAG_BULGE == (unsigned)SINEW_SKIN_BULGE_CORRECTION &&
                   SINEW_K_FLAG_BULGE_INNER == (unsigned)SINEW_SKIN_BULGE_INNER,
               "kernel bulge flags");

sinew_result snw_sk_fail(sinew_skinner *sk, sinew_error_info *err, sinew_result r, sinew_item_kind item,
                         uint32_t index, const char *fmt, ...)
{
    sinew_error_info e;
    va_list ap;
    e.result = r;
    e.item = item;
    e.index = index;
    e.entry = UINT32_MAX;
    va_start(ap, fmt);
    vsnprintf(e.message, sizeof e.message, fmt, ap);
    va_end(ap);
    if (err) *err = e;
    if (sk) sk->last_error = e;
    return r;
}

sinew_result snw_sk_fail_plain(sinew_skinner *sk, sinew_error_info *err, sinew_result r, const char *what)
{
    return snw_sk_fail(sk, err, r, r == SINEW_ERROR_OUT_OF_DEVICE_MEMORY || r == SINEW_ERROR_DEVICE_LOST ||
                                           r == SINEW_ERROR_VULKAN ? SINEW_ITEM_DEVICE : SINEW_ITEM_NONE,
                       UINT32_MAX, "%s: %s", what, sinew_result_string(r));
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

static sinew_read_path auto_path(const sinew_skinner *sk)
{
    if (sk->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && sk->texel_ok) return SINEW_READ_TEXEL;
    return SINEW_READ_STORAGE;
}

static sinew_result create_view(sinew_gpu *gpu, VkBuffer buf, VkFormat fmt, VkDeviceSize off, VkDeviceSize range,
                                VkBufferView *out)
{
    VkDeviceSize texel = fmt == VK_FORMAT_R32_SFLOAT ? 4u : fmt == VK_FORMAT_R32G32_UINT ? 8u : 16u;
    VkDeviceSize max = (VkDeviceSize)gpu->props.limits.maxTexelBufferElements * texel;
    VkBufferViewCreateInfo ci = { VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO };
    ci.buffer = buf;
    ci.format = fmt;
    ci.offset = off;
    ci.range = range < max ? range : max;
    return snw_vk_result(gpu->vk.vkCreateBufferView(gpu->device, &ci, SNW_VKA(gpu), out));
}

static sinew_result create_descriptors(sinew_skinner *sk)
{
    sinew_gpu *gpu = sk->gpu;
    uint32_t F = sk->d.frames_in_flight;
    sinew_result r = create_view(gpu, sk->rest.buffer, VK_FORMAT_R32G32B32A32_UINT, 0, sk->rest.size, &sk->rest_view);
    if (r == SINEW_OK) r = create_view(gpu, sk->bulge.buffer, VK_FORMAT_R32_SFLOAT, 0, sk->bulge.size, &sk->bulge_view);
    if (r == SINEW_OK)
        r = create_view(gpu, sk->tan_rest.buffer, VK_FORMAT_R32G32_UINT, 0, sk->tan_rest.size, &sk->tan_rest_view);
    if (r == SINEW_OK)
        r = create_view(gpu, sk->cor.buffer, VK_FORMAT_R32G32B32A32_SFLOAT, 0, sk->cor.size, &sk->cor_view);
    /* The output is read as texels only for previous positions (keep_previous);
     * otherwise the binding gets a view of the tangent rest buffer (same format,
     * never read), so a host output buffer needs no texel usage. */
    if (r == SINEW_OK)
        r = sk->d.keep_previous
                ? create_view(gpu, sk->output.buffer, VK_FORMAT_R32G32_UINT, sk->out_base, sk->output.size, &sk->out_view)
                : create_view(gpu, sk->tan_rest.buffer, VK_FORMAT_R32G32_UINT, 0, sk->tan_rest.size, &sk->out_view);
    for (uint32_t s = 0; r == SINEW_OK && s < F; s++)
        r = create_view(gpu, sk->palette.buffer, VK_FORMAT_R32G32B32A32_SFLOAT, s * sk->pal_slot_stride,
                        sk->pal_slot_bytes, &sk->pal_view[s]);
    for (uint32_t s = 0; r == SINEW_OK && s < F; s++)
        r = create_view(gpu, sk->frame.buffer, VK_FORMAT_R32G32B32A32_UINT, s * sk->frame_slot_stride + sk->work_offset,
                        sk->work_bytes, &sk->work_view[s]);
    if (r != SINEW_OK) return r;
    VkDescriptorPoolSize ps[2] = {
        { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 10 * F },
        { VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 7 * F },
    };
    r = snw_vk_descriptor_sets(gpu, SNW_VKA(gpu), sk->dsl, F, ps, 2, &sk->dpool, sk->sets);
    if (r != SINEW_OK) return r;
    VkDescriptorType types[SINEW_BIND_COUNT];
    snw_skinner_binding_types(types);
    for (uint32_t s = 0; s < F; s++) {
        VkDescriptorBufferInfo bi[SINEW_BIND_COUNT] = {
            [SINEW_BIND_REST] = { sk->rest.buffer, 0, sk->rest.size },
            [SINEW_BIND_BULGE] = { sk->bulge.buffer, 0, sk->bulge.size },
            [SINEW_BIND_PALETTE] = { sk->palette.buffer, s * sk->pal_slot_stride, sk->pal_slot_bytes },
            [SINEW_BIND_INSTANCES] = { sk->frame.buffer, s * sk->frame_slot_stride, sk->inst_bytes },
            [SINEW_BIND_WORK] = { sk->frame.buffer, s * sk->frame_slot_stride + sk->work_offset, sk->work_bytes },
            [SINEW_BIND_OUTPUT] = { sk->output.buffer, sk->out_base, sk->output.size },
            [SINEW_BIND_PREVIOUS] = { sk->previous.buffer, sk->prev_base, sk->previous.size },
            [SINEW_BIND_TANGENT_REST] = { sk->tan_rest.buffer, 0, sk->tan_rest.size },
            [SINEW_BIND_TANGENT_OUT] = { sk->tan_out.buffer, sk->tan_base, sk->tan_out.size },
            [SINEW_BIND_COR] = { sk->cor.buffer, 0, sk->cor.size },
        };
        VkBufferView views[SINEW_BIND_COUNT] = {
            [SINEW_BIND_REST_TEXEL] = sk->rest_view,
            [SINEW_BIND_PALETTE_TEXEL] = sk->pal_view[s],
            [SINEW_BIND_BULGE_TEXEL] = sk->bulge_view,
            [SINEW_BIND_TANGENT_REST_TEXEL] = sk->tan_rest_view,
            [SINEW_BIND_COR_TEXEL] = sk->cor_view,
            [SINEW_BIND_OUTPUT_TEXEL] = sk->out_view,
            [SINEW_BIND_WORK_TEXEL] = sk->work_view[s],
        };
        snw_vk_write_set(gpu, sk->sets[s], SINEW_BIND_COUNT, types, bi, views);
    }
    return SINEW_OK;
}

static sinew_result create_commands(sinew_skinner *sk)
{
    sinew_gpu *gpu = sk->gpu;
    uint32_t F = sk->d.frames_in_flight;
    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = gpu->queue_family;
    VkResult vr = gpu->vk.vkCreateCommandPool(gpu->device, &pci, SNW_VKA(gpu), &sk->pool);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = sk->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = F;
    vr = gpu->vk.vkAllocateCommandBuffers(gpu->device, &ai, sk->cmd);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    for (uint32_t s = 0; s < F; s++) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        vr = gpu->vk.vkCreateFence(gpu->device, &fci, SNW_VKA(gpu), &sk->own_fence[s]);
        if (vr != VK_SUCCESS) return snw_vk_result(vr);
    }
    if (gpu->timestamp_valid_bits) {
        VkQueryPoolCreateInfo qci = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
        qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qci.queryCount = 3 * F; /* per slot: start, end, after the morph pass */
        vr = gpu->vk.vkCreateQueryPool(gpu->device, &qci, SNW_VKA(gpu), &sk->queries);
        if (vr != VK_SUCCESS) return snw_vk_result(vr);
    }
    return SINEW_OK;
}

/* An output-side buffer: the host's (desc.*_buffer, used from its offset, never
 * destroyed here) where given, else a new device-local one if r is still SINEW_OK. */
static sinew_result host_or_own_buffer(sinew_gpu *gpu, sinew_result r, const sinew_buffer_range *host, VkDeviceSize bytes,
                                       VkBufferUsageFlags usage, snw_vk_buffer *b, VkDeviceSize *base)
{
    if (host->buffer) {
        b->buffer = host->buffer;
        b->size = bytes;
        *base = host->offset;
        return r;
    }
    return r == SINEW_OK ? snw_vk_buffer_create(gpu, bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, b) : r;
}

sinew_result sinew_skinner_create(sinew_gpu *gpu, const sinew_skinner_desc *desc, sinew_skinner **out,
                                  sinew_error_info *err)
{
    snw_error_clear(err);
    if (!out) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    *out = NULL;
    if (!gpu) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "gpu is NULL");
    sinew_skinner_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (!d.max_rest_vertices) d.max_rest_vertices = SINEW_SKINNER_DEFAULT_MAX_REST_VERTICES;
    if (!d.max_meshes) d.max_meshes = SINEW_SKINNER_DEFAULT_MAX_MESHES;
    if (!d.max_instances) d.max_instances = SINEW_SKINNER_DEFAULT_MAX_INSTANCES;
    if (!d.max_output_vertices) d.max_output_vertices = SINEW_SKINNER_DEFAULT_MAX_OUTPUT_VERTICES;
    if (!d.max_palette_vec4) d.max_palette_vec4 = SINEW_SKINNER_DEFAULT_MAX_PALETTE_VEC4;
    if (!d.frames_in_flight) d.frames_in_flight = SINEW_SKINNER_DEFAULT_FRAMES_IN_FLIGHT;
    if (!d.fence_timeout_ns) d.fence_timeout_ns = SINEW_SKINNER_DEFAULT_FENCE_TIMEOUT_NS;
    if ((unsigned)d.output_format > SINEW_OUTPUT_PACKED)
        return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.output_format %u is not a sinew_output_format", (unsigned)d.output_format);
    if ((unsigned)d.read_path > SINEW_READ_TEXEL)
        return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.read_path %u is not a sinew_read_path", (unsigned)d.read_path);
    if (d.frames_in_flight > MAXF)
        return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.frames_in_flight %u, at most %u", d.frames_in_flight, MAXF);
    if (d.max_meshes > (1u << 24))
        return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.max_meshes %u, at most %u", d.max_meshes, 1u << 24);

    /* Sizes and device limits, all checked before anything is allocated. */
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    uint64_t out_stride = d.output_format == SINEW_OUTPUT_PACKED ? SINEW_OUT_PACKED_BYTES : SINEW_OUT_FLOAT_BYTES;
    uint64_t max_work = ((uint64_t)d.max_output_vertices + SINEW_WG_SIZE - 1) / SINEW_WG_SIZE + d.max_instances;
    uint64_t rest_bytes = (uint64_t)d.max_rest_vertices * SINEW_REST_VERTEX_BYTES;
    uint64_t bulge_bytes = (uint64_t)d.max_rest_vertices * SINEW_BULGE_BYTES;
    uint64_t out_bytes = (uint64_t)d.max_output_vertices * out_stride;
    uint64_t prev_bytes = d.keep_previous ? (uint64_t)d.max_output_vertices * SINEW_PREV_BYTES : 16u;
    uint64_t tan_rest_bytes = d.tangents ? (uint64_t)d.max_rest_vertices * SINEW_TANGENT_REST_BYTES : 16u;
    uint64_t tan_stride = d.output_format == SINEW_OUTPUT_PACKED ? SINEW_TANGENT_OUT_PACKED_BYTES : SINEW_TANGENT_OUT_BYTES;
    /* whole uvec4s: the kernel writes packed tangents as components of a uvec4 array */
    uint64_t tan_out_bytes = d.tangents ? ((uint64_t)d.max_output_vertices * tan_stride + 15u) / 16u * 16u : 16u;
    uint64_t cor_bytes = d.cor_centers ? (uint64_t)d.max_rest_vertices * SINEW_COR_BYTES : 16u;
    uint64_t pal_bytes = (uint64_t)d.max_palette_vec4 * 16u;
    uint64_t inst_bytes = (uint64_t)d.max_instances * SINEW_INSTANCE_BYTES;
    uint64_t work_bytes = max_work * SINEW_GROUP_BYTES; /* >= the baseline's SINEW_WORK_BYTES */
    uint64_t align = 256;
    if (lim->minStorageBufferOffsetAlignment > align) align = lim->minStorageBufferOffsetAlignment;
    if (lim->minTexelBufferOffsetAlignment > align) align = lim->minTexelBufferOffsetAlignment;
    uint64_t pal_stride = align_up(pal_bytes, align);
    uint64_t work_off = align_up(inst_bytes, align);
    uint64_t frame_stride = align_up(work_off + work_bytes, align);
    uint64_t range = lim->maxStorageBufferRange, maxa = gpu->max_allocation;
    uint64_t groups = (uint64_t)lim->maxComputeWorkGroupCount[0] * lim->maxComputeWorkGroupCount[1];
    /* Each buffer against maxStorageBufferRange and the largest allocation, named in the error. */
    const struct { const char *what; uint64_t bytes, alloc; } sizes[] = {
        { "rest vertices (max_rest_vertices)", rest_bytes, rest_bytes },
        { "bulge distances (max_rest_vertices)", bulge_bytes, bulge_bytes },
        { "output (max_output_vertices)", out_bytes, out_bytes },
        { "palettes (max_palette_vec4)", pal_bytes, pal_stride * d.frames_in_flight },
        { "instances (max_instances)", inst_bytes, frame_stride * d.frames_in_flight },
        { "work list (max_output_vertices, max_instances)", work_bytes, frame_stride * d.frames_in_flight },
        { "previous positions (max_output_vertices)", prev_bytes, prev_bytes },
        { "rest tangents (max_rest_vertices)", tan_rest_bytes, tan_rest_bytes },
        { "output tangents (max_output_vertices)", tan_out_bytes, tan_out_bytes },
        { "centers of rotation (max_rest_vertices)", cor_bytes, cor_bytes },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i].bytes > range)
            return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                               "%s: %llu bytes, beyond the device's maxStorageBufferRange (%llu)", sizes[i].what,
                               (unsigned long long)sizes[i].bytes, (unsigned long long)range);
        if (sizes[i].alloc > maxa)
            return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                               "%s: %llu bytes in one allocation, beyond the device's maxMemoryAllocationSize (%llu)",
                               sizes[i].what, (unsigned long long)sizes[i].alloc, (unsigned long long)maxa);
    }
    if (max_work > groups || max_work > UINT32_MAX)
        return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                           "%llu workgroups (max_output_vertices, max_instances), beyond the device's "
                           "maxComputeWorkGroupCount x*y (%llu)", (unsigned long long)max_work, (unsigned long long)groups);
    int texel_ok = rest_bytes / 16 <= lim->maxTexelBufferElements && pal_bytes / 16 <= lim->maxTexelBufferElements &&
                   bulge_bytes / SINEW_BULGE_BYTES <= lim->maxTexelBufferElements &&
                   tan_rest_bytes / SINEW_TANGENT_REST_BYTES <= lim->maxTexelBufferElements &&
                   cor_bytes / SINEW_COR_BYTES <= lim->maxTexelBufferElements &&
                   (!d.keep_previous || out_bytes / 8u <= lim->maxTexelBufferElements) &&
                   work_bytes / SINEW_GROUP_BYTES <= lim->maxTexelBufferElements;
    if (d.read_path == SINEW_READ_TEXEL && !texel_ok)
        return snw_sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                           "desc.read_path TEXEL: a buffer exceeds the device's maxTexelBufferElements (%u)",
                           lim->maxTexelBufferElements);

    /* The host's own output buffers: size and alignment (their usage flags cannot be
     * queried in Vulkan: skinner.h lists what they need; validation layers check it). */
    const struct { const char *name; const sinew_buffer_range *b; uint64_t need; bool allowed; const char *needs; } hb[] = {
        { "output_buffer", &d.output_buffer, out_bytes, true, "" },
        { "previous_buffer", &d.previous_buffer, prev_bytes, d.keep_previous, "desc.keep_previous" },
        { "tangent_buffer", &d.tangent_buffer, tan_out_bytes, d.tangents, "desc.tangents" },
    };
    for (size_t i = 0; i < sizeof hb / sizeof hb[0]; i++) {
        const sinew_buffer_range *b = hb[i].b;
        if (!b->buffer) {
            if (b->offset || b->size)
                return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                                   "desc.%s: offset/size given without a buffer", hb[i].name);
            continue;
        }
        if (!hb[i].allowed)
            return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                               "desc.%s given without %s", hb[i].name, hb[i].needs);
        uint64_t al = lim->minStorageBufferOffsetAlignment > 16 ? lim->minStorageBufferOffsetAlignment : 16;
        if (i == 0 && d.keep_previous && lim->minTexelBufferOffsetAlignment > al) al = lim->minTexelBufferOffsetAlignment;
        if (al && b->offset % al)
            return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                               "desc.%s.offset %llu is not a multiple of the device's buffer offset alignment (%llu)",
                               hb[i].name, (unsigned long long)b->offset, (unsigned long long)al);
        if (b->size < hb[i].need)
            return snw_sk_fail(NULL, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                               "desc.%s.size %llu bytes, the capacities need %llu (max_output_vertices %u)", hb[i].name,
                               (unsigned long long)b->size, (unsigned long long)hb[i].need, d.max_output_vertices);
    }

    sinew_skinner *sk = (sinew_skinner *)snw_gpu_alloc(gpu, sizeof *sk);
    if (!sk) return snw_sk_fail(NULL, err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "skinner: out of host memory");
    sk->gpu = gpu;
    sk->d = d;
    sk->out_stride = (uint32_t)out_stride;
    sk->tan_stride = (uint32_t)tan_stride;
    sk->max_work = (uint32_t)max_work;
    sk->pal_slot_bytes = pal_bytes;
    sk->pal_slot_stride = pal_stride;
    sk->inst_bytes = inst_bytes;
    sk->work_offset = work_off;
    sk->work_bytes = work_bytes;
    sk->frame_slot_stride = frame_stride;
    sk->texel_ok = texel_ok;
    sk->last_slot = -1;
    sk->path = d.read_path == SINEW_READ_AUTO ? auto_path(sk) : d.read_path;
    sk->wg_default = snw_default_wg_size(gpu);
    sk->wg_size = sk->wg_default;
    sinew_result r = SINEW_OK;
    sk->meshes = (mesh_rec *)snw_gpu_alloc(gpu, sizeof(mesh_rec) * d.max_meshes);
    sk->free_first = (uint32_t *)snw_gpu_alloc(gpu, sizeof(uint32_t) * ((size_t)d.max_meshes + 2));
    sk->free_slots = (uint32_t *)snw_gpu_alloc(gpu, sizeof(uint32_t) * ((size_t)d.max_meshes + 2));
    if (!sk->meshes || !sk->free_first || !sk->free_slots) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;

    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, rest_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | xfer, 0, local, 0, &sk->rest);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, bulge_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                   xfer, 0, local, 0, &sk->bulge);
    /* Output, previous positions, tangents: the host's buffers where given (checked above). */
    sk->ext_out = d.output_buffer.buffer != VK_NULL_HANDLE;
    sk->ext_prev = d.previous_buffer.buffer != VK_NULL_HANDLE;
    sk->ext_tan = d.tangent_buffer.buffer != VK_NULL_HANDLE;
    r = host_or_own_buffer(gpu, r, &d.output_buffer, out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                           VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | xfer,
                           &sk->output, &sk->out_base);
    r = host_or_own_buffer(gpu, r, &d.previous_buffer, prev_bytes,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | xfer, &sk->previous,
                           &sk->prev_base);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, tan_rest_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                   xfer, 0, local, 0,
                                 &sk->tan_rest);
    r = host_or_own_buffer(gpu, r, &d.tangent_buffer, tan_out_bytes,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | xfer, &sk->tan_out,
                           &sk->tan_base);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, cor_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | xfer,
                                 0, local, 0, &sk->cor);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, pal_stride * d.frames_in_flight, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, host, local, 1, &sk->palette);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, frame_stride * d.frames_in_flight, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, host, local, 1, &sk->frame);
    if (r == SINEW_OK) r = snw_skinner_create_pipelines(sk);
    if (r == SINEW_OK) r = create_descriptors(sk);
    if (r == SINEW_OK) r = create_commands(sk);
    if (r == SINEW_OK) {
        /* Defined contents: zeroed bulge distances and output. */
        VkCommandBuffer cmd;
        r = snw_vk_oneshot_begin(gpu, &cmd);
        if (r == SINEW_OK) {
            gpu->vk.vkCmdFillBuffer(cmd, sk->bulge.buffer, 0, VK_WHOLE_SIZE, 0);
            gpu->vk.vkCmdFillBuffer(cmd, sk->output.buffer, sk->out_base, sk->output.size, 0);
            gpu->vk.vkCmdFillBuffer(cmd, sk->previous.buffer, sk->prev_base, sk->previous.size, 0);
            gpu->vk.vkCmdFillBuffer(cmd, sk->tan_rest.buffer, 0, VK_WHOLE_SIZE, 0);
            gpu->vk.vkCmdFillBuffer(cmd, sk->tan_out.buffer, sk->tan_base, sk->tan_out.size, 0);
            gpu->vk.vkCmdFillBuffer(cmd, sk->cor.buffer, 0, VK_WHOLE_SIZE, 0);
            VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
            mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         0, 1, &mb, 0, NULL, 0, NULL);
            r = snw_vk_oneshot_end(gpu, cmd);
        }
    }
    if (r != SINEW_OK) {
        sinew_skinner_destroy(sk);
        return snw_sk_fail_plain(NULL, err, r, "creating the skinner's buffers, pipelines and command buffers");
    }
    *out = sk;
    return SINEW_OK;
}

uint32_t sinew_skinner_frames_in_flight(const sinew_skinner *sk) { return sk ? sk->d.frames_in_flight : 0; }

void sinew_skinner_last_error(const sinew_skinner *sk, sinew_error_info *out)
{
    if (!out) return;
    if (!sk) {
        snw_error_clear(out);
        out->result = SINEW_ERROR_INVALID_ARGUMENT;
        out->item = SINEW_ITEM_ARGUMENT;
        snprintf(out->message, sizeof out->message, "skinner is NULL");
        return;
    }
    *out = sk->last_error;
}

void snw_skinner_attach(sinew_skinner *sk)
{
    __atomic_add_fetch(&sk->crowds, 1u, __ATOMIC_ACQ_REL);
}

void snw_skinner_detach(sinew_skinner *sk)
{
    __atomic_sub_fetch(&sk->crowds, 1u, __ATOMIC_ACQ_REL);
}

void sinew_skinner_destroy(sinew_skinner *sk)
{
    if (!sk) return;
    uint32_t users = __atomic_load_n(&sk->crowds, __ATOMIC_ACQUIRE);
    if (users > 0) {
        /* API misuse: freeing it would leave them with dangling memory. Nothing is freed. */
        snw_sk_fail(sk, NULL, SINEW_ERROR_IN_USE, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                    "sinew_skinner_destroy: %u crowd(s) or morpher(s) made on it still exist: destroy them first; "
                    "the skinner was not freed", users);
        snw_gpu_log(sk->gpu, 2, "%s", sk->last_error.message);
        return;
    }
    sinew_gpu *gpu = sk->gpu;
    VkDevice dev = gpu->device;
    const VkAllocationCallbacks *vka = SNW_VKA(gpu);
    if (snw_skinner_wait_all(sk) != SINEW_OK) {
        /* A caller fence did not signal in time (never submitted, or a lost
         * submission): wait for the queue instead of hanging on the fence. */
        snw_gpu_log(gpu, 1, "sinew_skinner_destroy: a caller fence did not signal; waiting for the queue instead");
        snw_vk_queue_wait_idle(gpu);
    }
    for (uint32_t s = 0; s < MAXF; s++) {
        if (sk->own_fence[s]) gpu->vk.vkDestroyFence(dev, sk->own_fence[s], vka);
        if (sk->pal_view[s]) gpu->vk.vkDestroyBufferView(dev, sk->pal_view[s], vka);
        if (sk->work_view[s]) gpu->vk.vkDestroyBufferView(dev, sk->work_view[s], vka);
    }
    if (sk->queries) gpu->vk.vkDestroyQueryPool(dev, sk->queries, vka);
    if (sk->pool) gpu->vk.vkDestroyCommandPool(dev, sk->pool, vka);
    if (sk->dpool) gpu->vk.vkDestroyDescriptorPool(dev, sk->dpool, vka);
    if (sk->rest_view) gpu->vk.vkDestroyBufferView(dev, sk->rest_view, vka);
    if (sk->bulge_view) gpu->vk.vkDestroyBufferView(dev, sk->bulge_view, vka);
    if (sk->tan_rest_view) gpu->vk.vkDestroyBufferView(dev, sk->tan_rest_view, vka);
    if (sk->cor_view) gpu->vk.vkDestroyBufferView(dev, sk->cor_view, vka);
    if (sk->out_view) gpu->vk.vkDestroyBufferView(dev, sk->out_view, vka);
    snw_skinner_destroy_pipelines(sk);
    snw_vk_buffer_destroy(gpu, &sk->rest);
    snw_vk_buffer_destroy(gpu, &sk->bulge);
    if (!sk->ext_out) snw_vk_buffer_destroy(gpu, &sk->output);
    if (!sk->ext_prev) snw_vk_buffer_destroy(gpu, &sk->previous);
    snw_vk_buffer_destroy(gpu, &sk->tan_rest);
    if (!sk->ext_tan) snw_vk_buffer_destroy(gpu, &sk->tan_out);
    snw_vk_buffer_destroy(gpu, &sk->cor);
    snw_vk_buffer_destroy(gpu, &sk->palette);
    snw_vk_buffer_destroy(gpu, &sk->frame);
    snw_gpu_free(gpu, sk->meshes);
    snw_gpu_free(gpu, sk->free_first);
    snw_gpu_free(gpu, sk->free_slots);
    snw_gpu_free(gpu, sk);
    return;
}

/* Rest slots for a new mesh: the first freed range that fits, else above the
 * high-water mark. 0 when max_rest_vertices is reached. */
static int rest_alloc(sinew_skinner *sk, uint64_t slots, uint32_t *first)
{
    for (uint32_t i = 0; i < sk->free_count; i++) {
        if (sk->free_slots[i] < slots) continue;
        *first = sk->free_first[i];
        sk->free_first[i] += (uint32_t)slots;
        sk->free_slots[i] -= (uint32_t)slots;
        if (sk->free_slots[i] == 0) {
            memmove(sk->free_first + i, sk->free_first + i + 1, sizeof(uint32_t) * (sk->free_count - i - 1));
            memmove(sk->free_slots + i, sk->free_slots + i + 1, sizeof(uint32_t) * (sk->free_count - i - 1));
            sk->free_count--;
        }
        return 1;
    }
    if ((uint64_t)sk->rest_used + slots > (uint64_t)sk->d.max_rest_vertices * SINEW_REST_SLOTS(4u)) return 0;
    *first = sk->rest_used;
    sk->rest_used += (uint32_t)slots;
    return 1;
}

/* The most slots one allocation can get now. */
static uint64_t rest_largest(const sinew_skinner *sk)
{
    uint64_t best = (uint64_t)sk->d.max_rest_vertices * SINEW_REST_SLOTS(4u) - sk->rest_used;
    for (uint32_t i = 0; i < sk->free_count; i++)
        if (sk->free_slots[i] > best) best = sk->free_slots[i];
    return best;
}

/* Gives a range back: merged with its neighbours; a range ending at the
 * high-water mark lowers it. At most max_meshes + 1 ranges exist. */
static void rest_free(sinew_skinner *sk, uint32_t first, uint32_t slots)
{
    uint32_t i = 0;
    while (i < sk->free_count && sk->free_first[i] < first) i++;
    memmove(sk->free_first + i + 1, sk->free_first + i, sizeof(uint32_t) * (sk->free_count - i));
    memmove(sk->free_slots + i + 1, sk->free_slots + i, sizeof(uint32_t) * (sk->free_count - i));
    sk->free_first[i] = first;
    sk->free_slots[i] = slots;
    sk->free_count++;
    if (i + 1 < sk->free_count && sk->free_first[i] + sk->free_slots[i] == sk->free_first[i + 1]) {
        sk->free_slots[i] += sk->free_slots[i + 1];
        memmove(sk->free_first + i + 1, sk->free_first + i + 2, sizeof(uint32_t) * (sk->free_count - i - 2));
        memmove(sk->free_slots + i + 1, sk->free_slots + i + 2, sizeof(uint32_t) * (sk->free_count - i - 2));
        sk->free_count--;
    }
    if (i > 0 && sk->free_first[i - 1] + sk->free_slots[i - 1] == sk->free_first[i]) {
        sk->free_slots[i - 1] += sk->free_slots[i];
        memmove(sk->free_first + i, sk->free_first + i + 1, sizeof(uint32_t) * (sk->free_count - i - 1));
        memmove(sk->free_slots + i, sk->free_slots + i + 1, sizeof(uint32_t) * (sk->free_count - i - 1));
        sk->free_count--;
    }
    if (sk->free_count && sk->free_first[sk->free_count - 1] + sk->free_slots[sk->free_count - 1] == sk->rest_used) {
        sk->rest_used = sk->free_first[sk->free_count - 1];
        sk->free_count--;
    }
}

/* The id a new mesh gets: the lowest removed one, else the next. */
static uint32_t next_mesh_id(const sinew_skinner *sk)
{
    for (uint32_t i = 0; i < sk->mesh_count; i++)
        if (!sk->meshes[i].live) return i;
    return sk->mesh_count;
}

/* Checks rest vertex v: finite position, joints < joint_count, weights summing to 65535. */
static sinew_result check_vertex(sinew_skinner *sk, sinew_error_info *err, uint32_t v, const float *pos,
                                 const uint16_t *joints, const uint16_t *weights, uint32_t K, uint32_t joint_count)
{
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2]))
        return snw_sk_fail(sk, err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, v, "vertex %u: position (%g, %g, %g) is not finite",
                           v, pos[0], pos[1], pos[2]);
    uint32_t sum = 0;
    for (uint32_t k = 0; k < K; k++) {
        if (joints[k] >= joint_count)
            return snw_sk_fail(sk, err, SINEW_ERROR_JOINT_INDEX, SINEW_ITEM_VERTEX, v,
                               "vertex %u: influence %u names joint %u, the mesh has joint_count %u", v, k, joints[k],
                               joint_count);
        sum += weights[k];
    }
    if (sum != 65535u)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_WEIGHT, SINEW_ITEM_VERTEX, v,
                           "vertex %u: weights sum to %u, not 65535 (pack them with sinew_pack_vertices)", v, sum);
    return SINEW_OK;
}

/* Uploads count per-vertex records to buf, vertex i's at element SINEW_BULGE_INDEX(first + slots * i)
 * (elem bytes each, gaps zeroed): src_bytes from src + src_stride * i, the rest of the element zero.
 * *what names a failed staging allocation. */
static sinew_result upload_spread(sinew_skinner *sk, VkBuffer buf, size_t elem, const void *src, size_t src_stride,
                                  size_t src_bytes, uint32_t first, uint32_t slots, uint32_t count, const char **what)
{
    uint32_t b0 = SINEW_BULGE_INDEX(first), b1 = SINEW_BULGE_INDEX(first + slots * (count - 1u));
    size_t n = (size_t)(b1 - b0 + 1u);
    unsigned char *tmp = (unsigned char *)snw_gpu_alloc(sk->gpu, elem * n);
    if (!tmp) {
        *what = "add_mesh staging";
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    memset(tmp, 0, elem * n);
    for (uint32_t i = 0; i < count; i++)
        memcpy(tmp + elem * (SINEW_BULGE_INDEX(first + slots * i) - b0), (const unsigned char *)src + src_stride * i,
               src_bytes);
    sinew_result r = snw_vk_upload(sk->gpu, buf, (VkDeviceSize)b0 * elem, tmp, (VkDeviceSize)n * elem);
    snw_gpu_free(sk->gpu, tmp);
    return r;
}

sinew_result sinew_skinner_add_mesh(sinew_skinner *sk, const sinew_skinner_mesh_desc *mesh, sinew_mesh_id *mesh_id,
                                    sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!mesh || !mesh_id)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL",
                           !mesh ? "mesh" : "mesh_id");
    if (mesh->vertex_count == 0 || mesh->joint_count == 0)
        return snw_sk_fail(sk, err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, "mesh.%s is 0",
                           mesh->vertex_count == 0 ? "vertex_count" : "joint_count");
    if (!mesh->vertices == !mesh->vertices8)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "exactly one of mesh.vertices and mesh.vertices8 must be set (%s)",
                           mesh->vertices ? "both are" : "neither is");
    if (mesh->joint_count > SINEW_MAX_JOINTS)
        return snw_sk_fail(sk, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "mesh.joint_count %u, at most %u", mesh->joint_count, (unsigned)SINEW_MAX_JOINTS);
    const uint32_t new_id = next_mesh_id(sk);
    if (new_id >= sk->d.max_meshes)
        return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                           "max_meshes (%u) reached", sk->d.max_meshes);
    const int compact = mesh->rest_layout == SINEW_REST_LAYOUT_COMPACT;
    if (mesh->rest_layout != SINEW_REST_LAYOUT_DEFAULT && !compact)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "mesh.rest_layout %d is not a sinew_rest_layout", (int)mesh->rest_layout);
    if (compact && mesh->vertices8)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "the compact rest layout holds 4 influences per vertex: give mesh.vertices, not vertices8 "
                           "(sinew_pack_vertices keeps the 4 largest)");
    if (compact && mesh->joint_count > SINEW_COMPACT_MAX_JOINTS)
        return snw_sk_fail(sk, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "the compact rest layout has 8-bit joint indices: mesh.joint_count %u, at most %u",
                           mesh->joint_count, (unsigned)SINEW_COMPACT_MAX_JOINTS);
    if (compact && mesh->vertex_count > SINEW_COMPACT_MAX_VERTICES)
        return snw_sk_fail(sk, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "the compact rest layout: mesh.vertex_count %u, at most %u", mesh->vertex_count,
                           (unsigned)SINEW_COMPACT_MAX_VERTICES);
    const int has_aux = mesh->bulge_rest || mesh->tangents || mesh->cor_centers;
    uint32_t K = mesh->vertices8 ? 8u : 4u, slots = SINEW_REST_SLOTS(K);
    /* the mesh's rest range; compact: header + vertices, and room for the aux indices (sinew_layout.h) */
    uint64_t total = !compact ? (uint64_t)mesh->vertex_count * slots
                     : has_aux ? 2ull * mesh->vertex_count + 1u
                               : (uint64_t)mesh->vertex_count + SINEW_COMPACT_HEADER_SLOTS;
    uint32_t first = 0; /* uvec4 slot, allocated once the mesh is validated */
    uint64_t largest = rest_largest(sk);
    if (total > largest)
        return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                           "max_rest_vertices (%u): %u vertices%s do not fit in the largest free range (%llu "
                           "4-influence vertices)",
                           sk->d.max_rest_vertices, mesh->vertex_count, K == 8u ? " of 8 influences (1.5 each)" : "",
                           (unsigned long long)(largest / SINEW_REST_SLOTS(4u)));
    if (mesh->tangents && !sk->d.tangents)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "mesh.tangents given, but the skinner was created without desc.tangents");
    if (mesh->cor_centers && !sk->d.cor_centers)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "mesh.cor_centers given, but the skinner was created without desc.cor_centers");
    for (uint32_t i = 0; i < mesh->vertex_count; i++) {
        sinew_result r = K == 8u ? check_vertex(sk, err, i, mesh->vertices8[i].position, mesh->vertices8[i].joints,
                                                mesh->vertices8[i].weights, 8u, mesh->joint_count)
                                 : check_vertex(sk, err, i, mesh->vertices[i].position, mesh->vertices[i].joints,
                                                mesh->vertices[i].weights, 4u, mesh->joint_count);
        if (r != SINEW_OK) return r;
        if (mesh->bulge_rest && !(isfinite(mesh->bulge_rest[i]) && mesh->bulge_rest[i] >= 0.0f))
            return snw_sk_fail(sk, err, mesh->bulge_rest[i] < 0.0f ? SINEW_ERROR_INVALID_ARGUMENT : SINEW_ERROR_NON_FINITE,
                               SINEW_ITEM_VERTEX, i, "vertex %u: bulge rest distance %g (must be finite and >= 0)", i,
                               mesh->bulge_rest[i]);
        if (mesh->tangents && mesh->tangents[i].sign != 1.0f && mesh->tangents[i].sign != -1.0f)
            return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_VERTEX, i,
                               "vertex %u: tangent sign %g (must be exactly 1 or -1)", i, mesh->tangents[i].sign);
        if (mesh->cor_centers && !(isfinite(mesh->cor_centers[3 * (size_t)i]) && isfinite(mesh->cor_centers[3 * (size_t)i + 1]) &&
                                   isfinite(mesh->cor_centers[3 * (size_t)i + 2])))
            return snw_sk_fail(sk, err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, i, "vertex %u: center of rotation is not finite", i);
    }
    if (!rest_alloc(sk, total, &first))
        return snw_sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_rest_vertices (%u) reached",
                           sk->d.max_rest_vertices);
    const char *what = "add_mesh upload";
    sinew_result r = SINEW_OK;
    /* compact: the aux records at aux base + i, inside the indices of the mesh's own slots */
    const uint32_t aux_base = compact ? (first + 1u) >> 1 : 0u;
    uint32_t header[8] = { 0 };
    if (compact) {
        size_t words = 4u * ((size_t)mesh->vertex_count + SINEW_COMPACT_HEADER_SLOTS);
        uint32_t *tmp = (uint32_t *)snw_gpu_alloc(sk->gpu, sizeof(uint32_t) * words);
        sinew_compact_box box;
        if (!tmp) {
            what = "add_mesh staging";
            r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            r = sinew_compact_encode(mesh->vertex_count, mesh->vertices, (sinew_vertex_compact *)(tmp + 8), &box, NULL);
            memcpy(tmp, box.offset, 12);
            tmp[3] = has_aux ? aux_base : 0u;
            memcpy(tmp + 4, box.step, 12);
            tmp[7] = 0u;
            memcpy(header, tmp, sizeof header);
            if (r == SINEW_OK)
                r = snw_vk_upload(sk->gpu, sk->rest.buffer, (VkDeviceSize)first * 16u, tmp, (VkDeviceSize)words * 4u);
            else
                what = "compact encoding";
            snw_gpu_free(sk->gpu, tmp);
        }
    } else {
        const void *src = K == 8u ? (const void *)mesh->vertices8 : (const void *)mesh->vertices;
        r = snw_vk_upload(sk->gpu, sk->rest.buffer, (VkDeviceSize)first * 16u, src,
                          (VkDeviceSize)mesh->vertex_count * slots * 16u);
    }
    /* Vertex i's bulge distance, tangent and center (xyz, w = 0) at SINEW_BULGE_INDEX(first + slots * i):
     * contiguous for 4 influences; for 8, spread over a range no other mesh uses (gaps zero);
     * compact: contiguous from aux_base. */
    if (compact) {
        if (r == SINEW_OK && mesh->bulge_rest)
            r = snw_vk_upload(sk->gpu, sk->bulge.buffer, (VkDeviceSize)aux_base * SINEW_BULGE_BYTES, mesh->bulge_rest,
                              (VkDeviceSize)mesh->vertex_count * SINEW_BULGE_BYTES);
        if (r == SINEW_OK && mesh->tangents)
            r = upload_spread(sk, sk->tan_rest.buffer, SINEW_TANGENT_REST_BYTES, mesh->tangents, sizeof(sinew_tangent),
                              sizeof(sinew_tangent), 2u * aux_base, 2u, mesh->vertex_count, &what);
        if (r == SINEW_OK && mesh->cor_centers)
            r = upload_spread(sk, sk->cor.buffer, SINEW_COR_BYTES, mesh->cor_centers, 3 * sizeof(float),
                              3 * sizeof(float), 2u * aux_base, 2u, mesh->vertex_count, &what);
    } else if (r == SINEW_OK && mesh->bulge_rest) {
        if (K == 4u)
            r = snw_vk_upload(sk->gpu, sk->bulge.buffer, (VkDeviceSize)SINEW_BULGE_INDEX(first) * SINEW_BULGE_BYTES,
                              mesh->bulge_rest, (VkDeviceSize)mesh->vertex_count * SINEW_BULGE_BYTES);
        else
            r = upload_spread(sk, sk->bulge.buffer, SINEW_BULGE_BYTES, mesh->bulge_rest, sizeof(float), sizeof(float),
                              first, slots, mesh->vertex_count, &what);
    }
    if (r == SINEW_OK && mesh->tangents && !compact)
        r = upload_spread(sk, sk->tan_rest.buffer, SINEW_TANGENT_REST_BYTES, mesh->tangents, sizeof(sinew_tangent),
                          sizeof(sinew_tangent), first, slots, mesh->vertex_count, &what);
    if (r == SINEW_OK && mesh->cor_centers && !compact)
        r = upload_spread(sk, sk->cor.buffer, SINEW_COR_BYTES, mesh->cor_centers, 3 * sizeof(float),
                          3 * sizeof(float), first, slots, mesh->vertex_count, &what);
    if (r != SINEW_OK) {
        rest_free(sk, first, (uint32_t)total);
        return snw_sk_fail_plain(sk, err, r, what);
    }
    mesh_rec *m = &sk->meshes[new_id];
    memset(m, 0, sizeof *m);
    m->live = 1;
    m->has_tangents = mesh->tangents != NULL;
    m->has_cor = mesh->cor_centers != NULL;
    m->first = SINEW_BULGE_INDEX(first); /* the baseline kernel's vertex index (4 influences, even slot) */
    m->count = mesh->vertex_count;
    m->joints = mesh->joint_count;
    m->has_bulge = mesh->bulge_rest != NULL;
    m->first_slot = first;
    m->influences = K;
    m->compact = compact ? 1u : 0u;
    m->slots = (uint32_t)total;
    memcpy(m->header, header, sizeof header);
    mesh_id->value = new_id;
    if (new_id == sk->mesh_count) sk->mesh_count++;
    return SINEW_OK;
}

sinew_result sinew_skinner_add_rest_mesh(sinew_skinner *sk, const sinew_rest_mesh *m, sinew_mesh_id *mesh_id,
                                         sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!m) return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "rest mesh is NULL");
    sinew_skinner_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertices = sinew_rest_mesh_vertices(m);
    md.vertices8 = sinew_rest_mesh_vertices8(m);
    md.vertex_count = sinew_rest_mesh_vertex_count(m);
    md.joint_count = sinew_rest_mesh_joint_count(m);
    md.bulge_rest = sinew_rest_mesh_bulge_distances(m);
    md.tangents = sk->d.tangents ? sinew_rest_mesh_tangents(m) : NULL;
    md.cor_centers = sk->d.cor_centers ? sinew_rest_mesh_centers(m) : NULL;
    md.rest_layout = sinew_rest_mesh_rest_layout(m);
    return sinew_skinner_add_mesh(sk, &md, mesh_id, err);
}

void snw_skinner_mesh_ref(sinew_skinner *sk, uint32_t mesh, int delta)
{
    if (mesh < sk->mesh_count) sk->meshes[mesh].refs = (uint32_t)((int)sk->meshes[mesh].refs + delta);
}

void snw_skinner_release_copy(sinew_skinner *sk, uint32_t mesh)
{
    if (!snw_mesh_live(sk, mesh) || !sk->meshes[mesh].owned) return;
    mesh_rec *m = &sk->meshes[mesh];
    rest_free(sk, m->first_slot, m->slots);
    m->live = 0;
    m->owned = 0;
}

sinew_result sinew_skinner_remove_mesh(sinew_skinner *sk, sinew_mesh_id mesh, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return snw_sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!snw_mesh_live(sk, mesh.value))
        return snw_sk_fail(sk, err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MESH, mesh.value, "mesh %u %s", mesh.value,
                           mesh.value < sk->mesh_count ? "was already removed" : "is not a mesh of the skinner");
    mesh_rec *m = &sk->meshes[mesh.value];
    if (m->owned)
        return snw_sk_fail(sk, err, SINEW_ERROR_IN_USE, SINEW_ITEM_MESH, mesh.value,
                           "mesh %u is a morphed copy owned by the morpher", mesh.value);
    if (m->refs)
        return snw_sk_fail(sk, err, SINEW_ERROR_IN_USE, SINEW_ITEM_MESH, mesh.value,
                           "mesh %u is used by %u crowd model(s) or morph set(s): remove those first", mesh.value, m->refs);
    if (sk->in_frame)
        return snw_sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "remove_mesh while a frame is open: end it first");
    /* Frames in flight may still read it: wait for them (bounded, as sinew_skinner_wait). */
    sinew_result r = snw_skinner_wait_all(sk);
    if (r != SINEW_OK)
        return snw_sk_fail(sk, err, r, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                           "remove_mesh: waiting for the frames in flight failed (%s)", sinew_result_string(r));
    rest_free(sk, m->first_slot, m->slots);
    m->live = 0;
    return SINEW_OK;
}

void sinew_skinner_memory(const sinew_skinner *sk, sinew_skinner_memory_report *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!sk) return;
    out->rest_bytes = sk->rest.size;
    out->rest_used_bytes = (uint64_t)sk->rest_used * 16u;
    for (uint32_t i = 0; i < sk->free_count; i++) out->rest_used_bytes -= (uint64_t)sk->free_slots[i] * 16u;
    out->bulge_bytes = sk->bulge.size;
    out->tangent_rest_bytes = sk->d.tangents ? sk->tan_rest.size : 0;
    out->center_bytes = sk->d.cor_centers ? sk->cor.size : 0;
    out->output_bytes = sk->ext_out ? 0 : sk->output.size;
    out->previous_bytes = sk->d.keep_previous && !sk->ext_prev ? sk->previous.size : 0;
    out->tangent_output_bytes = sk->d.tangents && !sk->ext_tan ? sk->tan_out.size : 0;
    out->palette_ring_bytes = sk->palette.size;
    out->frame_ring_bytes = sk->frame.size;
    out->host_buffer_bytes = (sk->ext_out ? sk->output.size : 0) + (sk->ext_prev ? sk->previous.size : 0) +
                             (sk->ext_tan ? sk->tan_out.size : 0);
    out->device_bytes = out->rest_bytes + out->bulge_bytes + sk->tan_rest.size + sk->cor.size +
                        (sk->ext_out ? 0 : sk->output.size) + (sk->ext_prev ? 0 : sk->previous.size) +
                        (sk->ext_tan ? 0 : sk->tan_out.size) + out->palette_ring_bytes + out->frame_ring_bytes;
    uint32_t live = 0;
    for (uint32_t i = 0; i < sk->mesh_count; i++) live += sk->meshes[i].live;
    out->meshes = live;
}

uint32_t sinew_skinner_mesh_influences(const sinew_skinner *sk, sinew_mesh_id mesh)
{
    return sk && snw_mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].influences : 0;
}

uint32_t sinew_skinner_mesh_vertex_count(const sinew_skinner *sk, sinew_mesh_id mesh)
{
    return sk && snw_mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].count : 0;
}

uint32_t sinew_skinner_mesh_joint_count(const sinew_skinner *sk, sinew_mesh_id mesh)
{
    return sk && snw_mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].joints : 0;
}

sinew_read_path sinew_skinner_read_path(const sinew_skinner *sk) { return sk ? sk->path : SINEW_READ_AUTO; }

sinew_result sinew_skinner_set_read_path(sinew_skinner *sk, sinew_read_path path)
{
    if (!sk || (unsigned)path > SINEW_READ_TEXEL) return SINEW_ERROR_INVALID_ARGUMENT;
    if (path == SINEW_READ_TEXEL && !sk->texel_ok) return SINEW_ERROR_LIMIT_EXCEEDED;
    sk->path = path == SINEW_READ_AUTO ? auto_path(sk) : path;
    return SINEW_OK;
}

void sinew_skinner_output_binding(const sinew_skinner *sk, sinew_output_binding *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!sk) return;
    out->buffer = sk->output.buffer;
    out->offset = sk->out_base;
    out->stride = sk->out_stride;
    out->position_format = VK_FORMAT_R32G32B32_SFLOAT;
    out->normal_format = sk->d.output_format == SINEW_OUTPUT_PACKED ? VK_FORMAT_A2B10G10R10_SNORM_PACK32
                                                                   : VK_FORMAT_R32G32B32_SFLOAT;
}

sinew_result sinew_skinner_tangent_binding(const sinew_skinner *sk, sinew_output_binding *out)
{
    if (!sk || !out || !sk->d.tangents) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->buffer = sk->tan_out.buffer;
    out->offset = sk->tan_base;
    out->stride = sk->tan_stride;
    out->position_format = sk->d.output_format == SINEW_OUTPUT_PACKED ? VK_FORMAT_A2B10G10R10_SNORM_PACK32
                                                                      : VK_FORMAT_R32G32B32A32_SFLOAT;
    out->normal_format = VK_FORMAT_UNDEFINED;
    return SINEW_OK;
}

sinew_result sinew_skinner_previous_binding(const sinew_skinner *sk, sinew_output_binding *out)
{
    if (!sk || !out || !sk->d.keep_previous) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->buffer = sk->previous.buffer;
    out->offset = sk->prev_base;
    out->stride = SINEW_PREV_BYTES;
    out->position_format = VK_FORMAT_R32G32B32_SFLOAT;
    out->normal_format = VK_FORMAT_UNDEFINED;
    return SINEW_OK;
}

/* ---- hooks of the morph pass (morph.c, vk_internal.h) ---- */

sinew_result snw_skinner_set_prepass(sinew_skinner *sk, snw_skinner_prepass_fn fn, void *user)
{
    if (fn && sk->prepass) return SINEW_ERROR_IN_USE;
    sk->prepass = fn;
    sk->prepass_user = fn ? user : NULL;
    return SINEW_OK;
}

void snw_skinner_rest_buffer(const sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size)
{
    *buffer = sk->rest.buffer;
    *size = sk->rest.size;
}

sinew_result snw_skinner_mesh_layout(const sinew_skinner *sk, uint32_t mesh, snw_mesh_layout *out)
{
    if (!snw_mesh_live(sk, mesh)) return SINEW_ERROR_NOT_FOUND;
    const mesh_rec *m = &sk->meshes[mesh];
    out->first_slot = m->first_slot;
    out->vertex_count = m->count;
    out->joint_count = m->joints;
    out->rest_slots = SINEW_REST_SLOTS(m->influences);
    out->has_bulge = m->has_bulge;
    out->has_tangents = m->has_tangents;
    out->compact = m->compact;
    return SINEW_OK;
}

void snw_skinner_bulge_buffer(const sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size)
{
    *buffer = sk->bulge.buffer;
    *size = sk->bulge.size;
}

void snw_skinner_tangent_rest_buffer(const sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size)
{
    *buffer = sk->tan_rest.buffer;
    *size = sk->tan_rest.size;
}

uint32_t snw_skinner_frames_in_flight(const sinew_skinner *sk) { return sk->d.frames_in_flight; }

sinew_result snw_skinner_add_copy(sinew_skinner *sk, uint32_t base, uint32_t *copy)
{
    if (!snw_mesh_live(sk, base)) return SINEW_ERROR_NOT_FOUND;
    const uint32_t new_id = next_mesh_id(sk);
    if (new_id >= sk->d.max_meshes) return SINEW_ERROR_CAPACITY;
    mesh_rec b = sk->meshes[base];
    if (b.compact) return SINEW_ERROR_INVALID_ARGUMENT; /* the morph pass writes the default layout */
    uint64_t slots = b.slots;
    uint32_t first;
    if (!rest_alloc(sk, slots, &first)) return SINEW_ERROR_CAPACITY;
    /* The copy starts as the base: rest vertices and bulge distances (the
     * morph pass later rewrites only the positions/normals of moved vertices). */
    sinew_gpu *gpu = sk->gpu;
    VkCommandBuffer cmd;
    sinew_result r = snw_vk_oneshot_begin(gpu, &cmd);
    if (r != SINEW_OK) {
        rest_free(sk, first, (uint32_t)slots);
        return r;
    }
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    VkBufferCopy c = { (VkDeviceSize)b.first_slot * 16u, (VkDeviceSize)first * 16u, slots * 16u };
    gpu->vk.vkCmdCopyBuffer(cmd, sk->rest.buffer, sk->rest.buffer, 1, &c);
    for (int part = 0; part < 3; part++) {
        /* Bulge distances, tangents and centers sit at SINEW_BULGE_INDEX(slot) of each vertex's first slot. */
        if (part == 0 ? !b.has_bulge : part == 1 ? !b.has_tangents : !b.has_cor) continue;
        VkBuffer pb = part == 0 ? sk->bulge.buffer : part == 1 ? sk->tan_rest.buffer : sk->cor.buffer;
        VkDeviceSize eb = part == 0 ? SINEW_BULGE_BYTES : part == 1 ? SINEW_TANGENT_REST_BYTES : SINEW_COR_BYTES;
        uint32_t rs = SINEW_REST_SLOTS(b.influences);
        if (rs == 2u) {
            VkBufferCopy bc = { (VkDeviceSize)SINEW_BULGE_INDEX(b.first_slot) * eb,
                                (VkDeviceSize)SINEW_BULGE_INDEX(first) * eb, (VkDeviceSize)b.count * eb };
            gpu->vk.vkCmdCopyBuffer(cmd, pb, pb, 1, &bc);
        } else {
            for (uint32_t i = 0; i < b.count; i++) {
                VkBufferCopy bc = { (VkDeviceSize)SINEW_BULGE_INDEX(b.first_slot + i * rs) * eb,
                                    (VkDeviceSize)SINEW_BULGE_INDEX(first + i * rs) * eb, eb };
                gpu->vk.vkCmdCopyBuffer(cmd, pb, pb, 1, &bc);
            }
        }
    }
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    r = snw_vk_oneshot_end(gpu, cmd);
    if (r != SINEW_OK) {
        rest_free(sk, first, (uint32_t)slots);
        return r;
    }
    mesh_rec *m = &sk->meshes[new_id];
    *m = b;
    m->first = SINEW_BULGE_INDEX(first);
    m->first_slot = first;
    m->refs = 0;
    m->owned = 1; /* the morpher's: the host cannot remove it */
    *copy = new_id;
    if (new_id == sk->mesh_count) sk->mesh_count++;
    return SINEW_OK;
}

sinew_gpu *snw_skinner_gpu(const sinew_skinner *sk) { return sk->gpu; }
