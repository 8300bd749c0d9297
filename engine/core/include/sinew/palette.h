/* Sinew palettes: per-joint skinning transforms for every method, built in
 * float64 from a pose, and packed into the GPU's float layout. CPU only.
 *
 * For joint j with bind matrix B_j = M_j^0 and posed model matrix M_j:
 *   skin  T_j = M_j B_j^-1                                  (LBS, DQS)
 * DQS with scale splits the joint's total transform X_j into a scale stage S_j
 * (blended by LBS) and a rigid stage R_j (blended as dual quaternions), X_j = R_j S_j:
 *   - global: X_j = T_j (scale propagates to descendants);
 *   - local:  X_j from Kavan's compensated chain (scale does not propagate;
 *             children's offsets are scaled by the parent's scale);
 *   - mixed:  per joint, sinew_skeleton_scale_propagates() picks one or the other.
 * S_j = [P | a_j - P c_j] with P the symmetric factor of the polar decomposition
 * of X_j's 3x3, c_j the bind position of joint j and a_j its position in the
 * "scaled rest pose" (the pose with every rotation removed and every scale kept);
 * R_j = X_j S_j^-1 is rigid. In local mode this is exactly Kavan's
 * S_j = Ws_j B_j^-1, R_j = Wr_j (Ws_j Us_j^-1)^-1. See README, "Methods". */
#ifndef SINEW_PALETTE_H
#define SINEW_PALETTE_H

#include <sinew/skeleton.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One joint's palette entry in float64 (the reference skinner's input). */
typedef struct sinew_palette_joint {
    sinew_mat4 skin;       /* X_j: the joint's total transform (T_j for LBS/DQS/global) */
    sinew_mat4 scale;      /* S_j (identity for LBS, DQS and CoR) */
    sinew_dualquat rigid;  /* unit DQ of R_j (of T_j for DQS and CoR; identity for LBS) */
    sinew_vec3 seg_head;   /* bone segment transformed by X_j, for bulge correction */
    sinew_vec3 seg_tail;
} sinew_palette_joint;

/* Number of sinew_mat4 the caller provides as scratch to sinew_palette_build
 * (3 per joint). */
SINEW_API size_t sinew_palette_scratch_count(uint32_t joint_count);

/* Builds a palette for one character. local: joint_count local TRS poses;
 * root: model-to-world placement (NULL = identity); scratch: at least
 * sinew_palette_scratch_count() matrices; out: joint_count entries.
 * Plain DQS and plain CoR return SINEW_ERROR_NOT_RIGID (and leaves out unspecified) when a
 * T_j has scale, shear or mirror (orthonormality error > 1e-4 or det < 0).
 * Other errors: INVALID_ARGUMENT (NULL skel/local/scratch/out, bad method),
 * NON_FINITE (NaN/inf in the pose or root, or a product that overflows).
 * Local poses are used as in sinew_skeleton_fk (rotations normalized).
 * DQS with scale (formulas in palette.c and README): with U_j = L_j^-1 Local_j
 * = Ur_j Us_j (polar), children of a compensated joint p (prop(p) = 0) hang
 * from H_p Lc_j with Lc_j = L_j whose offset is scaled by Us3_p, and the posed
 * frame is G_j = H_p Lc_j U_j; a_j comes from the same recurrence without
 * rotations and without the root placement. Allocates nothing. */
SINEW_API sinew_result sinew_palette_build(const sinew_skeleton *skel, sinew_method method,
                                 const sinew_transform *local, const sinew_mat4 *root,
                                 sinew_mat4 *scratch, sinew_palette_joint *out);

/* Same, from model-space joint matrices M_j instead of a local pose (for callers
 * that run their own FK). Not for the local/mixed scale methods (DQS and CoR), which need the
 * local pose: those return SINEW_ERROR_INVALID_ARGUMENT. For DQS_SCALE and COR_SCALE
 * (whose palette is DQS_SCALE's: scale propagates) the local poses are recovered as M_p^-1 M_j (SINEW_ERROR_SINGULAR if an M_p with
 * children is singular); roots take M_j as their local matrix, which matches
 * sinew_palette_build with a root placement W when W is identity, or when W is
 * rigid and the root joints' bind matrices are rigid (or uniformly scaled). */
SINEW_API sinew_result sinew_palette_build_from_globals(const sinew_skeleton *skel, sinew_method method,
                                              const sinew_mat4 *global,
                                              sinew_palette_joint *out);

/* GPU palette layout: number of vec4 (16-byte) slots per joint for a method
 * and flags (LBS 3, DQS and CoR 2, DQS and CoR with scale 5; with bulge correction
 * LBS 7, DQS and CoR 5, with scale 9: +3, and an even count padded to odd with a
 * zero slot, which spreads a GPU's palette reads over its cache banks);
 * 0 for an invalid method. */
#define SINEW_PALETTE_GPU_STRIDE_MAX 9u /* the largest: size max_palette_vec4 with it */
SINEW_API uint32_t sinew_palette_gpu_stride(sinew_method method, uint32_t flags);

/* Writes joint_count entries in the GPU layout (float32) to dst, which holds
 * joint_count * sinew_palette_gpu_stride() * 4 floats. Layout per joint, in order
 * (slot counts and offsets: shaders/sinew_layout.h, SINEW_PAL_*):
 *   LBS:       rows 0..2 of skin (x,y,z,w = m[0][r], m[1][r], m[2][r], m[3][r])
 *   DQS:       rigid.real (x,y,z,w), rigid.dual (x,y,z,w)
 *   DQS+scale: rows 0..2 of scale, then rigid.real, rigid.dual
 *   CoR:       rigid.real, rigid.dual (as DQS)
 *   CoR+scale (global, local, mixed): rows 0..2 of scale, then rigid.real, rigid.dual (as DQS+scale)
 *   + bulge:   (seg_head xyz, ra.x), (seg_tail xyz, ra.y), (ra.z, rb xyz): ra, rb the
 *              segment mapped back to rest space by the joint's transform as packed
 *              (X^-1: the DQ's inverse, then the skin or scale rows' inverse), or all
 *              3.0e38 (SINEW_PAL_BULGE_SINGULAR) when that 3x3 is singular or ra, rb
 *              exceed float32 (the kernels then use no rest gradient, as the reference)
 * SINEW_ERROR_INVALID_ARGUMENT (nothing written) for an invalid method or NULL
 * pointers. SINEW_ERROR_NON_FINITE when a value, finite in float64, does not fit
 * in float32 (|x| > FLT_MAX): every entry is still written, the offending
 * values as infinities, and dst must not be given to the GPU. */
SINEW_API sinew_result sinew_palette_pack(sinew_method method, uint32_t flags, const sinew_palette_joint *src,
                                          uint32_t joint_count, float *dst);

#ifdef __cplusplus
}
#endif
#endif
