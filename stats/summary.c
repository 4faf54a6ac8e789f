/*
 * summary.c: every statistic of one sample set in one call.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "stats_internal.h"

int sb_stats_summarize(const double *x, size_t n, double level,
                       double *work, sb_summary *out)
{
    size_t i;
    int rc;

    if (!x || !work || !out || n == 0 || !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    /* Check before sorting: a NaN has no place in an ascending order. */
    for (i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return SB_EINVAL;
    sb_init();

    if (work != x)
        memcpy(work, x, n * sizeof *work);
    gsl_sort(work, 1, n);

    out->n = n;
    out->min = work[0];
    out->max = work[n - 1];

    if ((rc = sb_stats_mean_ci(work, n, level, &out->mean_ci)) != SB_OK)
        return rc;
    out->mean = out->mean_ci.estimate;
    out->sd = n > 1 ? gsl_stats_sd_m(work, 1, n, out->mean) : 0.0;
    if (!isfinite(out->sd))
        return SB_ENUMERIC;

    if ((rc = sb_stats_median_ci(work, n, level, &out->median)) != SB_OK)
        return rc;
    return sb_stats_tukey(work, n, &out->outliers);
}

double sb__median_inplace(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}
