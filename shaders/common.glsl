/* GLSL helpers shared by the kernels (skin.comp, skin_baseline.comp,
 * morph.comp; bulge.glsl uses safe_normalize and cofactor_mul): the
 * octahedral normal codec of sinew_oct_encode / sinew_oct_decode (linalg.c),
 * snorm 10:10:10 packing, normalization, quaternion and dual-quaternion
 * transforms, the cofactor of a 3x3. All float32; no bindings. */
#ifndef SINEW_COMMON_GLSL
#define SINEW_COMMON_GLSL

/* The zero normal's octahedral code (sinew_oct_encode of a zero vector, SINEW_OCT_ZERO). */
#define SINEW_OCT_ZERO_CODE 0x80008000u

/* Same steps as sinew_oct_decode (linalg.c), branch-free. */
vec3 oct_decode(uint p)
{
    float fx = clamp(float(int(p << 16) >> 16) / 32767.0, -1.0, 1.0);
    float fy = clamp(float(int(p) >> 16) / 32767.0, -1.0, 1.0);
    float nz = 1.0 - abs(fx) - abs(fy);
    float t = max(-nz, 0.0);
    vec3 n = vec3(fx + (fx >= 0.0 ? -t : t), fy + (fy >= 0.0 ? -t : t), nz);
    n = n / sqrt(dot(n, n));
    return p == SINEW_OCT_ZERO_CODE ? vec3(0.0) : n;
}

/* Same steps as sinew_oct_encode (linalg.c): the best of the four neighbouring
 * grid points by |n x d|. */
uint oct_encode(vec3 n)
{
    float m = max(max(abs(n.x), abs(n.y)), abs(n.z));
    if (!(m >= 1e-30)) return SINEW_OCT_ZERO_CODE;
    n = n / m;
    float l1 = abs(n.x) + abs(n.y) + abs(n.z);
    float px = n.x / l1, py = n.y / l1;
    if (n.z < 0.0) {
        float ox = px, oy = py;
        px = (1.0 - abs(oy)) * (ox >= 0.0 ? 1.0 : -1.0);
        py = (1.0 - abs(ox)) * (oy >= 0.0 ? 1.0 : -1.0);
    }
    vec3 nn = normalize(n);
    float bx = floor(px * 32767.0), by = floor(py * 32767.0);
    uint best = SINEW_OCT_ZERO_CODE;
    float best_err = 3.0e38;
    for (int i = 0; i < 4; i++) {
        int qx = int(clamp(bx + float(i & 1), -32767.0, 32767.0));
        int qy = int(clamp(by + float(i >> 1), -32767.0, 32767.0));
        uint p = (uint(qx) & 0xffffu) | ((uint(qy) & 0xffffu) << 16);
        vec3 d = oct_decode(p);
        vec3 c = cross(d, nn);
        float err = dot(d, nn) > 0.0 ? dot(c, c) : 2.0e38;
        if (err < best_err) { best_err = err; best = p; }
    }
    return best;
}

/* Unit vector as snorm 10:10:10 (x in the low bits; VK_FORMAT_A2B10G10R10_SNORM_PACK32
 * without its 2-bit w). */
uint pack_snorm10(vec3 n)
{
    ivec3 q = ivec3(round(clamp(n, -1.0, 1.0) * 511.0));
    return (uint(q.x) & 1023u) | ((uint(q.y) & 1023u) << 10) | ((uint(q.z) & 1023u) << 20);
}

/* n / |n|, or zero when n is (numerically) zero; scaled first so tiny
 * vectors do not underflow. */
vec3 safe_normalize(vec3 n)
{
    float m = max(max(abs(n.x), abs(n.y)), abs(n.z));
    vec3 s = n / m;
    s = s / sqrt(dot(s, s));
    return m >= 1e-30 ? s : vec3(0.0);
}

/* v rotated by the unit quaternion q (xyz vector part, w scalar). */
vec3 quat_rotate(vec4 q, vec3 v)
{
    return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

/* Point p moved by the unit dual quaternion (real r, dual d): rotated by r, then
 * translated by 2 (r.w d.xyz - d.w r.xyz + r.xyz x d.xyz). */
vec3 dq_transform(vec4 r, vec4 d, vec3 p)
{
    return quat_rotate(r, p) + 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
}

/* The 3x4 affine transform of rows r0..r2 applied to the point p. */
vec3 affine_point(vec4 r0, vec4 r1, vec4 r2, vec3 p)
{
    return vec3(dot(r0.xyz, p) + r0.w, dot(r1.xyz, p) + r1.w, dot(r2.xyz, p) + r2.w);
}

/* cof(A) v for the 3x3 A of rows r0..r2 (xyz), and det(A): how normals and
 * gradients go through A (A^-T v = cof(A) v / det). */
vec3 cofactor_mul(vec4 r0, vec4 r1, vec4 r2, vec3 v, out float det)
{
    vec3 c0 = vec3(r0.x, r1.x, r2.x), c1 = vec3(r0.y, r1.y, r2.y), c2 = vec3(r0.z, r1.z, r2.z);
    vec3 x12 = cross(c1, c2);
    det = dot(c0, x12);
    return x12 * v.x + cross(c2, c0) * v.y + cross(c0, c1) * v.z;
}

#endif
