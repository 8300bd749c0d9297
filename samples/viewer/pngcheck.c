/* sinew-pngcheck FILE MIN_FRACTION [MIN_WIDTH]: reads a PNG and checks it has
 * content: the fraction of strongly colored pixels (max - min channel > 35,
 * i.e. shaded characters, not the grey ground or the dark sky) must be at
 * least MIN_FRACTION. Prints the figures; exit status 0 when the check passes. */
#include <stdio.h>
#include <stdlib.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sinew-pngcheck FILE MIN_FRACTION [MIN_WIDTH]\n");
        return 2;
    }
    int w = 0, h = 0, n = 0;
    unsigned char *img = stbi_load(argv[1], &w, &h, &n, 4);
    if (!img) {
        fprintf(stderr, "%s: not a readable PNG\n", argv[1]);
        return 1;
    }
    double min_frac = atof(argv[2]);
    int min_w = argc > 3 ? atoi(argv[3]) : 16;
    size_t colored = 0, total = (size_t)w * h;
    long sum = 0;
    for (size_t i = 0; i < total; i++) {
        const unsigned char *p = img + 4 * i;
        int mx = p[0], mn = p[0];
        for (int k = 1; k < 3; k++) {
            if (p[k] > mx) mx = p[k];
            if (p[k] < mn) mn = p[k];
        }
        colored += mx - mn > 35;
        sum += p[0] + p[1] + p[2];
    }
    double frac = total ? (double)colored / (double)total : 0;
    printf("%s: %dx%d, %.2f%% colored pixels, mean level %.1f\n", argv[1], w, h, 100 * frac,
           total ? (double)sum / (3.0 * (double)total) : 0);
    stbi_image_free(img);
    return (w >= min_w && h >= min_w && frac >= min_frac) ? 0 : 1;
}
