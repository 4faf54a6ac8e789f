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
 * An architecture without a counter reader here reads the clock for
 * both (it is never asked: sb__arch_ticks_usable says no).  Every build
 * has the clock: CLOCK_MONOTONIC_RAW in nanoseconds.
 */
#ifndef SB_ARCH_TICKS_H
#define SB_ARCH_TICKS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t sb__clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
