/* Bulge correction (reference.h step 4, README "Bulge correction"), shared by
 * skin.comp and skin_baseline.comp; included after common.glsl and load_pal.
 * float32 versions of reference.c's rest_radial / bulge_normal. */

/* The major joint's bone segments from its bulge slots s, s + 1, s + 2 (sinew_layout.h),
 * which the CPU writes once per joint and frame (sinew_palette_pack, the float32 fast
 * path): the posed segment [pa, pb] (xyz of s, s + 1, for bulge_correct) and the rest
 * segment [ha, ha + ab] (w of s, s + 1, then s + 2: the posed one mapped back by X_m^-1,
 * as reference.c's rest_radial; its coordinates are SINEW_PAL_BULGE_SINGULAR when X_m's
 * 3x3 is singular), with ll = |ab|^2 and the rest position p's segment parameter tr
 * (unclamped; 0 for a point segment). */
void bulge_segments(uint s, vec3 p, out vec3 pa, out vec3 pb, out vec3 ha, out vec3 ab, out float ll, out float tr)
{
    vec4 s0 = load_pal(s), s1 = load_pal(s + 1u), s2 = load_pal(s + 2u);
    pa = s0.xyz;
    pb = s1.xyz;
    ha = vec3(s0.w, s1.w, s2.x);
    ab = s2.yzw - ha;
    ll = dot(ab, ab);
    tr = ll > 0.0 ? dot(p - ha, ab) / ll : 0.0;
}

/* g before skinning, the gradient of the rest distance: the unit vector from the
 * closest point of the major joint's rest segment to the rest position p (0 when X_m is
 * singular). u0: the unit rest bone direction (0 for a point segment), a0: 1 when the
 * rest closest point is strictly inside the segment, else 0 (for bulge_scale). */
vec3 bulge_rest_radial(uint s, vec3 p, out vec3 pa, out vec3 pb, out vec3 u0, out float a0)
{
    vec3 ha, ab;
    float ll, tr;
    bulge_segments(s, p, pa, pb, ha, ab, ll, tr);
    float t = clamp(tr, 0.0, 1.0);
    u0 = ll > 0.0 ? ab / sqrt(ll) : vec3(0.0);
    a0 = tr > 0.0 && tr < 1.0 ? 1.0 : 0.0;
    return ha.x < SINEW_PAL_BULGE_SINGULAR ? safe_normalize(p - (ha + t * ab)) : vec3(0.0);
}

/* The same direction unnormalized, for plain DQS and CoR (whose g only turns and enters
 * the normal through k gs g x n): v = p - closest point (0 when X_m is singular) and
 * il = 1 / |v| (0 below |v| = 1e-18, where the vertex is on its rest segment: d0 is then
 * below 2^-16 max|p| on any model above 1e-13 in size, so the fade gs is 0 there anyway).
 * bulge_correct takes il as its gscale: the same kg g as with the unit g, without
 * safe_normalize's scaling and divisions per vertex. */
vec3 bulge_rest_offset(uint s, vec3 p, out vec3 pa, out vec3 pb, out float il)
{
    vec3 ha, ab;
    float ll, tr;
    bulge_segments(s, p, pa, pb, ha, ab, ll, tr);
    vec3 v = p - (ha + clamp(tr, 0.0, 1.0) * ab);
    float vv = dot(v, v);
    il = ha.x < SINEW_PAL_BULGE_SINGULAR && vv >= 1e-36 ? 1.0 / sqrt(vv) : 0.0;
    return v;
}

/* The major joint's own scale along the rest radial direction g (reference.h step 4):
 * m0, m1, m2 the rows of A_m, the 3x3 that carries its scale (LBS skin rows, the scale
 * methods' S rows); returns sigma = |A_m g| (1 when g = 0) and replaces g by the rest
 * gradient of the target D / d0 = sigma: sigma g + P (A^T A g) / sigma,
 * P = I - a0 u0 u0^T - g g^T (0 for the second term when sigma is 0: then A g = 0). */
float bulge_scale(vec3 m0, vec3 m1, vec3 m2, vec3 u0, float a0, inout vec3 g)
{
    vec3 ag = vec3(dot(m0, g), dot(m1, g), dot(m2, g));
    float sig = sqrt(dot(ag, ag));
    vec3 atag = m0 * ag.x + m1 * ag.y + m2 * ag.z;
    vec3 pr = atag - (a0 * dot(u0, atag)) * u0 - dot(g, atag) * g;
    bool none = g == vec3(0.0);
    g = sig * g + pr * (1.0 / max(sig, 1e-30));
    return none ? 1.0 : sig;
}

/* g through the LBS stage as a gradient: A^-T g = cof(A) g / det(A), 0 if det is 0. */
vec3 bulge_cofactor(vec4 r0, vec4 r1, vec4 r2, vec3 g)
{
    float det;
    vec3 cg = cofactor_mul(r0, r1, r2, g, det);
    return abs(det) > 0.0 ? cg / det : vec3(0.0);
}

/* g through the DQS stage: rotated by the normalized blended rotation br. */
vec3 bulge_rotate(vec4 br, vec3 g)
{
    return quat_rotate(br, g);
}

/* The correction of a skinned (p, n): segment [sa, sb], rest distance d0r and the
 * major joint's scale sig (bulge_scale; 1.0 for DQS and CoR), target d0 = d0r sig, g
 * the skinned gradient of the target (reference.h step 4). If d = dist(p, [sa, sb]) > d0:
 * p = c + (p - c) d0 / d; with inner (SINEW_SKIN_BULGE_INNER), at any d > 0:
 * p = c + (p - c) phi / d, phi = d + (d0 - d) w gs, w = smoothstep of d / d0 over
 * [0, SINEW_BULGE_INNER_RAMP] (1 beyond), gs the fade of g below. The normal n = cof(L) n
 * normalized with L v = f v + a (1 - f)(u.v) u + r (h.v), h = k g_t - (f - e) r,
 * B = f I + a (1 - f) u u^T, computed as e ((f + a') n - a' (u.n) u) + (f - e)(f + a')(r.n) r
 * + k (B (g_t x n)) x r, a' = a (1 - f) (= cof(B) n + (B (h x n)) x r, as r is
 * perpendicular to u wherever a > 0, without that form's cancellation when r.n is
 * small; reference.c bulge_normal):
 *   f = max(d0 / d, 1/8), e = 0, k = 1; inner: f = max(phi / d, 1/8), e = dphi/dd,
 *   k gs = dphi/dd0; g_t = g - (g.n) n, g limited to length 4 and faded out (gs) for
 *   d0r below 2^-12 max|p|; a = 1 inside the segment, 0 beyond its ends, ramped over
 *   an axial distance den = max(d / 16, 2^-12 max|p|) from each end; without inner the
 *   result is blended in from the skinned n as d - d0 grows from 2^-16 max|p| to that
 *   + den (with inner the map's derivative is continuous across d0: no blend).
 * unit_g (compile-time true for plain DQS and CoR, whose g is a rotated unit vector or 0):
 * the length limit is skipped. gscale multiplies g (1, or bulge_rest_offset's il when g
 * is the unnormalized rest offset). */
void bulge_correct(vec3 sa, vec3 sb, float d0r, float sig, vec3 g, float gscale, bool inner, bool unit_g, inout vec3 p,
                   inout vec3 n)
{
    float d0 = d0r * sig;
    vec3 ab = sb - sa;
    float ll = dot(ab, ab);
    float sl = sqrt(ll);
    float tu = ll > 0.0 ? dot(p - sa, ab) / ll : 0.0;
    vec3 c = sa + clamp(tu, 0.0, 1.0) * ab;
    vec3 dv = p - c;
    float d = sqrt(dot(dv, dv));
    vec3 r = dv / d;
    bool act = inner ? d > 0.0 : d > d0;
    vec3 u = ll > 0.0 ? ab / sl : vec3(0.0);
    float ax = max(max(abs(p.x), abs(p.y)), abs(p.z));
    float den = max(d * 0.0625, ax * (1.0 / 4096.0));
    float gs = clamp((d0r - ax * (1.0 / 65536.0)) / (ax * (1.0 / 4096.0)), 0.0, 1.0);
    float x = d / d0;
    bool ramp = inner && x < SINEW_BULGE_INNER_RAMP;
    float tt = ramp ? x * (1.0 / SINEW_BULGE_INNER_RAMP) : 1.0;
    float w = tt * tt * (3.0 - 2.0 * tt), wp = 6.0 * tt * (1.0 - tt) * (1.0 / SINEW_BULGE_INNER_RAMP);
    float fp = inner ? (d + (d0 - d) * w * gs) / d : d0 / d;
    float f = max(fp, 0.125);
    float e = !inner ? 0.0 : ramp ? 1.0 - gs * w + gs * (1.0 - x) * wp : 1.0 - gs;
    float k = ramp ? w - (1.0 - x) * x * wp : 1.0;
    float pf = ll > 0.0 ? clamp(min(tu, 1.0 - tu) * sl / den, 0.0, 1.0) * (1.0 - f) : 0.0;
    /* g limited to length 4 (unit_g: g is a unit vector or 0, plain DQS and CoR: nothing
     * to limit), faded by gs, times k; only g x n is needed: (g - (g.n) n) x n = g x n */
    float gl = unit_g ? 1.0 : sqrt(dot(g, g));
    float kg = k * gs * gscale * (gl > 4.0 ? 4.0 / gl : 1.0);
    vec3 w3 = kg * cross(g, n);
    vec3 m = ((f - e) * (f + pf) * dot(r, n)) * r + cross(f * w3 + (pf * dot(u, w3)) * u, r);
    if (inner) m += (e * (f + pf)) * n - (e * pf * dot(u, n)) * u;   /* e = 0 without inner */
    /* The blend with the skinned n (without inner, bw < 1): normalize(n + bw (m / |m| - n)) is
     * the direction of (1 - bw) |m| n + bw m, so one normalization serves both, by a square root
     * and divisions (inversesqrt is an estimate and a Newton step on llvmpipe: more instructions).
     * |m| or the blend below 1e-18 (squares near float32's smallest normal) keep n, as the
     * reference does below 1e-30. */
    float mm = dot(m, m);
    float bw = inner ? 1.0 : (d - d0 - ax * (1.0 / 65536.0)) / den;
    float b = min(bw, 1.0);
    vec3 q = inner ? m : ((1.0 - b) * sqrt(mm)) * n + b * m;
    float qq = dot(q, q);
    vec3 nb = mm >= 1e-36 && bw > 0.0 && qq >= 1e-36 ? q / sqrt(qq) : n;
    n = act ? nb : n; /* selects, no branch: an early return for inactive vertices measured */
    p = act ? c + dv * fp : p; /* 1 % slower on an H200 and no gain on lavapipe (bench/RESULTS.md) */
}
