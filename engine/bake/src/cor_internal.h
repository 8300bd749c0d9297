/* Shared by cor.c and cor_cache.c: the resolved parameters of a sinew_cor_desc. */
#ifndef SINEW_COR_INTERNAL_H
#define SINEW_COR_INTERNAL_H

#include "sinew/cor.h"

/* Version of the centers' computation, part of the cache key: bump it when the
 * result of sinew_cor_compute changes for the same inputs. */
#define SNW_COR_ALGORITHM_VERSION 2u

typedef struct snw_cor_params {
    double sigma, epsilon;
    uint32_t max_depth;
    uint32_t weight_cells; /* 0 when exact */
    int exact;
} snw_cor_params;

/* Validates desc as sinew_cor_compute does (same errors) and resolves its defaults. */
sinew_result snw_cor_check(const sinew_cor_desc *d, snw_cor_params *p);

#endif
