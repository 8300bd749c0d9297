/* Thread pool misuse and contract: a task that runs its own pool again gets
 * SINEW_ERROR_IN_USE instead of deadlocking (on the caller's thread and on
 * workers), another pool may be run from inside a task, NULL arguments and
 * sizes beyond SINEW_THREAD_POOL_MAX_THREADS are refused, the allocator rule
 * applies, and every task runs exactly once. */
#include "testutil.h"

#include <stdatomic.h>
#include <string.h>

typedef struct reentry {
    sinew_thread_pool *self;     /* the pool running the task */
    sinew_thread_pool *other;    /* another pool, may be NULL */
    atomic_uint in_use;          /* tasks whose nested run on `self` returned IN_USE */
    atomic_uint other_ok;        /* tasks whose nested run on `other` succeeded */
    atomic_uint ran;             /* tasks run */
    atomic_uint inner_ran;       /* tasks of the nested runs on `other` */
} reentry;

static void inner_task(void *user, uint32_t task, uint32_t worker)
{
    (void)task;
    (void)worker;
    atomic_fetch_add(&((reentry *)user)->inner_ran, 1u);
}

static void outer_task(void *user, uint32_t task, uint32_t worker)
{
    (void)task;
    (void)worker;
    reentry *r = (reentry *)user;
    atomic_fetch_add(&r->ran, 1u);
    if (sinew_thread_pool_run(r->self, 4, inner_task, r) == SINEW_ERROR_IN_USE) atomic_fetch_add(&r->in_use, 1u);
    if (r->other && sinew_thread_pool_run(r->other, 3, inner_task, r) == SINEW_OK) atomic_fetch_add(&r->other_ok, 1u);
}

static void test_reentrant_run_is_refused(uint32_t threads)
{
    sinew_thread_pool_desc d = { threads, NULL };
    sinew_thread_pool *pool = NULL, *other = NULL;
    TU_CHECK_OK(sinew_thread_pool_create(&d, &pool));
    TU_CHECK_OK(sinew_thread_pool_create(&d, &other));
    if (!pool || !other) return;
    reentry r;
    memset(&r, 0, sizeof r);
    r.self = pool;
    r.other = other;
    const uint32_t tasks = 64;
    TU_CHECK_OK(sinew_thread_pool_run(pool, tasks, outer_task, &r));
    TU_CHECK(atomic_load(&r.ran) == tasks);
    TU_CHECK_MSG(atomic_load(&r.in_use) == tasks, "%u of %u nested runs refused", atomic_load(&r.in_use), tasks);
    /* The other pool serializes concurrent callers: every nested run completes. */
    TU_CHECK(atomic_load(&r.other_ok) == tasks);
    TU_CHECK(atomic_load(&r.inner_ran) == 3u * tasks);
    /* The pool is still usable afterwards, from outside any task. */
    memset(&r, 0, sizeof r);
    r.self = other;
    TU_CHECK_OK(sinew_thread_pool_run(pool, 5, outer_task, &r));
    TU_CHECK(atomic_load(&r.ran) == 5u);
    sinew_thread_pool_destroy(other);
    sinew_thread_pool_destroy(pool);
}

static void *never_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    (void)size;
    (void)align;
    return NULL;
}

static void test_bad_arguments(void)
{
    sinew_thread_pool *p = (sinew_thread_pool *)(uintptr_t)1;
    sinew_thread_pool_desc big = { SINEW_THREAD_POOL_MAX_THREADS + 1, NULL };
    TU_CHECK_RESULT(sinew_thread_pool_create(&big, &p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(p == NULL);
    TU_CHECK_RESULT(sinew_thread_pool_create(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_allocator half = { NULL, NULL, NULL };
    sinew_thread_pool_desc d = { 2, &half };
    TU_CHECK_OK(sinew_thread_pool_create(&d, &p)); /* {NULL, NULL} = the default allocator */
    TU_CHECK(sinew_thread_pool_size(p) == 2);
    TU_CHECK_RESULT(sinew_thread_pool_run(NULL, 1, inner_task, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_thread_pool_run(p, 1, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_thread_pool_run(p, 0, inner_task, NULL));
    sinew_thread_pool_destroy(p);
    sinew_thread_pool_destroy(NULL);
    sinew_allocator one = { never_alloc, NULL, NULL }; /* exactly one callback: refused */
    sinew_thread_pool_desc d1 = { 2, &one };
    p = (sinew_thread_pool *)(uintptr_t)1;
    TU_CHECK_RESULT(sinew_thread_pool_create(&d1, &p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(p == NULL);
}

int main(void)
{
    test_reentrant_run_is_refused(1);
    test_reentrant_run_is_refused(3);
    test_bad_arguments();
    return tu_finish("test_threadpool");
}
