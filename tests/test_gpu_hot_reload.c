/* Hot reload and memory accounting:
 *  - a mesh used by a crowd model cannot be removed (IN_USE, named); once the
 *    model is removed it can; characters naming the removed model and instances
 *    naming the removed mesh are refused (NOT_FOUND, "was removed");
 *  - the freed rest range is reused: a new mesh of the same size gets the old
 *    id and rest space (rest_used_bytes back to the same figure), and skins to
 *    the same bytes as the same mesh in a fresh skinner; many reload cycles do
 *    not grow the rest buffer's use;
 *  - a crowd frame with no characters is legal (update, begin/end);
 *  - the device-memory callbacks see every vkAllocateMemory / vkFreeMemory of
 *    the gpu and skinner layers: their live total covers the skinner's memory
 *    report, and everything is freed at the end.
 * Output poisoned before each frame; validation clean. */
#include "testutil.h"
#include <sinew/sinew.h>
#include <sinew/debug.h>

#include <string.h>

#define NJ 6
#define NV 500

typedef struct mem_count {
    uint64_t allocs, frees, live_bytes, peak_bytes;
} mem_count;

static void on_alloc(void *user, uint32_t type, VkDeviceMemory mem, VkDeviceSize size)
{
    mem_count *m = (mem_count *)user;
    (void)type;
    TU_CHECK(mem != VK_NULL_HANDLE && size > 0);
    m->allocs++;
    m->live_bytes += size;
    if (m->live_bytes > m->peak_bytes) m->peak_bytes = m->live_bytes;
}

static void on_free(void *user, uint32_t type, VkDeviceMemory mem, VkDeviceSize size)
{
    mem_count *m = (mem_count *)user;
    (void)type;
    TU_CHECK(mem != VK_NULL_HANDLE && m->live_bytes >= size);
    m->frees++;
    m->live_bytes -= size;
}

static sinew_rest_mesh *make_mesh(tu_rng *r, const sinew_skeleton *skel, uint32_t per_vertex)
{
    static float pos[3 * NV], nrm[3 * NV], w[8 * NV];
    static uint32_t j[8 * NV];
    for (uint32_t i = 0; i < NV; i++) {
        sinew_vec3 p = tu_random_vec3(r, -1, 1), n = tu_random_unit(r);
        pos[3 * i] = (float)p.x, pos[3 * i + 1] = (float)p.y, pos[3 * i + 2] = (float)p.z;
        nrm[3 * i] = (float)n.x, nrm[3 * i + 1] = (float)n.y, nrm[3 * i + 2] = (float)n.z;
        for (uint32_t k = 0; k < per_vertex; k++) {
            j[per_vertex * i + k] = (i + k) % NJ;
            w[per_vertex * i + k] = (float)tu_uniform(r, 0.1, 1.0);
        }
    }
    sinew_rest_mesh_desc d = { 0 };
    d.skeleton = skel;
    d.vertex_count = NV;
    d.positions = pos;
    d.normals = nrm;
    d.influences.per_vertex = per_vertex;
    d.influences.joints = j;
    d.influences.weights = w;
    sinew_rest_mesh *m = NULL;
    sinew_error_info e;
    TU_CHECK_OK(sinew_rest_mesh_create(&d, &m, &e));
    return m;
}

/* LBS of one mesh with a fixed palette into output [0, NV); returns positions. */
static void skin_once(sinew_skinner *sk, sinew_mesh_id mesh, const float *palette12, float *pos)
{
    TU_CHECK_OK(sinew_debug_poison_output(sk, 0, NV, 0x7fc00000u));
    sinew_frame fr;
    TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
    memcpy(fr.palette, palette12, sizeof(float) * 12 * NJ);
    sinew_instance in = { mesh, SINEW_METHOD_LBS, 0, 0, 0, true };
    TU_CHECK_OK(sinew_skinner_set_instances(sk, &in, 1, NULL));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_OK(sinew_skinner_read_output(sk, 0, NV, pos, NULL));
    for (uint32_t i = 0; i < 3 * NV; i++) TU_CHECK(isfinite(pos[i]));
}

int main(void)
{
    tu_rng r = tu_rng_seeded(0x407e10adu);
    sinew_skeleton *skel = NULL;
    TU_CHECK_OK(tu_make_random_skeleton(&r, NJ, NULL, &skel));
    mem_count mc = { 0 };
    sinew_gpu_desc gd = { 0 };
    gd.device_memory.allocate = on_alloc;
    gd.device_memory.free = on_free;
    gd.device_memory.user = &mc;
    sinew_gpu *gpu = NULL;
    TU_CHECK_OK(sinew_gpu_create(&gd, &gpu, NULL));
    if (!gpu || !skel) return tu_finish("test_gpu_hot_reload");

    sinew_skinner_desc sd = { 0 };
    sd.max_rest_vertices = 3 * NV; /* room for a 4- and an 8-influence mesh (1.5 each), not a third */
    sd.max_meshes = 4;
    sd.max_instances = 4;
    sd.max_output_vertices = 2 * NV;
    sd.max_palette_vec4 = 64;
    sinew_skinner *sk = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &sk, NULL));
    sinew_skinner_memory_report rep;
    sinew_skinner_memory(sk, &rep);
    fprintf(stderr, "skinner: %llu bytes of device buffers, callbacks: %llu allocations live %llu bytes\n",
            (unsigned long long)rep.device_bytes, (unsigned long long)(mc.allocs - mc.frees),
            (unsigned long long)mc.live_bytes);
    TU_CHECK(rep.device_bytes > 0 && mc.live_bytes >= rep.device_bytes && rep.rest_used_bytes == 0 && rep.meshes == 0);
    TU_CHECK(rep.rest_bytes == (uint64_t)3 * NV * 32 && rep.output_bytes == (uint64_t)2 * NV * 24);

    sinew_rest_mesh *m4 = make_mesh(&r, skel, 4), *m8 = make_mesh(&r, skel, 7), *m4b = make_mesh(&r, skel, 3);
    sinew_mesh_id a, b, c;
    sinew_error_info e;
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, m4, &a, &e));
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, m8, &b, &e));
    sinew_skinner_memory(sk, &rep);
    const uint64_t used_both = rep.rest_used_bytes;
    TU_CHECK(used_both == (uint64_t)NV * 32 + (uint64_t)NV * 48 && rep.meshes == 2);
    /* Full: a third mesh does not fit. */
    TU_CHECK_RESULT(sinew_skinner_add_rest_mesh(sk, m4b, &c, &e), SINEW_ERROR_CAPACITY);
    TU_CHECK(e.item == SINEW_ITEM_CAPACITY && strstr(e.message, "max_rest_vertices"));

    sinew_crowd_desc cd = { 0 };
    cd.skinner = sk;
    cd.max_characters = 2;
    cd.max_models = 2;
    cd.max_joints = NJ;
    cd.threads = 1;
    sinew_crowd *crowd = NULL;
    TU_CHECK_OK(sinew_crowd_create(&cd, &crowd, &e));
    const sinew_rest_mesh *rms[1] = { m4 };
    sinew_crowd_model_desc md = { 0 };
    md.skeleton = skel;
    md.mesh_count = 1;
    md.meshes = &a;
    md.rest_meshes = rms;
    sinew_model_id model;
    TU_CHECK_OK(sinew_crowd_add_model(crowd, &md, &model, &e));
    TU_CHECK_RESULT(sinew_skinner_remove_mesh(sk, a, &e), SINEW_ERROR_IN_USE);
    TU_CHECK(e.item == SINEW_ITEM_MESH && e.index == a.value && strstr(e.message, "crowd model"));
    TU_CHECK_OK(sinew_crowd_remove_model(crowd, model, &e));
    TU_CHECK_RESULT(sinew_crowd_remove_model(crowd, model, &e), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(e.item == SINEW_ITEM_MODEL && strstr(e.message, "already removed"));
    sinew_crowd_character ch = { 0 };
    ch.model = model;
    ch.method = SINEW_METHOD_LBS;
    TU_CHECK_RESULT(sinew_crowd_update(crowd, &ch, 1, NULL, &e), SINEW_ERROR_NOT_FOUND);
    TU_CHECK(e.item == SINEW_ITEM_CHARACTER && e.index == 0 && strstr(e.message, "was removed"));
    /* A frame with no characters is legal (the crowd emptied by the reload): nothing skinned. */
    sinew_crowd_stats st;
    TU_CHECK_OK(sinew_crowd_update(crowd, NULL, 0, &st, &e));
    TU_CHECK(st.characters == 0 && st.instances == 0 && st.output_vertices == 0);
    TU_CHECK_OK(sinew_crowd_prepare_begin(crowd, &ch, 0, NULL, &e));
    TU_CHECK_OK(sinew_crowd_prepare_end(crowd, &st, &e));
    TU_CHECK_OK(sinew_skinner_submit(sk));
    TU_CHECK_RESULT(sinew_crowd_update(crowd, NULL, 1, NULL, &e), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(e.item == SINEW_ITEM_ARGUMENT && strstr(e.message, "chars is NULL"));

    /* Remove, refuse its instances, reuse its space and id; several cycles. */
    float pal[12 * NJ];
    for (uint32_t jn = 0; jn < NJ; jn++) {
        sinew_quat q = tu_random_quat(&r);
        sinew_mat4 mt = sinew_mat4_from_rigid(q, tu_random_vec3(&r, -1, 1));
        for (int row = 0; row < 3; row++)
            for (int col = 0; col < 4; col++) pal[12 * jn + 4 * row + col] = (float)mt.m[col][row];
    }
    static float got[3 * NV], want[3 * NV];
    for (int cycle = 0; cycle < 4; cycle++) {
        TU_CHECK_OK(sinew_skinner_remove_mesh(sk, a, &e));
        TU_CHECK_RESULT(sinew_skinner_remove_mesh(sk, a, &e), SINEW_ERROR_NOT_FOUND);
        sinew_skinner_memory(sk, &rep);
        TU_CHECK(rep.rest_used_bytes == (uint64_t)NV * 48 && rep.meshes == 1);
        sinew_frame fr;
        TU_CHECK_OK(sinew_skinner_begin_frame(sk, &fr));
        sinew_instance in = { a, SINEW_METHOD_LBS, 0, 0, 0, false };
        TU_CHECK_RESULT(sinew_skinner_set_instances(sk, &in, 1, &e), SINEW_ERROR_NOT_FOUND);
        TU_CHECK(e.item == SINEW_ITEM_INSTANCE && strstr(e.message, "was removed"));
        TU_CHECK_OK(sinew_skinner_set_instances(sk, NULL, 0, NULL));
        TU_CHECK_OK(sinew_skinner_end_frame(sk, VK_NULL_HANDLE));
        sinew_rest_mesh *next = cycle % 2 ? m4 : m4b;
        TU_CHECK_OK(sinew_skinner_add_rest_mesh(sk, next, &c, &e));
        TU_CHECK(c.value == a.value);
        sinew_skinner_memory(sk, &rep);
        TU_CHECK(rep.rest_used_bytes == used_both && rep.meshes == 2);
        a = c;
        skin_once(sk, a, pal, got);
        /* The same mesh in a fresh skinner: the same bytes. */
        sinew_skinner *fresh = NULL;
        TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &fresh, NULL));
        sinew_mesh_id f;
        TU_CHECK_OK(sinew_skinner_add_rest_mesh(fresh, next, &f, NULL));
        skin_once(fresh, f, pal, want);
        TU_CHECK_MSG(memcmp(got, want, sizeof got) == 0, "cycle %d: reloaded mesh skins differently", cycle);
        sinew_skinner_destroy(fresh);
    }
    /* The 8-influence mesh still skins as in a fresh skinner after all that. */
    skin_once(sk, b, pal, got);
    sinew_skinner *fresh = NULL;
    TU_CHECK_OK(sinew_skinner_create(gpu, &sd, &fresh, NULL));
    sinew_mesh_id f;
    TU_CHECK_OK(sinew_skinner_add_rest_mesh(fresh, m8, &f, NULL));
    skin_once(fresh, f, pal, want);
    TU_CHECK(memcmp(got, want, sizeof got) == 0);
    sinew_skinner_destroy(fresh);

    sinew_crowd_destroy(crowd);
    TU_CHECK(sinew_debug_validation_message_count(gpu) == 0);
    sinew_skinner_destroy(sk);
    sinew_rest_mesh_destroy(m4);
    sinew_rest_mesh_destroy(m8);
    sinew_rest_mesh_destroy(m4b);
    fprintf(stderr, "device memory: %llu allocations, %llu frees, peak %llu bytes, %llu live after the skinners\n",
            (unsigned long long)mc.allocs, (unsigned long long)mc.frees, (unsigned long long)mc.peak_bytes,
            (unsigned long long)mc.live_bytes);
    TU_CHECK(mc.allocs > 0 && mc.allocs == mc.frees && mc.live_bytes == 0);
    sinew_gpu_destroy(gpu);
    sinew_skeleton_destroy(skel);
    return tu_finish("test_gpu_hot_reload");
}
