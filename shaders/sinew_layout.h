/* GPU layout constants shared by the C side (engine/src) and the GLSL kernels:
 * binding numbers, workgroup sizes, specialization constant ids, push-constant
 * and struct sizes. Only #defines, so both languages can include it. */
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

/* Kernel methods (same values as sinew_method). */
#define SINEW_K_LBS 0
#define SINEW_K_DQS 1
#define SINEW_K_DQS_SCALE 2
#define SINEW_K_DQS_SCALE_LOCAL 3
#define SINEW_K_DQS_SCALE_MIXED 4
#define SINEW_K_FLAG_BULGE 1

/* Struct sizes in bytes. */
#define SINEW_REST_VERTEX_BYTES 32
#define SINEW_BULGE_BYTES 4
#define SINEW_INSTANCE_BYTES 32     /* 8 uint: rest_first, vertex_count, palette_offset,
                                       output_offset, joint_count, method, flags, stride */
#define SINEW_WORK_BYTES 8          /* uvec2: instance index, first vertex in the instance */
#define SINEW_OUT_FLOAT_BYTES 24
#define SINEW_OUT_PACKED_BYTES 16
#define SINEW_PUSH_BYTES 16         /* uint work_count, grid_x, pad, pad */
#define SINEW_COPY_PUSH_BYTES 8     /* uint count (uvec4), grid_x */

#endif
