/* The sinew command-line tool: inspect a model (sinew info) and write a
 * deformed mesh (sinew deform). Imports run in a forked child process so that
 * a crash or hang inside assimp on a malformed file is reported as an error. */
#define _GNU_SOURCE /* prctl, strsignal */
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include <sinew/sinew.h>
#include <sinew/anim.h>
#include <sinew/clip_compress.h>
#include <sinew/asset.h>

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <float.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_ERR = 1, EXIT_USAGE = 2, EXIT_CRASH = 3 };

static const char *prog = "sinew";

static void usage_main(FILE *f)
{
    fprintf(f,
        "usage: sinew <command> [options]\n"
        "\n"
        "commands:\n"
        "  info MODEL      meshes, vertices, joints, influences, clips, and the Vulkan device\n"
        "  deform MODEL    skin the model at a pose and write the mesh (OBJ or PLY)\n"
        "  help [COMMAND]  this text, or a command's options\n"
        "\n"
        "glTF 2.0 (.gltf, .glb) is read by Sinew, other formats with assimp (FBX, Collada,\n"
        "X, MD5, Ogre, SMD, ...); a model may only reference files inside its folder.\n"
        "Run 'sinew <command> --help' for options. Exit status: 0 success, 1 error,\n"
        "2 bad usage, 3 the import crashed or timed out (reported, not propagated).\n");
}

static void usage_info(FILE *f)
{
    fprintf(f,
        "usage: sinew info MODEL [--device SEL] [--timeout S] [--no-fork]\n"
        "\n"
        "Prints the character imported from MODEL: meshes (vertices, triangles,\n"
        "vertices without weights), joints, the influences-per-vertex histogram and\n"
        "maximum, how many vertices were pruned to 4 influences, the clips with their\n"
        "durations, and the Vulkan device 'sinew deform' would use.\n"
        "Exit status 1 also when the file is described but 'sinew deform' would refuse\n"
        "it (weights naming missing bones: a warning says so; --allow-missing-bones).\n"
        "\n"
        "  --device SEL  device index or case-insensitive name substring (default:\n"
        "                $SINEW_DEVICE, else the best: discrete, integrated, virtual, CPU)\n"
        "  --auto-weights ALPHA  also compute automatic weights (w ~ distance to the bone\n"
        "                segment ^ -ALPHA, ALPHA > 0) and compare them with the file's\n"
        "  --cache-dir D, --no-cache  the automatic weights' cache, as in 'sinew deform'\n"
        "  --allow-missing-bones  drop the weights of bones that name no node\n"
        "                         (default: such a file is an error)\n"
        "  --max-memory MB  memory the import may add (default 4096; 0 = no limit; at most 1048576)\n"
        "  --compress-clips TOL  also compress every clip (error bound TOL in model units, > 0) and\n"
        "                print per clip: ratio, bytes before (float32 keys) / after, max error measured\n"
        "  --timeout S   give up after S seconds (default 300; at most 86400)\n"
        "  --no-fork     import in this process (for debugging)\n");
}

static void usage_deform(FILE *f)
{
    fprintf(f,
        "usage: sinew deform MODEL --out FILE.obj|FILE.ply [options]\n"
        "\n"
        "Skins the whole character at one pose and writes positions, normals and\n"
        "triangles to one file, vertices in the model's order (model space, the\n"
        "file's units). Computed on the GPU by default, or by the float64 reference\n"
        "skinner with --cpu. A model with vertices of more than 4 influences is\n"
        "skinned with up to 8 (the 8 largest, renormalized), on both paths.\n"
        "When the file has tangent frames they are skinned too and a .ply gets them\n"
        "as extra vertex properties tx ty tz (unit tangent) and tw (bitangent sign,\n"
        "+1 or -1: bitangent = tw * cross(normal, tangent)); OBJ has no tangent field\n"
        "(a comment line in the file says they were left out).\n"
        "\n"
        "  --clip N|NAME  clip index or name (default 0; the rest pose if none)\n"
        "  --time T       time in seconds (default 0); the clip's morph-weight tracks (glTF\n"
        "                 weights channels) are applied too. Clamped to [0, duration] by\n"
        "                 default: T = the duration gives the last key, as glTF viewers\n"
        "                 show it; the output names the convention used\n"
        "  --loop         wrap T modulo the duration instead (T = the duration gives the first key)\n"
        "  --clamp        clamp (the default since 0.9; kept for scripts)\n"
        "  --compress-clips TOL  sample the clip compressed (error bound TOL in model units, > 0;\n"
        "                 see 'sinew info --compress-clips')\n"
        "  --rest         the rest pose (the file's node transforms), no clip\n"
        "  --bind         the bind pose (reproduces the rest mesh), no clip\n"
        "  --method M     lbs | dqs | dqs-scale | dqs-scale-local | dqs-scale-mixed | cor | cor-scale |\n"
        "                 cor-scale-local | cor-scale-mixed\n"
        "                 (default lbs); cor = optimized centers of rotation (Le & Hodgins 2016):\n"
        "                 the per-vertex centers are computed first from the rest triangles\n"
        "                 and weights (all cores; the time is printed)\n"
        "  --cor-sigma S  similarity kernel width of the centers (default 0.1, > 0)\n"
        "  --cache-dir D  where the centers and automatic weights are cached (default:\n"
        "                 $SINEW_CACHE_DIR, else beside MODEL, as MODEL.cor and MODEL.weights)\n"
        "  --no-cache     neither read nor write those cache files\n"
        "  --bulge        bulge correction (Kim & Han 2014)\n"
        "  --bulge-inner  bulge correction with its inner push (vertices closer than at rest to\n"
        "                 their major bone pushed back out; implies --bulge)\n"
        "  --out FILE     .obj or .ply (ASCII; .ply also holds skinned tangents)\n"
        "  --cpu          use the float64 reference skinner instead of the GPU\n"
        "  --morph NAME=W set morph target NAME ('target N' as 'sinew info' lists it, on every\n"
        "                 mesh that has it) to weight W, |W| <= 1e6; repeatable; other targets\n"
        "                 keep the file's default weights (or the clip's animated ones)\n"
        "  --auto-weights ALPHA  replace the file's weights by automatic weights: w ~ d^-ALPHA,\n"
        "                 d the distance to each joint's bone segment, ALPHA > 0; joints the\n"
        "                 file weights (all joints if it weights fewer than 2)\n"
        "  --device SEL   device index or name substring (see 'sinew info --help')\n"
        "  --allow-missing-bones  drop the weights of bones that name no node\n"
        "                         (default: such a file is an error)\n"
        "  --max-memory MB  memory the import may add (default 4096; 0 = no limit; at most 1048576)\n"
        "  --timeout S   give up after S seconds (default 300; at most 86400)\n"
        "  --no-fork      run in this process (for debugging)\n");
}

static int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_ERR;
}

static int usage_err(void (*usage)(FILE *), const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    usage(stderr);
    return EXIT_USAGE;
}

/* ---- options ------------------------------------------------------------- */

typedef struct opts {
    const char *model, *out, *device, *clip;
    double time;
    int time_given, rest, bind, clamp, loop, bulge, cpu, no_fork, allow_missing;
    double timeout, max_memory_mb;
    double auto_alpha;       /* > 0: --auto-weights ALPHA */
    double cor_sigma;        /* --cor-sigma (0 = the default) */
    const char *cache_dir;   /* --cache-dir (NULL: beside the model) */
    int no_cache;            /* --no-cache */
    double compress_tol;     /* --compress-clips TOL (0 = not given) */
    sinew_method method;
    uint32_t n_morph;        /* --morph NAME=W */
    const char *morph_arg[64];
} opts;

/* Ranges of --timeout (one day) and --max-memory (1 TiB): beyond them the
 * alarm() and rlimit arithmetic would overflow. */
#define MAX_TIMEOUT_S 86400.0
#define MAX_MEMORY_MB 1048576.0

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int parse_opts(int argc, char **argv, int deform, opts *o)
{
    void (*usage)(FILE *) = deform ? usage_deform : usage_info;
    memset(o, 0, sizeof *o);
    o->timeout = 300;
    o->max_memory_mb = 4096;
    o->method = SINEW_METHOD_LBS;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VAL() do { if (!val) return usage_err(usage, "option %s needs a value", a); i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return -1; }
        else if (!strcmp(a, "--device")) { NEED_VAL(); o->device = val; }
        else if (!strcmp(a, "--timeout")) {
            NEED_VAL();
            if (!parse_double(val, &o->timeout) || !(o->timeout > 0 && o->timeout <= MAX_TIMEOUT_S))
                return usage_err(usage, "bad --timeout '%s' (seconds, more than 0 and at most 86400)", val);
        }
        else if (!strcmp(a, "--no-fork")) o->no_fork = 1;
        else if (!strcmp(a, "--auto-weights")) {
            NEED_VAL();
            if (!parse_double(val, &o->auto_alpha) || !(o->auto_alpha > 0))
                return usage_err(usage, "bad --auto-weights '%s' (an exponent > 0 expected, e.g. 2)", val);
        }
        else if (!strcmp(a, "--allow-missing-bones")) o->allow_missing = 1;
        else if (!strcmp(a, "--cache-dir")) { NEED_VAL(); o->cache_dir = val; }
        else if (!strcmp(a, "--no-cache")) o->no_cache = 1;
        else if (!strcmp(a, "--max-memory")) {
            NEED_VAL();
            if (!parse_double(val, &o->max_memory_mb) || !(o->max_memory_mb >= 0 && o->max_memory_mb <= MAX_MEMORY_MB))
                return usage_err(usage, "bad --max-memory '%s' (MiB, 0 = no limit, at most 1048576)", val);
        }
        else if (!strcmp(a, "--compress-clips")) {
            NEED_VAL();
            if (!parse_double(val, &o->compress_tol) || !(o->compress_tol > 0))
                return usage_err(usage, "bad --compress-clips '%s' (an error bound > 0 in model units expected)", val);
        }
        else if (deform && !strcmp(a, "--out")) { NEED_VAL(); o->out = val; }
        else if (deform && !strcmp(a, "--clip")) { NEED_VAL(); o->clip = val; }
        else if (deform && !strcmp(a, "--time")) {
            NEED_VAL();
            if (!parse_double(val, &o->time)) return usage_err(usage, "bad --time '%s' (seconds expected)", val);
            o->time_given = 1;
        }
        else if (deform && !strcmp(a, "--rest")) o->rest = 1;
        else if (deform && !strcmp(a, "--bind")) o->bind = 1;
        else if (deform && !strcmp(a, "--clamp")) o->clamp = 1;
        else if (deform && !strcmp(a, "--loop")) o->loop = 1;
        else if (deform && !strcmp(a, "--bulge")) o->bulge = 1;
        else if (deform && !strcmp(a, "--bulge-inner")) o->bulge = 2;
        else if (deform && !strcmp(a, "--cpu")) o->cpu = 1;
        else if (deform && !strcmp(a, "--morph")) {
            NEED_VAL();
            const char *eq = strrchr(val, '=');
            double w;
            if (!eq || eq == val || !parse_double(eq + 1, &w) || !(fabs(w) <= 1e6))
                return usage_err(usage, "bad --morph '%s' (NAME=WEIGHT, |WEIGHT| <= 1e6)", val);
            if (o->n_morph >= 64) return usage_err(usage, "more than 64 --morph options ('%s')", val);
            o->morph_arg[o->n_morph++] = val;
        }
        else if (deform && !strcmp(a, "--method")) {
            NEED_VAL();
            if (sinew_method_parse(val, &o->method) != SINEW_OK)
                return usage_err(usage, "unknown method '%s' (lbs, dqs, dqs-scale, dqs-scale-local, dqs-scale-mixed, "
                                        "cor, cor-scale, cor-scale-local, cor-scale-mixed)", val);
        }
        else if (deform && !strcmp(a, "--cor-sigma")) {
            NEED_VAL();
            if (!parse_double(val, &o->cor_sigma) || !(o->cor_sigma > 0))
                return usage_err(usage, "bad --cor-sigma '%s' (a width > 0 expected, e.g. 0.1)", val);
        }
        else if (a[0] == '-' && a[1]) return usage_err(usage, "unknown option '%s'", a);
        else if (!o->model) o->model = a;
        else return usage_err(usage, "unexpected argument '%s'", a);
#undef NEED_VAL
    }
    if (!o->model) return usage_err(usage, "%s", "missing MODEL");
    if (deform) {
        if (!o->out) return usage_err(usage, "%s", "missing --out FILE.obj|FILE.ply");
        struct stat so, sm;
        if (!strcmp(o->out, o->model) || (stat(o->out, &so) == 0 && stat(o->model, &sm) == 0 &&
                                          so.st_dev == sm.st_dev && so.st_ino == sm.st_ino))
            return usage_err(usage, "--out '%s' is the input model: refusing to overwrite it", o->out);
        const char *dot = strrchr(o->out, '.');
        if (!dot || (strcasecmp(dot, ".obj") && strcasecmp(dot, ".ply")))
            return usage_err(usage, "--out '%s': the extension must be .obj or .ply", o->out);
        if (o->rest + o->bind + (o->time_given || o->clip ? 1 : 0) > 1)
            return usage_err(usage, "%s", "--rest, --bind and --clip/--time exclude each other");
        if (o->clamp && o->loop) return usage_err(usage, "%s", "--clamp and --loop exclude each other");
        if ((o->clamp || o->loop) && (o->rest || o->bind))
            return usage_err(usage, "%s", "--clamp and --loop apply to a clip's time: not with --rest or --bind");
    }
    return 0;
}

/* ---- devices -------------------------------------------------------------- */

static const char *device_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static void print_device(const char *sel_opt)
{
    sinew_gpu_device_info infos[16];
    uint32_t count = 0;
    sinew_result r = sinew_gpu_list_devices(infos, 16, &count);
    if (r != SINEW_OK) { printf("device: none (%s)\n", sinew_result_string(r)); return; }
    if (count > 16) count = 16;
    const char *sel = sel_opt ? sel_opt : getenv("SINEW_DEVICE");
    if (sel && !*sel) sel = NULL;
    uint32_t picked = 0;
    int pick = sinew_gpu_pick_device(infos, count, sel, &picked) == SINEW_OK ? (int)picked : -1;
    for (uint32_t i = 0; i < count; i++)
        printf("  device %u: %s (%s, Vulkan %u.%u)%s\n", i, infos[i].name, device_type_name(infos[i].type),
               VK_API_VERSION_MAJOR(infos[i].api_version), VK_API_VERSION_MINOR(infos[i].api_version),
               (int)i == pick ? "  <- selected" : "");
    if (pick < 0) printf("device: none matches '%s'\n", sel ? sel : "");
    else printf("device: %s (selected %s)\n", infos[pick].name, sel ? "by request" : "automatically");
}

/* ---- import --------------------------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define SINEW_CLI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SINEW_CLI_ASAN 1
#endif
#endif

/* Bounds the heap the importer may add (RLIMIT_DATA, restored afterwards).
 * Not under AddressSanitizer, whose shadow memory counts as data. */
static int limit_memory(double mb, struct rlimit *saved)
{
#ifdef SINEW_CLI_ASAN
    (void)mb; (void)saved;
    return 0;
#else
    if (mb <= 0 || getrlimit(RLIMIT_DATA, saved)) return 0;
    struct rlimit l = *saved;
    /* current data size: from /proc (Linux); unknown = 0 */
    unsigned long long data_kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "VmData: %llu kB", &data_kb) == 1) break;
        fclose(f);
    }
    rlim_t want = (rlim_t)(data_kb * 1024ull + (unsigned long long)(mb * 1048576.0));
    if (saved->rlim_max != RLIM_INFINITY && want > saved->rlim_max) want = saved->rlim_max;
    if (saved->rlim_cur != RLIM_INFINITY && want > saved->rlim_cur) return 0;
    l.rlim_cur = want;
    return setrlimit(RLIMIT_DATA, &l) == 0;
#endif
}

static const opts *g_opts;

/* Imports the model; on error prints it (out of memory as such) and returns
 * NULL, with the result in *res when res is not NULL and quiet set (no print). */
static sinew_asset *load_ex(const char *path, uint32_t flags, int quiet, sinew_result *res, char *msg_out, size_t msg_out_size)
{
    sinew_error_info e;
    const char *msg = e.message;
    sinew_asset_desc d = { 0 };
    d.path = path;
    d.flags = flags;
    struct rlimit saved;
    int limited = limit_memory(g_opts->max_memory_mb, &saved);
    sinew_asset *a = NULL;
    sinew_result r = sinew_asset_load(&d, &a, &e);
    if (limited) setrlimit(RLIMIT_DATA, &saved);
    if (res) *res = r;
    if (msg_out && msg_out_size) snprintf(msg_out, msg_out_size, "%s", msg);
    if (r && !quiet) {
        if (r == SINEW_ERROR_OUT_OF_HOST_MEMORY || strstr(msg, "bad_alloc") || strstr(msg, "out of memory"))
            err("%s: out of memory: the import needed more than %s%g MiB (%s; see --max-memory)", path,
                g_opts->max_memory_mb > 0 ? "the limit of " : "", g_opts->max_memory_mb > 0 ? g_opts->max_memory_mb : 0.0,
                msg[0] ? msg : sinew_result_string(r));
        else
            err("%s: %s (%s)", path, msg[0] ? msg : "import failed", sinew_result_string(r));
    }
    return r ? NULL : a;
}

static sinew_asset *load(const char *path)
{
    return load_ex(path, g_opts->allow_missing ? SINEW_ASSET_ALLOW_MISSING_BONES : 0, 0, NULL, NULL, 0);
}

/* The bake cache file of this model for suffix ("cor", "weights") in buf, or NULL
 * with --no-cache or a path too long (sinew/bake_cache.h). */
static const char *bake_cache_file(const char *suffix, char *buf, size_t cap)
{
    const char *dir = g_opts->cache_dir ? g_opts->cache_dir : getenv("SINEW_CACHE_DIR");
    if (g_opts->no_cache || sinew_bake_cache_path(g_opts->model, dir, suffix, buf, cap) != SINEW_OK) return NULL;
    if (dir && dir[0]) (void)mkdir(dir, 0777); /* a missing cache folder is made (one level) */
    return buf;
}

/* A refused or unwritten cache file is worth a warning, never an error. */
static void bake_cache_warn(const sinew_bake_cache_report *rep)
{
    if (rep->message[0]) fprintf(stderr, "%s: warning: cache: %s\n", prog, rep->message);
}

/* --auto-weights: the rest mesh of the asset's vertices (the same float32 positions and
 * normals, its tangents and triangles) with automatic weights over the joints the file
 * weights (all joints when it weights fewer than 2); NULL after an error. */
static sinew_rest_mesh *auto_weighted(const sinew_asset *a, double alpha, uint32_t *eligible)
{
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t nv = sinew_asset_vertex_count(a), jc = sinew_skeleton_joint_count(sk), used = 0;
    const sinew_vertex *src = sinew_asset_vertices(a);
    const double *rn = sinew_asset_rest_normals(a);
    uint32_t *j4 = malloc(sizeof(uint32_t) * 4 * (nv ? nv : 1));
    float *w4 = malloc(sizeof(float) * 4 * (nv ? nv : 1)), *pos = malloc(sizeof(float) * 3 * (nv ? nv : 1));
    float *nrm = malloc(sizeof(float) * 3 * (nv ? nv : 1));
    uint8_t *mask = calloc(jc ? jc : 1, 1);
    sinew_rest_mesh *m = NULL;
    sinew_auto_weights_desc d = { 0 };
    sinew_result r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
    sinew_error_info e = { 0 };
    if (!j4 || !w4 || !pos || !nrm || !mask) { err("out of memory"); goto out; }
    for (uint32_t i = 0; i < nv; i++)
        for (int k = 0; k < 4; k++)
            if (src[i].weights[k] && src[i].joints[k] < jc && !mask[src[i].joints[k]]) { mask[src[i].joints[k]] = 1; used++; }
    for (size_t k = 0; k < (size_t)nv * 3; k++) {
        pos[k] = src[k / 3].position[k % 3]; /* as packed */
        nrm[k] = (float)rn[k];               /* what the packed normals were made from */
    }
    d.alpha = alpha;
    d.joint_mask = used >= 2 ? mask : NULL;
    *eligible = used >= 2 ? used : jc;
    char cpath[4096];
    sinew_bake_cache_report rep;
    r = sinew_auto_weights_ex_cached(sk, &d, nv, pos, j4, w4, bake_cache_file("weights", cpath, sizeof cpath), &rep, &e);
    if (r) { err("automatic weights: %s", e.message); goto out; }
    bake_cache_warn(&rep);
    sinew_rest_mesh_desc rd = { 0 };
    rd.skeleton = sk;
    rd.vertex_count = nv;
    rd.positions = pos;
    rd.normals = nrm;
    rd.packed_tangents = sinew_asset_tangents(a);
    rd.influences.per_vertex = 4;
    rd.influences.joints = j4;
    rd.influences.weights = w4;
    rd.max_influences = 4;
    rd.triangles = sinew_asset_indices(a);
    rd.triangle_count = sinew_asset_index_count(a) / 3;
    if ((r = sinew_rest_mesh_create(&rd, &m, &e))) err("automatic weights: %s: %s", sinew_result_string(r), e.message);
out:
    free(j4); free(w4); free(pos); free(nrm); free(mask);
    return m;
}

static int cmd_info(const opts *o)
{
    /* a model whose weights name missing bones is still described (those
     * weights dropped), with the problem as a warning and exit status 1 */
    sinew_result r0;
    char msg0[512];
    int rc = 0;
    uint32_t flags = o->allow_missing ? SINEW_ASSET_ALLOW_MISSING_BONES : 0;
    sinew_asset *a = load_ex(o->model, flags, 1, &r0, msg0, sizeof msg0);
    if (!a && r0 == SINEW_ERROR_NOT_FOUND && !o->allow_missing) {
        a = load_ex(o->model, SINEW_ASSET_ALLOW_MISSING_BONES, 1, NULL, NULL, 0);
        if (a) {
            fprintf(stderr, "%s: warning: %s: %s\n%s: warning: described below with those weights dropped; "
                            "'sinew deform' fails without --allow-missing-bones (exit status 1)\n", prog, o->model, msg0, prog);
            rc = EXIT_ERR;
        }
    }
    if (!a) a = load(o->model);
    if (!a) return EXIT_ERR;
    const sinew_asset_import_stats *st = sinew_asset_stats(a);
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    printf("model: %s\n", o->model);
    printf("meshes: %u\n", sinew_asset_mesh_count(a));
    for (uint32_t i = 0; i < sinew_asset_mesh_count(a); i++) {
        const sinew_asset_mesh_info *m = sinew_asset_mesh(a, i);
        printf("  mesh %u '%s': %u vertices, %u triangles, %u without weights, normals %s, node joint %u '%s'\n",
               i, m->name, m->vertex_count, m->index_count / 3, m->unweighted_vertices,
               m->normals_generated ? "generated" : "from file", m->node_joint,
               sinew_skeleton_name(sk, m->node_joint));
        uint32_t nmt = 0;
        const float *dw = NULL;
        const sinew_morph_target *tg = sinew_asset_morph_targets(a, i, &nmt, &dw);
        for (uint32_t t = 0; t < nmt; t++) {
            char nm[32];
            snprintf(nm, sizeof nm, "target %u", t);
            printf("    morph target %u '%s': %u vertices moved, default weight %g%s\n", t, tg[t].name ? tg[t].name : nm,
                   tg[t].count, dw ? (double)dw[t] : 0.0, tg[t].normal_deltas ? "" : ", no normal deltas");
        }
    }
    printf("vertices: %u\ntriangles: %u\n", sinew_asset_vertex_count(a), sinew_asset_index_count(a) / 3);
    printf("joints: %u (bones %u in %u skinned meshes, %u duplicated for conflicting binds)\n",
           sinew_skeleton_joint_count(sk), st->bones, st->skinned_meshes, st->duplicated_joints);
    printf("influences per vertex:");
    for (int k = 0; k < 9; k++)
        if (st->influence_histogram[k]) printf(" %d%s:%u", k, k == 8 ? "+" : "", st->influence_histogram[k]);
    printf("\nmax influences: %u\n", st->max_influences);
    printf("pruned to 4: %u vertices, %u influences dropped (4 largest kept, renormalized)\n",
           st->vertices_pruned, st->influences_pruned);
    printf("size: %.6g (bounding box diagonal)\n", sinew_asset_size(a));
    if (sinew_asset_tangents(a))
        printf("tangents: read from file (%u of %u meshes; the others' vertices get zero tangents)\n", st->tangent_meshes,
               sinew_asset_mesh_count(a));
    else
        printf("tangents: none in file\n");
    printf("rest vs bind pose: %.3g (largest local matrix difference; 0 = the node pose is the bind pose)\n",
           st->bind_rest_error);
    if (st->rest_shear_error > 1e-6) printf("warning: node shear lost in T R S split: %.3g\n", st->rest_shear_error);
    if (st->dropped_faces) printf("warning: %u point/line faces dropped\n", st->dropped_faces);
    if (st->unused_meshes) printf("note: %u meshes not referenced by any node, ignored\n", st->unused_meshes);
    if (st->missing_bones)
        printf("warning: %u bones name no node; their %llu weights were dropped (--allow-missing-bones)\n",
               st->missing_bones, (unsigned long long)st->missing_bone_weights);
    if (st->ignored_channels) printf("warning: %u animation channels name no joint (or repeat one), ignored\n", st->ignored_channels);
    if (st->vertices_pruned)
        printf("note: %u vertices have more than 4 influences; 'deform' skins them with up to 8 (%s)\n", st->vertices_pruned,
               st->max_influences > 8 ? "the 8 largest, renormalized" : "all of them");
    if (st->gltf) {
        printf("importer: Sinew glTF 2.0 (%u skins, %u skinned mesh instances, %u STEP and %u CUBICSPLINE tracks kept)\n",
               st->skins, st->skinned_instances, st->step_channels, st->cubic_channels);
        if (st->invalid_weight_vertices)
            printf("warning: %u skinned vertices have weights summing to 0; bound to their skin's first joint\n", st->invalid_weight_vertices);
        if (st->morph_targets)
            printf("note: %u morph targets kept (listed per mesh; 'deform --morph NAME=W' sets them); the rest mesh "
                   "includes their default weights\n", st->morph_targets);
        if (st->dropped_primitives) printf("warning: %u point/line primitives dropped\n", st->dropped_primitives);
    } else {
        printf("importer: assimp (keys sampled LINEAR/slerp: assimp does not report STEP or CUBICSPLINE; meshes sharing "
               "a bone name share its joint)\n");
        if (st->morph_targets)
            printf("note: %u blend shapes kept as morph targets, default weight 0 (assimp does not report the file's "
                   "DeformPercent: 'deform --morph NAME=W' sets them); their animation comes from assimp's morph "
                   "channels, where it makes them\n", st->morph_targets);
    }
    if (st->weight_channels)
        printf("note: %u morph-weight animation channels kept ('deform --time T' applies them)\n", st->weight_channels);
    if (st->ignored_weight_channels)
        printf("warning: %u morph-weight animation channels not kept (no morph targets on their node or mesh, repeated, "
               "in-between shapes, or keys out of order): 'deform --time' leaves those weights at their defaults\n",
               st->ignored_weight_channels);
    printf("clips: %u\n", sinew_asset_clip_count(a));
    for (uint32_t i = 0; i < sinew_asset_clip_count(a); i++) {
        const sinew_clip *c = sinew_asset_clip(a, i);
        printf("  clip %u '%s': %.6g s (%.6g ticks at %.6g/s), %u channels, %u keys", i, sinew_clip_name(c),
               sinew_clip_duration(c), sinew_clip_duration_ticks(c), sinew_clip_ticks_per_second(c),
               sinew_clip_channel_count(c), sinew_clip_key_count(c));
        if (sinew_clip_weight_track_count(c))
            printf(", %u morph-weight tracks", sinew_clip_weight_track_count(c));
        printf("\n");
        if (o->compress_tol > 0) {
            sinew_clip_compress_desc cd = { o->compress_tol, 0 };
            sinew_clip_compress_stats cs;
            sinew_error_info e;
            sinew_clip *cc = NULL;
            sinew_result r = sinew_clip_compress(c, sk, &cd, &cc, &cs, &e);
            if (r) { err("compressing clip %u: %s: %s", i, sinew_result_string(r), e.message); rc = EXIT_ERR; continue; }
            printf("    compressed (tolerance %g, shell %g): ratio %.2f, %llu -> %llu bytes, max error %.3g "
                   "(joint %u at %.4g s), keys %u -> %u, tracks %u (%u constant, %u 16-bit, %u float32)\n",
                   cs.tolerance, cs.shell_distance, cs.ratio, (unsigned long long)cs.float32_bytes,
                   (unsigned long long)cs.compressed_bytes, cs.max_error, cs.max_error_joint, cs.max_error_time,
                   cs.keys_before, cs.keys_after, cs.tracks, cs.constant_tracks, cs.quantized_tracks, cs.float_tracks);
            sinew_clip_destroy(cc);
        }
    }
    if (o->auto_alpha > 0) {
        uint32_t eligible = 0, nv = sinew_asset_vertex_count(a), hist[5] = { 0 }, major_same = 0;
        double l1 = 0;
        sinew_rest_mesh *rm = auto_weighted(a, o->auto_alpha, &eligible);
        if (!rm) { sinew_asset_destroy(a); return EXIT_ERR; }
        const sinew_vertex *v = sinew_rest_mesh_vertices(rm);
        const sinew_vertex *f = sinew_asset_vertices(a);
        for (uint32_t i = 0; i < nv; i++) {
            uint32_t ids[8];
            int n = 0, nid = 0;
            for (int k = 0; k < 4; k++) n += v[i].weights[k] != 0;
            hist[n]++;
            major_same += v[i].joints[0] == f[i].joints[0];
            /* L1 distance between the two weight vectors over the union of their joints (0..2) */
            for (int src = 0; src < 2; src++)
                for (int k = 0; k < 4; k++) {
                    const sinew_vertex *x = src ? &v[i] : &f[i];
                    if (!x->weights[k]) continue;
                    int m = 0;
                    while (m < nid && ids[m] != x->joints[k]) m++;
                    if (m == nid) ids[nid++] = x->joints[k];
                }
            for (int m = 0; m < nid; m++) {
                double a1 = 0, a2 = 0;
                for (int k = 0; k < 4; k++) {
                    if (f[i].joints[k] == ids[m]) a1 += f[i].weights[k] / 65535.0;
                    if (v[i].joints[k] == ids[m]) a2 += v[i].weights[k] / 65535.0;
                }
                l1 += fabs(a1 - a2);
            }
        }
        printf("auto weights (alpha %g, %u eligible joints): influences per vertex 1:%u 2:%u 3:%u 4:%u\n",
               o->auto_alpha, eligible, hist[1], hist[2], hist[3], hist[4]);
        printf("auto vs file weights: same major joint on %u of %u vertices (%.1f%%), mean L1 weight distance %.3f (0..2)\n",
               major_same, nv, nv ? 100.0 * major_same / nv : 0.0, nv ? l1 / nv : 0.0);
        sinew_rest_mesh_destroy(rm);
    }
    sinew_asset_destroy(a);
    fflush(stdout);
    print_device(o->device);
    return rc;
}

/* ---- deform --------------------------------------------------------------- */

/* tan: 4 doubles per vertex (skinned tangent xyz, bitangent sign), or NULL when the file has none. */
static int write_mesh(const char *path, const sinew_asset *a, const double *pos, const double *nrm, const double *tan,
                      const char *what)
{
    FILE *f = fopen(path, "w");
    if (!f) return err("cannot write '%s': %s", path, strerror(errno));
    uint32_t nv = sinew_asset_vertex_count(a), ni = sinew_asset_index_count(a);
    const uint32_t *idx = sinew_asset_indices(a);
    const char *dot = strrchr(path, '.');
    int ply = dot && !strcasecmp(dot, ".ply");
    if (ply) {
        fprintf(f, "ply\nformat ascii 1.0\ncomment sinew deform: %s\n%selement vertex %u\n"
                   "property float x\nproperty float y\nproperty float z\n"
                   "property float nx\nproperty float ny\nproperty float nz\n%s"
                   "element face %u\nproperty list uchar uint vertex_indices\nend_header\n", what,
                tan ? "comment tx ty tz: skinned unit tangent; tw: bitangent sign (bitangent = tw * cross(n, t))\n" : "",
                nv, tan ? "property float tx\nproperty float ty\nproperty float tz\nproperty float tw\n" : "", ni / 3);
        for (uint32_t i = 0; i < nv; i++) {
            fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g", pos[3 * i], pos[3 * i + 1], pos[3 * i + 2],
                    nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]);
            if (tan) fprintf(f, " %.9g %.9g %.9g %.9g", tan[4 * i], tan[4 * i + 1], tan[4 * i + 2], tan[4 * i + 3]);
            fputc('\n', f);
        }
        for (uint32_t t = 0; t + 2 < ni; t += 3) fprintf(f, "3 %u %u %u\n", idx[t], idx[t + 1], idx[t + 2]);
    } else {
        fprintf(f, "# sinew deform: %s\n# %u vertices, %u triangles\n", what, nv, ni / 3);
        if (tan) fprintf(f, "# the file's skinned tangent frames are not written: OBJ has no tangent field (write .ply)\n");
        for (uint32_t i = 0; i < nv; i++) fprintf(f, "v %.9g %.9g %.9g\n", pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
        for (uint32_t i = 0; i < nv; i++) fprintf(f, "vn %.9g %.9g %.9g\n", nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]);
        for (uint32_t t = 0; t + 2 < ni; t += 3)
            fprintf(f, "f %u//%u %u//%u %u//%u\n", idx[t] + 1, idx[t] + 1, idx[t + 1] + 1, idx[t + 1] + 1,
                    idx[t + 2] + 1, idx[t + 2] + 1);
    }
    int bad = ferror(f);
    if (fclose(f) || bad) return err("writing '%s' failed", path);
    return 0;
}

static int skin_gpu(const opts *o, const sinew_asset *a, const sinew_rest_mesh *rm, const sinew_palette_joint *pal,
                    uint32_t flags, double *pos, double *nrm, char *device_name, size_t dn_size,
                    const sinew_morph_target *mt, uint32_t n_mt, const float *mw, double *tng)
{
    sinew_morpher *mo = NULL;
    uint32_t nv = sinew_rest_mesh_vertex_count(rm);
    uint32_t joints = sinew_skeleton_joint_count(sinew_asset_skeleton(a));
    uint32_t stride = sinew_palette_gpu_stride(o->method, flags);
    sinew_gpu *gpu = NULL;
    sinew_skinner *sk = NULL;
    float *p3 = NULL, *n3 = NULL, *t4 = NULL;
    int rc = EXIT_ERR;
    sinew_gpu_desc gd = { 0 };
    gd.device = o->device;
    sinew_result r = sinew_gpu_create(&gd, &gpu, NULL);
    if (r) { err("no Vulkan device%s%s: %s (use --cpu for the reference skinner)", o->device ? " matching " : "",
                 o->device ? o->device : "", sinew_result_string(r)); goto out; }
    snprintf(device_name, dn_size, "%s", sinew_gpu_info(gpu)->name);
    sinew_skinner_desc sd = { 0 };
    /* an 8-influence vertex takes 1.5 rest vertices */
    uint32_t rest = sinew_rest_mesh_vertices8(rm) ? nv + (nv + 1) / 2 : nv;
    sd.max_rest_vertices = n_mt ? 2 * rest : rest;
    sd.max_meshes = n_mt ? 2 : 1;
    sd.max_instances = 1;
    sd.max_output_vertices = nv;
    sd.max_palette_vec4 = joints * stride;
    sd.frames_in_flight = 1;
    sd.tangents = sinew_rest_mesh_tangents(rm) != NULL;
    sd.cor_centers = sinew_rest_mesh_centers(rm) != NULL;
    sinew_error_info e = { 0 };
    if ((r = sinew_skinner_create(gpu, &sd, &sk, &e))) { err("skinner: %s: %s", sinew_result_string(r), e.message); goto out; }
    /* vertices, bulge distances, tangents and centers (morphed copies keep the unmorphed rest mesh's) */
    sinew_mesh_id mesh_id;
    if ((r = sinew_skinner_add_rest_mesh(sk, rm, &mesh_id, &e))) {
        err("uploading the mesh: %s: %s", sinew_result_string(r), e.message);
        goto out;
    }
    sinew_morph_slot_id slot = { 0 };
    sinew_morph_error merr;
    merr.message[0] = 0;
    if (n_mt) {
        sinew_morpher_desc mdsc = { 0 };
        uint64_t entries = 0;
        for (uint32_t t = 0; t < n_mt; t++) entries += mt[t].count;
        mdsc.max_data_vec4 = (uint32_t)(nv + 4 * entries + 1 + 2 * joints); /* rows + up to 3.25 per delta (tangent
                                                                                deltas) + the bone segment table */
        mdsc.max_weights = n_mt;
        mdsc.max_slots = 1;
        sinew_morph_set_id set;
        if ((r = sinew_morpher_create(sk, &mdsc, &mo)) || (r = sinew_morpher_add_targets(mo, mesh_id, mt, n_mt, &set, &merr)) ||
            (r = sinew_morpher_add_slot(mo, set, &slot)) ||
            (o->bulge && (r = sinew_morpher_set_skeleton(mo, set, sinew_asset_skeleton(a))))) {
            err("morph targets on the GPU: %s%s%s", sinew_result_string(r), merr.message[0] ? ": " : "", merr.message);
            goto out;
        }
    }
    sinew_frame fr;
    if ((r = sinew_skinner_begin_frame(sk, &fr))) { err("begin frame: %s", sinew_result_string(r)); goto out; }
    sinew_palette_pack(o->method, flags, pal, joints, fr.palette);
    sinew_instance inst = { 0 };
    inst.mesh = mesh_id;
    if (n_mt) {
        sinew_morph_item it = { slot, mw, n_mt };
        if ((r = sinew_morpher_set_frame(mo, &it, 1, &inst.mesh, &merr))) {
            err("morph weights: %s: %s", sinew_result_string(r), merr.message);
            goto out;
        }
    }
    inst.method = o->method;
    inst.flags = flags;
    if ((r = sinew_skinner_set_instances(sk, &inst, 1, NULL)) || (r = sinew_skinner_submit(sk)) || (r = sinew_skinner_wait(sk))) {
        err("skinning on the GPU: %s", sinew_result_string(r));
        goto out;
    }
    p3 = malloc((size_t)nv * 3 * sizeof *p3);
    n3 = malloc((size_t)nv * 3 * sizeof *n3);
    if (!p3 || !n3) { err("out of memory"); goto out; }
    if ((r = sinew_skinner_read_output(sk, 0, nv, p3, n3))) { err("reading the GPU output: %s", sinew_result_string(r)); goto out; }
    for (size_t i = 0; i < (size_t)nv * 3; i++) { pos[i] = p3[i]; nrm[i] = n3[i]; }
    if (sd.tangents) {
        if (!(t4 = malloc((size_t)nv * 4 * sizeof *t4))) { err("out of memory"); goto out; }
        if ((r = sinew_skinner_read_tangents(sk, 0, nv, t4))) {
            err("reading the GPU tangents: %s", sinew_result_string(r));
            goto out;
        }
        for (size_t i = 0; i < (size_t)nv * 4; i++) tng[i] = t4[i];
    }
    rc = 0;
out:
    free(p3);
    free(n3);
    free(t4);
    sinew_morpher_destroy(mo);
    sinew_skinner_destroy(sk);
    sinew_gpu_destroy(gpu);
    return rc;
}

/* Progress of the centers of rotation on a terminal: the percentage, on one line. */
static bool cor_progress(void *user, double fraction)
{
    int *last = user, percent = (int)(100.0 * fraction);
    if (percent != *last) fprintf(stderr, "\rcenters of rotation: %3d%%", percent);
    *last = percent;
    return true;
}

static int cmd_deform(const opts *o)
{
    sinew_asset *a = load(o->model);
    if (!a) return EXIT_ERR;
    /* --out naming an input (the model, a glTF buffer, an .mtl, by device and inode) */
    if (sinew_asset_reads_file(a, o->out)) {
        sinew_asset_destroy(a);
        return err("--out '%s' is a file the import read (the model or one of its external files); "
                   "refused: writing it would destroy the input", o->out);
    }
    int rc = EXIT_ERR;
    const sinew_skeleton *sk = sinew_asset_skeleton(a);
    uint32_t joints = sinew_skeleton_joint_count(sk), nv = sinew_asset_vertex_count(a);
    sinew_transform *local = calloc(joints, sizeof *local);
    sinew_mat4 *scratch = calloc(sinew_palette_scratch_count(joints), sizeof *scratch);
    sinew_palette_joint *pal = calloc(joints, sizeof *pal);
    float *bulge = NULL; /* the morphed rest's (--cpu with morph targets and bulge) */
    double *pos = calloc((size_t)nv * 3, sizeof *pos), *nrm = calloc((size_t)nv * 3, sizeof *nrm);
    const sinew_tangent *tan = sinew_asset_tangents(a); /* NULL: the file has none */
    double *tng = tan ? calloc((size_t)nv * 4, sizeof *tng) : NULL;
    char what[1024], device_name[256] = "";
    sinew_vertex8 *mv8 = NULL;
    sinew_rest_mesh *rm = NULL;
    sinew_morph_target *mt = NULL;
    float *mw = NULL;
    sinew_clip *compressed = NULL; /* --compress-clips */
    sinew_vertex *mv4 = NULL;
    uint32_t n_mt = 0, **gidx = NULL;
    if (!local || !scratch || !pal || !pos || !nrm || (tan && !tng)) { err("out of memory"); goto out; }
    if (o->auto_alpha > 0) {
        uint32_t eligible;
        if (!(rm = auto_weighted(a, o->auto_alpha, &eligible))) goto out;
    } else {
        /* the 8-influence layout when some vertex has more than 4 influences */
        sinew_error_info e = { 0 };
        sinew_result r = sinew_asset_rest_mesh(a, SINEW_ASSET_ALL_MESHES, 0, &rm, &e);
        if (r) { err("the rest mesh: %s: %s", sinew_result_string(r), e.message); goto out; }
    }
    /* exactly one of verts and v8 is set */
    const sinew_vertex *verts = sinew_rest_mesh_vertices(rm);
    const sinew_vertex8 *v8 = sinew_rest_mesh_vertices8(rm);
    const float *rest_bulge = o->bulge ? sinew_rest_mesh_bulge_distances(rm) : NULL;

    const sinew_clip *clip = NULL;
    char pose_desc[400];
    int bind_globals = 0; /* --bind from the bind matrices (a bind-local matrix with shear) */
    if (o->bind) {
        sinew_result r = sinew_asset_bind_pose(a, local);
        if (r) { err("the bind pose cannot be expressed as T R S: %s", sinew_result_string(r)); goto out; }
        /* Inverse bind matrices with a non-uniform scale (quantizing exporters fold the
         * dequantization into them) give bind-local matrices with shear, which T R S
         * poses cannot hold: then the palette comes from the bind matrices themselves
         * (every skin transform the identity), or, for the methods that need local
         * poses, a clear refusal. */
        double shear = 0;
        for (uint32_t j = 0; j < joints; j++) {
            const sinew_mat4 *bl = sinew_skeleton_bind_local(sk, j);
            double e = 0, mx = 1;
            sinew_transform t;
            for (int c = 0; c < 16; c++) mx = fmax(mx, fabs(bl->m[c / 4][c % 4]));
            if (sinew_transform_from_mat4(bl, &t, &e) == SINEW_OK) shear = fmax(shear, e / mx);
        }
        bind_globals = shear > 1e-9;
        if (bind_globals && o->method != SINEW_METHOD_LBS && o->method != SINEW_METHOD_DQS &&
            o->method != SINEW_METHOD_COR && o->method != SINEW_METHOD_DQS_SCALE && o->method != SINEW_METHOD_COR_SCALE) {
            err("--bind: the bind pose has shear (inverse bind matrices with a non-uniform scale: %.3g relative), which "
                "--method %s cannot take as local T R S poses; use lbs, dqs, cor, dqs-scale or cor-scale, whose palettes "
                "come from the bind matrices", shear, sinew_method_name(o->method));
            goto out;
        }
        snprintf(pose_desc, sizeof pose_desc, bind_globals ? "bind pose, from the bind matrices (they shear: %.3g)" : "bind pose",
                 shear);
    } else if (o->rest || sinew_asset_clip_count(a) == 0) {
        if (o->clip || o->time_given) { err("%s has no animation clips (use --rest or --bind)", o->model); goto out; }
        sinew_clip_sample(NULL, sk, 0, SINEW_WRAP_LOOP, local);
        snprintf(pose_desc, sizeof pose_desc, "rest pose");
    } else {
        int32_t ci = 0;
        if (o->clip) {
            char *end;
            unsigned long v = strtoul(o->clip, &end, 10);
            ci = sinew_asset_find_clip(a, o->clip);
            if (ci < 0 && *o->clip && !*end && v < sinew_asset_clip_count(a)) ci = (int32_t)v;
            if (ci < 0) { err("no clip '%s' (%u clips: see 'sinew info')", o->clip, sinew_asset_clip_count(a)); goto out; }
        }
        clip = sinew_asset_clip(a, (uint32_t)ci);
        if (o->compress_tol > 0) {
            sinew_clip_compress_desc cd = { o->compress_tol, 0 };
            sinew_clip_compress_stats cs;
            sinew_error_info e;
            sinew_result rc2 = sinew_clip_compress(clip, sk, &cd, &compressed, &cs, &e);
            if (rc2) { err("compressing clip %d: %s: %s", ci, sinew_result_string(rc2), e.message); goto out; }
            fprintf(stderr, "clip %d compressed: ratio %.2f (%llu -> %llu bytes), max error %.3g (tolerance %g)\n", ci,
                    cs.ratio, (unsigned long long)cs.float32_bytes, (unsigned long long)cs.compressed_bytes, cs.max_error,
                    cs.tolerance);
            clip = compressed;
        }
        sinew_result r = sinew_clip_sample(clip, sk, o->time, o->loop ? SINEW_WRAP_LOOP : SINEW_WRAP_CLAMP, local);
        if (r) { err("sampling the clip: %s", sinew_result_string(r)); goto out; }
        /* the convention applied, and where it put the time */
        double dur = sinew_clip_duration(clip), te = o->time;
        if (o->loop) te = dur > 0 ? fmod(o->time, dur) : 0.0;
        if (o->loop && te < 0) te += dur;
        if (!o->loop) te = o->time < 0 ? 0.0 : o->time > dur ? dur : o->time;
        char at[64] = "";
        if (te != o->time) snprintf(at, sizeof at, ": sampled at %.6g s", te);
        snprintf(pose_desc, sizeof pose_desc, o->loop ? "clip %d '%.200s' at %g s (--loop: modulo %g s%s)"
                                                      : "clip %d '%.200s' at %g s (clamped to [0, %g] s%s)",
                 ci, sinew_clip_name(clip), o->time, dur, at);
    }
    uint32_t flags = o->bulge ? SINEW_SKIN_BULGE_CORRECTION | (o->bulge == 2 ? SINEW_SKIN_BULGE_INNER : 0u) : 0u;
    sinew_result r;
    if (bind_globals) {
        sinew_mat4 *bg = calloc(joints ? joints : 1, sizeof *bg);
        if (!bg) { err("out of memory"); goto out; }
        for (uint32_t j = 0; j < joints; j++) bg[j] = *sinew_skeleton_bind_global(sk, j);
        r = sinew_palette_build_from_globals(sk, o->method, bg, pal);
        free(bg);
    } else {
        r = sinew_palette_build(sk, o->method, local, NULL, scratch, pal);
    }
    if (r == SINEW_ERROR_NOT_RIGID) {
        if (o->method == SINEW_METHOD_COR)
            err("this pose scales, shears or mirrors some joints, which plain CoR cannot represent; use --method cor-scale "
                "(or cor-scale-local)");
        else
            err("this pose scales, shears or mirrors some joints, which plain DQS cannot represent; "
                "use --method dqs-scale (or dqs-scale-local)");
        goto out;
    }
    if (r) { err("building the palette: %s", sinew_result_string(r)); goto out; }
    /* float32 range: every joint's transform before packing, named. The
     * kernel forms cofactors (products of two 3x3 entries) for normals, so
     * the 3x3 part is bounded by 1e18 (1e36 < FLT_MAX), the translation by 1e30. */
    for (uint32_t j = 0; j < joints; j++) {
        const sinew_mat4 *m = &pal[j].skin;
        for (int c = 0; c < 16; c++) {
            double v = m->m[c / 4][c % 4];
            if (!(fabs(v) <= (c < 12 ? 1e18 : 1e30))) {
                err("joint %u '%s': its skinning transform at this pose is beyond float32 range (%g; the 3x3 part must "
                    "stay within 1e18, the translation within 1e30)", j, sinew_skeleton_name(sk, j), v);
                goto out;
            }
        }
    }
    char cor_note[128] = "";
    const float *centers = NULL;
    if (sinew_method_uses_centers(o->method)) {
        /* the centers of rotation from the rest triangles and the weights used here,
         * with progress on a terminal */
        sinew_thread_pool *pool = NULL;
        sinew_rest_mesh_centers_desc cd = { 0 };
        sinew_error_info e = { 0 };
        int last_percent = -1;
        cd.sigma = o->cor_sigma;
        if (isatty(STDERR_FILENO)) {
            cd.progress = cor_progress;
            cd.progress_user = &last_percent;
        }
        r = sinew_thread_pool_create(NULL, &pool);
        cd.pool = pool;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        char cpath[4096];
        sinew_bake_cache_report rep;
        if (r == SINEW_OK)
            r = sinew_rest_mesh_compute_centers_cached(rm, &cd, bake_cache_file("cor", cpath, sizeof cpath), &rep, &e);
        if (r == SINEW_OK) bake_cache_warn(&rep);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (last_percent >= 0) fputs("\r\033[K", stderr); /* clears the progress line */
        uint32_t threads = sinew_thread_pool_size(pool);
        sinew_thread_pool_destroy(pool);
        if (r) { err("centers of rotation: %s%s%s", sinew_result_string(r), e.message[0] ? ": " : "", e.message); goto out; }
        centers = sinew_rest_mesh_centers(rm);
        /* fallbacks: vertices whose center is their rest position (no similar triangle) */
        uint32_t fallbacks = 0;
        for (uint32_t i = 0; i < nv; i++) {
            const float *p = v8 ? v8[i].position : verts[i].position;
            fallbacks += centers[3 * (size_t)i] == p[0] && centers[3 * (size_t)i + 1] == p[1] &&
                         centers[3 * (size_t)i + 2] == p[2];
        }
        snprintf(cor_note, sizeof cor_note, ", centers of rotation in %.0f ms (%s, %u threads, %u fallbacks)",
                 (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6,
                 rep.loaded ? "loaded from the cache" : "computed", threads, fallbacks);
    }
    /* --morph: every target of every mesh, indices made global; weight = given - file default (the rest
     * mesh already includes the defaults), 0 for targets not named. */
    /* the clip's morph-weight tracks (glTF `weights` channels): sampled at --time, minus the
     * defaults the rest mesh includes; --morph overrides them */
    uint32_t anim_w = clip && sinew_clip_weight_track_count(clip) ? sinew_clip_weight_count(clip) : 0;
    if (o->n_morph || anim_w) {
        for (uint32_t m = 0; m < sinew_asset_mesh_count(a); m++) {
            uint32_t c = 0;
            sinew_asset_morph_targets(a, m, &c, NULL);
            n_mt += c;
        }
        mt = calloc(n_mt ? n_mt : 1, sizeof *mt);
        mw = calloc(n_mt ? n_mt : 1, sizeof *mw);
        gidx = calloc(n_mt ? n_mt : 1, sizeof *gidx);
        int *found = calloc(o->n_morph ? o->n_morph : 1, sizeof *found);
        double *sw = calloc(n_mt ? n_mt : 1, sizeof *sw), *sd = calloc(n_mt ? n_mt : 1, sizeof *sd);
        if (!mt || !mw || !gidx || !found || !sw || !sd) { free(found); free(sw); free(sd); err("out of memory"); goto out; }
        if (anim_w) {
            if (anim_w != n_mt) {
                free(found); free(sw); free(sd);
                err("clip '%s' animates %u morph weights, the model has %u targets", sinew_clip_name(clip), anim_w, n_mt);
                goto out;
            }
            for (uint32_t m = 0, q = 0; m < sinew_asset_mesh_count(a); m++) {
                uint32_t c = 0;
                const float *dw = NULL;
                sinew_asset_morph_targets(a, m, &c, &dw);
                for (uint32_t t = 0; t < c; t++) sd[q++] = dw ? dw[t] : 0.0;
            }
            r = sinew_clip_sample_weights(clip, o->time, o->loop ? SINEW_WRAP_LOOP : SINEW_WRAP_CLAMP, sd, n_mt, sw);
            if (r) { free(found); free(sw); free(sd); err("sampling the clip's morph weights: %s", sinew_result_string(r)); goto out; }
        }
        uint32_t k = 0;
        for (uint32_t m = 0; m < sinew_asset_mesh_count(a); m++) {
            uint32_t c = 0;
            const float *dw = NULL;
            const sinew_morph_target *tg = sinew_asset_morph_targets(a, m, &c, &dw);
            uint32_t first = sinew_asset_mesh(a, m)->first_vertex;
            for (uint32_t t = 0; t < c; t++, k++) {
                mt[k] = tg[t];
                gidx[k] = malloc(sizeof(uint32_t) * (tg[t].count ? tg[t].count : 1));
                if (!gidx[k]) { free(found); err("out of memory"); goto out; }
                for (uint32_t e = 0; e < tg[t].count; e++) gidx[k][e] = tg[t].indices[e] + first;
                mt[k].indices = gidx[k];
                if (anim_w) mw[k] = (float)(sw[k] - sd[k]);
                char nm[32];
                snprintf(nm, sizeof nm, "target %u", t);
                const char *name = tg[t].name ? tg[t].name : nm;
                for (uint32_t q = 0; q < o->n_morph; q++) {
                    const char *arg = o->morph_arg[q], *eq = strrchr(arg, '=');
                    if (strlen(name) == (size_t)(eq - arg) && !strncmp(name, arg, (size_t)(eq - arg))) {
                        mw[k] = (float)(strtod(eq + 1, NULL) - (dw ? dw[t] : 0.0f));
                        found[q] = 1;
                    }
                }
            }
        }
        free(sw); free(sd);
        for (uint32_t q = 0; q < o->n_morph; q++)
            if (!found[q]) {
                err("--morph '%s': no morph target of that name (see 'sinew info')", o->morph_arg[q]);
                free(found);
                goto out;
            }
        free(found);
        if (anim_w)
            snprintf(pose_desc + strlen(pose_desc), sizeof pose_desc - strlen(pose_desc), ", %u animated morph weights",
                     anim_w);
        if (o->n_morph)
            snprintf(pose_desc + strlen(pose_desc), sizeof pose_desc - strlen(pose_desc), ", %u --morph", o->n_morph);
    }
    /* a clip whose file animates weights we could not keep: say so (info says why) */
    if (clip && sinew_asset_stats(a)->ignored_weight_channels)
        snprintf(pose_desc + strlen(pose_desc), sizeof pose_desc - strlen(pose_desc),
                 ", %u morph-weight channels of the file not kept (see 'sinew info'; those weights stay at their defaults)",
                 sinew_asset_stats(a)->ignored_weight_channels);
    if (o->cpu && n_mt) {
        sinew_morph_error merr;
        double *mp = malloc((size_t)nv * 3 * sizeof *mp), *mn = malloc((size_t)nv * 3 * sizeof *mn);
        /* the morph reference reads positions and normals: the asset's 4-influence vertices with 8 */
        r = mp && mn ? sinew_morph_reference(nv, verts ? verts : sinew_asset_vertices(a), mt, n_mt, mw, mp, mn, &merr)
                     : SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (r == SINEW_OK && o->bulge && !(rest_bulge = bulge = malloc(sizeof *bulge * (nv ? nv : 1))))
            r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
        if (r == SINEW_OK && o->bulge) {
            /* bulge correction keeps the morphed rest's distances to the bone segments (as the GPU morph
             * pass recomputes them after sinew_morpher_set_skeleton) */
            for (uint32_t i = 0; i < nv; i++) {
                sinew_vec3 h, t;
                sinew_skeleton_bone_segment(sk, v8 ? v8[i].joints[0] : verts[i].joints[0], &h, &t);
                bulge[i] = (float)sinew_distance_to_segment(sinew_v3(mp[3 * i], mp[3 * i + 1], mp[3 * i + 2]), h, t, NULL);
            }
        }
        if (r == SINEW_OK && v8) {
            /* no float64-rest variant of the 8-influence reference: the morphed rest is
             * rounded to float32 positions and an oct-encoded normal, as the GPU stores it */
            if (!(mv8 = malloc(sizeof *mv8 * (nv ? nv : 1)))) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
            for (uint32_t i = 0; mv8 && i < nv; i++) {
                mv8[i] = v8[i];
                for (int e = 0; e < 3; e++) mv8[i].position[e] = (float)mp[i * 3 + e];
                mv8[i].normal_oct = sinew_oct_encode(sinew_v3(mn[i * 3], mn[i * 3 + 1], mn[i * 3 + 2]));
            }
            if (r == SINEW_OK)
                r = sinew_reference_skin_cor(nv, NULL, mv8, centers, rest_bulge, pal, joints, o->method,
                                             flags, pos, nrm);
        } else if (r == SINEW_OK && centers) {
            /* CoR: no float64-rest variant either; the rounded morphed rest, as above */
            if (!(mv4 = malloc(sizeof *mv4 * (nv ? nv : 1)))) r = SINEW_ERROR_OUT_OF_HOST_MEMORY;
            for (uint32_t i = 0; mv4 && i < nv; i++) {
                mv4[i] = verts[i];
                for (int e = 0; e < 3; e++) mv4[i].position[e] = (float)mp[i * 3 + e];
                mv4[i].normal_oct = sinew_oct_encode(sinew_v3(mn[i * 3], mn[i * 3 + 1], mn[i * 3 + 2]));
            }
            if (r == SINEW_OK)
                r = sinew_reference_skin_cor(nv, mv4, NULL, centers, rest_bulge, pal, joints, o->method,
                                             flags, pos, nrm);
        } else if (r == SINEW_OK)
            r = sinew_reference_skin_rest(nv, verts, mp, mn, rest_bulge, pal, joints, o->method, flags,
                                          pos, nrm);
        free(mp);
        free(mn);
        if (r) { err("reference morph + skinning: %s", sinew_result_string(r)); goto out; }
        snprintf(device_name, sizeof device_name, "CPU float64 reference");
    } else if (o->cpu) {
        r = sinew_reference_skin_cor(nv, v8 ? NULL : verts, v8, centers, rest_bulge, pal, joints, o->method,
                                     flags, pos, nrm);
        if (r) { err("reference skinning: %s", sinew_result_string(r)); goto out; }
        snprintf(device_name, sizeof device_name, "CPU float64 reference");
    } else if (skin_gpu(o, a, rm, pal, flags, pos, nrm, device_name, sizeof device_name, mt, n_mt, mw, tng)) {
        goto out;
    }
    /* tangents on the CPU: the float64 rules (morph TANGENT deltas move the rest tangent,
     * re-encoded as the GPU morph pass stores it; bulge leaves tangents alone) */
    if (tan && o->cpu) {
        sinew_tangent *mtan = NULL;
        r = SINEW_OK;
        if (n_mt) {
            sinew_morph_error merr;
            double *md = malloc((size_t)nv * 3 * sizeof *md);
            float *t4 = malloc((size_t)nv * 4 * sizeof *t4);
            mtan = malloc((size_t)nv * sizeof *mtan);
            r = md && t4 && mtan ? sinew_morph_reference_tangents(nv, tan, mt, n_mt, mw, md, &merr)
                                 : SINEW_ERROR_OUT_OF_HOST_MEMORY;
            for (uint32_t i = 0; r == SINEW_OK && i < nv; i++) {
                for (int e = 0; e < 3; e++) t4[4 * (size_t)i + e] = (float)md[3 * (size_t)i + e];
                t4[4 * (size_t)i + 3] = tan[i].sign;
            }
            if (r == SINEW_OK) r = sinew_pack_tangents(nv, t4, mtan, NULL);
            free(md);
            free(t4);
        }
        if (r == SINEW_OK)
            r = sinew_reference_tangents(nv, v8 ? NULL : verts, v8, mtan ? mtan : tan, pal, joints, o->method, tng);
        free(mtan);
        if (r) {
            err("reference tangents: %s", sinew_result_string(r));
            goto out;
        }
    }
    for (size_t i = 0; i < (size_t)nv * 3; i++)
        if (!(fabs(pos[i]) <= FLT_MAX) || !(fabs(nrm[i]) <= FLT_MAX)) {
            uint32_t v = (uint32_t)(i / 3), j = v8 ? v8[v].joints[0] : verts[v].joints[0];
            err("vertex %u (major joint %u '%s'): deformed position or normal beyond float32 range (%g, %g)", v, j, sinew_skeleton_name(sk, j), pos[i], nrm[i]);
            goto out;
        }
    char aw[64] = "";
    if (o->auto_alpha > 0) snprintf(aw, sizeof aw, ", auto weights alpha %g", o->auto_alpha);
    else if (v8) snprintf(aw, sizeof aw, ", 8 influences");
    snprintf(what, sizeof what, "%.100s, %s, method %s%s%s, %.150s%s", o->model, pose_desc, sinew_method_name(o->method),
             o->bulge == 2 ? " + bulge + inner" : o->bulge ? " + bulge" : "", aw, device_name, cor_note);
    /* written in a comment line of the file and printed: no control character
     * (a newline would add OBJ lines or break the PLY header, ESC reach the terminal) */
    for (char *q = what; *q; q++) if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = '?';
    for (size_t i = 0; tng && i < (size_t)nv * 4; i++)
        if (!(fabs(tng[i]) <= 1.0)) { err("vertex %zu: skinned tangent not finite (%g)", i / 4, tng[i]); goto out; }
    if (write_mesh(o->out, a, pos, nrm, tng, what)) goto out;
    const char *dot = strrchr(o->out, '.');
    int ply = dot && !strcasecmp(dot, ".ply");
    printf("wrote %s: %u vertices, %u triangles (%s)%s\n", o->out, nv, sinew_asset_index_count(a) / 3, what,
           !tng ? "" : ply ? "; skinned tangents (tx ty tz tw)" : "; tangents left out (OBJ has no tangent field)");
    rc = 0;
out:
    free(local); free(scratch); free(pal); free(bulge); free(pos); free(nrm); free(tng); free(mv8); free(mv4);
    sinew_rest_mesh_destroy(rm);
    if (gidx) for (uint32_t k = 0; k < n_mt; k++) free(gidx[k]);
    free(gidx); free(mt); free(mw);
    sinew_clip_destroy(compressed);
    sinew_asset_destroy(a);
    return rc;
}

/* ---- supervision ------------------------------------------------------------ */

static int run_supervised(int (*fn)(const opts *), const opts *o)
{
    g_opts = o;
    if (o->no_fork || getenv("SINEW_NO_FORK")) return fn(o);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return fn(o); /* cannot fork: run unprotected */
    if (pid == 0) {
        /* the worker dies with its parent (not left running orphaned) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(EXIT_CRASH);
        alarm((unsigned)ceil(o->timeout));
        int rc = fn(o);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return err("waiting for the worker process: %s", strerror(errno));
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGPIPE) return 128 + SIGPIPE; /* output closed early (e.g. piped to head): not a crash */
    if (sig == SIGKILL) {
        fprintf(stderr, "%s: error: %s: the worker process was killed (SIGKILL): out of memory (the system's OOM "
                        "killer) or killed by a user; see --max-memory\n", prog, o->model);
    } else if (sig == SIGALRM) {
        fprintf(stderr, "%s: error: %s: gave up after %g s (import or skinning did not finish; see --timeout)\n",
                prog, o->model, o->timeout);
    } else {
        fprintf(stderr, "%s: error: %s: the worker process crashed (signal %d, %s); the file is probably "
                        "malformed and crashed the importer\n", prog, o->model, sig, strsignal(sig));
    }
    return EXIT_CRASH;
}

int main(int argc, char **argv)
{
    if (argc < 2) { usage_main(stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) { usage_main(stdout); return 0; }
    if (!strcmp(cmd, "help")) {
        if (argc > 2 && !strcmp(argv[2], "info")) usage_info(stdout);
        else if (argc > 2 && !strcmp(argv[2], "deform")) usage_deform(stdout);
        else usage_main(stdout);
        return 0;
    }
    int deform = !strcmp(cmd, "deform");
    if (!deform && strcmp(cmd, "info")) {
        fprintf(stderr, "%s: unknown command '%s'\n", prog, cmd);
        usage_main(stderr);
        return EXIT_USAGE;
    }
    opts o;
    int pr = parse_opts(argc - 2, argv + 2, deform, &o);
    if (pr < 0) return 0;  /* --help */
    if (pr) return pr;
    return run_supervised(deform ? cmd_deform : cmd_info, &o);
}
