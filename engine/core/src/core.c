/* Sinew core: result strings and method names. */
#include <sinew/linalg.h>
#include "sinew/core.h"
#include "alloc_internal.h"

#include <string.h>

const char *sinew_result_string(sinew_result r)
{
    switch (r) {
    case SINEW_OK: return "ok";
    case SINEW_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case SINEW_ERROR_PARENT_OUT_OF_RANGE: return "parent index out of range";
    case SINEW_ERROR_PARENT_ORDER: return "parent listed after its child";
    case SINEW_ERROR_CYCLE: return "parent links form a cycle";
    case SINEW_ERROR_JOINT_INDEX: return "joint index out of range";
    case SINEW_ERROR_INVALID_WEIGHT: return "invalid weight";
    case SINEW_ERROR_NOT_RIGID: return "transform is not rigid (scale, shear or mirror)";
    case SINEW_ERROR_SINGULAR: return "singular matrix";
    case SINEW_ERROR_NON_FINITE: return "NaN or infinity in input";
    case SINEW_ERROR_EMPTY: return "empty input";
    case SINEW_ERROR_LIMIT_EXCEEDED: return "limit exceeded";
    case SINEW_ERROR_CAPACITY: return "capacity exceeded";
    case SINEW_ERROR_OUT_OF_HOST_MEMORY: return "out of host memory";
    case SINEW_ERROR_OUT_OF_DEVICE_MEMORY: return "out of device memory";
    case SINEW_ERROR_DEVICE_LOST: return "device lost";
    case SINEW_ERROR_NO_DEVICE: return "no suitable Vulkan device";
    case SINEW_ERROR_VULKAN: return "Vulkan error";
    case SINEW_ERROR_IO: return "I/O error";
    case SINEW_ERROR_FORMAT: return "malformed or unsupported file";
    case SINEW_ERROR_NOT_FOUND: return "not found";
    case SINEW_ERROR_TIMEOUT: return "timed out";
    case SINEW_ERROR_IN_USE: return "object in use";
    case SINEW_ERROR_CANCELLED: return "cancelled";
    case SINEW_RESULT_COUNT: break;
    }
    return "unknown result";
}

const char *sinew_item_kind_name(sinew_item_kind kind)
{
    static const char *const names[SINEW_ITEM_KIND_COUNT] = {
        "none", "argument", "call order", "capacity", "device", "vertex", "joint", "mesh",
        "instance", "character", "model", "morph target", "morph slot", "clip", "file"
    };
    if ((unsigned)kind >= (unsigned)SINEW_ITEM_KIND_COUNT) return "unknown";
    return names[kind];
}

static const char *const method_names[SINEW_METHOD_COUNT] = {
    "lbs", "dqs", "dqs-scale", "dqs-scale-local", "dqs-scale-mixed", "cor", "cor-scale", "cor-scale-local",
    "cor-scale-mixed"
};

bool sinew_method_uses_centers(sinew_method m)
{
    return m == SINEW_METHOD_COR || m == SINEW_METHOD_COR_SCALE || m == SINEW_METHOD_COR_SCALE_LOCAL ||
           m == SINEW_METHOD_COR_SCALE_MIXED;
}

const char *sinew_method_name(sinew_method m)
{
    if ((unsigned)m >= (unsigned)SINEW_METHOD_COUNT) return "unknown";
    return method_names[m];
}

sinew_result sinew_method_parse(const char *name, sinew_method *out)
{
    if (!name || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < (int)SINEW_METHOD_COUNT; i++) {
        if (strcmp(name, method_names[i]) == 0) {
            *out = (sinew_method)i;
            return SINEW_OK;
        }
    }
    return SINEW_ERROR_NOT_FOUND;
}

sinew_result sinew_allocator_check(const sinew_allocator *allocator)
{
    sinew_allocator resolved;
    return snw_allocator_resolve(allocator, &resolved);
}
