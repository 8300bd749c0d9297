/* sinew-autoweights: for models with authored weights, how far skinning with
 * automatic weights (sinew_auto_weights_packed, w ~ d^-alpha over the joints the
 * file weights) lands from skinning with the file's weights, over frames of a
 * clip, per alpha. Both skinned by the float64 reference with the same palettes
 * (LBS by default), so the difference is the weights' alone. Distances are
 * relative to the model's size (bounding-box diagonal of the rest mesh).
 *
 *   sinew-autoweights [--alpha A,B,...] [--frames N] [--method M] MODEL...
 *   sinew-autoweights --quality [--frames N] MODEL...
 *
 * --quality instead measures the methods on the file's own weights over the clip
 * (the variants of scene_quality_methods: LBS, DQS, DQS + bulge correction, ...): the largest increase of a vertex's distance to
 * its major bone (relative to size; the bulge), and the temporal smoothness (the
 * largest per-vertex jump between consecutive frames over that vertex's median,
 * scene_jump_ratio). DQS falls back to DQS with scale on clips that scale joints.
 *
 * Exit status 0, or 1 when a model fails to load or when the bind pose does not
 * reproduce the same mesh with both weight sets (a self-check). */
#define _POSIX_C_SOURCE 200809L
#include <sinew/core.h>
#include <sinew/mesh.h>
#include <sinew/palette.h>
#include <sinew/reference.h>
#include <sinew/anim.h>
#include <sinew/asset.h>
#include "sinew_scene.h"

#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ALPHAS 16

typedef struct figures {
    double max_rel, rms_rel;   /* over every vertex of every frame, / model size */
    double p99_rel;            /* 99th percentile of those distances */
    double major_same;         /* fraction of vertices whose major joint is the file's */
} figures;

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p) {
        fprintf(stderr, "sinew-autoweights: out of memory\n");
        exit(1);
    }
    return p;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The joints the file weights (mask), their count. */
static uint32_t weighted_joints(const sinew_vertex *v, uint32_t nv, uint32_t jc, uint8_t *mask)
{
    uint32_t used = 0;
    memset(mask, 0, jc);
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 4; k++)
            if (v[i].weights[k] && v[i].joints[k] < jc && !mask[v[i].joints[k]]) {
                mask[v[i].joints[k]] = 1;
                used++;
            }
    return used;
}

static int run_model(const char *path, const double *alphas, int na, uint32_t frames, sinew_method method)
{
    sinew_error_info e;
    sinew_asset_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.path = path;
    ad.flags = SINEW_ASSET_ALLOW_MISSING_BONES;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&ad, &a, &e);
    if (r != SINEW_OK) {
        fprintf(stderr, "%s: %s (%s)\n", path, sinew_result_string(r), e.message);
        return 1;
    }
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    const sinew_vertex *file_v = sinew_asset_vertices(a);
    uint32_t nv = sinew_asset_vertex_count(a), jc = sinew_skeleton_joint_count(sk);
    double size = sinew_asset_size(a);
    const sinew_clip *clip = sinew_asset_clip_count(a) ? sinew_asset_clip(a, 0) : NULL;
    double dur = clip ? sinew_clip_duration(clip) : 0.0;
    uint8_t *mask = xcalloc(jc, 1);
    uint32_t used = weighted_joints(file_v, nv, jc, mask);
    sinew_vertex *auto_v = xcalloc(nv, sizeof *auto_v);
    sinew_transform *local = xcalloc(jc, sizeof *local);
    sinew_mat4 *scratch = xcalloc(sinew_palette_scratch_count(jc), sizeof *scratch);
    sinew_palette_joint *pal = xcalloc(jc, sizeof *pal);
    double *pf = xcalloc((size_t)nv * 3, sizeof(double)), *pa = xcalloc((size_t)nv * 3, sizeof(double));
    double *dist = xcalloc((size_t)nv * frames, sizeof(double));
    const char *base = strrchr(path, '/');
    int rc = 0;
    base = base ? base + 1 : path;
    if (!clip) printf("%s: no clip, skipped\n", base);
    if (used < 2) printf("%s: the file weights %u joint(s): nothing to compare, skipped\n", base, used);
    for (int ai = 0; clip && used >= 2 && ai < na; ai++) {
        sinew_auto_weights_desc d;
        figures f = { 0, 0, 0, 0 };
        double sum2 = 0.0, bind_err = 0.0;
        uint64_t count = 0;
        uint32_t same = 0;
        memset(&d, 0, sizeof d);
        d.alpha = alphas[ai];
        d.joint_mask = mask;
        memcpy(auto_v, file_v, sizeof *auto_v * nv);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        r = sinew_auto_weights_packed(sk, &d, nv, auto_v);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double wms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
        if (r != SINEW_OK) {
            fprintf(stderr, "%s: automatic weights: %s\n", base, sinew_result_string(r));
            rc = 1;
            break;
        }
        for (uint32_t i = 0; i < nv; i++) same += auto_v[i].joints[0] == file_v[i].joints[0];
        f.major_same = nv ? (double)same / nv : 0.0;
        /* frame 'frames' is the bind pose: the self-check */
        for (uint32_t fr = 0; fr <= frames && r == SINEW_OK; fr++) {
            if (fr == frames) r = sinew_asset_bind_pose(a, local);
            else r = sinew_clip_sample(clip, sk, dur * fr / frames, SINEW_WRAP_LOOP, local);
            if (r == SINEW_OK) r = sinew_palette_build(sk, method, local, NULL, scratch, pal);
            if (r == SINEW_OK) r = sinew_reference_skin(nv, file_v, NULL, pal, jc, method, 0, pf, NULL);
            if (r == SINEW_OK) r = sinew_reference_skin(nv, auto_v, NULL, pal, jc, method, 0, pa, NULL);
            if (r != SINEW_OK) break;
            for (uint32_t i = 0; i < nv; i++) {
                double dx = pf[3 * i] - pa[3 * i], dy = pf[3 * i + 1] - pa[3 * i + 1], dz = pf[3 * i + 2] - pa[3 * i + 2];
                double e2 = dx * dx + dy * dy + dz * dz;
                if (fr == frames) {
                    if (sqrt(e2) > bind_err) bind_err = sqrt(e2);
                    continue;
                }
                sum2 += e2;
                dist[count++] = sqrt(e2);
                if (sqrt(e2) > f.max_rel) f.max_rel = sqrt(e2);
            }
        }
        if (r != SINEW_OK) {
            fprintf(stderr, "%s: skinning: %s\n", base, sinew_result_string(r));
            rc = 1;
            break;
        }
        f.max_rel /= size;
        f.rms_rel = sqrt(sum2 / (double)(count ? count : 1)) / size;
        qsort(dist, count, sizeof(double), cmp_d);
        f.p99_rel = count ? dist[(size_t)(0.99 * (double)(count - 1))] / size : 0.0;
        printf("%-28s %6u %4u/%-4u %6.2f %9.2f%% %9.2f%% %9.2f%% %8.1f%% %10.2g %9.2f\n", base, nv, used, jc, alphas[ai],
               100 * f.max_rel, 100 * f.p99_rel, 100 * f.rms_rel, 100 * f.major_same, bind_err / size, wms);
        /* the importer's bind pose reproduces the rest mesh within 1.5e-5 x size (test_asset_models) */
        if (!(bind_err <= 3e-5 * size)) {
            fprintf(stderr, "%s: the bind pose differs by %.3g x size between the weight sets (tol 3e-5)\n", base,
                    bind_err / size);
            rc = 1;
        }
    }
    free(dist); free(mask); free(auto_v); free(local); free(scratch); free(pal); free(pf); free(pa);
    sinew_asset_destroy(a);
    return rc;
}

/* --quality: every variant of scene_quality_methods over the clip with the file's weights. */
static int run_quality(const char *path, uint32_t frames)
{
    sinew_error_info e;
    sinew_asset_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.path = path;
    ad.flags = SINEW_ASSET_ALLOW_MISSING_BONES;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&ad, &a, &e);
    if (r != SINEW_OK) {
        fprintf(stderr, "%s: %s (%s)\n", path, sinew_result_string(r), e.message);
        return 1;
    }
    uint32_t nv = sinew_asset_vertex_count(a);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!sinew_asset_clip_count(a)) {
        printf("%s: no clip, skipped\n", base);
        sinew_asset_destroy(a);
        return 0;
    }
    int rc = 0;
    for (uint32_t k = 0; k < scene_quality_method_count && r == SINEW_OK; k++) {
        const scene_quality_method *qm = &scene_quality_methods[k];
        scene_model_quality_result q;
        char name[64];
        r = scene_model_quality(a, qm, frames, &q);
        if (r != SINEW_OK) break;
        if (q.method_used != qm->method)
            snprintf(name, sizeof name, "%s%s", sinew_method_name(q.method_used),
                     (qm->flags & SINEW_SKIN_BULGE_INNER) ? " +bulge +inner"
                     : (qm->flags & SINEW_SKIN_BULGE_CORRECTION) ? " +bulge" : "");
        else
            snprintf(name, sizeof name, "%s", qm->name);
        printf("%-28s %6u %-16s %10.2f%% %10.2f%% %10.2f %10.2f%%\n", base, nv, name, 100 * q.max_increase,
               100 * q.p99_increase, q.jump_ratio, 100 * q.max_jump);
    }
    if (r != SINEW_OK) {
        fprintf(stderr, "%s: %s\n", base, sinew_result_string(r));
        rc = 1;
    }
    sinew_asset_destroy(a);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: sinew-autoweights [--alpha A,B,...] [--frames N] [--method M] MODEL...\n"
               "  --alpha    kernel exponents to compare (default 1,2,4,8)\n"
               "  --frames   clip times sampled evenly over clip 0 (default 60)\n"
               "  --method   lbs | dqs | dqs-scale | ... (default lbs), the same for both weight sets\n"
               "  --quality  instead: LBS, DQS, DQS + bulge with the file's weights over the clip (bulge:\n"
               "             largest increase of distance to the major bone; temporal smoothness)\n"
               "Prints per model and alpha: vertices, joints weighted by the file / all joints, the largest\n"
               "distance, its 99th percentile and the RMS distance between the two skinned meshes over\n"
               "the frames (%% of the model's size),\n"
               "the share of vertices keeping the file's major joint, and the bind-pose self-check.\n");
}

int main(int argc, char **argv)
{
    double alphas[MAX_ALPHAS] = { 1, 2, 4, 8 };
    int na = 4, rc = 0, models = 0;
    long frames = 60;
    int quality = 0;
    sinew_method method = SINEW_METHOD_LBS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--alpha") && i + 1 < argc) {
            char *s = argv[++i], *end;
            na = 0;
            while (*s && na < MAX_ALPHAS) {
                double a = strtod(s, &end);
                if (end == s || !(a > 0) || !isfinite(a)) {
                    fprintf(stderr, "sinew-autoweights: bad --alpha '%s' (exponents > 0)\n", argv[i]);
                    return 2;
                }
                alphas[na++] = a;
                s = *end == ',' ? end + 1 : end;
                if (*end && *end != ',') {
                    fprintf(stderr, "sinew-autoweights: bad --alpha '%s'\n", argv[i]);
                    return 2;
                }
            }
            if (na == 0) return 2;
        } else if (!strcmp(argv[i], "--quality")) {
            quality = 1;
        } else if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = strtol(argv[++i], NULL, 10);
            if (frames < 1 || frames > 100000) {
                fprintf(stderr, "sinew-autoweights: --frames must be 1..100000\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--method") && i + 1 < argc) {
            if (sinew_method_parse(argv[++i], &method) != SINEW_OK) {
                fprintf(stderr, "sinew-autoweights: unknown method '%s'\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "sinew-autoweights: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (quality) {
            if (frames < 3) {
                fprintf(stderr, "sinew-autoweights: --quality needs --frames >= 3\n");
                return 2;
            }
            if (models++ == 0)
                printf("%-28s %6s %-16s %11s %11s %10s %11s\n", "model", "verts", "method", "max dist+", "p99 dist+",
                       "jump ratio", "max jump");
            rc |= run_quality(argv[i], (uint32_t)frames);
        } else {
            if (models++ == 0)
                printf("%-28s %6s %9s %6s %10s %10s %10s %9s %10s %9s\n", "model", "verts", "joints", "alpha", "max dist",
                       "p99 dist", "RMS dist", "same major", "bind check", "weights ms");
            rc |= run_model(argv[i], alphas, na, (uint32_t)frames, method);
        }
    }
    if (!models) {
        usage(stderr);
        return 2;
    }
    if (quality)
        printf("(file weights, %ld frames of clip 0; dist+: increase of a vertex's distance to its major bone, %% of\n"
               " the model's size; jump ratio: largest per-vertex jump / that vertex's median; max jump: %% of size)\n",
               frames);
    else
        printf("(distances: auto-weighted vs file-weighted skinning, %s, %ld frames of clip 0, %% of the model's size)\n",
               sinew_method_name(method), frames);
    return rc;
}
