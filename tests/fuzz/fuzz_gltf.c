/* libFuzzer target for Sinew's own glTF 2.0 importer (gltf.c, json-c): the
 * first input byte picks .gltf (even) or .glb (odd) as the hint, the rest is
 * the file given to sinew_asset_load from memory (no base directory, so no
 * file may be opened). A successful import is exercised further: every clip
 * sampled on, between and outside its keys, the bind pose skinned by the
 * float64 reference with every method, the influences walked, and every
 * mesh's morph targets validated and applied by the float64 morph reference
 * (sinew_morph_reference: the rule the GPU morpher runs) at the clip's sampled
 * weights, at weights +-1e6 and at the defaults. The vertex limit is the
 * default (2^24: small files reach large meshes through accessors without a
 * bufferView) under a 256 MiB memory budget.
 * Build and run: tests/fuzz/run_fuzz.sh. */
#include <sinew/core.h>
#include <sinew/palette.h>
#include <sinew/reference.h>
#include <sinew/anim.h>
#include <sinew/asset.h>
#include <sinew/blendshape.h>
#include <math.h>
#include "fuzz_skin.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    sinew_asset_desc d = { 0 };
    sinew_error_info err;
    d.data = data + 1;
    d.size = size - 1;
    d.hint = data[0] & 1 ? "glb" : "gltf";
    d.max_keys = 1u << 18;
    d.max_memory = 256u << 20;
    sinew_asset *a = NULL;
    if (sinew_asset_load(&d, &a, &err) != SINEW_OK) {
        if (!err.message[0]) abort(); /* every error has a message */
        return 0;
    }
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nj = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    sinew_transform *pose = calloc(nj, sizeof *pose);
    for (uint32_t c = 0; c < sinew_asset_clip_count(a); c++) {
        const sinew_clip *clip = sinew_asset_clip(a, c);
        double dur = sinew_clip_duration(clip);
        const double ts[] = { 0, 0.37 * dur, 0.5 * dur, dur, -1, 1e9 };
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
            sinew_clip_sample(clip, sk, ts[k], SINEW_WRAP_LOOP, pose);
            sinew_clip_sample(clip, sk, ts[k], SINEW_WRAP_CLAMP, pose);
        }
        /* morph-weight tracks: slots are the model's morph targets */
        uint32_t nw = sinew_clip_weight_count(clip);
        double *wv = calloc(nw ? nw : 1, sizeof *wv);
        for (size_t k = 0; wv && k < sizeof ts / sizeof ts[0]; k++)
            if (sinew_clip_sample_weights(clip, ts[k], SINEW_WRAP_LOOP, NULL, nw, wv) != SINEW_OK) abort();
        free(wv);
    }
    const uint32_t *off, *jn;
    const float *w;
    if (sinew_asset_influences(a, &off, &jn, &w) == SINEW_OK)
        for (uint32_t v = 0; v < nv; v++)
            for (uint32_t k = off[v]; k < off[v + 1]; k++)
                if (jn[k] >= nj || !(w[k] > 0)) abort(); /* the influences name joints and carry weight */
    for (uint32_t i = 0; i < sinew_asset_index_count(a); i++)
        if (sinew_asset_indices(a)[i] >= nv) abort();
    /* the 8-influence packing of the unpruned lists */
    sinew_vertex8 *v8 = calloc(nv ? nv : 1, sizeof *v8);
    if (v8 && sinew_asset_vertices8(a, v8, NULL) != SINEW_OK) abort();
    free(v8);
    /* the morph targets through the float64 morph reference */
    for (uint32_t m = 0; m < sinew_asset_mesh_count(a); m++) {
        uint32_t nt = 0;
        const float *dw = NULL;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, m, &nt, &dw);
        if (!nt) continue;
        const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, m);
        if (sinew_morph_validate(mi->vertex_count, tg, nt, NULL) != SINEW_OK) abort(); /* the importer's targets are valid */
        float *wt = calloc(nt, sizeof *wt);
        double *mp = calloc((size_t)mi->vertex_count * 3, sizeof *mp), *mn = calloc((size_t)mi->vertex_count * 3, sizeof *mn);
        if (wt && mp && mn) {
            const float fill[] = { 0.5f, -1e6f, 1e6f };
            for (size_t k = 0; k < sizeof fill / sizeof fill[0]; k++) {
                for (uint32_t t = 0; t < nt; t++) wt[t] = (t & 1) ? fill[k] : (dw ? -dw[t] : 0.0f);
                sinew_morph_error me;
                sinew_result r = sinew_morph_reference(mi->vertex_count, sinew_asset_vertices(a) + mi->first_vertex, tg, nt,
                                                       wt, mp, mn, &me);
                if (r == SINEW_OK)
                    for (size_t q = 0; q < (size_t)mi->vertex_count * 3; q++)
                        if (!isfinite(mp[q])) abort(); /* accepted weights give finite positions */
            }
        }
        free(wt); free(mp); free(mn);
    }
    fuzz_skin_bind_pose(a, pose);
    free(pose);
    sinew_asset_destroy(a);
    return 0;
}
