/* Vulkan plumbing shared by the gpu and render layers (compiled into both,
 * exported by neither): result mapping, host allocation, logging, buffers,
 * one-shot submissions under the gpu's queue lock, uploads, shader modules. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/linalg.h>
#include "vk_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sinew_result snw_vk_result(VkResult r)
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

void *snw_gpu_alloc(const sinew_gpu *gpu, size_t size)
{
    return snw_calloc(&gpu->alloc, 1, size);
}

void snw_gpu_free(const sinew_gpu *gpu, void *p)
{
    snw_free(&gpu->alloc, p);
}

/* ---- VkAllocationCallbacks over the sinew_allocator ---- */

/* Stored just before each block handed to Vulkan. */
typedef struct vk_block_header {
    size_t size;                        /* bytes asked for */
    void *base;                         /* what the sinew_allocator returned */
} vk_block_header;

static void *VKAPI_PTR vk_alloc_fn(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
    (void)scope;
    const sinew_allocator *a = (const sinew_allocator *)user;
    /* Drivers may ask for 0 bytes (an empty array) and take NULL for a failure:
     * hand out a distinct block. */
    if (size == 0) size = 1;
    if (align < _Alignof(vk_block_header)) align = _Alignof(vk_block_header);
    if (align & (align - 1)) return NULL;
    /* The header rounded up to the alignment keeps the user pointer aligned. */
    size_t head = (sizeof(vk_block_header) + align - 1) / align * align;
    if (size > SIZE_MAX - head) return NULL;
    char *base = (char *)snw_alloc_aligned(a, head + size, align);
    if (!base) return NULL;
    char *p = base + head;
    vk_block_header h = { size, base };
    memcpy(p - sizeof h, &h, sizeof h);
    return p;
}

static void VKAPI_PTR vk_free_fn(void *user, void *p)
{
    if (!p) return;
    vk_block_header h;
    memcpy(&h, (char *)p - sizeof h, sizeof h);
    snw_free((const sinew_allocator *)user, h.base);
}

static void *VKAPI_PTR vk_realloc_fn(void *user, void *orig, size_t size, size_t align,
                                     VkSystemAllocationScope scope)
{
    if (!orig) return vk_alloc_fn(user, size, align, scope);
    if (size == 0) {
        vk_free_fn(user, orig);
        return NULL;
    }
    vk_block_header h;
    memcpy(&h, (char *)orig - sizeof h, sizeof h);
    void *p = vk_alloc_fn(user, size, align, scope);
    if (!p) return NULL; /* the original block is left as it was */
    memcpy(p, orig, h.size < size ? h.size : size);
    vk_free_fn(user, orig);
    return p;
}

void snw_vk_allocator_init(sinew_gpu *gpu)
{
    memset(&gpu->vk_alloc, 0, sizeof gpu->vk_alloc);
    gpu->vk_alloc.pUserData = &gpu->alloc;
    gpu->vk_alloc.pfnAllocation = vk_alloc_fn;
    gpu->vk_alloc.pfnReallocation = vk_realloc_fn;
    gpu->vk_alloc.pfnFree = vk_free_fn;
}

void snw_log_default(void *user, int severity, const char *message)
{
    (void)user;
    static const char *names[] = { "info", "warning", "error" };
    fprintf(stderr, "sinew vulkan %s: %s\n", names[severity < 0 ? 0 : severity > 2 ? 2 : severity], message);
}

void snw_gpu_log(sinew_gpu *gpu, int severity, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    gpu->log(gpu->log_user, severity, buf);
}

/* ---- buffers and submissions ---- */

static int find_memory_type(const sinew_gpu *gpu, uint32_t bits, VkMemoryPropertyFlags flags)
{
    for (uint32_t i = 0; i < gpu->mem.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (gpu->mem.memoryTypes[i].propertyFlags & flags) == flags) return (int)i;
    return -1;
}

sinew_result snw_vk_buffer_create(sinew_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                    int host_map, snw_vk_buffer *out)
{
    memset(out, 0, sizeof *out);
    if (size == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (size > gpu->max_allocation) return SINEW_ERROR_LIMIT_EXCEEDED;
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult vr = gpu->vk.vkCreateBuffer(gpu->device, &bci, SNW_VKA(gpu), &out->buffer);
    if (vr != VK_SUCCESS) {
        out->buffer = VK_NULL_HANDLE;
        return snw_vk_result(vr);
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
        vr = gpu->vk.vkAllocateMemory(gpu->device, &ai, SNW_VKA(gpu), &out->memory);
        if (vr == VK_SUCCESS) {
            out->memory_type = ai.memoryTypeIndex;
            out->alloc_size = req.size;
            if (gpu->memory_callbacks.allocate)
                gpu->memory_callbacks.allocate(gpu->memory_callbacks.user, out->memory_type, out->memory, req.size);
        }
    }
    if (vr != VK_SUCCESS) {
        out->memory = VK_NULL_HANDLE;
        snw_vk_buffer_destroy(gpu, out);
        return snw_vk_result(vr);
    }
    vr = gpu->vk.vkBindBufferMemory(gpu->device, out->buffer, out->memory, 0);
    if (vr == VK_SUCCESS && host_map) vr = gpu->vk.vkMapMemory(gpu->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (vr != VK_SUCCESS) {
        out->mapped = NULL;
        snw_vk_buffer_destroy(gpu, out);
        return snw_vk_result(vr);
    }
    out->size = size;
    return SINEW_OK;
}

void snw_vk_buffer_destroy(sinew_gpu *gpu, snw_vk_buffer *b)
{
    if (b->mapped) gpu->vk.vkUnmapMemory(gpu->device, b->memory);
    if (b->buffer) gpu->vk.vkDestroyBuffer(gpu->device, b->buffer, SNW_VKA(gpu));
    if (b->memory && gpu->memory_callbacks.free)
        gpu->memory_callbacks.free(gpu->memory_callbacks.user, b->memory_type, b->memory, b->alloc_size);
    if (b->memory) gpu->vk.vkFreeMemory(gpu->device, b->memory, SNW_VKA(gpu));
    memset(b, 0, sizeof *b);
}

VkResult snw_vk_queue_submit(sinew_gpu *gpu, uint32_t count, const VkSubmitInfo *submits, VkFence fence)
{
    pthread_mutex_lock(&gpu->queue_lock);
    VkResult vr = gpu->vk.vkQueueSubmit(gpu->queue, count, submits, fence);
    pthread_mutex_unlock(&gpu->queue_lock);
    return vr;
}

VkResult snw_vk_queue_wait_idle(sinew_gpu *gpu)
{
    pthread_mutex_lock(&gpu->queue_lock);
    VkResult vr = gpu->vk.vkQueueWaitIdle(gpu->queue);
    pthread_mutex_unlock(&gpu->queue_lock);
    return vr;
}

sinew_result snw_vk_oneshot_begin(sinew_gpu *gpu, VkCommandBuffer *cmd)
{
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = gpu->oneshot_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    pthread_mutex_lock(&gpu->queue_lock); /* held until snw_vk_oneshot_end submits */
    VkResult vr = gpu->vk.vkAllocateCommandBuffers(gpu->device, &ai, cmd);
    if (vr != VK_SUCCESS) {
        pthread_mutex_unlock(&gpu->queue_lock);
        return snw_vk_result(vr);
    }
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vr = gpu->vk.vkBeginCommandBuffer(*cmd, &bi);
    if (vr != VK_SUCCESS) {
        gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->oneshot_pool, 1, cmd);
        pthread_mutex_unlock(&gpu->queue_lock);
        return snw_vk_result(vr);
    }
    return SINEW_OK;
}

sinew_result snw_vk_oneshot_end(sinew_gpu *gpu, VkCommandBuffer cmd)
{
    /* Entered with the queue lock held (snw_vk_oneshot_begin). */
    VkResult vr = gpu->vk.vkEndCommandBuffer(cmd);
    VkFence fence = VK_NULL_HANDLE;
    if (vr == VK_SUCCESS) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        vr = gpu->vk.vkCreateFence(gpu->device, &fci, SNW_VKA(gpu), &fence);
    }
    int submitted = 0;
    if (vr == VK_SUCCESS) {
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vr = gpu->vk.vkQueueSubmit(gpu->queue, 1, &si, fence);
        submitted = vr == VK_SUCCESS;
    }
    if (submitted) {
        /* Other threads may submit while this one waits. */
        pthread_mutex_unlock(&gpu->queue_lock);
        vr = gpu->vk.vkWaitForFences(gpu->device, 1, &fence, VK_TRUE, UINT64_MAX);
        pthread_mutex_lock(&gpu->queue_lock);
    }
    if (fence) gpu->vk.vkDestroyFence(gpu->device, fence, SNW_VKA(gpu));
    gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->oneshot_pool, 1, &cmd);
    pthread_mutex_unlock(&gpu->queue_lock);
    return snw_vk_result(vr);
}

sinew_result snw_vk_upload(sinew_gpu *gpu, VkBuffer dst, VkDeviceSize offset, const void *data,
                             VkDeviceSize size)
{
    if (size == 0) return SINEW_OK;
    snw_vk_buffer st;
    sinew_result r = snw_vk_buffer_create(gpu, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                            0, 1, &st);
    if (r != SINEW_OK) return r;
    memcpy(st.mapped, data, (size_t)size);
    VkCommandBuffer cmd;
    r = snw_vk_oneshot_begin(gpu, &cmd);
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
        r = snw_vk_oneshot_end(gpu, cmd);
    }
    snw_vk_buffer_destroy(gpu, &st);
    return r;
}

sinew_result snw_vk_shader(sinew_gpu *gpu, const uint32_t *code, size_t bytes, VkShaderModule *out)
{
    VkShaderModuleCreateInfo ci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO };
    ci.codeSize = bytes;
    ci.pCode = code;
    VkResult vr = gpu->vk.vkCreateShaderModule(gpu->device, &ci, SNW_VK_SHADER_ALLOC(gpu), out);
    if (vr != VK_SUCCESS) *out = VK_NULL_HANDLE;
    return snw_vk_result(vr);
}

void snw_vk_shader_destroy(sinew_gpu *gpu, VkShaderModule module)
{
    if (module) gpu->vk.vkDestroyShaderModule(gpu->device, module, SNW_VK_SHADER_ALLOC(gpu));
}

sinew_result snw_vk_compute_layout(sinew_gpu *gpu, const VkAllocationCallbacks *vka, const VkDescriptorType *types,
                                   uint32_t count, uint32_t push_bytes, VkDescriptorSetLayout *dsl,
                                   VkPipelineLayout *layout)
{
    VkDescriptorSetLayoutBinding b[SNW_VK_MAX_BINDINGS];
    if (count > SNW_VK_MAX_BINDINGS) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(b, 0, sizeof b);
    for (uint32_t i = 0; i < count; i++) {
        b[i].binding = i;
        b[i].descriptorType = types[i];
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dci = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO };
    dci.bindingCount = count;
    dci.pBindings = b;
    VkResult vr = gpu->vk.vkCreateDescriptorSetLayout(gpu->device, &dci, vka, dsl);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes };
    VkPipelineLayoutCreateInfo pci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
    pci.setLayoutCount = 1;
    pci.pSetLayouts = dsl;
    pci.pushConstantRangeCount = 1;
    pci.pPushConstantRanges = &pcr;
    vr = gpu->vk.vkCreatePipelineLayout(gpu->device, &pci, vka, layout);
    return snw_vk_result(vr);
}

sinew_result snw_vk_compute_pipeline(sinew_gpu *gpu, const VkAllocationCallbacks *vka, VkShaderModule module,
                                     VkPipelineLayout layout, const VkSpecializationInfo *spec, VkPipeline *out)
{
    VkComputePipelineCreateInfo ci = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = spec;
    ci.layout = layout;
    if (gpu->capture_stats) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkResult vr = gpu->vk.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &ci, vka, out);
    if (vr != VK_SUCCESS) *out = VK_NULL_HANDLE;
    return snw_vk_result(vr);
}

sinew_result snw_vk_descriptor_sets(sinew_gpu *gpu, const VkAllocationCallbacks *vka, VkDescriptorSetLayout dsl,
                                    uint32_t count, const VkDescriptorPoolSize *sizes, uint32_t size_count,
                                    VkDescriptorPool *pool, VkDescriptorSet *sets)
{
    VkDescriptorSetLayout layouts[SNW_VK_MAX_SETS];
    if (count > SNW_VK_MAX_SETS) return SINEW_ERROR_INVALID_ARGUMENT;
    VkDescriptorPoolCreateInfo pci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
    pci.maxSets = count;
    pci.poolSizeCount = size_count;
    pci.pPoolSizes = sizes;
    VkResult vr = gpu->vk.vkCreateDescriptorPool(gpu->device, &pci, vka, pool);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    for (uint32_t s = 0; s < count; s++) layouts[s] = dsl;
    VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
    ai.descriptorPool = *pool;
    ai.descriptorSetCount = count;
    ai.pSetLayouts = layouts;
    vr = gpu->vk.vkAllocateDescriptorSets(gpu->device, &ai, sets);
    return snw_vk_result(vr);
}

void snw_vk_write_set(sinew_gpu *gpu, VkDescriptorSet set, uint32_t count, const VkDescriptorType *types,
                      const VkDescriptorBufferInfo *buffers, const VkBufferView *views)
{
    VkWriteDescriptorSet w[SNW_VK_MAX_BINDINGS];
    if (count > SNW_VK_MAX_BINDINGS) return;
    memset(w, 0, sizeof w);
    for (uint32_t i = 0; i < count; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstSet = set;
        w[i].dstBinding = i;
        w[i].descriptorCount = 1;
        w[i].descriptorType = types[i];
        if (types[i] == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER)
            w[i].pTexelBufferView = &views[i];
        else
            w[i].pBufferInfo = &buffers[i];
    }
    gpu->vk.vkUpdateDescriptorSets(gpu->device, count, w, 0, NULL);
}
