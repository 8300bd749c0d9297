/* Private Vulkan plumbing shared by gpu.c and skinner.c: the sinew_gpu
 * object (per-object instance and device function tables, no globals),
 * buffers, one-shot submissions and result mapping. */
#ifndef SINEW_VK_INTERNAL_H
#define SINEW_VK_INTERNAL_H

#include <sinew/gpu.h>
#include <volk.h>

/* Instance-level functions Sinew uses, loaded per sinew_gpu. */
typedef struct sinew_vki {
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_vkGetPhysicalDeviceFormatProperties GetPhysicalDeviceFormatProperties;
    PFN_vkCreateDevice CreateDevice;
    PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
} sinew_vki;

struct sinew_gpu {
    sinew_allocator alloc;
    int external;
    void *loader;                       /* dlopen handle of the Vulkan loader, or NULL */
    PFN_vkGetInstanceProcAddr gipa;
    sinew_vki vki;
    struct VolkDeviceTable vk;          /* device-level functions of this device */
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    VkQueueFlags queue_flags;
    uint32_t timestamp_valid_bits;
    VkDebugUtilsMessengerEXT messenger;
    int validation;                     /* 1 when the validation layer is active */
    sinew_log_fn log;
    void *log_user;
    uint32_t message_count;             /* warnings + errors (atomic) */
    sinew_gpu_device_info info;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem;
    VkDeviceSize max_allocation;        /* maxMemoryAllocationSize */
    VkCommandPool oneshot_pool;         /* for uploads, fills and readbacks */
};

/* A buffer with its own memory. */
typedef struct sinew_vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;                       /* persistently mapped when host visible was required */
} sinew_vk_buffer;

sinew_result sinew_vk_result(VkResult r);
void *sinew_gpu_alloc(const sinew_gpu *gpu, size_t size);
void sinew_gpu_free(const sinew_gpu *gpu, void *p);
void sinew_gpu_log(sinew_gpu *gpu, int severity, const char *fmt, ...);

/* Creates a buffer; memory must have `required` flags, `preferred` flags are
 * tried first. host_map: map it persistently. */
sinew_result sinew_vk_buffer_create(sinew_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                    int host_map, sinew_vk_buffer *out);
void sinew_vk_buffer_destroy(sinew_gpu *gpu, sinew_vk_buffer *b);

/* One-shot command buffer on the gpu's queue: begin, then end + submit + wait. */
sinew_result sinew_vk_oneshot_begin(sinew_gpu *gpu, VkCommandBuffer *cmd);
sinew_result sinew_vk_oneshot_end(sinew_gpu *gpu, VkCommandBuffer cmd);

/* Copies host data into a buffer through a staging buffer (waits). */
sinew_result sinew_vk_upload(sinew_gpu *gpu, VkBuffer dst, VkDeviceSize offset, const void *data,
                             VkDeviceSize size);

sinew_result sinew_vk_shader(sinew_gpu *gpu, const uint32_t *code, size_t bytes, VkShaderModule *out);

/* volk_impl.c: fills a device table through the given vkGetDeviceProcAddr. */
void sinew_volk_load_device_table(struct VolkDeviceTable *table, VkDevice device,
                                  PFN_vkGetDeviceProcAddr gdpa);

/* Embedded SPIR-V (cmake/embed_spirv.cmake). */
extern const uint32_t sinew_spv_skin_comp[];
extern const size_t sinew_spv_skin_comp_size;
extern const uint32_t sinew_spv_copy_comp[];
extern const size_t sinew_spv_copy_comp_size;

#endif
