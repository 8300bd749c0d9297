/* Sinew's plain data types, shared by every layer: math values, the packed
 * rest vertex and tangent, influence lists, joint bounds, morph targets.
 * Declares no function. */
#ifndef SINEW_TYPES_H
#define SINEW_TYPES_H

#include <sinew/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- math (float64; conventions: sinew/linalg.h) ---- */
typedef struct sinew_vec3 { double x, y, z; } sinew_vec3;
typedef struct sinew_quat { double x, y, z, w; } sinew_quat;
typedef struct sinew_dualquat { sinew_quat real, dual; } sinew_dualquat;
typedef struct sinew_mat3 { double m[3][3]; } sinew_mat3;   /* m[col][row] */
typedef struct sinew_mat4 { double m[4][4]; } sinew_mat4;   /* m[col][row] */

/* Translation, rotation, scale; the matrix is T * R * S. */
typedef struct sinew_transform {
    sinew_vec3 translation;
    sinew_quat rotation;
    sinew_vec3 scale;
} sinew_transform;

/* Largest joint count a skeleton may have (joint indices are 16-bit on the GPU). */
#define SINEW_MAX_JOINTS 65535u

/* A zero or non-finite normal packed by sinew_oct_encode (sinew/linalg.h). */
#define SINEW_OCT_ZERO 0x80008000u

/* ---- rest vertices ---- */
/* One rest vertex, exactly as the GPU reads it (32 bytes).
 * weights are unorm16 (w = q / 65535), sorted by decreasing weight, summing to
 * exactly 65535; joints[0] is the vertex's major joint; unused slots have
 * weight 0 and repeat joints[0]. normal_oct: sinew_oct_encode(). */
typedef struct sinew_vertex {
    float position[3];
    uint32_t normal_oct;
    uint16_t joints[4];
    uint16_t weights[4];
} sinew_vertex;

/* A rest vertex with up to 8 influences (48 bytes), for meshes whose vertices
 * need more than 4 (sinew_pack_vertices8; the GPU layout is chosen per mesh at
 * sinew_skinner_add_mesh). Same rules as sinew_vertex: weights unorm16 sorted
 * by decreasing weight, summing to exactly 65535; unused slots weight 0 and
 * joints[0]. */
typedef struct sinew_vertex8 {
    float position[3];
    uint32_t normal_oct;
    uint16_t joints[8];
    uint16_t weights[8];
} sinew_vertex8;

/* Rest layouts of a mesh on the GPU (sinew_skinner_mesh_desc.rest_layout,
 * sinew_rest_mesh_desc.rest_layout; docs/vertex-streams.md). */
typedef enum sinew_rest_layout {
    SINEW_REST_LAYOUT_DEFAULT = 0,  /* sinew_vertex (32 B) or sinew_vertex8 (48 B), float positions */
    /* sinew_vertex_compact (16 B, 4 influences): positions 16-bit in a per-mesh box,
     * normal 12+12-bit octahedral, joints 8-bit (at most SINEW_COMPACT_MAX_JOINTS),
     * weights 8-bit summing to 255 */
    SINEW_REST_LAYOUT_COMPACT = 1
} sinew_rest_layout;

/* Most joints a mesh in the compact layout may have (8-bit joint indices). */
#define SINEW_COMPACT_MAX_JOINTS 256u

/* One rest vertex in the compact layout (16 bytes, sinew_compact_encode), as the GPU reads it:
 *   words[0] = qx | qy << 16               position in the box: offset + q * step per axis
 *   words[1] = qz | w0 << 16 | w1 << 24    weights 8-bit (w / 255)
 *   words[2] = j0 | j1 << 8 | j2 << 16 | j3 << 24
 *   words[3] = ox | oy << 12 | w2 << 24    normal: 12-bit signed octahedral ox, oy (the 16-bit
 *                                          code of sinew_oct_encode with x, y = 16 ox, 16 oy)
 * w3 = 255 - w0 - w1 - w2. */
typedef struct sinew_vertex_compact {
    uint32_t words[4];
} sinew_vertex_compact;

/* The box of a compact mesh: position = offset + q * step per axis (q 0..65535). */
typedef struct sinew_compact_box {
    float offset[3];
    float step[3];
} sinew_compact_box;

/* A rest tangent frame (8 bytes, optional, per vertex, alongside the vertex):
 * the tangent direction sinew_oct_encode()d and the bitangent sign, exactly
 * +1.0f or -1.0f (bitangent = sign * cross(normal, tangent)). */
typedef struct sinew_tangent {
    uint32_t tangent_oct;
    float sign;
} sinew_tangent;

/* Variable-length influence lists. Either CSR (offsets != NULL: vertex i owns
 * entries offsets[i] .. offsets[i+1]-1) or fixed (offsets == NULL:
 * per_vertex entries per vertex). */
typedef struct sinew_influences {
    const uint32_t *offsets;     /* vertex_count + 1 entries, or NULL */
    uint32_t per_vertex;         /* used when offsets == NULL */
    const uint32_t *joints;
    const float *weights;
} sinew_influences;

/* What packing did, for reporting. */
typedef struct sinew_pack_stats {
    uint32_t max_influences;     /* longest list seen (non-zero weights) */
    uint32_t vertices_pruned;    /* vertices that had more than 4 (8 for sinew_pack_vertices8) non-zero influences */
    uint32_t influences_pruned;  /* influences dropped in total */
} sinew_pack_stats;

/* ---- culling ---- */
/* Bind-space bounds of the vertices one joint influences. */
typedef struct sinew_joint_bounds {
    float center[3];            /* centre of the bounding box of those vertices */
    float radius;               /* largest distance from center to one of them; -1: the joint influences none */
    float min_major_weight;     /* smallest largest weight of the vertices this joint is the major joint of (0: none) */
    uint32_t first_neighbor;    /* N(a) = neighbors[first_neighbor .. first_neighbor + neighbor_count - 1]: the */
                                /* joints of the vertices it is the major joint of (none: 0 entries) */
    uint32_t neighbor_count;
    /* For the CoR methods, set by sinew_joint_bounds_add_centers (0 from sinew_joint_bounds_build): */
    uint32_t has_centers;       /* 1: the three fields below describe the mesh's centers of rotation */
    float cor_center[3];        /* centre of the bounding box of those vertices' centers of rotation */
    float cor_radius;           /* largest distance from cor_center to one of those centers */
    float cor_offset;           /* largest distance from one of those vertices to its own center */
} sinew_joint_bounds;

/* ---- morph targets ---- */
/* One morph target, stored sparsely: only the vertices it moves. */
typedef struct sinew_morph_target {
    const char *name;              /* for messages (may be NULL) */
    uint32_t count;                /* entries (vertices moved) */
    const uint32_t *indices;       /* count vertex indices, each < vertex_count, no repeats */
    const float *position_deltas;  /* 3 floats per entry */
    const float *normal_deltas;    /* 3 floats per entry, or NULL (normals unchanged) */
    const float *tangent_deltas;   /* 3 floats per entry (tangent direction; the bitangent sign is
                                      not morphed), or NULL; only for meshes with tangent frames */
} sinew_morph_target;

/* Where a morph or driver call found bad input: sinew_error_info (sinew/core.h)
 * with item MORPH_TARGET (index = target / example / weight index, entry = the
 * entry inside the target) or MORPH_SLOT (index = the position in the items of
 * sinew_morpher_set_frame). The old name is kept for source compatibility. */
typedef sinew_error_info sinew_morph_error;

/* Most targets per mesh, and the largest delta magnitude accepted (keeps
 * base + sum w d inside float32 for sane weights). */
#define SINEW_MORPH_MAX_TARGETS 4096u
#define SINEW_MORPH_MAX_DELTA 1e30

#ifdef __cplusplus
}
#endif
#endif
