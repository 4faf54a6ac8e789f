/*
 * changepoint.c: change points in a series of run estimates by E-Divisive
 * means (Matteson and James, "A Nonparametric Approach for Multiple
 * Change Point Analysis of Multivariate Data", JASA 2014), in the form
 * Daly et al. use for performance tests ("Change Point Detection in
 * Software Performance Testing", ICPE 2020): the energy statistic with
 * exponent alpha (1 by default), the best split of a segment at the
 * largest Q-hat, its significance by a permutation test, and recursive
 * bisection until a candidate is not significant.
 *
 * The statistic.  For a split of a segment into X (the m values before
 * tau) and Y (the k values from tau on), with d(a, b) = |a - b|^alpha,
 *   E = 2/(m k) sum_ij d(X_i, Y_j) - 2/(m (m-1)) sum_{i<i'} d(X_i, X_i')
 *                                  - 2/(k (k-1)) sum_{j<j'} d(Y_j, Y_j'),
 *   Q = m k / (m + k) E.
 * As the implementations Daly et al. describe (MongoDB's
 * signal-processing-algorithms, and Apache Otava after them), Y runs to
 * the segment's end: Matteson and James also search Y's end, which costs
 * a factor n and finds the same splits of a series of steps.  Every tau
 * of a segment of L values is scored in O(L^2) by moving one value at a
 * time from Y to X, with the sums updated by that value's distances.
 *
 * The test.  The candidate is the best split over all current segments.
 * Each permutation shuffles the values within each segment (the splits
 * already accepted stay), takes the best split over the segments again,
 * and counts when its Q reaches the candidate's; p = (count + 1) / (R + 1),
 * so that under exchangeable values P(p <= c) <= c for every cutoff c.
 * A candidate with p above the cutoff ends the search, and so do the
 * permutations as soon as the count alone puts p above it (the p of a
 * refused candidate is then a lower bound, never shown).  The random
 * stream is gsl_rng_mt19937 seeded as the bootstrap seeds it, so a seed
 * gives the same answer on every machine with the same GSL.
 *
 * The distances of the whole series are computed once (n^2 doubles), so
 * a permutation only reindexes them: hence the cap on n.
 *
 * The scale.  The distances are those of the series divided by a power
 * of two near its median absolute value: values near 1e153 would give
 * sums of |a - b|^alpha beyond the largest double (inf, and no change
 * point), values near 1e-300 distances that underflow to 0.  Q is
 * homogeneous (c x gives c^alpha Q), so the splits and the test are the
 * series' own, and a power of two divides exactly; the Q-hat returned
 * is multiplied back, in the series' own units (inf where those are
 * beyond a double: the split is found all the same).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats_internal.h"
#include "statbench.h"

/* n^2 distances of 8 bytes: 128 MiB at the cap. */
#define CP_MAX_N SB_CP_MAX_N

void sb_cp_options_init(sb_cp_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->exponent = 1.0;
    o->pvalue = 0.05;
    o->permutations = 199;
    o->min_size = 5;
    o->seed = 1;
}

/* The best split of the segment whose values are x[idx[0..L-1]] in that
 * order, through the distance matrix D (n columns): the tau (1 .. L-1,
 * counted in the segment) with the largest Q among those leaving at least
 * min values on either side, and its Q; q_all (optional, L values) gets
 * every tau's Q, NAN where it is not scored.  0 when no tau qualifies. */
static int best_split(const double *D, size_t n, const size_t *idx, size_t L,
                      size_t min, size_t *tau, double *q, double *q_all)
{
    double W = 0.0, WL = 0.0, B = 0.0, best = -INFINITY;
    int found = 0;

    if (q_all)
        for (size_t t = 0; t < L; t++)
            q_all[t] = NAN;
    if (L < 2 * min)
        return 0;
    for (size_t a = 0; a < L; a++)
        for (size_t b = a + 1; b < L; b++)
            W += D[idx[a] * n + idx[b]];
    /* tau = 0: X empty, every distance within Y.  Moving value t from Y
     * to X adds its distances to the values before it to X's sum and
     * takes them from the distances between; its distances to the values
     * after it join the distances between. */
    for (size_t t = 0; t + 1 < L; t++) {
        double before = 0.0, after = 0.0;
        const double *row = D + idx[t] * n;
        for (size_t a = 0; a < t; a++)
            before += row[idx[a]];
        for (size_t b = t + 1; b < L; b++)
            after += row[idx[b]];
        WL += before;
        B += after - before;
        size_t m = t + 1, k = L - m;
        if (m < min || k < min)
            continue;
        double dm = (double)m, dk = (double)k;
        double WR = W - WL - B;
        double e = 2.0 * B / (dm * dk) - 2.0 * WL / (dm * (dm - 1.0)) -
                   2.0 * WR / (dk * (dk - 1.0));
        double qq = dm * dk / (dm + dk) * e;
        if (q_all)
            q_all[m] = qq;
        if (qq > best) {
            best = qq;
            *tau = m;
            found = 1;
        }
    }
    if (found)
        *q = best;
    return found;
}

static int check_series(const double *x, size_t n, double exponent,
                        size_t min_size)
{
    if (!x && n > 0)
        return SB_EINVAL;
    if (n > CP_MAX_N || min_size < 2 || !(exponent > 0.0 && exponent < 2.0))
        return SB_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return SB_EINVAL;
    return SB_OK;
}

/* The power of two k by which x[0..n-1] is divided (the exponent of
 * its median absolute value, else of its largest when the median is 0),
 * or SB_ENOMEM. */
static int series_scale(const double *x, size_t n, int *k)
{
    double *v = malloc((n ? n : 1) * sizeof *v), m = 0.0;
    if (!v)
        return SB_ENOMEM;
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(x[i]);
    if (n)
        m = sb__median_inplace(v, n);
    if (m == 0.0)
        for (size_t i = 0; i < n; i++)
            m = fmax(m, v[i]);
    free(v);
    *k = m > 0.0 && isfinite(m) ? ilogb(m) : 0;
    return SB_OK;
}

/* Q-hat of the series divided by 2^k, in the series' units. */
static double unscale(double q, int k, double exponent)
{
    return exponent == 1.0 ? ldexp(q, k) : q * exp2((double)k * exponent);
}

/* The distances of x[0..n-1] divided by 2^k. */
static double *distances(const double *x, size_t n, double exponent, int k)
{
    double *D = malloc((n ? n : 1) * (n ? n : 1) * sizeof *D);
    if (!D)
        return NULL;
    for (size_t a = 0; a < n; a++) {
        D[a * n + a] = 0.0;
        for (size_t b = a + 1; b < n; b++) {
            double d = fabs(ldexp(x[a], -k) - ldexp(x[b], -k));
            if (exponent != 1.0)
                d = pow(d, exponent);
            D[a * n + b] = D[b * n + a] = d;
        }
    }
    return D;
}

int sb_stats_energy_split(const double *x, size_t n, size_t min_size,
                          double exponent, double *q_all, size_t *tau,
                          double *q)
{
    double *D;
    size_t *idx;
    size_t t = 0;
    double qq = NAN;
    int rc, found, k = 0;

    if (!tau || !q)
        return SB_EINVAL;
    if ((rc = check_series(x, n, exponent, min_size)) != SB_OK)
        return rc;
    *tau = 0;
    *q = NAN;
    if ((rc = series_scale(x, n, &k)) != SB_OK)
        return rc;
    D = distances(x, n, exponent, k);
    /* Zeroed: with n 0 no index is written, and none read. */
    idx = calloc(n ? n : 1, sizeof *idx);
    if (!D || !idx) {
        free(D);
        free(idx);
        return SB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    found = best_split(D, n, idx, n, min_size, &t, &qq, q_all);
    free(D);
    free(idx);
    if (q_all)
        for (size_t i = 0; i < n; i++)
            q_all[i] = unscale(q_all[i], k, exponent);
    if (!found)
        return SB_ENUMERIC;
    *tau = t;
    *q = unscale(qq, k, exponent);
    return SB_OK;
}

/* The best split over the segments that the sorted boundaries bound[0 ..
 * nb-1] (0 first, n last) make, each segment's values taken through
 * idx (the identity, or a permutation within each segment).  Returns 0
 * when no segment can be split; else its segment's first index in *start
 * and the split's index in the series in *at. */
static int best_over(const double *D, size_t n, const size_t *idx,
                     const size_t *bound, size_t nb, size_t min,
                     size_t *at, double *q)
{
    int found = 0;
    *q = -INFINITY;
    for (size_t s = 0; s + 1 < nb; s++) {
        size_t t, L = bound[s + 1] - bound[s];
        double qq;
        if (best_split(D, n, idx + bound[s], L, min, &t, &qq, NULL) &&
            qq > *q) {
            *q = qq;
            *at = bound[s] + t;
            found = 1;
        }
    }
    return found;
}

int sb_stats_edivisive(const double *x, size_t n, const sb_cp_options *o,
                       sb_change_point *out, size_t max, size_t *nfound)
{
    sb_cp_options def;
    double *D = NULL;
    size_t *idx = NULL, *perm = NULL, *bound = NULL, nb = 2, found = 0;
    gsl_rng *r = NULL;
    int rc = SB_OK, shift = 0;

    if (!nfound || (!out && max > 0))
        return SB_EINVAL;
    *nfound = 0;
    if (!o) {
        sb_cp_options_init(&def);
        o = &def;
    }
    if (o->size != sizeof(sb_cp_options) || o->permutations < 1 ||
        o->permutations > 100000 || !(o->pvalue > 0.0 && o->pvalue < 1.0))
        return SB_EINVAL;
    if ((rc = check_series(x, n, o->exponent, o->min_size)) != SB_OK)
        return rc;
    if (n < 2 * o->min_size)
        return SB_OK;
    sb_init();

    if ((rc = series_scale(x, n, &shift)) != SB_OK)
        return rc;
    D = distances(x, n, o->exponent, shift);
    idx = malloc(n * sizeof *idx);
    perm = malloc(n * sizeof *perm);
    bound = malloc((n + 2) * sizeof *bound);
    r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!D || !idx || !perm || !bound || !r) {
        rc = SB_ENOMEM;
        goto done;
    }
    gsl_rng_set(r, (unsigned long)((o->seed ^ (o->seed >> 32)) &
                                   0xffffffffu));
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    bound[0] = 0;
    bound[1] = n;

    for (;;) {
        size_t at = 0, count = 0, done_perm = 0;
        double q;
        /* Refused as soon as count + 1 > pvalue (R + 1). */
        double limit = o->pvalue * (double)(o->permutations + 1);

        if (!best_over(D, n, idx, bound, nb, o->min_size, &at, &q))
            break;
        for (size_t p = 0; p < o->permutations; p++) {
            size_t pat;
            double pq;
            memcpy(perm, idx, n * sizeof *perm);
            for (size_t s = 0; s + 1 < nb; s++)
                gsl_ran_shuffle(r, perm + bound[s], bound[s + 1] - bound[s],
                                sizeof *perm);
            if (best_over(D, n, perm, bound, nb, o->min_size, &pat, &pq) &&
                pq >= q)
                count++;
            done_perm++;
            if ((double)(count + 1) > limit)
                break;
        }
        double pv = (double)(count + 1) / (double)(o->permutations + 1);
        if (done_perm < o->permutations || pv > o->pvalue)
            break;
        /* Accepted: a new boundary, in order. */
        size_t k = nb;
        while (k > 0 && bound[k - 1] > at) {
            bound[k] = bound[k - 1];
            k--;
        }
        bound[k] = at;
        nb++;
        if (found < max) {
            size_t j = found;
            while (j > 0 && out[j - 1].index > at) {
                out[j] = out[j - 1];
                j--;
            }
            out[j].index = at;
            out[j].q = unscale(q, shift, o->exponent);
            out[j].p = pv;
        }
        found++;
    }
    *nfound = found;
done:
    free(D);
    free(idx);
    free(perm);
    free(bound);
    if (r)
        gsl_rng_free(r);
    return rc;
}
