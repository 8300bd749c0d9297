/* FBX blend-shape weight animation through assimp (aiAnimation
 * mMorphMeshChannels) kept as the clip's weight tracks. The test writes its
 * files: tests/data/fbx/blendshape_quad.fbx (a quad under a node rotated 90
 * degrees about z and scaled 2; channels Smile and Blink) plus an animation
 * stack whose DeformPercent curves are Smile (0 s: 0, 1 s: 100, 2 s: 40) and
 * Blink (0 s: 0, 2 s: -50); and a variant whose Blink channel has an
 * in-between shape (FullWeights 50, 100), which assimp's channels cannot
 * express per shape: counted as not kept. Checks: one channel kept, the
 * clip's weights against the curves evaluated here (piecewise linear, /100;
 * 1e-7: assimp keeps floats) at 8 times, clamped past the end; the morphed rest through the
 * float64 reference against G(base + sum w delta) (1e-6 x size); the
 * in-between file keeps no track and counts the channel.
 *
 *   test_asset_fbx_morph_anim                       the checks above
 *   test_asset_fbx_morph_anim --write F [inbetween] writes the file (CLI tests)
 *   test_asset_fbx_morph_anim --check F.obj T       the OBJ 'sinew deform F --time T'
 *                                                   wrote, within 1e-5 x size */
#include "testutil.h"
#include <sinew/asset.h>
#include <sinew/reference.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KT 46186158000LL /* FBX time units per second */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

/* The animated file: the base file's objects, the in-between shape if asked,
 * the animation stack; its connections after the base file's. */
static int write_fbx(const char *out, int inbetween)
{
    const char *src = getenv("SINEW_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/fbx/blendshape_quad.fbx", src ? src : ".");
    char *base = read_all(path);
    if (!base) { fprintf(stderr, "cannot read %s\n", path); return 0; }
    char *conn = strstr(base, "\nConnections:");
    char *close_objects = conn ? conn : NULL;
    /* the objects block ends with the '}' line right before "Connections:" */
    while (close_objects && close_objects > base && *close_objects != '}') close_objects--;
    char *end = strrchr(base, '}');
    if (!conn || !close_objects || !end || end < conn) { free(base); return 0; }
    FILE *f = fopen(out, "w");
    if (!f) { free(base); return 0; }
    fprintf(f, "%.*s", (int)(close_objects - base), base);
    if (inbetween)
        fprintf(f, "\tGeometry: 3500, \"Geometry::BlinkHalf\", \"Shape\" {\n\t\tVersion: 100\n\t\tIndexes: *1 {\n\t\t\ta: 3\n\t\t}\n"
                   "\t\tVertices: *3 {\n\t\t\ta: 0,-0.1,0\n\t\t}\n\t\tNormals: *3 {\n\t\t\ta: 0,0,0\n\t\t}\n\t}\n");
    fprintf(f,
            "\tAnimationStack: 5000, \"AnimStack::Talk\", \"\" {\n\t\tProperties70:  {\n"
            "\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",%lld\n\t\t}\n\t}\n"
            "\tAnimationLayer: 5100, \"AnimLayer::BaseLayer\", \"\" {\n\t}\n",
            2 * KT);
    static const long long times[2][3] = { { 0, KT, 2 * KT }, { 0, 2 * KT, 0 } };
    static const char *values[2] = { "0,100,40", "0,-50" };
    static const int nkeys[2] = { 3, 2 };
    for (int c = 0; c < 2; c++) {
        fprintf(f, "\tAnimationCurveNode: %d, \"AnimCurveNode::DeformPercent\", \"\" {\n\t\tProperties70:  {\n"
                   "\t\t\tP: \"d|DeformPercent\", \"Number\", \"\", \"A\",0\n\t\t}\n\t}\n", 5200 + c);
        fprintf(f, "\tAnimationCurve: %d, \"AnimCurve::\", \"\" {\n\t\tDefault: 0\n\t\tKeyVer: 4009\n\t\tKeyTime: *%d {\n\t\t\ta: ",
                5300 + c, nkeys[c]);
        for (int k = 0; k < nkeys[c]; k++) fprintf(f, "%s%lld", k ? "," : "", times[c][k]);
        fprintf(f, "\n\t\t}\n\t\tKeyValueFloat: *%d {\n\t\t\ta: %s\n\t\t}\n\t\tKeyAttrFlags: *1 {\n\t\t\ta: 24836\n\t\t}\n"
                   "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,255790911,0\n\t\t}\n\t\tKeyAttrRefCount: *1 {\n\t\t\ta: %d\n\t\t}\n\t}\n",
                nkeys[c], values[c], nkeys[c]);
    }
    /* the base connections, then the animation's */
    fprintf(f, "}%.*s", (int)(end - conn), conn);
    if (inbetween) fprintf(f, "\tC: \"OO\",3500,3300\n");
    fprintf(f, "\tC: \"OO\",5100,5000\n");
    for (int c = 0; c < 2; c++)
        fprintf(f, "\tC: \"OO\",%d,5100\n\tC: \"OP\",%d,%d, \"DeformPercent\"\n\tC: \"OP\",%d,%d, \"d|DeformPercent\"\n", 5200 + c,
                5200 + c, c ? 3300 : 3100, 5300 + c, 5200 + c);
    fprintf(f, "}\n");
    free(base);
    return fclose(f) == 0;
}

/* The curves, evaluated here: piecewise linear, clamped, / 100. */
static double curve(int c, double t)
{
    static const double kt[2][3] = { { 0, 1, 2 }, { 0, 2, 2 } }, kv[2][3] = { { 0, 100, 40 }, { 0, -50, -50 } };
    if (t <= 0) return 0;
    if (t >= 2) return kv[c][2] / 100;
    for (int k = 0; k < 2; k++)
        if (t <= kt[c][k + 1] && kt[c][k + 1] > kt[c][k])
            return (kv[c][k] + (kv[c][k + 1] - kv[c][k]) * (t - kt[c][k]) / (kt[c][k + 1] - kt[c][k])) / 100;
    return kv[c][2] / 100;
}

/* Model-space positions at weights w: G(base + w0 smile + w1 blink), G = 2 Rz(90). */
static void expected(const double w[2], double out[6][3])
{
    static const double base[6][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 } };
    static const double smile[6][3] = { { 0, 0, 0 }, { 0, 0, 0.5 }, { 0.25, 0, 0 }, { 0, 0, 0 }, { 0.25, 0, 0 }, { 0, 0, 0 } };
    static const double blink[6][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, -0.5, 0 } };
    for (int v = 0; v < 6; v++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = base[v][k] + w[0] * smile[v][k] + w[1] * blink[v][k];
        out[v][0] = -2 * p[1]; out[v][1] = 2 * p[0]; out[v][2] = 2 * p[2];
    }
}

static sinew_asset *load(const char *path)
{
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "load %s: %s (%s)", path, sinew_result_string(r), err.message);
    return a;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--write")) return write_fbx(argv[2], argc > 3) ? 0 : 1;
    if (argc == 4 && !strcmp(argv[1], "--check")) {
        double t = atof(argv[3]), w[2] = { curve(0, t), curve(1, t) }, want[6][3], got[6][3];
        expected(w, want);
        FILE *f = fopen(argv[2], "r");
        char line[512];
        int n = 0;
        while (f && fgets(line, sizeof line, f))
            if (n < 6 && sscanf(line, "v %lf %lf %lf", &got[n][0], &got[n][1], &got[n][2]) == 3) n++;
        if (f) fclose(f);
        TU_CHECK(n == 6);
        double worst = 0;
        for (int v = 0; v < n; v++) worst = fmax(worst, tu_vec3_diff(&got[v][0], &want[v][0], 0));
        printf("OBJ at %g s (weights %g, %g) vs the curves: %.3g\n", t, w[0], w[1], worst);
        TU_CHECK(worst <= 1e-5 * 4); /* size: the quad's diagonal, 2 sqrt(2) plus the shapes */
        return tu_finish("test_asset_fbx_morph_anim --check");
    }
    TU_CHECK(write_fbx("fbx_morph_anim.fbx", 0));
    TU_CHECK(write_fbx("fbx_morph_anim_inbetween.fbx", 1));
    sinew_asset *a = load("fbx_morph_anim.fbx");
    if (a) {
        const sinew_asset_import_stats *st = sinew_asset_stats(a);
        TU_CHECK(st->weight_channels == 1 && st->ignored_weight_channels == 0);
        TU_CHECK(sinew_asset_clip_count(a) == 1);
        const sinew_clip *c = sinew_asset_clip(a, 0);
        TU_CHECK(c && sinew_clip_weight_track_count(c) == 2 && sinew_clip_weight_count(c) == 2);
        uint32_t nt = 0;
        const float *dw = NULL;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, 0, &nt, &dw);
        TU_CHECK(nt == 2 && tg);
        double worst_w = 0, worst_p = 0, size = sinew_asset_size(a);
        static const double ts[8] = { 0, 0.25, 0.5, 1, 1.3, 1.75, 2, 3 };
        for (int i = 0; i < 8 && c && nt == 2 && tg; i++) {
            double zero[2] = { 0, 0 }, w[2];
            TU_CHECK_OK(sinew_clip_sample_weights(c, ts[i], SINEW_WRAP_CLAMP, zero, 2, w));
            for (int k = 0; k < 2; k++) worst_w = fmax(worst_w, fabs(w[k] - curve(k, ts[i])));
            float wf[2] = { (float)w[0], (float)w[1] };
            double mp[18], want[6][3];
            sinew_morph_error me;
            TU_CHECK_OK(sinew_morph_reference(6, sinew_asset_vertices(a), tg, 2, wf, mp, NULL, &me));
            double wc[2] = { curve(0, ts[i]), curve(1, ts[i]) };
            expected(wc, want);
            for (int v = 0; v < 6; v++) worst_p = fmax(worst_p, tu_vec3_diff(mp, &want[0][0], (uint32_t)v));
        }
        printf("FBX DeformPercent curves: weights %.3g off, positions %.3g x size\n", worst_w, worst_p / size);
        TU_CHECK(worst_w <= 1e-7); /* assimp keeps the key values in float */
        TU_CHECK(worst_p <= 1e-6 * size);
        sinew_asset_destroy(a);
    }
    a = load("fbx_morph_anim_inbetween.fbx");
    if (a) {
        const sinew_asset_import_stats *st = sinew_asset_stats(a);
        printf("in-between file: %u targets, %u channels kept, %u not kept\n", st->morph_targets, st->weight_channels,
               st->ignored_weight_channels);
        TU_CHECK(st->morph_targets == 3);
        TU_CHECK(st->weight_channels == 0 && st->ignored_weight_channels == 1);
        TU_CHECK(sinew_asset_clip_count(a) == 1 && sinew_clip_weight_track_count(sinew_asset_clip(a, 0)) == 0);
        sinew_asset_destroy(a);
    }
    return tu_finish("test_asset_fbx_morph_anim");
}
