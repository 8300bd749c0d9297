/* Quality metrics of a deformed mesh, in float64, for any triangle mesh (the
 * sinew_reference layer; research and tests, not the runtime). They are the
 * measures of README's quality tables, generalised from the procedural tube:
 * volume, distance of each vertex to its major bone (radius and bulge),
 * temporal jumps, and normal error against the surface the positions make.
 * Positions and normals are 3 doubles per vertex; indices are triangles
 * (3 per face) into the vertex array. Nothing here allocates. */
#ifndef SINEW_METRICS_H
#define SINEW_METRICS_H

#include <sinew/palette.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Signed volume enclosed by the triangles (sum of a . (b x c) / 6; positive for
 * a closed mesh wound counter-clockwise seen from outside) into *out.
 * INVALID_ARGUMENT for NULLs, an index_count not a multiple of 3, or an index
 * >= vertex_count (err: item ARGUMENT, index = the triangle). */
SINEW_API sinew_result sinew_metric_volume(uint32_t vertex_count, const double *positions, const uint32_t *indices,
                                           uint32_t index_count, double *out, sinew_error_info *err);

/* Distance of each vertex to its major joint's bone segment as posed by the
 * palette (seg_head, seg_tail of palette[major[i]]), into dist_out (n doubles).
 * With the bind-pose palette this is the rest distance; radius ratios and the
 * bulge (distance increase) follow from two calls. major: n joint indices
 * (sinew_vertex.joints[0]). INVALID_ARGUMENT (NULLs, n 0), JOINT_INDEX (a joint
 * >= joint_count; err names the vertex). */
SINEW_API sinew_result sinew_metric_bone_distances(uint32_t n, const double *positions, const uint16_t *major,
                                                   const sinew_palette_joint *palette, uint32_t joint_count,
                                                   double *dist_out, sinew_error_info *err);

/* Temporal smoothness of frame_count consecutive poses of n vertices (frame f at
 * frames + 3 n f): per vertex the jumps |p(f+1) - p(f)|, ratio = largest / median
 * (median of an even count: mean of the two middle values). *ratio = the largest
 * ratio over vertices whose median jump exceeds min_median (0 if none, or fewer
 * than 2 frames); *max_jump = the largest jump of any vertex. scratch: at least
 * frame_count - 1 doubles (the caller's, so nothing is allocated).
 * INVALID_ARGUMENT for NULLs or n 0. */
SINEW_API sinew_result sinew_metric_jumps(uint32_t frame_count, uint32_t n, const double *frames, double min_median,
                                          double *scratch, double *ratio, double *max_jump, sinew_error_info *err);

/* Angle in degrees between each vertex's normal and the area-weighted mean of
 * the normals of the triangles around it, recomputed from positions, into
 * angle_out (vertex_count doubles; -1 for a vertex in no triangle, a zero normal
 * or a degenerate neighbourhood). scratch: 3 * vertex_count doubles. Errors as
 * sinew_metric_volume. */
SINEW_API sinew_result sinew_metric_normal_error(uint32_t vertex_count, const double *positions, const double *normals,
                                                 const uint32_t *indices, uint32_t index_count, double *scratch,
                                                 double *angle_out, sinew_error_info *err);

#ifdef __cplusplus
}
#endif
#endif
