/* FBX blend shapes through assimp (aiMesh mAnimMeshes) kept as the asset's
 * morph targets (sinew_asset_morph_targets), on tests/data/fbx/blendshape_quad.fbx
 * (hand-written ASCII FBX: a quad of 6 unshared vertices under a node rotated
 * 90 degrees about z and scaled 2; channel "Smile" moves file vertices 1, 2
 * (DeformPercent 30), "Blink" moves vertex 3 (DeformPercent 0)). Checks, against
 * a float64 evaluation written from the file's numbers (node G applied to
 * base + sum w delta): target names, sparse entries (only moved vertices,
 * local indices), model-space deltas (1e-6), default weights 0 (assimp 5.2.5
 * reads both channels' weight as 1.0: not used, the rest mesh is the base),
 * the rest mesh (1e-6 x size: assimp composes the node matrix in float) and the
 * float64 morph reference at weights (0.3, -0.7) and (1, 2.5) (1e-6 x size). */
#include "testutil.h"
#include <sinew/asset.h>
#include <stdlib.h>
#include <string.h>

/* G = 2 Rz(90): (x, y, z) -> (-2y, 2x, 2z) */
static void G(const double p[3], double o[3])
{
    o[0] = -2.0 * p[1];
    o[1] = 2.0 * p[0];
    o[2] = 2.0 * p[2];
}

int main(void)
{
    const char *src = getenv("SINEW_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/fbx/blendshape_quad.fbx", src ? src : ".");
    sinew_error_info err;
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "load %s: %s (%s)", path, sinew_result_string(r), err.message);
    if (r != SINEW_OK) return tu_finish("test_asset_fbx_morph");
    TU_CHECK(sinew_asset_mesh_count(a) == 1);
    const sinew_asset_mesh_info *mi = sinew_asset_mesh(a, 0);
    TU_CHECK(mi->vertex_count == 6);
    uint32_t nt = 0;
    const float *dw = NULL;
    const sinew_morph_target *t = sinew_asset_morph_targets(a, 0, &nt, &dw);
    TU_CHECK(t && nt == 2);
    TU_CHECK(sinew_asset_stats(a)->morph_targets == 2);
    if (!t || nt != 2) return tu_finish("test_asset_fbx_morph");
    TU_CHECK(t[0].name && strcmp(t[0].name, "Smile") == 0);
    TU_CHECK(t[1].name && strcmp(t[1].name, "Blink") == 0);
    TU_CHECK(dw[0] == 0.0f && dw[1] == 0.0f);
    /* file geometry (assimp's unshared order: triangles 0 1 2, 0 2 3) */
    static const double base[6][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 } };
    static const double smile[6][3] = { { 0, 0, 0 }, { 0, 0, 0.5 }, { 0.25, 0, 0 }, { 0, 0, 0 }, { 0.25, 0, 0 }, { 0, 0, 0 } };
    static const double blink[6][3] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, -0.5, 0 } };
    const double (*sh[2])[3] = { smile, blink };
    static const uint32_t expect_count[2] = { 3, 1 };
    for (int k = 0; k < 2; k++) {
        TU_CHECK_MSG(t[k].count == expect_count[k], "target %d: %u entries", k, t[k].count);
        for (uint32_t e = 0; e < t[k].count; e++) {
            uint32_t q = t[k].indices[e];
            TU_CHECK(q < 6);
            if (q >= 6) continue;
            double dd[3];
            G(sh[k][q], dd);
            for (int c = 0; c < 3; c++)
                TU_CHECK_MSG(fabs(t[k].position_deltas[3 * e + c] - dd[c]) <= 1e-6, "target %d vertex %u: %g vs %g", k, q,
                             t[k].position_deltas[3 * e + c], dd[c]);
        }
    }
    /* rest = base (default weights 0) and the reference at other weights */
    const double *rp = sinew_asset_rest_positions(a) + 3 * (size_t)mi->first_vertex;
    double size = sinew_asset_size(a);
    for (int q = 0; q < 6; q++) {
        double g[3];
        G(base[q], g);
        for (int c = 0; c < 3; c++) TU_CHECK_MSG(fabs(rp[3 * q + c] - g[c]) <= 1e-6 * size, "rest %d", q); /* the node matrix is float in assimp */
    }
    static const float W[2][2] = { { 0.3f, -0.7f }, { 1.0f, 2.5f } };
    double mp[18], mn[18];
    for (int w = 0; w < 2; w++) {
        sinew_morph_error err;
        TU_CHECK_OK(sinew_morph_reference(6, sinew_asset_vertices(a) + mi->first_vertex, t, 2, W[w], mp, mn, &err));
        for (int q = 0; q < 6; q++) {
            double l[3], g[3];
            for (int c = 0; c < 3; c++) l[c] = base[q][c] + W[w][0] * smile[q][c] + W[w][1] * blink[q][c];
            G(l, g);
            for (int c = 0; c < 3; c++)
                TU_CHECK_MSG(fabs(mp[3 * q + c] - g[c]) <= 1e-6 * size, "weights %d vertex %d: %g vs %g", w, q,
                             mp[3 * q + c], g[c]);
        }
    }
    sinew_asset_destroy(a);
    return tu_finish("test_asset_fbx_morph");
}
