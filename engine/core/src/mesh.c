/* Sinew mesh data: influence packing (merge, prune to 4, renormalize, quantize
 * with largest remainders), automatic weights, bulge-correction rest distances.
 * Nothing here allocates: every function works in place or with fixed-size
 * locals (top-4 lists), writing into arrays the caller provides. */
#include <sinew/linalg.h>
#include "sinew/mesh.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---- */

static int finite3f(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

/* A joint/weight pair kept in a top-4 list. */
typedef struct influence { uint32_t joint; double weight; } influence;

/* 1 when a ranks before b: larger weight first, ties by lower joint index. */
static int ranks_before(double wa, uint32_t ja, double wb, uint32_t jb)
{
    return wa > wb || (wa == wb && ja < jb);
}

/* Most influences a packed vertex holds (sinew_vertex8). */
#define MAX_KEPT 8u

/* Inserts (joint, weight) into a list sorted by ranks_before, keeping at most kmax. */
static void topk_insert(influence *top, uint32_t *count, uint32_t kmax, uint32_t joint, double weight)
{
    uint32_t n = *count, pos = n;
    while (pos > 0 && ranks_before(weight, joint, top[pos - 1].weight, top[pos - 1].joint)) pos--;
    if (pos >= kmax) return;
    if (n == kmax) n = kmax - 1;      /* the last one falls off */
    for (uint32_t k = n; k > pos; k--) top[k] = top[k - 1];
    top[pos].joint = joint;
    top[pos].weight = weight;
    *count = n + 1;
}

double sinew_distance_to_segment(sinew_vec3 p, sinew_vec3 a, sinew_vec3 b, sinew_vec3 *closest)
{
    double abx = b.x - a.x, aby = b.y - a.y, abz = b.z - a.z;
    double l2 = abx * abx + aby * aby + abz * abz, t = 0.0;
    sinew_vec3 c;
    if (l2 > 0.0) {
        t = ((p.x - a.x) * abx + (p.y - a.y) * aby + (p.z - a.z) * abz) / l2;
        t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    }
    c.x = a.x + t * abx;
    c.y = a.y + t * aby;
    c.z = a.z + t * abz;
    if (closest) *closest = c;
    return sqrt((p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y) + (p.z - c.z) * (p.z - c.z));
}

/* Renormalizes the kept weights in double and quantizes them to unorm16 with
 * largest remainders (sum exactly 65535), then sorts the slots by decreasing
 * quantized weight (ties: lower joint index); q receives the weights. */
static void quantize(influence *top, uint32_t kept, uint32_t q[MAX_KEPT])
{
    double sum = 0.0, rem[MAX_KEPT];
    uint32_t qsum = 0;
    /* renormalize in double, quantize with largest remainders: sum exactly 65535 */
    for (uint32_t k = 0; k < kept; k++) sum += top[k].weight;
    for (uint32_t k = 0; k < kept; k++) {
        double s = top[k].weight / sum * 65535.0;
        double f = floor(s);
        if (f > 65535.0) f = 65535.0;
        q[k] = (uint32_t)f;
        rem[k] = s - f;
        qsum += q[k];
    }
    /* qsum <= 65535 since floor(s) <= s; hand the missing units to the largest
     * remainders (ties: the larger weight, i.e. the earlier slot), cyclically in
     * case rounding left more units than slots (it cannot in exact arithmetic) */
    while (qsum < 65535u) {
        uint32_t order[MAX_KEPT], m = 0;
        for (uint32_t k = 0; k < kept; k++) {
            uint32_t b = m;
            while (b > 0 && rem[k] > rem[order[b - 1]]) { order[b] = order[b - 1]; b--; }
            order[b] = k;
            m++;
        }
        for (uint32_t k = 0; k < kept && qsum < 65535u; k++) { q[order[k]]++; qsum++; }
    }
    /* sort by decreasing quantized weight, ties by lower joint index (insertion sort) */
    for (uint32_t a = 1; a < kept; a++) {
        uint32_t qa = q[a], ja = top[a].joint, b = a;
        while (b > 0 && ranks_before((double)qa, ja, (double)q[b - 1], top[b - 1].joint)) {
            q[b] = q[b - 1];
            top[b].joint = top[b - 1].joint;
            b--;
        }
        q[b] = qa;
        top[b].joint = ja;
    }
}

/* Writes one packed vertex: position, octahedral normal (normalized in double;
 * NULL or zero -> the zero code), joints and weights (unused slots: weight 0,
 * joint = slot 0's). */
static uint32_t encode_normal(const float *nm)
{
    uint32_t code;
    if (nm) {
        double nx = nm[0], ny = nm[1], nz = nm[2];
        double l = sqrt(nx * nx + ny * ny + nz * nz);
        sinew_vec3 u = { 0.0, 0.0, 0.0 };
        if (l > 0.0 && isfinite(l)) { u.x = nx / l; u.y = ny / l; u.z = nz / l; }
        code = sinew_oct_encode(u);
    } else {
        sinew_vec3 zero = { 0.0, 0.0, 0.0 };
        code = sinew_oct_encode(zero);
    }
    return code;
}

static void write_slots(uint16_t *joints, uint16_t *weights, uint32_t slots, const influence *top, uint32_t kept,
                        const uint32_t q[MAX_KEPT])
{
    for (uint32_t k = 0; k < slots; k++) {
        if (k < kept && q[k] > 0) {
            joints[k] = (uint16_t)top[k].joint;
            weights[k] = (uint16_t)q[k];
        } else {
            joints[k] = (uint16_t)top[0].joint;
            weights[k] = 0;
        }
    }
}

/* ---- packing ---- */

/* Packs into sinew_vertex (slots 4) or sinew_vertex8 (slots 8). */
static sinew_result pack_vertices(uint32_t n, const float *positions, const float *normals,
                                  const sinew_influences *influences, uint32_t joint_count, uint32_t slots,
                                  sinew_vertex *out4, sinew_vertex8 *out8, sinew_pack_stats *stats,
                                  uint32_t *bad_vertex)
{
    sinew_vertex *out = out4;
    if (slots == 8u) out = (sinew_vertex *)(void *)out8; /* only checked for NULL */
    sinew_pack_stats st = {0, 0, 0};
    if (bad_vertex) *bad_vertex = 0;
    if (stats) *stats = st;
    if (!positions || !influences || !influences->joints || !influences->weights || !out)
        return SINEW_ERROR_INVALID_ARGUMENT;
    if (!influences->offsets && influences->per_vertex == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0 || joint_count == 0) return SINEW_ERROR_EMPTY;
    if (joint_count > SINEW_MAX_JOINTS) return SINEW_ERROR_LIMIT_EXCEEDED;

    for (uint32_t i = 0; i < n; i++) {
        const float *p = positions + 3 * (size_t)i;
        const float *nm = normals ? normals + 3 * (size_t)i : NULL;
        size_t begin, end;
        influence top[MAX_KEPT];
        uint32_t kept = 0, distinct = 0;
        uint32_t q[MAX_KEPT];

        if (bad_vertex) *bad_vertex = i;
        if (!finite3f(p) || (nm && !finite3f(nm))) return SINEW_ERROR_NON_FINITE;
        if (influences->offsets) {
            begin = influences->offsets[i];
            end = influences->offsets[i + 1];
            if (end < begin) return SINEW_ERROR_INVALID_ARGUMENT;
        } else {
            begin = (size_t)i * influences->per_vertex;
            end = begin + influences->per_vertex;
        }
        /* validate every entry; zero-weight entries are dropped unchecked otherwise */
        for (size_t e = begin; e < end; e++) {
            float we = influences->weights[e];
            if (!isfinite(we) || we < 0.0f) return SINEW_ERROR_INVALID_WEIGHT;
            if (we > 0.0f && influences->joints[e] >= joint_count) return SINEW_ERROR_JOINT_INDEX;
        }
        /* merge entries naming the same joint, keep the `slots` largest distinct joints */
        for (size_t e = begin; e < end; e++) {
            uint32_t j = influences->joints[e];
            double total = 0.0;
            int seen = 0;
            if (!(influences->weights[e] > 0.0f)) continue;
            for (size_t f = begin; f < e; f++)
                if (influences->joints[f] == j && influences->weights[f] > 0.0f) { seen = 1; break; }
            if (seen) continue;
            for (size_t f = e; f < end; f++)
                if (influences->joints[f] == j) total += influences->weights[f];
            distinct++;
            topk_insert(top, &kept, slots, j, total);
        }
        if (kept == 0) return SINEW_ERROR_INVALID_WEIGHT;   /* weights sum to zero */
        if (distinct > st.max_influences) st.max_influences = distinct;
        if (distinct > slots) { st.vertices_pruned++; st.influences_pruned += distinct - slots; }

        quantize(top, kept, q);
        if (slots == 8u) {
            sinew_vertex8 *v = &out8[i];
            memcpy(v->position, p, sizeof(v->position));
            v->normal_oct = encode_normal(nm);
            write_slots(v->joints, v->weights, 8u, top, kept, q);
        } else {
            sinew_vertex *v = &out4[i];
            memcpy(v->position, p, sizeof(v->position));
            v->normal_oct = encode_normal(nm);
            write_slots(v->joints, v->weights, 4u, top, kept, q);
        }
    }
    if (bad_vertex) *bad_vertex = 0;
    if (stats) *stats = st;
    return SINEW_OK;
}

sinew_result sinew_pack_vertices(uint32_t n, const float *positions, const float *normals,
                                 const sinew_influences *influences, uint32_t joint_count,
                                 sinew_vertex *out, sinew_pack_stats *stats, uint32_t *bad_vertex)
{
    return pack_vertices(n, positions, normals, influences, joint_count, 4u, out, NULL, stats, bad_vertex);
}

sinew_result sinew_pack_vertices8(uint32_t n, const float *positions, const float *normals,
                                  const sinew_influences *influences, uint32_t joint_count,
                                  sinew_vertex8 *out, sinew_pack_stats *stats, uint32_t *bad_vertex)
{
    return pack_vertices(n, positions, normals, influences, joint_count, 8u, NULL, out, stats, bad_vertex);
}

double sinew_vertex8_weight(const sinew_vertex8 *v, int k)
{
    if (!v || k < 0 || k > 7) return 0.0;
    return (double)v->weights[k] / 65535.0;
}

double sinew_vertex_weight(const sinew_vertex *v, int k)
{
    if (!v || k < 0 || k > 3) return 0.0;
    return (double)v->weights[k] / 65535.0;
}

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

/* ---- bulge correction ---- */

/* Rest distance of one vertex to its major joint's bind segment. */
static sinew_result bulge_distance(const sinew_skeleton *skel, uint32_t jc, const float *pos, uint32_t major,
                                   float *out)
{
    sinew_vec3 h, t, p;
    if (major >= jc) return SINEW_ERROR_JOINT_INDEX;
    if (!finite3f(pos)) return SINEW_ERROR_NON_FINITE;
    p.x = pos[0]; p.y = pos[1]; p.z = pos[2];
    sinew_skeleton_bone_segment(skel, major, &h, &t);
    *out = (float)sinew_distance_to_segment(p, h, t, NULL);
    return SINEW_OK;
}

sinew_result sinew_bulge_rest_distances(const sinew_skeleton *skel, uint32_t n,
                                        const sinew_vertex *v, float *out)
{
    uint32_t jc;
    if (!skel || !v || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    jc = sinew_skeleton_joint_count(skel);
    for (uint32_t i = 0; i < n; i++) {
        sinew_result r = bulge_distance(skel, jc, v[i].position, v[i].joints[0], &out[i]);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

sinew_result sinew_bulge_rest_distances8(const sinew_skeleton *skel, uint32_t n,
                                         const sinew_vertex8 *v, float *out)
{
    uint32_t jc;
    if (!skel || !v || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    jc = sinew_skeleton_joint_count(skel);
    for (uint32_t i = 0; i < n; i++) {
        sinew_result r = bulge_distance(skel, jc, v[i].position, v[i].joints[0], &out[i]);
        if (r != SINEW_OK) return r;
    }
    return SINEW_OK;
}

sinew_result sinew_pack_tangents(uint32_t n, const float *tangents4, sinew_tangent *out, uint32_t *bad_vertex)
{
    if (bad_vertex) *bad_vertex = UINT32_MAX;
    if (!tangents4 || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
            if (!isfinite(tangents4[4 * (size_t)i + k])) {
                if (bad_vertex) *bad_vertex = i;
                return SINEW_ERROR_NON_FINITE;
            }
    for (uint32_t i = 0; i < n; i++) {
        const float *t = tangents4 + 4 * (size_t)i;
        double x = t[0], y = t[1], z = t[2];
        double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
        if (fabs(z) > m) m = fabs(z);
        sinew_vec3 d = { 0, 0, 0 };
        if (m > 0) { /* scaled first: tiny and huge directions normalize without under/overflow */
            x /= m; y /= m; z /= m;
            double l = sqrt(x * x + y * y + z * z);
            d = sinew_v3(x / l, y / l, z / l);
        }
        out[i].tangent_oct = m > 0 ? sinew_oct_encode(d) : SINEW_OCT_ZERO;
        out[i].sign = t[3] < 0.0f ? -1.0f : 1.0f;
    }
    return SINEW_OK;
}
