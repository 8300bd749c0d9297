/* Sinew automatic weights (sinew/autoweights.h): inverse-distance weights to
 * the bone segments, pruned to 4. */
#include <sinew/linalg.h>
#include "sinew/autoweights.h"
#include "sinew/mesh.h"
#include "topk_internal.h"
#include "bake_cache_internal.h"
#include "error_internal.h"

#include <stdlib.h>

#include <math.h>
#include <string.h>

/* ---- automatic weights ---- */

/* Joint j may receive weight under desc d (mask, point segments skipped). */
static int aw_eligible(const sinew_skeleton *skel, const sinew_auto_weights_desc *d, uint32_t j, double eps)
{
    sinew_vec3 h, t;
    if (d->joint_mask && !d->joint_mask[j]) return 0;
    if (!d->skip_point_segments) return 1;
    sinew_skeleton_bone_segment(skel, j, &h, &t);
    return sinew_distance_to_segment(t, h, h, NULL) > eps;
}

/* Validates; *eps = 1e-9 * skeleton size (the diagonal of the bounding box of every
 * bone segment, 1 if 0). Returns SINEW_OK or the error of sinew_auto_weights_ex. */
static sinew_result aw_prepare(const sinew_skeleton *skel, const sinew_auto_weights_desc *d, uint32_t n, double *eps)
{
    uint32_t jc, eligible = 0;
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY }, size;
    if (!skel || !d) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!(d->alpha > 0.0) || !isfinite(d->alpha)) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    jc = sinew_skeleton_joint_count(skel);
    if (jc == 0) return SINEW_ERROR_EMPTY;
    for (uint32_t j = 0; j < jc; j++) {
        sinew_vec3 h, t;
        sinew_skeleton_bone_segment(skel, j, &h, &t);
        double c[6] = { h.x, h.y, h.z, t.x, t.y, t.z };
        for (int k = 0; k < 6; k++) {
            /* squared distances to segments this far overflow to inf - inf = NaN */
            if (!(fabs(c[k]) <= SINEW_AUTO_WEIGHTS_MAX_COORD)) return SINEW_ERROR_LIMIT_EXCEEDED;
            if (c[k] < lo[k % 3]) lo[k % 3] = c[k];
            if (c[k] > hi[k % 3]) hi[k % 3] = c[k];
        }
    }
    size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (!(size > 0.0) || !isfinite(size)) size = 1.0;
    *eps = 1e-9 * size;
    for (uint32_t j = 0; j < jc; j++) eligible += (uint32_t)aw_eligible(skel, d, j, *eps);
    return eligible ? SINEW_OK : SINEW_ERROR_EMPTY;
}

/* The automatic weights of one vertex (4 joints, 4 weights; see mesh.h). */
static void aw_vertex(const sinew_skeleton *skel, const sinew_auto_weights_desc *d, double eps, const float *pos,
                      uint32_t *joints4, float *weights4)
{
    uint32_t jc = sinew_skeleton_joint_count(skel), kept = 0;
    sinew_vec3 p = { pos[0], pos[1], pos[2] };
    influence top[4] = { { 0, 0.0 }, { 0, 0.0 }, { 0, 0.0 }, { 0, 0.0 } };
    double w[4], sum = 0.0;
    /* the 4 nearest bones; on-bone distances count as 0 so ties go to lower indices.
     * topk_insert ranks larger first, so rank by -distance. */
    for (uint32_t j = 0; j < jc; j++) {
        sinew_vec3 h, t;
        double dist;
        if (!aw_eligible(skel, d, j, eps)) continue;
        sinew_skeleton_bone_segment(skel, j, &h, &t);
        dist = sinew_distance_to_segment(p, h, t, NULL);
        if (dist <= eps) dist = 0.0;
        topk_insert(top, &kept, 4u, j, -dist);
    }
    if (top[0].weight == 0.0) {       /* on one or more bones: equal shares */
        for (uint32_t k = 0; k < kept; k++) w[k] = top[k].weight == 0.0 ? 1.0 : 0.0;
    } else {                          /* k(d) = d^-alpha, scaled by dmin^alpha (no overflow) */
        double dmin = -top[0].weight;
        for (uint32_t k = 0; k < kept; k++) w[k] = pow(dmin / -top[k].weight, d->alpha);
    }
    for (uint32_t k = 0; k < kept; k++) sum += w[k];
    for (uint32_t k = 0; k < 4; k++) {
        int used = k < kept && w[k] > 0.0;
        joints4[k] = used ? top[k].joint : top[0].joint;
        weights4[k] = used ? (float)(w[k] / sum) : 0.0f;
    }
}

sinew_result sinew_auto_weights_ex(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc, uint32_t n,
                                   const float *positions, uint32_t *joints4, float *weights4)
{
    double eps;
    sinew_result r;
    if (!positions || !joints4 || !weights4) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((r = aw_prepare(skel, desc, n, &eps)) != SINEW_OK) return r;
    for (uint32_t i = 0; i < n; i++)
        if (!finite3f(positions + 3 * (size_t)i)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t i = 0; i < n; i++)
        aw_vertex(skel, desc, eps, positions + 3 * (size_t)i, joints4 + 4 * (size_t)i, weights4 + 4 * (size_t)i);
    return SINEW_OK;
}

sinew_result sinew_auto_weights(const sinew_skeleton *skel, uint32_t n, const float *positions,
                                double alpha, uint32_t *joints4, float *weights4)
{
    sinew_auto_weights_desc d;
    memset(&d, 0, sizeof d);
    d.alpha = alpha;
    return sinew_auto_weights_ex(skel, &d, n, positions, joints4, weights4);
}

sinew_result sinew_auto_weights_packed(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc, uint32_t n,
                                       sinew_vertex *v)
{
    double eps;
    sinew_result r;
    uint32_t jc;
    if (!v) return SINEW_ERROR_INVALID_ARGUMENT;
    if ((r = aw_prepare(skel, desc, n, &eps)) != SINEW_OK) return r;
    jc = sinew_skeleton_joint_count(skel);
    for (uint32_t i = 0; i < n; i++)
        if (!finite3f(v[i].position)) return SINEW_ERROR_NON_FINITE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j4[4], oct = v[i].normal_oct;
        float w4[4], pos[3] = { v[i].position[0], v[i].position[1], v[i].position[2] }, nrm[3] = { 0, 0, 0 };
        sinew_influences inf;
        memset(&inf, 0, sizeof inf);
        aw_vertex(skel, desc, eps, pos, j4, w4);
        inf.per_vertex = 4;
        inf.joints = j4;
        inf.weights = w4;
        /* pack with a zero normal, then restore the packed normal bit for bit */
        r = sinew_pack_vertices(1, pos, nrm, &inf, jc, &v[i], NULL, NULL);
        if (r != SINEW_OK) return r;   /* not reached: weights are finite, positive, summing to 1 */
        v[i].normal_oct = oct;
    }
    return SINEW_OK;
}


/* ---- through the bake cache ---- */

/* Version of the automatic weights' computation, part of the cache key. */
#define SNW_AW_ALGORITHM_VERSION 1u

static void aw_key(const sinew_skeleton *skel, const sinew_auto_weights_desc *d, uint32_t n, const float *positions,
                   uint8_t key[16])
{
    snw_hash h;
    uint32_t jc = sinew_skeleton_joint_count(skel);
    snw_hash_init(&h, SNW_CACHE_KIND_WEIGHTS, SNW_AW_ALGORITHM_VERSION);
    snw_hash_f64(&h, d->alpha);
    snw_hash_u64(&h, d->skip_point_segments != 0);
    snw_hash_u64(&h, jc);
    for (uint32_t j = 0; j < jc; j++) {
        sinew_vec3 hd, tl;
        sinew_skeleton_bone_segment(skel, j, &hd, &tl);
        snw_hash_f64(&h, hd.x); snw_hash_f64(&h, hd.y); snw_hash_f64(&h, hd.z);
        snw_hash_f64(&h, tl.x); snw_hash_f64(&h, tl.y); snw_hash_f64(&h, tl.z);
        snw_hash_u64(&h, d->joint_mask ? d->joint_mask[j] != 0 : 1);
    }
    snw_hash_u64(&h, n);
    for (size_t k = 0; k < 3 * (size_t)n; k++) snw_hash_f32(&h, positions[k]);
    snw_hash_final(&h, key);
}

sinew_result sinew_auto_weights_ex_cached(const sinew_skeleton *skel, const sinew_auto_weights_desc *desc, uint32_t n,
                                          const float *positions, uint32_t *joints4, float *weights4,
                                          const char *cache_path, sinew_bake_cache_report *report, sinew_error_info *err)
{
    double eps;
    sinew_result r;
    snw_error_clear(err);
    snw_cache_report_clear(report);
    if (!positions || !joints4 || !weights4)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "positions, joints4 or weights4 is NULL");
    if ((r = aw_prepare(skel, desc, n, &eps)) != SINEW_OK)
        return snw_fail(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, "automatic weights: %s", sinew_result_string(r));
    for (uint32_t i = 0; i < n; i++)
        if (!finite3f(positions + 3 * (size_t)i))
            return snw_fail(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_VERTEX, i, "vertex %u: position not finite", i);
    const uint64_t bytes = 32ull * n; /* 4 joints (u32) + 4 weights (f32) */
    uint8_t key[16], *buf = NULL;
    char why[160] = "";
    if (cache_path) {
        aw_key(skel, desc, n, positions, key);
        buf = (uint8_t *)malloc((size_t)bytes);
        if (!buf) return snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "out of host memory");
        int got = snw_cache_read(cache_path, SNW_CACHE_KIND_WEIGHTS, SNW_AW_ALGORITHM_VERSION, key, n, buf, bytes, why,
                                 sizeof why);
        const uint32_t jc = sinew_skeleton_joint_count(skel);
        for (uint32_t i = 0; i < n && got == 1; i++) { /* hostile input: joints in range, weights in [0, 1] summing to 1 */
            double sum = 0;
            for (int k = 0; k < 4 && got == 1; k++) {
                uint32_t j = snw_get_u32le(buf + 32 * (size_t)i + 4 * k), u = snw_get_u32le(buf + 32 * (size_t)i + 16 + 4 * k);
                float w;
                memcpy(&w, &u, sizeof w);
                if (j >= jc) { snprintf(why, sizeof why, "vertex %u: joint %u out of range", i, j); got = -1; }
                else if (!(w >= 0.0f && w <= 1.0f)) { snprintf(why, sizeof why, "vertex %u: weight not in [0, 1]", i); got = -1; }
                sum += w;
            }
            if (got == 1 && !(fabs(sum - 1.0) <= 1e-5)) { snprintf(why, sizeof why, "vertex %u: weights do not sum to 1", i); got = -1; }
        }
        if (got == 1) {
            for (size_t k = 0; k < 4 * (size_t)n; k++) {
                uint32_t u = snw_get_u32le(buf + 32 * (k / 4) + 16 + 4 * (k % 4));
                joints4[k] = snw_get_u32le(buf + 32 * (k / 4) + 4 * (k % 4));
                memcpy(&weights4[k], &u, sizeof u);
            }
            free(buf);
            if (report) report->loaded = true;
            return SINEW_OK;
        }
        if (got == -1 && report) {
            report->refused = true;
            snprintf(report->message, sizeof report->message, "%.120s refused: %s", cache_path, why);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        aw_vertex(skel, desc, eps, positions + 3 * (size_t)i, joints4 + 4 * (size_t)i, weights4 + 4 * (size_t)i);
    if (cache_path) {
        for (size_t k = 0; k < 4 * (size_t)n; k++) {
            uint32_t u;
            memcpy(&u, &weights4[k], sizeof u);
            snw_put_u32le(buf + 32 * (k / 4) + 4 * (k % 4), joints4[k]);
            snw_put_u32le(buf + 32 * (k / 4) + 16 + 4 * (k % 4), u);
        }
        int ok = snw_cache_write(cache_path, SNW_CACHE_KIND_WEIGHTS, SNW_AW_ALGORITHM_VERSION, key, n, buf, bytes, why,
                                 sizeof why);
        if (report) {
            report->written = ok != 0;
            if (!ok) snprintf(report->message, sizeof report->message, "%.120s not written: %s", cache_path, why);
        }
        free(buf);
    }
    return SINEW_OK;
}
