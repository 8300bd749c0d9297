/* Hostile and damaged glTF for Sinew's glTF importer:
 *  1. one broken file per error path (made from a valid one by a text edit),
 *     each with its exact error code and message;
 *  2. every .gltf / .glb of assimp-testmodels (glTF2 folder: broken, schema
 *     failures, recursive nodes, out-of-range indices, infinities, Draco, ...):
 *     a result and a message, never a crash (the sanitizer build runs this);
 *  3. truncated and byte-mutated copies of small glTF files, from memory:
 *     the same. Deterministic seed. */
#define _XOPEN_SOURCE 700
#include "testutil.h"
#include <sinew/asset.h>

#include <ftw.h>
#include <string.h>
#include <strings.h>

static const char *base =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"hip\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],\"skins\":[{\"joints\":[1]}],"
    "\"animations\":[{\"samplers\":[{\"input\":3,\"output\":4}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"scale\"}}]}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48},"
    "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":104,\"byteLength\":24}],"
    "\"buffers\":[{\"byteLength\":128,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAAAAAAAAAAAAgD8AAIA/AACAPwAAgD/seK1g7HitYOx4rWA=\"}]}";

static char edited[8192];

/* base with one occurrence of 'from' replaced by 'to' */
static const char *edit(const char *from, const char *to)
{
    const char *p = strstr(base, from);
    if (!p) { fprintf(stderr, "edit: '%s' not in the base file\n", from); tu_failures++; return base; }
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
    return edited;
}

static sinew_result load_mem(const void *data, size_t size, const char *hint, sinew_error_info *err)
{
    sinew_asset_desc d = { 0 };
    d.data = data; d.size = size; d.hint = hint;
    d.max_vertices = 1u << 20;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, err);
    if (r == SINEW_OK) {
        /* what an import returns is consistent */
        uint32_t nv = sinew_asset_vertex_count(a), nj = sinew_skeleton_joint_count(sinew_asset_skeleton(a));
        for (uint32_t i = 0; i < sinew_asset_index_count(a); i++) TU_CHECK(sinew_asset_indices(a)[i] < nv);
        const uint32_t *off, *jn; const float *w;
        TU_CHECK_OK(sinew_asset_influences(a, &off, &jn, &w));
        for (uint32_t v = 0; v < nv; v++)
            for (uint32_t k = off[v]; k < off[v + 1]; k++) TU_CHECK(jn[k] < nj && w[k] > 0);
    } else {
        TU_CHECK_MSG(err->message[0] != 0, "an error without a message (%s)", sinew_result_string(r));
    }
    sinew_asset_destroy(a);
    return r;
}

static void expect(const char *label, const char *json, sinew_result want, const char *want_msg)
{
    sinew_error_info err;
    sinew_result r = load_mem(json, strlen(json), "gltf", &err);
    printf("%-28s -> %s: %s\n", label, sinew_result_string(r), err.message);
    TU_CHECK_MSG(r == want, "%s: got %s, expected %s", label, sinew_result_string(r), sinew_result_string(want));
    TU_CHECK_MSG(strstr(err.message, want_msg) != NULL, "%s: message '%s' lacks '%s'", label, err.message, want_msg);
}

static int files_ok, files_err;
static tu_rng rng;


static void mutate_and_load(const unsigned char *data, size_t n, const char *hint)
{
    sinew_error_info err;
    unsigned char *b = malloc(n + 1);
    for (int t = 0; t < 24; t++) {
        size_t cut = (size_t)(tu_uniform(&rng, 0, 1) * (double)n);
        memcpy(b, data, cut);
        (void)load_mem(b, cut ? cut : 1, hint, &err);
    }
    for (int t = 0; t < 48; t++) {
        memcpy(b, data, n);
        int edits = 1 + (int)tu_range(&rng, 4);
        for (int e = 0; e < edits; e++) {
            size_t at = tu_range(&rng, (uint32_t)n);
            static const char repl[] = "0123456789-\"[]{},:e.9";
            b[at] = tu_range(&rng, 2) ? (unsigned char)repl[tu_range(&rng, sizeof repl - 1)] : (unsigned char)tu_range(&rng, 256);
        }
        (void)load_mem(b, n, hint, &err);
    }
    free(b);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)f;
    if (type != FTW_F) return 0;
    const char *dot = strrchr(path, '.');
    if (!dot || (strcasecmp(dot, ".gltf") && strcasecmp(dot, ".glb"))) return 0;
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    if (r) { files_err++; TU_CHECK_MSG(err.message[0] != 0, "%s: no message", path); }
    else files_ok++;
    printf("  %s: %s%s%s\n", path + strlen("/usr/share/assimp/models/glTF2/"), sinew_result_string(r), r ? ": " : "", r ? err.message : "");
    sinew_asset_destroy(a);
    if (st->st_size > 0 && st->st_size < 65536) {
        FILE *fp = fopen(path, "rb");
        unsigned char *buf = malloc((size_t)st->st_size);
        if (fp && buf && fread(buf, 1, (size_t)st->st_size, fp) == (size_t)st->st_size)
            mutate_and_load(buf, (size_t)st->st_size, dot + 1);
        if (fp) fclose(fp);
        free(buf);
    }
    return 0;
}

int main(void)
{
    rng = tu_rng_seeded(11);
    sinew_error_info err;
    /* 1. the valid base loads */
    TU_CHECK_OK(load_mem(base, strlen(base), "gltf", &err));
    expect("JSON syntax", edit("\"scene\":0,", "\"scene\":0,,"), SINEW_ERROR_FORMAT, "JSON error at byte");
    expect("truncated JSON", edit("\"buffers\"", "\"buffers\": [ {"), SINEW_ERROR_FORMAT, "JSON error");
    expect("not version 2", edit("\"version\":\"2.0\"", "\"version\":\"3.0\""), SINEW_ERROR_FORMAT, "asset.version '3.0': only glTF 2.x is read");
    expect("required extension", edit("\"scene\":0,", "\"extensionsRequired\":[\"EXT_mesh_gpu_instancing\"],\"scene\":0,"),
           SINEW_ERROR_FORMAT, "requires extension 'EXT_mesh_gpu_instancing'");
    expect("accessor past view", edit("\"count\":3,\"type\":\"VEC3\"", "\"count\":4,\"type\":\"VEC3\""), SINEW_ERROR_FORMAT,
           "accessor 0 runs past its bufferView");
    expect("view past buffer", edit("\"byteOffset\":104,\"byteLength\":24", "\"byteOffset\":104,\"byteLength\":25"), SINEW_ERROR_FORMAT,
           "runs past buffer 0");
    expect("data URI too short", edit("\"byteLength\":128,", "\"byteLength\":129,"), SINEW_ERROR_FORMAT, "data URI holds 128 bytes, byteLength is 129");
    /* JOINTS_0 read from the float positions at byte 14: vertex 0's first joint is 0x80 = 128 */
    expect("joint beyond skin", edit("{\"bufferView\":1,\"componentType\":5121,", "{\"bufferView\":0,\"byteOffset\":14,\"componentType\":5121,"),
           SINEW_ERROR_FORMAT, "vertex 0 names joint 128 of skin 0's 1");
    expect("bad joints type", edit("\"componentType\":5121,\"count\":3", "\"componentType\":5126,\"count\":3"), SINEW_ERROR_FORMAT,
           "accessor 1 has componentType 5126");
    /* the specification forbids these; they were accepted and gave wrong meshes */
    expect("normalized JOINTS", edit("{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"}",
                                     "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\",\"normalized\":true}"),
           SINEW_ERROR_FORMAT, "JOINTS_0/WEIGHTS_0: accessor 1 is normalized (JOINTS and indices must not be)");
    {
        char ind[8192];
        snprintf(ind, sizeof ind, "%s", edit("\"WEIGHTS_0\":2}}", "\"WEIGHTS_0\":2},\"indices\":5}"));
        char *at = strstr(ind, "\"type\":\"VEC3\"}],");
        TU_CHECK(at != NULL);
        if (at) {
            char tail[8192];
            at += strlen("\"type\":\"VEC3\"}");
            snprintf(tail, sizeof tail, "%s", at);
            snprintf(at, sizeof ind - (size_t)(at - ind), ",{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"SCALAR\",\"normalized\":true}%s", tail);
        }
        expect("normalized indices", ind, SINEW_ERROR_FORMAT, "indices: accessor 5 is normalized");
    }
    expect("byteStride < element", edit("{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36}", "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36,\"byteStride\":8}"),
           SINEW_ERROR_FORMAT, "bufferView 0 has byteStride 8, smaller than its 12-byte element");
    {
        /* a 100,001-digit integer literal: json-c saturates it; refused, not read as 9.2e18 */
        size_t nd = 100001, bl = strlen(base);
        char *big = malloc(bl + nd + 64), *digits = malloc(nd + 1);
        memset(digits, '7', nd); digits[nd] = 0;
        const char *from = "{\"name\":\"hip\"}";
        const char *h = strstr(base, from);
        sprintf(big, "%.*s{\"name\":\"hip\",\"translation\":[%s,0,0]}%s", (int)(h - base), base, digits, h + strlen(from));
        sinew_error_info e2;
        sinew_result r2 = load_mem(big, strlen(big), "gltf", &e2);
        printf("%-28s -> %s: %s\n", "100,001-digit translation", sinew_result_string(r2), e2.message);
        TU_CHECK(r2 == SINEW_ERROR_FORMAT && strstr(e2.message, "node 1: malformed matrix / translation"));
        const char *sc = "\"scene\":0,";
        h = strstr(base, sc);
        sprintf(big, "%.*s\"scene\":-%s,%s", (int)(h - base), base, digits, h + strlen(sc));
        r2 = load_mem(big, strlen(big), "gltf", &e2);
        printf("%-28s -> %s: %s\n", "100,001-digit scene index", sinew_result_string(r2), e2.message);
        TU_CHECK(r2 == SINEW_ERROR_FORMAT && strstr(e2.message, "'scene' is an integer beyond 64 bits"));
        free(big); free(digits);
    }
    expect("node two parents", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"children\":[0]},{\"children\":[0]}"), SINEW_ERROR_FORMAT,
           "node 0 has two parents");
    expect("node own child", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"children\":[1]}"), SINEW_ERROR_FORMAT, "own child");
    {
        char cyc[8192];
        snprintf(cyc, sizeof cyc, "%s", edit("\"nodes\":[0,1]}],\"nodes\":[{\"name\":\"body\",", "\"nodes\":[0]}],\"nodes\":[{\"name\":\"body\",\"children\":[1],"));
        const char *from = "{\"name\":\"hip\"}", *to = "{\"name\":\"hip\",\"children\":[0]}";
        char *h = strstr(cyc, from);
        TU_CHECK(h != NULL);
        if (h) {
            char tail[8192];
            snprintf(tail, sizeof tail, "%s", h + strlen(from));
            snprintf(h, sizeof cyc - (size_t)(h - cyc), "%s%s", to, tail);
        }
        expect("node cycle", cyc, SINEW_ERROR_FORMAT, "is not a root node index");
    }
    expect("root with a parent", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"children\":[0]}"), SINEW_ERROR_FORMAT, "is not a root node index");
    expect("mesh index", edit("\"mesh\":0,", "\"mesh\":7,"), SINEW_ERROR_FORMAT, "'mesh' = 7 out of range");
    expect("skin joint not a node", edit("\"joints\":[1]", "\"joints\":[9]"), SINEW_ERROR_FORMAT, "skin 0: joint 0 is not a node index");
    expect("cubic output count", edit("{\"input\":3,\"output\":4}", "{\"input\":3,\"output\":4,\"interpolation\":\"CUBICSPLINE\"}"),
           SINEW_ERROR_FORMAT, "2 outputs for 2 inputs (CUBICSPLINE)");
    expect("unknown interpolation", edit("{\"input\":3,\"output\":4}", "{\"input\":3,\"output\":4,\"interpolation\":\"BEZIER\"}"),
           SINEW_ERROR_FORMAT, "unknown interpolation 'BEZIER'");
    expect("huge count, no view", edit("{\"bufferView\":4,\"componentType\":5126,\"count\":2,", "{\"componentType\":5126,\"count\":2000000000,"),
           SINEW_ERROR_FORMAT, "out of range");
    expect("count over the limit", edit("{\"bufferView\":0,\"componentType\":5126,\"count\":3,", "{\"componentType\":5126,\"count\":60000000,"),
           SINEW_ERROR_LIMIT_EXCEEDED, "has 60000000 elements (limit 1048576)");
    expect("sparse index order", edit("{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}",
           "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":0}}}"),
           SINEW_ERROR_FORMAT, "sparse index 0 out of order");
    expect("node scale 1e20", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"scale\":[1e20,1e20,1e20]}"), SINEW_ERROR_LIMIT_EXCEEDED,
           "joint 0 'hip' (node 1): rest skinning transform beyond float32 range");
    expect("offset near float max", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"translation\":[3e38,0,0]}"), SINEW_ERROR_LIMIT_EXCEEDED,
           "node 1 'hip': transform beyond float32 range");
    expect("absolute buffer URI", edit("\"uri\":\"data:", "\"uri\":\"/etc/passwd\",\"x\":\"data:"), SINEW_ERROR_IO, "refused to open '/etc/passwd'");
    expect("relative URI, memory", edit("\"uri\":\"data:", "\"uri\":\"buffer.bin\",\"x\":\"data:"), SINEW_ERROR_IO,
           "refused to open 'buffer.bin': it is outside the model: a memory import without a base directory opens no file");
    expect("zero rotation", edit("{\"name\":\"hip\"}", "{\"name\":\"hip\",\"rotation\":[0,0,0,0]}"), SINEW_ERROR_FORMAT, "zero rotation quaternion");
    expect("no mesh", edit("\"mesh\":0,", ""), SINEW_ERROR_EMPTY, "the scene holds no triangle mesh");
    static const unsigned char glb_bad[24] = { 'g', 'l', 'T', 'F', 1, 0, 0, 0, 24, 0, 0, 0, 4, 0, 0, 0, 'J', 'S', 'O', 'N', '{', '}', ' ', ' ' };
    TU_CHECK_RESULT(load_mem(glb_bad, sizeof glb_bad, "glb", &err), SINEW_ERROR_FORMAT);
    TU_CHECK(strstr(err.message, "GLB: version 1") != NULL);
    /* header length shorter than the headers, JSON chunk length far past the file
     * (found by fuzz_gltf: total - 20 wrapped around before this check) */
    static const unsigned char glb_short[24] = { 'g', 'l', 'T', 'F', 2, 0, 0, 0, 12, 0, 0, 0, 0, 0, 8, 0, 'J', 'S', 'O', 'N', '{', '}', ' ', ' ' };
    TU_CHECK_RESULT(load_mem(glb_short, sizeof glb_short, "glb", &err), SINEW_ERROR_FORMAT);
    TU_CHECK(strstr(err.message, "GLB: header length 12 shorter than the 20 header bytes") != NULL);
    static const unsigned char glb_long_json[24] = { 'g', 'l', 'T', 'F', 2, 0, 0, 0, 24, 0, 0, 0, 0, 0, 8, 0, 'J', 'S', 'O', 'N', '{', '}', ' ', ' ' };
    TU_CHECK_RESULT(load_mem(glb_long_json, sizeof glb_long_json, "glb", &err), SINEW_ERROR_FORMAT);
    TU_CHECK(strstr(err.message, "GLB: JSON chunk runs past the file") != NULL);
    /* 3. mutations of the base */
    mutate_and_load((const unsigned char *)base, strlen(base), "gltf");
    /* 2. every glTF file of assimp-testmodels (and mutations of the small ones) */
    nftw("/usr/share/assimp/models/glTF2", visit, 16, FTW_PHYS);
    printf("assimp-testmodels glTF2: %d loaded, %d clean errors\n", files_ok, files_err);
    TU_CHECK(files_ok + files_err > 10);
    if (tu_failures) { fprintf(stderr, "FAIL test_asset_gltf_hostile: %d check(s) failed\n", tu_failures); return 1; }
    printf("PASS test_asset_gltf_hostile\n");
    return 0;
}
