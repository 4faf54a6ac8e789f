/*
 * counters.h: counters.c's internal functions, never installed.
 */
#ifndef SB_COUNTERS_H
#define SB_COUNTERS_H

#include "sb_internal.h"

/* Describe the counter backend of this build and machine into
 * buf (one line: the PAPI version and whether its perf_event component
 * works, or that the build has no PAPI).  Cheap after the first call. */
void sb__counters_describe(char *buf, size_t len);

/* Split a comma-separated counter list into names[0..*n)
 * (blanks around names trimmed), at most max names.  SB_EINVAL, with a
 * message quoting the list, for an empty name ("a,,b", "a,"), a name of 64
 * characters or more or with a blank inside, a name listed twice, or more
 * names than fit beside the three software events always read.  Names are
 * not looked up: a counter this machine lacks is reported at run time.  A
 * NULL list gives *n = 0. */
int sb__counters_parse(const char *list, char (*names)[64], size_t max,
                       size_t *n, sb_error *err);

/* SB_EINVAL, with a message naming it, for the first of names[0..n) that
 * is no counter at all: not a perf software event, and unknown to PAPI by
 * that name.  Starts PAPI in this process to ask it (as
 * sb_counters_available does).  When that cannot be told (a build
 * without PAPI, PAPI not started), SB_OK: the run reports the name
 * missing.  A known counter this machine cannot read (a hardware preset
 * in a VM) passes: it too is reported missing, with the reason. */
int sb__counters_check_names(const char (*names)[64], size_t n,
                             sb_error *err);

/* The counters of one measuring thread. */
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
/* Test hook: a test program that defines int sb__counters_no_perf and
 * sets it non-zero makes perf_event_open look refused
 * (tests/test_disturb.c).  The library holds no definition: the
 * reference is weak, so its address is NULL in every other program, and
 * hidden, so that a program's own variable of that name cannot reach the
 * shared library (there the reference is resolved to NULL at link time).
 * Compilers without weak symbols have no hook. */
#if defined(__GNUC__)
extern int sb__counters_no_perf __attribute__((weak, visibility("hidden")));
#define SB__COUNTERS_NO_PERF (&sb__counters_no_perf && sb__counters_no_perf)
#else
#define SB__COUNTERS_NO_PERF 0
#endif
/* Test hook, weak and hidden alike: int sb__counters_trial_fails set to 1
 * makes the child that tries PAPI's start print before it (a blank line,
 * then a line with an ESC), to 2 makes it exit with status 1 as PAPI's
 * err(1) would (tests/test_api.c). */
#if defined(__GNUC__)
extern int sb__counters_trial_fails __attribute__((weak,
                                                    visibility("hidden")));
#define SB__COUNTERS_TRIAL_FAILS                                          \
    (&sb__counters_trial_fails ? sb__counters_trial_fails : 0)
#else
#define SB__COUNTERS_TRIAL_FAILS 0
#endif

#endif
