/*
 * compare_run.c: cells against their baselines (docs/design.md, protocol step 10).
 *
 * Which test, and why:
 *  - Both cells measured over several invocations of the same run: each
 *    invocation measured both, so the comparison is paired over
 *    invocations: the ratio of geometric means of the invocations' medians
 *    with a t interval on the log ratios, and the paired t test's p.
 *  - Both over several invocations of separate runs (compare A.json
 *    B.json): Welch's t on the log invocation medians, and its interval of
 *    the ratio of geometric means.
 *  - Otherwise (one invocation): the ratio of the two medians with a BCa
 *    bootstrap interval, and Mann-Whitney's U test on the samples.
 * Then Holm's adjustment over every comparison of the run, and a verdict.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "run_internal.h"

#define COMPARE_BOOTSTRAP 1000

static int all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return 0;
    return n > 0;
}

static void compare_cells(const sb_cell_result *b, const sb_cell_result *c,
                          int paired, const sb_options *o, sb_comparison *out)
{
    int rc = SB_EINVAL;
    double df = 0;

    out->valid = 1;
    out->ratio = (sb_interval){NAN, NAN, NAN, o->ci_level, NAN};
    out->p = out->p_adjusted = out->a12 = out->mde = NAN;
    out->verdict = SB_VERDICT_INCONCLUSIVE;
    out->test = "not comparable (no samples or non-positive times)";

    if (b->invocations >= 2 && c->invocations >= 2 && b->inv_median &&
        c->inv_median && all_positive(b->inv_median, b->invocations) &&
        all_positive(c->inv_median, c->invocations)) {
        if (paired && b->invocations == c->invocations) {
            rc = sb_stats_paired_log(b->inv_median, c->inv_median,
                                     b->invocations, o->ci_level,
                                     &out->ratio, &out->p);
            df = (double)b->invocations - 1;
            out->test = "paired t on log invocation medians";
        } else {
            double t;
            rc = sb_stats_welch_log(b->inv_median, b->invocations,
                                    c->inv_median, c->invocations,
                                    o->ci_level, &t, &df, &out->p,
                                    &out->ratio);
            out->test = "Welch t on log invocation medians";
        }
    } else if (all_positive(b->ticks, b->nsamples) &&
               all_positive(c->ticks, c->nsamples) && b->nsamples >= 2 &&
               c->nsamples >= 2) {
        double u;
        rc = sb_stats_ratio_boot_ci(b->ticks, b->nsamples, c->ticks,
                                    c->nsamples, o->ci_level,
                                    o->bootstrap ? o->bootstrap
                                                 : COMPARE_BOOTSTRAP,
                                    SB_BOOT_BCA, o->seed, &out->ratio);
        if (rc == SB_OK)
            rc = sb_stats_mann_whitney(c->ticks, c->nsamples, b->ticks,
                                       b->nsamples, &u, &out->p, &out->a12);
        out->test = b->invocations >= 2 || c->invocations >= 2
                        ? "Mann-Whitney U, BCa ratio (samples pooled: "
                          "invocation counts differ)"
                        : "Mann-Whitney U, BCa bootstrap ratio";
    }
    if (rc != SB_OK) {
        out->ratio = (sb_interval){NAN, NAN, NAN, o->ci_level, NAN};
        out->p = NAN;
        out->test = "not comparable (no samples or non-positive times)";
        return;
    }
    if (out->ratio.lo > 0 && out->ratio.hi > 0) {
        double q = df > 0 ? gsl_cdf_tdist_Pinv(0.5 + o->ci_level / 2, df)
                          : gsl_cdf_ugaussian_Pinv(0.5 + o->ci_level / 2);
        double se = (log(out->ratio.hi) - log(out->ratio.lo)) / (2 * q);
        /* se is already the difference's; sb_stats_mde takes one side's. */
        out->mde = sb_stats_mde(se / sqrt(2.0), df, o->alpha, 0.8);
    }
}

/* Compare with a baseline from another run whose ticks are worth
 * 1 / scale of this run's (another timer, another TSC rate): its times are
 * converted to this run's ticks first, so the ratio is one of seconds. */
static int compare_scaled(const sb_cell_result *b, const sb_cell_result *c,
                          double scale, const sb_options *o,
                          sb_comparison *out)
{
    sb_cell_result s = *b;
    double *t = NULL, *m = NULL;

    if (scale == 1 || !isfinite(scale) || !(scale > 0)) {
        compare_cells(b, c, 0, o, out);
        return SB_OK;
    }
    t = malloc((b->nsamples + 1) * sizeof *t);
    m = malloc((b->invocations + 1) * sizeof *m);
    if (!t || !m) {
        free(t);
        free(m);
        return SB_ENOMEM;
    }
    for (size_t i = 0; i < b->nsamples; i++)
        t[i] = b->ticks[i] * scale;
    for (size_t i = 0; b->inv_median && i < b->invocations; i++)
        m[i] = b->inv_median[i] * scale;
    s.ticks = t;
    s.inv_median = b->inv_median ? m : NULL;
    compare_cells(&s, c, 0, o, out);
    free(t);
    free(m);
    return SB_OK;
}

/* Holm over the valid comparisons with a p-value, then verdicts. */
static int finish_family(sb_run *run, sb_error *err)
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
                                      run->opt.alpha, run->opt.threshold);
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
        compare_cells(&run->cells[base[i]], &run->cells[i], 1, &run->opt,
                      &run->cmp[i]);
        run->cmp[i].base = base[i];
    }
    return finish_family(run, err);
}

static int cell_order(const sb_cell *a, const sb_cell *b)
{
    int c = strcmp(a->kernel->name, b->kernel->name);
    if (c)
        return c;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    if (a->src_align != b->src_align)
        return a->src_align < b->src_align ? -1 : 1;
    if (a->dst_align != b->dst_align)
        return a->dst_align < b->dst_align ? -1 : 1;
    return 0;
}

int sb_cell_same(const sb_cell *a, const sb_cell *b)
{
    return a && b && a->kernel && b->kernel && cell_order(a, b) == 0;
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
    return cell_order(&(*a)->cell, &(*b)->cell);
}

int sb_run_compare_to(sb_run *run, const sb_run *before, size_t *matched,
                      sb_error *err)
{
    size_t found = 0;
    const sb_cell_result **index;

    if (!run || !before)
        return sb__error(err, SB_EINVAL, "sb_run_compare_to: %s is NULL",
                         !run ? "run" : "before");
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
        if (compare_scaled(*hit, &run->cells[i],
                           run->meta.timer.hz / before->meta.timer.hz,
                           &run->opt, &run->cmp[i]) != SB_OK) {
            free(index);
            return sb__error(err, SB_ENOMEM, "out of memory");
        }
        run->cmp[i].base = (size_t)(*hit - before->cells);
        found++;
    }
    free(index);
    if (matched)
        *matched = found;
    return finish_family(run, err);
}
