/* Skinned tangent frames (sinew_skinner_desc.tangents, sinew_skinner_mesh_desc
 * .tangents) against the float64 reference (sinew_reference_tangents), and
 * sinew_pack_tangents. Random 32-joint skeleton; meshes: 4 influences with
 * tangents, 8 influences with tangents, 4 influences without (its tangent
 * output must stay poisoned). Frame A (group records): every method x bulge on
 * the two tangent meshes, the mesh without tangents, and LBS characters with a
 * mirroring root (det < 0: the sign flips); frame B (grid mode): 24 characters
 * of one mesh and method. Random poses with non-uniform scale (up to 0.5 of the
 * joints), random tangents and signs; both read paths; float and packed
 * output (packed tangents: one snorm 10:10:10:2 word, w = sign). Outputs and
 * tangents poisoned (NaN bits) before each frame. Validation clean.
 *
 * Tolerances: tangent |gpu - ref| (max over xyz) <= 1e-4 (as normals) with
 * float output, <= 0.5/511 + 2e-5 with packed output (10-bit snorm rounding);
 * sign exactly equal; positions <= 2e-5 x the character's size (E >= 1). */
#include "testutil.h"
#include <sinew/debug.h>
#include <string.h>

#define NJ 32
#define NV 900
#define NANBITS 0x7fc00000u

typedef struct mesh {
    sinew_vertex *v4;
    sinew_vertex8 *v8;
    sinew_tangent *t;
    float *bulge;
    sinew_mesh_id id;
} mesh;

static tu_rng rng;
static sinew_skeleton *skel;
static mesh M[3];
static uint32_t nbad;
static double worst_t, worst_p, worst_tp;
static int packed; /* the skinner under test has packed output */

/* What a poisoned tangent reads back as: NaN floats, or with packed output the
 * poison word decoded as A2B10G10R10_SNORM_PACK32 (Vulkan's snorm rule). */
static float poison_read(int a)
{
    if (!packed) return NAN;
    int32_t q = a < 3 ? (int32_t)(NANBITS << (22 - 10 * a)) >> 22 : (int32_t)NANBITS >> 30;
    float f = a < 3 ? (float)q / 511.0f : (float)q;
    return f < -1.0f ? -1.0f : f;
}

static void make_v8(sinew_vertex8 *out)
{
    float *pos = malloc(12 * NV), *nrm = malloc(12 * NV), *we = malloc(4 * 8 * NV);
    uint32_t *jo = malloc(4 * 8 * NV), off[NV + 1], e = 0;
    for (uint32_t i = 0; i < NV; i++) {
        uint32_t home = tu_range(&rng, NJ);
        const sinew_mat4 *b = sinew_skeleton_bind_global(skel, home);
        sinew_vec3 d = tu_random_unit(&rng), nn = tu_random_unit(&rng);
        double len = tu_uniform(&rng, 0, 0.3);
        pos[3 * i] = (float)(b->m[3][0] + d.x * len);
        pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
        pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
        nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        off[i] = e;
        jo[e] = home;
        we[e++] = 1.0f;
        uint32_t cnt = 4 + tu_range(&rng, 5);
        for (uint32_t k = 1; k < cnt; k++) {
            jo[e] = tu_range(&rng, NJ);
            we[e++] = (float)tu_uniform(&rng, 0.01, 0.12);
        }
    }
    off[NV] = e;
    sinew_influences inf = { off, 0, jo, we };
    TU_CHECK_OK(sinew_pack_vertices8(NV, pos, nrm, &inf, NJ, out, NULL, NULL));
    free(pos); free(nrm); free(we); free(jo);
}

/* Random tangents (random lengths, 1% zero) and signs, packed; pack errors checked. */
static void make_tangents(sinew_tangent *out)
{
    float *t4 = malloc(sizeof(float) * 4 * NV);
    for (uint32_t i = 0; i < NV; i++) {
        sinew_vec3 d = tu_random_unit(&rng);
        double len = tu_range(&rng, 100) == 0 ? 0.0 : tu_uniform(&rng, 1e-3, 10.0);
        t4[4 * i] = (float)(d.x * len); t4[4 * i + 1] = (float)(d.y * len); t4[4 * i + 2] = (float)(d.z * len);
        t4[4 * i + 3] = tu_range(&rng, 2) ? 1.0f : -0.5f; /* w < 0 -> -1 */
    }
    TU_CHECK_OK(sinew_pack_tangents(NV, t4, out, NULL));
    for (uint32_t i = 0; i < NV; i++) TU_CHECK(out[i].sign == (t4[4 * i + 3] < 0 ? -1.0f : 1.0f));
    uint32_t bad = 0;
    t4[4 * 17 + 1] = NAN;
    TU_CHECK(sinew_pack_tangents(NV, t4, out + NV, &bad) == SINEW_ERROR_NON_FINITE && bad == 17);
    TU_CHECK(sinew_pack_tangents(0, t4, out, NULL) == SINEW_ERROR_EMPTY);
    TU_CHECK(sinew_pack_tangents(NV, NULL, out, NULL) == SINEW_ERROR_INVALID_ARGUMENT);
    free(t4);
}

typedef struct character {
    uint32_t mesh;
    sinew_method method;
    uint32_t flags;
    int mirror;
    sinew_palette_joint pal[NJ];
} character;

static void pose_character(character *c)
{
    sinew_transform local[NJ];
    memcpy(local, sinew_skeleton_rest_pose(skel), sizeof local);
    tu_random_pose(&rng, NJ, local, 1.0, c->method == SINEW_METHOD_DQS ? 0.0 : 0.5);
    sinew_transform rt = { tu_random_vec3(&rng, -10, 10), tu_random_quat(&rng), sinew_v3(1, 1, 1) };
    sinew_mat4 root = sinew_mat4_from_transform(&rt);
    if (c->mirror)
        for (int r = 0; r < 4; r++) root.m[0][r] = -root.m[0][r]; /* x column negated: det < 0 */
    static sinew_mat4 *scratch;
    if (!scratch) scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(NJ));
    TU_CHECK_OK(sinew_palette_build(skel, c->method, local, &root, scratch, c->pal));
}

static void check(sinew_skinner *sk, const character *cs, uint32_t n, const uint32_t *out_off, const char *what)
{
    float *gt = malloc(sizeof(float) * 4 * NV), *gp = malloc(sizeof(float) * 3 * NV);
    double *rt = malloc(sizeof(double) * 4 * NV), *rp = malloc(sizeof(double) * 3 * NV);
    for (uint32_t c = 0; c < n; c++) {
        const character *ch = &cs[c];
        const mesh *m = &M[ch->mesh];
        TU_CHECK_OK(sinew_skinner_read_tangents(sk, out_off[c], NV, gt));
        TU_CHECK_OK(sinew_skinner_read_output(sk, out_off[c], NV, gp, NULL));
        if (!m->t) { /* no tangents: its tangent output untouched */
            uint32_t kept = 0;
            for (uint32_t i = 0; i < 4 * NV; i++)
                kept += packed ? gt[i] == poison_read((int)(i & 3u)) : gt[i] != gt[i];
            TU_CHECK_MSG(kept == 4 * NV, "%s: tangent output of a mesh without tangents was written", what);
            continue;
        }
        TU_CHECK_OK(sinew_reference_tangents(NV, m->v4, m->v8, m->t, ch->pal, NJ, ch->method, rt));
        if (m->v8) TU_CHECK_OK(sinew_reference_skin8(NV, m->v8, m->bulge, ch->pal, NJ, ch->method, ch->flags, rp, NULL));
        else TU_CHECK_OK(sinew_reference_skin(NV, m->v4, m->bulge, ch->pal, NJ, ch->method, ch->flags, rp, NULL));
        double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
        for (uint32_t v = 0; v < NV; v++)
            for (int a = 0; a < 3; a++) {
                if (rp[3 * v + a] < lo[a]) lo[a] = rp[3 * v + a];
                if (rp[3 * v + a] > hi[a]) hi[a] = rp[3 * v + a];
            }
        double E = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
        if (E < 1) E = 1;
        uint32_t flips = 0;
        for (uint32_t v = 0; v < NV; v++) {
            double et = 0, ep = 0;
            for (int a = 0; a < 3; a++) {
                double d = fabs((double)gt[4 * v + a] - rt[4 * v + a]);
                if (!(d <= et)) et = d == d ? d : INFINITY;
                d = fabs((double)gp[3 * v + a] - rp[3 * v + a]);
                if (!(d <= ep)) ep = d == d ? d : INFINITY;
            }
            double tol_t = packed ? 0.5 / 511.0 + 2e-5 : 1e-4;
            if (packed && et > worst_tp) worst_tp = et;
            if (!packed && et > worst_t) worst_t = et;
            if (ep / E > worst_p) worst_p = ep / E;
            flips += rt[4 * v + 3] != (double)m->t[v].sign;
            if ((!(et <= tol_t) || (double)gt[4 * v + 3] != rt[4 * v + 3] || !(ep <= 2e-5 * E)) && nbad++ < 5)
                TU_CHECK_MSG(0, "%s%s char %u (%s%s, %s, mesh %u) vertex %u: tangent err %.3g, sign %g vs %g, pos err %.3g (E %.3g)",
                             packed ? "packed, " : "", what, c, sinew_method_name(ch->method), ch->flags ? "+bulge" : "", ch->mirror ? "mirrored" : "proper",
                             ch->mesh, v, et, gt[4 * v + 3], rt[4 * v + 3], ep, E);
        }
        /* mirrored root: most blended 3x3 have det < 0 (a blend of several can
         * have det > 0 under non-uniform scale), so most signs flip */
        if (ch->mirror) TU_CHECK_MSG(flips > NV * 9 / 10, "%s: mirrored character, %u of %u signs flipped", what, flips, NV);
        else if (ch->method == SINEW_METHOD_DQS) TU_CHECK(flips == 0);
    }
    free(gt); free(gp); free(rt); free(rp);
}

static void run_frame(sinew_skinner *sk, character *cs, uint32_t n, const char *what)
{
    uint32_t out_off[64], total = n * NV;
    sinew_instance inst[64];
    sinew_frame fr;
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total, NANBITS));
    TU_CHECK_OK(sinew_debug_poison_tangents(sk, 0, total, NANBITS));
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    uint32_t pal = 0;
    for (uint32_t c = 0; c < n; c++) {
        pose_character(&cs[c]);
        uint32_t stride = sinew_palette_gpu_stride(cs[c].method, cs[c].flags);
        TU_CHECK_OK(sinew_palette_pack(cs[c].method, cs[c].flags, cs[c].pal, NJ, fr.palette + (size_t)pal * 4));
        out_off[c] = c * NV;
        sinew_instance in = { M[cs[c].mesh].id, cs[c].method, cs[c].flags, pal, out_off[c], false };
        inst[c] = in;
        pal += NJ * stride;
    }
    TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, n, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    check(sk, cs, n, out_off, what);
}

int main(void)
{
    rng = tu_rng_seeded(0x7A9Eull);
    sinew_gpu *gpu = NULL;
    sinew_gpu_desc gd = {0};
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_tangents");
    TU_CHECK_OK(tu_make_random_skeleton(&rng, NJ, NULL, &skel));
    if (!skel) return tu_finish("test_gpu_tangents");
    for (int m = 0; m < 3; m++) {
        M[m].bulge = malloc(sizeof(float) * NV);
        if (m == 1) {
            M[m].v8 = malloc(sizeof(sinew_vertex8) * NV);
            make_v8(M[m].v8);
            TU_CHECK_OK(sinew_bulge_rest_distances8(skel, NV, M[m].v8, M[m].bulge));
        } else {
            M[m].v4 = malloc(sizeof(sinew_vertex) * NV);
            TU_CHECK_OK(tu_make_random_mesh(&rng, skel, NV, 0.3, M[m].v4, M[m].bulge));
        }
        if (m < 2) {
            M[m].t = malloc(sizeof(sinew_tangent) * 2 * NV);
            make_tangents(M[m].t);
        }
    }

    /* Misuse: tangents on a skinner made without them; bad signs. */
    sinew_skinner_desc sd = {0};
    sd.max_output_vertices = 64 * NV;
    sd.max_palette_vec4 = 64 * NJ * TU_PAL_MAX_STRIDE;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_skinner_mesh_desc md = { M[0].v4, NV, NJ, M[0].bulge, NULL, M[0].t };
    sinew_mesh_id id;
    float t4[4];
    sinew_output_binding b;
    TU_CHECK(sinew_skinner_add_mesh(sk, &md, &id, NULL) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_skinner_read_tangents(sk, 0, 1, t4) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_skinner_tangent_binding(sk, &b) == SINEW_ERROR_INVALID_ARGUMENT);
    sinew_skinner_destroy(sk);
    sd.tangents = true;
    for (packed = 0; packed < 2; packed++) {
        sd.output_format = packed ? SINEW_OUTPUT_PACKED : SINEW_OUTPUT_FLOAT;
        TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
        if (!sk) return tu_finish("test_gpu_tangents");
        M[0].t[5].sign = 0.5f;
        TU_CHECK(sinew_skinner_add_mesh(sk, &md, &id, NULL) == SINEW_ERROR_INVALID_ARGUMENT);
        M[0].t[5].sign = 1.0f;
        TU_CHECK_OK(sinew_skinner_tangent_binding(sk, &b));
        if (packed) TU_CHECK(b.stride == 4 && b.position_format == VK_FORMAT_A2B10G10R10_SNORM_PACK32);
        else TU_CHECK(b.stride == 16 && b.position_format == VK_FORMAT_R32G32B32A32_SFLOAT);
        for (int m = 0; m < 3; m++) {
            sinew_skinner_mesh_desc d = { M[m].v4, NV, NJ, M[m].bulge, M[m].v8, M[m].t };
            TU_CHECK_OK(sinew_skinner_add_mesh(sk, &d, &M[m].id, NULL));
        }

        static character cs[64];
        for (int path = SINEW_READ_STORAGE; path <= SINEW_READ_TEXEL; path++) {
            TU_CHECK_OK(sinew_skinner_set_read_path(sk, (sinew_read_path)path));
            const char *pn = path == SINEW_READ_TEXEL ? "texel" : "storage";
            /* Frame A: mixed (records). */
            uint32_t n = 0;
            for (uint32_t mesh = 0; mesh < 2; mesh++)
                for (int m = 0; m < TU_PLAIN_METHODS; m++)
                    for (int bl = 0; bl < 2; bl++) {
                        character c = { mesh, (sinew_method)m, bl ? SINEW_SKIN_BULGE_CORRECTION : 0u, 0 };
                        cs[n++] = c;
                    }
            for (uint32_t k = 0; k < 4; k++) {
                character c = { k < 2 ? 2u : k - 2u, SINEW_METHOD_LBS, 0, k >= 2 };
                cs[n++] = c;
            }
            char what[64];
            snprintf(what, sizeof what, "%s, mixed", pn);
            run_frame(sk, cs, n, what);
            /* Frame B: one mesh and method (grid). */
            for (int m = 0; m < TU_PLAIN_METHODS; m += 2) {
                for (uint32_t c = 0; c < 24; c++) {
                    character ch = { 0, (sinew_method)m, 0, 0 };
                    cs[c] = ch;
                }
                snprintf(what, sizeof what, "%s, grid %s", pn, sinew_method_name((sinew_method)m));
                run_frame(sk, cs, 24, what);
            }
        }
        uint32_t grid = 0;
        sinew_debug_dispatch_count(sk, &grid);
        TU_CHECK(grid == 1); /* the last frame ran in grid mode */
        sinew_skinner_destroy(sk);
        sk = NULL;
    }
    fprintf(stderr, "worst tangent error %.3g (packed output %.3g), worst position error %.3g x E\n", worst_t, worst_tp,
            worst_p);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    for (int m = 0; m < 3; m++) { free(M[m].v4); free(M[m].v8); free(M[m].t); free(M[m].bulge); }
    sinew_skeleton_destroy(skel);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_tangents");
}
