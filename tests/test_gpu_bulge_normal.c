/* The bulge-corrected normal where its first GPU form cancelled (reference.h
 * step 4): vertices that lie on their bone at rest (d0 = 1e-4, below
 * 2^-16 max|p|, so the rest gradient g is faded out), pulled about 0.36 away by
 * a second joint (f = d0/d taken as 1/8), with skinned normals almost
 * perpendicular to r, the direction from the bone: the corrected normal is then
 * exactly sign(r.n) r, a well-conditioned value while |r.n| is well above the
 * float32 noise of r (about 1e-5 here), but the form
 * cof(B) n + (B ((g_t - f r) x n)) x r subtracts terms of size f^2 whose difference
 * is f^2 (r.n) r and lost about 2^-24 / |r.n| in float32 (test_gpu_crowd, seed
 * 324993: 5.1e-4 at r.n = 1.7e-4). Deterministic: a 3-joint skeleton far from the
 * origin (max|p| about 21), one vertex beyond the head end of its bone (no u term)
 * and one inside (u term on, r perpendicular to u), each with r.n about +-1.5e-4,
 * +-4e-4 and 0.3 (after 16-bit octahedral encoding), through LBS, DQS and
 * DQS with scale, bulge on. Checked: the reference normal is sign(r.n) r (1e-9),
 * the GPU normal within 5e-5 of the reference, positions within 2e-5 x E. */
#include "testutil.h"
#include <sinew/sinew.h>

#include <string.h>

#define NV 10

int main(void)
{
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_bulge_normal");

    /* joint 0 at B with its child joint 1 at B + (1, 0, 0): joint 0's bone is that
     * segment; joint 2, a second root at B, is moved by o in the pose */
    const sinew_vec3 B = { 20, 5, 3 }, o = { -0.4, 0.6, 0.2 };
    int32_t parents[3] = { -1, 0, -1 };
    sinew_transform rest[3] = {
        { B, { 0, 0, 0, 1 }, { 1, 1, 1 } },
        { { 1, 0, 0 }, { 0, 0, 0, 1 }, { 1, 1, 1 } },
        { B, { 0, 0, 0, 1 }, { 1, 1, 1 } },
    };
    sinew_skeleton_desc sdesc = { 0 };
    sdesc.joint_count = 3;
    sdesc.parents = parents;
    sdesc.rest_local = rest;
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(sinew_skeleton_create(&sdesc, &skel));
    if (!skel) return tu_finish("test_gpu_bulge_normal");
    sinew_transform pose[3];
    memcpy(pose, rest, sizeof pose);
    pose[2].translation = sinew_v3_add(B, o);

    /* vertices: 5 beyond the head (x = B.x - 1e-4), 5 inside (x = B.x + 0.5, 1e-4 off the axis) */
    static const double rn_want[5] = { 1.5e-4, -1.5e-4, 4e-4, -4e-4, 0.3 };
    sinew_vertex v[NV];
    memset(v, 0, sizeof v);
    const double w1 = 32767.0 / 65535.0; /* joint 2's weight; joint 0 (the major) has 32768 */
    for (uint32_t i = 0; i < NV; i++) {
        int inside = i >= NV / 2;
        sinew_vec3 p = inside ? sinew_v3(B.x + 0.5, B.y + 1e-4, B.z) : sinew_v3(B.x - 1e-4, B.y, B.z);
        for (int k = 0; k < 3; k++) v[i].position[k] = (float)(k == 0 ? p.x : k == 1 ? p.y : p.z);
        p = sinew_v3(v[i].position[0], v[i].position[1], v[i].position[2]);
        /* skinned position (translations only): p + w1 o; its direction r from the bone */
        sinew_vec3 q = sinew_v3_add(p, sinew_v3_scale(o, w1)), c = B;
        if (inside) c.x = q.x;
        sinew_vec3 r = sinew_v3_normalize(sinew_v3_sub(q, c));
        /* normal: perpendicular to r (and to x) plus rn_want r */
        double want = rn_want[i % (NV / 2)];
        sinew_vec3 t = sinew_v3_normalize(sinew_v3_cross(r, sinew_v3(1, 0, 0)));
        sinew_vec3 n = sinew_v3_add(sinew_v3_scale(t, sqrt(1 - want * want)), sinew_v3_scale(r, want));
        v[i].normal_oct = sinew_oct_encode(n);
        v[i].joints[0] = 0; v[i].joints[1] = 2; v[i].joints[2] = 0; v[i].joints[3] = 0;
        v[i].weights[0] = 32768; v[i].weights[1] = 32767;
    }
    float bulge[NV];
    TU_CHECK_OK(sinew_bulge_rest_distances(skel, NV, v, bulge));
    for (uint32_t i = 0; i < NV; i++) TU_CHECK_MSG(bulge[i] < 1.1e-4f && bulge[i] > 0.9e-4f, "vertex %u: d0 %g", i, bulge[i]);

    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = NV;
    sd.max_meshes = 1;
    sd.max_instances = 3;
    sd.max_output_vertices = 3 * NV;
    sd.max_palette_vec4 = 3 * 3 * sinew_palette_gpu_stride(SINEW_METHOD_DQS_SCALE, SINEW_SKIN_BULGE_CORRECTION);
    sd.output_format = SINEW_OUTPUT_FLOAT;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_bulge_normal");
    sinew_mesh_id id;
    sinew_skinner_mesh_desc md = { v, NV, 3, bulge };
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &id, NULL));

    static const sinew_method methods[3] = { SINEW_METHOD_LBS, SINEW_METHOD_DQS, SINEW_METHOD_DQS_SCALE };
    sinew_palette_joint pal[3][3];
    sinew_mat4 scratch[9];
    sinew_frame fr;
    sinew_instance inst[3];
    uint32_t pal_at = 0;
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, 3 * NV, 0x7fc00000u));
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    for (int m = 0; m < 3; m++) {
        TU_CHECK_OK(sinew_palette_build(skel, methods[m], pose, NULL, scratch, pal[m]));
        TU_CHECK_OK(sinew_palette_pack(methods[m], SINEW_SKIN_BULGE_CORRECTION, pal[m], 3, fr.palette + 4 * (size_t)pal_at));
        sinew_instance in = { id, methods[m], SINEW_SKIN_BULGE_CORRECTION, pal_at, (uint32_t)m * NV };
        inst[m] = in;
        pal_at += 3 * sinew_palette_gpu_stride(methods[m], SINEW_SKIN_BULGE_CORRECTION);
    }
    TU_CHECK_OK(sinew_skinner_set_instances(sk, inst, 3, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_wait(sk));
    float gp[3 * 3 * NV], gn[3 * 3 * NV];
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, 3 * NV, gp, gn));
    double worst = 0;
    for (int m = 0; m < 3; m++) {
        double rp[3 * NV], rnm[3 * NV];
        TU_CHECK_OK(sinew_reference_skin(NV, v, bulge, pal[m], 3, methods[m], SINEW_SKIN_BULGE_CORRECTION, rp, rnm));
        for (uint32_t i = 0; i < NV; i++) {
            int inside = i >= NV / 2;
            /* the reference's r and skinned normal, before the correction */
            double ru[3], un[3];
            TU_CHECK_OK(sinew_reference_skin(1, &v[i], NULL, pal[m], 3, methods[m], 0, ru, un));
            sinew_vec3 q = sinew_v3(ru[0], ru[1], ru[2]), c = B;
            if (inside) c.x = q.x;
            sinew_vec3 r = sinew_v3_normalize(sinew_v3_sub(q, c)), n = sinew_v3(un[0], un[1], un[2]);
            double rn = sinew_v3_dot(r, n), s = rn < 0 ? -1.0 : 1.0;
            if (i % (NV / 2) < 4) TU_CHECK_MSG(fabs(rn) > 5e-5 && fabs(rn) < 6e-4, "vertex %u: r.n %.3g", i, rn);
            double er = 0, en = 0, ep = 0;
            for (int k = 0; k < 3; k++) {
                double rk = k == 0 ? r.x : k == 1 ? r.y : r.z;
                er = fmax(er, fabs(rnm[3 * i + k] - s * rk));
                en = fmax(en, fabs((double)gn[3 * (m * NV + i) + k] - rnm[3 * i + k]));
                ep = fmax(ep, fabs((double)gp[3 * (m * NV + i) + k] - rp[3 * i + k]));
            }
            if (!(en <= worst)) worst = en;
            TU_CHECK_MSG(er <= 1e-9, "%s vertex %u (r.n %.3g): reference normal %.3g from sign(r.n) r", sinew_method_name(methods[m]),
                         i, rn, er);
            TU_CHECK_MSG(en <= 5e-5 && ep <= 2e-5 * 21.0, "%s vertex %u (%s, r.n %.3g): GPU normal error %.3g, position %.3g",
                         sinew_method_name(methods[m]), i, inside ? "inside" : "beyond the head", rn, en, ep);
        }
    }
    fprintf(stderr, "worst GPU normal error %.3g over %d vertices\n", worst, 3 * NV);
    sinew_skinner_destroy(sk);
    sinew_skeleton_destroy(skel);
    TU_CHECK_MSG(sinew_debug_validation_message_count(gpu) == 0, "%u validation messages",
                 sinew_debug_validation_message_count(gpu));
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_bulge_normal");
}
