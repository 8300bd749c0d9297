/* EXT_meshopt_compression decoding (gltf_ext.h) with meshoptimizer's C API
 * (Debian libmeshoptimizer-dev): the vertex codec plus its filters for
 * ATTRIBUTES, the index codecs for TRIANGLES and INDICES. Every size rule of
 * the extension is checked before meshoptimizer sees the data, which it
 * bounds-checks itself. */
#include "gltf_ext.h"

#ifdef SINEW_HAVE_MESHOPT
#include <meshoptimizer.h>

int snw_meshopt_available(void) { return 1; }

const char *snw_meshopt_decode(uint8_t *dst, const uint8_t *src, size_t src_len, uint32_t count, uint32_t stride, int mode,
                               int filter)
{
    if (!count || !stride) return "count and byteStride must be positive";
    if ((uint64_t)count * stride > (uint64_t)src_len * SNW_MESHOPT_MAX_RATIO + 4096)
        return "claims more decoded bytes than its compressed size can hold";
    int rc;
    switch (mode) {
    case SNW_MESHOPT_ATTRIBUTES:
        if (stride % 4 || stride > 256) return "ATTRIBUTES needs a byteStride that is a multiple of 4, at most 256";
        if ((filter == SNW_MESHOPT_FILTER_OCTAHEDRAL && stride != 4 && stride != 8) ||
            (filter == SNW_MESHOPT_FILTER_QUATERNION && stride != 8))
            return "filter and byteStride do not match (OCTAHEDRAL: 4 or 8, QUATERNION: 8)";
        rc = meshopt_decodeVertexBuffer(dst, count, stride, src, src_len);
        if (rc) return "corrupt vertex data";
        if (filter == SNW_MESHOPT_FILTER_OCTAHEDRAL) meshopt_decodeFilterOct(dst, count, stride);
        else if (filter == SNW_MESHOPT_FILTER_QUATERNION) meshopt_decodeFilterQuat(dst, count, stride);
        else if (filter == SNW_MESHOPT_FILTER_EXPONENTIAL) meshopt_decodeFilterExp(dst, count, stride);
        return NULL;
    case SNW_MESHOPT_TRIANGLES:
    case SNW_MESHOPT_INDICES:
        if (filter != SNW_MESHOPT_FILTER_NONE) return "filters apply to ATTRIBUTES only";
        if (stride != 2 && stride != 4) return "index byteStride must be 2 or 4";
        if (mode == SNW_MESHOPT_TRIANGLES && count % 3) return "TRIANGLES needs a count that is a multiple of 3";
        rc = mode == SNW_MESHOPT_TRIANGLES ? meshopt_decodeIndexBuffer(dst, count, stride, src, src_len)
                                           : meshopt_decodeIndexSequence(dst, count, stride, src, src_len);
        return rc ? "corrupt index data" : NULL;
    default:
        return "unknown mode";
    }
}
#else
int snw_meshopt_available(void) { return 0; }

const char *snw_meshopt_decode(uint8_t *dst, const uint8_t *src, size_t src_len, uint32_t count, uint32_t stride, int mode,
                               int filter)
{
    (void)dst; (void)src; (void)src_len; (void)count; (void)stride; (void)mode; (void)filter;
    return "this Sinew was built without meshoptimizer (Debian libmeshoptimizer-dev)";
}
#endif
