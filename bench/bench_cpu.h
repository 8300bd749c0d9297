/* sinew-bench --cpu-only (bench_cpu.c): CPU palette throughput, no GPU. */
#ifndef SINEW_BENCH_CPU_H
#define SINEW_BENCH_CPU_H

#include <stdint.h>

/* Runs the CPU palette benchmark, prints its tables and writes out_dir/cpu.csv.
 * Returns the process exit code. */
int sinew_bench_cpu_only(const char *out_dir, double seconds_per_case);

/* Options of the CPU benchmark beyond the defaults (zero = default). */
typedef struct sinew_bench_cpu_options {
    double scale_fraction;   /* --scale-fraction F: real non-uniform scale keys (0.7..1.4 per axis,
                                animated) on this fraction of the joints; 0 = scale keys (1,1,1) */
    const char *methods;     /* --methods a,b: only these methods in the main table (NULL = all) */
    const uint32_t *sizes;   /* --sizes: character counts of the main table (NULL = 1..10000) */
    uint32_t nsizes;
} sinew_bench_cpu_options;

/* The same with options (NULL = defaults). */
int sinew_bench_cpu_only_opts(const char *out_dir, double seconds_per_case, const sinew_bench_cpu_options *opt);

#endif
