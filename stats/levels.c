/*
 * levels.c: the invocation level.  Samples taken in one process share
 * that process's memory layout, page placement and frequency history, so
 * they are not independent draws: an interval from all samples pooled is
 * too narrow, and the more so the more samples each invocation takes
 * (Kalibera and Jones, ISMM 2013).  The interval here is Student t over
 * one estimate (the median) per invocation, and the one-way random-effects
 * ANOVA says how the variance splits between and within invocations.
 *
 * Variance components by the method of moments for unbalanced groups
 * (Searle, Casella and McCulloch, "Variance Components", 1992, sec. 3.6):
 * with N values in m groups of n_i,
 *   MSB = sum n_i (mean_i - mean)^2 / (m - 1),
 *   MSW = sum_i sum_j (x_ij - mean_i)^2 / (N - m),
 *   n0  = (N - sum n_i^2 / N) / (m - 1),
 *   var_between = max(0, (MSB - MSW) / n0),  var_within = MSW,
 * since E[MSW] = s_w^2 and E[MSB] = s_w^2 + n0 s_b^2.
 *
 * Beyond the header's contract: NULL pointers and a level outside (0, 1)
 * are SB_EINVAL.  When every group holds one value (N == m) there is no
 * within-group spread to measure: the interval is still computed, and
 * var_between, var_within and between_fraction are NaN.  When all values
 * are equal both components are 0 and so is between_fraction.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "statbench.h"

int sb_stats_levels(const double *const *groups, const size_t *n, size_t m,
                    double level, sb_levels *out)
{
    double *work = NULL, *med = NULL, *mean = NULL;
    double dn = 0.0, sum_n2 = 0.0, grand = 0.0, ssb = 0.0, ssw = 0.0;
    size_t i, j, total = 0, maxn = 0;
    int rc = SB_OK;

    if (!groups || !n || !out || m < 2 || !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    for (i = 0; i < m; ++i) {
        if (!groups[i] || n[i] == 0 || n[i] > (size_t)-1 - total)
            return SB_EINVAL;
        for (j = 0; j < n[i]; ++j)
            if (!isfinite(groups[i][j]))
                return SB_EINVAL;
        total += n[i];
        if (n[i] > maxn)
            maxn = n[i];
    }
    sb_init();

    work = malloc(maxn * sizeof *work);
    med = malloc(m * sizeof *med);
    mean = malloc(m * sizeof *mean);
    if (!work || !med || !mean) {
        rc = SB_ENOMEM;
        goto done;
    }

    /* Per group: median (of a sorted copy), mean, squared deviations. */
    for (i = 0; i < m; ++i) {
        double ni = (double)n[i];
        memcpy(work, groups[i], n[i] * sizeof *work);
        gsl_sort(work, 1, n[i]);
        med[i] = gsl_stats_median_from_sorted_data(work, 1, n[i]);
        mean[i] = gsl_stats_mean(work, 1, n[i]);
        for (j = 0; j < n[i]; ++j) {
            double d = work[j] - mean[i];
            ssw += d * d;
        }
        dn += ni;
        sum_n2 += ni * ni;
        grand += ni * mean[i];
    }
    grand /= dn;
    for (i = 0; i < m; ++i) {
        double d = mean[i] - grand;
        ssb += (double)n[i] * d * d;
    }

    out->m = m;
    out->n = total;
    if ((rc = sb_stats_mean_ci(med, m, level, &out->ci)) != SB_OK)
        goto done;
    out->sd_between_est = gsl_stats_sd_m(med, 1, m, out->ci.estimate);

    if (total > m) {
        double msb = ssb / (double)(m - 1);
        double msw = ssw / (double)(total - m);
        double n0 = (dn - sum_n2 / dn) / (double)(m - 1);
        double vb = (msb - msw) / n0;
        out->var_between = vb > 0.0 ? vb : 0.0;
        out->var_within = msw;
        if (out->var_between + out->var_within > 0.0)
            out->between_fraction =
                out->var_between / (out->var_between + out->var_within);
        else
            out->between_fraction = 0.0;
        if (!isfinite(msb) || !isfinite(msw) || !isfinite(vb))
            rc = SB_ENUMERIC;
    } else {
        out->var_between = NAN;
        out->var_within = NAN;
        out->between_fraction = NAN;
    }
    if (!isfinite(out->sd_between_est))
        rc = SB_ENUMERIC;
done:
    free(work);
    free(med);
    free(mean);
    return rc;
}
