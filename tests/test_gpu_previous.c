/* Previous-frame positions (sinew_skinner_desc.keep_previous) through the
 * crowd, for the float and the packed output formats (the device's read path), and
 * float with storage reads: 12 characters of two
 * models on one random 24-joint skeleton (a 4-influence and an 8-influence
 * mesh), every method, random poses and roots every frame.
 *
 * Frames 0-2: output poisoned with NaN before frame 0, the previous buffer
 * poisoned with NaN before every frame. Frame 0: previous == this frame's
 * output bit for bit (first frame: reset). Frames 1-2: previous == the output
 * read back after the frame before, bit for bit, and the output matches the
 * float64 reference of this frame's pose (so previous matches last frame's
 * reference). Character 7 is hidden in frames 0-1 and shown in frame 2: it
 * owes a reset (its output never held it), previous == output.
 * Frame 3: character 5 removed (characters after it move down), character 2
 * hidden: characters before 5 keep last frame's output as previous; those
 * after it are reset (previous == output); the hidden one keeps output and
 * previous bit for bit. Frame 4: character 2 shown again (previous == its
 * frame-2 output, what it displayed), character 0 teleported with
 * reset_previous (previous == output). Misuse: previous calls without
 * keep_previous are INVALID_ARGUMENT. Validation clean.
 *
 * Tolerance: position |gpu - ref| (max over xyz) <= 2e-5 * E, E = the
 * character's reference bounding-box diagonal (at least 1). */
#include "testutil.h"
#include <sinew/crowd.h>
#include <sinew/debug.h>
#include <string.h>

#define NCHAR 12
#define NJ 24
#define NV4 1200
#define NV8 700
#define MAXV (NV4 > NV8 ? NV4 : NV8)
#define NANBITS 0x7fc00000u

typedef struct fixture {
    tu_rng rng;
    sinew_gpu *gpu;
    sinew_skeleton *skel;
    sinew_vertex *v4;
    sinew_vertex8 *v8;
    sinew_mesh_id mesh[2];
    sinew_skinner *sk;
    sinew_crowd *crowd;
    sinew_model_id model[2];
    uint32_t model_of[NCHAR]; /* 0: 4 influences, 1: 8 */
    sinew_crowd_character chars[NCHAR];
    sinew_transform poses[NCHAR][NJ];
    sinew_mat4 roots[NCHAR];
    uint32_t total;
    float *out, *prev, *last_out, *last_prev;
    double *ref;
    sinew_palette_joint pal[NJ];
    sinew_mat4 *scratch;
} fixture;

static void make_mesh8(fixture *f)
{
    float *pos = malloc(12 * NV8), *nrm = malloc(12 * NV8), *we = malloc(4 * 8 * NV8);
    uint32_t *jo = malloc(4 * 8 * NV8), off[NV8 + 1];
    uint32_t e = 0;
    for (uint32_t i = 0; i < NV8; i++) {
        uint32_t home = tu_range(&f->rng, NJ);
        const sinew_mat4 *b = sinew_skeleton_bind_global(f->skel, home);
        sinew_vec3 d = tu_random_unit(&f->rng), nn = tu_random_unit(&f->rng);
        double len = tu_uniform(&f->rng, 0, 0.3);
        pos[3 * i] = (float)(b->m[3][0] + d.x * len);
        pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
        pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
        nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        off[i] = e;
        jo[e] = home;
        we[e++] = 1.0f;
        uint32_t cnt = 5 + tu_range(&f->rng, 4);
        for (uint32_t k = 1; k < cnt; k++) {
            jo[e] = tu_range(&f->rng, NJ);
            we[e++] = (float)tu_uniform(&f->rng, 0.01, 0.12);
        }
    }
    off[NV8] = e;
    sinew_influences inf = { off, 0, jo, we };
    f->v8 = malloc(sizeof(sinew_vertex8) * NV8);
    TU_CHECK_OK(sinew_pack_vertices8(NV8, pos, nrm, &inf, NJ, f->v8, NULL, NULL));
    free(pos); free(nrm); free(we); free(jo);
}

static int setup(fixture *f, sinew_output_format fmt, sinew_read_path path)
{
    TU_CHECK_OK(tu_make_random_skeleton(&f->rng, NJ, NULL, &f->skel));
    if (!f->skel) return 0;
    f->v4 = malloc(sizeof(sinew_vertex) * NV4);
    TU_CHECK_OK(tu_make_random_mesh(&f->rng, f->skel, NV4, 0.3, f->v4, NULL));
    make_mesh8(f);
    sinew_skinner_desc sd = {0};
    sd.max_output_vertices = 1u << 16;
    sd.max_palette_vec4 = 1u << 14;
    sd.output_format = fmt;
    sd.keep_previous = true;
    sd.read_path = path;
    TU_CHECK_OK(sinew_skinner_create(f->gpu, &sd, &f->sk, NULL));
    if (!f->sk) return 0;
    sinew_skinner_mesh_desc m4 = { f->v4, NV4, NJ, NULL, NULL };
    sinew_skinner_mesh_desc m8 = { NULL, NV8, NJ, NULL, f->v8 };
    TU_CHECK_OK(sinew_skinner_add_mesh(f->sk, &m4, &f->mesh[0], NULL));
    TU_CHECK_OK(sinew_skinner_add_mesh(f->sk, &m8, &f->mesh[1], NULL));
    sinew_crowd_desc cd = {0};
    cd.skinner = f->sk;
    cd.max_characters = NCHAR;
    cd.max_joints = NJ;
    TU_CHECK_OK(sinew_crowd_create(&cd, &f->crowd, NULL));
    if (!f->crowd) return 0;
    const uint32_t nv[2] = { NV4, NV8 };
    for (int m = 0; m < 2; m++) {
        sinew_crowd_model_desc md = { f->skel, 1, &f->mesh[m], &nv[m] };
        TU_CHECK_OK(sinew_crowd_add_model(f->crowd, &md, &f->model[m], NULL));
    }
    memset(f->chars, 0, sizeof f->chars);
    f->total = 0;
    for (uint32_t i = 0; i < NCHAR; i++) {
        f->model_of[i] = i % 3 == 2 ? 1u : 0u;
        f->chars[i].model = f->model[f->model_of[i]];
        f->chars[i].method = (sinew_method)(i % TU_PLAIN_METHODS);
        f->chars[i].pose = f->poses[i];
        f->chars[i].root = &f->roots[i];
        f->total += nv[f->model_of[i]];
    }
    size_t b = sizeof(float) * 3 * f->total;
    f->out = malloc(b); f->prev = malloc(b); f->last_out = malloc(b); f->last_prev = malloc(b);
    f->ref = malloc(sizeof(double) * 3 * MAXV);
    f->scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(NJ));
    return 1;
}

static void teardown(fixture *f)
{
    sinew_crowd_destroy(f->crowd);
    sinew_skinner_destroy(f->sk);
    sinew_skeleton_destroy(f->skel);
    free(f->v4); free(f->v8); free(f->out); free(f->prev); free(f->last_out); free(f->last_prev);
    free(f->ref); free(f->scratch);
    tu_rng rng = f->rng;
    memset(f, 0, sizeof *f);
    f->rng = rng;
}

static void new_poses(fixture *f)
{
    for (uint32_t i = 0; i < NCHAR; i++) {
        memcpy(f->poses[i], sinew_skeleton_rest_pose(f->skel), sizeof(sinew_transform) * NJ);
        tu_random_pose(&f->rng, NJ, f->poses[i], 0.9, f->chars[i].method == SINEW_METHOD_DQS ? 0.0 : 0.3);
        sinew_transform rt = { tu_random_vec3(&f->rng, -20, 20), tu_random_quat(&f->rng), sinew_v3(1, 1, 1) };
        f->roots[i] = sinew_mat4_from_transform(&rt);
    }
}

/* Runs one crowd frame over chars[0..count) and reads output and previous of
 * the crowd's vertices back. */
static uint32_t run_frame(fixture *f, const sinew_crowd_character *chars, uint32_t count)
{
    sinew_crowd_stats st;
    TU_CHECK_OK(sinew_crowd_update(f->crowd, chars, count, &st, NULL));
    TU_CHECK_OK(sinew_skinner_wait(f->sk));
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t first, c;
        TU_CHECK_OK(sinew_crowd_character_output(f->crowd, i, 0, &first, &c));
        n = first + c;
    }
    TU_CHECK_OK(sinew_skinner_read_output(f->sk, 0, n, f->out, NULL));
    TU_CHECK_OK(sinew_skinner_read_previous(f->sk, 0, n, f->prev));
    return n;
}

/* Character c (chars[idx] of this frame) against the float64 reference;
 * returns the worst relative error. */
static double check_reference(fixture *f, const sinew_crowd_character *c, uint32_t idx, int frame)
{
    uint32_t first, n;
    TU_CHECK_OK(sinew_crowd_character_output(f->crowd, idx, 0, &first, &n));
    TU_CHECK_OK(sinew_palette_build(f->skel, c->method, c->pose, c->root, f->scratch, f->pal));
    if (n == NV8)
        TU_CHECK_OK(sinew_reference_skin8(n, f->v8, NULL, f->pal, NJ, c->method, 0, f->ref, NULL));
    else
        TU_CHECK_OK(sinew_reference_skin(n, f->v4, NULL, f->pal, NJ, c->method, 0, f->ref, NULL));
    double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
    for (uint32_t v = 0; v < n; v++)
        for (int a = 0; a < 3; a++) {
            if (f->ref[3 * v + a] < lo[a]) lo[a] = f->ref[3 * v + a];
            if (f->ref[3 * v + a] > hi[a]) hi[a] = f->ref[3 * v + a];
        }
    double E = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (E < 1) E = 1;
    double worst = 0;
    uint32_t bad = 0;
    for (uint32_t v = 0; v < n; v++) {
        double e = 0;
        for (int a = 0; a < 3; a++) {
            double d = fabs((double)f->out[3 * (size_t)(first + v) + a] - f->ref[3 * v + a]);
            if (!(d <= e)) e = d == d ? d : INFINITY;
        }
        if (e / E > worst) worst = e / E;
        if (!(e <= 2e-5 * E) && bad++ < 3)
            TU_CHECK_MSG(0, "frame %d char %u (%s, %u influences) vertex %u: pos err %.3g (E %.3g)", frame, idx,
                         sinew_method_name(c->method), n == NV8 ? 8u : 4u, v, e, E);
    }
    return worst;
}

/* Output/previous range of character idx this frame. */
static void range_of(fixture *f, uint32_t idx, uint32_t *first, uint32_t *n)
{
    TU_CHECK_OK(sinew_crowd_character_output(f->crowd, idx, 0, first, n));
}

static int same_bits(const float *a, const float *b, uint32_t first, uint32_t n)
{
    return !memcmp(a + 3 * (size_t)first, b + 3 * (size_t)first, sizeof(float) * 3 * n);
}

static void save_last(fixture *f, uint32_t n)
{
    memcpy(f->last_out, f->out, sizeof(float) * 3 * n);
    memcpy(f->last_prev, f->prev, sizeof(float) * 3 * n);
}

static void run_format(fixture *f, sinew_output_format fmt, sinew_read_path path)
{
    if (!setup(f, fmt, path)) return;
    const char *fname = fmt == SINEW_OUTPUT_PACKED ? "packed" : path == SINEW_READ_STORAGE ? "float/storage" : "float";
    TU_CHECK_OK(sinew_debug_poison_output(f->sk, 0, f->total, NANBITS));
    double worst = 0;
    float *out2 = malloc(sizeof(float) * 3 * f->total); /* character 2's frame-2 output */
    uint32_t c2_first = 0, c2_n = 0;

    /* Frames 0-2, all characters but 7 (hidden until frame 2). */
    for (int frame = 0; frame < 3; frame++) {
        new_poses(f);
        f->chars[7].hidden = frame < 2;
        TU_CHECK_OK(sinew_debug_poison_previous(f->sk, 0, f->total, NANBITS));
        uint32_t n = run_frame(f, f->chars, NCHAR);
        TU_CHECK(n == f->total);
        for (uint32_t i = 0; i < NCHAR; i++) {
            uint32_t first, cnt;
            range_of(f, i, &first, &cnt);
            if (f->chars[i].hidden) continue;
            double w = check_reference(f, &f->chars[i], i, frame);
            if (w > worst) worst = w;
            int reset = frame == 0 || i == 7; /* first frame; 7 first skinned in frame 2 */
            TU_CHECK_MSG(same_bits(f->prev, reset ? f->out : f->last_out, first, cnt),
                         "%s frame %d char %u: previous is not %s", fname, frame, i,
                         reset ? "this frame's output (reset)" : "last frame's output");
        }
        if (frame == 2) {
            range_of(f, 2, &c2_first, &c2_n);
            memcpy(out2, f->out, sizeof(float) * 3 * f->total);
        }
        save_last(f, n);
    }

    /* Frame 3: character 5 removed, character 2 hidden. */
    sinew_crowd_character c3[NCHAR - 1];
    uint32_t from3[NCHAR - 1];
    for (uint32_t i = 0, k = 0; i < NCHAR; i++)
        if (i != 5) { from3[k] = i; c3[k++] = f->chars[i]; }
    c3[2].hidden = true;
    new_poses(f);
    uint32_t old_first[NCHAR];
    {
        uint32_t o = 0;
        for (uint32_t i = 0; i < NCHAR; i++) { old_first[i] = o; o += f->model_of[i] ? NV8 : NV4; }
    }
    run_frame(f, c3, NCHAR - 1);
    uint32_t resets = 0;
    for (uint32_t k = 0; k < NCHAR - 1; k++) {
        uint32_t first, cnt;
        range_of(f, k, &first, &cnt);
        if (k == 2) {
            TU_CHECK_MSG(same_bits(f->out, f->last_out, first, cnt) && same_bits(f->prev, f->last_prev, first, cnt),
                         "%s frame 3: hidden character's output or previous changed", fname);
            continue;
        }
        double w = check_reference(f, &c3[k], k, 3);
        if (w > worst) worst = w;
        int moved = old_first[from3[k]] != first || k >= 5;
        resets += moved;
        TU_CHECK_MSG(same_bits(f->prev, moved ? f->out : f->last_out, first, cnt),
                     "%s frame 3 char %u (was %u): previous is not %s", fname, k, from3[k],
                     moved ? "this frame's output (reset)" : "last frame's output");
    }
    TU_CHECK(resets >= 5);
    save_last(f, f->total);

    /* Frame 4: same list, character 2 shown again, character 0 teleported. */
    c3[2].hidden = false;
    c3[0].reset_previous = true;
    new_poses(f);
    TU_CHECK_OK(sinew_debug_poison_previous(f->sk, 0, f->total, NANBITS));
    run_frame(f, c3, NCHAR - 1);
    for (uint32_t k = 0; k < NCHAR - 1; k++) {
        uint32_t first, cnt;
        range_of(f, k, &first, &cnt);
        double w = check_reference(f, &c3[k], k, 4);
        if (w > worst) worst = w;
        if (k == 2) {
            TU_CHECK(first == c2_first && cnt == c2_n);
            TU_CHECK_MSG(same_bits(f->prev, out2, first, cnt), "%s frame 4: shown character's previous is not its frame-2 output", fname);
        } else {
            TU_CHECK_MSG(same_bits(f->prev, k == 0 ? f->out : f->last_out, first, cnt),
                         "%s frame 4 char %u: wrong previous", fname, k);
        }
    }
    fprintf(stderr, "%s: worst position error %.3g x E over 5 frames\n", fname, worst);
    free(out2);
    teardown(f);
}

static void test_misuse(fixture *f)
{
    sinew_skinner *sk = NULL;
    sinew_skinner_desc sd = {0};
    sd.max_output_vertices = 1024;
    TU_CHECK_OK(sinew_skinner_create(f->gpu, &sd, &sk, NULL));
    if (!sk) return;
    float p[3];
    sinew_output_binding b;
    TU_CHECK(sinew_skinner_read_previous(sk, 0, 1, p) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_skinner_previous_binding(sk, &b) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_debug_poison_previous(sk, 0, 1, 0) == SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skinner_destroy(sk);
    sd.keep_previous = true;
    TU_CHECK_OK(sinew_skinner_create(f->gpu, &sd, &sk, NULL));
    if (!sk) return;
    TU_CHECK_OK(sinew_skinner_previous_binding(sk, &b));
    TU_CHECK(b.stride == 16 && b.position_format == VK_FORMAT_R32G32B32_SFLOAT && b.buffer != VK_NULL_HANDLE);
    TU_CHECK(sinew_skinner_read_previous(sk, 1000, 100, p) == SINEW_ERROR_CAPACITY);
    TU_CHECK_OK(sinew_skinner_read_previous(sk, 0, 1, p));
    TU_CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0); /* zeroed at creation */
    sinew_skinner_destroy(sk);
}

int main(void)
{
    static fixture f;
    f.rng = tu_rng_seeded(0x9E5Full);
    sinew_gpu_desc gd = {0};
    TU_CHECK_OK(sinew_gpu_create(&gd, &f.gpu, NULL));
    if (!f.gpu) return tu_finish("test_gpu_previous");
    sinew_gpu *gpu = f.gpu;
    run_format(&f, SINEW_OUTPUT_FLOAT, SINEW_READ_AUTO);
    f.gpu = gpu;
    run_format(&f, SINEW_OUTPUT_PACKED, SINEW_READ_AUTO);
    f.gpu = gpu;
    /* the other read path (the previous position is a texel read on the texel path) */
    run_format(&f, SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE);
    f.gpu = gpu;
    test_misuse(&f);
    if (sinew_debug_validation_enabled(gpu)) TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_previous");
}
