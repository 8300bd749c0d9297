#version 450
/* Sinew skinning kernel, one pipeline per variant: the method, bulge
 * correction, influence count, output format, read path and workgroup size
 * are specialization constants, so each pipeline holds only its own
 * straight-line code (llvmpipe runs both sides of every branch).
 * Implements exactly the rules of reference.h (README, "Methods"): LBS, DQS,
 * DQS with scale (LBS of S, then DQS of R), CoR (with scale), bulge correction
 * (positions and the corrected surface's normals, bulge.glsl); float32.
 * Weights reaching the GPU sum to 65535 (checked at add_mesh), so there is no
 * zero-weight-sum branch; zero weights are blended like others (w = 0 adds 0).
 *
 * Where a workgroup's vertices come from:
 *   grid mode:  every instance of the dispatch uses one mesh, palettes and
 *               outputs evenly spaced: workgroup (x, y, z) = vertex group x of
 *               instance z * ROWS + y, everything else from push constants;
 *   record mode: one SINEW_GROUP_* uvec4 per workgroup (any mix of meshes). */
#include "sinew_layout.h"
#include "common.glsl"
layout(local_size_x_id = SINEW_SPEC_WG_SIZE) in;

layout(constant_id = SINEW_SPEC_OUTPUT_PACKED) const bool OUTPUT_PACKED = false;
layout(constant_id = SINEW_SPEC_READ_TEXEL) const bool READ_TEXEL = false;
layout(constant_id = SINEW_SPEC_METHOD) const uint METHOD = SINEW_KK_LBS;
layout(constant_id = SINEW_SPEC_BULGE) const bool BULGE = false;
layout(constant_id = SINEW_SPEC_BULGE_INNER) const bool BULGE_INNER = false;
layout(constant_id = SINEW_SPEC_INFLUENCES) const uint INFLUENCES = 4u;
layout(constant_id = SINEW_SPEC_GRID) const bool GRID = true;
layout(constant_id = SINEW_SPEC_PREVIOUS) const uint PREVIOUS = SINEW_PREV_NONE;
layout(constant_id = SINEW_SPEC_TANGENTS) const bool TANGENTS = false;
layout(constant_id = SINEW_SPEC_COMPACT) const bool COMPACT = false;   /* 4 influences only */

const uint REST_SLOTS = INFLUENCES / 4u + 1u;               /* SINEW_REST_SLOTS */
const bool DQ_ONLY = METHOD == SINEW_KK_DQS || METHOD == SINEW_KK_COR; /* palette: real, dual */
const uint STRIDE = SINEW_PAL_PAD((METHOD == SINEW_KK_LBS ? SINEW_PAL_SLOTS_LBS
                                   : DQ_ONLY ? SINEW_PAL_SLOTS_DQS : SINEW_PAL_SLOTS_DQS_SCALE)
                                  + (BULGE ? SINEW_PAL_SLOTS_BULGE : 0u));
const uint OFF_DQ = DQ_ONLY ? 0u : SINEW_PAL_AFFINE_ROWS;
const uint OFF_BULGE = METHOD == SINEW_KK_LBS ? SINEW_PAL_SLOTS_LBS
                       : DQ_ONLY ? SINEW_PAL_SLOTS_DQS : SINEW_PAL_SLOTS_DQS_SCALE;

layout(std430, set = 0, binding = SINEW_BIND_REST) readonly buffer RestBuf { uvec4 rest[]; };
layout(std430, set = 0, binding = SINEW_BIND_BULGE) readonly buffer BulgeBuf { float bulge_rest[]; };
layout(std430, set = 0, binding = SINEW_BIND_PALETTE) readonly buffer PalBuf { vec4 palette[]; };
layout(std430, set = 0, binding = SINEW_BIND_WORK) readonly buffer GroupBuf { uvec4 groups[]; };
layout(std430, set = 0, binding = SINEW_BIND_OUTPUT) buffer OutBuf { uvec2 out2[]; };
layout(std430, set = 0, binding = SINEW_BIND_PREVIOUS) writeonly buffer PrevBuf { vec4 prev[]; };
layout(std430, set = 0, binding = SINEW_BIND_TANGENT_REST) readonly buffer TanRestBuf { uvec2 tan_rest[]; };
layout(std430, set = 0, binding = SINEW_BIND_TANGENT_OUT) writeonly buffer TanOutBuf { uvec4 tan_out[]; };
layout(std430, set = 0, binding = SINEW_BIND_COR) readonly buffer CorBuf { vec4 cor_center[]; };
layout(set = 0, binding = SINEW_BIND_REST_TEXEL) uniform usamplerBuffer rest_tex;
layout(set = 0, binding = SINEW_BIND_PALETTE_TEXEL) uniform samplerBuffer pal_tex;
layout(set = 0, binding = SINEW_BIND_BULGE_TEXEL) uniform samplerBuffer bulge_tex;
layout(set = 0, binding = SINEW_BIND_TANGENT_REST_TEXEL) uniform usamplerBuffer tan_rest_tex;
layout(set = 0, binding = SINEW_BIND_COR_TEXEL) uniform samplerBuffer cor_tex;
layout(set = 0, binding = SINEW_BIND_OUTPUT_TEXEL) uniform usamplerBuffer out_tex;
layout(set = 0, binding = SINEW_BIND_WORK_TEXEL) uniform usamplerBuffer group_tex;

layout(push_constant) uniform Push { uint words[SINEW_PUSH_WORDS]; } pc;

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

/* Bulge rest distance, rest tangent and center of rotation of the vertex at bulge index i: texel
 * reads on the texel path (a storage load is a per-lane loop on llvmpipe). */
float load_bulge(uint i)
{
    if (READ_TEXEL) return texelFetch(bulge_tex, int(i)).x;
    return bulge_rest[i];
}

uvec2 load_tan_rest(uint i)
{
    if (READ_TEXEL) return texelFetch(tan_rest_tex, int(i)).xy;
    return tan_rest[i];
}

vec3 load_cor(uint i)
{
    if (READ_TEXEL) return texelFetch(cor_tex, int(i)).xyz;
    return cor_center[i].xyz;
}

#include "bulge.glsl"

/* The LBS stage: the influences' blended 3x4 skin rows r0..r2 applied to p, the
 * normal through the cofactor (sign of det), g (BULGE) as a gradient and the
 * tangent (TANGENTS) as a direction, its sign flipped with det < 0. */
void blend_rows(uint pbase, uint js[8], float wf[8], out vec4 r0, out vec4 r1, out vec4 r2)
{
    r0 = vec4(0.0); r1 = vec4(0.0); r2 = vec4(0.0);
    for (uint k = 0u; k < INFLUENCES; k++) {
        uint s = pbase + js[k] * STRIDE + SINEW_PAL_OFF_AFFINE;
        r0 += wf[k] * load_pal(s);
        r1 += wf[k] * load_pal(s + 1u);
        r2 += wf[k] * load_pal(s + 2u);
    }
}

void lbs_apply(vec4 r0, vec4 r1, vec4 r2, inout vec3 p, inout vec3 n, inout vec3 gb, inout vec3 tg, inout float tsign)
{
    p = affine_point(r0, r1, r2, p);
    float det;
    vec3 cn = cofactor_mul(r0, r1, r2, n, det);
    n = safe_normalize(det < 0.0 ? -cn : cn);
    if (BULGE) gb = bulge_cofactor(r0, r1, r2, gb);
    if (TANGENTS) {
        tg = safe_normalize(vec3(dot(r0.xyz, tg), dot(r1.xyz, tg), dot(r2.xyz, tg)));
        tsign = det < 0.0 ? -tsign : tsign;
    }
}

void main()
{
    uint lid = gl_LocalInvocationID.x;
    /* slot: the vertex's first rest slot (COMPACT: the mesh's header slot; vidx: the
     * vertex's index in the mesh) */
    uint slot, o, pbase, jmax, vidx = 0u;
    if (GRID) {
        uint inst = gl_WorkGroupID.z * pc.words[SINEW_PG_ROWS] + gl_WorkGroupID.y;
        uint local = gl_WorkGroupID.x * gl_WorkGroupSize.x + lid;
        if (inst >= pc.words[SINEW_PG_INSTANCES] || local >= pc.words[SINEW_PG_VERTEX_COUNT]) return;
        slot = COMPACT ? pc.words[SINEW_PG_REST_FIRST] : pc.words[SINEW_PG_REST_FIRST] + REST_SLOTS * local;
        vidx = local;
        pbase = pc.words[SINEW_PG_PALETTE_BASE] + inst * pc.words[SINEW_PG_PALETTE_STEP];
        o = pc.words[SINEW_PG_OUTPUT_BASE] + inst * pc.words[SINEW_PG_OUTPUT_STEP] + local;
        jmax = pc.words[SINEW_PG_JOINT_MAX];
    } else {
        uint wg = gl_WorkGroupID.y * pc.words[SINEW_PR_GRID_X] + gl_WorkGroupID.x;
        if (wg >= pc.words[SINEW_PR_GROUP_COUNT]) return;
        uint gi = pc.words[SINEW_PR_GROUP_BASE] + wg;
        uvec4 g = READ_TEXEL ? texelFetch(group_tex, int(gi)) : groups[gi];
        uint cw = g[SINEW_GROUP_COUNT_JMAX];
        if (COMPACT) {
            if (lid > (cw & 0xffu)) return;
            slot = g[SINEW_GROUP_REST];
            vidx = (cw >> 16) * gl_WorkGroupSize.x + lid;
            jmax = (cw >> 8) & 0xffu;
        } else {
            if (lid >= (cw & 0xffffu)) return;
            slot = g[SINEW_GROUP_REST] + REST_SLOTS * lid;
            jmax = cw >> 16;
        }
        o = g[SINEW_GROUP_OUTPUT] + lid;
        pbase = g[SINEW_GROUP_PALETTE];
    }

    vec3 p, n;
    uint jw[8], ww[4];
    uint js[8];
    float wf[8];
    uint aux = SINEW_BULGE_INDEX(slot);   /* where the vertex's bulge distance, tangent and center are */
    if (COMPACT) {
        /* Compact layout (sinew_layout.h): the box from the mesh's header, 16-bit
         * positions, 12-bit octahedral normal, 8-bit joints and weights (sum 255),
         * straight into js / wf (w / 255 = 257 w / 65535: the decoded vertex's weights). */
        uvec4 h0, h1;
        if (GRID) {
            h0 = uvec4(pc.words[SINEW_PG_BOX_OFFSET], pc.words[SINEW_PG_BOX_OFFSET + 1], pc.words[SINEW_PG_BOX_OFFSET + 2],
                       pc.words[SINEW_PG_AUX_BASE]);
            h1 = uvec4(pc.words[SINEW_PG_BOX_STEP], pc.words[SINEW_PG_BOX_STEP + 1], pc.words[SINEW_PG_BOX_STEP + 2], 0u);
        } else {
            h0 = load_rest(slot);
            h1 = load_rest(slot + 1u);
        }
        uvec4 c = load_rest(slot + SINEW_COMPACT_HEADER_SLOTS + vidx);
        aux = h0.w + vidx;
        p = uintBitsToFloat(h0.xyz) + vec3(uvec3(c.x & 0xffffu, c.x >> 16, c.y & 0xffffu)) * uintBitsToFloat(h1.xyz);
        uint ox = (c.w << 4) & 0xfff0u, oy = (c.w >> 8) & 0xfff0u;   /* 16 x the 12-bit fields */
        n = oct_decode(ox | (oy << 16));
        uint w0 = (c.y >> 16) & 0xffu, w1 = c.y >> 24, w2 = c.w >> 24;
        js[0] = min(c.z & 0xffu, jmax);
        js[1] = min((c.z >> 8) & 0xffu, jmax);
        js[2] = min((c.z >> 16) & 0xffu, jmax);
        js[3] = min(c.z >> 24, jmax);
        wf[0] = float(w0) * (1.0 / 255.0);
        wf[1] = float(w1) * (1.0 / 255.0);
        wf[2] = float(w2) * (1.0 / 255.0);
        wf[3] = float(255u - w0 - w1 - w2) * (1.0 / 255.0);
    } else {
        uvec4 a = load_rest(slot);
        uvec4 b = load_rest(slot + 1u);
        p = uintBitsToFloat(a.xyz);
        n = oct_decode(a.w);
        /* Joints (clamped: validated at add_mesh, a last net) and weights. */
        if (INFLUENCES == 8u) {
            uvec4 c = load_rest(slot + 2u);
            jw[0] = b.x; jw[1] = b.y; jw[2] = b.z; jw[3] = b.w;
            ww[0] = c.x; ww[1] = c.y; ww[2] = c.z; ww[3] = c.w;
        } else {
            jw[0] = b.x; jw[1] = b.y; jw[2] = 0u; jw[3] = 0u;
            ww[0] = b.z; ww[1] = b.w; ww[2] = 0u; ww[3] = 0u;
        }
    }
    /* Tangent frame (TANGENTS): skinned like a direction by the blended matrix
     * (not its cofactor), the sign flipped with det < 0, then rotated (reference.h). */
    vec3 tg = vec3(0.0);
    float tsign = 1.0;
    if (TANGENTS) {
        uvec2 tw = load_tan_rest(aux);
        tg = oct_decode(tw.x);
        tsign = uintBitsToFloat(tw.y);
    }

    for (uint k = 0u; !COMPACT && k < INFLUENCES; k++) {
        uint h = (k & 1u) * 16u;
        js[k] = min((jw[k >> 1] >> h) & 0xffffu, jmax);
        wf[k] = float((ww[k >> 1] >> h) & 0xffffu) * (1.0 / 65535.0);
    }

    const bool COR = METHOD == SINEW_KK_COR || METHOD == SINEW_KK_COR_SCALE;
    /* BULGE: g, the gradient of the rest distance, carried below as the normals are (bulge.glsl). */
    vec3 gb = vec3(0.0), sa = vec3(0.0), sb = vec3(0.0);
    float sig = 1.0;   /* the major joint's scale along g (bulge.glsl); 1 for DQS and CoR */
    float gil = 1.0;   /* plain DQS and CoR: g is the unnormalized rest offset, gil its inverse length */
    if (BULGE && DQ_ONLY) {
        gb = bulge_rest_offset(pbase + js[0] * STRIDE + OFF_BULGE, p, sa, sb, gil);
    } else if (BULGE) {
        vec3 u0;
        float a0;
        gb = bulge_rest_radial(pbase + js[0] * STRIDE + OFF_BULGE, p, sa, sb, u0, a0);
        uint s0 = pbase + js[0] * STRIDE + SINEW_PAL_OFF_AFFINE;
        if (METHOD == SINEW_KK_LBS)
            sig = bulge_scale(load_pal(s0).xyz, load_pal(s0 + 1u).xyz, load_pal(s0 + 2u).xyz, u0, a0, gb);
        if (METHOD == SINEW_KK_DQS_SCALE || METHOD == SINEW_KK_COR_SCALE) {   /* S symmetric: the rows the stage reads */
            vec4 m0 = load_pal(s0), m1 = load_pal(s0 + 1u);
            float m22 = load_pal(s0 + 2u).z;
            sig = bulge_scale(m0.xyz, vec3(m0.y, m1.yz), vec3(m0.z, m1.z, m22), u0, a0, gb);
        }
    }
    if (METHOD == SINEW_KK_LBS) {
        /* LBS: blended 3x4 rows; normal through the cofactor, sign of det. */
        vec4 r0, r1, r2;
        blend_rows(pbase, js, wf, r0, r1, r2);
        lbs_apply(r0, r1, r2, p, n, gb, tg, tsign);
    }
    const bool SCALE = METHOD == SINEW_KK_DQS_SCALE || METHOD == SINEW_KK_COR_SCALE;
    vec3 c = vec3(0.0);   /* COR: the vertex's center of rotation */
    if (COR) c = load_cor(aux);
    if (SCALE) {
        /* Stage 1 of the scale methods: S_j = [P_j | t_j] with P_j symmetric
         * (the polar factor; the packers write it symmetric), so only its
         * upper triangle is read and blended (row 2: P22, t.z). The normal
         * goes through the cofactor of the blended P, which for a symmetric
         * matrix is its adjugate (symmetric too: 6 entries), sign of det; it
         * is normalized once, after the rotation of stage 2 (which keeps
         * lengths), as is the tangent (P t). CoR with scale moves its center
         * c by the blended S too. */
        vec4 r0 = vec4(0.0), r1 = vec4(0.0);
        vec2 r2 = vec2(0.0);
        for (uint k = 0u; k < INFLUENCES; k++) {
            uint s = pbase + js[k] * STRIDE + SINEW_PAL_OFF_AFFINE;
            r0 += wf[k] * load_pal(s);
            r1 += wf[k] * load_pal(s + 1u);
            r2 += wf[k] * load_pal(s + 2u).zw;
        }
        float a = r0.x, b = r0.y, c2 = r0.z, d = r1.y, e = r1.z, f = r2.x;
        p = vec3(a * p.x + b * p.y + c2 * p.z + r0.w, b * p.x + d * p.y + e * p.z + r1.w,
                 c2 * p.x + e * p.y + f * p.z + r2.y);
        if (COR)
            c = vec3(a * c.x + b * c.y + c2 * c.z + r0.w, b * c.x + d * c.y + e * c.z + r1.w,
                     c2 * c.x + e * c.y + f * c.z + r2.y);
        float A00 = d * f - e * e, A01 = c2 * e - b * f, A02 = b * e - c2 * d;
        float A11 = a * f - c2 * c2, A12 = b * c2 - a * e, A22 = a * d - b * b;
        float det = a * A00 + b * A01 + c2 * A02;
        float sg = det < 0.0 ? -1.0 : 1.0;
        n = sg * vec3(A00 * n.x + A01 * n.y + A02 * n.z, A01 * n.x + A11 * n.y + A12 * n.z,
                      A02 * n.x + A12 * n.y + A22 * n.z);
        if (BULGE)   /* P^-T g = adj(P) g / det (P symmetric) */
            gb = abs(det) > 0.0 ? vec3(A00 * gb.x + A01 * gb.y + A02 * gb.z, A01 * gb.x + A11 * gb.y + A12 * gb.z,
                                       A02 * gb.x + A12 * gb.y + A22 * gb.z) / det : vec3(0.0);
        if (TANGENTS) {
            tg = vec3(a * tg.x + b * tg.y + c2 * tg.z, b * tg.x + d * tg.y + e * tg.z, c2 * tg.x + e * tg.y + f * tg.z);
            tsign *= sg;
        }
    }
    if (METHOD != SINEW_KK_LBS && !COR) {
        /* DQS (plain, or stage 2 of the scale methods); signs aligned with the major joint. */
        vec4 real0 = load_pal(pbase + js[0] * STRIDE + OFF_DQ);
        vec4 br = wf[0] * real0, bd = wf[0] * load_pal(pbase + js[0] * STRIDE + OFF_DQ + 1u);
        for (uint k = 1u; k < INFLUENCES; k++) {
            uint s = pbase + js[k] * STRIDE + OFF_DQ;
            vec4 rk = load_pal(s);
            float wk = dot(rk, real0) < 0.0 ? -wf[k] : wf[k];
            br += wk * rk;
            bd += wk * load_pal(s + 1u);
        }
        float il = 1.0 / sqrt(dot(br, br));
        br *= il;
        bd *= il;
        p = dq_transform(br, bd, p);
        /* A unit normal turned by a unit quaternion; normalized against rounding, except with
         * plain DQS's bulge, which normalizes the normals it corrects (the others stay unit to
         * within 3e-7: oct_decode's unit vector turned by br, unit to float32 rounding). */
        n = quat_rotate(br, n);
        if (!(BULGE && DQ_ONLY)) n = safe_normalize(n);
        if (BULGE) gb = bulge_rotate(br, gb);
        if (TANGENTS) tg = safe_normalize(quat_rotate(br, tg));
    }
    if (COR) {
        /* Optimized centers of rotation (reference.h, steps 5 and 6): the blended rotation
         * (quaternions sign-aligned with the major joint's) about the vertex's center c,
         * which moves by LBS: p' = rot(p - c) + c'. COR_SCALE first ran the scale stage
         * (LBS of the S_j, above) on p, n and c; c then moves by the rigid R_j (dual quaternions). */
        vec4 real0 = load_pal(pbase + js[0] * STRIDE + OFF_DQ);
        vec4 br = vec4(0.0);
        vec3 cm = vec3(0.0);
        /* c' = sum_k w_k T_k c with each rigid T_k applied as its dual quaternion
         * (2 palette reads per influence instead of 3 rows + 1) */
        for (uint k = 0u; k < INFLUENCES; k++) {
            uint s = pbase + js[k] * STRIDE + OFF_DQ;
            vec4 rk = load_pal(s), dk = load_pal(s + 1u);
            cm += wf[k] * dq_transform(rk, dk, c);
            br += (dot(rk, real0) < 0.0 ? -wf[k] : wf[k]) * rk;
        }
        br *= 1.0 / sqrt(dot(br, br));
        vec3 d = p - c;
        p = quat_rotate(br, d) + cm;
        n = quat_rotate(br, n);
        if (!(BULGE && DQ_ONLY)) n = safe_normalize(n);   /* as in DQS above */
        if (BULGE) gb = bulge_rotate(br, gb);
        if (TANGENTS) tg = safe_normalize(quat_rotate(br, tg));
    }
    if (BULGE) bulge_correct(sa, sb, load_bulge(aux), sig, gb, gil, BULGE_INNER, DQ_ONLY, p, n);

    /* Previous-frame position: what this vertex's output held before this
     * dispatch (read before the store below; outputs of a frame are disjoint),
     * or this frame's position after a reset. */
    if (PREVIOUS == SINEW_PREV_KEEP) {
        uint w = OUTPUT_PACKED ? 2u * o : 3u * o;
        uvec2 w01 = READ_TEXEL ? texelFetch(out_tex, int(w)).xy : out2[w];
        uint w2 = READ_TEXEL ? texelFetch(out_tex, int(w + 1u)).x : out2[w + 1u].x;
        prev[o] = vec4(uintBitsToFloat(w01), uintBitsToFloat(w2), 1.0);
    } else if (PREVIOUS == SINEW_PREV_RESET) {
        prev[o] = vec4(p, 1.0);
    }

    /* Tangent: float xyz + sign, or (packed output) one snorm 10:10:10:2 word
     * with w = sign (2-bit snorm: 1 = +1, 3 = -1), 4 words per uvec4. */
    if (TANGENTS) {
        if (OUTPUT_PACKED) tan_out[o >> 2u][o & 3u] = pack_snorm10(tg) | (tsign < 0.0 ? 3u : 1u) << 30;
        else tan_out[o] = floatBitsToUint(vec4(tg, tsign));
    }

    if (OUTPUT_PACKED) {
        out2[2u * o] = floatBitsToUint(p.xy);
        out2[2u * o + 1u] = uvec2(floatBitsToUint(p.z), pack_snorm10(n));
    } else {
        out2[3u * o] = floatBitsToUint(p.xy);
        out2[3u * o + 1u] = uvec2(floatBitsToUint(p.z), floatBitsToUint(n.x));
        out2[3u * o + 2u] = floatBitsToUint(n.yz);
    }
}
