/* Pose-space deformation on the tube: see scene_psd.h. */
#include "scene_psd.h"
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define NEX PSD_EXAMPLES

typedef struct psd_ctx {
    scene_tube_desc d;
    uint32_t nv, ni;
    sinew_rest_mesh *rm;       /* scene_psd_run's tube: v and bulge are its */
    const sinew_vertex *v;
    const float *bulge;
    uint32_t *idx;
    sinew_skeleton *skel;
    double *a, *b, *c, *m; /* 3 nv doubles each */
} psd_ctx;

static const double EX_BEND[NEX] = { 0, 50, 100, 150, 0, 0, 0 };
static const double EX_TWIST[NEX] = { 0, 0, 0, 0, 45, 90, 135 };
static const double ROW_BEND[] = { 0, 25, 50, 75, 100, 125, 150, 0, 0, 0, 0, 0, 0, 0, 75 };
static const double ROW_TWIST[] = { 0, 0, 0, 0, 0, 0, 0, 22.5, 45, 67.5, 90, 112.5, 135, 180, 90 };

static sinew_result palette_at(const psd_ctx *x, sinew_method m, double bend_deg, double twist_deg,
                               sinew_palette_joint pal[3], sinew_quat *driver)
{
    sinew_transform loc[3];
    sinew_mat4 scratch[16];
    scene_tube_pose(bend_deg * M_PI / 180, twist_deg * M_PI / 180, NULL, loc);
    if (driver) *driver = loc[1].rotation;
    return sinew_palette_build(x->skel, m, loc, NULL, scratch, pal);
}

static sinew_result skin(const psd_ctx *x, sinew_method m, uint32_t flags, double bend, double twist,
                         const double *rest, double *out, sinew_palette_joint pal[3])
{
    sinew_result r = palette_at(x, m, bend, twist, pal, NULL);
    if (r != SINEW_OK) return r;
    if (rest) return sinew_reference_skin_rest(x->nv, x->v, rest, NULL, x->bulge, pal, 3, m, flags, out, NULL);
    return sinew_reference_skin(x->nv, x->v, x->bulge, pal, 3, m, flags, out, NULL);
}

static sinew_result figures(const psd_ctx *x, const double *pos, const double *target,
                            const sinew_palette_joint pal[3], psd_figures *f)
{
    scene_tube_quality_result q;
    sinew_result r = scene_tube_quality(&x->d, x->v, x->bulge, pal, pos, &q);
    if (r != SINEW_OK) return r;
    f->volume_ratio = q.volume_ratio;
    f->radius_ratio = q.middle_radius_ratio;
    double md = 0;
    for (uint32_t i = 0; i < x->nv; i++) {
        double dx = pos[3 * i] - target[3 * i], dy = pos[3 * i + 1] - target[3 * i + 1],
               dz = pos[3 * i + 2] - target[3 * i + 2];
        md = fmax(md, sqrt(dx * dx + dy * dy + dz * dz));
    }
    f->max_distance = md / x->d.radius;
    return SINEW_OK;
}

/* Corrective of one example: delta = A^-1 (target - LBS(rest)) per vertex. */
static sinew_result corrective(psd_ctx *x, double bend, double twist, uint32_t *idx, float *dp, uint32_t *count)
{
    sinew_palette_joint pl[3], pd[3];
    sinew_result r = skin(x, SINEW_METHOD_LBS, 0, bend, twist, NULL, x->a, pl);
    if (r == SINEW_OK) r = skin(x, SINEW_METHOD_DQS, 0, bend, twist, NULL, x->b, pd);
    if (r != SINEW_OK) return r;
    uint32_t n = 0;
    for (uint32_t i = 0; i < x->nv; i++) {
        double A[3][3] = { { 0 } };
        for (int k = 0; k < 4; k++) {
            double w = sinew_vertex_weight(&x->v[i], k);
            const sinew_mat4 *s = &pl[x->v[i].joints[k]].skin;
            for (int rr = 0; rr < 3; rr++)
                for (int cc = 0; cc < 3; cc++) A[rr][cc] += w * s->m[cc][rr];
        }
        double e[3] = { x->b[3 * i] - x->a[3 * i], x->b[3 * i + 1] - x->a[3 * i + 1], x->b[3 * i + 2] - x->a[3 * i + 2] };
        double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                     A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
        if (!(fabs(det) > 1e-12)) continue; /* a degenerate blend: no correction possible there */
        /* Cramer's rule. */
        double sol[3];
        for (int k = 0; k < 3; k++) {
            double M[3][3];
            memcpy(M, A, sizeof M);
            for (int rr = 0; rr < 3; rr++) M[rr][k] = e[rr];
            sol[k] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                      M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) / det;
        }
        if (fabs(sol[0]) + fabs(sol[1]) + fabs(sol[2]) <= 1e-9) continue;
        idx[n] = i;
        for (int k = 0; k < 3; k++) dp[3 * n + k] = (float)sol[k];
        n++;
    }
    *count = n;
    return SINEW_OK;
}

/* The RBF-corrected LBS of every row on the GPU (morpher + skinner, one frame,
 * one character per row): largest |gpu - float64| / radius per row. */
static sinew_result gpu_rows(sinew_gpu *gpu, const psd_ctx *x, const sinew_morph_target *t, uint32_t rows,
                             const float *w, const sinew_palette_joint *pal, const double *ref, psd_report *out)
{
    sinew_skinner *sk = NULL;
    sinew_morpher *mo = NULL;
    sinew_skinner_desc sd = { 0 };
    sd.max_meshes = 1 + rows;
    sd.max_rest_vertices = x->nv * (1 + rows);
    sd.max_output_vertices = x->nv * rows;
    sd.max_instances = rows;
    float *gp = malloc(sizeof(float) * 3 * x->nv * rows);
    sinew_result r = gp ? sinew_skinner_create(gpu, &sd, &sk, NULL) : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_morpher_desc md = { 0 };
    md.max_slots = rows;
    if (r == SINEW_OK) r = sinew_morpher_create(sk, &md, &mo);
    sinew_mesh_id mesh;
    if (r == SINEW_OK) r = sinew_skinner_add_rest_mesh(sk, x->rm, &mesh, NULL);
    sinew_morph_set_id set;
    sinew_morph_error err;
    if (r == SINEW_OK) r = sinew_morpher_add_targets(mo, mesh, t, NEX, &set, &err);
    sinew_morph_item items[32];
    sinew_mesh_id meshes[32];
    sinew_instance inst[32];
    for (uint32_t k = 0; k < rows && r == SINEW_OK; k++) {
        r = sinew_morpher_add_slot(mo, set, &items[k].slot);
        items[k].weights = w + NEX * k;
        items[k].weight_count = NEX;
    }
    sinew_frame fr;
    if (r == SINEW_OK) r = sinew_skinner_begin_frame(sk, &fr);
    uint32_t stride = sinew_palette_gpu_stride(SINEW_METHOD_LBS, 0);
    for (uint32_t k = 0; k < rows && r == SINEW_OK; k++)
        r = sinew_palette_pack(SINEW_METHOD_LBS, 0, pal + 3 * k, 3, fr.palette + 4 * stride * 3 * k);
    if (r == SINEW_OK) r = sinew_morpher_set_frame(mo, items, rows, meshes, &err);
    for (uint32_t k = 0; k < rows; k++) {
        sinew_instance in = { meshes[k], SINEW_METHOD_LBS, 0, stride * 3 * k, x->nv * k };
        inst[k] = in;
    }
    if (r == SINEW_OK) r = sinew_skinner_set_instances(sk, inst, rows, NULL);
    if (r == SINEW_OK) r = sinew_skinner_submit(sk);
    if (r == SINEW_OK) r = sinew_skinner_read_output(sk, 0, x->nv * rows, gp, NULL);
    for (uint32_t k = 0; k < rows && r == SINEW_OK; k++) {
        double md2 = 0;
        for (size_t i = 0; i < (size_t)x->nv * 3; i++) {
            double d = fabs((double)gp[(size_t)x->nv * 3 * k + i] - ref[(size_t)x->nv * 3 * k + i]);
            md2 = d > md2 || d != d ? d : md2;
        }
        out->rows[k].gpu_max_diff = md2 / x->d.radius;
    }
    out->gpu = r == SINEW_OK;
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    free(gp);
    return r;
}

/* One corrective per example (x's scratch a, b used) and the driver. */
static sinew_result correctives_for(psd_ctx *x, psd_correctives *c)
{
    memset(c, 0, sizeof *c);
    c->count = NEX;
    c->indices = malloc(sizeof(uint32_t) * x->nv * NEX);
    c->deltas = malloc(sizeof(float) * 3 * x->nv * NEX);
    if (!c->indices || !c->deltas) {
        scene_psd_correctives_free(c);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    sinew_quat ex[NEX];
    sinew_palette_joint pal[3];
    sinew_result r = SINEW_OK;
    for (int e = 0; e < NEX && r == SINEW_OK; e++) {
        sinew_morph_target *t = &c->targets[e];
        if (e == 0) snprintf(c->names[e], sizeof c->names[e], "rest");
        else if (EX_BEND[e] != 0) snprintf(c->names[e], sizeof c->names[e], "bend %.0f", EX_BEND[e]);
        else snprintf(c->names[e], sizeof c->names[e], "twist %.0f", EX_TWIST[e]);
        t->name = c->names[e];
        t->indices = c->indices + (size_t)e * x->nv;
        t->position_deltas = c->deltas + (size_t)3 * e * x->nv;
        t->normal_deltas = NULL;
        r = corrective(x, EX_BEND[e], EX_TWIST[e], c->indices + (size_t)e * x->nv, c->deltas + (size_t)3 * e * x->nv,
                       &t->count);
        if (r == SINEW_OK) r = palette_at(x, SINEW_METHOD_LBS, EX_BEND[e], EX_TWIST[e], pal, &ex[e]);
        if (t->count > c->moved_vertices) c->moved_vertices = t->count;
    }
    sinew_rbf_desc rd = { 0 };
    rd.driver_count = 1;
    rd.example_count = NEX;
    rd.example_rotations = ex;
    rd.output_count = NEX;
    rd.kernel = SINEW_RBF_THIN_PLATE;
    sinew_morph_error err;
    if (r == SINEW_OK) {
        r = sinew_rbf_create(&rd, &c->rbf, &err);
        if (r != SINEW_OK) fprintf(stderr, "scene_psd: %s\n", err.message);
    }
    if (r != SINEW_OK) scene_psd_correctives_free(c);
    return r;
}

sinew_result scene_psd_correctives(uint32_t nv, const sinew_vertex *v, psd_correctives *out)
{
    psd_ctx x;
    memset(&x, 0, sizeof x);
    memset(out, 0, sizeof *out);
    if (!nv || !v) return SINEW_ERROR_INVALID_ARGUMENT;
    x.nv = nv;
    x.v = v;
    x.a = malloc(sizeof(double) * 3 * nv);
    x.b = malloc(sizeof(double) * 3 * nv);
    sinew_result r = x.a && x.b ? scene_tube_skeleton(NULL, &x.skel) : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = correctives_for(&x, out);
    sinew_skeleton_destroy(x.skel);
    free(x.a);
    free(x.b);
    return r;
}

sinew_result scene_psd_weights(const psd_correctives *c, const sinew_transform *local, float *out)
{
    if (!c || !c->rbf || !local || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    return sinew_rbf_evaluate(c->rbf, &local[1].rotation, out);
}

void scene_psd_correctives_free(psd_correctives *c)
{
    if (!c) return;
    sinew_rbf_destroy(c->rbf);
    free(c->indices);
    free(c->deltas);
    memset(c, 0, sizeof *c);
}

sinew_result scene_psd_run(psd_report *out, sinew_gpu *gpu)
{
    psd_ctx x;
    memset(&x, 0, sizeof x);
    memset(out, 0, sizeof *out);
    x.d.rings = 64;
    x.d.sectors = 32;
    x.d.radius = 0.1;
    x.d.alpha = 2.0;
    scene_tube_counts(&x.d, &x.nv, &x.ni);
    if (!x.nv) return SINEW_ERROR_INVALID_ARGUMENT;
    float *pos = malloc(sizeof(float) * 3 * x.nv), *nrm = malloc(sizeof(float) * 3 * x.nv);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * x.nv);
    float *w4 = malloc(sizeof(float) * 4 * x.nv);
    x.idx = malloc(sizeof(uint32_t) * x.ni);
    x.a = malloc(sizeof(double) * 3 * x.nv);
    x.b = malloc(sizeof(double) * 3 * x.nv);
    x.c = malloc(sizeof(double) * 3 * x.nv);
    x.m = malloc(sizeof(double) * 3 * x.nv);
    float *wrow = malloc(sizeof(float) * NEX * 32);
    sinew_palette_joint *prow = malloc(sizeof(sinew_palette_joint) * 3 * 32);
    double *psdrow = malloc(sizeof(double) * 3 * 32 * (size_t)(x.nv ? x.nv : 1));
    psd_correctives pc;
    memset(&pc, 0, sizeof pc);
    const sinew_rbf *rbf = NULL;
    sinew_result r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (!pos || !nrm || !j4 || !w4 || !x.idx || !x.a || !x.b || !x.c || !x.m ||
        !wrow || !prow || !psdrow)
        goto done;
    r = scene_tube_build(&x.d, pos, nrm, j4, w4, x.idx);
    if (r == SINEW_OK) r = scene_tube_skeleton(NULL, &x.skel);
    if (r == SINEW_OK) {
        sinew_rest_mesh_desc rd = { 0 };
        rd.skeleton = x.skel;
        rd.vertex_count = x.nv;
        rd.positions = pos;
        rd.normals = nrm;
        rd.influences = (sinew_influences){ NULL, 4, j4, w4 };
        r = sinew_rest_mesh_create(&rd, &x.rm, NULL);
    }
    if (r == SINEW_OK) {
        x.v = sinew_rest_mesh_vertices(x.rm);
        x.bulge = sinew_rest_mesh_bulge_distances(x.rm);
    }
    if (r != SINEW_OK) goto done;

    /* Correctives at the examples, and the driver. */
    r = correctives_for(&x, &pc);
    if (r != SINEW_OK) goto done;
    const sinew_morph_target *t = pc.targets;
    rbf = pc.rbf;
    out->moved_vertices = pc.moved_vertices;
    out->example_count = NEX;
    out->condition = sinew_rbf_condition(rbf);
    sinew_morph_error err;

    uint32_t rows = (uint32_t)(sizeof ROW_BEND / sizeof ROW_BEND[0]);
    for (uint32_t k = 0; k < rows && r == SINEW_OK; k++) {
        psd_row *row = &out->rows[k];
        double bend = ROW_BEND[k], twist = ROW_TWIST[k];
        row->bend_deg = bend;
        row->twist_deg = twist;
        for (int e = 0; e < NEX; e++) row->is_example |= EX_BEND[e] == bend && EX_TWIST[e] == twist;
        sinew_palette_joint pl[3], pd[3], pt[3];
        sinew_quat q;
        /* target = DQS (b), LBS (a), DQS + bulge (c) */
        r = skin(&x, SINEW_METHOD_DQS, 0, bend, twist, NULL, x.b, pt);
        if (r == SINEW_OK) r = figures(&x, x.b, x.b, pt, &row->target);
        if (r == SINEW_OK) r = skin(&x, SINEW_METHOD_LBS, 0, bend, twist, NULL, x.a, pl);
        if (r == SINEW_OK) r = figures(&x, x.a, x.b, pl, &row->lbs);
        if (r == SINEW_OK) r = skin(&x, SINEW_METHOD_DQS, SINEW_SKIN_BULGE_CORRECTION, bend, twist, NULL, x.c, pd);
        if (r == SINEW_OK) r = figures(&x, x.c, x.b, pd, &row->dqs);
        /* LBS of the corrected rest: weights from the driver, morph, skin. */
        float w[NEX];
        if (r == SINEW_OK) r = palette_at(&x, SINEW_METHOD_LBS, bend, twist, pl, &q);
        if (r == SINEW_OK) r = sinew_rbf_evaluate(rbf, &q, w);
        if (r == SINEW_OK) r = sinew_morph_reference(x.nv, x.v, t, NEX, w, x.m, NULL, &err);
        if (r == SINEW_OK) r = skin(&x, SINEW_METHOD_LBS, 0, bend, twist, x.m, x.c, pl);
        if (r == SINEW_OK) r = figures(&x, x.c, x.b, pl, &row->psd);
        memcpy(wrow + NEX * k, w, sizeof w);
        memcpy(prow + 3 * k, pl, sizeof(sinew_palette_joint) * 3);
        memcpy(psdrow + (size_t)3 * x.nv * k, x.c, sizeof(double) * 3 * x.nv);
        out->row_count = k + 1;
    }
    if (r == SINEW_OK && gpu) r = gpu_rows(gpu, &x, t, out->row_count, wrow, prow, psdrow, out);

done:
    scene_psd_correctives_free(&pc);
    sinew_skeleton_destroy(x.skel);
    sinew_rest_mesh_destroy(x.rm);
    free(pos); free(nrm); free(j4); free(w4); free(x.idx);
    free(x.a); free(x.b); free(x.c); free(x.m); free(wrow); free(prow); free(psdrow);
    return r;
}

void scene_psd_print(const psd_report *r)
{
    printf("Pose-space correctives for LBS (tube 64x32, r = 0.1, float64). Target shape = DQS (keeps volume and\n"
           "radius in bend and twist). %u examples: rest, bend 50/100/150, twist 45/90/135; thin-plate RBF on the\n"
           "joint's geodesic angle (condition %.3g); up to %u vertices moved per corrective. vol = volume / rest,\n"
           "rad = middle ring radius / rest, dist = max |p - target| / tube radius,\n"
           "removed = 1 - dist(LBS+PSD) / dist(LBS); gpu = max |GPU LBS+PSD - float64| / radius (morph pass + skinner).\n",
           r->example_count, r->condition, r->moved_vertices);
    printf("%-5s %-5s %-3s | %-20s | %-20s | %-13s | %-20s | %-7s | %s\n", "bend", "twist", "ex", "LBS vol rad dist",
           "DQS+bulge vol rad dst", "DQS vol rad", "LBS+PSD vol rad dist", "removed", "gpu");
    for (uint32_t k = 0; k < r->row_count; k++) {
        const psd_row *w = &r->rows[k];
        double removed = w->lbs.max_distance > 1e-9 ? 1.0 - w->psd.max_distance / w->lbs.max_distance : 0.0;
        char g[24] = "-";
        if (r->gpu) snprintf(g, sizeof g, "%.1e", w->gpu_max_diff);
        printf("%5.1f %5.1f %-3s | %5.3f %5.3f %6.3f | %5.3f %5.3f %6.3f | %5.3f %5.3f   | %5.3f %5.3f %6.3f | %6.0f%% | %s\n",
               w->bend_deg, w->twist_deg, w->is_example ? "yes" : "", w->lbs.volume_ratio, w->lbs.radius_ratio,
               w->lbs.max_distance, w->dqs.volume_ratio, w->dqs.radius_ratio, w->dqs.max_distance,
               w->target.volume_ratio, w->target.radius_ratio, w->psd.volume_ratio, w->psd.radius_ratio,
               w->psd.max_distance, 100.0 * removed, g);
    }
}
