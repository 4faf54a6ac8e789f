/*
 * test_probe.c: the clock probe, the contention probe and the wait for
 * the CPU (src/machine/probe.c, measure.c).
 *
 *  - The arithmetic on simulated tick streams (fixed seed): a TSC at
 *    2.1 GHz, a core that steps from 2.79 to 2.99 GHz in the middle of a
 *    run and once inside a sample; each chain's ticks are its cycles at
 *    the simulated clock, plus the timer pair's overhead, plus integer
 *    rounding and a tick of jitter either way.  The reference is the
 *    simulation's own clock, not the code under test.
 *  - The start-up check on simulated chain timings: agreement, the
 *    folded add r64, imm seen on an Intel host (0.54 cycles per add), a 4-cycle
 *    imul, the tolerance's edges.
 *  - Contention on simulated probe values (fixed seeds) of three
 *    shapes: an Intel-like mode with 5% contended samples (the quiet
 *    level within 0.5% of the simulated mode, every contended sample
 *    flagged), the recorded Zen 3 host's (4% quiet, 96% shared, a few
 *    low values from disturbed chains: the quiet mode found), a mode on
 *    a lattice (the margin keeps it whole); the online model's rules
 *    (a calibration replaced, a level that contention cannot raise, a
 *    prior kept) and the prior between invocations.  The recorded hosts
 *    themselves are replayed by tests/test_replay.c.
 *  - /proc/PID/schedstat parsing, hostile text included.
 *  - The cpu-wait and shared-core reasons through the real measuring path
 *    with the test hook sb__probe_force (a real disturbance may not
 *    happen during a test): rejected under their own names, kept and
 *    flagged under --reject none, a cell whose every sample was
 *    contended named in the notes.
 *  - The wait for a quiet core after a shared-core sample: none when
 *    nothing is rejected, some after forced rejects, and at most half
 *    the budget when the core never turns quiet (hook bit 7), the rest
 *    of which still takes samples.
 *  - A hog pinned to the run's CPU: the run completes, rejects add up,
 *    no kept sample carries a rejected reason, the interval holds its
 *    estimate.  True whether or not the hog collided with a sample.
 *  - The probes' figures through the JSON and back, and hostile values.
 *  - The clock probe refused (the hook again): every clock unknown, the
 *    reason said, the contention probe in ticks.
 *  - On a machine with PAPI_TOT_CYC, the chain's cycles against the
 *    counter within 1% (skipped where the counter is absent, as in most
 *    virtual machines).
 *
 * No absolute time is asserted.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#ifdef SB_HAVE_PAPI
#include <papi.h>
#endif

#include "arch/arch.h"
#include "probe.h"
#include "statbench.h"
#include "tap.h"
#include "report_text.h"

int sb__probe_force; /* the test hook (probe.h) */

#define HZ 2.1e9
#define OVERHEAD 54.0

/* Raw ticks of a chain of `cycles` at core clock f (Hz), as the timer
 * would read them: rounded to whole ticks, with a tick of jitter either
 * way. */
static double chain_ticks(gsl_rng *r, double cycles, double f)
{
    return floor(cycles * HZ / f + OVERHEAD +
                 (double)gsl_rng_uniform_int(r, 3) - 1 + 0.5);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void test_arithmetic(void)
{
    enum { N = 1000, STEP = 500 };
    const double f0 = 2.79e9, f1 = 2.99e9, cycles = 3.0 * 512;
    double c[N], a[STEP], b[N - STEP - 1];
    size_t bad0 = 0, bad1 = 0;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    gsl_rng_set(r, 12);
    for (int i = 0; i < N; i++) {
        double fb = i <= STEP ? f0 : f1; /* the step inside sample STEP */
        double fa = i < STEP ? f0 : f1;
        c[i] = sb__probe_sample_clock(cycles, chain_ticks(r, cycles, fb),
                                      chain_ticks(r, cycles, fa), OVERHEAD);
    }
    for (int i = 0; i < N; i++) {
        double want = (i < STEP ? f0 : f1) / HZ;
        if (i == STEP)
            continue;
        if (fabs(c[i] / want - 1) > 0.002)
            *(i < STEP ? &bad0 : &bad1) += 1;
        if (i < STEP)
            a[i] = c[i];
        else
            b[i - STEP - 1] = c[i];
    }
    TAP_IS_INT(bad0, 0, "before the step every sample's clock is within "
               "0.2%% of the simulated %.4f", f0 / HZ);
    TAP_IS_INT(bad1, 0, "after it within 0.2%% of %.4f", f1 / HZ);
    /* Whole ticks: the median sits on a lattice 1/2158 = 0.05% apart. */
    TAP_IS_REL(median(a, STEP), f0 / HZ, 0.001,
               "the median clock before the step, within 0.1%%");
    TAP_IS_REL(median(b, N - STEP - 1), f1 / HZ, 0.001,
               "the median clock after the step, within 0.1%%");
    tap_ok(c[STEP] > f0 / HZ * 1.01 && c[STEP] < f1 / HZ * 0.99,
           "the sample holding the step lies between the states (%.4f)",
           c[STEP]);
    /* The two states are told apart: 7% apart, far beyond the spread. */
    tap_ok(c[STEP - 1] < c[STEP + 1], "and the states are told apart");

    /* Overhead subtracted: a chain timed at exactly cycles/clock plus
     * the overhead gives the clock back. */
    TAP_IS_REL(sb__probe_clock(1536, 1536 / 1.4 + OVERHEAD, OVERHEAD), 1.4,
               1e-12, "clock = cycles / (ticks - overhead)");
    tap_ok(isnan(sb__probe_clock(1536, OVERHEAD, OVERHEAD)) &&
               isnan(sb__probe_clock(1536, 10, OVERHEAD)) &&
               isnan(sb__probe_clock(1536, NAN, OVERHEAD)) &&
               isnan(sb__probe_clock(0, 1000, OVERHEAD)),
           "no clock from ticks not above the overhead, NAN or no cycles");
    TAP_IS_REL(sb__probe_sample_clock(1536, 1536 / 1.4 + OVERHEAD, NAN,
                                      OVERHEAD),
               1.4, 1e-12, "one side unknown: the other's clock");
    TAP_IS_REL(sb__probe_sample_clock(1000, 1000 / 1.0 + OVERHEAD,
                                      1000 / 1.25 + OVERHEAD, OVERHEAD),
               2000.0 / 1800.0, 1e-12,
               "two sides: total cycles over total ticks");
    /* One chain disturbed (an interrupt, the host taking the vCPU): 20
     * times slower, on either side, the other chain's clock stands; 1.4
     * times apart (within the host's 30% of clock states) is still a
     * clock change, averaged. */
    TAP_IS_REL(sb__probe_sample_clock(1536, 1536 / 1.4 + OVERHEAD,
                                      20 * 1536 / 1.4 + OVERHEAD, OVERHEAD),
               1.4, 1e-12, "the after chain 20x slow: the before's clock");
    TAP_IS_REL(sb__probe_sample_clock(1536, 20 * 1536 / 1.4 + OVERHEAD,
                                      1536 / 1.4 + OVERHEAD, OVERHEAD),
               1.4, 1e-12, "the before chain 20x slow: the after's clock");
    TAP_IS_REL(sb__probe_sample_clock(1000, 1000 / 1.4 + OVERHEAD,
                                      1000 / 1.0 + OVERHEAD, OVERHEAD),
               2000.0 / (1000 / 1.4 + 1000), 1e-12,
               "1.4 times apart: a clock change, averaged");
    gsl_rng_free(r);
}

static void test_validate(void)
{
    char why[200];
    double add = 0.7; /* ticks per add op */

    tap_ok(sb__probe_validate(3 * add, add, SB__PROBE_TOLERANCE, why,
                              sizeof why),
           "imul = 3 adds: the probe is accepted (%s)", why);
    tap_ok(sb__probe_validate(3 * add * 1.029, add, 0.03, NULL, 0),
           "2.9%% off: within the 3%% tolerance");
    tap_ok(!sb__probe_validate(3 * add * 1.031, add, 0.03, NULL, 0),
           "3.1%% off: refused");
    /* An Intel host: add r64, imm folded at rename, 0.54 cycles per add. */
    tap_ok(!sb__probe_validate(3 * add, 0.54 * add, SB__PROBE_TOLERANCE, why,
                               sizeof why) &&
               strstr(why, "5.556") != NULL,
           "a folded add chain refuses the probe, the ratio said (%s)",
           why);
    tap_ok(!sb__probe_validate(4 * add, add, SB__PROBE_TOLERANCE, why,
                               sizeof why),
           "a 4-cycle imul refuses it (%s)", why);
    tap_ok(!sb__probe_validate(NAN, add, 0.03, why, sizeof why) &&
               !sb__probe_validate(3 * add, 0, 0.03, NULL, 0) &&
               !sb__probe_validate(-1, add, 0.03, NULL, 0),
           "untimed chains refuse it (%s)", why);
}

/* n draws of a normal mode at level with relative sigma sd. */
static void draw_mode(gsl_rng *r, double *x, size_t n, double level,
                      double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = level * (1 + gsl_ran_gaussian(r, sd));
}

static size_t count_above(const double *x, size_t n, double t)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += x[i] > t;
    return c;
}

static void test_contention(void)
{
    enum { N = 1000, HOT = 50 };
    double v[N], w[N], lev, mg, jit;
    size_t flagged = 0, missed = 0, wrong = 0;
    int hot[N] = {0};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    gsl_rng_set(r, 7);
    /* An Intel-like host (figures of a recorded one): quiet at 32.7 core cycles
     * per rep, sd 0.3; contended samples 6% to 70% slower. */
    for (int i = 0; i < N; i++) {
        hot[i] = i % (N / HOT) == 3;
        v[i] = hot[i] ? 32.7 * (1.06 + 0.64 * gsl_rng_uniform(r))
                      : 32.7 + gsl_ran_gaussian(r, 0.3);
        w[i] = v[i];
    }
    TAP_IS_INT(sb__probe_model(w, N, &lev, &mg, &jit), N, "all 1000 used");
    TAP_IS_REL(lev, 32.7, 0.005, "quiet level within 0.5%% of the mode's "
               "32.7 (%.3f)", lev);
    /* sd 0.3 / 32.7 = 0.92%: the lower side's estimate within a third. */
    TAP_IS_REL(jit, 0.3 / 32.7, 0.34, "the mode's jitter from its lower "
               "side: %.4f against 0.0092", jit);
    tap_ok(mg >= 4 * 0.3 / 32.7 * 0.66 && mg < 0.06,
           "margin %.3f: about 4 sigmas, below the 6%% of the contention",
           mg);
    for (int i = 0; i < N; i++) {
        int c = sb__probe_contended(v[i], lev, mg);
        flagged += (size_t)c;
        missed += hot[i] && !c;
        wrong += !hot[i] && c;
    }
    TAP_IS_INT(missed, 0, "every contended sample flagged (%zu)", flagged);
    tap_ok(wrong <= 2, "at most 2 of 950 quiet ones flagged (%zu)", wrong);

    /* The recorded Zen 3 host's shape: 4% quiet at 132.4 (sd 0.4%), 96%
     * shared at 250-330, and five low values from disturbed chains
     * (17-60): the mode is the quiet one, not the lowest values nor the
     * crowd, and every shared value lies beyond the margin. */
    draw_mode(r, v, 40, 132.4, 0.004);
    for (int i = 40; i < 995; i++)
        v[i] = 250 + 80 * gsl_rng_uniform(r);
    for (int i = 995; i < N; i++)
        v[i] = 17 + 43 * gsl_rng_uniform(r);
    memcpy(w, v, sizeof w);
    sb__probe_model(w, N, &lev, &mg, NULL);
    TAP_IS_REL(lev, 132.4, 0.01, "a core shared 96%% of the time: the "
               "quiet mode found (%.1f), not the low values", lev);
    TAP_IS_INT(count_above(v, N, lev * (1 + mg)), 955,
               "every shared value beyond the margin (%.3f)", mg);

    /* A mode on the clock conversion's lattice (seen here): 66.0, 66.6,
     * 67.3, 68.0 in falling numbers, no value in between, and shared
     * values at 99-145.  Sigma from the lower side is 0; the valley keeps
     * the whole mode. */
    {
        static const double lat[4] = {66.0, 66.6, 67.3, 68.0};
        static const size_t cnt[4] = {400, 300, 100, 30};
        size_t k = 0;
        for (int j = 0; j < 4; j++)
            for (size_t i = 0; i < cnt[j]; i++)
                v[k++] = lat[j];
        while (k < N)
            v[k++] = 99 + 46 * gsl_rng_uniform(r);
        memcpy(w, v, sizeof w);
        sb__probe_model(w, N, &lev, &mg, &jit);
        tap_ok(lev >= 66.0 && lev <= 66.6, "lattice: level %.1f", lev);
        tap_ok(lev * (1 + mg) >= 68.0 && lev * (1 + mg) < 99,
               "lattice: the margin (%.3f, sigma %.4f) keeps 68.0 and "
               "none of the shared", mg, jit);
    }
    /* A statbench run's probes on the Intel Xeon guest of the recorded
     * hosts: the quiet mode (here 40%, at 67.4, sd 1.5%) runs into a
     * shared core's values without a valley (60%, 1.05 to 2.1 times the
     * level, most near the mode), where the copies it slows run 5-15%
     * slower.  The valley lies past the ceiling; the margin is capped
     * at twice the sigma rule's, 8 sigmas, so that a shared core of +12%
     * is not taken for quiet. */
    draw_mode(r, v, 400, 67.4, 0.015);
    for (int i = 400; i < N; i++) {
        double u = gsl_rng_uniform(r);
        v[i] = 67.4 * (1.05 + 1.05 * u * u);
    }
    memcpy(w, v, sizeof w);
    sb__probe_model(w, N, &lev, &mg, &jit);
    TAP_IS_REL(lev, 67.4, 0.01, "no valley: the quiet level (%.1f)", lev);
    tap_ok(mg >= 4 * 0.015 * 0.66 && mg <= 8 * 0.015 * 1.34,
           "no valley: margin %.3f within 4 to 8 sigmas (sigma %.4f), "
           "not the ceiling's %.2f", mg, jit, SB__PROBE_MODEL_CEIL);
    {
        double x[20], y[3] = {NAN, 5, -1};
        for (int i = 0; i < 20; i++)
            x[i] = 100;
        sb__probe_model(x, 20, &lev, &mg, NULL);
        tap_ok(lev == 100 && fabs(mg - SB__PROBE_MODEL_FLOOR) < 1e-12,
               "20 equal values: their level, the floor's margin (%.3f)",
               mg);
        tap_ok(sb__probe_model(x, 15, &lev, &mg, NULL) == 15 &&
                   isnan(lev) && isnan(mg),
               "15 values: too few, NAN");
        tap_ok(sb__probe_model(y, 3, &lev, &mg, NULL) == 1,
               "NANs and values <= 0 skipped");
    }
    tap_ok(!sb__probe_contended(NAN, 30, 0.05) &&
               !sb__probe_contended(40, NAN, 0.05) &&
               sb__probe_contended(31.6, 30, 0.05) &&
               !sb__probe_contended(31.4, 30, 0.05),
           "the margin's edge; unknown values are never contended");
    gsl_rng_free(r);
}

/* n values of a mode at level (relative sd 0.4%) into q. */
static void feed_mode(sb__quiet *q, gsl_rng *r, size_t n, double level)
{
    for (size_t i = 0; i < n; i++)
        sb__quiet_add(q, level * (1 + gsl_ran_gaussian(r, 0.004)));
}

/* n values of a shared core (120-140) into q. */
static void feed_shared(sb__quiet *q, gsl_rng *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb__quiet_add(q, 120 + 20 * gsl_rng_uniform(r));
}

/* The online model (sb__quiet) and the prior between invocations. */
static void test_quiet_state(void)
{
    enum { CAP = 512 };
    double ring[CAP], work[CAP];
    sb__quiet q;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    gsl_rng_set(r, 11);
    /* A calibration far above the samples' conditions is replaced at
     * the first fit. */
    sb__quiet_init(&q, ring, work, CAP, 0);
    sb__quiet_seed(&q, 130, 0.02, 0);
    feed_mode(&q, r, 32, 66.3);
    TAP_IS_REL(q.level, 66.3, 0.01, "the first fit replaces the "
               "calibration (%.1f)", q.level);
    /* A stretch of contention does not raise the level. */
    feed_shared(&q, r, 1024);
    TAP_IS_REL(q.level, 66.3, 0.01, "1024 shared values later: still "
               "%.1f", q.level);
    /* A prior holds against an invocation on a shared core throughout. */
    sb__quiet_init(&q, ring, work, CAP, 0);
    sb__quiet_seed(&q, 66.3, 0.03, 1);
    feed_shared(&q, r, 1024);
    TAP_IS_REL(q.level, 66.3, 0, "a prior of 66.3: kept through 1024 "
               "shared values");
    tap_ok(q.margin == 0.03, "and its margin (%.3f)", q.margin);
    /* ... and the same mode, measured, brings its margin. */
    feed_mode(&q, r, 1024, 66.5);
    tap_ok(q.level <= 66.3 && q.margin != 0.03,
           "the quiet mode measured after it: level %.2f, margin %.3f",
           q.level, q.margin);
    /* A prior below a third of what the invocation sees is a wrong
     * figure (a corrupt profile), not a quieter core: ignored, lest every
     * sample be rejected; the invocation reports its own level. */
    sb__quiet_init(&q, ring, work, CAP, 0);
    sb__quiet_seed(&q, 1.0, 0.03, 1);
    feed_mode(&q, r, 64, 66.3);
    TAP_IS_REL(q.level, 66.3, 0.01, "a prior of 1.0 beside a mode at 66.3: "
               "ignored (%.1f)", q.level);
    /* ... while a prior of 66.3 beside an invocation shared throughout
     * decides, and the invocation reports what it saw. */
    sb__quiet_init(&q, ring, work, CAP, 0);
    sb__quiet_seed(&q, 66.3, 0.03, 1);
    feed_shared(&q, r, 64);
    tap_ok(q.level == 66.3 && q.own_level > 115,
           "shared throughout: decided at the prior, own level %.1f "
           "reported", q.own_level);
    /* The floor (ticks without a clock). */
    sb__quiet_init(&q, ring, work, CAP, 0.15);
    feed_mode(&q, r, 64, 66.3);
    tap_ok(q.margin == 0.15, "min_margin floors the fits (%.3f)", q.margin);
    {
        double a[3] = {60.0, 66.3, 66.9}, b[2] = {60, 66.3};
        double c[4] = {NAN, 66.3, 66.4, 0};
        TAP_IS_REL(sb__quiet_prior(a, 3, 0.02), 66.3, 0,
                   "prior: the lowest level another confirms, not a lone "
                   "low one");
        tap_ok(isnan(sb__quiet_prior(b, 2, 0.02)) &&
                   isnan(sb__quiet_prior(a, 1, 0.5)) &&
                   isnan(sb__quiet_prior(a, 0, 0.5)),
               "no prior without two levels that agree");
        TAP_IS_REL(sb__quiet_prior(c, 4, 0.01), 66.3, 0,
                   "unknown and non-positive levels skipped");
    }
    gsl_rng_free(r);
}

static void test_schedstat(void)
{
    uint64_t d = 7;
    tap_ok(sb__probe_parse_schedstat("123456 789 42\n", &d) == 0 && d == 789,
           "run_delay is the second field");
    tap_ok(sb__probe_parse_schedstat("1 18446744073709551615 3", &d) == 0 &&
               d == UINT64_MAX,
           "the largest value");
    d = 7;
    tap_ok(sb__probe_parse_schedstat("", &d) != 0 &&
               sb__probe_parse_schedstat("abc", &d) != 0 &&
               sb__probe_parse_schedstat("12", &d) != 0 &&
               sb__probe_parse_schedstat("12 x 3", &d) != 0 &&
               sb__probe_parse_schedstat("12 -5 3", &d) != 0 &&
               sb__probe_parse_schedstat("12 99999999999999999999 3", &d) !=
                   0 &&
               sb__probe_parse_schedstat("12 5x 3", &d) != 0 && d == 7,
           "hostile text refused, the value untouched");
}

static void options(sb_measure_options *o, int reject)
{
    sb_measure_options_init(o);
    o->invocations = 1;
    o->min_samples = o->max_samples = 120;
    o->max_time = 10;
    o->reject = reject;
}

/* The run of one libc cell of size bytes under o: NULL, with *e saying
 * why, when it fails. */
static sb_run *libc_run(const sb_measure_options *o, size_t size,
                        sb_error *e)
{
    sb_plan *plan = sb_plan_new();
    sb_run *run = NULL;

    sb_plan_add(plan, sb_kernel_find("libc"), size, 0, 0, NULL);
    if (sb_run_execute_new(plan, o, NULL, &run, e) != SB_OK)
        run = NULL;
    sb_plan_free(plan);
    return run;
}

/* A run of one libc 256-byte cell in invocations invocations with the
 * hook set to force, reading counters (NULL: the defaults). */
static sb_run *forced_run_n(int force, int reject, size_t invocations,
                            const char *counters)
{
    sb_measure_options o;
    sb_run *run;
    sb_error e = {0};

    options(&o, reject);
    o.invocations = o.max_invocations = invocations;
    o.counters = counters;
    sb__probe_force = force;
    if (!(run = libc_run(&o, 256, &e)))
        tap_diag("run: %s", e.text);
    sb__probe_force = 0;
    return run;
}

static sb_run *forced_run(int force, int reject)
{
    return forced_run_n(force, reject, 1, NULL);
}

static size_t taken(const sb_cell_result *r)
{
    return r->nsamples + r->rejected_total - r->rejected[SB_REJECT_OUTLIER];
}

static void test_forced(void)
{
    sb_run *run;
    const sb_cell_result *r;
    const unsigned char *fl;
    size_t n, wait = 0, shared = 0, other = 0, kept_shared = 0;

    tap_ok(sb_reject_parse("cpu-wait") == SB_REJECT_CPU_WAIT &&
               sb_reject_parse("shared-core") == SB_REJECT_SHARED_CORE &&
               !strcmp(sb_reject_name(SB_REJECT_CPU_WAIT), "cpu-wait") &&
               !strcmp(sb_reject_name(SB_REJECT_SHARED_CORE), "shared-core"),
           "the two reasons by name");

    /* Default policy: every other sample waited, every third shared. */
    run = forced_run(1 | 4, SB_REJECT_DISTURBED);
    if (tap_ok(run != NULL, "a run with a wait beside every other sample")) {
        r = sb_run_cell(run, 0);
        tap_ok(r->disturbed[SB_REJECT_CPU_WAIT] >= taken(r) / 2,
               "half the samples waited (%zu of %zu)",
               r->disturbed[SB_REJECT_CPU_WAIT], taken(r));
        TAP_IS_INT(r->rejected[SB_REJECT_CPU_WAIT],
                   r->disturbed[SB_REJECT_CPU_WAIT],
                   "each rejected under cpu-wait, which counts first");
        tap_ok(r->nsamples > 0, "the rest kept (%zu)", r->nsamples);
        sb_run_free(run);
    }
    run = forced_run(2 | 8, SB_REJECT_DISTURBED);
    if (tap_ok(run != NULL, "a run with a shared core beside every third "
                            "sample")) {
        r = sb_run_cell(run, 0);
        tap_ok(r->disturbed[SB_REJECT_SHARED_CORE] >= taken(r) / 3,
               "a third contended (%zu of %zu)",
               r->disturbed[SB_REJECT_SHARED_CORE], taken(r));
        /* A real shared core adds to the forced third; when it takes
         * every sample, the refill keeps its later ones, flagged. */
        fl = sb_run_sample_flags(run, 0);
        for (size_t i = 0; fl && i < r->nsamples; i++)
            kept_shared += (fl[i] & (1u << SB_REJECT_SHARED_CORE)) != 0;
        tap_ok(r->rejected[SB_REJECT_SHARED_CORE] +
                       r->rejected[SB_REJECT_CTXSW] +
                       r->rejected[SB_REJECT_MIGRATION] +
                       r->rejected[SB_REJECT_CPU_WAIT] +
                       r->rejected[SB_REJECT_INTERRUPT] + kept_shared >=
                   r->disturbed[SB_REJECT_SHARED_CORE],
               "each rejected, under shared-core unless a stronger "
               "reason came with it (or kept by the refill: %zu)",
               kept_shared);
        tap_ok(r->rejected[SB_REJECT_SHARED_CORE] > 0 &&
                   r->rejected[SB_REJECT_SHARED_CORE] <=
                       r->disturbed[SB_REJECT_SHARED_CORE],
               "counted under shared-core (%zu)",
               r->rejected[SB_REJECT_SHARED_CORE]);
        for (size_t i = 0; fl && i < r->nsamples; i++)
            other += (fl[i] & ~(1u << SB_REJECT_INTERRUPT |
                                1u << SB_REJECT_SHARED_CORE)) != 0;
        TAP_IS_INT(other, 0, "no kept sample carries a rejected reason "
                             "(but a shared core, from the refill)");
        if (sb__arch_have_chains()) {
            tap_ok(isfinite(sb_run_meta(run)->contended_share) &&
                       sb_run_meta(run)->contended_share >= 0.3,
                   "the header's share of contended samples (%.3f)",
                   sb_run_meta(run)->contended_share);
        } else {
            /* The share is of a contention probe's verdicts, against its
             * quiet level: a build without the probe measured none, and
             * the samples the hook flagged make no figure of it.  The
             * header says nothing rather than a made-up share. */
            char *text = report_text(run, SB_FORMAT_TABLE);
            tap_ok(isnan(sb_run_meta(run)->contended_share) && text &&
                       !strstr(text, "of samples contended"),
                   "no contention probe on this architecture: the "
                   "header's share of contended samples unknown (%.3f), "
                   "left out of the table",
                   sb_run_meta(run)->contended_share);
            free(text);
        }
        sb_run_free(run);
    }

    /* --reject none: both kept, flagged one by one. */
    run = forced_run(1 | 2 | 4, SB_REJECT_NONE);
    if (tap_ok(run != NULL, "--reject none with both forced")) {
        r = sb_run_cell(run, 0);
        n = r->nsamples;
        fl = sb_run_sample_flags(run, 0);
        for (size_t i = 0; fl && i < n; i++) {
            wait += (fl[i] >> SB_REJECT_CPU_WAIT) & 1;
            shared += (fl[i] >> SB_REJECT_SHARED_CORE) & 1;
        }
        TAP_IS_INT(r->rejected_total, 0, "nothing rejected");
        tap_ok(wait >= n / 2 && wait == r->disturbed[SB_REJECT_CPU_WAIT],
               "cpu-wait kept and flagged (%zu of %zu)", wait, n);
        tap_ok(shared >= n / 2 &&
                   shared == r->disturbed[SB_REJECT_SHARED_CORE],
               "shared-core kept and flagged (%zu of %zu)", shared, n);
        tap_ok(!(sb_run_meta(run)->shared_wait_seconds > 0),
               "no wait for a quiet core when nothing is rejected (%g s)",
               sb_run_meta(run)->shared_wait_seconds);
        sb_run_free(run);
    }

    /* Every sample contended, kept: the cell is named. */
    run = forced_run(2, SB_REJECT_NONE);
    if (tap_ok(run != NULL, "every sample on a shared core, kept")) {
        r = sb_run_cell(run, 0);
        TAP_IS_INT(r->disturbed[SB_REJECT_SHARED_CORE], r->nsamples,
                   "all contended");
        tap_ok(strstr(sb_run_meta(run)->notes, "measured on a shared core") !=
                   NULL,
               "the notes say the cell was measured on a shared core");
        sb_run_free(run);
    }

    /* Every sample contended, under the default policy: the rounds'
     * samples are rejected, and the refill keeps its later ones, flagged,
     * rather than leave the cell empty. */
    run = forced_run(2, SB_REJECT_DISTURBED);
    if (tap_ok(run != NULL, "every sample on a shared core, rejected")) {
        size_t flagged = 0;
        fl = sb_run_sample_flags(run, 0);
        r = sb_run_cell(run, 0);
        for (size_t i = 0; fl && i < r->nsamples; i++)
            flagged += (fl[i] & (1u << SB_REJECT_SHARED_CORE)) != 0;
        /* Every one of the 120 rounds' samples rejected, under
         * shared-core or, where the machine added a context switch or a
         * wait for the CPU, under that reason. */
        size_t rejected = r->rejected_total - r->rejected[SB_REJECT_OUTLIER];
        tap_ok(r->nsamples >= 1 && flagged == r->nsamples &&
                   rejected >= 120 && sb_run_empty_cells(run) == 0,
               "the cell is not left empty: %zu kept from the refill, each "
               "flagged, %zu rejected (%zu shared-core)", r->nsamples,
               rejected, r->rejected[SB_REJECT_SHARED_CORE]);
        tap_ok(strstr(sb_run_meta(run)->notes, "measured on a shared core") !=
                   NULL,
               "and the notes say it was measured on a shared core");
        /* Each rejected sample is followed by a wait for a quiet core:
         * at least two probes long, however quiet the core really is; at
         * most half the invocation's 10 s budget, and one wait's 50 ms
         * beyond. */
        if (!strcmp(sb_run_meta(run)->probe, "imul-chain"))
            tap_ok(sb_run_meta(run)->shared_wait_seconds > 0 &&
                       sb_run_meta(run)->shared_wait_seconds <= 5.05,
                   "the run waited for a quiet core after its rejects: "
                   "%.3g s, within half its budget",
                   sb_run_meta(run)->shared_wait_seconds);
        else
            tap_skip("no verified clock probe here (%s): no wait",
                     sb_run_meta(run)->probe);
        sb_run_free(run);
    }
}

/* A core that never turns quiet again: the waits after its rejected
 * samples stop at half the invocation's budget, and the rest of it takes
 * samples (rejected, then kept flagged by the refill). */
static void test_wait_cap(void)
{
    sb_measure_options o;
    sb_run *run;
    sb_error e = {0};

    options(&o, SB_REJECT_DISTURBED);
    o.max_time = 1;
    o.min_samples = o.max_samples = 1000000;
    sb__probe_force = 2 | 128;
    run = libc_run(&o, 256, &e);
    sb__probe_force = 0;
    if (!tap_ok(run != NULL, "a run whose core never turns quiet (%s)",
                e.text))
        return;
    if (strcmp(sb_run_meta(run)->probe, "imul-chain"))
        tap_skip("no verified clock probe here (%s): no wait",
                 sb_run_meta(run)->probe);
    else {
        double w = sb_run_meta(run)->shared_wait_seconds;
        double el = sb_run_elapsed(run);
        const sb_cell_result *r = sb_run_cell(run, 0);
        /* At most half of what was left of the budget when the rounds
         * began, which the invocation's elapsed time (its start-up
         * included, however long a loaded machine made it) bounds, plus
         * one wait of 50 ms. */
        tap_ok(w > 0 && w <= 0.5 * el + 0.05, "it waited %.3g s, at most "
               "half of its %.3g s", w, el);
        tap_ok(r->rejected[SB_REJECT_SHARED_CORE] > 0 &&
                   sb_run_empty_cells(run) == 0,
               "and took samples in the rest (%zu rejected, %zu kept)",
               r->rejected[SB_REJECT_SHARED_CORE], r->nsamples);
    }
    sb_run_free(run);
}

/* The probes' figures through the JSON and back: the same values, and
 * a hostile array read as unknown. */
static void test_json(void)
{
    sb_measure_options o;
    sb_run *run, *back = NULL;
    sb_error e = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int same = 1;

    options(&o, SB_REJECT_DISTURBED);
    o.invocations = 2;
    o.min_samples = o.max_samples = 40;
    run = libc_run(&o, 256, &e);
    if (!tap_ok(run != NULL, "a run of two invocations (%s)", e.text))
        return;
    f = open_memstream(&text, &len);
    if (f && sb_report(run, SB_FORMAT_JSON, f, &e) == SB_OK) {
        fclose(f);
        f = fmemopen(text, len, "r");
        if (f && sb_run_load_new(f, "mem", NULL, &back, &e) != SB_OK)
            back = NULL;
    }
    if (f)
        fclose(f);
    if (tap_ok(back != NULL, "written and read back (%s)", e.text)) {
        const sb_meta *a = sb_run_meta(run), *b = sb_run_meta(back);
#define SAME(x)                                                              \
    (isnan(a->x) ? isnan(b->x) : fabs(a->x - b->x) <= 1e-9 * fabs(a->x))
        same = SAME(probe_ratio) && SAME(probe_cost_share) &&
               SAME(probe_clock) && SAME(probe_clock_min) &&
               SAME(probe_clock_max) && SAME(contention_quiet) &&
               SAME(contention_margin) && SAME(contended_share) &&
               SAME(cpu_wait_share) && a->probe_ninv == b->probe_ninv &&
               a->probe_chain_ops == b->probe_chain_ops &&
               a->probe_ldst_reps == b->probe_ldst_reps &&
               !strcmp(a->probe, b->probe) &&
               !strcmp(a->probe_note, b->probe_note);
        for (size_t i = 0; i < a->probe_ninv && i < SB_PROBE_MAX_INV; i++)
            same = same && SAME(probe_inv_clock[i]) &&
                   SAME(probe_inv_quiet[i]);
#undef SAME
        tap_ok(same, "the probes' figures alike (%s, %zu invocations)",
               b->probe, b->probe_ninv);
        /* Two or more: the runner adds invocations short of precision. */
        tap_ok(b->probe_ninv >= 2 &&
                   b->probe_ninv == sb_run_invocations(run),
               "one clock per invocation (%zu, %zu invocations)",
               b->probe_ninv, sb_run_invocations(run));
        sb_run_free(back);
    }
    free(text);
    sb_run_free(run);
    {
        /* Hostile per-invocation values: not positive numbers. */
        static const char doc[] =
            "{\"schema\":\"statbench-run\",\"schema_version\":1,"
            "\"meta\":{\"timer\":{\"hz\":2e9},\"probes\":{"
            "\"clock_source\":\"imul\\u001b[31m\","
            "\"invocation_clock\":[1.4,-1,\"x\",null,0],"
            "\"invocation_contention_quiet\":[32.8]}},"
            "\"cells\":[{\"kernel\":\"libc\",\"size\":64,"
            "\"src_align\":0,\"dst_align\":0,"
            "\"samples_ticks\":[10,11,12]}]}";
        f = fmemopen((void *)doc, sizeof doc - 1, "r");
        back = NULL;
        if (f && sb_run_load_new(f, "doc", NULL, &back, &e) == SB_OK) {
            const sb_meta *b = sb_run_meta(back);
            tap_ok(b->probe_ninv == 5 && b->probe_inv_clock[0] == 1.4 &&
                       isnan(b->probe_inv_clock[1]) &&
                       isnan(b->probe_inv_clock[2]) &&
                       isnan(b->probe_inv_clock[3]) &&
                       isnan(b->probe_inv_clock[4]) &&
                       b->probe_inv_quiet[0] == 32.8 &&
                       isnan(b->probe_inv_quiet[1]) &&
                       !strchr(b->probe, 0x1b) && isnan(b->probe_clock),
                   "hostile values read as unknown, the string cleaned "
                   "(%s)", b->probe);
            sb_run_free(back);
        } else {
            tap_ok(0, "a run with hostile probe fields loads (%s)", e.text);
        }
        if (f)
            fclose(f);
    }
}

/* The clock probe refused at start-up (the hook feeds the check a folded
 * add chain): no clock anywhere, the reason in the header's fields, the
 * contention probe in ticks with its wider margin. */
static void test_refused(void)
{
    sb_run *run = forced_run(16, SB_REJECT_DISTURBED);
    const sb_meta *m;
    const double *clk;
    size_t known = 0;

    if (!tap_ok(run != NULL, "a run with the clock probe refused"))
        return;
    m = sb_run_meta(run);
    if (!sb__arch_have_chains()) {
        tap_skip("no chains on this architecture");
        sb_run_free(run);
        return;
    }
    tap_ok(!strcmp(m->probe, "none") && strstr(m->probe_note, "refused") &&
               strstr(m->probe_note, "5.556"),
           "meta says refused and why (%s)", m->probe_note);
    tap_ok(strstr(m->notes, "clock probe refused") != NULL,
           "and a note says so");
    clk = sb_run_sample_clock(run, 0);
    for (size_t i = 0; clk && i < sb_run_cell(run, 0)->nsamples; i++)
        known += !isnan(clk[i]);
    tap_ok(clk && known == 0, "every sample's clock unknown (%zu known)",
           known);
    tap_ok(isnan(m->probe_clock) && isnan(m->probe_clock_min),
           "no effective clock");
    tap_ok(m->contention_margin >= SB__PROBE_MARGIN_TICKS &&
               m->contention_margin <= SB__PROBE_MODEL_CEIL,
           "the contention probe compared in ticks, with a margin of at "
           "least the ticks' %.0f%% (%.3f)", 100 * SB__PROBE_MARGIN_TICKS,
           m->contention_margin);
    {
        /* The header's clock line gives the probe's reason. */
        char *text = report_text(run, SB_FORMAT_TABLE);
        tap_ok(text &&
                   strstr(text, "clock:    core clock unknown (clock probe "
                                "refused: ") != NULL,
               "the clock line says the probe was refused");
        free(text);
    }
    sb_run_free(run);
}

/* A run of three forked invocations of one libc 256-byte cell with the
 * hook set to force (its contention verdicts off: bit 5). */
static sb_run *forced_runs(int force, size_t *known, size_t *n)
{
    /* Software counters only: the imul chain is then the clock where
     * the PMU could give PAPI_TOT_CYC too. */
    sb_run *run = forced_run_n(force | 32, SB_REJECT_DISTURBED, 3,
                               "perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS");
    const double *clk;

    *known = *n = 0;
    clk = run ? sb_run_sample_clock(run, 0) : NULL;
    for (size_t i = 0; clk && i < sb_run_cell(run, 0)->nsamples; i++)
        *known += !isnan(clk[i]);
    *n = run ? sb_run_cell(run, 0)->nsamples : 0;
    return run;
}

/* The start-up check failed in the first of three invocations only (the
 * hook's bit 6; a shared core made it fail here): the run keeps that
 * invocation's clocks, since the check passed in the others, and says so.
 * Failed in all three (bit 4, a CPU whose imul is not 3 adds): every
 * clock is dropped and the probe refused, as with one invocation. */
static void test_unverified(void)
{
    size_t known, n;
    sb_run *run;
    const sb_meta *m;

    if (!sb__arch_have_chains()) {
        tap_skip("no chains on this architecture");
        return;
    }
    run = forced_runs(64, &known, &n);
    if (tap_ok(run != NULL, "three invocations, the first one's check "
                            "failed")) {
        m = sb_run_meta(run);
        tap_ok(!strcmp(m->probe, "imul-chain") &&
                   fabs(m->probe_ratio / 3 - 1) <= SB__PROBE_TOLERANCE,
               "the probe stands, with a passed check's ratio (%s: %s)",
               m->probe, m->probe_note);
        tap_ok(strstr(m->notes, "start-up check failed in 1 invocation "
                                "(the first: clock probe refused: the test "
                                "hook failed the check), whose clocks were "
                                "kept") != NULL,
               "a note says the first invocation's check failed");
        TAP_IS_INT(known, n, "every sample keeps its clock");
        tap_ok(sb_run_invocation_probes(run) >= 3 &&
                   isfinite(sb_run_invocation_clock(run, 0)),
               "and the first invocation its clock (%g)",
               sb_run_invocation_clock(run, 0));
        tap_ok(sb_run_cell(run, 0)->metric == SB_METRIC_CYCLES,
               "the cell is judged in core cycles");
        TAP_IS_REL(m->contention_margin, SB__PROBE_MARGIN, 0,
                   "the contention margin is the one in core cycles");
        tap_ok(isfinite(sb_run_invocation_quiet(run, 0)) &&
                   isfinite(m->contention_quiet),
               "the first invocation has a quiet level (%g), and the run "
               "(%g)", sb_run_invocation_quiet(run, 0), m->contention_quiet);
    }
    sb_run_free(run);
    run = forced_runs(16, &known, &n);
    if (tap_ok(run != NULL, "three invocations, every check failed")) {
        m = sb_run_meta(run);
        tap_ok(!strcmp(m->probe, "none") &&
                   strstr(m->notes, "clock probe refused") != NULL,
               "the probe is refused, a note says why (%s)", m->probe);
        TAP_IS_INT(known, 0, "no sample keeps a clock (of %zu)", n);
        tap_ok(isnan(sb_run_invocation_clock(run, 0)) &&
                   isnan(sb_run_invocation_clock(run, 2)) &&
                   isnan(m->probe_clock),
               "no invocation has a clock, nor the run");
        tap_ok(sb_run_cell(run, 0)->metric == SB_METRIC_TIME,
               "the cell is judged in time");
    }
    sb_run_free(run);
}

/* A hog pinned to the CPU the run pins to, for the run's length. */
static void test_hog(void)
{
    sb_measure_options o;
    sb_run *run;
    sb_error e = {0};
    cpu_set_t set;
    int cpu = -1;
    pid_t hog;

    sched_getaffinity(0, sizeof set, &set);
    for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
        if (CPU_ISSET(c, &set))
            cpu = c;
    hog = fork();
    if (hog == 0) {
        volatile unsigned long x = 0;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
        alarm(20); /* never outlives a lost parent */
        for (;;)
            x++;
    }
    options(&o, SB_REJECT_DISTURBED);
    o.cpu = cpu;
    o.invocations = 2;
    o.max_time = 3;
    o.min_samples = 20;
    o.max_samples = 300;
    run = libc_run(&o, 4096, &e);
    if (hog > 0) {
        kill(hog, SIGKILL);
        waitpid(hog, NULL, 0);
    }
    if (!tap_ok(run != NULL, "a run beside a hog on CPU %d completes (%s)",
                cpu, e.text))
        return;
    {
        const sb_cell_result *r = sb_run_cell(run, 0);
        const unsigned char *fl = sb_run_sample_flags(run, 0);
        size_t sum = 0, bad = 0, under = 0;
        for (int q = 0; q < SB_REJECT_NREASONS; q++) {
            sum += r->rejected[q];
            if (q != SB_REJECT_OUTLIER && r->rejected[q] > r->disturbed[q])
                under++;
        }
        TAP_IS_INT(sum, r->rejected_total, "rejects add up by reason");
        TAP_IS_INT(under, 0, "no reason rejects more than it saw");
        /* A shared core alone is kept when the cell would otherwise end
         * empty (the refill's later samples): the hog may share it all
         * along. */
        for (size_t i = 0; fl && i < r->nsamples; i++)
            bad += (fl[i] & ~(1u << SB_REJECT_INTERRUPT |
                              1u << SB_REJECT_SHARED_CORE)) != 0;
        TAP_IS_INT(bad, 0, "no kept sample carries a rejected reason "
                           "(but a shared core, from the refill)");
        tap_diag("beside the hog: %zu kept, %zu cpu-wait, %zu "
                 "context-switch, %zu shared-core",
                 r->nsamples, r->rejected[SB_REJECT_CPU_WAIT],
                 r->rejected[SB_REJECT_CTXSW],
                 r->rejected[SB_REJECT_SHARED_CORE]);
        if (r->nsamples)
            tap_ok(r->interval.lo <= r->interval.estimate &&
                       r->interval.estimate <= r->interval.hi &&
                       isfinite(r->interval.estimate),
                   "its interval holds its estimate [%g, %g, %g]",
                   r->interval.lo, r->interval.estimate, r->interval.hi);
        else
            tap_ok(sb_run_empty_cells(run) == 1,
                   "a cell left without samples is reported empty");
    }
    sb_run_free(run);
}

/* Where PAPI_TOT_CYC is read: the chain's 3 cycles per imul against the
 * counter, within 1%. */
static void test_papi(void)
{
#ifdef SB_HAVE_PAPI
    int es = PAPI_NULL;
    long long v0, v1;
    double got[5];
    const uint64_t n = 1u << 20;

    if (!sb__arch_have_chains()) {
        tap_skip("no chains on this architecture");
        return;
    }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK ||
        PAPI_add_event(es, PAPI_TOT_CYC) != PAPI_OK ||
        PAPI_start(es) != PAPI_OK) {
        tap_skip("PAPI_TOT_CYC is not readable here (no PMU, as in most "
                 "virtual machines): probe cycles not checked against it");
        return;
    }
    for (int i = 0; i < 5; i++) {
        PAPI_read(es, &v0);
        sb__arch_imul_chain(n);
        PAPI_read(es, &v1);
        got[i] = (double)(v1 - v0);
    }
    PAPI_stop(es, &v1);
    TAP_IS_REL(median(got, 5), SB__PROBE_IMUL_CYCLES * (double)n, 0.01,
               "the imul chain's cycles against PAPI_TOT_CYC, within 1%%");
#else
    tap_skip("built without PAPI: probe cycles not checked against "
             "PAPI_TOT_CYC");
#endif
}

/* The chains on this machine: the start-up check's numbers, reported. */
static void test_chains_here(void)
{
    sb_meta m;
    sb__probe p;
    sb_error e = {0};
    sb_timer_info t = {.size = sizeof t};

    memset(&m, 0, sizeof m);
    if (sb_timer_init(&t, 0, &e) != SB_OK) {
        tap_skip("no timer: %s", e.text);
        return;
    }
    tap_ok(sb__probe_open(&p, t.kind == SB_TIMER_TSC, t.hz, &m, &e) ==
               SB_OK,
           "the probes open");
    tap_diag("here: %s (%s); imul %.4f, add %.4f ticks per op", m.probe,
             m.probe_note, p.imul_tpo, p.add_tpo);
    tap_ok(!strcmp(m.probe, "imul-chain") == (p.clock_ok != 0) &&
               (p.clock_ok || m.probe_note[0]),
           "accepted, or refused with a reason");
    sb__probe_close(&p);
}

int main(void)
{
    test_arithmetic();
    test_validate();
    test_contention();
    test_quiet_state();
    test_schedstat();
    test_chains_here();
    test_forced();
    test_wait_cap();
    test_refused();
    test_unverified();
    test_json();
    test_hog();
    test_papi();
    return tap_done();
}
