/* Demo content shared by the viewer, the benchmark, the integration sample and
 * the render test (library sinew_samples_common, bodies in demo_scene.c): the
 * procedural tube as a character, an imported assimp model (when sinew_asset
 * is linked, the target defines DEMO_WITH_ASSET for itself and its users),
 * and crowd layouts on a grid. Public API only. */
#ifndef SINEW_DEMO_SCENE_H
#define SINEW_DEMO_SCENE_H

#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include "sinew_scene.h"
#include <sinew/anim.h>
#include <sinew/crowd.h>
#include <sinew/render.h>
#include <sinew/debug.h>
#ifdef DEMO_WITH_ASSET
#include <sinew/asset.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A character model: what the skinner, the crowd and the renderer need. */
typedef struct demo_model {
    char name[64];
    sinew_skeleton *skeleton;        /* owned unless asset */
    const sinew_skeleton *skel;      /* the one to use */
    sinew_rest_mesh *rest;           /* owned: vertices, triangles, bulge distances, centers */
    const sinew_vertex *vertices;    /* the rest mesh's (4 influences) */
    uint32_t vertex_count;
    const uint32_t *indices;         /* the rest mesh's triangles (an asset's own indices) */
    uint32_t index_count;
    const float *bulge;              /* the rest mesh's bulge distances */
    const float *centers;            /* the rest mesh's centers of rotation (CoR methods); made by demo_model_upload */
    const sinew_clip *clip;          /* NULL = procedural tube motion */
    double clip_duration;
    double size;                     /* bounding-box diagonal */
    double height;                   /* extent along y after the upright rotation */
    double lift;                     /* root y so the model stands on y = 0 */
    sinew_quat upright;              /* root rotation that stands it up */
    int up_axis;                     /* DEMO_UP_X/Y/Z: the model's up axis (demo_model_set_up) */
    int is_tube;
    void *asset;                     /* sinew_asset* when imported */
    char cache_path[512];            /* imported: its centers' cache file (sinew/bake_cache.h); "" = none */
    /* filled by demo_model_upload */
    sinew_mesh_id mesh_id;
} demo_model;

/* Up axes of demo_model_set_up. */
enum { DEMO_UP_AUTO = -1, DEMO_UP_X = 0, DEMO_UP_Y = 1, DEMO_UP_Z = 2 };
/* Stands the model up: its axis (DEMO_UP_AUTO: z when the bounding box is
 * clearly longest along z, else y) becomes y; sets upright, height and lift.
 * demo_asset calls it with DEMO_UP_Y for glTF (Y-up by its specification) and
 * DEMO_UP_AUTO otherwise; the viewer's --up overrides. */
void demo_model_set_up(demo_model *m, int axis);

/* Frees what the model owns (and its asset); zeroes it. */
void demo_model_free(demo_model *m);

/* The tube as a character: rings x sectors, length 1 along x, stood up along y. */
sinew_result demo_tube(uint32_t rings, uint32_t sectors, demo_model *m);

/* The tube or the box-section bar (sectors a multiple of 8) as a character. */
sinew_result demo_shape(uint32_t rings, uint32_t sectors, scene_shape shape, demo_model *m);

/* Same with the procedural weights' exponent alpha (> 0; demo_shape uses 2). */
sinew_result demo_shape_alpha(uint32_t rings, uint32_t sectors, scene_shape shape, double alpha, demo_model *m);

/* A copy of model src (sharing its skeleton and clip, which src keeps owning) with
 * automatic weights of exponent alpha over the joints src's weights use (all joints
 * when they use fewer than 2). */
sinew_result demo_model_auto_weights(const demo_model *src, double alpha, demo_model *m);

#ifdef DEMO_WITH_ASSET
/* An assimp model with its first clip (if any). */
sinew_result demo_asset(const char *path, demo_model *m, char *msg, size_t msg_size);
#endif

/* Computes the model's centers of rotation (m->centers) unless made:
 * sinew_rest_mesh_compute_centers on all cores, through m->cache_path when set (an
 * imported model: beside the asset, or in $SINEW_CACHE_DIR); nothing for a model
 * without triangles. */
sinew_result demo_model_centers(demo_model *m);
/* Uploads the model's rest mesh to the skinner (and its indices to the renderer).
 * The skinner must have cor_centers: the model's centers of rotation are computed
 * here (demo_model_centers) unless already made. */
sinew_result demo_model_upload(demo_model *m, sinew_skinner *sk, sinew_renderer *rnd);

/* Registers the model with a crowd. */
sinew_result demo_model_add_to_crowd(const demo_model *m, sinew_crowd *c, sinew_model_id *model_id);

/* Procedural tube motion (a sinew_pose_fn): bend and twist over time; with
 * user != NULL (an int flag) the middle joint also scales (for DQS with scale). */
sinew_result demo_tube_motion(void *user, const sinew_skeleton *skel, uint32_t character, double t,
                              sinew_transform *out);

/* A crowd on a square grid around the origin: character i of n. */
typedef struct demo_crowd {
    uint32_t count;
    sinew_crowd_character *chars;
    sinew_mat4 *roots;
    double spacing;
    double extent;                  /* half size of the grid */
    /* 1: what the tube characters using DQS with scale hand demo_tube_motion
     * (their sample_user points here, so a set-up demo_crowd must not be
     * copied or moved while its characters are in use). */
    int scale_flag;
} demo_crowd;

/* Fills count characters of one model, all with `method` and `flags`
 * (method < 0: cycle through LBS, DQS, DQS with scale), time offsets per
 * character. Call demo_crowd_animate each frame to move time. */
sinew_result demo_crowd_setup(demo_crowd *dc, const demo_model *m, sinew_model_id model_id, uint32_t count,
                              int method, uint32_t flags);

/* Changes every character's method (method < 0: cycle) and flags. */
void demo_crowd_set_method(demo_crowd *dc, int method, uint32_t flags);

/* Moves time: character i at t plus its offset. */
void demo_crowd_animate(demo_crowd *dc, double t);

/* Frees the characters and roots; zeroes dc. */
void demo_crowd_free(demo_crowd *dc);

#endif
