/* sinew-bench --cpu-only --blend K --layers L (bench_cpu.h): every character
 * of the CPU benchmark plays K blended clips and L additive layers instead of
 * one clip. Per model, K - 1 + L more clips like the base clip (same skeleton,
 * keys from its rest pose, durations 1.6 .. 2.6 s). Per character, at its own
 * time t: layer 0 the base clip at t, fading out; layers 1 .. K-1 the other
 * clips at the same normalized phase (SINEW_LAYER_SYNC, as locomotion cycles),
 * the last of them fading in (a crossfade of 0.5 s, always in progress: fade
 * 0.05 .. 0.45 s in, so neither side has weight 0); then L additive layers
 * (weight 0.5, reference pose the clip's first frame) with a mask: weight 1 on
 * the upper two thirds of the joints (index >= n / 3), 0 below. */
#include "bench_cpu.h"

#include <sinew/sinew.h>
#include <sinew/palette_job.h>
#include <sinew/linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t g_blend = 1, g_layers = 0;

typedef struct blend_set {
    const sinew_clip *base;
    uint32_t joints;
    sinew_clip *clips[SINEW_MAX_ANIM_LAYERS];
    uint32_t nclips;
    float mask[256];
} blend_set;

static blend_set g_sets[4];
static uint32_t g_nsets;
static sinew_anim_layer *g_layer_store;
static uint32_t g_layer_cap;

int sinew_bench_cpu_set_blend(uint32_t blend, uint32_t layers)
{
    if (blend < 1 || blend > SINEW_MAX_ANIM_LAYERS || blend + layers > SINEW_MAX_ANIM_LAYERS) return 1;
    g_blend = blend;
    g_layers = layers;
    return 0;
}

int bench_blend_active(void) { return g_blend > 1 || g_layers > 0; }
uint32_t bench_blend_k(void) { return g_blend; }
uint32_t bench_blend_l(void) { return g_layers; }

static uint64_t g_rng = 0xB1E4D0C1ull;
static double rnd01(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

/* A clip like bench_cpu.c's: T R S keys on every joint at 30 keys/s, rotations
 * a random walk from the rest rotation, scale keys 1 (or the scaled model's
 * pattern on every 4th joint). */
static sinew_clip *variant_clip(const sinew_skeleton *skel, double seconds, int scaled)
{
    const uint32_t n = sinew_skeleton_joint_count(skel), keys = (uint32_t)(seconds * 30) + 1;
    const sinew_transform *rest = sinew_skeleton_rest_pose(skel);
    sinew_channel_desc *ch = calloc(n, sizeof *ch);
    sinew_vec3_key *tk = malloc((size_t)n * keys * sizeof *tk), *sk = malloc((size_t)n * keys * sizeof *sk);
    sinew_quat_key *rk = malloc((size_t)n * keys * sizeof *rk);
    sinew_clip *clip = NULL;
    if (ch && tk && sk && rk) {
        for (uint32_t j = 0; j < n; j++) {
            sinew_quat q = rest[j].rotation;
            for (uint32_t k = 0; k < keys; k++) {
                size_t i = (size_t)j * keys + k;
                tk[i].time = rk[i].time = sk[i].time = k;
                tk[i].value = sinew_v3_add(rest[j].translation, sinew_v3(0.01 * sin(0.25 * k + j), 0, 0));
                sinew_vec3 axis = sinew_v3(rnd01() - 0.5, rnd01() - 0.5, rnd01() - 0.5);
                if (sinew_v3_length(axis) < 1e-3) axis = sinew_v3(0, 0, 1);
                q = sinew_quat_normalize(sinew_quat_mul(q, sinew_quat_from_axis_angle(axis, (rnd01() * 2 - 1) * 0.08)));
                rk[i].value = q;
                sk[i].value = sinew_v3(1, 1, 1);
                if (scaled && j % 4 == 3) sk[i].value = sinew_v3(1 + 0.15 * sin(0.3 * k + j), 1 + 0.1 * cos(0.2 * k), 1);
            }
            ch[j].joint = j;
            ch[j].translation_count = ch[j].rotation_count = ch[j].scale_count = keys;
            ch[j].translations = tk + (size_t)j * keys;
            ch[j].rotations = rk + (size_t)j * keys;
            ch[j].scales = sk + (size_t)j * keys;
        }
        sinew_clip_desc cd = { 0 };
        cd.joint_count = n;
        cd.ticks_per_second = 30;
        cd.duration = keys - 1;
        cd.channel_count = n;
        cd.channels = ch;
        if (sinew_clip_create(&cd, &clip) != SINEW_OK) clip = NULL;
    }
    free(ch); free(tk); free(sk); free(rk);
    return clip;
}

int bench_blend_setup(const sinew_skeleton *skel, const sinew_clip *base, int scaled, uint32_t max_chars)
{
    if (!bench_blend_active()) return 1;
    if (g_nsets >= sizeof g_sets / sizeof g_sets[0]) return 0;
    blend_set *s = &g_sets[g_nsets++];
    memset(s, 0, sizeof *s);
    s->base = base;
    s->joints = sinew_skeleton_joint_count(skel);
    if (s->joints > 256) return 0;
    for (uint32_t j = 0; j < s->joints; j++) s->mask[j] = j >= s->joints / 3 ? 1.f : 0.f;
    uint32_t need = g_blend - 1 + g_layers;
    for (uint32_t k = 0; k < need; k++) {
        s->clips[k] = variant_clip(skel, 1.6 + 0.2 * (k % 6), scaled);
        if (!s->clips[k]) return 0;
        s->nclips++;
    }
    if (g_layer_cap < max_chars) {
        free(g_layer_store);
        g_layer_store = calloc((size_t)max_chars * SINEW_MAX_ANIM_LAYERS, sizeof *g_layer_store);
        g_layer_cap = g_layer_store ? max_chars : 0;
    }
    return g_layer_store != NULL;
}

void bench_blend_apply(sinew_palette_character *ch, uint32_t count)
{
    if (!bench_blend_active() || count > g_layer_cap) return;
    for (uint32_t i = 0; i < count; i++) {
        const blend_set *s = NULL;
        for (uint32_t k = 0; k < g_nsets; k++)
            if (g_sets[k].base == ch[i].clip) s = &g_sets[k];
        if (!s) continue;
        sinew_anim_layer *l = g_layer_store + (size_t)i * SINEW_MAX_ANIM_LAYERS;
        const double t = ch[i].time, phase = t / sinew_clip_duration(s->base);
        const double fade = 0.05 + 0.4 * fmod(t * 0.37 + i * 0.618, 1.0);
        uint32_t n = 0;
        memset(l, 0, (size_t)(g_blend + g_layers) * sizeof *l);
        l[n].clip = s->base; l[n].time = t; l[n].weight = 1;
        if (g_blend > 1) { l[n].flags = SINEW_LAYER_FADE_OUT; l[n].fade_time = fade; l[n].fade_duration = 0.5; }
        n++;
        for (uint32_t k = 1; k < g_blend; k++, n++) {
            l[n].clip = s->clips[k - 1];
            l[n].time = phase;
            l[n].flags = SINEW_LAYER_SYNC;
            l[n].weight = 0.5 + 0.1 * k;
            if (k == g_blend - 1) { l[n].weight = 1; l[n].fade_time = fade; l[n].fade_duration = 0.5; }
        }
        for (uint32_t k = 0; k < g_layers; k++, n++) {
            l[n].clip = s->clips[g_blend - 1 + k];
            l[n].time = t * 0.9;
            l[n].weight = 0.5;
            l[n].flags = SINEW_LAYER_ADDITIVE;
            l[n].joint_weights = s->mask;
        }
        ch[i].layers = l;
        ch[i].layer_count = n;
    }
}

void bench_blend_free(void)
{
    for (uint32_t k = 0; k < g_nsets; k++)
        for (uint32_t c = 0; c < g_sets[k].nclips; c++) sinew_clip_destroy(g_sets[k].clips[c]);
    g_nsets = 0;
    free(g_layer_store);
    g_layer_store = NULL;
    g_layer_cap = 0;
}
