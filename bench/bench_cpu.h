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
    int bounds;              /* --bounds: also every character's culling box after its palette, timed,
                                with the overhead as columns bounds_ms and bounds% */
    int compressed;          /* --compressed: the characters play compressed clips (bench_clip.c) */
    double compress_tol;     /* their tolerance in model units (0 = 1e-4 x the skeleton's size) */
    int compress_per_track;  /* --compress-keys per-track (default: shared, SINEW_CLIP_KEYS_SHARED) */
} sinew_bench_cpu_options;

/* bench_clip.c: replaces *clip by its compressed form and prints its bytes, ratio, error and
 * sampling ns/joint (forward, random; before -> after). Returns 0 on failure. */
struct sinew_skeleton;
struct sinew_clip;
int sinew_bench_compress_clip(const struct sinew_skeleton *s, const char *label, double tol, int shared,
                              struct sinew_clip **clip);
/* The same for a long generated clip (64 joints, 100 s at 30 keys/s). */
int sinew_bench_long_clip(double tol);

/* The same with options (NULL = defaults). */
int sinew_bench_cpu_only_opts(const char *out_dir, double seconds_per_case, const sinew_bench_cpu_options *opt);
/* --blend K, --layers L (bench_cpu_blend.c): every character of the run plays
 * K blended clips (one crossfading) and L additive layers with a joint mask.
 * Call before sinew_bench_cpu_only; non-zero for K outside 1..16 or K + L > 16. */
int sinew_bench_cpu_set_blend(uint32_t blend, uint32_t layers);

/* Used by bench_cpu.c: whether layers are on, K and L, per-model setup (clips
 * for the skeleton; returns 0 on failure), the layers of count characters at
 * their current times, and the cleanup. */
struct sinew_skeleton;
struct sinew_clip;
struct sinew_palette_character;
int bench_blend_active(void);
uint32_t bench_blend_k(void);
uint32_t bench_blend_l(void);
int bench_blend_setup(const struct sinew_skeleton *skel, const struct sinew_clip *base, int scaled, uint32_t max_chars);
void bench_blend_apply(struct sinew_palette_character *ch, uint32_t count);
void bench_blend_free(void);

#endif
