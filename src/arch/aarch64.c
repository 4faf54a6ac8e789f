/*
 * aarch64.c: the architecture layer (arch.h) on 64-bit Arm: the generic
 * timer's virtual counter, and the cache flush by data cache maintenance.
 * The counter's reads themselves are inlined from ticks.h.
 *
 * cntvct_el0 counts at a constant rate whatever the core's clock does
 * (the Arm ARM requires it of the system counter), and Linux lets user
 * space read it, as it does cntfrq_el0, its rate as the firmware set it;
 * timer.c cross-checks that rate against CLOCK_MONOTONIC_RAW, since
 * firmware has been seen to leave it wrong.  Its resolution is coarse:
 * commonly 24 to 100 MHz (1 GHz from Armv8.6 on), so that a 50 us sample
 * spans at least about 1200 ticks.
 *
 * Arm CPUs have no brand string (/proc/cpuinfo and sysinfo.c name them),
 * user space cannot ask whether a hypervisor runs below (that takes
 * EL1's registers), and there is no core clock chain or contention probe
 * here yet: the build links unknown.c for those, and every cell is
 * judged in time.
 */
#include "config.h"

#include <stdio.h>

#include "arch.h"

static uint64_t cntfrq(void)
{
    uint64_t f;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
}

int sb__arch_ticks_usable(char *reason, size_t len)
{
    /* A counter that states no rate was left unset by the firmware: its
     * rate would rest on the calibration alone, and such a system has
     * been seen to leave the counter itself unprogrammed as well. */
    if (cntfrq() == 0) {
        snprintf(reason, len, "cntfrq_el0 is 0: the generic timer's rate "
                              "is not set");
        return 0;
    }
    return 1;
}

double sb__arch_ticks_hz(const char **source)
{
    uint64_t f = cntfrq();

    if (!f)
        return 0;
    *source = "cntfrq_el0";
    return (double)f;
}

/* The smallest data cache line in bytes, from CTR_EL0.DminLine (log2 of
 * the words); Linux lets user space read it, or traps and emulates it
 * (some cores' errata).  Read on every flush, since arch.h's functions
 * keep no state: the flush is outside the timed region, so a trap costs
 * only time between samples. */
static size_t dcache_line(void)
{
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    return (size_t)4 << ((ctr >> 16) & 0xf);
}

int sb__arch_can_flush(void)
{
    return 1;
}

/* dc civac cleans and invalidates each line to the point of coherency,
 * which Linux allows at EL0 (SCTLR_EL1.UCI); dsb waits for all of them.
 * The inner-shareable dsb suffices: the flush is for this thread's next
 * reads, not for a device. */
void sb__arch_flush(const void *p, size_t n)
{
    size_t line = dcache_line();
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line - 1);
    uintptr_t end = (uintptr_t)p + n;

    for (; a < end; a += line)
        __asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
    __asm__ volatile("dsb ish" : : : "memory");
}

const char *sb__arch_cpuinfo_key(void)
{
    return "Features";
}
