/* The crowd scene shared by `sinew-bench --scene crowd` (bench/bench_scene.c:
 * timing, table, JSON, plot) and `sinew-viewer --scene crowd` (samples/viewer:
 * window + panel or headless): one source of truth for the models, clips,
 * transitions, root motion, plaza, camera path, culling and distance LOD
 * (crowd_scene.c describes the scene). Without the asset layer (no
 * DEMO_WITH_ASSET) crowd_scene_load_models loads nothing. */
#ifndef SINEW_CROWD_SCENE_H
#define SINEW_CROWD_SCENE_H

#include "demo_scene.h"

#define CROWD_SCENE_MAX_MODELS 5 /* 4 test models + one with a generated root-motion clip */
#define CROWD_SCENE_MAX_CLIPS 4
#define CROWD_SCENE_DT (1.0 / 30.0) /* scene time step per frame (s) */
#define CROWD_SCENE_FADE 0.5
#define CROWD_SCENE_HEIGHT 1.8   /* every model is scaled (root matrix, LBS) to this height */
#define CROWD_SCENE_WALK 1.0     /* world units / s for models whose clips have no root motion */
#define CROWD_SCENE_GEN_SPEED 0.8 /* generated walk: model heights / s along the ground plane */
#define CROWD_SCENE_GEN_TURN 0.3  /* generated walk: yaw rate, rad / s */
#define CROWD_SCENE_GEN_RATE 30.0 /* generated clip: keys / s (the source clip resampled) */
#define CROWD_SCENE_NEAR 10.0    /* distance LOD bands, in character sizes (crowd_scene.c) */
#define CROWD_SCENE_MID 25.0
#define CROWD_SCENE_RM_TOL 1e-9  /* crowd-moved W against W_prev x delta (float64), x (1 + |translation|) */
#define CROWD_SCENE_RENDER_W 1280u /* the offscreen render target of the bench and the headless viewer */
#define CROWD_SCENE_RENDER_H 720u
#define CROWD_SCENE_FOV_DEG 60.0

typedef struct crowd_scene_model {
    demo_model m;
    uint32_t joints, nclips;
    const sinew_clip *clips[CROWD_SCENE_MAX_CLIPS];
    sinew_root_motion *rm[CROWD_SCENE_MAX_CLIPS]; /* NULL: none could be extracted */
    sinew_model_id id;
    double scale;              /* root scale that makes it CROWD_SCENE_HEIGHT tall */
    int scripted;              /* its clips carry no root motion: walks at CROWD_SCENE_WALK instead */
    int generated;             /* its clips are generated (a source clip + a root walk): own[] */
    sinew_clip *own[CROWD_SCENE_MAX_CLIPS];
    uint32_t depth;            /* deepest joint's depth (roots 0) */
    uint32_t lod_mid, lod_far; /* joint_lod of the middle and far distance bands (0 = every joint) */
    uint32_t kept_mid, kept_far;
    sinew_vec3 fwd;            /* generated: the model axis its walk starts along */
} crowd_scene_model;

/* One character's scene state (crowd_scene.c). */
typedef struct crowd_scene_char {
    uint32_t model;
    sinew_mat4 place, motion, root; /* plaza placement x upright; accumulated root motion; place x motion */
    uint32_t cur, prev;
    double cur_start, prev_start, cur_off, prev_off, switch_at, period;
    uint32_t transitions;
    int was_hidden;
    double skin_pos[3];
    double heading[2];
    uint32_t slot;
    sinew_mat4 world, expect;
    const sinew_root_motion *last_rm[2];
    double last_time[2];
    int wrap_pending;
} crowd_scene_char;

/* Path camera: position, forward / right / up axes, tangents of the half angles, near, far. */
typedef struct crowd_scene_camera { double eye[3], f[3], r[3], u[3], th, tv, znear, zfar; } crowd_scene_camera;

typedef struct crowd_scene {
    crowd_scene_model *ms;     /* crowd_scene_load_models's (not owned) */
    int nm;
    double size;               /* world size of a character */
    uint32_t count;
    double extent;             /* the plaza: a square of side 2 extent */
    int bone_lod;
    crowd_scene_char *cs;
    sinew_crowd_character *chars;
    sinew_anim_layer *layers;  /* 2 per character */
    /* crowd_scene_pipeline (owned) */
    sinew_skinner *sk;
    sinew_crowd *crowd;
    sinew_renderer *rnd;       /* NULL: no render stage */
    sinew_instance *drawn;     /* the visible instances of the last crowd_scene_draw_list */
    /* per frame (crowd_scene_logic / crowd_scene_cull) */
    uint32_t frame;
    crowd_scene_camera cam;
    uint32_t visible, culled, band[3]; /* band: characters per distance band (near, middle, far) */
    int expect_ok;             /* sinew_root_motion_delta worked for every expected W */
    double moved;              /* sum over characters of this frame's root step on the ground (units) */
    /* root motion check (crowd_scene_check), over the run */
    uint32_t crowd_moved;      /* characters moved by the crowd (apply_root_motion) */
    double rm_dist, rm_checked, rm_max_err;
    uint32_t rm_wraps;
} crowd_scene;

/* Loads the scene's models (prints a line per model, notes for those missing);
 * returns how many (0: none), *size the world size of a character. */
int crowd_scene_load_models(crowd_scene_model *ms, double *size);
void crowd_scene_free_models(crowd_scene_model *ms, int n);
/* Loads the models and creates the default GPU (*gpu); on failure prints why,
 * prefixed by who, frees what it made and returns 0; else the model count. */
int crowd_scene_open(const char *who, crowd_scene_model *ms, double *size, sinew_gpu **gpu);

/* The most characters, up to count, whose output fits max_vertices (characters
 * take the models in turn). */
uint32_t crowd_scene_fit(const crowd_scene_model *ms, int nm, uint32_t count, uint64_t max_vertices);
/* Places count characters of the models on the plaza (the same layout for the
 * same count). bone_lod 0: joint_lod 0 in every band. */
sinew_result crowd_scene_init(crowd_scene *s, crowd_scene_model *ms, int nm, double size, uint32_t count, int bone_lod);
/* Skinner (keep_previous, 2 frames in flight), crowd (LOD interpolation, stage
 * timing, root motion) and, with rd, a renderer with the models' triangles. */
sinew_result crowd_scene_pipeline(crowd_scene *s, sinew_gpu *gpu, const sinew_renderer_desc *rd, sinew_error_info *err);
/* Frees the pipeline and the characters (not the models). */
void crowd_scene_destroy(crowd_scene *s);

/* Frame f (time f x CROWD_SCENE_DT): transitions, layers, root motion, walk, wrap. */
void crowd_scene_logic(crowd_scene *s, uint32_t f);
/* The path camera at time t. */
void crowd_scene_camera_at(const crowd_scene *s, double t, crowd_scene_camera *cam);
/* Frustum culling (the crowd's boxes of the last frame, grown) and distance LOD
 * from the path camera of frame f: sets hidden / update_every / joint_lod, counts. */
void crowd_scene_cull(crowd_scene *s, uint32_t f);
/* Render view of camera cam for an image of aspect w / h. */
void crowd_scene_view(const crowd_scene *s, const crowd_scene_camera *cam, uint32_t w, uint32_t h, sinew_render_view *view);
/* The instances of the visible characters after the crowd's prepare / update (s->drawn); returns how many. */
uint32_t crowd_scene_draw_list(crowd_scene *s);
/* After the crowd's prepare / update: the crowd-moved characters' W against the
 * float64 expectation (s->rm_*), then the plaza wrap. */
sinew_result crowd_scene_check(crowd_scene *s, sinew_error_info *err);
/* Character i's world transform now (the crowd's W, or the scripted root). */
sinew_result crowd_scene_world(const crowd_scene *s, uint32_t i, sinew_mat4 *w);
/* Writes every character's world transform (%.17g, one character a line) to path; 0 on failure. */
int crowd_scene_write_state(const crowd_scene *s, const char *path);

#endif
