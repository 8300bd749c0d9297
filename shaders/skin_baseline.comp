#version 450
/* Sinew skinning kernel: one dispatch skins every character of a frame.
 * Workgroup w handles SINEW_WG_SIZE vertices of one instance, named by the
 * work list. Implements exactly the rules of reference.h (README, "Methods"):
 * LBS, DQS, DQS with scale (LBS of S, then DQS of R), bulge correction,
 * zero-weight-sum and zero-normal rules. All arithmetic is float32. */
#include "sinew_layout.h"
#include "common.glsl"
layout(local_size_x = SINEW_WG_SIZE) in;

layout(constant_id = SINEW_SPEC_OUTPUT_PACKED) const bool OUTPUT_PACKED = false;
layout(constant_id = SINEW_SPEC_READ_TEXEL) const bool READ_TEXEL = false;

/* Instance record: SINEW_INST_WORDS uint words, fields at SINEW_INST_* (sinew_layout.h). */
struct Instance {
    uint rest_first, vertex_count, palette_offset, output_offset, joint_count, method, flags, stride;
};

layout(std430, set = 0, binding = SINEW_BIND_REST) readonly buffer RestBuf { uvec4 rest[]; };
layout(std430, set = 0, binding = SINEW_BIND_BULGE) readonly buffer BulgeBuf { float bulge_rest[]; };
layout(std430, set = 0, binding = SINEW_BIND_PALETTE) readonly buffer PalBuf { vec4 palette[]; };
layout(std430, set = 0, binding = SINEW_BIND_INSTANCES) readonly buffer InstBuf { uint inst_words[]; };
layout(std430, set = 0, binding = SINEW_BIND_WORK) readonly buffer WorkBuf { uvec2 work[]; };
layout(std430, set = 0, binding = SINEW_BIND_OUTPUT) writeonly buffer OutBuf { uint out_words[]; };
layout(set = 0, binding = SINEW_BIND_REST_TEXEL) uniform usamplerBuffer rest_tex;
layout(set = 0, binding = SINEW_BIND_PALETTE_TEXEL) uniform samplerBuffer pal_tex;

layout(push_constant) uniform Push { uint words[SINEW_PUSH_WORDS]; } pc;

Instance load_instance(uint i)
{
    uint b = i * SINEW_INST_WORDS;
    Instance I;
    I.rest_first = inst_words[b + SINEW_INST_REST_FIRST];
    I.vertex_count = inst_words[b + SINEW_INST_VERTEX_COUNT];
    I.palette_offset = inst_words[b + SINEW_INST_PALETTE_OFFSET];
    I.output_offset = inst_words[b + SINEW_INST_OUTPUT_OFFSET];
    I.joint_count = inst_words[b + SINEW_INST_JOINT_COUNT];
    I.method = inst_words[b + SINEW_INST_METHOD];
    I.flags = inst_words[b + SINEW_INST_FLAGS];
    I.stride = inst_words[b + SINEW_INST_STRIDE];
    return I;
}

uvec4 load_rest(uint i)
{
    if (READ_TEXEL) return texelFetch(rest_tex, int(i));
    return rest[i];
}

vec4 load_pal(uint i)
{
    if (READ_TEXEL) return texelFetch(pal_tex, int(i));
    return palette[i];
}

#include "bulge.glsl"

/* Blended rows r0..r2 of a 3x4 affine transform: position and cofactor normal. */
void apply_affine(vec4 r0, vec4 r1, vec4 r2, inout vec3 p, inout vec3 n)
{
    p = affine_point(r0, r1, r2, p);
    float det;
    vec3 cn = cofactor_mul(r0, r1, r2, n, det);
    n = safe_normalize(det < 0.0 ? -cn : cn);
}

void main()
{
    uint wg = gl_WorkGroupID.y * pc.words[SINEW_PUSH_GRID_X] + gl_WorkGroupID.x;
    if (wg >= pc.words[SINEW_PUSH_WORK_COUNT]) return;
    uvec2 w = work[wg];
    Instance I = load_instance(w.x);
    uint local = w.y + gl_LocalInvocationID.x;
    if (local >= I.vertex_count) return;
    uint vi = I.rest_first + local;

    uvec4 a = load_rest(2u * vi);
    uvec4 b = load_rest(2u * vi + 1u);
    vec3 p = uintBitsToFloat(a.xyz);
    vec3 n = oct_decode(a.w);

    uint jmax = I.joint_count - 1u;
    uint js[4];
    js[0] = min(b.x & 0xffffu, jmax);
    js[1] = min(b.x >> 16, jmax);
    js[2] = min(b.y & 0xffffu, jmax);
    js[3] = min(b.y >> 16, jmax);
    uint wq[4];
    wq[0] = b.z & 0xffffu;
    wq[1] = b.z >> 16;
    wq[2] = b.w & 0xffffu;
    wq[3] = b.w >> 16;

    if (wq[0] + wq[1] + wq[2] + wq[3] != 0u) {
        uint stride = I.stride;
        uint pbase = I.palette_offset;
        bool bulge = (I.flags & SINEW_K_FLAG_BULGE) != 0u;
        vec3 g = vec3(0.0), sa = vec3(0.0), sb = vec3(0.0);
        float sig = 1.0;
        if (bulge) {
            vec3 u0;
            float a0;
            g = bulge_rest_radial(pbase + js[0] * stride + SINEW_PAL_OFF_BULGE(I.method), p, sa, sb, u0, a0);
            if (I.method != SINEW_K_DQS) {   /* the major joint's skin or S rows */
                uint s0 = pbase + js[0] * stride + SINEW_PAL_OFF_AFFINE;
                sig = bulge_scale(load_pal(s0).xyz, load_pal(s0 + 1u).xyz, load_pal(s0 + 2u).xyz, u0, a0, g);
            }
        }
        if (I.method != SINEW_K_DQS) {
            /* LBS, or stage 1 (scale matrices S_j) of the scale methods. */
            vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
            for (int k = 0; k < 4; k++) {
                if (wq[k] == 0u) continue;
                float wk = float(wq[k]) / 65535.0;
                uint s = pbase + js[k] * stride + SINEW_PAL_OFF_AFFINE;
                r0 += wk * load_pal(s);
                r1 += wk * load_pal(s + 1u);
                r2 += wk * load_pal(s + 2u);
            }
            apply_affine(r0, r1, r2, p, n);
            if (bulge) g = bulge_cofactor(r0, r1, r2, g);
        }
        if (I.method != SINEW_K_LBS) {
            /* DQS (plain, or stage 2 of the scale methods). */
            uint dq_off = SINEW_PAL_OFF_DQ(I.method);
            vec4 real0 = load_pal(pbase + js[0] * stride + dq_off);
            vec4 br = vec4(0.0), bd = vec4(0.0);
            for (int k = 0; k < 4; k++) {
                if (wq[k] == 0u) continue;
                float wk = float(wq[k]) / 65535.0;
                uint s = pbase + js[k] * stride + dq_off;
                vec4 rk = k == 0 ? real0 : load_pal(s);
                vec4 dk = load_pal(s + 1u);
                if (dot(rk, real0) < 0.0) wk = -wk;
                br += wk * rk;
                bd += wk * dk;
            }
            float len = sqrt(dot(br, br));
            br /= len;
            bd /= len;
            p = dq_transform(br, bd, p);
            n = quat_rotate(br, n);
            n = safe_normalize(n);
            if (bulge) g = bulge_rotate(br, g);
        }
        if (bulge) bulge_correct(sa, sb, bulge_rest[vi], sig, g, 1.0, (I.flags & SINEW_K_FLAG_BULGE_INNER) != 0u, false, p, n);
    }

    uint o = I.output_offset + local;
    if (OUTPUT_PACKED) {
        uint nw = pack_snorm10(n);
        out_words[4u * o + 0u] = floatBitsToUint(p.x);
        out_words[4u * o + 1u] = floatBitsToUint(p.y);
        out_words[4u * o + 2u] = floatBitsToUint(p.z);
        out_words[4u * o + 3u] = nw;
    } else {
        out_words[6u * o + 0u] = floatBitsToUint(p.x);
        out_words[6u * o + 1u] = floatBitsToUint(p.y);
        out_words[6u * o + 2u] = floatBitsToUint(p.z);
        out_words[6u * o + 3u] = floatBitsToUint(n.x);
        out_words[6u * o + 4u] = floatBitsToUint(n.y);
        out_words[6u * o + 5u] = floatBitsToUint(n.z);
    }
}
