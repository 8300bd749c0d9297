/* The crowd path on the GPU against the float64 reference: a mixed crowd of
 * 90 characters over 4 models (the tube; random skeletons of 16 and 64 joints,
 * the 64-joint one with TWO meshes sharing its palette), every method, bulge
 * on/off, poses from arrays, a clip, a callback and the rest pose, random root
 * placements; palettes built on the thread pool straight into the mapped
 * ring, ONE dispatch per frame (sinew_crowd_update), three frames (both ring
 * slots, then the first again). Output poisoned with NaN before every frame,
 * vertices past the crowd must stay NaN. Error frames (a non-rigid pose under
 * plain DQS, too many characters for the skinner) are abandoned cleanly and the
 * next frame works. Validation clean.
 *
 * Tolerances, per character, E = bounding-box diagonal of its reference
 * positions (at least 1): position |gpu - ref| (max over xyz) <= 2e-5 * E;
 * normal |gpu - ref| <= 1e-4 (poses rotate joints by at most 0.9 rad, so
 * blended LBS matrices stay well conditioned), plus, with bulge correction, 8 x
 * the corrected normal's measured sensitivity (tu_bulge_sensitivity). */
#include "testutil.h"
#include <sinew/crowd.h>
#include <string.h>

#define NCHAR 90
#define NMODEL 4

typedef struct model {
    sinew_skeleton *skel;
    uint32_t jc;
    uint32_t mesh_count;
    sinew_mesh_id mesh_ids[2];
    uint32_t nv[2];
    sinew_vertex *verts[2];
    float *bulge[2];
    sinew_transform *rest;
} model;

static sinew_result tube_cb(void *user, const sinew_skeleton *skel, uint32_t character, double t, sinew_transform *out)
{
    (void)user; (void)skel; (void)character;
    scene_tube_pose(1.2 * sin(t), 2.0 * cos(0.7 * t), NULL, out);
    return SINEW_OK;
}

static double extent_of(const double *p, uint32_t n)
{
    double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            if (p[3 * i + k] < lo[k]) lo[k] = p[3 * i + k];
            if (p[3 * i + k] > hi[k]) hi[k] = p[3 * i + k];
        }
    double e = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return e > 1 ? e : 1;
}

/* Everything the cases share: the device, the skinner, the models, the crowd
 * and its characters, the output and reference buffers. */
typedef struct fixture {
    tu_rng rng;
    sinew_gpu *gpu;
    sinew_skinner *sk;
    model M[NMODEL];
    uint32_t model_of[NCHAR + 20];
    sinew_clip *clip;
    sinew_crowd *crowd;
    sinew_model_id model_ids[NMODEL];
    sinew_crowd_character chars[NCHAR + 20];
    sinew_mat4 roots[NCHAR + 20];
    sinew_transform *poses;
    uint32_t total; /* output vertices of the first NCHAR characters */
    float *gpos, *gnrm;
    double *rpos, *rnrm, *sens;
    sinew_palette_joint *pal;
    sinew_mat4 *scratch;
} fixture;

#define TAIL 256 /* vertices past the crowd that must stay NaN */

/* Models of the characters first: the skinner takes exactly 10 instances more
 * than the first NCHAR characters need, so NCHAR + 20 characters overflow it. */
static int create_skinner(fixture *f)
{
    static const uint32_t meshes_of[NMODEL] = { 1, 1, 2, 1 };
    uint32_t need = 0;
    for (uint32_t i = 0; i < NCHAR + 20; i++) {
        f->model_of[i] = tu_range(&f->rng, NMODEL);
        if (i < NCHAR) need += meshes_of[f->model_of[i]];
    }
    sinew_skinner_desc sd = {0};
    sd.max_instances = need + 10;
    sd.max_output_vertices = 1u << 20;
    sd.max_palette_vec4 = 1u << 16;
    sd.max_meshes = 8;
    sd.frames_in_flight = 2;
    TU_CHECK_OK(sinew_skinner_create(f->gpu, &sd, &f->sk, NULL));
    return f->sk != NULL;
}

/* Model 0: the tube. */
static void make_tube_model(model *m)
{
    scene_tube_desc td = { 24, 16, 0.1, 2 };
    uint32_t nv, ni;
    scene_tube_counts(&td, &nv, &ni);
    float *pos = malloc(12 * nv), *nrm = malloc(12 * nv), *w4 = malloc(16 * nv);
    uint32_t *j4 = malloc(16 * nv), *idx = malloc(4 * ni);
    TU_CHECK_OK(scene_tube_build(&td, pos, nrm, j4, w4, idx));
    TU_CHECK_OK(scene_tube_skeleton(NULL, &m->skel));
    m->nv[0] = nv;
    m->verts[0] = malloc(sizeof(sinew_vertex) * nv);
    sinew_influences inf = {0};
    inf.per_vertex = 4; inf.joints = j4; inf.weights = w4;
    TU_CHECK_OK(sinew_pack_vertices(nv, pos, nrm, &inf, 3, m->verts[0], NULL, NULL));
    m->mesh_count = 1;
    free(pos); free(nrm); free(w4); free(j4); free(idx);
}

/* Models 1..3: random skeletons of 16 and 64 joints, model 2 with two meshes;
 * then bulge distances and skinner meshes of every model. */
static int make_models(fixture *f)
{
    model *M = f->M;
    make_tube_model(&M[0]);
    const uint32_t jcs[NMODEL] = { 3, 16, 64, 64 };
    const uint32_t nvs[NMODEL][2] = { { 0, 0 }, { 2000, 0 }, { 3000, 1500 }, { 700, 0 } };
    for (int m = 1; m < NMODEL; m++) {
        M[m].rest = malloc(sizeof(sinew_transform) * jcs[m]);
        TU_CHECK_OK(tu_make_random_skeleton(&f->rng, jcs[m], M[m].rest, &M[m].skel));
        M[m].mesh_count = nvs[m][1] ? 2 : 1;
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            M[m].nv[k] = nvs[m][k];
            M[m].verts[k] = malloc(sizeof(sinew_vertex) * M[m].nv[k]);
            TU_CHECK_OK(tu_make_random_mesh(&f->rng, M[m].skel, M[m].nv[k], 0.3, M[m].verts[k], NULL));
        }
    }
    for (int m = 0; m < NMODEL; m++) {
        if (!M[m].skel) return 0;
        M[m].jc = sinew_skeleton_joint_count(M[m].skel);
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            M[m].bulge[k] = malloc(sizeof(float) * M[m].nv[k]);
            TU_CHECK_OK(sinew_bulge_rest_distances(M[m].skel, M[m].nv[k], M[m].verts[k], M[m].bulge[k]));
            sinew_skinner_mesh_desc md = { M[m].verts[k], M[m].nv[k], M[m].jc, M[m].bulge[k] };
            TU_CHECK_OK(sinew_skinner_add_mesh(f->sk, &md, &M[m].mesh_ids[k], NULL));
        }
    }
    return 1;
}

/* A clip for model 1: rotation keys on every joint. */
static void make_clip(fixture *f)
{
    sinew_channel_desc ch[16];
    sinew_quat_key keys[16][3];
    for (uint32_t j = 0; j < 16; j++) {
        for (int k = 0; k < 3; k++) {
            keys[j][k].time = 10.0 * k;
            keys[j][k].value = sinew_quat_mul(f->M[1].rest[j].rotation, tu_quat_axis_angle_random(&f->rng, 0.8));
        }
        memset(&ch[j], 0, sizeof ch[j]);
        ch[j].joint = j;
        ch[j].rotation_count = 3;
        ch[j].rotations = keys[j];
    }
    sinew_clip_desc cd = {0};
    cd.joint_count = 16;
    cd.channel_count = 16;
    cd.channels = ch;
    TU_CHECK_OK(sinew_clip_create(&cd, &f->clip));
}

static void create_crowd(fixture *f)
{
    sinew_crowd_desc cd = {0};
    cd.skinner = f->sk;
    cd.max_characters = NCHAR + 20;
    cd.max_joints = 64;
    TU_CHECK_OK(sinew_crowd_create(&cd, &f->crowd, NULL));
    for (int m = 0; m < NMODEL; m++) {
        sinew_crowd_model_desc md = { f->M[m].skel, f->M[m].mesh_count, f->M[m].mesh_ids, f->M[m].nv };
        TU_CHECK_OK(sinew_crowd_add_model(f->crowd, &md, &f->model_ids[m], NULL));
    }
}

/* Characters: every method, bulge on/off, random roots and times; poses from a
 * callback (tube), the clip (model 1), arrays, or the rest pose. */
static void make_characters(fixture *f)
{
    f->poses = malloc(sizeof(sinew_transform) * 64 * (NCHAR + 20));
    memset(f->chars, 0, sizeof f->chars);
    uint32_t counts[NMODEL] = { 0 }, methods[TU_PLAIN_METHODS] = { 0 };
    for (uint32_t i = 0; i < NCHAR + 20; i++) {
        sinew_crowd_character *c = &f->chars[i];
        uint32_t m = f->model_of[i];
        c->model = f->model_ids[m];
        c->method = (sinew_method)(i % TU_PLAIN_METHODS);
        uint32_t bf = tu_range(&f->rng, 3);   /* none, bulge, bulge with the inner push */
        c->flags = bf ? SINEW_SKIN_BULGE_CORRECTION | (bf == 2 ? SINEW_SKIN_BULGE_INNER : 0u) : 0u;
        sinew_transform rt = { tu_random_vec3(&f->rng, -30, 30), tu_random_quat(&f->rng), sinew_v3(1, 1, 1) };
        f->roots[i] = sinew_mat4_from_transform(&rt);
        c->root = &f->roots[i];
        c->time = tu_uniform(&f->rng, 0, 30);
        uint32_t src = tu_range(&f->rng, 5);
        if (m == 0 && src < 2) {
            c->sample = tube_cb;
        } else if (m == 1 && src < 2) {
            c->clip = f->clip;
            c->wrap = tu_range(&f->rng, 2) ? SINEW_WRAP_LOOP : SINEW_WRAP_CLAMP;
        } else if (src < 4) {
            sinew_transform *p = f->poses + (size_t)64 * i;
            memcpy(p, sinew_skeleton_rest_pose(f->M[m].skel), sizeof(sinew_transform) * f->M[m].jc);
            tu_random_pose(&f->rng, f->M[m].jc, p, 0.9, c->method == SINEW_METHOD_DQS ? 0.0 : 0.3);
            c->pose = p;
        } /* else: rest pose */
        if (i < NCHAR) {
            counts[m]++;
            methods[c->method]++;
        }
    }
    fprintf(stderr, "characters per model: %u %u %u %u; per method: %u %u %u %u %u\n", counts[0], counts[1],
            counts[2], counts[3], methods[0], methods[1], methods[2], methods[3], methods[4]);
}

/* Output and reference buffers of every character (both meshes). */
static void alloc_buffers(fixture *f)
{
    f->total = 0;
    for (uint32_t i = 0; i < NCHAR; i++)
        for (uint32_t k = 0; k < f->M[f->chars[i].model.value].mesh_count; k++)
            f->total += f->M[f->chars[i].model.value].nv[k];
    f->gpos = malloc(sizeof(float) * 3 * (f->total + TAIL));
    f->gnrm = malloc(sizeof(float) * 3 * (f->total + TAIL));
    f->rpos = malloc(sizeof(double) * 3 * 3000);
    f->rnrm = malloc(sizeof(double) * 3 * 3000);
    f->sens = calloc(3000, sizeof(double));
    f->pal = malloc(sizeof(sinew_palette_joint) * 64);
    f->scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(64));
}

/* One character's output against the float64 reference (every mesh of its
 * model); returns the number of bad vertices, worst errors updated. */
static uint32_t check_character(fixture *f, int frame, uint32_t i, uint32_t bad_verts, double *worst_p, double *worst_n)
{
    sinew_transform tmp[64];
    const sinew_crowd_character *c = &f->chars[i];
    const model *mm = &f->M[c->model.value];
    const sinew_transform *local = c->pose;
    if (!local && c->clip) {
        TU_CHECK_OK(sinew_clip_sample(c->clip, mm->skel, c->time, c->wrap, tmp));
        local = tmp;
    } else if (!local && c->sample) {
        c->sample(c->sample_user, mm->skel, i, c->time, tmp);
        local = tmp;
    } else if (!local) {
        local = sinew_skeleton_rest_pose(mm->skel);
    }
    TU_CHECK_OK(sinew_palette_build(mm->skel, c->method, local, c->root, f->scratch, f->pal));
    for (uint32_t k = 0; k < mm->mesh_count; k++) {
        uint32_t first = 0, n = 0;
        TU_CHECK_OK(sinew_crowd_character_output(f->crowd, i, k, &first, &n));
        TU_CHECK(n == mm->nv[k]);
        TU_CHECK_OK(sinew_reference_skin(n, mm->verts[k], mm->bulge[k], f->pal, mm->jc, c->method, c->flags,
                                         f->rpos, f->rnrm));
        double E = extent_of(f->rpos, n);
        for (uint32_t v = 0; v < n; v++) f->sens[v] = 0.0;
        if (c->flags) {
            tu_rng sr = { 0x9e3779b97f4a7c15ull ^ ((uint64_t)frame << 32) ^ i };
            TU_CHECK_OK(tu_bulge_sensitivity(&sr, n, mm->verts[k], NULL, NULL, NULL, NULL, mm->bulge[k], f->pal, mm->jc, c->method,
                                             c->flags, f->rnrm, f->sens));
        }
        for (uint32_t v = 0; v < n; v++) {
            double ep = 0, en = 0;
            for (int a = 0; a < 3; a++) {
                double dp = fabs((double)f->gpos[3 * (size_t)(first + v) + a] - f->rpos[3 * v + a]);
                double dn = fabs((double)f->gnrm[3 * (size_t)(first + v) + a] - f->rnrm[3 * v + a]);
                if (!(dp <= ep)) ep = dp == dp ? dp : INFINITY;
                if (!(dn <= en)) en = dn == dn ? dn : INFINITY;
            }
            if (ep / E > *worst_p) *worst_p = ep / E;
            if (en > *worst_n) *worst_n = en;
            if (!(ep <= 2e-5 * E) || !(en <= 1e-4 + 8.0 * f->sens[v])) {
                if (bad_verts++ < 5)
                    TU_CHECK_MSG(0, "frame %d char %u (model %u, %s%s) mesh %u vertex %u: pos err %.3g (E %.3g), nrm err %.3g",
                                 frame, i, c->model.value, sinew_method_name(c->method), !c->flags ? "" : (c->flags & SINEW_SKIN_BULGE_INNER) ? "+inner" : "+bulge", k, v,
                                 ep, E, en);
            }
        }
    }
    return bad_verts;
}

/* Three frames (both ring slots, then the first again), ONE dispatch each:
 * every character matches the reference, vertices past the crowd stay NaN. */
static void test_frames_match_reference(fixture *f)
{
    for (int frame = 0; frame < 3; frame++) {
        if (frame > 0)
            for (uint32_t i = 0; i < NCHAR; i++) f->chars[i].time += 0.37;
        TU_CHECK_OK(sinew_debug_poison_output(f->sk, 0, f->total + TAIL, 0x7fc00000u));
        sinew_crowd_stats st;
        sinew_error_info cerr;
        TU_CHECK_OK(sinew_crowd_update(f->crowd, f->chars, NCHAR, &st, &cerr));
        TU_CHECK_OK(sinew_skinner_wait(f->sk));
        TU_CHECK(st.characters == NCHAR);
        TU_CHECK(st.output_vertices == f->total);
        TU_CHECK_OK(sinew_skinner_read_output(f->sk, 0, f->total + TAIL, f->gpos, f->gnrm));
        double gms = 0;
        TU_CHECK_OK(sinew_skinner_gpu_time(f->sk, &gms));
        fprintf(stderr, "frame %d: %u instances, %u vertices, %llu joints, cpu %.3f ms, gpu %.3f ms\n", frame,
                st.instances, st.output_vertices, (unsigned long long)st.joints, st.cpu_ms, gms);

        double worst_p = 0, worst_n = 0;
        uint32_t bad_verts = 0;
        for (uint32_t i = 0; i < NCHAR; i++) bad_verts = check_character(f, frame, i, bad_verts, &worst_p, &worst_n);
        uint32_t untouched = 0;
        for (uint32_t v = f->total; v < f->total + TAIL; v++) untouched += isnan(f->gpos[3 * v]) && isnan(f->gnrm[3 * v + 2]);
        TU_CHECK_MSG(untouched == TAIL, "%u of %u vertices past the crowd were written", TAIL - untouched, TAIL);
        fprintf(stderr, "frame %d: worst position error %.3g * E, worst normal error %.3g, %u bad vertices\n", frame,
                worst_p, worst_n, bad_verts);
        TU_CHECK(bad_verts == 0);
    }
}

/* Error frames (a non-rigid pose under plain DQS, too many characters for the
 * skinner, an unknown model) are abandoned; the next frame works. */
static void test_error_frames_abandoned(fixture *f)
{
    sinew_crowd_character *chars = f->chars;
    uint32_t victim = 17;
    sinew_crowd_character save = chars[victim];
    sinew_transform big[64];
    memcpy(big, sinew_skeleton_rest_pose(f->M[chars[victim].model.value].skel), sizeof(sinew_transform) * f->M[chars[victim].model.value].jc);
    for (uint32_t j = 0; j < f->M[chars[victim].model.value].jc; j++) big[j].scale = sinew_v3(2, 2, 2);
    chars[victim].method = SINEW_METHOD_DQS;
    chars[victim].pose = big;
    chars[victim].clip = NULL;
    chars[victim].sample = NULL;
    sinew_error_info cerr;
    TU_CHECK_RESULT(sinew_crowd_update(f->crowd, chars, NCHAR, NULL, &cerr), SINEW_ERROR_NOT_RIGID);
    TU_CHECK(cerr.index == victim);
    chars[victim] = save;
    /* more instances than the skinner takes (crowd capacity is larger) */
    TU_CHECK_RESULT(sinew_crowd_update(f->crowd, chars, NCHAR + 20, NULL, &cerr), SINEW_ERROR_CAPACITY);
    TU_CHECK_RESULT(sinew_crowd_update(f->crowd, chars, NCHAR + 21, NULL, &cerr), SINEW_ERROR_CAPACITY);
    chars[3].model.value = 99;
    TU_CHECK_RESULT(sinew_crowd_update(f->crowd, chars, NCHAR, NULL, &cerr), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(cerr.index == 3);
    chars[3] = chars[4];
    TU_CHECK_RESULT(sinew_crowd_character_output(f->crowd, NCHAR + 5, 0, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    /* and a good frame afterwards */
    TU_CHECK_OK(sinew_debug_poison_output(f->sk, 0, 16, 0x7fc00000u));
    TU_CHECK_OK(sinew_crowd_update(f->crowd, chars, NCHAR, NULL, &cerr));
    TU_CHECK_OK(sinew_skinner_wait(f->sk));
    TU_CHECK_OK(sinew_skinner_read_output(f->sk, 0, 16, f->gpos, f->gnrm));
    uint32_t finite = 0;
    for (int k = 0; k < 48; k++) finite += isfinite(f->gpos[k]);
    TU_CHECK(finite == 48);
}

/* A crowd without a skinner cannot prepare. */
static void test_crowd_without_skinner(fixture *f)
{
    sinew_crowd_desc cpu = {0};
    sinew_crowd *c2 = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cpu, &c2, NULL));
    TU_CHECK_RESULT(sinew_crowd_update(c2, f->chars, 1, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_crowd_destroy(c2);
}

/* Destroys everything; validation must have stayed clean. */
static void destroy_fixture(fixture *f)
{
    sinew_crowd_destroy(f->crowd);
    sinew_skinner_destroy(f->sk);
    uint32_t msgs = sinew_debug_validation_message_count(f->gpu);
    TU_CHECK_MSG(msgs == 0, "%u validation messages", msgs);
    sinew_gpu_destroy(f->gpu);
    sinew_clip_destroy(f->clip);
    for (int m = 0; m < NMODEL; m++) {
        sinew_skeleton_destroy(f->M[m].skel);
        free(f->M[m].rest);
        for (uint32_t k = 0; k < 2; k++) {
            free(f->M[m].verts[k]);
            free(f->M[m].bulge[k]);
        }
    }
    free(f->poses); free(f->gpos); free(f->gnrm); free(f->rpos); free(f->rnrm); free(f->sens); free(f->pal); free(f->scratch);
}

/* Skipping what nobody sees: every 3rd character hidden, every 5th (not hidden)
 * updated every 2nd frame. Skipped characters keep their previous output bit for
 * bit (and would have changed: their pose moved), the others match the reference,
 * the stats count them; over two frames the update_every characters alternate.
 * Runs right after test_frames_match_reference (3 frames): crowd frames 3, 4, 5. */
static void test_skipped_characters(fixture *f)
{
    size_t bytes = sizeof(float) * 3 * f->total;
    float *prev = malloc(bytes);
    TU_CHECK_OK(sinew_crowd_update(f->crowd, f->chars, NCHAR, NULL, NULL)); /* frame 3: everyone */
    TU_CHECK_OK(sinew_skinner_wait(f->sk));
    TU_CHECK_OK(sinew_skinner_read_output(f->sk, 0, f->total, f->gpos, f->gnrm));
    for (uint32_t i = 0; i < NCHAR; i++) {
        f->chars[i].hidden = i % 3 == 0;
        f->chars[i].update_every = i % 3 != 0 && i % 5 == 0 ? 2u : 0u;
    }
    for (uint64_t frame = 4; frame <= 5; frame++) {
        memcpy(prev, f->gpos, bytes);
        for (uint32_t i = 0; i < NCHAR; i++) f->chars[i].time += 0.41;
        sinew_crowd_stats st;
        TU_CHECK_OK(sinew_crowd_update(f->crowd, f->chars, NCHAR, &st, NULL));
        TU_CHECK_OK(sinew_skinner_wait(f->sk));
        TU_CHECK_OK(sinew_skinner_read_output(f->sk, 0, f->total, f->gpos, f->gnrm));
        uint32_t skipped = 0, kept_bits = 0, moved = 0, bad = 0, skinned_verts = 0;
        double wp = 0, wn = 0;
        for (uint32_t i = 0; i < NCHAR; i++) {
            const sinew_crowd_character *c = &f->chars[i];
            int skip = c->hidden || (c->update_every > 1 && (frame + i) % c->update_every != 0);
            const model *mm = &f->M[c->model.value];
            if (!skip) {
                bad = check_character(f, (int)frame, i, bad, &wp, &wn);
                for (uint32_t k = 0; k < mm->mesh_count; k++) skinned_verts += mm->nv[k];
                continue;
            }
            skipped++;
            for (uint32_t k = 0; k < mm->mesh_count; k++) {
                uint32_t first = 0, n = 0;
                TU_CHECK_OK(sinew_crowd_character_output(f->crowd, i, k, &first, &n));
                int same = !memcmp(prev + 3 * (size_t)first, f->gpos + 3 * (size_t)first, sizeof(float) * 3 * n);
                kept_bits += same;
                /* what it would be now: differs from the kept output for a moving character */
                if (mm->mesh_count != 1) continue; /* f->rpos holds the last mesh's reference */
                check_character(f, (int)frame, i, 1000000u, &(double){ 0 }, &(double){ 0 });
                for (uint32_t v = 0; v < n && !moved; v++)
                    if (fabs(f->rpos[3 * v] - prev[3 * (size_t)(first + v)]) > 1e-3) moved = 1;
            }
        }
        uint32_t want_skipped = 0, want_meshes = 0;
        for (uint32_t i = 0; i < NCHAR; i++) {
            const sinew_crowd_character *c = &f->chars[i];
            if (c->hidden || (c->update_every > 1 && (frame + i) % c->update_every != 0)) {
                want_skipped++;
                want_meshes += f->M[c->model.value].mesh_count;
            }
        }
        fprintf(stderr, "skip frame %llu: %u of %u characters skipped, %u skinned vertices\n",
                (unsigned long long)frame, skipped, NCHAR, skinned_verts);
        TU_CHECK(skipped == want_skipped && skipped > NCHAR / 3);
        TU_CHECK(st.skipped == skipped && st.output_vertices == skinned_verts);
        TU_CHECK_MSG(kept_bits == want_meshes, "%u of %u skipped meshes kept their output", kept_bits, want_meshes);
        TU_CHECK(moved);
        TU_CHECK(bad == 0);
    }
    for (uint32_t i = 0; i < NCHAR; i++) {
        f->chars[i].hidden = false;
        f->chars[i].update_every = 0;
    }
    free(prev);
}

int main(void)
{
    static fixture f;
    f.rng = tu_rng_seeded(0xC20ADull);
    sinew_gpu_desc gd = {0};
    sinew_result res = sinew_gpu_create(&gd, &f.gpu, NULL);
    TU_CHECK_OK(res);
    if (res != SINEW_OK) return tu_finish("test_gpu_crowd");
    fprintf(stderr, "device: %s\n", sinew_gpu_info(f.gpu)->name);
    if (!create_skinner(&f)) return tu_finish("test_gpu_crowd");
    if (!make_models(&f)) return tu_finish("test_gpu_crowd");
    make_clip(&f);
    create_crowd(&f);
    make_characters(&f);
    alloc_buffers(&f);

    test_frames_match_reference(&f);
    test_skipped_characters(&f);
    test_error_frames_abandoned(&f);
    test_crowd_without_skinner(&f);

    destroy_fixture(&f);
    return tu_finish("test_gpu_crowd");
}
