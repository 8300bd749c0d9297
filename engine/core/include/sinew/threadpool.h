/* Sinew thread pool: a fixed set of workers that runs a batch of indexed
 * tasks with the calling thread working too. CPU only; used by the crowd and
 * available to callers (share one pool between crowds). */
#ifndef SINEW_THREADPOOL_H
#define SINEW_THREADPOOL_H

#include <sinew/core.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_thread_pool sinew_thread_pool;

/* A task: `task` in [0, task_count), `worker` in [0, sinew_thread_pool_size()). */
typedef void (*sinew_task_fn)(void *user, uint32_t task, uint32_t worker);

/* Number of online CPU cores (at least 1). */
SINEW_API uint32_t sinew_cpu_count(void);
/* Largest pool size. */
#define SINEW_THREAD_POOL_MAX_THREADS 256u

/* Describes a pool; zero means default. */
typedef struct sinew_thread_pool_desc {
    uint32_t threads;                  /* workers in total, the calling thread included
                                          [0 = sinew_cpu_count()], at most SINEW_THREAD_POOL_MAX_THREADS */
    const sinew_allocator *allocator;  /* optional */
} sinew_thread_pool_desc;

/* Creates a pool (threads - 1 pthreads are started once; desc NULL = defaults).
 * INVALID_ARGUMENT for more than SINEW_THREAD_POOL_MAX_THREADS or a bad allocator. */
SINEW_API sinew_result sinew_thread_pool_create(const sinew_thread_pool_desc *desc, sinew_thread_pool **out);
/* Stops and joins the workers and frees the pool; NULL is ignored. */
SINEW_API void sinew_thread_pool_destroy(sinew_thread_pool *pool);
/* Workers in total, the caller included. */
SINEW_API uint32_t sinew_thread_pool_size(const sinew_thread_pool *pool);
/* Runs fn for every task (dealt out dynamically; the caller works too) and
 * returns when all have finished. Calls from several threads are serialized.
 * A task that calls run() on its own pool gets SINEW_ERROR_IN_USE (it would
 * wait for itself); INVALID_ARGUMENT for a NULL pool or fn. */
SINEW_API sinew_result sinew_thread_pool_run(sinew_thread_pool *pool, uint32_t task_count, sinew_task_fn fn, void *user);

#ifdef __cplusplus
}
#endif
#endif
