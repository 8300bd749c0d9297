#version 450
/* Lean morph reference (sinew_debug_set_morph_kernel LEAN, sinew-bench-morph's
 * "x lean"): the least a morph pass must do. The host lists, per frame, every
 * vertex the touched targets move (records: base rest slot, copy rest slot,
 * first and end entry) and only those targets' deltas (entries: absolute weight
 * index, dp; dn, 0). One invocation per record: read the base, fma the deltas,
 * write the position and the normal's code rounded to the nearest octahedral
 * grid point. No tangents, no bulge distances. */
#include "common.glsl"
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer RestBuf { uvec4 rest[]; };
layout(std430, set = 0, binding = 1) readonly buffer WeightBuf { float weights[]; };
layout(std430, set = 0, binding = 2) readonly buffer LeanBuf { uvec4 lean[]; };
layout(push_constant) uniform Push { uint count, row; } pc;

void main()
{
    uint i = gl_GlobalInvocationID.y * pc.row + gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uvec4 rec = lean[i];
    vec3 dp = vec3(0.0), dn = vec3(0.0);
    for (uint e = rec.z; e < rec.w; e += 2u) {
        uvec4 e0 = lean[e];
        float w = weights[e0.x];
        dp += w * uintBitsToFloat(e0.yzw);
        dn += w * uintBitsToFloat(lean[e + 1u].xyz);
    }
    uvec4 a = rest[rec.x];
    vec3 n = oct_decode(a.w) + dn;
    float l1 = abs(n.x) + abs(n.y) + abs(n.z);
    uint code = SINEW_OCT_ZERO_CODE;
    if (l1 >= 1e-30) {
        vec2 q = n.xy / l1;
        if (n.z < 0.0) q = (1.0 - abs(q.yx)) * vec2(q.x >= 0.0 ? 1.0 : -1.0, q.y >= 0.0 ? 1.0 : -1.0);
        ivec2 c = ivec2(round(clamp(q, -1.0, 1.0) * 32767.0));
        code = (uint(c.x) & 0xffffu) | (uint(c.y) << 16);
    }
    rest[rec.y] = uvec4(floatBitsToUint(uintBitsToFloat(a.xyz) + dp), code);
}
