/* Private float32 data of the production palette path (fastpath.c), built
 * once when skeletons and clips are created and read without checks per frame. */
#ifndef SINEW_FAST_INTERNAL_H
#define SINEW_FAST_INTERNAL_H

#include "sinew/anim.h"

#include <math.h>

/* A local pose in float32: translation, rotation (x,y,z,w), scale; the 4th
 * lanes of t and s are 0. 16-byte aligned. */
typedef struct snw_ftrs {
    float t[4];
    float q[4];
    float s[4];
} snw_ftrs;

/* A 3x4 affine matrix by rows: r[row][col], column 3 the translation (the
 * GPU palette layout of sinew_palette_pack). */
typedef struct snw_faff {
    float r[3][4];
} snw_faff;

/* Determinant of the 3x3 part of a 3x4 matrix (fastpath.c, polar3.c). */
static inline float snw_det3(const float a[3][4])
{
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

/* max |A^T A - I| of the 3x3 part (column dot products, as sinew_mat3_orthonormality_error). */
static inline float snw_ortho_error(const float a[3][4])
{
    float e = 0;
    for (int i = 0; i < 3; i++)
        for (int j = i; j < 3; j++) {
            float d = a[0][i] * a[0][j] + a[1][i] * a[1][j] + a[2][i] * a[2][j] - (i == j ? 1.f : 0.f);
            d = fabsf(d);
            if (!(d <= e)) e = d;
        }
    return e;
}

/* Per joint, derived from the skeleton at creation. */
typedef struct snw_fast_joint {
    snw_faff inv_bind;   /* B_j^-1 */
    snw_faff bind_local; /* L_j */
    snw_faff linv;       /* L_j^-1 = B_j^-1 B_p (B_j^-1 for roots) */
    float c[4];          /* t(B_j), the bind position */
    float head[4];       /* bone segment in bind pose, model space (w = 1) */
    float tail[4];
    snw_ftrs rest;       /* rest pose */
    int32_t parent;
    uint32_t prop;       /* scale_propagates (mixed method) */
    uint32_t skel_rigid; /* (same in every joint) 1 if every bind-local L_j and B_j^-1 is a
                            rotation + translation within 1e-6: the rigid fast case applies */
    uint32_t depth;      /* in the hierarchy (roots 0): bone LOD (sinew_palette_character.joint_lod) */
    float ibq[4];        /* B_j^-1 as a unit quaternion (w >= 0) and translation, when skel_rigid */
    float ibt[4];
} snw_fast_joint;

/* Fills the float32 joint table of a skeleton (called by sinew_skeleton_create). */
void snw_fast_joints_init(const sinew_skeleton *s, snw_fast_joint *out);
/* The table (joint_count entries, 16-byte aligned). */
const snw_fast_joint *snw_skeleton_fast(const sinew_skeleton *s);

/* 1 when every rotation snw_clip_sample_f32 returns for the clip is unit within
 * 1e-6 or so (no CUBICSPLINE rotation track: slerp within Eberly's 5e-7, keys,
 * compressed keys with w rebuilt; NULL, the rest pose, too); 0 otherwise. */
int snw_clip_rotations_unit(const sinew_clip *clip);

/* Samples a clip in float32 into out[0..n) (joints without keys take rest[j]).
 * Arguments are trusted: clip made for n joints, time finite, wrap valid.
 * Key intervals are found in float64 key times (the same interval as the
 * reference sampler, found through a per-track bucket table in O(1)), the
 * blend factor is computed in float64 and the values blended in float32. */
/* The same with a bone LOD cut-off: cut > 0 gives joints of depth >= cut their
 * rest pose without sampling them (cut 0: every joint sampled). */
void snw_clip_sample_f32_cut(const sinew_clip *clip, const snw_fast_joint *joints, uint32_t n, double time_s,
                             sinew_wrap wrap, uint32_t cut, snw_ftrs *out);
void snw_clip_sample_f32(const sinew_clip *clip, const snw_fast_joint *joints, uint32_t n, double time_s,
                         sinew_wrap wrap, snw_ftrs *out);

/* Polar decomposition A = Q P of a 3x3 (rows, column 3 unused) in float32
 * (polar3.c): *skipped = 1 (Q = A, P = I) for a rotation; the float64
 * reference for a mirrored, singular or ill-conditioned one. Returns 0, or 1
 * when a value is not finite. */
int snw_polar_f32(const float a[3][4], float q[3][4], float p[3][4], int *skipped);
/* The same for n matrices a[j] into q[j], p[j] (3x3 parts; column 3 set to
 * 0), j = idx[0..n) (idx NULL: j = 0..n), 16 (AVX) or 8 (SSE) at a time in SIMD; each
 * result depends only on its own matrix. Returns 0, or 1 when a value is not
 * finite (q, p then unspecified). */
int snw_polar_batch(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p);
/* The batch's skip case alone, in scalar code: when the 3x3 of a is a rotation
 * by the batch's test (det > 0, |A^T A - I| <= 2e-6), writes exactly what
 * snw_polar_batch would (q = A, p = I, column 3 = 0) and returns 1; else 0. */
int snw_polar_rotation(const snw_faff *a, snw_faff *q, snw_faff *p);
/* snw_polar_batch with a chosen instruction set: isa 0 SSE (4 lanes), 1 AVX
 * (8 lanes, where the CPU has it; else SSE), -1 the best the CPU has (what
 * snw_polar_batch uses). Every choice gives bit-identical results. */
int snw_polar_batch_isa(const snw_faff *a, const uint32_t *idx, uint32_t n, snw_faff *q, snw_faff *p, int isa);

#endif
