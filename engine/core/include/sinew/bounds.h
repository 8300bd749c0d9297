/* Sinew conservative per-character bounds for culling, computed from the
 * packed palette (the float32 data the GPU reads) and per-joint bind-space
 * bounds of a mesh, without skinning a vertex. CPU only, no allocation.
 *
 * Per joint a (sinew_joint_bounds_build): the sphere (c_a, r_a) around the
 * bind-space vertices it influences; among them the vertices a is the major joint of
 * (the joint of their largest weight), N(a) = their joints (a first; empty when a is
 * no vertex's major joint) and w_a = the smallest of their major weights (0 if none).
 * The neighbour rules below take a = the vertex's major joint, so only such joints add
 * a ball (in 1.0.0, N(a) held every joint sharing any vertex with a: larger, looser).
 * Each such vertex p, skinned, lies within e_a of a point P_a (proofs: README,
 * "Bounds for culling"):
 *  - LBS: P_a = T_a c_a, e_a = ||A_a||_2 r_a (A_a the 3x3 of T_a, its spectral norm
 *    bounded in closed form): a skinned vertex is a convex blend of points T_k p, each
 *    in the ball (T_k c_k, ||A_k||_2 r_k), so inside the union of the balls' boxes;
 *  - DQS: P_a = T_a c_a, e_a = r_a + max_k |T_k c_a - T_a c_a| / w_a (the blend is
 *    equivariant under common translations, and its real part is at least w_a long);
 *  - DQS with scale: stage 1 as LBS with the S_k gives (S_a c_a, e1), then stage 2 as
 *    DQS with the R_k around S_a c_a: P_a = R_a S_a c_a, e_a = e1 + max_k |R_k S_a c_a - R_a S_a c_a| / w_a;
 *  - CoR (needs sinew_joint_bounds_add_centers): with (g_a, q_a) the sphere of the
 *    centers c of those vertices and o_a = max |p - c|, the center moves to
 *    c' = sum w_k T_k c (a convex blend) and p' = R (p - c) + c' with R a rotation,
 *    so P_a = T_a g_a, e_a = max_k |T_k g_a - T_a g_a| + q_a + o_a;
 *  - CoR with scale: stage 1 moves c to c1 = sum w_k S_k c, within e1 (the LBS
 *    rule with the S_k around g_a) of S_a g_a, and p1 - c1 = sum w_k A_k (p - c)
 *    (A_k the 3x3 of S_k); then c' = sum w_k R_k c1, p' = R (p1 - c1) + c':
 *    P_a = R_a S_a g_a, e_a = e1 + max_k |R_k S_a g_a - R_a S_a g_a| + max_k ||A_k||_2 o_a;
 *  - bulge correction moves a vertex toward a point of its major joint's
 *    transformed bone segment: every joint's segment ends are added to the box;
 *    with SINEW_SKIN_BULGE_INNER a vertex may move away from it, but stays within
 *    its target distance d0 |A_a g| of it (reference.h step 4: A_a the 3x3 that
 *    carries joint a's scale, LBS skin or scale methods' S_a, identity for DQS and
 *    CoR), d0 <= R_a = dist(c_a, rest segment) + r_a (the rest segment = the posed one
 *    mapped back by the inverse of joint a's packed transform; d0 as
 *    sinew_bulge_rest_distances computes it) and |A_a g| <= ||A_a||_2: the segment
 *    ends grown by R_a ||A_a||_2 (an infinite box when that transform is singular).
 * The character box is the union of the boxes [P_a - e_a, P_a + e_a], padded by
 * 1e-5 of its size and position for float32 rounding.
 * On CPUs with AVX2 + FMA and up to 256 joints, LBS without bulge and (since issue 21)
 * DQS, CoR and the scale methods without bulge's inner push evaluate these rules in
 * float32 eight joints at a time (LBS: sixteen where the CPU has AVX-512F), each term
 * widened by a bound of its own rounding (bounds.c; docs/methods.md, "Bounds for
 * culling"); otherwise in float64, one joint at a time.
 *
 * Morph targets (blendshape.h: rest p' = p + sum_t w_t delta_t(p), any real w_t):
 * with M_ta = the largest |delta_t| among the vertices joint a influences
 * (sinew_joint_bounds_morph_deltas, once per mesh and target set), every such
 * morphed vertex lies within G_a = sum_t |w_t| M_ta of its rest position
 * (sinew_joint_bounds_morph_growth, per frame), hence within r_a + G_a of c_a.
 * Every rule above holds for the morphed mesh with r_a replaced by r_a + G_a
 * (sinew_character_bounds_morphed): the skinning rules only use that sphere;
 * the bulge's inner push uses d0 <= dist(c_a, rest segment) + r_a + G_a (the
 * morphed vertex's distance when the morpher recomputes d0, sinew_morpher_set_skeleton;
 * the base mesh's, which is smaller, otherwise), so its segment ends grow by
 * (R_a + G_a) ||A_a||_2; and for CoR, whose centers stay
 * the base mesh's, o_a becomes o_a + G_a (g_a, q_a unchanged). */
#ifndef SINEW_BOUNDS_H
#define SINEW_BOUNDS_H

#include <sinew/blendshape.h>
#include <sinew/mesh.h>
#include <sinew/palette.h>

#ifdef __cplusplus
extern "C" {
#endif


/* Builds the joint bounds of a mesh of n vertices, given as v (4 influences) or
 * v8 (8; exactly one non-NULL), for a skeleton of joint_count joints. neighbors
 * receives the N(a) lists (a itself first; empty for a joint that is no vertex's major joint) (at most joint_count x joint_count entries; fewer for
 * real meshes); *neighbor_count the entries used. Not a per-frame call
 * (O(joint_count x n)). Errors: INVALID_ARGUMENT (NULL, both or no vertex
 * arrays), EMPTY (n or joint_count 0), JOINT_INDEX (a joint >= joint_count),
 * INVALID_WEIGHT (a vertex whose weights do not sum to 65535), NON_FINITE (a
 * position), CAPACITY (neighbor_capacity too small; *neighbor_count = an upper bound of the need). */
SINEW_API sinew_result sinew_joint_bounds_build(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                      uint32_t joint_count, sinew_joint_bounds *joints, uint16_t *neighbors,
                                      uint32_t neighbor_capacity, uint32_t *neighbor_count);

/* Adds the CoR data to joint bounds that sinew_joint_bounds_build made from the same
 * vertices (v or v8, n, joint_count): centers = 3 floats per vertex (sinew_cor_compute,
 * what the skinner mesh was given). O(joint_count x n); nothing written on error.
 * Errors: INVALID_ARGUMENT (NULL, both or no vertex arrays, joints not built from
 * these vertices), EMPTY, JOINT_INDEX, INVALID_WEIGHT, NON_FINITE (a position or a center). */
SINEW_API sinew_result sinew_joint_bounds_add_centers(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                                      uint32_t joint_count, const float *centers,
                                                      sinew_joint_bounds *joints);

/* The most meshes sinew_joint_bounds_merge takes in one call. */
#define SINEW_JOINT_BOUNDS_MERGE_MAX 16u

/* One set of joint bounds for mesh_count meshes skinned by the same palette (the joint
 * bounds and N(a) lists of each, from sinew_joint_bounds_build or this call), so one
 * sinew_character_bounds call boxes them all: per joint the sphere around its spheres
 * (and around its CoR spheres, with the largest offset, when every mesh has centers for
 * it), the union of its N(a) lists (a first) and the smallest w_a of the meshes where
 * N(a) is not empty. Conservative (every rule of this header holds for it); a joint that
 * influences vertices of several meshes gets a larger sphere, so the box may be looser.
 * Morphed meshes: the growth of joint a is the largest growth of a over the meshes.
 * out and out_neighbors must not overlap the inputs. Not a per-frame call. Errors:
 * INVALID_ARGUMENT (NULL), EMPTY, LIMIT_EXCEEDED (more than
 * SINEW_MAX_JOINTS joints or SINEW_JOINT_BOUNDS_MERGE_MAX meshes), NON_FINITE (a sphere or
 * weight out of range), JOINT_INDEX (a neighbour >= joint_count), CAPACITY (as
 * sinew_joint_bounds_build). */
SINEW_API sinew_result sinew_joint_bounds_merge(const sinew_joint_bounds *const *joints, const uint16_t *const *neighbors,
                                                uint32_t mesh_count, uint32_t joint_count, sinew_joint_bounds *out,
                                                uint16_t *out_neighbors, uint32_t neighbor_capacity,
                                                uint32_t *neighbor_count);

/* Conservative axis-aligned box of a character skinned with method/flags and
 * the packed palette (sinew_palette_pack layout, joint_count entries): every
 * skinned vertex of the mesh lies inside [box_min, box_max]. Errors:
 * INVALID_ARGUMENT (NULL, bad method or flags), NOT_FOUND (a CoR method on joint
 * bounds without centers: sinew_joint_bounds_add_centers), EMPTY (no joint
 * influences a vertex), NON_FINITE (the palette holds a non-finite value).
 * Allocates nothing; uses about 13 KiB of stack (per-joint terms of up to 128
 * joints; larger skeletons compute them per neighbour, slower). */
SINEW_API sinew_result sinew_character_bounds(const sinew_joint_bounds *joints, const uint16_t *neighbors,
                                    uint32_t joint_count, sinew_method method, uint32_t flags,
                                    const float *packed_palette, float box_min[3], float box_max[3]);

/* Morph growth data of a mesh (bounds.h, "Morph targets"): for each of target_count
 * targets t and joint a, max_delta[t * joint_count + a] = the largest length of
 * t's position deltas among the vertices a influences (0 if none), rounded up.
 * Same vertices as sinew_joint_bounds_build. Not a per-frame call (O(joint_count x
 * target_count + deltas x influences)). Errors: INVALID_ARGUMENT (NULL, both or no
 * vertex arrays, targets refused by sinew_morph_validate), EMPTY, JOINT_INDEX,
 * INVALID_WEIGHT, NON_FINITE (a position or delta), LIMIT_EXCEEDED. */
SINEW_API sinew_result sinew_joint_bounds_morph_deltas(const sinew_vertex *v, const sinew_vertex8 *v8, uint32_t n,
                                                       uint32_t joint_count, const sinew_morph_target *targets,
                                                       uint32_t target_count, float *max_delta);

/* Per frame: growth[a] = sum_t |weights[t]| max_delta[t * joint_count + a] (rounded
 * up; targets of weight 0 are not read), joint_count floats. No allocation. Errors:
 * INVALID_ARGUMENT (NULL), NON_FINITE (a weight, or a growth beyond float32). */
SINEW_API sinew_result sinew_joint_bounds_morph_growth(const float *max_delta, uint32_t joint_count,
                                                       uint32_t target_count, const float *weights, float *growth);

/* sinew_character_bounds of the mesh morphed with the weights growth was made
 * from (sinew_joint_bounds_morph_growth; NULL: not morphed, the same as
 * sinew_character_bounds). Errors as sinew_character_bounds, and NON_FINITE /
 * INVALID_ARGUMENT for a non-finite / negative growth. */
SINEW_API sinew_result sinew_character_bounds_morphed(const sinew_joint_bounds *joints, const uint16_t *neighbors,
                                                      uint32_t joint_count, sinew_method method, uint32_t flags,
                                                      const float *packed_palette, const float *growth,
                                                      float box_min[3], float box_max[3]);

#ifdef __cplusplus
}
#endif
#endif
