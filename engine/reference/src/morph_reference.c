/* The float64 reference of morph targets (sinew/reference.h). */
#include <sinew/linalg.h>
#include "sinew/reference.h"
#include "sinew/blendshape.h"
#include "error_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>




/* n directions normalized in place; shorter than 1e-30 (or NaN): zero (blendshape.h's rule). */
static void normalize_all(double *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        double *m = &v[3 * (size_t)i];
        double l = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        if (!(l >= 1e-30)) {
            m[0] = m[1] = m[2] = 0.0;
        } else {
            m[0] /= l; m[1] /= l; m[2] /= l;
        }
    }
}

sinew_result sinew_morph_reference(uint32_t n, const sinew_vertex *v, const sinew_morph_target *targets,
                                   uint32_t target_count, const float *weights, double *pos_out, double *nrm_out,
                                   sinew_morph_error *err)
{
    snw_error_clear(err);
    if (!v || !pos_out) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "NULL vertices or output");
    if (n == 0) return snw_fail_entry(err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "no vertices");
    sinew_result r = sinew_morph_validate(n, targets, target_count, err);
    if (r == SINEW_OK) r = sinew_morph_check_weights(weights, target_count, target_count, err);
    if (r != SINEW_OK) return r;
    /* nrm accumulates in pos_out's companion when nrm_out is NULL: keep it local per vertex instead. */
    for (uint32_t i = 0; i < n; i++) {
        pos_out[3 * (size_t)i + 0] = v[i].position[0];
        pos_out[3 * (size_t)i + 1] = v[i].position[1];
        pos_out[3 * (size_t)i + 2] = v[i].position[2];
        if (nrm_out) {
            sinew_vec3 d = sinew_oct_decode(v[i].normal_oct);
            nrm_out[3 * (size_t)i + 0] = d.x;
            nrm_out[3 * (size_t)i + 1] = d.y;
            nrm_out[3 * (size_t)i + 2] = d.z;
        }
    }
    for (uint32_t t = 0; t < target_count; t++) {
        const sinew_morph_target *g = &targets[t];
        double w = weights[t];
        if (w == 0.0) continue;
        for (uint32_t e = 0; e < g->count; e++) {
            size_t i = g->indices[e];
            for (int k = 0; k < 3; k++) {
                pos_out[3 * i + k] += w * (double)g->position_deltas[3 * (size_t)e + k];
                if (nrm_out && g->normal_deltas) nrm_out[3 * i + k] += w * (double)g->normal_deltas[3 * (size_t)e + k];
            }
        }
    }
    if (nrm_out) normalize_all(nrm_out, n);
    return SINEW_OK;
}

sinew_result sinew_morph_reference_tangents(uint32_t n, const sinew_tangent *tangents,
                                            const sinew_morph_target *targets, uint32_t target_count,
                                            const float *weights, double *dir_out, sinew_morph_error *err)
{
    snw_error_clear(err);
    if (!tangents || !dir_out)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "NULL tangents or output");
    if (n == 0) return snw_fail_entry(err, SINEW_ERROR_EMPTY, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "no vertices");
    sinew_result r = sinew_morph_validate(n, targets, target_count, err);
    if (r == SINEW_OK) r = sinew_morph_check_weights(weights, target_count, target_count, err);
    if (r != SINEW_OK) return r;
    for (uint32_t i = 0; i < n; i++) {
        sinew_vec3 d = sinew_oct_decode(tangents[i].tangent_oct);
        dir_out[3 * (size_t)i + 0] = d.x;
        dir_out[3 * (size_t)i + 1] = d.y;
        dir_out[3 * (size_t)i + 2] = d.z;
    }
    for (uint32_t t = 0; t < target_count; t++) {
        const sinew_morph_target *g = &targets[t];
        double w = weights[t];
        if (w == 0.0 || !g->tangent_deltas) continue;
        for (uint32_t e = 0; e < g->count; e++)
            for (int k = 0; k < 3; k++)
                dir_out[3 * (size_t)g->indices[e] + k] += w * (double)g->tangent_deltas[3 * (size_t)e + k];
    }
    normalize_all(dir_out, n);
    return SINEW_OK;
}

