#version 450
// The host application's own vertex shader: it reads Sinew's skinned output
// buffer as an ordinary vertex buffer (position at offset 0, normal at 12).
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_nrm;
layout(push_constant) uniform Push { mat4 view_proj; } pc;
layout(location = 0) out vec3 v_nrm;
void main()
{
    v_nrm = in_nrm;
    gl_Position = pc.view_proj * vec4(in_pos, 1.0);
}
