#version 450
// Draws skinned vertices straight from the skinner's output buffer:
// location 0 = position (R32G32B32_SFLOAT), location 1 = normal
// (R32G32B32_SFLOAT or A2B10G10R10_SNORM_PACK32, decoded by vertex input).
#include "render.glsl"
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_nrm;
layout(location = 0) out vec3 v_nrm;
layout(location = 1) out vec3 v_world;
void main()
{
    v_nrm = in_nrm;
    v_world = in_pos;
    gl_Position = pc.view_proj * vec4(in_pos, 1.0);
}
