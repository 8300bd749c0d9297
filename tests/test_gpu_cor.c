/* CoR skinning on the GPU (SINEW_METHOD_COR, SINEW_METHOD_COR_SCALE and its local /
 * mixed scale modes COR_SCALE_LOCAL, COR_SCALE_MIXED on skeletons with random
 * scale_propagates flags) against the
 * float64 reference (sinew_reference_skin_cor, sinew_reference_tangents), in the
 * paths the other methods have:
 *  - skinner, mixed scene in ONE frame: 6 random skeletons (1..256 joints), meshes
 *    with 4 influences (1, 5, 64, 256 joints) and 8 influences (16, 200 joints),
 *    random centers near the vertices, tangents; every mesh x {COR, COR_SCALE, _LOCAL, _MIXED} x
 *    bulge on/off, plus LBS / DQS / DQS_SCALE characters sharing the dispatch; random
 *    poses with rotations up to 1.2 pi, non-uniform scales for COR_SCALE (and rigid
 *    poses for COR), random root placement; two frames (both ring slots), with
 *    previous positions kept (frame 1's previous == frame 0's output, bit for bit);
 *  - read paths (storage, texel), packed output with a forced 2D grid, group records
 *    at workgroup 128, and a grid-mode scene (one mesh, evenly spaced);
 *  - a tube with centers from sinew_cor_compute (the real use);
 *  - the crowd (palettes built by the crowd's float32 path) for the four CoR methods;
 *  - misuse: CoR on a mesh without centers, centers on a skinner without
 *    cor_centers, non-finite centers, the baseline kernel. Validation clean.
 * Outputs NaN-poisoned before frame 0 (frame 1 must find them as its previous
 * positions), previous positions and tangents before each frame; a poisoned gap
 * after each character must stay unwritten.
 * Tolerances (as test_gpu_skin / test_gpu_tangents), E = the character's reference
 * bounding-box diagonal (at least 1): position <= 2e-5 E; normal and tangent <= 1e-4
 * (float output) or 4e-3 (packed output: 10:10:10:2 normals and tangents), for COR_SCALE times the condition number
 * (with bulge correction, normals also + 8 x their measured sensitivity, tu_bulge_sensitivity)
 * k = ||A||^2 / |cof(A) n| of the scale stage's blended matrix (skipped above 100,
 * counted); tangent sign exact. Crowd: position <= 1e-4 E (float32 palettes). */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>
#include <string.h>

#define N_MESH 6
#define GAP 3
#define NANBITS 0x7fc00000u

static const uint32_t joint_counts[N_MESH] = { 1, 5, 64, 256, 16, 200 };
static const int eight[N_MESH] = { 0, 0, 0, 0, 1, 1 };

typedef struct mesh_data {
    sinew_skeleton *skel;
    uint32_t jc, n;
    sinew_vertex *v;
    sinew_vertex8 *v8;
    float *bulge, *centers;
    sinew_tangent *tan;
} mesh_data;

typedef struct character {
    uint32_t mesh;
    sinew_method method;
    uint32_t flags;
    uint32_t out_offset, pal_offset;
    sinew_palette_joint *pal[2];
    double *ref_pos[2], *ref_nrm[2], *ref_tan[2], *cond[2], *sens[2];
    double extent[2];
} character;

static tu_rng rng;

static sinew_result make_skeleton(uint32_t jc, sinew_skeleton **out)
{
    int32_t parents[256];
    sinew_transform rest[256];
    bool prop[256];
    tu_random_forest(&rng, jc, parents);
    tu_random_bind(&rng, jc, parents, rest);
    for (uint32_t j = 0; j < jc; j++) prop[j] = tu_range(&rng, 2) != 0; /* for COR_SCALE_MIXED */
    sinew_skeleton_desc d = { 0 };
    d.joint_count = jc;
    d.parents = parents;
    d.rest_local = rest;
    d.scale_propagates = prop;
    return sinew_skeleton_create(&d, out);
}

static void make_mesh(mesh_data *md, uint32_t jc, int k8)
{
    md->jc = jc;
    md->n = 1200 + tu_range(&rng, 64);
    TU_CHECK_OK(make_skeleton(jc, &md->skel));
    md->bulge = malloc(sizeof(float) * md->n);
    md->centers = malloc(sizeof(float) * 3 * md->n);
    md->tan = malloc(sizeof(sinew_tangent) * md->n);
    md->v = NULL;
    md->v8 = NULL;
    if (!k8) {
        md->v = malloc(sizeof(sinew_vertex) * md->n);
        TU_CHECK_OK(tu_make_random_mesh(&rng, md->skel, md->n, 0.5, md->v, md->bulge));
    } else {
        uint32_t n = md->n, e = 0, *jo = malloc(4 * 8 * n), *off = malloc(4 * (n + 1));
        float *pos = malloc(12 * n), *nrm = malloc(12 * n), *we = malloc(4 * 8 * n);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t home = tu_range(&rng, jc);
            const sinew_mat4 *b = sinew_skeleton_bind_global(md->skel, home);
            sinew_vec3 d = tu_random_unit(&rng), nn = tu_random_unit(&rng);
            double len = tu_uniform(&rng, 0, 0.5);
            pos[3 * i] = (float)(b->m[3][0] + d.x * len);
            pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
            pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
            nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
            off[i] = e;
            jo[e] = home;
            we[e++] = 1.0f;
            uint32_t cnt = 1 + tu_range(&rng, 8);
            for (uint32_t k = 1; k < cnt; k++) {
                jo[e] = tu_range(&rng, jc);
                we[e++] = (float)tu_uniform(&rng, 0.01, 0.12);
            }
        }
        off[n] = e;
        sinew_influences inf = { off, 0, jo, we };
        md->v8 = malloc(sizeof(sinew_vertex8) * n);
        TU_CHECK_OK(sinew_pack_vertices8(n, pos, nrm, &inf, jc, md->v8, NULL, NULL));
        TU_CHECK_OK(sinew_bulge_rest_distances8(md->skel, n, md->v8, md->bulge));
        free(jo); free(off); free(pos); free(nrm); free(we);
    }
    /* centers: near the vertex (within the part's size), as real centers are */
    for (uint32_t i = 0; i < md->n; i++) {
        const float *p = md->v ? md->v[i].position : md->v8[i].position;
        sinew_vec3 o = tu_random_vec3(&rng, -0.6, 0.6);
        md->centers[3 * i] = (float)(p[0] + o.x);
        md->centers[3 * i + 1] = (float)(p[1] + o.y);
        md->centers[3 * i + 2] = (float)(p[2] + o.z);
        md->tan[i].tangent_oct = sinew_oct_encode(tu_random_unit(&rng));
        md->tan[i].sign = tu_range(&rng, 2) ? 1.0f : -1.0f;
    }
}

static double normal_condition(const sinew_palette_joint *pal, const uint16_t *joints, const uint16_t *weights, int K,
                               uint32_t noct)
{
    double a[3][3] = { { 0 } };
    for (int k = 0; k < K; k++) {
        double w = weights[k] / 65535.0;
        for (int c = 0; c < 3; c++)
            for (int rr = 0; rr < 3; rr++) a[c][rr] += w * pal[joints[k]].scale.m[c][rr];
    }
    sinew_mat3 A;
    double f2 = 0;
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 3; rr++) { A.m[c][rr] = a[c][rr]; f2 += a[c][rr] * a[c][rr]; }
    sinew_mat3 C = sinew_mat3_cofactor(&A);
    double l = sinew_v3_length(sinew_mat3_mul_v3(&C, sinew_oct_decode(noct)));
    return l > 0 ? f2 / l : 1e30;
}

static void make_reference(character *c, const mesh_data *md, int f, sinew_mat4 *scratch)
{
    sinew_transform local[256];
    memcpy(local, sinew_skeleton_rest_pose(md->skel), sizeof(sinew_transform) * md->jc);
    int rigid = c->method == SINEW_METHOD_COR || c->method == SINEW_METHOD_DQS;
    tu_random_pose(&rng, md->jc, local, 1.2 * M_PI, rigid ? 0.0 : 0.2);
    sinew_transform root_t = { tu_random_vec3(&rng, -2, 2), tu_random_quat(&rng), { 1, 1, 1 } };
    sinew_mat4 root = sinew_mat4_from_transform(&root_t);
    uint32_t n = md->n;
    c->pal[f] = malloc(sizeof(sinew_palette_joint) * md->jc);
    TU_CHECK_OK(sinew_palette_build(md->skel, c->method, local, &root, scratch, c->pal[f]));
    c->ref_pos[f] = malloc(sizeof(double) * 3 * n);
    c->ref_nrm[f] = malloc(sizeof(double) * 3 * n);
    c->ref_tan[f] = malloc(sizeof(double) * 4 * n);
    c->cond[f] = malloc(sizeof(double) * n);
    TU_CHECK_OK(sinew_reference_skin_cor(n, md->v, md->v8, md->centers, md->bulge, c->pal[f], md->jc, c->method,
                                         c->flags, c->ref_pos[f], c->ref_nrm[f]));
    TU_CHECK_OK(sinew_reference_tangents(n, md->v, md->v8, md->tan, c->pal[f], md->jc, c->method, c->ref_tan[f]));
    c->sens[f] = calloc(n, sizeof(double));
    if (c->flags)   /* bulge: the corrected normal's measured sensitivity (tu_bulge_sensitivity) */
        TU_CHECK_OK(tu_bulge_sensitivity(&rng, n, md->v, md->v8, NULL, NULL, md->centers, md->bulge, c->pal[f], md->jc,
                                         c->method, c->flags, c->ref_nrm[f], c->sens[f]));
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) {
            double x = c->ref_pos[f][3 * v + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
        int scaled = (sinew_method_uses_centers(c->method) && c->method != SINEW_METHOD_COR) ||
                     c->method == SINEW_METHOD_DQS_SCALE;
        c->cond[f][v] = 1.0;
        if (scaled || c->method == SINEW_METHOD_LBS) {
            /* the LBS stage: skin rows for LBS, scale rows otherwise (scale = skin-like for LBS: use skin) */
            if (c->method == SINEW_METHOD_LBS) {
                for (uint32_t j = 0; j < md->jc; j++) c->pal[f][j].scale = c->pal[f][j].skin; /* reuse the helper */
            }
            c->cond[f][v] = md->v ? normal_condition(c->pal[f], md->v[v].joints, md->v[v].weights, 4, md->v[v].normal_oct)
                                  : normal_condition(c->pal[f], md->v8[v].joints, md->v8[v].weights, 8, md->v8[v].normal_oct);
        }
    }
    double e = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    c->extent[f] = e > 1 ? e : 1;
}

static const sinew_method extra_methods[3] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
static const sinew_method cor_methods[4] = { SINEW_METHOD_COR, SINEW_METHOD_COR_SCALE, SINEW_METHOD_COR_SCALE_LOCAL,
                                             SINEW_METHOD_COR_SCALE_MIXED };

/* Mixed scene: every mesh x the 4 CoR methods x bulge, then 3 extra characters of
 * the other methods; grid scene: 24 characters on mesh 2, grouped by variant. */
static uint32_t make_characters(const mesh_data *meshes, character *ch, uint32_t nch, int grid, uint32_t *pal_slots)
{
    uint32_t out = 0, pal = 0;
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(256));
    for (uint32_t ci = 0; ci < nch; ci++) {
        character *c = &ch[ci];
        memset(c, 0, sizeof *c);
        if (!grid) {
            if (ci < N_MESH * 8) {
                c->mesh = ci % N_MESH;
                c->method = cor_methods[(ci / N_MESH) % 4];
                c->flags = ci / (4 * N_MESH) ? SINEW_SKIN_BULGE_CORRECTION : 0;
                if (c->flags && ci % 2) c->flags |= SINEW_SKIN_BULGE_INNER;
            } else {
                c->mesh = (ci * 5) % N_MESH;
                c->method = extra_methods[ci % 3];
            }
        } else {
            c->mesh = 2;
            c->method = cor_methods[(ci / 3) % 4];
            c->flags = ci / 12 ? SINEW_SKIN_BULGE_CORRECTION : 0;
        }
        const mesh_data *md = &meshes[c->mesh];
        c->out_offset = out;
        c->pal_offset = pal + (grid ? 2 : tu_range(&rng, 3));
        out += md->n + GAP;
        pal = c->pal_offset + md->jc * sinew_palette_gpu_stride(c->method, c->flags);
        for (int f = 0; f < 2; f++) make_reference(c, md, f, scratch);
    }
    free(scratch);
    *pal_slots = pal;
    return out;
}

typedef struct config {
    const char *label;
    sinew_output_format fmt;
    sinew_read_path path;
    uint32_t max_grid_x;
    sinew_debug_kernel kernel;
    uint32_t wg;
} config;

static void run_config(sinew_gpu *gpu, const config *cf, mesh_data *meshes, character *ch, uint32_t nch,
                       uint32_t total_rest, uint32_t total_out, uint32_t total_pal, int grid)
{
    int before = tu_failures;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = total_rest;
    sd.max_meshes = N_MESH;
    sd.max_instances = nch;
    sd.max_output_vertices = total_out;
    sd.max_palette_vec4 = total_pal;
    sd.frames_in_flight = 2;
    sd.output_format = cf->fmt;
    sd.read_path = cf->path;
    sd.keep_previous = true;
    sd.tangents = true;
    sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    TU_CHECK_OK(sinew_debug_set_max_grid_x(sk, cf->max_grid_x));
    TU_CHECK_OK(sinew_debug_set_kernel(sk, cf->kernel));
    TU_CHECK_OK(sinew_debug_set_workgroup_size(sk, cf->wg));
    sinew_mesh_id ids[N_MESH];
    for (int m = 0; m < N_MESH; m++) {
        sinew_skinner_mesh_desc md = { meshes[m].v, meshes[m].n, meshes[m].jc, meshes[m].bulge };
        md.vertices8 = meshes[m].v8;
        md.tangents = meshes[m].tan;
        md.cor_centers = meshes[m].centers;
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &ids[m], NULL));
    }
    float *pos = malloc(12 * (size_t)total_out), *nrm = malloc(12 * (size_t)total_out);
    float *tan = malloc(16 * (size_t)total_out), *prev = malloc(12 * (size_t)total_out);
    float *last = malloc(12 * (size_t)total_out);
    sinew_instance *inst = malloc(sizeof(sinew_instance) * nch);
    double ntol = cf->fmt == SINEW_OUTPUT_PACKED ? 4e-3 : 1e-4;
    double worst_p = 0, worst_n = 0, worst_t = 0;
    uint32_t ill = 0, nan_count = 0, gap_written = 0, prev_bad = 0;
    for (int f = 0; f < 2; f++) {
        /* frame 1 keeps frame 0's output: its previous positions must be exactly that
         * (and its output is checked against a different pose, so stale values fail) */
        if (f == 0) TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total_out, NANBITS));
        TU_CHECK_OK(sinew_debug_poison_tangents(sk, 0, total_out, NANBITS));
        TU_CHECK_OK(sinew_debug_poison_previous(sk, 0, total_out, NANBITS));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        for (uint32_t i = 0; i < nch; i++) {
            const character *c = &ch[i];
            uint32_t n = c->mesh < N_MESH ? meshes[c->mesh].jc : 0;
            TU_CHECK_OK(sinew_palette_pack(c->method, c->flags, c->pal[f], n, fr.palette + 4 * (size_t)c->pal_offset));
            sinew_instance in = { ids[c->mesh], c->method, c->flags, c->pal_offset, c->out_offset };
            in.reset_previous = f == 0;
            inst[i] = in;
        }
        TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, nch, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        uint32_t g = 0, nd = sinew_debug_dispatch_count(sk, &g);
        if (grid && cf->kernel == SINEW_DEBUG_KERNEL_AUTO)
            TU_CHECK_MSG(g == nd && nd == 4, "%s: %u dispatches, %u in grid mode (want 4, 4)", cf->label, nd, g);
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total_out, pos, nrm));
        TU_CHECK_OK(sinew_skinner_read_tangents(sk, 0, total_out, tan));
        TU_CHECK_OK(sinew_skinner_read_previous(sk, 0, total_out, prev));
        for (uint32_t ci = 0; ci < nch; ci++) {
            const character *c = &ch[ci];
            uint32_t n = meshes[c->mesh].n;
            double ptol = 2e-5 * c->extent[f];
            for (uint32_t v = 0; v < n; v++) {
                size_t o = (size_t)c->out_offset + v;
                double ep = 0, en = 0, et = 0;
                for (int k = 0; k < 3; k++) {
                    double dp = fabs((double)pos[3 * o + k] - c->ref_pos[f][3 * v + k]);
                    double dn = fabs((double)nrm[3 * o + k] - c->ref_nrm[f][3 * v + k]);
                    double dt = fabs((double)tan[4 * o + k] - c->ref_tan[f][4 * v + k]);
                    ep = dp > ep || dp != dp ? (dp == dp ? dp : INFINITY) : ep;
                    en = dn > en || dn != dn ? (dn == dn ? dn : INFINITY) : en;
                    et = dt > et || dt != dt ? (dt == dt ? dt : INFINITY) : et;
                }
                if (isinf(ep) || isinf(en) || isinf(et)) nan_count++;
                double kc = c->cond[f][v];
                if (kc > 100) { ill++; continue; }
                /* packed output packs tangents as 10:10:10:2 like the normals: same tolerance */
                double tn = ntol * (kc > 1 ? kc : 1) + (c->flags ? 8.0 * c->sens[f][v] : 0.0), tt = (cf->fmt == SINEW_OUTPUT_PACKED ? ntol : 1e-4) * (kc > 1 ? kc : 1);
                if (sinew_method_uses_centers(c->method)) {
                    worst_p = ep / c->extent[f] > worst_p ? ep / c->extent[f] : worst_p;
                    worst_n = en > worst_n ? en : worst_n;
                    worst_t = et > worst_t ? et : worst_t;
                }
                int bad = !(ep <= ptol) || !(en <= tn) || !(et <= tt) || tan[4 * o + 3] != (float)c->ref_tan[f][4 * v + 3];
                if (bad) {
                    if (tu_failures - before < 10)
                        TU_CHECK_MSG(0, "%s frame %d char %u (%s%s, %u joints, %s) vertex %u: pos %.3g (tol %.3g) "
                                        "normal %.3g (tol %.3g) tangent %.3g sign %g/%g",
                                     cf->label, f, ci, sinew_method_name(c->method), c->flags ? "+bulge" : "",
                                     meshes[c->mesh].jc, meshes[c->mesh].v8 ? "8 infl" : "4 infl", v, ep, ptol, en, tn,
                                     et, tan[4 * o + 3], c->ref_tan[f][4 * v + 3]);
                    else
                        tu_failures++;
                }
                /* previous: frame 0 reset -> its own position; frame 1 -> frame 0's output */
                const float *want = f == 0 ? &pos[3 * o] : &last[3 * o];
                if (memcmp(&prev[3 * o], want, 12) != 0) prev_bad++;
            }
            for (uint32_t gi = 0; gi < GAP; gi++) {
                size_t o = (size_t)c->out_offset + n + gi;
                if (o < total_out && pos[3 * o] == pos[3 * o]) gap_written++;
            }
        }
        memcpy(last, pos, 12 * (size_t)total_out);
    }
    fprintf(stderr, "%s: %u characters, CoR worst position %.3g x extent, normal %.3g, tangent %.3g; "
                    "ill-conditioned (k > 100, not compared): %u\n", cf->label, nch, worst_p, worst_n, worst_t, ill);
    TU_CHECK_MSG(nan_count == 0, "%s: %u vertices with NaN", cf->label, nan_count);
    TU_CHECK_MSG(gap_written == 0, "%s: %u gap vertices written", cf->label, gap_written);
    TU_CHECK_MSG(prev_bad == 0, "%s: %u previous positions wrong", cf->label, prev_bad);
    free(pos); free(nrm); free(tan); free(prev); free(last); free(inst);
    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
}

/* The real use: a tube (two joints) with centers from sinew_cor_compute, bent and
 * twisted, both CoR methods, against the reference. */
static void test_tube(sinew_gpu *gpu)
{
    enum { R = 32, S = 64, N = R * S };
    static float pos[3 * N], nrm[3 * N], we[2 * N], cen[3 * N], out[3 * N], on[3 * N];
    static uint32_t jo[2 * N], tri[6 * R * (S - 1)];
    static sinew_vertex v[N];
    static double rp[3 * N], rn[3 * N];
    uint32_t nt = tu_cor_tube(R, S, pos, nrm, jo, we, tri);
    int32_t parents[2] = { -1, 0 };
    sinew_transform rest[2] = { { { 0, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } }, { { 2, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } } };
    sinew_skeleton_desc skd = { 0 };
    skd.joint_count = 2; skd.parents = parents; skd.rest_local = rest;
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&skd, &skel));
    sinew_influences inf = { NULL, 2, jo, we };
    TU_CHECK_OK(sinew_pack_vertices(N, pos, nrm, &inf, 2, v, NULL, NULL));
    sinew_cor_desc cd = { 0 };
    cd.vertex_count = N; cd.vertices = v; cd.joint_count = 2; cd.triangle_count = nt; cd.triangles = tri;
    TU_CHECK_OK(sinew_cor_compute(&cd, cen, NULL));
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = N; sd.max_meshes = 1; sd.max_instances = 2; sd.max_output_vertices = 2 * N;
    sd.max_palette_vec4 = 64; sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_skinner_mesh_desc md = { v, N, 2, NULL };
    md.cor_centers = cen;
    sinew_mesh_id id;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
    sinew_transform pose[2];
    memcpy(pose, rest, sizeof rest);
    pose[1].rotation = sinew_quat_mul(sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 1.4),
                                      sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), 2.5));
    pose[1].scale = sinew_v3(1.0, 1.3, 0.8); /* only COR_SCALE sees it */
    sinew_palette_joint pal[2][2];
    sinew_mat4 scratch[8];
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    sinew_instance in[2];
    for (int m = 0; m < 2; m++) {
        sinew_method meth = m ? SINEW_METHOD_COR_SCALE : SINEW_METHOD_COR;
        sinew_transform p2[2];
        memcpy(p2, pose, sizeof p2);
        if (!m) p2[1].scale = sinew_v3(1, 1, 1);
        TU_CHECK_OK(sinew_palette_build(skel, meth, p2, NULL, scratch, pal[m]));
        TU_CHECK_OK(sinew_palette_pack(meth, 0, pal[m], 2, fr.palette + 4 * 16 * m));
        sinew_instance x = { id, meth, 0, 16u * m, (uint32_t)m * N };
        in[m] = x;
    }
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, 2 * N, NANBITS));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, in, 2, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    for (int m = 0; m < 2; m++) {
        sinew_method meth = m ? SINEW_METHOD_COR_SCALE : SINEW_METHOD_COR;
        TU_CHECK_OK(sinew_skinner_read_output(sk, (uint32_t)m * N, N, out, on));
        TU_CHECK_OK(sinew_reference_skin_cor(N, v, NULL, cen, NULL, pal[m], 2, meth, 0, rp, rn));
        double ep = 0, en = 0;
        for (uint32_t i = 0; i < 3 * N; i++) {
            double a = fabs(out[i] - rp[i]), b = fabs(on[i] - rn[i]);
            ep = a > ep || a != a ? (a == a ? a : INFINITY) : ep;
            en = b > en || b != b ? (b == b ? b : INFINITY) : en;
        }
        fprintf(stderr, "tube %s (centers from sinew_cor_compute): max position error %.3g, normal %.3g\n",
                sinew_method_name(meth), ep, en);
        TU_CHECK(ep <= 2e-5 * 5.0 && en <= 1e-4);
    }
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
}

/* The crowd path: one model (mesh 2 with centers), random poses through the
 * crowd's own float32 palettes, both CoR methods, against the reference on the
 * float64 palette of the same pose. */
static sinew_result sample_pose(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                sinew_transform *local)
{
    const sinew_transform *poses = (const sinew_transform *)user;
    (void)time;
    memcpy(local, poses + (size_t)character * sinew_skeleton_joint_count(skel),
           sizeof(sinew_transform) * sinew_skeleton_joint_count(skel));
    return SINEW_OK;
}

static void test_crowd(sinew_gpu *gpu, const mesh_data *md)
{
    enum { NCH = 8 };
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = md->n; sd.max_meshes = 1; sd.max_instances = NCH; sd.max_output_vertices = NCH * md->n;
    sd.max_palette_vec4 = NCH * md->jc * TU_PAL_MAX_STRIDE; sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    sinew_skinner_mesh_desc mdesc = { md->v, md->n, md->jc, md->bulge };
    mdesc.cor_centers = md->centers;
    sinew_mesh_id id;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &mdesc, &id, NULL));
    sinew_crowd_desc cdesc = { 0 };
    cdesc.skinner = sk;
    cdesc.max_characters = NCH;
    cdesc.threads = 2;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cdesc, &crowd, NULL));
    sinew_crowd_model_desc mdl = { 0 };
    mdl.skeleton = md->skel;
    mdl.meshes = &id;
    mdl.mesh_count = 1;
    mdl.vertex_counts = &md->n;
    sinew_model_id model;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &mdl, &model, NULL));
    static sinew_transform poses[NCH * 256];
    sinew_crowd_character chars[NCH];
    memset(chars, 0, sizeof chars);
    for (uint32_t i = 0; i < NCH; i++) {
        sinew_method meth = cor_methods[i % 4];
        memcpy(poses + i * md->jc, sinew_skeleton_rest_pose(md->skel), sizeof(sinew_transform) * md->jc);
        tu_random_pose(&rng, md->jc, poses + i * md->jc, 1.2 * M_PI, meth == SINEW_METHOD_COR ? 0.0 : 0.2);
        chars[i].model = model;
        chars[i].method = meth;
        chars[i].flags = i % 8 >= 4 ? SINEW_SKIN_BULGE_CORRECTION : 0;
        if (i % 8 == 5 || i % 8 == 6) chars[i].flags |= SINEW_SKIN_BULGE_INNER;
        chars[i].sample = sample_pose;
        chars[i].sample_user = poses;
    }
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NCH * md->n, NANBITS));
    sinew_error_info cerr;
    TU_CHECK_OK(sinew_crowd_update(crowd, chars, NCH, NULL, &cerr));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    float *pos = malloc(12 * (size_t)md->n), *nrm = malloc(12 * (size_t)md->n);
    double *rp = malloc(24 * (size_t)md->n), *rn = malloc(24 * (size_t)md->n);
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * md->jc);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(md->jc));
    double worst = 0;
    for (uint32_t i = 0; i < NCH; i++) {
        uint32_t first = 0, count = 0;
        TU_CHECK_OK(sinew_crowd_character_output(crowd, i, 0, &first, &count));
        TU_CHECK_OK(sinew_skinner_read_output(sk, first, count, pos, nrm));
        TU_CHECK_OK(sinew_palette_build(md->skel, chars[i].method, poses + i * md->jc, NULL, scratch, pal));
        TU_CHECK_OK(sinew_reference_skin_cor(md->n, md->v, NULL, md->centers, md->bulge, pal, md->jc, chars[i].method,
                                             chars[i].flags, rp, rn));
        double lo = INFINITY, hi = -INFINITY, e = 0;
        for (uint32_t k = 0; k < 3 * md->n; k++) {
            lo = rp[k] < lo ? rp[k] : lo;
            hi = rp[k] > hi ? rp[k] : hi;
            double d = fabs(pos[k] - rp[k]);
            e = d > e || d != d ? (d == d ? d : INFINITY) : e;
        }
        double E = 1.7320508 * (hi - lo) > 1 ? 1.7320508 * (hi - lo) : 1;
        worst = e / E > worst ? e / E : worst;
        float bmin[3], bmax[3];
        TU_CHECK_RESULT(sinew_crowd_character_bounds(crowd, i, bmin, bmax), SINEW_ERROR_NOT_FOUND);
    }
    fprintf(stderr, "crowd, %u CoR characters (crowd float32 palettes): worst position error %.3g x extent\n", NCH, worst);
    TU_CHECK(worst <= 1e-4);
    free(pos); free(nrm); free(rp); free(rn); free(pal); free(scratch);
    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
}

static void test_misuse(sinew_gpu *gpu, const mesh_data *md)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 2 * md->n; sd.max_meshes = 4; sd.max_instances = 4; sd.max_output_vertices = md->n;
    sd.max_palette_vec4 = md->jc * TU_PAL_MAX_STRIDE;
    sinew_skinner *plain = NULL, *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &plain, NULL));
    sinew_skinner_mesh_desc m = { md->v, md->n, md->jc, md->bulge };
    m.cor_centers = md->centers;
    sinew_mesh_id id;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(plain, &m, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT); /* no cor_centers */
    sd.cor_centers = true;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    float keep = md->centers[7];
    md->centers[7] = NAN;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &m, &id, NULL), SINEW_ERROR_NON_FINITE);
    md->centers[7] = INFINITY;
    TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &m, &id, NULL), SINEW_ERROR_NON_FINITE);
    md->centers[7] = keep;
    sinew_mesh_id with, without;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &m, &with, NULL));
    m.cor_centers = NULL;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &m, &without, NULL));
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    sinew_instance in = { without, SINEW_METHOD_COR, 0, 0, 0 };
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    in.method = SINEW_METHOD_COR_SCALE;
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    in.method = SINEW_METHOD_DQS; /* other methods are fine on it */
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
    in.mesh = with;
    in.method = SINEW_METHOD_COR;
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
    TU_CHECK_OK(sinew_debug_set_kernel(sk, SINEW_DEBUG_KERNEL_BASELINE)); /* no CoR code there */
    sinew_error_info e;
    TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_INSTANCE && e.index == 0 && strstr(e.message, "no centers of rotation") &&
             strstr(e.message, "baseline"));
    TU_CHECK_OK(sinew_debug_set_kernel(sk, SINEW_DEBUG_KERNEL_AUTO));
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
    TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
    sinew_skinner_destroy(sk);
    sinew_skinner_destroy(plain);
}

int main(void)
{
    rng = tu_rng_seeded(0xC0E5C0E5ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_cor");
    fprintf(stderr, "device: %s\n", sinew_gpu_info(gpu)->name);

    mesh_data meshes[N_MESH];
    uint32_t total_rest = 0;
    for (int m = 0; m < N_MESH; m++) {
        make_mesh(&meshes[m], joint_counts[m], eight[m]);
        total_rest += meshes[m].n * (eight[m] ? 2 : 1);
    }
    enum { NCH = N_MESH * 8 + 3, NGRID = 24 };
    static character ch[NCH], gch[NGRID];
    uint32_t pal = 0, gpal = 0;
    uint32_t out = make_characters(meshes, ch, NCH, 0, &pal);
    uint32_t gout = make_characters(meshes, gch, NGRID, 1, &gpal);
    const config cfgs[] = {
        { "float/storage", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "float/texel", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, 0, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "packed/auto/2D grid", SINEW_OUTPUT_PACKED, SINEW_READ_AUTO, 7, SINEW_DEBUG_KERNEL_AUTO, 0 },
        { "float/texel/records wg128", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, 0, SINEW_DEBUG_KERNEL_RECORDS, 128 },
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        run_config(gpu, &cfgs[i], meshes, ch, NCH, total_rest, out, pal, 0);
    const config g = { "grid float/texel", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, 0, SINEW_DEBUG_KERNEL_AUTO, 0 };
    const config g2 = { "grid float/storage wg256", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, 0, SINEW_DEBUG_KERNEL_AUTO, 256 };
    run_config(gpu, &g, meshes, gch, NGRID, total_rest, gout, gpal, 1);
    run_config(gpu, &g2, meshes, gch, NGRID, total_rest, gout, gpal, 1);
    test_tube(gpu);
    test_crowd(gpu, &meshes[2]);
    test_misuse(gpu, &meshes[2]);

    for (uint32_t i = 0; i < NCH + NGRID; i++) {
        character *c = i < NCH ? &ch[i] : &gch[i - NCH];
        for (int f = 0; f < 2; f++) {
            free(c->pal[f]); free(c->ref_pos[f]); free(c->ref_nrm[f]); free(c->ref_tan[f]); free(c->cond[f]); free(c->sens[f]);
        }
    }
    for (int m = 0; m < N_MESH; m++) {
        sinew_skeleton_destroy(meshes[m].skel);
        free(meshes[m].v); free(meshes[m].v8); free(meshes[m].bulge); free(meshes[m].centers); free(meshes[m].tan);
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_cor");
}
