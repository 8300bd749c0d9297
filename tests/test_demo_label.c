/* The labels of the samples' comparison pictures (demo_draw_label,
 * stb_easy_font): text drawn into an RGBA image lands in its box (centered on
 * the given x, from the given top, at most 14 x scale rows tall), in the text
 * colour, nothing outside the box plus its one-pixel outline changes, and two
 * different names give different pixels. */
#include "testutil.h"
#include "demo_render.h"
#include <stdlib.h>
#include <string.h>

#define W 320
#define H 80

static uint8_t img[2][W * H * 4];

static int draw(int k, const char *text, int *dark, int *outside)
{
    memset(img[k], 200, sizeof img[k]);
    int q = demo_draw_label(img[k], W, H, 160, 20, text, 3);
    *dark = *outside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = img[k] + 4 * (y * W + x);
            int changed = p[0] != 200 || p[1] != 200 || p[2] != 200;
            int in_box = x >= 160 - 100 && x < 160 + 100 && y >= 20 - 1 && y < 20 + 14 * 3 + 1;
            if (p[0] == 24 && p[1] == 24 && p[2] == 28) (*dark)++;
            if (changed && !in_box) (*outside)++;
        }
    return q;
}

int main(void)
{
    int dark0, out0, dark1, out1;
    int q0 = draw(0, "lbs", &dark0, &out0), q1 = draw(1, "dqs-scale", &dark1, &out1);
    printf("'lbs': %d quads, %d text pixels; 'dqs-scale': %d quads, %d text pixels\n", q0, dark0, q1, dark1);
    TU_CHECK(q0 > 0 && q1 > q0);
    TU_CHECK(dark0 > 50 && dark1 > dark0);
    TU_CHECK(out0 == 0 && out1 == 0);
    TU_CHECK(memcmp(img[0], img[1], sizeof img[0]) != 0);
    /* nothing is drawn for an empty name, and a label off the image clips */
    memset(img[0], 200, sizeof img[0]);
    TU_CHECK(demo_draw_label(img[0], W, H, 160, 20, "", 3) == 0);
    demo_draw_label(img[0], W, H, -500, -500, "cor", 3);
    int changed = 0;
    for (size_t i = 0; i < sizeof img[0]; i++) changed |= img[0][i] != 200;
    TU_CHECK(!changed);
    return tu_finish("test_demo_label");
}
