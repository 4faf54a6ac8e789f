/*
 * timer.h: timer.c's internal functions, never installed; the inlined
 * timer reads are in arch/ticks.h.
 */
#ifndef SB_TIMER_H
#define SB_TIMER_H

#include "sb_internal.h"

/* The timed region of one sample: k calls of fn between two timer reads,
 * returning the raw tick difference.  Not inlined, so that the overhead
 * measured with k == 0 is that of the code every sample runs. */
uint64_t sb__timed_sample(int tsc, sb_kernel_fn fn, void *dst, const void *src,
                          size_t n, void *state, size_t k);

/* Calibrate the TSC's rate now, once per process (about 40 ms; nothing
 * when the TSC is unusable or already calibrated), so that later
 * sb_timer_init calls, in this process and its forks, reuse it. */
void sb__timer_calibrate_once(void);
/* Test hook: a test program that defines double sb__timer_cpuid_hz and
 * sets it above 0 makes the CPU report that TSC rate (as CPUID leaf 0x15
 * would), so that the rule between a CPUID rate and the calibration can
 * be tested on a machine whose CPU reports none (tests/test_timer.c).
 * Weak and hidden, like sb__counters_no_perf (counters.h): NULL in every
 * other program. */
#if defined(__GNUC__)
extern double sb__timer_cpuid_hz __attribute__((weak, visibility("hidden")));
#define SB__TIMER_CPUID_HZ (&sb__timer_cpuid_hz ? sb__timer_cpuid_hz : 0.0)
#else
#define SB__TIMER_CPUID_HZ 0.0
#endif

/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double sb__now(void);

#endif
