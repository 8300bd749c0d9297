/* Sinew renderer: a small graphics pipeline that draws skinned characters
 * straight from the skinner's output buffer (bound as a vertex buffer; no
 * second skinning), with simple shading and a ground plane. It records into a
 * command buffer the caller submits, right after sinew_skinner_record (whose
 * final barrier makes the output visible to vertex input), or renders
 * offscreen on the context's queue. The queue must support graphics. */
#ifndef SINEW_RENDER_H
#define SINEW_RENDER_H

#include <sinew/skinner.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_renderer sinew_renderer;
typedef struct sinew_render_target sinew_render_target;

/* Default of sinew_renderer_desc.max_meshes. */
#define SINEW_RENDERER_DEFAULT_MAX_MESHES 64u

/* Zero means the default in brackets. */
typedef struct sinew_renderer_desc {
    VkFormat color_format;          /* [VK_FORMAT_R8G8B8A8_UNORM] */
    VkFormat depth_format;          /* [VK_FORMAT_D32_SFLOAT] */
    VkImageLayout final_layout;     /* color layout after the pass [TRANSFER_SRC_OPTIMAL];
                                       VK_IMAGE_LAYOUT_PRESENT_SRC_KHR for a swapchain */
    uint32_t max_meshes;            /* index buffers, by skinner mesh id [SINEW_RENDERER_DEFAULT_MAX_MESHES] */
} sinew_renderer_desc;

/* Camera and scene settings of one frame. Matrices are column-major float (cglm). */
typedef struct sinew_render_view {
    float view_proj[16];            /* clip = view_proj * world (Vulkan clip space, y down, z 0..1) */
    float eye[3];                   /* camera position (specular) */
    float light_dir[3];             /* direction the light travels; zero = (-0.4, -1, -0.3) */
    float clear_color[4];           /* all zero = a dark blue-grey */
    bool ground;                    /* draw the ground plane */
    float ground_height;            /* y of the ground */
    float ground_extent;            /* half size [50] */
} sinew_render_view;

/* Optional per-instance colors (linear RGB); NULL = a palette by instance index. */
typedef struct sinew_render_colors {
    const float *rgb;               /* 3 floats per instance */
} sinew_render_colors;

/* Creates the render pass and pipelines for the skinner's output format.
 * SINEW_ERROR_NO_DEVICE when the context's queue cannot do graphics. */
SINEW_API sinew_result sinew_renderer_create(sinew_gpu *gpu, sinew_skinner *skinner, const sinew_renderer_desc *desc,
                                   sinew_renderer **out);
/* Frees the renderer (waits for its own submissions under the gpu's queue lock; the caller makes sure its
 * own recorded work using it has completed). NULL is ignored. */
SINEW_API void sinew_renderer_destroy(sinew_renderer *r);
/* Uploads the triangle indices of skinner mesh `mesh` (indices into that mesh's
 * vertices, < vertex_count); submits and waits. Not a per-frame call. */
SINEW_API sinew_result sinew_renderer_set_mesh(sinew_renderer *r, sinew_mesh_id mesh, const uint32_t *indices,
                                     uint32_t index_count, uint32_t vertex_count);
/* The render pass (for the caller's framebuffers; color then depth attachment). */
SINEW_API VkRenderPass sinew_renderer_render_pass(const sinew_renderer *r);

/* Size and color view of a render target. */
typedef struct sinew_render_target_desc {
    uint32_t width, height;
    VkImageView color_view;         /* the caller's image view (e.g. a swapchain image), or
                                       VK_NULL_HANDLE for an own offscreen image that can be read back */
} sinew_render_target_desc;

/* Creates a target; its depth buffer is owned by the target. */
SINEW_API sinew_result sinew_render_target_create(sinew_renderer *r, const sinew_render_target_desc *desc,
                                        sinew_render_target **out);
/* Frees a target; NULL is ignored. */
SINEW_API void sinew_render_target_destroy(sinew_render_target *t);

/* Records the pass: clear, ground, one indexed draw per instance with
 * vertexOffset = instance.output_offset; for an own offscreen target also the
 * copy to its readback buffer. Instances are typically sinew_crowd_instances(). */
SINEW_API sinew_result sinew_renderer_record(sinew_renderer *r, VkCommandBuffer cmd, sinew_render_target *t,
                                   const sinew_render_view *view, const sinew_instance *instances,
                                   uint32_t count, const sinew_render_colors *colors);

/* Own-queue convenience for offscreen targets: records the skinner's prepared
 * frame (sinew_skinner_record) and the pass into one command buffer, submits,
 * waits, and ends the skinner frame. skin = 0 draws the output as it is. */
SINEW_API sinew_result sinew_renderer_render(sinew_renderer *r, sinew_render_target *t, const sinew_render_view *view,
                                   const sinew_instance *instances, uint32_t count,
                                   const sinew_render_colors *colors, bool skin);
/* GPU time (timestamps, ms) of the pass recorded by the last sinew_renderer_render
 * (clear, ground, draws and an own target's readback copy; not the skinning).
 * NOT_FOUND before any, LIMIT_EXCEEDED when the queue has no timestamps. */
SINEW_API sinew_result sinew_renderer_gpu_time(const sinew_renderer *r, double *ms);
/* Copies (submits and waits) an own offscreen target's last rendered pixels (RGBA8, rows top to
 * bottom, width*height*4 bytes) after its submission has completed. */
SINEW_API sinew_result sinew_render_target_read(sinew_render_target *t, uint8_t *rgba);

/* Helpers: a right-handed look-at view times a perspective projection for
 * Vulkan (y down, depth 0..1), column-major float. */
SINEW_API void sinew_render_camera(float view_proj[16], const float eye[3], const float target[3],
                         float fov_y_rad, float aspect, float z_near, float z_far);

#ifdef __cplusplus
}
#endif
#endif
