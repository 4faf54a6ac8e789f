/*
 * sb_internal.h: names shared inside libstatbench, never installed.
 * Internal non-static names start with "sb__".
 */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include "statbench.h"

#if defined(__GNUC__)
#define SB__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SB__PRINTF(a, b)
#endif

/* Buffers are page-aligned plus the cell's offset; offsets stay below a
 * page.  4096 is the x86 base page, and the offsets of the threads are
 * measured against it whatever the machine's page size. */
#define SB_PAGE_SIZE 4096

/* Most cells a plan or a loaded run may have: a guard against a typo such
 * as --align 0..4095 --dst-align 0..4095 (16.7 million cells). */
#define SB__MAX_CELLS 100000

/* plan.c: bytes of source and destination buffer a plan needs (whole
 * pages); -1 when a size would overflow. */
struct sb_plan;
int sb__buffer_bytes(const struct sb_plan *plan, size_t *src_bytes,
                     size_t *dst_bytes);

/* plan.c: 1 when this process may run on cpu, 0 when not, -1 on error;
 * set (optional) receives the allowed CPUs as "0-3,6". */
int sb__cpu_allowed(int cpu, char *set, size_t setlen);

/* plan.c: the statistical options alone (level, precision, invocations,
 * outliers, bootstrap, alpha, threshold); SB_OK or SB_EINVAL. */
int sb__options_check(const sb_options *opt, sb_error *err);

/* Fill err (when not NULL) with code and a printf-style message; returns
 * code so that callers can write "return sb__error(err, SB_EINVAL, ...)". */
int sb__error(sb_error *err, int code, const char *fmt, ...) SB__PRINTF(3, 4);

/* timer.c: the timed region of one sample: k calls of fn between two
 * timer reads, returning the raw tick difference.  Not inlined, so that the
 * overhead measured with k == 0 is that of the code every sample runs. */
uint64_t sb__timed_sample(int tsc, sb_kernel_fn fn, void *dst, const void *src,
                          size_t n, void *state, size_t k);

/* timer.c: seconds since an arbitrary start (CLOCK_MONOTONIC). */
double sb__now(void);

/* counters.c: describe the counter backend of this build and machine into
 * buf (one line).  Cheap after the first call. */
void sb__counters_describe(char *buf, size_t len);

/* meta.c: fill the machine part of a run's metadata. */
void sb__meta_fill(sb_meta *meta);

/* Median of a small array, which it sorts. */
double sb__median_inplace(double *x, size_t n);

#endif
