/* Private interface between the clip (anim.c), its compressed form
 * (clip_compress.c: the compressor; clip_decompress.c: the samplers) and the
 * float32 fast path. */
#ifndef SINEW_CLIP_INTERNAL_H
#define SINEW_CLIP_INTERNAL_H

#include "sinew/anim.h"
#include "fast_internal.h"

/* ---- the compressed form (see docs/crowds.md, "Compressed clips") ---- */

enum { SNW_CT_NONE = 0, SNW_CT_CONST = 1, SNW_CT_Q16 = 2, SNW_CT_F32 = 3 };
/* Per joint in jmask, 2 bits per track (translation, rotation, scale from bit 0): */
enum { SNW_CT_KEYED = 2 }; /* NONE (rest pose), CONST (next value of consts), KEYED (next header of tracks) */

/* One track (translation, rotation or scale of one joint). CONST: the value in
 * lo. Q16: per key `comps` uint16 at data + 2 * k * comps bytes, value =
 * lo + ext * q / 65535 (rotations: x, y, z of the key taken with w >= 0; w =
 * sqrt(1 - x^2 - y^2 - z^2)). F32: per key `comps` floats (rotations 4, unit).
 * Only keyed tracks have a header in the block; constant ones a value in consts.
 * Key k's time is times[index[idx + k]]. */
typedef struct snw_ctrack { /* 16-byte aligned (lo, ext loaded as vectors) */
    uint8_t format;   /* SNW_CT_* */
    uint8_t step;     /* 1: STEP interpolation, 0: LINEAR (slerp for rotations) */
    uint8_t rot;      /* 1 for the rotation track */
    uint8_t comps;    /* values per key: 3, or 4 for an F32 rotation */
    uint32_t count;   /* keys (Q16 / F32) */
    uint32_t idx;     /* first entry of the key's time indices */
    uint32_t data;    /* byte offset of key 0 in data */
    float lo[4], ext[4];
} snw_ctrack;

typedef struct snw_cclip {
    uint32_t joint_count, time_count, wide; /* wide: time indices are uint32 (else uint16) */
    uint32_t pad;
    size_t bytes;                  /* the whole block, this header included */
    const double *times;           /* time_count key times in ticks, increasing */
    const uint8_t *jmask;          /* joint_count: the kinds of its three tracks (2 bits each) */
    const float *consts;           /* 4 floats per constant track, in joint and track order */
    const snw_ctrack *tracks;      /* the keyed (Q16 / F32) tracks, in joint and track order */
    const void *index;             /* uint16 or uint32 time indices */
    const unsigned char *data;
} snw_cclip;

/* Samples a compressed clip at t ticks (already wrapped) into out, which
 * holds the rest pose on entry (tracks SNW_CT_NONE keep it). float64. */
void snw_cclip_sample_f64(const snw_cclip *cc, double t, sinew_transform *out);
/* The same in float32 for the fast path; joints without a track take rest. */
void snw_cclip_sample_f32(const snw_cclip *cc, const snw_fast_joint *joints, uint32_t n, double t, snw_ftrs *out);

/* ---- helpers of anim.c for the compressor ---- */

/* The float32 slerp of the fast path (shorter arc, not normalized: FK normalizes). */
void snw_slerp_f32(const float *p, const float *q, float a, float *out);

/* The keys of one track of a (plain) clip: kind 0 translation, 1 rotation, 2
 * scale. times[k * time_stride] (stride in doubles); values: vec3 or quat
 * keys (a sinew_vec3_key / sinew_quat_key array). count 0: no track. */
typedef struct snw_track_view {
    uint32_t count, mode, time_stride;
    const double *times;
    const sinew_vec3_key *vkeys;
    const sinew_quat_key *qkeys;
} snw_track_view;
void snw_clip_track_view(const sinew_clip *c, uint32_t joint, int kind, snw_track_view *v);
/* Samples one track at t ticks in float64 (the reference sampler): 3 or 4 values. */
void snw_clip_track_sample(const sinew_clip *c, uint32_t joint, int kind, double t, double out[4]);
/* Samples the clip at t ticks (no wrap) in float64 into out (rest pose first). */
void snw_clip_sample_ticks(const sinew_clip *c, const sinew_transform *rest, uint32_t n, double t, sinew_transform *out);
/* The compressed form of a clip, or NULL. */
const snw_cclip *snw_clip_compressed(const sinew_clip *c);
/* A new clip with c's name, joint count, channels (without keys), duration,
 * ticks per second, weight tracks and allocator, and cc (allocated with the
 * clip's allocator, see snw_clip_allocator) attached: the clip owns it and
 * samples through it; key_count becomes `keys` + the weight keys. On failure
 * cc is not taken. */
sinew_result snw_clip_make_compressed(const sinew_clip *c, snw_cclip *cc, uint32_t keys, sinew_clip **out);
/* The allocator the clip was made with. */
const sinew_allocator *snw_clip_allocator(const sinew_clip *c);

#endif
