/*
 * compare.c: comparisons of two sample sets (Mann-Whitney U, Welch's t on
 * logarithms, the paired t test on per-invocation log ratios), Holm's
 * correction across a family of tests, and the verdict on a ratio.
 *
 * Mann-Whitney: both samples are sorted and merged, so U and the tie term
 * come from one walk over the pooled order, O((nx + ny) log(nx + ny)).  A
 * tie anywhere in the pooled sample (within x, within y or across) selects
 * the normal approximation (scipy.stats.mannwhitneyu's method="auto" looks
 * for ties the same way, though its exact limit is 8, not 20); otherwise
 * nx, ny <= 20 gives the exact null distribution, counted
 * in 64-bit integers (C(40, 20) < 2^38), so the exact p is the correctly
 * rounded ratio of two exact counts.
 *
 * Student t tail probabilities: GSL's gsl_cdf_tdist_Q switches to a
 * Cornish-Fisher expansion for nu > 30 and t^2 < 10 nu, whose relative
 * error in the far tail reaches 1e-8 (nu = 31, t = 12) to 1e-6 (nu = 100,
 * t = 30).  The two-sided p is therefore computed from the incomplete beta
 * function for nu < 2000, where gsl_sf_beta_inc is within about 1e-13 of
 * a 60-digit mpmath reference; from nu = 2000 on the beta function loses
 * digits (1e-11 at nu = 10^6) while the expansion is within 2e-13, so
 * gsl_cdf_tdist_Q is used there.
 *
 * Holm: the k-th smallest p (k = 0, 1, ... counted from 0) is multiplied
 * by m - k, so the smallest by m and the largest by 1, the usual
 * Holm-Bonferroni (statsmodels' multipletests(method="holm")).
 *
 * Beyond the header's contract: NULL pointers for required arguments and a
 * level outside (0, 1) are SB_EINVAL (for sb_stats_welch_log even when no
 * ratio is asked for); sb_stats_holm can fail with SB_ENOMEM (it sorts an
 * index); a result that overflows is SB_ENUMERIC.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_sort_double.h>

#include "statbench.h"
#include "stats_internal.h"

/* Largest sample sizes of the exact Mann-Whitney distribution. */
#define MW_EXACT_MAX 20

/* Below this many degrees of freedom the t tail comes from the incomplete
 * beta function, from here on from gsl_cdf_tdist_Q (see the top). */
#define T_BETA_MAX_DF 2000.0

static int all_finite(const double *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static int all_positive_finite(const double *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!(x[i] > 0.0) || !isfinite(x[i]))
            return 0;
    return 1;
}

/* Two-sided Student t p-value P(|T| >= |t|), T ~ t(nu), into *p.  With
 * x = nu / (nu + t^2) it is I_x(nu/2, 1/2); the incomplete beta is asked
 * for on whichever of x and 1 - x its continued fraction converges on
 * directly, so that neither argument is formed by cancellation. */
static int t_two_sided(double t, double nu, double *p)
{
    gsl_sf_result r;
    double t2 = t * t, a = nu / 2.0, b = 0.5, x, y;

    if (isnan(t) || !(nu > 0.0))
        return SB_ENUMERIC;
    if (isinf(t)) {
        *p = 0.0;
        return SB_OK;
    }
    if (nu >= T_BETA_MAX_DF) {
        *p = 2.0 * gsl_cdf_tdist_Q(fabs(t), nu);
        return isnan(*p) ? SB_ENUMERIC : SB_OK;
    }
    x = nu / (nu + t2);
    y = t2 / (nu + t2);
    if (x < (a + 1.0) / (a + b + 2.0)) {
        if (gsl_sf_beta_inc_e(a, b, x, &r) != GSL_SUCCESS)
            return SB_ENUMERIC;
        *p = r.val;
    } else {
        /* p is above about 0.09 here, so 1 - I loses at most a digit. */
        if (gsl_sf_beta_inc_e(b, a, y, &r) != GSL_SUCCESS)
            return SB_ENUMERIC;
        *p = 1.0 - r.val;
    }
    if (*p < 0.0)
        *p = 0.0;
    if (*p > 1.0)
        *p = 1.0;
    return SB_OK;
}

/* The t quantile of a two-sided interval at level, nu degrees of freedom. */
static int t_quantile(double level, double nu, double *q)
{
    *q = gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, nu);
    return isfinite(*q) && *q > 0.0 ? SB_OK : SB_ENUMERIC;
}

/* Number of arrangements of nx x's and ny y's whose U (pairs with the x
 * above the y) is at most k, and the total C(nx + ny, nx).  The counts
 * f(i, j, u) of arrangements of i x's and j y's with U = u obey
 * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u): the largest value is
 * an x that beats all j y's, or a y that beats nothing.  The table is
 * kept for one i at a time, O(nx ny * nx ny) additions in all. */
static int mw_exact_counts(size_t nx, size_t ny, size_t k, uint64_t *below,
                           uint64_t *total)
{
    size_t umax = nx * ny, w = umax + 1, i, j, u;
    uint64_t *prev = calloc((ny + 1) * w, sizeof *prev);
    uint64_t *cur = calloc((ny + 1) * w, sizeof *cur);

    if (!prev || !cur) {
        free(prev);
        free(cur);
        return SB_ENOMEM;
    }
    /* i = 0: no x, so U = 0 whatever j. */
    for (j = 0; j <= ny; ++j)
        prev[j * w] = 1;
    for (i = 1; i <= nx; ++i) {
        uint64_t *tmp;
        memset(cur, 0, (ny + 1) * w * sizeof *cur);
        cur[0] = 1; /* j = 0: all x, U = 0 */
        for (j = 1; j <= ny; ++j) {
            for (u = 0; u <= i * j; ++u) {
                uint64_t v = cur[(j - 1) * w + u];
                if (u >= j)
                    v += prev[j * w + u - j];
                cur[j * w + u] = v;
            }
        }
        tmp = prev;
        prev = cur;
        cur = tmp;
    }
    *below = *total = 0;
    for (u = 0; u <= umax; ++u) {
        *total += prev[ny * w + u];
        if (u <= k)
            *below += prev[ny * w + u];
    }
    free(prev);
    free(cur);
    return SB_OK;
}

int sb_stats_mann_whitney(const double *x, size_t nx, const double *y,
                          size_t ny, double *u, double *p, double *a12)
{
    double *xs, *ys, uu = 0.0, tie_term = 0.0, mu, umax, var, nn;
    double dnx = (double)nx, dny = (double)ny;
    size_t i = 0, j = 0;
    int ties = 0, rc = SB_OK;

    if (!x || !y || !u || !p || nx == 0 || ny == 0)
        return SB_EINVAL;
    if (!all_finite(x, nx) || !all_finite(y, ny))
        return SB_EINVAL;
    sb_init();

    /* Both sorted copies in one block: the y's after the x's. */
    if (ny > SIZE_MAX / sizeof *xs - nx ||
        !(xs = malloc((nx + ny) * sizeof *xs)))
        return SB_ENOMEM;
    ys = xs + nx;
    memcpy(xs, x, nx * sizeof *xs);
    memcpy(ys, y, ny * sizeof *ys);
    gsl_sort(xs, 1, nx);
    gsl_sort(ys, 1, ny);

    /* Walk the pooled order one group of equal values at a time.  The cx
     * x's of a group beat the j y's below it and tie with its cy y's; the
     * group adds t^3 - t to the tie term, t = cx + cy. */
    while (i < nx || j < ny) {
        double v, t;
        size_t cx = 0, cy = 0;
        if (j == ny || (i < nx && xs[i] <= ys[j]))
            v = xs[i];
        else
            v = ys[j];
        while (i + cx < nx && xs[i + cx] == v)
            ++cx;
        while (j + cy < ny && ys[j + cy] == v)
            ++cy;
        uu += (double)cx * (double)j + 0.5 * (double)cx * (double)cy;
        t = (double)(cx + cy);
        if (cx + cy > 1) {
            ties = 1;
            tie_term += t * t * t - t;
        }
        i += cx;
        j += cy;
    }
    free(xs);

    *u = uu;
    if (a12)
        *a12 = uu / (dnx * dny);

    mu = dnx * dny / 2.0;
    umax = uu > mu ? uu : dnx * dny - uu; /* the larger of U and U' */

    if (!ties && nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX) {
        /* p = 2 P(U >= umax) = 2 P(U <= nx ny - umax) by symmetry. */
        uint64_t below, total;
        size_t k = (size_t)(dnx * dny - umax); /* an integer without ties */
        if ((rc = mw_exact_counts(nx, ny, k, &below, &total)) != SB_OK)
            return rc;
        *p = 2.0 * (double)below / (double)total;
    } else {
        nn = dnx + dny;
        var = dnx * dny / 12.0 * ((nn + 1.0) - tie_term / (nn * (nn - 1.0)));
        if (!(var > 0.0)) {
            /* Every value equal (the tie term is then (n + 1) n (n - 1)):
             * U = nx ny / 2 and nothing can be told apart. */
            *p = 1.0;
        } else {
            double z = (umax - mu - 0.5) / sqrt(var);
            *p = 2.0 * gsl_cdf_ugaussian_Q(z);
        }
    }
    if (isnan(*p))
        return SB_ENUMERIC;
    if (*p > 1.0) /* U at the centre: the doubled tail counts it twice */
        *p = 1.0;
    return SB_OK;
}

/* Mean and sum of squared deviations of log(x[0..n-1]), two passes. */
static void log_moments(const double *x, size_t n, double *mean, double *ss)
{
    double m = 0.0, s = 0.0;
    size_t i;
    for (i = 0; i < n; ++i)
        m += (log(x[i]) - m) / (double)(i + 1);
    for (i = 0; i < n; ++i) {
        double d = log(x[i]) - m;
        s += d * d;
    }
    *mean = m;
    *ss = s;
}

/* exp(d -+ q se) as an interval with estimate exp(d). */
static int ratio_interval(double d, double half, double level,
                          sb_interval *out)
{
    out->estimate = exp(d);
    out->lo = exp(d - half);
    out->hi = exp(d + half);
    out->level = level;
    out->achieved = level;
    if (!isfinite(out->estimate) || !isfinite(out->hi) || !isfinite(out->lo))
        return SB_ENUMERIC;
    return SB_OK;
}

int sb_stats_welch_log(const double *x, size_t nx, const double *y,
                       size_t ny, double level, double *t, double *df,
                       double *p, sb_interval *ratio)
{
    double mx, my, ssx, ssy, vx, vy, se2, se, d, tt, nu, q;
    int rc;

    if (!x || !y || !t || !df || !p || nx < 2 || ny < 2 ||
        !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    if (!all_positive_finite(x, nx) || !all_positive_finite(y, ny))
        return SB_EINVAL;
    sb_init();

    log_moments(x, nx, &mx, &ssx);
    log_moments(y, ny, &my, &ssy);
    vx = ssx / (double)(nx - 1) / (double)nx; /* squared standard errors */
    vy = ssy / (double)(ny - 1) / (double)ny;
    if (vx == 0.0 && vy == 0.0)
        return SB_EINVAL; /* no spread to test against */
    se2 = vx + vy;
    se = sqrt(se2);
    d = my - mx;
    tt = d / se;
    /* Welch-Satterthwaite, (vx + vy)^2 / (vx^2 / (nx - 1) + vy^2 /
     * (ny - 1)) written with the shares of se2 so that no square can
     * underflow; one variance 0 gives the other sample's n - 1. */
    {
        double fx = vx / se2, fy = vy / se2;
        nu = 1.0 / (fx * fx / (double)(nx - 1) + fy * fy / (double)(ny - 1));
    }
    if (!isfinite(tt) || !isfinite(nu) || !(nu > 0.0))
        return SB_ENUMERIC;
    if ((rc = t_two_sided(tt, nu, p)) != SB_OK)
        return rc;
    *t = tt;
    *df = nu;
    if (!ratio)
        return SB_OK;
    if ((rc = t_quantile(level, nu, &q)) != SB_OK)
        return rc;
    return ratio_interval(d, q * se, level, ratio);
}

int sb_stats_paired_log(const double *a, const double *b, size_t m,
                        double level, sb_interval *ratio, double *p)
{
    double mean = 0.0, ss = 0.0, d0, se, q, tt;
    size_t i;
    int equal = 1, rc;

    if (!a || !b || !ratio || !p || m < 2 || !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    if (!all_positive_finite(a, m) || !all_positive_finite(b, m))
        return SB_EINVAL;
    sb_init();

    /* log b - log a rather than log(b / a): the quotient of two finite
     * positive doubles can overflow or underflow. */
    d0 = log(b[0]) - log(a[0]);
    for (i = 0; i < m; ++i) {
        double d = log(b[i]) - log(a[i]);
        if (d != d0)
            equal = 0;
        mean += (d - mean) / (double)(i + 1);
    }
    if (equal) {
        /* No spread: the interval is the ratio itself, and the test is
         * decided with certainty. */
        *p = d0 == 0.0 ? 1.0 : 0.0;
        return ratio_interval(d0, 0.0, level, ratio);
    }
    for (i = 0; i < m; ++i) {
        double d = log(b[i]) - log(a[i]) - mean;
        ss += d * d;
    }
    se = sqrt(ss / (double)(m - 1) / (double)m);
    tt = mean / se;
    if (isnan(tt))
        return SB_ENUMERIC;
    if ((rc = t_two_sided(tt, (double)(m - 1), p)) != SB_OK)
        return rc;
    if ((rc = t_quantile(level, (double)(m - 1), &q)) != SB_OK)
        return rc;
    return ratio_interval(mean, q * se, level, ratio);
}

int sb_stats_run_vs_runs(const double *runs, size_t m, double x,
                         double level, sb_interval *ratio, double *p,
                         double *df, double *sd)
{
    double mean, ss, se, d, tt, q, nu;
    int rc;

    if (!runs || !ratio || !p || m < 2 || !(level > 0.0 && level < 1.0) ||
        !(x > 0.0) || !isfinite(x) || !all_positive_finite(runs, m))
        return SB_EINVAL;
    sb_init();

    log_moments(runs, m, &mean, &ss);
    if (ss == 0.0)
        return SB_EINVAL; /* no spread between the runs to judge by */
    nu = (double)(m - 1);
    /* The new run's log estimate minus the runs' mean: the variance of
     * one run plus that of the mean of m, s^2 (1 + 1/m). */
    se = sqrt(ss / nu * (1.0 + 1.0 / (double)m));
    d = log(x) - mean;
    tt = d / se;
    if (!isfinite(tt))
        return SB_ENUMERIC;
    if ((rc = t_two_sided(tt, nu, p)) != SB_OK ||
        (rc = t_quantile(level, nu, &q)) != SB_OK)
        return rc;
    if (df)
        *df = nu;
    if (sd)
        *sd = sqrt(ss / nu);
    return ratio_interval(d, q * se, level, ratio);
}

/* One side of a within-run interval, log half-width h at quantile qw
 * (df: its t's, 0 normal), widened by run_var: *s the total standard
 * error, *nu its Welch-Satterthwaite df (0: normal), *q its quantile at
 * level. */
static int widen_side(double h, double qw, double df, double run_var,
                      double level, double *s, double *nu, double *q)
{
    double sw = h / qw;

    *s = sqrt(sw * sw + run_var);
    /* The run level's variance taken as known: nu = s^4 / (sw^4 / df).
     * A normal within part (df 0), or none, leaves a normal sum. */
    *nu = df > 0.0 && sw > 0.0 ? df * pow(*s / sw, 4.0) : 0.0;
    if (!isfinite(*nu) || *nu >= 1e9)
        *nu = 0.0;
    if (*nu > 0.0)
        return t_quantile(level, *nu, q);
    *q = gsl_cdf_ugaussian_Pinv(0.5 + level / 2.0);
    return SB_OK;
}

int sb_stats_ratio_add_level(const sb_interval *within, double df,
                             double run_var, double level, sb_interval *out,
                             double *p, double *df_out)
{
    double qw, lvl, d, sl, su, nul, nuh, ql, qh, s, nu;
    int rc;

    if (!within || !out || !p || !(df >= 0.0) || !isfinite(df) ||
        !(run_var >= 0.0) || !isfinite(run_var) ||
        !(level > 0.0 && level < 1.0))
        return SB_EINVAL;
    if (!(within->lo > 0.0) || !(within->estimate >= within->lo) ||
        !(within->hi >= within->estimate) || !isfinite(within->hi))
        return SB_EINVAL;
    sb_init();

    /* The within interval's own quantile: its achieved level where it
     * has one (an order-statistic interval holds more than it asked). */
    lvl = within->achieved > 0.0 && within->achieved < 1.0 ? within->achieved
          : within->level > 0.0 && within->level < 1.0     ? within->level
                                                             : level;
    qw = df > 0.0 ? gsl_cdf_tdist_Pinv(0.5 + lvl / 2.0, df)
                  : gsl_cdf_ugaussian_Pinv(0.5 + lvl / 2.0);
    if (!(qw > 0.0) || !isfinite(qw))
        return SB_ENUMERIC;
    d = log(within->estimate);
    /* Each side on its own: a bootstrap interval of medians can be far
     * from symmetric, and its skew is information the widening keeps. */
    if ((rc = widen_side(d - log(within->lo), qw, df, run_var, level, &sl,
                         &nul, &ql)) != SB_OK ||
        (rc = widen_side(log(within->hi) - d, qw, df, run_var, level, &su,
                         &nuh, &qh)) != SB_OK)
        return rc;
    /* The test of ratio 1 reads the side that faces 1. */
    s = d >= 0.0 ? sl : su;
    nu = d >= 0.0 ? nul : nuh;
    if (s == 0.0)
        /* No spread: the ratio is known, as the paired test says of
         * equal log ratios. */
        *p = d == 0.0 ? 1.0 : 0.0;
    else if (nu > 0.0) {
        if ((rc = t_two_sided(d / s, nu, p)) != SB_OK)
            return rc;
    } else
        *p = fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fabs(d / s)));
    if (df_out)
        *df_out = nu;
    out->estimate = within->estimate;
    out->lo = exp(d - ql * sl);
    out->hi = exp(d + qh * su);
    out->level = level;
    out->achieved = level;
    return isfinite(out->lo) && isfinite(out->hi) ? SB_OK : SB_ENUMERIC;
}

int sb_stats_holm(const double *p, size_t m, double *adjusted)
{
    size_t *perm, k;
    double run = 0.0;

    if (!p || !adjusted || m == 0)
        return SB_EINVAL;
    for (k = 0; k < m; ++k)
        if (!(p[k] >= 0.0 && p[k] <= 1.0)) /* also NaN */
            return SB_EINVAL;
    sb_init();

    perm = malloc(m * sizeof *perm);
    if (!perm)
        return SB_ENOMEM;
    /* gsl_sort_index is not stable, but tied p-values get the same
     * adjusted value whatever their order: the later one's own term
     * (m - j - 1) p is below the earlier one's (m - j) p. */
    gsl_sort_index(perm, p, 1, m);

    /* adjusted may be p itself: index perm[k] is read at step k, before
     * it is written, and no later step reads it again. */
    for (k = 0; k < m; ++k) {
        double v = (double)(m - k) * p[perm[k]];
        if (v > 1.0)
            v = 1.0;
        if (v > run)
            run = v;
        adjusted[perm[k]] = run;
    }
    free(perm);
    return SB_OK;
}

void sb__comparison_withhold(sb_comparison *c, double bound,
                             double threshold)
{
    /* Cell and baseline were each slowed by a factor in [1, bound], so
     * the quiet ratio lies within [ratio / bound, ratio * bound]. */
    double th = isfinite(threshold) && threshold > 0 ? threshold : 0;
    int kept = isfinite(bound) && bound >= 1 &&
               ((c->verdict == SB_VERDICT_SLOWER &&
                 c->ratio.lo > bound * (1 + th)) ||
                (c->verdict == SB_VERDICT_FASTER &&
                 c->ratio.hi * bound * (1 + th) < 1));

    c->withheld = !kept;
    c->shared_bound = kept ? bound : NAN;
    if (!kept)
        c->verdict = SB_VERDICT_INCONCLUSIVE;
}

int sb_stats_verdict(const sb_interval *ratio, double p_adjusted,
                     double alpha, double threshold)
{
    double lo, hi;

    if (!ratio)
        return SB_VERDICT_INCONCLUSIVE;
    lo = ratio->lo;
    hi = ratio->hi;
    if (isnan(lo) || isnan(hi) || isnan(ratio->estimate) ||
        isnan(p_adjusted) || isnan(alpha) || isnan(threshold))
        return SB_VERDICT_INCONCLUSIVE;
    if (1.0 - threshold <= lo && hi <= 1.0 + threshold)
        return SB_VERDICT_EQUIVALENT;
    if (p_adjusted < alpha && hi < 1.0)
        return SB_VERDICT_FASTER;
    if (p_adjusted < alpha && lo > 1.0)
        return SB_VERDICT_SLOWER;
    return SB_VERDICT_INCONCLUSIVE;
}

