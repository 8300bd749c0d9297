/* Consumer of an installed Sinew: skins a small two-joint tube on the default
 * Vulkan device (lavapipe in CI) and checks every vertex against the float64
 * reference, using only the installed headers and libraries. Exit 0 = pass. */
#ifdef SINEW_CONSUMER_GPU_HEADER_FIRST
/* tests/consumer_gpu: the gpu layer's header alone first; its <vulkan/vulkan.h>
 * comes through sinew::gpu's usage requirements (Vulkan::Headers). */
#include <sinew/gpu.h>
#endif
#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/reference.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define RINGS 8
#define SECTORS 8
#define NV (RINGS * SECTORS)

static int fail(const char *what, sinew_result r)
{
    fprintf(stderr, "consumer: %s: %s\n", what, sinew_result_string(r));
    return 1;
}

int main(void)
{
    if (sinew_version() != SINEW_VERSION) {
        fprintf(stderr, "consumer: library %s, headers %s\n", sinew_version_string(), SINEW_VERSION_STRING);
        return 1;
    }
    /* Two joints along x: the root at 0, the child at 0.5. */
    const int32_t parents[2] = { -1, 0 };
    sinew_transform rest[2];
    for (int j = 0; j < 2; j++) {
        memset(&rest[j], 0, sizeof rest[j]);
        rest[j].rotation.w = 1;
        rest[j].scale = sinew_v3(1, 1, 1);
    }
    rest[1].translation.x = 0.5;
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = 2;
    sd.parents = parents;
    sd.rest_local = rest;
    sinew_skeleton *skel = NULL;
    sinew_result r = sinew_skeleton_create(&sd, &skel);
    if (r != SINEW_OK) return fail("skeleton", r);

    /* A tube of radius 0.1 along x in [0, 1], weights blending around x = 0.5. */
    float pos[NV * 3], nrm[NV * 3], w[NV * 2];
    uint32_t joints[NV * 2];
    for (int i = 0; i < RINGS; i++)
        for (int k = 0; k < SECTORS; k++) {
            int v = i * SECTORS + k;
            double x = (double)i / (RINGS - 1), a = 2.0 * 3.14159265358979 * k / SECTORS;
            pos[3 * v] = (float)x;
            pos[3 * v + 1] = (float)(0.1 * cos(a));
            pos[3 * v + 2] = (float)(0.1 * sin(a));
            nrm[3 * v] = 0;
            nrm[3 * v + 1] = (float)cos(a);
            nrm[3 * v + 2] = (float)sin(a);
            double t = fmin(1.0, fmax(0.0, (x - 0.25) / 0.5));
            joints[2 * v] = 0;
            joints[2 * v + 1] = 1;
            w[2 * v] = (float)(1.0 - t);
            w[2 * v + 1] = (float)t;
        }
    sinew_rest_mesh_desc rd = { 0 };
    rd.skeleton = skel;
    rd.vertex_count = NV;
    rd.positions = pos;
    rd.normals = nrm;
    rd.influences = (sinew_influences){ NULL, 2, joints, w };
    sinew_rest_mesh *rm = NULL;
    r = sinew_rest_mesh_create(&rd, &rm, NULL);
    if (r != SINEW_OK) return fail("rest mesh", r);
    const sinew_vertex *verts = sinew_rest_mesh_vertices(rm); /* 4 influences: no vertex has more */

    /* Pose: the child bent 60 degrees about z. */
    sinew_transform pose[2] = { rest[0], rest[1] };
    pose[1].rotation = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 3.14159265358979 / 3.0);
    sinew_mat4 scratch[8];
    sinew_palette_joint pal[2];
    if (sinew_palette_scratch_count(2) > 8) return fail("scratch", SINEW_ERROR_LIMIT_EXCEEDED);
    r = sinew_palette_build(skel, SINEW_METHOD_DQS, pose, NULL, scratch, pal);
    if (r != SINEW_OK) return fail("palette", r);
    double ref[NV * 3];
    r = sinew_reference_skin(NV, verts, NULL, pal, 2, SINEW_METHOD_DQS, 0, ref, NULL);
    if (r != SINEW_OK) return fail("reference", r);

    sinew_gpu_desc gd = { 0 };
    sinew_gpu *gpu = NULL;
    r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r != SINEW_OK) return fail("gpu", r);
    printf("consumer: Sinew %s on %s\n", sinew_version_string(), sinew_gpu_info(gpu)->name);
    sinew_skinner_desc kd = { 0 };
    kd.max_rest_vertices = NV;
    kd.max_output_vertices = NV;
    kd.max_palette_vec4 = 64;
    kd.max_instances = 1;
    sinew_skinner *sk = NULL;
    r = sinew_skinner_create(gpu, &kd, &sk, NULL);
    sinew_mesh_id mesh = { 0 };
    if (r == SINEW_OK) r = sinew_skinner_add_rest_mesh(sk, rm, &mesh, NULL);
    sinew_frame fr;
    if (r == SINEW_OK) r = sinew_skinner_begin_frame(sk, &fr);
    if (r == SINEW_OK) {
        sinew_palette_pack(SINEW_METHOD_DQS, 0, pal, 2, fr.palette);
        sinew_instance in = { mesh, SINEW_METHOD_DQS, 0, 0, 0 };
        r = sinew_skinner_set_instances(sk, &in, 1, NULL);
    }
    if (r == SINEW_OK) r = sinew_skinner_submit(sk);
    float out[NV * 3];
    if (r == SINEW_OK) r = sinew_skinner_read_output(sk, 0, NV, out, NULL);
    double worst = 0;
    for (int i = 0; r == SINEW_OK && i < NV * 3; i++) {
        double e = fabs(out[i] - ref[i]);
        if (!(e <= worst)) worst = e; /* NaN-safe */
    }
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    sinew_rest_mesh_destroy(rm);
    sinew_skeleton_destroy(skel);
    if (r != SINEW_OK) return fail("skinning", r);
    /* Tube of size ~1: float32 skinning lands within 1e-5 of the reference. */
    printf("consumer: %d vertices, largest |GPU - reference| = %.3g (tolerance 1e-5)\n", NV, worst);
    return worst <= 1e-5 ? 0 : 1;
}
