/* sinew-bench --scene crowd (bench_scene.c): a crowd scene of real models with
 * blended clips, root motion, an orbiting camera, frustum culling and distance
 * LOD (samples/common/crowd_scene.c, shared with sinew-viewer), timed per stage. */
#ifndef SINEW_BENCH_SCENE_H
#define SINEW_BENCH_SCENE_H

#include <stdint.h>

typedef struct sinew_bench_scene_options {
    const char *out_dir;        /* scene.csv, scene.json, scene.gp, scene.png go here */
    const uint32_t *sizes;      /* characters per row; NULL = 1000, 10000, 100000 */
    uint32_t nsizes;
    uint32_t frames;            /* measured frames per size (0 = 30), after 2 warm-up frames */
    uint64_t budget;            /* skinned-vertex cap per frame; 0 = the device default (see bench_scene.c) */
    int budget_given;           /* --budget given: use budget as is (0 = no cap) */
    int full;                   /* --full: no cap unless --budget */
    int no_render;              /* --no-render: no render stage (frame = logic .. skinning done) */
    int no_bone_lod;            /* --no-bone-lod: joint_lod 0 in every distance band (update_every kept) */
    const char *state_path;     /* --scene-state: every character's world transform after the first size (NULL = none) */
} sinew_bench_scene_options;

/* Runs the scene; returns the process exit code (0 ok, 1 failure). */
int sinew_bench_scene(const sinew_bench_scene_options *o);

#endif
