/*
 * pin.c: the CPU an invocation runs on (measure.h): the one rule for
 * choosing it (sysinfo.c's sb__default_cpu, unless --cpu says), and the
 * pinning, with the mask to restore.
 */
#include "config.h"

#include <sched.h>
#include <stdio.h>

#include "measure.h"
#include "sysinfo.h"

/* The CPU a run pins to, from the allowed set: --cpu, else the last
 * isolated CPU this process may run on, else the last allowed one; note
 * (optional) says why.  -1 when nothing is allowed. */
int sb__choose_cpu(const sb_measure_options *opt, const cpu_set_t *allowed,
                   char *note, size_t len)
{
    int cpu = opt->cpu, isolated;
    char set[128];
    char dummy[8];

    if (!note) {
        note = dummy;
        len = sizeof dummy;
    }
    sb__cpu_allowed(-1, set, sizeof set);
    if (cpu >= 0) {
        snprintf(note, len, "chosen with --cpu (online: %s)", set);
        return cpu;
    }
    cpu = sb__default_cpu("", allowed, &isolated);
    if (cpu >= 0)
        snprintf(note, len,
                 isolated ? "the last of the isolated CPUs (online: %s)"
                          : "the last CPU this process may use (online: %s; "
                            "CPU 0 takes most housekeeping interrupts)",
                 set);
    return cpu;
}

int sb_cpu_default(void)
{
    cpu_set_t allowed;

    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    return sb__default_cpu("", &allowed, NULL);
}

/* Choose and apply the CPU; fills meta->cpu and meta->pin_note. */
int sb__pin(const sb_measure_options *opt, sb_meta *meta, cpu_set_t *saved,
            int *restore, sb_error *err)
{
    cpu_set_t one;
    int cpu;

    *restore = 0;
    meta->cpu = -1;
    if (opt->no_pin) {
        snprintf(meta->pin_note, sizeof meta->pin_note,
                 "not pinned (--no-pin)");
        return SB_OK;
    }
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return sb__error(err, SB_ESYS, "sched_getaffinity failed");
    cpu = sb__choose_cpu(opt, saved, meta->pin_note, sizeof meta->pin_note);
    if (cpu < 0)
        return sb__error(err, SB_ESYS, "no CPU allowed to pin to");
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return sb__error(err, SB_ESYS, "cpu %d: sched_setaffinity failed",
                         cpu);
    *restore = 1;
    meta->cpu = cpu;
    return SB_OK;
}
