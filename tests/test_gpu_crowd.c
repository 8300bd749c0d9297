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
 * blended LBS matrices stay well conditioned). */
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

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xC20ADull);
    sinew_gpu_desc gd = {0};
    sinew_gpu *gpu = NULL;
    sinew_result res = sinew_gpu_create(&gd, &gpu);
    TU_CHECK_OK(res);
    if (res != SINEW_OK) return tu_finish("test_gpu_crowd");
    fprintf(stderr, "device: %s\n", sinew_gpu_info(gpu)->name);

    /* models of the characters first: the skinner takes exactly 10 instances more
     * than the first NCHAR characters need, so NCHAR + 20 characters overflow it */
    static const uint32_t meshes_of[NMODEL] = { 1, 1, 2, 1 };
    uint32_t model_of[NCHAR + 20], need = 0;
    for (uint32_t i = 0; i < NCHAR + 20; i++) {
        model_of[i] = tu_range(&rng, NMODEL);
        if (i < NCHAR) need += meshes_of[model_of[i]];
    }
    sinew_skinner_desc sd = {0};
    sd.max_instances = need + 10;
    sd.max_output_vertices = 1u << 20;
    sd.max_palette_vec4 = 1u << 16;
    sd.max_meshes = 8;
    sd.frames_in_flight = 2;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk));
    if (!sk) return tu_finish("test_gpu_crowd");

    /* ---- models ---- */
    model M[NMODEL];
    memset(M, 0, sizeof M);
    {   /* 0: the tube */
        scene_tube_desc td = { 24, 16, 0.1, 2 };
        uint32_t nv, ni;
        scene_tube_counts(&td, &nv, &ni);
        float *pos = malloc(12 * nv), *nrm = malloc(12 * nv), *w4 = malloc(16 * nv);
        uint32_t *j4 = malloc(16 * nv), *idx = malloc(4 * ni);
        TU_CHECK_OK(scene_tube_build(&td, pos, nrm, j4, w4, idx));
        TU_CHECK_OK(scene_tube_skeleton(NULL, &M[0].skel));
        M[0].nv[0] = nv;
        M[0].verts[0] = malloc(sizeof(sinew_vertex) * nv);
        sinew_influences inf = {0};
        inf.per_vertex = 4; inf.joints = j4; inf.weights = w4;
        TU_CHECK_OK(sinew_pack_vertices(nv, pos, nrm, &inf, 3, M[0].verts[0], NULL, NULL));
        M[0].mesh_count = 1;
        free(pos); free(nrm); free(w4); free(j4); free(idx);
    }
    const uint32_t jcs[NMODEL] = { 3, 16, 64, 64 };
    const uint32_t nvs[NMODEL][2] = { { 0, 0 }, { 2000, 0 }, { 3000, 1500 }, { 700, 0 } };
    for (int m = 1; m < NMODEL; m++) {
        M[m].rest = malloc(sizeof(sinew_transform) * jcs[m]);
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jcs[m], M[m].rest, &M[m].skel));
        M[m].mesh_count = nvs[m][1] ? 2 : 1;
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            M[m].nv[k] = nvs[m][k];
            M[m].verts[k] = malloc(sizeof(sinew_vertex) * M[m].nv[k]);
            TU_CHECK_OK(tu_make_random_mesh(&rng, M[m].skel, M[m].nv[k], 0.3, M[m].verts[k], NULL));
        }
    }
    for (int m = 0; m < NMODEL; m++) {
        if (!M[m].skel) return tu_finish("test_gpu_crowd");
        M[m].jc = sinew_skeleton_joint_count(M[m].skel);
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            M[m].bulge[k] = malloc(sizeof(float) * M[m].nv[k]);
            TU_CHECK_OK(sinew_bulge_rest_distances(M[m].skel, M[m].nv[k], M[m].verts[k], M[m].bulge[k]));
            sinew_skinner_mesh_desc md = { M[m].verts[k], M[m].nv[k], M[m].jc, M[m].bulge[k] };
            TU_CHECK_OK(sinew_skinner_add_mesh(sk, &md, &M[m].mesh_ids[k]));
        }
    }
    /* a clip for model 1: rotation keys on every joint */
    sinew_clip *clip = NULL;
    {
        sinew_channel_desc ch[16];
        sinew_quat_key keys[16][3];
        for (uint32_t j = 0; j < 16; j++) {
            for (int k = 0; k < 3; k++) {
                keys[j][k].time = 10.0 * k;
                keys[j][k].value = sinew_quat_mul(M[1].rest[j].rotation, tu_quat_axis_angle_random(&rng, 0.8));
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
        TU_CHECK_OK(sinew_clip_create(&cd, &clip));
    }

    sinew_crowd_desc cd = {0};
    cd.skinner = sk;
    cd.max_characters = NCHAR + 20;
    cd.max_joints = 64;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd));
    sinew_model_id model_ids[NMODEL];
    for (int m = 0; m < NMODEL; m++) {
        sinew_crowd_model_desc md = { M[m].skel, M[m].mesh_count, M[m].mesh_ids, M[m].nv };
        TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &model_ids[m]));
    }

    /* ---- characters ---- */
    sinew_crowd_character chars[NCHAR + 20];
    sinew_mat4 roots[NCHAR + 20];
    sinew_transform *poses = malloc(sizeof(sinew_transform) * 64 * (NCHAR + 20));
    memset(chars, 0, sizeof chars);
    uint32_t counts[NMODEL] = { 0 }, methods[SINEW_METHOD_COUNT] = { 0 };
    for (uint32_t i = 0; i < NCHAR + 20; i++) {
        sinew_crowd_character *c = &chars[i];
        uint32_t m = model_of[i];
        c->model = model_ids[m];
        c->method = (sinew_method)(i % SINEW_METHOD_COUNT);
        c->flags = tu_range(&rng, 2) ? SINEW_SKIN_BULGE_CORRECTION : 0;
        sinew_transform rt = { tu_random_vec3(&rng, -30, 30), tu_random_quat(&rng), sinew_v3(1, 1, 1) };
        roots[i] = sinew_mat4_from_transform(&rt);
        c->root = &roots[i];
        c->time = tu_uniform(&rng, 0, 30);
        uint32_t src = tu_range(&rng, 5);
        if (m == 0 && src < 2) {
            c->sample = tube_cb;
        } else if (m == 1 && src < 2) {
            c->clip = clip;
            c->wrap = tu_range(&rng, 2) ? SINEW_WRAP_LOOP : SINEW_WRAP_CLAMP;
        } else if (src < 4) {
            sinew_transform *p = poses + (size_t)64 * i;
            memcpy(p, sinew_skeleton_rest_pose(M[m].skel), sizeof(sinew_transform) * M[m].jc);
            tu_random_pose(&rng, M[m].jc, p, 0.9, c->method == SINEW_METHOD_DQS ? 0.0 : 0.3);
            c->pose = p;
        } /* else: rest pose */
        if (i < NCHAR) {
            counts[m]++;
            methods[c->method]++;
        }
    }
    fprintf(stderr, "characters per model: %u %u %u %u; per method: %u %u %u %u %u\n", counts[0], counts[1],
            counts[2], counts[3], methods[0], methods[1], methods[2], methods[3], methods[4]);

    /* reference output of every character (both meshes) */
    uint32_t total = 0;
    for (uint32_t i = 0; i < NCHAR; i++)
        for (uint32_t k = 0; k < M[chars[i].model.value].mesh_count; k++) total += M[chars[i].model.value].nv[k];
    const uint32_t tail = 256;
    float *gpos = malloc(sizeof(float) * 3 * (total + tail)), *gnrm = malloc(sizeof(float) * 3 * (total + tail));
    double *rpos = malloc(sizeof(double) * 3 * 3000), *rnrm = malloc(sizeof(double) * 3 * 3000);
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * 64);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(64));
    sinew_transform tmp[64];

    for (int frame = 0; frame < 3; frame++) {
        if (frame > 0)
            for (uint32_t i = 0; i < NCHAR; i++) chars[i].time += 0.37;
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, total + tail, 0x7fc00000u));
        sinew_crowd_stats st;
        uint32_t bad = 0;
        TU_CHECK_OK(sinew_crowd_update(crowd, chars, NCHAR, &st, &bad));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        TU_CHECK(st.characters == NCHAR);
        TU_CHECK(st.output_vertices == total);
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, total + tail, gpos, gnrm));
        double gms = 0;
        TU_CHECK_OK(sinew_skinner_gpu_time(sk, &gms));
        fprintf(stderr, "frame %d: %u instances, %u vertices, %llu joints, cpu %.3f ms, gpu %.3f ms\n", frame,
                st.instances, st.output_vertices, (unsigned long long)st.joints, st.cpu_ms, gms);

        double worst_p = 0, worst_n = 0;
        uint32_t bad_verts = 0;
        for (uint32_t i = 0; i < NCHAR; i++) {
            const sinew_crowd_character *c = &chars[i];
            const model *mm = &M[c->model.value];
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
            TU_CHECK_OK(sinew_palette_build(mm->skel, c->method, local, c->root, scratch, pal));
            for (uint32_t k = 0; k < mm->mesh_count; k++) {
                uint32_t first = 0, n = 0;
                TU_CHECK_OK(sinew_crowd_character_output(crowd, i, k, &first, &n));
                TU_CHECK(n == mm->nv[k]);
                TU_CHECK_OK(sinew_reference_skin(n, mm->verts[k], mm->bulge[k], pal, mm->jc, c->method, c->flags,
                                                 rpos, rnrm));
                double E = extent_of(rpos, n);
                for (uint32_t v = 0; v < n; v++) {
                    double ep = 0, en = 0;
                    for (int a = 0; a < 3; a++) {
                        double dp = fabs((double)gpos[3 * (size_t)(first + v) + a] - rpos[3 * v + a]);
                        double dn = fabs((double)gnrm[3 * (size_t)(first + v) + a] - rnrm[3 * v + a]);
                        if (!(dp <= ep)) ep = dp == dp ? dp : INFINITY;
                        if (!(dn <= en)) en = dn == dn ? dn : INFINITY;
                    }
                    if (ep / E > worst_p) worst_p = ep / E;
                    if (en > worst_n) worst_n = en;
                    if (!(ep <= 2e-5 * E) || !(en <= 1e-4)) {
                        if (bad_verts++ < 5)
                            TU_CHECK_MSG(0, "frame %d char %u (model %u, %s%s) mesh %u vertex %u: pos err %.3g (E %.3g), nrm err %.3g",
                                         frame, i, c->model.value, sinew_method_name(c->method), c->flags ? "+bulge" : "", k, v,
                                         ep, E, en);
                    }
                }
            }
        }
        uint32_t untouched = 0;
        for (uint32_t v = total; v < total + tail; v++) untouched += isnan(gpos[3 * v]) && isnan(gnrm[3 * v + 2]);
        TU_CHECK_MSG(untouched == tail, "%u of %u vertices past the crowd were written", tail - untouched, tail);
        fprintf(stderr, "frame %d: worst position error %.3g * E, worst normal error %.3g, %u bad vertices\n", frame,
                worst_p, worst_n, bad_verts);
        TU_CHECK(bad_verts == 0);
    }

    /* ---- error frames are abandoned; the next frame works ---- */
    {
        uint32_t victim = 17;
        sinew_crowd_character save = chars[victim];
        sinew_transform big[64];
        memcpy(big, sinew_skeleton_rest_pose(M[chars[victim].model.value].skel), sizeof(sinew_transform) * M[chars[victim].model.value].jc);
        for (uint32_t j = 0; j < M[chars[victim].model.value].jc; j++) big[j].scale = sinew_v3(2, 2, 2);
        chars[victim].method = SINEW_METHOD_DQS;
        chars[victim].pose = big;
        chars[victim].clip = NULL;
        chars[victim].sample = NULL;
        uint32_t bad = 0;
        TU_CHECK_RESULT(sinew_crowd_update(crowd, chars, NCHAR, NULL, &bad), SINEW_ERROR_NOT_RIGID);
        TU_CHECK(bad == victim);
        chars[victim] = save;
        /* more instances than the skinner takes (crowd capacity is larger) */
        TU_CHECK_RESULT(sinew_crowd_update(crowd, chars, NCHAR + 20, NULL, &bad), SINEW_ERROR_CAPACITY);
        TU_CHECK_RESULT(sinew_crowd_update(crowd, chars, NCHAR + 21, NULL, &bad), SINEW_ERROR_CAPACITY);
        chars[3].model.value = 99;
        TU_CHECK_RESULT(sinew_crowd_update(crowd, chars, NCHAR, NULL, &bad), SINEW_ERROR_NOT_FOUND);
        TU_CHECK(bad == 3);
        chars[3] = chars[4];
        TU_CHECK_RESULT(sinew_crowd_character_output(crowd, NCHAR + 5, 0, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        /* and a good frame afterwards */
        TU_CHECK_OK(sinew_debug_poison_output(sk, 0, 16, 0x7fc00000u));
        TU_CHECK_OK(sinew_crowd_update(crowd, chars, NCHAR, NULL, &bad));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, 16, gpos, gnrm));
        uint32_t finite = 0;
        for (int k = 0; k < 48; k++) finite += isfinite(gpos[k]);
        TU_CHECK(finite == 48);
        /* a crowd without a skinner cannot prepare */
        sinew_crowd_desc cpu = {0};
        sinew_crowd *c2 = NULL;
        TU_CHECK_OK(sinew_crowd_create(&cpu, &c2));
        TU_CHECK_RESULT(sinew_crowd_update(c2, chars, 1, NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        sinew_crowd_destroy(c2);
    }

    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    TU_CHECK_MSG(msgs == 0, "%u validation messages", msgs);
    sinew_gpu_destroy(gpu);
    sinew_clip_destroy(clip);
    for (int m = 0; m < NMODEL; m++) {
        sinew_skeleton_destroy(M[m].skel);
        free(M[m].rest);
        for (uint32_t k = 0; k < 2; k++) {
            free(M[m].verts[k]);
            free(M[m].bulge[k]);
        }
    }
    free(poses); free(gpos); free(gnrm); free(rpos); free(rnrm); free(pal); free(scratch);
    return tu_finish("test_gpu_crowd");
}
