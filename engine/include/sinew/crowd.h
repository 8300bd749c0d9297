/* Sinew crowds: many characters per frame. Poses (local TRS, or clips sampled
 * at a time) are forward-kinematized and turned into palettes on every core by
 * a small thread pool, written straight into the skinner's persistently
 * mapped palette ring, and skinned by ONE compute dispatch for all characters.
 *
 * Per frame (own queue):      sinew_crowd_update()  (= prepare + sinew_skinner_submit)
 * Per frame (caller's queue): sinew_crowd_prepare(); sinew_skinner_record(sk, cmd);
 *                             submit cmd with a fence; sinew_skinner_end_frame(sk, fence)
 * Frames in flight overlap: prepare() for frame N+1 runs while the GPU skins frame N
 * (the skinner's ring has frames_in_flight slots; begin_frame waits only for a slot
 * that is still in use). Nothing here allocates after creation. */
#ifndef SINEW_CROWD_H
#define SINEW_CROWD_H

#include "anim.h"
#include "palette.h"
#include "skinner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- thread pool ------------------------------------------------------- */

typedef struct sinew_thread_pool sinew_thread_pool;

/* A task: `task` in [0, task_count), `worker` in [0, sinew_thread_pool_size()). */
typedef void (*sinew_task_fn)(void *user, uint32_t task, uint32_t worker);

/* Number of online CPU cores (at least 1). */
uint32_t sinew_cpu_count(void);
/* Creates a pool of `threads` workers in total, the calling thread included
 * (threads - 1 pthreads are started once); 0 = sinew_cpu_count(). At most 256. */
sinew_result sinew_thread_pool_create(uint32_t threads, const sinew_allocator *alloc,
                                      sinew_thread_pool **out);
/* Stops and joins the workers and frees the pool; NULL is ignored. */
void sinew_thread_pool_destroy(sinew_thread_pool *pool);
/* Workers in total, the caller included. */
uint32_t sinew_thread_pool_size(const sinew_thread_pool *pool);
/* Runs fn for every task (dealt out dynamically; the caller works too) and
 * returns when all have finished. Calls from several threads are serialized. */
void sinew_thread_pool_run(sinew_thread_pool *pool, uint32_t task_count, sinew_task_fn fn, void *user);

/* ---- crowd ------------------------------------------------------------- */

typedef struct sinew_crowd sinew_crowd;

/* Capacities fixed at creation; zero means the default in brackets. */
typedef struct sinew_crowd_desc {
    sinew_skinner *skinner;          /* NULL = CPU only (sinew_crowd_build_palettes) */
    uint32_t max_characters;         /* per frame [1024] */
    uint32_t max_models;             /* [64] */
    uint32_t max_joints;             /* largest skeleton of any model [256] */
    uint32_t max_instances;          /* characters x meshes per frame [4 * max_characters] */
    uint32_t threads;                /* own pool size, 0 = all cores (ignored with pool) */
    sinew_thread_pool *pool;         /* optional shared pool, must outlive the crowd */
    const sinew_allocator *allocator;
} sinew_crowd_desc;

/* Most skinner meshes one model may have (they share its skeleton and palette). */
#define SINEW_CROWD_MAX_MESHES 16u

/* A model: one skeleton and the skinner meshes skinned to it. */
typedef struct sinew_crowd_model_desc {
    const sinew_skeleton *skeleton;  /* not copied: must outlive the crowd */
    uint32_t mesh_count;             /* 0 .. SINEW_CROWD_MAX_MESHES (0: palettes only) */
    const uint32_t *meshes;          /* skinner mesh ids */
    const uint32_t *vertex_counts;   /* rest vertices of each mesh */
} sinew_crowd_model_desc;

/* Produces a character's local pose (joint_count TRS). Called on pool threads,
 * concurrently for different characters: must be thread-safe. Non-zero return
 * values are sinew_result codes and stop the update. */
typedef sinew_result (*sinew_pose_fn)(void *user, const sinew_skeleton *skel, uint32_t character,
                                      double time, sinew_transform *local_out);

/* One character this frame. */
typedef struct sinew_crowd_character {
    uint32_t model;                  /* id from sinew_crowd_add_model */
    sinew_method method;
    uint32_t flags;                  /* sinew_skin_flags */
    const sinew_mat4 *root;          /* model-to-world placement, NULL = identity */
    /* The pose, first of: pose (local TRS per joint), clip sampled at time,
     * sample(sample_user, ...) at time, the skeleton's rest pose. */
    const sinew_transform *pose;
    const sinew_clip *clip;          /* made for the model's joint count */
    sinew_wrap wrap;                 /* for clip: loop (0) or clamp */
    sinew_pose_fn sample;
    void *sample_user;
    double time;                     /* seconds */
} sinew_crowd_character;

/* What the last prepare/update did. */
typedef struct sinew_crowd_stats {
    double cpu_ms;                   /* wall time: sample + FK + palette + pack, all threads */
    double wait_ms;                  /* time begin_frame waited for a free ring slot */
    uint32_t characters;
    uint32_t instances;              /* characters x meshes */
    uint64_t joints;                 /* palette entries built */
    uint32_t palette_vec4;           /* palette slots written */
    uint32_t output_vertices;        /* skinned vertices this frame */
} sinew_crowd_stats;

/* Creates a crowd (and its pool unless one is given); all scratch memory is
 * allocated here. */
sinew_result sinew_crowd_create(const sinew_crowd_desc *desc, sinew_crowd **out);
/* Frees the crowd (and its own pool); NULL is ignored. */
void sinew_crowd_destroy(sinew_crowd *c);
/* Registers a model. SINEW_ERROR_CAPACITY beyond max_models, SINEW_ERROR_LIMIT_EXCEEDED
 * when its skeleton has more than max_joints joints or too many meshes. */
sinew_result sinew_crowd_add_model(sinew_crowd *c, const sinew_crowd_model_desc *model, uint32_t *model_id);

/* CPU job: builds the palettes of `count` characters into dst (float32 vec4 slots,
 * sinew_palette_pack layout), character after character from slot 0; writes each
 * character's first slot to palette_offsets (may be NULL). Validates everything
 * before running; the result does not depend on the number of threads.
 * On error *bad_character (may be NULL) names the first character at fault. */
sinew_result sinew_crowd_build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                        uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                        uint32_t *palette_offsets, uint32_t *bad_character);

/* GPU frame, step 1: sinew_skinner_begin_frame, palettes built into the mapped
 * ring slot, instances (one per character and mesh, characters in order, output
 * packed back to back from vertex 0) given to sinew_skinner_set_instances.
 * Then record or submit. stats and bad_character may be NULL. */
sinew_result sinew_crowd_prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 sinew_crowd_stats *stats, uint32_t *bad_character);
/* prepare + sinew_skinner_submit (the skinner's own queue; does not wait for the GPU). */
sinew_result sinew_crowd_update(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                sinew_crowd_stats *stats, uint32_t *bad_character);

/* The instances of the last successful prepare (valid until the next one). */
const sinew_instance *sinew_crowd_instances(const sinew_crowd *c, uint32_t *count);
/* Where character i's mesh m (0-based within its model) was written by the last
 * prepare: first output vertex and vertex count. SINEW_ERROR_INVALID_ARGUMENT if out of range. */
sinew_result sinew_crowd_character_output(const sinew_crowd *c, uint32_t character, uint32_t mesh,
                                          uint32_t *first_vertex, uint32_t *vertex_count);
/* Palette slots (vec4) a character of this model needs with this method and flags. */
uint32_t sinew_crowd_palette_vec4(const sinew_crowd *c, uint32_t model, sinew_method method, uint32_t flags);
/* The thread pool in use. */
sinew_thread_pool *sinew_crowd_pool(sinew_crowd *c);

#ifdef __cplusplus
}
#endif
#endif
