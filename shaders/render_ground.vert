#version 450
// The ground plane: two triangles at y = pc.eye.w, half size pc.color.w,
// generated from gl_VertexIndex (no vertex buffer).
#include "render.glsl"
layout(location = 0) out vec3 v_world;
void main()
{
    const vec2 corners[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1),
                                    vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
    vec2 c = corners[gl_VertexIndex] * pc.color.w;
    v_world = vec3(c.x, pc.eye.w, c.y);
    gl_Position = pc.view_proj * vec4(v_world, 1.0);
}
