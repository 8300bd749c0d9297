/* Sinew debug and test hooks: validation message counters, output
 * poisoning, a smaller dispatch grid, and the memory roofline used by the
 * benchmark. Not needed by an engine; kept apart from the product API. */
#ifndef SINEW_DEBUG_H
#define SINEW_DEBUG_H

#include <sinew/skinner.h>
#include <sinew/morpher.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of validation warnings and errors received so far (tests require 0). */
SINEW_API uint32_t sinew_debug_validation_message_count(const sinew_gpu *gpu);
/* true when a debug messenger counts validation messages (layer found and enabled). */
SINEW_API bool sinew_debug_validation_enabled(const sinew_gpu *gpu);

/* Fills output vertices [first, first+count) with a 32-bit pattern (tests: NaN).
 * Submits to the gpu's queue and waits. */
SINEW_API sinew_result sinew_debug_poison_output(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern);
/* Same for the previous-position buffer (keep_previous; 16 B per vertex). INVALID_ARGUMENT without it. */
SINEW_API sinew_result sinew_debug_poison_previous(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern);
/* Same for the tangent output (desc.tangents; 16 B per vertex with float output, 4 B with
 * packed output: one pattern word per vertex). INVALID_ARGUMENT without it. */
SINEW_API sinew_result sinew_debug_poison_tangents(sinew_skinner *sk, uint32_t first, uint32_t count, uint32_t pattern);

/* Caps the workgroups per dispatch row (a 2D grid beyond it) to exercise the
 * 2D-grid path; 0 = the device limit. LIMIT_EXCEEDED (and no change) if the
 * skinner's capacity no longer fits the grid. */
SINEW_API sinew_result sinew_debug_set_max_grid_x(sinew_skinner *sk, uint32_t max_grid_x);

/* Which kernel the skinner records (takes effect at the next set_instances):
 * AUTO = one pipeline per variant, grid mode wherever a variant's instances
 * share a mesh with evenly spaced palettes and outputs, group records
 * elsewhere; RECORDS = the same pipelines, always group records; BASELINE =
 * the kernel before variants (one pipeline, method read per instance), kept to
 * compare against in sinew-bench and the tests. */
typedef enum sinew_debug_kernel {
    SINEW_DEBUG_KERNEL_AUTO = 0,
    SINEW_DEBUG_KERNEL_RECORDS = 1,
    SINEW_DEBUG_KERNEL_BASELINE = 2
} sinew_debug_kernel;
SINEW_API sinew_result sinew_debug_set_kernel(sinew_skinner *sk, sinew_debug_kernel kernel);
/* Workgroup size of the variant kernels: 64, 128 or 256; 0 = the device default.
 * Takes effect at the next set_instances. INVALID_ARGUMENT for other sizes. */
SINEW_API sinew_result sinew_debug_set_workgroup_size(sinew_skinner *sk, uint32_t size);
/* Workgroup size the variant kernels use now. */
SINEW_API uint32_t sinew_debug_workgroup_size(const sinew_skinner *sk);
/* Dispatches recorded for the newest ended frame, and how many of them use grid mode. */
SINEW_API uint32_t sinew_debug_dispatch_count(const sinew_skinner *sk, uint32_t *grid_dispatches);
/* The driver's statistics (VK_KHR_pipeline_executable_properties: registers, instruction
 * counts, spills, as the driver names them) of every kernel pipeline this skinner has created,
 * one line per pipeline, into buf (always NUL-terminated, cut when full). Needs
 * SINEW_PIPELINE_STATISTICS=1 in the environment when its sinew_gpu was created (own device)
 * and a driver with the extension, else SINEW_ERROR_NOT_FOUND. */
SINEW_API sinew_result sinew_debug_pipeline_statistics(const sinew_skinner *sk, char *buf, size_t size);

/* Which kernel a morpher's pass records (sinew-bench-morph compares them in one run):
 * CURRENT = shaders/morph.comp; PREVIOUS = the morph.comp of commit 4515053
 * (four-candidate normal encode, every written row's normal re-encoded; rows and
 * active passes only: LISTS and AUTO take AUTO's other rule), kept to compare against; LEAN = a lean reference: per frame the host lists every vertex
 * the touched targets move with those deltas only (the debug layer's work, not
 * timed), one invocation per vertex reads its base, fmas its deltas, writes
 * position and rounded normal code (no tangents, no bulge distances). LEAN keeps
 * a host copy of the deltas of sets added after it was first selected; set_frame
 * refuses (INVALID_ARGUMENT) items of other sets while LEAN is selected, and
 * grows LEAN's buffer when a frame needs it (waiting for the skinner). Takes
 * effect at the next sinew_morpher_set_frame. */
typedef enum sinew_debug_morph_kernel {
    SINEW_DEBUG_MORPH_CURRENT = 0,
    SINEW_DEBUG_MORPH_PREVIOUS = 1,
    SINEW_DEBUG_MORPH_LEAN = 2
} sinew_debug_morph_kernel;
/* Selects the morph pass's kernel (above); INVALID_ARGUMENT for other values. */
SINEW_API sinew_result sinew_debug_set_morph_kernel(sinew_morpher *m, sinew_debug_morph_kernel kernel);

/* Where a roofline copy sits against the host's last-level cache. */
typedef enum sinew_roofline_cache {
    SINEW_ROOFLINE_CACHE_UNKNOWN = 0, /* no LLC figure (GPUs; CPU without sysfs cache info) */
    SINEW_ROOFLINE_BEYOND_LLC = 1,    /* source >= 2x the LLC: a memory roofline */
    SINEW_ROOFLINE_INSIDE_LLC = 2     /* the buffer limits kept it smaller: a cache roofline */
} sinew_roofline_cache;

/* A memory roofline measured on this device: a compute-shader copy (storage
 * buffer in, storage buffer out) and vkCmdCopyBuffer of `bytes` bytes, timed by
 * timestamp queries, median of `repeats` runs. GB/s count bytes read + written. */
typedef struct sinew_copy_roofline {
    double shader_copy_gbps;
    double transfer_copy_gbps;
    uint64_t bytes;
    sinew_read_path read_path;  /* how the shader copy read its source (STORAGE or TEXEL) */
    uint64_t llc_bytes;         /* host last-level cache on CPU devices (sysfs), 0 if unknown or a GPU */
    sinew_roofline_cache cache; /* bytes against llc_bytes (filled by plan/measure_roofline) */
} sinew_copy_roofline;
/* Measures it with storage-buffer reads. Submits to the gpu's queue and waits (several times). */
SINEW_API sinew_result sinew_debug_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats,
                                      sinew_copy_roofline *out);
/* The roofline sinew-demo and sinew-bench report: the shader copy reads through
 * the skinner's automatic read path on this device (texel buffers on CPU
 * devices, storage buffers elsewhere), aimed beyond the last-level cache (4x
 * the host LLC, at least 64 MiB, on CPU devices; 256 MiB on GPUs; halved while
 * over the device's buffer limits, so `cache` may say INSIDE_LLC). The LLC is
 * read from sysfs, or from the directory in $SINEW_CPU_CACHE_SYSFS laid out as
 * /sys/devices/system/cpu/cpu0/cache. Same fields as sinew_debug_measure_copy. */
SINEW_API sinew_result sinew_debug_measure_roofline(sinew_gpu *gpu, uint32_t repeats, sinew_copy_roofline *out);
/* What sinew_debug_measure_roofline will measure on this device: bytes, read_path
 * and llc_bytes filled, the GB/s fields zero. Measures nothing. */
SINEW_API sinew_result sinew_debug_roofline_plan(const sinew_gpu *gpu, sinew_copy_roofline *plan);
/* One line saying what a roofline measured, e.g. "copy of 120 MiB, inside the
 * 480 MiB last-level cache (...): a cache roofline"; written to buf, returns buf. */
SINEW_API const char *sinew_debug_roofline_describe(const sinew_copy_roofline *roof, char *buf, size_t size);
/* sinew_debug_measure_copy reading the source through `path` (STORAGE or TEXEL). */
SINEW_API sinew_result sinew_debug_measure_copy_path(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats,
                                           sinew_read_path path, sinew_copy_roofline *out);

#ifdef __cplusplus
}
#endif
#endif
