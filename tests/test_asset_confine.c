/* Files confined to their folder: every import opens only the model file and
 * regular files inside the model's folder (README, "Assets"). Hostile models
 * in a temp directory try each escape: an absolute path, "../", a symlink
 * leading out, a FIFO, /dev/zero (as a reference and as the model), an OBJ
 * material library outside (through assimp), and a memory import with and
 * without a base directory. Each must fail with SINEW_ERROR_IO and a message
 * naming the reference; the same files with the reference inside load.
 * The race: a thread keeps swapping the buffer's subfolder for a symbolic link
 * to a folder outside (renames) while the model is imported 1,500 times;
 * every import must either read the inside buffer or fail, never read the
 * outside one (the check and the open were two steps: realpath, then open). */
#define _GNU_SOURCE
#include "testutil.h"
#include <sinew/asset.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdatomic.h>

static char dir[256], model_dir[300];


static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    TU_CHECK(f != NULL);
    if (!f) return;
    TU_CHECK(fwrite(data, 1, n, f) == n);
    fclose(f);
}

/* One triangle whose positions come from buffer uri (36 bytes). */
static void write_gltf(const char *path, const char *uri)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}]}", uri);
    write_file(path, buf, strlen(buf));
}

static const float tri[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };


static sinew_result load_path(const char *path, sinew_error_info *err)
{
    sinew_asset_desc d = { 0 };
    d.path = path;
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, err);
    sinew_asset_destroy(a);
    return r;
}

/* The model at model_dir/name referencing uri must fail with IO naming uri. */
static void expect_refused(const char *name, const char *uri, const char *why)
{
    char path[512];
    sinew_error_info err;
    snprintf(path, sizeof path, "%s/%s", model_dir, name);
    write_gltf(path, uri);
    sinew_result r = load_path(path, &err);
    printf("%-14s uri %-28s -> %s: %s\n", name, uri, sinew_result_string(r), err.message);
    TU_CHECK_MSG(r == SINEW_ERROR_IO, "%s: %s", uri, sinew_result_string(r));
    TU_CHECK_MSG(strstr(err.message, "refused to open") && strstr(err.message, uri), "message '%s' does not name '%s'", err.message, uri);
    TU_CHECK_MSG(strstr(err.message, why) != NULL, "message '%s' does not say '%s'", err.message, why);
}

static atomic_int race_stop;
static char race_dir[400];

static void *swapper(void *arg)
{
    (void)arg;
    char sub[512], pl[512];
    snprintf(sub, sizeof sub, "%s/sub", race_dir);
    snprintf(pl, sizeof pl, "%s/parked_link", race_dir);
    /* atomic exchange: sub/ is always there, a folder or the link */
    while (!atomic_load(&race_stop)) (void)renameat2(AT_FDCWD, sub, AT_FDCWD, pl, RENAME_EXCHANGE);
    return NULL;
}

static void race(void)
{
    char p[512];
    snprintf(race_dir, sizeof race_dir, "%s/race", dir);
    mkdir(race_dir, 0700);
    snprintf(p, sizeof p, "%s/sub", race_dir); mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/sub/buf.bin", race_dir); write_file(p, tri, sizeof tri);
    snprintf(p, sizeof p, "%s/outside", dir); mkdir(p, 0700);
    const float far[9] = { 100, 100, 100, 101, 100, 100, 100, 101, 100 };
    snprintf(p, sizeof p, "%s/outside/buf.bin", dir); write_file(p, far, sizeof far);
    char target[512];
    snprintf(target, sizeof target, "%s/outside", dir);
    snprintf(p, sizeof p, "%s/parked_link", race_dir);
    TU_CHECK(symlink(target, p) == 0);
    char model[512];
    snprintf(model, sizeof model, "%s/model.gltf", race_dir);
    write_gltf(model, "sub/buf.bin");
    pthread_t th;
    atomic_store(&race_stop, 0);
    TU_CHECK(pthread_create(&th, NULL, swapper, NULL) == 0);
    int ok = 0, refused = 0, missing = 0, outside = 0;
    for (int i = 0; i < 1500; i++) {
        sinew_asset_desc d = { 0 };
        d.path = model;
        sinew_asset *a = NULL;
        sinew_error_info err;
        sinew_result r = sinew_asset_load(&d, &a, &err);
        if (r == SINEW_OK) {
            const double *pos = sinew_asset_rest_positions(a);
            if (pos[0] >= 50) outside++; else ok++;
        } else if (r == SINEW_ERROR_IO && strstr(err.message, "refused")) refused++;
        else if (r == SINEW_ERROR_IO) missing++;
        else TU_CHECK_MSG(0, "race: %s: %s", sinew_result_string(r), err.message);
        sinew_asset_destroy(a);
    }
    atomic_store(&race_stop, 1);
    pthread_join(th, NULL);
    printf("race: 1500 imports while swapping sub/ for a link outside: %d read inside, %d refused, %d missing, %d read OUTSIDE\n",
           ok, refused, missing, outside);
    TU_CHECK_MSG(outside == 0, "%d imports read the file outside the model's folder", outside);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/sinew_confine_XXXXXX");
    TU_CHECK(mkdtemp(dir) != NULL);
    snprintf(model_dir, sizeof model_dir, "%s/model", dir);
    TU_CHECK(mkdir(model_dir, 0700) == 0);
    char p[512], q[512];
    sinew_error_info err;
    /* a secret outside the model's folder, with the bytes of a valid triangle */
    snprintf(p, sizeof p, "%s/secret.bin", dir);
    write_file(p, tri, sizeof tri);
    /* the same bytes inside: the control */
    snprintf(p, sizeof p, "%s/inside.bin", model_dir);
    write_file(p, tri, sizeof tri);
    snprintf(p, sizeof p, "%s/sub", model_dir);
    TU_CHECK(mkdir(p, 0700) == 0);

    /* control: a buffer inside, also through a symlink that stays inside and a
     * "sub/../" path that stays inside */
    snprintf(p, sizeof p, "%s/ok.gltf", model_dir);
    write_gltf(p, "inside.bin");
    TU_CHECK_OK(load_path(p, &err));
    snprintf(q, sizeof q, "%s/link_in.bin", model_dir);
    TU_CHECK(symlink("inside.bin", q) == 0);
    write_gltf(p, "link_in.bin");
    TU_CHECK_OK(load_path(p, &err));
    write_gltf(p, "sub/../inside.bin");
    TU_CHECK_OK(load_path(p, &err));
    /* 1. "../" escapes (existing and missing targets) */
    expect_refused("up.gltf", "../secret.bin", "");
    expect_refused("up2.gltf", "sub/../../secret.bin", "");
    expect_refused("up3.gltf", "../../../../../../etc/passwd", "");
    /* 2. absolute paths */
    snprintf(q, sizeof q, "%s/secret.bin", dir);
    expect_refused("abs.gltf", q, "absolute path");
    expect_refused("abs2.gltf", "/etc/passwd", "absolute path");
    expect_refused("scheme.gltf", "file:///etc/passwd", "only relative references");
    /* 3. a symlink leading out (to the secret, and to /dev/zero) */
    snprintf(q, sizeof q, "%s/link_out.bin", model_dir);
    TU_CHECK(symlink("../secret.bin", q) == 0);
    expect_refused("symlink.gltf", "link_out.bin", "outside the model's folder");
    snprintf(q, sizeof q, "%s/zero.bin", model_dir);
    TU_CHECK(symlink("/dev/zero", q) == 0);
    expect_refused("zero.gltf", "zero.bin", "outside the model's folder");
    /* 4. a FIFO inside the folder (opening it must not block either) */
    snprintf(q, sizeof q, "%s/fifo.bin", model_dir);
    TU_CHECK(mkfifo(q, 0600) == 0);
    expect_refused("fifo.gltf", "fifo.bin", "not a regular file");
    /* 5. a folder as a buffer */
    expect_refused("dir.gltf", "sub", "not a regular file");
    /* 6. the model itself must be a regular file */
    TU_CHECK_RESULT(load_path("/dev/zero", &err), SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "not a regular file") != NULL);
    TU_CHECK_RESULT(load_path(q, &err), SINEW_ERROR_IO); /* the FIFO */
    TU_CHECK(strstr(err.message, "not a regular file") != NULL);
    /* 7. assimp's formats go through the same rule: an OBJ whose material
     * library lies outside */
    snprintf(q, sizeof q, "%s/secret.mtl", dir);
    write_file(q, "newmtl m\nKd 1 0 0\n", 18);
    const char *obj = "mtllib ../secret.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n";
    snprintf(p, sizeof p, "%s/up.obj", model_dir);
    write_file(p, obj, strlen(obj));
    sinew_result r = load_path(p, &err);
    printf("up.obj (assimp) -> %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK_RESULT(r, SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "refused to open") && strstr(err.message, "secret.mtl"));
    const char *obj_ok = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    write_file(p, obj_ok, strlen(obj_ok));
    TU_CHECK_OK(load_path(p, &err));

    /* 8. memory imports: no file at all without a base directory */
    char gltf_mem[2048];
    snprintf(p, sizeof p, "%s/ok.gltf", model_dir);
    write_gltf(p, "inside.bin");
    FILE *f = fopen(p, "rb");
    size_t n = f ? fread(gltf_mem, 1, sizeof gltf_mem, f) : 0;
    if (f) fclose(f);
    sinew_asset_desc d = { 0 };
    sinew_asset *a = NULL;
    d.data = gltf_mem; d.size = n; d.hint = "gltf";
    r = sinew_asset_load(&d, &a, &err);
    printf("memory, no base directory -> %s: %s\n", sinew_result_string(r), err.message);
    TU_CHECK_RESULT(r, SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "inside.bin") && strstr(err.message, "without a base directory"));
    d.base_directory = model_dir;
    r = sinew_asset_load(&d, &a, &err);
    TU_CHECK_MSG(r == SINEW_OK, "memory import with base directory: %s", err.message);
    TU_CHECK(a && sinew_asset_vertex_count(a) == 3);
    sinew_asset_destroy(a); a = NULL;
    /* with a base directory, "../" still cannot leave it */
    snprintf(p, sizeof p, "%s/up.gltf", model_dir);
    write_gltf(p, "../secret.bin");
    f = fopen(p, "rb");
    n = f ? fread(gltf_mem, 1, sizeof gltf_mem, f) : 0;
    if (f) fclose(f);
    d.size = n;
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "../secret.bin") != NULL);
    /* an OBJ from memory naming a material library: refused without a base directory */
    d.data = obj; d.size = strlen(obj); d.hint = "obj"; d.base_directory = NULL;
    TU_CHECK_RESULT(sinew_asset_load(&d, &a, &err), SINEW_ERROR_IO);
    TU_CHECK(strstr(err.message, "secret.mtl") != NULL);
    race();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    if (tu_failures) { fprintf(stderr, "FAIL test_asset_confine: %d check(s) failed\n", tu_failures); return 1; }
    printf("PASS test_asset_confine\n");
    return 0;
}
