/*
 * test_reanalyse.c: sb_run_reanalyse recomputes a run's statistics from
 * its samples with new analysis options, exactly as loading the run with
 * those options does (and as measuring with them does); a new confidence
 * level gives the interval sb_stats_median_ci gives on the same samples;
 * the precision flag follows the target by the one rule; the outlier
 * policy starts again from the samples as loaded; bad options leave the
 * run as it was; and the one rule and the one cell interval that the stop
 * rule, the runner and the results share.  The runs are a saved fixture
 * (tests/fixtures/reanalyse_a.json: 2 cells, 6 invocations), samples of
 * fixed values, and a short measurement whose samples both sides share:
 * nothing here depends on the machine's noise.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "run_internal.h"
#include "statbench.h"
#include "tap.h"

static char fixture[1024];

/* The fixture loaded with opt (NULL: as saved). */
static sb_run *load(const sb_analysis_options *opt)
{
    FILE *f = fopen(fixture, "r");
    sb_run *run = NULL;
    sb_error e = {0};

    if (!f || sb_run_load_new(f, fixture, opt, &run, &e) != SB_OK)
        tap_diag("load %s: %s", fixture, f ? e.text : "cannot open");
    if (f)
        fclose(f);
    return run;
}

/* a and b bit for bit (NAN equal to NAN). */
static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static int same_interval(const sb_interval *a, const sb_interval *b)
{
    return same(a->estimate, b->estimate) && same(a->lo, b->lo) &&
           same(a->hi, b->hi) && same(a->level, b->level) &&
           same(a->achieved, b->achieved);
}

/* Every statistic of every cell of x and y the same, and their options'
 * analysis fields; what names the first difference. */
static int same_results(const sb_run *x, const sb_run *y, const char **what)
{
    sb_analysis_options ax, ay;

    *what = "cell count";
    if (!x || !y || sb_run_count(x) != sb_run_count(y))
        return 0;
    ax = *sb_run_analysis_options(x);
    ay = *sb_run_analysis_options(y);
    *what = "analysis options";
    if (ax.ci_level != ay.ci_level || ax.precision != ay.precision ||
        ax.outliers != ay.outliers || ax.bootstrap != ay.bootstrap ||
        ax.alpha != ay.alpha || ax.threshold != ay.threshold)
        return 0;
    for (size_t i = 0; i < sb_run_count(x); i++) {
        const sb_cell_result *a = sb_run_cell(x, i), *b = sb_run_cell(y, i);
        const unsigned char *fa = sb_run_sample_flags(x, i);
        const unsigned char *fb = sb_run_sample_flags(y, i);
        *what = "samples";
        if (a->nsamples != b->nsamples || a->invocations != b->invocations ||
            memcmp(a->ticks, b->ticks, a->nsamples * sizeof *a->ticks) ||
            memcmp(a->inv_nsamples, b->inv_nsamples,
                   a->invocations * sizeof *a->inv_nsamples))
            return 0;
        *what = "sample flags";
        if ((fa == NULL) != (fb == NULL) ||
            (fa && memcmp(fa, fb, a->nsamples)))
            return 0;
        *what = "rejects";
        if (a->rejected_total != b->rejected_total ||
            memcmp(a->rejected, b->rejected, sizeof a->rejected))
            return 0;
        *what = "interval";
        if (!same_interval(&a->interval, &b->interval) ||
            !same_interval(&a->mbps, &b->mbps) ||
            strcmp(a->method, b->method))
            return 0;
        *what = "precision";
        if (!same(a->rel_halfwidth, b->rel_halfwidth) ||
            a->reached_precision != b->reached_precision)
            return 0;
        *what = "diagnostics";
        if (!same(a->mde, b->mde) || !same(a->lag1, b->lag1) ||
            a->autocorrelated != b->autocorrelated ||
            !same(a->ticks_summary.mean, b->ticks_summary.mean) ||
            !same(a->levels.between_fraction, b->levels.between_fraction))
            return 0;
        *what = "counters";
        if (a->ncounters != b->ncounters)
            return 0;
        for (size_t j = 0; j < a->ncounters; j++)
            if (!same_interval(&a->counters[j].per_call,
                               &b->counters[j].per_call))
                return 0;
    }
    *what = "";
    return 1;
}

/* The run as JSON, a new string (NULL on failure). */
static char *json_of(const sb_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = f ? sb_report(run, SB_FORMAT_JSON, f, NULL) : SB_EIO;

    if (f)
        fclose(f);
    if (rc == SB_OK)
        return text;
    free(text);
    return NULL;
}

/* sb_run_reanalyse(load(NULL), a) against load(a). */
static void check_against_load(const sb_analysis_options *a, const char *name)
{
    sb_run *x = load(NULL), *y;
    sb_error e = {0};
    const char *what = "";

    y = load(a);
    if (!tap_ok(x && sb_run_reanalyse(x, a, &e) == SB_OK,
                "%s: reanalysed", name))
        tap_diag("%s", e.text);
    if (!tap_ok(same_results(x, y, &what),
                "%s: reanalysing the loaded run = loading with the options",
                name))
        tap_diag("first difference: %s", what);
    sb_run_free(x);
    sb_run_free(y);
}

/* The interval of cell i of run at the run's level, over its invocations'
 * medians, by sb_stats_median_ci directly. */
static int reference_ci(const sb_run *run, size_t i, double level,
                        sb_interval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    double med[64], work[4096];
    size_t at = 0, m = 0;

    for (size_t g = 0; g < r->invocations && m < 64; g++) {
        size_t ng = r->inv_nsamples[g];
        if (ng == 0 || ng > 4096)
            return SB_EINVAL;
        memcpy(work, r->ticks + at, ng * sizeof *work);
        gsl_sort(work, 1, ng);
        med[m++] = gsl_stats_median_from_sorted_data(work, 1, ng);
        at += ng;
    }
    gsl_sort(med, 1, m);
    return sb_stats_median_ci(med, m, level, out);
}

/* A new level: the interval sb_stats_median_ci gives over the same
 * invocation medians.  Over 6 medians the order statistics give (x1, x6)
 * down to a level of 78%: 90% is the 95% interval again, 75% is (x2, x5),
 * strictly inside it. */
static void check_levels(void)
{
    static const double levels[] = {0.90, 0.75};
    sb_analysis_options a;
    sb_run *run = load(NULL);
    sb_interval wide[2];
    sb_error e = {0};

    if (!tap_ok(run != NULL, "the fixture loads"))
        return;
    for (size_t i = 0; i < 2; i++)
        wide[i] = sb_run_cell(run, i)->interval;
    for (size_t l = 0; l < 2; l++) {
        double level = levels[l];
        sb_analysis_options_init(&a);
        a.ci_level = level;
        tap_ok(sb_run_reanalyse(run, &a, &e) == SB_OK, "--ci %g: reanalysed",
               100 * level);
        tap_ok(sb_run_analysis_options(run)->ci_level == level,
               "the run's options show the new level");
        for (size_t i = 0; i < 2; i++) {
            const sb_cell_result *r = sb_run_cell(run, i);
            sb_interval ref;
            int narrower = r->interval.lo > wide[i].lo &&
                           r->interval.hi < wide[i].hi;
            tap_ok(reference_ci(run, i, level, &ref) == SB_OK &&
                       ref.achieved >= level,
                   "cell %zu: order statistics reach %g%% over 6 medians", i,
                   100 * level);
            tap_ok(same_interval(&r->interval, &ref) &&
                       !strcmp(r->method,
                               "order statistics over invocation medians"),
                   "cell %zu: the %g%% interval is sb_stats_median_ci's over "
                   "the invocation medians (%g..%g, reference %g..%g)", i,
                   100 * level, r->interval.lo, r->interval.hi, ref.lo,
                   ref.hi);
            tap_ok(r->interval.estimate == wide[i].estimate &&
                       (level > 0.78 ? r->interval.lo == wide[i].lo &&
                                           r->interval.hi == wide[i].hi
                                     : narrower),
                   "cell %zu: same median; %s the 95%% interval", i,
                   level > 0.78 ? "the same as" : "strictly inside");
            tap_ok(r->interval.level == level && r->mbps.level == level,
                   "cell %zu: the level is %g%%", i, 100 * level);
        }
    }
    sb_run_free(run);
}

static void check_precision_flag(void)
{
    sb_analysis_options a;
    sb_run *run = load(NULL);
    sb_error e = {0};
    double rel[2];

    if (!run)
        return;
    for (size_t i = 0; i < 2; i++)
        rel[i] = sb_run_cell(run, i)->rel_halfwidth;
    tap_ok(rel[0] > 0 && rel[1] > 0 && rel[0] < rel[1] && rel[1] < 0.9,
           "the fixture's half-widths (%g, %g) are ordered", rel[0],
           rel[1]);
    sb_analysis_options_init(&a);
    /* A target between the two: the narrow cell reaches it, the wide one
     * does not; then above both, below both, and none. */
    a.precision = (rel[0] + rel[1]) / 2;
    sb_run_reanalyse(run, &a, &e);
    tap_ok(sb_run_cell(run, 0)->reached_precision &&
               !sb_run_cell(run, 1)->reached_precision,
           "target %g: only the narrow cell reaches it", a.precision);
    a.precision = rel[1] * 1.01 < 1 ? rel[1] * 1.01 : 0.99;
    sb_run_reanalyse(run, &a, &e);
    tap_ok(sb_run_cell(run, 0)->reached_precision &&
               sb_run_cell(run, 1)->reached_precision,
           "target %g: both reach it", a.precision);
    a.precision = rel[0] * 0.99;
    sb_run_reanalyse(run, &a, &e);
    tap_ok(!sb_run_cell(run, 0)->reached_precision &&
               !sb_run_cell(run, 1)->reached_precision,
           "target %g: neither reaches it", a.precision);
    a.precision = 0;
    sb_run_reanalyse(run, &a, &e);
    tap_ok(sb_run_cell(run, 0)->reached_precision &&
               sb_run_cell(run, 1)->reached_precision,
           "precision 0: no target, no cell falls short");
    tap_ok(sb_run_cell(run, 0)->rel_halfwidth == rel[0],
           "the target leaves the interval alone");
    sb_run_free(run);
}

static void check_outliers_restart(void)
{
    sb_analysis_options a;
    sb_run *run = load(NULL), *saved = load(NULL);
    sb_error e = {0};
    const char *what = "";
    size_t n0;

    if (!run || !saved)
        return;
    n0 = sb_run_cell(run, 1)->nsamples;
    sb_analysis_options_init(&a);
    a.outliers = SB_OUTLIERS_REJECT_ALL;
    tap_ok(sb_run_reanalyse(run, &a, &e) == SB_OK, "reject-all: reanalysed");
    tap_ok(sb_run_cell(run, 1)->nsamples +
                   sb_run_cell(run, 1)->rejected[SB_REJECT_OUTLIER] ==
               n0 + sb_run_cell(saved, 1)->rejected[SB_REJECT_OUTLIER],
           "reject-all: kept plus outliers is what was loaded (%zu)", n0);
    /* Twice the same policy is once: it starts from the loaded samples. */
    sb_run_reanalyse(run, &a, &e);
    {
        sb_run *once = load(NULL);
        sb_run_reanalyse(once, &a, &e);
        int ok = same_results(run, once, &what);
        tap_ok(ok, "reject-all twice = reject-all once (%s)", what);
        sb_run_free(once);
    }
    a.outliers = SB_OUTLIERS_KEEP;
    sb_run_reanalyse(run, &a, &e);
    {
        int ok = same_results(run, saved, &what);
        tap_ok(ok, "back to keep: the run as loaded again (%s)", what);
    }
    sb_run_free(run);
    sb_run_free(saved);
}

static void check_refused(void)
{
    sb_analysis_options a;
    sb_run *run = load(NULL);
    char *before = run ? json_of(run) : NULL, *after;
    sb_error e = {0};

    sb_analysis_options_init(&a);
    a.ci_level = 1.5;
    tap_ok(sb_run_reanalyse(run, &a, &e) == SB_EINVAL &&
               strstr(e.text, "confidence level"),
           "a level of 1.5 is refused: %s", e.text);
    sb_analysis_options_init(&a);
    a.precision = 1;
    tap_ok(sb_run_reanalyse(run, &a, &e) == SB_EINVAL &&
               strstr(e.text, "precision"),
           "a precision of 1 is refused: %s", e.text);
    tap_ok(sb_precision_check(0, NULL) == SB_OK &&
               sb_precision_check(0.5, NULL) == SB_OK &&
               sb_precision_check(-0.01, NULL) == SB_EINVAL &&
               sb_precision_check(1, NULL) == SB_EINVAL &&
               sb_precision_check(NAN, NULL) == SB_EINVAL,
           "sb_precision_check: [0, 1)");
    after = run ? json_of(run) : NULL;
    tap_ok(before && after && !strcmp(before, after),
           "a refused run is unchanged, to the byte of its JSON");
    tap_ok(sb_run_reanalyse(NULL, &a, &e) == SB_EINVAL &&
               sb_run_reanalyse(run, NULL, &e) == SB_EINVAL,
           "NULL run or options: SB_EINVAL");
    free(before);
    free(after);
    sb_run_free(run);
}

/* One invocation of fixed values: the bootstrap and the order statistics
 * of a single group, and comparisons that reanalysis drops. */
static void check_single_invocation(void)
{
    double v[2][200];
    const double *cv[2] = {v[0], v[1]};
    const char *names[2] = {"a", "b"};
    size_t n[2] = {200, 200}, base[2] = {SIZE_MAX, 0};
    sb_analysis_options a;
    sb_run *x = NULL, *y = NULL;
    sb_error e = {0};
    const char *what = "";

    for (size_t i = 0; i < 200; i++) {
        v[0][i] = 100 + (double)((i * 37) % 23) + (i % 50 == 0 ? 80 : 0);
        v[1][i] = 103 + (double)((i * 41) % 19);
    }
    sb_analysis_options_init(&a);
    tap_ok(sb_run_from_samples_new(names, cv, n, 2, NULL, 1, &x, &e) ==
                   SB_OK &&
               sb_run_set_baselines(x, base, &e) == SB_OK &&
               sb_run_comparison(x, 1) != NULL,
           "samples of fixed values, compared");
    a.bootstrap = 500;
    a.outliers = SB_OUTLIERS_REJECT_SEVERE;
    a.ci_level = 0.99;
    tap_ok(sb_run_reanalyse(x, &a, &e) == SB_OK, "reanalysed: %s", e.text);
    tap_ok(sb_run_comparison(x, 1) == NULL,
           "the comparisons made from the old statistics are dropped");
    tap_ok(sb_run_from_samples_new(names, cv, n, 2, &a, 1, &y, &e) == SB_OK,
           "the same samples with those options");
    {
        int ok = same_results(x, y, &what);
        tap_ok(ok, "reanalysed = made with the options (bootstrap, "
                   "reject-severe, 99%%) (%s)", what);
    }
    tap_ok(!strcmp(sb_run_cell(x, 0)->method, "BCa bootstrap of the median"),
           "a single invocation's interval is the bootstrap asked for");
    sb_run_free(x);
    sb_run_free(y);
}

/* A measured run reanalysed with the options it was measured with is the
 * run it was, to the byte of its JSON, and after a detour through other
 * options too: the outlier policy starts again from the samples as
 * measured. */
static void check_measured(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_analysis_options oa;
    sb_analysis_options a, keep;
    sb_run *run = NULL;
    sb_error e = {0};
    char *t0, *t1, *t2;
    size_t kept, out;

    sb_measure_options_init(&o);
    sb_analysis_options_init(&oa);
    o.invocations = 2;
    o.max_invocations = 2;
    /* Ample time, so that a loaded machine cannot make the plan too long
     * for it: the run ends at max_samples long before. */
    o.max_time = 20;
    o.min_samples = o.max_samples = 40;
    oa.outliers = SB_OUTLIERS_REJECT_ALL;
    oa.ci_level = 0.80;
    oa.precision = 0.2;
    sb_plan_add(plan, sb_kernel_find("libc"), 1024, 0, 0, &e);
    if (!tap_ok(sb_run_execute_new(plan, &o, &oa, &run, &e) == SB_OK,
                "measured"))
        tap_diag("%s", e.text);
    sb_plan_free(plan);
    if (!run)
        return;
    kept = sb_run_cell(run, 0)->nsamples;
    out = sb_run_cell(run, 0)->rejected[SB_REJECT_OUTLIER];
    t0 = json_of(run);
    a = oa;
    tap_ok(sb_run_reanalyse(run, &a, &e) == SB_OK,
           "reanalysed with the options it was measured with");
    t1 = json_of(run);
    tap_ok(t0 && t1 && !strcmp(t0, t1), "the same run, to the byte");
    sb_analysis_options_init(&keep);
    sb_run_reanalyse(run, &keep, &e);
    tap_ok(sb_run_cell(run, 0)->nsamples == kept + out &&
               sb_run_cell(run, 0)->rejected[SB_REJECT_OUTLIER] == 0,
           "keep: the %zu outliers are back beside the %zu kept", out, kept);
    sb_run_reanalyse(run, &a, &e);
    t2 = json_of(run);
    tap_ok(t0 && t2 && !strcmp(t0, t2),
           "reject-all again after keep: the measured run, to the byte");
    free(t0);
    free(t1);
    free(t2);
    sb_run_free(run);
}

/* The one precision rule, on intervals of known widths. */
static void check_rule(void)
{
    sb_interval ci = {100, 99, 101, 0.95, 0.96}, bad;

    tap_ok(sb__precision_met(&ci, 0.01) && sb__precision_met(&ci, 0.02) &&
               !sb__precision_met(&ci, 0.005),
           "a half-width of 1%% meets 1%% and 2%%, not 0.5%%");
    bad = ci;
    bad.achieved = 0.9;
    tap_ok(!sb__precision_met(&bad, 0.5),
           "an interval short of its level meets no target");
    bad = (sb_interval){-100, -101, -99, 0.95, 0.96};
    tap_ok(sb__precision_met(&bad, 0.01) && !sb__precision_met(&bad, 0.005),
           "a negative median: relative to its magnitude");
    bad = (sb_interval){-100, -160, -40, 0.95, 0.96};
    tap_ok(!sb__precision_met(&bad, 0.01), "a wide one falls short");
    bad = (sb_interval){0, -1, 1, 0.95, 0.96};
    tap_ok(!sb__precision_met(&bad, 0.5), "a median of 0 meets no target");
    bad = (sb_interval){NAN, NAN, NAN, 0.95, NAN};
    tap_ok(!sb__precision_met(&bad, 0.5) && sb__precision_met(&bad, 0),
           "nor one without samples; precision 0 is met by every interval");
}

/* The one cell interval, against the statistics it is made of. */
static void check_cell_interval(void)
{
    double x[60], work[60], sorted[60], med[2];
    size_t one = 60, two[3] = {30, 0, 30};
    sb_analysis_options a;
    sb_interval got, want;
    const char *how, *want_how;

    for (size_t i = 0; i < 60; i++)
        x[i] = 50 + (double)((i * 29) % 31) + (i >= 30 ? 3 : 0);
    sb_analysis_options_init(&a);
    memcpy(sorted, x, sizeof x);
    gsl_sort(sorted, 1, 60);
    sb_stats_median_ci(sorted, 60, 0.95, &want);
    tap_ok(sb__cell_interval(x, &one, 1, &a, 7, work, &got, &how) == SB_OK &&
               same_interval(&got, &want) &&
               !strcmp(how, "order statistics (exact binomial)"),
           "one invocation: the order-statistic interval of the median");
    a.bootstrap = 400;
    sb_stats_median_boot_ci(x, 60, 0.95, 400, SB_BOOT_BCA, 7, &want);
    tap_ok(sb__cell_interval(x, &one, 1, &a, 7, work, &got, &how) == SB_OK &&
               same_interval(&got, &want) &&
               !strcmp(how, "BCa bootstrap of the median"),
           "one invocation with --bootstrap: the BCa interval, seeded");
    for (size_t g = 0; g < 2; g++) {
        memcpy(sorted, x + 30 * g, 30 * sizeof *x);
        gsl_sort(sorted, 1, 30);
        med[g] = gsl_stats_median_from_sorted_data(sorted, 1, 30);
    }
    sb__invocation_ci(med, 2, 0.95, &want, &want_how);
    tap_ok(sb__cell_interval(x, two, 3, &a, 7, work, &got, &how) == SB_OK &&
               same_interval(&got, &want) && !strcmp(how, want_how),
           "two invocations (and an empty one): over their medians (%s), "
           "the bootstrap not asked", how);
    tap_ok(sb__cell_interval(x, two + 1, 1, &a, 7, work, &got, &how) ==
                   SB_EINVAL &&
               isnan(got.estimate),
           "no samples: SB_EINVAL, no interval");
    {
        /* Order statistics that reach the level exactly are taken, not
         * the t fallback: eleven medians at level 1 - 2^-10 give [x(1),
         * x(11)] with P(B <= 0) = 2^-11 in each tail (GSL's binomial CDF
         * holds that dyadic value exactly; it does not for every n). */
        double m11[11], lv = 1 - 1.0 / 1024;
        int rc;
        for (size_t i = 0; i < 11; i++)
            m11[i] = 100 + (double)((i * 4) % 11);
        rc = sb__invocation_ci(m11, 11, lv, &got, &how);
        tap_ok(rc == SB_OK && got.lo == 100 && got.hi == 110 &&
                   got.achieved == lv &&
                   !strcmp(how, "order statistics over invocation medians"),
               "eleven medians at level 1 - 2^-10: order statistics, "
               "achieving the level exactly (%s, [%g, %g], achieved %.17g)",
               how, got.lo, got.hi, got.achieved);
    }
}

/* Which samples each outlier policy removes, on values whose fences are
 * worked out by hand: 100..119, 85 and 50 (22 values).  R's type 7
 * quartiles (h = 21 p): q1 = 103 + 0.25 = 103.25, q3 = 113 + 0.75 =
 * 113.75, IQR 10.5; mild fences 87.5 and 129.5, severe 71.75 and 145.25.
 * 85 is a mild low outlier, 50 a severe one, nothing is high. */
static void check_outlier_sets(void)
{
    double v[22];
    const double *cv[1] = {v};
    const char *names[1] = {"fences"};
    size_t n[1] = {22};
    static const struct {
        int policy;
        size_t kept;
        double min;
        const char *name;
    } want[] = {
        {SB_OUTLIERS_KEEP, 22, 50, "keep"},
        {SB_OUTLIERS_REJECT_SEVERE, 21, 85, "reject-severe"},
        {SB_OUTLIERS_REJECT_ALL, 20, 100, "reject-all"},
    };

    for (size_t i = 0; i < 20; i++)
        v[i] = 100 + (double)((i * 7) % 20); /* 100..119, shuffled */
    v[20] = 85;
    v[21] = 50;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        sb_analysis_options oa;
        sb_run *run = NULL;
        sb_error e = {0};
        const sb_cell_result *r;
        double lo = INFINITY;
        sb_analysis_options_init(&oa);
        oa.outliers = want[k].policy;
        if (!tap_ok(sb_run_from_samples_new(names, cv, n, 1, &oa, 1, &run,
                                            &e) == SB_OK,
                    "%s: analysed (%s)", want[k].name, e.text))
            continue;
        r = sb_run_cell(run, 0);
        for (size_t j = 0; j < r->nsamples; j++)
            lo = r->ticks[j] < lo ? r->ticks[j] : lo;
        tap_ok(r->nsamples == want[k].kept && lo == want[k].min &&
                   r->rejected[SB_REJECT_OUTLIER] == 22 - want[k].kept,
               "%s keeps %zu samples from %g up (kept %zu from %g, %zu "
               "rejected as outliers)",
               want[k].name, want[k].kept, want[k].min, r->nsamples, lo,
               r->rejected[SB_REJECT_OUTLIER]);
        sb_run_free(run);
    }
}

/* The autocorrelation flag, on series whose lag-1 autocorrelation is
 * strongly negative (alternating), strongly positive (two runs) and
 * about 0 (a fixed shuffle): |r1| > 0.2 flags, either sign. */
static void check_autocorrelation_flag(void)
{
    double v[3][40];
    const double *cv[3] = {v[0], v[1], v[2]};
    const char *names[3] = {"alternating", "trend", "shuffled"};
    size_t n[3] = {40, 40, 40};
    sb_run *run = NULL;
    sb_error e = {0};

    for (size_t i = 0; i < 40; i++) {
        v[0][i] = i % 2 ? 110 : 90;
        v[1][i] = i < 20 ? 90 + (double)i * 0.1 : 110 + (double)i * 0.1;
        v[2][i] = 100 + (double)((i * 9) % 40); /* r1 -0.005 (Python) */
    }
    if (!tap_ok(sb_run_from_samples_new(names, cv, n, 3, NULL, 1, &run, &e) ==
                    SB_OK,
                "three series analysed (%s)", e.text))
        return;
    tap_ok(sb_run_cell(run, 0)->lag1 < -0.9 &&
               sb_run_cell(run, 0)->autocorrelated,
           "alternating: lag-1 %.2f, flagged",
           sb_run_cell(run, 0)->lag1);
    tap_ok(sb_run_cell(run, 1)->lag1 > 0.8 &&
               sb_run_cell(run, 1)->autocorrelated,
           "two runs: lag-1 %.2f, flagged", sb_run_cell(run, 1)->lag1);
    tap_ok(fabs(sb_run_cell(run, 2)->lag1) < 0.2 &&
               !sb_run_cell(run, 2)->autocorrelated,
           "shuffled: lag-1 %.2f, not flagged", sb_run_cell(run, 2)->lag1);
    sb_run_free(run);
}

/* Cells that differ only in the destination offset are different cells:
 * sb_cell_same says so, and a comparison of two runs matches each with
 * its own (ratio 1), never with the other (ratio 2 or 0.5). */
static void check_dst_align_matching(void)
{
    double v[2][30];
    const double *cv[2] = {v[0], v[1]};
    const char *names[2] = {"k", "k2"};
    size_t n[2] = {30, 30}, matched = 0;
    sb_run *a = NULL, *b = NULL;
    sb_error e = {0};
    sb_cell x = {.kernel = sb_kernel_find("libc"), .size = 4096,
                 .src_align = 0, .dst_align = 0},
            y = x;
    int ok = 1;

    y.dst_align = 64;
    tap_ok(sb_cell_same(&x, &x) && !sb_cell_same(&x, &y),
           "sb_cell_same: a cell is itself, not the one at another "
           "destination offset");
    for (size_t i = 0; i < 30; i++) {
        v[0][i] = 100 + (double)(i % 7);
        v[1][i] = 200 + 2 * (double)(i % 7);
    }
    if (!tap_ok(sb_run_from_samples_new(names, cv, n, 2, NULL, 1, &a, &e) ==
                        SB_OK &&
                    sb_run_from_samples_new(names, cv, n, 2, NULL, 1, &b, &e) ==
                        SB_OK,
                "two runs of two cells (%s)", e.text)) {
        sb_run_free(a);
        return;
    }
    /* The same kernel and size; destination offsets 0 and 64. */
    a->cells[1].cell.kernel = a->cells[0].cell.kernel;
    b->cells[1].cell.kernel = b->cells[0].cell.kernel;
    a->cells[1].cell.dst_align = b->cells[1].cell.dst_align = 64;
    ok = sb_run_compare_to(b, a, &matched, &e) == SB_OK;
    tap_ok(ok && matched == 2, "compared: %zu cells matched (%s)", matched,
           e.text);
    for (size_t i = 0; i < 2; i++) {
        const sb_comparison *c = sb_run_comparison(b, i);
        ok = ok && c && c->valid && c->base == i &&
             fabs(c->ratio.estimate - 1) < 1e-9;
    }
    tap_ok(ok, "each cell is compared with the one at its own destination "
               "offset (ratio 1)");
    sb_run_free(a);
    sb_run_free(b);
}

int main(void)
{
    sb_analysis_options a;

    tap_fixture(fixture, sizeof fixture, "reanalyse_a.json");
    sb_init();
    check_rule();
    check_cell_interval();
    sb_analysis_options_init(&a);
    check_against_load(&a, "defaults");
    a.ci_level = 0.90;
    check_against_load(&a, "--ci 90");
    a.ci_level = 0.99;
    check_against_load(&a, "--ci 99 (t over the medians)");
    sb_analysis_options_init(&a);
    a.outliers = SB_OUTLIERS_REJECT_ALL;
    check_against_load(&a, "--outliers reject-all");
    sb_analysis_options_init(&a);
    a.precision = 0.1;
    a.bootstrap = 1000;
    a.alpha = 0.01;
    a.threshold = 0.05;
    check_against_load(&a, "--precision 10 --bootstrap 1000");
    check_levels();
    check_precision_flag();
    check_outliers_restart();
    check_refused();
    check_single_invocation();
    check_measured();
    check_outlier_sets();
    check_autocorrelation_flag();
    check_dst_align_matching();
    return tap_done();
}
