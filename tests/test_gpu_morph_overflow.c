/* Morph weights whose weighted deltas overflow float32 are refused per frame:
 * 400 targets moving one vertex by 9e29 at weight 1e6 (the morphed position
 * would be 3.6e38, beyond float32: inf) is NON_FINITE naming the item and the
 * target with the largest term; the same targets at weight 1e-12 (a sum of
 * 4e20, still beyond the 1e18 bound skinning needs), refused too; 400 targets
 * of delta 1 at weight 1e6 (4e8) are accepted. Before: SINEW_OK and inf
 * positions. */
#include "testutil.h"
#include <string.h>

#define NT 400

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x40F1ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_morph_overflow");
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 64;
    sd.max_meshes = 8;
    sd.max_instances = 4;
    sd.max_output_vertices = 64;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, 4, NULL, &skel));
    if (!sk || !skel) return tu_finish("test_gpu_morph_overflow");
    static sinew_vertex verts[16];
    static float bulge[16];
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, 16, 0.3, verts, bulge));
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = verts; md.vertex_count = 16; md.joint_count = 4;
    sinew_mesh_id mesh;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    sinew_morpher *mo = NULL;
    TU_CHECK_OK(sinew_morpher_create(sk, NULL, &mo));
    if (!mo) return tu_finish("test_gpu_morph_overflow");
    static uint32_t idx[NT];
    static float huge[3 * NT], unit[3 * NT], w[NT];
    static sinew_morph_target th[NT], tu[NT];
    for (uint32_t t = 0; t < NT; t++) {
        idx[t] = 3;
        huge[3 * t] = 9e29f;   /* under SINEW_MORPH_MAX_DELTA: each delta is accepted alone */
        unit[3 * t] = 1.0f;
        th[t] = (sinew_morph_target){ NULL, 1, &idx[t], &huge[3 * t], NULL, NULL };
        tu[t] = (sinew_morph_target){ NULL, 1, &idx[t], &unit[3 * t], NULL, NULL };
    }
    th[123].position_deltas = &unit[0]; /* one smaller target: the largest term is another */
    sinew_morph_error err;
    sinew_morph_set_id set_h, set_u;
    TU_CHECK_OK(sinew_morpher_add_targets(mo, mesh, th, NT, &set_h, &err));
    TU_CHECK_OK(sinew_morpher_add_targets(mo, mesh, tu, NT, &set_u, &err));
    sinew_morph_slot_id slot_h, slot_u;
    TU_CHECK_OK(sinew_morpher_add_slot(mo, set_h, &slot_h));
    TU_CHECK_OK(sinew_morpher_add_slot(mo, set_u, &slot_u));
    sinew_mesh_id out[2];
    for (uint32_t t = 0; t < NT; t++) w[t] = 1e6f;
    sinew_morph_item it = { slot_h, w, NT };
    sinew_result r = sinew_morpher_set_frame(mo, &it, 1, out, &err);
    printf("400 x 9e29 at weight 1e6: %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK(r == SINEW_ERROR_NON_FINITE && err.item == SINEW_ITEM_MORPH_SLOT && err.index == 0 && err.entry == 0 &&
             strstr(err.message, "beyond 1e18"));
    for (uint32_t t = 0; t < NT; t++) w[t] = 1e-12f;
    r = sinew_morpher_set_frame(mo, &it, 1, out, &err);
    printf("400 x 9e29 at weight 1e-12: %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK(r == SINEW_ERROR_NON_FINITE && err.index == 0);
    /* the unit deltas at weight 1e6 as a second item: accepted (4e8) */
    for (uint32_t t = 0; t < NT; t++) w[t] = 1e6f;
    sinew_morph_item ok[1] = { { slot_u, w, NT } };
    r = sinew_morpher_set_frame(mo, ok, 1, out, &err);
    printf("400 x 1 at weight 1e6: %s %s\n", sinew_result_string(r), err.message);
    TU_CHECK_OK(r);
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_morph_overflow");
}
