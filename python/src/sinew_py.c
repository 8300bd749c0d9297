/* The C side of the Python package (python/sinew): a flat API on plain arrays
 * over the asset, core, reference, bake and gpu layers, so that the Python side
 * declares a few functions and no Sinew struct layouts beyond sinew_error_info.
 * Loaded with cffi in ABI mode (ffi.dlopen): importing the package needs no
 * compiler. Array layouts (row-major, C-contiguous):
 *   local poses  n x joints x 10 doubles (translation xyz, rotation xyzw, scale xyz)
 *   palettes     n x joints x 46 doubles (sinew_palette_joint: skin 4x4 m[col][row],
 *                scale 4x4, rigid real xyzw + dual xyzw, seg_head xyz, seg_tail xyz)
 *   positions    n x vertices x 3 (doubles from the reference, floats from the GPU) */
#include <sinew/asset.h>
#include <sinew/cor.h>
#include <sinew/metrics.h>
#include <sinew/reference.h>
#include <sinew/anim.h>
#include <sinew/palette.h>
#include <sinew/morpher.h>
#include <sinew/skinner.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PY_API __attribute__((visibility("default")))

_Static_assert(sizeof(sinew_transform) == 10 * sizeof(double), "transform layout");
_Static_assert(sizeof(sinew_palette_joint) == 46 * sizeof(double), "palette layout");

static sinew_result fail(sinew_error_info *err, sinew_result r, sinew_item_kind item, uint32_t index, const char *msg)
{
    if (err) {
        err->result = r;
        err->item = item;
        err->index = index;
        err->entry = UINT32_MAX;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    return r;
}

static void clear(sinew_error_info *err)
{
    if (err) fail(err, SINEW_OK, SINEW_ITEM_NONE, UINT32_MAX, "");
}

typedef struct sinew_py_model sinew_py_model;
PY_API const char *sinew_py_morph_target(const sinew_py_model *m, uint32_t t, uint32_t *mesh, float *default_weight);

typedef struct sinew_py_model {
    sinew_asset *asset;
    sinew_rest_mesh *rest;   /* the whole character, 4 or 8 influences, triangles */
    uint32_t joints, vertices, triangles, morph_targets;
} sinew_py_model;

PY_API void sinew_py_model_destroy(sinew_py_model *m)
{
    if (!m) return;
    sinew_rest_mesh_destroy(m->rest);
    sinew_asset_destroy(m->asset);
    free(m);
}

PY_API sinew_result sinew_py_model_load(const char *path, sinew_py_model **out, sinew_error_info *err)
{
    clear(err);
    if (!path || !out) return fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "path is NULL");
    *out = NULL;
    sinew_py_model *m = calloc(1, sizeof *m);
    if (!m) return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
    /* external files (buffers, textures) only from the model's own folder */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    sinew_asset_desc d = { 0 };
    d.path = path;
    d.base_directory = dir;
    sinew_result r = sinew_asset_load(&d, &m->asset, err);
    if (!r) r = sinew_asset_rest_mesh(m->asset, SINEW_ASSET_ALL_MESHES, 0, &m->rest, err);
    if (r) {
        sinew_py_model_destroy(m);
        return r;
    }
    m->joints = sinew_skeleton_joint_count(sinew_asset_skeleton(m->asset));
    m->vertices = sinew_rest_mesh_vertex_count(m->rest);
    sinew_rest_mesh_triangles(m->rest, &m->triangles);
    for (uint32_t i = 0; i < sinew_asset_mesh_count(m->asset); i++) m->morph_targets += sinew_asset_mesh(m->asset, i)->morph_count;
    *out = m;
    return SINEW_OK;
}

/* counts[0..6]: vertices, triangles, joints, meshes, clips, influences per vertex (4 or 8), morph targets */
PY_API void sinew_py_model_counts(const sinew_py_model *m, uint32_t *counts)
{
    counts[0] = m->vertices;
    counts[1] = m->triangles;
    counts[2] = m->joints;
    counts[3] = sinew_asset_mesh_count(m->asset);
    counts[4] = sinew_asset_clip_count(m->asset);
    counts[5] = sinew_rest_mesh_influences(m->rest);
    counts[6] = m->morph_targets;
}

/* Views (zero-copy, valid while the model lives): rest positions / normals
 * (vertices x 3 doubles), triangles (triangles x 3). */
PY_API const double *sinew_py_rest_positions(const sinew_py_model *m) { return sinew_asset_rest_positions(m->asset); }
PY_API const double *sinew_py_rest_normals(const sinew_py_model *m) { return sinew_asset_rest_normals(m->asset); }
PY_API const uint32_t *sinew_py_triangles(const sinew_py_model *m)
{
    uint32_t n;
    return sinew_rest_mesh_triangles(m->rest, &n);
}
PY_API double sinew_py_model_size(const sinew_py_model *m) { return sinew_asset_size(m->asset); }

/* The packed influences: joints and weights (unorm16 / 65535), k = 4 or 8 per vertex. */
PY_API void sinew_py_influences(const sinew_py_model *m, uint16_t *joints, float *weights)
{
    const sinew_vertex *v = sinew_rest_mesh_vertices(m->rest);
    const sinew_vertex8 *v8 = sinew_rest_mesh_vertices8(m->rest);
    for (uint32_t i = 0; i < m->vertices; i++) {
        uint32_t k = v8 ? 8 : 4;
        for (uint32_t s = 0; s < k; s++) {
            joints[(size_t)k * i + s] = v8 ? v8[i].joints[s] : v[i].joints[s];
            weights[(size_t)k * i + s] = (float)((v8 ? v8[i].weights[s] : v[i].weights[s]) / 65535.0);
        }
    }
}

/* Parents (-1 for roots) and bind matrices (joints x 16 doubles, m[col][row]). */
PY_API void sinew_py_skeleton(const sinew_py_model *m, int32_t *parents, double *bind_global)
{
    const sinew_skeleton *s = sinew_asset_skeleton(m->asset);
    for (uint32_t j = 0; j < m->joints; j++) {
        parents[j] = sinew_skeleton_parent(s, j);
        memcpy(bind_global + 16 * (size_t)j, sinew_skeleton_bind_global(s, j), 16 * sizeof(double));
    }
}
PY_API const char *sinew_py_joint_name(const sinew_py_model *m, uint32_t j)
{
    return sinew_skeleton_name(sinew_asset_skeleton(m->asset), j);
}
PY_API const char *sinew_py_clip(const sinew_py_model *m, uint32_t i, double *duration)
{
    const sinew_clip *c = sinew_asset_clip(m->asset, i);
    *duration = sinew_clip_duration(c);
    return sinew_clip_name(c);
}

/* Local poses of a clip at n times (clip -1: the bind pose). wrap: 0 loop, 1 clamp. */
PY_API sinew_result sinew_py_sample(const sinew_py_model *m, int32_t clip, uint32_t n, const double *times, int wrap,
                                    double *local_out, sinew_error_info *err)
{
    clear(err);
    if (clip >= (int32_t)sinew_asset_clip_count(m->asset) || clip < -1)
        return fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CLIP, (uint32_t)clip, "no such clip");
    sinew_transform *out = (sinew_transform *)local_out;
    for (uint32_t f = 0; f < n; f++) {
        sinew_result r;
        if (clip < 0) r = sinew_asset_bind_pose(m->asset, out + (size_t)f * m->joints);
        else r = sinew_clip_sample(sinew_asset_clip(m->asset, (uint32_t)clip), sinew_asset_skeleton(m->asset), times[f],
                                   wrap ? SINEW_WRAP_CLAMP : SINEW_WRAP_LOOP, out + (size_t)f * m->joints);
        if (r) return fail(err, r, SINEW_ITEM_ARGUMENT, f, "sampling failed at this frame (index): a non-finite time?");
    }
    return SINEW_OK;
}

/* Morph weights of a clip at n times (n x morph targets floats): the clip's
 * weight tracks, the file's default weights where a target has none (or for
 * clip -1 / a clip without weight tracks). */
PY_API sinew_result sinew_py_sample_weights(const sinew_py_model *m, int32_t clip, uint32_t n, const double *times,
                                            int wrap, float *out, sinew_error_info *err)
{
    clear(err);
    uint32_t nt = m->morph_targets;
    if (clip >= (int32_t)sinew_asset_clip_count(m->asset) || clip < -1)
        return fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CLIP, (uint32_t)clip, "no such clip");
    if (nt == 0) return SINEW_OK;
    const sinew_clip *c = clip < 0 ? NULL : sinew_asset_clip(m->asset, (uint32_t)clip);
    double *d = malloc(2 * (size_t)nt * sizeof *d);
    if (!d) return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
    uint32_t mesh;
    float dw;
    for (uint32_t t = 0; t < nt; t++) {
        sinew_py_morph_target(m, t, &mesh, &dw);
        d[t] = dw;
    }
    if (c && sinew_clip_weight_count(c) == 0) c = NULL; /* no weight tracks: the defaults */
    if (c && sinew_clip_weight_count(c) != nt) {
        free(d);
        return fail(err, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, (uint32_t)clip,
                    "the clip's weight tracks do not match the model's morph targets");
    }
    sinew_result r = SINEW_OK;
    for (uint32_t f = 0; f < n && !r; f++) {
        r = sinew_clip_sample_weights(c, times[f], wrap ? SINEW_WRAP_CLAMP : SINEW_WRAP_LOOP, d, nt, d + nt);
        if (r) fail(err, r, SINEW_ITEM_ARGUMENT, f, "sampling weights failed at this frame (index): a non-finite time?");
        for (uint32_t t = 0; t < nt; t++) out[(size_t)f * nt + t] = (float)d[nt + t];
    }
    free(d);
    return r;
}

/* Palettes of n local poses for a method (46 doubles per joint). */
PY_API sinew_result sinew_py_palettes(const sinew_py_model *m, int method, uint32_t n, const double *local,
                                      double *palette_out, sinew_error_info *err)
{
    clear(err);
    sinew_mat4 *scratch = malloc(sinew_palette_scratch_count(m->joints) * sizeof *scratch);
    if (!scratch) return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
    sinew_result r = SINEW_OK;
    for (uint32_t f = 0; f < n && !r; f++) {
        r = sinew_palette_build(sinew_asset_skeleton(m->asset), (sinew_method)method,
                                (const sinew_transform *)local + (size_t)f * m->joints, NULL, scratch,
                                (sinew_palette_joint *)palette_out + (size_t)f * m->joints);
        if (r) {
            char msg[160];
            snprintf(msg, sizeof msg, "palette of frame %u for method %s: %s", f, sinew_method_name((sinew_method)method),
                     r == SINEW_ERROR_NOT_RIGID ? "the pose scales, shears or mirrors a joint (use a *-scale method)"
                                                : sinew_result_string(r));
            fail(err, r, SINEW_ITEM_ARGUMENT, f, msg);
        }
    }
    free(scratch);
    return r;
}

/* Centers of rotation (computed once; the CoR methods need them). */
PY_API sinew_result sinew_py_compute_centers(sinew_py_model *m, sinew_error_info *err)
{
    clear(err);
    if (sinew_rest_mesh_centers(m->rest)) return SINEW_OK;
    return sinew_rest_mesh_compute_centers(m->rest, NULL, err);
}
PY_API const float *sinew_py_centers(const sinew_py_model *m) { return sinew_rest_mesh_centers(m->rest); }

/* Float64 reference skinning of n palettes: pos (n x vertices x 3), nrm likewise or NULL. */
PY_API sinew_result sinew_py_skin_reference(sinew_py_model *m, int method, uint32_t flags, uint32_t n,
                                            const double *palettes, double *pos, double *nrm, sinew_error_info *err)
{
    clear(err);
    if (sinew_method_uses_centers((sinew_method)method)) {
        sinew_result r = sinew_py_compute_centers(m, err);
        if (r) return r;
    }
    for (uint32_t f = 0; f < n; f++) {
        size_t o = (size_t)f * m->vertices * 3;
        sinew_result r = sinew_reference_skin_cor(m->vertices, sinew_rest_mesh_vertices(m->rest),
                                                  sinew_rest_mesh_vertices8(m->rest), sinew_rest_mesh_centers(m->rest),
                                                  sinew_rest_mesh_bulge_distances(m->rest),
                                                  (const sinew_palette_joint *)palettes + (size_t)f * m->joints,
                                                  m->joints, (sinew_method)method, flags, pos + o, nrm ? nrm + o : NULL);
        if (r) return fail(err, r, SINEW_ITEM_ARGUMENT, f, "reference skinning refused this frame (index): bad method or flags?");
    }
    return SINEW_OK;
}

/* ---- morph targets (all meshes' targets in order, weights over all of them) ---- */

/* Morphed rest positions and normals of the whole character (vertices x 3 doubles):
 * the float64 morph rule per mesh, weights relative to the file's default weights
 * (the rest mesh already includes them). */
PY_API sinew_result sinew_py_morph(const sinew_py_model *m, const float *weights, double *pos, double *nrm,
                                   sinew_error_info *err)
{
    clear(err);
    const sinew_vertex *v = sinew_asset_vertices(m->asset);
    uint32_t first_target = 0;
    memcpy(pos, sinew_asset_rest_positions(m->asset), (size_t)m->vertices * 3 * sizeof(double));
    memcpy(nrm, sinew_asset_rest_normals(m->asset), (size_t)m->vertices * 3 * sizeof(double));
    for (uint32_t i = 0; i < sinew_asset_mesh_count(m->asset); i++) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(m->asset, i);
        uint32_t count;
        const float *defaults;
        const sinew_morph_target *t = sinew_asset_morph_targets(m->asset, i, &count, &defaults);
        if (!count) continue;
        float *w = malloc(count * sizeof *w);
        if (!w) return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
        for (uint32_t k = 0; k < count; k++) w[k] = weights[first_target + k] - defaults[k];
        sinew_result r = sinew_morph_reference(mi->vertex_count, v + mi->first_vertex, t, count, w,
                                               pos + 3 * (size_t)mi->first_vertex, nrm + 3 * (size_t)mi->first_vertex, err);
        free(w);
        if (r) {
            if (err && err->item == SINEW_ITEM_MORPH_TARGET) err->index += first_target;
            return r;
        }
        first_target += count;
    }
    return SINEW_OK;
}

/* Name, mesh and default weight of morph target t (over all meshes); NULL if none. */
PY_API const char *sinew_py_morph_target(const sinew_py_model *m, uint32_t t, uint32_t *mesh, float *default_weight)
{
    for (uint32_t i = 0; i < sinew_asset_mesh_count(m->asset); i++) {
        uint32_t count;
        const float *defaults;
        const sinew_morph_target *tg = sinew_asset_morph_targets(m->asset, i, &count, &defaults);
        if (t < count) {
            *mesh = i;
            *default_weight = defaults[t];
            return tg[t].name ? tg[t].name : "";
        }
        t -= count;
    }
    return NULL;
}

/* Reference skinning of given rest positions / normals (e.g. sinew_py_morph's),
 * 4-influence models, methods without centers. */
PY_API sinew_result sinew_py_skin_reference_rest(sinew_py_model *m, int method, uint32_t flags, uint32_t n,
                                                 const double *palettes, const double *rest_pos, const double *rest_nrm,
                                                 double *pos, double *nrm, sinew_error_info *err)
{
    clear(err);
    if (!sinew_rest_mesh_vertices(m->rest))
        return fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MODEL, UINT32_MAX,
                    "skinning a given rest shape needs a model with at most 4 influences per vertex");
    for (uint32_t f = 0; f < n; f++) {
        size_t o = (size_t)f * m->vertices * 3;
        sinew_result r = sinew_reference_skin_rest(m->vertices, sinew_rest_mesh_vertices(m->rest), rest_pos, rest_nrm,
                                                   sinew_rest_mesh_bulge_distances(m->rest),
                                                   (const sinew_palette_joint *)palettes + (size_t)f * m->joints,
                                                   m->joints, (sinew_method)method, flags, pos + o, nrm ? nrm + o : NULL);
        if (r) return fail(err, r, SINEW_ITEM_ARGUMENT, f, "reference skinning refused this frame (index): a CoR method, bad flags?");
    }
    return SINEW_OK;
}

/* ---- the GPU ---- */

/* Names of the Vulkan devices (256 chars each) and whether each is usable. */
PY_API sinew_result sinew_py_list_devices(char *names, uint8_t *usable, uint32_t max, uint32_t *count)
{
    sinew_gpu_device_info info[16];
    uint32_t n = 0;
    sinew_result r = sinew_gpu_list_devices(info, 16, &n);
    if (r) return r;
    *count = n;
    for (uint32_t i = 0; i < n && i < max && i < 16; i++) {
        memcpy(names + 256 * (size_t)i, info[i].name, 256);
        usable[i] = info[i].usable;
    }
    return SINEW_OK;
}

PY_API sinew_result sinew_py_gpu_create(const char *device, sinew_gpu **out, sinew_error_info *err)
{
    sinew_gpu_desc d = { 0 };
    d.device = device;
    return sinew_gpu_create(&d, out, err);
}
PY_API void sinew_py_gpu_destroy(sinew_gpu *g) { sinew_gpu_destroy(g); }
PY_API const char *sinew_py_gpu_name(const sinew_gpu *g) { return sinew_gpu_info(g)->name; }

typedef struct sinew_py_skinner {
    sinew_skinner *sk;
    sinew_mesh_id mesh;
    sinew_instance *inst;
    uint32_t batch, joints, vertices;
    /* morph targets (sinew_py_skinner_create with morph): the whole character's
     * targets as one set on the one mesh, one slot per pose of a batch */
    sinew_morpher *morpher;
    uint32_t targets;
    sinew_morph_target *all;      /* targets with indices into the whole character */
    uint32_t *indices;            /* their index arrays */
    float *defaults, *weights;    /* default weights; batch x targets scratch */
    sinew_morph_slot_id *slots;
    sinew_morph_item *items;
    sinew_mesh_id *meshes;
} sinew_py_skinner;

PY_API void sinew_py_skinner_destroy(sinew_py_skinner *s)
{
    if (!s) return;
    sinew_morpher_destroy(s->morpher);
    sinew_skinner_destroy(s->sk);
    free(s->inst);
    free(s->all);
    free(s->indices);
    free(s->defaults);
    free(s->weights);
    free(s->slots);
    free(s->items);
    free(s->meshes);
    free(s);
}

/* The model's morph targets with whole-character vertex indices, uploaded as one
 * set, and one slot per pose of the batch. */
static sinew_result add_morphs(sinew_py_skinner *s, const sinew_py_model *m, sinew_error_info *err)
{
    const sinew_asset *a = m->asset;
    uint64_t entries = 0;
    uint32_t t = 0, nt = m->morph_targets;
    for (uint32_t i = 0; i < sinew_asset_mesh_count(a); i++) {
        uint32_t count;
        const float *dw;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, i, &count, &dw);
        for (uint32_t k = 0; k < count; k++) entries += tg[k].count;
    }
    s->targets = nt;
    s->all = calloc(nt, sizeof *s->all);
    s->indices = malloc((entries ? entries : 1) * sizeof *s->indices);
    s->defaults = calloc(nt, sizeof *s->defaults);
    s->weights = calloc((size_t)nt * s->batch, sizeof *s->weights);
    s->slots = calloc(s->batch, sizeof *s->slots);
    s->items = calloc(s->batch, sizeof *s->items);
    s->meshes = calloc(s->batch, sizeof *s->meshes);
    if (!s->all || !s->indices || !s->defaults || !s->weights || !s->slots || !s->items || !s->meshes)
        return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
    uint64_t e = 0;
    for (uint32_t i = 0; i < sinew_asset_mesh_count(a); i++) {
        uint32_t count, first = sinew_asset_mesh(a, i)->first_vertex;
        const float *dw;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, i, &count, &dw);
        for (uint32_t k = 0; k < count; k++, t++) {
            s->all[t] = tg[k];
            s->all[t].tangent_deltas = NULL; /* the skinner skins no tangents */
            s->all[t].indices = s->indices + e;
            for (uint32_t q = 0; q < tg[k].count; q++) s->indices[e++] = tg[k].indices[q] + first;
            s->defaults[t] = dw[k];
        }
    }
    sinew_morpher_desc md = { 0 };
    md.max_sets = 1;
    md.max_slots = s->batch;
    md.max_data_vec4 = (uint32_t)(m->vertices + 4 * entries + 1 + 2 * m->joints);
    md.max_weights = nt * s->batch;
    sinew_morph_set_id set;
    sinew_result r = sinew_morpher_create(s->sk, &md, &s->morpher);
    if (r) return fail(err, r, SINEW_ITEM_CAPACITY, UINT32_MAX, "creating the morph pass failed");
    if ((r = sinew_morpher_add_targets(s->morpher, s->mesh, s->all, nt, &set, err))) return r;
    if ((r = sinew_morpher_set_skeleton(s->morpher, set, sinew_asset_skeleton(a))))
        return fail(err, r, SINEW_ITEM_MODEL, UINT32_MAX, "morphed bulge distances: skeleton refused");
    for (uint32_t k = 0; k < s->batch; k++)
        if ((r = sinew_morpher_add_slot(s->morpher, set, &s->slots[k])))
            return fail(err, r, SINEW_ITEM_CAPACITY, k, "morph slot refused");
    return SINEW_OK;
}

/* A skinner holding the model's rest mesh (with its centers when it has them),
 * able to skin `batch` poses in one dispatch; with morph (a model with morph
 * targets), also a morphed copy of the mesh per pose of the batch. */
PY_API sinew_result sinew_py_skinner_create(sinew_gpu *g, const sinew_py_model *m, uint32_t batch, int morph,
                                            sinew_py_skinner **out, sinew_error_info *err)
{
    clear(err);
    *out = NULL;
    if (batch == 0) return fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "batch must be > 0");
    sinew_py_skinner *s = calloc(1, sizeof *s);
    if (!s || !(s->inst = calloc(batch, sizeof *s->inst))) {
        free(s);
        return fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of memory");
    }
    s->batch = batch;
    s->joints = m->joints;
    s->vertices = m->vertices;
    sinew_skinner_desc sd = { 0 };
    uint32_t nv = m->vertices;
    morph = morph && m->morph_targets;
    sd.max_rest_vertices = sinew_rest_mesh_vertices8(m->rest) ? nv + (nv + 1) / 2 : nv;
    sd.max_rest_vertices *= morph ? 1 + batch : 1;
    sd.max_meshes = morph ? 1 + batch : 1;
    sd.max_instances = batch;
    sd.max_output_vertices = nv * batch;
    sd.max_palette_vec4 = m->joints * 8 * batch; /* the largest stride: DQS/CoR with scale + bulge */
    sd.frames_in_flight = 1;
    sd.cor_centers = sinew_rest_mesh_centers(m->rest) != NULL;
    sinew_result r = sinew_skinner_create(g, &sd, &s->sk, err);
    if (!r) r = sinew_skinner_add_rest_mesh(s->sk, m->rest, &s->mesh, err);
    if (!r && morph) r = add_morphs(s, m, err);
    if (r) {
        sinew_py_skinner_destroy(s);
        return r;
    }
    *out = s;
    return SINEW_OK;
}

/* Skins n palettes on the GPU, batch poses per dispatch: pos (n x vertices x 3
 * floats), nrm likewise or NULL. morph_weights: n x targets (the file's weights:
 * the defaults give the rest mesh), or NULL; needs a skinner made with morph. */
PY_API sinew_result sinew_py_skinner_run(sinew_py_skinner *s, int method, uint32_t flags, uint32_t n,
                                         const double *palettes, const float *morph_weights, float *pos, float *nrm,
                                         sinew_error_info *err)
{
    clear(err);
    uint32_t stride = sinew_palette_gpu_stride((sinew_method)method, flags);
    if (!stride) return fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "unknown method");
    if (morph_weights && !s->morpher)
        return fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                    "morph weights for a skinner made without morph targets");
    for (uint32_t f0 = 0; f0 < n; f0 += s->batch) {
        uint32_t c = n - f0 < s->batch ? n - f0 : s->batch;
        sinew_frame fr;
        sinew_result r = sinew_skinner_begin_frame(s->sk, &fr);
        if (r) return fail(err, r, SINEW_ITEM_CALL_ORDER, UINT32_MAX, "begin frame failed");
        for (uint32_t k = 0; k < c; k++) {
            r = sinew_palette_pack((sinew_method)method, flags,
                                   (const sinew_palette_joint *)palettes + (size_t)(f0 + k) * s->joints, s->joints,
                                   fr.palette + (size_t)k * s->joints * stride * 4);
            if (r) return fail(err, r, SINEW_ITEM_ARGUMENT, f0 + k, "palette of this frame (index) does not fit in float32");
            sinew_instance *in = &s->inst[k];
            memset(in, 0, sizeof *in);
            in->mesh = s->mesh;
            in->method = (sinew_method)method;
            in->flags = flags;
            in->palette_offset = k * s->joints * stride;
            in->output_offset = k * s->vertices;
        }
        if (morph_weights) {
            for (uint32_t k = 0; k < c; k++) {
                float *w = s->weights + (size_t)k * s->targets;
                for (uint32_t t = 0; t < s->targets; t++)
                    w[t] = morph_weights[(size_t)(f0 + k) * s->targets + t] - s->defaults[t];
                s->items[k].slot = s->slots[k];
                s->items[k].weights = w;
                s->items[k].weight_count = s->targets;
            }
            if ((r = sinew_morpher_set_frame(s->morpher, s->items, c, s->meshes, err))) {
                if (err) err->index += f0; /* the pose, not its place in the batch */
                return r;
            }
            for (uint32_t k = 0; k < c; k++) s->inst[k].mesh = s->meshes[k];
        }
        if ((r = sinew_skinner_set_instances(s->sk, s->inst, c, err))) return r;
        if ((r = sinew_skinner_submit(s->sk)) || (r = sinew_skinner_wait(s->sk))) {
            sinew_skinner_last_error(s->sk, err);
            return r;
        }
        size_t o = (size_t)f0 * s->vertices * 3;
        if ((r = sinew_skinner_read_output(s->sk, 0, c * s->vertices, pos + o, nrm ? nrm + o : NULL)))
            return fail(err, r, SINEW_ITEM_DEVICE, UINT32_MAX, "reading the GPU output failed");
    }
    return SINEW_OK;
}
