/* Tests of the accelerated centers of rotation against the exact float64
 * evaluation, of cancelling them, and of the bake cache (sinew/bake_cache.h):
 *  - accelerated vs exact (desc.exact, the paper's sum over every subdivided
 *    triangle in float64) on random limbs with automatic weights, random sigma:
 *    within 1e-5 of the mesh's box diagonal (cor.h);
 *  - progress runs up to 1, cancelling returns CANCELLED with nothing written;
 *  - cached centers and automatic weights: computed and written once, loaded bit
 *    for bit the second time; a changed mesh, weights or parameter misses; a
 *    tampered, truncated, extended or foreign file is refused (and recomputed,
 *    and rewritten); 300 randomly damaged files are all refused; a cancelled
 *    computation writes no file; an unwritable path is no error; sinew_bake_cache_path. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <sinew/autoweights.h>
#include <sinew/cor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct limb {
    uint32_t n, nt, jc;
    sinew_vertex *v;
    float *pos;
    uint32_t *tri;
    sinew_skeleton *skel;
    double diag;
} limb;

/* A tube along x with radius jitter over jc joints at random spacing, automatic weights. */
static void make_limb(tu_rng *r, limb *L, uint32_t R, uint32_t S, uint32_t jc, double alpha)
{
    memset(L, 0, sizeof *L);
    L->n = R * S; L->nt = 2 * R * (S - 1); L->jc = jc;
    L->v = malloc(sizeof(sinew_vertex) * L->n);
    L->pos = malloc(sizeof(float) * 3 * L->n);
    float *nrm = malloc(sizeof(float) * 3 * L->n), *w = malloc(sizeof(float) * L->n);
    uint32_t *jo = calloc(L->n, sizeof(uint32_t));
    L->tri = malloc(sizeof(uint32_t) * 3 * L->nt);
    double len = tu_uniform(r, 0.5, 2.0), rad = tu_uniform(r, 0.03, 0.2) * len;
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            uint32_t i = s * R + k;
            double a = 2 * M_PI * k / R, ri = rad * (1 + tu_uniform(r, -0.03, 0.03));
            L->pos[3 * i] = (float)(len * s / (S - 1));
            L->pos[3 * i + 1] = (float)(ri * cos(a));
            L->pos[3 * i + 2] = (float)(ri * sin(a));
            nrm[3 * i] = 0; nrm[3 * i + 1] = (float)cos(a); nrm[3 * i + 2] = (float)sin(a);
            w[i] = 1;
        }
    uint32_t t = 0;
    for (uint32_t s = 0; s + 1 < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            uint32_t a = s * R + k, b = s * R + (k + 1) % R;
            uint32_t *o = L->tri + 3 * t;
            o[0] = a; o[1] = b; o[2] = b + R; o[3] = a; o[4] = b + R; o[5] = a + R;
            t += 2;
        }
    int32_t parents[8];
    sinew_mat4 bind[8];
    sinew_vec3 tails[8];
    double x = 0;
    for (uint32_t j = 0; j < jc; j++) {
        double step = len / jc * tu_uniform(r, 0.7, 1.3), nx = j + 1 == jc ? len : x + step;
        sinew_quat q = { 0, 0, 0, 1 };
        parents[j] = (int32_t)j - 1;
        bind[j] = sinew_mat4_from_rigid(q, sinew_v3(x, 0, 0));
        tails[j] = sinew_v3(nx, 0, 0);
        x = nx;
    }
    sinew_skeleton_desc sd = { 0 };
    sd.joint_count = jc; sd.parents = parents; sd.bind_global = bind; sd.bone_tail = tails;
    TU_CHECK_OK(sinew_skeleton_create(&sd, &L->skel));
    sinew_influences inf = { 0 };
    inf.per_vertex = 1; inf.joints = jo; inf.weights = w;
    TU_CHECK_OK(sinew_pack_vertices(L->n, L->pos, nrm, &inf, jc, L->v, NULL, NULL));
    sinew_auto_weights_desc ad = { 0 };
    ad.alpha = alpha;
    TU_CHECK_OK(sinew_auto_weights_packed(L->skel, &ad, L->n, L->v));
    L->diag = sqrt(len * len + 8 * rad * rad);
    free(nrm); free(w); free(jo);
}

static void free_limb(limb *L)
{
    free(L->v); free(L->pos); free(L->tri);
    sinew_skeleton_destroy(L->skel);
}

static sinew_cor_desc limb_desc(const limb *L)
{
    sinew_cor_desc d = { 0 };
    d.vertex_count = L->n; d.vertices = L->v; d.joint_count = L->jc;
    d.triangle_count = L->nt; d.triangles = L->tri;
    return d;
}

static void test_accelerated_vs_exact(tu_rng *r)
{
    for (int round = 0; round < 4; round++) {
        limb L;
        make_limb(r, &L, 12 + tu_range(r, 12), 24 + tu_range(r, 32), 3 + tu_range(r, 3), tu_uniform(r, 1.0, 6.0));
        sinew_cor_desc d = limb_desc(&L);
        static const double sigmas[4] = { 0.05, 0.1, 0.2, 0.4 };
        d.sigma = sigmas[tu_range(r, 4)];
        float *ce = malloc(sizeof(float) * 3 * L.n), *ca = malloc(sizeof(float) * 3 * L.n);
        sinew_cor_stats se, sa;
        d.exact = 1;
        TU_CHECK_OK(sinew_cor_compute(&d, ce, &se));
        d.exact = 0;
        TU_CHECK_OK(sinew_cor_compute(&d, ca, &sa));
        double worst = 0;
        for (uint32_t i = 0; i < L.n; i++) {
            double dx = (double)ca[3 * i] - ce[3 * i], dy = (double)ca[3 * i + 1] - ce[3 * i + 1],
                   dz = (double)ca[3 * i + 2] - ce[3 * i + 2], e = sqrt(dx * dx + dy * dy + dz * dz) / L.diag;
            worst = e > worst ? e : worst;
        }
        fprintf(stderr, "limb %u vertices, %u joints, sigma %.2f: %llu entries, %llu cells, %u groups; accelerated vs "
                        "exact: worst %.3g of the diagonal\n", L.n, L.jc, d.sigma, (unsigned long long)se.pair_entries,
                (unsigned long long)sa.weight_cells, sa.weight_groups, worst);
        /* cor.h: within 1e-5 of the mesh's size (second-order expansion over cells of <= 0.16 sigma) */
        TU_CHECK_MSG(worst <= 1e-5, "accelerated centers %.3g of the diagonal from the exact ones", worst);
        TU_CHECK(sa.weight_cells > 0 && sa.weight_cells < se.pair_entries && se.weight_cells == 0);
        TU_CHECK(sa.weight_groups == se.weight_groups && sa.fallback_vertices == se.fallback_vertices);
        free(ce); free(ca);
        free_limb(&L);
    }
}

static uint32_t calls, cancel_at;
static double last_f;
static bool monotonic;
static bool on_progress(void *user, double f)
{
    (void)user;
    monotonic = monotonic && f >= last_f && f <= 1.0;
    last_f = f;
    return ++calls < cancel_at;
}

static void test_cancel(tu_rng *r)
{
    limb L;
    make_limb(r, &L, 24, 60, 4, 3.0);
    sinew_cor_desc d = limb_desc(&L);
    float *c = malloc(sizeof(float) * 3 * L.n), *ref = malloc(sizeof(float) * 3 * L.n);
    TU_CHECK_OK(sinew_cor_compute(&d, ref, NULL));
    d.progress = on_progress;
    calls = 0; last_f = 0; monotonic = true; cancel_at = UINT32_MAX;
    TU_CHECK_OK(sinew_cor_compute(&d, c, NULL));
    TU_CHECK(calls >= 2 && monotonic && last_f == 1.0);
    TU_CHECK(memcmp(c, ref, sizeof(float) * 3 * L.n) == 0); /* progress does not change the result */
    memset(c, 0x5A, sizeof(float) * 3 * L.n);
    calls = 0; last_f = 0; cancel_at = 2;
    TU_CHECK_RESULT(sinew_cor_compute(&d, c, NULL), SINEW_ERROR_CANCELLED);
    TU_CHECK(calls == 2);
    int untouched = 1;
    for (size_t k = 0; k < sizeof(float) * 3 * L.n; k++) untouched &= ((uint8_t *)c)[k] == 0x5A;
    TU_CHECK_MSG(untouched, "a cancelled computation wrote centers");
    free(c); free(ref);
    free_limb(&L);
}

static long file_size(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void flip_byte(const char *p, long at)
{
    FILE *f = fopen(p, "r+b");
    TU_CHECK(f != NULL);
    if (!f) return;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void truncate_to(const char *p, long n)
{
    TU_CHECK(truncate(p, n) == 0);
}

static void append_byte(const char *p)
{
    FILE *f = fopen(p, "ab");
    TU_CHECK(f != NULL);
    if (f) { fputc(0, f); fclose(f); }
}

static void test_cor_cache(tu_rng *r, const char *dir)
{
    limb L;
    make_limb(r, &L, 20, 50, 4, 4.0);
    sinew_cor_desc d = limb_desc(&L);
    char path[512];
    snprintf(path, sizeof path, "%s/limb.glb.cor", dir);
    const size_t bytes = sizeof(float) * 3 * L.n;
    float *ref = malloc(bytes), *c = malloc(bytes);
    sinew_bake_cache_report rep;
    sinew_error_info e;
    sinew_cor_stats st;
    TU_CHECK_OK(sinew_cor_compute(&d, ref, NULL));

    /* first: computed and written; second: loaded, bit for bit */
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, &st, &rep, &e));
    TU_CHECK(!rep.loaded && !rep.refused && rep.written && rep.message[0] == 0 && st.weight_groups > 0);
    TU_CHECK(memcmp(c, ref, bytes) == 0);
    long size = file_size(path);
    TU_CHECK(size == 56 + (long)bytes + 16);
    memset(c, 0, bytes);
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, &st, &rep, &e));
    TU_CHECK(rep.loaded && !rep.refused && !rep.written && st.weight_groups == 0);
    TU_CHECK_MSG(memcmp(c, ref, bytes) == 0, "loaded centers differ from the computed ones");

    /* hostile files: refused with a reason, recomputed (same centers), rewritten, then loaded again */
    static const struct { const char *what; int kind; long at; const char *reason; } bad[] = {
        { "payload byte flipped", 0, 56 + 100, "checksum" },
        { "checksum byte flipped", 0, -3, "checksum" },
        { "magic", 0, 0, "not a sinew bake cache" },
        { "format version", 0, 8, "format version" },
        { "kind", 0, 12, "another kind" },
        { "algorithm version", 0, 16, "another version" },
        { "key", 0, 30, "another mesh" },
        { "count", 0, 41, "header does not match" },
        { "truncated payload", 1, 56 + 40, "truncated" },
        { "no checksum", 1, -16, "truncated" },
        { "header only", 1, 20, "shorter than its header" },
        { "extra byte", 2, 0, "longer" },
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        if (bad[b].kind == 0) flip_byte(path, bad[b].at < 0 ? size + bad[b].at : bad[b].at);
        else if (bad[b].kind == 1) truncate_to(path, bad[b].at < 0 ? size + bad[b].at : bad[b].at);
        else append_byte(path);
        memset(c, 0, bytes);
        TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
        TU_CHECK_MSG(!rep.loaded && rep.refused && rep.written && strstr(rep.message, bad[b].reason),
                     "%s: loaded %d refused %d written %d message '%s'", bad[b].what, rep.loaded, rep.refused, rep.written,
                     rep.message);
        TU_CHECK_MSG(memcmp(c, ref, bytes) == 0, "%s: recomputed centers differ", bad[b].what);
        TU_CHECK(file_size(path) == size);
        TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
        TU_CHECK(rep.loaded);
    }

    /* a changed input misses: one position by one ulp, one weight unit, a triangle, sigma, exact */
    float keep = L.v[7].position[1];
    L.v[7].position[1] = nextafterf(keep, 1e9f);
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused && strstr(rep.message, "another mesh") && rep.written);
    L.v[7].position[1] = keep;
    uint32_t wv = 0;
    while (!(L.v[wv].weights[0] > 0 && L.v[wv].weights[1] > 0)) wv++;
    L.v[wv].weights[0]--; L.v[wv].weights[1]++;
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused);
    L.v[wv].weights[0]++; L.v[wv].weights[1]--;
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused && memcmp(c, ref, bytes) == 0); /* back to the original: recomputed once more */
    uint32_t tkeep = L.tri[4];
    L.tri[4] = L.tri[5];
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused);
    L.tri[4] = tkeep;
    sinew_cor_desc d2 = d;
    d2.sigma = 0.11;
    TU_CHECK_OK(sinew_cor_compute_cached(&d2, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused);
    d2 = d;
    d2.exact = 1;
    TU_CHECK_OK(sinew_cor_compute_cached(&d2, path, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && rep.refused);
    d2.sigma = 0.1; /* the default given explicitly: the same key as 0 */
    TU_CHECK_OK(sinew_cor_compute_cached(&d2, path, c, NULL, &rep, &e));
    TU_CHECK(rep.loaded);

    /* cancelled: CANCELLED, no file, centers untouched */
    TU_CHECK(remove(path) == 0);
    d2 = d;
    d2.progress = on_progress;
    calls = 0; last_f = 0; cancel_at = 1;
    memset(c, 0x5A, bytes);
    TU_CHECK_RESULT(sinew_cor_compute_cached(&d2, path, c, NULL, &rep, &e), SINEW_ERROR_CANCELLED);
    TU_CHECK(e.result == SINEW_ERROR_CANCELLED && strstr(e.message, "cancelled") && !rep.written);
    TU_CHECK(file_size(path) < 0 && ((uint8_t *)c)[0] == 0x5A);

    /* an unwritable place: computed, not written, no error */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/no-such-folder/limb.cor", dir);
    TU_CHECK_OK(sinew_cor_compute_cached(&d, nowhere, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && !rep.written && strstr(rep.message, "not written"));
    TU_CHECK(memcmp(c, ref, bytes) == 0);
    /* no cache: the same as sinew_cor_compute; bad input: the error with err filled */
    TU_CHECK_OK(sinew_cor_compute_cached(&d, NULL, c, NULL, &rep, &e));
    TU_CHECK(!rep.loaded && !rep.written && memcmp(c, ref, bytes) == 0);
    d2 = d;
    d2.joint_count = 1;
    TU_CHECK_RESULT(sinew_cor_compute_cached(&d2, path, c, NULL, &rep, &e), SINEW_ERROR_JOINT_INDEX);
    TU_CHECK(e.result == SINEW_ERROR_JOINT_INDEX && file_size(path) < 0);
    TU_CHECK_RESULT(sinew_cor_compute_cached(NULL, path, c, NULL, &rep, &e), SINEW_ERROR_INVALID_ARGUMENT);

    /* the rest-mesh variant: computed, then loaded, same centers */
    sinew_rest_mesh_desc rd = { 0 };
    float *nrm = malloc(sizeof(float) * 3 * L.n), *w4 = malloc(sizeof(float) * 4 * L.n);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * L.n);
    for (uint32_t i = 0; i < L.n; i++) {
        nrm[3 * i] = 0; nrm[3 * i + 1] = 1; nrm[3 * i + 2] = 0;
        for (int k = 0; k < 4; k++) { j4[4 * i + k] = L.v[i].joints[k]; w4[4 * i + k] = L.v[i].weights[k] / 65535.0f; }
    }
    rd.skeleton = L.skel; rd.vertex_count = L.n; rd.positions = L.pos; rd.normals = nrm;
    rd.influences.per_vertex = 4; rd.influences.joints = j4; rd.influences.weights = w4; rd.max_influences = 4;
    rd.triangles = L.tri; rd.triangle_count = L.nt;
    sinew_rest_mesh *m = NULL;
    TU_CHECK_OK(sinew_rest_mesh_create(&rd, &m, &e));
    if (!m) fprintf(stderr, "rest mesh: %s\n", e.message);
    if (m) {
        char rpath[600];
        snprintf(rpath, sizeof rpath, "%s/rest.cor", dir);
        TU_CHECK_OK(sinew_rest_mesh_compute_centers_cached(m, NULL, rpath, &rep, &e));
        TU_CHECK(rep.written && !rep.loaded);
        memcpy(c, sinew_rest_mesh_centers(m), bytes);
        TU_CHECK_OK(sinew_rest_mesh_compute_centers_cached(m, NULL, rpath, &rep, &e));
        TU_CHECK(rep.loaded && memcmp(c, sinew_rest_mesh_centers(m), bytes) == 0);
        remove(rpath);
        sinew_rest_mesh_destroy(m);
    }
    free(nrm); free(w4); free(j4);
    free(ref); free(c);
    free_limb(&L);
}

static void test_weights_cache(tu_rng *r, const char *dir)
{
    limb L;
    make_limb(r, &L, 12, 30, 5, 2.0);
    char path[512];
    snprintf(path, sizeof path, "%s/limb.glb.weights", dir);
    uint32_t *jr = malloc(sizeof(uint32_t) * 4 * L.n), *jc = malloc(sizeof(uint32_t) * 4 * L.n);
    float *wr = malloc(sizeof(float) * 4 * L.n), *wc = malloc(sizeof(float) * 4 * L.n);
    sinew_auto_weights_desc ad = { 0 };
    sinew_bake_cache_report rep;
    sinew_error_info e;
    ad.alpha = 3.0;
    TU_CHECK_OK(sinew_auto_weights_ex(L.skel, &ad, L.n, L.pos, jr, wr));
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.written && !rep.loaded && !rep.refused);
    TU_CHECK(memcmp(jr, jc, sizeof(uint32_t) * 4 * L.n) == 0 && memcmp(wr, wc, sizeof(float) * 4 * L.n) == 0);
    memset(jc, 0, sizeof(uint32_t) * 4 * L.n);
    memset(wc, 0, sizeof(float) * 4 * L.n);
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.loaded && !rep.written);
    TU_CHECK_MSG(memcmp(jr, jc, sizeof(uint32_t) * 4 * L.n) == 0 && memcmp(wr, wc, sizeof(float) * 4 * L.n) == 0,
                 "loaded weights differ");
    long size = file_size(path);
    TU_CHECK(size == 56 + 32 * (long)L.n + 16);
    flip_byte(path, 56 + 5);
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.refused && strstr(rep.message, "checksum") && rep.written);
    TU_CHECK(memcmp(wr, wc, sizeof(float) * 4 * L.n) == 0);
    truncate_to(path, size - 1);
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.refused && strstr(rep.message, "truncated"));
    /* a centers file is not a weights file */
    sinew_cor_desc d = limb_desc(&L);
    char cpath[600];
    float *c = malloc(sizeof(float) * 3 * L.n);
    snprintf(cpath, sizeof cpath, "%s/limb.glb.cor", dir);
    TU_CHECK_OK(sinew_cor_compute_cached(&d, cpath, c, NULL, &rep, &e));
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, cpath, &rep, &e));
    TU_CHECK(rep.refused && strstr(rep.message, "another kind"));
    remove(cpath);
    free(c);
    /* misses: alpha, a position, a mask */
    ad.alpha = 3.5;
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.refused && !rep.loaded);
    ad.alpha = 3.0;
    L.pos[10] += 1e-3f;
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.refused && !rep.loaded);
    uint8_t mask[5] = { 1, 1, 0, 1, 1 };
    ad.joint_mask = mask;
    TU_CHECK_OK(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e));
    TU_CHECK(rep.refused && !rep.loaded);
    /* errors: as sinew_auto_weights_ex, err filled, nothing written */
    ad.alpha = -1;
    TU_CHECK_RESULT(sinew_auto_weights_ex_cached(L.skel, &ad, L.n, L.pos, jc, wc, path, &rep, &e),
                    SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.result == SINEW_ERROR_INVALID_ARGUMENT && !rep.written);
    remove(path);
    free(jr); free(jc); free(wr); free(wc);
    free_limb(&L);
}

/* Random damage to a valid centers file (bytes changed, cut, added; 300 files): the
 * reader never loads anything but the exact file, never crashes (ASan in the
 * sanitizer build), and the centers are always the computed ones. */
static void test_random_damage(tu_rng *r, const char *dir)
{
    limb L;
    make_limb(r, &L, 12, 20, 3, 3.0);
    sinew_cor_desc d = limb_desc(&L);
    char path[512];
    snprintf(path, sizeof path, "%s/damaged.cor", dir);
    const size_t bytes = sizeof(float) * 3 * L.n;
    float *ref = malloc(bytes), *c = malloc(bytes);
    sinew_bake_cache_report rep;
    sinew_error_info e;
    TU_CHECK_OK(sinew_cor_compute_cached(&d, path, ref, NULL, &rep, &e));
    long size = file_size(path);
    uint8_t *good = malloc((size_t)size + 64), *bad = malloc((size_t)size + 64);
    FILE *f = fopen(path, "rb");
    TU_CHECK(f && fread(good, 1, (size_t)size, f) == (size_t)size);
    if (f) fclose(f);
    uint32_t loaded = 0, refused = 0;
    for (int it = 0; it < 300; it++) {
        long n = size;
        memcpy(bad, good, (size_t)size);
        uint32_t kind = tu_range(r, 4);
        if (kind == 0 || kind == 3) /* change 1..4 bytes (3: in the header) */
            for (uint32_t k = 0, nk = 1 + tu_range(r, 4); k < nk; k++) {
                long at = (long)tu_range(r, kind == 3 ? 56u : (uint32_t)size);
                bad[at] = (uint8_t)(bad[at] ^ (1 + tu_range(r, 255)));
            }
        else if (kind == 1) n = (long)tu_range(r, (uint32_t)size); /* cut */
        else { /* add 1..64 bytes */
            uint32_t add = 1 + tu_range(r, 64);
            for (uint32_t k = 0; k < add; k++) bad[n + k] = (uint8_t)tu_range(r, 256);
            n += add;
        }
        f = fopen(path, "wb");
        TU_CHECK(f && fwrite(bad, 1, (size_t)n, f) == (size_t)n);
        if (f) fclose(f);
        memset(c, 0, bytes);
        TU_CHECK_OK(sinew_cor_compute_cached(&d, path, c, NULL, &rep, &e));
        TU_CHECK(memcmp(c, ref, bytes) == 0);
        loaded += rep.loaded;
        refused += rep.refused;
        TU_CHECK_MSG(!rep.loaded || (n == size && memcmp(bad, good, (size_t)size) == 0),
                     "damage %d (kind %u) loaded", it, kind);
    }
    fprintf(stderr, "random damage: 300 files, %u refused, %u loaded (undamaged)\n", refused, loaded);
    TU_CHECK(refused + loaded == 300 && refused >= 290);
    remove(path);
    free(good); free(bad); free(ref); free(c);
    free_limb(&L);
}

static void test_paths(void)
{
    char out[64];
    TU_CHECK_OK(sinew_bake_cache_path("models/a.glb", NULL, "cor", out, sizeof out));
    TU_CHECK(!strcmp(out, "models/a.glb.cor"));
    TU_CHECK_OK(sinew_bake_cache_path("models/a.glb", "", "cor", out, sizeof out));
    TU_CHECK(!strcmp(out, "models/a.glb.cor"));
    TU_CHECK_OK(sinew_bake_cache_path("models/a.glb", "/tmp/c", "weights", out, sizeof out));
    TU_CHECK(!strcmp(out, "/tmp/c/a.glb.weights"));
    TU_CHECK_OK(sinew_bake_cache_path("a.glb", "/tmp/c/", "cor", out, sizeof out));
    TU_CHECK(!strcmp(out, "/tmp/c/a.glb.cor"));
    TU_CHECK_RESULT(sinew_bake_cache_path("a.glb", NULL, "cor", out, 9), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK(out[0] == 0);
    TU_CHECK_OK(sinew_bake_cache_path("a.glb", NULL, "cor", out, 10));
    TU_CHECK_RESULT(sinew_bake_cache_path("", NULL, "cor", out, sizeof out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_bake_cache_path(NULL, NULL, "cor", out, sizeof out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_bake_cache_path("a", NULL, NULL, out, sizeof out), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_bake_cache_path("a", NULL, "cor", NULL, sizeof out), SINEW_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xCAC4E);
    char dir[] = "/tmp/sinew_bake_cache_XXXXXX";
    if (!mkdtemp(dir)) { fprintf(stderr, "mkdtemp failed\n"); return 1; }
    test_accelerated_vs_exact(&r);
    test_cancel(&r);
    test_cor_cache(&r, dir);
    test_weights_cache(&r, dir);
    test_random_damage(&r, dir);
    test_paths();
    rmdir(dir);
    return tu_finish("test_bake_cache");
}
