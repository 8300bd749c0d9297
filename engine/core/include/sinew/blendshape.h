/* Sinew blend shapes on the CPU: sparse morph targets (validation and the
 * float64 reference of "rest = base + sum w_i delta_i"), and the drivers that
 * turn a pose into target weights: pose-space deformation by radial basis
 * functions (Lewis et al. 2000) and SMPL-style linear pose features.
 * No Vulkan; the GPU pass is sinew/morpher.h.
 *
 * Morph rule (shared with the GPU pass, shaders/morph.comp):
 *   p = base position + sum_i w_i dp_i(v)
 *   n = normalize(decode(base normal_oct) + sum_i w_i dn_i(v))  (0 if shorter than 1e-30)
 *   t = normalize(decode(base tangent_oct) + sum_i w_i dt_i(v)), sign kept  (meshes with tangent frames)
 * then skinning (any method; bulge correction with the base mesh's rest
 * distances, or, after sinew_morpher_set_skeleton, the morphed vertices'
 * distances to their bone segments) runs on (p, n). Weights are any finite real (not clamped). */
#ifndef SINEW_BLENDSHAPE_H
#define SINEW_BLENDSHAPE_H

#include <sinew/mesh.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif


/* Checks targets against a mesh of vertex_count vertices: NULL arrays
 * (INVALID_ARGUMENT), index >= vertex_count (JOINT_INDEX is not used: INVALID_ARGUMENT),
 * repeated index (INVALID_ARGUMENT), NaN/inf or beyond SINEW_MORPH_MAX_DELTA deltas
 * (position, normal or tangent)
 * (NON_FINITE), more than SINEW_MORPH_MAX_TARGETS (LIMIT_EXCEEDED). err (may be
 * NULL) names the first target and entry at fault. A target with count 0 is valid. */
SINEW_API sinew_result sinew_morph_validate(uint32_t vertex_count, const sinew_morph_target *targets,
                                            uint32_t target_count, sinew_morph_error *err);
/* Checks a weight array: count must equal target_count (INVALID_ARGUMENT),
 * every weight finite with |w| <= 1e6 (NON_FINITE); err names the weight. */
SINEW_API sinew_result sinew_morph_check_weights(const float *weights, uint32_t count, uint32_t target_count,
                                                 sinew_morph_error *err);


#ifdef __cplusplus
}
#endif
#endif
