/* Sinew: GPU skinning for crowds. Includes every public header. */
#ifndef SINEW_H
#define SINEW_H
#include "core.h"
#include "math.h"
#include "skeleton.h"
#include "palette.h"
#include "mesh.h"
#include "reference.h"
#include "scene.h"
#include "gpu.h"
#include "skinner.h"
#include "anim.h"
#include "crowd.h"
#include "render.h"
#include "asset.h"   /* implemented by the sinew_asset library (assimp) */
#endif
