/* sinew/metrics.h on fresh random inputs against float64 recomputations written
 * here in the plainest form, and every error path (NULLs, bad index counts,
 * indices and joints out of range: the error names the triangle / vertex, and
 * nothing is written). Tolerances: volume 1e-12 relative (sums in another order),
 * distances 1e-12, angles 1e-9 degrees away from 0 (acos vs atan2). */
#include "testutil.h"
#include <sinew/metrics.h>
#include <sinew/mesh.h>

#include <math.h>
#include <string.h>

static double seg_dist(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3], t = 0, l2 = 0, d2 = 0;
    for (int k = 0; k < 3; k++) { ab[k] = b[k] - a[k]; ap[k] = p[k] - a[k]; l2 += ab[k] * ab[k]; t += ap[k] * ab[k]; }
    t = l2 > 0 ? t / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int k = 0; k < 3; k++) { double e = ap[k] - t * ab[k]; d2 += e * e; }
    return sqrt(d2);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5e7a1c5ull);
    enum { NV = 60, NT = 90, F = 7, J = 5 };
    static double pos[NV * 3], nrm[NV * 3], frames[F * NV * 3], scratch[NV * 3], out[NV];
    static uint32_t tri[NT * 3];
    static uint16_t major[NV];
    static sinew_palette_joint pal[J];
    sinew_error_info e;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < NV * 3; i++) { pos[i] = tu_uniform(&rng, -2, 2); nrm[i] = tu_uniform(&rng, -1, 1); }
        for (int i = 0; i < NT * 3; i++) tri[i] = tu_range(&rng, NV);
        /* volume: sum of a . (b x c) / 6 */
        double ref = 0, v = 0;
        for (int t = 0; t < NT; t++) {
            const double *a = pos + 3 * tri[3 * t], *b = pos + 3 * tri[3 * t + 1], *c = pos + 3 * tri[3 * t + 2];
            ref += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                    a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
        }
        TU_CHECK_OK(sinew_metric_volume(NV, pos, tri, NT * 3, &v, &e));
        TU_CHECK_NEAR(v, ref, 1e-12 * (fabs(ref) + 1));
        /* bone distances */
        for (int j = 0; j < J; j++) {
            pal[j].seg_head = sinew_v3(tu_uniform(&rng, -1, 1), tu_uniform(&rng, -1, 1), tu_uniform(&rng, -1, 1));
            pal[j].seg_tail = sinew_v3(tu_uniform(&rng, -1, 1), tu_uniform(&rng, -1, 1), tu_uniform(&rng, -1, 1));
        }
        pal[0].seg_tail = pal[0].seg_head; /* a zero-length bone: distance to its point */
        for (int i = 0; i < NV; i++) major[i] = (uint16_t)tu_range(&rng, J);
        TU_CHECK_OK(sinew_metric_bone_distances(NV, pos, major, pal, J, out, &e));
        for (int i = 0; i < NV; i++) {
            double a[3] = { pal[major[i]].seg_head.x, pal[major[i]].seg_head.y, pal[major[i]].seg_head.z };
            double b[3] = { pal[major[i]].seg_tail.x, pal[major[i]].seg_tail.y, pal[major[i]].seg_tail.z };
            TU_CHECK_NEAR(out[i], seg_dist(pos + 3 * i, a, b), 1e-12);
        }
        /* jumps: a random walk; ratio = max over vertices of max / median jump */
        for (int i = 0; i < NV * 3; i++) frames[i] = pos[i];
        for (int f = 1; f < F; f++)
            for (int i = 0; i < NV * 3; i++) frames[f * NV * 3 + i] = frames[(f - 1) * NV * 3 + i] + tu_uniform(&rng, -0.1, 0.1);
        double ratio = -1, mj = -1, want_r = 0, want_m = 0;
        for (int i = 0; i < NV; i++) {
            double d[F - 1], mx = 0;
            for (int f = 0; f < F - 1; f++) {
                double s = 0;
                for (int k = 0; k < 3; k++) { double x = frames[(f + 1) * NV * 3 + 3 * i + k] - frames[f * NV * 3 + 3 * i + k]; s += x * x; }
                d[f] = sqrt(s);
                if (d[f] > mx) mx = d[f];
            }
            /* median of 6 by insertion sort: mean of the two middle values */
            for (int a = 1; a < F - 1; a++)
                for (int b = a; b > 0 && d[b] < d[b - 1]; b--) { double x = d[b]; d[b] = d[b - 1]; d[b - 1] = x; }
            double med = 0.5 * (d[2] + d[3]);
            if (mx > want_m) want_m = mx;
            if (med > 0 && mx / med > want_r) want_r = mx / med;
        }
        TU_CHECK_OK(sinew_metric_jumps(F, NV, frames, 0.0, scratch, &ratio, &mj, &e));
        TU_CHECK_NEAR(ratio, want_r, 1e-12 * want_r);
        TU_CHECK_NEAR(mj, want_m, 1e-15);
        /* normal error: area-weighted face normals, angle by acos */
        TU_CHECK_OK(sinew_metric_normal_error(NV, pos, nrm, tri, NT * 3, scratch, out, &e));
        double acc[NV * 3] = { 0 };
        for (int t = 0; t < NT; t++) {
            const double *a = pos + 3 * tri[3 * t], *b = pos + 3 * tri[3 * t + 1], *c = pos + 3 * tri[3 * t + 2];
            double u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, w[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
            double cr[3] = { u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0] };
            for (int k = 0; k < 3; k++)
                for (int d = 0; d < 3; d++) acc[3 * tri[3 * t + k] + d] += cr[d];
        }
        int used[NV] = { 0 };
        for (int k = 0; k < NT * 3; k++) used[tri[k]] = 1;
        for (int i = 0; i < NV; i++) {
            const double *s = acc + 3 * i, *n = nrm + 3 * i;
            double ls = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]), ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (!used[i]) { TU_CHECK(out[i] == -1.0); continue; }
            double c = (s[0] * n[0] + s[1] * n[1] + s[2] * n[2]) / (ls * ln);
            double want = acos(c < -1 ? -1 : c > 1 ? 1 : c) * 180.0 / M_PI;
            /* acos loses digits near 0 and 180 degrees: 1e-9 deg elsewhere, 1e-5 there */
            TU_CHECK_NEAR(out[i], want, fabs(c) > 0.9999 ? 1e-5 : 1e-9);
        }
    }
    /* errors: nothing written, the culprit named */
    double v = 12345;
    TU_CHECK_RESULT(sinew_metric_volume(NV, NULL, tri, 3, &v, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.result == SINEW_ERROR_INVALID_ARGUMENT && e.item == SINEW_ITEM_ARGUMENT && v == 12345);
    TU_CHECK_RESULT(sinew_metric_volume(NV, pos, tri, 4, &v, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(strstr(e.message, "multiple of 3") != NULL);
    tri[3 * 7 + 1] = NV;
    TU_CHECK_RESULT(sinew_metric_volume(NV, pos, tri, NT * 3, &v, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.index == 7 && v == 12345);
    out[0] = 777;
    TU_CHECK_RESULT(sinew_metric_normal_error(NV, pos, nrm, tri, NT * 3, scratch, out, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.index == 7 && out[0] == 777);
    TU_CHECK_RESULT(sinew_metric_normal_error(NV, pos, NULL, tri, 3, scratch, out, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    major[9] = J;
    TU_CHECK_RESULT(sinew_metric_bone_distances(NV, pos, major, pal, J, out, &e), SINEW_ERROR_JOINT_INDEX);
    TU_CHECK(e.item == SINEW_ITEM_VERTEX && e.index == 9 && out[0] == 777);
    TU_CHECK_RESULT(sinew_metric_bone_distances(0, pos, major, pal, J, out, &e), SINEW_ERROR_INVALID_ARGUMENT);
    double r = 5, m = 5;
    TU_CHECK_RESULT(sinew_metric_jumps(F, NV, frames, 0, NULL, &r, &m, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(r == 5 && m == 5);
    TU_CHECK_OK(sinew_metric_jumps(1, NV, frames, 0, scratch, &r, &m, &e)); /* one frame: no jumps */
    TU_CHECK(r == 0 && m == 0);
    return tu_finish("test_metrics");
}
