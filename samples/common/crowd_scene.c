/* The crowd scene of `sinew-bench --scene crowd` and `sinew-viewer --scene crowd`
 * (crowd_scene.h): several of assimp's test models (missing ones are skipped
 * with a note; each scaled by its root matrix to 1.8 units tall (or half its
 * diagonal, if that is longer: a model lying flat in its rest pose), skinned with
 * LBS, which keeps a uniform root scale exact), each character playing two
 * blended layers (sinew_anim_layer, two layer positions used in turn) with a
 * 0.5 s crossfade to the model's next clip every 3-4 s (a model with one clip
 * crossfades to itself at another phase), an orbiting path camera, frustum
 * culling with the crowd's conservative boxes of the previous frame (hidden =
 * true), distance LOD by band: update_every 1 / 2 / 4 (lod_interpolate; the
 * skinner keeps previous positions) with bone LOD next to it (joint_lod 0 / the
 * deepest joint level / the deepest third of the levels).
 * Root motion (sinew_root_motion per clip, translation + yaw):
 *  - models whose clips have it are moved by the crowd (sinew_crowd_desc.root_motion,
 *    apply_root_motion: the crowd keeps each one's world W); positions wrap
 *    over a square plaza by sinew_crowd_set_character_world (W moved across at
 *    once) and, the next frame, reset_previous with root = the wrapped W moved
 *    on by that frame's step (fresh previous positions, no step lost). Every
 *    frame each such W is checked against W_last x delta recomputed here in
 *    float64 from sinew_root_motion_delta (the crowd's blend rule).
 *  - the test models' clips move a joint below a static root joint, so their
 *    extracted root motion is zero: their characters keep a scripted walk at
 *    1 unit/s (root matrix moved here, wrap with reset_previous). So that the
 *    crowd's path runs, one more model, the first test model again
 *    (Testwuson.X+walk), plays its clips resampled with the root joint carried
 *    along a circle (generated_walk), whose root motion the crowd applies.
 * The frame f is at time f x CROWD_SCENE_DT whatever the wall clock says, so
 * the bench and the viewer show the same crowd at the same frame. */
#define _POSIX_C_SOURCE 200809L
#include "crowd_scene.h"

#define SC_MAX_MODELS CROWD_SCENE_MAX_MODELS
#define SC_MAX_CLIPS CROWD_SCENE_MAX_CLIPS
#define SC_DT CROWD_SCENE_DT
#define SC_FADE CROWD_SCENE_FADE
#define SC_HEIGHT CROWD_SCENE_HEIGHT
#define SC_WALK CROWD_SCENE_WALK
#define SC_GEN_SPEED CROWD_SCENE_GEN_SPEED
#define SC_GEN_TURN CROWD_SCENE_GEN_TURN
#define SC_GEN_RATE CROWD_SCENE_GEN_RATE
#define SC_NEAR CROWD_SCENE_NEAR
#define SC_MID CROWD_SCENE_MID
typedef crowd_scene_model sc_model;
typedef crowd_scene_char sc_char;
typedef crowd_scene_camera sc_camera;

static const char *SC_MODELS[] = {
    "/usr/share/assimp/models/X/Testwuson.X",
    "/usr/share/assimp/models/X/BCN_Epileptic.X",
    "/usr/share/assimp/models/FBX/animation_with_skeleton.fbx",
    "/usr/share/assimp/models/FBX/huesitos.fbx",
};

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
        /* 1.8 units tall; a model whose rest pose lies flat (tiny height) is sized by
         * half its diagonal instead, so it does not become a giant across the plaza */
        double extent = sm->m.height > 0.5 * sm->m.size ? sm->m.height : 0.5 * sm->m.size;
        sm->scale = extent > 0 ? SC_HEIGHT / extent : 1;
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

int crowd_scene_load_models(crowd_scene_model *ms, double *size)
{
#ifndef DEMO_WITH_ASSET
    (void)ms; (void)SC_MODELS; (void)generated_walk; (void)model_setup;
    *size = 1.2 * SC_HEIGHT;
    printf("note: built without the asset layer (sinew::asset): no models for the crowd scene\n");
    return 0;
#else
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
#endif
}

void crowd_scene_free_models(crowd_scene_model *ms, int n)
{
    for (int i = 0; i < n; i++) {
        for (uint32_t k = 0; k < ms[i].nclips; k++) {
            sinew_root_motion_destroy(ms[i].rm[k]);
            sinew_clip_destroy(ms[i].own[k]);
        }
        demo_model_free(&ms[i].m);
    }
}

int crowd_scene_open(const char *who, crowd_scene_model *ms, double *size, sinew_gpu **gpu)
{
    *gpu = NULL;
    int nm = crowd_scene_load_models(ms, size);
    if (nm == 0) {
        fprintf(stderr, "%s: none of the test models could be loaded (libassimp's test models, package "
                        "assimp-testmodels)\n", who);
        return 0;
    }
    sinew_gpu_desc gd = { 0 };
    sinew_result r = sinew_gpu_create(&gd, gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "%s: no Vulkan device: %s\n", who, sinew_result_string(r));
        crowd_scene_free_models(ms, nm);
        *gpu = NULL;
        return 0;
    }
    return nm;
}

uint32_t crowd_scene_fit(const crowd_scene_model *ms, int nm, uint32_t count, uint64_t max_vertices)
{
    uint64_t v = 0;
    uint32_t fit = 0;
    while (nm > 0 && fit < count && v + ms[fit % nm].m.vertex_count <= max_vertices) v += ms[fit++ % nm].m.vertex_count;
    return fit;
}

sinew_result crowd_scene_init(crowd_scene *s, crowd_scene_model *ms, int nm, double size, uint32_t count, int bone_lod)
{
    memset(s, 0, sizeof *s);
    s->ms = ms;
    s->nm = nm;
    s->size = size;
    s->count = count;
    s->bone_lod = bone_lod;
    s->expect_ok = 1;
    s->cs = calloc(count ? count : 1, sizeof *s->cs);
    s->chars = calloc(count ? count : 1, sizeof *s->chars);
    s->layers = calloc((size_t)(count ? count : 1) * 2, sizeof *s->layers);
    s->drawn = calloc(count ? count : 1, sizeof *s->drawn);
    if (!s->cs || !s->chars || !s->layers || !s->drawn || nm <= 0) {
        crowd_scene_destroy(s);
        return nm <= 0 ? SINEW_ERROR_INVALID_ARGUMENT : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sc_char *cs = s->cs;
    sinew_crowd_character *chars = s->chars;
    sinew_anim_layer *layers = s->layers;
    /* the plaza: a square of side 2 * extent, 2 model sizes per character */
    double spacing = 2.0 * size, extent = 0.5 * spacing * ceil(sqrt((double)count));
    s->extent = extent;
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
        s->crowd_moved += !sm->scripted;
    }
    return SINEW_OK;
}

sinew_result crowd_scene_pipeline(crowd_scene *s, sinew_gpu *gpu, const sinew_renderer_desc *rd, sinew_error_info *err)
{
    const sc_model *ms = s->ms;
    int nm = s->nm;
    uint32_t count = s->count, max_joints = 0, rest_vertices = 0;
    uint64_t out_vertices = 0, palette = 0;
    for (int i = 0; i < nm; i++) {
        if (ms[i].joints > max_joints) max_joints = ms[i].joints;
        rest_vertices += ms[i].m.vertex_count;
    }
    for (uint32_t i = 0; i < count; i++) {
        out_vertices += ms[i % nm].m.vertex_count;
        palette += (uint64_t)ms[i % nm].joints * SINEW_PALETTE_GPU_STRIDE_MAX;
    }
    if (out_vertices > UINT32_MAX || palette > UINT32_MAX) {
        if (err) snprintf(err->message, sizeof err->message, "too large for one skinner");
        return SINEW_ERROR_LIMIT_EXCEEDED;
    }
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = rest_vertices;
    sd.max_meshes = (uint32_t)nm;
    sd.max_instances = count;
    sd.max_output_vertices = (uint32_t)out_vertices;
    sd.max_palette_vec4 = (uint32_t)palette;
    sd.frames_in_flight = 2;
    sd.keep_previous = true;
    sinew_result r = sinew_skinner_create(gpu, &sd, &s->sk, err);
    for (int i = 0; i < nm && r == SINEW_OK; i++)
        r = sinew_skinner_add_rest_mesh(s->sk, ms[i].m.rest, &s->ms[i].m.mesh_id, err);
    if (r == SINEW_OK) {
        sinew_crowd_desc cd = { 0 };
        cd.skinner = s->sk;
        cd.max_characters = count;
        cd.max_models = (uint32_t)nm;
        cd.max_joints = max_joints;
        cd.lod_interpolate = true;
        cd.stage_timing = true; /* the per-stage figures */
        cd.root_motion = true;  /* characters of models whose clips have root motion: moved by the crowd */
        r = sinew_crowd_create(&cd, &s->crowd, err);
    }
    if (r == SINEW_OK && rd) {
        sinew_renderer_desc rdd = *rd;
        rdd.max_meshes = sd.max_meshes;
        r = sinew_renderer_create(gpu, s->sk, &rdd, &s->rnd);
        for (int i = 0; i < nm && r == SINEW_OK; i++)
            r = sinew_renderer_set_mesh(s->rnd, ms[i].m.mesh_id, ms[i].m.indices, ms[i].m.index_count, ms[i].m.vertex_count);
        if (r != SINEW_OK && err)
            snprintf(err->message, sizeof err->message, "the render stage (sinew_renderer): %s", sinew_result_string(r));
    }
    for (int i = 0; i < nm && r == SINEW_OK; i++) {
        sinew_crowd_model_desc md = { 0 };
        const sinew_rest_mesh *rest = ms[i].m.rest;
        md.skeleton = ms[i].m.skel;
        md.mesh_count = 1;
        md.meshes = &ms[i].m.mesh_id;
        md.rest_meshes = &rest; /* vertex counts and culling data */
        r = sinew_crowd_add_model(s->crowd, &md, &s->ms[i].id, err);
    }
    for (uint32_t i = 0; i < count && r == SINEW_OK; i++) s->chars[i].model = ms[i % nm].id;
    return r;
}

void crowd_scene_destroy(crowd_scene *s)
{
    sinew_renderer_destroy(s->rnd);
    sinew_crowd_destroy(s->crowd);
    sinew_skinner_destroy(s->sk);
    free(s->cs); free(s->chars); free(s->layers); free(s->drawn);
    memset(s, 0, sizeof *s);
}

void crowd_scene_logic(crowd_scene *s, uint32_t f)
{
    const sc_model *ms = s->ms;
    sc_char *cs = s->cs;
    sinew_crowd_character *chars = s->chars;
    sinew_anim_layer *layers = s->layers;
    double t = f * SC_DT, extent = s->extent;
    double moved = 0;
    int ok_expect = 1;
    s->frame = f;
    for (uint32_t i = 0; i < s->count; i++) {
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
                s->rm_dist += dd;
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
    s->moved = moved;
    s->expect_ok = ok_expect;
}

void crowd_scene_camera_at(const crowd_scene *s, double t, crowd_scene_camera *cam)
{
    camera_at(cam, t, s->extent, s->size);
}

void crowd_scene_cull(crowd_scene *s, uint32_t f)
{
    const sc_model *ms = s->ms;
    sc_char *cs = s->cs;
    sinew_crowd_character *chars = s->chars;
    double size = s->size;
    sc_camera cam;
    camera_at(&cam, f * SC_DT, s->extent, size);
    s->cam = cam;
    s->visible = s->culled = s->band[0] = s->band[1] = s->band[2] = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        sc_char *c = &cs[i];
        const sc_model *sm = &ms[c->model];
        sinew_vec3 p = mat_pos(sm->scripted ? &c->root : &c->expect);
        double dx = p.x - cam.eye[0], dy = p.y - cam.eye[1], dz = p.z - cam.eye[2];
        double dist = sqrt(dx * dx + dy * dy + dz * dz);
        int band = dist < SC_NEAR * size ? 0 : dist < SC_MID * size ? 1 : 2;
        uint32_t every = band == 0 ? 1 : band == 1 ? 2 : 4;
        float lo[3], hi[3];
        int visible = 1;
        if (f > 0 && sinew_crowd_character_bounds(s->crowd, i, lo, hi) == SINEW_OK) {
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
        chars[i].joint_lod = !s->bone_lod || band == 0 ? 0 : band == 1 ? sm->lod_mid : sm->lod_far;
        chars[i].lod_interpolate = every > 1;
        if (visible) { c->skin_pos[0] = p.x; c->skin_pos[1] = p.y; c->skin_pos[2] = p.z; }
        c->was_hidden = !visible;
        s->visible += visible;
        s->culled += !visible;
        s->band[band]++;
    }
}

void crowd_scene_view(const crowd_scene *s, const crowd_scene_camera *cam, uint32_t w, uint32_t h, sinew_render_view *view)
{
    memset(view, 0, sizeof *view);
    float eye[3] = { (float)cam->eye[0], (float)cam->eye[1], (float)cam->eye[2] };
    float at[3] = { (float)(cam->eye[0] + cam->f[0]), (float)(cam->eye[1] + cam->f[1]), (float)(cam->eye[2] + cam->f[2]) };
    sinew_render_camera(view->view_proj, eye, at, (float)(CROWD_SCENE_FOV_DEG * M_PI / 180.0), (float)w / (float)h,
                        (float)cam->znear, (float)cam->zfar);
    memcpy(view->eye, eye, sizeof eye);
    view->ground = true;
    view->ground_height = 0;
    view->ground_extent = (float)(s->extent + s->size);
}

uint32_t crowd_scene_draw_list(crowd_scene *s)
{
    uint32_t ninst = 0, nd = 0;
    const sinew_instance *inst = sinew_crowd_instances(s->crowd, &ninst);
    for (uint32_t i = 0; inst && i < ninst && i < s->count; i++) /* one mesh per model: instance i = character i */
        if (!s->chars[i].hidden) s->drawn[nd++] = inst[i];
    return nd;
}

sinew_result crowd_scene_check(crowd_scene *s, sinew_error_info *err)
{
    double extent = s->extent;
    sinew_result r = SINEW_OK;
    for (uint32_t i = 0; i < s->count && r == SINEW_OK; i++) {
        sc_char *c = &s->cs[i];
        if (s->ms[c->model].scripted) continue;
        sinew_mat4 w;
        r = sinew_crowd_character_world(s->crowd, i, &w);
        if (r != SINEW_OK) break;
        sinew_vec3 e = mat_pos(&c->expect);
        double scale = 1 + sqrt(e.x * e.x + e.y * e.y + e.z * e.z), d = 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) d = fmax(d, fabs(w.m[a][b] - c->expect.m[a][b]));
        if (!isnan(s->rm_max_err) && !(d / scale <= s->rm_max_err)) s->rm_max_err = d / scale; /* NaN stays, the worst */
        s->rm_checked += 1;
        c->world = w;
        /* wrap inside the plaza: W moved across at once, the next frame a
         * teleport (reset_previous, root = there): fresh previous positions */
        sinew_vec3 p = mat_pos(&w);
        double sx = p.x > extent ? -2 * extent : p.x < -extent ? 2 * extent : 0;
        double sz = p.z > extent ? -2 * extent : p.z < -extent ? 2 * extent : 0;
        if (sx != 0 || sz != 0) {
            c->world.m[3][0] += sx;
            c->world.m[3][2] += sz;
            r = sinew_crowd_set_character_world(s->crowd, i, &c->world, err);
            c->wrap_pending = 1;
            s->rm_wraps++;
        }
    }
    return r;
}

sinew_result crowd_scene_world(const crowd_scene *s, uint32_t i, sinew_mat4 *w)
{
    if (i >= s->count) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!s->ms[s->cs[i].model].scripted) {
        *w = s->cs[i].world;
        return SINEW_OK;
    }
    *w = s->cs[i].root;
    return SINEW_OK;
}

int crowd_scene_write_state(const crowd_scene *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "# crowd scene state after frame %u: %u characters, world transform per character (row-major 4x4)\n",
            s->frame, s->count);
    for (uint32_t i = 0; i < s->count; i++) {
        sinew_mat4 w;
        crowd_scene_world(s, i, &w);
        fprintf(f, "%u", i);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) fprintf(f, " %.17g", w.m[a][b]);
        fprintf(f, "\n");
    }
    return fclose(f) == 0;
}
