/*
 * plan.h: plan.c's internal functions, never installed.
 */
#ifndef SB_PLAN_H
#define SB_PLAN_H

#include "pending.h"
#include "sb_internal.h"

/* bytes of source and destination buffer a plan needs (whole
 * pages); -1 when a size would overflow. */
struct sb_plan;
int sb__buffer_bytes(const struct sb_plan *plan, size_t *src_bytes,
                     size_t *dst_bytes);

/* the measure options that need no plan (invocations, the reject
 * policy, the syntax of the counter list); SB_OK or SB_EINVAL. */
int sb__measure_check(const sb_measure_options *opt, sb_error *err);

/* The caller's options in the library's full layout, by their size
 * field: copied whole, or an older caller's fields with the defaults of
 * the later ones; NULL gives the defaults.  An unknown size (0, a newer
 * header's) is SB_EINVAL with a message naming the struct, the size and
 * who ("sb_run_execute_new"), and full then holds the defaults. */
/* The reading behind them, for any struct whose layouts are prefixes of
 * each other with a size_t size first: *full holds the defaults (the
 * caller's), and is overwritten by the first size bytes of in when size
 * is one of known[] (nknown of them), its size field then fullsize; else
 * SB_EINVAL naming who, what (the struct), the size and init (its _init),
 * and *full is left alone. */
int sb__options_part(const void *in, size_t size, void *full,
                     size_t fullsize, const size_t *known, size_t nknown,
                     const char *what, const char *init, const char *who,
                     sb_error *err);
int sb__measure_get(const sb_measure_options *m, sb_measure_options *full,
                    const char *who, sb_error *err);
int sb__analysis_get(const sb_analysis_options *a, sb_analysis_options *full,
                     const char *who, sb_error *err);

/* The named benchmarks (sb_bench_add) of a run's cells point into their
 * plan: give the run its own copies (run->own_kernels: name, family and
 * description, no function), so that it outlives the plan.  SB_ENOMEM
 * (the run is then freed whole by the caller). */
struct sb_run;
int sb__run_adopt_benches(struct sb_run *run);

/* The one order of cells: by kernel name, then size, source offset and
 * destination offset (sb_cell_same is 0 here); what compare matches and
 * merge and the duplicate check sort by.  Both kernels named. */
int sb__cell_order(const sb_cell *a, const sb_cell *b);
/* The same order, ties broken by each cell's place in its list (ia, ib),
 * for a stable sort with qsort. */
int sb__cell_order_at(const sb_cell *a, size_t ia, const sb_cell *b,
                      size_t ib);

/* The n cells at first, first + stride bytes, ...: the index of one that
 * repeats an earlier one (the same kernel name, size and offsets), with
 * that earlier one's in *earlier; SIZE_MAX when none does (or out of
 * memory: *earlier is then SIZE_MAX too).  O(n log n). */
size_t sb__cell_duplicate(const sb_cell *first, size_t n, size_t stride,
                          size_t *earlier);
/* "libc, 4096 bytes, offsets 0/0" into buf. */
const char *sb__cell_text(const sb_cell *c, char *buf, size_t len);

#endif
