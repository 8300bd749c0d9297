/* Procedural test scene for samples, tests and the benchmark (not part of the
 * installed library): the classic skinning-lab tube, its skeleton,
 * weights and poses, and the measurements used to compare methods. CPU only. */
#ifndef SAMPLES_SINEW_SCENE_H
#define SAMPLES_SINEW_SCENE_H

#include <sinew/mesh.h>
#include <sinew/palette.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A closed tube along x in [0, 1] (side rings plus two capped ends). */
typedef struct scene_tube_desc {
    uint32_t rings;     /* rings along x, >= 2 (default 64) */
    uint32_t sectors;   /* vertices per ring, >= 3 (default 32) */
    double radius;      /* default 0.1 */
    double alpha;       /* weight sharpness exponent, > 0 (default 2) */
} scene_tube_desc;

/* Vertex and index counts of the tube (side rings * sectors + 2 cap centers;
 * triangles, counter-clockwise seen from outside). Both 0 for an invalid desc
 * (rings 1, sectors 1 or 2, negative/non-finite radius or alpha, too many vertices).
 * Layout: vertex r * sectors + s is ring r (x = r / (rings - 1)), angle 2 pi s / sectors,
 * at (x, radius cos, radius sin); rings * sectors is the x = 0 cap center, +1 the x = 1
 * one. Side triangles come first, then the x = 0 fan, then the x = 1 fan. */
void scene_tube_counts(const scene_tube_desc *d, uint32_t *vertex_count, uint32_t *index_count);

/* Fills positions, normals (3 floats each), 4 joints + 4 weights per vertex and
 * triangle indices. Weights: joints 0 (at x=0), 1 (x=0.5), 2 (x=1, leaf);
 * w1 = 0.5 (2x)^alpha for x < 0.5 and 1 - 0.5 (2 - 2x)^alpha for x >= 0.5, w0 = 1 - w1. */
sinew_result scene_tube_build(const scene_tube_desc *d, float *positions, float *normals,
                              uint32_t *joints4, float *weights4, uint32_t *indices);

/* The tube's 3-joint chain along x: joints at x = 0, 0.5 and 1. */
sinew_result scene_tube_skeleton(const sinew_allocator *alloc, sinew_skeleton **out);

/* Local pose of the tube chain: the second joint bent by bend_rad about z, then
 * twisted by twist_rad about its bone (x); joint 1 may be scaled by scale (NULL = 1). */
void scene_tube_pose(double bend_rad, double twist_rad, const sinew_vec3 *scale,
                     sinew_transform local_out[3]);

/* Signed volume of a closed triangle mesh (positions: 3 doubles per vertex). */
double scene_mesh_volume(const double *positions, const uint32_t *indices, uint32_t index_count);

/* Mean distance of the given vertices to the segment [a, b]. */
double scene_mean_distance_to_segment(const double *positions, const uint32_t *vertex_ids,
                                      uint32_t count, sinew_vec3 a, sinew_vec3 b);

/* Quality figures of a skinned tube, the numbers of README's quality table. */
typedef struct scene_tube_quality_result {
    /* Middle ring (the two middle rings averaged when rings is even): mean distance of
     * its vertices to their centroid, skinned / rest. 1 = radius kept; LBS twist -> 0. */
    double middle_radius_ratio;
    /* scene_mesh_volume(skinned) / scene_mesh_volume(rest). */
    double volume_ratio;
    /* Largest d - d0 over all vertices: d = distance of the skinned vertex to its major
     * joint's posed segment (palette seg_head/seg_tail of joints[0]), d0 = its rest
     * distance (bulge_rest, or computed in float64 from the tube's rest segments). */
    double max_bone_distance_increase;
    uint32_t worst_vertex;  /* the vertex where that largest increase occurs */
} scene_tube_quality_result;

/* Measures a skinned tube built by scene_tube_build + sinew_pack_vertices with desc d:
 * v are its packed rest vertices, skinned 3 doubles per vertex (e.g. the reference's
 * output, or GPU output widened to double), palette the 3 joints' palette entries used,
 * bulge_rest may be NULL; d NULL = the defaults. Allocates nothing. Errors:
 * INVALID_ARGUMENT (NULL v/palette/skinned/out, invalid desc),
 * JOINT_INDEX (a vertex names a joint >= 3). */
sinew_result scene_tube_quality(const scene_tube_desc *d, const sinew_vertex *v,
                                const float *bulge_rest, const sinew_palette_joint *palette,
                                const double *skinned, scene_tube_quality_result *out);

#ifdef __cplusplus
}
#endif
#endif
