/* Sinew Vulkan context: its own instance and device (through volk), or the
 * caller's. The only public header besides skinner.h that uses Vulkan types. */
#ifndef SINEW_GPU_H
#define SINEW_GPU_H

#include "core.h"
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_gpu sinew_gpu;

/* Receives validation and driver messages. severity: 0 info, 1 warning, 2 error. */
typedef void (*sinew_log_fn)(void *user, int severity, const char *message);

/* Own-device creation. Device choice, in order: desc.device, then the
 * SINEW_DEVICE environment variable, then the best by type (discrete GPU,
 * integrated, virtual, CPU). A selection string is a decimal index into the
 * enumeration order, or a case-insensitive substring of the device name. */
typedef struct sinew_gpu_desc {
    const char *device;        /* NULL = SINEW_DEVICE or automatic */
    int enable_validation;     /* 1 = VK_LAYER_KHRONOS_validation; also on when SINEW_VALIDATION=1 */
    sinew_log_fn log;          /* NULL = messages to stderr */
    void *log_user;
    const sinew_allocator *allocator;
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
    const sinew_allocator *allocator;
    /* 1 = the instance was created with VK_EXT_debug_utils: Sinew then adds its
     * own messenger, counting validation warnings and errors like sinew_gpu_create. */
    int debug_utils_enabled;
} sinew_gpu_external_desc;

/* One enumerated device. */
typedef struct sinew_gpu_device_info {
    char name[256];
    VkPhysicalDeviceType type;
    uint32_t api_version;
    uint32_t vendor_id, device_id;
    int usable;                /* 1 when it has Vulkan >= 1.1 and a compute queue */
} sinew_gpu_device_info;

/* Creates an instance and a device with one compute queue. */
sinew_result sinew_gpu_create(const sinew_gpu_desc *desc, sinew_gpu **out);
/* Wraps the caller's instance/device/queue. */
sinew_result sinew_gpu_create_external(const sinew_gpu_external_desc *desc, sinew_gpu **out);
/* Waits for the device to be idle (own device only) and frees everything Sinew created. */
void sinew_gpu_destroy(sinew_gpu *gpu);

/* Lists the Vulkan devices (a temporary instance); *count receives the total. */
sinew_result sinew_gpu_list_devices(sinew_gpu_device_info *out, uint32_t max, uint32_t *count);

/* Applies the selection rules of sinew_gpu_desc.device to a device list: a
 * non-empty selection picks the usable device it names (index or name
 * substring), otherwise the best usable one by type. NO_DEVICE if none. */
sinew_result sinew_gpu_pick_device(const sinew_gpu_device_info *devices, uint32_t count,
                                   const char *selection, uint32_t *index);

/* Name, type and limits of the device in use. */
const sinew_gpu_device_info *sinew_gpu_info(const sinew_gpu *gpu);
/* Properties (limits included) of the device in use. */
const VkPhysicalDeviceProperties *sinew_gpu_properties(const sinew_gpu *gpu);
/* Largest single allocation the device allows (maxMemoryAllocationSize). */
uint64_t sinew_gpu_max_allocation(const sinew_gpu *gpu);
/* Number of validation warnings and errors received so far (tests require 0). */
uint32_t sinew_gpu_validation_message_count(const sinew_gpu *gpu);
/* 1 when a debug messenger counts validation messages (layer found and enabled). */
int sinew_gpu_validation_enabled(const sinew_gpu *gpu);
VkInstance sinew_gpu_instance(const sinew_gpu *gpu);
VkPhysicalDevice sinew_gpu_physical_device(const sinew_gpu *gpu);
VkDevice sinew_gpu_device(const sinew_gpu *gpu);
VkQueue sinew_gpu_queue(const sinew_gpu *gpu);
uint32_t sinew_gpu_queue_family(const sinew_gpu *gpu);

/* A memory roofline measured on this device: a compute-shader copy (storage
 * buffer in, storage buffer out) and vkCmdCopyBuffer of `bytes` bytes, timed by
 * timestamp queries, median of `repeats` runs. GB/s count bytes read + written. */
typedef struct sinew_copy_roofline {
    double shader_copy_gbps;
    double transfer_copy_gbps;
    uint64_t bytes;
} sinew_copy_roofline;
sinew_result sinew_gpu_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats,
                                    sinew_copy_roofline *out);

#ifdef __cplusplus
}
#endif
#endif
