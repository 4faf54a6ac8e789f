/*
 * test_reclock.c: record, then decide, for the core clock.  Every sample
 * keeps its two clock chains' readings (ticks per imul, the timer's
 * overhead off), so that an analysis can take every sample's clock anew
 * with another rule for two chains that disagree
 * (sb_analysis_options.chain_apart, --chain-apart).
 *
 *  - The rule itself (sb__probe_chain_clock) against values worked by
 *    hand: 3 core cycles per imul over a reading, the mean of two, the
 *    faster of two further apart than the ratio; and the measurement's
 *    form from raw ticks (sb__probe_sample_clock) is that rule at 1.5 on
 *    the readings sample.c records, to the bit.
 *  - A synthetic run of fixed seeds whose true clock is known: most
 *    chains after a sample are slowed by 1.2-1.45 times (within the
 *    measurement's 1.5, so the mean clock reads low) and one in twenty
 *    of either by 2-20 times.
 *    Decided again at 1.5 it is the run as measured, to the byte of its
 *    JSON but for the option; at 1 every clock is the faster chain's and
 *    at 10^6 their mean (references computed here from the readings, not
 *    by the library's function); at 1.1 the cell's core cycles come back
 *    to the truth the generator made, where the measured rule leaves
 *    them low; held samples are decided alike; "measured" puts back the
 *    measured clocks; a run saved, loaded and decided again is the run
 *    decided before saving (within the file's ten digits).
 *  - Refusals, each with its reason: imported samples, a clock from the
 *    PMU, no clock probe, no readings; and a bad ratio.
 *  - A measured run (x86-64 with the chains): decided again at 1.5, its
 *    clocks are the measured ones, to the bit; measured with the option
 *    at 1.1, its clocks are that rule's; with its clock probe refused,
 *    as measured, with a note.
 *  - The recorded Intel run (tests/fixtures/hosts), saved before the
 *    clock was taken from the readings: decided again at 1.5 it gives
 *    back its recorded clocks within the file's ten digits.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "report_text.h"
#include "statbench.h"
#include "synth_run.h"

enum { NCELLS = 2, NINV = 3, PER = 200 };
#define CLOCK 1.5 /* the true core cycles per tick */
#define CALL 1000.0 /* the true ticks of a cell 0 call */

/* ---- The rule -------------------------------------------------------- */

static void check_rule(void)
{
    const double r = 2.0; /* ticks per imul: 1.5 cycles per tick */
    uint64_t s = 7;
    int same = 1;

    tap_ok(sb__probe_chain_clock(r, r, 1.5) == 1.5,
           "two equal readings of 2 ticks per imul: 1.5 cycles per tick");
    tap_ok(sb__probe_chain_clock(r, 1.25 * r, 1.5) == 6 / (2.25 * r),
           "1.25 times apart within 1.5: their mean, 6 / (b + a)");
    tap_ok(sb__probe_chain_clock(r, 1.6 * r, 1.5) == 3 / r &&
               sb__probe_chain_clock(1.6 * r, r, 1.5) == 3 / r,
           "1.6 times apart beyond 1.5: the faster chain's, either side");
    tap_ok(sb__probe_chain_clock(r, 1.25 * r, 1.0) == 3 / r,
           "at 1: the faster chain's whenever they differ");
    tap_ok(sb__probe_chain_clock(r, 20 * r, 1e6) == 6 / (21 * r),
           "at 10^6: their mean even 20 times apart");
    tap_ok(sb__probe_chain_clock(NAN, r, 1.5) == 1.5 &&
               sb__probe_chain_clock(r, -1, 1.5) == 1.5 &&
               isnan(sb__probe_chain_clock(NAN, 0, 1.5)),
           "one reading missing or not positive: the other's; none: NAN");
    /* The measurement's form: raw ticks of a 512-op chain with the
     * timer's overhead in them, against the rule on the readings sample.c
     * records, (ticks - overhead) / ops. */
    for (int i = 0; i < 100000 && same; i++) {
        double ops = 512, o = 40 + 30 * uniform(&s);
        double tb = o + ops * (0.5 + 3 * uniform(&s));
        double ta = uniform(&s) < 0.1 ? o + ops * (10 + 20 * uniform(&s))
                                      : o + ops * (0.5 + 3 * uniform(&s));
        double c = sb__probe_sample_clock(SB__PROBE_IMUL_CYCLES * ops, tb,
                                          ta, o);
        double d = sb__probe_chain_clock((tb - o) / ops, (ta - o) / ops,
                                         SB__PROBE_CHAIN_APART);
        same = memcmp(&c, &d, sizeof c) == 0;
    }
    tap_ok(same, "from raw ticks, the measurement's clock is the rule at "
                 "1.5 on the recorded readings, to the bit (100000 draws)");
}

/* ---- A synthetic run ------------------------------------------------- */

/* A chain's reading at the true clock, slowed one time in twenty by
 * 2-20 times (an interrupt, the host taking the vCPU) and with
 * probability mild by 1.2-1.45 times, within the measurement's ratio. */
static double chain(uint64_t *s, double mild)
{
    double u = uniform(s), slow = 1;
    if (u < 0.05)
        slow = 2 + 18 * uniform(s);
    else if (u < 0.05 + mild)
        slow = 1.2 + 0.25 * uniform(s);
    return SB__PROBE_IMUL_CYCLES / CLOCK * slow;
}

/* The run: NCELLS libc cells, NINV invocations of PER samples, each
 * sample's ticks the true call's within +-0.5%, its clock the one the
 * measurement takes from its readings (the rule at 1.5), every tenth
 * sample held for a shared core; probe "imul-chain" unless probe says
 * otherwise, readings unless none. */
static void synth_one(synth_inv *v, size_t i, size_t g, size_t q,
                      void *state)
{
    uint64_t *s = state;
    double p[SB_PROBE_READINGS], t;

    (void)g;
    p[SB_PROBE_CHAIN_BEFORE] = chain(s, 0.05);
    p[SB_PROBE_CHAIN_AFTER] = chain(s, 0.60);
    p[SB_PROBE_CONTENTION_BEFORE] = 50 + uniform(s);
    p[SB_PROBE_CONTENTION_AFTER] = 50 + uniform(s);
    t = CALL * (double)(i + 1) * (1 + 0.01 * (uniform(s) - 0.5));
    synth_sample(v, q % 10 == 9, t, sb__probe_chain_clock(p[0], p[1], 1.5),
                 0, p);
}

static sb_run *synth(uint64_t seed, const char *probe, int readings)
{
    uint64_t s = seed;

    return synth_invocations(synth_libc_cells(NCELLS, 2.6e9, probe), NINV,
                             PER, readings, synth_one, &s);
}

static int reclock(sb_run *run, double apart, sb_error *e)
{
    sb_analysis_options a = *sb_run_analysis_options(run);
    a.chain_apart = apart;
    return sb_run_reanalyse(run, &a, e);
}

/* Every kept and held clock of run equal to rule(readings), to the bit:
 * what is the number of samples that are not, and *n the samples seen. */
static size_t clocks_off(const sb_run *run,
                         double (*rule)(const double *p), size_t *n)
{
    size_t off = 0;
    *n = 0;
    for (size_t i = 0; i < NCELLS; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const double *c = sb_run_sample_clock(run, i);
        const double *p = sb_run_sample_probes(run, i);
        sb_held_samples h = {.size = sizeof h};
        sb_run_held_samples(run, i, &h, NULL);
        for (size_t q = 0; q < r->nsamples; q++, (*n)++) {
            double want = rule(p + q * SB_PROBE_READINGS);
            off += memcmp(&c[q], &want, sizeof want) != 0;
        }
        for (size_t q = 0; q < h.n; q++, (*n)++) {
            double want = rule(h.probes + q * SB_PROBE_READINGS);
            off += memcmp(&h.clock[q], &want, sizeof want) != 0;
        }
    }
    return off;
}

/* The references, written from the definitions rather than through the
 * library's function. */
static double faster(const double *p)
{
    double b = p[SB_PROBE_CHAIN_BEFORE], a = p[SB_PROBE_CHAIN_AFTER];
    return SB__PROBE_IMUL_CYCLES / (b < a ? b : a);
}
static double mean(const double *p)
{
    return 2 * SB__PROBE_IMUL_CYCLES /
           (p[SB_PROBE_CHAIN_BEFORE] + p[SB_PROBE_CHAIN_AFTER]);
}
static double measured(const double *p)
{
    double b = p[SB_PROBE_CHAIN_BEFORE], a = p[SB_PROBE_CHAIN_AFTER];
    return b > 1.5 * a || a > 1.5 * b ? faster(p) : mean(p);
}

/* The JSON of run with its meta.options.chain_apart line taken out. */
static char *json_without_option(const sb_run *run)
{
    char *t = report_text(run, SB_FORMAT_JSON), *k, *end;
    if (t && (k = strstr(t, "\"chain_apart\"")) && (end = strchr(k, '\n'))) {
        char *start = k;
        while (start > t && start[-1] != '\n')
            start--;
        memmove(start, end + 1, strlen(end + 1) + 1);
    }
    return t;
}

/* The clocks of every kept and held sample, and every cell's core
 * cycles, of x and y within 1e-9 of each other (a saved sample keeps ten
 * significant digits). */
static int close_runs(const sb_run *x, const sb_run *y)
{
    for (size_t i = 0; i < NCELLS; i++) {
        const sb_cell_result *a = sb_run_cell(x, i), *b = sb_run_cell(y, i);
        const double *ca = sb_run_sample_clock(x, i);
        const double *cb = sb_run_sample_clock(y, i);
        sb_held_samples ha = {.size = sizeof ha}, hb = {.size = sizeof hb};
        sb_run_held_samples(x, i, &ha, NULL);
        sb_run_held_samples(y, i, &hb, NULL);
        if (a->nsamples != b->nsamples || ha.n != hb.n || !ca || !cb ||
            fabs(a->core_cycles.estimate / b->core_cycles.estimate - 1) >
                1e-9)
            return 0;
        for (size_t q = 0; q < a->nsamples; q++)
            if (fabs(ca[q] / cb[q] - 1) > 1e-9)
                return 0;
        for (size_t q = 0; q < ha.n; q++)
            if (fabs(ha.clock[q] / hb.clock[q] - 1) > 1e-9)
                return 0;
    }
    return 1;
}

static void check_synthetic(void)
{
    sb_run *x = synth(3, "imul-chain", 1), *y;
    sb_error e = {0};
    char *before = NULL, *after = NULL, *t = NULL;
    size_t n, off;
    int rc;
    double truth, cyc_measured, cyc;

    if (!tap_ok(x != NULL, "a synthetic run with chain readings"))
        return;
    off = clocks_off(x, measured, &n);
    tap_ok(off == 0 && n == NCELLS * NINV * PER,
           "as made: the clocks are the rule at 1.5 (%zu of %zu off)", off,
           n);
    before = json_without_option(x);
    tap_ok(reclock(x, 1.5, &e) == SB_OK, "decided again at 1.5 (%s)",
           e.text);
    after = json_without_option(x);
    tap_ok(before && after && !strcmp(before, after),
           "at 1.5: the run as measured, to the byte of its JSON");
    t = report_text(x, SB_FORMAT_JSON);
    tap_ok(t && strstr(t, "\"chain_apart\": 1.5") != NULL,
           "the JSON says the clocks were decided again at 1.5");
    free(t);

    rc = reclock(x, 1, &e);
    off = clocks_off(x, faster, &n);
    tap_ok(rc == SB_OK && off == 0 && n == NCELLS * NINV * PER,
           "at 1: every clock, kept and held, is the faster chain's (%zu "
           "of %zu off)", off, n);
    rc = reclock(x, 1e6, &e);
    off = clocks_off(x, mean, &n);
    tap_ok(rc == SB_OK && off == 0,
           "at 10^6: every clock is the two chains' mean (%zu of %zu off)",
           off, n);
    t = report_text(x, SB_FORMAT_TABLE);
    tap_ok(t && strstr(t, "decided again from its recorded chains") != NULL,
           "the table says so on its clock lines");
    free(t);

    /* The figure follows the clocks: a chain slowed within 1.5 pulls the
     * measured mean clock, and so the core cycles, low (the generator
     * slows most after-chains by 1.2-1.45); below 1.2 the faster chain is
     * the true clock again. */
    truth = CALL * CLOCK;
    rc = reclock(x, -1, &e);
    off = clocks_off(x, measured, &n);
    tap_ok(rc == SB_OK && off == 0,
           "measured: the measured clocks back (%zu of %zu off)", off, n);
    cyc_measured = sb_run_cell(x, 0)->core_cycles.estimate;
    tap_ok(reclock(x, 1.1, &e) == SB_OK, "decided again at 1.1 (%s)",
           e.text);
    cyc = sb_run_cell(x, 0)->core_cycles.estimate;
    tap_ok(fabs(cyc / truth - 1) < 0.002 &&
               cyc_measured < truth * (1 - 0.05),
           "at 1.1: %.2f core cycles a call, the true %.0f within 0.2%% "
           "(as measured %.2f, %.1f%% low)",
           cyc, truth, cyc_measured, 100 * (1 - cyc_measured / truth));

    /* Saved and loaded (as saved), then decided again: the run decided
     * before saving. */
    free(before);
    free(after);
    before = after = NULL;
    sb_run_free(x);
    x = synth(3, "imul-chain", 1);
    y = x ? json_round_trip(x, &t) : NULL;
    free(t);
    if (tap_ok(y != NULL, "saved and loaded")) {
        /* The saved samples keep ten significant digits; the loaded
         * run's own JSON is the reference for both sides. */
        sb_run *z = json_round_trip(y, &t);
        free(t);
        tap_ok(z && reclock(y, 1.1, &e) == SB_OK &&
                   reclock(z, 1.1, &e) == SB_OK &&
                   (before = report_text(y, SB_FORMAT_JSON)) &&
                   (after = report_text(z, SB_FORMAT_JSON)) &&
                   !strcmp(before, after),
               "saved and loaded, or loaded twice, then decided again: "
               "the same run, to the byte");
        sb_run_free(z);
        tap_ok(reclock(x, 1.1, &e) == SB_OK && close_runs(x, y),
               "saved, loaded and decided again: the run decided again "
               "before saving, within the file's ten digits");
    }
    free(before);
    free(after);
    sb_run_free(y);
    sb_run_free(x);
}

/* ---- Refusals ------------------------------------------------------- */

static void refused(sb_run *run, const char *what, const char *why)
{
    sb_error e = {0};
    int rc;
    if (!run) {
        tap_ok(0, "%s: a run", what);
        return;
    }
    rc = reclock(run, 1.5, &e);
    tap_ok(rc == SB_EINVAL && strstr(e.text, "cannot be decided again") &&
               strstr(e.text, why),
           "%s: refused, saying why (%s)", what, e.text);
    sb_run_free(run);
}

static void check_refusals(void)
{
    sb_run *x = synth(5, "imul-chain", 1), *imp = NULL;
    sb_analysis_options a;
    sb_error e = {0};
    const double v[] = {1, 2, 3, 4, 5, 6};
    const char *name = "imported";
    const double *vals = v;
    const size_t nv = 6;

    refused(synth(5, "pmu", 1), "a clock from the PMU", "PAPI_TOT_CYC");
    refused(synth(5, "none", 1), "no clock probe", "no core clock");
    refused(synth(5, "imul-chain", 0), "no readings", "no probe readings");
    if (sb_run_from_samples_new(&name, &vals, &nv, 1, NULL, 1, &imp, &e) ==
        SB_OK)
        refused(imp, "imported samples", "imported");
    else
        tap_ok(0, "imported samples: a run (%s)", e.text);
    for (int k = 0; k < 3 && x; k++) {
        static const double bad[] = {0.5, 2e6, NAN};
        sb_analysis_options_init(&a);
        a.chain_apart = bad[k];
        tap_ok(sb_run_reanalyse(x, &a, &e) == SB_EINVAL &&
                   strstr(e.text, "chain ratio") != NULL,
               "a ratio of %g: refused, naming it (%s)", bad[k], e.text);
    }
    sb_run_free(x);
}

/* ---- A measured run, and a recorded one ----------------------------- */

/* libc measured at 1 KiB, and at 4 KiB too unless one is set: two
 * invocations of samples samples each, within 20 s, analysed with a
 * (NULL: the defaults) into *run.  The status of sb_run_execute_new. */
static int measure_libc(int one, size_t samples, const sb_analysis_options *a,
                        sb_run **run, sb_error *e)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    int rc;

    sb_measure_options_init(&o);
    o.invocations = o.max_invocations = 2;
    o.max_time = 20;
    o.min_samples = o.max_samples = samples;
    sb_plan_add(plan, sb_kernel_find("libc"), 1024, 0, 0, e);
    if (!one)
        sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, e);
    rc = sb_run_execute_new(plan, &o, a, run, e);
    sb_plan_free(plan);
    return rc;
}

static void check_measured(void)
{
    sb_run *run = NULL;
    sb_error e = {0};
    double **was;
    size_t n = 0, off = 0, total = 0;

    if (!tap_ok(measure_libc(0, 60, NULL, &run, &e) == SB_OK,
                "measured (%s)", e.text))
        return;
    if (strcmp(sb_run_meta(run)->probe, "imul-chain")) {
        tap_skip("this run's clock is not from the chains (%s)",
                 sb_run_meta(run)->probe);
        sb_run_free(run);
        return;
    }
    n = sb_run_count(run);
    was = calloc(n, sizeof *was);
    for (size_t i = 0; was && i < n; i++) {
        size_t k = sb_run_cell(run, i)->nsamples;
        const double *c = sb_run_sample_clock(run, i);
        if ((was[i] = malloc((k + 1) * sizeof **was)) && c)
            memcpy(was[i], c, k * sizeof **was);
    }
    if (tap_ok(was && reclock(run, 1.5, &e) == SB_OK,
               "the measured run decided again at 1.5 (%s)", e.text))
        for (size_t i = 0; i < n; i++) {
            const double *c = sb_run_sample_clock(run, i);
            size_t k = sb_run_cell(run, i)->nsamples;
            for (size_t q = 0; c && was[i] && q < k; q++, total++)
                /* A NaN (no clock) is no clock either way, whatever
                 * its bits. */
                off += (isnan(c[q]) != isnan(was[i][q])) ||
                       (!isnan(c[q]) &&
                        memcmp(&c[q], &was[i][q], sizeof *c) != 0);
        }
    tap_ok(total > 0 && off == 0,
           "its clocks are the measured ones, to the bit (%zu of %zu off)",
           off, total);
    for (size_t i = 0; was && i < n; i++)
        free(was[i]);
    free(was);
    sb_run_free(run);
}

/* The option given to a measurement: the run's clocks decided at 1.1
 * (the contention verdict off through the test hook, so that a busy
 * sibling vCPU cannot empty the cell), and a run whose clock probe the
 * start-up check refuses measured as measured, with a note. */
int sb__probe_force;

static void check_measuring_option(void)
{
    for (int refused = 0; refused < 2; refused++) {
        sb_analysis_options a;
        sb_run *run = NULL;
        sb_error e = {0};
        size_t off = 0, n = 0;
        int rc;

        sb_analysis_options_init(&a);
        a.chain_apart = 1.1;
        sb__probe_force = refused ? 16 | 32 : 32;
        rc = measure_libc(1, 40, &a, &run, &e);
        sb__probe_force = 0;
        if (!tap_ok(rc == SB_OK, "measured with --chain-apart 1.1%s (%s)",
                    refused ? ", the clock probe refused" : "", e.text))
            continue;
        if (refused) {
            tap_ok(strstr(sb_run_meta(run)->notes,
                          "not decided again (--chain-apart)") != NULL &&
                       sb_run_analysis_options(run)->chain_apart < 0,
                   "no clock to decide: measured as measured, and a note "
                   "says why");
        } else if (strcmp(sb_run_meta(run)->probe, "imul-chain")) {
            tap_skip("this run's clock is not from the chains (%s)",
                     sb_run_meta(run)->probe);
        } else {
            const double *c = sb_run_sample_clock(run, 0);
            const double *p = sb_run_sample_probes(run, 0);
            for (size_t q = 0; c && p && q < sb_run_cell(run, 0)->nsamples;
                 q++) {
                const double *r = p + q * SB_PROBE_READINGS;
                double want = sb__probe_chain_clock(r[0], r[1], 1.1);
                if (isfinite(c[q]) && isfinite(want)) {
                    n++;
                    off += memcmp(&c[q], &want, sizeof want) != 0;
                }
            }
            tap_ok(n > 0 && off == 0 &&
                       sb_run_analysis_options(run)->chain_apart == 1.1,
                   "its clocks are the rule at 1.1 on its readings (%zu of "
                   "%zu off)", off, n);
        }
        sb_run_free(run);
    }
}

static void check_recorded_host(void)
{
    sb_run *run =
        fixture_run("tests/fixtures/hosts/intel-xeon-kvm-libc4k.json");
    sb_error e = {0};
    double *was, worst = 0;
    const double *c;
    size_t k, finite = 0;

    if (!run)
        return;
    k = sb_run_cell(run, 0)->nsamples;
    c = sb_run_sample_clock(run, 0);
    was = malloc((k + 1) * sizeof *was);
    if (was && c)
        memcpy(was, c, k * sizeof *was);
    if (tap_ok(was && c && reclock(run, 1.5, &e) == SB_OK,
               "decided again at 1.5 (%s)", e.text)) {
        c = sb_run_sample_clock(run, 0);
        for (size_t q = 0; q < k; q++)
            if (isfinite(was[q])) {
                double d = fabs(c[q] / was[q] - 1);
                finite++;
                worst = d > worst ? d : worst;
            }
        /* Ten significant digits in the file: 1e-9 relative is what a
         * saved clock can tell. */
        tap_ok(finite > 1000 && worst < 1e-9,
               "its %zu recorded clocks given back (worst %.2g relative)",
               finite, worst);
    }
    free(was);
    sb_run_free(run);
}

int main(void)
{
    check_rule();
    check_synthetic();
    check_refusals();
    check_measured();
    check_measuring_option();
    check_recorded_host();
    return tap_done();
}
