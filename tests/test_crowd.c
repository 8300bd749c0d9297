/* Crowd palette job on the CPU: the thread pool runs every task exactly once;
 * palettes built by 1 thread, by 4 threads and by a plain serial loop over
 * sinew_palette_build_f32 (the production path; test_palette_fast compares it
 * with the float64 reference) are bit-identical for a mixed crowd
 * (several skeletons, every method, bulge flag, roots, poses from arrays,
 * callbacks and the rest pose); no allocation per frame; every error path. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <sinew/palette_job.h>
#include <stdatomic.h>
#include <string.h>

/* ---- counting allocator ---- */
typedef struct count_alloc { long allocs, frees; } count_alloc;
static void *ca_alloc(void *user, size_t size, size_t align)
{
    (void)align;
    ((count_alloc *)user)->allocs++;
    return malloc(size);
}
static void ca_free(void *user, void *p)
{
    ((count_alloc *)user)->frees++;
    free(p);
}

/* ---- thread pool ---- */
typedef struct pool_check {
    atomic_uint hits[1000];
    atomic_uint worker_bad;
    uint32_t size;
} pool_check;

static void pool_task(void *user, uint32_t task, uint32_t worker)
{
    pool_check *pc = (pool_check *)user;
    atomic_fetch_add(&pc->hits[task], 1u);
    if (worker >= pc->size) atomic_fetch_add(&pc->worker_bad, 1u);
}

static void test_pool(void)
{
    for (uint32_t threads = 1; threads <= 5; threads += 2) {
        sinew_thread_pool *pool = NULL;
        TU_CHECK_OK(sinew_thread_pool_create(&(sinew_thread_pool_desc){ threads, NULL }, &pool));
        if (!pool) continue;
        TU_CHECK(sinew_thread_pool_size(pool) == threads);
        static pool_check pc;
        for (int round = 0; round < 50; round++) {
            uint32_t n = 1 + (uint32_t)((round * 37) % 1000);
            memset(&pc, 0, sizeof pc);
            pc.size = threads;
            sinew_thread_pool_run(pool, n, pool_task, &pc);
            uint32_t wrong = 0;
            for (uint32_t i = 0; i < 1000; i++)
                wrong += atomic_load(&pc.hits[i]) != (i < n ? 1u : 0u);
            TU_CHECK_MSG(wrong == 0, "threads %u round %d: %u tasks not run exactly once", threads, round, wrong);
            TU_CHECK(atomic_load(&pc.worker_bad) == 0);
        }
        sinew_thread_pool_destroy(pool);
    }
    sinew_thread_pool *p = NULL;
    TU_CHECK_RESULT(sinew_thread_pool_create(&(sinew_thread_pool_desc){ 100000, NULL }, &p), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(p == NULL);
    TU_CHECK_RESULT(sinew_thread_pool_create(&(sinew_thread_pool_desc){ 2, NULL }, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_cpu_count() >= 1);
    sinew_thread_pool_destroy(NULL);
}

/* ---- random skeletons and poses ---- */
static sinew_skeleton *random_skeleton(tu_rng *r, uint32_t joints)
{
    int32_t *parents = malloc(sizeof(int32_t) * joints);
    sinew_transform *rest = malloc(sizeof(sinew_transform) * joints);
    bool *prop = malloc(joints * sizeof *prop);
    for (uint32_t j = 0; j < joints; j++) {
        parents[j] = j == 0 ? -1 : (int32_t)tu_range(r, j);
        rest[j].translation = tu_random_vec3(r, -0.5, 0.5);
        rest[j].rotation = tu_random_quat(r);
        rest[j].scale = sinew_v3(1, 1, 1);
        prop[j] = tu_range(r, 2) != 0;
    }
    sinew_skeleton_desc d = {0};
    d.joint_count = joints;
    d.parents = parents;
    d.rest_local = rest;
    d.scale_propagates = prop;
    sinew_skeleton *s = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&d, &s));
    free(parents);
    free(rest);
    free(prop);
    return s;
}

static void random_pose(tu_rng *r, uint32_t joints, int scaled, sinew_transform *out)
{
    for (uint32_t j = 0; j < joints; j++) {
        out[j].translation = tu_random_vec3(r, -0.5, 0.5);
        out[j].rotation = tu_random_quat(r);
        out[j].scale = scaled ? tu_random_vec3(r, 0.6, 1.5) : sinew_v3(1, 1, 1);
    }
}

typedef struct sample_ctx { const sinew_transform *poses; uint32_t stride; } sample_ctx;

/* A pose callback: pose number (character % 7) of a table, rotated by time. */
static sinew_result sample_cb(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                              sinew_transform *out)
{
    const sample_ctx *sc = (const sample_ctx *)user;
    uint32_t n = sinew_skeleton_joint_count(skel);
    memcpy(out, sc->poses + (size_t)(character % 7) * sc->stride, sizeof(sinew_transform) * n);
    sinew_quat q = sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), time);
    out[0].rotation = sinew_quat_mul(q, out[0].rotation);
    return SINEW_OK;
}

static sinew_result failing_cb(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                               sinew_transform *out)
{
    (void)user; (void)skel; (void)character; (void)time; (void)out;
    return SINEW_ERROR_NOT_FOUND;
}

#define NMODELS 3
#define NCHARS 300
#define STRIDE 61 /* joints of room per character in the pose table */

/* The models, the characters and the serial expectation the cases share. */
typedef struct fixture {
    tu_rng rng;
    uint32_t joint_counts[NMODELS];
    sinew_skeleton *skel[NMODELS];
    sinew_transform *poses;
    sinew_mat4 *roots;
    sinew_crowd_character *chars;
    sample_ctx sc;
    uint32_t total;  /* palette slots (vec4) of the crowd */
    uint32_t *offs;  /* each character's first slot */
    float *expect;   /* the serial build */
    float *got[2];   /* the crowd's build with 1 and 4 threads */
} fixture;

/* Characters: random models, methods, bulge, poses, roots and times; poses in
 * one table, from arrays, the callback or the rest pose. */
static void make_characters(fixture *f)
{
    tu_rng *rng = &f->rng;
    f->poses = malloc(sizeof(sinew_transform) * STRIDE * NCHARS);
    f->roots = malloc(sizeof(sinew_mat4) * NCHARS);
    f->chars = calloc(NCHARS, sizeof *f->chars);
    f->sc.poses = f->poses;
    f->sc.stride = STRIDE;
    for (uint32_t i = 0; i < NCHARS; i++) {
        sinew_crowd_character *ch = &f->chars[i];
        ch->model.value = tu_range(rng, NMODELS);
        ch->method = (sinew_method)tu_range(rng, SINEW_METHOD_COUNT);
        ch->flags = tu_range(rng, 2) ? SINEW_SKIN_BULGE_CORRECTION : 0;
        int scaled = ch->method >= SINEW_METHOD_DQS_SCALE && ch->method != SINEW_METHOD_COR; /* COR: rigid */
        random_pose(rng, f->joint_counts[ch->model.value], scaled, f->poses + (size_t)i * STRIDE);
        sinew_transform rt = { tu_random_vec3(rng, -20, 20), tu_random_quat(rng), sinew_v3(1, 1, 1) };
        f->roots[i] = sinew_mat4_from_transform(&rt);
        ch->root = tu_range(rng, 4) ? &f->roots[i] : NULL;
        ch->time = tu_uniform(rng, 0, 10);
        uint32_t src = tu_range(rng, 8);
        if (src < 6) ch->pose = f->poses + (size_t)i * STRIDE;
        else if (src == 6 && !scaled) { ch->sample = sample_cb; ch->sample_user = &f->sc; }
        /* else: rest pose (rest poses are rigid: fine for every method) */
    }
    /* make sure the callback's table entries 0..6 are rigid (any method may use them) */
    for (uint32_t k = 0; k < 7; k++) random_pose(rng, STRIDE, 0, f->poses + (size_t)k * STRIDE);
    for (uint32_t k = 0; k < 7; k++) f->chars[k].pose = NULL, f->chars[k].sample = sample_cb, f->chars[k].sample_user = &f->sc;
}

/* The serial expectation: every character's palette built and packed in turn. */
static void build_serial_expectation(fixture *f)
{
    f->total = 0;
    f->offs = malloc(sizeof(uint32_t) * NCHARS);
    for (uint32_t i = 0; i < NCHARS; i++) {
        f->offs[i] = f->total;
        f->total += f->joint_counts[f->chars[i].model.value] * sinew_palette_gpu_stride(f->chars[i].method, f->chars[i].flags);
    }
    f->expect = malloc(sizeof(float) * 4 * f->total);
    size_t sb = sinew_palette_scratch_bytes(61);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    sinew_transform *tmp = malloc(sizeof(sinew_transform) * 61);
    for (uint32_t i = 0; i < NCHARS; i++) {
        const sinew_crowd_character *ch = &f->chars[i];
        const sinew_skeleton *s = f->skel[ch->model.value];
        const sinew_transform *local = ch->pose;
        if (!local && ch->sample) { sample_cb(&f->sc, s, i, ch->time, tmp); local = tmp; }
        if (!local) local = sinew_skeleton_rest_pose(s);
        sinew_palette_character pc = { s, ch->method, ch->flags, ch->root, local, NULL, SINEW_WRAP_LOOP, ch->time, 0 };
        TU_CHECK_OK(sinew_palette_build_f32(&pc, scratch, sb, f->expect + (size_t)f->offs[i] * 4));
    }
    free(scratch);
    free(tmp);
}

/* Three builds with no allocation in the per-frame path, equal bit for bit to
 * the serial one, the slots after the crowd untouched. */
static void test_build_matches_serial(fixture *f, sinew_crowd *c, const count_alloc *ca, int t, uint32_t threads)
{
    float *got = f->got[t] = malloc(sizeof(float) * 4 * (f->total + 16));
    memset(got, 0xff, sizeof(float) * 4 * (f->total + 16));
    uint32_t *got_offs = malloc(sizeof(uint32_t) * NCHARS);
    long allocs_before = ca->allocs;
    for (int rep = 0; rep < 3; rep++) {
        sinew_error_info cerr;
        TU_CHECK_OK(sinew_crowd_build_palettes(c, f->chars, NCHARS, got, f->total, got_offs, &cerr));
        TU_CHECK(cerr.index == UINT32_MAX);
    }
    TU_CHECK_MSG(ca->allocs == allocs_before, "%ld allocations in the per-frame path", ca->allocs - allocs_before);
    TU_CHECK(memcmp(got_offs, f->offs, sizeof(uint32_t) * NCHARS) == 0);
    size_t diff = 0;
    for (size_t k = 0; k < (size_t)4 * f->total; k++) diff += memcmp(&got[k], &f->expect[k], sizeof(float)) != 0;
    TU_CHECK_MSG(diff == 0, "%u threads: %zu of %u floats differ from the serial build", threads, diff, 4 * f->total);
    /* the slots after the crowd are untouched */
    uint32_t ff = 0xffffffffu;
    TU_CHECK(memcmp(&got[(size_t)4 * f->total], &ff, 4) == 0);
    free(got_offs);
}

/* Errors validated before anything runs: capacity, arguments, and one bad
 * character (unknown model, method, flags, non-finite time or root). */
static void test_build_validation_errors(fixture *f, sinew_crowd *c, float *got)
{
    sinew_crowd_character *chars = f->chars;
    uint32_t total = f->total;
    sinew_error_info cerr;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total - 1, NULL, &cerr), SINEW_ERROR_CAPACITY);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS + 1, got, total, NULL, &cerr), SINEW_ERROR_CAPACITY);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, 0, got, total, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, NULL, 1, got, total, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(NULL, chars, 1, got, total, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_crowd_character save;
    const uint32_t victim = 123;
    save = chars[victim];
    chars[victim].model.value = NMODELS;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    chars[victim].method = SINEW_METHOD_COUNT;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    chars[victim].flags = 0x80;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr), SINEW_ERROR_INVALID_ARGUMENT);
    chars[victim] = save;
    chars[victim].time = NAN;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    sinew_mat4 nanroot = sinew_mat4_identity();
    nanroot.m[3][1] = INFINITY;
    chars[victim].root = &nanroot;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
}

/* Errors found while running: the first failing character is reported,
 * whatever thread found it (non-rigid pose under DQS, failing callback,
 * non-finite pose); prepare and character_output need a skinner. */
static void test_build_run_errors(fixture *f, sinew_crowd *c, float *got)
{
    sinew_crowd_character *chars = f->chars;
    uint32_t total = f->total;
    sinew_error_info cerr;
    const uint32_t victim = 123;
    sinew_crowd_character save = chars[victim];
    sinew_transform scaled_pose[61];
    random_pose(&f->rng, 61, 1, scaled_pose);
    for (int k = 0; k < 61; k++) scaled_pose[k].scale = sinew_v3(2, 2, 2);
    sinew_crowd_character s2 = chars[250], s1 = chars[40];
    chars[250].method = SINEW_METHOD_DQS;
    chars[250].pose = scaled_pose;
    chars[40].method = SINEW_METHOD_DQS;
    chars[40].pose = scaled_pose;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total + 1000, NULL, &cerr), SINEW_ERROR_NOT_RIGID);
    TU_CHECK_MSG(cerr.index == 40, "bad character %u, expected 40", cerr.index);
    chars[250] = s2;
    chars[40] = s1;
    chars[victim].pose = NULL;
    chars[victim].sample = failing_cb;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total + 1000, NULL, &cerr), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    sinew_transform nanpose[61];
    random_pose(&f->rng, 61, 0, nanpose);
    nanpose[1].translation.x = NAN;
    chars[victim].pose = nanpose;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got, total + 1000, NULL, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    /* A failed run leaves the slots it did not reach as they were, and those
     * depend on the chunking (thread count) and on the layout of the failed
     * call (a method changed above moves every later character): rebuild, so
     * the final comparison between thread counts sees whole palettes. */
    TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NCHARS, got, total, NULL, &cerr));
    /* prepare needs a skinner */
    TU_CHECK_RESULT(sinew_crowd_prepare(c, chars, NCHARS, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    uint32_t fv;
    TU_CHECK_RESULT(sinew_crowd_character_output(c, 0, 0, &fv, NULL), SINEW_ERROR_INVALID_ARGUMENT);
}

/* sinew_crowd_add_model errors: no skeleton, meshes missing, empty, too many. */
static void test_add_model_errors(fixture *f, sinew_crowd *c)
{
    sinew_crowd_model_desc md = {0};
    sinew_model_id id;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    md.skeleton = f->skel[0];
    md.mesh_count = 1;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_mesh_id mesh0 = { 0 };
    uint32_t vc0 = 0;
    md.meshes = &mesh0;
    md.vertex_counts = &vc0;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id, NULL), SINEW_ERROR_EMPTY);
    md.mesh_count = SINEW_CROWD_MAX_MESHES + 1;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
}

/* The crowd with 1 and with 4 threads (with a counting allocator): the build
 * and every error, everything freed. 0 when the crowd cannot be created. */
static int test_crowd_threads(fixture *f, int t)
{
    const uint32_t threads[2] = { 1, 4 };
    count_alloc ca = {0, 0};
    sinew_allocator alloc = { ca_alloc, ca_free, &ca };
    sinew_crowd_desc d = {0};
    d.max_characters = NCHARS;
    d.max_joints = 64;
    d.threads = threads[t];
    d.allocator = &alloc;
    sinew_crowd *c = NULL;
    TU_CHECK_OK(sinew_crowd_create(&d, &c, NULL));
    if (!c) return 0;
    TU_CHECK(sinew_thread_pool_size(sinew_crowd_pool(c)) == threads[t]);
    for (int m = 0; m < NMODELS; m++) {
        sinew_crowd_model_desc md = {0};
        md.skeleton = f->skel[m];
        sinew_model_id id = { 99 };
        TU_CHECK_OK(sinew_crowd_add_model(c, &md, &id, NULL));
        TU_CHECK(id.value == (uint32_t)m);
        TU_CHECK(sinew_crowd_palette_vec4(c, id, SINEW_METHOD_LBS, 0) == f->joint_counts[m] * 3);
    }
    test_build_matches_serial(f, c, &ca, t, threads[t]);
    test_build_validation_errors(f, c, f->got[t]);
    test_build_run_errors(f, c, f->got[t]);
    test_add_model_errors(f, c);
    sinew_crowd_destroy(c);
    TU_CHECK_MSG(ca.allocs == ca.frees, "%ld allocations, %ld frees", ca.allocs, ca.frees);
    return 1;
}

/* max_joints smaller than a skeleton, max_models exhausted, bad descs. */
static void test_crowd_limits(fixture *f)
{
    sinew_crowd_desc d = {0};
    d.max_joints = 16;
    d.max_models = 1;
    d.threads = 2;
    sinew_crowd *c = NULL;
    TU_CHECK_OK(sinew_crowd_create(&d, &c, NULL));
    sinew_crowd_model_desc md = {0};
    md.skeleton = f->skel[1];
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, NULL, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
    md.skeleton = f->skel[0];
    TU_CHECK_OK(sinew_crowd_add_model(c, &md, NULL, NULL));
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, NULL, NULL), SINEW_ERROR_CAPACITY);
    sinew_crowd_destroy(c);
    d.max_joints = SINEW_MAX_JOINTS + 1;
    TU_CHECK_RESULT(sinew_crowd_create(&d, &c, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK_RESULT(sinew_crowd_create(NULL, &c, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_crowd_destroy(NULL);
}

static void destroy_fixture(fixture *f)
{
    free(f->got[0]);
    free(f->got[1]);
    free(f->expect);
    free(f->offs);
    free(f->poses);
    free(f->roots);
    free(f->chars);
    for (int m = 0; m < NMODELS; m++) sinew_skeleton_destroy(f->skel[m]);
}

int main(void)
{
    fixture f = { .joint_counts = { 3, 17, 61 } };
    f.rng = tu_rng_seeded(0xC40D5EEDull);
    test_pool();

    for (int m = 0; m < NMODELS; m++) f.skel[m] = random_skeleton(&f.rng, f.joint_counts[m]);
    for (int m = 0; m < NMODELS; m++)
        if (!f.skel[m]) return tu_finish("test_crowd");
    make_characters(&f);
    build_serial_expectation(&f);

    for (int t = 0; t < 2; t++)
        if (!test_crowd_threads(&f, t)) return tu_finish("test_crowd");
    TU_CHECK(memcmp(f.got[0], f.got[1], sizeof(float) * 4 * f.total) == 0);
    test_crowd_limits(&f);

    destroy_fixture(&f);
    return tu_finish("test_crowd");
}
