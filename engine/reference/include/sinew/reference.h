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
 *    segment transformed by X_m, d = dist(p', [a,b]), D = d0 sigma the target (d0 the
 *    rest distance, sigma the major joint's own scale along the rest radial
 *    direction): if d > D, p' = c + (p' - c) * D / d with c the closest point, and
 *    the normal becomes the corrected surface's (step 4). With SINEW_SKIN_BULGE_INNER
 *    too, a vertex closer than D is pushed back out to D, the push fading out below
 *    D / 2 to 0 at d = 0 (step 4b).
 *  - A vertex whose weights sum to zero keeps its rest position and normal.
 *  - A normal that ends up shorter than 1e-30 is written as (0,0,0).
 *
 * Exact per-vertex algorithm (the GPU kernel implements these same steps in float):
 *  0. p = position (float -> double), n = sinew_oct_decode(normal_oct) (zero code -> 0);
 *     w_k = weights[k] / 65535 for k = 0..3, NOT renormalized (packing makes the sum
 *     exactly 1); all four joints[k] must be < joint_count (unused slots repeat joints[0]).
 *     If weights[0..3] are all 0: p' = p, n' = n, done (no bulge correction either).
 *  1. LBS (method LBS): A = sum_k w_k skin_k (3x4); p' = A p;
 *     m = cof(A3) n; n' = m / |m| * s with s = -1 if det(A3) < 0 else +1 (det 0 -> +1);
 *     n' = 0 if |m| < 1e-30.
 *  2. DQS (method DQS): q_k = rigid_k; s_k = (dot4(q_k.real, q_0.real) < 0) ? -1 : +1;
 *     b = sum_k s_k w_k q_k (both parts); r = b.real / |b.real|, d = b.dual / |b.real|;
 *     p' = p + 2 r.xyz x (r.xyz x p + r.w p) + 2 (r.w d.xyz - d.w r.xyz + r.xyz x d.xyz);
 *     n' = rotate(r, n) = n + 2 r.xyz x (r.xyz x n + r.w n), then renormalized
 *     (n' = 0 if shorter than 1e-30).
 *  3. DQS_SCALE, DQS_SCALE_LOCAL, DQS_SCALE_MIXED (identical at skinning time; they
 *     differ only in how the palette was built): step 1 with scale_k instead of skin_k
 *     gives (p1, n1) (n1 unit or 0 by step 1's rule), then step 2 with rigid_k on (p1, n1).
 *  4. Bulge (flag): j = joints[0]; a = seg_head_j, b = seg_tail_j; ab = b - a;
 *     tu = (|ab|^2 > 0) ? dot(p' - a, ab) / |ab|^2 : 0; c = a + clamp(tu, 0, 1) ab;
 *     d = |p' - c|; d0r = bulge_rest[i]; D = d0r sigma (below); if (d > D)
 *     p' = c + (p' - c) * (D / d). In what follows "d0" is D except in the fade gs,
 *     which uses d0r.
 *     g0 = unit(p - c0), p the rest position, c0 its closest point on the rest segment
 *       [X_j^-1 a, X_j^-1 b] (X_j^-1: LBS the inverse of skin_j's 3x4; DQS the inverse
 *       of rigid_j; scale methods rigid_j^-1 then scale_j^-1; g0 = 0 if the 3x3 is
 *       singular or |p - c0| < 1e-30); u0 = the unit rest segment direction (0 if it
 *       has length 0), a0 = 1 if the rest closest point's parameter t is in (0, 1)
 *       strictly, else 0.
 *     sigma: with A = the 3x3 of skin_j (LBS) or scale_j (DQS_SCALE*, COR_SCALE*):
 *       sigma = |A g0|, and g0 is replaced by the rest gradient of D / d0r,
 *       sigma g0 + P (A^T A g0) / sigma (the second term 0 if sigma < 1e-30), with
 *       P = I - a0 u0 u0^T - g0 g0^T; DQS and COR: sigma = 1, g0 kept; g0 = 0: sigma = 1.
 *     Normal, when d > D (README "Bulge correction" has the derivation):
 *     g = g0 through the method as a gradient: LBS
 *       stage A^-T g = cof(A) g / det(A) (0 if det = 0), DQS stage rotate(r, g), CoR
 *       (steps 5, 6) the scale stage's A^-T (COR_SCALE*) then rotate(r, g); X_j^-1 for
 *       COR is rigid_j^-1, for COR_SCALE* rigid_j^-1 then scale_j^-1;
 *     ax = max|p'_k| (before the correction); den = max(d / 16, ax / 4096);
 *     blend = (d - d0 - ax / 65536) / den; if blend <= 0 n' is not changed, else:
 *     f = max(d0 / d, 1/8); r = (p' - c) / d; u = ab / |ab| (0 if |ab| = 0);
 *     al = (1 - f) clamp(min(tu, 1 - tu) |ab| / den, 0, 1) (0 if |ab| = 0);
 *     g scaled to length 4 if longer, then by gs = clamp((d0r - ax / 65536) / (ax / 4096), 0, 1);
 *     g_t = g - (g.n') n'; w = g_t x n';
 *     m = f (f + al) (r.n') r + (f w + al (u.w) u) x r: cof(L) n' for L v = f v +
 *     al (u.v) u + r (h.v), h = g_t - f r (README), i.e. cof(B) n' + (B (h x n')) x r,
 *     B = f I + al u u^T, rewritten with r perpendicular to u wherever al > 0 so that
 *     nothing cancels when r.n' is small;
 *     n_c = m / |m| (n' if |m| < 1e-30); n' = n_c if blend >= 1, else
 *     normalize(n' + blend (n_c - n')) (n' if that is shorter than 1e-30).
 *   4b. Inner push (flag SINEW_SKIN_BULGE_INNER, with the bulge flag): replaces the
 *     "if (d > D)" rule above for every d > 0 (d = 0: nothing changes). With
 *     gs = clamp((d0r - ax / 65536) / (ax / 4096), 0, 1) (g's fade above), x = d / D,
 *     R = SINEW_BULGE_INNER_RAMP (0.5): w = 1, e = 1 - gs, k = 1 if x >= R, else
 *     t = x / R, w = t^2 (3 - 2 t), w' = 6 t (1 - t) / R, e = 1 - gs w + gs (1 - x) w',
 *     k = w - (1 - x) x w'; phi = d + (D - d) w gs; p' = c + (p' - c) phi / d. So a
 *     vertex with d >= R D (either side of D) goes to D, one closer is pushed out
 *     less, fading to no push at d = 0 (continuous there), and near-bone vertices
 *     (gs < 1) move only part of the way. Normal: as above with f = phi / d (e = dphi/dd,
 *     k gs = dphi/dD, the derivatives of gs left out), h = k g_t - (f - e) r (g_t here
 *     being the scaled g's tangential part), so, the same way,
 *     m = e ((f + al) n' - al (u.n') u) + (f - e)(f + al)(r.n') r + k (f w + al (u.w) u) x r;
 *     f clamped below at 1/8 as above, and
 *     blend = 1 (no band: with the push the map's derivative is continuous across d0).
 *  5. CoR (method COR; Le & Hodgins 2016), with c = the vertex's center of rotation
 *     (sinew_cor_compute, float -> double): q_k = rigid_k.real, sign-aligned with q_0
 *     as in step 2; r = sum_k s_k w_k q_k / |.|; A = sum_k w_k skin_k (3x4);
 *     c' = A c; p' = rotate(r, p - c) + c'; n' = rotate(r, n) renormalized (0 if
 *     shorter than 1e-30). Equivalently v' = R v + t with R = rot(r), t = c' - R c.
 *     (The GPU forms c' as sum_k w_k T_k c with each rigid T_k applied as its unit dual
 *     quaternion rigid_k, step 2's point formula: the same value up to rounding.)
 *  6. COR_SCALE, COR_SCALE_LOCAL, COR_SCALE_MIXED (identical at skinning time; their
 *     palettes are those of DQS_SCALE, _LOCAL, _MIXED): stage 1 = step 1 with scale_k on p and n (giving p1, n1) and on c
 *     (c1 = A_S c); stage 2 = step 5 on (p1, n1) about c1, with c' = sum_k w_k R_k c1
 *     (R_k applied as the unit dual quaternion rigid_k, step 2's point formula). */
#ifndef SINEW_REFERENCE_H
#define SINEW_REFERENCE_H

#include <sinew/palette.h>
#include <sinew/mesh.h>
#include <sinew/blendshape.h>
#include <sinew/anim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Skins n packed vertices with a palette of joint_count entries. Not for the CoR
 * methods (they need centers: sinew_reference_skin_cor): INVALID_ARGUMENT. bulge_rest
 * (sinew_bulge_rest_distances) is needed only with SINEW_SKIN_BULGE_CORRECTION
 * (SINEW_SKIN_BULGE_INNER only with it).
 * Writes 3 doubles per vertex to pos_out and nrm_out (nrm_out may be NULL).
 * SINEW_ERROR_JOINT_INDEX if a vertex names a joint >= joint_count (checked for every
 * vertex before anything is written). Other errors: SINEW_ERROR_EMPTY (n == 0),
 * SINEW_ERROR_INVALID_ARGUMENT (NULL v/palette/pos_out, bad method, an unknown flag,
 * the inner flag without the bulge flag, bulge flag without bulge_rest, or a
 * negative bulge_rest), SINEW_ERROR_NON_FINITE (non-finite
 * bulge_rest). */
SINEW_API sinew_result sinew_reference_skin(uint32_t n, const sinew_vertex *v, const float *bulge_rest,
                                  const sinew_palette_joint *palette, uint32_t joint_count,
                                  sinew_method method, uint32_t flags,
                                  double *pos_out, double *nrm_out);
/* sinew_reference_skin for 8-influence vertices (sinew_pack_vertices8): the same
 * steps with k = 0..7 (all eight joints must be < joint_count). */
SINEW_API sinew_result sinew_reference_skin8(uint32_t n, const sinew_vertex8 *v, const float *bulge_rest,
                                   const sinew_palette_joint *palette, uint32_t joint_count,
                                   sinew_method method, uint32_t flags,
                                   double *pos_out, double *nrm_out);

/* sinew_reference_skin for any method with per-vertex centers of rotation:
 * centers = 3 floats per vertex (sinew_cor_compute), read only by the CoR
 * methods (may be NULL for the others); v (4 influences) or v8 (8), exactly one.
 * Errors as sinew_reference_skin, plus INVALID_ARGUMENT (a CoR method without
 * centers) and NON_FINITE (a non-finite center). */
SINEW_API sinew_result sinew_reference_skin_cor(uint32_t n, const sinew_vertex *v, const sinew_vertex8 *v8,
                                                const float *centers, const float *bulge_rest,
                                                const sinew_palette_joint *palette, uint32_t joint_count,
                                                sinew_method method, uint32_t flags, double *pos_out,
                                                double *nrm_out);

/* Skinned tangent frames of n vertices (v: 4 influences, or v8: 8; exactly one
 * non-NULL), 4 doubles each: unit tangent xyz (or 0), bitangent sign. Tangents
 * are directions on the surface, skinned like positions without translation:
 *  - LBS: t' = A3 t / |A3 t| with A3 the blended 3x3 (not its cofactor);
 *  - DQS: t' = rotate(r, t) renormalized, r the normalized blended rotation (step 2);
 *  - DQS with scale: t1 by the LBS rule with the blended S_j, then the DQS rule;
 *  - CoR: t' = rotate(r, t) renormalized, r the blended rotation of step 5 (no center
 *    needed); CoR with scale: t1 by the LBS rule with the S_j, then that rotation.
 * The sign is multiplied by sign(det) of every blended 3x3 applied (det 0 -> +1),
 * so sign' * cross(n', t') points along the skinned bitangent, as n' follows the
 * normal rule above (mirroring palettes included). Bulge correction does not
 * change tangents. Weights summing to 0 keep the rest tangent; shorter than 1e-30
 * gives (0,0,0). Errors: INVALID_ARGUMENT (NULLs, both or no vertex arrays, bad
 * method, a sign not exactly +-1), EMPTY, JOINT_INDEX. */
SINEW_API sinew_result sinew_reference_tangents(uint32_t n, const sinew_vertex *v, const sinew_vertex8 *v8,
                                      const sinew_tangent *tangents, const sinew_palette_joint *palette,
                                      uint32_t joint_count, sinew_method method, double *tan_out);

/* Same as sinew_reference_skin with the rest position and normal of every
 * vertex taken from rest_pos / rest_nrm (3 doubles each, e.g. the morphed rest of
 * sinew_morph_reference; rest_nrm NULL = the packed normals) instead of the
 * packed ones; joints, weights and bulge distances from v / bulge_rest. */
SINEW_API sinew_result sinew_reference_skin_rest(uint32_t n, const sinew_vertex *v, const double *rest_pos,
                                                 const double *rest_nrm, const float *bulge_rest,
                                                 const sinew_palette_joint *palette, uint32_t joint_count,
                                                 sinew_method method, uint32_t flags, double *pos_out,
                                                 double *nrm_out);

/* ---- morph targets ---- */

/* Float64 reference of the morph rule: the morphed rest positions and unit
 * normals of n vertices (3 doubles each; nrm_out may be NULL). Validates like
 * sinew_morph_validate and sinew_morph_check_weights. */
SINEW_API sinew_result sinew_morph_reference(uint32_t n, const sinew_vertex *v, const sinew_morph_target *targets,
                                             uint32_t target_count, const float *weights,
                                             double *pos_out, double *nrm_out, sinew_morph_error *err);

/* Float64 reference of the tangent rule: for each of n vertices the unit
 * direction normalize(decode(tangents[i].tangent_oct) + sum_t w_t dt_t) (zero
 * if shorter than 1e-30; targets without tangent_deltas add nothing), 3
 * doubles per vertex in dir_out; the bitangent signs stay tangents[i].sign.
 * The GPU morph pass stores the direction re-encoded to 16-bit octahedral:
 * sinew_pack_tangents of (dir, sign) gives the sinew_tangent array it holds,
 * for sinew_reference_tangents. Validates like sinew_morph_reference. */
SINEW_API sinew_result sinew_morph_reference_tangents(uint32_t n, const sinew_tangent *tangents,
                                                      const sinew_morph_target *targets, uint32_t target_count,
                                                      const float *weights, double *dir_out, sinew_morph_error *err);

/* ---- blended clips ---- */

/* Float64 reference of the layer blend (anim.h, "Blending"): each layer's clip
 * sampled by sinew_clip_sample (reference at reference_time, or the rest pose),
 * blended per joint in float64 by the same steps, in the same order, as the
 * float32 production path. scratch: 2 * joint_count transforms. Validates like
 * sinew_anim_layers_validate; the skeleton must have the clips' joint count. */
SINEW_API sinew_result sinew_reference_blend_pose(const sinew_skeleton *skel, const sinew_anim_layer *layers,
                                                  uint32_t layer_count, sinew_transform *scratch,
                                                  sinew_transform *local_out);

#ifdef __cplusplus
}
#endif
#endif
