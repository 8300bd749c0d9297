/* Sinew: GPU skinning for crowds. The runtime API (libraries sinew_core and
 * sinew_gpu, CMake target sinew::sinew):
 *   version.h core.h types.h skeleton.h anim.h palette.h rest_mesh.h
 *   threadpool.h gpu.h skinner.h crowd.h morpher.h
 * Include these apart:
 *   sinew/linalg.h      float64 math helpers (vectors, quaternions, matrices)
 *   sinew/mesh.h        low-level packing of rest vertices (what sinew_rest_mesh does)
 *   sinew/bounds.h      joint bounds and character boxes (the crowd computes them)
 *   sinew/blendshape.h  morph-target validation
 *   sinew/palette_job.h the CPU palette job the crowd runs
 *   sinew/cor.h, sinew/rbf.h, sinew/autoweights.h   bake layer (sinew::bake):
 *                       centers of rotation, pose-space drivers, automatic weights
 *   sinew/reference.h   float64 reference skinners (sinew::reference)
 *   sinew/debug.h       test and benchmark hooks (experimental)
 *   sinew/render.h      the samples' renderer (sinew::render)
 *   sinew/asset.h       importers (sinew::asset; needs assimp and json-c) */
#ifndef SINEW_H
#define SINEW_H
#include <sinew/version.h>
#include <sinew/core.h>
#include <sinew/types.h>
#include <sinew/skeleton.h>
#include <sinew/anim.h>
#include <sinew/palette.h>
#include <sinew/rest_mesh.h>
#include <sinew/threadpool.h>
#include <sinew/gpu.h>
#include <sinew/skinner.h>
#include <sinew/crowd.h>
#include <sinew/morpher.h>
#endif
