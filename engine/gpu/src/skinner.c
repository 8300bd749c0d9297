/* Sinew GPU skinner: rest meshes in one buffer, a ring of palette and
 * instance/work-list slots in persistently mapped memory, one compute dispatch
 * per frame for every character. Layout constants: shaders/sinew_layout.h. */
#include <sinew/linalg.h>
#include "vk_internal.h"
#include "error_internal.h"
#include "sinew_layout.h"
#include <sinew/skinner.h>
#include <sinew/palette.h>
#include <sinew/debug.h>

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct mesh_rec {
    uint32_t first, count, joints, has_bulge;
    uint32_t first_slot;    /* first uvec4 slot in the rest buffer */
    uint32_t influences;    /* 4 or 8 */
    uint32_t has_tangents;
    uint32_t has_cor;       /* centers of rotation uploaded (sinew_skinner_mesh_desc.cor_centers) */
    uint32_t live;          /* 0: removed (sinew_skinner_remove_mesh), the id is free for a later add */
    uint32_t refs;          /* crowd models and morph sets using it (snw_skinner_mesh_ref) */
    uint32_t owned;         /* a morpher's copy: not removable by the host */
} mesh_rec;

/* Variants of skin.comp: kernel kind x bulge (none, outer, outer + inner) x influences (4, 8), then x
 * previous-position mode (keep, reset; one mode without keep_previous), then x
 * tangents (the mesh has them). */
#define SNW_BASE_VARIANTS (SINEW_KK_COUNT * 3u * 2u)
#define SNW_VARIANTS (SNW_BASE_VARIANTS * 2u * 2u)
/* Pipelines: variant x grid/record x storage/texel x workgroup size (64, 128, 256). */
#define SNW_WG_CHOICES 3u
#define SNW_PIPES (SNW_VARIANTS * 2u * 2u * SNW_WG_CHOICES)

/* One planned dispatch of a frame. */
typedef struct snw_dispatch {
    uint32_t variant, grid;
    uint32_t push[SINEW_PUSH_WORDS];
    uint32_t gx, gy, gz;
} snw_dispatch;

/* The instance record of sinew_layout.h (SINEW_INST_*), read by skin.comp as uint words. */
typedef struct gpu_instance {
    uint32_t rest_first, vertex_count, palette_offset, output_offset;
    uint32_t joint_count, method, flags, stride;
} gpu_instance;

/* The push constants of sinew_layout.h (SINEW_PUSH_*). */
typedef struct gpu_push {
    uint32_t work_count, grid_x, pad[SINEW_PUSH_WORDS - 2];
} gpu_push;

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

#define MAXF SINEW_MAX_FRAMES_IN_FLIGHT

struct sinew_skinner {
    sinew_gpu *gpu;
    sinew_skinner_desc d;
    uint32_t out_stride;
    uint32_t tan_stride;          /* bytes per output tangent: SINEW_TANGENT_OUT_[PACKED_]BYTES */
    uint32_t max_work;
    VkDeviceSize pal_slot_bytes, pal_slot_stride;
    VkDeviceSize inst_bytes, work_offset, work_bytes, frame_slot_stride;
    snw_vk_buffer rest, bulge, output, palette, frame;
    snw_vk_buffer previous;       /* keep_previous: SINEW_PREV_BYTES per output vertex; else 16 B dummy */
    snw_vk_buffer tan_rest, tan_out; /* tangents: per rest vertex (SINEW_BULGE_INDEX) / output vertex; else dummies */
    snw_vk_buffer cor;            /* cor_centers: SINEW_COR_BYTES per rest vertex (SINEW_BULGE_INDEX); else a dummy */
    VkBufferView rest_view, pal_view[MAXF], bulge_view, tan_rest_view, cor_view, out_view, work_view[MAXF]; /* texel views (texel read path) */
    VkShaderModule shader, shader_base;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe[SNW_PIPES];   /* variant pipelines, created at first use (pipe_index) */
    VkPipeline pipe_base[2];      /* baseline kernel: [0] storage reads, [1] texel reads */
    sinew_debug_kernel kernel;    /* sinew_debug_set_kernel */
    uint32_t wg_size, wg_default; /* variant kernels' workgroup size */
    snw_dispatch disp[MAXF][SNW_VARIANTS];
    uint32_t disp_count[MAXF];
    int baseline[MAXF];           /* the slot's frame uses the baseline kernel */
    VkDescriptorPool dpool;
    VkDescriptorSet sets[MAXF];
    VkQueryPool queries;
    VkCommandPool pool;
    VkCommandBuffer cmd[MAXF];
    VkFence own_fence[MAXF];
    int own_pending[MAXF];
    VkFence caller_fence[MAXF];
    int has_times[MAXF];
    uint32_t work_count[MAXF];
    uint32_t slot;
    int in_frame, instances_set;
    int last_slot;
    uint64_t serial[MAXF];  /* frame number last ended on each slot */
    uint64_t serial_next;
    uint64_t last_ms_serial;/* frame whose GPU time last_ms is */
    double last_ms;
    int have_last_ms;
    mesh_rec *meshes;
    uint32_t mesh_count, rest_used;   /* ids handed out (live or removed); rest_used: uvec4 slots, high-water mark */
    uint32_t *free_first, *free_slots, free_count; /* freed rest ranges below rest_used, sorted, coalesced */
    int texel_ok;
    sinew_read_path path;
    uint32_t max_grid_x;    /* sinew_debug_set_max_grid_x; 0 = the device limit */
    uint32_t crowds;        /* crowds made on this skinner (atomic) */
    snw_skinner_prepass_fn prepass; /* morph pass (morph.c), recorded by sinew_skinner_record before its dispatches */
    void *prepass_user;
    sinew_error_info last_error;    /* sinew_skinner_last_error */
    /* Where output, previous and tangent output start in their buffers: the host's
     * offsets when it gave its own buffers (desc.*_buffer), else 0. Host buffers
     * are never destroyed here (ext_* set). */
    VkDeviceSize out_base, prev_base, tan_base;
    int ext_out, ext_prev, ext_tan;
};

/* Fills err (may be NULL) and the skinner's last error (sk may be NULL) and returns r. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
static sinew_result sk_fail(sinew_skinner *sk, sinew_error_info *err, sinew_result r, sinew_item_kind item,
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

/* A failure reported by a lower layer (Vulkan, allocation) without detail. */
static sinew_result sk_fail_plain(sinew_skinner *sk, sinew_error_info *err, sinew_result r, const char *what)
{
    return sk_fail(sk, err, r, r == SINEW_ERROR_OUT_OF_DEVICE_MEMORY || r == SINEW_ERROR_DEVICE_LOST ||
                                       r == SINEW_ERROR_VULKAN ? SINEW_ITEM_DEVICE : SINEW_ITEM_NONE,
                   UINT32_MAX, "%s: %s", what, sinew_result_string(r));
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

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

/* Stages of Sinew's own one-shot submissions that touch the output (read-backs, poison). */
static VkPipelineStageFlags queue_stages(const sinew_gpu *gpu)
{
    VkPipelineStageFlags s = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    if (gpu->queue_flags & VK_QUEUE_GRAPHICS_BIT)
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

static sinew_read_path auto_path(const sinew_skinner *sk)
{
    if (sk->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && sk->texel_ok) return SINEW_READ_TEXEL;
    return SINEW_READ_STORAGE;
}

static sinew_result make_pipeline(sinew_skinner *sk, VkShaderModule module, const uint32_t *spec,
                                  const VkSpecializationMapEntry *me, uint32_t n, VkPipeline *out)
{
    sinew_gpu *gpu = sk->gpu;
    VkSpecializationInfo si = { n, me, n * sizeof(uint32_t), spec };
    VkComputePipelineCreateInfo ci = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = &si;
    ci.layout = sk->layout;
    VkResult vr = gpu->vk.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &ci, SNW_VKA(gpu), out);
    if (vr != VK_SUCCESS) {
        *out = VK_NULL_HANDLE;
        return snw_vk_result(vr);
    }
    return SINEW_OK;
}

static uint32_t wg_choice(uint32_t wg) { return wg == 256u ? 2u : wg == 128u ? 1u : 0u; }

static uint32_t pipe_index(uint32_t variant, uint32_t grid, uint32_t texel, uint32_t wg)
{
    return ((variant * 2u + grid) * 2u + texel) * SNW_WG_CHOICES + wg_choice(wg);
}

/* variant = base + SNW_BASE_VARIANTS * (reset + 2 * tangents), base = (kind * 3 + bulge) * 2 + (influences == 8),
 * bulge 0 none, 1 the correction, 2 with the inner push;
 * reset only with keep_previous. */
static uint32_t variant_of(const sinew_skinner *sk, const sinew_instance *in, const mesh_rec *mr)
{
    uint32_t influences = mr->influences;
    sinew_method m = in->method;
    uint32_t kind = m == SINEW_METHOD_LBS ? SINEW_KK_LBS : m == SINEW_METHOD_DQS ? SINEW_KK_DQS
                    : m == SINEW_METHOD_COR ? SINEW_KK_COR
                    : sinew_method_uses_centers(m) ? SINEW_KK_COR_SCALE /* the three CoR-with-scale methods */
                    : SINEW_KK_DQS_SCALE;
    uint32_t bulge = !(in->flags & SINEW_SKIN_BULGE_CORRECTION) ? 0u : (in->flags & SINEW_SKIN_BULGE_INNER) ? 2u : 1u;
    uint32_t base = (kind * 3u + bulge) * 2u + (influences == 8u ? 1u : 0u);
    return base + ((sk->d.keep_previous && in->reset_previous) ? SNW_BASE_VARIANTS : 0u) +
           (mr->has_tangents ? 2u * SNW_BASE_VARIANTS : 0u);
}

/* The pipeline of a variant, created at its first use (compiled once per skinner). */
static sinew_result get_pipeline(sinew_skinner *sk, uint32_t variant, uint32_t grid, uint32_t texel, VkPipeline *out)
{
    uint32_t i = pipe_index(variant, grid, texel, sk->wg_size);
    if (!sk->pipe[i]) {
        uint32_t base = variant % SNW_BASE_VARIANTS;
        uint32_t prev = !sk->d.keep_previous ? SINEW_PREV_NONE
                        : ((variant / SNW_BASE_VARIANTS) & 1u) ? SINEW_PREV_RESET : SINEW_PREV_KEEP;
        uint32_t tangents = variant / (2u * SNW_BASE_VARIANTS);
        uint32_t bulge = (base / 2u) % 3u;
        uint32_t spec[10] = { sk->d.output_format == SINEW_OUTPUT_PACKED ? 1u : 0u, texel, base / 6u,
                              bulge != 0u, (base & 1u) ? 8u : 4u, grid, sk->wg_size, prev, tangents, bulge == 2u };
        VkSpecializationMapEntry me[10] = {
            { SINEW_SPEC_OUTPUT_PACKED, 0, 4 }, { SINEW_SPEC_READ_TEXEL, 4, 4 }, { SINEW_SPEC_METHOD, 8, 4 },
            { SINEW_SPEC_BULGE, 12, 4 },        { SINEW_SPEC_INFLUENCES, 16, 4 }, { SINEW_SPEC_GRID, 20, 4 },
            { SINEW_SPEC_WG_SIZE, 24, 4 },      { SINEW_SPEC_PREVIOUS, 28, 4 }, { SINEW_SPEC_TANGENTS, 32, 4 },
            { SINEW_SPEC_BULGE_INNER, 36, 4 },
        };
        sinew_result r = make_pipeline(sk, sk->shader, spec, me, 10, &sk->pipe[i]);
        if (r != SINEW_OK) return r;
    }
    *out = sk->pipe[i];
    return SINEW_OK;
}

/* Workgroup size of the variant kernels by device type, chosen by measurement
 * (sinew-bench, bench/RESULTS.md). */
static uint32_t default_wg_size(const sinew_gpu *gpu)
{
    return gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 64u : 64u;
}

static sinew_result create_pipelines(sinew_skinner *sk)
{
    sinew_gpu *gpu = sk->gpu;
    VkDevice dev = gpu->device;
    sinew_result r = snw_vk_shader(gpu, snw_spv_skin_comp, snw_spv_skin_comp_size, &sk->shader);
    if (r == SINEW_OK)
        r = snw_vk_shader(gpu, snw_spv_skin_baseline_comp, snw_spv_skin_baseline_comp_size, &sk->shader_base);
    if (r != SINEW_OK) return r;
    VkDescriptorSetLayoutBinding b[SINEW_BIND_COUNT];
    memset(b, 0, sizeof b);
    for (uint32_t i = 0; i < SINEW_BIND_COUNT; i++) {
        b[i].binding = i;
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        b[i].descriptorType = (i == SINEW_BIND_REST_TEXEL || i == SINEW_BIND_PALETTE_TEXEL || i == SINEW_BIND_BULGE_TEXEL ||
                               i == SINEW_BIND_TANGENT_REST_TEXEL || i == SINEW_BIND_COR_TEXEL || i == SINEW_BIND_OUTPUT_TEXEL ||
                               i == SINEW_BIND_WORK_TEXEL)
                                  ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                  : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    }
    VkDescriptorSetLayoutCreateInfo dci = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO };
    dci.bindingCount = SINEW_BIND_COUNT;
    dci.pBindings = b;
    VkResult vr = gpu->vk.vkCreateDescriptorSetLayout(dev, &dci, SNW_VKA(gpu), &sk->dsl);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, SINEW_PUSH_BYTES };
    VkPipelineLayoutCreateInfo pci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
    pci.setLayoutCount = 1;
    pci.pSetLayouts = &sk->dsl;
    pci.pushConstantRangeCount = 1;
    pci.pPushConstantRanges = &pcr;
    vr = gpu->vk.vkCreatePipelineLayout(dev, &pci, SNW_VKA(gpu), &sk->layout);
    return snw_vk_result(vr);
}

/* The baseline kernel's pipeline, created at its first use. */
static sinew_result get_baseline_pipeline(sinew_skinner *sk, uint32_t texel, VkPipeline *out)
{
    if (!sk->pipe_base[texel]) {
        uint32_t spec[2] = { sk->d.output_format == SINEW_OUTPUT_PACKED ? 1u : 0u, texel };
        VkSpecializationMapEntry me[2] = { { SINEW_SPEC_OUTPUT_PACKED, 0, 4 }, { SINEW_SPEC_READ_TEXEL, 4, 4 } };
        sinew_result r = make_pipeline(sk, sk->shader_base, spec, me, 2, &sk->pipe_base[texel]);
        if (r != SINEW_OK) return r;
    }
    *out = sk->pipe_base[texel];
    return SINEW_OK;
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
    if (r == SINEW_OK)
        r = create_view(gpu, sk->output.buffer, VK_FORMAT_R32G32_UINT, sk->out_base, sk->output.size, &sk->out_view);
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
    VkDescriptorPoolCreateInfo pci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
    pci.maxSets = F;
    pci.poolSizeCount = 2;
    pci.pPoolSizes = ps;
    VkResult vr = gpu->vk.vkCreateDescriptorPool(gpu->device, &pci, SNW_VKA(gpu), &sk->dpool);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkDescriptorSetLayout layouts[MAXF];
    for (uint32_t s = 0; s < F; s++) layouts[s] = sk->dsl;
    VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
    ai.descriptorPool = sk->dpool;
    ai.descriptorSetCount = F;
    ai.pSetLayouts = layouts;
    vr = gpu->vk.vkAllocateDescriptorSets(gpu->device, &ai, sk->sets);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
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
        VkWriteDescriptorSet w[SINEW_BIND_COUNT];
        memset(w, 0, sizeof w);
        for (uint32_t i = 0; i < SINEW_BIND_COUNT; i++) {
            w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
            w[i].dstSet = sk->sets[s];
            w[i].dstBinding = i;
            w[i].descriptorCount = 1;
            if (i == SINEW_BIND_REST_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->rest_view;
            } else if (i == SINEW_BIND_BULGE_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->bulge_view;
            } else if (i == SINEW_BIND_TANGENT_REST_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->tan_rest_view;
            } else if (i == SINEW_BIND_COR_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->cor_view;
            } else if (i == SINEW_BIND_WORK_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->work_view[s];
            } else if (i == SINEW_BIND_OUTPUT_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->out_view;
            } else if (i == SINEW_BIND_PALETTE_TEXEL) {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
                w[i].pTexelBufferView = &sk->pal_view[s];
            } else {
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
                w[i].pBufferInfo = &bi[i];
            }
        }
        gpu->vk.vkUpdateDescriptorSets(gpu->device, SINEW_BIND_COUNT, w, 0, NULL);
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
        qci.queryCount = 2 * F;
        vr = gpu->vk.vkCreateQueryPool(gpu->device, &qci, SNW_VKA(gpu), &sk->queries);
        if (vr != VK_SUCCESS) return snw_vk_result(vr);
    }
    return SINEW_OK;
}

sinew_result sinew_skinner_create(sinew_gpu *gpu, const sinew_skinner_desc *desc, sinew_skinner **out,
                                  sinew_error_info *err)
{
    snw_error_clear(err);
    if (!out) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    *out = NULL;
    if (!gpu) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "gpu is NULL");
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
        return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "desc.output_format %u is not a sinew_output_format", (unsigned)d.output_format);
    if ((unsigned)d.read_path > SINEW_READ_TEXEL)
        return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "desc.read_path %u is not a sinew_read_path", (unsigned)d.read_path);
    if (d.frames_in_flight > MAXF)
        return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "desc.frames_in_flight %u, at most %u", d.frames_in_flight, MAXF);
    if (d.max_meshes > (1u << 24))
        return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
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
            return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                           "%s: %llu bytes, beyond the device's maxStorageBufferRange (%llu)", sizes[i].what,
                           (unsigned long long)sizes[i].bytes, (unsigned long long)range);
        if (sizes[i].alloc > maxa)
            return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                           "%s: %llu bytes in one allocation, beyond the device's maxMemoryAllocationSize (%llu)",
                           sizes[i].what, (unsigned long long)sizes[i].alloc, (unsigned long long)maxa);
    }
    if (max_work > groups || max_work > UINT32_MAX)
        return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
                       "%llu workgroups (max_output_vertices, max_instances), beyond the device's "
                       "maxComputeWorkGroupCount x*y (%llu)", (unsigned long long)max_work, (unsigned long long)groups);
    int texel_ok = rest_bytes / 16 <= lim->maxTexelBufferElements && pal_bytes / 16 <= lim->maxTexelBufferElements &&
                   bulge_bytes / SINEW_BULGE_BYTES <= lim->maxTexelBufferElements &&
                   tan_rest_bytes / SINEW_TANGENT_REST_BYTES <= lim->maxTexelBufferElements &&
                   cor_bytes / SINEW_COR_BYTES <= lim->maxTexelBufferElements &&
                   (!d.keep_previous || out_bytes / 8u <= lim->maxTexelBufferElements) &&
                   work_bytes / SINEW_GROUP_BYTES <= lim->maxTexelBufferElements;
    if (d.read_path == SINEW_READ_TEXEL && !texel_ok)
        return sk_fail(NULL, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_DEVICE, UINT32_MAX,
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
                return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                               "desc.%s: offset/size given without a buffer", hb[i].name);
            continue;
        }
        if (!hb[i].allowed)
            return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.%s given without %s", hb[i].name, hb[i].needs);
        uint64_t al = lim->minStorageBufferOffsetAlignment > 16 ? lim->minStorageBufferOffsetAlignment : 16;
        if (i == 0 && lim->minTexelBufferOffsetAlignment > al) al = lim->minTexelBufferOffsetAlignment;
        if (al && b->offset % al)
            return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                           "desc.%s.offset %llu is not a multiple of the device's buffer offset alignment (%llu)",
                           hb[i].name, (unsigned long long)b->offset, (unsigned long long)al);
        if (b->size < hb[i].need)
            return sk_fail(NULL, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                           "desc.%s.size %llu bytes, the capacities need %llu (max_output_vertices %u)", hb[i].name,
                           (unsigned long long)b->size, (unsigned long long)hb[i].need, d.max_output_vertices);
    }

    sinew_skinner *sk = (sinew_skinner *)snw_gpu_alloc(gpu, sizeof *sk);
    if (!sk) return sk_fail(NULL, err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "skinner: out of host memory");
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
    sk->wg_default = default_wg_size(gpu);
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
    if (sk->ext_out) {
        sk->output.buffer = d.output_buffer.buffer;
        sk->output.size = out_bytes;
        sk->out_base = d.output_buffer.offset;
    } else if (r == SINEW_OK) {
        r = snw_vk_buffer_create(gpu, out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | xfer, 0, local, 0, &sk->output);
    }
    if (sk->ext_prev) {
        sk->previous.buffer = d.previous_buffer.buffer;
        sk->previous.size = prev_bytes;
        sk->prev_base = d.previous_buffer.offset;
    } else if (r == SINEW_OK) {
        r = snw_vk_buffer_create(gpu, prev_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | xfer, 0, local, 0, &sk->previous);
    }
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, tan_rest_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                   xfer, 0, local, 0,
                                 &sk->tan_rest);
    if (sk->ext_tan) {
        sk->tan_out.buffer = d.tangent_buffer.buffer;
        sk->tan_out.size = tan_out_bytes;
        sk->tan_base = d.tangent_buffer.offset;
    } else if (r == SINEW_OK) {
        r = snw_vk_buffer_create(gpu, tan_out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | xfer, 0, local, 0, &sk->tan_out);
    }
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, cor_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | xfer,
                                 0, local, 0, &sk->cor);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, pal_stride * d.frames_in_flight, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, host, local, 1, &sk->palette);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, frame_stride * d.frames_in_flight, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, host, local, 1, &sk->frame);
    if (r == SINEW_OK) r = create_pipelines(sk);
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
        return sk_fail_plain(NULL, err, r, "creating the skinner's buffers, pipelines and command buffers");
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

static sinew_result wait_all(sinew_skinner *sk);

void sinew_skinner_destroy(sinew_skinner *sk)
{
    if (!sk) return;
    uint32_t users = __atomic_load_n(&sk->crowds, __ATOMIC_ACQUIRE);
    if (users > 0) {
        /* API misuse: freeing it would leave them with dangling memory. Nothing is freed. */
        sk_fail(sk, NULL, SINEW_ERROR_IN_USE, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                "sinew_skinner_destroy: %u crowd(s) or morpher(s) made on it still exist: destroy them first; "
                "the skinner was not freed", users);
        snw_gpu_log(sk->gpu, 2, "%s", sk->last_error.message);
        return;
    }
    sinew_gpu *gpu = sk->gpu;
    VkDevice dev = gpu->device;
    const VkAllocationCallbacks *vka = SNW_VKA(gpu);
    if (wait_all(sk) != SINEW_OK) {
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
    for (uint32_t t = 0; t < SNW_PIPES; t++)
        if (sk->pipe[t]) gpu->vk.vkDestroyPipeline(dev, sk->pipe[t], vka);
    for (int t = 0; t < 2; t++)
        if (sk->pipe_base[t]) gpu->vk.vkDestroyPipeline(dev, sk->pipe_base[t], vka);
    if (sk->layout) gpu->vk.vkDestroyPipelineLayout(dev, sk->layout, vka);
    if (sk->dsl) gpu->vk.vkDestroyDescriptorSetLayout(dev, sk->dsl, vka);
    snw_vk_shader_destroy(gpu, sk->shader);
    snw_vk_shader_destroy(gpu, sk->shader_base);
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

static int mesh_live(const sinew_skinner *sk, uint32_t id) { return id < sk->mesh_count && sk->meshes[id].live; }

/* Checks rest vertex v: finite position, joints < joint_count, weights summing to 65535. */
static sinew_result check_vertex(sinew_skinner *sk, sinew_error_info *err, uint32_t v, const float *pos,
                                 const uint16_t *joints, const uint16_t *weights, uint32_t K, uint32_t joint_count)
{
    if (!isfinite(pos[0]) || !isfinite(pos[1]) || !isfinite(pos[2]))
        return sk_fail(sk, err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, v, "vertex %u: position (%g, %g, %g) is not finite",
                       v, pos[0], pos[1], pos[2]);
    uint32_t sum = 0;
    for (uint32_t k = 0; k < K; k++) {
        if (joints[k] >= joint_count)
            return sk_fail(sk, err, SINEW_ERROR_JOINT_INDEX, SINEW_ITEM_VERTEX, v,
                           "vertex %u: influence %u names joint %u, the mesh has joint_count %u", v, k, joints[k],
                           joint_count);
        sum += weights[k];
    }
    if (sum != 65535u)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_WEIGHT, SINEW_ITEM_VERTEX, v,
                       "vertex %u: weights sum to %u, not 65535 (pack them with sinew_pack_vertices)", v, sum);
    return SINEW_OK;
}

sinew_result sinew_skinner_add_mesh(sinew_skinner *sk, const sinew_skinner_mesh_desc *mesh, sinew_mesh_id *mesh_id,
                                    sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!mesh || !mesh_id)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL",
                       !mesh ? "mesh" : "mesh_id");
    if (mesh->vertex_count == 0 || mesh->joint_count == 0)
        return sk_fail(sk, err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, "mesh.%s is 0",
                       mesh->vertex_count == 0 ? "vertex_count" : "joint_count");
    if (!mesh->vertices == !mesh->vertices8)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "exactly one of mesh.vertices and mesh.vertices8 must be set (%s)",
                       mesh->vertices ? "both are" : "neither is");
    if (mesh->joint_count > SINEW_MAX_JOINTS)
        return sk_fail(sk, err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "mesh.joint_count %u, at most %u", mesh->joint_count, (unsigned)SINEW_MAX_JOINTS);
    const uint32_t new_id = next_mesh_id(sk);
    if (new_id >= sk->d.max_meshes)
        return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                       "max_meshes (%u) reached", sk->d.max_meshes);
    uint32_t K = mesh->vertices8 ? 8u : 4u, slots = SINEW_REST_SLOTS(K);
    uint32_t first = 0; /* uvec4 slot, allocated once the mesh is validated */
    uint64_t largest = rest_largest(sk);
    if ((uint64_t)mesh->vertex_count * slots > largest)
        return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                       "max_rest_vertices (%u): %u vertices%s do not fit in the largest free range (%llu "
                       "4-influence vertices)",
                       sk->d.max_rest_vertices, mesh->vertex_count, K == 8u ? " of 8 influences (1.5 each)" : "",
                       (unsigned long long)(largest / SINEW_REST_SLOTS(4u)));
    if (mesh->tangents && !sk->d.tangents)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "mesh.tangents given, but the skinner was created without desc.tangents");
    if (mesh->cor_centers && !sk->d.cor_centers)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "mesh.cor_centers given, but the skinner was created without desc.cor_centers");
    for (uint32_t i = 0; i < mesh->vertex_count; i++) {
        sinew_result r = K == 8u ? check_vertex(sk, err, i, mesh->vertices8[i].position, mesh->vertices8[i].joints,
                                                mesh->vertices8[i].weights, 8u, mesh->joint_count)
                                 : check_vertex(sk, err, i, mesh->vertices[i].position, mesh->vertices[i].joints,
                                                mesh->vertices[i].weights, 4u, mesh->joint_count);
        if (r != SINEW_OK) return r;
        if (mesh->bulge_rest && !(isfinite(mesh->bulge_rest[i]) && mesh->bulge_rest[i] >= 0.0f))
            return sk_fail(sk, err, mesh->bulge_rest[i] < 0.0f ? SINEW_ERROR_INVALID_ARGUMENT : SINEW_ERROR_NON_FINITE,
                           SINEW_ITEM_VERTEX, i, "vertex %u: bulge rest distance %g (must be finite and >= 0)", i,
                           mesh->bulge_rest[i]);
        if (mesh->tangents && mesh->tangents[i].sign != 1.0f && mesh->tangents[i].sign != -1.0f)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_VERTEX, i,
                           "vertex %u: tangent sign %g (must be exactly 1 or -1)", i, mesh->tangents[i].sign);
        if (mesh->cor_centers && !(isfinite(mesh->cor_centers[3 * (size_t)i]) && isfinite(mesh->cor_centers[3 * (size_t)i + 1]) &&
                                   isfinite(mesh->cor_centers[3 * (size_t)i + 2])))
            return sk_fail(sk, err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, i, "vertex %u: center of rotation is not finite", i);
    }
    if (!rest_alloc(sk, (uint64_t)mesh->vertex_count * slots, &first))
        return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_rest_vertices (%u) reached",
                       sk->d.max_rest_vertices);
    const void *src = K == 8u ? (const void *)mesh->vertices8 : (const void *)mesh->vertices;
    sinew_result r = snw_vk_upload(sk->gpu, sk->rest.buffer, (VkDeviceSize)first * 16u, src,
                                   (VkDeviceSize)mesh->vertex_count * slots * 16u);
    if (r == SINEW_OK && mesh->bulge_rest) {
        /* Vertex i's distance at SINEW_BULGE_INDEX(first + slots * i): contiguous for 4
         * influences; for 8, spread over a range no other mesh uses (gaps zero). */
        uint32_t b0 = SINEW_BULGE_INDEX(first), b1 = SINEW_BULGE_INDEX(first + slots * (mesh->vertex_count - 1u));
        if (K == 4u) {
            r = snw_vk_upload(sk->gpu, sk->bulge.buffer, (VkDeviceSize)b0 * SINEW_BULGE_BYTES, mesh->bulge_rest,
                              (VkDeviceSize)mesh->vertex_count * SINEW_BULGE_BYTES);
        } else {
            float *tmp = (float *)snw_gpu_alloc(sk->gpu, sizeof(float) * (b1 - b0 + 1u));
            if (!tmp) {
                rest_free(sk, first, mesh->vertex_count * slots);
                return sk_fail_plain(sk, err, SINEW_ERROR_OUT_OF_HOST_MEMORY, "add_mesh staging");
            }
            memset(tmp, 0, sizeof(float) * (b1 - b0 + 1u));
            for (uint32_t i = 0; i < mesh->vertex_count; i++)
                tmp[SINEW_BULGE_INDEX(first + slots * i) - b0] = mesh->bulge_rest[i];
            r = snw_vk_upload(sk->gpu, sk->bulge.buffer, (VkDeviceSize)b0 * SINEW_BULGE_BYTES, tmp,
                              (VkDeviceSize)(b1 - b0 + 1u) * SINEW_BULGE_BYTES);
            snw_gpu_free(sk->gpu, tmp);
        }
    }
    if (r == SINEW_OK && mesh->tangents) {
        /* Vertex i's tangent at SINEW_BULGE_INDEX(first + slots * i), like the bulge distance. */
        uint32_t b0 = SINEW_BULGE_INDEX(first), b1 = SINEW_BULGE_INDEX(first + slots * (mesh->vertex_count - 1u));
        sinew_tangent *tmp = (sinew_tangent *)snw_gpu_alloc(sk->gpu, sizeof(sinew_tangent) * (b1 - b0 + 1u));
        if (!tmp) {
            rest_free(sk, first, mesh->vertex_count * slots);
            return sk_fail_plain(sk, err, SINEW_ERROR_OUT_OF_HOST_MEMORY, "add_mesh staging");
        }
        memset(tmp, 0, sizeof(sinew_tangent) * (b1 - b0 + 1u));
        for (uint32_t i = 0; i < mesh->vertex_count; i++) tmp[SINEW_BULGE_INDEX(first + slots * i) - b0] = mesh->tangents[i];
        r = snw_vk_upload(sk->gpu, sk->tan_rest.buffer, (VkDeviceSize)b0 * SINEW_TANGENT_REST_BYTES, tmp,
                          (VkDeviceSize)(b1 - b0 + 1u) * SINEW_TANGENT_REST_BYTES);
        snw_gpu_free(sk->gpu, tmp);
    }
    if (r == SINEW_OK && mesh->cor_centers) {
        /* Vertex i's center (xyz, w = 0) at SINEW_BULGE_INDEX(first + slots * i), like the bulge distance. */
        uint32_t b0 = SINEW_BULGE_INDEX(first), b1 = SINEW_BULGE_INDEX(first + slots * (mesh->vertex_count - 1u));
        float *tmp = (float *)snw_gpu_alloc(sk->gpu, SINEW_COR_BYTES * (size_t)(b1 - b0 + 1u));
        if (!tmp) {
            rest_free(sk, first, mesh->vertex_count * slots);
            return sk_fail_plain(sk, err, SINEW_ERROR_OUT_OF_HOST_MEMORY, "add_mesh staging");
        }
        memset(tmp, 0, SINEW_COR_BYTES * (size_t)(b1 - b0 + 1u));
        for (uint32_t i = 0; i < mesh->vertex_count; i++)
            memcpy(tmp + 4u * (size_t)(SINEW_BULGE_INDEX(first + slots * i) - b0), mesh->cor_centers + 3 * (size_t)i,
                   3 * sizeof(float));
        r = snw_vk_upload(sk->gpu, sk->cor.buffer, (VkDeviceSize)b0 * SINEW_COR_BYTES, tmp,
                          (VkDeviceSize)(b1 - b0 + 1u) * SINEW_COR_BYTES);
        snw_gpu_free(sk->gpu, tmp);
    }
    if (r != SINEW_OK) {
        rest_free(sk, first, mesh->vertex_count * slots);
        return sk_fail_plain(sk, err, r, "add_mesh upload");
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
    mesh_id->value = new_id;
    if (new_id == sk->mesh_count) sk->mesh_count++;
    return SINEW_OK;
}

sinew_result sinew_skinner_add_rest_mesh(sinew_skinner *sk, const sinew_rest_mesh *m, sinew_mesh_id *mesh_id,
                                         sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!m) return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "rest mesh is NULL");
    sinew_skinner_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertices = sinew_rest_mesh_vertices(m);
    md.vertices8 = sinew_rest_mesh_vertices8(m);
    md.vertex_count = sinew_rest_mesh_vertex_count(m);
    md.joint_count = sinew_rest_mesh_joint_count(m);
    md.bulge_rest = sinew_rest_mesh_bulge_distances(m);
    md.tangents = sk->d.tangents ? sinew_rest_mesh_tangents(m) : NULL;
    md.cor_centers = sk->d.cor_centers ? sinew_rest_mesh_centers(m) : NULL;
    return sinew_skinner_add_mesh(sk, &md, mesh_id, err);
}

void snw_skinner_mesh_ref(sinew_skinner *sk, uint32_t mesh, int delta)
{
    if (mesh < sk->mesh_count) sk->meshes[mesh].refs = (uint32_t)((int)sk->meshes[mesh].refs + delta);
}

void snw_skinner_release_copy(sinew_skinner *sk, uint32_t mesh)
{
    if (!mesh_live(sk, mesh) || !sk->meshes[mesh].owned) return;
    mesh_rec *m = &sk->meshes[mesh];
    rest_free(sk, m->first_slot, m->count * SINEW_REST_SLOTS(m->influences));
    m->live = 0;
    m->owned = 0;
}

sinew_result sinew_skinner_remove_mesh(sinew_skinner *sk, sinew_mesh_id mesh, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (!mesh_live(sk, mesh.value))
        return sk_fail(sk, err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MESH, mesh.value, "mesh %u %s", mesh.value,
                       mesh.value < sk->mesh_count ? "was already removed" : "is not a mesh of the skinner");
    mesh_rec *m = &sk->meshes[mesh.value];
    if (m->owned)
        return sk_fail(sk, err, SINEW_ERROR_IN_USE, SINEW_ITEM_MESH, mesh.value,
                       "mesh %u is a morphed copy owned by the morpher", mesh.value);
    if (m->refs)
        return sk_fail(sk, err, SINEW_ERROR_IN_USE, SINEW_ITEM_MESH, mesh.value,
                       "mesh %u is used by %u crowd model(s) or morph set(s): remove those first", mesh.value, m->refs);
    if (sk->in_frame)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                       "remove_mesh while a frame is open: end it first");
    /* Frames in flight may still read it: wait for them (bounded, as sinew_skinner_wait). */
    sinew_result r = wait_all(sk);
    if (r != SINEW_OK)
        return sk_fail(sk, err, r, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                       "remove_mesh: waiting for the frames in flight failed (%s)", sinew_result_string(r));
    rest_free(sk, m->first_slot, m->count * SINEW_REST_SLOTS(m->influences));
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
    return sk && mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].influences : 0;
}

uint32_t sinew_skinner_mesh_vertex_count(const sinew_skinner *sk, sinew_mesh_id mesh)
{
    return sk && mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].count : 0;
}

uint32_t sinew_skinner_mesh_joint_count(const sinew_skinner *sk, sinew_mesh_id mesh)
{
    return sk && mesh_live(sk, mesh.value) ? sk->meshes[mesh.value].joints : 0;
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

static double slot_ms(sinew_skinner *sk, uint32_t slot, int *ok)
{
    uint64_t t[4];
    *ok = 0;
    if (!sk->queries || !sk->has_times[slot]) return 0;
    VkResult vr = sk->gpu->vk.vkGetQueryPoolResults(sk->gpu->device, sk->queries, 2 * slot, 2, sizeof t, t,
                                                    2 * sizeof(uint64_t),
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (vr != VK_SUCCESS || !t[1] || !t[3]) return 0;
    uint32_t bits = sk->gpu->timestamp_valid_bits;
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    *ok = 1;
    return (double)((t[2] - t[0]) & mask) * (double)sk->gpu->props.limits.timestampPeriod * 1e-6;
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
        double ms = slot_ms(sk, s, &ok);
        if (ok) {
            sk->last_ms = ms;
            sk->last_ms_serial = sk->serial[s];
            sk->have_last_ms = 1;
        }
    }
    return SINEW_OK;
}

sinew_result sinew_skinner_begin_frame(sinew_skinner *sk, sinew_frame *frame)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!frame) return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "frame is NULL");
    if (sk->in_frame)
        return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                       "begin_frame while the frame in ring slot %u is open: end it with end_frame or submit first",
                       sk->slot);
    sinew_result r = wait_slot(sk, sk->slot);
    if (r == SINEW_ERROR_TIMEOUT)
        return sk_fail(sk, NULL, r, SINEW_ITEM_CALL_ORDER, sk->slot,
                       "the fence given to end_frame for ring slot %u did not signal within fence_timeout_ns "
                       "(never submitted? sinew_skinner_forget_fence drops it)", sk->slot);
    if (r != SINEW_OK) return sk_fail_plain(sk, NULL, r, "waiting for the ring slot");
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
        return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "caller_fence is VK_NULL_HANDLE");
    int found = 0;
    for (uint32_t s = 0; s < sk->d.frames_in_flight; s++)
        if (sk->caller_fence[s] == caller_fence) {
            sk->caller_fence[s] = VK_NULL_HANDLE;
            found = 1;
        }
    return found ? SINEW_OK : SINEW_ERROR_INVALID_ARGUMENT;
}

/* The baseline kernel's instance records and work list. */
static void write_baseline(sinew_skinner *sk, const sinew_instance *instances, uint32_t count)
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
    sk->baseline[sk->slot] = 1;
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
        variant_plan *p = &plan[variant_of(sk, &instances[i], m)];
        plan_add(p, &instances[i]);
        p->groups += (m->count + wgs - 1) / wgs;
    }
    uint32_t row = lim->maxComputeWorkGroupCount[0];
    if (sk->max_grid_x && sk->max_grid_x < row) row = sk->max_grid_x;
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
        if (sk->kernel == SINEW_DEBUG_KERNEL_RECORDS || gpi > row || slices > lim->maxComputeWorkGroupCount[2])
            p->grid = 0;
        snw_dispatch *d = &disp[nd++];
        memset(d, 0, sizeof *d);
        d->variant = v;
        d->grid = p->grid;
        if (p->grid) {
            d->push[SINEW_PG_REST_FIRST] = m->first_slot;
            d->push[SINEW_PG_VERTEX_COUNT] = m->count;
            d->push[SINEW_PG_PALETTE_BASE] = p->pal0;
            d->push[SINEW_PG_PALETTE_STEP] = p->pal_step;
            d->push[SINEW_PG_OUTPUT_BASE] = p->out0;
            d->push[SINEW_PG_OUTPUT_STEP] = p->out_step;
            d->push[SINEW_PG_JOINT_MAX] = m->joints - 1u;
            d->push[SINEW_PG_INSTANCES] = p->count;
            d->push[SINEW_PG_ROWS] = rows;
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
        uint32_t v = variant_of(sk, in, m);
        if (plan[v].grid) continue;
        uint32_t slots = SINEW_REST_SLOTS(m->influences);
        for (uint32_t first = 0; first < m->count; first += wgs) {
            uint32_t *g = gr + 4u * cursor[v]++;
            uint32_t n = m->count - first < wgs ? m->count - first : wgs;
            g[SINEW_GROUP_REST] = m->first_slot + first * slots;
            g[SINEW_GROUP_OUTPUT] = in->output_offset + first;
            g[SINEW_GROUP_PALETTE] = in->palette_offset;
            g[SINEW_GROUP_COUNT_JMAX] = n | ((m->joints - 1u) << 16);
        }
    }
    memcpy(sk->disp[s], disp, sizeof(snw_dispatch) * nd);
    sk->disp_count[s] = nd;
    sk->baseline[s] = 0;
}

sinew_result sinew_skinner_set_instances(sinew_skinner *sk, const sinew_instance *instances, uint32_t count,
                                         sinew_error_info *err)
{
    snw_error_clear(err);
    if (!sk) return sk_fail(NULL, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "skinner is NULL");
    if (count && !instances)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                       "instances is NULL with count %u", count);
    if (!sk->in_frame)
        return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                       "set_instances outside a frame: call begin_frame first");
    if (count > sk->d.max_instances)
        return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                       "max_instances (%u): %u instances given", sk->d.max_instances, count);
    int base = sk->kernel == SINEW_DEBUG_KERNEL_BASELINE;
    uint64_t work = 0, work_base = 0;
    uint32_t texel = sk->path == SINEW_READ_TEXEL ? 1u : 0u;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_instance *in = &instances[i];
        if (!mesh_live(sk, in->mesh.value))
            return sk_fail(sk, err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_INSTANCE, i, "instance %u: mesh %u %s", i,
                           in->mesh.value, in->mesh.value < sk->mesh_count ? "was removed" : "is not a mesh of the skinner");
        if ((unsigned)in->method >= SINEW_METHOD_COUNT)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: method %u is not a sinew_method", i, (unsigned)in->method);
        if (in->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: unknown flags 0x%x", i, in->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL);
        if ((in->flags & SINEW_SKIN_BULGE_INNER) && !(in->flags & SINEW_SKIN_BULGE_CORRECTION))
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: SINEW_SKIN_BULGE_INNER without SINEW_SKIN_BULGE_CORRECTION", i);
        const mesh_rec *m = &sk->meshes[in->mesh.value];
        if ((in->flags & SINEW_SKIN_BULGE_CORRECTION) && !m->has_bulge)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: bulge correction, but mesh %u was added without bulge_rest distances", i,
                           in->mesh.value);
        /* CoR needs the mesh's centers; the baseline debug kernel has no CoR code */
        if (sinew_method_uses_centers(in->method) && !m->has_cor)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: method %s needs centers of rotation, but mesh %u was added without cor_centers",
                           i, sinew_method_name(in->method), in->mesh.value);
        if (sinew_method_uses_centers(in->method) && base)
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: method %s: the baseline debug kernel has no centers of rotation", i,
                           sinew_method_name(in->method));
        if (base && (m->influences != 4u || (m->first_slot & 1u)))
            return sk_fail(sk, err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_INSTANCE, i,
                           "instance %u: the baseline debug kernel reads only 4-influence meshes at even slots (mesh %u)",
                           i, in->mesh.value);
        uint64_t pal_end = (uint64_t)in->palette_offset + (uint64_t)m->joints * sinew_palette_gpu_stride(in->method, in->flags);
        if (pal_end > sk->d.max_palette_vec4)
            return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_INSTANCE, i,
                           "instance %u: palette slots [%u, %llu) beyond max_palette_vec4 (%u)", i, in->palette_offset,
                           (unsigned long long)pal_end, sk->d.max_palette_vec4);
        if ((uint64_t)in->output_offset + m->count > sk->d.max_output_vertices)
            return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_INSTANCE, i,
                           "instance %u: output vertices [%u, %llu) beyond max_output_vertices (%u)", i,
                           in->output_offset, (unsigned long long)in->output_offset + m->count,
                           sk->d.max_output_vertices);
        work += (m->count + sk->wg_size - 1) / sk->wg_size;
        work_base += (m->count + SINEW_WG_SIZE - 1) / SINEW_WG_SIZE;
    }
    if (work > sk->max_work || work_base > sk->max_work)
        return sk_fail(sk, err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                       "work list: %llu workgroups this frame, the skinner holds %u (max_output_vertices and "
                       "max_instances set it)", (unsigned long long)(work > work_base ? work : work_base), sk->max_work);
    /* Plan, then the pipelines in use (each created once, at its first use). */
    variant_plan plan[SNW_VARIANTS];
    snw_dispatch disp[SNW_VARIANTS];
    uint32_t nd = base ? 0 : plan_variants(sk, instances, count, plan, disp);
    VkPipeline pl;
    if (base && count) {
        sinew_result r = get_baseline_pipeline(sk, texel, &pl);
        if (r != SINEW_OK) return r;
    }
    for (uint32_t i = 0; i < nd; i++) {
        sinew_result r = get_pipeline(sk, disp[i].variant, disp[i].grid, texel, &pl);
        if (r != SINEW_OK) return r;
    }
    /* Valid: write this slot's records and dispatches. */
    if (base)
        write_baseline(sk, instances, count);
    else
        write_variants(sk, instances, count, plan, disp, nd);
    sk->instances_set = 1;
    return SINEW_OK;
}

sinew_result sinew_skinner_record(sinew_skinner *sk, VkCommandBuffer cmd)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!cmd) return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "cmd is VK_NULL_HANDLE");
    if (!sk->in_frame || !sk->instances_set)
        return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                       "record %s: call begin_frame, then set_instances", !sk->in_frame ? "outside a frame" : "before set_instances");
    sinew_gpu *gpu = sk->gpu;
    uint32_t s = sk->slot;
    uint32_t texel = sk->path == SINEW_READ_TEXEL ? 1u : 0u;
    /* Pipelines first (the read path may have changed since set_instances). */
    VkPipeline pipes[SNW_VARIANTS];
    for (uint32_t i = 0; i < sk->disp_count[s]; i++) {
        sinew_result r = sk->baseline[s] ? get_baseline_pipeline(sk, texel, &pipes[i])
                                         : get_pipeline(sk, sk->disp[s][i].variant, sk->disp[s][i].grid, texel, &pipes[i]);
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
        gpu->vk.vkCmdResetQueryPool(cmd, sk->queries, 2 * s, 2);
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, sk->queries, 2 * s);
    }
    /* The morph pass (morph.c), inside the timed span. */
    if (sk->prepass) {
        sinew_result r = sk->prepass(sk->prepass_user, cmd, s);
        if (r != SINEW_OK) return r;
    }
    if (sk->disp_count[s])
        gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sk->layout, 0, 1, &sk->sets[s], 0, NULL);
    if (sk->baseline[s] && sk->disp_count[s]) {
        uint32_t work = sk->work_count[s];
        const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
        uint32_t row = lim->maxComputeWorkGroupCount[0];
        if (sk->max_grid_x && sk->max_grid_x < row) row = sk->max_grid_x;
        uint32_t gx = work < row ? work : row;
        uint32_t gy = (work + gx - 1) / gx;
        gpu_push push;
        memset(&push, 0, sizeof push);
        push.work_count = work;
        push.grid_x = gx;
        gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[0]);
        gpu->vk.vkCmdPushConstants(cmd, sk->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        gpu->vk.vkCmdDispatch(cmd, gx, gy, 1);
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
        gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, sk->queries, 2 * s + 1);
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

sinew_result sinew_debug_set_kernel(sinew_skinner *sk, sinew_debug_kernel kernel)
{
    if (!sk || (unsigned)kernel > SINEW_DEBUG_KERNEL_BASELINE) return SINEW_ERROR_INVALID_ARGUMENT;
    sk->kernel = kernel;
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
        if (!sk->baseline[s])
            for (uint32_t i = 0; i < n; i++) g += sk->disp[s][i].grid;
    }
    if (grid_dispatches) *grid_dispatches = g;
    return n;
}

sinew_result sinew_skinner_end_frame(sinew_skinner *sk, VkFence caller_fence)
{
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!sk->in_frame)
        return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
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
        return sk_fail(sk, NULL, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
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

/* Every slot, even past a failing one; the first error is returned. */
static sinew_result wait_all(sinew_skinner *sk)
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
    return wait_all(sk);
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

static sinew_result check_range(const sinew_skinner *sk, uint32_t first, uint32_t count)
{
    if (count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((uint64_t)first + count > sk->d.max_output_vertices) return SINEW_ERROR_CAPACITY;
    return SINEW_OK;
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
    sinew_result r = check_range(sk, first, count);
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
    sinew_result r = check_range(sk, first, count);
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
    if (!mesh_live(sk, mesh)) return SINEW_ERROR_NOT_FOUND;
    const mesh_rec *m = &sk->meshes[mesh];
    out->first_slot = m->first_slot;
    out->vertex_count = m->count;
    out->joint_count = m->joints;
    out->rest_slots = SINEW_REST_SLOTS(m->influences);
    out->has_bulge = m->has_bulge;
    out->has_tangents = m->has_tangents;
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

sinew_result snw_skinner_frame_slot(sinew_skinner *sk, uint32_t *slot)
{
    *slot = sk->slot;
    return sk->in_frame ? SINEW_OK : wait_slot(sk, sk->slot);
}

uint32_t snw_skinner_frames_in_flight(const sinew_skinner *sk) { return sk->d.frames_in_flight; }

sinew_result snw_skinner_add_copy(sinew_skinner *sk, uint32_t base, uint32_t *copy)
{
    if (!mesh_live(sk, base)) return SINEW_ERROR_NOT_FOUND;
    const uint32_t new_id = next_mesh_id(sk);
    if (new_id >= sk->d.max_meshes) return SINEW_ERROR_CAPACITY;
    mesh_rec b = sk->meshes[base];
    uint64_t slots = (uint64_t)b.count * SINEW_REST_SLOTS(b.influences);
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
