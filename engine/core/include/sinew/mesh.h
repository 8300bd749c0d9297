/* Sinew skinned-mesh data on the CPU: the packed rest vertex shared with the
 * GPU, influence packing (normalize, prune to 4, quantize), the per-vertex data of bulge correction
 * (automatic weights: sinew/autoweights.h). CPU only, no allocation. */
#ifndef SINEW_MESH_H
#define SINEW_MESH_H

#include <sinew/skeleton.h>

#ifdef __cplusplus
extern "C" {
#endif


/* Packs n tangents given as 4 floats each (xyz direction, need not be unit; w:
 * bitangent sign, w < 0 gives -1, else +1; glTF TANGENT layout). A zero
 * direction stays SINEW_OCT_ZERO (skins to zero). Errors: INVALID_ARGUMENT
 * (NULL), EMPTY (n == 0), NON_FINITE (a non-finite value; *bad_vertex, may be
 * NULL, names it). */
SINEW_API sinew_result sinew_pack_tangents(uint32_t n, const float *tangents4, sinew_tangent *out, uint32_t *bad_vertex);


/* Packs n vertices: positions and normals (3 floats each; normals need not be
 * unit, a zero normal stays zero), influences pruned to the 4 largest,
 * renormalized and quantized. Errors: SINEW_ERROR_EMPTY (n == 0),
 * SINEW_ERROR_NON_FINITE (position/normal), SINEW_ERROR_JOINT_INDEX (joint >=
 * joint_count), SINEW_ERROR_INVALID_WEIGHT (NaN, inf, negative, or a vertex whose
 * weights sum to zero). On error, *bad_vertex (if not NULL) is the vertex at fault.
 * stats may be NULL.
 * Rules, per vertex: entries with weight 0 are dropped (their joint index is not
 * checked, so padding such as 0xFFFF is accepted); entries naming the same joint are
 * merged (weights added); the 4 largest are kept (ties: lower joint index first),
 * renormalized in double and quantized to unorm16 by largest remainders (floor each,
 * give the missing units to the largest fractional parts, ties to the larger weight),
 * so the sum is exactly 65535 and each weight is within 1/65535 of the renormalized
 * value; slots are sorted by decreasing quantized weight (ties: lower joint index); a
 * slot whose weight quantizes to 0 becomes unused. Normals are normalized in double
 * before sinew_oct_encode (zero stays SINEW_OCT_ZERO). Also: SINEW_ERROR_EMPTY for
 * joint_count 0, SINEW_ERROR_LIMIT_EXCEEDED for joint_count > SINEW_MAX_JOINTS,
 * SINEW_ERROR_INVALID_ARGUMENT for NULL inputs, per_vertex 0 without offsets, or
 * CSR offsets that decrease (bad_vertex = that vertex). */
SINEW_API sinew_result sinew_pack_vertices(uint32_t n, const float *positions, const float *normals,
                                 const sinew_influences *influences, uint32_t joint_count,
                                 sinew_vertex *out, sinew_pack_stats *stats, uint32_t *bad_vertex);

/* sinew_pack_vertices keeping the 8 largest influences (same rules, 8 slots;
 * stats count vertices with more than 8). */
SINEW_API sinew_result sinew_pack_vertices8(uint32_t n, const float *positions, const float *normals,
                                  const sinew_influences *influences, uint32_t joint_count,
                                  sinew_vertex8 *out, sinew_pack_stats *stats, uint32_t *bad_vertex);
/* Weight of slot k (0..7) of an 8-influence vertex as float64 (q / 65535). */
SINEW_API double sinew_vertex8_weight(const sinew_vertex8 *v, int k);
/* Weight of slot k of a packed vertex as float64 (q / 65535). */
SINEW_API double sinew_vertex_weight(const sinew_vertex *v, int k);

/* Encodes n 4-influence vertices in the compact layout (sinew_vertex_compact) and
 * returns their box: offset = the positions' minimum, step = extent / 65535 per axis
 * (0 for a flat axis); q = the nearest step, so |decoded - position| <= step / 2 per
 * axis (plus float rounding). Weights to 8 bits by largest remainders (floor of
 * 255 w / 65535, the missing units to the largest fractional parts, ties to the lower
 * slot), each within 1/255 of its unorm16 value, summing to 255, order kept; the
 * normal to the 12-bit octahedral grid point (of four) nearest the decoded 16-bit
 * normal (SINEW_OCT_ZERO stays zero). Errors: INVALID_ARGUMENT (NULL), EMPTY (n == 0),
 * NON_FINITE (a position), JOINT_INDEX (a joint >= SINEW_COMPACT_MAX_JOINTS),
 * INVALID_WEIGHT (weights not summing to 65535); *bad_vertex (may be NULL) names it. */
SINEW_API sinew_result sinew_compact_encode(uint32_t n, const sinew_vertex *v, sinew_vertex_compact *out,
                                            sinew_compact_box *box, uint32_t *bad_vertex);
/* The vertices a compact mesh skins as (its positions offset + q * step in float32,
 * weights 257 w8 so they sum to 65535, the normal's 16-bit code): what a float64
 * reference of the compact layout takes. Returns INVALID_ARGUMENT for NULL. */
SINEW_API sinew_result sinew_compact_decode(uint32_t n, const sinew_vertex_compact *c, const sinew_compact_box *box,
                                            sinew_vertex *out);

/* Bulge correction's per-vertex input: the rest distance from each vertex to the
 * bind-pose bone segment of its major joint (joints[0]), as float. Errors:
 * INVALID_ARGUMENT (NULL), EMPTY (n == 0), JOINT_INDEX, NON_FINITE (a position). */
SINEW_API sinew_result sinew_bulge_rest_distances(const sinew_skeleton *skel, uint32_t n,
                                        const sinew_vertex *v, float *out);
/* sinew_bulge_rest_distances for 8-influence vertices. */
SINEW_API sinew_result sinew_bulge_rest_distances8(const sinew_skeleton *skel, uint32_t n,
                                         const sinew_vertex8 *v, float *out);

/* Distance from p to segment [a, b] (a point when a == b), and the closest point
 * (closest may be NULL): t = clamp(dot(p - a, b - a) / |b - a|^2, 0, 1), c = a + t (b - a). */
SINEW_API double sinew_distance_to_segment(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b, sinew_vec3 *closest);

#ifdef __cplusplus
}
#endif
#endif
