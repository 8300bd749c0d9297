/* Centers of rotation of a rest mesh (sinew/cor.h): sinew_cor_compute on its
 * packed vertices and triangles, then sinew_rest_mesh_set_centers. */
#include "sinew/cor.h"
#include "alloc_internal.h"
#include "error_internal.h"

#include <string.h>

sinew_result sinew_rest_mesh_compute_centers(sinew_rest_mesh *m, const sinew_rest_mesh_centers_desc *desc,
                                             sinew_error_info *err)
{
    return sinew_rest_mesh_compute_centers_cached(m, desc, NULL, NULL, err);
}

sinew_result sinew_rest_mesh_compute_centers_cached(sinew_rest_mesh *m, const sinew_rest_mesh_centers_desc *desc,
                                                    const char *cache_path, sinew_bake_cache_report *report,
                                                    sinew_error_info *err)
{
    snw_error_clear(err);
    if (report) { report->loaded = report->refused = report->written = false; report->message[0] = 0; }
    if (!m) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "mesh is NULL");
    uint32_t nt = 0;
    const uint32_t *tri = sinew_rest_mesh_triangles(m, &nt);
    if (!tri)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "centers of rotation need the triangles: the rest mesh was created without them");
    sinew_rest_mesh_centers_desc d;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    sinew_allocator a;
    if (snw_allocator_resolve(d.allocator, &a) != SINEW_OK)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.allocator: alloc and free must both be set or both be NULL");
    const uint32_t n = sinew_rest_mesh_vertex_count(m);
    float *c = (float *)snw_alloc(&a, sizeof(float) * 3 * (size_t)n);
    if (!c) return snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "centers: out of host memory");
    sinew_cor_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.vertex_count = n;
    cd.vertices = sinew_rest_mesh_vertices(m);
    cd.vertices8 = sinew_rest_mesh_vertices8(m);
    cd.joint_count = sinew_rest_mesh_joint_count(m);
    cd.triangle_count = nt;
    cd.triangles = tri;
    cd.sigma = d.sigma;
    cd.epsilon = d.epsilon;
    cd.max_depth = d.max_depth;
    cd.pool = d.pool;
    cd.allocator = &a;
    cd.progress = d.progress;
    cd.progress_user = d.progress_user;
    cd.exact = d.exact;
    cd.weight_cells = d.weight_cells;
    sinew_result r = sinew_cor_compute_cached(&cd, cache_path, c, NULL, report, err);
    if (r == SINEW_OK) r = sinew_rest_mesh_set_centers(m, c, err);
    snw_free(&a, c);
    return r;
}
