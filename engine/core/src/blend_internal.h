/* Private: the float32 blend of a character's animation layers (blend.c), the
 * first stage of the production palette path when a character has layers. */
#ifndef SINEW_BLEND_INTERNAL_H
#define SINEW_BLEND_INTERNAL_H

#include "fast_internal.h"

/* Blends layers (already validated for n joints) into out[0..n) by the rules
 * of anim.h ("Blending"). tmp, ref: n poses of scratch each, 16-byte aligned
 * like out. Samples each clip with snw_clip_sample_f32_cut: cut > 0 (bone LOD)
 * skips the joints of depth >= cut, whose blended values are then meaningless
 * (the caller sets them to rest); 0 = every joint. */
void snw_blend_sample_f32(const sinew_anim_layer *layers, uint32_t count, const snw_fast_joint *joints, uint32_t n,
                          uint32_t cut, snw_ftrs *out, snw_ftrs *tmp, snw_ftrs *ref);

/* The time a layer samples its clip at, in seconds (SYNC: phase x duration). */
double snw_layer_sample_time(const sinew_anim_layer *l);

#endif
