/* Amplifying glTF files, made here as GLB in memory, against Sinew's glTF
 * importer: every per-file cost must be linear in the file.
 *  1. 65,000 distinct inverse binds for one node (one skin listing the node
 *     65,000 times): candidate matching was a scan of the node's candidates
 *     per joint (quadratic: ~30 s);
 *  2. 262,144 empty nodes and 4,000 animations: every clip cleared and walked
 *     every node (~25 s);
 *  3. 32,768 morphed instances of one mesh (8 targets each), one `weights`
 *     channel per instance: every channel scanned every morph target of the
 *     file (~20 s).
 * Each load must succeed with the expected counts. Each file is loaded at a
 * quarter of its size and at full size: CPU time (of this process) must grow
 * about 4x, not 16x (bound 8x + 0.25 s); a hang guard of 20 CPU s per load
 * (linear: ~1 s here) stops a regression early.
 * Memory budget (sinew_asset_desc.max_memory), tiny files asking for gigabytes
 * through accessors without a bufferView (all zeros by the specification),
 * under an allocator that records its peak:
 *  4. POSITION of 2^24 zero vertices: LIMIT_EXCEEDED naming the mesh or
 *     accessor, peak within the budget (before: ~2 GB allocated);
 *  5. 64 morph targets of 2^18 zero deltas each: loads, the zero deltas take
 *     no memory (before: 64 x 6 MiB held at once);
 *  6. a skin of 60,000 joints and 4,000 one-channel clips (1 MB of JSON): each
 *     clip holds ~176 bytes per joint whatever its channels (before: 42 GB
 *     asked for); with a 128 MiB budget a clip is refused naming it, the peak
 *     within the budget of the 3-clip load's; 3 clips load. */
#include "testutil.h"
#include <sinew/asset.h>

#include <stdarg.h>
#include <time.h>

#define HANG_GUARD_CPU_S 20.0

typedef struct sbuf { char *p; size_t n, cap; } sbuf;

static void sb_put(sbuf *b, const void *d, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (b->n + n + 1 > nc) nc *= 2;
        b->p = realloc(b->p, nc);
        b->cap = nc;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *tmp = malloc((size_t)k + 1);
    vsnprintf(tmp, (size_t)k + 1, fmt, aq);
    va_end(aq);
    sb_put(b, tmp, (size_t)k);
    free(tmp);
}

/* A GLB of json and bin (bin padded to 4 bytes). */
static uint8_t *glb(const sbuf *json, const sbuf *bin, size_t *size)
{
    size_t jl = (json->n + 3) & ~(size_t)3, bl = (bin->n + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jl + (bl ? 8 + bl : 0);
    uint8_t *o = calloc(1, total);
    uint32_t h[3] = { 0x46546C67u, 2u, (uint32_t)total };
    memcpy(o, h, 12);
    uint32_t jc[2] = { (uint32_t)jl, 0x4E4F534Au };
    memcpy(o + 12, jc, 8);
    memset(o + 20, ' ', jl);
    memcpy(o + 20, json->p, json->n);
    if (bl) {
        uint32_t bc[2] = { (uint32_t)bl, 0x004E4942u };
        memcpy(o + 20 + jl, bc, 8);
        memcpy(o + 28 + jl, bin->p, bin->n);
    }
    *size = total;
    return o;
}

static double cpu_now(void) { return (double)clock() / CLOCKS_PER_SEC; }

/* Loads; returns the asset (caller destroys) and prints the CPU time. */
static sinew_asset *load(const char *label, const uint8_t *data, size_t size, double *cpu)
{
    sinew_asset_desc d = { 0 };
    d.data = data; d.size = size; d.hint = "glb";
    sinew_asset *a = NULL;
    sinew_error_info err;
    double t0 = cpu_now();
    sinew_result r = sinew_asset_load(&d, &a, &err);
    *cpu = cpu_now() - t0;
    printf("%-34s %8zu bytes: %s in %.2f CPU s %s\n", label, size, sinew_result_string(r), *cpu, r ? err.message : "");
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", label, err.message);
    TU_CHECK_MSG(*cpu < HANG_GUARD_CPU_S, "%s: %.1f CPU s (hang guard %.0f s): a walk is not linear", label, *cpu, HANG_GUARD_CPU_S);
    return a;
}

/* Three vertices: positions, JOINTS_0 (u16) and WEIGHTS_0 into bin; returns the views' first accessor. */
static void triangle(sbuf *bin, sbuf *views, sbuf *accs, int skinned)
{
    const float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    size_t o = bin->n;
    sb_put(bin, pos, sizeof pos);
    sb_printf(views, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36}", o);
    sb_printf(accs, "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}");
    if (!skinned) return;
    const uint16_t j[12] = { 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0 };
    const float w[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    o = bin->n; sb_put(bin, j, sizeof j);
    sb_printf(views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}", o);
    o = bin->n; sb_put(bin, w, sizeof w);
    sb_printf(views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":48}", o);
    sb_printf(accs, ",{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"VEC4\"},"
                    "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}");
}

static double many_binds(int N)
{
    sbuf json = { 0 }, bin = { 0 }, views = { 0 }, accs = { 0 };
    triangle(&bin, &views, &accs, 1);
    size_t o = bin.n;
    float *ibm = calloc((size_t)N * 16, sizeof *ibm);
    for (int k = 0; k < N; k++) {
        float *m = ibm + (size_t)k * 16;
        m[0] = m[5] = m[10] = m[15] = 1;
        m[12] = (float)k * 0.25f;   /* distinct translations: distinct binds */
    }
    sb_put(&bin, ibm, (size_t)N * 64);
    free(ibm);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", o, (size_t)N * 64);
    sb_printf(&accs, ",{\"bufferView\":3,\"componentType\":5126,\"count\":%d,\"type\":\"MAT4\"}", N);
    sb_printf(&json, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0,\"skin\":0},{\"name\":\"j\"}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
                     "\"skins\":[{\"inverseBindMatrices\":3,\"joints\":[");
    for (int k = 0; k < N; k++) sb_printf(&json, k ? ",1" : "1");
    sb_printf(&json, "]}],\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", views.p, accs.p, bin.n);
    size_t size;
    uint8_t *file = glb(&json, &bin, &size);
    double cpu;
    char label[80];
    snprintf(label, sizeof label, "%d binds of one node", N);
    sinew_asset *a = load(label, file, size, &cpu);
    if (a) {
        uint32_t nj = sinew_skeleton_joint_count(sinew_asset_skeleton(a));
        TU_CHECK_MSG(nj == (uint32_t)N, "%u joints, expected %d (one per distinct bind)", nj, N);
        TU_CHECK(sinew_asset_stats(a)->duplicated_joints == (uint32_t)N - 1);
        /* each joint keeps its own bind */
        const sinew_skeleton *sk = sinew_asset_skeleton(a);
        for (uint32_t j = 0; j < nj; j += 997) TU_CHECK_NEAR(sinew_skeleton_inverse_bind(sk, j)->m[3][0], j * 0.25, 1e-9);
    }
    sinew_asset_destroy(a);
    free(file); free(json.p); free(bin.p); free(views.p); free(accs.p);
    return cpu;
}

static double many_nodes_many_clips(int NODES, int ANIMS)
{
    sbuf json = { 0 }, bin = { 0 }, views = { 0 }, accs = { 0 };
    triangle(&bin, &views, &accs, 0);
    const float times[2] = { 0, 1 }, tr[6] = { 0, 0, 0, 1, 0, 0 };
    size_t o = bin.n; sb_put(&bin, times, sizeof times);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8}", o);
    o = bin.n; sb_put(&bin, tr, sizeof tr);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}", o);
    sb_printf(&accs, ",{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                     "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}");
    sb_printf(&json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0}");
    for (int k = 1; k < NODES; k++) sb_put(&json, ",{}", 3);
    sb_printf(&json, "],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"animations\":[");
    for (int k = 0; k < ANIMS; k++)
        sb_printf(&json, "%s{\"samplers\":[{\"input\":1,\"output\":2}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}",
                  k ? "," : "");
    sb_printf(&json, "],\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", views.p, accs.p, bin.n);
    size_t size;
    uint8_t *file = glb(&json, &bin, &size);
    double cpu;
    char label[80];
    snprintf(label, sizeof label, "%d nodes x %d clips", NODES, ANIMS);
    sinew_asset *a = load(label, file, size, &cpu);
    if (a) {
        TU_CHECK(sinew_asset_clip_count(a) == (uint32_t)ANIMS);
        TU_CHECK(sinew_skeleton_joint_count(sinew_asset_skeleton(a)) == 1);
    }
    sinew_asset_destroy(a);
    free(file); free(json.p); free(bin.p); free(views.p); free(accs.p);
    return cpu;
}

static double many_weight_channels(int INST)
{
    enum { TARGETS = 8 };
    sbuf json = { 0 }, bin = { 0 }, views = { 0 }, accs = { 0 };
    triangle(&bin, &views, &accs, 0);
    const float delta[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 };
    float times[2] = { 0, 1 }, w[2 * TARGETS];
    for (int k = 0; k < 2 * TARGETS; k++) w[k] = (float)(k % 3) * 0.5f;
    size_t o = bin.n; sb_put(&bin, delta, sizeof delta);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36}", o);
    o = bin.n; sb_put(&bin, times, sizeof times);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8}", o);
    o = bin.n; sb_put(&bin, w, sizeof w);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", o, sizeof w);
    sb_printf(&accs, ",{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                     "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                     "{\"bufferView\":3,\"componentType\":5126,\"count\":%d,\"type\":\"SCALAR\"}", 2 * TARGETS);
    sb_printf(&json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int k = 0; k < INST; k++) sb_printf(&json, "%s{\"mesh\":0}", k ? "," : "");
    sb_printf(&json, "],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[");
    for (int t = 0; t < TARGETS; t++) sb_printf(&json, "%s{\"POSITION\":1}", t ? "," : "");
    sb_printf(&json, "]}]}],\"animations\":[{\"samplers\":[{\"input\":2,\"output\":3}],\"channels\":[");
    for (int k = 0; k < INST; k++) sb_printf(&json, "%s{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"weights\"}}", k ? "," : "", k);
    sb_printf(&json, "]}],\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", views.p, accs.p, bin.n);
    size_t size;
    uint8_t *file = glb(&json, &bin, &size);
    double cpu;
    char label[80];
    snprintf(label, sizeof label, "%d morphed instances + channels", INST);
    sinew_asset *a = load(label, file, size, &cpu);
    if (a) {
        const sinew_asset_import_stats *st = sinew_asset_stats(a);
        TU_CHECK(st->weight_channels == (uint32_t)INST);
        TU_CHECK(st->morph_targets == (uint32_t)INST * TARGETS);
        const sinew_clip *c = sinew_asset_clip(a, 0);
        TU_CHECK(sinew_clip_weight_count(c) == (uint32_t)INST * TARGETS);
        TU_CHECK(sinew_clip_weight_track_count(c) == (uint32_t)INST);
        /* every instance's slots have a track (slot first of instance k = k * TARGETS) */
        for (uint32_t k = 0; k < (uint32_t)INST; k += 1021) TU_CHECK(sinew_clip_animates_weight(c, k * TARGETS + TARGETS - 1));
    }
    sinew_asset_destroy(a);
    free(file); free(json.p); free(bin.p); free(views.p); free(accs.p);
    return cpu;
}

typedef struct peak_alloc { size_t live, peak; } peak_alloc;

static void *pk_alloc(void *user, size_t size, size_t align)
{
    peak_alloc *pa = user;
    size_t a = align < 16 ? 16 : align;
    unsigned char *base = aligned_alloc(a, (a + size + a - 1) / a * a);
    if (!base) return NULL;
    memcpy(base + a - sizeof(size_t), &size, sizeof size);
    memcpy(base + a - 2 * sizeof(size_t), &a, sizeof a);
    pa->live += size;
    if (pa->live > pa->peak) pa->peak = pa->live;
    return base + a;
}

static void pk_free(void *user, void *ptr)
{
    if (!ptr) return;
    peak_alloc *pa = user;
    size_t size, a;
    memcpy(&size, (unsigned char *)ptr - sizeof(size_t), sizeof size);
    memcpy(&a, (unsigned char *)ptr - 2 * sizeof(size_t), sizeof a);
    pa->live -= size;
    free((unsigned char *)ptr - a);
}

static sinew_result load_budget(const char *json, uint64_t max_memory, size_t *peak, sinew_error_info *err, sinew_asset **out)
{
    static peak_alloc pa;   /* outlives the call: the asset returned keeps the allocator */
    static sinew_allocator al = { pk_alloc, pk_free, &pa };
    pa.live = pa.peak = 0;
    sinew_asset_desc d = { 0 };
    d.data = json; d.size = strlen(json); d.hint = "gltf";
    d.allocator = &al;
    d.max_memory = max_memory;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, err);
    if (out) *out = a; else sinew_asset_destroy(a);
    if (!out) TU_CHECK(pa.live == 0);
    *peak = pa.peak;
    return r;
}

static void memory_budget(void)
{
    char json[8192];
    sinew_error_info err;
    size_t peak;
    /* 4. 2^24 zero positions: refused before the arrays are made */
    snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"name\":\"huge\",\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"accessors\":[{\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}]}", 1u << 24);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t budget = pass ? 64ull << 20 : 0;   /* explicit 64 MiB, then the default (512 MiB + 64 x the file) */
        sinew_result r = load_budget(json, budget, &peak, &err, NULL);
        printf("2^24 zero positions (%s budget): %s, peak %.1f MiB: %s\n", pass ? "64 MiB" : "default", sinew_result_string(r),
               (double)peak / 1048576.0, err.message);
        TU_CHECK(r == SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK_MSG(strstr(err.message, "mesh 0 primitive 0") && strstr(err.message, "memory budget"), "message: %s", err.message);
        uint64_t cap = budget ? budget : SINEW_ASSET_DEFAULT_MEMORY_FLOOR + 64 * strlen(json);
        TU_CHECK_MSG(peak <= cap, "peak %zu bytes beyond the budget %llu", peak, (unsigned long long)cap);
    }
    /* the same file within a budget it fits: a budget too small for one accessor names it */
    {
        sinew_result r = load_budget(json, 1u << 20, &peak, &err, NULL);
        printf("2^24 zero positions (1 MiB budget): %s: %s\n", sinew_result_string(r), err.message);
        TU_CHECK(r == SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK_MSG(strstr(err.message, "accessor 0") && strstr(err.message, "POSITION"), "message: %s", err.message);
        TU_CHECK(peak <= 1u << 20);
    }
    /* 5. 64 targets of zero deltas over 2^18 real (zero) vertices: sparse positions so
     * the mesh itself is small in the file, the targets all-zero accessors */
    enum { NV = 1 << 18 };
    int n = snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[");
    for (int t = 0; t < 64; t++) n += snprintf(json + n, sizeof json - (size_t)n, "%s{\"POSITION\":1,\"NORMAL\":1}", t ? "," : "");
    snprintf(json + n, sizeof json - (size_t)n, "]}]}],\"accessors\":[{\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"},"
             "{\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}]}", NV, NV);
    sinew_asset *a = NULL;
    sinew_result r = load_budget(json, 256ull << 20, &peak, &err, &a);
    printf("64 zero targets x 2^18 vertices: %s, peak %.1f MiB %s\n", sinew_result_string(r), (double)peak / 1048576.0, r ? err.message : "");
    TU_CHECK_MSG(r == SINEW_OK, "%s", err.message);
    if (a) {
        TU_CHECK(sinew_asset_vertex_count(a) == NV);
        TU_CHECK(sinew_asset_stats(a)->morph_targets == 64);
    }
    sinew_asset_destroy(a);
    /* the rest mesh needs ~150 MiB here (doubles while building, the asset's arrays);
     * 64 materialised targets of positions and normals would add 64 x 12 MiB */
    TU_CHECK_MSG(peak < (200u << 20), "peak %.1f MiB: zero deltas were materialised", (double)peak / 1048576.0);
}

static void clips_times_joints(void)
{
    enum { J = 60000 };
    sbuf json = { 0 }, bin = { 0 }, views = { 0 }, accs = { 0 };
    triangle(&bin, &views, &accs, 1);
    const float times[2] = { 0, 1 }, tr[6] = { 0, 0, 0, 1, 0, 0 };
    size_t o = bin.n; sb_put(&bin, times, sizeof times);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":8}", o);
    o = bin.n; sb_put(&bin, tr, sizeof tr);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":24}", o);
    sb_printf(&accs, ",{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                     "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}");
    for (int pass = 0; pass < 2; pass++) {
        int anims = pass ? 4000 : 3;
        json.n = 0;
        sb_printf(&json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0,\"skin\":0}");
        for (int k = 0; k < J; k++) sb_put(&json, ",{}", 3);
        sb_printf(&json, "],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
                         "\"skins\":[{\"joints\":[");
        for (int k = 0; k < J; k++) sb_printf(&json, k ? ",%d" : "%d", k + 1);
        sb_printf(&json, "]}],\"animations\":[");
        for (int k = 0; k < anims; k++)
            sb_printf(&json, "%s{\"samplers\":[{\"input\":3,\"output\":4}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
                      k ? "," : "");
        sb_printf(&json, "],\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", views.p, accs.p, bin.n);
        size_t size;
        uint8_t *file = glb(&json, &bin, &size);
        static peak_alloc pa;
        static sinew_allocator al = { pk_alloc, pk_free, &pa };
        pa.live = pa.peak = 0;
        sinew_asset_desc d = { 0 };
        d.data = file; d.size = size; d.hint = "glb"; d.allocator = &al;
        d.max_memory = 128u << 20;
        sinew_asset *a = NULL;
        sinew_error_info err;
        sinew_result r = sinew_asset_load(&d, &a, &err);
        printf("%d joints x %d clips (128 MiB budget): %s, peak %.1f MiB %s\n", J, anims, sinew_result_string(r),
               (double)pa.peak / 1048576.0, r ? err.message : "");
        if (pass) {
            TU_CHECK(r == SINEW_ERROR_LIMIT_EXCEEDED && err.item == SINEW_ITEM_CLIP && err.index >= 3 && err.index < 12 && strstr(err.message, "its clip needs"));
        } else {
            TU_CHECK_MSG(r == SINEW_OK, "%s", err.message);
            if (a) TU_CHECK(sinew_asset_clip_count(a) == 3 && sinew_skeleton_joint_count(sinew_asset_skeleton(a)) == J);
        }
        /* the clips stay within the budget: the skeleton, nodes and candidates of 60,000
         * joints (~140 MiB here) are the file's own size, counted once */
        static size_t peak3;
        if (!pass) peak3 = pa.peak;
        else TU_CHECK_MSG(pa.peak <= peak3 + (128u << 20), "peak %zu: the clips passed the budget", pa.peak);
        sinew_asset_destroy(a);
        TU_CHECK(pa.live == 0);
        free(file);
    }
    free(json.p); free(bin.p); free(views.p); free(accs.p);
}

/* Found by fuzz_gltf (its morph check): a normal (or tangent) delta beyond
 * SINEW_MORPH_MAX_DELTA was kept, the targets then refused by sinew_morph_validate.
 * Now the import names it. */
static void huge_normal_delta(void)
{
    sbuf json = { 0 }, bin = { 0 }, views = { 0 }, accs = { 0 };
    triangle(&bin, &views, &accs, 1);
    const float nrm[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 }, dn[9] = { 0, 0, 0, 3e38f, 0, 0, 0, 0, 0 };
    size_t o = bin.n; sb_put(&bin, nrm, sizeof nrm);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36}", o);
    o = bin.n; sb_put(&bin, dn, sizeof dn);
    sb_printf(&views, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":36}", o);
    sb_printf(&accs, ",{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                     "{\"bufferView\":4,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}");
    sb_printf(&json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0,\"skin\":0},{}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":3,\"JOINTS_0\":1,\"WEIGHTS_0\":2},"
                     "\"targets\":[{\"NORMAL\":4}]}]}],\"skins\":[{\"joints\":[1]}],"
                     "\"bufferViews\":[%s],\"accessors\":[%s],\"buffers\":[{\"byteLength\":%zu}]}", views.p, accs.p, bin.n);
    size_t size;
    uint8_t *file = glb(&json, &bin, &size);
    sinew_asset_desc d = { 0 };
    d.data = file; d.size = size; d.hint = "glb";
    sinew_asset *a = NULL;
    sinew_error_info err;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    printf("normal delta 3e38: %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK(r == SINEW_ERROR_LIMIT_EXCEEDED && err.item == SINEW_ITEM_MESH && err.entry == 1 && strstr(err.message, "a normal delta of vertex 1"));
    sinew_asset_destroy(a);
    free(file); free(json.p); free(bin.p); free(views.p); free(accs.p);
}

/* Linear: 4x the file, about 4x the CPU time (quadratic: 16x). Bound 8x plus
 * 0.25 s for the clock's and allocator's noise; each size is timed twice and the
 * smaller time kept (a transient load on the machine does not hit both). Under
 * AddressSanitizer or ThreadSanitizer the ratio is printed, not checked: their
 * shadow memory and quarantine make a 4x larger import cost more than 4x for reasons
 * of their own (a CI run at -j2 measured 9.1x for nodes x clips, 2.00 s against
 * 0.22 s); the plain build checks it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCALING_CHECKED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SCALING_CHECKED 0
#endif
#endif
#ifndef SCALING_CHECKED
#define SCALING_CHECKED 1
#endif
static void scaling(const char *what, double small, double big)
{
    printf("%-34s 4x the file: %.2f -> %.2f CPU s (x%.1f)%s\n", what, small, big, big / (small > 1e-3 ? small : 1e-3),
           SCALING_CHECKED ? "" : " (not checked under a sanitizer)");
    if (SCALING_CHECKED)
        TU_CHECK_MSG(big < 8.0 * small + 0.25, "%s: 4x the file took %.2f s vs %.2f s: not linear", what, big, small);
}

static double min2(double a, double b) { return a < b ? a : b; }

int main(void)
{
    double s1 = min2(many_binds(16250), many_binds(16250)), b1 = min2(many_binds(65000), many_binds(65000));
    scaling("binds of one node", s1, b1);
    double s2 = min2(many_nodes_many_clips(1 << 16, 1000), many_nodes_many_clips(1 << 16, 1000));
    double b2 = min2(many_nodes_many_clips(1 << 18, 4000), many_nodes_many_clips(1 << 18, 4000));
    scaling("nodes x clips", s2, b2);
    double s3 = min2(many_weight_channels(8192), many_weight_channels(8192));
    double b3 = min2(many_weight_channels(32768), many_weight_channels(32768));
    scaling("weight channels x instances", s3, b3);
    memory_budget();
    clips_times_joints();
    huge_normal_delta();
    if (tu_failures) { fprintf(stderr, "test_asset_gltf_amplify: %d failure(s)\n", tu_failures); return 1; }
    printf("test_asset_gltf_amplify: OK\n");
    return 0;
}
