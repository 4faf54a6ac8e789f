/*
 * timer.c: choose the timer, find its frequency, measure its overhead.
 *
 * The architecture's counter (the TSC on x86-64) is used when
 * sb__arch_ticks_usable says it can time a run (src/arch/).  The rate the
 * CPU states (sb__arch_ticks_hz) is always cross-checked by a calibration
 * against CLOCK_MONOTONIC_RAW; a stated rate more than 0.5% away from the
 * calibrated one is not trusted.  Without a usable counter the timer falls
 * back to clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "timer.h"
#include "arch/arch.h"
#include "arch/ticks.h"
#include "stats_internal.h"

double sb__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((noinline)) uint64_t
sb__timed_sample(int tsc, sb_kernel_fn fn, void *dst, const void *src,
                 size_t n, void *state, size_t k)
{
    uint64_t t0 = sb__timer_start(tsc);
    for (size_t i = 0; i < k; i++)
        fn(dst, src, n, state);
    return sb__timer_stop(tsc) - t0;
}

static void empty_kernel(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)n, (void)state;
}

enum { OVERHEAD_REPS = 2001 };

/* Median ticks of a bare back-to-back pair of timer reads. */
static double bare_pair(int tsc)
{
    double *d = malloc(OVERHEAD_REPS * sizeof *d);
    double m;
    if (!d)
        return NAN;
    for (size_t i = 0; i < OVERHEAD_REPS; i++) {
        uint64_t t0 = sb__timer_start(tsc);
        d[i] = (double)(sb__timer_stop(tsc) - t0);
    }
    m = sb__median_inplace(d, OVERHEAD_REPS);
    free(d);
    return m;
}

/* Median ticks of the sample harness with zero kernel calls. */
static double harness_overhead(int tsc)
{
    double *d = malloc(OVERHEAD_REPS * sizeof *d);
    double m;
    /* Passing k through a volatile keeps the compiler from knowing it is 0. */
    volatile size_t k = 0;
    if (!d)
        return NAN;
    for (size_t i = 0; i < OVERHEAD_REPS; i++)
        d[i] = (double)sb__timed_sample(tsc, empty_kernel, NULL, NULL, 0,
                                        NULL, k);
    m = sb__median_inplace(d, OVERHEAD_REPS);
    free(d);
    return m;
}

/* The counter's rate as the CPU states it, or 0 when it does not say;
 * the test hook stands in for the CPU. */
static double stated_hz(const char **source)
{
    if (SB__TIMER_CPUID_HZ > 0) {
        *source = "cpuid 0x15 (test)";
        return SB__TIMER_CPUID_HZ;
    }
    return sb__arch_ticks_hz(source);
}

/* Ticks per second of the counter, against CLOCK_MONOTONIC_RAW over ~40 ms;
 * the median of three windows resists a preemption in one of them. */
static double calibrate_hz(int tsc)
{
    double r[3];
    for (int i = 0; i < 3; i++) {
        uint64_t c0 = sb__clock_ns(), t0 = sb__timer_start(tsc), c1, t1;
        do {
            c1 = sb__clock_ns();
        } while (c1 - c0 < 13000000u);
        t1 = sb__timer_stop(tsc);
        r[i] = (double)(t1 - t0) * 1e9 / (double)(c1 - c0);
    }
    return sb__median_inplace(r, 3);
}

/* The calibrated counter rate, once per process (0: not yet).  The rate
 * of a usable counter (an invariant TSC on x86-64) does not change, and
 * the 40 ms a calibration takes were most of a short run's budget when
 * every forked invocation paid them (--max-time 0.5 measured 0.14 s):
 * sb_run_execute_new calibrates in the parent before its first fork, and
 * the invocations inherit the rate.  An atomic, not a lock: a fork while
 * another thread held a lock would leave it held in the child; two
 * threads calibrating at once both store a good rate. */
static _Atomic double calibrated;

static double calibrated_hz(void)
{
    double hz = calibrated;
    if (!(hz > 0)) {
        hz = calibrate_hz(1);
        calibrated = hz;
    }
    return hz;
}

void sb__timer_calibrate_once(void)
{
    char why[128];
    if (sb__arch_ticks_usable(why, sizeof why))
        (void)calibrated_hz();
}

/* The layouts of sb_timer_info a caller may have, the current first (a
 * field added later goes at the end, and the size before it stays
 * here). */
static const size_t timer_sizes[] = {sizeof(sb_timer_info)};

/* sb_timer_init into the library's whole struct. */
static int timer_init(sb_timer_info *out, int force_clock, sb_error *err)
{
    struct timespec ts;

    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
        return sb__error(err, SB_ESYS, "clock_gettime(CLOCK_MONOTONIC_RAW) "
                                       "failed");
    out->kind = SB_TIMER_CLOCK;
    out->hz = 1e9;
    out->hz_source = "nanoseconds";
    if (force_clock) {
        snprintf(out->reason, sizeof out->reason, "clock timer requested");
    } else if (sb__arch_ticks_usable(out->reason, sizeof out->reason)) {
        const char *src = NULL;
        double cal = calibrated_hz(), id = stated_hz(&src);
        out->kind = SB__TICKS_KIND;
        out->invariant = 1;
        if (id > 0 && fabs(id - cal) <= 0.005 * cal) {
            out->hz = id;
            out->hz_source = src;
        } else {
            out->hz = cal;
            out->hz_source = id > 0 ? SB__TICKS_RATE_DISAGREED
                                    : "calibrated against CLOCK_MONOTONIC_RAW";
        }
    }
    {
        int tsc = out->kind != SB_TIMER_CLOCK;
        /* Warm the code paths, then measure. */
        (void)harness_overhead(tsc);
        out->bare_overhead = bare_pair(tsc);
        out->overhead = harness_overhead(tsc);
    }
    if (!(out->hz > 0) || !isfinite(out->overhead))
        return sb__error(err, SB_ESYS, "timer calibration failed");
    return SB_OK;
}

int sb_timer_init(sb_timer_info *out, int force_clock, sb_error *err)
{
    sb_timer_info full;
    size_t size;
    int rc;

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "sb_timer_init: out is NULL");
    size = sb__out_size_of(out);
    if ((rc = sb__out_size(size, timer_sizes,
                           sizeof timer_sizes / sizeof *timer_sizes,
                           "sb_timer_info", "sb_timer_init", err)) != SB_OK)
        return rc;
    rc = timer_init(&full, force_clock, err);
    sb__out_put(out, size, &full);
    return rc;
}
