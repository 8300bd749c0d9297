/* Sinew procedural test scene: the classic skinning-lab tube, its skeleton,
 * weights and poses, and the measurements used to compare methods. CPU only. */
#ifndef SINEW_SCENE_H
#define SINEW_SCENE_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A closed tube along x in [0, 1] (side rings plus two capped ends). */
typedef struct sinew_tube_desc {
    uint32_t rings;     /* rings along x, >= 2 (default 64) */
    uint32_t sectors;   /* vertices per ring, >= 3 (default 32) */
    double radius;      /* default 0.1 */
    double alpha;       /* weight sharpness exponent, > 0 (default 2) */
} sinew_tube_desc;

/* Vertex and index counts of the tube (side rings * sectors + 2 cap centers;
 * triangles, counter-clockwise seen from outside). */
void sinew_tube_counts(const sinew_tube_desc *d, uint32_t *vertex_count, uint32_t *index_count);

/* Fills positions, normals (3 floats each), 4 joints + 4 weights per vertex and
 * triangle indices. Weights: joints 0 (at x=0), 1 (x=0.5), 2 (x=1, leaf);
 * w1 = 0.5 (2x)^alpha for x < 0.5 and 1 - 0.5 (2 - 2x)^alpha for x >= 0.5, w0 = 1 - w1. */
sinew_result sinew_tube_build(const sinew_tube_desc *d, float *positions, float *normals,
                              uint32_t *joints4, float *weights4, uint32_t *indices);

/* The tube's 3-joint chain along x: joints at x = 0, 0.5 and 1. */
sinew_result sinew_tube_skeleton(const sinew_allocator *alloc, sinew_skeleton **out);

/* Local pose of the tube chain: the second joint bent by bend_rad about z, then
 * twisted by twist_rad about its bone (x); joint 1 may be scaled by scale (NULL = 1). */
void sinew_tube_pose(double bend_rad, double twist_rad, const sinew_vec3 *scale,
                     sinew_transform local_out[3]);

/* Signed volume of a closed triangle mesh (positions: 3 doubles per vertex). */
double sinew_mesh_volume(const double *positions, const uint32_t *indices, uint32_t index_count);

/* Mean distance of the given vertices to the segment [a, b]. */
double sinew_mean_distance_to_segment(const double *positions, const uint32_t *vertex_ids,
                                      uint32_t count, sinew_vec3 a, sinew_vec3 b);

#ifdef __cplusplus
}
#endif
#endif
