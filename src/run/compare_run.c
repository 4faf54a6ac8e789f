/*
 * compare_run.c: cells against their baselines (docs/design.md, protocol
 * step 10).
 *
 * Which test, and why:
 *  - Both cells measured over several invocations of the same run: each
 *    invocation measured both, so the comparison is paired over
 *    invocations: the ratio of geometric means of the invocations' medians
 *    with a t interval on the log ratios, and the paired t test's p.  The
 *    run's own level is in both and cancels.
 *  - Separate runs (compare A.json B.json, --against): runs differ by more
 *    than their invocations show, and that level must be in the interval
 *    (Kalibera and Jones, ISMM 2013: a level not repeated leaves its
 *    variance out).  Where it comes from is the comparison's run_level:
 *     - both merged from several runs: in their run medians; the ratio of
 *       the two medians of run medians with its percentile interval and a
 *       two-sided p from one seeded bootstrap over run medians
 *       (sb_stats_ratio_boot_test; Welch's t on their logs below
 *       COMPARE_BOOT_MIN_UNITS).  Not a mean of logs: a few contended
 *       units move that by 12% while the medians stay put;
 *     - a single run against a merged one: the merged run's runs show the
 *       spread one run has, and the single run is judged by a t against
 *       their run medians (sb_stats_run_vs_runs), unless a run_sd is told;
 *     - one run a side: the within-run comparison (the bootstrap over
 *       invocation medians, Welch's t below 5 invocations, or with one
 *       invocation a BCa interval of the samples and Mann-Whitney's U) is
 *       widened side by side by a run-to-run sd told (run_sd) or assumed
 *       (SB_RUN_SD_ASSUMED) for each single side
 *       (sb_stats_ratio_add_level), its p from the widened side facing 1.
 *       A told sd of 0 keeps the within-run test as it is.  An interval
 *       of pooled samples (one invocation) is widened too by the
 *       process-to-process sd assumed (SB_PROCESS_SD_ASSUMED), told sd
 *       or not: one process's samples cannot show it.
 *  - Both cells judged in core cycles (sb_cell_result.metric): the
 *    comparison is in core cycles; otherwise both in time.
 * Then Holm's adjustment over every comparison of the run, and a verdict.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "plan.h"
#include "run_internal.h"
#include "stats_internal.h"

#define COMPARE_BOOTSTRAP 1000
/* Fewest units (invocations, or runs of a merged run) on each side for
 * the bootstrap between runs: with 2 a side has 3 distinct resampled
 * medians, and A/A pairs came out "different" at p < 0.05 in 33% of
 * simulated trials (9% with 3, about 3% from 5 on).  Below it, Welch's t on
 * the logarithms of the unit medians, whose few degrees of freedom say
 * how little two or three units tell. */
#define COMPARE_BOOT_MIN_UNITS 5

/* Keep the finite values of x[0..n) at its front (a cell judged in core
 * cycles has NAN for samples without a clock); returns how many. */
static size_t finite_only(double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            x[k++] = x[i];
    return k;
}

static int all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return 0;
    return n > 0;
}

/* The metric two cells are compared in: core cycles only when both are
 * judged in cycles, else time for both, so that a ratio never mixes the
 * two. */
static int common_metric(const sb_cell_result *a, const sb_cell_result *b)
{
    return a->metric == SB_METRIC_CYCLES && b->metric == SB_METRIC_CYCLES
               ? SB_METRIC_CYCLES
               : SB_METRIC_TIME;
}

/* One side of a comparison: a cell's samples in the compared metric (in
 * the other run's ticks when its timer ran at another rate) and its
 * invocations' medians, or its runs' medians when it was merged from
 * several runs (the level its interval is built over). */
struct side {
    const sb_cell_result *r;
    double *x;    /* the nx finite values of the cell's samples, first */
    size_t nx;
    double *med;  /* m unit medians, NaN-free */
    size_t m;
    int complete; /* every invocation has samples (pairing is possible) */
};

static void side_free(struct side *s)
{
    free(s->x);
    free(s->med);
}

static int side_make(const sb_run *run, size_t i, int metric, double scale,
                     struct side *s)
{
    const sb_cell_result *r = &run->cells[i];
    size_t n = r->nsamples, at = 0;
    double *work;

    s->r = r;
    s->m = 0;
    s->x = malloc((n + 1) * sizeof *s->x);
    s->med = malloc((r->invocations + 1) * sizeof *s->med);
    work = malloc((n + 1) * sizeof *work);
    if (!s->x || !s->med || !work) {
        free(work);
        side_free(s);
        return SB_ENOMEM;
    }
    if (metric == (int)r->metric)
        sb__cell_metric_values(run, i, s->x);
    else
        memcpy(s->x, r->ticks, n * sizeof *s->x);
    if (metric == SB_METRIC_TIME && isfinite(scale) && scale > 0)
        for (size_t k = 0; k < n; k++)
            s->x[k] *= scale;
    s->complete = r->inv_nsamples != NULL;
    for (size_t g = 0; r->inv_nsamples && g < r->invocations; g++) {
        size_t ng = 0;
        for (size_t k = at; k < at + r->inv_nsamples[g]; k++)
            if (isfinite(s->x[k]))
                work[ng++] = s->x[k];
        s->med[g] = ng ? sb__median_inplace(work, ng) : NAN;
        s->complete &= ng != 0;
        at += r->inv_nsamples[g];
    }
    free(work);
    /* Compacted once, after the invocations' medians have read x in
     * place: no method changes a side, so any may look at it. */
    s->nx = finite_only(s->x, n);
    s->m = r->inv_nsamples ? r->invocations : 0;
    return sb__unit_medians(run, s->med, &s->m);
}

/* The runs a cell's figures rest on: a merged cell's, else 1. */
static size_t runs_of(const sb_cell_result *r)
{
    return r->runs >= 2 ? r->runs : 1;
}

/* A side's estimate in the compared metric: the median of its unit
 * medians (what the table prints), or of its samples without any. */
static double side_estimate(const struct side *s)
{
    size_t n = s->m ? s->m : s->nx;
    double *w = malloc((n + 1) * sizeof *w), v;

    if (!w || n == 0) {
        free(w);
        return NAN;
    }
    memcpy(w, s->m ? s->med : s->x, n * sizeof *w);
    v = sb__median_inplace(w, n);
    free(w);
    return v;
}

int sb__cell_mde(const sb_run *run, size_t i, double *mde)
{
    const sb_cell_result *r = &run->cells[i];
    struct side s;
    double se = NAN;
    int rc;

    *mde = NAN;
    if (r->invocations < 2 || !r->inv_nsamples)
        return SB_OK;
    if (side_make(run, i, (int)r->metric, 1.0, &s) != SB_OK)
        return SB_ENOMEM;
    rc = SB_OK;
    if (s.m >= COMPARE_BOOT_MIN_UNITS && all_positive(s.med, s.m)) {
        /* What the comparison's bootstrap resamples on this side. */
        rc = sb__median_boot_log_sd(s.med, s.m, &se, NULL);
    } else if (s.m >= 2 && all_positive(s.med, s.m)) {
        /* Welch's t of the comparison: the standard error of the mean
         * log unit median. */
        double mean = 0, ss = 0;
        for (size_t k = 0; k < s.m; k++)
            mean += (log(s.med[k]) - mean) / (double)(k + 1);
        for (size_t k = 0; k < s.m; k++)
            ss += (log(s.med[k]) - mean) * (log(s.med[k]) - mean);
        se = sqrt(ss / (double)(s.m - 1) / (double)s.m);
    }
    if (rc == SB_OK && isfinite(se))
        *mde = sb_stats_mde(se, 2.0 * (double)s.m - 2.0, 0.05, 0.8);
    side_free(&s);
    return rc == SB_ENOMEM ? SB_ENOMEM : SB_OK;
}

/* A single run (one) against a side merged from several (runs): the
 * run-to-run variance from the merged side's run medians, which a new
 * run's estimate shares (sb_stats_run_vs_runs).  ratio is the compared
 * cell over the baseline whichever side is merged.  SB_EINVAL when the
 * merged side's runs cannot say it (fewer than 2, none positive, all
 * equal). */
static int one_vs_runs(const struct side *one, const struct side *runs,
                       int runs_is_base, double level, sb_comparison *out,
                       double *df)
{
    double x = side_estimate(one);
    sb_interval r;
    int rc;

    if (runs->m < 2 || !all_positive(runs->med, runs->m) || !(x > 0) ||
        !isfinite(x))
        return SB_EINVAL;
    rc = sb_stats_run_vs_runs(runs->med, runs->m, x, level, &r, &out->p,
                              df, &out->run_sd);
    if (rc != SB_OK)
        return rc;
    if (!runs_is_base)
        r = (sb_interval){1 / r.estimate, 1 / r.hi, 1 / r.lo, r.level,
                          r.achieved};
    out->ratio = r;
    out->run_level = SB_RUN_LEVEL_BASELINE;
    return SB_OK;
}

/* ---- The comparison methods ---------------------------------------- */

/* What a method sees of a pair of cells: both sides (b the baseline, c
 * the cell compared), the options and seed of the run compared, and the
 * comparison it fills, with the degrees of freedom of its interval (0:
 * normal). */
struct cmp_ctx {
    struct side *b, *c;
    const sb_analysis_options *o;
    uint64_t seed;
    int paired, single_b, single_c, widen;
    sb_comparison *out;
    double df;
};

/* A method's answer when it does not apply to the pair (the next one in
 * the table is tried); any other answer is the pair's status, SB_OK or
 * the error of a method that applied and failed. */
#define CMP_NEXT (-1000)

/* Both sides have two or more positive unit medians (invocations, or
 * runs of a merged cell): the methods over units apply. */
static int units_ok(const struct cmp_ctx *x)
{
    return x->b->m >= 2 && x->c->m >= 2 && all_positive(x->b->med, x->b->m) &&
           all_positive(x->c->med, x->c->m);
}

/* One run against a merged one: its run level is the merged runs'
 * spread, unless the caller has told one. */
static int m_one_runs(struct cmp_ctx *x)
{
    if (x->paired || x->single_b == x->single_c || x->o->run_sd >= 0)
        return CMP_NEXT;
    return one_vs_runs(x->single_b ? x->b : x->c, x->single_b ? x->c : x->b,
                       x->single_c, x->o->ci_level, x->out,
                       &x->df) == SB_OK
               ? SB_OK
               : CMP_NEXT;
}

/* Two cells of one run, every invocation with samples on both sides. */
static int m_paired(struct cmp_ctx *x)
{
    if (!units_ok(x) || !x->paired || !x->b->complete || !x->c->complete ||
        x->b->m != x->c->m)
        return CMP_NEXT;
    x->df = (double)x->b->m - 1;
    return sb_stats_paired_log(x->b->med, x->c->med, x->b->m,
                               x->o->ci_level, &x->out->ratio, &x->out->p);
}

/* Separate runs with too few units for the bootstrap.  Both sides
 * without variance, Welch has no answer: the bootstrap then says what
 * the figures say. */
static int m_welch(struct cmp_ctx *x)
{
    if (!units_ok(x) || (x->b->m >= COMPARE_BOOT_MIN_UNITS &&
                         x->c->m >= COMPARE_BOOT_MIN_UNITS))
        return CMP_NEXT;
    return sb_stats_welch_log(x->b->med, x->b->m, x->c->med, x->c->m,
                              x->o->ci_level, &(double){0}, &x->df,
                              &x->out->p, &x->out->ratio) == SB_OK
               ? SB_OK
               : CMP_NEXT;
}

/* Separate runs: the ratio of the two medians of unit medians, the
 * figures the table prints, with its interval and test from one seeded
 * bootstrap over units (docs/design.md, protocol step 10).  A ratio the
 * run level widens takes its p from the widened interval: the
 * bootstrap's own is not drawn (its interval is the same either way). */
static int m_boot(struct cmp_ctx *x)
{
    size_t B = x->o->bootstrap ? x->o->bootstrap : COMPARE_BOOTSTRAP;

    if (!units_ok(x))
        return CMP_NEXT;
    x->df = 0;
    return x->widen
               ? sb_stats_ratio_boot_ci(x->b->med, x->b->m, x->c->med,
                                        x->c->m, x->o->ci_level, B,
                                        SB_BOOT_PERCENTILE, x->seed,
                                        &x->out->ratio)
               : sb_stats_ratio_boot_test(x->b->med, x->b->m, x->c->med,
                                          x->c->m, x->o->ci_level, B,
                                          x->seed, &x->out->ratio,
                                          &x->out->p);
}

/* The bootstrap over run medians: at least one side merged. */
static int m_boot_runs(struct cmp_ctx *x)
{
    return x->single_b && x->single_c ? CMP_NEXT : m_boot(x);
}

/* Without unit medians: the samples themselves, a BCa interval of the
 * ratio and Mann-Whitney's test. */
static int m_pooled(struct cmp_ctx *x)
{
    size_t nb, nc;
    double u;
    int rc;

    nb = x->b->nx;
    nc = x->c->nx;
    if (units_ok(x) || nb < 2 || nc < 2 || !all_positive(x->b->x, nb) ||
        !all_positive(x->c->x, nc))
        return CMP_NEXT;
    rc = sb_stats_ratio_boot_ci(x->b->x, nb, x->c->x, nc, x->o->ci_level,
                                x->o->bootstrap ? x->o->bootstrap
                                                : COMPARE_BOOTSTRAP,
                                SB_BOOT_BCA, x->seed, &x->out->ratio);
    if (rc == SB_OK)
        rc = sb_stats_mann_whitney(x->c->x, nc, x->b->x, nb, &u, &x->out->p,
                                   &x->out->a12);
    return rc;
}

/* Samples pooled over invocations because the counts differ. */
static int m_pooled_inv(struct cmp_ctx *x)
{
    return x->b->r->invocations >= 2 || x->c->r->invocations >= 2
               ? m_pooled(x)
               : CMP_NEXT;
}

/* The methods, tried in this order: the first that applies makes the
 * comparison.  Each names its test in time and in core cycles, and as
 * the within-run part of a comparison of two single runs whose interval
 * the run-to-run sd widens (sb_stats_ratio_add_level; NULL: the same
 * words).  pooled: its interval is of samples pooled over invocations,
 * which holds no process level (see compare_cells).  The third text
 * names the process-to-process sd assumed, added where the process level
 * is not in the data (compare_cells).  A new method is one row and its
 * function. */
static const struct method {
    int (*run)(struct cmp_ctx *x);
    int pooled;
    const char *text[2][3]; /* [core cycles][widened: 0, 1, 2 process] */
} methods[] = {
    {m_one_runs, 0,
     {{"t of the single run against the merged side's run medians", NULL,
       "t of the single run against the merged side's run medians, "
       "widened by the process-to-process sd assumed"},
      {"t of the single run against the merged side's run medians (core "
       "cycles)",
       NULL,
       "t of the single run against the merged side's run medians, "
       "widened by the process-to-process sd assumed (core cycles)"}}},
    {m_paired, 0,
     {{"paired t on log invocation medians", NULL, NULL},
      {"paired t on log invocation medians (core cycles)", NULL, NULL}}},
    {m_welch, 0,
     {{"Welch t on log unit medians, too few for a bootstrap",
       "Welch t on log invocation medians, widened by the run-to-run sd",
       NULL},
      {"Welch t on log unit medians, too few for a bootstrap (core "
       "cycles)",
       "Welch t on log invocation medians, widened by the run-to-run sd "
       "(core cycles)",
       NULL}}},
    {m_boot_runs, 0,
     {{"bootstrap of the ratio of median run medians", NULL, NULL},
      {"bootstrap of the ratio of median run medians (core cycles)", NULL,
       NULL}}},
    {m_boot, 0,
     {{"bootstrap of the ratio of median invocation medians",
       "bootstrap of the ratio of median invocation medians, widened by "
       "the run-to-run sd",
       NULL},
      {"bootstrap of the ratio of median invocation medians (core cycles)",
       "bootstrap of the ratio of median invocation medians, widened by "
       "the run-to-run sd (core cycles)",
       NULL}}},
    {m_pooled_inv, 1,
     {{"Mann-Whitney U, BCa ratio (samples pooled: invocation counts "
       "differ)",
       "BCa ratio of pooled samples, widened by the run-to-run sd",
       "BCa ratio of pooled samples, widened by the run-to-run sd and "
       "the process-to-process sd assumed"},
      {"Mann-Whitney U, BCa ratio (samples pooled: invocation counts "
       "differ)",
       "BCa ratio of pooled samples, widened by the run-to-run sd",
       "BCa ratio of pooled samples, widened by the run-to-run sd and "
       "the process-to-process sd assumed (core cycles)"}}},
    {m_pooled, 1,
     {{"Mann-Whitney U, BCa bootstrap ratio",
       "BCa bootstrap ratio, widened by the run-to-run sd",
       "BCa bootstrap ratio, widened by the run-to-run sd and the "
       "process-to-process sd assumed"},
      {"Mann-Whitney U, BCa bootstrap ratio (core cycles)",
       "BCa bootstrap ratio, widened by the run-to-run sd (core cycles)",
       "BCa bootstrap ratio, widened by the run-to-run sd and the "
       "process-to-process sd assumed (core cycles)"}}},
};

static const char *method_name(const struct method *m, int metric,
                               int widened)
{
    const char *const *t = m->text[metric == SB_METRIC_CYCLES];
    return widened == 2 && t[2] ? t[2] : widened && t[1] ? t[1] : t[0];
}

int sb__comparison_process_assumed(const sb_comparison *c)
{
    for (size_t k = 0; c && c->test && k < sizeof methods / sizeof *methods;
         k++)
        for (int m = 0; m < 2; m++)
            if (methods[k].text[m][2] && c->test == methods[k].text[m][2])
                return 1;
    return 0;
}

/* out as a pair that cannot be compared leaves it: no ratio, no p. */
static void not_comparable(sb_comparison *out, double ci_level)
{
    out->ratio = (sb_interval){NAN, NAN, NAN, ci_level, NAN};
    out->p = NAN;
    out->run_sd = NAN;
    out->test = "not comparable (no samples or non-positive times)";
}

/* One run of one invocation against a merged side of several a run:
 * the merged runs' spread holds the process level and the samples'
 * only over k invocations a run, the single run's estimate all of
 * both.  The variance to add: the process level's rest, assumed (sd^2
 * (1 - 1/k)), and the variance of the single run's median from its own
 * interval (in full: the runs' share of it is small).  Against 5 runs of
 * 6 invocations, without them, 9.0% false verdicts at a run sd of 3% and
 * 16.8% at 1% (400 pairs, tests/test_runlevel.c's model).  0, with
 * *process untouched, where that is not the case. */
static double one_vs_runs_var(const sb_cell_result *b,
                              const sb_cell_result *c, int single_b,
                              int *process)
{
    const sb_cell_result *one = single_b ? b : c;
    const sb_cell_result *runs = single_b ? c : b;
    double k = (double)runs->invocations / (double)runs_of(runs);
    const sb_interval *w = &one->interval;
    double lv = w->achieved > 0 && w->achieved < 1 ? w->achieved : w->level;
    double z = lv > 0 && lv < 1 ? gsl_cdf_ugaussian_Pinv(0.5 + lv / 2) : NAN;
    double se = w->lo > 0 && w->hi >= w->lo && z > 0
                    ? (log(w->hi) - log(w->lo)) / (2 * z)
                    : NAN;
    double var = 0;

    if (one->invocations == 1 && k > 1) {
        var += SB_PROCESS_SD_ASSUMED * SB_PROCESS_SD_ASSUMED * (1.0 - 1.0 / k);
        if (isfinite(se))
            var += se * se;
        *process = 1;
    }
    return var;
}

/* out's smallest detectable change at 80% power, from its interval's
 * width at the level it achieves, with df degrees of freedom (0: a
 * normal quantile). */
static void set_mde(sb_comparison *out, double df,
                    const sb_analysis_options *o)
{
    double lvl, q, se;

    if (!(out->ratio.lo > 0 && out->ratio.hi > 0))
        return;
    lvl = out->ratio.achieved > 0 && out->ratio.achieved < 1
              ? out->ratio.achieved
              : o->ci_level;
    q = df > 0 ? gsl_cdf_tdist_Pinv(0.5 + lvl / 2, df)
               : gsl_cdf_ugaussian_Pinv(0.5 + lvl / 2);
    se = (log(out->ratio.hi) - log(out->ratio.lo)) / (2 * q);
    /* se is already the difference's; sb_stats_mde takes one side's. */
    out->mde = sb_stats_mde(se / sqrt(2.0), df, o->alpha, 0.8);
}

/* SB_OK, or SB_ENOMEM when the values could not be gathered; a pair that
 * cannot be compared is SB_OK with the comparison saying why. */
static int compare_cells(const sb_run *rb, size_t ib, const sb_run *rc,
                          size_t ic, int paired, double scale,
                          sb_comparison *out)
{
    /* The analysis options and the seed of the run compared. */
    const sb_analysis_options *o = &rc->analysis;
    const sb_cell_result *b = &rb->cells[ib], *c = &rc->cells[ic];
    int rc_ = SB_EINVAL, metric = common_metric(b, c);
    const struct method *method = NULL;
    int single_b = runs_of(b) == 1, single_c = runs_of(c) == 1, widen;
    int process;
    double sd, var = 0;
    struct side sb_, sc;
    double df = 0;

    out->size = sizeof *out; /* the library's layout: a run's own */
    out->valid = 1;
    not_comparable(out, o->ci_level);
    out->p_adjusted = out->a12 = out->mde = NAN;
    out->verdict = SB_VERDICT_INCONCLUSIVE;
    out->shared_bound = NAN;
    /* Two separate runs hold their run level in their data only when
     * both were merged from several; a single run's is told or assumed
     * below. */
    out->run_level = paired                    ? SB_RUN_LEVEL_SAME_RUN
                     : !single_b && !single_c ? SB_RUN_LEVEL_RUNS
                     : o->run_sd >= 0         ? SB_RUN_LEVEL_GIVEN
                                              : SB_RUN_LEVEL_ASSUMED;
    /* A single run's interval is widened below by this sd, unless it is
     * told to be 0. */
    sd = o->run_sd >= 0 ? o->run_sd : SB_RUN_SD_ASSUMED;
    widen = out->run_level >= SB_RUN_LEVEL_GIVEN && sd > 0;
    if (side_make(rb, ib, metric, scale, &sb_) != SB_OK)
        return SB_ENOMEM;
    if (side_make(rc, ic, metric, 1.0, &sc) != SB_OK) {
        side_free(&sb_);
        return SB_ENOMEM;
    }

    {
        struct cmp_ctx x = {&sb_, &sc, o, rc->measure.seed, paired,
                            single_b, single_c, widen, out, 0};
        rc_ = SB_EINVAL;
        for (size_t k = 0; k < sizeof methods / sizeof *methods; k++)
            if ((rc_ = methods[k].run(&x)) != CMP_NEXT) {
                method = &methods[k];
                break;
            }
        if (rc_ == CMP_NEXT)
            rc_ = SB_EINVAL;
        df = x.df;
    }
    side_free(&sb_);
    side_free(&sc);
    /* At least one single run, and its run level is not in the data
     * (one_vs_runs, which has it, set the level to BASELINE): the
     * within-run interval widened by the run-to-run sd told, or assumed,
     * for each single side (a merged side's interval holds its own).  A
     * told sd of 0 leaves the within test as it is: its p and its
     * interval, skewed or not. */
    widen = widen && out->run_level >= SB_RUN_LEVEL_GIVEN;
    if (out->run_level >= SB_RUN_LEVEL_GIVEN)
        out->run_sd = sd;
    /* An interval of samples pooled over a side's invocations (with one
     * invocation, one process's samples) treats them as independent: the
     * level its processes share is in no such interval, and with one
     * invocation in no data.  A comparison of separate runs adds it,
     * assumed (SB_PROCESS_SD_ASSUMED, over the side's invocations), as it
     * adds the run level: without it one invocation a side gave 12%
     * false verdicts at alpha 5% (tests/test_runlevel.c).  Whatever
     * run_sd is told: that is the level of runs, not of processes. */
    process = rc_ == SB_OK && method && method->pooled && !paired &&
              out->run_level >= SB_RUN_LEVEL_GIVEN;
    if (widen)
        var += sd * sd * (double)(single_b + single_c);
    if (process)
        var += SB_PROCESS_SD_ASSUMED * SB_PROCESS_SD_ASSUMED *
               (1.0 / (double)(b->invocations ? b->invocations : 1) +
                1.0 / (double)(c->invocations ? c->invocations : 1));
    if (rc_ == SB_OK && method && method->run == m_one_runs)
        var += one_vs_runs_var(b, c, single_b, &process);
    if (rc_ == SB_OK && (widen || process)) {
        sb_interval w = out->ratio;
        rc_ = sb_stats_ratio_add_level(&w, df, var, o->ci_level,
                                       &out->ratio, &out->p, &df);
    }
    if (rc_ != SB_OK) {
        not_comparable(out, o->ci_level);
        return SB_OK;
    }
    out->test = method_name(method, metric, process ? 2 : widen);
    set_mde(out, df, o);
    return SB_OK;
}

/* Holm over the valid comparisons with a p-value, then verdicts; with
 * comparable 0 (a run on a shared core throughout) a verdict stands only
 * beyond the factor bound (sb__comparison_withhold), every other is
 * inconclusive: the ratios stand, the verdicts would judge the
 * neighbour. */
static int finish_family(sb_run *run, int comparable, double bound,
                         sb_error *err)
{
    size_t m = 0, k = 0;
    double *p;

    for (size_t i = 0; i < run->ncells; i++)
        if (run->cmp[i].valid && isfinite(run->cmp[i].p))
            m++;
    if (m == 0)
        return SB_OK;
    p = malloc(m * sizeof *p);
    if (!p)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cmp[i].valid && isfinite(run->cmp[i].p))
            p[k++] = run->cmp[i].p;
    if (sb_stats_holm(p, m, p) != SB_OK) {
        free(p);
        return sb__error(err, SB_ENUMERIC, "Holm adjustment failed");
    }
    k = 0;
    for (size_t i = 0; i < run->ncells; i++) {
        sb_comparison *c = &run->cmp[i];
        if (!c->valid || !isfinite(c->p))
            continue;
        c->p_adjusted = p[k++];
        c->verdict = sb_stats_verdict(&c->ratio, c->p_adjusted,
                                      run->analysis.alpha,
                                      run->analysis.threshold);
        c->withheld = 0;
        c->shared_bound = NAN;
        if (!comparable)
            sb__comparison_withhold(c, bound, run->analysis.threshold);
    }
    free(p);
    return SB_OK;
}

static int ensure_cmp(sb_run *run, sb_error *err)
{
    free(run->cmp);
    run->cmp = calloc(run->ncells ? run->ncells : 1, sizeof *run->cmp);
    if (!run->cmp)
        return sb__error(err, SB_ENOMEM, "out of memory");
    return SB_OK;
}

int sb_run_set_baselines(sb_run *run, const size_t *base, sb_error *err)
{
    if (!run || !base)
        return sb__error(err, SB_EINVAL, "sb_run_set_baselines: %s is NULL",
                         !run ? "run" : "base");
    for (size_t i = 0; i < run->ncells; i++)
        if (base[i] != SIZE_MAX && base[i] >= run->ncells)
            return sb__error(err, SB_EINVAL,
                             "baseline %zu of cell %zu: no such cell",
                             base[i], i);
    if (ensure_cmp(run, err) != SB_OK)
        return SB_ENOMEM;
    for (size_t i = 0; i < run->ncells; i++) {
        if (base[i] == SIZE_MAX || base[i] == i)
            continue;
        if (compare_cells(run, base[i], run, i, 1, 1.0, &run->cmp[i]) !=
            SB_OK)
            return sb__error(err, SB_ENOMEM, "out of memory");
        run->cmp[i].base = base[i];
    }
    run->cmp_within = 1;
    /* A run the host profile found on a shared core: its figures are the
     * shared core's, so a verdict would judge the neighbour, unless no
     * sharing the profile measured could have made it (both sides shared
     * every round). */
    return finish_family(run, !run->meta.profile_shared,
                         run->meta.profile_bound, err);
}

int sb_cell_same(const sb_cell *a, const sb_cell *b)
{
    return a && b && a->kernel && b->kernel && sb__cell_order(a, b) == 0;
}

int sb_run_baseline_by(sb_run *run, const char *kernel, size_t src_align,
                       size_t *matched, sb_error *err)
{
    size_t found = 0, *base;
    int rc = SB_OK;

    if (matched)
        *matched = 0;
    if (!run)
        return sb__error(err, SB_EINVAL, "sb_run_baseline_by: run is NULL");
    base = malloc((run->ncells + 1) * sizeof *base);
    if (!base)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < run->ncells; i++) {
        /* The cell wanted: this one with its kernel, or its source
         * offset, replaced; then the one matcher of compare. */
        sb_kernel named = {.name = kernel};
        sb_cell want = run->cells[i].cell;
        if (kernel)
            want.kernel = &named;
        else
            want.src_align = src_align;
        base[i] = SIZE_MAX;
        for (size_t j = 0; j < run->ncells; j++)
            if ((kernel || run->cells[j].cell.kernel ==
                               run->cells[i].cell.kernel) &&
                sb_cell_same(&want, &run->cells[j].cell)) {
                base[i] = j;
                found++;
                break;
            }
    }
    if (found)
        rc = sb_run_set_baselines(run, base, err);
    free(base);
    if (matched)
        *matched = found;
    return rc;
}

/* qsort and bsearch over pointers to the cells of the earlier run, so
 * that matching stays O(n log n) however many cells a file holds. */
static int by_cell(const void *x, const void *y)
{
    const sb_cell_result *const *a = x, *const *b = y;
    return sb__cell_order(&(*a)->cell, &(*b)->cell);
}

int sb_run_compare_to(sb_run *run, const sb_run *before, size_t *matched,
                      sb_error *err)
{
    size_t found = 0;
    const sb_cell_result **index;

    if (!run || !before)
        return sb__error(err, SB_EINVAL, "sb_run_compare_to: %s is NULL",
                         !run ? "run" : "before");
    /* Imported values are in their own unit, not times: against a
     * measured run their ratio is of nothing (0.0000, "faster", seen). */
    if (run->imported != before->imported)
        return sb__error(err, SB_EINVAL,
                         "cannot compare imported samples (statbench "
                         "analyze: values in their own unit) with a "
                         "measured run (times): compare two imported runs, "
                         "or two measured ones");
    /* Two tools' files (Google Benchmark's us, hyperfine's s) hold
     * values whose ratio is of their units, not of their times. */
    if (run->imported && strcmp(run->unit, before->unit))
        return sb__error(err, SB_EINVAL,
                         "cannot compare imported samples in %s%s%s with "
                         "samples in %s%s%s: their ratio would be of the "
                         "units",
                         before->unit[0] ? "'" : "",
                         before->unit[0] ? before->unit : "their own unit",
                         before->unit[0] ? "'" : "",
                         run->unit[0] ? "'" : "",
                         run->unit[0] ? run->unit : "their own unit",
                         run->unit[0] ? "'" : "");
    if (ensure_cmp(run, err) != SB_OK)
        return SB_ENOMEM;
    index = malloc((before->ncells + 1) * sizeof *index);
    if (!index)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t j = 0; j < before->ncells; j++)
        index[j] = &before->cells[j];
    qsort(index, before->ncells, sizeof *index, by_cell);
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *key = &run->cells[i], *const *hit;
        hit = bsearch(&key, index, before->ncells, sizeof *index, by_cell);
        if (!hit)
            continue;
        /* A baseline whose ticks are worth 1 / scale of this run's
         * (another timer, another TSC rate) is converted to this run's
         * ticks first, so that a ratio of times is one of seconds. */
        if (compare_cells(before, (size_t)(*hit - before->cells), run, i,
                          0, run->meta.timer.hz / before->meta.timer.hz,
                          &run->cmp[i]) != SB_OK) {
            free(index);
            return sb__error(err, SB_ENOMEM, "out of memory");
        }
        run->cmp[i].base = (size_t)(*hit - before->cells);
        found++;
    }
    free(index);
    if (matched)
        *matched = found;
    /* One run measured on a shared core throughout: its figures are the
     * shared core's (A/A pairs here: "faster" at 0.63, "slower" at 1.57). */
    run->cmp_within = 0;
    /* Two runs apart share no round: nothing bounds how differently the
     * sharing moved them. */
    return finish_family(run,
                         !sb_run_contention_differ(run, before, NULL, NULL) &&
                             !run->meta.profile_shared &&
                             !before->meta.profile_shared,
                         NAN, err);
}

double sb_run_core_clock(const sb_run *run)
{
    sb_clock_summary c = {.size = sizeof c};

    /* One reader of the run's clocks: the header's clock line's. */
    if (!run || !(run->meta.timer.hz > 0) ||
        sb_run_clock(run, &c, NULL) != SB_OK)
        return NAN;
    return c.median_hz / run->meta.timer.hz;
}

int sb_run_clocks_differ(const sb_run *a, const sb_run *b, double *ghz_a,
                         double *ghz_b)
{
    double ca = sb_run_core_clock(a), cb = sb_run_core_clock(b);
    double ha = a && a->meta.timer.hz > 0 ? a->meta.timer.hz : NAN;
    double hb = b && b->meta.timer.hz > 0 ? b->meta.timer.hz : NAN;
    double fa = ca * ha / 1e9, fb = cb * hb / 1e9;

    if (ghz_a)
        *ghz_a = fa;
    if (ghz_b)
        *ghz_b = fb;
    /* A clock step of this kind of host is 3.5%; the noise of one run's
     * clock, a few tenths of a percent. */
    return isfinite(fa) && isfinite(fb) && fa > 0 && fb > 0 &&
           fabs(fb / fa - 1) > SB_CLOCK_DIFFER;
}

double sb__run_quiet_cycles(const sb_run *run)
{
    /* Without a clock probe ("none") the level is in ticks, which
     * another clock would move; the metadata says so, as merge reads it. */
    if (!run || !strcmp(run->meta.probe, "none") ||
        !(run->meta.contention_quiet > 0))
        return NAN;
    return run->meta.contention_quiet;
}

int sb_run_contention_differ(const sb_run *a, const sb_run *b,
                             double *quiet_a, double *quiet_b)
{
    double qa = sb__run_quiet_cycles(a), qb = sb__run_quiet_cycles(b);
    double margin = NAN;

    if (quiet_a)
        *quiet_a = qa;
    if (quiet_b)
        *quiet_b = qb;
    /* Another CPU model's core has another quiet level. */
    if (a && b && a->meta.cpu_model[0] && b->meta.cpu_model[0] &&
        strcmp(a->meta.cpu_model, b->meta.cpu_model))
        return 0;
    if (a && a->meta.contention_margin > 0)
        margin = a->meta.contention_margin;
    else if (b && b->meta.contention_margin > 0)
        margin = b->meta.contention_margin;
    /* The margin a sample's probe is judged by (5%): beyond it one run's
     * quietest probes were slower than the other's, the core shared. */
    return isfinite(qa) && isfinite(qb) && isfinite(margin) &&
           fmax(qa, qb) / fmin(qa, qb) - 1 > margin;
}
