/* The library's one allocation helper: every allocation goes through a
 * resolved sinew_allocator (the caller's callbacks, or the default ones).
 * Header-only (static inline) so each layer uses it without exporting it. */
#ifndef SINEW_ALLOC_INTERNAL_H
#define SINEW_ALLOC_INTERNAL_H

#include "sinew/core.h"
#include <stdlib.h>
#include <string.h>

/* Alignment of every snw_alloc block (enough for any scalar, SSE and AVX). */
#define SNW_ALLOC_ALIGN 32u

static void *snw_default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (size > SIZE_MAX - align) return NULL;
    return aligned_alloc(align, (size + align - 1) / align * align);
}

static void snw_default_free(void *user, void *p)
{
    (void)user;
    free(p);
}

/* Applies the allocator rule (sinew/core.h): NULL or {NULL, NULL} = default,
 * exactly one callback NULL = INVALID_ARGUMENT. *out receives usable callbacks. */
static inline sinew_result snw_allocator_resolve(const sinew_allocator *in, sinew_allocator *out)
{
    if (!in || (!in->alloc && !in->free)) {
        out->alloc = snw_default_alloc;
        out->free = snw_default_free;
        out->user = NULL;
        return SINEW_OK;
    }
    if (!in->alloc || !in->free) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = *in;
    return SINEW_OK;
}

/* size bytes aligned to align (a power of two); NULL on failure or size 0. */
static inline void *snw_alloc_aligned(const sinew_allocator *a, size_t size, size_t align)
{
    if (size == 0) return NULL;
    return a->alloc(a->user, size, align);
}

/* size bytes aligned to SNW_ALLOC_ALIGN; NULL on failure or size 0. */
static inline void *snw_alloc(const sinew_allocator *a, size_t size)
{
    return snw_alloc_aligned(a, size, SNW_ALLOC_ALIGN);
}

/* count * size zeroed bytes; NULL on overflow, failure or a zero size. */
static inline void *snw_calloc(const sinew_allocator *a, size_t count, size_t size)
{
    if (count == 0 || size == 0 || count > SIZE_MAX / size) return NULL;
    void *p = snw_alloc(a, count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

/* Frees a block from snw_alloc*; NULL is ignored. */
static inline void snw_free(const sinew_allocator *a, void *p)
{
    if (p) a->free(a->user, p);
}

#endif
