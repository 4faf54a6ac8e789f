/*
 * test_montecarlo.c: the comparisons and the invocation-level interval
 * validated by simulation.  A unit test shows a function computes what
 * scipy computes; this one shows that what it computes behaves as the
 * statistics promise: false-positive rates at alpha, power where power is
 * due, Holm holding the family-wise error rate, and an invocation-level
 * interval that covers the true location when pooling all samples does
 * not.
 *
 * Every section draws from its own gsl_rng_mt19937 with a fixed seed
 * (SEED_BASE + the section's number, below), so the run is deterministic
 * and a failure reproduces exactly.  Windows on simulated rates are wide
 * against their binomial noise (stated at each one): with a fixed seed
 * they either pass or fail for good, and a change to the code that moves
 * a rate by a few points shows up.  The whole test takes a few seconds at
 * -O2.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>

#include "statbench.h"
#include "tap.h"

/* Section k uses gsl_rng_mt19937 seeded with SEED_BASE + k. */
#define SEED_BASE 20241100UL

#define ALPHA 0.05
#define TRIALS 4000

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static gsl_rng *rng_new(unsigned long section)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, SEED_BASE + section);
    return r;
}

/* rng_new, or NULL after a failed check naming the section (what). */
static gsl_rng *section_rng(unsigned long section, const char *what)
{
    gsl_rng *r = rng_new(section);
    if (!r)
        tap_ok(0, "%s: gsl_rng_alloc", what);
    return r;
}

/* n lognormal values exp(mu + sigma Z). */
static void lognormal(gsl_rng *r, double *x, size_t n, double mu,
                      double sigma)
{
    size_t i;
    for (i = 0; i < n; ++i)
        x[i] = exp(mu + gsl_ran_gaussian_ziggurat(r, sigma));
}

static void normal(gsl_rng *r, double *x, size_t n, double mu, double sigma)
{
    size_t i;
    for (i = 0; i < n; ++i)
        x[i] = mu + gsl_ran_gaussian_ziggurat(r, sigma);
}

/* The binomial standard error of a rate near p over trials. */
static double binom_se(double p, double trials)
{
    return sqrt(p * (1.0 - p) / trials);
}

enum test_kind { T_MW, T_WELCH };

/* Rejection rate at ALPHA of a two-sample test over trials: x from
 * (mu, sigma), y from (mu + shift, sigma), lognormal or normal; ticks
 * rounds lognormal values to integers (ties, as a TSC produces them).
 * Returns -1 when a call fails. */
static double reject_rate(gsl_rng *r, int kind, size_t n, size_t trials,
                          double mu, double sigma, double shift, int log_data,
                          int ticks)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    size_t t, i, hits = 0;
    double rate = -1.0;

    if (!x || !y)
        goto done;
    for (t = 0; t < trials; ++t) {
        double p, u, tt, df;
        int rc;
        if (log_data) {
            lognormal(r, x, n, mu, sigma);
            lognormal(r, y, n, mu + shift, sigma);
        } else {
            normal(r, x, n, mu, sigma);
            normal(r, y, n, mu + shift, sigma);
        }
        if (ticks)
            for (i = 0; i < n; ++i) {
                x[i] = floor(x[i] + 0.5);
                y[i] = floor(y[i] + 0.5);
            }
        if (kind == T_MW)
            rc = sb_stats_mann_whitney(x, n, y, n, &u, &p, NULL);
        else
            rc = sb_stats_welch_log(x, n, y, n, 0.95, &tt, &df, &p, NULL);
        if (rc != SB_OK)
            goto done;
        hits += p < ALPHA;
    }
    rate = (double)hits / (double)trials;
done:
    free(x);
    free(y);
    return rate;
}

/* A false-positive rate must lie in 3-7%: 5.8 binomial standard errors
 * (0.34%) either side of 5% at 4000 trials. */
static void check_fpr(const char *what, double rate)
{
    if (!tap_ok(rate >= 0.03 && rate <= 0.07,
                "A/A %s: false-positive rate %.2f%% in [3%%, 7%%]", what,
                100.0 * rate))
        tap_diag("  binomial se at 5%%: %.2f%%",
                 100.0 * binom_se(ALPHA, TRIALS));
}

static void section_aa(void)
{
    gsl_rng *r = section_rng(1, "A/A");
    double t0 = now(), rate;

    if (!r)
        return;
    /* Lognormal times, no ties: the normal approximation at n = 50. */
    rate = reject_rate(r, T_MW, 50, TRIALS, log(1000.0), 0.1, 0.0, 1, 0);
    check_fpr("Mann-Whitney n=50 lognormal", rate);
    /* n = 10: the exact distribution.  Its size at 5% is 4.33% (the
     * largest attainable tail below 5%), still inside the window. */
    rate = reject_rate(r, T_MW, 10, TRIALS, log(1000.0), 0.1, 0.0, 1, 0);
    check_fpr("Mann-Whitney n=10 exact", rate);
    /* Integer ticks around 100 with 3% spread: heavy ties, so the tie
     * correction of the variance carries the test. */
    rate = reject_rate(r, T_MW, 100, TRIALS, log(100.0), 0.03, 0.0, 1, 1);
    check_fpr("Mann-Whitney n=100 integer ticks (ties)", rate);
    rate = reject_rate(r, T_WELCH, 50, TRIALS, log(1000.0), 0.1, 0.0, 1, 0);
    check_fpr("Welch-log n=50 lognormal", rate);
    rate = reject_rate(r, T_WELCH, 100, TRIALS, log(1000.0), 0.3, 0.0, 1, 0);
    check_fpr("Welch-log n=100 lognormal", rate);
    tap_diag("A/A two-sample sections: %.2f s", now() - t0);
    gsl_rng_free(r);
}

/* The paired test on per-invocation estimates: each of m invocations runs
 * baseline and candidate, which share that invocation's effect
 * exp(N(0, 0.05)); each estimate has its own noise exp(N(0, 0.01)).  The
 * log ratios are then normal with mean 0, so the paired t test is exact. */
static void section_paired(void)
{
    gsl_rng *r = section_rng(2, "paired");
    double a[5], b[5], t0 = now();
    size_t t, i, hits = 0, fail = 0;

    if (!r)
        return;
    for (t = 0; t < TRIALS; ++t) {
        sb_interval ratio;
        double p;
        for (i = 0; i < 5; ++i) {
            double e = gsl_ran_gaussian_ziggurat(r, 0.05);
            a[i] = 500.0 * exp(e + gsl_ran_gaussian_ziggurat(r, 0.01));
            b[i] = 500.0 * exp(e + gsl_ran_gaussian_ziggurat(r, 0.01));
        }
        if (sb_stats_paired_log(a, b, 5, 0.95, &ratio, &p) != SB_OK)
            ++fail;
        else
            hits += p < ALPHA;
    }
    TAP_IS_INT(fail, 0, "A/A paired-log m=5: every call SB_OK");
    check_fpr("paired-log m=5 invocation pairs",
              (double)hits / (double)TRIALS);
    tap_diag("A/A paired section: %.2f s", now() - t0);
    gsl_rng_free(r);
}

/* Power at a shift of half a standard deviation, n = 100 a group.  The
 * t test's power there is 94%, Mann-Whitney's (efficiency 3/pi on normal
 * data) about 93%; 1000 trials give a binomial se under 1%, so 80% is a
 * floor many se below either. */
static void section_power(void)
{
    gsl_rng *r = section_rng(3, "power");
    double t0 = now(), rate;

    if (!r)
        return;
    rate = reject_rate(r, T_MW, 100, 1000, 0.0, 1.0, 0.5, 0, 0);
    tap_ok(rate > 0.80, "power Mann-Whitney, normal, 0.5 sd, n=100: %.1f%% "
           "> 80%%", 100.0 * rate);
    /* Lognormal times: the log has sd 0.2 and shifts by 0.1. */
    rate = reject_rate(r, T_WELCH, 100, 1000, log(1000.0), 0.2, 0.1, 1, 0);
    tap_ok(rate > 0.80, "power Welch-log, lognormal, log shift 0.5 sd, "
           "n=100: %.1f%% > 80%%", 100.0 * rate);
    tap_diag("power section: %.2f s", now() - t0);
    gsl_rng_free(r);
}

/* Holm over families of m = 10 independent null tests (Welch-log on
 * lognormal samples of 20).  Holm's FWER is at most alpha; under
 * independence it is 1 - (1 - alpha/10)^10 = 4.89%.  The check is
 * one-sided at 99%: the observed rate may exceed alpha by at most
 * 2.33 binomial se (0.80% at 4000 families), i.e. we reject only when the
 * data say FWER > alpha with 99% confidence. */
static void section_holm(void)
{
    enum { M = 10, N = 20 };
    gsl_rng *r = section_rng(4, "Holm");
    double x[N], y[N], p[M], adj[M], t0 = now();
    size_t f, k, raw_any = 0, holm_any = 0, fail = 0;
    double bound, raw, holm;

    if (!r)
        return;
    for (f = 0; f < TRIALS; ++f) {
        int any_raw = 0, any_holm = 0;
        for (k = 0; k < M; ++k) {
            double t, df;
            lognormal(r, x, N, log(200.0), 0.1);
            lognormal(r, y, N, log(200.0), 0.1);
            if (sb_stats_welch_log(x, N, y, N, 0.95, &t, &df, &p[k], NULL) !=
                SB_OK)
                ++fail;
            any_raw |= p[k] < ALPHA;
        }
        if (sb_stats_holm(p, M, adj) != SB_OK)
            ++fail;
        for (k = 0; k < M; ++k)
            any_holm |= adj[k] < ALPHA;
        raw_any += any_raw;
        holm_any += any_holm;
    }
    TAP_IS_INT(fail, 0, "Holm families: every call SB_OK");
    raw = (double)raw_any / TRIALS;
    holm = (double)holm_any / TRIALS;
    bound = ALPHA + 2.33 * binom_se(ALPHA, TRIALS);
    tap_ok(holm <= bound,
           "Holm FWER over %d families of %d null tests: %.2f%% <= %.2f%% "
           "(alpha + 2.33 se, one-sided 99%%)", TRIALS, M, 100.0 * holm,
           100.0 * bound);
    tap_diag("unadjusted FWER: %.2f%% (theory 1 - 0.95^10 = %.2f%%)",
             100.0 * raw, 100.0 * (1.0 - pow(1.0 - ALPHA, M)));
    tap_ok(raw > 0.30, "unadjusted FWER %.2f%% is far above alpha (> 30%%)",
           100.0 * raw);
    tap_diag("Holm section: %.2f s", now() - t0);
    gsl_rng_free(r);
}

/* Invocation level.  m invocations of n samples: invocation i has location
 * exp(MU + b_i), b_i ~ N(0, SB), and its samples are that location times
 * exp(w), w ~ N(0, SW).  The median of invocation i is
 * exp(MU + b_i + median of n N(0, SW)), symmetric in the log about MU, so
 * the population median of invocation medians, the true location, is
 * exp(MU).  (Their mean, which the t interval targets, is larger by a
 * factor of about exp(SB^2 / 2) = 1.00125: 0.03 of the interval's
 * standard error at m = 5, too little to move the coverage.)
 *
 * The variance components on the raw values, for the check on average:
 * the group means are exp(MU + b_i) exp(SW^2 / 2), so
 *   between = exp(2 MU) exp(SW^2) (exp(SB^2) - 1) exp(SB^2),
 *   within  = E[exp(2 MU + 2 b_i)] Var(exp(w))
 *           = exp(2 MU) exp(2 SB^2) (exp(SW^2) - 1) exp(SW^2). */
#define MU 6.907755278982137 /* log(1000) */
#define SB 0.05
#define SW 0.02

static void section_levels(size_t m, unsigned long section)
{
    enum { N = 200 };
    gsl_rng *r = rng_new(section);
    double *all = malloc(m * N * sizeof *all);
    const double **groups = malloc(m * sizeof *groups);
    size_t *n = malloc(m * sizeof *n);
    double truth = exp(MU), t0 = now();
    double vb_true = exp(2 * MU) * exp(SW * SW) * (exp(SB * SB) - 1.0) *
                     exp(SB * SB);
    double vw_true = exp(2 * MU) * exp(2 * SB * SB) * (exp(SW * SW) - 1.0) *
                     exp(SW * SW);
    double frac_true = vb_true / (vb_true + vw_true);
    double sum_vb = 0.0, sum_vw = 0.0, sum_frac = 0.0;
    size_t t, i, j, cover = 0, pooled_cover = 0, fail = 0;
    double cov, pcov;

    if (!r || !all || !groups || !n) {
        tap_ok(0, "levels m=%zu: out of memory", m);
        goto done;
    }
    for (i = 0; i < m; ++i) {
        groups[i] = all + i * N;
        n[i] = N;
    }
    for (t = 0; t < TRIALS; ++t) {
        sb_levels L;
        sb_interval pooled;
        for (i = 0; i < m; ++i) {
            double loc = MU + gsl_ran_gaussian_ziggurat(r, SB);
            for (j = 0; j < N; ++j)
                all[i * N + j] = exp(loc + gsl_ran_gaussian_ziggurat(r, SW));
        }
        if (sb_stats_levels(groups, n, m, 0.95, &L) != SB_OK) {
            ++fail;
            continue;
        }
        cover += L.ci.lo <= truth && truth <= L.ci.hi;
        sum_vb += L.var_between;
        sum_vw += L.var_within;
        sum_frac += L.between_fraction;
        /* Pooled as if independent: the order-statistic interval of all
         * m * N samples (sorted in place; the groups are redrawn). */
        gsl_sort(all, 1, m * N);
        if (sb_stats_median_ci(all, m * N, 0.95, &pooled) != SB_OK) {
            ++fail;
            continue;
        }
        pooled_cover += pooled.lo <= truth && truth <= pooled.hi;
    }
    TAP_IS_INT(fail, 0, "levels m=%zu: every call SB_OK", m);
    cov = (double)cover / TRIALS;
    pcov = (double)pooled_cover / TRIALS;
    /* 93-97%: 5.8 binomial se (0.34%) either side of 95%. */
    tap_ok(cov >= 0.93 && cov <= 0.97,
           "levels m=%zu n=%d: 95%% interval covers exp(mu) in %.2f%% of "
           "%d trials (want 93-97%%)", m, N, 100.0 * cov, TRIALS);
    tap_ok(pcov < 0.50,
           "levels m=%zu n=%d: pooled median interval covers only %.2f%% "
           "(want < 50%%)", m, N, 100.0 * pcov);
    tap_diag("pooled coverage %.2f%% against invocation-level %.2f%%",
             100.0 * pcov, 100.0 * cov);
    /* On average: var_between and var_within are unbiased (the clip at 0
     * never bites here); the per-trial relative sd of var_between is
     * about sqrt(2 / (m - 1)), so over 4000 trials 5% is over 4 se, and
     * var_within, on m (N - 1) df, is far tighter.  The fraction of the
     * mean components is then near the true fraction.  The mean of the
     * per-trial fractions is not: each is a concave function of MSB, a
     * chi-square on m - 1 df, so by Jensen it falls short, by about 0.06
     * at m = 5 and 0.03 at m = 10 here; it gets a looser bound. */
    TAP_IS_REL(sum_vb / TRIALS, vb_true, 0.05,
               "levels m=%zu: mean var_between %.4g near %.4g", m,
               sum_vb / TRIALS, vb_true);
    TAP_IS_REL(sum_vw / TRIALS, vw_true, 0.05,
               "levels m=%zu: mean var_within %.4g near %.4g", m,
               sum_vw / TRIALS, vw_true);
    {
        double fm = sum_vb / (sum_vb + sum_vw), mf = sum_frac / TRIALS;
        tap_ok(fabs(fm - frac_true) < 0.02,
               "levels m=%zu: between fraction of the mean components "
               "%.4f within 0.02 of the true %.4f", m, fm, frac_true);
        tap_ok(fabs(mf - frac_true) < 0.10,
               "levels m=%zu: mean between_fraction %.4f within 0.10 of "
               "the true %.4f (Jensen: below it)", m, mf, frac_true);
    }
    tap_diag("levels m=%zu section: %.2f s", m, now() - t0);
done:
    gsl_rng_free(r);
    free(all);
    free(groups);
    free(n);
}

/* Verdicts between runs (compare A.json B.json), old method against new,
 * on simulated invocation medians.  Three kinds of run:
 *  - LOGN: lognormal medians, 2% spread;
 *  - MIX: the two modes: clean invocations on the clock steps of
 *    the machine (53.73 ticks times 1.038^K, K uniform in 0..5, with
 *    0.1% noise), and with probability 0.28 a contended one, 1.6 to 2.1
 *    times slower (19 of 67 in the run);
 *  - MIXVAR: the same, but each run draws its own contended share,
 *    uniform in 0 to 0.4 (contention comes and goes over minutes).
 * An A/A pair draws both runs from the same kind; a false verdict is
 * "faster" or "slower" (sb_stats_verdict at alpha 0.05, threshold 1%, one
 * comparison so p is its own Holm adjustment).  Old: Welch's t on log
 * invocation medians; new: sb_stats_ratio_boot_test, 1000 resamples. */
enum { K_LOGN, K_MIX, K_MIXVAR };
#define VERDICT_TRIALS 2000

static void run_medians(gsl_rng *r, int kind, size_t n, double shift,
                        double *x)
{
    double share = kind == K_MIXVAR ? gsl_rng_uniform(r) * 0.4 : 0.28;

    for (size_t i = 0; i < n; ++i) {
        if (kind == K_LOGN) {
            x[i] = 1000.0 * exp(gsl_ran_gaussian(r, 0.02));
        } else {
            x[i] = 53.73 * pow(1.038, (double)gsl_rng_uniform_int(r, 6)) *
                   exp(gsl_ran_gaussian(r, 0.001));
            if (gsl_rng_uniform(r) < share)
                x[i] *= 1.6 + 0.5 * gsl_rng_uniform(r);
        }
        x[i] *= shift;
    }
}

/* The share of trials with a verdict of change, by the old (Welch) and
 * the new (bootstrap) method, into old and new; 0 on success. */
static int verdict_rates(gsl_rng *r, int kind, size_t n, double shift,
                         double *old, double *new_)
{
    double x[100], y[100];
    size_t hits_old = 0, hits_new = 0;

    for (size_t t = 0; t < VERDICT_TRIALS; ++t) {
        sb_interval ci;
        double p, tt, df;
        int v;
        run_medians(r, kind, n, 1.0, x);
        run_medians(r, kind, n, shift, y);
        if (sb_stats_welch_log(x, n, y, n, 0.95, &tt, &df, &p, &ci) != SB_OK)
            return -1;
        v = sb_stats_verdict(&ci, p, ALPHA, 0.01);
        hits_old += v == SB_VERDICT_FASTER || v == SB_VERDICT_SLOWER;
        if (sb_stats_ratio_boot_test(x, n, y, n, 0.95, 1000, 7 + t, &ci,
                                     &p) != SB_OK)
            return -1;
        v = sb_stats_verdict(&ci, p, ALPHA, 0.01);
        hits_new += v == SB_VERDICT_FASTER || v == SB_VERDICT_SLOWER;
    }
    *old = (double)hits_old / VERDICT_TRIALS;
    *new_ = (double)hits_new / VERDICT_TRIALS;
    return 0;
}

static void section_verdicts(void)
{
    gsl_rng *r = section_rng(7, "verdicts");
    static const char *kname[] = {"lognormal", "two-mode",
                                  "two-mode, share per run"};
    static const size_t ns[] = {6, 20, 67};
    double t0 = now(), o, nw;

    if (!r)
        return;
    for (int k = K_LOGN; k <= K_MIXVAR; ++k)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; ++j) {
            if (verdict_rates(r, k, ns[j], 1.0, &o, &nw)) {
                tap_ok(0, "verdicts: a comparison failed");
                goto done;
            }
            tap_diag("A/A %s, %zu invocations: false verdicts old %.2f%%, "
                     "new %.2f%%", kname[k], ns[j], 100 * o, 100 * nw);
            /* Both runs from one distribution: the nominal 5%, with 2
             * points (4 binomial standard errors at 2000 trials) above
             * it for the bootstrap's small-sample slack. */
            if (k != K_MIXVAR)
                tap_ok(nw <= 0.07, "A/A %s, %zu invocations: new method's "
                       "false-verdict rate %.2f%% at most 7%%", kname[k],
                       ns[j], 100 * nw);
            /* Runs whose contended share differs: the medians truly
             * differ a little, but far less than the means of logs. */
            else if (ns[j] >= 20)
                tap_ok(nw < o / 2, "A/A %s, %zu invocations: new method's "
                       "verdict rate %.2f%% under half the old %.2f%%",
                       kname[k], ns[j], 100 * nw, 100 * o);
        }
    /* Power against a known shift: 3% slower with 2% lognormal spread at
     * 20 invocations; 10% slower in the two-mode runs. */
    if (!verdict_rates(r, K_LOGN, 20, 1.03, &o, &nw))
        tap_ok(nw >= 0.8, "power, lognormal 20 invocations, 3%% slower: "
               "new %.2f%% (old %.2f%%) at least 80%%", 100 * nw, 100 * o);
    if (!verdict_rates(r, K_MIX, 20, 1.10, &o, &nw))
        tap_ok(nw > o, "power, two-mode 20 invocations, 10%% slower: "
               "new %.2f%% above old %.2f%% (six clock steps 3.8%% apart "
               "and 28%% contended leave little power to either)",
               100 * nw, 100 * o);
    tap_diag("verdict sections: %.2f s", now() - t0);
done:
    gsl_rng_free(r);
}

int main(void)
{
    double t0 = now();

    sb_init();
    section_aa();
    section_paired();
    section_power();
    section_holm();
    section_levels(5, 5);
    section_levels(10, 6);
    section_verdicts();
    tap_diag("total: %.2f s", now() - t0);
    return tap_done();
}
