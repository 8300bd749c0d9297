/* Decoders of compressed glTF data, called by gltf.c: EXT_meshopt_compression
 * (gltf_meshopt.c, Debian libmeshoptimizer-dev) on bufferViews, and
 * KHR_draco_mesh_compression (gltf_draco.cpp, Debian libdraco-dev) on
 * primitives. Plain C interfaces; nothing here allocates with the C library
 * except draco's own decoder (inside snw_draco_decode, freed by snw_draco_free). */
#ifndef SNW_GLTF_EXT_H
#define SNW_GLTF_EXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* EXT_meshopt_compression: modes and filters as the extension names them. */
enum { SNW_MESHOPT_ATTRIBUTES = 0, SNW_MESHOPT_TRIANGLES = 1, SNW_MESHOPT_INDICES = 2 };
enum { SNW_MESHOPT_FILTER_NONE = 0, SNW_MESHOPT_FILTER_OCTAHEDRAL = 1, SNW_MESHOPT_FILTER_QUATERNION = 2,
       SNW_MESHOPT_FILTER_EXPONENTIAL = 3 };
/* Most decoded bytes per compressed byte the codecs can produce (with margin);
 * a view claiming more is refused before allocating. */
#define SNW_MESHOPT_MAX_RATIO 256u
/* 1 when Sinew was built with the decoder. */
int snw_meshopt_available(void);
/* Decodes count elements of stride bytes from src into dst (count * stride
 * bytes). NULL on success, else what was wrong (static text). */
const char *snw_meshopt_decode(uint8_t *dst, const uint8_t *src, size_t src_len, uint32_t count, uint32_t stride, int mode,
                               int filter);

/* KHR_draco_mesh_compression: a decoded Draco mesh. */
typedef struct snw_draco_mesh snw_draco_mesh;
int snw_draco_available(void);
/* Decodes a Draco bitstream (a triangle mesh); NULL with msg filled on failure. */
snw_draco_mesh *snw_draco_decode(const uint8_t *data, size_t len, char *msg, size_t msg_len);
void snw_draco_free(snw_draco_mesh *m);
uint32_t snw_draco_points(const snw_draco_mesh *m);
uint32_t snw_draco_faces(const snw_draco_mesh *m);
/* 3 * faces point indices. */
void snw_draco_indices(const snw_draco_mesh *m, uint32_t *out);
/* The attribute with Draco unique id uid as points * comps components of glTF
 * component type ctype (5120..5126), tightly packed into out; 0 on success,
 * else -1 with msg filled (no such attribute, fewer components than asked). */
int snw_draco_attribute(const snw_draco_mesh *m, uint32_t uid, int64_t ctype, uint32_t comps, void *out, char *msg,
                        size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
