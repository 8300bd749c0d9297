/* Sinew's glTF 2.0 importer (.gltf with external or data-URI buffers, .glb):
 * json-c parses the JSON; everything glTF (buffers, accessors, sparse
 * accessors, normalized and quantized attributes, nodes, skins, animations)
 * is read here, by the rules of the glTF 2.0 specification. The result is the
 * same sinew_asset the assimp path builds (asset.h, README "Assets").
 *
 * Mapping
 *  - Joints: every node that is a joint of a used skin, every node holding a
 *    mesh without a skin, and all their ancestors, depth-first from the
 *    scene's roots (non-joint nodes between joints are joints too: they move
 *    their children). A node gets one joint per distinct inverse bind matrix
 *    it has in the skins that use it, so a mesh instanced under several skins
 *    whose joints are distinct nodes gets each instance skinned by its own skin.
 *  - Skinned instance (node with mesh and skin): vertices stay as in the file
 *    (the node's own transform is ignored, as the specification says); joint k
 *    of the skin is (node joints[k], inverseBindMatrices[k] or identity).
 *  - Unskinned instance: vertices to model space by the node's global
 *    transform, bound with weight 1 to the node's joint.
 *  - Samplers keep their interpolation (STEP, LINEAR, CUBICSPLINE with its
 *    tangents) in the clip; key times in seconds (ticks_per_second 1).
 *  - Morph targets: the default weights (node.weights, else mesh.weights) are
 *    applied to the rest positions, normals and tangents; the targets (normal
 *    and tangent deltas rescaled per vertex, see append_primitive) and weight
 *    animations are kept. */
#define _POSIX_C_SOURCE 200809L
#include "asset_internal.h"
#include "gltf_ext.h"

#include <json-c/json.h>

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define fail snw_asset_fail
#define fail_at snw_asset_fail_at

/* Largest element count of any accessor (vertex attributes are bounded by
 * max_vertices, keys by max_keys as well). */
#define GL_MAX_ACCESSOR_COUNT (1u << 26)
/* Largest file or external buffer read (bytes). */
#define GL_MAX_FILE_BYTES ((size_t)1 << 31)
/* A float32 bound with head room: a palette entry times a coordinate must stay finite. */
#define GL_FLOAT_LIMIT 1e30
/* Morph targets kept per primitive. */
#define GL_MAX_TARGETS 64

typedef struct gl_node {
    json_object *obj;
    int32_t parent;
    int in_scene;
    int has_matrix;
    sinew_transform trs;     /* rest local as T R S */
    sinew_mat4 local, global;
    const char *name;
} gl_node;

#define GL_MAX_DRACO_ATTRIBUTES 40 /* a primitive's Draco-decoded accessors (attributes + indices) */

typedef struct gl_buffer { const uint8_t *data; size_t len; uint8_t *owned; } gl_buffer;

typedef struct vec { void *p; uint32_t n, cap; size_t elem; } vec;

typedef struct gl {
    snw_import_ctx *c;
    snw_confine *cf;
    const sinew_allocator *al;
    uint32_t max_vertices, max_indices, max_joints, max_meshes, max_clips, max_keys, max_nodes;
    uint8_t *file;
    size_t file_size;
    const uint8_t *bin;      /* GLB BIN chunk */
    size_t bin_size;
    json_object *root;
    json_object *nodes_j, *meshes_j, *accessors_j, *views_j, *buffers_j, *skins_j, *anims_j;
    uint32_t n_nodes, n_meshes, n_accessors, n_views, n_buffers, n_skins, n_anims;
    gl_buffer *buffers;
    gl_node *nodes;
    uint32_t *order, n_order;          /* scene nodes, depth-first */
    snw_builder b;                     /* joint graph: nodes' rest transforms, bind candidates, joints */
    int32_t **skin_cands;              /* per skin: candidate per joint (NULL = unused) */
    uint32_t *skin_joint_count;
    /* growing arrays */
    vec pos, nrm;            /* 3 doubles per vertex */
    vec tan;                 /* 4 doubles per vertex: model-space tangent xyz, bitangent sign (0 0 0 1: none) */
    uint32_t tangent_instances; /* instances whose primitive had TANGENT */
    vec infl_off;            /* per vertex: first influence */
    vec infl_joint;          /* candidate index until numbering, then joint */
    vec infl_weight;         /* float */
    vec idx;                 /* uint32, global vertex numbers */
    vec inst;                /* sinew_asset_mesh_info (name = offset into names, as an integer) */
    vec inst_name;           /* char */
    vec mt;                  /* gl_morph: kept morph targets, in instance order */
    vec m_idx;               /* uint32: vertex within its mesh */
    vec m_dp, m_dn, m_dt;    /* 3 floats per entry */
    uint8_t **mo_views;      /* EXT_meshopt_compression: decoded bytes per bufferView (lazily; gltf_meshopt.c) */
    /* KHR_draco_mesh_compression: the primitive being read's accessors decoded
     * from its Draco data (gltf_draco.cpp), tightly packed, read instead of their views */
    struct gl_draco_acc { int64_t acc; uint8_t *data; size_t len; uint32_t count; } dr[GL_MAX_DRACO_ATTRIBUTES];
    uint32_t n_dr;
    /* morph groups (one per instance primitive with targets: a run of mt with one mesh),
     * indexed by node once before the clips (read_weight_channel) */
    uint32_t n_mg, *mg_start, *mg_len, *mg_next, *mg_head;
    /* memory budget (sinew_asset_desc.max_memory): accessor arrays of the primitive
     * or clip being read (reset when they are freed) + the growing arrays' room */
    uint64_t budget, tmp_bytes, input_bytes;
    int zero_ok;             /* the accessor being read may come back NULL when all zero (morph deltas) */
    int integers_only;       /* the accessor being read must not be normalized (JOINTS_n, indices) */
} gl;

typedef struct gl_morph { uint32_t mesh, first, count; int has_normals, has_tangents; float w0; uint32_t name, node; } gl_morph;
#define GL_NO_NAME UINT32_MAX

/* ---- small helpers --------------------------------------------------------- */

static void *gz(gl *g, size_t n, size_t size) { return snw_calloc(g->al, n ? n : 1, size ? size : 1); }

static int grow_to(gl *g, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return 1;
    uint64_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    if (nc > 0xffffffffull) nc = 0xffffffffull;
    void *q = snw_alloc(g->al, (size_t)nc * elem);
    if (!q) return 0;
    if (*cap) memcpy(q, *p, (size_t)*cap * elem);
    snw_free(g->al, *p);
    *p = q;
    *cap = (uint32_t)nc;
    return 1;
}

/* Room for k more elements; returns the first of them (n grows by k), NULL when out of memory. */
static void *vec_push(gl *g, vec *v, uint32_t k)
{
    if ((uint64_t)v->n + k > 0xfffffff0u) return NULL;
    if (!grow_to(g, &v->p, &v->cap, v->n + k ? v->n + k : 1, v->elem)) return NULL; /* never NULL + 0 */
    void *q = (char *)v->p + (size_t)v->n * v->elem;
    memset(q, 0, (size_t)k * v->elem);
    v->n += k;
    return q;
}

static json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object)) return NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* An array member: *n its length (0 when absent). FORMAT when not an array. */
static sinew_result jarray(gl *g, json_object *o, const char *key, json_object **out, uint32_t *n, const char *where)
{
    json_object *v = jget(o, key);
    *out = v; *n = 0;
    if (!v) return SINEW_OK;
    if (!json_object_is_type(v, json_type_array)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s.%s is not an array", where, key);
    size_t len = json_object_array_length(v);
    if (len > GL_MAX_ACCESSOR_COUNT) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: %s.%s has %zu entries", where, key, len);
    *n = (uint32_t)len;
    return SINEW_OK;
}

/* An integer member in [lo, hi]; absent: *out = def (def == -1 means required). */
static sinew_result jint(gl *g, json_object *o, const char *key, int64_t lo, int64_t hi, int64_t def, int64_t *out,
                         const char *what, uint32_t index)
{
    json_object *v = jget(o, key);
    if (!v) {
        if (def == -1) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u has no '%s'", what, index, key);
        *out = def;
        return SINEW_OK;
    }
    int64_t x;
    if (json_object_is_type(v, json_type_int)) {
        x = json_object_get_int64(v);
        if (x == INT64_MAX || x == INT64_MIN) /* saturated by json-c: the literal is beyond 64 bits */
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u: '%s' is an integer beyond 64 bits", what, index, key);
    }
    else if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d == floor(d)) || fabs(d) > 9e15) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u: '%s' is not an integer", what, index, key);
        x = (int64_t)d;
    } else return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u: '%s' is not an integer", what, index, key);
    if (x < lo || x > hi) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u: '%s' = %lld out of range [%lld, %lld]", what, index, key,
                                      (long long)x, (long long)lo, (long long)hi);
    *out = x;
    return SINEW_OK;
}

static int jnum(json_object *v, double *out)
{
    if (!v) return 0;
    if (json_object_is_type(v, json_type_double)) *out = json_object_get_double(v);
    else if (json_object_is_type(v, json_type_int)) {
        /* json-c saturates an integer literal beyond 64 bits (a 100,001-digit one) to
         * INT64_MIN / UINT64_MAX: not the file's number, refused */
        int64_t x = json_object_get_int64(v);
        if (x == INT64_MAX || x == INT64_MIN) return 0;
        *out = (double)x;
    } else return 0;
    return isfinite(*out);
}

/* n numbers of an array member into out (exactly n). 0 absent, 1 read, -1 malformed. */
static int jnums(json_object *o, const char *key, double *out, uint32_t n)
{
    json_object *v = jget(o, key);
    if (!v) return 0;
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != n) return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!jnum(json_object_array_get_idx(v, i), &out[i])) return -1;
    return 1;
}

static const char *jstr(json_object *o, const char *key)
{
    json_object *v = jget(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* ---- files, GLB, JSON, buffers ------------------------------------------------ */

int snw_gltf_wanted(const sinew_asset_desc *d)
{
    const char *ext = NULL;
    if (d->path) {
        const char *slash = strrchr(d->path, '/');
        const char *dot = strrchr(slash ? slash : d->path, '.');
        ext = dot ? dot + 1 : NULL;
    } else {
        if (d->data && d->size >= 4 && memcmp(d->data, "glTF", 4) == 0) return 1;
        ext = d->hint;
    }
    return ext && (!strcasecmp(ext, "gltf") || !strcasecmp(ext, "glb"));
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static int b64val(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* A data URI's bytes (base64 only). */
static sinew_result data_uri(gl *g, uint32_t bi, const char *uri, size_t need, gl_buffer *b)
{
    const char *comma = strchr(uri, ',');
    if (!comma) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: data URI without ','", bi);
    size_t hl = (size_t)(comma - uri);
    if (hl < 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: data URI is not base64", bi);
    const char *s = comma + 1;
    size_t n = strlen(s);
    while (n && s[n - 1] == '=') n--;
    size_t out_len = n / 4 * 3 + (n % 4 == 3 ? 2 : n % 4 == 2 ? 1 : 0);
    if (n % 4 == 1) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: truncated base64", bi);
    if (out_len < need) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: data URI holds %zu bytes, byteLength is %zu", bi, out_len, need);
    uint8_t *o = snw_alloc(g->al, out_len ? out_len : 1);
    if (!o) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t acc = 0; int bits = 0; size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64val((unsigned char)s[i]);
        if (v < 0) { snw_free(g->al, o); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: bad base64 character", bi); }
        acc = (acc << 6) | (uint32_t)v; bits += 6;
        if (bits >= 8) { bits -= 8; if (k < out_len) o[k++] = (uint8_t)(acc >> bits); }
    }
    b->owned = o; b->data = o; b->len = out_len;
    return SINEW_OK;
}

/* An external buffer: the URI percent-decoded, relative, inside the folder. */
static sinew_result external_uri(gl *g, uint32_t bi, const char *uri, size_t need, gl_buffer *b)
{
    size_t n = strlen(uri);
    if (n > 4000) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: URI too long", bi);
    char path[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = uri[i];
        if (ch == '%' && i + 2 < n + 0 && hexval(uri[i + 1]) >= 0 && hexval(uri[i + 2]) >= 0) {
            ch = (char)(hexval(uri[i + 1]) * 16 + hexval(uri[i + 2]));
            i += 2;
            if (ch == 0) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: URI '%s' holds %%00", bi, uri);
        }
        path[k++] = ch;
    }
    path[k] = 0;
    /* a scheme (file:, http:, ...) before the first '/' is not a relative reference */
    const char *colon = strchr(path, ':'), *slash = strchr(path, '/');
    if (colon && (!slash || colon < slash))
        return fail(g->c, SINEW_ERROR_IO, "refused to open '%s': only relative references inside the model's folder are read", uri);
    int violation = 0;
    int fd = snw_confine_open_relative(g->cf, path, &violation);
    if (fd < 0) {
        if (violation)
            return fail(g->c, SINEW_ERROR_IO, "refused to open '%s': it %s (an import opens only regular files inside the model's folder)",
                        uri, g->cf->why);
        return fail(g->c, SINEW_ERROR_IO, "glTF: buffer %u: cannot open '%s'", bi, uri);
    }
    uint8_t *data = NULL;
    size_t size = 0;
    int rr = snw_read_fd(fd, g->al, GL_MAX_FILE_BYTES, &data, &size);
    if (rr == -3) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (rr) return fail(g->c, SINEW_ERROR_IO, "glTF: buffer %u: cannot read '%s'", bi, uri);
    b->owned = data; b->data = data; b->len = size;
    if (size < need) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: '%s' holds %zu bytes, byteLength is %zu", bi, uri, size, need);
    return SINEW_OK;
}

static sinew_result load_buffers(gl *g)
{
    g->buffers = gz(g, g->n_buffers, sizeof *g->buffers);
    if (!g->buffers) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < g->n_buffers; i++) {
        json_object *b = json_object_array_get_idx(g->buffers_j, i);
        int64_t len;
        sinew_result r = jint(g, b, "byteLength", 1, (int64_t)GL_MAX_FILE_BYTES, -1, &len, "buffer", i);
        if (r) return r;
        json_object *uj = jget(b, "uri");
        if (uj && !json_object_is_type(uj, json_type_string)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: uri is not a string", i);
        const char *uri = uj ? json_object_get_string(uj) : NULL;
        if (uj && (size_t)json_object_get_string_len(uj) != strlen(uri))
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u: uri holds a NUL", i);
        json_object *fb = jget(jget(jget(b, "extensions"), "EXT_meshopt_compression"), "fallback");
        if (!uri && fb && json_object_is_type(fb, json_type_boolean) && json_object_get_boolean(fb)) {
            /* EXT_meshopt_compression's fallback buffer: no data; only compressed views may use it */
            g->buffers[i].data = NULL; g->buffers[i].len = 0;
            continue;
        }
        if (!uri) {
            if (i != 0 || !g->bin) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer %u has no uri (and no GLB BIN chunk)", i);
            if (g->bin_size < (size_t)len) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: buffer 0: BIN chunk holds %zu bytes, byteLength is %lld", g->bin_size, (long long)len);
            g->buffers[i].data = g->bin; g->buffers[i].len = (size_t)len;
            continue;
        }
        if (strncmp(uri, "data:", 5) == 0) r = data_uri(g, i, uri, (size_t)len, &g->buffers[i]);
        else r = external_uri(g, i, uri, (size_t)len, &g->buffers[i]);
        if (r) return r;
        g->buffers[i].len = (size_t)len;
    }
    return SINEW_OK;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The file's bytes -> JSON text (and the GLB BIN chunk) -> parsed root. */
static sinew_result parse_file(gl *g, const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    size_t json_len = size;
    if (size >= 4 && memcmp(data, "glTF", 4) == 0) {
        if (size < 20) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: truncated header");
        if (rd32(data + 4) != 2) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: version %u (2 expected)", rd32(data + 4));
        size_t total = rd32(data + 8);
        if (total > size) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: header length %zu beyond the file's %zu bytes", total, size);
        /* (the chunk checks below subtract from total: it must hold the headers) */
        if (total < 20) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: header length %zu shorter than the 20 header bytes", total);
        size_t off = 12;
        size_t clen = rd32(data + off);
        if (rd32(data + off + 4) != 0x4E4F534Au) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: first chunk is not JSON");
        if (clen > total - off - 8) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: JSON chunk runs past the file");
        json = (const char *)data + off + 8;
        json_len = clen;
        off += 8 + clen;
        off = (off + 3) & ~(size_t)3;
        if (off + 8 <= total) {
            size_t blen = rd32(data + off);
            if (rd32(data + off + 4) == 0x004E4942u) {
                if (blen > total - off - 8) return fail(g->c, SINEW_ERROR_FORMAT, "GLB: BIN chunk runs past the file");
                g->bin = data + off + 8;
                g->bin_size = blen;
            }
        }
    }
    if (json_len > 0x7fffffff) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: JSON larger than 2 GiB");
    /* json-c gets a NUL-terminated copy: its tokener may look one byte past
     * the given length */
    char *text = snw_alloc(g->al, json_len + 1);
    if (!text) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(text, json, json_len);
    text[json_len] = 0;
    struct json_tokener *tok = json_tokener_new_ex(64);
    if (!tok) { snw_free(g->al, text); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    g->root = json_tokener_parse_ex(tok, text, (int)json_len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    snw_free(g->al, text);
    /* json-c gives no root with no error when an allocation failed (it has no
     * error code for it here): out of memory, not a malformed file */
    if (!g->root && (e == json_tokener_success || e == json_tokener_continue) && end < json_len)
        return fail_at(g->c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_FILE, UINT32_MAX, UINT32_MAX,
                       "glTF: out of memory while parsing the JSON (%zu bytes; stopped at byte %zu)", json_len, end);
    if (!g->root || e != json_tokener_success)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: JSON error at byte %zu: %s", end,
                    e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(e));
    for (size_t i = end; i < json_len; i++)
        if (json[i] != ' ' && json[i] != '\t' && json[i] != '\n' && json[i] != '\r' && json[i] != 0)
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: trailing data after the JSON at byte %zu", i);
    if (!json_object_is_type(g->root, json_type_object)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: the JSON is not an object");
    return SINEW_OK;
}

/* ---- accessors -------------------------------------------------------------- */

static uint32_t comp_size(int64_t t)
{
    switch (t) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

/* One component at p as double (normalized integers by the glTF rule). */
static double comp_read(const uint8_t *p, int64_t t, int normalized)
{
    switch (t) {
    case 5120: { int8_t v; memcpy(&v, p, 1); return normalized ? fmax(v / 127.0, -1.0) : v; }
    case 5121: { uint8_t v = *p; return normalized ? v / 255.0 : v; }
    case 5122: { int16_t v; memcpy(&v, p, 2); return normalized ? fmax(v / 32767.0, -1.0) : v; }
    case 5123: { uint16_t v; memcpy(&v, p, 2); return normalized ? v / 65535.0 : v; }
    case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { float v; memcpy(&v, p, 4); return v; }
    }
}

static uint32_t type_comps(const char *t, uint32_t *cols)
{
    *cols = 1;
    if (!t) return 0;
    if (!strcmp(t, "SCALAR")) return 1;
    if (!strcmp(t, "VEC2")) return 2;
    if (!strcmp(t, "VEC3")) return 3;
    if (!strcmp(t, "VEC4")) return 4;
    if (!strcmp(t, "MAT2")) { *cols = 2; return 4; }
    if (!strcmp(t, "MAT3")) { *cols = 3; return 9; }
    if (!strcmp(t, "MAT4")) { *cols = 4; return 16; }
    return 0;
}

/* EXT_meshopt_compression on bufferView vi (ext: its extension object): the
 * decoded bytes (decoded once, kept until the import ends), which must be the
 * view's byteLength. */
static sinew_result meshopt_view(gl *g, int64_t vi, json_object *ext, int64_t blen, const uint8_t **data)
{
    uint32_t v = (uint32_t)vi;
    if (g->mo_views && g->mo_views[v]) { *data = g->mo_views[v]; return SINEW_OK; }
    int64_t buf = 0, off = 0, len = 0, st = 0, count = 0;
    sinew_result r;
    if ((r = jint(g, ext, "buffer", 0, (int64_t)g->n_buffers - 1, -1, &buf, "EXT_meshopt_compression of bufferView", v)) ||
        (r = jint(g, ext, "byteOffset", 0, INT64_MAX / 4, 0, &off, "EXT_meshopt_compression of bufferView", v)) ||
        (r = jint(g, ext, "byteLength", 1, INT64_MAX / 4, -1, &len, "EXT_meshopt_compression of bufferView", v)) ||
        (r = jint(g, ext, "byteStride", 1, 256, -1, &st, "EXT_meshopt_compression of bufferView", v)) ||
        (r = jint(g, ext, "count", 1, GL_MAX_ACCESSOR_COUNT, -1, &count, "EXT_meshopt_compression of bufferView", v)))
        return r;
    static const char *modes[] = { "ATTRIBUTES", "TRIANGLES", "INDICES" };
    static const char *filters[] = { "NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL" };
    const char *ms = jstr(ext, "mode"), *fs = jstr(ext, "filter");
    int mode = -1, filter = fs ? -1 : SNW_MESHOPT_FILTER_NONE;
    for (int k = 0; k < 3; k++) if (ms && !strcmp(ms, modes[k])) mode = k;
    for (int k = 0; k < 4; k++) if (fs && !strcmp(fs, filters[k])) filter = k;
    if (mode < 0 || filter < 0)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: bufferView %u: EXT_meshopt_compression mode '%.32s' / filter '%.32s' unknown", v,
                    ms ? ms : "(none)", fs ? fs : "NONE");
    const gl_buffer *b = &g->buffers[buf];
    if ((uint64_t)off + (uint64_t)len > b->len)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: bufferView %u: EXT_meshopt_compression data runs past buffer %lld (%llu > %zu bytes)",
                    v, (long long)buf, (unsigned long long)off + (unsigned long long)len, b->len);
    if ((uint64_t)count * (uint64_t)st != (uint64_t)blen)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: bufferView %u: EXT_meshopt_compression count %lld x byteStride %lld is not the view's byteLength %lld",
                    v, (long long)count, (long long)st, (long long)blen);
    if (!g->mo_views && !(g->mo_views = gz(g, g->n_views, sizeof *g->mo_views))) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    /* the codec's largest ratio bounds what a small file can make us allocate */
    if ((uint64_t)blen > (uint64_t)len * SNW_MESHOPT_MAX_RATIO + 4096)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: bufferView %u: EXT_meshopt_compression claims %lld bytes from %lld compressed (more than %ux)",
                    v, (long long)blen, (long long)len, SNW_MESHOPT_MAX_RATIO);
    uint8_t *d = snw_alloc(g->al, (size_t)blen);
    if (!d) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    const char *e = snw_meshopt_decode(d, b->data + off, (size_t)len, (uint32_t)count, (uint32_t)st, mode, filter);
    if (e) {
        snw_free(g->al, d);
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: bufferView %u: EXT_meshopt_compression: %s", v, e);
    }
    g->mo_views[v] = d;
    *data = d;
    return SINEW_OK;
}

/* A view's bytes: [*data, *data + *len), its byteStride (0 = packed). */
static sinew_result view_bytes(gl *g, int64_t vi, const uint8_t **data, size_t *len, uint32_t *stride, const char *what, uint32_t ai)
{
    json_object *v = json_object_array_get_idx(g->views_j, (size_t)vi);
    int64_t buf = 0, off = 0, blen = 0, st = 0;
    sinew_result r;
    if ((r = jint(g, v, "buffer", 0, (int64_t)g->n_buffers - 1, -1, &buf, "bufferView", (uint32_t)vi))) return r;
    if ((r = jint(g, v, "byteOffset", 0, INT64_MAX / 4, 0, &off, "bufferView", (uint32_t)vi))) return r;
    if ((r = jint(g, v, "byteLength", 1, INT64_MAX / 4, -1, &blen, "bufferView", (uint32_t)vi))) return r;
    if ((r = jint(g, v, "byteStride", 4, 252, 0, &st, "bufferView", (uint32_t)vi))) return r;
    json_object *mo = jget(jget(v, "extensions"), "EXT_meshopt_compression");
    if (mo) {
        if ((r = meshopt_view(g, vi, mo, blen, data))) return r;
        *len = (size_t)blen;
        *stride = (uint32_t)st;
        return SINEW_OK;
    }
    const gl_buffer *b = &g->buffers[buf];
    if ((uint64_t)off + (uint64_t)blen > b->len)
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s %u: bufferView %lld runs past buffer %lld (%llu > %zu bytes)", what, ai,
                    (long long)vi, (long long)buf, (unsigned long long)off + (unsigned long long)blen, b->len);
    *data = b->data + off;
    *len = (size_t)blen;
    *stride = (uint32_t)st;
    return SINEW_OK;
}

/* Room held by the growing arrays (what the asset will copy). */
static uint64_t vec_bytes(const gl *g)
{
    const vec *vs[] = { &g->pos, &g->nrm, &g->tan, &g->infl_off, &g->infl_joint, &g->infl_weight, &g->idx, &g->inst,
                        &g->inst_name, &g->mt, &g->m_idx, &g->m_dp, &g->m_dn, &g->m_dt };
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) n += (uint64_t)vs[i]->cap * vs[i]->elem;
    return n;
}

/* The memory budget before an accessor of `bytes` is materialised: LIMIT_EXCEEDED
 * naming the accessor and what uses it. */
static sinew_result budget_check(gl *g, uint64_t bytes, const char *what, uint32_t a)
{
    uint64_t held = g->tmp_bytes + vec_bytes(g);
    if (held + bytes <= g->budget) return SINEW_OK;
    return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED,
                "glTF: %s: accessor %u would take %.1f MiB on top of %.1f MiB held, beyond the import's memory budget of %.1f MiB "
                "(sinew_asset_desc.max_memory; default 512 MiB + 64 x the file and its buffers)",
                what, a, (double)bytes / 1048576.0, (double)held / 1048576.0, (double)g->budget / 1048576.0);
}

/* Reads accessor ai into a new array of count * comps doubles. types: allowed
 * component types (0-terminated list); want_comps: the type's component count
 * (0 = any); max_count bounds count. */
static sinew_result read_accessor(gl *g, int64_t ai, const int64_t *types, uint32_t want_comps, uint32_t max_count,
                                  double **out, uint32_t *count_out, uint32_t *comps_out, const char *what)
{
    *out = NULL;
    if (ai < 0 || ai >= g->n_accessors) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s names accessor %lld of %u", what, (long long)ai, g->n_accessors);
    uint32_t a = (uint32_t)ai;
    json_object *acc = json_object_array_get_idx(g->accessors_j, a);
    int64_t ct = 0, count = 0, off = 0, view = -1;
    sinew_result r;
    if ((r = jint(g, acc, "componentType", 5120, 5126, -1, &ct, "accessor", a))) return r;
    if ((r = jint(g, acc, "count", 1, GL_MAX_ACCESSOR_COUNT, -1, &count, "accessor", a))) return r;
    if ((r = jint(g, acc, "byteOffset", 0, INT64_MAX / 4, 0, &off, "accessor", a))) return r;
    if (jget(acc, "bufferView") && (r = jint(g, acc, "bufferView", 0, (int64_t)g->n_views - 1, -1, &view, "accessor", a))) return r;
    uint32_t cs = comp_size(ct), cols;
    uint32_t comps = type_comps(jstr(acc, "type"), &cols);
    if (!cs || !comps) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u: bad componentType %lld or type", a, (long long)ct);
    int ok = 0;
    for (const int64_t *t = types; *t; t++) ok |= *t == ct;
    if (!ok || (want_comps && comps != want_comps))
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s: accessor %u has componentType %lld / %u components, not allowed here", what, a, (long long)ct, comps);
    json_object *nj = jget(acc, "normalized");
    int normalized = nj && json_object_is_type(nj, json_type_boolean) && json_object_get_boolean(nj);
    if (normalized && (ct == 5125 || ct == 5126)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u: normalized float/uint", a);
    if (normalized && g->integers_only)   /* the specification: JOINTS_n and indices are never normalized */
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s: accessor %u is normalized (JOINTS and indices must not be)", what, a);
    if ((uint64_t)count > max_count) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: %s: accessor %u has %lld elements (limit %u)", what, a, (long long)count, max_count);
    /* element layout: matrix columns start on 4-byte boundaries */
    uint32_t rows = comps / cols;
    uint32_t col_stride = (rows * cs + 3) & ~3u;
    uint32_t elem = cols > 1 ? cols * col_stride : comps * cs;
    const struct gl_draco_acc *dra = NULL;
    for (uint32_t k = 0; k < g->n_dr; k++) if (g->dr[k].acc == ai) dra = &g->dr[k];
    if (dra && (dra->count != (uint64_t)count || cols > 1 || jget(acc, "sparse")))
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s: accessor %u has %lld elements, its Draco data %u (or is sparse / a matrix)",
                    what, a, (long long)count, dra->count);
    json_object *sp = jget(acc, "sparse");
    if (view < 0 && !sp && g->zero_ok && !dra) {
        /* all zeros by the specification: nothing to hold (morph deltas) */
        *count_out = (uint32_t)count;
        if (comps_out) *comps_out = comps;
        return SINEW_OK;
    }
    uint64_t bytes = (uint64_t)count * comps * sizeof(double);
    if ((r = budget_check(g, bytes, what, a))) return r;
    double *o = gz(g, (size_t)count * comps, sizeof *o);
    if (!o) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (view >= 0 || dra) {
        const uint8_t *vd; size_t vlen; uint32_t stride;
        if (dra) { vd = dra->data; vlen = dra->len; stride = elem; off = 0; } /* KHR_draco_mesh_compression */
        else if ((r = view_bytes(g, view, &vd, &vlen, &stride, "accessor", a))) { snw_free(g->al, o); return r; }
        if (stride && stride < elem)
            { snw_free(g->al, o); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s: accessor %u: bufferView %lld has byteStride %u, smaller than its %u-byte element", what, a, (long long)view, stride, elem); }
        if (!stride) stride = elem;
        uint64_t need = (uint64_t)off + (uint64_t)stride * (uint64_t)(count - 1) + elem;
        if (need > vlen) { snw_free(g->al, o); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u runs past its bufferView (%llu > %zu bytes)", a, (unsigned long long)need, vlen); }
        for (int64_t i = 0; i < count; i++) {
            const uint8_t *e = vd + off + (size_t)i * stride;
            for (uint32_t k = 0; k < comps; k++) {
                uint32_t col = k / rows, row = k % rows;
                o[(size_t)i * comps + k] = comp_read(e + col * col_stride + row * cs, ct, normalized);
            }
        }
    }
    if (sp) {
        int64_t sc, iv, io, ict, vv, vo;
        json_object *ind = jget(sp, "indices"), *val = jget(sp, "values");
        if ((r = jint(g, sp, "count", 1, count, -1, &sc, "sparse accessor", a)) ||
            (r = jint(g, ind, "bufferView", 0, (int64_t)g->n_views - 1, -1, &iv, "sparse indices of accessor", a)) ||
            (r = jint(g, ind, "byteOffset", 0, INT64_MAX / 4, 0, &io, "sparse indices of accessor", a)) ||
            (r = jint(g, ind, "componentType", 5121, 5125, -1, &ict, "sparse indices of accessor", a)) ||
            (r = jint(g, val, "bufferView", 0, (int64_t)g->n_views - 1, -1, &vv, "sparse values of accessor", a)) ||
            (r = jint(g, val, "byteOffset", 0, INT64_MAX / 4, 0, &vo, "sparse values of accessor", a))) { snw_free(g->al, o); return r; }
        uint32_t ics = comp_size(ict);
        if (ict == 5122 || !ics) { snw_free(g->al, o); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u: sparse index type %lld", a, (long long)ict); }
        const uint8_t *id, *vd; size_t il, vl; uint32_t ist, vst;
        if ((r = view_bytes(g, iv, &id, &il, &ist, "sparse accessor", a)) || (r = view_bytes(g, vv, &vd, &vl, &vst, "sparse accessor", a))) { snw_free(g->al, o); return r; }
        if ((uint64_t)io + (uint64_t)sc * ics > il || (uint64_t)vo + (uint64_t)sc * elem > vl) {
            snw_free(g->al, o);
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u: sparse indices or values run past their bufferView", a);
        }
        double prev = -1;
        for (int64_t s = 0; s < sc; s++) {
            double ix = comp_read(id + io + (size_t)s * ics, ict, 0);
            if (ix <= prev || ix >= (double)count) {
                snw_free(g->al, o);
                return fail(g->c, SINEW_ERROR_FORMAT, "glTF: accessor %u: sparse index %g out of order or >= count %lld", a, ix, (long long)count);
            }
            prev = ix;
            const uint8_t *e = vd + vo + (size_t)s * elem;
            for (uint32_t k = 0; k < comps; k++) {
                uint32_t col = k / rows, row = k % rows;
                o[(size_t)ix * comps + k] = comp_read(e + col * col_stride + row * cs, ct, normalized);
            }
        }
    }
    for (size_t i = 0; i < (size_t)count * comps; i++)
        if (!isfinite(o[i])) { snw_free(g->al, o); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: %s: accessor %u holds NaN or infinity", what, a); }
    *out = o;
    *count_out = (uint32_t)count;
    if (comps_out) *comps_out = comps;
    g->tmp_bytes += bytes;
    return SINEW_OK;
}

/* ---- nodes --------------------------------------------------------------------- */

static sinew_result read_nodes(gl *g)
{
    g->nodes = gz(g, g->n_nodes, sizeof *g->nodes);
    g->order = gz(g, g->n_nodes, sizeof *g->order);
    if (!g->nodes || !g->order) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < g->n_nodes; i++) g->nodes[i].parent = -1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        gl_node *n = &g->nodes[i];
        n->obj = json_object_array_get_idx(g->nodes_j, i);
        if (!json_object_is_type(n->obj, json_type_object)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u is not an object", i);
        n->name = jstr(n->obj, "name");
        json_object *ch; uint32_t nch;
        sinew_result r = jarray(g, n->obj, "children", &ch, &nch, "node");
        if (r) return r;
        for (uint32_t k = 0; k < nch; k++) {
            json_object *cj = json_object_array_get_idx(ch, k);
            if (!json_object_is_type(cj, json_type_int)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u: child %u is not an index", i, k);
            int64_t c = json_object_get_int64(cj);
            if (c < 0 || c >= g->n_nodes) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u names child %lld of %u nodes", i, (long long)c, g->n_nodes);
            if (g->nodes[c].parent >= 0 || c == i) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %lld has two parents (or is its own child)", (long long)c);
            g->nodes[c].parent = (int32_t)i;
        }
        double m[16], t[3] = { 0, 0, 0 }, q[4] = { 0, 0, 0, 1 }, s[3] = { 1, 1, 1 };
        int hm = jnums(n->obj, "matrix", m, 16), ht = jnums(n->obj, "translation", t, 3),
            hr = jnums(n->obj, "rotation", q, 4), hs = jnums(n->obj, "scale", s, 3);
        if (hm < 0 || ht < 0 || hr < 0 || hs < 0) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u: malformed matrix / translation / rotation / scale", i);
        if (hm > 0) {
            for (int c = 0; c < 4; c++) for (int rr = 0; rr < 4; rr++) n->local.m[c][rr] = m[c * 4 + rr];
            n->has_matrix = 1;
            double err = 0;
            if (sinew_transform_from_mat4(&n->local, &n->trs, &err))
                return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u: its matrix cannot be split into T R S", i);
        } else {
            double ql = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(ql > 1e-12)) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: node %u: zero rotation quaternion", i);
            n->trs.translation = sinew_v3(t[0], t[1], t[2]);
            n->trs.rotation.x = q[0] / ql; n->trs.rotation.y = q[1] / ql; n->trs.rotation.z = q[2] / ql; n->trs.rotation.w = q[3] / ql;
            n->trs.scale = sinew_v3(s[0], s[1], s[2]);
            n->local = sinew_mat4_from_transform(&n->trs);
        }
        if (!sinew_mat4_is_finite(&n->local) || snw_mat_max_abs(&n->local) > GL_FLOAT_LIMIT)
            return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: node %u '%s': transform beyond float32 range", i, n->name ? n->name : "");
    }
    /* the scene: its roots, depth-first */
    json_object *scenes; uint32_t n_scenes;
    sinew_result r = jarray(g, g->root, "scenes", &scenes, &n_scenes, "glTF");
    if (r) return r;
    int64_t si = 0;
    if (n_scenes && (r = jint(g, g->root, "scene", 0, (int64_t)n_scenes - 1, 0, &si, "glTF", 0))) return r;
    uint32_t *stack = gz(g, g->n_nodes, sizeof *stack);
    if (!stack) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t sp = 0;
    if (n_scenes) {
        json_object *sn; uint32_t nsn;
        if ((r = jarray(g, json_object_array_get_idx(scenes, (size_t)si), "nodes", &sn, &nsn, "scene"))) goto out;
        for (uint32_t k = nsn; k-- > 0;) {
            json_object *cj = json_object_array_get_idx(sn, k);
            int64_t c = json_object_is_type(cj, json_type_int) ? json_object_get_int64(cj) : -1;
            if (c < 0 || c >= g->n_nodes || g->nodes[c].parent >= 0 || g->nodes[c].in_scene) { r = fail(g->c, SINEW_ERROR_FORMAT, "glTF: scene %lld: root %u is not a root node index", (long long)si, k); goto out; }
            g->nodes[c].in_scene = 1;
            stack[sp++] = (uint32_t)c;
        }
    } else {
        for (uint32_t k = g->n_nodes; k-- > 0;)
            if (g->nodes[k].parent < 0) { g->nodes[k].in_scene = 1; stack[sp++] = k; }
    }
    while (sp) {
        uint32_t i = stack[--sp];
        gl_node *n = &g->nodes[i];
        if (g->n_order >= g->max_nodes) { r = fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: more than %u nodes", g->max_nodes); goto out; }
        g->order[g->n_order++] = i;
        n->in_scene = 1;
        n->global = n->parent < 0 ? n->local : sinew_mat4_mul(&g->nodes[n->parent].global, &n->local);
        if (!sinew_mat4_is_finite(&n->global) || snw_mat_max_abs(&n->global) > GL_FLOAT_LIMIT) {
            r = fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: node %u '%s': global transform beyond float32 range", i, n->name ? n->name : "");
            goto out;
        }
        json_object *ch = jget(n->obj, "children");
        size_t nch = ch ? json_object_array_length(ch) : 0;
        for (size_t k = nch; k-- > 0;) stack[sp++] = (uint32_t)json_object_get_int64(json_object_array_get_idx(ch, k));
    }
    /* the joint graph: every node, the scene's in depth-first order */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        snw_bnode *bn = &g->b.nodes[i];
        const gl_node *n = &g->nodes[i];
        bn->parent = n->parent; bn->name = n->name; bn->name_len = n->name ? strlen(n->name) : 0;
        bn->local = n->local; bn->global = n->global; bn->rest = n->trs; bn->has_rest = 1;
    }
    g->b.order = g->order;
    g->b.order_count = g->n_order;
out:
    snw_free(g->al, stack);
    return r;
}

/* The candidates of skin si's joints (once per skin). */
static sinew_result skin_candidates(gl *g, uint32_t si, sinew_asset *a)
{
    if (g->skin_cands[si]) return SINEW_OK;
    json_object *skin = json_object_array_get_idx(g->skins_j, si);
    json_object *jn; uint32_t nj;
    sinew_result r = jarray(g, skin, "joints", &jn, &nj, "skin");
    if (r) return r;
    if (!nj) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: skin %u has no joints", si);
    if (nj > g->max_joints) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: skin %u has %u joints (limit %u)", si, nj, g->max_joints);
    double *ibm = NULL;
    if (jget(skin, "inverseBindMatrices")) {
        int64_t ai; uint32_t cnt;
        static const int64_t ft[] = { 5126, 0 };
        char what[48];
        snprintf(what, sizeof what, "skin %u inverseBindMatrices", si);
        if ((r = jint(g, skin, "inverseBindMatrices", 0, INT32_MAX, -1, &ai, "skin", si))) return r;
        if ((r = read_accessor(g, ai, ft, 16, g->max_joints, &ibm, &cnt, NULL, what))) return r;
        if (cnt < nj) { snw_free(g->al, ibm); return fail(g->c, SINEW_ERROR_FORMAT, "glTF: skin %u: %u inverse bind matrices for %u joints", si, cnt, nj); }
    }
    int32_t *sc = gz(g, nj, sizeof *sc);
    if (!sc) { snw_free(g->al, ibm); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    for (uint32_t k = 0; k < nj && !r; k++) {
        json_object *cj = json_object_array_get_idx(jn, k);
        int64_t node = json_object_is_type(cj, json_type_int) ? json_object_get_int64(cj) : -1;
        if (node < 0 || node >= g->n_nodes) { r = fail(g->c, SINEW_ERROR_FORMAT, "glTF: skin %u: joint %u is not a node index", si, k); break; }
        if (!g->nodes[node].in_scene) { r = fail(g->c, SINEW_ERROR_FORMAT, "glTF: skin %u: joint %u (node %lld) is not in the scene", si, k, (long long)node); break; }
        sinew_mat4 m = sinew_mat4_identity();
        if (ibm) for (int c = 0; c < 4; c++) for (int rr = 0; rr < 4; rr++) m.m[c][rr] = ibm[(size_t)k * 16 + c * 4 + rr];
        if (snw_mat_max_abs(&m) > GL_FLOAT_LIMIT) { r = fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: skin %u: inverse bind matrix of joint %u (node %lld) beyond float32 range", si, k, (long long)node); break; }
        uint32_t ck = 0;
        r = snw_builder_candidate(&g->b, (uint32_t)node, &m, &ck);
        sc[k] = (int32_t)ck;
    }
    snw_free(g->al, ibm);
    g->tmp_bytes = 0;
    if (r) { snw_free(g->al, sc); return r; }
    g->skin_cands[si] = sc;
    g->skin_joint_count[si] = nj;
    a->stats.skins++;
    return SINEW_OK;
}

/* ---- meshes -------------------------------------------------------------------- */

typedef struct prim_in {
    double *pos, *nrm;            /* count * 3 */
    double *tan;                  /* count * 4 (TANGENT), or NULL */
    uint32_t count;
    double *joints[4], *weights[4];
    uint32_t sets;
    double *ind;
    uint32_t n_ind;
    uint32_t n_targets;           /* morph targets kept (deltas below, NULL when the target lacks one) */
    double *tdp[GL_MAX_TARGETS], *tdn[GL_MAX_TARGETS], *tdt[GL_MAX_TARGETS];
    double tw[GL_MAX_TARGETS];    /* default weights */
} prim_in;

static void prim_free(gl *g, prim_in *p)
{
    snw_free(g->al, p->pos); snw_free(g->al, p->nrm); snw_free(g->al, p->tan); snw_free(g->al, p->ind);
    for (int k = 0; k < 4; k++) { snw_free(g->al, p->joints[k]); snw_free(g->al, p->weights[k]); }
    for (uint32_t t = 0; t < p->n_targets; t++) { snw_free(g->al, p->tdp[t]); snw_free(g->al, p->tdn[t]); snw_free(g->al, p->tdt[t]); }
}

/* KHR_draco_mesh_compression on a primitive (dj: the extension object):
 * decodes its Draco bitstream once and registers, for every attribute the
 * extension maps and the primitive names, and for the indices, the decoded
 * data as that accessor's (g->dr, tightly packed in the accessor's component
 * type); read_accessor reads them instead of a bufferView. Morph targets are
 * not compressed by the extension and are read as they are, in the decoded
 * vertex order. */
static void draco_clear(gl *g)
{
    for (uint32_t k = 0; k < g->n_dr; k++) snw_free(g->al, g->dr[k].data);
    g->n_dr = 0;
}

static sinew_result draco_primitive(gl *g, json_object *prim, json_object *dj, uint32_t mi, uint32_t pi)
{
    int64_t vi = -1;
    sinew_result r;
    char what[96];
    snprintf(what, sizeof what, "mesh %u primitive %u KHR_draco_mesh_compression", mi, pi);
    if ((r = jint(g, dj, "bufferView", 0, (int64_t)g->n_views - 1, -1, &vi, what, 0))) return r;
    json_object *da = jget(dj, "attributes"), *attr = jget(prim, "attributes");
    if (!da || !json_object_is_type(da, json_type_object))
        return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: no attributes object", what);
    if (!jget(prim, "indices"))
        return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: the primitive has no indices accessor", what);
    const uint8_t *bytes; size_t blen; uint32_t bst;
    if ((r = view_bytes(g, vi, &bytes, &blen, &bst, "KHR_draco_mesh_compression of mesh", mi))) return r;
    char msg[160] = "";
    snw_draco_mesh *dm = snw_draco_decode(bytes, blen, msg, sizeof msg);
    if (!dm) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %s", what, msg);
    uint32_t np = snw_draco_points(dm), nf = snw_draco_faces(dm);
    if (np > g->max_vertices || (uint64_t)nf * 3 > g->max_indices || !np || !nf) {
        snw_draco_free(dm);
        return fail_at(g->c, np && nf ? SINEW_ERROR_LIMIT_EXCEEDED : SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX,
                       "glTF: %s: %u points, %u triangles (limits %u vertices, %u indices)", what, np, nf, g->max_vertices, g->max_indices);
    }
    json_object_object_foreach(da, name, uidj) {
        int64_t ai = -1, uid = -1, ct = 0;
        if (!jget(attr, name)) continue; /* an attribute the primitive does not use */
        if (g->n_dr + 1 >= GL_MAX_DRACO_ATTRIBUTES) { r = fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: more than %u attributes", what, GL_MAX_DRACO_ATTRIBUTES - 1); break; }
        if (!json_object_is_type(uidj, json_type_int) || (uid = json_object_get_int64(uidj)) < 0 || uid > INT32_MAX) {
            r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: attribute %.32s: bad id", what, name);
            break;
        }
        if ((r = jint(g, attr, name, 0, (int64_t)g->n_accessors - 1, -1, &ai, what, 0))) break;
        json_object *acc = json_object_array_get_idx(g->accessors_j, (size_t)ai);
        uint32_t cols, comps = type_comps(jstr(acc, "type"), &cols);
        if ((r = jint(g, acc, "componentType", 5120, 5126, -1, &ct, "accessor", (uint32_t)ai))) break;
        uint32_t cs = comp_size(ct);
        if (!cs || !comps || cols > 1) { r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: accessor %lld: bad type", what, (long long)ai); break; }
        size_t len = (size_t)np * comps * cs;
        uint8_t *d = snw_alloc(g->al, len);
        if (!d) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
        if (snw_draco_attribute(dm, (uint32_t)uid, ct, comps, d, msg, sizeof msg)) {
            snw_free(g->al, d);
            r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %s: %s", what, name, msg);
            break;
        }
        g->dr[g->n_dr++] = (struct gl_draco_acc){ ai, d, len, np };
    }
    if (!r) { /* indices, in the indices accessor's component type */
        int64_t ai = -1, ct = 0;
        if (!(r = jint(g, prim, "indices", 0, (int64_t)g->n_accessors - 1, -1, &ai, what, 0)) &&
            !(r = jint(g, json_object_array_get_idx(g->accessors_j, (size_t)ai), "componentType", 5121, 5125, -1, &ct, "accessor", (uint32_t)ai))) {
            uint32_t cs = comp_size(ct), n = nf * 3;
            uint32_t *ix = snw_alloc(g->al, (size_t)n * sizeof *ix);
            uint8_t *d = cs ? snw_alloc(g->al, (size_t)n * cs) : NULL;
            if (!ix || !d) r = cs ? SINEW_ERROR_OUT_OF_HOST_MEMORY : fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: index type %lld", what, (long long)ct);
            if (!r) {
                snw_draco_indices(dm, ix);
                uint32_t maxv = ct == 5121 ? 0xffu : ct == 5123 ? 0xffffu : UINT32_MAX;
                for (uint32_t k = 0; k < n && !r; k++) {
                    if (ix[k] >= np || ix[k] > maxv) { r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: index %u of %u points", what, ix[k], np); break; }
                    if (cs == 1) d[k] = (uint8_t)ix[k];
                    else if (cs == 2) { uint16_t v = (uint16_t)ix[k]; memcpy(d + 2 * (size_t)k, &v, 2); }
                    else memcpy(d + 4 * (size_t)k, &ix[k], 4);
                }
            }
            snw_free(g->al, ix);
            if (!r) g->dr[g->n_dr++] = (struct gl_draco_acc){ ai, d, (size_t)n * cs, n };
            else snw_free(g->al, d);
        }
    }
    snw_draco_free(dm);
    return r;
}

static sinew_result read_primitive_data(gl *g, json_object *prim, uint32_t mi, uint32_t pi, const double *mw, uint32_t n_mw, prim_in *p,
                                        sinew_asset *a);

/* Reads one primitive's attributes (positions with default morph weights applied). */
static sinew_result read_primitive(gl *g, json_object *prim, uint32_t mi, uint32_t pi, const double *mw, uint32_t n_mw, prim_in *p,
                                   sinew_asset *a)
{
    json_object *dj = jget(jget(prim, "extensions"), "KHR_draco_mesh_compression");
    sinew_result r = dj ? draco_primitive(g, prim, dj, mi, pi) : SINEW_OK;
    if (!r) r = read_primitive_data(g, prim, mi, pi, mw, n_mw, p, a);
    draco_clear(g);
    return r;
}

static sinew_result read_primitive_data(gl *g, json_object *prim, uint32_t mi, uint32_t pi, const double *mw, uint32_t n_mw, prim_in *p,
                                        sinew_asset *a)
{
    static const int64_t pos_t[] = { 5126, 5120, 5121, 5122, 5123, 0 };
    static const int64_t nrm_t[] = { 5126, 5120, 5122, 0 };
    static const int64_t jnt_t[] = { 5121, 5123, 0 };
    static const int64_t wgt_t[] = { 5126, 5121, 5123, 0 };
    static const int64_t ind_t[] = { 5121, 5123, 5125, 0 };
    char what[96];
    json_object *attr = jget(prim, "attributes");
    int64_t ai;
    uint32_t cnt;
    sinew_result r;
    snprintf(what, sizeof what, "mesh %u primitive %u POSITION", mi, pi);
    if ((r = jint(g, attr, "POSITION", 0, INT32_MAX, -1, &ai, what, 0))) return r;
    if ((r = read_accessor(g, ai, pos_t, 3, g->max_vertices, &p->pos, &p->count, NULL, what))) return r;
    if (jget(attr, "NORMAL")) {
        snprintf(what, sizeof what, "mesh %u primitive %u NORMAL", mi, pi);
        if ((r = jint(g, attr, "NORMAL", 0, INT32_MAX, -1, &ai, what, 0))) return r;
        if ((r = read_accessor(g, ai, nrm_t, 3, g->max_vertices, &p->nrm, &cnt, NULL, what))) return r;
        if (cnt != p->count) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u normals for %u positions", what, cnt, p->count);
    }
    if (jget(attr, "TANGENT")) {
        /* VEC4: float, or normalized byte / short (KHR_mesh_quantization); w = bitangent sign */
        static const int64_t tan_t[] = { 5126, 5120, 5122, 0 };
        snprintf(what, sizeof what, "mesh %u primitive %u TANGENT", mi, pi);
        if ((r = jint(g, attr, "TANGENT", 0, INT32_MAX, -1, &ai, what, 0))) return r;
        if ((r = read_accessor(g, ai, tan_t, 4, g->max_vertices, &p->tan, &cnt, NULL, what))) return r;
        if (cnt != p->count) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u tangents for %u positions", what, cnt, p->count);
    }
    for (uint32_t s = 0; s < 4; s++) {
        char jn[16], wn[16];
        snprintf(jn, sizeof jn, "JOINTS_%u", s);
        snprintf(wn, sizeof wn, "WEIGHTS_%u", s);
        if (!jget(attr, jn) && !jget(attr, wn)) break;
        snprintf(what, sizeof what, "mesh %u primitive %u %s/%s", mi, pi, jn, wn);
        if (!jget(attr, jn) || !jget(attr, wn)) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: one without the other", what);
        if ((r = jint(g, attr, jn, 0, INT32_MAX, -1, &ai, what, 0))) return r;
        g->integers_only = 1;
        r = read_accessor(g, ai, jnt_t, 4, g->max_vertices, &p->joints[s], &cnt, NULL, what);
        g->integers_only = 0;
        if (r) return r;
        if (cnt != p->count) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u entries for %u positions", what, cnt, p->count);
        if ((r = jint(g, attr, wn, 0, INT32_MAX, -1, &ai, what, 0))) return r;
        if ((r = read_accessor(g, ai, wgt_t, 4, g->max_vertices, &p->weights[s], &cnt, NULL, what))) return r;
        if (cnt != p->count) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u entries for %u positions", what, cnt, p->count);
        p->sets = s + 1;
    }
    if (jget(prim, "indices")) {
        snprintf(what, sizeof what, "mesh %u primitive %u indices", mi, pi);
        if ((r = jint(g, prim, "indices", 0, INT32_MAX, -1, &ai, what, 0))) return r;
        g->integers_only = 1;
        r = read_accessor(g, ai, ind_t, 1, g->max_indices, &p->ind, &p->n_ind, NULL, what);
        g->integers_only = 0;
        if (r) return r;
        for (uint32_t k = 0; k < p->n_ind; k++)
            if (p->ind[k] >= p->count) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: index %g of %u vertices", what, p->ind[k], p->count);
    }
    /* morph targets: default weights applied to the rest mesh */
    json_object *targets; uint32_t nt;
    if ((r = jarray(g, prim, "targets", &targets, &nt, "primitive"))) return r;
    a->stats.morph_targets += nt;
    if (nt > GL_MAX_TARGETS) return fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: mesh %u primitive %u has %u morph targets (limit %u)", mi, pi, nt, GL_MAX_TARGETS);
    for (uint32_t t = 0; t < nt; t++) {
        json_object *tj = json_object_array_get_idx(targets, t);
        static const int64_t tp_t[] = { 5126, 5120, 5122, 0 };
        p->tw[t] = t < n_mw ? mw[t] : 0;
        p->n_targets = t + 1;
        for (int which = 0; which < 2; which++) {
            const char *key = which ? "NORMAL" : "POSITION";
            double *dst = which ? p->nrm : p->pos;
            if (!jget(tj, key) || !dst) continue;
            double *d = NULL;
            snprintf(what, sizeof what, "mesh %u primitive %u target %u %s", mi, pi, t, key);
            if ((r = jint(g, tj, key, 0, INT32_MAX, -1, &ai, what, 0))) return r;
            g->zero_ok = 1;
            r = read_accessor(g, ai, tp_t, 3, g->max_vertices, &d, &cnt, NULL, what);
            g->zero_ok = 0;
            if (r) return r;
            if (cnt != p->count) { snw_free(g->al, d); return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u entries for %u positions", what, cnt, p->count); }
            if (d) for (size_t k = 0; k < (size_t)cnt * 3; k++) dst[k] += p->tw[t] * d[k];
            if (which) p->tdn[t] = d; else p->tdp[t] = d;
        }
        /* TANGENT deltas (VEC3: the direction; the bitangent sign is not morphed), kept
         * when the primitive has TANGENT; the default weight moves the rest tangent too */
        if (jget(tj, "TANGENT") && p->tan) {
            double *d = NULL;
            snprintf(what, sizeof what, "mesh %u primitive %u target %u TANGENT", mi, pi, t);
            if ((r = jint(g, tj, "TANGENT", 0, INT32_MAX, -1, &ai, what, 0))) return r;
            g->zero_ok = 1;
            r = read_accessor(g, ai, tp_t, 3, g->max_vertices, &d, &cnt, NULL, what);
            g->zero_ok = 0;
            if (r) return r;
            if (cnt != p->count) { snw_free(g->al, d); return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: %s: %u entries for %u positions", what, cnt, p->count); }
            if (d) for (size_t v = 0; v < cnt; v++)
                for (int e = 0; e < 3; e++) p->tan[v * 4 + e] += p->tw[t] * d[v * 3 + e];
            p->tdt[t] = d;
        }
    }
    return SINEW_OK;
}

static uint32_t prim_index(const prim_in *p, uint32_t k) { return p->ind ? (uint32_t)p->ind[k] : k; }

/* Smooth normals (area-weighted face normals) for a primitive without NORMAL. */
static void smooth_normals(double *nrm, const double *pos, uint32_t nv, const uint32_t *tri, uint32_t ntri)
{
    memset(nrm, 0, (size_t)nv * 3 * sizeof *nrm);
    for (uint32_t t = 0; t < ntri; t++) {
        const uint32_t *f = tri + (size_t)t * 3;
        const double *p0 = pos + (size_t)f[0] * 3, *p1 = pos + (size_t)f[1] * 3, *p2 = pos + (size_t)f[2] * 3;
        double e1[3] = { p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2] }, e2[3] = { p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2] };
        double n[3] = { e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0] };
        for (int k = 0; k < 3; k++) for (int e = 0; e < 3; e++) nrm[(size_t)f[k] * 3 + e] += n[e];
    }
    for (uint32_t v = 0; v < nv; v++) {
        double *n = nrm + (size_t)v * 3;
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (l > 0 && isfinite(l)) { n[0] /= l; n[1] /= l; n[2] /= l; } else n[0] = n[1] = n[2] = 0;
    }
}

/* One primitive of an instance into the shared arrays. */
static sinew_result append_primitive(gl *g, sinew_asset *a, uint32_t node, uint32_t mi, uint32_t pi, int64_t mode, prim_in *p,
                                     int32_t skin, int32_t node_cand, const char *mname)
{
    const gl_node *gn = &g->nodes[node];
    uint32_t base = g->pos.n;
    if ((uint64_t)base + p->count > g->max_vertices) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: more than %u vertices", g->max_vertices);
    if (g->inst.n >= g->max_meshes) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: more than %u mesh instances", g->max_meshes);
    uint32_t n_src = p->ind ? p->n_ind : p->count;
    uint32_t ntri = mode == 4 ? n_src / 3 : n_src >= 3 ? n_src - 2 : 0;
    if ((uint64_t)g->idx.n + (uint64_t)ntri * 3 > g->max_indices) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: more than %u indices", g->max_indices);
    uint32_t first_index = g->idx.n;
    {
        char what[64];
        snprintf(what, sizeof what, "mesh %u primitive %u (node %u)", mi, pi, node);
        uint64_t grow = (uint64_t)ntri * 12 + (uint64_t)p->count * (24 + 24 + 32 + 4 + 8 * p->sets);
        if (g->budget && g->tmp_bytes + vec_bytes(g) + grow > g->budget)
            return fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, mi, UINT32_MAX,
                           "glTF: %s: its %u vertices and %u triangles would pass the import's memory budget of %.1f MiB "
                           "(sinew_asset_desc.max_memory; default 512 MiB + 64 x the file and its buffers)",
                           what, p->count, ntri, (double)g->budget / 1048576.0);
    }
    uint32_t *tri = vec_push(g, &g->idx, ntri * 3);
    double *pos = vec_push(g, &g->pos, p->count);
    double *nrm = vec_push(g, &g->nrm, p->count);
    double *tan = vec_push(g, &g->tan, p->count);
    uint32_t *ioff = vec_push(g, &g->infl_off, p->count);
    sinew_asset_mesh_info *im = vec_push(g, &g->inst, 1);
    size_t ml = mname ? strlen(mname) : 0;
    if (ml > 255) ml = 255;
    uint32_t name_off = g->inst_name.n;
    char *nm = vec_push(g, &g->inst_name, (uint32_t)ml + 1);
    if (!tri || !pos || !nrm || !tan || !ioff || !im || !nm) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(nm, mname ? mname : "", ml);
    for (uint32_t t = 0; t < ntri; t++) {
        uint32_t k0, k1, k2;
        if (mode == 4) { k0 = 3 * t; k1 = 3 * t + 1; k2 = 3 * t + 2; }
        else if (mode == 5) { k0 = t; k1 = t % 2 ? t + 2 : t + 1; k2 = t % 2 ? t + 1 : t + 2; }
        else { k0 = t + 1; k1 = t + 2; k2 = 0; }
        tri[t * 3 + 0] = prim_index(p, k0); tri[t * 3 + 1] = prim_index(p, k1); tri[t * 3 + 2] = prim_index(p, k2);
    }
    if (mode == 4 && n_src % 3) a->stats.dropped_faces++;
    if (p->tan) g->tangent_instances++;
    /* positions and normals to model space (skinned: as in the file) */
    int generated = !p->nrm;
    if (generated) {
        p->nrm = gz(g, (size_t)p->count * 3, sizeof(double));
        if (!p->nrm) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        smooth_normals(p->nrm, p->pos, p->count, tri, ntri);
    }
    sinew_mat3 g3 = sinew_mat4_upper3(&gn->global);
    sinew_mat3 ncof = sinew_mat3_cofactor(&g3);
    double sgn = sinew_mat3_det(&g3) < 0 ? -1.0 : 1.0;
    for (uint32_t v = 0; v < p->count; v++) {
        sinew_vec3 q = sinew_v3(p->pos[v * 3], p->pos[v * 3 + 1], p->pos[v * 3 + 2]);
        sinew_vec3 n = sinew_v3(p->nrm[v * 3], p->nrm[v * 3 + 1], p->nrm[v * 3 + 2]);
        if (skin < 0) {
            q = sinew_mat4_transform_point(&gn->global, q);
            n = sinew_v3_scale(sinew_mat3_mul_v3(&ncof, n), sgn);
        }
        n = sinew_v3_normalize(n);
        if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z)) n = sinew_v3(0, 0, 0);
        double qq[3] = { q.x, q.y, q.z }, nn[3] = { n.x, n.y, n.z };
        /* tangent: by the node's 3x3 (unskinned), sign re-derived from the
         * transformed bitangent (a mirroring node flips it); non-finite or
         * degenerate -> zero direction (skins to zero) */
        double tt[4] = { 0, 0, 0, 1 };
        if (p->tan) {
            sinew_vec3 t = sinew_v3(p->tan[v * 4], p->tan[v * 4 + 1], p->tan[v * 4 + 2]);
            double w = p->tan[v * 4 + 3] < 0 ? -1.0 : 1.0;
            if (skin < 0) {
                sinew_vec3 n0 = sinew_v3(p->nrm[v * 3], p->nrm[v * 3 + 1], p->nrm[v * 3 + 2]);
                sinew_vec3 b = sinew_mat3_mul_v3(&g3, sinew_v3_scale(sinew_v3_cross(n0, t), w));
                t = sinew_mat3_mul_v3(&g3, t);
                double d = sinew_v3_dot(sinew_v3_cross(n, t), b);
                if (d != 0 && isfinite(d)) w = d < 0 ? -1.0 : 1.0;
            }
            t = sinew_v3_normalize(t);
            if (isfinite(t.x) && isfinite(t.y) && isfinite(t.z)) { tt[0] = t.x; tt[1] = t.y; tt[2] = t.z; }
            tt[3] = w;
        }
        for (int e = 0; e < 4; e++) tan[v * 4 + e] = tt[e];
        for (int e = 0; e < 3; e++) {
            if (!(fabs(qq[e]) <= GL_FLOAT_LIMIT))
                return fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, mi, v, "glTF: mesh %u primitive %u: vertex %u (node %u '%s') lies beyond float32 range",
                            mi, pi, v, node, gn->name ? gn->name : "");
            pos[v * 3 + e] = qq[e];
            nrm[v * 3 + e] = nn[e];
        }
    }
    for (uint32_t t = 0; t < ntri * 3; t++) tri[t] += base;
    /* morph targets, sparse, in model space (unskinned: positions and tangent
     * deltas by the node's 3x3, normal deltas by its cofactor, as the rest).
     * glTF's morphed normal is normalize(N + sum w_i dN_i) with the weights in
     * force; the rest normal already holds the defaults' u = M (N + sum w0_i dN_i)
     * normalized (M: identity skinned, the signed cofactor unskinned), so each
     * vertex's normal deltas are stored as M dN / |u|: then normalize(u/|u| +
     * sum (w_i - w0_i) dN'_i), the runtime's rule, is glTF's exactly. Tangents
     * likewise with the node's 3x3. A zero |u| keeps the deltas as they are
     * (the rest direction is then zero, so the rule is glTF's again). */
    json_object *tnames = jget(jget(json_object_array_get_idx(g->meshes_j, mi), "extras"), "targetNames");
    for (uint32_t t = 0; t < p->n_targets; t++) {
        /* the name from mesh.extras.targetNames (the convention of glTF exporters), if a string */
        uint32_t tn_off = GL_NO_NAME;
        json_object *tj = tnames && json_object_is_type(tnames, json_type_array) &&
                          t < json_object_array_length(tnames) ? json_object_array_get_idx(tnames, t) : NULL;
        if (tj && json_object_is_type(tj, json_type_string)) {
            const char *ts = json_object_get_string(tj);
            size_t tl = strlen(ts);
            if (tl > 255) tl = 255;
            tn_off = g->inst_name.n;
            char *tc = vec_push(g, &g->inst_name, (uint32_t)tl + 1);
            if (!tc) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
            memcpy(tc, ts, tl);
            tc[tl] = 0;
        }
        gl_morph *mt = vec_push(g, &g->mt, 1);
        if (!mt) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        mt->name = tn_off;
        mt->node = node;
        mt->mesh = g->inst.n - 1; mt->first = g->m_idx.n; mt->w0 = (float)p->tw[t];
        mt->has_normals = p->tdn[t] && !generated;
        mt->has_tangents = p->tdt[t] && p->tan;
        for (uint32_t v = 0; v < p->count; v++) {
            double dp[3] = { 0, 0, 0 }, dn[3] = { 0, 0, 0 }, dt[3] = { 0, 0, 0 };
            if (p->tdp[t]) {
                sinew_vec3 d = sinew_v3(p->tdp[t][v * 3], p->tdp[t][v * 3 + 1], p->tdp[t][v * 3 + 2]);
                if (skin < 0) d = sinew_mat3_mul_v3(&g3, d);
                dp[0] = d.x; dp[1] = d.y; dp[2] = d.z;
            }
            if (mt->has_normals) {
                sinew_vec3 d = sinew_v3(p->tdn[t][v * 3], p->tdn[t][v * 3 + 1], p->tdn[t][v * 3 + 2]);
                sinew_vec3 u = sinew_v3(p->nrm[v * 3], p->nrm[v * 3 + 1], p->nrm[v * 3 + 2]);
                if (skin < 0) {
                    d = sinew_v3_scale(sinew_mat3_mul_v3(&ncof, d), sgn);
                    u = sinew_mat3_mul_v3(&ncof, u);
                }
                double l = sinew_v3_length(u);
                if (!(l >= 1e-30) || !isfinite(l)) l = 1.0;
                dn[0] = d.x / l; dn[1] = d.y / l; dn[2] = d.z / l;
            }
            if (mt->has_tangents) {
                sinew_vec3 d = sinew_v3(p->tdt[t][v * 3], p->tdt[t][v * 3 + 1], p->tdt[t][v * 3 + 2]);
                sinew_vec3 u = sinew_v3(p->tan[v * 4], p->tan[v * 4 + 1], p->tan[v * 4 + 2]);
                if (skin < 0) {
                    d = sinew_mat3_mul_v3(&g3, d);
                    u = sinew_mat3_mul_v3(&g3, u);
                }
                double l = sinew_v3_length(u);
                if (!(l >= 1e-30) || !isfinite(l)) l = 1.0;
                dt[0] = d.x / l; dt[1] = d.y / l; dt[2] = d.z / l;
            }
            if (!dp[0] && !dp[1] && !dp[2] && !dn[0] && !dn[1] && !dn[2] && !dt[0] && !dt[1] && !dt[2]) continue;
            /* every delta kept as float within SINEW_MORPH_MAX_DELTA (what sinew_morph_validate
             * accepts: the float value is compared, 1e30 rounds up) */
            for (int e = 0; e < 3; e++)
                if (!(fabs((double)(float)dp[e]) <= SINEW_MORPH_MAX_DELTA) || !(fabs((double)(float)dn[e]) <= SINEW_MORPH_MAX_DELTA) ||
                    !(fabs((double)(float)dt[e]) <= SINEW_MORPH_MAX_DELTA))
                    return fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, mi, v, "glTF: mesh %u primitive %u: morph target %u: a %s delta of vertex %u beyond float32 range (|d| > %g)",
                                   mi, pi, t, !(fabs((double)(float)dp[e]) <= SINEW_MORPH_MAX_DELTA) ? "position" : !(fabs((double)(float)dn[e]) <= SINEW_MORPH_MAX_DELTA) ? "normal" : "tangent",
                                   v, SINEW_MORPH_MAX_DELTA);
            uint32_t *ix = vec_push(g, &g->m_idx, 1);
            float *fp = vec_push(g, &g->m_dp, 1), *fn = vec_push(g, &g->m_dn, 1), *ft = vec_push(g, &g->m_dt, 1);
            if (!ix || !fp || !fn || !ft) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
            *ix = v;
            for (int e = 0; e < 3; e++) { fp[e] = (float)dp[e]; fn[e] = (float)dn[e]; ft[e] = (float)dt[e]; }
        }
        mt = (gl_morph *)g->mt.p + g->mt.n - 1;
        mt->count = g->m_idx.n - mt->first;
    }
    /* influences */
    for (uint32_t v = 0; v < p->count; v++) {
        ioff[v] = g->infl_joint.n;
        uint32_t kept = 0;
        if (skin >= 0) {
            uint32_t nj = g->skin_joint_count[skin];
            for (uint32_t s = 0; s < p->sets; s++)
                for (uint32_t k = 0; k < 4; k++) {
                    double w = p->weights[s][(size_t)v * 4 + k], j = p->joints[s][(size_t)v * 4 + k];
                    if (!(w >= 0)) return fail_at(g->c, SINEW_ERROR_INVALID_WEIGHT, SINEW_ITEM_MESH, mi, v, "glTF: mesh %u primitive %u: vertex %u has weight %g", mi, pi, v, w);
                    if (w == 0) continue;
                    if (j >= nj) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, v, "glTF: mesh %u primitive %u: vertex %u names joint %g of skin %d's %u", mi, pi, v, j, skin, nj);
                    uint32_t cand = (uint32_t)g->skin_cands[skin][(uint32_t)j];
                    /* repeated joints merge */
                    if (kept) {
                        uint32_t *jl = (uint32_t *)g->infl_joint.p + ioff[v];
                        float *wl = (float *)g->infl_weight.p + ioff[v];
                        uint32_t q = 0;
                        while (q < kept && jl[q] != cand) q++;
                        if (q < kept) { wl[q] += (float)w; continue; }
                    }
                    uint32_t *jp = vec_push(g, &g->infl_joint, 1);
                    float *wp = vec_push(g, &g->infl_weight, 1);
                    if (!jp || !wp) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
                    *jp = cand; *wp = (float)w;
                    kept++;
                }
            if (!kept) a->stats.invalid_weight_vertices++;
        }
        if (!kept) {
            uint32_t *jp = vec_push(g, &g->infl_joint, 1);
            float *wp = vec_push(g, &g->infl_weight, 1);
            if (!jp || !wp) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
            *jp = skin >= 0 ? (uint32_t)g->skin_cands[skin][0] : (uint32_t)node_cand;
            *wp = 1.0f;
            if (skin < 0) { im->unweighted_vertices++; a->stats.unweighted_vertices++; }
        }
        a->stats.influence_histogram[kept < 8 ? kept : 8]++;
    }
    im = (sinew_asset_mesh_info *)g->inst.p + g->inst.n - 1;
    im->name = (const char *)(uintptr_t)name_off;
    im->source_mesh = mi;
    im->node_joint = skin >= 0 ? (uint32_t)g->skin_cands[skin][0] : (uint32_t)node_cand; /* a candidate until numbering */
    im->first_vertex = base;
    im->vertex_count = p->count;
    im->first_index = first_index;
    im->index_count = ntri * 3;
    im->normals_generated = generated;
    if (skin >= 0) {
        a->stats.skinned_meshes++;
        uint32_t nj = g->skin_joint_count[skin]; /* assimp's count: one bone per joint of the skin, per mesh */
        a->stats.bones = a->stats.bones > UINT32_MAX - nj ? UINT32_MAX : a->stats.bones + nj;
    }
    return SINEW_OK;
}

static sinew_result append_instance(gl *g, sinew_asset *a, uint32_t node, uint32_t mi, int32_t skin)
{
    json_object *mesh = json_object_array_get_idx(g->meshes_j, mi);
    json_object *prims; uint32_t np;
    sinew_result r = jarray(g, mesh, "primitives", &prims, &np, "mesh");
    if (r) return r;
    const char *mname = jstr(mesh, "name");
    double mw[64] = { 0 };
    uint32_t n_mw = 0;
    json_object *wj = jget(g->nodes[node].obj, "weights");
    if (!wj) wj = jget(mesh, "weights");
    if (wj && json_object_is_type(wj, json_type_array)) {
        n_mw = (uint32_t)json_object_array_length(wj);
        if (n_mw > 64) n_mw = 64;
        for (uint32_t k = 0; k < n_mw; k++)
            if (!jnum(json_object_array_get_idx(wj, k), &mw[k])) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: mesh %u: bad morph weight %u", mi, k);
    }
    const gl_node *gn = &g->nodes[node];
    int32_t node_cand = -1;
    if (skin < 0) {
        sinew_mat4 inv;
        if (sinew_mat4_inverse(&gn->global, &inv))
            return fail_at(g->c, SINEW_ERROR_SINGULAR, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: node %u '%s' holds a mesh and has a singular transform", node, gn->name ? gn->name : "");
        uint32_t ck = 0;
        if ((r = snw_builder_candidate(&g->b, node, &inv, &ck))) return r;
        node_cand = (int32_t)ck;
    } else {
        if ((r = skin_candidates(g, (uint32_t)skin, a))) return r;
        a->stats.skinned_instances++;
    }
    for (uint32_t pi = 0; pi < np && !r; pi++) {
        json_object *prim = json_object_array_get_idx(prims, pi);
        int64_t mode;
        if ((r = jint(g, prim, "mode", 0, 6, 4, &mode, "primitive", pi))) return r;
        if (mode < 4) { a->stats.dropped_primitives++; continue; }
        prim_in p;
        memset(&p, 0, sizeof p);
        r = read_primitive(g, prim, mi, pi, mw, n_mw, &p, a);
        if (!r && skin >= 0 && !p.sets) r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, mi, UINT32_MAX, "glTF: mesh %u primitive %u: skinned (node %u) but has no JOINTS_0/WEIGHTS_0", mi, pi, node);
        if (!r) r = append_primitive(g, a, node, mi, pi, mode, &p, skin, node_cand, mname);
        prim_free(g, &p);
        g->tmp_bytes = 0;   /* the primitive's accessor arrays are freed */
    }
    return r;
}

/* Every mesh instance of the scene, in node order. */
static sinew_result collect_instances(gl *g, sinew_asset *a)
{
    g->skin_cands = gz(g, g->n_skins, sizeof *g->skin_cands);
    g->skin_joint_count = gz(g, g->n_skins, sizeof *g->skin_joint_count);
    if (!g->skin_cands || !g->skin_joint_count) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t k = 0; k < g->n_order; k++) {
        uint32_t i = g->order[k];
        json_object *o = g->nodes[i].obj;
        if (!jget(o, "mesh")) continue;
        int64_t mi, si = -1;
        sinew_result r = snw_asset_progress(g->c, 0.1 + 0.6 * (double)k / (double)g->n_order);
        if (r) return r;
        if ((r = jint(g, o, "mesh", 0, (int64_t)g->n_meshes - 1, -1, &mi, "node", i))) return r;
        if (jget(o, "skin") && (r = jint(g, o, "skin", 0, (int64_t)g->n_skins - 1, -1, &si, "node", i))) return r;
        if ((r = append_instance(g, a, i, (uint32_t)mi, (int32_t)si))) return r;
    }
    if (g->pos.n == 0) return fail(g->c, SINEW_ERROR_EMPTY, "glTF: the scene holds no triangle mesh");
    return SINEW_OK;
}

/* ---- joints, skeleton, packing ------------------------------------------------------ */

static sinew_result finish_mesh(gl *g, sinew_asset *a)
{
    sinew_result r;
    if ((r = snw_builder_number_joints(&g->b)) || (r = snw_builder_skeleton(&g->b))) return r;
    const uint32_t *cand_joint = g->b.cand_joint;
    uint32_t nv = g->pos.n, ninf = g->infl_joint.n;
    uint32_t *jl = g->infl_joint.p;
    for (uint32_t k = 0; k < ninf; k++) jl[k] = cand_joint[jl[k]];
    sinew_asset_mesh_info *im = g->inst.p;
    for (uint32_t k = 0; k < g->inst.n; k++) im[k].node_joint = cand_joint[im[k].node_joint];
    a->vertex_count = nv;
    a->index_count = g->idx.n;
    a->mesh_count = g->inst.n;
    a->rest_pos = gz(g, (size_t)nv * 3, sizeof(double));
    a->rest_nrm = gz(g, (size_t)nv * 3, sizeof(double));
    a->infl_offsets = gz(g, (size_t)nv + 1, sizeof *a->infl_offsets);
    a->infl_joints = gz(g, ninf, sizeof *a->infl_joints);
    a->infl_weights = gz(g, ninf, sizeof *a->infl_weights);
    a->indices = gz(g, g->idx.n, sizeof *a->indices);
    a->meshes = gz(g, g->inst.n, sizeof *a->meshes);
    a->names = gz(g, g->inst_name.n, 1);
    if (!a->rest_pos || !a->rest_nrm || !a->infl_offsets || !a->infl_joints || !a->infl_weights ||
        !a->indices || !a->meshes || !a->names) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(a->rest_pos, g->pos.p, (size_t)nv * 3 * sizeof(double));
    memcpy(a->rest_nrm, g->nrm.p, (size_t)nv * 3 * sizeof(double));
    memcpy(a->infl_offsets, g->infl_off.p, (size_t)nv * sizeof(uint32_t));
    a->infl_offsets[nv] = ninf;
    memcpy(a->infl_joints, g->infl_joint.p, (size_t)ninf * sizeof(uint32_t));
    memcpy(a->infl_weights, g->infl_weight.p, (size_t)ninf * sizeof(float));
    if (g->idx.n) memcpy(a->indices, g->idx.p, (size_t)g->idx.n * sizeof(uint32_t));
    memcpy(a->names, g->inst_name.p, g->inst_name.n);
    for (uint32_t k = 0; k < g->inst.n; k++) {
        a->meshes[k] = im[k];
        a->meshes[k].name = a->names + (uintptr_t)im[k].name;
    }
    if (g->mt.n) {
        uint32_t nm = g->mt.n, ne = g->m_idx.n;
        a->morph_count = nm;
        a->morphs = gz(g, nm, sizeof *a->morphs);
        a->morph_default = gz(g, nm, sizeof *a->morph_default);
        a->morph_idx = gz(g, ne, sizeof *a->morph_idx);
        a->morph_dp = gz(g, (size_t)ne * 3, sizeof *a->morph_dp);
        a->morph_dn = gz(g, (size_t)ne * 3, sizeof *a->morph_dn);
        a->morph_dt = gz(g, (size_t)ne * 3, sizeof *a->morph_dt);
        if (!a->morphs || !a->morph_default || !a->morph_idx || !a->morph_dp || !a->morph_dn || !a->morph_dt)
            return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (ne) {
            memcpy(a->morph_idx, g->m_idx.p, (size_t)ne * sizeof(uint32_t));
            memcpy(a->morph_dp, g->m_dp.p, (size_t)ne * 3 * sizeof(float));
            memcpy(a->morph_dn, g->m_dn.p, (size_t)ne * 3 * sizeof(float));
            memcpy(a->morph_dt, g->m_dt.p, (size_t)ne * 3 * sizeof(float));
        }
        const gl_morph *mt = g->mt.p;
        for (uint32_t k = 0; k < nm; k++) {
            sinew_asset_mesh_info *mi = &a->meshes[mt[k].mesh];
            if (!mi->morph_count) mi->first_morph = k;
            mi->morph_count++;
            a->morphs[k].count = mt[k].count;
            a->morphs[k].indices = a->morph_idx + mt[k].first;
            a->morphs[k].position_deltas = a->morph_dp + (size_t)mt[k].first * 3;
            a->morphs[k].normal_deltas = mt[k].has_normals ? a->morph_dn + (size_t)mt[k].first * 3 : NULL;
            a->morphs[k].tangent_deltas = mt[k].has_tangents ? a->morph_dt + (size_t)mt[k].first * 3 : NULL;
            a->morph_default[k] = mt[k].w0;
            a->morphs[k].name = mt[k].name == GL_NO_NAME ? NULL : a->names + mt[k].name;
        }
    }
    a->stats.tangent_meshes = g->tangent_instances;
    float *ft = NULL;
    if (g->tangent_instances) {
        ft = gz(g, (size_t)nv * 4, sizeof(float));
        if (!ft) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        const double *dt = g->tan.p;
        for (size_t k = 0; k < (size_t)nv * 4; k++) ft[k] = (float)dt[k];
    }
    r = snw_builder_pack(&g->b, ft);
    snw_free(g->al, ft);
    return r;
}

/* ---- animations ------------------------------------------------------------------------ */

typedef struct track_in {
    int64_t sampler;                 /* -1 = none */
    sinew_interpolation mode;
    uint32_t count;
    void *keys;                      /* sinew_vec3_key or sinew_quat_key */
    void *tangents;                  /* sinew_vec3 or sinew_quat, 2 per key */
} track_in;

typedef struct anim_node { int used, weights, touched; track_in t[3]; } anim_node;   /* translation, rotation, scale */

/* What every clip reuses (sized once per file): per node, the node's tracks
 * (reset after each clip for the nodes it touched only), the touched nodes,
 * and room for the weight tracks (at most one per morph group). */
typedef struct clip_scratch { anim_node *an; uint32_t *touched; sinew_weight_track_desc *wtd; } clip_scratch;

static int cmp_u32(const void *a, const void *b) { uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b; return x < y ? -1 : x > y; }

/* One kept `weights` channel: times, values (key-major, width per key) and, for
 * CUBICSPLINE, tangents (in_k[width], out_k[width] per key), shared by the
 * weight tracks of every primitive instance of its node. */
typedef struct weight_in { double *times, *values, *tangents; } weight_in;

/* What both channel kinds read from an animation sampler: its interpolation
 * (*ip: the file's name or NULL, for messages), its output accessor index, a
 * description for messages, and the input key times (*in, the caller frees). */
static sinew_result read_sampler_input(gl *g, json_object *samplers, uint32_t n_samplers, uint32_t ani, int64_t si,
                                       sinew_interpolation *mode, const char **ip, int64_t *out_a,
                                       char *what, size_t what_size, double **in, uint32_t *nin)
{
    static const int64_t time_t_[] = { 5126, 0 };
    if (si < 0 || si >= n_samplers) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: animation %u names sampler %lld of %u", ani, (long long)si, n_samplers);
    json_object *s = json_object_array_get_idx(samplers, (size_t)si);
    *ip = jstr(s, "interpolation");
    *mode = SINEW_INTERPOLATION_LINEAR;
    if (*ip && !strcmp(*ip, "STEP")) *mode = SINEW_INTERPOLATION_STEP;
    else if (*ip && !strcmp(*ip, "CUBICSPLINE")) *mode = SINEW_INTERPOLATION_CUBICSPLINE;
    else if (*ip && strcmp(*ip, "LINEAR")) return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: animation %u sampler %lld: unknown interpolation '%s'", ani, (long long)si, *ip);
    int64_t in_a;
    sinew_result r;
    if ((r = jint(g, s, "input", 0, INT32_MAX, -1, &in_a, "animation sampler", (uint32_t)si)) ||
        (r = jint(g, s, "output", 0, INT32_MAX, -1, out_a, "animation sampler", (uint32_t)si))) return r;
    snprintf(what, what_size, "animation %u sampler %lld", ani, (long long)si);
    return read_accessor(g, in_a, time_t_, 1, g->max_keys, in, nin, NULL, what);
}

/* Reads a `weights` channel of node `node` into one weight track per primitive
 * instance of the node with morph targets (slots: the asset's morph target
 * numbering, sinew_asset_morph_targets). Returns with *n_tracks 0 when the node
 * has no morph targets. Weights are kept as the file gives them (negative and
 * > 1 too; normalized integers decoded). */
static sinew_result read_weight_channel(gl *g, json_object *samplers, uint32_t n_samplers, uint32_t ani, int64_t si,
                                        uint32_t node, weight_in *w, sinew_weight_track_desc *td, uint32_t *n_tracks,
                                        double *duration, uint64_t *keys_total, sinew_interpolation *mode_out)
{
    static const int64_t w_t[] = { 5126, 5120, 5121, 5122, 5123, 0 };
    *n_tracks = 0;
    uint32_t width = 0;
    for (uint32_t q = g->mg_head[node]; q != UINT32_MAX; q = g->mg_next[q]) {
        if (width && width != g->mg_len[q])
            return fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: node %u: its primitives have different morph target counts (%u, %u)", node, width, g->mg_len[q]);
        width = g->mg_len[q];
    }
    if (!width) return SINEW_OK;
    sinew_interpolation mode;
    const char *ip;
    int64_t out_a;
    char what[80];
    double *in = NULL, *out = NULL;
    uint32_t nin, nout;
    sinew_result r = read_sampler_input(g, samplers, n_samplers, ani, si, &mode, &ip, &out_a, what, sizeof what, &in, &nin);
    if (r) return r;
    r = read_accessor(g, out_a, w_t, 1, GL_MAX_ACCESSOR_COUNT, &out, &nout, NULL, what);
    if (r) { snw_free(g->al, in); return r; }
    uint32_t per = mode == SINEW_INTERPOLATION_CUBICSPLINE ? 3 : 1;
    if ((uint64_t)nin * per * width != nout)
        r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: %u weight outputs for %u inputs x %u targets (%s)", what, nout, nin, width, ip ? ip : "LINEAR");
    for (uint32_t k = 1; k < nin && !r; k++)
        if (!(in[k] >= in[k - 1])) r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: key times decrease at key %u", what, k);
    for (uint32_t k = 0; k < nout && !r; k++)
        if (!(fabs(out[k]) <= 1e6)) r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: morph weight %u is not finite or beyond 1e6", what, k);
    *keys_total += nin;
    if (!r && *keys_total > g->max_keys) r = fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: animation %u has more than %u keys", ani, g->max_keys);
    if (!r) {
        w->values = gz(g, (size_t)nin * width, sizeof(double));
        w->tangents = per == 3 ? gz(g, (size_t)nin * 2 * width, sizeof(double)) : NULL;
        if (!w->values || (per == 3 && !w->tangents)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (!r) {
        for (uint32_t k = 0; k < nin; k++) {
            if (in[k] > *duration) *duration = in[k];
            memcpy(w->values + (size_t)k * width, out + ((size_t)k * per + (per == 3)) * width, width * sizeof(double));
            if (per == 3) {
                memcpy(w->tangents + (size_t)k * 2 * width, out + (size_t)k * 3 * width, width * sizeof(double));
                memcpy(w->tangents + ((size_t)k * 2 + 1) * width, out + ((size_t)k * 3 + 2) * width, width * sizeof(double));
            }
        }
        w->times = in;
        in = NULL;
        for (uint32_t q = g->mg_head[node]; q != UINT32_MAX; q = g->mg_next[q]) {
            sinew_weight_track_desc *d = &td[(*n_tracks)++];
            d->first_weight = g->mg_start[q]; d->width = width; d->key_count = nin;
            d->times = w->times; d->values = w->values; d->interpolation = mode; d->tangents = w->tangents;
        }
        *mode_out = mode;
    }
    snw_free(g->al, in); snw_free(g->al, out);
    return r;
}

static sinew_result read_track(gl *g, json_object *samplers, uint32_t n_samplers, uint32_t ani, int64_t si, int path, track_in *t,
                               double *duration, uint64_t *keys_total)
{
    static const int64_t vec_t[] = { 5126, 0 };
    static const int64_t rot_t[] = { 5126, 5120, 5121, 5122, 5123, 0 };
    sinew_interpolation mode;
    const char *ip;
    int64_t out_a;
    char what[80];
    double *in = NULL, *out = NULL;
    uint32_t nin, nout, comps;
    sinew_result r = read_sampler_input(g, samplers, n_samplers, ani, si, &mode, &ip, &out_a, what, sizeof what, &in, &nin);
    if (r) return r;
    comps = path == 1 ? 4 : 3;
    r = read_accessor(g, out_a, path == 1 ? rot_t : vec_t, comps, g->max_keys * 3u > g->max_keys ? g->max_keys * 3u : g->max_keys, &out, &nout, NULL, what);
    if (r) { snw_free(g->al, in); return r; }
    uint32_t per = mode == SINEW_INTERPOLATION_CUBICSPLINE ? 3 : 1;
    if ((uint64_t)nin * per != nout) r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: %u outputs for %u inputs (%s)", what, nout, nin, ip ? ip : "LINEAR");
    for (uint32_t k = 1; k < nin && !r; k++)
        if (!(in[k] >= in[k - 1])) r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: key times decrease at key %u", what, k);
    *keys_total += nin;
    if (!r && *keys_total > g->max_keys) r = fail_at(g->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: animation %u has more than %u keys", ani, g->max_keys);
    if (!r) {
        size_t ksz = path == 1 ? sizeof(sinew_quat_key) : sizeof(sinew_vec3_key);
        size_t tsz = path == 1 ? sizeof(sinew_quat) : sizeof(sinew_vec3);
        t->keys = gz(g, nin, ksz);
        t->tangents = per == 3 ? gz(g, (size_t)nin * 2, tsz) : NULL;
        if (!t->keys || (per == 3 && !t->tangents)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (!r) {
        t->sampler = si; t->mode = mode; t->count = nin;
        for (uint32_t k = 0; k < nin; k++) {
            const double *v = out + (size_t)(k * per + (per == 3 ? 1 : 0)) * comps;
            if (in[k] > *duration) *duration = in[k];
            if (path == 1) {
                sinew_quat_key *qk = (sinew_quat_key *)t->keys + k;
                qk->time = in[k];
                qk->value.x = v[0]; qk->value.y = v[1]; qk->value.z = v[2]; qk->value.w = v[3];
                if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0) { r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: %s: zero rotation at key %u", what, k); break; }
            } else {
                sinew_vec3_key *vk = (sinew_vec3_key *)t->keys + k;
                vk->time = in[k];
                vk->value = sinew_v3(v[0], v[1], v[2]);
            }
            if (per == 3) {
                const double *ai = out + (size_t)(k * 3) * comps, *bo = out + (size_t)(k * 3 + 2) * comps;
                if (path == 1) {
                    sinew_quat *tq = (sinew_quat *)t->tangents + 2 * k;
                    tq[0].x = ai[0]; tq[0].y = ai[1]; tq[0].z = ai[2]; tq[0].w = ai[3];
                    tq[1].x = bo[0]; tq[1].y = bo[1]; tq[1].z = bo[2]; tq[1].w = bo[3];
                } else {
                    sinew_vec3 *tv = (sinew_vec3 *)t->tangents + 2 * k;
                    tv[0] = sinew_v3(ai[0], ai[1], ai[2]);
                    tv[1] = sinew_v3(bo[0], bo[1], bo[2]);
                }
            }
        }
    }
    snw_free(g->al, in); snw_free(g->al, out);
    return r;
}

static sinew_result build_clip(gl *g, sinew_asset *a, uint32_t ani, clip_scratch *cs)
{
    anim_node *an = cs->an;
    uint32_t n_touched = 0;
    json_object *anim = json_object_array_get_idx(g->anims_j, ani);
    json_object *chs, *samplers; uint32_t nch, ns;
    sinew_result r;
    if ((r = jarray(g, anim, "channels", &chs, &nch, "animation")) || (r = jarray(g, anim, "samplers", &samplers, &ns, "animation"))) return r;
    double duration = 0;
    uint64_t keys = 0;
    uint32_t used_nodes = 0;
    /* morph-weight channels: at most one per node, one track per primitive instance */
    weight_in *win = r ? NULL : gz(g, nch, sizeof *win);
    sinew_weight_track_desc *wtd = cs->wtd;
    uint32_t n_wtd = 0;
    if (!r && !win) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t k = 0; k < nch && !r; k++) {
        json_object *ch = json_object_array_get_idx(chs, k);
        json_object *tg = jget(ch, "target");
        const char *path = jstr(tg, "path");
        int64_t node = -1, si;
        if ((r = jint(g, ch, "sampler", 0, INT32_MAX, -1, &si, "animation channel", k))) break;
        if (!path) { r = fail_at(g->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ani, UINT32_MAX, "glTF: animation %u channel %u has no target path", ani, k); break; }
        if (!strcmp(path, "weights")) {
            if (!jget(tg, "node")) { a->stats.ignored_weight_channels++; continue; }
            if ((r = jint(g, tg, "node", 0, (int64_t)g->n_nodes - 1, -1, &node, "animation channel", k))) break;
            if (an[node].weights) { a->stats.ignored_weight_channels++; continue; }
            if (!an[node].touched) { an[node].touched = 1; cs->touched[n_touched++] = (uint32_t)node; }
            uint32_t nt = 0;
            sinew_interpolation wm = SINEW_INTERPOLATION_LINEAR;
            r = read_weight_channel(g, samplers, ns, ani, si, (uint32_t)node, &win[k], wtd + n_wtd, &nt, &duration, &keys, &wm);
            if (r) break;
            if (!nt) { a->stats.ignored_weight_channels++; continue; }
            an[node].weights = 1;
            n_wtd += nt;
            a->stats.weight_channels++;
            if (wm == SINEW_INTERPOLATION_STEP) a->stats.step_channels++;
            if (wm == SINEW_INTERPOLATION_CUBICSPLINE) a->stats.cubic_channels++;
            continue;
        }
        int pi = !strcmp(path, "translation") ? 0 : !strcmp(path, "rotation") ? 1 : !strcmp(path, "scale") ? 2 : -1;
        if (pi < 0 || !jget(tg, "node")) { a->stats.ignored_channels++; continue; }
        if ((r = jint(g, tg, "node", 0, (int64_t)g->n_nodes - 1, -1, &node, "animation channel", k))) break;
        if (!g->b.nodes[node].needed || an[node].t[pi].keys) { a->stats.ignored_channels++; continue; }
        if (!an[node].touched) { an[node].touched = 1; cs->touched[n_touched++] = (uint32_t)node; }
        r = read_track(g, samplers, ns, ani, si, pi, &an[node].t[pi], &duration, &keys);
        if (!r && !an[node].used) { an[node].used = 1; used_nodes++; }
        if (!r && an[node].t[pi].mode == SINEW_INTERPOLATION_STEP) a->stats.step_channels++;
        if (!r && an[node].t[pi].mode == SINEW_INTERPOLATION_CUBICSPLINE) a->stats.cubic_channels++;
    }
    /* channels in node order: the touched nodes sorted (linear in the clip, not in the file's nodes) */
    qsort(cs->touched, n_touched, sizeof *cs->touched, cmp_u32);
    uint32_t nchan = 0;
    for (uint32_t t = 0; t < n_touched; t++) if (an[cs->touched[t]].used) nchan += g->b.nodes[cs->touched[t]].joint_count;
    sinew_channel_desc *cd = r ? NULL : gz(g, nchan, sizeof *cd);
    if (!r && !cd) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (!r) {
        uint32_t c = 0;
        for (uint32_t t = 0; t < n_touched; t++) {
            uint32_t i = cs->touched[t];
            if (!an[i].used) continue;
            for (uint32_t q = 0; q < g->b.nodes[i].joint_count; q++, c++) {
                cd[c].joint = g->b.nodes[i].first_joint + q;
                cd[c].translation_count = an[i].t[0].count; cd[c].translations = an[i].t[0].keys;
                cd[c].translation_interpolation = an[i].t[0].mode; cd[c].translation_tangents = an[i].t[0].tangents;
                cd[c].rotation_count = an[i].t[1].count; cd[c].rotations = an[i].t[1].keys;
                cd[c].rotation_interpolation = an[i].t[1].mode; cd[c].rotation_tangents = an[i].t[1].tangents;
                cd[c].scale_count = an[i].t[2].count; cd[c].scales = an[i].t[2].keys;
                cd[c].scale_interpolation = an[i].t[2].mode; cd[c].scale_tangents = an[i].t[2].tangents;
            }
        }
        char name[64];
        const char *nm = jstr(anim, "name");
        if (!nm) { snprintf(name, sizeof name, "animation%u", ani); nm = name; }
        char label[96];
        snprintf(label, sizeof label, "%u '%s'", ani, nm);
        sinew_clip_desc d = { 0 };
        d.name = nm;
        d.duration = duration;
        d.ticks_per_second = 1.0;
        d.channel_count = nchan;
        d.channels = cd;
        d.weight_count = a->morph_count;
        d.weight_track_count = n_wtd;
        d.weight_tracks = wtd;
        r = snw_builder_clip(&g->b, ani, &d, label);
    }
    (void)used_nodes;
    snw_free(g->al, cd);
    if (win)
        for (uint32_t k = 0; k < nch; k++) { snw_free(g->al, win[k].times); snw_free(g->al, win[k].values); snw_free(g->al, win[k].tangents); }
    snw_free(g->al, win);
    for (uint32_t t = 0; t < n_touched; t++) {
        anim_node *n = &an[cs->touched[t]];
        for (int k = 0; k < 3; k++) { snw_free(g->al, n->t[k].keys); snw_free(g->al, n->t[k].tangents); }
        memset(n, 0, sizeof *n);
    }
    return r;
}

static sinew_result build_clips(gl *g, sinew_asset *a)
{
    if (!g->n_anims) return SINEW_OK;
    sinew_result r = snw_builder_clips(&g->b, g->n_anims, g->max_clips);
    if (r) return r;
    /* the morph groups by node, once */
    const gl_morph *mt = g->mt.p;
    for (uint32_t k = 0; k < g->mt.n; ) {
        uint32_t e = k;
        while (e < g->mt.n && mt[e].mesh == mt[k].mesh) e++;
        g->n_mg++;
        k = e;
    }
    g->mg_start = gz(g, g->n_mg, sizeof(uint32_t)); g->mg_len = gz(g, g->n_mg, sizeof(uint32_t));
    g->mg_next = gz(g, g->n_mg, sizeof(uint32_t)); g->mg_head = gz(g, g->n_nodes, sizeof(uint32_t));
    clip_scratch cs = { gz(g, g->n_nodes, sizeof *cs.an), gz(g, g->n_nodes, sizeof *cs.touched), gz(g, g->n_mg, sizeof *cs.wtd) };
    if (!g->mg_start || !g->mg_len || !g->mg_next || !g->mg_head || !cs.an || !cs.touched || !cs.wtd) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (!r) {
        for (uint32_t i = 0; i < g->n_nodes; i++) g->mg_head[i] = UINT32_MAX;
        uint32_t q = 0;
        for (uint32_t k = 0; k < g->mt.n; q++) {
            uint32_t e = k;
            while (e < g->mt.n && mt[e].mesh == mt[k].mesh) e++;
            g->mg_start[q] = k; g->mg_len[q] = e - k;
            k = e;
        }
        for (uint32_t p = g->n_mg; p-- > 0;) { /* prepend from the back: each node's list in asset order */
            uint32_t node = mt[g->mg_start[p]].node;
            g->mg_next[p] = g->mg_head[node];
            g->mg_head[node] = p;
        }
    }
    g->b.budget = g->budget;
    g->b.held = vec_bytes(g) + (uint64_t)g->n_nodes * (sizeof(gl_node) + sizeof(snw_bnode)) +
                (uint64_t)g->b.cand_cap * sizeof(snw_bcand);
    for (uint32_t i = 0; i < g->n_anims && !r; i++) {
        r = snw_asset_progress(g->c, 0.8 + 0.2 * (double)i / (double)g->n_anims);
        if (!r) r = build_clip(g, a, i, &cs);
        g->tmp_bytes = 0;   /* the clip's key arrays are freed */
    }
    snw_free(g->al, cs.an); snw_free(g->al, cs.touched); snw_free(g->al, cs.wtd);
    return r;
}

/* ---- entry ------------------------------------------------------------------------------ */

static sinew_result check_header(gl *g, int *not_v2)
{
    json_object *asset = jget(g->root, "asset");
    const char *ver = jstr(asset, "version");
    if (!ver) return fail(g->c, SINEW_ERROR_FORMAT, "glTF: no asset.version");
    /* glTF 1.x is not handed to assimp: its glTF 1 importer crashes on damaged
     * files (found by fuzz_gltf), and the format is obsolete */
    if (ver[0] != '2' || ver[1] != '.')
        return fail(g->c, SINEW_ERROR_FORMAT, "glTF: asset.version '%.16s': only glTF 2.x is read (convert glTF 1 files to 2.0)", ver);
    (void)not_v2;
    json_object *req; uint32_t nreq;
    sinew_result r = jarray(g, g->root, "extensionsRequired", &req, &nreq, "glTF");
    if (r) return r;
    for (uint32_t i = 0; i < nreq; i++) {
        json_object *e = json_object_array_get_idx(req, i);
        const char *name = json_object_is_type(e, json_type_string) ? json_object_get_string(e) : "?";
        if (!strcmp(name, "KHR_draco_mesh_compression") && !snw_draco_available())
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: requires KHR_draco_mesh_compression, and this Sinew was built without "
                                                  "Draco (Debian libdraco-dev)");
        if (!strcmp(name, "EXT_meshopt_compression") && !snw_meshopt_available())
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: requires EXT_meshopt_compression, and this Sinew was built without "
                                                  "meshoptimizer (Debian libmeshoptimizer-dev)");
        if (strcmp(name, "KHR_mesh_quantization") && strncmp(name, "KHR_materials_", 14) && strncmp(name, "KHR_texture_", 12) &&
            strcmp(name, "KHR_lights_punctual") && strcmp(name, "EXT_meshopt_compression") && strcmp(name, "KHR_draco_mesh_compression"))
            return fail(g->c, SINEW_ERROR_FORMAT, "glTF: requires extension '%s', which Sinew does not support", name);
    }
    struct { const char *key; json_object **arr; uint32_t *n; } tabs[] = {
        { "nodes", &g->nodes_j, &g->n_nodes }, { "meshes", &g->meshes_j, &g->n_meshes },
        { "accessors", &g->accessors_j, &g->n_accessors }, { "bufferViews", &g->views_j, &g->n_views },
        { "buffers", &g->buffers_j, &g->n_buffers }, { "skins", &g->skins_j, &g->n_skins },
        { "animations", &g->anims_j, &g->n_anims },
    };
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
        if ((r = jarray(g, g->root, tabs[i].key, tabs[i].arr, tabs[i].n, "glTF"))) return r;
    if (g->n_nodes > g->max_nodes) return fail(g->c, SINEW_ERROR_LIMIT_EXCEEDED, "glTF: %u nodes (limit %u)", g->n_nodes, g->max_nodes);
    if (!g->n_meshes) return fail(g->c, SINEW_ERROR_EMPTY, "glTF: the file holds no mesh");
    return SINEW_OK;
}

static void gl_release(gl *g)
{
    const sinew_allocator *al = g->al;
    if (g->root) json_object_put(g->root);
    if (g->buffers) for (uint32_t i = 0; i < g->n_buffers; i++) snw_free(al, g->buffers[i].owned);
    snw_free(al, g->buffers);
    snw_free(al, g->file);
    snw_free(al, g->nodes); snw_free(al, g->order);
    if (g->b.al) snw_builder_release(&g->b);
    if (g->skin_cands) for (uint32_t i = 0; i < g->n_skins; i++) snw_free(al, g->skin_cands[i]);
    snw_free(al, g->skin_cands); snw_free(al, g->skin_joint_count);
    if (g->mo_views) for (uint32_t i = 0; i < g->n_views; i++) snw_free(al, g->mo_views[i]);
    draco_clear(g);
    snw_free(al, g->mo_views);
    vec *vs[] = { &g->pos, &g->nrm, &g->tan, &g->infl_off, &g->infl_joint, &g->infl_weight, &g->idx, &g->inst, &g->inst_name,
                  &g->mt, &g->m_idx, &g->m_dp, &g->m_dn, &g->m_dt };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) snw_free(al, vs[i]->p);
    snw_free(al, g->mg_start); snw_free(al, g->mg_len); snw_free(al, g->mg_next); snw_free(al, g->mg_head);
}

int snw_gltf_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out)
{
    const sinew_asset_desc *d = c->desc;
    gl g;
    memset(&g, 0, sizeof g);
    g.c = c; g.cf = cf; g.al = &c->alloc;
    g.max_vertices = d->max_vertices ? d->max_vertices : SINEW_ASSET_DEFAULT_MAX_VERTICES;
    g.max_indices = d->max_indices ? d->max_indices : SINEW_ASSET_DEFAULT_MAX_INDICES;
    g.max_joints = d->max_joints && d->max_joints < SINEW_MAX_JOINTS ? d->max_joints : SINEW_MAX_JOINTS;
    g.max_meshes = d->max_meshes ? d->max_meshes : SINEW_ASSET_DEFAULT_MAX_MESHES;
    g.max_clips = d->max_clips ? d->max_clips : SINEW_ASSET_DEFAULT_MAX_CLIPS;
    g.max_keys = d->max_keys && d->max_keys < SINEW_MAX_CLIP_KEYS ? d->max_keys : SINEW_MAX_CLIP_KEYS;
    g.max_nodes = d->max_nodes ? d->max_nodes : SINEW_ASSET_DEFAULT_MAX_NODES;
    g.pos.elem = g.nrm.elem = 3 * sizeof(double);
    g.tan.elem = 4 * sizeof(double);
    g.infl_off.elem = g.infl_joint.elem = g.idx.elem = sizeof(uint32_t);
    g.infl_weight.elem = sizeof(float);
    g.inst.elem = sizeof(sinew_asset_mesh_info);
    g.inst_name.elem = 1;
    g.mt.elem = sizeof(gl_morph);
    g.m_idx.elem = sizeof(uint32_t);
    g.m_dp.elem = g.m_dn.elem = g.m_dt.elem = 3 * sizeof(float);
    sinew_result r = SINEW_OK;
    const uint8_t *data;
    size_t size;
    if (d->path) {
        int violation = 0;
        int fd = snw_confine_open(cf, d->path, &violation);
        if (fd < 0) { r = fail(c, SINEW_ERROR_IO, "cannot open '%s'", d->path); goto out; }
        int rr = snw_read_fd(fd, g.al, GL_MAX_FILE_BYTES, &g.file, &g.file_size);
        if (rr == -3) { r = fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory"); goto out; }
        if (rr) { r = fail(c, rr == -2 ? SINEW_ERROR_LIMIT_EXCEEDED : SINEW_ERROR_IO, "cannot read '%s'", d->path); goto out; }
        data = g.file; size = g.file_size;
    } else {
        data = d->data; size = d->size;
    }
    int not_v2 = 0;
    if ((r = parse_file(&g, data, size)) || (r = check_header(&g, &not_v2))) goto out;
    if (not_v2) { gl_release(&g); return SNW_GLTF_NOT_V2; }
    sinew_asset *a = gz(&g, 1, sizeof *a);
    if (!a) { r = fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory"); goto out; }
    a->alloc = c->alloc;
    a->stats.gltf = 1;
    if (snw_builder_init(&g.b, c, a, g.n_nodes)) {
        snw_asset_free(a);
        r = fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
        goto out;
    }
    g.b.prefix = "glTF: ";
    g.b.gltf = 1;
    g.b.cand_tol = 1e-9;
    g.b.max_joints = g.max_joints;
    g.b.check_range = 1;
    if (!(r = load_buffers(&g))) {
        g.input_bytes = size;
        for (uint32_t i = 0; i < g.n_buffers; i++) if (g.buffers[i].owned) g.input_bytes += g.buffers[i].len;
        g.budget = d->max_memory ? (uint64_t)d->max_memory : SINEW_ASSET_DEFAULT_MEMORY_FLOOR + 64 * g.input_bytes;
    }
    if (!r && !(r = read_nodes(&g)) && !(r = collect_instances(&g, a)) && !(r = finish_mesh(&g, a)))
        r = build_clips(&g, a);
    if (r) snw_asset_free(a);
    else *out = a;
out:
    if (r && c->err.result == SINEW_OK) snw_asset_fail_at(c, r, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "glTF: %s", sinew_result_string(r));
    gl_release(&g);
    return r;
}
