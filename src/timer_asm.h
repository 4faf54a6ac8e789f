/*
 * timer_asm.h: the timer's reads, inlined into the measuring loop.
 *
 * TSC reads are serialized the way Intel's "How to Benchmark Code Execution
 * Times" white paper and the protocol of docs/design.md (step 1) ask:
 *   start: lfence; rdtsc; lfence  - earlier work has finished, and the
 *                                   kernel cannot start before the read;
 *   stop:  rdtscp; lfence         - the kernel has finished (rdtscp waits
 *                                   for earlier instructions), and later
 *                                   work cannot start before the read.
 * The clock fallback reads CLOCK_MONOTONIC_RAW in nanoseconds.
 */
#ifndef SB_TIMER_ASM_H
#define SB_TIMER_ASM_H

#include <stdint.h>
#include <time.h>

#ifdef SB_HAVE_X86_64
static inline uint64_t sb__tsc_start(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence"
                     : "=a"(lo), "=d"(hi)
                     :
                     : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t sb__tsc_stop(void)
{
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp\n\tlfence"
                     : "=a"(lo), "=d"(hi), "=c"(aux)
                     :
                     : "memory");
    (void)aux;
    return ((uint64_t)hi << 32) | lo;
}
#endif

static inline uint64_t sb__clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Read the run's timer: TSC when tsc != 0, else the clock. */
static inline uint64_t sb__timer_start(int tsc)
{
#ifdef SB_HAVE_X86_64
    if (tsc)
        return sb__tsc_start();
#endif
    (void)tsc;
    return sb__clock_ns();
}

static inline uint64_t sb__timer_stop(int tsc)
{
#ifdef SB_HAVE_X86_64
    if (tsc)
        return sb__tsc_stop();
#endif
    (void)tsc;
    return sb__clock_ns();
}

#endif
