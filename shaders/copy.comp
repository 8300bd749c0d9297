#version 450
/* Roofline probe: copies uvec4s to a storage buffer, reading through the same
 * path as the skinning kernel on the device: a storage buffer, or (READ_TEXEL)
 * a uniform texel buffer (RGBA32UI), as skin.comp reads rest vertices. */
#include "sinew_layout.h"
layout(local_size_x = SINEW_COPY_WG_SIZE) in;
layout(constant_id = SINEW_COPY_SPEC_READ_TEXEL) const bool READ_TEXEL = false;
layout(std430, set = 0, binding = SINEW_COPY_BIND_SRC) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = SINEW_COPY_BIND_DST) writeonly buffer Dst { uvec4 dst[]; };
layout(set = 0, binding = SINEW_COPY_BIND_SRC_TEXEL) uniform usamplerBuffer src_tex;
layout(push_constant) uniform Push { uint count; uint grid_x; } pc;
void main()
{
    uint wg = gl_WorkGroupID.y * pc.grid_x + gl_WorkGroupID.x;
    uint i = wg * SINEW_COPY_WG_SIZE + gl_LocalInvocationID.x;
    if (i < pc.count) dst[i] = READ_TEXEL ? texelFetch(src_tex, int(i)) : src[i];
}
