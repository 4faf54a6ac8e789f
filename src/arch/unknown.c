/*
 * unknown.c: the answers of arch.h that an architecture's own code cannot
 * give yet, for the generic build and for aarch64: no brand string (the
 * CPU is named from /proc and /sys), no word on a hypervisor, and no
 * probes' chains, so that the run has no core clock or contention probe
 * and judges every cell in time.
 */
#include "config.h"

#include "arch.h"

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
