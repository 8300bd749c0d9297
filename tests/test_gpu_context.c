/* GPU context: device listing, selection by index / name substring / env,
 * bad selections, the copy roofline, and wrapping the caller's own Vulkan
 * objects (instance and device created here with volk) with a small LBS skin
 * recorded into the caller's command buffer. Validation on; 0 messages required. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <sinew/sinew.h>
#include <volk.h>

#include <ctype.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t test_messages = 0;

static VKAPI_ATTR VkBool32 VKAPI_CALL test_debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *d, void *u)
{
    (void)type;
    (void)u;
    test_messages++;
    fprintf(stderr, "test messenger (%d): %s\n", (int)sev, d->pMessage);
    return VK_FALSE;
}

/* The plan's size follows its rule from the LLC it reports and the device's
 * limits, and says truthfully whether it reached beyond the LLC. Nothing here
 * depends on the host's cache size: the expectation is recomputed from it. */
static void check_roofline_plan(const sinew_gpu *g, const sinew_copy_roofline *roof)
{
    const VkPhysicalDeviceLimits *lim = &sinew_gpu_properties(g)->limits;
    int cpu = sinew_gpu_info(g)->type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    uint64_t want = cpu ? (4 * roof->llc_bytes > (64ull << 20) ? 4 * roof->llc_bytes : (64ull << 20)) : (256ull << 20);
    TU_CHECK_MSG(roof->bytes <= want && roof->bytes >= (16ull << 20), "plan %llu MiB, aimed at %llu MiB",
                 (unsigned long long)(roof->bytes >> 20), (unsigned long long)(want >> 20));
    TU_CHECK(roof->bytes <= lim->maxStorageBufferRange || roof->bytes == (16ull << 20));
    sinew_roofline_cache want_cache = roof->llc_bytes == 0 ? SINEW_ROOFLINE_CACHE_UNKNOWN
                                      : roof->bytes >= 2 * roof->llc_bytes ? SINEW_ROOFLINE_BEYOND_LLC
                                                                           : SINEW_ROOFLINE_INSIDE_LLC;
    TU_CHECK_MSG(roof->cache == want_cache, "cache %d, expected %d", (int)roof->cache, (int)want_cache);
    char what[192];
    const char *line = sinew_debug_roofline_describe(roof, what, sizeof what);
    fprintf(stderr, "roofline plan says: %s\n", line);
    TU_CHECK(line == what);
    if (roof->cache == SINEW_ROOFLINE_BEYOND_LLC) TU_CHECK(strstr(what, "beyond") && !strstr(what, "inside"));
    if (roof->cache == SINEW_ROOFLINE_INSIDE_LLC) TU_CHECK(strstr(what, "inside") && strstr(what, "cache roofline") && !strstr(what, "beyond"));
    if (roof->cache == SINEW_ROOFLINE_CACHE_UNKNOWN) TU_CHECK(!strstr(what, "beyond") && !strstr(what, "inside"));
}

static int write_cache_size(const char *dir, int index, const char *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/index%d", dir, index);
    if (mkdir(path, 0700) != 0) return 0;
    snprintf(path, sizeof path, "%s/index%d/size", dir, index);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "%s\n", size);
    return fclose(f) == 0;
}

static void remove_cache_dir(const char *dir, int count)
{
    char path[512];
    for (int i = 0; i < count; i++) {
        snprintf(path, sizeof path, "%s/index%d/size", dir, i);
        remove(path);
        snprintf(path, sizeof path, "%s/index%d", dir, i);
        rmdir(path);
    }
    rmdir(dir);
}

/* CPU devices: a faked sysfs cache directory (SINEW_CPU_CACHE_SYSFS) with a
 * 480 MiB L3, larger than any buffer lavapipe allows, and one with a 2 MiB L3. */
static void check_fake_llc(const sinew_gpu *g)
{
    const char *env = getenv("SINEW_CPU_CACHE_SYSFS");
    char saved[512] = "";
    if (env) snprintf(saved, sizeof saved, "%s", env);
    char dir[] = "/tmp/sinew-llc-XXXXXX";
    TU_CHECK(mkdtemp(dir) != NULL);
    TU_CHECK(write_cache_size(dir, 0, "48K") && write_cache_size(dir, 1, "32K") && write_cache_size(dir, 2, "2048K") &&
             write_cache_size(dir, 3, "491520K"));
    setenv("SINEW_CPU_CACHE_SYSFS", dir, 1);
    sinew_copy_roofline roof;
    TU_CHECK_OK(sinew_debug_roofline_plan(g, &roof));
    TU_CHECK(roof.llc_bytes == (480ull << 20));
    check_roofline_plan(g, &roof);
    const VkPhysicalDeviceLimits *lim = &sinew_gpu_properties(g)->limits;
    if (lim->maxStorageBufferRange < (960ull << 20)) TU_CHECK(roof.cache == SINEW_ROOFLINE_INSIDE_LLC);
    remove_cache_dir(dir, 4);

    char small[] = "/tmp/sinew-llc-XXXXXX";
    TU_CHECK(mkdtemp(small) != NULL);
    TU_CHECK(write_cache_size(small, 0, "32K") && write_cache_size(small, 1, "2M"));
    setenv("SINEW_CPU_CACHE_SYSFS", small, 1);
    TU_CHECK_OK(sinew_debug_roofline_plan(g, &roof));
    TU_CHECK(roof.llc_bytes == (2ull << 20) && roof.bytes == (64ull << 20) && roof.cache == SINEW_ROOFLINE_BEYOND_LLC);
    check_roofline_plan(g, &roof);
    remove_cache_dir(small, 2);

    setenv("SINEW_CPU_CACHE_SYSFS", "/nonexistent-sinew-cache", 1);
    TU_CHECK_OK(sinew_debug_roofline_plan(g, &roof));
    TU_CHECK(roof.llc_bytes == 0 && roof.bytes == (64ull << 20) && roof.cache == SINEW_ROOFLINE_CACHE_UNKNOWN);
    if (saved[0]) setenv("SINEW_CPU_CACHE_SYSFS", saved, 1);
    else unsetenv("SINEW_CPU_CACHE_SYSFS");
}

static void check_selection(void)
{
    sinew_gpu_device_info list[16];
    uint32_t n = 0;
    TU_CHECK_OK(sinew_gpu_list_devices(list, 16, &n));
    TU_CHECK_MSG(n >= 1, "no Vulkan device listed (%u)", n);
    for (uint32_t i = 0; i < n && i < 16; i++) {
        fprintf(stderr, "device %u: %s (type %d, api %u.%u)\n", i, list[i].name, (int)list[i].type,
                VK_API_VERSION_MAJOR(list[i].api_version), VK_API_VERSION_MINOR(list[i].api_version));
        TU_CHECK(strlen(list[i].name) > 0);
    }
    uint32_t n2 = 0;
    TU_CHECK_OK(sinew_gpu_list_devices(NULL, 0, &n2));
    TU_CHECK(n2 == n);
    TU_CHECK_RESULT(sinew_gpu_list_devices(NULL, 4, &n2), SINEW_ERROR_INVALID_ARGUMENT);
    if (n == 0) return;

    /* By index: each listed device (all devices here support Vulkan 1.1 + compute). */
    for (uint32_t i = 0; i < n && i < 16; i++) {
        char sel[16];
        snprintf(sel, sizeof sel, "%u", i);
        sinew_gpu_desc d = { 0 };
        d.device = sel;
        d.enable_validation = 1;
        sinew_gpu *g = NULL;
        sinew_result r = sinew_gpu_create(&d, &g, NULL);
        TU_CHECK_OK(r);
        if (r == SINEW_OK) {
            TU_CHECK_MSG(strcmp(sinew_gpu_info(g)->name, list[i].name) == 0, "index %u gave %s", i,
                         sinew_gpu_info(g)->name);
            TU_CHECK(sinew_debug_validation_enabled(g) == 1);
            TU_CHECK(sinew_debug_validation_message_count(g) == 0);
            sinew_gpu_destroy(g);
        }
    }
    /* By a case-changed substring of the first device's name. */
    char sub[8] = { 0 };
    size_t len = strlen(list[0].name);
    size_t start = len > 6 ? 1 : 0, take = len - start < 5 ? len - start : 5;
    for (size_t k = 0; k < take; k++) {
        char c = list[0].name[start + k];
        sub[k] = (char)(k % 2 ? toupper((unsigned char)c) : tolower((unsigned char)c));
    }
    {
        sinew_gpu_desc d = { 0 };
        d.device = sub;
        sinew_gpu *g = NULL;
        TU_CHECK_OK(sinew_gpu_create(&d, &g, NULL));
        if (g) {
            /* the chosen device's name must contain the substring, case-insensitively */
            char lo_name[256], lo_sub[8];
            size_t i;
            for (i = 0; sinew_gpu_info(g)->name[i] && i < 255; i++) lo_name[i] = (char)tolower((unsigned char)sinew_gpu_info(g)->name[i]);
            lo_name[i] = 0;
            for (i = 0; sub[i]; i++) lo_sub[i] = (char)tolower((unsigned char)sub[i]);
            lo_sub[i] = 0;
            TU_CHECK_MSG(strstr(lo_name, lo_sub) != NULL, "\"%s\" chose %s", sub, sinew_gpu_info(g)->name);
            sinew_gpu_destroy(g);
        }
        fprintf(stderr, "selected by substring \"%s\"\n", sub);
    }
    /* Bad selections. */
    const char *bad[] = { "no-such-device-xyz", "9999" };
    for (int k = 0; k < 2; k++) {
        sinew_gpu_desc d = { 0 };
        d.device = bad[k];
        d.log = NULL;
        sinew_gpu *g = (sinew_gpu *)(uintptr_t)1;
        TU_CHECK_RESULT(sinew_gpu_create(&d, &g, NULL), SINEW_ERROR_NO_DEVICE);
        TU_CHECK(g == NULL);
    }
    /* The environment variable applies when desc.device is NULL. */
    setenv("SINEW_DEVICE", "no-such-device-xyz", 1);
    sinew_gpu *g = NULL;
    TU_CHECK_RESULT(sinew_gpu_create(NULL, &g, NULL), SINEW_ERROR_NO_DEVICE);
    setenv("SINEW_DEVICE", "0", 1);
    TU_CHECK_OK(sinew_gpu_create(NULL, &g, NULL));
    if (g) {
        TU_CHECK(strcmp(sinew_gpu_info(g)->name, list[0].name) == 0);
        sinew_copy_roofline roof;
        TU_CHECK_OK(sinew_debug_measure_copy(g, 4u << 20, 3, &roof));
        fprintf(stderr, "copy roofline (4 MiB): shader %.2f GB/s, vkCmdCopyBuffer %.2f GB/s\n",
                roof.shader_copy_gbps, roof.transfer_copy_gbps);
        TU_CHECK(roof.bytes == (4u << 20));
        TU_CHECK(isfinite(roof.shader_copy_gbps) && roof.shader_copy_gbps > 0);
        TU_CHECK(isfinite(roof.transfer_copy_gbps) && roof.transfer_copy_gbps > 0);
        TU_CHECK_RESULT(sinew_debug_measure_copy(g, 0, 3, &roof), SINEW_ERROR_INVALID_ARGUMENT);
        uint64_t too_big = (uint64_t)sinew_gpu_properties(g)->limits.maxStorageBufferRange + 16;
        TU_CHECK_RESULT(sinew_debug_measure_copy(g, too_big, 3, &roof), SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK(roof.read_path == SINEW_READ_STORAGE || roof.read_path == SINEW_READ_AUTO);
        /* The reported roofline: the kernel's read path (texel on CPU devices), beyond the LLC. */
        int cpu = sinew_gpu_info(g)->type == VK_PHYSICAL_DEVICE_TYPE_CPU;
        TU_CHECK_OK(sinew_debug_roofline_plan(g, &roof));
        fprintf(stderr, "roofline plan: %llu MiB (LLC %llu MiB), %s reads\n", (unsigned long long)(roof.bytes >> 20),
                (unsigned long long)(roof.llc_bytes >> 20), roof.read_path == SINEW_READ_TEXEL ? "texel" : "storage");
        TU_CHECK(roof.read_path == (cpu ? SINEW_READ_TEXEL : SINEW_READ_STORAGE));
        check_roofline_plan(g, &roof);
        if (cpu) check_fake_llc(g);
        TU_CHECK_OK(sinew_debug_measure_copy_path(g, 4u << 20, 3, SINEW_READ_TEXEL, &roof));
        TU_CHECK(roof.read_path == SINEW_READ_TEXEL && roof.bytes == (4u << 20));
        TU_CHECK(isfinite(roof.shader_copy_gbps) && roof.shader_copy_gbps > 0);
        TU_CHECK_RESULT(sinew_debug_measure_copy_path(g, 4u << 20, 3, SINEW_READ_AUTO, &roof),
                        SINEW_ERROR_INVALID_ARGUMENT);
#ifndef __SANITIZE_ADDRESS__ /* the full-size copy under ASan + validation exceeds the suite's 4 GB RSS cap */
        TU_CHECK_OK(sinew_debug_measure_roofline(g, 1, &roof));
        fprintf(stderr, "roofline: %llu MiB, shader %.2f GB/s\n", (unsigned long long)(roof.bytes >> 20),
                roof.shader_copy_gbps);
        TU_CHECK(roof.read_path == (cpu ? SINEW_READ_TEXEL : SINEW_READ_STORAGE) && roof.bytes >= (64u << 20));
        TU_CHECK(isfinite(roof.shader_copy_gbps) && roof.shader_copy_gbps > 0);
#endif
        TU_CHECK_RESULT(sinew_debug_measure_roofline(g, 1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(sinew_debug_validation_message_count(g) == 0);
        sinew_gpu_destroy(g);
    }
    unsetenv("SINEW_DEVICE");
    TU_CHECK_RESULT(sinew_gpu_create(NULL, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
}

/* Rigid transform as LBS palette rows (3 vec4) and in double for the expectation. */
typedef struct rigid { double r[3][3]; double t[3]; } rigid;

static rigid random_rigid(tu_rng *rng)
{
    rigid x;
    sinew_mat3 m = sinew_quat_to_mat3(tu_random_quat(rng));
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) x.r[r][c] = m.m[c][r];
    for (int r = 0; r < 3; r++) x.t[r] = tu_uniform(rng, -1, 1);
    return x;
}

/* The host's own Vulkan objects, created through its own volk. */
typedef struct host_vk {
    VkInstance inst;
    VkDebugUtilsMessengerEXT msgr;
    VkPhysicalDevice pd;
    uint32_t fam;
    VkDevice dev;
    VkQueue queue;
    uint32_t api;       /* the instance's apiVersion */
    int timeline;       /* timelineSemaphore enabled (Vulkan 1.2 device) */
} host_vk;

/* Instance with validation and the test's own messenger, the first device,
 * a compute queue. 0 when the instance cannot be created. */
static int create_host_device(host_vk *h, uint32_t api)
{
    TU_CHECK(volkInitialize() == VK_SUCCESS);
    VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    app.apiVersion = api;
    h->api = api;
    h->timeline = 0;
    const char *layers[] = { "VK_LAYER_KHRONOS_validation" };
    const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &app;
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = layers;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = exts;
    h->inst = VK_NULL_HANDLE;
    VkResult vr = vkCreateInstance(&ici, NULL, &h->inst);
    TU_CHECK_MSG(vr == VK_SUCCESS, "vkCreateInstance %d", (int)vr);
    if (vr != VK_SUCCESS) return 0;
    volkLoadInstance(h->inst);
    VkDebugUtilsMessengerCreateInfoEXT mci = { VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT };
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mci.pfnUserCallback = test_debug_cb;
    h->msgr = VK_NULL_HANDLE;
    TU_CHECK(vkCreateDebugUtilsMessengerEXT(h->inst, &mci, NULL, &h->msgr) == VK_SUCCESS);

    uint32_t npd = 1;
    h->pd = VK_NULL_HANDLE;
    vr = vkEnumeratePhysicalDevices(h->inst, &npd, &h->pd);
    TU_CHECK(npd >= 1 && h->pd != VK_NULL_HANDLE);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nq, NULL);
    VkQueueFamilyProperties qf[16];
    if (nq > 16) nq = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(h->pd, &nq, qf);
    h->fam = UINT32_MAX;
    for (uint32_t i = 0; i < nq && h->fam == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) h->fam = i;
    TU_CHECK(h->fam != UINT32_MAX);
    float prio = 1;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = h->fam;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    /* Vulkan 1.2 hosts: timeline semaphores on, when the device has them. */
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(h->pd, &pp);
    VkPhysicalDeviceTimelineSemaphoreFeatures tsf = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES };
    if (api >= VK_API_VERSION_1_2 && pp.apiVersion >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
        f2.pNext = &tsf;
        vkGetPhysicalDeviceFeatures2(h->pd, &f2);
        tsf.pNext = NULL;
        h->timeline = tsf.timelineSemaphore == VK_TRUE;
        if (h->timeline) dci.pNext = &tsf;
    }
    h->dev = VK_NULL_HANDLE;
    TU_CHECK(vkCreateDevice(h->pd, &dci, NULL, &h->dev) == VK_SUCCESS);
    volkLoadDevice(h->dev);
    vkGetDeviceQueue(h->dev, h->fam, 0, &h->queue);
    return 1;
}

/* The host's objects for sinew_gpu_create_external, with its debug utils. */
static sinew_gpu_external_desc host_external_desc(const host_vk *h)
{
    sinew_gpu_external_desc ed = { 0 };
    ed.get_instance_proc_addr = vkGetInstanceProcAddr;
    ed.instance = h->inst;
    ed.physical_device = h->pd;
    ed.device = h->dev;
    ed.queue = h->queue;
    ed.queue_family = h->fam;
    ed.api_version = h->api;
    ed.debug_utils_enabled = 1;
    return ed;
}

/* Sinew destroyed none of the host's objects: they are still usable. */
static void destroy_host_device(host_vk *h)
{
    TU_CHECK(vkDeviceWaitIdle(h->dev) == VK_SUCCESS);
    vkDestroyDevice(h->dev, NULL);
    vkDestroyDebugUtilsMessengerEXT(h->inst, h->msgr, NULL);
    vkDestroyInstance(h->inst, NULL);
    TU_CHECK_MSG(test_messages == 0, "%u messages on the test's own messenger", test_messages);
}

/* sinew_gpu_create_external rejects a desc without a device or with a queue
 * family the device does not have. */
static void test_external_desc_errors(const sinew_gpu_external_desc *ed)
{
    sinew_gpu *gpu = NULL;
    sinew_gpu_external_desc bad = *ed;
    bad.device = VK_NULL_HANDLE;
    TU_CHECK_RESULT(sinew_gpu_create_external(&bad, &gpu, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    bad = *ed;
    bad.queue_family = 1000;
    TU_CHECK_RESULT(sinew_gpu_create_external(&bad, &gpu, NULL), SINEW_ERROR_INVALID_ARGUMENT);
}

/* A small two-joint LBS mesh: random positions and normals, two weights per
 * vertex; p0, n0 (decoded) and w1 (weight of joint 1) for the expectation. */
enum { NV = 1000, NJ = 2 };
static sinew_vertex ext_v[NV];
static double ext_p0[NV][3], ext_n0[NV][3], ext_w1[NV];

static void make_two_joint_mesh(tu_rng *rng)
{
    for (int i = 0; i < NV; i++) {
        sinew_vec3 n = tu_random_unit(rng);
        for (int k = 0; k < 3; k++) {
            ext_p0[i][k] = (float)tu_uniform(rng, -1, 1);
            ext_v[i].position[k] = (float)ext_p0[i][k];
        }
        ext_v[i].normal_oct = sinew_oct_encode(n);
        sinew_vec3 nd = sinew_oct_decode(ext_v[i].normal_oct);
        ext_n0[i][0] = nd.x, ext_n0[i][1] = nd.y, ext_n0[i][2] = nd.z;
        uint16_t q = (uint16_t)tu_range(rng, 65536);
        int major = q >= 32768 ? 0 : 1;
        uint16_t qa = q >= 32768 ? q : (uint16_t)(65535 - q);
        ext_v[i].joints[0] = (uint16_t)major;
        ext_v[i].joints[1] = (uint16_t)(1 - major);
        ext_v[i].joints[2] = ext_v[i].joints[3] = (uint16_t)major;
        ext_v[i].weights[0] = qa;
        ext_v[i].weights[1] = (uint16_t)(65535 - qa);
        ext_v[i].weights[2] = ext_v[i].weights[3] = 0;
        ext_w1[i] = (major == 1 ? qa : 65535 - qa) / 65535.0;
    }
}

/* Max position and normal errors of the skinned output against LBS of the two
 * rigid transforms in double: blended 3x4 applied, normal by cofactor. */
static void lbs_errors(const float *pos, const float *nrm, const rigid x[NJ], double *perr, double *nerr)
{
    *perr = 0, *nerr = 0;
    for (int i = 0; i < NV; i++) {
        double a[3][4];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) a[r][c] = (1 - ext_w1[i]) * x[0].r[r][c] + ext_w1[i] * x[1].r[r][c];
            a[r][3] = (1 - ext_w1[i]) * x[0].t[r] + ext_w1[i] * x[1].t[r];
        }
        double e[3], col[3][3], cn[3] = { 0, 0, 0 };
        for (int r = 0; r < 3; r++) e[r] = a[r][0] * ext_p0[i][0] + a[r][1] * ext_p0[i][1] + a[r][2] * ext_p0[i][2] + a[r][3];
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) col[c][r] = a[r][c];
        for (int c = 0; c < 3; c++) {
            const double *u = col[(c + 1) % 3], *w = col[(c + 2) % 3];
            double cr[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0] };
            for (int r = 0; r < 3; r++) cn[r] += cr[r] * ext_n0[i][c];
        }
        double l = sqrt(cn[0] * cn[0] + cn[1] * cn[1] + cn[2] * cn[2]);
        for (int r = 0; r < 3; r++) {
            double dp = fabs(pos[3 * i + r] - e[r]);
            double dn = fabs(nrm[3 * i + r] - cn[r] / l);
            if (!(dp <= *perr)) *perr = isnan(dp) ? INFINITY : dp;
            if (!(dn <= *nerr)) *nerr = isnan(dn) ? INFINITY : dn;
        }
    }
}

/* One frame recorded into the host's command buffer, submitted with the
 * host's fence: palette rows at a different offset per frame, output against
 * the double expectation. */
static void record_external_frame(sinew_skinner *sk, const host_vk *h, VkCommandBuffer cmd, VkFence fence,
                                  const rigid x[NJ], int frame)
{
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NV, 0x7fc00000u));
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    TU_CHECK(fr.palette != NULL && fr.palette_capacity_vec4 == 64);
    uint32_t off = 4u * (uint32_t)frame; /* a different palette offset per frame */
    for (int j = 0; j < NJ; j++)
        for (int r = 0; r < 3; r++) {
            float *row = fr.palette + 4 * (off + 3 * j + r);
            for (int c = 0; c < 3; c++) row[c] = (float)x[j].r[r][c];
            row[3] = (float)x[j].t[r];
        }
    sinew_instance in = { { 0 }, SINEW_METHOD_LBS, 0, off, 0 };
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkResetCommandBuffer(cmd, 0);
    vkBeginCommandBuffer(cmd, &bi);
    TU_CHECK_OK(sinew_skinner_record(sk, cmd));
    vkEndCommandBuffer(cmd);
    VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    vkResetFences(h->dev, 1, &fence);
    TU_CHECK(vkQueueSubmit(h->queue, 1, &si, fence) == VK_SUCCESS);
    TU_CHECK_OK(sinew_skinner_end_frame(sk, fence));
    TU_CHECK(vkWaitForFences(h->dev, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);
    double ms = -1;
    TU_CHECK_OK(sinew_skinner_gpu_time(sk, &ms));
    TU_CHECK(ms >= 0 && isfinite(ms));

    static float pos[NV * 3], nrm[NV * 3];
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, nrm));
    double perr, nerr;
    lbs_errors(pos, nrm, x, &perr, &nerr);
    fprintf(stderr, "external frame %d: max position error %.3g, normal error %.3g (gpu %.3f ms)\n", frame,
            perr, nerr, ms);
    TU_CHECK(perr <= 2e-5 * 4.0); /* extent of the mesh: 2 units, transforms add 2 */
    TU_CHECK(nerr <= 1e-4);
}

/* A small two-joint LBS skin recorded into the host's own command buffer,
 * three frames; validation clean. */
static void test_external_skin_frames(sinew_gpu *gpu, const host_vk *h, tu_rng *rng)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_output_vertices = NV;
    sd.max_instances = 4;
    sd.max_meshes = 2;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    make_two_joint_mesh(rng);
    sinew_skinner_mesh_desc md = { ext_v, NV, NJ, NULL };
    sinew_mesh_id mesh = { 99 };
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    TU_CHECK(mesh.value == 0);
    rigid x[NJ];
    for (int j = 0; j < NJ; j++) x[j] = random_rigid(rng);

    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.queueFamilyIndex = h->fam;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    VkCommandPool pool;
    TU_CHECK(vkCreateCommandPool(h->dev, &pci, NULL, &pool) == VK_SUCCESS);
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    TU_CHECK(vkAllocateCommandBuffers(h->dev, &ai, &cmd) == VK_SUCCESS);
    VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    VkFence fence;
    TU_CHECK(vkCreateFence(h->dev, &fci, NULL, &fence) == VK_SUCCESS);

    for (int frame = 0; frame < 3; frame++) record_external_frame(sk, h, cmd, fence, x, frame);

    sinew_skinner_destroy(sk); /* waits on our fence: destroy it afterwards */
    vkDestroyFence(h->dev, fence, NULL);
    vkDestroyCommandPool(h->dev, pool, NULL);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
}

/* Sinew on the host's instance, device and queue: desc errors, the handles
 * given back, validation seen through the host's debug utils, skinning in
 * the host's command buffer; the host's objects survive sinew_gpu_destroy. */
static void check_external(tu_rng *rng)
{
    host_vk h;
    if (!create_host_device(&h, VK_API_VERSION_1_1)) return;
    sinew_gpu_external_desc ed = host_external_desc(&h);
    test_external_desc_errors(&ed);
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create_external(&ed, &gpu, NULL));
    if (gpu) {
        TU_CHECK(sinew_gpu_device(gpu) == h.dev && sinew_gpu_queue(gpu) == h.queue && sinew_gpu_instance(gpu) == h.inst);
        TU_CHECK(sinew_gpu_physical_device(gpu) == h.pd && sinew_gpu_queue_family(gpu) == h.fam);
        TU_CHECK(sinew_debug_validation_enabled(gpu) == 1);
        test_external_skin_frames(gpu, &h, rng);
        sinew_gpu_destroy(gpu);
    }
    destroy_host_device(&h);
}

/* Memory of the host's own buffer: device-local or host-visible. */
static VkDeviceMemory host_buffer(const host_vk *h, VkDeviceSize size, VkBufferUsageFlags usage,
                                  VkMemoryPropertyFlags want, VkBuffer *buf)
{
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = usage;
    TU_CHECK(vkCreateBuffer(h->dev, &bci, NULL, buf) == VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(h->dev, *buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(h->pd, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) type = i;
    TU_CHECK(type != UINT32_MAX);
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    TU_CHECK(vkAllocateMemory(h->dev, &mai, NULL, &mem) == VK_SUCCESS);
    TU_CHECK(vkBindBufferMemory(h->dev, *buf, mem, 0) == VK_SUCCESS);
    return mem;
}

/* The host's command pool (flags) and n primary command buffers from it. */
static VkCommandPool host_commands(const host_vk *h, VkCommandPoolCreateFlags flags, uint32_t n, VkCommandBuffer *cmd)
{
    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.queueFamilyIndex = h->fam;
    pci.flags = flags;
    VkCommandPool pool = VK_NULL_HANDLE;
    TU_CHECK(vkCreateCommandPool(h->dev, &pci, NULL, &pool) == VK_SUCCESS);
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = n;
    TU_CHECK(vkAllocateCommandBuffers(h->dev, &ai, cmd) == VK_SUCCESS);
    return pool;
}

/* The host's own final barrier (skinning writes -> its transfer) and a copy of
 * bytes from out_buf at base into rb_buf at dst. */
static void host_barrier_and_copy(VkCommandBuffer cmd, VkBuffer out_buf, VkDeviceSize base, VkDeviceSize bytes,
                                  VkBuffer rb_buf, VkDeviceSize dst)
{
    VkBufferMemoryBarrier bb = { VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
    bb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    bb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    bb.srcQueueFamilyIndex = bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    bb.buffer = out_buf;
    bb.offset = base;
    bb.size = bytes;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 1, &bb,
                         0, NULL);
    VkBufferCopy c = { base, dst, bytes };
    vkCmdCopyBuffer(cmd, out_buf, rb_buf, 1, &c);
}

/* The host owns the output: Sinew skins into a range of the host's VkBuffer
 * (at an offset), records no final barrier (host_final_barrier), and the host
 * records its own barrier and a copy out of that range in the same command
 * buffer. The host signals a timeline semaphore from its own submit, gives
 * end_frame no fence, and waits on the semaphore for the value of the frame
 * that last used a ring slot before begin_frame reuses it (the documented
 * path for timeline hosts). Four frames in flight two at a time, each checked
 * against the float64 expectation; output poisoned first; validation clean. */
static void check_host_output(tu_rng *rng)
{
    host_vk h;
    if (!create_host_device(&h, VK_API_VERSION_1_2)) return;
    if (!h.timeline) {
        fprintf(stderr, "host output: the device has no timeline semaphores; skipped\n");
        destroy_host_device(&h);
        return;
    }
    sinew_gpu_external_desc ed = host_external_desc(&h);
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create_external(&ed, &gpu, NULL));
    if (!gpu) {
        destroy_host_device(&h);
        return;
    }
    enum { FRAMES = 4, IN_FLIGHT = 2 };
    const VkDeviceSize base = 1024, out_bytes = (VkDeviceSize)NV * 24u;
    VkBuffer out_buf, rb_buf;
    VkDeviceMemory out_mem = host_buffer(&h, base + out_bytes + 512,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                             VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out_buf);
    VkDeviceMemory rb_mem = host_buffer(&h, FRAMES * out_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                        &rb_buf);
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_output_vertices = NV;
    sd.max_instances = 1;
    sd.max_meshes = 1;
    sd.max_palette_vec4 = 64;
    sd.frames_in_flight = IN_FLIGHT;
    sd.output_buffer.buffer = out_buf;
    sd.output_buffer.offset = base;
    sd.output_buffer.size = out_bytes;
    sd.host_final_barrier = true;
    sinew_skinner *sk = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, &e));
    if (!sk) fprintf(stderr, "skinner: %s\n", e.message);
    make_two_joint_mesh(rng);
    sinew_skinner_mesh_desc md = { ext_v, NV, NJ, NULL };
    sinew_mesh_id mesh;
    if (sk) TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    sinew_output_binding ob;
    sinew_skinner_output_binding(sk, &ob);
    TU_CHECK(ob.buffer == out_buf && ob.offset == base && ob.stride == 24);
    TU_CHECK(sinew_skinner_frames_in_flight(sk) == IN_FLIGHT);

    VkSemaphoreTypeCreateInfo stci = { VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO };
    stci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
    sci.pNext = &stci;
    VkSemaphore timeline;
    TU_CHECK(vkCreateSemaphore(h.dev, &sci, NULL, &timeline) == VK_SUCCESS);
    VkCommandBuffer cmd[FRAMES];
    VkCommandPool pool = host_commands(&h, 0, FRAMES, cmd);

    rigid x[FRAMES][NJ];
    for (int f = 0; sk && f < FRAMES; f++) {
        for (int j = 0; j < NJ; j++) x[f][j] = random_rigid(rng);
        /* The slot this frame takes was last used by frame f - IN_FLIGHT: wait for its value. */
        if (f >= IN_FLIGHT) {
            uint64_t v = (uint64_t)(f - IN_FLIGHT + 1);
            VkSemaphoreWaitInfo wi = { VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO };
            wi.semaphoreCount = 1;
            wi.pSemaphores = &timeline;
            wi.pValues = &v;
            TU_CHECK(vkWaitSemaphores(h.dev, &wi, UINT64_MAX) == VK_SUCCESS);
        }
        if (f == 0) TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NV, 0x7fc00000u));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        TU_CHECK(fr.slot == (uint32_t)(f % IN_FLIGHT) && fr.serial == (uint64_t)f);
        for (int j = 0; j < NJ; j++)
            for (int r = 0; r < 3; r++) {
                float *row = fr.palette + 4 * (3 * j + r);
                for (int c = 0; c < 3; c++) row[c] = (float)x[f][j].r[r][c];
                row[3] = (float)x[f][j].t[r];
            }
        sinew_instance in = { mesh, SINEW_METHOD_LBS, 0, 0, 0 };
        TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vkBeginCommandBuffer(cmd[f], &bi);
        TU_CHECK_OK(sinew_skinner_record(sk, cmd[f]));
        /* The host's own final barrier: the skinning writes -> its copy. */
        host_barrier_and_copy(cmd[f], out_buf, base, out_bytes, rb_buf, (VkDeviceSize)f * out_bytes);
        vkEndCommandBuffer(cmd[f]);
        uint64_t signal = (uint64_t)f + 1;
        VkTimelineSemaphoreSubmitInfo tsi = { VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO };
        tsi.signalSemaphoreValueCount = 1;
        tsi.pSignalSemaphoreValues = &signal;
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.pNext = &tsi;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd[f];
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &timeline;
        sinew_gpu_lock_queue(gpu);
        TU_CHECK(vkQueueSubmit(h.queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS);
        sinew_gpu_unlock_queue(gpu);
        TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE)); /* the host waits by itself */
    }
    uint64_t last = FRAMES;
    VkSemaphoreWaitInfo wi = { VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO };
    wi.semaphoreCount = 1;
    wi.pSemaphores = &timeline;
    wi.pValues = &last;
    TU_CHECK(vkWaitSemaphores(h.dev, &wi, UINT64_MAX) == VK_SUCCESS);
    float *rb = NULL;
    TU_CHECK(vkMapMemory(h.dev, rb_mem, 0, VK_WHOLE_SIZE, 0, (void **)&rb) == VK_SUCCESS);
    for (int f = 0; sk && rb && f < FRAMES; f++) {
        static float pos[NV * 3], nrm[NV * 3];
        for (int i = 0; i < NV; i++)
            for (int k = 0; k < 3; k++) {
                pos[3 * i + k] = rb[(size_t)f * NV * 6 + 6 * i + k];
                nrm[3 * i + k] = rb[(size_t)f * NV * 6 + 6 * i + 3 + k];
            }
        double perr, nerr;
        lbs_errors(pos, nrm, x[f], &perr, &nerr);
        fprintf(stderr, "host output frame %d: max position error %.3g, normal error %.3g\n", f, perr, nerr);
        TU_CHECK(perr <= 2e-5 * 4.0);
        TU_CHECK(nerr <= 1e-4);
    }
    if (rb) vkUnmapMemory(h.dev, rb_mem);
    /* Sinew's read-back reads the host's range too (the last frame). */
    static float pos[NV * 3], nrm[NV * 3];
    if (sk) TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, nrm));
    double perr, nerr;
    lbs_errors(pos, nrm, x[FRAMES - 1], &perr, &nerr);
    TU_CHECK(perr <= 2e-5 * 4.0 && nerr <= 1e-4);
    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    /* The host's buffer outlives the skinner and is the host's to free. */
    vkDestroyCommandPool(h.dev, pool, NULL);
    vkDestroySemaphore(h.dev, timeline, NULL);
    vkDestroyBuffer(h.dev, out_buf, NULL);
    vkFreeMemory(h.dev, out_mem, NULL);
    vkDestroyBuffer(h.dev, rb_buf, NULL);
    vkFreeMemory(h.dev, rb_mem, NULL);
    destroy_host_device(&h);
}

#ifdef SINEW_TEST_HAVE_ASSET
#include <sinew/asset.h>
#include <sinew/crowd.h>

/* What an engine does with a glTF character (Done-means of the 1.0 API): a
 * crowd of simple_skin.gltf (assimp-testmodels) playing its clip, LBS and DQS,
 * on the host's own device, skinned into a VkBuffer the host created (at an
 * offset, with vertex-buffer usage), ended by the host's own barrier and copy
 * in its own command buffer and fence, three frames two in flight. Output
 * poisoned first; every character's range is checked against the float64
 * reference of its pose each frame (tolerance 1e-5 of the model's size). */
static void check_host_crowd_gltf(void)
{
    const char *path = "/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf";
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "host crowd: %s missing (package assimp-testmodels); skipped\n", path);
        return;
    }
    host_vk h;
    if (!create_host_device(&h, VK_API_VERSION_1_1)) return;
    sinew_gpu_external_desc ed = host_external_desc(&h);
    sinew_gpu *gpu = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_gpu_create_external(&ed, &gpu, &e));
    sinew_asset_desc ad = { 0 };
    ad.path = path;
    sinew_asset *a = NULL;
    TU_CHECK_OK(sinew_asset_load(&ad, &a, &e));
    sinew_rest_mesh *rm = NULL;
    if (a) TU_CHECK_OK(sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 4, &rm, &e));
    if (!gpu || !rm || sinew_asset_clip_count(a) == 0) {
        TU_CHECK(!"host crowd: setup failed");
        sinew_rest_mesh_destroy(rm);
        sinew_asset_destroy(a);
        sinew_gpu_destroy(gpu);
        destroy_host_device(&h);
        return;
    }
    enum { NCH = 5, FRAMES = 3, IN_FLIGHT = 2 };
    const sinew_skeleton *skel = sinew_asset_skeleton(a);
    const sinew_clip *clip = sinew_asset_clip(a, 0);
    const uint32_t nv = sinew_rest_mesh_vertex_count(rm), nj = sinew_rest_mesh_joint_count(rm);
    const VkDeviceSize base = 768, out_bytes = (VkDeviceSize)NCH * nv * 24u;
    VkBuffer out_buf, rb_buf;
    VkDeviceMemory out_mem = host_buffer(&h, base + out_bytes,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out_buf);
    VkDeviceMemory rb_mem = host_buffer(&h, FRAMES * out_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                        &rb_buf);
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = nv;
    sd.max_output_vertices = NCH * nv;
    sd.max_instances = NCH;
    sd.max_meshes = 1;
    sd.max_palette_vec4 = NCH * nj * 5;
    sd.frames_in_flight = IN_FLIGHT;
    sd.output_buffer.buffer = out_buf;
    sd.output_buffer.offset = base;
    sd.output_buffer.size = out_bytes;
    sd.host_final_barrier = true;
    sinew_skinner *sk = NULL;
    sinew_mesh_id mesh = { 0 };
    sinew_crowd *crowd = NULL;
    sinew_model_id model = { 0 };
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, &e));
    if (sk) TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, rm, &mesh, &e));
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = NCH;
    cd.max_joints = nj;
    if (sk) TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, &e));
    const sinew_rest_mesh *rms[1] = { rm };
    sinew_crowd_model_desc cm = { 0 };
    cm.skeleton = skel;
    cm.mesh_count = 1;
    cm.meshes = &mesh;
    cm.rest_meshes = rms;
    if (crowd) TU_CHECK_OK(sinew_crowd_add_model(crowd, &cm, &model, &e));
    sinew_crowd_character ch[NCH];
    sinew_mat4 roots[NCH];
    memset(ch, 0, sizeof ch);
    const double size = sinew_asset_size(a);
    for (int i = 0; i < NCH; i++) {
        roots[i] = sinew_mat4_from_rigid(sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), 0.3 * i),
                                         sinew_v3(1.5 * size * i, 0, 0));
        ch[i].model = model;
        ch[i].method = i % 2 ? SINEW_METHOD_DQS : SINEW_METHOD_LBS;
        ch[i].root = &roots[i];
        ch[i].clip = clip;
    }
    VkCommandBuffer cmd[IN_FLIGHT];
    VkCommandPool pool = host_commands(&h, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, IN_FLIGHT, cmd);
    VkFence fence[IN_FLIGHT];
    VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
    fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
    for (int f = 0; f < IN_FLIGHT; f++) TU_CHECK(vkCreateFence(h.dev, &fci, NULL, &fence[f]) == VK_SUCCESS);
    double times[FRAMES][NCH];
    uint32_t first[FRAMES][NCH], count[FRAMES][NCH];
    int ran = 0;
    if (crowd) TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NCH * nv, 0x7fc00000u));
    for (int f = 0; crowd && f < FRAMES; f++) {
        int k = f % IN_FLIGHT;
        TU_CHECK(vkWaitForFences(h.dev, 1, &fence[k], VK_TRUE, UINT64_MAX) == VK_SUCCESS);
        for (int i = 0; i < NCH; i++) ch[i].time = times[f][i] = 0.37 * i + 0.21 * f;
        if (sinew_crowd_prepare(crowd, ch, NCH, NULL, &e) != SINEW_OK) {
            TU_CHECK_MSG(0, "prepare: %s", e.message);
            break;
        }
        for (int i = 0; i < NCH; i++)
            TU_CHECK_OK(sinew_crowd_character_output(crowd, (uint32_t)i, 0, &first[f][i], &count[f][i]));
        VkCommandBuffer c = cmd[k];
        vkResetCommandBuffer(c, 0);
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vkBeginCommandBuffer(c, &bi);
        TU_CHECK_OK(sinew_skinner_record(sk, c));
        /* the host's own final barrier: skinning writes -> its copy (its vertex input would go here too) */
        host_barrier_and_copy(c, out_buf, base, out_bytes, rb_buf, (VkDeviceSize)f * out_bytes);
        vkEndCommandBuffer(c);
        TU_CHECK(vkResetFences(h.dev, 1, &fence[k]) == VK_SUCCESS);
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.commandBufferCount = 1;
        si.pCommandBuffers = &c;
        sinew_gpu_lock_queue(gpu);
        TU_CHECK(vkQueueSubmit(h.queue, 1, &si, fence[k]) == VK_SUCCESS);
        sinew_gpu_unlock_queue(gpu);
        TU_CHECK_OK(sinew_skinner_end_frame(sk, fence[k]));
        ran++;
    }
    TU_CHECK(vkDeviceWaitIdle(h.dev) == VK_SUCCESS);
    TU_CHECK(ran == FRAMES);
    const float *rb = NULL;
    TU_CHECK(vkMapMemory(h.dev, rb_mem, 0, VK_WHOLE_SIZE, 0, (void **)&rb) == VK_SUCCESS);
    sinew_transform *local = malloc(sizeof *local * nj);
    sinew_palette_joint *pal = malloc(sizeof *pal * nj);
    sinew_mat4 *scratch = malloc(sizeof *scratch * sinew_palette_scratch_count(nj));
    double *ref = malloc(sizeof *ref * 3 * nv);
    double worst = 0;
    for (int f = 0; rb && f < ran; f++)
        for (int i = 0; i < NCH; i++) {
            TU_CHECK(count[f][i] == nv);
            TU_CHECK_OK(sinew_clip_sample(clip, skel, times[f][i], SINEW_WRAP_LOOP, local));
            TU_CHECK_OK(sinew_palette_build(skel, ch[i].method, local, &roots[i], scratch, pal));
            TU_CHECK_OK(sinew_reference_skin(nv, sinew_rest_mesh_vertices(rm), NULL, pal, nj, ch[i].method, 0, ref, NULL));
            for (uint32_t v = 0; v < nv; v++)
                for (int c = 0; c < 3; c++) {
                    double d = fabs((double)rb[(size_t)f * NCH * nv * 6 + 6 * ((size_t)first[f][i] + v) + c] - ref[3 * v + c]);
                    if (!(d <= worst)) worst = d == d ? d : INFINITY;
                }
        }
    fprintf(stderr, "host crowd (%s, %u vertices, %u joints, %d characters x %d frames): max |gpu - ref| %.3g (size %.3g)\n",
            path, nv, nj, NCH, ran, worst, size);
    TU_CHECK(worst <= 1e-5 * size);
    if (rb) vkUnmapMemory(h.dev, rb_mem);
    free(local);
    free(pal);
    free(scratch);
    free(ref);
    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    sinew_rest_mesh_destroy(rm);
    sinew_asset_destroy(a);
    for (int f = 0; f < IN_FLIGHT; f++) vkDestroyFence(h.dev, fence[f], NULL);
    vkDestroyCommandPool(h.dev, pool, NULL);
    vkDestroyBuffer(h.dev, out_buf, NULL);
    vkFreeMemory(h.dev, out_mem, NULL);
    vkDestroyBuffer(h.dev, rb_buf, NULL);
    vkFreeMemory(h.dev, rb_mem, NULL);
    destroy_host_device(&h);
}
#endif

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5eed0c0e7e57ull);
    check_selection();
    check_external(&rng);
    check_host_output(&rng);
#ifdef SINEW_TEST_HAVE_ASSET
    check_host_crowd_gltf();
#endif
    return tu_finish("test_gpu_context");
}
