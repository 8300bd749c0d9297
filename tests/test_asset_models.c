/* Real third-party assets (Debian's assimp-testmodels): import, expected sizes,
 * bind pose reproduces the rest mesh, clips sampled at several times (single
 * and batch job), and every method (with and without bulge correction) skinned
 * on the GPU and compared with the float64 reference on the same inputs.
 * Tolerances, relative to the model size s (bounding-box diagonal):
 *   bind pose vs rest mesh (reference LBS, float64): 1e-4 * s
 *   GPU vs reference positions: 2e-5 * s (float32 arithmetic on both stages)
 *   GPU vs reference normals: 2e-3 (unit vectors, absolute per component). */
#include "testutil.h"
#include <sinew/anim.h>
#include <sinew/asset.h>
#include <string.h>

#define MODELS "/usr/share/assimp/models/"

typedef struct model_case {
    const char *path;
    uint32_t flags;
    uint32_t meshes, vertices, joints, clips;
} model_case;


static const model_case cases[] = {
    { MODELS "X/BCN_Epileptic.X", 0, 3, 15378, 58, 1 },
    { MODELS "X/Testwuson.X", 0, 1, 11196, 40, 3 },
    { MODELS "X/anim_test.x", SINEW_ASSET_ALLOW_MISSING_BONES, 1, 2520, 4, 1 },
    { MODELS "FBX/animation_with_skeleton.fbx", 0, 1, 4224, 17, 1 },
    { MODELS "FBX/huesitos.fbx", 0, 1, 256, 12, 1 },
    { MODELS "glTF2/simple_skin/simple_skin.gltf", 0, 1, 10, 3, 1 },
    /* found by scanning every installed model (see README, "Assets") */
    { MODELS "Collada/box_nested_animation.dae", 0, 1, 36, 4, 1 },
    { MODELS "MD5/SimpleCube.md5mesh", 0, 1, 36, 6, 0 },
    { MODELS "MDL/MDL (HL1)/man.mdl", 0, 5, 239, 15, 6 },
    { MODELS "SMD/WusonSMD.smd", 0, 1, 11196, 2, 1 },
    { MODELS "ASE/MotionCaptureROM.ase", 0, 26, 6048, 28, 1 },   /* rigid parts, node animation */
};


static sinew_gpu *gpu;
static double worst_pos_rel, worst_nrm, worst_bind_rel;


static double max_pos_diff(uint32_t n, const double *a, const double *b)
{
    double e = 0;
    for (size_t i = 0; i < (size_t)n * 3; i++) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= e)) e = d; /* NaN propagates as failure */
    }
    return e;
}

static void skin_gpu_compare(const model_case *mc, const sinew_asset *a, const sinew_transform *pose, const char *what)
{
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    const sinew_vertex *verts = sinew_asset_vertices(a);
    double size = sinew_asset_size(a);
    sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
    sinew_palette_joint *pal = calloc(nj, sizeof *pal);
    float *bulge = calloc(nv, sizeof *bulge);
    double *rp = calloc((size_t)nv * 3, sizeof *rp), *rn = calloc((size_t)nv * 3, sizeof *rn);
    float *gp = calloc((size_t)nv * 3, sizeof *gp), *gn = calloc((size_t)nv * 3, sizeof *gn);
    double *gpd = calloc((size_t)nv * 3, sizeof *gpd);
    TU_CHECK_OK(sinew_bulge_rest_distances(sk, nv, verts, bulge));
    sinew_skinner *skinner = NULL;
    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = nv;
    sd.max_meshes = 1;
    sd.max_instances = 1;
    sd.max_output_vertices = nv;
    sd.max_palette_vec4 = nj * TU_PAL_MAX_STRIDE;
    sd.frames_in_flight = 1;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &skinner, NULL));
    sinew_mesh_id mesh_id = { 0 };
    sinew_skinner_mesh_desc md = { verts, nv, nj, bulge };
    if (skinner) TU_CHECK_OK(sinew_skinner_add_mesh(skinner, &md, &mesh_id, NULL));
    for (int m = 0; m < TU_PLAIN_METHODS && skinner; m++) {
        sinew_result r = sinew_palette_build(sk, (sinew_method)m, pose, NULL, scratch, pal);
        if (m == SINEW_METHOD_DQS && r == SINEW_ERROR_NOT_RIGID) {
            fprintf(stderr, "  %s %s: plain DQS refused (pose not rigid), as documented\n", mc->path, what);
            continue;
        }
        TU_CHECK_OK(r);
        if (r) continue;
        for (uint32_t flags = 0; flags <= SINEW_SKIN_BULGE_CORRECTION; flags += SINEW_SKIN_BULGE_CORRECTION) {
            TU_CHECK_OK(sinew_reference_skin(nv, verts, bulge, pal, nj, (sinew_method)m, flags, rp, rn));
            sinew_frame fr;
            TU_CHECK_OK(sinew_debug_poison_output(skinner, 0, nv, 0x7fc00000u));
            TU_CHECK_OK(sinew_skinner_begin_frame(skinner, &fr));
            sinew_palette_pack((sinew_method)m, flags, pal, nj, fr.palette);
            sinew_instance inst = { mesh_id, (sinew_method)m, flags, 0, 0 };
            TU_CHECK_OK(sinew_skinner_set_instances(skinner, &inst, 1, NULL));
            TU_CHECK_OK(sinew_skinner_submit(skinner));
            TU_CHECK_OK(sinew_skinner_read_output(skinner, 0, nv, gp, gn));
            for (size_t i = 0; i < (size_t)nv * 3; i++) gpd[i] = gp[i];
            double ep = max_pos_diff(nv, gpd, rp) / size;
            for (size_t i = 0; i < (size_t)nv * 3; i++) gpd[i] = gn[i];
            double en = max_pos_diff(nv, gpd, rn);
            TU_CHECK_MSG(ep <= 2e-5, "%s %s %s%s: GPU position error %.3g * size", mc->path, what,
                         sinew_method_name((sinew_method)m), flags ? "+bulge" : "", ep);
            TU_CHECK_MSG(en <= 2e-3, "%s %s %s%s: GPU normal error %.3g", mc->path, what,
                         sinew_method_name((sinew_method)m), flags ? "+bulge" : "", en);
            if (!(ep <= worst_pos_rel)) worst_pos_rel = ep;
            if (!(en <= worst_nrm)) worst_nrm = en;
        }
    }
    sinew_skinner_destroy(skinner);
    free(scratch); free(pal); free(bulge); free(rp); free(rn); free(gp); free(gn); free(gpd);
}


/* More than 4 influences (animation_with_skeleton.fbx has 6): sinew_asset_vertices8
 * with the 8-influence reference vs LBS in float64 straight from the unpruned
 * lists (sinew_asset_influences, renormalized) at this pose. Tolerance 1e-4 * s
 * (unorm16 weights); the 4-influence packing is printed beside it (its error is
 * what pruning costs, so the check would fail with 4). */
static double worst_infl8_rel, worst_infl4_rel;
static void check_influences8(const sinew_asset *a, const sinew_transform *pose, const char *what)
{
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    double size = sinew_asset_size(a);
    sinew_vertex8 *v8 = calloc(nv, sizeof *v8);
    sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
    sinew_palette_joint *pal = calloc(nj, sizeof *pal);
    double *want = calloc((size_t)nv * 3, sizeof *want), *got = calloc((size_t)nv * 3, sizeof *got);
    sinew_pack_stats ps = { 0 };
    TU_CHECK_OK(sinew_asset_vertices8(a, v8, &ps));
    TU_CHECK(ps.max_influences == sinew_asset_stats(a)->max_influences);
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal));
    const uint32_t *off, *jn;
    const float *w;
    TU_CHECK_OK(sinew_asset_influences(a, &off, &jn, &w));
    const double *rp = sinew_asset_rest_positions(a);
    for (uint32_t v = 0; v < nv; v++) {
        double acc[3] = { 0, 0, 0 }, ws = 0;
        sinew_vec3 p = sinew_v3(rp[v * 3], rp[v * 3 + 1], rp[v * 3 + 2]);
        for (uint32_t k = off[v]; k < off[v + 1]; k++) {
            sinew_vec3 q = sinew_mat4_transform_point(&pal[jn[k]].skin, p);
            acc[0] += w[k] * q.x; acc[1] += w[k] * q.y; acc[2] += w[k] * q.z; ws += w[k];
        }
        for (int e = 0; e < 3; e++) want[v * 3 + e] = acc[e] / ws;
    }
    TU_CHECK_OK(sinew_reference_skin8(nv, v8, NULL, pal, nj, SINEW_METHOD_LBS, 0, got, NULL));
    double e8 = max_pos_diff(nv, got, want) / size;
    TU_CHECK_OK(sinew_reference_skin(nv, sinew_asset_vertices(a), NULL, pal, nj, SINEW_METHOD_LBS, 0, got, NULL));
    double e4 = max_pos_diff(nv, got, want) / size;
    fprintf(stderr, "  %s: 8 influences vs float64 LBS of every influence %.3g * size (tolerance 1e-4); pruned to 4: %.3g * size\n",
            what, e8, e4);
    TU_CHECK(e8 <= 1e-4);
    if (!(e8 <= worst_infl8_rel)) worst_infl8_rel = e8;
    if (!(e4 <= worst_infl4_rel)) worst_infl4_rel = e4;
    free(v8); free(scratch); free(pal); free(want); free(got);
}

/* sinew_asset_rest_mesh: the whole character with 4 influences is the asset's
 * packed vertices, with 8 sinew_asset_vertices8; each mesh's rest mesh is its
 * slice of them, triangles renumbered from the mesh's first vertex. */
static void check_rest_meshes(const model_case *mc, const sinew_asset *a)
{
    uint32_t nv = sinew_asset_vertex_count(a);
    sinew_error_info e;
    sinew_rest_mesh *all4 = NULL, *all8 = NULL;
    TU_CHECK_OK(sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 4, &all4, &e));
    TU_CHECK_OK(sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 8, &all8, &e));
    if (!all4 || !all8) {
        fprintf(stderr, "%s: %s\n", mc->path, e.message);
        goto out;
    }
    TU_CHECK(sinew_rest_mesh_vertex_count(all4) == nv);
    TU_CHECK_MSG(memcmp(sinew_rest_mesh_vertices(all4), sinew_asset_vertices(a), sizeof(sinew_vertex) * nv) == 0,
                 "%s: rest mesh vertices differ from the asset's", mc->path);
    sinew_vertex8 *v8 = calloc(nv, sizeof *v8);
    TU_CHECK_OK(sinew_asset_vertices8(a, v8, NULL));
    TU_CHECK(memcmp(sinew_rest_mesh_vertices8(all8), v8, sizeof(sinew_vertex8) * nv) == 0);
    free(v8);
    if (sinew_asset_tangents(a))
        TU_CHECK(memcmp(sinew_rest_mesh_tangents(all4), sinew_asset_tangents(a), sizeof(sinew_tangent) * nv) == 0);
    uint32_t nt = 0;
    const uint32_t *tri = sinew_rest_mesh_triangles(all4, &nt);
    TU_CHECK(nt == sinew_asset_index_count(a) / 3 && (nt == 0 || memcmp(tri, sinew_asset_indices(a), 12 * nt) == 0));
    for (uint32_t m = 0; m < sinew_asset_mesh_count(a); m++) {
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, m);
        sinew_rest_mesh *rm = NULL;
        TU_CHECK_OK(sinew_asset_rest_mesh(a, m, 4, &rm, &e));
        if (!rm) continue;
        TU_CHECK(sinew_rest_mesh_vertex_count(rm) == mi->vertex_count);
        TU_CHECK(memcmp(sinew_rest_mesh_vertices(rm), sinew_asset_vertices(a) + mi->first_vertex,
                        sizeof(sinew_vertex) * mi->vertex_count) == 0);
        TU_CHECK(memcmp(sinew_rest_mesh_bulge_distances(rm), sinew_rest_mesh_bulge_distances(all4) + mi->first_vertex,
                        sizeof(float) * mi->vertex_count) == 0);
        tri = sinew_rest_mesh_triangles(rm, &nt);
        TU_CHECK(nt == mi->index_count / 3);
        for (uint32_t k = 0; k < 3 * nt; k++)
            TU_CHECK(tri[k] + mi->first_vertex == sinew_asset_indices(a)[mi->first_index + k]);
        sinew_rest_mesh_destroy(rm);
    }
    sinew_rest_mesh *none = NULL;
    TU_CHECK_RESULT(sinew_asset_rest_mesh(a, sinew_asset_mesh_count(a), 0, &none, &e), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(e.item == SINEW_ITEM_MESH && e.index == sinew_asset_mesh_count(a) && none == NULL);
out:
    sinew_rest_mesh_destroy(all4);
    sinew_rest_mesh_destroy(all8);
}

static void check_model(const model_case *mc)
{
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = mc->path;
    d.flags = mc->flags;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s (%s)", mc->path, sinew_result_string(r), err.message);
    if (r) return;
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    const sinew_asset_import_stats *st = sinew_asset_stats(a);
    double size = sinew_asset_size(a);
    fprintf(stderr, "%s: %u meshes, %u vertices, %u triangles, %u joints, %u clips, max %u influences, %u pruned, size %.4g\n",
            mc->path, sinew_asset_mesh_count(a), nv, sinew_asset_index_count(a) / 3, nj, sinew_asset_clip_count(a),
            st->max_influences, st->vertices_pruned, size);
    TU_CHECK(sinew_asset_mesh_count(a) == mc->meshes);
    check_rest_meshes(mc, a);
    TU_CHECK(nv == mc->vertices);
    TU_CHECK(nj == mc->joints);
    TU_CHECK(sinew_asset_clip_count(a) == mc->clips);
    TU_CHECK(size > 0 && isfinite(size));
    /* mesh ranges tile the vertex and index arrays; indices in range */
    uint32_t next_v = 0, next_i = 0;
    for (uint32_t i = 0; i < sinew_asset_mesh_count(a); i++) {
        const sinew_asset_mesh_info *m = sinew_asset_mesh(a, i);
        TU_CHECK(m->first_vertex == next_v && m->first_index == next_i && m->node_joint < nj);
        for (uint32_t k = m->first_index; k < m->first_index + m->index_count; k++) {
            uint32_t ix = sinew_asset_indices(a)[k];
            if (ix < m->first_vertex || ix >= m->first_vertex + m->vertex_count) { TU_CHECK_MSG(0, "index %u outside mesh %u", ix, i); break; }
        }
        next_v += m->vertex_count;
        next_i += m->index_count;
    }
    TU_CHECK(next_v == nv && next_i == sinew_asset_index_count(a));
    uint32_t hist_total = 0;
    for (int k = 0; k < 9; k++) hist_total += st->influence_histogram[k];
    TU_CHECK(hist_total == nv);
    TU_CHECK(st->influence_histogram[0] == st->unweighted_vertices);
    /* bind pose reproduces the rest mesh */
    sinew_transform *pose = calloc(nj, sizeof *pose);
    sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
    sinew_palette_joint *pal = calloc(nj, sizeof *pal);
    double *pos = calloc((size_t)nv * 3, sizeof *pos), *nrm = calloc((size_t)nv * 3, sizeof *nrm);
    TU_CHECK_OK(sinew_asset_bind_pose(a, pose));
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal));
    TU_CHECK_OK(sinew_reference_skin(nv, sinew_asset_vertices(a), NULL, pal, nj, SINEW_METHOD_LBS, 0, pos, nrm));
    double eb = max_pos_diff(nv, pos, sinew_asset_rest_positions(a)) / size;
    fprintf(stderr, "  bind pose vs rest mesh: %.3g * size (tolerance 1e-4)\n", eb);
    TU_CHECK(eb <= 1e-4);
    if (!(eb <= worst_bind_rel)) worst_bind_rel = eb;
    skin_gpu_compare(mc, a, pose, "bind pose");
    /* the file's rest (node) pose */
    TU_CHECK_OK(sinew_clip_sample(NULL, sk, 0, SINEW_WRAP_LOOP, pose));
    skin_gpu_compare(mc, a, pose, "rest pose");

    /* clips at several times; batch job equals single sampling */
    for (uint32_t c = 0; c < sinew_asset_clip_count(a); c++) {
        const sinew_clip *clip = sinew_asset_clip(a, c);
        double dur = sinew_clip_duration(clip);
        TU_CHECK(dur >= 0 && isfinite(dur));
        TU_CHECK(sinew_clip_joint_count(clip) == nj);
        const double fr[4] = { 0.0, 0.37, 0.81, 1.0 };
        enum { NT = 4 };
        const sinew_clip *clips[NT];
        double times[NT];
        sinew_transform *batch = calloc((size_t)nj * NT, sizeof *batch);
        for (int t = 0; t < NT; t++) { clips[t] = clip; times[t] = fr[t] * dur; }
        sinew_sample_job job = { 0 };
        job.skeleton = sk; job.count = NT; job.clips = clips; job.times = times;
        job.wrap = SINEW_WRAP_CLAMP; job.poses = batch;
        TU_CHECK_OK(sinew_sample_job_run(&job));
        for (int t = 0; t < NT; t++) {
            TU_CHECK_OK(sinew_clip_sample(clip, sk, times[t], SINEW_WRAP_CLAMP, pose));
            TU_CHECK(memcmp(pose, batch + (size_t)t * nj, nj * sizeof *pose) == 0);
            for (uint32_t j = 0; j < nj; j++) {
                const sinew_transform *x = &pose[j];
                TU_CHECK(isfinite(x->translation.x + x->translation.y + x->translation.z + x->rotation.x +
                                  x->rotation.y + x->rotation.z + x->rotation.w + x->scale.x + x->scale.y + x->scale.z));
            }
            /* only the first clip gets the full GPU comparison at every time (time budget) */
            if (c == 0 || t == 1) {
                char what[96];
                snprintf(what, sizeof what, "clip %u at %.3g s", c, times[t]);
                skin_gpu_compare(mc, a, pose, what);
                if (st->max_influences > 4) check_influences8(a, pose, what);
            }
        }
        free(batch);
    }
    free(pose); free(scratch); free(pal); free(pos); free(nrm);
    sinew_asset_destroy(a);
}

int main(void)
{
    sinew_gpu_desc gd = { 0 };
    gd.enable_validation = 1;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu) return tu_finish("test_asset_models");
    /* anim_test.x references bones that are not in its frame hierarchy: by default an error naming the bone */
    {
        sinew_error_info err;
        sinew_asset_desc d = { 0 };
        d.path = MODELS "X/anim_test.x";
        sinew_asset *a = NULL;
        TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_NOT_FOUND);
        TU_CHECK(a == NULL);
        TU_CHECK_MSG(strstr(err.message, "joint3") != NULL, "message: %s", err.message);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_model(&cases[i]);
    fprintf(stderr, "worst: bind pose %.3g * size; GPU vs reference positions %.3g * size, normals %.3g\n",
            worst_bind_rel, worst_pos_rel, worst_nrm);
    fprintf(stderr, "more than 4 influences: 8-influence packing vs float64 %.3g * size (4-influence packing %.3g)\n",
            worst_infl8_rel, worst_infl4_rel);
    TU_CHECK(worst_infl4_rel > 0); /* the check ran on a model with more than 4 influences */
    uint32_t vm = sinew_debug_validation_message_count(gpu);
    TU_CHECK_MSG(vm == 0, "%u validation messages", vm);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_asset_models");
}
