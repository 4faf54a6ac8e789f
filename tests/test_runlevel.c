/*
 * test_runlevel.c: comparisons of separate runs, by simulation, when the
 * runs themselves differ.  Within one run every invocation shares the
 * run's level (its day, its clock step, its neighbours); the spread of
 * its invocations cannot show it.  A comparison of two runs must take it
 * from somewhere honest: merged runs, a side merged from several runs, a
 * run-to-run sd the caller knows, or the one assumed
 * (SB_RUN_SD_ASSUMED).  This test shows each keeps its false verdicts at
 * alpha, reports the power it has, and that the one-run-a-side figures
 * without a run level (run_sd 0, the old behaviour) do not.  Rows take
 * one run a side (6 to 20 invocations, and 1 to 3, where with one the
 * process level too is assumed), one run against 5 merged, and merged
 * runs on both sides (3 to 6 a side).
 *
 * The model (the audit's): true median 1000 ticks; each sample times
 * lognormal(0, 0.05); each invocation times exp(N(0, 0.03)); each run
 * times exp(N(0, sd_run)); k invocations a run, SAMPLES samples each.  A
 * pair is two runs of the same cell, B's truth 1000 (A/A), 1050 or 1100.
 * Every run is built through the internal API (sb__run_add_invocation)
 * and compared by sb_run_compare_to, the code behind compare and
 * --against.
 *
 * Beside the table: the claims of mde (a comparison's and a cell's), the
 * audit's 60-row table that a bootstrap p with a floor could not call,
 * and analyze's check of a file that pools several processes.
 *
 * Rates are judged by their Wilson 95% interval: a false-verdict rate
 * fails when its interval lies wholly above alpha (it is then above alpha
 * beyond its binomial noise), a coverage when its interval lies wholly
 * below the level.  At 400 pairs that is "not demonstrably above
 * alpha": a true 7.5% can pass, 9% seldom does.  Every section draws from gsl_rng_mt19937 with its own
 * fixed seed, so a failure reproduces exactly.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "run_internal.h"
#include "statbench.h"
#include "tap.h"
#include "merged_runs.h"

/* The copy kernel the runs are of: movsl where the build has the
 * string-instruction kernels, else duff, a C copy every build has.  Only
 * its name matters here, never its code. */
#ifdef SB_HAVE_X86_64
#define COPY_NAME "movsl"
#else
#define COPY_NAME "duff"
#endif

#define PAIRS 400
#define SAMPLES 10
#define ALPHA 0.05
#define SEED 20261202UL

/* ncells cells of one plan (kernel COPY_NAME, sizes 64, 128, ...),
 * nruns runs of k invocations each (nruns >= 2: a merged run), truth[i]
 * the true median of cell i; run_sd the sd of a run's log level, inv_sd
 * an invocation's, samp_sd a sample's.  Analysed with analysis options a
 * (NULL: the defaults).  NULL without the kernel (the comparison reads
 * its name), as when the run cannot be made: the checks then fail. */
static sb_run *simulate(gsl_rng *r, size_t ncells, const double *truth,
                        size_t nruns, size_t k, double run_sd, double inv_sd,
                        double samp_sd, const sb_analysis_options *a)
{
    const sb_kernel *kern = sb_kernel_find(COPY_NAME);
    sb_measure_options o;
    sb_run *run;
    double x[SAMPLES];

    if (!kern)
        return NULL;
    sb_measure_options_init(&o);
    o.seed = gsl_rng_get(r);
    run = sb__run_alloc(ncells, &o, a);
    if (!run)
        return NULL;
    run->meta.timer.kind = SB_TIMER_TSC;
    run->meta.timer.hz = 1e9;
    run->meta.timer.hz_source = "test";
    snprintf(run->meta.statbench_version, sizeof run->meta.statbench_version,
             "%s", PACKAGE_VERSION);
    run->ncells = ncells;
    for (size_t i = 0; i < ncells; i++)
        run->cells[i].cell =
            (sb_cell){.kernel = kern, .size = 64 * (i + 1)};
    if (nruns >= 2 && !merged_runs(run, nruns, k))
        return NULL;
    for (size_t u = 0; u < nruns; u++) {
        /* One level per run, shared by its cells: a host state. */
        double ru = gsl_ran_gaussian(r, run_sd);
        for (size_t g = 0; g < k; g++) {
            for (size_t i = 0; i < ncells; i++) {
                double ig = gsl_ran_gaussian(r, inv_sd);
                sb__raw_cell raw = {.nsamples = SAMPLES, .ticks = x,
                                    .iters = 1};
                for (size_t s = 0; s < SAMPLES; s++)
                    x[s] = truth[i] *
                           exp(ru + ig + gsl_ran_gaussian(r, samp_sd));
                if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
                    sb_run_free(run);
                    return NULL;
                }
            }
            if (nruns >= 2)
                run->inv_run[run->invocations] = u;
            run->invocations++;
        }
    }
    if (sb__run_analyse(run, NULL) != SB_OK) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

/* One setting: nb runs on the baseline side, nc on the other (0: 1), k
 * invocations a run (kc on the other side; 0: k), run_sd the model's run
 * level, told the comparison's run_sd (negative: not told). */
struct setting {
    size_t nb, k;
    double sd_run, told;
    size_t nc, kc;
};

/* The runs on the compared side of s. */
static size_t runs_c(const struct setting *s)
{
    return s->nc ? s->nc : 1;
}

struct rates {
    size_t n, false_v, power5, power10, cover, called[3];
    size_t n5, n10; /* the +5% and +10% pairs compared */
    double mde; /* the median claim of the A/A pairs */
    int level;  /* the run level the comparisons said */
};

/* The verdict of B (truth 1000 x effect) against A (1000), one cell. */
static const sb_comparison *pair(gsl_rng *r, const struct setting *s,
                                 double effect, sb_run **a_out,
                                 sb_run **b_out)
{
    sb_analysis_options o;
    double ta = 1000, tb = 1000 * effect;

    sb_analysis_options_init(&o);
    o.run_sd = s->told;
    *a_out = simulate(r, 1, &ta, s->nb, s->k, s->sd_run, 0.03, 0.05, &o);
    *b_out = simulate(r, 1, &tb, runs_c(s), s->kc ? s->kc : s->k,
                      s->sd_run, 0.03, 0.05,
                      &o);
    if (!*a_out || !*b_out ||
        sb_run_compare_to(*b_out, *a_out, NULL, NULL) != SB_OK)
        return NULL;
    return sb_run_comparison(*b_out, 0);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static struct rates run_setting(gsl_rng *r, const struct setting *s)
{
    static const double effects[3] = {1.0, 1.05, 1.10};
    struct rates out = {0};
    double *mde = malloc(PAIRS * sizeof *mde);

    out.level = -1;
    for (size_t e = 0; e < 3; e++)
        for (size_t t = 0; t < PAIRS; t++) {
            sb_run *a = NULL, *b = NULL;
            const sb_comparison *c = pair(r, s, effects[e], &a, &b);
            if (c && c->valid) {
                int called = c->verdict == SB_VERDICT_FASTER ||
                             c->verdict == SB_VERDICT_SLOWER;
                int right = effects[e] > 1 ? c->verdict == SB_VERDICT_SLOWER
                                           : 0;
                out.level = (int)c->run_level;
                if (e == 0) {
                    out.n++;
                    out.false_v += (size_t)called;
                    out.cover += c->ratio.lo <= 1 && 1 <= c->ratio.hi;
                    if (mde)
                        mde[t] = c->mde;
                }
                out.power5 += (size_t)(e == 1 && right);
                out.power10 += (size_t)(e == 2 && right);
                out.n5 += e == 1;
                out.n10 += e == 2;
                out.called[e] += (size_t)called;
            }
            sb_run_free(a);
            sb_run_free(b);
        }
    if (mde && out.n == PAIRS) {
        qsort(mde, PAIRS, sizeof *mde, cmp_double);
        out.mde = mde[PAIRS / 2];
    } else {
        out.mde = NAN;
    }
    free(mde);
    return out;
}

static const char *told_name(double told, char *buf, size_t len)
{
    if (told < 0)
        return "not told";
    snprintf(buf, len, "told %g%%", 100 * told);
    return buf;
}

/* The run level a comparison of setting s must name. */
static int level_expected(const struct setting *s)
{
    return s->nb >= 2 && runs_c(s) >= 2 ? SB_RUN_LEVEL_RUNS
           : s->told >= 0              ? SB_RUN_LEVEL_GIVEN
           : s->nb >= 2                ? SB_RUN_LEVEL_BASELINE
                                       : SB_RUN_LEVEL_ASSUMED;
}

/* The table of false verdicts and power, one row a setting, and the
 * checks on each. */
static void table(void)
{
    static const struct setting set[] = {
        /* One run a side, nothing told: the assumed 3%. */
        {1, 6, 0, -1, 0, 0},     {1, 6, 0.01, -1, 0, 0},  {1, 6, 0.03, -1, 0, 0},
        {1, 20, 0, -1, 0, 0},    {1, 20, 0.01, -1, 0, 0}, {1, 20, 0.03, -1, 0, 0},
        /* One run against a baseline merged from 5 runs. */
        {5, 6, 0.01, -1, 0, 0},  {5, 6, 0.03, -1, 0, 0},  {5, 20, 0.01, -1, 0, 0},
        {5, 20, 0.03, -1, 0, 0},
        /* One run a side, the host's run-to-run sd told. */
        {1, 6, 0.01, 0.01, 0, 0}, {1, 20, 0.03, 0.03, 0, 0},
        /* Told 0 in a model without a run level: the bootstrap over
         * invocation medians alone, whose width these rows check (a
         * width 10% short would cover 92%, not 95%). */
        {1, 6, 0, 0, 0, 0},      {1, 10, 0, 0, 0, 0},     {1, 20, 0, 0, 0, 0},
        /* Few invocations a run: with one, the interval is of one
         * process's samples and the process level is in no data (it is
         * added, assumed); with 2 and 3, Welch's t over the invocation
         * medians. */
        {1, 1, 0.03, -1, 0, 0},  {1, 1, 0.03, 0.03, 0, 0}, {1, 1, 0, -1, 0, 0},
        {1, 2, 0.03, -1, 0, 0},  {1, 3, 0.03, -1, 0, 0},
        /* Merged runs on both sides: Welch's t over 3 and 4 run medians
         * a side, the bootstrap over 5 and 6. */
        {3, 6, 0.03, -1, 3, 0}, {4, 6, 0.03, -1, 4, 0}, {5, 6, 0.03, -1, 5, 0},
        {6, 6, 0.03, -1, 6, 0}, {6, 6, 0.01, -1, 6, 0},
        /* One run of one invocation against 5 runs of 6: the runs'
         * spread holds the process level over 6 invocations only, the
         * single run's estimate all of it (the rest is assumed). */
        {5, 6, 0.03, -1, 0, 1}, {5, 6, 0.01, -1, 0, 1},
    };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char buf[32];

    if (!r) {
        tap_ok(0, "an rng");
        return;
    }
    tap_diag("runs (baseline, other) | k (other's) | sd_run | run sd | level | false "
             "[Wilson 95%%] | power +5%% [Wilson] | power +10%% [Wilson] | "
             "coverage [Wilson] | mde");
    for (size_t i = 0; i < sizeof set / sizeof *set; i++) {
        const struct setting *s = &set[i];
        struct rates q;
        double lo, hi, clo, chi, p5lo, p5hi, p10lo, p10hi;

        gsl_rng_set(r, SEED + i);
        q = run_setting(r, s);
        if (!tap_ok(q.n == PAIRS && q.n5 == PAIRS && q.n10 == PAIRS,
                    "setting %zu: %zu, %zu and %zu of %d pairs compared", i,
                    q.n, q.n5, q.n10, PAIRS))
            continue;
        tap_wilson(q.false_v, q.n, &lo, &hi);
        tap_wilson(q.cover, q.n, &clo, &chi);
        tap_wilson(q.power5, q.n5, &p5lo, &p5hi);
        tap_wilson(q.power10, q.n10, &p10lo, &p10hi);
        tap_diag("%zu, %zu | %zu (%zu) | %.2f | %s | %s | "
                 "%.1f%% [%.1f-%.1f] | "
                 "%.1f%% [%.1f-%.1f] | %.1f%% [%.1f-%.1f] | "
                 "%.1f%% [%.1f-%.1f] | %.1f%%",
                 s->nb, runs_c(s), s->k, s->kc ? s->kc : s->k, s->sd_run,
                 told_name(s->told, buf, sizeof buf),
                 sb_run_level_name(q.level), 100.0 * q.false_v / q.n,
                 100 * lo, 100 * hi, 100.0 * q.power5 / q.n5, 100 * p5lo,
                 100 * p5hi, 100.0 * q.power10 / q.n10, 100 * p10lo,
                 100 * p10hi, 100.0 * q.cover / q.n, 100 * clo, 100 * chi,
                 100 * q.mde);
        /* 400 pairs cannot show a rate at alpha from one a little above
         * it: the check is that the rate is not demonstrably above alpha
         * (its Wilson interval reaches down to alpha).  A rate of 8% in
         * 400 fails it. */
        tap_ok(lo <= ALPHA,
               "%zu and %zu run(s), k %zu (%zu), sd_run %.2f, %s: false "
               "verdicts %.1f%% [Wilson %.1f-%.1f], not demonstrably "
               "above alpha",
               s->nb, runs_c(s), s->k, s->kc ? s->kc : s->k, s->sd_run,
               told_name(s->told, buf, sizeof buf),
               100.0 * q.false_v / q.n, 100 * lo, 100 * hi);
        tap_ok(chi >= 0.95,
               "  the ratio's interval covers 1 in %.1f%% [Wilson "
               "%.1f-%.1f] of A/A pairs, not demonstrably below its 95%%",
               100.0 * q.cover / q.n, 100 * clo, 100 * chi);
        tap_ok(q.level == level_expected(s),
               "  the comparisons name where the run level came from: %s",
               sb_run_level_name(q.level));
        /* Power grows with the effect: a test that calls nothing would
         * pass the false-verdict check above. */
        tap_ok(q.power10 >= q.power5 && q.power10 > 2 * q.false_v &&
                   q.power10 >= PAIRS / 5,
               "  power at +10%% %.1f%% [Wilson %.1f-%.1f], at +5%% %.1f%% "
               "[%.1f-%.1f]: not below +5%%'s, above a fifth, and above "
               "twice the false rate",
               100.0 * q.power10 / q.n10, 100 * p10lo, 100 * p10hi,
               100.0 * q.power5 / q.n5, 100 * p5lo, 100 * p5hi);
    }
    /* Before: one run a side with no run level (run_sd 0, what compare
     * did before the run level was in the model) at sd_run 0.03.  Its
     * false verdicts are what the change is for; they show that the
     * model's run level is real. */
    {
        struct setting s = {1, 20, 0.03, 0, 0, 0};
        struct rates q;
        double lo, hi;
        gsl_rng_set(r, SEED + 100);
        q = run_setting(r, &s);
        tap_wilson(q.false_v, q.n ? q.n : 1, &lo, &hi);
        tap_diag("before (run_sd 0): 1, 1 | 20 | 0.03 | told 0 | %s | "
                 "%.1f%% [%.1f-%.1f] | %.1f%% | %.1f%% | %.1f%% | %.1f%%",
                 sb_run_level_name(q.level), 100.0 * q.false_v / q.n,
                 100 * lo, 100 * hi, 100.0 * q.power5 / PAIRS,
                 100.0 * q.power10 / PAIRS, 100.0 * q.cover / q.n,
                 100 * q.mde);
        tap_ok(q.n == PAIRS && lo > 3 * ALPHA,
               "without the run level (run_sd 0) at sd_run 0.03, k 20: "
               "false verdicts %.1f%% [%.1f-%.1f], far above alpha",
               100.0 * q.false_v / q.n, 100 * lo, 100 * hi);
    }
    /* A run level larger than the one assumed: 6% true, 3% assumed.  The
     * widening is only as good as the sd it adds, and the false verdicts
     * then exceed alpha; README says so, citing this row. */
    {
        struct setting s = {1, 20, 0.06, -1, 0, 0};
        struct rates q;
        double lo, hi, clo, chi;
        gsl_rng_set(r, SEED + 101);
        q = run_setting(r, &s);
        tap_wilson(q.false_v, q.n ? q.n : 1, &lo, &hi);
        tap_wilson(q.cover, q.n ? q.n : 1, &clo, &chi);
        tap_ok(q.n == PAIRS && lo > 3 * ALPHA && chi < 0.95,
               "a run-to-run sd of 6%% with 3%% assumed, k 20: false "
               "verdicts %.1f%% [Wilson %.1f-%.1f], coverage %.1f%% "
               "[%.1f-%.1f], far from alpha and the level",
               100.0 * q.false_v / (q.n ? q.n : 1), 100 * lo, 100 * hi,
               100.0 * q.cover / (q.n ? q.n : 1), 100 * clo, 100 * chi);
    }
    gsl_rng_free(r);
}

/* Of npairs pairs of setting s with B slower by effect, how many are
 * called slower; *n the pairs compared (none when effect is not a
 * number). */
static size_t called_slower(gsl_rng *r, const struct setting *s,
                            double effect, size_t npairs, size_t *n)
{
    size_t slower = 0;

    *n = 0;
    for (size_t t = 0; t < npairs && isfinite(effect); t++) {
        sb_run *a = NULL, *b = NULL;
        const sb_comparison *c = pair(r, s, 1 + effect, &a, &b);
        if (c && c->valid) {
            (*n)++;
            slower += c->verdict == SB_VERDICT_SLOWER;
        }
        sb_run_free(a);
        sb_run_free(b);
    }
    return slower;
}

/* An mde's claim, checked: B slower by mde is called slower in 80% of
 * npairs pairs of setting s, not demonstrably more than 5 points either
 * way (the Wilson interval of the share reaching into [75%, 85%]).  The
 * check's description starts with what; after follows its "of N
 * pairs". */
static void claims_80(gsl_rng *r, const struct setting *s, double mde,
                      size_t npairs, const char *what, const char *after)
{
    double lo, hi;
    size_t n, slower = called_slower(r, s, mde, npairs, &n);

    tap_wilson(slower, n ? n : 1, &lo, &hi);
    tap_ok(n == npairs && hi >= 0.75 && lo <= 0.85,
           "%s: that change called slower in %.1f%% [Wilson %.1f-%.1f] of "
           "%zu pairs%s, the interval reaching into 75-85%% (80%% claimed)",
           what, 100.0 * slower / (n ? n : 1), 100 * lo, 100 * hi, n,
           after);
}

/* mde's claim: the change it names is detected with 80% power.  Pairs of
 * one run a side, run_sd told as it is true; B slower by the median mde
 * of the A/A pairs of the same setting; the share called slower must not
 * be demonstrably more than 5 points from 80%: its Wilson interval must
 * reach into [75%, 85%] (400 pairs: a half-width near 4 points, so a
 * share of 90% or 70% fails, one of 84% may pass).
 * The settings take each way the interval is made: the bootstrap over
 * invocation medians alone (told 0), widened by a small run level and
 * by one that dominates, at 6 and 20 invocations. */
static void mde_claim(struct setting s, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char what[128];
    double mde;
    struct rates q;

    if (!r)
        return;
    gsl_rng_set(r, SEED + seed);
    q = run_setting(r, &s);
    mde = q.mde;
    snprintf(what, sizeof what,
             "mde %.2f%% (one run a side, run sd %g%% told, k %zu)",
             100 * mde, 100 * s.told, s.k);
    claims_80(r, &s, mde, PAIRS, what, "");
    gsl_rng_free(r);
}

/* A cell's own mde: what a comparison of the run with another like it
 * detects when no run level is added (two runs told --run-sd 0, in a
 * model with none).  B slower by the median cell mde of CELL_RUNS A
 * runs must be called slower in CELL_PAIRS pairs at a share not
 * demonstrably more than 5 points from 80%, as the comparison's own mde
 * above: its Wilson interval must reach into [75%, 85%].
 *
 * How the band was chosen: 4000 runs and 4000 pairs a k gave 80.4%,
 * 80.3% and 78.0% at 6, 10 and 20 invocations; the cell's mde from its
 * own interval, before, gave 87.3%, 85.2% and 81.0% (2000 pairs), the
 * [min, max] of 6 invocations overstating the median's standard error
 * by a quarter.  Here 2000 runs (the median mde within about 1.5%) and
 * 1500 pairs (a Wilson half-width near 2 points) keep the test near 4 s
 * while a claim 5 points off fails: the old 87% at k 6 does. */
#define CELL_RUNS 2000
#define CELL_PAIRS 1500
static void cell_mde_claim(size_t k)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    struct setting s = {1, k, 0, 0, 0, 0};
    double *m = malloc(CELL_RUNS * sizeof *m), mde, t = 1000;
    char what[128];

    if (!r || !m) {
        tap_ok(0, "an rng and %d doubles", CELL_RUNS);
        gsl_rng_free(r);
        free(m);
        return;
    }
    gsl_rng_set(r, SEED + 400 + k);
    for (size_t i = 0; i < CELL_RUNS; i++) {
        sb_run *a = simulate(r, 1, &t, 1, k, 0, 0.03, 0.05, NULL);
        m[i] = a ? sb_run_cell(a, 0)->mde : NAN;
        sb_run_free(a);
    }
    qsort(m, CELL_RUNS, sizeof *m, cmp_double);
    mde = m[CELL_RUNS / 2];
    snprintf(what, sizeof what, "a cell's mde %.2f%% (k %zu, no run level)",
             100 * mde, k);
    claims_80(r, &s, mde, CELL_PAIRS, what, " told run sd 0");
    gsl_rng_free(r);
    free(m);
}

/* A cell's interval below 6 invocations (or at a level their number
 * cannot reach by order statistics, 6 at 99%): Student t over the logs
 * of the invocation medians, its estimate their geometric mean, its
 * level asked and "achieved" if those logs are normal.  Here they are
 * close to it: each invocation's level is exp(N(0, 0.03)) and its median
 * of 10 lognormal(0, 0.05) samples has a log symmetric about 0, so the
 * invocation medians' true geometric mean is the model's 1000.  Of
 * T_RUNS runs the interval must cover 1000 at a rate whose Wilson
 * interval holds the level (neither too narrow nor too wide: 2000 runs
 * give a half-width near 1 point at 95%).  The table's method line and
 * the JSON's method, level and achieved must say what the interval is. */
#define T_RUNS 2000
static void t_fallback(size_t k, double level, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    sb_analysis_options o;
    size_t cover = 0, n = 0, named = 0;
    double t = 1000, lo, hi;
    int table_ok = 0, json_ok = 0;

    if (!r) {
        tap_ok(0, "an rng");
        return;
    }
    sb_analysis_options_init(&o);
    o.ci_level = level;
    gsl_rng_set(r, SEED + seed);
    for (size_t i = 0; i < T_RUNS; i++) {
        sb_run *a = simulate(r, 1, &t, 1, k, 0, 0.03, 0.05, &o);
        const sb_cell_result *c = a ? sb_run_cell(a, 0) : NULL;
        if (c) {
            n++;
            cover += c->interval.lo <= t && t <= c->interval.hi;
            named += c->method &&
                     !strcmp(c->method, "t over log invocation medians (a "
                                        "geometric mean)") &&
                     c->interval.level == level &&
                     c->interval.achieved == level;
        }
        if (a && i == 0) {
            /* The first run's table and JSON. */
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            if (f && sb_report(a, SB_FORMAT_TABLE, f, NULL) == SB_OK &&
                fflush(f) == 0)
                table_ok = strstr(buf, "method:   geometric mean (too few "
                                       "units for order statistics; its "
                                       "level holds if their logs are "
                                       "normal), CI by t over log "
                                       "invocation medians (a geometric "
                                       "mean)") != NULL;
            if (f)
                fclose(f);
            free(buf);
            buf = NULL;
            f = open_memstream(&buf, &len);
            if (f && sb_report(a, SB_FORMAT_JSON, f, NULL) == SB_OK &&
                fflush(f) == 0) {
                json_t *d = json_loads(buf, 0, NULL);
                json_t *cell = json_array_get(json_object_get(d, "cells"), 0);
                json_t *iv = json_object_get(cell, "interval");
                const char *m =
                    json_string_value(json_object_get(cell, "method"));
                json_ok = m &&
                          !strcmp(m, "t over log invocation medians (a "
                                     "geometric mean)") &&
                          json_real_value(json_object_get(iv, "level")) ==
                              level &&
                          json_real_value(json_object_get(iv, "achieved")) ==
                              level;
                json_decref(d);
            }
            if (f)
                fclose(f);
            free(buf);
        }
        sb_run_free(a);
    }
    tap_wilson(cover, n ? n : 1, &lo, &hi);
    tap_ok(n == T_RUNS && lo <= level && level <= hi,
           "t over log invocation medians, k %zu at %g%%: covers the true "
           "geometric mean in %.1f%% [Wilson %.1f-%.1f] of %zu runs",
           k, 100 * level, 100.0 * cover / (n ? n : 1), 100 * lo, 100 * hi,
           n);
    tap_ok(named == T_RUNS,
           "  every run names it (method, level and achieved %g%%): %zu",
           100 * level, named);
    tap_ok(table_ok, "  the table's method line: a geometric mean whose "
                     "level holds if the logs are normal");
    tap_ok(json_ok, "  the JSON: its method, level and achieved %g%%",
           100 * level);
    gsl_rng_free(r);
}

/* The audit's table of 60 rows: 6 invocations, A at 1000 and B at 1300,
 * invocation sd 0.01, sample sd 0.02, one run a side.  Holm over 60 rows
 * needs p below 0.05 / 60; a bootstrap p with a floor at 1 / (B + 1)
 * never got there, and every row was inconclusive. */
static void big_table(void)
{
    enum { ROWS = 60 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double ta[ROWS], tb[ROWS];
    sb_run *a = NULL, *b = NULL;
    size_t slower = 0;
    double worst = 0;

    if (!r)
        return;
    gsl_rng_set(r, SEED + 300);
    for (size_t i = 0; i < ROWS; i++) {
        ta[i] = 1000;
        tb[i] = 1300;
    }
    for (int told = 0; told < 2; told++) {
        sb_analysis_options o;
        sb_analysis_options_init(&o);
        /* Not told (3% assumed), then told 0: the bootstrap's own p. */
        o.run_sd = told ? 0 : -1;
        a = simulate(r, ROWS, ta, 1, 6, 0, 0.01, 0.02, &o);
        b = simulate(r, ROWS, tb, 1, 6, 0, 0.01, 0.02, &o);
        slower = 0;
        worst = 0;
        if (a && b && sb_run_compare_to(b, a, NULL, NULL) == SB_OK)
            for (size_t i = 0; i < ROWS; i++) {
                const sb_comparison *c = sb_run_comparison(b, i);
                slower += c && c->verdict == SB_VERDICT_SLOWER;
                if (c && c->p_adjusted > worst)
                    worst = c->p_adjusted;
            }
        tap_ok(slower == ROWS,
               "60 rows 30%% slower, run sd %s: %zu called slower, "
               "largest Holm p %.3g",
               told ? "told 0 (bootstrap p)" : "assumed 3%", slower, worst);
        sb_run_free(a);
        sb_run_free(b);
    }
    gsl_rng_free(r);
}

/* analyze's check of a file of pooled processes (its warn_pooled: ten
 * consecutive blocks, Kruskal-Wallis, p below 0.001).  The audit's case:
 * 6 processes of 100 samples one after another, each process times
 * exp(N(0, 0.03)), each sample lognormal(0, 0.05); and files of
 * independent samples, whose false alarms must stay near 0.1%. */
static void pooled_files(void)
{
    enum { TRIALS = 300, NULLS = 2000, PROCS = 6, PER = 100 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[PROCS * PER], h, p, lo, hi;
    size_t warned = 0, alarms = 0, covered = 0, analysed = 0;

    if (!r)
        return;
    gsl_rng_set(r, SEED + 500);
    for (size_t t = 0; t < TRIALS; t++) {
        for (size_t g = 0; g < PROCS; g++) {
            double lv = gsl_ran_gaussian(r, 0.03);
            for (size_t i = 0; i < PER; i++)
                x[g * PER + i] = 1000 * exp(lv + gsl_ran_gaussian(r, 0.05));
        }
        warned += sb_stats_blocks_test(x, PROCS * PER, 10, &h, &p) == SB_OK &&
                  p < 0.001;
        {
            /* What analyze makes of the file: one set, its interval over
             * the values as independent draws; the truth is the median
             * of every process's level, 1000. */
            const char *name = "pooled";
            const double *v = x;
            const size_t nv = PROCS * PER;
            sb_run *run = NULL;
            if (sb_run_from_samples_new(&name, &v, &nv, 1, NULL, t, &run,
                                        NULL) == SB_OK) {
                const sb_interval *iv = &sb_run_cell(run, 0)->interval;
                analysed++;
                covered += iv->lo <= 1000 && 1000 <= iv->hi;
            }
            sb_run_free(run);
        }
    }
    tap_wilson(covered, analysed ? analysed : 1, &lo, &hi);
    tap_ok(analysed == TRIALS && hi < 0.8,
           "pooled processes: analyze's interval of the pooled file covers "
           "the truth in %.1f%% [%.1f-%.1f] of %zu, far below its 95%%",
           100.0 * covered / (analysed ? analysed : 1), 100 * lo, 100 * hi,
           analysed);
    for (size_t t = 0; t < NULLS; t++) {
        for (size_t i = 0; i < PROCS * PER; i++)
            x[i] = 1000 * exp(gsl_ran_gaussian(r, 0.05));
        alarms += sb_stats_blocks_test(x, PROCS * PER, 10, &h, &p) == SB_OK &&
                  p < 0.001;
    }
    tap_wilson(warned, TRIALS, &lo, &hi);
    tap_ok(lo >= 0.8,
           "pooled processes: a file of 6 processes' samples is told in "
           "%.1f%% [%.1f-%.1f] of %d", 100.0 * warned / TRIALS, 100 * lo,
           100 * hi, TRIALS);
    tap_wilson(alarms, NULLS, &lo, &hi);
    tap_ok(lo <= 0.001,
           "independent samples: false alarms %.2f%% [%.2f-%.2f] of %d, "
           "not demonstrably above 0.1%%", 100.0 * alarms / NULLS, 100 * lo, 100 * hi,
           NULLS);
    gsl_rng_free(r);
}

int main(void)
{
    sb_init();
    table();
    mde_claim((struct setting){1, 20, 0.01, 0.01, 0, 0}, 200);
    mde_claim((struct setting){1, 6, 0, 0, 0, 0}, 210);
    mde_claim((struct setting){1, 20, 0, 0, 0, 0}, 220);
    mde_claim((struct setting){1, 6, 0.03, 0.03, 0, 0}, 230);
    cell_mde_claim(6);
    cell_mde_claim(10);
    cell_mde_claim(20);
    big_table();
    t_fallback(3, 0.95, 600);
    t_fallback(5, 0.95, 610);
    t_fallback(6, 0.99, 620);
    pooled_files();
    return tap_done();
}
