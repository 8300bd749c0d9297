/* Sinew automatic weights (bake layer, sinew::bake): skinning weights from the
 * distance of each vertex to the bone segments. CPU only, no allocation (the
 * cached variant excepted). */
#ifndef SINEW_AUTOWEIGHTS_H
#define SINEW_AUTOWEIGHTS_H

#include <sinew/mesh.h>
#include <sinew/bake_cache.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest |coordinate| of a bone segment the automatic weights accept. */
#define SINEW_AUTO_WEIGHTS_MAX_COORD 1e150

/* Automatic weights: w_ij = k(d_ij) / sum_j k(d_ij), k(d) = d^-alpha, with d_ij
 * the distance from vertex i to joint j's bone segment (sinew_skeleton_bone_segment).
 * A vertex within 1e-9 * (skeleton size) of one or more bones gets its weight
 * shared equally by those bones. Pruned to the 4 largest and renormalized:
 * writes 4 joints and 4 weights per vertex (unused: weight 0, joint = slot 0's). alpha > 0.
 * Slots are ordered by increasing distance (ties: lower joint index), so slot 0 is a
 * nearest bone; more than 4 bones under the on-bone rule keep the 4 lowest indices.
 * The kernel is evaluated as (d_min / d)^alpha, so far vertices never overflow.
 * "Skeleton size" is the diagonal of the bounding box of every bone segment (1 if 0).
 * Errors: INVALID_ARGUMENT (NULL, alpha not finite and > 0), EMPTY (n == 0),
 * NON_FINITE (a position), LIMIT_EXCEEDED (a bone segment coordinate beyond
 * SINEW_AUTO_WEIGHTS_MAX_COORD: distances there overflow). Cost: n * joint_count
 * segment distances. */
SINEW_API sinew_result sinew_auto_weights(const sinew_skeleton *skel, uint32_t n, const float *positions,
                                double alpha, uint32_t *joints4, float *weights4);

/* Options of the automatic weights beyond alpha (zero = the defaults, except alpha). */
typedef struct sinew_auto_weights_desc {
    double alpha;               /* kernel exponent, finite and > 0 (required) */
    const uint8_t *joint_mask;  /* joint_count bytes, non-zero = the joint may receive weight; NULL = all */
    int skip_point_segments;    /* non-zero: joints whose bone segment is a point (leaves without a
                                   bone_tail) receive no weight, as with "segments starting at j" */
} sinew_auto_weights_desc;

/* sinew_auto_weights over the eligible joints only (mask, point segments); the
 * skeleton size still spans every joint. Errors as sinew_auto_weights, plus EMPTY
 * when no joint is eligible (e.g. a single-joint skeleton with skip_point_segments). */
SINEW_API sinew_result sinew_auto_weights_ex(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc,
                                             uint32_t n, const float *positions, uint32_t *joints4, float *weights4);

/* Replaces the weights of n packed vertices in place by sinew_auto_weights_ex's,
 * packed as sinew_pack_vertices does; positions and normal_oct are kept bit for bit.
 * Errors as sinew_auto_weights_ex (INVALID_ARGUMENT for NULL v); nothing is written
 * on error. */
SINEW_API sinew_result sinew_auto_weights_packed(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc,
                                                 uint32_t n, sinew_vertex *v);

/* sinew_auto_weights_ex through a cache file (sinew/bake_cache.h): joints4 and
 * weights4 come from cache_path when it holds them for exactly these inputs
 * (alpha, skip_point_segments, every joint's bone segment and mask bit, the
 * positions, the algorithm's version), else they are computed and the file
 * (re)written. cache_path NULL: no cache. report may be NULL. Errors as
 * sinew_auto_weights_ex, err filled; nothing written on error. */
SINEW_API sinew_result sinew_auto_weights_ex_cached(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc,
                                                    uint32_t n, const float *positions, uint32_t *joints4, float *weights4,
                                                    const char *cache_path, sinew_bake_cache_report *report,
                                                    sinew_error_info *err);

#ifdef __cplusplus
}
#endif
#endif
