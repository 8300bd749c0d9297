/* The crowd on the host's job system: sinew_crowd_prepare_begin, then
 * sinew_crowd_prepare_run_range on 4 pthreads over ranges of uneven sizes
 * (1 .. 9 characters) handed out in a scrambled order, then
 * sinew_crowd_prepare_end, against sinew_crowd_prepare on the built-in pool,
 * bit for bit. Two skinners get the same meshes; crowd A (pool) on one, crowd B
 * (jobs) on the other. 3 models (12, 30 and 20 joints, one with two meshes; bulge
 * distances, centers of rotation, bounds data with centers), 61 characters with
 * every method, bulge on and off, poses with non-uniform scale for the scale
 * methods, given as arrays or by a pose callback, random roots, one hidden and
 * some with update_every 2; 3 frames. Compared byte for byte: the frame's palette
 * memory (the ring slot, found by mapping each slot once with empty frames), the
 * instances, the stats' counts, every character's box, the skinned output.
 * Then errors: a pose callback failing for characters 41 and 17 (ranges run in
 * scrambled order; the range holding 41 reports 41, end reports 17 like
 * prepare, same message), and misuse: run_range / end without begin, begin
 * twice, other calls while the frame is open, ranges beyond the count or empty,
 * end before every range ran (then finishing works), overlapping ranges (end
 * fails, the frame is closed, the crowd works again), more concurrent ranges than
 * range_threads (a pose callback calling run_range). Validation clean. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <pthread.h>
#include <string.h>

#define NCHAR 61
#define NMODEL 3
#define MAXJ 32
#define NTHREADS 4
#define FIF 2

typedef struct model {
    sinew_skeleton *skel;
    uint32_t jc, mesh_count, n[2];
    sinew_vertex *v[2];
    float *bulge[2], *centers[2];
    sinew_mesh_id id_a[2], id_b[2];
    sinew_joint_bounds *jb[2];
    uint16_t *nb[2];
    sinew_crowd_mesh_bounds b[2];
    sinew_model_id mid_a, mid_b;
} model;

static model M[NMODEL];

/* Deterministic pose from the character and time: rotations, and for scale
 * methods a non-uniform scale (user: 1 = with scale). */
static sinew_result callback_pose(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                  sinew_transform *out)
{
    int fail = *(const int *)user;
    uint32_t jc = sinew_skeleton_joint_count(skel);
    memcpy(out, sinew_skeleton_rest_pose(skel), sizeof(sinew_transform) * jc);
    for (uint32_t j = 1; j < jc; j++) {
        double a = 0.3 * sin(time + 0.7 * j + 0.13 * character);
        sinew_quat q = { sin(a / 2) * 0.6, sin(a / 2) * 0.8, 0, cos(a / 2) };
        out[j].rotation = sinew_quat_mul(out[j].rotation, q);
        if (character % 3 == 0) out[j].scale = sinew_v3(1.0 + 0.2 * sin(j + time), 0.9, 1.1 + 0.1 * cos(character));
    }
    if (fail && (character == 17 || character == 41)) return SINEW_ERROR_NOT_FOUND;
    return SINEW_OK;
}

typedef struct range { uint32_t first, count; } range;

typedef struct dispatch {
    sinew_crowd *crowd;
    const range *ranges;
    uint32_t nranges;
    uint32_t next;             /* atomic */
    sinew_result results[NCHAR];
    sinew_error_info errs[NCHAR];
} dispatch;

static void *worker(void *user)
{
    dispatch *d = (dispatch *)user;
    for (;;) {
        uint32_t k = __atomic_fetch_add(&d->next, 1, __ATOMIC_RELAXED);
        if (k >= d->nranges) break;
        d->results[k] = sinew_crowd_prepare_run_range(d->crowd, d->ranges[k].first, d->ranges[k].count, &d->errs[k]);
    }
    return NULL;
}

/* Uneven ranges covering [0, n) in a scrambled order. */
static uint32_t make_ranges(tu_rng *rng, uint32_t n, range *out)
{
    uint32_t k = 0;
    for (uint32_t at = 0; at < n; k++) {
        uint32_t len = 1 + tu_range(rng, 9);
        if (len > n - at) len = n - at;
        out[k].first = at;
        out[k].count = len;
        at += len;
    }
    for (uint32_t i = k; i > 1; i--) {
        uint32_t j = tu_range(rng, i);
        range t = out[i - 1];
        out[i - 1] = out[j];
        out[j] = t;
    }
    return k;
}

/* Runs the ranges on NTHREADS pthreads; returns the number of ranges. */
static uint32_t run_threads(dispatch *d)
{
    pthread_t th[NTHREADS];
    d->next = 0;
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, d);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    return d->nranges;
}

/* The palette memory of each ring slot: FIF empty frames. */
static void map_slots(sinew_skinner *sk, float **slot_palette)
{
    for (uint32_t f = 0; f < FIF; f++) {
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        TU_CHECK(fr.slot == f);
        slot_palette[fr.slot] = fr.palette;
        TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
        TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
    }
}

static sinew_result nested_pose(void *user, const sinew_skeleton *skel, uint32_t character, double time,
                                sinew_transform *out)
{
    (void)time;
    sinew_crowd *c = (sinew_crowd *)user;
    memcpy(out, sinew_skeleton_rest_pose(skel), sizeof(sinew_transform) * sinew_skeleton_joint_count(skel));
    if (character != 0) return SINEW_OK;
    sinew_error_info e;
    sinew_result r = sinew_crowd_prepare_run_range(c, 1, 1, &e); /* the only scratch set is taken */
    return r == SINEW_ERROR_CAPACITY && e.item == SINEW_ITEM_CAPACITY && strstr(e.message, "range_threads (1)")
               ? SINEW_OK
               : SINEW_ERROR_INVALID_ARGUMENT;
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x10B5ull);
    sinew_gpu *gpu = NULL;
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_crowd_jobs");
    sinew_skinner_desc sd = { 0 };
    sd.max_output_vertices = 1u << 17;
    sd.max_palette_vec4 = 1u << 15;
    sd.max_rest_vertices = 1u << 14;
    sd.frames_in_flight = FIF;
    sd.cor_centers = true;
    sinew_skinner *ska = NULL, *skb = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &ska, NULL));
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &skb, NULL));
    if (!ska || !skb) return tu_finish("test_gpu_crowd_jobs");

    const uint32_t jcs[NMODEL] = { 12, 30, 20 }, nvs[NMODEL][2] = { { 300, 0 }, { 500, 0 }, { 400, 250 } };
    for (int m = 0; m < NMODEL; m++) {
        model *md = &M[m];
        md->jc = jcs[m];
        md->mesh_count = nvs[m][1] ? 2 : 1;
        TU_CHECK_OK(tu_make_random_skeleton(&rng, md->jc, NULL, &md->skel));
        if (!md->skel) return tu_finish("test_gpu_crowd_jobs");
        for (uint32_t k = 0; k < md->mesh_count; k++) {
            uint32_t n = md->n[k] = nvs[m][k];
            md->v[k] = malloc(sizeof(sinew_vertex) * n);
            md->bulge[k] = malloc(sizeof(float) * n);
            md->centers[k] = malloc(sizeof(float) * 3 * n);
            TU_CHECK_OK(tu_make_random_mesh(&rng, md->skel, n, 0.3, md->v[k], md->bulge[k]));
            for (uint32_t i = 0; i < n; i++)
                for (int a = 0; a < 3; a++)
                    md->centers[k][3 * i + a] = md->v[k][i].position[a] + (float)tu_uniform(&rng, -0.2, 0.2);
            sinew_skinner_mesh_desc d = { 0 };
            d.vertices = md->v[k];
            d.vertex_count = n;
            d.joint_count = md->jc;
            d.bulge_rest = md->bulge[k];
            d.cor_centers = md->centers[k];
            TU_CHECK_OK(sinew_skinner_add_mesh(ska, &d, &md->id_a[k], NULL));
            TU_CHECK_OK(sinew_skinner_add_mesh(skb, &d, &md->id_b[k], NULL));
            uint32_t cap = md->jc * md->jc, used = 0;
            md->jb[k] = malloc(sizeof(sinew_joint_bounds) * md->jc);
            md->nb[k] = malloc(sizeof(uint16_t) * cap);
            TU_CHECK_OK(sinew_joint_bounds_build(md->v[k], NULL, n, md->jc, md->jb[k], md->nb[k], cap, &used));
            TU_CHECK_OK(sinew_joint_bounds_add_centers(md->v[k], NULL, n, md->jc, md->centers[k], md->jb[k]));
            md->b[k].joints = md->jb[k];
            md->b[k].neighbors = md->nb[k];
        }
    }

    sinew_crowd_desc cd = { 0 };
    cd.max_characters = NCHAR;
    cd.max_joints = MAXJ;
    cd.skinner = ska;
    cd.threads = 3;
    sinew_crowd *ca = NULL, *cb = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &ca, NULL));
    cd.skinner = skb;
    cd.threads = 1;
    cd.range_threads = NTHREADS;
    TU_CHECK_OK(sinew_crowd_create(&cd, &cb, NULL));
    if (!ca || !cb) return tu_finish("test_gpu_crowd_jobs");
    for (int m = 0; m < NMODEL; m++) {
        uint32_t nv[2] = { M[m].n[0], M[m].n[1] };
        sinew_crowd_model_desc md = { M[m].skel, M[m].mesh_count, M[m].id_a, nv, M[m].b };
        TU_CHECK_OK(sinew_crowd_add_model(ca, &md, &M[m].mid_a, NULL));
        md.meshes = M[m].id_b;
        TU_CHECK_OK(sinew_crowd_add_model(cb, &md, &M[m].mid_b, NULL));
        TU_CHECK(M[m].mid_a.value == M[m].mid_b.value);
    }

    float *slot_a[FIF], *slot_b[FIF];
    map_slots(ska, slot_a);
    map_slots(skb, slot_b);

    static sinew_crowd_character ch[NCHAR];
    static sinew_transform poses[NCHAR][MAXJ];
    static sinew_mat4 roots[NCHAR];
    static int no_fail = 0, do_fail = 1;
    memset(ch, 0, sizeof ch);
    for (uint32_t i = 0; i < NCHAR; i++) {
        uint32_t m = tu_range(&rng, NMODEL);
        ch[i].model = M[m].mid_a;
        ch[i].method = (sinew_method)(i % SINEW_METHOD_COUNT);
        ch[i].flags = (i / SINEW_METHOD_COUNT) % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0;
        ch[i].root = &roots[i];
        if (i % 4 == 1) {
            ch[i].sample = callback_pose;
            ch[i].sample_user = &no_fail;
        } else {
            ch[i].pose = poses[i];
        }
        ch[i].update_every = i % 10 == 7 ? 2 : 0;
    }
    ch[5].hidden = true;
    /* callback poses with scale only for methods that take it */
    for (uint32_t i = 0; i < NCHAR; i++)
        if (ch[i].sample && (ch[i].method == SINEW_METHOD_DQS || ch[i].method == SINEW_METHOD_COR) && i % 3 == 0)
            ch[i].method = SINEW_METHOD_DQS_SCALE;

    float *out_a = malloc(sizeof(float) * 6 * (1u << 17)), *out_b = malloc(sizeof(float) * 6 * (1u << 17));
    range ranges[NCHAR];
    static dispatch d;
    uint32_t palette_diff = 0, out_diff = 0, box_diff = 0, inst_diff = 0;
    for (uint32_t frame = 0; frame < 3; frame++) {
        for (uint32_t i = 0; i < NCHAR; i++) {
            const model *md = &M[ch[i].model.value];
            memcpy(poses[i], sinew_skeleton_rest_pose(md->skel), sizeof(sinew_transform) * md->jc);
            int rigid = ch[i].method == SINEW_METHOD_DQS || ch[i].method == SINEW_METHOD_COR;
            tu_random_pose(&rng, md->jc, poses[i], 1.0, rigid ? 0.0 : 0.5);
            sinew_transform rt = { tu_random_vec3(&rng, -20, 20), tu_random_quat(&rng), sinew_v3(1, 1, 1) };
            roots[i] = sinew_mat4_from_transform(&rt);
            ch[i].time = 0.1 * frame;
        }
        sinew_crowd_stats sa, sb, sb0;
        sinew_error_info e;
        TU_CHECK_OK(sinew_crowd_prepare(ca, ch, NCHAR, &sa, &e));
        TU_CHECK_OK(sinew_crowd_prepare_begin(cb, ch, NCHAR, &sb0, &e));
        TU_CHECK(sb0.characters == NCHAR && sb0.palette_vec4 == sa.palette_vec4 && sb0.instances == sa.instances);
        d.crowd = cb;
        d.ranges = ranges;
        d.nranges = make_ranges(&rng, NCHAR, ranges);
        run_threads(&d);
        for (uint32_t k = 0; k < d.nranges; k++) TU_CHECK_OK(d.results[k]);
        TU_CHECK_OK(sinew_crowd_prepare_end(cb, &sb, &e));
        TU_CHECK(e.result == SINEW_OK && e.item == SINEW_ITEM_NONE);
        TU_CHECK(sa.characters == sb.characters && sa.instances == sb.instances && sa.joints == sb.joints &&
                 sa.palette_vec4 == sb.palette_vec4 && sa.output_vertices == sb.output_vertices &&
                 sa.skipped == sb.skipped);
        TU_CHECK(sa.skipped >= 1);
        /* palettes: the ring slot each frame wrote */
        uint32_t s = frame % FIF;
        if (memcmp(slot_a[s], slot_b[s], sizeof(float) * 4 * sa.palette_vec4)) palette_diff++;
        uint32_t na = 0, nb = 0;
        const sinew_instance *ia = sinew_crowd_instances(ca, &na), *ib = sinew_crowd_instances(cb, &nb);
        TU_CHECK(na == nb);
        for (uint32_t k = 0; k < na && k < nb; k++) {
            sinew_instance x = ia[k], y = ib[k];
            if (x.method != y.method || x.flags != y.flags || x.palette_offset != y.palette_offset ||
                x.output_offset != y.output_offset || x.reset_previous != y.reset_previous)
                inst_diff++;
        }
        for (uint32_t i = 0; i < NCHAR; i++) {
            float la[3], ha[3], lb[3], hb[3];
            sinew_result ra = sinew_crowd_character_bounds(ca, i, la, ha), rb = sinew_crowd_character_bounds(cb, i, lb, hb);
            TU_CHECK(ra == rb);
            if (ra == SINEW_OK && rb == SINEW_OK && (memcmp(la, lb, 12) || memcmp(ha, hb, 12))) box_diff++;
        }
        TU_CHECK_OK(sinew_skinner_submit(ska));
        TU_CHECK_OK(sinew_skinner_submit(skb));
        uint32_t first = 0, last_n = 0;
        TU_CHECK_OK(sinew_crowd_character_output(ca, NCHAR - 1, M[ch[NCHAR - 1].model.value].mesh_count - 1, &first, &last_n));
        uint32_t total = first + last_n;
        TU_CHECK_OK(sinew_skinner_read_output(ska, 0, total, out_a, out_a + 3 * (size_t)total));
        TU_CHECK_OK(sinew_skinner_read_output(skb, 0, total, out_b, out_b + 3 * (size_t)total));
        /* skinned characters' output (a character skipped since the first frame holds what the buffer held) */
        for (uint32_t i = 0; i < NCHAR; i++) {
            if (ch[i].hidden || (ch[i].update_every > 1 && (frame + i) % ch[i].update_every != 0)) continue;
            for (uint32_t k = 0; k < M[ch[i].model.value].mesh_count; k++) {
                uint32_t f0, n;
                TU_CHECK_OK(sinew_crowd_character_output(cb, i, k, &f0, &n));
                if (memcmp(out_a + 3 * (size_t)f0, out_b + 3 * (size_t)f0, 12 * (size_t)n) ||
                    memcmp(out_a + 3 * ((size_t)total + f0), out_b + 3 * ((size_t)total + f0), 12 * (size_t)n))
                    out_diff++;
            }
        }
    }
    TU_CHECK_MSG(palette_diff == 0, "%u frames with palettes differing", palette_diff);
    TU_CHECK_MSG(inst_diff == 0, "%u instances differing", inst_diff);
    TU_CHECK_MSG(box_diff == 0, "%u boxes differing", box_diff);
    TU_CHECK_MSG(out_diff == 0, "%u frames with output differing", out_diff);

    /* ---- a failing character: the lowest wins, as in prepare ---- */
    for (uint32_t i = 0; i < NCHAR; i++) {
        ch[i].sample = callback_pose;
        ch[i].sample_user = &do_fail;
        ch[i].pose = NULL;
        ch[i].hidden = false;
        ch[i].update_every = 0;
        if (ch[i].method == SINEW_METHOD_DQS || ch[i].method == SINEW_METHOD_COR) ch[i].method = SINEW_METHOD_LBS;
    }
    sinew_error_info ea, eb;
    TU_CHECK_RESULT(sinew_crowd_prepare(ca, ch, NCHAR, NULL, &ea), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(ea.item == SINEW_ITEM_CHARACTER && ea.index == 17);
    TU_CHECK_OK(sinew_crowd_prepare_begin(cb, ch, NCHAR, NULL, &eb));
    d.nranges = make_ranges(&rng, NCHAR, ranges);
    run_threads(&d);
    uint32_t failed = 0;
    for (uint32_t k = 0; k < d.nranges; k++) {
        int holds17 = ranges[k].first <= 17 && 17 < ranges[k].first + ranges[k].count;
        int holds41 = ranges[k].first <= 41 && 41 < ranges[k].first + ranges[k].count;
        if (holds17 || holds41) {
            failed++;
            TU_CHECK_RESULT(d.results[k], SINEW_ERROR_NOT_FOUND);
            TU_CHECK(d.errs[k].item == SINEW_ITEM_CHARACTER && d.errs[k].index == (holds17 ? 17u : 41u));
        } else {
            TU_CHECK_OK(d.results[k]);
        }
    }
    TU_CHECK(failed == 2);
    TU_CHECK_RESULT(sinew_crowd_prepare_end(cb, NULL, &eb), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_MSG(eb.item == ea.item && eb.index == ea.index && !strcmp(ea.message, eb.message),
                 "jobs: %u '%s', pool: %u '%s'", eb.index, eb.message, ea.index, ea.message);
    for (uint32_t i = 0; i < NCHAR; i++) ch[i].sample_user = &no_fail;

    /* ---- misuse ---- */
    sinew_error_info e;
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, 0, 1, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER && strstr(e.message, "no frame begun"));
    TU_CHECK_RESULT(sinew_crowd_prepare_end(cb, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER && strstr(e.message, "no frame begun"));
    TU_CHECK_OK(sinew_crowd_prepare_begin(cb, ch, NCHAR, NULL, &e));
    TU_CHECK_RESULT(sinew_crowd_prepare_begin(cb, ch, NCHAR, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER && strstr(e.message, "sinew_crowd_prepare_begin: a frame begun"));
    TU_CHECK_RESULT(sinew_crowd_prepare(cb, ch, NCHAR, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER);
    sinew_model_id mx;
    uint32_t nv0 = M[0].n[0];
    sinew_crowd_model_desc mdx = { M[0].skel, 1, M[0].id_b, &nv0 };
    TU_CHECK_RESULT(sinew_crowd_add_model(cb, &mdx, &mx, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER);
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, NCHAR - 2, 5, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && strstr(e.message, "not inside the frame's 61 characters"));
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, 3, 0, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, NCHAR, 1, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_OK(sinew_crowd_prepare_run_range(cb, 0, 30, &e));
    TU_CHECK_RESULT(sinew_crowd_prepare_end(cb, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT); /* 31 not run */
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER && strstr(e.message, "31 of the 61 characters have not been run"));
    TU_CHECK_OK(sinew_crowd_prepare_run_range(cb, 30, NCHAR - 30, &e));
    sinew_crowd_stats st;
    TU_CHECK_OK(sinew_crowd_prepare_end(cb, &st, &e));
    TU_CHECK(st.characters == NCHAR);
    TU_CHECK_OK(sinew_skinner_submit(skb));
    /* overlapping ranges */
    TU_CHECK_OK(sinew_crowd_prepare_begin(cb, ch, NCHAR, NULL, &e));
    TU_CHECK_OK(sinew_crowd_prepare_run_range(cb, 0, 20, &e));
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, 10, 20, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && e.index == 10 && strstr(e.message, "character 10 is in another range"));
    TU_CHECK_OK(sinew_crowd_prepare_run_range(cb, 30, NCHAR - 30, &e));
    TU_CHECK_RESULT(sinew_crowd_prepare_end(cb, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && e.index == 10 && strstr(e.message, "two ranges"));
    TU_CHECK_RESULT(sinew_crowd_prepare_run_range(cb, 0, 1, &e), SINEW_ERROR_INVALID_ARGUMENT); /* closed */
    TU_CHECK(e.item == SINEW_ITEM_CALL_ORDER);
    TU_CHECK_OK(sinew_crowd_update(cb, ch, NCHAR, NULL, &e)); /* the crowd and skinner work again */

    /* ---- more concurrent ranges than range_threads ---- */
    sinew_crowd *cc = NULL;
    cd.threads = 1;
    cd.range_threads = 1;
    TU_CHECK_OK(sinew_crowd_create(&cd, &cc, NULL));
    if (cc) {
        sinew_crowd_model_desc md = { M[0].skel, 1, M[0].id_b, &nv0 };
        sinew_model_id m0;
        TU_CHECK_OK(sinew_crowd_add_model(cc, &md, &m0, NULL));
        sinew_crowd_character two[2];
        memset(two, 0, sizeof two);
        for (int i = 0; i < 2; i++) {
            two[i].model = m0;
            two[i].sample = nested_pose;
            two[i].sample_user = cc;
        }
        TU_CHECK_OK(sinew_crowd_prepare_begin(cc, two, 2, NULL, &e));
        TU_CHECK_OK(sinew_crowd_prepare_run_range(cc, 0, 1, &e)); /* its callback's nested call got CAPACITY */
        TU_CHECK_OK(sinew_crowd_prepare_run_range(cc, 1, 1, &e));
        TU_CHECK_OK(sinew_crowd_prepare_end(cc, NULL, &e));
        TU_CHECK_OK(sinew_skinner_submit(skb));
        sinew_crowd_destroy(cc);
    }

    TU_CHECK_OK(sinew_skinner_wait(ska));
    TU_CHECK_OK(sinew_skinner_wait(skb));
    sinew_crowd_destroy(ca);
    sinew_crowd_destroy(cb);
    sinew_skinner_destroy(ska);
    sinew_skinner_destroy(skb);
    for (int m = 0; m < NMODEL; m++) {
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            free(M[m].v[k]);
            free(M[m].bulge[k]);
            free(M[m].centers[k]);
            free(M[m].jb[k]);
            free(M[m].nb[k]);
        }
        sinew_skeleton_destroy(M[m].skel);
    }
    free(out_a);
    free(out_b);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_crowd_jobs");
}
