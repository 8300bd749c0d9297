/* sinew-bench --cpu-only (bench_cpu.c): CPU palette throughput, no GPU. */
#ifndef SINEW_BENCH_CPU_H
#define SINEW_BENCH_CPU_H

/* Runs the CPU palette benchmark, prints its tables and writes out_dir/cpu.csv;
 * bounds: also every character's culling box after its palette, timed, with the
 * overhead as a column. Returns the process exit code. */
int sinew_bench_cpu_only(const char *out_dir, double seconds_per_case, int bounds);

#endif
