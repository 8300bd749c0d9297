/* Sinew blend shapes: morph target validation, the float64 morph reference,
 * the RBF pose-space driver and SMPL pose features (sinew/blendshape.h). */
#include <sinew/linalg.h>
#include "error_internal.h"
#include "sinew/blendshape.h"
#include "alloc_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>



static const char *tname(const sinew_morph_target *t) { return t->name ? t->name : "(unnamed)"; }

static int delta_ok(const float *d)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(d[k]) || fabs((double)d[k]) > SINEW_MORPH_MAX_DELTA) return 0;
    return 1;
}

sinew_result sinew_morph_validate(uint32_t vertex_count, const sinew_morph_target *targets, uint32_t target_count,
                                  sinew_morph_error *err)
{
    snw_error_clear(err);
    if (target_count && !targets) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "targets is NULL");
    if (target_count > SINEW_MORPH_MAX_TARGETS)
        return snw_fail_entry(err, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "%u targets, at most %u", target_count,
                    SINEW_MORPH_MAX_TARGETS);
    for (uint32_t t = 0; t < target_count; t++) {
        const sinew_morph_target *g = &targets[t];
        if (g->count == 0) continue;
        if (!g->indices || !g->position_deltas)
            return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_TARGET, t, UINT32_MAX, "target %u '%s': NULL indices or deltas", t,
                        tname(g));
        uint32_t prev = 0;
        int sorted = 1;
        for (uint32_t e = 0; e < g->count; e++) {
            uint32_t i = g->indices[e];
            if (i >= vertex_count)
                return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_TARGET, t, e,
                            "target %u '%s': entry %u names vertex %u, mesh has %u", t, tname(g), e, i, vertex_count);
            if (e && i <= prev) sorted = 0;
            prev = i;
            if (!delta_ok(&g->position_deltas[3 * (size_t)e]))
                return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, t, e,
                            "target %u '%s': entry %u (vertex %u) has a non-finite or huge position delta", t,
                            tname(g), e, i);
            if (g->normal_deltas && !delta_ok(&g->normal_deltas[3 * (size_t)e]))
                return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, t, e,
                            "target %u '%s': entry %u (vertex %u) has a non-finite or huge normal delta", t, tname(g),
                            e, i);
            if (g->tangent_deltas && !delta_ok(&g->tangent_deltas[3 * (size_t)e]))
                return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, t, e,
                            "target %u '%s': entry %u (vertex %u) has a non-finite or huge tangent delta", t, tname(g),
                            e, i);
        }
        if (!sorted) {
            /* Repeats: quadratic only for unsorted targets; fine at setup for
             * small targets, and checked for every target. */
            for (uint32_t e = 1; e < g->count; e++)
                for (uint32_t f = 0; f < e; f++)
                    if (g->indices[e] == g->indices[f])
                        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MORPH_TARGET, t, e,
                                    "target %u '%s': vertex %u listed twice (entries %u and %u)", t, tname(g),
                                    g->indices[e], f, e);
        }
    }
    return SINEW_OK;
}

sinew_result sinew_morph_check_weights(const float *weights, uint32_t count, uint32_t target_count,
                                       sinew_morph_error *err)
{
    snw_error_clear(err);
    if (count != target_count)
        return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX,
                    "%u weights given for %u targets", count, target_count);
    if (count && !weights) return snw_fail_entry(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, UINT32_MAX, "weights is NULL");
    for (uint32_t i = 0; i < count; i++)
        if (!isfinite(weights[i]) || fabs((double)weights[i]) > 1e6)
            return snw_fail_entry(err, SINEW_ERROR_NON_FINITE, SINEW_ITEM_MORPH_TARGET, i, UINT32_MAX, "weight %u is %g (non-finite or |w| > 1e6)", i,
                        (double)weights[i]);
    return SINEW_OK;
}
