/* sinew-viewer: a crowd skinned by Sinew and drawn straight from the skinned
 * output buffer. Windowed (GLFW, its own Vulkan instance/device/swapchain,
 * wrapped by sinew_gpu_create_external) or headless (offscreen PNGs).
 *
 *   sinew-viewer [--model FILE] [--count N] [--screenshot FILE --frames N]
 *   sinew-viewer --headless DIR [--model FILE] [--count N]
 *
 * Keys: 1 LBS, 2 DQS, 3 DQS with scale, 4 DQS scale local, 5 mixed per character,
 *       B bulge correction on/off, +/- (or Up/Down) crowd size x2 / /2,
 *       M switch model (tube / bar / imported), Space pause, R reset camera, Esc quit.
 * Mouse: left drag orbits, wheel zooms. */
#define _POSIX_C_SOURCE 200809L
#include <volk.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "demo_render.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_IMAGES 8
#define FRAMES 2

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* headless                                                                  */

static int write_png(const char *dir, const char *name, uint32_t w, uint32_t h, const uint8_t *rgba)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!stbi_write_png(path, (int)w, (int)h, 4, rgba, (int)w * 4)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 0;
    }
    printf("wrote %s\n", path);
    return 1;
}

static int run_headless(const char *dir, const char *model, uint32_t count)
{
    const uint32_t W = 1280, H = 720;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s\n", dir);
        return 1;
    }
    sinew_gpu_desc gd = {0};
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu);
    if (r != SINEW_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", sinew_result_string(r));
        return 1;
    }
    printf("device: %s\n", sinew_gpu_info(gpu)->name);
    demo_gpu_scene s;
    char msg[256];
    r = demo_scene_create(gpu, count > 64 ? count : 64, NULL, SINEW_OUTPUT_FLOAT, model, &s, msg, sizeof msg);
    if (r != SINEW_OK) {
        fprintf(stderr, "scene: %s\n", sinew_result_string(r));
        sinew_gpu_destroy(gpu);
        return 1;
    }
    if (model && !s.has_asset) fprintf(stderr, "model %s not loaded (%s): tubes only\n", model, msg);
    sinew_render_target *t = NULL;
    uint8_t *img = malloc((size_t)W * H * 4);
    int ok = img && sinew_render_target_create(s.rnd, &(sinew_render_target_desc){ W, H, VK_NULL_HANDLE }, &t) == SINEW_OK;
    if (ok) {
        sinew_vec3 mids[8];
        r = demo_render_tube_methods(&s, t, W, H, img, NULL, mids);
        ok = r == SINEW_OK && write_png(dir, "tube-methods.png", W, H, img);
        if (ok) {
            r = demo_render_shape_methods(&s, SCENE_SHAPE_BAR, t, W, H, img, NULL, mids);
            ok = r == SINEW_OK && write_png(dir, "bar-methods.png", W, H, img);
        }
        demo_crowd dc;
        memset(&dc, 0, sizeof dc);
        r = demo_render_crowd(&s, s.has_asset, count, 0.7, t, W, H, img, NULL, &dc, NULL);
        ok = ok && r == SINEW_OK && write_png(dir, "crowd.png", W, H, img);
        demo_crowd_free(&dc);
        if (s.has_asset) {
            r = demo_render_crowd(&s, 0, count, 0.7, t, W, H, img, NULL, &dc, NULL);
            ok = ok && r == SINEW_OK && write_png(dir, "crowd-tube.png", W, H, img);
            demo_crowd_free(&dc);
        }
        if (r != SINEW_OK) fprintf(stderr, "render: %s\n", sinew_result_string(r));
    }
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    sinew_render_target_destroy(t);
    free(img);
    demo_scene_destroy(&s);
    sinew_gpu_destroy(gpu);
    if (msgs) fprintf(stderr, "%u validation messages\n", msgs);
    return ok && msgs == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* windowed                                                                  */

typedef struct viewer {
    GLFWwindow *win;
    VkInstance inst;
    VkDebugUtilsMessengerEXT unused;
    VkSurfaceKHR surf;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t qf;
    VkSwapchainKHR sc;
    VkFormat fmt;
    VkExtent2D ext;
    uint32_t nimg;
    VkImage imgs[MAX_IMAGES];
    VkImageView views[MAX_IMAGES];
    sinew_render_target *targets[MAX_IMAGES];
    VkSemaphore done[MAX_IMAGES];
    VkCommandPool pool;
    VkCommandBuffer cmd[FRAMES];
    VkFence fence[FRAMES];
    VkSemaphore acq[FRAMES];
    int validation;

    sinew_gpu *gpu;
    demo_gpu_scene s;
    demo_crowd dc;
    int use_asset, method, bulge, paused, dirty, resized;
    uint32_t count;
    double t;
    /* camera */
    float yaw, pitch, dist, target[3];
    double mx, my;
    int dragging;
    char status[160];
} viewer;

static void fit_camera(viewer *v)
{
    const demo_model *m = demo_scene_model(&v->s, v->use_asset, NULL);
    v->yaw = 0.35f;
    v->pitch = 0.42f;
    v->dist = (float)(2.4 * v->dc.extent + 3.0 * m->height);
    v->target[0] = 0;
    v->target[1] = (float)(0.4 * m->height);
    v->target[2] = 0;
}

static uint32_t max_count(const viewer *v)
{
    const demo_model *m = demo_scene_model(&v->s, v->use_asset, NULL);
    uint32_t cap = (v->s.max_output_vertices - v->s.tube_fine.vertex_count * 8u) / m->vertex_count;
    return cap < v->s.max_characters ? cap : v->s.max_characters;
}

static void rebuild_crowd(viewer *v)
{
    demo_crowd_free(&v->dc);
    if (v->count > max_count(v)) v->count = max_count(v);
    if (v->count < 1) v->count = 1;
    sinew_model_id id;
    const demo_model *m = demo_scene_model(&v->s, v->use_asset, &id);
    if (demo_crowd_setup(&v->dc, m, id, v->count, v->method, v->bulge ? SINEW_SKIN_BULGE_CORRECTION : 0) != SINEW_OK) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    fit_camera(v);
    v->dirty = 0;
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    switch (key) {
    case GLFW_KEY_ESCAPE: case GLFW_KEY_Q: glfwSetWindowShouldClose(w, 1); break;
    case GLFW_KEY_1: v->method = SINEW_METHOD_LBS; break;
    case GLFW_KEY_2: v->method = SINEW_METHOD_DQS; break;
    case GLFW_KEY_3: v->method = SINEW_METHOD_DQS_SCALE; break;
    case GLFW_KEY_4: v->method = SINEW_METHOD_DQS_SCALE_LOCAL; break;
    case GLFW_KEY_5: v->method = -1; break;
    case GLFW_KEY_B: v->bulge = !v->bulge; break;
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD: case GLFW_KEY_UP:
        if (v->count < max_count(v)) { v->count *= 2; v->dirty = 1; }
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT: case GLFW_KEY_DOWN:
        if (v->count > 1) { v->count /= 2; v->dirty = 1; }
        break;
    case GLFW_KEY_M:   /* tube -> bar -> imported model -> tube */
        v->use_asset = v->use_asset == DEMO_MODEL_TUBE ? DEMO_MODEL_BAR
                       : v->use_asset == DEMO_MODEL_BAR && v->s.has_asset ? DEMO_MODEL_ASSET : DEMO_MODEL_TUBE;
        v->dirty = 1;
        break;
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_R: fit_camera(v); break;
    default: return;
    }
    demo_crowd_set_method(&v->dc, v->method, v->bulge ? SINEW_SKIN_BULGE_CORRECTION : 0);
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        v->dragging = action == GLFW_PRESS;
        glfwGetCursorPos(w, &v->mx, &v->my);
    }
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (v->dragging) {
        v->yaw -= (float)(x - v->mx) * 0.008f;
        v->pitch += (float)(y - v->my) * 0.008f;
        if (v->pitch < -0.1f) v->pitch = -0.1f;
        if (v->pitch > 1.5f) v->pitch = 1.5f;
    }
    v->mx = x;
    v->my = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    v->dist *= (float)pow(0.9, dy);
    if (v->dist < 0.2f) v->dist = 0.2f;
}

static void on_resize(GLFWwindow *w, int width, int height)
{
    (void)width;
    (void)height;
    ((viewer *)glfwGetWindowUserPointer(w))->resized = 1;
}

#define VKCHECK(x) do { VkResult vr_ = (x); if (vr_ != VK_SUCCESS) { fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)vr_); exit(1); } } while (0)

static void destroy_swapchain(viewer *v)
{
    for (uint32_t i = 0; i < v->nimg; i++) {
        sinew_render_target_destroy(v->targets[i]);
        vkDestroyImageView(v->dev, v->views[i], NULL);
        vkDestroySemaphore(v->dev, v->done[i], NULL);
        v->targets[i] = NULL;
    }
    if (v->sc) vkDestroySwapchainKHR(v->dev, v->sc, NULL);
    v->sc = VK_NULL_HANDLE;
    v->nimg = 0;
}

static void create_swapchain(viewer *v)
{
    VkSurfaceCapabilitiesKHR caps;
    VKCHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->phys, v->surf, &caps));
    int fw, fh;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    while (fw == 0 || fh == 0) { /* minimized */
        glfwWaitEvents();
        glfwGetFramebufferSize(v->win, &fw, &fh);
    }
    VkExtent2D ext = caps.currentExtent;
    if (ext.width == UINT32_MAX) {
        ext.width = (uint32_t)fw;
        ext.height = (uint32_t)fh;
    }
    uint32_t n = caps.minImageCount + 1;
    if (caps.maxImageCount && n > caps.maxImageCount) n = caps.maxImageCount;
    if (n > MAX_IMAGES) n = MAX_IMAGES;
    VkSwapchainCreateInfoKHR ci = { VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR };
    ci.surface = v->surf;
    ci.minImageCount = n;
    ci.imageFormat = v->fmt;
    ci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    ci.imageExtent = ext;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                    (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    ci.clipped = VK_TRUE;
    VKCHECK(vkCreateSwapchainKHR(v->dev, &ci, NULL, &v->sc));
    v->ext = ext;
    VKCHECK(vkGetSwapchainImagesKHR(v->dev, v->sc, &v->nimg, NULL));
    if (v->nimg > MAX_IMAGES) v->nimg = MAX_IMAGES;
    VKCHECK(vkGetSwapchainImagesKHR(v->dev, v->sc, &v->nimg, v->imgs));
    for (uint32_t i = 0; i < v->nimg; i++) {
        VkImageViewCreateInfo vci = { VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
        vci.image = v->imgs[i];
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = v->fmt;
        vci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        vci.subresourceRange.levelCount = 1;
        vci.subresourceRange.layerCount = 1;
        VKCHECK(vkCreateImageView(v->dev, &vci, NULL, &v->views[i]));
        VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
        VKCHECK(vkCreateSemaphore(v->dev, &sci, NULL, &v->done[i]));
        sinew_result r = sinew_render_target_create(v->s.rnd, &(sinew_render_target_desc){ ext.width, ext.height, v->views[i] }, &v->targets[i]);
        if (r != SINEW_OK) {
            fprintf(stderr, "render target: %s\n", sinew_result_string(r));
            exit(1);
        }
    }
}

static void recreate_swapchain(viewer *v)
{
    vkDeviceWaitIdle(v->dev);
    destroy_swapchain(v);
    create_swapchain(v);
    v->resized = 0;
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

static void init_vulkan(viewer *v)
{
    VKCHECK(volkInitialize());
    uint32_t next = 0;
    const char **glfw_ext = glfwGetRequiredInstanceExtensions(&next);
    if (!glfw_ext) {
        fprintf(stderr, "GLFW: no Vulkan surface support\n");
        exit(1);
    }
    const char *exts[16];
    uint32_t ne = 0;
    for (uint32_t i = 0; i < next && ne < 15; i++) exts[ne++] = glfw_ext[i];
    const char *env = getenv("SINEW_VALIDATION");
    v->validation = env && *env == '1' && has_layer("VK_LAYER_KHRONOS_validation");
    const char *layer = "VK_LAYER_KHRONOS_validation";
    if (v->validation) exts[ne++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo ai = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    ai.pApplicationName = "sinew-viewer";
    ai.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &ai;
    ici.enabledExtensionCount = ne;
    ici.ppEnabledExtensionNames = exts;
    ici.enabledLayerCount = v->validation ? 1 : 0;
    ici.ppEnabledLayerNames = &layer;
    VKCHECK(vkCreateInstance(&ici, NULL, &v->inst));
    volkLoadInstance(v->inst);
    VKCHECK(glfwCreateWindowSurface(v->inst, v->win, NULL, &v->surf));

    uint32_t np = 0;
    VKCHECK(vkEnumeratePhysicalDevices(v->inst, &np, NULL));
    VkPhysicalDevice pds[16];
    if (np > 16) np = 16;
    VKCHECK(vkEnumeratePhysicalDevices(v->inst, &np, pds));
    int best = -1, best_rank = -1;
    uint32_t best_qf = 0;
    for (uint32_t i = 0; i < np; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (p.apiVersion < VK_API_VERSION_1_1) continue;
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nq, NULL);
        VkQueueFamilyProperties qp[16];
        if (nq > 16) nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nq, qp);
        for (uint32_t q = 0; q < nq; q++) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(pds[i], q, v->surf, &present);
            VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if (!present || (qp[q].queueFlags & need) != need) continue;
            int rank = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 4
                     : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 3
                     : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU ? 2 : 1;
            if (rank > best_rank) {
                best = (int)i;
                best_rank = rank;
                best_qf = q;
            }
            break;
        }
    }
    if (best < 0) {
        fprintf(stderr, "no Vulkan device can present to this window\n");
        exit(1);
    }
    v->phys = pds[best];
    v->qf = best_qf;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = v->qf;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    const char *dext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = &dext;
    VKCHECK(vkCreateDevice(v->phys, &dci, NULL, &v->dev));
    volkLoadDevice(v->dev);
    vkGetDeviceQueue(v->dev, v->qf, 0, &v->queue);

    uint32_t nf = 0;
    VKCHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surf, &nf, NULL));
    VkSurfaceFormatKHR sf[64];
    if (nf > 64) nf = 64;
    VKCHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surf, &nf, sf));
    v->fmt = sf[0].format;
    for (uint32_t i = 0; i < nf; i++)
        if ((sf[i].format == VK_FORMAT_B8G8R8A8_UNORM || sf[i].format == VK_FORMAT_R8G8B8A8_UNORM) &&
            sf[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            v->fmt = sf[i].format;
            break;
        }

    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = v->qf;
    VKCHECK(vkCreateCommandPool(v->dev, &pci, NULL, &v->pool));
    VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    cai.commandPool = v->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = FRAMES;
    VKCHECK(vkAllocateCommandBuffers(v->dev, &cai, v->cmd));
    for (int i = 0; i < FRAMES; i++) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VKCHECK(vkCreateFence(v->dev, &fci, NULL, &v->fence[i]));
        VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
        VKCHECK(vkCreateSemaphore(v->dev, &sci, NULL, &v->acq[i]));
    }
}

/* Host-visible buffer for the screenshot. */
static void make_readback(viewer *v, VkDeviceSize size, VkBuffer *buf, VkDeviceMemory *mem, void **map)
{
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VKCHECK(vkCreateBuffer(v->dev, &bci, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(v->dev, *buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(v->phys, &mp);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "no host-visible memory\n");
        exit(1);
    }
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VKCHECK(vkAllocateMemory(v->dev, &mai, NULL, mem));
    VKCHECK(vkBindBufferMemory(v->dev, *buf, *mem, 0));
    VKCHECK(vkMapMemory(v->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
}

static void image_barrier(VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                          VkAccessFlags dst, VkPipelineStageFlags s0, VkPipelineStageFlags s1)
{
    VkImageMemoryBarrier b = { VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    vkCmdPipelineBarrier(cmd, s0, s1, 0, 0, NULL, 0, NULL, 1, &b);
}

static const char *method_label(int m, int bulge)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s%s", m < 0 ? "mixed lbs/dqs/dqs-scale" : sinew_method_name((sinew_method)m),
             bulge ? " + bulge" : "");
    return buf;
}

static int run_window(const char *model, uint32_t count, const char *screenshot, int frames)
{
    viewer v;
    memset(&v, 0, sizeof v);
    if (!glfwInit()) {
        fprintf(stderr, "GLFW init failed (no display?)\n");
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    v.win = glfwCreateWindow(1280, 720, "Sinew viewer", NULL, NULL);
    if (!v.win) {
        fprintf(stderr, "cannot create a window\n");
        glfwTerminate();
        return 1;
    }
    glfwSetWindowUserPointer(v.win, &v);
    glfwSetKeyCallback(v.win, on_key);
    glfwSetMouseButtonCallback(v.win, on_button);
    glfwSetCursorPosCallback(v.win, on_cursor);
    glfwSetScrollCallback(v.win, on_scroll);
    glfwSetFramebufferSizeCallback(v.win, on_resize);
    init_vulkan(&v);

    sinew_gpu_external_desc ed = {0};
    ed.get_instance_proc_addr = vkGetInstanceProcAddr;
    ed.instance = v.inst;
    ed.physical_device = v.phys;
    ed.device = v.dev;
    ed.queue = v.queue;
    ed.queue_family = v.qf;
    ed.debug_utils_enabled = v.validation;
    sinew_result r = sinew_gpu_create_external(&ed, &v.gpu);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew_gpu_create_external: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_renderer_desc rd = {0};
    rd.color_format = v.fmt;
    rd.final_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    char msg[256];
    r = demo_scene_create(v.gpu, 16384, &rd, SINEW_OUTPUT_FLOAT, model, &v.s, msg, sizeof msg);
    if (r != SINEW_OK) {
        fprintf(stderr, "scene: %s\n", sinew_result_string(r));
        return 1;
    }
    if (model && !v.s.has_asset) fprintf(stderr, "model %s not loaded (%s): tubes only\n", model, msg);
    v.use_asset = v.s.has_asset;
    v.count = count;
    v.method = -1;
    rebuild_crowd(&v);
    create_swapchain(&v);
    printf("sinew-viewer on %s; keys: 1 LBS, 2 DQS, 3 DQS+scale, 4 DQS scale local, 5 mixed, B bulge, +/- size, "
           "M model, Space pause, R camera, Esc quit\n", sinew_gpu_info(v.gpu)->name);

    VkBuffer shot_buf = VK_NULL_HANDLE;
    VkDeviceMemory shot_mem = VK_NULL_HANDLE;
    void *shot_map = NULL;
    int shot_frame = -1, shot_done = 0, shot_image = -1;
    double last_time = now_s(), title_time = last_time, fps_acc = 0, cpu_acc = 0, gpu_acc = 0;
    int fps_n = 0, prev_method = v.method;
    int rc = 0;
    for (int frame = 0; !glfwWindowShouldClose(v.win); frame++) {
        glfwPollEvents();
        if (v.dirty) {
            vkDeviceWaitIdle(v.dev);
            rebuild_crowd(&v);
        }
        if (v.resized) recreate_swapchain(&v);
        int f = frame % FRAMES;
        VKCHECK(vkWaitForFences(v.dev, 1, &v.fence[f], VK_TRUE, UINT64_MAX));
        double gms = 0;
        if (sinew_skinner_gpu_time(v.s.sk, &gms) != SINEW_OK) gms = 0;
        if (shot_frame >= 0 && !shot_done && f == shot_frame % FRAMES && frame > shot_frame) {
            /* the screenshot frame has completed: write it */
            uint8_t *px = (uint8_t *)shot_map;
            size_t bytes = (size_t)v.ext.width * v.ext.height * 4;
            if (v.fmt == VK_FORMAT_B8G8R8A8_UNORM || v.fmt == VK_FORMAT_B8G8R8A8_SRGB)
                for (size_t i = 0; i < bytes; i += 4) {
                    uint8_t b = px[i];
                    px[i] = px[i + 2];
                    px[i + 2] = b;
                }
            for (size_t i = 3; i < bytes; i += 4) px[i] = 255;
            if (!stbi_write_png(screenshot, (int)v.ext.width, (int)v.ext.height, 4, px, (int)v.ext.width * 4)) {
                fprintf(stderr, "cannot write %s\n", screenshot);
                rc = 1;
            } else {
                printf("wrote %s (%ux%u, swapchain image %d)\n", screenshot, v.ext.width, v.ext.height, shot_image);
            }
            shot_done = 1;
            glfwSetWindowShouldClose(v.win, 1);
            continue;
        }
        double t = now_s(), dt = t - last_time;
        last_time = t;
        if (!v.paused) v.t += dt;
        uint32_t img = 0;
        VkResult ar = vkAcquireNextImageKHR(v.dev, v.sc, UINT64_MAX, v.acq[f], VK_NULL_HANDLE, &img);
        if (ar == VK_ERROR_OUT_OF_DATE_KHR) {
            recreate_swapchain(&v);
            continue;
        }
        if (ar != VK_SUCCESS && ar != VK_SUBOPTIMAL_KHR) {
            fprintf(stderr, "acquire failed (%d)\n", (int)ar);
            rc = 1;
            break;
        }
        demo_crowd_animate(&v.dc, v.t);
        sinew_crowd_stats st;
        uint32_t bad = 0;
        r = sinew_crowd_prepare(v.s.crowd, v.dc.chars, v.dc.count, &st, &bad);
        int skin = r == SINEW_OK;
        if (r != SINEW_OK) {
            fprintf(stderr, "%s refused for character %u: %s; back to %s\n", method_label(v.method, v.bulge), bad,
                    sinew_result_string(r), method_label(prev_method, v.bulge));
            v.method = prev_method == v.method ? SINEW_METHOD_LBS : prev_method;
            demo_crowd_set_method(&v.dc, v.method, v.bulge ? SINEW_SKIN_BULGE_CORRECTION : 0);
        } else {
            prev_method = v.method;
        }
        uint32_t ninst = 0;
        const sinew_instance *inst = sinew_crowd_instances(v.s.crowd, &ninst);

        sinew_render_view view;
        memset(&view, 0, sizeof view);
        float eye[3] = { v.target[0] + v.dist * cosf(v.pitch) * sinf(v.yaw), v.target[1] + v.dist * sinf(v.pitch),
                         v.target[2] + v.dist * cosf(v.pitch) * cosf(v.yaw) };
        const demo_model *m = demo_scene_model(&v.s, v.use_asset, NULL);
        sinew_render_camera(view.view_proj, eye, v.target, 0.8f, (float)v.ext.width / (float)v.ext.height,
                            (float)(0.01 * m->height), (float)(40 * (v.dc.extent + m->height)) + v.dist);
        memcpy(view.eye, eye, sizeof eye);
        view.ground = 1;
        view.ground_extent = (float)(3 * v.dc.extent + 4 * m->height);

        VkCommandBuffer cmd = v.cmd[f];
        VKCHECK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VKCHECK(vkBeginCommandBuffer(cmd, &bi));
        if (skin) r = sinew_skinner_record(v.s.sk, cmd);
        if (r == SINEW_OK || !skin)
            r = sinew_renderer_record(v.s.rnd, cmd, v.targets[img], &view, skin ? inst : NULL, skin ? ninst : 0, NULL);
        if (r != SINEW_OK) {
            fprintf(stderr, "record: %s\n", sinew_result_string(r));
            rc = 1;
            break;
        }
        int take = screenshot && frames >= 0 && frame >= frames && shot_frame < 0 && skin;
        if (take) {
            make_readback(&v, (VkDeviceSize)v.ext.width * v.ext.height * 4, &shot_buf, &shot_mem, &shot_map);
            image_barrier(cmd, v.imgs[img], VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
            VkBufferImageCopy reg = {0};
            reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            reg.imageSubresource.layerCount = 1;
            reg.imageExtent.width = v.ext.width;
            reg.imageExtent.height = v.ext.height;
            reg.imageExtent.depth = 1;
            vkCmdCopyImageToBuffer(cmd, v.imgs[img], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, shot_buf, 1, &reg);
            image_barrier(cmd, v.imgs[img], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                          VK_ACCESS_TRANSFER_READ_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
            VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
            hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, NULL, 0,
                                 NULL);
            shot_frame = frame;
            shot_image = (int)img;
        }
        VKCHECK(vkEndCommandBuffer(cmd));
        VKCHECK(vkResetFences(v.dev, 1, &v.fence[f]));
        VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = &v.acq[f];
        si.pWaitDstStageMask = &wait_stage;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &v.done[img];
        VKCHECK(vkQueueSubmit(v.queue, 1, &si, v.fence[f]));
        if (skin) sinew_skinner_end_frame(v.s.sk, v.fence[f]);
        VkPresentInfoKHR pi = { VK_STRUCTURE_TYPE_PRESENT_INFO_KHR };
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &v.done[img];
        pi.swapchainCount = 1;
        pi.pSwapchains = &v.sc;
        pi.pImageIndices = &img;
        VkResult pr = vkQueuePresentKHR(v.queue, &pi);
        if (pr == VK_ERROR_OUT_OF_DATE_KHR || pr == VK_SUBOPTIMAL_KHR) v.resized = 1;

        /* figures in the title bar (GPU time: of the last frame known complete, read
         * after its fence at the top of the loop) */
        fps_acc += dt;
        cpu_acc += st.cpu_ms;
        gpu_acc += gms;
        fps_n++;
        if (t - title_time > 0.5 || frame < 3) {
            char title[320];
            snprintf(title, sizeof title,
                     "Sinew | %s | %s | %u characters | %u vertices | CPU palette %.2f ms | GPU skin %.2f ms | %.1f fps",
                     m->name, method_label(v.method, v.bulge), v.dc.count, st.output_vertices, cpu_acc / fps_n,
                     gpu_acc / fps_n, fps_acc > 0 ? fps_n / fps_acc : 0.0);
            glfwSetWindowTitle(v.win, title);
            if (screenshot) printf("%s\n", title);
            title_time = t;
            fps_acc = cpu_acc = gpu_acc = 0;
            fps_n = 0;
        }
    }
    vkDeviceWaitIdle(v.dev);
    uint32_t msgs = sinew_debug_validation_message_count(v.gpu);
    if (msgs) {
        fprintf(stderr, "%u validation messages\n", msgs);
        rc = 1;
    }
    if (screenshot && !shot_done) {
        fprintf(stderr, "no screenshot taken\n");
        rc = 1;
    }
    if (shot_buf) {
        vkDestroyBuffer(v.dev, shot_buf, NULL);
        vkFreeMemory(v.dev, shot_mem, NULL);
    }
    demo_crowd_free(&v.dc);
    destroy_swapchain(&v);
    demo_scene_destroy(&v.s);
    sinew_gpu_destroy(v.gpu);
    for (int i = 0; i < FRAMES; i++) {
        vkDestroyFence(v.dev, v.fence[i], NULL);
        vkDestroySemaphore(v.dev, v.acq[i], NULL);
    }
    vkDestroyCommandPool(v.dev, v.pool, NULL);
    vkDestroyDevice(v.dev, NULL);
    vkDestroySurfaceKHR(v.inst, v.surf, NULL);
    vkDestroyInstance(v.inst, NULL);
    glfwDestroyWindow(v.win);
    glfwTerminate();
    return rc;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *headless = NULL, *shot = NULL;
#ifdef DEMO_WITH_ASSET
    model = "/usr/share/assimp/models/X/Testwuson.X";
#endif
    uint32_t count = 64;
    int frames = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--model") && next) { model = strcmp(next, "none") ? next : NULL; i++; }
        else if (!strcmp(a, "--count") && next) count = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--headless") && next) headless = argv[++i];
        else if (!strcmp(a, "--screenshot") && next) shot = argv[++i];
        else if (!strcmp(a, "--frames") && next) frames = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: sinew-viewer [--model FILE|none] [--count N] [--screenshot FILE --frames N]\n"
                            "       sinew-viewer --headless DIR [--model FILE|none] [--count N]\n");
            return strcmp(a, "--help") ? 2 : 0;
        }
    }
    if (count == 0 || count > 16384) count = 64;
    if (shot && frames < 0) frames = 5;
    if (headless) return run_headless(headless, model, count);
    return run_window(model, count, shot, frames);
}
