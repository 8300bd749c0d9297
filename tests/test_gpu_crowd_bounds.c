/* Character bounds through the crowd (sinew_crowd_model_desc.bounds,
 * sinew_crowd_character_bounds): 3 models on random skeletons (12, 40 and 64
 * joints; a 4-influence mesh, an 8-influence mesh, and a model with two
 * meshes; random centers of rotation up to 0.4 from each vertex per axis, given
 * to the skinner and to the bounds with sinew_joint_bounds_add_centers),
 * 60 characters with every method (CoR included), bulge on and off, random poses
 * with non-uniform scale (rotations up to 1.2 rad), random roots; 4 frames
 * with new poses. Every vertex of the float64 reference (palette built in
 * float64 from the same pose) and every vertex the GPU wrote must lie inside
 * the character's box (no tolerance: the box is padded by 1e-5 of its size and
 * position for float32, see bounds.h). A hidden character keeps its box bit
 * for bit; a model without bounds data gives NOT_FOUND, and so do the CoR
 * characters of a model whose bounds have no centers (its others get boxes); a character index
 * beyond the frame, INVALID_ARGUMENT; bounds without joints refused at
 * add_model. Tightness is printed (box diagonal / vertices' own). Validation
 * clean. */
#include "testutil.h"
#include <sinew/crowd.h>
#include <string.h>

#define NCHAR 60
#define NMODEL 5 /* model 3: the 12-joint mesh again, without bounds data; model 4: with bounds without centers */
#define MAXJ 64
#define MAXV 2000

typedef struct mesh {
    uint32_t n, infl;
    sinew_vertex *v4;
    sinew_vertex8 *v8;
    float *bulge, *centers;
    sinew_mesh_id id;
    sinew_joint_bounds *jb, *jb_plain; /* with centers; without (model 4) */
    uint16_t *nb;
} mesh;

typedef struct model {
    sinew_skeleton *skel;
    uint32_t jc, mesh_count;
    mesh m[2];
    sinew_crowd_mesh_bounds b[2];
    sinew_model_id id;
} model;

static void make_v8(tu_rng *rng, const sinew_skeleton *skel, uint32_t n, sinew_vertex8 *out)
{
    uint32_t jc = sinew_skeleton_joint_count(skel);
    float *pos = malloc(12 * n), *nrm = malloc(12 * n), *we = malloc(4 * 8 * n);
    uint32_t *jo = malloc(4 * 8 * n), *off = malloc(4 * (n + 1)), e = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t home = tu_range(rng, jc);
        const sinew_mat4 *b = sinew_skeleton_bind_global(skel, home);
        sinew_vec3 d = tu_random_unit(rng), nn = tu_random_unit(rng);
        double len = tu_uniform(rng, 0, 0.3);
        pos[3 * i] = (float)(b->m[3][0] + d.x * len);
        pos[3 * i + 1] = (float)(b->m[3][1] + d.y * len);
        pos[3 * i + 2] = (float)(b->m[3][2] + d.z * len);
        nrm[3 * i] = (float)nn.x; nrm[3 * i + 1] = (float)nn.y; nrm[3 * i + 2] = (float)nn.z;
        off[i] = e;
        jo[e] = home;
        we[e++] = 1.0f;
        uint32_t cnt = 2 + tu_range(rng, 7);
        for (uint32_t k = 1; k < cnt; k++) {
            jo[e] = tu_range(rng, jc);
            we[e++] = (float)tu_uniform(rng, 0.01, 0.12);
        }
    }
    off[n] = e;
    sinew_influences inf = { off, 0, jo, we };
    TU_CHECK_OK(sinew_pack_vertices8(n, pos, nrm, &inf, jc, out, NULL, NULL));
    free(pos); free(nrm); free(we); free(jo); free(off);
}

static void make_mesh(tu_rng *rng, sinew_skinner *sk, model *md, mesh *me, uint32_t n, uint32_t infl)
{
    me->n = n;
    me->infl = infl;
    me->bulge = malloc(sizeof(float) * n);
    sinew_skinner_mesh_desc d = { NULL, n, md->jc, me->bulge, NULL };
    me->centers = malloc(sizeof(float) * 3 * n);
    if (infl == 8) {
        me->v8 = malloc(sizeof(sinew_vertex8) * n);
        make_v8(rng, md->skel, n, me->v8);
        TU_CHECK_OK(sinew_bulge_rest_distances8(md->skel, n, me->v8, me->bulge));
        d.vertices8 = me->v8;
    } else {
        me->v4 = malloc(sizeof(sinew_vertex) * n);
        TU_CHECK_OK(tu_make_random_mesh(rng, md->skel, n, 0.3, me->v4, me->bulge));
        d.vertices = me->v4;
    }
    for (uint32_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            me->centers[3 * i + c] = (me->v8 ? me->v8[i].position[c] : me->v4[i].position[c]) + (float)tu_uniform(rng, -0.4, 0.4);
    d.cor_centers = me->centers;
    TU_CHECK_OK(sinew_skinner_add_mesh(sk, &d, &me->id, NULL));
    uint32_t cap = md->jc * md->jc, used = 0;
    me->jb = malloc(sizeof(sinew_joint_bounds) * md->jc);
    me->jb_plain = malloc(sizeof(sinew_joint_bounds) * md->jc);
    me->nb = malloc(sizeof(uint16_t) * cap);
    TU_CHECK_OK(sinew_joint_bounds_build(me->v4, me->v8, n, md->jc, me->jb, me->nb, cap, &used));
    memcpy(me->jb_plain, me->jb, sizeof(sinew_joint_bounds) * md->jc);
    TU_CHECK_OK(sinew_joint_bounds_add_centers(me->v4, me->v8, n, md->jc, me->centers, me->jb));
}

/* Smallest distance from an inside point to a face of the box, in units of the box size (< 0 outside). */
static double slack(const float lo[3], const float hi[3], const double *p)
{
    double w = 1e30;
    for (int a = 0; a < 3; a++) {
        double s = (double)hi[a] - (double)lo[a] + 1e-30;
        double d = (p[a] - lo[a]) / s, e = (hi[a] - p[a]) / s;
        d = e < d ? e : d;
        w = d < w ? d : w;
    }
    return w;
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0xB0C5ull);
    sinew_gpu *gpu = NULL;
    sinew_gpu_desc gd = {0};
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_gpu_crowd_bounds");
    sinew_skinner_desc sd = {0};
    sd.max_output_vertices = 1u << 18;
    sd.max_palette_vec4 = 1u << 16;
    sd.cor_centers = true;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    if (!sk) return tu_finish("test_gpu_crowd_bounds");

    static model M[NMODEL];
    const uint32_t jcs[3] = { 12, 40, 64 };
    for (int m = 0; m < 3; m++) {
        TU_CHECK_OK(tu_make_random_skeleton(&rng, jcs[m], NULL, &M[m].skel));
        if (!M[m].skel) return tu_finish("test_gpu_crowd_bounds");
        M[m].jc = jcs[m];
    }
    make_mesh(&rng, sk, &M[0], &M[0].m[0], 900, 4);
    make_mesh(&rng, sk, &M[1], &M[1].m[0], 1200, 8);
    make_mesh(&rng, sk, &M[2], &M[2].m[0], 1500, 4);
    make_mesh(&rng, sk, &M[2], &M[2].m[1], 700, 8);
    M[0].mesh_count = M[1].mesh_count = 1;
    M[2].mesh_count = 2;
    M[3] = M[0]; /* same skeleton and mesh, no bounds data */
    M[4] = M[0]; /* same, bounds without centers */

    sinew_crowd *crowd = NULL;
    sinew_crowd_desc cd = {0};
    cd.skinner = sk;
    cd.max_characters = NCHAR;
    cd.max_joints = MAXJ;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, NULL));
    if (!crowd) return tu_finish("test_gpu_crowd_bounds");
    for (int m = 0; m < NMODEL; m++) {
        sinew_mesh_id ids[2] = { M[m].m[0].id, M[m].m[1].id };
        uint32_t nv[2] = { M[m].m[0].n, M[m].m[1].n };
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            M[m].b[k].joints = m == 4 ? M[m].m[k].jb_plain : M[m].m[k].jb;
            M[m].b[k].neighbors = M[m].m[k].nb;
        }
        sinew_crowd_model_desc md = { M[m].skel, M[m].mesh_count, ids, nv, m != 3 ? M[m].b : NULL };
        if (m == 0) { /* bounds without joint data refused */
            sinew_crowd_mesh_bounds bad = { NULL, M[0].m[0].nb };
            sinew_crowd_model_desc mb = md;
            mb.bounds = &bad;
            TU_CHECK(sinew_crowd_add_model(crowd, &mb, &M[m].id, NULL) == SINEW_ERROR_INVALID_ARGUMENT);
        }
        TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &M[m].id, NULL));
    }

    static sinew_crowd_character ch[NCHAR];
    static sinew_transform poses[NCHAR][MAXJ];
    static sinew_mat4 roots[NCHAR];
    uint32_t model_of[NCHAR];
    memset(ch, 0, sizeof ch);
    for (uint32_t i = 0; i < NCHAR; i++) {
        model_of[i] = i == NCHAR - 1 ? 3u : i >= 50 && i <= 54 ? 4u : tu_range(&rng, 3);
        ch[i].model = M[model_of[i]].id;
        ch[i].method = (sinew_method)(i % SINEW_METHOD_COUNT);
        ch[i].flags = (i / SINEW_METHOD_COUNT) % 2 ? SINEW_SKIN_BULGE_CORRECTION : 0;
        ch[i].pose = poses[i];
        ch[i].root = &roots[i];
    }
    float *gpos = malloc(sizeof(float) * 3 * (1u << 18));
    double *ref = malloc(sizeof(double) * 3 * MAXV);
    sinew_palette_joint *pal = malloc(sizeof(sinew_palette_joint) * MAXJ);
    sinew_mat4 *scratch = malloc(sizeof(sinew_mat4) * sinew_palette_scratch_count(MAXJ));
    double worst_ref = 0, worst_gpu = 0, loose_min = 1e30, loose_max = 0, cor_slack = 1e30;
    uint32_t checked = 0, bad = 0, cor_checked = 0;
    float keep[6] = { 0 };
    for (int frame = 0; frame < 4; frame++) {
        for (uint32_t i = 0; i < NCHAR; i++) {
            const model *md = &M[model_of[i]];
            memcpy(poses[i], sinew_skeleton_rest_pose(md->skel), sizeof(sinew_transform) * md->jc);
            tu_random_pose(&rng, md->jc, poses[i], 1.2,
                           ch[i].method == SINEW_METHOD_DQS || ch[i].method == SINEW_METHOD_COR ? 0.0 : 0.5);
            sinew_transform rt = { tu_random_vec3(&rng, -50, 50), tu_random_quat(&rng), sinew_v3(1, 1, 1) };
            roots[i] = sinew_mat4_from_transform(&rt);
        }
        ch[3].hidden = frame == 3;
        TU_CHECK_OK(sinew_crowd_update(crowd, ch, NCHAR, NULL, NULL));
        TU_CHECK_OK(sinew_skinner_wait(sk));
        uint32_t last_first, last_n;
        TU_CHECK_OK(sinew_crowd_character_output(crowd, NCHAR - 1, 0, &last_first, &last_n));
        TU_CHECK_OK(sinew_skinner_read_output(sk, 0, last_first + last_n, gpos, NULL));
        for (uint32_t i = 0; i < NCHAR; i++) {
            float lo[3], hi[3];
            sinew_result r = sinew_crowd_character_bounds(crowd, i, lo, hi);
            if (model_of[i] == 3 || (model_of[i] == 4 && sinew_method_uses_centers(ch[i].method))) {
                TU_CHECK(r == SINEW_ERROR_NOT_FOUND);
                continue;
            }
            TU_CHECK_OK(r);
            if (r != SINEW_OK) continue;
            if (i == 3 && frame == 2) { memcpy(keep, lo, 12); memcpy(keep + 3, hi, 12); }
            if (i == 3 && frame == 3) {
                TU_CHECK_MSG(!memcmp(keep, lo, 12) && !memcmp(keep + 3, hi, 12), "hidden character's box changed");
                continue;
            }
            const model *md = &M[model_of[i]];
            TU_CHECK_OK(sinew_palette_build(md->skel, ch[i].method, poses[i], &roots[i], scratch, pal));
            double vlo[3] = { 1e300, 1e300, 1e300 }, vhi[3] = { -1e300, -1e300, -1e300 };
            for (uint32_t k = 0; k < md->mesh_count; k++) {
                const mesh *me = &md->m[k];
                uint32_t first, n;
                TU_CHECK_OK(sinew_crowd_character_output(crowd, i, k, &first, &n));
                TU_CHECK_OK(sinew_reference_skin_cor(n, me->v4, me->v8, me->centers, me->bulge, pal, md->jc, ch[i].method,
                                                     ch[i].flags, ref, NULL));
                for (uint32_t v = 0; v < n; v++) {
                    double g[3] = { gpos[3 * (size_t)(first + v)], gpos[3 * (size_t)(first + v) + 1],
                                    gpos[3 * (size_t)(first + v) + 2] };
                    double orr = tu_box_outside(lo, hi, ref + 3 * v), og = tu_box_outside(lo, hi, g);
                    if (sinew_method_uses_centers(ch[i].method)) { /* closest approach to a face, in box sizes */
                        double sl = slack(lo, hi, ref + 3 * v), sg = slack(lo, hi, g);
                        sl = sg < sl ? sg : sl;
                        cor_slack = sl < cor_slack ? sl : cor_slack;
                    }
                    if (orr > worst_ref) worst_ref = orr;
                    if (og > worst_gpu) worst_gpu = og;
                    if ((orr > 0 || og > 0) && bad++ < 5)
                        TU_CHECK_MSG(0, "frame %d char %u (%s%s) mesh %u vertex %u outside its box: ref by %.3g, gpu by %.3g of the size",
                                     frame, i, sinew_method_name(ch[i].method), ch[i].flags ? "+bulge" : "", k, v, orr, og);
                    for (int a = 0; a < 3; a++) {
                        if (ref[3 * v + a] < vlo[a]) vlo[a] = ref[3 * v + a];
                        if (ref[3 * v + a] > vhi[a]) vhi[a] = ref[3 * v + a];
                    }
                }
            }
            double db = 0, dv = 0;
            for (int a = 0; a < 3; a++) {
                db += ((double)hi[a] - lo[a]) * ((double)hi[a] - lo[a]);
                dv += (vhi[a] - vlo[a]) * (vhi[a] - vlo[a]);
            }
            double t = sqrt(db / (dv > 0 ? dv : 1e-30));
            if (t < loose_min) loose_min = t;
            if (t > loose_max) loose_max = t;
            checked++;
            cor_checked += sinew_method_uses_centers(ch[i].method);
        }
    }
    float lo[3], hi[3];
    TU_CHECK(sinew_crowd_character_bounds(crowd, NCHAR, lo, hi) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(sinew_crowd_character_bounds(crowd, 0, NULL, hi) == SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(checked > 150 && cor_checked > 25);
    fprintf(stderr, "%u character boxes checked (%u CoR), %u vertices outside (worst ref %.3g, gpu %.3g); box diagonal "
                    "%.2f-%.2fx the vertices'; CoR vertices' closest approach to a face %.3g of the box size\n",
            checked, cor_checked, bad, worst_ref, worst_gpu, loose_min, loose_max, cor_slack);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);

    sinew_crowd_destroy(crowd);
    sinew_skinner_destroy(sk);
    for (int m = 0; m < 3; m++) {
        for (uint32_t k = 0; k < M[m].mesh_count; k++) {
            free(M[m].m[k].v4); free(M[m].m[k].v8); free(M[m].m[k].bulge); free(M[m].m[k].jb); free(M[m].m[k].nb);
            free(M[m].m[k].centers); free(M[m].m[k].jb_plain);
        }
        sinew_skeleton_destroy(M[m].skel);
    }
    free(gpos); free(ref); free(pal); free(scratch);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_crowd_bounds");
}
