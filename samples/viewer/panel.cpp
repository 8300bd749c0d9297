// The viewer's control panel: Dear ImGui 1.86 (Debian libimgui-dev) with its
// GLFW and Vulkan backends, compiled from the package's example sources by the
// viewer's CMakeLists. Functions come from the viewer's vkGetInstanceProcAddr
// (IMGUI_IMPL_VULKAN_NO_PROTOTYPES); the panel owns a render pass that loads the
// frame Sinew rendered and framebuffers over the swapchain views.
#include "panel.h"
#include <sinew/core.h>

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define MAX_PANEL_IMAGES 8

struct viewer_panel {
    panel_vulkan vk;
    PFN_vkCreateRenderPass CreateRenderPass;
    PFN_vkDestroyRenderPass DestroyRenderPass;
    PFN_vkCreateFramebuffer CreateFramebuffer;
    PFN_vkDestroyFramebuffer DestroyFramebuffer;
    PFN_vkCreateDescriptorPool CreateDescriptorPool;
    PFN_vkDestroyDescriptorPool DestroyDescriptorPool;
    PFN_vkCmdBeginRenderPass CmdBeginRenderPass;
    PFN_vkCmdEndRenderPass CmdEndRenderPass;
    PFN_vkCreateCommandPool CreateCommandPool;
    PFN_vkDestroyCommandPool DestroyCommandPool;
    PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkEndCommandBuffer EndCommandBuffer;
    PFN_vkQueueSubmit QueueSubmit;
    PFN_vkQueueWaitIdle QueueWaitIdle;
    VkRenderPass pass = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkFramebuffer fb[MAX_PANEL_IMAGES] = {};
    uint32_t nfb = 0;
    VkExtent2D extent = { 0, 0 };
    ImGuiContext *ctx = nullptr;
    bool glfw_init = false, vk_init = false;
    std::vector<ImVec2> ov_xy;
    std::vector<ImU32> ov_col;
    std::vector<uint32_t> ov_idx;
};

static PFN_vkVoidFunction panel_loader(const char *name, void *user)
{
    viewer_panel *p = (viewer_panel *)user;
    return p->vk.get_instance_proc_addr(p->vk.instance, name);
}

template <typename T> static bool load(viewer_panel *p, T &fn, const char *name)
{
    fn = (T)p->vk.get_instance_proc_addr(p->vk.instance, name);
    return fn != nullptr;
}

static void check_vk(VkResult r)
{
    if (r != VK_SUCCESS) fprintf(stderr, "panel: Vulkan error %d\n", (int)r);
}

static void destroy_targets(viewer_panel *p)
{
    for (uint32_t i = 0; i < p->nfb; i++) p->DestroyFramebuffer(p->vk.device, p->fb[i], nullptr);
    p->nfb = 0;
}

extern "C" int panel_create(GLFWwindow *win, const panel_vulkan *vk, viewer_panel **out)
{
    *out = nullptr;
    viewer_panel *p = new viewer_panel();
    p->vk = *vk;
    bool ok = load(p, p->CreateRenderPass, "vkCreateRenderPass") && load(p, p->DestroyRenderPass, "vkDestroyRenderPass") &&
              load(p, p->CreateFramebuffer, "vkCreateFramebuffer") && load(p, p->DestroyFramebuffer, "vkDestroyFramebuffer") &&
              load(p, p->CreateDescriptorPool, "vkCreateDescriptorPool") &&
              load(p, p->DestroyDescriptorPool, "vkDestroyDescriptorPool") &&
              load(p, p->CmdBeginRenderPass, "vkCmdBeginRenderPass") && load(p, p->CmdEndRenderPass, "vkCmdEndRenderPass") &&
              load(p, p->CreateCommandPool, "vkCreateCommandPool") && load(p, p->DestroyCommandPool, "vkDestroyCommandPool") &&
              load(p, p->AllocateCommandBuffers, "vkAllocateCommandBuffers") &&
              load(p, p->BeginCommandBuffer, "vkBeginCommandBuffer") && load(p, p->EndCommandBuffer, "vkEndCommandBuffer") &&
              load(p, p->QueueSubmit, "vkQueueSubmit") && load(p, p->QueueWaitIdle, "vkQueueWaitIdle");
    if (!ok || !ImGui_ImplVulkan_LoadFunctions(panel_loader, p)) {
        fprintf(stderr, "panel: Vulkan functions missing\n");
        delete p;
        return 1;
    }
    /* render pass: load what Sinew drew, draw the panel, present */
    VkAttachmentDescription att = {};
    att.format = vk->format;
    att.samples = VK_SAMPLE_COUNT_1_BIT;
    att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att.initialLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    att.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
    VkSubpassDescription sub = {};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    VkSubpassDependency dep = {};
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.dstSubpass = 0;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    VkRenderPassCreateInfo rci = { VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
    rci.attachmentCount = 1;
    rci.pAttachments = &att;
    rci.subpassCount = 1;
    rci.pSubpasses = &sub;
    rci.dependencyCount = 1;
    rci.pDependencies = &dep;
    if (p->CreateRenderPass(vk->device, &rci, nullptr, &p->pass) != VK_SUCCESS) {
        delete p;
        return 1;
    }
    VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4 };
    VkDescriptorPoolCreateInfo dci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
    dci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dci.maxSets = 4;
    dci.poolSizeCount = 1;
    dci.pPoolSizes = &ps;
    if (p->CreateDescriptorPool(vk->device, &dci, nullptr, &p->pool) != VK_SUCCESS) {
        panel_destroy(p);
        return 1;
    }
    IMGUI_CHECKVERSION();
    p->ctx = ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;   /* no imgui.ini next to the binary */
    ImGui::StyleColorsDark();
    p->glfw_init = ImGui_ImplGlfw_InitForVulkan(win, true);
    ImGui_ImplVulkan_InitInfo ii = {};
    ii.Instance = vk->instance;
    ii.PhysicalDevice = vk->physical_device;
    ii.Device = vk->device;
    ii.QueueFamily = vk->queue_family;
    ii.Queue = vk->queue;
    ii.DescriptorPool = p->pool;
    ii.MinImageCount = vk->image_count < 2 ? 2 : vk->image_count;
    ii.ImageCount = ii.MinImageCount;
    ii.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    ii.CheckVkResultFn = check_vk;
    p->vk_init = p->glfw_init && ImGui_ImplVulkan_Init(&ii, p->pass);
    if (!p->vk_init) {
        panel_destroy(p);
        return 1;
    }
    /* fonts: one-shot upload on the viewer's queue (the caller holds no other work in flight) */
    VkCommandPool cp;
    VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
    pci.queueFamilyIndex = vk->queue_family;
    ok = p->CreateCommandPool(vk->device, &pci, nullptr, &cp) == VK_SUCCESS;
    if (ok) {
        VkCommandBuffer cb;
        VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
        ai.commandPool = cp;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        ok = p->AllocateCommandBuffers(vk->device, &ai, &cb) == VK_SUCCESS && p->BeginCommandBuffer(cb, &bi) == VK_SUCCESS &&
             ImGui_ImplVulkan_CreateFontsTexture(cb) && p->EndCommandBuffer(cb) == VK_SUCCESS;
        if (ok) {
            VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO };
            si.commandBufferCount = 1;
            si.pCommandBuffers = &cb;
            ok = p->QueueSubmit(vk->queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS && p->QueueWaitIdle(vk->queue) == VK_SUCCESS;
        }
        ImGui_ImplVulkan_DestroyFontUploadObjects();
        p->DestroyCommandPool(vk->device, cp, nullptr);
    }
    if (!ok) {
        panel_destroy(p);
        return 1;
    }
    *out = p;
    return 0;
}

extern "C" int panel_set_targets(viewer_panel *p, const VkImageView *views, uint32_t count, VkExtent2D extent)
{
    destroy_targets(p);
    if (count > MAX_PANEL_IMAGES) count = MAX_PANEL_IMAGES;
    for (uint32_t i = 0; i < count; i++) {
        VkFramebufferCreateInfo fci = { VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
        fci.renderPass = p->pass;
        fci.attachmentCount = 1;
        fci.pAttachments = &views[i];
        fci.width = extent.width;
        fci.height = extent.height;
        fci.layers = 1;
        if (p->CreateFramebuffer(p->vk.device, &fci, nullptr, &p->fb[i]) != VK_SUCCESS) return 1;
        p->nfb = i + 1;
    }
    p->extent = extent;
    ImGui_ImplVulkan_SetMinImageCount(count < 2 ? 2 : count);
    return 0;
}

/* sinew_method order (0 .. SINEW_METHOD_COUNT - 1), then the per-character mix */
static const char *const method_items[] = { "LBS", "DQS", "DQS with scale", "DQS scale local", "DQS scale mixed",
                                            "CoR (optimized centers)", "CoR with scale", "CoR scale local", "CoR scale mixed",
                                            "mixed per character" };
static_assert(sizeof method_items / sizeof method_items[0] == SINEW_METHOD_COUNT + 1, "a label per method");

/* The crowd scene's window: counts, the per-stage frame breakdown, the camera. */
static int crowd_scene_panel(panel_state *s)
{
    static const char *stages[PANEL_CROWD_STAGES] = { "sample/blend", "FK", "palette", "bounds", "upload",
                                                      "morph", "skin", "render" };
    int changed = 0;
    ImGui::Begin("Crowd scene", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    if (s->cs_models) ImGui::TextWrapped("%s", s->cs_models);
    ImGui::Text("frame %u (t = %.2f s)   characters %u", s->cs_frame, s->cs_time, s->cs_count);
    ImGui::Text("visible %u   culled %u   interpolated %u", s->cs_visible, s->cs_culled, s->cs_interpolated);
    ImGui::Text("LOD bands: near %u   middle %u   far %u", s->cs_band[0], s->cs_band[1], s->cs_band[2]);
    ImGui::Text("skinned vertices %u", s->cs_skinned_vertices);
    ImGui::Separator();
    if (ImGui::BeginTable("stages", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("stage");
        ImGui::TableSetupColumn("ms");
        ImGui::TableHeadersRow();
        for (int k = 0; k < PANEL_CROWD_STAGES; k++) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextUnformatted(stages[k]);
            ImGui::TableSetColumnIndex(1);
            if (s->cs_stage_ms[k] >= 0) ImGui::Text("%8.3f", s->cs_stage_ms[k]);
            else ImGui::TextDisabled("     n/a");
        }
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted("CPU (wall)");
        ImGui::TableSetColumnIndex(1);
        ImGui::Text("%8.3f", s->cs_prepare_ms);
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted("GPU skinning");
        ImGui::TableSetColumnIndex(1);
        ImGui::Text("%8.3f", s->cs_gpu_ms);
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted("frame interval");
        ImGui::TableSetColumnIndex(1);
        ImGui::Text("%8.3f", s->cs_frame_ms);
        ImGui::EndTable();
    }
    ImGui::Separator();
    bool pc = s->path_camera != 0;
    if (ImGui::Checkbox("path camera (off: free camera, culling stays with the path)", &pc)) { s->path_camera = pc; changed = 1; }
    bool paused = s->paused != 0;
    if (ImGui::Button(paused ? "play" : "pause")) { s->paused = !s->paused; changed = 1; }
    if (s->info[0]) ImGui::TextWrapped("%s", s->info);
    ImGui::End();
    return changed;
}

extern "C" int panel_frame(viewer_panel *p, panel_state *s)
{
    int changed = 0;
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    /* the weight overlay, under the panel */
    if (!p->ov_idx.empty()) {
        ImDrawList *dl = ImGui::GetBackgroundDrawList();
        ImVec2 uv = ImGui::GetFontTexUvWhitePixel();
        for (size_t k = 0; k + 2 < p->ov_idx.size(); k += 3) {
            dl->PrimReserve(3, 3);   /* per triangle, so ImGui can start a new 16-bit index range */
            for (int c = 0; c < 3; c++) {
                uint32_t i = p->ov_idx[k + c];
                dl->PrimWriteIdx((ImDrawIdx)dl->_VtxCurrentIdx);
                dl->PrimWriteVtx(p->ov_xy[i], uv, p->ov_col[i]);
            }
        }
    }
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(330, 0), ImGuiCond_FirstUseEver);
    if (s->crowd_scene) {
        changed = crowd_scene_panel(s);
        ImGui::Render();
        return changed;
    }
    ImGui::Begin("Skinning lab", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    /* combo order: tube, bar, corrected tube, model file */
    int scene_ui = s->scene == PANEL_SCENE_TUBE ? 0 : s->scene == PANEL_SCENE_BAR ? 1 : s->scene == PANEL_SCENE_PSD ? 2 : 3;
    const char *scene_items[4] = { "tube", "bar", "corrected tube (LBS + correctives)",
                                   s->has_model ? "model file" : "model file (none loaded)" };
    if (ImGui::Combo("scene", &scene_ui, scene_items, s->has_model ? 4 : 3)) {
        static const int to_scene[4] = { PANEL_SCENE_TUBE, PANEL_SCENE_BAR, PANEL_SCENE_PSD, PANEL_SCENE_MODEL };
        s->scene = to_scene[scene_ui];
        changed = 1;
    }
    ImGui::InputText("file", s->model_path, sizeof s->model_path);
    ImGui::SameLine();
    if (ImGui::Button("load")) { s->load_model = 1; changed = 1; }
    const int mixed = SINEW_METHOD_COUNT;
    int m = s->method < 0 ? mixed : s->method;
    if (ImGui::Combo("method", &m, method_items, mixed + 1)) { s->method = m == mixed ? -1 : m; changed = 1; }
    bool b = s->bulge != 0;
    if (ImGui::Checkbox("bulge correction", &b)) { s->bulge = b; changed = 1; }
    bool bi = s->bulge == 2;
    if (ImGui::Checkbox("inner push (keeps inner volume)", &bi)) { s->bulge = bi ? 2 : (s->bulge ? 1 : 0); changed = 1; }
    if (ImGui::SliderInt("characters", &s->count, 1, s->max_count > 1 ? s->max_count : 1, "%d",
                         ImGuiSliderFlags_Logarithmic))
        changed = 1;
    ImGui::Separator();
    if (s->scene == PANEL_SCENE_MODEL && s->clip_count > 0) {
        int n = s->clip_count < 16 ? s->clip_count : 16;
        if (ImGui::Combo("clip", &s->clip, s->clip_names, n)) changed = 1;
    }
    bool paused = s->paused != 0;
    if (ImGui::Button(paused ? "play" : "pause")) { s->paused = !s->paused; changed = 1; }
    ImGui::SameLine();
    float t = (float)s->time, tmax = s->duration > 0 ? (float)s->duration : 10.0f;
    if (ImGui::SliderFloat("time", &t, 0.0f, tmax, "%.2f s")) { s->time = t; s->paused = 1; changed = 1; }
    if (s->scene != PANEL_SCENE_MODEL) {
        bool mp = s->manual_pose != 0;
        if (ImGui::Checkbox("pose from sliders", &mp)) { s->manual_pose = mp; changed = 1; }
        if (ImGui::SliderFloat("bend", &s->bend_deg, 0.0f, 180.0f, "%.0f deg")) { s->manual_pose = 1; changed = 1; }
        if (ImGui::SliderFloat("twist", &s->twist_deg, 0.0f, 180.0f, "%.0f deg")) { s->manual_pose = 1; changed = 1; }
    }
    if (ImGui::SliderFloat("alpha", &s->alpha, 0.5f, 8.0f, "%.2f", ImGuiSliderFlags_Logarithmic)) changed = 1;
    if (s->scene == PANEL_SCENE_MODEL) {
        bool aw = s->auto_weights != 0;
        if (ImGui::Checkbox("automatic weights (alpha)", &aw)) { s->auto_weights = aw; changed = 1; }
    }
    ImGui::Separator();
    const char *wv[3] = { "off", "weight of a joint", "major joint" };
    if (ImGui::Combo("weights", &s->weights, wv, 3)) changed = 1;
    if (s->weights == PANEL_WEIGHTS_JOINT &&
        ImGui::SliderInt("joint", &s->weight_joint, 0, s->joint_count > 0 ? s->joint_count - 1 : 0))
        changed = 1;
    ImGui::Separator();
    if (s->quality_valid) {
        ImGui::Text("middle radius kept  %.1f %%", 100 * s->q_radius);
        ImGui::Text("volume vs rest      %.1f %%", 100 * s->q_volume);
        ImGui::Text("max dist-to-bone incr. %.4f", s->q_dist);
    } else {
        ImGui::TextDisabled("quality figures: tube or bar, pose from sliders");
    }
    if (s->info[0]) ImGui::TextWrapped("%s", s->info);
    ImGui::End();
    if (s->scene == PANEL_SCENE_PSD && s->morph_count > 0) {
        /* a second window at the top right, so the lab panel keeps its size */
        ImGuiIO &io = ImGui::GetIO();
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 10, 10), ImGuiCond_Always, ImVec2(1, 0));
        ImGui::Begin("Morph targets", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
        bool drv = s->psd_driver != 0;
        if (ImGui::Checkbox("corrective driver (RBF on joint 1)", &drv)) { s->psd_driver = drv; changed = 1; }
        int n = s->morph_count < PANEL_MAX_MORPHS ? s->morph_count : PANEL_MAX_MORPHS;
        for (int k = 0; k < n; k++) {
            /* any real value: drag beyond the slider with Ctrl+click to type one */
            if (ImGui::SliderFloat(s->morph_names[k] ? s->morph_names[k] : "target", &s->morph_w[k], -1.0f, 2.0f, "%.3f")) {
                s->psd_driver = 0;
                changed = 1;
            }
        }
        if (ImGui::Button("all zero")) {
            for (int k = 0; k < n; k++) s->morph_w[k] = 0.0f;
            s->psd_driver = 0;
            changed = 1;
        }
        ImGui::TextDisabled(s->psd_driver ? "weights from the pose (driver)" : "weights from the sliders");
        ImGui::End();
    }
    ImGui::Render();
    return changed;
}

extern "C" void panel_overlay(viewer_panel *p, const float *xy, const uint32_t *rgba, uint32_t n_vtx,
                              const uint32_t *idx, uint32_t n_idx)
{
    p->ov_xy.resize(n_vtx);
    p->ov_col.resize(n_vtx);
    p->ov_idx.clear();
    for (uint32_t i = 0; i < n_vtx; i++) {
        p->ov_xy[i] = ImVec2(xy[2 * i], xy[2 * i + 1]);
        p->ov_col[i] = rgba[i];
    }
    for (uint32_t k = 0; k + 2 < n_idx; k += 3)
        if (idx[k] < n_vtx && idx[k + 1] < n_vtx && idx[k + 2] < n_vtx)
            for (int c = 0; c < 3; c++) p->ov_idx.push_back(idx[k + c]);
}

extern "C" void panel_record(viewer_panel *p, VkCommandBuffer cmd, uint32_t image)
{
    if (image >= p->nfb) return;
    VkRenderPassBeginInfo bi = { VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
    bi.renderPass = p->pass;
    bi.framebuffer = p->fb[image];
    bi.renderArea.extent = p->extent;
    p->CmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), cmd);
    p->CmdEndRenderPass(cmd);
}

extern "C" int panel_wants_mouse(const viewer_panel *p) { return p && ImGui::GetIO().WantCaptureMouse; }
extern "C" int panel_wants_keyboard(const viewer_panel *p) { return p && ImGui::GetIO().WantCaptureKeyboard; }

extern "C" void panel_destroy(viewer_panel *p)
{
    if (!p) return;
    if (p->vk_init) ImGui_ImplVulkan_Shutdown();
    if (p->glfw_init) ImGui_ImplGlfw_Shutdown();
    if (p->ctx) ImGui::DestroyContext(p->ctx);
    destroy_targets(p);
    if (p->pool) p->DestroyDescriptorPool(p->vk.device, p->pool, nullptr);
    if (p->pass) p->DestroyRenderPass(p->vk.device, p->pass, nullptr);
    delete p;
}
