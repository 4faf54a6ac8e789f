/*
 * plan.h: plan.c's internal functions, never installed.
 */
#ifndef SB_PLAN_H
#define SB_PLAN_H

#include "sb_internal.h"

/* bytes of source and destination buffer a plan needs (whole
 * pages); -1 when a size would overflow. */
struct sb_plan;
int sb__buffer_bytes(const struct sb_plan *plan, size_t *src_bytes,
                     size_t *dst_bytes);

/* the options that need no plan (level, precision, invocations,
 * outliers, bootstrap, alpha, threshold, reject policy, the syntax of the
 * counter list); SB_OK or SB_EINVAL. */
int sb__options_check(const sb_options *opt, sb_error *err);

#endif
