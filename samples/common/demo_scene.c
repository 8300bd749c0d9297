/* Demo content (see demo_scene.h): tube and assimp models, crowd layouts. */
#include "demo_scene.h"
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>

void demo_model_free(demo_model *m)
{
    if (!m) return;
    sinew_rest_mesh_destroy(m->rest);
#ifdef DEMO_WITH_ASSET
    if (m->asset) sinew_asset_destroy((sinew_asset *)m->asset);
#endif
    if (m->skeleton) sinew_skeleton_destroy(m->skeleton);
    memset(m, 0, sizeof *m);
}

/* Points the model's arrays into its rest mesh. */
static void use_rest_mesh(demo_model *m)
{
    uint32_t tc = 0;
    m->vertices = sinew_rest_mesh_vertices(m->rest);
    m->vertex_count = sinew_rest_mesh_vertex_count(m->rest);
    m->indices = sinew_rest_mesh_triangles(m->rest, &tc);
    m->index_count = 3 * tc;
    m->bulge = sinew_rest_mesh_bulge_distances(m->rest);
}

sinew_result demo_tube(uint32_t rings, uint32_t sectors, demo_model *m)
{
    return demo_shape(rings, sectors, SCENE_SHAPE_TUBE, m);
}

sinew_result demo_shape(uint32_t rings, uint32_t sectors, scene_shape shape, demo_model *m)
{
    return demo_shape_alpha(rings, sectors, shape, 2.0, m);
}

sinew_result demo_model_auto_weights(const demo_model *src, double alpha, demo_model *m)
{
    memset(m, 0, sizeof *m);
    uint32_t jc = sinew_skeleton_joint_count(src->skel), used = 0, nv = src->vertex_count;
    uint8_t *mask = calloc(jc ? jc : 1, 1);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * (nv ? nv : 1));
    float *w4 = malloc(sizeof(float) * 4 * (nv ? nv : 1)), *pos = malloc(sizeof(float) * 3 * (nv ? nv : 1));
    float *nrm = calloc(3 * (size_t)(nv ? nv : 1), sizeof(float));
    sinew_result r = mask && j4 && w4 && pos && nrm ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
#ifdef DEMO_WITH_ASSET
    /* the float32 normals src's packed vertices were made from (the packed ones are oct-encoded) */
    const double *rn = src->asset ? sinew_asset_rest_normals((const sinew_asset *)src->asset) : NULL;
#else
    const double *rn = NULL;
#endif
    if (r == SINEW_OK && !rn) r = SINEW_ERROR_INVALID_ARGUMENT; /* an imported model only */
    if (r == SINEW_OK) {
        for (uint32_t i = 0; i < nv; i++)
            for (int k = 0; k < 4; k++) {
                uint32_t j = src->vertices[i].joints[k];
                if (src->vertices[i].weights[k] && j < jc && !mask[j]) { mask[j] = 1; used++; }
            }
        for (size_t k = 0; k < 3 * (size_t)nv; k++) {
            pos[k] = src->vertices[k / 3].position[k % 3];
            nrm[k] = (float)rn[k];
        }
        sinew_auto_weights_desc d = {0};
        d.alpha = alpha;
        d.joint_mask = used >= 2 ? mask : NULL;
        r = sinew_auto_weights_ex(src->skel, &d, nv, pos, j4, w4);
    }
    if (r == SINEW_OK)
        r = scene_rest_mesh4(src->skel, nv, pos, nrm, j4, w4, src->indices, src->index_count, 4, &m->rest);
    free(mask);
    free(j4);
    free(w4);
    free(pos);
    free(nrm);
    if (r != SINEW_OK) {
        demo_model_free(m);
        return r;
    }
    use_rest_mesh(m);
    snprintf(m->name, sizeof m->name, "%.40s, auto weights %.2g", src->name, alpha);
    m->skel = src->skel;
    m->clip = src->clip;
    m->clip_duration = src->clip_duration;
    m->size = src->size;
    m->height = src->height;
    m->lift = src->lift;
    m->upright = src->upright;
    return SINEW_OK;
}

sinew_result demo_shape_alpha(uint32_t rings, uint32_t sectors, scene_shape shape, double alpha, demo_model *m)
{
    memset(m, 0, sizeof *m);
    scene_tube_desc td = {0};
    td.shape = shape;
    td.rings = rings;
    td.sectors = sectors;
    td.radius = 0.1;
    td.alpha = alpha;
    uint32_t nv = 0, ni = 0;
    scene_tube_counts(&td, &nv, &ni);
    if (nv == 0) return SINEW_ERROR_INVALID_ARGUMENT;
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * nv), *idx = malloc(sizeof(uint32_t) * ni);
    float *w4 = malloc(sizeof(float) * 4 * nv);
    sinew_result r = (pos && nrm && j4 && w4 && idx) ? SINEW_OK : SINEW_ERROR_OUT_OF_HOST_MEMORY;
    if (r == SINEW_OK) r = scene_tube_build(&td, pos, nrm, j4, w4, idx);
    if (r == SINEW_OK) r = scene_tube_skeleton(NULL, &m->skeleton);
    if (r == SINEW_OK) r = scene_rest_mesh4(m->skeleton, nv, pos, nrm, j4, w4, idx, ni, 0, &m->rest);
    free(pos);
    free(nrm);
    free(j4);
    free(w4);
    free(idx);
    if (r != SINEW_OK) {
        demo_model_free(m);
        return r;
    }
    use_rest_mesh(m);
    snprintf(m->name, sizeof m->name, "%s %ux%u, alpha %.2g", shape == SCENE_SHAPE_BAR ? "bar" : "tube", rings, sectors,
             alpha);
    m->skel = m->skeleton;
    m->size = sqrt(1.0 + 0.04 + 0.04);
    m->height = 1.0;
    m->lift = 0.0;
    m->upright = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 0.5 * M_PI); /* x -> y */
    m->is_tube = 1;
    return SINEW_OK;
}

#ifdef DEMO_WITH_ASSET
sinew_result demo_asset(const char *path, demo_model *m, char *msg, size_t msg_size)
{
    memset(m, 0, sizeof *m);
    sinew_asset_desc d = {0};
    d.path = path;
    sinew_asset *a = NULL;
    sinew_error_info aerr;
    sinew_result r = sinew_asset_load(&d, &a, &aerr);
    if (msg && msg_size) snprintf(msg, msg_size, "%s", aerr.message);
    if (r != SINEW_OK) return r;
    m->asset = a;
    m->skel = sinew_asset_skeleton(a);
    /* 4 influences, as sinew_asset_vertices (more are pruned) */
    sinew_error_info e;
    r = sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 4, &m->rest, &e);
    if (r != SINEW_OK) {
        if (msg && msg_size) snprintf(msg, msg_size, "%s", e.message);
        demo_model_free(m);
        return r;
    }
    use_rest_mesh(m);
    m->indices = sinew_asset_indices(a);
    m->index_count = sinew_asset_index_count(a);
    m->clip = sinew_asset_clip_count(a) ? sinew_asset_clip(a, 0) : NULL;
    m->clip_duration = m->clip ? sinew_clip_duration(m->clip) : 0;
    m->size = sinew_asset_size(a);
    const char *base = strrchr(path, '/');
    snprintf(m->name, sizeof m->name, "%s", base ? base + 1 : path);
    /* its centers of rotation are cached beside it ($SINEW_CACHE_DIR: there instead) */
    if (sinew_bake_cache_path(path, getenv("SINEW_CACHE_DIR"), "cor", m->cache_path, sizeof m->cache_path) != SINEW_OK)
        m->cache_path[0] = 0;
    /* stand it up: glTF is Y-up by its specification; other formats by the bounding box */
    demo_model_set_up(m, sinew_asset_stats(a)->gltf ? DEMO_UP_Y : DEMO_UP_AUTO);
    return SINEW_OK;
}
#endif

void demo_model_set_up(demo_model *m, int axis)
{
    double lo[3] = { 1e300, 1e300, 1e300 }, hi[3] = { -1e300, -1e300, -1e300 };
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (int k = 0; k < 3; k++) {
            double v = m->vertices[i].position[k];
            if (v < lo[k]) lo[k] = v;
            if (v > hi[k]) hi[k] = v;
        }
    if (!m->vertex_count) lo[0] = lo[1] = lo[2] = hi[0] = hi[1] = hi[2] = 0;
    double ext[3] = { hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2] };
    if (axis == DEMO_UP_AUTO) /* the longest bounding-box axis, if clearly longer than y */
        axis = ext[2] > ext[1] * 1.3 && ext[2] >= ext[0] ? DEMO_UP_Z : DEMO_UP_Y;
    if (axis == DEMO_UP_Z) m->upright = sinew_quat_from_axis_angle(sinew_v3(1, 0, 0), -0.5 * M_PI); /* z -> y */
    else if (axis == DEMO_UP_X) m->upright = sinew_quat_from_axis_angle(sinew_v3(0, 0, 1), 0.5 * M_PI); /* x -> y */
    else { axis = DEMO_UP_Y; m->upright = sinew_quat_identity(); }
    m->up_axis = axis;
    m->height = ext[axis];
    m->lift = -lo[axis];
}

sinew_result demo_model_centers(demo_model *m)
{
    if (m->centers || m->index_count < 3) return SINEW_OK;
    sinew_thread_pool *pool = NULL;
    sinew_rest_mesh_centers_desc cd = {0};
    sinew_result r = sinew_thread_pool_create(NULL, &pool);
    cd.pool = pool;
    sinew_bake_cache_report rep;
    if (r == SINEW_OK)
        r = sinew_rest_mesh_compute_centers_cached(m->rest, &cd, m->cache_path[0] ? m->cache_path : NULL, &rep, NULL);
    if (r == SINEW_OK && rep.message[0]) fprintf(stderr, "warning: centers of rotation cache: %s\n", rep.message);
    sinew_thread_pool_destroy(pool);
    if (r == SINEW_OK) m->centers = sinew_rest_mesh_centers(m->rest);
    return r;
}

sinew_result demo_model_upload(demo_model *m, sinew_skinner *sk, sinew_renderer *rnd)
{
    sinew_result r = demo_model_centers(m);
    if (r == SINEW_OK) r = sinew_skinner_add_rest_mesh(sk, m->rest, &m->mesh_id, NULL);
    if (r == SINEW_OK && rnd && m->index_count)
        r = sinew_renderer_set_mesh(rnd, m->mesh_id, m->indices, m->index_count, m->vertex_count);
    return r;
}

sinew_result demo_model_add_to_crowd(const demo_model *m, sinew_crowd *c, sinew_model_id *model_id)
{
    sinew_crowd_model_desc cm = {0};
    cm.skeleton = m->skel;
    cm.mesh_count = 1;
    cm.meshes = &m->mesh_id;
    cm.vertex_counts = &m->vertex_count;
    return sinew_crowd_add_model(c, &cm, model_id, NULL);
}

sinew_result demo_tube_motion(void *user, const sinew_skeleton *skel, uint32_t character, double t,
                              sinew_transform *out)
{
    (void)skel;
    (void)character;
    int scaled = user != NULL && *(const int *)user;
    double bend = 1.1 * sin(1.3 * t);
    double twist = 2.6 * sin(0.9 * t + 0.5);
    sinew_vec3 s = sinew_v3(1, 1 + 0.35 * sin(1.7 * t), 1 + 0.35 * sin(1.7 * t));
    scene_tube_pose(bend, twist, scaled ? &s : NULL, out);
    return SINEW_OK;
}

sinew_result demo_crowd_setup(demo_crowd *dc, const demo_model *m, sinew_model_id model_id, uint32_t count,
                              int method, uint32_t flags)
{
    dc->count = count;
    dc->scale_flag = 1;
    dc->chars = calloc(count ? count : 1, sizeof *dc->chars);
    dc->roots = calloc(count ? count : 1, sizeof *dc->roots);
    if (!dc->chars || !dc->roots) return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t side = (uint32_t)ceil(sqrt((double)count));
    if (side == 0) side = 1;
    double footprint = m->size - m->height > 0.5 * m->height ? m->size - m->height : 0.5 * m->height;
    dc->spacing = 1.2 * footprint + 0.25 * m->height;
    dc->extent = 0.5 * side * dc->spacing;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t gx = i % side, gz = i / side;
        double x = (gx - 0.5 * (side - 1)) * dc->spacing;
        double z = (gz - 0.5 * (side - 1)) * dc->spacing;
        sinew_quat yaw = sinew_quat_from_axis_angle(sinew_v3(0, 1, 0), 0.7 * (double)((i * 2654435761u) % 9));
        sinew_quat q = sinew_quat_mul(yaw, m->upright);
        dc->roots[i] = sinew_mat4_from_rigid(q, sinew_v3(x, m->lift, z));
        sinew_crowd_character *ch = &dc->chars[i];
        ch->model = model_id;
        ch->method = method < 0 ? (sinew_method)(i % 3) : (sinew_method)method;
        ch->flags = flags;
        ch->root = &dc->roots[i];
        ch->clip = m->clip;
        if (!m->clip) {
            ch->sample = demo_tube_motion;
            ch->sample_user = (ch->method >= SINEW_METHOD_DQS_SCALE && ch->method != SINEW_METHOD_COR) ? &dc->scale_flag : NULL;
        }
        ch->time = 0.37 * (double)(i % 17);
    }
    return SINEW_OK;
}

void demo_crowd_set_method(demo_crowd *dc, int method, uint32_t flags)
{
    for (uint32_t i = 0; i < dc->count; i++) {
        sinew_crowd_character *ch = &dc->chars[i];
        ch->method = method < 0 ? (sinew_method)(i % 3) : (sinew_method)method;
        ch->flags = flags;
        if (ch->sample) ch->sample_user = (ch->method >= SINEW_METHOD_DQS_SCALE && ch->method != SINEW_METHOD_COR) ? &dc->scale_flag : NULL;
    }
}

void demo_crowd_animate(demo_crowd *dc, double t)
{
    for (uint32_t i = 0; i < dc->count; i++) dc->chars[i].time = t + 0.37 * (double)(i % 17);
}

void demo_crowd_free(demo_crowd *dc)
{
    free(dc->chars);
    free(dc->roots);
    memset(dc, 0, sizeof *dc);
}
