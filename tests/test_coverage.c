/*
 * test_coverage.c: do the intervals cover as often as they claim?
 *
 * Monte Carlo with GSL's mt19937, one fixed seed per case (listed in
 * cases[] below), 2000 trials a case.  A case passes when the observed
 * coverage lies in [93%, 97%].  With 2000 trials the standard error of a
 * rate near 95% is sqrt(0.95 * 0.05 / 2000) = 0.49 points, so the band is
 * about 4 standard errors either side of 95%.
 *
 * Median: N_MEDIAN = 138 samples a trial.  Order-statistic intervals are
 * exact for continuous data but conservative, because the coverage
 * 1 - 2 P(B <= l - 1), B ~ Bin(n, 1/2), moves in steps.  At 95%:
 *
 *       n    l   exact coverage of [x(l), x(n-l+1)]
 *     100   40   0.964800   (only 1.2 standard errors below 97%)
 *     138   58   0.950152   <- used here
 *     190   82   0.950149
 *     200   86   0.959963
 *
 * (from "/usr/bin/python3 tests/fixtures/make_stats_ref.py --coverage 100
 * 138 190 200", scipy.stats.binom).  The coverage is the same for every
 * continuous distribution, which is the point of the interval, so it is
 * checked on a symmetric, a skewed and a heavy-tailed one, and on Student
 * t with 3 degrees of freedom, which has no finite third moment.
 *
 * Mean: the t interval of N_MEAN = 10 normal samples is exact at 95%.  A
 * normal-quantile (z) interval would cover only about 91.8% at n = 10, so
 * the test also tells t from z.
 *
 * 4 x 2000 x 138 + 2000 x 10 draws: well under a second.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>

#include "statbench.h"
#include "tap.h"

#define TRIALS 2000
#define N_MEDIAN 138
#define N_MEAN 10
#define LEVEL 0.95
#define EXACT_138 0.950152 /* binomial coverage at n = 138, 6 digits */
#define RATE_MIN 0.93
#define RATE_MAX 0.97

static double draw_normal(const gsl_rng *r)
{
    return 100.0 + gsl_ran_gaussian(r, 10.0);
}

static double draw_lognormal(const gsl_rng *r)
{
    return gsl_ran_lognormal(r, 1.0, 1.0);
}

static double draw_exponential(const gsl_rng *r)
{
    return gsl_ran_exponential(r, 2.0);
}

static double draw_t3(const gsl_rng *r)
{
    return gsl_ran_tdist(r, 3.0);
}

struct dist_case {
    const char *name;
    double (*draw)(const gsl_rng *r);
    double median;
    unsigned long seed;
};

/* Run one case; returns the observed coverage, or -1 on an error. */
static double median_coverage(const struct dist_case *c, double *achieved)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[N_MEDIAN];
    size_t covered = 0, t, i;
    double rate = -1.0;

    if (!r)
        return -1.0;
    gsl_rng_set(r, c->seed);
    for (t = 0; t < TRIALS; ++t) {
        sb_interval iv;
        for (i = 0; i < N_MEDIAN; ++i)
            x[i] = c->draw(r);
        gsl_sort(x, 1, N_MEDIAN);
        if (sb_stats_median_ci(x, N_MEDIAN, LEVEL, &iv) != SB_OK)
            goto done;
        *achieved = iv.achieved;
        if (iv.lo <= c->median && c->median <= iv.hi)
            ++covered;
    }
    rate = (double)covered / TRIALS;
done:
    gsl_rng_free(r);
    return rate;
}

static double mean_coverage(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[N_MEAN];
    size_t covered = 0, t, i;
    double rate = -1.0;

    if (!r)
        return -1.0;
    gsl_rng_set(r, seed);
    for (t = 0; t < TRIALS; ++t) {
        sb_interval iv;
        for (i = 0; i < N_MEAN; ++i)
            x[i] = draw_normal(r);
        if (sb_stats_mean_ci(x, N_MEAN, LEVEL, &iv) != SB_OK)
            goto done;
        if (iv.lo <= 100.0 && 100.0 <= iv.hi)
            ++covered;
    }
    rate = (double)covered / TRIALS;
done:
    gsl_rng_free(r);
    return rate;
}

int main(void)
{
    const struct dist_case cases[] = {
        {"normal(100, 10)", draw_normal, 100.0, 20240611},
        {"lognormal(1, 1)", draw_lognormal, M_E, 20240612},
        {"exponential(mean 2)", draw_exponential, 2.0 * M_LN2, 20240613},
        {"Student t(3)", draw_t3, 0.0, 20240614},
    };
    const unsigned long mean_seed = 20240615;
    size_t i;
    double rate;

    sb_init();
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        double achieved = -1.0;
        rate = median_coverage(&cases[i], &achieved);
        tap_ok(rate >= RATE_MIN && rate <= RATE_MAX,
               "%s, n=%d, seed %lu: 95%% median CI covered the median in "
               "%.2f%% of %d trials (exact %.2f%%, want 93..97)",
               cases[i].name, N_MEDIAN, cases[i].seed, 100.0 * rate, TRIALS,
               100.0 * achieved);
        TAP_IS_REL(achieved, EXACT_138, 1e-6,
                   "%s: achieved is the binomial coverage at n=%d",
                   cases[i].name, N_MEDIAN);
    }

    rate = mean_coverage(mean_seed);
    tap_ok(rate >= RATE_MIN && rate <= RATE_MAX,
           "normal(100, 10), n=%d, seed %lu: 95%% t interval covered the "
           "mean in %.2f%% of %d trials (want 93..97)",
           N_MEAN, mean_seed, 100.0 * rate, TRIALS);
    return tap_done();
}
