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

/* The caller's options in the library's full layout, by their size
 * field: copied whole, or an older caller's fields with the defaults of
 * the later ones.  An unknown size (0, a newer header's) is SB_EINVAL
 * with a message naming it and who ("sb_run_execute_new"), and full then
 * holds the defaults.  opt must not be NULL. */
int sb__options_get(const sb_options *opt, sb_options *full, const char *who,
                    sb_error *err);

/* The named benchmarks (sb_bench_add) of a run's cells point into their
 * plan: give the run its own copies (run->own_kernels: name, family and
 * description, no function), so that it outlives the plan.  SB_ENOMEM
 * (the run is then freed whole by the caller). */
struct sb_run;
int sb__run_adopt_benches(struct sb_run *run);

#endif
