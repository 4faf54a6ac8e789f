/*
 * quantile.c: a distribution-free confidence interval for any quantile,
 * from order statistics and the exact binomial distribution.
 *
 * For a continuous distribution with p-quantile q, the number B of samples
 * below q is Bin(n, p), so [x(l), x(u)] covers q with probability
 * P(l <= B < u) = F(u - 1) - F(l - 1), F the CDF of B.  The two ends are
 * chosen apart, each tail at most (1 - level) / 2:
 *   l: the largest order with F(l - 1) <= tail;
 *   u: the smallest order with P(B >= u) <= tail.
 * P(B >= u) is computed as P(B' <= n - u) with B' = n - B ~ Bin(n, 1 - p),
 * so both ends are the same search, "the largest k with P(Bin(n, p) <= k)
 * <= tail", once with p and once with 1 - p.  At p = 0.5 the two searches
 * are the very computation sb_stats_median_ci() does (the same starting
 * guess, the same GSL calls with the same arguments, the same steps), so
 * the interval is bit for bit the median's.
 *
 * When one tail cannot be kept below (1 - level) / 2 even with the extreme
 * order (p = 0.9 and n = 30: P(B = n) = 0.9^30 = 0.042 > 0.025), that end
 * is the sample's extreme and the other end is moved out just far enough
 * for the coverage to reach the level, when it can; when it cannot (or
 * neither tail can be kept), the interval is [min, max] and achieved <
 * level, as the header says.
 *
 * Each search starts at the Cornish-Fisher (normal plus skewness)
 * approximation of the binomial quantile and steps from there: at most 8
 * binomial CDF evaluations a call, both ends together, over n from 5 to
 * 10^6, p from 1e-4 to 0.999 and levels from 0.5 to 0.999999 (13 with the
 * plain normal guess); about 5 us at n = 10^5.
 */
#include "config.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_statistics_double.h>

#include "statbench.h"
#include "order.h"

/* The continued fraction of I_x(a, b) that GSL's gsl_cdf_beta_P evaluates
 * (modified Lentz), with room for the iterations GSL's limit of 512 cuts
 * short: at n = 10^6 GSL's arm64 build stops short and returns NaN for
 * some k (22 of the 601 orders around np at p = 0.001, under qemu-user;
 * GSL on x86-64 from n = 4 * 10^6).  NaN when even these do not converge. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 2.0 * DBL_MIN;
    double num = 1.0, den = 1.0 - (a + b) * x / (a + 1.0), cf;

    if (fabs(den) < tiny)
        den = tiny;
    den = 1.0 / den;
    cf = den;
    for (int k = 1; k <= 100000; k++) {
        for (int half = 0; half < 2; half++) {
            double c = half == 0
                           ? k * (b - k) * x / ((a - 1.0 + 2 * k) * (a + 2 * k))
                           : -(a + k) * (a + b + k) * x /
                                 ((a + 2 * k) * (a + 2 * k + 1.0));
            double d;
            den = 1.0 + c * den;
            if (fabs(den) < tiny)
                den = tiny;
            num = 1.0 + c / num;
            if (fabs(num) < tiny)
                num = tiny;
            den = 1.0 / den;
            d = den * num;
            cf *= d;
            if (half == 1 && fabs(d - 1.0) < 2.0 * DBL_EPSILON)
                return cf;
        }
    }
    return NAN;
}

/* I_x(a, b), the regularized incomplete beta function, from beta_cf on the
 * side of x where the fraction converges fast, as GSL takes it; NaN when
 * ln B(a, b) cannot be had. */
static double beta_inc(double a, double b, double x)
{
    gsl_sf_result lb;
    double pre;

    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    if (x > (a + 1.0) / (a + b + 2.0))
        return 1.0 - beta_inc(b, a, 1.0 - x);
    if (gsl_sf_lnbeta_e(a, b, &lb) != GSL_SUCCESS)
        return NAN;
    pre = exp(a * log(x) + b * log1p(-x) - lb.val);
    return pre * beta_cf(a, b, x) / a;
}

/* P(Bin(n, p) <= k) = I_(1-p)(n - k, k + 1): GSL's, or, when GSL gives NaN
 * (its continued fraction cut short), beta_inc's, which agrees with GSL's
 * within 3e-10 relative wherever GSL converges (n from 10^3 to 4 * 10^6,
 * p from 10^-4 to 0.999, k within 6 sd of np); SB_ENUMERIC when neither
 * has a number. */
static int binomial_cdf(size_t k, double p, size_t n, double *out)
{
    *out = gsl_cdf_binomial_P((unsigned int)k, p, (unsigned int)n);
    if (isnan(*out) && k < n)
        *out = beta_inc((double)(n - k), (double)k + 1.0, 1.0 - p);
    return isnan(*out) ? SB_ENUMERIC : SB_OK;
}

int sb__binomial_order(size_t n, double p, double tail, size_t kmax,
                       double guess, size_t *k, double *f)
{
    size_t j;
    double q;
    int rc;

    if (!(guess > 0.0)) /* also NaN */
        j = 0;
    else if (guess >= (double)kmax)
        j = kmax;
    else
        j = (size_t)guess;

    if ((rc = binomial_cdf(j, p, n, f)) != SB_OK)
        return rc;
    if (*f <= tail) {
        /* Step up while the next order still keeps the tail. */
        while (j < kmax) {
            if ((rc = binomial_cdf(j + 1, p, n, &q)) != SB_OK)
                return rc;
            if (q > tail)
                break;
            ++j;
            *f = q;
        }
    } else {
        /* Step down; F(0) <= tail, so this ends by j == 0 at the latest. */
        do {
            --j;
            if ((rc = binomial_cdf(j, p, n, f)) != SB_OK)
                return rc;
        } while (*f > tail);
    }
    *k = j;
    return SB_OK;
}

/* The largest k in [0, n - 1] with F(k) = P(Bin(n, p) <= k) <= tail, into
 * *k with *f = F(k); *found = 0 (and *f = F(0)) when even F(0) > tail.
 * f0 (optional) receives F(0), the tail beyond the sample's extreme. */
static int lower_order(size_t n, double p, double tail, size_t *k, double *f,
                       int *found, double *f0)
{
    double mu, sigma, gamma, z, guess;
    size_t kmax = n - 1;
    int rc;

    if ((rc = binomial_cdf(0, p, n, f)) != SB_OK)
        return rc;
    if (f0)
        *f0 = *f;
    *k = 0;
    *found = *f <= tail;
    if (!*found)
        return SB_OK;

    /* P(B <= k) ~ Phi((k + 1/2 - mu) / sigma); Cornish-Fisher moves the
     * quantile by sigma (z^2 - 1) gamma / 6 for the skewness gamma.  At
     * p = 0.5 gamma is 0 and the guess is sb_stats_median_ci()'s:
     * n/2 - 1/2 - z sqrt(n)/2, to the last bit. */
    mu = (double)n * p;
    sigma = sqrt((double)n * p * (1.0 - p));
    gamma = (1.0 - 2.0 * p) / sigma;
    z = gsl_cdf_ugaussian_Qinv(tail);
    /* A huge skewness (p near 0 or 1 with small n) makes the correction
     * meaningless; the plain normal guess is used then. */
    if (fabs(gamma) <= 1.0)
        guess = mu - 0.5 + sigma * (-z + (z * z - 1.0) * gamma / 6.0);
    else
        guess = mu - 0.5 - z * sigma;
    return sb__binomial_order(n, p, tail, kmax, guess, k, f);
}

int sb_stats_quantile_ci(const double *sorted, size_t n, double p,
                         double level, sb_interval *out)
{
    double tail, flo, fhi, f0lo, f0hi, room;
    size_t klo, khi, l, u;
    int rc, oklo, okhi, ok;

    if (!sorted || !out || n == 0 || !(p > 0.0 && p < 1.0) ||
        !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    /* gsl_cdf_binomial_P takes unsigned int counts. */
    if (n > UINT_MAX)
        return SB_EINVAL;
    sb_init();

    out->estimate = gsl_stats_quantile_from_sorted_data(sorted, 1, n, p);
    out->level = level;
    tail = (1.0 - level) / 2.0;

    /* Lower end from Bin(n, p), upper end from Bin(n, 1 - p): l = klo + 1
     * and u = n - khi (1-based), flo = F(l - 1), fhi = P(B >= u). */
    if ((rc = lower_order(n, p, tail, &klo, &flo, &oklo, &f0lo)) != SB_OK)
        return rc;
    if ((rc = lower_order(n, 1.0 - p, tail, &khi, &fhi, &okhi, &f0hi)) !=
        SB_OK)
        return rc;

    if (oklo && okhi) {
        l = klo + 1;
        u = n - khi;
        /* l <= u holds in exact arithmetic (each tail is below 1/2); only
         * rounding at levels near 0 could cross them. */
        if (l > u) {
            size_t t = l;
            l = u;
            u = t;
        }
        out->lo = sorted[l - 1];
        out->hi = sorted[u - 1];
        out->achieved = 1.0 - (flo + fhi);
        if (out->achieved < 0.0)
            out->achieved = 0.0;
        return SB_OK;
    }

    if (oklo != okhi) {
        /* One end must be the extreme; move the other one out only as far
         * as the coverage needs: its tail may be at most room. */
        room = 1.0 - level - (oklo ? f0hi : f0lo);
        if (oklo)
            rc = lower_order(n, p, room, &klo, &flo, &ok, NULL);
        else
            rc = lower_order(n, 1.0 - p, room, &khi, &fhi, &ok, NULL);
        if (rc != SB_OK)
            return rc;
        if (ok) {
            out->lo = oklo ? sorted[klo] : sorted[0];
            out->hi = oklo ? sorted[n - 1] : sorted[n - 1 - khi];
            out->achieved = 1.0 - (flo + fhi);
            return SB_OK;
        }
    }

    /* Too few values for the level: [min, max] with its coverage. */
    out->lo = sorted[0];
    out->hi = sorted[n - 1];
    out->achieved = 1.0 - (f0lo + f0hi);
    if (out->achieved < 0.0)
        out->achieved = 0.0;
    return SB_OK;
}
