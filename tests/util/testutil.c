#include "testutil.h"
#include <stdlib.h>
#include <string.h>

int tu_failures = 0;

tu_rng tu_rng_seeded(uint64_t fallback)
{
    tu_rng r;
    const char *env = getenv("SINEW_TEST_SEED");
    r.s = env && *env ? strtoull(env, NULL, 0) : fallback;
    fprintf(stderr, "seed: 0x%llx (replay with SINEW_TEST_SEED)\n", (unsigned long long)r.s);
    return r;
}

uint64_t tu_next(tu_rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double tu_uniform(tu_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(tu_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

uint32_t tu_range(tu_rng *r, uint32_t n) { return n ? (uint32_t)(tu_next(r) % n) : 0; }

sinew_quat tu_random_quat(tu_rng *r) /* Shoemake's uniform rotation */
{
    double u1 = tu_uniform(r, 0, 1), u2 = tu_uniform(r, 0, 2 * M_PI), u3 = tu_uniform(r, 0, 2 * M_PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    sinew_quat q = { a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3) };
    return q;
}

sinew_vec3 tu_random_vec3(tu_rng *r, double lo, double hi)
{
    sinew_vec3 v = { tu_uniform(r, lo, hi), tu_uniform(r, lo, hi), tu_uniform(r, lo, hi) };
    return v;
}

sinew_vec3 tu_random_unit(tu_rng *r)
{
    for (;;) {
        sinew_vec3 v = tu_random_vec3(r, -1, 1);
        double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        if (l > 0.1 && l <= 1) { v.x /= l; v.y /= l; v.z /= l; return v; }
    }
}

int tu_finish(const char *name)
{
    if (tu_failures) { fprintf(stderr, "FAIL %s: %d check(s) failed\n", name, tu_failures); return 1; }
    fprintf(stderr, "PASS %s\n", name);
    return 0;
}

/* ---- random skeletons, poses, influences ---- */

static sinew_quat tu_qmul(sinew_quat a, sinew_quat b)
{
    sinew_quat q = {
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z };
    double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q.x /= l; q.y /= l; q.z /= l; q.w /= l;
    return q;
}

sinew_quat tu_quat_axis_angle_random(tu_rng *r, double angle)
{
    sinew_vec3 a = tu_random_unit(r);
    double s = sin(0.5 * angle);
    sinew_quat q = { a.x * s, a.y * s, a.z * s, cos(0.5 * angle) };
    return q;
}

void tu_random_forest(tu_rng *r, uint32_t joint_count, int32_t *parents)
{
    for (uint32_t j = 0; j < joint_count; j++) {
        if (j == 0 || tu_uniform(r, 0, 1) < 0.08) parents[j] = -1;
        else if (tu_uniform(r, 0, 1) < 0.5) parents[j] = (int32_t)(j - 1);
        else parents[j] = (int32_t)tu_range(r, j);
    }
}

void tu_random_bind(tu_rng *r, uint32_t joint_count, const int32_t *parents, sinew_transform *rest_local)
{
    for (uint32_t j = 0; j < joint_count; j++) {
        sinew_transform *t = &rest_local[j];
        if (parents[j] < 0) t->translation = tu_random_vec3(r, -1, 1);
        else {
            sinew_vec3 d = tu_random_unit(r);
            double len = tu_uniform(r, 0.2, 1.0);
            t->translation.x = d.x * len; t->translation.y = d.y * len; t->translation.z = d.z * len;
        }
        t->rotation = tu_random_quat(r);
        t->scale.x = t->scale.y = t->scale.z = 1.0;
    }
}

void tu_random_pose(tu_rng *r, uint32_t joint_count, sinew_transform *local, double max_angle, double scale_prob)
{
    for (uint32_t j = 0; j < joint_count; j++) {
        sinew_quat d = tu_quat_axis_angle_random(r, tu_uniform(r, 0, max_angle));
        sinew_quat q = tu_qmul(local[j].rotation, d);
        local[j].rotation = q;
        if (scale_prob > 0 && tu_uniform(r, 0, 1) < scale_prob)
            local[j].scale = tu_random_vec3(r, 0.5, 2.0);
    }
}

void tu_random_influences(tu_rng *r, uint32_t n_vertices, uint32_t joint_count, uint32_t *joints4, float *weights4)
{
    for (uint32_t i = 0; i < n_vertices; i++) {
        uint32_t *j = joints4 + 4 * (size_t)i;
        float *w = weights4 + 4 * (size_t)i;
        uint32_t k = 1 + tu_range(r, 4), c = 0;
        double sum = 0, raw[4];
        if (k > joint_count) k = joint_count;
        while (c < k) {
            uint32_t cand = tu_range(r, joint_count), dup = 0;
            for (uint32_t a = 0; a < c; a++) dup |= j[a] == cand;
            if (!dup) { j[c] = cand; raw[c] = tu_uniform(r, 0.05, 1.0); sum += raw[c]; c++; }
        }
        for (uint32_t a = 0; a < 4; a++) {
            if (a < k) w[a] = (float)(raw[a] / sum);
            else { w[a] = 0.0f; j[a] = j[0]; }
        }
    }
}

sinew_rest_mesh *tu_random_rest_mesh(tu_rng *r, const sinew_skeleton *skel, uint32_t nv, uint32_t joint_step)
{
    const uint32_t nj = sinew_skeleton_joint_count(skel);
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv), *w = malloc(sizeof(float) * 3 * nv);
    uint32_t *jt = malloc(sizeof(uint32_t) * 3 * nv);
    sinew_rest_mesh *m = NULL;
    TU_CHECK(pos && nrm && w && jt && nj > 0);
    if (pos && nrm && w && jt && nj > 0) {
        for (uint32_t i = 0; i < nv; i++) {
            sinew_vec3 p = tu_random_vec3(r, -1, 1), n = tu_random_unit(r);
            pos[3 * i] = (float)p.x, pos[3 * i + 1] = (float)p.y, pos[3 * i + 2] = (float)p.z;
            nrm[3 * i] = (float)n.x, nrm[3 * i + 1] = (float)n.y, nrm[3 * i + 2] = (float)n.z;
            for (uint32_t k = 0; k < 3; k++) {
                jt[3 * i + k] = (i + joint_step * k) % nj;
                w[3 * i + k] = (float)tu_uniform(r, 0.1, 1.0);
            }
        }
        sinew_rest_mesh_desc d = { 0 };
        d.skeleton = skel;
        d.vertex_count = nv;
        d.positions = pos;
        d.normals = nrm;
        d.influences.per_vertex = 3;
        d.influences.joints = jt;
        d.influences.weights = w;
        TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, NULL)); /* copies what it keeps */
    }
    free(pos);
    free(nrm);
    free(w);
    free(jt);
    return m;
}

void tu_gpu_crowd_create(sinew_gpu *gpu, const sinew_skeleton *skel, const sinew_rest_mesh *rm, uint32_t max_chars,
                         uint32_t threads, const sinew_crowd_desc *opts, tu_gpu_crowd *g)
{
    const uint32_t nv = sinew_rest_mesh_vertex_count(rm), nj = sinew_skeleton_joint_count(skel);
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = nv;
    sd.max_meshes = 1;
    sd.max_instances = max_chars;
    sd.max_output_vertices = max_chars * nv;
    sd.max_palette_vec4 = max_chars * nj * 5;
    sd.keep_previous = true;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &g->sk, NULL));
    sinew_crowd_desc cd = { 0 };
    if (opts) cd = *opts;
    cd.skinner = g->sk;
    cd.max_characters = max_chars;
    cd.max_joints = nj;
    cd.threads = threads;
    cd.range_threads = 2;
    TU_CHECK_OK(sinew_crowd_create(&cd, &g->crowd, NULL));
    if (!g->sk || !g->crowd) return;
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(g->sk, rm, &g->mesh, NULL));
    sinew_crowd_model_desc md = { 0 };
    md.skeleton = skel;
    md.mesh_count = 1;
    md.meshes = &g->mesh;
    md.rest_meshes = &rm;
    TU_CHECK_OK(sinew_crowd_add_model(g->crowd, &md, &g->model, NULL));
}

void tu_gpu_crowd_destroy(tu_gpu_crowd *g)
{
    sinew_crowd_destroy(g->crowd);
    sinew_skinner_destroy(g->sk);
    g->crowd = NULL;
    g->sk = NULL;
}
