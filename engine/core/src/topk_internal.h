/* Top-k influence lists shared by packing (mesh.c) and the automatic weights
 * (bake layer): static inline, as each layer keeps its internal symbols local. */
#ifndef SINEW_TOPK_INTERNAL_H
#define SINEW_TOPK_INTERNAL_H

#include <math.h>
#include <stdint.h>

static inline int finite3f(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

/* A joint/weight pair kept in a top-4 list. */
typedef struct influence { uint32_t joint; double weight; } influence;

/* 1 when a ranks before b: larger weight first, ties by lower joint index. */
static inline int ranks_before(double wa, uint32_t ja, double wb, uint32_t jb)
{
    return wa > wb || (wa == wb && ja < jb);
}

/* Most influences a packed vertex holds (sinew_vertex8). */
#define MAX_KEPT 8u

/* Inserts (joint, weight) into a list sorted by ranks_before, keeping at most kmax. */
static inline void topk_insert(influence *top, uint32_t *count, uint32_t kmax, uint32_t joint, double weight)
{
    uint32_t n = *count, pos = n;
    while (pos > 0 && ranks_before(weight, joint, top[pos - 1].weight, top[pos - 1].joint)) pos--;
    if (pos >= kmax) return;
    if (n == kmax) n = kmax - 1;      /* the last one falls off */
    for (uint32_t k = n; k > pos; k--) top[k] = top[k - 1];
    top[pos].joint = joint;
    top[pos].weight = weight;
    *count = n + 1;
}

#endif
