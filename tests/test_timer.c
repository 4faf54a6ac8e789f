/*
 * test_timer.c: the timer's choice, frequency and overhead.
 * No absolute time is asserted: only properties (positive, finite,
 * consistent) and relations between measurements taken in the same run,
 * with wide margins.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "timer.h"
#include "tap.h"
#include "timer_asm.h"

static volatile unsigned sink;

static void spin(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)state;
    for (size_t i = 0; i < n; i++)
        sink += (unsigned)i;
}

/* The least of 31 readings: timing noise only adds time (a preemption, an
 * interrupt), so the minimum is the reading least disturbed by a busy
 * machine. */
static double min_ticks(int tsc, size_t work, double overhead)
{
    double m = INFINITY;
    for (int i = 0; i < 31; i++) {
        double d = (double)sb__timed_sample(tsc, spin, NULL, NULL, work, NULL,
                                            1) - overhead;
        if (d < m)
            m = d;
    }
    return m;
}

static void check_timer(int force_clock)
{
    sb_timer_info t;
    sb_error err = {0};
    int rc = sb_timer_init(&t, force_clock, &err);
    const char *which = force_clock ? "clock" : "default";
    int tsc;

    TAP_IS_INT(rc, SB_OK, "%s timer initialises (%s)", which, err.text);
    if (rc != SB_OK)
        return;
    tsc = t.kind == SB_TIMER_TSC;
    tap_ok(t.hz > 0 && isfinite(t.hz), "%s timer: rate %.6g Hz (%s)", which,
           t.hz, t.hz_source);
    /* Two serialized TSC reads cost tens of ticks on any x86 (rdtscp
     * alone waits for every earlier instruction): an overhead of 0 would
     * mean it was never measured.  The clock's pair may round to 0 ns. */
    tap_ok(isfinite(t.overhead) && (tsc ? t.overhead > 0 : t.overhead >= 0),
           "%s timer: harness overhead %.1f ticks", which, t.overhead);
    tap_ok(isfinite(t.bare_overhead) &&
               (tsc ? t.bare_overhead > 0 : t.bare_overhead >= 0),
           "%s timer: bare pair %.1f ticks", which, t.bare_overhead);
    if (force_clock) {
        TAP_IS_INT(t.kind, SB_TIMER_CLOCK, "forced clock timer is the clock");
        TAP_IS_REL(t.hz, 1e9, 0, "clock timer counts nanoseconds");
    } else {
#ifdef SB_HAVE_X86_64
        tap_ok(t.kind == SB_TIMER_CLOCK ? t.reason[0] != '\0' : t.invariant,
               "TSC chosen only when invariant, else a reason is given "
               "(kind %d, reason '%s')", t.kind, t.reason);
#else
        TAP_IS_INT(t.kind, SB_TIMER_CLOCK, "no TSC off x86-64");
#endif
    }

    /* Ten times the work takes clearly more ticks than one unit.  The
     * margin (3x for 10x the work) leaves room for a preempted sample. */
    {
        double one = min_ticks(tsc, 20000, t.overhead);
        double ten = min_ticks(tsc, 200000, t.overhead);
        tap_ok(ten > 3 * one && one > 0,
               "%s timer: 10x the work reads more ticks (%.0f vs %.0f)",
               which, ten, one);
    }

    /* The rate agrees with CLOCK_MONOTONIC_RAW over a 20 ms window, within
     * 10%: the calibration found the rate this loop uses. */
    {
        uint64_t c0 = sb__clock_ns(), t0 = sb__timer_start(tsc), c1, t1;
        double ratio;
        do
            c1 = sb__clock_ns();
        while (c1 - c0 < 20000000u);
        t1 = sb__timer_stop(tsc);
        ratio = ((double)(t1 - t0) / t.hz) / ((double)(c1 - c0) * 1e-9);
        tap_ok(fabs(ratio - 1) < 0.10,
               "%s timer: ticks / rate match the clock (ratio %.4f)", which,
               ratio);
    }
}

/* The TSC's rate is calibrated once per process and kept (timer.c): a
 * second sb_timer_init gives exactly the same rate.  Two calibrations
 * would differ in their last digits; a rate from CPUID is the same
 * anyway, so only a calibrated one shows the cache. */
static void check_rate_kept(void)
{
    sb_timer_info a, b;
    if (sb_timer_init(&a, 0, NULL) != SB_OK ||
        sb_timer_init(&b, 0, NULL) != SB_OK || a.kind != SB_TIMER_TSC) {
        tap_skip("the calibrated rate is kept: no TSC here");
        return;
    }
    tap_ok(a.hz == b.hz && !strcmp(a.hz_source, b.hz_source),
           "the TSC rate is kept for the process (%.6f MHz, %s; then "
           "%.6f MHz)", a.hz / 1e6, a.hz_source, b.hz / 1e6);
}

int main(void)
{
    sb_init();
    check_timer(0);
    check_timer(1);
    check_rate_kept();
    return tap_done();
}
