/* Vulkan plumbing shared by the gpu and render layers (compiled into both,
 * exported by neither): result mapping, host allocation, logging, buffers,
 * one-shot submissions under the gpu's queue lock, uploads, shader modules. */
#define _POSIX_C_SOURCE 200809L
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
    VkResult vr = gpu->vk.vkCreateBuffer(gpu->device, &bci, NULL, &out->buffer);
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
        vr = gpu->vk.vkAllocateMemory(gpu->device, &ai, NULL, &out->memory);
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
    if (b->buffer) gpu->vk.vkDestroyBuffer(gpu->device, b->buffer, NULL);
    if (b->memory) gpu->vk.vkFreeMemory(gpu->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

sinew_result snw_vk_oneshot_begin(sinew_gpu *gpu, VkCommandBuffer *cmd)
{
    VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    ai.commandPool = gpu->oneshot_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkResult vr = gpu->vk.vkAllocateCommandBuffers(gpu->device, &ai, cmd);
    if (vr != VK_SUCCESS) return snw_vk_result(vr);
    VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vr = gpu->vk.vkBeginCommandBuffer(*cmd, &bi);
    if (vr != VK_SUCCESS) {
        gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->oneshot_pool, 1, cmd);
        return snw_vk_result(vr);
    }
    return SINEW_OK;
}

sinew_result snw_vk_oneshot_end(sinew_gpu *gpu, VkCommandBuffer cmd)
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
    return snw_vk_result(gpu->vk.vkCreateShaderModule(gpu->device, &ci, NULL, out));
}
