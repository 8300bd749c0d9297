/* The tests' tiny glTF writer: see gltf_writer.h. */
#include "gltf_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tu_gltf_reset(tu_gltf *g)
{
    g->binlen = 0;
    g->nviews = g->naccs = 0;
    g->views[0] = g->accs[0] = 0;
}

int tu_gltf_view(tu_gltf *g, const void *data, size_t bytes)
{
    g->binlen = (g->binlen + 3) & ~(size_t)3;
    if (g->binlen + bytes > sizeof g->bin) {
        fprintf(stderr, "tu_gltf_view: buffer full\n");
        abort();
    }
    memcpy(g->bin + g->binlen, data, bytes);
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", g->nviews ? "," : "", g->binlen,
             bytes);
    strncat(g->views, tmp, sizeof g->views - strlen(g->views) - 1);
    g->binlen += bytes;
    return g->nviews++;
}

int tu_gltf_acc(tu_gltf *g, const void *data, size_t bytes, int ctype, const char *type, int count, int normalized,
                const char *extra)
{
    char tmp[1024];
    if (data) {
        int v = tu_gltf_view(g, data, bytes);
        snprintf(tmp, sizeof tmp, "%s{\"bufferView\":%d,\"componentType\":%d,\"type\":\"%s\",\"count\":%d%s%s}",
                 g->naccs ? "," : "", v, ctype, type, count, normalized ? ",\"normalized\":true" : "", extra ? extra : "");
    } else {
        snprintf(tmp, sizeof tmp, "%s{\"componentType\":%d,\"type\":\"%s\",\"count\":%d%s%s}", g->naccs ? "," : "", ctype,
                 type, count, normalized ? ",\"normalized\":true" : "", extra ? extra : "");
    }
    strncat(g->accs, tmp, sizeof g->accs - strlen(g->accs) - 1);
    return g->naccs++;
}

char *tu_base64(const uint8_t *d, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(n / 3 * 4 + 8), *p = o;
    if (!o) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *p++ = tab[v >> 18 & 63];
        *p++ = tab[v >> 12 & 63];
        *p++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *p = 0;
    return o;
}
