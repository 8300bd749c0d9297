/* Sinew skeletons: validation, bind-pose derivation, bone segments and
 * forward kinematics. The only allocation is in sinew_skeleton_create. */
#include <sinew/linalg.h>
#include "alloc_internal.h"
#include "core_internal.h"
#include "fast_internal.h"
#include "sinew/skeleton.h"

#include <math.h>
#include <string.h>

struct sinew_skeleton {
    uint32_t count;
    int32_t *parents;
    sinew_mat4 *bind_global;  /* M_j^0 */
    sinew_mat4 *inverse_bind; /* (M_j^0)^-1 */
    sinew_mat4 *bind_local;   /* L_j */
    sinew_transform *rest;    /* rest pose, local TRS */
    sinew_vec3 *tail;         /* bone tails, model space, bind pose */
    uint32_t *name_offset;    /* into names */
    char *names;              /* NUL-terminated strings, "" for unnamed */
    uint8_t *scale_propagates;
    snw_fast_joint *fast;     /* float32 copy for the production path (fastpath.c) */
    sinew_allocator allocator; /* resolved at creation; frees the skeleton */
};

/* ---- allocation ---- */
static size_t align_up(size_t x) { return (x + 15u) & ~(size_t)15u; }

/* ---- helpers ---- */


/* Affine within 1e-6 in the last row; snapped to exactly (0, 0, 0, 1). */
static int make_affine(sinew_mat4 *m)
{
    for (int c = 0; c < 4; c++)
        if (fabs(m->m[c][3] - (c == 3 ? 1.0 : 0.0)) > 1e-6) return 0;
    m->m[0][3] = m->m[1][3] = m->m[2][3] = 0;
    m->m[3][3] = 1;
    return 1;
}

/* Local matrix -> TRS: scale = column lengths (all three negated when the 3x3
 * is mirrored, det < 0), rotation = the proper rotation nearest to the
 * 3x3 with its columns divided by those scales (polar decomposition), and the
 * translation column. Exact for every matrix of the form T R S (mirrors
 * included); for a sheared matrix the shear is dropped. */
static sinew_transform matrix_to_trs(const sinew_mat4 *m)
{
    sinew_transform t;
    t.translation = sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]);
    sinew_mat3 a = sinew_mat4_upper3(m);
    double s[3];
    for (int c = 0; c < 3; c++) s[c] = sqrt(a.m[c][0] * a.m[c][0] + a.m[c][1] * a.m[c][1] + a.m[c][2] * a.m[c][2]);
    if (sinew_mat3_det(&a) < 0)
        for (int c = 0; c < 3; c++) s[c] = -s[c];
    sinew_mat3 n = a;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) n.m[c][r] = s[c] != 0 ? a.m[c][r] / s[c] : (c == r ? 1.0 : 0.0);
    sinew_mat3 rot, sym;
    if (sinew_polar_decompose(&n, &rot, &sym) != SINEW_OK) rot = sinew_mat3_identity();
    t.rotation = sinew_quat_from_mat3(&rot);
    t.scale = sinew_v3(s[0], s[1], s[2]);
    return t;
}

/* ---- creation ---- */

/* The checks made before any allocation (all but the allocator): counts, bind
 * sources, parent ranges and finite inputs. */
static sinew_result check_skeleton_desc(const sinew_skeleton_desc *desc)
{
    const uint32_t n = desc->joint_count;
    if (n == 0) return SINEW_ERROR_EMPTY;
    if (n > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;
    /* exactly one bind source; rest_local may accompany either matrix source */
    if (desc->bind_global && desc->inverse_bind) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!desc->bind_global && !desc->inverse_bind && !desc->rest_local) return SINEW_ERROR_INVALID_ARGUMENT;

    const int32_t *par = desc->parents;
    for (uint32_t j = 0; j < n; j++)
        if (par[j] < -1 || par[j] >= (int64_t)n) return SINEW_ERROR_PARENT_OUT_OF_RANGE;

    for (uint32_t j = 0; j < n; j++) {
        if (desc->bind_global && !sinew_mat4_is_finite(&desc->bind_global[j])) return SINEW_ERROR_NON_FINITE;
        if (desc->inverse_bind && !sinew_mat4_is_finite(&desc->inverse_bind[j])) return SINEW_ERROR_NON_FINITE;
        if (desc->rest_local && !transform_is_finite(&desc->rest_local[j])) return SINEW_ERROR_NON_FINITE;
        if (desc->bone_tail && !(isfinite(desc->bone_tail[j].x) && isfinite(desc->bone_tail[j].y) &&
                                 isfinite(desc->bone_tail[j].z)))
            return SINEW_ERROR_NON_FINITE;
    }
    return SINEW_OK;
}

/* Allocates the skeleton and all its arrays as one block (zeroed header). */
static sinew_skeleton *skeleton_alloc(const sinew_allocator *al, const sinew_skeleton_desc *desc)
{
    const uint32_t n = desc->joint_count;
    size_t name_bytes = 0;
    for (uint32_t j = 0; j < n; j++) {
        const char *nm = desc->names ? desc->names[j] : NULL;
        name_bytes += (nm ? strlen(nm) : 0) + 1;
    }
    size_t off = align_up(sizeof(sinew_skeleton));
    const size_t o_bg = off; off = align_up(off + n * sizeof(sinew_mat4));
    const size_t o_ib = off; off = align_up(off + n * sizeof(sinew_mat4));
    const size_t o_bl = off; off = align_up(off + n * sizeof(sinew_mat4));
    const size_t o_rest = off; off = align_up(off + n * sizeof(sinew_transform));
    const size_t o_tail = off; off = align_up(off + n * sizeof(sinew_vec3));
    const size_t o_par = off; off = align_up(off + n * sizeof(int32_t));
    const size_t o_noff = off; off = align_up(off + n * sizeof(uint32_t));
    const size_t o_sp = off; off = align_up(off + n);
    const size_t o_names = off; off = align_up(off + name_bytes);
    const size_t o_fast = off; off = align_up(off + n * sizeof(snw_fast_joint));
    unsigned char *mem = snw_alloc(al, off);
    if (!mem) return NULL;
    memset(mem, 0, sizeof(sinew_skeleton));
    sinew_skeleton *s = (sinew_skeleton *)mem;
    s->count = n;
    s->bind_global = (sinew_mat4 *)(mem + o_bg);
    s->inverse_bind = (sinew_mat4 *)(mem + o_ib);
    s->bind_local = (sinew_mat4 *)(mem + o_bl);
    s->rest = (sinew_transform *)(mem + o_rest);
    s->tail = (sinew_vec3 *)(mem + o_tail);
    s->parents = (int32_t *)(mem + o_par);
    s->name_offset = (uint32_t *)(mem + o_noff);
    s->scale_propagates = mem + o_sp;
    s->names = (char *)(mem + o_names);
    s->fast = (snw_fast_joint *)(mem + o_fast);
    s->allocator = *al;
    return s;
}

/* Cycles, in O(n): walk up from each joint marking the path (1 = on the
 * current path, 2 = known to reach a root); meeting a 1 is a cycle. A
 * self-parent is a cycle. Checked before the order, so a cycle is reported as
 * such rather than as a parent listed after its child. mark: n bytes of scratch. */
static sinew_result check_topology(const int32_t *par, uint32_t n, uint8_t *mark)
{
    memset(mark, 0, n);
    for (uint32_t j = 0; j < n; j++) {
        int32_t k = (int32_t)j;
        while (k >= 0 && mark[k] == 0) { mark[k] = 1; k = par[k]; }
        if (k >= 0 && mark[k] == 1) return SINEW_ERROR_CYCLE;
        for (k = (int32_t)j; k >= 0 && mark[k] == 1; k = par[k]) mark[k] = 2;
    }
    for (uint32_t j = 0; j < n; j++)
        if (par[j] >= (int32_t)j) return SINEW_ERROR_PARENT_ORDER;
    return SINEW_OK;
}

/* Bind pose: M_j^0, its inverse and L_j from whichever source the desc gives. */
static sinew_result derive_bind_pose(sinew_skeleton *s, const sinew_skeleton_desc *desc)
{
    const int32_t *par = s->parents;
    sinew_result res = SINEW_OK;
    for (uint32_t j = 0; j < s->count && res == SINEW_OK; j++) {
        const int32_t p = par[j];
        if (desc->bind_global) {
            s->bind_global[j] = desc->bind_global[j];
            if (!make_affine(&s->bind_global[j])) res = SINEW_ERROR_INVALID_ARGUMENT;
            else if (sinew_mat4_inverse(&s->bind_global[j], &s->inverse_bind[j]) != SINEW_OK) res = SINEW_ERROR_SINGULAR;
            else make_affine(&s->inverse_bind[j]);
        } else if (desc->inverse_bind) {
            s->inverse_bind[j] = desc->inverse_bind[j];
            if (!make_affine(&s->inverse_bind[j])) res = SINEW_ERROR_INVALID_ARGUMENT;
            else if (sinew_mat4_inverse(&s->inverse_bind[j], &s->bind_global[j]) != SINEW_OK) res = SINEW_ERROR_SINGULAR;
            else make_affine(&s->bind_global[j]);
        } else {
            s->bind_local[j] = local_matrix(&desc->rest_local[j]);
            s->bind_global[j] = p < 0 ? s->bind_local[j] : sinew_mat4_mul(&s->bind_global[p], &s->bind_local[j]);
            if (!sinew_mat4_is_finite(&s->bind_global[j])) res = SINEW_ERROR_NON_FINITE;
            else if (sinew_mat4_inverse(&s->bind_global[j], &s->inverse_bind[j]) != SINEW_OK) res = SINEW_ERROR_SINGULAR;
            else make_affine(&s->inverse_bind[j]);
        }
        if (res == SINEW_OK && desc->bind_global == NULL && desc->inverse_bind == NULL) continue;
        if (res == SINEW_OK)
            s->bind_local[j] = p < 0 ? s->bind_global[j] : sinew_mat4_mul(&s->inverse_bind[p], &s->bind_global[j]);
    }
    return res;
}

/* Bone tails: given, else the mean of the children's bind positions (a leaf's
 * tail is its own position). Uses name_offset as scratch (filled afterwards). */
static void derive_tails(sinew_skeleton *s, const sinew_skeleton_desc *desc)
{
    const uint32_t n = s->count;
    if (desc->bone_tail) {
        memcpy(s->tail, desc->bone_tail, n * sizeof(sinew_vec3));
        return;
    }
    uint32_t *nchild = s->name_offset; /* scratch: child counts */
    memset(nchild, 0, n * sizeof(uint32_t));
    for (uint32_t j = 0; j < n; j++) s->tail[j] = sinew_v3(0, 0, 0);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = s->parents[j];
        if (p < 0) continue;
        const sinew_mat4 *m = &s->bind_global[j];
        s->tail[p] = sinew_v3_add(s->tail[p], sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]));
        nchild[p]++;
    }
    for (uint32_t j = 0; j < n; j++) {
        const sinew_mat4 *m = &s->bind_global[j];
        if (nchild[j] == 0) s->tail[j] = sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]);
        else s->tail[j] = sinew_v3_scale(s->tail[j], 1.0 / (double)nchild[j]);
    }
}

/* Names and scale-propagation flags. */
static void copy_names_and_flags(sinew_skeleton *s, const sinew_skeleton_desc *desc)
{
    size_t pos = 0;
    for (uint32_t j = 0; j < s->count; j++) {
        const char *nm = desc->names ? desc->names[j] : NULL;
        size_t len = nm ? strlen(nm) : 0;
        s->name_offset[j] = (uint32_t)pos;
        if (len) memcpy(s->names + pos, nm, len);
        s->names[pos + len] = '\0';
        pos += len + 1;
    }
    /* read as bytes: a caller's "bool" array filled from other integers (any
     * non-zero byte = true) must not be a bool load of an invalid value */
    const unsigned char *sp = (const unsigned char *)desc->scale_propagates;
    for (uint32_t j = 0; j < s->count; j++)
        s->scale_propagates[j] = sp ? (sp[j] != 0) : 1;
}

sinew_result sinew_skeleton_create(const sinew_skeleton_desc *desc, sinew_skeleton **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc || !desc->parents) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_allocator al;
    if (snw_allocator_resolve(desc->allocator, &al) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_result res = check_skeleton_desc(desc);
    if (res) return res;

    sinew_skeleton *s = skeleton_alloc(&al, desc);
    if (!s) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    /* scale_propagates is scratch for the topology check until filled below */
    res = check_topology(desc->parents, s->count, s->scale_propagates);
    if (res == SINEW_OK) {
        memcpy(s->parents, desc->parents, s->count * sizeof(int32_t));
        res = derive_bind_pose(s, desc);
    }
    if (res != SINEW_OK) { snw_free(&al, s); return res; }

    /* Rest pose: given, else decomposed from the bind-local matrices. */
    for (uint32_t j = 0; j < s->count; j++)
        s->rest[j] = desc->rest_local ? desc->rest_local[j] : matrix_to_trs(&s->bind_local[j]);
    derive_tails(s, desc);
    copy_names_and_flags(s, desc);
    snw_fast_joints_init(s, s->fast);
    *out = s;
    return SINEW_OK;
}

void sinew_skeleton_destroy(sinew_skeleton *s)
{
    if (!s) return;
    sinew_allocator a = s->allocator; /* copied out: it lives in the block being freed */
    snw_free(&a, s);
}

/* ---- queries ---- */
const snw_fast_joint *snw_skeleton_fast(const sinew_skeleton *s) { return s->fast; }

uint32_t sinew_skeleton_joint_count(const sinew_skeleton *s) { return s ? s->count : 0; }

int32_t sinew_skeleton_parent(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? s->parents[j] : -1;
}

const char *sinew_skeleton_name(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? s->names + s->name_offset[j] : "";
}

int32_t sinew_skeleton_find(const sinew_skeleton *s, const char *name)
{
    if (!s || !name || !*name) return -1;
    for (uint32_t j = 0; j < s->count; j++)
        if (strcmp(s->names + s->name_offset[j], name) == 0) return (int32_t)j;
    return -1;
}

const sinew_mat4 *sinew_skeleton_bind_global(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? &s->bind_global[j] : NULL;
}

const sinew_mat4 *sinew_skeleton_inverse_bind(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? &s->inverse_bind[j] : NULL;
}

const sinew_mat4 *sinew_skeleton_bind_local(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? &s->bind_local[j] : NULL;
}

const sinew_transform *sinew_skeleton_rest_pose(const sinew_skeleton *s) { return s ? s->rest : NULL; }

bool sinew_skeleton_scale_propagates(const sinew_skeleton *s, uint32_t j)
{
    return (s && j < s->count) ? s->scale_propagates[j] : 1;
}

void sinew_skeleton_bone_segment(const sinew_skeleton *s, uint32_t j, sinew_vec3 *head, sinew_vec3 *tail)
{
    sinew_vec3 h = sinew_v3(0, 0, 0), t = h;
    if (s && j < s->count) {
        const sinew_mat4 *m = &s->bind_global[j];
        h = sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]);
        t = s->tail[j];
    }
    if (head) *head = h;
    if (tail) *tail = t;
}

/* ---- forward kinematics ---- */
sinew_result sinew_skeleton_fk(const sinew_skeleton *s, const sinew_transform *local,
                               const sinew_mat4 *root, sinew_mat4 *global_out)
{
    if (!s || !local || !global_out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (root && !sinew_mat4_is_finite(root)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t j = 0; j < s->count; j++)
        if (!transform_is_finite(&local[j])) return SINEW_ERROR_NON_FINITE;
    for (uint32_t j = 0; j < s->count; j++) {
        sinew_mat4 l = local_matrix(&local[j]);
        int32_t p = s->parents[j];
        if (p >= 0) global_out[j] = sinew_mat4_mul(&global_out[p], &l);
        else if (root) global_out[j] = sinew_mat4_mul(root, &l);
        else global_out[j] = l;
        if (!sinew_mat4_is_finite(&global_out[j])) return SINEW_ERROR_NON_FINITE; /* overflow */
    }
    return SINEW_OK;
}
