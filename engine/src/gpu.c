/* Sinew Vulkan context: instance/device creation through volk, per-object
 * function tables (no global state of Sinew's own), validation messenger,
 * buffer helpers and the copy roofline. */
#define _POSIX_C_SOURCE 200809L
#include "vk_internal.h"
#include "sinew_layout.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

sinew_result sinew_vk_result(VkResult r)
{
    switch (r) {
    case VK_SUCCESS: return SINEW_OK;
    case VK_ERROR_OUT_OF_HOST_MEMORY: return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_FRAGMENTATION:
    case VK_ERROR_OUT_OF_POOL_MEMORY: return SINEW_ERROR_OUT_OF_DEVICE_MEMORY;
    case VK_ERROR_DEVICE_LOST: return SINEW_ERROR_DEVICE_LOST;
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_INITIALIZATION_FAILED: return SINEW_ERROR_NO_DEVICE;
    default: return SINEW_ERROR_VULKAN;
    }
}

static void *default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    (void)align;
    return malloc(size);
}

static void default_free(void *user, void *p)
{
    (void)user;
    free(p);
}

void *sinew_gpu_alloc(const sinew_gpu *gpu, size_t size)
{
    void *p = gpu->alloc.alloc(gpu->alloc.user, size, 16);
    if (p) memset(p, 0, size);
    return p;
}

void sinew_gpu_free(const sinew_gpu *gpu, void *p)
{
    if (p) gpu->alloc.free(gpu->alloc.user, p);
}

static void log_default(void *user, int severity, const char *message)
{
    (void)user;
    static const char *names[] = { "info", "warning", "error" };
    fprintf(stderr, "sinew vulkan %s: %s\n", names[severity < 0 ? 0 : severity > 2 ? 2 : severity], message);
}

void sinew_gpu_log(sinew_gpu *gpu, int severity, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    gpu->log(gpu->log_user, severity, buf);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data,
                                                     void *user)
{
    (void)types;
    sinew_gpu *gpu = (sinew_gpu *)user;
    int sev = 0;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) sev = 2;
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) sev = 1;
    if (sev >= 1) __atomic_add_fetch(&gpu->message_count, 1u, __ATOMIC_RELAXED);
    gpu->log(gpu->log_user, sev, data && data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
}

static void messenger_info(sinew_gpu *gpu, VkDebugUtilsMessengerCreateInfoEXT *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    ci->messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    ci->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    ci->pfnUserCallback = debug_callback;
    ci->pUserData = gpu;
}

/* Opens the Vulkan loader (a reference per object: dlopen counts them). */
static PFN_vkGetInstanceProcAddr open_loader(void **handle)
{
    void *h = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
    *handle = h;
    if (!h) return NULL;
    PFN_vkGetInstanceProcAddr f;
    *(void **)&f = dlsym(h, "vkGetInstanceProcAddr");
    if (!f) {
        dlclose(h);
        *handle = NULL;
    }
    return f;
}

static void load_instance_fns(PFN_vkGetInstanceProcAddr gipa, VkInstance inst, sinew_vki *f)
{
#define L(name) f->name = (PFN_vk##name)gipa(inst, "vk" #name)
    L(DestroyInstance);
    L(EnumeratePhysicalDevices);
    L(GetPhysicalDeviceProperties);
    L(GetPhysicalDeviceProperties2);
    L(GetPhysicalDeviceQueueFamilyProperties);
    L(GetPhysicalDeviceMemoryProperties);
    L(GetPhysicalDeviceFormatProperties);
    L(CreateDevice);
    L(GetDeviceProcAddr);
    L(CreateDebugUtilsMessengerEXT);
    L(DestroyDebugUtilsMessengerEXT);
#undef L
}

static int env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static int layer_available(PFN_vkGetInstanceProcAddr gipa, const char *layer)
{
    PFN_vkEnumerateInstanceLayerProperties enum_layers =
        (PFN_vkEnumerateInstanceLayerProperties)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    if (!enum_layers) return 0;
    uint32_t n = 0;
    if (enum_layers(&n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkLayerProperties *p = (VkLayerProperties *)calloc(n, sizeof *p);
    if (!p) return 0;
    int found = 0;
    if (enum_layers(&n, p) == VK_SUCCESS) {
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(p[i].layerName, layer) == 0) found = 1;
    }
    free(p);
    return found;
}

static int ext_available(PFN_vkGetInstanceProcAddr gipa, const char *ext)
{
    PFN_vkEnumerateInstanceExtensionProperties enum_ext =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    if (!enum_ext) return 0;
    uint32_t n = 0;
    if (enum_ext(NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkExtensionProperties *p = (VkExtensionProperties *)calloc(n, sizeof *p);
    if (!p) return 0;
    int found = 0;
    enum_ext(NULL, &n, p);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(p[i].extensionName, ext) == 0) found = 1;
    free(p);
    return found;
}

static VkResult create_instance(PFN_vkGetInstanceProcAddr gipa, int validation, int debug_utils,
                                const VkDebugUtilsMessengerCreateInfoEXT *dbg, VkInstance *out)
{
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    PFN_vkEnumerateInstanceVersion version =
        (PFN_vkEnumerateInstanceVersion)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    if (!create || !version) return VK_ERROR_INCOMPATIBLE_DRIVER;
    uint32_t v = 0;
    if (version(&v) != VK_SUCCESS || v < VK_API_VERSION_1_1) return VK_ERROR_INCOMPATIBLE_DRIVER;
    VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    app.pApplicationName = "sinew";
    app.pEngineName = "sinew";
    app.apiVersion = VK_API_VERSION_1_1;
    const char *layers[1] = { "VK_LAYER_KHRONOS_validation" };
    const char *exts[1] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
    VkInstanceCreateInfo ci = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ci.pApplicationInfo = &app;
    if (validation) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = layers;
    }
    if (debug_utils) {
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = exts;
        ci.pNext = dbg;
    }
    return create(&ci, NULL, out);
}

static int type_rank(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

static void fill_info(const VkPhysicalDeviceProperties *p, sinew_gpu_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    info->type = p->deviceType;
    info->api_version = p->apiVersion;
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
}

/* Queue family with compute: prefer graphics+compute (universal), then any compute;
 * among those, prefer one with timestamps. Returns UINT32_MAX when none. */
static uint32_t pick_queue_family(const sinew_vki *f, VkPhysicalDevice pd)
{
    uint32_t n = 0;
    f->GetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    if (n == 0) return UINT32_MAX;
    VkQueueFamilyProperties *q = (VkQueueFamilyProperties *)calloc(n, sizeof *q);
    if (!q) return UINT32_MAX;
    f->GetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    uint32_t best = UINT32_MAX;
    int best_score = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || q[i].queueCount == 0) continue;
        int score = ((q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 2 : 0) + (q[i].timestampValidBits ? 1 : 0);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    free(q);
    return best;
}

static int name_matches(const char *name, const char *sel)
{
    size_t ln = strlen(name), ls = strlen(sel);
    if (ls == 0) return 0;
    for (size_t i = 0; i + ls <= ln; i++) {
        size_t k = 0;
        while (k < ls && tolower((unsigned char)name[i + k]) == tolower((unsigned char)sel[k])) k++;
        if (k == ls) return 1;
    }
    return 0;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

sinew_result sinew_gpu_pick_device(const sinew_gpu_device_info *devices, uint32_t count,
                                   const char *sel, uint32_t *index)
{
    if ((count && !devices) || !index) return SINEW_ERROR_INVALID_ARGUMENT;
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_gpu_device_info *d = &devices[i];
        if (sel && *sel) {
            int match = all_digits(sel) ? (strtoul(sel, NULL, 10) == i) : name_matches(d->name, sel);
            if (match && d->usable) {
                best = (int)i;
                break;
            }
        } else if (d->usable && type_rank(d->type) > best_rank) {
            best_rank = type_rank(d->type);
            best = (int)i;
        }
    }
    if (best < 0) return SINEW_ERROR_NO_DEVICE;
    *index = (uint32_t)best;
    return SINEW_OK;
}

static void describe_device(const sinew_vki *f, VkPhysicalDevice pd, sinew_gpu_device_info *info)
{
    VkPhysicalDeviceProperties p;
    f->GetPhysicalDeviceProperties(pd, &p);
    fill_info(&p, info);
    info->usable = p.apiVersion >= VK_API_VERSION_1_1 && pick_queue_family(f, pd) != UINT32_MAX;
}

/* Chooses a physical device per the selection rules (sinew_gpu_pick_device). */
static sinew_result choose_device(sinew_gpu *gpu, const char *sel, VkPhysicalDevice *out, uint32_t *family)
{
    uint32_t n = 0;
    VkResult vr = gpu->vki.EnumeratePhysicalDevices(gpu->instance, &n, NULL);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) return sinew_vk_result(vr);
    if (n == 0) return SINEW_ERROR_NO_DEVICE;
    VkPhysicalDevice *pd = (VkPhysicalDevice *)sinew_gpu_alloc(gpu, n * sizeof *pd);
    sinew_gpu_device_info *infos = (sinew_gpu_device_info *)sinew_gpu_alloc(gpu, n * sizeof *infos);
    if (!pd || !infos) {
        sinew_gpu_free(gpu, pd);
        sinew_gpu_free(gpu, infos);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_result r = SINEW_OK;
    vr = gpu->vki.EnumeratePhysicalDevices(gpu->instance, &n, pd);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) r = sinew_vk_result(vr);
    uint32_t best = 0;
    if (r == SINEW_OK) {
        for (uint32_t i = 0; i < n; i++) {
            describe_device(&gpu->vki, pd[i], &infos[i]);
            if (sel && *sel && !infos[i].usable)
                sinew_gpu_log(gpu, 1, "device %u (%s) lacks Vulkan 1.1 or a compute queue", i, infos[i].name);
        }
        r = sinew_gpu_pick_device(infos, n, sel, &best);
        if (r == SINEW_OK) {
            *out = pd[best];
            *family = pick_queue_family(&gpu->vki, pd[best]);
        } else if (sel && *sel) {
            sinew_gpu_log(gpu, 2, "no Vulkan device matches the selection \"%s\"", sel);
        }
    }
    sinew_gpu_free(gpu, infos);
    sinew_gpu_free(gpu, pd);
    return r;
}

/* Device properties, memory properties, limits, queue info and the device table. */
static sinew_result finish_setup(sinew_gpu *gpu)
{
    gpu->vki.GetPhysicalDeviceProperties(gpu->phys, &gpu->props);
    gpu->vki.GetPhysicalDeviceMemoryProperties(gpu->phys, &gpu->mem);
    fill_info(&gpu->props, &gpu->info);
    gpu->info.usable = 1;
    gpu->max_allocation = (VkDeviceSize)1 << 30; /* Vulkan's guaranteed minimum */
    if (gpu->vki.GetPhysicalDeviceProperties2) {
        VkPhysicalDeviceMaintenance3Properties m3 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES };
        VkPhysicalDeviceProperties2 p2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 };
        p2.pNext = &m3;
        gpu->vki.GetPhysicalDeviceProperties2(gpu->phys, &p2);
        if (m3.maxMemoryAllocationSize) gpu->max_allocation = m3.maxMemoryAllocationSize;
    }
    uint32_t n = 0;
    gpu->vki.GetPhysicalDeviceQueueFamilyProperties(gpu->phys, &n, NULL);
    if (gpu->queue_family >= n) return SINEW_ERROR_INVALID_ARGUMENT;
    VkQueueFamilyProperties *q = (VkQueueFamilyProperties *)sinew_gpu_alloc(gpu, n * sizeof *q);
    if (!q) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    gpu->vki.GetPhysicalDeviceQueueFamilyProperties(gpu->phys, &n, q);
    gpu->queue_flags = q[gpu->queue_family].queueFlags;
    gpu->timestamp_valid_bits = q[gpu->queue_family].timestampValidBits;
    sinew_gpu_free(gpu, q);
    if (!(gpu->queue_flags & VK_QUEUE_COMPUTE_BIT)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!gpu->props.limits.timestampComputeAndGraphics && !gpu->timestamp_valid_bits) gpu->timestamp_valid_bits = 0;

    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = gpu->queue_family;
    return sinew_vk_result(gpu->vk.vkCreateCommandPool(gpu->device, &pci, NULL, &gpu->oneshot_pool));
}

static sinew_gpu *gpu_new(const sinew_allocator *alloc, sinew_log_fn log, void *log_user)
{
    sinew_allocator a;
    if (alloc && alloc->alloc && alloc->free) a = *alloc;
    else {
        a.alloc = default_alloc;
        a.free = default_free;
        a.user = NULL;
    }
    sinew_gpu *gpu = (sinew_gpu *)a.alloc(a.user, sizeof *gpu, 16);
    if (!gpu) return NULL;
    memset(gpu, 0, sizeof *gpu);
    gpu->alloc = a;
    gpu->log = log ? log : log_default;
    gpu->log_user = log ? log_user : NULL;
    return gpu;
}

/* ---- public ---- */

sinew_result sinew_gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    sinew_gpu_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    sinew_gpu *gpu = gpu_new(d.allocator, d.log, d.log_user);
    if (!gpu) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_result r = SINEW_OK;

    gpu->gipa = open_loader(&gpu->loader);
    if (!gpu->gipa) {
        sinew_gpu_log(gpu, 2, "the Vulkan loader (libvulkan.so.1) could not be opened");
        r = SINEW_ERROR_NO_DEVICE;
        goto fail;
    }
    int want_validation = d.enable_validation || env_flag("SINEW_VALIDATION");
    int validation = want_validation && layer_available(gpu->gipa, "VK_LAYER_KHRONOS_validation");
    if (want_validation && !validation)
        sinew_gpu_log(gpu, 1, "VK_LAYER_KHRONOS_validation is not installed: validation is off");
    int debug_utils = validation && ext_available(gpu->gipa, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    VkDebugUtilsMessengerCreateInfoEXT dbg;
    messenger_info(gpu, &dbg);
    VkResult vr = create_instance(gpu->gipa, validation, debug_utils, &dbg, &gpu->instance);
    if (vr != VK_SUCCESS) {
        sinew_gpu_log(gpu, 2, "vkCreateInstance failed (%d)", (int)vr);
        r = vr == VK_ERROR_INCOMPATIBLE_DRIVER ? SINEW_ERROR_NO_DEVICE : sinew_vk_result(vr);
        gpu->instance = VK_NULL_HANDLE;
        goto fail;
    }
    load_instance_fns(gpu->gipa, gpu->instance, &gpu->vki);
    if (debug_utils && gpu->vki.CreateDebugUtilsMessengerEXT) {
        vr = gpu->vki.CreateDebugUtilsMessengerEXT(gpu->instance, &dbg, NULL, &gpu->messenger);
        if (vr != VK_SUCCESS) {
            r = sinew_vk_result(vr);
            goto fail;
        }
        gpu->validation = 1;
    }

    const char *sel = d.device;
    if (!sel || !*sel) sel = getenv("SINEW_DEVICE");
    r = choose_device(gpu, sel, &gpu->phys, &gpu->queue_family);
    if (r != SINEW_OK) goto fail;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = gpu->queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    vr = gpu->vki.CreateDevice(gpu->phys, &dci, NULL, &gpu->device);
    if (vr != VK_SUCCESS) {
        gpu->device = VK_NULL_HANDLE;
        r = sinew_vk_result(vr);
        goto fail;
    }
    sinew_volk_load_device_table(&gpu->vk, gpu->device, gpu->vki.GetDeviceProcAddr);
    gpu->vk.vkGetDeviceQueue(gpu->device, gpu->queue_family, 0, &gpu->queue);
    r = finish_setup(gpu);
    if (r != SINEW_OK) goto fail;
    *out = gpu;
    return SINEW_OK;
fail:
    sinew_gpu_destroy(gpu);
    return r;
}

sinew_result sinew_gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc || !desc->instance || !desc->physical_device || !desc->device || !desc->queue)
        return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_gpu *gpu = gpu_new(desc->allocator, desc->log, desc->log_user);
    if (!gpu) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    gpu->external = 1;
    sinew_result r = SINEW_OK;
    gpu->gipa = desc->get_instance_proc_addr;
    if (!gpu->gipa) gpu->gipa = open_loader(&gpu->loader);
    if (!gpu->gipa) {
        r = SINEW_ERROR_NO_DEVICE;
        goto fail;
    }
    gpu->instance = desc->instance;
    gpu->phys = desc->physical_device;
    gpu->device = desc->device;
    gpu->queue = desc->queue;
    gpu->queue_family = desc->queue_family;
    load_instance_fns(gpu->gipa, gpu->instance, &gpu->vki);
    if (!gpu->vki.GetDeviceProcAddr || !gpu->vki.GetPhysicalDeviceProperties) {
        r = SINEW_ERROR_INVALID_ARGUMENT;
        goto fail;
    }
    VkPhysicalDeviceProperties p;
    gpu->vki.GetPhysicalDeviceProperties(gpu->phys, &p);
    if (p.apiVersion < VK_API_VERSION_1_1) {
        r = SINEW_ERROR_NO_DEVICE;
        goto fail;
    }
    if (desc->debug_utils_enabled && gpu->vki.CreateDebugUtilsMessengerEXT) {
        VkDebugUtilsMessengerCreateInfoEXT dbg;
        messenger_info(gpu, &dbg);
        VkResult vr = gpu->vki.CreateDebugUtilsMessengerEXT(gpu->instance, &dbg, NULL, &gpu->messenger);
        if (vr != VK_SUCCESS) {
            gpu->messenger = VK_NULL_HANDLE;
            r = sinew_vk_result(vr);
            goto fail;
        }
        gpu->validation = 1;
    }
    sinew_volk_load_device_table(&gpu->vk, gpu->device, gpu->vki.GetDeviceProcAddr);
    r = finish_setup(gpu);
    if (r != SINEW_OK) goto fail;
    *out = gpu;
    return SINEW_OK;
fail:
    sinew_gpu_destroy(gpu);
    return r;
}

void sinew_gpu_destroy(sinew_gpu *gpu)
{
    if (!gpu) return;
    if (gpu->device && gpu->vk.vkDeviceWaitIdle) {
        if (!gpu->external) gpu->vk.vkDeviceWaitIdle(gpu->device);
        else if (gpu->queue) gpu->vk.vkQueueWaitIdle(gpu->queue);
    }
    if (gpu->oneshot_pool) gpu->vk.vkDestroyCommandPool(gpu->device, gpu->oneshot_pool, NULL);
    if (!gpu->external && gpu->device) gpu->vk.vkDestroyDevice(gpu->device, NULL);
    if (gpu->messenger && gpu->vki.DestroyDebugUtilsMessengerEXT)
        gpu->vki.DestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, NULL);
    if (!gpu->external && gpu->instance && gpu->vki.DestroyInstance) gpu->vki.DestroyInstance(gpu->instance, NULL);
    if (gpu->loader) dlclose(gpu->loader);
    sinew_allocator a = gpu->alloc;
    a.free(a.user, gpu);
}

sinew_result sinew_gpu_list_devices(sinew_gpu_device_info *out, uint32_t max, uint32_t *count)
{
    if (!count || (max && !out)) return SINEW_ERROR_INVALID_ARGUMENT;
    *count = 0;
    void *loader = NULL;
    PFN_vkGetInstanceProcAddr gipa = open_loader(&loader);
    if (!gipa) return SINEW_ERROR_NO_DEVICE;
    VkInstance inst = VK_NULL_HANDLE;
    sinew_result r = SINEW_OK;
    VkResult vr = create_instance(gipa, 0, 0, NULL, &inst);
    if (vr != VK_SUCCESS) {
        r = vr == VK_ERROR_INCOMPATIBLE_DRIVER ? SINEW_ERROR_NO_DEVICE : sinew_vk_result(vr);
        dlclose(loader);
        return r;
    }
    sinew_vki f;
    load_instance_fns(gipa, inst, &f);
    uint32_t n = 0;
    vr = f.EnumeratePhysicalDevices(inst, &n, NULL);
    if (vr == VK_SUCCESS && n > 0) {
        VkPhysicalDevice *pd = (VkPhysicalDevice *)calloc(n, sizeof *pd);
        if (!pd) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        else {
            vr = f.EnumeratePhysicalDevices(inst, &n, pd);
            if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) r = sinew_vk_result(vr);
            else {
                for (uint32_t i = 0; i < n && i < max; i++) describe_device(&f, pd[i], &out[i]);
                *count = n;
            }
            free(pd);
        }
    } else if (vr != VK_SUCCESS) {
        r = sinew_vk_result(vr);
    }
    f.DestroyInstance(inst, NULL);
    dlclose(loader);
    return r;
}

const sinew_gpu_device_info *sinew_gpu_info(const sinew_gpu *gpu) { return gpu ? &gpu->info : NULL; }
const VkPhysicalDeviceProperties *sinew_gpu_properties(const sinew_gpu *gpu) { return gpu ? &gpu->props : NULL; }
uint64_t sinew_gpu_max_allocation(const sinew_gpu *gpu) { return gpu ? gpu->max_allocation : 0; }
uint32_t sinew_gpu_validation_message_count(const sinew_gpu *gpu)
{
    return gpu ? __atomic_load_n(&gpu->message_count, __ATOMIC_RELAXED) : 0;
}
int sinew_gpu_validation_enabled(const sinew_gpu *gpu) { return gpu ? gpu->validation : 0; }
VkInstance sinew_gpu_instance(const sinew_gpu *gpu) { return gpu ? gpu->instance : VK_NULL_HANDLE; }
VkPhysicalDevice sinew_gpu_physical_device(const sinew_gpu *gpu) { return gpu ? gpu->phys : VK_NULL_HANDLE; }
VkDevice sinew_gpu_device(const sinew_gpu *gpu) { return gpu ? gpu->device : VK_NULL_HANDLE; }
VkQueue sinew_gpu_queue(const sinew_gpu *gpu) { return gpu ? gpu->queue : VK_NULL_HANDLE; }
uint32_t sinew_gpu_queue_family(const sinew_gpu *gpu) { return gpu ? gpu->queue_family : 0; }

/* ---- buffers and submissions ---- */

static int find_memory_type(const sinew_gpu *gpu, uint32_t bits, VkMemoryPropertyFlags flags)
{
    for (uint32_t i = 0; i < gpu->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (gpu->mem.memoryTypes[i].propertyFlags & flags) == flags) return (int)i;
    return -1;
}

sinew_result sinew_vk_buffer_create(sinew_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                    int host_map, sinew_vk_buffer *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (size > gpu->max_allocation) return SINEW_ERROR_LIMIT_EXCEEDED;
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult vr = gpu->vk.vkCreateBuffer(gpu->device, &bci, NULL, &out->buffer);
    if (vr != VK_SUCCESS) {
        out->buffer = VK_NULL_HANDLE;
        return sinew_vk_result(vr);
    }
    VkMemoryRequirements req;
    gpu->vk.vkGetBufferMemoryRequirements(gpu->device, out->buffer, &req);
    int types[2] = { find_memory_type(gpu, req.memoryTypeBits, required | preferred),
                     find_memory_type(gpu, req.memoryTypeBits, required) };
    vr = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    for (int k = 0; k < 2 && vr != VK_SUCCESS; k++) {
        if (types[k] < 0 || (k == 1 && types[1] == types[0])) continue;
        VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = (uint32_t)types[k];
        vr = gpu->vk.vkAllocateMemory(gpu->device, &ai, NULL, &out->memory);
    }
    if (vr != VK_SUCCESS) {
        out->memory = VK_NULL_HANDLE;
        sinew_vk_buffer_destroy(gpu, out);
        return sinew_vk_result(vr);
    }
    vr = gpu->vk.vkBindBufferMemory(gpu->device, out->buffer, out->memory, 0);
    if (vr == VK_SUCCESS && host_map) vr = gpu->vk.vkMapMemory(gpu->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (vr != VK_SUCCESS) {
        out->mapped = NULL;
        sinew_vk_buffer_destroy(gpu, out);
        return sinew_vk_result(vr);
    }
    out->size = size;
    return SINEW_OK;
}

void sinew_vk_buffer_destroy(sinew_gpu *gpu, sinew_vk_buffer *b)
{
    if (b->mapped) gpu->vk.vkUnmapMemory(gpu->device, b->memory);
    if (b->buffer) gpu->vk.vkDestroyBuffer(gpu->device, b->buffer, NULL);
    if (b->memory) gpu->vk.vkFreeMemory(gpu->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

sinew_result sinew_vk_oneshot_begin(sinew_gpu *gpu, VkCommandBuffer *cmd)
{
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = gpu->oneshot_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkResult vr = gpu->vk.vkAllocateCommandBuffers(gpu->device, &ai, cmd);
    if (vr != VK_SUCCESS) return sinew_vk_result(vr);
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vr = gpu->vk.vkBeginCommandBuffer(*cmd, &bi);
    if (vr != VK_SUCCESS) {
        gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->oneshot_pool, 1, cmd);
        return sinew_vk_result(vr);
    }
    return SINEW_OK;
}

sinew_result sinew_vk_oneshot_end(sinew_gpu *gpu, VkCommandBuffer cmd)
{
    VkResult vr = gpu->vk.vkEndCommandBuffer(cmd);
    VkFence fence = VK_NULL_HANDLE;
    if (vr == VK_SUCCESS) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        vr = gpu->vk.vkCreateFence(gpu->device, &fci, NULL, &fence);
    }
    if (vr == VK_SUCCESS) {
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vr = gpu->vk.vkQueueSubmit(gpu->queue, 1, &si, fence);
        if (vr == VK_SUCCESS) vr = gpu->vk.vkWaitForFences(gpu->device, 1, &fence, VK_TRUE, UINT64_MAX);
    }
    if (fence) gpu->vk.vkDestroyFence(gpu->device, fence, NULL);
    gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->oneshot_pool, 1, &cmd);
    return sinew_vk_result(vr);
}

sinew_result sinew_vk_upload(sinew_gpu *gpu, VkBuffer dst, VkDeviceSize offset, const void *data,
                             VkDeviceSize size)
{
    if (size == 0) return SINEW_OK;
    sinew_vk_buffer st;
    sinew_result r = sinew_vk_buffer_create(gpu, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                            0, 1, &st);
    if (r != SINEW_OK) return r;
    memcpy(st.mapped, data, (size_t)size);
    VkCommandBuffer cmd;
    r = sinew_vk_oneshot_begin(gpu, &cmd);
    if (r == SINEW_OK) {
        /* Earlier shader reads of the destination must finish before the copy. */
        VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
        mb.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        VkBufferCopy c = { 0, offset, size };
        gpu->vk.vkCmdCopyBuffer(cmd, st.buffer, dst, 1, &c);
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        gpu->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     0, 1, &mb, 0, NULL, 0, NULL);
        r = sinew_vk_oneshot_end(gpu, cmd);
    }
    sinew_vk_buffer_destroy(gpu, &st);
    return r;
}

sinew_result sinew_vk_shader(sinew_gpu *gpu, const uint32_t *code, size_t bytes, VkShaderModule *out)
{
    VkShaderModuleCreateInfo ci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO };
    ci.codeSize = bytes;
    ci.pCode = code;
    return sinew_vk_result(gpu->vk.vkCreateShaderModule(gpu->device, &ci, NULL, out));
}

/* ---- copy roofline ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double ts_ms(const sinew_gpu *gpu, const uint64_t t[2])
{
    uint64_t mask = gpu->timestamp_valid_bits >= 64 ? ~0ull : ((1ull << gpu->timestamp_valid_bits) - 1);
    uint64_t dt = (t[1] - t[0]) & mask;
    return (double)dt * (double)gpu->props.limits.timestampPeriod * 1e-6;
}

sinew_result sinew_gpu_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, sinew_copy_roofline *out)
{
    if (!gpu || !out || bytes == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!gpu->timestamp_valid_bits) return SINEW_ERROR_LIMIT_EXCEEDED;
    if (repeats == 0) repeats = 5;
    if (repeats > 1000) repeats = 1000;
    bytes = (bytes + 15) & ~(uint64_t)15;
    uint64_t count = bytes / 16;
    uint64_t groups = (count + SINEW_COPY_WG_SIZE - 1) / SINEW_COPY_WG_SIZE;
    const VkPhysicalDeviceLimits *lim = &gpu->props.limits;
    uint32_t grid_x = groups < lim->maxComputeWorkGroupCount[0] ? (uint32_t)groups : lim->maxComputeWorkGroupCount[0];
    uint64_t grid_y = (groups + grid_x - 1) / grid_x;
    if (bytes > lim->maxStorageBufferRange || bytes > gpu->max_allocation || count > UINT32_MAX ||
        grid_y > lim->maxComputeWorkGroupCount[1])
        return SINEW_ERROR_LIMIT_EXCEEDED;

    sinew_vk_buffer src = { 0 }, dst = { 0 };
    VkShaderModule sm = VK_NULL_HANDLE;
    VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
    VkPipelineLayout pl = VK_NULL_HANDLE;
    VkPipeline pipe = VK_NULL_HANDLE;
    VkDescriptorPool dp = VK_NULL_HANDLE;
    VkQueryPool qp = VK_NULL_HANDLE;
    double *times = NULL;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    sinew_result r = sinew_vk_buffer_create(gpu, bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &src);
    if (r == SINEW_OK) r = sinew_vk_buffer_create(gpu, bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &dst);
    if (r == SINEW_OK) r = sinew_vk_shader(gpu, sinew_spv_copy_comp, sinew_spv_copy_comp_size, &sm);
    VkResult vr = VK_SUCCESS;
    if (r == SINEW_OK) {
        VkDescriptorSetLayoutBinding b[2] = {
            { SINEW_COPY_BIND_SRC, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
            { SINEW_COPY_BIND_DST, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
        };
        VkDescriptorSetLayoutCreateInfo ci = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO };
        ci.bindingCount = 2;
        ci.pBindings = b;
        vr = gpu->vk.vkCreateDescriptorSetLayout(gpu->device, &ci, NULL, &dsl);
    }
    if (r == SINEW_OK && vr == VK_SUCCESS) {
        VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, SINEW_COPY_PUSH_BYTES };
        VkPipelineLayoutCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
        ci.setLayoutCount = 1;
        ci.pSetLayouts = &dsl;
        ci.pushConstantRangeCount = 1;
        ci.pPushConstantRanges = &pcr;
        vr = gpu->vk.vkCreatePipelineLayout(gpu->device, &ci, NULL, &pl);
    }
    if (r == SINEW_OK && vr == VK_SUCCESS) {
        VkComputePipelineCreateInfo ci = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
        ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = sm;
        ci.stage.pName = "main";
        ci.layout = pl;
        vr = gpu->vk.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &ci, NULL, &pipe);
    }
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (r == SINEW_OK && vr == VK_SUCCESS) {
        VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 };
        VkDescriptorPoolCreateInfo ci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
        ci.maxSets = 1;
        ci.poolSizeCount = 1;
        ci.pPoolSizes = &ps;
        vr = gpu->vk.vkCreateDescriptorPool(gpu->device, &ci, NULL, &dp);
        if (vr == VK_SUCCESS) {
            VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
            ai.descriptorPool = dp;
            ai.descriptorSetCount = 1;
            ai.pSetLayouts = &dsl;
            vr = gpu->vk.vkAllocateDescriptorSets(gpu->device, &ai, &set);
        }
        if (vr == VK_SUCCESS) {
            VkDescriptorBufferInfo bi[2] = { { src.buffer, 0, bytes }, { dst.buffer, 0, bytes } };
            VkWriteDescriptorSet w[2];
            memset(w, 0, sizeof w);
            for (int i = 0; i < 2; i++) {
                w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
                w[i].dstSet = set;
                w[i].dstBinding = (uint32_t)i;
                w[i].descriptorCount = 1;
                w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
                w[i].pBufferInfo = &bi[i];
            }
            gpu->vk.vkUpdateDescriptorSets(gpu->device, 2, w, 0, NULL);
        }
    }
    if (r == SINEW_OK && vr == VK_SUCCESS) {
        VkQueryPoolCreateInfo ci = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
        ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        ci.queryCount = 2;
        vr = gpu->vk.vkCreateQueryPool(gpu->device, &ci, NULL, &qp);
    }
    if (r == SINEW_OK) r = sinew_vk_result(vr);
    if (r == SINEW_OK) {
        times = (double *)sinew_gpu_alloc(gpu, 2 * sizeof(double) * repeats);
        if (!times) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* Warm-up (2 of each, pipelines compile on first use), then alternate the two copies. */
    const uint32_t warm = 2;
    for (uint32_t it = 0; r == SINEW_OK && it < 2 * (warm + repeats); it++) {
        int shader = (it & 1) == 0;
        VkCommandBuffer cmd;
        r = sinew_vk_oneshot_begin(gpu, &cmd);
        if (r != SINEW_OK) break;
        if (it == 0) gpu->vk.vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x3f800000u);
        VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        VkPipelineStageFlags st = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
        gpu->vk.vkCmdPipelineBarrier(cmd, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
        gpu->vk.vkCmdResetQueryPool(cmd, qp, 0, 2);
        if (shader) {
            uint32_t push[2] = { (uint32_t)count, grid_x };
            gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
            gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &set, 0, NULL);
            gpu->vk.vkCmdPushConstants(cmd, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
            gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, qp, 0);
            gpu->vk.vkCmdDispatch(cmd, grid_x, (uint32_t)grid_y, 1);
            gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, qp, 1);
        } else {
            VkBufferCopy c = { 0, 0, bytes };
            gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, qp, 0);
            gpu->vk.vkCmdCopyBuffer(cmd, src.buffer, dst.buffer, 1, &c);
            gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, qp, 1);
        }
        r = sinew_vk_oneshot_end(gpu, cmd);
        if (r != SINEW_OK) break;
        uint64_t t[2];
        vr = gpu->vk.vkGetQueryPoolResults(gpu->device, qp, 0, 2, sizeof t, t, sizeof t[0],
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (vr != VK_SUCCESS) {
            r = sinew_vk_result(vr);
            break;
        }
        uint32_t k = it / 2;
        if (k >= warm) times[(shader ? 0 : repeats) + (k - warm)] = ts_ms(gpu, t);
    }
    if (r == SINEW_OK) {
        qsort(times, repeats, sizeof(double), cmp_double);
        qsort(times + repeats, repeats, sizeof(double), cmp_double);
        double ms_shader = times[repeats / 2], ms_copy = times[repeats + repeats / 2];
        out->bytes = bytes;
        out->shader_copy_gbps = ms_shader > 0 ? 2.0 * (double)bytes / (ms_shader * 1e-3) * 1e-9 : 0;
        out->transfer_copy_gbps = ms_copy > 0 ? 2.0 * (double)bytes / (ms_copy * 1e-3) * 1e-9 : 0;
    }
    sinew_gpu_free(gpu, times);
    if (qp) gpu->vk.vkDestroyQueryPool(gpu->device, qp, NULL);
    if (dp) gpu->vk.vkDestroyDescriptorPool(gpu->device, dp, NULL);
    if (pipe) gpu->vk.vkDestroyPipeline(gpu->device, pipe, NULL);
    if (pl) gpu->vk.vkDestroyPipelineLayout(gpu->device, pl, NULL);
    if (dsl) gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, dsl, NULL);
    if (sm) gpu->vk.vkDestroyShaderModule(gpu->device, sm, NULL);
    sinew_vk_buffer_destroy(gpu, &src);
    sinew_vk_buffer_destroy(gpu, &dst);
    return r;
}
