/* Compressed clips: sinew_clip_compress makes a sinew_clip whose keys are
 * stored in Sinew's compressed format, sampled by everything that samples a
 * sinew_clip (sinew_clip_sample, sinew_sample_job, the palette job and the
 * crowd) without change, freed by sinew_clip_destroy.
 *
 * The error bound is ACL's: every joint carries virtual points (its origin and
 * six points at shell_distance along its local axes); the error of a pose is
 * the largest displacement of any virtual point in model (object) space, with
 * every joint's whole parent chain sampled from the compressed clip, so the
 * tolerance is in model units. The compressor measures that error (float64,
 * at every key time of the clip and of the result and at three points inside
 * every interval between them) and guarantees it <= tolerance at those times.
 *
 * Format per track: constant tracks (all keys within the bound of one value)
 * stored once; others as 16-bit values over the track's range (rotations: x,
 * y, z with w >= 0 reconstructed) or float32 where 16 bits cannot meet the
 * bound; keys whose interpolation from the kept neighbours stays within the
 * bound dropped. CUBICSPLINE tracks become LINEAR (resampled); STEP stays
 * STEP. Morph-weight tracks are kept uncompressed (float64). See
 * docs/crowds.md ("Compressed clips"). */
#ifndef SINEW_CLIP_COMPRESS_H
#define SINEW_CLIP_COMPRESS_H

#include <sinew/anim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which key times the compressed tracks keep. */
typedef enum sinew_clip_keys {
    SINEW_CLIP_KEYS_PER_TRACK = 0, /* each track its own (fewest bytes; one interval search per track) */
    SINEW_CLIP_KEYS_SHARED = 1     /* one set for the clip: the union of what the tracks need (more bytes
                                      when tracks differ; one interval search per sample: faster) */
} sinew_clip_keys;

/* Zero fields take the defaults. */
typedef struct sinew_clip_compress_desc {
    double tolerance;       /* model units, > 0; 0 = 1e-4 x the skeleton's size (diagonal of the box
                               around the bind-pose joints; 1 for a one-joint skeleton) */
    double shell_distance;  /* model units, > 0; 0 = 0.02 x the skeleton's size */
    sinew_clip_keys keys;   /* 0 = SINEW_CLIP_KEYS_PER_TRACK */
} sinew_clip_compress_desc;

/* What the compressor did and measured. */
typedef struct sinew_clip_compress_stats {
    double tolerance, shell_distance;   /* the values used */
    double max_error;                   /* measured, model units (<= tolerance) */
    uint32_t max_error_joint;           /* where it was measured (joint, time in seconds) */
    double max_error_time;
    uint64_t float32_bytes;             /* the keys as float32: per key its time and 3 or 4 values */
    uint64_t compressed_bytes;          /* the compressed block (headers, times, indices, values) */
    double ratio;                       /* float32_bytes / compressed_bytes */
    uint32_t tracks, constant_tracks, quantized_tracks, float_tracks;
    uint32_t keys_before, keys_after;   /* joint keys (weight tracks not counted) */
    uint32_t error_samples;             /* times at which the error was measured */
    uint32_t passes;                    /* attempts (the budget halves when a pass misses the bound) */
} sinew_clip_compress_stats;

/* Compresses clip (made for skel's joint count; not itself compressed) into a
 * new clip *out (the source is unchanged; the result uses its allocator).
 * stats and err may be NULL. Errors: INVALID_ARGUMENT (NULL clip/skel/out,
 * joint count mismatch, already compressed, negative tolerance/shell, bad keys),
 * NON_FINITE (NaN/inf tolerance or shell), LIMIT_EXCEEDED (the bound cannot be
 * met even with float32 keys: tolerance below float32 precision),
 * OUT_OF_HOST_MEMORY. */
SINEW_API sinew_result sinew_clip_compress(const sinew_clip *clip, const sinew_skeleton *skel,
                                           const sinew_clip_compress_desc *desc, sinew_clip **out,
                                           sinew_clip_compress_stats *stats, sinew_error_info *err);
/* true if the clip was made by sinew_clip_compress. */
SINEW_API bool sinew_clip_is_compressed(const sinew_clip *clip);

#ifdef __cplusplus
}
#endif
#endif
