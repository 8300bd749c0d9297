/* GPU layout of the morph pass (shaders/morph.comp, engine/gpu/src/morph.c):
 * bindings, the morph data records, the per-frame item record, push constants.
 * Only #defines, so both C and GLSL include it. */
#ifndef SINEW_MORPH_LAYOUT_H
#define SINEW_MORPH_LAYOUT_H

#define SINEW_MORPH_WG_SIZE 64

/* Descriptor set 0 of morph.comp. */
#define SINEW_MORPH_BIND_REST 0     /* the skinner's rest buffer (uvec4): base read, copies written */
#define SINEW_MORPH_BIND_DATA 1     /* uvec4 morph data of every mesh: rows, then entries */
#define SINEW_MORPH_BIND_WEIGHTS 2  /* float weights of the frame's items (ring slot) */
#define SINEW_MORPH_BIND_ITEMS 3    /* SINEW_MORPH_ITEM_* uvec4 pairs of the frame (ring slot) */
#define SINEW_MORPH_BIND_PAIRS 4    /* active mode: one uvec4 per (item, touched target) of the frame (ring slot) */
#define SINEW_MORPH_BIND_DATA_U32 5 /* the morph data buffer again, as uint (target row lists) */
#define SINEW_MORPH_BIND_TANGENT 6  /* the skinner's tangent rest buffer (uvec2 per vertex at SINEW_BULGE_INDEX) */
#define SINEW_MORPH_BIND_BULGE 7    /* the skinner's bulge rest distances (float per vertex at SINEW_BULGE_INDEX) */
#define SINEW_MORPH_BIND_LISTS 8     /* lists mode: the frame's list region as uint (the records' items; ring slot) */
#define SINEW_MORPH_BIND_LIST_RECORDS 9 /* the same region as uvec4 (the records) */
#define SINEW_MORPH_BIND_COUNT 10

/* Row (one uvec4 per vertex moved by any target of the mesh, by vertex):
 * x = vertex index, y = first entry (uvec4 index in the data buffer), z = end entry. */
#define SINEW_MORPH_ROW_VERTEX 0
#define SINEW_MORPH_ROW_FIRST 1
#define SINEW_MORPH_ROW_END 2
/* Entry: 2 uvec4: (target, dp.xyz as float bits), (dn.xyz as float bits, 0);
 * sets with tangent deltas a third: (dt.xyz as float bits, 0). */
#define SINEW_MORPH_ENTRY_SLOTS 2u
#define SINEW_MORPH_ENTRY_SLOTS_TANGENT 3u

/* Target row list (active mode): per target of a set, one uint per stored
 * delta, in the target's entry order: the uvec4 index of the row (the moved
 * vertex) holding that delta. Packed 4 per uvec4 after the set's entries. */

/* Pair record (active mode, one uvec4 per item and touched target):
 * (item, first uint of the target's row list, its length, target index).
 * A target is touched when its weight is non-zero or its deltas are still in
 * the copy from an earlier frame; the frame's weights then hold -0.0 (bits
 * 0x80000000) for a touched zero weight and +0.0 for an untouched one. */
#define SINEW_MORPH_TOUCHED_ZERO 0x80000000u

/* List record (lists mode, one uvec4 each from uvec4 0 of the frame's list region):
 * (base rest slot, copy rest slot, first and end uvec4 of its entries); record g's
 * item at uint SINEW_MORPH_PUSH_LIST_ITEMS + g; the entries after the items: per
 * non-zero-weight touched delta of the row, in target order, contiguous, the
 * item's entry slots: (dp.xyz, weight), (dn.xyz, 0)[, (dt.xyz, 0)] as float bits
 * (copied by the host from the set's host copy each frame). */

/* Item record (one per morphed character-mesh of the frame): 2 uvec4.
 * a = (first row, row count, base mesh's first rest slot, copy's first rest slot)
 * b = (first weight, rest slots per vertex, entry slots (2, or 3 with tangent deltas),
 *      1 + the set's bone segment table's first uvec4 (0: none, the copies keep the base's bulge distances)) */
/* Bone segment table (sinew_morpher_set_skeleton): per joint 2 uvec4, (head.xyz, 0), (tail.xyz, 0)
 * as float bits, bind space; a moved vertex's bulge rest distance is its distance to the
 * segment of its joints[0] (rest slot 1, low 16 bits of x, in both vertex layouts). */
#define SINEW_MORPH_ITEM_SLOTS 2u

/* Push constants: uint words. Workgroup (x, y, z): rows (or row-list entries) x*WG..,
 * item (or pair) y + z * ROWS. */
#define SINEW_MORPH_PUSH_ITEMS 0
#define SINEW_MORPH_PUSH_ROWS 1     /* items (rows mode) or pairs (active mode) per z slice */
#define SINEW_MORPH_PUSH_MODE 2     /* SINEW_MORPH_MODE_* */
#define SINEW_MORPH_MODE_ROWS 0u    /* one invocation per row of each item: reads every stored delta */
#define SINEW_MORPH_MODE_ACTIVE 1u  /* one invocation per (pair, delta): the row's first touched target writes it */
#define SINEW_MORPH_MODE_LISTS 2u   /* one invocation per list record (x + y * ROWS groups of WG) */
#define SINEW_MORPH_PUSH_LIST_ITEMS 3 /* lists mode: uint index of the records' item words */
#define SINEW_MORPH_PUSH_WORDS 4
#define SINEW_MORPH_PUSH_BYTES (SINEW_MORPH_PUSH_WORDS * 4)

#endif
