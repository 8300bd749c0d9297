/* Headless demo scenes (see demo_render.h). */
#include "demo_render.h"

const float demo_cmp_colors[DEMO_CMP_COLS][3] = {
    { 0.80f, 0.20f, 0.16f }, { 0.16f, 0.36f, 0.85f }, { 0.18f, 0.62f, 0.22f }, { 0.85f, 0.50f, 0.08f },
    { 0.62f, 0.22f, 0.72f } };
const char *const demo_cmp_names[DEMO_CMP_COLS] = { "lbs", "dqs", "dqs-scale", "dqs+bulge", "cor" };

void demo_scene_destroy(demo_gpu_scene *s)
{
    if (s->sk) sinew_skinner_wait(s->sk);
    sinew_morpher_destroy(s->morpher);
    scene_psd_correctives_free(&s->psd_small);
    scene_psd_correctives_free(&s->psd_fine);
    sinew_crowd_destroy(s->crowd);
    sinew_renderer_destroy(s->rnd);
    sinew_skinner_destroy(s->sk);
    demo_model_free(&s->tube_fine);
    demo_model_free(&s->tube_small);
    demo_model_free(&s->asset);
    demo_model_free(&s->bar_fine);
    demo_model_free(&s->bar_small);
    memset(s, 0, sizeof *s);
}

sinew_result demo_scene_create(sinew_gpu *gpu, uint32_t max_characters, const sinew_renderer_desc *rd,
                               sinew_output_format fmt, const char *asset_path, demo_gpu_scene *s,
                               char *msg, size_t msg_size)
{
    memset(s, 0, sizeof *s);
    s->gpu = gpu;
    s->max_characters = max_characters;
    if (msg && msg_size) msg[0] = 0;
    sinew_result r = demo_tube(64, 32, &s->tube_fine);
    if (r == SINEW_OK) r = demo_tube(24, 16, &s->tube_small);
    if (r == SINEW_OK) r = demo_shape(64, 32, SCENE_SHAPE_BAR, &s->bar_fine);
    if (r == SINEW_OK) r = demo_shape(24, 16, SCENE_SHAPE_BAR, &s->bar_small);
    if (r != SINEW_OK) {
        demo_scene_destroy(s);
        return r;
    }
#ifdef DEMO_WITH_ASSET
    if (asset_path && demo_asset(asset_path, &s->asset, msg, msg_size) == SINEW_OK) s->has_asset = 1;
#else
    (void)asset_path;
#endif
    uint32_t max_verts = s->tube_small.vertex_count, max_joints = 3;
    if (s->has_asset) {
        if (s->asset.vertex_count > max_verts) max_verts = s->asset.vertex_count;
        uint32_t j = sinew_skeleton_joint_count(s->asset.skel);
        if (j > max_joints) max_joints = j;
    }
    uint64_t out = (uint64_t)max_characters * max_verts + s->tube_fine.vertex_count * 8u;
    if (out > (1u << 25)) out = 1u << 25;
    uint64_t pal = (uint64_t)max_characters * max_joints * 7u + 64;
    if (pal > (1u << 24)) pal = 1u << 24;
    sinew_skinner_desc sd = {0};
    s->spare_meshes = DEMO_SCENE_SPARE_MESHES;
    s->spare_vertices = 16 * s->tube_small.vertex_count + 4 * s->asset.vertex_count;
    sd.max_rest_vertices = s->tube_fine.vertex_count + s->tube_small.vertex_count + s->bar_fine.vertex_count +
                           s->bar_small.vertex_count + s->asset.vertex_count + 64 + s->spare_vertices +
                           DEMO_PSD_SLOTS * s->tube_small.vertex_count + DEMO_PSD_FINE_SLOTS * s->tube_fine.vertex_count;
    sd.max_meshes = 8 + DEMO_SCENE_SPARE_MESHES + DEMO_PSD_SLOTS + DEMO_PSD_FINE_SLOTS;
    sd.max_instances = max_characters > 2 * DEMO_CMP_COLS ? max_characters : 2 * DEMO_CMP_COLS;
    sd.max_output_vertices = (uint32_t)out;
    sd.max_palette_vec4 = (uint32_t)pal;
    sd.frames_in_flight = 2;
    sd.output_format = fmt;
    sd.cor_centers = true; /* demo_model_upload gives every mesh its centers of rotation */
    r = sinew_skinner_create(gpu, &sd, &s->sk, NULL);
    while (r == SINEW_ERROR_LIMIT_EXCEEDED && sd.max_output_vertices > 4u * max_verts) {
        sd.max_output_vertices /= 2; /* beyond the device's buffer limits: shrink */
        r = sinew_skinner_create(gpu, &sd, &s->sk, NULL);
    }
    s->max_output_vertices = sd.max_output_vertices;
    sinew_renderer_desc rdd = {0};
    if (rd) rdd = *rd;
    if (!rdd.max_meshes) rdd.max_meshes = sd.max_meshes;
    if (r == SINEW_OK) r = sinew_renderer_create(gpu, s->sk, &rdd, &s->rnd);
    if (r == SINEW_OK) {
        sinew_crowd_desc cd = {0};
        cd.skinner = s->sk;
        cd.max_characters = sd.max_instances;
        cd.max_joints = max_joints;
        r = sinew_crowd_create(&cd, &s->crowd, NULL);
    }
    if (r == SINEW_OK) r = demo_model_upload(&s->tube_fine, s->sk, s->rnd);
    if (r == SINEW_OK) r = demo_model_upload(&s->tube_small, s->sk, s->rnd);
    if (r == SINEW_OK) r = demo_model_upload(&s->bar_fine, s->sk, s->rnd);
    if (r == SINEW_OK) r = demo_model_upload(&s->bar_small, s->sk, s->rnd);
    if (r == SINEW_OK && s->has_asset) r = demo_model_upload(&s->asset, s->sk, s->rnd);
    if (r == SINEW_OK) r = demo_model_add_to_crowd(&s->tube_fine, s->crowd, &s->id_fine);
    if (r == SINEW_OK) r = demo_model_add_to_crowd(&s->tube_small, s->crowd, &s->id_small);
    if (r == SINEW_OK) r = demo_model_add_to_crowd(&s->bar_fine, s->crowd, &s->id_bar_fine);
    if (r == SINEW_OK) r = demo_model_add_to_crowd(&s->bar_small, s->crowd, &s->id_bar_small);
    if (r == SINEW_OK && s->has_asset) r = demo_model_add_to_crowd(&s->asset, s->crowd, &s->id_asset);
    if (r != SINEW_OK) demo_scene_destroy(s);
    return r;
}

sinew_result demo_scene_add_variant(demo_gpu_scene *s, demo_model *m, sinew_model_id *id)
{
    if (s->spare_meshes == 0 || m->vertex_count > s->spare_vertices) return SINEW_ERROR_CAPACITY;
    sinew_result r = demo_model_upload(m, s->sk, s->rnd);
    if (r == SINEW_OK) r = demo_model_add_to_crowd(m, s->crowd, id);
    if (r == SINEW_OK) {
        s->spare_meshes--;
        s->spare_vertices -= m->vertex_count;
    }
    return r;
}

sinew_result demo_scene_enable_psd(demo_gpu_scene *s)
{
    if (s->morpher) return SINEW_OK;
    sinew_morpher_desc md = {0};
    md.max_slots = DEMO_PSD_SLOTS + DEMO_PSD_FINE_SLOTS;
    md.max_sets = 2;
    md.max_data_vec4 = 1u << 18;
    sinew_result r = scene_psd_correctives(s->tube_small.vertex_count, s->tube_small.vertices, &s->psd_small);
    if (r == SINEW_OK) r = scene_psd_correctives(s->tube_fine.vertex_count, s->tube_fine.vertices, &s->psd_fine);
    if (r == SINEW_OK) r = sinew_morpher_create(s->sk, &md, &s->morpher);
    sinew_morph_error err;
    if (r == SINEW_OK)
        r = sinew_morpher_add_targets(s->morpher, s->tube_small.mesh_id, s->psd_small.targets, s->psd_small.count,
                                      &s->psd_set_small, &err);
    if (r == SINEW_OK)
        r = sinew_morpher_add_targets(s->morpher, s->tube_fine.mesh_id, s->psd_fine.targets, s->psd_fine.count,
                                      &s->psd_set_fine, &err);
    /* bulge correction on the corrected tubes keeps the correctives (distances of the morphed rest) */
    if (r == SINEW_OK) r = sinew_morpher_set_skeleton(s->morpher, s->psd_set_small, s->tube_small.skel);
    if (r == SINEW_OK) r = sinew_morpher_set_skeleton(s->morpher, s->psd_set_fine, s->tube_fine.skel);
    for (uint32_t i = 0; i < DEMO_PSD_SLOTS + DEMO_PSD_FINE_SLOTS && r == SINEW_OK; i++) {
        int fine = i >= DEMO_PSD_SLOTS;
        sinew_morph_slot_id *slot = fine ? &s->psd_fine_slots[i - DEMO_PSD_SLOTS] : &s->psd_slots[i];
        const demo_model *m = fine ? &s->tube_fine : &s->tube_small;
        sinew_mesh_id copy;
        r = sinew_morpher_add_slot(s->morpher, fine ? s->psd_set_fine : s->psd_set_small, slot);
        if (r == SINEW_OK) r = sinew_morpher_slot_mesh(s->morpher, *slot, &copy);
        if (r == SINEW_OK) r = sinew_renderer_set_mesh(s->rnd, copy, m->indices, m->index_count, m->vertex_count);
    }
    if (r != SINEW_OK) {
        sinew_morpher_destroy(s->morpher);
        s->morpher = NULL;
        scene_psd_correctives_free(&s->psd_small);
        scene_psd_correctives_free(&s->psd_fine);
    }
    return r;
}

const char *const demo_psd_names[DEMO_PSD_COLS] = { "LBS", "LBS + correctives", "DQS (target)" };

sinew_result demo_render_psd(demo_gpu_scene *s, sinew_render_target *t, uint32_t w, uint32_t h, uint8_t *rgba,
                             sinew_render_view *view_out)
{
    if (!s->morpher) return SINEW_ERROR_INVALID_ARGUMENT;
    static const float cols[DEMO_PSD_COLS][3] = { { 0.85f, 0.33f, 0.25f }, { 0.25f, 0.65f, 0.35f }, { 0.25f, 0.45f, 0.85f } };
    enum { N = 2 * DEMO_PSD_COLS };
    sinew_transform poses[N][3];
    sinew_mat4 roots[N];
    sinew_crowd_character ch[N];
    sinew_mesh_id meshes[N];
    sinew_morph_item items[2];
    float wts[2][PSD_EXAMPLES];
    float colors[N * 3];
    memset(ch, 0, sizeof ch);
    uint32_t nitems = 0;
    sinew_result r = SINEW_OK;
    for (int row = 0; row < 2 && r == SINEW_OK; row++)
        for (int col = 0; col < DEMO_PSD_COLS && r == SINEW_OK; col++) {
            int k = row * DEMO_PSD_COLS + col;
            double bend = row == 0 ? 125.0 : 0.0, twist = row == 1 ? 112.5 : 0.0;
            scene_tube_pose(bend * M_PI / 180.0, twist * M_PI / 180.0, NULL, poses[k]);
            double x0 = col * 1.5 - 2.0, y0 = row == 0 ? 0.45 : -0.75;
            roots[k] = sinew_mat4_from_rigid(sinew_quat_identity(), sinew_v3(x0, y0, 0));
            ch[k].model = s->id_fine;
            ch[k].method = col == 2 ? SINEW_METHOD_DQS : SINEW_METHOD_LBS;
            ch[k].root = &roots[k];
            ch[k].pose = poses[k];
            memcpy(colors + 3 * k, cols[col], sizeof(float) * 3);
            if (col == 1) {
                r = scene_psd_weights(&s->psd_fine, poses[k], wts[nitems]);
                items[nitems].slot = s->psd_fine_slots[nitems];
                items[nitems].weights = wts[nitems];
                items[nitems].weight_count = PSD_EXAMPLES;
                ch[k].meshes = &meshes[k];
                nitems++;
            }
        }
    sinew_mesh_id got[2];
    sinew_morph_error err;
    if (r == SINEW_OK) r = sinew_morpher_set_frame(s->morpher, items, nitems, got, &err);
    for (int row = 0; row < 2; row++) meshes[row * DEMO_PSD_COLS + 1] = got[row];
    if (r == SINEW_OK) r = sinew_crowd_prepare(s->crowd, ch, N, NULL, NULL);
    if (r != SINEW_OK) return r;
    uint32_t n = 0;
    const sinew_instance *in = sinew_crowd_instances(s->crowd, &n);
    sinew_render_view v;
    memset(&v, 0, sizeof v);
    float eye[3] = { 0.0f, 0.25f, 3.5f }, target[3] = { 0.0f, -0.1f, 0.0f };
    sinew_render_camera(v.view_proj, eye, target, 0.75f, (float)w / (float)h, 0.1f, 50.0f);
    memcpy(v.eye, eye, sizeof eye);
    v.light_dir[0] = -0.3f;
    v.light_dir[1] = -0.5f;
    v.light_dir[2] = -1.0f;
    v.clear_color[0] = 0.93f;
    v.clear_color[1] = 0.93f;
    v.clear_color[2] = 0.95f;
    v.clear_color[3] = 1.0f;
    sinew_render_colors cc = { colors };
    r = sinew_renderer_render(s->rnd, t, &v, in, n, &cc, 1);
    if (r == SINEW_OK && rgba) r = sinew_render_target_read(t, rgba);
    if (view_out) *view_out = v;
    return r;
}

int demo_project(const float vp[16], sinew_vec3 p, uint32_t w, uint32_t h, double *px, double *py)
{
    double c[4];
    for (int r = 0; r < 4; r++) c[r] = vp[0 * 4 + r] * p.x + vp[1 * 4 + r] * p.y + vp[2 * 4 + r] * p.z + vp[3 * 4 + r];
    if (c[3] <= 1e-9) return 0;
    *px = (c[0] / c[3] * 0.5 + 0.5) * w;
    *py = (c[1] / c[3] * 0.5 + 0.5) * h;
    return 1;
}

sinew_result demo_render_tube_methods(demo_gpu_scene *s, sinew_render_target *t, uint32_t w, uint32_t h,
                                      uint8_t *rgba, sinew_render_view *view_out, sinew_vec3 mids[2 * DEMO_CMP_COLS])
{
    return demo_render_shape_methods(s, SCENE_SHAPE_TUBE, t, w, h, rgba, view_out, mids);
}

const demo_model *demo_scene_model(const demo_gpu_scene *s, int which, sinew_model_id *id)
{
    if (which == DEMO_MODEL_ASSET && s->has_asset) {
        if (id) *id = s->id_asset;
        return &s->asset;
    }
    if (which == DEMO_MODEL_BAR) {
        if (id) *id = s->id_bar_small;
        return &s->bar_small;
    }
    if (id) *id = s->id_small;
    return &s->tube_small;
}

sinew_result demo_render_shape_methods(demo_gpu_scene *s, scene_shape shape, sinew_render_target *t, uint32_t w,
                                       uint32_t h, uint8_t *rgba, sinew_render_view *view_out, sinew_vec3 mids[2 * DEMO_CMP_COLS])
{
    enum { NCMP = 2 * DEMO_CMP_COLS };
    sinew_transform poses[NCMP][3];
    sinew_mat4 roots[NCMP];
    sinew_crowd_character ch[NCMP];
    float colors[NCMP * 3];
    memset(ch, 0, sizeof ch);
    const sinew_vec3 sc = sinew_v3(1, 1.35, 1.35);
    for (int row = 0; row < 2; row++)
        for (int col = 0; col < DEMO_CMP_COLS; col++) {
            int k = row * DEMO_CMP_COLS + col;
            double bend = row == 1 ? 0.5 * M_PI : 0, twist = row == 0 ? M_PI : 0;
            scene_tube_pose(bend, twist, col == 2 ? &sc : NULL, poses[k]);
            double x0 = col * 1.25 - 3.0, y0 = row == 0 ? 0.55 : -0.75;
            roots[k] = sinew_mat4_from_rigid(sinew_quat_identity(), sinew_v3(x0, y0, 0));
            mids[k] = sinew_v3(x0 + 0.5, y0, 0);
            ch[k].model = shape == SCENE_SHAPE_BAR ? s->id_bar_fine : s->id_fine;
            ch[k].method = col == 0 ? SINEW_METHOD_LBS : col == 2 ? SINEW_METHOD_DQS_SCALE
                           : col == 4 ? SINEW_METHOD_COR : SINEW_METHOD_DQS;
            ch[k].flags = col == 3 ? SINEW_SKIN_BULGE_CORRECTION : 0;
            ch[k].root = &roots[k];
            ch[k].pose = poses[k];
            memcpy(colors + 3 * k, demo_cmp_colors[col], sizeof(float) * 3);
        }
    sinew_result r = sinew_crowd_prepare(s->crowd, ch, NCMP, NULL, NULL);
    if (r != SINEW_OK) return r;
    uint32_t n = 0;
    const sinew_instance *in = sinew_crowd_instances(s->crowd, &n);
    sinew_render_view v;
    memset(&v, 0, sizeof v);
    float eye[3] = { 0.0f, 0.15f, 4.6f }, target[3] = { 0.0f, -0.05f, 0.0f };
    sinew_render_camera(v.view_proj, eye, target, 0.75f, (float)w / (float)h, 0.1f, 50.0f);
    memcpy(v.eye, eye, sizeof eye);
    v.light_dir[0] = -0.3f;
    v.light_dir[1] = -0.5f;
    v.light_dir[2] = -1.0f;
    v.clear_color[0] = 0.93f;
    v.clear_color[1] = 0.93f;
    v.clear_color[2] = 0.95f;
    v.clear_color[3] = 1.0f;
    sinew_render_colors cols = { colors };
    r = sinew_renderer_render(s->rnd, t, &v, in, n, &cols, 1);
    if (r == SINEW_OK && rgba) r = sinew_render_target_read(t, rgba);
    if (view_out) *view_out = v;
    return r;
}

sinew_result demo_render_crowd(demo_gpu_scene *s, int use_asset, uint32_t count, double time,
                               sinew_render_target *t, uint32_t w, uint32_t h, uint8_t *rgba,
                               sinew_render_view *view_out, demo_crowd *dc, double *char_height)
{
    sinew_model_id id;
    const demo_model *m = demo_scene_model(s, use_asset, &id);
    sinew_result r = demo_crowd_setup(dc, m, id, count, -1, 0);
    if (r != SINEW_OK) return r;
    demo_crowd_animate(dc, time);
    r = sinew_crowd_prepare(s->crowd, dc->chars, dc->count, NULL, NULL);
    if (r != SINEW_OK) return r;
    uint32_t n = 0;
    const sinew_instance *in = sinew_crowd_instances(s->crowd, &n);
    sinew_render_view v;
    memset(&v, 0, sizeof v);
    double H = m->height;
    float eye[3] = { (float)(0.35 * dc->extent), (float)(1.1 * dc->extent + 1.6 * H),
                     (float)(1.9 * dc->extent + 2.5 * H) };
    float target[3] = { 0.0f, (float)(0.35 * H), (float)(0.1 * dc->extent) };
    sinew_render_camera(v.view_proj, eye, target, 0.8f, (float)w / (float)h, (float)(0.02 * H),
                        (float)(20 * (dc->extent + H)));
    memcpy(v.eye, eye, sizeof eye);
    v.ground = 1;
    v.ground_height = 0;
    v.ground_extent = (float)(3 * dc->extent + 4 * H);
    r = sinew_renderer_render(s->rnd, t, &v, in, n, NULL, 1);
    if (r == SINEW_OK && rgba) r = sinew_render_target_read(t, rgba);
    if (view_out) *view_out = v;
    if (char_height) *char_height = H;
    return r;
}

/* ---- labels (stb_easy_font, Debian libstb-dev) --------------------------- */
#include <stb/stb_easy_font.h>

static void fill_rect(uint8_t *rgba, uint32_t w, uint32_t h, double x0, double y0, double x1, double y1, const uint8_t rgb[3])
{
    int a = (int)floor(x0), b = (int)ceil(x1), c = (int)floor(y0), d = (int)ceil(y1);
    if (a < 0) a = 0;
    if (c < 0) c = 0;
    if (b > (int)w) b = (int)w;
    if (d > (int)h) d = (int)h;
    for (int y = c; y < d; y++)
        for (int x = a; x < b; x++) {
            uint8_t *p = rgba + 4 * ((size_t)y * w + (size_t)x);
            p[0] = rgb[0]; p[1] = rgb[1]; p[2] = rgb[2]; p[3] = 255;
        }
}

int demo_draw_label(uint8_t *rgba, uint32_t w, uint32_t h, double cx, double top, const char *text, int scale)
{
    static float vb[4 * 4 * 4 * 64]; /* 64 quads' worth of vertices per call (16 bytes each) */
    char buf[32];
    snprintf(buf, sizeof buf, "%s", text);
    int quads = stb_easy_font_print(0, 0, buf, NULL, vb, (int)sizeof vb);
    double width = stb_easy_font_width(buf) * scale, x0 = cx - 0.5 * width;
    static const uint8_t dark[3] = { 24, 24, 28 }, white[3] = { 255, 255, 255 };
    for (int pass = 0; pass < 2; pass++) /* a light outline, then the dark text */
        for (int q = 0; q < quads; q++) {
            const float *v0 = vb + 16 * q, *v2 = vb + 16 * q + 8; /* corners 0 and 2 of the quad */
            double o = pass ? 0 : 1;
            fill_rect(rgba, w, h, x0 + v0[0] * scale - o, top + v0[1] * scale - o, x0 + v2[0] * scale + o, top + v2[1] * scale + o,
                      pass ? dark : white);
        }
    return quads;
}

void demo_label_columns(uint8_t *rgba, uint32_t w, uint32_t h, const sinew_render_view *view, const sinew_vec3 *mids, int count,
                        const char *const *names, int scale)
{
    for (int k = 0; k < count; k++) {
        const float *m = view->view_proj; /* column-major: clip = M * (x, y, z, 1) */
        double p[3] = { mids[k].x, mids[k].y + 0.45, mids[k].z }, c[4];
        for (int r = 0; r < 4; r++) c[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
        if (!(c[3] > 0)) continue;
        double px = (c[0] / c[3] + 1) * 0.5 * w, py = (c[1] / c[3] + 1) * 0.5 * h;
        demo_draw_label(rgba, w, h, px, py - 14.0 * scale, names[k], scale);
    }
}
