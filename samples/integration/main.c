/* sinew-integration: how an engine embeds Sinew.
 *
 * The host owns everything Vulkan: instance, device, queue, command buffers,
 * fences, its render pass and pipeline (host.vert/host.frag), an offscreen
 * color + depth image. It wraps its device with sinew_gpu_create_external and,
 * every frame, in ONE of its own command buffers:
 *     sinew_crowd_prepare()                 palettes into Sinew's mapped ring (CPU, all cores)
 *     sinew_skinner_record(sk, cmd)         barriers + one dispatch + barrier to vertex input
 *     vkCmdBeginRenderPass ... draw         binds sinew_skinner_output_binding() as a vertex buffer,
 *                                           vertexOffset = instance.output_offset
 *     vkQueueSubmit(..., fence)
 *     sinew_skinner_end_frame(sk, fence)    the ring slot is reused only after the fence
 * with two frames in flight. At the end it checks the result: skinned positions
 * against Sinew's float64 reference, and pixels of the image (every character
 * drawn where its skinned vertices project, background elsewhere). Exit status
 * 0 when all checks pass; validation messages (SINEW_VALIDATION=1) fail it. */
#define _POSIX_C_SOURCE 200809L
#include <volk.h>
#include <sinew/sinew.h>
#include "sinew_scene.h"
#include <sinew/crowd.h>
#include <sinew/debug.h>
#include <sinew/render.h> /* only for sinew_render_camera, a matrix helper */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const uint32_t snw_spv_integration_host_vert[];
extern const size_t snw_spv_integration_host_vert_size;
extern const uint32_t snw_spv_integration_host_frag[];
extern const size_t snw_spv_integration_host_frag_size;

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define W 480
#define H 360
#define NCHAR 6
#define FRAMES 2
#define NFRAMES 5

#define VKCHECK(x) do { VkResult vr_ = (x); if (vr_ != VK_SUCCESS) { fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)vr_); exit(1); } } while (0)
#define SCHECK(x) do { sinew_result sr_ = (x); if (sr_ != SINEW_OK) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, sinew_result_string(sr_)); exit(1); } } while (0)
/* The same for calls that fill a sinew_error_info: its message names what was at fault. */
#define SCHECK_ERR(x, e) do { sinew_result sr_ = (x); if (sr_ != SINEW_OK) { fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #x, sinew_result_string(sr_), (e).message); exit(1); } } while (0)

typedef struct host {
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t qf;
    VkPhysicalDeviceMemoryProperties mem;
    int validation;
} host;

static uint32_t mem_type(const host *h, uint32_t bits, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < h->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (h->mem.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "no memory type\n");
    exit(1);
}

static void make_image(const host *h, VkFormat fmt, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage *img,
                       VkDeviceMemory *mem, VkImageView *view)
{
    VkImageCreateInfo ci = { VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = fmt;
    ci.extent.width = W;
    ci.extent.height = H;
    ci.extent.depth = 1;
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    VKCHECK(vkCreateImage(h->dev, &ci, NULL, img));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(h->dev, *img, &req);
    VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = mem_type(h, req.memoryTypeBits, 0);
    VKCHECK(vkAllocateMemory(h->dev, &ai, NULL, mem));
    VKCHECK(vkBindImageMemory(h->dev, *img, *mem, 0));
    VkImageViewCreateInfo vci = { VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
    vci.image = *img;
    vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vci.format = fmt;
    vci.subresourceRange.aspectMask = aspect;
    vci.subresourceRange.levelCount = 1;
    vci.subresourceRange.layerCount = 1;
    VKCHECK(vkCreateImageView(h->dev, &vci, NULL, view));
}

static void make_buffer(const host *h, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer *buf, VkDeviceMemory *mem,
                        void **map)
{
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = usage;
    VKCHECK(vkCreateBuffer(h->dev, &bci, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(h->dev, *buf, &req);
    VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = mem_type(h, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VKCHECK(vkAllocateMemory(h->dev, &ai, NULL, mem));
    VKCHECK(vkBindBufferMemory(h->dev, *buf, *mem, 0));
    VKCHECK(vkMapMemory(h->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
}

static int has_layer(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *p = calloc(n ? n : 1, sizeof *p);
    vkEnumerateInstanceLayerProperties(&n, p);
    int found = 0;
    for (uint32_t i = 0; i < n; i++) found |= !strcmp(p[i].layerName, name);
    free(p);
    return found;
}

static void host_init(host *h)
{
    VKCHECK(volkInitialize());
    const char *env = getenv("SINEW_VALIDATION");
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    h->validation = env && *env == '1' && has_layer(layer);
    VkApplicationInfo ai = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    ai.pApplicationName = "sinew-integration";
    ai.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &ai;
    ici.enabledLayerCount = h->validation ? 1 : 0;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = h->validation ? 1 : 0;
    ici.ppEnabledExtensionNames = &ext;
    VKCHECK(vkCreateInstance(&ici, NULL, &h->inst));
    volkLoadInstance(h->inst);
    uint32_t np = 16;
    VkPhysicalDevice pds[16];
    VkResult er = vkEnumeratePhysicalDevices(h->inst, &np, pds);
    if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || np == 0) {
        fprintf(stderr, "no Vulkan device\n");
        exit(1);
    }
    int best = -1;
    for (uint32_t i = 0; i < np && best < 0; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (p.apiVersion < VK_API_VERSION_1_1) continue;
        uint32_t nq = 16;
        VkQueueFamilyProperties qp[16];
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nq, qp);
        for (uint32_t q = 0; q < nq; q++) {
            VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if ((qp[q].queueFlags & need) == need && qp[q].timestampValidBits) {
                best = (int)i;
                h->qf = q;
                break;
            }
        }
    }
    if (best < 0) {
        fprintf(stderr, "no device with a graphics + compute queue\n");
        exit(1);
    }
    h->phys = pds[best];
    vkGetPhysicalDeviceMemoryProperties(h->phys, &h->mem);
    float prio = 1;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = h->qf;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VKCHECK(vkCreateDevice(h->phys, &dci, NULL, &h->dev));
    volkLoadDevice(h->dev);
    vkGetDeviceQueue(h->dev, h->qf, 0, &h->queue);
}

/* The host's pipeline: vertex input described by what Sinew reports. */
static VkPipeline make_pipeline(const host *h, VkRenderPass pass, VkPipelineLayout layout, const sinew_output_binding *ob)
{
    VkShaderModule vs, fs;
    VkShaderModuleCreateInfo smi = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO };
    smi.codeSize = snw_spv_integration_host_vert_size;
    smi.pCode = snw_spv_integration_host_vert;
    VKCHECK(vkCreateShaderModule(h->dev, &smi, NULL, &vs));
    smi.codeSize = snw_spv_integration_host_frag_size;
    smi.pCode = snw_spv_integration_host_frag;
    VKCHECK(vkCreateShaderModule(h->dev, &smi, NULL, &fs));
    VkPipelineShaderStageCreateInfo st[2] = {
        { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT, vs, "main", NULL },
        { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT, fs, "main", NULL } };
    VkVertexInputBindingDescription bind = { 0, ob->stride, VK_VERTEX_INPUT_RATE_VERTEX };
    VkVertexInputAttributeDescription attr[2] = { { 0, 0, ob->position_format, 0 }, { 1, 0, ob->normal_format, 12 } };
    VkPipelineVertexInputStateCreateInfo vi = { VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
    vi.vertexBindingDescriptionCount = 1;
    vi.pVertexBindingDescriptions = &bind;
    vi.vertexAttributeDescriptionCount = 2;
    vi.pVertexAttributeDescriptions = attr;
    VkPipelineInputAssemblyStateCreateInfo ia = { VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO };
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport vp = { 0, 0, W, H, 0, 1 };
    VkRect2D sc = { { 0, 0 }, { W, H } };
    VkPipelineViewportStateCreateInfo vps = { VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO };
    vps.viewportCount = 1;
    vps.pViewports = &vp;
    vps.scissorCount = 1;
    vps.pScissors = &sc;
    VkPipelineRasterizationStateCreateInfo rs = { VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO };
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.lineWidth = 1;
    VkPipelineMultisampleStateCreateInfo ms = { VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO };
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds = { VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO };
    ds.depthTestEnable = VK_TRUE;
    ds.depthWriteEnable = VK_TRUE;
    ds.depthCompareOp = VK_COMPARE_OP_LESS;
    VkPipelineColorBlendAttachmentState cba = { 0 };
    cba.colorWriteMask = 0xf;
    VkPipelineColorBlendStateCreateInfo cb = { VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO };
    cb.attachmentCount = 1;
    cb.pAttachments = &cba;
    VkGraphicsPipelineCreateInfo ci = { VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
    ci.stageCount = 2;
    ci.pStages = st;
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vps;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pDepthStencilState = &ds;
    ci.pColorBlendState = &cb;
    ci.layout = layout;
    ci.renderPass = pass;
    VkPipeline p;
    VKCHECK(vkCreateGraphicsPipelines(h->dev, VK_NULL_HANDLE, 1, &ci, NULL, &p));
    vkDestroyShaderModule(h->dev, vs, NULL);
    vkDestroyShaderModule(h->dev, fs, NULL);
    return p;
}

static sinew_result tube_motion(void *user, const sinew_skeleton *skel, uint32_t character, double t, sinew_transform *out)
{
    (void)user;
    (void)skel;
    scene_tube_pose(0.9 * sin(t + character), 2.5 * cos(0.8 * t), NULL, out);
    return SINEW_OK;
}

int main(void)
{
    host h;
    memset(&h, 0, sizeof h);
    host_init(&h);

    /* ---- Sinew on the host's device ---- */
    sinew_gpu_external_desc ed = { 0 };
    ed.get_instance_proc_addr = vkGetInstanceProcAddr;
    ed.instance = h.inst;
    ed.physical_device = h.phys;
    ed.device = h.dev;
    ed.queue = h.queue;
    ed.queue_family = h.qf;
    ed.api_version = VK_API_VERSION_1_1;
    ed.debug_utils_enabled = h.validation;
    sinew_gpu *gpu = NULL;
    sinew_error_info serr;
    SCHECK_ERR(sinew_gpu_create_external(&ed, &gpu, &serr), serr);
    printf("device: %s (host-created, wrapped)\n", sinew_gpu_info(gpu)->name);

    scene_tube_desc td = { 24, 16, 0.1, 2 };
    uint32_t nv, ni;
    scene_tube_counts(&td, &nv, &ni);
    float *pos = malloc(12 * nv), *nrm = malloc(12 * nv), *w4 = malloc(16 * nv);
    uint32_t *j4 = malloc(16 * nv), *idx = malloc(4 * ni);
    sinew_skeleton *skel = NULL;
    SCHECK(scene_tube_build(&td, pos, nrm, j4, w4, idx));
    SCHECK(scene_tube_skeleton(NULL, &skel));
    /* the rest mesh: packed vertices (4 influences), bulge distances, culling bounds */
    sinew_rest_mesh_desc rd = { 0 };
    rd.skeleton = skel;
    rd.vertex_count = nv;
    rd.positions = pos;
    rd.normals = nrm;
    rd.influences.per_vertex = 4;
    rd.influences.joints = j4;
    rd.influences.weights = w4;
    sinew_rest_mesh *rm = NULL;
    SCHECK_ERR(sinew_rest_mesh_create(&rd, &rm, &serr), serr);
    const sinew_vertex *verts = sinew_rest_mesh_vertices(rm);

    sinew_skinner_desc sd = { 0 };
    sd.max_instances = NCHAR;
    sd.max_output_vertices = NCHAR * nv;
    sd.max_palette_vec4 = NCHAR * 3 * 5;
    sd.max_meshes = 1;
    sd.frames_in_flight = FRAMES;
    sinew_skinner *sk = NULL;
    SCHECK_ERR(sinew_skinner_create(gpu, &sd, &sk, &serr), serr);
    sinew_mesh_id mesh = { 0 };
    SCHECK_ERR(sinew_skinner_add_rest_mesh(sk, rm, &mesh, &serr), serr);
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = NCHAR;
    cd.max_joints = 3;
    sinew_crowd *crowd = NULL;
    SCHECK_ERR(sinew_crowd_create(&cd, &crowd, &serr), serr);
    const sinew_rest_mesh *rest_meshes[1] = { rm };
    sinew_crowd_model_desc cm = { 0 };
    cm.skeleton = skel;
    cm.mesh_count = 1;
    cm.meshes = &mesh;
    cm.rest_meshes = rest_meshes; /* the vertex count (and culling bounds) */
    sinew_model_id model = { 0 };
    SCHECK_ERR(sinew_crowd_add_model(crowd, &cm, &model, &serr), serr);

    /* characters: a row of upright tubes, methods cycling LBS / DQS / DQS with scale */
    sinew_crowd_character ch[NCHAR];
    sinew_mat4 roots[NCHAR];
    memset(ch, 0, sizeof ch);
    sinew_quat up = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 0.5 * M_PI);
    for (int i = 0; i < NCHAR; i++) {
        roots[i] = sinew_mat4_from_rigid(up, sinew_v3(-2.5 + i, 0, 0));
        ch[i].model = model;
        ch[i].method = (sinew_method)(i % 3);
        ch[i].root = &roots[i];
        ch[i].sample = tube_motion;
    }

    /* ---- the host's renderer ---- */
    sinew_output_binding ob;
    sinew_skinner_output_binding(sk, &ob); /* what to bind: buffer, offset, stride, formats */
    VkImage color, depth;
    VkDeviceMemory color_mem, depth_mem;
    VkImageView color_view, depth_view;
    make_image(&h, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
               VK_IMAGE_ASPECT_COLOR_BIT, &color, &color_mem, &color_view);
    make_image(&h, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, &depth,
               &depth_mem, &depth_view);
    VkBuffer ibuf, rbuf;
    VkDeviceMemory imem, rmem;
    void *imap, *rmap;
    make_buffer(&h, 4ull * ni, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ibuf, &imem, &imap);
    memcpy(imap, idx, 4ull * ni);
    make_buffer(&h, 4ull * W * H, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rbuf, &rmem, &rmap);

    VkAttachmentDescription att[2] = { { 0 }, { 0 } };
    att[0].format = VK_FORMAT_R8G8B8A8_UNORM;
    att[0].samples = VK_SAMPLE_COUNT_1_BIT;
    att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    att[1] = att[0];
    att[1].format = VK_FORMAT_D32_SFLOAT;
    att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkAttachmentReference dref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = { 0 };
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &cref;
    sub.pDepthStencilAttachment = &dref;
    VkSubpassDependency dep = { 0 };
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                       VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                        VK_ACCESS_TRANSFER_READ_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                       VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                        VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    VkRenderPassCreateInfo rpi = { VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
    rpi.attachmentCount = 2;
    rpi.pAttachments = att;
    rpi.subpassCount = 1;
    rpi.pSubpasses = &sub;
    rpi.dependencyCount = 1;
    rpi.pDependencies = &dep;
    VkRenderPass pass;
    VKCHECK(vkCreateRenderPass(h.dev, &rpi, NULL, &pass));
    VkImageView views[2] = { color_view, depth_view };
    VkFramebufferCreateInfo fbi = { VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
    fbi.renderPass = pass;
    fbi.attachmentCount = 2;
    fbi.pAttachments = views;
    fbi.width = W;
    fbi.height = H;
    fbi.layers = 1;
    VkFramebuffer fb;
    VKCHECK(vkCreateFramebuffer(h.dev, &fbi, NULL, &fb));
    VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 64 };
    VkPipelineLayoutCreateInfo pli = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pcr;
    VkPipelineLayout layout;
    VKCHECK(vkCreatePipelineLayout(h.dev, &pli, NULL, &layout));
    VkPipeline pipe = make_pipeline(&h, pass, layout, &ob);

    VkCommandPool pool;
    VkCommandPoolCreateInfo cpi = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = h.qf;
    VKCHECK(vkCreateCommandPool(h.dev, &cpi, NULL, &pool));
    VkCommandBuffer cmd[FRAMES];
    VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    cai.commandPool = pool;
    cai.commandBufferCount = FRAMES;
    VKCHECK(vkAllocateCommandBuffers(h.dev, &cai, cmd));
    VkFence fence[FRAMES];
    for (int i = 0; i < FRAMES; i++) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VKCHECK(vkCreateFence(h.dev, &fci, NULL, &fence[i]));
    }
    float eye[3] = { 0, 0.6f, 6.5f }, target[3] = { 0, 0.5f, 0 };
    float vp[16];
    sinew_render_camera(vp, eye, target, 0.75f, (float)W / H, 0.1f, 50.0f);

    /* ---- frames: two in flight ---- */
    double t = 0;
    for (int frame = 0; frame < NFRAMES; frame++) {
        int f = frame % FRAMES;
        VKCHECK(vkWaitForFences(h.dev, 1, &fence[f], VK_TRUE, UINT64_MAX));
        t = 0.4 * frame;
        for (int i = 0; i < NCHAR; i++) ch[i].time = t;
        SCHECK_ERR(sinew_crowd_prepare(crowd, ch, NCHAR, NULL, &serr), serr);
        uint32_t ninst = 0;
        const sinew_instance *inst = sinew_crowd_instances(crowd, &ninst);

        VkCommandBuffer c = cmd[f];
        VKCHECK(vkResetCommandBuffer(c, 0));
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VKCHECK(vkBeginCommandBuffer(c, &bi));
        SCHECK(sinew_skinner_record(sk, c)); /* outside any render pass */
        VkClearValue clear[2];
        memset(clear, 0, sizeof clear);
        clear[0].color.float32[3] = 1;
        clear[1].depthStencil.depth = 1;
        VkRenderPassBeginInfo rbi = { VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
        rbi.renderPass = pass;
        rbi.framebuffer = fb;
        rbi.renderArea.extent.width = W;
        rbi.renderArea.extent.height = H;
        rbi.clearValueCount = 2;
        rbi.pClearValues = clear;
        vkCmdBeginRenderPass(c, &rbi, VK_SUBPASS_CONTENTS_INLINE);
        vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
        vkCmdPushConstants(c, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 64, vp);
        vkCmdBindVertexBuffers(c, 0, 1, &ob.buffer, &ob.offset);
        vkCmdBindIndexBuffer(c, ibuf, 0, VK_INDEX_TYPE_UINT32);
        for (uint32_t i = 0; i < ninst; i++) vkCmdDrawIndexed(c, ni, 1, 0, (int32_t)inst[i].output_offset, 0);
        vkCmdEndRenderPass(c);
        VkBufferImageCopy reg = { 0 };
        reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        reg.imageSubresource.layerCount = 1;
        reg.imageExtent.width = W;
        reg.imageExtent.height = H;
        reg.imageExtent.depth = 1;
        vkCmdCopyImageToBuffer(c, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rbuf, 1, &reg);
        VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
        hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, NULL, 0, NULL);
        VKCHECK(vkEndCommandBuffer(c));
        VKCHECK(vkResetFences(h.dev, 1, &fence[f]));
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.commandBufferCount = 1;
        si.pCommandBuffers = &c;
        VKCHECK(vkQueueSubmit(h.queue, 1, &si, fence[f]));
        SCHECK(sinew_skinner_end_frame(sk, fence[f]));
    }
    VKCHECK(vkQueueWaitIdle(h.queue));

    /* ---- checks: skinned positions vs the float64 reference, then pixels ---- */
    int failures = 0;
    float *gpos = malloc(sizeof(float) * 3 * nv * NCHAR);
    double *rpos = malloc(sizeof(double) * 3 * nv);
    SCHECK(sinew_skinner_read_output(sk, 0, nv * NCHAR, gpos, NULL));
    sinew_palette_joint pal[3];
    sinew_mat4 scratch[64];
    if (sinew_palette_scratch_count(3) > 64) return 1;
    sinew_transform local[3];
    const uint8_t *px = (const uint8_t *)rmap;
    for (int i = 0; i < NCHAR; i++) {
        uint32_t first = 0, n = 0;
        SCHECK(sinew_crowd_character_output(crowd, (uint32_t)i, 0, &first, &n));
        tube_motion(NULL, skel, (uint32_t)i, ch[i].time, local);
        SCHECK(sinew_palette_build(skel, ch[i].method, local, &roots[i], scratch, pal));
        SCHECK(sinew_reference_skin(n, verts, NULL, pal, 3, ch[i].method, 0, rpos, NULL));
        double err = 0;
        for (uint32_t v = 0; v < n * 3; v++) {
            double d = fabs((double)gpos[3 * first + v] - rpos[v]);
            if (!(d <= err)) err = d == d ? d : INFINITY;
        }
        /* the middle joint, on the tube's axis: inside the drawn silhouette */
        sinew_mat4 glob[3];
        SCHECK(sinew_skeleton_fk(skel, local, &roots[i], glob));
        double p[3] = { glob[1].m[3][0], glob[1].m[3][1], glob[1].m[3][2] }, clip[4];
        for (int r = 0; r < 4; r++) clip[r] = vp[r] * p[0] + vp[4 + r] * p[1] + vp[8 + r] * p[2] + vp[12 + r];
        int sx = (int)((clip[0] / clip[3] * 0.5 + 0.5) * W), sy = (int)((clip[1] / clip[3] * 0.5 + 0.5) * H);
        int lit = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = sx + dx, y = sy + dy;
                if (x < 0 || y < 0 || x >= W || y >= H) continue;
                const uint8_t *q = px + 4 * ((size_t)y * W + x);
                lit += q[0] + q[1] + q[2] > 150;
            }
        printf("character %d (%s): max |gpu - ref| %.3g, drawn at (%d,%d): %d/9 pixels lit\n", i,
               sinew_method_name(ch[i].method), err, sx, sy, lit);
        if (!(err <= 2e-5 * 4)) failures++;
        if (lit < 9) failures++;
    }
    /* background stays clear above the characters and at the corners */
    const int probes[4][2] = { { 2, 2 }, { W - 3, 2 }, { W / 2, 5 }, { W - 3, H - 3 } };
    for (int k = 0; k < 4; k++) {
        const uint8_t *q = px + 4 * ((size_t)probes[k][1] * W + probes[k][0]);
        if (q[0] + q[1] + q[2] != 0) {
            printf("background pixel (%d,%d) not clear: %d %d %d\n", probes[k][0], probes[k][1], q[0], q[1], q[2]);
            failures++;
        }
    }
    size_t lit_total = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) lit_total += px[4 * i] + px[4 * i + 1] + px[4 * i + 2] > 150;
    printf("%.1f%% of the image covered\n", 100.0 * (double)lit_total / (W * H));
    if (lit_total < (size_t)W * H / 100) failures++;
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    if (msgs) {
        printf("%u validation messages\n", msgs);
        failures++;
    }

    free(gpos);
    free(rpos);
    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu); /* external: destroys nothing of the host's */
    for (int i = 0; i < FRAMES; i++) vkDestroyFence(h.dev, fence[i], NULL);
    vkDestroyCommandPool(h.dev, pool, NULL);
    vkDestroyPipeline(h.dev, pipe, NULL);
    vkDestroyPipelineLayout(h.dev, layout, NULL);
    vkDestroyFramebuffer(h.dev, fb, NULL);
    vkDestroyRenderPass(h.dev, pass, NULL);
    vkDestroyBuffer(h.dev, ibuf, NULL);
    vkFreeMemory(h.dev, imem, NULL);
    vkDestroyBuffer(h.dev, rbuf, NULL);
    vkFreeMemory(h.dev, rmem, NULL);
    vkDestroyImageView(h.dev, color_view, NULL);
    vkDestroyImage(h.dev, color, NULL);
    vkFreeMemory(h.dev, color_mem, NULL);
    vkDestroyImageView(h.dev, depth_view, NULL);
    vkDestroyImage(h.dev, depth, NULL);
    vkFreeMemory(h.dev, depth_mem, NULL);
    vkDestroyDevice(h.dev, NULL);
    vkDestroyInstance(h.inst, NULL);
    sinew_rest_mesh_destroy(rm);
    sinew_skeleton_destroy(skel);
    free(pos); free(nrm); free(w4); free(j4); free(idx);
    printf("%s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
