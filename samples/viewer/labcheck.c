/* sinew-labcheck DIR: checks the screenshots of the scripted panel run
 * (tests/scripts/viewer_lab.txt) change as the settings say:
 *  - every shot shows the panel (its title bar, top left);
 *  - LBS twisted 180 degrees shows less tube than DQS (the candy wrapper);
 *  - bulge correction, another alpha, the bar, automatic weights each change the
 *    picture outside the panel;
 *  - the weight views colour the tube: red and blue for the weight of joint 1, many
 *    saturated colours for the major joint; the plain view has neither;
 *  - a model file loaded from the panel replaces the picture (its major joints coloured).
 * Prints every figure; exit status 0 when all checks pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

typedef struct shot { const char *name; unsigned char *px; int w, h; } shot;

static shot shots[] = { { "lbs-twist" }, { "dqs-twist" }, { "dqs-bend" }, { "dqs-bulge-bend" }, { "major" },
                        { "joint1" }, { "joint1-alpha8" }, { "bar-bend" }, { "model" }, { "model-auto" }, { "model-clip2" }, { "loaded" } };
enum { NSHOT = sizeof shots / sizeof shots[0] };
static int failures;

static shot *get(const char *name)
{
    for (int i = 0; i < NSHOT; i++)
        if (!strcmp(shots[i].name, name)) return &shots[i];
    return NULL;
}

/* Outside the panel (which stays within 420 x 460 at the top left). */
static int outside_panel(int x, int y) { return x > 420 || y > 460; }

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) failures++;
}

/* Pixels of the panel's title bar colour (ImGui dark style, active title). */
static double title_fraction(const shot *s)
{
    long n = 0, hit = 0;
    for (int y = 12; y < 26; y++)
        for (int x = 30; x < 300; x++) {
            const unsigned char *p = s->px + 4 * ((size_t)y * s->w + x);
            n++;
            hit += abs(p[0] - 41) < 25 && abs(p[1] - 74) < 25 && abs(p[2] - 122) < 30;
        }
    return n ? (double)hit / n : 0;
}

/* Fraction of pixels outside the panel that differ by more than 24 in some channel. */
static double diff_fraction(const shot *a, const shot *b)
{
    long n = 0, d = 0;
    if (a->w != b->w || a->h != b->h) return 1.0;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            if (!outside_panel(x, y)) continue;
            const unsigned char *p = a->px + 4 * ((size_t)y * a->w + x), *q = b->px + 4 * ((size_t)y * b->w + x);
            n++;
            d += abs(p[0] - q[0]) > 24 || abs(p[1] - q[1]) > 24 || abs(p[2] - q[2]) > 24;
        }
    return n ? (double)d / n : 0;
}

/* Pixels outside the panel by class: 0 strongly coloured (max - min > 60), 1 red, 2 blue. */
static long count(const shot *s, int cls)
{
    long c = 0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            if (!outside_panel(x, y)) continue;
            const unsigned char *p = s->px + 4 * ((size_t)y * s->w + x);
            int mx = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
            int mn = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
            if (cls == 0) c += mx - mn > 60;
            else if (cls == 1) c += p[0] > 140 && p[1] < 80 && p[2] < 80;
            else c += p[2] > 140 && p[0] < 80 && p[1] < 90;
        }
    return c;
}

int main(int argc, char **argv)
{
    char path[1024];
    if (argc != 2) {
        fprintf(stderr, "usage: sinew-labcheck DIR\n");
        return 2;
    }
    for (int i = 0; i < NSHOT; i++) {
        int n;
        snprintf(path, sizeof path, "%s/%s.png", argv[1], shots[i].name);
        shots[i].px = stbi_load(path, &shots[i].w, &shots[i].h, &n, 4);
        if (!shots[i].px) {
            fprintf(stderr, "%s: missing or unreadable\n", path);
            return 1;
        }
    }
    for (int i = 0; i < NSHOT; i++) {
        char what[128];
        double f = title_fraction(&shots[i]);
        snprintf(what, sizeof what, "%s shows the panel (title bar pixels %.0f%%, need 60%%)", shots[i].name, 100 * f);
        check(f > 0.6, what);
    }
    {
        long l = count(get("lbs-twist"), 0), d = count(get("dqs-twist"), 0);
        char what[160];
        snprintf(what, sizeof what, "twist 180: LBS shows less tube than DQS (coloured pixels %ld vs %ld, need < 0.9x)", l, d);
        check(l < 0.9 * d, what);
    }
    static const char *pairs[][3] = {
        { "lbs-twist", "dqs-twist", "method LBS -> DQS" },
        { "dqs-bend", "dqs-bulge-bend", "bulge correction" },
        { "joint1", "joint1-alpha8", "alpha 2 -> 8 (weight view)" },
        { "dqs-bend", "bar-bend", "tube -> bar" },
        { "model", "model-auto", "model: file weights -> automatic weights" },
        { "model", "model-clip2", "model: clip 0 -> clip 2 at the same time" },
        { "model-clip2", "loaded", "another model file loaded from the panel" },
        { "major", "joint1", "major joint -> weight of joint 1" },
        { "dqs-bend", "major", "weights off -> major joint" },
        { "dqs-bend", "joint1", "weights off -> weight of joint 1" } };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        double f = diff_fraction(get(pairs[i][0]), get(pairs[i][1]));
        char what[160];
        snprintf(what, sizeof what, "%s changes the picture (%.3f%% of the pixels, need 0.05%%)", pairs[i][2], 100 * f);
        check(f > 0.0005, what);
    }
    {
        long red = count(get("joint1"), 1), blue = count(get("joint1"), 2);
        long red0 = count(get("dqs-bend"), 1), blue0 = count(get("dqs-bend"), 2);
        long sat = count(get("major"), 0), sat0 = count(get("dqs-bend"), 0);
        char what[200];
        snprintf(what, sizeof what, "weight of joint 1: red %ld and blue %ld pixels (plain view: %ld, %ld; need > 200 and 0.3%% of that)",
                 red, blue, red0, blue0);
        check(red > 200 && blue > 200 && red0 * 300 < red + 1000 && blue0 * 300 < blue + 1000, what);
        snprintf(what, sizeof what, "major joint view: strongly coloured pixels %ld (plain view %ld)", sat, sat0);
        check(sat > 200, what);
    }
    for (int i = 0; i < NSHOT; i++) stbi_image_free(shots[i].px);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
