/* The float64 reference of the animation layer blend (sinew/reference.h,
 * sinew_reference_blend_pose; the rules in anim.h, "Blending"). Same steps and
 * order as blend.c's float32 path; every value in double. */
#include <sinew/linalg.h>
#include "sinew/reference.h"
#include "sinew/anim.h"

#include <math.h>
#include <string.h>

static double layer_time(const sinew_anim_layer *l)
{
    return (l->flags & SINEW_LAYER_SYNC) && l->clip ? l->time * sinew_clip_duration(l->clip) : l->time;
}

static double qdot(sinew_quat a, sinew_quat b) { return (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w); }

static sinew_quat qnorm(sinew_quat q)
{
    double n2 = qdot(q, q);
    if (!(n2 > 1e-30)) return (sinew_quat){ 0, 0, 0, 1 };
    double inv = 1.0 / sqrt(n2);
    return (sinew_quat){ q.x * inv, q.y * inv, q.z * inv, q.w * inv };
}

static void accumulate(sinew_transform *acc, const sinew_transform *p, double w)
{
    double s = qdot(acc->rotation, p->rotation) < 0 ? -w : w;
    acc->translation = sinew_v3_add(acc->translation, sinew_v3_scale(p->translation, w));
    acc->scale = sinew_v3_add(acc->scale, sinew_v3_scale(p->scale, w));
    acc->rotation.x += s * p->rotation.x;
    acc->rotation.y += s * p->rotation.y;
    acc->rotation.z += s * p->rotation.z;
    acc->rotation.w += s * p->rotation.w;
}

static double ratio(double p, double r) { return r != 0 ? p / r : 1.0; }

/* the layer's clip at t into p, its root joint in place (W(t)^-1, root motion) */
static sinew_result sample(const sinew_skeleton *skel, const sinew_anim_layer *l, double t, sinew_transform *p)
{
    sinew_result r = sinew_clip_sample(l->clip, skel, t, l->wrap, p);
    if (r != SINEW_OK || !l->root_motion || !l->clip) return r;
    sinew_transform w;
    if ((r = sinew_root_motion_sample(l->root_motion, t, l->wrap, &w)) != SINEW_OK) return r;
    sinew_quat inv = sinew_quat_conjugate(w.rotation);
    sinew_transform *x = &p[sinew_root_motion_joint(l->root_motion)];
    x->translation = sinew_quat_rotate(inv, sinew_v3_sub(x->translation, w.translation));
    x->rotation = sinew_quat_mul(inv, x->rotation);
    return SINEW_OK;
}

sinew_result sinew_reference_blend_pose(const sinew_skeleton *skel, const sinew_anim_layer *layers,
                                        uint32_t layer_count, sinew_transform *scratch, sinew_transform *out)
{
    if (!skel || !scratch || !out) return SINEW_ERROR_INVALID_ARGUMENT;
    const uint32_t n = sinew_skeleton_joint_count(skel);
    sinew_result r = sinew_anim_layers_validate(layers, layer_count, n);
    if (r != SINEW_OK) return r;
    const sinew_transform *rest = sinew_skeleton_rest_pose(skel);
    sinew_transform *p = scratch, *ref = scratch + n;
    memset(out, 0, (size_t)n * sizeof *out);
    for (uint32_t j = 0; j < n; j++) ref[j].translation.x = 0; /* the weight sums until the additive layers */
#define ws_(j) ref[j].translation.x
    for (uint32_t i = 0; i < layer_count; i++) {
        const sinew_anim_layer *l = &layers[i];
        double w = (float)sinew_anim_layer_weight(l); /* the production path's float32 weight */
        if ((l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        if ((r = sample(skel, l, layer_time(l), p)) != SINEW_OK) return r;
        for (uint32_t j = 0; j < n; j++) {
            double wj = l->joint_weights ? w * l->joint_weights[j] : w;
            if (!(wj > 0)) continue;
            accumulate(&out[j], &p[j], wj);
            ws_(j) += wj;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        double W = ws_(j);
        if (W < SINEW_BLEND_REST_THRESHOLD) {
            accumulate(&out[j], &rest[j], SINEW_BLEND_REST_THRESHOLD - W);
            W = SINEW_BLEND_REST_THRESHOLD;
        }
        out[j].translation = sinew_v3_scale(out[j].translation, 1.0 / W);
        out[j].scale = sinew_v3_scale(out[j].scale, 1.0 / W);
        out[j].rotation = qnorm(out[j].rotation);
    }
#undef ws_
    for (uint32_t i = 0; i < layer_count; i++) {
        const sinew_anim_layer *l = &layers[i];
        double w = (float)sinew_anim_layer_weight(l);
        if (!(l->flags & SINEW_LAYER_ADDITIVE) || !(w > 0)) continue;
        if ((r = sample(skel, l, layer_time(l), p)) != SINEW_OK) return r;
        const sinew_transform *rp = rest;
        if (!(l->flags & SINEW_LAYER_REFERENCE_REST)) {
            if ((r = sample(skel, l, l->reference_time, ref)) != SINEW_OK) return r;
            rp = ref;
        }
        for (uint32_t j = 0; j < n; j++) {
            double wj = l->joint_weights ? w * l->joint_weights[j] : w;
            if (!(wj > 0)) continue;
            sinew_quat rc = { -rp[j].rotation.x, -rp[j].rotation.y, -rp[j].rotation.z, rp[j].rotation.w };
            sinew_quat dq = sinew_quat_mul(rc, p[j].rotation);
            double wq = dq.w < 0 ? -wj : wj;
            sinew_quat nq = { wq * dq.x, wq * dq.y, wq * dq.z, (1 - wj) + wq * dq.w };
            out[j].rotation = sinew_quat_mul(out[j].rotation, qnorm(nq));
            out[j].translation = sinew_v3_add(out[j].translation,
                                              sinew_v3_scale(sinew_v3_sub(p[j].translation, rp[j].translation), wj));
            out[j].scale.x *= 1 + wj * (ratio(p[j].scale.x, rp[j].scale.x) - 1);
            out[j].scale.y *= 1 + wj * (ratio(p[j].scale.y, rp[j].scale.y) - 1);
            out[j].scale.z *= 1 + wj * (ratio(p[j].scale.z, rp[j].scale.z) - 1);
        }
    }
    return SINEW_OK;
}
