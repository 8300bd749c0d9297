/* Internals of the GPU skinner shared by its rooms: skinner.c (create/destroy,
 * meshes and the rest-slot allocator, accessors, bindings, memory report, the
 * morph hooks), skinner_frame.c (frames: begin/set_instances/record/end/submit/
 * wait, GPU time, read-backs), skinner_pipelines.c (shader modules, layouts,
 * variant pipelines by snw_pipe_key) and, in the debug layer, debug_skinner.c (the sinew_debug_*
 * entry points of the skinner, the baseline kernel's records, poison).
 * Layout constants: shaders/sinew_layout.h. Nothing here is exported. */
#ifndef SINEW_SKINNER_INTERNAL_H
#define SINEW_SKINNER_INTERNAL_H

#include <sinew/linalg.h>
#include "vk_internal.h"
#include "error_internal.h"
#include "sinew_layout.h"
#include <sinew/skinner.h>
#include <sinew/palette.h>
#include <sinew/debug.h>

#include <stddef.h>

typedef struct mesh_rec {
    uint32_t first, count, joints, has_bulge;
    uint32_t first_slot;    /* first uvec4 slot in the rest buffer */
    uint32_t influences;    /* 4 or 8 */
    uint32_t has_tangents;
    uint32_t has_cor;       /* centers of rotation uploaded (sinew_skinner_mesh_desc.cor_centers) */
    uint32_t live;          /* 0: removed (sinew_skinner_remove_mesh), the id is free for a later add */
    uint32_t refs;          /* crowd models and morph sets using it (snw_skinner_mesh_ref) */
    uint32_t owned;         /* a morpher's copy: not removable by the host */
    uint32_t compact;       /* SINEW_REST_LAYOUT_COMPACT (4 influences; header + 1 slot per vertex) */
    uint32_t slots;         /* uvec4 slots of its rest range (rest_free gives them back) */
    uint32_t header[8];     /* compact: its 2 header slots (box offset, aux base, box step), for grid pushes */
} mesh_rec;

/* Variants of skin.comp: kernel kind x bulge (none, outer, outer + inner) x rest layout (4, 8
 * influences, compact 4), then x
 * previous-position mode (keep, reset; one mode without keep_previous), then x
 * tangents (the mesh has them). */
#define SNW_BASE_VARIANTS (SINEW_KK_COUNT * 3u * 3u)
#define SNW_VARIANTS (SNW_BASE_VARIANTS * 2u * 2u)
/* What a variant of skin.comp is specialized on, besides the skinner's output
 * format: its variant number is layout + 3 * (bulge + 3 * kind) +
 * SNW_BASE_VARIANTS * (reset + 2 * tangents) (snw_variant_of; inline here for the
 * debug layer's pipeline statistics too). */
typedef struct variant_fields {
    uint32_t kind;      /* SINEW_KK_* */
    uint32_t bulge;     /* 0 none, 1 the correction, 2 with the inner push */
    uint32_t layout;    /* 0: 4 influences, 1: 8, 2: compact (4) */
    uint32_t reset;     /* reset the previous positions (only with keep_previous) */
    uint32_t tangents;  /* the mesh has tangents */
} variant_fields;

static inline variant_fields snw_variant_fields_of(uint32_t variant)
{
    uint32_t base = variant % SNW_BASE_VARIANTS;
    variant_fields f;
    f.kind = base / 9u;
    f.bulge = (base / 3u) % 3u;
    f.layout = base % 3u;
    f.reset = (variant / SNW_BASE_VARIANTS) & 1u;
    f.tangents = variant / (2u * SNW_BASE_VARIANTS);
    return f;
}

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

/* A pipeline of skin.comp: what it is specialized on. One per skinner and key,
 * created at its first use (snw_skinner_pipeline). */
typedef struct snw_pipe_key {
    uint32_t variant;   /* snw_variant_of: kernel kind, bulge, influences, previous mode, tangents */
    uint8_t grid;       /* 1: grid mode, 0: group records (snw_dispatch.grid) */
    uint8_t texel;      /* 1: texel read path (SINEW_READ_TEXEL), 0: storage reads */
    uint8_t wg;         /* workgroup size choice: 0, 1, 2 for 64, 128, 256 (snw_wg_choice) */
} snw_pipe_key;

#define MAXF SINEW_MAX_FRAMES_IN_FLIGHT
_Static_assert(MAXF <= SNW_VK_MAX_SETS && SINEW_BIND_COUNT <= SNW_VK_MAX_BINDINGS, "descriptor sets and bindings");

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
    VkPipeline pipe[SNW_PIPES];   /* variant pipelines by snw_pipe_key, created at first use (snw_skinner_pipeline) */
    VkPipeline pipe_base[2];      /* override kernel (debug layer): [0] storage reads, [1] texel reads */
    const struct snw_kernel_override *override; /* NULL: the variant kernels (sinew_debug_set_kernel) */
    int force_records;            /* variant kernels, group records only (SINEW_DEBUG_KERNEL_RECORDS) */
    uint32_t wg_size, wg_default; /* variant kernels' workgroup size */
    snw_dispatch disp[MAXF][SNW_VARIANTS];
    uint32_t disp_count[MAXF];
    const struct snw_kernel_override *slot_override[MAXF]; /* the kernel of the slot's frame, NULL: variants */
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
    double last_morph_ms;   /* the morph pass's part of last_ms (third timestamp of the slot) */
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

/* ---- skinner.c ---- */

/* Fills err (may be NULL) and the skinner's last error (sk may be NULL) and returns r. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
sinew_result snw_sk_fail(sinew_skinner *sk, sinew_error_info *err, sinew_result r, sinew_item_kind item,
                         uint32_t index, const char *fmt, ...);
/* A failure reported by a lower layer (Vulkan, allocation) without detail. */
sinew_result snw_sk_fail_plain(sinew_skinner *sk, sinew_error_info *err, sinew_result r, const char *what);

static inline int snw_mesh_live(const sinew_skinner *sk, uint32_t id)
{
    return id < sk->mesh_count && sk->meshes[id].live;
}

/* The widest row of a dispatch grid: the device's maxComputeWorkGroupCount[0],
 * or sinew_debug_set_max_grid_x's if smaller. */
static inline uint32_t snw_grid_row(const sinew_skinner *sk)
{
    uint32_t row = sk->gpu->props.limits.maxComputeWorkGroupCount[0];
    return sk->max_grid_x && sk->max_grid_x < row ? sk->max_grid_x : row;
}

/* ---- skinner_pipelines.c ---- */

/* The descriptor type of each binding of set 0 (sinew_layout.h SINEW_BIND_*). */
void snw_skinner_binding_types(VkDescriptorType types[SINEW_BIND_COUNT]);
/* Shader modules, descriptor set layout and pipeline layout (at create). */
sinew_result snw_skinner_create_pipelines(sinew_skinner *sk);
/* Every pipeline, the layouts and the shader modules (at destroy). */
void snw_skinner_destroy_pipelines(sinew_skinner *sk);
/* Workgroup size of the variant kernels on this device (sinew_debug_set_workgroup_size 0). */
uint32_t snw_default_wg_size(const sinew_gpu *gpu);
/* The variant of skin.comp that skins instance in (of mesh mr) on this skinner. */
uint32_t snw_variant_of(const sinew_skinner *sk, const sinew_instance *in, const mesh_rec *mr);
/* The workgroup size choice of snw_pipe_key.wg for a size of 64, 128 or 256. */
uint8_t snw_wg_choice(uint32_t wg_size);
/* The key of a planned dispatch's pipeline at the skinner's workgroup size. */
snw_pipe_key snw_dispatch_key(const sinew_skinner *sk, const snw_dispatch *d, uint32_t texel);
/* The pipeline of a key, created at its first use (compiled once per skinner). */
sinew_result snw_skinner_pipeline(sinew_skinner *sk, snw_pipe_key key, VkPipeline *out);

/* ---- skinner_frame.c ---- */

/* Waits for every ring slot, even past a failing one; the first error is returned. */
sinew_result snw_skinner_wait_all(sinew_skinner *sk);
/* count output vertices from first: INVALID_ARGUMENT if none, CAPACITY beyond max_output_vertices.
 * (Inline: the debug layer uses it too and cannot call the gpu layer's internals.) */
static inline sinew_result snw_skinner_check_range(const sinew_skinner *sk, uint32_t first, uint32_t count)
{
    if (count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((uint64_t)first + count > sk->d.max_output_vertices) return SINEW_ERROR_CAPACITY;
    return SINEW_OK;
}

/* ---- kernel override (the debug layer's baseline kernel, debug_skinner.c) ----
 * A kernel that replaces the variant kernels for whole frames. The runtime
 * only calls through this table; the kernel, its shader and its records live
 * in the sinew_debug library, which installs it (sinew_debug_set_kernel).
 * The debug layer is its own merged object: it reads the skinner's fields but
 * calls none of the gpu layer's internal functions (only inline ones here and
 * the Vulkan helpers it is built with). */
typedef struct snw_kernel_override {
    /* NULL if it can skin instance in (of mesh m), else why not (for the error message). */
    const char *(*refuse)(const sinew_instance *in, const mesh_rec *m);
    /* Its pipeline for the read path (texel), created at first use (sk->pipe_base, sk->shader_base). */
    sinew_result (*pipeline)(sinew_skinner *sk, uint32_t texel, VkPipeline *out);
    /* Its records and work list for the frame's slot; sets work_count/disp_count of the slot. */
    void (*write)(sinew_skinner *sk, const sinew_instance *instances, uint32_t count);
    /* Records the slot's dispatch with its pipeline (descriptor set already bound). */
    void (*record)(sinew_skinner *sk, VkCommandBuffer cmd, VkPipeline pipe, uint32_t s);
} snw_kernel_override;

#endif
