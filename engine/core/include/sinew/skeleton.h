/* Sinew skeletons: a validated joint forest with its bind pose, and forward
 * kinematics. CPU only. */
#ifndef SINEW_SKELETON_H
#define SINEW_SKELETON_H

#include <sinew/types.h>

#ifdef __cplusplus
extern "C" {
#endif


typedef struct sinew_skeleton sinew_skeleton;

/* Describes a skeleton. Zero means default for every optional field.
 * The bind pose is given by exactly one of bind_global (model-space joint
 * matrices M_j^0), inverse_bind ((M_j^0)^-1, as assets store them) or
 * rest_local (local TRS, composed by forward kinematics). */
typedef struct sinew_skeleton_desc {
    uint32_t joint_count;                 /* 1 .. SINEW_MAX_JOINTS */
    const int32_t *parents;               /* -1 for roots; parent index < child index */
    const char *const *names;             /* optional; copied */
    const sinew_mat4 *bind_global;        /* optional, see above */
    const sinew_mat4 *inverse_bind;       /* optional, see above */
    const sinew_transform *rest_local;    /* optional: the rest (default) pose; derived from the bind pose when NULL */
    /* Optional, for SINEW_METHOD_DQS_SCALE_MIXED: true if the joint's scale
     * propagates to its children, false if it is compensated. NULL = all true. */
    const bool *scale_propagates;
    /* Optional bone tails in model space (bind pose), one per joint: the end of
     * the joint's bone segment. NULL = the default rule (sinew_skeleton_bone_segment). */
    const sinew_vec3 *bone_tail;
    const sinew_allocator *allocator;     /* optional (sinew/core.h rule); the skeleton is one
                                             block from it, freed by sinew_skeleton_destroy */
} sinew_skeleton_desc;

/* Validates the description and copies it into a new skeleton. Checks, in order:
 * NULL desc/parents/out, or an allocator with exactly one of alloc/free NULL
 * (the rule of sinew/core.h: NULL or {NULL, NULL} = default) -> INVALID_ARGUMENT;
 * joint_count 0 -> EMPTY, > SINEW_MAX_JOINTS -> LIMIT_EXCEEDED; both bind_global
 * and inverse_bind, or no bind source at all -> INVALID_ARGUMENT (rest_local may
 * accompany either matrix source as the rest pose); a parent < -1 or >= count ->
 * PARENT_OUT_OF_RANGE; NaN/inf in a bind matrix, rest TRS or bone tail ->
 * NON_FINITE; a cycle (self-parent included) -> CYCLE; a parent index >= its
 * child's -> PARENT_ORDER; a bind matrix whose last row is not (0,0,0,1) within
 * 1e-6 -> INVALID_ARGUMENT (within it, snapped); a singular bind matrix
 * (|det| < 1e-300) -> SINGULAR.
 * Derived: M_j^0, (M_j^0)^-1 and L_j. With only rest_local, L_j is the rest TRS
 * matrix and M^0 is its forward kinematics. Without rest_local, the rest pose
 * is L_j decomposed into TRS: scale = column lengths of L_j's 3x3 (all three
 * negated when det < 0), rotation = the nearest proper rotation (polar) of the
 * 3x3 with columns divided by those scales, translation = L_j's last column;
 * exact for any T*R*S matrix (mirrors included), a shear is dropped. */
SINEW_API sinew_result sinew_skeleton_create(const sinew_skeleton_desc *desc, sinew_skeleton **out);
/* Frees a skeleton; NULL is ignored. */
SINEW_API void sinew_skeleton_destroy(sinew_skeleton *s);

/* Accessors below return -1 / "" / NULL / 1 for a joint index out of range. */
/* Number of joints. */
SINEW_API uint32_t sinew_skeleton_joint_count(const sinew_skeleton *s);
/* Parent of joint j, -1 for a root. */
SINEW_API int32_t sinew_skeleton_parent(const sinew_skeleton *s, uint32_t j);
/* Name of joint j ("" when none was given). */
SINEW_API const char *sinew_skeleton_name(const sinew_skeleton *s, uint32_t j);
/* Index of the first joint with this name, or -1 (NULL and "" never match). */
SINEW_API int32_t sinew_skeleton_find(const sinew_skeleton *s, const char *name);
/* Bind-pose model-space matrix M_j^0 and its inverse. */
SINEW_API const sinew_mat4 *sinew_skeleton_bind_global(const sinew_skeleton *s, uint32_t j);
SINEW_API const sinew_mat4 *sinew_skeleton_inverse_bind(const sinew_skeleton *s, uint32_t j);
/* Bind-pose local matrix L_j = (M_parent^0)^-1 M_j^0 (M_j^0 for roots). */
SINEW_API const sinew_mat4 *sinew_skeleton_bind_local(const sinew_skeleton *s, uint32_t j);
/* The rest pose as local TRS, one per joint (array of joint_count). */
SINEW_API const sinew_transform *sinew_skeleton_rest_pose(const sinew_skeleton *s);
/* true if joint j's scale propagates to its children under the mixed method. */
SINEW_API bool sinew_skeleton_scale_propagates(const sinew_skeleton *s, uint32_t j);

/* Joint j's bone segment in bind pose, model space: from the joint's position
 * to its tail. Default tail rule: the mean of the children's positions; a leaf's
 * segment has zero length (a point), unless bone_tail was given. */
SINEW_API void sinew_skeleton_bone_segment(const sinew_skeleton *s, uint32_t j, sinew_vec3 *head, sinew_vec3 *tail);

/* Forward kinematics: model-space joint matrices from local TRS poses,
 * M_j = M_parent * (T R S)_j, roots premultiplied by *root (NULL = identity).
 * Rotations are normalized first (a zero quaternion is the identity).
 * Returns SINEW_ERROR_NON_FINITE if the pose or root holds NaN/inf (or a
 * product overflows), INVALID_ARGUMENT for NULL s/local/global_out. */
SINEW_API sinew_result sinew_skeleton_fk(const sinew_skeleton *s, const sinew_transform *local,
                               const sinew_mat4 *root, sinew_mat4 *global_out);

#ifdef __cplusplus
}
#endif
#endif
