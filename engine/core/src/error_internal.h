/* Filling a sinew_error_info (sinew/core.h) from any layer. Static inline:
 * each layer's archive keeps its internal symbols local, so shared helpers
 * live in headers. */
#ifndef SINEW_ERROR_INTERNAL_H
#define SINEW_ERROR_INTERNAL_H

#include <sinew/core.h>
#include <stdarg.h>
#include <stdio.h>

/* Clears err (may be NULL) at the start of a call: result OK, no item. */
static inline void snw_error_clear(sinew_error_info *err)
{
    if (!err) return;
    err->result = SINEW_OK;
    err->item = SINEW_ITEM_NONE;
    err->index = err->entry = UINT32_MAX;
    err->message[0] = 0;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 5, 6)))
#endif
/* Fills err (may be NULL) and returns r: `return snw_fail(err, SINEW_ERROR_CAPACITY,
 * SINEW_ITEM_CAPACITY, UINT32_MAX, "max_meshes (%u) reached", n);` */
static inline sinew_result snw_fail(sinew_error_info *err, sinew_result r, sinew_item_kind item, uint32_t index,
                                    const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->result = r;
        err->item = item;
        err->index = index;
        err->entry = UINT32_MAX;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return r;
}

/* The same with an entry inside the item (a morph target's entry, a vertex's influence). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 6, 7)))
#endif
static inline sinew_result snw_fail_entry(sinew_error_info *err, sinew_result r, sinew_item_kind item,
                                          uint32_t index, uint32_t entry, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->result = r;
        err->item = item;
        err->index = index;
        err->entry = entry;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return r;
}

#endif
