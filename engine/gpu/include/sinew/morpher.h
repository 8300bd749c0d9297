/* Sinew morph targets on the GPU: sparse blend shapes applied to the rest mesh
 * before skinning, in the skinner's own frame (the rule of sinew/blendshape.h:
 * rest = base + sum w_i delta_i, then any method and bulge correction).
 *
 * How it works: a morph set holds a base mesh's targets, stored by moved
 * vertex (one row per vertex any target moves, with that vertex's deltas of
 * every target). A morph slot is one character's morphed copy of the base mesh
 * (a mesh id of the skinner, joints/weights/bulge copied once). Per frame,
 * sinew_morpher_set_frame takes each morphed character's weights and says which
 * mesh id its sinew_instance must use: the base mesh when every weight is zero
 * (no morph work at all), else its slot's copy, whose moved vertices the morph
 * pass rewrites in the same command buffer, right before the skinning dispatch
 * (sinew_skinner_record and sinew_skinner_submit record it; crowds too).
 * Two passes (sinew_morpher_desc.pass; AUTO picks per frame): ROWS, one
 * invocation per moved vertex reading every stored delta of it (inactive
 * ones x 0); ACTIVE, one invocation per delta of each touched target
 * (non-zero weight now, or deltas still in the copy from the last frame that
 * wrote it), the vertex's first touched target writing it: inactive targets'
 * deltas are not read, cost follows the active ones. Vertices no target moves
 * are never touched. The copies' state assumes every recorded frame is
 * submitted.
 *
 * Per frame: sinew_morpher_set_frame (before or after sinew_skinner_begin_frame)
 * -> sinew_skinner_set_instances with the mesh ids it returned -> record /
 * submit. Crowds: sinew_morpher_set_frame, then sinew_crowd_prepare / update
 * with sinew_crowd_character.meshes set to the returned ids. One morpher per skinner; the skinner must outlive
 * it (sinew_skinner_destroy answers IN_USE while it exists). Each slot takes
 * one skinner mesh (size sinew_skinner_desc.max_meshes and max_rest_vertices for
 * them). Not thread-safe: the skinner's thread. */
#ifndef SINEW_MORPHER_H
#define SINEW_MORPHER_H

#include <sinew/types.h>
#include <sinew/skinner.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_morpher sinew_morpher;
/* A base mesh's targets (sinew_morpher_add_targets). */
typedef struct sinew_morph_set_id { uint32_t value; } sinew_morph_set_id;
/* One character's morphed copy of a set's base mesh (sinew_morpher_add_slot). */
typedef struct sinew_morph_slot_id { uint32_t value; } sinew_morph_slot_id;

/* Defaults of sinew_morpher_desc (used for a zero field). */
#define SINEW_MORPHER_DEFAULT_MAX_SETS 16u
#define SINEW_MORPHER_DEFAULT_MAX_SLOTS 256u
#define SINEW_MORPHER_DEFAULT_MAX_DATA_VEC4 (1u << 20)
#define SINEW_MORPHER_DEFAULT_MAX_WEIGHTS (1u << 16)
#define SINEW_MORPHER_DEFAULT_MAX_LIST_WORDS (1u << 20)

/* How the morph pass walks the deltas (sinew_morpher_desc.pass). */
typedef enum sinew_morph_pass {
    SINEW_MORPH_PASS_AUTO = 0,     /* per frame: on a CPU device LISTS when the frame's lists fit
                                      max_list_words (and < 3/4 of the stored deltas are touched); else (and
                                      on GPUs, where LISTS' host cost outweighs its GPU saving) ACTIVE when
                                      the touched deltas are < 1/12 of the stored ones, else ROWS */
    SINEW_MORPH_PASS_ACTIVE = 1,   /* cost follows the touched targets' deltas (one invocation per delta) */
    SINEW_MORPH_PASS_ROWS = 2,     /* every moved vertex, every stored delta (inactive ones x 0) */
    SINEW_MORPH_PASS_LISTS = 3     /* the host lists the vertices the touched targets move and copies their
                                      non-zero-weight deltas beside them (set_frame: 5 words per vertex + 8
                                      per delta, 12 with tangent deltas); one invocation per listed vertex.
                                      CAPACITY in set_frame beyond max_list_words */
} sinew_morph_pass;

/* Capacities fixed at creation; zero means the default. */
typedef struct sinew_morpher_desc {
    uint32_t max_sets;
    uint32_t max_slots;            /* morphed copies (characters x morphed meshes) */
    uint32_t max_data_vec4;        /* rows + 2.25 per stored delta (3.25 in sets with tangent deltas;
                                      rounded up per set), all sets together */
    uint32_t max_weights;          /* weights of all morphed items of one frame */
    sinew_morph_pass pass;         /* AUTO by default; ACTIVE/ROWS/LISTS force one (benchmarks, tests) */
    uint32_t max_list_words;       /* LISTS: words of one frame's lists, all items (5 per listed vertex +
                                      8 per touched delta of non-zero weight, 12 in sets with tangent deltas;
                                      4 B each, per frame in flight, host-visible) */
} sinew_morpher_desc;

/* One morphed character-mesh this frame. */
typedef struct sinew_morph_item {
    sinew_morph_slot_id slot;
    const float *weights;          /* one per target of the slot's set, any finite value */
    uint32_t weight_count;         /* must equal the set's target count */
} sinew_morph_item;

/* Creates the morph pass of a skinner (pipeline, data buffer, frame ring).
 * IN_USE if the skinner already has a morpher. */
SINEW_API sinew_result sinew_morpher_create(sinew_skinner *sk, const sinew_morpher_desc *desc, sinew_morpher **out);
/* Waits for the skinner's submissions and frees the morpher; NULL is ignored. */
SINEW_API void sinew_morpher_destroy(sinew_morpher *m);
/* Validates (sinew_morph_validate against the base mesh's vertex count; err
 * names the target and entry) and uploads a base mesh's targets (waits).
 * Tangent deltas need a base mesh with tangent frames (INVALID_ARGUMENT). */
SINEW_API sinew_result sinew_morpher_add_targets(sinew_morpher *m, sinew_mesh_id base,
                                                 const sinew_morph_target *targets, uint32_t target_count,
                                                 sinew_morph_set_id *set, sinew_morph_error *err);
/* Bulge correction on morphed copies: the skeleton the set's base mesh is
 * skinned to. From the next set_frame on, the morph pass also rewrites each
 * moved vertex's bulge rest distance from its morphed position (its distance
 * to the bone segment of its joints[0], sinew_skeleton_bone_segment, as
 * sinew_bulge_rest_distances computes it), so bulge correction keeps what a
 * target moves away from the bone instead of pulling it back. Without it the
 * copies keep the base mesh's distances. INVALID_ARGUMENT: the joint count
 * differs from the mesh's, or the base mesh has no bulge distances; NOT_FOUND:
 * unknown set; CAPACITY: 2 data vec4 per joint beyond max_data_vec4. Uploads
 * (waits); once per set (later calls change nothing). */
SINEW_API sinew_result sinew_morpher_set_skeleton(sinew_morpher *m, sinew_morph_set_id set, const sinew_skeleton *skel);
/* Reserves a morphed copy of the set's base mesh (a new skinner mesh; waits). */
SINEW_API sinew_result sinew_morpher_add_slot(sinew_morpher *m, sinew_morph_set_id set, sinew_morph_slot_id *slot);
/* The skinner mesh of a slot's morphed copy (what set_frame returns for it when
 * its weights are not all zero), e.g. for a renderer that keys index buffers by
 * mesh id. NOT_FOUND for an unknown slot. */
SINEW_API sinew_result sinew_morpher_slot_mesh(const sinew_morpher *m, sinew_morph_slot_id slot, sinew_mesh_id *mesh);
/* Targets of a set (0 for an unknown id). */
SINEW_API uint32_t sinew_morpher_target_count(const sinew_morpher *m, sinew_morph_set_id set);
/* Vertices moved by any target of a set, and deltas stored (for cost reports). */
SINEW_API sinew_result sinew_morpher_set_stats(const sinew_morpher *m, sinew_morph_set_id set,
                                               uint32_t *moved_vertices, uint32_t *stored_deltas);
/* This frame's morphed items, before record: inside a begun frame they are
 * that frame's; outside one, the next frame's (the call first waits, bounded
 * like sinew_skinner_begin_frame, until the GPU is done with that ring slot;
 * TIMEOUT then). Validates every item first (NOT_FOUND unknown slot, INVALID_ARGUMENT wrong
 * weight count or a slot named twice, NON_FINITE weights, or weights whose sum of
 * |weight| x the target's largest delta component passes 1e18 (skinned in float32
 * it would overflow; entry = the largest term's target), CAPACITY beyond
 * max_weights, or beyond max_list_words with the LISTS pass forced; err names
 * the item and weight), then writes meshes_out[i]: the
 * mesh id item i's instance must use (the base mesh when all its weights are
 * zero). Replaces any earlier call in the same frame. No allocation. */
SINEW_API sinew_result sinew_morpher_set_frame(sinew_morpher *m, const sinew_morph_item *items, uint32_t count,
                                               sinew_mesh_id *meshes_out, sinew_morph_error *err);
/* Changes the pass choice (sinew_morpher_desc.pass) from the next set_frame
 * on; INVALID_ARGUMENT for an unknown value. */
SINEW_API sinew_result sinew_morpher_set_pass(sinew_morpher *m, sinew_morph_pass pass);
/* Items of the last set_frame that do morph work (non-zero weights). */
SINEW_API uint32_t sinew_morpher_active_items(const sinew_morpher *m);

#ifdef __cplusplus
}
#endif
#endif
