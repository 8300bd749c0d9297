/* sinew-labcheck DIR: checks the screenshots of the scripted panel run
 * (tests/scripts/viewer_lab.txt) change as the settings say:
 *  - every shot shows the panel (its title bar, top left);
 *  - LBS twisted 180 degrees shows less tube than DQS (the candy wrapper);
 *  - bulge correction, CoR instead of DQS, another alpha, the bar, automatic weights
 *    each change the picture outside the panel;
 *  - the weight views colour the tube: red and blue for the weight of joint 1, many
 *    saturated colours for the major joint; the plain view has neither;
 *  - a model file loaded from the panel replaces the picture (its major joints coloured).
 * sinew-labcheck --psd DIR: the corrected tube's run (tests/scripts/viewer_psd.txt), see
 * check_psd below. Prints every figure; exit status 0 when all checks pass. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

typedef struct shot { const char *name; unsigned char *px; int w, h; } shot;

static shot shots[] = { { "lbs-twist" }, { "dqs-twist" }, { "dqs-bend" }, { "dqs-bulge-bend" }, { "cor-bend" }, { "major" },
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

/* ---- the corrected tube (sinew-labcheck --psd DIR) ---- */

/* A screenshot and the notes the viewer wrote beside it (NAME.txt). */
typedef struct psd_shot {
    shot s;
    double mid[2], end0[2], end1[2], quality[3], weights[7];
    int driver, morphed, has_marks, has_quality, has_weights;
} psd_shot;

static int load_psd(const char *dir, const char *name, psd_shot *p)
{
    char path[1024], line[512];
    int n;
    memset(p, 0, sizeof *p);
    p->s.name = name;
    p->driver = p->morphed = -1;
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    p->s.px = stbi_load(path, &p->s.w, &p->s.h, &n, 4);
    if (!p->s.px) {
        fprintf(stderr, "%s: missing or unreadable\n", path);
        return 0;
    }
    snprintf(path, sizeof path, "%s/%s.txt", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: missing\n", path);
        return 0;
    }
    int marks = 0;
    while (fgets(line, sizeof line, f)) {
        double *w = p->weights;
        if (sscanf(line, "mid %lf %lf", &p->mid[0], &p->mid[1]) == 2) marks++;
        else if (sscanf(line, "end0 %lf %lf", &p->end0[0], &p->end0[1]) == 2) marks++;
        else if (sscanf(line, "end1 %lf %lf", &p->end1[0], &p->end1[1]) == 2) marks++;
        else if (sscanf(line, "quality %lf %lf %lf", &p->quality[0], &p->quality[1], &p->quality[2]) == 3) p->has_quality = 1;
        else if (sscanf(line, "driver %d", &p->driver) == 1) continue;
        else if (sscanf(line, "morphed %d", &p->morphed) == 1) continue;
        else if (sscanf(line, "weights %lf %lf %lf %lf %lf %lf %lf", &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6]) == 7)
            p->has_weights = 1;
    }
    fclose(f);
    p->has_marks = marks == 3;
    return 1;
}

/* Outside both panel windows: the lab panel (top left) and the morph window (top right). */
static int outside_windows(const shot *s, int x, int y) { return outside_panel(x, y) && !(x > s->w - 330 && y < 290); }

/* Pixels outside the windows differing by more than 24 in some channel: fraction, and their centroid. */
static double diff_where(const shot *a, const shot *b, double c[2])
{
    long n = 0, d = 0;
    double sx = 0, sy = 0;
    c[0] = c[1] = -1e9;
    if (a->w != b->w || a->h != b->h) return 1.0;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            if (!outside_windows(a, x, y)) continue;
            const unsigned char *p = a->px + 4 * ((size_t)y * a->w + x), *q = b->px + 4 * ((size_t)y * b->w + x);
            n++;
            if (abs(p[0] - q[0]) > 24 || abs(p[1] - q[1]) > 24 || abs(p[2] - q[2]) > 24) {
                d++;
                sx += x;
                sy += y;
            }
        }
    if (d) {
        c[0] = sx / d;
        c[1] = sy / d;
    }
    return n ? (double)d / n : 0;
}

static double dist2d(const double a[2], const double b[2]) { return hypot(a[0] - b[0], a[1] - b[1]); }

/* Title bar of the morph window (top right), as title_fraction does for the lab panel. */
static double morph_title_fraction(const shot *s)
{
    long n = 0, hit = 0;
    for (int y = 12; y < 26; y++)
        for (int x = s->w - 250; x < s->w - 30; x++) {
            const unsigned char *p = s->px + 4 * ((size_t)y * s->w + x);
            n++;
            hit += abs(p[0] - 41) < 25 && abs(p[1] - 74) < 25 && abs(p[2] - 122) < 30;
        }
    return n ? (double)hit / n : 0;
}

/* The corrected tube, one LBS tube posed by the sliders:
 *  - the morph window shows in the corrected-tube shots only;
 *  - all weights zero (driver off) is the plain tube: same picture, no morph work;
 *  - at bend 75 (between examples) the driver changes the picture, around the
 *    middle ring (the bend region) and not at the ends, and brings volume and
 *    radius closer to the rest's than plain LBS;
 *  - at bend 100 (an example) the driver gives weight 1 to target "bend 100" and
 *    0 to the others, and that weight set by hand gives the same picture;
 *  - weights +1 and -1 (any real value) each change the picture. */
static int check_psd(const char *dir)
{
    enum { PLAIN, ZERO, DRIVER, W1, DRV100, NEG, ZERO100, NPSD };
    static const char *names[NPSD] = { "psd-plain", "psd-zero", "psd-driver", "psd-w1-bend100", "psd-driver-bend100",
                                       "psd-neg-bend100", "psd-zero-bend100" };
    psd_shot p[NPSD];
    for (int i = 0; i < NPSD; i++)
        if (!load_psd(dir, names[i], &p[i])) return 1;
    char what[256];
    double c[2], f;
    for (int i = 0; i < NPSD; i++) {
        double mt = morph_title_fraction(&p[i].s);
        snprintf(what, sizeof what, "%s: morph window %s (title bar pixels %.0f%%)", names[i], i == PLAIN ? "absent" : "shown",
                 100 * mt);
        check(i == PLAIN ? mt < 0.2 : mt > 0.6, what);
        snprintf(what, sizeof what, "%s: notes with the tube's rings on screen and quality figures", names[i]);
        check(p[i].has_marks && p[i].has_quality && (i == PLAIN || p[i].has_weights), what);
    }
    f = diff_where(&p[PLAIN].s, &p[ZERO].s, c);
    snprintf(what, sizeof what, "all weights 0 = no morph: same picture as the plain tube (%.4f%% differ, need < 0.01%%), "
             "no morphed item (%d)", 100 * f, p[ZERO].morphed);
    check(f < 0.0001 && p[ZERO].morphed == 0 && p[ZERO100].morphed == 0, what);
    f = diff_where(&p[ZERO].s, &p[DRIVER].s, c);
    double dm = dist2d(c, p[DRIVER].mid), d0 = dist2d(c, p[DRIVER].end0), d1 = dist2d(c, p[DRIVER].end1);
    snprintf(what, sizeof what, "bend 75: driver on vs off differ (%.3f%%, need 0.05%%) around the middle ring: "
             "changed pixels' centre %.0f px from it, %.0f and %.0f px from the ends (need nearer the middle, morphed %d)",
             100 * f, dm, d0, d1, p[DRIVER].morphed);
    check(f > 0.0005 && dm < d0 && dm < d1 && dm < 0.6 * dist2d(p[DRIVER].mid, p[DRIVER].end0) && p[DRIVER].morphed == 1, what);
    snprintf(what, sizeof what, "bend 75: driver brings volume %.3f -> %.3f and middle radius %.3f -> %.3f closer to 1",
             p[ZERO].quality[1], p[DRIVER].quality[1], p[ZERO].quality[0], p[DRIVER].quality[0]);
    check(fabs(1 - p[DRIVER].quality[1]) < 0.5 * fabs(1 - p[ZERO].quality[1]) &&
          fabs(1 - p[DRIVER].quality[0]) < 0.5 * fabs(1 - p[ZERO].quality[0]), what);
    double werr = 0;
    for (int k = 0; k < 7; k++) werr = fmax(werr, fabs(p[DRV100].weights[k] - (k == 2 ? 1.0 : 0.0)));
    snprintf(what, sizeof what, "bend 100 (an example): driver weights = target 'bend 100' alone (max error %.2g, need 1e-4)", werr);
    check(p[DRV100].has_weights && p[DRV100].driver == 1 && werr < 1e-4, what);
    f = diff_where(&p[W1].s, &p[DRV100].s, c);
    snprintf(what, sizeof what, "bend 100: that weight by hand = the driver's picture (%.4f%% differ, need < 0.02%%)", 100 * f);
    check(f < 0.0002 && p[W1].driver == 0, what);
    f = diff_where(&p[ZERO100].s, &p[W1].s, c);
    double fn = diff_where(&p[ZERO100].s, &p[NEG].s, c), fpn = diff_where(&p[W1].s, &p[NEG].s, c);
    snprintf(what, sizeof what, "bend 100: weight +1 (%.3f%%), -1 (%.3f%%) each change the picture, and differ (%.3f%%)",
             100 * f, 100 * fn, 100 * fpn);
    check(f > 0.0005 && fn > 0.0005 && fpn > 0.0005 && p[NEG].weights[2] == -1.0, what);
    snprintf(what, sizeof what, "bend 100: weight -1 thins the middle ring (radius %.3f < plain %.3f < +1 %.3f)",
             p[NEG].quality[0], p[ZERO100].quality[0], p[W1].quality[0]);
    check(p[NEG].quality[0] < p[ZERO100].quality[0] && p[ZERO100].quality[0] < p[W1].quality[0], what);
    for (int i = 0; i < NPSD; i++) stbi_image_free(p[i].s.px);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    char path[1024];
    if (argc == 3 && !strcmp(argv[1], "--psd")) return check_psd(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: sinew-labcheck DIR | --psd DIR\n");
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
        { "dqs-bend", "cor-bend", "method DQS -> CoR (less bulge at the bend)" },
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
