/* Procedural test scene for samples, tests and the benchmark (not part of the
 * installed library): the classic skinning-lab tube and box-section bar, their
 * skeleton, weights and poses, and the measurements used to compare methods. CPU only. */
#ifndef SAMPLES_SINEW_SCENE_H
#define SAMPLES_SINEW_SCENE_H

#include <sinew/palette.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/rest_mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cross-section of the lab shape. */
typedef enum scene_shape {
    SCENE_SHAPE_TUBE = 0,   /* round: ring vertices on a circle of the given radius */
    SCENE_SHAPE_BAR = 1     /* box section: ring vertices on the square |y|, |z| <= radius */
} scene_shape;

/* A closed tube (or bar) along x in [0, 1] (side rings plus two capped ends). */
typedef struct scene_tube_desc {
    uint32_t rings;     /* rings along x, >= 2 (default 64) */
    uint32_t sectors;   /* vertices per ring, >= 3 (default 32); the bar needs a multiple of 8 */
    double radius;      /* default 0.1 (the bar's half width) */
    double alpha;       /* weight sharpness exponent, > 0 (default 2) */
    scene_shape shape;  /* default SCENE_SHAPE_TUBE */
} scene_tube_desc;

/* Vertex and index counts of the tube (side rings * sectors + 2 cap centers;
 * triangles, counter-clockwise seen from outside). Both 0 for an invalid desc
 * (rings 1, sectors 1 or 2, negative/non-finite radius or alpha, too many vertices).
 * Layout: vertex r * sectors + s is ring r (x = r / (rings - 1)), angle 2 pi s / sectors,
 * at (x, radius cos, radius sin); rings * sectors is the x = 0 cap center, +1 the x = 1
 * one. Side triangles come first, then the x = 0 fan, then the x = 1 fan.
 * The bar has the same layout and weights, its ring vertex s at arc length
 * 8 radius s / sectors along the square's perimeter, starting at (radius, 0) towards +z
 * (corners at s = sectors (2k + 1) / 8 are vertices, so the mesh is exactly a box);
 * normals: the face normal, the diagonal at the corners. */
void scene_tube_counts(const scene_tube_desc *d, uint32_t *vertex_count, uint32_t *index_count);

/* Fills positions, normals (3 floats each), 4 joints + 4 weights per vertex and
 * triangle indices. Weights: joints 0 (at x=0), 1 (x=0.5), 2 (x=1, leaf);
 * w1 = 0.5 (2x)^alpha for x < 0.5 and 1 - 0.5 (2 - 2x)^alpha for x >= 0.5, w0 = 1 - w1. */
sinew_result scene_tube_build(const scene_tube_desc *d, float *positions, float *normals,
                              uint32_t *joints4, float *weights4, uint32_t *indices);

/* The tube's 3-joint chain along x: joints at x = 0, 0.5 and 1. */
sinew_result scene_tube_skeleton(const sinew_allocator *alloc, sinew_skeleton **out);
/* A rest mesh from packed arrays: nv positions and normals (3 floats), 4 joints and
 * weights per vertex, ni triangle indices (0: none); max_influences as in
 * sinew_rest_mesh_desc. */
sinew_result scene_rest_mesh4(const sinew_skeleton *skel, uint32_t nv, const float *pos, const float *nrm,
                              const uint32_t *j4, const float *w4, const uint32_t *tri, uint32_t ni,
                              uint32_t max_influences, sinew_rest_mesh **out);

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

/* Temporal smoothness of a motion: frames are frame_count consecutive poses of nv
 * vertices (3 doubles each, frame f at frames + 3 nv f). For each vertex, its jumps
 * |p(f+1) - p(f)| over the frames; ratio = its largest jump / its median jump. Returns
 * the largest ratio over the vertices whose median jump exceeds min_median (vertices
 * that barely move are skipped; 0 when none moves or frame_count < 2); *max_jump
 * (may be NULL) gets the largest jump of any vertex. A uniform motion sampled at
 * uniform steps gives ratios near 1, a pop or a sudden speed-up gives large ones.
 * Allocates one array of frame_count doubles (returns -1 if that fails). */
double scene_jump_ratio(const double *frames, uint32_t frame_count, uint32_t nv, double min_median,
                        double *max_jump);

/* A skinning variant the quality harness measures: one line of
 * scene_quality_methods per variant (method + flags), so a new method is one
 * more line there and appears in every table (sinew-demo, sinew-autoweights
 * --quality, test_scene). */
typedef struct scene_quality_method {
    const char *name;     /* short label for tables, e.g. "dqs +bulge" */
    sinew_method method;
    uint32_t flags;       /* SINEW_SKIN_* */
} scene_quality_method;

/* The variants of README's quality tables, in table order. */
extern const scene_quality_method scene_quality_methods[];
extern const uint32_t scene_quality_method_count;

/* How far the normals of a skinned tube/bar are from the surface their positions
 * make: for every side vertex of rings 1 .. rings-2 (the caps' seams excluded), the
 * angle between its normal (nrm, 3 doubles per vertex) and the area-weighted mean of
 * the normals of the side triangles around it, recomputed from pos. Returns the
 * largest angle in degrees (-1 on a bad desc or NULL pos/nrm, -2 when out of memory);
 * *mean_deg (may be NULL) gets the mean. mask (may be NULL = all) restricts the
 * vertices measured to those with mask[i] != 0 (0 measured: returns 0, mean 0).
 * On the rest tube both are 0 up to rounding. */
double scene_tube_normal_error(const scene_tube_desc *d, const double *pos, const double *nrm,
                               const uint8_t *mask, double *mean_deg);

/* Figures of a pose sweep (see scene_tube_sweep). */
typedef struct scene_sweep_result {
    double volume_min, volume_max;   /* volume ratio (skinned / rest), extremes over the sweep */
    double volume_end;               /* volume ratio at the last pose */
    double radius_min;               /* smallest middle_radius_ratio over the sweep (candy wrapper) */
    double max_bone_distance_increase; /* largest over the sweep */
    double jump_ratio;               /* scene_jump_ratio of the sweep, min_median 1e-7 */
    double max_jump;                 /* largest jump of any vertex between consecutive poses */
    double normal_error_max_deg;     /* largest scene_tube_normal_error over the sweep (degrees) */
    double normal_error_mean_deg;    /* largest per-pose mean of it over the sweep */
} scene_sweep_result;

typedef enum scene_sweep_kind {
    SCENE_SWEEP_BEND = 0,   /* bend from 0 to max_rad, no twist */
    SCENE_SWEEP_TWIST = 1   /* twist from 0 to max_rad, no bend */
} scene_sweep_kind;

/* Skins the shape of desc d (NULL = defaults) by the float64 reference with method m
 * and flags over steps + 1 poses (angle max_rad * k / steps, k = 0..steps) and
 * measures every pose with scene_tube_quality. Allocates (malloc) its buffers.
 * Errors: INVALID_ARGUMENT (NULL out, invalid desc, steps 0, max_rad not finite),
 * OUT_OF_HOST_MEMORY, and the palette/reference errors (NOT_RIGID for DQS on scale). */
sinew_result scene_tube_sweep(const scene_tube_desc *d, sinew_method m, uint32_t flags, scene_sweep_kind kind,
                              double max_rad, uint32_t steps, scene_sweep_result *out);

/* The honest check of the bulge-corrected normals: the shape of desc d (NULL =
 * defaults) posed (bend, twist), skinned by the float64 reference with DQS + bulge
 * correction; over the side vertices the correction moved (scene_tube_normal_error's
 * set, d > d0 + 1e-9), the angle between a normal and the normal recomputed from the
 * corrected mesh's triangles, for the normals the correction writes (after) and for
 * the uncorrected DQS normals it used to leave (before). Degrees. */
typedef struct scene_bulge_normals_result {
    uint32_t corrected;              /* side vertices measured */
    double before_max, before_mean;  /* DQS normals on the corrected positions */
    double after_max, after_mean;    /* the corrected normals */
    double dqs_max, dqs_mean;        /* plain DQS: its normals against its own triangles, same vertices */
} scene_bulge_normals_result;

/* Errors: INVALID_ARGUMENT (NULL out, invalid desc), OUT_OF_HOST_MEMORY, palette/reference errors. */
sinew_result scene_tube_bulge_normals(const scene_tube_desc *d, double bend_rad, double twist_rad,
                                      scene_bulge_normals_result *out);

/* Bulge correction's inner side over a bend sweep 0..max_rad in steps + 1 poses: the
 * shape of desc d skinned by the float64 reference with DQS and flags (e.g.
 * SINEW_SKIN_BULGE_CORRECTION, with or without SINEW_SKIN_BULGE_INNER). */
typedef struct scene_inner_result {
    double volume_at_90;        /* volume ratio at the pose nearest 90 degrees */
    double volume_min;          /* smallest volume ratio over the sweep */
    double max_jump;            /* largest move of a vertex between consecutive poses */
    uint32_t folded_at_90;      /* side vertices at 90 degrees inside the other bone's capsule
                                 * (distance to the non-major bone of 0/1 below 0.98 radius) */
} scene_inner_result;

/* Errors: INVALID_ARGUMENT (NULL out, invalid desc, steps 0, max_rad not finite),
 * OUT_OF_HOST_MEMORY, palette/reference errors (bad flags). */
sinew_result scene_tube_inner_volume(const scene_tube_desc *d, uint32_t flags, double max_rad, uint32_t steps,
                                     scene_inner_result *out);

#ifdef DEMO_WITH_ASSET
struct sinew_asset;
/* Quality of one variant on an imported model over its first clip (file weights,
 * float64 reference, frames evenly spaced over the clip, looping). Distances are
 * relative to the model's size (sinew_asset_size). */
typedef struct scene_model_quality_result {
    sinew_method method_used;     /* DQS (CoR) falls back to DQS (CoR) with scale on a clip that scales */
    double max_increase;          /* largest increase of a vertex's distance to its major bone, / size */
    double p99_increase;          /* its 99th percentile over vertices x frames (>= 0), / size */
    double jump_ratio;            /* scene_jump_ratio over the frames, min_median 1e-7 size */
    double max_jump;              /* largest jump between consecutive frames, / size */
    /* With SINEW_SKIN_BULGE_INNER (0 otherwise), against the same variant without it: */
    double max_inner_push;        /* largest move of a vertex by the inner push, / size */
    uint32_t intruded;            /* vertex-frames it moved closer to their second joint's posed bone
                                   * segment than their rest distance to it, and closer than without it */
} scene_model_quality_result;

/* Errors: INVALID_ARGUMENT (NULLs, frames < 3), EMPTY (no clip), OUT_OF_HOST_MEMORY,
 * palette and reference errors. */
sinew_result scene_model_quality(const struct sinew_asset *a, const scene_quality_method *m, uint32_t frames,
                                 scene_model_quality_result *out);
#endif

#ifdef __cplusplus
}
#endif
#endif
