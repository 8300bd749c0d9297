/* The asset builder: what Sinew's glTF importer (gltf.c) and the assimp
 * importer (assimp.c) share to build a sinew_asset (asset_internal.h): bind
 * candidates and joint numbering, the skeleton, vertex and tangent packing,
 * clips. */
#include "asset_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define fail snw_asset_fail
#define fail_at snw_asset_fail_at

/* A float32 bound with head room (the glTF importer's range checks). */
#define SNW_FLOAT_LIMIT 1e30

double snw_mat_max_abs(const sinew_mat4 *a)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (!(fabs(a->m[c][r]) <= e)) e = fabs(a->m[c][r]);
    return e;
}

double snw_mat_max_diff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double d = fabs(a->m[c][r] - b->m[c][r]);
            if (!(d <= e)) e = d;
        }
    return e;
}

sinew_result snw_builder_init(snw_builder *b, snw_import_ctx *c, sinew_asset *a, uint32_t node_count)
{
    b->c = c;
    b->al = &c->alloc;
    b->a = a;
    b->nodes = snw_calloc(b->al, node_count ? node_count : 1, sizeof *b->nodes);
    if (!b->nodes) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    b->node_count = node_count;
    for (uint32_t i = 0; i < node_count; i++) { b->nodes[i].parent = -1; b->nodes[i].first_cand = b->nodes[i].last_cand = -1; }
    return SINEW_OK;
}

void snw_builder_release(snw_builder *b)
{
    snw_free(b->al, b->nodes);
    snw_free(b->al, b->cands);
    snw_free(b->al, b->cand_joint);
    snw_free(b->al, b->cand_hash);
    b->nodes = NULL; b->cands = NULL; b->cand_joint = NULL; b->cand_hash = NULL; b->cand_hash_cap = 0;
}

void snw_builder_mark_needed(snw_builder *b, uint32_t node)
{
    for (int32_t i = (int32_t)node; i >= 0 && !b->nodes[i].needed; i = b->nodes[i].parent) b->nodes[i].needed = 1;
}

/* The bind on its tolerance grid and the hash of (node, grid); 0 for a
 * non-finite bind (never merged, as no tolerance test holds for NaN). */
static uint64_t cand_key(const snw_builder *b, uint32_t node, const sinew_mat4 *ib, int64_t key[17])
{
    double m = 1.0 + snw_mat_max_abs(ib);
    memset(key, 0, 17 * sizeof *key);
    if (!isfinite(m) || !(m < 1e300)) return 0;
    int e = 0;
    (void)frexp(m, &e);                      /* m <= 2^e < 2m */
    double q = b->cand_tol * ldexp(1.0, e);  /* |element| / q <= 1 / cand_tol: fits int64 */
    key[16] = e;
    uint64_t h = 1469598103934665603ull ^ node;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double v = nearbyint(ib->m[c][r] / q);
            key[c * 4 + r] = v == 0 ? 0 : (int64_t)v;
        }
    for (int i = 0; i < 17; i++) {
        uint64_t x = (uint64_t)key[i];
        for (int k = 0; k < 8; k++) { h ^= (x >> (8 * k)) & 0xff; h *= 1099511628211ull; }
    }
    return h ? h : 1;
}

int32_t snw_builder_find_candidate(const snw_builder *b, uint32_t node, const sinew_mat4 *ib)
{
    int64_t key[17];
    uint64_t h = cand_key(b, node, ib, key);
    if (!h || !b->cand_hash_cap) return -1;
    for (uint32_t s = (uint32_t)h & (b->cand_hash_cap - 1);; s = (s + 1) & (b->cand_hash_cap - 1)) {
        uint32_t e = b->cand_hash[s];
        if (!e) return -1;
        const snw_bcand *c = &b->cands[e - 1];
        if (c->hash == h && c->node == node && memcmp(c->key, key, sizeof key) == 0) return (int32_t)(e - 1);
    }
}

/* Puts candidate k into the hash (grown to at most half full). */
static int cand_hash_insert(snw_builder *b, uint32_t k)
{
    if ((uint64_t)(b->cand_count + 1) * 2 > b->cand_hash_cap) {
        uint32_t nc = b->cand_hash_cap ? b->cand_hash_cap * 2 : 256;
        while ((uint64_t)(b->cand_count + 1) * 2 > nc) nc *= 2;
        uint32_t *t = snw_calloc(b->al, nc, sizeof *t);
        if (!t) return 0;
        snw_free(b->al, b->cand_hash);
        b->cand_hash = t;
        b->cand_hash_cap = nc;
        for (uint32_t i = 0; i < b->cand_count; i++) {
            if (i == k || !b->cands[i].hash) continue;
            uint32_t s = (uint32_t)b->cands[i].hash & (nc - 1);
            while (t[s]) s = (s + 1) & (nc - 1);
            t[s] = i + 1;
        }
    }
    if (!b->cands[k].hash) return 1;
    uint32_t s = (uint32_t)b->cands[k].hash & (b->cand_hash_cap - 1);
    while (b->cand_hash[s]) s = (s + 1) & (b->cand_hash_cap - 1);
    b->cand_hash[s] = k + 1;
    return 1;
}

sinew_result snw_builder_candidate(snw_builder *b, uint32_t node, const sinew_mat4 *ib, uint32_t *out)
{
    snw_bnode *n = &b->nodes[node];
    int32_t found = snw_builder_find_candidate(b, node, ib);
    if (found >= 0) { *out = (uint32_t)found; return SINEW_OK; }
    if (b->cand_count >= b->max_joints)
        return fail_at(b->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_JOINT, UINT32_MAX, UINT32_MAX, "%smore than %u joints",
                       b->prefix, b->max_joints);
    if (b->cand_count == b->cand_cap) {
        uint32_t nc = b->cand_cap ? b->cand_cap * 2 : 64;
        snw_bcand *q = snw_alloc(b->al, (size_t)nc * sizeof *q);
        if (!q) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (b->cand_cap) memcpy(q, b->cands, (size_t)b->cand_cap * sizeof *q);
        snw_free(b->al, b->cands);
        b->cands = q; b->cand_cap = nc;
    }
    uint32_t k = b->cand_count;
    b->cands[k].inverse_bind = *ib;
    b->cands[k].next = -1;
    b->cands[k].rank = n->cand_count;
    b->cands[k].node = node;
    b->cands[k].hash = cand_key(b, node, ib, b->cands[k].key);
    if (!cand_hash_insert(b, k)) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    b->cand_count++;
    n->cand_count++;
    if (n->last_cand < 0) n->first_cand = (int32_t)k; else b->cands[n->last_cand].next = (int32_t)k;
    n->last_cand = (int32_t)k;
    snw_builder_mark_needed(b, node);
    *out = k;
    return SINEW_OK;
}

static uint32_t order_at(const snw_builder *b, uint32_t k) { return b->order ? b->order[k] : k; }
static uint32_t order_len(const snw_builder *b) { return b->order ? b->order_count : b->node_count; }

sinew_result snw_builder_number_joints(snw_builder *b)
{
    uint32_t joints = 0;
    for (uint32_t k = 0; k < order_len(b); k++) {
        snw_bnode *n = &b->nodes[order_at(b, k)];
        if (!n->needed) continue;
        n->first_joint = joints;
        n->joint_count = n->cand_count ? n->cand_count : 1;
        joints += n->joint_count;
        if (joints > b->max_joints)
            return fail_at(b->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_JOINT, UINT32_MAX, UINT32_MAX, "%smore than %u joints",
                           b->prefix, b->max_joints);
        if (n->cand_count > 1) b->a->stats.duplicated_joints += n->cand_count - 1;
    }
    b->joints = joints;
    snw_free(b->al, b->cand_joint);
    b->cand_joint = snw_calloc(b->al, (size_t)b->cand_count + 1, sizeof *b->cand_joint);
    if (!b->cand_joint) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t k = 0; k < b->cand_count; k++) b->cand_joint[k] = b->nodes[b->cands[k].node].first_joint + b->cands[k].rank;
    return SINEW_OK;
}

/* "node 3 'arm'" (glTF) or "node 'arm'" (assimp), for messages. */
static const char *node_label(const snw_builder *b, uint32_t i, char *buf, size_t size)
{
    const snw_bnode *n = &b->nodes[i];
    if (b->gltf) snprintf(buf, size, "node %u '%s'", i, n->name ? n->name : "");
    else snprintf(buf, size, "node '%.*s'", (int)n->name_len, n->name ? n->name : "");
    return buf;
}

/* The skeleton's description arrays, one entry per joint. */
typedef struct skel_arrays {
    int32_t *parents;
    const char **names;
    sinew_mat4 *ibind;
    sinew_transform *rest;
    char *name_buf;
} skel_arrays;

/* Parents, names, rest T R S and inverse binds of every joint. */
static sinew_result fill_skeleton(snw_builder *b, skel_arrays *k)
{
    char label[320];
    size_t off = 0;
    for (uint32_t o = 0; o < order_len(b); o++) {
        uint32_t i = order_at(b, o);
        snw_bnode *n = &b->nodes[i];
        if (!n->needed) continue;
        if (!n->has_rest) {
            double err = 0;
            sinew_result tr = sinew_transform_from_mat4(&n->local, &n->rest, &err);
            if (tr)
                return fail_at(b->c, SINEW_ERROR_FORMAT, SINEW_ITEM_JOINT, n->first_joint, UINT32_MAX,
                               "%s%s: its transform cannot be split into T R S (%s)", b->prefix,
                               node_label(b, i, label, sizeof label), sinew_result_string(tr));
            if (err > b->a->stats.rest_shear_error) b->a->stats.rest_shear_error = err;
        }
        char nm[24];
        const char *name = n->name;
        size_t len = n->name_len;
        if (!name) { len = (size_t)snprintf(nm, sizeof nm, "node%u", i); name = nm; }
        for (uint32_t q = 0; q < n->joint_count; q++) {
            uint32_t j = n->first_joint + q;
            k->parents[j] = n->parent < 0 ? -1 : (int32_t)b->nodes[n->parent].first_joint;
            memcpy(k->name_buf + off, name, len);
            snw_strip_controls(k->name_buf + off, len);
            k->names[j] = k->name_buf + off;
            off += len + 1;
            k->rest[j] = n->rest;
        }
        if (n->cand_count) {
            for (int32_t q = n->first_cand; q >= 0; q = b->cands[q].next) k->ibind[b->cand_joint[q]] = b->cands[q].inverse_bind;
        } else if (sinew_mat4_inverse(&n->global, &k->ibind[n->first_joint])) {
            return fail_at(b->c, SINEW_ERROR_SINGULAR, SINEW_ITEM_JOINT, n->first_joint, UINT32_MAX,
                           "%s%s has a singular global transform", b->prefix, node_label(b, i, label, sizeof label));
        }
    }
    return SINEW_OK;
}

/* The float32 range of the rest pose's skinning transforms (global x inverse bind). */
static sinew_result check_range(snw_builder *b, const skel_arrays *k)
{
    for (uint32_t o = 0; o < order_len(b); o++) {
        const snw_bnode *n = &b->nodes[order_at(b, o)];
        if (!n->needed) continue;
        for (uint32_t q = 0; q < n->joint_count; q++) {
            sinew_mat4 t = sinew_mat4_mul(&n->global, &k->ibind[n->first_joint + q]);
            sinew_mat3 t3 = sinew_mat4_upper3(&t);
            double m3 = 0;
            for (int cc = 0; cc < 3; cc++) for (int rr = 0; rr < 3; rr++) if (!(fabs(t3.m[cc][rr]) <= m3)) m3 = fabs(t3.m[cc][rr]);
            /* normals use cofactors (products of two entries): the 3x3 part within 1e18 */
            if (!sinew_mat4_is_finite(&t) || snw_mat_max_abs(&t) > SNW_FLOAT_LIMIT || !(m3 <= 1e18))
                return fail_at(b->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_JOINT, n->first_joint + q, UINT32_MAX,
                               "%sjoint %u '%s' (node %u): rest skinning transform beyond float32 range", b->prefix,
                               n->first_joint + q, k->names[n->first_joint + q], order_at(b, o));
        }
    }
    return SINEW_OK;
}

sinew_result snw_builder_skeleton(snw_builder *b)
{
    const sinew_allocator *al = b->al;
    const uint32_t joints = b->joints;
    sinew_asset *a = b->a;
    skel_arrays k;
    size_t name_size = 1;
    for (uint32_t o = 0; o < order_len(b); o++) {
        const snw_bnode *n = &b->nodes[order_at(b, o)];
        if (n->needed) name_size += ((n->name ? n->name_len : 16) + 1) * n->joint_count;
    }
    k.parents = snw_calloc(al, joints ? joints : 1, sizeof *k.parents);
    k.names = snw_calloc(al, joints ? joints : 1, sizeof *k.names);
    k.ibind = snw_calloc(al, joints ? joints : 1, sizeof *k.ibind);
    k.rest = snw_calloc(al, joints ? joints : 1, sizeof *k.rest);
    k.name_buf = snw_calloc(al, name_size, 1);
    sinew_result r = SINEW_OK;
    if (!k.parents || !k.names || !k.ibind || !k.rest || !k.name_buf) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    if ((r = fill_skeleton(b, &k))) goto out;
    if (b->check_range && (r = check_range(b, &k))) goto out;
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = joints;
    sd.parents = k.parents;
    sd.names = k.names;
    sd.inverse_bind = k.ibind;
    sd.rest_local = k.rest;
    sd.allocator = al;
    r = sinew_skeleton_create(&sd, &a->skel);
    if (r) {
        r = fail_at(b->c, r, SINEW_ITEM_JOINT, UINT32_MAX, UINT32_MAX, "%sthe skeleton is invalid: %s", b->prefix,
                    sinew_result_string(r));
        goto out;
    }
    for (uint32_t j = 0; j < joints; j++) {
        sinew_mat4 rm = sinew_mat4_from_transform(&k.rest[j]);
        double e = snw_mat_max_diff(sinew_skeleton_bind_local(a->skel, j), &rm);
        if (e > a->stats.bind_rest_error) a->stats.bind_rest_error = e;
    }
out:
    snw_free(al, k.parents); snw_free(al, (void *)k.names); snw_free(al, k.ibind);
    snw_free(al, k.rest); snw_free(al, k.name_buf);
    return r;
}

sinew_result snw_builder_pack(snw_builder *b, const float *ftan)
{
    sinew_asset *a = b->a;
    const sinew_allocator *al = b->al;
    const uint32_t nv = a->vertex_count;
    a->vertices = snw_calloc(al, nv ? nv : 1, sizeof *a->vertices);
    float *fp = snw_calloc(al, (size_t)nv * 3 + 1, sizeof(float)), *fn = snw_calloc(al, (size_t)nv * 3 + 1, sizeof(float));
    if (!a->vertices || !fp || !fn) { snw_free(al, fp); snw_free(al, fn); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (size_t k = 0; k < (size_t)nv * 3; k++) {
        fp[k] = (float)a->rest_pos[k]; fn[k] = (float)a->rest_nrm[k];
        if (a->rest_pos[k] < lo[k % 3]) lo[k % 3] = a->rest_pos[k];
        if (a->rest_pos[k] > hi[k % 3]) hi[k % 3] = a->rest_pos[k];
    }
    double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    a->size = sqrt(dx * dx + dy * dy + dz * dz);
    sinew_influences inf = { 0 };
    inf.offsets = a->infl_offsets; inf.joints = a->infl_joints; inf.weights = a->infl_weights;
    sinew_pack_stats ps = { 0 };
    uint32_t bad = 0;
    sinew_result r = sinew_pack_vertices(nv, fp, fn, &inf, b->joints, a->vertices, &ps, &bad);
    snw_free(al, fp); snw_free(al, fn);
    if (r) return fail_at(b->c, r, SINEW_ITEM_VERTEX, bad, UINT32_MAX, "%svertex %u cannot be packed: %s", b->prefix, bad,
                          sinew_result_string(r));
    a->stats.max_influences = ps.max_influences;
    a->stats.vertices_pruned = ps.vertices_pruned;
    a->stats.influences_pruned = ps.influences_pruned;
    if (ftan) {
        a->tangents = snw_calloc(al, nv ? nv : 1, sizeof *a->tangents);
        if (!a->tangents) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        r = sinew_pack_tangents(nv, ftan, a->tangents, &bad);
        if (r) return fail_at(b->c, r, SINEW_ITEM_VERTEX, bad, UINT32_MAX, "%stangent of vertex %u cannot be packed: %s",
                              b->prefix, bad, sinew_result_string(r));
    }
    return SINEW_OK;
}

sinew_result snw_builder_clips(snw_builder *b, uint32_t n, uint32_t max_clips)
{
    if (n > max_clips) return fail(b->c, SINEW_ERROR_LIMIT_EXCEEDED, "%s%u animations (limit %u)", b->prefix, n, max_clips);
    b->a->clips = snw_calloc(b->al, n ? n : 1, sizeof *b->a->clips);
    return b->a->clips ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
}

/* A clip's bytes besides its keys: per joint a channel index and three float32
 * track descriptors (anim.c), whatever its channel count. */
#define SNW_CLIP_BYTES_PER_JOINT 176u

sinew_result snw_builder_clip(snw_builder *b, uint32_t i, sinew_clip_desc *d, const char *label)
{
    uint64_t need = (uint64_t)b->joints * SNW_CLIP_BYTES_PER_JOINT + 4096u;
    if (b->budget && b->held + b->clip_bytes + need > b->budget)
        return fail_at(b->c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CLIP, i, UINT32_MAX,
                       "%sanimation %s: its clip needs %.1f MiB (%u joints), beyond the import's memory budget of %.1f MiB with "
                       "the %u clips before it (sinew_asset_desc.max_memory)", b->prefix, label, (double)need / 1048576.0,
                       b->joints, (double)b->budget / 1048576.0, i);
    b->clip_bytes += need;
    d->joint_count = b->joints;
    d->allocator = b->al;
    /* the clip's name without control characters */
    char *nm = NULL;
    if (d->name) {
        size_t len = strlen(d->name);
        nm = snw_alloc(b->al, len + 1);
        if (!nm) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        memcpy(nm, d->name, len + 1);
        snw_strip_controls(nm, len);
        d->name = nm;
    }
    sinew_result r = sinew_clip_create(d, &b->a->clips[i]);
    snw_free(b->al, nm);
    d->name = NULL;
    if (r)
        return fail_at(b->c, r == SINEW_ERROR_OUT_OF_HOST_MEMORY ? r : SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, i, UINT32_MAX,
                       "%sanimation %s: invalid keys (%s)", b->prefix, label, sinew_result_string(r));
    b->a->clip_count = i + 1;
    return SINEW_OK;
}
