/* Small helpers shared by Sinew's tests: a deterministic RNG, random
 * transforms, and check macros that report file:line and fail the test. */
#ifndef SINEW_TESTUTIL_H
#define SINEW_TESTUTIL_H

#include <sinew/sinew.h>
#include <sinew/debug.h>
/* Beyond the runtime (sinew.h): math, packing, bounds, the reference, bake and morph layers. */
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include "sinew_scene.h"
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* Strict C11 (-std=c11) does not define M_PI. */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct tu_rng { uint64_t s; } tu_rng;

/* Seed from SINEW_TEST_SEED if set, else from `fallback`; the seed is printed so a failure can be replayed. */
tu_rng tu_rng_seeded(uint64_t fallback);
uint64_t tu_next(tu_rng *r);
double tu_uniform(tu_rng *r, double lo, double hi);
uint32_t tu_range(tu_rng *r, uint32_t n);              /* 0 .. n-1 */
sinew_quat tu_random_quat(tu_rng *r);                  /* uniform on SO(3) */
sinew_vec3 tu_random_vec3(tu_rng *r, double lo, double hi);
sinew_vec3 tu_random_unit(tu_rng *r);

extern int tu_failures;
/* vec4 slots per joint of the largest GPU palette entry (DQS / CoR with scale and
 * bulge, 8 padded to 9; test_palette checks sinew_palette_gpu_stride against it). */
#define TU_PAL_MAX_STRIDE 9
#define TU_CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); tu_failures++; } } while (0)
#define TU_CHECK_MSG(cond, ...) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); tu_failures++; } } while (0)
#define TU_CHECK_RESULT(expr, expected) do { sinew_result tu_r_ = (expr); if (tu_r_ != (expected)) { fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #expr, sinew_result_string(tu_r_), sinew_result_string(expected)); tu_failures++; } } while (0)
#define TU_CHECK_OK(expr) TU_CHECK_RESULT(expr, SINEW_OK)
#define TU_CHECK_NEAR(a, b, tol) do { double tu_a_ = (a), tu_b_ = (b); if (!(fabs(tu_a_ - tu_b_) <= (tol))) { fprintf(stderr, "%s:%d: %s = %.9g, %s = %.9g, |diff| = %.3g > %.3g\n", __FILE__, __LINE__, #a, tu_a_, #b, tu_b_, fabs(tu_a_ - tu_b_), (double)(tol)); tu_failures++; } } while (0)
/* ---- random skeletons, poses and meshes (shared by mesh, reference, GPU and crowd tests) ----
 * These use only the RNG above and plain arithmetic, so linking them pulls nothing
 * from the library. The mesh/skeleton helpers further down are static inline so a test
 * that does not call them does not need the skeleton and mesh code at link time. */

/* Random joint forest of joint_count joints into parents: parents[0] = -1 and every
 * parent index is smaller than its child's. About 8% of the other joints are extra
 * roots; of the rest, half continue the previous joint's chain (deep chains) and half
 * attach to a uniformly chosen earlier joint (branching). */
void tu_random_forest(tu_rng *r, uint32_t joint_count, int32_t *parents);

/* Random rigid bind pose as local TRS (for sinew_skeleton_desc.rest_local): uniform
 * random rotations; non-root offsets are random directions of length 0.2 .. 1; roots
 * are placed in [-1, 1]^3; every scale is (1, 1, 1). */
void tu_random_bind(tu_rng *r, uint32_t joint_count, const int32_t *parents, sinew_transform *rest_local);

/* Randomizes a pose IN PLACE (start from a copy of the rest pose): each joint's rotation
 * becomes rotation * delta, delta a rotation about a random axis by an angle uniform in
 * [0, max_angle] radians (angles past pi give quaternions with w < 0 on purpose); with
 * probability scale_prob per joint the scale is replaced by a non-uniform one, each
 * axis uniform in [0.5, 2]. Translations are kept. */
void tu_random_pose(tu_rng *r, uint32_t joint_count, sinew_transform *local, double max_angle, double scale_prob);

/* Random influences, 4 slots per vertex (for sinew_influences with per_vertex = 4):
 * 1 .. 4 distinct joints (at most joint_count) with weights uniform in [0.05, 1]
 * normalized to sum 1 in float, in random order; unused slots have weight 0 and repeat
 * the first joint. */
void tu_random_influences(tu_rng *r, uint32_t n_vertices, uint32_t joint_count, uint32_t *joints4, float *weights4);

/* Unit-length random rotation about a random axis by exactly `angle` radians. */
sinew_quat tu_quat_axis_angle_random(tu_rng *r, double angle);

/* Builds a skeleton from tu_random_forest + tu_random_bind (rest_local). rest_local
 * (joint_count entries, may be NULL) receives the rest pose. Returns the create result. */
static inline sinew_result tu_make_random_skeleton(tu_rng *r, uint32_t joint_count,
                                                   sinew_transform *rest_local, sinew_skeleton **out)
{
    int32_t *parents = (int32_t *)malloc(sizeof(int32_t) * (joint_count ? joint_count : 1));
    sinew_transform *rest = (sinew_transform *)malloc(sizeof(sinew_transform) * (joint_count ? joint_count : 1));
    sinew_skeleton_desc d = {0};
    sinew_result res;
    if (!parents || !rest) { free(parents); free(rest); return SINEW_ERROR_OUT_OF_HOST_MEMORY; }
    tu_random_forest(r, joint_count, parents);
    tu_random_bind(r, joint_count, parents, rest);
    d.joint_count = joint_count;
    d.parents = parents;
    d.rest_local = rest;
    res = sinew_skeleton_create(&d, out);
    if (rest_local) for (uint32_t j = 0; j < joint_count; j++) rest_local[j] = rest[j];
    free(parents);
    free(rest);
    return res;
}

/* Random packed mesh of n vertices around the skeleton's bind pose: each vertex is a
 * random joint's bind position plus a random offset of length <= spread, with a random
 * unit normal and 1 .. 4 influences (tu_random_influences) whose largest weight is moved
 * to that joint, so the joint is the vertex's major joint. Packed with
 * sinew_pack_vertices; bulge_rest (n floats, may be NULL) receives
 * sinew_bulge_rest_distances. Returns the first failing library result. */
static inline sinew_result tu_make_random_mesh(tu_rng *r, const sinew_skeleton *skel, uint32_t n,
                                               double spread, sinew_vertex *out, float *bulge_rest)
{
    uint32_t jc = sinew_skeleton_joint_count(skel);
    size_t m = n ? n : 1;
    float *pos = (float *)malloc(sizeof(float) * 3 * m), *nrm = (float *)malloc(sizeof(float) * 3 * m);
    uint32_t *jo = (uint32_t *)malloc(sizeof(uint32_t) * 4 * m);
    float *we = (float *)malloc(sizeof(float) * 4 * m);
    sinew_result res = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (pos && nrm && jo && we) {
        tu_random_influences(r, n, jc, jo, we);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t home = tu_range(r, jc), *vj = jo + 4 * i;
            float *vw = we + 4 * i;
            const sinew_mat4 *b = sinew_skeleton_bind_global(skel, home);
            sinew_vec3 off = tu_random_unit(r), nn = tu_random_unit(r);
            double len = tu_uniform(r, 0, spread);
            int big = 0, at = -1;
            for (int k = 1; k < 4; k++) if (vw[k] > vw[big]) big = k;
            for (int k = 0; k < 4; k++) if (vw[k] > 0 && vj[k] == home) at = k;
            if (at >= 0) { float t = vw[at]; vw[at] = vw[big]; vw[big] = t; } /* home already listed: give it the largest weight */
            else vj[big] = home;                                              /* else it replaces the largest's joint */
            for (int k = 0; k < 4; k++) if (vw[k] == 0) vj[k] = vj[big];
            pos[3 * i + 0] = (float)(b->m[3][0] + off.x * len);
            pos[3 * i + 1] = (float)(b->m[3][1] + off.y * len);
            pos[3 * i + 2] = (float)(b->m[3][2] + off.z * len);
            nrm[3 * i + 0] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        }
        {
            sinew_influences inf = {0};
            inf.per_vertex = 4; inf.joints = jo; inf.weights = we;
            res = sinew_pack_vertices(n, pos, nrm, &inf, jc, out, NULL, NULL);
        }
        if (res == SINEW_OK && bulge_rest) res = sinew_bulge_rest_distances(skel, n, out, bulge_rest);
    }
    free(pos); free(nrm); free(jo); free(we);
    return res;
}

/* Methods 0 .. TU_PLAIN_METHODS - 1 need no per-vertex centers (every method but
 * the CoR ones, which test_cor / test_gpu_cor cover); tests that cycle through
 * methods on meshes without centers use these. */
#define TU_PLAIN_METHODS ((int)SINEW_METHOD_COR)

/* Copy of n palette entries with every double multiplied by (1 + rel u), u uniform
 * in [-1, 1] per value, then rounded to float32 as the GPU reads them. The
 * reference run on such copies against the reference run on the original measures
 * how sensitive an output is to errors of that size: the bulge-corrected normal is
 * ill-conditioned where |cof(L) n| is small or the vertex lies close to its bone
 * relative to its coordinates (reference.h step 4), and the GPU tests widen the
 * tolerance of such vertices by the measured sensitivity (tu_bulge_sensitivity). */
static inline void tu_palette_perturbed(const sinew_palette_joint *in, uint32_t n, tu_rng *r, double rel,
                                        sinew_palette_joint *out)
{
    _Static_assert(sizeof(sinew_palette_joint) % sizeof(double) == 0, "palette entry is doubles only");
    memcpy(out, in, sizeof *in * n);
    for (size_t i = 0; i < sizeof *in * n / sizeof(double); i++) {
        double *d = (double *)(void *)out + i;
        *d = (double)(float)(*d * (1.0 + rel * tu_uniform(r, -1.0, 1.0)));
    }
}

/* max_k |a_k - b_k| over the 3 components of vertex i. */
static inline double tu_vec3_diff(const double *a, const double *b, uint32_t i)
{
    double e = 0.0;
    for (int k = 0; k < 3; k++) {
        double d = fabs(a[3 * (size_t)i + k] - b[3 * (size_t)i + k]);
        if (!(d <= e)) e = d;
    }
    return e;
}

/* The two-joint CoR test tube: S rings of R vertices along x in [0, 4], radius 0.5,
 * joints 0 and 1 (joint 1 at x = 2), weights a smoothstep over x in [1.5, 2.5];
 * pos (3 R S floats), nrm (3 R S, may be NULL: the radial directions), jo / we
 * (2 per vertex), tri (6 R (S - 1) indices). Returns the triangle count. */
static inline uint32_t tu_cor_tube(uint32_t R, uint32_t S, float *pos, float *nrm, uint32_t *jo, float *we,
                                   uint32_t *tri)
{
    for (uint32_t s = 0; s < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            uint32_t i = s * R + k;
            double x = 4.0 * s / (S - 1), a = 2 * M_PI * k / R, u = x - 1.5;
            u = u < 0 ? 0 : u > 1 ? 1 : u;
            pos[3 * i] = (float)x; pos[3 * i + 1] = (float)(0.5 * cos(a)); pos[3 * i + 2] = (float)(0.5 * sin(a));
            if (nrm) { nrm[3 * i] = 0; nrm[3 * i + 1] = (float)cos(a); nrm[3 * i + 2] = (float)sin(a); }
            jo[2 * i] = 0; jo[2 * i + 1] = 1;
            we[2 * i] = (float)(1 - u * u * (3 - 2 * u)); we[2 * i + 1] = (float)(u * u * (3 - 2 * u));
        }
    uint32_t nt = 0;
    for (uint32_t s = 0; s + 1 < S; s++)
        for (uint32_t k = 0; k < R; k++) {
            uint32_t a = s * R + k, b = s * R + (k + 1) % R, *o = tri + 3 * nt;
            o[0] = a; o[1] = b; o[2] = b + R; o[3] = a; o[4] = b + R; o[5] = a + R;
            nt += 2;
        }
    return nt;
}

/* How far outside the box [lo, hi] the point p lies, the worst axis in units of the
 * box's size along it; 0 inside, INFINITY for a NaN coordinate. */
static inline double tu_box_outside(const float lo[3], const float hi[3], const double *p)
{
    double w = 0;
    for (int a = 0; a < 3; a++) {
        double s = (double)hi[a] - (double)lo[a] + 1e-30;
        double o = p[a] < lo[a] ? (lo[a] - p[a]) / s : p[a] > hi[a] ? (p[a] - hi[a]) / s : 0;
        if (!(o <= w)) w = o == o ? o : INFINITY;
    }
    return w;
}

/* Per vertex, the largest change max_k |n_k - ref_nrm_k| of the reference normals
 * over 6 draws of tu_palette_perturbed (rel 2^-20, about 16 float32 ulps): sens_out
 * (n doubles). Vertices: v (4 influences) or v8 (8); rest_pos non-NULL = the morphed
 * rest of sinew_reference_skin_rest with rest_nrm (v only; rest_nrm, if given, is
 * perturbed by 1e-4 per component as well); centers for the CoR methods. GPU tests with bulge correction add
 * 8 x this to a vertex's normal tolerance. */
static inline sinew_result tu_bulge_sensitivity(tu_rng *r, uint32_t n, const sinew_vertex *v, const sinew_vertex8 *v8,
                                                const double *rest_pos, const double *rest_nrm, const float *centers,
                                                const float *bulge,
                                                const sinew_palette_joint *pal, uint32_t jc, sinew_method method,
                                                uint32_t flags, const double *ref_nrm, double *sens_out)
{
    sinew_palette_joint *pf = (sinew_palette_joint *)malloc(sizeof *pf * (jc ? jc : 1));
    double *sp = (double *)malloc(sizeof(double) * 3 * (n ? n : 1)), *sn = (double *)malloc(sizeof(double) * 3 * (n ? n : 1));
    double *rn = rest_nrm ? (double *)malloc(sizeof(double) * 3 * (n ? n : 1)) : NULL;
    sinew_result res = (pf && sp && sn && (rn || !rest_nrm)) ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < n; i++) sens_out[i] = 0.0;
    for (int rep = 0; res == SINEW_OK && rep < 6; rep++) {
        tu_palette_perturbed(pal, jc, r, 0x1p-20, pf);
        /* a morphed rest normal reaches the GPU re-quantized to 16-bit octahedral
         * (about 1e-4): perturbed by that much too */
        for (size_t i = 0; rn && i < 3 * (size_t)n; i++) rn[i] = rest_nrm[i] + tu_uniform(r, -1e-4, 1e-4);
        if (rest_pos) res = sinew_reference_skin_rest(n, v, rest_pos, rn, bulge, pf, jc, method, flags, sp, sn);
        else if (sinew_method_uses_centers(method))
            res = sinew_reference_skin_cor(n, v, v8, centers, bulge, pf, jc, method, flags, sp, sn);
        else if (v8) res = sinew_reference_skin8(n, v8, bulge, pf, jc, method, flags, sp, sn);
        else res = sinew_reference_skin(n, v, bulge, pf, jc, method, flags, sp, sn);
        for (uint32_t i = 0; res == SINEW_OK && i < n; i++) {
            double e = tu_vec3_diff(sn, ref_nrm, i);
            if (!(e <= sens_out[i])) sens_out[i] = e;
        }
    }
    free(pf); free(sp); free(sn); free(rn);
    return res;
}

/* Condition number of a 4-influence vertex's skinned normal under the LBS stage:
 * k = ||A||_F^2 / |cof(A) n|, A the weight-blended 3x3 of the joints' skin rows
 * (LBS) or scale rows (the scale methods; 1 for the rigid DQS and CoR), n the
 * rest normal the kernel reads (n3, or the vertex's own code when n3 is NULL);
 * 1e30 when cof(A) n = 0. Since ||cof(A)||_2 <= ||A||_F^2 / sqrt(2), an error dn
 * in the rest normal moves the skinned normal by at most k |dn| / sqrt(2): large
 * only where a blend of nearly opposite transforms almost cancels. */
static inline double tu_normal_condition(const sinew_palette_joint *pal, const sinew_vertex *v, const double *n3,
                                         sinew_method method)
{
    if (method == SINEW_METHOD_DQS || method == SINEW_METHOD_COR) return 1.0;
    sinew_mat3 A;
    double f2 = 0.0;
    memset(&A, 0, sizeof A);
    for (int k = 0; k < 4; k++) {
        const sinew_mat4 *t = method == SINEW_METHOD_LBS ? &pal[v->joints[k]].skin : &pal[v->joints[k]].scale;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) A.m[c][r] += v->weights[k] / 65535.0 * t->m[c][r];
    }
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) f2 += A.m[c][r] * A.m[c][r];
    sinew_vec3 n = n3 ? sinew_v3(n3[0], n3[1], n3[2]) : sinew_oct_decode(v->normal_oct);
    sinew_mat3 C = sinew_mat3_cofactor(&A);
    double l = sinew_v3_length(sinew_mat3_mul_v3(&C, n));
    return l > 0.0 ? f2 / l : 1e30;
}

/* Ends main(): prints PASS/FAIL and returns the exit code. */
int tu_finish(const char *name);

/* sinew_skinner_destroy with a crowd or morpher still made on it: nothing freed,
 * the misuse reported through sinew_skinner_last_error (IN_USE) and the log. */
static inline void tu_check_destroy_refused(sinew_skinner *sk)
{
    sinew_skinner_destroy(sk);
    sinew_error_info e;
    sinew_skinner_last_error(sk, &e);
    TU_CHECK(e.result == SINEW_ERROR_IN_USE && e.item == SINEW_ITEM_CALL_ORDER && strstr(e.message, "still exist"));
    TU_CHECK(sinew_skinner_frames_in_flight(sk) > 0); /* still alive (ASan would see a freed one) */
}

/* A rest mesh of nv vertices: positions uniform in [-1, 1]^3, random unit normals,
 * 3 influences per vertex on joints (i + joint_step * k) % joint count with weights
 * uniform in [0.1, 1] (drawn in that order per vertex). NULL after a failed check. */
sinew_rest_mesh *tu_random_rest_mesh(tu_rng *r, const sinew_skeleton *skel, uint32_t nv, uint32_t joint_step);

/* A skinner (keep_previous, one mesh: rm) and a crowd with one model (skel, rm) for
 * up to max_chars characters with palettes of up to 5 vec4 per joint. The crowd
 * desc's skinner, max_characters, max_joints, threads and range_threads (2) are
 * set here; its other fields (e.g. lod_interpolate, root_motion) come from opts
 * (NULL: zero). Destroy with tu_gpu_crowd_destroy. */
typedef struct tu_gpu_crowd {
    sinew_skinner *sk;
    sinew_crowd *crowd;
    sinew_model_id model;
    sinew_mesh_id mesh;
} tu_gpu_crowd;
void tu_gpu_crowd_create(sinew_gpu *gpu, const sinew_skeleton *skel, const sinew_rest_mesh *rm, uint32_t max_chars,
                         uint32_t threads, const sinew_crowd_desc *opts, tu_gpu_crowd *g);
void tu_gpu_crowd_destroy(tu_gpu_crowd *g);

#endif
