/* Generated models for the centers-of-rotation precompute benchmark
 * (bench/cor/bench_cor.c): a 19-joint character made of one tube per bone and
 * a 4-joint limb (one tube), both with automatic weights (sinew_auto_weights_packed,
 * 4 influences on every vertex: the worst case for the precompute, no vertex is
 * rigid and no two vertices share weights). */
#ifndef SINEW_BENCH_COR_MODELS_H
#define SINEW_BENCH_COR_MODELS_H

#include <sinew/sinew.h>
#include <sinew/autoweights.h>
#include <sinew/linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cor_model {
    uint32_t joint_count;
    int32_t parents[32];
    float joint_pos[32][3]; /* bind pose: translations only */
    float tail[32][3];
    uint32_t vertex_count, triangle_count;
    float *pos, *nrm;       /* 3 per vertex */
    uint32_t *tri;          /* 3 per triangle */
    sinew_vertex *v;        /* packed, automatic weights */
    sinew_skeleton *skel;
} cor_model;

static void cor_model_free(cor_model *m)
{
    free(m->pos); free(m->nrm); free(m->tri); free(m->v);
    sinew_skeleton_destroy(m->skel);
    memset(m, 0, sizeof *m);
}

/* A tube of R segments around and S rings from a to b, radius r. */
static void cor_model_tube(cor_model *m, const float a[3], const float b[3], double r, uint32_t R, uint32_t S)
{
    double ax[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    double len = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (int k = 0; k < 3; k++) ax[k] /= len;
    double h[3] = { fabs(ax[0]) < 0.9 ? 1.0 : 0.0, fabs(ax[0]) < 0.9 ? 0.0 : 1.0, 0.0 };
    double u[3] = { ax[1] * h[2] - ax[2] * h[1], ax[2] * h[0] - ax[0] * h[2], ax[0] * h[1] - ax[1] * h[0] };
    double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++) u[k] /= ul;
    double w[3] = { ax[1] * u[2] - ax[2] * u[1], ax[2] * u[0] - ax[0] * u[2], ax[0] * u[1] - ax[1] * u[0] };
    uint32_t base = m->vertex_count;
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            double t = (double)s / (S - 1), ang = 6.283185307179586 * k / R;
            uint32_t i = m->vertex_count++;
            double ri = r * (1.0 + 0.01 * sin(12.9898 * i)); /* +-1 %: no two vertices share weights */
            for (int c = 0; c < 3; c++) {
                double n = cos(ang) * u[c] + sin(ang) * w[c];
                m->pos[3 * i + c] = (float)(a[c] + t * (b[c] - a[c]) + ri * n);
                m->nrm[3 * i + c] = (float)n;
            }
        }
    for (uint32_t s = 0; s + 1 < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            uint32_t p = base + s * R + k, q = base + s * R + (k + 1) % R;
            uint32_t *o = m->tri + 3 * (size_t)m->triangle_count;
            o[0] = p; o[1] = q; o[2] = q + R; o[3] = p; o[4] = q + R; o[5] = p + R;
            m->triangle_count += 2;
        }
}

static int cor_model_finish(cor_model *m, double alpha)
{
    sinew_mat4 bind[32];
    sinew_vec3 tails[32];
    for (uint32_t j = 0; j < m->joint_count; j++) {
        { sinew_quat q0 = { 0, 0, 0, 1 }; bind[j] = sinew_mat4_from_rigid(q0, sinew_v3(m->joint_pos[j][0], m->joint_pos[j][1], m->joint_pos[j][2])); }
        tails[j] = sinew_v3(m->tail[j][0], m->tail[j][1], m->tail[j][2]);
    }
    sinew_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = m->joint_count;
    sd.parents = m->parents;
    sd.bind_global = bind;
    sd.bone_tail = tails;
    if (sinew_skeleton_create(&sd, &m->skel) != SINEW_OK) return -1;
    /* pack with one placeholder influence, then the automatic weights */
    uint32_t *jo = (uint32_t *)calloc(m->vertex_count, sizeof(uint32_t));
    float *wt = (float *)malloc(sizeof(float) * m->vertex_count);
    if (!jo || !wt) { free(jo); free(wt); return -1; }
    for (uint32_t i = 0; i < m->vertex_count; i++) wt[i] = 1.0f;
    sinew_influences inf;
    memset(&inf, 0, sizeof inf);
    inf.per_vertex = 1; inf.joints = jo; inf.weights = wt;
    sinew_result r = sinew_pack_vertices(m->vertex_count, m->pos, m->nrm, &inf, m->joint_count, m->v, NULL, NULL);
    free(jo); free(wt);
    if (r != SINEW_OK) return -1;
    sinew_auto_weights_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.alpha = alpha;
    return sinew_auto_weights_packed(m->skel, &ad, m->vertex_count, m->v) == SINEW_OK ? 0 : -1;
}

static int cor_model_alloc(cor_model *m, uint32_t nv, uint32_t nt)
{
    m->pos = (float *)malloc(sizeof(float) * 3 * nv);
    m->nrm = (float *)malloc(sizeof(float) * 3 * nv);
    m->tri = (uint32_t *)malloc(sizeof(uint32_t) * 3 * nt);
    m->v = (sinew_vertex *)malloc(sizeof(sinew_vertex) * nv);
    return m->pos && m->nrm && m->tri && m->v ? 0 : -1;
}

/* The limb: joints at x = 0, 0.3, 0.55, 0.75 (tail 0.9), one tube of radius 0.05,
 * R = 100 around, rings = vertices / 100. */
static int cor_model_limb(cor_model *m, uint32_t vertices, double alpha)
{
    memset(m, 0, sizeof *m);
    static const float xs[5] = { 0.0f, 0.3f, 0.55f, 0.75f, 0.9f };
    m->joint_count = 4;
    for (uint32_t j = 0; j < 4; j++) {
        m->parents[j] = (int32_t)j - 1;
        m->joint_pos[j][0] = xs[j]; m->joint_pos[j][1] = 0; m->joint_pos[j][2] = 0;
        m->tail[j][0] = xs[j + 1]; m->tail[j][1] = 0; m->tail[j][2] = 0;
    }
    uint32_t R = 100, S = vertices / R;
    if (S < 2) S = 2;
    if (cor_model_alloc(m, R * S, 2 * R * (S - 1))) return -1;
    const float a[3] = { 0, 0, 0 }, b[3] = { 0.9f, 0, 0 };
    cor_model_tube(m, a, b, 0.05, R, S);
    return cor_model_finish(m, alpha);
}

/* The character: 19 joints (pelvis, spine, chest, neck, head, two arms of
 * shoulder, upper arm, forearm, hand, two legs of thigh, shin, foot), one open
 * tube per bone with 64 segments around and rings in proportion to the bone's
 * length, about `vertices` in all. */
static int cor_model_character(cor_model *m, uint32_t vertices, double alpha)
{
    memset(m, 0, sizeof *m);
    static const struct { int32_t parent; float p[3], t[3]; float r; } J[19] = {
        { -1, { 0.00f, 1.00f, 0 }, { 0.00f, 1.20f, 0 }, 0.15f },  /* pelvis */
        { 0, { 0.00f, 1.20f, 0 }, { 0.00f, 1.40f, 0 }, 0.14f },   /* spine */
        { 1, { 0.00f, 1.40f, 0 }, { 0.00f, 1.60f, 0 }, 0.15f },   /* chest */
        { 2, { 0.00f, 1.60f, 0 }, { 0.00f, 1.70f, 0 }, 0.06f },   /* neck */
        { 3, { 0.00f, 1.70f, 0 }, { 0.00f, 1.95f, 0 }, 0.10f },   /* head */
        { 2, { 0.10f, 1.55f, 0 }, { 0.25f, 1.55f, 0 }, 0.06f },   /* L shoulder */
        { 5, { 0.25f, 1.55f, 0 }, { 0.55f, 1.55f, 0 }, 0.05f },   /* L upper arm */
        { 6, { 0.55f, 1.55f, 0 }, { 0.80f, 1.55f, 0 }, 0.04f },   /* L forearm */
        { 7, { 0.80f, 1.55f, 0 }, { 0.95f, 1.55f, 0 }, 0.03f },   /* L hand */
        { 2, { -0.10f, 1.55f, 0 }, { -0.25f, 1.55f, 0 }, 0.06f },
        { 9, { -0.25f, 1.55f, 0 }, { -0.55f, 1.55f, 0 }, 0.05f },
        { 10, { -0.55f, 1.55f, 0 }, { -0.80f, 1.55f, 0 }, 0.04f },
        { 11, { -0.80f, 1.55f, 0 }, { -0.95f, 1.55f, 0 }, 0.03f },
        { 0, { 0.10f, 0.95f, 0 }, { 0.10f, 0.50f, 0 }, 0.08f },   /* L thigh */
        { 13, { 0.10f, 0.50f, 0 }, { 0.10f, 0.08f, 0 }, 0.06f },  /* L shin */
        { 14, { 0.10f, 0.08f, 0 }, { 0.10f, 0.02f, 0.18f }, 0.04f }, /* L foot */
        { 0, { -0.10f, 0.95f, 0 }, { -0.10f, 0.50f, 0 }, 0.08f },
        { 16, { -0.10f, 0.50f, 0 }, { -0.10f, 0.08f, 0 }, 0.06f },
        { 17, { -0.10f, 0.08f, 0 }, { -0.10f, 0.02f, 0.18f }, 0.04f },
    };
    const uint32_t R = 64;
    double total = 0, len[19];
    m->joint_count = 19;
    for (uint32_t j = 0; j < 19; j++) {
        m->parents[j] = J[j].parent;
        memcpy(m->joint_pos[j], J[j].p, sizeof J[j].p);
        memcpy(m->tail[j], J[j].t, sizeof J[j].t);
        double d[3] = { J[j].t[0] - J[j].p[0], J[j].t[1] - J[j].p[1], J[j].t[2] - J[j].p[2] };
        len[j] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        total += len[j];
    }
    uint32_t S[19], nv = 0, nt = 0;
    for (uint32_t j = 0; j < 19; j++) {
        S[j] = (uint32_t)(vertices / R * len[j] / total + 0.5);
        if (S[j] < 2) S[j] = 2;
        nv += R * S[j];
        nt += 2 * R * (S[j] - 1);
    }
    if (cor_model_alloc(m, nv, nt)) return -1;
    for (uint32_t j = 0; j < 19; j++) cor_model_tube(m, J[j].p, J[j].t, J[j].r, R, S[j]);
    return cor_model_finish(m, alpha);
}

#endif
