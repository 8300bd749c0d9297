/* Pipelines of the GPU skinner: shader modules and layouts, and one
 * skin.comp pipeline per snw_pipe_key (variant x grid/records x read path x
 * workgroup size), each created at its first use. (The debug layer's override kernel creates
 * its own into sk->pipe_base / shader_base; they are destroyed here.) */
#include "skinner_internal.h"

static sinew_result make_pipeline(sinew_skinner *sk, VkShaderModule module, const uint32_t *spec,
                                  const VkSpecializationMapEntry *me, uint32_t n, VkPipeline *out)
{
    VkSpecializationInfo si = { n, me, n * sizeof(uint32_t), spec };
    return snw_vk_compute_pipeline(sk->gpu, SNW_VKA(sk->gpu), module, sk->layout, &si, out);
}

static uint32_t variant_number(variant_fields f)
{
    uint32_t base = (f.kind * 3u + f.bulge) * 3u + f.layout;
    return base + SNW_BASE_VARIANTS * (f.reset + 2u * f.tangents);
}

uint32_t snw_variant_of(const sinew_skinner *sk, const sinew_instance *in, const mesh_rec *mr)
{
    sinew_method m = in->method;
    variant_fields f;
    f.kind = m == SINEW_METHOD_LBS ? SINEW_KK_LBS : m == SINEW_METHOD_DQS ? SINEW_KK_DQS
             : m == SINEW_METHOD_COR ? SINEW_KK_COR
             : sinew_method_uses_centers(m) ? SINEW_KK_COR_SCALE /* the three CoR-with-scale methods */
             : SINEW_KK_DQS_SCALE;
    f.bulge = !(in->flags & SINEW_SKIN_BULGE_CORRECTION) ? 0u : (in->flags & SINEW_SKIN_BULGE_INNER) ? 2u : 1u;
    f.layout = mr->compact ? 2u : mr->influences == 8u ? 1u : 0u;
    f.reset = (sk->d.keep_previous && in->reset_previous) ? 1u : 0u;
    f.tangents = mr->has_tangents ? 1u : 0u;
    return variant_number(f);
}

uint8_t snw_wg_choice(uint32_t wg_size) { return wg_size == 256u ? 2u : wg_size == 128u ? 1u : 0u; }

/* The workgroup size of a choice (snw_wg_choice's inverse). */
static uint32_t wg_size_of(uint8_t wg) { return 64u << wg; }

snw_pipe_key snw_dispatch_key(const sinew_skinner *sk, const snw_dispatch *d, uint32_t texel)
{
    snw_pipe_key key = { d->variant, (uint8_t)d->grid, (uint8_t)texel, snw_wg_choice(sk->wg_size) };
    return key;
}

/* Where a key's pipeline sits in sinew_skinner.pipe (SNW_PIPES of them). */
static uint32_t pipe_slot(snw_pipe_key key)
{
    return ((key.variant * 2u + key.grid) * 2u + key.texel) * SNW_WG_CHOICES + key.wg;
}

sinew_result snw_skinner_pipeline(sinew_skinner *sk, snw_pipe_key key, VkPipeline *out)
{
    VkPipeline *pipe = &sk->pipe[pipe_slot(key)];
    if (!*pipe) {
        variant_fields f = snw_variant_fields_of(key.variant);
        uint32_t prev = !sk->d.keep_previous ? SINEW_PREV_NONE : f.reset ? SINEW_PREV_RESET : SINEW_PREV_KEEP;
        uint32_t spec[11] = { sk->d.output_format == SINEW_OUTPUT_PACKED ? 1u : 0u, key.texel, f.kind,
                              f.bulge != 0u, f.layout == 1u ? 8u : 4u, key.grid, wg_size_of(key.wg), prev, f.tangents,
                              f.bulge == 2u, f.layout == 2u };
        VkSpecializationMapEntry me[11] = {
            { SINEW_SPEC_OUTPUT_PACKED, 0, 4 }, { SINEW_SPEC_READ_TEXEL, 4, 4 }, { SINEW_SPEC_METHOD, 8, 4 },
            { SINEW_SPEC_BULGE, 12, 4 },        { SINEW_SPEC_INFLUENCES, 16, 4 }, { SINEW_SPEC_GRID, 20, 4 },
            { SINEW_SPEC_WG_SIZE, 24, 4 },      { SINEW_SPEC_PREVIOUS, 28, 4 }, { SINEW_SPEC_TANGENTS, 32, 4 },
            { SINEW_SPEC_BULGE_INNER, 36, 4 },  { SINEW_SPEC_COMPACT, 40, 4 },
        };
        sinew_result r = make_pipeline(sk, sk->shader, spec, me, 11, pipe);
        if (r != SINEW_OK) return r;
    }
    *out = *pipe;
    return SINEW_OK;
}

/* Workgroup size of the variant kernels by device type, chosen by measurement
 * (sinew-bench, bench/RESULTS.md). */
uint32_t snw_default_wg_size(const sinew_gpu *gpu)
{
    return gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 64u : 64u;
}

void snw_skinner_binding_types(VkDescriptorType types[SINEW_BIND_COUNT])
{
    for (uint32_t i = 0; i < SINEW_BIND_COUNT; i++) {
        types[i] = (i == SINEW_BIND_REST_TEXEL || i == SINEW_BIND_PALETTE_TEXEL || i == SINEW_BIND_BULGE_TEXEL ||
                    i == SINEW_BIND_TANGENT_REST_TEXEL || i == SINEW_BIND_COR_TEXEL || i == SINEW_BIND_OUTPUT_TEXEL ||
                    i == SINEW_BIND_WORK_TEXEL)
                       ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                       : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    }
}

sinew_result snw_skinner_create_pipelines(sinew_skinner *sk)
{
    sinew_gpu *gpu = sk->gpu;
    sinew_result r = snw_vk_shader(gpu, snw_spv_skin_comp, snw_spv_skin_comp_size, &sk->shader);
    if (r != SINEW_OK) return r;
    VkDescriptorType types[SINEW_BIND_COUNT];
    snw_skinner_binding_types(types);
    return snw_vk_compute_layout(gpu, SNW_VKA(gpu), types, SINEW_BIND_COUNT, SINEW_PUSH_BYTES, &sk->dsl, &sk->layout);
}

void snw_skinner_destroy_pipelines(sinew_skinner *sk)
{
    sinew_gpu *gpu = sk->gpu;
    VkDevice dev = gpu->device;
    const VkAllocationCallbacks *vka = SNW_VKA(gpu);
    for (uint32_t t = 0; t < SNW_PIPES; t++)
        if (sk->pipe[t]) gpu->vk.vkDestroyPipeline(dev, sk->pipe[t], vka);
    for (int t = 0; t < 2; t++)
        if (sk->pipe_base[t]) gpu->vk.vkDestroyPipeline(dev, sk->pipe_base[t], vka);
    if (sk->layout) gpu->vk.vkDestroyPipelineLayout(dev, sk->layout, vka);
    if (sk->dsl) gpu->vk.vkDestroyDescriptorSetLayout(dev, sk->dsl, vka);
    snw_vk_shader_destroy(gpu, sk->shader);
    snw_vk_shader_destroy(gpu, sk->shader_base);
}
