/* sinew-viewer: a crowd skinned by Sinew and drawn straight from the skinned
 * output buffer. Windowed (GLFW, its own Vulkan instance/device/swapchain,
 * wrapped by sinew_gpu_create_external, with the ImGui control panel of
 * panel.cpp) or headless (offscreen PNGs).
 *
 *   sinew-viewer [--model FILE] [--count N] [--up x|y|z|a] [--screenshot FILE --frames N]
 *   sinew-viewer [--model FILE] --script FILE [--shot-dir DIR]   (panel settings + screenshots)
 *   sinew-viewer --headless DIR [--model FILE] [--count N]
 *   --gpu-time-check (windowed): after the run, compare the title's GPU skin time
 *   with the wall time of skin-only submissions of the same crowd (exit 1 if off).
 *
 * Keys: 1 LBS, 2 DQS, 3 DQS with scale, 4 DQS scale local, 5 mixed per character,
 *       B bulge correction on/off, I its inner push on/off, +/- (or Up/Down) crowd size x2 / /2,
 *       M switch model (tube / bar / corrected tube / imported), Space pause, R reset camera, Esc quit;
 *       crowd scene (--scene crowd): C path camera / free camera, Space pause;
 *       corrected tube: D corrective driver on/off, [ ] pick a target, J/K its weight -/+ 0.25
 *       (driver off), 0 all weights zero.
 * Mouse: left drag orbits, wheel zooms. */
#define _POSIX_C_SOURCE 200809L
#include <volk.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "demo_render.h"
#include "crowd_scene.h"
#include "panel.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_IMAGES 8
#define FRAMES 2

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* headless                                                                  */

static int write_png(const char *dir, const char *name, uint32_t w, uint32_t h, const uint8_t *rgba)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!stbi_write_png(path, (int)w, (int)h, 4, rgba, (int)w * 4)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 0;
    }
    printf("wrote %s\n", path);
    return 1;
}

#define VIEWER_UP_FROM_ASSET (-2) /* --up not given: demo_asset's choice (glTF: y) */

static int run_headless(const char *dir, const char *model, uint32_t count, int up)
{
    const uint32_t W = 1280, H = 720;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s\n", dir);
        return 1;
    }
    sinew_gpu_desc gd = {0};
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "no Vulkan device: %s\n", sinew_result_string(r));
        return 1;
    }
    printf("device: %s\n", sinew_gpu_info(gpu)->name);
    demo_gpu_scene s;
    char msg[256];
    r = demo_scene_create(gpu, count > 64 ? count : 64, NULL, SINEW_OUTPUT_FLOAT, model, &s, msg, sizeof msg);
    if (r != SINEW_OK) {
        fprintf(stderr, "scene: %s\n", sinew_result_string(r));
        sinew_gpu_destroy(gpu);
        return 1;
    }
    if (model && !s.has_asset) fprintf(stderr, "model %s not loaded (%s): tubes only\n", model, msg);
    if (s.has_asset && up != VIEWER_UP_FROM_ASSET) demo_model_set_up(&s.asset, up);
    if (s.has_asset)
        printf("model up axis: %c (%s)\n", "xyz"[s.asset.up_axis], up != VIEWER_UP_FROM_ASSET ? "--up" : "from the asset");
    sinew_render_target *t = NULL;
    uint8_t *img = malloc((size_t)W * H * 4);
    int ok = img && sinew_render_target_create(s.rnd, &(sinew_render_target_desc){ W, H, VK_NULL_HANDLE }, &t) == SINEW_OK;
    if (ok) {
        sinew_vec3 mids[2 * DEMO_CMP_COLS];
        sinew_render_view view;
        /* the method comparisons, each column labelled with its method */
        r = demo_render_tube_methods(&s, t, W, H, img, &view, mids);
        if (r == SINEW_OK) demo_label_columns(img, W, H, &view, mids, DEMO_CMP_COLS, demo_cmp_names, 2);
        ok = r == SINEW_OK && write_png(dir, "tube-methods.png", W, H, img);
        if (ok) {
            r = demo_render_shape_methods(&s, SCENE_SHAPE_BAR, t, W, H, img, &view, mids);
            if (r == SINEW_OK) demo_label_columns(img, W, H, &view, mids, DEMO_CMP_COLS, demo_cmp_names, 2);
            ok = r == SINEW_OK && write_png(dir, "bar-methods.png", W, H, img);
        }
        if (ok) {   /* the corrected tube: LBS, LBS + pose-space correctives, DQS (their target) */
            r = demo_scene_enable_psd(&s);
            if (r == SINEW_OK) r = demo_render_psd(&s, t, W, H, img, NULL);
            ok = r == SINEW_OK && write_png(dir, "tube-psd.png", W, H, img);
        }
        demo_crowd dc;
        memset(&dc, 0, sizeof dc);
        r = demo_render_crowd(&s, s.has_asset, count, 0.7, t, W, H, img, NULL, &dc, NULL);
        ok = ok && r == SINEW_OK && write_png(dir, "crowd.png", W, H, img);
        demo_crowd_free(&dc);
        if (s.has_asset) {
            r = demo_render_crowd(&s, 0, count, 0.7, t, W, H, img, NULL, &dc, NULL);
            ok = ok && r == SINEW_OK && write_png(dir, "crowd-tube.png", W, H, img);
            demo_crowd_free(&dc);
        }
        if (r != SINEW_OK) fprintf(stderr, "render: %s\n", sinew_result_string(r));
    }
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    sinew_render_target_destroy(t);
    free(img);
    demo_scene_destroy(&s);
    sinew_gpu_destroy(gpu);
    if (msgs) fprintf(stderr, "%u validation messages\n", msgs);
    return ok && msgs == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* the crowd scene (--scene crowd): samples/common/crowd_scene.c, the scene of  */
/* sinew-bench --scene crowd                                                    */

static const char *const CS_STAGES[PANEL_CROWD_STAGES] = { "sample/blend", "FK", "palette", "bounds", "upload",
                                                           "morph", "skin", "render" };

/* The per-stage breakdown of one frame, as sinew-bench --scene crowd computes it:
 * the CPU stages are each one's share of the crowd's wall time (cpu_ms x stage /
 * busy_ms), morph and skin the skinner's timestamps, render the pass's (< 0: n/a). */
static void cs_stages(const sinew_crowd_stats *st, double morph, double skin, double render, double out[PANEL_CROWD_STAGES])
{
    double share = st->busy_ms > 0 ? st->cpu_ms / st->busy_ms : 0;
    out[0] = st->sample_ms * share;
    out[1] = st->fk_ms * share;
    out[2] = st->palette_ms * share;
    out[3] = st->bounds_ms * share;
    out[4] = st->pack_ms * share;
    out[5] = morph;
    out[6] = skin;
    out[7] = render;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of n values (sorts them); 0 when n == 0. */
static double median(double *x, int n)
{
    if (n <= 0) return 0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}


/* One line naming the scene's models (for the panel). */
static void cs_model_names(const crowd_scene_model *ms, int nm, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "models:");
    for (int i = 0; i < nm && o < size; i++) o += (size_t)snprintf(buf + o, size - o, "%s %s", i ? "," : "", ms[i].m.name);
}

/* count capped as sinew-bench caps it: one skinner's output must fit
 * maxStorageBufferRange at 32 B per vertex (a note when it does not). */
static uint32_t cs_cap_count(sinew_gpu *gpu, const crowd_scene_model *ms, int nm, uint32_t count)
{
    uint64_t cap = sinew_gpu_properties(gpu)->limits.maxStorageBufferRange / 32u;
    uint32_t fit = crowd_scene_fit(ms, nm, count, cap);
    if (fit < count) {
        printf("note: %u characters capped to %u (the device cap: %llu output vertices, maxStorageBufferRange / 32 B)\n",
               count, fit ? fit : 1, (unsigned long long)cap);
        return fit ? fit : 1;
    }
    return count;
}

/* Headless: frames frames of the crowd scene drawn offscreen at 1280x720 (the
 * bench's render stage), a line per frame with the counts and the stages, the
 * medians after two warm-up frames, the last frame as a PNG. Checks per frame:
 * visible + culled = characters, the instances drawn = the visible characters,
 * every hidden character skipped by the crowd, every stage figure finite and
 * >= 0, and the root motion check (crowd_scene_check). Exit 1 on any failure. */
static int run_crowd_headless(const char *dir, uint32_t count, int frames, const char *shot, const char *state_path)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s\n", dir);
        return 1;
    }
    if (frames < 1) frames = 10;
    crowd_scene_model ms[CROWD_SCENE_MAX_MODELS];
    double size = 0;
    sinew_gpu *gpu = NULL;
    int nm = crowd_scene_open("--scene crowd", ms, &size, &gpu);
    if (nm == 0) return 1;
    sinew_result r = SINEW_OK;
    printf("device: %s\n", sinew_gpu_info(gpu)->name);
    count = cs_cap_count(gpu, ms, nm, count);
    const uint32_t W = CROWD_SCENE_RENDER_W, H = CROWD_SCENE_RENDER_H;
    crowd_scene sc;
    sinew_error_info err;
    memset(&err, 0, sizeof err);
    sinew_render_target *target = NULL;
    sinew_renderer_desc rd = {0};
    r = crowd_scene_init(&sc, ms, nm, size, count, 1);
    if (r == SINEW_OK) r = crowd_scene_pipeline(&sc, gpu, &rd, &err);
    if (r == SINEW_OK) r = sinew_render_target_create(sc.rnd, &(sinew_render_target_desc){ W, H, VK_NULL_HANDLE }, &target);
    double *ser = calloc((size_t)frames * (PANEL_CROWD_STAGES + 3), sizeof *ser);
    uint8_t *img = malloc((size_t)W * H * 4);
    if (r == SINEW_OK && (!ser || !img)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    int ok = r == SINEW_OK, n = 0;
    if (!ok) fprintf(stderr, "crowd scene: %s %s\n", sinew_result_string(r), err.message);
    else
        printf("crowd scene: %u characters of %d model(s) on a plaza of %.1f x %.1f units, time step %.4f s per frame, "
               "%d frames drawn offscreen at %ux%u\n", count, nm, 2 * sc.extent, 2 * sc.extent, CROWD_SCENE_DT, frames, W, H);
    if (ok)
        printf("%5s %7s %6s %6s %5s %5s %5s %6s %12s | %12s %8s %8s %8s %8s %8s %8s %8s | %10s %8s %9s\n", "frame",
               "visible", "culled", "drawn", "near", "mid", "far", "interp", "skinned_vtx", CS_STAGES[0], CS_STAGES[1],
               CS_STAGES[2], CS_STAGES[3], CS_STAGES[4], CS_STAGES[5], CS_STAGES[6], CS_STAGES[7], "prepare_ms", "gpu_ms",
               "frame_ms");
    for (int f = 0; ok && f < frames; f++) {
        double f0 = now_s();
        crowd_scene_logic(&sc, (uint32_t)f);
        crowd_scene_cull(&sc, (uint32_t)f);
        sinew_crowd_stats st;
        memset(&st, 0, sizeof st);
        double g = 0, morph = 0, skin = 0, rms = -1;
        r = sinew_crowd_update(sc.crowd, sc.chars, count, &st, &err);
        uint32_t nd = r == SINEW_OK ? crowd_scene_draw_list(&sc) : 0;
        sinew_render_view view;
        crowd_scene_view(&sc, &sc.cam, W, H, &view);
        if (r == SINEW_OK) r = sinew_renderer_render(sc.rnd, target, &view, sc.drawn, nd, NULL, false);
        if (r == SINEW_OK) r = sinew_skinner_wait(sc.sk);
        if (r == SINEW_OK) r = sinew_renderer_gpu_time(sc.rnd, &rms);
        if (r == SINEW_OK) r = sinew_skinner_gpu_time(sc.sk, &g);
        if (r == SINEW_OK) r = sinew_skinner_gpu_stage_times(sc.sk, &morph, &skin);
        double f1 = now_s();
        if (r == SINEW_OK) r = crowd_scene_check(&sc, &err);
        if (r != SINEW_OK) {
            fprintf(stderr, "frame %d: %s %s\n", f, sinew_result_string(r), err.message);
            ok = 0;
            break;
        }
        double stage[PANEL_CROWD_STAGES];
        cs_stages(&st, morph, skin, rms, stage);
        printf("%5d %7u %6u %6u %5u %5u %5u %6u %12u | %12.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f | %10.3f %8.3f %9.3f\n",
               f, sc.visible, sc.culled, nd, sc.band[0], sc.band[1], sc.band[2], st.interpolated, st.output_vertices,
               stage[0], stage[1], stage[2], stage[3], stage[4], stage[5], stage[6], stage[7], st.cpu_ms, g, (f1 - f0) * 1e3);
        /* the scene's own culling against what the crowd skipped and what was drawn */
        uint32_t hidden = 0;
        for (uint32_t i = 0; i < count; i++) hidden += sc.chars[i].hidden;
        if (sc.visible + sc.culled != count || hidden != sc.culled || nd != sc.visible || st.skipped < sc.culled ||
            sc.band[0] + sc.band[1] + sc.band[2] != count || !sc.expect_ok) {
            fprintf(stderr, "frame %d: counts inconsistent (visible %u culled %u hidden %u drawn %u skipped %u bands %u+%u+%u, "
                            "%u characters)\n", f, sc.visible, sc.culled, hidden, nd, st.skipped, sc.band[0], sc.band[1],
                    sc.band[2], count);
            ok = 0;
        }
        for (int k = 0; k < PANEL_CROWD_STAGES; k++)
            if (!(stage[k] >= 0) || !isfinite(stage[k])) {
                fprintf(stderr, "frame %d: stage %s = %g (not a finite figure >= 0)\n", f, CS_STAGES[k], stage[k]);
                ok = 0;
            }
        if (f >= 2 || frames <= 2) {
            for (int k = 0; k < PANEL_CROWD_STAGES; k++) ser[(size_t)k * frames + n] = stage[k];
            ser[(size_t)PANEL_CROWD_STAGES * frames + n] = st.cpu_ms;
            ser[(size_t)(PANEL_CROWD_STAGES + 1) * frames + n] = g;
            ser[(size_t)(PANEL_CROWD_STAGES + 2) * frames + n] = (f1 - f0) * 1e3;
            n++;
        }
    }
    if (ok) {
        printf("medians of %d frame(s)%s, ms:", n, frames > 2 ? " after 2 warm-up frames" : "");
        for (int k = 0; k < PANEL_CROWD_STAGES + 3; k++)
            printf(" %s %.3f", k < PANEL_CROWD_STAGES ? CS_STAGES[k] : k == PANEL_CROWD_STAGES ? "prepare" : k == PANEL_CROWD_STAGES + 1 ? "gpu" : "frame",
                   median(ser + (size_t)k * frames, n));
        printf("\n");
        printf("root motion check: %u moved by the crowd, %.0f character-frames, max error %.2e x (1 + |t|) (tolerance %.0e), "
               "%u plaza wraps: %s\n", sc.crowd_moved, sc.rm_checked, sc.rm_max_err, CROWD_SCENE_RM_TOL, sc.rm_wraps,
               sc.rm_max_err <= CROWD_SCENE_RM_TOL ? "ok" : "FAILED");
        if (!(sc.rm_max_err <= CROWD_SCENE_RM_TOL)) ok = 0;
        printf("crowd scene: last frame %d: %u visible, %u culled (frustum, path camera), LOD bands near %u middle %u far %u\n",
               frames - 1, sc.visible, sc.culled, sc.band[0], sc.band[1], sc.band[2]);
    }
    if (ok && state_path) {
        if (crowd_scene_write_state(&sc, state_path)) printf("wrote %s\n", state_path);
        else ok = 0;
    }
    if (ok) {
        ok = sinew_render_target_read(target, img) == SINEW_OK;
        for (size_t i = 3; ok && i < (size_t)W * H * 4; i += 4) img[i] = 255;
        if (ok && shot) {
            ok = stbi_write_png(shot, (int)W, (int)H, 4, img, (int)W * 4) != 0;
            printf(ok ? "wrote %s\n" : "cannot write %s\n", shot);
        } else if (ok) {
            ok = write_png(dir, "crowd-scene.png", W, H, img);
        }
    }
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    sinew_render_target_destroy(target);
    crowd_scene_destroy(&sc);
    free(ser);
    free(img);
    sinew_gpu_destroy(gpu);
    crowd_scene_free_models(ms, nm);
    if (msgs) fprintf(stderr, "%u validation messages\n", msgs);
    return ok && msgs == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* windowed                                                                  */

typedef struct viewer {
    GLFWwindow *win;
    VkInstance inst;
    VkDebugUtilsMessengerEXT unused;
    VkSurfaceKHR surf;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t qf;
    VkSwapchainKHR sc;
    VkFormat fmt;
    VkExtent2D ext;
    uint32_t nimg;
    VkImage imgs[MAX_IMAGES];
    VkImageView views[MAX_IMAGES];
    sinew_render_target *targets[MAX_IMAGES];
    VkSemaphore done[MAX_IMAGES];
    VkCommandPool pool;
    VkCommandBuffer cmd[FRAMES];
    VkFence fence[FRAMES];
    VkSemaphore acq[FRAMES];
    int validation;

    sinew_gpu *gpu;
    demo_gpu_scene s;
    demo_crowd dc;
    /* the control panel and the lab state it edits */
    viewer_panel *panel;
    panel_state ps;
    sinew_transform manual[3];       /* tube/bar pose from the bend/twist sliders */
    struct variant { int scene; float alpha; demo_model m; sinew_model_id id; } var[DEMO_SCENE_SPARE_MESHES];
    int nvar;
    sinew_model_id cur_id;
    const demo_model *cur;           /* the model the crowd shows */
    /* CPU mirror of character 0 (quality figures, weight overlay) */
    double *cpu_pos, *cpu_nrm;
    uint32_t cpu_cap;
    float *ov_xy;
    uint32_t *ov_rgba, *ov_idx;
    /* script (--script): lines applied one by one, 'shot NAME' takes a screenshot */
    char **script;
    int script_n, script_i;
    const char *shot_dir;
    float cur_alpha;
    int cur_aw;
    int use_asset, method, bulge, paused, dirty, resized;
    uint32_t count;
    double t;
    /* camera */
    float yaw, pitch, dist, target[3];
    double mx, my;
    int dragging;
    char status[160];
    /* the corrected tube (PANEL_SCENE_PSD): per character its weights and the mesh to skin */
    float psd_w[DEMO_PSD_SLOTS][PSD_EXAMPLES];
    sinew_mesh_id psd_mesh[DEMO_PSD_SLOTS];
    int psd_sel;
    /* character 0's middle and end rings on screen (tube, bar, corrected tube; script sidecars) */
    int marks_valid;
    double mark_px[3][2];
    /* the crowd scene (--scene crowd): its own skinner, crowd and renderer, a
     * target per swapchain image; the frame counter steps one CROWD_SCENE_DT a frame */
    int crowd_mode;
    crowd_scene cs;
    crowd_scene_model cs_models[CROWD_SCENE_MAX_MODELS];
    int cs_nm;
    sinew_render_target *cs_targets[MAX_IMAGES];
    uint32_t cs_frame, cs_drawn;
    char cs_names[256];
    /* its render stage in the window: two timestamps around the pass per frame in flight */
    VkQueryPool cs_queries;
    uint64_t cs_ts_mask;
    double cs_ts_period, cs_render_ms;
    int cs_ts_written[FRAMES];
} viewer;

/* Skin flags of the viewer's bulge setting (0 off, 1 bulge correction, 2 with its inner push). */
static uint32_t bulge_flags(int bulge)
{
    return bulge ? SINEW_SKIN_BULGE_CORRECTION | (bulge == 2 ? SINEW_SKIN_BULGE_INNER : 0u) : 0u;
}

/* The model the settings ask for: the scene's own, or a variant (another alpha for
 * the tube/bar, automatic weights for the imported model), built on first use. */
static const demo_model *select_model(viewer *v, sinew_model_id *id)
{
    int scene = v->use_asset == DEMO_MODEL_ASSET && !v->s.has_asset ? DEMO_MODEL_TUBE : v->use_asset;
    float a = roundf(v->ps.alpha * 4.0f) / 4.0f;
    if (a < 0.25f) a = 0.25f;
    v->cur_alpha = a;
    v->cur_aw = v->ps.auto_weights;
    if (scene == PANEL_SCENE_PSD) return demo_scene_model(&v->s, DEMO_MODEL_TUBE, id); /* correctives made for alpha 2 */
    if (scene == DEMO_MODEL_ASSET ? !v->ps.auto_weights : a == 2.0f) return demo_scene_model(&v->s, scene, id);
    for (int i = 0; i < v->nvar; i++)
        if (v->var[i].scene == scene && v->var[i].alpha == a) {
            *id = v->var[i].id;
            return &v->var[i].m;
        }
    if (v->nvar < DEMO_SCENE_SPARE_MESHES) {
        struct variant *nv = &v->var[v->nvar];
        sinew_result r = scene == DEMO_MODEL_ASSET ? demo_model_auto_weights(&v->s.asset, a, &nv->m)
                         : demo_shape_alpha(24, 16, scene == DEMO_MODEL_BAR ? SCENE_SHAPE_BAR : SCENE_SHAPE_TUBE, a, &nv->m);
        if (r == SINEW_OK) r = demo_scene_add_variant(&v->s, &nv->m, &nv->id);
        if (r == SINEW_OK) {
            nv->scene = scene;
            nv->alpha = a;
            v->nvar++;
            *id = nv->id;
            return &nv->m;
        }
        demo_model_free(&nv->m);
        snprintf(v->ps.info, sizeof v->ps.info, "alpha %.2f: %s", a, sinew_result_string(r));
    } else {
        snprintf(v->ps.info, sizeof v->ps.info, "variant room used up: alpha %.2f not built", a);
    }
    return demo_scene_model(&v->s, scene, id);
}

static void fit_camera(viewer *v)
{
    const demo_model *m = v->cur ? v->cur : demo_scene_model(&v->s, v->use_asset, NULL);
    v->yaw = 0.35f;
    v->pitch = 0.42f;
    v->dist = (float)(2.4 * v->dc.extent + 3.0 * m->height);
    v->target[0] = 0;
    v->target[1] = (float)(0.4 * m->height);
    v->target[2] = 0;
}

static uint32_t max_count(const viewer *v)
{
    const demo_model *m = v->cur ? v->cur : demo_scene_model(&v->s, v->use_asset, NULL);
    uint32_t cap = (v->s.max_output_vertices - v->s.tube_fine.vertex_count * 8u) / m->vertex_count;
    if (v->use_asset == PANEL_SCENE_PSD && cap > DEMO_PSD_SLOTS) cap = DEMO_PSD_SLOTS; /* one morphed copy each */
    return cap < v->s.max_characters ? cap : v->s.max_characters;
}

static void rebuild_crowd(viewer *v)
{
    demo_crowd_free(&v->dc);
    if (v->use_asset == PANEL_SCENE_PSD) {
        sinew_result pr = demo_scene_enable_psd(&v->s);
        if (pr != SINEW_OK) {
            snprintf(v->ps.info, sizeof v->ps.info, "corrected tube: %s", sinew_result_string(pr));
            v->use_asset = DEMO_MODEL_TUBE;
        }
    }
    sinew_model_id id;
    const demo_model *m = select_model(v, &id);
    v->cur = m;
    v->cur_id = id;
    if (v->count > max_count(v)) v->count = max_count(v);
    if (v->count < 1) v->count = 1;
    if (demo_crowd_setup(&v->dc, m, id, v->count, v->method, bulge_flags(v->bulge)) != SINEW_OK) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    fit_camera(v);
    v->dirty = 0;
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    if (panel_wants_keyboard(v->panel)) return;
    switch (key) {
    case GLFW_KEY_ESCAPE: case GLFW_KEY_Q: glfwSetWindowShouldClose(w, 1); break;
    case GLFW_KEY_1: v->method = SINEW_METHOD_LBS; break;
    case GLFW_KEY_2: v->method = SINEW_METHOD_DQS; break;
    case GLFW_KEY_3: v->method = SINEW_METHOD_DQS_SCALE; break;
    case GLFW_KEY_4: v->method = SINEW_METHOD_DQS_SCALE_LOCAL; break;
    case GLFW_KEY_5: v->method = -1; break;
    case GLFW_KEY_6: v->method = SINEW_METHOD_COR; break;
    case GLFW_KEY_7: v->method = SINEW_METHOD_COR_SCALE; break;
    case GLFW_KEY_8: v->method = SINEW_METHOD_COR_SCALE_LOCAL; break;
    case GLFW_KEY_9: v->method = SINEW_METHOD_COR_SCALE_MIXED; break;
    case GLFW_KEY_B: v->bulge = !v->bulge; break;
    case GLFW_KEY_I: v->bulge = v->bulge == 2 ? 1 : 2; break;   /* the inner push (turns bulge on) */
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD: case GLFW_KEY_UP:
        if (v->count < max_count(v)) { v->count *= 2; v->dirty = 1; }
        break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT: case GLFW_KEY_DOWN:
        if (v->count > 1) { v->count /= 2; v->dirty = 1; }
        break;
    case GLFW_KEY_M:   /* tube -> bar -> corrected tube -> imported model -> tube */
        v->use_asset = v->use_asset == DEMO_MODEL_TUBE  ? DEMO_MODEL_BAR
                       : v->use_asset == DEMO_MODEL_BAR ? PANEL_SCENE_PSD
                       : v->use_asset == PANEL_SCENE_PSD && v->s.has_asset ? DEMO_MODEL_ASSET : DEMO_MODEL_TUBE;
        v->dirty = 1;
        break;
    case GLFW_KEY_D: v->ps.psd_driver = !v->ps.psd_driver; break;
    case GLFW_KEY_0:
        memset(v->ps.morph_w, 0, sizeof v->ps.morph_w);
        v->ps.psd_driver = 0;
        break;
    case GLFW_KEY_LEFT_BRACKET: v->psd_sel = (v->psd_sel + PSD_EXAMPLES - 1) % PSD_EXAMPLES; break;
    case GLFW_KEY_RIGHT_BRACKET: v->psd_sel = (v->psd_sel + 1) % PSD_EXAMPLES; break;
    case GLFW_KEY_J: case GLFW_KEY_K:
        v->ps.psd_driver = 0;
        v->ps.morph_w[v->psd_sel] += key == GLFW_KEY_K ? 0.25f : -0.25f;
        snprintf(v->ps.info, sizeof v->ps.info, "weight of target %d: %.2f", v->psd_sel, v->ps.morph_w[v->psd_sel]);
        break;
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_C: v->ps.path_camera = !v->ps.path_camera; break;   /* crowd scene: path / free camera */
    case GLFW_KEY_R: fit_camera(v); break;
    default: return;
    }
    demo_crowd_set_method(&v->dc, v->method, bulge_flags(v->bulge));
}

static void on_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (action == GLFW_PRESS && panel_wants_mouse(v->panel)) return;
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        v->dragging = action == GLFW_PRESS;
        glfwGetCursorPos(w, &v->mx, &v->my);
    }
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (v->dragging) {
        v->yaw -= (float)(x - v->mx) * 0.008f;
        v->pitch += (float)(y - v->my) * 0.008f;
        if (v->pitch < -0.1f) v->pitch = -0.1f;
        if (v->pitch > 1.5f) v->pitch = 1.5f;
    }
    v->mx = x;
    v->my = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    viewer *v = (viewer *)glfwGetWindowUserPointer(w);
    if (panel_wants_mouse(v->panel)) return;
    v->dist *= (float)pow(0.9, dy);
    if (v->dist < 0.2f) v->dist = 0.2f;
}

static void on_resize(GLFWwindow *w, int width, int height)
{
    (void)width;
    (void)height;
    ((viewer *)glfwGetWindowUserPointer(w))->resized = 1;
}

#define VKCHECK(x) do { VkResult vr_ = (x); if (vr_ != VK_SUCCESS) { fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)vr_); exit(1); } } while (0)

static void destroy_swapchain(viewer *v)
{
    for (uint32_t i = 0; i < v->nimg; i++) {
        sinew_render_target_destroy(v->targets[i]);
        sinew_render_target_destroy(v->cs_targets[i]);
        v->cs_targets[i] = NULL;
        vkDestroyImageView(v->dev, v->views[i], NULL);
        vkDestroySemaphore(v->dev, v->done[i], NULL);
        v->targets[i] = NULL;
    }
    if (v->sc) vkDestroySwapchainKHR(v->dev, v->sc, NULL);
    v->sc = VK_NULL_HANDLE;
    v->nimg = 0;
}

static void create_swapchain(viewer *v)
{
    VkSurfaceCapabilitiesKHR caps;
    VKCHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v->phys, v->surf, &caps));
    int fw, fh;
    glfwGetFramebufferSize(v->win, &fw, &fh);
    while (fw == 0 || fh == 0) { /* minimized */
        glfwWaitEvents();
        glfwGetFramebufferSize(v->win, &fw, &fh);
    }
    VkExtent2D ext = caps.currentExtent;
    if (ext.width == UINT32_MAX) {
        ext.width = (uint32_t)fw;
        ext.height = (uint32_t)fh;
    }
    uint32_t n = caps.minImageCount + 1;
    if (caps.maxImageCount && n > caps.maxImageCount) n = caps.maxImageCount;
    if (n > MAX_IMAGES) n = MAX_IMAGES;
    VkSwapchainCreateInfoKHR ci = { VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR };
    ci.surface = v->surf;
    ci.minImageCount = n;
    ci.imageFormat = v->fmt;
    ci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    ci.imageExtent = ext;
    ci.imageArrayLayers = 1;
    ci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                    (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    ci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.preTransform = caps.currentTransform;
    ci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    ci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    ci.clipped = VK_TRUE;
    VKCHECK(vkCreateSwapchainKHR(v->dev, &ci, NULL, &v->sc));
    v->ext = ext;
    VKCHECK(vkGetSwapchainImagesKHR(v->dev, v->sc, &v->nimg, NULL));
    if (v->nimg > MAX_IMAGES) v->nimg = MAX_IMAGES;
    VKCHECK(vkGetSwapchainImagesKHR(v->dev, v->sc, &v->nimg, v->imgs));
    for (uint32_t i = 0; i < v->nimg; i++) {
        VkImageViewCreateInfo vci = { VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
        vci.image = v->imgs[i];
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = v->fmt;
        vci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        vci.subresourceRange.levelCount = 1;
        vci.subresourceRange.layerCount = 1;
        VKCHECK(vkCreateImageView(v->dev, &vci, NULL, &v->views[i]));
        VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
        VKCHECK(vkCreateSemaphore(v->dev, &sci, NULL, &v->done[i]));
        sinew_result r = sinew_render_target_create(v->s.rnd, &(sinew_render_target_desc){ ext.width, ext.height, v->views[i] }, &v->targets[i]);
        if (r == SINEW_OK && v->crowd_mode)
            r = sinew_render_target_create(v->cs.rnd, &(sinew_render_target_desc){ ext.width, ext.height, v->views[i] },
                                           &v->cs_targets[i]);
        if (r != SINEW_OK) {
            fprintf(stderr, "render target: %s\n", sinew_result_string(r));
            exit(1);
        }
    }
}

static void recreate_swapchain(viewer *v)
{
    vkDeviceWaitIdle(v->dev);
    destroy_swapchain(v);
    create_swapchain(v);
    if (v->panel && panel_set_targets(v->panel, v->views, v->nimg, v->ext) != 0) {
        fprintf(stderr, "panel: framebuffers failed\n");
        exit(1);
    }
    v->resized = 0;
}

static int has_layer(const char *name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *p = calloc(n ? n : 1, sizeof *p);
    vkEnumerateInstanceLayerProperties(&n, p);
    int found = 0;
    for (uint32_t i = 0; i < n; i++) found |= !strcmp(p[i].layerName, name);
    free(p);
    return found;
}

static void init_vulkan(viewer *v)
{
    VKCHECK(volkInitialize());
    uint32_t next = 0;
    const char **glfw_ext = glfwGetRequiredInstanceExtensions(&next);
    if (!glfw_ext) {
        fprintf(stderr, "GLFW: no Vulkan surface support\n");
        exit(1);
    }
    const char *exts[16];
    uint32_t ne = 0;
    for (uint32_t i = 0; i < next && ne < 15; i++) exts[ne++] = glfw_ext[i];
    const char *env = getenv("SINEW_VALIDATION");
    v->validation = env && *env == '1' && has_layer("VK_LAYER_KHRONOS_validation");
    const char *layer = "VK_LAYER_KHRONOS_validation";
    if (v->validation) exts[ne++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkApplicationInfo ai = { VK_STRUCTURE_TYPE_APPLICATION_INFO };
    ai.pApplicationName = "sinew-viewer";
    ai.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
    ici.pApplicationInfo = &ai;
    ici.enabledExtensionCount = ne;
    ici.ppEnabledExtensionNames = exts;
    ici.enabledLayerCount = v->validation ? 1 : 0;
    ici.ppEnabledLayerNames = &layer;
    VKCHECK(vkCreateInstance(&ici, NULL, &v->inst));
    volkLoadInstance(v->inst);
    VKCHECK(glfwCreateWindowSurface(v->inst, v->win, NULL, &v->surf));

    uint32_t np = 0;
    VKCHECK(vkEnumeratePhysicalDevices(v->inst, &np, NULL));
    VkPhysicalDevice pds[16];
    if (np > 16) np = 16;
    VKCHECK(vkEnumeratePhysicalDevices(v->inst, &np, pds));
    int best = -1, best_rank = -1;
    uint32_t best_qf = 0;
    for (uint32_t i = 0; i < np; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (p.apiVersion < VK_API_VERSION_1_1) continue;
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nq, NULL);
        VkQueueFamilyProperties qp[16];
        if (nq > 16) nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &nq, qp);
        for (uint32_t q = 0; q < nq; q++) {
            VkBool32 present = VK_FALSE;
            vkGetPhysicalDeviceSurfaceSupportKHR(pds[i], q, v->surf, &present);
            VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if (!present || (qp[q].queueFlags & need) != need) continue;
            int rank = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 4
                     : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 3
                     : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU ? 2 : 1;
            if (rank > best_rank) {
                best = (int)i;
                best_rank = rank;
                best_qf = q;
            }
            break;
        }
    }
    if (best < 0) {
        fprintf(stderr, "no Vulkan device can present to this window\n");
        exit(1);
    }
    v->phys = pds[best];
    v->qf = best_qf;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
    qci.queueFamilyIndex = v->qf;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    const char *dext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = &dext;
    VKCHECK(vkCreateDevice(v->phys, &dci, NULL, &v->dev));
    volkLoadDevice(v->dev);
    vkGetDeviceQueue(v->dev, v->qf, 0, &v->queue);

    uint32_t nf = 0;
    VKCHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surf, &nf, NULL));
    VkSurfaceFormatKHR sf[64];
    if (nf > 64) nf = 64;
    VKCHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(v->phys, v->surf, &nf, sf));
    v->fmt = sf[0].format;
    for (uint32_t i = 0; i < nf; i++)
        if ((sf[i].format == VK_FORMAT_B8G8R8A8_UNORM || sf[i].format == VK_FORMAT_R8G8B8A8_UNORM) &&
            sf[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            v->fmt = sf[i].format;
            break;
        }

    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = v->qf;
    VKCHECK(vkCreateCommandPool(v->dev, &pci, NULL, &v->pool));
    VkCommandBufferAllocateInfo cai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
    cai.commandPool = v->pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = FRAMES;
    VKCHECK(vkAllocateCommandBuffers(v->dev, &cai, v->cmd));
    for (int i = 0; i < FRAMES; i++) {
        VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        VKCHECK(vkCreateFence(v->dev, &fci, NULL, &v->fence[i]));
        VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
        VKCHECK(vkCreateSemaphore(v->dev, &sci, NULL, &v->acq[i]));
    }
}

/* Host-visible buffer for the screenshot. */
static void make_readback(viewer *v, VkDeviceSize size, VkBuffer *buf, VkDeviceMemory *mem, void **map)
{
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
    bci.size = size;
    bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VKCHECK(vkCreateBuffer(v->dev, &bci, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(v->dev, *buf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(v->phys, &mp);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "no host-visible memory\n");
        exit(1);
    }
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = type;
    VKCHECK(vkAllocateMemory(v->dev, &mai, NULL, mem));
    VKCHECK(vkBindBufferMemory(v->dev, *buf, *mem, 0));
    VKCHECK(vkMapMemory(v->dev, *mem, 0, VK_WHOLE_SIZE, 0, map));
}

static void image_barrier(VkCommandBuffer cmd, VkImage img, VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                          VkAccessFlags dst, VkPipelineStageFlags s0, VkPipelineStageFlags s1)
{
    VkImageMemoryBarrier b = { VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
    b.srcAccessMask = src;
    b.dstAccessMask = dst;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    vkCmdPipelineBarrier(cmd, s0, s1, 0, 0, NULL, 0, NULL, 1, &b);
}

static const char *method_label(int m, int bulge)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "%s%s", m < 0 ? "mixed lbs/dqs/dqs-scale" : sinew_method_name((sinew_method)m),
             bulge == 2 ? " + bulge + inner" : bulge ? " + bulge" : "");
    return buf;
}

/* ---- the lab: panel state, character 0 on the CPU, scripts ---- */

/* Replaces the scene by one with the model file at path (the tube and bar stay):
 * everything on the GPU is rebuilt on the same device. 0 when the file loaded. */
static int reload_scene(viewer *v, const char *path)
{
    char msg[256] = "";
    vkDeviceWaitIdle(v->dev);
    demo_crowd_free(&v->dc);
    for (int i = 0; i < v->nvar; i++) demo_model_free(&v->var[i].m);
    v->nvar = 0;
    v->cur = NULL;
    for (uint32_t i = 0; i < v->nimg; i++) {   /* the targets belong to the renderer */
        sinew_render_target_destroy(v->targets[i]);
        v->targets[i] = NULL;
    }
    demo_scene_destroy(&v->s);
    sinew_renderer_desc rd = {0};
    rd.color_format = v->fmt;
    rd.final_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    sinew_result r = demo_scene_create(v->gpu, 16384, &rd, SINEW_OUTPUT_FLOAT, path, &v->s, msg, sizeof msg);
    if (r != SINEW_OK) {
        fprintf(stderr, "scene: %s\n", sinew_result_string(r));
        exit(1);
    }
    for (uint32_t i = 0; i < v->nimg; i++)
        if (sinew_render_target_create(v->s.rnd, &(sinew_render_target_desc){ v->ext.width, v->ext.height, v->views[i] },
                                       &v->targets[i]) != SINEW_OK) {
            fprintf(stderr, "render target failed\n");
            exit(1);
        }
    if (v->s.has_asset) {
        snprintf(v->ps.info, sizeof v->ps.info, "loaded %.200s", path);
        v->use_asset = DEMO_MODEL_ASSET;
    } else {
        snprintf(v->ps.info, sizeof v->ps.info, "%.120s not loaded: %.120s", path, msg);
        if (v->use_asset == DEMO_MODEL_ASSET) v->use_asset = DEMO_MODEL_TUBE;
    }
    v->ps.scene = v->use_asset;
    v->ps.weight_joint = 0;
    v->ps.clip = 0;
    v->t = 0;
    rebuild_crowd(v);
    return v->s.has_asset ? 0 : 1;
}

/* Viewer -> panel (so keys show in the panel). */
static void sync_to_panel(viewer *v)
{
    panel_state *p = &v->ps;
    p->scene = v->use_asset;
    p->method = v->method;
    p->bulge = v->bulge;
    p->count = (int)v->count;
    p->paused = v->paused;
    p->time = v->t;
    p->has_model = v->s.has_asset;
    p->max_count = (int)max_count(v);
    p->joint_count = (int)sinew_skeleton_joint_count(v->cur->skel);
    p->duration = 0.0;
    p->clip_count = 0;
    if (v->cur->clip && v->dc.count) {
        const sinew_clip *c = v->dc.chars[0].clip;
        p->duration = c ? sinew_clip_duration(c) : v->cur->clip_duration;
#ifdef DEMO_WITH_ASSET
        const sinew_asset *a = (const sinew_asset *)v->s.asset.asset;
        if (a) {
            p->clip_count = (int)sinew_asset_clip_count(a);
            for (int i = 0; i < p->clip_count && i < 16; i++) p->clip_names[i] = sinew_clip_name(sinew_asset_clip(a, (uint32_t)i));
        }
#endif
    }
    if (p->weight_joint >= p->joint_count) p->weight_joint = p->joint_count - 1;
    p->morph_count = 0;
    if (v->use_asset == PANEL_SCENE_PSD && v->s.morpher) {
        p->morph_count = PSD_EXAMPLES < PANEL_MAX_MORPHS ? PSD_EXAMPLES : PANEL_MAX_MORPHS;
        for (int k = 0; k < p->morph_count; k++) p->morph_names[k] = v->s.psd_small.names[k];
    }
}

/* Panel -> viewer; marks the crowd for a rebuild when the model or the size changed. */
static void sync_from_panel(viewer *v)
{
    panel_state *p = &v->ps;
    float a = roundf(p->alpha * 4.0f) / 4.0f;
    if (a < 0.25f) a = 0.25f;
    if (p->scene != v->use_asset || p->count != (int)v->count || a != v->cur_alpha || p->auto_weights != v->cur_aw) v->dirty = 1;
    v->use_asset = p->scene;
    v->count = p->count < 1 ? 1 : (uint32_t)p->count;
    v->method = p->method;
    v->bulge = p->bulge;
    v->paused = p->paused;
    v->t = p->time;
    demo_crowd_set_method(&v->dc, v->method, bulge_flags(v->bulge));
    /* p->load_model is handled at the top of the next frame (nothing of this one in use) */
}

/* Tube/bar characters take the sliders' pose when asked; the model's characters
 * play the clip chosen in the panel. */
static void apply_manual_pose(viewer *v)
{
#ifdef DEMO_WITH_ASSET
    const sinew_asset *a = (const sinew_asset *)v->s.asset.asset;
    if (v->cur->clip && a && v->ps.clip >= 0 && (uint32_t)v->ps.clip < sinew_asset_clip_count(a))
        for (uint32_t i = 0; i < v->dc.count; i++) v->dc.chars[i].clip = sinew_asset_clip(a, (uint32_t)v->ps.clip);
#endif
    int manual = !v->cur->clip && v->ps.manual_pose;
    if (manual) scene_tube_pose(v->ps.bend_deg * M_PI / 180.0, v->ps.twist_deg * M_PI / 180.0, NULL, v->manual);
    for (uint32_t i = 0; i < v->dc.count; i++) v->dc.chars[i].pose = manual ? v->manual : NULL;
}

/* The corrected tube: each character's corrective weights (the RBF driver at its
 * pose, or the sliders), the morph frame, and the meshes its instance skins (the
 * plain tube when all weights are zero). Before sinew_crowd_prepare. */
static void apply_morphs(viewer *v)
{
    for (uint32_t i = 0; i < v->dc.count; i++) v->dc.chars[i].meshes = NULL;
    if (v->use_asset != PANEL_SCENE_PSD || !v->s.morpher) return;
    sinew_morph_item items[DEMO_PSD_SLOTS];
    uint32_t n = v->dc.count < DEMO_PSD_SLOTS ? v->dc.count : DEMO_PSD_SLOTS;
    for (uint32_t i = 0; i < n; i++) {
        sinew_crowd_character *ch = &v->dc.chars[i];
        if (v->ps.psd_driver) {
            sinew_transform local[3];
            if (ch->pose) memcpy(local, ch->pose, sizeof local);
            else demo_tube_motion(ch->sample_user, v->cur->skel, i, ch->time, local);
            if (scene_psd_weights(&v->s.psd_small, local, v->psd_w[i]) != SINEW_OK)
                memset(v->psd_w[i], 0, sizeof v->psd_w[i]);
        } else {
            for (int k = 0; k < PSD_EXAMPLES; k++) v->psd_w[i][k] = k < PANEL_MAX_MORPHS ? v->ps.morph_w[k] : 0.0f;
        }
        items[i].slot = v->s.psd_slots[i];
        items[i].weights = v->psd_w[i];
        items[i].weight_count = PSD_EXAMPLES;
    }
    if (v->ps.psd_driver && n)
        for (int k = 0; k < PSD_EXAMPLES && k < PANEL_MAX_MORPHS; k++) v->ps.morph_w[k] = v->psd_w[0][k];
    sinew_morph_error err;
    sinew_result r = sinew_morpher_set_frame(v->s.morpher, items, n, v->psd_mesh, &err);
    if (r != SINEW_OK) {
        snprintf(v->ps.info, sizeof v->ps.info, "morph weights refused: %.160s", err.message);
        sinew_morpher_set_frame(v->s.morpher, NULL, 0, NULL, NULL);
        return;
    }
    for (uint32_t i = 0; i < n; i++) v->dc.chars[i].meshes = &v->psd_mesh[i];
}

static uint32_t joint_color(uint32_t j)
{
    uint32_t h = (j + 1) * 2654435761u;
    uint32_t r = 60 + (h >> 8) % 196, g = 60 + (h >> 16) % 196, b = 60 + (h >> 24) % 196;
    return r | g << 8 | b << 16;
}

static const float *g_depth;
static int cmp_depth(const void *a, const void *b)
{
    float x = g_depth[*(const uint32_t *)a], y = g_depth[*(const uint32_t *)b];
    return x < y ? 1 : x > y ? -1 : 0;   /* far first */
}

/* Character 0 skinned by the float64 reference: the quality figures of the tube/bar
 * and the weight overlay (painter-sorted triangles coloured by weight, shaded). */
static void lab_cpu(viewer *v, const float vp[16], uint32_t w, uint32_t h)
{
    const demo_model *m = v->cur;
    uint32_t nv = m->vertex_count, jc = sinew_skeleton_joint_count(m->skel), ntri = m->index_count / 3;
    v->ps.quality_valid = 0;
    if (v->dc.count == 0) return;
    if (nv > v->cpu_cap) {
        free(v->cpu_pos); free(v->cpu_nrm); free(v->ov_xy); free(v->ov_rgba);
        v->cpu_pos = malloc(sizeof(double) * 3 * nv);
        v->cpu_nrm = malloc(sizeof(double) * 3 * nv);
        v->ov_xy = malloc(sizeof(float) * 3 * nv);
        v->ov_rgba = malloc(sizeof(uint32_t) * nv);
        v->cpu_cap = v->cpu_pos && v->cpu_nrm && v->ov_xy && v->ov_rgba ? nv : 0;
        if (!v->cpu_cap) return;
    }
    sinew_method meth = v->method < 0 ? SINEW_METHOD_LBS : (sinew_method)v->method;
    uint32_t flags = bulge_flags(v->bulge);
    sinew_transform *local = malloc(sizeof *local * jc);
    sinew_mat4 *scratch = malloc(sizeof *scratch * sinew_palette_scratch_count(jc));
    sinew_palette_joint *pal = malloc(sizeof *pal * jc);
    sinew_result r = local && scratch && pal ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    const sinew_crowd_character *c0 = &v->dc.chars[0];
    int flag = 1;
    if (r == SINEW_OK) {
        if (c0->pose) memcpy(local, c0->pose, sizeof *local * jc);
        else if (c0->clip) r = sinew_clip_sample(c0->clip, m->skel, c0->time, c0->wrap, local);
        else r = demo_tube_motion(meth >= SINEW_METHOD_DQS_SCALE && meth != SINEW_METHOD_COR ? &flag : NULL, m->skel, 0, c0->time, local);
    }
    if (r == SINEW_OK) r = sinew_palette_build(m->skel, meth, local, NULL, scratch, pal);
    if (r == SINEW_OK && v->use_asset == PANEL_SCENE_PSD && v->s.morpher && c0->meshes) {
        /* the corrected tube: morph (float64 reference) then skin the morphed rest */
        double *rest = malloc(sizeof(double) * 6 * nv);
        r = rest ? sinew_morph_reference(nv, m->vertices, v->s.psd_small.targets, PSD_EXAMPLES, v->psd_w[0], rest,
                                         rest + 3 * (size_t)nv, NULL)
                 : SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (r == SINEW_OK)
            r = sinew_reference_skin_rest(nv, m->vertices, rest, rest + 3 * (size_t)nv, flags ? m->bulge : NULL, pal, jc,
                                          meth, flags, v->cpu_pos, v->cpu_nrm);
        free(rest);
    } else if (r == SINEW_OK)
        r = sinew_reference_skin(nv, m->vertices, flags ? m->bulge : NULL, pal, jc, meth, flags, v->cpu_pos, v->cpu_nrm);
    v->marks_valid = 0;
    if (r == SINEW_OK && !m->clip && jc == 3) {
        /* middle ring and end rings of character 0 on screen (rest x along the tube: 0 .. 1) */
        double acc[3][4] = { { 0 } };
        for (uint32_t i = 0; i < nv; i++) {
            double rx = m->vertices[i].position[0];
            int k = fabs(rx - 0.5) < 0.08 ? 0 : rx < 0.08 ? 1 : rx > 0.92 ? 2 : -1;
            if (k < 0) continue;
            acc[k][0] += v->cpu_pos[3 * i];
            acc[k][1] += v->cpu_pos[3 * i + 1];
            acc[k][2] += v->cpu_pos[3 * i + 2];
            acc[k][3] += 1;
        }
        v->marks_valid = acc[0][3] > 0 && acc[1][3] > 0 && acc[2][3] > 0;
        for (int k = 0; k < 3 && v->marks_valid; k++) {
            sinew_vec3 p = sinew_mat4_transform_point(c0->root, sinew_v3(acc[k][0] / acc[k][3], acc[k][1] / acc[k][3],
                                                                         acc[k][2] / acc[k][3]));
            v->marks_valid &= demo_project(vp, p, w, h, &v->mark_px[k][0], &v->mark_px[k][1]);
        }
    }
    if (r == SINEW_OK && !m->clip && jc == 3) {
        scene_tube_desc d = { 24, 16, 0.1, v->use_asset == PANEL_SCENE_PSD ? 2.0 : v->cur_alpha,
                              v->use_asset == DEMO_MODEL_BAR ? SCENE_SHAPE_BAR : SCENE_SHAPE_TUBE };
        scene_tube_quality_result q;
        if (scene_tube_quality(&d, m->vertices, m->bulge, pal, v->cpu_pos, &q) == SINEW_OK) {
            v->ps.quality_valid = 1;
            v->ps.q_radius = q.middle_radius_ratio;
            v->ps.q_volume = q.volume_ratio;
            v->ps.q_dist = q.max_bone_distance_increase;
        }
    }
    free(local); free(scratch); free(pal);
    if (r != SINEW_OK || v->ps.weights == PANEL_WEIGHTS_OFF || !m->index_count) {
        panel_overlay(v->panel, NULL, NULL, 0, NULL, 0);
        return;
    }
    /* project, colour, shade */
    float *depth = v->ov_xy + 2 * (size_t)nv;   /* third float per vertex: depth */
    sinew_vec3 light = sinew_v3(-0.4, -1.0, -0.3);
    double ll = sqrt(sinew_v3_dot(light, light));
    for (uint32_t i = 0; i < nv; i++) {
        sinew_vec3 p = sinew_mat4_transform_point(c0->root, sinew_v3(v->cpu_pos[3 * i], v->cpu_pos[3 * i + 1], v->cpu_pos[3 * i + 2]));
        sinew_vec3 n = sinew_mat4_transform_vector(c0->root, sinew_v3(v->cpu_nrm[3 * i], v->cpu_nrm[3 * i + 1], v->cpu_nrm[3 * i + 2]));
        double px = -1e6, py = -1e6, cw = vp[3] * p.x + vp[7] * p.y + vp[11] * p.z + vp[15];
        demo_project(vp, p, w, h, &px, &py);
        v->ov_xy[2 * i] = (float)px;
        v->ov_xy[2 * i + 1] = (float)py;
        depth[i] = (float)cw;
        double shade = 0.35 + 0.65 * fabs(sinew_v3_dot(n, light)) / ll;
        const sinew_vertex *vx = &m->vertices[i];
        double cr, cg, cb;
        if (v->ps.weights == PANEL_WEIGHTS_MAJOR) {
            uint32_t c = joint_color(vx->joints[0]);
            cr = (c & 255) / 255.0; cg = (c >> 8 & 255) / 255.0; cb = (c >> 16 & 255) / 255.0;
        } else {
            double wj = 0;
            for (int k = 0; k < 4; k++) if (vx->joints[k] == (uint32_t)v->ps.weight_joint) wj += vx->weights[k] / 65535.0;
            cr = wj; cg = 0.15 + 0.5 * (1 - fabs(2 * wj - 1)) * 0.6; cb = 1 - wj;   /* blue 0 -> red 1 */
        }
        uint32_t R = (uint32_t)(255 * fmin(1, cr * shade)), G = (uint32_t)(255 * fmin(1, cg * shade)),
                 B = (uint32_t)(255 * fmin(1, cb * shade));
        v->ov_rgba[i] = R | G << 8 | B << 16 | 0xFFu << 24;
    }
    /* triangles far to near; the overlay keeps the order given */
    uint32_t *order = malloc(sizeof(uint32_t) * (ntri ? ntri : 1)), *idx = malloc(sizeof(uint32_t) * 3 * (ntri ? ntri : 1));
    float *td = malloc(sizeof(float) * (ntri ? ntri : 1));
    if (order && idx && td) {
        for (uint32_t t = 0; t < ntri; t++) {
            const uint32_t *tri = m->indices + 3 * t;
            order[t] = t;
            td[t] = depth[tri[0]] + depth[tri[1]] + depth[tri[2]];
        }
        g_depth = td;
        qsort(order, ntri, sizeof(uint32_t), cmp_depth);
        uint32_t n = 0;
        for (uint32_t k = 0; k < ntri; k++) {
            const uint32_t *tri = m->indices + 3 * order[k];
            if (depth[tri[0]] <= 1e-6f || depth[tri[1]] <= 1e-6f || depth[tri[2]] <= 1e-6f) continue;
            idx[n++] = tri[0]; idx[n++] = tri[1]; idx[n++] = tri[2];
        }
        panel_overlay(v->panel, v->ov_xy, v->ov_rgba, nv, idx, n);
    }
    free(order); free(idx); free(td);
}

/* One script line: 'shot NAME', 'frames N' (wait), or settings 'key=value ...'.
 * Keys: scene tube|bar|psd|model, method lbs|dqs|dqs-scale|dqs-scale-local|dqs-scale-mixed|cor|cor-scale|
 *   cor-scale-local|cor-scale-mixed|mixed,
 * bulge (0, 1, 2 = with the inner push), count, paused, time, manual, bend, twist, alpha, auto, weights off|joint|major, joint,
 * and for the corrected tube (scene=psd): driver 0|1, mw=K:W (target K's weight, any real W), mzero.
 * Returns 1 for 'shot' (name in *shot), 0 otherwise, -1 on a bad line. */
static int script_line(viewer *v, const char *line, char *shot, size_t shot_size, int *wait)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
    if (!tok || tok[0] == '#') return 0;
    if (!strcmp(tok, "shot")) {
        char *name = strtok_r(NULL, " \t\r\n", &save);
        if (!name) return -1;
        snprintf(shot, shot_size, "%s", name);
        return 1;
    }
    if (!strcmp(tok, "frames")) {
        char *n = strtok_r(NULL, " \t\r\n", &save);
        *wait = n ? atoi(n) : 1;
        return 0;
    }
    panel_state *p = &v->ps;
    for (; tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) return -1;
        *eq = 0;
        const char *k = tok, *val = eq + 1;
        double x = atof(val);
        if (!strcmp(k, "scene"))
            p->scene = !strcmp(val, "bar") ? PANEL_SCENE_BAR : !strcmp(val, "model") ? PANEL_SCENE_MODEL
                     : !strcmp(val, "psd") ? PANEL_SCENE_PSD : PANEL_SCENE_TUBE;
        else if (!strcmp(k, "driver")) p->psd_driver = x != 0;
        else if (!strcmp(k, "mzero")) memset(p->morph_w, 0, sizeof p->morph_w);
        else if (!strcmp(k, "mw")) {
            char *colon = strchr(val, ':'), *end = NULL;
            long t = colon ? strtol(val, &end, 10) : -1;
            double wv = colon ? strtod(colon + 1, NULL) : 0.0;
            if (!colon || end != colon || t < 0 || t >= PANEL_MAX_MORPHS || !isfinite(wv)) return -1;
            p->morph_w[t] = (float)wv;
        }
        else if (!strcmp(k, "method")) {
            sinew_method m;
            if (!strcmp(val, "mixed")) p->method = -1;
            else if (sinew_method_parse(val, &m) == SINEW_OK) p->method = (int)m;
            else return -1;
        } else if (!strcmp(k, "bulge")) p->bulge = x >= 2 ? 2 : x != 0;
        else if (!strcmp(k, "count")) p->count = (int)x;
        else if (!strcmp(k, "paused")) p->paused = x != 0;
        else if (!strcmp(k, "time")) p->time = x;
        else if (!strcmp(k, "manual")) p->manual_pose = x != 0;
        else if (!strcmp(k, "bend")) p->bend_deg = (float)x;
        else if (!strcmp(k, "twist")) p->twist_deg = (float)x;
        else if (!strcmp(k, "alpha")) p->alpha = (float)x;
        else if (!strcmp(k, "auto")) p->auto_weights = x != 0;
        else if (!strcmp(k, "weights")) p->weights = !strcmp(val, "joint") ? PANEL_WEIGHTS_JOINT : !strcmp(val, "major") ? PANEL_WEIGHTS_MAJOR : PANEL_WEIGHTS_OFF;
        else if (!strcmp(k, "joint")) p->weight_joint = (int)x;
        else if (!strcmp(k, "clip")) p->clip = (int)x;
        else if (!strcmp(k, "load")) {
            snprintf(p->model_path, sizeof p->model_path, "%s", val);
            p->load_model = 1;
        } else return -1;
    }
    return 0;
}

/* Beside a script's screenshot NAME.png, NAME.txt: character 0's middle and end
 * rings on screen, its quality figures and morph weights (for sinew-labcheck). */
static void write_shot_notes(const viewer *v, const char *png)
{
    char path[1100];
    size_t n = strlen(png);
    snprintf(path, sizeof path, "%.*s.txt", (int)(n > 4 ? n - 4 : n), png);
    FILE *f = fopen(path, "w");
    if (!f) return;
    if (v->marks_valid)
        fprintf(f, "mid %.1f %.1f\nend0 %.1f %.1f\nend1 %.1f %.1f\n", v->mark_px[0][0], v->mark_px[0][1], v->mark_px[1][0],
                v->mark_px[1][1], v->mark_px[2][0], v->mark_px[2][1]);
    if (v->ps.quality_valid) fprintf(f, "quality %.6f %.6f %.6f\n", v->ps.q_radius, v->ps.q_volume, v->ps.q_dist);
    if (v->use_asset == PANEL_SCENE_PSD) {
        fprintf(f, "driver %d\nweights", v->ps.psd_driver);
        for (int k = 0; k < PSD_EXAMPLES; k++) fprintf(f, " %.6f", v->psd_w[0][k]);
        fprintf(f, "\nmorphed %u\n", sinew_morpher_active_items(v->s.morpher));
    }
    fclose(f);
}

static int load_script(viewer *v, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char **n = realloc(v->script, sizeof(char *) * (v->script_n + 1));
        if (!n) break;
        v->script = n;
        v->script[v->script_n++] = strdup(line);
    }
    fclose(f);
    return 1;
}

/* The bound of --gpu-time-check: the title's GPU skin time (median of the frames'
 * figures) over the wall time per skin-only submission must lie in
 * [1/GPU_TIME_CHECK_FACTOR, GPU_TIME_CHECK_FACTOR]. Generous: both run on the same
 * device, the wall time adds submit and wake-up latency, and lavapipe's timings
 * move +-40% with the host's load; the bug it guards against was 50-500x. */
#define GPU_TIME_CHECK_FACTOR 4.0
#define GPU_TIME_CHECK_SUBMITS 8

/* --gpu-time-check: an independent measurement of the dispatch the title times.
 * The crowd of the last frame is skinned alone GPU_TIME_CHECK_SUBMITS times back
 * to back on the skinner's own queue path (sinew_crowd_update, no rendering), and
 * the host's wall time from the first submit to the end of the wait, divided by
 * the count, is compared with the median of the per-frame figures the title
 * averaged. Only the ratio is checked. Returns 1 when it holds. */
static int gpu_time_check(viewer *v, double *frame_ms, int nframe)
{
    double title_ms = median(frame_ms, nframe);
    sinew_crowd_stats st;
    sinew_error_info err;
    sinew_result r = SINEW_OK;
    /* warm-up (pipelines, palette scratch) */
    for (int i = 0; i < 2 && r == SINEW_OK; i++) r = sinew_crowd_update(v->s.crowd, v->dc.chars, v->dc.count, &st, &err);
    if (r == SINEW_OK) r = sinew_skinner_wait(v->s.sk);
    double t0 = now_s();
    for (int i = 0; i < GPU_TIME_CHECK_SUBMITS && r == SINEW_OK; i++)
        r = sinew_crowd_update(v->s.crowd, v->dc.chars, v->dc.count, &st, &err);
    if (r == SINEW_OK) r = sinew_skinner_wait(v->s.sk);
    double wall_ms = (now_s() - t0) * 1e3 / GPU_TIME_CHECK_SUBMITS;
    double own_ms = 0;
    if (r == SINEW_OK && sinew_skinner_gpu_time(v->s.sk, &own_ms) != SINEW_OK) own_ms = 0;
    if (r != SINEW_OK) {
        fprintf(stderr, "GPU skin check: skin-only submission failed: %s\n", sinew_result_string(r));
        return 0;
    }
    double ratio = wall_ms > 0 ? title_ms / wall_ms : 0;
    int ok = nframe > 0 && ratio >= 1.0 / GPU_TIME_CHECK_FACTOR && ratio <= GPU_TIME_CHECK_FACTOR;
    printf("GPU skin check: %u vertices; title figure %.3f ms (median of %d frames); skin-only submissions "
           "%.3f ms each (wall time of %d back to back + wait; the last one's timestamps %.3f ms); "
           "ratio %.3f, bound [%.2f, %.2f]: %s\n",
           st.output_vertices, title_ms, nframe, wall_ms, GPU_TIME_CHECK_SUBMITS, own_ms, ratio,
           1.0 / GPU_TIME_CHECK_FACTOR, GPU_TIME_CHECK_FACTOR, ok ? "ok" : "FAILED");
    return ok;
}

/* crowd_mode: 0 the skinning lab; 1 the crowd scene, | 2 starting with the free camera. */
static int run_window(const char *model, uint32_t count, int up, const char *screenshot, int frames, const char *script,
                      const char *shot_dir, int check_gpu_time, int crowd_mode, const char *state_path)
{
    viewer v;
    memset(&v, 0, sizeof v);
    v.shot_dir = shot_dir ? shot_dir : ".";
    v.ps.alpha = 2.0f;
    v.ps.bend_deg = 90.0f;
    v.ps.weight_joint = 1;
    if (script && !load_script(&v, script)) return 1;
    if (!glfwInit()) {
        fprintf(stderr, "GLFW init failed (no display?)\n");
        return 1;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    v.win = glfwCreateWindow(1280, 720, "Sinew viewer", NULL, NULL);
    if (!v.win) {
        fprintf(stderr, "cannot create a window\n");
        glfwTerminate();
        return 1;
    }
    glfwSetWindowUserPointer(v.win, &v);
    glfwSetKeyCallback(v.win, on_key);
    glfwSetMouseButtonCallback(v.win, on_button);
    glfwSetCursorPosCallback(v.win, on_cursor);
    glfwSetScrollCallback(v.win, on_scroll);
    glfwSetFramebufferSizeCallback(v.win, on_resize);
    init_vulkan(&v);

    sinew_gpu_external_desc ed = {0};
    ed.get_instance_proc_addr = vkGetInstanceProcAddr;
    ed.instance = v.inst;
    ed.physical_device = v.phys;
    ed.device = v.dev;
    ed.queue = v.queue;
    ed.queue_family = v.qf;
    ed.api_version = VK_API_VERSION_1_1;
    ed.debug_utils_enabled = v.validation;
    sinew_result r = sinew_gpu_create_external(&ed, &v.gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew_gpu_create_external: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_renderer_desc rd = {0};
    rd.color_format = v.fmt;
    rd.final_layout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    char msg[256];
    r = demo_scene_create(v.gpu, 16384, &rd, SINEW_OUTPUT_FLOAT, model, &v.s, msg, sizeof msg);
    if (r != SINEW_OK) {
        fprintf(stderr, "scene: %s\n", sinew_result_string(r));
        return 1;
    }
    if (model && !v.s.has_asset) fprintf(stderr, "model %s not loaded (%s): tubes only\n", model, msg);
    if (v.s.has_asset && up != VIEWER_UP_FROM_ASSET) demo_model_set_up(&v.s.asset, up);
    if (model) snprintf(v.ps.model_path, sizeof v.ps.model_path, "%s", model);
    v.use_asset = v.s.has_asset;
    v.count = crowd_mode ? 64 : count;
    v.method = -1;
    rebuild_crowd(&v);
    if (crowd_mode) {
        /* the crowd scene: the bench's models, layout and path; drawn into the swapchain */
        v.crowd_mode = 1;
        double size = 0;
        crowd_scene_model *ms = v.cs_models;
        v.cs_nm = crowd_scene_load_models(ms, &size);
        sinew_error_info cerr;
        memset(&cerr, 0, sizeof cerr);
        if (v.cs_nm > 0) count = cs_cap_count(v.gpu, ms, v.cs_nm, count);
        r = v.cs_nm > 0 ? crowd_scene_init(&v.cs, ms, v.cs_nm, size, count, 1) : SINEW_ERROR_NOT_FOUND;
        if (r == SINEW_OK) r = crowd_scene_pipeline(&v.cs, v.gpu, &rd, &cerr);
        if (r != SINEW_OK) {
            fprintf(stderr, "crowd scene: %s %s\n", sinew_result_string(r), cerr.message);
            return 1;
        }
        cs_model_names(ms, v.cs_nm, v.cs_names, sizeof v.cs_names);
        v.ps.crowd_scene = 1;
        v.ps.path_camera = !(crowd_mode & 2);   /* --free-camera: start with the orbit camera */
        v.ps.cs_models = v.cs_names;
        v.ps.cs_count = count;
        /* the free camera starts over the plaza */
        v.yaw = 0.6f;
        v.pitch = 0.5f;
        v.dist = (float)(1.6 * v.cs.extent + 4 * size);
        v.target[0] = v.target[2] = 0;
        v.target[1] = (float)(0.3 * size);
        for (int k = 0; k < PANEL_CROWD_STAGES; k++) v.ps.cs_stage_ms[k] = -1;
        v.cs_render_ms = -1;
        /* the render stage: the pass is recorded into the viewer's command buffer, so
         * it is timed here (sinew_renderer_gpu_time times sinew_renderer_render) */
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(v.phys, &nq, NULL);
        VkQueueFamilyProperties qp[16];
        if (nq > 16) nq = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(v.phys, &nq, qp);
        uint32_t bits = v.qf < nq ? qp[v.qf].timestampValidBits : 0;
        if (bits) {
            VkPhysicalDeviceProperties pp;
            vkGetPhysicalDeviceProperties(v.phys, &pp);
            v.cs_ts_period = pp.limits.timestampPeriod;
            v.cs_ts_mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            VkQueryPoolCreateInfo qci = { VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
            qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
            qci.queryCount = 2 * FRAMES;
            VKCHECK(vkCreateQueryPool(v.dev, &qci, NULL, &v.cs_queries));
        }
    }
    create_swapchain(&v);
    panel_vulkan pv = { vkGetInstanceProcAddr, v.inst, v.phys, v.dev, v.qf, v.queue, v.fmt, v.nimg };
    if (panel_create(v.win, &pv, &v.panel) != 0 || panel_set_targets(v.panel, v.views, v.nimg, v.ext) != 0) {
        fprintf(stderr, "the control panel (Dear ImGui) failed to start\n");
        return 1;
    }
    sync_to_panel(&v);
    printf("sinew-viewer on %s; keys: 1 LBS, 2 DQS, 3 DQS+scale, 4 DQS scale local, 5 mixed, 6 CoR, 7 CoR+scale, 8 CoR scale local, 9 CoR scale mixed, B bulge, I inner push, +/- size, "
           "M model, Space pause, R camera, Esc quit; corrected tube: D driver, [ ] target, J/K weight, 0 zero\n", sinew_gpu_info(v.gpu)->name);

    VkBuffer shot_buf = VK_NULL_HANDLE;
    VkDeviceMemory shot_mem = VK_NULL_HANDLE;
    void *shot_map = NULL;
    int shot_frame = -1, shot_done = 0, shot_image = -1, shot_wait = -1, shots = 0;
    char shot_path[1024] = "";
    if (screenshot && !script) snprintf(shot_path, sizeof shot_path, "%s", screenshot);
    double last_time = now_s(), title_time = last_time, fps_acc = 0, cpu_acc = 0, gpu_acc = 0;
    int fps_n = 0, prev_method = v.method;
    int rc = 0;
    /* --gpu-time-check: the per-frame GPU skin figures the title averages (from frame 3) */
    double check_ms[1024];
    int check_n = 0;
    for (int frame = 0; !glfwWindowShouldClose(v.win); frame++) {
        glfwPollEvents();
        /* the script: apply lines until a 'shot' (taken 3 frames later) or a wait */
        while (v.script && shot_wait == -1 && shot_frame < 0 && v.script_i < v.script_n) {
            int wait = 0;
            char name[256];
            int k = script_line(&v, v.script[v.script_i], name, sizeof name, &wait);
            if (k < 0) {
                fprintf(stderr, "script line %d: cannot parse '%s'\n", v.script_i + 1, v.script[v.script_i]);
                rc = 1;
                glfwSetWindowShouldClose(v.win, 1);
                break;
            }
            v.script_i++;
            sync_from_panel(&v);
            if (k == 1) {
                snprintf(shot_path, sizeof shot_path, "%s/%s.png", v.shot_dir, name);
                shot_wait = 3;
                break;
            }
            if (wait > 0) {
                shot_wait = -1 - wait;   /* a pure wait: counts down to -1 */
                break;
            }
        }
        if (v.script && v.script_i >= v.script_n && shot_wait == -1 && shot_frame < 0) glfwSetWindowShouldClose(v.win, 1);
        if (v.ps.load_model) {
            v.ps.load_model = 0;
            reload_scene(&v, v.ps.model_path);
            v.dirty = 0;
        }
        if (v.dirty) {
            vkDeviceWaitIdle(v.dev);
            rebuild_crowd(&v);
        }
        if (v.resized) recreate_swapchain(&v);
        int f = frame % FRAMES;
        VKCHECK(vkWaitForFences(v.dev, 1, &v.fence[f], VK_TRUE, UINT64_MAX));
        double gms = 0;
        sinew_skinner *cur_sk = v.crowd_mode ? v.cs.sk : v.s.sk;
        if (v.cs_queries && v.cs_ts_written[f]) {   /* the crowd scene's pass of the frame that used this slot */
            uint64_t q[2];
            if (vkGetQueryPoolResults(v.dev, v.cs_queries, 2 * (uint32_t)f, 2, sizeof q, q, sizeof q[0],
                                      VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
                v.cs_render_ms = (double)((q[1] - q[0]) & v.cs_ts_mask) * v.cs_ts_period * 1e-6;
            v.cs_ts_written[f] = 0;
        }
        if (sinew_skinner_gpu_time(cur_sk, &gms) != SINEW_OK) gms = 0;
        else if (frame >= 3 && check_n < (int)(sizeof check_ms / sizeof check_ms[0])) check_ms[check_n++] = gms;
        if (shot_frame >= 0 && !shot_done && f == shot_frame % FRAMES && frame > shot_frame) {
            /* the screenshot frame has completed: write it */
            uint8_t *px = (uint8_t *)shot_map;
            size_t bytes = (size_t)v.ext.width * v.ext.height * 4;
            if (v.fmt == VK_FORMAT_B8G8R8A8_UNORM || v.fmt == VK_FORMAT_B8G8R8A8_SRGB)
                for (size_t i = 0; i < bytes; i += 4) {
                    uint8_t b = px[i];
                    px[i] = px[i + 2];
                    px[i + 2] = b;
                }
            for (size_t i = 3; i < bytes; i += 4) px[i] = 255;
            if (!stbi_write_png(shot_path, (int)v.ext.width, (int)v.ext.height, 4, px, (int)v.ext.width * 4)) {
                fprintf(stderr, "cannot write %s\n", shot_path);
                rc = 1;
            } else {
                printf("wrote %s (%ux%u, swapchain image %d)\n", shot_path, v.ext.width, v.ext.height, shot_image);
                if (v.script) write_shot_notes(&v, shot_path);
                if (v.ps.quality_valid)
                    printf("  quality of character 0: middle radius %.4f volume %.4f max dist-to-bone increase %.4f\n",
                           v.ps.q_radius, v.ps.q_volume, v.ps.q_dist);
                shots++;
            }
            vkDestroyBuffer(v.dev, shot_buf, NULL);
            vkFreeMemory(v.dev, shot_mem, NULL);
            shot_buf = VK_NULL_HANDLE;
            shot_mem = VK_NULL_HANDLE;
            shot_frame = -1;
            shot_wait = -1;
            if (!v.script) {
                shot_done = 1;
                glfwSetWindowShouldClose(v.win, 1);
            }
            continue;
        }
        if (shot_wait < -1) shot_wait++;
        double t = now_s(), dt = t - last_time;
        last_time = t;
        if (!v.paused) v.t += dt;
        uint32_t img = 0;
        VkResult ar = vkAcquireNextImageKHR(v.dev, v.sc, UINT64_MAX, v.acq[f], VK_NULL_HANDLE, &img);
        if (ar == VK_ERROR_OUT_OF_DATE_KHR) {
            recreate_swapchain(&v);
            continue;
        }
        if (ar != VK_SUCCESS && ar != VK_SUBOPTIMAL_KHR) {
            fprintf(stderr, "acquire failed (%d)\n", (int)ar);
            rc = 1;
            break;
        }
        sinew_crowd_stats st;
        sinew_error_info cerr;
        memset(&st, 0, sizeof st);
        memset(&cerr, 0, sizeof cerr);
        int skin = 0;
        if (v.crowd_mode) {
            /* the crowd scene: one scene step per frame unless paused (paused: the
             * last skinned output drawn again) */
            if (!v.paused) {
                crowd_scene_logic(&v.cs, v.cs_frame);
                crowd_scene_cull(&v.cs, v.cs_frame);
                r = sinew_crowd_prepare(v.cs.crowd, v.cs.chars, v.cs.count, &st, &cerr);
                if (r == SINEW_OK) r = crowd_scene_check(&v.cs, &cerr);
                if (r != SINEW_OK) {
                    fprintf(stderr, "crowd scene frame %u: %s %s\n", v.cs_frame, sinew_result_string(r), cerr.message);
                    rc = 1;
                    break;
                }
                v.cs_drawn = crowd_scene_draw_list(&v.cs);
                double morph = 0, skin_ms = 0;
                if (sinew_skinner_gpu_stage_times(v.cs.sk, &morph, &skin_ms) != SINEW_OK) morph = skin_ms = 0;
                /* GPU figures: of the last frame known complete (render: the viewer's
                 * timestamps around the pass, or n/a without timestamps) */
                cs_stages(&st, morph, skin_ms, v.cs_render_ms, v.ps.cs_stage_ms);
                v.ps.cs_frame = v.cs_frame;
                v.ps.cs_visible = v.cs.visible;
                v.ps.cs_culled = v.cs.culled;
                memcpy(v.ps.cs_band, v.cs.band, sizeof v.cs.band);
                v.ps.cs_interpolated = st.interpolated;
                v.ps.cs_skinned_vertices = st.output_vertices;
                v.ps.cs_prepare_ms = st.cpu_ms;
                v.ps.cs_gpu_ms = gms;
                v.ps.cs_frame_ms = dt * 1e3;   /* the window's frame interval */
                v.ps.cs_time = v.cs_frame * CROWD_SCENE_DT;
                v.cs_frame++;
                skin = 1;
            }
        } else {
            demo_crowd_animate(&v.dc, v.t);
            apply_manual_pose(&v);
            apply_morphs(&v);
            r = sinew_crowd_prepare(v.s.crowd, v.dc.chars, v.dc.count, &st, &cerr);
            skin = r == SINEW_OK;
        }
        if (!v.crowd_mode && r != SINEW_OK) {
            fprintf(stderr, "%s refused: %s; back to %s\n", method_label(v.method, v.bulge), cerr.message,
                    method_label(prev_method, v.bulge));
            v.method = prev_method == v.method ? SINEW_METHOD_LBS : prev_method;
            demo_crowd_set_method(&v.dc, v.method, bulge_flags(v.bulge));
        } else {
            prev_method = v.method;
        }
        uint32_t ninst = 0;
        const sinew_instance *inst = sinew_crowd_instances(v.s.crowd, &ninst);
        if (v.crowd_mode) {
            inst = v.cs.drawn;
            ninst = v.cs_drawn;
        }

        sinew_render_view view;
        memset(&view, 0, sizeof view);
        float eye[3] = { v.target[0] + v.dist * cosf(v.pitch) * sinf(v.yaw), v.target[1] + v.dist * sinf(v.pitch),
                         v.target[2] + v.dist * cosf(v.pitch) * cosf(v.yaw) };
        const demo_model *m = v.cur;
        sinew_render_camera(view.view_proj, eye, v.target, 0.8f, (float)v.ext.width / (float)v.ext.height,
                            (float)(0.01 * m->height), (float)(40 * (v.dc.extent + m->height)) + v.dist);
        memcpy(view.eye, eye, sizeof eye);
        view.ground = 1;
        view.ground_extent = (float)(3 * v.dc.extent + 4 * m->height);
        if (v.crowd_mode) {
            crowd_scene_camera cam = v.cs.cam;
            if (v.ps.path_camera) {
                crowd_scene_view(&v.cs, &cam, v.ext.width, v.ext.height, &view);
            } else {
                /* free camera: the orbit camera; culling and LOD stay with the path camera */
                sinew_render_camera(view.view_proj, eye, v.target, 0.8f, (float)v.ext.width / (float)v.ext.height,
                                    (float)(0.01 * v.cs.size), (float)(6 * v.cs.extent + 40 * v.cs.size) + v.dist);
                view.ground_extent = (float)(v.cs.extent + v.cs.size);
            }
        }
        /* the panel: character 0 on the CPU (figures, overlay), then the widgets */
        if (!v.crowd_mode) lab_cpu(&v, view.view_proj, v.ext.width, v.ext.height);
        sync_to_panel(&v);
        if (panel_frame(v.panel, &v.ps)) sync_from_panel(&v);

        VkCommandBuffer cmd = v.cmd[f];
        VKCHECK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VKCHECK(vkBeginCommandBuffer(cmd, &bi));
        if (skin) r = sinew_skinner_record(cur_sk, cmd);
        if (v.crowd_mode && (r == SINEW_OK || !skin)) {   /* paused: the last output drawn again */
            if (v.cs_queries) {
                /* from the end of the work before (the skinning) to the end of the pass */
                vkCmdResetQueryPool(cmd, v.cs_queries, 2 * (uint32_t)f, 2);
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, v.cs_queries, 2 * (uint32_t)f);
            }
            r = sinew_renderer_record(v.cs.rnd, cmd, v.cs_targets[img], &view, inst, ninst, NULL);
            if (v.cs_queries) {
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, v.cs_queries, 2 * (uint32_t)f + 1);
                v.cs_ts_written[f] = 1;
            }
        }
        else if (r == SINEW_OK || !skin)
            r = sinew_renderer_record(v.s.rnd, cmd, v.targets[img], &view, skin ? inst : NULL, skin ? ninst : 0, NULL);
        if (r == SINEW_OK) panel_record(v.panel, cmd, img);
        if (r != SINEW_OK) {
            fprintf(stderr, "record: %s\n", sinew_result_string(r));
            rc = 1;
            break;
        }
        int take = shot_frame < 0 && (skin || (v.crowd_mode && v.cs_frame > 0)) &&
                   (v.script ? shot_wait == 0 : (screenshot && frames >= 0 && frame >= frames && !shot_done));
        if (shot_wait > 0) shot_wait--;
        if (take) {
            make_readback(&v, (VkDeviceSize)v.ext.width * v.ext.height * 4, &shot_buf, &shot_mem, &shot_map);
            image_barrier(cmd, v.imgs[img], VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                          VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
            VkBufferImageCopy reg = {0};
            reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            reg.imageSubresource.layerCount = 1;
            reg.imageExtent.width = v.ext.width;
            reg.imageExtent.height = v.ext.height;
            reg.imageExtent.depth = 1;
            vkCmdCopyImageToBuffer(cmd, v.imgs[img], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, shot_buf, 1, &reg);
            image_barrier(cmd, v.imgs[img], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                          VK_ACCESS_TRANSFER_READ_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
            VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER };
            hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, NULL, 0,
                                 NULL);
            shot_frame = frame;
            shot_image = (int)img;
        }
        VKCHECK(vkEndCommandBuffer(cmd));
        VKCHECK(vkResetFences(v.dev, 1, &v.fence[f]));
        VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
        si.waitSemaphoreCount = 1;
        si.pWaitSemaphores = &v.acq[f];
        si.pWaitDstStageMask = &wait_stage;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        si.signalSemaphoreCount = 1;
        si.pSignalSemaphores = &v.done[img];
        VKCHECK(vkQueueSubmit(v.queue, 1, &si, v.fence[f]));
        if (skin) sinew_skinner_end_frame(cur_sk, v.fence[f]);
        VkPresentInfoKHR pi = { VK_STRUCTURE_TYPE_PRESENT_INFO_KHR };
        pi.waitSemaphoreCount = 1;
        pi.pWaitSemaphores = &v.done[img];
        pi.swapchainCount = 1;
        pi.pSwapchains = &v.sc;
        pi.pImageIndices = &img;
        VkResult pr = vkQueuePresentKHR(v.queue, &pi);
        if (pr == VK_ERROR_OUT_OF_DATE_KHR || pr == VK_SUBOPTIMAL_KHR) v.resized = 1;

        /* figures in the title bar (GPU time: of the last frame known complete, read
         * after its fence at the top of the loop) */
        fps_acc += dt;
        cpu_acc += st.cpu_ms;
        gpu_acc += gms;
        fps_n++;
        if (t - title_time > 0.5 || frame < 3) {
            char title[320];
            if (v.crowd_mode)
                snprintf(title, sizeof title,
                         "Sinew | crowd scene | frame %u | %u characters, %u visible, %u culled | CPU %.2f ms | GPU skin %.2f ms | %.1f fps",
                         v.cs_frame, v.cs.count, v.cs.visible, v.cs.culled, cpu_acc / fps_n, gpu_acc / fps_n,
                         fps_acc > 0 ? fps_n / fps_acc : 0.0);
            else
                snprintf(title, sizeof title,
                         "Sinew | %s | %s | %u characters | %u vertices | CPU palette %.2f ms | GPU skin %.2f ms | %.1f fps",
                         m->name, method_label(v.method, v.bulge), v.dc.count, st.output_vertices, cpu_acc / fps_n,
                         gpu_acc / fps_n, fps_acc > 0 ? fps_n / fps_acc : 0.0);
            glfwSetWindowTitle(v.win, title);
            if (screenshot) printf("%s\n", title);
            title_time = t;
            fps_acc = cpu_acc = gpu_acc = 0;
            fps_n = 0;
        }
    }
    vkDeviceWaitIdle(v.dev);
    if (check_gpu_time && rc == 0 && !gpu_time_check(&v, check_ms, check_n)) rc = 1;
    if (v.crowd_mode) {
        printf("crowd scene: %u frames, root motion check: %u moved by the crowd, %.0f character-frames, max error %.2e "
               "(tolerance %.0e): %s\n", v.cs_frame, v.cs.crowd_moved, v.cs.rm_checked, v.cs.rm_max_err, CROWD_SCENE_RM_TOL,
               v.cs.rm_max_err <= CROWD_SCENE_RM_TOL ? "ok" : "FAILED");
        if (!(v.cs.rm_max_err <= CROWD_SCENE_RM_TOL)) rc = 1;
        if (state_path && !crowd_scene_write_state(&v.cs, state_path)) rc = 1;
    }
    uint32_t msgs = sinew_debug_validation_message_count(v.gpu);
    if (msgs) {
        fprintf(stderr, "%u validation messages\n", msgs);
        rc = 1;
    }
    if (screenshot && !script && !shot_done) {
        fprintf(stderr, "no screenshot taken\n");
        rc = 1;
    }
    if (script) {
        printf("script: %d of %d lines, %d screenshots\n", v.script_i, v.script_n, shots);
        if (v.script_i < v.script_n) rc = 1;
    }
    panel_destroy(v.panel);
    for (int i = 0; i < v.nvar; i++) demo_model_free(&v.var[i].m);
    for (int i = 0; i < v.script_n; i++) free(v.script[i]);
    free(v.script);
    free(v.cpu_pos); free(v.cpu_nrm); free(v.ov_xy); free(v.ov_rgba);
    if (shot_buf) {
        vkDestroyBuffer(v.dev, shot_buf, NULL);
        vkFreeMemory(v.dev, shot_mem, NULL);
    }
    demo_crowd_free(&v.dc);
    destroy_swapchain(&v);
    crowd_scene_destroy(&v.cs);
    crowd_scene_free_models(v.cs_models, v.cs_nm);
    if (v.cs_queries) vkDestroyQueryPool(v.dev, v.cs_queries, NULL);
    demo_scene_destroy(&v.s);
    sinew_gpu_destroy(v.gpu);
    for (int i = 0; i < FRAMES; i++) {
        vkDestroyFence(v.dev, v.fence[i], NULL);
        vkDestroySemaphore(v.dev, v.acq[i], NULL);
    }
    vkDestroyCommandPool(v.dev, v.pool, NULL);
    vkDestroyDevice(v.dev, NULL);
    vkDestroySurfaceKHR(v.inst, v.surf, NULL);
    vkDestroyInstance(v.inst, NULL);
    glfwDestroyWindow(v.win);
    glfwTerminate();
    return rc;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *headless = NULL, *shot = NULL, *script = NULL, *shot_dir = NULL;
#ifdef DEMO_WITH_ASSET
    model = "/usr/share/assimp/models/X/Testwuson.X";
#endif
    uint32_t count = 64;
    int frames = -1, up = VIEWER_UP_FROM_ASSET, check_gpu_time = 0, crowd_scene_mode = 0, count_given = 0;
    const char *state_path = NULL;
    int free_camera = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--model") && next) { model = strcmp(next, "none") ? next : NULL; i++; }
        else if (!strcmp(a, "--count") && next) { count = (uint32_t)strtoul(argv[++i], NULL, 10); count_given = 1; }
        else if (!strcmp(a, "--scene") && next && !strcmp(next, "crowd")) { crowd_scene_mode = 1; i++; }
        else if (!strcmp(a, "--scene-state") && next) state_path = argv[++i];
        else if (!strcmp(a, "--free-camera")) free_camera = 1;
        else if (!strcmp(a, "--headless") && next) headless = argv[++i];
        else if (!strcmp(a, "--screenshot") && next) shot = argv[++i];
        else if (!strcmp(a, "--frames") && next) frames = atoi(argv[++i]);
        else if (!strcmp(a, "--script") && next) script = argv[++i];
        else if (!strcmp(a, "--shot-dir") && next) shot_dir = argv[++i];
        else if (!strcmp(a, "--gpu-time-check")) check_gpu_time = 1;
        else if (!strcmp(a, "--up") && next && strchr("xyza", next[0]) && next[0] && !next[1]) {
            up = next[0] == 'a' ? DEMO_UP_AUTO : next[0] - 'x';
            i++;
        }
        else {
            fprintf(stderr, "usage: sinew-viewer [--model FILE|none] [--count N] [--up x|y|z|a] [--screenshot FILE --frames N]\n"
                            "       [--gpu-time-check] (after the run: title's GPU skin time vs skin-only submissions, within 4x)\n"
                            "       (--up: the model's up axis; default from the asset: glTF y, others by the bounding box (a))\n"
                            "       sinew-viewer [--model FILE|none] --script FILE [--shot-dir DIR]\n"
                            "       sinew-viewer --headless DIR [--model FILE|none] [--count N]\n"
                            "       sinew-viewer --scene crowd [--count N] [--free-camera] [--screenshot FILE --frames N] [--scene-state FILE]\n"
                            "       sinew-viewer --scene crowd --headless DIR [--frames N] [--count N] [--screenshot FILE]\n"
                            "       (the crowd scene of sinew-bench --scene crowd, default 256 characters; --scene-state:\n"
                            "       every character's world transform after the last frame)\n");
            return strcmp(a, "--help") ? 2 : 0;
        }
    }
    if (count == 0 || count > 16384) count = 64;
    if (crowd_scene_mode && !count_given) count = 256;
    if (crowd_scene_mode && headless) return run_crowd_headless(headless, count, frames, shot, state_path);
    if (crowd_scene_mode && (script || check_gpu_time)) {
        fprintf(stderr, "--scene crowd: --script and --gpu-time-check are for the skinning lab\n");
        return 2;
    }
    if (shot && frames < 0) frames = 5;
    if (headless) return run_headless(headless, model, count, up);
    if (check_gpu_time && !shot && !script) {
        fprintf(stderr, "--gpu-time-check needs --screenshot or --script (a run that ends by itself)\n");
        return 2;
    }
    return run_window(model, count, up, shot, frames, script, shot_dir, check_gpu_time, crowd_scene_mode ? 1 | free_camera << 1 : 0,
                      state_path);
}
