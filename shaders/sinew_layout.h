/* GPU layout constants shared by the C side (engine/src) and the GLSL kernels:
 * binding numbers, workgroup sizes, specialization constant ids, kernel method
 * and flag values, the palette entry layout, the instance record and push
 * constants, struct sizes. The only place these numbers are written. Only
 * #defines, so both languages can include it. */
#ifndef SINEW_LAYOUT_H
#define SINEW_LAYOUT_H

/* Baseline skinning kernel (skin_baseline.comp, the kernel before variants;
 * kept for sinew-bench): one work-list entry per workgroup of SINEW_WG_SIZE
 * vertices. SINEW_WG_SIZE is also the smallest workgroup of skin.comp. */
#define SINEW_WG_SIZE 64
/* Workgroup sizes skin.comp is built for (specialization constant). */
#define SINEW_WG_SIZE_MAX 256
/* Copy kernel (roofline): one uvec4 per invocation. */
#define SINEW_COPY_WG_SIZE 64

/* Descriptor set 0 of the skinning kernel. */
#define SINEW_BIND_REST 0           /* storage: 2 uvec4 per rest vertex (sinew_vertex, 32 B) */
#define SINEW_BIND_BULGE 1          /* storage: float per rest vertex (bulge rest distance, SINEW_BULGE_INDEX) */
#define SINEW_BIND_PALETTE 2        /* storage: vec4 palette slots of the frame's ring slot */
#define SINEW_BIND_INSTANCES 3      /* storage: SinewInstance per character of the frame */
#define SINEW_BIND_WORK 4           /* storage: skin.comp: SINEW_GROUP_* uvec4 per workgroup of a
                                       dispatch in group-record mode; baseline: uvec2 (instance,
                                       first vertex) per workgroup */
#define SINEW_BIND_OUTPUT 5         /* storage: output vertices as uint words */
#define SINEW_BIND_REST_TEXEL 6     /* uniform texel buffer RGBA32UI over the rest buffer */
#define SINEW_BIND_PALETTE_TEXEL 7  /* uniform texel buffer RGBA32F over the frame's palette */
#define SINEW_BIND_PREVIOUS 8       /* storage: previous-frame positions, vec4 (xyz, w = 1) per output
                                       vertex (sinew_skinner_desc.keep_previous; else a 16 B dummy) */
#define SINEW_BIND_TANGENT_REST 9   /* storage: uvec2 (oct tangent, sign float bits) per rest vertex, at
                                       SINEW_BULGE_INDEX(first rest slot) (desc.tangents; else a dummy) */
#define SINEW_BIND_TANGENT_OUT 10   /* storage: per output vertex, vec4 (tangent xyz, bitangent sign) with float
                                       output, one snorm 10:10:10:2 word (w = sign) with packed output */
#define SINEW_BIND_COR 11          /* storage: vec4 (center of rotation xyz, w = 0) per rest vertex, at
                                       SINEW_BULGE_INDEX(first rest slot) (desc.cor_centers; else a dummy) */
#define SINEW_BIND_BULGE_TEXEL 12    /* uniform texel buffer R32F over the bulge buffer (texel read path) */
#define SINEW_BIND_TANGENT_REST_TEXEL 13 /* uniform texel buffer RG32UI over the rest tangents (texel read path) */
#define SINEW_BIND_COR_TEXEL 14      /* uniform texel buffer RGBA32F over the centers of rotation (texel read path) */
#define SINEW_BIND_OUTPUT_TEXEL 15   /* uniform texel buffer RG32UI over the output (texel read path: the
                                       previous position, read before this dispatch's store) */
#define SINEW_BIND_WORK_TEXEL 16     /* uniform texel buffer RGBA32UI over the frame's group records (texel
                                       read path, record mode) */
#define SINEW_BIND_COUNT 17

/* Copy kernel bindings. */
#define SINEW_COPY_BIND_SRC 0
#define SINEW_COPY_BIND_DST 1
#define SINEW_COPY_BIND_SRC_TEXEL 2  /* uniform texel buffer RGBA32UI over the source */
#define SINEW_COPY_SPEC_READ_TEXEL 0 /* bool: read the source through the texel buffer */

/* Specialization constants of the skinning kernel. */
#define SINEW_SPEC_OUTPUT_PACKED 0  /* bool: 16 B packed output instead of 24 B float */
#define SINEW_SPEC_READ_TEXEL 1     /* bool: read rest vertices and palette through texel buffers */
/* skin.comp only: one pipeline per variant. */
#define SINEW_SPEC_METHOD 2         /* SINEW_KK_*: the kernel's method */
#define SINEW_SPEC_BULGE 3          /* bool: bulge correction */
#define SINEW_SPEC_INFLUENCES 4     /* 4 or 8 influences per rest vertex */
#define SINEW_SPEC_GRID 5           /* bool: character from the workgroup id + push constants
                                       (SINEW_PG_*); false: group records (SINEW_PR_*) */
#define SINEW_SPEC_WG_SIZE 6        /* local_size_x */
#define SINEW_SPEC_PREVIOUS 7       /* SINEW_PREV_*: what the kernel writes to the previous-position buffer */
#define SINEW_SPEC_TANGENTS 8       /* bool: skin the mesh's tangent frames too */
#define SINEW_SPEC_BULGE_INNER 9    /* bool: bulge correction's inner push (with SINEW_SPEC_BULGE) */
#define SINEW_SPEC_COMPACT 10       /* bool: the mesh is in the compact rest layout (SINEW_COMPACT_*) */

/* Previous-frame positions (SINEW_SPEC_PREVIOUS). */
#define SINEW_PREV_NONE 0u          /* nothing (no previous buffer kept) */
#define SINEW_PREV_KEEP 1u          /* previous = the position the output held before this dispatch */
#define SINEW_PREV_RESET 2u         /* previous = this dispatch's position (zero motion) */

/* Kernel kinds of skin.comp (the three DQS-with-scale modes share one palette
 * layout and one kernel). */
#define SINEW_KK_LBS 0u
#define SINEW_KK_DQS 1u
#define SINEW_KK_DQS_SCALE 2u
#define SINEW_KK_COR 3u             /* optimized centers of rotation, rigid palette */
#define SINEW_KK_COR_SCALE 4u       /* scale stage (LBS of S), then CoR with the rigid R */
#define SINEW_KK_COUNT 5u

/* Kernel methods (same values as sinew_method) and flags (same as sinew_skin_flags);
 * the C side checks both with _Static_assert (skinner.c). */
#define SINEW_K_LBS 0u
#define SINEW_K_DQS 1u
#define SINEW_K_DQS_SCALE 2u
#define SINEW_K_DQS_SCALE_LOCAL 3u
#define SINEW_K_DQS_SCALE_MIXED 4u
#define SINEW_K_COR 5u
#define SINEW_K_COR_SCALE 6u
#define SINEW_K_COR_SCALE_LOCAL 7u   /* COR_SCALE's kernel path (SINEW_KK_COR_SCALE) with DQS_SCALE_LOCAL's palette */
#define SINEW_K_COR_SCALE_MIXED 8u   /* ... with DQS_SCALE_MIXED's palette */
#define SINEW_K_FLAG_BULGE 1u
#define SINEW_K_FLAG_BULGE_INNER 2u  /* only with SINEW_K_FLAG_BULGE */
/* The inner push's ramp: full at d >= RAMP d0, smoothstep to 0 at d = 0 (reference.h step 4). */
#define SINEW_BULGE_INNER_RAMP 0.5

/* Palette: vec4 (16-byte) slots per joint entry, by method, and where each part
 * of an entry starts (slot offsets inside the joint's entry):
 *   LBS:         rows 0..2 of the skin matrix            (3 slots)
 *   DQS:         rigid dual quaternion real, dual        (2 slots)
 *   DQS + scale: rows 0..2 of S, then real, dual of R    (5 slots)
 *   CoR:         rigid dual quaternion real, dual        (2 slots, as DQS; the kernel moves
 *                the center by each joint's DQ and blends the real parts as the rotation)
 *   CoR + scale: rows 0..2 of S, then real, dual of R    (5 slots, as DQS + scale)
 *   + bulge:     the posed segment a, b and the same segment in rest space (X_m^-1 of
 *                the posed one) ra, rb, in 3 slots: (a xyz, ra.x), (b xyz, ra.y),
 *                (ra.z, rb xyz); ra = rb = SINEW_PAL_BULGE_SINGULAR in every coordinate
 *                when X_m's 3x3 is singular (the kernels then use g = 0) */
#define SINEW_PAL_AFFINE_ROWS 3u         /* vec4 rows of a 3x4 affine matrix */
#define SINEW_PAL_DQ_SLOTS 2u            /* real, dual */
#define SINEW_PAL_SLOTS_LBS SINEW_PAL_AFFINE_ROWS
#define SINEW_PAL_SLOTS_DQS SINEW_PAL_DQ_SLOTS
#define SINEW_PAL_SLOTS_DQS_SCALE (SINEW_PAL_AFFINE_ROWS + SINEW_PAL_DQ_SLOTS)
#define SINEW_PAL_SLOTS_BULGE 3u
#define SINEW_PAL_IS_METHOD(m) ((m) <= SINEW_K_COR_SCALE_MIXED)
/* Slots of a joint's entry before any bulge slots (m a valid method). */
#define SINEW_PAL_BASE_SLOTS(m) \
    ((m) == SINEW_K_LBS ? SINEW_PAL_SLOTS_LBS                                             \
     : ((m) == SINEW_K_DQS || (m) == SINEW_K_COR) ? SINEW_PAL_SLOTS_DQS : SINEW_PAL_SLOTS_DQS_SCALE)
/* Slots per joint for method m and flags f (m a valid method). A joint's entry of
 * more than 2 slots is padded to an odd count (6 -> 7, 8 -> 9; the pad slot is never
 * read): with an even stride of 2^k slots or a multiple of 2 over 2, the lanes of a
 * warp that read the same slot of different joints land in the same few 16-byte
 * columns of a GPU's L1 banks and serialize. Measured on an NVIDIA H200 (64 random
 * joints, 16.7 M vertices): DQS with scale + bulge 1.46 -> 0.67 ms, LBS + bulge
 * 0.58 -> 0.54 ms. DQS keeps 2 slots (3 would be 4 % faster there, 50 % more palette
 * bytes for the CPU to write). */
#define SINEW_PAL_PAD(x) ((x) > 2u ? ((x) | 1u) : (x))
#define SINEW_PAL_USED_SLOTS(m, f) \
    (SINEW_PAL_BASE_SLOTS(m) + (((f) & SINEW_K_FLAG_BULGE) != 0u ? SINEW_PAL_SLOTS_BULGE : 0u))
#define SINEW_PAL_STRIDE(m, f) SINEW_PAL_PAD(SINEW_PAL_USED_SLOTS(m, f))
/* The largest stride (DQS / CoR with scale and bulge). */
#define SINEW_PAL_MAX_STRIDE SINEW_PAL_STRIDE(SINEW_K_DQS_SCALE, SINEW_K_FLAG_BULGE)
#define SINEW_PAL_OFF_AFFINE 0u          /* LBS skin rows, or the scale methods' S rows */
/* First slot of the dual quaternion (DQS, CoR and the scale methods). */
#define SINEW_PAL_OFF_DQ(m) (((m) == SINEW_K_DQS || (m) == SINEW_K_COR) ? 0u : SINEW_PAL_AFFINE_ROWS)
/* First slot of the bulge part (posed head, posed tail, with the rest segment; see above). */
#define SINEW_PAL_OFF_BULGE(m) SINEW_PAL_BASE_SLOTS(m)
/* Rest-segment coordinates that mark a singular X_m (no legitimate coordinate is this large). */
#define SINEW_PAL_BULGE_SINGULAR 3.0e38

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

/* Rest vertices in the rest buffer: uvec4 slots per vertex by influence count.
 * 4 influences (sinew_vertex, 32 B): (pos xyz, oct normal), (j01, j23, w01, w23).
 * 8 influences (sinew_vertex8, 48 B): (pos xyz, oct normal), (j01, j23, j45, j67),
 * (w01, w23, w45, w67). Joints u16, weights unorm16, low half first. */
#define SINEW_REST_SLOTS(influences) ((influences) / 4u + 1u)

/* Compact rest layout (sinew_vertex_compact, 4 influences, docs/vertex-streams.md): a mesh's
 * range of the rest buffer starts with a 2-slot header, then one uvec4 slot per vertex:
 *   header slot 0: (box offset xyz as float bits, aux base), slot 1: (box step xyz, 0);
 *   vertex: (qx | qy << 16, qz | w0 << 16 | w1 << 24, j0..j3 8-bit, ox | oy << 12 | w2 << 24),
 *   w3 = 255 - w0 - w1 - w2, normal = the 16-bit octahedral code (16 ox, 16 oy).
 * Grid mode reads the box and aux base from push constants (SINEW_PG_BOX_*), group records
 * from the header. The vertex's bulge distance, rest tangent and center sit at index aux base + vertex index
 * (the mesh's range holds 2 n + 1 slots when it has any of them, so the indices
 * SINEW_BULGE_INDEX of its slots cover them; n + 2 otherwise). The grid mode's
 * SINEW_PG_REST_FIRST and a group record's SINEW_GROUP_REST are the header slot; a group
 * record's w is (vertices - 1) | joint count - 1 << 8 | group index in the mesh << 16
 * (vertex index of its first vertex = group index x workgroup size). */
#define SINEW_COMPACT_HEADER_SLOTS 2u
#define SINEW_COMPACT_VERTEX_BYTES 16
/* Most vertices of a compact mesh: 65536 groups of the smallest workgroup. */
#define SINEW_COMPACT_MAX_VERTICES (65536u * SINEW_WG_SIZE)

/* Push constants of the baseline kernel: uint words. */
#define SINEW_PUSH_WORK_COUNT 0      /* work-list entries (workgroups) */
#define SINEW_PUSH_GRID_X 1          /* workgroups per dispatch row */
/* Push constants of skin.comp, grid mode (one dispatch, all its instances share
 * one mesh and have evenly spaced palettes and outputs; workgroup (x, y, z):
 * x = vertex group, instance = z * ROWS + y). */
#define SINEW_PG_REST_FIRST 0        /* first uvec4 slot of the mesh in the rest buffer */
#define SINEW_PG_VERTEX_COUNT 1
#define SINEW_PG_PALETTE_BASE 2      /* vec4 slot of instance 0's joint 0 */
#define SINEW_PG_PALETTE_STEP 3      /* vec4 slots between consecutive instances */
#define SINEW_PG_OUTPUT_BASE 4       /* first output vertex of instance 0 */
#define SINEW_PG_OUTPUT_STEP 5       /* output vertices between consecutive instances */
#define SINEW_PG_JOINT_MAX 6         /* joint count - 1 (clamp, a last net) */
#define SINEW_PG_INSTANCES 7         /* instances in the dispatch */
#define SINEW_PG_ROWS 8              /* instances per z slice */
/* compact meshes (SINEW_SPEC_COMPACT) in grid mode: the header's box and aux base, so the
 * kernel reads only the vertex's slot */
#define SINEW_PG_BOX_OFFSET 9        /* 3 words: box offset xyz (float bits) */
#define SINEW_PG_BOX_STEP 12         /* 3 words: box step xyz (float bits) */
#define SINEW_PG_AUX_BASE 15         /* aux base (bulge, tangent and center index of vertex 0) */
/* Push constants of skin.comp, group-record mode. */
#define SINEW_PR_GROUP_BASE 0        /* first group record of the dispatch */
#define SINEW_PR_GROUP_COUNT 1       /* group records (workgroups) of the dispatch */
#define SINEW_PR_GRID_X 2            /* workgroups per dispatch row */
#define SINEW_PUSH_WORDS 16          /* the larger of the layouts, padded to 16 bytes */

/* Group record (skin.comp, group-record mode): uvec4 per workgroup. */
#define SINEW_GROUP_REST 0           /* x: rest uvec4 slot of the group's first vertex */
#define SINEW_GROUP_OUTPUT 1         /* y: output vertex of the group's first vertex */
#define SINEW_GROUP_PALETTE 2        /* z: vec4 slot of the instance's joint 0 */
#define SINEW_GROUP_COUNT_JMAX 3     /* w: vertices in the group (low 16 bits), joint count - 1 (high 16) */
/* Bulge rest distance of a vertex: at index (first rest slot of the vertex) / 2, which is
 * one-to-one because vertices are at least 2 slots apart (4-influence meshes: contiguous). */
#define SINEW_BULGE_INDEX(slot) ((slot) >> 1)

/* Struct sizes in bytes. */
#define SINEW_REST_VERTEX_BYTES 32
#define SINEW_BULGE_BYTES 4
#define SINEW_INSTANCE_BYTES (SINEW_INST_WORDS * 4)
#define SINEW_WORK_BYTES 8          /* baseline: uvec2 instance index, first vertex in the instance */
#define SINEW_GROUP_BYTES 16        /* skin.comp: SINEW_GROUP_* uvec4 */
#define SINEW_REST_VERTEX8_BYTES 48
#define SINEW_OUT_FLOAT_BYTES 24
#define SINEW_OUT_PACKED_BYTES 16
#define SINEW_PREV_BYTES 16         /* previous position: xyz float32, w = 1 */
#define SINEW_TANGENT_REST_BYTES 8  /* sinew_tangent */
#define SINEW_TANGENT_OUT_BYTES 16  /* tangent xyz float32, w = bitangent sign */
#define SINEW_COR_BYTES 16          /* center of rotation: xyz float32, w = 0 */
#define SINEW_TANGENT_OUT_PACKED_BYTES 4 /* packed output: tangent snorm 10:10:10, w = sign as 2-bit snorm */
#define SINEW_PUSH_BYTES (SINEW_PUSH_WORDS * 4)
#define SINEW_COPY_PUSH_BYTES 8     /* uint count (uvec4), grid_x */

#endif
