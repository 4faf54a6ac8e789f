/*
 * results.c: from samples to statistics, for measured, loaded and
 * imported runs alike; the run's accessors.
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

#include "loaded.h"
#include "metric.h"
#include "meta.h"
#include "plan.h"
#include "probe.h"
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

sb_run *sb__run_alloc(size_t ncells, const sb_measure_options *m,
                      const sb_analysis_options *a)
{
    sb_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    if (m)
        run->measure = *m;
    else
        sb_measure_options_init(&run->measure);
    run->measure.progress = NULL;
    run->measure.progress_arg = NULL;
    run->measure.progress_state = NULL;
    if (a)
        run->analysis = *a;
    else
        sb_analysis_options_init(&run->analysis);
    sb__meta_probe_unknown(&run->meta);
    run->ncells = ncells;
    run->cells = calloc(ncells ? ncells : 1, sizeof *run->cells);
    run->samples = calloc(ncells ? ncells : 1, sizeof *run->samples);
    if (!run->cells || !run->samples) {
        free(run->cells);
        free(run->samples);
        free(run);
        return NULL;
    }
    for (size_t i = 0; i < ncells; i++)
        run->cells[i].metric = SB_METRIC_TIME; /* until the analysis
                                                  chooses */
    return run;
}

/* Counters of the run: meta.ncounters, within bounds. */
static size_t run_ncounters(const sb_run *run)
{
    return run->meta.ncounters < SB_MAX_COUNTERS ? run->meta.ncounters
                                                 : SB_MAX_COUNTERS;
}

/* Append raw's per-sample columns to cs, which holds n samples: flags,
 * clocks, probe readings, then each counter of the run, matched by name
 * to the invocation's. */
static int append_columns(const sb_run *run, sb__cell_samples *cs, size_t n,
                          const sb__raw_cell *raw)
{
    size_t total = n + raw->nsamples + 1;
    unsigned char *f = realloc(cs->flags, total);
    double *c;
    if (!f)
        return SB_ENOMEM;
    cs->flags = f;
    if (raw->nsamples && raw->flags)
        memcpy(f + n, raw->flags, raw->nsamples);
    else if (raw->nsamples)
        memset(f + n, 0, raw->nsamples);
    if (!(c = realloc(cs->clock, total * sizeof *c)))
        return SB_ENOMEM;
    cs->clock = c;
    for (size_t q = 0; q < raw->nsamples; q++)
        c[n + q] = raw->clock ? raw->clock[q] : NAN;
    /* Readings only when some invocation has them: the column stays
     * NULL for runs without (older files, imported samples). */
    if (raw->probes || cs->probes) {
        double *p = realloc(cs->probes,
                            total * SB_PROBE_READINGS * sizeof *p);
        if (!p)
            return SB_ENOMEM;
        if (!cs->probes)
            for (size_t q = 0; q < n * SB_PROBE_READINGS; q++)
                p[q] = NAN;
        cs->probes = p;
        for (size_t q = 0; q < raw->nsamples * SB_PROBE_READINGS; q++)
            p[n * SB_PROBE_READINGS + q] = raw->probes ? raw->probes[q] : NAN;
    }
    for (size_t j = 0; j < run_ncounters(run); j++) {
        double *v = realloc(cs->counters[j], total * sizeof *v);
        size_t k = raw->ncounters;
        if (!v)
            return SB_ENOMEM;
        cs->counters[j] = v;
        if (raw->counters && raw->counter_names)
            for (k = 0; k < raw->ncounters; k++)
                if (!strcmp(raw->counter_names[k],
                            run->meta.counter_names[j]))
                    break;
        for (size_t q = 0; q < raw->nsamples; q++)
            v[n + q] = k < raw->ncounters && raw->counters
                           ? raw->counters[q * raw->ncounters + k]
                           : NAN;
    }
    return SB_OK;
}

/* Add invocation m - 1's held samples (raw->held) to cell i's. */
static int append_held(sb_run *run, size_t i, size_t m,
                       const sb__raw_cell *raw)
{
    sb__cell_held *h;
    size_t nh = raw->held ? raw->held->nsamples : 0, *v;
    double *t;

    if (!run->held &&
        !(run->held = calloc(run->ncells ? run->ncells : 1,
                             sizeof *run->held)))
        return SB_ENOMEM;
    h = &run->held[i];
    if (!(v = realloc(h->inv_n, m * sizeof *v)))
        return SB_ENOMEM;
    /* Once the run holds samples every invocation comes through here:
     * a cell's invocations before that held none. */
    if (!h->inv_n)
        for (size_t g = 0; g + 1 < m; g++)
            v[g] = 0;
    h->inv_n = v;
    v[m - 1] = nh;
    if (!nh)
        return SB_OK;
    if (!(t = realloc(h->ticks, (h->n + nh) * sizeof *t)))
        return SB_ENOMEM;
    h->ticks = t;
    if (!(v = realloc(h->at, (h->n + nh) * sizeof *v)))
        return SB_ENOMEM;
    h->at = v;
    if (append_columns(run, &h->cols, h->n, raw->held) != SB_OK)
        return SB_ENOMEM;
    memcpy(t + h->n, raw->held->ticks, nh * sizeof *t);
    memcpy(v + h->n, raw->held_at, nh * sizeof *v);
    h->n += nh;
    return SB_OK;
}

int sb__run_add_invocation(sb_run *run, size_t i, const sb__raw_cell *raw)
{
    sb_cell_result *r = &run->cells[i];
    size_t m = r->invocations + 1;
    double *t = realloc(r->ticks, (r->nsamples + raw->nsamples + 1) *
                                      sizeof *t);
    size_t *in;

    if (!t)
        return SB_ENOMEM;
    r->ticks = t;
    in = realloc(r->inv_nsamples, m * sizeof *in);
    if (!in)
        return SB_ENOMEM;
    r->inv_nsamples = in;
    if (append_columns(run, &run->samples[i], r->nsamples, raw) != SB_OK ||
        ((raw->held || run->held) && append_held(run, i, m, raw) != SB_OK))
        return SB_ENOMEM;
    if (raw->nsamples)
        memcpy(r->ticks + r->nsamples, raw->ticks,
               raw->nsamples * sizeof *t);
    r->nsamples += raw->nsamples;
    r->inv_nsamples[r->invocations] = raw->nsamples;
    r->invocations = m;
    if (raw->iters > r->iters)
        r->iters = raw->iters;
    r->warmup_samples += raw->warmup_samples;
    r->calls += raw->calls;
    r->user_seconds += raw->user;
    r->sys_seconds += raw->sys;
    for (int k = 0; k < SB_REJECT_NREASONS; k++) {
        r->rejected[k] += raw->rejected[k];
        r->rejected_total += raw->rejected[k];
        r->disturbed[k] += raw->disturbed[k];
    }
    return SB_OK;
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
    size_t nc = run_ncounters(run);

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

static int analyse_cell(sb_run *run, size_t i, const sb_analysis_options *a,
                        double *work)
{
    sb_cell_result *r = &run->cells[i];
    double hz = run->meta.timer.hz > 0 ? run->meta.timer.hz : 1;
    size_t removed;
    int rc, lonely = 0;

    removed = apply_outliers(r, &run->samples[i], run_ncounters(run),
                             a->outliers, work);
    r->rejected[SB_REJECT_OUTLIER] += removed;
    r->rejected_total += removed;

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
    if (r->nsamples == 0)
        return SB_OK;

    rc = sb_stats_summarize(r->ticks, r->nsamples, a->ci_level, work,
                            &r->ticks_summary);
    if (rc != SB_OK)
        return rc;
    /* work holds the sorted samples now. */
    sb_stats_mad_outliers(work, r->nsamples, 3.0, &r->mad);

    /* Per-invocation medians and lag-1 autocorrelations. */
    r->inv_median = malloc(r->invocations * sizeof *r->inv_median);
    if (!r->inv_median)
        return SB_ENOMEM;
    {
        size_t at = 0, nl = 0, groups = 0;
        double lag = 0;
        const double **gp = malloc(r->invocations * sizeof *gp);
        size_t *gn = malloc(r->invocations * sizeof *gn);
        if (!gp || !gn) {
            free(gp);
            free(gn);
            return SB_ENOMEM;
        }
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

        rc = groups >= 2 ? sb_stats_levels(gp, gn, groups, a->ci_level,
                                           &r->levels)
                         : SB_OK;
        free(gp);
        free(gn);
        if (rc == SB_OK)
            rc = sb__cell_interval(r->ticks, r->inv_nsamples,
                                   r->invocations, a, run->measure.seed, work,
                                   &r->interval, &r->method);
        if (rc != SB_OK)
            return rc;
        /* Several invocations, but samples from one: its interval is the
         * one process's, blind to the spread between processes that the
         * run set out to measure (an invocation stopped, or all its
         * samples rejected).  Said, and the cell falls short. */
        lonely = groups == 1 && r->invocations >= 2;
        if (lonely)
            r->method = "over one invocation's samples alone: "
                        "the other invocations kept none, so the spread "
                        "between processes is unknown";
    }
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

static void free_columns(sb__cell_samples *cs)
{
    free(cs->flags);
    free(cs->clock);
    free(cs->probes);
    for (size_t j = 0; j < SB_MAX_COUNTERS; j++)
        free(cs->counters[j]);
    memset(cs, 0, sizeof *cs);
}

static void free_held(sb__cell_held *h)
{
    free(h->ticks);
    free(h->inv_n);
    free(h->at);
    free_columns(&h->cols);
    memset(h, 0, sizeof *h);
}

/* Free the samples kept for reanalysis. */
static void free_before(sb_run *run)
{
    for (size_t i = 0; run->before && i < run->ncells; i++) {
        sb__cell_before *b = &run->before[i];
        free(b->ticks);
        free(b->inv_nsamples);
        free_columns(&b->cols);
        free_held(&b->held);
    }
    free(run->before);
    run->before = NULL;
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
    size_t nc = run_ncounters(run);

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
    free_before(run);
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
    size_t nc = run_ncounters(run);

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
            free_held(&run->held[i]);
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

/* ---- The shared core decided again (record, then decide) ------------ */

/* A sample's contention value: the slower of its two contention
 * readings, in core cycles per repetition with its clock when the run has
 * a core clock (cycles), else in ticks per repetition; NAN without. */
static double contention_value(const double *p, double clock, int cycles)
{
    double b = p[SB_PROBE_CONTENTION_BEFORE];
    double a = p[SB_PROBE_CONTENTION_AFTER];
    double v = isnan(b) ? a : isnan(a) ? b : fmax(a, b);
    return cycles ? v * clock : v;
}

/* Columns for n samples: flags, clocks, readings (probes), nc counters. */
static int alloc_columns(sb__cell_samples *cs, size_t n, int probes,
                         size_t nc)
{
    memset(cs, 0, sizeof *cs);
    cs->flags = malloc(n + 1);
    cs->clock = malloc((n + 1) * sizeof *cs->clock);
    cs->probes = probes ? malloc((n + 1) * SB_PROBE_READINGS *
                                 sizeof *cs->probes)
                        : NULL;
    if (!cs->flags || !cs->clock || (probes && !cs->probes))
        return SB_ENOMEM;
    for (size_t j = 0; j < nc; j++)
        if (!(cs->counters[j] = malloc((n + 1) * sizeof *cs->counters[j])))
            return SB_ENOMEM;
    return SB_OK;
}

/* Sample from of (st, sc) as sample to of (dt, dc), flags f. */
static void put_sample(double *dt, sb__cell_samples *dc, size_t to,
                       const double *st, const sb__cell_samples *sc,
                       size_t from, unsigned char f, size_t nc)
{
    dt[to] = st[from];
    dc->flags[to] = f;
    dc->clock[to] = sc->clock ? sc->clock[from] : NAN;
    for (size_t k = 0; dc->probes && k < SB_PROBE_READINGS; k++)
        dc->probes[to * SB_PROBE_READINGS + k] =
            sc->probes ? sc->probes[from * SB_PROBE_READINGS + k] : NAN;
    for (size_t j = 0; j < nc; j++)
        dc->counters[j][to] =
            sc->counters[j] ? sc->counters[j][from] : NAN;
}

/* Which of invocation g's recorded samples of a cell comes at place p:
 * its held sample *hq when that one's place is p (or no kept sample is
 * left), else its kept sample *kq; 1 for held.  The places come from the
 * measurement or a file, so a place out of order only reorders. */
static int next_is_held(const sb__cell_held *h, size_t hoff, size_t nh,
                        size_t hq, size_t nk, size_t kq, size_t p)
{
    if (hq >= nh)
        return 0;
    return kq >= nk || h->at[hoff + hq] == p;
}

/* Invocation quiet models: level[g] and margin[g] fitted to every
 * reading of invocation g's recorded samples, over all cells (as the
 * measurement's model is one per invocation); NAN where too few. */
static int fit_invocations(const sb_run *run, int cycles, size_t ninv,
                           double *level, double *margin)
{
    size_t most = 1;
    double *x;
    /* Each cell's first kept and first held sample of invocation g. */
    size_t *kat = calloc(run->ncells + 1, sizeof *kat);
    size_t *hat = calloc(run->ncells + 1, sizeof *hat);

    for (size_t i = 0; i < run->ncells; i++)
        most += run->cells[i].nsamples +
                (run->held ? run->held[i].n : 0);
    if (!kat || !hat || !(x = malloc(2 * most * sizeof *x))) {
        free(kat);
        free(hat);
        return SB_ENOMEM;
    }
    for (size_t g = 0; g < ninv; g++) {
        size_t n = 0;
        for (size_t i = 0; i < run->ncells; i++) {
            const sb_cell_result *r = &run->cells[i];
            const sb__cell_samples *cs = &run->samples[i];
            const sb__cell_held *h = run->held ? &run->held[i] : NULL;
            size_t ko = kat[i], ho = hat[i];
            if (g >= r->invocations)
                continue;
            kat[i] += r->inv_nsamples[g];
            hat[i] += h && h->inv_n ? h->inv_n[g] : 0;
            for (size_t q = 0; cs->probes && q < r->inv_nsamples[g]; q++)
                for (int k = SB_PROBE_CONTENTION_BEFORE;
                     k <= SB_PROBE_CONTENTION_AFTER; k++) {
                    double c = cs->clock ? cs->clock[ko + q] : NAN;
                    double v = cs->probes[(ko + q) * SB_PROBE_READINGS + k];
                    x[n++] = cycles ? v * c : v;
                }
            for (size_t q = 0; h && h->inv_n && h->cols.probes &&
                               q < h->inv_n[g];
                 q++)
                for (int k = SB_PROBE_CONTENTION_BEFORE;
                     k <= SB_PROBE_CONTENTION_AFTER; k++) {
                    double c = h->cols.clock ? h->cols.clock[ho + q] : NAN;
                    double v =
                        h->cols.probes[(ho + q) * SB_PROBE_READINGS + k];
                    x[n++] = cycles ? v * c : v;
                }
        }
        sb__probe_model(x, n, &level[g], &margin[g], NULL);
    }
    free(x);
    free(kat);
    free(hat);
    return SB_OK;
}

/* Decide cell i's shared core again against the invocations' models:
 * its kept and held samples, merged in the order measured, split anew;
 * where an invocation has no model its samples keep their decision. */
static int redecide_cell(sb_run *run, size_t i, const double *level,
                         const double *margin, double given, double floor)
{
    sb_cell_result *r = &run->cells[i];
    sb__cell_samples *cs = &run->samples[i], kc, hc;
    sb__cell_held *h = &run->held[i];
    size_t nc = run_ncounters(run), total = r->nsamples + h->n;
    size_t ko = 0, ho = 0, nk = 0, nh = 0, *hat, *hinv;
    size_t was_flagged = 0, now_flagged = 0, old_held = h->n;
    double *kt, *ht;
    const unsigned char bit = 1u << SB_REJECT_SHARED_CORE;
    int probes = cs->probes || h->cols.probes;

    kt = malloc((total + 1) * sizeof *kt);
    ht = malloc((total + 1) * sizeof *ht);
    hat = malloc((total + 1) * sizeof *hat);
    hinv = calloc(r->invocations + 1, sizeof *hinv);
    if (!kt || !ht || !hat || !hinv ||
        alloc_columns(&kc, total, probes, nc) != SB_OK ||
        alloc_columns(&hc, total, probes, nc) != SB_OK) {
        free(kt), free(ht), free(hat), free(hinv);
        free_columns(&kc);
        free_columns(&hc);
        return SB_ENOMEM;
    }
    for (size_t g = 0; g < r->invocations; g++) {
        size_t k = r->inv_nsamples[g], hn = h->inv_n ? h->inv_n[g] : 0;
        size_t kq = 0, hq = 0, kept = 0;
        double lim = isfinite(level[g])
                         ? level[g] * (1 + (given > 0 ? given
                                                      : fmax(margin[g],
                                                             floor)))
                         : NAN;
        for (size_t p = 0; p < k + hn; p++) {
            int held = next_is_held(h, ho, hn, hq, k, kq, p);
            const double *st = held ? h->ticks : r->ticks;
            const sb__cell_samples *sc = held ? &h->cols : cs;
            size_t from = held ? ho + hq++ : ko + kq++;
            unsigned char f = sc->flags ? sc->flags[from] : 0;
            double c = sc->clock ? sc->clock[from] : NAN;
            int shared = held;
            was_flagged += (f & bit) != 0;
            if (isfinite(lim) && sc->probes) {
                double v = contention_value(
                    sc->probes + from * SB_PROBE_READINGS, c,
                    floor == 0);
                shared = isfinite(v) && v > lim;
                f = shared ? (unsigned char)(f | bit)
                           : (unsigned char)(f & ~bit);
            }
            now_flagged += (f & bit) != 0;
            if (shared) {
                hat[nh] = p;
                put_sample(ht, &hc, nh++, st, sc, from, f, nc);
                hinv[g]++;
            } else {
                put_sample(kt, &kc, nk++, st, sc, from, f, nc);
                kept++;
            }
        }
        ko += k;
        ho += hn;
        r->inv_nsamples[g] = kept;
    }
    free(r->ticks);
    free_columns(cs);
    r->ticks = kt;
    *cs = kc;
    r->nsamples = nk;
    free_held(h);
    h->n = nh;
    h->ticks = ht;
    h->at = hat;
    h->inv_n = hinv;
    h->cols = hc;
    r->rejected[SB_REJECT_SHARED_CORE] += nh;
    r->rejected[SB_REJECT_SHARED_CORE] -= old_held;
    r->rejected_total += nh;
    r->rejected_total -= old_held;
    r->disturbed[SB_REJECT_SHARED_CORE] += now_flagged;
    r->disturbed[SB_REJECT_SHARED_CORE] -= was_flagged;
    return SB_OK;
}

const char *sb__run_redecide_refused(const sb_run *run)
{
    int any = 0;
    for (size_t i = 0; i < run->ncells; i++)
        any |= run->samples[i].probes != NULL ||
               (run->held && run->held[i].cols.probes);
    return run->imported ? "imported samples have no probes"
           : run->measure.reject != SB_REJECT_DISTURBED
               ? "the run kept every sample (--reject none)"
           : !any ? "the run has no probe readings (measured without the "
                    "contention probe, or saved before readings were "
                    "recorded)"
                  : NULL;
}

/* The analysis' shared-core decision (sb_analysis_options.shared_margin)
 * over every cell.  SB_EINVAL when the run cannot be decided again. */
/* The run's level (sb_analysis_options.shared_level SB_SHARED_RUN): the
 * lowest invocation level another confirms, within the invocations'
 * median margin, for each invocation whose own lies above it (but not
 * three times above: a level that low is a wrong figure, as the
 * measurement's prior rule says, probe.h). */
static int run_level(double *level, const double *margin, size_t ninv)
{
    double *m = malloc((ninv + 1) * sizeof *m), lr, mm;
    size_t n = 0;
    if (!m)
        return SB_ENOMEM;
    for (size_t g = 0; g < ninv; g++)
        if (isfinite(margin[g]))
            m[n++] = margin[g];
    mm = n ? sb__median_inplace(m, n) : NAN;
    free(m);
    lr = isfinite(mm) ? sb__quiet_prior(level, ninv, mm) : NAN;
    for (size_t g = 0; isfinite(lr) && g < ninv; g++)
        if (isfinite(level[g]) && lr < level[g] && lr * 3 >= level[g])
            level[g] = lr;
    return SB_OK;
}

static int redecide_shared(sb_run *run, double given, int level_of,
                           sb_error *err)
{
    int cycles = run->meta.probe[0] && strcmp(run->meta.probe, "none");
    int rc = SB_OK;
    size_t ninv = 0;
    double *level, *margin;
    const char *why = sb__run_redecide_refused(run);

    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].invocations > ninv)
            ninv = run->cells[i].invocations;
    if (why)
        return sb__error(err, SB_EINVAL,
                         "the shared core cannot be decided again: %s", why);
    if (!run->held &&
        !(run->held = calloc(run->ncells ? run->ncells : 1,
                             sizeof *run->held)))
        return sb__error(err, SB_ENOMEM, "out of memory");
    level = malloc((ninv + 1) * sizeof *level);
    margin = malloc((ninv + 1) * sizeof *margin);
    if (!level || !margin ||
        fit_invocations(run, cycles, ninv, level, margin) != SB_OK ||
        (level_of == SB_SHARED_RUN &&
         run_level(level, margin, ninv) != SB_OK))
        rc = SB_ENOMEM;
    for (size_t i = 0; rc == SB_OK && i < run->ncells; i++)
        rc = redecide_cell(run, i, level, margin, given,
                           cycles ? 0 : SB__PROBE_MARGIN_TICKS);
    free(level);
    free(margin);
    return rc == SB_OK ? SB_OK : sb__error(err, rc, "out of memory");
}

int sb__run_analyse(sb_run *run, sb_error *err)
{
    size_t most = 1;
    double *work;
    sb_analysis_options a;

    a = run->analysis;
    if ((a.outliers != SB_OUTLIERS_KEEP || a.shared_margin >= 0) &&
        !run->before && keep_before(run) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    if (a.shared_margin >= 0) {
        int rc = redecide_shared(run, a.shared_margin, (int)a.shared_level,
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
        (rc = sb_analysis_options_check(&full, err)) != SB_OK)
        return rc;
    if (run->before && restore_before(run) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    run->analysis = full;
    /* The comparisons were made from the old statistics. */
    free(run->cmp);
    run->cmp = NULL;
    return sb__run_analyse(run, err);
}

int sb__run_invocation_probe(sb_run *run, size_t g, double clock,
                             double quiet)
{
    if (g >= run->nprobe) {
        double *c = realloc(run->inv_clock, (g + 1) * sizeof *c);
        double *q;
        if (!c)
            return SB_ENOMEM;
        run->inv_clock = c;
        q = realloc(run->inv_quiet, (g + 1) * sizeof *q);
        if (!q)
            return SB_ENOMEM;
        run->inv_quiet = q;
        for (size_t k = run->nprobe; k < g; k++)
            c[k] = q[k] = NAN;
        run->nprobe = g + 1;
    }
    run->inv_clock[g] = clock;
    run->inv_quiet[g] = quiet;
    if (g < SB_PROBE_MAX_INV) {
        for (size_t k = run->meta.probe_ninv; k < g; k++)
            run->meta.probe_inv_clock[k] = run->meta.probe_inv_quiet[k] = NAN;
        run->meta.probe_inv_clock[g] = clock;
        run->meta.probe_inv_quiet[g] = quiet;
        if (run->meta.probe_ninv < g + 1)
            run->meta.probe_ninv = g + 1;
    }
    return SB_OK;
}

/* The invocations with probe figures: those recorded in the run, or a
 * run whose meta alone holds them (a caller's, or one built by a test). */
size_t sb_run_invocation_probes(const sb_run *run)
{
    size_t m;

    if (!run)
        return 0;
    m = run->meta.probe_ninv < SB_PROBE_MAX_INV ? run->meta.probe_ninv
                                                : SB_PROBE_MAX_INV;
    return run->nprobe > m ? run->nprobe : m;
}

static double invocation_probe(const sb_run *run, size_t g, int quiet)
{
    if (!run)
        return NAN;
    if (g < run->nprobe)
        return quiet ? run->inv_quiet[g] : run->inv_clock[g];
    if (g < run->meta.probe_ninv && g < SB_PROBE_MAX_INV)
        return quiet ? run->meta.probe_inv_quiet[g]
                     : run->meta.probe_inv_clock[g];
    return NAN;
}

double sb_run_invocation_clock(const sb_run *run, size_t g)
{
    return invocation_probe(run, g, 0);
}

double sb_run_invocation_quiet(const sb_run *run, size_t g)
{
    return invocation_probe(run, g, 1);
}

void sb_run_free(sb_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; run->cells && i < run->ncells; i++) {
        free(run->cells[i].ticks);
        free(run->cells[i].inv_nsamples);
        free(run->cells[i].inv_median);
        free(run->cells[i].run_median);
        if (run->samples)
            free_columns(&run->samples[i]);
        if (run->held)
            free_held(&run->held[i]);
    }
    free(run->samples);
    free(run->held);
    free_before(run);
    for (size_t i = 0; run->own_kernels && i < run->nown; i++)
        free((char *)run->own_kernels[i].name);
    free(run->own_kernels);
    free(run->cells);
    free(run->cmp);
    free(run->command);
    free(run->inv_run);
    free(run->runs);
    free(run->title);
    free(run->inv_clock);
    free(run->inv_quiet);
    sb__run_free_loaded(run);
    free(run);
}

size_t sb_run_count(const sb_run *run)
{
    return run ? run->ncells : 0;
}

const sb_cell_result *sb_run_cell(const sb_run *run, size_t i)
{
    return run && i < run->ncells ? &run->cells[i] : NULL;
}

const sb_meta *sb_run_meta(const sb_run *run)
{
    return run ? &run->meta : NULL;
}

const sb_measure_options *sb_run_measure_options(const sb_run *run)
{
    return run ? &run->measure : NULL;
}

const sb_analysis_options *sb_run_analysis_options(const sb_run *run)
{
    return run ? &run->analysis : NULL;
}

int sb_run_interrupted(const sb_run *run)
{
    return run ? run->interrupted : 0;
}

const char *sb_run_partial(const sb_run *run)
{
    return run ? run->partial : "";
}

size_t sb_run_empty_cells(const sb_run *run)
{
    size_t empty = 0;
    for (size_t i = 0; run && i < run->ncells; i++)
        if (run->cells[i].nsamples == 0)
            empty++;
    return empty;
}

double sb_run_elapsed(const sb_run *run)
{
    return run ? run->elapsed : 0;
}

size_t sb_run_rounds(const sb_run *run)
{
    return run ? run->rounds : 0;
}

size_t sb_run_invocations(const sb_run *run)
{
    return run ? run->invocations : 0;
}

int sb_run_imported(const sb_run *run)
{
    return run ? run->imported : 0;
}

const char *sb_run_unit(const sb_run *run)
{
    return run ? run->unit : "";
}

const double *sb_run_counter_samples(const sb_run *run, size_t i,
                                     size_t j)
{
    if (!run || !run->samples || i >= run->ncells || j >= run_ncounters(run))
        return NULL;
    return run->samples[i].counters[j];
}

const unsigned char *sb_run_sample_flags(const sb_run *run, size_t i)
{
    if (!run || !run->samples || i >= run->ncells)
        return NULL;
    return run->samples[i].flags;
}


const double *sb_run_sample_clock(const sb_run *run, size_t i)
{
    if (!run || !run->samples || i >= run->ncells)
        return NULL;
    return run->samples[i].clock;
}

const double *sb_run_sample_probes(const sb_run *run, size_t i)
{
    if (!run || i >= run->ncells || !run->cells[i].nsamples)
        return NULL;
    return run->samples[i].probes;
}

/* The layouts of sb_held_samples a caller may have, the current
 * first. */
static const size_t held_sizes[] = {sizeof(sb_held_samples)};

int sb_run_held_samples(const sb_run *run, size_t i, sb_held_samples *out,
                        sb_error *err)
{
    const sb__cell_held *h;
    sb_held_samples full = {.size = sizeof full};
    size_t size;
    int rc;

    if (!run || !out)
        return sb__error(err, SB_EINVAL, "sb_run_held_samples: %s is NULL",
                         !run ? "run" : "out");
    if (i >= run->ncells)
        return sb__error(err, SB_EINVAL,
                         "sb_run_held_samples: cell %zu: the run has %zu", i,
                         run->ncells);
    size = sb__out_size_of(out);
    if ((rc = sb__out_size(size, held_sizes,
                           sizeof held_sizes / sizeof *held_sizes,
                           "sb_held_samples", "sb_run_held_samples", err)) !=
        SB_OK)
        return rc;
    h = run->held ? &run->held[i] : NULL;
    if (h && h->n) {
        full.n = h->n;
        full.ticks = h->ticks;
        full.flags = h->cols.flags;
        full.clock = h->cols.clock;
        full.probes = h->cols.probes;
        for (size_t j = 0; j < run_ncounters(run); j++)
            full.counters[j] = h->cols.counters[j];
        full.invocation_samples = h->inv_n;
        full.at = h->at;
    }
    sb__out_put(out, size, &full);
    return SB_OK;
}

const char *sb_run_command(const sb_run *run)
{
    return run && run->command ? run->command : "";
}

const sb_comparison *sb_run_comparison(const sb_run *run, size_t i)
{
    if (!run || !run->cmp || i >= run->ncells || !run->cmp[i].valid)
        return NULL;
    return &run->cmp[i];
}

int sb_run_set_command(sb_run *run, int argc, char *const argv[],
                       sb_error *err)
{
    size_t len = 1;
    char *s;

    if (!run || argc < 0 || (argc > 0 && !argv))
        return sb__error(err, SB_EINVAL, "sb_run_set_command: %s",
                         !run ? "run is NULL" : argc < 0 ? "argc is negative"
                                                         : "argv is NULL");
    for (int i = 0; i < argc; i++) {
        if (!argv[i])
            return sb__error(err, SB_EINVAL,
                             "sb_run_set_command: argv[%d] is NULL", i);
        len += strlen(argv[i]) + 1;
    }
    s = malloc(len);
    if (!s)
        return sb__error(err, SB_ENOMEM, "out of memory");
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    free(run->command);
    run->command = s;
    return SB_OK;
}

int sb_run_set_title(sb_run *run, const char *title, sb_error *err)
{
    char *s;
    if (!run || !title)
        return sb__error(err, SB_EINVAL, "sb_run_set_title: %s is NULL",
                         !run ? "run" : "title");
    s = strdup(title);
    if (!s)
        return sb__error(err, SB_ENOMEM, "out of memory");
    free(run->title);
    run->title = s;
    return SB_OK;
}

const char *sb_run_title(const sb_run *run)
{
    return run && run->title ? run->title : "";
}

size_t sb__group_end(const sb_run *run, size_t first)
{
    const sb_cell *a = &run->cells[first].cell;
    size_t e = first + 1;
    while (e < run->ncells) {
        const sb_cell *b = &run->cells[e].cell;
        if (b->kernel != a->kernel || b->size != a->size)
            break;
        e++;
    }
    return e;
}

size_t sb__matrix_width(const sb_run *run, size_t first, size_t end)
{
    size_t w = 1, n = end - first;
    const sb_cell *a = &run->cells[first].cell;
    while (first + w < end &&
           run->cells[first + w].cell.dst_align == a->dst_align)
        w++;
    if (w < 2 || n % w || n / w < 2)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const sb_cell *c = &run->cells[first + i].cell;
        if (c->src_align != run->cells[first + i % w].cell.src_align ||
            c->dst_align != run->cells[first + i / w * w].cell.dst_align)
            return 0;
    }
    return w;
}
