/* hello_crowd: the shortest complete Sinew program. One procedural tube skinned
 * to a three-joint chain, a crowd of 100 of them posed by pose arrays, a few
 * frames skinned on the GPU (lavapipe without one), a few vertices read back.
 * Every call is checked; the exit status is 0 only if all of them succeeded and
 * the validation layer (SINEW_VALIDATION=1) reported nothing. */
#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/debug.h>

#include <math.h>
#include <stdio.h>

#define RINGS 16
#define SECTORS 12
#define NV (RINGS * SECTORS)
#define JOINTS 3
#define CHARACTERS 100
#define FRAMES 4

/* Calls that take &err say what and which item was at fault. */
#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        err.message[0] = 0;                                                                              \
        sinew_result r_ = (call);                                                                        \
        if (r_ != SINEW_OK) {                                                                            \
            fprintf(stderr, "hello_crowd: %s: %s %s\n", #call, sinew_result_string(r_), err.message);    \
            status = 1;                                                                                  \
            goto done;                                                                                   \
        }                                                                                                \
    } while (0)

int main(void)
{
    int status = 0;
    sinew_error_info err;
    sinew_skeleton *skel = NULL;
    sinew_rest_mesh *tube = NULL;
    sinew_gpu *gpu = NULL;
    sinew_skinner *sk = NULL;
    sinew_crowd *crowd = NULL;

    /* Skeleton: a chain along x, joints at x = 0, 0.5 and 1. */
    static const int32_t parents[JOINTS] = { -1, 0, 1 };
    sinew_transform rest[JOINTS];
    for (int j = 0; j < JOINTS; j++)
        rest[j] = (sinew_transform){ sinew_v3(j ? 0.5 : 0, 0, 0), sinew_quat_identity(), sinew_v3(1, 1, 1) };
    sinew_skeleton_desc sd = { .joint_count = JOINTS, .parents = parents, .rest_local = rest };
    CHECK(sinew_skeleton_create(&sd, &skel));

    /* Mesh: a tube of radius 0.1 along the chain, each vertex weighted to its
     * two nearest joints by a hat function of x (weights sum to 1). */
    static float pos[NV * 3], nrm[NV * 3], weights[NV * JOINTS];
    static uint32_t joints[NV * JOINTS];
    for (int v = 0; v < NV; v++) {
        double x = (double)(v / SECTORS) / (RINGS - 1), a = 6.283185307179586 * (v % SECTORS) / SECTORS;
        pos[3 * v] = (float)x;
        pos[3 * v + 1] = (float)(0.1 * cos(a));
        pos[3 * v + 2] = (float)(0.1 * sin(a));
        nrm[3 * v] = 0;
        nrm[3 * v + 1] = (float)cos(a);
        nrm[3 * v + 2] = (float)sin(a);
        for (int j = 0; j < JOINTS; j++) {
            joints[JOINTS * v + j] = (uint32_t)j;
            weights[JOINTS * v + j] = (float)fmax(0.0, 1.0 - fabs(x - 0.5 * j) / 0.5);
        }
    }
    sinew_rest_mesh_desc rd = { .skeleton = skel, .vertex_count = NV, .positions = pos, .normals = nrm,
                                .influences = { .per_vertex = JOINTS, .joints = joints, .weights = weights } };
    CHECK(sinew_rest_mesh_create(&rd, &tube, &err));

    /* GPU (SINEW_DEVICE picks one; validation with SINEW_VALIDATION=1) and a
     * skinner sized for the crowd: capacities are fixed at creation. */
    sinew_gpu_desc gd = { 0 };
    CHECK(sinew_gpu_create(&gd, &gpu, &err));
    printf("hello_crowd: Sinew %s on %s, validation %s\n", sinew_version_string(), sinew_gpu_info(gpu)->name,
           sinew_debug_validation_enabled(gpu) ? "on" : "off");
    sinew_skinner_desc kd = { .max_rest_vertices = NV, .max_output_vertices = NV * CHARACTERS,
                              .max_palette_vec4 = SINEW_PALETTE_GPU_STRIDE_MAX * JOINTS * CHARACTERS, .max_instances = CHARACTERS };
    CHECK(sinew_skinner_create(gpu, &kd, &sk, &err));
    sinew_mesh_id mesh;
    CHECK(sinew_skinner_add_rest_mesh(sk, tube, &mesh, &err));

    /* Crowd: one model (the skeleton and its mesh), palettes built on all cores. */
    sinew_crowd_desc cd = { .skinner = sk, .max_characters = CHARACTERS, .max_joints = JOINTS };
    CHECK(sinew_crowd_create(&cd, &crowd, &err));
    /* The rest mesh gives the vertex count and the culling data (boxes per character). */
    const sinew_rest_mesh *rest_meshes[1] = { tube };
    sinew_crowd_model_desc model = { .skeleton = skel, .mesh_count = 1, .meshes = &mesh, .rest_meshes = rest_meshes };
    sinew_model_id model_id;
    CHECK(sinew_crowd_add_model(crowd, &model, &model_id, &err));

    /* Characters on a 10 x 10 grid, each bending its chain by its own angle. */
    static sinew_transform poses[CHARACTERS][JOINTS];
    static sinew_mat4 roots[CHARACTERS];
    static sinew_crowd_character chars[CHARACTERS];
    for (int c = 0; c < CHARACTERS; c++) {
        roots[c] = sinew_mat4_from_rigid(sinew_quat_identity(), sinew_v3(2.0 * (c % 10), 0, 0.5 * (c / 10)));
        chars[c] = (sinew_crowd_character){ .model = model_id, .method = SINEW_METHOD_DQS,
                                            .root = &roots[c], .pose = poses[c] };
    }
    for (int f = 0; f < FRAMES; f++) {
        for (int c = 0; c < CHARACTERS; c++)
            for (int j = 0; j < JOINTS; j++) {
                double angle = j ? 0.02 * c + 0.25 * f : 0.0; /* radians about z */
                poses[c][j] = rest[j];
                poses[c][j].rotation = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), angle);
            }
        sinew_crowd_stats stats;
        CHECK(sinew_crowd_update(crowd, chars, CHARACTERS, &stats, &err));
        printf("frame %d: %u characters, %u vertices, palettes %.3f ms\n", f, stats.characters,
               stats.output_vertices, stats.cpu_ms);
    }

    /* Read back the tip ring's first vertex of a few characters (waits for the GPU). */
    for (uint32_t c = 0; c < CHARACTERS; c += 33) {
        uint32_t first, count;
        float p[3], n[3];
        CHECK(sinew_crowd_character_output(crowd, c, 0, &first, &count));
        CHECK(sinew_skinner_read_output(sk, first + count - SECTORS, 1, p, n));
        float lo[3], hi[3];
        CHECK(sinew_crowd_character_bounds(crowd, c, lo, hi));
        printf("character %2u: tip (%7.4f %7.4f %7.4f) normal (%6.3f %6.3f %6.3f), box x %.2f..%.2f\n", c, p[0], p[1],
               p[2], n[0], n[1], n[2], lo[0], hi[0]);
    }
    if (sinew_debug_validation_message_count(gpu) != 0) {
        fprintf(stderr, "hello_crowd: %u validation messages\n", sinew_debug_validation_message_count(gpu));
        status = 1;
    }

done:
    sinew_crowd_destroy(crowd); /* the crowd before its skinner */
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    sinew_rest_mesh_destroy(tube);
    sinew_skeleton_destroy(skel);
    return status;
}
