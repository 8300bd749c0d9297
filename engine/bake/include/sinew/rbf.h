/* Sinew pose-space drivers (bake layer, sinew::bake): turn a pose into morph
 * target weights: pose-space deformation by radial basis functions (Lewis et
 * al. 2000) and SMPL-style linear pose features. CPU only. */
#ifndef SINEW_RBF_H
#define SINEW_RBF_H

#include <sinew/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pose-space deformation: RBF driver (Lewis et al. 2000) -------------- */

/* Radial kernels phi(r). */
typedef enum sinew_rbf_kernel {
    SINEW_RBF_GAUSSIAN = 0,        /* exp(-(r / width)^2) */
    SINEW_RBF_THIN_PLATE = 1,      /* r^2 log r (0 at r = 0) */
    SINEW_RBF_MULTIQUADRIC = 2     /* sqrt(r^2 + width^2) */
} sinew_rbf_kernel;

/* Pose distance between two poses of the driver joints (radians):
 *   d(x, y) = sqrt( sum_j theta_j^2 ),  theta_j = 2 acos(min(1, |dot(q_xj, q_yj)|))
 * the geodesic angle between the joints' local rotations (q and -q are the
 * same rotation), evaluated as 4 atan2(|a - b|, |a + b|) (b's sign taken to match a)
 * so that near-equal poses keep full relative precision. */
SINEW_API double sinew_pose_distance(const sinew_quat *a, const sinew_quat *b, uint32_t driver_count);

/* An RBF driver to fit. Example e's pose is example_rotations[e * driver_count
 * .. + driver_count - 1] (local rotations of the driver joints, normalized on
 * input); its wanted outputs are example_outputs[e * output_count ..] (the
 * corrective targets' weights there; NULL: the identity, output_count must
 * equal example_count: example e fully turns on target e). */
typedef struct sinew_rbf_desc {
    uint32_t driver_count;         /* driver joints (>= 1) */
    uint32_t example_count;        /* >= 2 */
    const sinew_quat *example_rotations;
    uint32_t output_count;         /* corrective weights produced per evaluation */
    const double *example_outputs; /* example_count x output_count, or NULL (identity) */
    sinew_rbf_kernel kernel;
    double width;                  /* Gaussian / multiquadric width in radians; 0 = mean
                                      distance between the examples */
    double regularization;         /* lambda >= 0 (0: exact interpolation); see sinew_rbf_create */
    double max_condition;          /* refuse systems with a larger 1-norm condition number; 0 = 1e12 */
    const sinew_allocator *allocator;
} sinew_rbf_desc;

typedef struct sinew_rbf sinew_rbf;

/* Fits the driver in float64 by LU with partial pivoting: Phi W = Y (lambda = 0);
 * with lambda > 0 the Tikhonov problem min |Phi W - Y|^2 + lambda |W|^2, solved as
 * (Phi^T Phi + lambda I) W = Phi^T Y (so |Phi W - Y| <= |Y| per output, for every kernel);
 * the condition number is that of the system solved. Errors (err names the example): INVALID_ARGUMENT (NULL arrays, zero
 * driver or output count, bad kernel, negative width/regularization, identity
 * outputs with output_count != example_count), EMPTY (fewer than 2 examples),
 * NON_FINITE (a non-finite rotation or output, or a zero-length quaternion),
 * SINGULAR (two examples closer than 1e-9 rad: "duplicate"; or a system whose
 * condition number exceeds max_condition: "ill-conditioned"). */
SINEW_API sinew_result sinew_rbf_create(const sinew_rbf_desc *desc, sinew_rbf **out, sinew_morph_error *err);
/* Frees the driver; NULL is ignored. */
SINEW_API void sinew_rbf_destroy(sinew_rbf *rbf);
/* Per frame: the output weights at a pose (driver_count local rotations):
 * w_o = sum_e W[e][o] phi(d(pose, example_e)). Writes output_count floats; no
 * allocation. NON_FINITE for a non-finite rotation. */
SINEW_API sinew_result sinew_rbf_evaluate(const sinew_rbf *rbf, const sinew_quat *rotations, float *weights_out);
/* Same in float64 (reference, measurements). */
SINEW_API sinew_result sinew_rbf_evaluate_f64(const sinew_rbf *rbf, const sinew_quat *rotations, double *weights_out);
/* Sizes of a fitted driver. */
SINEW_API uint32_t sinew_rbf_output_count(const sinew_rbf *rbf);
/* The 1-norm condition number of the solved system (measured at create). */
SINEW_API double sinew_rbf_condition(const sinew_rbf *rbf);

/* ---- SMPL-style linear pose correctives --------------------------------- */

/* Pose features of SMPL: for each driver joint j, the 9 elements of
 * R_j(pose) - I, row-major, where R_j is the rotation matrix of the joint's
 * (normalized) local rotation. Writes 9 * driver_count floats: the weights of
 * 9 * driver_count user basis shapes (morph targets) fed to the morph pass.
 * Zero at the rest pose (identity rotations). NON_FINITE for a bad rotation. */
SINEW_API sinew_result sinew_smpl_pose_features(const sinew_quat *rotations, uint32_t driver_count,
                                                float *weights_out);

#ifdef __cplusplus
}
#endif
#endif
