/* Sinew rest mesh: one object holding everything the skinner and the crowd
 * need of a skinned mesh at rest, built from the host's arrays in one call:
 * packed vertices (4 or 8 influences per vertex, chosen from the data or
 * forced, with what pruning dropped reported), bulge-correction distances,
 * packed tangent frames, the triangles, joint bounds for culling, and centers
 * of rotation (computed on request, with progress and cancel, or set from a
 * cache). Immutable after creation except for the centers; any number of
 * skinners and crowds may read it; it must outlive none of them (the skinner
 * copies what it uploads). CPU only. */
#ifndef SINEW_REST_MESH_H
#define SINEW_REST_MESH_H

#include <sinew/skeleton.h>
#include <sinew/threadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_rest_mesh sinew_rest_mesh;

/* Input arrays; a stride of 0 means tightly packed. Nothing is kept: the
 * arrays may be freed after sinew_rest_mesh_create. */
typedef struct sinew_rest_mesh_desc {
    const sinew_skeleton *skeleton;   /* required: joint count, bone segments (bulge), bind pose */
    uint32_t vertex_count;
    const float *positions;           /* 3 floats per vertex, every position_stride bytes [12] */
    uint32_t position_stride;
    const float *normals;             /* 3 floats, need not be unit; NULL: zero normals */
    uint32_t normal_stride;           /* [12] */
    const float *tangents;            /* 4 floats (xyz, w = bitangent sign, glTF TANGENT); NULL: none */
    uint32_t tangent_stride;          /* [16] */
    const sinew_tangent *packed_tangents; /* instead of tangents: already packed (sinew_pack_tangents) */
    sinew_influences influences;      /* any number per vertex (CSR or fixed count) */
    /* Influences kept per vertex: 0 = 4 when no vertex has more than 4 non-zero
     * influences, else 8; 4 or 8 = that layout (more are pruned, see stats). */
    uint32_t max_influences;
    /* Instead of positions, normals and influences: vertices already packed
     * (sinew_pack_vertices / sinew_pack_vertices8; exactly one, or neither).
     * They are copied as they are (checked: finite positions, joints below the
     * skeleton's count, weights summing to 65535); max_influences is ignored. */
    const sinew_vertex *packed_vertices;
    const sinew_vertex8 *packed_vertices8;
    const uint32_t *triangles;        /* 3 indices per triangle, or NULL (centers of rotation need them) */
    uint32_t triangle_count;
    const sinew_allocator *allocator; /* the mesh's memory; NULL = default */
    /* The GPU rest layout sinew_skinner_add_rest_mesh gives the mesh (the CPU data stays
     * sinew_vertex). SINEW_REST_LAYOUT_COMPACT: 4 influences (max_influences 0 means 4;
     * 8 or packed_vertices8 is INVALID_ARGUMENT), at most SINEW_COMPACT_MAX_JOINTS joints
     * (else LIMIT_EXCEEDED); docs/vertex-streams.md. */
    sinew_rest_layout rest_layout;
} sinew_rest_mesh_desc;

/* Builds a rest mesh. Errors name the argument or vertex at fault (err may be
 * NULL): INVALID_ARGUMENT, EMPTY, NON_FINITE, JOINT_INDEX, INVALID_WEIGHT,
 * LIMIT_EXCEEDED (joint count), OUT_OF_HOST_MEMORY, and those of the pack
 * functions (sinew/mesh.h). */
SINEW_API sinew_result sinew_rest_mesh_create(const sinew_rest_mesh_desc *desc, sinew_rest_mesh **out,
                                              sinew_error_info *err);
/* Frees it; NULL is ignored. */
SINEW_API void sinew_rest_mesh_destroy(sinew_rest_mesh *m);

/* Vertex count, influences per vertex (4 or 8), and the skeleton's joint count. */
SINEW_API uint32_t sinew_rest_mesh_vertex_count(const sinew_rest_mesh *m);
SINEW_API uint32_t sinew_rest_mesh_influences(const sinew_rest_mesh *m);
/* The desc's rest_layout (SINEW_REST_LAYOUT_DEFAULT for NULL). */
SINEW_API sinew_rest_layout sinew_rest_mesh_rest_layout(const sinew_rest_mesh *m);
SINEW_API uint32_t sinew_rest_mesh_joint_count(const sinew_rest_mesh *m);
/* What packing pruned (vertices with more influences than the layout holds). */
SINEW_API const sinew_pack_stats *sinew_rest_mesh_pack_stats(const sinew_rest_mesh *m);
/* The packed vertices: exactly one of the two is non-NULL (the 4- or 8-influence layout). */
SINEW_API const sinew_vertex *sinew_rest_mesh_vertices(const sinew_rest_mesh *m);
SINEW_API const sinew_vertex8 *sinew_rest_mesh_vertices8(const sinew_rest_mesh *m);
/* Bulge-correction rest distances (sinew_bulge_rest_distances), one per vertex. */
SINEW_API const float *sinew_rest_mesh_bulge_distances(const sinew_rest_mesh *m);
/* Packed tangent frames, or NULL when the desc had none. */
SINEW_API const sinew_tangent *sinew_rest_mesh_tangents(const sinew_rest_mesh *m);
/* Triangles (3 indices each) and their count; NULL / 0 when none were given. */
SINEW_API const uint32_t *sinew_rest_mesh_triangles(const sinew_rest_mesh *m, uint32_t *triangle_count);
/* Joint bounds for culling (sinew_joint_bounds_build; joint_count entries, with
 * the CoR data once centers exist) and their neighbor lists. */
SINEW_API const sinew_joint_bounds *sinew_rest_mesh_joint_bounds(const sinew_rest_mesh *m, const uint16_t **neighbors);

/* Sets the centers of rotation: computed by sinew_rest_mesh_compute_centers
 * (sinew/cor.h, bake layer) or loaded from a cache; 3 floats per vertex,
 * finite. Adds their CoR data to the joint bounds. */
SINEW_API sinew_result sinew_rest_mesh_set_centers(sinew_rest_mesh *m, const float *centers, sinew_error_info *err);
/* The centers of rotation (3 floats per vertex), or NULL before they are computed or set. */
SINEW_API const float *sinew_rest_mesh_centers(const sinew_rest_mesh *m);

#ifdef __cplusplus
}
#endif
#endif
