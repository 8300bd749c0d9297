#version 450
// Simple shading: hemispheric ambient + Lambert + a little Blinn-Phong,
// two-sided (normals are turned toward the viewer).
#include "render.glsl"
layout(location = 0) in vec3 v_nrm;
layout(location = 1) in vec3 v_world;
layout(location = 0) out vec4 out_color;
void main()
{
    vec3 v = normalize(pc.eye.xyz - v_world);
    float len = length(v_nrm);
    vec3 n = len > 1e-6 ? v_nrm / len : v;
    if (dot(n, v) < 0.0) n = -n;
    vec3 l = -pc.light.xyz;
    float diff = max(dot(n, l), 0.0);
    float hemi = 0.5 + 0.5 * n.y;
    vec3 h = normalize(l + v);
    float spec = pow(max(dot(n, h), 0.0), 32.0) * 0.25;
    vec3 c = pc.color.rgb * (0.18 + 0.12 * hemi + 0.75 * diff) + vec3(spec);
    if (pc.light.w > 0.5) c = pow(clamp(c, 0.0, 1.0), vec3(1.0 / 2.2));
    out_color = vec4(c, 1.0);
}
