/*
 * history_bench.c: the change points of statbench history against
 * Perfherder's windowed t-test, on synthetic series of run estimates
 * (bench/history.sh builds and runs it; README, "Benchmarks across
 * runs").
 *
 * A series is 200 runs; each run's estimate is 1000 x the level x
 * exp(N(0, sd)), the run-to-run noise, and in the "outliers" model one
 * run in 20 is slowed by a further uniform 3-8% (a neighbour on the
 * host).  The levels step up by 2% at run 50, 5% at run 100 and 10% at
 * run 150 (each over the level before), or never (the false-alarm
 * series).  A change is detected when a reported change point lies
 * within 3 runs of it (each reported point matches one change at most);
 * every other reported point is a false change point.
 *
 * E-Divisive means is the library's (sb_stats_edivisive: what statbench
 * history runs on each cell's series), at its defaults or the options
 * given.  Perfherder's test (Mozilla's perfherder, its detect_changes):
 * at each run i, the 12 runs before i against the 12 from i on, each
 * window's mean weighted linearly (the runs nearest i weigh most) and its
 * variance about that mean unweighted, t = |mean_fore - mean_back| /
 * sqrt(var_back / 12 + var_fore / 12); a change where t exceeds 7 and
 * both neighbours' t, and the means differ by 2% or more.
 *
 *   history_bench [SEEDS [SD_PCT [MIN_SIZE [PERMUTATIONS]]]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "statbench.h"

#define N 200
#define WIN 12
#define T_CUTOFF 7.0
#define PH_THRESHOLD 0.02
#define TOL 3

static const size_t change_at[3] = {50, 100, 150};
static const double change_step[3] = {0.02, 0.05, 0.10};

static void make_series(gsl_rng *r, double *x, int steps, double sd,
                        int outliers)
{
    double level = 1.0;
    for (size_t i = 0; i < N; i++) {
        for (int k = 0; steps && k < 3; k++)
            if (i == change_at[k])
                level *= 1.0 + change_step[k];
        x[i] = 1000.0 * level * exp(gsl_ran_gaussian_ziggurat(r, sd));
        if (outliers && gsl_rng_uniform(r) < 0.05)
            x[i] *= 1.03 + 0.05 * gsl_rng_uniform(r);
    }
}

/* Perfherder's weighted mean and variance of a window w[0..n-1], w[0]
 * nearest the run under test. */
static void window(const double *w, size_t n, double *mean, double *var)
{
    double ws = 0, s = 0, v = 0;
    for (size_t i = 0; i < n; i++) {
        double wt = (double)(n - i) / (double)n;
        s += wt * w[i];
        ws += wt;
    }
    *mean = s / ws;
    for (size_t i = 0; i < n; i++)
        v += (w[i] - *mean) * (w[i] - *mean);
    *var = n > 1 ? v / (double)(n - 1) : 0;
}

static size_t perfherder(const double *x, size_t *at, size_t max)
{
    double t[N] = {0}, back[WIN], fore[WIN], mb[N] = {0}, mf[N] = {0};
    size_t found = 0;
    for (size_t i = WIN; i + WIN <= N; i++) {
        double vb, vf;
        for (size_t k = 0; k < WIN; k++) {
            back[k] = x[i - 1 - k];
            fore[k] = x[i + k];
        }
        window(back, WIN, &mb[i], &vb);
        window(fore, WIN, &mf[i], &vf);
        if (mf[i] == mb[i])
            t[i] = 0;
        else if (vb == 0 && vf == 0)
            t[i] = INFINITY;
        else
            t[i] = fabs(mf[i] - mb[i]) / sqrt(vb / WIN + vf / WIN);
    }
    for (size_t i = WIN; i + WIN <= N && found < max; i++) {
        if (t[i] <= T_CUTOFF || t[i - 1] > t[i] ||
            (i + 1 < N && t[i + 1] > t[i]))
            continue;
        if (fabs(mf[i] / mb[i] - 1) < PH_THRESHOLD)
            continue;
        at[found++] = i;
    }
    return found;
}

/* Each true change matched by the nearest unmatched point within TOL. */
static void score(const size_t *at, size_t n, int steps, size_t *hit,
                  size_t *false_points)
{
    int used[N] = {0};
    for (int k = 0; steps && k < 3; k++) {
        size_t best = n;
        for (size_t j = 0; j < n; j++) {
            size_t d = at[j] > change_at[k] ? at[j] - change_at[k]
                                             : change_at[k] - at[j];
            if (!used[j] && d <= TOL &&
                (best == n || d < (at[best] > change_at[k]
                                       ? at[best] - change_at[k]
                                       : change_at[k] - at[best])))
                best = j;
        }
        if (best < n) {
            used[best] = 1;
            hit[k]++;
        }
    }
    for (size_t j = 0; j < n; j++)
        *false_points += !used[j];
}

int main(int argc, char **argv)
{
    size_t seeds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    double sd = (argc > 2 ? strtod(argv[2], NULL) : 1.0) / 100;
    sb_cp_options o;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    sb_cp_options_init(&o);
    if (argc > 3)
        o.min_size = strtoul(argv[3], NULL, 10);
    if (argc > 4)
        o.permutations = strtoul(argv[4], NULL, 10);
    if (!r || seeds == 0)
        return 2;
    printf("%zu series of %d runs per row; run-to-run noise lognormal, sd "
           "%.2g%%; steps +2%% at run 50, +5%% at 100, +10%% at 150; a "
           "change found within %d runs\n",
           seeds, N, 100 * sd, TOL);
    printf("e-divisive: exponent %g, p <= %g by %zu permutations, "
           "segments >= %zu runs; perfherder: %d-run windows, t > %g, "
           "change >= %g%%\n\n",
           o.exponent, o.pvalue, o.permutations, o.min_size, WIN, T_CUTOFF,
           100 * PH_THRESHOLD);
    printf("%-9s %-11s %8s %8s %8s  %-22s  %s\n", "noise", "method", "2%",
           "5%", "10%", "false points/series", "false/series, no change");
    for (int outl = 0; outl < 2; outl++) {
        size_t hit[2][3] = {{0}}, fp[2] = {0}, fp0[2] = {0};
        for (size_t s = 0; s < seeds; s++) {
            double x[N];
            size_t at[N], n;
            sb_change_point cp[N];
            for (int steps = 1; steps >= 0; steps--) {
                gsl_rng_set(r, 1000 * (unsigned long)outl + 2 * s + steps);
                make_series(r, x, steps, sd, outl);
                o.seed = s + 1;
                if (sb_stats_edivisive(x, N, &o, cp, N, &n) != SB_OK)
                    return 1;
                for (size_t j = 0; j < n; j++)
                    at[j] = cp[j].index;
                score(at, n, steps, hit[0], steps ? &fp[0] : &fp0[0]);
                n = perfherder(x, at, N);
                score(at, n, steps, hit[1], steps ? &fp[1] : &fp0[1]);
            }
        }
        for (int m = 0; m < 2; m++)
            printf("%-9s %-11s %7.0f%% %7.0f%% %7.0f%%  %-22.2f  %.2f\n",
                   outl ? "outliers" : "plain",
                   m ? "perfherder" : "e-divisive",
                   100.0 * (double)hit[m][0] / (double)seeds,
                   100.0 * (double)hit[m][1] / (double)seeds,
                   100.0 * (double)hit[m][2] / (double)seeds,
                   (double)fp[m] / (double)seeds,
                   (double)fp0[m] / (double)seeds);
    }
    gsl_rng_free(r);
    return 0;
}
