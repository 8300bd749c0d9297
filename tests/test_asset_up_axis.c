/* The samples' up axis (demo_model_set_up, used by sinew-viewer): a glTF
 * model is Y-up by the glTF specification, whatever its bounding box. The
 * test writes a Y-up "creature" longer along z (a body 3 long in z, 1 tall in
 * y, 0.5 wide in x; one joint, unskinned), which the bounding-box rule would
 * stand on its tail (z -> y). Checks: demo_asset keeps y up (identity
 * rotation, height = the y extent, lift = -min y); demo_model_set_up with
 * DEMO_UP_AUTO gives the bounding-box rule (z), with DEMO_UP_X the x axis (the
 * rotation maps x to y), as the viewer's --up a / x do. */
#include "testutil.h"
#include "gltf_writer.h"
#include <sinew/asset.h>
#include <sinew/linalg.h>
#include "demo_scene.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    static tu_gltf g;
    tu_gltf_reset(&g);
    /* a box: x in [-0.25, 0.25], y in [0.2, 1.2], z in [-1.5, 1.5] */
    float p[8][3];
    for (int k = 0; k < 8; k++) {
        p[k][0] = k & 1 ? 0.25f : -0.25f;
        p[k][1] = k & 2 ? 1.2f : 0.2f;
        p[k][2] = k & 4 ? 1.5f : -1.5f;
    }
    static const uint16_t idx[36] = { 0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1,
                                      2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3 };
    tu_gltf_acc(&g, p, sizeof p, 5126, "VEC3", 8, 0, ",\"min\":[-0.25,0.2,-1.5],\"max\":[0.25,1.2,1.5]");
    tu_gltf_acc(&g, idx, sizeof idx, 5123, "SCALAR", 36, 0, NULL);
    char *b = tu_base64(g.bin, g.binlen);
    FILE *f = fopen("up_axis_creature.gltf", "w");
    TU_CHECK(f != NULL && b != NULL);
    if (!f || !b) return tu_finish("test_asset_up_axis");
    fprintf(f, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"creature\",\"mesh\":0}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
               "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
               "\"bufferViews\":[%s],\"accessors\":[%s]}", g.binlen, b, g.views, g.accs);
    free(b);
    TU_CHECK(fclose(f) == 0);
    demo_model m;
    char msg[256] = "";
    sinew_result r = demo_asset("up_axis_creature.gltf", &m, msg, sizeof msg);
    TU_CHECK_MSG(r == SINEW_OK, "%s: %s", sinew_result_string(r), msg);
    if (r != SINEW_OK) return tu_finish("test_asset_up_axis");
    /* glTF: y up */
    TU_CHECK(m.up_axis == DEMO_UP_Y);
    TU_CHECK_NEAR(m.upright.w, 1.0, 1e-12);
    TU_CHECK_NEAR(m.height, 1.0, 1e-6);
    TU_CHECK_NEAR(m.lift, -0.2, 1e-6);
    /* the bounding-box rule (--up a): z is clearly the longest, z -> y */
    demo_model_set_up(&m, DEMO_UP_AUTO);
    TU_CHECK(m.up_axis == DEMO_UP_Z);
    sinew_vec3 z = sinew_quat_rotate(m.upright, sinew_v3(0, 0, 1));
    TU_CHECK_NEAR(z.y, 1.0, 1e-12);
    TU_CHECK_NEAR(m.height, 3.0, 1e-6);
    /* --up x */
    demo_model_set_up(&m, DEMO_UP_X);
    sinew_vec3 x = sinew_quat_rotate(m.upright, sinew_v3(1, 0, 0));
    TU_CHECK(m.up_axis == DEMO_UP_X);
    TU_CHECK_NEAR(x.y, 1.0, 1e-12);
    TU_CHECK_NEAR(m.height, 0.5, 1e-6);
    TU_CHECK_NEAR(m.lift, 0.25, 1e-6);
    demo_model_free(&m);
    return tu_finish("test_asset_up_axis");
}
