/* Crowd churn: characters inserted and removed anywhere in the array every
 * frame, with update_every 1..3 and some hidden. Every visible character's
 * output range must hold ITS OWN skinned mesh every frame (each character's
 * pose is fixed, so whatever frame it was last skinned in, the right content is
 * known), checked against the float64 reference; its box (crowd.h) must hold
 * every one of its vertices; a hidden character whose range moved reports no
 * box, and one that reports a box is checked like a visible one (its range
 * its own, inside the box). Output poisoned before the first frame: a range nobody wrote is NaN and
 * fails (later frames keep what skipped characters last got, by design).
 * As crowd.h asks, a character replacing another at the same index is flagged
 * with reset_previous. Before the fix, skipped characters kept ranges that held
 * other characters' vertices after an insertion or removal before them. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <stdlib.h>
#include <string.h>

#define NJ 6
#define MAXC 24
#define NFRAMES 40
#define TOL 2e-5

typedef struct model {
    sinew_rest_mesh *rm;
    sinew_mesh_id mesh;
    sinew_model_id id;
    uint32_t nv;
} model;

typedef struct person {
    uint32_t id;
    sinew_transform pose[NJ];
    sinew_method method;
    uint32_t update_every;
    bool hidden;
} person;

static sinew_rest_mesh *make_mesh(tu_rng *r, const sinew_skeleton *skel, uint32_t nv)
{
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv), *w = malloc(sizeof(float) * 3 * nv);
    uint32_t *j = malloc(sizeof(uint32_t) * 3 * nv);
    for (uint32_t i = 0; i < nv; i++) {
        sinew_vec3 p = tu_random_vec3(r, -1, 1), n = tu_random_unit(r);
        pos[3 * i] = (float)p.x, pos[3 * i + 1] = (float)p.y, pos[3 * i + 2] = (float)p.z;
        nrm[3 * i] = (float)n.x, nrm[3 * i + 1] = (float)n.y, nrm[3 * i + 2] = (float)n.z;
        for (uint32_t k = 0; k < 3; k++) {
            j[3 * i + k] = (i + 2 * k) % NJ;
            w[3 * i + k] = (float)tu_uniform(r, 0.1, 1.0);
        }
    }
    sinew_rest_mesh_desc d = { 0 };
    d.skeleton = skel;
    d.vertex_count = nv;
    d.positions = pos;
    d.normals = nrm;
    d.influences.per_vertex = 3;
    d.influences.joints = j;
    d.influences.weights = w;
    sinew_rest_mesh *m = NULL;
    TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, NULL));
    free(pos), free(nrm), free(w), free(j);
    return m;
}

static void make_person(tu_rng *r, const sinew_skeleton *skel, uint32_t id, person *p)
{
    p->id = id;
    for (uint32_t j = 0; j < NJ; j++) {
        p->pose[j] = sinew_skeleton_rest_pose(skel)[j];
        p->pose[j].rotation = sinew_quat_mul(p->pose[j].rotation, tu_quat_axis_angle_random(r, tu_uniform(r, 0, 1.0)));
    }
    p->method = id % 3 == 0 ? SINEW_METHOD_DQS : SINEW_METHOD_LBS;
    p->update_every = 1 + id % 3;
    p->hidden = id % 7 == 3;
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0xc4a12ull);
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, NULL, &skel));
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(NULL, &gpu, NULL));
    if (!gpu || !skel) return tu_finish("test_gpu_crowd_churn");
    model M[2] = { { NULL, { 0 }, { 0 }, 300 }, { NULL, { 0 }, { 0 }, 500 } };
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 800;
    sd.max_meshes = 2;
    sd.max_instances = MAXC;
    sd.max_output_vertices = MAXC * 500;
    sd.max_palette_vec4 = MAXC * NJ * 3;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = MAXC;
    cd.max_joints = NJ;
    cd.threads = 2;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, NULL));
    if (!sk || !crowd) return tu_finish("test_gpu_crowd_churn");
    for (int k = 0; k < 2; k++) {
        M[k].rm = make_mesh(&r, skel, M[k].nv);
        TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, M[k].rm, &M[k].mesh, NULL));
        const sinew_rest_mesh *rms[1] = { M[k].rm };
        sinew_crowd_model_desc md = { 0 };
        md.skeleton = skel;
        md.mesh_count = 1;
        md.meshes = &M[k].mesh;
        md.rest_meshes = rms;
        TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &M[k].id, NULL));
    }

    static person people[MAXC];
    uint32_t count = 0, next_id = 0;
    for (; count < 12; count++) make_person(&r, skel, next_id++, &people[count]);
    static sinew_crowd_character ch[MAXC];
    static float out[3 * MAXC * 500];
    static double ref[3 * 500];
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(NJ));
    sinew_palette_joint pal[NJ];
    uint64_t checked = 0, skipped_checked = 0, hidden_moved = 0, hidden_boxed = 0;
    uint32_t last_ids[MAXC], last_count = 0;
    double worst = 0;
    for (int f = 0; f < NFRAMES; f++) {
        /* churn: remove one at a random place, insert one at a random place */
        if (f > 0 && count > 4 && tu_range(&r, 3) != 0) {
            uint32_t at = tu_range(&r, count);
            memmove(&people[at], &people[at + 1], sizeof(person) * (count - at - 1));
            count--;
        }
        if (f > 0 && count < MAXC && tu_range(&r, 3) != 0) {
            uint32_t at = tu_range(&r, count + 1);
            memmove(&people[at + 1], &people[at], sizeof(person) * (count - at));
            make_person(&r, skel, next_id++, &people[at]);
            count++;
        }
        for (uint32_t i = 0; i < count; i++) {
            memset(&ch[i], 0, sizeof ch[i]);
            ch[i].model = M[people[i].id % 2].id;
            ch[i].method = people[i].method;
            ch[i].pose = people[i].pose;
            ch[i].update_every = people[i].update_every;
            ch[i].hidden = people[i].hidden;
            /* the contract (crowd.h): another character at an index than last frame -> reset_previous */
            ch[i].reset_previous = i < last_count && last_ids[i] != people[i].id;
        }
        for (uint32_t i = 0; i < count; i++) last_ids[i] = people[i].id;
        last_count = count;
        if (f == 0) TU_CHECK_OK(sinew_debug_poison_output(sk, 0, MAXC * 500, 0x7fc00000u));
        sinew_crowd_stats st;
        sinew_error_info e;
        TU_CHECK_OK(sinew_crowd_update(crowd, ch, count, &st, &e));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, MAXC * 500, out, NULL));
        for (uint32_t i = 0; i < count; i++) {
            const model *m = &M[people[i].id % 2];
            uint32_t first = 0, n = 0;
            TU_CHECK_OK(sinew_crowd_character_output(crowd, i, 0, &first, &n));
            TU_CHECK(n == m->nv);
            float lo[3], hi[3];
            sinew_result br = sinew_crowd_character_bounds(crowd, i, lo, hi);
            if (people[i].hidden && br != SINEW_OK) {
                /* not drawn: its range may hold anything, and then it reports no box */
                hidden_moved++;
                continue;
            }
            /* drawn, or hidden with a box: the range holds its own skinned mesh, inside the box */
            TU_CHECK_MSG(br == SINEW_OK, "frame %d character %u (id %u): box %s", f, i, people[i].id,
                         sinew_result_string(br));
            hidden_boxed += people[i].hidden;
            TU_CHECK_OK(sinew_palette_build(skel, people[i].method, people[i].pose, NULL, scratch, pal));
            TU_CHECK_OK(sinew_reference_skin(m->nv, sinew_rest_mesh_vertices(m->rm), NULL, pal, NJ, people[i].method, 0,
                                             ref, NULL));
            double e_char = 0, outside = 0;
            for (uint32_t v = 0; v < 3 * m->nv; v++) {
                double d = fabs(out[3 * (size_t)first + v] - ref[v]);
                e_char = d <= e_char ? e_char : (isnan(d) ? INFINITY : d);
                double x = out[3 * (size_t)first + v];
                if (br == SINEW_OK) outside = fmax(outside, fmax(lo[v % 3] - x, x - hi[v % 3]));
            }
            TU_CHECK_MSG(e_char <= TOL, "frame %d character %u (id %u, update_every %u): output off by %g", f, i,
                         people[i].id, people[i].update_every, e_char);
            TU_CHECK_MSG(outside <= 0, "frame %d character %u: a vertex %g outside its box", f, i, outside);
            worst = fmax(worst, e_char);
            checked++;
            skipped_checked += people[i].update_every > 1;
        }
    }
    fprintf(stderr, "%llu character-frames checked (%llu with update_every > 1, %llu hidden with a box), worst %.3g; %llu hidden "
            "character-frames without a box (their range moved)\n", (unsigned long long)checked,
            (unsigned long long)skipped_checked, (unsigned long long)hidden_boxed, worst, (unsigned long long)hidden_moved);
    TU_CHECK(checked > 200 && skipped_checked > 100);
    free(scratch);
    sinew_crowd_destroy(crowd);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_skinner_destroy(sk);
    for (int k = 0; k < 2; k++) sinew_rest_mesh_destroy(M[k].rm);
    sinew_gpu_destroy(gpu);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_gpu_crowd_churn");
}
