/* The bake cache file (sinew/bake_cache.h): key hashing, reading and writing.
 * Shared by cor_cache.c and autoweights.c. */
#ifndef SINEW_BAKE_CACHE_INTERNAL_H
#define SINEW_BAKE_CACHE_INTERNAL_H

#include "sinew/bake_cache.h"
#include <stddef.h>
#include <stdint.h>

enum { SNW_CACHE_KIND_COR = 1, SNW_CACHE_KIND_WEIGHTS = 2 };

/* A 128-bit non-cryptographic hash of values fed one at a time, independent of
 * the host's byte order (values, not their bytes, are mixed). */
typedef struct snw_hash {
    uint64_t a, b, n;
} snw_hash;

void snw_hash_init(snw_hash *h, uint32_t kind, uint32_t algorithm_version);
void snw_hash_u64(snw_hash *h, uint64_t v);
void snw_hash_f32(snw_hash *h, float v);   /* its bits (-0 and 0 differ) */
void snw_hash_f64(snw_hash *h, double v);
void snw_hash_final(const snw_hash *h, uint8_t out[16]);

/* Reads the payload of a cache file into payload (exactly `bytes` bytes, the
 * caller's own size for `count` elements) when the file is valid for kind,
 * version and key. Returns 1 when read, 0 when there is no file (*why = ""),
 * -1 when a file was refused (*why says why; payload may have been written). */
int snw_cache_read(const char *path, uint32_t kind, uint32_t algorithm_version, const uint8_t key[16], uint64_t count,
                   void *payload, uint64_t bytes, char *why, size_t why_cap);

/* Writes a cache file (a temporary name, then renamed). Returns 1 when written,
 * 0 otherwise (*why says why; no file left behind but a previous one). */
int snw_cache_write(const char *path, uint32_t kind, uint32_t algorithm_version, const uint8_t key[16], uint64_t count,
                    const void *payload, uint64_t bytes, char *why, size_t why_cap);

/* Little-endian payload helpers. */
static inline void snw_put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t snw_get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void snw_put_u16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline uint16_t snw_get_u16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Fills a report for "no cache": nothing loaded, refused or written. */
static inline void snw_cache_report_clear(sinew_bake_cache_report *r)
{
    if (!r) return;
    r->loaded = r->refused = r->written = false;
    r->message[0] = 0;
}

#endif
