/* Dispatch-size boundaries of the skinner, deterministically (the random scenes
 * of test_gpu_skin / test_gpu_skin8 reach them only by chance): meshes whose
 * vertex count is one below, equal to and one above a multiple of the workgroup
 * size (1, 63, 64, 65, 128, 255, 256, 257 vertices with 4 influences; 64, 129,
 * 256 with 8), each skinned at workgroup sizes 64, 128 and 256, with the device's
 * grid row, with rows capped at 1 and 2 workgroups (sinew_debug_set_max_grid_x:
 * records split over a 2D grid whose last row is partly past the last group,
 * grid mode refused where a mesh needs more workgroups than a row holds), and
 * in forced record mode.
 *
 * Each frame: one mesh, six instances in two variants. DQS: three instances with
 * evenly spaced palettes (odd step) and outputs -> grid mode where it fits the
 * row; DQS with scale (rigid poses): three instances, the third palette one slot
 * further -> group records. Checked: 2 dispatches, the grid-mode count, every
 * output vertex against the float64 reference (position 2e-5 x E, E the extent
 * of the instance's reference positions, at least 1; normal 1e-4: rigid poses,
 * so the normal is a rotation of the rest normal, well conditioned), and every
 * other output vertex (one-vertex gaps after each instance, the tail) still NaN. */
#include "testutil.h"
#include <sinew/sinew.h>

#include <string.h>

#define JC 6
#define NINST 6
#define TAIL 300

typedef struct bmesh {
    uint32_t n, K;
    sinew_vertex *v4;
    sinew_vertex8 *v8;
    sinew_mesh_id id;
} bmesh;

static const uint32_t sizes4[] = { 1, 63, 64, 65, 128, 255, 256, 257 };
static const uint32_t sizes8[] = { 64, 129, 256 };
#define NM4 (sizeof sizes4 / sizeof sizes4[0])
#define NM8 (sizeof sizes8 / sizeof sizes8[0])
#define NMESH (NM4 + NM8)

static void make_bmesh(tu_rng *r, const sinew_skeleton *skel, uint32_t n, uint32_t K, bmesh *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->K = K;
    m->v8 = NULL;   /* 4-influence meshes: the skinner refuses a desc with both arrays */
    m->v4 = malloc(sizeof(sinew_vertex) * n);
    TU_CHECK_OK(tu_make_random_mesh(r, skel, n, 0.5, m->v4, NULL));
    if (K == 8) { /* the same vertices with up to 8 influences: 4 more joints of small weight */
        float *pos = malloc(sizeof(float) * 3 * n), *nrm = malloc(sizeof(float) * 3 * n);
        uint32_t *jo = malloc(sizeof(uint32_t) * 8 * n);
        float *we = malloc(sizeof(float) * 8 * n);
        for (uint32_t i = 0; i < n; i++) {
            sinew_vec3 nn = sinew_oct_decode(m->v4[i].normal_oct);
            for (int k = 0; k < 3; k++) pos[3 * i + k] = m->v4[i].position[k];
            nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
            for (int k = 0; k < 4; k++) {
                jo[8 * i + k] = m->v4[i].joints[k];
                we[8 * i + k] = m->v4[i].weights[k] / 65535.0f;
                jo[8 * i + 4 + k] = tu_range(r, JC);
                we[8 * i + 4 + k] = (float)tu_uniform(r, 0.01, 0.1);
            }
        }
        sinew_influences inf = { NULL, 8, jo, we };
        m->v8 = malloc(sizeof(sinew_vertex8) * n);
        TU_CHECK_OK(sinew_pack_vertices8(n, pos, nrm, &inf, JC, m->v8, NULL, NULL));
        free(m->v4);
        m->v4 = NULL;
        free(pos); free(nrm); free(jo); free(we);
    }
}

typedef struct binst {
    sinew_method method;
    uint32_t pal_offset, out_offset;
    sinew_palette_joint pal[JC];
} binst;

/* One frame of mesh m: six instances, checked as the header says. */
static void run_frame(sinew_skinner *sk, const sinew_skeleton *skel, tu_rng *r, const bmesh *m, const char *label,
                      uint32_t wg, uint32_t row, int records, uint32_t cap_out, float *pos, float *nrm)
{
    binst in[NINST];
    sinew_mat4 scratch[3 * JC];
    uint32_t sd = sinew_palette_gpu_stride(SINEW_METHOD_DQS, 0), ss = sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE, 0);
    uint32_t out = 0;
    for (uint32_t i = 0; i < NINST; i++) {
        in[i].method = i < 3 ? SINEW_METHOD_DQS : SINEW_METHOD_DQS_SCALE;
        /* DQS palettes at 1, 1 + S, 1 + 2S (S = JC x stride + 1, odd); scale ones
         * after, evenly spaced but for the third, one slot further */
        in[i].pal_offset = i < 3 ? 1 + i * (JC * sd + 1) : 1 + 3 * (JC * sd + 1) + (i - 3) * JC * ss + (i == 5);
        in[i].out_offset = out;
        out += m->n + 1;
        sinew_transform local[JC];
        memcpy(local, sinew_skeleton_rest_pose(skel), sizeof local);
        tu_random_pose(r, JC, local, 1.2 * M_PI, 0.0);
        sinew_transform root_t = { tu_random_vec3(r, -2, 2), tu_random_quat(r), { 1, 1, 1 } };
        sinew_mat4 root = sinew_mat4_from_transform(&root_t);
        TU_CHECK_OK(sinew_palette_build(skel, in[i].method, local, &root, scratch, in[i].pal));
    }
    TU_CHECK(out + TAIL <= cap_out);
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, out + TAIL, 0x7fc00000u));
    sinew_frame fr;
    sinew_instance inst[NINST];
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    for (uint32_t i = 0; i < NINST; i++) {
        TU_CHECK_OK(sinew_palette_pack(in[i].method, 0, in[i].pal, JC, fr.palette + 4 * (size_t)in[i].pal_offset));
        sinew_instance s = { m->id, in[i].method, 0, in[i].pal_offset, in[i].out_offset };
        inst[i] = s;
    }
    TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, NINST, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    uint32_t grid = 0, nd = sinew_debug_dispatch_count(sk, &grid);
    uint32_t gpi = (m->n + wg - 1) / wg, want_grid = !records && gpi <= row ? 1u : 0u;
    TU_CHECK_MSG(nd == 2 && grid == want_grid, "%s: %u dispatches (%u grid), want 2 (%u)", label, nd, grid, want_grid);
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, out + TAIL, pos, nrm));
    double *rp = malloc(sizeof(double) * 3 * m->n), *rn = malloc(sizeof(double) * 3 * m->n);
    uint32_t bad = 0, written = 0;
    for (uint32_t i = 0; i < NINST; i++) {
        if (m->K == 8) TU_CHECK_OK(sinew_reference_skin8(m->n, m->v8, NULL, in[i].pal, JC, in[i].method, 0, rp, rn));
        else TU_CHECK_OK(sinew_reference_skin(m->n, m->v4, NULL, in[i].pal, JC, in[i].method, 0, rp, rn));
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (uint32_t v = 0; v < m->n; v++)
            for (int k = 0; k < 3; k++) {
                lo[k] = rp[3 * v + k] < lo[k] ? rp[3 * v + k] : lo[k];
                hi[k] = rp[3 * v + k] > hi[k] ? rp[3 * v + k] : hi[k];
            }
        double E = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
        E = E > 1 ? E : 1;
        for (uint32_t v = 0; v < m->n; v++) {
            const float *gp = pos + 3 * (size_t)(in[i].out_offset + v), *gn = nrm + 3 * (size_t)(in[i].out_offset + v);
            double ep = 0, en = 0;
            for (int k = 0; k < 3; k++) {
                double dp = fabs(gp[k] - rp[3 * v + k]), dn = fabs(gn[k] - rn[3 * v + k]);
                if (!(dp <= ep)) ep = dp == dp ? dp : INFINITY;
                if (!(dn <= en)) en = dn == dn ? dn : INFINITY;
            }
            if (!(ep <= 2e-5 * E) || !(en <= 1e-4)) {
                if (bad++ < 3)
                    TU_CHECK_MSG(0, "%s: instance %u (%s) vertex %u of %u: position %.3g (E %.3g), normal %.3g", label, i,
                                 sinew_method_name(in[i].method), v, m->n, ep, E, en);
            }
        }
        written += pos[3 * (size_t)(in[i].out_offset + m->n)] == pos[3 * (size_t)(in[i].out_offset + m->n)];
    }
    for (uint32_t o = out; o < out + TAIL; o++) written += pos[3 * (size_t)o] == pos[3 * (size_t)o];
    TU_CHECK_MSG(bad == 0, "%s: %u vertices out of tolerance", label, bad);
    TU_CHECK_MSG(written == 0, "%s: %u vertices written past an instance", label, written);
    free(rp);
    free(rn);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x6772696462ull);
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_grid_bounds");
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&rng, JC, NULL, &skel));
    if (!skel) return tu_finish("test_gpu_grid_bounds");

    bmesh meshes[NMESH];
    uint32_t rest = 0, maxn = 0;
    for (uint32_t i = 0; i < NMESH; i++) {
        int eight = i >= NM4;
        make_bmesh(&rng, skel, eight ? sizes8[i - NM4] : sizes4[i], eight ? 8u : 4u, &meshes[i]);
        rest += meshes[i].n * (eight ? 2u : 1u);
        maxn = meshes[i].n > maxn ? meshes[i].n : maxn;
    }
    uint32_t cap_out = NINST * (maxn + 1) + TAIL;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = rest;
    sd.max_meshes = NMESH;
    sd.max_instances = NINST;
    sd.max_output_vertices = cap_out;
    sd.max_palette_vec4 = 8 + NINST * (JC * sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE, 0) + 1);
    sd.output_format = SINEW_OUTPUT_FLOAT;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_grid_bounds");
    for (uint32_t i = 0; i < NMESH; i++) {
        sinew_skinner_mesh_desc md = { meshes[i].v4, meshes[i].n, JC, NULL, meshes[i].v8 };
        TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &meshes[i].id, NULL));
    }
    float *pos = malloc(sizeof(float) * 3 * cap_out), *nrm = malloc(sizeof(float) * 3 * cap_out);
    uint32_t device_row = sinew_gpu_properties(gpu)->limits.maxComputeWorkGroupCount[0];
    static const uint32_t wgs[3] = { 64, 128, 256 };
    /* row caps: the device's, 1 and 2 workgroups; then forced records */
    static const uint32_t caps[4] = { 0, 1, 2, 0 };
    uint32_t frames = 0;
    for (int w = 0; w < 3; w++) {
        TU_CHECK_OK(sinew_debug_set_workgroup_size(sk, wgs[w]));
        for (int c = 0; c < 4; c++) {
            int records = c == 3;
            TU_CHECK_OK(sinew_debug_set_max_grid_x(sk, caps[c]));
            TU_CHECK_OK(sinew_debug_set_kernel(sk, records ? SINEW_DEBUG_KERNEL_RECORDS : SINEW_DEBUG_KERNEL_AUTO));
            uint32_t row = caps[c] ? caps[c] : device_row;
            for (uint32_t i = 0; i < NMESH; i++) {
                char label[96];
                snprintf(label, sizeof label, "wg %u, row %u%s, %u vertices x %u influences", wgs[w], row,
                         records ? ", records" : "", meshes[i].n, meshes[i].K);
                run_frame(sk, skel, &rng, &meshes[i], label, wgs[w], row, records, cap_out, pos, nrm);
                frames++;
            }
        }
    }
    fprintf(stderr, "%u frames: %u meshes x 3 workgroup sizes x 4 grid settings\n", frames, (unsigned)NMESH);
    {   /* the driver's pipeline statistics: argument checks; the text is empty unless the gpu was made
         * with SINEW_PIPELINE_STATISTICS=1 on a driver that has them (lavapipe here has not) */
        char text[4096];
        text[0] = 'x';
        TU_CHECK_RESULT(sinew_debug_pipeline_statistics(NULL, text, sizeof text), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_debug_pipeline_statistics(sk, NULL, 16), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_debug_pipeline_statistics(sk, text, 0), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_result rs = sinew_debug_pipeline_statistics(sk, text, sizeof text);
        TU_CHECK(rs == SINEW_OK || rs == SINEW_ERROR_NOT_FOUND);
        if (rs == SINEW_ERROR_NOT_FOUND) TU_CHECK(text[0] == '\0');
        else TU_CHECK(strstr(text, "grid") != NULL && strstr(text, "records") != NULL); /* both kernels ran */
        fprintf(stderr, "pipeline statistics: %s\n", rs == SINEW_OK ? "available" : "not available");
    }
    free(pos);
    free(nrm);
    sinew_skinner_destroy(sk);
    for (uint32_t i = 0; i < NMESH; i++) { free(meshes[i].v4); free(meshes[i].v8); }
    sinew_skeleton_destroy(skel);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_grid_bounds");
}
