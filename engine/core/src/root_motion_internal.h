/* Private: what the layer blend (blend.c) and the float64 reference need of a
 * root motion (root_motion.c). */
#ifndef SINEW_ROOT_MOTION_INTERNAL_H
#define SINEW_ROOT_MOTION_INTERNAL_H

#include "sinew/anim.h"

/* x -> R(psi) x + d, R about the root motion's up axis */
typedef struct planar_motion { double psi; sinew_vec3 d; } planar_motion;

/* W at the clip time the sampler uses for time_s under wrap; *joint (may be
 * NULL) receives the joint it moves. Arguments trusted (validated). */
planar_motion snw_root_motion_at(const sinew_root_motion *rm, double time_s, sinew_wrap wrap, uint32_t *joint);
/* The clip it was extracted from, and its unit up axis. */
const sinew_clip *snw_root_motion_clip(const sinew_root_motion *rm);
sinew_vec3 snw_root_motion_up(const sinew_root_motion *rm);

#endif
