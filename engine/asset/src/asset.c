/* The front door of sinew_asset (README, "Assets"): sinew_asset_load checks
 * its arguments, sets the folder rule up (confine.c) and hands the file to
 * Sinew's glTF 2.0 importer (gltf.c) or to assimp (assimp.c);
 * sinew_asset_from_scene converts a caller's assimp scene. Both importers
 * build the asset with builder.c; error detail goes to the caller's
 * sinew_error_info. Also here: the accessors, and what is derived from the
 * asset's data (8-influence packing, rest meshes). */
#include "asset_internal.h"
#include "error_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- errors ------------------------------------------------------------------ */

void snw_strip_controls(char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) s[i] = '?';
}

sinew_result snw_asset_fail(snw_import_ctx *c, sinew_result r, const char *fmt, ...)
{
    va_list ap;
    c->err.result = r;
    c->err.item = SINEW_ITEM_FILE;
    c->err.index = c->err.entry = UINT32_MAX;
    va_start(ap, fmt);
    vsnprintf(c->err.message, sizeof c->err.message, fmt, ap);
    va_end(ap);
    snw_strip_controls(c->err.message, sizeof c->err.message);   /* names from files go into messages */
    return r;
}

sinew_result snw_asset_fail_at(snw_import_ctx *c, sinew_result r, sinew_item_kind item, uint32_t index, uint32_t entry,
                               const char *fmt, ...)
{
    va_list ap;
    c->err.result = r;
    c->err.item = item;
    c->err.index = index;
    c->err.entry = entry;
    va_start(ap, fmt);
    vsnprintf(c->err.message, sizeof c->err.message, fmt, ap);
    va_end(ap);
    snw_strip_controls(c->err.message, sizeof c->err.message);
    return r;
}

sinew_result snw_asset_progress(snw_import_ctx *c, double fraction)
{
    const sinew_asset_desc *d = c->desc;
    if (!d || !d->progress) return SINEW_OK;
    if (!(fraction >= 0)) fraction = 0;
    if (fraction > 1) fraction = 1;
    if (d->progress(d->progress_user, fraction)) return SINEW_OK;
    return snw_asset_fail_at(c, SINEW_ERROR_CANCELLED, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX,
                             "import cancelled by the progress callback at %.0f%%", fraction * 100.0);
}

/* ---- entry points ------------------------------------------------------------ */

/* Starts an import: error detail cleared, allocator resolved (the rule of
 * sinew/core.h; a bad one is INVALID_ARGUMENT). */
static sinew_result ctx_init(snw_import_ctx *c, const sinew_asset_desc *desc)
{
    c->desc = desc;
    snw_error_clear(&c->err);
    if (snw_allocator_resolve(desc ? desc->allocator : NULL, &c->alloc) != SINEW_OK)
        return snw_asset_fail_at(c, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                                 "the allocator has exactly one of alloc and free");
    return SINEW_OK;
}

/* Ends an import: an error without a message gets the result's name; the
 * detail goes to the caller's err (may be NULL). */
/* The names an asset owns (meshes, morph targets) without control characters
 * (joint and clip names: the builder). */
static void clean_names(sinew_asset *a)
{
    for (uint32_t i = 0; i < a->mesh_count; i++)
        if (a->meshes[i].name) snw_strip_controls((char *)(uintptr_t)a->meshes[i].name, (size_t)-1);
    for (uint32_t k = 0; k < a->morph_count; k++)
        if (a->morphs[k].name) snw_strip_controls((char *)(uintptr_t)a->morphs[k].name, (size_t)-1);
}

static sinew_result ctx_end(snw_import_ctx *c, sinew_result r, sinew_error_info *err)
{
    if (r && c->err.result == SINEW_OK)
        snw_asset_fail_at(c, r, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "%s", sinew_result_string(r));
    if (r) c->err.result = r;
    else snw_error_clear(&c->err);
    if (err) *err = c->err;
    return r;
}

sinew_result sinew_asset_from_scene(const struct aiScene *scene, const sinew_asset_desc *desc, sinew_asset **out,
                                    sinew_error_info *err)
{
    snw_import_ctx c;
    sinew_result r = ctx_init(&c, desc);
    if (out) *out = NULL;
    if (r) return ctx_end(&c, r, err);
    if (!out) r = snw_asset_fail_at(&c, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "out is NULL");
    else if (!scene) r = snw_asset_fail_at(&c, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "scene is NULL");
    else r = snw_assimp_from_scene(&c, scene, out);
    if (!r) clean_names(*out);
    return ctx_end(&c, r, err);
}

sinew_result sinew_asset_load(const sinew_asset_desc *desc, sinew_asset **out, sinew_error_info *err)
{
    snw_import_ctx c;
    sinew_result r = ctx_init(&c, desc);
    if (out) *out = NULL;
    if (r) return ctx_end(&c, r, err);
    if (!desc || !out)
        return ctx_end(&c, snw_asset_fail_at(&c, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                                             "desc or out is NULL"), err);
    if (!desc->path && (!desc->data || desc->size == 0))
        return ctx_end(&c, snw_asset_fail_at(&c, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                                             "neither a path nor data was given"), err);
    if (!desc->path && desc->size > 0x7fffffffu)
        return ctx_end(&c, snw_asset_fail(&c, SINEW_ERROR_LIMIT_EXCEEDED, "in-memory file larger than 2 GiB"), err);
    snw_confine *cf = snw_alloc(&c.alloc, sizeof *cf);
    if (!cf)
        return ctx_end(&c, snw_asset_fail_at(&c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX,
                                             "out of memory"), err);
    r = snw_confine_init(cf, &c);
    if (!r) {
        int g = snw_gltf_wanted(desc) ? snw_gltf_load(&c, cf, out) : SNW_GLTF_NOT_V2;
        if (g == SNW_GLTF_NOT_V2) {
            snw_error_clear(&c.err);
            r = snw_assimp_load(&c, cf, out);
        } else {
            r = (sinew_result)g;
        }
    }
    if (!r && cf->input_count) {
        sinew_asset *a = *out;
        a->input_ids = snw_alloc(&a->alloc, sizeof(uint64_t) * 2 * cf->input_count);
        if (a->input_ids) {
            memcpy(a->input_ids, cf->input_ids, sizeof(uint64_t) * 2 * cf->input_count);
            a->input_count = cf->input_count;
            a->inputs_overflow = cf->inputs_overflow;   /* more files than kept: every file counts as read */
        } else {
            sinew_asset_destroy(a);
            *out = NULL;
            r = snw_asset_fail_at(&c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
        }
    }
    snw_confine_release(cf);
    snw_free(&c.alloc, cf);
    if (!r) clean_names(*out);
    return ctx_end(&c, r, err);
}

/* ---- the asset ------------------------------------------------------------------ */

void sinew_asset_destroy(sinew_asset *a)
{
    if (!a) return;
    sinew_allocator al = a->alloc; /* copied out: it lives in the block freed last */
    sinew_skeleton_destroy(a->skel);
    snw_free(&al, a->vertices); snw_free(&al, a->rest_pos); snw_free(&al, a->rest_nrm); snw_free(&al, a->tangents); snw_free(&al, a->indices);
    snw_free(&al, a->meshes); snw_free(&al, a->names);
    snw_free(&al, a->infl_offsets); snw_free(&al, a->infl_joints); snw_free(&al, a->infl_weights);
    snw_free(&al, a->morphs); snw_free(&al, a->morph_default); snw_free(&al, a->morph_idx);
    snw_free(&al, a->morph_dp); snw_free(&al, a->morph_dn); snw_free(&al, a->morph_dt); snw_free(&al, a->morph_names);
    snw_free(&al, a->input_ids);
    for (uint32_t i = 0; i < a->clip_count; i++) sinew_clip_destroy(a->clips[i]);
    snw_free(&al, a->clips);
    snw_free(&al, a);
}

void snw_asset_free(sinew_asset *a) { sinew_asset_destroy(a); }

const sinew_skeleton *sinew_asset_skeleton(const sinew_asset *a) { return a ? a->skel : NULL; }
uint32_t sinew_asset_vertex_count(const sinew_asset *a) { return a ? a->vertex_count : 0; }
const sinew_vertex *sinew_asset_vertices(const sinew_asset *a) { return a ? a->vertices : NULL; }
const double *sinew_asset_rest_positions(const sinew_asset *a) { return a ? a->rest_pos : NULL; }
const double *sinew_asset_rest_normals(const sinew_asset *a) { return a ? a->rest_nrm : NULL; }
const sinew_tangent *sinew_asset_tangents(const sinew_asset *a) { return a ? a->tangents : NULL; }
uint32_t sinew_asset_index_count(const sinew_asset *a) { return a ? a->index_count : 0; }
const uint32_t *sinew_asset_indices(const sinew_asset *a) { return a ? a->indices : NULL; }
uint32_t sinew_asset_mesh_count(const sinew_asset *a) { return a ? a->mesh_count : 0; }
const sinew_asset_mesh_info *sinew_asset_mesh(const sinew_asset *a, uint32_t i)
{
    return a && i < a->mesh_count ? &a->meshes[i] : NULL;
}
uint32_t sinew_asset_clip_count(const sinew_asset *a) { return a ? a->clip_count : 0; }
const sinew_clip *sinew_asset_clip(const sinew_asset *a, uint32_t i)
{
    return a && i < a->clip_count ? a->clips[i] : NULL;
}
int32_t sinew_asset_find_clip(const sinew_asset *a, const char *name)
{
    if (!a || !name) return -1;
    for (uint32_t i = 0; i < a->clip_count; i++)
        if (strcmp(sinew_clip_name(a->clips[i]), name) == 0) return (int32_t)i;
    return -1;
}
const sinew_asset_import_stats *sinew_asset_stats(const sinew_asset *a) { return a ? &a->stats : NULL; }
const sinew_morph_target *sinew_asset_morph_targets(const sinew_asset *a, uint32_t mesh, uint32_t *count,
                                                   const float **default_weights)
{
    if (count) *count = 0;
    if (default_weights) *default_weights = NULL;
    if (!a || mesh >= a->mesh_count || !a->meshes[mesh].morph_count) return NULL;
    const sinew_asset_mesh_info *m = &a->meshes[mesh];
    if (count) *count = m->morph_count;
    if (default_weights) *default_weights = a->morph_default + m->first_morph;
    return a->morphs + m->first_morph;
}

sinew_result sinew_asset_influences(const sinew_asset *a, const uint32_t **offsets, const uint32_t **joints,
                                    const float **weights)
{
    if (!a || !offsets || !joints || !weights) return SINEW_ERROR_INVALID_ARGUMENT;
    *offsets = a->infl_offsets; *joints = a->infl_joints; *weights = a->infl_weights;
    return SINEW_OK;
}
double sinew_asset_size(const sinew_asset *a) { return a ? a->size : 0; }

sinew_result sinew_asset_bind_pose(const sinew_asset *a, sinew_transform *local_out)
{
    if (!a || !local_out) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t n = sinew_skeleton_joint_count(a->skel);
    for (uint32_t j = 0; j < n; j++) {
        sinew_result r = sinew_transform_from_mat4(sinew_skeleton_bind_local(a->skel, j), &local_out[j], NULL);
        if (r) return r;
    }
    return SINEW_OK;
}

sinew_result sinew_asset_vertices8(const sinew_asset *a, sinew_vertex8 *out, sinew_pack_stats *stats)
{
    if (!a || !out || !a->infl_offsets) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t nv = a->vertex_count;
    float *fp = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    float *fn = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    if (!fp || !fn) {
        snw_free(&a->alloc, fp); snw_free(&a->alloc, fn);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* the same float32 positions and normals the 4-influence vertices were packed from */
    for (size_t k = 0; k < (size_t)nv * 3; k++) { fp[k] = (float)a->rest_pos[k]; fn[k] = (float)a->rest_nrm[k]; }
    sinew_influences inf = { 0 };
    inf.offsets = a->infl_offsets; inf.joints = a->infl_joints; inf.weights = a->infl_weights;
    sinew_result r = sinew_pack_vertices8(nv, fp, fn, &inf, sinew_skeleton_joint_count(a->skel), out, stats, NULL);
    snw_free(&a->alloc, fp); snw_free(&a->alloc, fn);
    return r;
}

sinew_result sinew_asset_rest_mesh(const sinew_asset *a, uint32_t mesh, uint32_t max_influences, sinew_rest_mesh **out,
                                   sinew_error_info *err)
{
    snw_error_clear(err);
    if (!a || !out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "%s is NULL", !a ? "asset" : "out");
    *out = NULL;
    if (!a->infl_offsets)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "the asset has no influences");
    uint32_t first_v = 0, nv = a->vertex_count, first_i = 0, ni = a->index_count;
    if (mesh != SINEW_ASSET_ALL_MESHES) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, mesh);
        if (!mi)
            return snw_fail(err, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MESH, mesh, "mesh %u: the asset has %u meshes", mesh,
                            sinew_asset_mesh_count(a));
        first_v = mi->first_vertex, nv = mi->vertex_count, first_i = mi->first_index, ni = mi->index_count;
    }
    float *fp = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    float *fn = (float *)snw_alloc(&a->alloc, sizeof(float) * 3 * ((size_t)nv ? nv : 1));
    uint32_t *tri = (uint32_t *)snw_alloc(&a->alloc, sizeof(uint32_t) * ((size_t)ni ? ni : 1));
    sinew_result r = SINEW_OK;
    if (!fp || !fn || !tri) {
        r = snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "asset rest mesh: out of host memory");
        goto done;
    }
    /* the same float32 positions and normals the packed vertices were made from */
    for (size_t k = 0; k < (size_t)nv * 3; k++) {
        fp[k] = (float)a->rest_pos[(size_t)first_v * 3 + k];
        fn[k] = (float)a->rest_nrm[(size_t)first_v * 3 + k];
    }
    for (uint32_t k = 0; k < ni; k++) {
        uint32_t g = a->indices[first_i + k];
        if (g < first_v || g - first_v >= nv) {
            r = snw_fail(err, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mesh, "mesh %u: index %u outside its vertices", mesh, g);
            goto done;
        }
        tri[k] = g - first_v;
    }
    sinew_rest_mesh_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = a->skel;
    d.vertex_count = nv;
    d.positions = fp;
    d.normals = fn;
    d.packed_tangents = a->tangents ? a->tangents + first_v : NULL;
    d.influences.offsets = a->infl_offsets + first_v; /* CSR offsets are absolute: a slice needs no rebase */
    d.influences.joints = a->infl_joints;
    d.influences.weights = a->infl_weights;
    d.max_influences = max_influences;
    d.triangles = ni >= 3 ? tri : NULL;
    d.triangle_count = ni / 3;
    d.allocator = &a->alloc;
    r = sinew_rest_mesh_create(&d, out, err);
done:
    snw_free(&a->alloc, fp);
    snw_free(&a->alloc, fn);
    snw_free(&a->alloc, tri);
    return r;
}

bool sinew_asset_reads_file(const sinew_asset *a, const char *path)
{
    struct stat st;
    if (!a || !path || stat(path, &st) != 0) return false;
    if (a->inputs_overflow) return true;
    for (uint32_t i = 0; i < a->input_count; i++)
        if (a->input_ids[2 * i] == (uint64_t)st.st_dev && a->input_ids[2 * i + 1] == (uint64_t)st.st_ino) return true;
    return false;
}
