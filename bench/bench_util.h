/* Timing and statistics shared by sinew-bench's two parts (bench.c: GPU and
 * crowd; bench_cpu.c: CPU palettes). Header-only; needs _POSIX_C_SOURCE for
 * clock_gettime, defined by the including file. */
#ifndef SINEW_BENCH_UTIL_H
#define SINEW_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Monotonic wall time in seconds. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v in place); 0 for n <= 0. */
static inline double median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
