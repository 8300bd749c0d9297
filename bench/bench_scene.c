/* sinew-bench --scene crowd: a crowd scene a crowd-rendering user would
 * recognise, timed per stage. The scene itself (models, blended clips and
 * transitions, root motion and its float64 check, plaza wrap, camera path,
 * frustum culling, distance LOD with bone LOD) is samples/common/crowd_scene.c,
 * shared with `sinew-viewer --scene crowd`; this file times it and writes the
 * table, scene.csv, scene.json and the plot. A "root motion check" line per
 * size: every crowd-moved W against W_last x delta (float64), exit 1 beyond
 * CROWD_SCENE_RM_TOL.
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
#include "crowd_scene.h"
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

#define SC_MAX_ROWS 16
#define SC_DT CROWD_SCENE_DT
#define SC_HEIGHT CROWD_SCENE_HEIGHT
#define SC_GEN_SPEED CROWD_SCENE_GEN_SPEED
#define SC_NEAR CROWD_SCENE_NEAR
#define SC_MID CROWD_SCENE_MID
#define SC_RM_TOL CROWD_SCENE_RM_TOL
#define SC_RENDER_W CROWD_SCENE_RENDER_W
#define SC_RENDER_H CROWD_SCENE_RENDER_H
typedef crowd_scene_model sc_model;

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


/* One size: builds the skinner + crowd, runs warm-up + frames, fills the row. */
/* Per-frame samples of one size (medians go to the row). */
enum { S_LOGIC, S_CULL, S_PREP, S_GPU, S_FRAME, S_SAMPLE, S_FK, S_PAL, S_BOUNDS, S_UPLOAD, S_SUM_SAMPLE, S_SUM_FK,
       S_SUM_PAL, S_SUM_BOUNDS, S_SUM_UPLOAD, S_BUSY, S_MORPH, S_SKIN, S_RENDER, S_COUNT };

static void run_size(sinew_gpu *gpu, sc_model *ms, int nm, double size, uint32_t count, uint32_t frames,
                     double copy_gbps, int render, int bone_lod, const char *frame_ppm, const char *state_path, sc_row *row)
{
    row->chars = count;
    crowd_scene sc;
    sinew_error_info err;
    memset(&err, 0, sizeof err);
    sinew_result r = crowd_scene_init(&sc, ms, nm, size, count, bone_lod);
    if (r != SINEW_OK) { row->error = sinew_result_string(r); return; }
    sinew_renderer_desc rdd = { 0 };
    r = crowd_scene_pipeline(&sc, gpu, render ? &rdd : NULL, &err);
    if (r == SINEW_ERROR_LIMIT_EXCEEDED && !sc.sk) {
        row->error = "too large for one skinner";
        crowd_scene_destroy(&sc);
        return;
    }
    sinew_skinner *sk = sc.sk;
    sinew_crowd *crowd = sc.crowd;
    sinew_renderer *rnd = sc.rnd;
    sinew_render_target *target = NULL;
    if (r == SINEW_OK && rnd) {
        sinew_render_target_desc td = { SC_RENDER_W, SC_RENDER_H, VK_NULL_HANDLE };
        r = sinew_render_target_create(rnd, &td, &target);
        if (r != SINEW_OK) snprintf(err.message, sizeof err.message, "the render stage (sinew_renderer): %s",
                                    sinew_result_string(r));
    }
    row->crowd_moved = sc.crowd_moved;
    double *ts = calloc((size_t)frames * S_COUNT, sizeof(double)), *ser[S_COUNT];
    for (int k = 0; k < S_COUNT; k++) ser[k] = ts ? ts + (size_t)k * frames : NULL;
    if (r == SINEW_OK && !ts) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r != SINEW_OK) {
        row->error = sinew_result_string(r);
        if (err.message[0]) fprintf(stderr, "scene: %s\n", err.message);
        goto done;
    }

    double speed_sum = 0;
    int n = 0;
    for (uint32_t f = 0; f < frames + 2 && r == SINEW_OK; f++) {
        double f0 = now_s();
        /* logic: transitions, layers, root motion, wrap */
        crowd_scene_logic(&sc, f);
        double f1 = now_s();
        /* culling and LOD with the boxes of the previous frame */
        crowd_scene_cull(&sc, f);
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
            r = sinew_crowd_update(crowd, sc.chars, count, &st, &err);
            uint32_t nd = r == SINEW_OK ? crowd_scene_draw_list(&sc) : 0;
            sinew_render_view view;
            crowd_scene_view(&sc, &sc.cam, SC_RENDER_W, SC_RENDER_H, &view);
            if (r == SINEW_OK) r = sinew_renderer_render(rnd, target, &view, sc.drawn, nd, NULL, false);
            if (r == SINEW_OK) r = sinew_skinner_wait(sk);
            if (r == SINEW_OK) r = sinew_renderer_gpu_time(rnd, &rms);
        } else {
            r = sinew_crowd_update(crowd, sc.chars, count, &st, &err);
            if (r == SINEW_OK) r = sinew_skinner_wait(sk);
        }
        if (r == SINEW_OK) r = sinew_skinner_gpu_time(sk, &g);
        if (r == SINEW_OK) r = sinew_skinner_gpu_stage_times(sk, &morph, &skin);
        double f3 = now_s();
        if (r == SINEW_OK && !sc.expect_ok) {
            r = SINEW_ERROR_NON_FINITE;
            snprintf(err.message, sizeof err.message, "sinew_root_motion_delta failed in the scene's check");
        }
        if (r != SINEW_OK) break;
        /* crowd-moved characters: the crowd's W against the W recomputed from
         * the tracks (float64), then the plaza wrap */
        r = crowd_scene_check(&sc, &err);
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
            speed_sum += sc.moved / count / SC_DT;
            n++;
        }
    }
    row->rm_checked = sc.rm_checked;
    row->rm_max_err = sc.rm_max_err;
    row->rm_wraps = sc.rm_wraps;
    if (r != SINEW_OK) {
        row->error = sinew_result_string(r);
        if (err.message[0]) fprintf(stderr, "scene: %s\n", err.message);
        goto done;
    }
    if (state_path && !crowd_scene_write_state(&sc, state_path)) fprintf(stderr, "cannot write %s\n", state_path);
    if (n > 0) {
        row->visible /= n;
        row->interpolated /= n;
        row->skinned_vertices /= n;
        row->meters_per_s = speed_sum / n;
    }
    if (row->crowd_moved) {
        row->rm_speed = sc.rm_dist / (row->crowd_moved * (frames + 1) * SC_DT);
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
    crowd_scene_destroy(&sc);
    free(ts);
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
    sc_model ms[CROWD_SCENE_MAX_MODELS];
    double size = 0;
    double t_begin = now_s();
    sinew_gpu *gpu = NULL;
    int nm = crowd_scene_open("sinew-bench --scene crowd", ms, &size, &gpu);
    if (nm == 0) return 1;
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
            uint64_t cap = budget && budget < device_cap ? budget : device_cap;
            uint32_t fit = crowd_scene_fit(ms, nm, c, cap);
            if (fit < c) { c = fit ? fit : 1; capped = 1; }
        }
        if (c == last) continue; /* capped to a size already measured */
        last = c;
        sc_row *w = &rows[nrows++];
        memset(w, 0, sizeof *w);
        w->capped = capped;
        snprintf(path, sizeof path, "%s/scene-frame.ppm", o->out_dir);
        run_size(gpu, ms, nm, size, c, frames, roof.shader_copy_gbps, !o->no_render, !o->no_bone_lod, path,
                 nrows == 1 ? o->state_path : NULL, w);
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
    crowd_scene_free_models(ms, nm);
    return failed ? 1 : 0;
}
#endif
