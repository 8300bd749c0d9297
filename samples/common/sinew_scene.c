/* Sinew procedural test scene: the capped tube (or box-section bar) along x,
 * its 3-joint chain, poses, and the measurements (volume, ring radius, distance
 * to bone, pose sweeps, temporal smoothness). */
#include "sinew_scene.h"

#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/metrics.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include <sinew/rest_mesh.h>
#ifdef DEMO_WITH_ASSET
#include <sinew/asset.h>
#include <sinew/anim.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCENE_PI 3.14159265358979323846
#define TUBE_MAX_VERTICES (1u << 26)

/* The quality harness's variants: add a line here and every quality table gets it. */
const scene_quality_method scene_quality_methods[] = {
    { "lbs", SINEW_METHOD_LBS, 0 },
    { "dqs", SINEW_METHOD_DQS, 0 },
    { "dqs +bulge", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION },
    { "dqs +bulge +inner", SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION | SINEW_SKIN_BULGE_INNER },
    { "cor", SINEW_METHOD_COR, 0 },   /* centers of rotation computed from the rest triangles (sinew_cor_compute) */
};
const uint32_t scene_quality_method_count = sizeof scene_quality_methods / sizeof scene_quality_methods[0];

/* Applies defaults and validates; 0 on success. */
static int tube_resolve(const scene_tube_desc *in, scene_tube_desc *out)
{
    scene_tube_desc d = { 64, 32, 0.1, 2.0, SCENE_SHAPE_TUBE };
    if (in) {
        if (in->rings) d.rings = in->rings;
        if (in->sectors) d.sectors = in->sectors;
        if (in->radius != 0.0) d.radius = in->radius;
        if (in->alpha != 0.0) d.alpha = in->alpha;
        d.shape = in->shape;
    }
    if (d.rings < 2 || d.sectors < 3) return -1;
    if (d.shape != SCENE_SHAPE_TUBE && d.shape != SCENE_SHAPE_BAR) return -1;
    if (d.shape == SCENE_SHAPE_BAR && d.sectors % 8 != 0) return -1;
    if (!(d.radius > 0.0) || !isfinite(d.radius) || !(d.alpha > 0.0) || !isfinite(d.alpha)) return -1;
    if ((uint64_t)d.rings * d.sectors > TUBE_MAX_VERTICES) return -1;
    *out = d;
    return 0;
}

static uint32_t tube_triangles(const scene_tube_desc *d)
{
    return (d->rings - 1) * d->sectors * 2 + 2 * d->sectors;
}

/* Vertex indices of triangle t (counter-clockwise seen from outside). */
static void tube_triangle(const scene_tube_desc *d, uint32_t t, uint32_t idx[3])
{
    uint32_t S = d->sectors, side = (d->rings - 1) * S * 2, ring_last = (d->rings - 1) * S;
    if (t < side) {
        uint32_t q = t / 2, r = q / S, s = q % S, s1 = (s + 1) % S;
        uint32_t a = r * S + s, b = r * S + s1, c = (r + 1) * S + s, e = (r + 1) * S + s1;
        if (t % 2 == 0) { idx[0] = a; idx[1] = b; idx[2] = c; }
        else            { idx[0] = b; idx[1] = e; idx[2] = c; }
    } else if (t < side + S) {            /* x = 0 cap, outward -x */
        uint32_t s = t - side;
        idx[0] = d->rings * S; idx[1] = (s + 1) % S; idx[2] = s;
    } else {                              /* x = 1 cap, outward +x */
        uint32_t s = t - side - S;
        idx[0] = d->rings * S + 1; idx[1] = ring_last + s; idx[2] = ring_last + (s + 1) % S;
    }
}

void scene_tube_counts(const scene_tube_desc *d, uint32_t *vertex_count, uint32_t *index_count)
{
    scene_tube_desc t;
    uint32_t v = 0, i = 0;
    if (tube_resolve(d, &t) == 0) {
        v = t.rings * t.sectors + 2;
        i = 3 * tube_triangles(&t);
    }
    if (vertex_count) *vertex_count = v;
    if (index_count) *index_count = i;
}

/* Weight of joint 1 at x (scene.h). */
static double tube_w1(double x, double alpha)
{
    if (x < 0.5) return 0.5 * pow(2.0 * x, alpha);
    return 1.0 - 0.5 * pow(2.0 - 2.0 * x, alpha);
}

static void put_vertex(uint32_t i, double x, double y, double z, double nx, double ny, double nz,
                       double alpha, float *positions, float *normals, uint32_t *joints4, float *weights4)
{
    double w1 = tube_w1(x, alpha);
    if (positions) {
        positions[3 * (size_t)i + 0] = (float)x;
        positions[3 * (size_t)i + 1] = (float)y;
        positions[3 * (size_t)i + 2] = (float)z;
    }
    if (normals) {
        normals[3 * (size_t)i + 0] = (float)nx;
        normals[3 * (size_t)i + 1] = (float)ny;
        normals[3 * (size_t)i + 2] = (float)nz;
    }
    if (joints4) {
        joints4[4 * (size_t)i + 0] = 0;
        joints4[4 * (size_t)i + 1] = 1;
        joints4[4 * (size_t)i + 2] = 2;
        joints4[4 * (size_t)i + 3] = 2;
    }
    if (weights4) {
        weights4[4 * (size_t)i + 0] = (float)(1.0 - w1);
        weights4[4 * (size_t)i + 1] = (float)w1;
        weights4[4 * (size_t)i + 2] = 0.0f;
        weights4[4 * (size_t)i + 3] = 0.0f;
    }
}

/* Ring vertex s of the cross-section: position (y, z) and normal (ny, nz). */
static void section_point(const scene_tube_desc *d, uint32_t s, double *y, double *z, double *ny, double *nz)
{
    const double r = d->radius;
    if (d->shape == SCENE_SHAPE_BAR) {
        /* u in half-edge units along the perimeter from (r, 0) towards +z; corners at odd u */
        uint32_t q = 8 * s;                       /* u = q / S, exact for corners */
        double u = (double)q / (double)d->sectors;
        static const double corner[4][2] = { { 1, 1 }, { -1, 1 }, { -1, -1 }, { 1, -1 } };
        static const double face[4][2] = { { -1, 0 }, { 0, -1 }, { 1, 0 }, { 0, 1 } }; /* direction after corner k */
        static const double fnrm[4][2] = { { 0, 1 }, { -1, 0 }, { 0, -1 }, { 1, 0 } };   /* normal of that face */
        if (q < d->sectors) {                     /* first half face y = +r */
            *y = r; *z = u * r; *ny = 1; *nz = 0;
        } else {
            uint32_t k = (q - d->sectors) / (2 * d->sectors);   /* face after corner k, k = 0..3 */
            double along = u - (1.0 + 2.0 * k);                  /* 0..2 half edges past corner k (k = 3: < 1) */
            *y = corner[k][0] * r + face[k][0] * along * r;
            *z = corner[k][1] * r + face[k][1] * along * r;
            if ((q - d->sectors) % (2 * d->sectors) == 0) {  /* exactly on corner k */
                *ny = corner[k][0] / sqrt(2.0); *nz = corner[k][1] / sqrt(2.0);
            } else {
                *ny = fnrm[k][0]; *nz = fnrm[k][1];
            }
        }
        return;
    }
    {
        double a = 2.0 * SCENE_PI * (double)s / (double)d->sectors;
        *ny = cos(a); *nz = sin(a);
        *y = r * *ny; *z = r * *nz;
    }
}

sinew_result scene_tube_build(const scene_tube_desc *desc, float *positions, float *normals,
                              uint32_t *joints4, float *weights4, uint32_t *indices)
{
    scene_tube_desc d;
    uint32_t S, R, nt;
    if (tube_resolve(desc, &d) != 0) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!positions && !normals && !joints4 && !weights4 && !indices) return SINEW_ERROR_INVALID_ARGUMENT;
    S = d.sectors;
    R = d.rings;
    for (uint32_t r = 0; r < R; r++) {
        double x = (double)r / (double)(R - 1);
        for (uint32_t s = 0; s < S; s++) {
            double y, z, ny, nz;
            section_point(&d, s, &y, &z, &ny, &nz);
            put_vertex(r * S + s, x, y, z, 0.0, ny, nz, d.alpha, positions, normals, joints4, weights4);
        }
    }
    put_vertex(R * S, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, d.alpha, positions, normals, joints4, weights4);
    put_vertex(R * S + 1, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, d.alpha, positions, normals, joints4, weights4);
    if (indices) {
        nt = tube_triangles(&d);
        for (uint32_t t = 0; t < nt; t++) tube_triangle(&d, t, indices + 3 * (size_t)t);
    }
    return SINEW_OK;
}

void scene_tube_pose(double bend_rad, double twist_rad, const sinew_vec3 *scale,
                     sinew_transform local_out[3])
{
    sinew_vec3 one = { 1.0, 1.0, 1.0 };
    sinew_quat bend = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), bend_rad);
    sinew_quat twist = sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), twist_rad);
    for (int j = 0; j < 3; j++) {
        local_out[j].translation = sinew_v3(j == 0 ? 0.0 : 0.5, 0.0, 0.0);
        local_out[j].rotation = sinew_quat_identity();
        local_out[j].scale = one;
    }
    local_out[1].rotation = sinew_quat_mul(bend, twist);  /* twist about the bone, then bend */
    if (scale) local_out[1].scale = *scale;
}

sinew_result scene_tube_skeleton(const sinew_allocator *alloc, sinew_skeleton **out)
{
    static const int32_t parents[3] = { -1, 0, 1 };
    static const char *const names[3] = { "tube_root", "tube_mid", "tube_tip" };
    sinew_transform rest[3];
    sinew_skeleton_desc sd = {0};
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    scene_tube_pose(0.0, 0.0, NULL, rest);
    sd.joint_count = 3;
    sd.parents = parents;
    sd.names = names;
    sd.rest_local = rest;
    sd.allocator = alloc;
    return sinew_skeleton_create(&sd, out);
}

double scene_mesh_volume(const double *positions, const uint32_t *indices, uint32_t index_count)
{
    /* sinew_metric_volume (sinew/metrics.h) over the vertices the triangles name */
    uint32_t nv = 0;
    double v = 0.0;
    if (!positions || !indices) return 0.0;
    index_count -= index_count % 3;
    for (uint32_t k = 0; k < index_count; k++)
        if (indices[k] >= nv) nv = indices[k] + 1;
    if (index_count == 0 || sinew_metric_volume(nv, positions, indices, index_count, &v, NULL)) return 0.0;
    return v;
}

double scene_mean_distance_to_segment(const double *positions, const uint32_t *vertex_ids,
                                      uint32_t count, sinew_vec3 a, sinew_vec3 b)
{
    double sum = 0.0;
    if (!positions || count == 0) return 0.0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = vertex_ids ? vertex_ids[k] : k;
        sinew_vec3 p = { positions[3 * (size_t)i], positions[3 * (size_t)i + 1], positions[3 * (size_t)i + 2] };
        sum += sinew_distance_to_segment(p, a, b, NULL);
    }
    return sum / count;
}

/* ---- quality ---- */

/* Volume from a position getter: skinned doubles, or the packed rest floats. */
static double tube_volume(const scene_tube_desc *d, const double *pos, const sinew_vertex *v)
{
    uint32_t nt = tube_triangles(d);
    double vol = 0.0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t idx[3];
        double p[3][3];
        tube_triangle(d, t, idx);
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                p[k][c] = pos ? pos[3 * (size_t)idx[k] + c] : (double)v[idx[k]].position[c];
        vol += p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) +
               p[0][1] * (p[1][2] * p[2][0] - p[1][0] * p[2][2]) +
               p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
    }
    return vol / 6.0;
}

/* Mean distance of ring r's vertices to their centroid. */
static double ring_radius(const scene_tube_desc *d, uint32_t r, const double *pos, const sinew_vertex *v)
{
    double c[3] = { 0, 0, 0 }, sum = 0.0;
    uint32_t S = d->sectors;
    for (uint32_t s = 0; s < S; s++)
        for (int k = 0; k < 3; k++)
            c[k] += pos ? pos[3 * (size_t)(r * S + s) + k] : (double)v[r * S + s].position[k];
    for (int k = 0; k < 3; k++) c[k] /= S;
    for (uint32_t s = 0; s < S; s++) {
        double e = 0.0;
        for (int k = 0; k < 3; k++) {
            double x = (pos ? pos[3 * (size_t)(r * S + s) + k] : (double)v[r * S + s].position[k]) - c[k];
            e += x * x;
        }
        sum += sqrt(e);
    }
    return sum / S;
}

sinew_result scene_tube_quality(const scene_tube_desc *desc, const sinew_vertex *v,
                                const float *bulge_rest, const sinew_palette_joint *palette,
                                const double *skinned, scene_tube_quality_result *out)
{
    scene_tube_desc d;
    uint32_t nv, r0, r1;
    double rest_vol, worst = -INFINITY, rr = 0.0, rs = 0.0;
    uint32_t worst_i = 0;
    if (!v || !palette || !skinned || !out || tube_resolve(desc, &d) != 0) return SINEW_ERROR_INVALID_ARGUMENT;
    nv = d.rings * d.sectors + 2;
    for (uint32_t i = 0; i < nv; i++)
        if (v[i].joints[0] >= 3) return SINEW_ERROR_JOINT_INDEX;

    r0 = (d.rings - 1) / 2;
    r1 = d.rings / 2;                      /* == r0 when rings is odd */
    rr = ring_radius(&d, r0, NULL, v) + ring_radius(&d, r1, NULL, v);
    rs = ring_radius(&d, r0, skinned, NULL) + ring_radius(&d, r1, skinned, NULL);
    out->middle_radius_ratio = rr > 0.0 ? rs / rr : 0.0;

    rest_vol = tube_volume(&d, NULL, v);
    out->volume_ratio = tube_volume(&d, skinned, NULL) / rest_vol;

    for (uint32_t i = 0; i < nv; i++) {
        uint32_t j = v[i].joints[0];
        sinew_vec3 p = { skinned[3 * (size_t)i], skinned[3 * (size_t)i + 1], skinned[3 * (size_t)i + 2] };
        double dist = sinew_distance_to_segment(p, palette[j].seg_head, palette[j].seg_tail, NULL), d0;
        if (bulge_rest) d0 = bulge_rest[i];
        else {
            /* rest segments of the tube chain: [0, 0.5], [0.5, 1], the point 1 on x */
            sinew_vec3 a = { j == 0 ? 0.0 : (j == 1 ? 0.5 : 1.0), 0, 0 };
            sinew_vec3 b = { j == 0 ? 0.5 : 1.0, 0, 0 };
            sinew_vec3 q = { v[i].position[0], v[i].position[1], v[i].position[2] };
            d0 = sinew_distance_to_segment(q, a, b, NULL);
        }
        if (dist - d0 > worst) { worst = dist - d0; worst_i = i; }
    }
    out->max_bone_distance_increase = worst;
    out->worst_vertex = worst_i;
    return SINEW_OK;
}

double scene_tube_normal_error(const scene_tube_desc *desc, const double *pos, const double *nrm,
                               const uint8_t *mask, double *mean_deg)
{
    scene_tube_desc d;
    uint32_t nv, side, S;
    double *acc, worst = 0.0, sum = 0.0;
    uint32_t count = 0;
    if (mean_deg) *mean_deg = 0.0;
    if (!pos || !nrm || tube_resolve(desc, &d) != 0) return -1.0;
    nv = d.rings * d.sectors + 2;
    S = d.sectors;
    side = (d.rings - 1) * S * 2;
    acc = calloc(3 * (size_t)nv, sizeof(double));
    if (!acc) return -2.0;
    for (uint32_t t = 0; t < side; t++) {
        uint32_t idx[3];
        const double *a, *b, *c;
        double e1[3], e2[3], n[3];
        tube_triangle(&d, t, idx);
        a = pos + 3 * (size_t)idx[0]; b = pos + 3 * (size_t)idx[1]; c = pos + 3 * (size_t)idx[2];
        for (int k = 0; k < 3; k++) { e1[k] = b[k] - a[k]; e2[k] = c[k] - a[k]; }
        /* cross product = 2 x area x unit normal: the sum is area-weighted */
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++) acc[3 * (size_t)idx[v] + k] += n[k];
    }
    for (uint32_t i = S; i < (d.rings - 1) * S; i++) {
        const double *m = acc + 3 * (size_t)i, *n = nrm + 3 * (size_t)i;
        double lm, ln, c, s, x[3], ang;
        if (mask && !mask[i]) continue;
        lm = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(lm > 0.0) || !(ln > 0.0)) { ang = 180.0; }
        else {
            /* atan2(|m x n|, m . n): accurate for small angles too */
            c = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
            x[0] = m[1] * n[2] - m[2] * n[1];
            x[1] = m[2] * n[0] - m[0] * n[2];
            x[2] = m[0] * n[1] - m[1] * n[0];
            s = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
            ang = atan2(s, c) * 180.0 / SCENE_PI;
        }
        if (ang > worst) worst = ang;
        sum += ang;
        count++;
    }
    free(acc);
    if (mean_deg && count) *mean_deg = sum / count;
    return worst;
}

/* ---- sweeps and temporal smoothness ---- */

#ifdef DEMO_WITH_ASSET /* only the asset-based study below sorts */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#endif

double scene_jump_ratio(const double *frames, uint32_t frame_count, uint32_t nv, double min_median,
                        double *max_jump)
{
    /* sinew_metric_jumps (sinew/metrics.h) with a scratch array */
    double worst = 0.0, big = 0.0, *j;
    if (max_jump) *max_jump = 0.0;
    if (!frames || frame_count < 2 || nv == 0) return 0.0;
    j = malloc(sizeof(double) * (frame_count - 1));
    if (!j) return -1.0;
    sinew_metric_jumps(frame_count, nv, frames, min_median, j, &worst, &big, NULL);
    free(j);
    if (max_jump) *max_jump = big;
    return worst;
}

/* The tube's skeleton and rest mesh (4 influences, bulge distances, triangles for
 * the centers of rotation); the packed vertices and distances through v and bulge. */
sinew_result scene_rest_mesh4(const sinew_skeleton *skel, uint32_t nv, const float *pos, const float *nrm,
                              const uint32_t *j4, const float *w4, const uint32_t *tri, uint32_t ni,
                              uint32_t max_influences, sinew_rest_mesh **out)
{
    sinew_rest_mesh_desc rd = {0};
    rd.skeleton = skel;
    rd.vertex_count = nv;
    rd.positions = pos;
    rd.normals = nrm;
    rd.influences.per_vertex = 4;
    rd.influences.joints = j4;
    rd.influences.weights = w4;
    rd.max_influences = max_influences;
    rd.triangles = ni >= 3 ? tri : NULL;
    rd.triangle_count = ni / 3;
    return sinew_rest_mesh_create(&rd, out, NULL);
}

static sinew_result scene_tube_rest(const scene_tube_desc *d, sinew_skeleton **sk, sinew_rest_mesh **rm,
                                    const sinew_vertex **v, const float **bulge)
{
    uint32_t nv = 0, ni = 0;
    scene_tube_counts(d, &nv, &ni);
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    float *w4 = malloc(sizeof(float) * 4 * nv);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * nv), *tri = malloc(sizeof(uint32_t) * (ni ? ni : 1));
    sinew_result r = pos && nrm && w4 && j4 && tri ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = scene_tube_build(d, pos, nrm, j4, w4, tri);
    if (r == SINEW_OK) r = scene_tube_skeleton(NULL, sk);
    if (r == SINEW_OK) r = scene_rest_mesh4(*sk, nv, pos, nrm, j4, w4, tri, ni, 0, rm);
    if (r == SINEW_OK) {
        *v = sinew_rest_mesh_vertices(*rm);
        *bulge = sinew_rest_mesh_bulge_distances(*rm);
    }
    free(pos); free(nrm); free(w4); free(j4); free(tri);
    return r;
}

sinew_result scene_tube_sweep(const scene_tube_desc *desc, sinew_method m, uint32_t flags, scene_sweep_kind kind,
                              double max_rad, uint32_t steps, scene_sweep_result *out)
{
    scene_tube_desc d;
    uint32_t nv = 0, ni = 0;
    const float *bulge = NULL;
    const sinew_vertex *v = NULL;
    sinew_rest_mesh *rm = NULL;
    double *frames = NULL, *nrm_out = NULL;
    sinew_mat4 *scratch = NULL;
    sinew_skeleton *sk = NULL;
    sinew_result r = SINEW_OK;
    if (!out || tube_resolve(desc, &d) != 0 || steps == 0 || !isfinite(max_rad) ||
        (kind != SCENE_SWEEP_BEND && kind != SCENE_SWEEP_TWIST))
        return SINEW_ERROR_INVALID_ARGUMENT;
    scene_tube_counts(&d, &nv, &ni);
    frames = malloc(sizeof(double) * 3 * (size_t)nv * (steps + 1));
    nrm_out = malloc(sizeof(double) * 3 * (size_t)nv);
    scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(3));
    if (!frames || !scratch || !nrm_out)
        r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = scene_tube_rest(&d, &sk, &rm, &v, &bulge);
    const float *centers = NULL;
    if (r == SINEW_OK && sinew_method_uses_centers(m)) { /* from the tube's own triangles, this thread */
        r = sinew_rest_mesh_compute_centers(rm, NULL, NULL);
        centers = sinew_rest_mesh_centers(rm);
    }
    if (r == SINEW_OK) {
        out->volume_min = INFINITY;
        out->volume_max = -INFINITY;
        out->radius_min = INFINITY;
        out->max_bone_distance_increase = -INFINITY;
        out->normal_error_max_deg = 0.0;
        out->normal_error_mean_deg = 0.0;
    }
    for (uint32_t k = 0; r == SINEW_OK && k <= steps; k++) {
        double a = max_rad * (double)k / (double)steps;
        sinew_transform local[3];
        sinew_palette_joint pal[3];
        scene_tube_quality_result q;
        double *f = frames + 3 * (size_t)nv * k;
        scene_tube_pose(kind == SCENE_SWEEP_BEND ? a : 0.0, kind == SCENE_SWEEP_TWIST ? a : 0.0, NULL, local);
        r = sinew_palette_build(sk, m, local, NULL, scratch, pal);
        if (r == SINEW_OK) r = sinew_reference_skin_cor(nv, v, NULL, centers, bulge, pal, 3, m, flags, f, nrm_out);
        if (r == SINEW_OK) r = scene_tube_quality(&d, v, bulge, pal, f, &q);
        if (r != SINEW_OK) break;
        {
            double mean, worst = scene_tube_normal_error(&d, f, nrm_out, NULL, &mean);
            if (worst < 0) { r = SINEW_ERROR_OUT_OF_HOST_MEMORY; break; }
            if (worst > out->normal_error_max_deg) out->normal_error_max_deg = worst;
            if (mean > out->normal_error_mean_deg) out->normal_error_mean_deg = mean;
        }
        if (q.volume_ratio < out->volume_min) out->volume_min = q.volume_ratio;
        if (q.volume_ratio > out->volume_max) out->volume_max = q.volume_ratio;
        if (q.middle_radius_ratio < out->radius_min) out->radius_min = q.middle_radius_ratio;
        if (q.max_bone_distance_increase > out->max_bone_distance_increase)
            out->max_bone_distance_increase = q.max_bone_distance_increase;
        out->volume_end = q.volume_ratio;
    }
    if (r == SINEW_OK) {
        out->jump_ratio = scene_jump_ratio(frames, steps + 1, nv, 1e-7, &out->max_jump);
        if (out->jump_ratio < 0) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_skeleton_destroy(sk);
    sinew_rest_mesh_destroy(rm);
    free(frames); free(scratch); free(nrm_out);
    return r;
}

sinew_result scene_tube_bulge_normals(const scene_tube_desc *desc, double bend_rad, double twist_rad,
                                      scene_bulge_normals_result *out)
{
    scene_tube_desc d;
    uint32_t nv = 0, ni = 0;
    const float *bulge = NULL;
    uint8_t *mask = NULL;
    const sinew_vertex *v = NULL;
    sinew_rest_mesh *rm = NULL;
    double *p0 = NULL, *n0 = NULL, *p1 = NULL, *n1 = NULL;
    sinew_mat4 *scratch = NULL;
    sinew_skeleton *sk = NULL;
    sinew_palette_joint pal[3];
    sinew_transform local[3];
    sinew_result r = SINEW_OK;
    if (!out || tube_resolve(desc, &d) != 0) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    scene_tube_counts(&d, &nv, &ni);
    mask = calloc(nv, 1);
    p0 = malloc(sizeof(double) * 3 * nv); n0 = malloc(sizeof(double) * 3 * nv);
    p1 = malloc(sizeof(double) * 3 * nv); n1 = malloc(sizeof(double) * 3 * nv);
    scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(3));
    if (!mask || !p0 || !n0 || !p1 || !n1 || !scratch)
        r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = scene_tube_rest(&d, &sk, &rm, &v, &bulge);
    if (r == SINEW_OK) {
        scene_tube_pose(bend_rad, twist_rad, NULL, local);
        r = sinew_palette_build(sk, SINEW_METHOD_DQS, local, NULL, scratch, pal);
    }
    if (r == SINEW_OK) r = sinew_reference_skin(nv, v, bulge, pal, 3, SINEW_METHOD_DQS, 0, p0, n0);
    if (r == SINEW_OK) r = sinew_reference_skin(nv, v, bulge, pal, 3, SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, p1, n1);
    if (r == SINEW_OK) {
        for (uint32_t i = d.sectors; i < (d.rings - 1) * d.sectors; i++) {
            const sinew_palette_joint *pj = &pal[v[i].joints[0]];
            sinew_vec3 q = { p0[3 * (size_t)i], p0[3 * (size_t)i + 1], p0[3 * (size_t)i + 2] };
            if (sinew_distance_to_segment(q, pj->seg_head, pj->seg_tail, NULL) > bulge[i] + 1e-9) {
                mask[i] = 1;
                out->corrected++;
            }
        }
        out->before_max = scene_tube_normal_error(&d, p1, n0, mask, &out->before_mean);
        out->after_max = scene_tube_normal_error(&d, p1, n1, mask, &out->after_mean);
        out->dqs_max = scene_tube_normal_error(&d, p0, n0, mask, &out->dqs_mean);
        if (out->before_max < 0 || out->after_max < 0 || out->dqs_max < 0) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_skeleton_destroy(sk);
    sinew_rest_mesh_destroy(rm);
    free(mask);
    free(p0); free(n0); free(p1); free(n1); free(scratch);
    return r;
}

sinew_result scene_tube_inner_volume(const scene_tube_desc *desc, uint32_t flags, double max_rad, uint32_t steps,
                                     scene_inner_result *out)
{
    scene_tube_desc d;
    uint32_t nv = 0, ni = 0;
    const float *bulge = NULL;
    const sinew_vertex *v = NULL;
    sinew_rest_mesh *rm = NULL;
    double *cur = NULL, *prev = NULL, rest_vol, best90 = INFINITY;
    sinew_mat4 *scratch = NULL;
    sinew_skeleton *sk = NULL;
    sinew_result r = SINEW_OK;
    if (!out || tube_resolve(desc, &d) != 0 || steps == 0 || !isfinite(max_rad)) return SINEW_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->volume_min = INFINITY;
    scene_tube_counts(&d, &nv, &ni);
    cur = malloc(sizeof(double) * 3 * nv); prev = malloc(sizeof(double) * 3 * nv);
    scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(3));
    if (!cur || !prev || !scratch) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = scene_tube_rest(&d, &sk, &rm, &v, &bulge);
    rest_vol = r == SINEW_OK ? tube_volume(&d, NULL, v) : 1.0;
    for (uint32_t k = 0; r == SINEW_OK && k <= steps; k++) {
        double a = max_rad * (double)k / (double)steps, vol;
        sinew_transform local[3];
        sinew_palette_joint pal[3];
        scene_tube_pose(a, 0.0, NULL, local);
        r = sinew_palette_build(sk, SINEW_METHOD_DQS, local, NULL, scratch, pal);
        if (r == SINEW_OK) r = sinew_reference_skin(nv, v, bulge, pal, 3, SINEW_METHOD_DQS, flags, cur, NULL);
        if (r != SINEW_OK) break;
        vol = tube_volume(&d, cur, NULL) / rest_vol;
        if (vol < out->volume_min) out->volume_min = vol;
        if (fabs(a - 0.5 * SCENE_PI) < best90) {
            uint32_t folded = 0;
            best90 = fabs(a - 0.5 * SCENE_PI);
            out->volume_at_90 = vol;
            for (uint32_t i = 0; i < d.rings * d.sectors; i++) {
                uint32_t other = v[i].joints[0] == 0 ? 1u : 0u;
                sinew_vec3 q = { cur[3 * (size_t)i], cur[3 * (size_t)i + 1], cur[3 * (size_t)i + 2] };
                if (v[i].joints[0] > 1) continue;
                if (sinew_distance_to_segment(q, pal[other].seg_head, pal[other].seg_tail, NULL) < 0.98 * d.radius) folded++;
            }
            out->folded_at_90 = folded;
        }
        if (k > 0)
            for (uint32_t i = 0; i < nv; i++) {
                double dx = cur[3 * (size_t)i] - prev[3 * (size_t)i], dy = cur[3 * (size_t)i + 1] - prev[3 * (size_t)i + 1];
                double dz = cur[3 * (size_t)i + 2] - prev[3 * (size_t)i + 2], e = sqrt(dx * dx + dy * dy + dz * dz);
                if (e > out->max_jump) out->max_jump = e;
            }
        memcpy(prev, cur, sizeof(double) * 3 * nv);
    }
    sinew_skeleton_destroy(sk);
    sinew_rest_mesh_destroy(rm);
    free(cur); free(prev); free(scratch);
    return r;
}

#ifdef DEMO_WITH_ASSET
sinew_result scene_model_quality(const struct sinew_asset *a, const scene_quality_method *qm, uint32_t frames,
                                 scene_model_quality_result *out)
{
    const sinew_skeleton *sk;
    const sinew_vertex *v;
    const sinew_clip *clip;
    uint32_t nv, jc;
    double size, dur, worst = 0.0, push = 0.0, *pb = NULL;
    uint32_t intruded = 0;
    int inner = (qm && (qm->flags & SINEW_SKIN_BULGE_INNER)) != 0;
    const float *bulge = NULL;
    sinew_rest_mesh *rm = NULL;
    sinew_transform *local = NULL;
    sinew_mat4 *scratch = NULL;
    sinew_palette_joint *pal = NULL;
    double *fr = NULL, *inc = NULL;
    sinew_method m;
    sinew_result r = SINEW_OK;
    size_t n = 0;
    if (!a || !qm || !out || frames < 3) return SINEW_ERROR_INVALID_ARGUMENT;
    sk = sinew_asset_skeleton(a);
    nv = sinew_asset_vertex_count(a);
    jc = sinew_skeleton_joint_count(sk);
    size = sinew_asset_size(a);
    clip = sinew_asset_clip_count(a) ? sinew_asset_clip(a, 0) : NULL;
    if (!clip) return SINEW_ERROR_EMPTY;
    dur = sinew_clip_duration(clip);
    m = qm->method;
    local = malloc(sizeof *local * jc);
    scratch = malloc(sizeof *scratch * sinew_palette_scratch_count(jc));
    pal = malloc(sizeof *pal * jc);
    fr = malloc(sizeof(double) * 3 * (size_t)nv * frames);
    inc = malloc(sizeof(double) * (size_t)nv * frames);
    if (inner) pb = malloc(sizeof(double) * 3 * (size_t)(nv ? nv : 1));
    if (!local || !scratch || !pal || !fr || !inc || (inner && !pb)) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    /* 4 influences, as sinew_asset_vertices */
    if (r == SINEW_OK) r = sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 4, &rm, NULL);
    v = sinew_rest_mesh_vertices(rm);
    bulge = sinew_rest_mesh_bulge_distances(rm);
    const float *centers = NULL;
    if (r == SINEW_OK && sinew_method_uses_centers(m)) { /* this thread */
        r = sinew_rest_mesh_compute_centers(rm, NULL, NULL);
        centers = sinew_rest_mesh_centers(rm);
    }
    for (uint32_t f = 0; f < frames && r == SINEW_OK; f++) {
        double *p = fr + 3 * (size_t)nv * f;
        r = sinew_clip_sample(clip, sk, dur * f / frames, SINEW_WRAP_LOOP, local);
        if (r == SINEW_OK) r = sinew_palette_build(sk, m, local, NULL, scratch, pal);
        if (r == SINEW_ERROR_NOT_RIGID && (m == SINEW_METHOD_DQS || m == SINEW_METHOD_COR)) { /* the clip scales */
            m = m == SINEW_METHOD_DQS ? SINEW_METHOD_DQS_SCALE : SINEW_METHOD_COR_SCALE;
            r = sinew_palette_build(sk, m, local, NULL, scratch, pal);
        }
        if (r == SINEW_OK) r = sinew_reference_skin_cor(nv, v, NULL, centers, bulge, pal, jc, m, qm->flags, p, NULL);
        /* the inner push against the same skinning without it: how far it moves a vertex,
         * and whether it moves one into its second joint's bone capsule (closer to that
         * joint's posed segment than at rest, and closer than without the push) */
        if (r == SINEW_OK && inner)
            r = sinew_reference_skin_cor(nv, v, NULL, centers, bulge, pal, jc, m, qm->flags & ~(uint32_t)SINEW_SKIN_BULGE_INNER,
                                         pb, NULL);
        for (uint32_t i = 0; r == SINEW_OK && inner && i < nv; i++) {
            sinew_vec3 q = { p[3 * i], p[3 * i + 1], p[3 * i + 2] }, qb = { pb[3 * i], pb[3 * i + 1], pb[3 * i + 2] };
            sinew_vec3 rp = { v[i].position[0], v[i].position[1], v[i].position[2] }, h, t;
            uint32_t j1 = v[i].joints[1];
            double mv = sinew_v3_length(sinew_v3_sub(q, qb));
            if (mv > push) push = mv;
            if (j1 == v[i].joints[0] || v[i].weights[1] == 0 || !(mv > 1e-9 * size)) continue;
            sinew_skeleton_bone_segment(sk, j1, &h, &t);
            double r1 = sinew_distance_to_segment(rp, h, t, NULL);
            double da = sinew_distance_to_segment(q, pal[j1].seg_head, pal[j1].seg_tail, NULL);
            double db = sinew_distance_to_segment(qb, pal[j1].seg_head, pal[j1].seg_tail, NULL);
            if (da < r1 && da < db) intruded++;
        }
        for (uint32_t i = 0; r == SINEW_OK && i < nv; i++) {
            sinew_vec3 q = { p[3 * i], p[3 * i + 1], p[3 * i + 2] };
            uint32_t j = v[i].joints[0];
            double dd = sinew_distance_to_segment(q, pal[j].seg_head, pal[j].seg_tail, NULL) - bulge[i];
            inc[n++] = dd;
            if (dd > worst) worst = dd;
        }
    }
    if (r == SINEW_OK) {
        double p99, mj = 0.0;
        qsort(inc, n, sizeof(double), cmp_double);
        p99 = n ? inc[(size_t)(0.99 * (double)(n - 1))] : 0.0;
        out->method_used = m;
        out->max_increase = worst / size;
        out->p99_increase = (p99 > 0 ? p99 : 0) / size;
        out->jump_ratio = scene_jump_ratio(fr, frames, nv, 1e-7 * size, &mj);
        out->max_jump = mj / size;
        out->max_inner_push = push / size;
        out->intruded = intruded;
        if (out->jump_ratio < 0) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_rest_mesh_destroy(rm);
    free(local); free(scratch); free(pal); free(fr); free(inc); free(pb);
    return r;
}
#endif
