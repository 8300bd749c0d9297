/* Compressed glTF: EXT_meshopt_compression and KHR_draco_mesh_compression
 * decoded by Sinew's importer and compared with the same model uncompressed.
 * The test builds all three files: a skinned, morphed mesh (NV vertices on a
 * wavy sheet, random unit normals, 2 joints with random weights, 2 morph
 * targets with POSITION and NORMAL deltas) written plain; with every
 * bufferView meshopt-compressed (encoded here with meshopt_encodeVertexBuffer /
 * meshopt_encodeIndexBuffer; target 1's position deltas through the
 * EXPONENTIAL filter at 15 mantissa bits; the views' own buffer is the
 * extension's empty fallback buffer, so only decoded bytes can be read); and
 * with the primitive Draco-compressed (tu_draco_encode: positions 16 bits,
 * normals 14, weights 12; the morph targets stay uncompressed, as the
 * extension leaves them). Checks against the plain file, per vertex:
 *   meshopt: normals, joints, weights, morph targets exact, triangles up to a
 *     rotation of their corners (the index codec rotates them), target 1's
 *     filtered position deltas within 2^-14 of each entry's largest component
 *     (a 15-bit signed mantissa), and the rest positions
 *     within what those deltas move through the default weight -0.2;
 *   Draco: positions within range / 2^16 per axis (+ float rounding),
 *     normals within 2e-3 rad, joints exact, weights within 2^-11, indices
 *     exact, morph targets exact.
 * Also: a corrupt meshopt stream and a corrupt Draco stream are refused with
 * FORMAT and a message naming the extension; a meshopt view claiming more
 * than the codec's ratio is refused before allocating.
 *   test_asset_gltf_compressed --write-seeds DIR   writes the three files (fuzz corpus) */
#include "testutil.h"
#include <sinew/asset.h>
#include <meshoptimizer.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tu_draco_encode(const float *pos, const float *nrm, const uint8_t *joints, const float *weights, uint32_t nv,
                       const uint16_t *idx, uint32_t ni, int pos_bits, int nrm_bits, int generic_bits, uint8_t *out,
                       size_t cap, uint32_t ids[4]);

#define GX 8
#define GY 6
#define NV (GX * GY)
#define NI ((GX - 1) * (GY - 1) * 6)

static float P[NV][3], N[NV][3], W[NV][4], TD[4][NV][3], IBM[2][16];
static uint8_t J[NV][4];
static uint16_t I[NI];

/* accessor k: data, bytes, element size, count, componentType, type */
typedef struct acc_def { const void *data; size_t bytes, elem; uint32_t count; int ctype; const char *type; } acc_def;
#define NACC 10
static acc_def acc[NACC];

static void make_data(tu_rng *r)
{
    for (int y = 0; y < GY; y++)
        for (int x = 0; x < GX; x++) {
            int v = y * GX + x;
            P[v][0] = (float)x * 0.3f; P[v][1] = (float)y * 0.25f; P[v][2] = 0.2f * sinf((float)x) * cosf((float)y);
            sinew_vec3 n = tu_random_unit(r);
            N[v][0] = (float)n.x; N[v][1] = (float)n.y; N[v][2] = (float)n.z;
            J[v][0] = 0; J[v][1] = 1; J[v][2] = 0; J[v][3] = 0;
            float w = (float)tu_uniform(r, 0, 1);
            W[v][0] = w; W[v][1] = 1 - w; W[v][2] = W[v][3] = 0;
            for (int t = 0; t < 4; t++)
                for (int k = 0; k < 3; k++) TD[t][v][k] = (v % (t + 2)) ? 0.0f : (float)tu_uniform(r, -0.5, 0.5);
        }
    int k = 0;
    for (int y = 0; y + 1 < GY; y++)
        for (int x = 0; x + 1 < GX; x++) {
            uint16_t a = (uint16_t)(y * GX + x), b = (uint16_t)(a + 1), c = (uint16_t)(a + GX), d = (uint16_t)(c + 1);
            I[k++] = a; I[k++] = b; I[k++] = d; I[k++] = a; I[k++] = d; I[k++] = c;
        }
    memset(IBM, 0, sizeof IBM);
    for (int j = 0; j < 2; j++) { IBM[j][0] = IBM[j][5] = IBM[j][10] = IBM[j][15] = 1; }
    IBM[1][12] = -1.0f;
    acc_def defs[NACC] = {
        { P, sizeof P, 12, NV, 5126, "VEC3" }, { N, sizeof N, 12, NV, 5126, "VEC3" }, { J, sizeof J, 4, NV, 5121, "VEC4" },
        { W, sizeof W, 16, NV, 5126, "VEC4" }, { I, sizeof I, 2, NI, 5123, "SCALAR" }, { IBM, sizeof IBM, 64, 2, 5126, "MAT4" },
        { TD[0], sizeof TD[0], 12, NV, 5126, "VEC3" }, { TD[1], sizeof TD[1], 12, NV, 5126, "VEC3" },
        { TD[2], sizeof TD[2], 12, NV, 5126, "VEC3" }, { TD[3], sizeof TD[3], 12, NV, 5126, "VEC3" },
    };
    memcpy(acc, defs, sizeof defs);
}

static char *b64(const uint8_t *d, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(n / 3 * 4 + 8), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *p++ = t[v >> 18 & 63]; *p++ = t[v >> 12 & 63];
        *p++ = i + 1 < n ? t[v >> 6 & 63] : '='; *p++ = i + 2 < n ? t[v & 63] : '=';
    }
    *p = 0;
    return o;
}

enum { PLAIN, MESHOPT, DRACO, MESHOPT_CORRUPT, DRACO_CORRUPT, MESHOPT_RATIO };

/* The document for one variant (malloc'd). */
static char *build(int variant)
{
    static uint8_t raw[1 << 16], comp[1 << 16];
    size_t off[NACC + 1], rl = 0, cl = 0, coff[NACC + 1], clen[NACC + 1];
    for (int k = 0; k < NACC; k++) {
        rl = (rl + 3) & ~(size_t)3;
        off[k] = rl;
        memcpy(raw + rl, acc[k].data, acc[k].bytes);
        rl += acc[k].bytes;
        if (variant == MESHOPT || variant == MESHOPT_CORRUPT || variant == MESHOPT_RATIO) {
            coff[k] = cl;
            size_t n;
            if (k == 4) {
                unsigned int i32[NI];
                for (int q = 0; q < NI; q++) i32[q] = I[q];
                n = meshopt_encodeIndexBuffer(comp + cl, sizeof comp - cl, i32, NI);
            }
            else if (k == 8) { /* target 1's POSITION through the EXPONENTIAL filter: 15-bit mantissas */
                uint32_t tmp[NV * 3];
                meshopt_encodeFilterExp(tmp, NV, 12, 15, &TD[2][0][0]);
                n = meshopt_encodeVertexBuffer(comp + cl, sizeof comp - cl, tmp, NV, 12);
            } else n = meshopt_encodeVertexBuffer(comp + cl, sizeof comp - cl, acc[k].data, acc[k].count, acc[k].elem);
            if (!n) abort();
            if (variant == MESHOPT_CORRUPT && k == 0) comp[cl] = 0xff; /* not a codec version */
            clen[k] = n;
            cl += (n + 3) & ~(size_t)3;
        }
    }
    uint32_t ids[4] = { 0, 0, 0, 0 };
    size_t dl = 0;
    uint8_t dr[1 << 15];
    if (variant == DRACO || variant == DRACO_CORRUPT) {
        dl = tu_draco_encode(&P[0][0], &N[0][0], &J[0][0], &W[0][0], NV, I, NI, 16, 14, 12, dr, sizeof dr, ids);
        if (!dl) abort();
        if (variant == DRACO_CORRUPT) memset(dr + dl / 2, 0x5a, dl - dl / 2);
        rl = (rl + 3) & ~(size_t)3;
        off[NACC] = rl;
        memcpy(raw + rl, dr, dl);
        rl += dl;
    }
    static char views[1 << 15], accs[1 << 14];
    views[0] = accs[0] = 0;
    for (int k = 0; k < NACC; k++) {
        char tmp[1024];
        if (variant == MESHOPT || variant == MESHOPT_CORRUPT || variant == MESHOPT_RATIO) {
            size_t claimed = acc[k].count;
            if (variant == MESHOPT_RATIO && k == 0) claimed = 16000000; /* 192 MB from a few hundred bytes */
            snprintf(tmp, sizeof tmp, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"extensions\":{\"EXT_meshopt_compression\":"
                     "{\"buffer\":1,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":%zu,\"count\":%zu,\"mode\":\"%s\"%s}}}",
                     k ? "," : "", off[k], claimed * acc[k].elem, coff[k], clen[k], acc[k].elem, claimed,
                     k == 4 ? "TRIANGLES" : "ATTRIBUTES", k == 8 ? ",\"filter\":\"EXPONENTIAL\"" : "");
        } else {
            snprintf(tmp, sizeof tmp, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", k ? "," : "", off[k], acc[k].bytes);
        }
        strcat(views, tmp);
        int draco_acc = (variant == DRACO || variant == DRACO_CORRUPT) && k <= 4;
        if (draco_acc)
            snprintf(tmp, sizeof tmp, "%s{\"componentType\":%d,\"type\":\"%s\",\"count\":%u}", k ? "," : "", acc[k].ctype, acc[k].type,
                     acc[k].count);
        else
            snprintf(tmp, sizeof tmp, "%s{\"bufferView\":%d,\"componentType\":%d,\"type\":\"%s\",\"count\":%u}", k ? "," : "", k,
                     acc[k].ctype, acc[k].type, variant == MESHOPT_RATIO && k == 0 ? 16000000u : acc[k].count);
        strcat(accs, tmp);
    }
    if (variant == DRACO || variant == DRACO_CORRUPT) {
        char tmp[128];
        snprintf(tmp, sizeof tmp, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", off[NACC], dl);
        strcat(views, tmp);
    }
    char *rb = b64(raw, rl), *cb = cl ? b64(comp, cl) : NULL;
    char buffers[1 << 17], ext[256] = "", prim_ext[256] = "";
    int mo = variant == MESHOPT || variant == MESHOPT_CORRUPT || variant == MESHOPT_RATIO;
    if (mo) {
        snprintf(buffers, sizeof buffers, "{\"byteLength\":%zu,\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}},"
                 "{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}", rl, cl, cb);
        snprintf(ext, sizeof ext, "\"extensionsUsed\":[\"EXT_meshopt_compression\"],\"extensionsRequired\":[\"EXT_meshopt_compression\"],");
    } else {
        snprintf(buffers, sizeof buffers, "{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}", rl, rb);
    }
    if (variant == DRACO || variant == DRACO_CORRUPT) {
        snprintf(ext, sizeof ext, "\"extensionsUsed\":[\"KHR_draco_mesh_compression\"],\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],");
        snprintf(prim_ext, sizeof prim_ext, ",\"extensions\":{\"KHR_draco_mesh_compression\":{\"bufferView\":%d,"
                 "\"attributes\":{\"POSITION\":%u,\"NORMAL\":%u,\"JOINTS_0\":%u,\"WEIGHTS_0\":%u}}}", NACC, ids[0], ids[1], ids[2], ids[3]);
    }
    size_t cap = strlen(buffers) + strlen(views) + strlen(accs) + 4096;
    char *json = malloc(cap);
    snprintf(json, cap,
             "{\"asset\":{\"version\":\"2.0\"},%s\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
             "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"tip\",\"translation\":[1,0,0]},{\"name\":\"sheet\",\"mesh\":0,\"skin\":0}],"
             "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":5}],"
             "\"meshes\":[{\"weights\":[0.3,-0.2],\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"JOINTS_0\":2,\"WEIGHTS_0\":3},"
             "\"indices\":4,\"targets\":[{\"POSITION\":6,\"NORMAL\":7},{\"POSITION\":8,\"NORMAL\":9}]%s}]}],"
             "\"buffers\":[%s],\"bufferViews\":[%s],\"accessors\":[%s]}",
             ext, prim_ext, buffers, views, accs);
    free(rb); free(cb);
    return json;
}

static sinew_result load(int variant, sinew_asset **a, sinew_error_info *e)
{
    char *json = build(variant);
    sinew_asset_desc d = { 0 };
    d.data = json;
    d.size = strlen(json);
    d.hint = "gltf";
    *a = NULL;
    sinew_result r = sinew_asset_load(&d, a, e);
    free(json);
    return r;
}

static double angle(const double *a, const double *b)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), d);
}

/* Compares asset b (compressed) with a (plain), vertex by vertex. */
static void compare(const sinew_asset *a, const sinew_asset *b, const char *name, double tol_pos, double tol_nrm, double tol_w,
                    double tol_morph_rel)
{
    uint32_t nv = sinew_asset_vertex_count(a);
    TU_CHECK_MSG(sinew_asset_vertex_count(b) == nv && sinew_asset_index_count(b) == sinew_asset_index_count(a), "%s: counts", name);
    if (sinew_asset_vertex_count(b) != nv || sinew_asset_index_count(b) != sinew_asset_index_count(a)) return;
    const double *pa = sinew_asset_rest_positions(a), *pb = sinew_asset_rest_positions(b);
    const double *na = sinew_asset_rest_normals(a), *nb = sinew_asset_rest_normals(b);
    double wp = 0, wn = 0, ww = 0, wm = 0;
    for (uint32_t v = 0; v < nv; v++) {
        wp = fmax(wp, tu_vec3_diff(pa, pb, v));
        wn = fmax(wn, angle(na + 3 * v, nb + 3 * v));
    }
    const uint32_t *oa, *ob, *ja, *jb;
    const float *fa, *fb;
    TU_CHECK_OK(sinew_asset_influences(a, &oa, &ja, &fa));
    TU_CHECK_OK(sinew_asset_influences(b, &ob, &jb, &fb));
    int joints_same = 1;
    for (uint32_t v = 0; v < nv; v++) {
        /* the weights as the importer keeps them (zero weights dropped): match by joint */
        for (uint32_t k = oa[v]; k < oa[v + 1]; k++) {
            double wbk = 0;
            for (uint32_t q = ob[v]; q < ob[v + 1]; q++) if (jb[q] == ja[k]) wbk = fb[q];
            ww = fmax(ww, fabs(wbk - fa[k]));
        }
        for (uint32_t q = ob[v]; q < ob[v + 1]; q++) {
            int found = 0;
            for (uint32_t k = oa[v]; k < oa[v + 1]; k++) found |= ja[k] == jb[q];
            if (!found && fb[q] > tol_w) joints_same = 0;
        }
    }
    /* triangles equal up to a rotation of their corners (meshopt's index codec rotates them) */
    int idx_same = 1;
    const uint32_t *ia = sinew_asset_indices(a), *ib = sinew_asset_indices(b);
    for (uint32_t t = 0; t + 2 < sinew_asset_index_count(a); t += 3) {
        int rot = 0;
        for (int q = 0; q < 3; q++)
            rot |= ia[t] == ib[t + q] && ia[t + 1] == ib[t + (q + 1) % 3] && ia[t + 2] == ib[t + (q + 2) % 3];
        idx_same &= rot;
    }
    uint32_t ca = 0, cb = 0;
    const float *da = NULL, *db = NULL;
    const sinew_morph_target *ta = sinew_asset_morph_targets(a, 0, &ca, &da), *tb = sinew_asset_morph_targets(b, 0, &cb, &db);
    TU_CHECK_MSG(ca == 2 && cb == 2 && da && db && da[0] == db[0] && da[1] == db[1], "%s: morph targets", name);
    for (uint32_t t = 0; t < 2 && ca == 2 && cb == 2; t++) {
        TU_CHECK_MSG(ta[t].count == tb[t].count, "%s: target %u: %u vs %u entries", name, t, ta[t].count, tb[t].count);
        for (uint32_t e = 0; e < ta[t].count && e < tb[t].count; e++) {
            TU_CHECK(ta[t].indices[e] == tb[t].indices[e]);
            double mx = 0; /* the EXPONENTIAL filter's error is relative to the entry's largest component */
            for (int k = 0; k < 3; k++) mx = fmax(mx, fabs(ta[t].position_deltas[3 * e + k]));
            for (int k = 0; k < 3; k++) {
                double x = ta[t].position_deltas[3 * e + k], y = tb[t].position_deltas[3 * e + k];
                wm = fmax(wm, fabs(x - y) / (mx * tol_morph_rel + 1e-12));
                if (ta[t].normal_deltas && tb[t].normal_deltas)
                    wm = fmax(wm, fabs(ta[t].normal_deltas[3 * e + k] - tb[t].normal_deltas[3 * e + k]) / (tol_nrm + 1e-12));
            }
        }
    }
    printf("%s vs plain: positions %.3g, normals %.3g rad, weights %.3g, morph deltas %.3g of their tolerance, joints %s, indices %s\n",
           name, wp, wn, ww, wm, joints_same ? "same" : "DIFFER", idx_same ? "same" : "DIFFER");
    TU_CHECK(wp <= tol_pos);
    TU_CHECK(wn <= tol_nrm);
    TU_CHECK(ww <= tol_w);
    TU_CHECK(wm <= 1.0);
    TU_CHECK(joints_same);
    TU_CHECK(idx_same);
}

int main(int argc, char **argv)
{
    tu_rng rng = tu_rng_seeded(0xc0ffee5eedull);
    make_data(&rng);
    if (argc == 3 && !strcmp(argv[1], "--write-seeds")) { /* the fuzzer's corpus (tests/fuzz/run_fuzz.sh) */
        static const char *names[3] = { "plain.gltf", "meshopt.gltf", "draco.gltf" };
        char path[4096];
        snprintf(path, sizeof path, "mkdir -p '%s'", argv[2]);
        if (system(path)) return 1;
        for (int k = 0; k < 3; k++) {
            char *json = build(k);
            snprintf(path, sizeof path, "%s/%s", argv[2], names[k]);
            FILE *f = fopen(path, "w");
            int ok = f && fputs(json, f) >= 0;
            if (f && fclose(f)) ok = 0;
            free(json);
            if (!ok) return 1;
        }
        return 0;
    }
    sinew_asset *plain = NULL, *mo = NULL, *dr = NULL;
    sinew_error_info e;
    sinew_result r = load(PLAIN, &plain, &e);
    TU_CHECK_MSG(r == SINEW_OK, "plain: %s: %s", sinew_result_string(r), e.message);
    r = load(MESHOPT, &mo, &e);
    TU_CHECK_MSG(r == SINEW_OK, "meshopt: %s: %s", sinew_result_string(r), e.message);
    r = load(DRACO, &dr, &e);
    TU_CHECK_MSG(r == SINEW_OK, "draco: %s: %s", sinew_result_string(r), e.message);
    /* meshopt: lossless but for the filtered deltas of target 1 (15-bit signed mantissas:
     * steps of 2^-14 of the entry's largest component; seen 0.58 of that), which
     * reach the rest positions through its default weight -0.2 (|delta| <= 0.5) */
    if (plain && mo) compare(plain, mo, "meshopt", 0.2 * 0.5 / 16384.0, 0, 0, 1.0 / 16384.0);
    /* Draco: positions quantized to 16 bits over the 2.1-wide range, normals 14 bits
     * (octahedral), weights 12 bits over [0, 1]; a re-normalized weight pair moves
     * by at most twice its quantum */
    if (plain && dr) compare(plain, dr, "draco", 2.1 / 65535.0 + 1e-6, 2e-3, 2.0 / 4095.0, 1e-12);
    sinew_asset_destroy(plain); sinew_asset_destroy(mo); sinew_asset_destroy(dr);
    /* corrupt streams and an impossible ratio: refused, the extension named */
    static const int bad[3] = { MESHOPT_CORRUPT, DRACO_CORRUPT, MESHOPT_RATIO };
    static const char *want[3] = { "EXT_meshopt_compression", "KHR_draco_mesh_compression", "more than 256x" };
    for (int k = 0; k < 3; k++) {
        sinew_asset *x = NULL;
        r = load(bad[k], &x, &e);
        printf("bad %d: %s: %s\n", k, sinew_result_string(r), e.message);
        TU_CHECK(r == SINEW_ERROR_FORMAT && !x && strstr(e.message, want[k]));
        sinew_asset_destroy(x);
    }
    return tu_finish("test_asset_gltf_compressed");
}
