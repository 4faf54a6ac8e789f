/*
 * stop_rule.c: the stop rule (measure.c's top comment, step 7): whether
 * every cell of an invocation meets the precision target by the one rule
 * of the results, the relative half-width it measures a cell by, and
 * what a check found, for the progress callbacks the rounds and the
 * runner call.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "measure.h"
#include "measure_internal.h"
#include "metric.h"
#include "plan.h"

/* The stop rule (protocol step 6), after a round: 1 when every cell has
 * opt->min_samples and its samples so far meet the precision target, 0
 * to go on, SB_ENOMEM.  The one rule (sb__precision_met) on the one cell
 * interval (sb__cell_interval) of this invocation's samples, never by
 * bootstrap: that would draw a->bootstrap resamples of every cell at
 * every check, time taken from measuring, for an interval the order
 * statistics already bound (the results use the bootstrap, and say when
 * a cell falls short).  Precision 0: no target, so it never holds.
 * Each cell is judged in its metric (sb_metric_choose on its samples so
 * far, as the results will choose): core cycles or time.
 * *check_at is the next round to check at; *scratch grows to fit.
 * With seen (for sb_measure_options.progress_state), every cell is judged, to
 * count those that meet the target, and seen says what the check found;
 * without, the first cell short of it ends the check. */
int sb__stop_rule(const sb_plan *plan, const sb__invocation *inv,
                  const sb_measure_options *opt,
                  const sb_analysis_options *a, size_t *check_at,
                  double **scratch, sb__check *seen)
{
    size_t most = 1;
    double *t;
    int all = 1;

    if (inv->rounds < opt->min_samples || inv->rounds < *check_at ||
        !(a->precision > 0))
        return 0;
    /* It sorts every cell: check it at rounds that grow by about 1/16
     * each time, so its cost stays a small part of the run. */
    *check_at = inv->rounds + 1 + inv->rounds / 16;
    for (size_t i = 0; i < inv->ncells; i++)
        if (inv->cells[i].nsamples > most)
            most = inv->cells[i].nsamples;
    /* Room for a cell's values, then for the interval's work. */
    t = realloc(*scratch, 2 * most * sizeof *t);
    if (!t)
        return SB_ENOMEM;
    *scratch = t;
    if (seen)
        *seen = (sb__check){.at = inv->rounds, .widest = 0};
    for (size_t i = 0; i < inv->ncells; i++) {
        /* A cell short of min_samples has not met it, and needs no
         * interval to say so. */
        double w = inv->cells[i].nsamples < opt->min_samples
                       ? NAN
                       : sb__raw_precision_width(sb_plan_cell(plan, i),
                                                 &inv->cells[i], opt, a,
                                                 inv->meta.l2_bytes, t);
        int met = inv->cells[i].nsamples >= opt->min_samples &&
                  w <= a->precision;
        if (!seen && !met)
            return 0;
        if (seen)
            sb__check_add(seen, met, w);
        all &= met;
    }
    return all;
}

void sb__check_add(sb__check *c, int met, double w)
{
    c->done += met != 0;
    if (!(w <= c->widest)) /* NAN, no interval, counts as INFINITY */
        c->widest = isnan(w) ? INFINITY : w;
}

int sb__progress_call(const sb_measure_options *opt,
                      const sb_analysis_options *a, int between,
                      size_t invocation, size_t round, double elapsed,
                      double time_left, size_t ncells,
                      const sb__check *seen)
{
    int target = a->precision > 0;
    sb_progress p = {
        .size = sizeof p,
        .between = between,
        .invocation = invocation,
        .invocations = opt->invocations ? opt->invocations : 1,
        .round = round,
        .elapsed = elapsed,
        .time_left = time_left > 0 ? time_left : 0,
        .cells = ncells,
        /* Without a target every cell meets it, and nothing stops on
         * it: there is no check, nor a width to tell. */
        .cells_done = target ? seen->done : ncells,
        .checked_at = target ? seen->at : 0,
        .widest = target && seen->at ? seen->widest : NAN,
    };

    if (opt->progress && opt->progress(opt->progress_arg, round, elapsed))
        return 1;
    return opt->progress_state &&
           opt->progress_state(opt->progress_arg, &p);
}

int sb__raw_precision_met(const sb_cell *cell, const sb__raw_cell *r,
                          const sb_measure_options *opt,
                          const sb_analysis_options *an, size_t l2_bytes,
                          double *work)
{
    double w = sb__raw_precision_width(cell, r, opt, an, l2_bytes, work);
    return !isnan(w) && (!(an->precision > 0) || w <= an->precision);
}

double sb__raw_precision_width(const sb_cell *cell, const sb__raw_cell *r,
                               const sb_measure_options *opt,
                               const sb_analysis_options *an,
                               size_t l2_bytes, double *work)
{
    sb_analysis_options a = *an;
    sb_interval ci;
    const char *how;
    size_t n = 0;
    int metric;

    a.bootstrap = 0;
    metric = sb_metric_choose(a.metric, cell, opt->cache, l2_bytes, r->clock,
                              r->nsamples);
    sb__metric_values(metric, r->ticks, r->clock, r->nsamples, work);
    /* Samples without a clock are left out, as in the results. */
    for (size_t s = 0; s < r->nsamples; s++)
        if (isfinite(work[s]))
            work[n++] = work[s];
    if (n == 0 || sb__cell_interval(work, &n, 1, &a, opt->seed,
                                    work + r->nsamples, &ci,
                                    &how) != SB_OK)
        return NAN;
    return sb__precision_width(&ci);
}
