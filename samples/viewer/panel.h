/* The viewer's control panel (Dear ImGui, GLFW + Vulkan backends), behind a C
 * API so the viewer stays C. The panel edits a panel_state; the viewer applies
 * it each frame. A panel draws into the swapchain image after Sinew's render
 * pass (its own render pass: load, final layout PRESENT_SRC_KHR). */
#ifndef SINEW_VIEWER_PANEL_H
#define SINEW_VIEWER_PANEL_H

#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GLFWwindow GLFWwindow;
typedef struct viewer_panel viewer_panel;

/* Scenes the panel offers (the values of demo_render.h's DEMO_MODEL_*, then the
 * corrected tube: the tube with pose-space corrective morph targets). */
enum { PANEL_SCENE_TUBE = 0, PANEL_SCENE_MODEL = 1, PANEL_SCENE_BAR = 2, PANEL_SCENE_PSD = 3 };
/* Most morph targets the panel lists. */
#define PANEL_MAX_MORPHS 8
/* Stages of the crowd scene's frame breakdown (panel_state.cs_stage_ms). */
#define PANEL_CROWD_STAGES 8
/* Weight visualization. */
enum { PANEL_WEIGHTS_OFF = 0, PANEL_WEIGHTS_JOINT = 1, PANEL_WEIGHTS_MAJOR = 2 };

typedef struct panel_state {
    /* edited by the panel (and by scripts, through the same fields) */
    int scene;              /* PANEL_SCENE_* */
    int method;             /* sinew_method, or -1 = mixed per character */
    int bulge;              /* 0 off, 1 bulge correction, 2 with its inner push (SINEW_SKIN_BULGE_INNER) */
    int count;              /* characters */
    int paused;
    double time;            /* seconds (clip or procedural motion); scrubbed when paused */
    int manual_pose;        /* tube/bar: bend and twist from the sliders instead of the motion */
    float bend_deg, twist_deg;
    float alpha;            /* tube/bar procedural weight exponent; the model: auto weights when auto_weights */
    int auto_weights;       /* the model: automatic weights (alpha) instead of the file's */
    int weights;            /* PANEL_WEIGHTS_* */
    int weight_joint;
    int clip;               /* the model's clip */
    char model_path[512];   /* a model file to load */
    int load_model;         /* set by the panel's "load" button (or a script): the viewer loads model_path */
    /* corrected tube: the RBF driver sets the corrective weights from the pose, or
     * (driver off) the sliders do, any real value; touching a slider turns the driver off */
    int psd_driver;
    float morph_w[PANEL_MAX_MORPHS];   /* driver on: character 0's driver weights (shown) */
    /* filled by the viewer, shown read-only */
    int has_model;
    int max_count;
    int joint_count;
    double duration;        /* clip duration, 0 = procedural */
    int clip_count;         /* the model's clips (at most 16 listed) */
    const char *clip_names[16];
    int morph_count;        /* targets listed (corrected tube), 0 = none */
    const char *morph_names[PANEL_MAX_MORPHS];
    int quality_valid;      /* the figures below describe the current pose of character 0 */
    double q_radius, q_volume, q_dist;
    char info[256];
    /* the crowd scene (sinew-viewer --scene crowd): the panel shows its figures
     * instead of the lab's widgets. path_camera is edited (0: the free orbit
     * camera; culling and LOD stay with the path camera); the rest is filled by
     * the viewer. Stages (ms): sample/blend, FK, palette, bounds, upload (each
     * one's share of the crowd's wall time, sinew_crowd_stats stage timing),
     * morph, skin (sinew_skinner_gpu_stage_times), render (sinew_renderer_gpu_time;
     * < 0: not measured) */
    int crowd_scene;
    int path_camera;
    uint32_t cs_frame, cs_count, cs_visible, cs_culled, cs_band[3], cs_interpolated, cs_skinned_vertices;
    double cs_stage_ms[PANEL_CROWD_STAGES];
    double cs_time;         /* scene time of cs_frame (s) */
    double cs_prepare_ms, cs_gpu_ms, cs_frame_ms; /* crowd CPU wall time, GPU skinning, the frame interval */
    const char *cs_models;  /* the models' names */
} panel_state;

typedef struct panel_vulkan {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkFormat format;        /* swapchain format */
    uint32_t image_count;
} panel_vulkan;

/* 0 on success. Installs ImGui's GLFW callbacks (chained to those already set). */
int panel_create(GLFWwindow *win, const panel_vulkan *vk, viewer_panel **out);
/* (Re)creates the framebuffers for the swapchain's views. 0 on success. */
int panel_set_targets(viewer_panel *p, const VkImageView *views, uint32_t count, VkExtent2D extent);
/* Starts an ImGui frame and builds the panel over s. Returns 1 when a setting changed. */
int panel_frame(viewer_panel *p, panel_state *s);
/* Overlay triangles drawn under the panel (the weight visualization): n_idx indices
 * into n_vtx screen vertices (x, y pixels) with RGBA8 colours, drawn in the order given. */
void panel_overlay(viewer_panel *p, const float *xy, const uint32_t *rgba, uint32_t n_vtx, const uint32_t *idx,
                   uint32_t n_idx);
/* Records the panel's pass into image `image` (layout PRESENT_SRC_KHR before and after). */
void panel_record(viewer_panel *p, VkCommandBuffer cmd, uint32_t image);
/* 1 when ImGui wants the mouse / keyboard (the viewer's own bindings then stay quiet). */
int panel_wants_mouse(const viewer_panel *p);
int panel_wants_keyboard(const viewer_panel *p);
/* Waits for nothing: call after vkDeviceWaitIdle. NULL is ignored. */
void panel_destroy(viewer_panel *p);

#ifdef __cplusplus
}
#endif
#endif
