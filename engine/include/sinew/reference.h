/* Sinew's float64 reference skinner: every method, positions and normals, on
 * the CPU. It runs the same algorithm as the GPU kernel on the same packed
 * inputs, and is what every GPU result is checked against.
 *
 * Rules shared with the GPU (README, "Methods"):
 *  - LBS: p' = (sum w_k T_k) p; n' = normalize(cof(A) n) * sign(det A), with A the
 *    blended 3x3 (= the inverse-transpose direction, defined also when A is singular).
 *  - DQS: each influence's dual quaternion is sign-aligned with the major
 *    joint's (joints[0]): if dot(real_k, real_0) < 0 its weight is negated; the
 *    blend is divided by |real|, which is >= the major weight, so never 0.
 *  - DQS with scale: stage 1 = LBS with the S_j (position and normal), stage 2 =
 *    DQS with the R_j applied to the stage-1 result; the normal is renormalized.
 *  - Bulge correction (flag): after skinning, with m = joints[0], (a, b) = m's
 *    segment transformed by X_m, d = dist(p', [a,b]), d0 = rest distance: if
 *    d > d0, p' = c + (p' - c) * d0 / d with c the closest point. Normals are
 *    left as skinned (documented limitation).
 *  - A vertex whose weights sum to zero keeps its rest position and normal.
 *  - A normal that ends up shorter than 1e-30 is written as (0,0,0). */
#ifndef SINEW_REFERENCE_H
#define SINEW_REFERENCE_H

#include "palette.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Skins n packed vertices with a palette of joint_count entries. bulge_rest
 * (sinew_bulge_rest_distances) is needed only with SINEW_SKIN_BULGE_CORRECTION.
 * Writes 3 doubles per vertex to pos_out and nrm_out (nrm_out may be NULL).
 * SINEW_ERROR_JOINT_INDEX if a vertex names a joint >= joint_count. */
sinew_result sinew_reference_skin(uint32_t n, const sinew_vertex *v, const float *bulge_rest,
                                  const sinew_palette_joint *palette, uint32_t joint_count,
                                  sinew_method method, uint32_t flags,
                                  double *pos_out, double *nrm_out);

#ifdef __cplusplus
}
#endif
#endif
