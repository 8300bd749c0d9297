#version 450
/* morph.comp of commit 4515053 (before 2026-11-27), kept for sinew-bench-morph's before/after
 * (sinew_debug_set_morph_kernel PREVIOUS); the text below is unchanged. */
/* Sinew morph pass: before skinning, writes each morphed character's rest
 * copy: for every vertex moved by any target of its mesh (the mesh's rows),
 *   p = base p + sum_e w[target_e] dp_e,  n = oct(normalize(decode(base n) + sum_e w dn_e))
 * (the rule of sinew/blendshape.h; float32). Joints, weights and bulge
 * distances of the copy were copied once from the base mesh and never change;
 * vertices no target moves are never written.
 * Rows mode: one invocation per row, reading every stored delta of the row.
 * Active mode: one invocation per delta of each touched target (pairs); the
 * invocation whose target is the row's first touched one (entries are in
 * target order) computes the row from its non-zero weights and writes it, the
 * others return: each moved vertex written once, no atomics, and the cost
 * follows the touched targets' deltas. */
#include "morph_layout.h"
#include "sinew_layout.h"
#include "common.glsl"
layout(local_size_x = SINEW_MORPH_WG_SIZE) in;

layout(std430, set = 0, binding = SINEW_MORPH_BIND_REST) buffer RestBuf { uvec4 rest[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_DATA) readonly buffer DataBuf { uvec4 mdata[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_WEIGHTS) readonly buffer WeightBuf { float weights[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_ITEMS) readonly buffer ItemBuf { uvec4 items[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_PAIRS) readonly buffer PairBuf { uvec4 pairs[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_DATA_U32) readonly buffer DataU32 { uint mdata_u[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_TANGENT) buffer TangentBuf { uvec2 tangent_rest[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_BULGE) buffer BulgeBuf { float bulge_rest[]; };

layout(push_constant) uniform Push { uint words[SINEW_MORPH_PUSH_WORDS]; } pc;

/* Same steps as sinew_distance_to_segment (mesh.c), in float32. */
float segment_distance(vec3 p, vec3 a, vec3 b)
{
    vec3 ab = b - a;
    float l2 = dot(ab, ab), t = 0.0;
    if (l2 > 0.0) t = clamp(dot(p - a, ab) / l2, 0.0, 1.0);
    vec3 d = p - (a + t * ab);
    return sqrt(dot(d, d));
}

void main()
{
    uint idx = gl_WorkGroupID.z * pc.words[SINEW_MORPH_PUSH_ROWS] + gl_WorkGroupID.y;
    if (idx >= pc.words[SINEW_MORPH_PUSH_ITEMS]) return;
    uint k = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    bool sparse_mode = pc.words[SINEW_MORPH_PUSH_MODE] == SINEW_MORPH_MODE_ACTIVE;
    uint item = idx, r = 0u;
    uvec4 pr = uvec4(0u);
    if (sparse_mode) {
        pr = pairs[idx];
        if (k >= pr.z) return;
        item = pr.x;
        r = mdata_u[pr.y + k];
    }
    uvec4 ia = items[SINEW_MORPH_ITEM_SLOTS * item];
    uvec4 ib = items[SINEW_MORPH_ITEM_SLOTS * item + 1u];
    if (!sparse_mode) {
        if (k >= ia.y) return;
        r = ia.x + k;
    }
    uvec4 row = mdata[r];
    uint src = ia.z + ib.y * row[SINEW_MORPH_ROW_VERTEX];
    uint dst = ia.w + ib.y * row[SINEW_MORPH_ROW_VERTEX];
    vec3 dp = vec3(0.0), dn = vec3(0.0), dt = vec3(0.0);
    bool tangents = ib.z == SINEW_MORPH_ENTRY_SLOTS_TANGENT;
    /* Active mode: entries before the row's first touched one have +0.0
     * weights (nothing to add); that first touched target owns the row. */
    bool owner = !sparse_mode;
    for (uint e = row[SINEW_MORPH_ROW_FIRST]; e < row[SINEW_MORPH_ROW_END]; e += ib.z) {
        uvec4 e0 = mdata[e];
        float w = weights[ib.x + e0.x];
        if (!owner) {
            if (floatBitsToUint(w) == 0u) continue;
            if (e0.x != pr.w) return;
            owner = true;
        }
        if (sparse_mode && w == 0.0) continue;
        uvec4 e1 = mdata[e + 1u];
        dp += w * uintBitsToFloat(e0.yzw);
        dn += w * uintBitsToFloat(e1.xyz);
        if (tangents) dt += w * uintBitsToFloat(mdata[e + 2u].xyz);
    }
    uvec4 a = rest[src];
    vec3 p = uintBitsToFloat(a.xyz) + dp;
    vec3 n = oct_decode(a.w) + dn;
    rest[dst] = uvec4(floatBitsToUint(p), oct_encode(n));
    if (ib.w != 0u) { /* bulge rest distance of the morphed position (sinew_morpher_set_skeleton) */
        uint j = rest[dst + 1u].x & 0xffffu;
        uint seg = ib.w - 1u + 2u * j;
        bulge_rest[SINEW_BULGE_INDEX(dst)] = segment_distance(p, uintBitsToFloat(mdata[seg].xyz), uintBitsToFloat(mdata[seg + 1u].xyz));
    }
    if (tangents) { /* t = normalize(decode(base t) + sum w dt), the bitangent sign kept */
        uvec2 tb = tangent_rest[SINEW_BULGE_INDEX(src)];
        tangent_rest[SINEW_BULGE_INDEX(dst)] = uvec2(oct_encode(oct_decode(tb.x) + dt), tb.y);
    }
}
