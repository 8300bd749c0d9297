/* sinew-bench-morph: the GPU cost of morph targets next to plain skinning.
 * 32 tubes of 16386 vertices (512 rings x 32 sectors), LBS, float output; the
 * cases run round-robin in one process (round 0 = warm-up, medians of the
 * rest), timed by the skinner's timestamps (which include the morph pass):
 *   plain       no morpher work (base mesh)
 *   zero        every character has a morph slot, all weights zero
 *   a..d        every character morphed with a target set:
 *               dense-64:   64 targets x 5% of the vertices each, 8 or 64 active
 *               sparse-256: 256 targets x 1% each, 16 active
 *               face-32:    32 targets over a 10% region, 50% of it each, 32 active
 * Each set runs with every pass (sinew_morpher_set_pass), same round: rows (every
 * stored delta of the mesh) and active (the active targets' deltas) with the
 * previous morph.comp and the current one (sinew_debug_set_morph_kernel), lists
 * (host-built lists of the touched rows and deltas), and the lean reference
 * kernel (x lean: its extra time over the case's).
 * Per case: median frame ms, extra ms over plain, and the extra cost per moved
 * vertex, per stored delta and per active target (of one character) of all
 * morphed characters; plain skinning's cost per skinned vertex beside it; and
 * against the copy roofline measured in the same run (sinew_debug_measure_roofline):
 * the bytes the pass must move (each active delta's 32 B entry and 4 B weight, each
 * written vertex's 16 B read and 16 B write: the data layout of morph.comp), over
 * the extra time, as a fraction of the roofline's GB/s (roof%). The same for the
 * morph stage alone (sinew_skinner_gpu_stage_times: pass_ms, p.lean, p.roof%),
 * free of the skinning's share of the frame. */
#define _POSIX_C_SOURCE 200809L
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
#include <sinew/debug.h>
#include "sinew_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define NSET 4

typedef struct tset {
    const char *name;
    uint32_t targets, per_target, region, active;
} tset;

static const tset SETS[NSET] = {
    { "dense-64 (8 active)", 64, 819, 16386, 8 },
    { "dense-64 (64 active)", 64, 819, 16386, 64 },
    { "sparse-256 (16 active)", 256, 164, 16386, 16 },
    { "face-32 (32 active)", 32, 819, 1638, 32 },
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CHECK(e)                                                                              \
    do {                                                                                      \
        sinew_result r_ = (e);                                                                \
        if (r_ != SINEW_OK) {                                                                 \
            fprintf(stderr, "sinew-bench-morph: %s failed: %s\n", #e, sinew_result_string(r_)); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    /* sinew-bench-morph [ROUNDS [CHARACTERS]]: 9 rounds and 32 characters by default (a large
     * GPU wants a few hundred characters to leave launch latency behind) */
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 2 || rounds > 100) rounds = 9;
    int nchar = argc > 2 ? atoi(argv[2]) : 32;
    if (nchar < 1 || nchar > 4096) {
        fprintf(stderr, "sinew-bench-morph: CHARACTERS must be 1..4096\n");
        return 2;
    }
    const int NCHAR = nchar;
    scene_tube_desc d = { 512, 32, 0.1, 2.0, SCENE_SHAPE_TUBE };
    uint32_t nv, ni;
    scene_tube_counts(&d, &nv, &ni);
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * nv), *idx = malloc(sizeof(uint32_t) * ni);
    float *w4 = malloc(sizeof(float) * 4 * nv);
    CHECK(scene_tube_build(&d, pos, nrm, j4, w4, idx));
    sinew_skeleton *skel = NULL;
    CHECK(scene_tube_skeleton(NULL, &skel));
    sinew_rest_mesh_desc rd = { .skeleton = skel, .vertex_count = nv, .positions = pos, .normals = nrm,
                                .influences = { NULL, 4, j4, w4 } };
    sinew_rest_mesh *rm = NULL;
    CHECK(sinew_rest_mesh_create(&rd, &rm, NULL));

    sinew_gpu_desc gd = { 0 };
    sinew_gpu *gpu = NULL;
    CHECK(sinew_gpu_create(&gd, &gpu, NULL));
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 1 + NSET + NCHAR * NSET;
    sd.max_rest_vertices = nv * (1 + NCHAR * NSET);
    sd.max_output_vertices = nv * NCHAR;
    sd.max_instances = NCHAR;
    sinew_skinner *sk = NULL;
    CHECK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_mesh_id mesh;
    CHECK(sinew_skinner_add_rest_mesh(sk, rm, &mesh, NULL));
    sinew_morpher_desc mdsc = { 0 };
    mdsc.max_slots = NCHAR * NSET;
    mdsc.max_data_vec4 = 1u << 22;
    mdsc.max_weights = NCHAR * 256;
    mdsc.max_list_words = (uint32_t)NCHAR * 500000u; /* 5 per moved vertex + 8 per delta of the densest set */
    sinew_morpher *mo = NULL;
    CHECK(sinew_morpher_create(sk, &mdsc, &mo));
    /* the lean reference needs its host copy of the sets: selected before add_targets */
    CHECK(sinew_debug_set_morph_kernel(mo, SINEW_DEBUG_MORPH_PREVIOUS));
    CHECK(sinew_debug_set_morph_kernel(mo, SINEW_DEBUG_MORPH_LEAN));

    /* Target sets. */
    sinew_morph_set_id set[NSET];
    sinew_morph_slot_id *slot[NSET];
    for (int s = 0; s < NSET; s++) slot[s] = malloc(sizeof(sinew_morph_slot_id) * NCHAR);
    uint32_t moved[NSET], stored[NSET];
    /* per set, over all characters: deltas of the active targets and vertices they move */
    uint64_t act_deltas[NSET], act_written[NSET];
    uint8_t *used = malloc(nv);
    for (int s = 0; s < NSET; s++) {
        const tset *t = &SETS[s];
        sinew_morph_target *tg = calloc(t->targets, sizeof *tg);
        uint32_t *ix = malloc(sizeof(uint32_t) * t->targets * t->per_target);
        float *dp = malloc(sizeof(float) * 3 * t->targets * t->per_target);
        float *dn = malloc(sizeof(float) * 3 * t->targets * t->per_target);
        for (uint32_t k = 0; k < t->targets; k++) {
            memset(used, 0, nv);
            uint32_t c = t->per_target < t->region ? t->per_target : t->region;
            for (uint32_t e = 0; e < c; e++) {
                uint32_t i;
                do i = rnd(t->region); while (used[i]);
                used[i] = 1;
                ix[k * t->per_target + e] = i;
                for (int a = 0; a < 3; a++) {
                    dp[3 * (k * t->per_target + e) + a] = 0.01f * (float)(rnd(200) - 100) / 100.0f;
                    dn[3 * (k * t->per_target + e) + a] = 0.1f * (float)(rnd(200) - 100) / 100.0f;
                }
            }
            sinew_morph_target g = { NULL, c, ix + k * t->per_target, dp + 3 * k * t->per_target,
                                     dn + 3 * k * t->per_target };
            tg[k] = g;
        }
        sinew_morph_error err;
        sinew_result r = sinew_morpher_add_targets(mo, mesh, tg, t->targets, &set[s], &err);
        if (r != SINEW_OK) {
            fprintf(stderr, "add_targets: %s\n", err.message);
            return 1;
        }
        CHECK(sinew_morpher_set_stats(mo, set[s], &moved[s], &stored[s]));
        act_deltas[s] = act_written[s] = 0;
        for (int c = 0; c < NCHAR; c++) { /* the weights the timing loop gives character c */
            memset(used, 0, nv);
            for (uint32_t a = 0; a < t->active; a++) {
                uint32_t k = (a * 7919u + (uint32_t)c) % t->targets;
                act_deltas[s] += tg[k].count;
                for (uint32_t e = 0; e < tg[k].count; e++) {
                    act_written[s] += !used[tg[k].indices[e]];
                    used[tg[k].indices[e]] = 1;
                }
            }
        }
        for (int c = 0; c < NCHAR; c++) CHECK(sinew_morpher_add_slot(mo, set[s], &slot[s][c]));
        free(tg); free(ix); free(dp); free(dn);
    }

    /* Palettes: every character bent differently. */
    uint32_t stride = sinew_palette_gpu_stride(SINEW_METHOD_LBS, 0);
    float *pal = malloc(sizeof(float) * 4 * stride * 3 * NCHAR);
    for (int c = 0; c < NCHAR; c++) {
        sinew_transform loc[3];
        sinew_mat4 scratch[16];
        sinew_palette_joint pj[3];
        scene_tube_pose(0.02 * c, 0.01 * c, NULL, loc);
        CHECK(sinew_palette_build(skel, SINEW_METHOD_LBS, loc, NULL, scratch, pj));
        CHECK(sinew_palette_pack(SINEW_METHOD_LBS, 0, pj, 3, pal + 4 * stride * 3 * c));
    }
    float *w = calloc(NCHAR * 256, sizeof(float));
    sinew_instance *inst = malloc(sizeof *inst * NCHAR);
    sinew_morph_item *items = malloc(sizeof *items * NCHAR);
    sinew_mesh_id *meshes = malloc(sizeof *meshes * NCHAR);
    /* per set: rows and active pass with the previous and the current kernel, then the lean reference */
    enum { NPER = 6, NCASE = 2 + NPER * NSET };
    static const int case_pass[NPER] = { 0, 0, 1, 1, 2, 3 };          /* rows, active, lists, lean */
    static const sinew_debug_morph_kernel case_kernel[NPER] = {
        SINEW_DEBUG_MORPH_PREVIOUS, SINEW_DEBUG_MORPH_CURRENT, SINEW_DEBUG_MORPH_PREVIOUS, SINEW_DEBUG_MORPH_CURRENT,
        SINEW_DEBUG_MORPH_CURRENT, SINEW_DEBUG_MORPH_LEAN };
    static const sinew_morph_pass case_api[NPER] = { SINEW_MORPH_PASS_ROWS, SINEW_MORPH_PASS_ROWS,
                                                     SINEW_MORPH_PASS_ACTIVE, SINEW_MORPH_PASS_ACTIVE,
                                                     SINEW_MORPH_PASS_LISTS, SINEW_MORPH_PASS_ROWS };
    double *ms = calloc((size_t)NCASE * rounds, sizeof(double));
    double *host_ms = calloc((size_t)NCASE * rounds, sizeof(double)); /* sinew_morpher_set_frame's wall time */
    double *pass_ms = calloc((size_t)NCASE * rounds, sizeof(double)); /* the morph stage alone (stage times) */
    for (int round = 0; round < rounds; round++)
        for (int cs = 0; cs < NCASE; cs++) {
            sinew_frame fr;
            CHECK(sinew_skinner_begin_frame(sk, &fr));
            memcpy(fr.palette, pal, sizeof(float) * 4 * stride * 3 * NCHAR);
            int s = cs >= 2 ? (cs - 2) / NPER : 0, q = cs >= 2 ? (cs - 2) % NPER : 1;
            CHECK(sinew_morpher_set_pass(mo, case_api[q]));
            CHECK(sinew_debug_set_morph_kernel(mo, case_kernel[q]));
            uint32_t nt = SETS[s].targets;
            for (int c = 0; c < NCHAR; c++) {
                float *wc = w + 256 * c;
                memset(wc, 0, sizeof(float) * nt);
                if (cs >= 2)
                    for (uint32_t a = 0; a < SETS[s].active; a++) wc[(a * 7919u + (uint32_t)c) % nt] = 0.5f + 0.01f * a;
                items[c].slot = slot[s][c];
                items[c].weights = wc;
                items[c].weight_count = nt;
            }
            sinew_morph_error err;
            double t0 = now_s();
            sinew_result fr_r = cs >= 1 ? sinew_morpher_set_frame(mo, items, NCHAR, meshes, &err)
                                        : sinew_morpher_set_frame(mo, NULL, 0, NULL, &err);
            if (fr_r != SINEW_OK) {
                fprintf(stderr, "sinew-bench-morph: sinew_morpher_set_frame failed: %s\n", err.message);
                return 1;
            }
            host_ms[round * NCASE + cs] = (now_s() - t0) * 1e3;
            for (int c = 0; c < NCHAR; c++) {
                sinew_instance in = { cs >= 1 ? meshes[c] : mesh, SINEW_METHOD_LBS, 0, stride * 3 * (uint32_t)c,
                                      nv * (uint32_t)c };
                inst[c] = in;
            }
            CHECK(sinew_skinner_set_instances(sk, inst, NCHAR, NULL));
            CHECK(sinew_skinner_submit(sk));
            CHECK(sinew_skinner_wait(sk));
            CHECK(sinew_skinner_gpu_time(sk, &ms[round * NCASE + cs]));
            double skin_ms;
            CHECK(sinew_skinner_gpu_stage_times(sk, &pass_ms[round * NCASE + cs], &skin_ms));
        }
    sinew_copy_roofline roof;
    char roof_text[256];
    CHECK(sinew_debug_measure_roofline(gpu, 5, &roof));
    printf("sinew-bench-morph: %s; %d characters x %u vertices, LBS, %d rounds round-robin (round 0 warm-up, "
           "medians)\n", sinew_gpu_info(gpu)->name, NCHAR, nv, rounds);
    printf("roofline (same run): shader copy %.2f GB/s, %s\n", roof.shader_copy_gbps,
           sinew_debug_roofline_describe(&roof, roof_text, sizeof roof_text));
    printf("%-24s %-6s %-8s %7s %8s %9s %9s %9s %10s %8s %8s %10s %8s %6s %6s %7s %8s %6s %7s\n", "case", "pass", "kernel", "targets", "moved",
           "deltas", "act.dlt", "frame_ms", "extra_ms", "ns/moved", "ns/delta", "us/act.tgt", "MB", "roof%", "x lean", "set_ms",
           "pass_ms", "p.lean", "p.roof%");
    double med[NCASE], hmed[NCASE], pmed[NCASE];
    double *tmp = malloc(sizeof(double) * rounds);
    for (int cs = 0; cs < NCASE; cs++) {
        for (int i = 1; i < rounds; i++) tmp[i - 1] = ms[i * NCASE + cs];
        qsort(tmp, (size_t)rounds - 1, sizeof(double), cmp_d);
        med[cs] = (rounds - 1) % 2 ? tmp[(rounds - 1) / 2] : 0.5 * (tmp[(rounds - 1) / 2 - 1] + tmp[(rounds - 1) / 2]);
        for (int i = 1; i < rounds; i++) tmp[i - 1] = host_ms[i * NCASE + cs];
        qsort(tmp, (size_t)rounds - 1, sizeof(double), cmp_d);
        hmed[cs] = (rounds - 1) % 2 ? tmp[(rounds - 1) / 2] : 0.5 * (tmp[(rounds - 1) / 2 - 1] + tmp[(rounds - 1) / 2]);
        for (int i = 1; i < rounds; i++) tmp[i - 1] = pass_ms[i * NCASE + cs];
        qsort(tmp, (size_t)rounds - 1, sizeof(double), cmp_d);
        pmed[cs] = (rounds - 1) % 2 ? tmp[(rounds - 1) / 2] : 0.5 * (tmp[(rounds - 1) / 2 - 1] + tmp[(rounds - 1) / 2]);
    }
    printf("%-24s %-6s %-8s %7s %8s %9s %9s %9.3f %10s   (plain skinning: %.2f ns per skinned vertex)\n",
           "plain (no morph)", "-", "-", "-", "-", "-", "-", med[0], "-", med[0] * 1e6 / ((double)nv * NCHAR));
    printf("%-24s %-6s %-8s %7s %8s %9s %9s %9.3f %10.3f\n", "all weights zero", "-", "-", "-", "0", "0", "0", med[1],
           med[1] - med[0]);
    static const char *kname[3] = { "current", "previous", "lean" }, *pname[4] = { "rows", "active", "lists", "-" };
    for (int s = 0; s < NSET; s++)
        for (int p = 0; p < NPER; p++) {
            double extra = med[2 + NPER * s + p] - med[0];
            double lean = med[2 + NPER * s + NPER - 1] - med[0];
            uint32_t act = SETS[s].active * (stored[s] / SETS[s].targets);
            double bytes = 36.0 * (double)act_deltas[s] + 32.0 * (double)act_written[s];
            double gbps = extra > 0 ? bytes / (extra * 1e-3) * 1e-9 : 0.0;
            double pass = pmed[2 + NPER * s + p], pass_lean = pmed[2 + NPER * s + NPER - 1];
            printf("%-24s %-6s %-8s %7u %8u %9u %9u %9.3f %10.3f %8.2f %8.2f %10.2f %8.2f %5.1f%% %6.2f %7.3f %8.3f %6.2f %6.1f%%\n", SETS[s].name,
                   pname[case_pass[p]], kname[case_kernel[p]], SETS[s].targets, moved[s], stored[s], act,
                   med[2 + NPER * s + p], extra, extra * 1e6 / ((double)moved[s] * NCHAR),
                   extra * 1e6 / ((double)stored[s] * NCHAR), extra * 1e3 / ((double)SETS[s].active * NCHAR),
                   bytes * 1e-6, roof.shader_copy_gbps > 0 ? 100.0 * gbps / roof.shader_copy_gbps : 0.0,
                   extra > 0 && lean > 0 ? lean / extra : 0.0, hmed[2 + NPER * s + p], pass,
                   pass > 0 && pass_lean > 0 ? pass_lean / pass : 0.0,
                   pass > 0 && roof.shader_copy_gbps > 0 ? 100.0 * bytes / (pass * 1e-3) * 1e-9 / roof.shader_copy_gbps : 0.0);
        }
    printf("(moved / deltas / act.dlt: per character: vertices any target moves, stored deltas, deltas of the active "
           "targets; ns per moved vertex / per stored delta, and us per active target of one character, over all %d "
           "morphed characters; the extra time includes the skinning reads of the copies; MB: bytes the pass must move "
           "per frame, all characters (36 B per active delta, 32 B per written vertex); roof%%: MB / extra_ms against the "
           "roofline's GB/s; x lean: the lean reference kernel's extra_ms over this case's, same set, same run; kernel: "
           "previous = morph.comp before 2026-11-27, current = morph.comp now, lean = the reference "
           "(sinew_debug_set_morph_kernel), its host-built lists in its set_ms; set_ms: sinew_morpher_set_frame's wall "
           "time on the host, all characters; pass_ms: the morph stage alone (sinew_skinner_gpu_stage_times: the pass and "
           "its barriers, without the skinning), p.lean: the lean kernel's pass_ms over this case's, p.roof%%: MB / pass_ms against the roofline)\n", NCHAR);
    if (sinew_debug_validation_enabled(gpu))
        printf("validation messages: %u\n", sinew_debug_validation_message_count(gpu));
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    sinew_rest_mesh_destroy(rm);
    sinew_skeleton_destroy(skel);
    free(pos); free(nrm); free(j4); free(idx); free(w4); free(used); free(pal); free(w); free(ms); free(host_ms); free(pass_ms); free(tmp);
    free(inst); free(items); free(meshes);
    for (int s = 0; s < NSET; s++) free(slot[s]);
    return 0;
}
