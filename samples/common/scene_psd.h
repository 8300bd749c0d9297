/* Pose-space deformation on the tube (the lecture's "how to correct LBS"):
 * corrective morph targets for LBS made at a few example poses, an RBF driver
 * fitted over those poses, and the measurement at poses between them against
 * plain LBS and DQS. CPU, float64 (sinew_morph_reference + sinew_reference_skin_rest).
 *
 * Target shape: the tube skinned by DQS (float64 reference). Why: it keeps
 * the tube's volume and radius under bend and twist, exactly the two LBS
 * defects the lecture shows (DQS with bulge correction was tried too: its
 * clamp to the rest distance takes volume out of the inner elbow, 0.79 of the
 * rest volume at 100 degrees, below LBS's 0.86), and it exists for every pose,
 * which the fit needs at the examples and the measurement in between. Corrective of example e for
 * vertex v: delta_v = A_v^-1 (target_v - LBS_v(rest_v)), A_v the vertex's
 * blended 3x3 LBS matrix at pose e (inverse skinning, Lewis et al. 2000), so
 * LBS of the corrected rest reproduces the target exactly at every example. */
#ifndef SAMPLES_SCENE_PSD_H
#define SAMPLES_SCENE_PSD_H

#include <sinew/sinew.h>
#include <sinew/linalg.h>
#include <sinew/mesh.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/reference.h>
#include <sinew/cor.h>
#include <sinew/rbf.h>
#include <sinew/autoweights.h>
#include <sinew/palette_job.h>
#include "sinew_scene.h"

/* Figures of one skinned tube against the target shape. */
typedef struct psd_figures {
    double volume_ratio;        /* volume / rest volume */
    double radius_ratio;        /* middle ring radius / rest radius */
    double max_distance;        /* largest |p - target| over the vertices, / tube radius */
} psd_figures;

/* One measured pose. */
typedef struct psd_row {
    double bend_deg, twist_deg;
    int is_example;
    psd_figures lbs, dqs, target, psd;  /* dqs = DQS + bulge correction; target = DQS;
                                           psd = LBS of the RBF-corrected rest */
    double gpu_max_diff;                /* GPU morph + LBS vs the float64 psd, / radius */
} psd_row;

/* The whole experiment: examples, kernel, rows. */
typedef struct psd_report {
    uint32_t example_count, moved_vertices, row_count;
    double condition;
    int gpu;                            /* the rows were also run on the GPU */
    psd_row rows[32];
} psd_report;

/* The experiment's correctives for any tube mesh skinned to the tube skeleton
 * (scene_tube_skeleton; e.g. the viewer's 24 x 16 tube): one sparse target per
 * example (named "rest", "bend 50", ..., "twist 135"; rest's is empty), made by
 * inverse skinning against DQS, and the thin-plate RBF driver fitted on joint
 * 1's local rotation whose output k is target k's weight. Owns its arrays. */
#define PSD_EXAMPLES 7
typedef struct psd_correctives {
    uint32_t count;                           /* PSD_EXAMPLES */
    sinew_morph_target targets[PSD_EXAMPLES];
    char names[PSD_EXAMPLES][16];
    uint32_t moved_vertices;                  /* largest target */
    uint32_t *indices;
    float *deltas;
    sinew_rbf *rbf;
} psd_correctives;

/* Builds the correctives for nv packed tube vertices (joints 0..2). */
sinew_result scene_psd_correctives(uint32_t nv, const sinew_vertex *v, psd_correctives *out);
/* The driver's weights (out: PSD_EXAMPLES floats) at a tube pose (3 local
 * transforms: joint 1's rotation drives). */
sinew_result scene_psd_weights(const psd_correctives *c, const sinew_transform *local, float *out);
/* Frees what the correctives own; zeroes them. */
void scene_psd_correctives_free(psd_correctives *c);

/* Runs the experiment on the default tube (64 rings x 32 sectors, radius 0.1,
 * alpha 2) with the thin-plate kernel (the best of the three kernels measured
 * on these poses). Examples: rest, bend 50/100/150 deg, twist 45/90/135 deg
 * (a 180 deg twist example is useless: LBS's blended matrix of the middle ring
 * is singular there, so its corrective is unbounded and ruins every pose near
 * it); measured at those, between them, at twist 180 (outside the examples)
 * and at bend 75 + twist 90 (a combination no example shows). With gpu (may be
 * NULL) every row's corrected LBS also runs on the GPU (the morph pass with the
 * driver's weights, then the skinner, one frame) and is compared to float64. */
sinew_result scene_psd_run(psd_report *out, sinew_gpu *gpu);
/* Prints the report as a table. */
void scene_psd_print(const psd_report *r);

#endif
