/*
 * generic.c: the architecture layer (arch.h) for a CPU this build has no
 * code of its own for, and for ./configure --disable-arch on any CPU.
 * Every answer is the safe "no": the run times with the clock, has no
 * core clock or contention probe, refuses the cold cache state, and
 * takes the CPU's name and the hypervisor from /proc and /sys alone.
 * A port to a new architecture starts from this file.
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

int sb__arch_cpu_brand(char *buf, size_t len)
{
    (void)buf, (void)len;
    return -1;
}

int sb__arch_hypervisor(char *name, size_t len)
{
    (void)name, (void)len;
    return -1;
}

int sb__arch_have_chains(void)
{
    return 0;
}

void sb__arch_imul_chain(uint64_t n)
{
    (void)n;
}

void sb__arch_add_chain(uint64_t n)
{
    (void)n;
}

void sb__arch_ldst(void *buf, unsigned reps)
{
    (void)buf, (void)reps;
}
