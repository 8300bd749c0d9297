/* Accessors of sinew_asset shared by both importers that derive data from what
 * the asset keeps (README, "Assets"): the 8-influence packing of the unpruned
 * influence lists. */
#include "asset_internal.h"

sinew_result sinew_asset_vertices8(const sinew_asset *a, sinew_vertex8 *out, sinew_pack_stats *stats)
{
    if (!a || !out || !a->infl_offsets) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t nv = a->vertex_count;
    float *fp = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    float *fn = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    if (!fp || !fn) {
        snw_free(&a->alloc, fp); snw_free(&a->alloc, fn);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* the same float32 positions and normals the 4-influence vertices were packed from */
    for (size_t k = 0; k < (size_t)nv * 3; k++) { fp[k] = (float)a->rest_pos[k]; fn[k] = (float)a->rest_nrm[k]; }
    sinew_influences inf = { 0 };
    inf.offsets = a->infl_offsets; inf.joints = a->infl_joints; inf.weights = a->infl_weights;
    sinew_result r = sinew_pack_vertices8(nv, fp, fn, &inf, sinew_skeleton_joint_count(a->skel), out, stats, NULL);
    snw_free(&a->alloc, fp); snw_free(&a->alloc, fn);
    return r;
}
