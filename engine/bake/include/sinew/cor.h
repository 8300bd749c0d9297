/* Sinew optimized centers of rotation (Le & Hodgins, "Real-time Skeletal
 * Skinning with Optimized Centers of Rotation", SIGGRAPH 2016): the per-vertex
 * center that the CoR methods (SINEW_METHOD_COR, SINEW_METHOD_COR_SCALE*) rotate each vertex
 * about. Precomputed once from the rest mesh (positions and triangles) and the
 * packed skinning weights, in float64. CPU only.
 *
 * For a vertex i with weights w_i, the center is the similarity-weighted
 * average of the rest surface:
 *   c_i = sum_t s(w_i, w_t) a_t x_t / sum_t s(w_i, w_t) a_t
 * over the triangles t of the subdivided mesh (area a_t, centroid x_t, weights
 * w_t = mean of its corners' weights), with the paper's similarity
 *   s(w_p, w_v) = sum_{j<k} w_pj w_pk w_vj w_vk exp(-(w_pj w_vk - w_pk w_vj)^2 / sigma^2).
 * Subdivision (the paper's step): a triangle whose corners' weight vectors
 * differ by more than epsilon (L2 distance, over all joints) is split into four
 * at its edge midpoints (positions and weights interpolated linearly), up to
 * max_depth levels.
 *
 * How it is evaluated:
 *  - s is a sum over joint pairs, and a pair (j, k) contributes only for
 *    triangles whose weights have both j and k: the subdivided triangles are
 *    bucketed by joint pair, and a vertex visits only the buckets of its own
 *    pairs (a vertex with one influence has none: no work);
 *  - accelerated (default): in a bucket a triangle enters only through its
 *    weights (w_j, w_k), so the bucket's triangles are summed into cells of a
 *    grid over (w_j, w_k) (side 1 / weight_cells) with the first and second
 *    moments of their mass and mass x centroid about the cell's mean weights; a
 *    vertex evaluates the kernel once per cell, expanded to second order about
 *    that mean. Pairs with small weights (|v| <= 1/2, 1/4, ...) use grids 2, 4, ...
 *    times coarser (the expansion's argument |v| x cell side stays the same).
 *    Error: third order in |v| x (cell side) / sigma; measured within 2e-6 of
 *    the mesh's size of the exact result (tests: 1e-5 of it). exact = 1: every
 *    subdivided triangle's term in float64 (no approximation beyond rounding);
 *  - the center depends on the vertex's weights only, so vertices with equal
 *    packed weights (e.g. a ring of a procedurally weighted tube) share one
 *    evaluation;
 *  - the weight groups are dealt to the thread pool; each group is summed in
 *    one fixed order by one thread, so the result does not depend on the
 *    number of threads (bit for bit).
 * A vertex with no similar triangle (the sum of s a_t is exactly 0: a vertex
 * with one influence, or whose joint pairs appear in no triangle) keeps its
 * rest position as its center. For a vertex with one influence the center does
 * not matter: CoR skinning then moves it rigidly with its joint. */
#ifndef SINEW_COR_H
#define SINEW_COR_H

#include <sinew/mesh.h>
#include <sinew/rest_mesh.h>
#include <sinew/threadpool.h>
#include <sinew/bake_cache.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Paper defaults, used for a zero field of sinew_cor_desc. */
#define SINEW_COR_DEFAULT_SIGMA 0.1
#define SINEW_COR_DEFAULT_EPSILON 0.1
#define SINEW_COR_DEFAULT_MAX_DEPTH 8u
/* Largest max_depth accepted. */
#define SINEW_COR_MAX_DEPTH 12u
/* Cells per unit of weight of the accelerated evaluation (sinew_cor_desc.weight_cells). */
#define SINEW_COR_DEFAULT_WEIGHT_CELLS 64u
#define SINEW_COR_MAX_WEIGHT_CELLS 4096u

/* What to compute centers for; zero fields take the defaults. */
typedef struct sinew_cor_desc {
    uint32_t vertex_count;
    const sinew_vertex *vertices;     /* 4 influences (positions and weights), or NULL when vertices8 */
    const sinew_vertex8 *vertices8;   /* 8 influences; exactly one of vertices / vertices8 */
    uint32_t joint_count;             /* of the skeleton the weights refer to */
    uint32_t triangle_count;
    const uint32_t *triangles;        /* 3 vertex indices per triangle */
    double sigma;                     /* similarity kernel width [SINEW_COR_DEFAULT_SIGMA] */
    double epsilon;                   /* subdivision threshold on corner weight distance [SINEW_COR_DEFAULT_EPSILON] */
    uint32_t max_depth;               /* subdivision levels at most [SINEW_COR_DEFAULT_MAX_DEPTH] */
    sinew_thread_pool *pool;          /* workers; NULL = the calling thread only */
    const sinew_allocator *allocator; /* scratch allocations (freed before return); NULL = default */
    /* Called on the calling thread between batches of vertex groups with the
     * fraction done; returning false stops the computation (SINEW_ERROR_CANCELLED,
     * nothing written). NULL: none. Batching does not change the result. */
    sinew_progress_fn progress;
    void *progress_user;
    /* Non-zero: the exact evaluation (every subdivided triangle's term, float64;
     * the reference of the accelerated one). Zero: accelerated (see above). */
    int exact;
    /* Accelerated evaluation: cells per unit of weight of the grid that groups a
     * joint pair's triangles [SINEW_COR_DEFAULT_WEIGHT_CELLS], at most
     * SINEW_COR_MAX_WEIGHT_CELLS. Finer: closer to exact, slower. */
    uint32_t weight_cells;
} sinew_cor_desc;

/* What the computation did, for reporting. */
typedef struct sinew_cor_stats {
    uint64_t samples;            /* triangles after subdivision */
    uint64_t pair_entries;       /* (subdivided triangle, joint pair) entries in the buckets */
    uint64_t kernel_evaluations; /* similarity terms evaluated (accelerated: cells visited) */
    uint32_t weight_groups;      /* distinct packed weight vectors (one center evaluation each) */
    uint32_t fallback_vertices;  /* vertices whose center is their rest position (no similar triangle) */
    uint64_t weight_cells;       /* accelerated: cells of every bucket at the finest grid (0 when exact) */
} sinew_cor_stats;

/* Computes the center of rotation of every vertex: 3 floats per vertex to
 * centers_out (the float64 result rounded once). stats may be NULL. Nothing is
 * written on error. Errors: INVALID_ARGUMENT (NULL desc/triangles/centers_out,
 * both or no vertex arrays, sigma or epsilon not finite and > 0, max_depth >
 * SINEW_COR_MAX_DEPTH, a triangle index >= vertex_count, a bad allocator),
 * EMPTY (no vertices, no triangles, joint_count 0), NON_FINITE (a position),
 * JOINT_INDEX (a joint >= joint_count), INVALID_WEIGHT (weights not summing to
 * 65535), OUT_OF_HOST_MEMORY. Cost: see README, "Optimized centers of rotation". */
SINEW_API sinew_result sinew_cor_compute(const sinew_cor_desc *desc, float *centers_out, sinew_cor_stats *stats);

/* sinew_cor_compute through a cache file (sinew/bake_cache.h): the centers come
 * from cache_path when it holds them for exactly these inputs (the vertices'
 * positions, joints and weights, the triangles, joint_count, the resolved sigma,
 * epsilon, max_depth, exact, weight_cells, and the algorithm's version), else they
 * are computed and the file (re)written. cache_path NULL: no cache. A file that
 * cannot be written is no error (report says why). report and stats may be NULL
 * (stats all 0 when loaded). Errors as sinew_cor_compute, err filled. */
SINEW_API sinew_result sinew_cor_compute_cached(const sinew_cor_desc *desc, const char *cache_path, float *centers_out,
                                                sinew_cor_stats *stats, sinew_bake_cache_report *report,
                                                sinew_error_info *err);

/* ---- rest meshes (sinew/rest_mesh.h) ---- */

/* Options of sinew_rest_mesh_compute_centers; zero fields take the defaults of sinew_cor_desc. */
typedef struct sinew_rest_mesh_centers_desc {
    double sigma, epsilon;
    uint32_t max_depth;
    sinew_thread_pool *pool;          /* NULL: the calling thread only */
    sinew_progress_fn progress;       /* NULL: none */
    void *progress_user;
    const sinew_allocator *allocator; /* scratch; NULL = default */
    int exact;                        /* as sinew_cor_desc.exact */
    uint32_t weight_cells;            /* as sinew_cor_desc.weight_cells */
} sinew_rest_mesh_centers_desc;

/* Computes the centers of rotation of a rest mesh (sinew_cor_compute on its
 * packed vertices and triangles) and sets them (sinew_rest_mesh_set_centers). SINEW_ERROR_CANCELLED, and
 * the mesh unchanged, when progress returns false. INVALID_ARGUMENT without
 * triangles. desc may be NULL (defaults). */
SINEW_API sinew_result sinew_rest_mesh_compute_centers(sinew_rest_mesh *m, const sinew_rest_mesh_centers_desc *desc,
                                                       sinew_error_info *err);
/* sinew_rest_mesh_compute_centers through the cache file cache_path
 * (sinew_cor_compute_cached; NULL: no cache). report may be NULL. */
SINEW_API sinew_result sinew_rest_mesh_compute_centers_cached(sinew_rest_mesh *m, const sinew_rest_mesh_centers_desc *desc,
                                                              const char *cache_path, sinew_bake_cache_report *report,
                                                              sinew_error_info *err);
#ifdef __cplusplus
}
#endif
#endif
