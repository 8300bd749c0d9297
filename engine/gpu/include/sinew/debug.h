/* Sinew debug and test hooks: validation message counters, output
 * poisoning, a smaller dispatch grid, and the memory roofline used by the
 * benchmark. Not needed by an engine; kept apart from the product API. */
#ifndef SINEW_DEBUG_H
#define SINEW_DEBUG_H

#include <sinew/skinner.h>

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

/* Caps the workgroups per dispatch row (a 2D grid beyond it) to exercise the
 * 2D-grid path; 0 = the device limit. LIMIT_EXCEEDED (and no change) if the
 * skinner's capacity no longer fits the grid. */
SINEW_API sinew_result sinew_debug_set_max_grid_x(sinew_skinner *sk, uint32_t max_grid_x);

/* A memory roofline measured on this device: a compute-shader copy (storage
 * buffer in, storage buffer out) and vkCmdCopyBuffer of `bytes` bytes, timed by
 * timestamp queries, median of `repeats` runs. GB/s count bytes read + written. */
typedef struct sinew_copy_roofline {
    double shader_copy_gbps;
    double transfer_copy_gbps;
    uint64_t bytes;
} sinew_copy_roofline;
/* Measures it. Submits to the gpu's queue and waits (several times). */
SINEW_API sinew_result sinew_debug_measure_copy(sinew_gpu *gpu, uint64_t bytes, uint32_t repeats,
                                      sinew_copy_roofline *out);

#ifdef __cplusplus
}
#endif
#endif
