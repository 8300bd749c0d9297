"""cffi declarations of libsinew_py.so (python/src/sinew_py.c), ABI mode."""
import os

import cffi

CDEF = """
typedef int sinew_result;
typedef struct sinew_error_info {
    int result; int item; uint32_t index; uint32_t entry; char message[192];
} sinew_error_info;
const char *sinew_result_string(int r);
const char *sinew_item_kind_name(int kind);
const char *sinew_version_string(void);
const char *sinew_method_name(int m);
int sinew_method_parse(const char *name, int *out);
bool sinew_method_uses_centers(int m);

typedef struct sinew_py_model sinew_py_model;
int sinew_py_model_load(const char *path, sinew_py_model **out, sinew_error_info *err);
void sinew_py_model_destroy(sinew_py_model *m);
void sinew_py_model_counts(const sinew_py_model *m, uint32_t *counts);
const double *sinew_py_rest_positions(const sinew_py_model *m);
const double *sinew_py_rest_normals(const sinew_py_model *m);
const uint32_t *sinew_py_triangles(const sinew_py_model *m);
double sinew_py_model_size(const sinew_py_model *m);
void sinew_py_influences(const sinew_py_model *m, uint16_t *joints, float *weights);
void sinew_py_skeleton(const sinew_py_model *m, int32_t *parents, double *bind_global);
const char *sinew_py_joint_name(const sinew_py_model *m, uint32_t j);
const char *sinew_py_clip(const sinew_py_model *m, uint32_t i, double *duration);
int sinew_py_sample(const sinew_py_model *m, int32_t clip, uint32_t n, const double *times, int wrap,
                    double *local_out, sinew_error_info *err);
int sinew_py_sample_weights(const sinew_py_model *m, int32_t clip, uint32_t n, const double *times, int wrap,
                            float *out, sinew_error_info *err);
int sinew_py_palettes(const sinew_py_model *m, int method, uint32_t n, const double *local,
                      double *palette_out, sinew_error_info *err);
int sinew_py_compute_centers(sinew_py_model *m, sinew_error_info *err);
const float *sinew_py_centers(const sinew_py_model *m);
int sinew_py_skin_reference(sinew_py_model *m, int method, uint32_t flags, uint32_t n,
                            const double *palettes, double *pos, double *nrm, sinew_error_info *err);
int sinew_py_morph(const sinew_py_model *m, const float *weights, double *pos, double *nrm, sinew_error_info *err);
const char *sinew_py_morph_target(const sinew_py_model *m, uint32_t t, uint32_t *mesh, float *default_weight);
int sinew_py_skin_reference_rest(sinew_py_model *m, int method, uint32_t flags, uint32_t n,
                                 const double *palettes, const double *rest_pos, const double *rest_nrm,
                                 double *pos, double *nrm, sinew_error_info *err);

typedef struct sinew_gpu sinew_gpu;
typedef struct sinew_py_skinner sinew_py_skinner;
int sinew_py_list_devices(char *names, uint8_t *usable, uint32_t max, uint32_t *count);
int sinew_py_gpu_create(const char *device, sinew_gpu **out, sinew_error_info *err);
void sinew_py_gpu_destroy(sinew_gpu *g);
const char *sinew_py_gpu_name(const sinew_gpu *g);
int sinew_py_skinner_create(sinew_gpu *g, const sinew_py_model *m, uint32_t batch, int morph,
                            sinew_py_skinner **out, sinew_error_info *err);
void sinew_py_skinner_destroy(sinew_py_skinner *s);
int sinew_py_skinner_run(sinew_py_skinner *s, int method, uint32_t flags, uint32_t n,
                         const double *palettes, const float *morph_weights, float *pos, float *nrm,
                         sinew_error_info *err);

int sinew_metric_volume(uint32_t vertex_count, const double *positions, const uint32_t *indices,
                        uint32_t index_count, double *out, sinew_error_info *err);
int sinew_metric_bone_distances(uint32_t n, const double *positions, const uint16_t *major,
                                const double *palette, uint32_t joint_count, double *dist_out,
                                sinew_error_info *err);
int sinew_metric_jumps(uint32_t frame_count, uint32_t n, const double *frames, double min_median,
                       double *scratch, double *ratio, double *max_jump, sinew_error_info *err);
int sinew_metric_normal_error(uint32_t vertex_count, const double *positions, const double *normals,
                              const uint32_t *indices, uint32_t index_count, double *scratch,
                              double *angle_out, sinew_error_info *err);
"""

ffi = cffi.FFI()
ffi.cdef(CDEF)
lib = ffi.dlopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libsinew_py.so"))
