/* Sinew: GPU skinning for crowds. Includes the public headers of the core and
 * gpu layers (libraries sinew_core and sinew_gpu):
 *   version.h core.h linalg.h skeleton.h anim.h palette.h mesh.h reference.h
 *   threadpool.h gpu.h skinner.h crowd.h
 * Include these apart: sinew/render.h (sinew_render, the samples' renderer),
 * sinew/asset.h (sinew_asset, the importers; needs assimp to link) and
 * sinew/debug.h (test and benchmark hooks). */
#ifndef SINEW_H
#define SINEW_H
#include <sinew/version.h>
#include <sinew/core.h>
#include <sinew/linalg.h>
#include <sinew/skeleton.h>
#include <sinew/anim.h>
#include <sinew/palette.h>
#include <sinew/palette_job.h>
#include <sinew/mesh.h>
#include <sinew/reference.h>
#include <sinew/bounds.h>
#include <sinew/blendshape.h>
#include <sinew/threadpool.h>
#include <sinew/cor.h>
#include <sinew/rest_mesh.h>
#include <sinew/gpu.h>
#include <sinew/skinner.h>
#include <sinew/crowd.h>
#include <sinew/morpher.h>
#endif
