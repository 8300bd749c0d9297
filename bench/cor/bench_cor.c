/* sinew-bench-cor: the centers-of-rotation precompute (sinew_cor_compute) on
 * generated models with automatic weights (cor_models.h): the exact float64
 * evaluation (the "before") against the accelerated one, seconds on 2 threads,
 * and the accelerated centers' distance to the exact ones. */
#define _POSIX_C_SOURCE 200809L
#include "cor_models.h"
#include <sinew/cor.h>
#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool print_progress(void *user, double f)
{
    int *last = (int *)user, p = (int)(f * 10);
    if (p != *last) { fprintf(stderr, "."); *last = p; }
    return true;
}

/* Writes the character as a skinned glTF (FILE and FILE.bin beside it): positions,
 * normals, the packed automatic weights as JOINTS_0 / WEIGHTS_0, triangles, one
 * node per joint (translations), the skin. For `sinew deform --method cor`. */
static int write_gltf(const char *path, const cor_model *m)
{
    char bin[4096];
    snprintf(bin, sizeof bin, "%s.bin", path);
    const char *binname = strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;
    FILE *fb = fopen(bin, "wb"), *fj = fopen(path, "w");
    if (!fb || !fj) { if (fb) fclose(fb); if (fj) fclose(fj); return -1; }
    const uint32_t n = m->vertex_count, nt = m->triangle_count, J = m->joint_count;
    float lo[3] = { 1e30f, 1e30f, 1e30f }, hi[3] = { -1e30f, -1e30f, -1e30f };
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            float p = m->v[i].position[k];
            lo[k] = p < lo[k] ? p : lo[k];
            hi[k] = p > hi[k] ? p : hi[k];
        }
    size_t off[6], len[6], at = 0;
    /* 0 positions, 1 normals, 2 joints (u16 x 4), 3 weights (f32 x 4), 4 indices, 5 inverse binds */
    len[0] = 12ull * n; len[1] = 12ull * n; len[2] = 8ull * n; len[3] = 16ull * n; len[4] = 12ull * nt; len[5] = 64ull * J;
    for (int b = 0; b < 6; b++) { off[b] = at; at += len[b]; }
    for (uint32_t i = 0; i < n; i++) fwrite(m->v[i].position, 4, 3, fb);
    fwrite(m->nrm, 4, 3 * (size_t)n, fb);
    for (uint32_t i = 0; i < n; i++) fwrite(m->v[i].joints, 2, 4, fb);
    for (uint32_t i = 0; i < n; i++) {
        float w[4];
        for (int k = 0; k < 4; k++) w[k] = m->v[i].weights[k] / 65535.0f;
        fwrite(w, 4, 4, fb);
    }
    fwrite(m->tri, 4, 3 * (size_t)nt, fb);
    for (uint32_t j = 0; j < J; j++) {
        float ib[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -m->joint_pos[j][0], -m->joint_pos[j][1], -m->joint_pos[j][2], 1 };
        fwrite(ib, 4, 16, fb);
    }
    fclose(fb);
    fprintf(fj, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"sinew-bench-cor\"},\"scene\":0,"
                "\"scenes\":[{\"nodes\":[0,%u]}],\"nodes\":[", J);
    for (uint32_t j = 0; j < J; j++) {
        const int32_t pj = m->parents[j];
        float t[3];
        for (int k = 0; k < 3; k++) t[k] = m->joint_pos[j][k] - (pj >= 0 ? m->joint_pos[pj][k] : 0.0f);
        fprintf(fj, "%s{\"name\":\"joint%u\",\"translation\":[%.9g,%.9g,%.9g]", j ? "," : "", j, t[0], t[1], t[2]);
        int first = 1;
        for (uint32_t c = 0; c < J; c++)
            if (m->parents[c] == (int32_t)j) { fprintf(fj, "%s%u", first ? ",\"children\":[" : ",", c); first = 0; }
        fprintf(fj, "%s}", first ? "" : "]");
    }
    fprintf(fj, ",{\"name\":\"body\",\"mesh\":0,\"skin\":0}],"
                "\"skins\":[{\"inverseBindMatrices\":5,\"skeleton\":0,\"joints\":[");
    for (uint32_t j = 0; j < J; j++) fprintf(fj, "%s%u", j ? "," : "", j);
    fprintf(fj, "]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"JOINTS_0\":2,"
                "\"WEIGHTS_0\":3},\"indices\":4}]}],\"buffers\":[{\"uri\":\"%s\",\"byteLength\":%zu}],\"bufferViews\":[",
            binname, at);
    for (int b = 0; b < 6; b++)
        fprintf(fj, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu%s}", b ? "," : "", off[b], len[b],
                b == 4 ? ",\"target\":34963" : b < 4 ? ",\"target\":34962" : "");
    fprintf(fj, "],\"accessors\":["
                "{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\",\"min\":[%.9g,%.9g,%.9g],"
                "\"max\":[%.9g,%.9g,%.9g]},"
                "{\"bufferView\":1,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},"
                "{\"bufferView\":2,\"componentType\":5123,\"count\":%u,\"type\":\"VEC4\"},"
                "{\"bufferView\":3,\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"},"
                "{\"bufferView\":4,\"componentType\":5125,\"count\":%u,\"type\":\"SCALAR\"},"
                "{\"bufferView\":5,\"componentType\":5126,\"count\":%u,\"type\":\"MAT4\"}]}\n",
            n, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], n, n, n, 3 * nt, J);
    return fclose(fj) == 0 ? 0 : -1;
}

static void usage(void)
{
    printf("usage: sinew-bench-cor [--character N] [--limb N] [--threads T] [--no-exact] [--cells C]\n"
           "  the centers-of-rotation precompute on a generated 19-joint character (N vertices,\n"
           "  default 100000) and a 4-joint limb (default 60000), automatic weights (alpha 4,\n"
           "  4 influences everywhere, radii jittered by 1 %% so that no two vertices share weights);\n"
           "  exact (float64, every subdivided triangle) and accelerated (weight cells, default %u\n"
           "  per unit), T threads (default 2). --no-exact: the accelerated run only.\n"
           "  --write-gltf FILE.gltf: write the character (and FILE.gltf.bin) for\n"
           "  `sinew deform FILE.gltf --method cor` instead.\n", SINEW_COR_DEFAULT_WEIGHT_CELLS);
}

int main(int argc, char **argv)
{
    uint32_t sizes[2] = { 100000, 60000 }, threads = 2, cells = 0;
    int exact = 1;
    const char *gltf = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--character") && i + 1 < argc) sizes[0] = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--limb") && i + 1 < argc) sizes[1] = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cells") && i + 1 < argc) cells = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-exact")) exact = 0;
        else if (!strcmp(argv[i], "--write-gltf") && i + 1 < argc) gltf = argv[++i];
        else { usage(); return !strcmp(argv[i], "--help") ? 0 : 2; }
    }
    if (gltf) {
        cor_model m;
        if (cor_model_character(&m, sizes[0], 4.0) != 0 || write_gltf(gltf, &m) != 0) {
            fprintf(stderr, "could not write %s\n", gltf);
            return 1;
        }
        printf("wrote %s: the character, %u vertices, %u triangles, %u joints\n", gltf, m.vertex_count, m.triangle_count,
               m.joint_count);
        cor_model_free(&m);
        return 0;
    }
    printf("sinew-bench-cor: sinew_cor_compute, sigma 0.1, epsilon 0.1, max depth 8, %u threads\n", threads);
    printf("%-9s %8s %8s %7s %9s %10s %12s %10s %10s %7s %11s %11s\n", "model", "vertices", "tris", "joints", "groups",
           "entries", "cells", "exact", "accel", "x", "max err", "rms err");
    for (int which = 0; which < 2; which++) {
        if (!sizes[which]) continue;
        cor_model m;
        if ((which ? cor_model_limb(&m, sizes[which], 4.0) : cor_model_character(&m, sizes[which], 4.0)) != 0) {
            fprintf(stderr, "could not generate the model\n");
            return 1;
        }
        float *ca = malloc(sizeof(float) * 3 * m.vertex_count), *ce = malloc(sizeof(float) * 3 * m.vertex_count);
        sinew_thread_pool_desc pd = { 0 };
        sinew_thread_pool *pool = NULL;
        pd.threads = threads;
        if (!ca || !ce || sinew_thread_pool_create(&pd, &pool) != SINEW_OK) return 1;
        sinew_cor_desc cd = { 0 };
        sinew_cor_stats st, ste;
        int last = -1;
        cd.vertex_count = m.vertex_count; cd.vertices = m.v; cd.joint_count = m.joint_count;
        cd.triangle_count = m.triangle_count; cd.triangles = m.tri; cd.pool = pool;
        cd.weight_cells = cells;
        cd.progress = print_progress; cd.progress_user = &last;
        double t0 = now_s();
        sinew_result r = sinew_cor_compute(&cd, ca, &st);
        double ta = now_s() - t0, te = 0, emax = 0, erms = 0;
        if (r != SINEW_OK) { fprintf(stderr, "sinew_cor_compute: %s\n", sinew_result_string(r)); return 1; }
        if (exact) {
            cd.exact = 1;
            last = -1;
            t0 = now_s();
            r = sinew_cor_compute(&cd, ce, &ste);
            te = now_s() - t0;
            if (r != SINEW_OK) { fprintf(stderr, "sinew_cor_compute: %s\n", sinew_result_string(r)); return 1; }
            /* errors relative to the diagonal of the mesh's box */
            double lo[3] = { 1e30, 1e30, 1e30 }, hi[3] = { -1e30, -1e30, -1e30 };
            for (uint32_t i = 0; i < m.vertex_count; i++)
                for (int k = 0; k < 3; k++) {
                    double p = m.pos[3 * i + k];
                    lo[k] = p < lo[k] ? p : lo[k];
                    hi[k] = p > hi[k] ? p : hi[k];
                }
            double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                               (hi[2] - lo[2]) * (hi[2] - lo[2]));
            for (uint32_t i = 0; i < m.vertex_count; i++) {
                double d2 = 0;
                for (int k = 0; k < 3; k++) {
                    double d = (double)ca[3 * i + k] - ce[3 * i + k];
                    d2 += d * d;
                }
                emax = sqrt(d2) > emax ? sqrt(d2) : emax;
                erms += d2;
            }
            emax /= diag;
            erms = sqrt(erms / m.vertex_count) / diag;
        }
        fprintf(stderr, "\n");
        char tex[32] = "-", tx[32] = "-", tmax[32] = "-", trms[32] = "-";
        if (exact) {
            snprintf(tex, sizeof tex, "%.2f s", te);
            snprintf(tx, sizeof tx, "%.1f", te / ta);
            snprintf(tmax, sizeof tmax, "%.2e", emax);
            snprintf(trms, sizeof trms, "%.2e", erms);
        }
        printf("%-9s %8u %8u %7u %9u %10llu %12llu %10s %8.2f s %7s %11s %11s\n", which ? "limb" : "character", m.vertex_count,
               m.triangle_count, m.joint_count, st.weight_groups, (unsigned long long)st.pair_entries,
               (unsigned long long)st.weight_cells, tex, ta, tx, tmax, trms);
        fflush(stdout);
        sinew_thread_pool_destroy(pool);
        free(ca); free(ce);
        cor_model_free(&m);
    }
    printf("(errors: distance of an accelerated center from the exact one / the mesh box's diagonal)\n");
    return 0;
}
