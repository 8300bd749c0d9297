/* The folder rule of every import (asset_internal.h): an import opens the
 * model file and regular files inside the model's folder, nothing else. */
#define _GNU_SOURCE
#include <sinew/linalg.h>
#include "asset_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void refuse(snw_confine *cf, const char *path, const char *why)
{
    if (cf->refused[0]) return; /* the first one is reported */
    snprintf(cf->refused, sizeof cf->refused, "%s", path);
    snprintf(cf->why, sizeof cf->why, "%s", why);
}

/* An opened file (fd) kept when it is a regular file (closed and refused otherwise). */
/* Remembers a file the import opened (sinew_asset_reads_file). */
static void note_input(snw_confine *cf, const struct stat *st)
{
    for (uint32_t i = 0; i < cf->input_count; i++)
        if (cf->input_ids[2 * i] == (uint64_t)st->st_dev && cf->input_ids[2 * i + 1] == (uint64_t)st->st_ino) return;
    if (cf->input_count == SNW_CONFINE_MAX_INPUTS) { cf->inputs_overflow = 1; return; }
    cf->input_ids[2 * cf->input_count] = (uint64_t)st->st_dev;
    cf->input_ids[2 * cf->input_count + 1] = (uint64_t)st->st_ino;
    cf->input_count++;
}

static int check_regular(snw_confine *cf, const char *shown, int fd, int *violation)
{
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        *violation = 1;
        refuse(cf, shown, "is not a regular file (device, FIFO, socket or folder)");
        return -1;
    }
    note_input(cf, &st);
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* Opens rel (no "..", no "." left: a realpath's tail) below the folder's
 * descriptor one component at a time, none of them followed if it is a
 * symbolic link (O_NOFOLLOW): a folder swapped for a link after the realpath
 * check is refused, not followed out of the folder. */
static int open_beneath(snw_confine *cf, const char *shown, const char *rel, int *violation)
{
    int dir = cf->root_fd;
    const char *q = rel;
    char comp[NAME_MAX + 1];
    for (;;) {
        while (*q == '/') q++;
        const char *e = strchr(q, '/');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (!len || len > NAME_MAX) { if (dir != cf->root_fd) close(dir); return -1; }
        memcpy(comp, q, len);
        comp[len] = 0;
        const char *rest = q + len;
        while (*rest == '/') rest++;
        if (!*rest) {
            int fd = openat(dir, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            int en = errno;
            if (dir != cf->root_fd) close(dir);
            if (fd < 0) {
                if (en == ELOOP) { *violation = 1; refuse(cf, shown, "is a symbolic link"); }
                return -1;
            }
            return check_regular(cf, shown, fd, violation);
        }
        int next = openat(dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int en = errno;
        if (dir != cf->root_fd) close(dir);
        if (next < 0) {
            if (en == ELOOP || en == ENOTDIR) { *violation = 1; refuse(cf, shown, "has a symbolic link (or a non-folder) on its way inside the model's folder"); }
            return -1;
        }
        dir = next;
        q = rest;
    }
}

/* realpath of a path, checked to lie inside the folder; then opened below the
 * folder's descriptor (open_beneath), so a swap after the check is not followed. */
static int open_inside(snw_confine *cf, const char *shown, const char *path, int *violation)
{
    if (!cf->root[0]) {
        *violation = 1;
        refuse(cf, shown, "is outside the model: a memory import without a base directory opens no file");
        return -1;
    }
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        /* missing: not a violation unless the name itself climbs out (../) or is absolute */
        return -1;
    }
    size_t n = strlen(cf->root);
    int inside = strncmp(real, cf->root, n) == 0 && (real[n] == '/' || (n == 1 && cf->root[0] == '/'));
    if (!inside) {
        *violation = 1;
        refuse(cf, shown, "lies outside the model's folder");
        return -1;
    }
    if (cf->root_fd < 0) return -1;
    const char *rel = real + n;
    while (*rel == '/') rel++;
    return open_beneath(cf, shown, rel, violation);
}

sinew_result snw_confine_init(snw_confine *cf, snw_import_ctx *c)
{
    const sinew_asset_desc *d = c->desc;
    memset(cf, 0, sizeof *cf);
    cf->root_fd = -1;
    if (d->path) {
        cf->model_path = d->path;
        int fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return snw_asset_fail(c, SINEW_ERROR_IO, "cannot open '%s': %s", d->path, strerror(errno));
        struct stat st;
        int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        close(fd);
        if (!ok) return snw_asset_fail(c, SINEW_ERROR_IO, "cannot open '%s': not a regular file", d->path);
        char real[PATH_MAX];
        if (!realpath(d->path, real)) return snw_asset_fail(c, SINEW_ERROR_IO, "cannot open '%s': %s", d->path, strerror(errno));
        char *slash = strrchr(real, '/');
        if (slash == real) slash[1] = 0; else *slash = 0;
        if (strlen(real) >= sizeof cf->root) return snw_asset_fail(c, SINEW_ERROR_IO, "path of '%s' too long", d->path);
        strcpy(cf->root, real);
        cf->root_fd = open(cf->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        cf->mem = d->data;
        cf->mem_size = d->size;
        const char *h = d->hint ? d->hint : "";
        if (strlen(h) > 16 || strchr(h, '/')) return snw_asset_fail(c, SINEW_ERROR_INVALID_ARGUMENT, "bad hint '%.32s'", h);
        snprintf(cf->mem_name, sizeof cf->mem_name, "$sinew-memory$.%s", h);
        if (d->base_directory) {
            char real[PATH_MAX];
            struct stat st;
            if (!realpath(d->base_directory, real) || stat(real, &st) || !S_ISDIR(st.st_mode))
                return snw_asset_fail(c, SINEW_ERROR_IO, "base directory '%s' is not a folder", d->base_directory);
            if (strlen(real) >= sizeof cf->root) return snw_asset_fail(c, SINEW_ERROR_IO, "base directory path too long");
            strcpy(cf->root, real);
            cf->root_fd = open(cf->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (cf->root_fd < 0) return snw_asset_fail(c, SINEW_ERROR_IO, "base directory '%s' cannot be opened: %s", d->base_directory, strerror(errno));
        }
    }
    return SINEW_OK;
}

void snw_confine_release(snw_confine *cf)
{
    if (cf->root_fd >= 0) close(cf->root_fd);
    cf->root_fd = -1;
}

int snw_confine_open(snw_confine *cf, const char *path, int *violation)
{
    *violation = 0;
    if (!path || !*path) return -1;
    if (cf->model_path && strcmp(path, cf->model_path) == 0) {
        /* the model itself: a regular file (checked by init, again here) */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return -1;
        struct stat st;
        if (fstat(fd, &st) || !S_ISREG(st.st_mode)) { close(fd); *violation = 1; refuse(cf, path, "is not a regular file"); return -1; }
        note_input(cf, &st);
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        return fd;
    }
    if (cf->mem) {
        if (strcmp(path, cf->mem_name) == 0) return -2;
        if (!cf->root[0]) { *violation = 1; refuse(cf, path, "is outside the model: a memory import without a base directory opens no file"); return -1; }
        if (path[0] == '/') return open_inside(cf, path, path, violation);
        char full[SNW_CONFINE_PATH_MAX * 2];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", cf->root, path) >= sizeof full) { *violation = 1; refuse(cf, path, "is too long"); return -1; }
        return open_inside(cf, path, full, violation);
    }
    /* file import: assimp asks with the model's folder as given (relative to
     * the working directory) or an absolute path */
    return open_inside(cf, path, path, violation);
}

int snw_confine_open_relative(snw_confine *cf, const char *rel, int *violation)
{
    *violation = 0;
    if (!rel || !*rel) return -1;
    if (rel[0] == '/') { *violation = 1; refuse(cf, rel, "is an absolute path"); return -1; }
    /* lexically: a ".." that climbs above the folder is refused even when the target is missing */
    int depth = 0;
    for (const char *q = rel; *q;) {
        const char *e = strchr(q, '/');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len == 2 && q[0] == '.' && q[1] == '.') { if (--depth < 0) { *violation = 1; refuse(cf, rel, "climbs out of the model's folder (..)"); return -1; } }
        else if (len && !(len == 1 && q[0] == '.')) depth++;
        q += len;
        while (*q == '/') q++;
    }
    if (!cf->root[0]) { *violation = 1; refuse(cf, rel, "is outside the model: a memory import without a base directory opens no file"); return -1; }
    char full[SNW_CONFINE_PATH_MAX * 2];
    if ((size_t)snprintf(full, sizeof full, "%s/%s", cf->root, rel) >= sizeof full) { *violation = 1; refuse(cf, rel, "is too long"); return -1; }
    return open_inside(cf, rel, full, violation);
}

int snw_read_fd(int fd, const sinew_allocator *al, size_t max_bytes, uint8_t **data, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 0) { close(fd); return -1; }
    if ((unsigned long long)st.st_size > max_bytes) { close(fd); return -2; }
    size_t n = (size_t)st.st_size;
    uint8_t *p = snw_alloc(al, n ? n : 1);
    if (!p) { close(fd); return -3; }
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, p + got, n - got, (off_t)got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (got != n) { snw_free(al, p); return -1; }
    *data = p;
    *size = n;
    return 0;
}
