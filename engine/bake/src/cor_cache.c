/* Centers of rotation through the bake cache (sinew/cor.h, sinew/bake_cache.h):
 * the key hashes every input of sinew_cor_compute that its result depends on. */
#include "sinew/cor.h"
#include "alloc_internal.h"
#include "bake_cache_internal.h"
#include "cor_internal.h"
#include "error_internal.h"

#include <math.h>
#include <string.h>

static void cor_key(const sinew_cor_desc *d, const snw_cor_params *p, uint8_t key[16])
{
    snw_hash h;
    snw_hash_init(&h, SNW_CACHE_KIND_COR, SNW_COR_ALGORITHM_VERSION);
    snw_hash_f64(&h, p->sigma);
    snw_hash_f64(&h, p->epsilon);
    snw_hash_u64(&h, p->max_depth);
    snw_hash_u64(&h, p->weight_cells);
    snw_hash_u64(&h, (uint64_t)p->exact);
    snw_hash_u64(&h, d->joint_count);
    snw_hash_u64(&h, d->vertex_count);
    snw_hash_u64(&h, d->vertices8 ? 8u : 4u);
    for (uint32_t i = 0; i < d->vertex_count; i++) {
        const float *pos = d->vertices8 ? d->vertices8[i].position : d->vertices[i].position;
        const uint16_t *j = d->vertices8 ? d->vertices8[i].joints : d->vertices[i].joints;
        const uint16_t *w = d->vertices8 ? d->vertices8[i].weights : d->vertices[i].weights;
        const uint32_t K = d->vertices8 ? 8u : 4u;
        snw_hash_f32(&h, pos[0]);
        snw_hash_f32(&h, pos[1]);
        snw_hash_f32(&h, pos[2]);
        for (uint32_t k = 0; k < K; k++) snw_hash_u64(&h, (uint64_t)j[k] << 16 | w[k]);
    }
    snw_hash_u64(&h, d->triangle_count);
    for (uint64_t t = 0; t < 3ull * d->triangle_count; t++) snw_hash_u64(&h, d->triangles[t]);
    snw_hash_final(&h, key);
}

sinew_result sinew_cor_compute_cached(const sinew_cor_desc *desc, const char *cache_path, float *centers_out,
                                      sinew_cor_stats *stats, sinew_bake_cache_report *report, sinew_error_info *err)
{
    snw_error_clear(err);
    snw_cache_report_clear(report);
    if (!desc || !centers_out)
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc or centers_out is NULL");
    snw_cor_params p;
    sinew_result r = snw_cor_check(desc, &p);
    if (r != SINEW_OK)
        return snw_fail(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, "centers of rotation: %s", sinew_result_string(r));
    sinew_allocator al;
    if (snw_allocator_resolve(desc->allocator, &al) != SINEW_OK) /* not reached: checked by snw_cor_check */
        return snw_fail(err, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc.allocator");
    const uint64_t n = desc->vertex_count, bytes = 12ull * n;
    uint8_t key[16];
    uint8_t *buf = NULL;
    char why[160] = "";
    if (cache_path) {
        cor_key(desc, &p, key);
        buf = (uint8_t *)snw_alloc(&al, (size_t)bytes);
        if (!buf) return snw_fail(err, SINEW_ERROR_OUT_OF_HOST_MEMORY, SINEW_ITEM_NONE, UINT32_MAX, "centers: out of host memory");
        int got = snw_cache_read(cache_path, SNW_CACHE_KIND_COR, SNW_COR_ALGORITHM_VERSION, key, n, buf, bytes, why,
                                 sizeof why);
        if (got == 1) {
            for (uint64_t i = 0; i < 3 * n && got == 1; i++) {
                uint32_t u = snw_get_u32le(buf + 4 * i);
                float f;
                memcpy(&f, &u, sizeof f);
                if (!isfinite(f)) {
                    snprintf(why, sizeof why, "center of vertex %llu is not finite", (unsigned long long)(i / 3));
                    got = -1;
                }
            }
        }
        if (got == 1) {
            for (uint64_t i = 0; i < 3 * n; i++) {
                uint32_t u = snw_get_u32le(buf + 4 * i);
                memcpy(&centers_out[i], &u, sizeof u);
            }
            snw_free(&al, buf);
            if (stats) memset(stats, 0, sizeof *stats);
            if (report) report->loaded = true;
            return SINEW_OK;
        }
        if (got == -1 && report) {
            report->refused = true;
            snprintf(report->message, sizeof report->message, "%.120s refused: %s", cache_path, why);
        }
    }
    r = sinew_cor_compute(desc, centers_out, stats);
    if (r != SINEW_OK) {
        snw_free(&al, buf);
        if (r == SINEW_ERROR_CANCELLED)
            return snw_fail(err, r, SINEW_ITEM_NONE, UINT32_MAX, "centers of rotation: cancelled by the progress callback");
        return snw_fail(err, r, SINEW_ITEM_ARGUMENT, UINT32_MAX, "centers of rotation: %s", sinew_result_string(r));
    }
    if (cache_path) {
        for (uint64_t i = 0; i < 3 * n; i++) {
            uint32_t u;
            memcpy(&u, &centers_out[i], sizeof u);
            snw_put_u32le(buf + 4 * i, u);
        }
        int ok = snw_cache_write(cache_path, SNW_CACHE_KIND_COR, SNW_COR_ALGORITHM_VERSION, key, n, buf, bytes, why,
                                 sizeof why);
        if (report) {
            report->written = ok != 0;
            if (!ok) snprintf(report->message, sizeof report->message, "%.120s not written: %s", cache_path, why);
        }
        snw_free(&al, buf);
    }
    return SINEW_OK;
}
