/* glTF `weights` animation channels kept as clip weight tracks (anim.h:
 * sinew_weight_track_desc, sinew_clip_sample_weights) and applied the way
 * 'sinew deform --time' applies them (sampled weights minus the defaults the
 * rest mesh includes).
 *  1. sinew_clip_sample_weights on hand-built tracks: STEP, LINEAR and
 *     CUBICSPLINE against values computed by hand from the glTF 2.0 formulas
 *     (1e-15), negative and > 1 weights kept, loop / clamp, the defaults for
 *     slots without a track, and every validation error.
 *  2. An authored .gltf: one node whose mesh has two primitives with two
 *     targets each (mesh.weights [0.5, -0.25]) and three animations of its
 *     weights (STEP, LINEAR, CUBICSPLINE; keys with negative weights and
 *     weights > 1). The clips' weights against a float64 glTF sampler written
 *     here (1e-12), and the morphed rest (sinew_morph_reference with sampled -
 *     default) against base + sum w delta from the file's data (1e-6 x size).
 *     Negative weights survive (assimp's glTF importer clamps them to 0).
 *  3. AnimatedMorphCube (glTF sample models): its LINEAR weights channel read
 *     independently from the .bin (json-c for the accessors) and interpolated
 *     here, against the clip at 40 times (1e-6). */
#include "testutil.h"
#include <sinew/asset.h>
#include <json-c/json.h>
#include <string.h>

/* ---- 1. the API on hand-built tracks ---------------------------------------- */

static void test_api(void)
{
    const double times[3] = { 0, 1, 3 };
    const double vals[6] = { 0, 1, 1.5, -0.75, -1, 2 };   /* 3 keys x 2 weights */
    const double tans[12] = { 9, 9, 0.5, -1, 2, 0.25, 1, -3, 0.75, 0.5, 9, 9 };  /* in0 out0 in1 out1 in2 out2 */
    sinew_weight_track_desc wt[3] = { { 0 } };
    wt[0].first_weight = 0; wt[0].width = 2; wt[0].key_count = 3; wt[0].times = times; wt[0].values = vals;
    wt[0].interpolation = SINEW_INTERPOLATION_STEP;
    wt[1] = wt[0]; wt[1].first_weight = 2; wt[1].interpolation = SINEW_INTERPOLATION_LINEAR;
    wt[2] = wt[0]; wt[2].first_weight = 5; wt[2].interpolation = SINEW_INTERPOLATION_CUBICSPLINE; wt[2].tangents = tans;
    sinew_clip_desc d = { 0 };
    d.joint_count = 1;
    d.ticks_per_second = 2;  /* times in ticks: t seconds = 2t ticks */
    d.weight_count = 8;
    d.weight_track_count = 3;
    d.weight_tracks = wt;
    sinew_clip *c = NULL;
    TU_CHECK_OK(sinew_clip_create(&d, &c));
    if (!c) return;
    TU_CHECK(sinew_clip_weight_count(c) == 8 && sinew_clip_weight_track_count(c) == 3);
    TU_CHECK(sinew_clip_key_count(c) == 9);
    TU_CHECK_NEAR(sinew_clip_duration(c), 1.5, 0); /* last key 3 ticks at 2/s */
    TU_CHECK(sinew_clip_animates_weight(c, 0) && sinew_clip_animates_weight(c, 3) && !sinew_clip_animates_weight(c, 4) &&
             sinew_clip_animates_weight(c, 6) && !sinew_clip_animates_weight(c, 7) && !sinew_clip_animates_weight(c, 8));
    const double def[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };
    double w[8];
    /* at 2 ticks (1 s): between key 1 (t 1) and key 2 (t 3), s = 0.5, d = 2 */
    TU_CHECK_OK(sinew_clip_sample_weights(c, 1.0, SINEW_WRAP_CLAMP, def, 8, w));
    TU_CHECK_NEAR(w[0], 1.5, 0); TU_CHECK_NEAR(w[1], -0.75, 0);                 /* STEP: key 1 */
    TU_CHECK_NEAR(w[2], 0.25, 1e-15); TU_CHECK_NEAR(w[3], 0.625, 1e-15);
    /* LINEAR: (1.5-1)/2, (-0.75+2)/2 */
    TU_CHECK_NEAR(w[4], 14, 0); TU_CHECK_NEAR(w[7], 17, 0);
    /* defaults */
    /* CUBICSPLINE s = 0.5: h = (0.5, 0.125, 0.5, -0.125); v1 + d*0.125*out1 + v2 - d*0.125*in2... */
    {
        double hv0 = 0.5, hb = 0.125, hv1 = 0.5, ha = -0.125, dd = 2;
        double e5 = hv0 * 1.5 + dd * hb * 1 + hv1 * -1 + dd * ha * 0.75;
        double e6 = hv0 * -0.75 + dd * hb * -3 + hv1 * 2 + dd * ha * 0.5;
        TU_CHECK_NEAR(w[5], e5, 1e-15); TU_CHECK_NEAR(w[6], e6, 1e-15);
        TU_CHECK(w[6] < 0); /* -0.25: negative kept */
    }
    /* on a key, before and after the keys */
    TU_CHECK_OK(sinew_clip_sample_weights(c, 0.5, SINEW_WRAP_CLAMP, NULL, 8, w));
    TU_CHECK_NEAR(w[0], 1.5, 0); TU_CHECK_NEAR(w[2], 1.5, 0); TU_CHECK_NEAR(w[5], 1.5, 1e-15); TU_CHECK_NEAR(w[4], 0, 0);
    TU_CHECK_OK(sinew_clip_sample_weights(c, 9.0, SINEW_WRAP_CLAMP, NULL, 8, w));
    TU_CHECK_NEAR(w[1], 2, 0); TU_CHECK_NEAR(w[3], 2, 0); TU_CHECK_NEAR(w[6], 2, 1e-15);
    /* loop: 1.5 s + 0.25 s wraps to 0.25 s = 0.5 ticks: LINEAR (0 + 0.5 * 1.5, 1 + 0.5 * -1.75) */
    TU_CHECK_OK(sinew_clip_sample_weights(c, 1.75, SINEW_WRAP_LOOP, NULL, 8, w));
    TU_CHECK_NEAR(w[2], 0.75, 1e-15); TU_CHECK_NEAR(w[3], 0.125, 1e-15);
    TU_CHECK_NEAR(w[0], 0, 0); /* STEP before key 1 */
    /* errors */
    TU_CHECK_RESULT(sinew_clip_sample_weights(c, 0, SINEW_WRAP_LOOP, NULL, 7, w), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_clip_sample_weights(c, NAN, SINEW_WRAP_LOOP, NULL, 8, w), SINEW_ERROR_NON_FINITE);
    TU_CHECK_RESULT(sinew_clip_sample_weights(c, 0, SINEW_WRAP_LOOP, NULL, 8, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_clip_sample_weights(NULL, 0, SINEW_WRAP_LOOP, def, 3, w));
    TU_CHECK_NEAR(w[2], 12, 0);
    sinew_clip_destroy(c);
    struct { const char *what; sinew_result want; } bad[] = {
        { "slot beyond weight_count", SINEW_ERROR_INVALID_ARGUMENT }, { "overlapping tracks", SINEW_ERROR_INVALID_ARGUMENT },
        { "width 0", SINEW_ERROR_INVALID_ARGUMENT }, { "NaN value", SINEW_ERROR_NON_FINITE },
        { "cubic without tangents", SINEW_ERROR_INVALID_ARGUMENT }, { "times decrease", SINEW_ERROR_INVALID_ARGUMENT },
        { "value beyond 1e6", SINEW_ERROR_NON_FINITE }, { "bad mode", SINEW_ERROR_INVALID_ARGUMENT },
        { "too many weights", SINEW_ERROR_LIMIT_EXCEEDED }, { "tracks without array", SINEW_ERROR_INVALID_ARGUMENT },
    };
    for (int b = 0; b < (int)(sizeof bad / sizeof bad[0]); b++) {
        sinew_weight_track_desc x[3];
        memcpy(x, wt, sizeof x);
        double v2[6], t2[3] = { 0, 2, 1 };
        memcpy(v2, vals, sizeof v2);
        sinew_clip_desc e = d;
        e.weight_tracks = x;
        switch (b) {
        case 0: x[2].first_weight = 7; break;
        case 1: x[1].first_weight = 1; break;
        case 2: x[0].width = 0; break;
        case 3: v2[3] = NAN; x[1].values = v2; break;
        case 4: x[2].tangents = NULL; break;
        case 5: x[0].times = t2; break;
        case 6: v2[0] = 2e6; x[0].values = v2; break;
        case 7: x[1].interpolation = SINEW_INTERPOLATION_COUNT; break;
        case 8: e.weight_count = SINEW_MAX_CLIP_WEIGHTS + 1; break;
        case 9: e.weight_tracks = NULL; break;
        }
        sinew_clip *cc = NULL;
        sinew_result r = sinew_clip_create(&e, &cc);
        TU_CHECK_MSG(r == bad[b].want && cc == NULL, "%s: %s", bad[b].what, sinew_result_string(r));
        sinew_clip_destroy(cc);
    }
}

/* ---- 2. an authored file ------------------------------------------------------ */

static void b64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = 0;
}

/* the file's data */
static const float f_pos[2][3][3] = { { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }, { { 2, 0, 0 }, { 3, 0, 0 }, { 2, 1, 0 } } };
static const float f_tgt[2][2][3][3] = {                         /* primitive, target, vertex */
    { { { 0, 0, 1 }, { 0, 0, 0 }, { 0.5f, 0, 0 } }, { { 0, 0, 0 }, { 0, 2, 0 }, { 0, 0, 0 } } },
    { { { 0, 0, 0 }, { 0, 0, -1 }, { 0, 0, 0 } }, { { 1, 1, 0 }, { 0, 0, 0 }, { 0, 0, 0.25f } } } };
static const float f_times[3] = { 0, 1, 3 };
static const float f_lin[6] = { 0, 1, 1.5f, -0.75f, -1, 2 };
static const float f_cub[18] = { 9, 9, 0, 1, 0.5f, -1,   2, 0.25f, 1.5f, -0.75f, 1, -3,   0.75f, 0.5f, -1, 2, 9, 9 };
static const double f_default[2] = { 0.5, -0.25 };


/* glTF 2.0 Appendix C sampler, float64, for 2 weights. */
static void spec_weights(int mode, double t, double *w)
{
    int n = 3, k = 0;
    const float *tm = f_times;
    if (t <= tm[0] || t >= tm[n - 1]) {
        int i = t <= tm[0] ? 0 : n - 1;
        for (int e = 0; e < 2; e++) w[e] = mode == 2 ? f_cub[(i * 3 + 1) * 2 + e] : f_lin[i * 2 + e];
        return;
    }
    while (!(t >= tm[k] && t < tm[k + 1])) k++;
    double d = (double)tm[k + 1] - tm[k], s = (t - tm[k]) / d;
    for (int e = 0; e < 2; e++) {
        if (mode == 0) w[e] = f_lin[k * 2 + e];
        else if (mode == 1) w[e] = f_lin[k * 2 + e] + s * ((double)f_lin[(k + 1) * 2 + e] - f_lin[k * 2 + e]);
        else {
            double vk = f_cub[(k * 3 + 1) * 2 + e], bk = f_cub[(k * 3 + 2) * 2 + e];
            double vk1 = f_cub[((k + 1) * 3 + 1) * 2 + e], ak1 = f_cub[((k + 1) * 3) * 2 + e];
            w[e] = (2 * s * s * s - 3 * s * s + 1) * vk + d * (s * s * s - 2 * s * s + s) * bk +
                   (-2 * s * s * s + 3 * s * s) * vk1 + d * (s * s * s - s * s) * ak1;
        }
    }
}

static void test_file(void)
{
    unsigned char buf[4096];
    size_t o = 0;
#define PUT(x) do { memcpy(buf + o, x, sizeof x); o += sizeof x; } while (0)
    PUT(f_pos); PUT(f_tgt); PUT(f_times); PUT(f_lin); PUT(f_cub);
#undef PUT
    static char uri[8192], json[16384];
    b64(buf, o, uri);
    /* views: 0 pos p0 (36), 1 pos p1, 2..5 targets (p0t0, p0t1, p1t0, p1t1), 6 times, 7 lin, 8 cub */
    char views[2048] = "", accs[4096] = "";
    size_t off = 0;
    const size_t sz[9] = { 36, 36, 36, 36, 36, 36, 12, 24, 72 };
    for (int v = 0; v < 9; v++) {
        char one[256];
        snprintf(one, sizeof one, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", v ? "," : "", off, sz[v]);
        strcat(views, one);
        if (v < 6)
            snprintf(one, sizeof one, "%s{\"bufferView\":%d,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"%s}", v ? "," : "", v,
                     v < 2 ? (v == 0 ? ",\"min\":[0,0,0],\"max\":[1,1,0]" : ",\"min\":[2,0,0],\"max\":[3,1,0]") : "");
        else
            snprintf(one, sizeof one, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%zu,\"type\":\"SCALAR\"%s}", v, sz[v] / 4,
                     v == 6 ? ",\"min\":[0],\"max\":[3]" : "");
        strcat(accs, one);
        off += sz[v];
    }
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"name\":\"face\",\"mesh\":0},{\"name\":\"empty\"}],"
             "\"meshes\":[{\"name\":\"face\",\"weights\":[0.5,-0.25],\"extras\":{\"targetNames\":[\"a\",\"b\"]},\"primitives\":["
             "{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":2},{\"POSITION\":3}]},"
             "{\"attributes\":{\"POSITION\":1},\"targets\":[{\"POSITION\":4},{\"POSITION\":5}]}]}],"
             "\"animations\":["
             "{\"name\":\"step\",\"samplers\":[{\"input\":6,\"output\":7,\"interpolation\":\"STEP\"}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]},"
             "{\"name\":\"linear\",\"samplers\":[{\"input\":6,\"output\":7}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}},"
             "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"weights\"}}]},"
             "{\"name\":\"cubic\",\"samplers\":[{\"input\":6,\"output\":8,\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[%s],\"accessors\":[%s]}", o, uri, views, accs);
    sinew_error_info err;
    sinew_asset_desc ad = { 0 };
    ad.data = json; ad.size = strlen(json); ad.hint = "gltf";
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&ad, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "authored file: %s (%s)", sinew_result_string(r), err.message);
    if (!a) return;
    const sinew_asset_import_stats *st = sinew_asset_stats(a);
    TU_CHECK(st->weight_channels == 3);
    TU_CHECK(st->ignored_weight_channels == 1); /* node 1 has no morph targets */
    TU_CHECK(st->step_channels == 1 && st->cubic_channels == 1);
    TU_CHECK(sinew_asset_clip_count(a) == 3 && sinew_asset_mesh_count(a) == 2);
    double size = sinew_asset_size(a);
    double worst_w = 0, worst_p = 0;
    int saw_negative = 0, saw_above_one = 0;
    for (int mode = 0; mode < 3; mode++) {
        const sinew_clip *c = sinew_asset_clip(a, (uint32_t)mode);
        TU_CHECK(sinew_clip_weight_count(c) == 4 && sinew_clip_weight_track_count(c) == 2);
        TU_CHECK_NEAR(sinew_clip_duration(c), 3.0, 0);
        for (int ti = 0; ti <= 36; ti++) {
            double t = -0.25 + ti * 0.1;
            double want[2], def[4], w[4];
            spec_weights(mode, t, want);
            for (int k = 0; k < 4; k++) def[k] = f_default[k % 2];
            TU_CHECK_OK(sinew_clip_sample_weights(c, t, SINEW_WRAP_CLAMP, def, 4, w));
            for (int k = 0; k < 4; k++) {
                double e = fabs(w[k] - want[k % 2]);
                if (!(e <= worst_w)) worst_w = e;
                saw_negative |= w[k] < -0.1;
                saw_above_one |= w[k] > 1.1;
            }
            /* morphed rest of each primitive (sampled - default) vs base + sum w delta */
            for (uint32_t m = 0; m < 2; m++) {
                uint32_t nt = 0;
                const float *dw = NULL;
                const sinew_morph_target *mt = sinew_asset_morph_targets(a, m, &nt, &dw);
                TU_CHECK(mt && nt == 2 && dw);
                if (!mt || nt != 2) continue;
                float mw[2] = { (float)(w[m * 2] - dw[0]), (float)(w[m * 2 + 1] - dw[1]) };
                double p[9];
                const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, m);
                TU_CHECK_OK(sinew_morph_reference(mi->vertex_count, sinew_asset_vertices(a) + mi->first_vertex, mt, 2, mw, p, NULL, NULL));
                for (int v = 0; v < 3; v++)
                    for (int e = 0; e < 3; e++) {
                        double x = f_pos[m][v][e] + want[0] * f_tgt[m][0][v][e] + want[1] * f_tgt[m][1][v][e];
                        double err = fabs(p[v * 3 + e] - x);
                        if (!(err <= worst_p)) worst_p = err;
                    }
            }
        }
    }
    printf("authored file: clip weights vs the spec sampler %.3g (tolerance 1e-12), morphed rest vs base + sum w delta %.3g x size "
           "(tolerance 1e-6)\n", worst_w, worst_p / size);
    TU_CHECK(worst_w <= 1e-12);
    TU_CHECK(worst_p <= 1e-6 * size);
    TU_CHECK(saw_negative && saw_above_one);
    sinew_asset_destroy(a);
}

/* ---- 3. AnimatedMorphCube -------------------------------------------------------- */

#define AMC_DIR "/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/"

static int read_floats(json_object *root, const unsigned char *bin, size_t bin_size, int acc, float *out, int max)
{
    json_object *accs, *views, *a, *v, *x;
    if (!json_object_object_get_ex(root, "accessors", &accs) || !json_object_object_get_ex(root, "bufferViews", &views)) return -1;
    a = json_object_array_get_idx(accs, (size_t)acc);
    int count = json_object_object_get_ex(a, "count", &x) ? json_object_get_int(x) : -1;
    int view = json_object_object_get_ex(a, "bufferView", &x) ? json_object_get_int(x) : -1;
    int aoff = json_object_object_get_ex(a, "byteOffset", &x) ? json_object_get_int(x) : 0;
    if (count <= 0 || count > max || view < 0) return -1;
    v = json_object_array_get_idx(views, (size_t)view);
    int voff = json_object_object_get_ex(v, "byteOffset", &x) ? json_object_get_int(x) : 0;
    if ((size_t)voff + (size_t)aoff + (size_t)count * 4 > bin_size) return -1;
    memcpy(out, bin + voff + aoff, (size_t)count * 4);
    return count;
}

static void test_cube(void)
{
    FILE *f = fopen(AMC_DIR "AnimatedMorphCube.bin", "rb");
    if (!f) { printf("AnimatedMorphCube not installed: skipped\n"); return; }
    static unsigned char bin[1 << 16];
    size_t n = fread(bin, 1, sizeof bin, f);
    fclose(f);
    json_object *root = json_object_from_file(AMC_DIR "AnimatedMorphCube.gltf");
    TU_CHECK(root != NULL);
    if (!root) return;
    /* the sampler of the file's only animation */
    json_object *anims, *s, *x;
    TU_CHECK(json_object_object_get_ex(root, "animations", &anims));
    json_object *an = json_object_array_get_idx(anims, 0);
    json_object_object_get_ex(an, "samplers", &s);
    json_object *s0 = json_object_array_get_idx(s, 0);
    int in_a = json_object_object_get_ex(s0, "input", &x) ? json_object_get_int(x) : -1;
    int out_a = json_object_object_get_ex(s0, "output", &x) ? json_object_get_int(x) : -1;
    static float tm[1024], wv[2048];
    int nk = read_floats(root, bin, n, in_a, tm, 1024), nw = read_floats(root, bin, n, out_a, wv, 2048);
    json_object_put(root);
    TU_CHECK(nk > 1 && nw == 2 * nk);
    if (nk <= 1 || nw != 2 * nk) return;
    sinew_error_info err;
    sinew_asset_desc ad = { 0 };
    ad.path = AMC_DIR "AnimatedMorphCube.gltf";
    sinew_asset *a = NULL;
    TU_CHECK_MSG(sinew_asset_load(&ad, &a, &err) == SINEW_OK, "%s", err.message);
    if (!a) return;
    TU_CHECK(sinew_asset_stats(a)->weight_channels == 1 && sinew_asset_stats(a)->ignored_weight_channels == 0);
    const sinew_clip *c = sinew_asset_clip(a, 0);
    TU_CHECK(sinew_clip_weight_count(c) == 2);
    double worst = 0;
    for (int i = 0; i < 40; i++) {
        double t = tm[nk - 1] * (i + 0.37) / 40.0, want[2], w[2];
        int k = 0;
        while (k + 1 < nk && !(t < tm[k + 1])) k++;
        double s2 = k + 1 < nk ? (t - tm[k]) / ((double)tm[k + 1] - tm[k]) : 0;
        for (int e = 0; e < 2; e++)
            want[e] = k + 1 < nk ? wv[k * 2 + e] + s2 * ((double)wv[(k + 1) * 2 + e] - wv[k * 2 + e]) : wv[k * 2 + e];
        TU_CHECK_OK(sinew_clip_sample_weights(c, t, SINEW_WRAP_CLAMP, NULL, 2, w));
        for (int e = 0; e < 2; e++) if (!(fabs(w[e] - want[e]) <= worst)) worst = fabs(w[e] - want[e]);
    }
    printf("AnimatedMorphCube: %d keys; clip weights vs the .bin interpolated here: %.3g (tolerance 1e-6)\n", nk, worst);
    TU_CHECK(worst <= 1e-6);
    sinew_asset_destroy(a);
}

int main(void)
{
    test_api();
    test_file();
    test_cube();
    return tu_finish("test_asset_morph_anim");
}
