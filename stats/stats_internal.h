/*
 * stats_internal.h: the deterministic pieces of the bootstrap, shared by
 * stats/bootstrap.c and tests/test_intervals.c, never installed.
 *
 * The bootstrap's random stream cannot be reproduced outside the library,
 * so the tests check what follows from a given set of replicates instead:
 * the interval's endpoints, the jackknife acceleration and the O(n)
 * jackknife of the median.  Internal names start with "sb__" and are not
 * exported from libstatbench.
 */
#ifndef SB_STATS_INTERNAL_H
#define SB_STATS_INTERNAL_H

#include <stddef.h>

#include "statbench.h"

/* The interval of a bootstrap distribution: replicates_sorted[0..B-1]
 * (ascending, finite) are the statistic on B resamples, estimate the
 * statistic on the data, accel the acceleration (ignored, as is estimate
 * for the endpoints, by SB_BOOT_PERCENTILE).  With alpha = (1 - level) / 2
 * the endpoints are the type 7 quantiles (gsl_stats_quantile_from_sorted_
 * data, numpy's "linear") of the replicates at
 *   percentile: alpha and 1 - alpha;
 *   BCa:        Phi(z0 + (z0 + z) / (1 - accel (z0 + z))) for z = z_alpha
 *               and z_(1 - alpha), z0 = Phi^-1 of the fraction of
 *               replicates below estimate, ties with it counted half
 *               (Efron 1987; scipy.stats.bootstrap computes the same).
 * out->estimate = estimate, out->achieved = out->level = level.
 * SB_EINVAL for NULL pointers, B == 0, a level outside (0, 1), an unknown
 * method, and (BCa) a non-finite estimate or accel.  SB_ENUMERIC (BCa)
 * when every replicate lies on one side of the estimate (z0 infinite) or
 * 1 - accel (z0 + z) <= 0, where the BCa correction is undefined. */
int sb__boot_interval(const double *replicates_sorted, size_t B,
                      double estimate, double accel, double level, int method,
                      sb_interval *out);

/* The acceleration of BCa from one sample's jackknife values jack[0..n-1]
 * (the statistic with observation i left out): with d_i = mean - jack_i,
 * a = sum d_i^3 / (6 (sum d_i^2)^(3/2))  (Efron and Tibshirani 1993,
 * eq. 14.15).  0 when n < 2 or all values are equal; NaN when a value is
 * not finite. */
double sb__jackknife_accel(const double *jack, size_t n);

/* The same for a statistic of two independent samples, from the nx
 * jackknife values with one x left out and the ny with one y left out:
 * with U_ji = (n_j - 1)(mean_j - jack_ji) for each sample j,
 * a = sum_j n_j^-3 sum_i U_ji^3 / (6 (sum_j n_j^-2 sum_i U_ji^2)^(3/2))
 * (the empirical influence values of Davison and Hinkley 1997, section
 * 3.2.1 and 5.3.2; scipy.stats.bootstrap uses the same formula).  For a
 * single sample it is sb__jackknife_accel().  0 when every value is equal
 * within each sample; NaN when a value is not finite. */
double sb__jackknife_accel2(const double *jx, size_t nx, const double *jy,
                            size_t ny);

/* Median of x[0..n-1], which it sorts; NAN when n is 0.  Every part that
 * summarises a few readings (the timer, the measuring loop, the runner,
 * the results) uses it: it is statistics, and lives here. */
double sb__median_inplace(double *x, size_t n);

/* The jackknife of the median in O(n): jack[i] receives the median of
 * sorted[0..n-1] (ascending, n >= 2) with sorted[i] left out, computed
 * as gsl_stats_median_from_sorted_data() computes it, so bit for bit the
 * value of a brute-force jackknife.  Leaving one value out moves the
 * median to one of two (n even) or three (n odd) values. */
void sb__median_jackknife(const double *sorted, size_t n, double *jack);

/* The jackknife of median(y) / median(x) over all nx + ny observations,
 * from sorted x and y (ascending, positive, nx, ny >= 2): jack[i] for
 * i < nx is the ratio with x's i-th smallest value left out, jack[nx + j]
 * the ratio with y's j-th smallest left out.  Built on
 * sb__median_jackknife(), so bit for bit a brute-force jackknife. */
void sb__ratio_jackknife(const double *sx, size_t nx, const double *sy,
                         size_t ny, double *jack);

/* The two-sided bootstrap p-value of the null value null from the B
 * replicates rs (any order): twice the smaller of the shares of
 * replicates below and above null, replicates equal to it counted half
 * in each, at most 1.  It is the complement of the level at which the
 * percentile interval would just reach null, so p < 1 - level when that
 * interval excludes null (up to the interpolation of its endpoints).
 * NAN for NULL rs or B == 0. */
double sb__boot_p(const double *rs, size_t B, double null);
/* The two-sided bootstrap p of ratio 1 from the B ratio replicates rs,
 * as boot_ci forms it once it has drawn all it will: sb__boot_p's count
 * where at least 10 replicates lie beyond 1, else the normal tail of the
 * replicates' log ratios. */
double sb__boot_p_resolved(const double *rs, size_t B);
/* The bootstrap standard error (Efron and Tibshirani 1993, ch. 6) of
 * log(median(x)), x[0..n-1] positive and finite, n >= 2, computed
 * exactly, as if from infinitely many resamples: the standard deviation
 * of the resampled median's logarithm over its exact distribution
 * (bootstrap.c, median_boot_exact).  *total (optional) the probability
 * summed, 1 up to rounding and the negligible terms left out.
 * SB_EINVAL for bad arguments, SB_ENOMEM. */
int sb__median_boot_log_sd(const double *x, size_t n, double *sd,
                           double *total);

/* c's verdict, its figures measured on a shared core: kept where its
 * whole interval lies beyond the factor bound (sb_meta.profile_bound)
 * and threshold, so that no sharing within that factor could have made
 * it (c->shared_bound then records bound); else inconclusive and
 * withheld.  bound NAN: always withheld. */
void sb__comparison_withhold(sb_comparison *c, double bound,
                             double threshold);

#endif
