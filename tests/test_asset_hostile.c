/* Hostile input for the importer:
 *  1. truncated and bit-flipped copies of small real models, written to a temp
 *     directory (deterministic seed), each imported in a forked child with a
 *     time limit: every one must end in success or a clean error (no signal,
 *     no hang); counts are printed;
 *  2. hand-built assimp scenes through sinew_asset_from_scene: a valid one
 *     (unweighted vertices, a moved mesh node, conflicting binds, unordered
 *     keys) and one per error path: missing bones, out-of-range vertex / face /
 *     mesh indices, bad weights, zero vertices, NULL lists, limits (vertices,
 *     joints, keys, clips, nodes / node cycle), non-finite and singular
 *     transforms, bad animations;
 *  3. sinew_asset_load argument and file errors. */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <sinew/anim.h>
#include <sinew/asset.h>
#include <assimp/scene.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODELS "/usr/share/assimp/models/"

/* ---- 1. damaged files ------------------------------------------------------ */

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) { fclose(f); return NULL; }
    unsigned char *b = malloc((size_t)n + 1);   /* NUL-terminated for text checks */
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return b;
}

static int write_all(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* assimp alone, with the importer's settings, in a child: 0 returned (scene or
 * error), 2 crashed, 3 hung (3 s). Tells assimp's own failures from ours. */
static int assimp_isolated(const char *path)
{
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        alarm(3);
        struct aiPropertyStore *props = aiCreatePropertyStore();
        aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
        const struct aiScene *s = aiImportFileExWithProperties(path, aiProcess_Triangulate | aiProcess_ValidateDataStructure, NULL, props);
        if (s) s = aiApplyPostProcessing(s, aiProcess_GenSmoothNormals);
        if (s) aiReleaseImport(s);
        aiReleasePropertyStore(props);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {}
    if (WIFEXITED(st)) return 0;
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? 3 : 2;
}

/* The CLI on a file that crashes or hangs assimp: exit 3 and a message, never a signal. */
static void check_cli_survives(const char *path)
{
    if (access("bin/sinew", X_OK) != 0) { fprintf(stderr, "  (bin/sinew not built: CLI check skipped)\n"); return; }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "bin/sinew info '%s' --timeout 3 > /dev/null 2> cli_err.txt", path);
    int st = system(cmd);
    size_t n = 0;
    unsigned char *err = read_all("cli_err.txt", &n);
    TU_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 3, "CLI on %s: status %d", path, st);
    TU_CHECK_MSG(err && n > 0 && (strstr((char *)err, "crashed") || strstr((char *)err, "gave up")),
                 "CLI on %s: no crash/timeout message", path);
    free(err);
    remove("cli_err.txt");
}

/* Imports in a child: 0 ok, 1 clean error, 2 crash (signal), 3 timeout. */
static int import_isolated(const char *path)
{
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        alarm(30);
        sinew_error_info err;
        sinew_asset_desc d = { 0 };
        d.path = path;
        sinew_asset *a = NULL;
        sinew_result r = sinew_asset_load(&d, &a, &err);
        if (r == SINEW_OK) {
            /* exercise the result: sampling and reference skinning at the bind pose */
            const sinew_skeleton *sk = sinew_asset_skeleton(a);
            uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
            sinew_transform *pose = calloc(nj, sizeof *pose);
            sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(nj), sizeof *scratch);
            sinew_palette_joint *pal = calloc(nj, sizeof *pal);
            double *pos = calloc((size_t)nv * 3, sizeof *pos);
            for (uint32_t c = 0; c < sinew_asset_clip_count(a); c++)
                sinew_clip_sample(sinew_asset_clip(a, c), sk, 0.3, SINEW_WRAP_LOOP, pose);
            if (sinew_asset_bind_pose(a, pose) == SINEW_OK &&
                sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal) == SINEW_OK)
                sinew_reference_skin(nv, sinew_asset_vertices(a), NULL, pal, nj, SINEW_METHOD_LBS, 0, pos, NULL);
            free(pose); free(scratch); free(pal); free(pos);
            sinew_asset_destroy(a);
            _exit(0);
        }
        /* a clean error must come with a message */
        _exit(err.message[0] ? 10 : 11);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {}
    if (WIFEXITED(st)) {
        if (WEXITSTATUS(st) == 0) return 0;
        if (WEXITSTATUS(st) == 10) return 1;
        fprintf(stderr, "  %s: error without a message (exit %d)\n", path, WEXITSTATUS(st));
        return 4;
    }
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) return 3;
    fprintf(stderr, "  %s: crashed with signal %d\n", path, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return 2;
}

static void test_damaged_files(tu_rng *rng)
{
    static const char *const files[] = {
        MODELS "glTF2/simple_skin/simple_skin.gltf", MODELS "FBX/huesitos.fbx",
        MODELS "X/test_cube_text.x", MODELS "X/test_cube_binary.x", MODELS "SMD/triangle.smd",
        MODELS "Collada/box_nested_animation.dae", MODELS "MD5/SimpleCube.md5mesh",
        MODELS "MDL/MDL (HL1)/man.mdl",
    };
    char dir[] = "/tmp/sinew_hostile_XXXXXX";
    if (!mkdtemp(dir)) { TU_CHECK_MSG(0, "mkdtemp failed"); return; }
    int counts[5] = { 0 };
    int total = 0, assimp_crash = 0, assimp_hang = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n = 0;
        unsigned char *orig = read_all(files[f], &n);
        TU_CHECK_MSG(orig != NULL, "cannot read %s", files[f]);
        if (!orig) continue;
        const char *ext = strrchr(files[f], '.');
        unsigned char *buf = malloc(n);
        for (int v = 0; v < 36; v++) {
            size_t len = n;
            memcpy(buf, orig, n);
            if (v < 12) {
                len = n * (size_t)v / 12;
                /* truncated: 0, 1/12, ... 11/12 */
            } else {
                int flips = 1 + (int)tu_range(rng, v < 24 ? 4 : 64);  /* few or many bit flips */
                for (int k = 0; k < flips; k++) buf[tu_range(rng, (uint32_t)n)] ^= (unsigned char)(1u << tu_range(rng, 8));
            }
            char path[256];
            snprintf(path, sizeof path, "%s/m%zu_%d%s", dir, f, v, ext);
            if (!write_all(path, buf, len)) { TU_CHECK_MSG(0, "cannot write %s", path); continue; }
            total++;
            int ra = assimp_isolated(path);
            if (ra) {
                /* assimp 5.2.5 itself crashes or loops on this file: nothing the
                 * library can do in-process; the CLI must report it */
                if (ra == 2) assimp_crash++; else assimp_hang++;
                check_cli_survives(path);
                remove(path);
                continue;
            }
            int r = import_isolated(path);
            counts[r]++;
            if (r >= 2) fprintf(stderr, "  kept for inspection: %s\n", path);
            else remove(path);
        }
        free(buf);
        free(orig);
    }
    fprintf(stderr, "damaged files: %d imported, %d clean errors, %d crashes, %d timeouts, %d errors without message; "
            "assimp alone crashed on %d and hung on %d (CLI reported them) (of %d)\n",
            counts[0], counts[1], counts[2], counts[3], counts[4], assimp_crash, assimp_hang, total);
    TU_CHECK(counts[2] == 0 && counts[3] == 0 && counts[4] == 0);
    TU_CHECK(counts[0] + counts[1] + assimp_crash + assimp_hang == total && total == 36 * (int)(sizeof files / sizeof files[0]));
    rmdir(dir); /* fails (harmlessly) if a crasher was kept */
}

/* ---- 2. hand-built scenes ---------------------------------------------------- */

static void set_name(struct aiString *s, const char *name)
{
    s->length = (ai_uint32)strlen(name);
    memcpy(s->data, name, s->length + 1);
}

static struct aiMatrix4x4 ai_identity(void)
{
    struct aiMatrix4x4 m;
    memset(&m, 0, sizeof m);
    m.a1 = m.b2 = m.c3 = m.d4 = 1;
    return m;
}

static struct aiMatrix4x4 ai_translate(double x, double y, double z)
{
    struct aiMatrix4x4 m = ai_identity();
    m.a4 = (ai_real)x; m.b4 = (ai_real)y; m.c4 = (ai_real)z;
    return m;
}

/* A small valid character: root -> { body (mesh 0, moved by +5 in z), bone0 -> bone1 }.
 * Mesh: 4 vertices along x at 0, 1, 2, 3; triangles (0,1,2), (1,3,2) and one line.
 * bone0 weights v0 1, v1 0.5 (+ a repeated 0.25 entry merged), bone1 v1 0.25, v2 1;
 * v3 has no weight -> bound to body. Second mesh (also on body) binds bone1
 * with a different offset -> a duplicated joint. */
typedef struct scene_kit {
    struct aiScene scene;
    struct aiNode root, body, bone0, bone1;
    struct aiNode *root_children[2], *bone0_children[1];
    unsigned int body_meshes[2];
    struct aiMesh mesh, mesh2;
    struct aiMesh *meshes[2];
    struct aiVector3D verts[4], normals[4];
    struct aiFace faces[3];
    unsigned int idx[3][3];
    struct aiBone b0, b1, b2;
    struct aiBone *bones[2], *bones2[1];
    struct aiVertexWeight w0[3], w1[2], w2[4];
    struct aiAnimation anim;
    struct aiAnimation *anims[1];
    struct aiNodeAnim ch0, ch1;
    struct aiNodeAnim *channels[2];
    struct aiVectorKey pos[3];
    struct aiQuatKey rot[2];
} scene_kit;


static void kit_init(scene_kit *k)
{
    memset(k, 0, sizeof *k);
    set_name(&k->root.mName, "root");
    set_name(&k->body.mName, "body");
    set_name(&k->bone0.mName, "bone0");
    set_name(&k->bone1.mName, "bone1");
    k->root.mTransformation = ai_identity();
    k->body.mTransformation = ai_translate(0, 0, 5);
    k->bone0.mTransformation = ai_identity();
    k->bone1.mTransformation = ai_translate(1.5, 0, 0);
    k->root_children[0] = &k->body; k->root_children[1] = &k->bone0;
    k->root.mNumChildren = 2; k->root.mChildren = k->root_children;
    k->body.mParent = &k->root; k->bone0.mParent = &k->root;
    k->bone0_children[0] = &k->bone1;
    k->bone0.mNumChildren = 1; k->bone0.mChildren = k->bone0_children;
    k->bone1.mParent = &k->bone0;
    k->body.mNumMeshes = 2; k->body.mMeshes = k->body_meshes;
    k->body_meshes[0] = 0; k->body_meshes[1] = 1;
    for (int i = 0; i < 4; i++) {
        k->verts[i].x = (ai_real)i; k->verts[i].y = (ai_real)(i % 2); k->verts[i].z = 0;
        k->normals[i].x = 0; k->normals[i].y = 0; k->normals[i].z = 1;
    }
    k->idx[0][0] = 0; k->idx[0][1] = 1; k->idx[0][2] = 2;
    k->idx[1][0] = 1; k->idx[1][1] = 3; k->idx[1][2] = 2;
    k->idx[2][0] = 0; k->idx[2][1] = 3;
    for (int f = 0; f < 3; f++) { k->faces[f].mNumIndices = f < 2 ? 3 : 2; k->faces[f].mIndices = k->idx[f]; }
    set_name(&k->mesh.mName, "skin");
    k->mesh.mNumVertices = 4; k->mesh.mVertices = k->verts; k->mesh.mNormals = k->normals;
    k->mesh.mNumFaces = 3; k->mesh.mFaces = k->faces;
    set_name(&k->b0.mName, "bone0");
    set_name(&k->b1.mName, "bone1");
    /* offsets: mesh space -> bone space at bind; the mesh node is at z=5 */
    k->b0.mOffsetMatrix = ai_translate(0, 0, 5);
    k->b1.mOffsetMatrix = ai_translate(-1.5, 0, 5);
    k->w0[0].mVertexId = 0; k->w0[0].mWeight = 1;
    k->w0[1].mVertexId = 1; k->w0[1].mWeight = 0.5f;
    k->w0[2].mVertexId = 1; k->w0[2].mWeight = 0.25f;   /* repeated: merged to 0.75 */
    k->w1[0].mVertexId = 1; k->w1[0].mWeight = 0.25f;
    k->w1[1].mVertexId = 2; k->w1[1].mWeight = 1;
    k->b0.mNumWeights = 3; k->b0.mWeights = k->w0;
    k->b1.mNumWeights = 2; k->b1.mWeights = k->w1;
    k->bones[0] = &k->b0; k->bones[1] = &k->b1;
    k->mesh.mNumBones = 2; k->mesh.mBones = k->bones;
    /* mesh 2: same vertices, bone1 with a different bind (conflict) */
    set_name(&k->mesh2.mName, "skin2");
    k->mesh2.mNumVertices = 4; k->mesh2.mVertices = k->verts; k->mesh2.mNormals = k->normals;
    k->mesh2.mNumFaces = 2; k->mesh2.mFaces = k->faces;
    set_name(&k->b2.mName, "bone1");
    k->b2.mOffsetMatrix = ai_translate(-1.0, 0, 5);
    for (int i = 0; i < 4; i++) { k->w2[i].mVertexId = (unsigned)i; k->w2[i].mWeight = 1; }
    k->b2.mNumWeights = 4; k->b2.mWeights = k->w2;
    k->bones2[0] = &k->b2;
    k->mesh2.mNumBones = 1; k->mesh2.mBones = k->bones2;
    k->meshes[0] = &k->mesh; k->meshes[1] = &k->mesh2;

    /* animation: bone1 translation keys given out of order; a channel for an unknown node */
    set_name(&k->anim.mName, "wave");
    k->anim.mDuration = 20;
    k->anim.mTicksPerSecond = 0; /* -> 25 */
    set_name(&k->ch0.mNodeName, "bone1");
    k->pos[0].mTime = 20; k->pos[0].mValue.x = 3;
    k->pos[1].mTime = 0; k->pos[1].mValue.x = 1;
    k->pos[2].mTime = 10; k->pos[2].mValue.x = 2;
    k->ch0.mNumPositionKeys = 3; k->ch0.mPositionKeys = k->pos;
    k->rot[0].mTime = 0; k->rot[0].mValue.w = 1;
    k->rot[1].mTime = 20; k->rot[1].mValue.w = (ai_real)cos(M_PI / 4); k->rot[1].mValue.z = (ai_real)sin(M_PI / 4);
    k->ch0.mNumRotationKeys = 2; k->ch0.mRotationKeys = k->rot;
    set_name(&k->ch1.mNodeName, "camera");
    k->ch1.mNumPositionKeys = 1; k->ch1.mPositionKeys = k->pos;
    k->channels[0] = &k->ch0; k->channels[1] = &k->ch1;
    k->anim.mNumChannels = 2; k->anim.mChannels = k->channels;
    k->anims[0] = &k->anim;
    k->scene.mRootNode = &k->root;
    k->scene.mNumMeshes = 2; k->scene.mMeshes = k->meshes;
    k->scene.mNumAnimations = 1; k->scene.mAnimations = k->anims;
}

static sinew_result kit_import(scene_kit *k, const sinew_asset_desc *d0, const char *expect_in_msg)
{
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    if (d0) d = *d0;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_from_scene(&k->scene, &d, &a, &err);
    if (r) {
        TU_CHECK(a == NULL);
        TU_CHECK_MSG(err.message[0] != 0, "no message for %s", sinew_result_string(r));
        if (expect_in_msg) TU_CHECK_MSG(strstr(err.message, expect_in_msg) != NULL, "message '%s' lacks '%s'", err.message, expect_in_msg);
    }
    sinew_asset_destroy(a);
    return r;
}

static void test_valid_scene(void)
{
    static scene_kit k;
    kit_init(&k);
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    sinew_asset *a = NULL;
    TU_CHECK_OK(sinew_asset_from_scene(&k.scene, &d, &a, &err));
    if (!a) { fprintf(stderr, "message: %s\n", err.message); return; }
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    const sinew_asset_import_stats *st = sinew_asset_stats(a);
    /* joints: root, body, bone0, bone1 + bone1's duplicate */
    TU_CHECK(sinew_skeleton_joint_count(sk) == 5);
    TU_CHECK(st->duplicated_joints == 1);
    TU_CHECK(sinew_asset_vertex_count(a) == 8 && sinew_asset_index_count(a) == 12);
    TU_CHECK(st->dropped_faces == 1);
    TU_CHECK(st->unweighted_vertices == 1 && sinew_asset_mesh(a, 0)->unweighted_vertices == 1);
    TU_CHECK(st->influence_histogram[0] == 1 && st->influence_histogram[1] == 6 && st->influence_histogram[2] == 1);
    TU_CHECK(st->ignored_channels == 1);
    TU_CHECK(st->bones == 3 && st->skinned_meshes == 2);
    int32_t body = sinew_skeleton_find(sk, "body");
    TU_CHECK(body >= 0 && sinew_asset_mesh(a, 0)->node_joint == (uint32_t)body);
    /* model space: the mesh node's +5 z is applied */
    const double *rp = sinew_asset_rest_positions(a);
    TU_CHECK_NEAR(rp[3 * 3 + 0], 3.0, 0);
    TU_CHECK_NEAR(rp[3 * 3 + 2], 5.0, 0);
    /* vertex 1: bone0 0.75 (merged), bone1 0.25 -> packed 0.75 / 0.25 */
    const sinew_vertex *v = sinew_asset_vertices(a);
    TU_CHECK_NEAR(sinew_vertex_weight(&v[1], 0), 0.75, 1.0 / 65535);
    TU_CHECK_NEAR(sinew_vertex_weight(&v[1], 1), 0.25, 1.0 / 65535);
    TU_CHECK(v[3].joints[0] == (uint16_t)body && v[3].weights[0] == 65535);
    /* bind pose reproduces the rest mesh, for both meshes (different binds of bone1) */
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    sinew_transform pose[5];
    sinew_mat4 scratch[64];
    sinew_palette_joint pal[5];
    double pos[8 * 3];
    TU_CHECK(sinew_palette_scratch_count(nj) <= 64);
    TU_CHECK_OK(sinew_asset_bind_pose(a, pose));
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal));
    TU_CHECK_OK(sinew_reference_skin(nv, v, NULL, pal, nj, SINEW_METHOD_LBS, 0, pos, NULL));
    double e = 0;
    for (int i = 0; i < 24; i++) e = fmax(e, fabs(pos[i] - rp[i]));
    TU_CHECK_MSG(e < 1e-6, "bind pose error %g", e);
    /* animation: keys were sorted; at 10 ticks (0.4 s at the default 25/s) bone1 is at x = 2;
    * moving bone1 by +0.5 moves vertex 2 (all on bone1) by +0.5 in x */
    TU_CHECK(sinew_asset_clip_count(a) == 1);
    const sinew_clip *clip = sinew_asset_clip(a, 0);
    TU_CHECK(strcmp(sinew_clip_name(clip), "wave") == 0 && sinew_asset_find_clip(a, "wave") == 0 && sinew_asset_find_clip(a, "x") == -1);
    TU_CHECK_NEAR(sinew_clip_duration(clip), 0.8, 1e-12);
    TU_CHECK_OK(sinew_clip_sample(clip, sk, 0.4, SINEW_WRAP_CLAMP, pose));
    int32_t b1 = sinew_skeleton_find(sk, "bone1");
    TU_CHECK(b1 >= 0 && fabs(pose[b1].translation.x - 2.0) < 1e-12);
    TU_CHECK(fabs(pose[b1 + 1].translation.x - 2.0) < 1e-12); /* the duplicate is animated too */
    TU_CHECK_OK(sinew_clip_sample(clip, sk, 0.0, SINEW_WRAP_CLAMP, pose));
    TU_CHECK_OK(sinew_palette_build(sk, SINEW_METHOD_LBS, pose, NULL, scratch, pal));
    TU_CHECK_OK(sinew_reference_skin(nv, v, NULL, pal, nj, SINEW_METHOD_LBS, 0, pos, NULL));
    /* at t=0 bone1 is at x=1 (key) vs rest 1.5: vertex 2 moves by -0.5 */
    TU_CHECK_NEAR(pos[2 * 3 + 0], rp[2 * 3 + 0] - 0.5, 1e-6);
    sinew_asset_destroy(a);
}

/* The kit every case below starts from (kit_init), static: it is large. */
static scene_kit k;


/* NULL scene or out; a NULL desc is fine. */
static void test_scene_null_args(void)
{
    sinew_asset *a = NULL;
    sinew_error_info err;
    TU_CHECK_RESULT(sinew_asset_from_scene(NULL, NULL, &a, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.result == SINEW_ERROR_INVALID_ARGUMENT && err.item == SINEW_ITEM_ARGUMENT && strstr(err.message, "scene"));
    kit_init(&k);
    TU_CHECK_RESULT(sinew_asset_from_scene(&k.scene, NULL, NULL, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.item == SINEW_ITEM_ARGUMENT && strstr(err.message, "out"));
    TU_CHECK_OK(sinew_asset_from_scene(&k.scene, NULL, &a, &err)); /* desc may be NULL */
    TU_CHECK(err.result == SINEW_OK && err.item == SINEW_ITEM_NONE && err.message[0] == 0);
    sinew_asset_destroy(a);
    TU_CHECK_OK(sinew_asset_from_scene(&k.scene, NULL, &a, NULL)); /* err may be NULL */
    sinew_asset_destroy(a);
}

/* Weights naming a missing bone: an error, or with ALLOW_MISSING_BONES
 * counted, the weights dropped. */
static void test_scene_missing_bone(void)
{
    sinew_asset_desc d = { 0 };
    sinew_asset *a = NULL;
    kit_init(&k); set_name(&k.b1.mName, "ghost");
    TU_CHECK_RESULT(kit_import(&k, NULL, "ghost"), SINEW_ERROR_NOT_FOUND);
    d.flags = SINEW_ASSET_ALLOW_MISSING_BONES;
    {
        sinew_error_info err;
        sinew_asset_desc dd = d;
        TU_CHECK_OK(sinew_asset_from_scene(&k.scene, &dd, &a, &err));
        if (a) {
            TU_CHECK(sinew_asset_stats(a)->missing_bones == 1 && sinew_asset_stats(a)->missing_bone_weights == 2);
            /* vertex 2 lost its only weight: bound to body; vertex 1 keeps bone0 only */
            TU_CHECK(sinew_asset_stats(a)->unweighted_vertices == 2);
            TU_CHECK(sinew_asset_vertices(a)[1].weights[0] == 65535);
        }
        sinew_asset_destroy(a);
    }
}

/* Meshes, faces, bones and weights: out-of-range vertex / face / mesh
 * indices, bad weights, zero vertices, NULL lists, non-finite vertices. */
static void test_scene_mesh_errors(void)
{
    kit_init(&k); k.w1[1].mVertexId = 4;
    TU_CHECK_RESULT(kit_import(&k, NULL, "vertex 4 of 4"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.w1[1].mWeight = NAN;
    TU_CHECK_RESULT(kit_import(&k, NULL, "weight"), SINEW_ERROR_INVALID_WEIGHT);
    kit_init(&k); k.w1[1].mWeight = -0.5f;
    TU_CHECK_RESULT(kit_import(&k, NULL, "weight"), SINEW_ERROR_INVALID_WEIGHT);
    kit_init(&k); k.w0[0].mWeight = 3e38f; k.w0[1].mWeight = 3e38f; k.w0[2].mWeight = 3e38f; /* sums overflow */
    TU_CHECK(kit_import(&k, NULL, NULL) != SINEW_OK);
    kit_init(&k); k.idx[1][1] = 9;
    TU_CHECK_RESULT(kit_import(&k, NULL, "names vertex 9"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.faces[0].mIndices = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "index list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.mesh.mNumVertices = 0;
    TU_CHECK_RESULT(kit_import(&k, NULL, "no vertices"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.mesh.mVertices = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "no vertices"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.body_meshes[1] = 7;
    TU_CHECK_RESULT(kit_import(&k, NULL, "mesh 7 of 2"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.meshes[1] = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NULL"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.mesh.mBones = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "bone list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.bones[1] = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NULL"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.b0.mWeights = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "weight list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.verts[2].y = NAN;
    TU_CHECK_RESULT(kit_import(&k, NULL, "vertex 2"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.normals[2].y = NAN;   /* a NaN normal becomes zero, not an error */
    TU_CHECK_RESULT(kit_import(&k, NULL, NULL), SINEW_OK);
}

/* Nodes: NULL lists, non-finite and singular transforms, no root, no mesh. */
static void test_scene_node_errors(void)
{
    kit_init(&k); k.root.mChildren = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "child list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.root_children[1] = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NULL child"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.body.mMeshes = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "mesh list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.bone1.mTransformation.a4 = INFINITY;
    TU_CHECK_RESULT(kit_import(&k, NULL, "non-finite"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.b0.mOffsetMatrix.b2 = NAN;
    TU_CHECK_RESULT(kit_import(&k, NULL, "offset"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.body.mTransformation.a1 = 0; /* singular mesh node with bones */
    TU_CHECK_RESULT(kit_import(&k, NULL, "singular"), SINEW_ERROR_SINGULAR);
    kit_init(&k); k.bone0.mTransformation.b2 = 0;  /* a joint axis of length 0 */
    TU_CHECK(kit_import(&k, NULL, NULL) != SINEW_OK);
    kit_init(&k); k.scene.mRootNode = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "root"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.scene.mNumMeshes = 0;
    TU_CHECK_RESULT(kit_import(&k, NULL, "no mesh"), SINEW_ERROR_EMPTY);
    kit_init(&k); k.body.mNumMeshes = 0;
    TU_CHECK_RESULT(kit_import(&k, NULL, "no node refers"), SINEW_ERROR_EMPTY);
}

/* Animations: NaN / infinite keys, zero quaternion, bad ticks and duration,
 * NULL lists. */
static void test_scene_animation_errors(void)
{
    kit_init(&k); k.pos[1].mTime = NAN;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NaN"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.pos[0].mValue.y = INFINITY;
    TU_CHECK_RESULT(kit_import(&k, NULL, "wave"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.rot[0].mValue.w = 0;   /* zero quaternion */
    TU_CHECK_RESULT(kit_import(&k, NULL, "wave"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.anim.mTicksPerSecond = -1;
    TU_CHECK_RESULT(kit_import(&k, NULL, "ticks"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.anim.mDuration = NAN;
    TU_CHECK_RESULT(kit_import(&k, NULL, "duration"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.ch0.mPositionKeys = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "key list"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.channels[0] = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NULL"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.anims[0] = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "NULL"), SINEW_ERROR_FORMAT);
    kit_init(&k); k.scene.mAnimations = NULL;
    TU_CHECK_RESULT(kit_import(&k, NULL, "animation list"), SINEW_ERROR_FORMAT);
}

/* Limits ("absurd counts"): every max_* of the desc, the default vertex
 * limit checked before reading, a node cycle. */
static void test_scene_limits(void)
{
    kit_init(&k);
    sinew_asset_desc lim = { 0 };
    lim.max_vertices = 7;
    TU_CHECK_RESULT(kit_import(&k, &lim, "vertices"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_indices = 9;
    TU_CHECK_RESULT(kit_import(&k, &lim, "indices"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_joints = 4;
    TU_CHECK_RESULT(kit_import(&k, &lim, "joints"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_keys = 4;
    TU_CHECK_RESULT(kit_import(&k, &lim, "keys"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_meshes = 1;
    TU_CHECK_RESULT(kit_import(&k, &lim, "meshes"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_nodes = 3;
    TU_CHECK_RESULT(kit_import(&k, &lim, "nodes"), SINEW_ERROR_LIMIT_EXCEEDED);
    lim = (sinew_asset_desc){ 0 }; lim.max_clips = 1;
    TU_CHECK_RESULT(kit_import(&k, &lim, NULL), SINEW_OK);
    k.scene.mNumAnimations = 2; /* would read anims[1]: the limit is checked first */
    TU_CHECK_RESULT(kit_import(&k, &lim, "animations"), SINEW_ERROR_LIMIT_EXCEEDED);
    kit_init(&k); k.mesh.mNumVertices = (1u << 24) + 1;  /* default vertex limit, checked before reading */
    TU_CHECK_RESULT(kit_import(&k, NULL, "vertices"), SINEW_ERROR_LIMIT_EXCEEDED);
    kit_init(&k); k.bone1.mNumChildren = 1; k.bone1.mChildren = k.bone0_children; /* cycle bone1 -> bone1 */
    k.bone0_children[0] = &k.bone1;
    TU_CHECK_RESULT(kit_import(&k, NULL, "cycle"), SINEW_ERROR_LIMIT_EXCEEDED);
}

static void test_bad_scenes(void)
{
    test_scene_null_args();
    test_scene_missing_bone();
    test_scene_mesh_errors();
    test_scene_node_errors();
    test_scene_animation_errors();
    test_scene_limits();
}

/* ---- 3. load errors ------------------------------------------------------------ */

static void test_load_errors(void)
{
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    sinew_asset *a = NULL;
    TU_CHECK_RESULT(sinew_asset_load(NULL, &a, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_asset_load(&d, NULL, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_INVALID_ARGUMENT);
    TU_CHECK(err.message[0] != 0);
    d.path = "/nonexistent/model.gltf";
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "/nonexistent/model.gltf") != NULL);
    d.path = MODELS "invalid/empty.x";
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_FORMAT);
    TU_CHECK(strstr(err.message, "assimp") != NULL);
    d.path = MODELS "invalid/readme.txt";
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_FORMAT);
    d.path = MODELS "BVH/01_01.bvh";   /* skeleton and motion only */
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_ERROR_EMPTY || r == SINEW_ERROR_FORMAT, "BVH: %s", sinew_result_string(r));
    TU_CHECK(a == NULL);
    /* from memory: the glTF with its embedded buffers */
    size_t n = 0;
    unsigned char *buf = read_all(MODELS "glTF2/simple_skin/simple_skin.gltf", &n);
    TU_CHECK(buf != NULL);
    d.path = NULL; d.data = buf; d.size = n; d.hint = "gltf";
    TU_CHECK_OK(sinew_asset_load(&d, &a, &err));
    TU_CHECK(a && sinew_asset_vertex_count(a) == 10 && sinew_asset_clip_count(a) == 1);
    TU_CHECK(a && sinew_asset_mesh(a, 0)->normals_generated == 1);  /* the file has no normals */
    sinew_asset_destroy(a); a = NULL;
    d.size = n / 2;
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_FORMAT);
    free(buf);
    /* getters on NULL */
    TU_CHECK(sinew_asset_vertex_count(NULL) == 0 && sinew_asset_clip(NULL, 0) == NULL && sinew_asset_mesh(NULL, 0) == NULL);
    TU_CHECK_RESULT(sinew_asset_bind_pose(NULL, NULL), SINEW_ERROR_INVALID_ARGUMENT);
    sinew_asset_destroy(NULL);
}

int main(void)
{
    tu_rng rng = tu_rng_seeded(0x5EEDF00Dull);
    test_valid_scene();
    test_bad_scenes();
    test_load_errors();
    test_damaged_files(&rng);
    return tu_finish("test_asset_hostile");
}
