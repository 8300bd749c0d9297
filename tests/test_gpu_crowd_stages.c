/* Per-stage CPU times of a crowd (sinew_crowd_desc.stage_timing, the fields
 * sample_ms .. busy_ms of sinew_crowd_stats) and the split GPU time
 * (sinew_skinner_gpu_stage_times). Two crowds, each on its own skinner, run the
 * same frames: T with stage_timing, U without. A mixed crowd of 40 characters
 * (a clip, two blended layers, a pose callback, the rest pose; LBS / DQS /
 * DQS-scale; update_every 2..3 with lod_interpolate; some hidden), bounds data
 * from the rest mesh, 8 frames, the last two through the host-job API.
 *
 * Checked, no timing threshold: T's output and previous positions are
 * bit-identical to U's every frame (timing changes nothing; U's path is
 * checked against the float64 reference in test_gpu_crowd / _lod / _bounds);
 * U's stage fields are exactly 0; T's are finite and >= 0, each stage is > 0
 * summed over the frames (they are filled), the stages' sum is <= busy_ms and
 * busy_ms <= P x cpu_ms (P = the threads that may run ranges at once: every
 * range runs between prepare_begin returning and prepare_end; both from one
 * monotonic clock), up to 1e-9 relative rounding; the GPU split: morph and skin
 * >= 0, summing to sinew_skinner_gpu_time's value (1e-9 relative). */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NJ 12
#define NV 300
#define NCH 40
#define NFRAMES 8

static sinew_result pose_cb(void *user, const sinew_skeleton *skel, uint32_t character, double t, sinew_transform *out)
{
    (void)user;
    memcpy(out, sinew_skeleton_rest_pose(skel), sizeof(sinew_transform) * NJ);
    for (uint32_t j = 1; j < NJ; j++)
        out[j].rotation = sinew_quat_mul(out[j].rotation,
                                         sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 0.4 * sin(2.0 * t + 0.3 * character + j)));
    return SINEW_OK;
}

static sinew_clip *make_clip(tu_rng *r, const sinew_skeleton *skel, double amp)
{
    static sinew_channel_desc ch[NJ];
    static sinew_quat_key keys[NJ][4];
    const sinew_transform *rest = sinew_skeleton_rest_pose(skel);
    for (uint32_t j = 0; j < NJ; j++) {
        for (int k = 0; k < 4; k++) {
            keys[j][k].time = 0.5 * k;
            keys[j][k].value = sinew_quat_mul(rest[j].rotation, tu_quat_axis_angle_random(r, amp));
        }
        memset(&ch[j], 0, sizeof ch[j]);
        ch[j].joint = j;
        ch[j].rotation_count = 4;
        ch[j].rotations = keys[j];
    }
    sinew_clip_desc cd = { 0 };
    cd.joint_count = NJ;
    cd.channel_count = NJ;
    cd.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&cd, &c));
    return c;
}

typedef struct side {
    sinew_skinner *sk;
    sinew_crowd *crowd;
    sinew_model_id model;
    sinew_mesh_id mesh;
} side;

static void make_side(sinew_gpu *gpu, const sinew_skeleton *skel, const sinew_rest_mesh *rm, bool timing, side *s)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_meshes = 1;
    sd.max_instances = NCH;
    sd.max_output_vertices = NCH * NV;
    sd.max_palette_vec4 = NCH * NJ * SINEW_PALETTE_GPU_STRIDE_MAX;
    sd.keep_previous = true;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &s->sk, NULL));
    sinew_crowd_desc cd = { 0 };
    cd.skinner = s->sk;
    cd.max_characters = NCH;
    cd.max_joints = NJ;
    cd.threads = 2;
    cd.range_threads = 2;
    cd.lod_interpolate = true;
    cd.stage_timing = timing;
    TU_CHECK_OK(sinew_crowd_create(&cd, &s->crowd, NULL));
    if (!s->sk || !s->crowd) return;
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(s->sk, rm, &s->mesh, NULL));
    sinew_crowd_model_desc md = { 0 };
    md.skeleton = skel;
    md.mesh_count = 1;
    md.meshes = &s->mesh;
    md.rest_meshes = &rm;
    TU_CHECK_OK(sinew_crowd_add_model(s->crowd, &md, &s->model, NULL));
}

/* One frame of a side: sinew_crowd_update, or the host-job API in two ranges. */
static void run_frame(side *s, const sinew_crowd_character *ch, int jobs, sinew_crowd_stats *st)
{
    sinew_error_info e;
    if (!jobs) {
        TU_CHECK_OK(sinew_crowd_update(s->crowd, ch, NCH, st, &e));
    } else {
        TU_CHECK_OK(sinew_crowd_prepare_begin(s->crowd, ch, NCH, NULL, &e));
        TU_CHECK_OK(sinew_crowd_prepare_run_range(s->crowd, 17, NCH - 17, &e));
        TU_CHECK_OK(sinew_crowd_prepare_run_range(s->crowd, 0, 17, &e));
        TU_CHECK_OK(sinew_crowd_prepare_end(s->crowd, st, &e));
        TU_CHECK_OK(sinew_skinner_submit(s->sk));
    }
    TU_CHECK_OK(sinew_skinner_wait(s->sk));
}

static int fields_ok(const sinew_crowd_stats *st, double *f)
{
    f[0] = st->sample_ms, f[1] = st->fk_ms, f[2] = st->palette_ms, f[3] = st->bounds_ms, f[4] = st->pack_ms,
    f[5] = st->busy_ms;
    for (int k = 0; k < 6; k++)
        if (!(f[k] >= 0) || !isfinite(f[k])) return 0;
    return 1;
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x57a6e5ull);
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, NULL, &skel));
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(NULL, &gpu, NULL));
    if (!gpu || !skel) return tu_finish("test_gpu_crowd_stages");
    sinew_rest_mesh *rm = tu_random_rest_mesh(&r, skel, NV, 3);
    sinew_clip *clip_a = make_clip(&r, skel, 0.7), *clip_b = make_clip(&r, skel, 0.5);
    side T = { 0 }, U = { 0 };
    make_side(gpu, skel, rm, true, &T);
    make_side(gpu, skel, rm, false, &U);
    if (!T.crowd || !U.crowd || !clip_a || !clip_b) return tu_finish("test_gpu_crowd_stages");
    uint32_t P = sinew_thread_pool_size(sinew_crowd_pool(T.crowd));
    if (P < 2) P = 2; /* range_threads */

    static const sinew_method methods[3] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
    static sinew_crowd_character ch[NCH];
    static sinew_anim_layer layers[NCH][2];
    static sinew_mat4 roots[NCH];
    static float outT[3 * NCH * NV], prevT[3 * NCH * NV], outU[3 * NCH * NV], prevU[3 * NCH * NV];
    for (uint32_t i = 0; i < NCH; i++) {
        sinew_transform rt = { tu_random_vec3(&r, -5, 5), tu_random_quat(&r), sinew_v3(1, 1, 1) };
        roots[i] = sinew_mat4_from_transform(&rt);
    }
    TU_CHECK_OK(sinew_debug_poison_output(T.sk, 0, NCH * NV, 0x7fc00000u));
    TU_CHECK_OK(sinew_debug_poison_output(U.sk, 0, NCH * NV, 0x7fc00000u));
    double sums[6] = { 0 };
    uint32_t bad_bits = 0, bad_fields = 0, bad_bounds = 0, bad_zero = 0, bad_gpu = 0;
    for (int f = 0; f < NFRAMES; f++) {
        double t = 0.1 + f / 30.0;
        for (uint32_t i = 0; i < NCH; i++) {
            sinew_crowd_character *c = &ch[i];
            memset(c, 0, sizeof *c);
            c->model = T.model; /* the same id in both crowds */
            c->method = methods[i % 3];
            c->root = &roots[i];
            c->time = t + 0.05 * i;
            switch (i % 4) {
            case 0: c->clip = clip_a; break;
            case 1:
                memset(layers[i], 0, sizeof layers[i]);
                layers[i][0].clip = clip_a;
                layers[i][0].time = c->time;
                layers[i][0].weight = 0.6;
                layers[i][1].clip = clip_b;
                layers[i][1].time = 1.3 * c->time;
                layers[i][1].weight = 0.4;
                c->layers = layers[i];
                c->layer_count = 2;
                break;
            case 2: c->sample = pose_cb; break;
            default: break; /* rest pose */
            }
            c->update_every = i % 5 == 1 ? 2 : i % 5 == 2 ? 3 : 1;
            c->lod_interpolate = c->update_every > 1;
            c->hidden = i % 11 == 7 && f % 3 == 1;
        }
        int jobs = f >= NFRAMES - 2;
        sinew_crowd_stats sT, sU;
        run_frame(&T, ch, jobs, &sT);
        run_frame(&U, ch, jobs, &sU);
        TU_CHECK_OK(sinew_skinner_read_output(T.sk, 0, NCH * NV, outT, NULL));
        TU_CHECK_OK(sinew_skinner_read_output(U.sk, 0, NCH * NV, outU, NULL));
        TU_CHECK_OK(sinew_skinner_read_previous(T.sk, 0, NCH * NV, prevT));
        TU_CHECK_OK(sinew_skinner_read_previous(U.sk, 0, NCH * NV, prevU));
        bad_bits += memcmp(outT, outU, sizeof outT) != 0 || memcmp(prevT, prevU, sizeof prevT) != 0;
        double fT[6] = { 0 }, fU[6] = { 0 };
        bad_fields += !fields_ok(&sT, fT) || !fields_ok(&sU, fU);
        for (int k = 0; k < 6; k++) {
            sums[k] += fT[k];
            bad_zero += fU[k] != 0.0;
        }
        double stages = fT[0] + fT[1] + fT[2] + fT[3] + fT[4];
        int ok = stages <= fT[5] * (1 + 1e-9) + 1e-9 && fT[5] <= P * sT.cpu_ms * (1 + 1e-9) + 1e-9;
        if (!ok && bad_bounds++ < 3)
            TU_CHECK_MSG(0, "frame %d: stages %.6f ms, busy %.6f ms, cpu_ms %.6f x %u threads", f, stages, fT[5],
                         sT.cpu_ms, P);
        double all = 0, morph = -1, skin = -1;
        TU_CHECK_OK(sinew_skinner_gpu_time(T.sk, &all));
        TU_CHECK_OK(sinew_skinner_gpu_stage_times(T.sk, &morph, &skin));
        bad_gpu += !(morph >= 0 && skin >= 0 && fabs(morph + skin - all) <= 1e-9 * (all > 1 ? all : 1));
        fprintf(stderr, "frame %d%s: cpu %.3f ms; sample %.3f fk %.3f palette %.3f bounds %.3f pack %.3f busy %.3f ms "
                        "(%u threads); gpu %.3f = morph %.3f + skin %.3f ms; %u interpolated, %u skipped\n",
                f, jobs ? " (jobs)" : "", sT.cpu_ms, fT[0], fT[1], fT[2], fT[3], fT[4], fT[5], P, all, morph, skin,
                sT.interpolated, sT.skipped);
    }
    TU_CHECK_MSG(bad_bits == 0, "%u frames where the timed crowd's output differs from the untimed one's", bad_bits);
    TU_CHECK_MSG(bad_fields == 0, "%u frames with a negative or non-finite stage field", bad_fields);
    TU_CHECK_MSG(bad_zero == 0, "%u stage fields non-zero without stage_timing", bad_zero);
    TU_CHECK(bad_bounds == 0);
    TU_CHECK_MSG(bad_gpu == 0, "%u frames whose morph + skin GPU times are not the whole", bad_gpu);
    for (int k = 0; k < 6; k++) TU_CHECK_MSG(sums[k] > 0, "stage field %d never filled", k);

    /* bad arguments */
    double a = 0, b = 0;
    TU_CHECK_RESULT(sinew_skinner_gpu_stage_times(NULL, &a, &b), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_skinner_gpu_stage_times(T.sk, NULL, &b), SINEW_ERROR_INVALID_ARGUMENT);

    sinew_crowd_destroy(T.crowd);
    sinew_crowd_destroy(U.crowd);
    sinew_skinner_destroy(T.sk);
    sinew_skinner_destroy(U.sk);
    sinew_clip_destroy(clip_a);
    sinew_clip_destroy(clip_b);
    sinew_rest_mesh_destroy(rm);
    sinew_skeleton_destroy(skel);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_crowd_stages");
}
