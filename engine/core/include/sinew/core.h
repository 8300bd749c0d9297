/* Sinew: result codes, allocator callbacks and small shared types. */
#ifndef SINEW_CORE_H
#define SINEW_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks every public function. The library compiles with hidden visibility;
 * only what carries SINEW_API is exported (and internal symbols are made local
 * even in the static archives). */
#if defined(_WIN32) && defined(SINEW_SHARED)
#  ifdef SINEW_BUILDING
#    define SINEW_API __declspec(dllexport)
#  else
#    define SINEW_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define SINEW_API __attribute__((visibility("default")))
#else
#  define SINEW_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible call returns one of these; SINEW_OK is zero. */
typedef enum sinew_result {
    SINEW_OK = 0,
    SINEW_ERROR_INVALID_ARGUMENT,   /* NULL pointer, zero count, bad enum, ... */
    SINEW_ERROR_PARENT_OUT_OF_RANGE,/* a parent index >= joint count or < -1 */
    SINEW_ERROR_PARENT_ORDER,       /* a parent listed after its child */
    SINEW_ERROR_CYCLE,              /* the parent links form a cycle */
    SINEW_ERROR_JOINT_INDEX,        /* an influence names a joint >= joint count */
    SINEW_ERROR_INVALID_WEIGHT,     /* NaN/inf/negative weight, or weights summing to zero */
    SINEW_ERROR_NOT_RIGID,          /* plain DQS was given a transform with scale/shear/mirror */
    SINEW_ERROR_SINGULAR,           /* a matrix that must be inverted is singular */
    SINEW_ERROR_NON_FINITE,         /* NaN or infinity in a pose, matrix or position */
    SINEW_ERROR_EMPTY,              /* zero vertices / joints where some are needed */
    SINEW_ERROR_LIMIT_EXCEEDED,     /* more than a device or format limit allows */
    SINEW_ERROR_CAPACITY,           /* more than the capacity given at creation */
    SINEW_ERROR_OUT_OF_HOST_MEMORY,
    SINEW_ERROR_OUT_OF_DEVICE_MEMORY,
    SINEW_ERROR_DEVICE_LOST,
    SINEW_ERROR_NO_DEVICE,          /* no Vulkan device, or none matching the selection */
    SINEW_ERROR_VULKAN,             /* any other Vulkan failure */
    SINEW_ERROR_IO,                 /* a file could not be read or written */
    SINEW_ERROR_FORMAT,             /* a file's content is malformed or unsupported */
    SINEW_ERROR_NOT_FOUND,          /* a named item (clip, joint, mesh) does not exist */
    SINEW_ERROR_TIMEOUT,            /* a bounded wait ran out (e.g. a fence never submitted) */
    SINEW_ERROR_IN_USE,             /* the object is in use: by another thread, by a
                                       re-entrant call, or by objects that must go first */
    SINEW_ERROR_CANCELLED,          /* a progress callback asked to stop; nothing was changed */
    SINEW_RESULT_COUNT
} sinew_result;

/* A short, static, human-readable description of a result code ("unknown result"
 * for a value outside the enum). */
SINEW_API const char *sinew_result_string(sinew_result r);

/* What an error is about (sinew_error_info.item). */
typedef enum sinew_item_kind {
    SINEW_ITEM_NONE = 0,
    SINEW_ITEM_ARGUMENT,      /* a parameter or create-info field; the message names it */
    SINEW_ITEM_CALL_ORDER,    /* a call made in the wrong state (e.g. a frame begun twice) */
    SINEW_ITEM_CAPACITY,      /* a capacity given at creation; the message names which */
    SINEW_ITEM_DEVICE,        /* the Vulkan instance/device: version, feature, extension, limit */
    SINEW_ITEM_VERTEX,
    SINEW_ITEM_JOINT,
    SINEW_ITEM_MESH,
    SINEW_ITEM_INSTANCE,
    SINEW_ITEM_CHARACTER,
    SINEW_ITEM_MODEL,
    SINEW_ITEM_MORPH_TARGET,  /* also a pose-space example or an RBF weight */
    SINEW_ITEM_MORPH_SLOT,
    SINEW_ITEM_CLIP,
    SINEW_ITEM_FILE,
    SINEW_ITEM_KIND_COUNT
} sinew_item_kind;

/* Error detail, one shape for every layer: functions that take a
 * `sinew_error_info *err` (NULL allowed) fill it on failure with the result
 * they return, what and which item was at fault, and a message naming it; on
 * success they set result = SINEW_OK, item = NONE, message "". */
typedef struct sinew_error_info {
    sinew_result result;
    sinew_item_kind item;
    uint32_t index;           /* which item (vertex, mesh, character, ...), UINT32_MAX: none */
    uint32_t entry;           /* an entry inside it (e.g. a morph target's delta), UINT32_MAX: none */
    char message[192];
} sinew_error_info;

/* Name of an item kind ("vertex", "mesh", "capacity", ...; "unknown" out of range). */
SINEW_API const char *sinew_item_kind_name(sinew_item_kind kind);

/* Progress of a long computation (imports, precomputes): fraction in [0, 1];
 * return false to cancel (SINEW_ERROR_CANCELLED, nothing changed). Called on
 * the calling thread between batches of work. */
typedef bool (*sinew_progress_fn)(void *user, double fraction);

/* Optional allocator callbacks. One rule for every create call: a NULL
 * sinew_allocator*, or one whose alloc and free are both NULL, means the C
 * library's aligned_alloc/free; one with exactly one of them NULL is refused
 * with SINEW_ERROR_INVALID_ARGUMENT. Every allocation of the library goes
 * through it (Vulkan host allocations too, through VkAllocationCallbacks built
 * from it); assimp's own allocations cannot be redirected. Sinew allocates
 * only in create/load calls, never in per-frame paths. align is a power of two. */
typedef struct sinew_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} sinew_allocator;

/* Checks an allocator against the rule above: SINEW_OK or INVALID_ARGUMENT. */
SINEW_API sinew_result sinew_allocator_check(const sinew_allocator *allocator);

/* Version of the library as compiled: major * 10000 + minor * 100 + patch
 * (compare with SINEW_VERSION from sinew/version.h, the headers' version). */
SINEW_API uint32_t sinew_version(void);
/* The same as "major.minor.patch". */
SINEW_API const char *sinew_version_string(void);

/* Skinning methods. The palette layout and the GPU kernel path depend on it. */
typedef enum sinew_method {
    SINEW_METHOD_LBS = 0,             /* linear blend skinning, 3x4 per joint */
    SINEW_METHOD_DQS = 1,             /* dual quaternion skinning (Kavan 2008), rigid only */
    SINEW_METHOD_DQS_SCALE = 2,       /* scale stage by LBS, then DQS; scale propagates to children */
    SINEW_METHOD_DQS_SCALE_LOCAL = 3, /* same, a joint's scale does not propagate (Kavan's compensation) */
    SINEW_METHOD_DQS_SCALE_MIXED = 4, /* per-joint choice: sinew_skeleton_desc.scale_propagates */
    SINEW_METHOD_COR = 5,             /* optimized centers of rotation (Le & Hodgins 2016), rigid only;
                                         needs per-vertex centers (sinew/cor.h) */
    SINEW_METHOD_COR_SCALE = 6,       /* scale stage by LBS (as DQS_SCALE, scale propagates), then CoR */
    SINEW_METHOD_COR_SCALE_LOCAL = 7, /* same with DQS_SCALE_LOCAL's palette (scale does not propagate) */
    SINEW_METHOD_COR_SCALE_MIXED = 8, /* same with DQS_SCALE_MIXED's palette (sinew_skeleton_desc.scale_propagates) */
    SINEW_METHOD_COUNT
} sinew_method;

/* Flags that combine with any method. */
typedef enum sinew_skin_flags {
    SINEW_SKIN_BULGE_CORRECTION = 1u << 0, /* Kim & Han 2014 re-projection toward the major bone */
    /* With SINEW_SKIN_BULGE_CORRECTION only (alone: INVALID_ARGUMENT): vertices that ended
     * closer than their rest distance d0 to the major bone are pushed back out to d0 (the
     * inner side of a bend keeps its volume); the push fades out by a smoothstep below
     * d0 / 2, to 0 at d = 0, and the whole correction fades for d0 below ~2^-12 max|p'|
     * (sinew/reference.h step 4b). */
    SINEW_SKIN_BULGE_INNER = 1u << 1,
    SINEW_SKIN_FLAGS_ALL = SINEW_SKIN_BULGE_CORRECTION | SINEW_SKIN_BULGE_INNER
} sinew_skin_flags;

/* Name of a method ("lbs", "dqs", "dqs-scale", "dqs-scale-local", "dqs-scale-mixed",
 * "cor", "cor-scale", "cor-scale-local", "cor-scale-mixed"); "unknown" for an out-of-range value. */
SINEW_API const char *sinew_method_name(sinew_method m);
/* Parses a method name as printed by sinew_method_name (exact, case-sensitive).
 * SINEW_ERROR_NOT_FOUND for an unknown name, INVALID_ARGUMENT for NULL. */
SINEW_API sinew_result sinew_method_parse(const char *name, sinew_method *out);
/* True for the methods that read a per-vertex center of rotation (SINEW_METHOD_COR,
 * SINEW_METHOD_COR_SCALE, _LOCAL, _MIXED; sinew/cor.h); false otherwise (out-of-range included). */
SINEW_API bool sinew_method_uses_centers(sinew_method m);

#ifdef __cplusplus
}
#endif
#endif
