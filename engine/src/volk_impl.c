/* Compiles volk (Debian's /usr/include/volk.c) into the library, and adds a
 * device-table loader that takes the vkGetDeviceProcAddr to use, so each
 * sinew_gpu has its own table without touching volk's global pointers. */
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.c>
#include "vk_internal.h"

typedef struct sinew_volk_ctx {
    PFN_vkGetDeviceProcAddr gdpa;
    VkDevice device;
} sinew_volk_ctx;

static PFN_vkVoidFunction sinew_volk_stub(void *context, const char *name)
{
    const sinew_volk_ctx *c = (const sinew_volk_ctx *)context;
    return c->gdpa(c->device, name);
}

void sinew_volk_load_device_table(struct VolkDeviceTable *table, VkDevice device,
                                  PFN_vkGetDeviceProcAddr gdpa)
{
    sinew_volk_ctx c = { gdpa, device };
    volkGenLoadDeviceTable(table, &c, sinew_volk_stub);
}
