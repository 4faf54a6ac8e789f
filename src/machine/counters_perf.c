/*
 * counters_perf.c: the perf software events (counters_internal.h): their
 * names as PAPI (libpfm4) gives them, which of them getrusage can stand
 * in for, and their opening with perf_event_open(2) as one group of the
 * calling thread, kernel included (counters.c says why).  The lowest of
 * the counters' files: it calls none of them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "counters_internal.h"
#include "sysinfo.h"

/* ---- The software events ---------------------------------------------- */

const struct sb__sw_event sb__sw_events[SW_N] = {
#ifdef HAVE_PERF_EVENT
#define SW(name, alias, ru, cfg) {name, alias, ru, cfg}
#else
#define SW(name, alias, ru, cfg) {name, alias, ru}
#endif
    SW("perf::CONTEXT-SWITCHES", "perf::CS", 1,
       PERF_COUNT_SW_CONTEXT_SWITCHES),
    SW("perf::CPU-MIGRATIONS", "perf::MIGRATIONS", 0,
       PERF_COUNT_SW_CPU_MIGRATIONS),
    SW("perf::PAGE-FAULTS", "perf::FAULTS", 1, PERF_COUNT_SW_PAGE_FAULTS),
    SW("perf::MINOR-FAULTS", NULL, 1, PERF_COUNT_SW_PAGE_FAULTS_MIN),
    SW("perf::MAJOR-FAULTS", NULL, 1, PERF_COUNT_SW_PAGE_FAULTS_MAJ),
    SW("perf::TASK-CLOCK", NULL, 0, PERF_COUNT_SW_TASK_CLOCK),
    SW("perf::CPU-CLOCK", NULL, 0, PERF_COUNT_SW_CPU_CLOCK),
    SW("perf::ALIGNMENT-FAULTS", NULL, 0, PERF_COUNT_SW_ALIGNMENT_FAULTS),
    SW("perf::EMULATION-FAULTS", NULL, 0, PERF_COUNT_SW_EMULATION_FAULTS),
#undef SW
};

/* Which software event a name is, or -1.  libpfm4 ignores case. */
int sb__sw_index(const char *name)
{
    for (int i = 0; i < SW_N; i++)
        if (!strcasecmp(name, sb__sw_events[i].name) ||
            (sb__sw_events[i].alias &&
             !strcasecmp(name, sb__sw_events[i].alias)))
            return i;
    return -1;
}

/* ---- perf_event_open ------------------------------------------------ */

#ifdef HAVE_PERF_EVENT
int sb__perf_open(int *fds, size_t *n, int sw, char *why, size_t len)
{
    struct perf_event_attr a;
    int fd, group = *n ? fds[0] : -1;

    if (SB__COUNTERS_NO_PERF) {
        snprintf(why, len, "perf_event_open: refused (test)");
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = sb__sw_events[sw].config;
    a.read_format = PERF_FORMAT_GROUP;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
                      PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        long paranoid = 0;
        int have = sb__perf_paranoid("", &paranoid) == 0;
        if ((e == EACCES || e == EPERM) && have)
            snprintf(why, len,
                     "perf_event_open: %s (kernel.perf_event_paranoid is "
                     "%ld)", strerror(e), paranoid);
        else
            snprintf(why, len, "perf_event_open: %s", strerror(e));
        return -1;
    }
    fds[*n] = fd;
    return (int)(*n)++;
}
#endif
