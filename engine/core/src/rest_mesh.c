/* Sinew rest mesh (sinew/rest_mesh.h): the host's strided arrays gathered,
 * packed (4 or 8 influences), with bulge distances, tangents, triangles, joint
 * bounds and, on request, centers of rotation. */
#include <sinew/linalg.h>
#include "sinew/rest_mesh.h"
#include "sinew/bounds.h"
#include "sinew/mesh.h"
#include "alloc_internal.h"
#include "error_internal.h"

#include <math.h>
#include <string.h>

struct sinew_rest_mesh {
    sinew_allocator alloc;
    uint32_t vertex_count, joint_count, influences, triangle_count, neighbor_count;
    sinew_rest_layout layout;
    sinew_vertex *v;           /* 4 influences, or NULL */
    sinew_vertex8 *v8;         /* 8 influences, or NULL */
    float *bulge;
    sinew_tangent *tangents;   /* or NULL */
    uint32_t *triangles;       /* or NULL */
    float *centers;            /* or NULL */
    sinew_joint_bounds *bounds;
    uint16_t *neighbors;
    sinew_pack_stats stats;
};

/* Copies n records of 3 (or 4) floats from a strided array into a packed one. */
static void gather(float *dst, const float *src, uint32_t stride, uint32_t n, uint32_t comps)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t step = stride ? stride : comps * sizeof(float);
    for (uint32_t i = 0; i < n; i++) memcpy(dst + (size_t)comps * i, p + step * i, comps * sizeof(float));
}

/* A pack function's error as a sinew_error_info naming the vertex. */
static sinew_result pack_fail(sinew_error_info *err, sinew_result r, uint32_t bad, const char *what)
{
    if (bad == UINT32_MAX || r == SINEW_ERROR_EMPTY || r == SINEW_ERROR_LIMIT_EXCEEDED ||
        r == SINEW_ERROR_OUT_OF_HOST_MEMORY)
        return snw_fail(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s: %s", what, sinew_result_string(r));
    return snw_fail(err, r, SINEW_ITEM_VERTEX, bad, "%s: vertex %u: %s", what, bad, sinew_result_string(r));
}

void sinew_rest_mesh_destroy(sinew_rest_mesh *m)
{
    if (!m) return;
    sinew_allocator a = m->alloc;
    snw_free(&a, m->v);
    snw_free(&a, m->v8);
    snw_free(&a, m->bulge);
    snw_free(&a, m->tangents);
    snw_free(&a, m->triangles);
    snw_free(&a, m->centers);
    snw_free(&a, m->bounds);
    snw_free(&a, m->neighbors);
    snw_free(&a, m);
}

/* Already packed vertices: finite positions, joints < the skeleton's count, weights summing to 65535. */
static sinew_result check_packed(const sinew_rest_mesh_desc *d, sinew_error_info *err)
{
    const uint32_t J = sinew_skeleton_joint_count(d->skeleton), K = d->packed_vertices8 ? 8u : 4u;
    for (uint32_t i = 0; i < d->vertex_count; i++) {
        const float *p = K == 8u ? d->packed_vertices8[i].position : d->packed_vertices[i].position;
        const uint16_t *jo = K == 8u ? d->packed_vertices8[i].joints : d->packed_vertices[i].joints;
        const uint16_t *w = K == 8u ? d->packed_vertices8[i].weights : d->packed_vertices[i].weights;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
            return snw_fail(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, i, "vertex %u: position is not finite", i);
        uint32_t sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            if (jo[k] >= J)
                return snw_fail(err, SINEW_ERROR_JOINT_INDEX, SINEW_ITEM_VERTEX, i,
                                "vertex %u: influence %u names joint %u, the skeleton has %u", i, k, jo[k], J);
            sum += w[k];
        }
        if (sum != 65535u)
            return snw_fail(err, SINEW_ERROR_INVALID_WEIGHT, SINEW_ITEM_VERTEX, i,
                            "vertex %u: weights sum to %u, not 65535", i, sum);
    }
    return SINEW_OK;
}

static sinew_result check_desc(const sinew_rest_mesh_desc *d, sinew_error_info *err)
{
    if (!d->skeleton)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.skeleton is NULL");
    if (d->vertex_count == 0)
        return snw_fail(err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.vertex_count is 0");
    if (d->packed_vertices && d->packed_vertices8)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.packed_vertices and desc.packed_vertices8 are both set");
    int packed = d->packed_vertices || d->packed_vertices8;
    if (packed && (d->positions || d->normals || d->influences.joints || d->influences.weights))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.packed_vertices%s replaces positions, normals and influences: leave them NULL",
                        d->packed_vertices8 ? "8" : "");
    if (packed) {
        sinew_result r = check_packed(d, err);
        if (r != SINEW_OK) return r;
    } else if (!d->positions) {
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.positions is NULL");
    }
    if ((d->position_stride && d->position_stride < 12) || (d->normal_stride && d->normal_stride < 12) ||
        (d->tangent_stride && d->tangent_stride < 16))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.%s_stride is smaller than one record",
                        d->position_stride && d->position_stride < 12 ? "position"
                        : d->normal_stride && d->normal_stride < 12   ? "normal"
                                                                      : "tangent");
    if (d->tangents && d->packed_tangents)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.tangents and desc.packed_tangents are both set");
    if (d->packed_tangents)
        for (uint32_t i = 0; i < d->vertex_count; i++)
            if (d->packed_tangents[i].sign != 1.0f && d->packed_tangents[i].sign != -1.0f)
                return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_VERTEX, i,
                                "vertex %u: packed tangent sign %g (must be exactly 1 or -1)", i,
                                d->packed_tangents[i].sign);
    if (d->rest_layout != SINEW_REST_LAYOUT_DEFAULT && d->rest_layout != SINEW_REST_LAYOUT_COMPACT)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.rest_layout %d is not a sinew_rest_layout", (int)d->rest_layout);
    if (d->rest_layout == SINEW_REST_LAYOUT_COMPACT && (d->max_influences == 8 || d->packed_vertices8))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "the compact rest layout holds 4 influences per vertex: desc.%s",
                        d->packed_vertices8 ? "packed_vertices8 cannot be compact" : "max_influences must be 0 or 4");
    if (d->rest_layout == SINEW_REST_LAYOUT_COMPACT && sinew_skeleton_joint_count(d->skeleton) > SINEW_COMPACT_MAX_JOINTS)
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "the compact rest layout has 8-bit joint indices: the skeleton has %u joints, at most %u",
                        sinew_skeleton_joint_count(d->skeleton), (unsigned)SINEW_COMPACT_MAX_JOINTS);
    if (d->max_influences != 0 && d->max_influences != 4 && d->max_influences != 8)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_influences %u (0, 4 or 8)", d->max_influences);
    if (!packed && (!d->influences.joints || !d->influences.weights))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.influences.%s is NULL", !d->influences.joints ? "joints" : "weights");
    if (d->triangle_count && !d->triangles)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.triangles is NULL with triangle_count %u", d->triangle_count);
    for (uint64_t t = 0; t < 3ull * d->triangle_count; t++)
        if (d->triangles[t] >= d->vertex_count)
            return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, (uint32_t)(t / 3),
                            "triangle %llu: index %u, the mesh has %u vertices", (unsigned long long)(t / 3),
                            d->triangles[t], d->vertex_count);
    return SINEW_OK;
}

sinew_result sinew_rest_mesh_create(const sinew_rest_mesh_desc *desc, sinew_rest_mesh **out, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!out) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    *out = NULL;
    if (!desc) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc is NULL");
    sinew_result r = check_desc(desc, err);
    if (r != SINEW_OK) return r;
    sinew_allocator a;
    if (snw_allocator_resolve(desc->allocator, &a) != SINEW_OK)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.allocator: alloc and free must both be set or both be NULL");
    const uint32_t n = desc->vertex_count, J = sinew_skeleton_joint_count(desc->skeleton);
    const int packed = desc->packed_vertices || desc->packed_vertices8;
    sinew_rest_mesh *m = (sinew_rest_mesh *)snw_calloc(&a, 1, sizeof *m);
    float *pos = packed ? NULL : (float *)snw_alloc(&a, sizeof(float) * 3 * (size_t)n);
    float *nrm = packed ? NULL : (float *)snw_calloc(&a, 3 * (size_t)n, sizeof(float));
    float *tan4 = desc->tangents ? (float *)snw_alloc(&a, sizeof(float) * 4 * (size_t)n) : NULL;
    if (!m || (!packed && (!pos || !nrm)) || (desc->tangents && !tan4)) {
        r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
        goto fail;
    }
    m->alloc = a;
    m->layout = desc->rest_layout;
    m->vertex_count = n;
    m->joint_count = J;
    if (!packed) gather(pos, desc->positions, desc->position_stride, n, 3);
    if (!packed && desc->normals) gather(nrm, desc->normals, desc->normal_stride, n, 3);
    if (tan4) gather(tan4, desc->tangents, desc->tangent_stride, n, 4);

    /* Packing: 8 slots first unless 4 are forced; back to 4 when no vertex needs more.
     * Already packed vertices are copied as they are. */
    uint32_t bad = UINT32_MAX;
    if (packed) {
        size_t bytes = desc->packed_vertices8 ? sizeof(sinew_vertex8) * (size_t)n : sizeof(sinew_vertex) * (size_t)n;
        void *v = snw_alloc(&a, bytes);
        if (!v) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        memcpy(v, desc->packed_vertices8 ? (const void *)desc->packed_vertices8 : (const void *)desc->packed_vertices, bytes);
        if (desc->packed_vertices8) m->v8 = (sinew_vertex8 *)v;
        else m->v = (sinew_vertex *)v;
        m->influences = desc->packed_vertices8 ? 8 : 4;
        for (uint32_t i = 0; i < n; i++) { /* what the layout holds: non-zero weights per vertex */
            uint32_t k = 0;
            for (uint32_t s = 0; s < m->influences; s++)
                k += (m->v8 ? m->v8[i].weights[s] : m->v[i].weights[s]) != 0;
            if (k > m->stats.max_influences) m->stats.max_influences = k;
        }
    } else if (desc->max_influences != 4 && desc->rest_layout != SINEW_REST_LAYOUT_COMPACT) {
        m->v8 = (sinew_vertex8 *)snw_alloc(&a, sizeof(sinew_vertex8) * (size_t)n);
        if (!m->v8) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        r = sinew_pack_vertices8(n, pos, nrm, &desc->influences, J, m->v8, &m->stats, &bad);
        if (r != SINEW_OK) {
            pack_fail(err, r, bad, "packing influences");
            goto fail;
        }
        m->influences = 8;
    }
    if (!packed && (desc->max_influences == 4 || desc->rest_layout == SINEW_REST_LAYOUT_COMPACT ||
                    (desc->max_influences == 0 && m->stats.max_influences <= 4))) {
        snw_free(&a, m->v8);
        m->v8 = NULL;
        m->v = (sinew_vertex *)snw_alloc(&a, sizeof(sinew_vertex) * (size_t)n);
        if (!m->v) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        r = sinew_pack_vertices(n, pos, nrm, &desc->influences, J, m->v, &m->stats, &bad);
        if (r != SINEW_OK) {
            pack_fail(err, r, bad, "packing influences");
            goto fail;
        }
        m->influences = 4;
    }

    m->bulge = (float *)snw_alloc(&a, sizeof(float) * (size_t)n);
    m->bounds = (sinew_joint_bounds *)snw_alloc(&a, sizeof(sinew_joint_bounds) * (size_t)J);
    if (!m->bulge || !m->bounds) {
        r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
        goto fail;
    }
    r = m->v ? sinew_bulge_rest_distances(desc->skeleton, n, m->v, m->bulge)
             : sinew_bulge_rest_distances8(desc->skeleton, n, m->v8, m->bulge);
    if (r != SINEW_OK) {
        snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "bulge rest distances: %s", sinew_result_string(r));
        goto fail;
    }
    if (tan4) {
        m->tangents = (sinew_tangent *)snw_alloc(&a, sizeof(sinew_tangent) * (size_t)n);
        if (!m->tangents) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        r = sinew_pack_tangents(n, tan4, m->tangents, &bad);
        if (r != SINEW_OK) {
            pack_fail(err, r, bad, "packing tangents");
            goto fail;
        }
    }
    if (desc->packed_tangents) {
        m->tangents = (sinew_tangent *)snw_alloc(&a, sizeof(sinew_tangent) * (size_t)n);
        if (!m->tangents) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        memcpy(m->tangents, desc->packed_tangents, sizeof(sinew_tangent) * (size_t)n);
    }
    if (desc->triangle_count) {
        m->triangles = (uint32_t *)snw_alloc(&a, sizeof(uint32_t) * 3 * (size_t)desc->triangle_count);
        if (!m->triangles) {
            r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
            goto fail;
        }
        memcpy(m->triangles, desc->triangles, sizeof(uint32_t) * 3 * (size_t)desc->triangle_count);
        m->triangle_count = desc->triangle_count;
    }
    /* Joint bounds, one O(joints x vertices) pass: into room for every joint pair
     * (at most joint_count^2 entries, 128 KiB for 256 joints) then kept at the
     * size used; beyond 256 joints, a first pass asks for the size. */
    uint32_t need = J <= 256u ? J * J : 0u;
    if (need == 0) {
        r = sinew_joint_bounds_build(m->v, m->v8, n, J, m->bounds, NULL, 0, &need);
        if (r == SINEW_ERROR_CAPACITY) r = SINEW_OK;
    }
    uint16_t *nb = r == SINEW_OK ? (uint16_t *)snw_alloc(&a, sizeof(uint16_t) * (need ? need : 1)) : NULL;
    if (r == SINEW_OK && !nb) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = sinew_joint_bounds_build(m->v, m->v8, n, J, m->bounds, nb, need, &m->neighbor_count);
    if (r == SINEW_OK) {
        m->neighbors = (uint16_t *)snw_alloc(&a, sizeof(uint16_t) * (m->neighbor_count ? m->neighbor_count : 1));
        if (m->neighbors) memcpy(m->neighbors, nb, sizeof(uint16_t) * m->neighbor_count);
        else r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    snw_free(&a, nb);
    if (r != SINEW_OK) {
        snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "joint bounds: %s", sinew_result_string(r));
        goto fail;
    }
    snw_free(&a, pos);
    snw_free(&a, nrm);
    snw_free(&a, tan4);
    *out = m;
    return SINEW_OK;
fail:
    snw_free(&a, pos);
    snw_free(&a, nrm);
    snw_free(&a, tan4);
    sinew_rest_mesh_destroy(m);
    return r;
}

uint32_t sinew_rest_mesh_vertex_count(const sinew_rest_mesh *m) { return m ? m->vertex_count : 0; }
uint32_t sinew_rest_mesh_influences(const sinew_rest_mesh *m) { return m ? m->influences : 0; }
sinew_rest_layout sinew_rest_mesh_rest_layout(const sinew_rest_mesh *m) { return m ? m->layout : SINEW_REST_LAYOUT_DEFAULT; }
uint32_t sinew_rest_mesh_joint_count(const sinew_rest_mesh *m) { return m ? m->joint_count : 0; }
const sinew_pack_stats *sinew_rest_mesh_pack_stats(const sinew_rest_mesh *m) { return m ? &m->stats : NULL; }
const sinew_vertex *sinew_rest_mesh_vertices(const sinew_rest_mesh *m) { return m ? m->v : NULL; }
const sinew_vertex8 *sinew_rest_mesh_vertices8(const sinew_rest_mesh *m) { return m ? m->v8 : NULL; }
const float *sinew_rest_mesh_bulge_distances(const sinew_rest_mesh *m) { return m ? m->bulge : NULL; }
const sinew_tangent *sinew_rest_mesh_tangents(const sinew_rest_mesh *m) { return m ? m->tangents : NULL; }
const float *sinew_rest_mesh_centers(const sinew_rest_mesh *m) { return m ? m->centers : NULL; }

const uint32_t *sinew_rest_mesh_triangles(const sinew_rest_mesh *m, uint32_t *triangle_count)
{
    if (triangle_count) *triangle_count = m ? m->triangle_count : 0;
    return m ? m->triangles : NULL;
}

const sinew_joint_bounds *sinew_rest_mesh_joint_bounds(const sinew_rest_mesh *m, const uint16_t **neighbors)
{
    if (neighbors) *neighbors = m ? m->neighbors : NULL;
    return m ? m->bounds : NULL;
}

/* Installs centers (owned by m afterwards) and their CoR data in the bounds;
 * on failure m is unchanged and centers freed. */
static sinew_result install_centers(sinew_rest_mesh *m, float *centers, sinew_error_info *err)
{
    sinew_joint_bounds *b = (sinew_joint_bounds *)snw_alloc(&m->alloc, sizeof(sinew_joint_bounds) * (size_t)m->joint_count);
    if (!b) {
        snw_free(&m->alloc, centers);
        return snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
    }
    memcpy(b, m->bounds, sizeof(sinew_joint_bounds) * (size_t)m->joint_count);
    sinew_result r = sinew_joint_bounds_add_centers(m->v, m->v8, m->vertex_count, m->joint_count, centers, b);
    if (r != SINEW_OK) {
        snw_free(&m->alloc, b);
        snw_free(&m->alloc, centers);
        return snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "joint bounds of the centers: %s", sinew_result_string(r));
    }
    snw_free(&m->alloc, m->bounds);
    snw_free(&m->alloc, m->centers);
    m->bounds = b;
    m->centers = centers;
    return SINEW_OK;
}

sinew_result sinew_rest_mesh_set_centers(sinew_rest_mesh *m, const float *centers, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!m || !centers)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL",
                        !m ? "mesh" : "centers");
    for (uint32_t i = 0; i < m->vertex_count; i++)
        if (!isfinite(centers[3 * (size_t)i]) || !isfinite(centers[3 * (size_t)i + 1]) ||
            !isfinite(centers[3 * (size_t)i + 2]))
            return snw_fail(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, i, "vertex %u: center is not finite", i);
    float *c = (float *)snw_alloc(&m->alloc, sizeof(float) * 3 * (size_t)m->vertex_count);
    if (!c) return snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "rest mesh: out of host memory");
    memcpy(c, centers, sizeof(float) * 3 * (size_t)m->vertex_count);
    return install_centers(m, c, err);
}
