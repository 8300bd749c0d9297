/* Sinew bake cache: precompute results (centers of rotation, automatic
 * weights) kept in a small file beside the asset, keyed by a hash of every
 * input the result depends on (mesh, weights, parameters, algorithm version),
 * so that a second run loads them instead of recomputing. CPU only.
 *
 * File (little-endian): "SNWBAKE\0", u32 format version, u32 kind (1 centers of
 * rotation, 2 automatic weights), u32 algorithm version, u32 reserved (0),
 * 16-byte key, u64 element count, u64 payload bytes, the payload, 16-byte hash
 * of everything before it. A file is used only when all of it checks out (size,
 * magic, versions, kind, key, count, hash) and its payload is valid (finite
 * centers; joints in range and weights summing to 65535): anything else is
 * refused with the reason, the result recomputed and the file rewritten. It is
 * written to a temporary name and renamed, so a reader never sees half a file. */
#ifndef SINEW_BAKE_CACHE_H
#define SINEW_BAKE_CACHE_H

#include <sinew/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Format version of the cache file. */
#define SINEW_BAKE_CACHE_VERSION 1u

/* What a cached call did with its cache file (filled on every return). */
typedef struct sinew_bake_cache_report {
    bool loaded;       /* the result came from the file (nothing computed) */
    bool refused;      /* a file was there but not used (message says why); recomputed */
    bool written;      /* the file was (re)written with the computed result */
    char message[192]; /* why the file was refused or could not be written; "" otherwise */
} sinew_bake_cache_report;

/* The cache file's path for an asset: "<dir>/<name of the asset>.<suffix>", dir =
 * cache_dir, or the asset's own folder when cache_dir is NULL or "" (beside the
 * asset). suffix e.g. "cor" or "weights". INVALID_ARGUMENT (NULL asset_path,
 * suffix or out, an empty asset_path) or LIMIT_EXCEEDED (longer than cap - 1). */
SINEW_API sinew_result sinew_bake_cache_path(const char *asset_path, const char *cache_dir, const char *suffix, char *out,
                                             size_t cap);

#ifdef __cplusplus
}
#endif
#endif
