/* A small pthread pool: workers are started once, then each run() deals out
 * task indices through one atomic counter (the calling thread works too).
 * No allocation after creation. */
#define _POSIX_C_SOURCE 200809L
#include <sinew/linalg.h>
#include <sinew/threadpool.h>
#include "alloc_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


typedef struct pool_worker {
    struct sinew_thread_pool *pool;
    uint32_t index;
} pool_worker;

struct sinew_thread_pool {
    sinew_allocator alloc;       /* resolved */
    uint32_t size;               /* workers in total, caller included */
    pthread_t *threads;          /* size - 1 */
    pool_worker *workers;        /* size - 1 */
    uint32_t started;            /* threads actually started */

    pthread_mutex_t run_mutex;   /* serializes run() callers */
    pthread_mutex_t mu;
    pthread_cond_t cv_start, cv_done;
    uint64_t generation;
    int quit;
    uint32_t active;             /* workers still inside the current job */

    sinew_task_fn fn;
    void *user;
    uint32_t task_count;
    atomic_uint next;
};

/* The pool whose tasks the current thread is running (re-entrancy check). */
static _Thread_local const sinew_thread_pool *tls_running_pool;

uint32_t sinew_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > (long)SINEW_THREAD_POOL_MAX_THREADS) n = SINEW_THREAD_POOL_MAX_THREADS;
    return (uint32_t)n;
}

static void pool_work(sinew_thread_pool *p, uint32_t worker)
{
    const sinew_thread_pool *outer = tls_running_pool;
    tls_running_pool = p;
    for (;;) {
        uint32_t t = atomic_fetch_add_explicit(&p->next, 1u, memory_order_relaxed);
        if (t >= p->task_count) break;
        p->fn(p->user, t, worker);
    }
    tls_running_pool = outer;
}

static void *pool_main(void *arg)
{
    pool_worker *w = (pool_worker *)arg;
    sinew_thread_pool *p = w->pool;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->cv_start, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);

        pool_work(p, w->index);

        pthread_mutex_lock(&p->mu);
        if (--p->active == 0) pthread_cond_signal(&p->cv_done);
        pthread_mutex_unlock(&p->mu);
    }
}

sinew_result sinew_thread_pool_create(const sinew_thread_pool_desc *desc, sinew_thread_pool **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    sinew_thread_pool_desc d = { 0 };
    if (desc) d = *desc;
    sinew_allocator a;
    if (snw_allocator_resolve(d.allocator, &a) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    uint32_t threads = d.threads ? d.threads : sinew_cpu_count();
    if (threads > SINEW_THREAD_POOL_MAX_THREADS) return SINEW_ERROR_INVALID_ARGUMENT;

    sinew_thread_pool *p = (sinew_thread_pool *)snw_calloc(&a, 1, sizeof *p);
    if (!p) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    p->alloc = a;
    p->size = threads;
    if (threads > 1) {
        p->threads = (pthread_t *)snw_calloc(&a, threads - 1, sizeof(pthread_t));
        p->workers = (pool_worker *)snw_calloc(&a, threads - 1, sizeof(pool_worker));
        if (!p->threads || !p->workers) {
            snw_free(&a, p->threads);
            snw_free(&a, p->workers);
            snw_free(&a, p);
            return SINEW_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    pthread_mutex_init(&p->run_mutex, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_start, NULL);
    pthread_cond_init(&p->cv_done, NULL);
    atomic_init(&p->next, 0u);
    for (uint32_t i = 0; i + 1 < threads; i++) {
        p->workers[i].pool = p;
        p->workers[i].index = i + 1;
        if (pthread_create(&p->threads[i], NULL, pool_main, &p->workers[i]) != 0) break;
        p->started++;
    }
    if (p->started + 1 != threads) {
        sinew_thread_pool_destroy(p);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = p;
    return SINEW_OK;
}

void sinew_thread_pool_destroy(sinew_thread_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->cv_start);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->started; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->cv_start);
    pthread_cond_destroy(&p->cv_done);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->run_mutex);
    sinew_allocator a = p->alloc;
    snw_free(&a, p->threads);
    snw_free(&a, p->workers);
    snw_free(&a, p);
}

uint32_t sinew_thread_pool_size(const sinew_thread_pool *p) { return p ? p->size : 0; }

sinew_result sinew_thread_pool_run(sinew_thread_pool *p, uint32_t task_count, sinew_task_fn fn, void *user)
{
    if (!p || !fn) return SINEW_ERROR_INVALID_ARGUMENT;
    /* A task of this pool calling run() again would wait for itself. */
    if (tls_running_pool == p) return SINEW_ERROR_IN_USE;
    if (task_count == 0) return SINEW_OK;
    pthread_mutex_lock(&p->run_mutex);
    if (p->started == 0 || task_count == 1) {
        const sinew_thread_pool *outer = tls_running_pool;
        tls_running_pool = p;
        for (uint32_t t = 0; t < task_count; t++) fn(user, t, 0);
        tls_running_pool = outer;
        pthread_mutex_unlock(&p->run_mutex);
        return SINEW_OK;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->user = user;
    p->task_count = task_count;
    atomic_store_explicit(&p->next, 0u, memory_order_relaxed);
    p->active = p->started;
    p->generation++;
    pthread_cond_broadcast(&p->cv_start);
    pthread_mutex_unlock(&p->mu);

    pool_work(p, 0);

    pthread_mutex_lock(&p->mu);
    while (p->active > 0) pthread_cond_wait(&p->cv_done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->run_mutex);
    return SINEW_OK;
}
