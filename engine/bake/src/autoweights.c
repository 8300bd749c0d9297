/* Sinew automatic weights (sinew/autoweights.h): inverse-distance weights to
 * the bone segments, pruned to 4. */
#include <sinew/linalg.h>
#include "sinew/autoweights.h"
#include "sinew/mesh.h"
#include "topk_internal.h"

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

