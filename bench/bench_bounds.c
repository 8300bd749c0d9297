/* sinew-bench-bounds: the cost of per-character culling boxes against the
 * palette work they follow, on one thread, as the crowd does them (palette
 * by sinew_palette_build_f32, then sinew_character_bounds on that palette).
 * Model: a real character when assimp's test models are installed
 * (X/Testwuson.X, 40 joints, 11,196 vertices; X/BCN_Epileptic.X, 58 joints,
 * 15,378 vertices), packed by sinew_asset_rest_mesh with its joint bounds.
 * As in the crowd: the palette is built in cached memory (4 bytes past 16-byte
 * alignment: plain stores), boxed there, and copied to the destination (the
 * mapped ring); "palette" counts build + copy, "bounds" the box.
 * Poses: random local rotations up to 0.6 rad on every joint, and for the
 * scale methods real non-uniform scale (0.7..1.3 per axis) on a quarter of the
 * joints. Per method: ns per character for the palette and for the box, and
 * their ratio; median of 5 rounds of N characters; "pass ns": the same boxes again as one
 * timed loop over the N palettes kept in memory (one clock read per pass, so no clock
 * cost in the figure; the palettes come from cache or memory, not from the build just
 * before). Looseness: for the first 100
 * characters, the box (from the float64 palette, packed) against the tight box of
 * the vertices skinned by the float64 reference (sinew_reference_skin): the median
 * and largest volume ratio, and the vertices outside the box (must be 0).
 * --call-cost: instead, the time of one sinew_character_bounds call (LBS) on a
 * synthetic palette of J joints (rotations about z, translations, one joint bound each),
 * the same palette boxed 2,000,000 times (in cache), for J = 1 .. 64: the call's fixed
 * cost against its cost per joint.
 * Usage: sinew-bench-bounds [--characters N] [--model PATH]... | --call-cost */
#define _POSIX_C_SOURCE 200809L
#include <sinew/rest_mesh.h>
#include <sinew/asset.h>
#include <sinew/bounds.h>
#include <sinew/linalg.h>
#include <sinew/palette_job.h>
#include <sinew/reference.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_asset.h"
#include "bench_util.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rs = 0x0b0dd5u;
static double rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}

static void bench_model(const char *path, uint32_t chars)
{
    sinew_asset *a = NULL;
    sinew_rest_mesh *rm = NULL;
    if (!bench_load_model(path, 0, &a, &rm)) return;
    const sinew_skeleton *skel = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(skel);
    const uint16_t *nb = NULL;
    const sinew_joint_bounds *jb = sinew_rest_mesh_joint_bounds(rm, &nb);
    uint64_t neighbors = 0;
    for (uint32_t j = 0; j < nj; j++) neighbors += jb[j].neighbor_count;
    /* a model of several meshes: each mesh's own joint bounds (as a crowd given one skinner
     * mesh per asset mesh has them) and their merge (sinew_joint_bounds_merge, one call) */
    uint32_t nm = sinew_asset_mesh_count(a);
    sinew_rest_mesh *mrm[SINEW_JOINT_BOUNDS_MERGE_MAX] = { 0 };
    const sinew_joint_bounds *mjb[SINEW_JOINT_BOUNDS_MERGE_MAX];
    const uint16_t *mnb[SINEW_JOINT_BOUNDS_MERGE_MAX];
    sinew_joint_bounds *merged = NULL;
    uint16_t *merged_nb = NULL;
    if (nm > 1 && nm <= SINEW_JOINT_BOUNDS_MERGE_MAX) {
        uint32_t ok = 1, used = 0;
        for (uint32_t k = 0; ok && k < nm; k++) {
            ok = sinew_asset_rest_mesh(a, k, 4, &mrm[k], NULL) == SINEW_OK;
            if (ok) mjb[k] = sinew_rest_mesh_joint_bounds(mrm[k], &mnb[k]);
        }
        merged = ok ? malloc(sizeof(sinew_joint_bounds) * nj) : NULL;
        merged_nb = ok ? malloc(sizeof(uint16_t) * nj * nj) : NULL;
        if (!merged || !merged_nb || sinew_joint_bounds_merge(mjb, mnb, nm, nj, merged, merged_nb, nj * nj, &used) != SINEW_OK) {
            free(merged);
            merged = NULL;
        }
    }
    printf("%s: %u joints, %u vertices, %.1f neighbours per joint, %u characters\n", path, nj,
           sinew_rest_mesh_vertex_count(rm), (double)neighbors / nj, chars);
    printf("  %-16s %12s %12s %8s %10s %10s %10s %8s\n", "method", "palette ns", "bounds ns", "ratio", "pass ns", "vol med",
           "vol max", "outside");
    uint32_t nv = sinew_rest_mesh_vertex_count(rm);
    const sinew_vertex *verts = sinew_rest_mesh_vertices(rm);
    double *skinned = malloc(sizeof(double) * 3 * nv);
    sinew_mat4 *dscratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(nj));
    sinew_palette_joint *dpal = malloc(sizeof(sinew_palette_joint) * nj);
    double vol[100];

    size_t sb = sinew_palette_scratch_bytes(nj);
    void *scratch = aligned_alloc(16, (sb + 15) / 16 * 16);
    float *pal_block = aligned_alloc(16, sizeof(float) * 4 * SINEW_PALETTE_GPU_STRIDE_MAX * nj + 16), *pal = pal_block + 1;
    float *dst = aligned_alloc(16, sizeof(float) * 4 * SINEW_PALETTE_GPU_STRIDE_MAX * nj);
    sinew_transform *poses = malloc(sizeof(sinew_transform) * nj * (size_t)chars);
    const size_t pal_floats = (size_t)4 * SINEW_PALETTE_GPU_STRIDE_MAX * nj;
    float *kept = malloc(sizeof(float) * pal_floats * chars);
    const sinew_method methods[] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
    for (int mi = 0; mi < 3; mi++) {
        sinew_method m = methods[mi];
        int scaled = m == SINEW_METHOD_DQS_SCALE;
        for (uint32_t c = 0; c < chars; c++)
            for (uint32_t j = 0; j < nj; j++) {
                sinew_transform *t = &poses[(size_t)c * nj + j];
                *t = sinew_skeleton_rest_pose(skel)[j];
                sinew_vec3 axis = sinew_v3_normalize(sinew_v3(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5));
                t->rotation = sinew_quat_mul(t->rotation, sinew_quat_from_axis_angle(axis, 0.6 * rnd()));
                if (scaled && j % 4 == 1) t->scale = sinew_v3(0.7 + 0.6 * rnd(), 0.7 + 0.6 * rnd(), 0.7 + 0.6 * rnd());
            }
        double tp[5], tb[5];
        for (int round = 0; round < 5; round++) {
            double p = 0, b = 0;
            for (uint32_t c = 0; c < chars; c++) {
                sinew_palette_character ch = { 0 };
                ch.skeleton = skel;
                ch.method = m;
                ch.pose = &poses[(size_t)c * nj];
                double t0 = now_ns();
                sinew_result r = sinew_palette_build_f32(&ch, scratch, sb, pal);
                memcpy(dst, pal, sizeof(float) * 4 * nj * sinew_palette_gpu_stride(m, 0));
                double t1 = now_ns();
                float lo[3], hi[3];
                sinew_result rb = sinew_character_bounds(jb, nb, nj, m, 0, pal, lo, hi);
                double t2 = now_ns();
                if (kept) memcpy(kept + pal_floats * c, pal, sizeof(float) * 4 * nj * sinew_palette_gpu_stride(m, 0));
                if (r != SINEW_OK || rb != SINEW_OK) {
                    printf("  %s: %s / %s\n", sinew_method_name(m), sinew_result_string(r), sinew_result_string(rb));
                    break;
                }
                p += t1 - t0;
                b += t2 - t1;
            }
            tp[round] = p / chars;
            tb[round] = b / chars;
        }
        double tq[5] = { 0 };
        for (int round = 0; kept && round < 5; round++) {
            float lo[3], hi[3];
            double t0 = now_ns();
            for (uint32_t c = 0; c < chars; c++) sinew_character_bounds(jb, nb, nj, m, 0, kept + pal_floats * c, lo, hi);
            tq[round] = (now_ns() - t0) / chars;
        }
        /* several meshes: one call per mesh against one call with the merged bounds */
        double tm[5] = { 0 }, tu[5] = { 0 }, mvol[100];
        uint32_t nmv = 0;
        for (int round = 0; kept && merged && round < 5; round++) {
            float lo[3], hi[3];
            double t0 = now_ns();
            for (uint32_t c = 0; c < chars; c++)
                for (uint32_t k = 0; k < nm; k++) sinew_character_bounds(mjb[k], mnb[k], nj, m, 0, kept + pal_floats * c, lo, hi);
            double t1 = now_ns();
            for (uint32_t c = 0; c < chars; c++) sinew_character_bounds(merged, merged_nb, nj, m, 0, kept + pal_floats * c, lo, hi);
            tm[round] = (t1 - t0) / chars;
            tu[round] = (now_ns() - t1) / chars;
        }
        for (uint32_t c = 0; kept && merged && c < chars && c < 100; c++) { /* merged box volume / union of the meshes' boxes */
            double ulo[3] = { 1e300, 1e300, 1e300 }, uhi[3] = { -1e300, -1e300, -1e300 };
            float lo[3], hi[3];
            int ok = 1;
            for (uint32_t k = 0; k < nm; k++) {
                if (sinew_character_bounds(mjb[k], mnb[k], nj, m, 0, kept + pal_floats * c, lo, hi) != SINEW_OK) continue;
                for (int e = 0; e < 3; e++) {
                    ulo[e] = lo[e] < ulo[e] ? lo[e] : ulo[e];
                    uhi[e] = hi[e] > uhi[e] ? hi[e] : uhi[e];
                }
            }
            ok = sinew_character_bounds(merged, merged_nb, nj, m, 0, kept + pal_floats * c, lo, hi) == SINEW_OK;
            if (ok)
                mvol[nmv++] = ((double)hi[0] - lo[0]) * ((double)hi[1] - lo[1]) * ((double)hi[2] - lo[2]) /
                              ((uhi[0] - ulo[0]) * (uhi[1] - ulo[1]) * (uhi[2] - ulo[2]));
        }
        qsort(tp, 5, sizeof(double), cmp_d);
        qsort(tb, 5, sizeof(double), cmp_d);
        qsort(tq, 5, sizeof(double), cmp_d);
        qsort(tm, 5, sizeof(double), cmp_d);
        qsort(tu, 5, sizeof(double), cmp_d);
        qsort(mvol, nmv, sizeof(double), cmp_d);
        uint32_t nl = chars < 100 ? chars : 100, outside = 0;
        for (uint32_t c = 0; c < nl; c++) {
            float lo[3], hi[3];
            double vlo[3] = { 1e300, 1e300, 1e300 }, vhi[3] = { -1e300, -1e300, -1e300 };
            if (sinew_palette_build(skel, m, &poses[(size_t)c * nj], NULL, dscratch, dpal) != SINEW_OK ||
                sinew_palette_pack(m, 0, dpal, nj, dst) != SINEW_OK ||
                sinew_character_bounds(jb, nb, nj, m, 0, dst, lo, hi) != SINEW_OK ||
                !verts || sinew_reference_skin(nv, verts, NULL, dpal, nj, m, 0, skinned, NULL) != SINEW_OK) {
                nl = c;
                break;
            }
            for (uint32_t i = 0; i < nv; i++) {
                int out = 0;
                for (int k = 0; k < 3; k++) {
                    double x = skinned[3 * (size_t)i + k];
                    vlo[k] = x < vlo[k] ? x : vlo[k];
                    vhi[k] = x > vhi[k] ? x : vhi[k];
                    out |= x < lo[k] || x > hi[k];
                }
                outside += (uint32_t)out;
            }
            vol[c] = ((double)hi[0] - lo[0]) * ((double)hi[1] - lo[1]) * ((double)hi[2] - lo[2]) /
                     ((vhi[0] - vlo[0]) * (vhi[1] - vlo[1]) * (vhi[2] - vlo[2]));
        }
        qsort(vol, nl, sizeof(double), cmp_d);
        printf("  %-16s %12.0f %12.0f %7.2fx %10.0f %9.2fx %9.2fx %8u\n", sinew_method_name(m), tp[2], tb[2], tb[2] / tp[2],
               tq[2], nl ? vol[nl / 2] : 0.0, nl ? vol[nl - 1] : 0.0, outside);
        if (merged && nmv)
            printf("  %-16s %u meshes: pass ns %.0f with one call per mesh, %.0f merged (sinew_joint_bounds_merge); merged box / "
                   "union of the meshes' boxes %.3fx median, %.3fx largest\n", "", nm, tm[2], tu[2], mvol[nmv / 2], mvol[nmv - 1]);
    }
    free(skinned);
    free(dscratch);
    free(dpal);
    free(scratch);
    free(pal_block);
    free(dst);
    free(poses);
    free(kept);
    free(merged);
    free(merged_nb);
    for (uint32_t k = 0; k < SINEW_JOINT_BOUNDS_MERGE_MAX; k++) sinew_rest_mesh_destroy(mrm[k]);
    sinew_rest_mesh_destroy(rm);
    sinew_asset_destroy(a);
}

static void call_cost(void)
{
    static const uint32_t js[] = { 1, 4, 8, 9, 12, 16, 17, 24, 40, 58, 64 };
    sinew_joint_bounds jb[64];
    uint16_t nb[64];
    float pal[64 * 12];
    printf("sinew_character_bounds, LBS, one call on a palette in cache, 2,000,000 calls per size:\n  joints  ns/call  ns/joint\n");
    for (size_t s = 0; s < sizeof js / sizeof js[0]; s++) {
        uint32_t J = js[s];
        memset(jb, 0, sizeof jb);
        for (uint32_t a = 0; a < J; a++) {
            jb[a].center[0] = (float)a;
            jb[a].center[1] = 1.0f;
            jb[a].center[2] = 0.5f;
            jb[a].radius = 0.3f;
            jb[a].min_major_weight = 0.6f;
            jb[a].first_neighbor = a;
            jb[a].neighbor_count = 1;
            nb[a] = (uint16_t)a;
            float *e = pal + 12 * a, c = cosf(0.1f * (float)a), sn = sinf(0.1f * (float)a);
            memset(e, 0, 48);
            e[0] = c; e[1] = -sn; e[4] = sn; e[5] = c; e[10] = 1.0f;
            e[3] = 0.1f * (float)a; e[7] = 0.2f; e[11] = -0.3f;
        }
        float lo[3], hi[3], acc = 0.0f;
        const uint32_t n = 2000000;
        double t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            pal[3] = (float)(i & 7); /* the palette changes between calls */
            if (sinew_character_bounds(jb, nb, J, SINEW_METHOD_LBS, 0, pal, lo, hi) == SINEW_OK) acc += lo[0];
        }
        double ns = (now_ns() - t0) / n;
        printf("  %6u %8.1f %9.2f%s\n", J, ns, ns / J, acc == 0.0f ? " (no box?)" : "");
    }
}

int main(int argc, char **argv)
{
    uint32_t chars = 1000;
    const char *models[8];
    int nm = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--characters") && i + 1 < argc) chars = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--model") && i + 1 < argc && nm < 8) models[nm++] = argv[++i];
        else if (!strcmp(argv[i], "--call-cost")) {
            call_cost();
            return 0;
        } else {
            fprintf(stderr, "usage: sinew-bench-bounds [--characters N] [--model PATH]... | --call-cost\n");
            return 2;
        }
    }
    if (!nm) {
        models[nm++] = "/usr/share/assimp/models/X/Testwuson.X";
        models[nm++] = "/usr/share/assimp/models/X/BCN_Epileptic.X";
    }
    if (chars == 0) chars = 1;
    for (int i = 0; i < nm; i++) bench_model(models[i], chars);
    return 0;
}
