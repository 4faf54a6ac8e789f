/*
 * counters_internal.h: the back-ends of the counters (counters.c), never
 * installed.  counters.c asks for the counters and reads them; below it,
 * and calling nothing of it, are the perf software events and their
 * opening with perf_event_open (counters_perf.c) and PAPI's start
 * (counters_papi.c).  counters.h is what the rest of the library sees.
 */
#ifndef SB_COUNTERS_INTERNAL_H
#define SB_COUNTERS_INTERNAL_H

#include <stddef.h>

#ifdef __linux__
#include <linux/perf_event.h>
#define HAVE_PERF_EVENT 1
#endif

#include "sb_internal.h"

/* ---- counters_perf.c: the perf software events ----------------------- */

/* Software events: the first three are always read. */
enum { SW_CTXSW, SW_MIGR, SW_FAULTS, SW_MINFLT, SW_MAJFLT, SW_TASK_CLOCK,
       SW_CPU_CLOCK, SW_ALIGN, SW_EMUL, SW_N };

struct sb__sw_event {
    const char *name; /* the name PAPI (libpfm4) gives it */
    const char *alias;
    int rusage;       /* 1 when getrusage can stand in */
#ifdef HAVE_PERF_EVENT
    unsigned long long config;
#endif
};
extern const struct sb__sw_event sb__sw_events[SW_N];

/* Which software event a name is, or -1.  libpfm4 ignores case. */
int sb__sw_index(const char *name);

#ifdef HAVE_PERF_EVENT
/* Open software event sw for the calling thread into the perf group
 * fds[0..*n) (the first opened leads it), as fds[*n]: its index in the
 * group, *n then one more; or -1 with why (len bytes) saying why not. */
int sb__perf_open(int *fds, size_t *n, int sw, char *why, size_t len);
#endif

/* ---- counters_papi.c: PAPI's start ------------------------------------ */

#ifdef SB_HAVE_PAPI
/* 1 when PAPI is initialised.  line (len bytes) receives the backend's
 * description or why PAPI is off.  Too few free descriptors leave PAPI
 * uninitialised for now, so a later call with more may still start it.
 * Once tried (in a trial child, then in this process), the answer is the
 * process's.  Safe to call from concurrent runs. */
int sb__papi_init(char *line, size_t len);
/* Why PAPI cannot add name, rc the error it gave: its error, or for a
 * disabled component the component and its own reason. */
void sb__papi_why(const char *name, int rc, char *why, size_t len);
#endif

#endif
