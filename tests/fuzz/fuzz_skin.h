/* Shared by the fuzz targets: skins an imported asset's bind pose with every
 * method (bulge correction on) through the float64 reference, so a successful
 * import also exercises the palette and skinning code on what it produced. */
#ifndef SINEW_FUZZ_SKIN_H
#define SINEW_FUZZ_SKIN_H

#include <sinew/asset.h>
#include <sinew/palette.h>
#include <sinew/reference.h>

#include <stdlib.h>

static void fuzz_skin_bind_pose(const sinew_asset *a, sinew_transform *pose)
{
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
    sinew_palette_joint *pal = calloc(nj, sizeof *pal);
    double *pos = calloc((size_t)nv * 3, sizeof *pos), *nrm = calloc((size_t)nv * 3, sizeof *nrm);
    float *bulge = calloc(nv, sizeof *bulge);
    if (sinew_asset_bind_pose(a, pose) == SINEW_OK &&
        sinew_bulge_rest_distances(sk, nv, sinew_asset_vertices(a), bulge) == SINEW_OK) {
        for (int m = 0; m < (int)SINEW_METHOD_COUNT; m++) {
            if (sinew_palette_build(sk, (sinew_method)m, pose, NULL, scratch, pal) != SINEW_OK) continue;
            sinew_reference_skin(nv, sinew_asset_vertices(a), bulge, pal, nj, (sinew_method)m,
                                 SINEW_SKIN_BULGE_CORRECTION, pos, nrm);
        }
    }
    free(scratch); free(pal); free(pos); free(nrm); free(bulge);
}

#endif
