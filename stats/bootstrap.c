/*
 * bootstrap.c: bootstrap confidence intervals for the median and for the
 * ratio of two medians, percentile or BCa (Efron 1987).
 *
 * Resampling.  The data are sorted once.  A resample draws n uniform
 * indices into the sorted array (uniform_index below) and only counts
 * them; since the array is ascending, the j-th smallest value of the
 * resample is the value at the j-th smallest drawn index, so the
 * resample's median is found by a cumulative scan of the counts: O(n) a
 * resample with no sorting and no selection.  The median is formed as
 * gsl_stats_median_from_sorted_data forms it ((a + b) / 2 for even n), so
 * a replicate equal in value to the sample median compares equal to it,
 * which the BCa bias correction counts (ties half).  B = 2000 resamples of
 * n = 1000 values take about 15 ms (20 to 40 ms on a busy 2-core VM), half
 * of it in mt19937 itself.
 *
 * Random stream.  gsl_rng_mt19937 seeded with the caller's seed.  GSL's
 * mt19937 keeps only 32 bits of a seed, so the upper half of the 64-bit
 * seed is folded in by xor (seed ^ (seed >> 32)); seeds below 2^32 are
 * passed unchanged.  The ratio draws, for each of the B resamples, first
 * the nx indices of x, then the ny of y.
 *
 * Acceleration.  The BCa acceleration comes from the jackknife.  Leaving
 * one value out of sorted data moves the median to one of two (n even) or
 * three (n odd) values, so the whole jackknife of the median is O(n)
 * (sb__median_jackknife).  For even n half the values are x(m) and half
 * x(m+1), a symmetric jackknife whose acceleration is exactly 0: BCa of
 * the median of even n is the bias-corrected percentile interval, a known
 * weakness of the jackknife for non-smooth statistics, not a defect of
 * the code.  For the ratio every one of the nx + ny observations is left
 * out in turn, median(y) / median(x without x_i) and median(y without y_j)
 * / median(x), and the two samples' values are combined as independent
 * samples (sb__jackknife_accel2).
 *
 * The endpoints are type 7 quantiles of the sorted replicates, like the
 * estimates elsewhere in stats/ and like scipy.stats.bootstrap.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "stats_internal.h"

/* Fewest replicates beyond the null for a counted bootstrap p; below it
 * more are drawn (boot_ci), then the normal tail of the replicates
 * (tail_p). */
#define BOOT_P_MIN_TAIL 10.0
/* Most replicates drawn for a p (boot_ci): a count then resolves p down
 * to 2 * 10 / 10^4 = 0.002, Holm's need in a table of 25 rows; smaller
 * ps are the normal tail's, at ten times the cost of B at most. */
#define BOOT_P_MAX_B 10000.0

/* ---- The deterministic part -------------------------------------------- */

int sb__boot_interval(const double *rs, size_t B, double estimate,
                      double accel, double level, int method,
                      sb_interval *out)
{
    double alpha, q1, q2;

    if (!rs || !out || B == 0 || !(level > 0.0 && level < 1.0) ||
        (method != SB_BOOT_PERCENTILE && method != SB_BOOT_BCA))
        return SB_EINVAL;
    if (method == SB_BOOT_BCA && !(isfinite(estimate) && isfinite(accel)))
        return SB_EINVAL;
    sb_init();

    alpha = (1.0 - level) / 2.0;
    if (method == SB_BOOT_PERCENTILE) {
        q1 = alpha;
        q2 = 1.0 - alpha;
    } else {
        size_t below = 0, equal = 0, i;
        double z0, za, n1, n2, d1, d2;

        /* The replicates are sorted: count up to the first one above. */
        for (i = 0; i < B && rs[i] <= estimate; ++i) {
            if (rs[i] < estimate)
                ++below;
            else
                ++equal;
        }
        /* (below + equal / 2) / B, written as scipy writes it. */
        z0 = gsl_cdf_ugaussian_Pinv((double)(2 * below + equal) /
                                    (2.0 * (double)B));
        if (!isfinite(z0))
            return SB_ENUMERIC; /* all replicates on one side */
        za = gsl_cdf_ugaussian_Pinv(alpha);
        n1 = z0 + za;
        n2 = z0 - za;
        d1 = 1.0 - accel * n1;
        d2 = 1.0 - accel * n2;
        if (!(d1 > 0.0 && d2 > 0.0))
            return SB_ENUMERIC; /* the correction is no longer monotone */
        q1 = gsl_cdf_ugaussian_P(z0 + n1 / d1);
        q2 = gsl_cdf_ugaussian_P(z0 + n2 / d2);
        if (!(q1 >= 0.0 && q1 <= 1.0 && q2 >= 0.0 && q2 <= 1.0))
            return SB_ENUMERIC;
    }

    out->estimate = estimate;
    out->lo = gsl_stats_quantile_from_sorted_data(rs, 1, B, q1);
    out->hi = gsl_stats_quantile_from_sorted_data(rs, 1, B, q2);
    out->level = level;
    out->achieved = level;
    return SB_OK;
}

/* Sums of d^2 and d^3, d_i = mean - jack_i, over one sample, times f^2
 * and f^3 with f = (n - 1) / n when scale != 0 (U = (n - 1) d, so that
 * U^2 / n^2 = f^2 d^2 and U^3 / n^3 = f^3 d^3).
 *
 * The acceleration is a ratio of sums of powers of d that nearly cancel
 * (the jackknife of a median of even n is exactly symmetric, its a
 * exactly 0), and jackknife values of timings are large numbers with
 * small differences.  So the values are first shifted by the first one,
 * which is exact for values within a factor 2 of each other (Sterbenz),
 * and the mean of the shifted values is corrected by its mean residual:
 * d then carries the rounding of the differences, not of the values. */
static void influence_sums(const double *jack, size_t n, int scale,
                           double *s2, double *s3)
{
    double pivot = jack[0], m = 0.0, r = 0.0, d, f;
    size_t i;

    *s2 = *s3 = 0.0;
    for (i = 0; i < n; ++i) {
        if (!isfinite(jack[i])) {
            *s2 = *s3 = NAN;
            return;
        }
        m += jack[i] - pivot;
    }
    m /= (double)n;
    for (i = 0; i < n; ++i)
        r += (jack[i] - pivot) - m;
    m += r / (double)n;
    for (i = 0; i < n; ++i) {
        d = m - (jack[i] - pivot);
        *s2 += d * d;
        *s3 += d * d * d;
    }
    if (scale) {
        f = (double)(n - 1) / (double)n;
        *s2 *= f * f;
        *s3 *= f * f * f;
    }
}

double sb__jackknife_accel(const double *jack, size_t n)
{
    double s2, s3;

    if (!jack || n < 2)
        return 0.0;
    influence_sums(jack, n, 0, &s2, &s3);
    if (isnan(s2))
        return NAN;
    if (s2 == 0.0)
        return 0.0; /* no spread: no skewness to correct for */
    return s3 / (6.0 * s2 * sqrt(s2));
}

double sb__jackknife_accel2(const double *jx, size_t nx, const double *jy,
                            size_t ny)
{
    double x2 = 0.0, x3 = 0.0, y2 = 0.0, y3 = 0.0, s2;

    if (jx && nx >= 2)
        influence_sums(jx, nx, 1, &x2, &x3);
    if (jy && ny >= 2)
        influence_sums(jy, ny, 1, &y2, &y3);
    s2 = x2 + y2;
    if (isnan(s2))
        return NAN;
    if (s2 == 0.0)
        return 0.0;
    return (x3 + y3) / (6.0 * s2 * sqrt(s2));
}

void sb__median_jackknife(const double *s, size_t n, double *jack)
{
    size_t m = n / 2, i;

    if (n % 2 == 1) {
        /* n = 2m + 1: n - 1 = 2m values remain, median the mean of the
         * middle two: s[m], s[m+1] when i < m; s[m-1], s[m] when i > m;
         * s[m-1], s[m+1] when i == m. */
        double above = (s[m] + s[m + 1]) / 2.0;
        double below = (s[m - 1] + s[m]) / 2.0;
        for (i = 0; i < m; ++i)
            jack[i] = above;
        jack[m] = (s[m - 1] + s[m + 1]) / 2.0;
        for (i = m + 1; i < n; ++i)
            jack[i] = below;
    } else {
        /* n = 2m: 2m - 1 values remain, median the middle one: s[m] when
         * i < m, s[m-1] when i >= m. */
        for (i = 0; i < m; ++i)
            jack[i] = s[m];
        for (i = m; i < n; ++i)
            jack[i] = s[m - 1];
    }
}

void sb__ratio_jackknife(const double *sx, size_t nx, const double *sy,
                         size_t ny, double *jack)
{
    double mx = gsl_stats_median_from_sorted_data(sx, 1, nx);
    double my = gsl_stats_median_from_sorted_data(sy, 1, ny);
    size_t i;

    sb__median_jackknife(sx, nx, jack);
    for (i = 0; i < nx; ++i)
        jack[i] = my / jack[i];
    sb__median_jackknife(sy, ny, jack + nx);
    for (i = 0; i < ny; ++i)
        jack[nx + i] = jack[nx + i] / mx;
}

/* ---- Resampling -------------------------------------------------------- */

/* Uniform indices from mt19937.  Each gsl_rng_get() gives 32 random bits;
 * an index below n is made from them by Lemire's multiply-and-shift with
 * rejection (ACM TOMACS 2019), exactly uniform like gsl_rng_uniform_int()
 * but without its division.  For n <= 2^16 one output makes two indices,
 * from its low and then its high 16 bits.  The generator is most of the
 * bootstrap's time, so this halves it for the sample sizes benchmarks
 * have. */
struct draws {
    gsl_rng *r;
    uint32_t bits; /* unused high half of the last output */
    int have;      /* 1 when bits holds 16 unused bits */
};

static uint32_t next16(struct draws *d)
{
    uint32_t w;

    if (d->have) {
        d->have = 0;
        return d->bits;
    }
    w = (uint32_t)gsl_rng_get(d->r);
    d->bits = w >> 16;
    d->have = 1;
    return w & 0xffffu;
}

static uint32_t uniform_index(struct draws *d, uint32_t n)
{
    if (n <= 0x10000u) {
        uint32_t m = next16(d) * n, low = m & 0xffffu;
        if (low < n) {
            uint32_t t = 0x10000u % n; /* 2^16 mod n */
            while (low < t) {
                m = next16(d) * n;
                low = m & 0xffffu;
            }
        }
        return m >> 16;
    } else {
        uint64_t m = (uint64_t)(uint32_t)gsl_rng_get(d->r) * n;
        uint32_t low = (uint32_t)m;
        if (low < n) {
            uint32_t t = (uint32_t)(-n) % n; /* 2^32 mod n */
            while (low < t) {
                m = (uint64_t)(uint32_t)gsl_rng_get(d->r) * n;
                low = (uint32_t)m;
            }
        }
        return (uint32_t)(m >> 32);
    }
}

/* The median of a resample of sorted[0..n-1] (see the top of the file);
 * counts holds n scratch counters. */
static double resample_median(const double *sorted, size_t n,
                              uint32_t *counts, struct draws *d)
{
    size_t lo_rank = (n - 1) / 2, hi_rank = n / 2, cum = 0, i;
    double a;

    memset(counts, 0, n * sizeof *counts);
    for (i = 0; i < n; ++i)
        ++counts[uniform_index(d, (uint32_t)n)];
    /* The smallest index whose cumulative count passes a rank holds the
     * value of that rank. */
    for (i = 0;; ++i) {
        cum += counts[i];
        if (cum > lo_rank)
            break;
    }
    a = sorted[i];
    if (hi_rank == lo_rank)
        return a;
    while (cum <= hi_rank)
        cum += counts[++i];
    return (a + sorted[i]) / 2.0;
}

/* Check the common arguments; positive != 0 also asks for x > 0. */
static int check_sample(const double *x, size_t n, int positive)
{
    size_t i;

    /* Indices are drawn below n from 32 bits, and the counts are 32-bit. */
    if (!x || n < 2 || n > UINT32_MAX)
        return SB_EINVAL;
    for (i = 0; i < n; ++i)
        if (!isfinite(x[i]) || (positive && !(x[i] > 0.0)))
            return SB_EINVAL;
    return SB_OK;
}

static int check_common(double level, size_t B, int method, sb_interval *out)
{
    if (!out || B < 100 || B > SIZE_MAX / sizeof(double) ||
        !(level > 0.0 && level < 1.0) ||
        (method != SB_BOOT_PERCENTILE && method != SB_BOOT_BCA))
        return SB_EINVAL;
    return SB_OK;
}

/* The arguments of a ratio y / x: both samples positive, and together
 * small enough for the one array they are resampled from. */
static int check_ratio(const double *x, size_t nx, const double *y,
                       size_t ny, double level, size_t B, int method,
                       sb_interval *out)
{
    int rc;

    if ((rc = check_common(level, B, method, out)) != SB_OK ||
        (rc = check_sample(x, nx, 1)) != SB_OK ||
        (rc = check_sample(y, ny, 1)) != SB_OK)
        return rc;
    if (nx > SIZE_MAX / sizeof(double) - ny)
        return SB_EINVAL;
    return SB_OK;
}

/* The replicates' standing against ratio 1, kept as they come: how many
 * lie below and at 1, and their log ratios' mean and sum of squared
 * deviations (Welford), for a p from more replicates than are kept. */
struct tail {
    double n, below, equal, mean, m2;
    int bad; /* a replicate that is not positive */
};

static void tail_add(struct tail *t, double r)
{
    double l, dl;

    if (!(r > 0.0)) {
        t->bad = 1;
        return;
    }
    t->n += 1.0;
    t->below += r < 1.0;
    t->equal += r == 1.0;
    l = log(r);
    dl = l - t->mean;
    t->mean += dl / t->n;
    t->m2 += dl * (l - t->mean);
}

/* The replicates beyond 1 on the side that has fewer. */
static double tail_count(const struct tail *t)
{
    double k = t->below + 0.5 * t->equal;
    return fmin(k, t->n - k);
}

/* Counted, a p rests on the replicates beyond 1: twice the smaller
 * share.  With fewer than BOOT_P_MIN_TAIL of them it cannot resolve the
 * p (B of them cannot show one below 1 / (B + 1)); there the replicates'
 * log ratios are taken as normal (the bootstrap's normal approximation,
 * Efron and Tibshirani 1993, ch. 16), the tail of their mean over their
 * standard deviation, whose resolution has no floor. */
static double tail_p(const struct tail *t)
{
    double z;

    if (t->n == 0.0 || t->bad)
        return NAN;
    if (tail_count(t) >= BOOT_P_MIN_TAIL || t->n < 2.0)
        return fmin(1.0, 2.0 * tail_count(t) / t->n);
    if (!(t->m2 > 0.0))
        /* Every replicate the same: nothing to scale a tail by, and they
         * say only "rarer than 1 / (n + 1)". */
        return fmax(2.0 * tail_count(t) / t->n, 1.0 / (t->n + 1.0));
    z = fabs(t->mean) / sqrt(t->m2 / (t->n - 1.0));
    return 2.0 * gsl_cdf_ugaussian_Q(z);
}

/* A new mt19937 seeded from a 64-bit seed, or NULL. */
static gsl_rng *new_rng(uint64_t seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    if (r)
        gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
    return r;
}

/* A sorted copy of x[0..n-1] in new memory, or NULL. */
static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);

    if (s) {
        memcpy(s, x, n * sizeof *s);
        gsl_sort(s, 1, n);
    }
    return s;
}

/* The bootstrap interval of the median of x (y NULL) or of the ratio of
 * y's median to x's, the samples checked by the caller.  The two differ
 * only in the statistic and its jackknife, so the copies, the resampling
 * loop and the interval are this one function.  Each replicate draws x's
 * resample first, then y's.  p (optional, with y): the two-sided
 * bootstrap p-value of "ratio 1" from the same replicates, and more where
 * they cannot resolve it (tail_p). */
static int boot_ci(const double *x, size_t nx, const double *y, size_t ny,
                   double level, size_t B, int method, uint64_t seed,
                   sb_interval *out, double *p)
{
    double *sx = NULL, *sy = NULL, *reps = NULL, *jack = NULL;
    double est, accel = 0.0;
    uint32_t *counts = NULL;
    gsl_rng *r = NULL;
    struct draws d;
    size_t b, ncount = y && ny > nx ? ny : nx, njack = y ? nx + ny : nx;
    int rc;

    sb_init();
    rc = SB_ENOMEM;
    if (!(sx = sorted_copy(x, nx)) || (y && !(sy = sorted_copy(y, ny))) ||
        !(counts = malloc(ncount * sizeof *counts)) ||
        !(reps = malloc(B * sizeof *reps)) || !(r = new_rng(seed)))
        goto done;
    if (method == SB_BOOT_BCA && !(jack = malloc(njack * sizeof *jack)))
        goto done;

    est = gsl_stats_median_from_sorted_data(sx, 1, nx);
    rc = SB_ENUMERIC;
    if (y) {
        est = gsl_stats_median_from_sorted_data(sy, 1, ny) / est;
        /* Positive finite values can still overflow or underflow a
         * ratio. */
        if (!isfinite(est) || !(est > 0.0))
            goto done;
    }
    d.r = r;
    d.have = 0;
    for (b = 0; b < B; ++b) {
        reps[b] = resample_median(sx, nx, counts, &d);
        if (!y)
            continue;
        reps[b] = resample_median(sy, ny, counts, &d) / reps[b];
        if (!isfinite(reps[b]))
            goto done;
    }
    gsl_sort(reps, 1, B);

    if (method == SB_BOOT_BCA) {
        if (y) {
            sb__ratio_jackknife(sx, nx, sy, ny, jack);
            accel = sb__jackknife_accel2(jack, nx, jack + nx, ny);
        } else {
            sb__median_jackknife(sx, nx, jack);
            accel = sb__jackknife_accel(jack, nx);
        }
        if (!isfinite(accel))
            goto done;
    }
    rc = sb__boot_interval(reps, B, est, accel, level, method, out);
    if (rc == SB_OK && p) {
        /* The p of a table's row must resolve what Holm asks of it (m
         * rows: p below alpha / m): while fewer than BOOT_P_MIN_TAIL
         * replicates lie beyond 1, ten times as many more are drawn from
         * the same stream, up to BOOT_P_MAX_B; the interval stays the
         * first B's.  Past that, tail_p's normal tail. */
        struct tail t = {0};
        for (b = 0; b < B; ++b)
            tail_add(&t, reps[b]);
        for (size_t more = B; tail_count(&t) < BOOT_P_MIN_TAIL && !t.bad &&
                              t.n < BOOT_P_MAX_B;
             more *= 10)
            for (b = 0; b < 9 * more && t.n < BOOT_P_MAX_B; ++b) {
                double rx = resample_median(sx, nx, counts, &d);
                tail_add(&t, resample_median(sy, ny, counts, &d) / rx);
            }
        *p = tail_p(&t);
        if (isnan(*p))
            rc = SB_ENUMERIC;
    }
done:
    if (r)
        gsl_rng_free(r);
    free(sx);
    free(sy);
    free(counts);
    free(reps);
    free(jack);
    return rc;
}

/* The exact bootstrap (B infinite) of the median of sorted[0..n-1]:
 * each possible resampled median's probability, as Maritz and Jarrett
 * (JASA 1978) and Efron (1982, ch. 10) give it for odd n and Hutson and
 * Ernst (JRSS B 2000) for any L-statistic.  N_j, the number of the n
 * draws at or below the j-th smallest value (1-based), is Binomial(n,
 * j/n).
 *  - n = 2m + 1: the median is x(j) when N_{j-1} <= m < N_j.
 *  - n = 2m: it is (x(a) + x(b)) / 2, the m-th and (m+1)-th smallest
 *    drawn.  For a < b that needs N_a = N_{b-1} = m, N_{a-1} < m and
 *    N_b > m: given N_a = m its m draws fall uniformly on a values, one
 *    at least on x(a), with 1 - ((a - 1) / a)^m; the other n - m on the
 *    n - a values above, none below x(b) and one at least on it, with
 *    ((n - b + 1) / (n - a))^(n - m) - ((n - b) / (n - a))^(n - m).
 *    Summed over b > a those gaps telescope to 1, so a = b takes the
 *    rest of the m-th smallest's own law, P(N_{a-1} < m <= N_a), less
 *    P(N_a = m) (1 - ((a - 1) / a)^m).
 * Far from the middle the terms vanish: N_a's sd is at most sqrt(n) / 2,
 * so an a beyond 5 sqrt(n) of m is 10 sds away (P(N_a = m) below 1e-20),
 * and within that the gap decays as exp(-(b - a - 1) (n - m) / (n - a)),
 * below 1e-12 past b - a = 60.  Calls f(v, prob) for each (v the
 * median's logarithm less that of the sample median): n terms for odd
 * n, at most 61 (10 sqrt(n) + 3) for even n (4000 values: 2 ms). */
static void median_boot_exact(const double *s, size_t n,
                              void (*f)(void *, double, double), void *ctx)
{
    double dn = (double)n;
    double l0 = log(gsl_stats_median_from_sorted_data(s, 1, n));
    size_t m = n / 2, h = (size_t)ceil(5.0 * sqrt(dn)) + 1;
    size_t lo = m > h ? m - h : 1, hi = m + 1 + h < n ? m + 1 + h : n;

    if (n % 2 == 1) {
        double below = 0.0; /* P(median <= x(j - 1)) */
        for (size_t j = 1; j <= n; ++j) {
            double at = gsl_cdf_binomial_Q((unsigned)m, (double)j / dn,
                                           (unsigned)n);
            f(ctx, log(s[j - 1]) - l0, at - below);
            below = at;
        }
        return;
    }
    for (size_t a = lo; a <= hi; ++a) {
        double da = (double)a;
        double pm = gsl_ran_binomial_pdf((unsigned)m, da / dn, (unsigned)n);
        double one = 1.0 - pow((da - 1.0) / da, (double)m), pa;
        /* above: ((n - b + 1) / (n - a))^(n - m), all n - m draws at or
         * above x(b), 1 at b = a + 1. */
        double above = 1.0;
        for (size_t b = a + 1; b <= n && b <= a + 60 && pm > 0.0; ++b) {
            double next = pow((dn - (double)b) / (dn - da), dn - (double)m);
            f(ctx, log((s[a - 1] + s[b - 1]) / 2.0) - l0,
              pm * one * (above - next));
            above = next;
        }
        /* a = b: P(N_{a-1} <= m - 1) - P(N_a <= m - 1) - pm one. */
        pa = gsl_cdf_binomial_P((unsigned)(m - 1), (da - 1.0) / dn,
                                (unsigned)n) -
             gsl_cdf_binomial_P((unsigned)(m - 1), da / dn, (unsigned)n) -
             pm * one;
        if (pa < 0.0)
            pa = 0.0; /* rounding of a difference of nearly equal tails */
        f(ctx, log(s[a - 1]) - l0, pa);
    }
}

struct moments {
    double w, s1, s2;
};

static void add_moment(void *ctx, double v, double p)
{
    struct moments *mo = ctx;
    mo->w += p;
    mo->s1 += p * v;
    mo->s2 += p * v * v;
}

int sb__median_boot_log_sd(const double *x, size_t n, double *sd,
                           double *total)
{
    struct moments mo = {0.0, 0.0, 0.0};
    double *sx, mean, var;
    int rc;

    if (!sd || (rc = check_sample(x, n, 1)) != SB_OK || n > UINT_MAX / 2)
        return SB_EINVAL;
    sb_init();
    if (!(sx = sorted_copy(x, n)))
        return SB_ENOMEM;
    median_boot_exact(sx, n, add_moment, &mo);
    free(sx);
    /* The log values are taken from the sample median's, so that the
     * second moment does not cancel. */
    mean = mo.s1 / mo.w;
    var = mo.s2 / mo.w - mean * mean;
    *sd = sqrt(var > 0.0 ? var : 0.0);
    if (total)
        *total = mo.w;
    return isfinite(*sd) && mo.w > 0.0 ? SB_OK : SB_ENUMERIC;
}

double sb__boot_p_resolved(const double *rs, size_t B)
{
    struct tail t = {0};

    if (!rs || B == 0)
        return NAN;
    for (size_t i = 0; i < B; ++i)
        tail_add(&t, rs[i]);
    return tail_p(&t);
}

double sb__boot_p(const double *rs, size_t B, double null)
{
    size_t below = 0, equal = 0, i;
    double p;

    if (!rs || B == 0)
        return NAN;
    for (i = 0; i < B; ++i) {
        if (rs[i] < null)
            ++below;
        else if (rs[i] == null)
            ++equal;
    }
    /* The smaller tail, ties with the null value counted half, doubled:
     * the level at which the percentile interval would just reach it. */
    p = (double)below + 0.5 * (double)equal;
    if ((double)B - p < p)
        p = (double)B - p;
    p = 2.0 * p / (double)B;
    return p > 1.0 ? 1.0 : p;
}

int sb_stats_ratio_boot_test(const double *x, size_t nx, const double *y,
                             size_t ny, double level, size_t B,
                             uint64_t seed, sb_interval *ratio, double *p)
{
    int rc;

    if (!p)
        return SB_EINVAL;
    if ((rc = check_ratio(x, nx, y, ny, level, B, SB_BOOT_PERCENTILE,
                          ratio)) != SB_OK)
        return rc;
    return boot_ci(x, nx, y, ny, level, B, SB_BOOT_PERCENTILE, seed, ratio,
                   p);
}

int sb_stats_median_boot_ci(const double *x, size_t n, double level,
                            size_t B, int method, uint64_t seed,
                            sb_interval *out)
{
    int rc;

    if ((rc = check_common(level, B, method, out)) != SB_OK ||
        (rc = check_sample(x, n, 0)) != SB_OK)
        return rc;
    return boot_ci(x, n, NULL, 0, level, B, method, seed, out, NULL);
}

int sb_stats_ratio_boot_ci(const double *x, size_t nx, const double *y,
                           size_t ny, double level, size_t B, int method,
                           uint64_t seed, sb_interval *out)
{
    int rc;

    if ((rc = check_ratio(x, nx, y, ny, level, B, method, out)) != SB_OK)
        return rc;
    return boot_ci(x, nx, y, ny, level, B, method, seed, out, NULL);
}
