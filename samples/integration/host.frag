#version 450
// Normal-colored shading: every drawn pixel is clearly non-black.
layout(location = 0) in vec3 v_nrm;
layout(location = 0) out vec4 out_color;
void main()
{
    float l = length(v_nrm);
    vec3 n = l > 1e-6 ? v_nrm / l : vec3(0.0, 1.0, 0.0);
    out_color = vec4(0.25 + 0.75 * (0.5 + 0.5 * n), 1.0);
}
