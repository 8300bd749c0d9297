/* Crowd update: validate every character, lay out palettes and outputs
 * (serial prefix sums), then sample + FK + palette + pack per range of
 * characters (on the crowd's thread pool, or the host's jobs through
 * prepare_begin / run_range / prepare_end) with the float32 production path
 * (sinew_palette_build_f32), straight into the skinner's mapped ring slot,
 * and hand the instance list to the skinner. All memory is allocated at
 * creation. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/linalg.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/palette_job.h>
#include <sinew/crowd.h>
#include <sinew/palette_job.h>
#include "vk_internal.h"     /* snw_skinner_attach / detach */
#include "sinew_layout.h"    /* shaders/: SINEW_PAL_* (LOD interpolation) */
#include "alloc_internal.h"
#include "error_internal.h"

#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>
#include <time.h>

typedef struct crowd_model {
    const sinew_skeleton *skeleton;
    uint32_t joint_count;
    uint32_t mesh_count;
    sinew_mesh_id meshes[SINEW_CROWD_MAX_MESHES];
    uint32_t vertex_counts[SINEW_CROWD_MAX_MESHES];
    sinew_crowd_mesh_bounds bounds[SINEW_CROWD_MAX_MESHES];
    int has_bounds;
    int has_cor_bounds; /* every mesh's bounds hold centers (sinew_joint_bounds_add_centers) */
    sinew_crowd_mesh_morph morphs[SINEW_CROWD_MAX_MESHES];
    int has_morphs;
    int live;           /* 0: removed (sinew_crowd_remove_model); the id may be handed out again */
    double extent;      /* largest |coordinate| + radius of the rest vertices (and centers) in the bounds data */
    /* mesh_count > 1 with bounds: the meshes' joint bounds merged (sinew_joint_bounds_merge), so
     * a character takes one box call, not one per mesh; NULL otherwise */
    sinew_joint_bounds *merged;
    uint16_t *merged_nb;
    double value_limit; /* sinew_palette_character.value_limit: products with the vertices stay in float32 */
} crowd_model;

/* A palette value times a coordinate (three terms and a translation) stays
 * below ~1e37, and a product of two values (the normals' cofactors) below 1e36:
 * |value| <= min(1e18, 1e37 / (1 + extent)). */
static double crowd_value_limit(double extent)
{
    double l = 1e37 / (1.0 + extent);
    return l < 1e18 ? l : 1e18;
}

typedef struct crowd_scratch {          /* one per worker */
    sinew_transform *local;             /* max_joints: a pose callback's output */
    void *fast;                         /* sinew_palette_scratch_bytes(max_joints), 16-aligned */
    float *growth;                      /* 2 x max_joints: a morphed mesh's per-joint bounds growth, and
                                         * the largest over the meshes (merged bounds) */
    size_t fast_bytes;
    float *pal;                         /* a palette in cached memory for its box (see crowd_character) */
    void *pal_block;                    /* the allocation pal lies in (4 bytes past a 16-byte boundary) */
    /* sinew_crowd_desc.stage_timing: ns of the frame's stages on this scratch's
     * threads (sample, FK, palette, pack: sinew_palette_build_f32_timed's order;
     * then bounds, busy), zeroed by prepare_begin, summed by prepare_end */
    double stage_ns[6];
} crowd_scratch;

/* What failed for a character in a range (crowd.char_stage). */
enum { STAGE_POSE = 1, STAGE_PALETTE = 2, STAGE_BOUNDS = 3 };
/* crowd.phase: no frame, one begun by prepare_begin (the host's jobs), one begun by prepare. */
enum { PHASE_NONE = 0, PHASE_JOBS = 1, PHASE_POOL = 2 };

struct sinew_crowd {
    sinew_allocator alloc;              /* resolved */
    int busy;                           /* a call is running (atomic): others get IN_USE */
    sinew_skinner *skinner;             /* attached while the crowd exists */
    sinew_thread_pool *pool;
    int own_pool;
    uint32_t max_characters, max_models, max_joints, max_instances;
    crowd_model *models;
    uint32_t model_count;
    crowd_scratch *scratch;             /* max(pool size, range_threads) */
    uint32_t scratch_count;
    int *scratch_busy;                  /* scratch_count: taken by a run_range call (atomic) */
    uint32_t *palette_offsets;          /* max_characters */
    uint32_t *first_instance;           /* max_characters + 1 */
    sinew_instance *instances;          /* max_instances */
    sinew_instance *skinned;            /* max_instances: this frame's instances of characters not skipped */
    uint64_t frame;                     /* successful prepare/update calls (update_every) */
    uint32_t *instance_vertices;        /* max_instances: vertex count of each */
    uint32_t instance_count;            /* of the last successful prepare */
    uint32_t character_count;
    /* Previous-position bookkeeping (keep_previous), per character index, as of
     * the last successful prepare: model, first output vertex, reset owed. */
    uint32_t *last_model, *last_output;
    uint8_t *reset_owed;
    /* Per character of the frame being prepared: skinned although update_every would
     * skip it, because its output range or model changed (insertions or removals
     * before it) or it owes a reset: a skipped character's output must still be
     * its own (prepare_begin). */
    uint8_t *forced;
    /* Animation LOD with interpolation (sinew_crowd_desc.lod_interpolate; NULL
     * without): two palettes per character index (lod_pal, LOD_SLOT floats each,
     * 4 bytes past 16-byte alignment so they are written with cached stores),
     * which of them is the newest, whether they are valid and what they were
     * built for (model, method, flags), all as of the last successful prepare;
     * the frame's mode per character (LOD_*) and its newest slot after it. */
    float *lod_pal;
    void *lod_block;
    size_t lod_slot;                    /* floats per palette: max_joints x 8 vec4 */
    uint8_t *lod_valid, *lod_newest, *lod_mode, *lod_next;
    uint32_t *lod_model, *lod_method, *lod_flags;
    uint32_t last_count;                /* characters of the last successful prepare */
    /* Character boxes (models with bounds data): box_new written by the jobs of
     * a prepare, copied to box (box_valid) when it succeeds; 6 floats each. */
    float *box, *box_new;
    uint8_t *box_valid, *box_new_ok;    /* box_new_ok: the job computed box_new */
    /* Morph weights from clips (sinew_crowd_desc.morpher): a clip's sampled
     * weights, the frame's item weights, items, the meshes the morpher returns,
     * and each item's instance and character. */
    sinew_morpher *morpher;
    uint32_t max_morph_weights;
    double *mw_sample;
    float *mw;
    sinew_morph_item *m_items;
    sinew_mesh_id *m_meshes;
    uint32_t *m_inst, *m_char;
    uint32_t *m_wofs;                   /* max_instances: offset of an instance's weights in mw, or UINT32_MAX */
    uint32_t m_count;                   /* items gathered for this frame */
    int m_any;                          /* a character has morph slots */

    /* the job being run */
    const sinew_crowd_character *job_chars;
    uint32_t job_count, job_chunk;
    float *job_dst;
    int job_skip;                       /* honour hidden / update_every (prepare; not build_palettes) */
    /* The ranges of the job (atomics): characters claimed per index (a range
     * overlapping another finds one taken), characters whose range returned,
     * the lowest failing character and the first overlap; what failed for a
     * failing character (written by the one range that claimed it). */
    int phase;                          /* PHASE_* (atomic) */
    uint8_t *claimed;                   /* max_characters */
    uint32_t done;
    uint32_t err_first;
    uint32_t overlap;                   /* UINT32_MAX: none */
    sinew_result *char_result;          /* max_characters */
    uint8_t *char_stage;                /* max_characters */
    uint32_t *char_joint;               /* max_characters: the joint whose palette value was refused (UINT32_MAX: none) */
    /* the open frame (prepare_begin -> prepare_end) */
    uint64_t job_slots;
    uint32_t job_ninst;
    double job_wait_ms, job_t_begun;
    int stage_timing;                   /* sinew_crowd_desc.stage_timing */
    /* Root motion applied by the crowd (sinew_crowd_desc.root_motion; NULL
     * without), per character index as of the last successful prepare: the
     * world transform, the last sample time and root motion of each layer
     * position (RM_SLOTS each; a clip character uses position 0), whether it
     * applied root motion; the *_new copies are written by the jobs and swapped
     * in by prepare_end. rm_fresh: the frame's characters starting afresh. */
    sinew_mat4 *rm_world, *rm_world_new;
    double *rm_time, *rm_time_new;
    const sinew_root_motion **rm_src, **rm_src_new;
    uint8_t *rm_valid, *rm_valid_new, *rm_fresh;
};

#define RM_SLOTS SINEW_MAX_ANIM_LAYERS

/* Marks the crowd busy; 0 if another call holds it (the caller returns IN_USE). */
static int crowd_enter(sinew_crowd *c)
{
    return __atomic_exchange_n(&c->busy, 1, __ATOMIC_ACQUIRE) == 0;
}

static void crowd_leave(sinew_crowd *c)
{
    __atomic_store_n(&c->busy, 0, __ATOMIC_RELEASE);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Stage timing (sinew_crowd_desc.stage_timing): the same clock as the fast
 * path's sinew_palette_build_f32_timed. */
static inline uint64_t stage_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sinew_crowd_destroy(sinew_crowd *c)
{
    if (!c) return;
    const sinew_allocator *a = &c->alloc;
    for (uint32_t k = 0; c->models && k < c->model_count; k++) {
        for (uint32_t i = 0; c->models[k].live && i < c->models[k].mesh_count; i++)
            snw_skinner_mesh_ref(c->skinner, c->models[k].meshes[i].value, -1);
        snw_free(a, c->models[k].merged);
        snw_free(a, c->models[k].merged_nb);
    }
    if (c->scratch) {
        for (uint32_t i = 0; i < c->scratch_count; i++) {
            snw_free(a, c->scratch[i].local);
            snw_free(a, c->scratch[i].fast);
            snw_free(a, c->scratch[i].pal_block);
            snw_free(a, c->scratch[i].growth);
        }
    }
    snw_free(a, c->scratch);
    snw_free(a, c->scratch_busy);
    snw_free(a, c->claimed);
    snw_free(a, c->char_result);
    snw_free(a, c->char_stage);
    snw_free(a, c->char_joint);
    snw_free(a, c->models);
    snw_free(a, c->palette_offsets);
    snw_free(a, c->first_instance);
    snw_free(a, c->instances);
    snw_free(a, c->skinned);
    snw_free(a, c->instance_vertices);
    snw_free(a, c->last_model);
    snw_free(a, c->last_output);
    snw_free(a, c->reset_owed);
    snw_free(a, c->forced);
    snw_free(a, c->lod_block);
    snw_free(a, c->lod_valid);
    snw_free(a, c->lod_newest);
    snw_free(a, c->lod_mode);
    snw_free(a, c->lod_next);
    snw_free(a, c->lod_model);
    snw_free(a, c->lod_method);
    snw_free(a, c->lod_flags);
    snw_free(a, c->box);
    snw_free(a, c->box_new);
    snw_free(a, c->box_valid);
    snw_free(a, c->box_new_ok);
    snw_free(a, c->mw_sample);
    snw_free(a, c->mw);
    snw_free(a, c->m_items);
    snw_free(a, c->m_meshes);
    snw_free(a, c->m_inst);
    snw_free(a, c->m_char);
    snw_free(a, c->m_wofs);
    snw_free(a, c->rm_world);
    snw_free(a, c->rm_world_new);
    snw_free(a, c->rm_time);
    snw_free(a, c->rm_time_new);
    snw_free(a, (void *)c->rm_src);
    snw_free(a, (void *)c->rm_src_new);
    snw_free(a, c->rm_valid);
    snw_free(a, c->rm_valid_new);
    snw_free(a, c->rm_fresh);
    if (c->own_pool) sinew_thread_pool_destroy(c->pool);
    if (c->skinner) snw_skinner_detach(c->skinner);
    sinew_allocator copy = c->alloc;
    snw_free(&copy, c);
}

#define OOM(what) snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of host memory (%s)", what)

sinew_result sinew_crowd_create(const sinew_crowd_desc *desc, sinew_crowd **out, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!desc || !out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL", !desc ? "desc" : "out");
    *out = NULL;
    sinew_allocator alloc;
    if (snw_allocator_resolve(desc->allocator, &alloc) != SINEW_OK)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.allocator: exactly one of alloc and free is NULL");
    uint32_t max_chars = desc->max_characters ? desc->max_characters : SINEW_CROWD_DEFAULT_MAX_CHARACTERS;
    uint32_t max_models = desc->max_models ? desc->max_models : SINEW_CROWD_DEFAULT_MAX_MODELS;
    uint32_t max_joints = desc->max_joints ? desc->max_joints : SINEW_CROWD_DEFAULT_MAX_JOINTS;
    if (max_joints > SINEW_MAX_JOINTS)
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_joints = %u exceeds SINEW_MAX_JOINTS (%u)", max_joints, (unsigned)SINEW_MAX_JOINTS);
    if (max_chars > (1u << 24))
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_characters = %u exceeds 2^24", max_chars);
    if (max_models > (1u << 20))
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_models = %u exceeds 2^20", max_models);
    uint64_t mi = desc->max_instances ? desc->max_instances
                                      : (uint64_t)max_chars * SINEW_CROWD_DEFAULT_INSTANCES_PER_CHARACTER;
    if (mi > (1u << 26))
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_instances = %llu exceeds 2^26", (unsigned long long)mi);
    uint32_t mmw = desc->max_morph_weights ? desc->max_morph_weights : SINEW_CROWD_DEFAULT_MAX_MORPH_WEIGHTS;
    if (desc->morpher && (!desc->skinner || snw_morpher_skinner(desc->morpher) != desc->skinner))
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.morpher was made on another skinner than desc.skinner%s", desc->skinner ? "" : " (NULL)");
    if (mmw > SINEW_MAX_CLIP_WEIGHTS)
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.max_morph_weights = %u exceeds SINEW_MAX_CLIP_WEIGHTS (%u)", mmw, (unsigned)SINEW_MAX_CLIP_WEIGHTS);
    if (desc->range_threads > SINEW_THREAD_POOL_MAX_THREADS)
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "desc.range_threads = %u exceeds SINEW_THREAD_POOL_MAX_THREADS (%u)", desc->range_threads,
                        (unsigned)SINEW_THREAD_POOL_MAX_THREADS);

    sinew_crowd *c = (sinew_crowd *)snw_calloc(&alloc, 1, sizeof *c);
    if (!c) return OOM("the crowd");
    c->alloc = alloc;
    const sinew_allocator *a = &c->alloc;
    c->max_characters = max_chars;
    c->max_models = max_models;
    c->max_joints = max_joints;
    c->max_instances = (uint32_t)mi;
    c->morpher = desc->morpher;
    c->max_morph_weights = mmw;
    c->stage_timing = desc->stage_timing;

    sinew_result r = SINEW_OK;
    if (desc->pool) {
        c->pool = desc->pool;
    } else {
        sinew_thread_pool_desc pd = { desc->threads, a };
        r = sinew_thread_pool_create(&pd, &c->pool);
        if (r != SINEW_OK) {
            snw_free(a, c);
            return snw_fail(err, r, r == SINEW_ERROR_INVALID_ARGUMENT ? SINEW_ITEM_ARGUMENT : SINEW_ITEM_NONE, UINT32_MAX,
                            "creating the crowd's thread pool (desc.threads = %u): %s", desc->threads, sinew_result_string(r));
        }
        c->own_pool = 1;
    }
    /* From here on sinew_crowd_destroy undoes everything, the attach included. */
    c->skinner = desc->skinner;
    if (c->skinner) snw_skinner_attach(c->skinner);
    c->scratch_count = sinew_thread_pool_size(c->pool);
    if (desc->range_threads > c->scratch_count) c->scratch_count = desc->range_threads;
    c->models = (crowd_model *)snw_calloc(a, max_models, sizeof(crowd_model));
    c->palette_offsets = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->first_instance = (uint32_t *)snw_calloc(a, (size_t)max_chars + 1, sizeof(uint32_t));
    c->instances = (sinew_instance *)snw_calloc(a, c->max_instances, sizeof(sinew_instance));
    c->skinned = (sinew_instance *)snw_calloc(a, c->max_instances, sizeof(sinew_instance));
    c->instance_vertices = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
    c->scratch = (crowd_scratch *)snw_calloc(a, c->scratch_count, sizeof(crowd_scratch));
    c->scratch_busy = (int *)snw_calloc(a, c->scratch_count, sizeof(int));
    c->claimed = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->char_result = (sinew_result *)snw_calloc(a, max_chars, sizeof(sinew_result));
    c->char_stage = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->char_joint = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->last_model = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->last_output = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->reset_owed = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->forced = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->box = (float *)snw_calloc(a, (size_t)max_chars * 6u, sizeof(float));
    c->box_new = (float *)snw_calloc(a, (size_t)max_chars * 6u, sizeof(float));
    c->box_valid = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->box_new_ok = (uint8_t *)snw_calloc(a, max_chars, 1);
    if (desc->lod_interpolate) { /* two palettes of the largest stride per character */
        c->lod_slot = (size_t)max_joints * SINEW_PAL_MAX_STRIDE * 4u;
        c->lod_block = snw_calloc(a, 1, sizeof(float) * 2u * c->lod_slot * max_chars + 16u);
        c->lod_pal = c->lod_block ? (float *)((char *)c->lod_block + 4) : NULL;
        c->lod_valid = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->lod_newest = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->lod_mode = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->lod_next = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->lod_model = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
        c->lod_method = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
        c->lod_flags = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
        if (!c->lod_block || !c->lod_valid || !c->lod_newest || !c->lod_mode || !c->lod_next || !c->lod_model ||
            !c->lod_method || !c->lod_flags) {
            sinew_crowd_destroy(c);
            return OOM("LOD interpolation palettes (sinew_crowd_desc.lod_interpolate)");
        }
    }
    if (desc->root_motion) {
        c->rm_world = (sinew_mat4 *)snw_calloc(a, max_chars, sizeof(sinew_mat4));
        c->rm_world_new = (sinew_mat4 *)snw_calloc(a, max_chars, sizeof(sinew_mat4));
        c->rm_time = (double *)snw_calloc(a, (size_t)max_chars * RM_SLOTS, sizeof(double));
        c->rm_time_new = (double *)snw_calloc(a, (size_t)max_chars * RM_SLOTS, sizeof(double));
        c->rm_src = (const sinew_root_motion **)snw_calloc(a, (size_t)max_chars * RM_SLOTS, sizeof(void *));
        c->rm_src_new = (const sinew_root_motion **)snw_calloc(a, (size_t)max_chars * RM_SLOTS, sizeof(void *));
        c->rm_valid = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->rm_valid_new = (uint8_t *)snw_calloc(a, max_chars, 1);
        c->rm_fresh = (uint8_t *)snw_calloc(a, max_chars, 1);
        if (!c->rm_world || !c->rm_world_new || !c->rm_time || !c->rm_time_new || !c->rm_src || !c->rm_src_new ||
            !c->rm_valid || !c->rm_valid_new || !c->rm_fresh) {
            sinew_crowd_destroy(c);
            return OOM("root motion state (sinew_crowd_desc.root_motion)");
        }
    }
    if (c->morpher) {
        /* the sampled weights; for layered characters also a mesh's defaults and
         * sinew_clip_blend_weights' scratch (2 x) */
        c->mw_sample = (double *)snw_calloc(a, 4u * (size_t)c->max_morph_weights, sizeof(double));
        c->mw = (float *)snw_calloc(a, c->max_morph_weights, sizeof(float));
        c->m_items = (sinew_morph_item *)snw_calloc(a, c->max_instances, sizeof(sinew_morph_item));
        c->m_meshes = (sinew_mesh_id *)snw_calloc(a, c->max_instances, sizeof(sinew_mesh_id));
        c->m_inst = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        c->m_char = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        c->m_wofs = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        if (!c->mw_sample || !c->mw || !c->m_items || !c->m_meshes || !c->m_inst || !c->m_char || !c->m_wofs) {
            sinew_crowd_destroy(c);
            return OOM("morph weight arrays");
        }
    }
    if (!c->models || !c->palette_offsets || !c->first_instance || !c->instances || !c->skinned ||
        !c->instance_vertices || !c->scratch || !c->scratch_busy || !c->claimed || !c->char_result ||
        !c->char_stage || !c->char_joint || !c->last_model || !c->last_output || !c->reset_owed || !c->forced || !c->box || !c->box_new ||
        !c->box_valid || !c->box_new_ok) {
        sinew_crowd_destroy(c);
        return OOM("per-character and per-instance arrays");
    }
    for (uint32_t i = 0; i < c->scratch_count; i++) {
        crowd_scratch *s = &c->scratch[i];
        s->local = (sinew_transform *)snw_calloc(a, max_joints, sizeof(sinew_transform));
        s->fast_bytes = sinew_palette_scratch_bytes(max_joints);
        s->fast = snw_calloc(a, 1, s->fast_bytes); /* snw_alloc blocks are 16-byte aligned or more */
        s->growth = (float *)snw_calloc(a, 2u * (size_t)max_joints, sizeof(float));
        /* the largest palette per joint: SINEW_PAL_MAX_STRIDE vec4 (scale methods with bulge); 4 bytes
         * past 16-byte alignment, so sinew_palette_build_f32 writes it with plain
         * (cached) stores rather than streaming ones */
        s->pal_block = snw_calloc(a, 1, sizeof(float) * 4u * SINEW_PAL_MAX_STRIDE * (size_t)max_joints + 16u);
        s->pal = s->pal_block ? (float *)((char *)s->pal_block + 4) : NULL;
        if (!s->local || !s->fast || !s->growth || !s->pal_block) {
            sinew_crowd_destroy(c);
            return OOM("thread scratch");
        }
    }
    *out = c;
    return SINEW_OK;
}

#define MFAIL(r, ...) snw_fail(err, r, SINEW_ITEM_MODEL, id, __VA_ARGS__)

static sinew_result add_model(sinew_crowd *c, const sinew_crowd_model_desc *md, sinew_model_id *model_id,
                              sinew_error_info *err)
{
    uint32_t id = c->model_count; /* the id it would get: the lowest removed one, else the next */
    for (uint32_t k = 0; k < c->model_count; k++)
        if (!c->models[k].live) {
            id = k;
            break;
        }
    if (md->mesh_count > SINEW_CROWD_MAX_MESHES)
        return MFAIL(SINEW_ERROR_LIMIT_EXCEEDED, "model %u: mesh_count = %u exceeds SINEW_CROWD_MAX_MESHES (%u)", id,
                     md->mesh_count, (unsigned)SINEW_CROWD_MAX_MESHES);
    /* Rest meshes give the vertex counts and, without bounds, the culling data. */
    sinew_crowd_model_desc mr = *md;
    uint32_t rm_counts[SINEW_CROWD_MAX_MESHES];
    sinew_crowd_mesh_bounds rm_bounds[SINEW_CROWD_MAX_MESHES];
    if (md->rest_meshes && md->mesh_count) {
        for (uint32_t i = 0; i < md->mesh_count; i++) {
            const sinew_rest_mesh *rm = md->rest_meshes[i];
            if (!rm) return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u mesh %u: rest_meshes[%u] is NULL", id, i, i);
            if (sinew_rest_mesh_joint_count(rm) != sinew_skeleton_joint_count(md->skeleton))
                return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u mesh %u: rest_meshes[%u] was made for %u joints, the skeleton has %u",
                             id, i, i, sinew_rest_mesh_joint_count(rm), sinew_skeleton_joint_count(md->skeleton));
            if (md->vertex_counts && md->vertex_counts[i] != sinew_rest_mesh_vertex_count(rm))
                return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u mesh %u: vertex_counts[%u] = %u but rest_meshes[%u] has %u vertices",
                             id, i, i, md->vertex_counts[i], i, sinew_rest_mesh_vertex_count(rm));
            rm_counts[i] = sinew_rest_mesh_vertex_count(rm);
            memset(&rm_bounds[i], 0, sizeof rm_bounds[i]);
            rm_bounds[i].joints = sinew_rest_mesh_joint_bounds(rm, &rm_bounds[i].neighbors);
        }
        mr.vertex_counts = rm_counts;
        if (!md->bounds) mr.bounds = rm_bounds;
    }
    const sinew_crowd_model_desc *m = &mr;
    if (m->mesh_count > 0 && (!m->meshes || !m->vertex_counts))
        return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u: %s is NULL with mesh_count = %u", id,
                     !m->meshes ? "meshes" : "vertex_counts", m->mesh_count);
    uint32_t joints = sinew_skeleton_joint_count(m->skeleton);
    if (joints == 0) return MFAIL(SINEW_ERROR_EMPTY, "model %u: the skeleton has no joints", id);
    if (joints > c->max_joints)
        return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CAPACITY, UINT32_MAX,
                        "model %u: the skeleton has %u joints, more than max_joints (%u)", id, joints, c->max_joints);
    for (uint32_t i = 0; i < m->mesh_count; i++)
        if (m->vertex_counts[i] == 0) return MFAIL(SINEW_ERROR_EMPTY, "model %u mesh %u: vertex_counts[%u] = 0", id, i, i);
    if (m->mesh_count > 0 && !c->skinner)
        return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u: %u meshes but the crowd has no skinner (sinew_crowd_desc.skinner)",
                     id, m->mesh_count);
    if (m->bounds) {
        if (m->mesh_count == 0) return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u: bounds given without meshes", id);
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const sinew_crowd_mesh_bounds *b = &m->bounds[i];
            if (!b->joints || !b->neighbors)
                return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u mesh %u: bounds[%u].%s is NULL", id, i, i,
                             !b->joints ? "joints" : "neighbors");
            /* morph growth data: for the mesh's targets as the model's morphs declare them */
            if (b->morph_deltas && (!m->morphs || m->morphs[i].target_count != b->morph_target_count))
                return MFAIL(SINEW_ERROR_INVALID_ARGUMENT,
                             "model %u mesh %u: bounds[%u].morph_target_count = %u but the model's morphs declare %u targets",
                             id, i, i, b->morph_target_count, m->morphs ? m->morphs[i].target_count : 0u);
        }
    }
    if (m->morphs) {
        if (m->mesh_count == 0) return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u: morphs given without meshes", id);
        if (!c->morpher)
            return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u: morphs given but the crowd has no morpher (sinew_crowd_desc.morpher)", id);
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const sinew_crowd_mesh_morph *mm = &m->morphs[i];
            if (mm->target_count > SINEW_MORPH_MAX_TARGETS)
                return MFAIL(SINEW_ERROR_LIMIT_EXCEEDED, "model %u mesh %u: morphs[%u].target_count = %u exceeds SINEW_MORPH_MAX_TARGETS (%u)",
                             id, i, i, mm->target_count, (unsigned)SINEW_MORPH_MAX_TARGETS);
            if ((uint64_t)mm->first_weight + mm->target_count > c->max_morph_weights)
                return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CAPACITY, UINT32_MAX,
                                "model %u mesh %u: weights %u..%u beyond max_morph_weights (%u)", id, i, mm->first_weight,
                                mm->first_weight + mm->target_count, c->max_morph_weights);
            for (uint32_t t = 0; mm->default_weights && t < mm->target_count; t++)
                if (!isfinite(mm->default_weights[t]) || fabsf(mm->default_weights[t]) > 1e6f)
                    return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MODEL, id, t,
                                          "model %u mesh %u: morphs[%u].default_weights[%u] = %g is not finite or beyond 1e6",
                                          id, i, i, t, (double)mm->default_weights[t]);
        }
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        uint32_t have = sinew_skinner_mesh_vertex_count(c->skinner, m->meshes[i]);
        if (have == 0) /* the skinner refuses empty meshes */
            return MFAIL(SINEW_ERROR_NOT_FOUND, "model %u mesh %u: meshes[%u] = %u is not a mesh of the skinner", id, i, i,
                         m->meshes[i].value);
        uint32_t mj = sinew_skinner_mesh_joint_count(c->skinner, m->meshes[i]);
        if (mj != joints)
            return MFAIL(SINEW_ERROR_INVALID_ARGUMENT,
                         "model %u mesh %u: the skinner's mesh %u was uploaded for %u joints, the skeleton has %u", id, i,
                         m->meshes[i].value, mj, joints);
        if (m->vertex_counts[i] != have)
            return MFAIL(SINEW_ERROR_INVALID_ARGUMENT, "model %u mesh %u: vertex_counts[%u] = %u but the skinner's mesh %u has %u vertices",
                         id, i, i, m->vertex_counts[i], m->meshes[i].value, have);
    }
    if (id >= c->max_models)
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_models (%u) reached", c->max_models);
    /* several meshes with bounds: one merged set, so each character takes one box call */
    sinew_joint_bounds *merged = NULL;
    uint16_t *merged_nb = NULL;
    if (m->bounds && m->mesh_count > 1) {
        const sinew_joint_bounds *mj[SINEW_CROWD_MAX_MESHES];
        const uint16_t *mn[SINEW_CROWD_MAX_MESHES];
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            mj[i] = m->bounds[i].joints;
            mn[i] = m->bounds[i].neighbors;
        }
        uint32_t cap = joints * joints, used = 0;
        merged = (sinew_joint_bounds *)snw_calloc(&c->alloc, joints, sizeof(sinew_joint_bounds));
        merged_nb = (uint16_t *)snw_calloc(&c->alloc, cap, sizeof(uint16_t));
        sinew_result mr2 = merged && merged_nb ? sinew_joint_bounds_merge(mj, mn, m->mesh_count, joints, merged, merged_nb, cap, &used)
                                               : SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (mr2 != SINEW_OK) {
            snw_free(&c->alloc, merged);
            snw_free(&c->alloc, merged_nb);
            if (mr2 == SINEW_ERROR_OUT_OF_HOST_MEMORY) return OOM("the model's merged joint bounds");
            return MFAIL(mr2, "model %u: its meshes' joint bounds do not merge (sinew_joint_bounds_merge: %s)", id,
                         sinew_result_string(mr2));
        }
    }
    crowd_model *cm = &c->models[id];
    memset(cm, 0, sizeof *cm);
    cm->merged = merged;
    cm->merged_nb = merged_nb;
    cm->live = 1;
    cm->skeleton = m->skeleton;
    cm->joint_count = joints;
    cm->mesh_count = m->mesh_count;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        cm->meshes[i] = m->meshes[i];
        cm->vertex_counts[i] = m->vertex_counts[i];
        if (m->bounds) cm->bounds[i] = m->bounds[i];
        if (m->morphs) cm->morphs[i] = m->morphs[i];
    }
    cm->has_bounds = m->bounds != NULL;
    cm->has_cor_bounds = cm->has_bounds;
    for (uint32_t i = 0; cm->has_bounds && i < m->mesh_count; i++)
        for (uint32_t a = 0; a < joints; a++)
            if (!m->bounds[i].joints[a].has_centers) cm->has_cor_bounds = 0;
    cm->has_morphs = m->morphs != NULL;
    /* the rest extent: every bounded vertex lies within radius of its joint's center */
    for (uint32_t i = 0; cm->has_bounds && i < m->mesh_count; i++)
        for (uint32_t a = 0; a < joints; a++) {
            const sinew_joint_bounds *jb = &m->bounds[i].joints[a];
            if (!(jb->radius >= 0)) continue;
            for (int e = 0; e < 3; e++) {
                double x = fabs((double)jb->center[e]) + jb->radius;
                if (jb->has_centers) {
                    double y = fabs((double)jb->cor_center[e]) + jb->cor_radius;
                    if (y > x) x = y;
                }
                if (x > cm->extent) cm->extent = x;
            }
        }
    cm->value_limit = crowd_value_limit(cm->extent);
    for (uint32_t i = 0; i < m->mesh_count; i++) snw_skinner_mesh_ref(c->skinner, m->meshes[i].value, +1);
    if (model_id) model_id->value = id;
    if (id == c->model_count) c->model_count++;
    return SINEW_OK;
}

/* IN_USE (another call runs) or, while a frame begun by prepare_begin is open, CALL_ORDER. */
static sinew_result crowd_busy(const sinew_crowd *c, const char *call, sinew_error_info *err)
{
    if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == PHASE_JOBS)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                        "%s: a frame begun by sinew_crowd_prepare_begin is open (finish it with sinew_crowd_prepare_end)", call);
    return snw_fail(err, SINEW_ERROR_IN_USE, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                    "%s: another call of this crowd is running (another thread, or a pose callback calling back into its crowd)",
                    call);
}

sinew_result sinew_crowd_add_model(sinew_crowd *c, const sinew_crowd_model_desc *m, sinew_model_id *model_id,
                                   sinew_error_info *err)
{
    snw_error_clear(err);
    if (!c || !m || !m->skeleton)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL",
                        !c ? "crowd" : !m ? "model" : "model->skeleton");
    if (!crowd_enter(c)) return crowd_busy(c, "sinew_crowd_add_model", err);
    sinew_result r = add_model(c, m, model_id, err);
    crowd_leave(c);
    return r;
}

sinew_result sinew_crowd_remove_model(sinew_crowd *c, sinew_model_id model, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!c) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "crowd is NULL");
    if (!crowd_enter(c)) return crowd_busy(c, "sinew_crowd_remove_model", err);
    sinew_result r = SINEW_OK;
    if (model.value >= c->model_count || !c->models[model.value].live) {
        r = snw_fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MODEL, model.value, "model %u %s", model.value,
                     model.value < c->model_count ? "was already removed" : "is not registered");
    } else {
        crowd_model *cm = &c->models[model.value];
        for (uint32_t i = 0; i < cm->mesh_count; i++) snw_skinner_mesh_ref(c->skinner, cm->meshes[i].value, -1);
        snw_free(&c->alloc, cm->merged);
        snw_free(&c->alloc, cm->merged_nb);
        cm->merged = NULL;
        cm->merged_nb = NULL;
        cm->live = 0;
        /* A later model with this id at the same character index starts with fresh previous positions. */
        for (uint32_t i = 0; i < c->last_count; i++)
            if (c->last_model[i] == model.value) c->last_model[i] = UINT32_MAX;
    }
    crowd_leave(c);
    return r;
}

uint32_t sinew_crowd_palette_vec4(const sinew_crowd *c, sinew_model_id model, sinew_method method, uint32_t flags)
{
    if (!c || model.value >= c->model_count || !c->models[model.value].live || (unsigned)method >= SINEW_METHOD_COUNT)
        return 0;
    return c->models[model.value].joint_count * sinew_palette_gpu_stride(method, flags);
}

sinew_thread_pool *sinew_crowd_pool(sinew_crowd *c) { return c ? c->pool : NULL; }

static int mat4_finite(const sinew_mat4 *m)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (!isfinite(m->m[i][j])) return 0;
    return 1;
}

#define CFAIL(r, i, ...) snw_fail(err, r, SINEW_ITEM_CHARACTER, i, __VA_ARGS__)

/* Serial validation and layout: palette offsets (and, when with_instances,
 * the instance list). Returns the total palette slots through *total_vec4. */
static sinew_result crowd_layout(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 int with_instances, uint64_t *total_vec4, uint64_t *total_vertices, uint32_t *ninst,
                                 sinew_error_info *err)
{
    uint64_t slots = 0, verts = 0;
    uint32_t inst = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        if (ch->model.value >= c->model_count || !c->models[ch->model.value].live)
            return CFAIL(SINEW_ERROR_NOT_FOUND, i, "character %u: model %u %s", i, ch->model.value,
                         ch->model.value < c->model_count ? "was removed" : "is not registered");
        if ((unsigned)ch->method >= SINEW_METHOD_COUNT)
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: method = %d is not a sinew_method", i, (int)ch->method);
        if (ch->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL)
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: flags = 0x%x has unknown bits", i, ch->flags);
        if ((ch->flags & SINEW_SKIN_BULGE_INNER) && !(ch->flags & SINEW_SKIN_BULGE_CORRECTION))
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: flags: SINEW_SKIN_BULGE_INNER without SINEW_SKIN_BULGE_CORRECTION", i);
        if (!isfinite(ch->time)) return CFAIL(SINEW_ERROR_NON_FINITE, i, "character %u: time is not finite", i);
        if (ch->lod_interpolate && !c->lod_pal)
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: lod_interpolate set but the crowd was made without "
                         "sinew_crowd_desc.lod_interpolate", i);
        if (ch->root && !mat4_finite(ch->root)) return CFAIL(SINEW_ERROR_NON_FINITE, i, "character %u: root is not finite", i);
        if (ch->apply_root_motion && !c->rm_world)
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: apply_root_motion set but the crowd was made without "
                         "sinew_crowd_desc.root_motion", i);
        if (ch->root_motion && (ch->pose || ch->layer_count || !ch->clip))
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: root_motion set but its pose is not a clip's (%s)", i,
                         ch->pose ? "pose given" : ch->layer_count ? "layers given: set each layer's root_motion" : "no clip");
        if (ch->root_motion && sinew_root_motion_clip(ch->root_motion) != ch->clip)
            return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: root_motion was extracted from another clip", i);
        const crowd_model *m = &c->models[ch->model.value];
        const int layered = !ch->pose && ch->layer_count;
        uint32_t layer_wc = 0;
        if (layered) {
            sinew_result lr = sinew_anim_layers_validate(ch->layers, ch->layer_count, m->joint_count);
            if (lr != SINEW_OK)
                return CFAIL(lr, i, "character %u: its %u layers: %s (layer_count <= %u, layers present, clips of %u joints, "
                             "known flags and wraps, finite times, weights >= 0, masks in [0, 1])", i, ch->layer_count,
                             sinew_result_string(lr), SINEW_MAX_ANIM_LAYERS, m->joint_count);
            int have = 0;
            for (uint32_t k = 0; k < ch->layer_count; k++) {
                const sinew_clip *lc = ch->layers[k].clip;
                if (!lc) continue;
                if (have && ch->morph_slots && sinew_clip_weight_count(lc) != layer_wc)
                    return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: layer %u's clip has %u weight slots, "
                                 "an earlier layer's %u (morph_slots need one count)", i, k, sinew_clip_weight_count(lc),
                                 layer_wc);
                layer_wc = sinew_clip_weight_count(lc);
                have = 1;
            }
        } else if (!ch->pose && ch->clip) {
            if (sinew_clip_joint_count(ch->clip) != m->joint_count)
                return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: its clip has %u joints, model %u's skeleton %u", i,
                             sinew_clip_joint_count(ch->clip), ch->model.value, m->joint_count);
            if ((unsigned)ch->wrap > SINEW_WRAP_CLAMP)
                return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: wrap = %d is not a sinew_wrap", i, (int)ch->wrap);
        }
        if (ch->morph_slots) { /* clip-driven morphs: slots of the model's morphed meshes */
            if (!c->morpher)
                return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: morph_slots given but the crowd has no morpher", i);
            if (!m->has_morphs)
                return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: morph_slots given but model %u has no morphs", i,
                             ch->model.value);
            if (ch->meshes)
                return CFAIL(SINEW_ERROR_INVALID_ARGUMENT, i, "character %u: morph_slots and meshes are both set", i);
            uint32_t wc = layered ? layer_wc : !ch->pose && ch->clip ? sinew_clip_weight_count(ch->clip) : 0;
            if (wc > c->max_morph_weights)
                return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CHARACTER, i,
                                "character %u: its clip has %u weight slots, more than max_morph_weights (%u)", i, wc,
                                c->max_morph_weights);
            for (uint32_t k = 0; k < m->mesh_count; k++) {
                if (ch->morph_slots[k].value == UINT32_MAX) continue;
                sinew_mesh_id copy;
                sinew_result mr = sinew_morpher_slot_mesh(c->morpher, ch->morph_slots[k], &copy);
                if (mr != SINEW_OK)
                    return snw_fail_entry(err, mr, SINEW_ITEM_CHARACTER, i, k, "character %u mesh %u: morph_slots[%u] = %u: %s", i, k,
                                          k, ch->morph_slots[k].value, sinew_result_string(mr));
                if (m->morphs[k].target_count == 0)
                    return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, i, k,
                                          "character %u mesh %u: a morph slot for a mesh model %u declares no targets for", i,
                                          k, ch->model.value);
                if (sinew_skinner_mesh_vertex_count(c->skinner, copy) != m->vertex_counts[k])
                    return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, i, k,
                                          "character %u mesh %u: morph slot %u is of a mesh with %u vertices, model %u's has %u",
                                          i, k, ch->morph_slots[k].value, sinew_skinner_mesh_vertex_count(c->skinner, copy),
                                          ch->model.value, m->vertex_counts[k]);
                if (wc && m->morphs[k].first_weight + m->morphs[k].target_count > wc)
                    return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, i, k,
                                          "character %u mesh %u: weights %u..%u beyond its clip's %u weight slots", i, k,
                                          m->morphs[k].first_weight, m->morphs[k].first_weight + m->morphs[k].target_count, wc);
            }
        }
        c->palette_offsets[i] = (uint32_t)slots;
        slots += (uint64_t)m->joint_count * sinew_palette_gpu_stride(ch->method, ch->flags);
        if (slots > UINT32_MAX)
            return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CHARACTER, i,
                            "character %u: palette slots beyond 2^32 - 1 up to it", i);
        if (with_instances) {
            c->first_instance[i] = inst;
            if (inst + m->mesh_count > c->max_instances)
                return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                                "max_instances (%u): character %u's %u meshes bring the frame to %u instances", c->max_instances,
                                i, m->mesh_count, inst + m->mesh_count);
            for (uint32_t k = 0; k < m->mesh_count; k++) {
                sinew_instance *in = &c->instances[inst++];
                in->mesh = m->meshes[k];
                if (ch->meshes) { /* override (morphed copies): same counts as the model's mesh */
                    uint32_t vc = sinew_skinner_mesh_vertex_count(c->skinner, ch->meshes[k]);
                    if (vc == 0)
                        return snw_fail_entry(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CHARACTER, i, k,
                                              "character %u mesh %u: meshes[%u] = %u is not a mesh of the skinner", i, k, k,
                                              ch->meshes[k].value);
                    uint32_t jc = sinew_skinner_mesh_joint_count(c->skinner, ch->meshes[k]);
                    if (vc != m->vertex_counts[k] || jc != m->joint_count)
                        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, i, k,
                                              "character %u mesh %u: meshes[%u] = %u has %u vertices and %u joints, model %u's "
                                              "mesh %u vertices and %u joints",
                                              i, k, k, ch->meshes[k].value, vc, jc, ch->model.value, m->vertex_counts[k],
                                              m->joint_count);
                    in->mesh = ch->meshes[k];
                }
                if (ch->flags & SINEW_SKIN_BULGE_CORRECTION) { /* the skinner would refuse the frame */
                    snw_mesh_layout ml;
                    if (snw_skinner_mesh_layout(c->skinner, in->mesh.value, &ml) == SINEW_OK && !ml.has_bulge)
                        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, i, k,
                                              "character %u mesh %u: bulge correction needs bulge rest distances, the "
                                              "skinner's mesh %u has none (sinew_skinner_mesh_desc.bulge_rest)",
                                              i, k, in->mesh.value);
                }
                in->method = ch->method;
                in->flags = ch->flags;
                in->palette_offset = c->palette_offsets[i];
                in->output_offset = (uint32_t)verts;
                in->reset_previous = false;
                c->instance_vertices[inst - 1] = m->vertex_counts[k];
                verts += m->vertex_counts[k];
                if (verts > UINT32_MAX)
                    return snw_fail(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CHARACTER, i,
                                    "character %u: output vertices beyond 2^32 - 1 up to it", i);
            }
        }
    }
    if (with_instances) c->first_instance[count] = inst;
    *total_vec4 = slots;
    *total_vertices = verts;
    *ninst = inst;
    return SINEW_OK;
}

/* Skipped this frame (sinew_crowd_character.hidden / update_every; an
 * lod_interpolate character is skinned every frame). */
static int crowd_skipped(const sinew_crowd *c, const sinew_crowd_character *ch, uint32_t index)
{
    return ch->hidden || (!c->forced[index] && ch->update_every > 1 && !(ch->lod_interpolate && c->lod_pal) &&
                          (c->frame + index) % ch->update_every != 0);
}

/* lod_mode: the character is not interpolated (evaluated or skipped as
 * without LOD); evaluated into both slots (nothing to interpolate from: the
 * first frame, a changed layout, model, method or flags, a reset); evaluated
 * into the older slot (an update frame: it is shown with fraction 0, i.e. the
 * previous newest palette); interpolated between the two slots. */
enum { LOD_NONE = 0, LOD_FRESH = 1, LOD_UPDATE = 2, LOD_HOLD = 3 };

/* The fraction of an interpolated frame: k / update_every. */
static float lod_fraction(const sinew_crowd *c, const sinew_crowd_character *ch, uint32_t i)
{
    return (float)((c->frame + i) % ch->update_every) / (float)ch->update_every;
}

/* The palette between a and b at fraction t (sinew_crowd_character.lod_interpolate):
 * affine rows (LBS, the scale methods' S) lerped; the dual quaternion (all but
 * LBS) with b's sign aligned to a's real part, lerped, divided by the real
 * part's length and its dual part made orthogonal to the real part (the
 * translation 2 (d conj r) is unchanged by that, the kernel's formula);
 * bulge: the posed segment lerped, the rest segment (the same in both up to
 * rounding) taken from b. */
#if defined(__SSE2__)
/* a.b in every lane */
static inline __m128 lod_dot4(__m128 a, __m128 b)
{
    __m128 m = _mm_mul_ps(a, b);
    __m128 s = _mm_add_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}
#endif

static void lod_lerp(const float *a, const float *b, float t, sinew_method method, uint32_t flags, uint32_t joints,
                     float *out)
{
    const unsigned m = (unsigned)method;
    const uint32_t stride = sinew_palette_gpu_stride(method, flags);
    const float u = 1.0f - t;
#if defined(__SSE2__)
    const __m128 vu = _mm_set1_ps(u), vt = _mm_set1_ps(t), vnt = _mm_set1_ps(-t), zero = _mm_setzero_ps();
    const __m128 one = _mm_set1_ps(1.0f);
#endif
    for (uint32_t j = 0; j < joints; j++) {
        const float *pa = a + (size_t)j * stride * 4u, *pb = b + (size_t)j * stride * 4u;
        float *o = out + (size_t)j * stride * 4u;
#if defined(__SSE2__)
        if (m != SINEW_K_DQS && m != SINEW_K_COR) /* LBS rows, or S rows */
            for (unsigned k = 0; k < SINEW_PAL_AFFINE_ROWS; k++) {
                unsigned q = 4u * (SINEW_PAL_OFF_AFFINE + k);
                _mm_storeu_ps(o + q, _mm_add_ps(_mm_mul_ps(vu, _mm_loadu_ps(pa + q)), _mm_mul_ps(vt, _mm_loadu_ps(pb + q))));
            }
        if (m != SINEW_K_LBS) {
            const unsigned q = 4u * SINEW_PAL_OFF_DQ(m);
            __m128 ra = _mm_loadu_ps(pa + q), da = _mm_loadu_ps(pa + q + 4u);
            __m128 rb = _mm_loadu_ps(pb + q), db = _mm_loadu_ps(pb + q + 4u);
            __m128 neg = _mm_cmplt_ps(lod_dot4(ra, rb), zero);
            __m128 tb = _mm_or_ps(_mm_and_ps(neg, vnt), _mm_andnot_ps(neg, vt));
            __m128 r = _mm_add_ps(_mm_mul_ps(vu, ra), _mm_mul_ps(tb, rb));
            __m128 d = _mm_add_ps(_mm_mul_ps(vu, da), _mm_mul_ps(tb, db));
            /* |r|^2 >= 1/2 for unit a, b with a.b >= 0 */
            __m128 il = _mm_div_ps(one, _mm_sqrt_ps(lod_dot4(r, r)));
            r = _mm_mul_ps(r, il);
            d = _mm_mul_ps(d, il);
            d = _mm_sub_ps(d, _mm_mul_ps(lod_dot4(r, d), r));
            _mm_storeu_ps(o + q, r);
            _mm_storeu_ps(o + q + 4u, d);
        }
#else
        if (m != SINEW_K_DQS && m != SINEW_K_COR) /* LBS rows, or S rows */
            for (unsigned k = 0; k < 4u * SINEW_PAL_AFFINE_ROWS; k++)
                o[4u * SINEW_PAL_OFF_AFFINE + k] = u * pa[4u * SINEW_PAL_OFF_AFFINE + k] + t * pb[4u * SINEW_PAL_OFF_AFFINE + k];
        if (m != SINEW_K_LBS) {
            const float *ra = pa + 4u * SINEW_PAL_OFF_DQ(m), *rb = pb + 4u * SINEW_PAL_OFF_DQ(m);
            float *ro = o + 4u * SINEW_PAL_OFF_DQ(m);
            float dot = ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2] + ra[3] * rb[3];
            float tb = dot < 0.0f ? -t : t;
            float r[4], d[4];
            for (int k = 0; k < 4; k++) {
                r[k] = u * ra[k] + tb * rb[k];
                d[k] = u * ra[4 + k] + tb * rb[4 + k];
            }
            /* |r|^2 >= 1/2 for unit a, b with a.b >= 0 */
            float il = 1.0f / sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
            for (int k = 0; k < 4; k++) {
                r[k] *= il;
                d[k] *= il;
            }
            float rd = r[0] * d[0] + r[1] * d[1] + r[2] * d[2] + r[3] * d[3];
            for (int k = 0; k < 4; k++) {
                ro[k] = r[k];
                ro[4 + k] = d[k] - rd * r[k];
            }
        }
#endif
        if (flags & SINEW_K_FLAG_BULGE) {
            const float *ba = pa + 4u * SINEW_PAL_OFF_BULGE(m), *bb = pb + 4u * SINEW_PAL_OFF_BULGE(m);
            float *bo = o + 4u * SINEW_PAL_OFF_BULGE(m);
            for (unsigned s = 0; s < 2u; s++) {
                for (unsigned k = 0; k < 3u; k++) bo[4u * s + k] = u * ba[4u * s + k] + t * bb[4u * s + k];
                bo[4u * s + 3u] = bb[4u * s + 3u];
            }
            for (unsigned k = 8u; k < 12u; k++) bo[k] = bb[k];
        }
    }
}

/* First output vertex of character i in this frame's layout (0 without meshes). */
static uint32_t crowd_first_output(const sinew_crowd *c, uint32_t i)
{
    return c->first_instance[i] < c->first_instance[i + 1] ? c->instances[c->first_instance[i]].output_offset : 0u;
}

/* Character i's output range no longer holds its own last skinning: a reset was
 * asked or is owed, the index is new, or its model or first output vertex
 * differs from the last prepare's at that index (this frame's layout). */
static bool crowd_changed(const sinew_crowd *c, const sinew_crowd_character *ch, uint32_t i)
{
    return ch->reset_previous || i >= c->last_count || c->reset_owed[i] || c->last_model[i] != ch->model.value ||
           c->last_output[i] != crowd_first_output(c, i);
}

/* Clip-driven morph weights of the characters not skipped (serial, inside the
 * begun frame, before the palettes so that the jobs can grow the boxes of
 * morphed meshes): the items of this frame's sinew_morpher_set_frame call, and
 * each instance's weights (m_wofs). */
static sinew_result crowd_morph_gather(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                       sinew_error_info *err)
{
    uint32_t n = 0, wused = 0;
    c->m_count = 0;
    c->m_any = 0;
    for (uint32_t k = 0; k < c->first_instance[count]; k++) c->m_wofs[k] = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        if (!ch->morph_slots) continue;
        c->m_any = 1;
        if (crowd_skipped(c, ch, i)) continue;
        const crowd_model *m = &c->models[ch->model.value];
        const int layered = !ch->pose && ch->layer_count;
        const sinew_clip *clip = !ch->pose && !layered ? ch->clip : NULL;
        uint32_t wc = clip ? sinew_clip_weight_count(clip) : 0;
        if (layered)
            for (uint32_t k = 0; k < ch->layer_count; k++)
                if (ch->layers[k].clip) wc = sinew_clip_weight_count(ch->layers[k].clip);
        if (wc && !layered) {
            sinew_result r = sinew_clip_sample_weights(clip, ch->time, ch->wrap, NULL, wc, c->mw_sample);
            if (r != SINEW_OK)
                return CFAIL(r, i, "character %u: sampling its clip's morph weights: %s", i, sinew_result_string(r));
        }
        for (uint32_t k = 0; k < m->mesh_count; k++) {
            if (ch->morph_slots[k].value == UINT32_MAX) continue;
            const sinew_crowd_mesh_morph *mm = &m->morphs[k];
            if ((uint64_t)wused + mm->target_count > c->max_morph_weights)
                return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                                "max_morph_weights (%u): character %u mesh %u brings the frame's morph weights to %llu",
                                c->max_morph_weights, i, k, (unsigned long long)wused + mm->target_count);
            float *w = c->mw + wused;
            if (wc && layered) { /* blended per mesh: a layer whose clip leaves a slot unanimated adds its default */
                double *def = c->mw_sample + c->max_morph_weights;
                for (uint32_t s2 = 0; s2 < wc; s2++) def[s2] = 0.0;
                for (uint32_t t = 0; t < mm->target_count && mm->first_weight + t < wc; t++)
                    def[mm->first_weight + t] = mm->default_weights ? (double)mm->default_weights[t] : 0.0;
                sinew_result r = sinew_clip_blend_weights(ch->layers, ch->layer_count, def, wc,
                                                          c->mw_sample + 2u * (size_t)c->max_morph_weights, c->mw_sample);
                if (r != SINEW_OK)
                    return snw_fail_entry(err, r, SINEW_ITEM_CHARACTER, i, k,
                                          "character %u mesh %u: blending its layers' morph weights: %s", i, k,
                                          sinew_result_string(r));
            }
            for (uint32_t t = 0; t < mm->target_count; t++) {
                uint32_t slot = mm->first_weight + t;
                double d = mm->default_weights ? (double)mm->default_weights[t] : 0.0;
                int animated = 0;
                if (!wc) animated = 0;
                else if (!layered) animated = sinew_clip_animates_weight(clip, slot);
                else
                    for (uint32_t l = 0; l < ch->layer_count && !animated; l++)
                        animated = ch->layers[l].clip && sinew_clip_animates_weight(ch->layers[l].clip, slot);
                w[t] = animated ? (float)(c->mw_sample[slot] - d) : 0.0f;
            }
            c->m_items[n].slot = ch->morph_slots[k];
            c->m_items[n].weights = w;
            c->m_items[n].weight_count = mm->target_count;
            c->m_inst[n] = c->first_instance[i] + k;
            c->m_char[n] = i;
            c->m_wofs[c->first_instance[i] + k] = wused;
            wused += mm->target_count;
            n++;
        }
    }
    c->m_count = n;
    return SINEW_OK;
}

/* The gathered items to the morpher (one sinew_morpher_set_frame call, after the
 * palettes), then their instances skin the meshes it returned. Nothing to do
 * (and no call) when no character has morph slots. The morpher's error is
 * forwarded naming the character (entry: its mesh). */
static sinew_result crowd_morph_submit(sinew_crowd *c, sinew_error_info *err)
{
    if (!c->m_any) return SINEW_OK;
    uint32_t n = c->m_count;
    sinew_morph_error me;
    sinew_result r = sinew_morpher_set_frame(c->morpher, c->m_items, n, c->m_meshes, &me);
    if (r != SINEW_OK) {
        if (me.item != SINEW_ITEM_CAPACITY && me.index < n) {
            uint32_t ch = c->m_char[me.index], k = c->m_inst[me.index] - c->first_instance[ch];
            return snw_fail_entry(err, r, SINEW_ITEM_CHARACTER, ch, k, "character %u mesh %u: the morpher: %s", ch, k, me.message);
        }
        return snw_fail_entry(err, r, me.item, me.index, me.entry, "the morpher: %s", me.message);
    }
    for (uint32_t j = 0; j < n; j++) c->instances[c->m_inst[j]].mesh = c->m_meshes[j];
    return SINEW_OK;
}

static sinew_result crowd_character_box(sinew_crowd *c, crowd_scratch *s, uint32_t i, float *dst, int want_box,
                                        size_t pal_floats, uint8_t *stage);

/* One character's work: sample, FK, palette into job_dst (LOD: evaluated into
 * its slots or interpolated from them), box. *stage says what failed. */
/* After a NON_FINITE palette build of character i: the joint to name, the first
 * whose packed entry in pal is not finite or beyond the model's value limit (pal
 * is unspecified on error; the failing values are there when the pose was read). */
static void crowd_name_joint(sinew_crowd *c, const crowd_model *m, const sinew_crowd_character *ch, uint32_t i,
                             const float *pal)
{
    uint32_t stride = sinew_palette_gpu_stride(ch->method, ch->flags) * 4u;
    c->char_joint[i] = UINT32_MAX;
    for (uint32_t j = 0; j < m->joint_count && c->char_joint[i] == UINT32_MAX; j++)
        for (uint32_t k = 0; k < stride; k++) {
            float v = pal[(size_t)j * stride + k];
            if (!(fabsf(v) <= (float)m->value_limit)) { c->char_joint[i] = j; break; }
        }
}

/* Rotation vector (axis x angle) of a unit quaternion, and back. */
static sinew_vec3 rm_rotvec(sinew_quat q)
{
    if (q.w < 0) q = (sinew_quat){ -q.x, -q.y, -q.z, -q.w };
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(s > 0)) return sinew_v3(0, 0, 0);
    double k = 2.0 * atan2(s, q.w) / s;
    return sinew_v3(q.x * k, q.y * k, q.z * k);
}

static sinew_quat rm_from_rotvec(sinew_vec3 v)
{
    double a = sinew_v3_length(v);
    if (!(a > 0)) return sinew_quat_identity();
    return sinew_quat_from_axis_angle(sinew_v3_scale(v, 1.0 / a), a);
}

/* Root motion of character i this frame (prepare only): its world transform
 * moved by the clip's or the layers' deltas since its last prepare (crowd.h,
 * apply_root_motion) into rm_world_new, the times and root motions into the
 * *_new state. Writes only index i's state. */
static sinew_result crowd_root_motion(sinew_crowd *c, const sinew_crowd_character *ch, uint32_t i)
{
    double *tn = c->rm_time_new + (size_t)i * RM_SLOTS;
    const sinew_root_motion **sn = c->rm_src_new + (size_t)i * RM_SLOTS;
    const double *to = c->rm_time + (size_t)i * RM_SLOTS;
    const sinew_root_motion *const *so = c->rm_src + (size_t)i * RM_SLOTS;
    for (uint32_t k = 0; k < RM_SLOTS; k++) sn[k] = NULL;
    c->rm_valid_new[i] = 0;
    if (!ch->apply_root_motion) return SINEW_OK;
    const int fresh = c->rm_fresh[i];
    sinew_transform delta = { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } };
    sinew_result r = SINEW_OK;
    if (!ch->pose && ch->layer_count) {
        double wsum = 0;
        sinew_vec3 t = { 0, 0, 0 }, v = { 0, 0, 0 };
        for (uint32_t k = 0; k < ch->layer_count; k++) {
            const sinew_anim_layer *l = &ch->layers[k];
            if (l->flags & SINEW_LAYER_ADDITIVE) continue;
            const sinew_root_motion *rm = l->clip ? l->root_motion : NULL;
            const double w = sinew_anim_layer_weight(l);
            const double lt = (l->flags & SINEW_LAYER_SYNC) && l->clip ? l->time * sinew_clip_duration(l->clip) : l->time;
            if (rm) tn[k] = lt, sn[k] = rm;
            if (!(w > 0)) continue;
            wsum += w;
            if (!rm || fresh || so[k] != rm) continue;
            sinew_transform d;
            if ((r = sinew_root_motion_delta(rm, to[k], lt, l->wrap, &d)) != SINEW_OK) return r;
            t = sinew_v3_add(t, sinew_v3_scale(d.translation, w));
            v = sinew_v3_add(v, sinew_v3_scale(rm_rotvec(d.rotation), w));
        }
        const double inv = 1.0 / (wsum > SINEW_BLEND_REST_THRESHOLD ? wsum : SINEW_BLEND_REST_THRESHOLD);
        delta.translation = sinew_v3_scale(t, inv);
        delta.rotation = rm_from_rotvec(sinew_v3_scale(v, inv));
    } else if (!ch->pose && ch->clip && ch->root_motion) {
        tn[0] = ch->time, sn[0] = ch->root_motion;
        if (!fresh && so[0] == ch->root_motion &&
            (r = sinew_root_motion_delta(ch->root_motion, to[0], ch->time, ch->wrap, &delta)) != SINEW_OK)
            return r;
    }
    const sinew_mat4 w0 = fresh ? (ch->root ? *ch->root : sinew_mat4_identity()) : c->rm_world[i];
    const sinew_mat4 dm = sinew_mat4_from_transform(&delta);
    c->rm_world_new[i] = sinew_mat4_mul(&w0, &dm);
    if (!mat4_finite(&c->rm_world_new[i])) return SINEW_ERROR_NON_FINITE;
    c->rm_valid_new[i] = 1;
    return SINEW_OK;
}

static sinew_result crowd_character(sinew_crowd *c, crowd_scratch *s, uint32_t i, uint8_t *stage)
{
    const sinew_crowd_character *ch = &c->job_chars[i];
    if (c->job_skip && c->rm_world) { /* skipped characters move too */
        *stage = STAGE_POSE;
        sinew_result rr = crowd_root_motion(c, ch, i);
        if (rr != SINEW_OK) return rr;
    }
    if (c->job_skip && crowd_skipped(c, ch, i)) return SINEW_OK; /* no palette for a skipped character */
    const crowd_model *m = &c->models[ch->model.value];
    const int lod = c->job_skip && c->lod_pal ? c->lod_mode[i] : LOD_NONE;
    const size_t pal_floats = (size_t)4u * m->joint_count * sinew_palette_gpu_stride(ch->method, ch->flags);
    float *dst = c->job_dst + (size_t)c->palette_offsets[i] * 4u;
    int want_box = c->job_skip && m->has_bounds;
    float *slot0 = lod ? c->lod_pal + (size_t)i * 2u * c->lod_slot : NULL;
    const int timed = c->stage_timing && c->job_skip; /* stage times: prepare only */
    uint64_t ta = timed ? stage_now_ns() : 0;
    if (lod == LOD_HOLD) { /* no evaluation: the interpolated palette */
        const float *older = slot0 + (size_t)(1u - c->lod_newest[i]) * c->lod_slot;
        const float *newer = slot0 + (size_t)c->lod_newest[i] * c->lod_slot;
        *stage = STAGE_PALETTE;
        lod_lerp(older, newer, lod_fraction(c, ch, i), ch->method, ch->flags, m->joint_count, want_box ? s->pal : dst);
        if (timed) s->stage_ns[2] += (double)(stage_now_ns() - ta);
        return crowd_character_box(c, s, i, dst, want_box, pal_floats, stage);
    }
    sinew_palette_character pc = { 0 };
    sinew_anim_layer one;
    pc.skeleton = m->skeleton;
    pc.method = ch->method;
    pc.flags = ch->flags;
    pc.root = c->job_skip && ch->apply_root_motion ? &c->rm_world_new[i] : ch->root;
    pc.wrap = ch->wrap;
    pc.time = ch->time;
    pc.value_limit = m->value_limit;
    pc.joint_lod = ch->joint_lod;
    sinew_result r = SINEW_OK;
    *stage = STAGE_POSE;
    if (ch->pose) {
        pc.pose = ch->pose;
    } else if (ch->layer_count) {
        pc.layers = ch->layers;
        pc.layer_count = ch->layer_count;
    } else if (ch->clip && ch->root_motion) { /* in place: one layer with the root motion */
        memset(&one, 0, sizeof one);
        one.clip = ch->clip;
        one.time = ch->time;
        one.weight = 1.0;
        one.wrap = ch->wrap;
        one.root_motion = ch->root_motion;
        pc.layers = &one;
        pc.layer_count = 1;
    } else if (ch->clip) {
        pc.clip = ch->clip;
    } else if (ch->sample) {
        r = ch->sample(ch->sample_user, m->skeleton, i, ch->time, s->local);
        pc.pose = s->local;
        if (timed) s->stage_ns[0] += (double)(stage_now_ns() - ta);
    } /* else the rest pose */
    if (r != SINEW_OK) return r;
    /* float32 palette straight into the destination; NON_FINITE when a
     * value does not fit in float32 */
    /* With a box to compute, the palette is built in cached scratch, boxed there
     * and then copied to the destination: the destination is the mapped ring
     * (write-combined on discrete GPUs, uncached to read) and is written with
     * streaming stores, so reading it back would go to memory. Without a box it
     * is built straight into the destination. */
    float *pal = want_box ? s->pal : dst;
    *stage = STAGE_PALETTE;
    if (lod) { /* evaluated into a slot (both when fresh); shown: that one (fresh) or the previous newest */
        float *into = slot0 + (size_t)c->lod_next[i] * c->lod_slot;
        r = timed ? sinew_palette_build_f32_timed(&pc, s->fast, s->fast_bytes, into, s->stage_ns)
                  : sinew_palette_build_f32(&pc, s->fast, s->fast_bytes, into);
        if (r == SINEW_ERROR_NON_FINITE) crowd_name_joint(c, m, ch, i, into);
        if (r != SINEW_OK) return r;
        uint64_t tb = timed ? stage_now_ns() : 0;
        float *other = slot0 + (size_t)(1u - c->lod_next[i]) * c->lod_slot;
        if (lod == LOD_FRESH) memcpy(other, into, sizeof(float) * pal_floats);
        memcpy(pal, other, sizeof(float) * pal_floats);
        if (timed) s->stage_ns[3] += (double)(stage_now_ns() - tb);
    } else {
        r = timed ? sinew_palette_build_f32_timed(&pc, s->fast, s->fast_bytes, pal, s->stage_ns)
                  : sinew_palette_build_f32(&pc, s->fast, s->fast_bytes, pal);
        if (r == SINEW_ERROR_NON_FINITE) crowd_name_joint(c, m, ch, i, pal);
        if (r != SINEW_OK) return r;
    }
    return crowd_character_box(c, s, i, dst, want_box, pal_floats, stage);
}

/* After character i's palette: copied to dst when built in scratch for its box,
 * then the box. */
static sinew_result crowd_character_box(sinew_crowd *c, crowd_scratch *s, uint32_t i, float *dst, int want_box,
                                        size_t pal_floats, uint8_t *stage)
{
    *stage = STAGE_BOUNDS;
    const sinew_crowd_character *ch = &c->job_chars[i];
    const crowd_model *m = &c->models[ch->model.value];
    float *pal = want_box ? s->pal : dst;
    sinew_result r = SINEW_OK;
    const int timed = c->stage_timing && c->job_skip;
    uint64_t ta = timed ? stage_now_ns() : 0;
    if (want_box) memcpy(dst, pal, sizeof(float) * pal_floats);
    uint64_t tb = timed ? stage_now_ns() : 0;
    if (timed) s->stage_ns[3] += (double)(tb - ta);
    /* the box from the packed palette just written (the data the GPU reads);
     * none (NOT_FOUND) for CoR methods without centers in the bounds data, a
     * mesh given in ch->meshes other than the model's, or a morphed mesh without
     * morph growth data (or with a growth beyond float32) */
    if (!c->job_skip) return SINEW_OK;
    c->box_new_ok[i] = 0;
    int box = m->has_bounds && (m->has_cor_bounds || !sinew_method_uses_centers(ch->method));
    for (uint32_t k = 0; box && ch->meshes && k < m->mesh_count; k++)
        box = ch->meshes[k].value == m->meshes[k].value;
    if (box && m->merged) { /* one call for all the meshes, with the largest growth of each joint */
        float *gmax = s->growth + m->joint_count;
        int any_moved = 0;
        for (uint32_t k = 0; box && k < m->mesh_count; k++) {
            const sinew_crowd_mesh_bounds *mb = &m->bounds[k];
            uint32_t wofs = c->m_wofs ? c->m_wofs[c->first_instance[i] + k] : UINT32_MAX;
            int moved = 0;
            for (uint32_t t = 0; wofs != UINT32_MAX && t < m->morphs[k].target_count && !moved; t++)
                moved = c->mw[wofs + t] != 0.0f;
            if (!moved) continue;
            if (!mb->morph_deltas ||
                sinew_joint_bounds_morph_growth(mb->morph_deltas, m->joint_count, mb->morph_target_count, c->mw + wofs,
                                                s->growth) != SINEW_OK) {
                box = 0;
                break;
            }
            for (uint32_t a = 0; a < m->joint_count; a++)
                gmax[a] = !any_moved || s->growth[a] > gmax[a] ? s->growth[a] : gmax[a];
            any_moved = 1;
        }
        if (box) {
            float *b = c->box_new + (size_t)i * 6u;
            r = sinew_character_bounds_morphed(m->merged, m->merged_nb, m->joint_count, ch->method, ch->flags, pal,
                                               any_moved ? gmax : NULL, b, b + 3);
        }
        if (box && r == SINEW_OK) c->box_new_ok[i] = 1;
        if (timed) s->stage_ns[4] += (double)(stage_now_ns() - tb);
        return r;
    }
    for (uint32_t k = 0; box && r == SINEW_OK && k < m->mesh_count; k++) {
        float lo[3], hi[3], *b = c->box_new + (size_t)i * 6u;
        const sinew_crowd_mesh_bounds *mb = &m->bounds[k];
        const float *growth = NULL;
        uint32_t wofs = c->m_wofs ? c->m_wofs[c->first_instance[i] + k] : UINT32_MAX;
        int moved = 0; /* all weights 0: the base mesh is skinned */
        for (uint32_t t = 0; wofs != UINT32_MAX && t < m->morphs[k].target_count && !moved; t++)
            moved = c->mw[wofs + t] != 0.0f;
        if (moved) { /* morphed this frame: rest vertices within growth[a] of the base's */
            if (!mb->morph_deltas ||
                sinew_joint_bounds_morph_growth(mb->morph_deltas, m->joint_count, mb->morph_target_count,
                                                c->mw + wofs, s->growth) != SINEW_OK) {
                box = 0;
                break;
            }
            growth = s->growth;
        }
        r = sinew_character_bounds_morphed(mb->joints, mb->neighbors, m->joint_count, ch->method, ch->flags, pal, growth,
                                           lo, hi);
        for (int a = 0; r == SINEW_OK && a < 3; a++) {
            b[a] = k == 0 || lo[a] < b[a] ? lo[a] : b[a];
            b[3 + a] = k == 0 || hi[a] > b[3 + a] ? hi[a] : b[3 + a];
        }
    }
    if (box && r == SINEW_OK) c->box_new_ok[i] = 1;
    if (timed) s->stage_ns[4] += (double)(stage_now_ns() - tb);
    return r;
}

/* The error of failing character i of the job (char_result / char_stage). */
static sinew_result crowd_character_error(const sinew_crowd *c, uint32_t i, sinew_error_info *err)
{
    sinew_result r = c->char_result[i];
    const sinew_crowd_character *ch = &c->job_chars[i];
    switch (c->char_stage[i]) {
    case STAGE_POSE:
        return CFAIL(r, i, "character %u: its pose callback (sample) returned %s%s", i, sinew_result_string(r),
                     r == SINEW_ERROR_IN_USE ? " (a call back into its crowd?)" : "");
    case STAGE_PALETTE:
        if (r == SINEW_ERROR_NON_FINITE && c->char_joint[i] != UINT32_MAX) {
            const crowd_model *m = &c->models[ch->model.value];
            uint32_t j = c->char_joint[i];
            return snw_fail_entry(err, r, SINEW_ITEM_CHARACTER, i, j,
                                  "character %u (model %u, %s): joint %u '%s': palette value not finite or beyond %g "
                                  "(skinning vertices of extent %g would overflow float32)", i, ch->model.value, sinew_method_name(ch->method), j,
                                  sinew_skeleton_name(m->skeleton, j), m->value_limit, m->extent);
        }
        return CFAIL(r, i, "character %u (model %u, %s): building its palette: %s%s", i, ch->model.value,
                     sinew_method_name(ch->method), sinew_result_string(r),
                     r == SINEW_ERROR_NON_FINITE ? " (a pose, root or palette value not finite or beyond float32)" : "");
    default:
        return CFAIL(r, i, "character %u (model %u, %s): its box: %s", i, ch->model.value, sinew_method_name(ch->method),
                     sinew_result_string(r));
    }
}

/* Lowers *target to v (atomic). */
static void atomic_min_u32(uint32_t *target, uint32_t v)
{
    uint32_t cur = __atomic_load_n(target, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(target, &cur, v, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
    }
}

/* Characters [first, first + n) of the job with scratch s: claims them (one
 * range per character: a taken one is an overlap), runs them up to the first
 * failing one (recorded for the job: the lowest wins), then counts them all as
 * done (release: the job's end sees their writes). */
static sinew_result crowd_range(sinew_crowd *c, crowd_scratch *s, uint32_t first, uint32_t n, sinew_error_info *err)
{
    uint32_t end = first + n, newly = 0, overlap = UINT32_MAX;
    for (uint32_t i = first; i < end; i++) {
        if (__atomic_exchange_n(&c->claimed[i], (uint8_t)1, __ATOMIC_ACQ_REL)) {
            if (overlap == UINT32_MAX) overlap = i;
        } else {
            newly++;
        }
    }
    sinew_result r = SINEW_OK;
    if (overlap != UINT32_MAX) {
        atomic_min_u32(&c->overlap, overlap);
        r = snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, overlap,
                     "range [%u, %u): character %u is in another range too", first, end, overlap);
    } else {
        uint64_t tb = c->stage_timing && c->job_skip ? stage_now_ns() : 0;
        for (uint32_t i = first; i < end; i++) {
            uint8_t stage = 0;
            sinew_result cr = crowd_character(c, s, i, &stage);
            if (cr != SINEW_OK) { /* later characters of this range cannot hold an earlier error */
                c->char_result[i] = cr;
                c->char_stage[i] = stage;
                atomic_min_u32(&c->err_first, i);
                r = crowd_character_error(c, i, err);
                break;
            }
        }
        if (tb) s->stage_ns[5] += (double)(stage_now_ns() - tb);
    }
    __atomic_fetch_add(&c->done, newly, __ATOMIC_RELEASE);
    return r;
}

/* Starts a job over chars[0, count) writing palettes to dst. */
static void crowd_job_start(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count, float *dst, int skip)
{
    c->job_chars = chars;
    c->job_count = count;
    c->job_dst = dst;
    c->job_skip = skip;
    memset(c->claimed, 0, count);
    __atomic_store_n(&c->done, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&c->err_first, UINT32_MAX, __ATOMIC_RELAXED);
    __atomic_store_n(&c->overlap, UINT32_MAX, __ATOMIC_RELAXED);
}

static void crowd_job_stop(sinew_crowd *c)
{
    c->job_chars = NULL;
    c->job_dst = NULL;
    c->job_skip = 0;
}

static void crowd_task(void *user, uint32_t task, uint32_t worker)
{
    sinew_crowd *c = (sinew_crowd *)user;
    uint32_t begin = task * c->job_chunk;
    uint32_t n = c->job_count - begin < c->job_chunk ? c->job_count - begin : c->job_chunk;
    (void)crowd_range(c, &c->scratch[worker], begin, n, NULL);
}

/* Every character of the started job on the crowd's pool (chunks of up to 256). */
static sinew_result crowd_run_pool(sinew_crowd *c, sinew_error_info *err)
{
    uint32_t count = c->job_count;
    uint32_t chunk = count / (sinew_thread_pool_size(c->pool) * 8u);
    if (chunk < 1) chunk = 1;
    if (chunk > 256) chunk = 256;
    c->job_chunk = chunk;
    sinew_result r = sinew_thread_pool_run(c->pool, (count + chunk - 1) / chunk, crowd_task, c);
    if (r != SINEW_OK) /* IN_USE: called from a task of the same pool (a pose callback of another crowd) */
        return snw_fail(err, r, SINEW_ITEM_CALL_ORDER, UINT32_MAX, "the crowd's thread pool: sinew_thread_pool_run: %s",
                        sinew_result_string(r));
    return SINEW_OK;
}

static sinew_result build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                   uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                   uint32_t *palette_offsets, sinew_error_info *err)
{
    if (!chars || !dst || count == 0)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s",
                        !chars ? "chars is NULL" : !dst ? "dst is NULL" : "count is 0");
    if (count > c->max_characters)
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_characters (%u): count is %u",
                        c->max_characters, count);
    uint64_t slots, verts;
    uint32_t ninst;
    sinew_result r = crowd_layout(c, chars, count, 0, &slots, &verts, &ninst, err);
    if (r != SINEW_OK) return r;
    if (slots > dst_capacity_vec4)
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                        "dst_capacity_vec4 (%u): the palettes need %llu slots", dst_capacity_vec4, (unsigned long long)slots);
    crowd_job_start(c, chars, count, dst, 0);
    r = crowd_run_pool(c, err);
    uint32_t bad = __atomic_load_n(&c->err_first, __ATOMIC_ACQUIRE);
    if (r == SINEW_OK && bad != UINT32_MAX) r = crowd_character_error(c, bad, err);
    crowd_job_stop(c);
    if (r != SINEW_OK) return r;
    if (palette_offsets) memcpy(palette_offsets, c->palette_offsets, sizeof(uint32_t) * count);
    return SINEW_OK;
}

sinew_result sinew_crowd_build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                        uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                        uint32_t *palette_offsets, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!c) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "crowd is NULL");
    if (!crowd_enter(c)) return crowd_busy(c, "sinew_crowd_build_palettes", err);
    sinew_result r = build_palettes(c, chars, count, dst, dst_capacity_vec4, palette_offsets, err);
    crowd_leave(c);
    return r;
}

/* A frame failed after its jobs may have written LOD slots: every character
 * starts afresh (evaluated, nothing to interpolate from) at its next frame. */
static void crowd_lod_invalidate(sinew_crowd *c)
{
    if (c->lod_pal) memset(c->lod_valid, 0, c->max_characters);
}

/* Ends a begun frame with no work, so the next begin_frame can proceed. */
static void crowd_abandon(sinew_crowd *c)
{
    sinew_skinner_set_instances(c->skinner, NULL, 0, NULL);
    sinew_skinner_end_frame(c->skinner, VK_NULL_HANDLE);
}

/* set_instances refused the frame: which character? Each character's instances
 * alone (they are validated before anything is written; the frame is abandoned
 * afterwards anyway). */
static sinew_result crowd_instances_error(sinew_crowd *c, sinew_result r, uint32_t nskin, uint64_t skin_verts,
                                          sinew_error_info *err)
{
    const sinew_crowd_character *chars = c->job_chars;
    for (uint32_t i = 0; i < c->job_count; i++) {
        if (crowd_skipped(c, &chars[i], i)) continue;
        for (uint32_t k = c->first_instance[i]; k < c->first_instance[i + 1]; k++) {
            sinew_error_info se;
            sinew_result ri = sinew_skinner_set_instances(c->skinner, &c->instances[k], 1, &se);
            if (ri == SINEW_OK) continue;
            uint32_t mk = k - c->first_instance[i];
            const sinew_instance *in = &c->instances[k];
            if (ri == SINEW_ERROR_CAPACITY)
                return snw_fail_entry(err, ri, SINEW_ITEM_CAPACITY, i, mk,
                                      "the skinner's max_output_vertices: character %u mesh %u writes output vertices %u..%u",
                                      i, mk, in->output_offset, in->output_offset + c->instance_vertices[k]);
            if (ri == SINEW_ERROR_INVALID_ARGUMENT && sinew_method_uses_centers(in->method))
                return snw_fail_entry(err, ri, SINEW_ITEM_CHARACTER, i, mk,
                                      "character %u mesh %u: the skinner refused method %s on its mesh %u: it has no centers "
                                      "of rotation (sinew_skinner_mesh_desc.cor_centers)",
                                      i, mk, sinew_method_name(in->method), in->mesh.value);
            return snw_fail_entry(err, ri, SINEW_ITEM_CHARACTER, i, mk, "character %u mesh %u: the skinner refused it: %s", i,
                                  mk, se.message);
        }
    }
    if (r == SINEW_ERROR_CAPACITY)
        return snw_fail(err, r, SINEW_ITEM_CAPACITY, UINT32_MAX,
                        "the skinner's max_instances, max_output_vertices or work capacity: %u instances, %llu output vertices",
                        nskin, (unsigned long long)skin_verts);
    return snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "sinew_skinner_set_instances: %s", sinew_result_string(r));
}

/* Validation, layout, begin_frame, morph weights; the job started (phase). */
static sinew_result prepare_begin(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                  sinew_crowd_stats *stats, int phase, sinew_error_info *err)
{
    if (stats) memset(stats, 0, sizeof *stats);
    if (!c->skinner)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "the crowd has no skinner (sinew_crowd_desc.skinner): use sinew_crowd_build_palettes");
    if (!chars && count)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "chars is NULL with count %u",
                        count);
    if (count > c->max_characters)
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_characters (%u): count is %u",
                        c->max_characters, count);
    /* count 0: an empty frame (nothing skinned), legal like any other */
    c->instance_count = 0;
    c->character_count = 0;
    uint64_t slots, verts;
    uint32_t ninst = 0;
    sinew_result r = crowd_layout(c, chars, count, 1, &slots, &verts, &ninst, err);
    if (r != SINEW_OK) return r;
    /* update_every must not leave a character showing another's vertices: one
     * whose output range or model changed (or that owes a reset) is skinned now. */
    for (uint32_t i = 0; i < count; i++)
        c->forced[i] = (uint8_t)(!chars[i].hidden && crowd_changed(c, &chars[i], i));
    /* Root motion: the characters starting afresh at their index (crowd.h) */
    for (uint32_t i = 0; c->rm_world && i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        c->rm_fresh[i] = (uint8_t)(!c->rm_valid[i] || ch->reset_previous || i >= c->last_count ||
                                   c->last_model[i] != ch->model.value || c->last_output[i] != crowd_first_output(c, i));
    }
    /* LOD interpolation: each character's mode this frame, from the state of
     * the last successful prepare (committed by prepare_end) */
    for (uint32_t i = 0; c->lod_pal && i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        c->lod_mode[i] = LOD_NONE;
        c->lod_next[i] = c->lod_newest[i];
        if (!ch->lod_interpolate || ch->update_every <= 1 || ch->hidden) continue;
        int fresh = !c->lod_valid[i] || c->forced[i] || c->lod_model[i] != ch->model.value ||
                    c->lod_method[i] != (uint32_t)ch->method || c->lod_flags[i] != ch->flags;
        if (fresh) {
            c->lod_mode[i] = LOD_FRESH;
            c->lod_next[i] = 0;
        } else if ((c->frame + i) % ch->update_every == 0) {
            c->lod_mode[i] = LOD_UPDATE;
            c->lod_next[i] = (uint8_t)(1u - c->lod_newest[i]);
        } else {
            c->lod_mode[i] = LOD_HOLD;
        }
    }
    double t0 = now_ms();
    sinew_frame frame;
    r = sinew_skinner_begin_frame(c->skinner, &frame);
    if (r == SINEW_ERROR_INVALID_ARGUMENT) /* the only other cause, NULL, cannot happen here */
        return snw_fail(err, r, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                        "the skinner's frame is already begun: prepare called again before sinew_skinner_record + "
                        "sinew_skinner_end_frame (or sinew_skinner_submit)");
    if (r != SINEW_OK)
        return snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "sinew_skinner_begin_frame: %s", sinew_result_string(r));
    double t1 = now_ms();
    if (slots > frame.palette_capacity_vec4) {
        crowd_abandon(c);
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                        "the skinner's palette slots (max_palette_vec4 = %u): the frame needs %llu",
                        frame.palette_capacity_vec4, (unsigned long long)slots);
    }
    if (c->morpher) { /* the weights first: the jobs grow morphed meshes' boxes by them */
        r = crowd_morph_gather(c, chars, count, err);
        if (r != SINEW_OK) {
            crowd_abandon(c);
            return r;
        }
    }
    crowd_job_start(c, chars, count, frame.palette, 1);
    for (uint32_t k = 0; c->stage_timing && k < c->scratch_count; k++)
        memset(c->scratch[k].stage_ns, 0, sizeof c->scratch[k].stage_ns);
    c->job_slots = slots;
    c->job_ninst = ninst;
    c->job_wait_ms = t1 - t0;
    c->job_t_begun = now_ms();
    if (stats) {
        stats->wait_ms = c->job_wait_ms;
        stats->characters = count;
        stats->instances = ninst;
        stats->palette_vec4 = (uint32_t)slots;
    }
    __atomic_store_n(&c->phase, phase, __ATOMIC_RELEASE);
    return SINEW_OK;
}

/* Ends the job: CALL_ORDER (job left open) while characters were not run;
 * else the frame is handed to the skinner or abandoned, and the job closed. */
static sinew_result prepare_end(sinew_crowd *c, sinew_crowd_stats *stats, sinew_error_info *err)
{
    if (stats) memset(stats, 0, sizeof *stats);
    uint32_t count = c->job_count;
    uint32_t done = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
    if (done < count)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                        "sinew_crowd_prepare_end: %u of the %u characters have not been run (run_range every one first)",
                        count - done, count);
    double t2 = now_ms();
    const sinew_crowd_character *chars = c->job_chars;
    uint32_t overlap = __atomic_load_n(&c->overlap, __ATOMIC_ACQUIRE);
    uint32_t bad = __atomic_load_n(&c->err_first, __ATOMIC_ACQUIRE);
    sinew_result r = SINEW_OK;
    if (overlap != UINT32_MAX)
        r = snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, overlap,
                     "run_range: character %u was in two ranges", overlap);
    else if (bad != UINT32_MAX)
        r = crowd_character_error(c, bad, err);
    if (r == SINEW_OK && c->morpher) r = crowd_morph_submit(c, err);
    /* The instances of the characters not skipped: only they reach the GPU. */
    uint32_t nskin = 0, skipped = 0;
    uint64_t skin_verts = 0, skin_joints = 0;
    for (uint32_t i = 0; r == SINEW_OK && i < count; i++) {
        if (crowd_skipped(c, &chars[i], i)) {
            skipped++;
            continue;
        }
        /* Previous positions: reset where this index's output range held nothing
         * or another character's vertices last time it was skinned. */
        bool reset = crowd_changed(c, &chars[i], i);
        skin_joints += c->models[chars[i].model.value].joint_count;
        for (uint32_t k = c->first_instance[i]; k < c->first_instance[i + 1]; k++) {
            c->instances[k].reset_previous = reset;
            c->skinned[nskin++] = c->instances[k];
            skin_verts += c->instance_vertices[k];
        }
    }
    if (r == SINEW_OK) {
        r = sinew_skinner_set_instances(c->skinner, c->skinned, nskin, NULL);
        if (r != SINEW_OK) r = crowd_instances_error(c, r, nskin, skin_verts, err);
    }
    if (r != SINEW_OK) {
        crowd_lod_invalidate(c);
        crowd_abandon(c);
        crowd_job_stop(c);
        __atomic_store_n(&c->phase, PHASE_NONE, __ATOMIC_RELEASE);
        return r;
    }
    c->instance_count = c->job_ninst;
    c->character_count = count;
    /* Bookkeeping of previous positions, committed with the frame. A skipped
     * character that owed a reset, or whose layout changed, owes one until skinned. */
    uint32_t interpolated = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t first = crowd_first_output(c, i);
        bool changed = crowd_changed(c, &chars[i], i);
        int skip = crowd_skipped(c, &chars[i], i);
        c->reset_owed[i] = (uint8_t)(changed && skip);
        if (!skip) { /* boxes: skinned characters get this frame's; skipped ones keep theirs */
            c->box_valid[i] = c->box_new_ok[i];
            memcpy(c->box + (size_t)i * 6u, c->box_new + (size_t)i * 6u, sizeof(float) * 6u);
        } else if (changed) { /* hidden and moved: its range and box are no longer its own */
            c->box_valid[i] = 0;
        }
        c->last_model[i] = chars[i].model.value;
        c->last_output[i] = first;
        if (c->lod_pal) { /* the LOD slots as this frame left them */
            c->lod_valid[i] = c->lod_mode[i] != LOD_NONE;
            c->lod_newest[i] = c->lod_next[i];
            c->lod_model[i] = chars[i].model.value;
            c->lod_method[i] = (uint32_t)chars[i].method;
            c->lod_flags[i] = chars[i].flags;
            interpolated += c->lod_mode[i] == LOD_HOLD;
        }
    }
    if (c->rm_world) { /* the root motion state as this frame left it (every index < count written by the jobs) */
        sinew_mat4 *wt = c->rm_world; c->rm_world = c->rm_world_new; c->rm_world_new = wt;
        double *tt = c->rm_time; c->rm_time = c->rm_time_new; c->rm_time_new = tt;
        const sinew_root_motion **st = c->rm_src; c->rm_src = c->rm_src_new; c->rm_src_new = st;
        uint8_t *vt = c->rm_valid; c->rm_valid = c->rm_valid_new; c->rm_valid_new = vt;
    }
    c->last_count = count;
    c->frame++;
    if (stats) {
        stats->cpu_ms = t2 - c->job_t_begun;
        stats->wait_ms = c->job_wait_ms;
        stats->characters = count;
        stats->instances = c->job_ninst;
        stats->joints = skin_joints;
        stats->palette_vec4 = (uint32_t)c->job_slots;
        stats->output_vertices = (uint32_t)skin_verts;
        stats->skipped = skipped;
        stats->interpolated = interpolated;
        double *f[6] = { &stats->sample_ms, &stats->fk_ms, &stats->palette_ms, &stats->pack_ms, &stats->bounds_ms,
                         &stats->busy_ms };
        for (uint32_t k = 0; c->stage_timing && k < c->scratch_count; k++)
            for (int j = 0; j < 6; j++) *f[j] += c->scratch[k].stage_ns[j] * 1e-6;
    }
    crowd_job_stop(c);
    __atomic_store_n(&c->phase, PHASE_NONE, __ATOMIC_RELEASE);
    return SINEW_OK;
}

/* prepare_begin + every character on the pool + prepare_end. */
static sinew_result prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                            sinew_crowd_stats *stats, sinew_error_info *err)
{
    sinew_result r = prepare_begin(c, chars, count, stats, PHASE_POOL, err);
    if (r != SINEW_OK) return r;
    r = crowd_run_pool(c, err);
    if (r == SINEW_OK) r = prepare_end(c, stats, err);
    if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) != PHASE_NONE) { /* the pool failed: close the frame */
        crowd_lod_invalidate(c);
        crowd_abandon(c);
        crowd_job_stop(c);
        __atomic_store_n(&c->phase, PHASE_NONE, __ATOMIC_RELEASE);
    }
    return r;
}

/* The start of sinew_crowd_prepare, _update and _prepare_begin (call): err and
 * stats cleared, then the crowd entered (SINEW_OK) or the refusal returned. */
static sinew_result prepare_enter(sinew_crowd *c, sinew_crowd_stats *stats, const char *call, sinew_error_info *err)
{
    snw_error_clear(err);
    if (stats) memset(stats, 0, sizeof *stats);
    if (!c) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "crowd is NULL");
    if (!crowd_enter(c)) return crowd_busy(c, call, err);
    return SINEW_OK;
}

/* sinew_crowd_prepare, and with submit sinew_crowd_update (call: its name). */
static sinew_result prepare_call(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 sinew_crowd_stats *stats, sinew_error_info *err, const char *call, int submit)
{
    sinew_result r = prepare_enter(c, stats, call, err);
    if (r != SINEW_OK) return r;
    r = prepare(c, chars, count, stats, err);
    if (r == SINEW_OK && submit) {
        r = sinew_skinner_submit(c->skinner);
        if (r != SINEW_OK) snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "sinew_skinner_submit: %s", sinew_result_string(r));
    }
    crowd_leave(c);
    return r;
}

sinew_result sinew_crowd_prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 sinew_crowd_stats *stats, sinew_error_info *err)
{
    return prepare_call(c, chars, count, stats, err, "sinew_crowd_prepare", 0);
}

sinew_result sinew_crowd_update(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                sinew_crowd_stats *stats, sinew_error_info *err)
{
    return prepare_call(c, chars, count, stats, err, "sinew_crowd_update", 1);
}

/* ---- jobs ---------------------------------------------------------------- */

sinew_result sinew_crowd_prepare_begin(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                       sinew_crowd_stats *stats, sinew_error_info *err)
{
    sinew_result r = prepare_enter(c, stats, "sinew_crowd_prepare_begin", err);
    if (r != SINEW_OK) return r;
    /* the crowd stays entered (busy) until prepare_end closes the frame */
    r = prepare_begin(c, chars, count, stats, PHASE_JOBS, err);
    if (r != SINEW_OK) crowd_leave(c);
    return r;
}

sinew_result sinew_crowd_prepare_run_range(sinew_crowd *c, uint32_t first, uint32_t count, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!c) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "crowd is NULL");
    if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) != PHASE_JOBS)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                        "sinew_crowd_prepare_run_range: no frame begun by sinew_crowd_prepare_begin is open");
    if (count == 0 || first >= c->job_count || count > c->job_count - first)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "range first = %u, count = %u: not inside the frame's %u characters", first, count, c->job_count);
    uint32_t s = 0;
    while (s < c->scratch_count && __atomic_exchange_n(&c->scratch_busy[s], 1, __ATOMIC_ACQUIRE)) s++;
    if (s == c->scratch_count)
        return snw_fail(err, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX,
                        "range_threads (%u): that many run_range calls are already running", c->scratch_count);
    sinew_result r = crowd_range(c, &c->scratch[s], first, count, err);
    __atomic_store_n(&c->scratch_busy[s], 0, __ATOMIC_RELEASE);
    return r;
}

sinew_result sinew_crowd_prepare_end(sinew_crowd *c, sinew_crowd_stats *stats, sinew_error_info *err)
{
    snw_error_clear(err);
    if (stats) memset(stats, 0, sizeof *stats);
    if (!c) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "crowd is NULL");
    if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) != PHASE_JOBS)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX,
                        "sinew_crowd_prepare_end: no frame begun by sinew_crowd_prepare_begin is open");
    sinew_result r = prepare_end(c, stats, err);
    if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == PHASE_NONE) crowd_leave(c);
    return r;
}

const sinew_instance *sinew_crowd_instances(const sinew_crowd *c, uint32_t *count)
{
    if (count) *count = c ? c->instance_count : 0;
    return c ? c->instances : NULL;
}

sinew_result sinew_crowd_character_bounds(const sinew_crowd *c, uint32_t character, float box_min[3], float box_max[3])
{
    if (!c || !box_min || !box_max || character >= c->character_count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!c->box_valid[character]) return SINEW_ERROR_NOT_FOUND;
    memcpy(box_min, c->box + (size_t)character * 6u, sizeof(float) * 3u);
    memcpy(box_max, c->box + (size_t)character * 6u + 3u, sizeof(float) * 3u);
    return SINEW_OK;
}

sinew_result sinew_crowd_character_world(const sinew_crowd *c, uint32_t character, sinew_mat4 *world)
{
    if (!c || !world || character >= c->character_count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!c->rm_world || !c->rm_valid[character]) return SINEW_ERROR_NOT_FOUND;
    *world = c->rm_world[character];
    return SINEW_OK;
}

sinew_result sinew_crowd_set_character_world(sinew_crowd *c, uint32_t character, const sinew_mat4 *world,
                                             sinew_error_info *err)
{
    snw_error_clear(err);
    if (!c || !world)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL", !c ? "crowd" : "world");
    if (!crowd_enter(c)) return crowd_busy(c, "sinew_crowd_set_character_world", err);
    sinew_result r = SINEW_OK;
    if (character >= c->character_count)
        r = snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, character,
                     "character %u: beyond the last prepare's %u characters", character, c->character_count);
    else if (!c->rm_world || !c->rm_valid[character])
        r = snw_fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CHARACTER, character,
                     "character %u did not apply root motion at the last prepare", character);
    else if (!mat4_finite(world))
        r = snw_fail(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_CHARACTER, character, "character %u: world is not finite", character);
    else
        c->rm_world[character] = *world;
    crowd_leave(c);
    return r;
}

sinew_result sinew_crowd_character_output(const sinew_crowd *c, uint32_t character, uint32_t mesh,
                                          uint32_t *first_vertex, uint32_t *vertex_count)
{
    if (!c || character >= c->character_count) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t a = c->first_instance[character], b = c->first_instance[character + 1];
    if (mesh >= b - a) return SINEW_ERROR_INVALID_ARGUMENT;
    if (first_vertex) *first_vertex = c->instances[a + mesh].output_offset;
    if (vertex_count) *vertex_count = c->instance_vertices[a + mesh];
    return SINEW_OK;
}
