/*
 * metric.c: what each cell is judged in, time or core cycles
 * (sb_metric_choose), a cell's values in it and the medians of the units
 * its interval is built over (sb__cell_metric_values, sb__unit_medians:
 * what the analysis and the comparisons both read), and the core clock
 * seen over a run (sb_run_clock).
 *
 * Why two metrics: the TSC counts reference ticks at a constant rate,
 * while a vCPU's core clock may step under it (by 3.5% every few tens of
 * milliseconds on the KVM host this was written on).  Work that stays in
 * the core and its caches takes a fixed number of core cycles, so its
 * time moves with the clock and its cycles do not.  Work that waits on
 * DRAM, the kernel or page faults does not scale with the core clock:
 * its cycles would move instead.  One function decides, and the stop
 * rule, the runner and the analysis all ask it.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "metric.h"
#include "run_internal.h"
#include "stats_internal.h"

int sb__metric_cache_resident(const sb_cell *cell, int cache,
                              size_t l2_bytes)
{
    size_t bytes;

    if (!cell || !cell->kernel || cache != SB_CACHE_HOT || l2_bytes == 0)
        return 0;
    /* Sizes and offsets come from a loaded file too: compare them one at
     * a time so that no sum wraps. */
    if (cell->size > l2_bytes || cell->src_align > l2_bytes ||
        cell->dst_align > l2_bytes)
        return 0;
    switch (cell->kernel->family) {
    case SB_FAMILY_COPY:
        bytes = 2 * cell->size + cell->src_align + cell->dst_align;
        break;
    case SB_FAMILY_CLEAR:
        bytes = cell->size + cell->dst_align;
        break;
    default:
        return 0; /* alloc, syscall, samples from elsewhere */
    }
    return bytes <= l2_bytes;
}

int sb_metric_choose(int asked, const sb_cell *cell, int cache,
                     size_t l2_bytes, const double *clock, size_t n)
{
    size_t known = 0;

    if ((asked != SB_METRIC_AUTO && asked != SB_METRIC_CYCLES) || !clock ||
        n == 0)
        return SB_METRIC_TIME;
    if (asked == SB_METRIC_AUTO &&
        !sb__metric_cache_resident(cell, cache, l2_bytes))
        return SB_METRIC_TIME;
    for (size_t s = 0; s < n; s++)
        known += isfinite(clock[s]) && clock[s] > 0;
    /* A few samples without a clock are left out of the cycles; a cell
     * where more lack one is judged in time rather than on a part. */
    return (double)known >= SB_METRIC_CLOCK_SHARE * (double)n
               ? SB_METRIC_CYCLES
               : SB_METRIC_TIME;
}

void sb__metric_values(int metric, const double *ticks, const double *clock,
                       size_t n, double *out)
{
    for (size_t s = 0; s < n; s++)
        out[s] = metric != SB_METRIC_CYCLES ? ticks[s]
                 : clock && isfinite(clock[s]) && clock[s] > 0
                     ? ticks[s] * clock[s]
                     : NAN;
}

/* The layouts of sb_clock_summary a caller may have, the current
 * first. */
static const size_t clock_sizes[] = {sizeof(sb_clock_summary)};

/* sb_run_clock into the library's whole struct. */
static int run_clock(const sb_run *run, sb_clock_summary *out)
{
    size_t ninv = 0, total = 0, most = 0, m = 0, *at;
    double *inv, *x;

    *out = (sb_clock_summary){sizeof *out, 0, 0, NAN, NAN, 0, NAN};
    for (size_t i = 0; i < run->ncells; i++) {
        if (run->cells[i].invocations > ninv)
            ninv = run->cells[i].invocations;
        total += run->cells[i].nsamples;
    }
    inv = malloc((ninv ? ninv : 1) * sizeof *inv);
    x = malloc((total ? total : 1) * sizeof *x);
    /* Where invocation g starts in each cell: one pass, not a sum over
     * the invocations before g for every g (a file may hold many). */
    at = calloc(run->ncells + 1, sizeof *at);
    if (!inv || !x || !at) {
        free(inv);
        free(x);
        free(at);
        return SB_ENOMEM;
    }
    /* Invocation g's samples are the g-th group of every cell. */
    for (size_t g = 0; g < ninv; g++) {
        size_t k = 0, had = 0;
        for (size_t i = 0; i < run->ncells; i++) {
            const sb_cell_result *r = &run->cells[i];
            const double *c = run->samples ? run->samples[i].clock : NULL;
            size_t o = at[i];
            if (g >= r->invocations || !r->inv_nsamples)
                continue;
            at[i] += r->inv_nsamples[g];
            had += r->inv_nsamples[g];
            for (size_t q = 0; c && q < r->inv_nsamples[g]; q++)
                if (isfinite(c[o + q]) && c[o + q] > 0)
                    x[k++] = c[o + q];
        }
        most += had > 0;
        if (k)
            inv[m++] = sb__median_inplace(x, k) * run->meta.timer.hz;
    }
    out->total = most;
    out->invocations = m;
    if (m) {
        gsl_sort(inv, 1, m);
        out->lo_hz = inv[0];
        out->hi_hz = inv[m - 1];
        out->median_hz = gsl_stats_median_from_sorted_data(inv, 1, m);
        out->states = 1;
        for (size_t g = 1; g < m; g++)
            out->states += inv[g] > inv[g - 1] * (1 + SB_CLOCK_STATE_GAP);
    }
    free(inv);
    free(x);
    free(at);
    return SB_OK;
}

int sb_run_clock(const sb_run *run, sb_clock_summary *out, sb_error *err)
{
    sb_clock_summary full;
    size_t size;
    int rc;

    if (!run || !out)
        return sb__error(err, SB_EINVAL, "sb_run_clock: %s is NULL",
                         !run ? "run" : "out");
    size = sb__out_size_of(out);
    if ((rc = sb__out_size(size, clock_sizes,
                           sizeof clock_sizes / sizeof *clock_sizes,
                           "sb_clock_summary", "sb_run_clock", err)) != SB_OK)
        return rc;
    if ((rc = run_clock(run, &full)) == SB_ENOMEM)
        sb__error(err, rc, "sb_run_clock: out of memory");
    sb__out_put(out, size, &full);
    return rc;
}

void sb__cell_metric_values(const sb_run *run, size_t i, double *out)
{
    const sb_cell_result *r = &run->cells[i];
    const double *clock = run->samples ? run->samples[i].clock : NULL;

    /* NAN for a sample without a clock in a cell judged in cycles. */
    sb__metric_values(r->metric, r->ticks, clock, r->nsamples, out);
}

int sb__unit_medians(const sb_run *run, double *med, size_t *m)
{
    size_t k = 0;

    if (run->nruns >= 2 && run->inv_run && *m == run->invocations) {
        /* Each run's median of its invocations' medians, in run order. */
        double *work = malloc((*m + 1) * sizeof *work);
        if (!work)
            return SB_ENOMEM;
        for (size_t u = 0; u < run->nruns; u++) {
            size_t n = 0;
            for (size_t g = 0; g < *m; g++)
                if (run->inv_run[g] == u && isfinite(med[g]))
                    work[n++] = med[g];
            if (n)
                med[k++] = sb__median_inplace(work, n);
        }
        free(work);
        *m = k;
        return SB_OK;
    }
    for (size_t g = 0; g < *m; g++)
        if (isfinite(med[g]))
            med[k++] = med[g];
    *m = k;
    return SB_OK;
}
