/*
 * results.c: from samples to statistics, for measured, loaded and
 * imported runs alike (the run object and its accessors are run.c's,
 * the shared core decided again redecide.c's).
 *
 * Per cell:
 *  - the outlier policy removes Tukey outliers per invocation (fences from
 *    that invocation's own quartiles), counted as rejected;
 *  - descriptive statistics of all samples pooled (ticks_summary);
 *  - the reported interval, sb__cell_interval, the one the stop rule and
 *    the runner ask too: with several invocations, over the invocations'
 *    medians (order statistics, or Student t when there are too few for
 *    the level), so that variation between processes is in it and
 *    samples are never pooled as if independent; with one, the
 *    order-statistic interval of the median, or a BCa bootstrap with
 *    the analysis options' bootstrap resamples;
 *  - whether it reached the precision target: sb__precision_met, the one
 *    rule (design.md, protocol step 6);
 *  - throughput carried through the interval, diagnostics (lag-1
 *    autocorrelation, MAD outliers, minimum detectable effect);
 *  - each counter's count per call: the median of its per-sample values
 *    with an interval of the same kind as the time's (over invocation
 *    medians with several invocations, order statistics with one), and
 *    per byte.  Samples the outlier policy removes take their counter
 *    values and disturbance flags with them.
 *
 * sb_run_reanalyse does it all again with other analysis options, from
 * the samples before the outlier policy (keep_before).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>

#include "metric.h"
#include "plan.h"
#include "run_internal.h"
#include "stats_internal.h"

#define AUTOCORR_WARN 0.2

int sb__invocation_ci(const double *med, size_t m, double level,
                      sb_interval *out, const char **method)
{
    double *sorted;
    int rc;

    if (m < 2)
        return SB_EINVAL;
    sorted = malloc(m * sizeof *sorted);
    if (!sorted)
        return SB_ENOMEM;
    memcpy(sorted, med, m * sizeof *sorted);
    gsl_sort(sorted, 1, m);
    rc = sb_stats_median_ci(sorted, m, level, out);
    if (rc == SB_OK && !(out->achieved < level)) {
        *method = "order statistics over invocation medians";
    } else if (sorted[0] > 0) {
        /* Times are positive and their spread multiplicative: t on the
         * logarithms keeps the interval positive (a geometric mean).
         * Equal medians (counts: 64 page faults a call in every process)
         * give that value exactly, not its exp(log()) round trip. */
        double v0 = sorted[0], v1 = sorted[m - 1];
        for (size_t i = 0; i < m; i++)
            sorted[i] = log(med[i]);
        rc = sb_stats_mean_ci(sorted, m, level, out);
        out->estimate = exp(out->estimate);
        out->lo = exp(out->lo);
        out->hi = exp(out->hi);
        if (rc == SB_OK && v0 == v1)
            out->estimate = out->lo = out->hi = v0;
        *method = "t over log invocation medians (a geometric mean)";
    } else {
        rc = sb_stats_mean_ci(med, m, level, out);
        *method = "t over invocation medians (a mean)";
    }
    free(sorted);
    return rc;
}

int sb__cell_interval(const double *x, const size_t *group, size_t ngroups,
                      const sb_analysis_options *a, uint64_t seed,
                      double *work, sb_interval *out, const char **method)
{
    size_t n = 0, groups = 0;
    int rc;

    *out = (sb_interval){NAN, NAN, NAN, a->ci_level, NAN};
    *method = "none (no samples)";
    for (size_t g = 0; g < ngroups; g++) {
        n += group[g];
        groups += group[g] != 0;
    }
    if (n == 0)
        return SB_EINVAL;
    if (groups >= 2) {
        /* Samples are never pooled across processes as if independent:
         * the interval is over the invocations' medians. */
        double *med = malloc(groups * sizeof *med);
        size_t at = 0, m = 0;
        if (!med)
            return SB_ENOMEM;
        for (size_t g = 0; g < ngroups; g++) {
            if (group[g]) {
                memcpy(work, x + at, group[g] * sizeof *work);
                med[m++] = sb__median_inplace(work, group[g]);
            }
            at += group[g];
        }
        rc = sb__invocation_ci(med, m, a->ci_level, out, method);
        free(med);
        return rc;
    }
    if (a->bootstrap >= 100 && n >= 2) {
        /* The bootstrap resamples x in its own order, from seed: the same
         * run gives the same interval every time it is analysed. */
        *method = "BCa bootstrap of the median";
        return sb_stats_median_boot_ci(x, n, a->ci_level, a->bootstrap,
                                       SB_BOOT_BCA, seed, out);
    }
    memcpy(work, x, n * sizeof *work);
    gsl_sort(work, 1, n);
    *method = "order statistics (exact binomial)";
    return sb_stats_median_ci(work, n, a->ci_level, out);
}

double sb__precision_width(const sb_interval *ci)
{
    /* Relative to the estimate's size: a median of 0 has no relative
     * width, a negative one (samples from elsewhere) its magnitude. */
    double rel = (ci->hi - ci->lo) / 2 / fabs(ci->estimate);
    /* An interval that does not reach its level (too few samples for the
     * order statistics) is narrow for the wrong reason. */
    if (!isfinite(rel) || ci->achieved < ci->level - 1e-9)
        return INFINITY;
    return rel;
}

int sb__precision_met(const sb_interval *ci, double target)
{
    if (!(target > 0))
        return 1; /* no target: there is nothing to fall short of */
    return sb__precision_width(ci) <= target;
}

/* Move the per-sample columns of samples [from, from + n) to to. */
static void move_columns(sb__cell_samples *cs, size_t nc, size_t to,
                         size_t from, size_t n)
{
    if (to == from || n == 0)
        return;
    if (cs->flags)
        memmove(cs->flags + to, cs->flags + from, n);
    if (cs->clock)
        memmove(cs->clock + to, cs->clock + from, n * sizeof *cs->clock);
    if (cs->probes)
        memmove(cs->probes + to * SB_PROBE_READINGS,
                cs->probes + from * SB_PROBE_READINGS,
                n * SB_PROBE_READINGS * sizeof *cs->probes);
    for (size_t j = 0; j < nc; j++)
        if (cs->counters[j])
            memmove(cs->counters[j] + to, cs->counters[j] + from,
                    n * sizeof *cs->counters[j]);
}

/* Remove the Tukey outliers the policy names from each invocation's
 * samples, and their counters and flags; returns how many went. */
static size_t apply_outliers(sb_cell_result *r, sb__cell_samples *cs,
                             size_t nc, int policy, double *work)
{
    size_t removed = 0, in = 0, out = 0;

    if (policy == SB_OUTLIERS_KEEP)
        return 0;
    for (size_t g = 0; g < r->invocations; g++) {
        size_t ng = r->inv_nsamples[g], kept = 0;
        sb_outliers o;
        double lo, hi;
        if (ng == 0)
            continue;
        memcpy(work, r->ticks + in, ng * sizeof *work);
        gsl_sort(work, 1, ng);
        if (sb_stats_tukey(work, ng, &o) != SB_OK) {
            memmove(r->ticks + out, r->ticks + in, ng * sizeof *work);
            move_columns(cs, nc, out, in, ng);
            in += ng;
            out += ng;
            continue;
        }
        lo = policy == SB_OUTLIERS_REJECT_ALL ? o.mild_lo : o.severe_lo;
        hi = policy == SB_OUTLIERS_REJECT_ALL ? o.mild_hi : o.severe_hi;
        for (size_t j = 0; j < ng; j++) {
            double v = r->ticks[in + j];
            if (v < lo || v > hi) {
                removed++;
            } else {
                move_columns(cs, nc, out + kept, in + j, 1);
                r->ticks[out + kept++] = v;
            }
        }
        in += ng;
        out += kept;
        r->inv_nsamples[g] = kept;
    }
    r->nsamples = out;
    return removed;
}

/* The per-call interval of one counter of a cell, over its kept samples'
 * values v (NAN: not read): the cell interval (sb__cell_interval) of the
 * values read, by invocation.  Counts have many ties (every call of an
 * alloc kernel takes the same page faults), where a bootstrap
 * degenerates, so the order statistics serve even when the time's
 * interval is a bootstrap.  The core cycles (boot 1) are a time and take
 * the bootstrap when the options ask for it. */
static int counter_interval(const sb_run *run, const sb_cell_result *r,
                            const double *v, int boot, double *work,
                            sb_interval *out)
{
    sb_analysis_options a;
    double *x = malloc((r->nsamples ? r->nsamples : 1) * sizeof *x);
    size_t *gn = malloc((r->invocations ? r->invocations : 1) * sizeof *gn);
    size_t at = 0, n = 0;
    const char *how;
    int rc = SB_ENOMEM;

    a = run->analysis;
    if (!boot)
        a.bootstrap = 0;
    *out = (sb_interval){NAN, NAN, NAN, a.ci_level, NAN};
    if (x && gn) {
        for (size_t g = 0; g < r->invocations; g++) {
            size_t ng = r->inv_nsamples[g];
            gn[g] = 0;
            for (size_t q = 0; q < ng; q++)
                if (isfinite(v[at + q]))
                    x[n + gn[g]++] = v[at + q];
            n += gn[g];
            at += ng;
        }
        /* No value read: no interval, and no error. */
        rc = n ? sb__cell_interval(x, gn, r->invocations, &a, run->measure.seed,
                                   work, out, &how)
               : SB_OK;
    }
    free(x);
    free(gn);
    return rc;
}

/* Every counter of a cell: names, per-call intervals, per byte. */
static int analyse_counters(const sb_run *run, sb_cell_result *r,
                            const sb__cell_samples *cs, double *work)
{
    size_t nc = sb__run_ncounters(run);

    r->ncounters = nc;
    for (size_t j = 0; j < nc; j++) {
        sb_counter_result *c = &r->counters[j];
        int rc;
        snprintf(c->name, sizeof c->name, "%s", run->meta.counter_names[j]);
        c->per_call = (sb_interval){NAN, NAN, NAN, run->analysis.ci_level,
                                    NAN};
        c->per_byte = NAN;
        if (r->nsamples == 0 || !cs->counters[j])
            continue;
        rc = counter_interval(run, r, cs->counters[j], 0, work,
                              &c->per_call);
        if (rc == SB_ENOMEM)
            return rc;
        if (rc != SB_OK)
            c->per_call = (sb_interval){NAN, NAN, NAN,
                                        run->analysis.ci_level, NAN};
        if (r->cell.size > 0)
            c->per_byte = c->per_call.estimate / (double)r->cell.size;
    }
    return SB_OK;
}

/* The core cycles per call of cell i (ticks times each sample's clock,
 * samples without one left out), per byte, and the metric the cell is
 * judged in. */
static int core_cycles(sb_run *run, size_t i, const sb_analysis_options *a,
                       double *work)
{
    sb_cell_result *r = &run->cells[i];
    const double *clock = run->samples[i].clock;
    double *v;
    int rc = SB_OK;

    r->metric = sb_metric_choose(a->metric, &r->cell, run->measure.cache,
                                 run->meta.l2_bytes, clock, r->nsamples);
    if (!clock)
        return SB_OK;
    v = malloc(r->nsamples * sizeof *v);
    if (!v)
        return SB_ENOMEM;
    sb__metric_values(SB_METRIC_CYCLES, r->ticks, clock, r->nsamples, v);
    for (size_t s = 0; s < r->nsamples; s++)
        r->clock_samples += isfinite(v[s]);
    if (r->clock_samples)
        rc = counter_interval(run, r, v, 1, work, &r->core_cycles);
    free(v);
    return rc;
}


/* A merged run: the cell's interval over its runs' medians, by the rule
 * over invocation medians (sb__invocation_ci), since invocations of one
 * run share its day, its clock step and its neighbours and are no more
 * independent across runs than samples are across invocations; and the
 * variance of the invocation medians split between and within runs. */
/* The figures a reader wants from cell r's intervals: MB/s and ticks
 * per byte from the time's, and the width, precision and smallest
 * detectable change of the one it is judged in.  hz: the timer's rate. */
static int derive_figures(sb_run *run, size_t i,
                          const sb_analysis_options *a, double hz)
{
    sb_cell_result *r = &run->cells[i];
    const sb_interval *m = &r->interval;
    /* What the cell is judged in (sb_metric_choose): its width, its
     * precision and its smallest detectable change. */
    const sb_interval *j =
        r->metric == SB_METRIC_CYCLES ? &r->core_cycles : &r->interval;
    double bytes = (double)r->cell.size;
    /* Throughput falls as time rises: the CI's ends swap.  A cell of no
     * size (an empty region, or values imported in their own unit) has
     * no throughput: NAN, not the 0 MB/s it would divide out to. */
    if (r->cell.size > 0) {
        r->mbps.estimate = bytes * hz / m->estimate / 1e6;
        r->mbps.lo = bytes * hz / m->hi / 1e6;
        /* A t interval on raw medians can reach 0 or below: then the
         * throughput has no upper bound. */
        r->mbps.hi = m->lo > 0 ? bytes * hz / m->lo / 1e6 : INFINITY;
        r->mbps.level = m->level;
        r->mbps.achieved = m->achieved;
    } else
        r->mbps = (sb_interval){NAN, NAN, NAN, m->level, NAN};
    if (r->cell.size > 0)
        r->cycles_per_byte = m->estimate / bytes;
    /* The core cycles per byte are the per-call interval over the size:
     * the same interval, so that both columns agree on what is known. */
    if (r->cell.size > 0 && isfinite(r->core_cycles.estimate)) {
        r->core_per_byte = r->core_cycles;
        r->core_per_byte.estimate /= bytes;
        r->core_per_byte.lo /= bytes;
        r->core_per_byte.hi /= bytes;
        r->core_cycles_per_byte = r->core_per_byte.estimate;
    }
    /* Of the estimate's size, as the precision rule: samples from
     * elsewhere may be negative. */
    r->rel_halfwidth = (j->hi - j->lo) / 2 / fabs(j->estimate);
    r->reached_precision = sb__precision_met(j, a->precision);
    {
        /* The interval's half-width over its quantile is the relative
         * standard error of the estimate, the quantile of the level the
         * interval achieves (an order-statistic one holds more than it
         * asked: at 6 invocations [min, max], 96.9%).  Its units: the runs
         * of a merged run, else the invocations. */
        size_t units = r->runs >= 2 ? r->runs : r->levels.m;
        double df = units >= 2 && !strncmp(r->method, "t over", 6)
                        ? (double)units - 1
                        : 0;
        double lvl = j->achieved > 0 && j->achieved < 1 ? j->achieved
                                                        : a->ci_level;
        double q = df > 0 ? gsl_cdf_tdist_Pinv(0.5 + lvl / 2, df)
                          : gsl_cdf_ugaussian_Pinv(0.5 + lvl / 2);
        r->mde = sb_stats_mde(r->rel_halfwidth / q, df, 0.05, 0.8);
    }
    {
        /* With two units or more, the mde of the comparison the cell
         * stands for (sb__cell_mde), not of its own interval: at 6
         * invocations that is [min, max], whose half-width over its
         * quantile overstates the median's standard error by a quarter
         * (the change it named was called in 88-90% of simulated pairs,
         * not 80%). */
        double cm;
        if (sb__cell_mde(run, i, &cm) != SB_OK)
            return SB_ENOMEM;
        if (isfinite(cm))
            r->mde = cm;
    }
    return SB_OK;
}

/* A merged run: the core cycles' interval over the runs' medians too, as
 * the time's (analyse_runs), from each invocation's median of its
 * samples' core cycles (those without a clock left out). */
static int analyse_runs_cycles(const sb_run *run, size_t i,
                               const sb_analysis_options *a)
{
    sb_cell_result *r = &run->cells[i];
    size_t m = r->invocations, at = 0;
    double *v = malloc((r->nsamples + 1) * sizeof *v);
    double *med = malloc((m + 1) * sizeof *med);
    const char *how;
    int rc = SB_ENOMEM;

    if (!v || !med)
        goto done;
    sb__metric_values(SB_METRIC_CYCLES, r->ticks, run->samples[i].clock,
                      r->nsamples, v);
    for (size_t g = 0; g < m; g++) {
        size_t ng = 0;
        for (size_t k = at; k < at + r->inv_nsamples[g]; k++)
            if (isfinite(v[k]))
                v[at + ng++] = v[k];
        med[g] = ng ? sb__median_inplace(v + at, ng) : NAN;
        at += r->inv_nsamples[g];
    }
    if ((rc = sb__unit_medians(run, med, &m)) != SB_OK)
        goto done;
    if (m < 2) {
        /* Its cycles cannot be judged over runs as its time is: the
         * cell is judged in time, not on an interval of another level. */
        r->metric = SB_METRIC_TIME;
        goto done;
    }
    rc = sb__invocation_ci(med, m, a->ci_level, &r->core_cycles, &how);
done:
    free(v);
    free(med);
    return rc;
}

static int analyse_runs(const sb_run *run, sb_cell_result *r,
                        const sb_analysis_options *a)
{
    size_t m = r->invocations, groups = 0;
    double *med = malloc((m + 1) * sizeof *med);
    const double **gp = malloc((run->nruns + 1) * sizeof *gp);
    size_t *gn = calloc(run->nruns + 1, sizeof *gn);
    double *byrun = malloc((m + 1) * sizeof *byrun);
    int rc = SB_ENOMEM;

    if (!med || !gp || !gn || !byrun)
        goto done;
    memcpy(med, r->inv_median, m * sizeof *med);
    if ((rc = sb__unit_medians(run, med, &m)) != SB_OK)
        goto done;
    free(r->run_median);
    r->run_median = med;
    r->runs = m;
    med = NULL;
    if (r->runs >= 2) {
        const char *how;
        rc = sb__invocation_ci(r->run_median, r->runs, a->ci_level,
                               &r->interval, &how);
        if (rc != SB_OK)
            goto done;
        r->method = !strncmp(how, "order", 5)
                        ? "order statistics over run medians"
                        : "t over log run medians (a geometric mean)";
    }
    /* The invocation medians, grouped by run, for the variance split. */
    {
        size_t at = 0;
        for (size_t u = 0; u < run->nruns; u++) {
            size_t n = 0;
            for (size_t g = 0; g < r->invocations; g++)
                if (run->inv_run[g] == u && isfinite(r->inv_median[g]))
                    byrun[at + n++] = r->inv_median[g];
            if (n) {
                gp[groups] = byrun + at;
                gn[groups++] = n;
            }
            at += n;
        }
    }
    rc = SB_OK;
    if (groups >= 2 &&
        sb_stats_levels(gp, gn, groups, a->ci_level, &r->run_levels) !=
            SB_OK)
        r->run_levels.between_fraction = NAN;
done:
    free(med);
    free(gp);
    free(gn);
    free(byrun);
    return rc;
}

/* Cell r's figures as they are before its analysis: none known, so that
 * a reanalysis keeps nothing of the last. */
static void reset_cell(sb_cell_result *r, const sb_analysis_options *a)
{
    r->interval = (sb_interval){NAN, NAN, NAN, a->ci_level, NAN};
    r->mbps = r->core_cycles = r->core_per_byte = r->interval;
    r->cycles_per_byte = r->rel_halfwidth = r->lag1 = r->mde = NAN;
    r->core_cycles_per_byte = NAN;
    r->clock_samples = 0;
    r->metric = SB_METRIC_TIME;
    r->reached_precision = r->autocorrelated = 0;
    r->method = "none (no samples)";
    memset(&r->levels, 0, sizeof r->levels);
    memset(&r->run_levels, 0, sizeof r->run_levels);
    free(r->inv_median);
    r->inv_median = NULL;
    free(r->run_median);
    r->run_median = NULL;
    r->runs = 0;
}

/* Per-invocation medians (into r->inv_median) and lag-1
 * autocorrelations; the invocations that kept samples listed in gp and
 * gn for the variance split.  Their number; work is scratch. */
static size_t invocation_medians(sb_cell_result *r, double *work,
                                 const double **gp, size_t *gn)
{
    size_t at = 0, nl = 0, groups = 0;
    double lag = 0;

    for (size_t g = 0; g < r->invocations; g++) {
        size_t ng = r->inv_nsamples[g];
        double r1;
        r->inv_median[g] = NAN;
        if (ng) {
            memcpy(work, r->ticks + at, ng * sizeof *work);
            r->inv_median[g] = sb__median_inplace(work, ng);
            gp[groups] = r->ticks + at;
            gn[groups++] = ng;
        }
        if (ng >= 3 && sb_stats_lag1(r->ticks + at, ng, &r1) == SB_OK) {
            lag += r1;
            nl++;
        }
        at += ng;
    }
    r->lag1 = nl ? lag / (double)nl : NAN;
    r->autocorrelated = nl && fabs(r->lag1) > AUTOCORR_WARN;
    return groups;
}

/* Cell i's invocations: their medians, the variance split between and
 * within them, and the cell's interval over them.  *lonely: several
 * invocations, but samples from one. */
static int analyse_invocations(sb_run *run, size_t i,
                               const sb_analysis_options *a, double *work,
                               int *lonely)
{
    sb_cell_result *r = &run->cells[i];
    size_t groups;
    const double **gp;
    size_t *gn;
    int rc;

    r->inv_median = malloc(r->invocations * sizeof *r->inv_median);
    if (!r->inv_median)
        return SB_ENOMEM;
    gp = malloc(r->invocations * sizeof *gp);
    gn = malloc(r->invocations * sizeof *gn);
    if (!gp || !gn) {
        free(gp);
        free(gn);
        return SB_ENOMEM;
    }
    groups = invocation_medians(r, work, gp, gn);
    rc = groups >= 2
             ? sb_stats_levels(gp, gn, groups, a->ci_level, &r->levels)
             : SB_OK;
    free(gp);
    free(gn);
    if (rc == SB_OK)
        rc = sb__cell_interval(r->ticks, r->inv_nsamples, r->invocations, a,
                               run->measure.seed, work, &r->interval,
                               &r->method);
    if (rc != SB_OK)
        return rc;
    /* Several invocations, but samples from one: its interval is the
     * one process's, blind to the spread between processes that the
     * run set out to measure (an invocation stopped, or all its
     * samples rejected).  Said, and the cell falls short. */
    *lonely = groups == 1 && r->invocations >= 2;
    if (*lonely)
        r->method = "over one invocation's samples alone: "
                    "the other invocations kept none, so the spread "
                    "between processes is unknown";
    return SB_OK;
}

static int analyse_cell(sb_run *run, size_t i, const sb_analysis_options *a,
                        double *work)
{
    sb_cell_result *r = &run->cells[i];
    double hz = run->meta.timer.hz > 0 ? run->meta.timer.hz : 1;
    size_t removed;
    int rc, lonely = 0;

    removed = apply_outliers(r, &run->samples[i], sb__run_ncounters(run),
                             a->outliers, work);
    r->rejected[SB_REJECT_OUTLIER] += removed;
    r->rejected_total += removed;

    reset_cell(r, a);
    if (r->nsamples == 0)
        return SB_OK;

    rc = sb_stats_summarize(r->ticks, r->nsamples, a->ci_level, work,
                            &r->ticks_summary);
    if (rc != SB_OK)
        return rc;
    /* work holds the sorted samples now. */
    sb_stats_mad_outliers(work, r->nsamples, 3.0, &r->mad);

    rc = analyse_invocations(run, i, a, work, &lonely);
    if (rc != SB_OK)
        return rc;
    rc = core_cycles(run, i, a, work);
    if (rc != SB_OK)
        return rc;

    if (run->nruns >= 2 && (rc = analyse_runs(run, r, a)) != SB_OK)
        return rc;
    if (run->nruns >= 2 && r->clock_samples &&
        (rc = analyse_runs_cycles(run, i, a)) != SB_OK)
        return rc;

    if ((rc = derive_figures(run, i, a, hz)) != SB_OK)
        return rc;
    if (lonely)
        r->reached_precision = 0;
    return SB_OK;
}

/* A copy of n elements of size each, or NULL (also for p NULL). */
static void *dup_array(const void *p, size_t n, size_t size)
{
    void *q = p ? malloc((n ? n : 1) * size) : NULL;
    if (q && n)
        memcpy(q, p, n * size);
    return q;
}

/* dst: a copy of the n samples' columns of src. */
static int dup_columns(sb__cell_samples *dst, const sb__cell_samples *src,
                       size_t n, size_t nc)
{
    dst->flags = dup_array(src->flags, n, 1);
    dst->clock = dup_array(src->clock, n, sizeof *src->clock);
    dst->probes = dup_array(src->probes, n * SB_PROBE_READINGS,
                            sizeof *src->probes);
    if ((src->flags && !dst->flags) || (src->clock && !dst->clock) ||
        (src->probes && !dst->probes))
        return SB_ENOMEM;
    for (size_t j = 0; j < nc; j++) {
        dst->counters[j] = dup_array(src->counters[j], n,
                                     sizeof *src->counters[j]);
        if (src->counters[j] && !dst->counters[j])
            return SB_ENOMEM;
    }
    return SB_OK;
}

/* Keep every cell's samples as they are now, before an outlier policy
 * removes some or the shared core is decided again, so that
 * sb_run_reanalyse can start again from them. */
static int keep_before(sb_run *run)
{
    size_t nc = sb__run_ncounters(run);

    run->before = calloc(run->ncells ? run->ncells : 1, sizeof *run->before);
    if (!run->before)
        return SB_ENOMEM;
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        const sb__cell_samples *cs = &run->samples[i];
        sb__cell_before *b = &run->before[i];
        size_t n = r->nsamples;
        b->nsamples = n;
        b->rejected_outlier = r->rejected[SB_REJECT_OUTLIER];
        b->rejected_total = r->rejected_total;
        b->ticks = dup_array(r->ticks, n, sizeof *r->ticks);
        b->inv_nsamples = dup_array(r->inv_nsamples, r->invocations,
                                    sizeof *r->inv_nsamples);
        b->rejected_shared = r->rejected[SB_REJECT_SHARED_CORE];
        b->disturbed_shared = r->disturbed[SB_REJECT_SHARED_CORE];
        if ((r->ticks && !b->ticks) ||
            (r->inv_nsamples && !b->inv_nsamples) ||
            dup_columns(&b->cols, cs, n, nc) != SB_OK)
            goto oom;
        if (run->held) {
            const sb__cell_held *h = &run->held[i];
            b->held.n = h->n;
            b->held.ticks = dup_array(h->ticks, h->n, sizeof *h->ticks);
            b->held.at = dup_array(h->at, h->n, sizeof *h->at);
            b->held.inv_n = dup_array(h->inv_n, r->invocations,
                                      sizeof *h->inv_n);
            if ((h->ticks && !b->held.ticks) || (h->at && !b->held.at) ||
                (h->inv_n && !b->held.inv_n) ||
                dup_columns(&b->held.cols, &h->cols, h->n, nc) != SB_OK)
                goto oom;
        }
    }
    return SB_OK;
oom:
    sb__before_free(run);
    return SB_ENOMEM;
}

/* old resized to n elements of size each, holding a copy of src; NULL
 * when out of memory (old is then left as it was). */
static void *restore_array(void *old, const void *src, size_t n, size_t size)
{
    void *p = realloc(old, (n ? n : 1) * size);
    if (p && n)
        memcpy(p, src, n * size);
    return p;
}

/* dst = a copy of the kept src (when there is one), or return ENOMEM. */
#define RESTORE(dst, src, n)                                                 \
    do {                                                                     \
        if (src) {                                                           \
            void *p_ = restore_array((dst), (src), (n), sizeof *(src));     \
            if (!p_)                                                         \
                return SB_ENOMEM;                                            \
            (dst) = p_;                                                      \
        }                                                                    \
    } while (0)

/* Put back the samples keep_before kept. */
static int restore_before(sb_run *run)
{
    size_t nc = sb__run_ncounters(run);

    for (size_t i = 0; i < run->ncells; i++) {
        sb_cell_result *r = &run->cells[i];
        sb__cell_samples *cs = &run->samples[i];
        const sb__cell_before *b = &run->before[i];
        size_t n = b->nsamples;
        RESTORE(r->ticks, b->ticks, n);
        RESTORE(r->inv_nsamples, b->inv_nsamples, r->invocations);
        RESTORE(cs->flags, b->cols.flags, n);
        RESTORE(cs->clock, b->cols.clock, n);
        RESTORE(cs->probes, b->cols.probes, n * SB_PROBE_READINGS);
        for (size_t j = 0; j < nc; j++)
            RESTORE(cs->counters[j], b->cols.counters[j], n);
        r->nsamples = n;
        r->rejected[SB_REJECT_OUTLIER] = b->rejected_outlier;
        r->rejected[SB_REJECT_SHARED_CORE] = b->rejected_shared;
        r->disturbed[SB_REJECT_SHARED_CORE] = b->disturbed_shared;
        r->rejected_total = b->rejected_total;
        if (run->held && !b->held.n) {
            sb__held_free(&run->held[i]);
        } else if (run->held) {
            sb__cell_held *h = &run->held[i];
            const sb__cell_held *bh = &b->held;
            RESTORE(h->ticks, bh->ticks, bh->n);
            RESTORE(h->at, bh->at, bh->n);
            RESTORE(h->inv_n, bh->inv_n, r->invocations);
            RESTORE(h->cols.flags, bh->cols.flags, bh->n);
            RESTORE(h->cols.clock, bh->cols.clock, bh->n);
            RESTORE(h->cols.probes, bh->cols.probes,
                    bh->n * SB_PROBE_READINGS);
            for (size_t j = 0; j < nc; j++)
                RESTORE(h->cols.counters[j], bh->cols.counters[j], bh->n);
            h->n = bh->n;
        }
    }
    return SB_OK;
}

#undef RESTORE

int sb__run_analyse(sb_run *run, sb_error *err)
{
    size_t most = 1;
    double *work;
    sb_analysis_options a;

    a = run->analysis;
    if ((a.outliers != SB_OUTLIERS_KEEP || a.shared_margin >= 0 ||
         a.chain_apart >= 0) &&
        !run->before && keep_before(run) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    /* The clock first: the shared core's new decision converts the
     * contention readings to core cycles with the samples' clocks. */
    if (a.chain_apart >= 0) {
        int rc = sb__run_redecide_clock(run, a.chain_apart, err);
        if (rc != SB_OK)
            return rc;
    }
    if (a.shared_margin >= 0) {
        int rc = sb__run_redecide_shared(run, a.shared_margin, (int)a.shared_level,
                                 err);
        if (rc != SB_OK)
            return rc;
    }
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].nsamples > most)
            most = run->cells[i].nsamples;
    work = malloc(most * sizeof *work);
    if (!work)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < run->ncells; i++) {
        int rc = analyse_cell(run, i, &a, work);
        if (rc == SB_OK)
            rc = analyse_counters(run, &run->cells[i], &run->samples[i],
                                  work);
        if (rc != SB_OK) {
            free(work);
            return sb__error(err, rc, "statistics of cell %zu (%s) failed: %s",
                             i, run->cells[i].cell.kernel->name,
                             sb_strerror(rc));
        }
    }
    free(work);
    return SB_OK;
}

int sb_run_reanalyse(sb_run *run, const sb_analysis_options *a,
                     sb_error *err)
{
    sb_analysis_options full;
    int rc;

    if (!run || !a)
        return sb__error(err, SB_EINVAL, "sb_run_reanalyse: %s is NULL",
                         !run ? "run" : "a");
    if ((rc = sb__analysis_get(a, &full, "sb_run_reanalyse", err)) != SB_OK ||
        (rc = sb_analysis_options_check(&full, err)) != SB_OK ||
        /* Refused before anything changes: the caller keeps its run. */
        (rc = sb__run_redecide_check(run, &full, err)) != SB_OK)
        return rc;
    if (run->before && restore_before(run) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    run->analysis = full;
    /* The comparisons were made from the old statistics. */
    free(run->cmp);
    run->cmp = NULL;
    return sb__run_analyse(run, err);
}
