/*
 * sb_internal.h: names shared inside libstatbench, never installed.
 * Internal non-static names start with "sb__".
 */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include "statbench.h"
#include "text.h"

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

/* plan.c: 1 when cpu is online, 0 when not, -1 on error; set
 * (optional) receives the online CPUs as "0-3,6". */
int sb__cpu_allowed(int cpu, char *set, size_t setlen);

/* plan.c: the options that need no plan (level, precision, invocations,
 * outliers, bootstrap, alpha, threshold, reject policy, the syntax of the
 * counter list); SB_OK or SB_EINVAL. */
int sb__options_check(const sb_options *opt, sb_error *err);

/* Fill err (when not NULL) with code and a printf-style message; returns
 * code so that callers can write "return sb__error(err, SB_EINVAL, ...)". */
int sb__error(sb_error *err, int code, const char *fmt, ...) SB__PRINTF(3, 4);

/* timer.c: the timed region of one sample: k calls of fn between two
 * timer reads, returning the raw tick difference.  Not inlined, so that the
 * overhead measured with k == 0 is that of the code every sample runs. */
uint64_t sb__timed_sample(int tsc, sb_kernel_fn fn, void *dst, const void *src,
                          size_t n, void *state, size_t k);

/* registry.c: how many calls sb_kernel_failed() has counted in this
 * thread so far (it only grows); *last_errno (optional) receives the
 * errnum of the last. */
size_t sb__kernel_failures(int *last_errno);

/* timer.c: seconds since an arbitrary start (CLOCK_MONOTONIC). */
double sb__now(void);

/* counters.c: describe the counter backend of this build and machine into
 * buf (one line: the PAPI version and whether its perf_event component
 * works, or that the build has no PAPI).  Cheap after the first call. */
void sb__counters_describe(char *buf, size_t len);

/* counters.c: split a comma-separated counter list into names[0..*n)
 * (blanks around names trimmed), at most max names.  SB_EINVAL, with a
 * message quoting the list, for an empty name ("a,,b", "a,"), a name of 64
 * characters or more or with a blank inside, a name listed twice, or more
 * names than fit beside the three software events always read.  Names are
 * not looked up: a counter this machine lacks is reported at run time.  A
 * NULL list gives *n = 0. */
int sb__counters_parse(const char *list, char (*names)[64], size_t max,
                       size_t *n, sb_error *err);

/* counters.c: the counters of one measuring thread. */
typedef struct sb__counters sb__counters;
struct rusage;

/* Open the counters named in list (NULL: the default hardware counters)
 * and the software events always read, for the calling thread; they count
 * from now on.  meta (optional) receives counters (the one-line account:
 * backend, counters in use and their source, missing ones and why),
 * ncounters and counter_names.  A missing counter is not an error.
 * SB_EINVAL for a bad list, SB_ENOMEM. */
int sb__counters_open(const char *list, sb__counters **out, sb_meta *meta,
                      sb_error *err);
/* Counters read (meta->ncounters). */
size_t sb__counters_count(const sb__counters *c);
/* Read index of the context switches (0), CPU migrations (1) or page
 * faults (2) counter, or -1 when it is not read. */
int sb__counters_special(const sb__counters *c, int which);
/* The cumulative counts of the counters read through PAPI and
 * perf_event_open into their places in v (one place per counter read):
 * one PAPI_read and one read(2) of the perf group.  0, or -1 when a read
 * failed (v is then unreliable). */
int sb__counters_read(sb__counters *c, uint64_t *v);
/* The counts of the counters that fall back on getrusage, from ru, into
 * their places in v. */
void sb__counters_rusage(const sb__counters *c, const struct rusage *ru,
                         uint64_t *v);
/* 1 when special counter which (as above) comes from getrusage. */
int sb__counters_from_rusage(const sb__counters *c, int which);
void sb__counters_close(sb__counters *c);
/* Test hook: non-zero makes perf_event_open look refused. */
extern int sb__counters_no_perf;

/* interrupts.c: the interrupts delivered to one CPU (/proc/interrupts,
 * that CPU's column summed over all lines), with the file kept open. */
typedef struct sb__irq {
    int fd;
    int col, ncols;      /* the CPU's column, columns in all */
    char *buf;
    size_t cap;
    size_t longest_line;
} sb__irq;

/* Open for cpu; 0, or -1 with why filled (q is then closed). */
int sb__irq_open(sb__irq *q, int cpu, char *why, size_t whylen);
/* The same from a file in the format of /proc/interrupts (tests). */
int sb__irq_open_file(sb__irq *q, const char *path, int cpu, char *why,
                      size_t whylen);
/* The CPU's total so far; 0 or -1. */
int sb__irq_read(sb__irq *q, uint64_t *total);
void sb__irq_close(sb__irq *q);

/* meta.c: fill the machine part of a run's metadata. */
void sb__meta_fill(sb_meta *meta);

/* Median of a small array, which it sorts. */
double sb__median_inplace(double *x, size_t n);

/* results.c (here, not in run_internal.h, because the writers use them
 * and see the run only through the public accessors): the cells of one
 * kernel and size start at first and end before the returned index (the
 * plan keeps them together). */
size_t sb__group_end(const sb_run *run, size_t first);

/* results.c: the number of source offsets when the group [first, end)
 * holds every pair of at least two source and two destination offsets in
 * plan order (destination outer, source inner): a 2D alignment matrix;
 * else 0. */
size_t sb__matrix_width(const sb_run *run, size_t first, size_t end);

#endif
