/* Sinew Vulkan context: its own instance and device, or the caller's.
 * Vulkan functions are loaded per sinew_gpu from vkGetInstanceProcAddr (the
 * caller's, or the loader's through dlopen): Sinew defines no vk* symbol and
 * links no Vulkan loader, so it sits beside a host's own volk or libvulkan.
 *
 * Threads and the queue: the sinew_gpu's queue is shared by every skinner and
 * renderer made on it. Sinew takes the gpu's queue lock around each of its own
 * vkQueueSubmit / vkQueueWaitIdle calls and around its one-shot command pool,
 * so several skinners (or a skinner and a renderer) on one gpu may be used from
 * different threads. A caller that submits to the same VkQueue itself (the
 * queue given to sinew_gpu_create_external) must hold the lock too:
 * sinew_gpu_lock_queue / sinew_gpu_unlock_queue.
 *
 * Calls that submit to the queue and wait: sinew_gpu_destroy (device idle,
 * own device only). Creation and the other calls here do not submit. */
#ifndef SINEW_GPU_H
#define SINEW_GPU_H

#include <sinew/core.h>
/* Types only: Sinew calls no vk* prototype (it compiles with VK_NO_PROTOTYPES),
 * and leaves the host free to use the loader's prototypes or its own volk. */
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_gpu sinew_gpu;

/* What Sinew needs of a Vulkan instance and device:
 * - Vulkan 1.1 or later: the instance's VkApplicationInfo.apiVersion and the
 *   physical device's apiVersion (sinew_gpu_create_external refuses less,
 *   SINEW_ERROR_NO_DEVICE, item DEVICE, naming the version it found);
 * - a queue family with VK_QUEUE_COMPUTE_BIT (graphics is not needed);
 * - no device extension and no feature beyond Vulkan 1.1 core; optional:
 *   timestamp queries on the queue (GPU times; reported as unavailable without),
 *   VK_EXT_debug_utils on the instance (validation message counts);
 * - format features that Vulkan 1.1 guarantees: uniform texel buffers of
 *   R32G32B32A32_UINT/SFLOAT, R32G32_UINT, R32_SFLOAT. */
#define SINEW_VULKAN_API_VERSION VK_API_VERSION_1_1

/* Receives validation and driver messages. severity: 0 info, 1 warning, 2 error. */
typedef void (*sinew_log_fn)(void *user, int severity, const char *message);

/* Device-memory callbacks (as VMA's VmaDeviceMemoryCallbacks): allocate is
 * called after each vkAllocateMemory Sinew's gpu and skinner layers make, free
 * before each vkFreeMemory, on the thread making the call. NULL: not called. */
typedef struct sinew_device_memory_callbacks {
    void (*allocate)(void *user, uint32_t memory_type, VkDeviceMemory memory, VkDeviceSize size);
    void (*free)(void *user, uint32_t memory_type, VkDeviceMemory memory, VkDeviceSize size);
    void *user;
} sinew_device_memory_callbacks;

/* Own-device creation. Device choice, in order: desc.device, then the
 * SINEW_DEVICE environment variable, then the best by type (discrete GPU,
 * integrated, virtual, CPU). A selection string is a decimal index into the
 * enumeration order, or a case-insensitive substring of the device name. */
typedef struct sinew_gpu_desc {
    const char *device;        /* NULL = SINEW_DEVICE or automatic */
    bool enable_validation;    /* VK_LAYER_KHRONOS_validation; also on when SINEW_VALIDATION=1 */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* NULL = dlopen the Vulkan loader */
    sinew_log_fn log;          /* NULL = messages to stderr */
    void *log_user;
    /* Sinew's own memory and, through VkAllocationCallbacks built from it, the
     * Vulkan host allocations of everything Sinew creates (instance and device
     * included). NULL or {NULL, NULL} = default; one NULL callback = INVALID_ARGUMENT.
     * Must be thread-safe: drivers allocate from any thread using the gpu. */
    const sinew_allocator *allocator;
    sinew_device_memory_callbacks device_memory; /* optional */
} sinew_gpu_desc;

/* The caller's Vulkan objects; Sinew creates no instance or device and
 * destroys none of them. The queue must support compute; the device must have
 * been created with Vulkan 1.1 or later. */
typedef struct sinew_gpu_external_desc {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* NULL = from the loader */
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    sinew_log_fn log;
    void *log_user;
    const sinew_allocator *allocator; /* as in sinew_gpu_desc; the caller's objects are not affected */
    /* true = the instance was created with VK_EXT_debug_utils: Sinew then adds its
     * own messenger, counting validation warnings and errors like sinew_gpu_create. */
    bool debug_utils_enabled;
    /* The VkApplicationInfo.apiVersion the instance was created with (Vulkan does
     * not report it): at least SINEW_VULKAN_API_VERSION. 0 = INVALID_ARGUMENT. */
    uint32_t api_version;
    sinew_device_memory_callbacks device_memory; /* optional */
} sinew_gpu_external_desc;

/* One enumerated device. */
typedef struct sinew_gpu_device_info {
    char name[256];
    VkPhysicalDeviceType type;
    uint32_t api_version;
    uint32_t vendor_id, device_id;
    bool usable;               /* Vulkan >= 1.1 and a compute queue */
} sinew_gpu_device_info;

/* Creates an instance and a device with one compute queue. SINEW_ERROR_VULKAN
 * (nothing left behind) when vkGetDeviceProcAddr lacks a function Sinew uses. */
SINEW_API sinew_result sinew_gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out, sinew_error_info *err);
/* Wraps the caller's instance/device/queue (SINEW_ERROR_VULKAN as above). */
SINEW_API sinew_result sinew_gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out,
                                                 sinew_error_info *err);
/* Waits for the device to be idle (own device only) and frees everything Sinew created. */
SINEW_API void sinew_gpu_destroy(sinew_gpu *gpu);

/* Lists the Vulkan devices (a temporary instance); *count receives the total. */
SINEW_API sinew_result sinew_gpu_list_devices(sinew_gpu_device_info *out, uint32_t max, uint32_t *count);

/* Applies the selection rules of sinew_gpu_desc.device to a device list: a
 * non-empty selection picks the usable device it names (index or name
 * substring), otherwise the best usable one by type. NO_DEVICE if none. */
SINEW_API sinew_result sinew_gpu_pick_device(const sinew_gpu_device_info *devices, uint32_t count,
                                   const char *selection, uint32_t *index);

/* Name, type and limits of the device in use. */
SINEW_API const sinew_gpu_device_info *sinew_gpu_info(const sinew_gpu *gpu);
/* Properties (limits included) of the device in use. */
SINEW_API const VkPhysicalDeviceProperties *sinew_gpu_properties(const sinew_gpu *gpu);
/* Largest single allocation the device allows (maxMemoryAllocationSize). */
SINEW_API uint64_t sinew_gpu_max_allocation(const sinew_gpu *gpu);
SINEW_API VkInstance sinew_gpu_instance(const sinew_gpu *gpu);
SINEW_API VkPhysicalDevice sinew_gpu_physical_device(const sinew_gpu *gpu);
SINEW_API VkDevice sinew_gpu_device(const sinew_gpu *gpu);
SINEW_API VkQueue sinew_gpu_queue(const sinew_gpu *gpu);
SINEW_API uint32_t sinew_gpu_queue_family(const sinew_gpu *gpu);
/* The queue lock Sinew holds around its own submissions (see the top of this
 * header): a host submitting to the same VkQueue from another thread takes it too. */
SINEW_API void sinew_gpu_lock_queue(sinew_gpu *gpu);
SINEW_API void sinew_gpu_unlock_queue(sinew_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
