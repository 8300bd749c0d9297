/* A counting sinew_allocator for tests (header-only): counts live blocks and
 * bytes, checks every requested alignment is a power of two and returns blocks
 * aligned to exactly that alignment (never more: base + A inside a block
 * aligned to 2A), checks every free names a live block, and can fail every
 * allocation after the first fail_after ones. Not thread-safe (Sinew allocates
 * only in create/load calls, on the calling thread). */
#ifndef SINEW_TEST_COUNT_ALLOC_H
#define SINEW_TEST_COUNT_ALLOC_H

#include <sinew/core.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct count_alloc {
    long allocs;          /* successful allocations */
    long frees;
    long failed;          /* allocations refused (fail_after) */
    long live_blocks;
    long long live_bytes;
    long fail_after;      /* < 0: never fail; else allocations allowed before failing */
    long bad_align;       /* requests with an alignment that is not a power of two */
    long bad_free;        /* frees of a pointer that is not a live block */
    size_t max_align;     /* largest alignment asked for */
} count_alloc;

#define COUNT_ALLOC_MAGIC 0x5eb1a11c0c0ffee5ull

typedef struct count_alloc_header {
    uint64_t magic;
    size_t size;          /* bytes asked for */
    size_t offset;        /* from the block's base to the pointer returned */
    size_t pad;
} count_alloc_header;

static inline void ca_init(count_alloc *ca)
{
    memset(ca, 0, sizeof *ca);
    ca->fail_after = -1;
}

static inline void *ca_alloc(void *user, size_t size, size_t align)
{
    count_alloc *ca = (count_alloc *)user;
    if (align == 0 || (align & (align - 1)) != 0) { ca->bad_align++; return NULL; }
    if (align > ca->max_align) ca->max_align = align;
    if (ca->fail_after >= 0 && ca->allocs >= ca->fail_after) { ca->failed++; return NULL; }
    size_t a = align < sizeof(count_alloc_header) ? sizeof(count_alloc_header) : align;
    /* base aligned to 2a; the pointer at base + a (room for the header below
     * it) is aligned to a but not to 2a */
    size_t off = a;
    size_t total = (off + size + 2 * a - 1) / (2 * a) * (2 * a);
    unsigned char *base = (unsigned char *)aligned_alloc(2 * a, total);
    if (!base) return NULL;
    unsigned char *p = base + off;
    count_alloc_header h = { COUNT_ALLOC_MAGIC, size, off, 0 };
    memcpy(p - sizeof h, &h, sizeof h);
    ca->allocs++;
    ca->live_blocks++;
    ca->live_bytes += (long long)size;
    return p;
}

static inline void ca_free(void *user, void *ptr)
{
    count_alloc *ca = (count_alloc *)user;
    if (!ptr) return;
    count_alloc_header h;
    unsigned char *p = (unsigned char *)ptr;
    memcpy(&h, p - sizeof h, sizeof h);
    if (h.magic != COUNT_ALLOC_MAGIC) { ca->bad_free++; return; }
    h.magic = 0;
    memcpy(p - sizeof h, &h, sizeof h);
    ca->frees++;
    ca->live_blocks--;
    ca->live_bytes -= (long long)h.size;
    free(p - h.offset);
}

static inline sinew_allocator ca_allocator(count_alloc *ca)
{
    sinew_allocator al = { ca_alloc, ca_free, ca };
    return al;
}

#endif
