/* A host that links the Vulkan loader directly (global vk* prototypes from
 * libvulkan.so) and Sinew's static archives in one executable: it creates its
 * own instance, device and queue with the loader's functions, hands them to
 * sinew_gpu_create_external, and moves one vertex by a translated joint.
 * Linking at all shows Sinew defines no vk* symbol of its own; running shows
 * the two function tables coexist. Exit 0 = pass. */
#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/debug.h>
#include <vulkan/vulkan.h> /* with prototypes: this host links libvulkan */

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CHECK(c)                                                              \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "link_libvulkan: %s failed (line %d)\n", #c, __LINE__); \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(void)
{
    VkApplicationInfo app = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &app;
    VkInstance inst;
    CHECK(vkCreateInstance(&ici, NULL, &inst) == VK_SUCCESS);
    uint32_t n = 1;
    VkPhysicalDevice pd;
    VkResult er = vkEnumeratePhysicalDevices(inst, &n, &pd);
    CHECK((er == VK_SUCCESS || er == VK_INCOMPLETE) && n >= 1);
    uint32_t nf = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, NULL);
    VkQueueFamilyProperties qf[16];
    if (nf > 16) nf = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, qf);
    uint32_t family = UINT32_MAX;
    for (uint32_t i = 0; i < nf && family == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
    CHECK(family != UINT32_MAX);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VkDevice dev;
    CHECK(vkCreateDevice(pd, &dci, NULL, &dev) == VK_SUCCESS);
    VkQueue queue;
    vkGetDeviceQueue(dev, family, 0, &queue);

    sinew_gpu_external_desc ed = { 0 };
    ed.get_instance_proc_addr = vkGetInstanceProcAddr;
    ed.instance = inst;
    ed.physical_device = pd;
    ed.device = dev;
    ed.queue = queue;
    ed.queue_family = family;
    ed.api_version = VK_API_VERSION_1_1;
    sinew_gpu *gpu = NULL;
    CHECK(sinew_gpu_create_external(&ed, &gpu, NULL) == SINEW_OK);

    /* One vertex bound to one joint translated by (1, 2, 3). */
    sinew_vertex v = { { 0.5f, 0.0f, 0.0f }, 0, { 0, 0, 0, 0 }, { 65535, 0, 0, 0 } };
    sinew_palette_joint pj;
    memset(&pj, 0, sizeof pj);
    pj.skin = sinew_mat4_identity();
    pj.skin.m[3][0] = 1;
    pj.skin.m[3][1] = 2;
    pj.skin.m[3][2] = 3;
    pj.scale = sinew_mat4_identity();
    pj.rigid = sinew_dq_identity();
    sinew_skinner_desc kd = { 0 };
    kd.max_rest_vertices = 1;
    kd.max_output_vertices = 1;
    kd.max_palette_vec4 = 16;
    kd.max_instances = 1;
    sinew_skinner *sk = NULL;
    CHECK(sinew_skinner_create(gpu, &kd, &sk, NULL) == SINEW_OK);
    sinew_mesh_id mesh;
    sinew_skinner_mesh_desc md = { &v, 1, 1, NULL };
    CHECK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL) == SINEW_OK);
    sinew_frame fr;
    CHECK(sinew_skinner_begin_frame(sk, &fr) == SINEW_OK);
    sinew_palette_pack(SINEW_METHOD_LBS, 0, &pj, 1, fr.palette);
    sinew_instance in = { mesh, SINEW_METHOD_LBS, 0, 0, 0 };
    CHECK(sinew_skinner_set_instances(sk, &in, 1, NULL) == SINEW_OK);
    CHECK(sinew_skinner_submit(sk) == SINEW_OK);
    float p[3];
    CHECK(sinew_skinner_read_output(sk, 0, 1, p, NULL) == SINEW_OK);
    printf("link_libvulkan: (%g %g %g)\n", p[0], p[1], p[2]);
    CHECK(fabsf(p[0] - 1.5f) < 1e-6f && fabsf(p[1] - 2.0f) < 1e-6f && fabsf(p[2] - 3.0f) < 1e-6f);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
