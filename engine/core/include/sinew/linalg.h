/* Sinew CPU math in float64: vectors, 4x4 matrices, quaternions, unit dual
 * quaternions, 3x3 polar decomposition. No Vulkan, no allocation.
 *
 * Conventions
 *  - Matrices are column-major like cglm and GLSL: m[col][row]; points are
 *    columns, p' = M p; translation is m[3][0..2].
 *  - Quaternions are {x, y, z, w} with w the scalar part; rotations are
 *    active and right-handed; q and -q are the same rotation.
 *  - A unit dual quaternion is real + eps * dual with |real| = 1 and
 *    real . dual = 0; for a rigid [R|t]: real = quat(R), dual = 0.5 * (t,0) * real.
 */
#ifndef SINEW_LINALG_H
#define SINEW_LINALG_H

#include <sinew/types.h>

#ifdef __cplusplus
extern "C" {
#endif


/* ---- vectors ---- */
SINEW_API sinew_vec3 sinew_v3(double x, double y, double z);
SINEW_API sinew_vec3 sinew_v3_add(sinew_vec3 a, sinew_vec3 b);
SINEW_API sinew_vec3 sinew_v3_sub(sinew_vec3 a, sinew_vec3 b);
SINEW_API sinew_vec3 sinew_v3_scale(sinew_vec3 a, double s);
SINEW_API double     sinew_v3_dot(sinew_vec3 a, sinew_vec3 b);
SINEW_API sinew_vec3 sinew_v3_cross(sinew_vec3 a, sinew_vec3 b);
SINEW_API double     sinew_v3_length(sinew_vec3 a);
/* a / |a|, or the zero vector when |a| is 0. */
SINEW_API sinew_vec3 sinew_v3_normalize(sinew_vec3 a);

/* ---- 4x4 matrices (affine unless said otherwise) ---- */
SINEW_API sinew_mat4 sinew_mat4_identity(void);
SINEW_API sinew_mat4 sinew_mat4_mul(const sinew_mat4 *a, const sinew_mat4 *b);       /* a * b */
/* General inverse; SINEW_ERROR_SINGULAR when |det| is below 1e-300 or not finite. */
SINEW_API sinew_result sinew_mat4_inverse(const sinew_mat4 *a, sinew_mat4 *out);
SINEW_API sinew_vec3 sinew_mat4_transform_point(const sinew_mat4 *m, sinew_vec3 p);
SINEW_API sinew_vec3 sinew_mat4_transform_vector(const sinew_mat4 *m, sinew_vec3 v);
SINEW_API sinew_mat4 sinew_mat4_from_transform(const sinew_transform *t);           /* T * R * S */
SINEW_API sinew_mat4 sinew_mat4_from_rigid(sinew_quat r, sinew_vec3 t);             /* [R(r) | t] */
SINEW_API sinew_mat3 sinew_mat4_upper3(const sinew_mat4 *m);
SINEW_API sinew_mat4 sinew_mat4_from_mat3(const sinew_mat3 *m, sinew_vec3 t);
/* 1 when every element is finite. */
SINEW_API bool sinew_mat4_is_finite(const sinew_mat4 *m);

/* ---- 3x3 ---- */
SINEW_API sinew_mat3 sinew_mat3_identity(void);
SINEW_API sinew_mat3 sinew_mat3_mul(const sinew_mat3 *a, const sinew_mat3 *b);
SINEW_API sinew_mat3 sinew_mat3_transpose(const sinew_mat3 *a);
SINEW_API double     sinew_mat3_det(const sinew_mat3 *a);
/* Cofactor matrix: det(A) * A^-T, defined also for singular A. */
SINEW_API sinew_mat3 sinew_mat3_cofactor(const sinew_mat3 *a);
SINEW_API sinew_vec3 sinew_mat3_mul_v3(const sinew_mat3 *a, sinew_vec3 v);
/* Largest |(A^T A - I)_ij|: how far from orthonormal the matrix is. */
SINEW_API double     sinew_mat3_orthonormality_error(const sinew_mat3 *a);

/* Polar decomposition A = R S, R a proper rotation (det +1), S symmetric.
 * Policy for mirrored input (det A < 0): R stays proper and the reflection goes
 * into S, along the axis of A's smallest singular value (S then has one negative
 * eigenvalue). Singular input (rank < 3) gives a proper R and a singular S.
 * Computed by a Jacobi eigen-decomposition of A^T A (an SVD); never NaN for
 * finite input. Returns SINEW_ERROR_NON_FINITE for NaN/inf input. */
SINEW_API sinew_result sinew_polar_decompose(const sinew_mat3 *a, sinew_mat3 *r, sinew_mat3 *s);

/* ---- quaternions ---- */
SINEW_API sinew_quat sinew_quat_identity(void);
SINEW_API sinew_quat sinew_quat_mul(sinew_quat a, sinew_quat b);                   /* a * b (apply b first) */
SINEW_API sinew_quat sinew_quat_conjugate(sinew_quat q);
SINEW_API sinew_quat sinew_quat_normalize(sinew_quat q);                           /* identity when |q| is 0 */
SINEW_API sinew_quat sinew_quat_from_axis_angle(sinew_vec3 axis, double radians);
/* Rotation matrix -> unit quaternion (Shepperd's method, w >= 0). Input must be a rotation. */
SINEW_API sinew_quat sinew_quat_from_mat3(const sinew_mat3 *r);
SINEW_API sinew_mat3 sinew_quat_to_mat3(sinew_quat q);
SINEW_API sinew_vec3 sinew_quat_rotate(sinew_quat q, sinew_vec3 v);
/* Spherical linear interpolation along the shorter arc. */
SINEW_API sinew_quat sinew_quat_slerp(sinew_quat a, sinew_quat b, double t);

/* ---- unit dual quaternions ---- */
SINEW_API sinew_dualquat sinew_dq_identity(void);
SINEW_API sinew_dualquat sinew_dq_from_rigid(sinew_quat r, sinew_vec3 t);
/* From a rigid 4x4 (rotation part must be orthonormal with det +1). */
SINEW_API sinew_dualquat sinew_dq_from_mat4(const sinew_mat4 *m);
SINEW_API sinew_mat4     sinew_dq_to_mat4(sinew_dualquat dq);                    /* dq must be unit */
SINEW_API sinew_vec3     sinew_dq_translation(sinew_dualquat dq);                 /* 2 * dual * conj(real) */
SINEW_API sinew_dualquat sinew_dq_mul(sinew_dualquat a, sinew_dualquat b);       /* a * b (apply b first) */
SINEW_API sinew_dualquat sinew_dq_conjugate(sinew_dualquat dq);                  /* quaternion conjugate of both parts */
/* Divides by |real| and removes the real-parallel part of dual; identity when |real| is 0. */
SINEW_API sinew_dualquat sinew_dq_normalize(sinew_dualquat dq);
SINEW_API sinew_vec3     sinew_dq_transform_point(sinew_dualquat dq, sinew_vec3 p); /* dq unit */
SINEW_API sinew_vec3     sinew_dq_transform_normal(sinew_dualquat dq, sinew_vec3 n);/* rotation only */

/* ---- octahedral normal encoding (the GPU's rest-normal format) ----
 * Two snorm16 in one uint32 (x in the low half). Decoding is done in float32
 * with exactly these steps, which the shader mirrors (GLSL):
 *   if (p == 0x80008000u) return vec3(0.0);        // the zero-normal code
 *   vec2 f = unpackSnorm2x16(p);                   // clamp(float(q) / 32767.0, -1, 1)
 *   vec3 n = vec3(f.x, f.y, 1.0 - abs(f.x) - abs(f.y));
 *   float t = max(-n.z, 0.0);                      // unfold the lower half
 *   n.x += (n.x >= 0.0) ? -t : t;
 *   n.y += (n.y >= 0.0) ? -t : t;
 *   return n / sqrt(dot(n, n));
 * (The C decode does these float operations in this order; a GPU whose
 * division or sqrt is not correctly rounded may differ by a few ulps.)
 * Encoding projects n onto the octahedron |x|+|y|+|z| = 1, folds z < 0 onto
 * the square, and keeps the one of the 4 surrounding snorm16 grid points whose
 * decode is closest to n (angle error below 5e-5 rad). A zero or non-finite n
 * encodes as 0x80008000 (both halves -32768, never produced otherwise), which
 * decodes to the zero vector. */
SINEW_API uint32_t   sinew_oct_encode(sinew_vec3 n);
SINEW_API sinew_vec3 sinew_oct_decode(uint32_t packed);

#ifdef __cplusplus
}
#endif
#endif
