/* Debug and test hooks of sinew/debug.h that live with the context: the
 * memory roofline (compute-shader copy and vkCmdCopyBuffer, timestamps). */
#define _POSIX_C_SOURCE 200809L
#include "vk_internal.h"
#include "sinew_layout.h"
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

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

sinew_result sinew_debug_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats, sinew_copy_roofline *out)
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

    snw_vk_buffer src = { 0 }, dst = { 0 };
    VkShaderModule sm = VK_NULL_HANDLE;
    VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
    VkPipelineLayout pl = VK_NULL_HANDLE;
    VkPipeline pipe = VK_NULL_HANDLE;
    VkDescriptorPool dp = VK_NULL_HANDLE;
    VkQueryPool qp = VK_NULL_HANDLE;
    double *times = NULL;
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    sinew_result r = snw_vk_buffer_create(gpu, bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &src);
    if (r == SINEW_OK) r = snw_vk_buffer_create(gpu, bytes, usage, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &dst);
    if (r == SINEW_OK) r = snw_vk_shader(gpu, snw_spv_copy_comp, snw_spv_copy_comp_size, &sm);
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
    if (r == SINEW_OK) r = snw_vk_result(vr);
    if (r == SINEW_OK) {
        times = (double *)snw_gpu_alloc(gpu, 2 * sizeof(double) * repeats);
        if (!times) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* Warm-up (2 of each, pipelines compile on first use), then alternate the two copies. */
    const uint32_t warm = 2;
    for (uint32_t it = 0; r == SINEW_OK && it < 2 * (warm + repeats); it++) {
        int shader = (it & 1) == 0;
        VkCommandBuffer cmd;
        r = snw_vk_oneshot_begin(gpu, &cmd);
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
        r = snw_vk_oneshot_end(gpu, cmd);
        if (r != SINEW_OK) break;
        uint64_t t[2];
        vr = gpu->vk.vkGetQueryPoolResults(gpu->device, qp, 0, 2, sizeof t, t, sizeof t[0],
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (vr != VK_SUCCESS) {
            r = snw_vk_result(vr);
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
    snw_gpu_free(gpu, times);
    if (qp) gpu->vk.vkDestroyQueryPool(gpu->device, qp, NULL);
    if (dp) gpu->vk.vkDestroyDescriptorPool(gpu->device, dp, NULL);
    if (pipe) gpu->vk.vkDestroyPipeline(gpu->device, pipe, NULL);
    if (pl) gpu->vk.vkDestroyPipelineLayout(gpu->device, pl, NULL);
    if (dsl) gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, dsl, NULL);
    if (sm) gpu->vk.vkDestroyShaderModule(gpu->device, sm, NULL);
    snw_vk_buffer_destroy(gpu, &src);
    snw_vk_buffer_destroy(gpu, &dst);
    return r;
}
