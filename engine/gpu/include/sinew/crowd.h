/* Sinew crowds: many characters per frame. Poses (local TRS, or clips sampled
 * at a time) are forward-kinematized and turned into palettes on every core by
 * a small thread pool (or by the host's own job system, see "Jobs" below),
 * written straight into the skinner's persistently mapped palette ring, and
 * skinned by ONE compute dispatch for all characters.
 *
 * Per frame (own queue):      sinew_crowd_update()  (= prepare + sinew_skinner_submit)
 * Per frame (caller's queue): sinew_crowd_prepare(); sinew_skinner_record(sk, cmd);
 *                             submit cmd with a fence; sinew_skinner_end_frame(sk, fence)
 * Per frame (host's jobs):    sinew_crowd_prepare_begin(); sinew_crowd_prepare_run_range()
 *                             on any threads for ranges covering [0, count); sinew_crowd_prepare_end();
 *                             then record or submit as after sinew_crowd_prepare
 * Frames in flight overlap: prepare() for frame N+1 runs while the GPU skins frame N
 * (the skinner's ring has frames_in_flight slots; begin_frame waits only for a slot
 * that is still in use). Nothing here allocates after creation.
 *
 * Errors: every fallible call takes a last `sinew_error_info *err` (sinew/core.h,
 * NULL allowed) naming what was at fault: CHARACTER + index (a character of the
 * array; the skinner's and the morpher's errors about it are forwarded with its
 * index), MODEL + index (add_model), CAPACITY (the message names which:
 * max_characters, max_instances, max_joints, max_morph_weights, range_threads,
 * the skinner's palette slots or output vertices), CALL_ORDER (e.g. prepare
 * again before the frame was recorded and ended, run_range outside a begun
 * frame; returned as SINEW_ERROR_INVALID_ARGUMENT, or IN_USE for a call that
 * found another running), ARGUMENT (a NULL pointer or bad field, named).
 *
 * Threads: a crowd is used by one thread at a time, except
 * sinew_crowd_prepare_run_range, which any threads may call at once for
 * disjoint ranges between prepare_begin and prepare_end. A call that finds
 * another call of the same crowd running (another thread, or a pose callback
 * calling back into its crowd) returns SINEW_ERROR_IN_USE and changes nothing
 * in the crowd (CALL_ORDER instead while a frame begun by prepare_begin is
 * open). The skinner must outlive the crowd: sinew_skinner_destroy refuses
 * (IN_USE) while a crowd made on it exists. Submits: sinew_crowd_update (no
 * wait); prepare waits (bounded) for the ring slot like sinew_skinner_begin_frame. */
#ifndef SINEW_CROWD_H
#define SINEW_CROWD_H

#include <sinew/anim.h>
#include <sinew/morpher.h>
#include <sinew/palette.h>
#include <sinew/skinner.h>
#include <sinew/threadpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- crowd ------------------------------------------------------------- */

typedef struct sinew_crowd sinew_crowd;

/* A model registered with a crowd (sinew_crowd_add_model). */
typedef struct sinew_model_id { uint32_t value; } sinew_model_id;

/* Defaults of sinew_crowd_desc (used for a zero field). */
#define SINEW_CROWD_DEFAULT_MAX_CHARACTERS 1024u
#define SINEW_CROWD_DEFAULT_MAX_MODELS 64u
#define SINEW_CROWD_DEFAULT_MAX_JOINTS 256u
/* max_instances defaults to this many times max_characters. */
#define SINEW_CROWD_DEFAULT_INSTANCES_PER_CHARACTER 4u

/* Capacities fixed at creation; zero means the default (SINEW_CROWD_DEFAULT_*). */
typedef struct sinew_crowd_desc {
    sinew_skinner *skinner;          /* NULL = CPU only (sinew_crowd_build_palettes); must outlive the crowd */
    uint32_t max_characters;         /* per frame */
    uint32_t max_models;
    uint32_t max_joints;             /* largest skeleton of any model */
    uint32_t max_instances;          /* characters x meshes per frame */
    uint32_t threads;                /* own pool size, 0 = all cores (ignored with pool) */
    sinew_thread_pool *pool;         /* optional shared pool, must outlive the crowd */
    const sinew_allocator *allocator;
    /* Morph weights from clips (sinew_crowd_character.morph_slots): the
     * skinner's morpher (INVALID_ARGUMENT if made on another skinner; it must
     * outlive the crowd; NULL: no character may have morph slots), and the most
     * weight slots a character's clip may have (0 = SINEW_CROWD_DEFAULT_MAX_MORPH_WEIGHTS;
     * also the most morph weights of one frame, all characters together). */
    sinew_morpher *morpher;
    uint32_t max_morph_weights;
    /* Most sinew_crowd_prepare_run_range calls running at once (each takes one
     * of this many scratch sets made at creation; one more gets CAPACITY).
     * 0 = the pool's size. */
    uint32_t range_threads;
    /* Animation LOD with interpolation (sinew_crowd_character.lod_interpolate):
     * true allocates two palettes per character here (max_characters x
     * max_joints x 9 vec4 x 2, e.g. 72 MiB at the defaults); false: no
     * character may set it. */
    bool lod_interpolate;
    /* Per-stage CPU times in sinew_crowd_stats (sample_ms .. busy_ms): true
     * reads the clock around each stage of every character (about 8 reads per
     * character, sinew_palette_build_f32_timed); false (default): no clock
     * reads, those fields stay 0. */
    bool stage_timing;
    /* Root motion applied by the crowd (sinew_crowd_character.apply_root_motion):
     * true allocates, per character index, two float64 world transforms and the
     * last time and root motion of up to SINEW_MAX_ANIM_LAYERS layers (about 800
     * bytes); false: no character may set it. */
    bool root_motion;
} sinew_crowd_desc;

#define SINEW_CROWD_DEFAULT_MAX_MORPH_WEIGHTS 65536u

/* Most skinner meshes one model may have (they share its skeleton and palette). */
#define SINEW_CROWD_MAX_MESHES 16u

/* Culling data of one mesh of a model: what sinew_joint_bounds_build made from
 * the mesh's rest vertices for the skeleton's joint count (for boxes of CoR
 * characters, with sinew_joint_bounds_add_centers called on every mesh's data).
 * Not copied: must outlive the crowd. */
typedef struct sinew_crowd_mesh_bounds {
    const sinew_joint_bounds *joints; /* joint_count entries */
    const uint16_t *neighbors;
    /* For characters whose morph_slots morph this mesh: sinew_joint_bounds_morph_deltas
     * of the mesh's targets (the set its slots were made from), morph_target_count x
     * joint_count floats, morph_target_count = the model's sinew_crowd_mesh_morph.target_count.
     * NULL: such characters' boxes are NOT_FOUND. Not copied: must outlive the crowd. */
    const float *morph_deltas;
    uint32_t morph_target_count;
} sinew_crowd_mesh_bounds;

/* Where a mesh's morph targets take their weights from a clip (characters with
 * morph_slots): target t's weight is clip weight slot first_weight + t, sampled
 * at the character's time, minus default_weights[t] (what the rest mesh already
 * includes; NULL: 0); a slot no track animates gives 0 (the rest mesh). With
 * sinew_asset: first_weight = the number of targets of the meshes before it
 * (sinew_asset_morph_targets order), default_weights = its default weights. */
typedef struct sinew_crowd_mesh_morph {
    uint32_t target_count;           /* 0: the mesh has no targets */
    uint32_t first_weight;
    const float *default_weights;    /* target_count values or NULL; not copied: must outlive the crowd */
} sinew_crowd_mesh_morph;

/* A model: one skeleton and the skinner meshes skinned to it. */
typedef struct sinew_crowd_model_desc {
    const sinew_skeleton *skeleton;  /* not copied: must outlive the crowd */
    uint32_t mesh_count;             /* 0 .. SINEW_CROWD_MAX_MESHES (0: palettes only) */
    const sinew_mesh_id *meshes;     /* skinner meshes, uploaded for the skeleton's joint count */
    const uint32_t *vertex_counts;   /* rest vertices of each mesh: must equal the skinner's (NULL with rest_meshes) */
    /* NULL, or one per mesh: then prepare/update compute every skinned
     * character's box (sinew_crowd_character_bounds) on the pool threads. Several
     * meshes' bounds are merged when the model is added (sinew_joint_bounds_merge),
     * so a character takes one box call whatever its mesh count. */
    const sinew_crowd_mesh_bounds *bounds;
    /* NULL, or one per mesh: its morph targets' weights in a clip (see above). */
    const sinew_crowd_mesh_morph *morphs;
    /* NULL, or one per mesh: the rest mesh each skinner mesh was uploaded from
     * (sinew_skinner_add_rest_mesh). Gives the vertex counts and, when bounds is
     * NULL, the culling data (its joint bounds, with the CoR data once its
     * centers exist; no morph growth). Not copied: must outlive the crowd. */
    const sinew_rest_mesh *const *rest_meshes;
} sinew_crowd_model_desc;

/* Produces a character's local pose (joint_count TRS). Called on pool threads,
 * concurrently for different characters: must be thread-safe. Non-zero return
 * values are sinew_result codes and stop the update. */
typedef sinew_result (*sinew_pose_fn)(void *user, const sinew_skeleton *skel, uint32_t character,
                                      double time, sinew_transform *local_out);

/* One character this frame. */
typedef struct sinew_crowd_character {
    sinew_model_id model;            /* from sinew_crowd_add_model */
    sinew_method method;
    uint32_t flags;                  /* sinew_skin_flags */
    const sinew_mat4 *root;          /* model-to-world placement, NULL = identity */
    /* The pose, first of: pose (local TRS per joint), layers (layer_count > 0,
     * below), clip sampled at time, sample(sample_user, ...) at time, the
     * skeleton's rest pose. */
    const sinew_transform *pose;
    const sinew_clip *clip;          /* made for the model's joint count */
    sinew_wrap wrap;                 /* for clip: loop (0) or clamp */
    sinew_pose_fn sample;
    void *sample_user;
    double time;                     /* seconds */
    /* NULL: the model's meshes. Else one skinner mesh per mesh of the model,
     * skinned instead (e.g. morphed copies from sinew_morpher_set_frame): each
     * must have the model mesh's vertex and joint counts (INVALID_ARGUMENT,
     * NOT_FOUND for an unknown id). */
    const sinew_mesh_id *meshes;
    /* NULL, or one morph slot per mesh of the model (sinew_morpher_add_slot on
     * that mesh's morph set; value UINT32_MAX: the mesh is not morphed): each
     * frame the crowd samples the clip's morph-weight tracks at time (float64,
     * wrap; no clip, or a pose given: every weight 0) into the weights of
     * sinew_crowd_mesh_morph, hands them to the crowd's morpher
     * (sinew_morpher_set_frame, one call for all characters not skipped) and
     * skins the meshes it returns. Needs the crowd's morpher and the model's
     * morphs; meshes must then be NULL (INVALID_ARGUMENT); the morpher's errors
     * (wrong target count, unknown slot, a slot named twice) name the character.
     * That set_frame call replaces any the caller made for the frame. */
    const sinew_morph_slot_id *morph_slots;
    /* Skipping what nobody sees. A character is skipped this frame when hidden,
     * or when update_every > 1 and (frame + index) % update_every != 0, with frame
     * the crowd's count of successful prepare/update calls before this one (0
     * first) and index its position in the array. A skipped character costs no
     * palette work and no GPU work, and its output vertices keep what they last
     * held. An update_every character is skinned anyway (not skipped) on a frame
     * where its output range or model differs from the last prepare's at its
     * index (characters inserted or removed before it, the first frame), or with
     * reset_previous (another character now at its index): its range always holds
     * its own vertices. A hidden character whose range moved is not skinned: its
     * range may hold anything and it has no box (NOT_FOUND) until skinned. */
    bool hidden;
    uint32_t update_every;           /* 0 or 1: every frame */
    /* Previous-frame positions (skinner made with keep_previous, see skinner.h):
     * set on the frame a character teleports or is replaced by another at the
     * same index with the same model. The crowd itself resets (previous = this
     * frame's positions, zero motion) a character skinned for the first time at
     * its index: the first frame, an index beyond the last frame's count (added),
     * a model or first output vertex that differs from the last prepare's at that
     * index (characters removed or inserted before it). A reset owed while the
     * character is skipped happens when it is next skinned. Otherwise previous =
     * the positions it had when last skinned (the frame before, unless skipped). */
    bool reset_previous;
    /* Blended clips (anim.h, "Blending": weights, masks, sync, crossfades,
     * additive layers), used instead of clip / sample when layer_count > 0 (a
     * pose still wins); checked like sinew_anim_layers_validate. With
     * morph_slots, the layers' morph weights blend by the same rules
     * (sinew_clip_blend_weights, per mesh, a layer whose clip does not animate a
     * slot adding that mesh's default weight); every layer clip must then have
     * the same weight_count. 0 = none: clip / sample / rest as above. */
    uint32_t layer_count;
    const sinew_anim_layer *layers;
    /* Animation LOD with interpolation (needs sinew_crowd_desc.lod_interpolate,
     * else every call refuses it: INVALID_ARGUMENT; docs/crowds.md): with update_every = N > 1 the
     * character is not skipped but skinned every frame, shown one update
     * interval late. Its pose is evaluated (sample + FK + palette) only on
     * its update frames ((frame + index) % N == 0), into the crowd's store of
     * its last two palettes; every frame it is shown with the palette
     * interpolated between those two at fraction k / N, k = (frame + index) % N
     * (an update frame shows the previous newest, fraction 0): affine rows
     * lerped, dual quaternions hemisphere-aligned, lerped and renormalized.
     * So it moves every frame and its previous positions are right every frame.
     * It is evaluated and shown at once, with nothing to interpolate from (both
     * palettes = this one), on its first frame at its index, when its layout,
     * model, method or flags changed, with reset_previous, after it was hidden,
     * had update_every <= 1, or after a failed prepare. Morph weights
     * (morph_slots) are sampled every frame at time, not delayed.
     * sinew_crowd_build_palettes evaluates such a character at time, as any other. */
    bool lod_interpolate;
    /* Root motion (anim.h, "Root motion"; docs/crowds.md). root_motion: with a
     * clip character (clip decides the pose), that clip's root motion
     * (sinew_root_motion_desc.clip == clip, else INVALID_ARGUMENT; set with a
     * pose, layers or no clip: INVALID_ARGUMENT): the clip plays in place, as
     * a one-layer blend of it with this root_motion. Layered characters play
     * in place by their layers' root_motion. apply_root_motion (needs
     * sinew_crowd_desc.root_motion, else INVALID_ARGUMENT): the crowd keeps a
     * float64 world transform W at this index and places the character at W
     * (root is then only W's start). Each prepare/update moves it by the root
     * motion over the time stepped since the last one at this index, across
     * loops (whole cycles + remainder):
     *   clip: W = W x sinew_mat4_from_transform(sinew_root_motion_delta(root_motion, t_last, time, wrap));
     *   layers: each blend layer (not ADDITIVE) with a root_motion gives its
     *   delta over its own step (SYNC: times x duration); the character's delta
     *   has the translation and the rotation vector (axis x angle) of the
     *   deltas weighted by w = weight x fade (no mask) and divided by
     *   max(sum of w over all blend layers, SINEW_BLEND_REST_THRESHOLD);
     *   a layer is known by its array position: keep a playing layer at its
     *   position (a crossfade: the incoming clip in another position, e.g.
     *   two positions used in turn); a position that held another root motion
     *   (or none) at the last prepare adds nothing that frame, one that held
     *   the same root motion steps from that layer's last time (bring a clip
     *   in at a new time with weight 0, as a fade-in starts, or elsewhere).
     * W starts at root (NULL: identity), with no motion, when the character
     * starts afresh at its index: first frame, new index, model or first output
     * vertex changed (characters inserted or removed before it: give each moved
     * character its world, read before, as root), reset_previous (a teleport:
     * root = the new place), or it did not apply root motion at the last
     * prepare. Hidden and update_every-skipped characters move too. A failed
     * prepare moves nothing. sinew_crowd_character_world reads W,
     * sinew_crowd_set_character_world sets it. With lod_interpolate the W of
     * each evaluation is in its palette (shown one interval late, as the pose).
     * sinew_crowd_build_palettes: the pose in place at root, no world kept. */
    bool apply_root_motion;
    const sinew_root_motion *root_motion;
    /* Bone LOD (sinew_palette_character.joint_lod): 0 = every joint; D > 0 =
     * joints at depth >= D in the hierarchy keep their rest local transform
     * (follow their parent rigidly) and are not sampled. */
    uint32_t joint_lod;
} sinew_crowd_character;

/* What the last prepare/update did. */
typedef struct sinew_crowd_stats {
    double cpu_ms;                   /* wall time: sample + FK + palette + pack, all threads
                                        (jobs: from prepare_begin returning to prepare_end) */
    double wait_ms;                  /* time begin_frame waited for a free ring slot */
    uint32_t characters;
    uint32_t instances;              /* characters x meshes */
    uint64_t joints;                 /* palette entries built */
    uint32_t palette_vec4;           /* palette slots written */
    uint32_t output_vertices;        /* skinned vertices this frame (skipped characters excluded) */
    uint32_t skipped;                /* characters skipped this frame (hidden or update_every) */
    uint32_t interpolated;           /* lod_interpolate characters shown with an interpolated
                                        palette, not evaluated, this frame */
    /* Per-stage CPU time (only with sinew_crowd_desc.stage_timing, else 0; not
     * by prepare_begin): ms summed over every thread that ran characters, so
     * with T threads they may add up to T x cpu_ms. A stage's share of the wall
     * time cpu_ms is cpu_ms x stage / busy_ms. */
    double sample_ms;                /* clip sampling + blending of layers, pose conversion, pose callbacks */
    double fk_ms;                    /* forward kinematics */
    double palette_ms;               /* palette entries (+ LOD interpolation of held characters) */
    double bounds_ms;                /* culling boxes (models with bounds data) */
    double pack_ms;                  /* checked float32 copy into the mapped palette ring (the
                                        upload: the GPU reads it there) + LOD slot copies */
    double busy_ms;                  /* time in the ranges' character loops: >= the stages' sum */
} sinew_crowd_stats;

/* Creates a crowd (and its pool unless one is given); all scratch memory is
 * allocated here. err (may be NULL) names the field at fault. */
SINEW_API sinew_result sinew_crowd_create(const sinew_crowd_desc *desc, sinew_crowd **out, sinew_error_info *err);
/* Frees the crowd (and its own pool); NULL is ignored. Must not run while
 * another thread uses the crowd (not detectable after the memory is gone). */
SINEW_API void sinew_crowd_destroy(sinew_crowd *c);
/* Registers a model, checked against the skinner: every mesh id must exist
 * (NOT_FOUND), have been uploaded for exactly the skeleton's joint count and
 * have the declared vertex count (INVALID_ARGUMENT). SINEW_ERROR_CAPACITY beyond
 * max_models, SINEW_ERROR_LIMIT_EXCEEDED when its skeleton has more than
 * max_joints joints or too many meshes; meshes without a skinner: INVALID_ARGUMENT.
 * err (may be NULL): item MODEL with the id the model would have had, the
 * message naming the mesh and field ("model 3 mesh 1: vertex_counts[1] = 500
 * but the skinner's mesh 7 has 480 vertices"), or CAPACITY (max_models, max_joints). */
SINEW_API sinew_result sinew_crowd_add_model(sinew_crowd *c, const sinew_crowd_model_desc *model, sinew_model_id *model_id,
                                             sinew_error_info *err);

/* Removes a model (hot reload): characters naming it are then refused
 * (NOT_FOUND); its skinner meshes may be removed once no other model uses them
 * (sinew_skinner_remove_mesh). Its id may be handed out again by a later
 * add_model; a character index that last showed it starts with fresh previous
 * positions. NOT_FOUND (unknown or removed), CALL_ORDER inside a frame begun by
 * prepare_begin, IN_USE while another call runs. */
SINEW_API sinew_result sinew_crowd_remove_model(sinew_crowd *c, sinew_model_id model, sinew_error_info *err);

/* CPU job: builds the palettes of `count` characters into dst (float32 vec4 slots,
 * sinew_palette_pack layout), character after character from slot 0; writes each
 * character's first slot to palette_offsets (may be NULL). Validates everything
 * before running; the result does not depend on the number of threads.
 * On error err (may be NULL) names the first (lowest) character at fault (item
 * CHARACTER, index): SINEW_ERROR_NON_FINITE also when a palette value does not
 * fit in float32 (palettes are built by sinew_palette_build_f32), or is beyond
 * min(1e18, 1e37 / (1 + the model's rest extent from its bounds data)) so that
 * skinned positions or normals would overflow (entry = the joint); a pose
 * callback's non-zero result is returned as is (SINEW_ERROR_IN_USE if it
 * called back into this crowd). SINEW_ERROR_IN_USE, with nothing changed in
 * the crowd, while another call of this crowd runs. */
SINEW_API sinew_result sinew_crowd_build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                        uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                        uint32_t *palette_offsets, sinew_error_info *err);

/* GPU frame, step 1: sinew_skinner_begin_frame, palettes built into the mapped
 * ring slot, instances (one per character and mesh, characters in order, output
 * packed back to back from vertex 0) given to sinew_skinner_set_instances.
 * Then record or submit. stats and err may be NULL. The same as prepare_begin,
 * run_range over [0, count) in chunks on the crowd's pool, prepare_end.
 * CALL_ORDER when the skinner's frame is already begun (prepare again before
 * sinew_skinner_record + end_frame, or submit). */
SINEW_API sinew_result sinew_crowd_prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 sinew_crowd_stats *stats, sinew_error_info *err);
/* prepare + sinew_skinner_submit (the skinner's own queue; does not wait for the GPU). */
SINEW_API sinew_result sinew_crowd_update(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                sinew_crowd_stats *stats, sinew_error_info *err);

/* ---- jobs: sinew_crowd_prepare on the host's job system ------------------
 * begin -> run_range for ranges that together cover [0, count) exactly once,
 * from any threads, in any order, concurrently -> end. The result (palettes,
 * instances, boxes, output, errors) is bit-identical to sinew_crowd_prepare's
 * for any split. Rules: begin and end on one thread at a time, end only after
 * every run_range call has returned (the caller's join or job-counter wait
 * orders them); chars must stay valid and unchanged until end returns; pose
 * callbacks run on the thread calling run_range. Between begin and end every
 * other call of the crowd gets CALL_ORDER. CALL_ORDER errors return
 * SINEW_ERROR_INVALID_ARGUMENT with item SINEW_ITEM_CALL_ORDER. No allocation. */

/* Validates every character and does the serial part of prepare (the skinner's
 * begin_frame, palette and output layout, morph weights). On success the
 * frame is open and its work items are the characters [0, count), to be split
 * into ranges at will; stats (may be NULL) gets wait_ms,
 * characters, instances, palette_vec4. On failure nothing is open. CALL_ORDER
 * if a frame begun here is still open. */
SINEW_API sinew_result sinew_crowd_prepare_begin(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                                 sinew_crowd_stats *stats, sinew_error_info *err);
/* Sample, FK, palette, box and pack of characters [first, first + count): callable
 * concurrently from up to sinew_crowd_desc.range_threads threads (one more:
 * CAPACITY) for disjoint ranges. CALL_ORDER outside an open frame, ARGUMENT for
 * a range beyond begin's count or one overlapping another (the frame then fails
 * at end). A failing character stops its range (the rest of the range counts as
 * run) and is reported here; end reports the lowest failing character of all ranges.
 * Needs about 16 KiB of the calling thread's stack (culling boxes, bounds.h). */
SINEW_API sinew_result sinew_crowd_prepare_run_range(sinew_crowd *c, uint32_t first, uint32_t count,
                                                     sinew_error_info *err);
/* Ends the open frame once every range has returned: the morpher's weights,
 * sinew_skinner_set_instances, stats (may be NULL). CALL_ORDER, with the frame
 * left open and nothing changed, while characters have not been run (run the
 * missing ranges, then call end again); any other failure (a character's,
 * overlapping ranges, the skinner's) closes the frame with nothing handed to the GPU. */
SINEW_API sinew_result sinew_crowd_prepare_end(sinew_crowd *c, sinew_crowd_stats *stats, sinew_error_info *err);

/* The instances of the last successful prepare, skipped characters included (valid until the next one);
 * only those of characters not skipped were handed to the skinner. */
SINEW_API const sinew_instance *sinew_crowd_instances(const sinew_crowd *c, uint32_t *count);
/* Where character i's mesh m (0-based within its model) was written by the last
 * prepare: first output vertex and vertex count. SINEW_ERROR_INVALID_ARGUMENT if out of range. */
SINEW_API sinew_result sinew_crowd_character_output(const sinew_crowd *c, uint32_t character, uint32_t mesh,
                                          uint32_t *first_vertex, uint32_t *vertex_count);
/* Conservative world-space box of character i of the last successful prepare
 * (models given bounds data): every vertex of every mesh it was skinned with
 * lies inside [box_min, box_max] (sinew_character_bounds on the float32 palette
 * the GPU read, with the meshes' joint bounds merged; bounds.h). Computed in
 * prepare/update right after the character's palette, on the pool threads. A
 * character skipped this frame (hidden / update_every) keeps the box of its
 * last skinning at that index, like its output. INVALID_ARGUMENT (NULL, i
 * beyond the last prepare's count), NOT_FOUND (model without bounds data, a
 * character skinned with a CoR method on a model whose bounds data has no centers
 * (sinew_joint_bounds_add_centers), a mesh morphed by its morph_slots this frame
 * without morph_deltas in its bounds data or with a growth beyond float32, a mesh
 * given by sinew_crowd_character.meshes other than the model's (its rest
 * positions are unknown to the crowd), or never skinned at that index). Morphed
 * meshes: sinew_character_bounds_morphed with this frame's weights. Not computed
 * by sinew_crowd_build_palettes. */
SINEW_API sinew_result sinew_crowd_character_bounds(const sinew_crowd *c, uint32_t character, float box_min[3],
                                          float box_max[3]);
/* The world transform W of character i (apply_root_motion) after the last
 * successful prepare/update. INVALID_ARGUMENT (NULL, i beyond the last
 * prepare's count), NOT_FOUND (it did not apply root motion). */
SINEW_API sinew_result sinew_crowd_character_world(const sinew_crowd *c, uint32_t character, sinew_mat4 *world);
/* Sets character i's W: the next prepare moves it on from world (previous
 * positions are not reset: for a teleport set reset_previous and root
 * instead). Errors as sinew_crowd_character_world, NON_FINITE (world), CALL_ORDER
 * inside a frame begun by prepare_begin, IN_USE while another call runs. */
SINEW_API sinew_result sinew_crowd_set_character_world(sinew_crowd *c, uint32_t character, const sinew_mat4 *world,
                                                       sinew_error_info *err);
/* Palette slots (vec4) a character of this model needs with this method and flags. */
SINEW_API uint32_t sinew_crowd_palette_vec4(const sinew_crowd *c, sinew_model_id model, sinew_method method, uint32_t flags);
/* The thread pool in use. */
SINEW_API sinew_thread_pool *sinew_crowd_pool(sinew_crowd *c);

#ifdef __cplusplus
}
#endif
#endif
