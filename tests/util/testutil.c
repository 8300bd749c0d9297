#include "testutil.h"
#include <string.h>

int tu_failures = 0;

tu_rng tu_rng_seeded(uint64_t fallback)
{
    tu_rng r;
    const char *env = getenv("SINEW_TEST_SEED");
    r.s = env && *env ? strtoull(env, NULL, 0) : fallback;
    fprintf(stderr, "seed: 0x%llx (replay with SINEW_TEST_SEED)\n", (unsigned long long)r.s);
    return r;
}

uint64_t tu_next(tu_rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double tu_uniform(tu_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(tu_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

uint32_t tu_range(tu_rng *r, uint32_t n) { return n ? (uint32_t)(tu_next(r) % n) : 0; }

sinew_quat tu_random_quat(tu_rng *r) /* Shoemake's uniform rotation */
{
    double u1 = tu_uniform(r, 0, 1), u2 = tu_uniform(r, 0, 2 * M_PI), u3 = tu_uniform(r, 0, 2 * M_PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    sinew_quat q = { a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3) };
    return q;
}

sinew_vec3 tu_random_vec3(tu_rng *r, double lo, double hi)
{
    sinew_vec3 v = { tu_uniform(r, lo, hi), tu_uniform(r, lo, hi), tu_uniform(r, lo, hi) };
    return v;
}

sinew_vec3 tu_random_unit(tu_rng *r)
{
    for (;;) {
        sinew_vec3 v = tu_random_vec3(r, -1, 1);
        double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        if (l > 0.1 && l <= 1) { v.x /= l; v.y /= l; v.z /= l; return v; }
    }
}

int tu_finish(const char *name)
{
    if (tu_failures) { fprintf(stderr, "FAIL %s: %d check(s) failed\n", name, tu_failures); return 1; }
    fprintf(stderr, "PASS %s\n", name);
    return 0;
}
