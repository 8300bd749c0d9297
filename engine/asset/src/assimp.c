/* Sinew asset import through assimp: every format but glTF 2.0 (asset.c
 * dispatches), and sinew_asset_from_scene: assimp scene -> skeleton, packed
 * vertices, indices, clips (see asset.h for the conventions), built with the
 * asset builder (builder.c). The only file that includes assimp. */
#define _POSIX_C_SOURCE 200809L
#include "asset_internal.h"
#include "error_internal.h"

#include <assimp/cfileio.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h> /* qsort */
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

typedef snw_import_ctx ctx;
#define fail snw_asset_fail
#define fail_at snw_asset_fail_at

/* n zeroed elements from the import's allocator; n == 0 gives one element, so
 * an empty array is still a valid pointer (snw_calloc returns NULL for 0). */
static void *zalloc(const sinew_allocator *al, size_t n, size_t size)
{
    return snw_calloc(al, n ? n : 1, size ? size : 1);
}

/* Moves a block of old_bytes to a new one of new_bytes (> old_bytes) from the
 * same allocator; the old block is freed on success, kept on failure (NULL). */
static void *grow(const sinew_allocator *al, void *old, size_t old_bytes, size_t new_bytes)
{
    void *p = snw_alloc(al, new_bytes);
    if (!p) return NULL;
    if (old_bytes) memcpy(p, old, old_bytes);
    snw_free(al, old);
    return p;
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


/* ---- assimp's file access, under the folder rule (confine.c) ------------ */

typedef struct snw_aifile {
    int fd;                  /* -1 for the in-memory model */
    const uint8_t *mem;
    size_t pos, size;
} snw_aifile;

typedef struct snw_aiio {
    struct aiFileIO io;      /* first: assimp hands this pointer back */
    snw_confine *cf;
    const sinew_allocator *al;
    int out_of_memory;       /* an aiFile could not be allocated */
} snw_aiio;

static size_t aif_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    snw_aifile *h = (snw_aifile *)f->UserData;
    if (!size || !count || h->pos >= h->size) return 0;
    size_t want = size * count;
    if (want / size != count) return 0;
    size_t avail = h->size - h->pos;
    if (want > avail) want = avail - avail % size;
    size_t got = 0;
    if (h->fd < 0) { memcpy(buf, h->mem + h->pos, want); got = want; }
    else {
        while (got < want) {
            ssize_t k = pread(h->fd, buf + got, want - got, (off_t)(h->pos + got));
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            got += (size_t)k;
        }
    }
    h->pos += got;
    return got / size;
}
static size_t aif_write(struct aiFile *f, const char *b, size_t s, size_t n) { (void)f; (void)b; (void)s; (void)n; return 0; }
static size_t aif_tell(struct aiFile *f) { return ((snw_aifile *)f->UserData)->pos; }
static size_t aif_size(struct aiFile *f) { return ((snw_aifile *)f->UserData)->size; }
static void aif_flush(struct aiFile *f) { (void)f; }
static enum aiReturn aif_seek(struct aiFile *f, size_t off, enum aiOrigin o)
{
    snw_aifile *h = (snw_aifile *)f->UserData;
    size_t base = o == aiOrigin_SET ? 0 : o == aiOrigin_CUR ? h->pos : o == aiOrigin_END ? h->size : (size_t)-1;
    if (base == (size_t)-1 || off > h->size - base) return aiReturn_FAILURE;
    h->pos = base + off;
    return aiReturn_SUCCESS;
}

static struct aiFile *aiio_open(struct aiFileIO *io, const char *path, const char *mode)
{
    snw_aiio *x = (snw_aiio *)io;
    if (!mode || strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+')) return NULL; /* read only */
    int violation = 0;
    int fd = snw_confine_open(x->cf, path, &violation);
    if (fd == -1) return NULL;
    struct aiFile *f = snw_calloc(x->al, 1, sizeof *f + sizeof(snw_aifile));
    if (!f) { if (fd >= 0) close(fd); x->out_of_memory = 1; return NULL; }
    snw_aifile *h = (snw_aifile *)(f + 1);
    h->fd = fd;
    if (fd == -2) { h->fd = -1; h->mem = x->cf->mem; h->size = x->cf->mem_size; }
    else {
        struct stat st;
        if (fstat(fd, &st) || st.st_size < 0) { close(fd); snw_free(x->al, f); return NULL; }
        h->size = (size_t)st.st_size;
    }
    f->ReadProc = aif_read; f->WriteProc = aif_write; f->TellProc = aif_tell;
    f->FileSizeProc = aif_size; f->SeekProc = aif_seek; f->FlushProc = aif_flush;
    f->UserData = (aiUserData)h;
    return f;
}

static void aiio_close(struct aiFileIO *io, struct aiFile *f)
{
    snw_aiio *x = (snw_aiio *)io;
    if (!f) return;
    snw_aifile *h = (snw_aifile *)f->UserData;
    if (h->fd >= 0) close(h->fd);
    snw_free(x->al, f);
}

/* ---- the converter ------------------------------------------------------- */

typedef struct node_info {
    const struct aiNode *node;
    int32_t parent;          /* node index */
    const char *name;
    size_t name_len;
} node_info;

typedef struct mesh_ref {
    uint32_t node, mesh;
} mesh_ref;

typedef struct infl { uint32_t joint; float weight; } infl;

/* Everything the conversion steps share. The steps run in order (convert());
 * each fills its fields, and conv_release frees every array, whichever step
 * failed. All arrays come from the import's allocator (al). */
typedef struct conv {
    ctx *c;
    const sinew_allocator *al;
    const struct aiScene *scene;
    const uint8_t *had_normals;  /* per aiMesh, or NULL (unknown: report 0) */
    uint32_t max_vertices, max_indices, max_joints, max_meshes, max_nodes, max_keys;
    /* step 1: nodes */
    uint32_t node_count;
    node_info *nodes;
    int32_t *table;              /* name hash table -> node index */
    uint32_t table_mask;
    snw_builder b;               /* joint graph (rest globals, bind candidates, joints) */
    /* step 2: mesh references */
    mesh_ref *refs;
    uint32_t ref_count;
    /* step 3: counts */
    uint32_t total_v;            /* vertices of the whole character */
    uint64_t ntri;               /* triangles */
    /* step 4: per aiBone (all meshes, in order): its candidate, UINT32_MAX = missing */
    uint32_t *ref_cand;
    /* step 5: influences, CSR per global vertex */
    uint32_t *offsets;
    infl *infls;
    /* step 7: merged influence counts */
    uint32_t *mcount;
    uint64_t packed_total;
    /* step 8: packing input */
    uint32_t *ijoints, *poff;
    float *iweights, *ftan;      /* ftan: 4 per vertex, NULL when no mesh had tangents */
    /* progress: pbase + (1 - pbase) * (step + done within it) / nsteps */
    double pbase;
    uint32_t step, nsteps;
} conv;

static void conv_release(conv *v)
{
    const sinew_allocator *al = v->al;
    snw_free(al, v->nodes); snw_free(al, v->table);
    if (v->b.al) snw_builder_release(&v->b);
    snw_free(al, v->refs); snw_free(al, v->ref_cand); snw_free(al, v->offsets); snw_free(al, v->infls);
    snw_free(al, v->mcount);
    snw_free(al, v->ijoints); snw_free(al, v->poff); snw_free(al, v->iweights);
    snw_free(al, v->ftan);
}

static sinew_result step_progress(conv *v, double within)
{
    return snw_asset_progress(v->c, v->pbase + (1.0 - v->pbase) * ((double)v->step + within) / (double)v->nsteps);
}

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

/* Step 1a: the scene graph, depth-first, parents before children, iterative
 * (hostile depth). */
static sinew_result walk_nodes(conv *v, sinew_asset *a)
{
    (void)a;
    ctx *c = v->c;
    const struct aiNode *root = v->scene->mRootNode;
    if (!root) return fail(c, SINEW_ERROR_FORMAT, "scene has no root node");
    uint32_t cap = 64;
    v->nodes = zalloc(v->al, cap, sizeof *v->nodes);
    const struct aiNode **stack = zalloc(v->al, cap, sizeof *stack);
    int32_t *stack_parent = zalloc(v->al, cap, sizeof *stack_parent);
    uint32_t sp = 0, cap_stack = cap;
    sinew_result r = SINEW_OK;
    if (!v->nodes || !stack || !stack_parent) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    stack[sp] = root; stack_parent[sp] = -1; sp++;
    while (sp) {
        sp--;
        const struct aiNode *n = stack[sp];
        int32_t parent = stack_parent[sp];
        if (v->node_count >= v->max_nodes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u nodes (or a node cycle)", v->max_nodes); break; }
        if (v->node_count == cap) {
            node_info *nn = grow(v->al, v->nodes, (size_t)cap * sizeof *nn, (size_t)cap * 2 * sizeof *nn);
            if (!nn) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            v->nodes = nn; cap *= 2;
        }
        uint32_t idx = v->node_count++;
        node_info *ni = &v->nodes[idx];
        memset(ni, 0, sizeof *ni);
        ni->node = n; ni->parent = parent;
        ni->name = ai_str(&n->mName, &ni->name_len);
        if (n->mNumChildren && !n->mChildren) { r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a NULL child list", (int)ni->name_len, ni->name); break; }
        if (n->mNumMeshes && !n->mMeshes) { r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a NULL mesh list", (int)ni->name_len, ni->name); break; }
        if (n->mNumChildren > v->max_nodes) { r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "node '%.*s' has %u children (limit %u)", (int)ni->name_len, ni->name, n->mNumChildren, v->max_nodes); break; }
        /* push children in reverse so the first child is visited first */
        if ((uint64_t)sp + n->mNumChildren > cap_stack) {
            uint32_t nc = cap_stack;
            while ((uint64_t)sp + n->mNumChildren > nc) nc *= 2;
            const struct aiNode **ns = grow(v->al, (void *)stack, (size_t)cap_stack * sizeof *ns, (size_t)nc * sizeof *ns);
            if (!ns) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            stack = ns;
            int32_t *np = grow(v->al, stack_parent, (size_t)cap_stack * sizeof *np, (size_t)nc * sizeof *np);
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
out:
    snw_free(v->al, (void *)stack);
    snw_free(v->al, stack_parent);
    return r;
}

/* Step 1b: the name table (first node of a name wins, like assimp's FindNode)
 * and every node's rest global transform. */
static sinew_result index_nodes(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    uint32_t tsize = 16;
    while (tsize < v->node_count * 2u) tsize *= 2;
    v->table = zalloc(v->al, tsize, sizeof *v->table);
    if (!v->table || snw_builder_init(&v->b, c, a, v->node_count)) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    v->b.prefix = "";
    v->b.cand_tol = 1e-5;
    v->b.max_joints = v->max_joints;
    v->b.budget = c->desc ? c->desc->max_memory : 0;   /* the clips only, and only when given (assimp allocates on its own) */
    v->table_mask = tsize - 1;
    for (uint32_t i = 0; i < tsize; i++) v->table[i] = -1;
    for (uint32_t i = 0; i < v->node_count; i++) {
        node_info *ni = &v->nodes[i];
        if (find_node(v, ni->name, ni->name_len) < 0) {
            uint32_t h = (uint32_t)hash_name(ni->name, ni->name_len) & v->table_mask;
            while (v->table[h] >= 0) h = (h + 1) & v->table_mask;
            v->table[h] = (int32_t)i;
        }
        snw_bnode *bn = &v->b.nodes[i];
        bn->parent = ni->parent; bn->name = ni->name; bn->name_len = ni->name_len;
        sinew_mat4 local = bn->local = mat_from_ai(&ni->node->mTransformation);
        if (!sinew_mat4_is_finite(&local))
            return fail(c, SINEW_ERROR_FORMAT, "node '%.*s' has a non-finite transform", (int)ni->name_len, ni->name);
        bn->global = ni->parent < 0 ? local : sinew_mat4_mul(&v->b.nodes[ni->parent].global, &local);
        if (!sinew_mat4_is_finite(&bn->global))
            return fail(c, SINEW_ERROR_FORMAT, "node '%.*s': global transform overflows", (int)ni->name_len, ni->name);
    }
    return SINEW_OK;
}

static int cmp_infl(const void *a, const void *b)
{
    const infl *x = a, *y = b;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

/* Step 2: mesh references (node, mesh), in scene mesh order, then node order. */
static sinew_result collect_mesh_refs(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    uint64_t ref_total = 0;
    for (uint32_t i = 0; i < v->node_count; i++) ref_total += v->nodes[i].node->mNumMeshes;
    if (ref_total > v->max_meshes) return fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "%llu mesh instances (limit %u)", (unsigned long long)ref_total, v->max_meshes);
    sinew_result r = SINEW_OK;
    uint32_t *start = NULL;
    v->refs = zalloc(v->al, ref_total, sizeof *v->refs);
    uint32_t *mesh_uses = zalloc(v->al, s->mNumMeshes, sizeof *mesh_uses);
    if (!v->refs || !mesh_uses) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    for (uint32_t i = 0; i < v->node_count; i++) {
        const struct aiNode *n = v->nodes[i].node;
        for (uint32_t k = 0; k < n->mNumMeshes; k++) {
            if (n->mMeshes[k] >= s->mNumMeshes) {
                r = fail(c, SINEW_ERROR_FORMAT, "node '%.*s' names mesh %u of %u", (int)v->nodes[i].name_len, v->nodes[i].name, n->mMeshes[k], s->mNumMeshes);
                goto out;
            }
            mesh_uses[n->mMeshes[k]]++;
        }
    }
    /* order: by mesh index, then node order */
    start = zalloc(v->al, (size_t)s->mNumMeshes + 1, sizeof *start);
    if (!start) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    for (uint32_t m = 0; m < s->mNumMeshes; m++) start[m + 1] = start[m] + mesh_uses[m];
    for (uint32_t i = 0; i < v->node_count; i++) {
        const struct aiNode *n = v->nodes[i].node;
        for (uint32_t k = 0; k < n->mNumMeshes; k++) {
            uint32_t m = n->mMeshes[k];
            v->refs[start[m]].node = i; v->refs[start[m]].mesh = m; start[m]++;
        }
    }
    for (uint32_t m = 0; m < s->mNumMeshes; m++) if (!mesh_uses[m]) a->stats.unused_meshes++;
    v->ref_count = (uint32_t)ref_total;
    if (v->ref_count == 0) r = fail(c, SINEW_ERROR_EMPTY, "no node refers to any of the %u meshes", s->mNumMeshes);
out:
    snw_free(v->al, start);
    snw_free(v->al, mesh_uses);
    return r;
}

/* Step 3: validates the referenced meshes and counts vertices, triangles,
 * bones and weights against the limits; marks mesh nodes needed. */
static sinew_result validate_meshes(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    uint64_t nv = 0, ntri = 0, nweights = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        if (!m) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh %u is NULL", v->refs[i].mesh);
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        if (m->mNumVertices == 0 || !m->mVertices) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh %u '%.*s' has no vertices", v->refs[i].mesh, (int)ml, mn);
        if (m->mNumVertices > v->max_vertices) return fail_at(c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh '%.*s' has %u vertices (limit %u)", (int)ml, mn, m->mNumVertices, v->max_vertices);
        if (m->mNumFaces && !m->mFaces) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh '%.*s' has a NULL face list", (int)ml, mn);
        if (m->mNumBones && !m->mBones) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh '%.*s' has a NULL bone list", (int)ml, mn);
        nv += m->mNumVertices;
        if (nv > v->max_vertices) return fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u vertices", v->max_vertices);
        for (uint32_t f = 0; f < m->mNumFaces; f++) {
            if (m->mFaces[f].mNumIndices == 3) {
                if (!m->mFaces[f].mIndices) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, f, "mesh '%.*s': face %u has no index list", (int)ml, mn, f);
                ntri++;
            }
        }
        if (ntri * 3 > v->max_indices) return fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "more than %u indices", v->max_indices);
        for (uint32_t b = 0; b < m->mNumBones; b++) {
            const struct aiBone *bone = m->mBones[b];
            if (!bone) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, b, "mesh '%.*s': bone %u is NULL", (int)ml, mn, b);
            if (bone->mNumWeights && !bone->mWeights) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, b, "mesh '%.*s': bone %u has a NULL weight list", (int)ml, mn, b);
            nweights += bone->mNumWeights;
            a->stats.bones++;
            if (a->stats.bones > (1u << 24) || nweights > (1u << 28))
                return fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "too many bones or weights (%u bones, %llu weights)", a->stats.bones, (unsigned long long)nweights);
        }
        if (m->mNumBones) a->stats.skinned_meshes++;
        snw_builder_mark_needed(&v->b, v->refs[i].node);
    }
    v->total_v = (uint32_t)nv;
    v->ntri = ntri;
    return SINEW_OK;
}

/* Step 4: bones -> nodes and bind candidates (ref_cand, one per aiBone). */
static sinew_result bind_bones(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    const sinew_asset_desc *d = c->desc;
    v->ref_cand = zalloc(v->al, (size_t)a->stats.bones + 1, sizeof *v->ref_cand);
    if (!v->ref_cand) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t bi = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        if (!m->mNumBones) continue;
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        sinew_mat4 mesh_inv;
        if (sinew_mat4_inverse(&v->b.nodes[v->refs[i].node].global, &mesh_inv))
            return fail_at(c, SINEW_ERROR_SINGULAR, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "skinned mesh '%.*s': its node's transform is singular", (int)ml, mn);
        for (uint32_t b = 0; b < m->mNumBones; b++) {
            const struct aiBone *bone = m->mBones[b];
            size_t bl; const char *bn = ai_str(&bone->mName, &bl);
            int32_t node = find_node(v, bn, bl);
            if (node < 0) {
                if (d && (d->flags & SINEW_ASSET_ALLOW_MISSING_BONES)) {
                    v->ref_cand[bi++] = UINT32_MAX; /* its weights are dropped below */
                    a->stats.missing_bones++;
                    continue;
                }
                return fail_at(c, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MESH, v->refs[i].mesh, b, "mesh '%.*s': bone '%.*s' names no node of the scene "
                            "(SINEW_ASSET_ALLOW_MISSING_BONES / --allow-missing-bones drops its weights)", (int)ml, mn, (int)bl, bn);
            }
            sinew_mat4 off = mat_from_ai(&bone->mOffsetMatrix);
            if (!sinew_mat4_is_finite(&off)) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, b, "bone '%.*s': non-finite offset matrix", (int)bl, bn);
            sinew_mat4 ib = sinew_mat4_mul(&off, &mesh_inv);
            if (!sinew_mat4_is_finite(&ib)) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, b, "bone '%.*s': bind matrix overflows", (int)bl, bn);
            snw_builder_mark_needed(&v->b, (uint32_t)node);
            sinew_result r = snw_builder_candidate(&v->b, (uint32_t)node, &ib, &v->ref_cand[bi++]);
            if (r) return r;
        }
    }
    return SINEW_OK;
}

/* Step 5: validates the weights and counts the non-zero ones per vertex
 * (offsets: CSR over the global vertex numbering). */
static sinew_result count_weights(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    v->offsets = zalloc(v->al, (size_t)v->total_v + 1, sizeof *v->offsets);
    if (!v->offsets) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t base = 0, bi = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        for (uint32_t b = 0; b < m->mNumBones; b++) {
            const struct aiBone *bone = m->mBones[b];
            size_t bl; const char *bn = ai_str(&bone->mName, &bl);
            if (v->ref_cand[bi++] == UINT32_MAX) { a->stats.missing_bone_weights += bone->mNumWeights; continue; }
            for (uint32_t w = 0; w < bone->mNumWeights; w++) {
                const struct aiVertexWeight *vw = &bone->mWeights[w];
                if (vw->mVertexId >= m->mNumVertices)
                    return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, vw->mVertexId, "mesh '%.*s', bone '%.*s': weight names vertex %u of %u",
                                (int)ml, mn, (int)bl, bn, vw->mVertexId, m->mNumVertices);
                if (!isfinite(vw->mWeight) || vw->mWeight < 0)
                    return fail_at(c, SINEW_ERROR_INVALID_WEIGHT, SINEW_ITEM_MESH, v->refs[i].mesh, vw->mVertexId, "mesh '%.*s', bone '%.*s': weight %g on vertex %u",
                                (int)ml, mn, (int)bl, bn, (double)vw->mWeight, vw->mVertexId);
                if (vw->mWeight > 0) v->offsets[base + vw->mVertexId + 1]++;
            }
        }
        base += m->mNumVertices;
    }
    for (uint32_t i = 0; i < v->total_v; i++) v->offsets[i + 1] += v->offsets[i];
    return SINEW_OK;
}

/* Step 6a: joint numbering: needed nodes in DFS order, each with its
 * candidates. Mesh nodes with unweighted vertices need their natural bind as a
 * candidate (added here before counting). */
static sinew_result number_joints(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    uint32_t base = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        int any_unweighted = 0;
        for (uint32_t k = 0; k < m->mNumVertices && !any_unweighted; k++)
            if (v->offsets[base + k + 1] == v->offsets[base + k]) any_unweighted = 1;
        if (any_unweighted) {
            sinew_mat4 inv;
            uint32_t ci;
            if (sinew_mat4_inverse(&v->b.nodes[v->refs[i].node].global, &inv))
                return fail_at(c, SINEW_ERROR_SINGULAR, SINEW_ITEM_MESH, v->refs[i].mesh, UINT32_MAX, "mesh node '%.*s' has a singular transform",
                            (int)v->nodes[v->refs[i].node].name_len, v->nodes[v->refs[i].node].name);
            sinew_result r = snw_builder_candidate(&v->b, v->refs[i].node, &inv, &ci);
            if (r) return r;
        }
        base += m->mNumVertices;
    }
    return snw_builder_number_joints(&v->b);
}

/* Step 6b: the influence lists (joint, weight) per vertex, in CSR order. */
static sinew_result gather_influences(conv *v, sinew_asset *a)
{
    (void)a;
    const struct aiScene *s = v->scene;
    v->infls = zalloc(v->al, (size_t)v->offsets[v->total_v] + 1, sizeof *v->infls);
    uint32_t *fill = zalloc(v->al, v->total_v, sizeof *fill);
    if (!v->infls || !fill) { snw_free(v->al, fill); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    uint32_t base = 0, bi = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        for (uint32_t b = 0; b < m->mNumBones; b++, bi++) {
            const struct aiBone *bone = m->mBones[b];
            if (v->ref_cand[bi] == UINT32_MAX) continue;
            uint32_t j = v->b.cand_joint[v->ref_cand[bi]];
            for (uint32_t w = 0; w < bone->mNumWeights; w++) {
                const struct aiVertexWeight *vw = &bone->mWeights[w];
                if (!(vw->mWeight > 0)) continue;
                uint32_t g = base + vw->mVertexId;
                infl *dst = &v->infls[v->offsets[g] + fill[g]++];
                dst->joint = j; dst->weight = vw->mWeight;
            }
        }
        base += m->mNumVertices;
    }
    snw_free(v->al, fill);
    return SINEW_OK;
}

/* Step 7: merges repeated joints per vertex (sorted by joint), fills the
 * influence histogram and counts the packing input (an unweighted vertex gets
 * one entry: its node joint). */
static sinew_result merge_influences(conv *v, sinew_asset *a)
{
    v->mcount = zalloc(v->al, v->total_v, sizeof *v->mcount);
    if (!v->mcount) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint64_t packed_total = 0;
    for (uint32_t g = 0; g < v->total_v; g++) {
        uint32_t n = v->offsets[g + 1] - v->offsets[g];
        infl *l = v->infls + v->offsets[g];
        if (n > 1) qsort(l, n, sizeof *l, cmp_infl);
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (k && l[k - 1].joint == l[i].joint) l[k - 1].weight += l[i].weight;
            else l[k++] = l[i];
        }
        v->mcount[g] = k;
        a->stats.influence_histogram[k < 8 ? k : 8]++;
        packed_total += k ? k : 1;
    }
    v->packed_total = packed_total;
    return SINEW_OK;
}

/* Step 8a: the asset's arrays and the packing input, all sized by now. */
static sinew_result alloc_outputs(conv *v, sinew_asset *a)
{
    const struct aiScene *s = v->scene;
    const sinew_allocator *al = v->al;
    const size_t nv = v->total_v;
    v->ijoints = zalloc(al, v->packed_total, sizeof *v->ijoints);
    v->iweights = zalloc(al, v->packed_total, sizeof *v->iweights);
    v->poff = zalloc(al, nv + 1, sizeof *v->poff);
    a->vertex_count = v->total_v;
    a->rest_pos = zalloc(al, nv * 3, sizeof(double));
    a->rest_nrm = zalloc(al, nv * 3, sizeof(double));
    a->mesh_count = v->ref_count;
    a->meshes = zalloc(al, v->ref_count, sizeof *a->meshes);
    a->index_count = (uint32_t)(v->ntri * 3);
    a->indices = zalloc(al, a->index_count, sizeof *a->indices);
    size_t names_size = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) { size_t ml; ai_str(&s->mMeshes[v->refs[i].mesh]->mName, &ml); names_size += ml + 1; }
    a->names = zalloc(al, names_size, 1);
    if (!v->ijoints || !v->iweights || !v->poff || !a->rest_pos || !a->rest_nrm ||
        !a->meshes || !a->indices || !a->names)
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    /* tangent frames only when the file had them (never generated): xyz w per vertex, 0 0 0 1 = none */
    int any_tan = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        if (m->mTangents && m->mBitangents && m->mNormals) any_tan = 1;
    }
    if (any_tan) {
        v->ftan = zalloc(al, nv * 4, sizeof(float));
        if (!v->ftan) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        for (size_t k = 0; k < nv; k++) v->ftan[k * 4 + 3] = 1.0f;
    }
    return SINEW_OK;
}

/* Where step 8 is in the shared arrays. */
typedef struct mesh_cursor {
    uint32_t base;           /* first global vertex of the mesh */
    uint32_t index;          /* next index slot */
    uint32_t packed;         /* next packing-input entry */
    size_t name_off;         /* next byte of a->names */
} mesh_cursor;

/* The joint a mesh node's unweighted vertices follow: the candidate equal to
 * its natural bind, else its first joint. */
static uint32_t mesh_node_joint(const conv *v, uint32_t node)
{
    uint32_t node_joint = v->b.nodes[node].first_joint;
    sinew_mat4 inv;
    if (!sinew_mat4_inverse(&v->b.nodes[node].global, &inv)) {
        int32_t k = snw_builder_find_candidate(&v->b, node, &inv);
        if (k >= 0) node_joint = v->b.cand_joint[k];
    }
    return node_joint;
}

/* Step 8b, per mesh: vertices to model space (normals by the inverse
 * transpose), float copies for packing, the packing input's influence lists. */
static sinew_result convert_mesh_vertices(conv *v, sinew_asset *a, uint32_t ref, mesh_cursor *cur)
{
    const struct aiMesh *m = v->scene->mMeshes[v->refs[ref].mesh];
    sinew_asset_mesh_info *am = &a->meshes[ref];
    size_t ml; const char *mn = ai_str(&m->mName, &ml);
    const sinew_mat4 *G = &v->b.nodes[v->refs[ref].node].global;
    sinew_mat3 g3 = sinew_mat4_upper3(G);
    sinew_mat3 nm = sinew_mat3_cofactor(&g3);
    double sgn = sinew_mat3_det(&g3) < 0 ? -1.0 : 1.0;
    for (uint32_t k = 0; k < m->mNumVertices; k++) {
        uint32_t gv = cur->base + k;
        sinew_vec3 p = sinew_v3(m->mVertices[k].x, m->mVertices[k].y, m->mVertices[k].z);
        p = sinew_mat4_transform_point(G, p);
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || fabs(p.x) > 1e30 || fabs(p.y) > 1e30 || fabs(p.z) > 1e30)
            return fail_at(v->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[ref].mesh, k, "mesh '%.*s': vertex %u has a non-finite or huge position", (int)ml, mn, k);
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
        }
        if (v->ftan && m->mTangents && m->mBitangents && m->mNormals) {
            /* tangent by the node's 3x3; sign = sign(dot(cross(N, T), B)) in model space */
            sinew_vec3 t = sinew_v3(m->mTangents[k].x, m->mTangents[k].y, m->mTangents[k].z);
            sinew_vec3 b = sinew_v3(m->mBitangents[k].x, m->mBitangents[k].y, m->mBitangents[k].z);
            t = sinew_v3_normalize(sinew_mat3_mul_v3(&g3, t));
            b = sinew_mat3_mul_v3(&g3, b);
            double w = sinew_v3_dot(sinew_v3_cross(n, t), b) < 0 ? -1.0 : 1.0;
            if (isfinite(t.x) && isfinite(t.y) && isfinite(t.z) && fabs(t.x) <= 1.0 && fabs(t.y) <= 1.0 && fabs(t.z) <= 1.0) {
                v->ftan[(size_t)gv * 4 + 0] = (float)t.x; v->ftan[(size_t)gv * 4 + 1] = (float)t.y; v->ftan[(size_t)gv * 4 + 2] = (float)t.z;
            }
            v->ftan[(size_t)gv * 4 + 3] = (float)w;
        }
        v->poff[gv] = cur->packed;
        uint32_t cnt = v->mcount[gv];
        const infl *l = v->infls + v->offsets[gv];
        uint32_t kept = 0;
        for (uint32_t q = 0; q < cnt; q++) {
            if (l[q].weight > 0) { v->ijoints[cur->packed] = l[q].joint; v->iweights[cur->packed] = l[q].weight; cur->packed++; kept++; }
        }
        if (!kept) {
            v->ijoints[cur->packed] = am->node_joint; v->iweights[cur->packed] = 1.0f; cur->packed++;
            am->unweighted_vertices++;
            a->stats.unweighted_vertices++;
        }
    }
    return SINEW_OK;
}

/* Step 8c, per mesh: triangles to global indices (other faces dropped). */
static sinew_result convert_mesh_faces(conv *v, sinew_asset *a, uint32_t ref, mesh_cursor *cur)
{
    const struct aiMesh *m = v->scene->mMeshes[v->refs[ref].mesh];
    size_t ml; const char *mn = ai_str(&m->mName, &ml);
    for (uint32_t f = 0; f < m->mNumFaces; f++) {
        const struct aiFace *face = &m->mFaces[f];
        if (face->mNumIndices != 3) { a->stats.dropped_faces++; continue; }
        for (int e = 0; e < 3; e++) {
            if (face->mIndices[e] >= m->mNumVertices)
                return fail_at(v->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[ref].mesh, f, "mesh '%.*s': face %u names vertex %u of %u", (int)ml, mn, f, face->mIndices[e], m->mNumVertices);
            a->indices[cur->index++] = cur->base + face->mIndices[e];
        }
    }
    return SINEW_OK;
}

/* Step 8: every mesh into the shared arrays. */
static sinew_result convert_meshes(conv *v, sinew_asset *a)
{
    mesh_cursor cur = { 0, 0, 0, 0 };
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = v->scene->mMeshes[v->refs[i].mesh];
        sinew_asset_mesh_info *am = &a->meshes[i];
        sinew_result pr = step_progress(v, (double)i / (double)v->ref_count);
        if (pr) return pr;
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        memcpy(a->names + cur.name_off, mn, ml);
        am->name = a->names + cur.name_off;
        cur.name_off += ml + 1;
        am->source_mesh = v->refs[i].mesh;
        am->first_vertex = cur.base;
        am->vertex_count = m->mNumVertices;
        am->normals_generated = v->had_normals ? !v->had_normals[v->refs[i].mesh] : 0;
        if (v->ftan && m->mTangents && m->mBitangents && m->mNormals) a->stats.tangent_meshes++;
        am->node_joint = mesh_node_joint(v, v->refs[i].node);
        sinew_result r = convert_mesh_vertices(v, a, i, &cur);
        if (r) return r;
        am->first_index = cur.index;
        if ((r = convert_mesh_faces(v, a, i, &cur))) return r;
        am->index_count = cur.index - am->first_index;
        cur.base += m->mNumVertices;
    }
    v->poff[v->total_v] = cur.packed;
    return SINEW_OK;
}

/* Step 8d: blend shapes (FBX through assimp: aiMesh mAnimMeshes, absolute
 * positions and normals) to sparse model-space morph targets: delta = G3
 * (anim - base) for positions, the difference of the model-space unit
 * normals for normals; a vertex is an entry when either delta is non-zero.
 * Default weight 0 for every target: the rest mesh is the base geometry
 * (assimp does not apply the shapes to it), and assimp 5.2.5's mWeight is not
 * the file's value (FBX: 1.0 for every channel with one shape, whatever its
 * DeformPercent), so it is not used. Anim meshes without positions or with
 * another vertex count are skipped. */
#define SNW_MAX_ASSIMP_MORPH_ENTRIES (1u << 28)
static int morph_usable(const struct aiMesh *m, const struct aiAnimMesh *am)
{
    return am && am->mVertices && am->mNumVertices == m->mNumVertices;
}

static sinew_result morph_delta(const conv *v, uint32_t ref, const struct aiAnimMesh *am, uint32_t k,
                                double dp[3], double dn[3], int *has_n)
{
    const struct aiMesh *m = v->scene->mMeshes[v->refs[ref].mesh];
    const sinew_mat4 *G = &v->b.nodes[v->refs[ref].node].global;
    sinew_mat3 g3 = sinew_mat4_upper3(G);
    sinew_vec3 d = sinew_v3((double)am->mVertices[k].x - m->mVertices[k].x, (double)am->mVertices[k].y - m->mVertices[k].y,
                            (double)am->mVertices[k].z - m->mVertices[k].z);
    d = sinew_mat3_mul_v3(&g3, d);
    dp[0] = d.x; dp[1] = d.y; dp[2] = d.z;
    dn[0] = dn[1] = dn[2] = 0;
    *has_n = 0;
    for (int e = 0; e < 3; e++)
        if (!isfinite(dp[e]) || fabs(dp[e]) > 1e30) return SINEW_ERROR_FORMAT;
    if (am->mNormals && m->mNormals) {
        sinew_mat3 nm = sinew_mat3_cofactor(&g3);
        double sgn = sinew_mat3_det(&g3) < 0 ? -1.0 : 1.0;
        sinew_vec3 a = sinew_v3(am->mNormals[k].x, am->mNormals[k].y, am->mNormals[k].z);
        sinew_vec3 b = sinew_v3(m->mNormals[k].x, m->mNormals[k].y, m->mNormals[k].z);
        a = sinew_v3_normalize(sinew_v3_scale(sinew_mat3_mul_v3(&nm, a), sgn));
        b = sinew_v3_normalize(sinew_v3_scale(sinew_mat3_mul_v3(&nm, b), sgn));
        if (isfinite(a.x) && isfinite(a.y) && isfinite(a.z) && isfinite(b.x) && isfinite(b.y) && isfinite(b.z)) {
            dn[0] = a.x - b.x; dn[1] = a.y - b.y; dn[2] = a.z - b.z;
            *has_n = 1;
            /* re-normalization noise is not a delta */
            if (fabs(dn[0]) < 1e-6 && fabs(dn[1]) < 1e-6 && fabs(dn[2]) < 1e-6) dn[0] = dn[1] = dn[2] = 0;
        }
    }
    return SINEW_OK;
}

static sinew_result convert_morphs(conv *v, sinew_asset *a)
{
    const struct aiScene *s = v->scene;
    const sinew_allocator *al = v->al;
    uint64_t nt = 0, ne = 0, names = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        size_t ml; const char *mn = ai_str(&m->mName, &ml);
        if (!m->mAnimMeshes) continue;
        for (uint32_t t = 0; t < m->mNumAnimMeshes; t++) {
            const struct aiAnimMesh *am = m->mAnimMeshes[t];
            if (!morph_usable(m, am)) continue;
            nt++;
            size_t nl; ai_str(&am->mName, &nl);
            names += nl + 1;
            for (uint32_t k = 0; k < m->mNumVertices; k++) {
                double dp[3], dn[3];
                int hn;
                if (morph_delta(v, i, am, k, dp, dn, &hn))
                    return fail_at(v->c, SINEW_ERROR_FORMAT, SINEW_ITEM_MESH, v->refs[i].mesh, k, "mesh '%.*s': blend shape %u moves vertex %u by a non-finite or huge delta", (int)ml, mn, t, k);
                ne += dp[0] != 0 || dp[1] != 0 || dp[2] != 0 || dn[0] != 0 || dn[1] != 0 || dn[2] != 0;
            }
            if (ne > SNW_MAX_ASSIMP_MORPH_ENTRIES)
                return fail(v->c, SINEW_ERROR_LIMIT_EXCEEDED, "blend shapes move more than %u vertices in total", SNW_MAX_ASSIMP_MORPH_ENTRIES);
        }
    }
    if (nt == 0) return SINEW_OK;
    a->morphs = zalloc(al, nt, sizeof *a->morphs);
    a->morph_default = zalloc(al, nt, sizeof *a->morph_default);
    a->morph_idx = zalloc(al, ne ? ne : 1, sizeof *a->morph_idx);
    a->morph_dp = zalloc(al, (ne ? ne : 1) * 3, sizeof *a->morph_dp);
    a->morph_dn = zalloc(al, (ne ? ne : 1) * 3, sizeof *a->morph_dn);
    a->morph_names = zalloc(al, names ? names : 1, 1);
    if (!a->morphs || !a->morph_default || !a->morph_idx || !a->morph_dp || !a->morph_dn || !a->morph_names)
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t k = 0, e = 0;
    size_t noff = 0;
    for (uint32_t i = 0; i < v->ref_count; i++) {
        const struct aiMesh *m = s->mMeshes[v->refs[i].mesh];
        sinew_asset_mesh_info *mi = &a->meshes[i];
        if (!m->mAnimMeshes) continue;
        for (uint32_t t = 0; t < m->mNumAnimMeshes; t++) {
            const struct aiAnimMesh *am = m->mAnimMeshes[t];
            if (!morph_usable(m, am)) continue;
            if (!mi->morph_count) mi->first_morph = k;
            mi->morph_count++;
            a->stats.morph_targets++;
            sinew_morph_target *g = &a->morphs[k];
            size_t nl; const char *nm = ai_str(&am->mName, &nl);
            memcpy(a->morph_names + noff, nm, nl);
            g->name = a->morph_names + noff;
            noff += nl + 1;
            g->indices = a->morph_idx + e;
            g->position_deltas = a->morph_dp + (size_t)e * 3;
            int any_n = 0;
            for (uint32_t q = 0; q < m->mNumVertices; q++) {
                double dp[3], dn[3];
                int hn;
                morph_delta(v, i, am, q, dp, dn, &hn);
                if (!(dp[0] != 0 || dp[1] != 0 || dp[2] != 0 || dn[0] != 0 || dn[1] != 0 || dn[2] != 0)) continue;
                a->morph_idx[e] = q;
                for (int c3 = 0; c3 < 3; c3++) {
                    a->morph_dp[(size_t)e * 3 + c3] = (float)dp[c3];
                    a->morph_dn[(size_t)e * 3 + c3] = (float)dn[c3];
                }
                any_n |= hn;
                e++;
                g->count++;
            }
            g->normal_deltas = any_n ? a->morph_dn + (size_t)(g->indices - a->morph_idx) * 3 : NULL;
            a->morph_default[k] = 0.0f;
            k++;
        }
    }
    a->morph_count = k;
    return SINEW_OK;
}

/* Step 9: the skeleton (builder.c: rest T R S split from the node transforms). */
static sinew_result build_skeleton(conv *v, sinew_asset *a)
{
    (void)a;
    return snw_builder_skeleton(&v->b);
}

/* Step 10: packs the vertices (prune to 4, quantize); the asset keeps the
 * lists before pruning (sinew_asset_influences). */
static sinew_result pack(conv *v, sinew_asset *a)
{
    a->infl_offsets = v->poff; a->infl_joints = v->ijoints; a->infl_weights = v->iweights;
    v->poff = NULL; v->ijoints = NULL; v->iweights = NULL;
    return snw_builder_pack(&v->b, v->ftan);
}

/* ---- clips (step 11) ------------------------------------------------------ */

typedef struct key_sort { double time; uint32_t index; } key_sort;
static int cmp_key(const void *a, const void *b)
{
    const key_sort *x = a, *y = b;
    if (x->time < y->time) return -1;
    if (x->time > y->time) return 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* 1 when the keys are in time order. */
static int keys_ordered(const double *t0, size_t stride, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (*(const double *)((const char *)t0 + i * stride) < *(const double *)((const char *)t0 + (i - 1) * stride)) return 0;
    return 1;
}

/* The animation and channel being converted, for messages. */
typedef struct anim_names {
    uint32_t index;          /* the animation's */
    const char *anim, *node;
    size_t anim_len, node_len;
} anim_names;

/* assimp warns but accepts unordered keys: sorts one track by time (stable)
 * when it is not in order; a NaN key time is a FORMAT error. */
static sinew_result sort_track(conv *v, void *keys, size_t size, uint32_t n, const anim_names *nm)
{
    if (keys_ordered(keys, size, n)) return SINEW_OK;
    for (uint32_t i = 0; i < n; i++)
        if (isnan(*(double *)((char *)keys + i * size)))
            return fail_at(v->c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, nm->index, UINT32_MAX, "animation '%.*s', channel '%.*s': NaN key time",
                        (int)nm->anim_len, nm->anim, (int)nm->node_len, nm->node);
    key_sort *ks = zalloc(v->al, n, sizeof *ks);
    char *tmp = zalloc(v->al, n, size);
    if (!ks || !tmp) { snw_free(v->al, ks); snw_free(v->al, tmp); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    for (uint32_t i = 0; i < n; i++) {
        ks[i].time = *(double *)((char *)keys + i * size);
        ks[i].index = i;
    }
    qsort(ks, n, sizeof *ks, cmp_key);
    for (uint32_t i = 0; i < n; i++)
        memcpy(tmp + i * size, (char *)keys + ks[i].index * size, size);
    memcpy(keys, tmp, n * size);
    snw_free(v->al, ks);
    snw_free(v->al, tmp);
    return SINEW_OK;
}

/* The joint of the first joint of the node a channel animates, or -1 when the
 * channel is ignored (no such joint, or its joint already animated: used[]). */
static int32_t channel_node(conv *v, const struct aiNodeAnim *ch, int32_t *used, anim_names *nm)
{
    nm->node = ai_str(&ch->mNodeName, &nm->node_len);
    int32_t node = find_node(v, nm->node, nm->node_len);
    if (node < 0 || !v->b.nodes[node].needed) return -1;
    uint32_t j0 = v->b.nodes[node].first_joint;
    if (used[j0]) return -1;
    used[j0] = 1;
    return node;
}

/* Step 11a: checks an animation's channels and counts the channels (one per
 * joint of the node) and keys it will need (bounded before allocating). */
static sinew_result count_channels(conv *v, sinew_asset *a, const struct aiAnimation *an, const anim_names *anm,
                                   int32_t *used, uint64_t *nch_out, uint64_t *keys_out)
{
    ctx *c = v->c;
    uint32_t joints = sinew_skeleton_joint_count(a->skel);
    uint64_t keys = 0, nch = 0;
    for (uint32_t j = 0; j < joints; j++) used[j] = 0;
    for (uint32_t k = 0; k < an->mNumChannels; k++) {
        const struct aiNodeAnim *ch = an->mChannels[k];
        if (!ch) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, anm->index, UINT32_MAX, "animation '%.*s': channel %u is NULL", (int)anm->anim_len, anm->anim, k);
        if ((ch->mNumPositionKeys && !ch->mPositionKeys) || (ch->mNumRotationKeys && !ch->mRotationKeys) ||
            (ch->mNumScalingKeys && !ch->mScalingKeys))
            return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, anm->index, UINT32_MAX, "animation '%.*s': channel %u has a NULL key list", (int)anm->anim_len, anm->anim, k);
        anim_names nm = *anm;
        int32_t node = channel_node(v, ch, used, &nm);
        if (node < 0) { a->stats.ignored_channels++; continue; }
        uint32_t nj = v->b.nodes[node].joint_count;
        nch += nj;
        keys += (uint64_t)nj * ((uint64_t)ch->mNumPositionKeys + ch->mNumRotationKeys + ch->mNumScalingKeys);
        if (keys > v->max_keys)
            return fail_at(c, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CLIP, anm->index, UINT32_MAX, "animation '%.*s' has more than %u keys", (int)anm->anim_len, anm->anim, v->max_keys);
    }
    *nch_out = nch;
    *keys_out = keys;
    return SINEW_OK;
}

/* A clip's channel descriptions and key storage while it is built. */
typedef struct clip_build {
    sinew_channel_desc *chs;
    sinew_vec3_key *vk;      /* translations and scales */
    sinew_quat_key *qk;      /* rotations */
    uint32_t ci;
    size_t vi, qi;
} clip_build;

/* Step 11b: converts one channel's keys once (sorted), and shares them across
 * the channels of every joint of its node. */
static sinew_result convert_channel(conv *v, const struct aiNodeAnim *ch, uint32_t node, const anim_names *nm,
                                    clip_build *b)
{
    sinew_vec3_key *tk = b->vk + b->vi;
    for (uint32_t i = 0; i < ch->mNumPositionKeys; i++) {
        const struct aiVectorKey *src = &ch->mPositionKeys[i];
        tk[i].time = src->mTime;
        tk[i].value = sinew_v3(src->mValue.x, src->mValue.y, src->mValue.z);
    }
    b->vi += ch->mNumPositionKeys;
    sinew_vec3_key *sk = b->vk + b->vi;
    for (uint32_t i = 0; i < ch->mNumScalingKeys; i++) {
        const struct aiVectorKey *src = &ch->mScalingKeys[i];
        sk[i].time = src->mTime;
        sk[i].value = sinew_v3(src->mValue.x, src->mValue.y, src->mValue.z);
    }
    b->vi += ch->mNumScalingKeys;
    sinew_quat_key *rk = b->qk + b->qi;
    for (uint32_t i = 0; i < ch->mNumRotationKeys; i++) {
        const struct aiQuatKey *src = &ch->mRotationKeys[i];
        rk[i].time = src->mTime;
        sinew_quat q = { src->mValue.x, src->mValue.y, src->mValue.z, src->mValue.w };
        rk[i].value = q;
    }
    b->qi += ch->mNumRotationKeys;
    sinew_result r;
    if ((r = sort_track(v, tk, sizeof *tk, ch->mNumPositionKeys, nm))) return r;
    if ((r = sort_track(v, sk, sizeof *sk, ch->mNumScalingKeys, nm))) return r;
    if ((r = sort_track(v, rk, sizeof *rk, ch->mNumRotationKeys, nm))) return r;
    uint32_t j0 = v->b.nodes[node].first_joint;
    for (uint32_t dup = 0; dup < v->b.nodes[node].joint_count; dup++) {
        sinew_channel_desc *cd = &b->chs[b->ci++];
        cd->joint = j0 + dup;
        cd->translation_count = ch->mNumPositionKeys; cd->translations = tk;
        cd->rotation_count = ch->mNumRotationKeys; cd->rotations = rk;
        cd->scale_count = ch->mNumScalingKeys; cd->scales = sk;
    }
    return SINEW_OK;
}


/* Step 11b': blend-shape weight animation (aiAnimation mMorphMeshChannels, what
 * assimp's FBX importer makes of DeformPercent curves) to the clip's weight
 * tracks. A channel is named "<node>*<g>": the g-th mesh of that node (no '*':
 * the node's first mesh); each key lists (anim mesh index, weight in [0, 1])
 * pairs. Anim mesh k of the mesh is its k-th target when every anim mesh is
 * usable and no channel has in-between shapes (two anim meshes with one name);
 * otherwise, and for channels naming no mesh instance with targets, slots
 * already animated, unordered times or weights beyond 1e6, the channel is
 * counted in ignored_weight_channels (info and deform say so). LINEAR keys,
 * default 0 (the FBX targets' default). Linear in the channels' key pairs. */
typedef struct morph_build {
    sinew_weight_track_desc *tracks;
    double *times, *values;
    uint32_t n_tracks;
    size_t n_keys;
} morph_build;

static int32_t morph_channel_ref(const conv *v, const struct aiMeshMorphAnim *mc)
{
    size_t len;
    const char *nm = ai_str(&mc->mName, &len);
    size_t star = len;
    while (star > 0 && nm[star - 1] != '*') star--;
    uint32_t g = 0;
    size_t plen = len;
    if (star > 0) {
        plen = star - 1;
        if (star == len) return -1;
        for (size_t i = star; i < len; i++) {
            if (nm[i] < '0' || nm[i] > '9' || g > 100000000u) return -1;
            g = g * 10 + (uint32_t)(nm[i] - '0');
        }
    }
    int32_t node = find_node(v, nm, plen);
    if (node < 0) return -1;
    const struct aiNode *n = v->nodes[node].node;
    if (g >= n->mNumMeshes) return -1;
    uint32_t mesh = n->mMeshes[g];
    /* refs are sorted by mesh, then node */
    uint32_t lo = 0, hi = v->ref_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->refs[mid].mesh < mesh) lo = mid + 1; else hi = mid;
    }
    for (uint32_t i = lo; i < v->ref_count && v->refs[i].mesh == mesh; i++)
        if (v->refs[i].node == (uint32_t)node) return (int32_t)i;
    return -1;
}

static sinew_result morph_tracks(conv *v, sinew_asset *a, const struct aiAnimation *an, morph_build *mb)
{
    const struct aiScene *s = v->scene;
    if (!an->mNumMorphMeshChannels || !an->mMorphMeshChannels) return SINEW_OK;
    if (!a->morph_count) {
        a->stats.ignored_weight_channels += an->mNumMorphMeshChannels;
        return SINEW_OK;
    }
    uint64_t pairs = 0;
    for (uint32_t c = 0; c < an->mNumMorphMeshChannels; c++) {
        const struct aiMeshMorphAnim *mc = an->mMorphMeshChannels[c];
        if (!mc || !mc->mKeys) continue;
        for (uint32_t k = 0; k < mc->mNumKeys; k++) pairs += mc->mKeys[k].mNumValuesAndWeights;
    }
    if (pairs > v->max_keys) return fail(v->c, SINEW_ERROR_LIMIT_EXCEEDED, "blend-shape animation: %llu keys (limit %u)", (unsigned long long)pairs, v->max_keys);
    uint32_t nt = a->morph_count;
    mb->tracks = zalloc(v->al, nt, sizeof *mb->tracks);
    mb->times = zalloc(v->al, pairs ? pairs : 1, sizeof *mb->times);
    mb->values = zalloc(v->al, pairs ? pairs : 1, sizeof *mb->values);
    uint32_t *count = zalloc(v->al, nt, sizeof *count), *slot_of = NULL;
    uint8_t *used = zalloc(v->al, nt, 1);
    uint32_t max_am = 1;
    for (uint32_t i = 0; i < s->mNumMeshes; i++) if (s->mMeshes[i] && s->mMeshes[i]->mNumAnimMeshes > max_am) max_am = s->mMeshes[i]->mNumAnimMeshes;
    slot_of = zalloc(v->al, max_am, sizeof *slot_of);
    sinew_result r = SINEW_OK;
    if (!mb->tracks || !mb->times || !mb->values || !count || !used || !slot_of) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    for (uint32_t c = 0; c < an->mNumMorphMeshChannels; c++) {
        const struct aiMeshMorphAnim *mc = an->mMorphMeshChannels[c];
        int32_t ref = mc && (mc->mKeys || !mc->mNumKeys) ? morph_channel_ref(v, mc) : -1;
        const sinew_asset_mesh_info *mi = ref >= 0 ? &a->meshes[ref] : NULL;
        const struct aiMesh *m = ref >= 0 ? s->mMeshes[v->refs[ref].mesh] : NULL;
        int ok = mi && mi->morph_count && m && m->mNumAnimMeshes == mi->morph_count;
        /* in-between shapes: two anim meshes of one channel share its name */
        for (uint32_t t = 0; ok && t + 1 < m->mNumAnimMeshes; t++) {
            size_t l0, l1;
            const char *n0 = ai_str(&m->mAnimMeshes[t]->mName, &l0), *n1 = ai_str(&m->mAnimMeshes[t + 1]->mName, &l1);
            if (l0 == l1 && !memcmp(n0, n1, l0)) ok = 0;
        }
        /* keys: anim mesh indices in range, slots free, times ordered, weights bounded */
        for (uint32_t t = 0; ok && t < m->mNumAnimMeshes; t++) { slot_of[t] = mi->first_morph + t; count[mi->first_morph + t] = 0; }
        double last = -INFINITY;
        for (uint32_t k = 0; ok && k < mc->mNumKeys; k++) {
            const struct aiMeshMorphKey *key = &mc->mKeys[k];
            if (!(key->mTime >= last) || !isfinite(key->mTime) || (key->mNumValuesAndWeights && (!key->mValues || !key->mWeights))) { ok = 0; break; }
            last = key->mTime;
            for (uint32_t q = 0; q < key->mNumValuesAndWeights && ok; q++) {
                if (key->mValues[q] >= m->mNumAnimMeshes || !(fabs(key->mWeights[q]) <= 1e6) ||
                    used[slot_of[key->mValues[q]]]) { ok = 0; break; }
                count[slot_of[key->mValues[q]]]++;
            }
        }
        if (!ok) { a->stats.ignored_weight_channels++; continue; }
        /* one track per animated anim mesh: its keys, in key order */
        size_t base = mb->n_keys;
        for (uint32_t t = 0; t < m->mNumAnimMeshes; t++) {
            uint32_t sl = slot_of[t];
            if (!count[sl]) continue;
            sinew_weight_track_desc *td = &mb->tracks[mb->n_tracks++];
            td->first_weight = sl;
            td->width = 1;
            td->key_count = 0;
            td->times = mb->times + base;
            td->values = mb->values + base;
            td->interpolation = SINEW_INTERPOLATION_LINEAR;
            base += count[sl];
            used[sl] = 1;
            count[sl] = mb->n_tracks - 1; /* from here: the slot's track */
        }
        /* a key listing one anim mesh twice keeps its last pair */
        for (uint32_t k = 0; k < mc->mNumKeys; k++) {
            const struct aiMeshMorphKey *key = &mc->mKeys[k];
            for (uint32_t q = 0; q < key->mNumValuesAndWeights; q++) {
                sinew_weight_track_desc *td = &mb->tracks[count[slot_of[key->mValues[q]]]];
                double *tt = (double *)td->times, *vv = (double *)td->values;
                if (td->key_count && tt[td->key_count - 1] == key->mTime) { vv[td->key_count - 1] = key->mWeights[q]; continue; }
                tt[td->key_count] = key->mTime;
                vv[td->key_count] = key->mWeights[q];
                td->key_count++;
            }
        }
        mb->n_keys = base;
        a->stats.weight_channels++;
    }
out:
    snw_free(v->al, count); snw_free(v->al, used); snw_free(v->al, slot_of);
    return r;
}

/* Step 11c: the clip of animation ai (from the import's allocator). */
static sinew_result build_clip(conv *v, sinew_asset *a, uint32_t ai, int32_t *used)
{
    ctx *c = v->c;
    const struct aiAnimation *an = v->scene->mAnimations[ai];
    if (!an) return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ai, UINT32_MAX, "animation %u is NULL", ai);
    anim_names anm = { 0 };
    anm.index = ai;
    anm.anim = ai_str(&an->mName, &anm.anim_len);
    if (!isfinite(an->mDuration) || an->mDuration < 0 || !isfinite(an->mTicksPerSecond) || an->mTicksPerSecond < 0)
        return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ai, UINT32_MAX, "animation '%.*s': invalid duration %g or ticks per second %g",
                    (int)anm.anim_len, anm.anim, an->mDuration, an->mTicksPerSecond);
    if (an->mNumChannels && !an->mChannels)
        return fail_at(c, SINEW_ERROR_FORMAT, SINEW_ITEM_CLIP, ai, UINT32_MAX, "animation '%.*s' has a NULL channel list", (int)anm.anim_len, anm.anim);
    uint64_t nch = 0, keys = 0;
    sinew_result r = count_channels(v, a, an, &anm, used, &nch, &keys);
    if (r) return r;
    clip_build b = { 0 };
    morph_build mb = { 0 };
    b.chs = zalloc(v->al, nch, sizeof *b.chs);
    b.vk = zalloc(v->al, keys, sizeof *b.vk);
    b.qk = zalloc(v->al, keys, sizeof *b.qk);
    if (!b.chs || !b.vk || !b.qk) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; goto out; }
    uint32_t joints = sinew_skeleton_joint_count(a->skel);
    for (uint32_t j = 0; j < joints; j++) used[j] = 0;
    for (uint32_t k = 0; k < an->mNumChannels && !r; k++) {
        anim_names nm = anm;
        int32_t node = channel_node(v, an->mChannels[k], used, &nm);
        if (node >= 0) r = convert_channel(v, an->mChannels[k], (uint32_t)node, &nm, &b);
    }
    if (!r) r = morph_tracks(v, a, an, &mb);
    if (r) goto out;
    char name[MAXLEN + 1];
    memcpy(name, anm.anim, anm.anim_len);
    name[anm.anim_len] = 0;
    char label[MAXLEN + 3];
    snprintf(label, sizeof label, "'%s'", name);
    sinew_clip_desc cd = { 0 };
    cd.name = name;
    cd.duration = an->mDuration;
    cd.ticks_per_second = an->mTicksPerSecond;
    cd.channel_count = b.ci;
    cd.channels = b.chs;
    if (mb.n_tracks) {
        cd.weight_count = a->morph_count;
        cd.weight_track_count = mb.n_tracks;
        cd.weight_tracks = mb.tracks;
    }
    r = snw_builder_clip(&v->b, ai, &cd, label);
out:
    snw_free(v->al, b.chs); snw_free(v->al, b.vk); snw_free(v->al, b.qk);
    snw_free(v->al, mb.tracks); snw_free(v->al, mb.times); snw_free(v->al, mb.values);
    return r;
}

/* Step 11: one clip per aiAnimation. */
static sinew_result build_clips(conv *v, sinew_asset *a)
{
    ctx *c = v->c;
    const struct aiScene *s = v->scene;
    const sinew_asset_desc *d = c->desc;
    uint32_t max_clips = d && d->max_clips ? d->max_clips : SINEW_ASSET_DEFAULT_MAX_CLIPS;
    if (s->mNumAnimations == 0) return SINEW_OK;
    if (!s->mAnimations) return fail(c, SINEW_ERROR_FORMAT, "scene has a NULL animation list");
    sinew_result r = snw_builder_clips(&v->b, s->mNumAnimations, max_clips);
    if (r) return r;
    int32_t *used = zalloc(v->al, v->b.joints, sizeof *used);
    if (!used) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t ai = 0; ai < s->mNumAnimations && !r; ai++) r = build_clip(v, a, ai, used);
    snw_free(v->al, used);
    return r;
}

/* ---- the conversion, step by step ---------------------------------------- */

static sinew_result convert(ctx *c, const struct aiScene *s, const uint8_t *had_normals, sinew_asset *a)
{
    const sinew_asset_desc *d = c->desc;
    conv v;
    memset(&v, 0, sizeof v);
    v.c = c; v.al = &c->alloc; v.scene = s; v.had_normals = had_normals;
    v.max_vertices = d && d->max_vertices ? d->max_vertices : SINEW_ASSET_DEFAULT_MAX_VERTICES;
    v.max_indices = d && d->max_indices ? d->max_indices : SINEW_ASSET_DEFAULT_MAX_INDICES;
    v.max_joints = d && d->max_joints ? d->max_joints : SINEW_MAX_JOINTS;
    v.max_meshes = d && d->max_meshes ? d->max_meshes : SINEW_ASSET_DEFAULT_MAX_MESHES;
    v.max_nodes = d && d->max_nodes ? d->max_nodes : SINEW_ASSET_DEFAULT_MAX_NODES;
    v.max_keys = d && d->max_keys ? d->max_keys : SINEW_MAX_CLIP_KEYS;
    if (v.max_joints > SINEW_MAX_JOINTS) v.max_joints = SINEW_MAX_JOINTS;
    if (v.max_keys > SINEW_MAX_CLIP_KEYS) v.max_keys = SINEW_MAX_CLIP_KEYS;

    /* the steps, in order; each one's output feeds the next */
    static sinew_result (*const steps[])(conv *, sinew_asset *) = {
        walk_nodes,         /* 1a: scene graph, depth-first */
        index_nodes,        /* 1b: name table, rest globals */
        collect_mesh_refs,  /* 2: (node, mesh) references */
        validate_meshes,    /* 3: checks, counts, limits */
        bind_bones,         /* 4: bones -> nodes, bind candidates */
        count_weights,      /* 5: weights per vertex */
        number_joints,      /* 6a: joints */
        gather_influences,  /* 6b: influence lists */
        merge_influences,   /* 7: merged lists, histogram */
        alloc_outputs,      /* 8a: the asset's arrays */
        convert_meshes,     /* 8b, 8c: vertices, indices */
        convert_morphs,     /* 8d: blend shapes (aiMesh mAnimMeshes) */
        build_skeleton,     /* 9: the skeleton */
        pack,               /* 10: packed vertices */
        build_clips,        /* 11: clips */
    };
    sinew_result r = SINEW_OK;
    if (s->mNumMeshes == 0 || !s->mMeshes) r = fail(c, SINEW_ERROR_EMPTY, "the file holds no mesh");
    else if (s->mNumMeshes > v.max_meshes) r = fail(c, SINEW_ERROR_LIMIT_EXCEEDED, "%u meshes (limit %u)", s->mNumMeshes, v.max_meshes);
    /* progress: a load has done assimp's parse (the first half) by now */
    v.pbase = had_normals ? 0.5 : 0.0; /* had_normals: a load, not a caller's scene */
    v.nsteps = (uint32_t)(sizeof steps / sizeof steps[0]);
    for (v.step = 0; v.step < v.nsteps && !r; v.step++) {
        r = step_progress(&v, 0.0);
        if (!r) r = steps[v.step](&v, a);
    }
    conv_release(&v);
    return r;
}

/* ---- entry points (asset.c) --------------------------------------------- */

static sinew_result from_scene(ctx *c, const struct aiScene *scene, const uint8_t *had_normals, sinew_asset **out)
{
    sinew_asset *a = zalloc(&c->alloc, 1, sizeof *a);
    if (!a) return snw_asset_fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
    a->alloc = c->alloc;
    sinew_result r = convert(c, scene, had_normals, a);
    if (r) {
        sinew_asset_destroy(a);
        return r;
    }
    *out = a;
    return SINEW_OK;
}

/* Refused references win over assimp's own message: the error names the URI. */
static sinew_result refused_error(ctx *c, const snw_confine *cf)
{
    return fail(c, SINEW_ERROR_IO, "refused to open '%s': it %s (an import opens only regular files inside the model's folder)",
                cf->refused, cf->why);
}

sinew_result snw_assimp_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out)
{
    const sinew_asset_desc *desc = c->desc;
    sinew_result r;
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
    /* no fake "skeleton meshes" for skeleton-only files */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    unsigned int flags = aiProcess_Triangulate | aiProcess_ValidateDataStructure;
    snw_aiio io;
    memset(&io, 0, sizeof io);
    io.io.OpenProc = aiio_open;
    io.io.CloseProc = aiio_close;
    io.cf = cf;
    io.al = &c->alloc;
    /* files and memory alike go through the confined IO: a memory import is the
     * virtual file cf->mem_name */
    const struct aiScene *scene = aiImportFileExWithProperties(desc->path ? desc->path : cf->mem_name, flags, &io.io, props);
    if (cf->refused[0] || io.out_of_memory) {
        if (scene) aiReleaseImport(scene);
        aiReleasePropertyStore(props);
        if (io.out_of_memory) return fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
        return refused_error(c, cf);
    }
    if (!scene) {
        aiReleasePropertyStore(props);
        const char *e = aiGetErrorString();
        return fail(c, SINEW_ERROR_FORMAT, "assimp could not import %s: %s", desc->path ? desc->path : "the data",
                    e && *e ? e : "unknown error");
    }
    /* remember which meshes had normals, then generate the missing ones */
    uint8_t *had = zalloc(&c->alloc, scene->mNumMeshes, 1);
    if (!had) {
        aiReleaseImport(scene);
        aiReleasePropertyStore(props);
        return fail_at(c, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, UINT32_MAX, "out of memory");
    }
    for (uint32_t i = 0; i < scene->mNumMeshes; i++)
        had[i] = scene->mMeshes && scene->mMeshes[i] && scene->mMeshes[i]->mNormals != NULL;
    const struct aiScene *pp = aiApplyPostProcessing(scene, aiProcess_GenSmoothNormals);
    if (!pp) {
        const char *e = aiGetErrorString();
        r = fail(c, SINEW_ERROR_FORMAT, "assimp could not generate normals: %s", e && *e ? e : "unknown error");
        /* aiApplyPostProcessing releases the scene on failure */
    } else {
        if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) && scene->mNumMeshes == 0)
            r = fail(c, SINEW_ERROR_EMPTY, "the file holds no mesh (skeleton or animation only)");
        else
            r = from_scene(c, pp, had, out);
        aiReleaseImport(pp);
    }
    snw_free(&c->alloc, had);
    aiReleasePropertyStore(props);
    return r;
}

sinew_result snw_assimp_from_scene(snw_import_ctx *c, const struct aiScene *scene, sinew_asset **out)
{
    return from_scene(c, scene, NULL, out);
}
