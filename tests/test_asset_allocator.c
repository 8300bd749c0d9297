/* Tests of sinew_asset_desc.allocator: everything Sinew allocates for an import
 * (the asset, its arrays, its skeleton and clips, the converter's temporaries)
 * goes through the caller's allocator; the balance is 0 after destroy; {NULL,
 * NULL} is the default; {f, NULL} and {NULL, f} are INVALID_ARGUMENT with a
 * message; an allocator failing after N allocations gives OUT_OF_HOST_MEMORY
 * and leaks nothing, for every N below what a successful import needs (on
 * sinew_asset_load of a small glTF and on sinew_asset_from_scene of larger
 * scenes imported once with assimp). assimp's own allocations are not
 * counted: they cannot be redirected. A progress callback that cancels at any
 * of its calls leaves nothing allocated either. */
#include "testutil.h"
#include "count_alloc.h"
#include <sinew/anim.h>
#include <sinew/asset.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <string.h>
#include <unistd.h>

#define MODELS "/usr/share/assimp/models/"

/* Loads path (or converts scene when not NULL) with the allocator al. */
static sinew_result import(const char *path, const struct aiScene *scene, uint32_t flags,
                           const sinew_allocator *al, sinew_asset **out, sinew_error_info *err)
{
    sinew_asset_desc d = { 0 };
    d.path = path;
    d.flags = flags;
    d.allocator = al;
    return scene ? sinew_asset_from_scene(scene, &d, out, err) : sinew_asset_load(&d, out, err);
}

/* Counting allocator used, balanced; a consistent asset; OOM for every N. */
static void check_import(const char *what, const char *path, const struct aiScene *scene, uint32_t flags)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    sinew_error_info err;
    sinew_asset *a = NULL;
    sinew_result r = import(path, scene, flags, &al, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s (%s)", what, sinew_result_string(r), err.message);
    if (r) return;
    long needed = ca.allocs;
    TU_CHECK_MSG(needed > 0 && ca.live_blocks > 0, "%s: the allocator was not used", what);
    /* the asset is usable: skeleton, vertices, clips sampled */
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t joints = sinew_skeleton_joint_count(sk);
    TU_CHECK(joints > 0 && sinew_asset_vertex_count(a) > 0 && sinew_asset_vertices(a) != NULL);
    sinew_transform *pose = calloc(joints, sizeof *pose);
    for (uint32_t i = 0; pose && i < sinew_asset_clip_count(a); i++)
        TU_CHECK_OK(sinew_clip_sample(sinew_asset_clip(a, i), sk, 0.1, SINEW_WRAP_LOOP, pose));
    free(pose);
    sinew_asset_destroy(a);
    TU_CHECK_MSG(ca.live_blocks == 0 && ca.live_bytes == 0, "%s: %ld blocks, %lld bytes left after destroy",
                 what, ca.live_blocks, ca.live_bytes);
    TU_CHECK(ca.bad_align == 0 && ca.bad_free == 0);
    fprintf(stderr, "%s: %ld allocation(s) through the allocator\n", what, needed);
    /* every N below what the import needs */
    long failures = 0;
    for (long n = 0; n < needed; n++) {
        ca_init(&ca);
        ca.fail_after = n;
        a = (sinew_asset *)&ca;
        err.message[0] = 0;
        r = import(path, scene, flags, &al, &a, &err);
        if (r != SINEW_ERROR_OUT_OF_HOST_MEMORY || a != NULL || ca.live_blocks != 0) {
            if (failures++ < 5)
                fprintf(stderr, "%s failing after %ld: %s (%s), *out %p, %ld blocks left\n", what, n,
                        sinew_result_string(r), err.message, (void *)a, ca.live_blocks);
            if (r == SINEW_OK) sinew_asset_destroy(a);
        }
        TU_CHECK_MSG(err.message[0] != 0, "%s failing after %ld: no message", what, n);
    }
    TU_CHECK_MSG(failures == 0, "%s: %ld of %ld failure points misbehaved", what, failures, needed);
    ca_init(&ca);
    ca.fail_after = needed;
    TU_CHECK_OK(import(path, scene, flags, &al, &a, NULL));
    sinew_asset_destroy(a);
    TU_CHECK(ca.live_blocks == 0);
}

/* Progress and cancel (sinew_asset_desc.progress): fractions rise within
 * [0, 1]; stopping at every call in turn gives CANCELLED, *out NULL, an error
 * item NONE with a message, and nothing left allocated. */
typedef struct progress_state { int calls, stop_at, bad; double last; } progress_state;

static bool on_progress(void *user, double f)
{
    progress_state *p = user;
    p->calls++;
    if (!(f >= p->last && f <= 1.0)) p->bad++;
    p->last = f;
    return p->stop_at == 0 || p->calls < p->stop_at;
}

static void check_cancel(const char *what, const char *path, const struct aiScene *scene, uint32_t flags)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator al = ca_allocator(&ca);
    progress_state ps = { 0, 0, 0, 0.0 };
    sinew_asset_desc d = { 0 };
    d.path = path;
    d.flags = flags;
    d.allocator = &al;
    d.progress = on_progress;
    d.progress_user = &ps;
    sinew_error_info err;
    sinew_asset *a = NULL;
    sinew_result r = scene ? sinew_asset_from_scene(scene, &d, &a, &err) : sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s (%s)", what, sinew_result_string(r), err.message);
    sinew_asset_destroy(a);
    int total = ps.calls;
    TU_CHECK_MSG(total >= 2 && ps.bad == 0, "%s: %d progress calls, %d out of order", what, total, ps.bad);
    for (int stop = 1; stop <= total; stop++) {
        ca_init(&ca);
        ps.calls = 0; ps.bad = 0; ps.last = 0; ps.stop_at = stop;
        a = (sinew_asset *)&ca;
        r = scene ? sinew_asset_from_scene(scene, &d, &a, &err) : sinew_asset_load(&d, &a, &err);
        TU_CHECK_MSG(r == SINEW_ERROR_CANCELLED && a == NULL && ca.live_blocks == 0 && ps.calls == stop,
                     "%s: stop at call %d of %d: %s, *out %p, %ld blocks left, %d calls", what, stop, total,
                     sinew_result_string(r), (void *)a, ca.live_blocks, ps.calls);
        TU_CHECK(err.result == SINEW_ERROR_CANCELLED && err.item == SINEW_ITEM_NONE && strstr(err.message, "cancelled"));
    }
    printf("%s: cancelled at each of %d progress calls, nothing leaked\n", what, total);
}

/* The allocator rule on both entry points. */
static void check_rule(const char *path, const struct aiScene *scene)
{
    count_alloc ca;
    ca_init(&ca);
    sinew_allocator none = { NULL, NULL, &ca };
    sinew_allocator half1 = { ca_alloc, NULL, &ca }, half2 = { NULL, ca_free, &ca };
    sinew_asset *a = NULL;
    sinew_error_info err;
    TU_CHECK_OK(import(path, scene, 0, &none, &a, &err));
    TU_CHECK(a != NULL);
    sinew_asset_destroy(a);
    TU_CHECK_OK(import(path, scene, 0, NULL, &a, &err));
    sinew_asset_destroy(a);
    const sinew_allocator *bad[2] = { &half1, &half2 };
    for (int i = 0; i < 2; i++) {
        a = (sinew_asset *)&ca;
        err.message[0] = 0;
        TU_CHECK_RESULT(import(path, scene, 0, bad[i], &a, &err), SINEW_ERROR_INVALID_ARGUMENT);
        TU_CHECK(a == NULL && err.message[0] != 0);
    }
    TU_CHECK_MSG(ca.allocs == 0, "a refused or empty allocator was used (%ld allocations)", ca.allocs);
}

/* ---- a hand-built wide scene: root with WIDE bone children, one mesh on the
 * root with a vertex per bone, and an animation with unordered keys. It makes
 * the converter's growing arrays (nodes, DFS stack, bind candidates) grow and
 * its key sorting allocate, so those paths are under the failure loop too. */
#define WIDE 100
typedef struct wide_scene {
    struct aiScene scene;
    struct aiNode root, bones[WIDE];
    struct aiNode *children[WIDE];
    unsigned int root_meshes[1];
    struct aiMesh mesh;
    struct aiMesh *meshes[1];
    struct aiVector3D verts[WIDE], normals[WIDE];
    struct aiFace faces[WIDE - 2];
    unsigned int idx[WIDE - 2][3];
    struct aiBone bone[WIDE];
    struct aiBone *bone_list[WIDE];
    struct aiVertexWeight weight[WIDE];
    struct aiAnimation anim;
    struct aiAnimation *anims[1];
    struct aiNodeAnim ch;
    struct aiNodeAnim *channels[1];
    struct aiVectorKey pos[3];
} wide_scene;


static struct aiMatrix4x4 ai_translate(double x, double y, double z)
{
    struct aiMatrix4x4 m;
    memset(&m, 0, sizeof m);
    m.a1 = m.b2 = m.c3 = m.d4 = 1;
    m.a4 = (ai_real)x; m.b4 = (ai_real)y; m.c4 = (ai_real)z;
    return m;
}

static void set_name(struct aiString *str, const char *name)
{
    str->length = (ai_uint32)strlen(name);
    memcpy(str->data, name, str->length + 1);
}

static void wide_init(wide_scene *w)
{
    memset(w, 0, sizeof *w);
    set_name(&w->root.mName, "root");
    w->root.mTransformation = ai_translate(0, 0, 0);
    w->root.mNumChildren = WIDE; w->root.mChildren = w->children;
    w->root.mNumMeshes = 1; w->root.mMeshes = w->root_meshes;
    for (int i = 0; i < WIDE; i++) {
        char name[32];
        snprintf(name, sizeof name, "bone%d", i);
        set_name(&w->bones[i].mName, name);
        w->bones[i].mTransformation = ai_translate(i, 0, 0);
        w->bones[i].mParent = &w->root;
        w->children[i] = &w->bones[i];
        w->verts[i].x = (ai_real)i; w->verts[i].y = (ai_real)(i % 2);
        w->normals[i].z = 1;
        set_name(&w->bone[i].mName, name);
        w->bone[i].mOffsetMatrix = ai_translate(-i, 0, 0);
        w->weight[i].mVertexId = (unsigned)i; w->weight[i].mWeight = 1;
        w->bone[i].mNumWeights = 1; w->bone[i].mWeights = &w->weight[i];
        w->bone_list[i] = &w->bone[i];
    }
    for (int f = 0; f < WIDE - 2; f++) {
        for (int e = 0; e < 3; e++) w->idx[f][e] = (unsigned)(f + e);
        w->faces[f].mNumIndices = 3; w->faces[f].mIndices = w->idx[f];
    }
    set_name(&w->mesh.mName, "strip");
    w->mesh.mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
    w->mesh.mNumVertices = WIDE; w->mesh.mVertices = w->verts; w->mesh.mNormals = w->normals;
    w->mesh.mNumFaces = WIDE - 2; w->mesh.mFaces = w->faces;
    w->mesh.mNumBones = WIDE; w->mesh.mBones = w->bone_list;
    w->meshes[0] = &w->mesh;
    /* keys out of order: the importer sorts them */
    const double times[3] = { 10, 0, 5 };
    for (int k = 0; k < 3; k++) { w->pos[k].mTime = times[k]; w->pos[k].mValue.y = (ai_real)k; }
    set_name(&w->ch.mNodeName, "bone7");
    w->ch.mNumPositionKeys = 3; w->ch.mPositionKeys = w->pos;
    w->channels[0] = &w->ch;
    set_name(&w->anim.mName, "wave");
    w->anim.mDuration = 10; w->anim.mTicksPerSecond = 25;
    w->anim.mNumChannels = 1; w->anim.mChannels = w->channels;
    w->anims[0] = &w->anim;
    w->scene.mRootNode = &w->root;
    w->scene.mNumMeshes = 1; w->scene.mMeshes = w->meshes;
    w->scene.mNumAnimations = 1; w->scene.mAnimations = w->anims;
}

static const struct aiScene *read_scene(const char *path)
{
    const struct aiScene *s = aiImportFile(path, aiProcess_Triangulate | aiProcess_GenSmoothNormals |
                                                 aiProcess_ValidateDataStructure);
    if (!s) fprintf(stderr, "assimp cannot read %s: %s\n", path, aiGetErrorString());
    return s;
}

int main(void)
{
    const char *small = MODELS "glTF2/simple_skin/simple_skin.gltf";
    if (access(small, R_OK) != 0) {
        fprintf(stderr, "SKIP: %s not installed (assimp-testmodels)\n", small);
        return tu_finish("test_asset_allocator");
    }
    check_rule(small, NULL);
    check_import("load simple_skin.gltf", small, NULL, 0);
    check_cancel("cancel simple_skin.gltf", small, NULL, 0);
    check_cancel("cancel huesitos.fbx", MODELS "FBX/huesitos.fbx", NULL, 0);
    check_cancel("cancel MotionCaptureROM.ase (26 meshes)", MODELS "ASE/MotionCaptureROM.ase", NULL, 0);

    /* larger scenes through sinew_asset_from_scene: assimp reads each once */
    static const struct { const char *path; uint32_t flags; } scenes[] = {
        { MODELS "FBX/huesitos.fbx", 0 },                                   /* 12 joints, 1 clip */
        { MODELS "X/anim_test.x", SINEW_ASSET_ALLOW_MISSING_BONES },        /* missing bones */
        { MODELS "Collada/box_nested_animation.dae", 0 },                   /* node animation */
        { MODELS "MD5/SimpleCube.md5mesh", 0 },
        { MODELS "X/BCN_Epileptic.X", 0 },                                  /* > 64 nodes: arrays grow */
        { MODELS "ASE/MotionCaptureROM.ase", 0 },                           /* 26 rigid meshes */
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        const struct aiScene *s = read_scene(scenes[i].path);
        TU_CHECK(s != NULL);
        if (!s) continue;
        if (i == 0) check_rule(NULL, s);
        check_import(scenes[i].path + strlen(MODELS), NULL, s, scenes[i].flags);
        aiReleaseImport(s);
    }
    static wide_scene wide;
    wide_init(&wide);
    check_import("hand-built wide scene", NULL, &wide.scene, 0);
    check_cancel("cancel hand-built wide scene", NULL, &wide.scene, 0);
    return tu_finish("test_asset_allocator");
}
