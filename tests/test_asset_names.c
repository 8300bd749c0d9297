/* Part 2 (sinew_asset_reads_file; fixture out_is_buffer/ for the CLI test
 * cli_deform_out_is_input): a glTF whose external buffer is named mesh.obj;
 * the asset says it read the model, the buffer and a hard link to the buffer,
 * not another file; 'sinew deform --out out_is_buffer/mesh.obj' must refuse.
 *
 * Part 3: big_nodes.gltf (2,000,000 empty nodes, 6 MB) for cli_info_json_out_of_memory.
 *
 * Names from files never carry control characters out: a glTF (written here,
 * also as control_names.gltf in the working directory for the CLI tests
 * cli_deform_control_names_obj / _ply) whose mesh, node (joint), clip and
 * morph target names hold a newline, a carriage return and an ESC sequence.
 * The asset's names, and an error message quoting a node name, must hold no
 * byte below 0x20 nor 0x7f ('?' in their place), the rest of each name kept. */
#define _GNU_SOURCE
#include "testutil.h"
#include <sinew/asset.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *evil_json =
    "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"name\":\"root\\n v 9 9 9\",\"mesh\":0}],"
    "\"meshes\":[{\"name\":\"mesh\\u001b[2J\\r\",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}]}],"
    "\"extras\":{\"targetNames\":[\"smile\\n f 1 2 3\\u007f\"]}}],"
    "\"animations\":[{\"name\":\"walk\\nv 1 2 3\\nf 1 2 3\\u001b]0;pwned\\u0007\",\"samplers\":[{\"input\":1,\"output\":2}],"
    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
    "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":24}],"
    /* positions (0,0,0) (1,0,0) (0,1,0); times 0, 1; translations zero */
    "\"buffers\":[{\"byteLength\":68,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}";

static int clean(const char *s, const char *keep)
{
    if (!s) return 0;
    for (const char *q = s; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) return 0;
    return strstr(s, keep) != NULL;
}

int main(void)
{
    FILE *f = fopen("control_names.gltf", "wb");
    TU_CHECK(f != NULL);
    if (f) { fputs(evil_json, f); fclose(f); }
    sinew_asset_desc d = { 0 };
    d.data = evil_json; d.size = strlen(evil_json); d.hint = "gltf";
    sinew_asset *a = NULL;
    sinew_error_info err;
    sinew_result r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "%s", err.message);
    if (a) {
        const char *mesh = sinew_asset_mesh(a, 0)->name;
        const char *joint = sinew_skeleton_name(sinew_asset_skeleton(a), 0);
        const char *clip = sinew_clip_name(sinew_asset_clip(a, 0));
        uint32_t nt = 0;
        const sinew_morph_target *t = sinew_asset_morph_targets(a, 0, &nt, NULL);
        printf("mesh '%s', joint '%s', clip '%s', target '%s'\n", mesh, joint, clip, nt ? t[0].name : "(none)");
        TU_CHECK_MSG(clean(mesh, "mesh?[2J?"), "mesh name '%s'", mesh);
        TU_CHECK_MSG(clean(joint, "root? v 9 9 9"), "joint name '%s'", joint);
        TU_CHECK_MSG(clean(clip, "walk?v 1 2 3?f 1 2 3?]0;pwned?"), "clip name '%s'", clip);
        TU_CHECK(nt == 1);
        if (nt) TU_CHECK_MSG(clean(t[0].name, "smile? f 1 2 3?"), "target name '%s'", t[0].name);
        /* lookup by the cleaned name */
        TU_CHECK(sinew_asset_find_clip(a, clip) == 0);
    }
    sinew_asset_destroy(a);
    /* an error quoting a node name: a singular node transform */
    const char *bad =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"evil\\n\\u001b[31m\",\"mesh\":0,\"scale\":[0,0,0]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}]}";
    d.data = bad; d.size = strlen(bad);
    r = sinew_asset_load(&d, &a, &err);
    printf("singular node: %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK(r != SINEW_OK);
    TU_CHECK_MSG(clean(err.message, "evil??[31m"), "message '%s'", err.message);
    sinew_asset_destroy(a);
    /* part 2: the files an import read */
    mkdir("out_is_buffer", 0755);
    static const float tri[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    f = fopen("out_is_buffer/mesh.obj", "wb");
    if (f) { fwrite(tri, 1, sizeof tri, f); fclose(f); }
    f = fopen("out_is_buffer/mesh.orig", "wb");
    if (f) { fwrite(tri, 1, sizeof tri, f); fclose(f); }
    f = fopen("out_is_buffer/model.gltf", "wb");
    if (f) {
        fputs("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[{\"byteLength\":36,\"uri\":\"mesh.obj\"}]}", f);
        fclose(f);
    }
    unlink("out_is_buffer/link.obj");
    TU_CHECK(link("out_is_buffer/mesh.obj", "out_is_buffer/link.obj") == 0);
    sinew_asset_desc fd = { 0 };
    fd.path = "out_is_buffer/model.gltf";
    TU_CHECK_OK(sinew_asset_load(&fd, &a, &err));
    if (a) {
        TU_CHECK(sinew_asset_reads_file(a, "out_is_buffer/model.gltf"));
        TU_CHECK(sinew_asset_reads_file(a, "out_is_buffer/mesh.obj"));
        TU_CHECK(sinew_asset_reads_file(a, "out_is_buffer/link.obj"));
        TU_CHECK(!sinew_asset_reads_file(a, "out_is_buffer/mesh.orig"));
        TU_CHECK(!sinew_asset_reads_file(a, "out_is_buffer/missing.obj"));
    }
    sinew_asset_destroy(a);
    /* part 3 */
    f = fopen("big_nodes.gltf", "wb");
    if (f) {
        fputs("{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[]}],\"nodes\":[{}", f);
        for (int k = 1; k < 2000000; k++) fputs(",{}", f);
        fputs("]}", f);
        fclose(f);
    }
    if (tu_failures) { fprintf(stderr, "FAIL test_asset_names: %d check(s) failed\n", tu_failures); return 1; }
    printf("PASS test_asset_names\n");
    return 0;
}
