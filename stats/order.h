/*
 * order.h: the exact search for an order statistic's index (quantile.c),
 * shared by the median's interval (interval.c) and the quantiles';
 * never installed.
 */
#ifndef SB_STATS_ORDER_H
#define SB_STATS_ORDER_H

#include <stddef.h>

/* The largest k in [0, kmax] with F(k) = P(Bin(n, p) <= k) <= tail, into
 * *k with *f = F(k), found by stepping from guess (clamped to [0, kmax])
 * up or down: the median's interval (p = 1/2, interval.c) and the
 * quantiles' (quantile.c) start from their normal approximations and
 * share the exact search.  The caller checks F(0) <= tail first.
 * SB_ENUMERIC when GSL returns NaN. */
int sb__binomial_order(size_t n, double p, double tail, size_t kmax,
                       double guess, size_t *k, double *f);

#endif
