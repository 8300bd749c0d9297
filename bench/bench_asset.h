/* Model loading shared by sinew-bench-bounds and sinew-bench-lod (they had a copy
 * each): an asset file with its skeleton and one 4-influence rest mesh of all its
 * meshes. Header-only; needs the asset layer (sinew/asset.h). */
#ifndef SINEW_BENCH_ASSET_H
#define SINEW_BENCH_ASSET_H

#include <sinew/asset.h>
#include <sinew/rest_mesh.h>

#include <stdio.h>

/* Loads path into *asset and *rm (destroy both); with need_clip the asset must have
 * a clip. On failure prints why ("not found or not loadable, skipped", the rest mesh
 * error or "no clip") after the path and returns 0 with nothing left to destroy. */
static inline int bench_load_model(const char *path, int need_clip, sinew_asset **asset, sinew_rest_mesh **rm)
{
    sinew_asset_desc d = { 0 };
    d.path = path;
    *asset = NULL;
    *rm = NULL;
    if (sinew_asset_load(&d, asset, NULL) != SINEW_OK) {
        printf("%s: not found or not loadable, skipped\n", path);
        return 0;
    }
    sinew_error_info e;
    if (need_clip && sinew_asset_clip_count(*asset) == 0) {
        printf("%s: no clip\n", path);
    } else if (sinew_asset_rest_mesh(*asset, SINEW_ASSET_ALL_MESHES, 4, rm, &e) != SINEW_OK) {
        printf("%s: %s\n", path, e.message);
    } else {
        return 1;
    }
    sinew_asset_destroy(*asset);
    *asset = NULL;
    return 0;
}

#endif
