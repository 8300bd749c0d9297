/* Crowd palette job on the CPU: the thread pool runs every task exactly once;
 * palettes built by 1 thread, by 4 threads and by a plain serial loop over
 * sinew_palette_build + sinew_palette_pack are bit-identical for a mixed crowd
 * (several skeletons, every method, bulge flag, roots, poses from arrays,
 * callbacks and the rest pose); no allocation per frame; every error path. */
#include "testutil.h"
#include <sinew/crowd.h>
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

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xC40D5EEDull);
    test_pool();

    const uint32_t joint_counts[NMODELS] = { 3, 17, 61 };
    sinew_skeleton *skel[NMODELS];
    for (int m = 0; m < NMODELS; m++) skel[m] = random_skeleton(&rng, joint_counts[m]);
    for (int m = 0; m < NMODELS; m++)
        if (!skel[m]) return tu_finish("test_crowd");

    /* characters: poses in one table, 61 joints of room each */
    const uint32_t stride = 61;
    sinew_transform *poses = malloc(sizeof(sinew_transform) * stride * NCHARS);
    sinew_mat4 *roots = malloc(sizeof(sinew_mat4) * NCHARS);
    sinew_crowd_character *chars = calloc(NCHARS, sizeof *chars);
    sample_ctx sc = { poses, stride };
    for (uint32_t i = 0; i < NCHARS; i++) {
        sinew_crowd_character *ch = &chars[i];
        ch->model.value = tu_range(&rng, NMODELS);
        ch->method = (sinew_method)tu_range(&rng, SINEW_METHOD_COUNT);
        ch->flags = tu_range(&rng, 2) ? SINEW_SKIN_BULGE_CORRECTION : 0;
        int scaled = ch->method >= SINEW_METHOD_DQS_SCALE;
        random_pose(&rng, joint_counts[ch->model.value], scaled, poses + (size_t)i * stride);
        sinew_transform rt = { tu_random_vec3(&rng, -20, 20), tu_random_quat(&rng), sinew_v3(1, 1, 1) };
        roots[i] = sinew_mat4_from_transform(&rt);
        ch->root = tu_range(&rng, 4) ? &roots[i] : NULL;
        ch->time = tu_uniform(&rng, 0, 10);
        uint32_t src = tu_range(&rng, 8);
        if (src < 6) ch->pose = poses + (size_t)i * stride;
        else if (src == 6 && !scaled) { ch->sample = sample_cb; ch->sample_user = &sc; }
        /* else: rest pose (rest poses are rigid: fine for every method) */
    }
    /* make sure the callback's table entries 0..6 are rigid (any method may use them) */
    for (uint32_t k = 0; k < 7; k++) random_pose(&rng, stride, 0, poses + (size_t)k * stride);
    for (uint32_t k = 0; k < 7; k++) chars[k].pose = NULL, chars[k].sample = sample_cb, chars[k].sample_user = &sc;

    /* serial expectation */
    uint32_t total = 0;
    uint32_t *offs = malloc(sizeof(uint32_t) * NCHARS);
    for (uint32_t i = 0; i < NCHARS; i++) {
        offs[i] = total;
        total += joint_counts[chars[i].model.value] * sinew_palette_gpu_stride(chars[i].method, chars[i].flags);
    }
    float *expect = malloc(sizeof(float) * 4 * total);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(61));
    sinew_palette_joint *pj = malloc(sizeof(sinew_palette_joint) * 61);
    sinew_transform *tmp = malloc(sizeof(sinew_transform) * 61);
    for (uint32_t i = 0; i < NCHARS; i++) {
        const sinew_crowd_character *ch = &chars[i];
        const sinew_skeleton *s = skel[ch->model.value];
        const sinew_transform *local = ch->pose;
        if (!local && ch->sample) { sample_cb(&sc, s, i, ch->time, tmp); local = tmp; }
        if (!local) local = sinew_skeleton_rest_pose(s);
        TU_CHECK_OK(sinew_palette_build(s, ch->method, local, ch->root, scratch, pj));
        sinew_palette_pack(ch->method, ch->flags, pj, joint_counts[ch->model.value], expect + (size_t)offs[i] * 4);
    }

    /* the crowd with 1 and with 4 threads (with a counting allocator) */
    float *got[2];
    const uint32_t threads[2] = { 1, 4 };
    for (int t = 0; t < 2; t++) {
        count_alloc ca = {0, 0};
        sinew_allocator alloc = { ca_alloc, ca_free, &ca };
        sinew_crowd_desc d = {0};
        d.max_characters = NCHARS;
        d.max_joints = 64;
        d.threads = threads[t];
        d.allocator = &alloc;
        sinew_crowd *c = NULL;
        TU_CHECK_OK(sinew_crowd_create(&d, &c));
        if (!c) return tu_finish("test_crowd");
        TU_CHECK(sinew_thread_pool_size(sinew_crowd_pool(c)) == threads[t]);
        for (int m = 0; m < NMODELS; m++) {
            sinew_crowd_model_desc md = {0};
            md.skeleton = skel[m];
            sinew_model_id id = { 99 };
            TU_CHECK_OK(sinew_crowd_add_model(c, &md, &id));
            TU_CHECK(id.value == (uint32_t)m);
            TU_CHECK(sinew_crowd_palette_vec4(c, id, SINEW_METHOD_LBS, 0) == joint_counts[m] * 3);
        }
        got[t] = malloc(sizeof(float) * 4 * (total + 16));
        memset(got[t], 0xff, sizeof(float) * 4 * (total + 16));
        uint32_t *got_offs = malloc(sizeof(uint32_t) * NCHARS);
        long allocs_before = ca.allocs;
        for (int rep = 0; rep < 3; rep++) {
            uint32_t bad = 7;
            TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, got_offs, &bad));
            TU_CHECK(bad == UINT32_MAX);
        }
        TU_CHECK_MSG(ca.allocs == allocs_before, "%ld allocations in the per-frame path", ca.allocs - allocs_before);
        TU_CHECK(memcmp(got_offs, offs, sizeof(uint32_t) * NCHARS) == 0);
        size_t diff = 0;
        for (size_t k = 0; k < (size_t)4 * total; k++) diff += memcmp(&got[t][k], &expect[k], sizeof(float)) != 0;
        TU_CHECK_MSG(diff == 0, "%u threads: %zu of %u floats differ from the serial build", threads[t], diff, 4 * total);
        /* the slots after the crowd are untouched */
        uint32_t ff = 0xffffffffu;
        TU_CHECK(memcmp(&got[t][(size_t)4 * total], &ff, 4) == 0);

        /* ---- error paths (validated before anything runs) ---- */
        uint32_t bad = 0;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total - 1, NULL, &bad), SINEW_ERROR_CAPACITY);
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS + 1, got[t], total, NULL, &bad), SINEW_ERROR_CAPACITY);
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, 0, got[t], total, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, NULL, 1, got[t], total, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_crowd_build_palettes(NULL, chars, 1, got[t], total, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_crowd_character save;
        const uint32_t victim = 123;
        save = chars[victim];
        chars[victim].model.value = NMODELS;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, NULL, &bad), SINEW_ERROR_NOT_FOUND);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        chars[victim].method = SINEW_METHOD_COUNT;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        chars[victim].flags = 0x80;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, NULL, &bad), SINEW_ERROR_INVALID_ARGUMENT);
        chars[victim] = save;
        chars[victim].time = NAN;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, NULL, &bad), SINEW_ERROR_NON_FINITE);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        sinew_mat4 nanroot = sinew_mat4_identity();
        nanroot.m[3][1] = INFINITY;
        chars[victim].root = &nanroot;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total, NULL, &bad), SINEW_ERROR_NON_FINITE);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        /* errors found while running: the first failing character is reported,
         * whatever thread found it */
        sinew_transform scaled_pose[61];
        random_pose(&rng, 61, 1, scaled_pose);
        for (int k = 0; k < 61; k++) scaled_pose[k].scale = sinew_v3(2, 2, 2);
        sinew_crowd_character s2 = chars[250], s1 = chars[40];
        chars[250].method = SINEW_METHOD_DQS;
        chars[250].pose = scaled_pose;
        chars[40].method = SINEW_METHOD_DQS;
        chars[40].pose = scaled_pose;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total + 1000, NULL, &bad), SINEW_ERROR_NOT_RIGID);
        TU_CHECK_MSG(bad == 40, "bad character %u, expected 40", bad);
        chars[250] = s2;
        chars[40] = s1;
        chars[victim].pose = NULL;
        chars[victim].sample = failing_cb;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total + 1000, NULL, &bad), SINEW_ERROR_NOT_FOUND);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        sinew_transform nanpose[61];
        random_pose(&rng, 61, 0, nanpose);
        nanpose[1].translation.x = NAN;
        chars[victim].pose = nanpose;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, got[t], total + 1000, NULL, &bad), SINEW_ERROR_NON_FINITE);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        /* prepare needs a skinner */
        TU_CHECK_RESULT(sinew_crowd_prepare(c, chars, NCHARS, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        uint32_t fv;
        TU_CHECK_RESULT(sinew_crowd_character_output(c, 0, 0, &fv, NULL), SINEW_ERROR_INVALID_ARGUMENT);

        /* model errors */
        sinew_crowd_model_desc md = {0};
        sinew_model_id id;
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id), SINEW_ERROR_INVALID_ARGUMENT);
        md.skeleton = skel[0];
        md.mesh_count = 1;
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_mesh_id mesh0 = { 0 };
        uint32_t vc0 = 0;
        md.meshes = &mesh0;
        md.vertex_counts = &vc0;
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id), SINEW_ERROR_EMPTY);
        md.mesh_count = SINEW_CROWD_MAX_MESHES + 1;
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, &id), SINEW_ERROR_LIMIT_EXCEEDED);

        free(got_offs);
        sinew_crowd_destroy(c);
        TU_CHECK_MSG(ca.allocs == ca.frees, "%ld allocations, %ld frees", ca.allocs, ca.frees);
    }
    TU_CHECK(memcmp(got[0], got[1], sizeof(float) * 4 * total) == 0);

    /* max_joints smaller than a skeleton, max_models exhausted */
    {
        sinew_crowd_desc d = {0};
        d.max_joints = 16;
        d.max_models = 1;
        d.threads = 2;
        sinew_crowd *c = NULL;
        TU_CHECK_OK(sinew_crowd_create(&d, &c));
        sinew_crowd_model_desc md = {0};
        md.skeleton = skel[1];
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, NULL), SINEW_ERROR_LIMIT_EXCEEDED);
        md.skeleton = skel[0];
        TU_CHECK_OK(sinew_crowd_add_model(c, &md, NULL));
        TU_CHECK_RESULT(sinew_crowd_add_model(c, &md, NULL), SINEW_ERROR_CAPACITY);
        sinew_crowd_destroy(c);
        d.max_joints = SINEW_MAX_JOINTS + 1;
        TU_CHECK_RESULT(sinew_crowd_create(&d, &c), SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK_RESULT(sinew_crowd_create(NULL, &c), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_crowd_destroy(NULL);
    }

    free(got[0]);
    free(got[1]);
    free(expect);
    free(scratch);
    free(pj);
    free(tmp);
    free(offs);
    free(poses);
    free(roots);
    free(chars);
    for (int m = 0; m < NMODELS; m++) sinew_skeleton_destroy(skel[m]);
    return tu_finish("test_crowd");
}
