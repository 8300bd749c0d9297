/* sinew-bench: the crowd path (CPU palettes on all cores -> ONE compute
 * dispatch) per method and crowd size, for the tube and a real model, against
 * a copy roofline measured on the same device in the same run, and the float64
 * CPU reference as a baseline. Table on stdout, CSV + JSON + gnuplot PNG in
 * the output directory. See bench/RESULTS.md. */
#define _POSIX_C_SOURCE 200809L
#include "demo_scene.h"
#include "bench_cpu.h"
#include "bench_scene.h"
#include "bench_util.h"
#include <sinew/debug.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

/* Under valgrind's callgrind (bench/count_instructions.sh), the kernel A/B
 * dumps the instructions of each dispatch (submit + wait, every thread) as its
 * own profile part, labelled with the case; optional: valgrind's header. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define SNW_BENCH_CALLGRIND 1
#endif
#endif

/* A benchmarked variant: a method plus flags. */
typedef struct variant { const char *name; sinew_method method; uint32_t flags; } variant;
static const variant VARIANTS[] = {
    { "lbs", SINEW_METHOD_LBS, 0 },
    { "dqs", SINEW_METHOD_DQS, 0 },
    { "dqs-scale", SINEW_METHOD_DQS_SCALE, 0 },
    { "dqs-scale-local", SINEW_METHOD_DQS_SCALE_LOCAL, 0 },
    { "dqs-scale-mixed", SINEW_METHOD_DQS_SCALE_MIXED, 0 },
    { "dqs+bulge", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION },
    { "cor", SINEW_METHOD_COR, 0 },
    { "cor-scale", SINEW_METHOD_COR_SCALE, 0 },
    { "cor-scale-local", SINEW_METHOD_COR_SCALE_LOCAL, 0 },
    { "cor-scale-mixed", SINEW_METHOD_COR_SCALE_MIXED, 0 },
    /* only when named by --methods (not in the default sweep) */
    { "dqs-scale+bulge", SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION },
    { "dqs+bulge+inner", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION | SINEW_SKIN_BULGE_INNER },
};
#define NVAR ((int)(sizeof VARIANTS / sizeof VARIANTS[0]))
#define NVAR_DEFAULT 10 /* the default sweep: VARIANTS[0 .. NVAR_DEFAULT - 1] */

typedef struct row {
    char model[64];
    const variant *var;
    uint32_t chars, verts_per_char, joints_per_char;
    uint64_t vertices;
    double cpu_ms, gpu_ms, wall_ms;       /* medians; wall = frames in flight, per frame */
    double joints_per_s, verts_per_s;
    double bytes_per_vertex, gbps, roofline;
    double ref_verts_per_s;               /* float64 reference, 1 thread, same model + method */
    int capped;                           /* size reduced by the vertex budget */
    const char *error;                    /* non-NULL: not measured */
} row;

#define MAX_ROWS 256
static row rows[MAX_ROWS];
static int nrows;

typedef struct options {
    int full;
    const char *out_dir;
    const char *model_path;
    uint64_t budget;                      /* vertices per frame, 0 = none */
    uint32_t sizes[16];
    int nsizes;
    double seconds_per_case;
    sinew_output_format format;
    sinew_read_path read_path;
    int variants_only;
    int skip_variants;
    int kernel_rounds;                    /* kernel A/B rounds, 0 = skip */
    const char *kernel_cases;             /* comma-separated kernel A/B case names, NULL = all */
    int kernels_only;
    int cpu_only;                         /* --cpu-only: bench_cpu.c, no GPU */
    double scale_fraction;                /* --scale-fraction F (--cpu-only): real scale on a fraction F of the joints */
    int bounds;                           /* --bounds (with --cpu-only): the culling boxes' overhead */
    int compressed;                       /* --compressed (--cpu-only): compressed clips (bench_clip.c) */
    double compress_tol;                  /* --compress-tolerance T: their bound (0 = 1e-4 x skeleton size) */
    int compress_per_track;               /* --compress-keys per-track (default shared) */
    const char *methods;                  /* --methods: comma-separated VARIANTS names, NULL = the default sweep */
    uint32_t tube_vertices;               /* --tube-vertices: tube of about this many vertices, 0 = 32 x 16 */
    int device_info;                      /* --device-info: the device, driver and limits, then exit */
    int roofline_only;                    /* --roofline-only: the device and the copy roofline, then exit */
    const char *scene;                    /* --scene crowd: bench_scene.c instead of the sweep */
    uint32_t frames;                      /* --frames N (--scene): measured frames per size */
    int no_render;                        /* --no-render (--scene): skip the render stage */
    int no_bone_lod;                      /* --no-bone-lod (--scene): joint_lod 0 in every band */
    const char *scene_state;              /* --scene-state FILE (--scene): world transforms after the first size */
} options;

static double reference_rate(const demo_model *m, const variant *v)
{
    uint32_t jc = sinew_skeleton_joint_count(m->skel);
    sinew_palette_joint *pal = malloc(sizeof *pal * jc);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(jc));
    sinew_transform *local = malloc(sizeof(sinew_transform) * jc);
    double *pos = malloc(sizeof(double) * 3 * m->vertex_count), *nrm = malloc(sizeof(double) * 3 * m->vertex_count);
    double rate = 0;
    if (pal && scratch && local && pos && nrm && demo_model_centers((demo_model *)m) == SINEW_OK) {
        int flag = v->method >= SINEW_METHOD_DQS_SCALE && v->method != SINEW_METHOD_COR; /* scaling motion */
        sinew_result r = m->clip ? sinew_clip_sample(m->clip, m->skel, 0.3, SINEW_WRAP_LOOP, local)
                                 : demo_tube_motion(flag ? &flag : NULL, m->skel, 0, 0.3, local);
        if (r == SINEW_OK) r = sinew_palette_build(m->skel, v->method, local, NULL, scratch, pal);
        if (r == SINEW_OK) {
            double t0 = now_s(), t = 0;
            uint64_t verts = 0;
            do {
                sinew_reference_skin_cor(m->vertex_count, m->vertices, NULL, m->centers, m->bulge, pal, jc, v->method, v->flags,
                                         pos, nrm);
                verts += m->vertex_count;
                t = now_s() - t0;
            } while (t < 0.15);
            rate = (double)verts / t;
        }
    }
    free(pal); free(scratch); free(local); free(pos); free(nrm);
    return rate;
}

/* Runs one case: frames until seconds_per_case (at least 3 measured after 1 warm-up). */
static void run_case(sinew_skinner *sk, sinew_crowd *crowd, const demo_model *m, sinew_model_id model_id,
                     const variant *v, uint32_t count, const options *o, double copy_gbps, row *out)
{
    demo_crowd dc;
    memset(&dc, 0, sizeof dc);
    out->var = v;
    out->chars = count;
    out->verts_per_char = m->vertex_count;
    out->joints_per_char = sinew_skeleton_joint_count(m->skel);
    out->vertices = (uint64_t)count * m->vertex_count;
    snprintf(out->model, sizeof out->model, "%s", m->name);
    if (demo_crowd_setup(&dc, m, model_id, count, (int)v->method, v->flags) != SINEW_OK) {
        out->error = "out of host memory";
        return;
    }
    double cpu[64], gpu[64];
    int n = 0;
    double t_start = now_s();
    sinew_crowd_stats st;
    memset(&st, 0, sizeof st);
    sinew_error_info cerr;
    sinew_result r = SINEW_OK;
    for (int f = 0; f < 64; f++) {
        demo_crowd_animate(&dc, 0.05 * f);
        r = sinew_crowd_update(crowd, dc.chars, count, &st, &cerr);
        if (r == SINEW_OK) r = sinew_skinner_wait(sk);
        double g = 0;
        if (r == SINEW_OK) r = sinew_skinner_gpu_time(sk, &g);
        if (r != SINEW_OK) break;
        if (f > 0) { /* frame 0 warms up (pipeline compilation, first touches) */
            cpu[n] = st.cpu_ms;
            gpu[n] = g;
            n++;
        }
        if (n >= 3 && now_s() - t_start > o->seconds_per_case) break;
    }
    if (r != SINEW_OK) {
        out->error = sinew_result_string(r);
        if (cerr.result != SINEW_OK) fprintf(stderr, "sinew_crowd_update: %s\n", cerr.message);
        demo_crowd_free(&dc);
        return;
    }
    /* frames in flight: prepare N+1 while the GPU skins N; wall time per frame */
    int nf = n < 3 ? 3 : n;
    double w0 = now_s();
    for (int f = 0; f < nf && r == SINEW_OK; f++) {
        demo_crowd_animate(&dc, 0.05 * f);
        r = sinew_crowd_update(crowd, dc.chars, count, NULL, &cerr);
    }
    sinew_skinner_wait(sk);
    out->wall_ms = (now_s() - w0) * 1e3 / nf;
    out->cpu_ms = median(cpu, n);
    out->gpu_ms = median(gpu, n);
    out->joints_per_s = (double)st.joints / (out->cpu_ms * 1e-3);
    out->verts_per_s = (double)out->vertices / (out->gpu_ms * 1e-3);
    sinew_output_binding ob;
    sinew_skinner_output_binding(sk, &ob);
    /* compulsory traffic: rest vertex + output vertex (+ bulge distance), plus the
     * palette read once per character, spread over its vertices */
    double palette_bytes = (double)st.palette_vec4 * 16.0;
    out->bytes_per_vertex = 32.0 + ob.stride + ((v->flags & SINEW_SKIN_BULGE_CORRECTION) ? 4.0 : 0.0) +
                            palette_bytes / (double)out->vertices;
    out->gbps = out->bytes_per_vertex * out->verts_per_s * 1e-9;
    out->roofline = copy_gbps > 0 ? out->gbps / copy_gbps : 0;
    demo_crowd_free(&dc);
}

static void print_row(const row *r)
{
    if (r->error) {
        printf("%-16s %-16s %6u %9llu   n/a: %s\n", r->model, r->var->name, r->chars, (unsigned long long)r->vertices,
               r->error);
        return;
    }
    printf("%-16s %-16s %6u%s %9llu %8.3f %8.1f %9.3f %8.2f %7.1f %6.2f %5.1f%% %8.3f %7.2f\n", r->model, r->var->name,
           r->chars, r->capped ? "*" : " ", (unsigned long long)r->vertices, r->cpu_ms, r->joints_per_s * 1e-6,
           r->gpu_ms, r->verts_per_s * 1e-6, r->bytes_per_vertex, r->gbps, 100 * r->roofline, r->wall_ms,
           r->ref_verts_per_s * 1e-6);
    fflush(stdout);
}

static void print_header(void)
{
    printf("%-16s %-16s %7s %9s %8s %8s %9s %8s %7s %6s %6s %8s %7s\n", "model", "method", "chars", "vertices",
           "cpu_ms", "Mjoint/s", "gpu_ms", "Mvert/s", "B/vert", "GB/s", "roof", "frame_ms", "ref_Mv/s");
}

static int parse_sizes(const char *s, options *o)
{
    o->nsizes = 0;
    while (*s && o->nsizes < 16) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 1000000) return 0;
        o->sizes[o->nsizes++] = (uint32_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return o->nsizes > 0;
}

static int kb_selected(const char *list, const char *name);

/* Whether the crowd sweep runs VARIANTS[vi]. */
static int variant_selected(const options *o, int vi)
{
    return o->methods ? kb_selected(o->methods, VARIANTS[vi].name) : vi < NVAR_DEFAULT;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: sinew-bench [--full] [--out DIR] [--model FILE|none] [--sizes 1,10,100]\n"
            "                   [--budget VERTICES] [--seconds S] [--format float|packed]\n"
            "                   [--read-path auto|storage|texel] [--no-variants]\n"
            "                   [--kernel-rounds N (0 = skip the kernel A/B)] [--kernel-cases dqs,dqs-scale,...]\n"
            "                   [--kernel-chars N (kernel A/B characters x 16384 vertices, default 64)]\n"
            "                   [--pipeline-stats (after the kernel A/B: the driver's statistics per pipeline)]\n"
            "                   [--kernels-only] [--cpu-only [--scale-fraction F] [--blend K] [--layers L] [--bounds]\n"
            "                   [--compressed]]\n"
            "                   [--cor-precompute]\n"
            "                   [--methods lbs,dqs,...] [--tube-vertices N] [--device-info] [--roofline-only]\n"
            "  default: sizes 1,10,100,1000,10000, at most 4M skinned vertices per frame on CPU\n"
            "  devices (larger sizes are capped and marked *), --full: no cap.\n"
            "  --cpu-only: CPU palette throughput only (64 and 40 joints, 1..10000 characters, every\n"
            "  method, 1 and all threads, per-step breakdown, float64 before vs float32 after; --methods\n"
            "  and --sizes (up to 10000) narrow it). --scale-fraction F (with --cpu-only): real\n"
            "  non-uniform scale keys, 0.7 .. 1.4 per axis and animated, on a fraction F of the joints.\n"
            "  --blend K (with --cpu-only): every character blends K clips (normalized-time sync, one\n"
            "  crossfading); --layers L: plus L additive layers with a joint mask; adds a table of the\n"
            "  cost against one clip per character in the same run.\n"
            "  --bounds (with --cpu-only): also every character's culling box: its time and overhead as\n"
            "  columns bounds_ms and bounds%%.\n"
            "  --compressed (with --cpu-only): the characters play compressed clips\n"
            "  (sinew_clip_compress; --compress-tolerance T, default 1e-4 x the skeleton's size;\n"
            "  --compress-keys shared|per-track, default shared); prints\n"
            "  bytes, ratio, error and sampling ns/joint (forward, random) also for a long 100 s clip.\n"
            "  --cor-precompute: cost of sinew_cor_compute (centers of rotation) on 10k and 100k vertex\n"
            "  tubes, 1 and 2 threads, ring weights (shared per ring) and per-vertex jittered weights.\n"
            "  --methods: the crowd sweep's methods (default lbs,dqs,dqs-scale,dqs-scale-local,\n"
            "  dqs-scale-mixed,dqs+bulge,cor,cor-scale,cor-scale-local,cor-scale-mixed; also\n"
            "  dqs-scale+bulge, dqs+bulge+inner). --tube-vertices N: the tube model with about N\n"
            "  vertices (16 sectors, N / 16 rings; default 32 x 16 = 514).\n"
            "  e.g. 10,000 characters x 10,000 vertices, DQS with scale + bulge, nothing else:\n"
            "    sinew-bench --model none --tube-vertices 10000 --sizes 10000 --methods dqs-scale+bulge\n"
            "                --kernel-rounds 0 --no-variants\n"
            "  --device-info: the Vulkan device, driver version and buffer limits, then exit.\n"
            "  --roofline-only: the device and the copy roofline (as measured before the sweep), the same copy\n"
            "  at 16 MiB .. 4 GiB (as the device's limits allow), then exit.\n"
            "  --scene crowd [--frames N]: the crowd scene (bench_scene.c: real models, blended clips, root\n"
            "  motion, orbit camera, culling, LOD; sizes 1000,10000,100000, --sizes / --budget / --full as\n"
            "  above), per-stage table, scene.csv / scene.json / scene.png in --out. --no-render: no render\n"
            "  stage (the skinned crowd drawn offscreen, 1280x720, timed by timestamps). --no-bone-lod:\n"
            "  joint_lod 0 in every distance band (update_every kept), to compare. --scene-state FILE: every\n"
            "  character's world transform after the first size's last frame (compared with sinew-viewer's).\n");
}

/* Skinner + crowd sized for `max_chars` characters of model m. */
static sinew_result make_pipeline(sinew_gpu *gpu, demo_model *m, uint32_t max_chars, const options *o,
                                  sinew_output_format fmt, sinew_skinner **sk, sinew_crowd **crowd, sinew_model_id *model_id)
{
    uint32_t jc = sinew_skeleton_joint_count(m->skel);
    sinew_skinner_desc sd = {0};
    sd.max_rest_vertices = m->vertex_count;
    sd.max_meshes = 1;
    sd.max_instances = max_chars;
    uint64_t outv = (uint64_t)max_chars * m->vertex_count, pal = (uint64_t)max_chars * jc * SINEW_PALETTE_GPU_STRIDE_MAX;
    if (outv > UINT32_MAX || pal > UINT32_MAX) return SINEW_ERROR_LIMIT_EXCEEDED;
    sd.max_output_vertices = (uint32_t)outv;
    sd.max_palette_vec4 = (uint32_t)pal;
    sd.frames_in_flight = 2;
    sd.output_format = fmt;
    sd.read_path = o->read_path;
    sd.cor_centers = true;
    sinew_result r = sinew_skinner_create(gpu, &sd, sk, NULL);
    if (r != SINEW_OK) return r;
    m->mesh_id.value = 0;
    r = demo_model_upload(m, *sk, NULL);
    if (r == SINEW_OK) {
        sinew_crowd_desc cd = {0};
        cd.skinner = *sk;
        cd.max_characters = max_chars;
        cd.max_joints = jc;
        r = sinew_crowd_create(&cd, crowd, NULL);
    }
    if (r == SINEW_OK) r = demo_model_add_to_crowd(m, *crowd, model_id);
    if (r != SINEW_OK) {
        sinew_crowd_destroy(*crowd);
        sinew_skinner_destroy(*sk);
        *crowd = NULL;
        *sk = NULL;
    }
    return r;
}

static const char *read_path_name(sinew_read_path p)
{
    return p == SINEW_READ_TEXEL ? "texel" : p == SINEW_READ_STORAGE ? "storage" : "auto";
}

/* ---- kernel A/B: today's kernel variants against the baseline kernel, one run ----
 * Scene of the issue: 64 characters x 16,384 vertices, a 64-joint chain, 4
 * influences, random poses (non-uniform scale for LBS and the scale methods),
 * skinned straight through the skinner (palettes packed on the CPU, not timed);
 * every case is run once per round, round-robin, and the medians reported. */
typedef struct kcase { const char *name; sinew_method method; uint32_t flags; sinew_debug_kernel kernel; uint32_t wg; uint32_t infl; int prev; int compact; } kcase;

/* Bytes one vertex moves in the kernel A/B (float output): rest vertex (32, 48 with 8
 * influences, 16 compact) + bulge distance 4 + center 16 + tangent 8 in / 16 out +
 * previous position 16 out and 12 re-read + output 24. The per-workgroup header of the
 * compact layout (32 B per 64+ vertices) and the palette (cached) are left out. */
static uint32_t kb_bytes(const kcase *k)
{
    /* sizes of the public structs (the layout's constants are the library's own) */
    uint32_t b = k->compact ? (uint32_t)sizeof(sinew_vertex_compact)
                 : k->infl == 8 ? (uint32_t)sizeof(sinew_vertex8) : (uint32_t)sizeof(sinew_vertex);
    if (k->flags & SINEW_SKIN_BULGE_CORRECTION) b += 4u;             /* float rest distance */
    if (sinew_method_uses_centers(k->method)) b += 16u;              /* center xyz + pad */
    if (k->prev == 2) b += (uint32_t)sizeof(sinew_tangent) + 16u;    /* rest tangent in, tangent + sign out */
    if (k->prev == 1) b += 16u + 12u;                                /* previous out, old position re-read */
    return b + 24u;                                                  /* float position + normal */
}

static uint64_t kb_rng = 0x9e3779b97f4a7c15ull;
static double kb_uniform(double lo, double hi)
{
    kb_rng ^= kb_rng << 13;
    kb_rng ^= kb_rng >> 7;
    kb_rng ^= kb_rng << 17;
    return lo + (hi - lo) * (double)(kb_rng >> 11) / 9007199254740992.0;
}

#define KB_JOINTS 64u
#define KB_VERTS 16384u
/* characters in the kernel A/B: 64 by default (1M vertices); --kernel-chars N for a large GPU,
 * whose last-level cache holds a 1M-vertex frame */
static uint32_t kb_chars = 64u;
/* --pipeline-stats: print the driver's statistics of the A/B's pipelines after it */
static int kb_stats;

static sinew_result kb_scene(sinew_skeleton **skel, sinew_vertex *v, float *bulge, sinew_vertex8 *v8, float *bulge8)
{
    int32_t parents[KB_JOINTS];
    sinew_transform rest[KB_JOINTS];
    for (uint32_t j = 0; j < KB_JOINTS; j++) {
        parents[j] = (int32_t)j - 1;
        sinew_transform t = { { 0, j ? 0.1 : 0, 0 }, sinew_quat_identity(), { 1, 1, 1 } };
        rest[j] = t;
    }
    sinew_skeleton_desc d = { 0 };
    d.joint_count = KB_JOINTS;
    d.parents = parents;
    d.rest_local = rest;
    sinew_result r = sinew_skeleton_create(&d, skel);
    if (r != SINEW_OK) return r;
    float *pos = malloc(sizeof(float) * 3 * KB_VERTS), *nrm = malloc(sizeof(float) * 3 * KB_VERTS);
    uint32_t *js = malloc(sizeof(uint32_t) * 8 * KB_VERTS);
    float *ws = malloc(sizeof(float) * 8 * KB_VERTS);
    if (!pos || !nrm || !js || !ws) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; r == SINEW_OK && i < KB_VERTS; i++) {
        double y = kb_uniform(0, 0.1 * (KB_JOINTS - 1)), a = kb_uniform(0, 6.283185307179586);
        pos[3 * i] = (float)(0.05 * cos(a));
        pos[3 * i + 1] = (float)y;
        pos[3 * i + 2] = (float)(0.05 * sin(a));
        nrm[3 * i] = (float)cos(a);
        nrm[3 * i + 1] = 0;
        nrm[3 * i + 2] = (float)sin(a);
        int j0 = (int)(y / 0.1) - 3; /* 8 distinct joints around the vertex (4 for the 4-influence mesh) */
        if (j0 < 0) j0 = 0;
        if (j0 > (int)KB_JOINTS - 8) j0 = (int)KB_JOINTS - 8;
        for (int k = 0; k < 8; k++) {
            js[8 * i + k] = (uint32_t)(j0 + k);
            ws[8 * i + k] = (float)kb_uniform(0.05, 1.0);
        }
    }
    sinew_influences inf8 = { NULL, 8, js, ws };
    if (r == SINEW_OK) r = sinew_pack_vertices8(KB_VERTS, pos, nrm, &inf8, KB_JOINTS, v8, NULL, NULL);
    if (r == SINEW_OK) r = sinew_bulge_rest_distances8(*skel, KB_VERTS, v8, bulge8);
    for (uint32_t i = 0; r == SINEW_OK && i < KB_VERTS; i++) /* the middle 4 of the 8 */
        for (int k = 0; k < 4; k++) {
            js[4 * i + k] = js[8 * i + 2 + k];
            ws[4 * i + k] = ws[8 * i + 2 + k];
        }
    sinew_influences inf = { NULL, 4, js, ws };
    if (r == SINEW_OK) r = sinew_pack_vertices(KB_VERTS, pos, nrm, &inf, KB_JOINTS, v, NULL, NULL);
    if (r == SINEW_OK) r = sinew_bulge_rest_distances(*skel, KB_VERTS, v, bulge);
    free(pos); free(nrm); free(js); free(ws);
    return r;
}

/* Characters of the kernel A/B whose output is checked against the float64 reference. */
#define KB_ERR_CHARS 4u

/* Packed palettes of every character for each method (random poses); keep: the first
 * KB_ERR_CHARS characters' palettes (KB_JOINTS each), or NULL. */
static sinew_result kb_palettes(const sinew_skeleton *skel, sinew_method m, uint32_t flags, float *dst, uint32_t stride,
                                sinew_palette_joint *keep)
{
    sinew_transform local[KB_JOINTS];
    sinew_palette_joint pal[KB_JOINTS];
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(KB_JOINTS));
    if (!scratch) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; c < kb_chars && r == SINEW_OK; c++) {
        memcpy(local, sinew_skeleton_rest_pose(skel), sizeof local);
        for (uint32_t j = 0; j < KB_JOINTS; j++) {
            sinew_vec3 ax = sinew_v3_normalize(sinew_v3(kb_uniform(-1, 1), kb_uniform(-1, 1), kb_uniform(-1, 1)));
            local[j].rotation = sinew_quat_from_axis_angle(ax, kb_uniform(-0.4, 0.4));
            if (m != SINEW_METHOD_DQS && m != SINEW_METHOD_COR) /* the plain ones are rigid only */
                local[j].scale = sinew_v3(kb_uniform(0.8, 1.25), kb_uniform(0.8, 1.25), kb_uniform(0.8, 1.25));
        }
        sinew_transform root_t = { { kb_uniform(-5, 5), 0, kb_uniform(-5, 5) }, sinew_quat_identity(), { 1, 1, 1 } };
        sinew_mat4 root = sinew_mat4_from_transform(&root_t);
        r = sinew_palette_build(skel, m, local, &root, scratch, pal);
        if (r == SINEW_OK) r = sinew_palette_pack(m, flags, pal, KB_JOINTS, dst + (size_t)c * KB_JOINTS * stride * 4);
        if (r == SINEW_OK && keep && c < KB_ERR_CHARS) memcpy(keep + (size_t)c * KB_JOINTS, pal, sizeof pal);
    }
    free(scratch);
    return r;
}

/* 1 when `name` is one of the comma-separated names in `list` (NULL: every name). */
static int kb_selected(const char *list, const char *name)
{
    if (!list) return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Errors of a case's last frame against the float64 reference (first KB_ERR_CHARS
 * characters): position (max over vertices and axes, mesh units; the tube is 6.3 long)
 * and normal (max component) against the full-precision vertices, and the position
 * against the vertices the kernel read (compact: decoded). */
typedef struct kb_err { double pos_full, nrm_full, pos_same, nrm_p999; int set; } kb_err;

static int kb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static kb_err kb_errs[64];

static sinew_result kb_error(sinew_skinner *sk, const kcase *k, int c, const sinew_palette_joint *pal,
                             const sinew_skeleton *skel, const sinew_vertex *v, const float *bulge, const sinew_vertex *vq,
                             const float *bulgeq, const float *centers)
{
    (void)skel;
    if (c >= 64) return SINEW_OK;
    size_t n = KB_VERTS;
    float *gp = malloc(sizeof(float) * 3 * n), *gn = malloc(sizeof(float) * 3 * n);
    double *fp = malloc(sizeof(double) * 3 * n), *fn = malloc(sizeof(double) * 3 * n);
    double *qp = malloc(sizeof(double) * 3 * n), *qn = malloc(sizeof(double) * 3 * n);
    double *ne = malloc(sizeof(double) * KB_ERR_CHARS * n);   /* per vertex: max normal component error */
    sinew_result r = gp && gn && fp && fn && qp && qn && ne ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    kb_err e = { 0, 0, 0, 0, 1 };
    for (uint32_t ch = 0; ch < KB_ERR_CHARS && r == SINEW_OK; ch++) {
        const sinew_palette_joint *p = pal + (size_t)ch * KB_JOINTS;
        r = sinew_skinner_read_output(sk, ch * KB_VERTS, KB_VERTS, gp, gn);
        if (r == SINEW_OK)
            r = sinew_reference_skin_cor(KB_VERTS, v, NULL, centers, bulge, p, KB_JOINTS, k->method, k->flags, fp, fn);
        if (r == SINEW_OK)
            r = sinew_reference_skin_cor(KB_VERTS, k->compact ? vq : v, NULL, centers, k->compact ? bulgeq : bulge, p,
                                         KB_JOINTS, k->method, k->flags, qp, qn);
        for (size_t i = 0; r == SINEW_OK && i < 3 * n; i++) {
            double a = fabs(gp[i] - fp[i]), b = fabs(gn[i] - fn[i]), q = fabs(gp[i] - qp[i]);
            if (!(a <= e.pos_full)) e.pos_full = a == a ? a : INFINITY;
            if (!(b <= e.nrm_full)) e.nrm_full = b == b ? b : INFINITY;
            if (!(q <= e.pos_same)) e.pos_same = q == q ? q : INFINITY;
            double *v = &ne[ch * n + i / 3];
            if (i % 3 == 0) *v = 0;
            if (!(b <= *v)) *v = b == b ? b : INFINITY;
        }
    }
    if (r == SINEW_OK) {
        qsort(ne, KB_ERR_CHARS * n, sizeof(double), kb_cmp_double);
        e.nrm_p999 = ne[(size_t)(0.999 * (KB_ERR_CHARS * n - 1))];
        kb_errs[c] = e;
    }
    free(ne);
    free(gp); free(gn); free(fp); free(fn); free(qp); free(qn);
    return r;
}

static void kb_error_print(const kcase *cases, int nc, sinew_palette_joint *const *keep)
{
    printf("\nerror against the float64 reference (kernel A/B scene, first %u characters, last round; max over "
           "vertices and components; the tube is 6.3 x 0.1):\n", KB_ERR_CHARS);
    printf("%-23s %7s %12s %12s %12s %12s\n", "method", "layout", "pos_same", "pos_full", "normal_full", "normal_p999");
    for (int c = 0; c < nc && c < 64; c++) {
        if (!keep[c] || !kb_errs[c].set) continue;
        printf("%-23s %7s %12.3g %12.3g %12.3g %12.3g\n", cases[c].name, cases[c].compact ? "compact" : "default",
               kb_errs[c].pos_same, kb_errs[c].pos_full, kb_errs[c].nrm_full, kb_errs[c].nrm_p999);
    }
    printf("(pos_same: against the reference on the inputs the kernel read (compact: sinew_compact_decode's "
           "vertices, bulge distances from them); pos_full, normal_full: against the reference on the full-precision "
           "vertices; normal_p999: the 99.9th percentile over vertices of the normal's max component error)\n");
}

static void kernel_compare(sinew_gpu *gpu, int rounds, const char *only)
{
    static const kcase cases[] = {
        { "lbs", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_BASELINE, 0 },
        { "lbs", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 64 },
        { "lbs", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 128 },
        { "lbs", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 256 },
        { "lbs", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_RECORDS, 0 },
        { "dqs", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_BASELINE, 0 },
        { "dqs", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 64 },
        { "dqs", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 128 },
        { "dqs", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 256 },
        { "dqs", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_RECORDS, 0 },
        { "dqs-scale", SINEW_METHOD_DQS_SCALE, 0, SINEW_DEBUG_KERNEL_BASELINE, 0 },
        { "dqs-scale", SINEW_METHOD_DQS_SCALE, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "dqs-scale-local", SINEW_METHOD_DQS_SCALE_LOCAL, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "dqs+bulge", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_BASELINE, 0 },
        { "dqs+bulge", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "dqs+bulge+inner", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION | SINEW_SKIN_BULGE_INNER, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "dqs-scale+bulge", SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "lbs+bulge", SINEW_METHOD_LBS, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor+bulge", SINEW_METHOD_COR, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor-scale+bulge", SINEW_METHOD_COR_SCALE, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "lbs 8 infl", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 8 },
        { "dqs 8 infl", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 8 },
        /* previous-frame positions (keep_previous: a second skinner, same meshes) */
        { "lbs +prev", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 1 },
        { "dqs +prev", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 1 },
        /* tangent frames (desc.tangents: a third skinner, the mesh with tangents) */
        { "lbs +tangents", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 2 },
        { "dqs +tangents", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 2 },
        { "dqs-scale +tangents", SINEW_METHOD_DQS_SCALE, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 2 },
        /* optimized centers of rotation (per-vertex centers on every mesh) */
        { "cor", SINEW_METHOD_COR, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor-scale", SINEW_METHOD_COR_SCALE, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor-scale-local", SINEW_METHOD_COR_SCALE_LOCAL, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor 8 infl", SINEW_METHOD_COR, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 8 },
        { "cor +tangents", SINEW_METHOD_COR, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 2 },
        /* the compact rest layout (SINEW_REST_LAYOUT_COMPACT, 16 B), x base = the same case in
         * the default layout / this, same round */
        { "lbs compact", SINEW_METHOD_LBS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs compact", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs compact", SINEW_METHOD_DQS, 0, SINEW_DEBUG_KERNEL_RECORDS, 0, 4, 0, 1 },
        { "dqs-scale compact", SINEW_METHOD_DQS_SCALE, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs-scale-local compact", SINEW_METHOD_DQS_SCALE_LOCAL, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "lbs+bulge compact", SINEW_METHOD_LBS, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs+bulge compact", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs-scale+bulge compact", SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor compact", SINEW_METHOD_COR, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor-scale compact", SINEW_METHOD_COR_SCALE, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor-scale-local compact", SINEW_METHOD_COR_SCALE_LOCAL, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "dqs-scale-mixed", SINEW_METHOD_DQS_SCALE_MIXED, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "dqs-scale-mixed compact", SINEW_METHOD_DQS_SCALE_MIXED, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor-scale-mixed", SINEW_METHOD_COR_SCALE_MIXED, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "cor-scale-mixed compact", SINEW_METHOD_COR_SCALE_MIXED, 0, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor+bulge compact", SINEW_METHOD_COR, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
        { "cor-scale+bulge compact", SINEW_METHOD_COR_SCALE, SINEW_SKIN_BULGE_CORRECTION, SINEW_DEBUG_KERNEL_AUTO, 0, 4, 0, 1 },
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    sinew_skeleton *skel = NULL;
    sinew_vertex *v = malloc(sizeof(sinew_vertex) * KB_VERTS);
    float *bulge = malloc(sizeof(float) * KB_VERTS);
    sinew_vertex8 *v8 = malloc(sizeof(sinew_vertex8) * KB_VERTS);
    float *bulge8 = malloc(sizeof(float) * KB_VERTS);
    float *pal[NC] = { 0 };
    double *ms = calloc((size_t)NC * (size_t)rounds, sizeof(double));
    sinew_skinner *sk = NULL, *skp = NULL, *skt = NULL;
    sinew_tangent *tan = malloc(sizeof(sinew_tangent) * KB_VERTS);
    sinew_mesh_id mesh = { 0 }, mesh8 = { 0 }, meshc = { 0 };
    sinew_palette_joint *keep[NC] = { 0 };
    sinew_vertex *vq = malloc(sizeof(sinew_vertex) * KB_VERTS);   /* the compact mesh decoded */
    float *bulgeq = malloc(sizeof(float) * KB_VERTS);
    sinew_result r = v && bulge && v8 && bulge8 && ms ? kb_scene(&skel, v, bulge, v8, bulge8) : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = KB_VERTS * 4 + 1;
    sd.max_meshes = 3;
    sd.max_instances = kb_chars;
    sd.max_output_vertices = kb_chars * KB_VERTS;
    sd.max_palette_vec4 = kb_chars * KB_JOINTS * SINEW_PALETTE_GPU_STRIDE_MAX;
    sd.frames_in_flight = 2;
    sd.cor_centers = true;
    if (r == SINEW_OK) r = sinew_skinner_create(gpu, &sd, &sk, NULL);
    sd.keep_previous = true;
    if (r == SINEW_OK) r = sinew_skinner_create(gpu, &sd, &skp, NULL);
    sd.keep_previous = false;
    sd.tangents = true;
    if (r == SINEW_OK) r = sinew_skinner_create(gpu, &sd, &skt, NULL);
    if (r == SINEW_OK && !tan) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; r == SINEW_OK && i < KB_VERTS; i++) { /* around the tube: cross(y, n) */
        sinew_vec3 n = sinew_oct_decode(v[i].normal_oct);
        tan[i].tangent_oct = sinew_oct_encode(sinew_v3(n.z, 0, -n.x));
        tan[i].sign = i & 1 ? -1.0f : 1.0f;
    }
    /* centers of rotation for the CoR cases: the point of the tube's axis at the vertex's
     * height (what sinew_cor_compute gives a round tube; the kernel's cost does not depend on it) */
    float *cen = malloc(sizeof(float) * 3 * KB_VERTS), *cen8 = malloc(sizeof(float) * 3 * KB_VERTS);
    if (r == SINEW_OK && (!cen || !cen8)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; r == SINEW_OK && i < KB_VERTS; i++) {
        cen[3 * i] = 0; cen[3 * i + 1] = v[i].position[1]; cen[3 * i + 2] = 0;
        cen8[3 * i] = 0; cen8[3 * i + 1] = v8[i].position[1]; cen8[3 * i + 2] = 0;
    }
    /* the vertices the compact mesh skins as (the reference on the same quantized inputs), and
     * their bulge distances (uploaded with it) */
    if (r == SINEW_OK && (!vq || !bulgeq)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) {
        sinew_vertex_compact *vc = malloc(sizeof *vc * KB_VERTS);
        sinew_compact_box box;
        r = vc ? sinew_compact_encode(KB_VERTS, v, vc, &box, NULL) : SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (r == SINEW_OK) r = sinew_compact_decode(KB_VERTS, vc, &box, vq);
        if (r == SINEW_OK) r = sinew_bulge_rest_distances(skel, KB_VERTS, vq, bulgeq);
        free(vc);
    }
    for (int s = 0; s < 3 && r == SINEW_OK; s++) { /* same ids in all three; the tangent skinner's mesh has tangents */
        sinew_skinner *t = s == 2 ? skt : s ? skp : sk;
        sinew_skinner_mesh_desc md = { v, KB_VERTS, KB_JOINTS, bulge, NULL, s == 2 ? tan : NULL };
        md.cor_centers = cen;
        r = sinew_skinner_add_mesh(t, &md, &mesh, NULL);
        sinew_skinner_mesh_desc md8 = { NULL, KB_VERTS, KB_JOINTS, bulge8, v8 };
        md8.cor_centers = cen8;
        if (r == SINEW_OK) r = sinew_skinner_add_mesh(t, &md8, &mesh8, NULL);
        if (s == 0 && r == SINEW_OK) { /* the compact layout of the 4-influence mesh */
            sinew_skinner_mesh_desc mdc = md;
            mdc.rest_layout = SINEW_REST_LAYOUT_COMPACT;
            mdc.bulge_rest = bulgeq;
            r = sinew_skinner_add_mesh(t, &mdc, &meshc, NULL);
        }
    }
    float *cen_keep = cen;
    cen = NULL;
    free(cen8);
    for (int c = 0; c < NC && r == SINEW_OK; c++) {
        if (!kb_selected(only, cases[c].name)) continue;
        uint32_t stride = sinew_palette_gpu_stride(cases[c].method, cases[c].flags);
        pal[c] = malloc(sizeof(float) * 4 * kb_chars * KB_JOINTS * stride);
        /* the error table: the compact cases and the default-layout cases of the same variant */
        int err_row = 0; /* one default-layout row (grid, wg 64 or default) per variant that has a compact row */
        for (int q = 0; q < NC; q++)
            if (cases[q].compact && kb_selected(only, cases[q].name) && cases[q].method == cases[c].method &&
                cases[q].flags == cases[c].flags)
                err_row = 1;
        for (int q = 0; q < c; q++)
            if (keep[q] && cases[q].compact == cases[c].compact && cases[q].method == cases[c].method &&
                cases[q].flags == cases[c].flags)
                err_row = 0;
        if (err_row && cases[c].kernel == SINEW_DEBUG_KERNEL_AUTO && (cases[c].wg == 0 || cases[c].wg == 64) &&
            !cases[c].prev && cases[c].infl != 8 && kb_chars >= KB_ERR_CHARS)
            keep[c] = malloc(sizeof(sinew_palette_joint) * KB_ERR_CHARS * KB_JOINTS);
        r = pal[c] ? kb_palettes(skel, cases[c].method, cases[c].flags, pal[c], stride, keep[c])
                   : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (r != SINEW_OK) {
        fprintf(stderr, "kernel comparison: setup failed: %s\n", sinew_result_string(r));
    } else {
        printf("\nkernel A/B (%u characters x %u vertices, %u joints, 4 influences unless named, float output, read path %s; "
               "%d rounds round-robin, round 0 = warm-up, medians of the rest):\n",
               kb_chars, KB_VERTS, KB_JOINTS, read_path_name(sinew_skinner_read_path(sk)), rounds);
        sinew_skinner *sk0 = sk;
        sinew_instance *inst = malloc(sizeof *inst * kb_chars);
        if (!inst) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        for (int round = 0; round < rounds && r == SINEW_OK; round++)
            for (int c = 0; c < NC && r == SINEW_OK; c++) {
                const kcase *k = &cases[c];
                if (!pal[c]) continue; /* not selected (--kernel-cases) */
                uint32_t stride = sinew_palette_gpu_stride(k->method, k->flags);
                sinew_frame fr;
                sinew_skinner *sk = k->prev == 2 ? skt : k->prev ? skp : sk0;
                sinew_debug_set_kernel(sk, k->kernel);
                sinew_debug_set_workgroup_size(sk, k->wg);
                r = sinew_skinner_begin_frame(sk, &fr);
                if (r != SINEW_OK) break;
                memcpy(fr.palette, pal[c], sizeof(float) * 4 * kb_chars * KB_JOINTS * stride);
                for (uint32_t i = 0; i < kb_chars; i++) {
                    sinew_instance in = { k->infl == 8 ? mesh8 : k->compact ? meshc : mesh, k->method, k->flags,
                                          i * KB_JOINTS * stride, i * KB_VERTS, false };
                    inst[i] = in;
                }
                r = sinew_skinner_set_instances(sk, inst, kb_chars, NULL);
#ifdef SNW_BENCH_CALLGRIND
                if (RUNNING_ON_VALGRIND) CALLGRIND_ZERO_STATS;
#endif
                if (r == SINEW_OK) r = sinew_skinner_submit(sk);
                if (r == SINEW_OK) r = sinew_skinner_wait(sk);
#ifdef SNW_BENCH_CALLGRIND
                if (RUNNING_ON_VALGRIND) {
                    char label[96];
                    snprintf(label, sizeof label, "kcase|%d|%u|%s|%u|%s", round, kb_chars * KB_VERTS,
                             k->kernel == SINEW_DEBUG_KERNEL_BASELINE ? "baseline"
                             : k->kernel == SINEW_DEBUG_KERNEL_RECORDS ? "records" : "grid",
                             k->wg ? k->wg : sinew_debug_workgroup_size(sk), k->name);
                    CALLGRIND_DUMP_STATS_AT(label);
                }
#endif
                if (r == SINEW_OK) r = sinew_skinner_gpu_time(sk, &ms[round * NC + c]);
                if (r == SINEW_OK && round == rounds - 1 && keep[c]) r = kb_error(sk, k, c, keep[c], skel, v, bulge, vq, bulgeq, cen_keep);
            }
        free(inst);
        if (r != SINEW_OK) fprintf(stderr, "kernel comparison failed: %s\n", sinew_result_string(r));
    }
    if (r == SINEW_OK && rounds > 1) {
        int n = rounds - 1;
        double *tmp = malloc(sizeof(double) * (size_t)n);
        printf("%-23s %-9s %4s %9s %8s %8s %7s %6s %7s\n", "method", "kernel", "wg", "gpu_ms", "Mvert/s", "x base", "x dqs",
               "B/vert", "GB/s");
        int base = -1, dqs_plain = -1;
        for (int c = 0; c < NC && dqs_plain < 0; c++)
            if (pal[c] && cases[c].method == SINEW_METHOD_DQS && !cases[c].flags && cases[c].kernel == SINEW_DEBUG_KERNEL_AUTO &&
                !cases[c].prev && cases[c].infl != 8)
                dqs_plain = c;
        for (int c = 0; c < NC && tmp; c++) {
            const kcase *k = &cases[c];
            if (!pal[c]) continue;
            if (k->kernel == SINEW_DEBUG_KERNEL_BASELINE) base = c;
            else if (base >= 0 && strcmp(cases[base].name, k->name)) base = -1;
            for (int i = 0; i < n; i++) tmp[i] = ms[(i + 1) * NC + c];
            double med = median(tmp, n);
            double ratio = 0;
            if (base >= 0 && base != c) { /* per-round ratio against the same round's baseline, median */
                for (int i = 0; i < n; i++) tmp[i] = ms[(i + 1) * NC + base] / ms[(i + 1) * NC + c];
                ratio = median(tmp, n);
            }
            if (k->prev || k->compact) { /* against the same variant without previous positions / in the
                                            default layout, same rounds */
                int plain = -1;
                for (int q = 0; q < NC; q++)
                    if (pal[q] && !cases[q].prev && !cases[q].compact && cases[q].method == k->method &&
                        cases[q].flags == k->flags && cases[q].kernel == k->kernel &&
                        (cases[q].wg == 64 || cases[q].wg == 0) && cases[q].infl != 8) { plain = q; break; }
                if (plain >= 0) {
                    for (int i = 0; i < n; i++) tmp[i] = ms[(i + 1) * NC + plain] / ms[(i + 1) * NC + c];
                    ratio = median(tmp, n);
                }
            }
            char dqs_s[16] = ""; /* against plain DQS (grid, same round), for the other DQS-family variants */
            if (dqs_plain >= 0 && c != dqs_plain && k->method != SINEW_METHOD_LBS &&
                k->kernel == SINEW_DEBUG_KERNEL_AUTO && (k->wg == 0 || k->wg == 64)) {
                for (int i = 0; i < n; i++) tmp[i] = ms[(i + 1) * NC + dqs_plain] / ms[(i + 1) * NC + c];
                snprintf(dqs_s, sizeof dqs_s, "%.2f", median(tmp, n));
            }
            const char *kn = k->kernel == SINEW_DEBUG_KERNEL_BASELINE ? "baseline"
                             : k->kernel == SINEW_DEBUG_KERNEL_RECORDS ? "records" : "grid";
            char ratio_s[16] = "";
            if (ratio > 0) snprintf(ratio_s, sizeof ratio_s, "%.2f", ratio);
            double mvs = (double)kb_chars * KB_VERTS / (med * 1e-3) * 1e-6;
            printf("%-23s %-9s %4u %9.3f %8.1f %8s %7s %6u %7.2f\n", k->name, kn,
                   k->kernel == SINEW_DEBUG_KERNEL_BASELINE ? 64u : (k->wg ? k->wg : sinew_debug_workgroup_size(sk)),
                   med, mvs, ratio_s, dqs_s, kb_bytes(k), mvs * kb_bytes(k) * 1e-3);
            if (k->wg) sinew_debug_set_workgroup_size(sk, 0);
        }
        printf("(x base: median over rounds of baseline time / this time, same method, same round; "
               "grid = one dispatch per variant, character from the workgroup id; records = per-workgroup records;\n"
               " +prev / +tangents rows: keep_previous / tangent frames, x = time of the same variant without it / this time, same round;\n"
               " compact rows: the compact rest layout, x base = time of the same variant in the default layout / this time, same round;\n"
               " B/vert: bytes a vertex moves (rest + bulge + center + tangent + previous + float output), GB/s: B/vert x Mvert/s;\n"
               " x dqs: median over rounds of plain DQS (grid, wg 64) time / this time, same round)\n");
        free(tmp);
    }
    if (r == SINEW_OK && rounds > 1) kb_error_print(cases, NC, keep);
    if (kb_stats && r == SINEW_OK) {
        size_t cap = 1u << 18;
        char *text = malloc(cap);
        sinew_skinner *all[3] = { sk, skp, skt };
        static const char *what[3] = { "plain", "keep_previous", "tangents" };
        printf("\npipeline statistics (the driver's, VK_KHR_pipeline_executable_properties):\n");
        for (int i = 0; i < 3 && text; i++) {
            sinew_result rs = sinew_debug_pipeline_statistics(all[i], text, cap);
            if (rs != SINEW_OK) {
                printf("  not available: %s (SINEW_PIPELINE_STATISTICS=1 and a driver with the extension needed)\n",
                       sinew_result_string(rs));
                break;
            }
            printf("[%s skinner]\n%s", what[i], text);
        }
        free(text);
    }
    sinew_skinner_destroy(sk);
    sinew_skinner_destroy(skp);
    sinew_skinner_destroy(skt);
    free(tan);
    free(cen_keep);
    free(vq);
    free(bulgeq);
    for (int c = 0; c < NC; c++) free(keep[c]);
    for (int c = 0; c < NC; c++) free(pal[c]);
    free(ms);
    free(v);
    free(bulge);
    free(v8);
    free(bulge8);
    sinew_skeleton_destroy(skel);
}

/* ---- the CoR precompute (sinew_cor_compute), CPU only ----
 * Weights for 4 joints at x = 0, 1, 2, 3 on a tube of radius 0.25 from 0 to 4, R
 * segments around and S rings: joints j and j + 1 blend (smoothstep) over
 * [j + 0.2, j + 0.8], one influence elsewhere; and a jittered variant (+-1% per vertex, renormalized) where no two vertices share
 * weights, so the grouping of equal weights saves nothing. */
static int cor_precompute_bench(void)
{
    static const struct { uint32_t R, S; } sizes[2] = { { 50, 200 }, { 100, 1000 } };
    printf("sinew-bench --cor-precompute: sinew_cor_compute (sigma 0.1, epsilon 0.1, max depth 8), "
           "median of 3 runs, %u CPU threads available\n", sinew_cpu_count());
    printf("%-9s %-10s %8s %7s %10s %12s %14s %10s %10s %7s\n", "vertices", "weights", "tris", "groups", "samples",
           "pair entries", "kernel evals", "1 thread", "2 threads", "x");
    for (int si = 0; si < 2; si++) {
        uint32_t R = sizes[si].R, S = sizes[si].S, n = R * S, nt = 2 * R * (S - 1);
        float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n), *w = malloc(sizeof(float) * 2 * n);
        float *cen = malloc(sizeof(float) * 3 * n);
        uint32_t *jo = malloc(sizeof(uint32_t) * 2 * n), *tri = malloc(sizeof(uint32_t) * 3 * nt);
        sinew_vertex *v = malloc(sizeof(sinew_vertex) * n);
        if (!pos || !nrm || !w || !cen || !jo || !tri || !v) return 1;
        uint32_t t = 0;
        for (uint32_t s = 0; s + 1 < S; s++)
            for (uint32_t k = 0; k < R; k++) {
                uint32_t a = s * R + k, b = s * R + (k + 1) % R;
                tri[3 * t] = a; tri[3 * t + 1] = b; tri[3 * t + 2] = b + R; t++;
                tri[3 * t] = a; tri[3 * t + 1] = b + R; tri[3 * t + 2] = a + R; t++;
            }
        for (int jit = 0; jit < 2; jit++) {
            for (uint32_t s = 0; s < S; s++)
                for (uint32_t k = 0; k < R; k++) {
                    uint32_t i = s * R + k;
                    double x = 4.0 * s / (S - 1), a = 6.283185307179586 * k / R;
                    pos[3 * i] = (float)x; pos[3 * i + 1] = (float)(0.25 * cos(a)); pos[3 * i + 2] = (float)(0.25 * sin(a));
                    nrm[3 * i] = 0; nrm[3 * i + 1] = (float)cos(a); nrm[3 * i + 2] = (float)sin(a);
                    int lo = (int)floor(x); /* joints lo and lo + 1 blend over [lo + 0.2, lo + 0.8] */
                    lo = lo < 0 ? 0 : lo > 2 ? 2 : lo;
                    double u = (x - lo - 0.2) / 0.6;
                    u = u < 0 ? 0 : u > 1 ? 1 : u;
                    double wh = u * u * (3 - 2 * u), wl = 1 - wh;
                    if (jit && wh > 0 && wl > 0) { /* per-vertex +-1%: no two vertices share weights */
                        wh *= 1 + 0.01 * sin(12.9898 * i);
                        wl *= 1 + 0.01 * cos(78.233 * i);
                    }
                    jo[2 * i] = (uint32_t)lo; jo[2 * i + 1] = (uint32_t)lo + 1;
                    w[2 * i] = (float)wl; w[2 * i + 1] = (float)wh;
                }
            sinew_influences inf = { NULL, 2, jo, w };
            if (sinew_pack_vertices(n, pos, nrm, &inf, 4, v, NULL, NULL) != SINEW_OK) return 1;
            double ms[2][3];
            sinew_cor_stats st;
            memset(&st, 0, sizeof st);
            for (int rep = 0; rep < 3; rep++)
                for (int th = 0; th < 2; th++) { /* 1 and 2 threads, alternating */
                    sinew_thread_pool_desc pd = { 0 };
                    sinew_thread_pool *pool = NULL;
                    pd.threads = (uint32_t)th + 1;
                    if (sinew_thread_pool_create(&pd, &pool) != SINEW_OK) return 1;
                    sinew_cor_desc cd = { 0 };
                    cd.vertex_count = n; cd.vertices = v; cd.joint_count = 4;
                    cd.triangle_count = nt; cd.triangles = tri; cd.pool = pool;
                    double t0 = now_s();
                    sinew_result r = sinew_cor_compute(&cd, cen, &st);
                    ms[th][rep] = (now_s() - t0) * 1e3;
                    sinew_thread_pool_destroy(pool);
                    if (r != SINEW_OK) { fprintf(stderr, "sinew_cor_compute: %s\n", sinew_result_string(r)); return 1; }
                }
            double m1 = median(ms[0], 3), m2 = median(ms[1], 3);
            printf("%-9u %-10s %8u %7u %10llu %12llu %14llu %8.0f ms %8.0f ms %6.2f\n", n, jit ? "jittered" : "rings", nt,
                   st.weight_groups, (unsigned long long)st.samples, (unsigned long long)st.pair_entries,
                   (unsigned long long)st.kernel_evaluations, m1, m2, m1 / m2);
            fflush(stdout);
        }
        free(pos); free(nrm); free(w); free(cen); free(jo); free(tri); free(v);
    }
    printf("(x = 1-thread time / 2-thread time; the machine's load is not controlled: see uptime)\n");
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.out_dir = "bench-out";
#ifdef DEMO_WITH_ASSET
    o.model_path = "/usr/share/assimp/models/X/Testwuson.X";
#endif
    o.budget = 4u << 20;
    const uint32_t def_sizes[] = { 1, 10, 100, 1000, 10000 };
    memcpy(o.sizes, def_sizes, sizeof def_sizes);
    o.nsizes = 5;
    o.seconds_per_case = 0.8;
    o.kernel_rounds = 7;
    int budget_given = 0, sizes_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--full")) o.full = 1;
        else if (!strcmp(a, "--cpu-only")) o.cpu_only = 1;
        else if (!strcmp(a, "--scale-fraction") && next) {
            char *end = NULL;
            o.scale_fraction = strtod(argv[++i], &end);
            if (!end || *end || !(o.scale_fraction >= 0 && o.scale_fraction <= 1)) {
                fprintf(stderr, "--scale-fraction: a number in 0 .. 1\n");
                return 2;
            }
        }
        else if ((!strcmp(a, "--blend") || !strcmp(a, "--layers")) && next) { /* --cpu-only: bench_cpu_blend.c */
            static unsigned long blend_k = 1, layers_l = 0;
            char *end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (!end || *end || end == argv[i]) { usage(); return 2; }
            if (a[2] == 'b') blend_k = v; else layers_l = v;
            if (blend_k > 16 || layers_l > 16 ||
                sinew_bench_cpu_set_blend((uint32_t)blend_k, (uint32_t)layers_l) != 0) {
                fprintf(stderr, "--blend K: 1 .. 16, --layers L: 0 .. 15, K + L <= 16\n");
                return 2;
            }
        }
        else if (!strcmp(a, "--bounds")) o.bounds = 1;
        else if (!strcmp(a, "--compressed")) o.compressed = 1;
        else if (!strcmp(a, "--compress-keys") && next) {
            const char *v = argv[++i];
            if (strcmp(v, "shared") && strcmp(v, "per-track")) { fprintf(stderr, "--compress-keys: shared or per-track\n"); return 2; }
            o.compress_per_track = !strcmp(v, "per-track");
        }
        else if (!strcmp(a, "--compress-tolerance") && next) {
            char *end = NULL;
            o.compress_tol = strtod(argv[++i], &end);
            if (!end || *end || !(o.compress_tol > 0 && isfinite(o.compress_tol))) {
                fprintf(stderr, "--compress-tolerance: a number > 0 (model units)\n");
                return 2;
            }
        }
        else if (!strcmp(a, "--no-variants")) o.skip_variants = 1;
        else if (!strcmp(a, "--kernel-rounds") && next) o.kernel_rounds = atoi(argv[++i]);
        else if (!strcmp(a, "--pipeline-stats")) {
            kb_stats = 1;
            setenv("SINEW_PIPELINE_STATISTICS", "1", 1); /* read when the sinew_gpu is created */
        }
        else if (!strcmp(a, "--kernel-chars") && next) {
            long n = atol(argv[++i]);
            if (n < 1 || n > 4096) {
                fprintf(stderr, "sinew-bench: --kernel-chars must be 1..4096\n");
                return 2;
            }
            kb_chars = (uint32_t)n;
        }
        else if (!strcmp(a, "--kernel-cases") && next) o.kernel_cases = argv[++i];
        else if (!strcmp(a, "--kernels-only")) o.kernels_only = 1;
        else if (!strcmp(a, "--device-info")) o.device_info = 1;
        else if (!strcmp(a, "--roofline-only")) o.roofline_only = 1;
        else if (!strcmp(a, "--methods") && next) {
            o.methods = argv[++i];
            int any = 0;
            for (int vi = 0; vi < NVAR; vi++) any |= variant_selected(&o, vi);
            if (!any) { fprintf(stderr, "--methods %s: no such method\n", o.methods); usage(); return 2; }
        } else if (!strcmp(a, "--tube-vertices") && next) {
            unsigned long n = strtoul(argv[++i], NULL, 10);
            if (n < 34 || n > 100000000ul) { fprintf(stderr, "--tube-vertices: 34 .. 100000000\n"); return 2; }
            o.tube_vertices = (uint32_t)n;
        }
        else if (!strcmp(a, "--cor-precompute")) return cor_precompute_bench();
        else if (!strcmp(a, "--scene") && next) {
            o.scene = argv[++i];
            if (strcmp(o.scene, "crowd")) { fprintf(stderr, "--scene %s: no such scene (crowd)\n", o.scene); return 2; }
        } else if (!strcmp(a, "--frames") && next) {
            char *end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (!end || *end || v < 1 || v > 100000) { fprintf(stderr, "--frames: 1 .. 100000\n"); return 2; }
            o.frames = (uint32_t)v;
        } else if (!strcmp(a, "--no-render")) {
            o.no_render = 1;
        } else if (!strcmp(a, "--no-bone-lod")) {
            o.no_bone_lod = 1;
        } else if (!strcmp(a, "--scene-state") && i + 1 < argc) {
            o.scene_state = argv[++i];
        }
        else if (!strcmp(a, "--out") && next) o.out_dir = argv[++i];
        else if (!strcmp(a, "--model") && next) { o.model_path = strcmp(next, "none") ? next : NULL; i++; }
        else if (!strcmp(a, "--sizes") && next) { if (!parse_sizes(argv[++i], &o)) { usage(); return 2; } sizes_given = 1; }
        else if (!strcmp(a, "--budget") && next) { o.budget = strtoull(argv[++i], NULL, 10); budget_given = 1; }
        else if (!strcmp(a, "--seconds") && next) o.seconds_per_case = atof(argv[++i]);
        else if (!strcmp(a, "--format") && next) {
            const char *f = argv[++i];
            if (!strcmp(f, "float")) o.format = SINEW_OUTPUT_FLOAT;
            else if (!strcmp(f, "packed")) o.format = SINEW_OUTPUT_PACKED;
            else { usage(); return 2; }
        } else if (!strcmp(a, "--read-path") && next) {
            const char *f = argv[++i];
            if (!strcmp(f, "auto")) o.read_path = SINEW_READ_AUTO;
            else if (!strcmp(f, "storage")) o.read_path = SINEW_READ_STORAGE;
            else if (!strcmp(f, "texel")) o.read_path = SINEW_READ_TEXEL;
            else { usage(); return 2; }
        } else { usage(); return !strcmp(a, "--help") ? 0 : 2; }
    }
    if (mkdir(o.out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s\n", o.out_dir);
        return 1;
    }
    if (o.scene) {
        sinew_bench_scene_options so = { 0 };
        so.out_dir = o.out_dir;
        if (sizes_given) { so.sizes = o.sizes; so.nsizes = (uint32_t)o.nsizes; }
        so.frames = o.frames;
        so.budget = o.budget;
        so.budget_given = budget_given;
        so.full = o.full;
        so.no_render = o.no_render;
        so.no_bone_lod = o.no_bone_lod;
        so.state_path = o.scene_state;
        return sinew_bench_scene(&so);
    }
    if (o.cpu_only) {
        sinew_bench_cpu_options co = { 0 };
        co.scale_fraction = o.scale_fraction;
        co.compressed = o.compressed;
        co.compress_tol = o.compress_tol;
        co.compress_per_track = o.compress_per_track;
        co.methods = o.methods;
        co.bounds = o.bounds;
        if (sizes_given) { co.sizes = o.sizes; co.nsizes = (uint32_t)o.nsizes; }
        return sinew_bench_cpu_only_opts(o.out_dir, o.seconds_per_case < 0.8 ? o.seconds_per_case : 0.3, &co);
    }
    sinew_gpu_desc gd = {0};
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r != SINEW_OK) {
        fprintf(stderr, "sinew-bench: no Vulkan device: %s\n", sinew_result_string(r));
        return 1;
    }
    const sinew_gpu_device_info *info = sinew_gpu_info(gpu);
    int slow = info->type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (o.full && !budget_given) o.budget = 0;
    if (!slow && !budget_given) o.budget = 0;
    double t_begin = now_s();
    printf("sinew-bench: device %s (%s), %u CPU threads for palettes\n", info->name,
           slow ? "CPU device" : "GPU", sinew_cpu_count());
    if (o.device_info || o.roofline_only) {
        const VkPhysicalDeviceProperties *pp = sinew_gpu_properties(gpu);
        uint32_t dv = pp->driverVersion;
        char drv[64];
        if (pp->vendorID == 0x10DE) /* NVIDIA packs 10.8.8.6 bits */
            snprintf(drv, sizeof drv, "%u.%u.%u.%u", dv >> 22, (dv >> 14) & 0xffu, (dv >> 6) & 0xffu, dv & 0x3fu);
        else
            snprintf(drv, sizeof drv, "%u.%u.%u", VK_API_VERSION_MAJOR(dv), VK_API_VERSION_MINOR(dv), VK_API_VERSION_PATCH(dv));
        printf("device: %s\nvendor id: 0x%04x, device id: 0x%04x\nVulkan API: %u.%u.%u\ndriver version: %s (raw 0x%08x)\n"
               "maxStorageBufferRange: %u, maxMemoryAllocationSize: %llu, maxComputeWorkGroupCount[0]: %u\n",
               info->name, pp->vendorID, pp->deviceID, VK_API_VERSION_MAJOR(pp->apiVersion),
               VK_API_VERSION_MINOR(pp->apiVersion), VK_API_VERSION_PATCH(pp->apiVersion), drv, dv,
               pp->limits.maxStorageBufferRange, (unsigned long long)sinew_gpu_max_allocation(gpu),
               pp->limits.maxComputeWorkGroupCount[0]);
        if (o.device_info) {
            sinew_gpu_destroy(gpu);
            return 0;
        }
    }

    /* roofline: compute-shader copy (the kernel's read path) and vkCmdCopyBuffer, aimed beyond the LLC,
     * the same measurement as sinew-demo (sinew_debug_measure_roofline) */
    sinew_copy_roofline roof;
    memset(&roof, 0, sizeof roof);
    r = sinew_debug_measure_roofline(gpu, 7, &roof);
    if (r != SINEW_OK) fprintf(stderr, "copy roofline failed: %s\n", sinew_result_string(r));
    char roof_what[192];
    printf("copy roofline (sinew_debug_measure_roofline, as sinew-demo: %s; shader reads through %s buffers as "
           "the kernel does here; bytes read + written): compute-shader copy %.1f GB/s, vkCmdCopyBuffer %.1f GB/s\n",
           sinew_debug_roofline_describe(&roof, roof_what, sizeof roof_what),
           roof.read_path == SINEW_READ_TEXEL ? "texel" : "storage", roof.shader_copy_gbps, roof.transfer_copy_gbps);
    double roof_first = roof.shader_copy_gbps;
    if (o.roofline_only) {
        /* the same copy at other sizes (as far as the device's buffer limits allow): where the
         * probe's size, rather than the memory, sets the figure */
        printf("copy by size (read + written, medians of 7, read path as above):\n%10s %14s %16s\n", "MiB",
               "shader GB/s", "vkCmdCopy GB/s");
        for (uint64_t mib = 16; mib <= 4096; mib *= 4) {
            sinew_copy_roofline c;
            sinew_result rc = sinew_debug_measure_copy_path(gpu, mib << 20, 7, roof.read_path, &c);
            if (rc != SINEW_OK) {
                printf("%10llu %14s (%s)\n", (unsigned long long)mib, "-", sinew_result_string(rc));
                break;
            }
            printf("%10llu %14.1f %16.1f\n", (unsigned long long)mib, c.shader_copy_gbps, c.transfer_copy_gbps);
        }
        sinew_gpu_destroy(gpu);
        return r == SINEW_OK ? 0 : 1;
    }
    if (o.kernel_rounds > 0) kernel_compare(gpu, o.kernel_rounds, o.kernel_cases);
    if (o.kernels_only) {
        sinew_gpu_destroy(gpu);
        return 0;
    }
    if (o.budget)
        printf("vertex budget: at most %llu skinned vertices per frame on this %s device; larger crowds are capped "
               "to fit and marked * (--full for the whole sweep)\n",
               (unsigned long long)o.budget, slow ? "CPU" : "");

    /* models */
    demo_model models[2];
    int nmodels = 0;
    memset(models, 0, sizeof models);
    uint32_t tube_rings = 32, tube_sectors = 16; /* rings * sectors + 2 cap centers */
    if (o.tube_vertices) tube_rings = (o.tube_vertices - 2 + tube_sectors / 2) / tube_sectors;
    if (demo_tube(tube_rings, tube_sectors, &models[0]) != SINEW_OK) {
        fprintf(stderr, "tube failed\n");
        return 1;
    }
    nmodels = 1;
#ifdef DEMO_WITH_ASSET
    if (o.model_path) {
        char msg[256] = "";
        sinew_result ar = demo_asset(o.model_path, &models[1], msg, sizeof msg);
        if (ar == SINEW_OK) nmodels = 2;
        else fprintf(stderr, "model %s not loaded: %s %s\n", o.model_path, sinew_result_string(ar), msg);
    }
#endif
    sinew_read_path used_path = SINEW_READ_AUTO;
    sinew_output_binding used_ob;
    memset(&used_ob, 0, sizeof used_ob);

    for (int mi = 0; mi < nmodels; mi++) {
        demo_model *m = &models[mi];
        uint32_t max_chars = 0;
        for (int s = 0; s < o.nsizes; s++) {
            uint64_t c = o.sizes[s];
            if (o.budget && c * m->vertex_count > o.budget) c = o.budget / m->vertex_count;
            if (c > max_chars) max_chars = (uint32_t)c;
        }
        if (max_chars == 0) max_chars = 1;
        sinew_skinner *sk = NULL;
        sinew_crowd *crowd = NULL;
        sinew_model_id model_id = { 0 };
        r = make_pipeline(gpu, m, max_chars, &o, o.format, &sk, &crowd, &model_id);
        while (r == SINEW_ERROR_LIMIT_EXCEEDED && max_chars > 1) { /* device buffer limits */
            max_chars /= 2;
            r = make_pipeline(gpu, m, max_chars, &o, o.format, &sk, &crowd, &model_id);
        }
        if (r != SINEW_OK) {
            fprintf(stderr, "%s: skinner/crowd setup failed: %s\n", m->name, sinew_result_string(r));
            continue;
        }
        used_path = sinew_skinner_read_path(sk);
        sinew_skinner_output_binding(sk, &used_ob);
        printf("\nmodel %s: %u vertices, %u joints%s; kernel read path %s, output %u B/vertex\n", m->name,
               m->vertex_count, sinew_skeleton_joint_count(m->skel), m->clip ? ", clip sampled per character" : ", procedural bend/twist",
               read_path_name(used_path), used_ob.stride);
        print_header();
        for (int vi = 0; vi < NVAR; vi++) {
            if (!variant_selected(&o, vi)) continue;
            double ref = reference_rate(m, &VARIANTS[vi]);
            uint32_t last = 0;
            for (int s = 0; s < o.nsizes && nrows < MAX_ROWS; s++) {
                uint32_t c = o.sizes[s];
                int capped = 0;
                if (c > max_chars) {
                    c = max_chars;
                    capped = 1;
                }
                if (c == last) continue; /* capped to a size already measured */
                last = c;
                row *rw = &rows[nrows++];
                memset(rw, 0, sizeof *rw);
                run_case(sk, crowd, m, model_id, &VARIANTS[vi], c, &o, roof.shader_copy_gbps, rw);
                rw->capped = capped;
                rw->ref_verts_per_s = ref;
                print_row(rw);
            }
        }
        sinew_crowd_destroy(crowd);
        sinew_skinner_destroy(sk);
    }
    /* the roofline again after the sweep: on a shared machine the first figure can be
     * depressed by other load; the fractions above use the first, both are reported */
    sinew_copy_roofline roof2;
    memset(&roof2, 0, sizeof roof2);
    if (sinew_debug_measure_roofline(gpu, 7, &roof2) == SINEW_OK)
        printf("copy roofline again after the sweep: compute-shader copy %.1f GB/s, vkCmdCopyBuffer %.1f GB/s%s\n",
               roof2.shader_copy_gbps, roof2.transfer_copy_gbps,
               fabs(roof2.shader_copy_gbps - roof_first) > 0.25 * roof_first ? " (differs by > 25%: noisy machine)" : "");
    printf("(* = capped by the vertex budget; cpu_ms = sample + FK + palette + pack on all threads;\n"
           " gpu_ms = the single skinning dispatch, timestamp queries; frame_ms = wall time per frame with 2 frames\n"
           " in flight; B/vert = rest 32 + output + bulge + palette share; roof = GB/s / compute-shader copy GB/s;\n"
           " ref_Mv/s = float64 CPU reference skinner, 1 thread)\n");

    /* variants of the kernel's memory traffic: read path x output format, tube, LBS and DQS */
    typedef struct vrow { const char *method; const char *path; const char *fmt; double mvps, bpv, gbps; } vrow;
    vrow vrows[8];
    int nv = 0;
    if (!o.skip_variants) {
        uint32_t c = 2000;
        if (o.budget && (uint64_t)c * models[0].vertex_count > o.budget) c = (uint32_t)(o.budget / models[0].vertex_count);
        printf("\nkernel variants (tube, %u characters, %llu vertices, median of frames):\n", c,
               (unsigned long long)c * models[0].vertex_count);
        printf("%-6s %-8s %-7s %8s %7s %6s %6s\n", "method", "read", "output", "Mvert/s", "B/vert", "GB/s", "roof");
        for (int f = 0; f < 2; f++) {
            sinew_skinner *sk = NULL;
            sinew_crowd *crowd = NULL;
            sinew_model_id model_id = { 0 };
            options o2 = o;
            if (make_pipeline(gpu, &models[0], c, &o2, f ? SINEW_OUTPUT_PACKED : SINEW_OUTPUT_FLOAT, &sk, &crowd,
                              &model_id) != SINEW_OK)
                continue;
            for (int p = 1; p <= 2; p++) {
                if (sinew_skinner_set_read_path(sk, (sinew_read_path)p) != SINEW_OK) continue;
                for (int vi = 0; vi < 2 && nv < 8; vi++) {
                    row tmp;
                    memset(&tmp, 0, sizeof tmp);
                    run_case(sk, crowd, &models[0], model_id, &VARIANTS[vi], c, &o, roof.shader_copy_gbps, &tmp);
                    if (tmp.error) continue;
                    vrow *w = &vrows[nv++];
                    w->method = VARIANTS[vi].name;
                    w->path = read_path_name((sinew_read_path)p);
                    w->fmt = f ? "packed" : "float";
                    w->mvps = tmp.verts_per_s * 1e-6;
                    w->bpv = tmp.bytes_per_vertex;
                    w->gbps = tmp.gbps;
                    printf("%-6s %-8s %-7s %8.1f %7.2f %6.2f %5.1f%%\n", w->method, w->path, w->fmt, w->mvps, w->bpv,
                           w->gbps, 100 * tmp.roofline);
                    fflush(stdout);
                }
            }
            sinew_crowd_destroy(crowd);
            sinew_skinner_destroy(sk);
        }
    }

    /* ---- CSV, JSON, gnuplot ---- */
    char path[1024];
    snprintf(path, sizeof path, "%s/bench.csv", o.out_dir);
    FILE *csv = fopen(path, "w");
    if (csv) {
        fprintf(csv, "device,model,method,characters,capped,vertices,cpu_ms,joints_per_s,gpu_ms,vertices_per_s,"
                     "bytes_per_vertex,gb_per_s,roofline_fraction,frame_ms,reference_vertices_per_s,error\n");
        for (int i = 0; i < nrows; i++) {
            const row *w = &rows[i];
            fprintf(csv, "\"%s\",\"%s\",%s,%u,%d,%llu,%.6f,%.1f,%.6f,%.1f,%.3f,%.4f,%.5f,%.6f,%.1f,%s\n", info->name,
                    w->model, w->var->name, w->chars, w->capped, (unsigned long long)w->vertices, w->cpu_ms,
                    w->joints_per_s, w->gpu_ms, w->verts_per_s, w->bytes_per_vertex, w->gbps, w->roofline, w->wall_ms,
                    w->ref_verts_per_s, w->error ? w->error : "");
        }
        fclose(csv);
    }
    snprintf(path, sizeof path, "%s/bench.json", o.out_dir);
    FILE *js = fopen(path, "w");
    if (js) {
        fprintf(js, "{\n  \"device\": \"%s\",\n  \"device_type\": \"%s\",\n  \"cpu_threads\": %u,\n", info->name,
                slow ? "cpu" : "gpu", sinew_cpu_count());
        fprintf(js, "  \"read_path\": \"%s\",\n  \"output_bytes_per_vertex\": %u,\n", read_path_name(used_path),
                used_ob.stride);
        fprintf(js, "  \"copy_roofline\": {\"bytes\": %llu, \"shader_copy_gbps\": %.3f, \"transfer_copy_gbps\": %.3f, "
                    "\"shader_copy_gbps_after\": %.3f, \"transfer_copy_gbps_after\": %.3f},\n",
                (unsigned long long)roof.bytes, roof.shader_copy_gbps, roof.transfer_copy_gbps, roof2.shader_copy_gbps,
                roof2.transfer_copy_gbps);
        fprintf(js, "  \"vertex_budget\": %llu,\n  \"results\": [\n", (unsigned long long)o.budget);
        for (int i = 0; i < nrows; i++) {
            const row *w = &rows[i];
            fprintf(js,
                    "    {\"model\": \"%s\", \"method\": \"%s\", \"characters\": %u, \"capped\": %s, \"vertices\": %llu, "
                    "\"cpu_ms\": %.6f, \"joints_per_s\": %.1f, \"gpu_ms\": %.6f, \"vertices_per_s\": %.1f, "
                    "\"bytes_per_vertex\": %.3f, \"gb_per_s\": %.4f, \"roofline_fraction\": %.5f, \"frame_ms\": %.6f, "
                    "\"reference_vertices_per_s\": %.1f%s%s%s}%s\n",
                    w->model, w->var->name, w->chars, w->capped ? "true" : "false", (unsigned long long)w->vertices,
                    w->cpu_ms, w->joints_per_s, w->gpu_ms, w->verts_per_s, w->bytes_per_vertex, w->gbps, w->roofline,
                    w->wall_ms, w->ref_verts_per_s, w->error ? ", \"error\": \"" : "", w->error ? w->error : "",
                    w->error ? "\"" : "", i + 1 < nrows ? "," : "");
        }
        fprintf(js, "  ],\n  \"kernel_variants\": [\n");
        for (int i = 0; i < nv; i++)
            fprintf(js, "    {\"method\": \"%s\", \"read_path\": \"%s\", \"output\": \"%s\", \"vertices_per_s\": %.1f, "
                        "\"bytes_per_vertex\": %.3f, \"gb_per_s\": %.4f}%s\n",
                    vrows[i].method, vrows[i].path, vrows[i].fmt, vrows[i].mvps * 1e6, vrows[i].bpv, vrows[i].gbps,
                    i + 1 < nv ? "," : "");
        fprintf(js, "  ]\n}\n");
        fclose(js);
    }
    snprintf(path, sizeof path, "%s/bench.gp", o.out_dir);
    FILE *gp = fopen(path, "w");
    if (gp) {
        for (int mi = 0; mi < nmodels; mi++)
            for (int vi = 0; vi < NVAR; vi++) {
                if (!variant_selected(&o, vi)) continue;
                fprintf(gp, "$m%dv%d << EOD\n", mi, vi);
                for (int i = 0; i < nrows; i++)
                    if (!rows[i].error && rows[i].var == &VARIANTS[vi] && !strcmp(rows[i].model, models[mi].name))
                        fprintf(gp, "%u %.6g\n", rows[i].chars, rows[i].verts_per_s * 1e-6);
                fprintf(gp, "EOD\n");
            }
        fprintf(gp, "set terminal pngcairo size %d,520 font ',10'\nset output '%s/bench.png'\n", 640 * nmodels, o.out_dir);
        fprintf(gp, "set multiplot layout 1,%d title 'sinew-bench: GPU skinning throughput on %s (copy roofline %.1f GB/s)'\n",
                nmodels, info->name, roof.shader_copy_gbps);
        fprintf(gp, "set logscale x\nset logscale y\nset grid\nset key bottom right\n"
                    "set xlabel 'characters'\nset ylabel 'skinned vertices / s (millions)'\n");
        for (int mi = 0; mi < nmodels; mi++) {
            fprintf(gp, "set title '%s (%u vertices/character)'\nplot ", models[mi].name, models[mi].vertex_count);
            int last_vi = 0;
            for (int vi = 0; vi < NVAR; vi++)
                if (variant_selected(&o, vi)) last_vi = vi;
            for (int vi = 0; vi < NVAR; vi++)
                if (variant_selected(&o, vi))
                    fprintf(gp, "$m%dv%d using 1:2 with linespoints lw 2 title '%s'%s", mi, vi, VARIANTS[vi].name,
                            vi < last_vi ? ", " : "\n");
        }
        fprintf(gp, "unset multiplot\n");
        fclose(gp);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "gnuplot '%s/bench.gp' 2>/dev/null", o.out_dir);
        int rc = system(cmd);
        if (rc != 0) fprintf(stderr, "gnuplot failed (rc %d): no plot\n", rc);
    }
    printf("\nwrote %s/bench.csv, %s/bench.json, %s/bench.png (%.0f s in all)\n", o.out_dir, o.out_dir, o.out_dir,
           now_s() - t_begin);
    for (int mi = 0; mi < nmodels; mi++) demo_model_free(&models[mi]);
    sinew_gpu_destroy(gpu);
    return 0;
}
