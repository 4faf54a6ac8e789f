/* metric.h: the choice of what a cell is judged in (metric.c). */
#ifndef SB_METRIC_H
#define SB_METRIC_H

#include "sb_internal.h"

/* metric.c: 1 when the data of cell stays in the caches, whose speed
 * follows the core clock: a copy or clear kernel, a hot cache, and the
 * bytes it touches (with their offsets) within l2_bytes (0: unknown, so
 * never).  The half of sb_metric_choose that does not look at clocks. */
int sb__metric_cache_resident(const sb_cell *cell, int cache,
                              size_t l2_bytes);

/* metric.c: the values of n samples in metric: ticks, or ticks times
 * clock for SB_METRIC_CYCLES (NAN where the clock is unknown). */
void sb__metric_values(int metric, const double *ticks, const double *clock,
                       size_t n, double *out);

#endif
