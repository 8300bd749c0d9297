/* Root motion (anim.h, "Root motion"): extraction of a root joint's motion on
 * a ground plane into a sampled float64 track, its sampling, deltas across
 * loops, and the in-place correction of a sampled pose. Planar motions are
 * (psi, d) pairs: x -> R(psi) x + d with R a rotation about up. */
#include <sinew/linalg.h>
#include "alloc_internal.h"
#include "root_motion_internal.h"

#include <math.h>
#include <string.h>

struct sinew_root_motion {
    sinew_allocator allocator;
    const sinew_clip *clip;
    uint32_t joint, flags, count; /* count samples: k / rate for k < count - 1, then the clip's end */
    sinew_vec3 up;
    double rate, duration;        /* samples per second; seconds */
    double *psi;                  /* count */
    sinew_vec3 *d;                /* count */
};

typedef planar_motion planar;
#define M_PI_VALUE 3.14159265358979323846

static sinew_vec3 rot_up(sinew_vec3 up, double psi, sinew_vec3 v)
{
    /* Rodrigues about the unit axis up */
    double c = cos(psi), s = sin(psi), k = sinew_v3_dot(up, v) * (1 - c);
    sinew_vec3 x = sinew_v3_cross(up, v);
    return sinew_v3(v.x * c + x.x * s + up.x * k, v.y * c + x.y * s + up.y * k, v.z * c + x.z * s + up.z * k);
}

/* a then b: x -> a(b(x)) */
static planar compose(sinew_vec3 up, planar a, planar b)
{
    planar r = { a.psi + b.psi, sinew_v3_add(a.d, rot_up(up, a.psi, b.d)) };
    return r;
}

static planar inverse(sinew_vec3 up, planar a)
{
    planar r = { -a.psi, sinew_v3_scale(rot_up(up, -a.psi, a.d), -1) };
    return r;
}

static planar power(sinew_vec3 up, planar e, int64_t c)
{
    planar r = { 0, { 0, 0, 0 } };
    if (c < 0) { e = inverse(up, e); c = -c; }
    while (c) {
        if (c & 1) r = compose(up, r, e);
        e = compose(up, e, e);
        c >>= 1;
    }
    return r;
}

/* twist angle of q about up */
static double twist(sinew_quat q, sinew_vec3 up)
{
    return 2 * atan2(q.x * up.x + q.y * up.y + q.z * up.z, q.w);
}

static sinew_vec3 project(const sinew_root_motion *rm, sinew_vec3 p)
{
    if (rm->flags & SINEW_ROOT_MOTION_VERTICAL) return p;
    return sinew_v3_sub(p, sinew_v3_scale(rm->up, sinew_v3_dot(p, rm->up)));
}

sinew_result sinew_root_motion_create(const sinew_root_motion_desc *desc, sinew_root_motion **out)
{
    if (!out) return SINEW_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!desc || !desc->clip || !desc->skeleton) return SINEW_ERROR_INVALID_ARGUMENT;
    const uint32_t n = sinew_skeleton_joint_count(desc->skeleton);
    if (sinew_clip_joint_count(desc->clip) != n || desc->joint >= n || sinew_skeleton_parent(desc->skeleton, desc->joint) >= 0)
        return SINEW_ERROR_INVALID_ARGUMENT;
    if (desc->flags & ~(uint32_t)SINEW_ROOT_MOTION_FLAGS_ALL) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_vec3 up = desc->up;
    if (!isfinite(up.x) || !isfinite(up.y) || !isfinite(up.z) || !isfinite(desc->samples_per_second))
        return SINEW_ERROR_NON_FINITE;
    if (up.x == 0 && up.y == 0 && up.z == 0) up = sinew_v3(0, 1, 0);
    double len = sinew_v3_length(up);
    if (!(len > 1e-12) || !isfinite(len)) return SINEW_ERROR_NON_FINITE;
    up = sinew_v3_scale(up, 1 / len);
    double rate = desc->samples_per_second == 0 ? 60.0 : desc->samples_per_second;
    if (!(rate > 0) || rate > 1000) return SINEW_ERROR_INVALID_ARGUMENT;
    sinew_allocator al;
    if (snw_allocator_resolve(desc->allocator, &al) != SINEW_OK) return SINEW_ERROR_INVALID_ARGUMENT;
    const double dur = sinew_clip_duration(desc->clip);
    const double steps = ceil(dur * rate - 1e-9);
    if (!(steps < (double)(1u << 24))) return SINEW_ERROR_LIMIT_EXCEEDED;
    const uint32_t count = (uint32_t)(steps > 0 ? steps : 0) + 1;
    sinew_root_motion *rm = (sinew_root_motion *)snw_calloc(&al, 1, sizeof *rm);
    sinew_transform *pose = (sinew_transform *)snw_calloc(&al, n, sizeof *pose);
    if (rm) {
        rm->psi = (double *)snw_calloc(&al, count, sizeof(double));
        rm->d = (sinew_vec3 *)snw_calloc(&al, count, sizeof(sinew_vec3));
    }
    if (!rm || !pose || !rm->psi || !rm->d) {
        if (rm) { snw_free(&al, rm->psi); snw_free(&al, rm->d); }
        snw_free(&al, rm);
        snw_free(&al, pose);
        return SINEW_ERROR_OUT_OF_HOST_MEMORY;
    }
    rm->allocator = al;
    rm->clip = desc->clip;
    rm->joint = desc->joint;
    rm->flags = desc->flags ? desc->flags : (SINEW_ROOT_MOTION_TRANSLATION | SINEW_ROOT_MOTION_YAW);
    rm->up = up;
    rm->rate = rate;
    rm->duration = dur;
    rm->count = count;
    double yaw0 = 0, prev = 0;
    sinew_vec3 p0 = { 0, 0, 0 };
    for (uint32_t k = 0; k < count; k++) {
        double t = k + 1 == count ? dur : k / rate;
        sinew_result r = sinew_clip_sample(desc->clip, desc->skeleton, t, SINEW_WRAP_CLAMP, pose);
        if (r != SINEW_OK) {
            sinew_root_motion_destroy(rm);
            snw_free(&al, pose);
            return r;
        }
        const sinew_transform *l = &pose[desc->joint];
        double y = twist(l->rotation, up);
        if (k == 0) { yaw0 = prev = y; p0 = project(rm, l->translation); }
        while (y - prev > M_PI_VALUE) y -= 2 * M_PI_VALUE; /* unwrap */
        while (y - prev < -M_PI_VALUE) y += 2 * M_PI_VALUE;
        prev = y;
        double psi = (rm->flags & SINEW_ROOT_MOTION_YAW) ? y - yaw0 : 0;
        rm->psi[k] = psi;
        rm->d[k] = (rm->flags & SINEW_ROOT_MOTION_TRANSLATION)
                       ? sinew_v3_sub(project(rm, l->translation), rot_up(up, psi, p0))
                       : sinew_v3_sub(p0, rot_up(up, psi, p0)); /* rotation about the start position */
    }
    snw_free(&al, pose);
    *out = rm;
    return SINEW_OK;
}

void sinew_root_motion_destroy(sinew_root_motion *rm)
{
    if (!rm) return;
    sinew_allocator al = rm->allocator;
    snw_free(&al, rm->psi);
    snw_free(&al, rm->d);
    snw_free(&al, rm);
}

uint32_t sinew_root_motion_joint(const sinew_root_motion *rm) { return rm ? rm->joint : 0; }
const sinew_clip *sinew_root_motion_clip(const sinew_root_motion *rm) { return rm ? rm->clip : NULL; }

/* W at t in [0, duration] */
static planar at(const sinew_root_motion *rm, double t)
{
    planar r = { 0, { 0, 0, 0 } };
    if (rm->count < 2 || !(t > 0)) return r;
    if (t >= rm->duration) {
        r.psi = rm->psi[rm->count - 1];
        r.d = rm->d[rm->count - 1];
        return r;
    }
    double x = t * rm->rate;
    uint32_t k = (uint32_t)x;
    if (k >= rm->count - 1) k = rm->count - 2;
    double t0 = k / rm->rate, t1 = k + 2 == rm->count ? rm->duration : (k + 1) / rm->rate;
    double a = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    if (a < 0) a = 0;
    if (a > 1) a = 1;
    r.psi = rm->psi[k] + a * (rm->psi[k + 1] - rm->psi[k]);
    r.d = sinew_v3_add(rm->d[k], sinew_v3_scale(sinew_v3_sub(rm->d[k + 1], rm->d[k]), a));
    return r;
}

/* A(t): whole cycles composed (LOOP) */
static int absolute(const sinew_root_motion *rm, double t, sinew_wrap wrap, planar *out)
{
    const double D = rm->duration;
    if (wrap == SINEW_WRAP_CLAMP || !(D > 0)) {
        *out = at(rm, t < 0 ? 0 : (t > D ? D : t));
        return 1;
    }
    double c = floor(t / D);
    if (!(fabs(c) <= 1099511627776.0)) return 0;
    double f = t - c * D;
    if (f < 0) f = 0;
    if (f > D) f = D;
    planar e = at(rm, D);
    *out = compose(rm->up, power(rm->up, e, (int64_t)c), at(rm, f));
    return 1;
}

static void to_transform(const sinew_root_motion *rm, planar p, sinew_transform *o)
{
    o->translation = p.d;
    o->rotation = sinew_quat_from_axis_angle(rm->up, p.psi);
    o->scale = sinew_v3(1, 1, 1);
}

sinew_result sinew_root_motion_sample(const sinew_root_motion *rm, double time_s, sinew_wrap wrap, sinew_transform *out)
{
    if (!rm || !out || (unsigned)wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!isfinite(time_s)) return SINEW_ERROR_NON_FINITE;
    planar p = snw_root_motion_at(rm, time_s, wrap, NULL);
    to_transform(rm, p, out);
    return SINEW_OK;
}

sinew_result sinew_root_motion_delta(const sinew_root_motion *rm, double t0, double t1, sinew_wrap wrap,
                                     sinew_transform *delta)
{
    if (!rm || !delta || (unsigned)wrap > (unsigned)SINEW_WRAP_CLAMP) return SINEW_ERROR_INVALID_ARGUMENT;
    if (!isfinite(t0) || !isfinite(t1)) return SINEW_ERROR_NON_FINITE;
    const double D = rm->duration;
    if (wrap == SINEW_WRAP_LOOP && D > 0) {
        /* A(t0)^-1 A(t1) = W(f0)^-1 E^(c1 - c0) W(f1): the common whole cycles
         * cancel, so a frame's step costs O(1) (usually c1 - c0 is 0 or 1) and
         * keeps its precision however many loops have been played */
        double c0 = floor(t0 / D), c1 = floor(t1 / D);
        if (!(fabs(c0) <= 1099511627776.0) || !(fabs(c1) <= 1099511627776.0)) return SINEW_ERROR_NON_FINITE;
        double f0 = t0 - c0 * D, f1 = t1 - c1 * D;
        f0 = f0 < 0 ? 0 : f0 > D ? D : f0;
        f1 = f1 < 0 ? 0 : f1 > D ? D : f1;
        planar e = power(rm->up, at(rm, D), (int64_t)(c1 - c0));
        planar m = compose(rm->up, inverse(rm->up, at(rm, f0)), compose(rm->up, e, at(rm, f1)));
        to_transform(rm, m, delta);
        return SINEW_OK;
    }
    planar a, b;
    if (!absolute(rm, t0, wrap, &a) || !absolute(rm, t1, wrap, &b)) return SINEW_ERROR_NON_FINITE;
    to_transform(rm, compose(rm->up, inverse(rm->up, a), b), delta);
    return SINEW_OK;
}

/* ---- for the layer blend (root_motion_internal.h) ---- */

planar_motion snw_root_motion_at(const sinew_root_motion *rm, double time_s, sinew_wrap wrap, uint32_t *joint)
{
    /* the sample time as the clip's sampler wraps it: [0, duration] */
    const double D = rm->duration;
    double t = time_s;
    if (wrap == SINEW_WRAP_CLAMP || !(D > 0)) t = t < 0 ? 0 : (t > D ? D : t);
    else {
        t = fmod(t, D);
        if (t < 0) t += D;
    }
    if (joint) *joint = rm->joint;
    return at(rm, t);
}

const sinew_clip *snw_root_motion_clip(const sinew_root_motion *rm) { return rm->clip; }
sinew_vec3 snw_root_motion_up(const sinew_root_motion *rm) { return rm->up; }
