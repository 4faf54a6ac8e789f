/*
 * timer.c: choose the timer, find its frequency, measure its overhead.
 *
 * The TSC is used when the CPU has rdtscp and an invariant TSC (constant
 * rate through P- and C-states, CPUID 0x80000007 EDX bit 8).  Its rate comes
 * from CPUID leaf 0x15 (crystal clock times the TSC/crystal ratio) when the
 * CPU fills it, from the hypervisor's timing leaf 0x40000010 under KVM or
 * VMware when present, and is always cross-checked by a calibration against
 * CLOCK_MONOTONIC_RAW; a CPUID rate more than 0.5% away from the calibrated
 * one is not trusted.  Without a usable TSC the timer falls back to
 * clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#ifdef SB_HAVE_X86_64
#include <cpuid.h>
#endif

#include "timer.h"
#include "timer_asm.h"
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

#ifdef SB_HAVE_X86_64
/* TSC rate from CPUID, or 0 when the CPU does not say. */
static double cpuid_tsc_hz(const char **source)
{
    unsigned a, b, c, d, max;

    if (SB__TIMER_CPUID_HZ > 0) {
        *source = "cpuid 0x15 (test)";
        return SB__TIMER_CPUID_HZ;
    }
    __cpuid(0, max, b, c, d);
    if (max >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        if (a && b && c) {
            *source = "cpuid 0x15";
            return (double)c * b / a;
        }
    }
    __cpuid(1, a, b, c, d);
    if (c & (1u << 31)) { /* running under a hypervisor */
        __cpuid(0x40000000, max, b, c, d);
        if (max >= 0x40000010) {
            __cpuid(0x40000010, a, b, c, d);
            if (a) {
                *source = "hypervisor leaf 0x40000010";
                return (double)a * 1000.0;
            }
        }
    }
    return 0;
}

static int tsc_usable(char *reason, size_t len)
{
    unsigned a, b, c, d;

    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) {
        snprintf(reason, len, "no TSC");
        return 0;
    }
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) {
        snprintf(reason, len, "no rdtscp instruction");
        return 0;
    }
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) {
        snprintf(reason, len,
                 "TSC is not invariant (its rate follows the CPU clock)");
        return 0;
    }
    return 1;
}
#endif

#ifdef SB_HAVE_X86_64
/* Ticks per second of the TSC, against CLOCK_MONOTONIC_RAW over ~40 ms;
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

/* The calibrated TSC rate, once per process (0: not yet).  The rate of
 * an invariant TSC (tsc_usable demands one) does not change, and the 40
 * ms a calibration takes were most of a short run's budget when every
 * forked invocation paid them (--max-time 0.5 measured 0.14 s): sb_run_execute_new calibrates in the parent before its first fork, and
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
#endif

void sb__timer_calibrate_once(void)
{
#ifdef SB_HAVE_X86_64
    char why[128];
    if (tsc_usable(why, sizeof why))
        (void)calibrated_hz();
#endif
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
#ifdef SB_HAVE_X86_64
    if (force_clock) {
        snprintf(out->reason, sizeof out->reason, "clock timer requested");
    } else if (tsc_usable(out->reason, sizeof out->reason)) {
        const char *src = NULL;
        double cal = calibrated_hz(), id = cpuid_tsc_hz(&src);
        out->kind = SB_TIMER_TSC;
        out->invariant = 1;
        if (id > 0 && fabs(id - cal) <= 0.005 * cal) {
            out->hz = id;
            out->hz_source = src;
        } else {
            out->hz = cal;
            out->hz_source = id > 0 ? "calibrated (CPUID rate disagreed)"
                                    : "calibrated against CLOCK_MONOTONIC_RAW";
        }
    }
#else
    (void)force_clock;
    snprintf(out->reason, sizeof out->reason,
             "no TSC reader for this architecture");
#endif
    {
        int tsc = out->kind == SB_TIMER_TSC;
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
