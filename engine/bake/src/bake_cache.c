/* The bake cache file (sinew/bake_cache.h). */
#include "bake_cache_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const uint8_t snw_magic[8] = { 'S', 'N', 'W', 'B', 'A', 'K', 'E', 0 };
enum { HEADER_BYTES = 8 + 4 * 4 + 16 + 8 + 8, TRAILER_BYTES = 16 };

static uint64_t mix64(uint64_t x) /* a 64-bit finalizer (xor-shift-multiply) */
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

void snw_hash_init(snw_hash *h, uint32_t kind, uint32_t algorithm_version)
{
    h->a = 0x736e77626b636131ull ^ kind;
    h->b = 0x6361636865763031ull ^ ((uint64_t)algorithm_version << 32);
    h->n = 0;
}

void snw_hash_u64(snw_hash *h, uint64_t v)
{
    h->a = (h->a ^ mix64(v + h->n)) * 0x9e3779b97f4a7c15ull;
    h->a ^= h->a >> 29;
    h->b = (h->b + v) * 0xc2b2ae3d27d4eb4full;
    h->b = (h->b << 31 | h->b >> 33) ^ h->a;
    h->n++;
}

void snw_hash_f32(snw_hash *h, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    snw_hash_u64(h, u);
}

void snw_hash_f64(snw_hash *h, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    snw_hash_u64(h, u);
}

void snw_hash_final(const snw_hash *h, uint8_t out[16])
{
    uint64_t x = mix64(h->a ^ mix64(h->n)), y = mix64(h->b + x);
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(x >> (8 * i));
        out[8 + i] = (uint8_t)(y >> (8 * i));
    }
}

static void put_u64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* hash of the header and payload, as stored in the trailer */
static void file_hash(const uint8_t *header, const uint8_t *payload, uint64_t bytes, uint8_t out[16])
{
    snw_hash h;
    snw_hash_init(&h, 0xF11E, SINEW_BAKE_CACHE_VERSION);
    for (int i = 0; i < HEADER_BYTES; i++) snw_hash_u64(&h, header[i]);
    uint64_t i = 0;
    for (; i + 8 <= bytes; i += 8) snw_hash_u64(&h, get_u64le(payload + i));
    for (; i < bytes; i++) snw_hash_u64(&h, payload[i]);
    snw_hash_final(&h, out);
}

static void make_header(uint8_t *hd, uint32_t kind, uint32_t algorithm_version, const uint8_t key[16], uint64_t count,
                        uint64_t bytes)
{
    memcpy(hd, snw_magic, 8);
    snw_put_u32le(hd + 8, SINEW_BAKE_CACHE_VERSION);
    snw_put_u32le(hd + 12, kind);
    snw_put_u32le(hd + 16, algorithm_version);
    snw_put_u32le(hd + 20, 0);
    memcpy(hd + 24, key, 16);
    put_u64le(hd + 40, count);
    put_u64le(hd + 48, bytes);
}

int snw_cache_read(const char *path, uint32_t kind, uint32_t algorithm_version, const uint8_t key[16], uint64_t count,
                   void *payload, uint64_t bytes, char *why, size_t why_cap)
{
    why[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t hd[HEADER_BYTES], want[HEADER_BYTES], tr[TRAILER_BYTES], sum[16];
    int rc = -1;
    make_header(want, kind, algorithm_version, key, count, bytes);
    if (fread(hd, 1, sizeof hd, f) != sizeof hd) { snprintf(why, why_cap, "shorter than its header"); goto out; }
    if (memcmp(hd, snw_magic, 8) != 0) { snprintf(why, why_cap, "not a sinew bake cache file"); goto out; }
    if (snw_get_u32le(hd + 8) != SINEW_BAKE_CACHE_VERSION) {
        snprintf(why, why_cap, "format version %u, this build reads %u", snw_get_u32le(hd + 8), SINEW_BAKE_CACHE_VERSION);
        goto out;
    }
    if (snw_get_u32le(hd + 12) != kind) { snprintf(why, why_cap, "holds another kind of result"); goto out; }
    if (snw_get_u32le(hd + 16) != algorithm_version) { snprintf(why, why_cap, "made by another version of the algorithm"); goto out; }
    if (memcmp(hd + 24, key, 16) != 0) { snprintf(why, why_cap, "made for another mesh, weights or parameters"); goto out; }
    if (memcmp(hd, want, sizeof hd) != 0) { snprintf(why, why_cap, "header does not match (size or reserved fields)"); goto out; }
    if (fread(payload, 1, (size_t)bytes, f) != bytes) { snprintf(why, why_cap, "truncated"); goto out; }
    if (fread(tr, 1, sizeof tr, f) != sizeof tr) { snprintf(why, why_cap, "truncated (no checksum)"); goto out; }
    if (fgetc(f) != EOF) { snprintf(why, why_cap, "longer than its header says"); goto out; }
    file_hash(hd, (const uint8_t *)payload, bytes, sum);
    if (memcmp(sum, tr, 16) != 0) { snprintf(why, why_cap, "checksum mismatch (corrupt)"); goto out; }
    rc = 1;
out:
    fclose(f);
    return rc;
}

int snw_cache_write(const char *path, uint32_t kind, uint32_t algorithm_version, const uint8_t key[16], uint64_t count,
                    const void *payload, uint64_t bytes, char *why, size_t why_cap)
{
    why[0] = 0;
    uint8_t hd[HEADER_BYTES], tr[TRAILER_BYTES];
    make_header(hd, kind, algorithm_version, key, count, bytes);
    file_hash(hd, (const uint8_t *)payload, bytes, tr);
    /* a temporary name unlikely to be shared by two writers */
    size_t len = strlen(path);
    char *tmp = (char *)malloc(len + 32);
    if (!tmp) { snprintf(why, why_cap, "out of host memory"); return 0; }
    uint64_t salt = mix64((uint64_t)(uintptr_t)&hd ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)clock());
    snprintf(tmp, len + 32, "%s.tmp%08x", path, (unsigned)(salt & 0xffffffffu));
    FILE *f = fopen(tmp, "wb");
    if (!f) { snprintf(why, why_cap, "cannot create %.120s", tmp); free(tmp); return 0; }
    int ok = fwrite(hd, 1, sizeof hd, f) == sizeof hd && fwrite(payload, 1, (size_t)bytes, f) == bytes &&
             fwrite(tr, 1, sizeof tr, f) == sizeof tr;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) != 0) { ok = 0; snprintf(why, why_cap, "cannot rename it to %.120s", path); }
    else if (!ok) snprintf(why, why_cap, "cannot write %.120s", tmp);
    if (!ok) remove(tmp);
    free(tmp);
    return ok;
}

sinew_result sinew_bake_cache_path(const char *asset_path, const char *cache_dir, const char *suffix, char *out,
                                   size_t cap)
{
    if (!asset_path || !suffix || !out || !asset_path[0] || cap == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    int n;
    if (cache_dir && cache_dir[0]) {
        const char *base = strrchr(asset_path, '/');
        base = base ? base + 1 : asset_path;
        size_t dl = strlen(cache_dir);
        const char *sep = cache_dir[dl - 1] == '/' ? "" : "/";
        n = snprintf(out, cap, "%s%s%s.%s", cache_dir, sep, base, suffix);
    } else {
        n = snprintf(out, cap, "%s.%s", asset_path, suffix);
    }
    if (n < 0 || (size_t)n >= cap) {
        out[0] = 0;
        return SINEW_ERROR_LIMIT_EXCEEDED;
    }
    return SINEW_OK;
}
