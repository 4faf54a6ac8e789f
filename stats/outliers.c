/*
 * outliers.c: Tukey's fences and the MAD rule.  Outliers are classified
 * and counted here, never removed: timing noise is real data about the
 * machine, and the reader decides what to make of it.
 */
#include "config.h"

#include <gsl/gsl_statistics_double.h>

#include "statbench.h"

int sb_stats_tukey(const double *sorted, size_t n, sb_outliers *out)
{
    size_t lo, hi;

    if (!sorted || !out || n == 0)
        return SB_EINVAL;
    sb_init();

    /* GSL interpolates between order statistics at (n - 1) f, which is R's
     * type 7 (and numpy's default "linear"). */
    out->q1 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.25);
    out->q3 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.75);
    out->iqr = out->q3 - out->q1;
    out->mild_lo = out->q1 - 1.5 * out->iqr;
    out->mild_hi = out->q3 + 1.5 * out->iqr;
    out->severe_lo = out->q1 - 3.0 * out->iqr;
    out->severe_hi = out->q3 + 3.0 * out->iqr;

    /* "Beyond" a fence is strictly beyond it: a value on the 1.5 IQR fence
     * is not an outlier, one on the 3 IQR fence is mild.  The data are
     * sorted, so only the outliers themselves are visited, from each end. */
    out->low_mild = out->low_severe = 0;
    out->high_mild = out->high_severe = 0;
    for (lo = 0; lo < n && sorted[lo] < out->mild_lo; ++lo) {
        if (sorted[lo] < out->severe_lo)
            ++out->low_severe;
        else
            ++out->low_mild;
    }
    for (hi = n; hi > lo && sorted[hi - 1] > out->mild_hi; --hi) {
        if (sorted[hi - 1] > out->severe_hi)
            ++out->high_severe;
        else
            ++out->high_mild;
    }
    return SB_OK;
}

/* The constant the header names: 1 / Phi^-1(3/4) = 1.482602218505602...
 * rounded as Leys et al. (2013) and most software quote it.  scipy's
 * median_abs_deviation(scale="normal") uses the full value; the fences
 * differ by 1.5e-6 relative. */
#define SB_MAD_NORMAL 1.4826

int sb_stats_mad_outliers(const double *sorted, size_t n, double k,
                          sb_mad_outliers *out)
{
    size_t left, right, rank, lo_rank, hi_rank;
    double med, a = 0.0, b = 0.0, half;

    /* !(k > 0) also rejects a NaN k. */
    if (!sorted || !out || n == 0 || !(k > 0.0))
        return SB_EINVAL;
    sb_init();

    med = gsl_stats_median_from_sorted_data(sorted, 1, n);

    /* The absolute deviations of sorted data are two ascending runs that
     * start at the median: med - x[i] going left from the first value not
     * below med, x[j] - med going right from it.  Merging them up to the
     * middle ranks gives the MAD in O(n) with no copy and no sort, and the
     * same doubles as fabs(x[i] - med) would (rounding is symmetric). */
    right = 0;
    while (right < n && sorted[right] < med)
        ++right;
    left = right; /* sorted[left - 1] is the next value below med */
    lo_rank = (n - 1) / 2;
    hi_rank = n / 2;
    for (rank = 0; rank <= hi_rank; ++rank) {
        double d;
        if (left > 0 &&
            (right == n || med - sorted[left - 1] <= sorted[right] - med))
            d = med - sorted[--left];
        else
            d = sorted[right++] - med;
        if (rank == lo_rank)
            a = d;
        if (rank == hi_rank)
            b = d;
    }
    /* As gsl_stats_median_from_sorted_data forms a median. */
    out->mad = lo_rank == hi_rank ? a : (a + b) / 2.0;
    out->median = med;
    out->k = k;

    out->low = out->high = 0;
    if (out->mad == 0.0) {
        /* More than half the values are equal: every other value would be
         * "infinitely" far out.  The rule says nothing then. */
        out->lo = out->hi = med;
        return SB_OK;
    }
    half = k * SB_MAD_NORMAL * out->mad;
    out->lo = med - half;
    out->hi = med + half;
    /* Strictly beyond a fence, as for Tukey's; only the outliers
     * themselves are visited, from each end. */
    for (left = 0; left < n && sorted[left] < out->lo; ++left)
        ++out->low;
    for (right = n; right > left && sorted[right - 1] > out->hi; --right)
        ++out->high;
    return SB_OK;
}
