/* sinew-bench-lod: animation LOD with interpolation (sinew_crowd_character.
 * lod_interpolate), CPU saved against the error it causes, on real models
 * (assimp's test models: X/BCN_Epileptic.X, X/Testwuson.X) playing their first
 * clip, DQS, 60 frames per second, each character at its own clip time.
 *  - cpu: the crowd's stats.cpu_ms per frame (sample + FK + palette, or the
 *    interpolation on held frames) for --characters characters of the model's
 *    skeleton with no meshes (palettes only: the GPU has nothing to skin, so
 *    lavapipe does not compete for the cores), update_every N = 1, 2, 4, 8
 *    (N > 1 interpolated); mean over --frames frames after 2N warm-up frames,
 *    the median of 5 rounds that take every N in turn (round-robin).
 *  - error: 8 characters skinned on the GPU with update_every N and
 *    lod_interpolate, against the same characters evaluated every frame
 *    (a) at the time the interpolation stands for (t - N dt: the rule shows
 *    the pose one update interval late, see crowd.h), the interpolation's own
 *    error, and (b) at the current time t, the error including that delay;
 *    max and mean over every vertex of every measured frame, divided by the
 *    model's size (the diagonal of the posed characters' box).
 *  - bone LOD (sinew_crowd_character.joint_lod = D: joints at depth >= D keep
 *    their rest local transform and are not sampled): cpu_ms as above (median
 *    of round-robin rounds over D), the single-thread sample and FK + palette
 *    time per character, and the error of K characters with the cut-off against
 *    the same with every joint (GPU skinned, distance / model size).
 * Usage: sinew-bench-lod [--characters C] [--frames F] [--threads T] [--model PATH]... */
#define _POSIX_C_SOURCE 200809L
#include <sinew/sinew.h>
#include <sinew/asset.h>
#include <sinew/palette_job.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_asset.h"
#include "bench_util.h"

#define K 8          /* characters of the error run per group */
#define FPS 60.0
#define ROUNDS 5     /* cpu_ms: median of this many round-robin rounds */

static int run_error(sinew_skinner *sk, sinew_crowd *crowd, sinew_model_id model, const sinew_clip *clip,
                     uint32_t nv, uint32_t n, uint32_t frames, double *err_max, double *err_mean, double *lag_max,
                     double *lag_mean, double *size)
{
    sinew_crowd_character ch[3 * K];
    float *out = malloc(sizeof(float) * 3 * 3 * K * (size_t)nv);
    double dur = sinew_clip_duration(clip), se = 0, sl = 0, me = 0, ml = 0, diag = 0;
    uint64_t cnt = 0;
    int ok = out != NULL;
    for (uint32_t f = 0; ok && f < 2 * n + frames; f++) {
        double t = f / FPS;
        for (uint32_t g = 0; g < 3; g++)
            for (uint32_t k = 0; k < K; k++) {
                sinew_crowd_character *c = &ch[g * K + k];
                memset(c, 0, sizeof *c);
                c->model = model;
                c->method = SINEW_METHOD_DQS;
                c->clip = clip;
                double off = dur * k / K;
                /* group 0: LOD; 1: every frame at t - N dt; 2: every frame at t */
                c->time = off + (g == 1 ? t - n / FPS : t);
                c->update_every = g == 0 ? n : 1;
                c->lod_interpolate = g == 0;
            }
        sinew_error_info e;
        if (sinew_crowd_update(crowd, ch, 3 * K, NULL, &e) != SINEW_OK) {
            printf("  error run: %s\n", e.message);
            ok = 0;
            break;
        }
        if (sinew_skinner_read_output(sk, 0, 3 * K * nv, out, NULL) != SINEW_OK) ok = 0;
        if (f < 2 * n) continue; /* the first frames have nothing to interpolate from */
        for (uint32_t k = 0; k < K; k++) {
            const float *a = out + 3 * (size_t)k * nv, *b = out + 3 * (size_t)(K + k) * nv,
                        *c = out + 3 * (size_t)(2 * K + k) * nv;
            float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
            for (uint32_t v = 0; v < nv; v++) {
                double de = 0, dl = 0;
                for (int x = 0; x < 3; x++) {
                    double p = a[3 * v + x];
                    de += (p - b[3 * v + x]) * (p - b[3 * v + x]);
                    dl += (p - c[3 * v + x]) * (p - c[3 * v + x]);
                    lo[x] = fminf(lo[x], c[3 * v + x]);
                    hi[x] = fmaxf(hi[x], c[3 * v + x]);
                }
                de = sqrt(de), dl = sqrt(dl);
                se += de, sl += dl, me = fmax(me, de), ml = fmax(ml, dl);
                cnt++;
            }
            double d = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                            (hi[2] - lo[2]) * (hi[2] - lo[2]));
            diag = fmax(diag, d);
        }
    }
    free(out);
    *size = diag;
    *err_max = me / diag, *err_mean = se / cnt / diag, *lag_max = ml / diag, *lag_mean = sl / cnt / diag;
    return ok;
}

/* Bone LOD error with the runtime cut-off (sinew_crowd_character.joint_lod =
 * lod: joints at depth >= lod keep their rest local transform and are not
 * sampled): K characters with the cut-off against the same with every joint,
 * each playing the clip at its own time, skinned on the GPU; vertex distance
 * over the model's size, max and mean over every vertex of `frames` frames. */
static int run_bone_error(sinew_skinner *sk, sinew_crowd *crowd, sinew_model_id model, const sinew_clip *clip,
                          uint32_t nv, uint32_t lod, uint32_t frames, double *err_max, double *err_mean)
{
    sinew_crowd_character ch[2 * K];
    float *out = malloc(sizeof(float) * 3 * 2 * K * (size_t)nv);
    double dur = sinew_clip_duration(clip), se = 0, me = 0, diag = 0;
    uint64_t cnt = 0;
    int ok = out != NULL;
    for (uint32_t f = 0; ok && f < frames; f++) {
        for (uint32_t g = 0; g < 2 * K; g++) {
            memset(&ch[g], 0, sizeof ch[g]);
            ch[g].model = model;
            ch[g].method = SINEW_METHOD_DQS;
            ch[g].clip = clip;
            ch[g].time = dur * (g % K) / K + f / FPS;
            ch[g].joint_lod = g < K ? 0 : lod;
        }
        sinew_error_info e;
        if (sinew_crowd_update(crowd, ch, 2 * K, NULL, &e) != SINEW_OK ||
            sinew_skinner_read_output(sk, 0, 2 * K * nv, out, NULL) != SINEW_OK) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < K; k++) {
            const float *a = out + 3 * (size_t)k * nv, *b = out + 3 * (size_t)(K + k) * nv;
            float lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
            for (uint32_t v = 0; v < nv; v++) {
                double d2 = 0;
                for (int x = 0; x < 3; x++) {
                    d2 += (a[3 * v + x] - b[3 * v + x]) * (double)(a[3 * v + x] - b[3 * v + x]);
                    lo[x] = fminf(lo[x], a[3 * v + x]);
                    hi[x] = fmaxf(hi[x], a[3 * v + x]);
                }
                se += sqrt(d2), me = fmax(me, sqrt(d2));
                cnt++;
            }
            diag = fmax(diag, sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                   (hi[2] - lo[2]) * (hi[2] - lo[2])));
        }
    }
    free(out);
    *err_max = me / diag, *err_mean = se / cnt / diag;
    return ok;
}

/* The crowd's stats.cpu_ms per frame for `chars` palette-only characters
 * playing the clip with joint_lod = lod (mean over `frames` after 2 warm-up
 * frames); also the single-thread sample and FK + palette ns per character
 * (sinew_palette_build_f32_timed over the same characters, frame 0). */
static int bone_cpu(sinew_crowd *crowd, sinew_model_id model, const sinew_skeleton *skel, const sinew_clip *clip,
                    sinew_crowd_character *ch, uint32_t chars, uint32_t lod, uint32_t frames, double *cpu_ms,
                    double *sample_ns, double *rest_ns)
{
    double dur = sinew_clip_duration(clip), sum = 0;
    sinew_error_info e;
    for (uint32_t f = 0; f < frames + 2; f++) {
        for (uint32_t i = 0; i < chars; i++) {
            sinew_crowd_character *c = &ch[i];
            memset(c, 0, sizeof *c);
            c->model = model;
            c->method = SINEW_METHOD_DQS;
            c->clip = clip;
            c->time = dur * (i % 97) / 97.0 + f / FPS;
            c->joint_lod = lod;
        }
        sinew_crowd_stats st;
        if (sinew_crowd_update(crowd, ch, chars, &st, &e) != SINEW_OK) {
            printf("  %s\n", e.message);
            return 0;
        }
        if (f >= 2) sum += st.cpu_ms;
    }
    *cpu_ms = sum / frames;
    uint32_t nj = sinew_skeleton_joint_count(skel);
    size_t sb = sinew_palette_scratch_bytes(nj);
    void *scratch = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    float *pal = malloc(sizeof(float) * 4 * SINEW_PALETTE_GPU_STRIDE_MAX * (size_t)nj + 16);
    double steps[4] = { 0, 0, 0, 0 };
    uint32_t n = chars < 2000 ? chars : 2000;
    for (uint32_t i = 0; scratch && pal && i < n; i++) {
        sinew_palette_character pc = { 0 };
        pc.skeleton = skel;
        pc.method = SINEW_METHOD_DQS;
        pc.clip = clip;
        pc.time = dur * (i % 97) / 97.0;
        pc.joint_lod = lod;
        (void)sinew_palette_build_f32_timed(&pc, scratch, sb, pal + 1, steps); /* +1: cached stores, as the crowd */
    }
    *sample_ns = steps[0] / n;
    *rest_ns = (steps[1] + steps[2] + steps[3]) / n;
    free(scratch);
    free(pal);
    return 1;
}

static void bench_model(sinew_gpu *gpu, const char *path, uint32_t chars, uint32_t frames, uint32_t threads)
{
    sinew_asset *a = NULL;
    sinew_rest_mesh *rm = NULL;
    if (!bench_load_model(path, 1, &a, &rm)) return;
    const sinew_skeleton *skel = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(skel);
    sinew_error_info e;
    const sinew_clip *clip = sinew_asset_clip(a, 0);
    uint32_t nv = sinew_rest_mesh_vertex_count(rm);
    uint32_t maxc = chars > 3 * K ? chars : 3 * K;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = nv;
    sd.max_meshes = 1;
    sd.max_instances = 3 * K;
    sd.max_output_vertices = 3 * K * nv;
    sd.max_palette_vec4 = maxc * nj * 2;
    sinew_skinner *sk = NULL;
    sinew_crowd *crowd = NULL;
    sinew_mesh_id mesh;
    sinew_model_id m_pal, m_mesh;
    sinew_crowd_desc cd = { 0 };
    cd.max_characters = maxc;
    cd.max_joints = nj;
    cd.threads = threads;
    cd.lod_interpolate = true;
    sinew_crowd_model_desc md = { 0 };
    md.skeleton = skel;
    const sinew_rest_mesh *rms[1] = { rm };
    if (sinew_skinner_create(gpu, &sd, &sk, &e) != SINEW_OK || (cd.skinner = sk, 0) ||
        sinew_crowd_create(&cd, &crowd, &e) != SINEW_OK || sinew_skinner_add_rest_mesh(sk, rm, &mesh, &e) != SINEW_OK ||
        sinew_crowd_add_model(crowd, &md, &m_pal, &e) != SINEW_OK ||
        (md.mesh_count = 1, md.meshes = &mesh, md.rest_meshes = rms, 0) ||
        sinew_crowd_add_model(crowd, &md, &m_mesh, &e) != SINEW_OK) {
        printf("%s: %s\n", path, e.message);
    } else {
        printf("%s: %u joints, %u vertices, clip \"%s\" %.2f s; DQS, %u characters, %u threads, %.0f fps\n", path, nj, nv,
               sinew_clip_name(clip), sinew_clip_duration(clip), chars, sinew_crowd_pool(crowd) ?
               sinew_thread_pool_size(sinew_crowd_pool(crowd)) : 0u, FPS);
        printf("  %-12s %10s %8s %12s %12s %12s %12s\n", "update_every", "cpu_ms", "saved", "err_max", "err_mean",
               "lag_max", "lag_mean");
        sinew_crowd_character *ch = calloc(chars, sizeof *ch);
        double dur = sinew_clip_duration(clip);
        const uint32_t ns[4] = { 1, 2, 4, 8 };
        double ms[ROUNDS][4], em[4] = { 0 }, ea[4] = { 0 }, lm[4] = { 0 }, la[4] = { 0 }, size = 0;
        int ok = ch != NULL;
        /* round-robin: every N once per round, the median of the rounds */
        for (int round = 0; ok && round < ROUNDS; round++)
            for (int ni = 0; ok && ni < 4; ni++) {
                uint32_t n = ns[ni];
                double sum = 0;
                for (uint32_t f = 0; ok && f < 2 * n + frames; f++) {
                    for (uint32_t i = 0; i < chars; i++) {
                        sinew_crowd_character *c = &ch[i];
                        memset(c, 0, sizeof *c);
                        c->model = m_pal;
                        c->method = SINEW_METHOD_DQS;
                        c->clip = clip;
                        c->time = dur * (i % 97) / 97.0 + f / FPS;
                        c->update_every = n;
                        c->lod_interpolate = n > 1;
                    }
                    sinew_crowd_stats st;
                    if (sinew_crowd_update(crowd, ch, chars, &st, &e) != SINEW_OK) {
                        printf("  %s\n", e.message);
                        ok = 0;
                    }
                    if (f >= 2 * n) sum += st.cpu_ms;
                }
                ms[round][ni] = sum / frames;
                if (round == 0 && n > 1 &&
                    !run_error(sk, crowd, m_mesh, clip, nv, n, frames, &em[ni], &ea[ni], &lm[ni], &la[ni], &size))
                    ok = 0;
            }
        for (int ni = 0; ok && ni < 4; ni++) {
            double v[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) v[round] = ms[round][ni];
            qsort(v, ROUNDS, sizeof(double), cmp_d);
            ms[0][ni] = v[ROUNDS / 2];
        }
        for (int ni = 0; ok && ni < 4; ni++) {
            if (ni == 0)
                printf("  %-12u %10.3f %8s %12s %12s %12s %12s\n", ns[ni], ms[0][0], "-", "0", "0", "0", "0");
            else
                printf("  %-12u %10.3f %7.0f%% %12.2e %12.2e %12.2e %12.2e\n", ns[ni], ms[0][ni],
                       100.0 * (1.0 - ms[0][ni] / ms[0][0]), em[ni], ea[ni], lm[ni], la[ni]);
        }
        free(ch);
        printf("  (errors: vertex distance / model size; err: vs evaluating every frame at t - N/%.0f s, what the\n"
               "   interpolation stands for; lag: vs evaluating at t, the one-interval delay included)\n", FPS);
        /* bone LOD at run time: joint_lod = D cuts the joints at depth >= D */
        uint32_t *jdepth = malloc(sizeof(uint32_t) * nj), maxd = 0;
        for (uint32_t j = 0; jdepth && j < nj; j++) {
            uint32_t dd = 0;
            for (int32_t p = sinew_skeleton_parent(skel, j); p >= 0 && dd <= nj; p = sinew_skeleton_parent(skel, (uint32_t)p))
                dd++;
            jdepth[j] = dd;
            maxd = dd > maxd ? dd : maxd;
        }
        uint32_t lods[16], nl = 0;
        lods[nl++] = 0;
        for (uint32_t dcut = 3; dcut <= maxd && nl < 16; dcut += (maxd > 12 ? 2 : 1)) lods[nl++] = dcut;
        printf("  bone LOD (sinew_crowd_character.joint_lod = D: joints at depth >= D keep their rest local transform\n"
               "  and are not sampled; deepest joint at depth %u); cpu_ms: %u characters, median of %d round-robin rounds;\n"
               "  sample / fk+pal: ns per character on one thread (sinew_palette_build_f32_timed)\n", maxd, chars, ROUNDS);
        printf("  %-6s %12s %10s %8s %10s %10s %12s %12s\n", "D", "joints kept", "cpu_ms", "saved", "sample_ns",
               "fk+pal_ns", "err_max", "err_mean");
        double bms[ROUNDS][16], bsn[16] = { 0 }, brn[16] = { 0 }, bem[16] = { 0 }, bea[16] = { 0 };
        ch = calloc(chars, sizeof *ch);
        ok = ch && jdepth;
        for (int round = 0; ok && round < ROUNDS; round++)
            for (uint32_t li = 0; ok && li < nl; li++) {
                double sn = 0, rn = 0;
                ok = bone_cpu(crowd, m_pal, skel, clip, ch, chars, lods[li], frames, &bms[round][li], &sn, &rn);
                bsn[li] += sn / ROUNDS, brn[li] += rn / ROUNDS;
                if (ok && round == 0 && lods[li])
                    ok = run_bone_error(sk, crowd, m_mesh, clip, nv, lods[li], frames, &bem[li], &bea[li]);
            }
        for (uint32_t li = 0; ok && li < nl; li++) {
            double v[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) v[round] = bms[round][li];
            qsort(v, ROUNDS, sizeof(double), cmp_d);
            bms[0][li] = v[ROUNDS / 2];
        }
        for (uint32_t li = 0; ok && li < nl; li++) {
            uint32_t kept = 0;
            for (uint32_t j = 0; j < nj; j++) kept += !lods[li] || jdepth[j] < lods[li];
            char dname[16];
            snprintf(dname, sizeof dname, lods[li] ? "%u" : "0 (all)", lods[li]);
            printf("  %-6s %5u of %-4u %10.3f %7.0f%% %10.0f %10.0f %12.2e %12.2e\n", dname, kept, nj, bms[0][li],
                   100.0 * (1.0 - bms[0][li] / bms[0][0]), bsn[li], brn[li], bem[li], bea[li]);
        }
        free(ch);
        free(jdepth);
    }
    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    sinew_rest_mesh_destroy(rm);
    sinew_asset_destroy(a);
}

int main(int argc, char **argv)
{
    uint32_t chars = 2000, frames = 48, threads = 0;
    const char *models[16];
    int nm = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--characters") && i + 1 < argc) chars = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc) frames = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--model") && i + 1 < argc && nm < 16) models[nm++] = argv[++i];
        else {
            fprintf(stderr, "usage: sinew-bench-lod [--characters C] [--frames F] [--threads T] [--model PATH]...\n");
            return 2;
        }
    }
    if (chars == 0 || frames == 0) {
        fprintf(stderr, "sinew-bench-lod: --characters and --frames must be > 0\n");
        return 2;
    }
    if (nm == 0) {
        models[nm++] = "/usr/share/assimp/models/X/BCN_Epileptic.X";
        models[nm++] = "/usr/share/assimp/models/X/Testwuson.X";
    }
    sinew_gpu *gpu = NULL;
    sinew_error_info e;
    if (sinew_gpu_create(NULL, &gpu, &e) != SINEW_OK) {
        fprintf(stderr, "sinew-bench-lod: no Vulkan device: %s\n", e.message);
        return 1;
    }
    for (int i = 0; i < nm; i++) bench_model(gpu, models[i], chars, frames, threads);
    sinew_gpu_destroy(gpu);
    return 0;
}
