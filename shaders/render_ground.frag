#version 450
// Ground: a soft checkerboard (1 unit squares) fading out with distance.
#include "render.glsl"
layout(location = 0) in vec3 v_world;
layout(location = 0) out vec4 out_color;
void main()
{
    vec2 cell = floor(v_world.xz);
    float checker = mod(cell.x + cell.y, 2.0);
    vec3 base = mix(vec3(0.32, 0.33, 0.35), vec3(0.42, 0.43, 0.45), checker);
    float diff = max(-pc.light.y, 0.0);
    vec3 c = base * (0.35 + 0.65 * diff);
    float d = length(v_world.xz - pc.eye.xz);
    float fade = clamp(d / max(pc.color.w, 1e-3), 0.0, 1.0);
    c = mix(c, vec3(0.20, 0.22, 0.26), fade * fade);
    if (pc.light.w > 0.5) c = pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2));
    out_color = vec4(c, 1.0);
}
