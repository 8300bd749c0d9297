/* Sinew's glTF 2.0 importer against a float64 evaluation written here from
 * the glTF 2.0 specification (node TRS, samplers, skins), on one small scene
 * authored by this test and written three ways (.gltf + external buffer with
 * a percent-encoded URI, .gltf with a data URI, .glb):
 *  - one mesh instanced by two nodes under two skins (distinct joint nodes),
 *    one skin without inverseBindMatrices (identity), a non-joint node between
 *    two joints of that skin;
 *  - STEP, LINEAR and CUBICSPLINE samplers (translation, rotation, scale), a
 *    morph-weight channel (kept as a clip weight track);
 *  - a sparse POSITION accessor, WEIGHTS as normalized uint16, KHR_mesh_quantization
 *    positions (normalized int16) and normals (normalized int8);
 *  - the morph target kept (sinew_asset_morph_targets) and checked with sinew_morph_reference;
 *  - a mesh with 8 influences per vertex (JOINTS_0/1, WEIGHTS_0 float + WEIGHTS_1
 *    normalized uint8), a mesh with a morph target and default weights
 *    (mesh.weights overridden by node.weights), an unskinned mesh of two
 *    primitives (one with normals and indices, one without either) under an
 *    animated joint.
 * Sinew side: sinew_clip_sample + sinew_skeleton_fk + inverse binds, skinned
 * in float64 with the influences before pruning (sinew_asset_influences).
 * Tolerance: 1e-12 x the model's size (both sides are float64 from the same
 * decoded data; weights compared as the float32 Sinew stores). Times on keys, between keys and outside the keys. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "gltf_writer.h"
#include <sinew/anim.h>
#include <sinew/asset.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static tu_gltf G;
   /* the document being authored (tests/util/gltf_writer.h) */

/* ---- the scene --------------------------------------------------------------------- */

enum { NNODES = 13 };
static const int parent_of[NNODES] = { -1, -1, 1, -1, -1, 6, 4, 2, -1, 1, 1, 1, 1 };
static double rest_t[NNODES][3] = {
    { 5, 0, 0 }, { 0, 0, 0 }, { 1, 0, 0 }, { -4, 1, 0 }, { 0, 2, 0 }, { 0, 1, 0 }, { 0.5, 0, 0 },
    { 0, 0, 3 }, { 0, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
static double rest_r[NNODES][4]; /* set in main: identity except node 4 */
static double rest_s[NNODES][3];


/* mesh 0: 4 vertices (vertex 2 comes from the sparse part) + 1 morph target */
static const float m0_pos_base[12] = { 0, 0, 0, 1, 0, 0, 99, 99, 99, 0, 1, 0 };
static const float m0_pos_sparse[3] = { 1, 1, 0 };
static const float m0_target[12] = { 0, 0, 0.5f, 0, 0, 0, 0, 0.25f, 0, 0.5f, 0, 0 };
static const uint8_t m0_joints[16] = { 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0 };
static const uint16_t m0_weights[16] = { 65535, 0, 0, 0, 32768, 32767, 0, 0, 65535, 0, 0, 0, 16384, 49151, 0, 0 };
static const uint16_t m0_ind[6] = { 0, 1, 2, 0, 2, 3 };
/* mesh 1, primitive 0: quantized */
static const int16_t m1_pos_q[9] = { 0, 0, 0, 32767, 0, 0, 0, -32767, 16384 };
static const int8_t m1_nrm_q[12] = { 0, 0, 127, 0, 0, 127, 0, 0, 127, 0, 0, 0 }; /* 3 used, padded */
static const uint8_t m1_ind[3] = { 0, 1, 2 };
/* mesh 1, primitive 1: plain */
static const float m1_pos[9] = { 0, 0, 0, 0, 1, 0, 0, 0, 1 };
/* mesh 2: 3 vertices, 8 influences each */
static const float m2_pos[9] = { 0.2f, 0.1f, 0, 0.8f, 0.3f, 0.1f, 0.4f, 0.9f, -0.2f };
static const uint8_t m2_j0[12] = { 0, 1, 2, 3, 0, 1, 2, 3, 7, 6, 5, 4 };
static const uint8_t m2_j1[12] = { 4, 5, 6, 7, 4, 5, 6, 7, 3, 2, 1, 0 };
static const float m2_w0[12] = { 0.2f, 0.15f, 0.1f, 0.1f, 0.05f, 0.05f, 0.05f, 0.05f, 0.3f, 0.1f, 0.1f, 0.1f };
static const uint8_t m2_w1[12] = { 26, 26, 25, 26, 51, 51, 51, 51, 13, 13, 13, 13 };
/* skin 0 inverse binds (column-major): joint 0 at origin, joint 1 at x = 1 */
static const float ibm0[32] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1 };
/* animation */
static const float tin3[3] = { 0, 1, 2 }, tin_step[3] = { 0, 0.5f, 1.5f }, tin2[2] = { 0, 2 };
static float rot_lin[12];
            /* node 1: about z by 0, 60, 120 degrees */
static const float tr_step[9] = { 1, 0, 0, 1, 0.5f, 0, 1.5f, 0.5f, 0.25f };
  /* node 2 */
static const float tr_cubic[27] = {  /* node 4: (in, value, out) per key */
    0, 0, 0, 0, 2, 0, 1, 0.5f, 0,
    -1, 1, 0, 0.5f, 2.5f, 0.5f, 2, -1, 0,
    0.5f, 0.5f, 0.5f, 1, 2, 1, 0, 0, 0 };
static float rot_cubic[24];
          /* node 6: 2 keys x (in, value, out) */
static const float sc_lin[6] = { 1, 1, 1, 2, 1, 0.5f };
  /* node 5 */
static const float w_out[2] = { 0, 1 };
                  /* node 3 morph weights */

/* float64 samplers from the glTF 2.0 spec (Appendix C), n keys of comps components.
 * Rotation key values are unit quaternions in glTF; the float32 values here are
 * normalized in float64 first (as Sinew's clips do). */
static void sample(const float *times, const float *out_f, int n, int comps, const char *mode, double t, double *res)
{
    double out[64];
    int per0 = !strcmp(mode, "CUBICSPLINE") ? 3 : 1;
    for (int i = 0; i < n * per0 * comps; i++) out[i] = out_f[i];
    if (comps == 4)
        for (int k = 0; k < n; k++) {
            double *q = out + (k * per0 + (per0 == 3 ? 1 : 0)) * 4;
            double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            for (int c = 0; c < 4; c++) q[c] /= l;
        }
    int cubic = !strcmp(mode, "CUBICSPLINE");
    int per = cubic ? 3 : 1, off = cubic ? 1 : 0;
    if (t <= times[0]) { for (int c = 0; c < comps; c++) res[c] = out[(0 * per + off) * comps + c]; goto norm; }
    if (t >= times[n - 1]) { for (int c = 0; c < comps; c++) res[c] = out[((n - 1) * per + off) * comps + c]; goto norm; }
    int k = 0;
    while (!(t >= times[k] && t < times[k + 1])) k++;
    double d = (double)times[k + 1] - times[k], s = (t - times[k]) / d;
    (void)out_f;
    if (!strcmp(mode, "STEP")) { for (int c = 0; c < comps; c++) res[c] = out[k * comps + c]; return; }
    if (!cubic && comps == 4) {
        const double *a = out + k * 4, *b = out + (k + 1) * 4;
        double dot = 0;
        for (int c = 0; c < 4; c++) dot += a[c] * b[c];
        double sg = dot < 0 ? -1 : 1;
        dot *= sg;
        double w0, w1;
        if (dot > 0.9999995) { w0 = 1 - s; w1 = s; }
        else { double th = acos(dot); w0 = sin((1 - s) * th) / sin(th); w1 = sin(s * th) / sin(th); }
        for (int c = 0; c < 4; c++) res[c] = w0 * a[c] + sg * w1 * b[c];
        goto norm;
    }
    if (!cubic) { for (int c = 0; c < comps; c++) res[c] = out[k * comps + c] + s * (out[(k + 1) * comps + c] - out[k * comps + c]); return; }
    {
        double s2 = s * s, s3 = s2 * s;
        for (int c = 0; c < comps; c++) {
            double vk = out[(k * 3 + 1) * comps + c], bk = out[(k * 3 + 2) * comps + c];
            double vk1 = out[((k + 1) * 3 + 1) * comps + c], ak1 = out[((k + 1) * 3 + 0) * comps + c];
            res[c] = (2 * s3 - 3 * s2 + 1) * vk + d * (s3 - 2 * s2 + s) * bk + (-2 * s3 + 3 * s2) * vk1 + d * (s3 - s2) * ak1;
        }
    }
norm:
    if (comps == 4) {
        double l = sqrt(res[0] * res[0] + res[1] * res[1] + res[2] * res[2] + res[3] * res[3]);
        for (int c = 0; c < 4; c++) res[c] /= l;
    }
}

/* column-major 4x4 in double */
typedef struct m4 { double m[16]; } m4;
static m4 m4_mul(m4 a, m4 b)
{
    m4 r;
    for (int c = 0; c < 4; c++) for (int rr = 0; rr < 4; rr++) {
        double s = 0;
        for (int k = 0; k < 4; k++) s += a.m[k * 4 + rr] * b.m[c * 4 + k];
        r.m[c * 4 + rr] = s;
    }
    return r;
}
static m4 m4_trs(const double *t, const double *q, const double *s)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double R[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) };
    m4 m = { { 0 } };
    for (int c = 0; c < 3; c++) for (int rr = 0; rr < 3; rr++) m.m[c * 4 + rr] = R[c * 3 + rr] * s[c];
    m.m[12] = t[0]; m.m[13] = t[1]; m.m[14] = t[2]; m.m[15] = 1;
    return m;
}
static void m4_point(const m4 *m, const double *p, double *o)
{
    for (int rr = 0; rr < 3; rr++) o[rr] = m->m[rr] * p[0] + m->m[4 + rr] * p[1] + m->m[8 + rr] * p[2] + m->m[12 + rr];
}

/* The spec's evaluation: every node's global at time t (t < 0: rest pose). */
static void eval_globals(double t, m4 *G)
{
    for (int i = 0; i < NNODES; i++) {
        double T[3], R[4], S[3];
        memcpy(T, rest_t[i], sizeof T); memcpy(R, rest_r[i], sizeof R); memcpy(S, rest_s[i], sizeof S);
        if (t >= 0) {
            if (i == 1) sample(tin3, rot_lin, 3, 4, "LINEAR", t, R);
            if (i == 2) sample(tin_step, tr_step, 3, 3, "STEP", t, T);
            if (i == 4) sample(tin3, tr_cubic, 3, 3, "CUBICSPLINE", t, T);
            if (i == 6) sample(tin2, rot_cubic, 2, 4, "CUBICSPLINE", t, R);
            if (i == 5) sample(tin2, sc_lin, 2, 3, "LINEAR", t, S);
        }
        m4 L = m4_trs(T, R, S);
        G[i] = L;
    }
    /* parents before children: resolve by repeated passes over the fixed hierarchy */
    m4 Gl[NNODES];
    memcpy(Gl, G, sizeof Gl);
    int done[NNODES] = { 0 };
    for (int pass = 0; pass < NNODES; pass++)
        for (int i = 0; i < NNODES; i++) {
            if (done[i]) continue;
            if (parent_of[i] < 0) { G[i] = Gl[i]; done[i] = 1; }
            else if (done[parent_of[i]]) { G[i] = m4_mul(G[parent_of[i]], Gl[i]); done[i] = 1; }
        }
}

/* Expected model-space positions of every vertex, in Sinew's instance order. */
static int expected_positions(double t, double *out)
{
    m4 G[NNODES];
    eval_globals(t, G);
    int n = 0;
    const int skin0[2] = { 1, 2 }, skin1[2] = { 4, 5 }, skin2[8] = { 1, 2, 4, 5, 9, 10, 11, 12 };
    m4 ident = { { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 } };
    /* node 0 (skin 0, morph weight 0.25 from the mesh) and node 3 (skin 1, 0.75 from the node) */
    for (int inst = 0; inst < 2; inst++) {
        double mw = inst == 0 ? 0.25 : 0.75;
        for (int v = 0; v < 4; v++) {
            double p[3];
            const float *src = v == 2 ? m0_pos_sparse : m0_pos_base + v * 3;
            for (int e = 0; e < 3; e++) p[e] = src[e] + mw * m0_target[v * 3 + e];
            double acc[3] = { 0, 0, 0 }, wsum = 0;
            for (int k = 0; k < 4; k++) {
                double w = (float)(m0_weights[v * 4 + k] / 65535.0); /* Sinew keeps weights as float */
                if (w == 0) continue;
                int j = m0_joints[v * 4 + k];
                m4 ib = ident;
                if (inst == 0) for (int q = 0; q < 16; q++) ib.m[q] = ibm0[j * 16 + q];
                m4 J = m4_mul(G[inst == 0 ? skin0[j] : skin1[j]], ib);
                double o[3];
                m4_point(&J, p, o);
                for (int e = 0; e < 3; e++) acc[e] += w * o[e];
                wsum += w;
            }
            for (int e = 0; e < 3; e++) out[n * 3 + e] = acc[e] / wsum;
            n++;
        }
    }
    /* node 8: mesh 2, skin 2 (no inverse binds), 8 influences */
    for (int v = 0; v < 3; v++) {
        double acc[3] = { 0, 0, 0 }, wsum = 0, p[3] = { m2_pos[v * 3], m2_pos[v * 3 + 1], m2_pos[v * 3 + 2] };
        for (int k = 0; k < 8; k++) {
            int j = k < 4 ? m2_j0[v * 4 + k] : m2_j1[v * 4 + k - 4];
            double w = k < 4 ? m2_w0[v * 4 + k] : (float)(m2_w1[v * 4 + k - 4] / 255.0);
            double o[3];
            m4_point(&G[skin2[j]], p, o);
            for (int e = 0; e < 3; e++) acc[e] += w * o[e];
            wsum += w;
        }
        for (int e = 0; e < 3; e++) out[n * 3 + e] = acc[e] / wsum;
        n++;
    }
    /* node 7: mesh 1, unskinned, follows its node */
    for (int v = 0; v < 3; v++) {
        double p[3];
        for (int e = 0; e < 3; e++) p[e] = fmax(m1_pos_q[v * 3 + e] / 32767.0, -1.0);
        m4_point(&G[7], p, out + n * 3);
        n++;
    }
    for (int v = 0; v < 3; v++) {
        double p[3] = { m1_pos[v * 3], m1_pos[v * 3 + 1], m1_pos[v * 3 + 2] };
        m4_point(&G[7], p, out + n * 3);
        n++;
    }
    return n;
}

static char json[1 << 17];


static void build_json(const char *buffer_uri)
{
    tu_gltf_reset(&G);
    char sp[512];
    int a_m0_pos;
    {
        /* sparse: vertex 2 replaced */
        uint16_t si[1] = { 2 };
        int vi = tu_gltf_view(&G, si, sizeof si);
        int vv = tu_gltf_view(&G, m0_pos_sparse, sizeof m0_pos_sparse);
        snprintf(sp, sizeof sp, ",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":%d,\"componentType\":5123},\"values\":{\"bufferView\":%d}}", vi, vv);
        a_m0_pos = tu_gltf_acc(&G, m0_pos_base, sizeof m0_pos_base, 5126, "VEC3", 4, 0, sp);
    }
    int a_m0_tgt = tu_gltf_acc(&G, m0_target, sizeof m0_target, 5126, "VEC3", 4, 0, NULL);
    int a_m0_j = tu_gltf_acc(&G, m0_joints, sizeof m0_joints, 5121, "VEC4", 4, 0, NULL);
    int a_m0_w = tu_gltf_acc(&G, m0_weights, sizeof m0_weights, 5123, "VEC4", 4, 1, NULL);
    int a_m0_i = tu_gltf_acc(&G, m0_ind, sizeof m0_ind, 5123, "SCALAR", 6, 0, NULL);
    int a_m1_pq = tu_gltf_acc(&G, m1_pos_q, sizeof m1_pos_q, 5122, "VEC3", 3, 1, NULL);
    int a_m1_nq = tu_gltf_acc(&G, m1_nrm_q, 9, 5120, "VEC3", 3, 1, NULL);
    int a_m1_i = tu_gltf_acc(&G, m1_ind, sizeof m1_ind, 5121, "SCALAR", 3, 0, NULL);
    int a_m1_p = tu_gltf_acc(&G, m1_pos, sizeof m1_pos, 5126, "VEC3", 3, 0, NULL);
    int a_m2_p = tu_gltf_acc(&G, m2_pos, sizeof m2_pos, 5126, "VEC3", 3, 0, NULL);
    int a_m2_j0 = tu_gltf_acc(&G, m2_j0, sizeof m2_j0, 5121, "VEC4", 3, 0, NULL);
    int a_m2_j1 = tu_gltf_acc(&G, m2_j1, sizeof m2_j1, 5121, "VEC4", 3, 0, NULL);
    int a_m2_w0 = tu_gltf_acc(&G, m2_w0, sizeof m2_w0, 5126, "VEC4", 3, 0, NULL);
    int a_m2_w1 = tu_gltf_acc(&G, m2_w1, sizeof m2_w1, 5121, "VEC4", 3, 1, NULL);
    int a_ibm0 = tu_gltf_acc(&G, ibm0, sizeof ibm0, 5126, "MAT4", 2, 0, NULL);
    int a_t3 = tu_gltf_acc(&G, tin3, sizeof tin3, 5126, "SCALAR", 3, 0, NULL);
    int a_ts = tu_gltf_acc(&G, tin_step, sizeof tin_step, 5126, "SCALAR", 3, 0, NULL);
    int a_t2 = tu_gltf_acc(&G, tin2, sizeof tin2, 5126, "SCALAR", 2, 0, NULL);
    int a_rl = tu_gltf_acc(&G, rot_lin, sizeof rot_lin, 5126, "VEC4", 3, 0, NULL);
    int a_ts_o = tu_gltf_acc(&G, tr_step, sizeof tr_step, 5126, "VEC3", 3, 0, NULL);
    int a_tc = tu_gltf_acc(&G, tr_cubic, sizeof tr_cubic, 5126, "VEC3", 9, 0, NULL);
    int a_rc = tu_gltf_acc(&G, rot_cubic, sizeof rot_cubic, 5126, "VEC4", 6, 0, NULL);
    int a_sl = tu_gltf_acc(&G, sc_lin, sizeof sc_lin, 5126, "VEC3", 2, 0, NULL);
    int a_w = tu_gltf_acc(&G, w_out, sizeof w_out, 5126, "SCALAR", 2, 0, NULL);
    char nodes[4096] = "";
    for (int i = 0; i < NNODES; i++) {
        char tmp[512], extra[200] = "";
        if (i == 0) strcpy(extra, ",\"mesh\":0,\"skin\":0");
        if (i == 3) strcpy(extra, ",\"mesh\":0,\"skin\":1,\"weights\":[0.75]");
        if (i == 8) strcpy(extra, ",\"mesh\":2,\"skin\":2");
        if (i == 7) strcpy(extra, ",\"mesh\":1");
        if (i == 1) strcat(extra, ",\"children\":[2,9,10,11,12]");
        if (i == 2) strcat(extra, ",\"children\":[7]");
        if (i == 4) strcat(extra, ",\"children\":[6]");
        if (i == 6) strcat(extra, ",\"children\":[5]");
        snprintf(tmp, sizeof tmp, "%s{\"name\":\"n%d\",\"translation\":[%.17g,%.17g,%.17g],\"rotation\":[%.17g,%.17g,%.17g,%.17g],\"scale\":[%.17g,%.17g,%.17g]%s}",
                 i ? "," : "", i, rest_t[i][0], rest_t[i][1], rest_t[i][2], rest_r[i][0], rest_r[i][1], rest_r[i][2], rest_r[i][3],
                 rest_s[i][0], rest_s[i][1], rest_s[i][2], extra);
        strcat(nodes, tmp);
    }
    snprintf(json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
        "\"scene\":0,\"scenes\":[{\"nodes\":[0,3,8,1,4]}],\"nodes\":[%s],"
        "\"meshes\":["
        "{\"name\":\"body\",\"weights\":[0.25],\"extras\":{\"targetNames\":[\"bulge\"]},\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"JOINTS_0\":%d,\"WEIGHTS_0\":%d},\"indices\":%d,\"targets\":[{\"POSITION\":%d}]}]},"
        "{\"name\":\"prop\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d},{\"attributes\":{\"POSITION\":%d}}]},"
        "{\"name\":\"eight\",\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"JOINTS_0\":%d,\"JOINTS_1\":%d,\"WEIGHTS_0\":%d,\"WEIGHTS_1\":%d}}]}],"
        "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":%d},{\"joints\":[4,5]},{\"joints\":[1,2,4,5,9,10,11,12],\"skeleton\":1}],"
        "\"animations\":[{\"name\":\"walk\",\"samplers\":["
        "{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"},"
        "{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"},{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"},"
        "{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"},{\"input\":%d,\"output\":%d}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},{\"sampler\":1,\"target\":{\"node\":2,\"path\":\"translation\"}},"
        "{\"sampler\":2,\"target\":{\"node\":4,\"path\":\"translation\"}},{\"sampler\":3,\"target\":{\"node\":6,\"path\":\"rotation\"}},"
        "{\"sampler\":4,\"target\":{\"node\":5,\"path\":\"scale\"}},{\"sampler\":5,\"target\":{\"node\":3,\"path\":\"weights\"}}]}],"
        "\"accessors\":[%s],\"bufferViews\":[%s],\"buffers\":[{\"byteLength\":%zu%s%s%s}]}",
        nodes, a_m0_pos, a_m0_j, a_m0_w, a_m0_i, a_m0_tgt, a_m1_pq, a_m1_nq, a_m1_i, a_m1_p,
        a_m2_p, a_m2_j0, a_m2_j1, a_m2_w0, a_m2_w1, a_ibm0,
        a_t3, a_rl, a_ts, a_ts_o, a_t3, a_tc, a_t2, a_rc, a_t2, a_sl, a_t2, a_w,
        G.accs, G.views, G.binlen, buffer_uri ? ",\"uri\":\"" : "", buffer_uri ? buffer_uri : "", buffer_uri ? "\"" : "");
}

static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    TU_CHECK(f != NULL);
    if (!f) return;
    TU_CHECK(fwrite(d, 1, n, f) == n);
    fclose(f);
}

/* Sinew's deformation at time t (t < 0: rest pose) in float64 from the asset. */
static void sinew_positions(const sinew_asset *a, double t, double *out)
{
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    sinew_transform *pose = calloc(nj, sizeof *pose);
    sinew_mat4 *gl = calloc(nj, sizeof *gl), *T = calloc(nj, sizeof *T);
    if (t >= 0) TU_CHECK_OK(sinew_clip_sample(sinew_asset_clip(a, 0), sk, t, SINEW_WRAP_CLAMP, pose));
    else memcpy(pose, sinew_skeleton_rest_pose(sk), nj * sizeof *pose);
    TU_CHECK_OK(sinew_skeleton_fk(sk, pose, NULL, gl));
    for (uint32_t j = 0; j < nj; j++) T[j] = sinew_mat4_mul(&gl[j], sinew_skeleton_inverse_bind(sk, j));
    const uint32_t *off, *jn; const float *w;
    TU_CHECK_OK(sinew_asset_influences(a, &off, &jn, &w));
    const double *rp = sinew_asset_rest_positions(a);
    for (uint32_t v = 0; v < nv; v++) {
        double acc[3] = { 0, 0, 0 }, ws = 0;
        sinew_vec3 p = sinew_v3(rp[v * 3], rp[v * 3 + 1], rp[v * 3 + 2]);
        for (uint32_t k = off[v]; k < off[v + 1]; k++) {
            sinew_vec3 q = sinew_mat4_transform_point(&T[jn[k]], p);
            acc[0] += w[k] * q.x; acc[1] += w[k] * q.y; acc[2] += w[k] * q.z; ws += w[k];
        }
        for (int e = 0; e < 3; e++) out[v * 3 + e] = acc[e] / ws;
    }
    free(pose); free(gl); free(T);
}

static void check_asset(const char *label, const sinew_asset *a)
{
    const sinew_asset_import_stats *st = sinew_asset_stats(a);
    uint32_t nv = sinew_asset_vertex_count(a);
    printf("%s: %u vertices, %u joints, %u meshes, skins %u, skinned instances %u, max influences %u, pruned %u, "
           "morph targets %u, weight channels %u, step %u, cubic %u\n", label, nv, sinew_skeleton_joint_count(sinew_asset_skeleton(a)),
           sinew_asset_mesh_count(a), st->skins, st->skinned_instances, st->max_influences, st->vertices_pruned,
           st->morph_targets, st->ignored_weight_channels, st->step_channels, st->cubic_channels);
    TU_CHECK(st->gltf == 1);
    TU_CHECK(nv == 17);
    TU_CHECK(sinew_asset_mesh_count(a) == 5);
    /* joints: nodes 1, 2 twice (skin 0 binds it at x = 1, skin 2 at the origin), 7 (unskinned
     * mesh node), 9..12, 4, 6 (non-joint between 4 and 5), 5 */
    TU_CHECK(sinew_skeleton_joint_count(sinew_asset_skeleton(a)) == 11);
    TU_CHECK(st->duplicated_joints == 1);
    TU_CHECK(sinew_skeleton_find(sinew_asset_skeleton(a), "n6") >= 0);
    TU_CHECK(sinew_skeleton_find(sinew_asset_skeleton(a), "n0") < 0); /* a skinned mesh's node is not a joint */
    TU_CHECK(st->skins == 3 && st->skinned_instances == 3);
    TU_CHECK(st->max_influences == 8 && st->vertices_pruned == 3);
    TU_CHECK(st->morph_targets == 2 && st->ignored_weight_channels == 0 && st->weight_channels == 1);
    /* node 3's weights channel (LINEAR, 0 at 0 s, 1 at 2 s) drives slot 1 (instance 1's target);
     * slot 0 (node 0) keeps its default */
    {
        const sinew_clip *c = sinew_asset_clip(a, 0);
        double w[2], def[2] = { 0.25, 0.75 };
        TU_CHECK(sinew_clip_weight_count(c) == 2 && sinew_clip_animates_weight(c, 1) && !sinew_clip_animates_weight(c, 0));
        TU_CHECK_OK(sinew_clip_sample_weights(c, 1.5, SINEW_WRAP_CLAMP, def, 2, w));
        TU_CHECK_NEAR(w[0], 0.25, 0);
        TU_CHECK_NEAR(w[1], 0.75, 1e-15);
    }
    TU_CHECK(st->step_channels == 1 && st->cubic_channels == 2);
    TU_CHECK(sinew_asset_mesh(a, 3)->normals_generated == 0 && sinew_asset_mesh(a, 4)->normals_generated == 1);
    TU_CHECK(sinew_asset_mesh(a, 4)->unweighted_vertices == 3);
    TU_CHECK(strcmp(sinew_asset_mesh(a, 0)->name, "body") == 0 && strcmp(sinew_asset_mesh(a, 2)->name, "eight") == 0);
    TU_CHECK(sinew_asset_clip_count(a) == 1 && strcmp(sinew_clip_name(sinew_asset_clip(a, 0)), "walk") == 0);
    TU_CHECK_NEAR(sinew_clip_duration(sinew_asset_clip(a, 0)), 2.0, 1e-12);
    /* the quantized normals of mesh 1 primitive 0: +z through node 7's transform (scale 2 about nothing else) */
    const double *rn = sinew_asset_rest_normals(a);
    TU_CHECK_NEAR(rn[11 * 3 + 2], 1.0, 1e-12);
    /* the morph target of "body" (instances 0 and 1) kept: sparse, default weights 0.25 / 0.75;
    * morphing the rest mesh by w - default gives the file's base + w * delta (here w = 1) */
    for (uint32_t mi = 0; mi < 2; mi++) {
        uint32_t nt = 0;
        const float *w0 = NULL;
        const sinew_morph_target *mt = sinew_asset_morph_targets(a, mi, &nt, &w0);
        const sinew_asset_mesh_info *inf = sinew_asset_mesh(a, mi);
        TU_CHECK(mt && nt == 1 && w0 && mt[0].count == 3 && mt[0].normal_deltas == NULL);
        if (!mt || nt != 1 || !w0) continue;
        TU_CHECK(mt[0].name && strcmp(mt[0].name, "bulge") == 0); /* mesh.extras.targetNames */
        TU_CHECK_NEAR(w0[0], mi == 0 ? 0.25 : 0.75, 0);
        TU_CHECK_OK(sinew_morph_validate(inf->vertex_count, mt, nt, NULL));
        float w = 1.0f - w0[0];
        double mp[4 * 3];
        TU_CHECK_OK(sinew_morph_reference(inf->vertex_count, sinew_asset_vertices(a) + inf->first_vertex, mt, 1, &w, mp, NULL, NULL));
        for (int v = 0; v < 4; v++)
            for (int e = 0; e < 3; e++) {
                double base0 = v == 2 ? m0_pos_sparse[e] : m0_pos_base[v * 3 + e];
                TU_CHECK_NEAR(mp[v * 3 + e], base0 + m0_target[v * 3 + e], 1e-6); /* packed float32 positions */
            }
    }
    TU_CHECK(sinew_asset_morph_targets(a, 2, NULL, NULL) == NULL);
    double size = sinew_asset_size(a);
    double *want = malloc(17 * 3 * sizeof(double)), *got = malloc(17 * 3 * sizeof(double));
    const double times[] = { -1, 0, 0.25, 0.5, 0.75, 1.0, 1.3, 1.5, 1.75, 2.0, 3.0 };
    double worst = 0;
    for (size_t ti = 0; ti < sizeof times / sizeof times[0]; ti++) {
        int n = expected_positions(times[ti], want);
        TU_CHECK(n == 17);
        sinew_positions(a, times[ti], got);
        for (int k = 0; k < 17 * 3; k++) {
            double d = fabs(want[k] - got[k]);
            if (!(d <= worst)) worst = d;
            if (!(d <= 1e-12 * size)) {
                fprintf(stderr, "%s: t = %g, vertex %d coord %d: sinew %.12g, spec %.12g\n", label, times[ti], k / 3, k % 3, got[k], want[k]);
                tu_failures++;
                break;
            }
        }
    }
    printf("%s: largest |sinew - spec| over %zu times: %.3g (size %.3g, tolerance 1e-12 x size)\n", label,
           sizeof times / sizeof times[0], worst, size);
    /* the packed vertices with 8 influences (sinew_asset_vertices8) through the 8-influence
     * reference: every vertex (mesh "eight" keeps all 8) against the spec within 1e-4 x size
     * (unorm16 weights); the 4-influence packing misses the spec there by far more */
    {
        const sinew_skeleton *sk = sinew_asset_skeleton(a);
        uint32_t nj = sinew_skeleton_joint_count(sk);
        sinew_vertex8 *v8 = calloc(nv, sizeof *v8);
        sinew_transform *pose = calloc(nj, sizeof *pose);
        sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
        sinew_palette_joint *pal = calloc(nj, sizeof *pal);
        sinew_pack_stats ps = { 0 };
        TU_CHECK_OK(sinew_asset_vertices8(a, v8, &ps));
        TU_CHECK(ps.max_influences == 8 && ps.vertices_pruned == 0);
        for (uint32_t v = 8; v < 11; v++) TU_CHECK(v8[v].weights[7] > 0); /* all 8 kept */
        TU_CHECK_RESULT(sinew_asset_vertices8(NULL, v8, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_asset_vertices8(a, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        double w8 = 0, w4 = 0;
        for (size_t ti = 0; ti < sizeof times / sizeof times[0]; ti++) {
            expected_positions(times[ti], want);
            if (times[ti] >= 0) TU_CHECK_OK(sinew_clip_sample(sinew_asset_clip(a, 0), sk, times[ti], SINEW_WRAP_CLAMP, pose));
            else memcpy(pose, sinew_skeleton_rest_pose(sk), nj * sizeof *pose);
            TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal));
            TU_CHECK_OK(sinew_reference_skin8(nv, v8, NULL, pal, nj, SINEW_METHOD_LBS, 0, got, NULL));
            for (int k = 0; k < 17 * 3; k++) if (!(fabs(got[k] - want[k]) <= w8)) w8 = fabs(got[k] - want[k]);
            TU_CHECK_OK(sinew_reference_skin(nv, sinew_asset_vertices(a), NULL, pal, nj, SINEW_METHOD_LBS, 0, got, NULL));
            for (int k = 8 * 3; k < 11 * 3; k++) if (!(fabs(got[k] - want[k]) <= w4)) w4 = fabs(got[k] - want[k]);
        }
        printf("%s: 8 influences (sinew_asset_vertices8 + reference8) vs spec: %.3g x size (tolerance 1e-4); "
               "pruned to 4: %.3g x size\n", label, w8 / size, w4 / size);
        TU_CHECK(w8 <= 1e-4 * size);
        TU_CHECK(w4 > 1e-2 * size);
        free(v8); free(pose); free(scratch); free(pal);
    }
    free(want); free(got);
}

static sinew_asset *load(const char *path, const char *label)
{
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", label, err.message);
    return a;
}


/* The case: one mesh instanced by 84 nodes, each under its own 10-joint
 * skin (distinct joint nodes, each chain placed elsewhere): 840 joints, 84
 * instances, each vertex weighted to its own instance's chain, and each
 * instance posed by its own joints (a rest pose where chain i is moved by
 * (i, 0, 0) puts instance i's vertices there). */
static void test_many_skins(void)
{
    enum { NI = 84, NJ = 10 };
    static char js[1 << 20];
    float pos[NJ * 3];
    uint8_t jn[NJ * 4];
    float w[NJ * 4];
    for (int k = 0; k < NJ; k++) {
        pos[k * 3] = 0; pos[k * 3 + 1] = (float)k; pos[k * 3 + 2] = 0;
        jn[k * 4] = (uint8_t)k; jn[k * 4 + 1] = jn[k * 4 + 2] = jn[k * 4 + 3] = 0;
        w[k * 4] = 1; w[k * 4 + 1] = w[k * 4 + 2] = w[k * 4 + 3] = 0;
    }
    /* inverse binds: joint k of every chain sits at (0, k, 0) in bind */
    float ib[NJ * 16];
    for (int k = 0; k < NJ; k++) {
        for (int q = 0; q < 16; q++) ib[k * 16 + q] = (q % 5 == 0) ? 1.0f : 0.0f;
        ib[k * 16 + 13] = (float)-k;
    }
    uint8_t buf[sizeof pos + sizeof jn + sizeof w + sizeof ib];
    memcpy(buf, pos, sizeof pos); memcpy(buf + sizeof pos, jn, sizeof jn);
    memcpy(buf + sizeof pos + sizeof jn, w, sizeof w); memcpy(buf + sizeof pos + sizeof jn + sizeof w, ib, sizeof ib);
    char *b64 = tu_base64(buf, sizeof buf);
    size_t o = 0;
    o += (size_t)snprintf(js + o, sizeof js - o, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[");
    /* node layout: instance i = node i*(NJ+1) (mesh + skin i), chain nodes follow; chain root at (i, 0, 0) */
    for (int i = 0; i < NI; i++) o += (size_t)snprintf(js + o, sizeof js - o, "%s%d,%d", i ? "," : "", i * (NJ + 1), i * (NJ + 1) + 1);
    o += (size_t)snprintf(js + o, sizeof js - o, "]}],\"nodes\":[");
    for (int i = 0; i < NI; i++) {
        o += (size_t)snprintf(js + o, sizeof js - o, "%s{\"mesh\":0,\"skin\":%d}", i ? "," : "", i);
        for (int k = 0; k < NJ; k++) {
            int id = i * (NJ + 1) + 1 + k;
            o += (size_t)snprintf(js + o, sizeof js - o, ",{\"name\":\"s%dj%d\",\"translation\":[%d,%d,0]%s", i, k, k ? 0 : i, k ? 1 : 0,
                                  k + 1 < NJ ? "" : "}");
            if (k + 1 < NJ) o += (size_t)snprintf(js + o, sizeof js - o, ",\"children\":[%d]}", id + 1);
        }
    }
    o += (size_t)snprintf(js + o, sizeof js - o, "],\"skins\":[");
    for (int i = 0; i < NI; i++) {
        o += (size_t)snprintf(js + o, sizeof js - o, "%s{\"inverseBindMatrices\":3,\"joints\":[", i ? "," : "");
        for (int k = 0; k < NJ; k++) o += (size_t)snprintf(js + o, sizeof js - o, "%s%d", k ? "," : "", i * (NJ + 1) + 1 + k);
        o += (size_t)snprintf(js + o, sizeof js - o, "]}");
    }
    snprintf(js + o, sizeof js - o,
             "],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5121,\"count\":%d,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":%d,\"type\":\"VEC4\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":%d,\"type\":\"MAT4\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/gltf-buffer;base64,%s\"}]}",
             NJ, NJ, NJ, NJ, sizeof pos, sizeof pos, sizeof jn, sizeof pos + sizeof jn, sizeof w,
             sizeof pos + sizeof jn + sizeof w, sizeof ib, sizeof buf, b64);
    free(b64);
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.data = js; d.size = strlen(js); d.hint = "gltf";
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "84 skins: %s", err.message);
    if (!a) return;
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk);
    printf("84 instances x 10-joint skins: %u joints, %u meshes, %u vertices, %u skinned instances\n", nj,
           sinew_asset_mesh_count(a), sinew_asset_vertex_count(a), sinew_asset_stats(a)->skinned_instances);
    TU_CHECK(nj == NI * NJ);
    TU_CHECK(sinew_asset_mesh_count(a) == NI && sinew_asset_vertex_count(a) == NI * NJ);
    TU_CHECK(sinew_asset_stats(a)->skins == NI && sinew_asset_stats(a)->skinned_instances == NI);
    /* rest pose: instance i's vertex k lands at (i, k, 0), through chain i's joint k */
    sinew_mat4 *gm = calloc(nj, sizeof *gm);
    TU_CHECK_OK(sinew_skeleton_fk(sk, sinew_skeleton_rest_pose(sk), NULL, gm));
    const double *rp = sinew_asset_rest_positions(a);
    const uint32_t *off, *jl; const float *wl;
    TU_CHECK_OK(sinew_asset_influences(a, &off, &jl, &wl));
    int bad = 0;
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NJ; k++) {
            uint32_t v = (uint32_t)(i * NJ + k);
            char want[32];
            snprintf(want, sizeof want, "s%dj%d", i, k);
            if (off[v + 1] - off[v] != 1 || strcmp(sinew_skeleton_name(sk, jl[off[v]]), want)) { bad++; continue; }
            sinew_mat4 T = sinew_mat4_mul(&gm[jl[off[v]]], sinew_skeleton_inverse_bind(sk, jl[off[v]]));
            sinew_vec3 p = sinew_mat4_transform_point(&T, sinew_v3(rp[v * 3], rp[v * 3 + 1], rp[v * 3 + 2]));
            if (!(fabs(p.x - i) < 1e-12 && fabs(p.y - k) < 1e-12 && fabs(p.z) < 1e-12)) bad++;
        }
    TU_CHECK_MSG(bad == 0, "%d of %d vertices not skinned by their own instance's joint", bad, NI * NJ);
    free(gm);
    sinew_asset_destroy(a);
}

int main(void)
{
    test_many_skins();
    for (int i = 0; i < NNODES; i++) { rest_r[i][3] = 1; rest_s[i][0] = rest_s[i][1] = rest_s[i][2] = 1; }
    rest_r[4][2] = sin(0.15); rest_r[4][3] = cos(0.15);
    rest_s[7][0] = rest_s[7][1] = rest_s[7][2] = 2;
    for (int k = 0; k < 3; k++) { double h = k * M_PI / 6; rot_lin[k * 4 + 2] = (float)sin(h); rot_lin[k * 4 + 3] = (float)cos(h); }
    /* node 6 cubic rotation: key 0 identity, key 1 about x by 90 degrees; small tangents */
    const float rc[24] = { 0, 0, 0, 0, 0, 0, 0, 1, 0.2f, 0, 0, 0,
                           0.1f, 0.1f, 0, 0, 0.70710678f, 0, 0, 0.70710678f, 0, 0, 0, 0 };
    memcpy(rot_cubic, rc, sizeof rc);

    char dir[] = "/tmp/sinew_gltf_XXXXXX";
    TU_CHECK(mkdtemp(dir) != NULL);
    char path[512], bpath[512];
    /* 1. .gltf + external buffer (percent-encoded URI) */
    build_json("my%20data.bin");
    snprintf(path, sizeof path, "%s/ext.gltf", dir);
    write_file(path, json, strlen(json));
    snprintf(bpath, sizeof bpath, "%s/my data.bin", dir);
    write_file(bpath, G.bin, G.binlen);
    sinew_asset *a1 = load(path, "external buffer");
    if (a1) check_asset("external buffer", a1);
    /* 2. .gltf with a data URI */
    build_json(NULL);
    char *b64 = tu_base64(G.bin, G.binlen);
    char *uri = malloc(strlen(b64) + 64);
    sprintf(uri, "data:application/octet-stream;base64,%s", b64);
    build_json(uri);
    snprintf(path, sizeof path, "%s/data.gltf", dir);
    write_file(path, json, strlen(json));
    sinew_asset *a2 = load(path, "data URI");
    if (a2) check_asset("data URI", a2);
    free(b64); free(uri);

    /* 3. .glb */
    build_json(NULL);
    size_t jl = (strlen(json) + 3) & ~(size_t)3, bl = (G.binlen + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jl + 8 + bl;
    uint8_t *glb = calloc(1, total);
    uint32_t hdr[3] = { 0x46546C67u, 2, (uint32_t)total }, jh[2] = { (uint32_t)jl, 0x4E4F534Au }, bh[2] = { (uint32_t)bl, 0x004E4942u };
    memcpy(glb, hdr, 12); memcpy(glb + 12, jh, 8);
    memset(glb + 20, ' ', jl); memcpy(glb + 20, json, strlen(json));
    memcpy(glb + 20 + jl, bh, 8); memcpy(glb + 28 + jl, G.bin, G.binlen);
    snprintf(path, sizeof path, "%s/model.glb", dir);
    write_file(path, glb, total);
    sinew_asset *a3 = load(path, "glb");
    if (a3) check_asset("glb", a3);
    /* the same bytes from memory (no external file needed) */
    sinew_asset_desc d = { 0 };
    sinew_error_info err;
    d.data = glb; d.size = total;
    sinew_asset *a4 = NULL;
    TU_CHECK_OK(sinew_asset_load(&d, &a4, &err));
    if (a4) check_asset("glb from memory", a4);
    /* identical rest data all ways */
    if (a1 && a2 && a3)
        TU_CHECK(memcmp(sinew_asset_rest_positions(a1), sinew_asset_rest_positions(a2), 17 * 3 * sizeof(double)) == 0 &&
                 memcmp(sinew_asset_rest_positions(a1), sinew_asset_rest_positions(a3), 17 * 3 * sizeof(double)) == 0 &&
                 memcmp(sinew_asset_vertices(a1), sinew_asset_vertices(a3), 17 * sizeof(sinew_vertex)) == 0);
    sinew_asset_destroy(a1); sinew_asset_destroy(a2); sinew_asset_destroy(a3); sinew_asset_destroy(a4);
    free(glb);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    if (tu_failures) { fprintf(stderr, "FAIL test_asset_gltf: %d check(s) failed\n", tu_failures); return 1; }
    printf("PASS test_asset_gltf\n");
    return 0;
}
