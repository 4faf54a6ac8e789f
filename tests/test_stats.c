/*
 * test_stats.c: stats/ against reference values computed independently
 * with numpy and scipy (tests/fixtures/make_stats_ref.py writes
 * tests/fixtures/stats_ref.txt; its header describes the format).
 *
 * Tolerances, relative to the reference value (absolute when it is 0):
 *  - REL_EXACT 1e-12 for order statistics, the median, quartiles, mean and
 *    sd: the same arithmetic up to rounding (order statistics are copied
 *    data values, so exact in practice);
 *  - REL_T 1e-9 for the t interval, where GSL's and scipy's inverse t CDFs
 *    are different approximations;
 *  - REL_COVERAGE 1e-8 for the binomial coverage of the median interval.
 *    GSL's gsl_cdf_binomial_P (an incomplete beta continued fraction)
 *    loses digits as n grows: against exact big-integer sums its relative
 *    error was 6e-13 at n = 500, 7e-12 at 1e4, 1.6e-10 at 1e5 and about
 *    2e-9 at 1e6, while scipy's is below 1e-13.  A neighbouring order l
 *    would change the coverage by far more than 1e-8 (1e-4 relative at
 *    n = 1e6), and lo and hi are checked exactly besides.
 * Outlier counts and order indices must match exactly.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "tap.h"

#define REL_EXACT 1e-12
#define REL_T 1e-9
#define REL_COVERAGE 1e-8
#define MAX_LEVELS 8

/* One data set of the fixture with its expected values. */
struct ref_set {
    char name[64];
    size_t n, have;       /* values announced, values read */
    double *x;
    double median, mean, sd;
    double q1, q3;
    long counts[4];       /* low severe, low mild, high mild, high severe */
    size_t nlevels;
    struct {
        double level, mlo, mhi, mach, tlo, thi, tach;
    } ci[MAX_LEVELS];
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check_set(const struct ref_set *r)
{
    const char *nm = r->name;
    size_t n = r->n, i, j;
    double *work = malloc(n * sizeof *work);
    double *copy = malloc(n * sizeof *copy);
    double *sorted = malloc(n * sizeof *sorted);
    double min, max;
    sb_summary s;
    sb_outliers o;
    sb_interval iv;
    int rc;

    if (!work || !copy || !sorted) {
        tap_ok(0, "%s: out of memory", nm);
        goto done;
    }
    memcpy(copy, r->x, n * sizeof *copy);
    memcpy(sorted, r->x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    min = sorted[0];
    max = sorted[n - 1];

    /* Tukey's fences do not depend on the level: check them once. */
    rc = sb_stats_tukey(sorted, n, &o);
    TAP_IS_INT(rc, SB_OK, "%s: sb_stats_tukey returns SB_OK", nm);
    TAP_IS_REL(o.q1, r->q1, REL_EXACT, "%s: q1", nm);
    TAP_IS_REL(o.q3, r->q3, REL_EXACT, "%s: q3", nm);
    TAP_IS_REL(o.iqr, r->q3 - r->q1, REL_EXACT, "%s: iqr", nm);
    TAP_IS_REL(o.mild_lo, r->q1 - 1.5 * (r->q3 - r->q1), REL_EXACT,
               "%s: mild_lo", nm);
    TAP_IS_REL(o.mild_hi, r->q3 + 1.5 * (r->q3 - r->q1), REL_EXACT,
               "%s: mild_hi", nm);
    TAP_IS_REL(o.severe_lo, r->q1 - 3.0 * (r->q3 - r->q1), REL_EXACT,
               "%s: severe_lo", nm);
    TAP_IS_REL(o.severe_hi, r->q3 + 3.0 * (r->q3 - r->q1), REL_EXACT,
               "%s: severe_hi", nm);
    TAP_IS_INT(o.low_severe, r->counts[0], "%s: low severe outliers", nm);
    TAP_IS_INT(o.low_mild, r->counts[1], "%s: low mild outliers", nm);
    TAP_IS_INT(o.high_mild, r->counts[2], "%s: high mild outliers", nm);
    TAP_IS_INT(o.high_severe, r->counts[3], "%s: high severe outliers", nm);

    for (j = 0; j < r->nlevels; ++j) {
        double lv = r->ci[j].level;

        rc = sb_stats_summarize(r->x, n, lv, work, &s);
        TAP_IS_INT(rc, SB_OK, "%s@%g: sb_stats_summarize returns SB_OK", nm,
                   lv);
        TAP_IS_INT(s.n, n, "%s@%g: n", nm, lv);
        TAP_IS_REL(s.min, min, REL_EXACT, "%s@%g: min", nm, lv);
        TAP_IS_REL(s.max, max, REL_EXACT, "%s@%g: max", nm, lv);
        TAP_IS_REL(s.mean, r->mean, REL_EXACT, "%s@%g: mean", nm, lv);
        TAP_IS_REL(s.sd, r->sd, REL_EXACT, "%s@%g: sd", nm, lv);

        TAP_IS_REL(s.median.estimate, r->median, REL_EXACT,
                   "%s@%g: median", nm, lv);
        TAP_IS_REL(s.median.lo, r->ci[j].mlo, REL_EXACT,
                   "%s@%g: median CI lo", nm, lv);
        TAP_IS_REL(s.median.hi, r->ci[j].mhi, REL_EXACT,
                   "%s@%g: median CI hi", nm, lv);
        TAP_IS_REL(s.median.achieved, r->ci[j].mach, REL_COVERAGE,
                   "%s@%g: median CI achieved %.6f", nm, lv, r->ci[j].mach);
        TAP_IS_REL(s.median.level, lv, 0.0, "%s@%g: median CI level", nm,
                   lv);

        TAP_IS_REL(s.mean_ci.estimate, r->mean, REL_EXACT,
                   "%s@%g: mean CI estimate", nm, lv);
        TAP_IS_REL(s.mean_ci.lo, r->ci[j].tlo, REL_T, "%s@%g: t CI lo", nm,
                   lv);
        TAP_IS_REL(s.mean_ci.hi, r->ci[j].thi, REL_T, "%s@%g: t CI hi", nm,
                   lv);
        TAP_IS_REL(s.mean_ci.achieved, r->ci[j].tach, 0.0,
                   "%s@%g: t CI achieved", nm, lv);

        TAP_IS_REL(s.outliers.q1, r->q1, REL_EXACT, "%s@%g: summary q1", nm,
                   lv);
        TAP_IS_REL(s.outliers.q3, r->q3, REL_EXACT, "%s@%g: summary q3", nm,
                   lv);
        TAP_IS_INT(s.outliers.low_severe + s.outliers.low_mild +
                       s.outliers.high_mild + s.outliers.high_severe,
                   r->counts[0] + r->counts[1] + r->counts[2] + r->counts[3],
                   "%s@%g: summary outlier total", nm, lv);

        /* The mean interval straight from the unsorted data. */
        rc = sb_stats_mean_ci(r->x, n, lv, &iv);
        TAP_IS_INT(rc, SB_OK, "%s@%g: sb_stats_mean_ci returns SB_OK", nm,
                   lv);
        TAP_IS_REL(iv.lo, r->ci[j].tlo, REL_T, "%s@%g: t CI lo, unsorted",
                   nm, lv);
        TAP_IS_REL(iv.hi, r->ci[j].thi, REL_T, "%s@%g: t CI hi, unsorted",
                   nm, lv);
    }

    /* x stays the caller's; work holds it sorted. */
    tap_ok(memcmp(copy, r->x, n * sizeof *copy) == 0,
           "%s: sb_stats_summarize leaves x alone", nm);
    for (i = 0; i < n && work[i] == sorted[i]; ++i)
        ;
    TAP_IS_INT(i, n, "%s: work holds x sorted", nm);
done:
    free(work);
    free(copy);
    free(sorted);
}

/* The median interval of 1, 2, ..., n at level must be [l, n - l + 1]. */
static void check_order(size_t n, double level, long l, double achieved)
{
    double *x = tap_ranks(n, "order"); /* n = 0: frees the buffer */
    sb_interval iv;
    int rc;

    if (!x)
        return;
    rc = sb_stats_median_ci(x, n, level, &iv);
    TAP_IS_INT(rc, SB_OK, "order n=%zu level=%g: returns SB_OK", n, level);
    TAP_IS_INT((long long)iv.lo, l, "order n=%zu level=%g: lo = x(l)", n,
               level);
    TAP_IS_INT((long long)iv.hi, (long long)n - l + 1,
               "order n=%zu level=%g: hi = x(n - l + 1)", n, level);
    TAP_IS_REL(iv.achieved, achieved, REL_COVERAGE,
               "order n=%zu level=%g: achieved %.6f", n, level, achieved);
}

/* Read the fixture and check every record.  Returns 0 when the file was
 * read to the end without a format error. */
static int run_fixture(const char *name, size_t *nsets, size_t *norders)
{
    tap_reader fx;
    char *line;
    struct ref_set r;
    int in_set = 0, bad = 0;

    if (tap_fixture_open(&fx, name) != 0)
        return -1;
    memset(&r, 0, sizeof r);
    while (!bad && (line = tap_fixture_next(&fx))) {
        char *p = line, *end;
        if (strncmp(p, "set ", 4) == 0) {
            memset(&r, 0, sizeof r);
            if (in_set || sscanf(p + 4, "%63s %zu", r.name, &r.n) != 2 ||
                r.n == 0 || !(r.x = malloc(r.n * sizeof *r.x)))
                bad = 1;
            in_set = 1;
        } else if (in_set && strncmp(p, "x ", 2) == 0) {
            p += 2;
            for (;;) {
                double v = strtod(p, &end);
                if (end == p)
                    break;
                if (r.have == r.n) {
                    bad = 1;
                    break;
                }
                r.x[r.have++] = v;
                p = end;
            }
        } else if (in_set && strncmp(p, "median ", 7) == 0) {
            bad = sscanf(p + 7, "%lf", &r.median) != 1;
        } else if (in_set && strncmp(p, "mean ", 5) == 0) {
            bad = sscanf(p + 5, "%lf %lf", &r.mean, &r.sd) != 2;
        } else if (in_set && strncmp(p, "tukey ", 6) == 0) {
            bad = sscanf(p + 6, "%lf %lf %ld %ld %ld %ld", &r.q1, &r.q3,
                         &r.counts[0], &r.counts[1], &r.counts[2],
                         &r.counts[3]) != 6;
        } else if (in_set && strncmp(p, "ci ", 3) == 0) {
            size_t j = r.nlevels++;
            bad = j >= MAX_LEVELS ||
                  sscanf(p + 3, "%lf %lf %lf %lf %lf %lf %lf", &r.ci[j].level,
                         &r.ci[j].mlo, &r.ci[j].mhi, &r.ci[j].mach,
                         &r.ci[j].tlo, &r.ci[j].thi, &r.ci[j].tach) != 7;
        } else if (in_set && strncmp(p, "end", 3) == 0) {
            if (r.have != r.n || r.nlevels == 0) {
                bad = 1;
            } else {
                check_set(&r);
                ++*nsets;
            }
            free(r.x);
            r.x = NULL;
            in_set = 0;
        } else if (!in_set && strncmp(p, "order ", 6) == 0) {
            size_t n;
            double level, ach;
            long l;
            if (sscanf(p + 6, "%zu %lf %ld %lf", &n, &level, &l, &ach) != 4 ||
                n == 0) {
                bad = 1;
            } else {
                check_order(n, level, l, ach);
                ++*norders;
            }
        } else {
            bad = 1;
        }
    }
    check_order(0, 0, 0, 0);
    free(r.x);
    return tap_fixture_close(&fx, bad || in_set);
}

static void check_bad_input(void)
{
    const double x[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
    const double bad_levels[] = {0.0, 1.0, 1.5, -0.5, NAN};
    double y[5], work[5];
    sb_interval iv;
    sb_outliers o;
    sb_summary s;
    size_t i;

    TAP_IS_INT(sb_stats_median_ci(x, 0, 0.95, &iv), SB_EINVAL,
               "median_ci: n = 0 is SB_EINVAL");
    TAP_IS_INT(sb_stats_mean_ci(x, 0, 0.95, &iv), SB_EINVAL,
               "mean_ci: n = 0 is SB_EINVAL");
    TAP_IS_INT(sb_stats_tukey(x, 0, &o), SB_EINVAL,
               "tukey: n = 0 is SB_EINVAL");
    TAP_IS_INT(sb_stats_summarize(x, 0, 0.95, work, &s), SB_EINVAL,
               "summarize: n = 0 is SB_EINVAL");

    for (i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; ++i) {
        double lv = bad_levels[i];
        TAP_IS_INT(sb_stats_median_ci(x, 5, lv, &iv), SB_EINVAL,
                   "median_ci: level %g is SB_EINVAL", lv);
        TAP_IS_INT(sb_stats_mean_ci(x, 5, lv, &iv), SB_EINVAL,
                   "mean_ci: level %g is SB_EINVAL", lv);
        TAP_IS_INT(sb_stats_summarize(x, 5, lv, work, &s), SB_EINVAL,
                   "summarize: level %g is SB_EINVAL", lv);
    }

    memcpy(y, x, sizeof y);
    y[2] = NAN;
    TAP_IS_INT(sb_stats_summarize(y, 5, 0.95, work, &s), SB_EINVAL,
               "summarize: NaN data is SB_EINVAL");
    TAP_IS_INT(sb_stats_mean_ci(y, 5, 0.95, &iv), SB_EINVAL,
               "mean_ci: NaN data is SB_EINVAL");
    y[2] = INFINITY;
    TAP_IS_INT(sb_stats_summarize(y, 5, 0.95, work, &s), SB_EINVAL,
               "summarize: infinite data is SB_EINVAL");
    y[2] = -INFINITY;
    TAP_IS_INT(sb_stats_summarize(y, 5, 0.95, work, &s), SB_EINVAL,
               "summarize: -infinite data is SB_EINVAL");

    /* Finite data whose spread overflows a double. */
    {
        const double big[2] = {1e308, -1e308};
        TAP_IS_INT(sb_stats_mean_ci(big, 2, 0.95, &iv), SB_ENUMERIC,
                   "mean_ci: overflowing sd is SB_ENUMERIC");
        TAP_IS_INT(sb_stats_summarize(big, 2, 0.95, work, &s), SB_ENUMERIC,
                   "summarize: overflowing sd is SB_ENUMERIC");
    }

#if SIZE_MAX > UINT_MAX
    /* gsl_cdf_binomial_P counts in unsigned int; refused before x is read. */
    TAP_IS_INT(sb_stats_median_ci(x, (size_t)UINT_MAX + 1, 0.95, &iv),
               SB_EINVAL, "median_ci: n > UINT_MAX is SB_EINVAL");
#endif

    TAP_IS_INT(sb_stats_median_ci(NULL, 5, 0.95, &iv), SB_EINVAL,
               "median_ci: NULL data is SB_EINVAL");
    TAP_IS_INT(sb_stats_median_ci(x, 5, 0.95, NULL), SB_EINVAL,
               "median_ci: NULL out is SB_EINVAL");
    TAP_IS_INT(sb_stats_summarize(x, 5, 0.95, NULL, &s), SB_EINVAL,
               "summarize: NULL work is SB_EINVAL");
}

/* sb_stats_median_ci of x[0..n) at level (written lvl in the messages):
 * [lo, hi], described as "lo = lo_is" and "hi = hi_is", and, unless ach_is
 * is NULL, the achieved coverage ach ("achieved ach_is").  The interval is
 * left in *iv. */
static void check_median_ci(const double *x, size_t n, double level,
                            const char *lvl, double lo, const char *lo_is,
                            double hi, const char *hi_is, double ach,
                            const char *ach_is, sb_interval *iv)
{
    TAP_IS_INT(sb_stats_median_ci(x, n, level, iv), SB_OK,
               "n=%zu level %s: SB_OK", n, lvl);
    TAP_IS_REL(iv->lo, lo, 0.0, "n=%zu level %s: lo = %s", n, lvl, lo_is);
    TAP_IS_REL(iv->hi, hi, 0.0, "n=%zu level %s: hi = %s", n, lvl, hi_is);
    if (ach_is)
        TAP_IS_REL(iv->achieved, ach, REL_EXACT,
                   "n=%zu level %s: achieved %s", n, lvl, ach_is);
}

/* Levels that are not in the fixture's grid, with hand-checked answers. */
static void check_edges(void)
{
    const double x[7] = {1, 2, 3, 4, 5, 6, 7};
    sb_interval iv;

    /* n = 7, level 0.5: P(B <= 1) = 8/128 and P(B <= 2) = 29/128 are both
     * <= 0.25 but P(B <= 3) = 1/2 is not, so l = 3: [3, 5], coverage
     * 1 - 2 * 29/128 = 70/128. */
    check_median_ci(x, 7, 0.5, "0.5", 3.0, "x(3)", 5.0, "x(5)",
                    70.0 / 128.0, "70/128", &iv);
    TAP_IS_REL(iv.estimate, 4.0, 0.0, "n=7: median 4");

    /* A level just below 1 no sample of 7 reaches: min and max. */
    check_median_ci(x, 7, 0.999999, "0.999999", 1.0, "min", 7.0, "max",
                    126.0 / 128.0, "126/128 < level", &iv);

    /* n = 4, level 0.38: the normal guess is k = 1, but P(B <= 1) = 5/16
     * exceeds the tail 0.31, so the search must step down to k = 0:
     * [x(1), x(4)], coverage 1 - 2/16.  (Usually the guess lies at or
     * below the answer and the search steps up.) */
    check_median_ci(x, 4, 0.38, "0.38", 1.0, "x(1)", 4.0, "x(4)",
                    14.0 / 16.0, "14/16", &iv);

    /* A tiny level: the innermost pair of an even sample. */
    check_median_ci(x, 6, 1e-6, "1e-6", 3.0, "x(3)", 4.0, "x(4)", 0.0, NULL,
                    &iv);
    TAP_IS_REL(iv.estimate, 3.5, 0.0, "n=6: median 3.5");

    /* Constant data: every interval collapses onto the value. */
    {
        const double c[4] = {2.5, 2.5, 2.5, 2.5};
        double work[4];
        sb_summary s;
        TAP_IS_INT(sb_stats_summarize(c, 4, 0.5, work, &s), SB_OK,
                   "constant data: SB_OK");
        TAP_IS_REL(s.sd, 0.0, 0.0, "constant data: sd 0");
        TAP_IS_REL(s.mean_ci.lo, 2.5, 0.0, "constant data: t CI lo");
        TAP_IS_REL(s.mean_ci.hi, 2.5, 0.0, "constant data: t CI hi");
        TAP_IS_INT(s.outliers.low_severe + s.outliers.low_mild +
                       s.outliers.high_mild + s.outliers.high_severe,
                   0, "constant data: no outliers");
    }
}

/* noise's statistics: the spread of a sample (R's quantile type 7, values
 * computed by hand: sorted 1 2 3 4 100, p99 at 3.96 is 4 + 0.96 * 96) and
 * the smallest change two runs of m invocations detect. */
static void check_spread_mde(void)
{
    const double x[5] = {4, 1, 3, 2, 100}, bad[2] = {1, NAN};
    sb_spread s;

    TAP_IS_INT(sb_stats_spread(x, 5, &s), SB_OK, "spread: SB_OK");
    TAP_IS_REL(s.median, 3.0, 1e-12, "spread: median");
    TAP_IS_REL(s.q1, 2.0, 1e-12, "spread: first quartile");
    TAP_IS_REL(s.q3, 4.0, 1e-12, "spread: third quartile");
    TAP_IS_REL(s.p99, 96.16, 1e-12, "spread: 99th percentile");
    TAP_IS_REL(s.max, 100.0, 0.0, "spread: max");
    TAP_IS_REL(x[0], 4.0, 0.0, "spread: the data left unsorted");
    TAP_IS_INT(sb_stats_spread(x, 0, &s), SB_EINVAL, "spread: n 0");
    TAP_IS_INT(sb_stats_spread(bad, 2, &s), SB_EINVAL, "spread: NaN");
    TAP_IS_INT(sb_stats_spread(NULL, 2, &s), SB_EINVAL, "spread: NULL");
    /* m = 2: df 2, t(0.975) 4.302653 + t(0.8) 1.060660, times
     * sqrt(2) se with se = 0.1 / sqrt(2). */
    TAP_IS_REL(sb_stats_mde_runs(0.1, 2, 0.05, 0.8), 0.5363313, 1e-6,
               "mde of two runs of 2 invocations");
    TAP_IS_REL(sb_stats_mde_runs(0.1, 0.5, 0.05, 0.8),
               sb_stats_mde_runs(0.1, 2, 0.05, 0.8), 0.0,
               "mde: fewer than 2 invocations read as 2");
    TAP_IS_REL(sb_stats_mde_runs(0.1, 5, 0.05, 0.8),
               sb_stats_mde(0.1 / sqrt(5), 8, 0.05, 0.8), 1e-15,
               "mde of 5 invocations: se / sqrt(5), 8 degrees of freedom");
    tap_ok(isnan(sb_stats_mde_runs(-1, 5, 0.05, 0.8)),
           "mde: a negative sd is NAN");
}

int main(void)
{
    size_t nsets = 0, norders = 0;

    sb_init();
    if (run_fixture("stats_ref.txt", &nsets, &norders) == 0) {
        tap_at_least(nsets, 12, "data sets read");
        tap_at_least(norders, 400, "order records read");
    }
    check_bad_input();
    check_edges();
    check_spread_mde();
    return tap_done();
}
