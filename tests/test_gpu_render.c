/* Headless rendering through the crowd + skinner + renderer path, checked by
 * content: the tube comparison (twist and bend per method) and a crowd frame
 * are rendered offscreen, written as PNGs, read back from the files, and
 * checked where things must be: every tube in its color at its place, the
 * LBS candy-wrapper pinch (middle silhouette < 35% of DQS's), the bent tips up
 * where the bend puts them and not where the straight tube would end, every
 * crowd character covered by character pixels, the sky clear. Validation clean. */
#include "testutil.h"
#include "demo_render.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

#define W 960
#define H 540

static const uint8_t *px(const uint8_t *img, int x, int y)
{
    if (x < 0) x = 0;
    if (y < 0) y = 0;
    if (x >= W) x = W - 1;
    if (y >= H) y = H - 1;
    return img + ((size_t)y * W + x) * 4;
}

static int saturation(const uint8_t *p)
{
    int mx = p[0], mn = p[0];
    for (int i = 1; i < 3; i++) {
        if (p[i] > mx) mx = p[i];
        if (p[i] < mn) mn = p[i];
    }
    return mx - mn;
}

/* Is the pixel of comparison column `col`'s color? */
static int is_col_color(const uint8_t *p, int col)
{
    int r = p[0], g = p[1], b = p[2];
    switch (col) {
    case 0: return r > g + 30 && r > b + 30;
    case 1: return b > r + 30 && b > g + 15;
    case 2: return g > r + 30 && g > b + 15;
    case 3: return r > b + 60 && g > b + 20;
    default: return r > g + 30 && b > g + 30; /* purple (CoR) */
    }
}

static int is_background_cmp(const uint8_t *p)
{
    return saturation(p) < 12 && p[0] > 200;
}

/* Writes the image as PNG, reads the file back and checks it is identical. */
static void png_roundtrip(const char *path, const uint8_t *img)
{
    TU_CHECK(stbi_write_png(path, W, H, 4, img, W * 4) != 0);
    int w = 0, h = 0, n = 0;
    uint8_t *back = stbi_load(path, &w, &h, &n, 4);
    TU_CHECK_MSG(back != NULL, "could not read back %s", path);
    if (!back) return;
    TU_CHECK(w == W && h == H);
    TU_CHECK_MSG(memcmp(back, img, (size_t)W * H * 4) == 0, "%s differs from the rendered image", path);
    stbi_image_free(back);
    fprintf(stderr, "wrote %s\n", path);
}

static void test_methods(demo_gpu_scene *s, sinew_render_target *t, uint8_t *img)
{
    sinew_render_view v;
    sinew_vec3 mids[2 * DEMO_CMP_COLS];
    memset(&v, 0, sizeof v);
    memset(mids, 0, sizeof mids);
    memset(img, 0, (size_t)W * H * 4);
    TU_CHECK_OK(demo_render_tube_methods(s, t, W, H, img, &v, mids));
    png_roundtrip("test_gpu_render_tubes.png", img);

    double x, y, xa, ya;
    /* pixels per world unit around the scene's center */
    demo_project(v.view_proj, sinew_v3(0, 0, 0), W, H, &xa, &ya);
    demo_project(v.view_proj, sinew_v3(0, 1, 0), W, H, &x, &y);
    double ppu = fabs(y - ya);
    TU_CHECK(ppu > 60 && ppu < 300);

    int twist_width[DEMO_CMP_COLS];
    for (int k = 0; k < 2 * DEMO_CMP_COLS; k++) {
        int row = k / DEMO_CMP_COLS, col = k % DEMO_CMP_COLS;
        /* a point on the first (rigid) half of the tube: its color */
        TU_CHECK(demo_project(v.view_proj, sinew_v3(mids[k].x - 0.3, mids[k].y, 0.1), W, H, &x, &y));
        const uint8_t *p = px(img, (int)x, (int)y);
        TU_CHECK_MSG(is_col_color(p, col), "tube %d (%s, row %d) at (%d,%d): rgb %d %d %d", k, demo_cmp_names[col], row,
                     (int)x, (int)y, p[0], p[1], p[2]);
        if (row == 0) {
            /* silhouette height (pixels not background) through the twisted
             * middle: the smallest over a few columns around it */
            demo_project(v.view_proj, mids[k], W, H, &x, &y);
            int best = 1 << 30;
            for (int dx = -4; dx <= 4; dx++) {
                int cnt = 0;
                for (int dy = -(int)(0.3 * ppu); dy <= (int)(0.3 * ppu); dy++)
                    cnt += !is_background_cmp(px(img, (int)x + dx, (int)y + dy));
                if (cnt < best) best = cnt;
            }
            twist_width[col] = best;
        } else {
            /* bent 90 degrees about z: the tip is up, not where the straight tube ends */
            TU_CHECK(demo_project(v.view_proj, sinew_v3(mids[k].x, mids[k].y + 0.45, 0.1), W, H, &x, &y));
            p = px(img, (int)x, (int)y);
            TU_CHECK_MSG(is_col_color(p, col), "bent tip of %s missing: rgb %d %d %d", demo_cmp_names[col], p[0], p[1], p[2]);
            TU_CHECK(demo_project(v.view_proj, sinew_v3(mids[k].x + 0.45, mids[k].y, 0.0), W, H, &x, &y));
            p = px(img, (int)x, (int)y);
            TU_CHECK_MSG(is_background_cmp(p), "straight tip of %s present: rgb %d %d %d", demo_cmp_names[col], p[0], p[1], p[2]);
        }
    }
    double diameter_px = 0.2 * ppu;
    fprintf(stderr, "twist middle silhouette (px): lbs %d, dqs %d, dqs-scale %d, dqs+bulge %d, cor %d (rest diameter %.1f px)\n",
            twist_width[0], twist_width[1], twist_width[2], twist_width[3], twist_width[4], diameter_px);
    TU_CHECK_MSG(twist_width[0] < 0.35 * twist_width[1], "LBS candy wrapper not visible: %d vs DQS %d", twist_width[0],
                 twist_width[1]);
    TU_CHECK_MSG(fabs(twist_width[1] - diameter_px) < 0.25 * diameter_px + 3, "DQS twist width %d px, rest diameter %.1f",
                 twist_width[1], diameter_px);
    TU_CHECK(twist_width[3] >= 0.75 * twist_width[1]);
    TU_CHECK_MSG(twist_width[4] >= 0.75 * twist_width[1], "CoR twist width %d px vs DQS %d", twist_width[4],
                 twist_width[1]); /* no candy wrapper */
    TU_CHECK(twist_width[2] > twist_width[1]); /* scaled 1.35 across the bone */
}

static void test_crowd_frame(demo_gpu_scene *s, sinew_render_target *t, uint8_t *img)
{
    sinew_render_view v;
    memset(&v, 0, sizeof v);
    demo_crowd dc;
    memset(&dc, 0, sizeof dc);
    double hgt = 1;
    memset(img, 0, (size_t)W * H * 4);
    TU_CHECK_OK(demo_render_crowd(s, 0, 36, 0.7, t, W, H, img, &v, &dc, &hgt));
    png_roundtrip("test_gpu_render_crowd.png", img);
    int missing = 0;
    for (uint32_t i = 0; i < dc.count; i++) {
        const sinew_mat4 *rt = &dc.roots[i];
        sinew_vec3 base = sinew_v3(rt->m[3][0], rt->m[3][1] + 0.15 * hgt, rt->m[3][2]);
        double x, y;
        if (!demo_project(v.view_proj, base, W, H, &x, &y) || x < 0 || y < 0 || x >= W || y >= H) {
            missing++;
            fprintf(stderr, "character %u off screen\n", i);
            continue;
        }
        int found = 0;
        for (int dy = -2; dy <= 2 && !found; dy++)
            for (int dx = -2; dx <= 2 && !found; dx++) found = saturation(px(img, (int)x + dx, (int)y + dy)) > 35;
        if (!found) {
            missing++;
            const uint8_t *p = px(img, (int)x, (int)y);
            fprintf(stderr, "character %u not drawn at (%d,%d): rgb %d %d %d\n", i, (int)x, (int)y, p[0], p[1], p[2]);
        }
    }
    TU_CHECK_MSG(missing == 0, "%d of %u characters not found on screen", missing, dc.count);
    /* character pixels cover a plausible share; the top row is the clear color */
    size_t sat = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) sat += saturation(img + 4 * i) > 35;
    double frac = (double)sat / ((double)W * H);
    fprintf(stderr, "crowd: %.1f%% character pixels\n", 100 * frac);
    TU_CHECK(frac > 0.01 && frac < 0.6);
    const uint8_t *top = px(img, W / 2, 1);
    TU_CHECK_MSG(saturation(top) < 40 && top[0] < 120, "top pixel rgb %d %d %d", top[0], top[1], top[2]);
    demo_crowd_free(&dc);
}

static void test_errors(demo_gpu_scene *s, sinew_render_target *t)
{
    sinew_renderer *r = NULL;
    TU_CHECK_RESULT(sinew_renderer_create(NULL, s->sk, NULL, &r), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_renderer_create(s->gpu, NULL, NULL, &r), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(r == NULL);
    sinew_renderer_desc bad = {0};
    bad.color_format = VK_FORMAT_BC1_RGB_UNORM_BLOCK;
    TU_CHECK_RESULT(sinew_renderer_create(s->gpu, s->sk, &bad, &r), SINEW_ERROR_INVALID_ARGUMENT);
    uint32_t idx[3] = { 0, 1, 5 };
    TU_CHECK_RESULT(sinew_renderer_set_mesh(s->rnd, (sinew_mesh_id){ 7 }, idx, 3, 5), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_renderer_set_mesh(s->rnd, (sinew_mesh_id){ 7 }, idx, 2, 6), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_renderer_set_mesh(s->rnd, (sinew_mesh_id){ 7 }, idx, 0, 6), SINEW_ERROR_EMPTY);
    TU_CHECK_RESULT(sinew_renderer_set_mesh(s->rnd, (sinew_mesh_id){ 1000 }, idx, 3, 6), SINEW_ERROR_CAPACITY);
    sinew_render_target *t2 = NULL;
    TU_CHECK_RESULT(sinew_render_target_create(s->rnd, &(sinew_render_target_desc){ 0, 10, VK_NULL_HANDLE }, &t2), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_render_target_create(s->rnd, &(sinew_render_target_desc){ 1u << 20, 10, VK_NULL_HANDLE }, &t2), SINEW_ERROR_LIMIT_EXCEEDED);
    TU_CHECK(t2 == NULL);
    sinew_render_view v;
    memset(&v, 0, sizeof v);
    v.view_proj[5] = NAN;
    TU_CHECK_RESULT(sinew_renderer_render(s->rnd, t, &v, NULL, 0, NULL, 0), SINEW_ERROR_NON_FINITE);
    v.view_proj[5] = 1;
    sinew_instance in = {0};
    in.mesh.value = 7; /* no indices set */
    TU_CHECK_RESULT(sinew_renderer_render(s->rnd, t, &v, &in, 1, NULL, 0), SINEW_ERROR_NOT_FOUND);
    TU_CHECK_RESULT(sinew_renderer_render(s->rnd, t, NULL, NULL, 0, NULL, 0), SINEW_ERROR_INVALID_ARGUMENT);
    uint8_t dummy[4];
    TU_CHECK_RESULT(sinew_render_target_read(NULL, dummy), SINEW_ERROR_INVALID_ARGUMENT);
    /* a view-only frame (no characters) still renders */
    TU_CHECK_OK(sinew_renderer_render(s->rnd, t, &v, NULL, 0, NULL, 0));
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5EED0DDull); /* (no random input here; printed for uniformity) */
    (void)rng;
    sinew_gpu_desc gd = {0};
    sinew_gpu *gpu = NULL;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    TU_CHECK_OK(r);
    if (r != SINEW_OK) return tu_finish("test_gpu_render");
    fprintf(stderr, "device: %s\n", sinew_gpu_info(gpu)->name);
    demo_gpu_scene s;
    char msg[256];
    r = demo_scene_create(gpu, 64, NULL, SINEW_OUTPUT_FLOAT, NULL, &s, msg, sizeof msg);
    TU_CHECK_OK(r);
    if (r == SINEW_OK) {
        sinew_render_target *t = NULL;
        TU_CHECK_OK(sinew_render_target_create(s.rnd, &(sinew_render_target_desc){ W, H, VK_NULL_HANDLE }, &t));
        uint8_t *img = malloc((size_t)W * H * 4);
        double ms = -1;
        /* the pass's GPU time (sinew_renderer_gpu_time): none before a render */
        sinew_result tr = sinew_renderer_gpu_time(s.rnd, &ms);
        TU_CHECK(tr == SINEW_ERROR_NOT_FOUND || tr == SINEW_ERROR_LIMIT_EXCEEDED);
        TU_CHECK_RESULT(sinew_renderer_gpu_time(NULL, &ms), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK_RESULT(sinew_renderer_gpu_time(s.rnd, NULL), SINEW_ERROR_INVALID_ARGUMENT);
        if (t && img) {
            test_methods(&s, t, img);
            test_crowd_frame(&s, t, img);
            test_errors(&s, t);
            /* after renders: a finite time >= 0 (unless the queue has no timestamps) */
            tr = sinew_renderer_gpu_time(s.rnd, &ms);
            TU_CHECK(tr == SINEW_OK ? ms >= 0 && isfinite(ms) : tr == SINEW_ERROR_LIMIT_EXCEEDED);
            fprintf(stderr, "last pass: %.3f ms on the GPU (%s)\n", ms, sinew_result_string(tr));
        }
        free(img);
        sinew_render_target_destroy(t);
        demo_scene_destroy(&s);
    }
    uint32_t msgs = sinew_debug_validation_message_count(gpu);
    TU_CHECK_MSG(msgs == 0, "%u validation messages", msgs);
    sinew_gpu_destroy(gpu);
    return tu_finish("test_gpu_render");
}
