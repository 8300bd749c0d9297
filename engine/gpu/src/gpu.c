/* Sinew Vulkan context: instance/device creation, per-object
 * function tables (no global state of Sinew's own), validation messenger,
 * buffer helpers and the copy roofline. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/linalg.h>
#include "error_internal.h"
#include "vk_internal.h"
#include "sinew_layout.h"
#include <sinew/debug.h>

#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */


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
    L(EnumerateDeviceExtensionProperties);
    L(CreateDebugUtilsMessengerEXT);
    L(DestroyDebugUtilsMessengerEXT);
#undef L
}

/* Whether ext is among the n properties p. */
static int ext_listed(const VkExtensionProperties *p, uint32_t n, const char *ext)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(p[i].extensionName, ext) == 0) return 1;
    return 0;
}

/* Whether the physical device offers a device extension. */
static int device_ext_available(const sinew_gpu *gpu, const char *ext)
{
    if (!gpu->vki.EnumerateDeviceExtensionProperties) return 0;
    uint32_t n = 0;
    if (gpu->vki.EnumerateDeviceExtensionProperties(gpu->phys, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    VkExtensionProperties *p = (VkExtensionProperties *)calloc(n, sizeof *p);
    if (!p) return 0;
    int found = gpu->vki.EnumerateDeviceExtensionProperties(gpu->phys, NULL, &n, p) == VK_SUCCESS &&
                ext_listed(p, n, ext);
    free(p);
    return found;
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
    enum_ext(NULL, &n, p);
    int found = ext_listed(p, n, ext);
    free(p);
    return found;
}

static VkResult create_instance(PFN_vkGetInstanceProcAddr gipa, int validation, int debug_utils,
                                const VkDebugUtilsMessengerCreateInfoEXT *dbg,
                                const VkAllocationCallbacks *vka, VkInstance *out)
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
    return create(&ci, vka, out);
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
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) return snw_vk_result(vr);
    if (n == 0) return SINEW_ERROR_NO_DEVICE;
    VkPhysicalDevice *pd = (VkPhysicalDevice *)snw_gpu_alloc(gpu, n * sizeof *pd);
    sinew_gpu_device_info *infos = (sinew_gpu_device_info *)snw_gpu_alloc(gpu, n * sizeof *infos);
    if (!pd || !infos) {
        snw_gpu_free(gpu, pd);
        snw_gpu_free(gpu, infos);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_result r = SINEW_OK;
    vr = gpu->vki.EnumeratePhysicalDevices(gpu->instance, &n, pd);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) r = snw_vk_result(vr);
    uint32_t best = 0;
    if (r == SINEW_OK) {
        for (uint32_t i = 0; i < n; i++) {
            describe_device(&gpu->vki, pd[i], &infos[i]);
            if (sel && *sel && !infos[i].usable)
                snw_gpu_log(gpu, 1, "device %u (%s) lacks Vulkan 1.1 or a compute queue", i, infos[i].name);
        }
        r = sinew_gpu_pick_device(infos, n, sel, &best);
        if (r == SINEW_OK) {
            *out = pd[best];
            *family = pick_queue_family(&gpu->vki, pd[best]);
        } else if (sel && *sel) {
            snw_gpu_log(gpu, 2, "no Vulkan device matches the selection \"%s\"", sel);
        }
    }
    snw_gpu_free(gpu, infos);
    snw_gpu_free(gpu, pd);
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
    VkQueueFamilyProperties *q = (VkQueueFamilyProperties *)snw_gpu_alloc(gpu, n * sizeof *q);
    if (!q) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    gpu->vki.GetPhysicalDeviceQueueFamilyProperties(gpu->phys, &n, q);
    gpu->queue_flags = q[gpu->queue_family].queueFlags;
    gpu->timestamp_valid_bits = q[gpu->queue_family].timestampValidBits;
    snw_gpu_free(gpu, q);
    if (!(gpu->queue_flags & VK_QUEUE_COMPUTE_BIT)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!gpu->props.limits.timestampComputeAndGraphics && !gpu->timestamp_valid_bits) gpu->timestamp_valid_bits = 0;

    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = gpu->queue_family;
    return snw_vk_result(gpu->vk.vkCreateCommandPool(gpu->device, &pci, SNW_VKA(gpu), &gpu->oneshot_pool));
}

/* a: already resolved by the caller (snw_allocator_resolve). */
static sinew_gpu *gpu_new(const sinew_allocator *a, sinew_log_fn log, void *log_user)
{
    sinew_gpu *gpu = (sinew_gpu *)snw_calloc(a, 1, sizeof *gpu);
    if (!gpu) return NULL;
    gpu->alloc = *a;
    snw_vk_allocator_init(gpu);
    pthread_mutex_init(&gpu->queue_lock, NULL);
    gpu->log = log ? log : snw_log_default;
    gpu->log_user = log ? log_user : NULL;
    return gpu;
}

/* Loads the device table; a missing function fails creation (SINEW_ERROR_VULKAN). */
static sinew_result load_device(sinew_gpu *gpu)
{
    if (!gpu->vki.GetDeviceProcAddr) return SINEW_ERROR_VULKAN;
    if (snw_vk_load_device_table(&gpu->vk, gpu->device, gpu->vki.GetDeviceProcAddr) != VK_SUCCESS) {
        snw_gpu_log(gpu, 2, "a device-level Vulkan function Sinew needs is missing");
        return SINEW_ERROR_VULKAN;
    }
    return SINEW_OK;
}

/* ---- public ---- */

/* Fills err after a failed create whose code path set no detail: the result and
 * where to look (the log callback received the driver's words). */
static sinew_result gpu_fail(sinew_error_info *err, sinew_result r, const char *what)
{
    if (err && err->result == SINEW_OK)
        snw_fail(err, r, r == SINEW_ERROR_OUT_OF_HOST_MEMORY ? SINEW_ITEM_NONE : SINEW_ITEM_DEVICE, UINT32_MAX,
                 "%s: %s (the log callback has the driver's messages)", what, sinew_result_string(r));
    return r;
}

static sinew_result gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out, sinew_error_info *err);
static sinew_result gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out, sinew_error_info *err);

/* The end of both creates: the device table, the queue (own device; an external
 * one's is the desc's), finish_setup; *out on success, else the gpu destroyed. */
static sinew_result finish_create(sinew_gpu *gpu, sinew_gpu **out)
{
    sinew_result r = load_device(gpu);
    if (r == SINEW_OK && !gpu->external) gpu->vk.vkGetDeviceQueue(gpu->device, gpu->queue_family, 0, &gpu->queue);
    if (r == SINEW_OK) r = finish_setup(gpu);
    if (r != SINEW_OK) {
        sinew_gpu_destroy(gpu);
        return r;
    }
    *out = gpu;
    return SINEW_OK;
}

sinew_result sinew_gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out, sinew_error_info *err)
{
    snw_error_clear(err);
    sinew_result r = gpu_create(desc, out, err);
    return r == SINEW_OK ? r : gpu_fail(err, r, "sinew_gpu_create");
}

sinew_result sinew_gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out, sinew_error_info *err)
{
    snw_error_clear(err);
    sinew_result r = gpu_create_external(desc, out, err);
    return r == SINEW_OK ? r : gpu_fail(err, r, "sinew_gpu_create_external");
}

static sinew_result gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out, sinew_error_info *err)
{
    if (!out) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    *out = NULL;
    sinew_gpu_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    sinew_allocator a;
    if (snw_allocator_resolve(d.allocator, &a) != SINEW_OK)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.allocator: alloc and free must both be set or both be NULL");
    sinew_gpu *gpu = gpu_new(&a, d.log, d.log_user);
    if (!gpu) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    gpu->memory_callbacks = d.device_memory;
    sinew_result r = SINEW_OK;

    gpu->gipa = d.get_instance_proc_addr ? d.get_instance_proc_addr : open_loader(&gpu->loader);
    if (!gpu->gipa) {
        snw_gpu_log(gpu, 2, "the Vulkan loader (libvulkan.so.1) could not be opened");
        r = snw_fail(err, SINEW_ERROR_NO_DEVICE, SINEW_ITEM_DEVICE, UINT32_MAX,
                     "the Vulkan loader (libvulkan.so.1) could not be opened");
        goto fail;
    }
    int want_validation = d.enable_validation || env_flag("SINEW_VALIDATION");
    int validation = want_validation && layer_available(gpu->gipa, "VK_LAYER_KHRONOS_validation");
    if (want_validation && !validation)
        snw_gpu_log(gpu, 1, "VK_LAYER_KHRONOS_validation is not installed: validation is off");
    int debug_utils = validation && ext_available(gpu->gipa, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    VkDebugUtilsMessengerCreateInfoEXT dbg;
    messenger_info(gpu, &dbg);
    VkResult vr = create_instance(gpu->gipa, validation, debug_utils, &dbg, SNW_VKA(gpu), &gpu->instance);
    if (vr != VK_SUCCESS) {
        snw_gpu_log(gpu, 2, "vkCreateInstance failed (%d)", (int)vr);
        r = vr == VK_ERROR_INCOMPATIBLE_DRIVER ? SINEW_ERROR_NO_DEVICE : snw_vk_result(vr);
        if (vr == VK_ERROR_INCOMPATIBLE_DRIVER)
            snw_fail(err, r, SINEW_ITEM_DEVICE, UINT32_MAX, "the Vulkan loader offers no Vulkan 1.1 instance (Sinew needs 1.1)");
        else
            snw_fail(err, r, SINEW_ITEM_DEVICE, UINT32_MAX, "vkCreateInstance failed (VkResult %d)", (int)vr);
        gpu->instance = VK_NULL_HANDLE;
        goto fail;
    }
    load_instance_fns(gpu->gipa, gpu->instance, &gpu->vki);
    if (debug_utils && gpu->vki.CreateDebugUtilsMessengerEXT) {
        vr = gpu->vki.CreateDebugUtilsMessengerEXT(gpu->instance, &dbg, SNW_VKA(gpu), &gpu->messenger);
        if (vr != VK_SUCCESS) {
            gpu->messenger = VK_NULL_HANDLE;
            r = snw_vk_result(vr);
            goto fail;
        }
        gpu->validation = 1;
    }

    const char *sel = d.device;
    if (!sel || !*sel) sel = getenv("SINEW_DEVICE");
    r = choose_device(gpu, sel, &gpu->phys, &gpu->queue_family);
    if (r == SINEW_ERROR_NO_DEVICE) {
        if (sel && *sel)
            snw_fail(err, r, SINEW_ITEM_DEVICE, UINT32_MAX,
                     "no usable Vulkan device (1.1 or later, a compute queue) matches the selection \"%s\"", sel);
        else
            snw_fail(err, r, SINEW_ITEM_DEVICE, UINT32_MAX, "no Vulkan device with Vulkan 1.1 and a compute queue");
    }
    if (r != SINEW_OK) goto fail;

    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = gpu->queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    /* SINEW_PIPELINE_STATISTICS=1 (benchmarks, sinew_debug_pipeline_statistics): the
     * driver's per-pipeline statistics (registers, instructions) where it has them */
    const char *stats_ext[1] = { VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME };
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR stats_feat = {
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR };
    int want_stats = env_flag("SINEW_PIPELINE_STATISTICS") &&
                     device_ext_available(gpu, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (want_stats) {
        stats_feat.pipelineExecutableInfo = VK_TRUE;
        dci.pNext = &stats_feat;
        dci.enabledExtensionCount = 1;
        dci.ppEnabledExtensionNames = stats_ext;
    }
    if (!gpu->vki.CreateDevice) {
        r = SINEW_ERROR_VULKAN;
        goto fail;
    }
    vr = gpu->vki.CreateDevice(gpu->phys, &dci, SNW_VKA(gpu), &gpu->device);
    if (vr != VK_SUCCESS) {
        gpu->device = VK_NULL_HANDLE;
        r = snw_vk_result(vr);
        goto fail;
    }
    if (want_stats && gpu->vki.GetDeviceProcAddr) {
        gpu->exec_properties = (PFN_vkGetPipelineExecutablePropertiesKHR)gpu->vki.GetDeviceProcAddr(
            gpu->device, "vkGetPipelineExecutablePropertiesKHR");
        gpu->exec_statistics = (PFN_vkGetPipelineExecutableStatisticsKHR)gpu->vki.GetDeviceProcAddr(
            gpu->device, "vkGetPipelineExecutableStatisticsKHR");
        gpu->capture_stats = gpu->exec_properties && gpu->exec_statistics;
    }
    return finish_create(gpu, out);
fail:
    sinew_gpu_destroy(gpu);
    return r;
}

static sinew_result gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out, sinew_error_info *err)
{
    if (!out) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    *out = NULL;
    if (!desc) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc is NULL");
    if (!desc->instance || !desc->physical_device || !desc->device || !desc->queue)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.%s is VK_NULL_HANDLE",
                        !desc->instance ? "instance" : !desc->physical_device ? "physical_device"
                                                     : !desc->device ? "device" : "queue");
    if (desc->api_version == 0)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.api_version is 0: set it to the VkApplicationInfo.apiVersion the instance was created "
                        "with (Sinew needs Vulkan 1.1 or later)");
    if (desc->api_version < SINEW_VULKAN_API_VERSION)
        return snw_fail(err, SINEW_ERROR_NO_DEVICE, SINEW_ITEM_DEVICE, UINT32_MAX,
                        "the instance was created for Vulkan %u.%u; Sinew needs Vulkan 1.1 or later "
                        "(VkApplicationInfo.apiVersion = VK_API_VERSION_1_1)",
                        VK_API_VERSION_MAJOR(desc->api_version), VK_API_VERSION_MINOR(desc->api_version));
    sinew_allocator a;
    if (snw_allocator_resolve(desc->allocator, &a) != SINEW_OK)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.allocator: alloc and free must both be set or both be NULL");
    sinew_gpu *gpu = gpu_new(&a, desc->log, desc->log_user);
    if (!gpu) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    gpu->memory_callbacks = desc->device_memory;
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
    if (p.apiVersion < SINEW_VULKAN_API_VERSION) {
        r = snw_fail(err, SINEW_ERROR_NO_DEVICE, SINEW_ITEM_DEVICE, UINT32_MAX,
                     "the physical device '%s' supports Vulkan %u.%u; Sinew needs Vulkan 1.1 or later", p.deviceName,
                     VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion));
        goto fail;
    }
    if (desc->debug_utils_enabled && gpu->vki.CreateDebugUtilsMessengerEXT) {
        VkDebugUtilsMessengerCreateInfoEXT dbg;
        messenger_info(gpu, &dbg);
        VkResult vr = gpu->vki.CreateDebugUtilsMessengerEXT(gpu->instance, &dbg, SNW_VKA(gpu), &gpu->messenger);
        if (vr != VK_SUCCESS) {
            gpu->messenger = VK_NULL_HANDLE;
            r = snw_vk_result(vr);
            goto fail;
        }
        gpu->validation = 1;
    }
    return finish_create(gpu, out);
fail:
    sinew_gpu_destroy(gpu);
    return r;
}

void sinew_gpu_destroy(sinew_gpu *gpu)
{
    if (!gpu) return;
    /* A device whose table failed to load is only destroyed (nothing was made on it). */
    if (gpu->device && gpu->vk.vkDeviceWaitIdle && gpu->vk.vkQueueWaitIdle) {
        if (!gpu->external) gpu->vk.vkDeviceWaitIdle(gpu->device);
        else if (gpu->queue) snw_vk_queue_wait_idle(gpu);
    }
    if (gpu->oneshot_pool) gpu->vk.vkDestroyCommandPool(gpu->device, gpu->oneshot_pool, SNW_VKA(gpu));
    if (!gpu->external && gpu->device) {
        PFN_vkDestroyDevice destroy_device = gpu->vk.vkDestroyDevice;
        if (!destroy_device && gpu->vki.GetDeviceProcAddr)
            destroy_device = (PFN_vkDestroyDevice)gpu->vki.GetDeviceProcAddr(gpu->device, "vkDestroyDevice");
        if (destroy_device) destroy_device(gpu->device, SNW_VKA(gpu));
    }
    if (gpu->messenger && gpu->vki.DestroyDebugUtilsMessengerEXT)
        gpu->vki.DestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, SNW_VKA(gpu));
    if (!gpu->external && gpu->instance && gpu->vki.DestroyInstance) gpu->vki.DestroyInstance(gpu->instance, SNW_VKA(gpu));
    if (gpu->loader) dlclose(gpu->loader);
    pthread_mutex_destroy(&gpu->queue_lock);
    sinew_allocator a = gpu->alloc;
    snw_free(&a, gpu);
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
    VkResult vr = create_instance(gipa, 0, 0, NULL, NULL, &inst);
    if (vr != VK_SUCCESS) {
        r = vr == VK_ERROR_INCOMPATIBLE_DRIVER ? SINEW_ERROR_NO_DEVICE : snw_vk_result(vr);
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
            if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) r = snw_vk_result(vr);
            else {
                for (uint32_t i = 0; i < n && i < max; i++) describe_device(&f, pd[i], &out[i]);
                *count = n;
            }
            free(pd);
        }
    } else if (vr != VK_SUCCESS) {
        r = snw_vk_result(vr);
    }
    f.DestroyInstance(inst, NULL);
    dlclose(loader);
    return r;
}

const sinew_gpu_device_info *sinew_gpu_info(const sinew_gpu *gpu) { return gpu ? &gpu->info : NULL; }
const VkPhysicalDeviceProperties *sinew_gpu_properties(const sinew_gpu *gpu) { return gpu ? &gpu->props : NULL; }
uint64_t sinew_gpu_max_allocation(const sinew_gpu *gpu) { return gpu ? gpu->max_allocation : 0; }
VkInstance sinew_gpu_instance(const sinew_gpu *gpu) { return gpu ? gpu->instance : VK_NULL_HANDLE; }
VkPhysicalDevice sinew_gpu_physical_device(const sinew_gpu *gpu) { return gpu ? gpu->phys : VK_NULL_HANDLE; }
VkDevice sinew_gpu_device(const sinew_gpu *gpu) { return gpu ? gpu->device : VK_NULL_HANDLE; }
VkQueue sinew_gpu_queue(const sinew_gpu *gpu) { return gpu ? gpu->queue : VK_NULL_HANDLE; }
uint32_t sinew_gpu_queue_family(const sinew_gpu *gpu) { return gpu ? gpu->queue_family : 0; }

void sinew_gpu_lock_queue(sinew_gpu *gpu)
{
    if (gpu) pthread_mutex_lock(&gpu->queue_lock);
}

void sinew_gpu_unlock_queue(sinew_gpu *gpu)
{
    if (gpu) pthread_mutex_unlock(&gpu->queue_lock);
}

