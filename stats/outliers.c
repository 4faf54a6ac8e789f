/*
 * outliers.c: Tukey's fences.  Outliers are classified and counted here,
 * never removed: timing noise is real data about the machine, and the
 * reader decides what to make of it.
 */
#include "config.h"

#include <gsl/gsl_statistics_double.h>

#include "sb_internal.h"

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
