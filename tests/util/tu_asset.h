/* Asset loading in tests: sinew_asset_load / _from_scene with the error detail's
 * message copied into a caller's buffer (msg may be NULL). */
#ifndef SINEW_TU_ASSET_H
#define SINEW_TU_ASSET_H

#include <sinew/asset.h>
#include <stdio.h>

static inline sinew_result tu_asset_load(const sinew_asset_desc *d, sinew_asset **out, char *msg, size_t size)
{
    sinew_error_info e;
    sinew_result r = sinew_asset_load(d, out, &e);
    if (msg && size) snprintf(msg, size, "%s", e.message);
    return r;
}

static inline sinew_result tu_asset_from_scene(const struct aiScene *scene, const sinew_asset_desc *d,
                                               sinew_asset **out, char *msg, size_t size)
{
    sinew_error_info e;
    sinew_result r = sinew_asset_from_scene(scene, d, out, &e);
    if (msg && size) snprintf(msg, size, "%s", e.message);
    return r;
}

#endif
