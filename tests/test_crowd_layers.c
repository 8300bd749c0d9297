/* Crowd characters with blended layers (sinew_crowd_character.layers), CPU
 * only (sinew_crowd_build_palettes): palettes bit-identical to a serial loop of
 * sinew_palette_build_f32 with the same layers (test_blend compares that path
 * with the float64 reference) for 1 and 3 threads, a pose still winning over
 * layers, characters without layers unchanged, and the errors naming the
 * character at fault. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <sinew/palette_job.h>
#include <stdlib.h>
#include <string.h>

enum { NJ = 24, NC = 90, NCLIP = 3 };

static sinew_clip *make_clip(tu_rng *r, const sinew_transform *rest)
{
    sinew_channel_desc ch[NJ];
    sinew_quat_key rk[NJ][6];
    sinew_vec3_key tk[NJ][6];
    memset(ch, 0, sizeof ch);
    for (uint32_t j = 0; j < NJ; j++) {
        for (uint32_t k = 0; k < 6; k++) {
            rk[j][k].time = tk[j][k].time = k;
            rk[j][k].value = sinew_quat_mul(rest[j].rotation, tu_quat_axis_angle_random(r, tu_uniform(r, 0, 0.6)));
            tk[j][k].value = sinew_v3_add(rest[j].translation, tu_random_vec3(r, -0.2, 0.2));
        }
        ch[j].joint = j;
        ch[j].rotation_count = ch[j].translation_count = 6;
        ch[j].rotations = rk[j];
        ch[j].translations = tk[j];
    }
    sinew_clip_desc d = { 0 };
    d.joint_count = NJ;
    d.ticks_per_second = 5;
    d.channel_count = NJ;
    d.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    return c;
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xC0DE1A7Eull);
    sinew_transform rest[NJ];
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, rest, &skel));
    sinew_clip *clips[NCLIP];
    for (int c = 0; c < NCLIP; c++) clips[c] = make_clip(&r, rest);
    float mask[NJ];
    for (uint32_t j = 0; j < NJ; j++) mask[j] = j < NJ / 2 ? 0.f : 1.f;
    sinew_crowd_character *chars = (sinew_crowd_character *)calloc(NC, sizeof *chars);
    sinew_palette_character *pc = (sinew_palette_character *)calloc(NC, sizeof *pc);
    sinew_anim_layer *layers = (sinew_anim_layer *)calloc((size_t)NC * 4, sizeof *layers);
    for (uint32_t i = 0; i < NC; i++) {
        sinew_anim_layer *l = layers + (size_t)i * 4;
        uint32_t n = i % 5 == 0 ? 0 : 1 + tu_range(&r, 4); /* every 5th: the plain clip */
        for (uint32_t k = 0; k < n; k++) {
            l[k].clip = clips[tu_range(&r, NCLIP)];
            l[k].time = tu_uniform(&r, 0, 2);
            l[k].weight = tu_uniform(&r, 0.1, 1);
            if (k == 1) { l[k].fade_duration = 0.5; l[k].fade_time = tu_uniform(&r, 0, 0.5); }
            if (k == 2) { l[k].flags = SINEW_LAYER_ADDITIVE; l[k].joint_weights = mask; }
            if (k == 3) l[k].flags = SINEW_LAYER_SYNC;
        }
        chars[i].model.value = 0;
        chars[i].method = (sinew_method)(i % 3 == 0 ? SINEW_METHOD_LBS : i % 3 == 1 ? SINEW_METHOD_DQS : SINEW_METHOD_DQS_SCALE);
        chars[i].clip = clips[0];
        chars[i].time = 0.7;
        chars[i].layers = n ? l : NULL;
        chars[i].layer_count = n;
        if (i == 7) chars[i].pose = rest; /* a pose wins over layers */
        pc[i].skeleton = skel;
        pc[i].method = chars[i].method;
        pc[i].clip = chars[i].clip;
        pc[i].time = chars[i].time;
        pc[i].layers = chars[i].layers;
        pc[i].layer_count = n;
        pc[i].pose = chars[i].pose;
    }
    uint64_t total = 0;
    TU_CHECK_OK(sinew_palette_job_layout(pc, NC, &total));
    float *want = (float *)malloc(total * 16), *got = (float *)malloc(total * 16);
    size_t sb = sinew_palette_scratch_bytes(NJ);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    for (uint32_t i = 0; i < NC; i++)
        TU_CHECK_OK(sinew_palette_build_f32(&pc[i], scratch, sb, want + (size_t)pc[i].palette_offset * 4));
    for (uint32_t threads = 1; threads <= 3; threads += 2) {
        sinew_crowd_desc d = { 0 };
        d.max_characters = NC;
        d.max_joints = NJ;
        d.threads = threads;
        sinew_crowd *c = NULL;
        TU_CHECK_OK(sinew_crowd_create(&d, &c, NULL));
        if (!c) break;
        sinew_crowd_model_desc md = { 0 };
        md.skeleton = skel;
        sinew_model_id id;
        TU_CHECK_OK(sinew_crowd_add_model(c, &md, &id, NULL));
        uint32_t *offs = (uint32_t *)calloc(NC, sizeof *offs);
        sinew_error_info err;
        memset(got, 0xAB, total * 16);
        TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NC, got, (uint32_t)total, offs, &err));
        for (uint32_t i = 0; i < NC; i++) TU_CHECK(offs[i] == pc[i].palette_offset);
        for (uint32_t i = 0; i < NC; i++) {
            size_t len = (size_t)NJ * sinew_palette_gpu_stride(pc[i].method, 0) * 16u;
            TU_CHECK_MSG(memcmp(want + (size_t)pc[i].palette_offset * 4, got + (size_t)pc[i].palette_offset * 4, len) == 0,
                         "%u threads: character %u (%u layers, method %d) differs from the serial build", threads, i,
                         pc[i].layer_count, (int)pc[i].method);
        }
        /* errors name the character */
        sinew_anim_layer keep = layers[4 * 13];
        layers[4 * 13].weight = -1;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NC, got, (uint32_t)total, NULL, &err),
                        SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(err.index == 13);
        layers[4 * 13] = keep;
        keep = layers[4 * 21];
        layers[4 * 21].time = NAN;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NC, got, (uint32_t)total, NULL, &err),
                        SINEW_ERROR_NON_FINITE);
        TU_CHECK(err.index == 21);
        layers[4 * 21] = keep;
        chars[33].layer_count = SINEW_MAX_ANIM_LAYERS + 1;
        TU_CHECK_RESULT(sinew_crowd_build_palettes(c, chars, NC, got, (uint32_t)total, NULL, &err),
                        SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(err.index == 33);
        TU_CHECK(strstr(err.message, "layers") != NULL);
        chars[33].layer_count = pc[33].layer_count;
        TU_CHECK_OK(sinew_crowd_build_palettes(c, chars, NC, got, (uint32_t)total, NULL, &err));
        free(offs);
        sinew_crowd_destroy(c);
    }
    free(scratch); free(want); free(got); free(chars); free(pc); free(layers);
    for (int c = 0; c < NCLIP; c++) sinew_clip_destroy(clips[c]);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_crowd_layers");
}
