#version 450
/* Sinew morph pass: before skinning, writes each morphed character's rest
 * copy: for every vertex moved by any target of its mesh (the mesh's rows),
 *   p = base p + sum_e w[target_e] dp_e,  n = oct(normalize(decode(base n) + sum_e w dn_e))
 * (the rule of sinew/blendshape.h; float32; the normal's code rounded to the
 * nearest octahedral grid point, oct_encode_round, and rewritten only where
 * the normal deltas are non-zero). Joints, weights and bulge
 * distances of the copy were copied once from the base mesh and never change;
 * vertices no target moves are never written.
 * Rows mode: one invocation per row, reading every stored delta of the row.
 * Active mode: one invocation per delta of each touched target (pairs); the
 * invocation whose target is the row's first touched one (entries are in
 * target order) computes the row from its non-zero weights and writes it, the
 * others return: each moved vertex written once, no atomics, and the cost
 * follows the touched targets' deltas.
 * Lists mode: the host lists, per frame, every vertex the touched targets move
 * (records: base and copy rest slots, first and end of its entries; the item)
 * and, per vertex, the deltas of its non-zero-weight targets copied contiguously
 * with their weights; one invocation per record reads its base, its entries,
 * and writes: the bytes follow the touched deltas and the written vertices,
 * without the owner search or an indirection per delta. */
#include "morph_layout.h"
#include "sinew_layout.h"
#include "common.glsl"
layout(local_size_x = SINEW_MORPH_WG_SIZE) in;
/* One pipeline per mode (SINEW_MORPH_MODE_*) and per EXTRAS (0: no item of the
 * frame has tangent deltas or a bone segment table, their code left out): a CPU
 * device runs both sides of every branch, so the unused modes cost there. */
layout(constant_id = 0) const uint MODE = SINEW_MORPH_MODE_ROWS;
layout(constant_id = 1) const uint EXTRAS = 1u;

layout(std430, set = 0, binding = SINEW_MORPH_BIND_REST) buffer RestBuf { uvec4 rest[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_DATA) readonly buffer DataBuf { uvec4 mdata[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_WEIGHTS) readonly buffer WeightBuf { float weights[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_ITEMS) readonly buffer ItemBuf { uvec4 items[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_PAIRS) readonly buffer PairBuf { uvec4 pairs[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_DATA_U32) readonly buffer DataU32 { uint mdata_u[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_TANGENT) buffer TangentBuf { uvec2 tangent_rest[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_BULGE) buffer BulgeBuf { float bulge_rest[]; };

layout(std430, set = 0, binding = SINEW_MORPH_BIND_LISTS) readonly buffer ListBuf { uint list_u[]; };
layout(std430, set = 0, binding = SINEW_MORPH_BIND_LIST_RECORDS) readonly buffer ListRecBuf { uvec4 list_records[]; };

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

/* Octahedral code of n (any length): its projection rounded to the nearest grid
 * point, one candidate instead of oct_encode's four (common.glsl). Over 4 M
 * random unit normals (a float64 model of both encoders, bench/RESULTS.md
 * 2026-11-27) |decode(code) - n| is at most 6.4e-5 (mean 2.3e-5) against 4.3e-5
 * (mean 2.1e-5) for the four-candidate search: within the one-step error
 * (about 1e-4) the morph tests already allow for the rest normal's code. */
uint oct_encode_round(vec3 n)
{
    float l1 = abs(n.x) + abs(n.y) + abs(n.z);
    if (!(l1 >= 1e-30)) return SINEW_OCT_ZERO_CODE;
    vec2 q = n.xy / l1;
    if (n.z < 0.0) q = (1.0 - abs(q.yx)) * vec2(q.x >= 0.0 ? 1.0 : -1.0, q.y >= 0.0 ? 1.0 : -1.0);
    ivec2 c = ivec2(round(clamp(q, -1.0, 1.0) * 32767.0));
    return (uint(c.x) & 0xffffu) | (uint(c.y) << 16);
}

/* Writes moved vertex `vertex` of item (ia, ib) from its summed deltas. */
void write_vertex(uvec4 ia, uvec4 ib, uint vertex, vec3 dp, vec3 dn, vec3 dt)
{
    uint src = ia.z + ib.y * vertex;
    uint dst = ia.w + ib.y * vertex;
    bool tangents = EXTRAS != 0u && ib.z == SINEW_MORPH_ENTRY_SLOTS_TANGENT;
    uvec4 a = rest[src];
    vec3 p = uintBitsToFloat(a.xyz) + dp;
    /* Re-encoded only where the deltas change it: with dn = 0 (no normal deltas, or
     * all weights zero) the copy gets the base code, which is what the re-encode
     * of the decoded base normal gives. */
    uint code = a.w;
    if (dn != vec3(0.0)) code = oct_encode_round(oct_decode(a.w) + dn);
    rest[dst] = uvec4(floatBitsToUint(p), code);
    if (EXTRAS != 0u && ib.w != 0u) { /* bulge rest distance of the morphed position (sinew_morpher_set_skeleton) */
        uint bd = SINEW_BULGE_INDEX(dst);
        if (dp == vec3(0.0)) { /* the base's distance (the copy may hold one of an earlier frame) */
            bulge_rest[bd] = bulge_rest[SINEW_BULGE_INDEX(src)];
        } else {
            uint j = rest[dst + 1u].x & 0xffffu;
            uint seg = ib.w - 1u + 2u * j;
            bulge_rest[bd] = segment_distance(p, uintBitsToFloat(mdata[seg].xyz), uintBitsToFloat(mdata[seg + 1u].xyz));
        }
    }
    if (tangents) { /* t = normalize(decode(base t) + sum w dt), the bitangent sign kept */
        uvec2 tb = tangent_rest[SINEW_BULGE_INDEX(src)];
        if (dt != vec3(0.0)) tb.x = oct_encode_round(oct_decode(tb.x) + dt);
        tangent_rest[SINEW_BULGE_INDEX(dst)] = tb;
    }
}

void main()
{
    if (MODE == SINEW_MORPH_MODE_LISTS) {
        /* one invocation per list record (base slot, copy slot, first and end of its entry
         * list in uvec2; item) */
        uint g = (gl_WorkGroupID.y * pc.words[SINEW_MORPH_PUSH_ROWS] + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                 gl_LocalInvocationID.x;
        if (g >= pc.words[SINEW_MORPH_PUSH_ITEMS]) return;
        uvec4 rec = list_records[g];
        /* the item's record only for tangents and bulge (src and dst are in rec) */
        uvec4 ia = uvec4(0u, 0u, rec.x, rec.y), ib = uvec4(0u, 0u, SINEW_MORPH_ENTRY_SLOTS, 0u);
        if (EXTRAS != 0u) ib.zw = items[SINEW_MORPH_ITEM_SLOTS * list_u[pc.words[SINEW_MORPH_PUSH_LIST_ITEMS] + g] + 1u].zw;
        bool tangents = EXTRAS != 0u && ib.z == SINEW_MORPH_ENTRY_SLOTS_TANGENT;
        vec3 dp = vec3(0.0), dn = vec3(0.0), dt = vec3(0.0);
        /* the touched deltas of non-zero weight only, contiguous: (dp, w), (dn, 0)[, (dt, 0)] */
        for (uint e = rec.z; e < rec.w; e += ib.z) {
            uvec4 e0 = list_records[e];
            float w = uintBitsToFloat(e0.w);
            dp += w * uintBitsToFloat(e0.xyz);
            dn += w * uintBitsToFloat(list_records[e + 1u].xyz);
            if (tangents) dt += w * uintBitsToFloat(list_records[e + 2u].xyz);
        }
        write_vertex(ia, ib, 0u, dp, dn, dt);
        return;
    }
    uint idx = gl_WorkGroupID.z * pc.words[SINEW_MORPH_PUSH_ROWS] + gl_WorkGroupID.y;
    if (idx >= pc.words[SINEW_MORPH_PUSH_ITEMS]) return;
    uint k = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    bool sparse_mode = MODE == SINEW_MORPH_MODE_ACTIVE;
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
    vec3 dp = vec3(0.0), dn = vec3(0.0), dt = vec3(0.0);
    bool tangents = EXTRAS != 0u && ib.z == SINEW_MORPH_ENTRY_SLOTS_TANGENT;
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
        if (w == 0.0) continue; /* untouched (+0.0) or touched zero (-0.0): adds nothing */
        uvec4 e1 = mdata[e + 1u];
        dp += w * uintBitsToFloat(e0.yzw);
        dn += w * uintBitsToFloat(e1.xyz);
        if (tangents) dt += w * uintBitsToFloat(mdata[e + 2u].xyz);
    }
    write_vertex(ia, ib, row[SINEW_MORPH_ROW_VERTEX], dp, dn, dt);
}
