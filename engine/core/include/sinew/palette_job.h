/* Sinew production palette path: clip sampling, forward kinematics, skinning
 * transforms, dual quaternions, the scale split and packing, all in float32
 * (SSE where available, scalar otherwise), written straight in the GPU layout
 * of sinew_palette_pack. The float64 functions of anim.h / skeleton.h /
 * palette.h stay the reference the tests compare this path against.
 *
 * What is checked when: skeletons and clips are validated (and their float32
 * copies built) once, at creation. Per frame only what the caller passes per
 * frame is checked: method, flags, time, root, the clip's joint count, the
 * pose values, and the finished palette (every value finite in float32, else
 * SINEW_ERROR_NON_FINITE). Plain DQS still refuses a joint whose skinning
 * transform is not rigid (SINEW_ERROR_NOT_RIGID, the reference's rule).
 *
 * Differences to the float64 reference (asserted by test_palette_fast on random
 * skeletons, clips, poses and scales):
 *  - clip key intervals are the same as the reference's (found in float64
 *    through a per-track bucket table: O(1) for any time, forward or random);
 *  - slerp: Eberly's polynomial (keys <= 120 degrees apart) or sin/acos;
 *  - when the bind pose and the root are rigid and every local scale is
 *    exactly 1, the DQ methods run FK on quaternions (no matrix-to-quaternion
 *    conversion, rigidity test or polar decomposition; S = identity);
 *  - otherwise the polar decompositions of the scale methods are skipped for
 *    a joint whose 3x3 is a rotation within 2e-6 (|A^T A - I|, det > 0), done
 *    in float32 by scaled Newton steps, eight joints at a time in SIMD, for a
 *    proper, well-conditioned one, and by the float64 reference
 *    (sinew_polar_decompose) for a mirrored, singular or ill-conditioned one,
 *    which keeps the reference's mirror and singular rules; with a rigid bind
 *    pose, U_j = L_j^-1 Local_j with positive scales is its own polar
 *    decomposition ((L_j^-1 R_j) diag(s_j)), and under DQS_SCALE / COR_SCALE a
 *    joint with local scale exactly 1 and det X_j > 0 takes its factors from
 *    its parent's (X_j = X_p N_j with N_j a rotation: Q_j = Q_p N_j as a
 *    quaternion product, P_j = sym(Q_j^T X_j)), exact up to rounding since the
 *    polar decomposition of a nonsingular matrix is unique.
 * Tolerances asserted by test_palette_fast, per joint relative to its largest
 * value: 2e-5 x (1 + depth / 16); for the scale methods on mirrored or
 * near-singular characters S and R within 2e-2 each and R S within 1e-3
 * (README, "CPU palettes").
 *
 * Job systems: sinew_palette_job_run_range builds characters [first, end) of a
 * job into the job's destination; any split of a job over threads or calls
 * gives bit-identical output (each character depends only on its own inputs).
 * Nothing allocates: each concurrent caller passes its own scratch. */
#ifndef SINEW_PALETTE_JOB_H
#define SINEW_PALETTE_JOB_H

#include <sinew/anim.h>
#include <sinew/palette.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One character of a palette job. */
typedef struct sinew_palette_character {
    const sinew_skeleton *skeleton;
    sinew_method method;
    uint32_t flags;                  /* sinew_skin_flags */
    const sinew_mat4 *root;          /* model-to-world placement, NULL = identity */
    /* The pose, first of: pose (local TRS per joint), layers (layer_count > 0),
     * clip at time, the rest pose. */
    const sinew_transform *pose;
    const sinew_clip *clip;          /* made for the skeleton's joint count */
    sinew_wrap wrap;
    double time;                     /* seconds */
    uint32_t palette_offset;         /* first vec4 slot of this character in the destination */
    /* Blended clips (anim.h, "Blending"), checked per frame by
     * sinew_anim_layers_validate; blended in float32 (each clip sampled by the
     * fast sampler). 0 = none (the fields above decide). */
    uint32_t layer_count;
    const sinew_anim_layer *layers;
    /* Largest |packed value| accepted (0 = the float32 range): a palette whose
     * values fit float32 but whose products with the mesh's coordinates (or with
     * each other, for normals) do not is NON_FINITE too. The crowd sets it from
     * the model's rest extent (sinew_crowd.h). */
    double value_limit;
    /* Bone LOD: 0 = every joint; D > 0 = joints at depth >= D in the hierarchy
     * (roots 0, their children 1, ...) are cut: they keep their rest local
     * transform, i.e. follow their parent rigidly, and clips (or layers) do
     * not sample them (a pose's values for them are replaced).
     * The palette is bit-identical to that of the same pose with the cut joints
     * at rest (e.g. the clip without their channels). */
    uint32_t joint_lod;
} sinew_palette_character;

/* Bytes of scratch one caller of the functions below needs for skeletons of
 * up to max_joints joints. The scratch must be 16-byte aligned. */
SINEW_API size_t sinew_palette_scratch_bytes(uint32_t max_joints);

/* Builds one character's palette into dst (joint_count *
 * sinew_palette_gpu_stride(method, flags) vec4 slots, written from dst[0]).
 * scratch: sinew_palette_scratch_bytes(joint_count) bytes, 16-byte aligned.
 * Errors: INVALID_ARGUMENT (NULL pointers, bad method or flags or wrap, a clip
 * made for another joint count, bad layers, scratch too small or misaligned),
 * NON_FINITE (time, layer values, root or pose not finite, or a palette value
 * beyond float32 or ch->value_limit),
 * NOT_RIGID (plain DQS, see sinew_palette_build). dst is unspecified on error.
 * A 16-byte aligned dst is written with streaming (non-temporal) stores and an
 * sfence (no read-for-ownership; suits write-combined mapped memory). */
SINEW_API sinew_result sinew_palette_build_f32(const sinew_palette_character *ch, void *scratch,
                                               size_t scratch_bytes, float *dst);

/* The same, for benchmarks: adds the nanoseconds of each step to step_ns[0..3]
 * (sample or pose conversion, forward kinematics, palette entries, pack: the
 * finiteness check and the copy to dst). Costs four clock reads. */
SINEW_API sinew_result sinew_palette_build_f32_timed(const sinew_palette_character *ch, void *scratch,
                                                     size_t scratch_bytes, float *dst, double step_ns[4]);

/* A frame's palette work: characters written at dst + 4 * palette_offset. */
typedef struct sinew_palette_job {
    const sinew_palette_character *characters;
    uint32_t count;
    float *dst;
    uint64_t dst_capacity_vec4;      /* every character's slots must lie below it */
} sinew_palette_job;

/* Sets palette_offset of count characters back to back from slot 0 and
 * returns the slots used in *total_vec4. INVALID_ARGUMENT for NULL pointers,
 * a NULL skeleton or a bad method; LIMIT_EXCEEDED beyond 2^32 slots. */
SINEW_API sinew_result sinew_palette_job_layout(sinew_palette_character *characters, uint32_t count,
                                                uint64_t *total_vec4);

/* Builds characters [first, end) of the job (end <= count), each as
 * sinew_palette_build_f32, on the calling thread; may run concurrently for
 * disjoint ranges of one job, each caller with its own scratch. Stops at the
 * first failing character, named by *bad_character (may be NULL; UINT32_MAX
 * when none); CAPACITY when a character's slots pass dst_capacity_vec4. */
SINEW_API sinew_result sinew_palette_job_run_range(const sinew_palette_job *job, uint32_t first, uint32_t end,
                                                   void *scratch, size_t scratch_bytes,
                                                   uint32_t *bad_character);

#ifdef __cplusplus
}
#endif
#endif
