/* Crowd palettes that fit float32 but whose products with the mesh do not
 * must be refused (NON_FINITE naming the character and the joint), never
 * skinned into inf positions or NaN normals with SINEW_OK:
 *  - LBS with a root scale of 1e20 (normals: cofactors are products of two
 *    palette values, 1e40);
 *  - a pose scale of 1e12 on each joint of a 3-joint chain (global 1e36);
 *  - a root scale of 1e36 with vertices near 1000 (positions 1e39);
 *  - 1e34 with vertices near 1000, DQS with scale (positions 1e37 x 3 terms).
 * A root scale of 1e12 (positions ~1e15, normals fine) is skinned, and its
 * output checked finite. The model's extent comes from its joint bounds. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <string.h>

#define NV 64

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x0F10ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_crowd_overflow");
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_meshes = 2;
    sd.max_instances = 4;
    sd.max_output_vertices = NV;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_crowd_overflow");
    /* a 3-joint chain along y */
    int32_t parents[3] = { -1, 0, 1 };
    sinew_transform rest[3];
    for (int j = 0; j < 3; j++) {
        rest[j].translation = sinew_v3(0, j ? 1 : 0, 0);
        rest[j].rotation = sinew_quat_identity();
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    sinew_skeleton_desc skd = { 0 };
    skd.joint_count = 3; skd.parents = parents; skd.rest_local = rest;
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&skd, &skel));
    if (!skel) return tu_finish("test_gpu_crowd_overflow");
    static sinew_vertex verts[NV];
    static float bulge[NV];
    TU_CHECK_OK(tu_make_random_mesh(&rng, skel, NV, 0.3, verts, bulge));
    for (uint32_t i = 0; i < NV; i++)   /* vertices near 1000 */
        for (int k = 0; k < 3; k++) verts[i].position[k] = 1000.0f + verts[i].position[k];
    sinew_mesh_id mesh;
    sinew_skinner_mesh_desc md = { 0 };
    md.vertices = verts; md.vertex_count = NV; md.joint_count = 3;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    static sinew_joint_bounds jb[3];
    static uint16_t nb[9];
    uint32_t nbn = 0;
    TU_CHECK_OK(sinew_joint_bounds_build(verts, NULL, NV, 3, jb, nb, 9, &nbn));
    sinew_crowd_mesh_bounds mb = { jb, nb, NULL, 0 };
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk; cd.max_characters = 2; cd.max_models = 1; cd.max_joints = 3; cd.max_instances = 2; cd.threads = 1;
    sinew_crowd *c = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_crowd_create(&cd, &c, &e));
    if (!c) return tu_finish("test_gpu_crowd_overflow");
    uint32_t nv = NV;
    sinew_crowd_model_desc mdl = { skel, 1, &mesh, &nv, &mb, NULL, NULL };
    sinew_model_id model;
    TU_CHECK_OK(sinew_crowd_add_model(c, &mdl, &model, &e));

    struct { const char *what; sinew_method method; double root_scale, pose_scale; int refused; uint32_t joint; } cases[] = {
        { "LBS, root scale 1e20", SINEW_METHOD_LBS, 1e20, 1, 1, 0 },
        { "pose scale 1e12 per joint of a chain", SINEW_METHOD_LBS, 1, 1e12, 1, 1 },
        { "root scale 1e36, vertices near 1000", SINEW_METHOD_LBS, 1e36, 1, 1, 0 },
        { "root scale 1e34, vertices near 1000 (DQS+scale)", SINEW_METHOD_DQS_SCALE, 1e34, 1, 1, 0 },
        { "root scale 1e12 (fits)", SINEW_METHOD_LBS, 1e12, 1, 0, 0 },
        { "root scale 1e12 (fits, DQS+scale)", SINEW_METHOD_DQS_SCALE, 1e12, 1, 0, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        sinew_mat4 root = sinew_mat4_identity();
        for (int a = 0; a < 3; a++) root.m[a][a] = cases[k].root_scale;
        sinew_transform pose[3];
        memcpy(pose, rest, sizeof pose);
        for (int j = 0; j < 3; j++) pose[j].scale = sinew_v3(cases[k].pose_scale, cases[k].pose_scale, cases[k].pose_scale);
        sinew_crowd_character ch = { 0 };
        ch.model = model; ch.method = cases[k].method; ch.root = &root; ch.pose = pose;
        sinew_result r = sinew_crowd_update(c, &ch, 1, NULL, &e);
        printf("%-48s -> %s: %s\n", cases[k].what, sinew_result_string(r), e.message);
        if (cases[k].refused) {
            TU_CHECK_MSG(r == SINEW_ERROR_NON_FINITE && e.item == SINEW_ITEM_CHARACTER && e.index == 0 && e.entry == cases[k].joint &&
                         strstr(e.message, "beyond"), "%s: %s (entry %u)", cases[k].what, sinew_result_string(r), e.entry);
        } else {
            TU_CHECK_MSG(r == SINEW_OK, "%s: %s", cases[k].what, e.message);
            if (r == SINEW_OK) {
                static float pos[NV * 3], nrm[NV * 3];
                TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, nrm));
                int finite = 1;
                for (uint32_t i = 0; i < NV * 3; i++) finite &= isfinite(pos[i]) && isfinite(nrm[i]);
                TU_CHECK_MSG(finite, "%s: skinned output not finite", cases[k].what);
            }
        }
    }
    sinew_crowd_destroy(c);
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_crowd_overflow");
}
