/* Crowd misuse: clean error codes, each asserted exactly.
 *  - add_model against the skinner: unknown mesh id (NOT_FOUND), a mesh uploaded
 *    for another joint count or a wrong declared vertex count (INVALID_ARGUMENT),
 *    meshes for a crowd without a skinner (INVALID_ARGUMENT);
 *  - palettes finite in float64 but not in float32 (root translation 1e39, pose
 *    scales 1e20 whose products pass FLT_MAX): NON_FINITE naming the character,
 *    from sinew_palette_pack, sinew_crowd_build_palettes and sinew_crowd_prepare;
 *  - re-entry: a pose callback calling back into its own crowd gets IN_USE from
 *    build_palettes / prepare / update / add_model, and the outer call reports
 *    the callback's result for that character; the crowd works afterwards;
 *  - the skinner refuses destruction (IN_USE) while a crowd made on it exists;
 *  - the allocator rule of sinew_crowd_create.
 * Uses a Vulkan device (lavapipe) with validation on; 0 messages required. */
#include "testutil.h"
#include <sinew/crowd.h>

#include <float.h>
#include <string.h>

#define NJ 5
#define NV 120
#define NCHARS 6

typedef struct reentry {
    sinew_crowd *crowd;
    uint32_t target;                 /* the character whose callback calls back */
    const sinew_crowd_character *chars;
    const sinew_crowd_model_desc *model;
    float *dst;
    sinew_result inner_build, inner_prepare, inner_update, inner_add;
    int called;
} reentry;



static sinew_result reentrant_pose(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                   sinew_transform *out)
{
    (void)time;
    reentry *re = (reentry *)user;
    memcpy(out, sinew_skeleton_rest_pose(skel), sizeof(sinew_transform) * sinew_skeleton_joint_count(skel));
    if (character != re->target) return SINEW_OK;
    __atomic_add_fetch(&re->called, 1, __ATOMIC_RELAXED);
    sinew_error_info cerr;
    sinew_model_id id = { 99 };
    re->inner_build = sinew_crowd_build_palettes(re->crowd, re->chars, 1, re->dst, 1000, NULL, &cerr);
    re->inner_prepare = sinew_crowd_prepare(re->crowd, re->chars, 1, NULL, NULL);
    re->inner_update = sinew_crowd_update(re->crowd, re->chars, 1, NULL, NULL);
    re->inner_add = sinew_crowd_add_model(re->crowd, re->model, &id, NULL);
    /* IN_USE changes nothing in the crowd (the model id included) and says why in err */
    if (cerr.result != SINEW_ERROR_IN_USE || cerr.item != SINEW_ITEM_CALL_ORDER || !strstr(cerr.message, "another call") ||
        id.value != 99)
        return SINEW_ERROR_INVALID_ARGUMENT;
    return re->inner_build;
}

static int alloc_calls;
static void *plain_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    alloc_calls++;
    if (align < sizeof(void *)) align = sizeof(void *);
    return aligned_alloc(align, (size + align - 1) / align * align);
}
static void plain_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void check_allocator_rule(void)
{
    sinew_allocator none = { NULL, NULL, NULL };
    sinew_allocator half_a = { plain_alloc, NULL, NULL };
    sinew_allocator half_f = { NULL, plain_free, NULL };
    sinew_crowd_desc cd = { 0 };
    cd.threads = 2;
    sinew_crowd *c = (sinew_crowd *)(uintptr_t)1;
    cd.allocator = &half_a;
    TU_CHECK_RESULT(sinew_crowd_create(&cd, &c, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(c == NULL);
    cd.allocator = &half_f;
    TU_CHECK_RESULT(sinew_crowd_create(&cd, &c, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(alloc_calls == 0);
    cd.allocator = &none;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c, NULL));
    sinew_crowd_destroy(c);
    sinew_allocator both = { plain_alloc, plain_free, NULL };
    cd.allocator = &both;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c, NULL));
    TU_CHECK(alloc_calls > 0);
    sinew_crowd_destroy(c);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x6372776d69737500ull);
    check_allocator_rule();

    /* ---- sinew_palette_pack alone ---- */
    sinew_palette_joint pj;
    memset(&pj, 0, sizeof pj);
    pj.skin = sinew_mat4_identity();
    pj.scale = sinew_mat4_identity();
    pj.rigid = sinew_dq_identity();
    float buf[4 * 7];
    TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_LBS, 0, &pj, 1, buf));
    TU_CHECK_RESULT(sinew_palette_pack((sinew_method)SINEW_METHOD_COUNT, 0, &pj, 1, buf), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_palette_pack(SINEW_METHOD_LBS, 0, NULL, 1, buf), SINEW_ERROR_INVALID_ARGUMENT);
    pj.skin.m[3][0] = 1e39; /* finite double, beyond FLT_MAX */
    TU_CHECK_RESULT(sinew_palette_pack(SINEW_METHOD_LBS, 0, &pj, 1, buf), SINEW_ERROR_NON_FINITE);
    TU_CHECK_OK(sinew_palette_pack(SINEW_METHOD_DQS, 0, &pj, 1, buf)); /* LBS rows not packed for DQS */
    pj.seg_tail.y = -(double)FLT_MAX * 2.0;
    TU_CHECK_RESULT(sinew_palette_pack(SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, &pj, 1, buf),
                    SINEW_ERROR_NON_FINITE);

    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_crowd_misuse");
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 4 * NV;
    sd.max_meshes = 4;
    sd.max_instances = 16;
    sd.max_output_vertices = NCHARS * NV;
    sd.max_palette_vec4 = 1024;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_crowd_misuse");

    sinew_transform rest[NJ];
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, NJ, rest, &skel));
    if (!skel) return tu_finish("test_crowd_misuse");
    static sinew_vertex verts[NV];
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, NV, 0.3, verts, NULL));
    sinew_mesh_id mesh, mesh_other_joints;
    sinew_skinner_mesh_desc md = { verts, NV, NJ, NULL };
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    md.joint_count = NJ + 1; /* same vertices, uploaded for a larger skeleton */
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh_other_joints, NULL));

    /* ---- add_model against the skinner ---- */
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = NCHARS;
    cd.max_joints = 16;
    cd.threads = 3;
    sinew_crowd *c = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c, NULL));
    if (!c) return tu_finish("test_crowd_misuse");
    sinew_model_id model = { 77 };
    uint32_t nv = NV;
    sinew_mesh_id unknown = { 3 };
    sinew_crowd_model_desc mdl = { skel, 1, &unknown, &nv };
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &model, NULL), SINEW_ERROR_NOT_FOUND);
    mdl.meshes = &mesh_other_joints;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &model, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    mdl.meshes = &mesh;
    nv = NV - 1;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &model, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    nv = NV + 1;
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &model, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(model.value == 77); /* untouched by the failures */
    nv = NV;
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl, &model, NULL));
    TU_CHECK(model.value == 0);

    /* A crowd without a skinner takes no meshes (palettes-only models are fine). */
    sinew_crowd_desc cpu_desc = { 0 };
    cpu_desc.threads = 2;
    sinew_crowd *cpu = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cpu_desc, &cpu, NULL));
    if (cpu) {
        sinew_model_id m2;
        TU_CHECK_RESULT(sinew_crowd_add_model(cpu, &mdl, &m2, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_crowd_model_desc palettes_only = { skel, 0, NULL, NULL };
        TU_CHECK_OK(sinew_crowd_add_model(cpu, &palettes_only, &m2, NULL));
        sinew_crowd_destroy(cpu);
    }

    /* ---- the skinner must outlive its crowds ---- */
    tu_check_destroy_refused(sk);
    sinew_crowd *c2 = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c2, NULL));
    sinew_crowd_destroy(c2);
    tu_check_destroy_refused(sk); /* c still exists */

    /* ---- float64-finite palettes that overflow float32 ---- */
    sinew_crowd_character chars[NCHARS];
    memset(chars, 0, sizeof chars);
    for (uint32_t i = 0; i < NCHARS; i++) {
        chars[i].model = model;
        chars[i].method = (sinew_method)(i % TU_PLAIN_METHODS);
    }
    uint32_t total = 0;
    for (uint32_t i = 0; i < NCHARS; i++) total += sinew_crowd_palette_vec4(c, model, chars[i].method, 0);
    float *dst = (float *)calloc((size_t)total * 4, sizeof(float));
    sinew_error_info cerr;
    TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NCHARS, dst, total, NULL, &cerr));
    TU_CHECK(cerr.index == UINT32_MAX);
    sinew_crowd_stats st;
    TU_CHECK_OK(sinew_crowd_update(c, chars, NCHARS, &st, &cerr));
    TU_CHECK_OK(sinew_skinner_wait(sk));

    sinew_mat4 far_root = sinew_mat4_identity();
    far_root.m[3][0] = 1e39;
    chars[2].root = &far_root;
    chars[2].method = SINEW_METHOD_LBS;
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, dst, total, NULL, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == 2);
    memset(&cerr, 0, sizeof cerr);
    TU_CHECK_RESULT(sinew_crowd_prepare(c, chars, NCHARS, &st, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == 2);
    chars[2].root = NULL;
    sinew_transform huge[NJ];
    memcpy(huge, rest, sizeof huge);
    for (uint32_t j = 0; j < NJ; j++) huge[j].scale = sinew_v3(1e20, 1e20, 1e20); /* children: 1e40 */
    chars[4].pose = huge;
    chars[4].method = SINEW_METHOD_DQS_SCALE;
    memset(&cerr, 0, sizeof cerr);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, dst, total, NULL, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == 4);
    chars[4].method = SINEW_METHOD_LBS;
    memset(&cerr, 0, sizeof cerr);
    TU_CHECK_RESULT(sinew_crowd_update(c, chars, NCHARS, &st, &cerr), SINEW_ERROR_NON_FINITE);
    TU_CHECK(cerr.index == 4);
    chars[4].pose = NULL;
    /* the abandoned frames left the crowd and the skinner usable */
    TU_CHECK_OK(sinew_crowd_update(c, chars, NCHARS, &st, &cerr));
    TU_CHECK(st.characters == NCHARS);
    TU_CHECK_OK(sinew_skinner_wait(sk));

    /* ---- re-entry from a pose callback ---- */
    reentry re;
    memset(&re, 0, sizeof re);
    re.crowd = c;
    re.target = 3;
    re.chars = chars;
    re.model = &mdl;
    re.dst = dst;
    for (uint32_t i = 0; i < NCHARS; i++) {
        chars[i].sample = reentrant_pose;
        chars[i].sample_user = &re;
    }
    memset(&cerr, 0, sizeof cerr);
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NCHARS, dst, total, NULL, &cerr), SINEW_ERROR_IN_USE);
    TU_CHECK(cerr.index == 3);
    TU_CHECK(re.called == 1);
    TU_CHECK_RESULT(re.inner_build, SINEW_ERROR_IN_USE);
    TU_CHECK_RESULT(re.inner_prepare, SINEW_ERROR_IN_USE);
    TU_CHECK_RESULT(re.inner_update, SINEW_ERROR_IN_USE);
    TU_CHECK_RESULT(re.inner_add, SINEW_ERROR_IN_USE);
    memset(&re.inner_build, 0, 4 * sizeof(sinew_result));
    re.called = 0;
    memset(&cerr, 0, sizeof cerr);
    TU_CHECK_RESULT(sinew_crowd_update(c, chars, NCHARS, &st, &cerr), SINEW_ERROR_IN_USE);
    TU_CHECK(cerr.index == 3);
    TU_CHECK(re.called == 1);
    TU_CHECK_RESULT(re.inner_build, SINEW_ERROR_IN_USE);
    TU_CHECK_RESULT(re.inner_add, SINEW_ERROR_IN_USE);
    /* no longer busy: everything works again */
    re.target = UINT32_MAX;
    TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NCHARS, dst, total, NULL, &cerr));
    TU_CHECK_OK(sinew_crowd_update(c, chars, NCHARS, &st, &cerr));
    sinew_model_id m3;
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl, &m3, NULL));
    TU_CHECK(m3.value == 1);

    sinew_crowd_destroy(c);
    sinew_skinner_destroy(sk); /* no crowd left */
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    free(dst);
    sinew_skeleton_destroy(skel);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_crowd_misuse");
}
