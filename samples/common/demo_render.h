/* Headless scenes shared by the viewer (--headless) and test_gpu_render
 * (library sinew_samples_common, bodies in demo_render.c): a GPU scene
 * (skinner + renderer + crowd + demo models), the tube comparison (twist and
 * bend under each method) and a crowd frame, rendered offscreen and read back
 * as RGBA8, plus projection helpers to find where things landed on screen.
 * Public API only. */
#ifndef SINEW_DEMO_RENDER_H
#define SINEW_DEMO_RENDER_H

#include "demo_scene.h"
#include "scene_psd.h"
#include <sinew/render.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include <sinew/morpher.h>

/* Morphed copies the scene reserves for the corrected tube: crowd characters
 * of the small tube, and the fine tubes of demo_render_psd. */
#define DEMO_PSD_SLOTS 16
#define DEMO_PSD_FINE_SLOTS 2

typedef struct demo_gpu_scene {
    sinew_gpu *gpu;
    sinew_skinner *sk;
    sinew_renderer *rnd;
    sinew_crowd *crowd;
    demo_model tube_fine;           /* 64 x 32, for the comparison */
    demo_model tube_small;          /* 24 x 16, a crowd character */
    demo_model asset;
    int has_asset;
    demo_model bar_fine;            /* the box-section bar, 64 x 32 */
    demo_model bar_small;           /* 24 x 16 */
    sinew_model_id id_fine, id_small, id_asset; /* crowd model ids */
    sinew_model_id id_bar_fine, id_bar_small;
    uint32_t max_characters;
    uint32_t max_output_vertices;   /* skinner capacity actually created */
    uint32_t spare_meshes;          /* room left for variants (demo_scene_add_variant) */
    uint32_t spare_vertices;
    /* pose-space correctives on the tubes (demo_scene_enable_psd; NULL morpher before) */
    sinew_morpher *morpher;
    psd_correctives psd_small, psd_fine;      /* for tube_small / tube_fine */
    sinew_morph_set_id psd_set_small, psd_set_fine;
    sinew_morph_slot_id psd_slots[DEMO_PSD_SLOTS];
    sinew_morph_slot_id psd_fine_slots[DEMO_PSD_FINE_SLOTS];
} demo_gpu_scene;

/* Waits for the skinner, destroys the crowd, renderer, skinner and models; zeroes s. */
void demo_scene_destroy(demo_gpu_scene *s);

/* Creates the skinner (capacities from max_characters and the models), the
 * renderer and the crowd on gpu; asset_path may be NULL (or fail to load: then
 * has_asset = 0 and msg says why). */
sinew_result demo_scene_create(sinew_gpu *gpu, uint32_t max_characters, const sinew_renderer_desc *rd,
                               sinew_output_format fmt, const char *asset_path, demo_gpu_scene *s,
                               char *msg, size_t msg_size);

/* Uploads a variant model (another alpha, automatic weights) into the room the scene
 * reserved (DEMO_SCENE_SPARE_MESHES meshes; 16 small shapes + 4 assets of vertices) and
 * registers it with the crowd. CAPACITY when the room is used up. */
#define DEMO_SCENE_SPARE_MESHES 24
sinew_result demo_scene_add_variant(demo_gpu_scene *s, demo_model *m, sinew_model_id *id);

/* Builds the correctives of both tubes (scene_psd_correctives), a morpher on the
 * scene's skinner, their morph sets and slots (each slot's copy gets the tube's
 * indices in the renderer). Idempotent. */
sinew_result demo_scene_enable_psd(demo_gpu_scene *s);

/* The correctives picture: columns plain LBS, LBS + correctives (RBF driver ->
 * morph pass -> LBS), DQS (the correctives' target shape); row 0 bent 125
 * degrees, row 1 twisted 112.5 (both between the examples). Needs
 * demo_scene_enable_psd. Tube k = row * 3 + col along x from (col * 1.5 - 2.0, row_y). */
#define DEMO_PSD_COLS 3
extern const char *const demo_psd_names[DEMO_PSD_COLS];
sinew_result demo_render_psd(demo_gpu_scene *s, sinew_render_target *t, uint32_t w, uint32_t h, uint8_t *rgba,
                             sinew_render_view *view_out);

/* Pixel position of a world point (1 when in front of the camera). */
int demo_project(const float vp[16], sinew_vec3 p, uint32_t w, uint32_t h, double *px, double *py);

/* The comparison: columns LBS, DQS, DQS with scale (joint 1 scaled 1.35 across
 * the bone), DQS + bulge correction, CoR (optimized centers of rotation); row 0
 * twisted 180 degrees, row 1 bent 90. Tube k = row * DEMO_CMP_COLS + col lies along
 * x from (col * 1.25 - 3.0, row_y); its middle (the twisted/bent joint) is written
 * to mids[k] (2 * DEMO_CMP_COLS entries). */
#define DEMO_CMP_COLS 5
/* The colour and name of each column. */
extern const float demo_cmp_colors[DEMO_CMP_COLS][3];
extern const char *const demo_cmp_names[DEMO_CMP_COLS];

/* Draws text (stb_easy_font, dark on a light outline) into an RGBA image,
 * centered on x = cx, its top at y = top, scaled by an integer; up to 31
 * characters. Returns the glyph quads drawn (0: nothing). */
int demo_draw_label(uint8_t *rgba, uint32_t w, uint32_t h, double cx, double top, const char *text, int scale);
/* Labels count columns of a comparison picture: names[k] above world point
 * mids[k] (projected with view), e.g. the method names of demo_render_*_methods. */
void demo_label_columns(uint8_t *rgba, uint32_t w, uint32_t h, const sinew_render_view *view, const sinew_vec3 *mids, int count,
                        const char *const *names, int scale);

sinew_result demo_render_tube_methods(demo_gpu_scene *s, sinew_render_target *t, uint32_t w, uint32_t h,
                                      uint8_t *rgba, sinew_render_view *view_out, sinew_vec3 mids[2 * DEMO_CMP_COLS]);

/* The same comparison for the tube or the bar. */
sinew_result demo_render_shape_methods(demo_gpu_scene *s, scene_shape shape, sinew_render_target *t, uint32_t w,
                                       uint32_t h, uint8_t *rgba, sinew_render_view *view_out, sinew_vec3 mids[2 * DEMO_CMP_COLS]);

/* Which model a crowd frame uses (DEMO_MODEL_ASSET falls back to the tube without an asset). */
enum { DEMO_MODEL_TUBE = 0, DEMO_MODEL_ASSET = 1, DEMO_MODEL_BAR = 2 };

/* The small crowd model for `which` and its crowd model id. */
const demo_model *demo_scene_model(const demo_gpu_scene *s, int which, sinew_model_id *id);

/* A crowd frame of `count` characters of one model (use_asset: a DEMO_MODEL_*) at time `time`, methods
 * cycling LBS, DQS, DQS with scale; the characters' placement is left in dc
 * (free it with demo_crowd_free). */
sinew_result demo_render_crowd(demo_gpu_scene *s, int use_asset, uint32_t count, double time,
                               sinew_render_target *t, uint32_t w, uint32_t h, uint8_t *rgba,
                               sinew_render_view *view_out, demo_crowd *dc, double *char_height);

#endif
