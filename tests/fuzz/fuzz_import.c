/* libFuzzer target for Sinew's import path: the first input byte picks the
 * format hint, the rest is the file given to sinew_asset_load from memory.
 * A successful import is exercised further: every clip sampled, the bind pose
 * skinned by the float64 reference with every method.
 * Build and run: tests/fuzz/run_fuzz.sh (clang -fsanitize=fuzzer,address,undefined). */
#include <sinew/core.h>
#include <sinew/palette.h>
#include <sinew/reference.h>
#include <sinew/anim.h>
#include <sinew/asset.h>
#include "fuzz_skin.h"
#include "asset_internal.h" /* snw_gltf_wanted */

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <sanitizer/asan_interface.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const hints[] = { "gltf", "x", "fbx", "smd", "dae", "md5mesh", "obj", "ply", "mdl", "glb", "ms3d", "b3d" };
#define NHINTS (sizeof hints / sizeof hints[0])

/* assimp 5.2.5 sometimes returns a scene whose arrays are shorter than the
 * counts beside them (e.g. a bone whose mNumWeights runs past mWeights). Sinew
 * reads what the counts say, as any assimp user must; C cannot check an
 * array's real length. Such inputs test assimp, not Sinew: for inputs routed to
 * assimp (not glTF 2.0, which gltf.c reads without assimp), this harness imports
 * the file once itself with the same flags as import.c, asks ASan whether every
 * array Sinew reads is addressable, and skips the input when one is not. */
#define ADDRESSABLE(p, n) ((n) == 0 || ((p) && !__asan_region_is_poisoned((void *)(p), (size_t)(n) * sizeof *(p))))

static int node_ok(const struct aiNode *n, int depth)
{
    if (!n || depth > 4096) return 1; /* Sinew bounds depth itself */
    if (!ADDRESSABLE(n->mChildren, n->mNumChildren) || !ADDRESSABLE(n->mMeshes, n->mNumMeshes)) return 0;
    for (unsigned i = 0; i < n->mNumChildren; i++)
        if (!node_ok(n->mChildren[i], depth + 1)) return 0;
    return 1;
}

static int scene_ok(const struct aiScene *s)
{
    if (!ADDRESSABLE(s->mMeshes, s->mNumMeshes) || !ADDRESSABLE(s->mAnimations, s->mNumAnimations)) return 0;
    for (unsigned i = 0; i < s->mNumMeshes; i++) {
        const struct aiMesh *m = s->mMeshes[i];
        if (!m) continue;
        if (!ADDRESSABLE(m->mVertices, m->mNumVertices) || (m->mNormals && !ADDRESSABLE(m->mNormals, m->mNumVertices)) ||
            !ADDRESSABLE(m->mFaces, m->mNumFaces) || !ADDRESSABLE(m->mBones, m->mNumBones)) return 0;
        for (unsigned f = 0; f < m->mNumFaces; f++)
            if (!ADDRESSABLE(m->mFaces[f].mIndices, m->mFaces[f].mNumIndices)) return 0;
        for (unsigned b = 0; b < m->mNumBones; b++)
            if (m->mBones[b] && !ADDRESSABLE(m->mBones[b]->mWeights, m->mBones[b]->mNumWeights)) return 0;
        /* tangent frames and blend shapes (import.c reads them too) */
        if ((m->mTangents && !ADDRESSABLE(m->mTangents, m->mNumVertices)) ||
            (m->mBitangents && !ADDRESSABLE(m->mBitangents, m->mNumVertices)) ||
            !ADDRESSABLE(m->mAnimMeshes, m->mNumAnimMeshes)) return 0;
        for (unsigned t = 0; t < m->mNumAnimMeshes; t++) {
            const struct aiAnimMesh *am = m->mAnimMeshes[t];
            if (am && ((am->mVertices && !ADDRESSABLE(am->mVertices, am->mNumVertices)) ||
                       (am->mNormals && !ADDRESSABLE(am->mNormals, am->mNumVertices)))) return 0;
        }
    }
    for (unsigned i = 0; i < s->mNumAnimations; i++) {
        const struct aiAnimation *a = s->mAnimations[i];
        if (!a) continue;
        if (!ADDRESSABLE(a->mChannels, a->mNumChannels)) return 0;
        for (unsigned c = 0; c < a->mNumChannels; c++) {
            const struct aiNodeAnim *ch = a->mChannels[c];
            if (ch && (!ADDRESSABLE(ch->mPositionKeys, ch->mNumPositionKeys) ||
                       !ADDRESSABLE(ch->mRotationKeys, ch->mNumRotationKeys) ||
                       !ADDRESSABLE(ch->mScalingKeys, ch->mNumScalingKeys))) return 0;
        }
    }
    return node_ok(s->mRootNode, 0);
}

/* 1 when assimp fails or returns consistent arrays (Sinew is then tested), 0 to skip. */
static int assimp_consistent(const uint8_t *data, size_t size, const char *hint)
{
    struct aiPropertyStore *props = aiCreatePropertyStore();
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    const struct aiScene *s = aiImportFileFromMemoryWithProperties((const char *)data, (unsigned)size,
                                                                   aiProcess_Triangulate | aiProcess_ValidateDataStructure,
                                                                   hint, props);
    int ok = 1;
    if (s) {
        ok = scene_ok(s);
        const struct aiScene *pp = aiApplyPostProcessing(s, aiProcess_GenSmoothNormals);
        if (pp) {
            ok = ok && scene_ok(pp);
            aiReleaseImport(pp);
        }
    }
    aiReleasePropertyStore(props);
    if (!ok) fprintf(stderr, "fuzz_import: assimp returned arrays shorter than their counts (hint %s); input skipped\n", hint);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    sinew_asset_desc d = { 0 };
    sinew_error_info err;
    d.data = data + 1;
    d.size = size - 1;
    d.hint = hints[data[0] % NHINTS];
    /* glTF 2.0 goes to Sinew's own importer (gltf.c); everything else to assimp */
    if (!snw_gltf_wanted(&d) && !assimp_consistent(d.data, d.size, d.hint)) return 0;
    /* small bounds keep each run quick */
    d.max_vertices = 1u << 18;
    d.max_keys = 1u << 18;
    sinew_asset *a = NULL;
    if (sinew_asset_load(&d, &a, &err) != SINEW_OK) {
        if (!err.message[0]) abort(); /* every error has a message */
        return 0;
    }
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk);
    sinew_transform *pose = calloc(nj, sizeof *pose);
    for (uint32_t c = 0; c < sinew_asset_clip_count(a); c++) {
        const sinew_clip *clip = sinew_asset_clip(a, c);
        double dur = sinew_clip_duration(clip);
        sinew_clip_sample(clip, sk, 0.5 * dur, SINEW_WRAP_LOOP, pose);
        sinew_clip_sample(clip, sk, 1e9, SINEW_WRAP_CLAMP, pose);
    }
    fuzz_skin_bind_pose(a, pose);
    free(pose);
    sinew_asset_destroy(a);
    return 0;
}
