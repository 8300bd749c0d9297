/* Crowd update: validate every character, lay out palettes and outputs
 * (serial prefix sums), then sample + FK + palette + pack on the thread pool
 * with the float32 production path (sinew_palette_build_f32), straight into
 * the skinner's mapped ring slot, and hand the instance list to the skinner.
 * All memory is allocated at creation. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/crowd.h>
#include <sinew/palette_job.h>
#include "vk_internal.h"     /* snw_skinner_attach / detach */
#include "alloc_internal.h"

#include <math.h>
#include <stdlib.h>
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
} crowd_model;

typedef struct crowd_scratch {          /* one per worker */
    sinew_transform *local;             /* max_joints: a pose callback's output */
    void *fast;                         /* sinew_palette_scratch_bytes(max_joints), 16-aligned */
    float *growth;                      /* max_joints: a morphed mesh's per-joint bounds growth */
    size_t fast_bytes;
    uint32_t err_index;                 /* first failing character seen, or UINT32_MAX */
    sinew_result err;
} crowd_scratch;

struct sinew_crowd {
    sinew_allocator alloc;              /* resolved */
    int busy;                           /* a call is running (atomic): others get IN_USE */
    sinew_skinner *skinner;             /* attached while the crowd exists */
    sinew_thread_pool *pool;
    int own_pool;
    uint32_t max_characters, max_models, max_joints, max_instances;
    crowd_model *models;
    uint32_t model_count;
    crowd_scratch *scratch;             /* pool size */
    uint32_t scratch_count;
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
};

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

void sinew_crowd_destroy(sinew_crowd *c)
{
    if (!c) return;
    const sinew_allocator *a = &c->alloc;
    if (c->scratch) {
        for (uint32_t i = 0; i < c->scratch_count; i++) {
            snw_free(a, c->scratch[i].local);
            snw_free(a, c->scratch[i].fast);
            snw_free(a, c->scratch[i].growth);
        }
    }
    snw_free(a, c->scratch);
    snw_free(a, c->models);
    snw_free(a, c->palette_offsets);
    snw_free(a, c->first_instance);
    snw_free(a, c->instances);
    snw_free(a, c->skinned);
    snw_free(a, c->instance_vertices);
    snw_free(a, c->last_model);
    snw_free(a, c->last_output);
    snw_free(a, c->reset_owed);
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
    if (c->own_pool) sinew_thread_pool_destroy(c->pool);
    if (c->skinner) snw_skinner_detach(c->skinner);
    sinew_allocator copy = c->alloc;
    snw_free(&copy, c);
}

sinew_result sinew_crowd_create(const sinew_crowd_desc *desc, sinew_crowd **out)
{
    if (!desc || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    sinew_allocator alloc;
    if (snw_allocator_resolve(desc->allocator, &alloc) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t max_chars = desc->max_characters ? desc->max_characters : SINEW_CROWD_DEFAULT_MAX_CHARACTERS;
    uint32_t max_models = desc->max_models ? desc->max_models : SINEW_CROWD_DEFAULT_MAX_MODELS;
    uint32_t max_joints = desc->max_joints ? desc->max_joints : SINEW_CROWD_DEFAULT_MAX_JOINTS;
    if (max_joints > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    if (max_chars > (1u << 24) || max_models > (1u << 20)) return SINEW_ERROR_LIMIT_EXCEEDED;
    uint64_t mi = desc->max_instances ? desc->max_instances
                                      : (uint64_t)max_chars * SINEW_CROWD_DEFAULT_INSTANCES_PER_CHARACTER;
    if (mi > (1u << 26)) return SINEW_ERROR_LIMIT_EXCEEDED;

    sinew_crowd *c = (sinew_crowd *)snw_calloc(&alloc, 1, sizeof *c);
    if (!c) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    c->alloc = alloc;
    const sinew_allocator *a = &c->alloc;
    c->max_characters = max_chars;
    c->max_models = max_models;
    c->max_joints = max_joints;
    c->max_instances = (uint32_t)mi;
    c->morpher = desc->morpher;
    c->max_morph_weights = desc->max_morph_weights ? desc->max_morph_weights : SINEW_CROWD_DEFAULT_MAX_MORPH_WEIGHTS;
    if (c->morpher && (!desc->skinner || snw_morpher_skinner(c->morpher) != desc->skinner)) {
        snw_free(a, c);
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if (c->max_morph_weights > SINEW_MAX_CLIP_WEIGHTS) {
        snw_free(a, c);
        return SINEW_ERROR_LIMIT_EXCEEDED;
    }

    sinew_result r = SINEW_OK;
    if (desc->pool) {
        c->pool = desc->pool;
    } else {
        sinew_thread_pool_desc pd = { desc->threads, a };
        r = sinew_thread_pool_create(&pd, &c->pool);
        if (r != SINEW_OK) {
            snw_free(a, c);
            return r;
        }
        c->own_pool = 1;
    }
    /* From here on sinew_crowd_destroy undoes everything, the attach included. */
    c->skinner = desc->skinner;
    if (c->skinner) snw_skinner_attach(c->skinner);
    c->scratch_count = sinew_thread_pool_size(c->pool);
    c->models = (crowd_model *)snw_calloc(a, max_models, sizeof(crowd_model));
    c->palette_offsets = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->first_instance = (uint32_t *)snw_calloc(a, (size_t)max_chars + 1, sizeof(uint32_t));
    c->instances = (sinew_instance *)snw_calloc(a, c->max_instances, sizeof(sinew_instance));
    c->skinned = (sinew_instance *)snw_calloc(a, c->max_instances, sizeof(sinew_instance));
    c->instance_vertices = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
    c->scratch = (crowd_scratch *)snw_calloc(a, c->scratch_count, sizeof(crowd_scratch));
    c->last_model = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->last_output = (uint32_t *)snw_calloc(a, max_chars, sizeof(uint32_t));
    c->reset_owed = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->box = (float *)snw_calloc(a, (size_t)max_chars * 6u, sizeof(float));
    c->box_new = (float *)snw_calloc(a, (size_t)max_chars * 6u, sizeof(float));
    c->box_valid = (uint8_t *)snw_calloc(a, max_chars, 1);
    c->box_new_ok = (uint8_t *)snw_calloc(a, max_chars, 1);
    if (c->morpher) {
        c->mw_sample = (double *)snw_calloc(a, c->max_morph_weights, sizeof(double));
        c->mw = (float *)snw_calloc(a, c->max_morph_weights, sizeof(float));
        c->m_items = (sinew_morph_item *)snw_calloc(a, c->max_instances, sizeof(sinew_morph_item));
        c->m_meshes = (sinew_mesh_id *)snw_calloc(a, c->max_instances, sizeof(sinew_mesh_id));
        c->m_inst = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        c->m_char = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        c->m_wofs = (uint32_t *)snw_calloc(a, c->max_instances, sizeof(uint32_t));
        if (!c->mw_sample || !c->mw || !c->m_items || !c->m_meshes || !c->m_inst || !c->m_char || !c->m_wofs) {
            sinew_crowd_destroy(c);
            return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    if (!c->models || !c->palette_offsets || !c->first_instance || !c->instances || !c->skinned ||
        !c->instance_vertices || !c->scratch || !c->last_model || !c->last_output || !c->reset_owed ||
        !c->box || !c->box_new || !c->box_valid || !c->box_new_ok) {
        sinew_crowd_destroy(c);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < c->scratch_count; i++) {
        crowd_scratch *s = &c->scratch[i];
        s->local = (sinew_transform *)snw_calloc(a, max_joints, sizeof(sinew_transform));
        s->fast_bytes = sinew_palette_scratch_bytes(max_joints);
        s->fast = snw_calloc(a, 1, s->fast_bytes); /* snw_alloc blocks are 16-byte aligned or more */
        s->growth = (float *)snw_calloc(a, max_joints, sizeof(float));
        if (!s->local || !s->fast || !s->growth) {
            sinew_crowd_destroy(c);
            return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    *out = c;
    return SINEW_OK;
}

static sinew_result add_model(sinew_crowd *c, const sinew_crowd_model_desc *m, sinew_model_id *model_id)
{
    if (m->mesh_count > SINEW_CROWD_MAX_MESHES) return SINEW_ERROR_LIMIT_EXCEEDED;
    if (m->mesh_count > 0 && (!m->meshes || !m->vertex_counts)) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t joints = sinew_skeleton_joint_count(m->skeleton);
    if (joints == 0) return SINEW_ERROR_EMPTY;
    if (joints > c->max_joints) return SINEW_ERROR_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        if (m->vertex_counts[i] == 0) return SINEW_ERROR_EMPTY;
    if (m->mesh_count > 0 && !c->skinner) return SINEW_ERROR_INVALID_ARGUMENT;
    if (m->bounds) {
        if (m->mesh_count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const sinew_crowd_mesh_bounds *b = &m->bounds[i];
            if (!b->joints || !b->neighbors) return SINEW_ERROR_INVALID_ARGUMENT;
            /* morph growth data: for the mesh's targets as the model's morphs declare them */
            if (b->morph_deltas && (!m->morphs || m->morphs[i].target_count != b->morph_target_count))
                return SINEW_ERROR_INVALID_ARGUMENT;
        }
    }
    if (m->morphs) {
        if (m->mesh_count == 0 || !c->morpher) return SINEW_ERROR_INVALID_ARGUMENT;
        for (uint32_t i = 0; i < m->mesh_count; i++) {
            const sinew_crowd_mesh_morph *mm = &m->morphs[i];
            if (mm->target_count > SINEW_MORPH_MAX_TARGETS) return SINEW_ERROR_LIMIT_EXCEEDED;
            if ((uint64_t)mm->first_weight + mm->target_count > c->max_morph_weights) return SINEW_ERROR_LIMIT_EXCEEDED;
            for (uint32_t t = 0; mm->default_weights && t < mm->target_count; t++)
                if (!isfinite(mm->default_weights[t]) || fabsf(mm->default_weights[t]) > 1e6f) return SINEW_ERROR_NON_FINITE;
        }
    }
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        uint32_t have = sinew_skinner_mesh_vertex_count(c->skinner, m->meshes[i]);
        if (have == 0) return SINEW_ERROR_NOT_FOUND; /* the skinner refuses empty meshes */
        if (sinew_skinner_mesh_joint_count(c->skinner, m->meshes[i]) != joints) return SINEW_ERROR_INVALID_ARGUMENT;
        if (m->vertex_counts[i] != have) return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if (c->model_count >= c->max_models) return SINEW_ERROR_CAPACITY;
    crowd_model *cm = &c->models[c->model_count];
    memset(cm, 0, sizeof *cm);
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
    if (model_id) model_id->value = c->model_count;
    c->model_count++;
    return SINEW_OK;
}

sinew_result sinew_crowd_add_model(sinew_crowd *c, const sinew_crowd_model_desc *m, sinew_model_id *model_id)
{
    if (!c || !m || !m->skeleton) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!crowd_enter(c)) return SINEW_ERROR_IN_USE;
    sinew_result r = add_model(c, m, model_id);
    crowd_leave(c);
    return r;
}

uint32_t sinew_crowd_palette_vec4(const sinew_crowd *c, sinew_model_id model, sinew_method method, uint32_t flags)
{
    if (!c || model.value >= c->model_count || (unsigned)method >= SINEW_METHOD_COUNT) return 0;
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

/* Serial validation and layout: palette offsets (and, when with_instances,
 * the instance list). Returns the total palette slots through *total_vec4. */
static sinew_result crowd_layout(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 int with_instances, uint64_t *total_vec4, uint64_t *total_joints,
                                 uint64_t *total_vertices, uint32_t *ninst, uint32_t *bad)
{
    uint64_t slots = 0, joints = 0, verts = 0;
    uint32_t inst = 0;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        *bad = i;
        if (ch->model.value >= c->model_count) return SINEW_ERROR_NOT_FOUND;
        if ((unsigned)ch->method >= SINEW_METHOD_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
        if ((ch->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL) ||
            ((ch->flags & SINEW_SKIN_BULGE_INNER) && !(ch->flags & SINEW_SKIN_BULGE_CORRECTION)))
            return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(ch->time)) return SINEW_ERROR_NON_FINITE;
        if (ch->root && !mat4_finite(ch->root)) return SINEW_ERROR_NON_FINITE;
        const crowd_model *m = &c->models[ch->model.value];
        if (!ch->pose && ch->clip) {
            if (sinew_clip_joint_count(ch->clip) != m->joint_count) return SINEW_ERROR_INVALID_ARGUMENT;
            if ((unsigned)ch->wrap > SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
        }
        if (ch->morph_slots) { /* clip-driven morphs: slots of the model's morphed meshes */
            if (!c->morpher || !m->has_morphs || ch->meshes) return SINEW_ERROR_INVALID_ARGUMENT;
            uint32_t wc = !ch->pose && ch->clip ? sinew_clip_weight_count(ch->clip) : 0;
            if (wc > c->max_morph_weights) return SINEW_ERROR_LIMIT_EXCEEDED;
            for (uint32_t k = 0; k < m->mesh_count; k++) {
                if (ch->morph_slots[k].value == UINT32_MAX) continue;
                sinew_mesh_id copy;
                sinew_result mr = sinew_morpher_slot_mesh(c->morpher, ch->morph_slots[k], &copy);
                if (mr != SINEW_OK) return mr;
                if (m->morphs[k].target_count == 0 || sinew_skinner_mesh_vertex_count(c->skinner, copy) != m->vertex_counts[k])
                    return SINEW_ERROR_INVALID_ARGUMENT;
                if (wc && m->morphs[k].first_weight + m->morphs[k].target_count > wc) return SINEW_ERROR_INVALID_ARGUMENT;
            }
        }
        c->palette_offsets[i] = (uint32_t)slots;
        slots += (uint64_t)m->joint_count * sinew_palette_gpu_stride(ch->method, ch->flags);
        joints += m->joint_count;
        if (slots > UINT32_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
        if (with_instances) {
            c->first_instance[i] = inst;
            if (inst + m->mesh_count > c->max_instances) return SINEW_ERROR_CAPACITY;
            for (uint32_t k = 0; k < m->mesh_count; k++) {
                sinew_instance *in = &c->instances[inst++];
                in->mesh = m->meshes[k];
                if (ch->meshes) { /* override (morphed copies): same counts as the model's mesh */
                    uint32_t vc = sinew_skinner_mesh_vertex_count(c->skinner, ch->meshes[k]);
                    if (vc == 0) return SINEW_ERROR_NOT_FOUND;
                    if (vc != m->vertex_counts[k] ||
                        sinew_skinner_mesh_joint_count(c->skinner, ch->meshes[k]) != m->joint_count)
                        return SINEW_ERROR_INVALID_ARGUMENT;
                    in->mesh = ch->meshes[k];
                }
                in->method = ch->method;
                in->flags = ch->flags;
                in->palette_offset = c->palette_offsets[i];
                in->output_offset = (uint32_t)verts;
                in->reset_previous = false;
                c->instance_vertices[inst - 1] = m->vertex_counts[k];
                verts += m->vertex_counts[k];
                if (verts > UINT32_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
            }
        }
    }
    if (with_instances) c->first_instance[count] = inst;
    *total_vec4 = slots;
    *total_joints = joints;
    *total_vertices = verts;
    *ninst = inst;
    return SINEW_OK;
}

/* Skipped this frame (sinew_crowd_character.hidden / update_every). */
static int crowd_skipped(const sinew_crowd_character *ch, uint32_t index, uint64_t frame);

/* Clip-driven morph weights of the characters not skipped (serial, inside the
 * begun frame, before the palettes so that the jobs can grow the boxes of
 * morphed meshes): the items of this frame's sinew_morpher_set_frame call, and
 * each instance's weights (m_wofs). */
static sinew_result crowd_morph_gather(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count, uint32_t *bad)
{
    uint32_t n = 0, wused = 0;
    c->m_count = 0;
    c->m_any = 0;
    for (uint32_t k = 0; k < c->first_instance[count]; k++) c->m_wofs[k] = UINT32_MAX;
    for (uint32_t i = 0; i < count; i++) {
        const sinew_crowd_character *ch = &chars[i];
        if (!ch->morph_slots) continue;
        c->m_any = 1;
        if (crowd_skipped(ch, i, c->frame)) continue;
        const crowd_model *m = &c->models[ch->model.value];
        const sinew_clip *clip = !ch->pose ? ch->clip : NULL;
        uint32_t wc = clip ? sinew_clip_weight_count(clip) : 0;
        *bad = i;
        if (wc) {
            sinew_result r = sinew_clip_sample_weights(clip, ch->time, ch->wrap, NULL, wc, c->mw_sample);
            if (r != SINEW_OK) return r;
        }
        for (uint32_t k = 0; k < m->mesh_count; k++) {
            if (ch->morph_slots[k].value == UINT32_MAX) continue;
            const sinew_crowd_mesh_morph *mm = &m->morphs[k];
            if ((uint64_t)wused + mm->target_count > c->max_morph_weights) return SINEW_ERROR_CAPACITY;
            float *w = c->mw + wused;
            for (uint32_t t = 0; t < mm->target_count; t++) {
                uint32_t slot = mm->first_weight + t;
                double d = mm->default_weights ? (double)mm->default_weights[t] : 0.0;
                w[t] = wc && sinew_clip_animates_weight(clip, slot) ? (float)(c->mw_sample[slot] - d) : 0.0f;
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
 * (and no call) when no character has morph slots. */
static sinew_result crowd_morph_submit(sinew_crowd *c, uint32_t *bad)
{
    if (!c->m_any) return SINEW_OK;
    uint32_t n = c->m_count;
    sinew_morph_error err;
    sinew_result r = sinew_morpher_set_frame(c->morpher, c->m_items, n, c->m_meshes, &err);
    if (r != SINEW_OK) {
        if (err.index < n) *bad = c->m_char[err.index];
        return r;
    }
    for (uint32_t j = 0; j < n; j++) c->instances[c->m_inst[j]].mesh = c->m_meshes[j];
    return SINEW_OK;
}

static int crowd_skipped(const sinew_crowd_character *ch, uint32_t index, uint64_t frame)
{
    return ch->hidden || (ch->update_every > 1 && (frame + index) % ch->update_every != 0);
}

static void crowd_task(void *user, uint32_t task, uint32_t worker)
{
    sinew_crowd *c = (sinew_crowd *)user;
    crowd_scratch *s = &c->scratch[worker];
    uint32_t begin = task * c->job_chunk;
    uint32_t end = begin + c->job_chunk;
    if (end > c->job_count) end = c->job_count;
    for (uint32_t i = begin; i < end; i++) {
        const sinew_crowd_character *ch = &c->job_chars[i];
        if (c->job_skip && crowd_skipped(ch, i, c->frame)) continue; /* no palette for a skipped character */
        const crowd_model *m = &c->models[ch->model.value];
        sinew_palette_character pc = { 0 };
        pc.skeleton = m->skeleton;
        pc.method = ch->method;
        pc.flags = ch->flags;
        pc.root = ch->root;
        pc.wrap = ch->wrap;
        pc.time = ch->time;
        sinew_result r = SINEW_OK;
        if (ch->pose) {
            pc.pose = ch->pose;
        } else if (ch->clip) {
            pc.clip = ch->clip;
        } else if (ch->sample) {
            r = ch->sample(ch->sample_user, m->skeleton, i, ch->time, s->local);
            pc.pose = s->local;
        } /* else the rest pose */
        /* float32 palette straight into the destination; NON_FINITE when a
         * value does not fit in float32 */
        const float *pal = c->job_dst + (size_t)c->palette_offsets[i] * 4u;
        if (r == SINEW_OK)
            r = sinew_palette_build_f32(&pc, s->fast, s->fast_bytes, c->job_dst + (size_t)c->palette_offsets[i] * 4u);
        /* the box from the packed palette just written (the data the GPU reads);
         * none (NOT_FOUND) for CoR methods without centers in the bounds data, a
         * mesh given in ch->meshes other than the model's, or a morphed mesh without
         * morph growth data (or with a growth beyond float32) */
        if (c->job_skip) c->box_new_ok[i] = 0;
        int box = r == SINEW_OK && c->job_skip && m->has_bounds &&
                  (m->has_cor_bounds || !sinew_method_uses_centers(ch->method));
        for (uint32_t k = 0; box && ch->meshes && k < m->mesh_count; k++)
            box = ch->meshes[k].value == m->meshes[k].value;
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
            r = sinew_character_bounds_morphed(mb->joints, mb->neighbors, m->joint_count, ch->method, ch->flags, pal,
                                               growth, lo, hi);
            for (int a = 0; r == SINEW_OK && a < 3; a++) {
                b[a] = k == 0 || lo[a] < b[a] ? lo[a] : b[a];
                b[3 + a] = k == 0 || hi[a] > b[3 + a] ? hi[a] : b[3 + a];
            }
        }
        if (box && r == SINEW_OK) c->box_new_ok[i] = 1;
        if (r != SINEW_OK) {
            if (i < s->err_index) {
                s->err_index = i;
                s->err = r;
            }
            return; /* later characters of this chunk cannot hold an earlier error */
        }
    }
}

static sinew_result crowd_run(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                              float *dst, uint32_t *bad)
{
    for (uint32_t w = 0; w < c->scratch_count; w++) {
        c->scratch[w].err_index = UINT32_MAX;
        c->scratch[w].err = SINEW_OK;
    }
    uint32_t workers = c->scratch_count;
    uint32_t chunk = count / (workers * 8u);
    if (chunk < 1) chunk = 1;
    if (chunk > 256) chunk = 256;
    c->job_chars = chars;
    c->job_count = count;
    c->job_chunk = chunk;
    c->job_dst = dst;
    sinew_thread_pool_run(c->pool, (count + chunk - 1) / chunk, crowd_task, c);
    c->job_chars = NULL;
    c->job_dst = NULL;
    uint32_t first = UINT32_MAX;
    sinew_result r = SINEW_OK;
    for (uint32_t w = 0; w < workers; w++)
        if (c->scratch[w].err_index < first) {
            first = c->scratch[w].err_index;
            r = c->scratch[w].err;
        }
    if (r != SINEW_OK) *bad = first;
    return r;
}

static sinew_result build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                   uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                   uint32_t *palette_offsets, uint32_t *bad_character)
{
    uint32_t bad = UINT32_MAX;
    if (bad_character) *bad_character = UINT32_MAX;
    if (!chars || !dst || count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (count > c->max_characters) return SINEW_ERROR_CAPACITY;
    uint64_t slots, joints, verts;
    uint32_t ninst;
    sinew_result r = crowd_layout(c, chars, count, 0, &slots, &joints, &verts, &ninst, &bad);
    if (r == SINEW_OK && slots > dst_capacity_vec4) r = SINEW_ERROR_CAPACITY;
    if (r == SINEW_OK) r = crowd_run(c, chars, count, dst, &bad);
    if (r != SINEW_OK) {
        if (bad_character) *bad_character = bad;
        return r;
    }
    if (palette_offsets) memcpy(palette_offsets, c->palette_offsets, sizeof(uint32_t) * count);
    return SINEW_OK;
}

sinew_result sinew_crowd_build_palettes(sinew_crowd *c, const sinew_crowd_character *chars,
                                        uint32_t count, float *dst, uint32_t dst_capacity_vec4,
                                        uint32_t *palette_offsets, uint32_t *bad_character)
{
    if (!c) {
        if (bad_character) *bad_character = UINT32_MAX;
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if (!crowd_enter(c)) return SINEW_ERROR_IN_USE;
    sinew_result r = build_palettes(c, chars, count, dst, dst_capacity_vec4, palette_offsets, bad_character);
    crowd_leave(c);
    return r;
}

/* Ends a begun frame with no work, so the next begin_frame can proceed. */
static void crowd_abandon(sinew_crowd *c)
{
    sinew_skinner_set_instances(c->skinner, NULL, 0, NULL);
    sinew_skinner_end_frame(c->skinner, VK_NULL_HANDLE);
}

static sinew_result prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                            sinew_crowd_stats *stats, uint32_t *bad_character)
{
    uint32_t bad = UINT32_MAX;
    if (bad_character) *bad_character = UINT32_MAX;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!c->skinner || !chars || count == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (count > c->max_characters) return SINEW_ERROR_CAPACITY;
    c->instance_count = 0;
    c->character_count = 0;
    uint64_t slots, joints, verts;
    uint32_t ninst = 0;
    sinew_result r = crowd_layout(c, chars, count, 1, &slots, &joints, &verts, &ninst, &bad);
    if (r != SINEW_OK) {
        if (bad_character) *bad_character = bad;
        return r;
    }
    double t0 = now_ms();
    sinew_frame frame;
    r = sinew_skinner_begin_frame(c->skinner, &frame);
    if (r != SINEW_OK) return r;
    double t1 = now_ms();
    if (slots > frame.palette_capacity_vec4) {
        crowd_abandon(c);
        return SINEW_ERROR_CAPACITY;
    }
    if (c->morpher) { /* the weights first: the jobs grow morphed meshes' boxes by them */
        r = crowd_morph_gather(c, chars, count, &bad);
        if (r != SINEW_OK) {
            if (bad_character) *bad_character = bad;
            crowd_abandon(c);
            return r;
        }
    }
    c->job_skip = 1;
    r = crowd_run(c, chars, count, frame.palette, &bad);
    c->job_skip = 0;
    double t2 = now_ms();
    if (r != SINEW_OK) {
        if (bad_character) *bad_character = bad;
        crowd_abandon(c);
        return r;
    }
    if (c->morpher) {
        r = crowd_morph_submit(c, &bad);
        if (r != SINEW_OK) {
            if (bad_character) *bad_character = bad;
            crowd_abandon(c);
            return r;
        }
    }
    /* The instances of the characters not skipped: only they reach the GPU. */
    uint32_t nskin = 0, skipped = 0;
    uint64_t skin_verts = 0, skin_joints = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (crowd_skipped(&chars[i], i, c->frame)) {
            skipped++;
            continue;
        }
        /* Previous positions: reset where this index's output range held nothing
         * or another character's vertices last time it was skinned. */
        uint32_t first = c->first_instance[i] < c->first_instance[i + 1] ? c->instances[c->first_instance[i]].output_offset : 0u;
        bool reset = chars[i].reset_previous || i >= c->last_count || c->reset_owed[i] ||
                     c->last_model[i] != chars[i].model.value || c->last_output[i] != first;
        skin_joints += c->models[chars[i].model.value].joint_count;
        for (uint32_t k = c->first_instance[i]; k < c->first_instance[i + 1]; k++) {
            c->instances[k].reset_previous = reset;
            c->skinned[nskin++] = c->instances[k];
            skin_verts += c->instance_vertices[k];
        }
    }
    r = sinew_skinner_set_instances(c->skinner, c->skinned, nskin, NULL);
    if (r != SINEW_OK) {
        crowd_abandon(c);
        return r;
    }
    c->instance_count = ninst;
    c->character_count = count;
    /* Bookkeeping of previous positions, committed with the frame. A skipped
     * character that owed a reset, or whose layout changed, owes one until skinned. */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t first = c->first_instance[i] < c->first_instance[i + 1] ? c->instances[c->first_instance[i]].output_offset : 0u;
        bool changed = chars[i].reset_previous || i >= c->last_count || c->reset_owed[i] ||
                       c->last_model[i] != chars[i].model.value || c->last_output[i] != first;
        int skip = crowd_skipped(&chars[i], i, c->frame);
        c->reset_owed[i] = (uint8_t)(changed && skip);
        if (!skip) { /* boxes: skinned characters get this frame's; skipped ones keep theirs */
            c->box_valid[i] = c->box_new_ok[i];
            memcpy(c->box + (size_t)i * 6u, c->box_new + (size_t)i * 6u, sizeof(float) * 6u);
        } else if (i >= c->last_count) {
            c->box_valid[i] = 0;
        }
        c->last_model[i] = chars[i].model.value;
        c->last_output[i] = first;
    }
    c->last_count = count;
    c->frame++;
    if (stats) {
        stats->cpu_ms = t2 - t1;
        stats->wait_ms = t1 - t0;
        stats->characters = count;
        stats->instances = ninst;
        stats->joints = skin_joints;
        stats->palette_vec4 = (uint32_t)slots;
        stats->output_vertices = (uint32_t)skin_verts;
        stats->skipped = skipped;
    }
    (void)joints;
    (void)verts;
    return SINEW_OK;
}

sinew_result sinew_crowd_prepare(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                 sinew_crowd_stats *stats, uint32_t *bad_character)
{
    if (!c) {
        if (bad_character) *bad_character = UINT32_MAX;
        if (stats) memset(stats, 0, sizeof *stats);
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if (!crowd_enter(c)) return SINEW_ERROR_IN_USE;
    sinew_result r = prepare(c, chars, count, stats, bad_character);
    crowd_leave(c);
    return r;
}

sinew_result sinew_crowd_update(sinew_crowd *c, const sinew_crowd_character *chars, uint32_t count,
                                sinew_crowd_stats *stats, uint32_t *bad_character)
{
    if (!c) {
        if (bad_character) *bad_character = UINT32_MAX;
        if (stats) memset(stats, 0, sizeof *stats);
        return SINEW_ERROR_INVALID_ARGUMENT;
    }
    if (!crowd_enter(c)) return SINEW_ERROR_IN_USE;
    sinew_result r = prepare(c, chars, count, stats, bad_character);
    if (r == SINEW_OK) r = sinew_skinner_submit(c->skinner);
    crowd_leave(c);
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
