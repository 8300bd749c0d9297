/* Private helpers shared by the CPU core's sources (skeleton.c, palette.c). */
#ifndef SINEW_CORE_INTERNAL_H
#define SINEW_CORE_INTERNAL_H

#include <math.h>
#include "sinew/linalg.h"

/* 1 when every component of the TRS is finite. */
static inline int transform_is_finite(const sinew_transform *t)
{
    const double v[10] = { t->translation.x, t->translation.y, t->translation.z,
                           t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w,
                           t->scale.x, t->scale.y, t->scale.z };
    for (int i = 0; i < 10; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* T * R * S with the rotation normalized (a zero quaternion is the identity):
 * the local matrix of forward kinematics, used by FK and the palette builder alike. */
static inline sinew_mat4 local_matrix(const sinew_transform *t)
{
    sinew_transform n = *t;
    n.rotation = sinew_quat_normalize(t->rotation);
    return sinew_mat4_from_transform(&n);
}

#endif
