/* Loads the device-level Vulkan functions Sinew uses into a per-device table
 * (no global function pointers: Sinew defines no vk* symbol). */
#include <sinew/linalg.h>
#include "vk_internal.h"

VkResult snw_vk_load_device_table(snw_vk_device_table *table, VkDevice device, PFN_vkGetDeviceProcAddr gdpa)
{
    int missing = 0;
#define SNW_VK_LOAD(name)                                                     \
    table->name = (PFN_##name)gdpa(device, #name);                            \
    if (!table->name) missing = 1;
    SNW_VK_DEVICE_FUNCTIONS(SNW_VK_LOAD)
#undef SNW_VK_LOAD
    return missing ? VK_ERROR_INITIALIZATION_FAILED : VK_SUCCESS;
}
