/* sinew-demo: skins the lab tube and bar with every method on the GPU and prints
 * (1) quality figures (middle radius, volume, distance-to-bone increase) for a
 *     180-degree twist, a 90-degree bend and both together, then the float64
 *     reference's sweeps (bend 0..150, twist 0..180: volume, candy-wrapper radius,
 *     distance-to-bone increase, temporal smoothness, normal consistency) for tube and
 *     bar, and the same variants on two real models over a clip, and
 * (2) throughput of one dispatch over a crowd of tubes against the copy
 *     roofline measured in the same run (compute-shader copy and vkCmdCopyBuffer). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <sinew/sinew.h>
#include <sinew/debug.h>
#include "sinew_scene.h"
#include "scene_psd.h"
#ifdef DEMO_WITH_ASSET
#include <sinew/asset.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every method (the CoR ones with the tube's centers of rotation). */
#define DEMO_METHODS ((int)SINEW_METHOD_COUNT)

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define CHECK(expr)                                                                              \
    do {                                                                                         \
        sinew_result r_ = (expr);                                                                \
        if (r_ != SINEW_OK) {                                                                    \
            fprintf(stderr, "sinew-demo: %s failed: %s\n", #expr, sinew_result_string(r_));      \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

typedef struct tube {
    scene_tube_desc d;
    uint32_t nv, ni;
    sinew_vertex *v;
    uint32_t *idx;
    float *bulge;
    float *cen;        /* centers of rotation (sinew_cor_compute) */
    double cen_ms;     /* what computing them took */
    sinew_skeleton *skel;
} tube;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "sinew-demo: out of memory\n");
        exit(1);
    }
    return p;
}

static void tube_make(uint32_t rings, uint32_t sectors, scene_shape shape, tube *t)
{
    memset(t, 0, sizeof *t);
    t->d.shape = shape;
    t->d.rings = rings;
    t->d.sectors = sectors;
    t->d.radius = 0.1;
    t->d.alpha = 2.0;
    scene_tube_counts(&t->d, &t->nv, &t->ni);
    if (!t->nv) {
        fprintf(stderr, "sinew-demo: bad tube size\n");
        exit(1);
    }
    float *pos = xmalloc(sizeof(float) * 3 * t->nv), *nrm = xmalloc(sizeof(float) * 3 * t->nv);
    uint32_t *j4 = xmalloc(sizeof(uint32_t) * 4 * t->nv);
    float *w4 = xmalloc(sizeof(float) * 4 * t->nv);
    t->idx = xmalloc(sizeof(uint32_t) * t->ni);
    t->v = xmalloc(sizeof(sinew_vertex) * t->nv);
    t->bulge = xmalloc(sizeof(float) * t->nv);
    CHECK(scene_tube_build(&t->d, pos, nrm, j4, w4, t->idx));
    sinew_influences inf = { 0 };
    inf.per_vertex = 4;
    inf.joints = j4;
    inf.weights = w4;
    CHECK(sinew_pack_vertices(t->nv, pos, nrm, &inf, 3, t->v, NULL, NULL));
    CHECK(scene_tube_skeleton(NULL, &t->skel));
    CHECK(sinew_bulge_rest_distances(t->skel, t->nv, t->v, t->bulge));
    /* centers of rotation for the CoR methods, on every core */
    sinew_thread_pool *pool = NULL;
    CHECK(sinew_thread_pool_create(NULL, &pool));
    sinew_cor_desc cd = { 0 };
    cd.vertex_count = t->nv;
    cd.vertices = t->v;
    cd.joint_count = 3;
    cd.triangle_count = t->ni / 3;
    cd.triangles = t->idx;
    cd.pool = pool;
    t->cen = xmalloc(sizeof(float) * 3 * t->nv);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(sinew_cor_compute(&cd, t->cen, NULL));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    t->cen_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    sinew_thread_pool_destroy(pool);
    free(pos);
    free(nrm);
    free(j4);
    free(w4);
}

static void tube_free(tube *t)
{
    sinew_skeleton_destroy(t->skel);
    free(t->v);
    free(t->idx);
    free(t->bulge);
    free(t->cen);
}

static const char *path_name(sinew_read_path p) { return p == SINEW_READ_TEXEL ? "texel" : "storage"; }

/* ---- (1) quality ---- */
static void quality(sinew_gpu *gpu, scene_shape shape)
{
    tube t;
    const char *shape_name = shape == SCENE_SHAPE_BAR ? "Bar" : "Tube";
    tube_make(64, 32, shape, &t);
    struct { const char *name; double bend, twist; } poses[3] = {
        { "twist 180", 0, M_PI }, { "bend 90", M_PI / 2, 0 }, { "bend 90 + twist 180", M_PI / 2, M_PI } };
    enum { NP = 3, NI = NP * DEMO_METHODS * 2 };
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = t.nv;
    sd.max_meshes = 1;
    sd.max_instances = NI;
    sd.max_output_vertices = NI * t.nv;
    sd.max_palette_vec4 = NI * 3 * SINEW_PALETTE_GPU_STRIDE_MAX;
    sd.cor_centers = true;
    sinew_skinner *sk;
    CHECK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_mesh_id mesh;
    sinew_skinner_mesh_desc md = { t.v, t.nv, 3, t.bulge };
    md.cor_centers = t.cen;
    CHECK(sinew_skinner_add_mesh(sk, &md, &mesh, NULL));
    static sinew_palette_joint pal[NI][3];
    sinew_instance inst[NI];
    sinew_frame fr;
    CHECK(sinew_skinner_begin_frame(sk, &fr));
    sinew_mat4 scratch[64];
    if (sinew_palette_scratch_count(3) > 64) exit(1);
    uint32_t off = 0;
    for (int i = 0; i < NI; i++) {
        int p = i / (DEMO_METHODS * 2), m = (i / 2) % DEMO_METHODS, b = i % 2;
        sinew_transform local[3];
        scene_tube_pose(poses[p].bend, poses[p].twist, NULL, local);
        CHECK(sinew_palette_build(t.skel, (sinew_method)m, local, NULL, scratch, pal[i]));
        uint32_t flags = b ? SINEW_SKIN_BULGE_CORRECTION : 0;
        sinew_palette_pack((sinew_method)m, flags, pal[i], 3, fr.palette + 4 * (size_t)off);
        sinew_instance in = { mesh, (sinew_method)m, flags, off, (uint32_t)i * t.nv };
        inst[i] = in;
        off += 3 * sinew_palette_gpu_stride((sinew_method)m, flags);
    }
    CHECK(sinew_skinner_set_instances(sk, inst, NI, NULL));
    CHECK(sinew_skinner_submit(sk));
    float *pos = xmalloc(sizeof(float) * 3 * t.nv);
    double *pd = xmalloc(sizeof(double) * 3 * t.nv);
    printf("%s quality (%u vertices, %s %.2f, GPU %s reads, all %d variants in one dispatch)\n", shape_name, t.nv,
           shape == SCENE_SHAPE_BAR ? "half width" : "radius", t.d.radius, path_name(sinew_skinner_read_path(sk)), NI);
    printf("  (cor: centers of rotation by sinew_cor_compute from the rest triangles, %.1f ms on %u threads)\n", t.cen_ms,
           sinew_cpu_count());
    for (int p = 0; p < NP; p++) {
        printf("\n  %s\n  %-22s %12s %12s %24s\n", poses[p].name, "method", "mid radius", "volume",
               "max dist-to-bone incr.");
        for (int m = 0; m < DEMO_METHODS; m++)
            for (int b = 0; b < 2; b++) {
                int i = (p * DEMO_METHODS + m) * 2 + b;
                CHECK(sinew_skinner_read_output(sk, (uint32_t)i * t.nv, t.nv, pos, NULL));
                for (uint32_t k = 0; k < 3 * t.nv; k++) pd[k] = pos[k];
                scene_tube_quality_result q;
                CHECK(scene_tube_quality(&t.d, t.v, t.bulge, pal[i], pd, &q));
                char name[64];
                snprintf(name, sizeof name, "%s%s", sinew_method_name((sinew_method)m), b ? " +bulge" : "");
                printf("  %-22s %11.1f%% %11.1f%% %17.4f (%4.0f%%)\n", name, 100 * q.middle_radius_ratio,
                       100 * q.volume_ratio, q.max_bone_distance_increase,
                       100 * q.max_bone_distance_increase / t.d.radius);
            }
    }
    printf("  (dist-to-bone increase in scene units and in %% of the radius / half width)\n\n");
    free(pos);
    free(pd);
    sinew_skinner_destroy(sk);
    tube_free(&t);
}

/* The sweeps of README's quality table, by the float64 reference (CPU), one row
 * per variant of scene_quality_methods (sinew_scene.c). */
static void sweeps(void)
{
    printf("Sweeps by the float64 reference (64 x 32, radius / half width 0.1, alpha 2, 1-degree steps):\n"
           "  volume: min..max over the sweep; radius: smallest middle-section radius kept (candy wrapper);\n"
           "  dist incr: largest increase of a vertex's distance to its major bone; jump ratio: largest\n"
           "  per-vertex jump between consecutive poses / that vertex's median jump (1 = uniform motion);\n"
           "  normal err: angle between the skinned normals and the normals of the skinned triangles,\n"
           "  largest / largest per-pose mean over the bend sweep (degrees)\n\n");
    printf("  %-5s %-16s | %-15s %9s %6s %13s | %-15s %7s %6s\n", "shape", "method", "bend 0-150: volume",
           "dist incr", "jump", "normal err", "twist 0-180: vol", "radius", "jump");
    for (int sh = 0; sh < 2; sh++)
        for (uint32_t k = 0; k < scene_quality_method_count; k++) {
            const scene_quality_method *qm = &scene_quality_methods[k];
            scene_tube_desc d = { 64, 32, 0.1, 2.0, (scene_shape)sh };
            scene_sweep_result b, tw;
            CHECK(scene_tube_sweep(&d, qm->method, qm->flags, SCENE_SWEEP_BEND, 150 * M_PI / 180, 150, &b));
            CHECK(scene_tube_sweep(&d, qm->method, qm->flags, SCENE_SWEEP_TWIST, M_PI, 180, &tw));
            printf("  %-5s %-16s | %6.1f..%5.1f%% %9.4f %6.2f %6.2f / %4.2f | %6.1f..%5.1f%% %6.1f%% %6.2f\n",
                   sh ? "bar" : "tube", qm->name, 100 * b.volume_min, 100 * b.volume_max, b.max_bone_distance_increase,
                   b.jump_ratio, b.normal_error_max_deg, b.normal_error_mean_deg, 100 * tw.volume_min,
                   100 * tw.volume_max, 100 * tw.radius_min, tw.jump_ratio);
        }
    printf("\n");
    printf("Bulge-corrected normals against the corrected mesh's triangle normals (float64, vertices the\n"
           "  correction moved; degrees max / mean): before = the DQS normals the correction used to leave,\n"
           "  after = the corrected surface's normals (reference.h step 4); plain DQS on its own mesh for scale\n\n");
    printf("  %-5s %-8s %8s | %-15s | %-15s | %-15s\n", "shape", "pose", "vertices", "before", "after", "plain DQS");
    for (int sh = 0; sh < 2; sh++) {
        static const struct { const char *name; double bend, twist; } bp[3] = {
            { "bend 45", M_PI / 4, 0 }, { "bend 90", M_PI / 2, 0 }, { "bend 135", 3 * M_PI / 4, 0 } };
        for (int k = 0; k < 3; k++) {
            scene_tube_desc d = { 64, 32, 0.1, 2.0, (scene_shape)sh };
            scene_bulge_normals_result q;
            CHECK(scene_tube_bulge_normals(&d, bp[k].bend, bp[k].twist, &q));
            printf("  %-5s %-8s %8u | %6.2f / %6.2f | %6.2f / %6.2f | %6.2f / %6.2f\n", sh ? "bar" : "tube", bp[k].name,
                   q.corrected, q.before_max, q.before_mean, q.after_max, q.after_mean, q.dqs_max, q.dqs_mean);
        }
    }
    printf("\n");
    printf("Bulge correction's inner side: the shipped correction vs SINEW_SKIN_BULGE_INNER (inner vertices pushed\n"
           "  back out to d0, faded below d0 / 2); DQS, bend 0..150 in 1-degree steps (float64):\n\n");
    printf("  %-5s %-12s | %9s %10s %9s %10s\n", "shape", "flags", "vol at 90", "vol min", "max jump", "folded 90");
    for (int sh = 0; sh < 2; sh++)
        for (int k = 0; k < 2; k++) {
            scene_tube_desc d = { 64, 32, 0.1, 2.0, (scene_shape)sh };
            scene_inner_result q;
            uint32_t fl = SINEW_SKIN_BULGE_CORRECTION | (k ? SINEW_SKIN_BULGE_INNER : 0u);
            CHECK(scene_tube_inner_volume(&d, fl, 150 * M_PI / 180, 150, &q));
            printf("  %-5s %-12s | %8.1f%% %9.1f%% %9.4f %10u\n", sh ? "bar" : "tube", k ? "bulge +inner" : "bulge",
                   100 * q.volume_at_90, 100 * q.volume_min, q.max_jump, q.folded_at_90);
        }
    printf("  (folded: side vertices inside the other bone's capsule at 90 degrees)\n\n");
}

/* The same variants on imported models over their first clip (file weights). */
static void model_quality(const char *const *paths, int count, uint32_t frames)
{
#ifdef DEMO_WITH_ASSET
    printf("Real models, %u frames of clip 0, file weights, float64 reference (distances %% of the model's size;\n"
           "  dist+: increase of a vertex's distance to its major bone; jump: largest per-vertex jump / its median;\n"
           "  inner push: largest move by SINEW_SKIN_BULGE_INNER; intruded: vertex-frames it moved inside their\n"
           "  second joint's rest distance to that bone, closer than without it):\n\n",
           frames);
    printf("  %-28s %6s %-18s %10s %10s %8s %10s %10s %9s\n", "model", "verts", "method", "max dist+", "p99 dist+", "jump",
           "max jump", "inner push", "intruded");
    for (int i = 0; i < count; i++) {
        sinew_error_info e;
        sinew_asset_desc ad;
        sinew_asset *a = NULL;
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        memset(&ad, 0, sizeof ad);
        ad.path = paths[i];
        ad.flags = SINEW_ASSET_ALLOW_MISSING_BONES;
        if (sinew_asset_load(&ad, &a, &e) != SINEW_OK) {
            printf("  %-28s not loaded (%s), skipped\n", base, e.message);
            continue;
        }
        for (uint32_t k = 0; k < scene_quality_method_count; k++) {
            const scene_quality_method *qm = &scene_quality_methods[k];
            scene_model_quality_result q;
            sinew_result r = scene_model_quality(a, qm, frames, &q);
            char name[64];
            if (r != SINEW_OK) {
                printf("  %-28s %6u %-18s %s\n", base, sinew_asset_vertex_count(a), qm->name, sinew_result_string(r));
                continue;
            }
            snprintf(name, sizeof name, "%s%s", qm->name, q.method_used != qm->method ? " (scale)" : "");
            if (qm->flags & SINEW_SKIN_BULGE_INNER)
                printf("  %-28s %6u %-18s %9.2f%% %9.2f%% %8.2f %9.2f%% %9.2f%% %9u\n", base, sinew_asset_vertex_count(a),
                       name, 100 * q.max_increase, 100 * q.p99_increase, q.jump_ratio, 100 * q.max_jump,
                       100 * q.max_inner_push, q.intruded);
            else
                printf("  %-28s %6u %-18s %9.2f%% %9.2f%% %8.2f %9.2f%%\n", base, sinew_asset_vertex_count(a), name,
                       100 * q.max_increase, 100 * q.p99_increase, q.jump_ratio, 100 * q.max_jump);
        }
        sinew_asset_destroy(a);
    }
    printf("\n");
#else
    (void)paths; (void)count; (void)frames;
    printf("Real models: built without sinew_asset, skipped\n\n");
#endif
}

/* ---- (2) throughput ---- */
typedef struct variant {
    sinew_method method;
    uint32_t flags;
    sinew_output_format fmt;
    sinew_read_path path;
    double ms[64];
} variant;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void throughput(sinew_gpu *gpu, uint32_t chars, uint32_t runs)
{
    tube t;
    tube_make(128, 128, SCENE_SHAPE_TUBE, &t); /* 16386 vertices */
    uint64_t total = (uint64_t)chars * t.nv;
    sinew_skinner *sk[2];
    sinew_mesh_id mesh[2];
    for (int f = 0; f < 2; f++) {
        sinew_skinner_desc sd = { 0 };
        sd.max_rest_vertices = t.nv;
        sd.max_meshes = 1;
        sd.max_instances = chars;
        sd.max_output_vertices = (uint32_t)total;
        sd.max_palette_vec4 = chars * 3 * SINEW_PALETTE_GPU_STRIDE_MAX;
        sd.output_format = (sinew_output_format)f;
        sd.cor_centers = true;
        CHECK(sinew_skinner_create(gpu, &sd, &sk[f], NULL));
        sinew_skinner_mesh_desc md = { t.v, t.nv, 3, t.bulge };
        md.cor_centers = t.cen;
        CHECK(sinew_skinner_add_mesh(sk[f], &md, &mesh[f], NULL));
    }
    sinew_read_path def = sinew_skinner_read_path(sk[0]);
    variant vars[2 * DEMO_METHODS + 3];
    int nvar = 0;
    for (int m = 0; m < DEMO_METHODS; m++)
        for (int p = 1; p <= 2; p++) {
            variant v = { (sinew_method)m, 0, SINEW_OUTPUT_FLOAT, (sinew_read_path)p, { 0 } };
            vars[nvar++] = v;
        }
    variant extra[3] = { { SINEW_METHOD_LBS, SINEW_SKIN_BULGE_CORRECTION, SINEW_OUTPUT_FLOAT, def, { 0 } },
                         { SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, SINEW_OUTPUT_FLOAT, def, { 0 } },
                         { SINEW_METHOD_DQS, 0, SINEW_OUTPUT_PACKED, def, { 0 } } };
    for (int i = 0; i < 3; i++) vars[nvar++] = extra[i];

    /* Palettes per method (flags 0 and bulge), a different bend/twist per character. */
    sinew_palette_joint(*pal)[3] = xmalloc(sizeof(sinew_palette_joint) * 3 * chars * DEMO_METHODS);
    sinew_mat4 scratch[64];
    for (int m = 0; m < DEMO_METHODS; m++)
        for (uint32_t c = 0; c < chars; c++) {
            sinew_transform local[3];
            scene_tube_pose(M_PI / 2 * (c % 7) / 6.0, M_PI * (c % 5) / 4.0, NULL, local);
            CHECK(sinew_palette_build(t.skel, (sinew_method)m, local, NULL, scratch, pal[m * chars + c]));
        }
    sinew_instance *inst = xmalloc(sizeof(sinew_instance) * chars);
    if (runs > 64) runs = 64;
    const uint32_t warm = 3;
    sinew_copy_roofline roof[2];
    for (uint32_t rep = 0; rep < warm + runs; rep++) {
        if (rep == warm) CHECK(sinew_debug_measure_roofline(gpu, 7, &roof[0]));
        for (int i = 0; i < nvar; i++) { /* round-robin: every variant sees the same machine state */
            variant *v = &vars[i];
            sinew_skinner *s = sk[v->fmt];
            CHECK(sinew_skinner_set_read_path(s, v->path));
            sinew_frame fr;
            CHECK(sinew_skinner_begin_frame(s, &fr));
            uint32_t stride = sinew_palette_gpu_stride(v->method, v->flags);
            for (uint32_t c = 0; c < chars; c++) {
                sinew_palette_pack(v->method, v->flags, pal[v->method * chars + c], 3, fr.palette + 4 * (size_t)(c * 3 * stride));
                sinew_instance in = { mesh[v->fmt], v->method, v->flags, c * 3 * stride, c * t.nv };
                inst[c] = in;
            }
            CHECK(sinew_skinner_set_instances(s, inst, chars, NULL));
            CHECK(sinew_skinner_submit(s));
            CHECK(sinew_skinner_wait(s));
            double ms;
            CHECK(sinew_skinner_gpu_time(s, &ms));
            if (rep >= warm) v->ms[rep - warm] = ms;
        }
    }
    CHECK(sinew_debug_measure_roofline(gpu, 7, &roof[1]));
    double shader_gbps = 0.5 * (roof[0].shader_copy_gbps + roof[1].shader_copy_gbps);
    double xfer_gbps = 0.5 * (roof[0].transfer_copy_gbps + roof[1].transfer_copy_gbps);

    printf("Throughput: %u characters x %u vertices = %llu vertices per dispatch, 3 joints each;\n"
           "median of %u timed frames after %u warm-up (timestamp queries), variants round-robin\n",
           chars, t.nv, (unsigned long long)total, runs, warm);
    char roof_what[192];
    printf("Roofline (sinew_debug_measure_roofline, the same as sinew-bench: %s; read through %s buffers as the "
           "kernel reads here; median of 7, measured before and after): compute-shader copy %.2f GB/s (%.2f / %.2f), "
           "vkCmdCopyBuffer %.2f GB/s (%.2f / %.2f)\n\n",
           sinew_debug_roofline_describe(&roof[0], roof_what, sizeof roof_what),
           roof[0].read_path == SINEW_READ_TEXEL ? "texel" : "storage", shader_gbps, roof[0].shader_copy_gbps,
           roof[1].shader_copy_gbps, xfer_gbps, roof[0].transfer_copy_gbps, roof[1].transfer_copy_gbps);
    printf("  %-22s %-7s %-6s %9s %11s %8s %8s %10s %10s\n", "method", "reads", "output", "ms", "Mvert/s", "B/vert",
           "GB/s", "of shader", "of xfer");
    for (int i = 0; i < nvar; i++) {
        variant *v = &vars[i];
        qsort(v->ms, runs, sizeof(double), cmp_d);
        double ms = v->ms[runs / 2];
        double vps = (double)total / (ms * 1e-3);
        /* Bytes per vertex: rest vertex read (32) + bulge distance (4) + CoR center (16) + output write;
         * palette reads are per joint, not per vertex (a few KB per dispatch here). */
        double bpv = 32 + (v->flags ? 4 : 0) + (sinew_method_uses_centers(v->method) ? 16 : 0) + (v->fmt == SINEW_OUTPUT_PACKED ? 16 : 24);
        double gbps = vps * bpv * 1e-9;
        char name[64];
        snprintf(name, sizeof name, "%s%s", sinew_method_name(v->method), v->flags ? " +bulge" : "");
        printf("  %-22s %-7s %-6s %9.2f %11.1f %8.0f %8.2f %9.0f%% %9.0f%%\n", name, path_name(v->path),
               v->fmt == SINEW_OUTPUT_PACKED ? "packed" : "float", ms, vps * 1e-6, bpv, gbps,
               100 * gbps / shader_gbps, 100 * gbps / xfer_gbps);
    }
    printf("\n  default read path on this device: %s\n", path_name(def));
    free(pal);
    free(inst);
    sinew_skinner_destroy(sk[0]);
    sinew_skinner_destroy(sk[1]);
    tube_free(&t);
}

/* ---- pose-space correctives (scene_psd.c) ---- */
static void correctives(sinew_gpu *gpu)
{
    static psd_report rep;
    printf("\n");
    CHECK(scene_psd_run(&rep, gpu));
    scene_psd_print(&rep);
}

static void usage(void)
{
    printf("usage: sinew-demo [--device SEL] [--characters N] [--runs N] [--help]\n"
           "  --device SEL     device index or case-insensitive name substring (default: SINEW_DEVICE, else\n"
           "                   the best by type: discrete, integrated, virtual, CPU)\n"
           "  --characters N   tubes of 16386 vertices in the throughput dispatch (default 64)\n"
           "  --runs N         timed frames per variant, at most 64 (default 9)\n"
           "  --model PATH     a model for the real-model quality table (repeatable; default the two X rigs\n"
           "                   of assimp's test models)\n"
           "Environment: SINEW_VALIDATION=1 enables the Vulkan validation layer.\n");
}

int main(int argc, char **argv)
{
    const char *device = NULL;
    uint32_t chars = 64, runs = 9;
    /* the two rigs of README's real-model quality table (Debian assimp-testmodels) */
    static const char *default_models[] = { "/usr/share/assimp/models/X/Testwuson.X",
                                            "/usr/share/assimp/models/X/BCN_Epileptic.X" };
    const char *models[16];
    int model_count = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
        } else if (!strcmp(argv[i], "--characters") && i + 1 < argc) {
            long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > 256) {
                fprintf(stderr, "sinew-demo: --characters must be 1..256\n");
                return 2;
            }
            chars = (uint32_t)v;
        } else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            if (model_count == 16) {
                fprintf(stderr, "sinew-demo: at most 16 --model\n");
                return 2;
            }
            models[model_count++] = argv[++i];
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            long v = strtol(argv[++i], NULL, 10);
            if (v < 1 || v > 64) {
                fprintf(stderr, "sinew-demo: --runs must be 1..64\n");
                return 2;
            }
            runs = (uint32_t)v;
        } else {
            fprintf(stderr, "sinew-demo: unknown argument '%s'\n", argv[i]);
            usage();
            return 2;
        }
    }
    if (model_count == 0)
        for (int i = 0; i < 2; i++) models[model_count++] = default_models[i];
    sinew_gpu_desc gd = { 0 };
    gd.device = device;
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew-demo: no GPU context: %s\n", sinew_result_string(r));
        return 1;
    }
    const sinew_gpu_device_info *info = sinew_gpu_info(gpu);
    printf("Device: %s (Vulkan %u.%u)\n\n", info->name, VK_API_VERSION_MAJOR(info->api_version),
           VK_API_VERSION_MINOR(info->api_version));
    quality(gpu, SCENE_SHAPE_TUBE);
    quality(gpu, SCENE_SHAPE_BAR);
    sweeps();
    model_quality(models, model_count, 60);
    correctives(gpu);
    throughput(gpu, chars, runs);
    if (sinew_debug_validation_enabled(gpu))
        printf("\nvalidation messages: %u\n", sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    return 0;
}
