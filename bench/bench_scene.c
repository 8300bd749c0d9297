/* sinew-bench --scene crowd: a crowd scene a crowd-rendering user would
 * recognise, timed per stage. Several of assimp's test models (missing ones
 * are skipped with a note; each scaled by its root matrix to 1.8 units tall,
 * skinned with LBS, which keeps a uniform root scale exact), each character playing two blended layers
 * (sinew_anim_layer, two layer positions used in turn) with a 0.5 s crossfade to
 * the model's next clip every 3-4 s (a model with one clip crossfades to itself
 * at another phase), an orbiting camera, frustum culling with the crowd's
 * conservative boxes of the previous frame (hidden = true), distance LOD by
 * band: update_every 1 / 2 / 4 (lod_interpolate; the skinner keeps previous
 * positions) with bone LOD next to it (joint_lod 0 / the deepest joint level /
 * the deepest third of the levels; bands printed).
 * Root motion (sinew_root_motion per clip, translation + yaw):
 *  - models whose clips have it are moved by the crowd (sinew_crowd_desc.root_motion,
 *    apply_root_motion: the crowd keeps each one's world W); positions wrap
 *    over a square plaza by sinew_crowd_set_character_world (W moved across at
 *    once) and, the next frame, reset_previous with root = the wrapped W moved
 *    on by that frame's step (fresh previous positions, no step lost). Every
 *    frame each such W is checked against W_last x delta recomputed here in
 *    float64 from sinew_root_motion_delta (the crowd's blend rule): "root motion
 *    check" line, exit 1 beyond SC_RM_TOL.
 *  - the test models' clips move a joint below a static root joint, so their
 *    extracted root motion is zero: their characters keep a scripted walk at
 *    1 unit/s (root matrix moved here, wrap with reset_previous; said in the
 *    output). So that the crowd's path runs, one more model, the first test
 *    model again (Testwuson.X+walk), plays its clips resampled with the root
 *    joint carried along a circle (generated_walk), whose root motion the
 *    crowd applies.
 * One frame:
 *   logic   : layers, transitions, scripted walk, expected W, wrap (this file, one thread)
 *   cull    : LOD and frustum test of every character's box (one thread)
 *   prepare : sinew_crowd_stats.cpu_ms (sample + blend + FK + palette + box + pack,
 *             all threads, wall time), split by the crowd's stage timing
 *             (sinew_crowd_desc.stage_timing) into sample/blend, FK, palette,
 *             bounds, upload (the checked copy of the palettes into the mapped
 *             ring the GPU reads): each stage's thread-summed time scaled to
 *             its share of the wall time (cpu_ms x stage / busy_ms)
 *   gpu     : sinew_skinner_gpu_time (morph pass + skinning dispatch), split by
 *             sinew_skinner_gpu_stage_times into morph and skin
 *   render  : sinew_renderer_gpu_time: the visible characters drawn offscreen at
 *             1280x720 from the skinner's output (ground + one indexed draw per
 *             character; sinew_renderer_render, submitted after the skinning)
 *   frame   : wall time of the whole frame (logic .. GPU done, render included)
 * --no-render: no render stage (sinew_crowd_update, frame ends with the skinning).
 * Table on stdout, scene.csv / scene.json / scene.png (gnuplot) in --out. */
#define _POSIX_C_SOURCE 200809L
#include "bench_scene.h"
#include "bench_util.h"
#include "demo_scene.h"
#include <sinew/debug.h>
#include <sinew/linalg.h>
#include <sinew/render.h>
#ifdef DEMO_WITH_ASSET
#include <sinew/asset.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DEMO_WITH_ASSET
int sinew_bench_scene(const sinew_bench_scene_options *o)
{
    (void)o;
    fprintf(stderr, "sinew-bench --scene crowd: built without the asset layer (sinew::asset), no models\n");
    return 1;
}
#else

#define SC_MAX_MODELS 5 /* 4 test models + one with a generated root-motion clip */
#define SC_MAX_CLIPS 4
#define SC_MAX_ROWS 16
#define SC_DT (1.0 / 30.0)
#define SC_FADE 0.5
#define SC_HEIGHT 1.8 /* every model is scaled (root matrix, LBS) to this height */
#define SC_WALK 1.0   /* world units / s for models whose clips have no root motion */
#define SC_GEN_SPEED 0.8 /* generated walk: model heights / s along the ground plane */
#define SC_GEN_TURN 0.3  /* generated walk: yaw rate, rad / s (the walkers go round in circles) */
#define SC_GEN_RATE 30.0 /* generated clip: keys / s (the source clip resampled) */
#define SC_NEAR 10.0  /* distance LOD bands, in character sizes: < SC_NEAR every frame, all joints; */
#define SC_MID 25.0   /* < SC_MID every 2nd frame, deepest joint level cut; beyond every 4th, deepest third cut */
#define SC_RM_TOL 1e-9   /* crowd-moved W against W_prev x delta (float64), x (1 + |translation|) */
#define SC_RENDER_W 1280u /* render stage target */
#define SC_RENDER_H 720u

static const char *SC_MODELS[] = {
    "/usr/share/assimp/models/X/Testwuson.X",
    "/usr/share/assimp/models/X/BCN_Epileptic.X",
    "/usr/share/assimp/models/FBX/animation_with_skeleton.fbx",
    "/usr/share/assimp/models/FBX/huesitos.fbx",
};

typedef struct sc_model {
    demo_model m;
    uint32_t joints, nclips;
    const sinew_clip *clips[SC_MAX_CLIPS];
    sinew_root_motion *rm[SC_MAX_CLIPS]; /* NULL: none could be extracted */
    sinew_model_id id;
    double scale;              /* root scale that makes it SC_HEIGHT tall */
    int scripted;              /* its clips carry no root motion: walks at SC_WALK instead */
    int generated;             /* its clips are generated (a source clip + a root walk): own[] */
    sinew_clip *own[SC_MAX_CLIPS];
    uint32_t depth;            /* deepest joint's depth (roots 0) */
    uint32_t lod_mid, lod_far; /* joint_lod of the middle and far distance bands (0 = every joint) */
    uint32_t kept_mid, kept_far;
    sinew_vec3 fwd;            /* generated: the model axis its walk starts along */
} sc_model;

typedef struct sc_char {
    uint32_t model;
    sinew_mat4 place;          /* plaza placement x upright rotation */
    sinew_mat4 motion;         /* accumulated root motion (model space) */
    sinew_mat4 root;           /* place x motion */
    uint32_t cur, prev;        /* clip indices */
    double cur_start, prev_start, cur_off, prev_off, switch_at, period;
    uint32_t transitions;
    int was_hidden;
    double skin_pos[3];        /* root position when last skinned (its box's) */
    double heading[2];         /* scripted walk direction (x, z) */
    /* crowd-moved (apply_root_motion): the crowd's W after the last frame, the
     * W this frame must reach (W_last x the layers' blended delta, float64), and
     * what each layer position held at the last prepare (as the crowd knows it) */
    uint32_t slot;             /* layer position of the current clip (0 / 1, in turn) */
    sinew_mat4 world, expect;
    const sinew_root_motion *last_rm[2];
    double last_time[2];
    int wrap_pending;          /* wrapped after the last frame: reset_previous, root = expect */
} sc_char;

typedef struct sc_row {
    uint32_t chars;
    int capped;
    double visible, interpolated, skinned_vertices;
    double logic_ms, cull_ms, prepare_ms, gpu_ms, frame_ms, fps, gbps, roofline;
    /* stages: CPU ones as shares of prepare_ms's wall time, their thread sums,
     * GPU ones; render < 0: not measured */
    double sample_ms, fk_ms, palette_ms, bounds_ms, upload_ms;
    double sum_sample_ms, sum_fk_ms, sum_palette_ms, sum_bounds_ms, sum_upload_ms, busy_ms;
    double morph_ms, skin_ms, render_ms;
    double meters_per_s;       /* mean root-motion speed of the characters (model units / s) */
    uint32_t crowd_moved;      /* characters moved by the crowd (apply_root_motion) */
    double rm_checked, rm_max_err, rm_speed; /* character-frames checked, worst error, their mean speed */
    uint32_t rm_wraps;
    const char *error;
} sc_row;

static double frac(double x) { return x - floor(x); }

static sinew_vec3 mat_pos(const sinew_mat4 *m) { return sinew_v3(m->m[3][0], m->m[3][1], m->m[3][2]); }

/* The layers' root motion from t0 to t1 (layer times), blended by effective weight. */
static void blend_motion(const sc_model *sm, const sc_char *c, const sinew_anim_layer *l, double t0, double t1,
                         sinew_transform *out)
{
    sinew_vec3 tr = sinew_v3(0, 0, 0);
    sinew_quat q = { 0, 0, 0, 0 };
    double wsum = 0;
    uint32_t clips[2] = { c->prev, c->cur };
    double starts[2] = { c->prev_start, c->cur_start }, offs[2] = { c->prev_off, c->cur_off };
    for (int k = 0; k < 2; k++) {
        const sinew_root_motion *rm = sm->rm[clips[k]];
        double w = sinew_anim_layer_weight(&l[k]);
        sinew_transform d;
        if (!rm || w <= 0) continue;
        if (sinew_root_motion_delta(rm, t0 - starts[k] + offs[k], t1 - starts[k] + offs[k], SINEW_WRAP_LOOP, &d) != SINEW_OK)
            continue;
        if (q.x * d.rotation.x + q.y * d.rotation.y + q.z * d.rotation.z + q.w * d.rotation.w < 0) w = -w;
        tr = sinew_v3_add(tr, sinew_v3_scale(d.translation, fabs(w)));
        q.x += w * d.rotation.x; q.y += w * d.rotation.y; q.z += w * d.rotation.z; q.w += w * d.rotation.w;
        wsum += fabs(w);
    }
    out->scale = sinew_v3(1, 1, 1);
    if (wsum <= 0) {
        out->translation = sinew_v3(0, 0, 0);
        out->rotation = sinew_quat_identity();
        return;
    }
    out->translation = sinew_v3_scale(tr, 1.0 / wsum);
    out->rotation = sinew_quat_normalize(q);
}

/* Rotation vector (axis x angle, shorter arc) of a unit quaternion, and back. */
static sinew_vec3 rotvec(sinew_quat q)
{
    if (q.w < 0) { q.x = -q.x; q.y = -q.y; q.z = -q.z; q.w = -q.w; }
    double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    if (s <= 0) return sinew_v3(0, 0, 0);
    double a = 2 * atan2(s, q.w) / s;
    return sinew_v3(q.x * a, q.y * a, q.z * a);
}

static sinew_quat from_rotvec(sinew_vec3 v)
{
    double a = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (a <= 0) return sinew_quat_identity();
    double k = sin(0.5 * a) / a;
    sinew_quat q = { v.x * k, v.y * k, v.z * k, cos(0.5 * a) };
    return q;
}

/* The W a crowd-moved character must reach this frame, recomputed here in
 * float64 from the root-motion tracks alone (docs/crowds.md, "Root motion
 * applied by the crowd"): W_last x delta, delta = the blend layers' deltas
 * (sinew_root_motion_delta from each position's last time, when it held the
 * same root motion) weighted by weight x fade, translation and rotation vector,
 * over max(sum of weights, SINEW_BLEND_REST_THRESHOLD). fresh: W = root. Then
 * records what each position holds, as the crowd does. */
static int expected_world(sc_char *c, const sinew_anim_layer *l, uint32_t nl, int fresh, const sinew_mat4 *root)
{
    sinew_vec3 t = sinew_v3(0, 0, 0), v = sinew_v3(0, 0, 0);
    double wsum = 0;
    for (uint32_t k = 0; k < nl; k++) {
        const sinew_root_motion *rm = l[k].clip ? l[k].root_motion : NULL;
        double w = sinew_anim_layer_weight(&l[k]);
        if (w > 0) wsum += w;
        if (w > 0 && rm && !fresh && c->last_rm[k] == rm) {
            sinew_transform d;
            if (sinew_root_motion_delta(rm, c->last_time[k], l[k].time, l[k].wrap, &d) != SINEW_OK) return 0;
            t = sinew_v3_add(t, sinew_v3_scale(d.translation, w));
            v = sinew_v3_add(v, sinew_v3_scale(rotvec(d.rotation), w));
        }
        c->last_rm[k] = rm;
        if (rm) c->last_time[k] = l[k].time;
    }
    double inv = 1.0 / (wsum > SINEW_BLEND_REST_THRESHOLD ? wsum : SINEW_BLEND_REST_THRESHOLD);
    sinew_transform d = { sinew_v3_scale(t, inv), from_rotvec(sinew_v3_scale(v, inv)), sinew_v3(1, 1, 1) };
    sinew_mat4 dm = sinew_mat4_from_transform(&d);
    c->expect = sinew_mat4_mul(fresh ? root : &c->world, &dm);
    return 1;
}

/* A clip WITH root motion for a model whose clips have none: the source clip
 * resampled at SC_GEN_RATE keys / s (every joint it animates), its root joint
 * (0) carried along a circle on the ground plane: L0(t) = G(t) L0_src(t), G(t)
 * a yaw of turn t (rad / s) about up and a translation along the arc walked at
 * speed (model units / s) from the model axis fwd, so the root motion
 * extracted from it is G (sinew_root_motion, translation + yaw) and its
 * in-place pose is the source clip's. */
static sinew_clip *generated_walk(const sinew_clip *src, const sinew_skeleton *skel, sinew_vec3 up, sinew_vec3 fwd,
                                  double speed, double turn, const char *name)
{
    uint32_t nj = sinew_skeleton_joint_count(skel);
    double dur = sinew_clip_duration(src);
    if (!(dur > 0)) dur = 1;
    uint32_t nk = (uint32_t)ceil(dur * SC_GEN_RATE) + 1, nch = 0;
    sinew_transform *pose = malloc((size_t)nk * nj * sizeof *pose);
    sinew_vec3_key *tk = malloc((size_t)nk * nj * sizeof *tk), *sk = malloc((size_t)nk * nj * sizeof *sk);
    sinew_quat_key *rk = malloc((size_t)nk * nj * sizeof *rk);
    sinew_channel_desc *ch = calloc(nj, sizeof *ch);
    sinew_clip *out = NULL;
    int ok = pose && tk && sk && rk && ch;
    for (uint32_t k = 0; ok && k < nk; k++)
        ok = sinew_clip_sample(src, skel, dur * k / (nk - 1), SINEW_WRAP_CLAMP, pose + (size_t)k * nj) == SINEW_OK;
    sinew_vec3 side = sinew_v3_cross(up, fwd); /* R(a) fwd = cos a fwd + sin a (up x fwd) */
    for (uint32_t j = 0; ok && j < nj; j++) {
        if (j != 0 && !sinew_clip_animates(src, j)) continue;
        sinew_channel_desc *c = &ch[nch++];
        c->joint = j;
        c->translation_count = c->rotation_count = c->scale_count = nk;
        c->translations = tk + (size_t)j * nk;
        c->rotations = rk + (size_t)j * nk;
        c->scales = sk + (size_t)j * nk;
        for (uint32_t k = 0; k < nk; k++) {
            double t = dur * k / (nk - 1);
            sinew_transform p = pose[(size_t)k * nj + j];
            if (j == 0) {
                double a = turn * t;
                sinew_quat g = sinew_quat_from_axis_angle(up, a);
                /* the integral of speed R(turn s) fwd ds from 0 to t */
                double cf = fabs(turn) > 1e-9 ? sin(a) / turn : t, cs = fabs(turn) > 1e-9 ? (1 - cos(a)) / turn : 0;
                sinew_vec3 arc = sinew_v3_add(sinew_v3_scale(fwd, speed * cf), sinew_v3_scale(side, speed * cs));
                p.rotation = sinew_quat_mul(g, p.rotation);
                p.translation = sinew_v3_add(sinew_quat_rotate(g, p.translation), arc);
            }
            tk[(size_t)j * nk + k].time = t; tk[(size_t)j * nk + k].value = p.translation;
            rk[(size_t)j * nk + k].time = t; rk[(size_t)j * nk + k].value = p.rotation;
            sk[(size_t)j * nk + k].time = t; sk[(size_t)j * nk + k].value = p.scale;
        }
    }
    if (ok) {
        sinew_clip_desc d = { 0 };
        d.name = name;
        d.joint_count = nj;
        d.duration = dur;
        d.ticks_per_second = 1; /* key times in seconds */
        d.channel_count = nch;
        d.channels = ch;
        if (sinew_clip_create(&d, &out) != SINEW_OK) out = NULL;
    }
    free(pose); free(tk); free(sk); free(rk); free(ch);
    return out;
}

/* Camera: position, forward / right / up axes, tangents of the half angles, near, far. */
typedef struct sc_camera { double eye[3], f[3], r[3], u[3], th, tv, znear, zfar; } sc_camera;

static void camera_at(sc_camera *cam, double t, double extent, double size)
{
    /* inside the plaza, half way out, at 3 character sizes, looking at its centre */
    double radius = 0.5 * extent + 2 * size, a = 0.15 * t;
    double eye[3] = { radius * cos(a), 3 * size, radius * sin(a) };
    double f[3] = { -eye[0], -eye[1] + 0.5 * size, -eye[2] };
    double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; k++) { cam->eye[k] = eye[k]; cam->f[k] = f[k] / fl; }
    /* r = f x (0,1,0), u = r x f */
    double r[3] = { -cam->f[2], 0, cam->f[0] }, rl = sqrt(r[0] * r[0] + r[2] * r[2]);
    for (int k = 0; k < 3; k++) cam->r[k] = r[k] / rl;
    cam->u[0] = cam->r[1] * cam->f[2] - cam->r[2] * cam->f[1];
    cam->u[1] = cam->r[2] * cam->f[0] - cam->r[0] * cam->f[2];
    cam->u[2] = cam->r[0] * cam->f[1] - cam->r[1] * cam->f[0];
    cam->tv = tan(0.5 * 60.0 * M_PI / 180.0);
    cam->th = cam->tv * 16.0 / 9.0;
    cam->znear = 0.05 * size;
    cam->zfar = radius + 3 * extent;
}

/* 1 when the box is entirely outside one plane of the frustum. */
static int box_outside(const sc_camera *cam, const double lo[3], const double hi[3])
{
    int out[6] = { 1, 1, 1, 1, 1, 1 };
    for (int i = 0; i < 8; i++) {
        double p[3] = { (i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2] };
        double v[3] = { p[0] - cam->eye[0], p[1] - cam->eye[1], p[2] - cam->eye[2] };
        double z = v[0] * cam->f[0] + v[1] * cam->f[1] + v[2] * cam->f[2];
        double x = v[0] * cam->r[0] + v[1] * cam->r[1] + v[2] * cam->r[2];
        double y = v[0] * cam->u[0] + v[1] * cam->u[1] + v[2] * cam->u[2];
        if (z >= cam->znear) out[0] = 0;
        if (z <= cam->zfar) out[1] = 0;
        if (x <= z * cam->th) out[2] = 0;
        if (x >= -z * cam->th) out[3] = 0;
        if (y <= z * cam->tv) out[4] = 0;
        if (y >= -z * cam->tv) out[5] = 0;
    }
    for (int k = 0; k < 6; k++)
        if (out[k]) return 1;
    return 0;
}

static sinew_vec3 model_up(const sc_model *sm)
{
    return sm->m.up_axis == DEMO_UP_Z ? sinew_v3(0, 0, 1) : sm->m.up_axis == DEMO_UP_X ? sinew_v3(1, 0, 0) : sinew_v3(0, 1, 0);
}

/* Root motion per clip, the scripted flag, the bone-LOD bands; prints the model's line. */
static void model_setup(sc_model *sm)
{
    {
        sm->joints = sinew_skeleton_joint_count(sm->m.skel);
        uint32_t root_joint = 0; /* joint 0 has no parent (parents precede children) */
        sinew_vec3 up = model_up(sm);
        int with_rm = 0;
        double cycle = 0;
        for (uint32_t k = 0; k < sm->nclips; k++) {
            sinew_root_motion_desc rd = { 0 };
            rd.clip = sm->clips[k];
            rd.skeleton = sm->m.skel;
            rd.joint = root_joint;
            rd.up = up;
            if (sinew_root_motion_create(&rd, &sm->rm[k]) != SINEW_OK) sm->rm[k] = NULL;
            else with_rm++;
            sinew_transform w;
            if (sm->rm[k] && sinew_root_motion_sample(sm->rm[k], sinew_clip_duration(sm->clips[k]), SINEW_WRAP_CLAMP, &w) == SINEW_OK) {
                double d = sqrt(w.translation.x * w.translation.x + w.translation.y * w.translation.y +
                                w.translation.z * w.translation.z);
                if (d > cycle) cycle = d;
            }
        }
        int animated = 0;
        for (uint32_t j = 0; j < sm->joints; j++)
            if (sinew_clip_animates(sm->clips[0], j)) { animated = (int)j; break; }
        printf("model %s: %u joints, %u vertices, %u clip(s), root motion extracted from %d (largest per cycle %.3g, "
               "model size %.3g; first animated joint %d, its parent %d)\n", sm->m.name, sm->joints, sm->m.vertex_count,
               sm->nclips, with_rm, cycle, sm->m.size, animated, (int)sinew_skeleton_parent(sm->m.skel, (uint32_t)animated));
        sm->scale = sm->m.height > 0 ? SC_HEIGHT / sm->m.height : 1;
        sm->scripted = !(cycle > 1e-6 * sm->m.size);
        if (sm->scripted)
            printf("note: %s: its clips carry no root motion (the motion is on a joint below a static root joint); "
                   "its characters walk at a scripted %.1f units/s instead\n", sm->m.name, SC_WALK);
        else
            printf("note: %s: its clips carry root motion: its characters are moved by the crowd "
                   "(sinew_crowd_character.apply_root_motion)\n", sm->m.name);
    }
    /* bone LOD bands: the middle band cuts the deepest level of joints, the far
     * band the deepest third of the levels (at least depth 3 kept) */
    uint32_t *depth = calloc(sm->joints, sizeof *depth);
    sm->depth = 0;
    for (uint32_t j = 0; depth && j < sm->joints; j++) {
        int32_t p = (int32_t)sinew_skeleton_parent(sm->m.skel, j);
        depth[j] = p >= 0 && (uint32_t)p < j ? depth[p] + 1 : 0;
        if (depth[j] > sm->depth) sm->depth = depth[j];
    }
    sm->lod_mid = sm->depth >= 2 ? sm->depth : 0;
    sm->lod_far = sm->depth >= 4 ? (2 * sm->depth + 2) / 3 : sm->lod_mid;
    if (sm->lod_far < 3 && sm->lod_mid >= 3) sm->lod_far = 3;
    sm->kept_mid = sm->kept_far = 0;
    for (uint32_t j = 0; depth && j < sm->joints; j++) {
        sm->kept_mid += !sm->lod_mid || depth[j] < sm->lod_mid;
        sm->kept_far += !sm->lod_far || depth[j] < sm->lod_far;
    }
    free(depth);
}

static int load_models(sc_model *ms, double *size)
{
    int n = 0;
    *size = 1.2 * SC_HEIGHT; /* world size of a character (models are scaled to SC_HEIGHT) */
    for (size_t i = 0; i < sizeof SC_MODELS / sizeof SC_MODELS[0] && n < SC_MAX_MODELS; i++) {
        sc_model *sm = &ms[n];
        memset(sm, 0, sizeof *sm);
        char msg[256] = "";
        if (demo_asset(SC_MODELS[i], &sm->m, msg, sizeof msg) != SINEW_OK) {
            printf("note: %s not loaded (%s), skipped\n", SC_MODELS[i], msg[0] ? msg : "missing");
            continue;
        }
        sinew_asset *a = sm->m.asset;
        sm->nclips = sinew_asset_clip_count(a);
        if (sm->nclips > SC_MAX_CLIPS) sm->nclips = SC_MAX_CLIPS;
        if (!sm->nclips || !sm->m.vertex_count) {
            printf("note: %s has no clip or no vertices, skipped\n", SC_MODELS[i]);
            demo_model_free(&sm->m);
            continue;
        }
        for (uint32_t k = 0; k < sm->nclips; k++) sm->clips[k] = sinew_asset_clip(a, k);
        model_setup(sm);
        n++;
    }
    /* The test models' clips have no root motion: one more model, the first
     * one loaded again, plays generated clips that have (generated_walk), so the
     * crowd's own root motion runs in the scene. */
    for (int s = 0; s < n && n < SC_MAX_MODELS; s++) {
        if (!ms[s].scripted) break; /* a test model with root motion already */
        sc_model *sm = &ms[n];
        memset(sm, 0, sizeof *sm);
        char msg[256] = "";
        const char *path = NULL;
        for (size_t i = 0; i < sizeof SC_MODELS / sizeof SC_MODELS[0]; i++)
            if (strstr(SC_MODELS[i], ms[s].m.name)) path = SC_MODELS[i];
        if (!path || demo_asset(path, &sm->m, msg, sizeof msg) != SINEW_OK) continue;
        sinew_vec3 up = model_up(sm);
        /* forward: the next model axis after up (y-up: +z, z-up: +x, x-up: +y) */
        sinew_vec3 fwd = sm->m.up_axis == DEMO_UP_Z ? sinew_v3(1, 0, 0) : sm->m.up_axis == DEMO_UP_X ? sinew_v3(0, 1, 0)
                                                                                                  : sinew_v3(0, 0, 1);
        double speed = SC_GEN_SPEED * (sm->m.height > 0 ? sm->m.height : sm->m.size);
        sm->generated = 1;
        sm->fwd = fwd;
        sm->nclips = ms[s].nclips;
        int ok = 1;
        for (uint32_t k = 0; k < sm->nclips && ok; k++) {
            char cname[96];
            snprintf(cname, sizeof cname, "%s+walk", sinew_clip_name(ms[s].clips[k]) ? sinew_clip_name(ms[s].clips[k]) : "clip");
            /* each clip its own walk, so crossfades blend different motions */
            sm->own[k] = generated_walk(sinew_asset_clip(sm->m.asset, k), sm->m.skel, up, fwd, speed * (1 + 0.25 * k),
                                        SC_GEN_TURN * (1 - 0.6 * k), cname);
            sm->clips[k] = sm->own[k];
            ok = sm->own[k] != NULL;
        }
        char base[64];
        snprintf(base, sizeof base, "%s", sm->m.name);
        snprintf(sm->m.name, sizeof sm->m.name, "%.40s+walk", base);
        if (!ok) {
            printf("note: the generated root-motion clips for %s could not be made, skipped\n", base);
            for (uint32_t k = 0; k < sm->nclips; k++) sinew_clip_destroy(sm->own[k]);
            demo_model_free(&sm->m);
            break;
        }
        printf("generated: model %s = %s playing its %u clip(s) resampled at %.0f keys/s with root joint 0 carried "
               "along a circle: clip k at %.2f x (1 + k / 4) model heights/s (= %.2f x (1 + k / 4) units/s once scaled), "
               "yaw %.2f x (1 - 0.6 k) rad/s about its up axis\n",
               sm->m.name, base, sm->nclips, SC_GEN_RATE, SC_GEN_SPEED, SC_GEN_SPEED * SC_HEIGHT, SC_GEN_TURN);
        model_setup(sm);
        n++;
        break;
    }
    return n;
}

static void free_models(sc_model *ms, int n)
{
    for (int i = 0; i < n; i++) {
        for (uint32_t k = 0; k < ms[i].nclips; k++) {
            sinew_root_motion_destroy(ms[i].rm[k]);
            sinew_clip_destroy(ms[i].own[k]);
        }
        demo_model_free(&ms[i].m);
    }
}

/* One size: builds the skinner + crowd, runs warm-up + frames, fills the row. */
/* Per-frame samples of one size (medians go to the row). */
enum { S_LOGIC, S_CULL, S_PREP, S_GPU, S_FRAME, S_SAMPLE, S_FK, S_PAL, S_BOUNDS, S_UPLOAD, S_SUM_SAMPLE, S_SUM_FK,
       S_SUM_PAL, S_SUM_BOUNDS, S_SUM_UPLOAD, S_BUSY, S_MORPH, S_SKIN, S_RENDER, S_COUNT };

static void run_size(sinew_gpu *gpu, sc_model *ms, int nm, double size, uint32_t count, uint32_t frames,
                     double copy_gbps, int render, int bone_lod, const char *frame_ppm, sc_row *row)
{
    uint32_t max_joints = 0, rest_vertices = 0;
    uint64_t out_vertices = 0, palette = 0;
    for (int i = 0; i < nm; i++) {
        if (ms[i].joints > max_joints) max_joints = ms[i].joints;
        rest_vertices += ms[i].m.vertex_count;
    }
    for (uint32_t i = 0; i < count; i++) {
        out_vertices += ms[i % nm].m.vertex_count;
        palette += (uint64_t)ms[i % nm].joints * SINEW_PALETTE_GPU_STRIDE_MAX;
    }
    row->chars = count;
    if (out_vertices > UINT32_MAX || palette > UINT32_MAX) { row->error = "too large for one skinner"; return; }
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = rest_vertices;
    sd.max_meshes = (uint32_t)nm;
    sd.max_instances = count;
    sd.max_output_vertices = (uint32_t)out_vertices;
    sd.max_palette_vec4 = (uint32_t)palette;
    sd.frames_in_flight = 2;
    sd.keep_previous = true;
    sinew_skinner *sk = NULL;
    sinew_crowd *crowd = NULL;
    sinew_error_info err;
    memset(&err, 0, sizeof err);
    sinew_result r = sinew_skinner_create(gpu, &sd, &sk, &err);
    for (int i = 0; i < nm && r == SINEW_OK; i++) r = sinew_skinner_add_rest_mesh(sk, ms[i].m.rest, &ms[i].m.mesh_id, &err);
    if (r == SINEW_OK) {
        sinew_crowd_desc cd = { 0 };
        cd.skinner = sk;
        cd.max_characters = count;
        cd.max_models = (uint32_t)nm;
        cd.max_joints = max_joints;
        cd.lod_interpolate = true;
        cd.stage_timing = true; /* the per-stage columns */
        cd.root_motion = true;  /* characters of models whose clips have root motion: moved by the crowd */
        r = sinew_crowd_create(&cd, &crowd, &err);
    }
    sinew_renderer *rnd = NULL;
    sinew_render_target *target = NULL;
    if (r == SINEW_OK && render) {
        sinew_renderer_desc rdd = { 0 };
        rdd.max_meshes = sd.max_meshes;
        r = sinew_renderer_create(gpu, sk, &rdd, &rnd);
        for (int i = 0; i < nm && r == SINEW_OK; i++)
            r = sinew_renderer_set_mesh(rnd, ms[i].m.mesh_id, ms[i].m.indices, ms[i].m.index_count, ms[i].m.vertex_count);
        sinew_render_target_desc td = { SC_RENDER_W, SC_RENDER_H, VK_NULL_HANDLE };
        if (r == SINEW_OK) r = sinew_render_target_create(rnd, &td, &target);
        if (r != SINEW_OK) snprintf(err.message, sizeof err.message, "the render stage (sinew_renderer): %s",
                                    sinew_result_string(r));
    }
    for (int i = 0; i < nm && r == SINEW_OK; i++) {
        sinew_crowd_model_desc md = { 0 };
        const sinew_rest_mesh *rest = ms[i].m.rest;
        md.skeleton = ms[i].m.skel;
        md.mesh_count = 1;
        md.meshes = &ms[i].m.mesh_id;
        md.rest_meshes = &rest; /* vertex counts and culling data */
        r = sinew_crowd_add_model(crowd, &md, &ms[i].id, &err);
    }
    sc_char *cs = calloc(count, sizeof *cs);
    sinew_crowd_character *chars = calloc(count, sizeof *chars);
    sinew_anim_layer *layers = calloc((size_t)count * 2, sizeof *layers);
    sinew_instance *drawn = calloc(count, sizeof *drawn);
    double *ts = calloc((size_t)frames * S_COUNT, sizeof(double)), *ser[S_COUNT];
    for (int k = 0; k < S_COUNT; k++) ser[k] = ts ? ts + (size_t)k * frames : NULL;
    if (r == SINEW_OK && !(cs && chars && layers && drawn && ts))
        r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r != SINEW_OK) {
        row->error = sinew_result_string(r);
        if (err.message[0]) fprintf(stderr, "scene: %s\n", err.message);
        goto done;
    }

    /* the plaza: a square of side 2 * extent, 2 model sizes per character */
    double spacing = 2.0 * size, extent = 0.5 * spacing * ceil(sqrt((double)count));
    uint64_t rs = 0x5eedu;
    for (uint32_t i = 0; i < count; i++) {
        sc_char *c = &cs[i];
        const sc_model *sm = &ms[i % nm];
        double rx, rz, yaw;
        rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; rx = (double)(rs >> 11) / 9007199254740992.0;
        rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; rz = (double)(rs >> 11) / 9007199254740992.0;
        rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; yaw = 2 * M_PI * (double)(rs >> 11) / 9007199254740992.0;
        sinew_quat q = sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), yaw), sm->m.upright);
        c->model = (uint32_t)(i % nm);
        c->place = sinew_mat4_from_rigid(q, sinew_v3((2 * rx - 1) * extent, sm->m.lift * sm->scale, (2 * rz - 1) * extent));
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) c->place.m[a][b] *= sm->scale; /* uniform scale: LBS keeps it exact */
        if (sm->generated && i < (uint32_t)nm) {
            /* the first generated walker starts at the plaza's edge walking out,
             * so every run wraps at least one crowd-moved character */
            double d[2] = { 0, 0 };
            const double fw[3] = { sm->fwd.x, sm->fwd.y, sm->fwd.z };
            for (int b = 0; b < 3; b++) { d[0] += c->place.m[b][0] * fw[b]; d[1] += c->place.m[b][2] * fw[b]; }
            double dm = fmax(fabs(d[0]), fabs(d[1]));
            if (dm > 0) {
                c->place.m[3][0] = (extent - 0.02 * size) * d[0] / dm;
                c->place.m[3][2] = (extent - 0.02 * size) * d[1] / dm;
            }
        }
        c->heading[0] = sin(yaw);
        c->heading[1] = cos(yaw);
        c->motion = sinew_mat4_identity();
        c->root = c->place;
        c->cur = c->prev = i % sm->nclips;
        c->period = 3.0 + frac(0.618 * i);
        c->cur_off = frac(0.37 * i) * sinew_clip_duration(sm->clips[c->cur]);
        c->prev_off = c->cur_off;
        c->cur_start = c->prev_start = 0;
        c->switch_at = c->period * frac(0.21 * i + 0.1); /* staggered first transitions */
        c->was_hidden = 1;
        chars[i].model = sm->id;
        chars[i].method = SINEW_METHOD_LBS;
        chars[i].root = &c->root;
        chars[i].layer_count = 2;
        chars[i].layers = &layers[2 * i];
        c->slot = 1;
        c->world = c->expect = c->root;
        chars[i].apply_root_motion = !sm->scripted;
        row->crowd_moved += !sm->scripted;
    }

    double speed_sum = 0, rm_dist = 0;
    int n = 0;
    for (uint32_t f = 0; f < frames + 2 && r == SINEW_OK; f++) {
        double t = f * SC_DT, f0 = now_s();
        /* logic: transitions, layers, root motion, wrap */
        double moved = 0;
        int ok_expect = 1;
        for (uint32_t i = 0; i < count; i++) {
            sc_char *c = &cs[i];
            const sc_model *sm = &ms[c->model];
            chars[i].reset_previous = false;
            if (t >= c->switch_at) {
                c->slot = 1 - c->slot;
                c->prev = c->cur;
                c->prev_start = c->cur_start;
                c->prev_off = c->cur_off;
                c->cur = (c->cur + 1) % sm->nclips;
                c->cur_start = t;
                c->transitions++;
                /* one clip: the same clip at another phase */
                c->cur_off = frac(0.37 * i + 0.45 * c->transitions) * sinew_clip_duration(sm->clips[c->cur]);
                c->switch_at = t + c->period;
            }
            double fade_time = t - (c->switch_at - c->period);
            sinew_anim_layer *l = &layers[2 * i];
            /* the two layer positions used in turn: the playing clip keeps its
             * position, the incoming one takes the other (it starts at weight 0,
             * fade_time 0), as the crowd's root motion needs (docs/crowds.md) */
            sinew_anim_layer *lp = &l[1 - c->slot], *lc = &l[c->slot];
            memset(l, 0, 2 * sizeof *l);
            lp->clip = sm->clips[c->prev];
            lp->time = t - c->prev_start + c->prev_off;
            lp->weight = 1;
            lp->flags = SINEW_LAYER_FADE_OUT;
            lp->fade_time = c->transitions ? fade_time : SC_FADE;
            lp->fade_duration = SC_FADE;
            lp->root_motion = sm->rm[c->prev];
            lc->clip = sm->clips[c->cur];
            lc->time = t - c->cur_start + c->cur_off;
            lc->weight = 1;
            lc->fade_time = c->transitions ? fade_time : SC_FADE;
            lc->fade_duration = SC_FADE;
            lc->root_motion = sm->rm[c->cur];
            if (!sm->scripted) {
                /* moved by the crowd: where it must be after this frame (for the
                 * culling below and the check after the frame); a wrap decided after
                 * the last frame restarts it there with fresh previous positions */
                int fresh = f == 0 || c->wrap_pending;
                if (c->wrap_pending) {
                    /* root = the wrapped W moved on by this frame's step, so the
                     * reset loses no motion */
                    ok_expect &= expected_world(c, l, 2, 0, NULL);
                    c->root = c->expect;
                } else {
                    ok_expect &= expected_world(c, l, 2, fresh, &c->root);
                }
                if (f > 0) {
                    sinew_vec3 a = mat_pos(&c->world), b = mat_pos(&c->expect);
                    double dd = sqrt((b.x - a.x) * (b.x - a.x) + (b.z - a.z) * (b.z - a.z));
                    moved += dd;
                    rm_dist += dd;
                }
                chars[i].reset_previous = c->wrap_pending != 0;
                c->wrap_pending = 0;
            } else if (f > 0) {
                sinew_transform d;
                blend_motion(sm, c, l, t - SC_DT, t, &d);
                sinew_mat4 dm = sinew_mat4_from_transform(&d);
                c->motion = sinew_mat4_mul(&c->motion, &dm);
                if (sm->scripted) {
                    c->place.m[3][0] += SC_WALK * SC_DT * c->heading[0];
                    c->place.m[3][2] += SC_WALK * SC_DT * c->heading[1];
                }
                sinew_vec3 before = mat_pos(&c->root);
                c->root = sinew_mat4_mul(&c->place, &c->motion);
                sinew_vec3 p = mat_pos(&c->root);
                moved += sqrt((p.x - before.x) * (p.x - before.x) + (p.z - before.z) * (p.z - before.z));
                /* wrap inside the plaza (a teleport: fresh previous positions) */
                double sx = p.x > extent ? -2 * extent : p.x < -extent ? 2 * extent : 0;
                double sz = p.z > extent ? -2 * extent : p.z < -extent ? 2 * extent : 0;
                if (sx != 0 || sz != 0) {
                    c->place.m[3][0] += sx;
                    c->place.m[3][2] += sz;
                    c->root = sinew_mat4_mul(&c->place, &c->motion);
                    chars[i].reset_previous = true;
                }
            }
        }
        double f1 = now_s();
        /* culling and LOD with the boxes of the previous frame */
        sc_camera cam;
        camera_at(&cam, t, extent, size);
        for (uint32_t i = 0; i < count; i++) {
            sc_char *c = &cs[i];
            const sc_model *sm = &ms[c->model];
            sinew_vec3 p = mat_pos(sm->scripted ? &c->root : &c->expect);
            double dx = p.x - cam.eye[0], dy = p.y - cam.eye[1], dz = p.z - cam.eye[2];
            double dist = sqrt(dx * dx + dy * dy + dz * dz);
            int band = dist < SC_NEAR * size ? 0 : dist < SC_MID * size ? 1 : 2;
            uint32_t every = band == 0 ? 1 : band == 1 ? 2 : 4;
            float lo[3], hi[3];
            int visible = 1;
            if (f > 0 && sinew_crowd_character_bounds(crowd, i, lo, hi) == SINEW_OK) {
                double blo[3] = { lo[0], lo[1], lo[2] }, bhi[3] = { hi[0], hi[1], hi[2] };
                if (c->was_hidden) {
                    /* the box of its last skinning: moved with the root since, grown
                     * by half a model size for the pose and heading it has now */
                    double sh[3] = { p.x - c->skin_pos[0], p.y - c->skin_pos[1], p.z - c->skin_pos[2] };
                    for (int k = 0; k < 3; k++) { blo[k] += sh[k] - 0.5 * size; bhi[k] += sh[k] + 0.5 * size; }
                } else {
                    /* last frame's box: grown by this frame's root step and a margin */
                    for (int k = 0; k < 3; k++) { blo[k] -= 0.1 * size; bhi[k] += 0.1 * size; }
                }
                visible = !box_outside(&cam, blo, bhi);
            }
            chars[i].hidden = !visible;
            chars[i].update_every = every;
            chars[i].joint_lod = !bone_lod || band == 0 ? 0 : band == 1 ? sm->lod_mid : sm->lod_far;
            chars[i].lod_interpolate = every > 1;
            if (visible) { c->skin_pos[0] = p.x; c->skin_pos[1] = p.y; c->skin_pos[2] = p.z; }
            c->was_hidden = !visible;
        }
        double f2 = now_s();
        sinew_crowd_stats st;
        memset(&st, 0, sizeof st);
        double g = 0, morph = 0, skin = 0, rms = -1;
        if (rnd) {
            /* the skinning (own submission), then the pass in a second submission
             * ordered after it by the skinner's final barrier (vertex reads). One
             * command buffer for both made llvmpipe resolve the skinning's end
             * timestamp after part of the pass (gpu_ms 22.7 instead of 15 ms for
             * 100 characters). Either way, once a pass has run llvmpipe resolves
             * a timestamp only at the next flush, so the morph / skin split is
             * wrong on lavapipe with the render stage (see the note printed) */
            r = sinew_crowd_update(crowd, chars, count, &st, &err);
            uint32_t ninst = 0, nd = 0;
            const sinew_instance *inst = r == SINEW_OK ? sinew_crowd_instances(crowd, &ninst) : NULL;
            for (uint32_t i = 0; inst && i < ninst && i < count; i++) /* one mesh per model: instance i = character i */
                if (!chars[i].hidden) drawn[nd++] = inst[i];
            sinew_render_view view;
            memset(&view, 0, sizeof view);
            float eye[3] = { (float)cam.eye[0], (float)cam.eye[1], (float)cam.eye[2] };
            float at[3] = { (float)(cam.eye[0] + cam.f[0]), (float)(cam.eye[1] + cam.f[1]), (float)(cam.eye[2] + cam.f[2]) };
            sinew_render_camera(view.view_proj, eye, at, (float)(60.0 * M_PI / 180.0), (float)SC_RENDER_W / SC_RENDER_H,
                                (float)cam.znear, (float)cam.zfar);
            memcpy(view.eye, eye, sizeof eye);
            view.ground = true;
            view.ground_height = 0;
            view.ground_extent = (float)(extent + size);
            if (r == SINEW_OK) r = sinew_renderer_render(rnd, target, &view, drawn, nd, NULL, false);
            if (r == SINEW_OK) r = sinew_skinner_wait(sk);
            if (r == SINEW_OK) r = sinew_renderer_gpu_time(rnd, &rms);
        } else {
            r = sinew_crowd_update(crowd, chars, count, &st, &err);
            if (r == SINEW_OK) r = sinew_skinner_wait(sk);
        }
        if (r == SINEW_OK) r = sinew_skinner_gpu_time(sk, &g);
        if (r == SINEW_OK) r = sinew_skinner_gpu_stage_times(sk, &morph, &skin);
        double f3 = now_s();
        if (r == SINEW_OK && !ok_expect) {
            r = SINEW_ERROR_NON_FINITE;
            snprintf(err.message, sizeof err.message, "sinew_root_motion_delta failed in the scene's check");
        }
        if (r != SINEW_OK) break;
        /* crowd-moved characters: the crowd's W against the W recomputed here
         * from the tracks (float64), then the plaza wrap */
        for (uint32_t i = 0; i < count && r == SINEW_OK; i++) {
            sc_char *c = &cs[i];
            if (ms[c->model].scripted) continue;
            sinew_mat4 w;
            r = sinew_crowd_character_world(crowd, i, &w);
            if (r != SINEW_OK) break;
            sinew_vec3 e = mat_pos(&c->expect);
            double scale = 1 + sqrt(e.x * e.x + e.y * e.y + e.z * e.z), d = 0;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) d = fmax(d, fabs(w.m[a][b] - c->expect.m[a][b]));
            if (!isnan(row->rm_max_err) && !(d / scale <= row->rm_max_err)) row->rm_max_err = d / scale; /* NaN stays, the worst */
            row->rm_checked += 1;
            c->world = w;
            /* wrap inside the plaza: W moved across at once, the next frame a
             * teleport (reset_previous, root = there): fresh previous positions */
            sinew_vec3 p = mat_pos(&w);
            double sx = p.x > extent ? -2 * extent : p.x < -extent ? 2 * extent : 0;
            double sz = p.z > extent ? -2 * extent : p.z < -extent ? 2 * extent : 0;
            if (sx != 0 || sz != 0) {
                c->world.m[3][0] += sx;
                c->world.m[3][2] += sz;
                r = sinew_crowd_set_character_world(crowd, i, &c->world, &err);
                c->wrap_pending = 1;
                row->rm_wraps++;
            }
        }
        if (r != SINEW_OK) break;
        if (f >= 2) { /* two warm-up frames (pipelines, first touches, first LOD evaluations) */
            double share = st.busy_ms > 0 ? st.cpu_ms / st.busy_ms : 0;
            ser[S_LOGIC][n] = (f1 - f0) * 1e3;
            ser[S_CULL][n] = (f2 - f1) * 1e3;
            ser[S_PREP][n] = st.cpu_ms;
            ser[S_GPU][n] = g;
            ser[S_FRAME][n] = (f3 - f0) * 1e3;
            ser[S_SAMPLE][n] = st.sample_ms * share;
            ser[S_FK][n] = st.fk_ms * share;
            ser[S_PAL][n] = st.palette_ms * share;
            ser[S_BOUNDS][n] = st.bounds_ms * share;
            ser[S_UPLOAD][n] = st.pack_ms * share;
            ser[S_SUM_SAMPLE][n] = st.sample_ms;
            ser[S_SUM_FK][n] = st.fk_ms;
            ser[S_SUM_PAL][n] = st.palette_ms;
            ser[S_SUM_BOUNDS][n] = st.bounds_ms;
            ser[S_SUM_UPLOAD][n] = st.pack_ms;
            ser[S_BUSY][n] = st.busy_ms;
            ser[S_MORPH][n] = morph;
            ser[S_SKIN][n] = skin;
            ser[S_RENDER][n] = rms;
            row->visible += count - st.skipped;
            row->interpolated += st.interpolated;
            row->skinned_vertices += st.output_vertices;
            speed_sum += moved / count / SC_DT;
            n++;
        }
    }
    if (r != SINEW_OK) {
        row->error = sinew_result_string(r);
        if (err.message[0]) fprintf(stderr, "scene: %s\n", err.message);
        goto done;
    }
    if (n > 0) {
        row->visible /= n;
        row->interpolated /= n;
        row->skinned_vertices /= n;
        row->meters_per_s = speed_sum / n;
    }
    if (row->crowd_moved) {
        row->rm_speed = rm_dist / (row->crowd_moved * (frames + 1) * SC_DT);
        if (!(row->rm_max_err <= SC_RM_TOL) || !(row->rm_speed > 0)) row->error = "root motion check failed";
    }
    row->logic_ms = median(ser[S_LOGIC], n);
    row->cull_ms = median(ser[S_CULL], n);
    row->prepare_ms = median(ser[S_PREP], n);
    row->gpu_ms = median(ser[S_GPU], n);
    row->frame_ms = median(ser[S_FRAME], n);
    row->sample_ms = median(ser[S_SAMPLE], n);
    row->fk_ms = median(ser[S_FK], n);
    row->palette_ms = median(ser[S_PAL], n);
    row->bounds_ms = median(ser[S_BOUNDS], n);
    row->upload_ms = median(ser[S_UPLOAD], n);
    row->sum_sample_ms = median(ser[S_SUM_SAMPLE], n);
    row->sum_fk_ms = median(ser[S_SUM_FK], n);
    row->sum_palette_ms = median(ser[S_SUM_PAL], n);
    row->sum_bounds_ms = median(ser[S_SUM_BOUNDS], n);
    row->sum_upload_ms = median(ser[S_SUM_UPLOAD], n);
    row->busy_ms = median(ser[S_BUSY], n);
    row->morph_ms = median(ser[S_MORPH], n);
    row->skin_ms = median(ser[S_SKIN], n);
    row->render_ms = rnd ? median(ser[S_RENDER], n) : -1;
    if (rnd && frame_ppm) { /* the last frame drawn, to look at (overwritten by each size) */
        uint8_t *px = malloc((size_t)SC_RENDER_W * SC_RENDER_H * 4u);
        FILE *fp = px && sinew_render_target_read(target, px) == SINEW_OK ? fopen(frame_ppm, "wb") : NULL;
        if (fp) {
            fprintf(fp, "P6\n%u %u\n255\n", SC_RENDER_W, SC_RENDER_H);
            for (size_t i = 0; i < (size_t)SC_RENDER_W * SC_RENDER_H; i++) fwrite(px + 4 * i, 1, 3, fp);
            fclose(fp);
        }
        free(px);
    }
    row->fps = row->frame_ms > 0 ? 1e3 / row->frame_ms : 0;
    {
        sinew_output_binding ob;
        sinew_skinner_output_binding(sk, &ob);
        /* compulsory traffic per skinned vertex: rest vertex (32 B) + output; previous positions not counted */
        double bytes = row->skinned_vertices * (32.0 + ob.stride);
        row->gbps = row->gpu_ms > 0 ? bytes / (row->gpu_ms * 1e-3) * 1e-9 : 0;
        row->roofline = copy_gbps > 0 ? row->gbps / copy_gbps : 0;
    }
done:
    sinew_render_target_destroy(target);
    sinew_renderer_destroy(rnd);
    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    free(cs); free(chars); free(layers);
    free(drawn); free(ts);
}

static void print_header(void)
{
    printf("%-11s %8s %12s %12s %9s %9s %10s %8s %9s %8s %7s %7s | %12s %8s %8s %8s %8s %8s %8s %8s\n", "characters",
           "visible", "interpolated", "skinned_vtx", "logic_ms", "cull_ms", "prepare_ms", "gpu_ms", "frame_ms", "frames/s",
           "GB/s", "roof%", "sample/blend", "FK", "palette", "bounds", "upload", "morph", "skin", "render");
}

static void print_row(const sc_row *w)
{
    if (w->error) {
        printf("%10u%s   n/a: %s\n", w->chars, w->capped ? "*" : " ", w->error);
        return;
    }
    char rs[32];
    if (w->render_ms >= 0) snprintf(rs, sizeof rs, "%8.3f", w->render_ms);
    else snprintf(rs, sizeof rs, "%8s", "n/a");
    printf("%10u%s %8.0f %12.0f %12.0f %9.3f %9.3f %10.3f %8.3f %9.3f %8.1f %7.2f %6.1f%% | %12.3f %8.3f %8.3f %8.3f %8.3f "
           "%8.3f %8.3f %s\n", w->chars, w->capped ? "*" : " ", w->visible, w->interpolated, w->skinned_vertices,
           w->logic_ms, w->cull_ms, w->prepare_ms, w->gpu_ms, w->frame_ms, w->fps, w->gbps, 100 * w->roofline,
           w->sample_ms, w->fk_ms, w->palette_ms, w->bounds_ms, w->upload_ms, w->morph_ms, w->skin_ms, rs);
}

int sinew_bench_scene(const sinew_bench_scene_options *o)
{
    static const uint32_t def_sizes[] = { 1000, 10000, 100000 };
    const uint32_t *sizes = o->sizes ? o->sizes : def_sizes;
    uint32_t nsizes = o->sizes ? o->nsizes : 3, frames = o->frames ? o->frames : 30;
    sc_model ms[SC_MAX_MODELS];
    double size = 0;
    double t_begin = now_s();
    int nm = load_models(ms, &size);
    if (nm == 0) {
        fprintf(stderr, "sinew-bench --scene crowd: none of the test models could be loaded (libassimp's test models, "
                        "package assimp-testmodels)\n");
        return 1;
    }
    sinew_gpu_desc gd = { 0 };
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew-bench: no Vulkan device: %s\n", sinew_result_string(r));
        free_models(ms, nm);
        return 1;
    }
    const sinew_gpu_device_info *info = sinew_gpu_info(gpu);
    int slow = info->type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    /* the cap: as sinew-bench on CPU devices (4 Mi skinned vertices); on GPUs the output,
     * previous-position and LOD palette buffers of one skinner (64 Mi vertices) */
    uint64_t budget = o->budget_given ? o->budget : o->full ? 0 : slow ? (4u << 20) : (64u << 20);
    printf("sinew-bench --scene crowd: device %s (%s), %u CPU threads; %d model(s), %u frames per size\n", info->name,
           slow ? "CPU device" : "GPU", sinew_cpu_count(), nm, frames);
    sinew_copy_roofline roof;
    memset(&roof, 0, sizeof roof);
    if (sinew_debug_measure_roofline(gpu, 7, &roof) != SINEW_OK) fprintf(stderr, "copy roofline failed\n");
    printf("copy roofline (sinew_debug_measure_roofline): compute-shader copy %.1f GB/s, vkCmdCopyBuffer %.1f GB/s\n",
           roof.shader_copy_gbps, roof.transfer_copy_gbps);
    if (budget)
        printf("vertex budget: at most %llu output vertices per size; larger crowds are capped and marked *\n",
               (unsigned long long)budget);
    /* one skinner's output buffer must fit maxStorageBufferRange (32 B per vertex covers every output format) */
    uint64_t device_cap = sinew_gpu_properties(gpu)->limits.maxStorageBufferRange / 32u;
    printf("device cap: at most %llu output vertices (maxStorageBufferRange / 32 B); larger crowds are capped and marked *\n",
           (unsigned long long)device_cap);
    if (o->no_render)
        printf("render: not measured (--no-render)\n\n");
    else
        printf("render: the visible characters drawn offscreen at %ux%u (sinew_renderer: ground + one indexed draw per "
               "character, from the skinner's output), timed by timestamps around the pass\n\n", SC_RENDER_W, SC_RENDER_H);
    if (o->no_bone_lod) printf("bone LOD: off (--no-bone-lod): joint_lod 0 in every band\n");
    printf("distance LOD bands (camera distance in character sizes of %.2f units): < %.0f: update_every 1, joint_lod 0 "
           "(every joint); %.0f-%.0f: update_every 2 + lod_interpolate, joint_lod = the deepest level; >= %.0f: "
           "update_every 4 + lod_interpolate, joint_lod = the deepest third of the levels\n", size, SC_NEAR, SC_NEAR, SC_MID,
           SC_MID);
    for (int i = 0; i < nm; i++)
        printf("  %-26s depth %2u: joint_lod near 0 (%u joints), middle %u (%u kept), far %u (%u kept)\n", ms[i].m.name,
               ms[i].depth, ms[i].joints, ms[i].lod_mid, ms[i].kept_mid, ms[i].lod_far, ms[i].kept_far);
    printf("\n");
    print_header();
    sc_row rows[SC_MAX_ROWS];
    int nrows = 0;
    char path[1024];
    uint32_t last = 0;
    for (uint32_t s = 0; s < nsizes && nrows < SC_MAX_ROWS; s++) {
        uint32_t c = sizes[s];
        int capped = 0;
        {
            uint64_t v = 0, cap = budget && budget < device_cap ? budget : device_cap;
            uint32_t fit = 0;
            while (fit < c && v + ms[fit % nm].m.vertex_count <= cap) v += ms[fit++ % nm].m.vertex_count;
            if (fit < c) { c = fit ? fit : 1; capped = 1; }
        }
        if (c == last) continue; /* capped to a size already measured */
        last = c;
        sc_row *w = &rows[nrows++];
        memset(w, 0, sizeof *w);
        w->capped = capped;
        snprintf(path, sizeof path, "%s/scene-frame.ppm", o->out_dir);
        run_size(gpu, ms, nm, size, c, frames, roof.shader_copy_gbps, !o->no_render, !o->no_bone_lod, path, w);
        print_row(w);
        if (w->crowd_moved && (!w->error || w->rm_checked > 0))
            printf("root motion check (%u characters): %u moved by the crowd (apply_root_motion), %.0f character-frames: "
                   "W against W_last x delta recomputed from sinew_root_motion_delta (float64), max error %.2e x (1 + |t|) "
                   "(tolerance %.0e); mean speed %.3f units/s (generated walks %.2f-%.2f); %u plaza wraps "
                   "(sinew_crowd_set_character_world + reset_previous): %s\n", w->chars, w->crowd_moved, w->rm_checked,
                   w->rm_max_err, SC_RM_TOL, w->rm_speed, SC_GEN_SPEED * SC_HEIGHT, SC_GEN_SPEED * SC_HEIGHT * 1.5, w->rm_wraps,
                   w->rm_max_err <= SC_RM_TOL && w->rm_speed > 0 ? "ok" : "FAILED");
        fflush(stdout);
    }
    printf("(* = capped by the vertex budget or the device cap; prepare = sinew_crowd_stats.cpu_ms: sample + blend + FK + palette + box "
           "+ pack on all threads (wall); logic and cull: this program, one thread; visible / interpolated / skinned_vtx: "
           "mean per frame; frame = logic .. GPU done%s, frames not overlapped.\n"
           " Stages, ms, medians per frame: sample/blend, FK, palette, bounds (culling boxes), upload (the checked copy of "
           "the palettes into the mapped ring the GPU reads) = each stage's share of prepare's wall time (thread sums "
           "in scene.json); morph + skin = gpu_ms (timestamps; morph: the span before the skinning dispatch, no morpher "
           "in this scene); render = the pass%s)\n",
           o->no_render ? "" : ", render included", o->no_render ? ": not measured (--no-render)" : " on the GPU (timestamps)");

    snprintf(path, sizeof path, "%s/scene.csv", o->out_dir);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/scene.json", o->out_dir);
    FILE *js = fopen(path, "w");
    if (csv) {
        fprintf(csv, "device,characters,capped,visible,interpolated,skinned_vertices,logic_ms,cull_ms,prepare_ms,"
                     "gpu_ms,frame_ms,frames_per_s,gb_per_s,roofline_fraction,sample_blend_ms,fk_ms,palette_ms,bounds_ms,"
                     "upload_ms,morph_ms,skin_ms,render_ms,error\n");
        for (int i = 0; i < nrows; i++) {
            const sc_row *w = &rows[i];
            char rs[32] = "";
            if (w->render_ms >= 0) snprintf(rs, sizeof rs, "%.4f", w->render_ms);
            fprintf(csv, "\"%s\",%u,%d,%.1f,%.1f,%.0f,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f,%.4f,%.5f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
                         "%.4f,%s,%s\n", info->name, w->chars,
                    w->capped, w->visible, w->interpolated, w->skinned_vertices, w->logic_ms, w->cull_ms, w->prepare_ms,
                    w->gpu_ms, w->frame_ms, w->fps, w->gbps, w->roofline, w->sample_ms, w->fk_ms, w->palette_ms,
                    w->bounds_ms, w->upload_ms, w->morph_ms, w->skin_ms, rs, w->error ? w->error : "");
        }
        fclose(csv);
    }
    if (js) {
        fprintf(js, "{\n  \"scene\": \"crowd\",\n  \"device\": \"%s\",\n  \"cpu_device\": %s,\n  \"frames\": %u,\n", info->name,
                slow ? "true" : "false", frames);
        fprintf(js, "  \"copy_roofline\": {\"shader_copy_gbps\": %.3f, \"transfer_copy_gbps\": %.3f},\n",
                roof.shader_copy_gbps, roof.transfer_copy_gbps);
        if (o->no_render)
            fprintf(js, "  \"vertex_budget\": %llu,\n  \"render\": \"not measured (--no-render)\",\n  \"models\": [",
                    (unsigned long long)budget);
        else
            fprintf(js, "  \"vertex_budget\": %llu,\n  \"render\": \"offscreen %ux%u, sinew_renderer, timestamps around the pass\",\n"
                        "  \"models\": [", (unsigned long long)budget, SC_RENDER_W, SC_RENDER_H);
        for (int i = 0; i < nm; i++)
            fprintf(js, "%s{\"name\": \"%s\", \"joints\": %u, \"vertices\": %u, \"clips\": %u, \"depth\": %u, "
                        "\"root_motion\": \"%s\", \"joint_lod\": [0, %u, %u], \"joints_kept\": [%u, %u, %u]}",
                    i ? ", " : "", ms[i].m.name, ms[i].joints, ms[i].m.vertex_count, ms[i].nclips, ms[i].depth,
                    ms[i].scripted ? "none: scripted walk" : ms[i].generated ? "generated, applied by the crowd"
                                                                             : "applied by the crowd",
                    ms[i].lod_mid, ms[i].lod_far, ms[i].joints, ms[i].kept_mid, ms[i].kept_far);
        fprintf(js, "],\n  \"lod_bands\": [{\"below_sizes\": %.0f, \"update_every\": 1}, {\"below_sizes\": %.0f, "
                    "\"update_every\": 2}, {\"below_sizes\": null, \"update_every\": 4}],\n  \"results\": [\n",
                SC_NEAR, SC_MID);
        for (int i = 0; i < nrows; i++) {
            const sc_row *w = &rows[i];
            char rj[32] = "null";
            if (w->render_ms >= 0) snprintf(rj, sizeof rj, "%.4f", w->render_ms);
            fprintf(js,
                    "    {\"characters\": %u, \"capped\": %s, \"visible\": %.1f, \"interpolated\": %.1f, "
                    "\"skinned_vertices\": %.0f, \"logic_ms\": %.4f, \"cull_ms\": %.4f, \"prepare_ms\": %.4f, "
                    "\"gpu_ms\": %.4f, \"frame_ms\": %.4f, \"frames_per_s\": %.2f, \"gb_per_s\": %.4f, "
                    "\"roofline_fraction\": %.5f, \"root_speed\": %.4f, "
                    "\"stages_ms\": {\"sample_blend\": %.4f, \"fk\": %.4f, \"palette\": %.4f, \"bounds\": %.4f, "
                    "\"upload\": %.4f, \"morph\": %.4f, \"skin\": %.4f, \"render\": %s}, "
                    "\"cpu_thread_sums_ms\": {\"sample_blend\": %.4f, \"fk\": %.4f, \"palette\": %.4f, \"bounds\": %.4f, "
                    "\"upload\": %.4f, \"busy\": %.4f}, \"root_motion_check\": {\"crowd_moved\": %u, "
                    "\"character_frames\": %.0f, \"max_error\": %.3e, \"tolerance\": %.0e, \"mean_speed\": %.4f, "
                    "\"wraps\": %u}, \"error\": %s%s%s}%s\n",
                    w->chars, w->capped ? "true" : "false", w->visible, w->interpolated, w->skinned_vertices, w->logic_ms,
                    w->cull_ms, w->prepare_ms, w->gpu_ms, w->frame_ms, w->fps, w->gbps, w->roofline, w->meters_per_s,
                    w->sample_ms, w->fk_ms, w->palette_ms, w->bounds_ms, w->upload_ms, w->morph_ms, w->skin_ms, rj,
                    w->sum_sample_ms, w->sum_fk_ms, w->sum_palette_ms, w->sum_bounds_ms, w->sum_upload_ms, w->busy_ms,
                    w->crowd_moved, w->rm_checked, w->rm_max_err, SC_RM_TOL, w->rm_speed, w->rm_wraps, w->error ? "\"" : "", w->error ? w->error : "null", w->error ? "\"" : "", i + 1 < nrows ? "," : "");
        }
        fprintf(js, "  ]\n}\n");
        fclose(js);
    }
    snprintf(path, sizeof path, "%s/scene.gp", o->out_dir);
    FILE *gp = fopen(path, "w");
    if (gp) {
        fprintf(gp, "$d << EOD\n");
        for (int i = 0; i < nrows; i++)
            if (!rows[i].error) {
                const sc_row *w = &rows[i];
                /* 1 chars, 2 logic, 3 cull, 4 prepare, 5 gpu, 6 frame, 7 GB/s, 8 sample/blend, 9 FK, 10 palette,
                 * 11 bounds, 12 upload, 13 morph, 14 skin, 15 render (NaN: not measured) */
                fprintf(gp, "%u %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g ", w->chars, w->logic_ms,
                        w->cull_ms, w->prepare_ms, w->gpu_ms, w->frame_ms, w->gbps, w->sample_ms, w->fk_ms, w->palette_ms,
                        w->bounds_ms, w->upload_ms, w->morph_ms, w->skin_ms);
                if (w->render_ms >= 0) fprintf(gp, "%.6g\n", w->render_ms);
                else fprintf(gp, "NaN\n");
            }
        fprintf(gp, "EOD\n");
        fprintf(gp, "set terminal pngcairo size 1800,540 font ',10'\nset output '%s/scene.png'\n", o->out_dir);
        fprintf(gp, "set multiplot layout 1,3 title 'sinew-bench --scene crowd on %s (render: %s)'\n", info->name,
                o->no_render ? "not measured" : "offscreen 1280x720");
        fprintf(gp, "set logscale x\nset grid\nset key top left\nset xlabel 'characters'\nset datafile missing 'NaN'\n");
        fprintf(gp, "set title 'CPU stages (ms per frame, share of the wall time)'\nset logscale y\nset ylabel 'ms'\n"
                    "plot $d using 1:2 with linespoints lw 2 title 'logic', $d using 1:3 with linespoints lw 2 title 'cull', "
                    "$d using 1:8 with linespoints lw 2 title 'sample/blend', $d using 1:9 with linespoints lw 2 title 'FK', "
                    "$d using 1:10 with linespoints lw 2 title 'palette', $d using 1:11 with linespoints lw 2 title 'bounds', "
                    "$d using 1:12 with linespoints lw 2 title 'upload', $d using 1:4 with linespoints lw 2 dt 2 title "
                    "'prepare (all CPU stages)'\n");
        fprintf(gp, "set title 'GPU stages and the frame (ms)'\n"
                    "plot $d using 1:13 with linespoints lw 2 title 'morph', $d using 1:14 with linespoints lw 2 title 'skin', "
                    "$d using 1:15 with linespoints lw 2 title 'render', $d using 1:6 with linespoints lw 2 dt 2 title 'frame'\n");
        fprintf(gp, "set title 'GPU skin stage against the copy roofline'\nunset logscale y\nset yrange [0:*]\n"
                    "set ylabel 'GB/s (rest + output bytes)'\n"
                    "plot $d using 1:7 with linespoints lw 2 title 'skinning', %.6g with lines lw 2 dt 2 title "
                    "'copy roofline (%.1f GB/s)'\n",
                roof.shader_copy_gbps, roof.shader_copy_gbps);
        fprintf(gp, "unset multiplot\n");
        fclose(gp);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "gnuplot '%s/scene.gp' 2>/dev/null", o->out_dir);
        int rc = system(cmd);
        if (rc != 0) fprintf(stderr, "gnuplot failed (rc %d): no plot\n", rc);
    }
    printf("\nwrote %s/scene.csv, %s/scene.json, %s/scene.png (%.0f s in all)\n", o->out_dir, o->out_dir, o->out_dir,
           now_s() - t_begin);
    int failed = 0;
    for (int i = 0; i < nrows; i++) failed |= rows[i].error != NULL;
    sinew_gpu_destroy(gpu);
    free_models(ms, nm);
    return failed ? 1 : 0;
}
#endif
