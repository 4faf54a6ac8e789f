/*
 * interval.c: confidence intervals for the median (order statistics, exact
 * binomial) and for the mean (Student t).
 *
 * The median interval is distribution-free: for a continuous distribution
 * with median m, the number B of samples below m is Bin(n, 1/2), so
 * [x(l), x(n-l+1)] covers m with probability 1 - 2 P(B <= l - 1).  The
 * stop rule of a measuring loop calls sb_stats_median_ci() after every
 * round, so the order l is found by starting at the normal approximation
 * and stepping, not by scanning from l = 1: three or four binomial CDF
 * evaluations in a sweep of n up to 10^6 and levels 0.3 to 0.999999
 * (about 3 us a call at n = 10^5).
 *
 * gsl_cdf_binomial_P is accurate to about 1e-11 relative at n = 10^4 and
 * 2e-10 at n = 10^5.  Only when P(B <= k) lies that close to the tail
 * probability can rounding pick the neighbouring order; for dyadic levels
 * such as 0.5 at tiny n, where P(B <= k) can equal the tail exactly, GSL
 * may round up and the wider (conservative) interval is returned.
 *
 * Beyond the header's contract: sb_stats_mean_ci() refuses non-finite data
 * with SB_EINVAL and reports an overflowing result as SB_ENUMERIC;
 * sb_stats_median_ci() refuses n > UINT_MAX (GSL counts in unsigned int).
 */
#include "config.h"

#include <limits.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "statbench.h"
#include "order.h"

/* P(B <= k) for B ~ Bin(n, 1/2), or SB_ENUMERIC when GSL returns NaN. */
static int half_binomial_cdf(size_t k, size_t n, double *p)
{
    *p = gsl_cdf_binomial_P((unsigned int)k, 0.5, (unsigned int)n);
    return isnan(*p) ? SB_ENUMERIC : SB_OK;
}

int sb_stats_median_ci(const double *sorted, size_t n, double level,
                       sb_interval *out)
{
    double tail, p, z, guess;
    size_t k, kmax;
    int rc;

    /* !(a && b) also rejects a NaN level. */
    if (!sorted || !out || n == 0 || !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    /* gsl_cdf_binomial_P takes unsigned int counts. */
    if (n > UINT_MAX)
        return SB_EINVAL;
    sb_init();

    out->estimate = gsl_stats_median_from_sorted_data(sorted, 1, n);
    out->level = level;

    /* Coverage of order l = k + 1 is 1 - 2 P(B <= k); it falls as k grows,
     * so the narrowest interval reaching level has the largest k with
     * P(B <= k) <= tail. */
    tail = (1.0 - level) / 2.0;
    if ((rc = half_binomial_cdf(0, n, &p)) != SB_OK)
        return rc;
    if (p > tail) {
        /* Even [x(1), x(n)] falls short: report it with its coverage. */
        out->lo = sorted[0];
        out->hi = sorted[n - 1];
        out->achieved = 1.0 - 2.0 * p;
        return SB_OK;
    }

    /* k <= kmax keeps l <= n - l + 1.  For odd n P(B <= kmax) = 1/2 > tail,
     * so kmax is never chosen there; for even n it can be at low levels. */
    kmax = (n - 1) / 2;

    /* Normal approximation with continuity correction:
     * P(B <= k) ~ Phi((k + 1/2 - n/2) / (sqrt(n)/2)), which is <= tail for
     * k <= n/2 - 1/2 - z sqrt(n)/2 with z = Phi^-1(1 - tail).  It is off by
     * at most a few orders, so the exact search below takes a few steps. */
    z = gsl_cdf_ugaussian_Qinv(tail);
    guess = (double)n / 2.0 - 0.5 - z * sqrt((double)n) / 2.0;
    /* The exact search from the guess is the quantiles' (quantile.c):
     * P(B <= 0) <= tail was checked above, as it asks. */
    if ((rc = sb__binomial_order(n, 0.5, tail, kmax, guess, &k, &p)) !=
        SB_OK)
        return rc;

    out->lo = sorted[k];
    out->hi = sorted[n - 1 - k];
    out->achieved = 1.0 - 2.0 * p;
    return SB_OK;
}

int sb_stats_mean_ci(const double *x, size_t n, double level,
                     sb_interval *out)
{
    double mean, sd, t, half;
    size_t i;

    if (!x || !out || n == 0 || !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    /* A NaN or an infinity would make every field NaN; refuse it as
     * sb_stats_summarize() does rather than return SB_OK with NaNs. */
    for (i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return SB_EINVAL;
    sb_init();

    mean = gsl_stats_mean(x, 1, n);
    out->estimate = mean;
    out->level = level;
    if (n == 1) {
        /* No spread to estimate: the interval is the value itself and
         * claims no confidence. */
        out->lo = out->hi = mean;
        out->achieved = 0.0;
        return SB_OK;
    }

    sd = gsl_stats_sd_m(x, 1, n, mean); /* divides by n - 1 */
    t = gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, (double)(n - 1));
    half = t * sd / sqrt((double)n);
    /* Finite data can still overflow (values near DBL_MAX). */
    if (!isfinite(mean) || !isfinite(half))
        return SB_ENUMERIC;
    out->lo = mean - half;
    out->hi = mean + half;
    out->achieved = level;
    return SB_OK;
}
