/* Sinew asset import through assimp (library sinew_asset): one character =
 * one skeleton, one packed vertex array for all its meshes, triangle indices,
 * and its animation clips. The only Sinew code that uses assimp; this header
 * does not include assimp.
 *
 * Conventions (README, "Assets")
 *  - Model space is the space of the file's root node's parent, as assimp
 *    delivers it: units as in the file, no axis conversion beyond what the
 *    format itself defines (glTF stays Y-up; assimp applies FBX/Collada
 *    up-axis settings in the root node's transform, which is a joint).
 *  - assimp's row-major aiMatrix4x4 (a4,b4,c4 = translation) becomes Sinew's
 *    column-major m[col][row] (m[3][0..2] = translation).
 *  - Joints: every node named by a bone, every node that holds a mesh, and all
 *    their ancestors, in depth-first order (parents before children).
 *    rest_local = the node's transform (split into T R S; shear is reported,
 *    not kept); inverse_bind = the bone's offset matrix times the inverse of the
 *    mesh node's global transform (assimp's offset matrices are relative to
 *    mesh space); nodes without a bone get the inverse of their rest global.
 *    If two meshes give the same node different binds, the node gets one joint
 *    per distinct bind (same parent, same animation).
 *  - Vertices are moved to model space by their mesh node's rest global
 *    transform (normals by its inverse transpose), so the bind pose (LBS with
 *    sinew_skeleton_bind_local) reproduces the rest mesh.
 *  - A vertex without bone weights is bound to its mesh node's joint with
 *    weight 1 (it follows that node rigidly, as assimp's scene graph would move it).
 *  - More than 4 influences are pruned to the 4 largest and renormalized
 *    (sinew_pack_vertices); counts are reported in sinew_asset_import_stats.
 *    sinew_asset_vertices8 packs the same vertices with up to 8.
 *  - Vertices stay in assimp's order per mesh, meshes in scene order (a mesh
 *    used by several nodes appears once per node). Indices are global (into the
 *    whole vertex array); non-triangle faces (points, lines) are dropped.
 *  - Clips: one per aiAnimation; key times in ticks, ticks_per_second 25 when
 *    the file says 0; channels naming nodes that are not joints are ignored.
 *  - glTF `weights` channels become clip weight tracks (anim.h) whose slots are
 *    the asset's morph targets in sinew_asset_morph_targets order (mesh 0's
 *    targets first; weight_count = all targets of the model): sampled weights
 *    minus the default weights give the morph weights for the rest mesh. */
#ifndef SINEW_ASSET_H
#define SINEW_ASSET_H

#include <sinew/rest_mesh.h>
#include <sinew/anim.h>
#include <sinew/blendshape.h>
#include <sinew/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

struct aiScene; /* assimp's scene, for sinew_asset_from_scene */

typedef struct sinew_asset sinew_asset;

/* Default limits applied to every import (hostile-input bounds). */
#define SINEW_ASSET_DEFAULT_MAX_VERTICES (1u << 24)
#define SINEW_ASSET_DEFAULT_MAX_INDICES  (3u << 24)
#define SINEW_ASSET_DEFAULT_MAX_MESHES   65536u
#define SINEW_ASSET_DEFAULT_MAX_CLIPS    4096u
#define SINEW_ASSET_DEFAULT_MAX_NODES    (1u << 20)
/* Floor of the default memory budget (sinew_asset_desc.max_memory). */
#define SINEW_ASSET_DEFAULT_MEMORY_FLOOR ((uint64_t)512 << 20)

/* Import flags (sinew_asset_desc.flags). */
typedef enum sinew_asset_flags {
    /* Drop the weights of bones that name no node (counted in
     * sinew_asset_import_stats.missing_bones) instead of failing with NOT_FOUND. */
    SINEW_ASSET_ALLOW_MISSING_BONES = 1u << 0
} sinew_asset_flags;

/* Import options; zero means default everywhere. */
typedef struct sinew_asset_desc {
    const char *path;           /* file to import, or NULL to import from memory: */
    const void *data;           /*   file content */
    size_t size;                /*   its size in bytes */
    const char *hint;           /*   file extension without dot ("gltf", "x", "fbx", ...) */
    const char *base_directory; /*   optional: the folder its external files (buffers, .mtl,
                                     .md5anim, ...) may come from; NULL = none may be opened */
    uint32_t flags;             /* sinew_asset_flags */
    uint32_t max_vertices;      /* [SINEW_ASSET_DEFAULT_MAX_VERTICES] whole character */
    uint32_t max_indices;       /* [SINEW_ASSET_DEFAULT_MAX_INDICES] */
    uint32_t max_joints;        /* [SINEW_MAX_JOINTS] */
    uint32_t max_meshes;        /* [SINEW_ASSET_DEFAULT_MAX_MESHES] */
    uint32_t max_clips;         /* [SINEW_ASSET_DEFAULT_MAX_CLIPS] */
    uint32_t max_keys;          /* per clip [SINEW_MAX_CLIP_KEYS] */
    uint32_t max_nodes;         /* scene nodes visited [SINEW_ASSET_DEFAULT_MAX_NODES] */
    /* Optional (rule of sinew/core.h: NULL or {NULL, NULL} = default, exactly one
     * callback NULL = INVALID_ARGUMENT). Everything Sinew allocates for the import
     * comes from it: the asset and its arrays, its skeleton and clips, and the
     * converter's temporary arrays (all freed before the call returns). assimp's
     * own allocations (the aiScene, its property store, its importer) cannot be
     * redirected: assimp's C API takes no allocator, so they use assimp's
     * new/delete. sinew_asset_destroy frees through the same allocator. */
    const sinew_allocator *allocator;
    /* Optional: called during sinew_asset_load / sinew_asset_from_scene with the
     * fraction done (0..1; between meshes, mesh instances, conversion steps and
     * clips; assimp's own parse is one step). Returning false stops the import:
     * SINEW_ERROR_CANCELLED (err item NONE), *out NULL, nothing left allocated. */
    bool (*progress)(void *user, double fraction);
    void *progress_user;
    /* Memory budget in bytes of Sinew's glTF importer [0: SINEW_ASSET_DEFAULT_MEMORY_FLOOR
     * + 64 x the bytes of the file and its buffers]: the arrays it materialises from the
     * file's counts (accessors, the growing vertex arrays) are checked against it before
     * they are allocated; LIMIT_EXCEEDED names the accessor or mesh. Accessors without a
     * bufferView used as morph deltas (all zero by the specification) take no memory.
     * The clips are counted too (each holds ~176 bytes per joint of the skeleton,
     * whatever its channels): LIMIT_EXCEEDED names the clip. assimp's formats: only
     * the clips, and only when max_memory is given (assimp allocates on its own). */
    uint64_t max_memory;
} sinew_asset_desc;

/* One mesh of the character: its ranges in the shared arrays. */
typedef struct sinew_asset_mesh_info {
    const char *name;           /* the aiMesh name ("" when none) */
    uint32_t source_mesh;       /* index of the aiMesh in the scene */
    uint32_t node_joint;        /* joint of the node holding the mesh */
    uint32_t first_vertex, vertex_count;
    uint32_t first_index, index_count; /* indices are global vertex numbers */
    uint32_t unweighted_vertices;      /* bound to node_joint with weight 1 */
    bool normals_generated;     /* the file had no normals (aiProcess_GenSmoothNormals) */
    uint32_t first_morph, morph_count; /* morph targets of this mesh (glTF targets, FBX blend shapes; sinew_asset_morph_targets) */
} sinew_asset_mesh_info;

/* What the import found and did. */
typedef struct sinew_asset_import_stats {
    uint32_t influence_histogram[9]; /* vertices with k non-zero influences, k = 0..7, [8] = 8 or more (before pruning) */
    uint32_t max_influences;         /* before pruning */
    uint32_t vertices_pruned;        /* vertices that had more than 4 influences */
    uint32_t influences_pruned;      /* influences dropped in total */
    uint32_t unweighted_vertices;    /* bound rigidly to their mesh node's joint */
    uint32_t bones;                  /* aiBone entries over all meshes (glTF: its skin's joints per skinned mesh instance) */
    uint32_t skinned_meshes;         /* meshes with at least one bone */
    uint32_t duplicated_joints;      /* extra joints made for conflicting binds */
    uint32_t ignored_channels;       /* animation channels naming no joint (or repeated) */
    uint32_t dropped_faces;          /* points and lines */
    uint32_t unused_meshes;          /* aiMeshes no node refers to */
    uint32_t missing_bones;          /* bones naming no node (SINEW_ASSET_ALLOW_MISSING_BONES) */
    uint64_t missing_bone_weights;   /* their weights, dropped */
    double rest_shear_error;         /* largest node-transform element lost by the T R S split */
    double bind_rest_error;          /* largest |bind_local - rest_local matrix| element: 0 when the file's node pose is the bind pose */
    uint32_t tangent_meshes;         /* mesh instances whose file data had tangents (glTF TANGENT, assimp mTangents + mBitangents) */
    /* glTF importer only (0 for assimp's formats) */
    uint32_t gltf;                   /* 1 when Sinew's own glTF 2.0 importer read the file */
    uint32_t skins;                  /* skins used by the scene's nodes */
    uint32_t skinned_instances;      /* (node, skin) instances: a mesh under several skinned nodes counts once per node */
    uint32_t invalid_weight_vertices;/* skinned vertices whose weights summed to 0, bound to the skin's first joint */
    uint32_t morph_targets;          /* morph targets of every mesh (sinew_asset_morph_targets; glTF default weights are applied to the rest mesh) */
    uint32_t ignored_weight_channels;/* morph-weight animation channels not kept (their node has no morph targets, or repeated) */
    uint32_t dropped_primitives;     /* points / lines primitives */
    uint32_t step_channels, cubic_channels; /* samplers by interpolation mode (kept in the clips; weight channels too) */
    uint32_t weight_channels;        /* morph-weight animation channels kept as clip weight tracks */
} sinew_asset_import_stats;

/* Imports a file (or memory) with assimp (Triangulate, GenSmoothNormals,
 * ValidateDataStructure) and converts it. Errors: INVALID_ARGUMENT (desc),
 * IO (unreadable file), FORMAT (assimp failed, or the scene is malformed:
 * indices out of range, non-finite data, unreadable animation),
 * NOT_FOUND (a bone names no node, unless SINEW_ASSET_ALLOW_MISSING_BONES),
 * EMPTY (no mesh with vertices), LIMIT_EXCEEDED (a limit above), and those of
 * sinew_skeleton_create / sinew_clip_create / sinew_pack_vertices; INVALID_ARGUMENT
 * also for an allocator with exactly one callback NULL. OUT_OF_HOST_MEMORY when
 * the allocator fails; CANCELLED when desc->progress returned false; nothing
 * allocated by Sinew is left behind on any error.
 * err (NULL allowed; sinew/core.h) receives the detail: item SINEW_ITEM_FILE for
 * file-level problems (the message names the file, offset, accessor, node or
 * limit), SINEW_ITEM_MESH (index: the file's mesh, sinew_asset_mesh_info.source_mesh;
 * entry: a vertex, face or bone of it when one is at fault), SINEW_ITEM_JOINT,
 * SINEW_ITEM_CLIP (index: the file's animation), SINEW_ITEM_VERTEX (index: the
 * character's vertex, when packing fails), SINEW_ITEM_ARGUMENT (desc, out,
 * allocator), SINEW_ITEM_NONE (out of memory). */
SINEW_API sinew_result sinew_asset_load(const sinew_asset_desc *desc, sinew_asset **out, sinew_error_info *err);
/* Converts a scene the caller imported (or built) with assimp; desc may be NULL
 * (its path/data fields are ignored; its allocator and limits apply). The scene must hold triangles (non-triangle
 * faces are dropped) and normals for normals to be meaningful (zero otherwise).
 * err as for sinew_asset_load. */
SINEW_API sinew_result sinew_asset_from_scene(const struct aiScene *scene, const sinew_asset_desc *desc,
                                              sinew_asset **out, sinew_error_info *err);
/* Frees an asset; NULL is ignored. */
SINEW_API void sinew_asset_destroy(sinew_asset *a);

SINEW_API const sinew_skeleton *sinew_asset_skeleton(const sinew_asset *a);
SINEW_API uint32_t sinew_asset_vertex_count(const sinew_asset *a);
/* The packed rest vertices of the whole character (model space). */
SINEW_API const sinew_vertex *sinew_asset_vertices(const sinew_asset *a);
/* Rest positions and normals as float64 before packing (3 per vertex; normals unit or zero). */
SINEW_API const double *sinew_asset_rest_positions(const sinew_asset *a);
SINEW_API const double *sinew_asset_rest_normals(const sinew_asset *a);
/* The file's rest tangent frames, packed, one per vertex in model space
 * (sinew_skinner_desc.tangents), or NULL when no mesh had tangents (never
 * generated). When only some meshes had them, the others' vertices get a zero
 * tangent (SINEW_OCT_ZERO, sign +1: skins to zero); stats.tangent_meshes counts. */
SINEW_API const sinew_tangent *sinew_asset_tangents(const sinew_asset *a);
SINEW_API uint32_t sinew_asset_index_count(const sinew_asset *a);
SINEW_API const uint32_t *sinew_asset_indices(const sinew_asset *a);
SINEW_API uint32_t sinew_asset_mesh_count(const sinew_asset *a);
SINEW_API const sinew_asset_mesh_info *sinew_asset_mesh(const sinew_asset *a, uint32_t i);
SINEW_API uint32_t sinew_asset_clip_count(const sinew_asset *a);
SINEW_API const sinew_clip *sinew_asset_clip(const sinew_asset *a, uint32_t i);
/* Index of the clip with this name, or -1. */
SINEW_API int32_t sinew_asset_find_clip(const sinew_asset *a, const char *name);
SINEW_API const sinew_asset_import_stats *sinew_asset_stats(const sinew_asset *a);
/* true when path names a file the import read (the model or one of its external
 * files: glTF buffers, .mtl, ...), compared by device and inode (hard links and
 * other names of it too): a tool must not write its output over it. false for a
 * missing path and for memory imports' own data. */
SINEW_API bool sinew_asset_reads_file(const sinew_asset *a, const char *path);
/* The influences before pruning to 4: CSR lists (vertex i owns entries
 * offsets[i] .. offsets[i+1]-1), one entry per joint (repeats merged), weights
 * as in the file (not renormalized; a vertex without weights has its fallback
 * joint with weight 1). The packed vertices keep the 4 largest of each. */
SINEW_API sinew_result sinew_asset_influences(const sinew_asset *a, const uint32_t **offsets,
                                              const uint32_t **joints, const float **weights);
/* Packs the whole character with up to 8 influences per vertex from the
 * unpruned lists (sinew_asset_influences) into out (vertex_count entries):
 * sinew_pack_vertices8 on the same float32 positions and normals as
 * sinew_asset_vertices, so a vertex with at most 4 influences gets the same
 * joints and weights. For files whose vertices have more than 4 influences
 * (stats max_influences > 4); stats (may be NULL) counts what 8 slots still
 * prune. Errors: INVALID_ARGUMENT (NULL), OUT_OF_HOST_MEMORY (temporary arrays
 * from the asset's allocator), those of sinew_pack_vertices8. */
SINEW_API sinew_result sinew_asset_vertices8(const sinew_asset *a, sinew_vertex8 *out, sinew_pack_stats *stats);
/* The morph targets of mesh i (glTF primitives with targets; NULL and *count 0
 * otherwise), sparse, in model space, indices relative to the mesh's
 * first_vertex (give the mesh's vertices to sinew_morph_*). The rest vertices
 * already include the file's default weights (*default_weights, one per target),
 * so morphing the rest mesh to weights w takes the weights w - default. Normal
 * deltas (NULL when the file has none, or its normals were generated) and glTF
 * TANGENT deltas (primitives with TANGENT only) are scaled per vertex so that
 * the runtime's normalize(rest + sum (w - default) delta) is glTF's
 * normalize(N + sum w dN), skinned or not (docs/morph-targets.md). */
SINEW_API const sinew_morph_target *sinew_asset_morph_targets(const sinew_asset *a, uint32_t mesh, uint32_t *count,
                                                               const float **default_weights);
/* sinew_asset_rest_mesh's mesh index for the whole character as one mesh. */
#define SINEW_ASSET_ALL_MESHES UINT32_MAX
/* Builds the rest mesh (sinew/rest_mesh.h) of mesh i (its vertices, triangles
 * renumbered from 0, tangents when the file had them), or of the whole
 * character with SINEW_ASSET_ALL_MESHES, from the unpruned influences;
 * max_influences as in sinew_rest_mesh_desc (0: 4 or 8 from the data). The
 * asset's allocator; destroy with sinew_rest_mesh_destroy. */
SINEW_API sinew_result sinew_asset_rest_mesh(const sinew_asset *a, uint32_t mesh, uint32_t max_influences,
                                             sinew_rest_mesh **out, sinew_error_info *err);
/* Diagonal of the rest mesh's bounding box (the model's size, for tolerances). */
SINEW_API double sinew_asset_size(const sinew_asset *a);

/* The bind pose as local T R S per joint (sinew_skeleton_bind_local split with
 * sinew_transform_from_mat4): skinning with it reproduces the rest mesh, unless
 * a bind-local matrix shears (inverse binds with a non-uniform scale under a
 * rotation, as quantizing exporters write): then the nearest T R S is written and
 * only sinew_palette_build_from_globals of the bind matrices is exact. */
SINEW_API sinew_result sinew_asset_bind_pose(const sinew_asset *a, sinew_transform *local_out);

#ifdef __cplusplus
}
#endif
#endif
