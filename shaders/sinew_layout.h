/* GPU layout constants shared by the C side (engine/src) and the GLSL kernels:
 * binding numbers, workgroup sizes, specialization constant ids, kernel method
 * and flag values, the palette entry layout, the instance record and push
 * constants, struct sizes. The only place these numbers are written. Only
 * #defines, so both languages can include it. */
#ifndef SINEW_LAYOUT_H
#define SINEW_LAYOUT_H

/* Skinning kernel: one work-list entry per workgroup of SINEW_WG_SIZE vertices. */
#define SINEW_WG_SIZE 64
/* Copy kernel (roofline): one uvec4 per invocation. */
#define SINEW_COPY_WG_SIZE 64

/* Descriptor set 0 of the skinning kernel. */
#define SINEW_BIND_REST 0           /* storage: 2 uvec4 per rest vertex (sinew_vertex, 32 B) */
#define SINEW_BIND_BULGE 1          /* storage: float per rest vertex (bulge rest distance) */
#define SINEW_BIND_PALETTE 2        /* storage: vec4 palette slots of the frame's ring slot */
#define SINEW_BIND_INSTANCES 3      /* storage: SinewInstance per character of the frame */
#define SINEW_BIND_WORK 4           /* storage: uvec2 (instance, first vertex) per workgroup */
#define SINEW_BIND_OUTPUT 5         /* storage: output vertices as uint words */
#define SINEW_BIND_REST_TEXEL 6     /* uniform texel buffer RGBA32UI over the rest buffer */
#define SINEW_BIND_PALETTE_TEXEL 7  /* uniform texel buffer RGBA32F over the frame's palette */
#define SINEW_BIND_COUNT 8

/* Copy kernel bindings. */
#define SINEW_COPY_BIND_SRC 0
#define SINEW_COPY_BIND_DST 1

/* Specialization constants of the skinning kernel. */
#define SINEW_SPEC_OUTPUT_PACKED 0  /* bool: 16 B packed output instead of 24 B float */
#define SINEW_SPEC_READ_TEXEL 1     /* bool: read rest vertices and palette through texel buffers */

/* Kernel methods (same values as sinew_method) and flags (same as sinew_skin_flags);
 * the C side checks both with _Static_assert (skinner.c). */
#define SINEW_K_LBS 0u
#define SINEW_K_DQS 1u
#define SINEW_K_DQS_SCALE 2u
#define SINEW_K_DQS_SCALE_LOCAL 3u
#define SINEW_K_DQS_SCALE_MIXED 4u
#define SINEW_K_FLAG_BULGE 1u

/* Palette: vec4 (16-byte) slots per joint entry, by method, and where each part
 * of an entry starts (slot offsets inside the joint's entry):
 *   LBS:         rows 0..2 of the skin matrix            (3 slots)
 *   DQS:         rigid dual quaternion real, dual        (2 slots)
 *   DQS + scale: rows 0..2 of S, then real, dual of R    (5 slots)
 *   + bulge:     segment head, segment tail (xyz, w = 0) (2 slots, after the above) */
#define SINEW_PAL_AFFINE_ROWS 3u         /* vec4 rows of a 3x4 affine matrix */
#define SINEW_PAL_DQ_SLOTS 2u            /* real, dual */
#define SINEW_PAL_SLOTS_LBS SINEW_PAL_AFFINE_ROWS
#define SINEW_PAL_SLOTS_DQS SINEW_PAL_DQ_SLOTS
#define SINEW_PAL_SLOTS_DQS_SCALE (SINEW_PAL_AFFINE_ROWS + SINEW_PAL_DQ_SLOTS)
#define SINEW_PAL_SLOTS_BULGE 2u
#define SINEW_PAL_IS_METHOD(m) ((m) <= SINEW_K_DQS_SCALE_MIXED)
/* Slots of a joint's entry before any bulge slots (m a valid method). */
#define SINEW_PAL_BASE_SLOTS(m) \
    ((m) == SINEW_K_LBS ? SINEW_PAL_SLOTS_LBS : (m) == SINEW_K_DQS ? SINEW_PAL_SLOTS_DQS : SINEW_PAL_SLOTS_DQS_SCALE)
/* Slots per joint for method m and flags f (m a valid method). */
#define SINEW_PAL_STRIDE(m, f) \
    (SINEW_PAL_BASE_SLOTS(m) + (((f) & SINEW_K_FLAG_BULGE) != 0u ? SINEW_PAL_SLOTS_BULGE : 0u))
#define SINEW_PAL_OFF_AFFINE 0u          /* LBS skin rows, or the scale methods' S rows */
/* First slot of the dual quaternion (DQS and the scale methods). */
#define SINEW_PAL_OFF_DQ(m) ((m) == SINEW_K_DQS ? 0u : SINEW_PAL_AFFINE_ROWS)
/* First slot of the bulge segment (head, then tail). */
#define SINEW_PAL_OFF_BULGE(m) SINEW_PAL_BASE_SLOTS(m)

/* Instance record (one per character and mesh in the frame): uint words. */
#define SINEW_INST_REST_FIRST 0      /* first rest vertex of the mesh */
#define SINEW_INST_VERTEX_COUNT 1
#define SINEW_INST_PALETTE_OFFSET 2  /* vec4 slot of joint 0 in the frame's palette */
#define SINEW_INST_OUTPUT_OFFSET 3   /* first output vertex */
#define SINEW_INST_JOINT_COUNT 4
#define SINEW_INST_METHOD 5          /* SINEW_K_* */
#define SINEW_INST_FLAGS 6           /* SINEW_K_FLAG_* */
#define SINEW_INST_STRIDE 7          /* SINEW_PAL_STRIDE(method, flags) */
#define SINEW_INST_WORDS 8

/* Push constants of the skinning kernel: uint words. */
#define SINEW_PUSH_WORK_COUNT 0      /* work-list entries (workgroups) */
#define SINEW_PUSH_GRID_X 1          /* workgroups per dispatch row */
#define SINEW_PUSH_WORDS 4           /* 2 used, padded to 16 bytes */

/* Struct sizes in bytes. */
#define SINEW_REST_VERTEX_BYTES 32
#define SINEW_BULGE_BYTES 4
#define SINEW_INSTANCE_BYTES (SINEW_INST_WORDS * 4)
#define SINEW_WORK_BYTES 8          /* uvec2: instance index, first vertex in the instance */
#define SINEW_OUT_FLOAT_BYTES 24
#define SINEW_OUT_PACKED_BYTES 16
#define SINEW_PUSH_BYTES (SINEW_PUSH_WORDS * 4)
#define SINEW_COPY_PUSH_BYTES 8     /* uint count (uvec4), grid_x */

#endif
