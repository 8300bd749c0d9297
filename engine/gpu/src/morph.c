/* Sinew morph pass (sinew/morpher.h): sparse targets stored by moved vertex,
 * per-character rest copies in the skinner's rest buffer, one dispatch per
 * frame recorded by the skinner before its skinning dispatches. Layout:
 * shaders/morph_layout.h. */
#include <sinew/linalg.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/palette_job.h>
#include "error_internal.h"
#include "vk_internal.h"
#include "morph_layout.h"
#include "sinew_layout.h"
#include <sinew/morpher.h>
#include <sinew/debug.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXF SINEW_MAX_FRAMES_IN_FLIGHT

typedef struct morph_set {
    uint32_t base;          /* skinner mesh */
    uint32_t targets;
    uint32_t row_first, rows, deltas;
    uint32_t entry_slots;   /* SINEW_MORPH_ENTRY_SLOTS, or _TANGENT with tangent deltas */
    uint32_t segments;      /* 1 + first uvec4 of the bone segment table (sinew_morpher_set_skeleton), or 0 */
    uint32_t *tfirst, *tcount;  /* per target: first uint of its row list in the data buffer, length */
    float *tmax;            /* per target: its largest |delta component| (positions, normals, tangents) */
    /* Lists pass: per stored delta, target-major (target t from hfirst[t], tcount[t] long): the uvec4
     * index of its row in the data buffer, and its entry's words (entry_slots uvec4: dp, 0; dn, 0;
     * with tangent deltas dt, 0), which set_frame copies into the frame's lists with the weight. */
    uint32_t *hfirst, *hrow, *hdat;
    uint32_t *hvert;        /* per row: its vertex */
    /* Lean reference kernel only (sets added while it is selected, sinew_debug_set_morph_kernel):
     * the deltas again on the host, target-major: per delta its vertex and 8 words (target, dp; dn, 0). */
    uint32_t *lean_first;   /* per target: first delta, or NULL */
    uint32_t *lean_vertex, *lean_entry;
    uint32_t vertex_count;
} morph_set;

/* Largest sum over targets of |weight| x the target's largest delta component a
 * frame may ask for: a vertex's morphed position, normal or tangent stays within
 * it of the rest one, so skinning (palette values up to 1e18) and normalising
 * (squares) stay in float32. */
#define SNW_MORPH_SUM_LIMIT 1e18

typedef struct morph_slot {
    uint32_t set, copy;     /* skinner mesh of the copy */
    uint64_t used_serial;   /* set_frame call that last named it */
    uint32_t *baked;        /* bitset: targets whose deltas the copy holds (as of the last recorded frame) */
    uint32_t *next;         /* bitset: targets the pending frame writes into it */
} morph_slot;

struct sinew_morpher {
    sinew_skinner *sk;
    sinew_gpu *gpu;
    sinew_morpher_desc d;
    uint32_t frames;
    VkDeviceSize weights_bytes, items_offset, items_bytes, pairs_offset, pairs_bytes, lists_offset, lists_bytes,
        slot_stride;
    uint32_t list_count[MAXF];   /* lists pass: records of each ring slot's frame */
    uint32_t list_items[MAXF];   /* lists pass: uint index of the records' item words */
    uint32_t *row_scratch;       /* lists pass: per row of the largest set, zero between frames; then its touched
                                    rows (one word more: list_item writes the slot after the last) */
    uint32_t row_scratch_n;
    snw_vk_buffer data, frame;
    VkShaderModule shader;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe;            /* rows mode with extras (the previous kernel's layout user) */
    VkPipeline pipes[3][2];     /* [SINEW_MORPH_MODE_*][extras: tangents or bulge in some item] */
    uint32_t extras[MAXF];
    VkDescriptorPool dpool;
    VkDescriptorSet sets[MAXF];
    uint32_t item_count[MAXF], max_rows[MAXF];
    uint32_t pair_count[MAXF], max_pair_len[MAXF], mode[MAXF], frame_nslots[MAXF];
    uint32_t *frame_slots;  /* MAXF x max_slots: slots named by each ring slot's pending frame */
    morph_set *msets;
    morph_slot *slots;
    uint32_t set_count, slot_count, data_used;
    uint32_t active;
    uint64_t serial;
    /* sinew_debug_set_morph_kernel: the kernel recorded, the previous morph.comp's pipeline and the
     * lean reference's (its own layout, per ring slot a host-built list of written vertices and their
     * touched deltas in `lean`, capacity lean_vec4 uvec4 per slot). */
    uint32_t kernel, lean_keep;
    VkShaderModule prev_shader, lean_shader;
    VkPipeline prev_pipe, lean_pipe;
    VkDescriptorSetLayout lean_dsl;
    VkPipelineLayout lean_layout;
    VkDescriptorPool lean_dpool;
    VkDescriptorSet lean_sets[MAXF];
    snw_vk_buffer lean;
    VkDeviceSize lean_vec4;
    uint32_t lean_count[MAXF], lean_kernel[MAXF];
    uint32_t *lean_scratch; /* per vertex of the largest lean set: delta count, then fill position */
    uint32_t lean_scratch_n;
};


static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

static sinew_result prepass(void *user, VkCommandBuffer cmd, uint32_t slot);

static sinew_result create_pipeline(sinew_morpher *m)
{
    sinew_gpu *gpu = m->gpu;
    sinew_result r = snw_vk_shader(gpu, snw_spv_morph_comp, snw_spv_morph_comp_size, &m->shader);
    if (r != SINEW_OK) return r;
    VkDescriptorType types[SINEW_MORPH_BIND_COUNT];
    for (uint32_t i = 0; i < SINEW_MORPH_BIND_COUNT; i++) types[i] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    r = snw_vk_compute_layout(gpu, SNW_VKA(gpu), types, SINEW_MORPH_BIND_COUNT, SINEW_MORPH_PUSH_BYTES, &m->dsl,
                              &m->layout);
    if (r != SINEW_OK) return r;
    static const VkSpecializationMapEntry me[2] = { { 0, 0, 4 }, { 1, 4, 4 } };
    for (uint32_t mode = 0; mode < 3 && r == SINEW_OK; mode++)
        for (uint32_t x = 0; x < 2 && r == SINEW_OK; x++) {
            uint32_t spec[2] = { mode, x };
            VkSpecializationInfo si = { 2, me, sizeof spec, spec };
            r = snw_vk_compute_pipeline(gpu, SNW_VKA(gpu), m->shader, m->layout, &si, &m->pipes[mode][x]);
        }
    if (r == SINEW_OK) m->pipe = m->pipes[SINEW_MORPH_MODE_ROWS][1];
    return r;
}

static sinew_result create_descriptors(sinew_morpher *m)
{
    sinew_gpu *gpu = m->gpu;
    uint32_t F = m->frames;
    VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, SINEW_MORPH_BIND_COUNT * F };
    sinew_result r = snw_vk_descriptor_sets(gpu, SNW_VKA(gpu), m->dsl, F, &ps, 1, &m->dpool, m->sets);
    if (r != SINEW_OK) return r;
    VkDescriptorType types[SINEW_MORPH_BIND_COUNT];
    for (uint32_t i = 0; i < SINEW_MORPH_BIND_COUNT; i++) types[i] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    VkBuffer rest;
    VkDeviceSize rest_size;
    snw_skinner_rest_buffer(m->sk, &rest, &rest_size);
    VkBuffer tan;
    VkDeviceSize tan_size;
    snw_skinner_tangent_rest_buffer(m->sk, &tan, &tan_size);
    VkBuffer blg;
    VkDeviceSize blg_size;
    snw_skinner_bulge_buffer(m->sk, &blg, &blg_size);
    for (uint32_t s = 0; s < F; s++) {
        VkDescriptorBufferInfo bi[SINEW_MORPH_BIND_COUNT] = {
            [SINEW_MORPH_BIND_REST] = { rest, 0, rest_size },
            [SINEW_MORPH_BIND_DATA] = { m->data.buffer, 0, m->data.size },
            [SINEW_MORPH_BIND_WEIGHTS] = { m->frame.buffer, s * m->slot_stride, m->weights_bytes },
            [SINEW_MORPH_BIND_ITEMS] = { m->frame.buffer, s * m->slot_stride + m->items_offset, m->items_bytes },
            [SINEW_MORPH_BIND_PAIRS] = { m->frame.buffer, s * m->slot_stride + m->pairs_offset, m->pairs_bytes },
            [SINEW_MORPH_BIND_DATA_U32] = { m->data.buffer, 0, m->data.size },
            [SINEW_MORPH_BIND_TANGENT] = { tan, 0, tan_size },
            [SINEW_MORPH_BIND_BULGE] = { blg, 0, blg_size },
            [SINEW_MORPH_BIND_LISTS] = { m->frame.buffer, s * m->slot_stride + m->lists_offset, m->lists_bytes },
            [SINEW_MORPH_BIND_LIST_RECORDS] = { m->frame.buffer, s * m->slot_stride + m->lists_offset, m->lists_bytes },
        };
        snw_vk_write_set(gpu, m->sets[s], SINEW_MORPH_BIND_COUNT, types, bi, NULL);
    }
    return SINEW_OK;
}

/* The lean buffer with room for vec4 uvec4 per ring slot, and the lean sets' bindings
 * (rest buffer, the slot's weights, the slot's lean region). */
static sinew_result lean_buffer(sinew_morpher *m, VkDeviceSize vec4)
{
    sinew_gpu *gpu = m->gpu;
    if (vec4 < 4096) vec4 = 4096;
    uint64_t align = gpu->props.limits.minStorageBufferOffsetAlignment > 256 ? gpu->props.limits.minStorageBufferOffsetAlignment : 256;
    vec4 = align_up(vec4 * 16u, align) / 16u;
    if (vec4 * 16u > gpu->props.limits.maxStorageBufferRange) return SINEW_ERROR_LIMIT_EXCEEDED;
    snw_vk_buffer_destroy(gpu, &m->lean);
    m->lean_vec4 = 0;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    sinew_result r = snw_vk_buffer_create(gpu, vec4 * 16u * m->frames, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host,
                                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 1, &m->lean);
    if (r != SINEW_OK) return r;
    m->lean_vec4 = vec4;
    VkBuffer rest;
    VkDeviceSize rest_size;
    snw_skinner_rest_buffer(m->sk, &rest, &rest_size);
    VkDescriptorType types[3] = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER };
    for (uint32_t s = 0; s < m->frames; s++) {
        VkDescriptorBufferInfo bi[3] = { { rest, 0, rest_size },
                                         { m->frame.buffer, s * m->slot_stride, m->weights_bytes },
                                         { m->lean.buffer, s * vec4 * 16u, vec4 * 16u } };
        snw_vk_write_set(gpu, m->lean_sets[s], 3, types, bi, NULL);
    }
    return SINEW_OK;
}

sinew_result sinew_debug_set_morph_kernel(sinew_morpher *m, sinew_debug_morph_kernel kernel)
{
    if (!m || (uint32_t)kernel > (uint32_t)SINEW_DEBUG_MORPH_LEAN) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_gpu *gpu = m->gpu;
    sinew_result r = SINEW_OK;
    if (kernel == SINEW_DEBUG_MORPH_PREVIOUS && !m->prev_pipe) {
        if (!m->prev_shader) r = snw_vk_shader(gpu, snw_spv_morph_previous_comp, snw_spv_morph_previous_comp_size, &m->prev_shader);
        if (r == SINEW_OK) r = snw_vk_compute_pipeline(gpu, SNW_VKA(gpu), m->prev_shader, m->layout, NULL, &m->prev_pipe);
    }
    if (kernel == SINEW_DEBUG_MORPH_LEAN && !m->lean_pipe) {
        VkDescriptorType types[3] = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER };
        if (!m->lean_shader) r = snw_vk_shader(gpu, snw_spv_morph_lean_comp, snw_spv_morph_lean_comp_size, &m->lean_shader);
        if (r == SINEW_OK && !m->lean_layout) r = snw_vk_compute_layout(gpu, SNW_VKA(gpu), types, 3, 8, &m->lean_dsl, &m->lean_layout);
        if (r == SINEW_OK && !m->lean_dpool) {
            VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * m->frames };
            r = snw_vk_descriptor_sets(gpu, SNW_VKA(gpu), m->lean_dsl, m->frames, &ps, 1, &m->lean_dpool, m->lean_sets);
        }
        if (r == SINEW_OK && !m->lean_vec4) {
            r = sinew_skinner_wait(m->sk);
            if (r == SINEW_OK) r = lean_buffer(m, 1u << 16);
        }
        if (r == SINEW_OK) r = snw_vk_compute_pipeline(gpu, SNW_VKA(gpu), m->lean_shader, m->lean_layout, NULL, &m->lean_pipe);
    }
    if (r != SINEW_OK) return r;
    if (kernel == SINEW_DEBUG_MORPH_LEAN) m->lean_keep = 1;
    m->kernel = (uint32_t)kernel;
    return SINEW_OK;
}

sinew_result sinew_morpher_create(sinew_skinner *sk, const sinew_morpher_desc *desc, sinew_morpher **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!sk) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_morpher_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (!d.max_sets) d.max_sets = SINEW_MORPHER_DEFAULT_MAX_SETS;
    if (!d.max_slots) d.max_slots = SINEW_MORPHER_DEFAULT_MAX_SLOTS;
    if (!d.max_data_vec4) d.max_data_vec4 = SINEW_MORPHER_DEFAULT_MAX_DATA_VEC4;
    if (!d.max_weights) d.max_weights = SINEW_MORPHER_DEFAULT_MAX_WEIGHTS;
    if (d.max_sets > (1u << 20) || d.max_slots > (1u << 20)) return SINEW_ERROR_LIMIT_EXCEEDED;
    if ((uint32_t)d.pass > (uint32_t)SINEW_MORPH_PASS_LISTS) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_gpu *gpu = snw_skinner_gpu(sk);
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    uint64_t data_bytes = (uint64_t)d.max_data_vec4 * 16u;
    uint64_t weights_bytes = (uint64_t)d.max_weights * 4u;
    uint64_t items_bytes = (uint64_t)d.max_slots * SINEW_MORPH_ITEM_SLOTS * 16u;
    uint64_t pairs_bytes = (uint64_t)d.max_weights * 16u; /* at most one pair per weight */
    if (!d.max_list_words) d.max_list_words = SINEW_MORPHER_DEFAULT_MAX_LIST_WORDS;
    uint64_t lists_bytes = (uint64_t)d.max_list_words * 4u;
    if (data_bytes > lim->maxStorageBufferRange || weights_bytes > lim->maxStorageBufferRange ||
        items_bytes > lim->maxStorageBufferRange || pairs_bytes > lim->maxStorageBufferRange ||
        lists_bytes > lim->maxStorageBufferRange ||
        data_bytes > gpu->max_allocation)
        return SINEW_ERROR_LIMIT_EXCEEDED;
    uint64_t align = 256;
    if (lim->minStorageBufferOffsetAlignment > align) align = lim->minStorageBufferOffsetAlignment;

    sinew_morpher *m = (sinew_morpher *)snw_gpu_alloc(gpu, sizeof *m);
    if (!m) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memset(m, 0, sizeof *m);
    m->sk = sk;
    m->gpu = gpu;
    m->d = d;
    m->frames = snw_skinner_frames_in_flight(sk);
    m->weights_bytes = weights_bytes;
    m->items_offset = align_up(weights_bytes, align);
    m->items_bytes = items_bytes;
    m->pairs_offset = align_up(m->items_offset + items_bytes, align);
    m->pairs_bytes = pairs_bytes;
    m->lists_offset = align_up(m->pairs_offset + pairs_bytes, align);
    m->lists_bytes = lists_bytes;
    m->slot_stride = align_up(m->lists_offset + lists_bytes, align);
    sinew_result r = snw_skinner_set_prepass(sk, prepass, m);
    if (r != SINEW_OK) {
        snw_gpu_free(gpu, m);
        return r;
    }
    snw_skinner_attach(sk);
    m->msets = (morph_set *)snw_gpu_alloc(gpu, sizeof(morph_set) * d.max_sets);
    m->slots = (morph_slot *)snw_gpu_alloc(gpu, sizeof(morph_slot) * d.max_slots);
    m->frame_slots = (uint32_t *)snw_gpu_alloc(gpu, sizeof(uint32_t) * MAXF * d.max_slots);
    if (!m->msets || !m->slots || !m->frame_slots) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, data_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &m->data);
    if (r == SINEW_OK)
        r = snw_vk_buffer_create(gpu, m->slot_stride * m->frames, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, host,
                                 VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 1, &m->frame);
    if (r == SINEW_OK) r = create_pipeline(m);
    if (r == SINEW_OK) r = create_descriptors(m);
    if (r != SINEW_OK) {
        sinew_morpher_destroy(m);
        return r;
    }
    *out = m;
    return SINEW_OK;
}

void sinew_morpher_destroy(sinew_morpher *m)
{
    if (!m) return;
    sinew_gpu *gpu = m->gpu;
    VkDevice dev = gpu->device;
    const VkAllocationCallbacks *vka = SNW_VKA(gpu);
    if (sinew_skinner_wait(m->sk) != SINEW_OK) snw_vk_queue_wait_idle(gpu);
    snw_skinner_set_prepass(m->sk, NULL, NULL);
    if (m->dpool) gpu->vk.vkDestroyDescriptorPool(dev, m->dpool, vka);
    if (m->lean_dpool) gpu->vk.vkDestroyDescriptorPool(dev, m->lean_dpool, vka);
    if (m->prev_pipe) gpu->vk.vkDestroyPipeline(dev, m->prev_pipe, vka);
    if (m->lean_pipe) gpu->vk.vkDestroyPipeline(dev, m->lean_pipe, vka);
    if (m->lean_layout) gpu->vk.vkDestroyPipelineLayout(dev, m->lean_layout, vka);
    if (m->lean_dsl) gpu->vk.vkDestroyDescriptorSetLayout(dev, m->lean_dsl, vka);
    snw_vk_shader_destroy(gpu, m->prev_shader);
    snw_vk_shader_destroy(gpu, m->lean_shader);
    snw_vk_buffer_destroy(gpu, &m->lean);
    snw_gpu_free(gpu, m->lean_scratch);
    snw_gpu_free(gpu, m->row_scratch);
    for (uint32_t i = 0; i < 3; i++)
        for (uint32_t x = 0; x < 2; x++)
            if (m->pipes[i][x]) gpu->vk.vkDestroyPipeline(dev, m->pipes[i][x], vka);
    if (m->layout) gpu->vk.vkDestroyPipelineLayout(dev, m->layout, vka);
    if (m->dsl) gpu->vk.vkDestroyDescriptorSetLayout(dev, m->dsl, vka);
    snw_vk_shader_destroy(gpu, m->shader);
    snw_vk_buffer_destroy(gpu, &m->data);
    snw_vk_buffer_destroy(gpu, &m->frame);
    for (uint32_t i = 0; m->msets && i < m->set_count; i++) {
        snw_gpu_free(gpu, m->msets[i].tfirst);
        snw_gpu_free(gpu, m->msets[i].tmax);
        snw_gpu_free(gpu, m->msets[i].tcount);
        snw_gpu_free(gpu, m->msets[i].lean_first);
        snw_gpu_free(gpu, m->msets[i].hfirst);
        snw_gpu_free(gpu, m->msets[i].hrow);
        snw_gpu_free(gpu, m->msets[i].hdat);
        snw_gpu_free(gpu, m->msets[i].hvert);
        snw_gpu_free(gpu, m->msets[i].lean_vertex);
        snw_gpu_free(gpu, m->msets[i].lean_entry);
    }
    for (uint32_t i = 0; m->slots && i < m->slot_count; i++) {
        snw_gpu_free(gpu, m->slots[i].baked);
        snw_skinner_release_copy(m->sk, m->slots[i].copy);
    }
    for (uint32_t i = 0; m->msets && i < m->set_count; i++) snw_skinner_mesh_ref(m->sk, m->msets[i].base, -1);
    snw_gpu_free(gpu, m->msets);
    snw_gpu_free(gpu, m->slots);
    snw_gpu_free(gpu, m->frame_slots);
    snw_skinner_detach(m->sk);
    snw_gpu_free(gpu, m);
}

sinew_result sinew_morpher_add_targets(sinew_morpher *m, sinew_mesh_id base, const sinew_morph_target *targets,
                                       uint32_t target_count, sinew_morph_set_id *set, sinew_morph_error *err)
{
    snw_error_clear(err);
    if (!m || !set) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "NULL morpher or set");
    snw_mesh_layout ml;
    if (snw_skinner_mesh_layout(m->sk, base.value, &ml) != SINEW_OK)
        return snw_fail_entry(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "mesh %u is not a mesh of the skinner", base.value);
    if (ml.compact)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                              "mesh %u is in the compact rest layout: the morph pass writes the default layout (add the "
                              "base mesh with SINEW_REST_LAYOUT_DEFAULT)", base.value);
    if (target_count == 0) return snw_fail_entry(err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "no targets");
    sinew_result r = sinew_morph_validate(ml.vertex_count, targets, target_count, err);
    if (r != SINEW_OK) return r;
    if (m->set_count >= m->d.max_sets)
        return snw_fail_entry(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, UINT32_MAX, "more than max_sets (%u) sets", m->d.max_sets);
    /* Tangent deltas need the mesh's tangent frames (the pass rewrites them). */
    uint32_t stride = SINEW_MORPH_ENTRY_SLOTS;
    for (uint32_t t = 0; t < target_count; t++) {
        if (!targets[t].tangent_deltas || !targets[t].count) continue;
        if (!ml.has_tangents)
            return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_TARGET, t, UINT32_MAX,
                        "target %u has tangent deltas but mesh %u has no tangent frames", t, base.value);
        stride = SINEW_MORPH_ENTRY_SLOTS_TANGENT;
    }
    /* Count deltas per vertex (CSR by vertex). */
    uint64_t nnz = 0;
    for (uint32_t t = 0; t < target_count; t++) nnz += targets[t].count;
    uint32_t *cnt = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * ((size_t)ml.vertex_count + 1));
    if (!cnt) return snw_fail_entry(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out of host memory");
    memset(cnt, 0, sizeof(uint32_t) * ((size_t)ml.vertex_count + 1));
    for (uint32_t t = 0; t < target_count; t++)
        for (uint32_t e = 0; e < targets[t].count; e++) cnt[targets[t].indices[e]]++;
    uint32_t rows = 0;
    for (uint32_t v = 0; v < ml.vertex_count; v++) rows += cnt[v] != 0;
    uint64_t list_vec4 = (nnz + 3u) / 4u;
    uint64_t need = (uint64_t)rows + nnz * stride + list_vec4;
    if ((uint64_t)m->data_used + need > m->d.max_data_vec4) {
        snw_gpu_free(m->gpu, cnt);
        return snw_fail_entry(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, UINT32_MAX,
                    "targets need %llu data vec4, %u left of max_data_vec4", (unsigned long long)need,
                    m->d.max_data_vec4 - m->data_used);
    }
    uint32_t *data = need ? (uint32_t *)snw_gpu_alloc(m->gpu, (size_t)need * 16u) : NULL;
    uint32_t *tfirst = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * target_count);
    uint32_t *tcount = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * target_count);
    float *tmax = (float *)snw_gpu_alloc(m->gpu, sizeof(float) * target_count);
    /* vertex -> uvec4 index of its row (for the target row lists) */
    uint32_t *rowof = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * ((size_t)ml.vertex_count + 1));
    uint32_t *hfirst = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * target_count);
    uint32_t *hrow = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * (nnz ? nnz : 1));
    uint32_t *hdat = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * 4u * stride * (nnz ? nnz : 1));
    uint32_t *hvert = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * (rows ? rows : 1));
    uint32_t max_count = 1;
    for (uint32_t t = 0; t < target_count; t++) max_count = targets[t].count > max_count ? targets[t].count : max_count;
    uint64_t *order = (uint64_t *)snw_gpu_alloc(m->gpu, sizeof(uint64_t) * max_count);
    if (rows > m->row_scratch_n) { /* the lists pass's per-row scratch (2 words per row, and one) */
        uint32_t *rs = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * (2u * (size_t)rows + 1u));
        if (rs) {
            memset(rs, 0, sizeof(uint32_t) * (2u * (size_t)rows + 1u));
            snw_gpu_free(m->gpu, m->row_scratch);
            m->row_scratch = rs;
            m->row_scratch_n = rows;
        }
    }
    if ((need && !data) || !tfirst || !tcount || !tmax || !rowof || !hfirst || !hrow || !hdat || !hvert || !order || rows > m->row_scratch_n) {
        snw_gpu_free(m->gpu, order);
        snw_gpu_free(m->gpu, hvert);
        snw_gpu_free(m->gpu, hfirst);
        snw_gpu_free(m->gpu, hrow);
        snw_gpu_free(m->gpu, hdat);
        snw_gpu_free(m->gpu, cnt);
        snw_gpu_free(m->gpu, data);
        snw_gpu_free(m->gpu, tfirst);
        snw_gpu_free(m->gpu, tcount);
        snw_gpu_free(m->gpu, tmax);
        snw_gpu_free(m->gpu, rowof);
        return snw_fail_entry(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out of host memory");
    }
    if (need) memset(data, 0, (size_t)need * 16u);
    /* Rows in vertex order; cnt becomes each vertex's next entry (absolute uvec4 index). */
    uint32_t row_first = m->data_used, ent = m->data_used + rows, row = 0;
    for (uint32_t v = 0; v < ml.vertex_count; v++) {
        if (!cnt[v]) continue;
        uint32_t *rw = data + 4 * (size_t)row;
        rw[SINEW_MORPH_ROW_VERTEX] = v;
        rw[SINEW_MORPH_ROW_FIRST] = ent;
        rw[SINEW_MORPH_ROW_END] = ent + cnt[v] * stride;
        rw[3] = 0;
        rowof[v] = row_first + row;
        hvert[row] = v;
        cnt[v] = ent;
        ent += rw[SINEW_MORPH_ROW_END] - rw[SINEW_MORPH_ROW_FIRST];
        row++;
    }
    /* Target row lists, after the entries (uint index = 4 x uvec4 index). */
    uint32_t list_first = m->data_used + rows + (uint32_t)(nnz * stride);
    uint32_t *lists = data + 4 * (size_t)(list_first - m->data_used);
    uint32_t lpos = 0;
    for (uint32_t t = 0; t < target_count; t++) {
        tfirst[t] = 4u * list_first + lpos;
        tcount[t] = targets[t].count;
        for (uint32_t e = 0; e < targets[t].count; e++) lists[lpos + e] = rowof[targets[t].indices[e]];
        /* rows in memory order: neighbouring invocations read neighbouring rows */
        if (targets[t].count > 1) qsort(lists + lpos, targets[t].count, sizeof(uint32_t), cmp_u32);
        lpos += targets[t].count;
    }
    uint32_t hk = 0;
    for (uint32_t t = 0; t < target_count; t++) {
        const sinew_morph_target *g = &targets[t];
        hfirst[t] = hk;
        float mx = 0;
        for (size_t k = 0; k < 3 * (size_t)g->count; k++) {
            mx = fmaxf(mx, fabsf(g->position_deltas[k]));
            if (g->normal_deltas) mx = fmaxf(mx, fabsf(g->normal_deltas[k]));
            if (g->tangent_deltas) mx = fmaxf(mx, fabsf(g->tangent_deltas[k]));
        }
        tmax[t] = mx;
        /* the host copy in row order within the target: set_frame's lists writes then advance */
        for (uint32_t e = 0; e < g->count; e++) order[e] = ((uint64_t)g->indices[e] << 32) | e;
        if (g->count > 1) qsort(order, g->count, sizeof(uint64_t), cmp_u64);
        for (uint32_t oe = 0; oe < g->count; oe++) {
            uint32_t e = (uint32_t)order[oe], v = g->indices[e];
            hrow[hk] = rowof[v];
            uint32_t *ew = data + 4 * (size_t)(cnt[v] - m->data_used);
            float dn[3] = { 0, 0, 0 };
            if (g->normal_deltas) memcpy(dn, &g->normal_deltas[3 * (size_t)e], sizeof dn);
            ew[0] = t;
            memcpy(&ew[1], &g->position_deltas[3 * (size_t)e], 12);
            memcpy(&ew[4], dn, 12);
            ew[7] = 0;
            if (stride == SINEW_MORPH_ENTRY_SLOTS_TANGENT) {
                float dt[3] = { 0, 0, 0 };
                if (g->tangent_deltas) memcpy(dt, &g->tangent_deltas[3 * (size_t)e], sizeof dt);
                memcpy(&ew[8], dt, 12);
                ew[11] = 0;
            }
            uint32_t *hw = hdat + 4u * stride * (size_t)hk++; /* (dp, weight slot); (dn, 0)[; (dt, 0)] */
            memcpy(hw, &ew[1], 12);
            hw[3] = 0;
            memcpy(hw + 4, &ew[4], 16u * (stride - 1u));
            cnt[v] += stride;
        }
    }
    snw_gpu_free(m->gpu, cnt);
    snw_gpu_free(m->gpu, rowof);
    snw_gpu_free(m->gpu, order);
    uint32_t *lean_first = NULL, *lean_vertex = NULL, *lean_entry = NULL;
    if (m->lean_keep) { /* the lean reference kernel's host copy (debug) */
        lean_first = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * target_count);
        lean_vertex = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * (nnz ? nnz : 1));
        lean_entry = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * 8u * (nnz ? nnz : 1));
        if (lean_first && lean_vertex && lean_entry) {
            uint32_t k = 0;
            for (uint32_t t = 0; t < target_count; t++) {
                const sinew_morph_target *g = &targets[t];
                lean_first[t] = k;
                for (uint32_t e = 0; e < g->count; e++, k++) {
                    uint32_t *ew = lean_entry + 8 * (size_t)k;
                    float dn[3] = { 0, 0, 0 };
                    if (g->normal_deltas) memcpy(dn, &g->normal_deltas[3 * (size_t)e], sizeof dn);
                    lean_vertex[k] = g->indices[e];
                    ew[0] = t;
                    memcpy(&ew[1], &g->position_deltas[3 * (size_t)e], 12);
                    memcpy(&ew[4], dn, 12);
                    ew[7] = 0;
                }
            }
        } else {
            snw_gpu_free(m->gpu, lean_first);
            snw_gpu_free(m->gpu, lean_vertex);
            snw_gpu_free(m->gpu, lean_entry);
            lean_first = lean_vertex = lean_entry = NULL;
        }
    }
    if (need) {
        r = snw_vk_upload(m->gpu, m->data.buffer, (VkDeviceSize)m->data_used * 16u, data, (VkDeviceSize)need * 16u);
        snw_gpu_free(m->gpu, data);
        if (r != SINEW_OK) {
            snw_gpu_free(m->gpu, tfirst);
            snw_gpu_free(m->gpu, tcount);
            snw_gpu_free(m->gpu, tmax);
            snw_gpu_free(m->gpu, lean_first);
            snw_gpu_free(m->gpu, lean_vertex);
            snw_gpu_free(m->gpu, lean_entry);
            snw_gpu_free(m->gpu, hfirst);
            snw_gpu_free(m->gpu, hrow);
            snw_gpu_free(m->gpu, hdat);
            snw_gpu_free(m->gpu, hvert);
            return snw_fail_entry(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "upload failed");
        }
    }
    morph_set *s = &m->msets[m->set_count];
    s->base = base.value;
    snw_skinner_mesh_ref(m->sk, base.value, +1);
    s->targets = target_count;
    s->row_first = row_first;
    s->rows = rows;
    s->deltas = (uint32_t)nnz;
    s->entry_slots = stride;
    s->segments = 0;
    s->tfirst = tfirst;
    s->tcount = tcount;
    s->tmax = tmax;
    s->lean_first = lean_first;
    s->hfirst = hfirst;
    s->hrow = hrow;
    s->hdat = hdat;
    s->hvert = hvert;
    s->lean_vertex = lean_vertex;
    s->lean_entry = lean_entry;
    s->vertex_count = ml.vertex_count;
    m->data_used += (uint32_t)need;
    set->value = m->set_count++;
    return SINEW_OK;
}

sinew_result sinew_morpher_add_slot(sinew_morpher *m, sinew_morph_set_id set, sinew_morph_slot_id *slot)
{
    if (!m || !slot) return SINEW_ERROR_INVALID_ARGUMENT;
    if (set.value >= m->set_count) return SINEW_ERROR_NOT_FOUND;
    if (m->slot_count >= m->d.max_slots) return SINEW_ERROR_CAPACITY;
    uint32_t words = (m->msets[set.value].targets + 31u) / 32u;
    uint32_t *bits = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * 2u * words);
    if (!bits) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memset(bits, 0, sizeof(uint32_t) * 2u * words); /* the copy starts as the base: nothing baked */
    uint32_t copy;
    sinew_result r = snw_skinner_add_copy(m->sk, m->msets[set.value].base, &copy);
    if (r != SINEW_OK) {
        snw_gpu_free(m->gpu, bits);
        return r;
    }
    morph_slot *s = &m->slots[m->slot_count];
    s->baked = bits;
    s->next = bits + words;
    s->set = set.value;
    s->copy = copy;
    s->used_serial = 0;
    slot->value = m->slot_count++;
    return SINEW_OK;
}

sinew_skinner *snw_morpher_skinner(const sinew_morpher *m) { return m ? m->sk : NULL; }

sinew_result sinew_morpher_slot_mesh(const sinew_morpher *m, sinew_morph_slot_id slot, sinew_mesh_id *mesh)
{
    if (!m || !mesh) return SINEW_ERROR_INVALID_ARGUMENT;
    if (slot.value >= m->slot_count) return SINEW_ERROR_NOT_FOUND;
    mesh->value = m->slots[slot.value].copy;
    return SINEW_OK;
}

sinew_result sinew_morpher_set_skeleton(sinew_morpher *m, sinew_morph_set_id set, const sinew_skeleton *skel)
{
    if (!m || !skel) return SINEW_ERROR_INVALID_ARGUMENT;
    if (set.value >= m->set_count) return SINEW_ERROR_NOT_FOUND;
    morph_set *s = &m->msets[set.value];
    snw_mesh_layout ml;
    sinew_result r = snw_skinner_mesh_layout(m->sk, s->base, &ml);
    if (r != SINEW_OK) return r;
    uint32_t jc = sinew_skeleton_joint_count(skel);
    if (jc != ml.joint_count || !ml.has_bulge) return SINEW_ERROR_INVALID_ARGUMENT;
    if (s->segments) return SINEW_OK; /* one table per set (a set's base mesh has one skeleton) */
    uint32_t need = 2u * jc;
    if ((uint64_t)m->data_used + need > m->d.max_data_vec4) return SINEW_ERROR_CAPACITY;
    float *tab = (float *)snw_gpu_alloc(m->gpu, (size_t)need * 16u);
    if (!tab) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memset(tab, 0, (size_t)need * 16u);
    for (uint32_t j = 0; j < jc; j++) {
        sinew_vec3 h, t;
        sinew_skeleton_bone_segment(skel, j, &h, &t);
        float *e = tab + 8u * j;
        e[0] = (float)h.x; e[1] = (float)h.y; e[2] = (float)h.z;
        e[4] = (float)t.x; e[5] = (float)t.y; e[6] = (float)t.z;
    }
    r = snw_vk_upload(m->gpu, m->data.buffer, (VkDeviceSize)m->data_used * 16u, tab, (VkDeviceSize)need * 16u);
    snw_gpu_free(m->gpu, tab);
    if (r != SINEW_OK) return r;
    s->segments = 1u + m->data_used;
    m->data_used += need;
    return SINEW_OK;
}

uint32_t sinew_morpher_target_count(const sinew_morpher *m, sinew_morph_set_id set)
{
    return m && set.value < m->set_count ? m->msets[set.value].targets : 0;
}

sinew_result sinew_morpher_set_stats(const sinew_morpher *m, sinew_morph_set_id set, uint32_t *moved_vertices,
                                     uint32_t *stored_deltas)
{
    if (!m) return SINEW_ERROR_INVALID_ARGUMENT;
    if (set.value >= m->set_count) return SINEW_ERROR_NOT_FOUND;
    if (moved_vertices) *moved_vertices = m->msets[set.value].rows;
    if (stored_deltas) *stored_deltas = m->msets[set.value].deltas;
    return SINEW_OK;
}

/* Lists pass: one item's part of the frame's lists (item n of the frame, weights w of
 * the frame): a record per row a touched target moves (uvec4 at *rec: base and copy rest
 * slot, first and end uvec4 of its entries; the item n at uint item_at + record), then per
 * row the entries of its non-zero-weight touched targets, in target order, copied
 * contiguously from the set's host copy with the weight in word 3 (from uvec4 *pos:
 * (dp, w), (dn, 0)[, (dt, 0)]). A row only zero-weight targets touch gets an empty list
 * (the pass rewrites it from the base). */
static void list_item(sinew_morpher *m, const morph_set *st, const morph_slot *ms, uint32_t n, uint32_t src_first,
                      uint32_t dst_first, uint32_t rest_slots, const float *w, uint32_t *dst, uint32_t *rec,
                      uint32_t item_at, uint32_t *pos)
{
    uint32_t *cnt = m->row_scratch, *touched = m->row_scratch + m->row_scratch_n, nt = 0;
    const uint32_t slots = st->entry_slots;
    /* cnt[row]: 0 untouched, else 1 + its non-zero-weight touched deltas */
    for (uint32_t t = 0; t < st->targets; t++) {
        if (!((ms->next[t >> 5] | ms->baked[t >> 5]) >> (t & 31u) & 1u)) continue;
        uint32_t add = w[t] != 0.0f;
        for (uint32_t k = st->hfirst[t]; k < st->hfirst[t] + st->tcount[t]; k++) {
            uint32_t r = st->hrow[k] - st->row_first, c = cnt[r];
            touched[nt] = r; /* kept when the row is new (no branch: rows come in random order) */
            nt += c == 0;
            cnt[r] = c + (c == 0) + add;
        }
    }
    /* records in row order (neighbouring invocations read neighbouring rows) */
    if (nt > st->rows / 8u) {
        nt = 0;
        for (uint32_t r = 0; r < st->rows; r++)
            if (cnt[r]) touched[nt++] = r;
    } else if (nt > 1) {
        qsort(touched, nt, sizeof(uint32_t), cmp_u32);
    }
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t r = touched[i], *rc = dst + 4 * (size_t)*rec;
        dst[item_at + *rec] = n;
        (*rec)++;
        rc[0] = src_first + rest_slots * st->hvert[r];
        rc[1] = dst_first + rest_slots * st->hvert[r];
        rc[2] = *pos;
        *pos += slots * (cnt[r] - 1u);
        rc[3] = *pos;
        cnt[r] = rc[2];
    }
    for (uint32_t t = 0; t < st->targets; t++) {
        if (!(ms->next[t >> 5] >> (t & 31u) & 1u) || w[t] == 0.0f) continue;
        const uint32_t *src = st->hdat + 4u * slots * (size_t)st->hfirst[t];
        if (slots == SINEW_MORPH_ENTRY_SLOTS) {
            for (uint32_t k = st->hfirst[t]; k < st->hfirst[t] + st->tcount[t]; k++, src += 8) {
                uint32_t r = st->hrow[k] - st->row_first, *e = dst + 4 * (size_t)cnt[r];
                cnt[r] += 2u;
                memcpy(e, src, 32);
                memcpy(&e[3], &w[t], 4);
            }
        } else {
            for (uint32_t k = st->hfirst[t]; k < st->hfirst[t] + st->tcount[t]; k++, src += 12) {
                uint32_t r = st->hrow[k] - st->row_first, *e = dst + 4 * (size_t)cnt[r];
                cnt[r] += 3u;
                memcpy(e, src, 48);
                memcpy(&e[3], &w[t], 4);
            }
        }
    }
    for (uint32_t i = 0; i < nt; i++) cnt[touched[i]] = 0;
}

/* Lean reference kernel (debug): checks that every morphed item's set has its host
 * copy, grows the lean buffer to the frame's bound (waiting for the skinner), and
 * returns the records' capacity (entries follow it). */
static sinew_result lean_reserve(sinew_morpher *m, const sinew_morph_item *items, uint32_t count, uint32_t *rec_cap,
                                 sinew_morph_error *err)
{
    uint64_t recs = 0, ents = 0;
    uint32_t maxv = 0;
    for (uint32_t i = 0; i < count; i++) {
        const morph_slot *sl = &m->slots[items[i].slot.value];
        const morph_set *st = &m->msets[sl->set];
        if (!st->lean_first)
            return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_SLOT, i, UINT32_MAX,
                                  "item %u: its set was added before the lean kernel was selected (no host copy)", i);
        recs += st->rows;
        for (uint32_t t = 0; t < st->targets; t++)
            if (items[i].weights[t] != 0.0f || (sl->baked[t >> 5] >> (t & 31u) & 1u)) ents += 2u * st->tcount[t];
        if (st->vertex_count > maxv) maxv = st->vertex_count;
    }
    if (recs + ents > UINT32_MAX / 2)
        return snw_fail_entry(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, UINT32_MAX, "lean kernel: frame too large");
    if (maxv > m->lean_scratch_n) {
        snw_gpu_free(m->gpu, m->lean_scratch);
        m->lean_scratch = (uint32_t *)snw_gpu_alloc(m->gpu, sizeof(uint32_t) * maxv);
        m->lean_scratch_n = m->lean_scratch ? maxv : 0;
        if (!m->lean_scratch)
            return snw_fail_entry(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out of host memory");
        memset(m->lean_scratch, 0, sizeof(uint32_t) * maxv);
    }
    if (recs + ents > m->lean_vec4) {
        sinew_result r = sinew_skinner_wait(m->sk);
        if (r == SINEW_OK) r = lean_buffer(m, 2u * (recs + ents));
        if (r != SINEW_OK) return snw_fail_entry(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "lean kernel: buffer");
    }
    *rec_cap = (uint32_t)recs;
    return SINEW_OK;
}

/* One item's lean records (vertex order: base slot, copy slot, first entry, end entry) and
 * entries (absolute weight index, dp; dn, 0), every delta of its touched targets. */
static void lean_item(sinew_morpher *m, const morph_set *st, const morph_slot *ms, snw_mesh_layout bl,
                      snw_mesh_layout cl, uint32_t wused, uint32_t *base, uint32_t *recs, uint32_t *pos)
{
    uint32_t *sc = m->lean_scratch;
    for (uint32_t t = 0; t < st->targets; t++) {
        if (!(ms->next[t >> 5] >> (t & 31u) & 1u) && !(ms->baked[t >> 5] >> (t & 31u) & 1u)) continue;
        for (uint32_t k = st->lean_first[t]; k < st->lean_first[t] + st->tcount[t]; k++) sc[st->lean_vertex[k]]++;
    }
    for (uint32_t v = 0; v < st->vertex_count; v++) {
        if (!sc[v]) continue;
        uint32_t *rec = base + 4 * (size_t)(*recs)++;
        rec[0] = bl.first_slot + bl.rest_slots * v;
        rec[1] = cl.first_slot + cl.rest_slots * v;
        rec[2] = *pos;
        *pos += 2u * sc[v];
        rec[3] = *pos;
        sc[v] = rec[2];
    }
    for (uint32_t t = 0; t < st->targets; t++) {
        if (!(ms->next[t >> 5] >> (t & 31u) & 1u) && !(ms->baked[t >> 5] >> (t & 31u) & 1u)) continue;
        for (uint32_t k = st->lean_first[t]; k < st->lean_first[t] + st->tcount[t]; k++) {
            uint32_t v = st->lean_vertex[k];
            uint32_t *ew = base + 4 * (size_t)sc[v];
            memcpy(ew, st->lean_entry + 8 * (size_t)k, 32);
            ew[0] = wused + t;
            sc[v] += 2u;
        }
    }
    for (uint32_t t = 0; t < st->targets; t++) /* scratch back to zero */
        for (uint32_t k = st->lean_first[t]; k < st->lean_first[t] + st->tcount[t]; k++) sc[st->lean_vertex[k]] = 0;
}

sinew_result sinew_morpher_set_frame(sinew_morpher *m, const sinew_morph_item *items, uint32_t count,
                                     sinew_mesh_id *meshes_out, sinew_morph_error *err)
{
    snw_error_clear(err);
    if (!m || (count && (!items || !meshes_out)))
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "NULL morpher, items or meshes_out");
    uint32_t fs;
    sinew_result wr = snw_skinner_frame_slot(m->sk, &fs);
    if (wr != SINEW_OK)
        return snw_fail_entry(err, wr, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "waiting for the ring slot of the next frame failed");
    /* Validate everything first. */
    uint64_t serial = ++m->serial;
    uint64_t weights = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_morph_item *it = &items[i];
        if (it->slot.value >= m->slot_count)
            return snw_fail_entry(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MORPH_SLOT, i, UINT32_MAX, "item %u: unknown morph slot %u", i, it->slot.value);
        morph_slot *sl = &m->slots[it->slot.value];
        if (sl->used_serial == serial)
            return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_SLOT, i, UINT32_MAX, "item %u: morph slot %u named twice", i,
                        it->slot.value);
        sl->used_serial = serial;
        const morph_set *st = &m->msets[sl->set];
        sinew_morph_error we;
        sinew_result r = sinew_morph_check_weights(it->weights, it->weight_count, st->targets, &we);
        if (r != SINEW_OK)
            return snw_fail_entry(err, r, SINEW_ITEM_MORPH_SLOT, i, we.index, "item %u (slot %u): %s", i, it->slot.value, we.message);
        double sum = 0, top = 0;
        uint32_t top_t = 0;
        for (uint32_t t = 0; t < st->targets; t++) {
            double x = fabs((double)it->weights[t]) * st->tmax[t];
            sum += x;
            if (x > top) { top = x; top_t = t; }
        }
        if (!(sum <= SNW_MORPH_SUM_LIMIT))
            return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_SLOT, i, top_t,
                                  "item %u (slot %u): the weighted deltas may move a vertex by %g (sum of |weight| x the target's "
                                  "largest delta; target %u the largest term), beyond 1e18: skinned in float32 it would overflow",
                                  i, it->slot.value, sum, top_t);
        weights += st->targets;
    }
    if (weights > m->d.max_weights)
        return snw_fail_entry(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, UINT32_MAX, "%llu weights this frame, max_weights %u",
                    (unsigned long long)weights, m->d.max_weights);
    /* Lists pass: the frame's bound (a record of 4 words and an item word per touched
     * row, at most one per touched delta; 4 words per entry slot of each non-zero-weight
     * touched delta) against max_list_words. */
    uint64_t list_recs = 0, list_words = 0, touched_all = 0;
    for (uint32_t i = 0; i < count; i++) {
        const morph_slot *sl = &m->slots[items[i].slot.value];
        const morph_set *st = &m->msets[sl->set];
        uint64_t td = 0, nzd = 0;
        int any = 0;
        for (uint32_t t = 0; t < st->targets; t++) {
            int nz = items[i].weights[t] != 0.0f;
            any |= nz;
            if (nz || (sl->baked[t >> 5] >> (t & 31u) & 1u)) td += st->tcount[t];
            if (nz) nzd += st->tcount[t];
        }
        if (!any || st->rows == 0) continue;
        list_recs += td < st->rows ? td : st->rows;
        list_words += 4u * st->entry_slots * nzd;
        touched_all += td;
    }
    list_words += 4u * list_recs + 4u * ((list_recs + 3u) / 4u);
    int lists_fit = list_words <= m->d.max_list_words;
    if (m->d.pass == SINEW_MORPH_PASS_LISTS && !lists_fit)
        return snw_fail_entry(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, UINT32_MAX,
                              "lists pass: this frame needs up to %llu list words, max_list_words %u",
                              (unsigned long long)list_words, m->d.max_list_words);
    /* (the previous kernel, sinew_debug_set_morph_kernel, has no lists mode: AUTO's other rule) */
    /* AUTO: on a CPU device (lavapipe), LISTS below 3/4 of the stored deltas touched:
     * the lists cost set_frame a 32 B copy per touched delta (about 1.4-2 ms per 100 k
     * touched deltas on the loaded 2-core box), where ROWS streams every stored delta on
     * the GPU. sinew-bench-morph 2026-11-27 (32 characters, load 8-15): 32 of 64 targets
     * active, lists 32-69 ms GPU + 36-57 ms host against rows 93-172 ms GPU; 64 of 64,
     * lists 66-71 ms GPU + 50-68 ms host against rows 69-110 ms GPU. On a GPU, never
     * LISTS: on an H200 (512 characters, 8 of 64 targets active) they saved 0.34 ms of
     * GPU time over ACTIVE and cost 116 ms of host time in set_frame. */
    uint64_t stored_all = 0;
    for (uint32_t i = 0; i < count; i++) {
        const morph_set *st = &m->msets[m->slots[items[i].slot.value].set];
        stored_all += st->deltas;
    }
    int lists = lists_fit && m->kernel != SINEW_DEBUG_MORPH_PREVIOUS &&
                (m->d.pass == SINEW_MORPH_PASS_LISTS ||
                 (m->d.pass == SINEW_MORPH_PASS_AUTO && m->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU &&
                  4u * touched_all < 3u * stored_all));
    uint32_t *ldst = lists ? (uint32_t *)((uint8_t *)m->frame.mapped + fs * m->slot_stride + m->lists_offset) : NULL;
    /* records from uvec4 0, their items from uint 4 x list_recs, entries after them (uvec4) */
    uint32_t lrec = 0, litems = 4u * (uint32_t)list_recs, lpos = (uint32_t)(list_recs + (list_recs + 3u) / 4u);
    uint32_t lean_rec_cap = 0;
    if (m->kernel == SINEW_DEBUG_MORPH_LEAN) {
        sinew_result r = lean_reserve(m, items, count, &lean_rec_cap, err);
        if (r != SINEW_OK) return r;
    }
    uint32_t *lean_base = m->kernel == SINEW_DEBUG_MORPH_LEAN
                              ? (uint32_t *)((uint8_t *)m->lean.mapped + (size_t)fs * m->lean_vec4 * 16u) : NULL;
    uint32_t lean_recs = 0, lean_pos = lean_rec_cap;
    /* Write the slot's weights and items. */
    uint8_t *base = (uint8_t *)m->frame.mapped + fs * m->slot_stride;
    float *wdst = (float *)base;
    uint32_t *idst = (uint32_t *)(base + m->items_offset);
    uint32_t *pdst = (uint32_t *)(base + m->pairs_offset);
    uint32_t n = 0, wused = 0, max_rows = 0, npairs = 0, max_len = 0, extras = 0;
    uint64_t cost_deltas = 0, cost_active = 0;
    uint32_t *fsl = m->frame_slots + (size_t)fs * m->d.max_slots;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_morph_item *it = &items[i];
        const morph_slot *sl = &m->slots[it->slot.value];
        const morph_set *st = &m->msets[sl->set];
        int any = 0;
        for (uint32_t t = 0; t < st->targets; t++) any |= it->weights[t] != 0.0f;
        if (!any || st->rows == 0) {
            meshes_out[i].value = st->base;
            continue;
        }
        meshes_out[i].value = sl->copy;
        snw_mesh_layout bl, cl;
        snw_skinner_mesh_layout(m->sk, st->base, &bl);
        snw_skinner_mesh_layout(m->sk, sl->copy, &cl);
        /* Weights: +0.0 for an untouched target, -0.0 for a zero-weight target
         * whose deltas the copy still holds (the pass rewrites its vertices). */
        morph_slot *ms = &m->slots[it->slot.value];
        uint32_t words = (st->targets + 31u) / 32u;
        memset(ms->next, 0, sizeof(uint32_t) * words);
        for (uint32_t t = 0; t < st->targets; t++) {
            float w = it->weights[t];
            uint32_t bit = 1u << (t & 31u), baked = ms->baked[t >> 5] & bit;
            int touched = w != 0.0f || baked;
            if (w != 0.0f) {
                ms->next[t >> 5] |= bit;
                wdst[wused + t] = w;
            } else {
                uint32_t zb = baked ? SINEW_MORPH_TOUCHED_ZERO : 0u;
                memcpy(&wdst[wused + t], &zb, 4);
            }
            if (touched && st->tcount[t]) {
                uint32_t *pr = pdst + 4 * (size_t)npairs++;
                pr[0] = n;
                pr[1] = st->tfirst[t];
                pr[2] = st->tcount[t];
                pr[3] = t;
                if (st->tcount[t] > max_len) max_len = st->tcount[t];
                cost_active += st->tcount[t];
            }
        }
        cost_deltas += st->deltas;
        extras |= st->entry_slots == SINEW_MORPH_ENTRY_SLOTS_TANGENT || st->segments != 0;
        if (lean_base) lean_item(m, st, ms, bl, cl, wused, lean_base, &lean_recs, &lean_pos);
        if (ldst) list_item(m, st, ms, n, bl.first_slot, cl.first_slot, bl.rest_slots, it->weights, ldst, &lrec, litems, &lpos);
        fsl[n] = it->slot.value;
        uint32_t *rec = idst + 8 * (size_t)n;
        rec[0] = st->row_first;
        rec[1] = st->rows;
        rec[2] = bl.first_slot;
        rec[3] = cl.first_slot;
        rec[4] = wused;
        rec[5] = bl.rest_slots;
        rec[6] = st->entry_slots;
        rec[7] = st->segments;
        wused += st->targets;
        if (st->rows > max_rows) max_rows = st->rows;
        n++;
    }
    m->item_count[fs] = n;
    m->max_rows[fs] = max_rows;
    m->pair_count[fs] = npairs;
    m->max_pair_len[fs] = max_len;
    m->frame_nslots[fs] = n;
    m->lean_kernel[fs] = m->kernel;
    m->lean_count[fs] = lean_recs;
    /* AUTO: the active pass does one invocation per touched delta, each a
     * scattered walk of its row; the rows pass streams every stored delta.
     * On lavapipe (sinew-bench-morph) a touched delta costs 4-7x a streamed
     * one: ACTIVE was 2.4x cheaper with 1/16 of the deltas touched and 1.15x
     * dearer with 1/8, so it is taken below 1/12. */
    m->list_count[fs] = lrec;
    m->list_items[fs] = litems;
    m->extras[fs] = extras;
    if (lists) m->mode[fs] = SINEW_MORPH_MODE_LISTS;
    else if (m->d.pass == SINEW_MORPH_PASS_ROWS) m->mode[fs] = SINEW_MORPH_MODE_ROWS;
    else if (m->d.pass == SINEW_MORPH_PASS_ACTIVE) m->mode[fs] = SINEW_MORPH_MODE_ACTIVE;
    else m->mode[fs] = 12u * cost_active < cost_deltas ? SINEW_MORPH_MODE_ACTIVE : SINEW_MORPH_MODE_ROWS;
    m->active = n;
    return SINEW_OK;
}

sinew_result sinew_morpher_set_pass(sinew_morpher *m, sinew_morph_pass pass)
{
    if (!m || (uint32_t)pass > (uint32_t)SINEW_MORPH_PASS_LISTS) return SINEW_ERROR_INVALID_ARGUMENT;
    m->d.pass = pass;
    return SINEW_OK;
}

uint32_t sinew_morpher_active_items(const sinew_morpher *m) { return m ? m->active : 0; }

/* The lean reference kernel's dispatch (debug): one invocation per record, a 2D grid
 * of 64-wide groups; the same barriers as the pass. */
static sinew_result lean_record(sinew_morpher *m, VkCommandBuffer cmd, uint32_t slot)
{
    sinew_gpu *gpu = m->gpu;
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    uint32_t count = m->lean_count[slot];
    m->item_count[slot] = 0;
    if (count == 0) return SINEW_OK;
    uint32_t groups = (count + 63u) / 64u;
    uint32_t gx = groups < lim->maxComputeWorkGroupCount[0] ? groups : lim->maxComputeWorkGroupCount[0];
    uint32_t gy = (groups + gx - 1) / gx;
    if (gy > lim->maxComputeWorkGroupCount[1]) return SINEW_ERROR_LIMIT_EXCEEDED;
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd,
                                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                     VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    uint32_t push[2] = { count, gx * 64u };
    gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m->lean_pipe);
    gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m->lean_layout, 0, 1, &m->lean_sets[slot], 0,
                                    NULL);
    gpu->vk.vkCmdPushConstants(cmd, m->lean_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 8, push);
    gpu->vk.vkCmdDispatch(cmd, gx, gy, 1);
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    return SINEW_OK;
}

/* Recorded by sinew_skinner_record before its own barriers and dispatches. */
static sinew_result prepass(void *user, VkCommandBuffer cmd, uint32_t slot)
{
    sinew_morpher *m = (sinew_morpher *)user;
    uint32_t n = m->item_count[slot];
    if (n == 0) return SINEW_OK;
    sinew_gpu *gpu = m->gpu;
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    /* The copies now hold what this frame writes (the recorded frame is
     * assumed submitted, as for every other state the skinner records). */
    for (uint32_t i = 0; i < m->frame_nslots[slot]; i++) {
        morph_slot *ms = &m->slots[m->frame_slots[(size_t)slot * m->d.max_slots + i]];
        uint32_t words = (m->msets[ms->set].targets + 31u) / 32u;
        memcpy(ms->baked, ms->next, sizeof(uint32_t) * words);
    }
    m->frame_nslots[slot] = 0;
    uint32_t mode = m->mode[slot];
    if (m->lean_kernel[slot] == SINEW_DEBUG_MORPH_LEAN) return lean_record(m, cmd, slot);
    if (mode == SINEW_MORPH_MODE_LISTS) {
        n = m->list_count[slot];
        if (n == 0) {
            m->item_count[slot] = 0;
            return SINEW_OK;
        }
    }
    if (mode == SINEW_MORPH_MODE_ACTIVE) {
        n = m->pair_count[slot];
        if (n == 0) {
            m->item_count[slot] = 0;
            return SINEW_OK;
        }
    }
    uint32_t len = mode == SINEW_MORPH_MODE_ACTIVE ? m->max_pair_len[slot] : m->max_rows[slot];
    uint32_t gx = (len + SINEW_MORPH_WG_SIZE - 1) / SINEW_MORPH_WG_SIZE;
    uint32_t rows = n < lim->maxComputeWorkGroupCount[1] ? n : lim->maxComputeWorkGroupCount[1];
    uint32_t gz = (n + rows - 1) / rows;
    if (mode == SINEW_MORPH_MODE_LISTS) { /* records x + y * rows groups: rows = groups per grid row */
        uint32_t groups = (n + SINEW_MORPH_WG_SIZE - 1) / SINEW_MORPH_WG_SIZE;
        gx = groups < lim->maxComputeWorkGroupCount[0] ? groups : lim->maxComputeWorkGroupCount[0];
        rows = gx;
        uint32_t gy = (groups + gx - 1) / gx;
        if (gy > lim->maxComputeWorkGroupCount[1]) return SINEW_ERROR_LIMIT_EXCEEDED;
        gz = 1;
        len = gy; /* dispatched as (gx, gy, 1) below; ITEMS = records */
    }
    if (gx > lim->maxComputeWorkGroupCount[0] || gz > lim->maxComputeWorkGroupCount[2])
        return SINEW_ERROR_LIMIT_EXCEEDED;
    /* Host writes (weights, items) and earlier uses of the rest copies (skinning
     * reads of previous frames, copies) -> this pass's reads and writes. */
    VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
    mb.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd,
                                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                     VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    uint32_t push[SINEW_MORPH_PUSH_WORDS] = { 0 };
    push[SINEW_MORPH_PUSH_ITEMS] = n;
    push[SINEW_MORPH_PUSH_ROWS] = rows;
    push[SINEW_MORPH_PUSH_MODE] = mode;
    if (mode == SINEW_MORPH_MODE_LISTS) push[SINEW_MORPH_PUSH_LIST_ITEMS] = m->list_items[slot];
    gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                              m->lean_kernel[slot] == SINEW_DEBUG_MORPH_PREVIOUS ? m->prev_pipe
                                                                                  : m->pipes[mode][m->extras[slot]]);
    gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, m->layout, 0, 1, &m->sets[slot], 0, NULL);
    gpu->vk.vkCmdPushConstants(cmd, m->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, SINEW_MORPH_PUSH_BYTES, push);
    if (mode == SINEW_MORPH_MODE_LISTS) gpu->vk.vkCmdDispatch(cmd, gx, len, 1);
    else gpu->vk.vkCmdDispatch(cmd, gx, rows, gz);
    /* Rest copies written -> the skinning dispatches' reads (storage or texel). */
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &mb, 0, NULL, 0, NULL);
    m->item_count[slot] = 0;
    return SINEW_OK;
}
