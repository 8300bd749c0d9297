/* A tiny glTF writer for tests that author glTF files in memory: one binary
 * buffer holding every bufferView (each 4-byte aligned), the bufferViews and
 * accessors as JSON array bodies to paste into a document, and base64 for
 * data URIs. Shared by test_asset_gltf and test_asset_tangents. */
#ifndef SINEW_TEST_GLTF_WRITER_H
#define SINEW_TEST_GLTF_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct tu_gltf {
    uint8_t bin[1 << 16];
    size_t binlen;
    char views[1 << 15], accs[1 << 15];   /* JSON: the bodies of "bufferViews" and "accessors" */
    int nviews, naccs;
} tu_gltf;

/* Empties the buffer, views and accessors. */
void tu_gltf_reset(tu_gltf *g);
/* Appends data as a new bufferView of buffer 0; returns its index. */
int tu_gltf_view(tu_gltf *g, const void *data, size_t bytes);
/* A new accessor over data (a new bufferView), or without a bufferView when
 * data is NULL (all zero, e.g. with a sparse member); extra is pasted inside the
 * object (e.g. ",\"sparse\":{...}" or ",\"min\":[...]"). Returns its index. */
int tu_gltf_acc(tu_gltf *g, const void *data, size_t bytes, int ctype, const char *type, int count, int normalized,
                const char *extra);
/* Standard base64 of n bytes (malloc'd, NUL-terminated). */
char *tu_base64(const uint8_t *d, size_t n);

#endif
