// Push constants shared by the renderer's pipelines (render.vert/.frag,
// render_ground.vert/.frag); the C side mirrors this block (112 bytes).
layout(push_constant) uniform RenderPush {
    mat4 view_proj;
    vec4 color;      // rgb: instance color (linear); w: ground extent (ground pass)
    vec4 light;      // xyz: direction the light travels (unit); w: 1 = encode to sRGB in the shader
    vec4 eye;        // xyz: camera position; w: ground height (ground pass)
} pc;
