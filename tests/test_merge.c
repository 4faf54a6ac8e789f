/*
 * test_merge.c: runs as a level above invocations (statbench merge).
 *
 *  - By simulation (fixed seed): runs that each carry their own effect
 *    (another day, another clock step), invocations within a run their
 *    own smaller one.  The merged run's 95% interval, over the runs'
 *    medians, covers the true median in 93-97% of 2000 trials; the same
 *    samples with the runs forgotten (the interval over all invocation
 *    medians pooled) cover far less.
 *  - sb_run_merge_new on small runs whose medians are worked out by hand: the
 *    run medians, the interval over them (the rule over invocation
 *    medians, sb__invocation_ci), the invocation tags, the differences
 *    told (warnings) and refused (errors).
 *  - The merged run through JSON and back: the tags, the runs' hosts
 *    (cleaned of control characters) and the statistics survive.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "run_internal.h"
#include "statbench.h"
#include "tap.h"
#include "synth_run.h"
#include "merged_runs.h"

/* The copy kernel the runs are of: movsl where the build has the
 * string-instruction kernels, else duff, a C copy every build has.  Only
 * its name matters here, never its code. */
#ifdef SB_HAVE_X86_64
#define COPY_NAME "movsl"
#else
#define COPY_NAME "duff"
#endif

#define TRIALS 2000
#define RUNS 12
#define INVS 20
#define SAMPLES 5

/* One simulated merged run of one cell: RUNS runs of INVS invocations of
 * SAMPLES samples each; log-times are the true median's log plus a run
 * effect N(0, 0.03), an invocation effect N(0, 0.003) and sample noise
 * N(0, 0.002), all symmetric, so the true median is truth. */
static sb_run *simulate(gsl_rng *r, const sb_kernel *k, double truth)
{
    sb_measure_options o;
    sb_run *run;
    double x[SAMPLES];

    sb_measure_options_init(&o);
    run = sb__run_alloc(1, &o, NULL);
    if (!run)
        return NULL;
    run->meta.timer.hz = 1e9;
    run->cells[0].cell = (sb_cell){.kernel = k, .size = 4096};
    if (!merged_runs(run, RUNS, INVS))
        return NULL;
    for (size_t u = 0; u < RUNS; u++) {
        double ru = gsl_ran_gaussian(r, 0.03);
        for (size_t g = 0; g < INVS; g++) {
            double ig = gsl_ran_gaussian(r, 0.003);
            sb__raw_cell raw = {.nsamples = SAMPLES, .ticks = x};
            for (size_t s = 0; s < SAMPLES; s++)
                x[s] = truth * exp(ru + ig + gsl_ran_gaussian(r, 0.002));
            run->inv_run[run->invocations++] = u;
            if (sb__run_add_invocation(run, 0, &raw) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    }
    return run;
}

static void coverage(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    const sb_kernel *k = sb_kernel_find(COPY_NAME);
    size_t cover_runs = 0, cover_pooled = 0, done = 0, runs_level = 0;
    double truth = 1000;

    if (!r || !k) {
        tap_ok(0, "coverage: rng or kernel");
        return;
    }
    gsl_rng_set(r, 20261201UL);
    for (size_t t = 0; t < TRIALS; t++) {
        sb_run *run = simulate(r, k, truth);
        const sb_interval *ci;
        if (!run || sb__run_analyse(run, NULL) != SB_OK) {
            sb_run_free(run);
            break;
        }
        ci = &run->cells[0].interval;
        cover_runs += ci->lo <= truth && truth <= ci->hi;
        runs_level += run->cells[0].runs == RUNS &&
                      strstr(run->cells[0].method, "run medians") != NULL;
        /* The same samples with the runs forgotten: every invocation
         * median pooled, as if the invocations were independent. */
        run->nruns = 0;
        if (sb__run_analyse(run, NULL) != SB_OK) {
            sb_run_free(run);
            break;
        }
        cover_pooled += ci->lo <= truth && truth <= ci->hi;
        sb_run_free(run);
        done++;
    }
    gsl_rng_free(r);
    tap_ok(done == TRIALS, "coverage: %zu of %d trials analysed", done,
           TRIALS);
    tap_ok(runs_level == done, "coverage: every merged interval is over "
           "the %d run medians (%zu of %zu)", RUNS, runs_level, done);
    /* 93-97%: the order-statistic interval of 12 run medians achieves
     * 96.1% at least; the window is 3.5 binomial standard errors (0.49%
     * at 2000 trials) below 95%, 4 above. */
    tap_ok(cover_runs >= 0.93 * TRIALS && cover_runs <= 0.97 * TRIALS,
           "coverage: the run-level 95%% interval covers the true median "
           "in %.2f%% of %d trials (93-97%%)",
           100.0 * (double)cover_runs / TRIALS, TRIALS);
    tap_ok(cover_pooled < 0.5 * TRIALS,
           "coverage: pooling the invocations covers far less: %.2f%% "
           "(below 50%%)", 100.0 * (double)cover_pooled / TRIALS);
}

/* A run of samples measured elsewhere: cells names[i] with values. */
static sb_run *imported(const char *const *names, const double *const *v,
                        const size_t *n, size_t m)
{
    sb_run *run = NULL;
    sb_error err = {0};
    if (sb_run_from_samples_new(names, v, n, m, NULL, 1, &run, &err) != SB_OK)
        tap_diag("sb_run_from_samples_new: %s", err.text);
    return run;
}

static void merge_api(void)
{
    static const char *both[] = {"k1", "k2"}, *one[] = {"k1"},
                      *other[] = {"zz"};
    static const double a1[] = {1, 2, 3}, a2[] = {5, 6, 7},
                        b1[] = {2, 3, 4, 5}, b2[] = {6, 7},
                        c1[] = {10, 11, 9};
    const double *av[] = {a1, a2}, *bv[] = {b1, b2}, *cv[] = {c1};
    size_t an[] = {3, 3}, bn[] = {4, 2}, cn[] = {3};
    sb_run *a = imported(both, av, an, 2), *b = imported(both, bv, bn, 2);
    sb_run *c = imported(one, cv, cn, 1), *z = imported(other, cv, cn, 1);
    sb_run *m = NULL, *m2 = NULL;
    const sb_run *in[3];
    char warn[1024];
    sb_error err = {0};
    sb_interval want;
    const char *how;
    /* Run medians by hand: median {1,2,3} = 2, {2,3,4,5} = 3.5,
     * {10,11,9} = 10. */
    double med[3] = {2, 3.5, 10};

    if (!a || !b || !c || !z) {
        tap_ok(0, "merge: the input runs");
        goto done;
    }
    snprintf(b->meta.hostname, sizeof b->meta.hostname, "%s",
             "other\x1b[31mhost");
    in[0] = a;
    in[1] = b;
    in[2] = c;
    tap_ok(sb_run_merge_new(in, 3, &m, warn, sizeof warn, &err) == SB_OK && m,
           "merge: three runs merge (%s)", err.text);
    if (!m)
        goto done;
    tap_ok(sb_run_runs(m) == 3 && sb_run_invocations(m) == 3 &&
               sb_run_invocation_run(m, 0) == 0 &&
               sb_run_invocation_run(m, 1) == 1 &&
               sb_run_invocation_run(m, 2) == 2,
           "merge: 3 runs, every invocation tagged with its run");
    tap_ok(sb_run_count(m) == 2 &&
               !strcmp(sb_run_cell(m, 0)->cell.kernel->name, "k1") &&
               sb_run_cell(m, 0)->runs == 3 && sb_run_cell(m, 1)->runs == 2,
           "merge: the union of the cells, k1 in 3 runs and k2 in 2");
    tap_ok(sb_run_cell(m, 0)->run_median &&
               sb_run_cell(m, 0)->run_median[0] == med[0] &&
               sb_run_cell(m, 0)->run_median[1] == med[1] &&
               sb_run_cell(m, 0)->run_median[2] == med[2],
           "merge: run medians 2, 3.5 and 10 (by hand)");
    sb__invocation_ci(med, 3, 0.95, &want, &how);
    tap_ok(sb_run_cell(m, 0)->interval.lo == want.lo &&
               sb_run_cell(m, 0)->interval.hi == want.hi &&
               sb_run_cell(m, 0)->interval.estimate == want.estimate,
           "merge: the interval over run medians by the invocation rule "
           "(%s)", sb_run_cell(m, 0)->method);
    tap_ok(strstr(warn, "cell k2 size 0 offsets 0/0: in 2 of the 3 runs") &&
               strstr(warn, "run 2: another host"),
           "merge: the missing cell and the other host, one line each");
    tap_ok(!strchr(warn, '\n') || strchr(warn, '\n')[1] != '\0',
           "merge: several warning lines");
    tap_ok(sb_run_run_meta(m, 1) &&
               !strcmp(sb_run_run_meta(m, 1)->hostname,
                       "other\x1b[31mhost") &&
               sb_run_run_meta(m, 3) == NULL,
           "merge: each run's host is kept");

    /* Through JSON and back. */
    {
        FILE *f = tmpfile();
        int ok = f && sb_report(m, SB_FORMAT_JSON, f, &err) == SB_OK;
        if (ok) {
            rewind(f);
            ok = sb_run_load_new(f, "merged.json", NULL, &m2, &err) == SB_OK;
        }
        if (f)
            fclose(f);
        tap_ok(ok && m2, "merge: written as JSON and read back (%s)",
               err.text);
        if (ok && m2) {
            tap_ok(sb_run_runs(m2) == 3 && sb_run_invocation_run(m2, 2) == 2 &&
                       sb_run_cell(m2, 0)->runs == 3 &&
                       sb_run_cell(m2, 0)->interval.lo ==
                           sb_run_cell(m, 0)->interval.lo &&
                       sb_run_cell(m2, 0)->interval.hi ==
                           sb_run_cell(m, 0)->interval.hi,
                   "merge: the runs, tags and interval survive the JSON");
            tap_ok(!strchr(sb_run_run_meta(m2, 1)->hostname, '\x1b'),
                   "merge: a hostile host name is read back cleaned: %s",
                   sb_run_run_meta(m2, 1)->hostname);
            in[0] = m2;
            in[1] = a;
            sb_run *more = NULL;
            int ok2 = sb_run_merge_new(in, 2, &more, NULL, 0, &err) == SB_OK;
            /* The merged run's 3 runs, then a's invocations as a 4th. */
            tap_ok(ok2 && sb_run_runs(more) == 4 &&
                       sb_run_invocation_run(more, 2) == 2 &&
                       sb_run_invocation_run(more,
                                             sb_run_invocations(more) - 1) ==
                           3 &&
                       sb_run_cell(more, 0)->runs == 4 &&
                       !strcmp(sb_run_run_meta(more, 3)->hostname,
                               sb_run_meta(a)->hostname) &&
                       !strcmp(sb_run_run_meta(more, 1)->hostname,
                               sb_run_run_meta(m2, 1)->hostname),
                   "merge: a merged run brings its runs, one more run "
                   "joins as the next (%s)", err.text);
            sb_run_free(more);
        }
    }
    sb_run_free(m);
    m = NULL;

    /* Errors: one clear line each. */
    in[0] = a;
    in[1] = z;
    tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) == SB_EINVAL &&
               !m && strstr(err.text, "no cell is in every run"),
           "merge: no cell in common is refused: %s", err.text);
    tap_ok(sb_run_merge_new(in, 1, &m, NULL, 0, &err) == SB_EINVAL &&
               strstr(err.text, "at least 2"),
           "merge: one run is refused: %s", err.text);
    {
        /* Two sample sets under one name make one cell listed twice: a
         * merge would count the second as another run's. */
        static const double v[] = {1, 2, 3, 4};
        const double *vv[] = {v, v};
        const char *nm[] = {"twice", "twice"};
        size_t nn[] = {4, 4};
        sb_run *d1 = NULL, *d2 = NULL, *dm = NULL;
        sb_run_from_samples_new(nm, vv, nn, 2, NULL, 1, &d1, NULL);
        sb_run_from_samples_new(nm, vv, nn, 2, NULL, 1, &d2, NULL);
        if (d1 && d2) {
            const sb_run *dd[] = {d1, d2};
            tap_ok(sb_run_merge_new(dd, 2, &dm, NULL, 0, &err) ==
                           SB_EINVAL &&
                       !dm && strstr(err.text, "lists the cell") &&
                       strstr(err.text, "twice"),
                   "merge: a run listing a cell twice is refused: %s",
                   err.text);
        } else {
            tap_ok(0, "merge: two runs with a cell listed twice made");
        }
        sb_run_free(d1);
        sb_run_free(d2);
        sb_run_free(dm);
    }
    b->imported = 0;
    in[1] = b;
    tap_ok(sb_run_merge_new(in, 2, &m, NULL, 0, &err) == SB_EINVAL &&
               strstr(err.text, "measured elsewhere"),
           "merge: imported and measured samples are refused: %s",
           err.text);
    b->imported = 1;
    b->measure.cache = SB_CACHE_COLD;
    tap_ok(sb_run_merge_new(in, 2, &m, NULL, 0, &err) == SB_EINVAL &&
               strstr(err.text, "cache cold"),
           "merge: hot and cold caches are refused: %s", err.text);
done:
    sb_run_free(a);
    sb_run_free(b);
    sb_run_free(c);
    sb_run_free(z);
    sb_run_free(m);
    sb_run_free(m2);
}

/* A measured-like run of one cell (COPY_NAME, 4096 bytes) at timer rate
 * hz: invocations of SAMPLES samples, invocation g all t[g] ticks.  NULL
 * without the kernel: the merge would read its name. */
static sb_run *one_cell(double hz, const double *t, size_t ninv)
{
    sb_run *run = synth_one_cell(COPY_NAME, hz);
    double x[SAMPLES];

    if (!run)
        return NULL;
    for (size_t g = 0; g < ninv; g++) {
        /* Each invocation also rejected one sample and made 10 calls. */
        sb__raw_cell raw = {.nsamples = SAMPLES, .ticks = x, .calls = 10};
        raw.rejected[SB_REJECT_CTXSW] = 1;
        for (size_t s = 0; s < SAMPLES; s++)
            x[s] = t[g];
        run->invocations++;
        if (sb__run_add_invocation(run, 0, &raw) != SB_OK) {
            sb_run_free(run);
            return NULL;
        }
    }
    if (sb__run_analyse(run, NULL) != SB_OK) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

/* What the merge keeps of its inputs beyond their samples: the first
 * run's timer rate for a run at another rate (its ticks converted), an
 * interruption of any run, and the runs' host names, cleaned when they
 * come from a file. */
static void merge_kept(void)
{
    /* Run 1 at 1 GHz: invocations of 1000 and 1200 ticks (1 and 1.2 us);
     * run 2 at 2 GHz: 3000 and 3400 ticks (1.5 and 1.7 us), 1500 and 1700
     * ticks of run 1.  Run medians 1100 and 1600 of run 1's ticks. */
    static const double ta[] = {1000, 1200}, tb[] = {3000, 3400};
    double med[2] = {1100, 1600};
    sb_run *a = one_cell(1e9, ta, 2), *b = one_cell(2e9, tb, 2), *m = NULL;
    const sb_run *in[2];
    char warn[2048];
    sb_error err = {0};
    sb_interval want;
    const char *how;

    if (!tap_ok(a && b, "merge: two runs of one cell made"))
        goto done;
    in[0] = a;
    in[1] = b;
    if (!tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) ==
                    SB_OK,
                "merge: runs at 1 and 2 GHz merge (%s)", err.text))
        goto done;
    sb__invocation_ci(med, 2, 0.95, &want, &how);
    tap_ok(sb_run_meta(m)->timer.hz == 1e9 &&
               sb_run_cell(m, 0)->run_median[0] == 1100 &&
               sb_run_cell(m, 0)->run_median[1] == 1600,
           "merge: run 2's medians in run 1's ticks (1100, 1600; got %g, "
           "%g at %g Hz)", sb_run_cell(m, 0)->run_median[0],
           sb_run_cell(m, 0)->run_median[1], sb_run_meta(m)->timer.hz);
    TAP_IS_REL(sb_run_cell(m, 0)->interval.estimate, want.estimate, 1e-12,
               "merge: the merged median in run 1's ticks");
    /* 4096 bytes in estimate ticks of 1 ns: MB/s = 4096 / estimate *
     * 1e3. */
    TAP_IS_REL(sb_run_cell(m, 0)->mbps.estimate,
               4096.0 / want.estimate * 1e3, 1e-12,
               "merge: and its MB/s from run 1's rate");
    tap_ok(strstr(warn, "run 2: another timer") != NULL,
           "merge: the other rate is told: %s", warn);
    tap_ok(!sb_run_interrupted(m), "merge: two complete runs: complete");
    sb_run_free(m);
    m = NULL;
    /* A rate 0.05% off is a calibration's jitter, one timer; 5% off is
     * another timer.  One start time on two hosts is two runs; on one
     * host, the same run given twice. */
    snprintf(a->meta.start_time, sizeof a->meta.start_time, "%s",
             "2026-12-02T10:00:00Z");
    snprintf(b->meta.start_time, sizeof b->meta.start_time, "%s",
             "2026-12-02T10:00:00Z");
    snprintf(a->meta.hostname, sizeof a->meta.hostname, "%s", "one");
    snprintf(b->meta.hostname, sizeof b->meta.hostname, "%s", "two");
    b->meta.timer.hz = 1.0005e9;
    tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) == SB_OK &&
               !strstr(warn, "another timer") &&
               !strstr(warn, "given twice") && strstr(warn, "another host"),
           "merge: a rate 0.05%% off and one start time on two hosts: "
           "neither another timer nor the same run: %s", warn);
    sb_run_free(m);
    m = NULL;
    b->meta.timer.hz = 1.05e9;
    snprintf(b->meta.hostname, sizeof b->meta.hostname, "%s", "one");
    /* Two single runs of one start second and host whose samples differ
     * are two runs (two --append at once): no "given twice". */
    tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) == SB_OK &&
               strstr(warn, "run 2: another timer") &&
               !strstr(warn, "given twice"),
           "merge: a rate 5%% off is another timer; one start on one host "
           "with other samples, two runs: %s", warn);
    sb_run_free(m);
    m = NULL;
    {
        /* The same samples, start and host: one run given twice,
         * refused; on another host, two runs. */
        sb_run *c = one_cell(1e9, ta, 2);
        const sb_run *aa[2] = {a, c};
        if (c) {
            snprintf(c->meta.start_time, sizeof c->meta.start_time, "%s",
                     a->meta.start_time);
            snprintf(c->meta.hostname, sizeof c->meta.hostname, "%s",
                     "one");
        }
        tap_ok(c && sb_run_merge_new(aa, 2, &m, NULL, 0, &err) ==
                            SB_EINVAL &&
                   !m && strstr(err.text, "run 2 is run 1 again"),
               "merge: the same samples, start and host: refused (%s)",
               err.text);
        if (c)
            snprintf(c->meta.hostname, sizeof c->meta.hostname, "%s",
                     "two");
        tap_ok(c && sb_run_merge_new(aa, 2, &m, NULL, 0, &err) == SB_OK,
               "merge: the same samples and start on another host: two "
               "runs (%s)", err.text);
        sb_run_free(m);
        m = NULL;
        sb_run_free(c);
    }
    b->meta.timer.hz = 2e9;
    a->meta.start_time[0] = b->meta.start_time[0] = '\0';
    a->meta.hostname[0] = b->meta.hostname[0] = '\0';
    if (!tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) ==
                    SB_OK,
                "merge: merged again (%s)", err.text))
        goto done;
    /* The runs' per-cell totals, each once: 2 rejects and 20 calls a run. */
    tap_ok(sb_run_cell(m, 0)->rejected[SB_REJECT_CTXSW] == 4 &&
               sb_run_cell(m, 0)->rejected_total == 4 &&
               sb_run_cell(m, 0)->calls == 40,
           "merge: the runs' rejects and calls added once each (%zu "
           "rejected, %g calls)", sb_run_cell(m, 0)->rejected_total,
           (double)sb_run_cell(m, 0)->calls);
    {
        /* A single run against the merged one, and the merged one
         * against the single run: one interval, inverted, its ends
         * swapped. */
        static const double tc[] = {1300, 1320};
        sb_run *c = one_cell(1e9, tc, 2);
        const sb_comparison *x, *y;
        if (c && sb_run_compare_to(c, m, NULL, &err) == SB_OK &&
            sb_run_compare_to(m, c, NULL, &err) == SB_OK) {
            x = sb_run_comparison(c, 0);
            y = sb_run_comparison(m, 0);
            tap_ok(x && y && x->valid && y->valid && x->test &&
                       strstr(x->test, "single run against"),
                   "merge: a single run against a merged one, by its run "
                   "medians (%s)", x && x->test ? x->test : "-");
            tap_ok(x && y && x->ratio.lo < x->ratio.estimate &&
                       x->ratio.estimate < x->ratio.hi &&
                       y->ratio.lo < y->ratio.estimate &&
                       y->ratio.estimate < y->ratio.hi,
                   "merge: both ways the estimate lies inside its interval "
                   "([%g, %g] and [%g, %g])", x ? x->ratio.lo : NAN,
                   x ? x->ratio.hi : NAN, y ? y->ratio.lo : NAN,
                   y ? y->ratio.hi : NAN);
            if (x && y) {
                TAP_IS_REL(y->ratio.estimate, 1 / x->ratio.estimate, 1e-12,
                           "merge: the other way, the inverse ratio");
                TAP_IS_REL(y->ratio.lo, 1 / x->ratio.hi, 1e-12,
                           "  whose low end is the inverse high end");
                TAP_IS_REL(y->ratio.hi, 1 / x->ratio.lo, 1e-12,
                           "  and high end the inverse low end");
            }
        } else {
            tap_ok(0, "merge: single vs merged compared (%s)", err.text);
        }
        sb_run_free(c);
    }
    sb_run_free(m);
    m = NULL;

    /* An interrupted run, first or second, makes the merge interrupted,
     * in the run and in its JSON. */
    for (int first = 0; first < 2; first++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f;
        a->interrupted = first;
        b->interrupted = !first;
        if (!tap_ok(sb_run_merge_new(in, 2, &m, NULL, 0, &err) == SB_OK,
                    "merge: an interrupted and a complete run (%s)",
                    err.text))
            continue;
        tap_ok(sb_run_interrupted(m), "merge: interrupted run %d: the "
               "merge is interrupted", first ? 1 : 2);
        f = open_memstream(&buf, &len);
        if (f) {
            sb_report(m, SB_FORMAT_JSON, f, NULL);
            fclose(f);
        }
        tap_ok(buf && strstr(buf, "\"interrupted\": true"),
               "  and its JSON says \"interrupted\": true");
        free(buf);
        sb_run_free(m);
        m = NULL;
    }
    a->interrupted = b->interrupted = 0;

    /* A host name from a file, hostile: cleaned by the loader, so the
     * warnings (which quote it) hold no escape. */
    {
        static const char doc[] =
            "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"hostname\": \"evil\\u001b[2J\\u009b1m\\nhost\", "
            "\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"" COPY_NAME "\", \"size\": 4096, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [1000, 1000, 1100, "
            "1100], \"invocation_samples\": [2, 2]}]}";
        FILE *f = fmemopen((void *)doc, strlen(doc), "r");
        sb_run *h = NULL;
        if (f) {
            if (sb_run_load_new(f, "evil.json", NULL, &h, &err) != SB_OK)
                tap_diag("load: %s", err.text);
            fclose(f);
        }
        if (tap_ok(h != NULL, "merge: a run with a hostile host loaded")) {
            in[1] = h;
            tap_ok(sb_run_merge_new(in, 2, &m, warn, sizeof warn, &err) ==
                           SB_OK &&
                       strstr(warn, "another host") &&
                       !strchr(warn, '\x1b') && !strstr(warn, "\xc2\x9b") &&
                       !strstr(warn, "evil?[2J?1m\nhost") &&
                       strstr(warn, "evil?[2J?1m?host"),
                   "merge: the loaded host's name reaches the warnings "
                   "cleaned: %s", warn);
        }
        sb_run_free(h);
    }
done:
    sb_run_free(a);
    sb_run_free(b);
    sb_run_free(m);
}

int main(void)
{
    sb_init();
    coverage();
    merge_api();
    merge_kept();
    return tap_done();
}
