/*
 * ticks.h: the timer's reads, inlined into the measuring loop; the one
 * place where an architecture's counter is read (the rest of what an
 * architecture gives is in arch.h).
 *
 * On x86-64 the TSC reads are serialized the way Intel's "How to
 * Benchmark Code Execution Times" white paper and the protocol of
 * docs/design.md (step 1) ask:
 *   start: lfence; rdtsc; lfence  - earlier work has finished, and the
 *                                   kernel cannot start before the read;
 *   stop:  rdtscp; lfence         - the kernel has finished (rdtscp waits
 *                                   for earlier instructions), and later
 *                                   work cannot start before the read.
 * On aarch64 the generic timer's virtual counter (cntvct_el0) is read
 * between two isb, the barrier Linux's own reads of it use.
 * An architecture without a counter reader here reads the clock for
 * both (it is never asked: sb__arch_ticks_usable says no).  Every build
 * has the clock: CLOCK_MONOTONIC_RAW in nanoseconds.
 */
#ifndef SB_ARCH_TICKS_H
#define SB_ARCH_TICKS_H

#include <stdint.h>
#include <time.h>

#include "statbench.h"

static inline uint64_t sb__clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The kind of timer (enum sb_timer_kind) that sb__ticks_start and
 * sb__ticks_stop read, and the timer's hz_source when the rate the
 * architecture states (sb__arch_ticks_hz) is more than 0.5% off the
 * calibration and the calibration is taken: the words name where that
 * rate came from (CPUID's leaves on x86-64, the register cntfrq_el0 on
 * aarch64). */
#if defined(SB_HAVE_X86_64)
#define SB__TICKS_KIND SB_TIMER_TSC
#define SB__TICKS_RATE_DISAGREED "calibrated (CPUID rate disagreed)"
#elif defined(SB_HAVE_AARCH64)
#define SB__TICKS_KIND SB_TIMER_CNTVCT
#define SB__TICKS_RATE_DISAGREED "calibrated (cntfrq_el0 rate disagreed)"
#else
#define SB__TICKS_KIND SB_TIMER_CLOCK
#define SB__TICKS_RATE_DISAGREED "calibrated (stated rate disagreed)"
#endif

#if defined(SB_HAVE_X86_64)
static inline uint64_t sb__ticks_start(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence"
                     : "=a"(lo), "=d"(hi)
                     :
                     : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t sb__ticks_stop(void)
{
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp\n\tlfence"
                     : "=a"(lo), "=d"(hi), "=c"(aux)
                     :
                     : "memory");
    (void)aux;
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(SB_HAVE_AARCH64)
/* The virtual counter between two isb: the read waits for the
 * instructions before it to finish, and those after it wait for the read
 * (the counter may otherwise be read early or late, out of order). */
static inline uint64_t sb__ticks_start(void)
{
    uint64_t t;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb"
                     : "=r"(t)
                     :
                     : "memory");
    return t;
}

static inline uint64_t sb__ticks_stop(void)
{
    uint64_t t;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb"
                     : "=r"(t)
                     :
                     : "memory");
    return t;
}
#else
static inline uint64_t sb__ticks_start(void)
{
    return sb__clock_ns();
}

static inline uint64_t sb__ticks_stop(void)
{
    return sb__clock_ns();
}
#endif

/* Read the run's timer: the architecture's counter when tsc != 0, else
 * the clock. */
static inline uint64_t sb__timer_start(int tsc)
{
    return tsc ? sb__ticks_start() : sb__clock_ns();
}

static inline uint64_t sb__timer_stop(int tsc)
{
    return tsc ? sb__ticks_stop() : sb__clock_ns();
}

#endif
