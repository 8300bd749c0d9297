/* Sinew mesh data: influence packing (merge, prune to 4, renormalize, quantize
 * with largest remainders), bulge-correction rest distances.
 * Nothing here allocates: every function works in place or with fixed-size
 * locals (top-4 lists), writing into arrays the caller provides. */
#include <sinew/linalg.h>
#include "sinew/mesh.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---- */

#include "topk_internal.h"

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
