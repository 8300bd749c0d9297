/* Root motion applied by the crowd (sinew_crowd_character.apply_root_motion):
 * clip characters (loop and clamp) and blended characters (two blend layers
 * with root motion, one of them SYNC, plus an additive layer; weights random,
 * sometimes below SINEW_BLEND_REST_THRESHOLD), each with its own random time
 * steps, many of them across one or several loop wraps, over NFRAMES frames,
 * skinned by a skinner with keep_previous (output and previous positions
 * poisoned first). Every frame, for every character:
 *  - its world transform (sinew_crowd_character_world) against a float64
 *    recomputation from the extracted tracks: A(t) = W(D)^c W(t - c D) composed
 *    as float64 matrices from sinew_root_motion_sample (not _delta), the step
 *    A(t_last)^-1 A(t), and for blended characters the weighted yaw and
 *    translation of the layers' steps (crowd.h rule), within TOL_WORLD;
 *  - the skinned output against sinew_reference_skin of the float64 palette
 *    (sinew_palette_build) of the float64 in-place pose
 *    (sinew_reference_blend_pose, the clip as one layer with its root motion)
 *    at that world transform, within TOL x (1 + |world translation|);
 *  - the previous positions against the last frame's reference (current on a
 *    reset: the first frame, a teleport by reset_previous + root).
 * A hidden character keeps moving (world checked while hidden); a host
 * sinew_crowd_set_character_world moves one on (previous positions not reset).
 * A second crowd (1 thread, host jobs, random range splits) gives bit-identical
 * output, previous positions and worlds. Errors: apply_root_motion on a crowd
 * without desc.root_motion, a root motion of another clip or with layers,
 * the world of a character without root motion (NOT_FOUND); swapped layer
 * positions move nothing that frame. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NJ 7
#define NV 200
#define NC 8
#define NCLIP 3
#define KEYS 7
#define NFRAMES 40
#define TELEPORT_FRAME 17
#define SET_FRAME 25
#define HIDE_FROM 10
#define HIDE_TO 14
/* float64 world vs float64 recomputation: rounding only (40 frames of a few
 * dozen operations each, translations up to ~20) */
#define TOL_WORLD 1e-9
/* float32 production path (palette, GPU skinning) vs float64: a few float32
 * ulps of the largest coordinate (the world translation) per operation */
#define TOL 2e-5

static sinew_clip *walk_clip(tu_rng *r, const sinew_transform *rest, double tps)
{
    sinew_channel_desc ch[NJ];
    sinew_vec3_key tk[NJ][KEYS];
    sinew_quat_key rk[NJ][KEYS];
    memset(ch, 0, sizeof ch);
    const double vx = tu_uniform(r, -0.3, 0.3), vz = tu_uniform(r, 0.1, 0.4), w = tu_uniform(r, -0.15, 0.15);
    for (uint32_t j = 0; j < NJ; j++) {
        ch[j].joint = j;
        for (uint32_t k = 0; k < KEYS; k++) {
            tk[j][k].time = rk[j][k].time = k;
            if (j == 0) {
                tk[j][k].value = sinew_v3(rest[0].translation.x + vx * k, rest[0].translation.y + 0.05 * sin(1.7 * k),
                                          rest[0].translation.z + vz * k);
                rk[j][k].value = sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), w * k),
                                                sinew_quat_mul(tu_quat_axis_angle_random(r, 0.1), rest[0].rotation));
            } else {
                tk[j][k].value = rest[j].translation;
                rk[j][k].value = sinew_quat_mul(rest[j].rotation, tu_quat_axis_angle_random(r, tu_uniform(r, 0, 0.6)));
            }
        }
        ch[j].translation_count = ch[j].rotation_count = KEYS;
        ch[j].translations = tk[j];
        ch[j].rotations = rk[j];
    }
    sinew_clip_desc d = { 0 };
    d.joint_count = NJ;
    d.ticks_per_second = tps;
    d.channel_count = NJ;
    d.channels = ch;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    return c;
}

static sinew_clip *clips[NCLIP];
static sinew_root_motion *rms[NCLIP];
static double durs[NCLIP];

static sinew_mat4 mat_of(const sinew_transform *t) { return sinew_mat4_from_transform(t); }

/* A(t) of clip k by explicit composition of whole cycles (float64 matrices) */
static sinew_mat4 absolute(uint32_t k, double t, sinew_wrap wrap)
{
    const double D = durs[k];
    sinew_transform w;
    if (wrap == SINEW_WRAP_CLAMP) {
        TU_CHECK_OK(sinew_root_motion_sample(rms[k], t < 0 ? 0 : t > D ? D : t, SINEW_WRAP_CLAMP, &w));
        return mat_of(&w);
    }
    int c = (int)floor(t / D);
    sinew_mat4 A = sinew_mat4_identity();
    TU_CHECK_OK(sinew_root_motion_sample(rms[k], D, SINEW_WRAP_CLAMP, &w));
    sinew_mat4 E = mat_of(&w);
    for (int i = 0; i < c; i++) A = sinew_mat4_mul(&A, &E);
    double f = t - c * D;
    TU_CHECK_OK(sinew_root_motion_sample(rms[k], f < 0 ? 0 : f > D ? D : f, SINEW_WRAP_CLAMP, &w));
    sinew_mat4 F = mat_of(&w);
    return sinew_mat4_mul(&A, &F);
}

static sinew_mat4 step(uint32_t k, double t0, double t1, sinew_wrap wrap)
{
    sinew_mat4 a0 = absolute(k, t0, wrap), a1 = absolute(k, t1, wrap), inv;
    TU_CHECK_OK(sinew_mat4_inverse(&a0, &inv));
    return sinew_mat4_mul(&inv, &a1);
}

typedef struct person {
    int layered;
    sinew_method method;
    sinew_wrap wrap;
    uint32_t clip;                   /* clip characters */
    double time;                     /* clip: seconds; layered: layer 0 seconds */
    double phase;                    /* layered: layer 1 (SYNC) phase */
    double w0, w1;                   /* layer weights */
    sinew_anim_layer layers[3];
    sinew_mat4 world;                /* the float64 recomputation */
    double last_t[2];                /* sample times of the last frame (seconds) */
} person;

static void set_layers(person *p)
{
    memset(p->layers, 0, sizeof p->layers);
    p->layers[0].clip = clips[0];
    p->layers[0].time = p->time;
    p->layers[0].weight = p->w0;
    p->layers[0].root_motion = rms[0];
    p->layers[1].clip = clips[1];
    p->layers[1].time = p->phase;
    p->layers[1].weight = p->w1;
    p->layers[1].flags = SINEW_LAYER_SYNC;
    p->layers[1].root_motion = rms[1];
    p->layers[2].clip = clips[2];
    p->layers[2].time = 0.3 * p->time;
    p->layers[2].weight = 0.5;
    p->layers[2].flags = SINEW_LAYER_ADDITIVE | SINEW_LAYER_REFERENCE_REST;
}

static double max_abs_diff(const sinew_mat4 *a, const sinew_mat4 *b)
{
    double e = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) e = fmax(e, fabs(a->m[i][j] - b->m[i][j]));
    return e;
}

/* yaw of a rotation about +Y (m[col][row]) */
static double yaw_of(const sinew_mat4 *m) { return atan2(m->m[2][0], m->m[0][0]); }

int main(void)
{
    tu_rng r = tu_rng_seeded(0x2007e11ull);
    sinew_transform rest[NJ];
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, rest, &skel));
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(NULL, &gpu, NULL));
    if (!gpu || !skel) return tu_finish("test_gpu_crowd_root_motion");
    TU_CHECK(sinew_skeleton_parent(skel, 0) < 0);
    static const uint32_t rm_flags[NCLIP] = { 0, SINEW_ROOT_MOTION_TRANSLATION,
                                              SINEW_ROOT_MOTION_TRANSLATION | SINEW_ROOT_MOTION_YAW | SINEW_ROOT_MOTION_VERTICAL };
    for (uint32_t k = 0; k < NCLIP; k++) {
        clips[k] = walk_clip(&r, rest, tu_uniform(&r, 3, 6));
        durs[k] = sinew_clip_duration(clips[k]);
        sinew_root_motion_desc rd = { 0 };
        rd.clip = clips[k];
        rd.skeleton = skel;
        rd.flags = rm_flags[k];
        rd.samples_per_second = 30;
        TU_CHECK_OK(sinew_root_motion_create(&rd, &rms[k]));
        TU_CHECK(sinew_root_motion_clip(rms[k]) == clips[k]);
    }
    sinew_rest_mesh *mesh = tu_random_rest_mesh(&r, skel, NV, 2);
    tu_gpu_crowd A = { 0 }, B = { 0 };
    const sinew_crowd_desc opts = { .root_motion = true };
    tu_gpu_crowd_create(gpu, skel, mesh, NC, 2, &opts, &A);
    tu_gpu_crowd_create(gpu, skel, mesh, NC, 1, &opts, &B);
    if (!A.crowd || !B.crowd) return tu_finish("test_gpu_crowd_root_motion");

    /* errors */
    {
        sinew_crowd_desc cd = { 0 };
        cd.max_characters = 1;
        cd.max_joints = NJ;
        cd.threads = 1;
        sinew_crowd *plain = NULL;
        TU_CHECK_OK(sinew_crowd_create(&cd, &plain, NULL));
        sinew_model_id pm;
        sinew_crowd_model_desc md = { 0 };
        md.skeleton = skel;
        TU_CHECK_OK(sinew_crowd_add_model(plain, &md, &pm, NULL));
        sinew_crowd_character bad = { 0 };
        bad.model = pm;
        bad.clip = clips[0];
        bad.root_motion = rms[0];
        bad.apply_root_motion = true;
        float pal[NJ * TU_PAL_MAX_STRIDE * 4];
        sinew_error_info e;
        TU_CHECK(sinew_crowd_build_palettes(plain, &bad, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, &e) ==
                     SINEW_ERROR_INVALID_ARGUMENT && e.item == SINEW_ITEM_CHARACTER && e.index == 0);
        bad.apply_root_motion = false;
        TU_CHECK_OK(sinew_crowd_build_palettes(plain, &bad, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, &e));
        bad.root_motion = rms[1]; /* another clip's */
        TU_CHECK(sinew_crowd_build_palettes(plain, &bad, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, &e) ==
                     SINEW_ERROR_INVALID_ARGUMENT && e.index == 0);
        sinew_anim_layer l = { 0 };
        l.clip = clips[0];
        l.weight = 1;
        bad.root_motion = rms[0];
        bad.layers = &l;
        bad.layer_count = 1;
        TU_CHECK(sinew_crowd_build_palettes(plain, &bad, 1, pal, NJ * TU_PAL_MAX_STRIDE, NULL, &e) ==
                     SINEW_ERROR_INVALID_ARGUMENT && e.index == 0);
        sinew_mat4 w;
        TU_CHECK(sinew_crowd_character_world(plain, 0, &w) == SINEW_ERROR_INVALID_ARGUMENT);
        sinew_crowd_destroy(plain);
    }

    static const sinew_method methods[3] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
    static person people[NC];
    for (uint32_t i = 0; i < NC; i++) {
        person *p = &people[i];
        p->layered = i >= 5;
        p->method = methods[i % 3];
        p->wrap = i == 3 ? SINEW_WRAP_CLAMP : SINEW_WRAP_LOOP;
        p->clip = i % NCLIP;
        p->time = tu_uniform(&r, 0, 2);
        p->phase = tu_uniform(&r, 0, 1);
    }
    static sinew_crowd_character ch[NC];
    static float outA[3 * NC * NV], prevA[3 * NC * NV], outB[3 * NC * NV], prevB[3 * NC * NV];
    static double ref_now[NC][3 * NV], ref_last[NC][3 * NV];
    static sinew_palette_joint pj[NJ];
    static sinew_mat4 scratch[64];
    TU_CHECK(sinew_palette_scratch_count(NJ) <= 64);
    double worst_world = 0, worst_out = 0, worst_prev = 0, travelled = 0;
    uint64_t wraps = 0, checked = 0;
    sinew_mat4 teleport = sinew_mat4_identity();
    teleport.m[3][0] = 3.0, teleport.m[3][2] = -2.0;
    for (int f = 0; f < NFRAMES; f++) {
        /* this frame's times (the first frame: as drawn) */
        for (uint32_t i = 0; f > 0 && i < NC; i++) {
            person *p = &people[i];
            double D = p->layered ? durs[0] : durs[p->clip];
            double dt = tu_range(&r, 5) == 0 ? tu_uniform(&r, 1.0, 2.6) * D : tu_uniform(&r, 0, 0.4) * D;
            if (floor((p->time + dt) / D) != floor(p->time / D)) wraps++;
            p->time += dt;
            p->phase += tu_uniform(&r, 0, 0.6);
            if (p->layered) { /* weights: sometimes both small (the rest pose joins) */
                int small = tu_range(&r, 4) == 0;
                p->w0 = small ? tu_uniform(&r, 0, 0.04) : tu_uniform(&r, 0.2, 1);
                p->w1 = small ? tu_uniform(&r, 0, 0.04) : tu_uniform(&r, 0, 1);
            }
        }
        if (f == 0)
            for (uint32_t i = 0; i < NC; i++) people[i].w0 = 0.7, people[i].w1 = 0.4;
        for (uint32_t i = 0; i < NC; i++) {
            person *p = &people[i];
            memset(&ch[i], 0, sizeof ch[i]);
            ch[i].model = A.model;
            ch[i].method = p->method;
            ch[i].apply_root_motion = true;
            ch[i].time = p->time;
            ch[i].wrap = p->wrap;
            if (p->layered) {
                set_layers(p);
                ch[i].layers = p->layers;
                ch[i].layer_count = 3;
            } else {
                ch[i].clip = clips[p->clip];
                ch[i].root_motion = rms[p->clip];
            }
            ch[i].hidden = i == 2 && f >= HIDE_FROM && f <= HIDE_TO;
            if (f == TELEPORT_FRAME && i == 4) {
                ch[i].reset_previous = true;
                ch[i].root = &teleport;
            }
        }
        if (f == SET_FRAME) { /* the host moves character 1 on (previous positions kept) */
            sinew_mat4 w;
            TU_CHECK_OK(sinew_crowd_character_world(A.crowd, 1, &w));
            w.m[3][1] += 0.25;
            TU_CHECK_OK(sinew_crowd_set_character_world(A.crowd, 1, &w, NULL));
            TU_CHECK_OK(sinew_crowd_set_character_world(B.crowd, 1, &w, NULL));
            people[1].world = w;
        }
        if (f == 0) {
            TU_CHECK_OK(sinew_debug_poison_output(A.sk, 0, NC * NV, 0x7fc00000u));
            TU_CHECK_OK(sinew_debug_poison_output(B.sk, 0, NC * NV, 0x7fc00000u));
        }
        sinew_error_info e;
        TU_CHECK_OK(sinew_crowd_update(A.crowd, ch, NC, NULL, &e));
        TU_CHECK_OK(sinew_crowd_prepare_begin(B.crowd, ch, NC, NULL, &e));
        for (uint32_t first = 0; first < NC;) {
            uint32_t n = 1 + tu_range(&r, NC - first);
            TU_CHECK_OK(sinew_crowd_prepare_run_range(B.crowd, first, n, &e));
            first += n;
        }
        TU_CHECK_OK(sinew_crowd_prepare_end(B.crowd, NULL, &e));
        TU_CHECK_OK(sinew_skinner_submit(B.sk));
        TU_CHECK_OK(sinew_skinner_read_output(A.sk, 0, NC * NV, outA, NULL));
        TU_CHECK_OK(sinew_skinner_read_previous(A.sk, 0, NC * NV, prevA));
        TU_CHECK_OK(sinew_skinner_read_output(B.sk, 0, NC * NV, outB, NULL));
        TU_CHECK_OK(sinew_skinner_read_previous(B.sk, 0, NC * NV, prevB));
        TU_CHECK_MSG(memcmp(outA, outB, sizeof outA) == 0 && memcmp(prevA, prevB, sizeof prevA) == 0,
                     "frame %d: 2 threads (prepare) and 1 thread (jobs, random ranges) differ", f);

        for (uint32_t i = 0; i < NC; i++) {
            person *p = &people[i];
            const int reset = f == 0 || (f == TELEPORT_FRAME && i == 4);
            /* the float64 recomputation of the world transform */
            double t[2] = { p->time, p->phase * durs[1] };
            if (reset) {
                p->world = ch[i].root ? *ch[i].root : sinew_mat4_identity();
            } else if (!p->layered) {
                sinew_mat4 s = step(p->clip, p->last_t[0], t[0], p->wrap);
                p->world = sinew_mat4_mul(&p->world, &s);
            } else {
                double w[2] = { p->w0, p->w1 }, W = w[0] + w[1]; /* the additive layer is not counted */
                double den = W > SINEW_BLEND_REST_THRESHOLD ? W : SINEW_BLEND_REST_THRESHOLD, yaw = 0;
                sinew_vec3 tr = { 0, 0, 0 };
                for (uint32_t k = 0; k < 2; k++) {
                    if (!(w[k] > 0)) continue;
                    sinew_mat4 s = step(k, p->last_t[k], t[k], SINEW_WRAP_LOOP);
                    yaw += w[k] * yaw_of(&s);
                    tr = sinew_v3_add(tr, sinew_v3_scale(sinew_v3(s.m[3][0], s.m[3][1], s.m[3][2]), w[k]));
                }
                sinew_transform d = { sinew_v3_scale(tr, 1 / den),
                                      sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), yaw / den), { 1, 1, 1 } };
                sinew_mat4 s = mat_of(&d);
                p->world = sinew_mat4_mul(&p->world, &s);
            }
            p->last_t[0] = t[0], p->last_t[1] = t[1];
            sinew_mat4 got;
            TU_CHECK_OK(sinew_crowd_character_world(A.crowd, i, &got));
            double scale = 1 + fabs(p->world.m[3][0]) + fabs(p->world.m[3][1]) + fabs(p->world.m[3][2]);
            double ew = max_abs_diff(&got, &p->world) / scale;
            TU_CHECK_MSG(ew <= TOL_WORLD, "frame %d character %u (%s): world off by %g (relative)", f, i,
                         p->layered ? "layers" : "clip", ew);
            worst_world = fmax(worst_world, ew);
            sinew_mat4 gotB;
            TU_CHECK_OK(sinew_crowd_character_world(B.crowd, i, &gotB));
            TU_CHECK(memcmp(&got, &gotB, sizeof got) == 0);
            travelled = fmax(travelled, scale - 1);
            if (ch[i].hidden) continue;
            /* the reference skinning of the in-place pose at that world */
            sinew_anim_layer one = { 0 };
            const sinew_anim_layer *ls = p->layers;
            uint32_t nl = 3;
            if (!p->layered) {
                one.clip = clips[p->clip];
                one.time = p->time;
                one.weight = 1;
                one.wrap = p->wrap;
                one.root_motion = rms[p->clip];
                ls = &one, nl = 1;
            }
            sinew_transform pose[NJ], sc[2 * NJ];
            TU_CHECK_OK(sinew_reference_blend_pose(skel, ls, nl, sc, pose));
            TU_CHECK_OK(sinew_palette_build(skel, p->method, pose, &p->world, scratch, pj));
            TU_CHECK_OK(sinew_reference_skin(NV, sinew_rest_mesh_vertices(mesh), NULL, pj, NJ, p->method, 0, ref_now[i], NULL));
            uint32_t first = 0, n = 0;
            TU_CHECK_OK(sinew_crowd_character_output(A.crowd, i, 0, &first, &n));
            double eo = 0, ep = 0;
            for (uint32_t v = 0; v < 3 * NV; v++) {
                double o = outA[3 * (size_t)first + v], pv = prevA[3 * (size_t)first + v];
                double want_prev = reset ? ref_now[i][v] : ref_last[i][v];
                double d = fabs(o - ref_now[i][v]), dp = fabs(pv - want_prev);
                eo = isnan(d) ? INFINITY : fmax(eo, d);
                ep = isnan(dp) ? INFINITY : fmax(ep, dp);
            }
            eo /= scale, ep /= scale;
            TU_CHECK_MSG(eo <= TOL, "frame %d character %u (%s, %s): output off by %g (relative)", f, i,
                         p->layered ? "layers" : "clip", sinew_method_name(p->method), eo);
            TU_CHECK_MSG(ep <= TOL, "frame %d character %u: previous off by %g (relative)", f, i, ep);
            worst_out = fmax(worst_out, eo);
            worst_prev = fmax(worst_prev, ep);
            memcpy(ref_last[i], ref_now[i], sizeof ref_now[i]);
            checked++;
        }
    }
    /* characters moved far enough for the check to mean something, across loops */
    TU_CHECK(travelled > 2.0 && wraps >= 10);
    fprintf(stderr, "%llu character-frames, %llu loop wraps, up to %.2f units travelled; worst world %.3g (tol %g), "
            "output %.3g, previous %.3g (tol %g, relative to 1 + |world translation|)\n",
            (unsigned long long)checked, (unsigned long long)wraps, travelled, worst_world, TOL_WORLD, worst_out,
            worst_prev, TOL);
    /* layers are known by position: swapped (each position now holds another
     * root motion) they move nothing this frame */
    {
        sinew_mat4 before, after;
        TU_CHECK_OK(sinew_crowd_character_world(A.crowd, 5, &before));
        person *p = &people[5];
        p->time += 0.3, p->phase += 0.2;
        set_layers(p);
        sinew_anim_layer t = p->layers[0];
        p->layers[0] = p->layers[1], p->layers[1] = t;
        for (uint32_t i = 0; i < NC; i++) ch[i].reset_previous = false, ch[i].hidden = false;
        TU_CHECK_OK(sinew_crowd_update(A.crowd, ch, NC, NULL, NULL));
        TU_CHECK_OK(sinew_crowd_character_world(A.crowd, 5, &after));
        TU_CHECK(memcmp(&before, &after, sizeof before) == 0);
    }
    /* a character that no longer applies root motion has no world */
    ch[0].apply_root_motion = false;
    TU_CHECK_OK(sinew_crowd_update(A.crowd, ch, NC, NULL, NULL));
    sinew_mat4 w;
    TU_CHECK(sinew_crowd_character_world(A.crowd, 0, &w) == SINEW_ERROR_NOT_FOUND);
    TU_CHECK(sinew_crowd_set_character_world(A.crowd, 0, &w, NULL) == SINEW_ERROR_NOT_FOUND);
    TU_CHECK(sinew_crowd_character_world(A.crowd, NC, &w) == SINEW_ERROR_INVALID_ARGUMENT);
    tu_gpu_crowd_destroy(&A);
    tu_gpu_crowd_destroy(&B);
    sinew_rest_mesh_destroy(mesh);
    for (uint32_t k = 0; k < NCLIP; k++) {
        sinew_root_motion_destroy(rms[k]);
        sinew_clip_destroy(clips[k]);
    }
    sinew_gpu_destroy(gpu);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_gpu_crowd_root_motion");
}
