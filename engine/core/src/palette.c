/* Sinew palettes: per-joint skinning transforms for every method, in float64,
 * and their float32 GPU packing. No allocation.
 *
 * DQS with scale (methods DQS_SCALE, DQS_SCALE_LOCAL, DQS_SCALE_MIXED; the CoR
 * methods with scale COR_SCALE, COR_SCALE_LOCAL, COR_SCALE_MIXED build the same).
 * For joint j in order, p its parent, B_j its bind matrix, c_j = t(B_j):
 *   L_j     = bind local matrix;  Local_j = the pose's T R S;
 *   U_j     = L_j^-1 Local_j ("user local", relative to the bind pose);
 *   polar of U_j's 3x3 = Ur3 Us3;  Ur_j = [Ur3 | t(U_j)],  Us_j = [Us3 | 0];
 *   prop(k) = 1 for every joint under DQS_SCALE and COR_SCALE (global), 0 under
 *             the _LOCAL ones, sinew_skeleton_scale_propagates(k) under the _MIXED ones;
 *   Lc_j    = L_j if j is a root or prop(p), else L_j with its translation
 *             replaced by Us3_p t(L_j) (the parent's compensated scale moves
 *             the child's offset; Kavan's Ls_j);
 * posed frames (H above a root = *root or identity):
 *   G_j = H_p Lc_j Ur_j Us_j   (= H_p Local_j when Lc_j = L_j);
 *   H_j = G_j if prop(j), else H_p Lc_j Ur_j   (what children hang from);
 * scaled-rest frames (rotations and pose translations dropped, identity above roots):
 *   Gs_j = Hs_p Lc_j Us_j;  Hs_j = Gs_j if prop(j), else Hs_p Lc_j;
 * the split of X_j = G_j B_j^-1 into scale then rigid stage:
 *   polar of X_j's 3x3 = Q P;  a_j = t(Gs_j);
 *   S_j = [P | a_j - P c_j];   R_j = [Q | t(X_j) - Q (a_j - P c_j)];
 * so R_j S_j = X_j exactly (no inversion of S, fine for a zero scale), S_j maps
 * the bind position c_j to the scaled-rest position a_j, and R_j is rigid.
 * In global mode G_j is ordinary forward kinematics, so X_j = T_j. In local mode
 * with rigid bind matrices this is Kavan's construction: S_j = Ws_j B_j^-1 and
 * R_j = Wr_j (Ws_j Us_j^-1)^-1 with Ws_j = Gs_j, Wr_j = H_j. */
#include <sinew/linalg.h>
#include "core_internal.h"
#include "sinew/palette.h"
/* The GPU layout's one source (also read by the kernels); core has no shader include path. */
#include "sinew_layout.h" /* shaders/: the GPU layout shared with GLSL */

#include <float.h>
#include <math.h>
#include <string.h>

_Static_assert(SINEW_K_LBS == (unsigned)SINEW_METHOD_LBS && SINEW_K_DQS == (unsigned)SINEW_METHOD_DQS &&
                   SINEW_K_DQS_SCALE == (unsigned)SINEW_METHOD_DQS_SCALE &&
                   SINEW_K_DQS_SCALE_LOCAL == (unsigned)SINEW_METHOD_DQS_SCALE_LOCAL &&
                   SINEW_K_DQS_SCALE_MIXED == (unsigned)SINEW_METHOD_DQS_SCALE_MIXED &&
                   SINEW_K_COR == (unsigned)SINEW_METHOD_COR && SINEW_K_COR_SCALE == (unsigned)SINEW_METHOD_COR_SCALE &&
                   SINEW_K_COR_SCALE_LOCAL == (unsigned)SINEW_METHOD_COR_SCALE_LOCAL &&
                   SINEW_K_COR_SCALE_MIXED == (unsigned)SINEW_METHOD_COR_SCALE_MIXED &&
                   SINEW_K_COR_SCALE_MIXED + 1u == (unsigned)SINEW_METHOD_COUNT,
               "kernel method values (sinew_layout.h) equal sinew_method");
_Static_assert(SINEW_K_FLAG_BULGE == (unsigned)SINEW_SKIN_BULGE_CORRECTION, "kernel bulge flag");

size_t sinew_palette_scratch_count(uint32_t joint_count) { return (size_t)joint_count * 3u; }



static sinew_vec3 translation_of(const sinew_mat4 *m) { return sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]); }

static void set_translation(sinew_mat4 *m, sinew_vec3 t) { m->m[3][0] = t.x; m->m[3][1] = t.y; m->m[3][2] = t.z; }

static void set_segment(const sinew_skeleton *skel, uint32_t j, sinew_palette_joint *o)
{
    sinew_vec3 h, t;
    sinew_skeleton_bone_segment(skel, j, &h, &t);
    o->seg_head = sinew_mat4_transform_point(&o->skin, h);
    o->seg_tail = sinew_mat4_transform_point(&o->skin, t);
}

/* LBS / DQS entry from the posed model matrix M_j. */
static sinew_result entry_from_global(const sinew_skeleton *skel, sinew_method method, uint32_t j,
                                      const sinew_mat4 *m, sinew_palette_joint *o)
{
    o->skin = sinew_mat4_mul(m, sinew_skeleton_inverse_bind(skel, j));
    if (!sinew_mat4_is_finite(&o->skin)) return SINEW_ERROR_NON_FINITE;
    o->scale = sinew_mat4_identity();
    if (method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR) {
        sinew_mat3 r = sinew_mat4_upper3(&o->skin);
        if (!(sinew_mat3_orthonormality_error(&r) <= 1e-4) || sinew_mat3_det(&r) < 0) return SINEW_ERROR_NOT_RIGID;
        /* a near-rigid skin matrix (within the 1e-4 tolerance) gives its polar
         * rotation, the one the scale methods use, not Shepperd's of the raw 3x3 */
        sinew_mat3 q, p;
        if (sinew_polar_decompose(&r, &q, &p) != SINEW_OK) return SINEW_ERROR_NON_FINITE;
        o->rigid = sinew_dq_from_rigid(sinew_quat_from_mat3(&q), translation_of(&o->skin));
    } else {
        o->rigid = sinew_dq_identity();
    }
    set_segment(skel, j, o);
    return SINEW_OK;
}

/* DQS-with-scale entry from X_j and the scaled-rest frame Gs_j. */
static sinew_result entry_scaled(const sinew_skeleton *skel, uint32_t j, const sinew_mat4 *g,
                                 const sinew_mat4 *gs, sinew_palette_joint *o)
{
    o->skin = sinew_mat4_mul(g, sinew_skeleton_inverse_bind(skel, j));
    if (!sinew_mat4_is_finite(&o->skin) || !sinew_mat4_is_finite(gs)) return SINEW_ERROR_NON_FINITE;
    sinew_mat3 x3 = sinew_mat4_upper3(&o->skin), q, p;
    if (sinew_polar_decompose(&x3, &q, &p) != SINEW_OK) return SINEW_ERROR_NON_FINITE;
    sinew_vec3 c = translation_of(sinew_skeleton_bind_global(skel, j));
    sinew_vec3 a = translation_of(gs);
    sinew_vec3 st = sinew_v3_sub(a, sinew_mat3_mul_v3(&p, c));             /* a_j - P c_j */
    sinew_vec3 rt = sinew_v3_sub(translation_of(&o->skin), sinew_mat3_mul_v3(&q, st));
    o->scale = sinew_mat4_from_mat3(&p, st);
    sinew_mat4 r = sinew_mat4_from_mat3(&q, rt);
    o->rigid = sinew_dq_from_mat4(&r);
    set_segment(skel, j, o);
    if (!sinew_mat4_is_finite(&o->scale) || !sinew_mat4_is_finite(&r)) return SINEW_ERROR_NON_FINITE;
    return SINEW_OK;
}

static int prop_of(const sinew_skeleton *skel, sinew_method method, uint32_t k)
{
    if (method == SINEW_METHOD_DQS_SCALE || method == SINEW_METHOD_COR_SCALE) return 1;
    if (method == SINEW_METHOD_DQS_SCALE_LOCAL || method == SINEW_METHOD_COR_SCALE_LOCAL) return 0;
    return sinew_skeleton_scale_propagates(skel, k);
}

sinew_result sinew_palette_build(const sinew_skeleton *skel, sinew_method method,
                                 const sinew_transform *local, const sinew_mat4 *root,
                                 sinew_mat4 *scratch, sinew_palette_joint *out)
{
    if (!skel || !local || !scratch || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((unsigned)method >= (unsigned)SINEW_METHOD_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
    const uint32_t n = sinew_skeleton_joint_count(skel);
    if (root && !sinew_mat4_is_finite(root)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t j = 0; j < n; j++)
        if (!transform_is_finite(&local[j])) return SINEW_ERROR_NON_FINITE;

    if (method == SINEW_METHOD_LBS || method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR) {
        sinew_result r = sinew_skeleton_fk(skel, local, root, scratch);
        if (r != SINEW_OK) return r;
        for (uint32_t j = 0; j < n; j++) {
            r = entry_from_global(skel, method, j, &scratch[j], &out[j]);
            if (r != SINEW_OK) return r;
        }
        return SINEW_OK;
    }

    sinew_mat4 *H = scratch, *Hs = scratch + n, *Us = scratch + 2 * (size_t)n;
    const sinew_mat4 ident = sinew_mat4_identity();
    for (uint32_t j = 0; j < n; j++) {
        const int32_t p = sinew_skeleton_parent(skel, j);
        const sinew_mat4 *L = sinew_skeleton_bind_local(skel, j);
        const sinew_mat4 local_m = local_matrix(&local[j]);
        /* L_j^-1 = B_j^-1 B_p (no inversion) */
        sinew_mat4 linv = p < 0 ? *sinew_skeleton_inverse_bind(skel, j)
                                : sinew_mat4_mul(sinew_skeleton_inverse_bind(skel, j), sinew_skeleton_bind_global(skel, (uint32_t)p));
        sinew_mat4 u = sinew_mat4_mul(&linv, &local_m);
        sinew_mat3 u3 = sinew_mat4_upper3(&u), ur3, us3;
        if (sinew_polar_decompose(&u3, &ur3, &us3) != SINEW_OK) return SINEW_ERROR_NON_FINITE;
        Us[j] = sinew_mat4_from_mat3(&us3, sinew_v3(0, 0, 0));
        sinew_mat4 ur = sinew_mat4_from_mat3(&ur3, translation_of(&u));

        const int compensated = p >= 0 && !prop_of(skel, method, (uint32_t)p);
        sinew_mat4 lc = *L;
        if (compensated) {
            sinew_mat3 ps = sinew_mat4_upper3(&Us[p]);
            set_translation(&lc, sinew_mat3_mul_v3(&ps, translation_of(L)));
        }
        const sinew_mat4 *hp = p >= 0 ? &H[p] : (root ? root : &ident);
        const sinew_mat4 *hsp = p >= 0 ? &Hs[p] : &ident;
        const int pj = prop_of(skel, method, j);

        /* posed frame G_j and the frame children hang from */
        sinew_mat4 g;
        sinew_mat4 hlc = sinew_mat4_mul(hp, &lc);
        if (!compensated) g = sinew_mat4_mul(hp, &local_m);
        else g = sinew_mat4_mul(&hlc, &u); /* Lc Ur Us = Lc U */
        if (pj) H[j] = g;
        else H[j] = sinew_mat4_mul(&hlc, &ur);

        /* scaled-rest frame */
        sinew_mat4 hslc = sinew_mat4_mul(hsp, &lc);
        sinew_mat4 gs = sinew_mat4_mul(&hslc, &Us[j]);
        Hs[j] = pj ? gs : hslc;

        sinew_result r = entry_scaled(skel, j, &g, &gs, &out[j]);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

sinew_result sinew_palette_build_from_globals(const sinew_skeleton *skel, sinew_method method,
                                              const sinew_mat4 *global, sinew_palette_joint *out)
{
    if (!skel || !global || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (method != SINEW_METHOD_LBS && method != SINEW_METHOD_DQS && method != SINEW_METHOD_DQS_SCALE &&
        method != SINEW_METHOD_COR && method != SINEW_METHOD_COR_SCALE)
        return SINEW_ERROR_INVALID_ARGUMENT;
    const uint32_t n = sinew_skeleton_joint_count(skel);
    for (uint32_t j = 0; j < n; j++)
        if (!sinew_mat4_is_finite(&global[j])) return SINEW_ERROR_NON_FINITE;
    if (method != SINEW_METHOD_DQS_SCALE && method != SINEW_METHOD_COR_SCALE) {
        for (uint32_t j = 0; j < n; j++) {
            sinew_result r = entry_from_global(skel, method, j, &global[j], &out[j]);
            if (r != SINEW_OK) return r;
        }
        return SINEW_OK;
    }
    /* Global scale mode. Pass 1: scaled-rest frames Gs_j = Gs_p L_j Us_j, kept
     * in out[j].scale, with Us_j the symmetric polar factor of
     * L_j^-1 M_p^-1 M_j (roots: L_j^-1 M_j); a rigid model-to-world placement
     * baked into the root joints does not change it. Pass 2: the entries. */
    for (uint32_t j = 0; j < n; j++) {
        const int32_t p = sinew_skeleton_parent(skel, j);
        sinew_mat4 linv = p < 0 ? *sinew_skeleton_inverse_bind(skel, j)
                                : sinew_mat4_mul(sinew_skeleton_inverse_bind(skel, j), sinew_skeleton_bind_global(skel, (uint32_t)p));
        sinew_mat4 local_m = global[j];
        if (p >= 0) {
            sinew_mat4 mpinv;
            if (sinew_mat4_inverse(&global[p], &mpinv) != SINEW_OK) return SINEW_ERROR_SINGULAR;
            local_m = sinew_mat4_mul(&mpinv, &global[j]);
        }
        sinew_mat4 u = sinew_mat4_mul(&linv, &local_m);
        sinew_mat3 u3 = sinew_mat4_upper3(&u), ur3, us3;
        if (sinew_polar_decompose(&u3, &ur3, &us3) != SINEW_OK) return SINEW_ERROR_NON_FINITE;
        sinew_mat4 us = sinew_mat4_from_mat3(&us3, sinew_v3(0, 0, 0));
        sinew_mat4 hslc = p >= 0 ? sinew_mat4_mul(&out[p].scale, sinew_skeleton_bind_local(skel, j))
                                 : *sinew_skeleton_bind_local(skel, j);
        out[j].scale = sinew_mat4_mul(&hslc, &us);
    }
    for (uint32_t j = 0; j < n; j++) {
        sinew_mat4 gs = out[j].scale;
        sinew_result r = entry_scaled(skel, j, &global[j], &gs, &out[j]);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

uint32_t sinew_palette_gpu_stride(sinew_method method, uint32_t flags)
{
    if (!SINEW_PAL_IS_METHOD((unsigned)method)) return 0;
    return SINEW_PAL_STRIDE((unsigned)method, flags);
}

/* Writes one vec4 slot; 0 if a value does not fit in float32. */
static int put4(float *d, double x, double y, double z, double w)
{
    d[0] = (float)x; d[1] = (float)y; d[2] = (float)z; d[3] = (float)w;
    return fabs(x) <= FLT_MAX && fabs(y) <= FLT_MAX && fabs(z) <= FLT_MAX && fabs(w) <= FLT_MAX;
}

static int put_rows(float *d, const sinew_mat4 *m)
{
    int ok = 1;
    for (unsigned r = 0; r < SINEW_PAL_AFFINE_ROWS; r++)
        ok &= put4(d + 4 * r, m->m[0][r], m->m[1][r], m->m[2][r], m->m[3][r]);
    return ok;
}

static int put_dq(float *d, const sinew_dualquat *q)
{
    return put4(d, q->real.x, q->real.y, q->real.z, q->real.w) &
           put4(d + 4, q->dual.x, q->dual.y, q->dual.z, q->dual.w);
}

/* x mapped back to rest space by the inverse of the joint's X as the GPU palette holds it:
 * the rigid part (the conjugate rotation of the unit dual quaternion after removing
 * its translation; all methods but LBS), then the affine part (LBS: the skin matrix;
 * the scale methods: S; the 3x3 inverted as cof^T / det). 0 when that 3x3 has det 0
 * or a non-finite det (the kernels then use g = 0, as reference.c's rest_radial). */
static int rest_of(const sinew_palette_joint *e, unsigned m, sinew_vec3 x, sinew_vec3 *out)
{
    if (m != SINEW_K_LBS) {
        sinew_vec3 t = sinew_dq_translation(e->rigid);
        x = sinew_quat_rotate(sinew_quat_conjugate(e->rigid.real), sinew_v3_sub(x, t));
        if (m == SINEW_K_DQS || m == SINEW_K_COR) { *out = x; return 1; }
    }
    const sinew_mat4 *a = m == SINEW_K_LBS ? &e->skin : &e->scale;
    sinew_mat3 a3 = sinew_mat4_upper3(a), cof = sinew_mat3_cofactor(&a3);
    /* det = column 0 . cofactor column 0, as the reference forms it */
    double det = a3.m[0][0] * cof.m[0][0] + a3.m[0][1] * cof.m[0][1] + a3.m[0][2] * cof.m[0][2];
    if (!(fabs(det) > 0.0) || !isfinite(det)) return 0;
    sinew_mat3 inv_t = sinew_mat3_transpose(&cof);
    sinew_vec3 y = sinew_mat3_mul_v3(&inv_t, sinew_v3_sub(x, translation_of(a)));
    *out = sinew_v3(y.x / det, y.y / det, y.z / det);
    return 1;
}

/* The bulge slots of one joint (sinew_layout.h): the posed segment a, b and the rest-space
 * one ra, rb (rest_of of the posed one) as (a, ra.x), (b, ra.y), (ra.z, rb); ra = rb =
 * SINEW_PAL_BULGE_SINGULAR when it cannot be formed: a singular 3x3, or a coordinate
 * beyond float32 (a near-singular X). */
static int put_bulge(float *b, const sinew_palette_joint *e, unsigned m)
{
    sinew_vec3 ra, rb;
    const double lim = SINEW_PAL_BULGE_SINGULAR;
    int fits = rest_of(e, m, e->seg_head, &ra) && rest_of(e, m, e->seg_tail, &rb) && fabs(ra.x) < lim &&
               fabs(ra.y) < lim && fabs(ra.z) < lim && fabs(rb.x) < lim && fabs(rb.y) < lim && fabs(rb.z) < lim;
    if (!fits) ra = rb = sinew_v3(lim, lim, lim);
    int ok = put4(b, e->seg_head.x, e->seg_head.y, e->seg_head.z, ra.x);
    ok &= put4(b + 4, e->seg_tail.x, e->seg_tail.y, e->seg_tail.z, ra.y);
    ok &= put4(b + 8, ra.z, rb.x, rb.y, rb.z);
    return ok;
}

sinew_result sinew_palette_pack(sinew_method method, uint32_t flags, const sinew_palette_joint *src,
                                uint32_t joint_count, float *dst)
{
    const uint32_t stride = sinew_palette_gpu_stride(method, flags);
    if (!src || !dst || stride == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    const unsigned m = (unsigned)method;
    int ok = 1;
    for (uint32_t j = 0; j < joint_count; j++) {
        const sinew_palette_joint *e = &src[j];
        float *d = dst + (size_t)j * stride * 4u;
        if (m == SINEW_K_LBS) {
            ok &= put_rows(d + 4u * SINEW_PAL_OFF_AFFINE, &e->skin);
        } else {
            if (m != SINEW_K_DQS && m != SINEW_K_COR) ok &= put_rows(d + 4u * SINEW_PAL_OFF_AFFINE, &e->scale);
            ok &= put_dq(d + 4u * SINEW_PAL_OFF_DQ(m), &e->rigid);
        }
        if (flags & SINEW_K_FLAG_BULGE) ok &= put_bulge(d + 4u * SINEW_PAL_OFF_BULGE(m), e, m);
        if (stride != SINEW_PAL_USED_SLOTS(m, flags)) memset(d + 4u * (stride - 1u), 0, 16u); /* pad slot */
    }
    return ok ? SINEW_OK : SINEW_ERROR_NON_FINITE;
}
