/*
 * diagnostics.c: small tools around the estimates: an interval carried
 * through a monotone function, the lag-1 autocorrelation of samples in
 * measured order (drift and periodic disturbance show up there before they
 * spoil an interval), the minimum detectable effect of a comparison, and
 * the quantiles that describe a sample's spread.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_sort.h>

#include "statbench.h"

sb_interval sb_interval_map(sb_interval in, double (*f)(double v, void *arg),
                            void *arg)
{
    sb_interval out = in;
    double a, b;

    /* No function: nothing to map.  The signature leaves no way to report
     * the mistake, so the interval comes back unchanged. */
    if (!f)
        return in;
    out.estimate = f(in.estimate, arg);
    a = f(in.lo, arg);
    b = f(in.hi, arg);
    /* A decreasing f (time -> throughput) swaps the ends. */
    if (a > b) {
        out.lo = b;
        out.hi = a;
    } else {
        out.lo = a;
        out.hi = b;
    }
    return out;
}

int sb_stats_lag1(const double *x, size_t n, double *r1)
{
    double s = 0.0, m, c = 0.0, num = 0.0, den = 0.0, d, prev;
    size_t i;

    if (!x || !r1 || n < 3)
        return SB_EINVAL;
    for (i = 0; i < n; ++i) {
        if (!isfinite(x[i]))
            return SB_EINVAL;
        s += x[i];
    }
    /* The mean, corrected by the mean residual: timings are large numbers
     * with small deviations, where a sloppy mean would bias r1. */
    m = s / (double)n;
    for (i = 0; i < n; ++i)
        c += x[i] - m;
    m += c / (double)n;

    prev = x[0] - m;
    den = prev * prev;
    for (i = 1; i < n; ++i) {
        d = x[i] - m;
        num += prev * d;
        den += d * d;
        prev = d;
    }
    if (!isfinite(num) || !isfinite(den))
        return SB_ENUMERIC; /* finite data near DBL_MAX can overflow */
    *r1 = den > 0.0 ? num / den : 0.0;
    return SB_OK;
}

double sb_stats_mde(double se, double df, double alpha, double power)
{
    double qa, qp;

    /* df == 0 (or +inf) asks for the normal quantiles; a negative or NaN
     * df is a mistake. */
    if (!(se >= 0.0) || !isfinite(se) || !(alpha > 0.0 && alpha < 1.0) ||
        !(power > 0.0 && power < 1.0) || !(df >= 0.0))
        return NAN;
    sb_init();

    /* The upper alpha / 2 quantile from Qinv, so that a small alpha is not
     * rounded away in 1 - alpha / 2. */
    if (df > 0.0 && isfinite(df)) {
        qa = gsl_cdf_tdist_Qinv(alpha / 2.0, df);
        qp = gsl_cdf_tdist_Pinv(power, df);
    } else {
        qa = gsl_cdf_ugaussian_Qinv(alpha / 2.0);
        qp = gsl_cdf_ugaussian_Pinv(power);
    }
    if (!isfinite(qa) || !isfinite(qp))
        return NAN;
    return (qa + qp) * sqrt(2.0) * se;
}

double sb_stats_mde_runs(double rel_sd, double m, double alpha, double power)
{
    /* Fewer than two invocations leave no degrees of freedom; a budget
     * that buys less is read as the two a comparison needs at least. */
    if (!(m >= 2.0))
        m = 2.0;
    if (!(rel_sd >= 0.0))
        return NAN;
    return sb_stats_mde(rel_sd / sqrt(m), 2.0 * m - 2.0, alpha, power);
}

/* The p quantile of sorted[0..n-1], n > 0, interpolated linearly. */
static double quantile7(const double *sorted, size_t n, double p)
{
    double h = p * (double)(n - 1);
    size_t i = (size_t)h;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

int sb_stats_spread(const double *x, size_t n, sb_spread *out)
{
    double *s;

    if (!x || !out || n == 0)
        return SB_EINVAL;
    if (!(s = malloc(n * sizeof *s)))
        return SB_ENOMEM;
    /* A NaN has no place in an ascending order: refused before sorting. */
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            free(s);
            return SB_EINVAL;
        }
        s[i] = x[i];
    }
    gsl_sort(s, 1, n);
    out->median = quantile7(s, n, 0.5);
    out->q1 = quantile7(s, n, 0.25);
    out->q3 = quantile7(s, n, 0.75);
    out->p99 = quantile7(s, n, 0.99);
    out->max = s[n - 1];
    free(s);
    return SB_OK;
}

int sb_stats_kruskal(const double *x, const size_t *n, size_t k, double *h,
                     double *p)
{
    size_t total = 0, *idx, i, g, at;
    double *rank, N, sum = 0.0, ties = 0.0, hh;

    if (!x || !n || !h || !p || k < 2)
        return SB_EINVAL;
    for (g = 0; g < k; ++g) {
        if (n[g] == 0 || n[g] > (size_t)-1 - total)
            return SB_EINVAL;
        total += n[g];
    }
    for (i = 0; i < total; ++i)
        if (!isfinite(x[i]))
            return SB_EINVAL;
    sb_init();

    idx = malloc(total * sizeof *idx);
    rank = malloc(total * sizeof *rank);
    if (!idx || !rank) {
        free(idx);
        free(rank);
        return SB_ENOMEM;
    }
    gsl_sort_index(idx, x, 1, total);
    /* Ranks from 1, a group of equal values sharing their mean rank; the
     * tie term sums t^3 - t over such groups. */
    for (i = 0; i < total;) {
        size_t j = i;
        while (j + 1 < total && x[idx[j + 1]] == x[idx[i]])
            ++j;
        for (size_t q = i; q <= j; ++q)
            rank[idx[q]] = ((double)i + (double)j) / 2.0 + 1.0;
        if (j > i) {
            double t = (double)(j - i + 1);
            ties += t * t * t - t;
        }
        i = j + 1;
    }
    N = (double)total;
    for (g = 0, at = 0; g < k; ++g) {
        double r = 0.0;
        for (i = 0; i < n[g]; ++i)
            r += rank[at + i];
        sum += r * r / (double)n[g];
        at += n[g];
    }
    free(idx);
    free(rank);
    hh = 12.0 / (N * (N + 1.0)) * sum - 3.0 * (N + 1.0);
    if (ties > 0.0) {
        double c = 1.0 - ties / (N * N * N - N);
        if (!(c > 0.0)) {
            /* Every value equal: no group differs. */
            *h = 0.0;
            *p = 1.0;
            return SB_OK;
        }
        hh /= c;
    }
    if (hh < 0.0)
        hh = 0.0; /* rounding of an H of 0 */
    *h = hh;
    *p = gsl_cdf_chisq_Q(hh, (double)(k - 1));
    return isnan(*p) ? SB_ENUMERIC : SB_OK;
}

int sb_stats_blocks_test(const double *x, size_t n, size_t k, double *h,
                         double *p)
{
    size_t *len;
    int rc;

    if (!x || k < 2 || n < 2 * k)
        return SB_EINVAL;
    len = malloc(k * sizeof *len);
    if (!len)
        return SB_ENOMEM;
    /* k consecutive blocks, the first n % k one value longer. */
    for (size_t g = 0; g < k; ++g)
        len[g] = n / k + (g < n % k);
    rc = sb_stats_kruskal(x, len, k, h, p);
    free(len);
    return rc;
}
