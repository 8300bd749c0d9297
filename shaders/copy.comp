#version 450
/* Roofline probe: copies uvec4s from one storage buffer to another, the same
 * access path (storage in, storage out) as the skinning kernel. */
#include "sinew_layout.h"
layout(local_size_x = SINEW_COPY_WG_SIZE) in;
layout(std430, set = 0, binding = SINEW_COPY_BIND_SRC) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = SINEW_COPY_BIND_DST) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uint count; uint grid_x; } pc;
void main()
{
    uint wg = gl_WorkGroupID.y * pc.grid_x + gl_WorkGroupID.x;
    uint i = wg * SINEW_COPY_WG_SIZE + gl_LocalInvocationID.x;
    if (i < pc.count) dst[i] = src[i];
}
