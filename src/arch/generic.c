/*
 * generic.c: the architecture layer (arch.h) for a CPU this build has no
 * code of its own for, and for ./configure --disable-arch on any CPU.
 * Every answer is the safe "no": the run times with the clock, has no
 * core clock or contention probe, refuses the cold cache state, and
 * takes the CPU's name and the hypervisor from /proc and /sys alone.
 * A port to a new architecture starts from this file.  What no
 * instruction of it can tell (the CPU's brand, the hypervisor, the
 * probes' chains) is unknown.c's.
 */
#include "config.h"

#include <stdio.h>

#include "arch.h"

int sb__arch_ticks_usable(char *reason, size_t len)
{
    snprintf(reason, len, "no TSC reader for this architecture");
    return 0;
}

double sb__arch_ticks_hz(const char **source)
{
    (void)source;
    return 0;
}

int sb__arch_can_flush(void)
{
    return 0;
}

void sb__arch_flush(const void *p, size_t n)
{
    (void)p, (void)n;
}

const char *sb__arch_cpuinfo_key(void)
{
    return NULL;
}
