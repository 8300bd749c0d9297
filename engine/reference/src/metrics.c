/* Quality metrics on any triangle mesh (sinew/metrics.h). */
#include <sinew/metrics.h>
#include <sinew/mesh.h>

#include <math.h>
#include <stdlib.h>

#include "error_internal.h"

static sinew_result check_triangles(uint32_t vertex_count, const double *positions, const uint32_t *indices,
                                    uint32_t index_count, sinew_error_info *err)
{
    if (!positions || !indices)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "positions and indices must not be NULL");
    if (index_count % 3)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "index_count (%u) is not a multiple of 3", index_count);
    for (uint32_t k = 0; k < index_count; k++)
        if (indices[k] >= vertex_count)
            return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, k / 3,
                            "triangle %u names vertex %u (vertex_count %u)", k / 3, indices[k], vertex_count);
    return SINEW_OK;
}

sinew_result sinew_metric_volume(uint32_t vertex_count, const double *positions, const uint32_t *indices,
                                 uint32_t index_count, double *out, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!out) return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "out is NULL");
    sinew_result r = check_triangles(vertex_count, positions, indices, index_count, err);
    if (r) return r;
    double v = 0.0;
    for (uint32_t t = 0; t < index_count; t += 3) {
        const double *a = positions + 3 * (size_t)indices[t];
        const double *b = positions + 3 * (size_t)indices[t + 1];
        const double *c = positions + 3 * (size_t)indices[t + 2];
        v += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
             a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    *out = v / 6.0;
    return SINEW_OK;
}

sinew_result sinew_metric_bone_distances(uint32_t n, const double *positions, const uint16_t *major,
                                         const sinew_palette_joint *palette, uint32_t joint_count,
                                         double *dist_out, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!positions || !major || !palette || !dist_out || n == 0)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "positions, major, palette and dist_out must not be NULL, n > 0");
    for (uint32_t i = 0; i < n; i++)
        if (major[i] >= joint_count)
            return snw_fail(err, SINEW_ERROR_JOINT_INDEX, SINEW_ITEM_VERTEX, i,
                            "vertex %u names joint %u (joint_count %u)", i, major[i], joint_count);
    for (uint32_t i = 0; i < n; i++) {
        const sinew_palette_joint *j = palette + major[i];
        sinew_vec3 p = { positions[3 * (size_t)i], positions[3 * (size_t)i + 1], positions[3 * (size_t)i + 2] };
        dist_out[i] = sinew_distance_to_segment(p, j->seg_head, j->seg_tail, NULL);
    }
    return SINEW_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

sinew_result sinew_metric_jumps(uint32_t frame_count, uint32_t n, const double *frames, double min_median,
                                double *scratch, double *ratio, double *max_jump, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!frames || !scratch || !ratio || !max_jump || n == 0)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "frames, scratch, ratio and max_jump must not be NULL, n > 0");
    double worst = 0.0, big = 0.0;
    if (frame_count >= 2) {
        uint32_t m = frame_count - 1;
        for (uint32_t i = 0; i < n; i++) {
            double mx = 0.0, med;
            for (uint32_t f = 0; f < m; f++) {
                const double *a = frames + 3 * ((size_t)n * f + i), *b = frames + 3 * ((size_t)n * (f + 1) + i);
                double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
                scratch[f] = sqrt(dx * dx + dy * dy + dz * dz);
                if (scratch[f] > mx) mx = scratch[f];
            }
            if (mx > big) big = mx;
            qsort(scratch, m, sizeof(double), cmp_double);
            med = (m % 2) ? scratch[m / 2] : 0.5 * (scratch[m / 2 - 1] + scratch[m / 2]);
            if (med > min_median && mx / med > worst) worst = mx / med;
        }
    }
    *ratio = worst;
    *max_jump = big;
    return SINEW_OK;
}

sinew_result sinew_metric_normal_error(uint32_t vertex_count, const double *positions, const double *normals,
                                       const uint32_t *indices, uint32_t index_count, double *scratch,
                                       double *angle_out, sinew_error_info *err)
{
    snw_error_clear(err);
    if (!normals || !scratch || !angle_out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX,
                        "normals, scratch and angle_out must not be NULL");
    sinew_result r = check_triangles(vertex_count, positions, indices, index_count, err);
    if (r) return r;
    for (size_t k = 0; k < 3 * (size_t)vertex_count; k++) scratch[k] = 0.0;
    for (uint32_t t = 0; t < index_count; t += 3) {
        const double *a = positions + 3 * (size_t)indices[t];
        const double *b = positions + 3 * (size_t)indices[t + 1];
        const double *c = positions + 3 * (size_t)indices[t + 2];
        double u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, v[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
        /* the cross product is twice the area times the unit normal: area weighting */
        double cr[3] = { u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0] };
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++) scratch[3 * (size_t)indices[t + k] + d] += cr[d];
    }
    for (uint32_t i = 0; i < vertex_count; i++) {
        const double *s = scratch + 3 * (size_t)i, *nn = normals + 3 * (size_t)i;
        double ls = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        double ln = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        if (!(ls > 1e-300) || !(ln > 1e-300)) {
            angle_out[i] = -1.0;
            continue;
        }
        /* atan2 of |s x n| and s . n: accurate at small and large angles alike */
        double cx = s[1] * nn[2] - s[2] * nn[1], cy = s[2] * nn[0] - s[0] * nn[2], cz = s[0] * nn[1] - s[1] * nn[0];
        double dot = s[0] * nn[0] + s[1] * nn[1] + s[2] * nn[2];
        angle_out[i] = atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * (180.0 / 3.14159265358979323846);
    }
    return SINEW_OK;
}
