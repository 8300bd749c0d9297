/* Sinew skinned-mesh data on the CPU: the packed rest vertex shared with the
 * GPU, influence packing (normalize, prune to 4, quantize), automatic weights
 * and the per-vertex data of bulge correction. CPU only, no allocation. */
#ifndef SINEW_MESH_H
#define SINEW_MESH_H

#include "skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    uint32_t vertices_pruned;    /* vertices that had more than 4 non-zero influences */
    uint32_t influences_pruned;  /* influences dropped in total */
} sinew_pack_stats;

/* Packs n vertices: positions and normals (3 floats each; normals need not be
 * unit, a zero normal stays zero), influences pruned to the 4 largest,
 * renormalized and quantized. Errors: SINEW_ERROR_EMPTY (n == 0),
 * SINEW_ERROR_NON_FINITE (position/normal), SINEW_ERROR_JOINT_INDEX (joint >=
 * joint_count), SINEW_ERROR_INVALID_WEIGHT (NaN, inf, negative, or a vertex whose
 * weights sum to zero). On error, *bad_vertex (if not NULL) is the vertex at fault.
 * stats may be NULL. */
sinew_result sinew_pack_vertices(uint32_t n, const float *positions, const float *normals,
                                 const sinew_influences *influences, uint32_t joint_count,
                                 sinew_vertex *out, sinew_pack_stats *stats, uint32_t *bad_vertex);

/* Weight of slot k of a packed vertex as float64 (q / 65535). */
double sinew_vertex_weight(const sinew_vertex *v, int k);

/* Automatic weights: w_ij = k(d_ij) / sum_j k(d_ij), k(d) = d^-alpha, with d_ij
 * the distance from vertex i to joint j's bone segment (sinew_skeleton_bone_segment).
 * A vertex within 1e-9 * (skeleton size) of one or more bones gets its weight
 * shared equally by those bones. Pruned to the 4 largest and renormalized:
 * writes 4 joints and 4 weights per vertex (unused: weight 0). alpha > 0. */
sinew_result sinew_auto_weights(const sinew_skeleton *skel, uint32_t n, const float *positions,
                                double alpha, uint32_t *joints4, float *weights4);

/* Bulge correction's per-vertex input: the rest distance from each vertex to the
 * bind-pose bone segment of its major joint (joints[0]). */
sinew_result sinew_bulge_rest_distances(const sinew_skeleton *skel, uint32_t n,
                                        const sinew_vertex *v, float *out);

/* Distance from p to segment [a, b] (a point when a == b), and the closest point. */
double sinew_distance_to_segment(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b, sinew_vec3 *closest);

#ifdef __cplusplus
}
#endif
#endif
