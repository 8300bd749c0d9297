/* Small helpers shared by Sinew's tests: a deterministic RNG, random
 * transforms, and check macros that report file:line and fail the test. */
#ifndef SINEW_TESTUTIL_H
#define SINEW_TESTUTIL_H

#include <sinew/sinew.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct tu_rng { uint64_t s; } tu_rng;

/* Seed from SINEW_TEST_SEED if set, else from `fallback`; the seed is printed so a failure can be replayed. */
tu_rng tu_rng_seeded(uint64_t fallback);
uint64_t tu_next(tu_rng *r);
double tu_uniform(tu_rng *r, double lo, double hi);
uint32_t tu_range(tu_rng *r, uint32_t n);              /* 0 .. n-1 */
sinew_quat tu_random_quat(tu_rng *r);                  /* uniform on SO(3) */
sinew_vec3 tu_random_vec3(tu_rng *r, double lo, double hi);
sinew_vec3 tu_random_unit(tu_rng *r);

extern int tu_failures;
#define TU_CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); tu_failures++; } } while (0)
#define TU_CHECK_MSG(cond, ...) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); tu_failures++; } } while (0)
#define TU_CHECK_RESULT(expr, expected) do { sinew_result tu_r_ = (expr); if (tu_r_ != (expected)) { fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #expr, sinew_result_string(tu_r_), sinew_result_string(expected)); tu_failures++; } } while (0)
#define TU_CHECK_OK(expr) TU_CHECK_RESULT(expr, SINEW_OK)
#define TU_CHECK_NEAR(a, b, tol) do { double tu_a_ = (a), tu_b_ = (b); if (!(fabs(tu_a_ - tu_b_) <= (tol))) { fprintf(stderr, "%s:%d: %s = %.9g, %s = %.9g, |diff| = %.3g > %.3g\n", __FILE__, __LINE__, #a, tu_a_, #b, tu_b_, fabs(tu_a_ - tu_b_), (double)(tol)); tu_failures++; } } while (0)
/* Ends main(): prints PASS/FAIL and returns the exit code. */
int tu_finish(const char *name);

#endif
