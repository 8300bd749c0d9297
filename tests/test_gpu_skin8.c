/* 8 influences per vertex: packing (sinew_pack_vertices8 keeps the 8 largest),
 * the float64 reference (sinew_reference_skin8 against a direct evaluation and
 * against sinew_reference_skin) and the GPU kernels against the reference.
 *
 * Scene: 4 random forests (3, 16, 64, 200 joints), each with an 8-influence mesh
 * (odd vertex counts; 1..11 raw influences per vertex, so many are pruned to 8)
 * plus one 4-influence mesh uploaded between them (layouts mixed in one rest
 * buffer, 4-influence vertices at odd uvec4 slots), 5 methods x bulge on/off per
 * mesh = 50 characters in one frame, random poses with rotations up to 1.2 pi,
 * non-uniform scale except for plain DQS, NaN-poisoned output with poisoned
 * gaps between characters that must stay untouched. Runs: float/texel,
 * float/storage in forced record mode, packed/texel with workgroups of 256, and
 * a frame of one instance per LBS/DQS variant of one 8-influence mesh (grid
 * mode, checked). Two frames each. Dispatch counts checked: one per variant,
 * grid mode for the variants whose instances share one mesh with evenly spaced
 * palettes and outputs (counted by the test, expected_dispatches); the random
 * palette gaps can make a multi-instance variant evenly spaced (seed 49216), and
 * run_even_spacing pins that case: evenly spaced -> grid, one offset moved by
 * one slot -> group records, outputs checked both ways.
 *
 * Tolerances as test_gpu_skin: position 2e-5 x E (E = extent of the
 * character's reference positions, at least 1); normal 1e-4 (float) or 4e-3
 * (packed) times max(1, k), k = ||A||^2 / |cof(A) n| of the LBS-stage blend,
 * plus, with bulge correction, 8 x the measured sensitivity (tu_bulge_sensitivity). */
#include "testutil.h"
#include <sinew/sinew.h>

#include <string.h>

#define N_MESH 5           /* 4 with 8 influences, mesh 2 with 4 */
#define MESH4 2
#define N_CHAR (N_MESH * TU_PLAIN_METHODS * 2)
#define GAP 3

static const uint32_t joint_counts[N_MESH] = { 3, 16, 40, 64, 200 };

typedef struct mesh_data {
    sinew_skeleton *skel;
    uint32_t jc, n, K;
    sinew_vertex8 *v8;
    sinew_vertex *v4;
    float *bulge;
} mesh_data;

typedef struct character {
    uint32_t mesh;
    sinew_method method;
    uint32_t flags;
    uint32_t out_offset, pal_offset;
    sinew_palette_joint *pal[2];
    double *ref_pos[2], *ref_nrm[2], *cond[2];
    double *sens[2];   /* bulge: measured sensitivity of the reference normal (tu_bulge_sensitivity) */
    double extent[2];
} character;

static const uint16_t *vjoints(const mesh_data *m, uint32_t i) { return m->K == 8 ? m->v8[i].joints : m->v4[i].joints; }
static const uint16_t *vweights(const mesh_data *m, uint32_t i) { return m->K == 8 ? m->v8[i].weights : m->v4[i].weights; }

/* Raw influences: 1..11 per vertex (CSR), random joints (repeats allowed),
 * random weights, the home joint heaviest; packed with 8 or 4 slots. */
static void make_mesh(tu_rng *rng, mesh_data *m, uint32_t K)
{
    m->K = K;
    m->n = 901 + 2 * tu_range(rng, 100); /* odd */
    uint32_t n = m->n;
    float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n);
    uint32_t *off = malloc(sizeof(uint32_t) * (n + 1)), *jo = malloc(sizeof(uint32_t) * 11 * n);
    float *we = malloc(sizeof(float) * 11 * n);
    uint32_t e = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t home = tu_range(rng, m->jc), cnt = 1 + tu_range(rng, 11);
        const sinew_mat4 *b = sinew_skeleton_bind_global(m->skel, home);
        sinew_vec3 d = tu_random_unit(rng), nn = tu_random_unit(rng);
        double len = tu_uniform(rng, 0, 0.5);
        pos[3 * i] = (float)(b->m[3][0] + d.x * len);
        pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
        pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
        nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        off[i] = e;
        jo[e] = home;
        we[e++] = 2.0f;
        for (uint32_t k = 1; k < cnt; k++) {
            jo[e] = tu_range(rng, m->jc);
            we[e++] = (float)tu_uniform(rng, 0.01, 0.19);
        }
    }
    off[n] = e;
    sinew_influences inf = { off, 0, jo, we };
    sinew_pack_stats st;
    if (K == 8) {
        m->v8 = malloc(sizeof(sinew_vertex8) * n);
        TU_CHECK_OK(sinew_pack_vertices8(n, pos, nrm, &inf, m->jc, m->v8, &st, NULL));
        TU_CHECK(m->jc < 9 || st.vertices_pruned > 0);
        /* Pack invariants: sum exactly 65535, sorted, the 8 largest merged weights kept. */
        for (uint32_t i = 0; i < n; i++) {
            const sinew_vertex8 *v = &m->v8[i];
            uint32_t sum = 0;
            for (int k = 0; k < 8; k++) {
                sum += v->weights[k];
                if (k) TU_CHECK(v->weights[k] <= v->weights[k - 1]);
                if (v->weights[k] == 0) TU_CHECK(v->joints[k] == v->joints[0]);
            }
            TU_CHECK(sum == 65535u);
            TU_CHECK(v->joints[0] == jo[off[i]]); /* weight >= 2 against at most 10 x 0.19: the home joint is the largest */
            /* merged raw weight of every dropped joint <= that of every kept one */
            double min_kept = 1e30, max_dropped = 0;
            for (uint32_t a = off[i]; a < off[i + 1]; a++) {
                double tot = 0;
                for (uint32_t b2 = off[i]; b2 < off[i + 1]; b2++) if (jo[b2] == jo[a]) tot += we[b2];
                int kept = 0;
                for (int k = 0; k < 8; k++) if (v->weights[k] && v->joints[k] == jo[a]) kept = 1;
                if (kept && tot < min_kept) min_kept = tot;
                if (!kept && tot > max_dropped) max_dropped = tot;
            }
            TU_CHECK_MSG(max_dropped <= min_kept, "vertex %u: dropped %.6g > kept %.6g", i, max_dropped, min_kept);
        }
    } else {
        m->v4 = malloc(sizeof(sinew_vertex) * n);
        TU_CHECK_OK(sinew_pack_vertices(n, pos, nrm, &inf, m->jc, m->v4, &st, NULL));
    }
    m->bulge = malloc(sizeof(float) * n);
    if (K == 8)
        TU_CHECK_OK(sinew_bulge_rest_distances8(m->skel, n, m->v8, m->bulge));
    else
        TU_CHECK_OK(sinew_bulge_rest_distances(m->skel, n, m->v4, m->bulge));
    free(pos); free(nrm); free(off); free(jo); free(we);
}

static double normal_condition(const sinew_palette_joint *pal, const mesh_data *m, uint32_t i, int use_scale)
{
    double a[3][3] = { { 0 } };
    const uint16_t *j = vjoints(m, i), *w = vweights(m, i);
    for (uint32_t k = 0; k < m->K; k++) {
        const sinew_mat4 *t = use_scale ? &pal[j[k]].scale : &pal[j[k]].skin;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) a[c][r] += w[k] / 65535.0 * t->m[c][r];
    }
    sinew_mat3 A;
    double f2 = 0;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) { A.m[c][r] = a[c][r]; f2 += a[c][r] * a[c][r]; }
    sinew_mat3 C = sinew_mat3_cofactor(&A);
    const uint32_t oct = m->K == 8 ? m->v8[i].normal_oct : m->v4[i].normal_oct;
    double l = sinew_v3_length(sinew_mat3_mul_v3(&C, sinew_oct_decode(oct)));
    return l > 0 ? f2 / l : 1e30;
}

/* The reference for 8 influences against a direct evaluation (LBS: sum_k w_k T_k p)
 * and against sinew_reference_skin on the same vertex written with 4 slots. */
static void check_reference8(const mesh_data *m, const character *c)
{
    if (m->K != 8 || c->method != SINEW_METHOD_LBS || c->flags) return;
    double *p = malloc(sizeof(double) * 3 * m->n);
    TU_CHECK_OK(sinew_reference_skin8(m->n, m->v8, NULL, c->pal[0], m->jc, c->method, 0, p, NULL));
    double worst = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        sinew_vec3 x = { m->v8[i].position[0], m->v8[i].position[1], m->v8[i].position[2] }, s = { 0, 0, 0 };
        for (int k = 0; k < 8; k++) {
            sinew_vec3 t = sinew_mat4_transform_point(&c->pal[0][m->v8[i].joints[k]].skin, x);
            s = sinew_v3_add(s, sinew_v3_scale(t, sinew_vertex8_weight(&m->v8[i], k)));
        }
        double d = fabs(s.x - p[3 * i]) + fabs(s.y - p[3 * i + 1]) + fabs(s.z - p[3 * i + 2]);
        worst = d > worst ? d : worst;
    }
    TU_CHECK_MSG(worst <= 1e-9 * c->extent[0], "reference8 vs direct LBS: %.3g", worst);
    /* vertices with at most 4 influences: identical to the 4-slot reference */
    for (uint32_t i = 0; i < m->n; i++) {
        if (m->v8[i].weights[4]) continue;
        sinew_vertex v4;
        memcpy(v4.position, m->v8[i].position, 12);
        v4.normal_oct = m->v8[i].normal_oct;
        memcpy(v4.joints, m->v8[i].joints, 8);
        memcpy(v4.weights, m->v8[i].weights, 8);
        double a[3], an[3], b[3], bn[3];
        TU_CHECK_OK(sinew_reference_skin8(1, &m->v8[i], NULL, c->pal[0], m->jc, SINEW_METHOD_LBS, 0, a, an));
        TU_CHECK_OK(sinew_reference_skin(1, &v4, NULL, c->pal[0], m->jc, SINEW_METHOD_LBS, 0, b, bn));
        TU_CHECK(!memcmp(a, b, sizeof a) && !memcmp(an, bn, sizeof an));
    }
    free(p);
}

static void make_pose(tu_rng *rng, character *c, const mesh_data *m, int f, sinew_mat4 *scratch)
{
    sinew_transform local[256];
    memcpy(local, sinew_skeleton_rest_pose(m->skel), sizeof(sinew_transform) * m->jc);
    tu_random_pose(rng, m->jc, local, 1.2 * M_PI, c->method == SINEW_METHOD_DQS ? 0.0 : 0.2);
    sinew_transform root_t = { tu_random_vec3(rng, -2, 2), tu_random_quat(rng), { 1, 1, 1 } };
    sinew_mat4 root = sinew_mat4_from_transform(&root_t);
    c->pal[f] = malloc(sizeof(sinew_palette_joint) * m->jc);
    TU_CHECK_OK(sinew_palette_build(m->skel, c->method, local, &root, scratch, c->pal[f]));
    c->ref_pos[f] = malloc(sizeof(double) * 3 * m->n);
    c->ref_nrm[f] = malloc(sizeof(double) * 3 * m->n);
    c->cond[f] = malloc(sizeof(double) * m->n);
    if (m->K == 8)
        TU_CHECK_OK(sinew_reference_skin8(m->n, m->v8, m->bulge, c->pal[f], m->jc, c->method, c->flags, c->ref_pos[f],
                                          c->ref_nrm[f]));
    else
        TU_CHECK_OK(sinew_reference_skin(m->n, m->v4, m->bulge, c->pal[f], m->jc, c->method, c->flags, c->ref_pos[f],
                                         c->ref_nrm[f]));
    c->sens[f] = calloc(m->n, sizeof(double));
    if (c->flags)
        TU_CHECK_OK(tu_bulge_sensitivity(rng, m->n, m->K == 8 ? NULL : m->v4, m->K == 8 ? m->v8 : NULL, NULL, NULL, NULL, m->bulge,
                                         c->pal[f], m->jc, c->method, c->flags, c->ref_nrm[f], c->sens[f]));
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (uint32_t v = 0; v < m->n; v++) {
        for (int k = 0; k < 3; k++) {
            double x = c->ref_pos[f][3 * v + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
        c->cond[f][v] = c->method == SINEW_METHOD_DQS ? 1.0 : normal_condition(c->pal[f], m, v, c->method != SINEW_METHOD_LBS);
    }
    double e = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    c->extent[f] = e > 1 ? e : 1;
}

/* Variant of a character as the skinner groups them: method kind (LBS, DQS, the
 * DQS-with-scale modes) x bulge (none, the correction, with its inner push) x 4/8 influences. */
static uint32_t variant_key(const character *c, const mesh_data *meshes)
{
    uint32_t kind = c->method == SINEW_METHOD_LBS ? 0u : c->method == SINEW_METHOD_DQS ? 1u : 2u;
    uint32_t bulge = !c->flags ? 0u : (c->flags & SINEW_SKIN_BULGE_INNER) ? 2u : 1u;
    return (kind * 3u + bulge) * 2u + (meshes[c->mesh].K == 8 ? 1u : 0u);
}

/* Dispatches and grid-mode dispatches the skinner should choose for these instances
 * (in this order), computed here from the documented rule, not from the skinner:
 * one dispatch per variant in use; grid mode for a variant whose instances all
 * use one mesh with palette and output offsets evenly spaced in instance order
 * (steps >= 0; one instance always qualifies), group records otherwise. With
 * random palette gaps, the three DQS-with-scale characters of a variant can land
 * evenly spaced by chance (seed 49216: steps 2264 and 2264), so the count cannot
 * be a constant. */
static uint32_t expected_dispatches(const character *list, uint32_t n, const mesh_data *meshes, uint32_t *grid_out)
{
    uint32_t nd = 0, grid = 0;
    for (uint32_t key = 0; key < 18; key++) {
        const character *first = NULL, *second = NULL;
        uint32_t k = 0, even = 1;
        for (uint32_t i = 0; i < n; i++) {
            const character *c = &list[i];
            if (variant_key(c, meshes) != key) continue;
            if (k == 0) first = c;
            else {
                if (k == 1) {
                    second = c;
                    if (c->pal_offset < first->pal_offset || c->out_offset < first->out_offset) even = 0;
                }
                uint64_t ps = (uint64_t)second->pal_offset - first->pal_offset, os = (uint64_t)second->out_offset - first->out_offset;
                if (c->mesh != first->mesh || c->pal_offset != first->pal_offset + k * ps ||
                    c->out_offset != first->out_offset + k * os)
                    even = 0;
            }
            k++;
        }
        if (!k) continue;
        nd++;
        grid += even;
    }
    *grid_out = grid;
    return nd;
}

/* One configuration: two frames of the characters in list (copies: their offsets
 * may differ from ch[]'s), skinned together. Checks every listed character against
 * its reference, that every other output vertex below total_out stays NaN (gaps,
 * characters not listed), and the dispatch count: one per variant, grid mode as
 * expected_dispatches says when the kernel is AUTO (want_grid: that count must be
 * this; ~0u = any). */
static void run_list(sinew_gpu *gpu, const char *label, sinew_output_format fmt, sinew_read_path path,
                     sinew_debug_kernel kernel, uint32_t wg, mesh_data *meshes, const character *list, uint32_t nlist,
                     uint32_t want_grid_count, uint32_t total_rest, uint32_t total_out, uint32_t total_pal)
{
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = total_rest;
    sd.max_meshes = N_MESH;
    sd.max_instances = N_CHAR;
    sd.max_output_vertices = total_out;
    sd.max_palette_vec4 = total_pal;
    sd.output_format = fmt;
    sd.read_path = path;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return;
    TU_CHECK_OK(sinew_debug_set_kernel(sk, kernel));
    TU_CHECK_OK(sinew_debug_set_workgroup_size(sk, wg));
    sinew_mesh_id ids[N_MESH];
    for (int m = 0; m < N_MESH; m++) {
        sinew_skinner_mesh_desc md = { meshes[m].v4, meshes[m].n, meshes[m].jc, meshes[m].bulge, meshes[m].v8 };
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &ids[m], NULL));
        TU_CHECK(sinew_skinner_mesh_influences(sk, ids[m]) == meshes[m].K);
    }
    float *pos = malloc(sizeof(float) * 3 * total_out), *nrm = malloc(sizeof(float) * 3 * total_out);
    uint8_t *covered = calloc(total_out, 1);
    for (uint32_t i = 0; i < nlist; i++)
        for (uint32_t v = 0; v < meshes[list[i].mesh].n; v++) covered[list[i].out_offset + v] = 1;
    double ntol = fmt == SINEW_OUTPUT_PACKED ? 4e-3 : 1e-4;
    uint32_t exp_grid = 0, exp_nd = expected_dispatches(list, nlist, meshes, &exp_grid);
    if (kernel != SINEW_DEBUG_KERNEL_AUTO) exp_grid = 0;
    if (want_grid_count != ~0u)
        TU_CHECK_MSG(exp_grid == want_grid_count, "%s: the scene has %u grid variants, meant to have %u", label, exp_grid,
                     want_grid_count);
    for (int f = 0; f < 2; f++) {
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total_out, 0x7fc00000u));
        sinew_frame fr;
        sinew_instance inst[N_CHAR];
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        for (uint32_t i = 0; i < nlist; i++) {
            const character *c = &list[i];
            sinew_palette_pack(c->method, c->flags, c->pal[f], meshes[c->mesh].jc, fr.palette + 4 * (size_t)c->pal_offset);
            sinew_instance in = { ids[c->mesh], c->method, c->flags, c->pal_offset, c->out_offset };
            inst[i] = in;
        }
        TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, nlist, NULL));
        TU_CHECK_OK(sinew_skinner_submit(sk));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        uint32_t grid = 0, nd = sinew_debug_dispatch_count(sk, &grid);
        TU_CHECK_MSG(nd == exp_nd && grid == exp_grid, "%s: %u dispatches (%u grid), want %u (%u)", label, nd, grid,
                     exp_nd, exp_grid);
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total_out, pos, nrm));
        double worst_p = 0, worst_n = 0;
        uint32_t bad = 0, written = 0;
        for (uint32_t i = 0; i < nlist; i++) {
            const character *c = &list[i];
            const mesh_data *m = &meshes[c->mesh];
            for (uint32_t v = 0; v < m->n; v++) {
                const float *gp = pos + 3 * (size_t)(c->out_offset + v), *gn = nrm + 3 * (size_t)(c->out_offset + v);
                double ep = 0, en = 0;
                for (int k = 0; k < 3; k++) {
                    double dp = fabs(gp[k] - c->ref_pos[f][3 * v + k]), dn = fabs(gn[k] - c->ref_nrm[f][3 * v + k]);
                    if (!(dp <= ep)) ep = dp == dp ? dp : INFINITY;
                    if (!(dn <= en)) en = dn == dn ? dn : INFINITY;
                }
                double k = c->cond[f][v] > 1 ? c->cond[f][v] : 1;
                if (ep / c->extent[f] > worst_p) worst_p = ep / c->extent[f];
                if (k <= 100 && en > worst_n) worst_n = en;
                if (!(ep <= 2e-5 * c->extent[f]) || !(en <= ntol * k + 8.0 * c->sens[f][v])) {
                    if (bad++ < 5)
                        TU_CHECK_MSG(0, "%s frame %d char %u (%s%s, %u infl) v %u: pos %.3g normal %.3g (cond %.3g)", label, f,
                                     i, sinew_method_name(c->method), !c->flags ? "" : (c->flags & SINEW_SKIN_BULGE_INNER) ? "+inner" : "+bulge", m->K, v, ep, en, k);
                }
            }
        }
        for (uint32_t o = 0; o < total_out; o++) written += !covered[o] && pos[3 * (size_t)o] == pos[3 * (size_t)o];
        TU_CHECK_MSG(bad == 0, "%s: %u vertices out of tolerance", label, bad);
        TU_CHECK_MSG(written == 0, "%s: %u vertices written outside the frame's characters", label, written);
        fprintf(stderr, "%s frame %d: %u dispatches (%u grid), worst position %.3g x extent, normal %.3g\n", label, f, nd,
                grid, worst_p, worst_n);
    }
    free(pos);
    free(nrm);
    free(covered);
    sinew_skinner_destroy(sk);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
}

/* One configuration over the whole scene, or (subset) only mesh 0's LBS/DQS
 * characters, one per variant: all four in grid mode. */
static void run_config(sinew_gpu *gpu, const char *label, sinew_output_format fmt, sinew_read_path path,
                       sinew_debug_kernel kernel, uint32_t wg, int subset, mesh_data *meshes, character *ch,
                       uint32_t total_rest, uint32_t total_out, uint32_t total_pal)
{
    character list[N_CHAR];
    uint32_t n = 0;
    for (uint32_t i = 0; i < N_CHAR; i++)
        if (!subset || (ch[i].mesh == 0 && ch[i].method <= SINEW_METHOD_DQS)) list[n++] = ch[i];
    /* full scene: 15 variants (no 4-influence bulge without the inner push); the
     * 4-influence LBS and DQS ones and the 8-influence inner LBS and DQS ones have one
     * instance each, so at least 6 run in grid mode */
    TU_CHECK(n == (subset ? 4u : (uint32_t)N_CHAR));
    run_list(gpu, label, fmt, path, kernel, wg, meshes, list, n, subset ? 4u : ~0u, total_rest, total_out, total_pal);
}

/* Regression (seed 49216): a variant of several instances whose palettes and
 * outputs are evenly spaced runs in grid mode, and one offset moved by one slot
 * sends it back to group records; outputs checked either way. The three
 * 4-influence DQS-with-scale characters with bulge correction (global, local,
 * mixed: one variant), palette step odd (the joint count x stride + 1), output
 * step the mesh size + GAP. */
static void run_even_spacing(sinew_gpu *gpu, mesh_data *meshes, character *ch, uint32_t total_rest, uint32_t total_out,
                             uint32_t total_pal)
{
    character list[3];
    uint32_t n = 0;
    for (uint32_t i = 0; i < N_CHAR; i++)
        if (ch[i].mesh == MESH4 && ch[i].method >= SINEW_METHOD_DQS_SCALE && ch[i].flags) list[n++] = ch[i];
    TU_CHECK(n == 3);
    if (n != 3) return;
    const mesh_data *m = &meshes[MESH4];
    uint32_t ps = m->jc * sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION) + 1;
    TU_CHECK(ps == m->jc * sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE_LOCAL, SINEW_SKIN_BULGE_CORRECTION) + 1 &&
             ps == m->jc * sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE_MIXED, SINEW_SKIN_BULGE_CORRECTION) + 1);
    for (uint32_t i = 0; i < 3; i++) {
        list[i].pal_offset = 2 + i * ps;
        list[i].out_offset = 1 + i * (m->n + GAP);
    }
    TU_CHECK(list[2].pal_offset + ps <= total_pal && list[2].out_offset + m->n + GAP <= total_out);
    run_list(gpu, "even spacing: grid", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_AUTO, 64, meshes,
             list, 3, 1u, total_rest, total_out, total_pal);
    list[2].pal_offset++;
    run_list(gpu, "palette step off by one: records", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_AUTO,
             64, meshes, list, 3, 0u, total_rest, total_out, total_pal);
    list[2].pal_offset--;
    list[1].out_offset++;
    run_list(gpu, "output step off by one: records", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, SINEW_DEBUG_KERNEL_AUTO,
             128, meshes, list, 3, 0u, total_rest, total_out, total_pal);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x736b696e38ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_skin8");

    mesh_data meshes[N_MESH];
    memset(meshes, 0, sizeof meshes);
    uint32_t total_rest = 0;
    for (int m = 0; m < N_MESH; m++) {
        meshes[m].jc = joint_counts[m];
        TU_CHECK_OK(tu_make_random_skeleton(&rng, meshes[m].jc, NULL, &meshes[m].skel));
        make_mesh(&rng, &meshes[m], m == MESH4 ? 4u : 8u);
        total_rest += meshes[m].n * (meshes[m].K == 8 ? 2u : 1u); /* an 8-influence vertex takes 1.5 */
    }
    character ch[N_CHAR];
    uint32_t out = 0, pal = 0;
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(256));
    for (uint32_t i = 0; i < N_CHAR; i++) {
        character *c = &ch[i];
        memset(c, 0, sizeof *c);
        c->mesh = i % N_MESH;
        c->method = (sinew_method)((i / N_MESH) % TU_PLAIN_METHODS);
        c->flags = i / (N_MESH * TU_PLAIN_METHODS) ? SINEW_SKIN_BULGE_CORRECTION : 0;
        /* the inner push on the bulge characters of mesh 2 (4 influences) and mesh 3 (8) */
        if (c->flags && (c->mesh == MESH4 || c->mesh == 3)) c->flags |= SINEW_SKIN_BULGE_INNER;
        c->out_offset = out;
        c->pal_offset = pal + tu_range(&rng, 3);
        out += meshes[c->mesh].n + GAP;
        pal = c->pal_offset + meshes[c->mesh].jc * sinew_palette_gpu_stride(c->method, c->flags);
        for (int f = 0; f < 2; f++) make_pose(&rng, c, &meshes[c->mesh], f, scratch);
        check_reference8(&meshes[c->mesh], c);
    }
    free(scratch);

    run_config(gpu, "float/texel", SINEW_OUTPUT_FLOAT, SINEW_READ_TEXEL, SINEW_DEBUG_KERNEL_AUTO, 0, 0, meshes, ch,
               total_rest, out, pal);
    run_config(gpu, "float/storage/records", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_RECORDS, 0, 0,
               meshes, ch, total_rest, out, pal);
    run_config(gpu, "packed/texel/wg256", SINEW_OUTPUT_PACKED, SINEW_READ_TEXEL, SINEW_DEBUG_KERNEL_AUTO, 256, 0, meshes,
               ch, total_rest, out, pal);
    run_config(gpu, "grid float/storage", SINEW_OUTPUT_FLOAT, SINEW_READ_STORAGE, SINEW_DEBUG_KERNEL_AUTO, 128, 1,
               meshes, ch, total_rest, out, pal);
    run_even_spacing(gpu, meshes, ch, total_rest, out, pal);

    /* The baseline kernel has no 8-influence path: refused, nothing written. */
    {
        sinew_skinner *sk = NULL;
        sinew_skinner_desc sd = { 0 };
        sd.max_rest_vertices = total_rest;
        TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
        sinew_mesh_id id;
        sinew_skinner_mesh_desc md = { NULL, meshes[0].n, meshes[0].jc, NULL, meshes[0].v8 };
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));
        sinew_skinner_mesh_desc both = { meshes[MESH4].v4, meshes[MESH4].n, meshes[MESH4].jc, NULL, meshes[0].v8 };
        TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &both, &id, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_vertex8 badv = meshes[0].v8[0];
        badv.joints[7] = (uint16_t)meshes[0].jc;
        badv.weights[7] = 0; /* a zero weight still names a joint the kernel reads */
        sinew_skinner_mesh_desc bad = { NULL, 1, meshes[0].jc, NULL, &badv };
        TU_CHECK_RESULT(sinew_skinner_add_mesh(sk, &bad, &id, NULL), SINEW_ERROR_JOINT_INDEX);
        TU_CHECK_OK(sinew_debug_set_kernel(sk, SINEW_DEBUG_KERNEL_BASELINE));
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        sinew_instance in = { { 0 }, SINEW_METHOD_LBS, 0, 0, 0 };
        sinew_error_info e;
        TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, &e), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(e.item == SINEW_ITEM_INSTANCE && e.index == 0 && strstr(e.message, "4-influence"));
        TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
        TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
        sinew_skinner_destroy(sk);
    }

    for (uint32_t i = 0; i < N_CHAR; i++)
        for (int f = 0; f < 2; f++) {
            free(ch[i].pal[f]); free(ch[i].ref_pos[f]); free(ch[i].ref_nrm[f]); free(ch[i].cond[f]); free(ch[i].sens[f]);
        }
    for (int m = 0; m < N_MESH; m++) {
        sinew_skeleton_destroy(meshes[m].skel);
        free(meshes[m].v8); free(meshes[m].v4); free(meshes[m].bulge);
    }
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_skin8");
}
