/* The crowd's error detail (sinew_error_info): for every error class the
 * result, the item kind, the index and a substring of the message are checked.
 *  - create: NULL desc, max_joints beyond SINEW_MAX_JOINTS;
 *  - add_model: an unknown skinner mesh, a wrong vertex count (the message names
 *    the declared and the skinner's counts), a skeleton beyond max_joints, max_models;
 *  - prepare: an unknown model, bulge correction on a mesh without bulge
 *    distances, a CoR method on a mesh without centers (the skinner refuses it;
 *    the crowd finds the character), max_characters, max_instances, the
 *    skinner's palette slots and output vertices, prepare called twice without
 *    submit (CALL_ORDER, and prepare works again after the submit), NULL chars,
 *    a pose callback failing for two characters (the lowest wins), a non-finite
 *    root, no skinner; build_palettes' dst capacity;
 *  - success clears err (result OK, item NONE, empty message).
 * Validation clean. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <string.h>

#define NJ 8
#define NV 200
#define MAXC 8

static int has(const sinew_error_info *e, const char *s) { return strstr(e->message, s) != NULL; }

/* result, item, index and a message substring at once */
#define CHECK_ERR(e, res, kind, idx, sub)                                                                         \
    do {                                                                                                            \
        TU_CHECK_MSG((e).result == (res) && (e).item == (kind) && (e).index == (idx) && has(&(e), sub),              \
                     "got %s / %s / index %u / '%s', expected %s / %s / index %u / '%s'", sinew_result_string((e).result), \
                     sinew_item_kind_name((e).item), (e).index, (e).message, sinew_result_string(res),               \
                     sinew_item_kind_name(kind), (uint32_t)(idx), sub);                                              \
    } while (0)

static sinew_result failing_pose(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                 sinew_transform *out)
{
    (void)user;
    (void)time;
    memcpy(out, sinew_skeleton_rest_pose(skel), sizeof(sinew_transform) * sinew_skeleton_joint_count(skel));
    return character == 3 || character == 6 ? SINEW_ERROR_NOT_FOUND : SINEW_OK;
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xE770Full);
    sinew_error_info e;

    /* ---- create ---- */
    sinew_crowd *c = NULL;
    TU_CHECK_RESULT(sinew_crowd_create(NULL, &c, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "desc");
    sinew_crowd_desc bad_desc = { 0 };
    bad_desc.max_joints = SINEW_MAX_JOINTS + 1;
    TU_CHECK_RESULT(sinew_crowd_create(&bad_desc, &c, &e), SINEW_ERROR_LIMIT_EXCEEDED);
    CHECK_ERR(e, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_ARGUMENT, UINT32_MAX, "max_joints");

    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_crowd_errors");
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 8 * NV;
    sd.max_meshes = 8;
    sd.max_instances = 32;
    sd.max_output_vertices = 4 * NV; /* 4 characters of one mesh */
    sd.max_palette_vec4 = 200;
    sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_crowd_errors");

    sinew_skeleton *skel = NULL, *big = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, NJ, NULL, &skel));
    TU_CHECK_OK(tu_make_random_skeleton(&rng, 20, NULL, &big));
    if (!skel || !big) return tu_finish("test_gpu_crowd_errors");
    static sinew_vertex verts[NV];
    static float bulge[NV], centers[3 * NV];
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, NV, 0.3, verts, bulge));
    for (uint32_t i = 0; i < NV; i++)
        for (int k = 0; k < 3; k++) centers[3 * i + k] = verts[i].position[k];
    sinew_mesh_id full, plain; /* bulge distances and centers; neither */
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = verts;
    md.vertex_count = NV;
    md.joint_count = NJ;
    md.bulge_rest = bulge;
    md.cor_centers = centers;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &full, NULL));
    md.bulge_rest = NULL;
    md.cor_centers = NULL;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &plain, NULL));

    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = MAXC;
    cd.max_models = 3;
    cd.max_joints = 16;
    cd.max_instances = 6;
    cd.threads = 2;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c, &e));
    TU_CHECK(e.result == SINEW_OK && e.item == SINEW_ITEM_NONE && e.message[0] == 0);
    if (!c) return tu_finish("test_gpu_crowd_errors");

    /* ---- add_model ---- */
    sinew_model_id m_full = { 0 }, m_plain = { 0 }, m_two = { 0 }, id;
    uint32_t nv[2] = { NV, NV };
    sinew_mesh_id unknown = { 42 };
    sinew_crowd_model_desc mdl = { skel, 1, &unknown, nv };
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &id, &e), SINEW_ERROR_NOT_FOUND);
    CHECK_ERR(e, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_MODEL, 0, "meshes[0] = 42 is not a mesh of the skinner");
    mdl.meshes = &full;
    nv[0] = NV + 7;
    char want[128];
    snprintf(want, sizeof want, "model 0 mesh 0: vertex_counts[0] = %u but the skinner's mesh %u has %u vertices", NV + 7,
             full.value, NV);
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &id, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MODEL, 0, want);
    nv[0] = NV;
    sinew_crowd_model_desc too_big = { big, 0, NULL, NULL };
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &too_big, &id, &e), SINEW_ERROR_LIMIT_EXCEEDED);
    CHECK_ERR(e, SINEW_ERROR_LIMIT_EXCEEDED, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_joints (16)");
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl, &m_full, &e));
    TU_CHECK(e.result == SINEW_OK && e.message[0] == 0);
    mdl.meshes = &plain;
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl, &m_plain, NULL));
    sinew_mesh_id two[2] = { full, full };
    sinew_crowd_model_desc mdl2 = { skel, 2, two, nv };
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl2, &m_two, NULL));
    TU_CHECK_RESULT(sinew_crowd_add_model(c, &mdl, &id, &e), SINEW_ERROR_CAPACITY);
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_models (3)");

    /* ---- prepare: characters at fault ---- */
    sinew_crowd_character ch[MAXC + 1];
    memset(ch, 0, sizeof ch);
    for (uint32_t i = 0; i <= MAXC; i++) {
        ch[i].model = m_full;
        ch[i].method = SINEW_METHOD_LBS;
    }
    sinew_crowd_stats st;
    TU_CHECK_OK(sinew_crowd_update(c, ch, 4, &st, &e));
    TU_CHECK(e.result == SINEW_OK && e.item == SINEW_ITEM_NONE && e.index == UINT32_MAX);

    ch[2].model.value = 9;
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_NOT_FOUND);
    CHECK_ERR(e, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CHARACTER, 2, "character 2: model 9 is not registered");
    ch[2].model = m_full;

    ch[1].model = m_plain;
    ch[1].flags = SINEW_SKIN_BULGE_CORRECTION;
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, 1, "bulge correction needs bulge rest distances");
    TU_CHECK(e.entry == 0);
    ch[1].flags = 0;

    ch[1].method = SINEW_METHOD_COR; /* the skinner refuses it in set_instances; the crowd names the character */
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CHARACTER, 1, "no centers of rotation");
    ch[1].method = SINEW_METHOD_LBS;
    ch[1].model = m_full;
    TU_CHECK_OK(sinew_crowd_update(c, ch, 4, NULL, &e)); /* nothing left open by the failures */

    sinew_mat4 nan_root = sinew_mat4_identity();
    nan_root.m[3][1] = NAN;
    ch[3].root = &nan_root;
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_NON_FINITE);
    CHECK_ERR(e, SINEW_ERROR_NON_FINITE, SINEW_ITEM_CHARACTER, 3, "root is not finite");
    ch[3].root = NULL;

    for (uint32_t i = 0; i < 4; i++) ch[i].sample = failing_pose; /* characters 3 and 6 fail: 3 is reported */
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_NOT_FOUND);
    CHECK_ERR(e, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CHARACTER, 3, "pose callback");
    for (uint32_t i = 0; i < MAXC; i++) ch[i].sample = failing_pose;
    static float dst[4 * 1000];
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, ch, MAXC, dst, 1000, NULL, &e), SINEW_ERROR_NOT_FOUND);
    CHECK_ERR(e, SINEW_ERROR_NOT_FOUND, SINEW_ITEM_CHARACTER, 3, "character 3: its pose callback (sample) returned");
    for (uint32_t i = 0; i <= MAXC; i++) ch[i].sample = NULL;

    TU_CHECK_RESULT(sinew_crowd_prepare(c, NULL, 4, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "chars is NULL");
    TU_CHECK_RESULT(sinew_crowd_build_palettes(c, ch, 4, dst, 10, NULL, &e), SINEW_ERROR_CAPACITY);
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "dst_capacity_vec4 (10)");

    /* ---- capacities: each names which ---- */
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, MAXC + 1, NULL, &e), SINEW_ERROR_CAPACITY);
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_characters (8)");
    for (uint32_t i = 0; i < 4; i++) ch[i].model = m_two; /* 8 instances > max_instances 6 */
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_CAPACITY);
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "max_instances (6)");
    for (uint32_t i = 0; i < MAXC; i++) ch[i].model = m_full;
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 5, NULL, &e), SINEW_ERROR_CAPACITY); /* 5 x NV > max_output_vertices */
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, 4, "max_output_vertices");
    uint32_t slots = 0, n = 0;
    for (; n < MAXC && slots <= 200; n++) {
        ch[n].method = SINEW_METHOD_DQS_SCALE;
        ch[n].flags = SINEW_SKIN_BULGE_CORRECTION;
        slots += sinew_crowd_palette_vec4(c, m_full, ch[n].method, ch[n].flags);
    }
    TU_CHECK(slots > 200 && n <= 4);
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, n, NULL, &e), SINEW_ERROR_CAPACITY);
    CHECK_ERR(e, SINEW_ERROR_CAPACITY, SINEW_ITEM_CAPACITY, UINT32_MAX, "palette slots (max_palette_vec4 = 200)");
    for (uint32_t i = 0; i < MAXC; i++) {
        ch[i].method = SINEW_METHOD_LBS;
        ch[i].flags = 0;
    }

    /* ---- prepare twice without record/submit/end_frame ---- */
    TU_CHECK_OK(sinew_crowd_prepare(c, ch, 4, NULL, &e));
    TU_CHECK_RESULT(sinew_crowd_prepare(c, ch, 4, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX, "prepare called again");
    TU_CHECK_RESULT(sinew_crowd_update(c, ch, 4, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_CALL_ORDER, UINT32_MAX, "already begun");
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_crowd_update(c, ch, 4, NULL, &e));
    TU_CHECK_OK(sinew_skinner_wait(sk));

    /* ---- a crowd without a skinner ---- */
    sinew_crowd_desc cpu_desc = { 0 };
    cpu_desc.threads = 1;
    sinew_crowd *cpu = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cpu_desc, &cpu, NULL));
    TU_CHECK_RESULT(sinew_crowd_add_model(cpu, &mdl, &id, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_MODEL, 0, "no skinner");
    TU_CHECK_RESULT(sinew_crowd_prepare(cpu, ch, 1, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    CHECK_ERR(e, SINEW_ERROR_INVALID_ARGUMENT, SINEW_ITEM_ARGUMENT, UINT32_MAX, "no skinner");
    sinew_crowd_destroy(cpu);

    sinew_crowd_destroy(c);
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
    sinew_skeleton_destroy(big);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_crowd_errors");
}
