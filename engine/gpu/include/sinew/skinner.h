/* Sinew GPU skinner: rest meshes uploaded once, the palettes of many
 * characters in one storage buffer, one compute dispatch that skins every
 * character (any mix of meshes and methods), output positions + normals in one
 * buffer that is both a storage and a vertex buffer.
 *
 * Calls that submit to the gpu's queue and wait for it: sinew_skinner_add_mesh
 * (upload), sinew_skinner_read_output, sinew_skinner_wait, sinew_skinner_gpu_time
 * (waits for the skinner's own last submission), sinew_skinner_destroy.
 * sinew_skinner_submit submits without waiting; sinew_skinner_begin_frame waits
 * (bounded, see sinew_skinner_end_frame) for the fence of the frame that last
 * used its ring slot. record / end_frame / set_instances neither submit nor wait.
 * A skinner is used by one thread at a time; different skinners on one gpu may
 * be used from different threads (the gpu's queue lock, sinew/gpu.h). */
#ifndef SINEW_SKINNER_H
#define SINEW_SKINNER_H

#include <sinew/gpu.h>
#include <sinew/rest_mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_skinner sinew_skinner;

/* A rest mesh uploaded to a skinner (sinew_skinner_add_mesh). */
typedef struct sinew_mesh_id { uint32_t value; } sinew_mesh_id;

/* Output vertex formats. */
typedef enum sinew_output_format {
    SINEW_OUTPUT_FLOAT = 0,  /* 24 B: position xyz, normal xyz, float32 */
    SINEW_OUTPUT_PACKED = 1  /* 16 B: position xyz float32, normal snorm 10:10:10:2
                                (VK_FORMAT_A2B10G10R10_SNORM_PACK32 layout, x in the low bits) */
} sinew_output_format;

/* How the kernel reads rest vertices and palettes. Both paths give the same
 * results; AUTO picks the one measured faster for the device type (texel
 * buffers on CPU devices such as lavapipe, storage buffers elsewhere). */
typedef enum sinew_read_path {
    SINEW_READ_AUTO = 0,
    SINEW_READ_STORAGE = 1,  /* storage buffers */
    SINEW_READ_TEXEL = 2     /* uniform texel buffers (RGBA32UI / RGBA32F) */
} sinew_read_path;

/* Largest frames_in_flight. */
#define SINEW_MAX_FRAMES_IN_FLIGHT 8u
/* Defaults of sinew_skinner_desc (used for a zero field). */
#define SINEW_SKINNER_DEFAULT_MAX_REST_VERTICES (1u << 20)
#define SINEW_SKINNER_DEFAULT_MAX_MESHES 64u
#define SINEW_SKINNER_DEFAULT_MAX_INSTANCES 1024u
#define SINEW_SKINNER_DEFAULT_MAX_OUTPUT_VERTICES (1u << 22)
#define SINEW_SKINNER_DEFAULT_MAX_PALETTE_VEC4 (1u << 20)
#define SINEW_SKINNER_DEFAULT_FRAMES_IN_FLIGHT 2u
/* How long begin_frame / wait / destroy wait for a caller's fence before
 * giving up with SINEW_ERROR_TIMEOUT [sinew_skinner_desc.fence_timeout_ns]. */
#define SINEW_SKINNER_DEFAULT_FENCE_TIMEOUT_NS 5000000000ull

/* A range of a VkBuffer the host owns (sinew_skinner_desc.output_buffer, ...). */
typedef struct sinew_buffer_range {
    VkBuffer buffer;                /* VK_NULL_HANDLE: Sinew allocates the buffer itself */
    VkDeviceSize offset;            /* a multiple of 16 and of minStorageBufferOffsetAlignment
                                       (output with keep_previous: and of minTexelBufferOffsetAlignment) */
    VkDeviceSize size;              /* at least max_output_vertices x the stride (CAPACITY otherwise) */
} sinew_buffer_range;

/* Capacities fixed at creation; zero means the default (SINEW_SKINNER_DEFAULT_*). */
typedef struct sinew_skinner_desc {
    uint32_t max_rest_vertices;     /* all meshes together */
    uint32_t max_meshes;
    uint32_t max_instances;         /* characters x meshes per frame */
    uint32_t max_output_vertices;   /* skinned vertices per frame */
    uint32_t max_palette_vec4;      /* palette slots per frame */
    uint32_t frames_in_flight;      /* palette/instance ring slots, at most SINEW_MAX_FRAMES_IN_FLIGHT */
    sinew_output_format output_format;
    sinew_read_path read_path;      /* [AUTO] */
    uint64_t fence_timeout_ns;      /* bound on waits for a caller's fence */
    /* Keep previous-frame positions for motion vectors (sinew_skinner_previous_binding):
     * a second buffer of 16 B per output vertex (xyz float32, w = 1), written by the
     * same dispatch. For every vertex a frame skins, previous = the position its
     * output vertex held just before this frame's dispatch, i.e. what the last
     * frame that skinned it wrote there (0 before any), or this frame's own position
     * (zero motion) for an instance with reset_previous. Vertices a frame does not
     * skin keep both their output and their previous value (a renderer draws them
     * with zero motion: bind the output as the previous position). Previous is per
     * output vertex, not per character: when an instance's output range now holds
     * another character (added, removed, moved, or a teleport), set reset_previous
     * for it (sinew_crowd does this itself, see crowd.h). The baseline debug
     * kernel (sinew_debug_set_kernel) does not write it. */
    bool keep_previous;
    /* Skinned tangent frames for meshes added with tangents (sinew_skinner_mesh_desc.tangents):
     * a rest buffer of 8 B per rest vertex and an output per output vertex in the
     * output format: FLOAT 16 B (tangent xyz float32, w = bitangent sign), PACKED 4 B
     * (tangent snorm 10:10:10 like the packed normal, w = sign as 2-bit snorm: 1 or -1;
     * VK_FORMAT_A2B10G10R10_SNORM_PACK32); sinew_skinner_tangent_binding,
     * written only for vertices of meshes with tangents (rules: sinew_reference_tangents).
     * Meshes without tangents run pipelines without the tangent code. */
    bool tangents;
    /* Per-vertex centers of rotation for the CoR methods (sinew_skinner_mesh_desc.cor_centers):
     * a rest buffer of 16 B per rest vertex. Without it, meshes cannot carry centers and
     * no instance can use a CoR method (sinew_method_uses_centers). */
    bool cor_centers;
    /* The host's own buffers for the output, the previous positions (keep_previous)
     * and the output tangents (tangents): Sinew writes there instead of allocating,
     * never frees them, and sinew_skinner_*_binding report them. The host keeps them
     * alive until sinew_skinner_destroy returns. Usage they need: STORAGE_BUFFER,
     * TRANSFER_SRC and TRANSFER_DST (zeroed at creation, read back, poisoned), and
     * for the output with keep_previous UNIFORM_TEXEL_BUFFER (previous positions
     * read it as texels);
     * add what the host reads them with (VERTEX_BUFFER,
     * ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR, ...). */
    sinew_buffer_range output_buffer;
    sinew_buffer_range previous_buffer;
    sinew_buffer_range tangent_buffer;
    /* Who reads the output after record(): the stages and accesses of the barrier
     * record() ends with (and that the next frame's writes wait for). 0 = vertex
     * input + vertex shader (where the queue supports graphics); compute and
     * transfer are always added. E.g. FRAGMENT_SHADER + SHADER_READ, or
     * ACCELERATION_STRUCTURE_BUILD_BIT_KHR + SHADER_READ for a BLAS refit. */
    VkPipelineStageFlags consumer_stages;
    VkAccessFlags consumer_access;
    /* true: record() ends without that barrier; the host records its own
     * (srcStage COMPUTE_SHADER, srcAccess SHADER_WRITE) before reading the output. */
    bool host_final_barrier;
} sinew_skinner_desc;

/* A rest mesh to upload. */
typedef struct sinew_skinner_mesh_desc {
    const sinew_vertex *vertices;   /* 4 influences per vertex (32 B), or NULL when vertices8 is given */
    uint32_t vertex_count;
    uint32_t joint_count;           /* of the skeleton it is skinned to */
    const float *bulge_rest;        /* sinew_bulge_rest_distances(), or NULL (bulge flag then refused) */
    /* 8 influences per vertex (48 B, sinew_pack_vertices8) instead of vertices:
     * the mesh gets the 8-influence layout and kernels. Exactly one of vertices
     * and vertices8 is set. An 8-influence vertex takes 1.5 of max_rest_vertices. */
    const sinew_vertex8 *vertices8;
    /* vertex_count rest tangent frames (sinew_pack_tangents), or NULL. Needs a
     * skinner created with tangents (else INVALID_ARGUMENT); signs must be exactly +-1. */
    const sinew_tangent *tangents;
    /* vertex_count centers of rotation, 3 floats each (sinew_cor_compute), or NULL.
     * Needs a skinner created with cor_centers (else INVALID_ARGUMENT); finite (else
     * NON_FINITE). Not computed here (that needs the triangles): an instance with a CoR
     * method on a mesh without centers is refused by set_instances (INVALID_ARGUMENT).
     * Morphed copies of the mesh (sinew_morpher) keep the base mesh's centers. */
    const float *cor_centers;
    /* SINEW_REST_LAYOUT_DEFAULT (0): vertices / vertices8 as given. SINEW_REST_LAYOUT_COMPACT:
     * vertices (4 influences; vertices8 refused) encoded by sinew_compact_encode to 16 B
     * each, which the kernel reads instead of 32 B (docs/vertex-streams.md); joint_count
     * at most SINEW_COMPACT_MAX_JOINTS and vertex_count at most 4,194,304 (else
     * LIMIT_EXCEEDED). Every method, bulge correction, tangents and centers work with it;
     * the morpher and the baseline debug kernel refuse it. It takes the rest capacity of
     * the default layout (2n + 1 slots with bulge, tangents or centers, n + 2 without). */
    sinew_rest_layout rest_layout;
} sinew_skinner_mesh_desc;

/* One character to skin this frame. */
typedef struct sinew_instance {
    sinew_mesh_id mesh;             /* from sinew_skinner_add_mesh */
    sinew_method method;
    uint32_t flags;                 /* sinew_skin_flags */
    uint32_t palette_offset;        /* in vec4 slots from the frame's palette start */
    uint32_t output_offset;         /* in vertices from the output buffer start */
    /* With keep_previous: this frame's previous positions of the instance are its
     * own positions (zero motion): first frame, teleport, or its output range held
     * another character last frame. Ignored without keep_previous. */
    bool reset_previous;
} sinew_instance;

/* Where to write this frame's palettes: persistently mapped, coherent memory. */
typedef struct sinew_frame {
    float *palette;                 /* 4 floats per slot */
    uint32_t palette_capacity_vec4;
    /* Ring slot in use, 0 .. frames_in_flight - 1: it comes round again
     * frames_in_flight frames later, when begin_frame waits for the fence that
     * end_frame was given for it (or the skinner's own, after submit). */
    uint32_t slot;
    uint64_t serial;                /* frames ended before this one (0 first) */
} sinew_frame;

/* What to bind to draw or read the skinned vertices. */
typedef struct sinew_output_binding {
    VkBuffer buffer;
    VkDeviceSize offset;
    uint32_t stride;                /* bytes per vertex */
    VkFormat position_format;       /* R32G32B32_SFLOAT at offset 0 */
    VkFormat normal_format;         /* R32G32B32_SFLOAT or A2B10G10R10_SNORM_PACK32 at offset 12 */
} sinew_output_binding;

/* Creates the skinner's buffers and pipelines (no submission). Fails with SINEW_ERROR_LIMIT_EXCEEDED
 * when a capacity exceeds the device's buffer limits (maxStorageBufferRange,
 * maxComputeWorkGroupCount) before allocating anything. */
SINEW_API sinew_result sinew_skinner_create(sinew_gpu *gpu, const sinew_skinner_desc *desc, sinew_skinner **out,
                                            sinew_error_info *err);
/* Waits for the skinner's own submissions and the caller fences it was given
 * (bounded), and frees it. A caller fence that does not signal within
 * fence_timeout_ns is given up on (a warning is logged): destroy then waits for
 * the gpu's queue to go idle instead of hanging, and still frees everything.
 * While a crowd or morpher made on it still exists nothing is freed: the misuse
 * is logged (severity 2) and sinew_skinner_last_error reports IN_USE. NULL is ignored. */
SINEW_API void sinew_skinner_destroy(sinew_skinner *sk);

/* Validates (joint indices < joint_count, weights summing to 65535, finite
 * positions) and uploads a rest mesh, in the 4- or 8-influence layout (see
 * sinew_skinner_mesh_desc). Not a per-frame call. */
SINEW_API sinew_result sinew_skinner_add_mesh(sinew_skinner *sk, const sinew_skinner_mesh_desc *mesh, sinew_mesh_id *mesh_id,
                                              sinew_error_info *err);

/* Uploads a rest mesh (sinew/rest_mesh.h) in its own layout: packed vertices,
 * bulge distances, and where the skinner was created for them its tangents
 * (desc.tangents) and centers of rotation (desc.cor_centers, once computed or
 * set). The skinner keeps no pointer into m. Errors as sinew_skinner_add_mesh. */
SINEW_API sinew_result sinew_skinner_add_rest_mesh(sinew_skinner *sk, const sinew_rest_mesh *m, sinew_mesh_id *mesh_id,
                                                   sinew_error_info *err);

/* Removes a mesh (hot reload): waits for the frames in flight (bounded by
 * fence_timeout_ns), frees its rest space for later meshes; its id may be
 * handed out again by a later add. NOT_FOUND (unknown or already removed),
 * IN_USE while a crowd model or morph set uses it (remove those first) or for a
 * morpher's copy, CALL_ORDER (INVALID_ARGUMENT) inside a frame. */
SINEW_API sinew_result sinew_skinner_remove_mesh(sinew_skinner *sk, sinew_mesh_id mesh, sinew_error_info *err);

/* Device memory of a skinner, per buffer kind, in bytes. */
typedef struct sinew_skinner_memory_report {
    uint64_t rest_bytes, rest_used_bytes;   /* rest vertex buffer: capacity, in use by live meshes */
    uint64_t bulge_bytes, tangent_rest_bytes, center_bytes;
    uint64_t output_bytes, previous_bytes, tangent_output_bytes; /* 0 where the host gave its buffer */
    uint64_t palette_ring_bytes, frame_ring_bytes;   /* host-visible: palettes; instances + work lists */
    uint64_t host_buffer_bytes;             /* ranges of the host's own buffers Sinew writes */
    uint64_t device_bytes;                  /* all buffers Sinew allocated (dummies included) */
    uint32_t meshes;                        /* live meshes */
} sinew_skinner_memory_report;
/* Fills the report (zeros for NULL sk). */
SINEW_API void sinew_skinner_memory(const sinew_skinner *sk, sinew_skinner_memory_report *out);

/* Starts a frame: waits until the ring slot is free and hands out its palette
 * memory. SINEW_ERROR_TIMEOUT if a caller fence given to end_frame for that slot
 * does not signal within fence_timeout_ns (e.g. it was never submitted): the
 * slot is then left as it was and the call may be repeated; see end_frame. */
SINEW_API sinew_result sinew_skinner_begin_frame(sinew_skinner *sk, sinew_frame *frame);
/* Sets this frame's characters: validated against meshes, palette and output
 * capacities, then written with the work list to mapped memory. No allocation. */
SINEW_API sinew_result sinew_skinner_set_instances(sinew_skinner *sk, const sinew_instance *instances, uint32_t count,
                                                   sinew_error_info *err);
/* Records this frame's work into the caller's command buffer: barriers (host
 * writes -> shader reads; earlier vertex/shader/transfer reads of the output ->
 * shader writes), timestamps, the dispatch, and a barrier making the output
 * visible to vertex input, shader and transfer reads. cmd: recording, outside a
 * render pass, for the gpu's queue family (vertex stages are in the barriers only
 * when that family supports graphics). Call between set_instances and end_frame. */
SINEW_API sinew_result sinew_skinner_record(sinew_skinner *sk, VkCommandBuffer cmd);
/* Ends a frame recorded into the caller's command buffer (advances the ring; the
 * caller's submission must complete before the slot comes round again: pass its
 * fence, or VK_NULL_HANDLE if the caller waits by itself). A fence passed here is
 * waited on by the begin_frame that reuses the slot, by sinew_skinner_wait and by
 * sinew_skinner_destroy: keep it alive and do not reset it before then.
 * Failed submissions: if the caller's vkQueueSubmit fails after end_frame, call
 * sinew_skinner_forget_fence(sk, fence) so that no wait targets a fence that
 * will never signal (bounded waits report SINEW_ERROR_TIMEOUT otherwise). */
SINEW_API sinew_result sinew_skinner_end_frame(sinew_skinner *sk, VkFence caller_fence);
/* Own-queue path: records into the skinner's command buffer, submits (under the
 * gpu's queue lock, no wait), ends the frame. */
SINEW_API sinew_result sinew_skinner_submit(sinew_skinner *sk);
/* Drops a caller fence given to end_frame whose submission failed (or that the
 * caller knows will never be submitted): later waits skip it. INVALID_ARGUMENT
 * if the fence is not pending in the skinner. */
SINEW_API sinew_result sinew_skinner_forget_fence(sinew_skinner *sk, VkFence caller_fence);
/* Waits for every submission of the skinner (caller fences bounded by
 * fence_timeout_ns: SINEW_ERROR_TIMEOUT). */
SINEW_API sinew_result sinew_skinner_wait(sinew_skinner *sk);
/* GPU time of the newest completed frame's dispatch (timestamp queries), in ms.
 * Waits for the skinner's own last submission; never waits on a caller's fence
 * (reports the newest frame whose fence has signalled). NOT_FOUND before any. */
SINEW_API sinew_result sinew_skinner_gpu_time(sinew_skinner *sk, double *ms);
/* The same frame's time split in two (ms, summing to sinew_skinner_gpu_time's):
 * the morph pass (the morpher's prepass, 0 without one) and the skinning dispatches. */
SINEW_API sinew_result sinew_skinner_gpu_stage_times(sinew_skinner *sk, double *morph_ms, double *skin_ms);

/* Detail of the skinner's last failed call (any function taking this skinner):
 * what err would have held. After a success it still holds the last failure. */
SINEW_API void sinew_skinner_last_error(const sinew_skinner *sk, sinew_error_info *out);
/* Ring slots (desc.frames_in_flight after defaults). */
SINEW_API uint32_t sinew_skinner_frames_in_flight(const sinew_skinner *sk);

/* The read path in use (never AUTO). */
SINEW_API sinew_read_path sinew_skinner_read_path(const sinew_skinner *sk);
/* Switches the read path for the next recorded frames (AUTO = the device default).
 * SINEW_ERROR_LIMIT_EXCEEDED if the texel path exceeds maxTexelBufferElements. */
SINEW_API sinew_result sinew_skinner_set_read_path(sinew_skinner *sk, sinew_read_path path);
/* Number of vertices of a mesh (0 for an unknown id). */
SINEW_API uint32_t sinew_skinner_mesh_vertex_count(const sinew_skinner *sk, sinew_mesh_id mesh);
/* Influences per vertex of a mesh's layout: 4 or 8 (0 for an unknown id). */
SINEW_API uint32_t sinew_skinner_mesh_influences(const sinew_skinner *sk, sinew_mesh_id mesh);
/* Joint count the mesh was uploaded for (0 for an unknown id). */
SINEW_API uint32_t sinew_skinner_mesh_joint_count(const sinew_skinner *sk, sinew_mesh_id mesh);

/* Binding information of the output buffer. */
SINEW_API void sinew_skinner_output_binding(const sinew_skinner *sk, sinew_output_binding *out);
/* Binding of the previous-frame positions (keep_previous): buffer, offset 0,
 * stride 16, position_format R32G32B32_SFLOAT at offset 0 (normal_format
 * UNDEFINED); vertex i is output vertex i. INVALID_ARGUMENT without keep_previous. */
SINEW_API sinew_result sinew_skinner_previous_binding(const sinew_skinner *sk, sinew_output_binding *out);
/* Binding of the skinned tangents (desc.tangents): buffer, offset 0, stride 16 and
 * position_format R32G32B32A32_SFLOAT with float output (tangent xyz, w = bitangent
 * sign; the field name is shared with the output binding), stride 4 and
 * A2B10G10R10_SNORM_PACK32 with packed output (w = sign); normal_format UNDEFINED;
 * vertex i = output vertex i. INVALID_ARGUMENT without tangents. */
SINEW_API sinew_result sinew_skinner_tangent_binding(const sinew_skinner *sk, sinew_output_binding *out);
/* Reads skinned tangents back (waits for the GPU), 4 floats each (xyz, sign; decoded if packed).
 * INVALID_ARGUMENT without desc.tangents. */
SINEW_API sinew_result sinew_skinner_read_tangents(sinew_skinner *sk, uint32_t first, uint32_t count, float *tan4);
/* Reads previous-frame positions back (waits for the GPU), 3 floats each.
 * INVALID_ARGUMENT without keep_previous. */
SINEW_API sinew_result sinew_skinner_read_previous(sinew_skinner *sk, uint32_t first, uint32_t count, float *pos3);
/* Reads output vertices back (waits for the GPU): 3 floats each for positions
 * and normals (decoded if packed); nrm3 may be NULL. */
SINEW_API sinew_result sinew_skinner_read_output(sinew_skinner *sk, uint32_t first, uint32_t count,
                                       float *pos3, float *nrm3);

#ifdef __cplusplus
}
#endif
#endif
