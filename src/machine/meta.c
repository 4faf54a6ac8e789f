/* meta.c: the record of the machine a run measured on; the CPU's name
 * comes from sysinfo.c. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "meta.h"
#include "sysinfo.h"

/* The embedded structs must fit the rooms sb_meta keeps for them, so that
 * their growth moves no field of sb_meta. */
_Static_assert(sizeof(sb_timer_info) <= SB_META_TIMER_ROOM,
               "sb_timer_info outgrew its room in sb_meta");
_Static_assert(sizeof(sb_env) <= SB_META_ENV_ROOM,
               "sb_env outgrew its room in sb_meta");

void sb__meta_probe_unknown(sb_meta *m)
{
    m->probe_ratio = m->probe_cost_share = NAN;
    m->probe_clock = m->probe_clock_min = m->probe_clock_max = NAN;
    m->contention_quiet = m->contention_margin = NAN;
    m->contended_share = m->cpu_wait_share = NAN;
    m->shared_wait_seconds = NAN;
    m->reference_cycles = NAN;
    m->profile_bound = NAN;
    /* A meta and the structs embedded in it are the library's, which
     * says so in their size fields as in a caller's. */
    m->size = sizeof *m;
    m->timer.size = sizeof m->timer;
    m->env.size = sizeof m->env;
}

void sb__meta_machine(sb_meta *meta, time_t start)
{
    struct utsname u;
    struct tm tm;

    sb__cpu_model(meta->cpu_model, sizeof meta->cpu_model);
    if (uname(&u) == 0)
        snprintf(meta->kernel_version, sizeof meta->kernel_version,
                 "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(meta->kernel_version, sizeof meta->kernel_version,
                 "unknown");
    if (gethostname(meta->hostname, sizeof meta->hostname) != 0)
        snprintf(meta->hostname, sizeof meta->hostname, "unknown");
    meta->hostname[sizeof meta->hostname - 1] = '\0';
    snprintf(meta->statbench_version, sizeof meta->statbench_version, "%s",
             PACKAGE_VERSION);
    gmtime_r(&start, &tm);
    strftime(meta->start_time, sizeof meta->start_time,
             "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta->cpu_features = sb_cpu_features();
    if (sb__cpuinfo_microcode("", meta->microcode, sizeof meta->microcode))
        meta->microcode[0] = '\0';
    {
        long n = sb__online_cpus("");
        meta->online_cpus = n > 0 ? (size_t)n : 0;
    }
}

void sb__meta_fill(sb_meta *meta)
{
    sb__meta_probe_unknown(meta);
    sb__meta_machine(meta, time(NULL));
    sb__counters_describe(meta->counters, sizeof meta->counters);
}

void sb__meta_l2(sb_meta *meta)
{
    sb__cache c[SB_MAX_CACHES];
    size_t n = sb__caches("", meta->cpu >= 0 ? meta->cpu : 0, c,
                          SB_MAX_CACHES);

    meta->l2_bytes = 0;
    meta->ncaches = 0;
    for (size_t i = 0; i < n && i < SB_MAX_CACHES; i++) {
        if (!strcmp(c[i].label, "L2"))
            meta->l2_bytes = c[i].bytes;
        meta->caches[meta->ncaches++] = c[i];
    }
}

/* The line that ends the notes when one no longer fits whole. */
#define SB__NOTES_FULL "(later notes dropped: the run's notes are full)"

void sb__meta_note(sb_meta *meta, const char *fmt, ...)
{
    char line[sizeof meta->notes];
    size_t used = strlen(meta->notes), len, room;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    len = strlen(line);
    if (!len)
        return;
    /* A note goes in whole or not at all: a cut one reads as a wrong
     * one ("kernel mmap_to").  Room is kept for the line that says
     * notes were dropped, which comes once, last. */
    if (used >= strlen(SB__NOTES_FULL) &&
        !strcmp(meta->notes + used - strlen(SB__NOTES_FULL), SB__NOTES_FULL))
        return;
    room = sizeof meta->notes - 1 - used;
    if ((used != 0) + len + 1 + strlen(SB__NOTES_FULL) <= room) {
        snprintf(meta->notes + used, room + 1, "%s%s", used ? "\n" : "",
                 line);
        return;
    }
    if ((used != 0) + strlen(SB__NOTES_FULL) <= room)
        snprintf(meta->notes + used, room + 1, "%s%s", used ? "\n" : "",
                 SB__NOTES_FULL);
}
