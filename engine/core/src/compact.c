/* The compact rest layout (sinew_vertex_compact, sinew/mesh.h; docs/vertex-streams.md):
 * 16 bytes per 4-influence vertex, encoded from sinew_vertex and decoded back to the
 * sinew_vertex the GPU skins. */
#include <sinew/linalg.h>
#include <sinew/mesh.h>

#include <math.h>
#include <string.h>

/* The 16-bit octahedral code of the 12-bit pair (ox, oy): x, y = 16 ox, 16 oy. */
static uint32_t oct12_to16(int ox, int oy)
{
    return (uint32_t)(uint16_t)(int16_t)(ox * 16) | ((uint32_t)(uint16_t)(int16_t)(oy * 16) << 16);
}

/* The 12-bit code (ox | oy << 12) nearest the normal of 16-bit code c: the octahedral
 * point of the decoded normal, the four neighbouring 12-bit grid points tried, the one
 * whose decode is closest by |n x d| kept. The zero code stays zero (-2048, -2048). */
static uint32_t oct12_encode(uint32_t c)
{
    if (c == SINEW_OCT_ZERO) return 0x800u | (0x800u << 12);
    sinew_vec3 n = sinew_oct_decode(c);
    double l1 = fabs(n.x) + fabs(n.y) + fabs(n.z);
    double px = n.x / l1, py = n.y / l1;
    if (n.z < 0) {
        double ox = px, oy = py;
        px = (1.0 - fabs(oy)) * (ox >= 0 ? 1.0 : -1.0);
        py = (1.0 - fabs(ox)) * (oy >= 0 ? 1.0 : -1.0);
    }
    double bx = floor(px * 32767.0 / 16.0), by = floor(py * 32767.0 / 16.0);
    uint32_t best = 0;
    double best_err = 1e300;
    for (int i = 0; i < 4; i++) {
        double fx = bx + (i & 1), fy = by + (i >> 1);
        int qx = (int)(fx < -2047 ? -2047 : fx > 2047 ? 2047 : fx);
        int qy = (int)(fy < -2047 ? -2047 : fy > 2047 ? 2047 : fy);
        sinew_vec3 d = sinew_oct_decode(oct12_to16(qx, qy));
        sinew_vec3 x = sinew_v3_cross(d, n);
        double err = sinew_v3_dot(d, n) > 0 ? sinew_v3_dot(x, x) : 1e299;
        if (err < best_err) {
            best_err = err;
            best = ((uint32_t)qx & 0xfffu) | (((uint32_t)qy & 0xfffu) << 12);
        }
    }
    return best;
}

sinew_result sinew_compact_encode(uint32_t n, const sinew_vertex *v, sinew_vertex_compact *out,
                                  sinew_compact_box *box, uint32_t *bad_vertex)
{
    if (bad_vertex) *bad_vertex = UINT32_MAX;
    if (!v || !out || !box) return SINEW_ERROR_INVALID_ARGUMENT;
    if (n == 0) return SINEW_ERROR_EMPTY;
    float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t i = 0; i < n; i++) {
        uint32_t sum = 0;
        for (int k = 0; k < 4; k++) {
            if (v[i].joints[k] >= SINEW_COMPACT_MAX_JOINTS) {
                if (bad_vertex) *bad_vertex = i;
                return SINEW_ERROR_JOINT_INDEX;
            }
            sum += v[i].weights[k];
        }
        if (sum != 65535u) {
            if (bad_vertex) *bad_vertex = i;
            return SINEW_ERROR_INVALID_WEIGHT;
        }
        for (int a = 0; a < 3; a++) {
            float p = v[i].position[a];
            if (!isfinite(p)) {
                if (bad_vertex) *bad_vertex = i;
                return SINEW_ERROR_NON_FINITE;
            }
            lo[a] = p < lo[a] ? p : lo[a];
            hi[a] = p > hi[a] ? p : hi[a];
        }
    }
    for (int a = 0; a < 3; a++) {
        box->offset[a] = lo[a];
        double ext = (double)hi[a] - (double)lo[a];
        /* rounded up so that offset + 65535 step reaches the maximum */
        float st = (float)(ext / 65535.0);
        if ((double)st * 65535.0 < ext) st = nextafterf(st, INFINITY);
        box->step[a] = ext > 0 ? st : 0.0f;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q[3];
        for (int a = 0; a < 3; a++) {
            double t = box->step[a] > 0 ? ((double)v[i].position[a] - box->offset[a]) / box->step[a] : 0.0;
            double r = floor(t + 0.5);
            q[a] = r < 0 ? 0u : r > 65535.0 ? 65535u : (uint32_t)r;
        }
        /* weights: largest remainders to a sum of 255 */
        uint32_t w8[4], left = 255u;
        double frac[4];
        for (int k = 0; k < 4; k++) {
            double t = v[i].weights[k] * 255.0 / 65535.0;
            w8[k] = (uint32_t)floor(t);
            frac[k] = t - w8[k];
            left -= w8[k];
        }
        while (left) {
            int best = 0;
            for (int k = 1; k < 4; k++)
                if (frac[k] > frac[best]) best = k;
            w8[best]++;
            frac[best] = -1.0;
            left--;
        }
        uint32_t o = oct12_encode(v[i].normal_oct);
        out[i].words[0] = q[0] | q[1] << 16;
        out[i].words[1] = q[2] | w8[0] << 16 | w8[1] << 24;
        out[i].words[2] = (uint32_t)v[i].joints[0] | (uint32_t)v[i].joints[1] << 8 | (uint32_t)v[i].joints[2] << 16 |
                          (uint32_t)v[i].joints[3] << 24;
        out[i].words[3] = o | w8[2] << 24;
    }
    return SINEW_OK;
}

sinew_result sinew_compact_decode(uint32_t n, const sinew_vertex_compact *c, const sinew_compact_box *box,
                                  sinew_vertex *out)
{
    if (!c || !box || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c[i].words;
        uint32_t q[3] = { w[0] & 0xffffu, w[0] >> 16, w[1] & 0xffffu };
        for (int a = 0; a < 3; a++) {
            float t = (float)q[a] * box->step[a]; /* two float32 roundings, as the kernel */
            out[i].position[a] = box->offset[a] + t;
        }
        int ox = (int)(w[3] << 20) >> 20, oy = (int)(w[3] << 8) >> 20;
        out[i].normal_oct = oct12_to16(ox, oy);
        uint32_t w8[4] = { (w[1] >> 16) & 0xffu, w[1] >> 24, w[3] >> 24, 0 };
        w8[3] = 255u - w8[0] - w8[1] - w8[2];
        for (int k = 0; k < 4; k++) {
            out[i].joints[k] = (uint16_t)((w[2] >> (8 * k)) & 0xffu);
            out[i].weights[k] = (uint16_t)(w8[k] * 257u);
        }
    }
    return SINEW_OK;
}
