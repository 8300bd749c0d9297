/* Sinew asset import: assimp scene -> skeleton, packed vertices, indices,
 * clips (see asset.h for the conventions). The only file that includes assimp. */
#include "sinew/asset.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sinew_asset {
    sinew_skeleton *skel;
    uint32_t vertex_count, index_count, mesh_count, clip_count;
    sinew_vertex *vertices;
    double *rest_pos, *rest_nrm;
    uint32_t *indices;
    sinew_asset_mesh_info *meshes;
    char *names;            /* mesh names, NUL separated */
    sinew_clip **clips;
    sinew_asset_import_stats stats;
    double size;
};

/* ---- small helpers ------------------------------------------------------- */

typedef struct ctx {
    const sinew_asset_desc *desc;
    char *msg;
    size_t msg_size;
} ctx;

static sinew_result fail(ctx *c, sinew_result r, const char *fmt, ...)
{
    if (c->msg && c->msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->msg_size, fmt, ap);
        va_end(ap);
    }
    return r;
}

static void *xcalloc(size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (size && n > SIZE_MAX / size) return NULL;
    return calloc(n, size);
}

/* Bounded view of an aiString (hostile lengths are clipped to the buffer). */
static const char *ai_str(const struct aiString *s, size_t *len)
{
    size_t n = s->length < MAXLEN ? s->length : MAXLEN - 1;
    const char *z = memchr(s->data, 0, n);
    if (z) n = (size_t)(z - s->data);
    *len = n;
    return s->data;
}

static uint64_t hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ull; }
    return h;
}

static sinew_mat4 mat_from_ai(const struct aiMatrix4x4 *a)
{
    sinew_mat4 m;
    const ai_real *r = &a->a1; /* row-major: row k = r[4k .. 4k+3] */
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) m.m[col][row] = (double)r[row * 4 + col];
    return m;
}

static double mat_max_diff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double d = fabs(a->m[c][r] - b->m[c][r]);
            if (!(d <= e)) e = d;
        }
    return e;
}

static double mat_max_abs(const sinew_mat4 *a)
{
    double e = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            if (fabs(a->m[c][r]) > e) e = fabs(a->m[c][r]);
    return e;
}

/* ---- the converter ------------------------------------------------------- */

typedef struct node_info {
    const struct aiNode *node;
    int32_t parent;          /* node index */
    int needed;
    int32_t first_cand;      /* bind candidates (linked list), -1 = none */
    uint32_t cand_count;
    uint32_t first_joint;    /* joint index of the first candidate */
    const char *name;
    size_t name_len;
} node_info;

typedef struct cand {
    sinew_mat4 inverse_bind;
    int32_t next;
    uint32_t rank;           /* order within the node */
    uint32_t node;
} cand;

typedef struct mesh_ref {
    uint32_t node, mesh;
} mesh_ref;

typedef struct conv {
    ctx *c;
    const struct aiScene *scene;
    const uint8_t *had_normals;  /* per aiMesh, or NULL (unknown: report 0) */
    uint32_t node_count;
    node_info *nodes;
    int32_t *table;              /* name hash table -> node index */
    uint32_t table_mask;
    sinew_mat4 *global;          /* rest global of every node */
    cand *cands;
    uint32_t cand_count, cand_cap;
    mesh_ref *refs;
    uint32_t ref_count;
    uint32_t max_joints;
} conv;

static int32_t find_node(const conv *v, const char *name, size_t len)
{
    uint32_t h = (uint32_t)hash_name(name, len) & v->table_mask;
    for (;;) {
        int32_t i = v->table[h];
        if (i < 0) return -1;
        if (v->nodes[i].name_len == len && memcmp(v->nodes[i].name, name, len) == 0) return i;
        h = (h + 1) & v->table_mask;
    }
}

/* Depth-first, parents before children, iterative (hostile depth). */
static sinew_result collect_nodes(conv *v, uint32_t max_nodes)
{
    ctx *c = v->c;
    const struct aiNode *root = v->scene->mRootNode;
    if (!root) return fail(c, SINEW_ERROR_FORMAT, "scene has no root node");
    uint32_t cap = 64;
    v->nodes = xcalloc(cap, sizeof *v->nodes);
    const struct aiNode **stack = xcalloc(cap, sizeof *stack);
    int32_t *stack_parent = xcalloc(cap, sizeof *stack_parent);
    uint32_t sp = 0, cap_stack = cap;
    if (!v->nodes || !stack || !stack_parent) { free(stack); free(stack_parent); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    stack[sp] = root; stack_parent[sp] = -1; sp++;
    sinew_result r = SINEW_OK;
    while (sp) {
        sp--;
        const struct aiNode *n = stack[sp];
        int32_t parent = stack_parent[sp];
        if (v->node_count >= max_nodes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u nodes (or a node cycle)", max_nodes); break; }
        if (v->node_count == cap) {
            node_info *nn = realloc(v->nodes, (size_t)cap * 2 * sizeof *nn);
            if (!nn) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            v->nodes = nn; cap *= 2;
        }
        uint32_t idx = v->node_count++;
        node_info *ni = &v->nodes[idx];
        memset(ni, 0, sizeof *ni);
        ni->node = n; ni->parent = parent; ni->first_cand = -1;
        ni->name = ai_str(&n->mName, &ni->name_len);
        if (n->mNumChildren && !n->mChildren) { r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a NULL child list", (int)ni->name_len, ni->name); break; }
        if (n->mNumMeshes && !n->mMeshes) { r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a NULL mesh list", (int)ni->name_len, ni->name); break; }
        if (n->mNumChildren > max_nodes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "node '%.*s' has %u children (limit %u)", (int)ni->name_len, ni->name, n->mNumChildren, max_nodes); break; }
        /* push children in reverse so the first child is visited first */
        if ((uint64_t)sp + n->mNumChildren > cap_stack) {
            uint32_t nc = cap_stack;
            while ((uint64_t)sp + n->mNumChildren > nc) nc *= 2;
            const struct aiNode **ns = realloc((void *)stack, (size_t)nc * sizeof *ns);
            if (!ns) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            stack = ns;
            int32_t *np = realloc(stack_parent, (size_t)nc * sizeof *np);
            if (!np) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            stack_parent = np;
            cap_stack = nc;
        }
        for (uint32_t k = n->mNumChildren; k-- > 0;) {
            if (!n->mChildren[k]) { r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a NULL child", (int)ni->name_len, ni->name); break; }
            stack[sp] = n->mChildren[k]; stack_parent[sp] = (int32_t)idx; sp++;
        }
        if (r) break;
    }
    free((void *)stack);
    free(stack_parent);
    if (r) return r;

    uint32_t tsize = 16;
    while (tsize < v->node_count * 2u) tsize *= 2;
    v->table = xcalloc(tsize, sizeof *v->table);
    v->global = xcalloc(v->node_count, sizeof *v->global);
    if (!v->table || !v->global) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    v->table_mask = tsize - 1;
    for (uint32_t i = 0; i < tsize; i++) v->table[i] = -1;
    for (uint32_t i = 0; i < v->node_count; i++) {
        node_info *ni = &v->nodes[i];
        if (find_node(v, ni->name, ni->name_len) < 0) { /* first node of a name wins, like assimp's FindNode */
            uint32_t h = (uint32_t)hash_name(ni->name, ni->name_len) & v->table_mask;
            while (v->table[h] >= 0) h = (h + 1) & v->table_mask;
            v->table[h] = (int32_t)i;
        }
        sinew_mat4 local = mat_from_ai(&ni->node->mTransformation);
        if (!sinew_mat4_is_finite(&local))
            return fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a non-finite transform", (int)ni->name_len, ni->name);
        v->global[i] = ni->parent < 0 ? local : sinew_mat4_mul(&v->global[ni->parent], &local);
        if (!sinew_mat4_is_finite(&v->global[i]))
            return fail(c, SINEW_ERROR_FORMAT, "node '%.*s': global transform overflows", (int)ni->name_len, ni->name);
    }
    return SINEW_OK;
}

/* Returns the candidate index for (node, inverse bind), adding one if new. */
static sinew_result bind_candidate(conv *v, uint32_t node, const sinew_mat4 *ib, uint32_t *out)
{
    node_info *ni = &v->nodes[node];
    double tol = 1e-5 * (1.0 + mat_max_abs(ib));
    int32_t last = -1;
    for (int32_t k = ni->first_cand; k >= 0; k = v->cands[k].next) {
        if (mat_max_diff(&v->cands[k].inverse_bind, ib) <= tol) { *out = (uint32_t)k; return SINEW_OK; }
        last = k;
    }
    if (v->cand_count >= v->max_joints)
        return fail(v->c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u joints", v->max_joints);
    if (v->cand_count == v->cand_cap) {
        uint32_t nc = v->cand_cap ? v->cand_cap * 2 : 64;
        cand *n = realloc(v->cands, (size_t)nc * sizeof *n);
        if (!n) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        v->cands = n; v->cand_cap = nc;
    }
    uint32_t k = v->cand_count++;
    v->cands[k].inverse_bind = *ib;
    v->cands[k].next = -1;
    v->cands[k].rank = ni->cand_count++;
    v->cands[k].node = node;
    if (last < 0) ni->first_cand = (int32_t)k; else v->cands[last].next = (int32_t)k;
    *out = k;
    return SINEW_OK;
}

static void mark_needed(conv *v, uint32_t node)
{
    for (int32_t i = (int32_t)node; i >= 0 && !v->nodes[i].needed; i = v->nodes[i].parent)
        v->nodes[i].needed = 1;
}

typedef struct infl { uint32_t joint; float weight; } infl;

static int cmp_infl(const void *a, const void *b)
{
    const infl *x = a, *y = b;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

typedef struct key_sort { double time; uint32_t index; } key_sort;
static int cmp_key(const void *a, const void *b)
{
    const key_sort *x = a, *y = b;
    if (x->time < y->time) return -1;
    if (x->time > y->time) return 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts keys by time if they are not already in order (stable). */
static int keys_ordered(const double *t0, size_t stride, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (*(const double *)((const char *)t0 + i * stride) < *(const double *)((const char *)t0 + (i - 1) * stride)) return 0;
    return 1;
}

static sinew_result build_clips(conv *v, sinew_asset *a, const uint32_t *node_joint_count)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    const sinew_asset_desc *d = c->desc;
    uint32_t max_clips = d && d->max_clips ? d->max_clips : SINEW_ASSET_DEFAULT_MAX_CLIPS;
    uint32_t max_keys = d && d->max_keys ? d->max_keys : SINEW_MAX_CLIP_KEYS;
    if (max_keys > SINEW_MAX_CLIP_KEYS) max_keys = SINEW_MAX_CLIP_KEYS;
    if (s->mNumAnimations == 0) return SINEW_OK;
    if (!s->mAnimations) return fail(c, SINEW_ERROR_FORMAT, "scene has a NULL animation list");
    if (s->mNumAnimations > max_clips)
        return fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "%u animations (limit %u)", s->mNumAnimations, max_clips);
    uint32_t joints = sinew_skeleton_joint_count(a->skel);
    a->clips = xcalloc(s->mNumAnimations, sizeof *a->clips);
    int32_t *used = xcalloc(joints, sizeof *used);
    if (!a->clips || !used) { free(used); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    sinew_result r = SINEW_OK;
    for (uint32_t ai = 0; ai < s->mNumAnimations && !r; ai++) {
        const struct aiAnimation *an = s->mAnimations[ai];
        if (!an) { r = fail(c, SINEW_ERROR_FORMAT, "animation %u is NULL", ai); break; }
        size_t alen;
        const char *aname = ai_str(&an->mName, &alen);
        if (!isfinite(an->mDuration) || an->mDuration < 0 || !isfinite(an->mTicksPerSecond) || an->mTicksPerSecond < 0) {
            r = fail(c, SINEW_ERROR_FORMAT, "animation '%.*s': invalid duration %g or ticks per second %g",
                     (int)alen, aname, an->mDuration, an->mTicksPerSecond);
            break;
        }
        if (an->mNumChannels && !an->mChannels) { r = fail(c, SINEW_ERROR_FORMAT, "animation '%.*s' has a NULL channel list", (int)alen, aname); break; }
        /* count channels and keys first (bounded before allocating) */
        uint64_t keys = 0, nch = 0;
        for (uint32_t j = 0; j < joints; j++) used[j] = 0;
        for (uint32_t k = 0; k < an->mNumChannels; k++) {
            const struct aiNodeAnim *ch = an->mChannels[k];
            if (!ch) { r = fail(c, SINEW_ERROR_FORMAT, "animation '%.*s': channel %u is NULL", (int)alen, aname, k); break; }
            if ((ch->mNumPositionKeys && !ch->mPositionKeys) || (ch->mNumRotationKeys && !ch->mRotationKeys) ||
                (ch->mNumScalingKeys && !ch->mScalingKeys)) {
                r = fail(c, SINEW_ERROR_FORMAT, "animation '%.*s': channel %u has a NULL key list", (int)alen, aname, k);
                break;
            }
            size_t nlen;
            const char *nname = ai_str(&ch->mNodeName, &nlen);
            int32_t node = find_node(v, nname, nlen);
            if (node < 0 || !v->nodes[node].needed) { a->stats.ignored_channels++; continue; }
            uint32_t j0 = v->nodes[node].first_joint;
            if (used[j0]) { a->stats.ignored_channels++; continue; }
            used[j0] = 1;
            uint32_t nj = node_joint_count[node];
            nch += nj;
            keys += (uint64_t)nj * ((uint64_t)ch->mNumPositionKeys + ch->mNumRotationKeys + ch->mNumScalingKeys);
            if (keys > max_keys) {
                r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "animation '%.*s' has more than %u keys", (int)alen, aname, max_keys);
                break;
            }
        }
        if (r) break;
        sinew_channel_desc *chs = xcalloc(nch, sizeof *chs);
        sinew_vec3_key *vk = xcalloc(keys, sizeof *vk);
        sinew_quat_key *qk = xcalloc(keys, sizeof *qk);
        key_sort *ks = NULL;
        if (!chs || !vk || !qk) { free(chs); free(vk); free(qk); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
        uint32_t ci = 0;
        size_t vi = 0, qi = 0;
        for (uint32_t j = 0; j < joints; j++) used[j] = 0;
        for (uint32_t k = 0; k < an->mNumChannels && !r; k++) {
            const struct aiNodeAnim *ch = an->mChannels[k];
            size_t nlen;
            const char *nname = ai_str(&ch->mNodeName, &nlen);
            int32_t node = find_node(v, nname, nlen);
            if (node < 0 || !v->nodes[node].needed) continue;
            uint32_t j0 = v->nodes[node].first_joint;
            if (used[j0]) continue;
            used[j0] = 1;
            /* convert once, then share the key arrays across the node's joints */
            sinew_vec3_key *tk = vk + vi;
            for (uint32_t i = 0; i < ch->mNumPositionKeys; i++) {
                const struct aiVectorKey *src = &ch->mPositionKeys[i];
                tk[i].time = src->mTime;
                tk[i].value = sinew_v3(src->mValue.x, src->mValue.y, src->mValue.z);
            }
            vi += ch->mNumPositionKeys;
            sinew_vec3_key *sk = vk + vi;
            for (uint32_t i = 0; i < ch->mNumScalingKeys; i++) {
                const struct aiVectorKey *src = &ch->mScalingKeys[i];
                sk[i].time = src->mTime;
                sk[i].value = sinew_v3(src->mValue.x, src->mValue.y, src->mValue.z);
            }
            vi += ch->mNumScalingKeys;
            sinew_quat_key *rk = qk + qi;
            for (uint32_t i = 0; i < ch->mNumRotationKeys; i++) {
                const struct aiQuatKey *src = &ch->mRotationKeys[i];
                rk[i].time = src->mTime;
                sinew_quat q = { src->mValue.x, src->mValue.y, src->mValue.z, src->mValue.w };
                rk[i].value = q;
            }
            qi += ch->mNumRotationKeys;
            /* assimp warns but accepts unordered keys: sort them (stable) */
            struct { void *keys; size_t size; uint32_t n; } tr[3] = {
                { tk, sizeof *tk, ch->mNumPositionKeys }, { sk, sizeof *sk, ch->mNumScalingKeys },
                { rk, sizeof *rk, ch->mNumRotationKeys } };
            for (int t = 0; t < 3 && !r; t++) {
                if (keys_ordered(tr[t].keys, tr[t].size, tr[t].n)) continue;
                for (uint32_t i = 0; i < tr[t].n; i++)
                    if (isnan(*(double *)((char *)tr[t].keys + i * tr[t].size))) {
                        r = fail(c, SINEW_ERROR_FORMAT, "animation '%.*s', channel '%.*s': NaN key time",
                                 (int)alen, aname, (int)nlen, nname);
                        break;
                    }
                if (r) break;
                ks = xcalloc(tr[t].n, sizeof *ks);
                char *tmp = xcalloc(tr[t].n, tr[t].size);
                if (!ks || !tmp) { free(ks); free(tmp); ks = NULL; r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
                for (uint32_t i = 0; i < tr[t].n; i++) {
                    ks[i].time = *(double *)((char *)tr[t].keys + i * tr[t].size);
                    ks[i].index = i;
                }
                qsort(ks, tr[t].n, sizeof *ks, cmp_key);
                for (uint32_t i = 0; i < tr[t].n; i++)
                    memcpy(tmp + i * tr[t].size, (char *)tr[t].keys + ks[i].index * tr[t].size, tr[t].size);
                memcpy(tr[t].keys, tmp, tr[t].n * tr[t].size);
                free(ks); ks = NULL;
                free(tmp);
            }
            for (uint32_t dup = 0; dup < node_joint_count[node] && !r; dup++) {
                sinew_channel_desc *cd = &chs[ci++];
                cd->joint = j0 + dup;
                cd->translation_count = ch->mNumPositionKeys; cd->translations = tk;
                cd->rotation_count = ch->mNumRotationKeys; cd->rotations = rk;
                cd->scale_count = ch->mNumScalingKeys; cd->scales = sk;
            }
        }
        if (!r) {
            char name[MAXLEN + 1];
            memcpy(name, aname, alen);
            name[alen] = 0;
            sinew_clip_desc cd = { 0 };
            cd.name = name;
            cd.joint_count = joints;
            cd.duration = an->mDuration;
            cd.ticks_per_second = an->mTicksPerSecond;
            cd.channel_count = ci;
            cd.channels = chs;
            r = sinew_clip_create(&cd, &a->clips[ai]);
            if (r) r = fail(c, r == SINEW_ERROR_OUT_OF_HOST_MEMORY ? r : SINEW_ERROR_FORMAT,
                            "animation '%.*s': invalid keys (%s)", (int)alen, aname, sinew_result_string(r));
            else a->clip_count = ai + 1;
        }
        free(chs); free(vk); free(qk);
    }
    free(used);
    return r;
}

static sinew_result convert(ctx *c, const struct aiScene *s, const uint8_t *had_normals, sinew_asset *a)
{
    const sinew_asset_desc *d = c->desc;
    uint32_t max_vertices = d && d->max_vertices ? d->max_vertices : SINEW_ASSET_DEFAULT_MAX_VERTICES;
    uint32_t max_indices = d && d->max_indices ? d->max_indices : SINEW_ASSET_DEFAULT_MAX_INDICES;
    uint32_t max_joints = d && d->max_joints ? d->max_joints : SINEW_MAX_JOINTS;
    uint32_t max_meshes = d && d->max_meshes ? d->max_meshes : SINEW_ASSET_DEFAULT_MAX_MESHES;
    uint32_t max_nodes = d && d->max_nodes ? d->max_nodes : SINEW_ASSET_DEFAULT_MAX_NODES;
    if (max_joints > SINEW_MAX_JOINTS) max_joints = SINEW_MAX_JOINTS;

    conv v;
    memset(&v, 0, sizeof v);
    v.c = c; v.scene = s; v.had_normals = had_normals; v.max_joints = max_joints;
    sinew_result r = SINEW_OK;
    uint32_t *offsets = NULL, *node_joint_count = NULL, *ref_cand = NULL, *cand_joint = NULL;
    infl *infls = NULL;
    uint32_t *mcount = NULL;
    uint32_t *ijoints = NULL;
    float *iweights = NULL, *fpos = NULL, *fnrm = NULL;
    int32_t *parents = NULL;
    const char **jnames = NULL;
    sinew_mat4 *ibind = NULL;
    sinew_transform *rest = NULL;
    char *jname_buf = NULL;

    if (s->mNumMeshes == 0 || !s->mMeshes) { r = fail(c, SINEW_ERROR_EMPTY, "the file holds no mesh"); goto done; }
    if (s->mNumMeshes > max_meshes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "%u meshes (limit %u)", s->mNumMeshes, max_meshes); goto done; }
    if ((r = collect_nodes(&v, max_nodes))) goto done;

    /* mesh references, in scene mesh order, then node order */
    uint64_t ref_total = 0;
    for (uint32_t i = 0; i < v.node_count; i++) ref_total += v.nodes[i].node->mNumMeshes;
    if (ref_total > max_meshes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "%llu mesh instances (limit %u)", (unsigned long long)ref_total, max_meshes); goto done; }
    v.refs = xcalloc(ref_total, sizeof *v.refs);
    uint32_t *mesh_uses = xcalloc(s->mNumMeshes, sizeof *mesh_uses);
    if (!v.refs || !mesh_uses) { free(mesh_uses); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    for (uint32_t i = 0; i < v.node_count; i++) {
        const struct aiNode *n = v.nodes[i].node;
        for (uint32_t k = 0; k < n->mNumMeshes; k++) {
            if (n->mMeshes[k] >= s->mNumMeshes) {
                free(mesh_uses);
                r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' names mesh %u of %u", (int)v.nodes[i].name_len, v.nodes[i].name, n->mMeshes[k], s->mNumMeshes);
                goto done;
            }
            mesh_uses[n->mMeshes[k]]++;
        }
    }
    {
        /* order: by mesh index, then node order */
        uint32_t *start = xcalloc(s->mNumMeshes + 1, sizeof *start);
        if (!start) { free(mesh_uses); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
        for (uint32_t m = 0; m < s->mNumMeshes; m++) start[m + 1] = start[m] + mesh_uses[m];
        for (uint32_t i = 0; i < v.node_count; i++) {
            const struct aiNode *n = v.nodes[i].node;
            for (uint32_t k = 0; k < n->mNumMeshes; k++) {
                uint32_t m = n->mMeshes[k];
                v.refs[start[m]].node = i; v.refs[start[m]].mesh = m; start[m]++;
            }
        }
        free(start);
        for (uint32_t m = 0; m < s->mNumMeshes; m++) if (!mesh_uses[m]) a->stats.unused_meshes++;
        free(mesh_uses);
    }
    v.ref_count = (uint32_t)ref_total;
    if (v.ref_count == 0) { r = fail(c, SINEW_ERROR_EMPTY, "no node refers to any of the %u meshes", s->mNumMeshes); goto done; }

    /* validate meshes, count vertices, faces, bones, weights */
    uint64_t nv = 0, ntri = 0, nweights = 0;
    for (uint32_t i = 0; i < v.ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
        if (!m) { r = fail(c, SINEW_ERROR_FORMAT, "mesh %u is NULL", v.refs[i].mesh); goto done; }
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        if (m->mNumVertices == 0 || !m->mVertices) { r = fail(c, SINEW_ERROR_FORMAT, "mesh %u '%.*s' has no vertices", v.refs[i].mesh, (int)ml, mn); goto done; }
        if (m->mNumVertices > max_vertices) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "mesh '%.*s' has %u vertices (limit %u)", (int)ml, mn, m->mNumVertices, max_vertices); goto done; }
        if (m->mNumFaces && !m->mFaces) { r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s' has a NULL face list", (int)ml, mn); goto done; }
        if (m->mNumBones && !m->mBones) { r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s' has a NULL bone list", (int)ml, mn); goto done; }
        nv += m->mNumVertices;
        if (nv > max_vertices) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u vertices", max_vertices); goto done; }
        for (uint32_t f = 0; f < m->mNumFaces; f++) {
            if (m->mFaces[f].mNumIndices == 3) {
                if (!m->mFaces[f].mIndices) { r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s': face %u has no index list", (int)ml, mn, f); goto done; }
                ntri++;
            }
        }
        if (ntri * 3 > max_indices) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u indices", max_indices); goto done; }
        for (uint32_t b = 0; b < m->mNumBones; b++) {
            const struct aiBone *bone = m->mBones[b];
            if (!bone) { r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s': bone %u is NULL", (int)ml, mn, b); goto done; }
            if (bone->mNumWeights && !bone->mWeights) { r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s': bone %u has a NULL weight list", (int)ml, mn, b); goto done; }
            nweights += bone->mNumWeights;
            a->stats.bones++;
            if (a->stats.bones > (1u << 24) || nweights > (1u << 28)) {
                r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "too many bones or weights (%u bones, %llu weights)", a->stats.bones, (unsigned long long)nweights);
                goto done;
            }
        }
        if (m->mNumBones) a->stats.skinned_meshes++;
        mark_needed(&v, v.refs[i].node);
    }

    /* bones -> nodes and bind candidates */
    ref_cand = xcalloc(a->stats.bones + 1, sizeof *ref_cand);
    if (!ref_cand) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    {
        uint32_t bi = 0;
        for (uint32_t i = 0; i < v.ref_count; i++) {
            const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
            if (!m->mNumBones) continue;
            size_t ml; const char *mn = ai_str(&m->mName, &ml);
            sinew_mat4 mesh_inv;
            if (sinew_mat4_inverse(&v.global[v.refs[i].node], &mesh_inv)) {
                r = fail(c, SINEW_ERROR_SINGULAR, "skinned mesh '%.*s': its node's transform is singular", (int)ml, mn);
                goto done;
            }
            for (uint32_t b = 0; b < m->mNumBones; b++) {
                const struct aiBone *bone = m->mBones[b];
                size_t bl; const char *bn = ai_str(&bone->mName, &bl);
                int32_t node = find_node(&v, bn, bl);
                if (node < 0) {
                    if (d && (d->flags & SINEW_ASSET_ALLOW_MISSING_BONES)) {
                        ref_cand[bi++] = UINT32_MAX; /* its weights are dropped below */
                        a->stats.missing_bones++;
                        continue;
                    }
                    r = fail(c, SINEW_ERROR_NOT_FOUND, "mesh '%.*s': bone '%.*s' names no node of the scene "
                             "(SINEW_ASSET_ALLOW_MISSING_BONES / --allow-missing-bones drops its weights)", (int)ml, mn, (int)bl, bn);
                    goto done;
                }
                sinew_mat4 off = mat_from_ai(&bone->mOffsetMatrix);
                if (!sinew_mat4_is_finite(&off)) { r = fail(c, SINEW_ERROR_FORMAT, "bone '%.*s': non-finite offset matrix", (int)bl, bn); goto done; }
                sinew_mat4 ib = sinew_mat4_mul(&off, &mesh_inv);
                if (!sinew_mat4_is_finite(&ib)) { r = fail(c, SINEW_ERROR_FORMAT, "bone '%.*s': bind matrix overflows", (int)bl, bn); goto done; }
                mark_needed(&v, (uint32_t)node);
                if ((r = bind_candidate(&v, (uint32_t)node, &ib, &ref_cand[bi++]))) goto done;
            }
        }
    }

    /* weights: CSR lists per vertex (global vertex numbering) */
    uint32_t total_v = (uint32_t)nv;
    offsets = xcalloc((size_t)total_v + 1, sizeof *offsets);
    if (!offsets) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    {
        uint32_t base = 0, bi = 0;
        for (uint32_t i = 0; i < v.ref_count; i++) {
            const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
            size_t ml; const char *mn = ai_str(&m->mName, &ml);
            for (uint32_t b = 0; b < m->mNumBones; b++) {
                const struct aiBone *bone = m->mBones[b];
                size_t bl; const char *bn = ai_str(&bone->mName, &bl);
                if (ref_cand[bi++] == UINT32_MAX) { a->stats.missing_bone_weights += bone->mNumWeights; continue; }
                for (uint32_t w = 0; w < bone->mNumWeights; w++) {
                    const struct aiVertexWeight *vw = &bone->mWeights[w];
                    if (vw->mVertexId >= m->mNumVertices) {
                        r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s', bone '%.*s': weight names vertex %u of %u",
                                 (int)ml, mn, (int)bl, bn, vw->mVertexId, m->mNumVertices);
                        goto done;
                    }
                    if (!isfinite(vw->mWeight) || vw->mWeight < 0) {
                        r = fail(c, SINEW_ERROR_INVALID_WEIGHT, "mesh '%.*s', bone '%.*s': weight %g on vertex %u",
                                 (int)ml, mn, (int)bl, bn, (double)vw->mWeight, vw->mVertexId);
                        goto done;
                    }
                    if (vw->mWeight > 0) offsets[base + vw->mVertexId + 1]++;
                }
            }
            base += m->mNumVertices;
        }
    }
    for (uint32_t i = 0; i < total_v; i++) offsets[i + 1] += offsets[i];
    infls = xcalloc((size_t)offsets[total_v] + 1, sizeof *infls);
    uint32_t *fill = xcalloc(total_v, sizeof *fill);
    if (!infls || !fill) { free(fill); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    /* joint numbering: needed nodes in DFS order, each with its candidates */
    node_joint_count = xcalloc(v.node_count, sizeof *node_joint_count);
    if (!node_joint_count) { free(fill); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    uint32_t joints = 0;
    {
        /* mesh nodes with unweighted vertices need their natural bind: found below;
         * reserve it now for every mesh node without candidates, and for mesh
         * nodes whose candidates differ from it (checked after counting). */
        uint32_t base = 0;
        for (uint32_t i = 0; i < v.ref_count; i++) {
            const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
            int any_unweighted = 0;
            for (uint32_t k = 0; k < m->mNumVertices && !any_unweighted; k++)
                if (offsets[base + k + 1] == offsets[base + k]) any_unweighted = 1;
            if (any_unweighted) {
                sinew_mat4 inv;
                uint32_t ci;
                if (sinew_mat4_inverse(&v.global[v.refs[i].node], &inv)) {
                    free(fill);
                    r = fail(c, SINEW_ERROR_SINGULAR, "mesh node '%.*s' has a singular transform",
                             (int)v.nodes[v.refs[i].node].name_len, v.nodes[v.refs[i].node].name);
                    goto done;
                }
                if ((r = bind_candidate(&v, v.refs[i].node, &inv, &ci))) { free(fill); goto done; }
            }
            base += m->mNumVertices;
        }
        for (uint32_t i = 0; i < v.node_count; i++) {
            node_info *ni = &v.nodes[i];
            if (!ni->needed) continue;
            ni->first_joint = joints;
            node_joint_count[i] = ni->cand_count ? ni->cand_count : 1;
            joints += node_joint_count[i];
            if (joints > max_joints) { free(fill); r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u joints", max_joints); goto done; }
            if (ni->cand_count > 1) a->stats.duplicated_joints += ni->cand_count - 1;
        }
        cand_joint = xcalloc(v.cand_count + 1, sizeof *cand_joint);
        if (!cand_joint) { free(fill); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
        for (uint32_t k = 0; k < v.cand_count; k++) cand_joint[k] = v.nodes[v.cands[k].node].first_joint + v.cands[k].rank;
    }
    {
        uint32_t base = 0, bi = 0;
        for (uint32_t i = 0; i < v.ref_count; i++) {
            const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
            for (uint32_t b = 0; b < m->mNumBones; b++, bi++) {
                const struct aiBone *bone = m->mBones[b];
                if (ref_cand[bi] == UINT32_MAX) continue;
                uint32_t j = cand_joint[ref_cand[bi]];
                for (uint32_t w = 0; w < bone->mNumWeights; w++) {
                    const struct aiVertexWeight *vw = &bone->mWeights[w];
                    if (!(vw->mWeight > 0)) continue;
                    uint32_t g = base + vw->mVertexId;
                    infl *dst = &infls[offsets[g] + fill[g]++];
                    dst->joint = j; dst->weight = vw->mWeight;
                }
            }
            base += m->mNumVertices;
        }
    }
    free(fill);

    /* merge repeated joints per vertex, histogram, unweighted -> node joint */
    uint64_t packed_total = 0;
    mcount = xcalloc(total_v, sizeof *mcount);
    if (!mcount) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    for (uint32_t g = 0; g < total_v; g++) {
        uint32_t n = offsets[g + 1] - offsets[g];
        infl *l = infls + offsets[g];
        if (n > 1) qsort(l, n, sizeof *l, cmp_infl);
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (k && l[k - 1].joint == l[i].joint) l[k - 1].weight += l[i].weight;
            else l[k++] = l[i];
        }
        mcount[g] = k;
        a->stats.influence_histogram[k < 8 ? k : 8]++;
        packed_total += k ? k : 1;
    }
    ijoints = xcalloc(packed_total, sizeof *ijoints);
    iweights = xcalloc(packed_total, sizeof *iweights);
    uint32_t *poff = xcalloc((size_t)total_v + 1, sizeof *poff);
    a->vertex_count = total_v;
    a->rest_pos = xcalloc((size_t)total_v * 3, sizeof(double));
    a->rest_nrm = xcalloc((size_t)total_v * 3, sizeof(double));
    fpos = xcalloc((size_t)total_v * 3, sizeof(float));
    fnrm = xcalloc((size_t)total_v * 3, sizeof(float));
    a->vertices = xcalloc(total_v, sizeof *a->vertices);
    a->mesh_count = v.ref_count;
    a->meshes = xcalloc(v.ref_count, sizeof *a->meshes);
    a->index_count = (uint32_t)(ntri * 3);
    a->indices = xcalloc(a->index_count, sizeof *a->indices);
    size_t names_size = 0;
    for (uint32_t i = 0; i < v.ref_count; i++) { size_t ml; ai_str(&s->mMeshes[v.refs[i].mesh]->mName, &ml); names_size += ml + 1; }
    a->names = xcalloc(names_size, 1);
    if (!ijoints || !iweights || !poff || !a->rest_pos || !a->rest_nrm || !fpos || !fnrm || !a->vertices ||
        !a->meshes || !a->indices || !a->names) {
        free(poff);
        r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        goto done;
    }
    {
        uint32_t base = 0, ib = 0;
        size_t name_off = 0;
        uint32_t pk = 0;
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (uint32_t i = 0; i < v.ref_count; i++) {
            const struct aiMesh *m = s->mMeshes[v.refs[i].mesh];
            uint32_t node = v.refs[i].node;
            sinew_asset_mesh_info *am = &a->meshes[i];
            size_t ml; const char *mn = ai_str(&m->mName, &ml);
            memcpy(a->names + name_off, mn, ml);
            am->name = a->names + name_off;
            name_off += ml + 1;
            am->source_mesh = v.refs[i].mesh;
            am->first_vertex = base;
            am->vertex_count = m->mNumVertices;
            am->normals_generated = had_normals ? !had_normals[v.refs[i].mesh] : 0;
            /* node joint: the candidate equal to the natural bind, else the first */
            uint32_t node_joint = v.nodes[node].first_joint;
            {
                sinew_mat4 inv;
                if (!sinew_mat4_inverse(&v.global[node], &inv)) {
                    double tol = 1e-5 * (1.0 + mat_max_abs(&inv));
                    for (int32_t k = v.nodes[node].first_cand; k >= 0; k = v.cands[k].next)
                        if (mat_max_diff(&v.cands[k].inverse_bind, &inv) <= tol) { node_joint = cand_joint[k]; break; }
                }
            }
            am->node_joint = node_joint;
            const sinew_mat4 *G = &v.global[node];
            sinew_mat3 g3 = sinew_mat4_upper3(G);
            sinew_mat3 nm = sinew_mat3_cofactor(&g3);
            double sgn = sinew_mat3_det(&g3) < 0 ? -1.0 : 1.0;
            for (uint32_t k = 0; k < m->mNumVertices; k++) {
                uint32_t gv = base + k;
                sinew_vec3 p = sinew_v3(m->mVertices[k].x, m->mVertices[k].y, m->mVertices[k].z);
                p = sinew_mat4_transform_point(G, p);
                if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || fabs(p.x) > 1e30 || fabs(p.y) > 1e30 || fabs(p.z) > 1e30) {
                    free(poff);
                    r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s': vertex %u has a non-finite or huge position", (int)ml, mn, k);
                    goto done;
                }
                sinew_vec3 n = sinew_v3(0, 0, 0);
                if (m->mNormals) {
                    n = sinew_v3(m->mNormals[k].x, m->mNormals[k].y, m->mNormals[k].z);
                    if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z)) n = sinew_v3(0, 0, 0);
                    n = sinew_v3_normalize(sinew_v3_scale(sinew_mat3_mul_v3(&nm, n), sgn));
                    if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z)) n = sinew_v3(0, 0, 0);
                }
                double pp[3] = { p.x, p.y, p.z }, nn[3] = { n.x, n.y, n.z };
                for (int e = 0; e < 3; e++) {
                    a->rest_pos[gv * 3 + e] = pp[e];
                    a->rest_nrm[gv * 3 + e] = nn[e];
                    fpos[gv * 3 + e] = (float)pp[e];
                    fnrm[gv * 3 + e] = (float)nn[e];
                    if (pp[e] < lo[e]) lo[e] = pp[e];
                    if (pp[e] > hi[e]) hi[e] = pp[e];
                }
                poff[gv] = pk;
                uint32_t cnt = mcount[gv];
                const infl *l = infls + offsets[gv];
                uint32_t kept = 0;
                for (uint32_t q = 0; q < cnt; q++) {
                    if (l[q].weight > 0) { ijoints[pk] = l[q].joint; iweights[pk] = l[q].weight; pk++; kept++; }
                }
                if (!kept) {
                    ijoints[pk] = node_joint; iweights[pk] = 1.0f; pk++;
                    am->unweighted_vertices++;
                    a->stats.unweighted_vertices++;
                }
            }
            am->first_index = ib;
            for (uint32_t f = 0; f < m->mNumFaces; f++) {
                const struct aiFace *face = &m->mFaces[f];
                if (face->mNumIndices != 3) { a->stats.dropped_faces++; continue; }
                for (int e = 0; e < 3; e++) {
                    if (face->mIndices[e] >= m->mNumVertices) {
                        free(poff);
                        r = fail(c, SINEW_ERROR_FORMAT, "mesh '%.*s': face %u names vertex %u of %u", (int)ml, mn, f, face->mIndices[e], m->mNumVertices);
                        goto done;
                    }
                    a->indices[ib++] = base + face->mIndices[e];
                }
            }
            am->index_count = ib - am->first_index;
            base += m->mNumVertices;
        }
        poff[total_v] = pk;
        double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        a->size = sqrt(dx * dx + dy * dy + dz * dz);
    }

    /* skeleton */
    parents = xcalloc(joints, sizeof *parents);
    jnames = xcalloc(joints, sizeof *jnames);
    ibind = xcalloc(joints, sizeof *ibind);
    rest = xcalloc(joints, sizeof *rest);
    size_t jname_size = 0;
    for (uint32_t i = 0; i < v.node_count; i++) if (v.nodes[i].needed) jname_size += (v.nodes[i].name_len + 1) * node_joint_count[i];
    jname_buf = xcalloc(jname_size + 1, 1);
    if (!parents || !jnames || !ibind || !rest || !jname_buf) { free(poff); r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto done; }
    {
        size_t off = 0;
        for (uint32_t i = 0; i < v.node_count; i++) {
            node_info *ni = &v.nodes[i];
            if (!ni->needed) continue;
            sinew_mat4 local = mat_from_ai(&ni->node->mTransformation);
            sinew_transform t;
            double err = 0;
            sinew_result tr = sinew_transform_from_mat4(&local, &t, &err);
            if (tr) {
                free(poff);
                r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s': its transform cannot be split into T R S (%s)",
                         (int)ni->name_len, ni->name, sinew_result_string(tr));
                goto done;
            }
            if (err > a->stats.rest_shear_error) a->stats.rest_shear_error = err;
            sinew_mat4 natural;
            int have_natural = sinew_mat4_inverse(&v.global[i], &natural) == SINEW_OK;
            for (uint32_t k = 0; k < node_joint_count[i]; k++) {
                uint32_t j = ni->first_joint + k;
                parents[j] = ni->parent < 0 ? -1 : (int32_t)v.nodes[ni->parent].first_joint;
                memcpy(jname_buf + off, ni->name, ni->name_len);
                jnames[j] = jname_buf + off;
                off += ni->name_len + 1;
                rest[j] = t;
            }
            if (ni->cand_count) {
                for (int32_t k = ni->first_cand; k >= 0; k = v.cands[k].next) ibind[cand_joint[k]] = v.cands[k].inverse_bind;
            } else {
                if (!have_natural) {
                    free(poff);
                    r = fail(c, SINEW_ERROR_SINGULAR, "node '%.*s' has a singular global transform", (int)ni->name_len, ni->name);
                    goto done;
                }
                ibind[ni->first_joint] = natural;
            }
        }
        sinew_skeleton_desc sd = { 0 };
        sd.joint_count = joints;
        sd.parents = parents;
        sd.names = jnames;
        sd.inverse_bind = ibind;
        sd.rest_local = rest;
        r = sinew_skeleton_create(&sd, &a->skel);
        if (r) { free(poff); r = fail(c, r, "the skeleton is invalid: %s", sinew_result_string(r)); goto done; }
        for (uint32_t j = 0; j < joints; j++) {
            sinew_mat4 rm = sinew_mat4_from_transform(&rest[j]);
            double e = mat_max_diff(sinew_skeleton_bind_local(a->skel, j), &rm);
            if (e > a->stats.bind_rest_error) a->stats.bind_rest_error = e;
        }
    }

    /* pack */
    {
        sinew_influences inf = { 0 };
        inf.offsets = poff;
        inf.joints = ijoints;
        inf.weights = iweights;
        sinew_pack_stats ps = { 0 };
        uint32_t bad = 0;
        r = sinew_pack_vertices(total_v, fpos, fnrm, &inf, joints, a->vertices, &ps, &bad);
        free(poff);
        if (r) { r = fail(c, r, "vertex %u cannot be packed: %s", bad, sinew_result_string(r)); goto done; }
        a->stats.max_influences = ps.max_influences;
        a->stats.vertices_pruned = ps.vertices_pruned;
        a->stats.influences_pruned = ps.influences_pruned;
    }

    r = build_clips(&v, a, node_joint_count);

done:
    free(v.nodes); free(v.table); free(v.global); free(v.cands); free(v.refs);
    free(offsets); free(mcount); free(node_joint_count); free(ref_cand); free(cand_joint); free(infls);
    free(ijoints); free(iweights); free(fpos); free(fnrm);
    free(parents); free((void *)jnames); free(ibind); free(rest); free(jname_buf);
    return r;
}

/* ---- public API ---------------------------------------------------------- */

void sinew_asset_destroy(sinew_asset *a)
{
    if (!a) return;
    sinew_skeleton_destroy(a->skel);
    free(a->vertices); free(a->rest_pos); free(a->rest_nrm); free(a->indices);
    free(a->meshes); free(a->names);
    for (uint32_t i = 0; i < a->clip_count; i++) sinew_clip_destroy(a->clips[i]);
    free(a->clips);
    free(a);
}

static sinew_result from_scene(ctx *c, const struct aiScene *scene, const uint8_t *had_normals, sinew_asset **out)
{
    sinew_asset *a = xcalloc(1, sizeof *a);
    if (!a) return fail(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    sinew_result r = convert(c, scene, had_normals, a);
    if (r) {
        if (c->msg && c->msg_size && !c->msg[0]) fail(c, r, "%s", sinew_result_string(r));
        sinew_asset_destroy(a);
        return r;
    }
    *out = a;
    return SINEW_OK;
}

sinew_result sinew_asset_from_scene(const struct aiScene *scene, const sinew_asset_desc *desc, sinew_asset **out)
{
    ctx c = { desc, desc ? desc->message : NULL, desc ? desc->message_size : 0 };
    if (c.msg && c.msg_size) c.msg[0] = 0;
    if (!out) return fail(&c, SINEW_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!scene) return fail(&c, SINEW_ERROR_INVALID_ARGUMENT, "scene is NULL");
    return from_scene(&c, scene, NULL, out);
}

sinew_result sinew_asset_load(const sinew_asset_desc *desc, sinew_asset **out)
{
    ctx c = { desc, desc ? desc->message : NULL, desc ? desc->message_size : 0 };
    if (c.msg && c.msg_size) c.msg[0] = 0;
    if (!desc || !out) return fail(&c, SINEW_ERROR_INVALID_ARGUMENT, "desc or out is NULL");
    *out = NULL;
    if (!desc->path && (!desc->data || desc->size == 0))
        return fail(&c, SINEW_ERROR_INVALID_ARGUMENT, "neither a path nor data was given");
    if (!desc->path && desc->size > 0x7fffffffu)
        return fail(&c, SINEW_ERROR_LIMIT_EXCEEDED, "in-memory file larger than 2 GiB");
    if (desc->path) {
        FILE *f = fopen(desc->path, "rb");
        if (!f) return fail(&c, SINEW_ERROR_IO, "cannot open '%s'", desc->path);
        fclose(f);
    }
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return fail(&c, SINEW_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    /* no fake "skeleton meshes" for skeleton-only files */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    unsigned int flags = aiProcess_Triangulate | aiProcess_ValidateDataStructure;
    const struct aiScene *scene;
    if (desc->path) scene = aiImportFileExWithProperties(desc->path, flags, NULL, props);
    else scene = aiImportFileFromMemoryWithProperties(desc->data, (unsigned int)desc->size, flags,
                                                      desc->hint ? desc->hint : "", props);
    if (!scene) {
        aiReleasePropertyStore(props);
        const char *e = aiGetErrorString();
        return fail(&c, SINEW_ERROR_FORMAT, "assimp could not import %s: %s", desc->path ? desc->path : "the data",
                    e && *e ? e : "unknown error");
    }
    /* remember which meshes had normals, then generate the missing ones */
    uint8_t *had = xcalloc(scene->mNumMeshes ? scene->mNumMeshes : 1, 1);
    if (!had) { aiReleaseImport(scene); aiReleasePropertyStore(props); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    for (uint32_t i = 0; i < scene->mNumMeshes; i++)
        had[i] = scene->mMeshes && scene->mMeshes[i] && scene->mMeshes[i]->mNormals != NULL;
    const struct aiScene *pp = aiApplyPostProcessing(scene, aiProcess_GenSmoothNormals);
    sinew_result r;
    if (!pp) {
        const char *e = aiGetErrorString();
        r = fail(&c, SINEW_ERROR_FORMAT, "assimp could not generate normals: %s", e && *e ? e : "unknown error");
        /* aiApplyPostProcessing releases the scene on failure */
    } else {
        if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) && scene->mNumMeshes == 0)
            r = fail(&c, SINEW_ERROR_EMPTY, "the file holds no mesh (skeleton or animation only)");
        else
            r = from_scene(&c, pp, had, out);
        aiReleaseImport(pp);
    }
    free(had);
    aiReleasePropertyStore(props);
    return r;
}

const sinew_skeleton *sinew_asset_skeleton(const sinew_asset *a) { return a ? a->skel : NULL; }
uint32_t sinew_asset_vertex_count(const sinew_asset *a) { return a ? a->vertex_count : 0; }
const sinew_vertex *sinew_asset_vertices(const sinew_asset *a) { return a ? a->vertices : NULL; }
const double *sinew_asset_rest_positions(const sinew_asset *a) { return a ? a->rest_pos : NULL; }
const double *sinew_asset_rest_normals(const sinew_asset *a) { return a ? a->rest_nrm : NULL; }
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
