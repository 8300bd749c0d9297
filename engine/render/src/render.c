/* Renderer: one render pass (color + depth), a pipeline that reads the
 * skinner's output buffer as its vertex buffer (position at 0, normal at 12)
 * with per-mesh index buffers, and a ground-plane pipeline without vertex
 * input. Offscreen targets own a color image and a host-visible readback
 * buffer. Uses the gpu's per-device function table. */
#include <sinew/linalg.h>
#include "vk_internal.h"
#include <sinew/render.h>

#include <math.h>
#include <string.h>

extern const uint32_t snw_spv_render_vert[];
extern const size_t snw_spv_render_vert_size;
extern const uint32_t snw_spv_render_frag[];
extern const size_t snw_spv_render_frag_size;
extern const uint32_t snw_spv_render_ground_vert[];
extern const size_t snw_spv_render_ground_vert_size;
extern const uint32_t snw_spv_render_ground_frag[];
extern const size_t snw_spv_render_ground_frag_size;

/* Mirrors shaders/render.glsl. */
typedef struct render_push {
    float view_proj[16];
    float color[4];
    float light[4];
    float eye[4];
} render_push;
#define PUSH_COLOR_OFFSET 64u

typedef struct render_mesh {
    snw_vk_buffer ib;
    uint32_t index_count;
} render_mesh;

struct sinew_renderer {
    sinew_gpu *gpu;
    sinew_skinner *skinner;
    VkFormat color_format, depth_format;
    VkImageLayout final_layout;
    int encode_srgb;                 /* the color format is UNORM: encode in the shader */
    uint32_t max_meshes;
    render_mesh *meshes;
    VkRenderPass pass;
    VkPipelineLayout layout;
    VkPipeline pipe_char, pipe_ground;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;             /* 2 timestamps around the pass of sinew_renderer_render (none: no timestamps) */
    double last_ms;                  /* that pass's GPU time, < 0 before any */
};

typedef struct render_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
} render_image;

struct sinew_render_target {
    sinew_renderer *r;
    uint32_t width, height;
    render_image color;              /* own color image (offscreen) or none */
    render_image depth;
    VkImageView color_view;          /* the one used in the framebuffer */
    VkFramebuffer fb;
    snw_vk_buffer readback;        /* own target: width*height*4, host visible */
};

#define VK (&r->gpu->vk)

static int is_srgb(VkFormat f)
{
    return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

static sinew_result make_pass(sinew_renderer *r)
{
    VkAttachmentDescription att[2] = {0};
    att[0].format = r->color_format;
    att[0].samples = VK_SAMPLE_COUNT_1_BIT;
    att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att[0].finalLayout = r->final_layout;
    att[1] = att[0];
    att[1].format = r->depth_format;
    att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkAttachmentReference dref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = {0};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &cref;
    sub.pDepthStencilAttachment = &dref;
    const VkPipelineStageFlags att_stages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                            VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                            VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    VkSubpassDependency dep[2] = {0};
    /* previous use of the attachments (an earlier pass, or the readback copy) -> this pass */
    dep[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    dep[0].dstSubpass = 0;
    dep[0].srcStageMask = att_stages | VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    dep[0].dstStageMask = att_stages;
    dep[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                           VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    /* this pass -> a following copy of the color image */
    dep[1].srcSubpass = 0;
    dep[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    dep[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo ci = { VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
    ci.attachmentCount = 2;
    ci.pAttachments = att;
    ci.subpassCount = 1;
    ci.pSubpasses = &sub;
    ci.dependencyCount = 2;
    ci.pDependencies = dep;
    return snw_vk_result(VK->vkCreateRenderPass(r->gpu->device, &ci, SNW_VKA(r->gpu), &r->pass));
}

static sinew_result make_pipeline(sinew_renderer *r, int ground, VkPipeline *out)
{
    sinew_output_binding ob;
    sinew_skinner_output_binding(r->skinner, &ob);
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    sinew_result res = ground
        ? snw_vk_shader(r->gpu, snw_spv_render_ground_vert, snw_spv_render_ground_vert_size, &vs)
        : snw_vk_shader(r->gpu, snw_spv_render_vert, snw_spv_render_vert_size, &vs);
    if (res == SINEW_OK)
        res = ground ? snw_vk_shader(r->gpu, snw_spv_render_ground_frag, snw_spv_render_ground_frag_size, &fs)
                     : snw_vk_shader(r->gpu, snw_spv_render_frag, snw_spv_render_frag_size, &fs);
    if (res != SINEW_OK) {
        snw_vk_shader_destroy(r->gpu, vs);
        return res;
    }
    VkPipelineShaderStageCreateInfo st[2] = {
        { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT, vs, "main", NULL },
        { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fs, "main", NULL },
    };
    VkVertexInputBindingDescription bind = { 0, ob.stride, VK_VERTEX_INPUT_RATE_VERTEX };
    VkVertexInputAttributeDescription attr[2] = {
        { 0, 0, ob.position_format, 0 },
        { 1, 0, ob.normal_format, 12 },
    };
    VkPipelineVertexInputStateCreateInfo vi = { VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
    if (!ground) {
        vi.vertexBindingDescriptionCount = 1;
        vi.pVertexBindingDescriptions = &bind;
        vi.vertexAttributeDescriptionCount = 2;
        vi.pVertexAttributeDescriptions = attr;
    }
    VkPipelineInputAssemblyStateCreateInfo ia = { VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO };
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp = { VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO };
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs = { VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO };
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms = { VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO };
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds = { VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO };
    ds.depthTestEnable = VK_TRUE;
    ds.depthWriteEnable = VK_TRUE;
    ds.depthCompareOp = VK_COMPARE_OP_LESS;
    VkPipelineColorBlendAttachmentState cba = {0};
    cba.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                         VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb = { VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO };
    cb.attachmentCount = 1;
    cb.pAttachments = &cba;
    VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
    VkPipelineDynamicStateCreateInfo dy = { VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO };
    dy.dynamicStateCount = 2;
    dy.pDynamicStates = dyn;
    VkGraphicsPipelineCreateInfo ci = { VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
    ci.stageCount = 2;
    ci.pStages = st;
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vp;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pDepthStencilState = &ds;
    ci.pColorBlendState = &cb;
    ci.pDynamicState = &dy;
    ci.layout = r->layout;
    ci.renderPass = r->pass;
    VkResult vr = VK->vkCreateGraphicsPipelines(r->gpu->device, VK_NULL_HANDLE, 1, &ci, SNW_VKA(r->gpu), out);
    snw_vk_shader_destroy(r->gpu, vs);
    snw_vk_shader_destroy(r->gpu, fs);
    return snw_vk_result(vr);
}

void sinew_renderer_destroy(sinew_renderer *r)
{
    if (!r) return;
    VkDevice d = r->gpu->device;
    if (r->fence) {
        VK->vkWaitForFences(d, 1, &r->fence, VK_TRUE, UINT64_MAX);
        VK->vkDestroyFence(d, r->fence, SNW_VKA(r->gpu));
    }
    if (r->queries) VK->vkDestroyQueryPool(d, r->queries, SNW_VKA(r->gpu));
    if (r->pool) VK->vkDestroyCommandPool(d, r->pool, SNW_VKA(r->gpu));
    if (r->pipe_char) VK->vkDestroyPipeline(d, r->pipe_char, SNW_VKA(r->gpu));
    if (r->pipe_ground) VK->vkDestroyPipeline(d, r->pipe_ground, SNW_VKA(r->gpu));
    if (r->layout) VK->vkDestroyPipelineLayout(d, r->layout, SNW_VKA(r->gpu));
    if (r->pass) VK->vkDestroyRenderPass(d, r->pass, SNW_VKA(r->gpu));
    if (r->meshes)
        for (uint32_t i = 0; i < r->max_meshes; i++) snw_vk_buffer_destroy(r->gpu, &r->meshes[i].ib);
    snw_gpu_free(r->gpu, r->meshes);
    snw_gpu_free(r->gpu, r);
}

sinew_result sinew_renderer_create(sinew_gpu *gpu, sinew_skinner *skinner, const sinew_renderer_desc *desc,
                                   sinew_renderer **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!gpu || !skinner) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!(gpu->queue_flags & VK_QUEUE_GRAPHICS_BIT)) return SINEW_ERROR_NO_DEVICE;
    sinew_renderer_desc d = {0};
    if (desc) d = *desc;
    if (!d.color_format) d.color_format = VK_FORMAT_R8G8B8A8_UNORM;
    if (!d.depth_format) d.depth_format = VK_FORMAT_D32_SFLOAT;
    if (!d.final_layout) d.final_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    if (!d.max_meshes) d.max_meshes = SINEW_RENDERER_DEFAULT_MAX_MESHES;
    if (d.max_meshes > 65536) return SINEW_ERROR_LIMIT_EXCEEDED;
    VkFormatProperties fp;
    gpu->vki.GetPhysicalDeviceFormatProperties(gpu->phys, d.color_format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)) return SINEW_ERROR_INVALID_ARGUMENT;
    gpu->vki.GetPhysicalDeviceFormatProperties(gpu->phys, d.depth_format, &fp);
    if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) return SINEW_ERROR_INVALID_ARGUMENT;

    sinew_renderer *r = (sinew_renderer *)snw_gpu_alloc(gpu, sizeof *r);
    if (!r) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    r->gpu = gpu;
    r->skinner = skinner;
    r->color_format = d.color_format;
    r->depth_format = d.depth_format;
    r->final_layout = d.final_layout;
    r->encode_srgb = !is_srgb(d.color_format);
    r->max_meshes = d.max_meshes;
    r->meshes = (render_mesh *)snw_gpu_alloc(gpu, sizeof(render_mesh) * d.max_meshes);
    if (!r->meshes) {
        snw_gpu_free(gpu, r);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_result res = make_pass(r);
    if (res == SINEW_OK) {
        VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(render_push) };
        VkPipelineLayoutCreateInfo lci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
        lci.pushConstantRangeCount = 1;
        lci.pPushConstantRanges = &pcr;
        res = snw_vk_result(VK->vkCreatePipelineLayout(gpu->device, &lci, SNW_VKA(r->gpu), &r->layout));
    }
    if (res == SINEW_OK) res = make_pipeline(r, 0, &r->pipe_char);
    if (res == SINEW_OK) res = make_pipeline(r, 1, &r->pipe_ground);
    if (res == SINEW_OK) {
        VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
        pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pci.queueFamilyIndex = gpu->queue_family;
        res = snw_vk_result(VK->vkCreateCommandPool(gpu->device, &pci, SNW_VKA(r->gpu), &r->pool));
    }
    if (res == SINEW_OK) {
        VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
        ai.commandPool = r->pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        res = snw_vk_result(VK->vkAllocateCommandBuffers(gpu->device, &ai, &r->cmd));
    }
    if (res == SINEW_OK) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        res = snw_vk_result(VK->vkCreateFence(gpu->device, &fci, SNW_VKA(r->gpu), &r->fence));
    }
    r->last_ms = -1;
    if (res == SINEW_OK && gpu->timestamp_valid_bits) {
        VkQueryPoolCreateInfo qci = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
        qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qci.queryCount = 2;
        res = snw_vk_result(VK->vkCreateQueryPool(gpu->device, &qci, SNW_VKA(r->gpu), &r->queries));
    }
    if (res != SINEW_OK) {
        sinew_renderer_destroy(r);
        return res;
    }
    *out = r;
    return SINEW_OK;
}

VkRenderPass sinew_renderer_render_pass(const sinew_renderer *r) { return r ? r->pass : VK_NULL_HANDLE; }

sinew_result sinew_renderer_set_mesh(sinew_renderer *r, sinew_mesh_id mesh_id, const uint32_t *indices,
                                     uint32_t index_count, uint32_t vertex_count)
{
    uint32_t mesh = mesh_id.value;
    if (!r || !indices) return SINEW_ERROR_INVALID_ARGUMENT;
    if (index_count == 0 || vertex_count == 0) return SINEW_ERROR_EMPTY;
    if (index_count % 3) return SINEW_ERROR_INVALID_ARGUMENT;
    if (mesh >= r->max_meshes) return SINEW_ERROR_CAPACITY;
    for (uint32_t i = 0; i < index_count; i++)
        if (indices[i] >= vertex_count) return SINEW_ERROR_INVALID_ARGUMENT;
    render_mesh *m = &r->meshes[mesh];
    if (m->ib.buffer) {
        snw_vk_queue_wait_idle(r->gpu);
        snw_vk_buffer_destroy(r->gpu, &m->ib);
        m->index_count = 0;
    }
    VkDeviceSize bytes = (VkDeviceSize)index_count * 4u;
    sinew_result res = snw_vk_buffer_create(r->gpu, bytes,
                                              VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                              0, &m->ib);
    if (res == SINEW_OK) res = snw_vk_upload(r->gpu, m->ib.buffer, 0, indices, bytes);
    if (res != SINEW_OK) {
        snw_vk_buffer_destroy(r->gpu, &m->ib);
        return res;
    }
    m->index_count = index_count;
    return SINEW_OK;
}

static void image_destroy(sinew_renderer *r, render_image *im)
{
    VkDevice d = r->gpu->device;
    if (im->view) VK->vkDestroyImageView(d, im->view, SNW_VKA(r->gpu));
    if (im->image) VK->vkDestroyImage(d, im->image, SNW_VKA(r->gpu));
    if (im->memory) VK->vkFreeMemory(d, im->memory, SNW_VKA(r->gpu));
    memset(im, 0, sizeof *im);
}

static sinew_result image_create(sinew_renderer *r, uint32_t w, uint32_t h, VkFormat fmt, VkImageUsageFlags usage,
                                 VkImageAspectFlags aspect, render_image *im)
{
    VkDevice d = r->gpu->device;
    VkImageCreateInfo ci = { VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = fmt;
    ci.extent.width = w;
    ci.extent.height = h;
    ci.extent.depth = 1;
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkResult vr = VK->vkCreateImage(d, &ci, SNW_VKA(r->gpu), &im->image);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkMemoryRequirements req;
    VK->vkGetImageMemoryRequirements(d, im->image, &req);
    int type = -1;
    for (int pass = 0; pass < 2 && type < 0; pass++)
        for (uint32_t i = 0; i < r->gpu->mem.memoryTypeCount; i++) {
            VkMemoryPropertyFlags want = pass == 0 ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT : 0;
            if ((req.memoryTypeBits & (1u << i)) && (r->gpu->mem.memoryTypes[i].propertyFlags & want) == want) {
                type = (int)i;
                break;
            }
        }
    if (type < 0) return SINEW_ERROR_OUT_OF_DEVICE_MEMORY;
    VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = (uint32_t)type;
    vr = VK->vkAllocateMemory(d, &ai, SNW_VKA(r->gpu), &im->memory);
    if (vr == VK_SUCCESS) vr = VK->vkBindImageMemory(d, im->image, im->memory, 0);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkImageViewCreateInfo vci = { VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
    vci.image = im->image;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = fmt;
    vci.subresourceRange.aspectMask = aspect;
    vci.subresourceRange.levelCount = 1;
    vci.subresourceRange.layerCount = 1;
    return snw_vk_result(VK->vkCreateImageView(d, &vci, SNW_VKA(r->gpu), &im->view));
}

void sinew_render_target_destroy(sinew_render_target *t)
{
    if (!t) return;
    sinew_renderer *r = t->r;
    if (t->fb) VK->vkDestroyFramebuffer(r->gpu->device, t->fb, SNW_VKA(r->gpu));
    image_destroy(r, &t->color);
    image_destroy(r, &t->depth);
    snw_vk_buffer_destroy(r->gpu, &t->readback);
    snw_gpu_free(r->gpu, t);
}

sinew_result sinew_render_target_create(sinew_renderer *r, const sinew_render_target_desc *desc,
                                        sinew_render_target **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!r || !desc || desc->width == 0 || desc->height == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t width = desc->width, height = desc->height;
    VkImageView color_view = desc->color_view;
    const VkPhysicalDeviceLimits *lim = &r->gpu->props.limits;
    if (width > lim->maxFramebufferWidth || height > lim->maxFramebufferHeight) return SINEW_ERROR_LIMIT_EXCEEDED;
    if (!color_view && r->final_layout != VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_render_target *t = (sinew_render_target *)snw_gpu_alloc(r->gpu, sizeof *t);
    if (!t) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    t->r = r;
    t->width = width;
    t->height = height;
    sinew_result res = image_create(r, width, height, r->depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                    VK_IMAGE_ASPECT_DEPTH_BIT, &t->depth);
    if (res == SINEW_OK && !color_view) {
        res = image_create(r, width, height, r->color_format,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           VK_IMAGE_ASPECT_COLOR_BIT, &t->color);
        if (res == SINEW_OK)
            res = snw_vk_buffer_create(r->gpu, (VkDeviceSize)width * height * 4u, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                         VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                         1, &t->readback);
    }
    t->color_view = color_view ? color_view : t->color.view;
    if (res == SINEW_OK) {
        VkImageView views[2] = { t->color_view, t->depth.view };
        VkFramebufferCreateInfo fci = { VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
        fci.renderPass = r->pass;
        fci.attachmentCount = 2;
        fci.pAttachments = views;
        fci.width = width;
        fci.height = height;
        fci.layers = 1;
        res = snw_vk_result(VK->vkCreateFramebuffer(r->gpu->device, &fci, SNW_VKA(r->gpu), &t->fb));
    }
    if (res != SINEW_OK) {
        sinew_render_target_destroy(t);
        return res;
    }
    *out = t;
    return SINEW_OK;
}

static void instance_color(uint32_t i, float rgb[3])
{
    /* golden-ratio hues, moderate saturation */
    double h = fmod(0.13 + i * 0.6180339887498949, 1.0) * 6.0;
    double s = 0.55, v = 0.85;
    int k = (int)h;
    double f = h - k, p = v * (1 - s), q = v * (1 - s * f), u = v * (1 - s * (1 - f));
    double c[6][3] = { { v, u, p }, { q, v, p }, { p, v, u }, { p, q, v }, { u, p, v }, { v, p, q } };
    for (int j = 0; j < 3; j++) rgb[j] = (float)pow(c[k % 6][j], 2.2);
}

sinew_result sinew_renderer_record(sinew_renderer *r, VkCommandBuffer cmd, sinew_render_target *t,
                                   const sinew_render_view *view, const sinew_instance *instances,
                                   uint32_t count, const sinew_render_colors *colors)
{
    if (!r || !cmd || !t || !view || (count && !instances) || t->r != r) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < count; i++) {
        if (instances[i].mesh.value >= r->max_meshes || !r->meshes[instances[i].mesh.value].index_count)
            return SINEW_ERROR_NOT_FOUND;
        if (instances[i].output_offset > (uint32_t)INT32_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
    }
    for (int i = 0; i < 16; i++)
        if (!isfinite(view->view_proj[i])) return SINEW_ERROR_NON_FINITE;

    render_push pc;
    memset(&pc, 0, sizeof pc);
    memcpy(pc.view_proj, view->view_proj, sizeof pc.view_proj);
    float l[3] = { view->light_dir[0], view->light_dir[1], view->light_dir[2] };
    float ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    if (!(ll > 1e-12f) || !isfinite(ll)) {
        l[0] = -0.4f; l[1] = -1.0f; l[2] = -0.3f;
        ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    }
    for (int i = 0; i < 3; i++) {
        pc.light[i] = l[i] / ll;
        pc.eye[i] = view->eye[i];
    }
    pc.light[3] = r->encode_srgb ? 1.0f : 0.0f;

    VkClearValue clear[2];
    memset(clear, 0, sizeof clear);
    const float *cc = view->clear_color;
    if (cc[0] == 0 && cc[1] == 0 && cc[2] == 0 && cc[3] == 0) {
        clear[0].color.float32[0] = 0.10f;
        clear[0].color.float32[1] = 0.11f;
        clear[0].color.float32[2] = 0.14f;
        clear[0].color.float32[3] = 1.0f;
    } else {
        memcpy(clear[0].color.float32, cc, sizeof(float) * 4);
    }
    clear[1].depthStencil.depth = 1.0f;
    VkRenderPassBeginInfo bi = { VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
    bi.renderPass = r->pass;
    bi.framebuffer = t->fb;
    bi.renderArea.extent.width = t->width;
    bi.renderArea.extent.height = t->height;
    bi.clearValueCount = 2;
    bi.pClearValues = clear;
    VK->vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
    VkViewport vp = { 0, 0, (float)t->width, (float)t->height, 0, 1 };
    VkRect2D sc = { { 0, 0 }, { t->width, t->height } };
    VK->vkCmdSetViewport(cmd, 0, 1, &vp);
    VK->vkCmdSetScissor(cmd, 0, 1, &sc);
    const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;

    if (view->ground) {
        pc.color[3] = view->ground_extent > 0 ? view->ground_extent : 50.0f;
        pc.eye[3] = view->ground_height;
        VK->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipe_ground);
        VK->vkCmdPushConstants(cmd, r->layout, stages, 0, sizeof pc, &pc);
        VK->vkCmdDraw(cmd, 6, 1, 0, 0);
    }
    if (count) {
        sinew_output_binding ob;
        sinew_skinner_output_binding(r->skinner, &ob);
        pc.color[3] = 0;
        pc.eye[3] = 0;
        VK->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->pipe_char);
        VK->vkCmdPushConstants(cmd, r->layout, stages, 0, sizeof pc, &pc);
        VK->vkCmdBindVertexBuffers(cmd, 0, 1, &ob.buffer, &ob.offset);
        uint32_t bound = UINT32_MAX;
        for (uint32_t i = 0; i < count; i++) {
            const sinew_instance *in = &instances[i];
            const render_mesh *m = &r->meshes[in->mesh.value];
            if (in->mesh.value != bound) {
                VK->vkCmdBindIndexBuffer(cmd, m->ib.buffer, 0, VK_INDEX_TYPE_UINT32);
                bound = in->mesh.value;
            }
            float rgb[4] = { 0, 0, 0, 0 };
            if (colors && colors->rgb) memcpy(rgb, colors->rgb + (size_t)i * 3, sizeof(float) * 3);
            else instance_color(i, rgb);
            VK->vkCmdPushConstants(cmd, r->layout, stages, PUSH_COLOR_OFFSET, sizeof(float) * 4, rgb);
            VK->vkCmdDrawIndexed(cmd, m->index_count, 1, 0, (int32_t)in->output_offset, 0);
        }
    }
    VK->vkCmdEndRenderPass(cmd);

    if (t->readback.buffer) {
        VkBufferImageCopy reg = {0};
        reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        reg.imageSubresource.layerCount = 1;
        reg.imageExtent.width = t->width;
        reg.imageExtent.height = t->height;
        reg.imageExtent.depth = 1;
        VK->vkCmdCopyImageToBuffer(cmd, t->color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, t->readback.buffer, 1, &reg);
        VkBufferMemoryBarrier bb = { VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
        bb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        bb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        bb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        bb.buffer = t->readback.buffer;
        bb.size = VK_WHOLE_SIZE;
        VK->vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bb,
                                 0, NULL);
    }
    return SINEW_OK;
}

sinew_result sinew_renderer_render(sinew_renderer *r, sinew_render_target *t, const sinew_render_view *view,
                                   const sinew_instance *instances, uint32_t count,
                                   const sinew_render_colors *colors, bool skin)
{
    if (!r || !t || !view) return SINEW_ERROR_INVALID_ARGUMENT;
    VkDevice d = r->gpu->device;
    VkResult vr = VK->vkWaitForFences(d, 1, &r->fence, VK_TRUE, UINT64_MAX);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    vr = VK->vkResetCommandBuffer(r->cmd, 0);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vr = VK->vkBeginCommandBuffer(r->cmd, &bi);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    sinew_result res = SINEW_OK;
    if (skin) res = sinew_skinner_record(r->skinner, r->cmd);
    if (res == SINEW_OK && r->queries) { /* the pass (and its readback copy) between two timestamps */
        VK->vkCmdResetQueryPool(r->cmd, r->queries, 0, 2);
        VK->vkCmdWriteTimestamp(r->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->queries, 0);
    }
    if (res == SINEW_OK) res = sinew_renderer_record(r, r->cmd, t, view, instances, count, colors);
    if (res == SINEW_OK && r->queries)
        VK->vkCmdWriteTimestamp(r->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r->queries, 1);
    vr = VK->vkEndCommandBuffer(r->cmd);
    if (res != SINEW_OK) return res;
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VK->vkResetFences(d, 1, &r->fence);
    VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
    si.commandBufferCount = 1;
    si.pCommandBuffers = &r->cmd;
    vr = snw_vk_queue_submit(r->gpu, 1, &si, r->fence);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    vr = VK->vkWaitForFences(d, 1, &r->fence, VK_TRUE, UINT64_MAX);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    if (r->queries) {
        uint64_t q[4];
        vr = VK->vkGetQueryPoolResults(d, r->queries, 0, 2, sizeof q, q, 2 * sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        if (vr == VK_SUCCESS && q[1] && q[3]) {
            uint32_t bits = r->gpu->timestamp_valid_bits;
            uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
            r->last_ms = (double)((q[2] - q[0]) & mask) * (double)r->gpu->props.limits.timestampPeriod * 1e-6;
        }
    }
    /* we waited ourselves: the skinner need not track our fence */
    if (skin) res = sinew_skinner_end_frame(r->skinner, VK_NULL_HANDLE);
    return res;
}

sinew_result sinew_renderer_gpu_time(const sinew_renderer *r, double *ms)
{
    if (!r || !ms) return SINEW_ERROR_INVALID_ARGUMENT;
    *ms = 0;
    if (!r->queries) return SINEW_ERROR_LIMIT_EXCEEDED;
    if (r->last_ms < 0) return SINEW_ERROR_NOT_FOUND;
    *ms = r->last_ms;
    return SINEW_OK;
}

sinew_result sinew_render_target_read(sinew_render_target *t, uint8_t *rgba)
{
    if (!t || !rgba || !t->readback.mapped) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_renderer *r = t->r;
    size_t bytes = (size_t)t->width * t->height * 4u;
    VkMappedMemoryRange range = { VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };
    range.memory = t->readback.memory;
    range.size = VK_WHOLE_SIZE;
    VK->vkInvalidateMappedMemoryRanges(r->gpu->device, 1, &range);
    memcpy(rgba, t->readback.mapped, bytes);
    if (r->color_format == VK_FORMAT_B8G8R8A8_UNORM || r->color_format == VK_FORMAT_B8G8R8A8_SRGB)
        for (size_t i = 0; i < bytes; i += 4) {
            uint8_t b = rgba[i];
            rgba[i] = rgba[i + 2];
            rgba[i + 2] = b;
        }
    return SINEW_OK;
}

void sinew_render_camera(float view_proj[16], const float eye[3], const float target[3],
                         float fov_y_rad, float aspect, float z_near, float z_far)
{
    double f[3] = { target[0] - eye[0], target[1] - eye[1], target[2] - eye[2] };
    double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    if (fl <= 0) fl = 1, f[2] = -1;
    for (int i = 0; i < 3; i++) f[i] /= fl;
    double up[3] = { 0, 1, 0 };
    if (fabs(f[1]) > 0.999) up[1] = 0, up[2] = 1;
    double s[3] = { f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0] };
    double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int i = 0; i < 3; i++) s[i] /= sl;
    double u[3] = { s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0] };
    /* view matrix rows: s, u, -f; translation -R eye */
    double v[4][4] = { { 0 } }; /* v[col][row] */
    for (int c = 0; c < 3; c++) {
        v[c][0] = s[c];
        v[c][1] = u[c];
        v[c][2] = -f[c];
    }
    v[3][0] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    v[3][1] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    v[3][2] = (f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2]);
    v[3][3] = 1;
    double t = 1.0 / tan(0.5 * (double)fov_y_rad);
    double p[4][4] = { { 0 } };
    p[0][0] = t / (double)aspect;
    p[1][1] = -t; /* Vulkan: y down */
    p[2][2] = (double)z_far / ((double)z_near - (double)z_far);
    p[2][3] = -1;
    p[3][2] = (double)z_near * (double)z_far / ((double)z_near - (double)z_far);
    for (int c = 0; c < 4; c++)
        for (int rr = 0; rr < 4; rr++) {
            double acc = 0;
            for (int k = 0; k < 4; k++) acc += p[k][rr] * v[c][k];
            view_proj[c * 4 + rr] = (float)acc;
        }
}
