/* Internals of sinew_asset: asset.c (the front door: sinew_asset_load
 * dispatches by file type; accessors), the importers (assimp.c: assimp's
 * formats and sinew_asset_from_scene; gltf.c: glTF 2.0), builder.c (what both
 * importers share to build the asset) and confine.c (the folder rule for every
 * file an import opens). */
#ifndef SNW_ASSET_INTERNAL_H
#define SNW_ASSET_INTERNAL_H

#include "sinew/asset.h"
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/blendshape.h>
#include "alloc_internal.h"

#include <stddef.h>
#include <stdint.h>

struct sinew_asset {
    sinew_allocator alloc;  /* resolved; every block below (and the skeleton, clips) comes from it */
    sinew_skeleton *skel;
    uint32_t vertex_count, index_count, mesh_count, clip_count;
    sinew_vertex *vertices;
    double *rest_pos, *rest_nrm;
    sinew_tangent *tangents; /* per vertex, NULL when no mesh of the file had tangents */
    uint32_t *indices;
    sinew_asset_mesh_info *meshes;
    char *names;            /* mesh names, NUL separated */
    sinew_clip **clips;
    sinew_asset_import_stats stats;
    double size;
    /* influences before pruning to 4 (merged, sorted by decreasing weight), CSR */
    uint32_t *infl_offsets, *infl_joints;
    float *infl_weights;
    /* morph targets (glTF; FBX blend shapes through assimp): per mesh info
     * first_morph / morph_count into these */
    sinew_morph_target *morphs;
    uint32_t morph_count;
    float *morph_default;
    uint32_t *morph_idx;
    float *morph_dp, *morph_dn, *morph_dt;   /* morph_dt: glTF TANGENT deltas (NULL for assimp) */
    char *morph_names;      /* assimp path: target names, NUL separated (glTF targets have none) */
    /* the files the import read (device, inode; sinew_asset_reads_file) */
    uint64_t *input_ids;    /* 2 per file */
    uint32_t input_count;
    int inputs_overflow;    /* more than SNW_CONFINE_MAX_INPUTS: every file counts as read */
};

/* One import's context: the description, its error detail, its allocator. */
typedef struct snw_import_ctx {
    const sinew_asset_desc *desc;
    sinew_error_info err;   /* filled by the first failure; copied to the caller's at the end */
    sinew_allocator alloc;  /* resolved from desc->allocator */
} snw_import_ctx;

/* Replaces control characters (below 0x20, 0x7f) of the NUL-terminated s (at
 * most n bytes) by '?': names from files never carry a newline or an escape
 * sequence into messages, printed lists or written files. */
void snw_strip_controls(char *s, size_t n);

/* Records a file-level error (SINEW_ITEM_FILE; the message names the file,
 * offset or accessor) and returns r. */
sinew_result snw_asset_fail(snw_import_ctx *c, sinew_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for an item at fault (SINEW_ITEM_MESH / JOINT / CLIP / VERTEX /
 * ARGUMENT / NONE, its index, an entry inside it or UINT32_MAX). */
sinew_result snw_asset_fail_at(snw_import_ctx *c, sinew_result r, sinew_item_kind item, uint32_t index, uint32_t entry,
                               const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Reports progress (desc->progress, fraction 0..1): SINEW_OK, or CANCELLED
 * (recorded in c->err) when the callback asks to stop. */
sinew_result snw_asset_progress(snw_import_ctx *c, double fraction);

/* ---- the folder rule (confine.c) ------------------------------------------
 * An import may open: the model file itself (a regular file), and regular
 * files inside one folder (the model's folder, or desc->base_directory for a
 * memory import; none when a memory import gives no base directory). A path is
 * resolved with realpath (every symlink followed) and must lie inside the
 * folder's own realpath; its tail below the folder is then opened from the
 * folder's descriptor (opened once) one component at a time with openat and
 * O_NOFOLLOW (| O_NONBLOCK for the file), so a folder swapped for a symbolic
 * link between the check and the open is refused, never followed; the file is
 * fstat'ed: anything but a regular file (device, FIFO, socket, folder) is
 * refused. Hard links inside the folder are read like any file (by design: a
 * hard link is the file, and only who can write the folder can make one). */
#define SNW_CONFINE_PATH_MAX 4096
#define SNW_CONFINE_MAX_INPUTS 256
typedef struct snw_confine {
    uint64_t input_ids[2 * SNW_CONFINE_MAX_INPUTS];  /* device, inode of each file opened */
    uint32_t input_count;
    int inputs_overflow;
    char root[SNW_CONFINE_PATH_MAX];   /* realpath of the folder; "" = no folder */
    int root_fd;                       /* the folder, opened by snw_confine_init (-1: none) */
    const char *model_path;            /* file import: the path as given */
    const void *mem;                   /* memory import: the data, served as mem_name */
    size_t mem_size;
    char mem_name[64];
    /* the first refused reference and why (empty when none) */
    char refused[512];
    char why[160];
} snw_confine;

/* Sets the rule up for a file import (the model must be a regular file) or a
 * memory import (desc->data; desc->base_directory optional). On error writes
 * the message and returns IO / INVALID_ARGUMENT. */
sinew_result snw_confine_init(snw_confine *cf, snw_import_ctx *c);
/* Closes the folder's descriptor. */
void snw_confine_release(snw_confine *cf);

/* Opens a path as an importer asked for it (assimp: absolute, relative to the
 * working directory for a file import, relative to the folder for a memory
 * import). Returns an fd (>= 0), -2 for the in-memory model file (memory
 * import), or -1: *violation is set to 1 when the path broke the rule (recorded
 * in cf->refused / cf->why), 0 when the file is simply missing or unreadable. */
int snw_confine_open(snw_confine *cf, const char *path, int *violation);

/* Opens a relative reference (a glTF URI already percent-decoded) against the
 * folder. Same returns as snw_confine_open; absolute paths are violations. */
int snw_confine_open_relative(snw_confine *cf, const char *rel, int *violation);

/* Reads a whole regular file (fd, closed here) of at most max_bytes into a new
 * block from al. Returns 0 on success, -1 when unreadable, -2 when too big, -3
 * out of memory. */
int snw_read_fd(int fd, const sinew_allocator *al, size_t max_bytes, uint8_t **data, size_t *size);

/* ---- the asset builder (builder.c) -------------------------------------------
 * What both importers do alike: the joint graph (nodes with their parents,
 * rest transforms and bind candidates: one joint per distinct inverse bind of
 * a node), joint numbering, the skeleton, packing the vertices and tangents,
 * and the clips. An importer fills b->nodes (snw_builder_init), adds bind
 * candidates and marks the nodes it needs, numbers the joints, and fills the
 * asset's rest positions, normals and influence lists (CSR, joint numbers);
 * snw_builder_skeleton, snw_builder_pack and snw_builder_clip finish it.
 * Messages start with b->prefix ("glTF: " or ""). */

/* 4x4 helpers: largest |element| (NaN counts as largest) and largest |a - b| element. */
double snw_mat_max_abs(const sinew_mat4 *a);
double snw_mat_max_diff(const sinew_mat4 *a, const sinew_mat4 *b);

typedef struct snw_bnode {
    int32_t parent;          /* node index, -1 for a root; parents come before children in the order */
    int needed;              /* the node is a joint */
    const char *name;        /* NULL: "node<index>" */
    size_t name_len;
    sinew_mat4 local;        /* rest local */
    sinew_mat4 global;       /* rest global */
    sinew_transform rest;    /* rest local as T R S, when has_rest (else split from local by the skeleton) */
    int has_rest;
    int32_t first_cand, last_cand; /* its bind candidates (linked list), -1 = none */
    uint32_t cand_count;
    uint32_t first_joint, joint_count; /* set by snw_builder_number_joints */
} snw_bnode;

typedef struct snw_bcand {
    sinew_mat4 inverse_bind;
    int32_t next;
    uint32_t rank;           /* order within the node */
    uint32_t node;
    int64_t key[17];         /* the bind on its tolerance grid (16 elements, exponent), for the hash */
    uint64_t hash;           /* of node and key; 0 = not hashed (non-finite bind) */
} snw_bcand;

typedef struct snw_builder {
    snw_import_ctx *c;
    const sinew_allocator *al;
    sinew_asset *a;
    const char *prefix;      /* of every message */
    int gltf;                /* messages name nodes as glTF does ("node 3 'arm'"), else "node 'arm'" */
    double cand_tol;         /* relative tolerance of equal inverse binds */
    uint32_t max_joints;
    int check_range;         /* the rest skinning transforms must stay in float32 range */
    snw_bnode *nodes;
    uint32_t node_count;
    const uint32_t *order;   /* nodes in depth-first order (NULL: 0 .. node_count-1) */
    uint32_t order_count;
    snw_bcand *cands;
    uint32_t cand_count, cand_cap;
    uint32_t *cand_joint;    /* candidate -> joint (snw_builder_number_joints) */
    uint32_t joints;
    uint32_t *cand_hash;     /* open addressing: candidate + 1 (0 = empty), cand_hash_cap a power of two */
    uint32_t cand_hash_cap;
    /* memory budget of the clips (0 = none): a clip holds per-joint arrays whatever
     * its channel count, so clips x joints is checked before each clip is made */
    uint64_t budget, held;   /* held: what the importer holds besides the clips (set by it) */
    uint64_t clip_bytes;     /* the clips made so far (estimate) */
} snw_builder;

/* Sets the builder up with node_count nodes (parent -1, no candidates). */
sinew_result snw_builder_init(snw_builder *b, snw_import_ctx *c, sinew_asset *a, uint32_t node_count);
void snw_builder_release(snw_builder *b);
/* Marks a node and its ancestors needed. */
void snw_builder_mark_needed(snw_builder *b, uint32_t node);
/* The candidate of (node, inverse bind), added if new (the node is marked needed).
 * Two binds of a node are one candidate when every element rounds to the same
 * multiple of q = cand_tol * 2^e (2^e the power of two at or above 1 + the
 * largest |element|): a hash lookup, so a file's many binds cost linear time
 * (a pair within the tolerance that straddles a grid line stays two joints,
 * each with its own exact bind: still right, one joint more). */
sinew_result snw_builder_candidate(snw_builder *b, uint32_t node, const sinew_mat4 *inverse_bind, uint32_t *out);
/* The existing candidate of (node, inverse bind) by the rule above, or -1. */
int32_t snw_builder_find_candidate(const snw_builder *b, uint32_t node, const sinew_mat4 *inverse_bind);
/* Numbers the joints: needed nodes in order, one joint per candidate (at least one). */
sinew_result snw_builder_number_joints(snw_builder *b);
/* Creates the asset's skeleton (parents, names, rest T R S, inverse binds:
 * the candidates', else the inverse of the node's rest global) and measures
 * how far the node pose is from the bind pose. */
sinew_result snw_builder_skeleton(snw_builder *b);
/* Packs the asset's vertices from its rest positions, normals and influence
 * lists (and tangents: 4 floats per vertex, or NULL); the model's size. */
sinew_result snw_builder_pack(snw_builder *b, const float *tangents);
/* Room for n clips (limit max_clips). */
sinew_result snw_builder_clips(snw_builder *b, uint32_t n, uint32_t max_clips);
/* Creates clip i from d (allocator and joint count set here); label names it in messages. */
sinew_result snw_builder_clip(snw_builder *b, uint32_t i, sinew_clip_desc *d, const char *label);

/* ---- glTF (gltf.c) --------------------------------------------------------- */

/* 1 if the desc names a glTF 2.0 file (.gltf / .glb path or hint, or GLB magic in memory). */
int snw_gltf_wanted(const sinew_asset_desc *desc);
/* Imports a glTF 2.0 file. Returns SNW_GLTF_NOT_V2 (a glTF 1.x file: use assimp)
 * or a sinew_result. */
#define SNW_GLTF_NOT_V2 (-1000)
int snw_gltf_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out);

/* ---- assimp (assimp.c) ------------------------------------------------------ */

struct aiScene;
/* Imports the file (or memory) of the desc with assimp under the folder rule. */
sinew_result snw_assimp_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out);
/* Converts a caller's scene (sinew_asset_from_scene). */
sinew_result snw_assimp_from_scene(snw_import_ctx *c, const struct aiScene *scene, sinew_asset **out);

/* Frees an asset (sinew_asset_destroy). */
void snw_asset_free(sinew_asset *a);

#endif
