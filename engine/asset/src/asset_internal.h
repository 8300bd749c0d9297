/* Internals shared by the importers of sinew_asset (import.c: assimp,
 * gltf.c: glTF 2.0, confine.c: the folder rule for every file an import opens). */
#ifndef SNW_ASSET_INTERNAL_H
#define SNW_ASSET_INTERNAL_H

#include "sinew/asset.h"
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
};

/* One import's context: the description, its error detail, its allocator. */
typedef struct snw_import_ctx {
    const sinew_asset_desc *desc;
    sinew_error_info err;   /* filled by the first failure; copied to the caller's at the end */
    sinew_allocator alloc;  /* resolved from desc->allocator */
} snw_import_ctx;

/* Records a file-level error (SINEW_ITEM_FILE; the message names the file,
 * offset or accessor) and returns r. */
sinew_result snw_asset_fail(snw_import_ctx *c, sinew_result r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for an item at fault (SINEW_ITEM_MESH / JOINT / CLIP / VERTEX /
 * ARGUMENT / NONE, its index, an entry inside it or UINT32_MAX). */
sinew_result snw_asset_fail_at(snw_import_ctx *c, sinew_result r, sinew_item_kind item, uint32_t index, uint32_t entry,
                               const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- the folder rule (confine.c) ------------------------------------------
 * An import may open: the model file itself (a regular file), and regular
 * files inside one folder (the model's folder, or desc->base_directory for a
 * memory import; none when a memory import gives no base directory). A path is
 * resolved with realpath (every symlink followed) and must lie inside the
 * folder's own realpath; it is then opened with O_NOFOLLOW | O_NONBLOCK and
 * fstat'ed: anything but a regular file (device, FIFO, socket, folder) is refused. */
#define SNW_CONFINE_PATH_MAX 4096
typedef struct snw_confine {
    char root[SNW_CONFINE_PATH_MAX];   /* realpath of the folder; "" = no folder */
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

/* ---- glTF (gltf.c) --------------------------------------------------------- */

/* 1 if the desc names a glTF 2.0 file (.gltf / .glb path or hint, or GLB magic in memory). */
int snw_gltf_wanted(const sinew_asset_desc *desc);
/* Imports a glTF 2.0 file. Returns SNW_GLTF_NOT_V2 (a glTF 1.x file: use assimp)
 * or a sinew_result. */
#define SNW_GLTF_NOT_V2 (-1000)
int snw_gltf_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out);

/* Frees an asset (sinew_asset_destroy). */
void snw_asset_free(sinew_asset *a);

#endif
