/* Sinew animation clips: per-joint translation / rotation / scale key tracks,
 * sampled into local poses (one sinew_transform per joint) at any time,
 * looping or clamped, one character or many at once. CPU only.
 *
 * Conventions
 *  - Key times are in ticks; a clip has ticks_per_second (25 when given 0) and
 *    a duration in ticks. Sampling times are in seconds.
 *  - Each track (translation, rotation or scale of one joint) has its own
 *    interpolation (sinew_interpolation, the three glTF modes): LINEAR (the
 *    default: lerp, and slerp along the shorter arc for rotations), STEP, or
 *    CUBICSPLINE (cubic Hermite through the keys with per-key in/out tangents).
 *    Before the first key the first key holds, after the last the last key
 *    holds (whatever the mode).
 *  - A joint without a channel, or a channel without keys of one kind (e.g. no
 *    scale keys), keeps that part of the skeleton's rest pose
 *    (sinew_skeleton_rest_pose).
 *  - Optional morph-weight tracks (sinew_weight_track_desc) ride along: the
 *    same interpolation modes, sampled by sinew_clip_sample_weights.
 *  - Sampling allocates nothing; clips are immutable after creation and may be
 *    sampled from many threads at once.
 *  - Blending (sinew_anim_layer: weighted clips, crossfades, additive layers
 *    with masks) and root motion (sinew_root_motion) are described below. */
#ifndef SINEW_ANIM_H
#define SINEW_ANIM_H

#include <sinew/skeleton.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default ticks per second when a clip (or a file) gives 0. */
#define SINEW_DEFAULT_TICKS_PER_SECOND 25.0
/* Largest number of keys (all channels and kinds together) a clip may hold. */
#define SINEW_MAX_CLIP_KEYS (1u << 24)
/* Largest weight_count of a clip; its weight tracks hold at most
 * 4 * SINEW_MAX_CLIP_KEYS values (keys x width) in total. */
#define SINEW_MAX_CLIP_WEIGHTS (1u << 20)

typedef struct sinew_clip sinew_clip;

/* One key of a translation or scale track. */
typedef struct sinew_vec3_key { double time; sinew_vec3 value; } sinew_vec3_key;
/* One key of a rotation track (normalized at creation). */
typedef struct sinew_quat_key { double time; sinew_quat value; } sinew_quat_key;

/* How a track blends between its keys k and k+1 (times t_k <= t < t_k+1).
 * With d = t_k+1 - t_k (ticks) and s = (t - t_k) / d:
 *  LINEAR:      v_k + s (v_k+1 - v_k); rotations: slerp along the shorter arc.
 *  STEP:        v_k (the last key at or before t; at t == t_k+1 it is v_k+1).
 *  CUBICSPLINE: (2s^3 - 3s^2 + 1) v_k + d (s^3 - 2s^2 + s) b_k
 *               + (-2s^3 + 3s^2) v_k+1 + d (s^3 - s^2) a_k+1,
 *               with a_k / b_k key k's in / out tangent (the glTF 2.0 formula).
 *               Rotations: the same on the four components (no sign
 *               alignment), then normalized; a result shorter than 1e-12
 *               (or overflowing) takes v_k (s < 0.5) or v_k+1. */
typedef enum sinew_interpolation {
    SINEW_INTERPOLATION_LINEAR = 0,
    SINEW_INTERPOLATION_STEP = 1,
    SINEW_INTERPOLATION_CUBICSPLINE = 2,
    SINEW_INTERPOLATION_COUNT
} sinew_interpolation;

/* The key tracks of one joint. Key times must be finite and non-decreasing
 * within a track; any track may be empty (that part keeps the rest pose).
 * The fields after scales are optional (zero = LINEAR, no tangents), so a
 * description written before interpolation modes existed keeps its meaning.
 * Tangents (CUBICSPLINE tracks only, ignored otherwise): 2 * count entries,
 * in order in_0, out_0, in_1, out_1, ... (glTF stores in, value, out per key;
 * here the values stay in the key array). They are derivatives per TICK: for
 * glTF, whose tangents are per second, give ticks_per_second = 1 (key times in
 * seconds) and pass them unchanged, or divide them by ticks_per_second.
 * Rotation values are normalized at creation; rotation tangents are used as
 * given (4 components each). */
typedef struct sinew_channel_desc {
    uint32_t joint;
    uint32_t translation_count;
    const sinew_vec3_key *translations;
    uint32_t rotation_count;
    const sinew_quat_key *rotations;
    uint32_t scale_count;
    const sinew_vec3_key *scales;
    sinew_interpolation translation_interpolation; /* 0 = LINEAR */
    sinew_interpolation rotation_interpolation;
    sinew_interpolation scale_interpolation;
    const sinew_vec3 *translation_tangents;        /* CUBICSPLINE: 2 * translation_count */
    const sinew_quat *rotation_tangents;           /* CUBICSPLINE: 2 * rotation_count */
    const sinew_vec3 *scale_tangents;              /* CUBICSPLINE: 2 * scale_count */
} sinew_channel_desc;

/* A morph-weight track (a glTF `weights` channel): key_count keys of `width`
 * weights each, driving the clip's weight slots [first_weight, first_weight +
 * width) (e.g. the morph targets of one mesh, numbered as the caller numbers
 * them all). Interpolated per weight as a translation component is (the
 * formulas of sinew_interpolation, in float64; the first / last key holds
 * outside the keys). Values are any finite reals (negative and > 1 kept).
 * CUBICSPLINE tangents: 2 * key_count * width values, in order in_0[width],
 * out_0[width], in_1[width], ... (per tick, as for joint tracks). */
typedef struct sinew_weight_track_desc {
    uint32_t first_weight;            /* first slot, first_weight + width <= weight_count */
    uint32_t width;                   /* weights per key, >= 1 */
    uint32_t key_count;               /* >= 1 */
    const double *times;              /* key_count times in ticks, finite, non-decreasing */
    const double *values;             /* key_count * width, key-major */
    sinew_interpolation interpolation;/* 0 = LINEAR */
    const double *tangents;           /* CUBICSPLINE only: 2 * key_count * width */
} sinew_weight_track_desc;

/* Describes a clip; zero means default for optional fields. */
typedef struct sinew_clip_desc {
    const char *name;                 /* optional; copied */
    uint32_t joint_count;             /* of the skeleton the clip animates, >= 1 */
    double duration;                  /* in ticks, >= 0; 0 = the last key time */
    double ticks_per_second;          /* > 0; 0 = SINEW_DEFAULT_TICKS_PER_SECOND */
    uint32_t channel_count;           /* at most one channel per joint */
    const sinew_channel_desc *channels;
    const sinew_allocator *allocator; /* optional (sinew/core.h rule); the clip is one block
                                         from it, freed by sinew_clip_destroy */
    /* Optional morph-weight tracks beside the joint channels (zero = none). */
    uint32_t weight_count;            /* weight slots the clip knows (e.g. all morph targets of a model) */
    uint32_t weight_track_count;      /* tracks; each slot animated by at most one */
    const sinew_weight_track_desc *weight_tracks;
} sinew_clip_desc;

/* Validates (joints in range and unique, times finite and ordered, values and
 * tangents finite, rotations non-zero, interpolation modes valid, tangents
 * present for every non-empty CUBICSPLINE track, at most SINEW_MAX_CLIP_KEYS
 * keys; weight tracks: weight_count <= SINEW_MAX_CLIP_WEIGHTS, slots in range and not shared, width and key_count >= 1,
 * arrays present, |value| and |tangent| <= 1e6) and copies the description into a new clip. Errors: INVALID_ARGUMENT
 * (also an allocator with exactly one of alloc/free NULL; {NULL, NULL} is the
 * default), JOINT_INDEX, NON_FINITE, LIMIT_EXCEEDED, OUT_OF_HOST_MEMORY. */
SINEW_API sinew_result sinew_clip_create(const sinew_clip_desc *desc, sinew_clip **out);
/* Frees a clip; NULL is ignored. */
SINEW_API void sinew_clip_destroy(sinew_clip *clip);

/* Name given at creation ("" when none). */
SINEW_API const char *sinew_clip_name(const sinew_clip *clip);
/* Duration in seconds (duration in ticks / ticks per second). */
SINEW_API double sinew_clip_duration(const sinew_clip *clip);
/* Duration in ticks, and ticks per second. */
SINEW_API double sinew_clip_duration_ticks(const sinew_clip *clip);
SINEW_API double sinew_clip_ticks_per_second(const sinew_clip *clip);
/* Joint count the clip was made for, its channel count and total key count
 * (joint channels and weight tracks). */
SINEW_API uint32_t sinew_clip_joint_count(const sinew_clip *clip);
SINEW_API uint32_t sinew_clip_channel_count(const sinew_clip *clip);
SINEW_API uint32_t sinew_clip_key_count(const sinew_clip *clip);
/* true if joint j has a channel in this clip. */
SINEW_API bool sinew_clip_animates(const sinew_clip *clip, uint32_t joint);

/* Weight slots of the clip (sinew_clip_desc.weight_count), its weight track
 * count, and whether slot w has a track. */
SINEW_API uint32_t sinew_clip_weight_count(const sinew_clip *clip);
SINEW_API uint32_t sinew_clip_weight_track_count(const sinew_clip *clip);
SINEW_API bool sinew_clip_animates_weight(const sinew_clip *clip, uint32_t w);

/* How sampling treats times outside [0, duration]. */
typedef enum sinew_wrap {
    SINEW_WRAP_LOOP = 0,   /* time modulo duration (negative times wrap too) */
    SINEW_WRAP_CLAMP = 1   /* time clamped to [0, duration] */
} sinew_wrap;

/* ---- Blending: several clips per character (sinew_anim_layer) ----
 * A character may play up to SINEW_MAX_ANIM_LAYERS layers at once. Per joint j,
 * with w = weight x fade x joint_weights[j] (fade below):
 *  1. Blend layers (not ADDITIVE), in array order: T and S are the w-weighted
 *     sums, the rotation the w-weighted sum of quaternions, each first negated
 *     when its dot with the sum so far is < 0 (hemisphere alignment); layers
 *     with w = 0 are skipped. If the total weight W < SINEW_BLEND_REST_THRESHOLD,
 *     the skeleton's rest pose joins with weight THRESHOLD - W. Then T / W, S / W,
 *     the rotation normalized (weights need not sum to 1; they are normalized).
 *  2. Additive layers, in array order, on top: the layer's delta is its sampled
 *     pose P relative to its reference pose R (the clip at reference_time, or the
 *     skeleton's rest pose with SINEW_LAYER_REFERENCE_REST): dT = P.t - R.t,
 *     dQ = conj(R.q) P.q (w >= 0), dS = P.s / R.s (a zero R.s component gives 1).
 *     Applied as T += w dT, Q = Q nlerp(identity, dQ, w), S *= 1 + w (dS - 1)
 *     (an additive clip is an ordinary clip, e.g. a glTF animation, whose
 *     difference to its reference pose is what gets added).
 * Crossfades: a layer with fade_duration > 0 has fade = clamp(fade_time /
 * fade_duration, 0, 1) (1 - that with SINEW_LAYER_FADE_OUT); a transition from
 * clip A to clip B over D seconds is A fading out and B fading in, both with
 * fade_time = seconds since the transition began. Normalized-time sync
 * (locomotion cycles of different lengths): with SINEW_LAYER_SYNC, time is a
 * phase, sampled at time x the clip's duration. Morph weights blend by the same
 * rules (sinew_clip_blend_weights). */
#define SINEW_MAX_ANIM_LAYERS 16u
#define SINEW_BLEND_REST_THRESHOLD 0.1

typedef enum sinew_layer_flags {
    SINEW_LAYER_ADDITIVE = 1u << 0,       /* adds its delta to the blend (step 2 above) */
    SINEW_LAYER_SYNC = 1u << 1,           /* time is a normalized phase (x the clip's duration) */
    SINEW_LAYER_FADE_OUT = 1u << 2,       /* the fade falls from 1 to 0 instead of rising */
    SINEW_LAYER_REFERENCE_REST = 1u << 3, /* additive: relative to the rest pose, not the clip at reference_time */
    SINEW_LAYER_FLAGS_ALL = 0xFu
} sinew_layer_flags;

typedef struct sinew_root_motion sinew_root_motion;

/* One clip a character plays; zero fields (but weight) mean: loop, no fade, no
 * mask, a blend layer at time seconds, root motion left in the pose. */
typedef struct sinew_anim_layer {
    const sinew_clip *clip;      /* made for the skeleton's joint count; NULL = the rest pose */
    double time;                 /* seconds (SINEW_LAYER_SYNC: phase, 1 = one duration) */
    double weight;               /* finite, >= 0 */
    uint32_t flags;              /* sinew_layer_flags */
    sinew_wrap wrap;
    const float *joint_weights;  /* optional per-joint mask: joint_count values in [0, 1]; NULL = all 1 */
    double fade_time;            /* seconds since the fade began (used when fade_duration > 0) */
    double fade_duration;        /* seconds, finite, >= 0; 0 = no fade */
    double reference_time;       /* additive: the reference pose is the clip at this time (seconds) */
    /* Optional: root motion extracted from this layer's clip (below); the layer
     * then plays in place: its sample's root joint gets W(t)^-1 applied (W the
     * motion at the layer's sample time and wrap) before blending. */
    const sinew_root_motion *root_motion;
} sinew_anim_layer;

/* The effective weight of a layer before its mask: weight x fade (float64). */
SINEW_API double sinew_anim_layer_weight(const sinew_anim_layer *layer);

/* Checks layers for a skeleton of joint_count joints: count <= SINEW_MAX_ANIM_LAYERS,
 * layers present when count > 0, clips made for joint_count, flags and wraps
 * valid, times / weights / fades finite, weight and fade_duration >= 0, mask
 * values in [0, 1]. INVALID_ARGUMENT or NON_FINITE; allocates nothing. */
SINEW_API sinew_result sinew_anim_layers_validate(const sinew_anim_layer *layers, uint32_t count, uint32_t joint_count);

/* Blends the layers' morph weights (float64) by the rules above, a slot being a
 * "joint" without mask: blend layers weighted and normalized (below the
 * threshold the defaults join in), additive layers add w (v - v_ref). Every
 * layer's clip must have weight_count == count (NULL clips give the defaults).
 * scratch: 2 * count doubles. defaults NULL = 0. Errors as sinew_clip_sample_weights. */
SINEW_API sinew_result sinew_clip_blend_weights(const sinew_anim_layer *layers, uint32_t layer_count,
                                                const double *defaults, uint32_t count, double *scratch,
                                                double *weights_out);

/* ---- Root motion ----
 * The motion of a root joint (no parent) on a ground plane, relative to the
 * clip's start, taken into a separate track: the joint's local transform L(t)
 * (model space) is split into L(t) = W(t) I(t), with W(t) x = R(psi(t)) x + d(t),
 * R a rotation about the plane's normal `up`, W(0) = identity, so that
 * the in-place pose I(t) keeps the start's position on the plane (and, with
 * YAW, its heading): psi(t) = yaw(t) - yaw(0) (yaw: the twist of L's rotation
 * about up, unwrapped between samples), d(t) = p(t) - R(psi(t)) p(0) with p the
 * joint's translation projected on the plane (not projected with VERTICAL).
 * Sampled at creation at samples_per_second (and at the clip's end), float64,
 * linear in psi and d between samples. The character's world transform moves
 * by sinew_root_motion_delta each frame: with LOOP, across loops (each whole
 * cycle composes W(duration) once more). */
typedef enum sinew_root_motion_flags {
    SINEW_ROOT_MOTION_TRANSLATION = 1u << 0, /* translation along the ground plane */
    SINEW_ROOT_MOTION_YAW = 1u << 1,         /* rotation about the plane's normal */
    SINEW_ROOT_MOTION_VERTICAL = 1u << 2,    /* with TRANSLATION: along the normal too */
    SINEW_ROOT_MOTION_FLAGS_ALL = 0x7u
} sinew_root_motion_flags;

typedef struct sinew_root_motion_desc {
    const sinew_clip *clip;            /* the clip whose root motion is extracted */
    const sinew_skeleton *skeleton;    /* the clip's skeleton (rest pose of joints without keys) */
    uint32_t joint;                    /* a root joint (parent -1), usually 0 */
    uint32_t flags;                    /* sinew_root_motion_flags; 0 = TRANSLATION | YAW */
    sinew_vec3 up;                     /* the plane's normal (normalized); (0, 0, 0) = +Y */
    double samples_per_second;         /* > 0, at most 1000; 0 = 60 */
    const sinew_allocator *allocator;  /* optional (sinew/core.h rule) */
} sinew_root_motion_desc;

/* Extracts the root motion of desc->clip. Errors: INVALID_ARGUMENT (NULL
 * pointers, a joint out of range or with a parent, a skeleton of another joint
 * count, unknown flags, an allocator with one callback), NON_FINITE (up or
 * samples_per_second not finite, or up of length 0), LIMIT_EXCEEDED (more than
 * 2^24 samples), OUT_OF_HOST_MEMORY. */
SINEW_API sinew_result sinew_root_motion_create(const sinew_root_motion_desc *desc, sinew_root_motion **out);
/* Frees it; NULL is ignored. */
SINEW_API void sinew_root_motion_destroy(sinew_root_motion *rm);
/* The joint it moves (desc->joint). */
SINEW_API uint32_t sinew_root_motion_joint(const sinew_root_motion *rm);
/* The clip it was extracted from (desc->clip); NULL for NULL. */
SINEW_API const sinew_clip *sinew_root_motion_clip(const sinew_root_motion *rm);
/* W(t) at time_s seconds (wrap as sampling does) as a transform (scale 1).
 * NON_FINITE for a NaN/inf time. */
SINEW_API sinew_result sinew_root_motion_sample(const sinew_root_motion *rm, double time_s, sinew_wrap wrap,
                                                sinew_transform *out);
/* The motion from t0 to t1 seconds in the frame at t0: A(t0)^-1 A(t1), with
 * A(t) = W(duration)^c W(t - c duration), c = floor(t / duration) (LOOP), or
 * W(clamped t) (CLAMP). The character moves by world_next = world x
 * sinew_mat4_from_transform(delta). NON_FINITE for NaN/inf times
 * or a loop count beyond 2^40. */
SINEW_API sinew_result sinew_root_motion_delta(const sinew_root_motion *rm, double t0, double t1, sinew_wrap wrap,
                                               sinew_transform *delta);

/* Samples the clip at time_s seconds into joint_count local poses. The
 * skeleton supplies the rest pose of joints (or parts) without keys and must
 * have the clip's joint count (else SINEW_ERROR_INVALID_ARGUMENT). A NULL clip
 * writes the rest pose. SINEW_ERROR_NON_FINITE for a NaN/inf time. */
SINEW_API sinew_result sinew_clip_sample(const sinew_clip *clip, const sinew_skeleton *skel,
                               double time_s, sinew_wrap wrap, sinew_transform *local_out);

/* Samples the clip's morph weights at time_s seconds (float64, the joint
 * sampler's wrap and key rules) into weights_out[0 .. count-1]; count must be
 * the clip's weight_count (else INVALID_ARGUMENT). Slots without a track get
 * defaults[w] (defaults NULL: 0). A NULL clip writes the defaults (any count).
 * SINEW_ERROR_NON_FINITE for a NaN/inf time. Allocates nothing. */
SINEW_API sinew_result sinew_clip_sample_weights(const sinew_clip *clip, double time_s, sinew_wrap wrap,
                                                 const double *defaults, uint32_t count, double *weights_out);

/* Samples many characters sharing one skeleton: character i plays clips[i]
 * (NULL = rest pose) at times[i] seconds and writes joint_count transforms at
 * poses + i * pose_stride. */
typedef struct sinew_sample_job {
    const sinew_skeleton *skeleton;
    uint32_t count;                  /* characters */
    const sinew_clip *const *clips;  /* count entries */
    const double *times;             /* count entries, seconds */
    const uint8_t *wraps;            /* optional, count sinew_wrap values; NULL = wrap for all */
    sinew_wrap wrap;
    sinew_transform *poses;
    uint32_t pose_stride;            /* in transforms, >= joint_count; 0 = joint_count */
} sinew_sample_job;

/* Checks a job without running it: pointers present, clips made for the
 * skeleton's joint count, times finite, wraps valid, stride large enough. */
SINEW_API sinew_result sinew_sample_job_validate(const sinew_sample_job *job);
/* Validates, then samples characters [first, first + count) of the job (for
 * splitting one job over threads); writes nothing on error. No allocation. */
SINEW_API sinew_result sinew_sample_job_run_range(const sinew_sample_job *job, uint32_t first, uint32_t count);
/* Validates, then samples every character of the job. */
SINEW_API sinew_result sinew_sample_job_run(const sinew_sample_job *job);

/* Splits an affine matrix into translation, rotation and scale (M = T R S).
 * A mirror (det < 0) becomes a negative x scale; shear cannot be represented,
 * so the rotation is the nearest one and *error (if not NULL) receives the
 * largest |element| difference between M and the rebuilt T R S.
 * SINEW_ERROR_NON_FINITE for NaN/inf, SINEW_ERROR_SINGULAR for a zero axis. */
SINEW_API sinew_result sinew_transform_from_mat4(const sinew_mat4 *m, sinew_transform *out, double *error);

#ifdef __cplusplus
}
#endif
#endif
