/* Accessors of sinew_asset shared by both importers that derive data from what
 * the asset keeps (README, "Assets"): the 8-influence packing of the unpruned
 * influence lists. */
#include <sinew/linalg.h>
#include "asset_internal.h"
#include "error_internal.h"

#include <string.h>

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

sinew_result sinew_asset_rest_mesh(const sinew_asset *a, uint32_t mesh, uint32_t max_influences, sinew_rest_mesh **out,
                                   sinew_error_info *err)
{
    snw_error_clear(err);
    if (!a || !out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL", !a ? "asset" : "out");
    *out = NULL;
    if (!a->infl_offsets)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "the asset has no influences");
    uint32_t first_v = 0, nv = a->vertex_count, first_i = 0, ni = a->index_count;
    if (mesh != SINEW_ASSET_ALL_MESHES) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, mesh);
        if (!mi)
            return snw_fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MESH, mesh, "mesh %u: the asset has %u meshes", mesh,
                            sinew_asset_mesh_count(a));
        first_v = mi->first_vertex, nv = mi->vertex_count, first_i = mi->first_index, ni = mi->index_count;
    }
    float *fp = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    float *fn = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    uint32_t *tri = (uint32_t *)snw_alloc(&a->alloc, sizeof(uint32_t) * ((size_t)ni ? ni : 1));
    sinew_result r = SINEW_OK;
    if (!fp || !fn || !tri) {
        r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "asset rest mesh: out of host memory");
        goto done;
    }
    /* the same float32 positions and normals the packed vertices were made from */
    for (size_t k = 0; k < (size_t)nv * 3; k++) {
        fp[k] = (float)a->rest_pos[(size_t)first_v * 3 + k];
        fn[k] = (float)a->rest_nrm[(size_t)first_v * 3 + k];
    }
    for (uint32_t k = 0; k < ni; k++) {
        uint32_t g = a->indices[first_i + k];
        if (g < first_v || g - first_v >= nv) {
            r = snw_fail(err, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mesh, "mesh %u: index %u outside its vertices", mesh, g);
            goto done;
        }
        tri[k] = g - first_v;
    }
    sinew_rest_mesh_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = a->skel;
    d.vertex_count = nv;
    d.positions = fp;
    d.normals = fn;
    d.packed_tangents = a->tangents ? a->tangents + first_v : NULL;
    d.influences.offsets = a->infl_offsets + first_v; /* CSR offsets are absolute: a slice needs no rebase */
    d.influences.joints = a->infl_joints;
    d.influences.weights = a->infl_weights;
    d.max_influences = max_influences;
    d.triangles = ni >= 3 ? tri : NULL;
    d.triangle_count = ni / 3;
    d.allocator = &a->alloc;
    r = sinew_rest_mesh_create(&d, out, err);
done:
    snw_free(&a->alloc, fp);
    snw_free(&a->alloc, fn);
    snw_free(&a->alloc, tri);
    return r;
}
