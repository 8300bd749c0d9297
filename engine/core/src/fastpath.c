/* Sinew production palette path in float32 (palette_job.h): FK, skinning
 * transforms, dual quaternions, scale split and packing, per character, with
 * the same formulas as palette.c (see its header comment for DQS with scale).
 *
 * Layout: one character at a time, joints in order (FK needs the parent
 * first); a 3x4 affine matrix is three 16-byte rows, the GPU's palette rows,
 * so a product is 9 broadcast multiply-adds (SSE) and LBS packs by three
 * stores. cglm is not used: its affine routines work on column-major 4x4
 * matrices (glm_mul), which would need a transpose per joint for the
 * row-major GPU layout, and it has no polar decomposition or 3x4 row type. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <sinew/linalg.h>
#include "core_internal.h"
#include "fast_internal.h"
#include "blend_internal.h"
#include "sinew/palette_job.h"
#include "sinew_layout.h" /* shaders/: SINEW_PAL_* */

#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define SNW_SSE 1
#else
#define SNW_SSE 0
#endif
/* AVX (no FMA) beside SSE for the products along the chain, where GCC can
 * target it per function and the CPU says so at run time: the same IEEE
 * multiplies and adds in the same order per lane, so the same bits as SSE
 * (a build with -DSNW_FAST_NO_AVX keeps SSE only, for comparisons) */
#if SNW_SSE && defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(SNW_FAST_NO_AVX)
#include <immintrin.h>
#define SNW_FAST_AVX 1
#else
#define SNW_FAST_AVX 0
#endif

_Static_assert(sizeof(snw_fast_joint) % 16 == 0, "fast joint table keeps 16-byte alignment");
_Static_assert(sizeof(snw_faff) == 48 && sizeof(snw_ftrs) == 48, "float32 layouts");

/* ---- float32 helpers ---- */

/* max without libm's NaN handling (a call without -ffinite-math-only) */
static inline float maxf(float a, float b) { return a > b ? a : b; }

static void aff_identity(snw_faff *m)
{
    memset(m, 0, sizeof *m);
    m->r[0][0] = m->r[1][1] = m->r[2][2] = 1;
}

/* double mat4 (m[col][row]) -> rows */
static void aff_from_mat4(const sinew_mat4 *m, snw_faff *o)
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) o->r[r][c] = (float)m->m[c][r];
}

/* c = a b (affine); c must not alias a or b. */
static inline void aff_mul(const snw_faff *a, const snw_faff *b, snw_faff *c)
{
#if SNW_SSE
    const __m128 b0 = _mm_load_ps(b->r[0]), b1 = _mm_load_ps(b->r[1]), b2 = _mm_load_ps(b->r[2]);
    const __m128 wmask = _mm_castsi128_ps(_mm_set_epi32(-1, 0, 0, 0));
    for (int r = 0; r < 3; r++) {
        __m128 ar = _mm_load_ps(a->r[r]);
        __m128 x = _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x00), b0);
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0x55), b1));
        x = _mm_add_ps(x, _mm_mul_ps(_mm_shuffle_ps(ar, ar, 0xAA), b2));
        x = _mm_add_ps(x, _mm_and_ps(ar, wmask));
        _mm_store_ps(c->r[r], x);
    }
#else
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 4; k++)
            c->r[r][k] = a->r[r][0] * b->r[0][k] + a->r[r][1] * b->r[1][k] + a->r[r][2] * b->r[2][k] +
                         (k == 3 ? a->r[r][3] : 0.f);
#endif
}

#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
/* aff_mul with rows 0 and 1 in one 8-lane register (row 2 in SSE): per lane
 * the same products and sums in the same order, so the same bits */
static inline void aff_mul_avx(const snw_faff *a, const snw_faff *b, snw_faff *c)
{
    const __m256 b0 = _mm256_broadcast_ps((const __m128 *)b->r[0]), b1 = _mm256_broadcast_ps((const __m128 *)b->r[1]),
                 b2 = _mm256_broadcast_ps((const __m128 *)b->r[2]);
    const __m256 wmask = _mm256_castsi256_ps(_mm256_set_epi32(-1, 0, 0, 0, -1, 0, 0, 0));
    const __m256 a01 = _mm256_loadu_ps(a->r[0]);
    __m256 x = _mm256_mul_ps(_mm256_permute_ps(a01, 0x00), b0);
    x = _mm256_add_ps(x, _mm256_mul_ps(_mm256_permute_ps(a01, 0x55), b1));
    x = _mm256_add_ps(x, _mm256_mul_ps(_mm256_permute_ps(a01, 0xAA), b2));
    x = _mm256_add_ps(x, _mm256_and_ps(a01, wmask));
    const __m128 a2 = _mm_load_ps(a->r[2]);
    __m128 y = _mm_mul_ps(_mm_permute_ps(a2, 0x00), _mm256_castps256_ps128(b0));
    y = _mm_add_ps(y, _mm_mul_ps(_mm_permute_ps(a2, 0x55), _mm256_castps256_ps128(b1)));
    y = _mm_add_ps(y, _mm_mul_ps(_mm_permute_ps(a2, 0xAA), _mm256_castps256_ps128(b2)));
    y = _mm_add_ps(y, _mm_and_ps(a2, _mm256_castps256_ps128(wmask)));
    _mm256_storeu_ps(c->r[0], x);
    _mm_store_ps(c->r[2], y);
}
#pragma GCC pop_options
#endif

/* T R S with the rotation normalized (zero or non-finite length: identity). */
static inline void aff_from_trs(const snw_ftrs *x, snw_faff *m)
{
    float qx = x->q[0], qy = x->q[1], qz = x->q[2], qw = x->q[3];
    float n2 = qx * qx + qy * qy + qz * qz + qw * qw;
    float s = fabsf(n2 - 1) < 1e-4f ? 2.f * (2.f - n2) : 2.f / n2; /* 1/n2 ~ 2 - n2 near 1, error (n2 - 1)^2 */
    if (!(n2 > 0) || !(n2 <= FLT_MAX)) { qx = qy = qz = 0; qw = 1; s = 2; }
    float xx = qx * qx * s, yy = qy * qy * s, zz = qz * qz * s;
    float xy = qx * qy * s, xz = qx * qz * s, yz = qy * qz * s;
    float wx = qw * qx * s, wy = qw * qy * s, wz = qw * qz * s;
    const float sx = x->s[0], sy = x->s[1], sz = x->s[2];
    m->r[0][0] = (1 - (yy + zz)) * sx; m->r[0][1] = (xy - wz) * sy; m->r[0][2] = (xz + wy) * sz; m->r[0][3] = x->t[0];
    m->r[1][0] = (xy + wz) * sx; m->r[1][1] = (1 - (xx + zz)) * sy; m->r[1][2] = (yz - wx) * sz; m->r[1][3] = x->t[1];
    m->r[2][0] = (xz - wy) * sx; m->r[2][1] = (yz + wx) * sy; m->r[2][2] = (1 - (xx + yy)) * sz; m->r[2][3] = x->t[2];
}

#if SNW_SSE
/* 4 joints' rows r (16-byte vectors at base + j * step floats) as 4 lane vectors */
#define SNW_LOAD_T(v, base, step, k, off)                                                     \
    do {                                                                                    \
        v[0] = _mm_loadu_ps((base) + (size_t)(k)[0] * (step) + (off));                      \
        v[1] = _mm_loadu_ps((base) + (size_t)(k)[1] * (step) + (off));                      \
        v[2] = _mm_loadu_ps((base) + (size_t)(k)[2] * (step) + (off));                      \
        v[3] = _mm_loadu_ps((base) + (size_t)(k)[3] * (step) + (off));                      \
        _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);                                          \
    } while (0)

static inline __m128 sel_ps(__m128 m, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }

/* aff_from_trs of every local pose, four joints at a time in SSE lanes (the
 * same IEEE operations per lane, so the same bits; the lanes past the last
 * joint repeat it and are not stored) */
static void trs_to_aff_sse(const snw_ftrs *local, uint32_t n, snw_faff *out)
{
    const __m128 one = _mm_set1_ps(1.f), two = _mm_set1_ps(2.f), eps = _mm_set1_ps(1e-4f), zero = _mm_setzero_ps();
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), fmax = _mm_set1_ps(FLT_MAX);
    for (uint32_t j0 = 0; j0 < n; j0 += 4) {
        uint32_t k[4];
        for (int l = 0; l < 4; l++) k[l] = j0 + (uint32_t)l < n ? j0 + (uint32_t)l : n - 1u;
        __m128 t[4], q[4], sc[4];
        SNW_LOAD_T(t, (const float *)local, 12u, k, 0u);
        SNW_LOAD_T(q, (const float *)local, 12u, k, 4u);
        SNW_LOAD_T(sc, (const float *)local, 12u, k, 8u);
        __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[0], q[0]), _mm_mul_ps(q[1], q[1])), _mm_mul_ps(q[2], q[2])),
                               _mm_mul_ps(q[3], q[3]));
        __m128 near1 = _mm_cmplt_ps(_mm_and_ps(_mm_sub_ps(n2, one), absm), eps);
        __m128 s = sel_ps(near1, _mm_mul_ps(two, _mm_sub_ps(two, n2)), _mm_div_ps(two, n2));
        __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n2, zero), _mm_cmple_ps(n2, fmax)); /* else the identity */
        s = sel_ps(ok, s, two);
        const __m128 qx = _mm_and_ps(ok, q[0]), qy = _mm_and_ps(ok, q[1]), qz = _mm_and_ps(ok, q[2]);
        const __m128 qw = sel_ps(ok, q[3], one);
        const __m128 xx = _mm_mul_ps(_mm_mul_ps(qx, qx), s), yy = _mm_mul_ps(_mm_mul_ps(qy, qy), s);
        const __m128 zz = _mm_mul_ps(_mm_mul_ps(qz, qz), s), xy = _mm_mul_ps(_mm_mul_ps(qx, qy), s);
        const __m128 xz = _mm_mul_ps(_mm_mul_ps(qx, qz), s), yz = _mm_mul_ps(_mm_mul_ps(qy, qz), s);
        const __m128 wx = _mm_mul_ps(_mm_mul_ps(qw, qx), s), wy = _mm_mul_ps(_mm_mul_ps(qw, qy), s);
        const __m128 wz = _mm_mul_ps(_mm_mul_ps(qw, qz), s);
        __m128 r0[4] = { _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sc[0]), _mm_mul_ps(_mm_sub_ps(xy, wz), sc[1]),
                         _mm_mul_ps(_mm_add_ps(xz, wy), sc[2]), t[0] };
        __m128 r1[4] = { _mm_mul_ps(_mm_add_ps(xy, wz), sc[0]), _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sc[1]),
                         _mm_mul_ps(_mm_sub_ps(yz, wx), sc[2]), t[1] };
        __m128 r2[4] = { _mm_mul_ps(_mm_sub_ps(xz, wy), sc[0]), _mm_mul_ps(_mm_add_ps(yz, wx), sc[1]),
                         _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sc[2]), t[2] };
        _MM_TRANSPOSE4_PS(r0[0], r0[1], r0[2], r0[3]);
        _MM_TRANSPOSE4_PS(r1[0], r1[1], r1[2], r1[3]);
        _MM_TRANSPOSE4_PS(r2[0], r2[1], r2[2], r2[3]);
        const uint32_t lanes = n - j0 < 4u ? n - j0 : 4u;
        for (uint32_t l = 0; l < lanes; l++) {
            _mm_store_ps(out[j0 + l].r[0], r0[l]);
            _mm_store_ps(out[j0 + l].r[1], r1[l]);
            _mm_store_ps(out[j0 + l].r[2], r2[l]);
        }
    }
}
#endif

#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
/* 4x4 transpose within each 128-bit half of four 8-lane vectors */
#define SNW_TRANSPOSE4_256(a, b, c, d)                                                                             \
    do {                                                                                                         \
        const __m256 t0_ = _mm256_unpacklo_ps(a, b), t1_ = _mm256_unpacklo_ps(c, d);                           \
        const __m256 t2_ = _mm256_unpackhi_ps(a, b), t3_ = _mm256_unpackhi_ps(c, d);                           \
        a = _mm256_shuffle_ps(t0_, t1_, 0x44); b = _mm256_shuffle_ps(t0_, t1_, 0xEE);                          \
        c = _mm256_shuffle_ps(t2_, t3_, 0x44); d = _mm256_shuffle_ps(t2_, t3_, 0xEE);                          \
    } while (0)
static inline __m256 sel8_ps(__m256 m, __m256 a, __m256 b) { return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b)); }

/* trs_to_aff_sse with eight joints at a time (lanes 0-3 of each half: joints
 * j0 + l and j0 + 4 + l), the same operations per lane: the same bits. Also
 * listed[j] = 1 where a local scale is not positive finite (the test of
 * stage_fk_scaled_global, from the transposed scales); returns how many. */
static uint32_t trs_to_aff_avx(const snw_ftrs *local, uint32_t n, snw_faff *out, unsigned char *listed)
{
    uint32_t nlisted = 0;
    const __m256 one = _mm256_set1_ps(1.f), two = _mm256_set1_ps(2.f), eps = _mm256_set1_ps(1e-4f), zero = _mm256_setzero_ps();
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), fmax = _mm256_set1_ps(FLT_MAX);
    for (uint32_t j0 = 0; j0 < n; j0 += 8) {
        uint32_t k[8];
        for (int l = 0; l < 8; l++) k[l] = j0 + (uint32_t)l < n ? j0 + (uint32_t)l : n - 1u;
        __m256 t[4], q[4], sc[4];
        for (int l = 0; l < 4; l++) {
            const float *a = local[k[l]].t, *b = local[k[l + 4]].t;
            t[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1);
            q[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + 4)), _mm_loadu_ps(b + 4), 1);
            sc[l] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a + 8)), _mm_loadu_ps(b + 8), 1);
        }
        SNW_TRANSPOSE4_256(t[0], t[1], t[2], t[3]);
        SNW_TRANSPOSE4_256(q[0], q[1], q[2], q[3]);
        SNW_TRANSPOSE4_256(sc[0], sc[1], sc[2], sc[3]);
        {
            /* ordered compares: a NaN scale fails both, as in the scalar test */
            __m256 pf = _mm256_and_ps(_mm256_cmp_ps(sc[0], zero, _CMP_GT_OQ), _mm256_cmp_ps(sc[0], fmax, _CMP_LE_OQ));
            pf = _mm256_and_ps(pf, _mm256_and_ps(_mm256_cmp_ps(sc[1], zero, _CMP_GT_OQ), _mm256_cmp_ps(sc[1], fmax, _CMP_LE_OQ)));
            pf = _mm256_and_ps(pf, _mm256_and_ps(_mm256_cmp_ps(sc[2], zero, _CMP_GT_OQ), _mm256_cmp_ps(sc[2], fmax, _CMP_LE_OQ)));
            const unsigned okb = (unsigned)_mm256_movemask_ps(pf);
            const uint32_t lanes = n - j0 < 8u ? n - j0 : 8u;
            /* lane l holds joint j0 + l (the transposes keep the lane order) */
            for (uint32_t l = 0; l < lanes; l++) {
                const unsigned char b = (unsigned char)(((okb >> l) & 1u) ^ 1u);
                listed[j0 + l] = b;
                nlisted += b;
            }
        }
        __m256 n2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                                _mm256_mul_ps(q[2], q[2])),
                                  _mm256_mul_ps(q[3], q[3]));
        __m256 near1 = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(n2, one), absm), eps, _CMP_LT_OS);
        __m256 s = sel8_ps(near1, _mm256_mul_ps(two, _mm256_sub_ps(two, n2)), _mm256_div_ps(two, n2));
        __m256 ok = _mm256_and_ps(_mm256_cmp_ps(n2, zero, _CMP_GT_OS), _mm256_cmp_ps(n2, fmax, _CMP_LE_OS));
        s = sel8_ps(ok, s, two);
        const __m256 qx = _mm256_and_ps(ok, q[0]), qy = _mm256_and_ps(ok, q[1]), qz = _mm256_and_ps(ok, q[2]);
        const __m256 qw = sel8_ps(ok, q[3], one);
        const __m256 xx = _mm256_mul_ps(_mm256_mul_ps(qx, qx), s), yy = _mm256_mul_ps(_mm256_mul_ps(qy, qy), s);
        const __m256 zz = _mm256_mul_ps(_mm256_mul_ps(qz, qz), s), xy = _mm256_mul_ps(_mm256_mul_ps(qx, qy), s);
        const __m256 xz = _mm256_mul_ps(_mm256_mul_ps(qx, qz), s), yz = _mm256_mul_ps(_mm256_mul_ps(qy, qz), s);
        const __m256 wx = _mm256_mul_ps(_mm256_mul_ps(qw, qx), s), wy = _mm256_mul_ps(_mm256_mul_ps(qw, qy), s);
        const __m256 wz = _mm256_mul_ps(_mm256_mul_ps(qw, qz), s);
        __m256 r0[4] = { _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sc[0]),
                         _mm256_mul_ps(_mm256_sub_ps(xy, wz), sc[1]), _mm256_mul_ps(_mm256_add_ps(xz, wy), sc[2]), t[0] };
        __m256 r1[4] = { _mm256_mul_ps(_mm256_add_ps(xy, wz), sc[0]),
                         _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sc[1]),
                         _mm256_mul_ps(_mm256_sub_ps(yz, wx), sc[2]), t[1] };
        __m256 r2[4] = { _mm256_mul_ps(_mm256_sub_ps(xz, wy), sc[0]), _mm256_mul_ps(_mm256_add_ps(yz, wx), sc[1]),
                         _mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sc[2]), t[2] };
        SNW_TRANSPOSE4_256(r0[0], r0[1], r0[2], r0[3]);
        SNW_TRANSPOSE4_256(r1[0], r1[1], r1[2], r1[3]);
        SNW_TRANSPOSE4_256(r2[0], r2[1], r2[2], r2[3]);
        const uint32_t lanes = n - j0 < 8u ? n - j0 : 8u;
        for (uint32_t l = 0; l < 4 && l < lanes; l++) {
            _mm_store_ps(out[j0 + l].r[0], _mm256_castps256_ps128(r0[l]));
            _mm_store_ps(out[j0 + l].r[1], _mm256_castps256_ps128(r1[l]));
            _mm_store_ps(out[j0 + l].r[2], _mm256_castps256_ps128(r2[l]));
        }
        for (uint32_t l = 4; l < lanes; l++) {
            _mm_store_ps(out[j0 + l].r[0], _mm256_extractf128_ps(r0[l - 4], 1));
            _mm_store_ps(out[j0 + l].r[1], _mm256_extractf128_ps(r1[l - 4], 1));
            _mm_store_ps(out[j0 + l].r[2], _mm256_extractf128_ps(r2[l - 4], 1));
        }
    }
    return nlisted;
}
#undef SNW_TRANSPOSE4_256
#pragma GCC pop_options
#endif

static inline void ftrs_from_transform(const sinew_transform *t, snw_ftrs *o)
{
    o->t[0] = (float)t->translation.x; o->t[1] = (float)t->translation.y; o->t[2] = (float)t->translation.z; o->t[3] = 0;
    o->q[0] = (float)t->rotation.x; o->q[1] = (float)t->rotation.y; o->q[2] = (float)t->rotation.z; o->q[3] = (float)t->rotation.w;
    o->s[0] = (float)t->scale.x; o->s[1] = (float)t->scale.y; o->s[2] = (float)t->scale.z; o->s[3] = 0;
}

/* Shepperd, the reference's branches (sinew_quat_from_mat3), w >= 0, normalized. */
static inline void quat_from_rows(const float a[3][4], float q[4])
{
    float r00 = a[0][0], r11 = a[1][1], r22 = a[2][2];
    float r01 = a[0][1], r10 = a[1][0], r02 = a[0][2], r20 = a[2][0], r12 = a[1][2], r21 = a[2][1];
    float tr = r00 + r11 + r22, x, y, z, w;
    if (tr >= r00 && tr >= r11 && tr >= r22) {
        w = 0.5f * sqrtf(maxf(1 + tr, 0)); float f = 0.25f / w;
        x = (r21 - r12) * f; y = (r02 - r20) * f; z = (r10 - r01) * f;
    } else if (r00 >= r11 && r00 >= r22) {
        x = 0.5f * sqrtf(maxf(1 + r00 - r11 - r22, 0)); float f = 0.25f / x;
        y = (r01 + r10) * f; z = (r02 + r20) * f; w = (r21 - r12) * f;
    } else if (r11 >= r22) {
        y = 0.5f * sqrtf(maxf(1 - r00 + r11 - r22, 0)); float f = 0.25f / y;
        x = (r01 + r10) * f; z = (r12 + r21) * f; w = (r02 - r20) * f;
    } else {
        z = 0.5f * sqrtf(maxf(1 - r00 - r11 + r22, 0)); float f = 0.25f / z;
        x = (r02 + r20) * f; y = (r12 + r21) * f; w = (r10 - r01) * f;
    }
    if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
    float n = 1.f / sqrtf(x * x + y * y + z * z + w * w);
    q[0] = x * n; q[1] = y * n; q[2] = z * n; q[3] = w * n;
}

/* Dual part 0.5 (t, 0) q of a rigid transform with rotation q, translation t. */
static inline void dq_dual(const float q[4], float tx, float ty, float tz, float d[4])
{
    d[0] = 0.5f * (tx * q[3] + ty * q[2] - tz * q[1]);
    d[1] = 0.5f * (-tx * q[2] + ty * q[3] + tz * q[0]);
    d[2] = 0.5f * (tx * q[1] - ty * q[0] + tz * q[3]);
    d[3] = -0.5f * (tx * q[0] + ty * q[1] + tz * q[2]);
}

/* ---- polar decomposition: polar3.c (snw_polar_f32, snw_polar_batch) ---- */

/* ---- the skeleton's float32 table ---- */

static void ftrs_rest(const sinew_transform *t, snw_ftrs *o) { ftrs_from_transform(t, o); }

void snw_fast_joints_init(const sinew_skeleton *s, snw_fast_joint *out)
{
    const uint32_t n = sinew_skeleton_joint_count(s);
    const sinew_transform *rest = sinew_skeleton_rest_pose(s);
    for (uint32_t j = 0; j < n; j++) {
        snw_fast_joint *f = &out[j];
        memset(f, 0, sizeof *f);
        const int32_t p = sinew_skeleton_parent(s, j);
        aff_from_mat4(sinew_skeleton_inverse_bind(s, j), &f->inv_bind);
        aff_from_mat4(sinew_skeleton_bind_local(s, j), &f->bind_local);
        sinew_mat4 linv = p < 0 ? *sinew_skeleton_inverse_bind(s, j)
                                : sinew_mat4_mul(sinew_skeleton_inverse_bind(s, j), sinew_skeleton_bind_global(s, (uint32_t)p));
        aff_from_mat4(&linv, &f->linv);
        const sinew_mat4 *b = sinew_skeleton_bind_global(s, j);
        f->c[0] = (float)b->m[3][0]; f->c[1] = (float)b->m[3][1]; f->c[2] = (float)b->m[3][2]; f->c[3] = 1;
        sinew_vec3 h, t;
        sinew_skeleton_bone_segment(s, j, &h, &t);
        f->head[0] = (float)h.x; f->head[1] = (float)h.y; f->head[2] = (float)h.z; f->head[3] = 1;
        f->tail[0] = (float)t.x; f->tail[1] = (float)t.y; f->tail[2] = (float)t.z; f->tail[3] = 1;
        ftrs_rest(&rest[j], &f->rest);
        f->parent = p;
        f->depth = p < 0 ? 0u : out[p].depth + 1u; /* parents come first */
        f->prop = sinew_skeleton_scale_propagates(s, j) ? 1u : 0u;
    }
    /* the rigid fast case: every L_j and B_j^-1 a rotation + translation */
    uint32_t rigid = 1;
    for (uint32_t j = 0; j < n && rigid; j++) {
        sinew_mat3 l = sinew_mat4_upper3(sinew_skeleton_bind_local(s, j));
        sinew_mat3 ib = sinew_mat4_upper3(sinew_skeleton_inverse_bind(s, j));
        rigid = sinew_mat3_orthonormality_error(&l) <= 1e-6 && sinew_mat3_det(&l) > 0 &&
                sinew_mat3_orthonormality_error(&ib) <= 1e-6 && sinew_mat3_det(&ib) > 0;
    }
    for (uint32_t j = 0; j < n; j++) {
        snw_fast_joint *f = &out[j];
        f->skel_rigid = rigid;
        sinew_mat3 ib = sinew_mat4_upper3(sinew_skeleton_inverse_bind(s, j));
        sinew_quat q = sinew_quat_from_mat3(&ib);
        f->ibq[0] = (float)q.x; f->ibq[1] = (float)q.y; f->ibq[2] = (float)q.z; f->ibq[3] = (float)q.w;
        const sinew_mat4 *m = sinew_skeleton_inverse_bind(s, j);
        f->ibt[0] = (float)m->m[3][0]; f->ibt[1] = (float)m->m[3][1]; f->ibt[2] = (float)m->m[3][2]; f->ibt[3] = 0;
    }
}

/* ---- per character, in four stages: sample, FK, palette, pack ----
 * Each stage runs over every joint before the next starts (the breakdown the
 * benchmark reports); the palette is built in the scratch in the GPU layout,
 * then checked and copied to the destination in one sequential pass (the
 * destination may be write-combined mapped memory). */

/* Scratch per joint: local TRS, G (posed frames), H, Hs, Us, a (scaled-rest
 * position, 16 B), and the packed entry (up to SNW_PAL_MAX_STRIDE vec4). */
#define SNW_PAL_MAX_STRIDE SINEW_PAL_MAX_STRIDE
static size_t scratch_per_joint(void) { return sizeof(snw_ftrs) + 4u * sizeof(snw_faff) + 16u + SNW_PAL_MAX_STRIDE * 16u; }

size_t sinew_palette_scratch_bytes(uint32_t max_joints) { return (size_t)max_joints * scratch_per_joint() + 16u; }

typedef struct fast_scratch {
    snw_ftrs *local;
    snw_faff *G, *H, *Hs, *Us;
    float *a;     /* 4 per joint */
    float *pal;   /* stride * 4 per joint */
} fast_scratch;

static inline void put4v(float *d, float x, float y, float z, float w)
{
    d[0] = x; d[1] = y; d[2] = z; d[3] = w;
}

/* p' = X p for a point (w = 1) */
static inline void xform_point(const snw_faff *x, const float *p, float *o)
{
    for (int r = 0; r < 3; r++) o[r] = x->r[r][0] * p[0] + x->r[r][1] * p[1] + x->r[r][2] * p[2] + x->r[r][3];
}

/* The bulge slots (sinew_layout.h): the posed segment X (head, tail) and the rest-space
 * one, X^-1 of the posed one (palette.c's put_bulge, reference.c's rest_radial), which
 * is exactly the bind segment (head, tail): written directly (no float32 inverse,
 * whose error grows with X's condition number); SINEW_PAL_BULGE_SINGULAR when the
 * 3x3 that X^-1 inverts (a: LBS skin rows, the scale methods' S rows; NULL for the
 * rigid methods) has det 0 or a non-finite det. h, t: the posed head and tail. */
static void put_bulge_slots(const float *h, const float *t, const float (*a)[4], const snw_fast_joint *f, float *b)
{
    /* in double: a float32 det of a product of small scales underflows to 0 where the
     * float64 palette's does not */
    double det = 1;
    if (a)
        det = (double)a[0][0] * ((double)a[1][1] * a[2][2] - (double)a[1][2] * a[2][1]) -
              (double)a[0][1] * ((double)a[1][0] * a[2][2] - (double)a[1][2] * a[2][0]) +
              (double)a[0][2] * ((double)a[1][0] * a[2][1] - (double)a[1][1] * a[2][0]);
    const float sg = (float)SINEW_PAL_BULGE_SINGULAR;
    const int ok = fabs(det) > 0 && isfinite(det);
    const float *ra = f->head, *rb = f->tail;
    put4v(b, h[0], h[1], h[2], ok ? ra[0] : sg);
    put4v(b + 4, t[0], t[1], t[2], ok ? ra[1] : sg);
    if (ok) put4v(b + 8, ra[2], rb[0], rb[1], rb[2]);
    else put4v(b + 8, sg, sg, sg, sg);
}

static void write_bulge(const snw_faff *x, const snw_fast_joint *f, const float (*a)[4], float *b)
{
    float h[3], t[3];
    xform_point(x, f->head, h);
    xform_point(x, f->tail, t);
    put_bulge_slots(h, t, a, f, b);
}

#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
/* pack_checked's streaming part eight floats a step: 32-byte streaming stores
 * (a 64-byte line in two instead of four), the finite check (sum of v * 0)
 * and the max |v| as in SSE, folded to four lanes; returns the floats done */
static size_t pack_stream_avx(const float *src, size_t n, float *dst, __m128 *acc4, __m128 *mx4)
{
    __m256 acc = _mm256_setzero_ps(), mx = _mm256_setzero_ps();
    const __m256 zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        acc = _mm256_add_ps(acc, _mm256_mul_ps(v, zero)); /* inf * 0 and NaN give NaN */
        mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, v));
        _mm256_stream_ps(dst + i, v);
    }
    *acc4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    *mx4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
    return i;
}
#pragma GCC pop_options
#if !defined(SNW_FAST_NO_AVX512)
#define SNW_FAST_AVX512 1
#pragma GCC push_options
#pragma GCC target("avx512f")
/* the same sixteen floats a step where the CPU has AVX-512F (-DSNW_FAST_NO_AVX512
 * keeps AVX): one streaming store per 64-byte line */
static size_t pack_stream_avx512(const float *src, size_t n, float *dst, __m128 *acc4, __m128 *mx4)
{
    __m512 acc = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
    const __m512 zero = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(src + i);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(v, zero)); /* inf * 0 and NaN give NaN */
        mx = _mm512_max_ps(mx, _mm512_abs_ps(v));
        _mm512_stream_ps(dst + i, v);
    }
    __m256 a8 = _mm256_add_ps(_mm512_castps512_ps256(acc), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1)));
    __m256 m8 = _mm256_max_ps(_mm512_castps512_ps256(mx), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(mx), 1)));
    *acc4 = _mm_add_ps(_mm256_castps256_ps128(a8), _mm256_extractf128_ps(a8, 1));
    *mx4 = _mm_max_ps(_mm256_castps256_ps128(m8), _mm256_extractf128_ps(m8, 1));
    return i;
}
#pragma GCC pop_options
#endif
#endif
#ifndef SNW_FAST_AVX512
#define SNW_FAST_AVX512 0
#endif

/* Pack: 1 if every float is finite, and the copy to dst. */
static int pack_checked(const float *src, size_t n, float *dst, float *max_abs)
{
#if SNW_SSE
    __m128 acc = _mm_setzero_ps(), mx = _mm_setzero_ps();
    const __m128 zero = _mm_setzero_ps(), sign = _mm_set1_ps(-0.0f);
    size_t i = 0;
#if SNW_FAST_AVX
#if SNW_FAST_AVX512
    if (((uintptr_t)dst & 63u) == 0 && __builtin_cpu_supports("avx512f")) i = pack_stream_avx512(src, n, dst, &acc, &mx);
    else
#endif
    if (((uintptr_t)dst & 31u) == 0 && __builtin_cpu_supports("avx")) i = pack_stream_avx(src, n, dst, &acc, &mx);
#endif
    if (((uintptr_t)dst & 15u) == 0) {
        /* streaming stores: the destination (a mapped ring, often write-combined,
         * or a large crowd's palettes) is not read back by the CPU; no
         * read-for-ownership, no cache pollution; sfence below orders them */
        for (; i + 4 <= n; i += 4) {
            __m128 v = _mm_load_ps(src + i);
            acc = _mm_add_ps(acc, _mm_mul_ps(v, zero)); /* inf * 0 and NaN give NaN */
            mx = _mm_max_ps(mx, _mm_andnot_ps(sign, v));
            _mm_stream_ps(dst + i, v);
        }
        _mm_sfence();
    }
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_load_ps(src + i);
        acc = _mm_add_ps(acc, _mm_mul_ps(v, zero));
        mx = _mm_max_ps(mx, _mm_andnot_ps(sign, v));
        _mm_storeu_ps(dst + i, v);
    }
    float lanes[4], ml[4];
    _mm_storeu_ps(lanes, acc);
    _mm_storeu_ps(ml, mx);
    float s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    float m = fmaxf(fmaxf(ml[0], ml[1]), fmaxf(ml[2], ml[3]));
    for (; i < n; i++) { s += src[i] * 0.f; m = fmaxf(m, fabsf(src[i])); dst[i] = src[i]; }
    *max_abs = m;
    return s == 0;
#else
    int ok = 1;
    float m = 0;
    for (size_t i = 0; i < n; i++) {
        ok &= isfinite(src[i]) != 0;
        m = fmaxf(m, fabsf(src[i]));
        dst[i] = src[i];
    }
    *max_abs = m;
    return ok;
#endif
}

/* FK for LBS and DQS: G_j = G_p L_j (roots: root L_j). */
static void stage_fk_rigid(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, const snw_faff *root, snw_faff *G)
{
    for (uint32_t j = 0; j < n; j++) {
        snw_faff l;
        aff_from_trs(&local[j], &l);
        if (fj[j].parent >= 0) aff_mul(&G[fj[j].parent], &l, &G[j]);
        else if (root) aff_mul(root, &l, &G[j]);
        else G[j] = l;
    }
}

/* LBS, DQS and CoR entries: T_j = G_j B_j^-1 (DQS and CoR: as a dual quaternion). */
static sinew_result stage_pal_rigid(const snw_fast_joint *fj, uint32_t n, const snw_faff *G, unsigned method, uint32_t flags,
                                    float *pal, uint32_t stride)
{
    for (uint32_t j = 0; j < n; j++) {
        snw_faff skin;
        aff_mul(&G[j], &fj[j].inv_bind, &skin);
        float *d = pal + (size_t)j * stride * 4u;
        if (method == SINEW_K_LBS) memcpy(d, skin.r, sizeof skin.r);
        else {
            float oe = snw_ortho_error(skin.r);
            if (!(oe <= 1e-4f) || snw_det3(skin.r) < 0) return SINEW_ERROR_NOT_RIGID;
            /* the polar rotation of a near-rigid 3x3 (palette.c's rule), not Shepperd's
             * of the raw matrix: within the 1e-4 orthogonality error checked above,
             * one Newton-Schulz step X <- X (3I - X^T X) / 2 takes the error e to
             * about 1.5 e^2 <= 1.5e-8, below float32 rounding (the fixed point
             * snw_polar_f32 iterates to, without its scaling, inverse and symmetric
             * factor); skipped when orthonormal within 2e-6, as there */
            float q[4], du[4], *dd = d + 4u * SINEW_PAL_OFF_DQ(method), rot[3][4];
            memcpy(rot, skin.r, sizeof rot);
            if (!(oe <= 2e-6f)) {
                float y[3][3];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        y[i][j] = (i == j ? 1.5f : 0.f) -
                                  0.5f * (skin.r[0][i] * skin.r[0][j] + skin.r[1][i] * skin.r[1][j] + skin.r[2][i] * skin.r[2][j]);
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        rot[i][j] = skin.r[i][0] * y[0][j] + skin.r[i][1] * y[1][j] + skin.r[i][2] * y[2][j];
            }
            quat_from_rows((const float(*)[4])rot, q);
            dq_dual(q, skin.r[0][3], skin.r[1][3], skin.r[2][3], du);
            put4v(dd, q[0], q[1], q[2], q[3]);
            put4v(dd + 4, du[0], du[1], du[2], du[3]);
        }
        if (flags & SINEW_K_FLAG_BULGE)
            write_bulge(&skin, &fj[j], method == SINEW_K_LBS ? (const float(*)[4])skin.r : NULL,
                        d + 4u * SINEW_PAL_OFF_BULGE(method));
    }
    return SINEW_OK;
}

static inline int prop_of(unsigned method, const snw_fast_joint *f)
{
    if (method == SINEW_K_DQS_SCALE || method == SINEW_K_COR_SCALE) return 1;
    if (method == SINEW_K_DQS_SCALE_LOCAL || method == SINEW_K_COR_SCALE_LOCAL) return 0;
    return (int)f->prop;
}

#define CHAIN_NAME fk_global_chain
#define CHAIN_MUL aff_mul
#include "fastpath_chain.h"
#undef CHAIN_NAME
#undef CHAIN_MUL
#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
#define CHAIN_NAME fk_global_chain_avx_any
#define CHAIN_MUL aff_mul_avx
#include "fastpath_chain.h"
#undef CHAIN_NAME
#undef CHAIN_MUL
/* fk_global_chain in AVX: a joint with a parent and not listed (every joint
 * but the roots, in practice) keeps its products in registers, G_j and Hs_j
 * stored as one 32-byte row pair and one row (the width the next joint's
 * loads read back, so they forward from the stores); the others as
 * fk_global_chain. Same operations per lane as aff_mul: the same bits. */
static void fk_global_chain_avx(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, const snw_faff *root,
                                const fast_scratch *sc, const unsigned char *listed)
{
    snw_faff *G = sc->G, *H = sc->H, *Hs = sc->Hs;
    const __m256 wmask = _mm256_castsi256_ps(_mm256_set_epi32(-1, 0, 0, 0, -1, 0, 0, 0));
    const __m128 smask = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1)), w1 = _mm_set_ps(1.f, 0.f, 0.f, 0.f);
    for (uint32_t j = 0; j < n; j++) {
        const snw_fast_joint *f = &fj[j];
        const int32_t p = f->parent;
        if (p < 0 || listed[j]) {
            fk_global_chain_avx_any(fj, j, j + 1u, local, root, sc, listed);
            continue;
        }
        const __m256 l0 = _mm256_broadcast_ps((const __m128 *)H[j].r[0]), l1 = _mm256_broadcast_ps((const __m128 *)H[j].r[1]),
                     l2 = _mm256_broadcast_ps((const __m128 *)H[j].r[2]);
        const __m256 c0 = _mm256_broadcast_ps((const __m128 *)f->bind_local.r[0]),
                     c1 = _mm256_broadcast_ps((const __m128 *)f->bind_local.r[1]),
                     c2 = _mm256_broadcast_ps((const __m128 *)f->bind_local.r[2]);
        const __m256 g01 = _mm256_loadu_ps(G[p].r[0]), h01 = _mm256_loadu_ps(Hs[p].r[0]);
        const __m128 g2 = _mm_load_ps(G[p].r[2]), h2 = _mm_load_ps(Hs[p].r[2]);
        __m256 x = _mm256_mul_ps(_mm256_permute_ps(g01, 0x00), l0);
        __m256 z = _mm256_mul_ps(_mm256_permute_ps(h01, 0x00), c0);
        __m128 y = _mm_mul_ps(_mm_permute_ps(g2, 0x00), _mm256_castps256_ps128(l0));
        __m128 v = _mm_mul_ps(_mm_permute_ps(h2, 0x00), _mm256_castps256_ps128(c0));
        x = _mm256_add_ps(x, _mm256_mul_ps(_mm256_permute_ps(g01, 0x55), l1));
        z = _mm256_add_ps(z, _mm256_mul_ps(_mm256_permute_ps(h01, 0x55), c1));
        y = _mm_add_ps(y, _mm_mul_ps(_mm_permute_ps(g2, 0x55), _mm256_castps256_ps128(l1)));
        v = _mm_add_ps(v, _mm_mul_ps(_mm_permute_ps(h2, 0x55), _mm256_castps256_ps128(c1)));
        x = _mm256_add_ps(x, _mm256_mul_ps(_mm256_permute_ps(g01, 0xAA), l2));
        z = _mm256_add_ps(z, _mm256_mul_ps(_mm256_permute_ps(h01, 0xAA), c2));
        y = _mm_add_ps(y, _mm_mul_ps(_mm_permute_ps(g2, 0xAA), _mm256_castps256_ps128(l2)));
        v = _mm_add_ps(v, _mm_mul_ps(_mm_permute_ps(h2, 0xAA), _mm256_castps256_ps128(c2)));
        x = _mm256_add_ps(x, _mm256_and_ps(g01, wmask));
        z = _mm256_add_ps(z, _mm256_and_ps(h01, wmask));
        y = _mm_add_ps(y, _mm_and_ps(g2, _mm256_castps256_ps128(wmask)));
        v = _mm_add_ps(v, _mm_and_ps(h2, _mm256_castps256_ps128(wmask)));
        /* Hs_j = hslc diag(s_j), branch-free (a unit scale multiplies by exactly 1) */
        const __m128 s4 = _mm_or_ps(_mm_and_ps(_mm_loadu_ps(local[j].s), smask), w1);
        z = _mm256_mul_ps(z, _mm256_set_m128(s4, s4));
        v = _mm_mul_ps(v, s4);
        _mm256_storeu_ps(G[j].r[0], x);
        _mm_store_ps(G[j].r[2], y);
        _mm256_storeu_ps(Hs[j].r[0], z);
        _mm_store_ps(Hs[j].r[2], v);
        /* a_j = the translation column (lanes 3 and 7 of z, lane 3 of v) */
        const __m128 z0 = _mm256_castps256_ps128(z), z1 = _mm256_extractf128_ps(z, 1);
        const __m128 t01 = _mm_unpackhi_ps(z0, z1); /* z0[2] z1[2] z0[3] z1[3] */
        const __m128 t2 = _mm_unpackhi_ps(v, _mm_setzero_ps()); /* v[2] 0 v[3] 0 */
        _mm_storeu_ps(sc->a + 4u * j, _mm_movehl_ps(t2, t01)); /* z0[3] z1[3] v[3] 0 */
    }
}
#pragma GCC pop_options
#endif

/* FK of the global scale methods (DQS_SCALE, COR_SCALE: every joint
 * propagates its scale, so Lc_j = L_j, H_j = G_j = G_p Local_j and Gs_j =
 * Gs_p L_j Us_j) with a rigid bind pose: Ur_j is not needed, and for positive
 * finite scales Us_j = diag(s_j) (see stage_fk_scaled), so only the other
 * joints (listed in idx, the scratch of the palette entries, unused until the
 * palette stage) need U_j = L_j^-1 Local_j and a polar decomposition. H holds
 * Local_j (or U_j for a listed joint); children hang from G (H_p = G_p). */
static sinew_result stage_fk_scaled_global(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local,
                                           const snw_faff *root, const fast_scratch *sc)
{
    snw_faff *G = sc->G, *H = sc->H, *Us = sc->Us;
    uint32_t *idx = (uint32_t *)(void *)sc->pal, nidx = 0;
    unsigned char *listed = (unsigned char *)(idx + n);
#if SNW_FAST_AVX
    if (__builtin_cpu_supports("avx")) {
        /* the flags come with the conversion: only listed joints need more */
        if (trs_to_aff_avx(local, n, H, listed))
            for (uint32_t j = 0; j < n; j++)
                if (listed[j]) {
                    snw_faff lm = H[j];
                    aff_mul(&fj[j].linv, &lm, &H[j]);
                    idx[nidx++] = j;
                }
    } else
#endif
    {
#if SNW_SSE
    trs_to_aff_sse(local, n, H);
#endif
    for (uint32_t j = 0; j < n; j++) {
        const float *sv = local[j].s;
#if !SNW_SSE
        aff_from_trs(&local[j], &H[j]);
#endif
        listed[j] = !(sv[0] > 0 && sv[1] > 0 && sv[2] > 0 && sv[0] <= FLT_MAX && sv[1] <= FLT_MAX && sv[2] <= FLT_MAX);
        if (listed[j]) {
            snw_faff lm = H[j];
            aff_mul(&fj[j].linv, &lm, &H[j]);
            idx[nidx++] = j;
        }
    }
    }
    if (nidx && snw_polar_batch(H, idx, nidx, G, Us)) return SINEW_ERROR_NON_FINITE;
#if SNW_FAST_AVX
    if (__builtin_cpu_supports("avx")) fk_global_chain_avx(fj, n, local, root, sc, listed);
    else
#endif
    fk_global_chain(fj, 0, n, local, root, sc, listed);
    return SINEW_OK;
}

/* FK of the scale methods (palette.c's recurrences): posed frames G, the
 * frames children hang from H, scaled-rest frames Hs and positions a. */
static sinew_result stage_fk_scaled(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, const snw_faff *root,
                                    unsigned method, const fast_scratch *sc)
{
    snw_faff ident;
    aff_identity(&ident);
    snw_faff *G = sc->G, *H = sc->H, *Hs = sc->Hs, *Us = sc->Us;
    /* U_j = L_j^-1 Local_j does not depend on the parents: all of them first
     * (in H) with their polar factors (Ur_j in G, Us_j in Us), then the
     * recurrences, which read U_j, Ur_j before writing H_j, G_j. With a rigid
     * bind pose and positive finite scales, U_j = (L_j^-1 R_j) diag(s_j) is
     * already its polar decomposition (unique for a nonsingular U_j): Ur_j =
     * L_j^-1 R_j, Us_j = diag(s_j). The other joints (listed in idx, the
     * scratch of a, written only later) go to snw_polar_batch. */
    const int rigid_bind = fj[0].skel_rigid != 0;
    uint32_t *idx = (uint32_t *)(void *)sc->a, nidx = 0;
    for (uint32_t j = 0; j < n; j++) {
        const float *sv = local[j].s;
        if (rigid_bind && sv[0] > 0 && sv[1] > 0 && sv[2] > 0 && sv[0] <= FLT_MAX && sv[1] <= FLT_MAX &&
            sv[2] <= FLT_MAX) {
            snw_ftrs unit = local[j];
            snw_faff lr;
            unit.s[0] = unit.s[1] = unit.s[2] = 1.f;
            aff_from_trs(&unit, &lr);
            aff_mul(&fj[j].linv, &lr, &G[j]);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++) {
                    H[j].r[r][c] = G[j].r[r][c] * sv[c];
                    Us[j].r[r][c] = r == c ? sv[c] : 0.f;
                }
                H[j].r[r][3] = G[j].r[r][3];
                G[j].r[r][3] = Us[j].r[r][3] = 0.f;
            }
        } else {
            snw_faff lm;
            aff_from_trs(&local[j], &lm);
            aff_mul(&fj[j].linv, &lm, &H[j]);
            idx[nidx++] = j;
        }
    }
    if (nidx && snw_polar_batch(H, idx, nidx, G, Us)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t j = 0; j < n; j++) {
        const snw_fast_joint *f = &fj[j];
        const int32_t p = f->parent;
        snw_faff lm, u = H[j], ur = G[j], lc = f->bind_local, hlc, hslc, gs;
        aff_from_trs(&local[j], &lm);
        ur.r[0][3] = u.r[0][3]; ur.r[1][3] = u.r[1][3]; ur.r[2][3] = u.r[2][3];
        /* skipped (a rotation): Us_j is exactly I */
        const snw_faff *us = &Us[j];
        const int skip = us->r[0][0] == 1.f && us->r[1][1] == 1.f && us->r[2][2] == 1.f && us->r[0][1] == 0.f &&
                         us->r[0][2] == 0.f && us->r[1][0] == 0.f && us->r[1][2] == 0.f && us->r[2][0] == 0.f &&
                         us->r[2][1] == 0.f;

        const int compensated = p >= 0 && !prop_of(method, &fj[p]);
        if (compensated) {
            const snw_faff *ps = &Us[p];
            float tx = f->bind_local.r[0][3], ty = f->bind_local.r[1][3], tz = f->bind_local.r[2][3];
            for (int r = 0; r < 3; r++) lc.r[r][3] = ps->r[r][0] * tx + ps->r[r][1] * ty + ps->r[r][2] * tz;
        }
        const snw_faff *hp = p >= 0 ? &H[p] : (root ? root : &ident);
        const int pj = prop_of(method, f);

        aff_mul(hp, &lc, &hlc);
        if (!compensated) aff_mul(hp, &lm, &G[j]);
        else aff_mul(&hlc, &u, &G[j]);
        if (pj) H[j] = G[j];
        else aff_mul(&hlc, &ur, &H[j]);

        if (p < 0) hslc = lc;
        else aff_mul(&Hs[p], &lc, &hslc);
        if (skip) gs = hslc;
        else aff_mul(&hslc, &Us[j], &gs);
        Hs[j] = pj ? gs : hslc;
        put4v(sc->a + 4u * j, gs.r[0][3], gs.r[1][3], gs.r[2][3], 0);
    }
    return SINEW_OK;
}

static inline void qmul(const float *a, const float *b, float *o);

/* rows of the rotation of a unit quaternion (column 3 = 0) */
static inline void rows_from_quat(const float *q, snw_faff *m)
{
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    const float xx = 2 * x * x, yy = 2 * y * y, zz = 2 * z * z, xy = 2 * x * y, xz = 2 * x * z, yz = 2 * y * z;
    const float wx = 2 * w * x, wy = 2 * w * y, wz = 2 * w * z;
    put4v(m->r[0], 1 - (yy + zz), xy - wz, xz + wy, 0);
    put4v(m->r[1], xy + wz, 1 - (xx + zz), yz - wx, 0);
    put4v(m->r[2], xz - wy, yz + wx, 1 - (xx + yy), 0);
}

/* p = sym(Q^T X) (3x3 parts; column 3 = 0) */
static inline void sym_qt_x(const snw_faff *q, const snw_faff *x, snw_faff *p)
{
    float pm[3][4];
#if SNW_SSE
    const __m128 x0 = _mm_load_ps(x->r[0]), x1 = _mm_load_ps(x->r[1]), x2 = _mm_load_ps(x->r[2]);
    for (int i = 0; i < 3; i++) {
        __m128 v = _mm_mul_ps(_mm_set1_ps(q->r[0][i]), x0);
        v = _mm_add_ps(v, _mm_mul_ps(_mm_set1_ps(q->r[1][i]), x1));
        v = _mm_add_ps(v, _mm_mul_ps(_mm_set1_ps(q->r[2][i]), x2));
        _mm_storeu_ps(pm[i], v);
    }
#else
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) pm[i][j] = q->r[0][i] * x->r[0][j] + q->r[1][i] * x->r[1][j] + q->r[2][i] * x->r[2][j];
#endif
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) p->r[i][j] = 0.5f * (pm[i][j] + pm[j][i]);
        p->r[i][3] = 0;
    }
}

#if SNW_SSE

/* The scale methods' entries of four joints k[0..3] (lanes k[l] with l >=
 * lanes repeat a joint and are not stored) in SSE lanes (structure of
 * arrays), the same IEEE operations per lane as the scalar code of
 * stage_pal_scaled (#else), so every joint's entry depends only on its own
 * inputs. Per joint j: qj + 12 j + 4 holds the quaternion: for a derived joint
 * (derived = 1: all four are) the chain value Q_p n_j, normalized here (w >=
 * 0), its Q the rotation of it and P = sym(Q^T X); for the others
 * quat_from_rows of the polar Q (Q, P the polar factors in sc->Hs, sc->Us).
 * Then S = [P | a - P c], R = [Q | t(X) - Q (a - P c)] as a dual quaternion. */
#define ENT_NAME entries4_sse
#define V __m128
#define VSET1 _mm_set1_ps
#define VADD _mm_add_ps
#define VSUB _mm_sub_ps
#define VMUL _mm_mul_ps
#define VDIV _mm_div_ps
#define VSQRT _mm_sqrt_ps
#define VAND _mm_and_ps
#define VXOR _mm_xor_ps
#define VCMPLT _mm_cmplt_ps
#define VSEL sel_ps
#define VABSMASK _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff))
#define ENT_LOAD_T SNW_LOAD_T
#define ENT_TRANSPOSE4 _MM_TRANSPOSE4_PS
#define ENT_STORE_LANE(d, v, l) _mm_store_ps(d, (v)[l])
#include "fastpath_entries.h" /* undefines its parameters */

/* The body of entries_scaled_sse / _avx: every joint's entry, derived joints
 * (qj[12 j] != 0) and the others gathered W at a time into separate groups (no
 * per-lane selects) and handed to ENTRIES; a partial last group repeats its last
 * joint in the unused lanes. */
#define SNW_ENTRIES_GROUPED(W, ENTRIES)                                                   \
    do {                                                                                  \
        uint32_t kd[W], kn[W], nd = 0, nn = 0;                                            \
        for (uint32_t j = 0; j < n; j++) {                                                \
            if (qj[12u * j] != 0.f) {                                                     \
                kd[nd++] = j;                                                             \
                if (nd == W) { ENTRIES(fj, kd, W, sc, qj, stride, 1); nd = 0; }           \
            } else {                                                                      \
                kn[nn++] = j;                                                             \
                if (nn == W) { ENTRIES(fj, kn, W, sc, qj, stride, 0); nn = 0; }           \
            }                                                                             \
        }                                                                                 \
        if (nd) {                                                                         \
            for (uint32_t l = nd; l < W; l++) kd[l] = kd[nd - 1u];                        \
            ENTRIES(fj, kd, nd, sc, qj, stride, 1);                                       \
        }                                                                                 \
        if (nn) {                                                                         \
            for (uint32_t l = nn; l < W; l++) kn[l] = kn[nn - 1u];                        \
            ENTRIES(fj, kn, nn, sc, qj, stride, 0);                                       \
        }                                                                                 \
    } while (0)

#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
/* eight joints' rows: joints k[l] and k[l + 4] in the two halves, transposed per half */
#define ENT_LOAD_T(v, base, step, k, off)                                                                          \
    do {                                                                                                           \
        for (int l_ = 0; l_ < 4; l_++)                                                                             \
            v[l_] = _mm256_insertf128_ps(                                                                          \
                _mm256_castps128_ps256(_mm_loadu_ps((base) + (size_t)(k)[l_] * (step) + (off))),                   \
                _mm_loadu_ps((base) + (size_t)(k)[l_ + 4] * (step) + (off)), 1);                                   \
        ENT_TRANSPOSE4(v[0], v[1], v[2], v[3]);                                                                    \
    } while (0)
#define ENT_TRANSPOSE4(a, b, c, d)                                                                                 \
    do {                                                                                                           \
        const __m256 t0_ = _mm256_unpacklo_ps(a, b), t1_ = _mm256_unpacklo_ps(c, d);                             \
        const __m256 t2_ = _mm256_unpackhi_ps(a, b), t3_ = _mm256_unpackhi_ps(c, d);                             \
        a = _mm256_shuffle_ps(t0_, t1_, 0x44); b = _mm256_shuffle_ps(t0_, t1_, 0xEE);                            \
        c = _mm256_shuffle_ps(t2_, t3_, 0x44); d = _mm256_shuffle_ps(t2_, t3_, 0xEE);                            \
    } while (0)
#define ENT_STORE_LANE(d, v, l) \
    _mm_store_ps(d, (l) < 4 ? _mm256_castps256_ps128((v)[(l) & 3]) : _mm256_extractf128_ps((v)[(l) & 3], 1))
static inline __m256 ent_sel8(__m256 m, __m256 a, __m256 b) { return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b)); }
#define ENT_NAME entries8_avx
#define V __m256
#define VSET1 _mm256_set1_ps
#define VADD _mm256_add_ps
#define VSUB _mm256_sub_ps
#define VMUL _mm256_mul_ps
#define VDIV _mm256_div_ps
#define VSQRT _mm256_sqrt_ps
#define VAND _mm256_and_ps
#define VXOR _mm256_xor_ps
#define VCMPLT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OS)
#define VSEL ent_sel8
#define VABSMASK _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))
#include "fastpath_entries.h" /* undefines its parameters */

/* entries_scaled_sse in groups of eight */
static void entries_scaled_avx(const snw_fast_joint *fj, uint32_t n, const fast_scratch *sc, const float *qj,
                               uint32_t stride)
{
    SNW_ENTRIES_GROUPED(8, entries8_avx);
}
#pragma GCC pop_options
#endif

/* quat_from_rows (Shepperd, the reference's branches; w >= 0; normalized) of
 * the polar Q (sc->Hs) of four joints k[0..3] into qj + 12 k + 4, in SSE
 * lanes: each lane selects its case's values, computed by the same IEEE
 * operations as the scalar code (lanes past `lanes` are not stored) */
static inline void quats4_sse(const uint32_t *k, uint32_t lanes, const float *Qm, float *qj)
{
    __m128 r0[4], r1[4], r2[4];
    SNW_LOAD_T(r0, Qm, 12u, k, 0u);
    SNW_LOAD_T(r1, Qm, 12u, k, 4u);
    SNW_LOAD_T(r2, Qm, 12u, k, 8u);
    const __m128 one = _mm_set1_ps(1.f), zero = _mm_setzero_ps(), half = _mm_set1_ps(0.5f), quarter = _mm_set1_ps(0.25f);
    const __m128 r00 = r0[0], r01 = r0[1], r02 = r0[2], r10 = r1[0], r11 = r1[1], r12 = r1[2];
    const __m128 r20 = r2[0], r21 = r2[1], r22 = r2[2];
    const __m128 tr = _mm_add_ps(_mm_add_ps(r00, r11), r22);
    const __m128 mA = _mm_and_ps(_mm_and_ps(_mm_cmpge_ps(tr, r00), _mm_cmpge_ps(tr, r11)), _mm_cmpge_ps(tr, r22));
    const __m128 mB = _mm_andnot_ps(mA, _mm_and_ps(_mm_cmpge_ps(r00, r11), _mm_cmpge_ps(r00, r22)));
    const __m128 mC = _mm_andnot_ps(_mm_or_ps(mA, mB), _mm_cmpge_ps(r11, r22));
    __m128 v = _mm_add_ps(_mm_sub_ps(_mm_sub_ps(one, r00), r11), r22);                  /* D */
    v = sel_ps(mC, _mm_sub_ps(_mm_add_ps(_mm_sub_ps(one, r00), r11), r22), v);         /* C */
    v = sel_ps(mB, _mm_sub_ps(_mm_sub_ps(_mm_add_ps(one, r00), r11), r22), v);         /* B */
    v = sel_ps(mA, _mm_add_ps(one, tr), v);                                            /* A */
    const __m128 big = _mm_mul_ps(half, _mm_sqrt_ps(_mm_max_ps(v, zero)));
    const __m128 f = _mm_div_ps(quarter, big);
    const __m128 d21 = _mm_mul_ps(_mm_sub_ps(r21, r12), f), d02 = _mm_mul_ps(_mm_sub_ps(r02, r20), f);
    const __m128 d10 = _mm_mul_ps(_mm_sub_ps(r10, r01), f), s01 = _mm_mul_ps(_mm_add_ps(r01, r10), f);
    const __m128 s02 = _mm_mul_ps(_mm_add_ps(r02, r20), f), s12 = _mm_mul_ps(_mm_add_ps(r12, r21), f);
    __m128 q[4];
    q[0] = sel_ps(mA, d21, sel_ps(mB, big, sel_ps(mC, s01, s02)));
    q[1] = sel_ps(mA, d02, sel_ps(mB, s01, sel_ps(mC, big, s12)));
    q[2] = sel_ps(mA, d10, sel_ps(mB, s02, sel_ps(mC, s12, big)));
    q[3] = sel_ps(mA, big, sel_ps(mB, d21, sel_ps(mC, d02, d10)));
    const __m128 neg = _mm_and_ps(_mm_cmplt_ps(q[3], zero), _mm_set1_ps(-0.f));
    for (int i = 0; i < 4; i++) q[i] = _mm_xor_ps(q[i], neg);
    const __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[0], q[0]), _mm_mul_ps(q[1], q[1])), _mm_mul_ps(q[2], q[2])),
                                 _mm_mul_ps(q[3], q[3]));
    const __m128 nrm = _mm_div_ps(one, _mm_sqrt_ps(n2));
    for (int i = 0; i < 4; i++) q[i] = _mm_mul_ps(q[i], nrm);
    _MM_TRANSPOSE4_PS(q[0], q[1], q[2], q[3]);
    for (uint32_t l = 0; l < lanes; l++) _mm_storeu_ps(qj + 12u * k[l] + 4, q[l]);
}

/* Every joint's entry, four joints per SSE step (SNW_ENTRIES_GROUPED) */
static void entries_scaled_sse(const snw_fast_joint *fj, uint32_t n, const fast_scratch *sc, const float *qj,
                               uint32_t stride)
{
    SNW_ENTRIES_GROUPED(4, entries4_sse);
}

/* o = a b for four quaternions per lane vector (x, y, z, w), the same IEEE
 * operations per lane as qmul's SSE code (a_w b + a_x (...) + a_y (...) + a_z (...)) */
static inline void qmul4(const __m128 *a, const __m128 *b, __m128 *o)
{
    o[0] = _mm_sub_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(a[3], b[0]), _mm_mul_ps(a[0], b[3])), _mm_mul_ps(a[1], b[2])),
                      _mm_mul_ps(a[2], b[1]));
    o[1] = _mm_add_ps(_mm_add_ps(_mm_sub_ps(_mm_mul_ps(a[3], b[1]), _mm_mul_ps(a[0], b[2])), _mm_mul_ps(a[1], b[3])),
                      _mm_mul_ps(a[2], b[0]));
    o[2] = _mm_add_ps(_mm_sub_ps(_mm_add_ps(_mm_mul_ps(a[3], b[2]), _mm_mul_ps(a[0], b[1])), _mm_mul_ps(a[1], b[0])),
                      _mm_mul_ps(a[2], b[3]));
    o[3] = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(_mm_mul_ps(a[3], b[3]), _mm_mul_ps(a[0], b[0])), _mm_mul_ps(a[1], b[1])),
                      _mm_mul_ps(a[2], b[2]));
}

/* n_j = conj(b_p) r_j b_j (r_j the local rotation normalized as in FK) into
 * qj + 12 j + 8, four joints at a time (every joint: only the derived ones'
 * are read; a root takes itself as parent) */
static void nj_scaled_sse(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, float *qj)
{
    const uint32_t fstep = (uint32_t)(sizeof(snw_fast_joint) / sizeof(float));
    const __m128 one = _mm_set1_ps(1.f), half = _mm_set1_ps(0.5f), c15 = _mm_set1_ps(1.5f), eps = _mm_set1_ps(1e-4f);
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), zero = _mm_setzero_ps(), sgn = _mm_set1_ps(-0.f);
    const __m128 fmax = _mm_set1_ps(FLT_MAX);
    for (uint32_t j0 = 0; j0 < n; j0 += 4) {
        uint32_t k[4], kp[4];
        for (int l = 0; l < 4; l++) {
            k[l] = j0 + (uint32_t)l < n ? j0 + (uint32_t)l : n - 1u;
            kp[l] = fj[k[l]].parent >= 0 ? (uint32_t)fj[k[l]].parent : k[l];
        }
        __m128 r[4], b[4], cb[4], t1[4], o[4];
        SNW_LOAD_T(r, (const float *)local, 12u, k, 4u);
        SNW_LOAD_T(b, fj[0].ibq, fstep, k, 0u);
        SNW_LOAD_T(cb, fj[0].ibq, fstep, kp, 0u);
        cb[0] = _mm_xor_ps(cb[0], sgn); cb[1] = _mm_xor_ps(cb[1], sgn); cb[2] = _mm_xor_ps(cb[2], sgn);
        __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], r[0]), _mm_mul_ps(r[1], r[1])), _mm_mul_ps(r[2], r[2])),
                               _mm_mul_ps(r[3], r[3]));
        __m128 near1 = _mm_cmplt_ps(_mm_and_ps(_mm_sub_ps(n2, one), absm), eps);
        __m128 inv = sel_ps(near1, _mm_sub_ps(c15, _mm_mul_ps(half, n2)), _mm_div_ps(one, _mm_sqrt_ps(n2)));
        __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n2, zero), _mm_cmple_ps(n2, fmax)); /* else the identity */
        for (int i = 0; i < 4; i++) r[i] = sel_ps(ok, _mm_mul_ps(r[i], inv), i == 3 ? one : zero);
        qmul4(cb, r, t1);
        qmul4(t1, b, o);
        _MM_TRANSPOSE4_PS(o[0], o[1], o[2], o[3]);
        const uint32_t lanes = n - j0 < 4u ? n - j0 : 4u;
        for (uint32_t l = 0; l < lanes; l++) _mm_storeu_ps(qj + 12u * (j0 + l) + 8, o[l]);
    }
}
#endif

#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
static inline __m256 nj_sel8(__m256 m, __m256 a, __m256 b) { return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b)); }
/* qmul4 with eight quaternions per lane vector (the same operations) */
static inline void qmul8(const __m256 *a, const __m256 *b, __m256 *o)
{
    o[0] = _mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a[3], b[0]), _mm256_mul_ps(a[0], b[3])), _mm256_mul_ps(a[1], b[2])),
                         _mm256_mul_ps(a[2], b[1]));
    o[1] = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(_mm256_mul_ps(a[3], b[1]), _mm256_mul_ps(a[0], b[2])), _mm256_mul_ps(a[1], b[3])),
                         _mm256_mul_ps(a[2], b[0]));
    o[2] = _mm256_add_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(a[3], b[2]), _mm256_mul_ps(a[0], b[1])), _mm256_mul_ps(a[1], b[0])),
                         _mm256_mul_ps(a[2], b[3]));
    o[3] = _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(_mm256_mul_ps(a[3], b[3]), _mm256_mul_ps(a[0], b[0])), _mm256_mul_ps(a[1], b[1])),
                         _mm256_mul_ps(a[2], b[2]));
}
/* eight joints' 16-byte vectors (k[l] and k[l + 4] in the two halves) as 4 lane vectors */
#define NJ_LOAD_T(v, base, step, k, off)                                                                           \
    do {                                                                                                           \
        for (int l_ = 0; l_ < 4; l_++)                                                                             \
            v[l_] = _mm256_insertf128_ps(                                                                          \
                _mm256_castps128_ps256(_mm_loadu_ps((base) + (size_t)(k)[l_] * (step) + (off))),                   \
                _mm_loadu_ps((base) + (size_t)(k)[l_ + 4] * (step) + (off)), 1);                                   \
        const __m256 t0_ = _mm256_unpacklo_ps(v[0], v[1]), t1_ = _mm256_unpacklo_ps(v[2], v[3]);                 \
        const __m256 t2_ = _mm256_unpackhi_ps(v[0], v[1]), t3_ = _mm256_unpackhi_ps(v[2], v[3]);                 \
        v[0] = _mm256_shuffle_ps(t0_, t1_, 0x44); v[1] = _mm256_shuffle_ps(t0_, t1_, 0xEE);                      \
        v[2] = _mm256_shuffle_ps(t2_, t3_, 0x44); v[3] = _mm256_shuffle_ps(t2_, t3_, 0xEE);                      \
    } while (0)
/* nj_scaled_sse eight joints at a time (the same bits) */
static void nj_scaled_avx(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, float *qj)
{
    const uint32_t fstep = (uint32_t)(sizeof(snw_fast_joint) / sizeof(float));
    const __m256 one = _mm256_set1_ps(1.f), half = _mm256_set1_ps(0.5f), c15 = _mm256_set1_ps(1.5f), eps = _mm256_set1_ps(1e-4f);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), zero = _mm256_setzero_ps();
    const __m256 sgn = _mm256_set1_ps(-0.f), fmax = _mm256_set1_ps(FLT_MAX);
    for (uint32_t j0 = 0; j0 < n; j0 += 8) {
        uint32_t k[8], kp[8];
        for (int l = 0; l < 8; l++) {
            k[l] = j0 + (uint32_t)l < n ? j0 + (uint32_t)l : n - 1u;
            kp[l] = fj[k[l]].parent >= 0 ? (uint32_t)fj[k[l]].parent : k[l];
        }
        __m256 r[4], b[4], cb[4], t1[4], o[4];
        NJ_LOAD_T(r, (const float *)local, 12u, k, 4u);
        NJ_LOAD_T(b, fj[0].ibq, fstep, k, 0u);
        NJ_LOAD_T(cb, fj[0].ibq, fstep, kp, 0u);
        cb[0] = _mm256_xor_ps(cb[0], sgn); cb[1] = _mm256_xor_ps(cb[1], sgn); cb[2] = _mm256_xor_ps(cb[2], sgn);
        __m256 n2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(r[0], r[0]), _mm256_mul_ps(r[1], r[1])),
                                                _mm256_mul_ps(r[2], r[2])),
                                  _mm256_mul_ps(r[3], r[3]));
        __m256 near1 = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(n2, one), absm), eps, _CMP_LT_OS);
        __m256 inv = nj_sel8(near1, _mm256_sub_ps(c15, _mm256_mul_ps(half, n2)), _mm256_div_ps(one, _mm256_sqrt_ps(n2)));
        __m256 ok = _mm256_and_ps(_mm256_cmp_ps(n2, zero, _CMP_GT_OS), _mm256_cmp_ps(n2, fmax, _CMP_LE_OS));
        for (int i = 0; i < 4; i++) r[i] = nj_sel8(ok, _mm256_mul_ps(r[i], inv), i == 3 ? one : zero);
        qmul8(cb, r, t1);
        qmul8(t1, b, o);
        const __m256 u0 = _mm256_unpacklo_ps(o[0], o[1]), u1 = _mm256_unpacklo_ps(o[2], o[3]);
        const __m256 u2 = _mm256_unpackhi_ps(o[0], o[1]), u3 = _mm256_unpackhi_ps(o[2], o[3]);
        const __m256 w[4] = { _mm256_shuffle_ps(u0, u1, 0x44), _mm256_shuffle_ps(u0, u1, 0xEE), _mm256_shuffle_ps(u2, u3, 0x44),
                              _mm256_shuffle_ps(u2, u3, 0xEE) };
        const uint32_t lanes = n - j0 < 8u ? n - j0 : 8u;
        for (uint32_t l = 0; l < lanes && l < 4; l++) _mm_storeu_ps(qj + 12u * (j0 + l) + 8, _mm256_castps256_ps128(w[l]));
        for (uint32_t l = 4; l < lanes; l++) _mm_storeu_ps(qj + 12u * (j0 + l) + 8, _mm256_extractf128_ps(w[l - 4], 1));
    }
}
#undef NJ_LOAD_T
#pragma GCC pop_options
#endif

/* Entries of the scale methods: X = G B^-1 = Q P; S = [P | a - P c];
 * R = [Q | t(X) - Q (a - P c)]. */
#if SNW_FAST_AVX
#pragma GCC push_options
#pragma GCC target("avx")
/* X_j = G_j B_j^-1 of every joint (aff_mul_avx: the same bits as aff_mul) */
static void x_products_avx(const snw_fast_joint *fj, uint32_t n, const snw_faff *G, snw_faff *X)
{
    for (uint32_t j = 0; j < n; j++) aff_mul_avx(&G[j], &fj[j].inv_bind, &X[j]);
}
#pragma GCC pop_options
#endif

static sinew_result stage_pal_scaled(const snw_fast_joint *fj, uint32_t n, const fast_scratch *sc, unsigned method,
                                     uint32_t flags, uint32_t stride)
{
    /* X_j = G_j B_j^-1 of every joint (in H, free after FK), their polar
     * factors (Q in Hs, P in Us), then the entries.
     * Global methods (every joint propagates its scale), rigid bind pose: for
     * a joint j with parent p and local scale exactly (1, 1, 1), X_j = X_p N_j
     * with N_j = B_p Local_j B_j^-1 (B_j = B_p L_j) whose 3x3 is the rotation
     * B_p3 R_j B_j3^-1, so X_j = (Q_p N_j)(N_j^T P_p N_j) is already its polar
     * decomposition (unique for det X_j > 0): Q_j = Q_p N_j, derived in joint
     * order from the parent's as a quaternion (Q_p conj(b_p) r_j b_j, with b the
     * inverse binds' quaternions), and P_j = sym(Q_j^T X_j). The other joints
     * (roots, scaled joints, and every joint with det X_j <= 0 or not finite,
     * so the mirror and singular rules stay the reference's) go to
     * snw_polar_batch, listed in idx (the scratch of the palette entries,
     * written only later). The rotation's quaternion of every joint is kept
     * in G (free once X is formed). */
    snw_faff *X = sc->H, *Q = sc->Hs, *P = sc->Us;
    const snw_ftrs *local = sc->local;
    const int derive = fj[0].skel_rigid && (method == SINEW_K_DQS_SCALE || method == SINEW_K_COR_SCALE);
    uint32_t *idx = (uint32_t *)(void *)sc->pal, nidx = 0;
    unsigned char *derived = (unsigned char *)(idx + n);
#if SNW_FAST_AVX
    if (__builtin_cpu_supports("avx")) x_products_avx(fj, n, sc->G, X);
    else
#endif
    for (uint32_t j = 0; j < n; j++) aff_mul(&sc->G[j], &fj[j].inv_bind, &X[j]);
    for (uint32_t j = 0; j < n; j++) {
        const float *sv = local[j].s;
        const int unit = sv[0] == 1.f && sv[1] == 1.f && sv[2] == 1.f;
        derived[j] = (unsigned char)(derive && fj[j].parent >= 0 && unit && snw_det3(X[j].r) > 0);
        /* a rotation (typically a root) is not worth a SIMD lane: the batch's
         * skip case in scalar code, the same result (and the batch of the
         * scaled joints then fills its groups: 16, not 16 + 1 with the root) */
        if (!derived[j] && !(unit && snw_polar_rotation(&X[j], &Q[j], &P[j]))) idx[nidx++] = j;
    }
    if (nidx && snw_polar_batch(X, idx, nidx, Q, P)) return SINEW_ERROR_NON_FINITE;
    /* Per joint 12 floats in G: the rotation's quaternion (normalized, w >= 0),
     * the chain value Q_p n_j (not renormalized: unit within rounding), and
     * n_j = conj(b_p) r_j b_j, which does not depend on the parent and so is
     * formed first, off the chain of dependent products along the skeleton. */
    float *qj = (float *)sc->G;
#if SNW_SSE
    if (derive) {
#if SNW_FAST_AVX
        if (__builtin_cpu_supports("avx")) nj_scaled_avx(fj, n, local, qj);
        else
#endif
        nj_scaled_sse(fj, n, local, qj);
    }
#else
    for (uint32_t j = 0; j < n; j++) {
        if (!derived[j]) continue;
        const snw_fast_joint *f = &fj[j], *fp = &fj[f->parent];
        const float *lq = local[j].q;
        float n2 = lq[0] * lq[0] + lq[1] * lq[1] + lq[2] * lq[2] + lq[3] * lq[3];
        float r[4] = { 0, 0, 0, 1 }, cb[4] = { -fp->ibq[0], -fp->ibq[1], -fp->ibq[2], fp->ibq[3] }, t1[4];
        if (n2 > 0 && n2 <= FLT_MAX) {
            float inv = fabsf(n2 - 1) < 1e-4f ? 1.5f - 0.5f * n2 : 1.f / sqrtf(n2);
            r[0] = lq[0] * inv; r[1] = lq[1] * inv; r[2] = lq[2] * inv; r[3] = lq[3] * inv;
        }
        qmul(cb, r, t1);
        qmul(t1, f->ibq, qj + 12u * j + 8);
    }
#endif
#if SNW_SSE
    /* The other joints' quaternions four at a time (quats4_sse), then the
     * chain alone in joint order (Q_p n_j, one quaternion product per derived
     * joint), then the entries four joints at a time (entries_scaled_sse);
     * qj[12 j] = 1 marks a derived joint (derived[] lives in the palette
     * scratch the entries overwrite) */
    {
        uint32_t kn[4], nn = 0;
        for (uint32_t j = 0; j < n; j++) {
            qj[12u * j] = derived[j] ? 1.f : 0.f;
            if (derived[j]) continue;
            kn[nn++] = j;
            if (nn == 4) { quats4_sse(kn, 4, (const float *)Q, qj); nn = 0; }
        }
        if (nn) {
            for (uint32_t l = nn; l < 4; l++) kn[l] = kn[nn - 1u];
            quats4_sse(kn, nn, (const float *)Q, qj);
        }
    }
    for (uint32_t j = 0; j < n; j++)
        if (derived[j]) qmul(qj + 12u * (uint32_t)fj[j].parent + 4, qj + 12u * j + 8, qj + 12u * j + 4);
#if SNW_FAST_AVX
    if (__builtin_cpu_supports("avx")) entries_scaled_avx(fj, n, sc, qj, stride);
    else
#endif
    entries_scaled_sse(fj, n, sc, qj, stride);
    if (flags & SINEW_K_FLAG_BULGE)
        for (uint32_t j = 0; j < n; j++) {
            float *d = sc->pal + (size_t)j * stride * 4u;
            write_bulge(&X[j], &fj[j], (const float(*)[4])d, d + 4u * SINEW_PAL_OFF_BULGE(method));
        }
#else
    for (uint32_t j = 0; j < n; j++) {
        float *qo = qj + 12u * j;
        if (!derived[j]) {
            quat_from_rows((const float(*)[4])Q[j].r, qo);
            memcpy(qo + 4, qo, 4 * sizeof(float));
            continue;
        }
        float t1[4];
        qmul(qj + 12u * (uint32_t)fj[j].parent + 4, qo + 8, t1);
        memcpy(qo + 4, t1, sizeof t1);
        /* normalized, w >= 0 as quat_from_rows */
        float m2 = t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2] + t1[3] * t1[3];
        float s = fabsf(m2 - 1) < 1e-4f ? 1.5f - 0.5f * m2 : 1.f / sqrtf(m2);
        if (t1[3] < 0) s = -s;
        put4v(qo, t1[0] * s, t1[1] * s, t1[2] * s, t1[3] * s);
        rows_from_quat(qo, &Q[j]);
        sym_qt_x(&Q[j], &X[j], &P[j]);
    }
    for (uint32_t j = 0; j < n; j++) {
        const snw_fast_joint *f = &fj[j];
        const snw_faff x = X[j];
        const float(*q3)[4] = (const float(*)[4])Q[j].r, (*p3)[4] = (const float(*)[4])P[j].r;
        const float *a = sc->a + 4u * j, *qq = qj + 12u * j;
        float st[3], rt[3];
        for (int r = 0; r < 3; r++) st[r] = a[r] - (p3[r][0] * f->c[0] + p3[r][1] * f->c[1] + p3[r][2] * f->c[2]);
        for (int r = 0; r < 3; r++) rt[r] = x.r[r][3] - (q3[r][0] * st[0] + q3[r][1] * st[1] + q3[r][2] * st[2]);
        float *d = sc->pal + (size_t)j * stride * 4u;
        for (int r = 0; r < 3; r++) put4v(d + 4 * r, p3[r][0], p3[r][1], p3[r][2], st[r]);
        float du[4];
        dq_dual(qq, rt[0], rt[1], rt[2], du);
        put4v(d + 12, qq[0], qq[1], qq[2], qq[3]);
        put4v(d + 16, du[0], du[1], du[2], du[3]);
        if (flags & SINEW_K_FLAG_BULGE) write_bulge(&x, f, (const float(*)[4])d, d + 4u * SINEW_PAL_OFF_BULGE(method));
    }
#endif
    return SINEW_OK;
}

static int mat4_finite(const sinew_mat4 *m)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (!isfinite(m->m[i][j])) return 0;
    return 1;
}

/* ---- the rigid case of the DQ methods: quaternion FK ----
 * When the skeleton's bind pose is rigid (skel_rigid), the root is rigid and
 * every local scale is exactly 1, every T_j is a rotation + translation: FK
 * runs on (quaternion, translation) pairs, T_j = M_j B_j^-1 is one quaternion
 * product, and no matrix -> quaternion conversion, rigidity test or polar
 * decomposition is needed (for the scale methods S_j is then exactly the
 * identity: P = I and a_j = c_j, as in the reference up to rounding). */

static inline void qmul(const float *a, const float *b, float *o)
{
#if SNW_SSE
    /* a (x) b = aw b + ax (bw, -bz, by, -bx) + ay (bz, bw, -bx, -by) + az (-by, bx, bw, -bz) */
    const __m128 va = _mm_loadu_ps(a), vb = _mm_loadu_ps(b);
    const __m128 s1 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, 0, (int)0x80000000, 0));
    const __m128 s2 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, (int)0x80000000, 0, 0));
    const __m128 s3 = _mm_castsi128_ps(_mm_set_epi32((int)0x80000000, 0, 0, (int)0x80000000));
    __m128 r = _mm_mul_ps(_mm_shuffle_ps(va, va, 0xFF), vb);
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0x00), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(0, 1, 2, 3)), s1)));
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0x55), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(1, 0, 3, 2)), s2)));
    r = _mm_add_ps(r, _mm_mul_ps(_mm_shuffle_ps(va, va, 0xAA), _mm_xor_ps(_mm_shuffle_ps(vb, vb, _MM_SHUFFLE(2, 3, 0, 1)), s3)));
    _mm_storeu_ps(o, r);
#else
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x; o[1] = y; o[2] = z; o[3] = w;
#endif
}

#if SNW_SSE
static inline __m128 cross_ps(__m128 a, __m128 b)
{
    __m128 a_yzx = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1)), b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    __m128 c = _mm_sub_ps(_mm_mul_ps(a, b_yzx), _mm_mul_ps(a_yzx, b));
    return _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 0, 2, 1));
}
#endif

/* o[0..2] = v + 2 q.xyz x (q.xyz x v + q.w v) (q unit); o has 4 floats, o[3] is scratch */
static inline void qrot(const float *q, const float *v, float *o)
{
#if SNW_SSE
    __m128 vq = _mm_loadu_ps(q), vv = _mm_loadu_ps(v);
    __m128 c = _mm_add_ps(cross_ps(vq, vv), _mm_mul_ps(_mm_shuffle_ps(vq, vq, 0xFF), vv));
    __m128 r = _mm_add_ps(vv, _mm_add_ps(cross_ps(vq, c), cross_ps(vq, c)));
    _mm_storeu_ps(o, r);
    return;
#endif
    float cx = q[1] * v[2] - q[2] * v[1] + q[3] * v[0];
    float cy = q[2] * v[0] - q[0] * v[2] + q[3] * v[1];
    float cz = q[0] * v[1] - q[1] * v[0] + q[3] * v[2];
    o[0] = v[0] + 2 * (q[1] * cz - q[2] * cy);
    o[1] = v[1] + 2 * (q[2] * cx - q[0] * cz);
    o[2] = v[2] + 2 * (q[0] * cy - q[1] * cx);
}

/* 1 when every local scale is exactly (1, 1, 1). */
static int unit_scales(const snw_ftrs *local, uint32_t n)
{
    /* stops at the first scaled joint (the scale methods' usual case) */
    for (uint32_t j = 0; j < n; j++)
        if (!((local[j].s[0] == 1.f) & (local[j].s[1] == 1.f) & (local[j].s[2] == 1.f))) return 0;
    return 1;
}

#if SNW_SSE
/* Every local rotation normalized (stage_fk_quat's rule: one Newton step from
 * 1 near unit length, else 1 / sqrt; zero or non-finite: the identity) into
 * qn + 4 j, four joints at a time in SSE lanes: the same IEEE operations per
 * lane as the scalar rule, and off the chain of dependent products (a blend's
 * summed rotations are not unit: their square root and division here run
 * four at a time) */
static void normalize_rot_sse(const snw_ftrs *local, uint32_t n, float *qn)
{
    const __m128 one = _mm_set1_ps(1.f), half = _mm_set1_ps(0.5f), c15 = _mm_set1_ps(1.5f), eps = _mm_set1_ps(1e-4f);
    const __m128 absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), zero = _mm_setzero_ps(), fmax = _mm_set1_ps(FLT_MAX);
    for (uint32_t j0 = 0; j0 < n; j0 += 4) {
        uint32_t k[4];
        for (int l = 0; l < 4; l++) k[l] = j0 + (uint32_t)l < n ? j0 + (uint32_t)l : n - 1u;
        __m128 r[4];
        SNW_LOAD_T(r, (const float *)local, 12u, k, 4u);
        __m128 n2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], r[0]), _mm_mul_ps(r[1], r[1])), _mm_mul_ps(r[2], r[2])),
                               _mm_mul_ps(r[3], r[3]));
        __m128 near1 = _mm_cmplt_ps(_mm_and_ps(_mm_sub_ps(n2, one), absm), eps);
        __m128 inv = sel_ps(near1, _mm_sub_ps(c15, _mm_mul_ps(half, n2)), _mm_div_ps(one, _mm_sqrt_ps(n2)));
        __m128 ok = _mm_and_ps(_mm_cmpgt_ps(n2, zero), _mm_cmple_ps(n2, fmax));
        for (int i = 0; i < 4; i++) r[i] = sel_ps(ok, _mm_mul_ps(r[i], inv), i == 3 ? one : zero);
        _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
        const uint32_t lanes = n - j0 < 4u ? n - j0 : 4u;
        for (uint32_t l = 0; l < lanes; l++) _mm_store_ps(qn + 4u * (j0 + l), r[l]);
    }
}
#endif

/* qt: 8 floats per joint (rotation, translation). qn: scratch of 4 floats per
 * joint (16-byte aligned; SSE builds normalize the rotations there first). */
static void stage_fk_quat(const snw_fast_joint *fj, uint32_t n, const snw_ftrs *local, const float *rootqt, float *qt,
                          float *qn)
{
#if SNW_SSE
    normalize_rot_sse(local, n, qn);
#else
    (void)qn;
#endif
    for (uint32_t j = 0; j < n; j++) {
        const snw_ftrs *l = &local[j];
#if SNW_SSE
        const float *ql = qn + 4u * j;
#else
        float n2 = l->q[0] * l->q[0] + l->q[1] * l->q[1] + l->q[2] * l->q[2] + l->q[3] * l->q[3];
        float ql[4] = { 0, 0, 0, 1 };
        if (n2 > 0 && n2 <= FLT_MAX) {
            /* sampled rotations are unit within float rounding: one Newton step
             * from 1 (error ~ (n2 - 1)^2) instead of a square root and a division */
            float inv = fabsf(n2 - 1) < 1e-4f ? 1.5f - 0.5f * n2 : 1.f / sqrtf(n2);
            ql[0] = l->q[0] * inv; ql[1] = l->q[1] * inv; ql[2] = l->q[2] * inv; ql[3] = l->q[3] * inv;
        }
#endif
        float *o = qt + 8u * j;
        const float *par = fj[j].parent >= 0 ? qt + 8u * (uint32_t)fj[j].parent : rootqt;
        if (par) {
            float r[4];
            qmul(par, ql, o);
            qrot(par, l->t, r);
            o[4] = par[4] + r[0]; o[5] = par[5] + r[1]; o[6] = par[6] + r[2]; o[7] = 0;
        } else {
            o[0] = ql[0]; o[1] = ql[1]; o[2] = ql[2]; o[3] = ql[3];
            o[4] = l->t[0]; o[5] = l->t[1]; o[6] = l->t[2]; o[7] = 0;
        }
    }
}

static void stage_pal_quat(const snw_fast_joint *fj, uint32_t n, const float *qt, unsigned method, uint32_t flags,
                           float *pal, uint32_t stride)
{
    const uint32_t dq = SINEW_PAL_OFF_DQ(method);
    for (uint32_t j = 0; j < n; j++) {
        const float *m = qt + 8u * j;
        float q[4], t[3], r[4];
        qmul(m, fj[j].ibq, q);
        qrot(m, fj[j].ibt, r);
        t[0] = m[4] + r[0]; t[1] = m[5] + r[1]; t[2] = m[6] + r[2];
        /* a product of unit quaternions: no renormalization; w >= 0, as the reference */
        if (q[3] < 0) { q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3]; }
        float *d = pal + (size_t)j * stride * 4u;
        if (method != SINEW_K_DQS && method != SINEW_K_COR) {
            put4v(d, 1, 0, 0, 0);
            put4v(d + 4, 0, 1, 0, 0);
            put4v(d + 8, 0, 0, 1, 0);
        }
        float du[4];
        dq_dual(q, t[0], t[1], t[2], du);
        put4v(d + 4u * dq, q[0], q[1], q[2], q[3]);
        put4v(d + 4u * dq + 4, du[0], du[1], du[2], du[3]);
        if (flags & SINEW_K_FLAG_BULGE) {
            float *b = d + 4u * SINEW_PAL_OFF_BULGE(method), h[4], tl[4];
            qrot(q, fj[j].head, h);
            qrot(q, fj[j].tail, tl);
            h[0] += t[0]; h[1] += t[1]; h[2] += t[2];
            tl[0] += t[0]; tl[1] += t[1]; tl[2] += t[2];
            put_bulge_slots(h, tl, NULL, &fj[j], b); /* rigid; the scale methods' S is I */
        }
    }
}

static inline uint64_t ticks_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The whole build; step_ns (may be NULL) accumulates the time of each stage. */
static sinew_result build_f32(const sinew_palette_character *ch, void *scratch, size_t scratch_bytes, float *dst,
                              double *step_ns)
{
    if (!ch || !ch->skeleton || !scratch || !dst) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((uintptr_t)scratch & 15u) return SINEW_ERROR_INVALID_ARGUMENT;
    const unsigned method = (unsigned)ch->method;
    if (method >= (unsigned)SINEW_METHOD_COUNT) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((ch->flags & ~(uint32_t)SINEW_SKIN_FLAGS_ALL) ||
        ((ch->flags & SINEW_SKIN_BULGE_INNER) && !(ch->flags & SINEW_SKIN_BULGE_CORRECTION)))
        return SINEW_ERROR_INVALID_ARGUMENT;
    const sinew_skeleton *skel = ch->skeleton;
    const uint32_t n = sinew_skeleton_joint_count(skel);
    if (scratch_bytes < sinew_palette_scratch_bytes(n)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (ch->root && !mat4_finite(ch->root)) return SINEW_ERROR_NON_FINITE;
    const int blended = !ch->pose && ch->layer_count;
    if (blended) {
        sinew_result lr = sinew_anim_layers_validate(ch->layers, ch->layer_count, n);
        if (lr != SINEW_OK) return lr;
    } else if (!ch->pose && ch->clip) {
        if (sinew_clip_joint_count(ch->clip) != n) return SINEW_ERROR_INVALID_ARGUMENT;
        if ((unsigned)ch->wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
        if (!isfinite(ch->time)) return SINEW_ERROR_NON_FINITE;
    }
    const snw_fast_joint *fj = snw_skeleton_fast(skel);
    const uint32_t stride = SINEW_PAL_STRIDE(method, ch->flags);

    char *sp = (char *)scratch;
    fast_scratch sc;
    sc.local = (snw_ftrs *)sp; sp += (size_t)n * sizeof(snw_ftrs);
    sc.G = (snw_faff *)sp; sp += (size_t)n * sizeof(snw_faff);
    sc.H = (snw_faff *)sp; sp += (size_t)n * sizeof(snw_faff);
    sc.Hs = (snw_faff *)sp; sp += (size_t)n * sizeof(snw_faff);
    sc.Us = (snw_faff *)sp; sp += (size_t)n * sizeof(snw_faff);
    sc.a = (float *)sp; sp += (size_t)n * 16u;
    sc.pal = (float *)sp;

    uint64_t t0 = step_ns ? ticks_ns() : 0;
    /* 1. sample (or take the pose) */
    if (ch->pose) {
        for (uint32_t j = 0; j < n; j++) {
            if (!transform_is_finite(&ch->pose[j])) return SINEW_ERROR_NON_FINITE;
            ftrs_from_transform(&ch->pose[j], &sc.local[j]);
        }
    } else if (blended) {
        /* G and H are free until FK: the layer sample and the additive reference */
        snw_blend_sample_f32(ch->layers, ch->layer_count, fj, n, ch->joint_lod, sc.local, (snw_ftrs *)sc.G,
                             (snw_ftrs *)sc.H);
    } else if (ch->clip) { /* cut joints (bone LOD) not sampled: their rest pose */
        snw_clip_sample_f32_cut(ch->clip, fj, n, ch->time, ch->wrap, ch->joint_lod, sc.local);
    } else {
        for (uint32_t j = 0; j < n; j++) sc.local[j] = fj[j].rest;
    }
    if (ch->joint_lod && (ch->pose || blended)) /* bone LOD: cut joints at rest */
        for (uint32_t j = 0; j < n; j++)
            if (fj[j].depth >= ch->joint_lod) sc.local[j] = fj[j].rest;
    uint64_t t1 = step_ns ? ticks_ns() : 0;
    snw_faff root;
    if (ch->root) aff_from_mat4(ch->root, &root);
    const snw_faff *rootp = ch->root ? &root : NULL;
    /* 2. FK, 3. palette entries */
    sinew_result r = SINEW_OK;
    uint64_t t2;
    float rootqt[8];
    int quat_case = method != SINEW_K_LBS && fj[0].skel_rigid && unit_scales(sc.local, n);
    if (quat_case && rootp) {
        quat_case = snw_ortho_error(rootp->r) <= 1e-6f && snw_det3(rootp->r) > 0;
        if (quat_case) {
            quat_from_rows(rootp->r, rootqt);
            rootqt[4] = rootp->r[0][3]; rootqt[5] = rootp->r[1][3]; rootqt[6] = rootp->r[2][3]; rootqt[7] = 0;
        }
    }
    if (quat_case) {
        stage_fk_quat(fj, n, sc.local, rootp ? rootqt : NULL, (float *)sc.G, (float *)sc.H);
        t2 = step_ns ? ticks_ns() : 0;
        stage_pal_quat(fj, n, (const float *)sc.G, method, ch->flags, sc.pal, stride);
    } else if (method == SINEW_K_LBS || method == SINEW_K_DQS || method == SINEW_K_COR) {
        stage_fk_rigid(fj, n, sc.local, rootp, sc.G);
        t2 = step_ns ? ticks_ns() : 0;
        r = stage_pal_rigid(fj, n, sc.G, method, ch->flags, sc.pal, stride);
    } else {
        if (fj[0].skel_rigid && (method == SINEW_K_DQS_SCALE || method == SINEW_K_COR_SCALE))
            r = stage_fk_scaled_global(fj, n, sc.local, rootp, &sc);
        else
            r = stage_fk_scaled(fj, n, sc.local, rootp, method, &sc);
        t2 = step_ns ? ticks_ns() : 0;
        if (r == SINEW_OK) r = stage_pal_scaled(fj, n, &sc, method, ch->flags, stride);
    }
    if (r != SINEW_OK) return r;
    if (stride != SINEW_PAL_USED_SLOTS(method, ch->flags)) /* the pad slot (SINEW_PAL_PAD): zeros */
        for (uint32_t j = 0; j < n; j++) memset(sc.pal + ((size_t)j * stride + stride - 1u) * 4u, 0, 16u);
    uint64_t t3 = step_ns ? ticks_ns() : 0;
    /* 4. pack: checked copy to the destination */
    float max_abs = 0;
    int ok = pack_checked(sc.pal, (size_t)n * stride * 4u, dst, &max_abs);
    if (ok && ch->value_limit > 0 && (double)max_abs > ch->value_limit) ok = 0;
    if (step_ns) {
        uint64_t t4 = ticks_ns();
        step_ns[0] += (double)(t1 - t0);
        step_ns[1] += (double)(t2 - t1);
        step_ns[2] += (double)(t3 - t2);
        step_ns[3] += (double)(t4 - t3);
    }
    return ok ? SINEW_OK : SINEW_ERROR_NON_FINITE;
}

sinew_result sinew_palette_build_f32(const sinew_palette_character *ch, void *scratch, size_t scratch_bytes, float *dst)
{
    return build_f32(ch, scratch, scratch_bytes, dst, NULL);
}

sinew_result sinew_palette_build_f32_timed(const sinew_palette_character *ch, void *scratch, size_t scratch_bytes,
                                           float *dst, double step_ns[4])
{
    if (!step_ns) return SINEW_ERROR_INVALID_ARGUMENT;
    return build_f32(ch, scratch, scratch_bytes, dst, step_ns);
}

sinew_result sinew_palette_job_layout(sinew_palette_character *chars, uint32_t count, uint64_t *total_vec4)
{
    if (!chars || !total_vec4) return SINEW_ERROR_INVALID_ARGUMENT;
    uint64_t slots = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!chars[i].skeleton || (unsigned)chars[i].method >= (unsigned)SINEW_METHOD_COUNT)
            return SINEW_ERROR_INVALID_ARGUMENT;
        chars[i].palette_offset = (uint32_t)slots;
        slots += (uint64_t)sinew_skeleton_joint_count(chars[i].skeleton) *
                 sinew_palette_gpu_stride(chars[i].method, chars[i].flags);
        if (slots > UINT32_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
    }
    *total_vec4 = slots;
    return SINEW_OK;
}

sinew_result sinew_palette_job_run_range(const sinew_palette_job *job, uint32_t first, uint32_t end, void *scratch,
                                         size_t scratch_bytes, uint32_t *bad_character)
{
    if (bad_character) *bad_character = UINT32_MAX;
    if (!job || !job->characters || !job->dst || first > end || end > job->count) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = first; i < end; i++) {
        const sinew_palette_character *ch = &job->characters[i];
        sinew_result r = SINEW_OK;
        if (!ch->skeleton || (unsigned)ch->method >= (unsigned)SINEW_METHOD_COUNT) {
            r = SINEW_ERROR_INVALID_ARGUMENT;
        } else {
            uint64_t need = (uint64_t)ch->palette_offset +
                            (uint64_t)sinew_skeleton_joint_count(ch->skeleton) * sinew_palette_gpu_stride(ch->method, ch->flags);
            if (need > job->dst_capacity_vec4) r = SINEW_ERROR_CAPACITY;
            else r = sinew_palette_build_f32(ch, scratch, scratch_bytes, job->dst + (size_t)ch->palette_offset * 4u);
        }
        if (r != SINEW_OK) {
            if (bad_character) *bad_character = i;
            return r;
        }
    }
    return SINEW_OK;
}
