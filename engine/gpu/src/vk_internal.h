/* Private Vulkan plumbing shared by the gpu and render layers: the sinew_gpu
 * object (per-object instance and device function tables, no globals),
 * buffers, one-shot submissions and result mapping. Nothing here is exported. */
#ifndef SINEW_VK_INTERNAL_H
#define SINEW_VK_INTERNAL_H

#include <sinew/gpu.h>
#include <pthread.h>
#include "alloc_internal.h"

/* Device-level functions Sinew uses, loaded per device through
 * vkGetDeviceProcAddr (snw_vk_load_device_table). Add a name here to use it. */
#define SNW_VK_DEVICE_FUNCTIONS(X) \
    X(vkAllocateCommandBuffers) \
    X(vkAllocateDescriptorSets) \
    X(vkAllocateMemory) \
    X(vkBeginCommandBuffer) \
    X(vkBindBufferMemory) \
    X(vkBindImageMemory) \
    X(vkCmdBeginRenderPass) \
    X(vkCmdBindDescriptorSets) \
    X(vkCmdBindIndexBuffer) \
    X(vkCmdBindPipeline) \
    X(vkCmdBindVertexBuffers) \
    X(vkCmdCopyBuffer) \
    X(vkCmdCopyImageToBuffer) \
    X(vkCmdDispatch) \
    X(vkCmdDraw) \
    X(vkCmdDrawIndexed) \
    X(vkCmdEndRenderPass) \
    X(vkCmdFillBuffer) \
    X(vkCmdPipelineBarrier) \
    X(vkCmdPushConstants) \
    X(vkCmdResetQueryPool) \
    X(vkCmdSetScissor) \
    X(vkCmdSetViewport) \
    X(vkCmdWriteTimestamp) \
    X(vkCreateBuffer) \
    X(vkCreateBufferView) \
    X(vkCreateCommandPool) \
    X(vkCreateComputePipelines) \
    X(vkCreateDescriptorPool) \
    X(vkCreateDescriptorSetLayout) \
    X(vkCreateFence) \
    X(vkCreateFramebuffer) \
    X(vkCreateGraphicsPipelines) \
    X(vkCreateImage) \
    X(vkCreateImageView) \
    X(vkCreatePipelineLayout) \
    X(vkCreateQueryPool) \
    X(vkCreateRenderPass) \
    X(vkCreateShaderModule) \
    X(vkDestroyBuffer) \
    X(vkDestroyBufferView) \
    X(vkDestroyCommandPool) \
    X(vkDestroyDescriptorPool) \
    X(vkDestroyDescriptorSetLayout) \
    X(vkDestroyDevice) \
    X(vkDestroyFence) \
    X(vkDestroyFramebuffer) \
    X(vkDestroyImage) \
    X(vkDestroyImageView) \
    X(vkDestroyPipeline) \
    X(vkDestroyPipelineLayout) \
    X(vkDestroyQueryPool) \
    X(vkDestroyRenderPass) \
    X(vkDestroyShaderModule) \
    X(vkDeviceWaitIdle) \
    X(vkEndCommandBuffer) \
    X(vkFreeCommandBuffers) \
    X(vkFreeMemory) \
    X(vkGetBufferMemoryRequirements) \
    X(vkGetDeviceQueue) \
    X(vkGetFenceStatus) \
    X(vkGetImageMemoryRequirements) \
    X(vkGetQueryPoolResults) \
    X(vkInvalidateMappedMemoryRanges) \
    X(vkMapMemory) \
    X(vkQueueSubmit) \
    X(vkQueueWaitIdle) \
    X(vkResetCommandBuffer) \
    X(vkResetFences) \
    X(vkUnmapMemory) \
    X(vkUpdateDescriptorSets) \
    X(vkWaitForFences)

typedef struct snw_vk_device_table {
#define SNW_VK_MEMBER(name) PFN_##name name;
    SNW_VK_DEVICE_FUNCTIONS(SNW_VK_MEMBER)
#undef SNW_VK_MEMBER
} snw_vk_device_table;

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
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
} sinew_vki;

struct sinew_gpu {
    sinew_allocator alloc;              /* resolved (snw_allocator_resolve) */
    sinew_device_memory_callbacks memory_callbacks; /* the desc's, called around vkAllocate/FreeMemory */
    VkAllocationCallbacks vk_alloc;     /* built from alloc (snw_vk_allocator_init); pUserData = &alloc */
    int external;
    void *loader;                       /* dlopen handle of the Vulkan loader, or NULL */
    PFN_vkGetInstanceProcAddr gipa;
    sinew_vki vki;
    snw_vk_device_table vk;             /* device-level functions of this device */
    pthread_mutex_t queue_lock;         /* around vkQueueSubmit/WaitIdle and the one-shot pool */
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
    /* SINEW_PIPELINE_STATISTICS=1 at creation of an own device that has
     * VK_KHR_pipeline_executable_properties: compute pipelines keep the driver's
     * statistics (sinew_debug_pipeline_statistics); else 0 and NULL */
    int capture_stats;
    PFN_vkGetPipelineExecutablePropertiesKHR exec_properties;
    PFN_vkGetPipelineExecutableStatisticsKHR exec_statistics;
};

/* A buffer with its own memory. */
typedef struct snw_vk_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;                       /* persistently mapped when host visible was required */
    VkDeviceSize alloc_size;            /* of memory (for the device-memory callbacks) */
    uint32_t memory_type;
} snw_vk_buffer;

sinew_result snw_vk_result(VkResult r);

/* Fills gpu->vk_alloc from gpu->alloc: every Vulkan host allocation of the
 * objects Sinew owns goes through the caller's sinew_allocator. Each block
 * carries a small header (its size and the allocator's own pointer) before the
 * returned pointer, so reallocation knows the old size; the requested
 * alignment is kept. */
void snw_vk_allocator_init(sinew_gpu *gpu);
/* pAllocator for objects Sinew creates and destroys (never for the caller's
 * external instance/device). */
#define SNW_VKA(gpu) (&(gpu)->vk_alloc)
void *snw_gpu_alloc(const sinew_gpu *gpu, size_t size);
void snw_gpu_free(const sinew_gpu *gpu, void *p);
void snw_gpu_log(sinew_gpu *gpu, int severity, const char *fmt, ...);

/* Creates a buffer; memory must have `required` flags, `preferred` flags are
 * tried first. host_map: map it persistently. */
sinew_result snw_vk_buffer_create(sinew_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                    int host_map, snw_vk_buffer *out);
void snw_vk_buffer_destroy(sinew_gpu *gpu, snw_vk_buffer *b);

/* One-shot command buffer on the gpu's queue: begin, then end + submit + wait.
 * The gpu's queue lock guards the one-shot pool: begin takes it (and keeps it
 * on success, for recording into the pool's command buffer), end submits under
 * it, releases it while waiting, and takes it again to free the buffer. Between
 * begin and end the caller only records commands (no other queue-lock call). */
sinew_result snw_vk_oneshot_begin(sinew_gpu *gpu, VkCommandBuffer *cmd);
sinew_result snw_vk_oneshot_end(sinew_gpu *gpu, VkCommandBuffer cmd);

/* vkQueueSubmit / vkQueueWaitIdle on the gpu's queue under its queue lock. */
VkResult snw_vk_queue_submit(sinew_gpu *gpu, uint32_t count, const VkSubmitInfo *submits, VkFence fence);
VkResult snw_vk_queue_wait_idle(sinew_gpu *gpu);

/* Copies host data into a buffer through a staging buffer (waits). */
sinew_result snw_vk_upload(sinew_gpu *gpu, VkBuffer dst, VkDeviceSize offset, const void *data,
                             VkDeviceSize size);

/* Shader modules: create with snw_vk_shader, destroy with snw_vk_shader_destroy
 * (both pass the user's allocation callbacks, SNW_VKA). */
#define SNW_VK_SHADER_ALLOC(gpu) SNW_VKA(gpu)
sinew_result snw_vk_shader(sinew_gpu *gpu, const uint32_t *code, size_t bytes, VkShaderModule *out);
void snw_vk_shader_destroy(sinew_gpu *gpu, VkShaderModule module);

/* Compute pipelines (skinner, morph pass, copy roofline). vka: the allocation
 * callbacks their objects are created with (SNW_VKA(gpu), or NULL). */
#define SNW_VK_MAX_BINDINGS 32u
#define SNW_VK_MAX_SETS 8u
/* Set layout 0 with binding i of types[i] (count <= SNW_VK_MAX_BINDINGS, one
 * descriptor each, compute stage) and a pipeline layout with it and push
 * constants [0, push_bytes). */
sinew_result snw_vk_compute_layout(sinew_gpu *gpu, const VkAllocationCallbacks *vka, const VkDescriptorType *types,
                                   uint32_t count, uint32_t push_bytes, VkDescriptorSetLayout *dsl,
                                   VkPipelineLayout *layout);
/* The compute pipeline of module's "main" (spec may be NULL); VK_NULL_HANDLE on failure. */
sinew_result snw_vk_compute_pipeline(sinew_gpu *gpu, const VkAllocationCallbacks *vka, VkShaderModule module,
                                     VkPipelineLayout layout, const VkSpecializationInfo *spec, VkPipeline *out);
/* A descriptor pool of the given sizes for count (<= SNW_VK_MAX_SETS) sets of
 * layout dsl, and those sets. */
sinew_result snw_vk_descriptor_sets(sinew_gpu *gpu, const VkAllocationCallbacks *vka, VkDescriptorSetLayout dsl,
                                    uint32_t count, const VkDescriptorPoolSize *sizes, uint32_t size_count,
                                    VkDescriptorPool *pool, VkDescriptorSet *sets);
/* Writes binding i (< count <= SNW_VK_MAX_BINDINGS) of set: a uniform texel buffer
 * views[i] where types[i] is one, else the buffer range buffers[i]. */
void snw_vk_write_set(sinew_gpu *gpu, VkDescriptorSet set, uint32_t count, const VkDescriptorType *types,
                      const VkDescriptorBufferInfo *buffers, const VkBufferView *views);

/* Crowds made on a skinner (crowd.c): create attaches, destroy detaches;
 * sinew_skinner_destroy refuses (IN_USE) while any is attached. Atomic. */
struct sinew_skinner;
void snw_skinner_attach(struct sinew_skinner *sk);
void snw_skinner_detach(struct sinew_skinner *sk);

/* Morph pass hooks (skinner.c, used by morph.c). The prepass is recorded by
 * sinew_skinner_record (both the caller's and the own-queue path) after its
 * first barrier and start timestamp (so sinew_skinner_gpu_time includes it),
 * before its dispatches, with the ring slot being recorded; one per skinner
 * (IN_USE if another is set; fn NULL removes it). */
typedef sinew_result (*snw_skinner_prepass_fn)(void *user, VkCommandBuffer cmd, uint32_t slot);
sinew_result snw_skinner_set_prepass(struct sinew_skinner *sk, snw_skinner_prepass_fn fn, void *user);
/* The skinner a morpher was made on (crowds check theirs). */
struct sinew_morpher;
struct sinew_skinner *snw_morpher_skinner(const struct sinew_morpher *m);
void snw_skinner_rest_buffer(const struct sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size);
typedef struct snw_mesh_layout {
    uint32_t first_slot, vertex_count, joint_count, rest_slots, has_bulge, has_tangents;
    uint32_t compact;   /* SINEW_REST_LAYOUT_COMPACT (the morpher refuses it) */
} snw_mesh_layout;
/* The skinner's tangent rest buffer (uvec2 per rest vertex at SINEW_BULGE_INDEX; a dummy without desc.tangents). */
void snw_skinner_tangent_rest_buffer(const struct sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size);
/* The skinner's bulge rest distances (float per rest vertex at SINEW_BULGE_INDEX). */
void snw_skinner_bulge_buffer(const struct sinew_skinner *sk, VkBuffer *buffer, VkDeviceSize *size);
sinew_result snw_skinner_mesh_layout(const struct sinew_skinner *sk, uint32_t mesh, snw_mesh_layout *out);
/* The ring slot of the frame begun, or outside a frame the slot the next
 * begin_frame will use, after waiting (bounded, like begin_frame) until the
 * GPU is done with it. */
sinew_result snw_skinner_frame_slot(struct sinew_skinner *sk, uint32_t *slot);
uint32_t snw_skinner_frames_in_flight(const struct sinew_skinner *sk);
sinew_gpu *snw_skinner_gpu(const struct sinew_skinner *sk);
/* A new mesh id whose rest vertices and bulge distances start as a GPU copy of
 * base's (uploads and waits); the morph pass rewrites its moved vertices. */
sinew_result snw_skinner_add_copy(struct sinew_skinner *sk, uint32_t base, uint32_t *copy);
/* Users of a mesh (crowd models, morph sets): sinew_skinner_remove_mesh refuses while any. */
void snw_skinner_mesh_ref(struct sinew_skinner *sk, uint32_t mesh, int delta);
/* Frees a morpher's copy (the morpher is going away; the skinner waited for it). */
void snw_skinner_release_copy(struct sinew_skinner *sk, uint32_t mesh);

/* vk_table.c: fills a device table through the given vkGetDeviceProcAddr;
 * VK_ERROR_INITIALIZATION_FAILED if a function is missing. */
VkResult snw_vk_load_device_table(snw_vk_device_table *table, VkDevice device, PFN_vkGetDeviceProcAddr gdpa);

/* The default log callback (stderr). */
void snw_log_default(void *user, int severity, const char *message);

/* Embedded SPIR-V (cmake/embed_spirv.cmake). */
extern const uint32_t snw_spv_skin_comp[];
extern const size_t snw_spv_skin_comp_size;
/* debug layer only (debug.c, debug_skinner.c): */
extern const uint32_t snw_spv_skin_baseline_comp[];
extern const size_t snw_spv_skin_baseline_comp_size;
extern const uint32_t snw_spv_morph_previous_comp[];
extern const size_t snw_spv_morph_previous_comp_size;
extern const uint32_t snw_spv_morph_lean_comp[];
extern const size_t snw_spv_morph_lean_comp_size;
extern const uint32_t snw_spv_copy_comp[];
extern const size_t snw_spv_copy_comp_size;
extern const uint32_t snw_spv_morph_comp[];
extern const size_t snw_spv_morph_comp_size;

#endif
