/*
 * statbench.h: the one public header of libstatbench.
 *
 * statbench measures memory kernels (copy, clear, alloc, system-call paths)
 * with serialized TSC reads and reports every figure with a confidence
 * interval.  This header is the whole C API; everything else in the source
 * tree is private.
 *
 * Conventions, repeated for every function below:
 *  - Names start with "sb_".  Functions that can fail return an int status,
 *    SB_OK (0) on success or a negative SB_E* code, and fill the optional
 *    sb_error the caller passed (NULL is allowed) with a one-line message.
 *  - One convention for everything else that returns:
 *      anything that can fail (checks input, allocates, reads, measures):
 *        an int status and an optional sb_error, as above; an owned
 *        output is set to NULL and a comparison to SB_VERDICT_NONE when
 *        the call fails (one of an unknown size is left untouched);
 *      accessors by index (sb_plan_cell, sb_kernel_at, sb_run_cell,
 *        sb_run_comparison, ...): NULL for a bad index or a NULL object;
 *        counts are 0 for a NULL object;
 *      figures that do not exist (no samples, size 0, no core clock):
 *        NAN, in a struct field or as a double return value;
 *      the _name/_parse pairs of enums: "?" (never NULL) for an unknown
 *        value, -1 for an unknown name;
 *      predicates (sb_kernel_available, sb_comparison_regressed): 1 or 0;
 *      decisions (sb_gate_judge, sb_gate_tally_add,
 *        sb_gate_tally_outcome, sb_stats_verdict): an enum value, which
 *        says "no result" (SB_GATE_FAIL, SB_VERDICT_INCONCLUSIVE) for
 *        input they cannot judge.
 *  - Versions: SB_VERSION_MAJOR, _MINOR, _PATCH, _STRING and _NUMBER
 *    (statbench_version.h, generated from the package's version) are the
 *    header's; sb_version() is the library's.
 *  - Structs the caller fills and the library reads (sb_measure_options,
 *    sb_analysis_options, sb_kernel, sb_command_options, sb_profile_key,
 *    sb_profile_figures) start with a size field, sizeof the
 *    struct as the caller compiled it: the library refuses a size it
 *    does not know and reads an older one with the newer fields at their
 *    defaults.
 *  - Structs the library fills in the caller's memory (sb_comparison,
 *    sb_timer_info, sb_env, sb_clock_summary, sb_held_samples,
 *    sb_gate_tally, sb_profile_key, sb_profile_figures,
 *    sb_profile_summary, sb_profile_judgement) start with a size field
 *    too, which the caller sets
 *    before the call:
 *        sb_timer_info t = {.size = sizeof t};
 *    (in C++: sb_timer_info t{}; t.size = sizeof t;).  The library writes only the first size bytes, in the layout of that
 *    size (a newer library, an older caller: the older layout, without
 *    the fields added since), and refuses a size it does not know (0,
 *    one too small for the first layout, a newer header's) with
 *    SB_EINVAL naming the struct and the size, writing nothing.  Their
 *    fields are only ever added at the end.  The statistics' small
 *    values (sb_interval, sb_summary, sb_outliers, sb_mad_outliers,
 *    sb_levels, sb_spread) and sb_error are fixed for good: a new figure
 *    comes as a new type and function.
 *  - Structs the library owns and hands out by pointer (sb_cell_result,
 *    sb_meta, sb_progress) may grow at their end: read them through the
 *    pointer, never copy one or step over an array of them.
 *  - The library never prints, never exits and never aborts.  GSL's default
 *    error handler is switched off, for the whole process, by sb_init()
 *    and by every entry point that calls GSL (see sb_init).  PAPI is
 *    started only when at least 16 file descriptors are free (PAPI exits
 *    its process when it cannot open a file it needs): with fewer, its
 *    counters are missing with the reason.
 *  - A NULL pointer where an object, array or output is needed is refused:
 *    SB_EINVAL with a message naming the argument ("sb_plan_add: kernel is
 *    NULL"), or, for functions without a status, 0, NULL or no effect.
 *  - Ownership is in the name: a *_new() function, or an out-parameter
 *    named *_new, gives an object the caller frees with the matching
 *    *_free() (sb_plan_new, sb_run_execute_new, sb_run_load_new, ...);
 *    *_init() fills a struct the caller owns.  Pointers the caller passes
 *    in (a kernel, sb_measure_options.counters) are borrowed: they must outlive
 *    the call that takes them, and the run made from them, unless the
 *    function says it copies them.
 *    Pointers returned by accessors stay owned by the object they came from.
 *  - Thread safety: distinct objects may be used from distinct threads.  An
 *    object must not be used from two threads at once.  sb_run_execute_new()
 *    changes the calling thread's CPU affinity while it runs and restores it
 *    afterwards.
 *  - Forks: with invocations > 1 (the default), sb_run_execute_new,
 *    sb_compare_functions and sb_gate fork() the calling process once
 *    per invocation, from the calling thread, and wait for each child;
 *    the first start of PAPI in a process forks once more, for a trial
 *    start.  A caller that has threads must know:
 *     - only the calling thread exists in the child: a lock another
 *       thread held at the fork stays held there for good, so code the
 *       child runs must not take a lock other threads use (glibc's
 *       malloc and stdio are safe: glibc holds their locks across fork);
 *       a child stuck on one is killed once max_time and 10 s more have
 *       passed after the run's deadline, and the run ends with that
 *       invocation reported killed.  A lock of the library's own, held
 *       for moments around PAPI's start by another thread's run, can be
 *       caught so too;
 *     - the child runs the plan and nothing else: it pins itself, maps
 *       the buffers, opens the counters, measures, and so calls the
 *       caller's code of the plan (kernels' fn, setup and teardown, the
 *       sb_bench_add functions and their sb_bench_hooks) and the
 *       progress and progress_state callbacks; it writes its samples to
 *       the parent through a pipe and leaves with _exit: no atexit
 *       handler, no flush of stdio buffers it inherited, no destructor.
 *       What that code changes in memory stays in the child;
 *     - handlers registered with pthread_atfork run at each of these
 *       forks (the library registers none), and the child inherits the
 *       signal dispositions and the calling thread's signal mask;
 *     - each fork copies the process's page tables (about 30 ms per GiB
 *       touched), and with sb_measure_options.mlock (the default) the
 *       child's mlockall copies every private writable page the process
 *       has, since Linux breaks copy-on-write to lock it: a process with
 *       a large heap pays that memory and time in every invocation
 *       (256 MiB: 256 MiB more, 134 ms, on a 2-vCPU guest); set mlock 0
 *       there.
 *    With invocations 1 the plan is measured in the calling thread.
 *  - Stack: a run needs about 100 KiB of the calling thread's stack (the
 *    environment audit, the runner's records, PAPI's start); below that
 *    (ulimit -s 64) the process dies of SIGSEGV, which no check inside
 *    the library can prevent.  The command-line program raises a low
 *    soft limit to 1 MiB.
 */
#ifndef STATBENCH_H
#define STATBENCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* SB_VERSION_MAJOR, _MINOR, _PATCH, _STRING and _NUMBER, generated from
 * the package's version by configure. */
#include "statbench_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define SB_API __attribute__((visibility("default")))
#else
#define SB_API
#endif

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Status codes.  One table generates the enum and sb_strerror(). */
#define SB_ERRNO_MAP(X)                                                  \
    X(OK, 0, "success")                                                  \
    X(EINVAL, -1, "invalid argument")                                    \
    X(ENOMEM, -2, "out of memory")                                       \
    X(EUNAVAIL, -3, "not available on this machine")                     \
    X(ESYS, -4, "system call failed")                                    \
    X(EIO, -5, "input/output error")                                     \
    X(ENUMERIC, -6, "numerical error")                                   \
    X(EINTR, -7, "interrupted")                                          \
    X(ENOSAMPLES, -8, "a cell has no valid sample")                      \
    X(ECOMMAND, -9, "a command failed")

enum sb_status {
#define SB_STATUS_ENUM_(name, value, text) SB_##name = value,
    SB_ERRNO_MAP(SB_STATUS_ENUM_)
#undef SB_STATUS_ENUM_
};

/* An error: its status code and a one-line message naming the bad value.
 * Callers may pass NULL wherever an sb_error * is taken. */
typedef struct sb_error {
    int code;
    char text[256];
} sb_error;

/* The fixed text of a status code ("invalid argument").  Never NULL. */
SB_API const char *sb_strerror(int code);

/* Switch GSL's abort-on-error handler off for the whole process, once
 * (pthread_once): the library checks the status of every GSL call
 * instead.  Every library entry point that uses GSL calls it; calling it
 * again is harmless.  Cannot fail.
 *
 * GSL keeps one error handler per process, not per thread, so this
 * reaches the host program too: after its first call into the library,
 * a GSL error in the host's own code returns a status instead of
 * aborting.  A host that wants its own handler installs it after that
 * first call; the library's GSL calls then use it too, which is safe if
 * the handler returns (one that aborts or jumps away defeats the
 * library's error statuses).  The library does not save and restore the
 * handler around its calls: with two threads in the library at once, one
 * thread's restore would switch the abort back on while the other is
 * still inside GSL, and GSL offers no per-thread handler. */
SB_API void sb_init(void);

/* The library's version string, "MAJOR.MINOR.PATCH": SB_VERSION_STRING
 * of the library that runs, which may be newer than the header a program
 * was compiled with. */
SB_API const char *sb_version(void);

/* ------------------------------------------------------------------------ */
/* Statistics: pure functions over arrays of doubles (stats/)                */
/* ------------------------------------------------------------------------ */

/* A point estimate with a confidence interval.
 * level    the confidence asked for, in (0, 1);
 * achieved the confidence the interval actually has.  Order-statistic
 *          intervals are conservative (achieved >= level); when n is too
 *          small to reach the level, lo and hi are the sample minimum and
 *          maximum and achieved < level. */
typedef struct sb_interval {
    double estimate;
    double lo;
    double hi;
    double level;
    double achieved;
} sb_interval;

/* Tukey's fences over the quartiles (R's type 7 quantiles, as GSL's
 * gsl_stats_quantile_from_sorted_data computes them).  Mild outliers lie
 * beyond 1.5 IQR but within 3 IQR of the nearer quartile; severe ones lie
 * beyond 3 IQR.  The four counts are disjoint. */
typedef struct sb_outliers {
    double q1, q3, iqr;
    double mild_lo, mild_hi;     /* q1 - 1.5 IQR, q3 + 1.5 IQR */
    double severe_lo, severe_hi; /* q1 - 3 IQR,   q3 + 3 IQR   */
    size_t low_mild, high_mild;
    size_t low_severe, high_severe;
} sb_outliers;

/* Everything the first cut of the statistics computes for one sample set. */
typedef struct sb_summary {
    size_t n;
    double min, max;
    double mean, sd;       /* sd: sample standard deviation (n - 1) */
    sb_interval median;    /* distribution-free, order statistics */
    sb_interval mean_ci;   /* Student t */
    sb_outliers outliers;  /* Tukey fences, counted, never removed */
} sb_summary;

/* Median of sorted[0..n-1] with a distribution-free confidence interval
 * [x(l), x(n-l+1)] (1-based order statistics), the narrowest symmetric pair
 * whose binomial coverage 1 - 2 P(B <= l - 1), B ~ Bin(n, 1/2), is at least
 * level.  sorted must be ascending and finite (not checked here).  Returns
 * SB_EINVAL for n == 0, n > UINT_MAX (GSL's binomial counts in unsigned
 * int) or a level outside (0, 1).  On error *out may be partly filled. */
SB_API int sb_stats_median_ci(const double *sorted, size_t n, double level,
                              sb_interval *out);

/* Mean of x[0..n-1] with the Student t interval
 * mean +- t(1 - (1 - level) / 2, n - 1) * sd / sqrt(n).  For n == 1 the
 * interval is the single value with achieved = 0; otherwise achieved is
 * the nominal level, which holds for normal data.  Returns SB_EINVAL for
 * n == 0, a level outside (0, 1) or a value that is not finite, and
 * SB_ENUMERIC when the spread overflows.  On error *out may be partly
 * filled. */
SB_API int sb_stats_mean_ci(const double *x, size_t n, double level,
                            sb_interval *out);

/* Tukey's fences of sorted[0..n-1] (ascending and finite, not checked
 * here).  SB_EINVAL for n == 0. */
SB_API int sb_stats_tukey(const double *sorted, size_t n, sb_outliers *out);

/* Summary of x[0..n-1] at the given confidence level.  work must hold n
 * doubles; it receives a sorted copy of x, which stays the caller's.  x is
 * not modified (unless work == x: then x is sorted in place).  Returns
 * SB_EINVAL for n == 0, a level outside (0, 1) or a value that is not
 * finite. */
SB_API int sb_stats_summarize(const double *x, size_t n, double level,
                              double *work, sb_summary *out);

/* ---- More intervals --------------------------------------------------- */

/* The p-quantile of sorted[0..n-1] (ascending, finite) with a
 * distribution-free interval [x(l), x(u)] (1-based order statistics):
 * with B ~ Bin(n, p), the coverage P(l <= B < u) = F(u - 1) - F(l - 1) is
 * at least level, l and u chosen so that the two tails' probabilities
 * F(l - 1) and 1 - F(u - 1) are each at most (1 - level) / 2 whenever
 * possible, and the interval is the narrowest such.  estimate is the type 7
 * quantile.  When only one tail can stay within (1 - level) / 2, that end
 * is the sample's extreme and the other moves out just far enough to reach
 * the level; when n is too small even so, min and max with achieved <
 * level.  p = 0.5 gives exactly sb_stats_median_ci's interval.  SB_EINVAL
 * for n == 0, p or level outside (0, 1). */
SB_API int sb_stats_quantile_ci(const double *sorted, size_t n, double p,
                                double level, sb_interval *out);

/* Bootstrap interval methods. */
enum sb_boot_method {
    SB_BOOT_PERCENTILE = 0, /* percentiles of the bootstrap distribution */
    SB_BOOT_BCA             /* bias-corrected and accelerated (Efron 1987),
                               acceleration from the jackknife */
};

/* Median of x[0..n-1] (any order, finite) with a bootstrap interval from
 * B resamples drawn with gsl_rng_mt19937 seeded with seed (both 32-bit
 * halves folded in): the same inputs give the same interval.  estimate is
 * the sample median; achieved is the nominal level.  For even n the
 * median's jackknife is symmetric, so BCa's acceleration is 0 (it is then
 * the bias-corrected percentile interval).  Allocates O(n + B) scratch
 * memory.  SB_EINVAL for n < 2 or n >= 2^32, B < 100, a bad level or
 * method, non-finite data; SB_ENUMERIC when BCa is undefined (every
 * replicate on one side of the estimate); SB_ENOMEM. */
SB_API int sb_stats_median_boot_ci(const double *x, size_t n, double level,
                                   size_t B, int method, uint64_t seed,
                                   sb_interval *out);

/* Ratio of medians median(y) / median(x) with a bootstrap interval (x and
 * y resampled independently, B times, seeded as above; BCa acceleration
 * from the two-sample jackknife over all nx + ny observations, each
 * sample centred on its own mean with weights (n_j - 1) / n_j, as in
 * Davison and Hinkley 1997 and scipy).  For times, y the
 * candidate and x the baseline, a ratio below 1 means y is faster.  All
 * values must be positive and finite.  Errors as above. */
SB_API int sb_stats_ratio_boot_ci(const double *x, size_t nx, const double *y,
                                  size_t ny, double level, size_t B,
                                  int method, uint64_t seed,
                                  sb_interval *out);

/* The ratio of medians median(y) / median(x) with its percentile
 * bootstrap interval and a two-sided bootstrap p-value for ratio 1.  The
 * interval comes from B resamples (drawn exactly as
 * sb_stats_ratio_boot_ci draws them, so it equals its SB_BOOT_PERCENTILE
 * one).  p is twice the smaller share of resampled ratios on one side of
 * 1, those equal to 1 counted half on each side, so the test rejects
 * where the interval at level 1 - p excludes 1.  A count needs
 * replicates beyond 1 to resolve a small p: while fewer than 10 lie
 * there, 10 times as many more are drawn from the same stream, up to
 * 10,000 in all, and past that p is the normal tail of the replicates'
 * log ratios (their mean over their standard deviation).  So p has no
 * floor at 1 / (B + 1), and Holm over a large table can still call a
 * clear change.  Given invocation medians, it is what compare uses
 * between runs (the median of invocation medians is what the table
 * reports).  All values positive and finite; errors as above. */
SB_API int sb_stats_ratio_boot_test(const double *x, size_t nx,
                                    const double *y, size_t ny,
                                    double level, size_t B, uint64_t seed,
                                    sb_interval *ratio, double *p);

/* Carry an interval through a monotone function f (throughput from time,
 * say): estimate, lo and hi are mapped, and the ends swap when f is
 * decreasing (f(lo) > f(hi)).  level and achieved are kept.  A NULL f
 * returns the interval unchanged. */
SB_API sb_interval sb_interval_map(sb_interval in,
                                   double (*f)(double v, void *arg),
                                   void *arg);

/* The MAD rule: a value is an outlier when |x - median| > k * 1.4826 *
 * MAD, MAD the median absolute deviation (1.4826 makes it estimate the
 * standard deviation of normal data).  k = 3 is the usual choice (Leys et
 * al. 2013).  With MAD == 0 nothing is an outlier. */
typedef struct sb_mad_outliers {
    double median, mad, k;   /* mad: the raw median absolute deviation */
    double lo, hi;       /* the fences */
    size_t low, high;    /* values below lo, above hi */
} sb_mad_outliers;

/* SB_EINVAL for n == 0 or k not positive.  sorted ascending, finite. */
SB_API int sb_stats_mad_outliers(const double *sorted, size_t n, double k,
                                 sb_mad_outliers *out);

/* Lag-1 autocorrelation of x[0..n-1] in measured order:
 * r1 = sum (x_t - m)(x_t+1 - m) / sum (x_t - m)^2 over the sample mean m
 * (the usual estimator, as R's acf computes it).  0 when all values are
 * equal.  SB_EINVAL for n < 3 or non-finite data. */
SB_API int sb_stats_lag1(const double *x, size_t n, double *r1);

/* Kruskal-Wallis's test that k groups come from one distribution: the
 * groups' values one after the other in x, n[g] in group g.  Ranks from 1
 * (ties their mean rank), H = 12 / (N (N + 1)) sum R_g^2 / n_g - 3 (N +
 * 1), divided by 1 - sum (t^3 - t) / (N^3 - N) over groups of t tied
 * values, and p its chi-squared tail with k - 1 df (as scipy.stats.kruskal
 * computes it).  Every value equal: H 0, p 1.  SB_EINVAL for k < 2, an
 * empty group, non-finite data; SB_ENOMEM. */
SB_API int sb_stats_kruskal(const double *x, const size_t *n, size_t k,
                            double *h, double *p);

/* Whether the values x[0..n) in the order measured drift or come in
 * blocks (several processes' samples one after another): Kruskal-Wallis
 * over k consecutive blocks of n / k values (the first n % k one longer).
 * SB_EINVAL for k < 2 or n < 2 k; as sb_stats_kruskal otherwise. */
SB_API int sb_stats_blocks_test(const double *x, size_t n, size_t k,
                                double *h, double *p);

/* Smallest relative effect a two-sided test at alpha detects with the
 * given power, for two estimates each with relative standard error se:
 * (q(1 - alpha / 2) + q(power)) * sqrt(2) * se, q the normal quantile, or
 * Student t's with df degrees of freedom when df > 0 (df 0 or infinite:
 * normal).  0 for se == 0; NAN for se < 0 or not finite, negative or NaN
 * df, alpha or power outside (0, 1). */
SB_API double sb_stats_mde(double se, double df, double alpha, double power);

/* The smallest relative change a comparison of two runs of m invocations
 * each detects (paired over nothing: two separate runs), when the
 * invocations' medians vary with relative standard deviation rel_sd:
 * sb_stats_mde(rel_sd / sqrt(m), 2 m - 2, alpha, power), m taken as at
 * least 2.  NAN as sb_stats_mde. */
SB_API double sb_stats_mde_runs(double rel_sd, double m, double alpha,
                                double power);

/* The spread of a sample: quantiles by linear interpolation between order
 * statistics (R's type 7). */
typedef struct sb_spread {
    double median, q1, q3, p99, max;
} sb_spread;

/* The spread of x[0..n-1] (any order; x is not changed).  SB_EINVAL for
 * n == 0 or a value that is not finite, SB_ENOMEM. */
SB_API int sb_stats_spread(const double *x, size_t n, sb_spread *out);

/* ---- Comparisons -------------------------------------------------------- */

/* Mann-Whitney U test of x against y, two-sided.  u = number of pairs
 * (x_i, y_j) with x_i > y_j plus half the ties.  p: the exact
 * distribution when there are no ties and nx, ny <= 20; otherwise the
 * normal approximation with the tie correction of the variance and a
 * continuity correction of 0.5 (as scipy.stats.mannwhitneyu with
 * method="asymptotic").  a12 (optional) = u / (nx ny), the probability that
 * a value of x exceeds one of y (Vargha and Delaney's A), an effect size:
 * 0.5 no effect, 0.56 / 0.64 / 0.71 small / medium / large.
 * SB_EINVAL for an empty sample or non-finite data; SB_ENOMEM. */
SB_API int sb_stats_mann_whitney(const double *x, size_t nx, const double *y,
                                 size_t ny, double *u, double *p,
                                 double *a12);

/* Welch's t test on the logarithms of x and y (positive values), two-sided
 * (SB_EINVAL also for a level outside (0, 1) or a NULL t, df or p):
 * t = (mean log y - mean log x) / se, Welch-Satterthwaite df.  ratio
 * (optional) receives exp(mean log y - mean log x) with its t interval at
 * level (the ratio of geometric means).  SB_EINVAL for nx or ny < 2, a
 * value <= 0 or non-finite, zero variance in both samples. */
SB_API int sb_stats_welch_log(const double *x, size_t nx, const double *y,
                              size_t ny, double level, double *t, double *df,
                              double *p, sb_interval *ratio);

/* Paired comparison of per-invocation estimates: a[i] and b[i] measured in
 * the same invocation i.  The ratio of geometric means exp(mean log(b/a))
 * with its t interval (m - 1 df) at level, and the paired t test's
 * two-sided p.  SB_EINVAL for m < 2, values <= 0 or non-finite.  With all
 * log ratios equal, the interval is that ratio and p is 0 (or 1 when the
 * ratio is exactly 1). */
SB_API int sb_stats_paired_log(const double *a, const double *b, size_t m,
                               double level, sb_interval *ratio, double *p);

/* One run's estimate x against the estimates runs[0..m) of m earlier
 * runs of the same cell: is x one of them?  The runs' log estimates give
 * the run-to-run variance s^2 (m - 1 df); a new run differs from their
 * geometric mean by a t with se^2 = s^2 (1 + 1/m).  ratio: x over the
 * geometric mean with its t interval at level; p: the two-sided p of
 * ratio 1; df (optional): m - 1; sd (optional): s, the run-to-run
 * standard deviation of the log estimates.  SB_EINVAL for m < 2, a value
 * <= 0 or non-finite, or runs all equal (no spread to judge by). */
SB_API int sb_stats_run_vs_runs(const double *runs, size_t m, double x,
                                double level, sb_interval *ratio, double *p,
                                double *df, double *sd);

/* A ratio's interval from the spread within two runs, widened by what
 * the runs' own levels add.  Each side of within (estimate, lo, hi at
 * its achieved level, from a t with df degrees of freedom, 0 for a
 * normal quantile) gives a within-run standard error of the log ratio,
 * its log half-width over the quantile q; run_var (>= 0) is added to its
 * square (2 sd^2 for two runs of run-to-run sd sd), and the side is
 * rebuilt at level with the quantile of the sum's Welch-Satterthwaite df,
 * df (se_total / se_within)^4 (normal when df is 0 or the side has no
 * width), so that a skewed interval stays skewed.  out: the estimate
 * with the widened ends; p: the two-sided p of ratio 1 from the side that
 * faces 1; df_out (optional): that side's df.  SB_EINVAL for a within
 * interval that is not positive, finite and ordered lo <= estimate <= hi,
 * a negative or non-finite run_var, df < 0, a level outside (0, 1). */
SB_API int sb_stats_ratio_add_level(const sb_interval *within, double df,
                                    double run_var, double level,
                                    sb_interval *out, double *p,
                                    double *df_out);

/* Holm-Bonferroni adjusted p-values of a family of m tests: sort p
 * ascending as p(1) <= ... <= p(m), adjusted(i) = max over j <= i of
 * min(1, (m - j + 1) p(j)), returned in the input order.  adjusted may
 * alias p.  SB_EINVAL for m == 0 or a p outside [0, 1]; SB_ENOMEM. */
SB_API int sb_stats_holm(const double *p, size_t m, double *adjusted);

/* 0 is no verdict, so that a zeroed or untouched sb_comparison (a failed
 * call's output) never reads as a result.  Saved files hold the names,
 * not the values. */
enum sb_verdict {
    SB_VERDICT_NONE = 0,     /* no comparison was made (an error, or no
                                baseline) */
    SB_VERDICT_EQUIVALENT,   /* the ratio's CI lies within 1 +- threshold */
    SB_VERDICT_FASTER,       /* significant, and the CI lies below 1 */
    SB_VERDICT_SLOWER,       /* significant, and the CI lies above 1 */
    SB_VERDICT_INCONCLUSIVE  /* none of these */
};

/* The verdict on a ratio of times (candidate / baseline) with its CI and
 * adjusted p-value, at significance alpha and a practical threshold
 * (0.01 for 1%): equivalent when 1 - threshold <= lo and hi <= 1 +
 * threshold; else faster when p < alpha and hi < 1; else slower when
 * p < alpha and lo > 1; else inconclusive.  Returns an enum sb_verdict, or
 * SB_VERDICT_INCONCLUSIVE for NaN inputs. */
SB_API int sb_stats_verdict(const sb_interval *ratio, double p_adjusted,
                            double alpha, double threshold);

/* "none", "equivalent", "faster", "slower", "inconclusive"; "?"
 * otherwise. */
SB_API const char *sb_verdict_name(int verdict);
SB_API int sb_verdict_parse(const char *name);

/* ---- Invocation level --------------------------------------------------- */

/* m groups of samples, one group per invocation (process).  Each group's
 * estimate is its median; the interval is Student t over the m estimates
 * (m - 1 df), so the variation between processes is in it.  The variance
 * components come from the one-way random-effects ANOVA on the raw values
 * (method of moments, unbalanced groups with the usual n0; a negative
 * between component is set to 0). */
typedef struct sb_levels {
    size_t m;              /* groups */
    size_t n;              /* values in all groups */
    sb_interval ci;        /* mean of the group medians, t interval */
    double sd_between_est; /* sd of the m group medians */
    double var_between;    /* between-group variance component */
    double var_within;     /* within-group variance component */
    double between_fraction; /* var_between / (var_between + var_within) */
} sb_levels;

/* groups[i] points at n[i] values (any order, finite).  With one value
 * per group the within component cannot be measured: the interval is
 * still given and the variance components are NaN.  The mean of
 * between_fraction over many small-m runs is biased low (m = 5: about 0.80
 * for a true 0.86).  SB_EINVAL for m < 2, an empty group or non-finite
 * data; SB_ENOMEM. */
SB_API int sb_stats_levels(const double *const *groups, const size_t *n,
                           size_t m, double level, sb_levels *out);

/* ---- Change points ------------------------------------------------------ */

/* The longest series sb_stats_edivisive takes (its n^2 distances, 128 MiB
 * at the cap), and so the most runs a history reads. */
#define SB_CP_MAX_N 4096

/* E-Divisive means (Matteson and James 2014) as Daly et al. use it on
 * performance series (ICPE 2020): the options.  The caller fills it
 * (set size, or call sb_cp_options_init for the defaults). */
typedef struct sb_cp_options {
    size_t size;         /* sizeof(sb_cp_options) */
    double exponent;     /* alpha of the distances |a - b|^alpha, in
                            (0, 2); default 1 */
    double pvalue;       /* a split is kept while its permutation p is at
                            most this, in (0, 1); default 0.05 */
    size_t permutations; /* R, 1 .. 100000; default 199 (p's resolution
                            0.005, and 10 of 200 at the cutoff) */
    size_t min_size;     /* fewest values a segment may have, >= 2;
                            default 5 */
    uint64_t seed;       /* of the permutations (gsl_rng_mt19937, folded
                            as the bootstrap's); default 1 */
} sb_cp_options;

/* One change point: values index .. are the new segment. */
typedef struct sb_change_point {
    size_t index; /* first value after the change, 1 .. n - 1 */
    double q;     /* Q-hat of the split when it was found, in the
                     series' units (computed on the series divided by a
                     power of two near its median absolute value and
                     multiplied back: inf or 0 where beyond a double,
                     the split found all the same) */
    double p;     /* permutation p, (count + 1) / (R + 1) */
} sb_change_point;

/* The defaults above (o->size set); no effect for NULL. */
SB_API void sb_cp_options_init(sb_cp_options *o);

/* The best split of x[0..n-1] by the energy statistic: the tau (values
 * 0..tau-1 against tau..n-1, each side at least min_size >= 2 values)
 * with the largest Q-hat = m k / (m + k) E, where E is the energy
 * distance of the two sides with exponent in (0, 2).  q_all (optional, n
 * values) gets every tau's Q-hat, NAN where tau is not allowed.
 * SB_EINVAL for NULL pointers, non-finite data, min_size < 2, a bad
 * exponent or n > 4096; SB_ENUMERIC when n < 2 min_size; SB_ENOMEM. */
SB_API int sb_stats_energy_split(const double *x, size_t n, size_t min_size,
                                 double exponent, double *q_all, size_t *tau,
                                 double *q);

/* The change points of x[0..n-1] (time order, finite, n <= 4096) by
 * recursive bisection: the best split over the current segments, kept
 * when its permutation p (values shuffled within each segment, o->seed)
 * is at most o->pvalue, until one is not.  o NULL: the defaults.  At most
 * max are written to out, in order of index (n / min_size is always
 * enough); *nfound is how many were found.  Deterministic for a seed.
 * SB_EINVAL for bad arguments or options, SB_ENOMEM. */
SB_API int sb_stats_edivisive(const double *x, size_t n,
                              const sb_cp_options *o, sb_change_point *out,
                              size_t max, size_t *nfound);

/* ------------------------------------------------------------------------ */
/* Kernels (kernels/)                                                        */
/* ------------------------------------------------------------------------ */

enum sb_family {
    SB_FAMILY_COPY = 0,
    SB_FAMILY_CLEAR,
    SB_FAMILY_ALLOC,
    SB_FAMILY_SYSCALL,
    SB_FAMILY_EXTERNAL /* samples measured elsewhere (analyze, loaded runs
                          of kernels this build lacks) */
};

/* CPU features a kernel may need.  A kernel whose features the running CPU
 * lacks is reported unavailable and is never called.  ERMS and FSRM only
 * make rep movs/stos faster: they are reported, never required.  The x86
 * bits come from CPUID (and XCR0), ASIMD from the Linux auxiliary vector's
 * AT_HWCAP on aarch64; a CPU of one architecture never has the other's. */
#define SB_FEAT_X86_64  (1u << 0) /* x86-64 instructions (rep movs/stos) */
#define SB_FEAT_MMX     (1u << 1)
#define SB_FEAT_SSE2    (1u << 2)
#define SB_FEAT_AVX2    (1u << 3)
#define SB_FEAT_AVX512F (1u << 4)
#define SB_FEAT_ERMS    (1u << 5) /* enhanced rep movsb/stosb (speed only) */
#define SB_FEAT_FSRM    (1u << 6) /* fast short rep mov (speed only) */
#define SB_FEAT_ASIMD   (1u << 7) /* aarch64 Advanced SIMD (NEON) */

/* One call of a kernel: copy n bytes from src to dst, clear n bytes at dst,
 * allocate n bytes, ...  src and dst never overlap.  state is what setup
 * returned (NULL without setup).  It must return: leaving it by longjmp,
 * a C++ exception or pthread_exit skips the run's clean-up (with
 * invocations 1, the calling thread stays pinned and the run's buffers
 * stay mapped and locked); report a failure with sb_kernel_failed
 * instead. */
typedef void (*sb_kernel_fn)(void *dst, const void *src, size_t n,
                             void *state);

struct sb_cell;

/* A kernel.  size must be sizeof(sb_kernel): the library checks it
 * (sb_plan_add, sb_kernel_available), so that a program built against a
 * header whose sb_kernel differs is refused instead of misread.  A caller
 * fills it with a designated initialiser,
 *     static const sb_kernel mine = {.size = sizeof(sb_kernel),
 *                                    .name = "mine", ...};
 * and fields it leaves out are 0 (or NULL), their documented default. */
typedef struct sb_kernel {
    size_t size;             /* sizeof(sb_kernel), always first */
    const char *name;        /* unique, lower case: "movsl" */
    enum sb_family family;
    const char *description; /* one line */
    unsigned features;       /* SB_FEAT_* the kernel cannot run without */
    sb_kernel_fn fn;
    /* Optional: make per-cell state (a file, a pool) for a cell (its
     * size and offsets).  Returns SB_OK or a negative status and fills
     * err. */
    int (*setup)(void **state, const struct sb_cell *cell, sb_error *err);
    /* Optional: free what setup made. */
    void (*teardown)(void *state);
    /* Optional: whether this machine can run the kernel beyond its CPU
     * features (transparent huge pages enabled, say): 1 yes, 0 no with
     * *why set to a static reason. */
    int (*available)(const char **why);
    /* SB_KERNEL_* properties the measurement must know; 0 (a kernel
     * that works on the buffers it is given) when not set. */
    unsigned flags;
} sb_kernel;

/* The kernel makes its own memory of the cell's size on every call (an
 * mmap, a malloc) and ignores src and dst: no buffers of the cell's size
 * are mapped for it (src and dst then point into a page that fn must not
 * use), --cache cold has nothing to flush for it, and the plan's check
 * counts its size once against half of the machine's memory.  The flag,
 * not the family, decides: a kernel of SB_FAMILY_ALLOC without it gets
 * buffers like any other. */
#define SB_KERNEL_OWN_MEMORY (1u << 0)

/* For a kernel's fn, which returns nothing: report that this call could
 * not do its work (an mmap, a malloc or a read failed), errnum an errno
 * value or 0.  The sample that holds the call is then rejected under
 * SB_REJECT_KERNEL_FAILED whatever sb_measure_options.reject says, since
 * its time is not that of the work, and the run's notes name the
 * error.  Setup
 * should have checked that the work can be done; this is for what changes
 * during a run (memory running out).  Counted per thread: call it from
 * the thread that called fn.  Costs nothing until called, so fn's only
 * price is its test of the failure. */
SB_API void sb_kernel_failed(int errnum);

/* The SB_FEAT_* bits this CPU has (read with CPUID on x86-64, from
 * AT_HWCAP on aarch64, once, then cached). */
SB_API unsigned sb_cpu_features(void);

/* Name of one SB_FEAT_* value, e.g. sb_feature_name(SB_FEAT_AVX2) is
 * "avx2"; "?" for anything that is not exactly one known SB_FEAT_* bit. */
SB_API const char *sb_feature_name(unsigned bit);

/* Name of a family ("copy"), or "?" for an unknown value. */
SB_API const char *sb_family_name(int family);
SB_API int sb_family_parse(const char *name);

/* The built-in kernels, in a fixed order: sb_kernel_at(0 .. count - 1).
 * Returned pointers are static and never freed. */
SB_API size_t sb_kernel_count(void);
SB_API const sb_kernel *sb_kernel_at(size_t i);

/* The built-in kernel with this name, or NULL. */
SB_API const sb_kernel *sb_kernel_find(const char *name);

/* 1 when this machine can run k, 0 when not.  When why is not NULL, *why
 * is set to a static string naming the first missing CPU feature ("needs
 * avx512f") or the reason the kernel's own check gave ("transparent huge
 * pages are off"), or to NULL when k is available.  Never calls the
 * kernel's fn; a kernel without fn (a stand-in of a loaded run) is
 * unavailable. */
SB_API int sb_kernel_available(const sb_kernel *k, const char **why);

/* ---- Kernels loaded from shared objects --------------------------------- */

struct sb_plan;
struct sb_run;

/* Where a loaded kernel came from.  Strings are never NULL. */
typedef struct sb_kernel_origin {
    const char *name;     /* the kernel's name in the run */
    const char *path;     /* the file as given (control characters '?') */
    const char *symbol;   /* the function's symbol */
    const char *build_id; /* the ELF GNU build-id in hex, "" without one */
    uint64_t file_size;   /* the file's size in bytes when loaded */
    int64_t file_mtime;   /* its modification time, seconds since 1970 */
    const char *warning;  /* "" or, on one line, why the file deserves a
                             look: writable by others, or in a directory
                             others may write without the sticky bit
                             (anyone could change the code measured) */
} sb_kernel_origin;

/* A kernel from a shared object: the function symbol of path, of the
 * sb_kernel_fn shape, measured under name (NULL: the symbol) in family
 * SB_FAMILY_COPY or SB_FAMILY_CLEAR.  The object needs no statbench
 * header.  When it also exports
 *     int SYMBOL_init(void **state, size_t n);
 *     void SYMBOL_fini(void *state);
 * they become the kernel's setup and teardown: init is called before a
 * cell of n bytes is measured, in each invocation, and returns 0 or an
 * errno value (which fails the run, naming it); the state it sets is fn's
 * last argument and fini's argument.
 *
 * The file is opened once, and what is checked (a regular file, an ELF
 * shared object, its build-id, who may write it) is what is loaded: its
 * descriptor's name under /proc/self/fd goes to dlmopen(LM_ID_NEWLM,
 * name, RTLD_NOW | RTLD_LOCAL), in a link-map namespace of its own, so
 * that two builds of one library with the same symbols load side by
 * side.  Before that, a forked child loads it once with its standard
 * output and error caught, so that a constructor that prints, calls exit,
 * dies or waits more than 10 s is refused (SB_EINVAL, saying which)
 * before it runs in the caller: a fork and a load, a few milliseconds,
 * once per file.  The same file
 * loaded again (by any path) shares its namespace, and the last
 * sb_kernel_load_free of its kernels closes it.  A namespace costs a copy
 * of the object's dependencies, the C library included (its own malloc
 * heap), and glibc allows about 16 per process, fewer when each takes
 * static TLS (libc does; about 10 here).  The object cannot use symbols
 * of the program that loads it (sb_kernel_failed among them), and an
 * object whose dependencies cannot be loaded in a new namespace is
 * refused with glibc's reason.
 *
 * path must contain a '/' (nothing is taken from the library search path
 * by surprise); symbol must be a C identifier; name is letters, digits,
 * '_', '.' and '-', at most 64, not a built-in kernel's.  SB_EINVAL, with
 * a one-line message naming the value, for those, a file that is missing,
 * not a regular file, not an ELF shared object or cannot be loaded, a
 * symbol it lacks or one that is not a function; SB_ESYS when the trial
 * cannot fork; SB_EUNAVAIL in a library built with AddressSanitizer,
 * which cannot follow the namespace (nothing is opened); SB_ENOMEM.  A
 * file others may write is loaded, with
 * sb_kernel_loaded(k)->warning saying so.  *out is then NULL.  The kernel is the
 * caller's to free with sb_kernel_load_free, after the plans that hold
 * it; a run made from them keeps its own record (sb_run_loaded) and
 * outlives it.  Its speed means nothing until sb_kernel_verify passed. */
SB_API int sb_kernel_load_new(const char *path, const char *symbol,
                              const char *name, int family, sb_kernel **out,
                              sb_error *err);
SB_API void sb_kernel_load_free(sb_kernel *k);

/* Where k was loaded from, or NULL when k is not a loaded kernel.  Owned
 * by k. */
SB_API const sb_kernel_origin *sb_kernel_loaded(const sb_kernel *k);

/* Check a copy or clear kernel byte for byte on the cells of plan that
 * use it, before they are measured: at each size and offset pair, with
 * the rest of the destination's pages as guard bytes before and after it
 * (the source's too), in a forked process (a kernel that crashes is
 * refused, not fatal), its setup and teardown around two calls.  A copy
 * must make dst equal src and leave src as it was; a clear must zero dst;
 * neither may touch a guard byte.  When the cells of k hold more than
 * 4096 cells or 256 MiB, a representative set is checked: every size at
 * its first cell in the plan, and every offset pair at its smallest size
 * and at its largest size up to 64 KiB.  SB_OK; SB_EINVAL naming the cell
 * and the first wrong byte ("kernel k, 4096 bytes, offsets 0/0: dst[4095]
 * is 0x00, expected 0x5b"), for a kernel of another family or with
 * SB_KERNEL_OWN_MEMORY, or when plan has no cell of k; SB_ENOMEM;
 * SB_ESYS when the check cannot fork. */
SB_API int sb_kernel_verify(const sb_kernel *k, const struct sb_plan *plan,
                            sb_error *err);

/* The loaded kernels a run measured, as it recorded them (also read back
 * from a saved run, whose file need not exist any more): 0 .. count - 1;
 * NULL for a bad index.  Owned by the run. */
SB_API size_t sb_run_loaded_count(const struct sb_run *run);
SB_API const sb_kernel_origin *sb_run_loaded(const struct sb_run *run,
                                             size_t i);

/* ------------------------------------------------------------------------ */
/* Timer                                                                     */
/* ------------------------------------------------------------------------ */

enum sb_timer_kind {
    SB_TIMER_TSC = 0,   /* lfence; rdtsc ... rdtscp; lfence */
    SB_TIMER_CLOCK,     /* clock_gettime(CLOCK_MONOTONIC_RAW), in ns */
    SB_TIMER_CNTVCT     /* aarch64: isb; mrs cntvct_el0; isb */
};

/* "tsc", "clock", "cntvct"; "?" otherwise, and the reverse.  --timer
 * takes "tsc" for the architecture's counter (the generic timer's on
 * aarch64) and "clock". */
SB_API const char *sb_timer_name(int kind);
SB_API int sb_timer_parse(const char *name);
/* The kind in prose ("TSC", "clock") and what one of its ticks is ("TSC
 * reference cycle", "nanosecond"), for a caller printing figures of its
 * own; "timer" and "tick" for a kind outside the list. */
SB_API const char *sb_timer_label(int kind);
SB_API const char *sb_timer_unit(int kind);

/* The timer a run uses, measured once per process.
 * Ticks are TSC reference cycles (constant rate, not core clock cycles) for
 * SB_TIMER_TSC, ticks of the generic timer's system counter (constant
 * rate, often 24 to 100 MHz) for SB_TIMER_CNTVCT and nanoseconds for
 * SB_TIMER_CLOCK; hz converts them.
 * Filled by the library in the caller's memory: set size first (see the
 * conventions above). */
typedef struct sb_timer_info {
    size_t size;             /* sizeof(sb_timer_info), set by the caller */
    enum sb_timer_kind kind;
    double hz;               /* ticks per second */
    const char *hz_source;   /* "cpuid 0x15", "hypervisor leaf", "calibrated" */
    int invariant;           /* 1 when CPUID says the TSC is invariant */
    double overhead;         /* ticks of an empty timed sample (median),
                                subtracted from every sample */
    double bare_overhead;    /* ticks of a bare back-to-back timer pair */
    char reason[128];        /* why the fallback was chosen, else "" */
} sb_timer_info;

/* Set up the timer: choose TSC or the fallback, find its frequency, measure
 * overheads.  force_clock != 0 selects the clock_gettime fallback.  The
 * first call in a process takes about 50 ms (frequency calibration); the
 * rate is then kept for the process and its forks (an invariant TSC's
 * rate does not change), and later calls only measure the overheads.
 *     sb_timer_info t = {.size = sizeof t};
 *     rc = sb_timer_init(&t, 0, &err);
 * Returns SB_OK, SB_EINVAL for a NULL out or an unknown out->size (out
 * untouched), or SB_ESYS. */
SB_API int sb_timer_init(sb_timer_info *out, int force_clock, sb_error *err);

/* ------------------------------------------------------------------------ */
/* Plans, options, runs                                                      */
/* ------------------------------------------------------------------------ */

/* One configuration of a kernel. */
typedef struct sb_cell {
    const sb_kernel *kernel;
    size_t size;       /* bytes per iteration */
    size_t src_align;  /* source offset from a page boundary, bytes */
    size_t dst_align;  /* destination offset from a page boundary, bytes */
} sb_cell;

typedef struct sb_plan sb_plan;

/* A new empty plan; free it with sb_plan_free().  NULL on ENOMEM. */
SB_API sb_plan *sb_plan_new(void);
SB_API void sb_plan_free(sb_plan *plan);

/* Append a cell.  The kernel pointer must outlive the plan and the run.
 * It may be a built-in kernel (sb_kernel_find) or one of the caller's own:
 * fill an sb_kernel with a unique name, a family, a description, the
 * features it needs (0 for plain C) and fn, and pass it here; that is how
 * a user registers a kernel.  SB_EINVAL for a NULL plan or kernel, a
 * kernel whose name is NULL or empty, whose fn is NULL or whose family is
 * not an enum sb_family value, or an alignment of 4096 or more;
 * SB_ENOMEM. */
SB_API int sb_plan_add(sb_plan *plan, const sb_kernel *kernel, size_t size,
                       size_t src_align, size_t dst_align, sb_error *err);

/* Named benchmarks: a function of the sb_kernel_fn shape under a name of
 * the caller's, with an optional state pointer, measured like a kernel on
 * n bytes (page-aligned source and destination buffers of n bytes; fn
 * gets state as its last argument).  The name is copied, and appears in
 * every output: the report's rows, CSV, JSON, comparisons.  Adding the
 * same name again with the same fn and state adds another size of that
 * benchmark; with another fn or state it is SB_EINVAL, as are a NULL
 * plan, name or fn, n = 0, a name sb_plan_add refuses (empty, control
 * characters) and the name of a built-in kernel.  The function under
 * test and its reference are named alike: compare them with
 * sb_run_baseline_by(run, "reference", 0, ...) and judge with
 * sb_gate_judge.  A run keeps its own copy of the names: the plan may be
 * freed first. */
SB_API int sb_bench_add(sb_plan *plan, const char *name, sb_kernel_fn fn,
                        void *state, size_t n, sb_error *err);

/* Hooks of a named benchmark, run outside the timed region: setup(state,
 * n, err) before the benchmark's cell of size n is measured, teardown
 * (state) after, once per cell in every invocation.  With invocations >
 * 1 (the default) they run in the forked invocation's process: what they
 * write through state is seen by fn there, never by the caller.  setup
 * returns SB_OK, or a negative status (with err filled) that fails the
 * run.  Either may be NULL.  SB_EINVAL for a NULL plan or name, or a name
 * no sb_bench_add gave. */
typedef int (*sb_bench_setup_fn)(void *state, size_t n, sb_error *err);
typedef void (*sb_bench_teardown_fn)(void *state);
SB_API int sb_bench_hooks(sb_plan *plan, const char *name,
                          sb_bench_setup_fn setup,
                          sb_bench_teardown_fn teardown, sb_error *err);

SB_API size_t sb_plan_count(const sb_plan *plan);
SB_API const sb_cell *sb_plan_cell(const sb_plan *plan, size_t i);

/* What a run has done so far, for a progress display: what
 * sb_measure_options.progress_state is called with, where progress is.  The
 * library fills it; size is sizeof(sb_progress) of the library that
 * filled it, and a field past size was not filled (a caller built with a
 * newer header than the library's).  Fields are only ever added at the
 * end.  Two kinds of call, told apart by between:
 *  - within an invocation (between 0), after each round, in the process
 *    that measures (the forked invocation's, with several): round and
 *    elapsed are the invocation's, and the check fields are the stop
 *    rule's last check of its samples so far;
 *  - between invocations (between 1), in the caller's process, after an
 *    invocation finished: round and elapsed are the run's totals, and the
 *    check fields judge the interval over the invocations so far, the
 *    rule that decides whether invocations beyond the requested ones run.
 * A cell is done when it has min_samples samples (within an invocation)
 * and its interval meets the precision target, the one rule of the stop
 * rule and the results (docs/design.md, protocol step 6).  Setting
 * progress_state makes a check of the stop rule judge every cell, where
 * it otherwise stops at the first cell short of the target, at most 10
 * times a second (as often as a progress line is drawn): at most the
 * cost of the check that ends an invocation, at those checks (the checks
 * come at rounds growing by 1/16, between rounds); the fields above are
 * those of the last such check. */
typedef struct sb_progress {
    size_t size;        /* sizeof(sb_progress) as the library filled it */
    int between;        /* 0: within an invocation; 1: between them */
    size_t invocation;  /* 0-based: the invocation measuring, or (between)
                           the one that just finished */
    size_t invocations; /* requested (at least 1); with a precision
                           target more may follow, up to max_invocations */
    size_t round;       /* rounds so far (see above) */
    double elapsed;     /* seconds spent in those rounds (see above) */
    double time_left;   /* seconds until this invocation's deadline
                           (between: the run's); 0 when past it */
    size_t cells;       /* cells in the plan */
    size_t cells_done;  /* cells that met the target at the last check;
                           0 before it; cells with precision 0 (no
                           target, so nothing stops on it) */
    size_t checked_at;  /* the round (between: the number of invocations)
                           of the last check; 0: none yet (the stop rule
                           checks from min_samples rounds on) */
    double widest;      /* the largest relative half-width over the cells
                           at that check, as the rule measures it
                           (INFINITY for an interval that does not reach
                           its level); NAN before the first check or with
                           precision 0 */
} sb_progress;

/* The cache state each timed call starts from. */
enum sb_cache {
    SB_CACHE_HOT = 0, /* one untimed call before each sample brings the
                         buffers into the cache; k calls per sample */
    SB_CACHE_COLD     /* before each timed call every cache line of the
                         source and destination buffers is flushed
                         (clflush, then mfence): the call starts with both
                         in memory only; one call per sample.  x86-64
                         only.  Alloc kernels are not affected; for the
                         system-call kernels only the user buffer is
                         flushed, not the page cache. */
};

/* Which disturbed samples are rejected. */
enum sb_reject_policy {
    SB_REJECT_DISTURBED = 0, /* context switch, CPU migration, interrupt on
                                the pinned CPU */
    SB_REJECT_NONE           /* keep every disturbed sample; still
                                counted (a sample with a failed kernel
                                call is rejected all the same) */
};

/* "hot", "cold"; "?" otherwise. */
SB_API const char *sb_cache_name(int cache);
/* The value of a name sb_cache_name gives; -1 for any other string.  The
 * same pair exists for every enum with names: family, outlier_policy,
 * reject_policy, reject (reasons), verdict, timer, plot_kind, metric,
 * inconclusive_policy. */
SB_API int sb_cache_parse(const char *name);

/* "disturbed", "none"; "?" otherwise, and the reverse. */
SB_API const char *sb_reject_policy_name(int policy);
SB_API int sb_reject_policy_parse(const char *name);

/* What happens to Tukey outliers (counted in every case). */
enum sb_outlier_policy {
    SB_OUTLIERS_KEEP = 0,      /* keep all: the median is robust anyway */
    SB_OUTLIERS_REJECT_SEVERE, /* reject beyond 3 IQR */
    SB_OUTLIERS_REJECT_ALL     /* reject beyond 1.5 IQR */
};

/* "keep", "reject-severe", "reject-all"; "?" otherwise. */
SB_API const char *sb_outlier_policy_name(int policy);
SB_API int sb_outlier_policy_parse(const char *name);

/* What a cell's stop rule, headline interval and verdicts are computed
 * in; a cell's result says which it used (TIME or CYCLES). */
enum sb_metric {
    SB_METRIC_AUTO = 0, /* chosen per cell (sb_metric_choose) */
    SB_METRIC_TIME,     /* the time, in timer ticks */
    SB_METRIC_CYCLES    /* the core cycles: ticks times the core clock
                           measured around each sample */
};

/* "auto", "time", "cycles"; "?" otherwise, and the reverse. */
SB_API const char *sb_metric_name(int metric);
SB_API int sb_metric_parse(const char *name);

/* What a gate does with an inconclusive comparison whose interval reaches
 * past 1 + threshold: one whose slowdown beyond the threshold could be
 * neither shown nor ruled out.  FAIL is the default: a regression gate
 * that passes what it could not decide lets a regression through
 * whenever the machine is noisy or the budget short, silently; a failure
 * says how wide the interval was and the smallest change the run could
 * detect (its MDE), so the fix (a larger threshold, more time, a quieter
 * machine) is plain.  An inconclusive comparison whose whole interval
 * lies below 1 + threshold passes under every policy: a slowdown beyond
 * the threshold is ruled out. */
enum sb_inconclusive_policy {
    SB_INCONCLUSIVE_FAIL = 0, /* the default: fail, saying why */
    SB_INCONCLUSIVE_WARN,     /* pass, with the reason in the gate's line */
    SB_INCONCLUSIVE_PASS      /* pass, as sb_gate did before it took
                                 the policy */
};

/* "fail", "warn", "pass"; "?" otherwise, and the reverse. */
SB_API const char *sb_inconclusive_policy_name(int policy);
SB_API int sb_inconclusive_policy_parse(const char *name);

/* The options of a run come in two parts: what is measured
 * (sb_measure_options: the time budget, the samples, the CPU, the
 * counters, the cache state, ...) and how the samples are analysed
 * (sb_analysis_options: the confidence level, the outlier policy, the
 * verdicts, ...).  A run keeps both; sb_run_reanalyse replaces its
 * analysis part after the fact, on a measured or a loaded run, and a run
 * made from samples measured elsewhere (sb_run_load_new,
 * sb_run_from_samples_new) takes only an analysis part.  Each function
 * takes the parts it reads; NULL stands for the defaults.
 *
 * The precision target and the metric are both measurement and analysis,
 * and live in sb_analysis_options: the stop rule measures towards the
 * target in the metric, and the analysis says whether each cell reached
 * it.  Measuring thus takes both parts.
 *
 * Each part starts with a size field, set by its _init to the size of
 * the struct the caller was compiled with.  Every function that reads a
 * part checks it: SB_EINVAL, naming the struct and the size, for 0 or a
 * size this library does not know (a newer header's, or a struct never
 * initialised); a size of an older layout that this library knows is
 * read with the later fields at their defaults.  Always fill the options
 * with sb_measure_options_init and sb_analysis_options_init, then change
 * fields.
 *
 * Units: relative quantities are fractions here and percent on the
 * command line, with one meaning: threshold 0.10 is --threshold 10,
 * precision 0.01 is --precision 1, ci_level 0.95 is --ci 95; alpha is a
 * probability in both (0.05).  The threshold is asked once: the verdicts
 * use it, and so does sb_gate_judge (sb_comparison_regressed takes its
 * own, sb_gate the analysis options'). */
typedef struct sb_measure_options {
    size_t size;            /* sizeof(sb_measure_options), set by
                               sb_measure_options_init */
    double max_time;        /* seconds of the whole run, every
                               invocation's setup, warm-up and calibration
                               included: each stops at its deadline, and a
                               plan that cannot fit is refused (see
                               sb_run_execute_new); default 30 */
    size_t min_samples;     /* per cell, before the stop rule; default 100 */
    size_t max_samples;     /* per cell; default 10000 */
    uint64_t seed;          /* order of cells in each round, and the
                               bootstrap's resamples; default 1 */
    int cpu;                /* CPU to pin to: in the calling thread's
                               affinity mask, or an isolated CPU (another
                               is SB_EINVAL); -1 picks one; default -1 */
    int no_pin;             /* 1: leave affinity alone; default 0 */
    double sample_seconds;  /* target length of one sample; default 50e-6 */
    int force_clock_timer;  /* 1: use clock_gettime instead of the TSC */
    size_t invocations;     /* fresh processes (fork) measuring the whole
                               plan, each with max_time / invocations;
                               default 6, the fewest whose medians give a
                               distribution-free 95% interval.  With more
                               than one, intervals and tests use the
                               invocation level. */
    size_t max_invocations; /* with invocations > 1: more invocations are
                               started, while time remains, until every
                               cell's invocation-level interval meets the
                               precision target or this many ran; default
                               100 (values below invocations mean
                               invocations; ignored with precision 0) */
    enum sb_cache cache;    /* default SB_CACHE_HOT */
    const char *counters;   /* comma-separated PAPI preset or native names
                               and perf software events to read around
                               every sample; NULL: the defaults (cycles,
                               instructions, L1 and L2 data-cache misses,
                               data-TLB misses where the hardware has them;
                               context switches, CPU migrations and page
                               faults always).  The string must outlive the
                               run.  sb_plan_check refuses (SB_EINVAL) a
                               name that is neither a perf software event
                               nor known to PAPI by name (where PAPI runs:
                               without it nothing can be told); a known
                               counter this machine cannot read is
                               reported missing in sb_meta.counters. */
    enum sb_reject_policy reject; /* default SB_REJECT_DISTURBED */
    int rt;                 /* 1: SCHED_FIFO while measuring (without the
                               privilege: a warning in the run's notes) */
    int mlock;              /* 1: mlockall(MCL_CURRENT) while measuring;
                               default 1 */
    /* Called after every round with the samples so far; a non-zero return
     * stops this run early (it is then marked interrupted), and no other
     * run.  With forked invocations it is called in the invocation's
     * process after every round, and in the caller's after every
     * invocation.  Optional. */
    int (*progress)(void *arg, size_t round, double elapsed);
    void *progress_arg;
    /* Optional: when *stop becomes non-zero, this run stops after its
     * current sample, as with sb_run_request_stop(), and no other run.
     * The way to stop one run from another thread or a signal handler
     * (store 1 into a volatile sig_atomic_t).  The run only reads it; it
     * must outlive the run.  With forked invocations the caller's process
     * reads it every 20 ms and passes it on.  Default NULL. */
    volatile sig_atomic_t *stop;
    /* Optional: called where progress is (after it, when both are set),
     * with what the run has done so far (sb_progress above); a non-zero
     * return stops this run as progress's does.  It takes progress_arg.
     * The struct is valid during the call only.  Default NULL. */
    int (*progress_state)(void *arg, const sb_progress *p);
    /* Optional: the directory of the host profiles ("The host profile"
     * below).  sb_compare_functions and sb_gate judge their run against
     * this host's profile there, record the verdict in the run (a run
     * measured on a shared core gets an inconclusive verdict) and give
     * it the run's figures.  The library never chooses the directory
     * itself.  Default NULL: no profile. */
    const char *profile_dir;
    /* Optional: the contention probe's quiet level this core is known to
     * have, in core cycles per repetition of the probe sb_meta names in
     * contention_probe (a host profile's, sb_profile_summary.quiet.level):
     * every invocation's quiet model starts from it, so that a run spent
     * on a shared core throughout still tells its shared samples.  It
     * decides only where it is lower than what an invocation sees, and
     * not at all below a third of it (a wrong figure: a shared core
     * slows the probe about 2x); the run reports its own levels.
     * Default 0: none. */
    double quiet_prior;
} sb_measure_options;

/* The defaults, size included.  A NULL m is left alone. */
SB_API void sb_measure_options_init(sb_measure_options *m);

/* Which quiet level a new shared-core decision uses
 * (sb_analysis_options.shared_level). */
enum sb_shared_level { SB_SHARED_INVOCATION, SB_SHARED_RUN };
SB_API const char *sb_shared_level_name(int level); /* "?" if unknown */
SB_API int sb_shared_level_parse(const char *name); /* -1 if unknown */

typedef struct sb_analysis_options {
    size_t size;      /* sizeof(sb_analysis_options), set by
                         sb_analysis_options_init */
    double ci_level;  /* confidence level in (0, 1); default 0.95 */
    double precision; /* target CI half-width / median, in [0, 1); default
                         0.01.  0: no target: every invocation measures
                         until its share of max_time, max_samples or a
                         stop request, exactly invocations of them run,
                         and every cell counts as reached_precision */
    enum sb_outlier_policy outliers; /* default SB_OUTLIERS_KEEP */
    size_t bootstrap; /* 0: order statistics; N in [100, 1000000]: BCa
                         bootstrap of a single invocation's median with N
                         resamples, seeded by the run's seed; default 0 */
    double alpha;     /* significance level of verdicts; default 0.05 */
    double threshold; /* practical threshold of verdicts, relative;
                         default 0.01 */
    enum sb_metric metric; /* what each cell's stop rule, interval and
                              precision are judged in; default
                              SB_METRIC_AUTO (sb_metric_choose) */
    enum sb_inconclusive_policy inconclusive; /* what sb_gate_judge (and
                              statbench --against) does with an
                              inconclusive comparison whose interval
                              reaches past 1 + threshold; default
                              SB_INCONCLUSIVE_FAIL */
    double shared_margin; /* the shared-core decision: negative (the
                             default, -1): as measured; otherwise decided
                             again from the samples' recorded contention
                             probes, kept and held alike
                             (sb_run_held_samples): each invocation's quiet
                             level refitted from its probes, and a sample
                             contended beyond level x (1 + margin), with
                             the refitted model's own margin for 0 and
                             this one in (0, 1) otherwise.  Only runs
                             measured under SB_REJECT_DISTURBED with
                             readings can be decided again */
    enum sb_shared_level shared_level; /* the level a new decision
                             judges each invocation's samples against:
                             SB_SHARED_INVOCATION (the default), its own
                             refitted level; SB_SHARED_RUN, the run's:
                             the lowest level another invocation confirms
                             (within the margin), where it lies below the
                             invocation's own, so that an invocation on a
                             shared core throughout is judged by the quiet
                             core's level.  Unused while shared_margin is
                             negative */
    double run_sd;        /* the run-to-run standard deviation of a cell's
                             estimate on this host, relative (0.03: 3%),
                             for a comparison of two separate runs of
                             which at least one is a single run (whose
                             data cannot show it).  Negative (the default,
                             -1): not known, so taken from a side merged
                             from several runs (sb_run_merge_new), else
                             SB_RUN_SD_ASSUMED.  0 claims that runs do
                             not differ; a value in (0, 1) is this
                             host's, learned by the caller (the runs
                             of a merge of saved runs) */
    double chain_apart;   /* the core clock: negative (the default, -1):
                             as measured; otherwise each sample's clock
                             decided again from its two recorded chain
                             readings (sb_run_sample_probes), kept and
                             held samples alike: two chains more than
                             chain_apart times apart (a ratio >= 1) are
                             one clock and one disturbance and the faster
                             is the clock, else their mean.  The
                             measurement's rule is 1.5, so 1.5 gives back
                             the measured clocks; 1 always takes the
                             faster chain, a large ratio (at most 1e6)
                             always the mean.  Samples without a clock
                             keep none, and only runs whose clock came
                             from the chains (sb_meta.probe "imul-chain")
                             with readings can be decided again.  Done
                             before the shared core is decided again,
                             which converts the contention readings with
                             these clocks */
} sb_analysis_options;

/* The largest magnitude of a value statbench reads (a saved sample, a
 * number for analyze): beyond it a sum or the midpoint of two values
 * overflows to infinity.  Larger values are refused, naming them. */
#define SB_VALUE_MAX 1e300

/* The run-to-run standard deviation assumed for a comparison of one run
 * a side when nothing better is known (sb_analysis_options.run_sd): 3%,
 * the largest level at which such comparisons are required to keep
 * their false verdicts at alpha (tests/test_runlevel.c).  Two quiet runs
 * of one host differ less (0.04-0.2% seen), so the price is power: with
 * it, no change below 12.5-13.8% (6 and 20 invocations in that test's
 * model) can be claimed from one run a side. */
#define SB_RUN_SD_ASSUMED 0.03

/* The largest ratio sb_analysis_options.chain_apart takes: beyond it the
 * two chains' mean is taken always (no two readings are further apart
 * than that on any host seen: 20 times at most). */
#define SB_CHAIN_APART_MAX 1e6

/* The defaults, size included.  A NULL a is left alone. */
SB_API void sb_analysis_options_init(sb_analysis_options *a);
/* SB_EINVAL, with a message, for an unknown size or a field outside its
 * range. */
SB_API int sb_analysis_options_check(const sb_analysis_options *a,
                                     sb_error *err);
/* The one range check of a precision target: [0, 1), 0 for none.
 * SB_EINVAL, with a message, outside it. */
SB_API int sb_precision_check(double precision, sb_error *err);

/* The share of a cell's samples that must carry a known core clock for
 * it to be judged in core cycles: 0.9.  Below it the cell is in time. */
#define SB_METRIC_CLOCK_SHARE 0.9

/* The one choice of a cell's metric (TIME or CYCLES), for the stop rule,
 * the runner and the analysis alike.  asked is enum sb_metric; cache the
 * run's enum sb_cache; l2_bytes the L2 size (sb_meta.l2_bytes, 0:
 * unknown); clock the n samples' core clocks (NAN: unknown; NULL: none).
 *  - TIME: time.
 *  - CYCLES: core cycles when at least SB_METRIC_CLOCK_SHARE of the
 *    samples carry a clock, else time, never an error: a saved run
 *    without clocks can still be reported (the table's header says how
 *    many cells fell back).
 *  - AUTO: core cycles when the clock is known as for CYCLES and the
 *    cell's data stays in the caches, whose speed follows the core clock:
 *    a copy or clear kernel, a hot cache, and the bytes it touches
 *    (source and destination for a copy, destination for a clear, each
 *    with its offset) within l2_bytes.  Time otherwise: cold cells and
 *    DRAM-bound sizes wait on memory, system calls and allocations on the
 *    kernel and page faults, none of which scale with the core clock.
 * A cell without samples (n 0) is in time. */
SB_API int sb_metric_choose(int asked, const sb_cell *cell, int cache,
                            size_t l2_bytes, const double *clock, size_t n);

/* Why a sample was rejected. */
enum sb_reject_reason {
    SB_REJECT_CTXSW = 0,  /* a context switch happened during the sample */
    SB_REJECT_OUTLIER,    /* removed by the outlier policy */
    SB_REJECT_MIGRATION,  /* the thread moved to another CPU */
    SB_REJECT_INTERRUPT,  /* an interrupt arrived on the pinned CPU */
    SB_REJECT_KERNEL_FAILED, /* a call of the kernel failed
                                (sb_kernel_failed); rejected under every
                                policy */
    SB_REJECT_CPU_WAIT,   /* the thread waited for its CPU (run_delay of
                             /proc/thread-self/schedstat grew) */
    SB_REJECT_SHARED_CORE, /* the contention probe beside it was slower
                              than its quiet level by more than the
                              margin: another thread shared the core */
    SB_REJECT_NREASONS
};

/* The room for reasons in the per-reason arrays of sb_cell_result
 * (rejected, disturbed): a fixed part of the ABI, above
 * SB_REJECT_NREASONS, so that a new reason takes a spare slot and moves
 * no field.  Slots from SB_REJECT_NREASONS on are 0. */
#define SB_REJECT_SLOTS 16

/* Name of a reject reason ("context-switch"). */
SB_API const char *sb_reject_name(int reason);
SB_API int sb_reject_parse(const char *name);

/* Invocations whose probe figures a run's sb_meta keeps one by one. */
#define SB_PROBE_MAX_INV 128

/* Most counters read around a sample.  A capacity fixed for the ABI:
 * sb_meta, sb_cell_result and sb_held_samples hold arrays of it, so
 * raising it is an incompatible change (a new soname). */
#define SB_MAX_COUNTERS 12

/* One counter of one cell: its count per call, the median over samples of
 * (delta / k) with the same kind of interval as the time (invocation level
 * when there are several invocations), and per byte. */
typedef struct sb_counter_result {
    char name[64];          /* as given: "PAPI_TOT_CYC", "perf::PAGE-FAULTS" */
    sb_interval per_call;
    double per_byte;        /* per_call.estimate / size; NAN for size 0 */
} sb_counter_result;

/* What a run measured for one cell.  Owned by the run: the library makes
 * every sb_cell_result, and a caller reads one through the pointer
 * sb_run_cell gives, never declaring, copying or stepping over an array
 * of them (use sb_run_cell for each i).  So a newer library may make the
 * struct longer without harm to a program built with this header, as
 * long as no field that program knows moves.  Hence: fields are only
 * added at the very end, and nothing before the end has a size that can
 * change.  The arrays sized by the header's constants, which were in the
 * middle, come last, and are sized by capacities fixed for the ABI: a new
 * reject reason fills a spare slot of SB_REJECT_SLOTS instead of
 * lengthening rejected and disturbed, which would move every field
 * after them.  tests/test_abi.c holds this order. */
typedef struct sb_cell_result {
    sb_cell cell;
    size_t iters;          /* iterations per sample (calibrated k) */
    size_t nsamples;       /* samples kept */
    double *ticks;         /* nsamples values: timer ticks per iteration,
                              timer overhead subtracted, in measured order */
    size_t rejected_total;
    size_t warmup_samples; /* samples spent warming up (not kept) */
    double calls;          /* kernel calls in all samples taken (kept or
                              rejected: getrusage moves at the timer tick,
                              which is what gets samples rejected) */
    double user_seconds;   /* the thread's user CPU time over them */
    double sys_seconds;    /* the thread's system CPU time over them
                              (getrusage; per call: divide by calls) */
    size_t ncounters;
    int reached_precision; /* 1 when the CI reached the precision target
                              (always 1 with precision 0: no target) */
    sb_summary ticks_summary; /* descriptive statistics of all kept samples
                                 pooled; its median interval treats them as
                                 independent */
    /* Invocations: ticks holds invocation 0's samples, then 1's, ... */
    size_t invocations;    /* processes the samples come from */
    size_t *inv_nsamples;  /* samples kept in each invocation */
    double *inv_median;    /* each invocation's median ticks */
    sb_levels levels;      /* variance components (invocations > 1) */
    /* The interval reported for the median ticks.  With invocations > 1
     * it is over the invocations' medians: their median with the
     * order-statistic interval when there are enough for the level (6 at
     * 95%; robust to one disturbed process), else Student t over them.
     * With one invocation, the order-statistic or bootstrap interval of
     * the samples. */
    sb_interval interval;
    const char *method;    /* how interval was made, static text */
    sb_mad_outliers mad;   /* MAD rule counts (never removed) */
    double lag1;           /* lag-1 autocorrelation (mean over invocations) */
    int autocorrelated;    /* 1 when |lag1| > 0.2: intervals too narrow */
    double mde;            /* smallest relative change detectable against
                              a cell of equal noise, alpha 0.05, power 0.8 */
    /* Derived, in the units a reader wants: */
    sb_interval mbps;      /* median throughput, 1 MB = 10^6 bytes */
    double cycles_per_byte;   /* median ticks / size (TSC cycles) */
    double rel_halfwidth;  /* (hi - lo) / 2 / median of ticks */
    enum sb_metric metric; /* SB_METRIC_TIME or SB_METRIC_CYCLES: what the
                              stop rule, interval and verdicts used
                              (rel_halfwidth, reached_precision and mde are
                              of that metric's interval; interval, mbps and
                              cycles_per_byte stay in time) */
    /* Core cycles per call: the cell interval (as interval) of each kept
     * sample's ticks times its core clock (sb_run_sample_clock), samples
     * without a clock left out; NAN when no sample has one. */
    sb_interval core_cycles;
    double core_cycles_per_byte; /* core_cycles.estimate / size, or NAN
                                    (with its interval: core_per_byte) */
    size_t clock_samples;  /* kept samples with a known core clock */
    /* Runs, in a run merged from several (statbench merge): each run is a
     * level above its invocations.  runs is 0 for a single run. */
    size_t runs;           /* runs with samples of this cell */
    double *run_median;    /* each run's median of its invocation medians
                              (runs values); interval is then over these,
                              by the rule it uses over invocation medians */
    sb_levels run_levels;  /* the invocation medians grouped by run:
                              between_fraction is the between-run share
                              of their variance (runs >= 2) */
    /* Core cycles per byte with their interval: core_cycles divided by
     * the size, estimate and ends alike (the same interval, at the same
     * level, not a second one); NAN without a core clock or for size 0.
     * Its estimate is core_cycles_per_byte. */
    sb_interval core_per_byte;
    /* The arrays.  Samples rejected for each reason, and samples that
     * showed each disturbance, rejected or not (--reject none):
     * SB_REJECT_NREASONS of each in use, the other slots 0. */
    size_t rejected[SB_REJECT_SLOTS];
    size_t disturbed[SB_REJECT_SLOTS];
    sb_counter_result counters[SB_MAX_COUNTERS]; /* ncounters in use */
    /* Fields added later go here, after everything above. */
} sb_cell_result;

/* Where a comparison's variation between runs comes from.  Two cells of
 * one run share its runs (SAME_RUN: paired, the run level cancels); two
 * merged runs hold it in their run medians (RUNS); a single run against
 * a side merged from several runs takes it from those runs (BASELINE);
 * a single run against a single run can only be told it (GIVEN,
 * sb_analysis_options.run_sd) or assume it (ASSUMED, SB_RUN_SD_ASSUMED). */
enum sb_run_level {
    SB_RUN_LEVEL_SAME_RUN = 0,
    SB_RUN_LEVEL_RUNS,
    SB_RUN_LEVEL_BASELINE,
    SB_RUN_LEVEL_GIVEN,
    SB_RUN_LEVEL_ASSUMED
};
/* "same-run", "runs", "baseline-runs", "given", "assumed"; "?" if
 * unknown.  _parse: the level of a name, -1 if unknown. */
SB_API const char *sb_run_level_name(int level);
SB_API int sb_run_level_parse(const char *name);

/* A comparison of one cell against a baseline cell.  The library fills
 * it in the caller's memory (sb_compare_functions, sb_gate: set size
 * first, see the conventions above) and in a run's (sb_run_comparison,
 * with the library's size); sb_gate_judge and sb_comparison_regressed
 * read one of a known size.  A comparison of the caller's own making
 * starts {.size = sizeof(sb_comparison), ...}. */
typedef struct sb_comparison {
    size_t size;           /* sizeof(sb_comparison) as the caller compiled
                              it, or the library's in a run's */
    int valid;             /* 0: this cell has no baseline */
    size_t base;           /* index of the baseline cell (in its run) */
    sb_interval ratio;     /* median time of the cell / of the baseline:
                              below 1 the cell is faster */
    double p;              /* two-sided p of the test named in test */
    double p_adjusted;     /* Holm-adjusted over the run's comparisons */
    double a12;            /* P(cell sample > baseline sample), ties half
                              (sample level; NAN at the invocation level) */
    double mde;            /* smallest relative effect detectable here,
                              at 80% power, by the interval used */
    enum sb_verdict verdict;
    const char *test;      /* static text naming the test */
    enum sb_run_level run_level; /* where the variation between runs in
                              ratio and p came from */
    double run_sd;         /* the run-to-run sd (relative) added to the
                              within-run spread: SB_RUN_LEVEL_GIVEN or
                              _ASSUMED; the one estimated from the
                              baseline's runs for _BASELINE; NAN else */
    int withheld;          /* 1: the verdict was taken away, since a run
                              was measured on a shared core (its figures
                              judge the neighbour): INCONCLUSIVE whatever
                              the ratio and p say */
    double shared_bound;   /* a comparison within one run measured on a
                              shared core: the factor by which the
                              sharing could have moved this ratio
                              (sb_meta.profile_bound), beyond which its
                              faster or slower verdict was kept (withheld
                              0); NAN: no shared core, or no bound */
} sb_comparison;

/* One finding of the environment audit. */
typedef struct sb_env_item {
    char key[32];          /* "governor", "turbo", "smt-sibling", ... */
    char value[128];       /* what was found */
    int warn;              /* 1: it can disturb or bias measurements */
    char advice[192];      /* what to do about it (empty when fine) */
} sb_env_item;

#define SB_ENV_MAX 24

/* The environment audit of a run: CPU frequency governor and scaling
 * driver, turbo/boost, a busy SMT sibling, a virtual machine,
 * nohz_full/isolcpus, load average, transparent huge pages, ASLR.
 * Filled by the library in the caller's memory: set size first (see the
 * conventions above).  n never exceeds the items the caller's size
 * holds. */
typedef struct sb_env {
    size_t size;           /* sizeof(sb_env), set by the caller */
    size_t n;
    sb_env_item items[SB_ENV_MAX];
} sb_env;

/* Audit the machine for the CPU the run will pin to (-1: none).  Takes
 * about 100 ms (it samples the SMT sibling's load).
 *     sb_env env = {.size = sizeof env};
 *     rc = sb_env_audit(cpu, &env, &err);
 * What cannot be read is reported as unknown, not as an error: the only
 * errors are SB_EINVAL for a NULL out or an unknown out->size (out
 * untouched). */
SB_API int sb_env_audit(int cpu, sb_env *out, sb_error *err);

/* The CPU a run pins to when sb_measure_options.cpu is -1: the last
 * isolated CPU (isolcpus=) that is online, else the last CPU this process
 * may use; -1 when there is none.  For sb_env_audit of the CPU a run
 * would use. */
SB_API int sb_cpu_default(void);

/* One cache level of the CPU a run was pinned to. */
#define SB_MAX_CACHES 8
typedef struct sb_cache_size {
    char label[8]; /* "L1d", "L2", "L3" */
    size_t bytes;
} sb_cache_size;

/* Room in sb_meta for its embedded sb_timer_info and sb_env: capacities
 * fixed for the ABI, larger than either struct, so that a field added to
 * one of them (or a larger SB_ENV_MAX that still fits) moves no field of
 * sb_meta.  The library checks at build time that each struct fits. */
#define SB_META_TIMER_ROOM 512
#define SB_META_ENV_ROOM 16384

/* Metadata of a run: where and how it was measured.  Owned by the run
 * (sb_run_meta, sb_run_run_meta), read through the pointer an accessor
 * gives, never declared, copied or stepped over by a caller.  It grows at
 * its end only, and size says how far: a program built with a newer
 * header reads a field added later only when
 * offsetof(sb_meta, field) < m->size.  Nothing before the end has a size
 * that can change: the arrays sized by the header's constants
 * (SB_MAX_COUNTERS, SB_PROBE_MAX_INV, SB_MAX_CACHES) and the embedded
 * sb_timer_info and sb_env come last, the two structs each in a room of
 * its own (SB_META_TIMER_ROOM, SB_META_ENV_ROOM).  Raising one of those
 * constants is an incompatible change (a new soname); a field added to
 * sb_timer_info or sb_env within its room is not.  tests/test_abi.c
 * holds this order. */
typedef struct sb_meta {
    size_t size;           /* sizeof(sb_meta) of the library that made it */
    char cpu_model[128];
    char kernel_version[256]; /* uname -s, -r and -m */
    char hostname[64];
    char statbench_version[32];
    char start_time[32];   /* ISO 8601, UTC */
    unsigned cpu_features; /* SB_FEAT_* */
    int cpu;               /* CPU pinned to, or -1 */
    char pin_note[256];    /* why that CPU / why not pinned */
    char counters[512];    /* the counter backend, the counters in use
                              and why any asked for are missing */
    size_t ncounters;      /* counters read around every sample, named
                              in counter_names (below) */
    double interrupts_per_second; /* on the pinned CPU while measuring */
    double check_cost_seconds;    /* per sample: the disturbance checks and
                                     counter reads, outside the timed
                                     region */
    char notes[4096];      /* warnings of the run: "--rt: no privilege for
                              SCHED_FIFO", ... one per line, each whole;
                              a last line says when later ones were
                              dropped */
    size_t l2_bytes;       /* the L2 cache of the pinned CPU (sysfs), which
                              SB_METRIC_AUTO compares the buffers with;
                              0: unknown (no cell is then cache-resident) */
    /* The probes beside every sample (probe.c; README, "The probes").
     * Clocks are core cycles per timer tick; NAN where unknown. */
    char probe[32];        /* the core clock's source: "pmu"
                              (PAPI_TOT_CYC), "imul-chain" or "none" */
    char probe_note[256];  /* the start-up check's result, or why there
                              is no clock probe (refused, no x86-64) */
    double probe_ratio;    /* imul / add chain latency at start-up (3
                              expected) */
    size_t probe_chain_ops; /* imul ops timed before and after a sample */
    size_t probe_ldst_reps; /* reps of the contention probe per sample */
    double probe_cost_share; /* probe ticks over timed ticks */
    double probe_clock;    /* effective clock: the median of the samples'
                              clocks (a run: the median over invocations) */
    double probe_clock_min, probe_clock_max; /* over the invocations */
    double contention_quiet;  /* the contention probe's quiet level: the
                                 median of its lowest dense mode, core
                                 cycles per rep
                                 (ticks per rep without a clock) */
    double contention_margin; /* contended beyond quiet * (1 + margin) */
    double contended_share;   /* of samples taken: flagged shared-core */
    double cpu_wait_share;    /* of samples taken: flagged cpu-wait */
    double shared_wait_seconds; /* spent waiting for the contention probe
                                   to read quiet again after a sample on
                                   a shared core (a run: the sum over its
                                   invocations); NAN: no contention
                                   probe */
    size_t probe_ninv;     /* invocations in probe_inv_clock and
                              probe_inv_quiet (below) */
    /* The host profile's key and figures, and its verdict on the run
     * (sb_profile_*; README, "The host profile").  A file saved before
     * them loads with "", NAN and 0: unknown, never judged. */
    char contention_probe[32]; /* the contention probe's pattern ("" none):
                                  a quiet level is a figure of one pattern
                                  at one probe_ldst_reps */
    double reference_cycles;   /* core cycles per call of a hot 4 KiB libc
                                  memcpy timed at each invocation's
                                  start-up (the median over invocations);
                                  NAN unknown */
    char microcode[32];        /* /proc/cpuinfo's microcode revision, ""
                                  unknown */
    size_t online_cpus;        /* online CPUs (sysfs); 0 unknown */
    char profile[256];         /* the profile's verdict on the run, the
                                  header's one line; "" not judged */
    int profile_shared;        /* 1: the run's figures sat above the host
                                  profile's by more than its margin, so
                                  it was measured on a shared core: its
                                  verdicts are inconclusive, but for those
                                  within the run whose interval lies
                                  beyond profile_bound */
    /* A run the host profile found on a shared core: how far the sharing
     * could have moved a ratio of two of its cells, as a factor: 1 + the
     * contention probe's excess over the profile's quiet level (the probe
     * is slowed by a neighbour more than any kernel it was recorded
     * beside).  NAN: not found shared, or no probe figure to bound it. */
    double profile_bound;
    size_t ncaches;        /* caches in caches (below); 0: unknown (a
                              file saved before them, another tool's
                              data) */
    /* The arrays and the embedded structs, last.  The timer and the
     * environment audit carry the library's size in their size fields. */
    union {
        sb_timer_info timer;
        unsigned char timer_room_[SB_META_TIMER_ROOM];
    };
    union {
        sb_env env;        /* the environment audit */
        unsigned char env_room_[SB_META_ENV_ROOM];
    };
    char counter_names[SB_MAX_COUNTERS][64]; /* ncounters in use */
    /* Per invocation, in order (the first SB_PROBE_MAX_INV, probe_ninv in
     * use): its effective clock and its contention probe's quiet level.
     * Every invocation's: sb_run_invocation_clock and _quiet. */
    double probe_inv_clock[SB_PROBE_MAX_INV];
    double probe_inv_quiet[SB_PROBE_MAX_INV];
    /* The data and unified caches of the pinned CPU (sysfs), smallest
     * first, as measured (ncaches in use): a figure of sizes marks them
     * wherever it is drawn. */
    sb_cache_size caches[SB_MAX_CACHES];
    /* Fields added later go here, after everything above. */
} sb_meta;

/* Check a plan and its measure options m (NULL: the defaults) before
 * measuring: options in range, every kernel available on this CPU, the
 * CPU to pin to allowed, buffers that fit in memory (at most half of the
 * physical memory).  Returns SB_OK, or SB_EINVAL / SB_EUNAVAIL with a
 * message naming the bad value.  sb_run_execute_new() runs the same
 * checks, after sb_analysis_options_check() on its analysis options. */
SB_API int sb_plan_check(const sb_plan *plan, const sb_measure_options *m,
                         sb_error *err);

typedef struct sb_run sb_run;

/* Measure every cell of plan with the measure options m towards the
 * precision target of the analysis options a, which the run then keeps
 * (either NULL: the defaults).  On success *out is a new run the
 * caller frees with sb_run_free().  A run stopped by m->progress,
 * m->stop or sb_run_request_stop() still succeeds, with
 * sb_run_interrupted() true and every sample taken so far; so does one
 * whose forked invocation died after others had finished
 * (sb_run_partial() says which and how).  A successful run may still hold
 * cells without samples: check sb_run_empty_cells().  Runs may execute in
 * several threads at once.  Errors: SB_EINVAL (empty plan, bad option, or
 * a plan that cannot fit in m->max_time: the first invocation times one
 * sample of every cell before it measures, and the message says how long
 * the plan needs),
 * SB_EUNAVAIL (a kernel this CPU cannot run), SB_ENOMEM, SB_ESYS. */
SB_API int sb_run_execute_new(const sb_plan *plan,
                              const sb_measure_options *m,
                              const sb_analysis_options *a, sb_run **out,
                              sb_error *err);

/* Ask every run executing in this process (in any thread, and in its
 * forked invocations, to which the run passes the request on within
 * 20 ms) to stop after its current sample.  A run that
 * starts afterwards is not affected: the request is for the runs in
 * progress.  Async-signal-safe: meant for a SIGINT handler.  To stop one
 * run only, use its sb_measure_options.stop or its progress callback. */
SB_API void sb_run_request_stop(void);

SB_API void sb_run_free(sb_run *run);
SB_API size_t sb_run_count(const sb_run *run);
SB_API const sb_cell_result *sb_run_cell(const sb_run *run, size_t i);
SB_API const sb_meta *sb_run_meta(const sb_run *run);
/* The options the run was measured with, and those it is analysed with
 * (sb_run_reanalyse changes the latter).  A loaded run's are as saved,
 * with the defaults for what a file does not hold; a run of samples
 * measured elsewhere has the default measure options. */
SB_API const sb_measure_options *sb_run_measure_options(const sb_run *run);
SB_API const sb_analysis_options *sb_run_analysis_options(const sb_run *run);
SB_API int sb_run_interrupted(const sb_run *run);
/* Why the run stopped early when nobody asked it to: "" when it did not;
 * else one line such as "invocation 3 died with signal 9 (Killed)" (a
 * forked invocation killed or ended by exit() before it sent its data).
 * Such a run keeps the invocations that finished and is marked
 * interrupted; the line is also in sb_meta.notes. */
SB_API const char *sb_run_partial(const sb_run *run);
/* The cells of run without a single kept sample: every sample rejected
 * (a kernel whose calls failed, a CPU busy with other work), or none
 * taken before the run stopped.  Their figures are NAN: a caller must
 * treat them as a failure, never as a result.  0 for a complete run. */
SB_API size_t sb_run_empty_cells(const sb_run *run);
SB_API double sb_run_elapsed(const sb_run *run);  /* seconds measuring */
SB_API size_t sb_run_rounds(const sb_run *run);
/* Invocations (processes) that delivered data. */
SB_API size_t sb_run_invocations(const sb_run *run);
/* 1 when the run was made by sb_run_from_samples_new (analyze): samples
 * measured elsewhere, in their own unit, with no machine, sizes or
 * offsets. */
SB_API int sb_run_imported(const sb_run *run);

/* The per-sample values of counter j (0 .. sb_meta.ncounters - 1, named in
 * sb_meta.counter_names) of cell i: nsamples values, each the sample's
 * count divided by its calls (delta / k; delta less the count of an empty
 * sample, as for the timer: the reads' own cycles and instructions for
 * hardware counters, 0 for software events), in the order of
 * sb_cell_result.ticks and with the same outliers removed; NAN where an
 * invocation could not read the counter.  Owned by the run.  NULL for a
 * bad i or j. */
SB_API const double *sb_run_counter_samples(const sb_run *run, size_t i,
                                            size_t j);

/* The disturbances each kept sample of cell i showed: nsamples bytes, bit
 * (1u << r) set for reject reason r (SB_REJECT_CTXSW, SB_REJECT_MIGRATION,
 * SB_REJECT_INTERRUPT).  Under SB_REJECT_DISTURBED disturbed samples are
 * rejected, so the bytes are 0, but for the interrupt bit in cells whose
 * samples are too long to dodge interrupts (more than half of them would
 * see one; sb_meta.notes says how many cells): those keep such samples.
 * Under SB_REJECT_NONE they tell which kept samples were disturbed.  Owned
 * by the run.  NULL for a bad i. */
SB_API const unsigned char *sb_run_sample_flags(const sb_run *run,
                                                size_t i);

/* The core clock around each kept sample of cell i: nsamples values, in
 * core cycles per timer tick (a sample's core cycles are its ticks times
 * this), NAN where no core clock could be had (no PMU and no usable clock
 * probe, or a run saved without one).  Owned by the run.  NULL for a bad
 * i, or a cell without samples. */
SB_API const double *sb_run_sample_clock(const sb_run *run, size_t i);

/* The probes timed beside every sample, as read: SB_PROBE_READINGS
 * values per sample, in this order: the imul clock chain before and after
 * the sample, in timer ticks per imul, and the contention probe before and
 * after it, in timer ticks per repetition, each with the timer's overhead
 * taken off; NAN where a probe was not read. */
#define SB_PROBE_READINGS 4
enum {
    SB_PROBE_CHAIN_BEFORE,
    SB_PROBE_CHAIN_AFTER,
    SB_PROBE_CONTENTION_BEFORE,
    SB_PROBE_CONTENTION_AFTER
};

/* The probe readings of each kept sample of cell i, SB_PROBE_READINGS
 * per sample, in the order of sb_cell_result.ticks.  Owned by the run.
 * NULL for a bad i, a cell without samples, or a run without readings (an
 * imported run, a file saved before they were kept). */
SB_API const double *sb_run_sample_probes(const sb_run *run, size_t i);

/* The samples of cell i the run's decision rejects for a shared core
 * alone (counted in rejected[SB_REJECT_SHARED_CORE]), which the run keeps
 * so that an analysis can decide again (sb_analysis_options'
 * shared_margin).  Arrays of n values, owned by the run, valid until the
 * next sb_run_reanalyse: their ticks, disturbance flags, core clocks (or
 * NULL), probe readings (SB_PROBE_READINGS each, or NULL) and counter j's
 * values (counters[j] for j below sb_meta.ncounters, NULL where none);
 * invocation_samples[g] of them belong to invocation g (of the cell's
 * invocations), and at[q] is held sample q's place among the samples its
 * invocation recorded, kept and held, in the order measured.  The
 * struct is filled by the library in the caller's memory: set size first
 * (see the conventions above). */
typedef struct sb_held_samples {
    size_t size;           /* sizeof(sb_held_samples), set by the caller */
    size_t n;
    const double *ticks;
    const unsigned char *flags;
    const double *clock;
    const double *probes;
    const size_t *invocation_samples;
    const size_t *at;
    const double *counters[SB_MAX_COUNTERS];
} sb_held_samples;
/* Fill *out with cell i's held samples (n 0: none):
 *     sb_held_samples h = {.size = sizeof h};
 *     rc = sb_run_held_samples(run, i, &h, &err);
 * SB_EINVAL for a bad i, a NULL or an unknown out->size (out
 * untouched). */
SB_API int sb_run_held_samples(const sb_run *run, size_t i,
                               sb_held_samples *out, sb_error *err);

/* The split of sorted invocation clocks into states (clock levels): a new
 * state starts where a clock exceeds the one below it by more than this
 * share.  The hosts seen step a vCPU's clock by 3.5-3.8%; a clock probe
 * scatters by about 0.1%. */
#define SB_CLOCK_STATE_GAP 0.015

/* The core clock seen over a run, for the header's clock line.  An
 * invocation's effective clock is the median of the known clocks of its
 * kept samples, every cell's together, times the timer's rate.  Filled
 * by the library in the caller's memory: set size first (see the
 * conventions above). */
typedef struct sb_clock_summary {
    size_t size;        /* sizeof(sb_clock_summary), set by the caller */
    size_t invocations; /* invocations with a known clock */
    size_t total;       /* invocations that delivered samples */
    double lo_hz, hi_hz; /* the slowest and fastest of them; NAN without */
    size_t states;      /* distinct levels among them (SB_CLOCK_STATE_GAP) */
    double median_hz;   /* the median of them: the run's core clock
                           (sb_run_core_clock); NAN without */
} sb_clock_summary;

/* Fill *out for run:
 *     sb_clock_summary c = {.size = sizeof c};
 *     rc = sb_run_clock(run, &c, &err);
 * SB_EINVAL for a NULL argument or an unknown out->size (out untouched),
 * SB_ENOMEM. */
SB_API int sb_run_clock(const sb_run *run, sb_clock_summary *out,
                        sb_error *err);

/* The counters a run would read by default on this machine, for a
 * listing: the hardware presets (PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM,
 * PAPI_L2_DCM, PAPI_TLB_DM), then the software events read always
 * (perf::CONTEXT-SWITCHES, perf::CPU-MIGRATIONS, perf::PAGE-FAULTS).
 * Fills names[i] and why[i] for the first max of them (either array may
 * be NULL): why[i] is "" when the counter can be read in this thread, else
 * the reason it cannot ("PAPI: Component containing event is disabled
 * (...)", "perf_event_open: Permission denied (...)").  Returns how many
 * counters there are (8), which may exceed max.  Opens and closes the
 * counters once (about a millisecond); never prints, cannot fail (0 only
 * when out of memory). */
SB_API size_t sb_counters_available(char names[][64], char why[][96],
                                    size_t max);

/* Compare each cell i with cell base[i] of the same run (SIZE_MAX: no
 * baseline), then Holm-adjust the p-values over all comparisons and give
 * verdicts at the alpha and threshold of the run's analysis options.  With
 * several invocations the test is paired over invocations (both cells were
 * measured in each); with one, the ratio's interval is a BCa bootstrap and
 * the p-value Mann-Whitney's.  Replaces earlier comparisons.  SB_EINVAL,
 * SB_ENOMEM. */
SB_API int sb_run_set_baselines(sb_run *run, const size_t *base,
                                sb_error *err);

/* Compare every cell of run with a baseline cell of the same run: the
 * same cell (size and offsets) of the kernel named kernel or, when kernel
 * is NULL, the same kernel's cell at source offset src_align (statbench
 * --baseline KERNEL or align=N); then as above.  Cells without such a
 * cell get no comparison.  *matched (optional): the cells that found one,
 * a cell that is its own baseline included; with none, nothing is
 * compared. */
SB_API int sb_run_baseline_by(sb_run *run, const char *kernel,
                              size_t src_align, size_t *matched,
                              sb_error *err);

/* Whether a and b are the same cell to compare: the same kernel name,
 * size and offsets (what sb_run_compare_to matches). */
SB_API int sb_cell_same(const sb_cell *a, const sb_cell *b);

/* Compare every cell of run with the cell of before that has the same
 * kernel name, size and offsets (unpaired: separate runs), then as above.
 * Cells without a match get no comparison.  When one of the two runs was
 * measured on a shared core throughout (sb_run_contention_differ, or
 * sb_meta.profile_shared: the host profile said so), every
 * verdict is SB_VERDICT_INCONCLUSIVE: the ratios stand, but they judge
 * the neighbour as much as the code.  Returns SB_OK and the number of
 * matched cells in *matched (optional); SB_EINVAL when one run holds
 * imported samples (sb_run_imported) and the other measured times. */
SB_API int sb_run_compare_to(sb_run *run, const sb_run *before,
                             size_t *matched, sb_error *err);

/* Merge n >= 2 runs of one plan into *out, a run whose runs are a level
 * above its invocations (statbench merge): every invocation is kept,
 * tagged with its run (sb_run_invocation_run), each run's metadata is
 * kept (sb_run_run_meta: its host, CPU, start time), and each cell's
 * interval is over its runs' medians (sb_cell_result.runs, run_median,
 * run_levels).  Cells are matched as sb_cell_same does; times of a run
 * whose timer ran at another rate are converted to the first run's.
 * What differs between the runs and can still be merged (another host,
 * CPU model, kernel, statbench, timer rate, counter set, reject policy, a
 * cell missing from some runs) is written to warnings (optional, len
 * bytes), one line each.  SB_EINVAL, with a message naming the
 * difference, for runs that are not one measurement: no cell in every
 * run, measured and imported samples mixed, hot and cold caches, a run
 * already merged; SB_ENOMEM. */
SB_API int sb_run_merge_new(const sb_run *const *runs, size_t n, sb_run **out,
                            char *warnings, size_t len, sb_error *err);
/* The runs a merged run holds (0 for a single run), the metadata of run
 * r (NULL for a bad r or a single run), and the run invocation g came
 * from (0 for a single run). */
SB_API size_t sb_run_runs(const sb_run *run);
SB_API const sb_meta *sb_run_run_meta(const sb_run *run, size_t r);
SB_API size_t sb_run_invocation_run(const sb_run *run, size_t g);

/* The probes' figures of every invocation, g from 0 in order (sb_meta's
 * probe_inv_clock and probe_inv_quiet keep only the first
 * SB_PROBE_MAX_INV): its effective core clock, in core cycles per timer
 * tick (the median of its samples' clocks), and its contention probe's
 * quiet level (as sb_meta.contention_quiet).  NAN where unknown or for a
 * bad g.  sb_run_invocation_probes gives how many invocations have them
 * (0: a run without probes, such as one of sb_run_from_samples_new). */
SB_API size_t sb_run_invocation_probes(const sb_run *run);
SB_API double sb_run_invocation_clock(const sb_run *run, size_t g);
SB_API double sb_run_invocation_quiet(const sb_run *run, size_t g);

/* The core clock of a run, in core cycles per timer tick: the median
 * over its invocations of each invocation's median clock (over the
 * samples of all its cells, sb_run_sample_clock).  NAN when no sample has
 * one. */
SB_API double sb_run_core_clock(const sb_run *run);

/* Relative difference of two runs' core clocks above which they ran at
 * different clocks: under half the 3.5% of one clock step of the hosts
 * measured on shared VMs, above the few tenths of a percent one run's clock
 * moves. */
#define SB_CLOCK_DIFFER 0.015

/* 1 when runs a and b both have a core clock (sb_run_core_clock) and
 * those differ by more than SB_CLOCK_DIFFER, else 0.  *ghz_a and *ghz_b
 * (optional) receive the clocks in GHz (NAN: unknown).  Then a
 * comparison in time of cache-resident code measures the clock as much
 * as the code; cells both runs judged in core cycles are compared in
 * cycles (sb_run_compare_to). */
SB_API int sb_run_clocks_differ(const sb_run *a, const sb_run *b,
                                double *ghz_a, double *ghz_b);

/* 1 when runs a and b, of the same CPU model, both have a core clock and
 * a contention probe, and the quiet level of one
 * (sb_meta.contention_quiet, in core cycles per repetition) lies above
 * the other's by more than the contention margin
 * (sb_meta.contention_margin, a's when it has one), else 0.  *quiet_a and
 * *quiet_b (optional) receive the levels (NAN: unknown).  The quiet level
 * is a property of the core: a run whose every invocation was on a core
 * shared with another tenant has it high throughout, which nothing inside
 * that run can tell (its own level is the contended one), and its
 * figures are the shared core's, not the core's.  Between two runs it
 * shows: compare, --against and merge say which run was louder, and
 * sb_run_compare_to's verdicts are inconclusive. */
SB_API int sb_run_contention_differ(const sb_run *a, const sb_run *b,
                                    double *quiet_a, double *quiet_b);

/* The comparison of cell i, or NULL when it has none. */
SB_API const sb_comparison *sb_run_comparison(const sb_run *run, size_t i);

/* Read a run written with SB_FORMAT_JSON (schema statbench-run, version
 * 1).  Kernels are known by name: cells of kernels this build lacks get a
 * stand-in that cannot be measured.  Statistics are recomputed from the
 * raw samples; a (NULL: as saved) supplies the analysis options, and
 * the measure options stay as saved (a file without "metric" is auto, without
 * "samples_clock" has every clock unknown).  The saved samples are those
 * the saved outlier policy kept: with a NULL the policy is not applied
 * again.  Loading with a gives the statistics of loading with NULL and
 * then sb_run_reanalyse with a.
 * SB_EIO for a file that is not JSON, not a statbench run, of a newer
 * schema, or missing fields, with a message naming what is wrong. */
SB_API int sb_run_load_new(FILE *f, const char *name,
                           const sb_analysis_options *a, sb_run **out,
                           sb_error *err);

/* Recompute every statistic of run from its samples with the analysis
 * options a, as if it had been measured (or loaded) with them: the
 * outlier policy starts again from the samples as measured (or as
 * loaded), the intervals, the precision flags and the diagnostics are
 * new, and the comparisons are dropped (compare again with
 * sb_run_compare_to or sb_run_set_baselines).  sb_run_analysis_options
 * then shows a.  SB_EINVAL for a bad a (run unchanged), SB_ENOMEM. */
SB_API int sb_run_reanalyse(sb_run *run, const sb_analysis_options *a,
                            sb_error *err);

/* A run made from samples measured elsewhere: m cells named names[i],
 * each with n[i] values values[i] (ticks, or any unit: size 0 and hz 1),
 * analysed with a (NULL: the defaults) as one invocation; seed is the
 * run's seed (sb_measure_options.seed of a measured run: 1 by default),
 * which seeds its bootstraps (a->bootstrap, and the comparisons of
 * sb_run_set_baselines).  SB_EINVAL for empty or non-finite data, or a
 * NULL names[i] or values[i]. */
SB_API int sb_run_from_samples_new(const char *const *names,
                                   const double *const *values,
                                   const size_t *n, size_t m,
                                   const sb_analysis_options *a,
                                   uint64_t seed, sb_run **out,
                                   sb_error *err);

/* One set of samples of sb_run_from_sets_new: the cell name with n
 * values (any finite unit, as sb_run_from_samples_new's), invocation 0's
 * first, split into invocations by invocation_samples (ninvocations
 * counts adding up to n; NULL: one invocation of all n), and per value
 * the run's ncounters counters, counters[s * ncounters + j] the value of
 * counter_names[j] beside value s (NULL: none, every one NAN).  The
 * arrays stay the caller's: the run copies them. */
typedef struct sb_sample_set {
    const char *name;
    const double *values;
    size_t n;
    const size_t *invocation_samples;
    size_t ninvocations;
    const double *counters;
} sb_sample_set;

/* A run made from m sets of samples measured elsewhere, as
 * sb_run_from_samples_new's, where each set may come from several
 * invocations: a cell's interval is then over its invocations' medians,
 * and two cells of as many invocations compare paired, invocation g
 * with invocation g (sb_run_set_baselines: "paired t on log invocation
 * medians"), which is what samples taken side by side in rounds need.
 * ncounters (at most SB_MAX_COUNTERS) per-sample figures named
 * counter_names (distinct, each of 1 to 63 bytes) get their intervals as
 * a measured run's counters do; unit (at most 15 bytes, "ms"; NULL or
 * "": the values' own) is what the reports call the values
 * (sb_run_unit); notes (NULL: none) are lines of the run's notes, '\n'
 * between them, cut at what sb_meta.notes holds.  SB_EINVAL for what
 * sb_run_from_samples_new refuses, counts that do not add up, or a bad
 * counter name or unit; SB_ENOMEM. */
SB_API int sb_run_from_sets_new(const sb_sample_set *sets, size_t m,
                                const char *const *counter_names,
                                size_t ncounters, const char *unit,
                                const char *notes,
                                const sb_analysis_options *a, uint64_t seed,
                                sb_run **out, sb_error *err);

/* ---- Files of other benchmark tools ------------------------------------
 *
 * sb_run_import_new reads a JSON document: a statbench run (as
 * sb_run_load_new) or the file of another tool, each a run of imported
 * samples (sb_run_imported) in the tool's own unit (sb_run_unit):
 *  - SB_IMPORT_GBENCH: Google Benchmark's --benchmark_format=json (or
 *    --benchmark_out): each benchmark (its run_name) a cell, each of its
 *    iteration rows (one per repetition) an invocation of one sample, its
 *    real_time per iteration (cpu_time with SB_IMPORT_GBENCH_CPU_TIME) in
 *    its time_unit; aggregate rows (mean, median, stddev, cv) and rows
 *    with error_occurred are skipped, and the notes say how many;
 *  - SB_IMPORT_HYPERFINE: hyperfine's --export-json: each command a cell,
 *    its times one invocation of samples in seconds;
 *  - SB_IMPORT_PYPERF: pyperf's JSON (version 1.0): each benchmark a
 *    cell, each run with values (a worker process) an invocation, in
 *    seconds (or the file's unit); calibration runs without values and
 *    warm-ups are skipped.
 * The tool's version, host, CPU and date go into sb_meta where it has a
 * field and into the notes otherwise.  format SB_IMPORT_AUTO tells the
 * kind from the document's keys and refuses one that is none, or could
 * be two, naming it; SB_IMPORT_NUMBERS is the caller's (statbench
 * analyze reads those) and refused here.  *found (may be NULL) is the
 * kind read.  a (NULL: the defaults; a statbench run: as saved) and seed
 * as sb_run_from_sets_new's.  SB_EIO naming the file and the field for a
 * document that is not what its kind writes (a wrong type, a time that is
 * not positive, a cell named twice, more than 100,000 cells or
 * 10,000,000 values); SB_EINVAL for bad arguments; SB_ENOMEM.  A tool's
 * file that can seek is read once, its benchmarks or results left on
 * disk and parsed one at a time (memory of one element, not of the
 * file); f is then left at an unspecified place.  A pipe or a statbench
 * run is read whole, from where f stands. */
enum sb_import_format {
    SB_IMPORT_AUTO = 0,
    SB_IMPORT_STATBENCH,
    SB_IMPORT_NUMBERS,
    SB_IMPORT_GBENCH,
    SB_IMPORT_HYPERFINE,
    SB_IMPORT_PYPERF
};
SB_API const char *sb_import_format_name(int format);
SB_API int sb_import_format_parse(const char *name);

/* sb_run_import_new's flags: Google Benchmark's cpu_time, not real_time. */
#define SB_IMPORT_GBENCH_CPU_TIME 1u
/* The most values sb_run_import_new reads from one file. */
#define SB_IMPORT_MAX_VALUES 10000000

SB_API int sb_run_import_new(FILE *f, const char *name, int format,
                             unsigned flags, const sb_analysis_options *a,
                             uint64_t seed, int *found, sb_run **out,
                             sb_error *err);
/* ---- Whole commands, in interleaved rounds ----------------------------
 *
 * sb_command_run_new times whole commands (programs, or shell command
 * lines) as statbench cmd does: each round runs every command once, in a
 * fresh random order drawn from seed alone, so that what the host does
 * meanwhile lands on every command alike, and the runs of one round are
 * compared paired (randomized multiple interleaved trials, Abedi and
 * Brecht, ICPE 2017).  A command is a cell; a round one invocation of it
 * with one sample: its wall time in milliseconds from before the spawn to
 * the return of wait4, beside six counters from the child's rusage
 * ("rusage::user-ms", "rusage::system-ms", "rusage::voluntary-cs",
 * "rusage::involuntary-cs", "rusage::minor-faults",
 * "rusage::major-faults").  The run is an imported one (sb_run_imported,
 * in sb_run_unit "ms"): every interval, ratio and verdict is computed as
 * for sb_run_from_sets_new's, with the machine's name, CPU and start time
 * in its sb_meta and how the commands ran in its notes.
 *
 * Each command runs with stdin from /dev/null, its stdout and stderr to
 * /dev/null unless show_output, every signal at its default and none
 * blocked, the caller's environment, in a process group of its own: a
 * stop and the deadline reach what it starts too (a pipeline, a daemon
 * that keeps the group).  The call waits in poll(2) on a pidfd (Linux
 * 5.3 and later; before that, waitid polled every 0.1 ms, which the notes
 * say), installs no signal handler, uses no timer signal and no global
 * state: several may run in several threads (each forks its commands
 * from the calling thread; see "Forks" above). */
#define SB_MAX_COMMANDS 64

typedef struct sb_command_options {
    size_t size;      /* sizeof(sb_command_options), set by
                         sb_command_options_init */
    /* The commands, 1 to SB_MAX_COMMANDS distinct non-empty strings: each
     * run by the shell (shell -c COMMAND, the command one word of its own,
     * never pasted into another command line) or, with no_shell, split
     * into words (blanks between them; '...' as it is; "..." with \" and
     * \\; \ outside quotes takes the next character) and the first word
     * found in $PATH (or a path with a '/').  Without a shell, a character
     * only a shell understands (| & ; < > ( ) $ ` * ? [ newline, and ~ or #
     * starting a word) is refused, never passed on literally. */
    const char *const *commands;
    size_t ncommands;
    /* Optional: the cells' names, one per command (NULL: each command's
     * text), distinct and non-empty. */
    const char *const *names;
    /* Optional: a command run, untimed, before each run of a command
     * (warm-up and timed): nprepare 1 (the same before every command) or
     * ncommands (one each); 0 for none. */
    const char *const *prepare;
    size_t nprepare;
    /* The shell, as words (split as no_shell splits a command); NULL:
     * "/bin/sh".  With a shell, the run has one more cell, "(shell
     * start-up)": the shell running '' in the same rounds, what its
     * start alone costs (never subtracted). */
    const char *shell;
    int no_shell;
    int show_output;    /* 1: the commands' stdout and stderr are the
                           caller's (flushed first); default 0 */
    int ignore_failure; /* 1: a run that exits non-zero or dies of a
                           signal is kept and counted in the notes; 0
                           (default): SB_ECOMMAND */
    size_t runs;        /* rounds to run; 0: 20 */
    size_t warmup;      /* untimed runs of each command first; default 0 */
    /* The budget, in seconds from the start, warm-up included (default
     * 30, as sb_measure_options'): the rounds stop after a whole round
     * when the next, as long as the mean round so far, would end past
     * it, never before two rounds.  At max(1.2 max_time, max_time + 2 s)
     * the command still running is killed with its process group and its
     * round dropped: the whole rounds before it are the run. */
    double max_time;
    uint64_t seed;      /* the round orders; default 1 */
    /* The index of the command the others are compared with (paired by
     * round: sb_run_set_baselines); SIZE_MAX for none.  Default 0.
     * Ignored for one command; the shell's row never has a baseline. */
    size_t baseline;
    /* Optional: called before each timed round (round from 1, of rounds,
     * elapsed seconds since the start); a non-zero return stops the
     * rounds there, as a stop does. */
    int (*progress)(void *arg, size_t round, size_t rounds, double elapsed);
    void *progress_arg;
    /* Optional: when *stop becomes non-zero (a signal handler's store),
     * the rounds stop, within 0.1 s: the command under way gets signal
     * *stop in its group when *stop is a signal number, else SIGTERM (and
     * SIGKILL 1 s later if it has not ended), and its round is dropped.  sb_run_request_stop() does the same (with
     * SIGTERM).  The call only reads it. */
    volatile sig_atomic_t *stop;
} sb_command_options;

/* Fill o with the defaults above.  Cannot fail. */
SB_API void sb_command_options_init(sb_command_options *o);

/* Run the commands of o (analysis options a, NULL: the defaults; their
 * precision is not a stop rule here: the rounds asked for, or the budget,
 * end the run).  On success *out is a new run the caller frees with
 * sb_run_free; a run stopped before its last round still succeeds, with
 * sb_run_interrupted() true and the whole rounds so far.  Everything is
 * checked before the first command starts.  Errors: SB_EINVAL (a bad
 * option; an empty, repeated or unsplittable command; no program of that
 * name; SIGCHLD ignored in the process, so that no child could be
 * waited for), SB_ECOMMAND (a run or a prepare that failed, without
 * ignore_failure: the message names the command, the run and how it
 * ended), SB_ESYS (a command that could not be started), SB_EINTR (a stop
 * or the deadline before two whole rounds: nothing to report),
 * SB_ENOMEM. */
SB_API int sb_command_run_new(const sb_command_options *o,
                              const sb_analysis_options *a, sb_run **out,
                              sb_error *err);

/* The unit of an imported run's values (sb_run_from_sets_new), "" when
 * they are in their own unit. */
SB_API const char *sb_run_unit(const sb_run *run);

/* Record the command line in the run's metadata (argv is copied).
 * SB_EINVAL for a NULL run, a negative argc or a NULL argv[i]. */
SB_API int sb_run_set_command(sb_run *run, int argc, char *const argv[],
                              sb_error *err);
SB_API const char *sb_run_command(const sb_run *run);

/* A title of the caller's for the reports of run ("memcpy gate, 4 KiB"):
 * the table's first line, the Markdown and LaTeX captions.  A run
 * without a command (one made through the API, not by statbench) is
 * reported as such: its first line is the title, or "a library run", and
 * its advice names the options' fields, not command-line flags.  The title
 * is copied; control characters print as '?'.  It is not saved in JSON.
 * SB_EINVAL for a NULL run or title, SB_ENOMEM.  sb_run_title: the
 * title, or "" without one. */
SB_API int sb_run_set_title(sb_run *run, const char *title, sb_error *err);
SB_API const char *sb_run_title(const sb_run *run);

/* ------------------------------------------------------------------------ */
/* Test-suite helpers                                                        */
/* ------------------------------------------------------------------------ */

/* Guards against the optimiser, for the body of a function under test.
 *
 * A compiler may delete or transform work whose result it can prove
 * unused, or turn a loop written to be naive into another: at -O3 gcc
 * vectorises
 *     for (size_t i = 0; i < n; i++) d[i] = s[i];    (a "byte loop")
 * into 16- or 32-byte moves, or calls memcpy for it, so that a gate
 * comparing it with memcpy saw its ratio fall from 9.3 to 2.4 with no
 * warning.  Two guards, as Google Benchmark's DoNotOptimize and
 * ClobberMemory:
 *
 * SB_DO_NOT_OPTIMIZE(x): x (an lvalue: a variable or an element, of any
 *   type) is taken to be read and changed at this point, by code the
 *   compiler cannot see.  Its value must therefore be computed (work
 *   producing it is not deleted), and a value read from it afterwards
 *   must be read again (work using it is not hoisted out of a loop).
 *   Guard an expression by assigning it to a variable first.
 * SB_CLOBBER_MEMORY(): all memory the compiler cannot prove private may
 *   have been read and written here: stores before it are done, and
 *   loads after it happen again.
 *
 * The byte loop above stays a byte loop with
 *     for (size_t i = 0; i < n; i++) {
 *         d[i] = s[i];
 *         SB_CLOBBER_MEMORY();   (each store is done before the next
 *     }                             load: no batching of iterations)
 * and the result of a computation survives with
 *     uint64_t h = hash(buf, n);
 *     SB_DO_NOT_OPTIMIZE(h);
 * Neither emits an instruction of its own (with gcc and clang: an empty
 * asm statement with a "memory" clobber); they cost what they forbid.
 * One exception: clang always takes the memory alternative of "+r,m", so
 * under clang SB_DO_NOT_OPTIMIZE(x) stores x and loads it back (a few
 * cycles; keep it out of the innermost loop, or guard with
 * SB_CLOBBER_MEMORY there).
 * With other compilers both fall back to a call of
 * sb_do_not_optimize_escape (a function in the library, which the
 * compiler cannot see into): x's address escapes, so x is stored and
 * memory is clobbered around the call, but the call costs a few
 * nanoseconds and a whole-program optimiser could still see through it.
 * That fallback is weaker, and slower; prefer gcc or clang. */
#if defined(__GNUC__) || defined(__clang__)
#if defined(__clang__)
#define SB_DO_NOT_OPTIMIZE(x) __asm__ __volatile__("" : "+r,m"(x) : : "memory")
#else
/* Google Benchmark's order for gcc, which takes the register when x
 * fits in one. */
#define SB_DO_NOT_OPTIMIZE(x) __asm__ __volatile__("" : "+m,r"(x) : : "memory")
#endif
#define SB_CLOBBER_MEMORY() __asm__ __volatile__("" : : : "memory")
#else
#define SB_DO_NOT_OPTIMIZE(x) sb_do_not_optimize_escape((void *)&(x))
#define SB_CLOBBER_MEMORY() sb_do_not_optimize_escape((void *)0)
#endif

/* The fallback of SB_DO_NOT_OPTIMIZE and SB_CLOBBER_MEMORY: does nothing,
 * out of the compiler's sight (p may be NULL). */
SB_API void sb_do_not_optimize_escape(volatile void *p);

/* Measure two functions of the sb_kernel_fn shape on n bytes (page-aligned
 * buffers) under m and a (either NULL: defaults) and compare candidate
 * with baseline:
 * out receives the ratio of times (candidate / baseline) with its interval,
 * the p-values and the verdict, as sb_run_set_baselines computes them.
 * run_new (optional) receives the run for reporting; free it with
 * sb_run_free.  With m->invocations > 1 (the default) this forks.
 * With m->profile_dir, the run is judged against this host's profile
 * first (sb_run_set_profile: a run measured on a shared core gets an
 * inconclusive verdict) and then gives it its figures.
 * out->size must be set first (sb_comparison c = {.size = sizeof c}): a
 * size this library does not know is SB_EINVAL, before anything is
 * measured, and out is left untouched.
 * Returns SB_OK or an error from sb_run_execute_new, or the profile's
 * (SB_EIO: a profile file refused, naming it; SB_ESYS). */
SB_API int sb_compare_functions(sb_kernel_fn baseline, sb_kernel_fn candidate,
                                size_t n, const sb_measure_options *m,
                                const sb_analysis_options *a,
                                sb_comparison *out, sb_run **run_new,
                                sb_error *err);

/* What a gate does with an inconclusive comparison: enum
 * sb_inconclusive_policy, with the options (sb_analysis_options). */

/* What a gate decided. */
enum sb_gate_outcome {
    SB_GATE_PASS = 0,
    SB_GATE_FAIL = 1,
    SB_GATE_WARN = 2,     /* passed, with a reason to look (an inconclusive
                             comparison under SB_INCONCLUSIVE_WARN) */
    SB_GATE_UNDECIDED = 3 /* neither shown the same or faster nor slower
                             beyond the threshold: an inconclusive
                             comparison whose interval reaches past
                             1 + threshold, under SB_INCONCLUSIVE_FAIL.
                             Only the tally (sb_gate_tally_add,
                             sb_gate_tally_outcome) tells it apart:
                             sb_gate_judge and sb_gate call it FAIL, so
                             that a caller who tests for FAIL never
                             passes it */
};

/* The gate's decision on comparison c, with a's threshold and
 * inconclusive policy (a NULL: the defaults of sb_analysis_options_init;
 * an unknown a->size: FAIL, with the reason in buf), and
 * its one-line account in buf (len bytes, always terminated; buf may be
 * NULL):
 *     FAIL mine vs memcpy: slower, beyond the threshold; time ratio 8.93
 *     [8.71, 9.12], p(adj) 0.002; threshold 10%; smallest detectable
 *     change 2.1%; baseline: measured in the same run
 * what names the two ("mine vs memcpy"; NULL: "candidate vs baseline"),
 * baseline_from says where the baseline came from (NULL: "measured in
 * the same run").  FAIL for a slower verdict beyond the threshold, for a
 * comparison that could not be made (c NULL, not valid, verdict none, a
 * ratio that is NAN) and for an inconclusive one whose interval reaches
 * past 1 + threshold under SB_INCONCLUSIVE_FAIL (WARN and PASS under
 * the other policies), and for a c whose size this library does not
 * know (the line names it); PASS otherwise.  The threshold is the one the
 * verdict was given at, a->threshold, a fraction (0.10 for 10%): the
 * command line's --threshold 10 is the same value in percent.  Returns
 * an enum sb_gate_outcome. */
SB_API int sb_gate_judge(const sb_comparison *c,
                         const sb_analysis_options *a,
                         const char *what, const char *baseline_from,
                         char *buf, size_t len);

/* Whether a comparison is a regression: its verdict is slower (the
 * adjusted p below alpha and the whole interval above 1) and the ratio
 * exceeds 1 + threshold; or it could not be made (a cell without
 * samples, non-positive times: the ratio is NAN, or a size this library
 * does not know), since a gate must not pass what it could not measure.
 * 1 or 0. */
SB_API int sb_comparison_regressed(const sb_comparison *c, double threshold);

/* A gate over several comparisons (every size of a kernel, every kernel
 * of a run), counted by what decided each: the one policy that turns
 * the comparisons into the gate's outcome, which statbench's --against
 * and ab use too.  The caller zeroes it and sets its size,
 *     sb_gate_tally t = {.size = sizeof t};
 * (see the conventions above: a size this library does not know is
 * neither read nor written), adds each comparison with
 * sb_gate_tally_add, and asks sb_gate_tally_outcome for the gate. */
typedef struct sb_gate_tally {
    size_t size;      /* sizeof(sb_gate_tally), set by the caller */
    size_t judged;    /* comparisons added */
    size_t passed;    /* PASS: the same, faster, slower by less than the
                         threshold, or a slowdown beyond it ruled out
                         (or undecided, under SB_INCONCLUSIVE_PASS) */
    size_t warned;    /* WARN: undecided, under SB_INCONCLUSIVE_WARN */
    size_t slower;    /* FAIL: slower beyond the threshold, with
                         significance */
    size_t lost;      /* FAIL: no comparison (c NULL, not valid, verdict
                         none, a NAN ratio, a size or options unknown to
                         this library) */
    size_t undecided; /* UNDECIDED: inconclusive past the threshold under
                         SB_INCONCLUSIVE_FAIL */
} sb_gate_tally;

/* Judge c as sb_gate_judge does (its one line in buf, with what,
 * baseline_from, len as there) and count it in t.  Returns the
 * comparison's outcome, told apart by cause: SB_GATE_PASS, SB_GATE_WARN,
 * SB_GATE_FAIL (slower beyond the threshold, or no comparison) or
 * SB_GATE_UNDECIDED (where sb_gate_judge says FAIL, "inconclusive").  A
 * NULL t, or one whose size this library does not know, counts nothing,
 * is left untouched and returns SB_GATE_FAIL, the line naming it. */
SB_API int sb_gate_tally_add(sb_gate_tally *t, const sb_comparison *c,
                             const sb_analysis_options *a,
                             const char *what, const char *baseline_from,
                             char *buf, size_t len);

/* The whole gate's outcome: SB_GATE_FAIL when a comparison was slower
 * beyond the threshold or could not be made, when none was judged (a
 * gate that judged nothing must not pass), and for a NULL t, one of an
 * unknown size or one whose counts do not add up to judged (not zeroed
 * first); else SB_GATE_UNDECIDED when one was undecided (more
 * time, a larger threshold or a quieter host would decide it: a test
 * suite retries or skips rather than report a regression); else
 * SB_GATE_WARN when one warned; else SB_GATE_PASS.  A failure outweighs
 * an undecided comparison: a slowdown shown in one cell is a regression
 * whatever the others could not decide.  As exit statuses (statbench ab
 * and --against, examples/ref_gate.c): PASS and WARN 0, FAIL 1,
 * UNDECIDED 3. */
SB_API int sb_gate_tally_outcome(const sb_gate_tally *t);

/* A one-call regression gate for a test program: as
 * sb_compare_functions, then the gate's decision, as sb_gate_judge takes
 * it with a's threshold and inconclusive policy, in *outcome (an enum
 * sb_gate_outcome; required): SB_GATE_FAIL when the candidate is slower
 * beyond a->threshold, or undecided under SB_INCONCLUSIVE_FAIL (the
 * default).  Call sb_gate_judge on out for the gate's one-line account.
 * Returns SB_OK, or an error status with *outcome SB_GATE_FAIL and out
 * (optional; its size set, as for sb_compare_functions) holding no
 * verdict: SB_EINVAL (a NULL function or outcome, n 0, a bad option, an
 * out of unknown size, left untouched), SB_ENOSAMPLES when a function has no valid sample
 * (every call failed, see sb_kernel_failed, or every sample was
 * disturbed), or another error of sb_compare_functions. */
SB_API int sb_gate(sb_kernel_fn baseline, sb_kernel_fn candidate, size_t n,
                   const sb_measure_options *m, const sb_analysis_options *a,
                   sb_comparison *out, int *outcome,
                   sb_error *err);

/* ------------------------------------------------------------------------ */
/* Reporters                                                                 */
/* ------------------------------------------------------------------------ */

enum sb_format {
    SB_FORMAT_TABLE = 0,
    SB_FORMAT_CSV,
    SB_FORMAT_JSON,
    SB_FORMAT_MARKDOWN, /* a GitHub-flavoured table for mails and trackers */
    SB_FORMAT_LATEX,    /* a booktabs table, values rounded to the digits
                           their interval supports */
    SB_FORMAT_COMPACT,  /* a gate's log: two lines of header, then one
                           short line per cell in its own metric, with
                           the comparison and its verdict */
    SB_FORMAT_HTML      /* one self-contained page: the header, the
                           tables, figures as inline SVG, the comparisons
                           in words; no script, nothing fetched */
};

/* Write the run to f in a format.  The table has a header describing the
 * run; CSV has one header row and a row per cell; JSON holds the metadata,
 * every cell's statistics and its raw per-sample ticks; Markdown and LaTeX
 * hold one row per cell with the median, its interval and, when the run
 * has them, the comparison columns; compact a line per cell (the figure
 * in the cell's metric, its interval, the ratio, verdict and p against
 * its baseline) below two lines that count the warnings and notes the
 * table would show; HTML one page holding the table's header, the rows,
 * the rejects, the comparisons with their method in words and figures
 * drawn as inline SVG, every string escaped, no script and no reference
 * outside the page.  Returns SB_OK or SB_EIO when writing
 * fails. */
SB_API int sb_report(const sb_run *run, int format, FILE *f, sb_error *err);

/* The formats by name and file ending, from the one table of writers that
 * sb_report dispatches on.  sb_format_parse: the SB_FORMAT_* of a name
 * ("table", "csv", "json", "markdown" or "md", "latex" or "tex",
 * "compact", "html"), or -1.
 * sb_format_for_path: the format a file name's ending names (.txt, .csv,
 * .json, .md, .tex, .html; compact has none), or -1 when it names none.  sb_format_name: the name
 * of a format, or "?" when there is no such format. */
SB_API int sb_format_parse(const char *name);
SB_API int sb_format_for_path(const char *path);
SB_API const char *sb_format_name(int format);

/* Round a value for print so that it shows no more digits than its
 * interval supports: the last digit kept is the one at the position of the
 * first significant digit of the interval's half-width (hi - lo) / 2, plus
 * one more when that leading digit is 1 or 2 (so 0.0123 keeps 3 decimals:
 * 2 significant digits of the half-width).  Writes the value with that many
 * decimals (or rounded to tens, hundreds, ... when that position lies left
 * of the point: a half-width of 30 or more rounds to tens, 10 to 29 keeps
 * the units) into buf, at most 15 significant digits; "--" for a NaN
 * value, "inf"/"-inf" for infinities.  A half-width that is 0, negative or
 * not finite shows the value with 6 significant digits.  Returns the
 * number of decimals used (negative: digits rounded away left of the
 * point). */
SB_API int sb_format_rounded(double value, double halfwidth, char *buf,
                             size_t len);

/* Figures (gnuplot, found at run time). */
enum sb_plot_kind {
    SB_PLOT_AUTO = 0,    /* chosen from the run's shape */
    SB_PLOT_SWEEP,       /* throughput with CI bars against the source
                            offset, one line per kernel */
    SB_PLOT_MATRIX,      /* heat map of MB/s over source x destination
                            offset; cells that differ significantly from
                            the aligned cell (0, 0) marked */
    SB_PLOT_SIZES,       /* throughput against size on a log axis, with
                            this CPU's cache sizes drawn in */
    SB_PLOT_DISTRIBUTION /* the sample distribution of each cell */
};

/* "auto", "sweep", "matrix", "sizes", "distribution"; "?" otherwise, and
 * the reverse. */
SB_API const char *sb_plot_kind_name(int kind);
SB_API int sb_plot_kind_parse(const char *name);

/* Draw the run into path, whose ending says the terminal: .svg, .pdf or
 * .png.  Always writes path's stem + ".gp" (the gnuplot script) and
 * ".dat" (its data) beside it; runs gnuplot (the program named by
 * gnuplot, or "gnuplot" from PATH when NULL) to render path.  When no
 * gnuplot can be run, returns SB_EUNAVAIL with a message saying how to
 * render the script by hand; the .gp and .dat are still there.  Other
 * errors: SB_EINVAL (unknown ending or kind, nothing to plot: no finite
 * sample; a directory, device or FIFO at one of the paths), SB_EIO (a
 * file cannot be written; gnuplot ran and failed or drew nothing: no
 * figure, and no partial one).  Each file is written
 * under a new name beside it and renamed into place, so that a symbolic
 * link at path or its .gp or .dat is replaced, never followed; names
 * reach the script only as gnuplot single-quoted strings (inert). */
SB_API int sb_plot(const sb_run *run, const char *path, int kind,
                   const char *gnuplot, sb_error *err);

/* ---- A history of runs (statbench history) -------------------------------
 * Saved runs of one plan in time order, each cell's estimate a point of a
 * series, the series' change points by E-Divisive means
 * (sb_stats_edivisive), each with its size: the ratio of the medians of
 * the runs after it and before it (up to the change points either side),
 * with a seeded percentile bootstrap interval. */
typedef struct sb_history_options {
    size_t size;         /* sizeof(sb_history_options) */
    double exponent;     /* as sb_cp_options; default 1 */
    double pvalue;       /* default 0.05 */
    size_t permutations; /* default 199 */
    size_t min_size;     /* runs a segment has at least; default 5 */
    uint64_t seed;       /* the permutations' and the bootstrap's; 1 */
    double level;        /* of a change's interval, (0, 1); 0.95 */
    double threshold;    /* a change beyond 1 + threshold is a
                            regression, [0, 1); 0.01 */
} sb_history_options;

SB_API void sb_history_options_init(sb_history_options *o);

/* One change point of a cell's series. */
typedef struct sb_history_change {
    size_t point;       /* the cell's first point after it */
    size_t run_before;  /* the history's runs either side (indices of */
    size_t run_after;   /* sb_history_run) */
    sb_interval ratio;  /* median after / median before, bootstrap; NAN
                           when a value is not positive */
    double p;           /* permutation p */
    double q;           /* Q-hat of the split */
    int slower;         /* ratio.estimate > 1 + threshold */
    int faster;         /* ratio.estimate < 1 / (1 + threshold) */
} sb_history_change;

/* One cell over the runs; owned by the history (read it through the
 * pointer; it may grow at its end). */
typedef struct sb_history_cell {
    sb_cell cell;       /* its kernel is borrowed from a run */
    const char *unit;   /* "ns", "core cycles" or "" (imported values) */
    size_t n;           /* runs that have the cell */
    const size_t *run;  /* the history's run of each point */
    const double *estimate, *lo, *hi; /* each run's estimate, interval */
    size_t nchanges;
    const sb_history_change *changes; /* in time order */
    int regression;     /* 1: the newest run starts a regression here:
                           the newest run has the cell, the last change
                           point is slower beyond the threshold, and the
                           series without the newest run shows no such
                           slowdown within min_size runs of it (a change
                           placed early, then in its place, is one) */
} sb_history_cell;

typedef struct sb_history sb_history;

/* The history of runs[0..n-1] (borrowed: they must outlive it; names[i]
 * the file each came from, copied), o NULL: the defaults.  The runs are
 * ordered by meta.start_time (ties keep their order); the history keeps
 * those of the newest run's host and CPU model (and imported or measured
 * alike) and keeps the others apart, saying so in sb_history_notes.
 * SB_EINVAL for no run, a run without a start time (naming its file), bad
 * options; SB_ENOMEM. */
SB_API int sb_history_new(const sb_run *const *runs,
                          const char *const *names, size_t n,
                          const sb_history_options *o, sb_history **out,
                          sb_error *err);
SB_API void sb_history_free(sb_history *h);
SB_API const sb_history_options *sb_history_options_of(const sb_history *h);
/* The runs kept, oldest first, with their files; NULL past the end. */
SB_API size_t sb_history_runs(const sb_history *h);
SB_API const sb_run *sb_history_run(const sb_history *h, size_t i);
SB_API const char *sb_history_run_name(const sb_history *h, size_t i);
/* The runs kept apart (another host or CPU model) with their files. */
SB_API size_t sb_history_apart(const sb_history *h);
SB_API const char *sb_history_apart_name(const sb_history *h, size_t i);
/* What the history says of its runs, one line each ('\n' ends each), ""
 * when nothing: the runs kept apart and why, a run given twice. */
SB_API const char *sb_history_notes(const sb_history *h);
SB_API size_t sb_history_cells(const sb_history *h);
SB_API const sb_history_cell *sb_history_cell_at(const sb_history *h,
                                                 size_t i);
/* The cells whose newest run starts a regression. */
SB_API size_t sb_history_regressions(const sb_history *h);
/* The history as SB_FORMAT_TABLE, _CSV or _JSON (SB_EINVAL for another);
 * SB_EIO when writing fails. */
SB_API int sb_history_report(const sb_history *h, int format, FILE *f,
                             sb_error *err);
/* A figure of every cell's series relative to its first segment's median,
 * with the runs' intervals and the change points marked; files and
 * errors as sb_plot. */
SB_API int sb_history_plot(const sb_history *h, const char *path,
                           const char *gnuplot, sb_error *err);


/* ---- The host profile ----------------------------------------------------
 * A run spent entirely on a core shared with another tenant has no quiet
 * sample, so its own quiet level is the shared one.  The host profile
 * keeps the quiet figures of this host's recent runs across runs, so that
 * such a run shows: one JSON file per key (hostname, CPU model,
 * microcode, online CPUs, contention probe) in a directory of the user's
 * (the command's: $STATBENCH_STATE, else $XDG_STATE_HOME/statbench, else
 * ~/.local/state/statbench).  README, "The host profile", gives the
 * rules; the library reads no environment variable for it.
 *
 * Every file is treated as hostile: a corrupt, truncated or foreign file
 * is refused (SB_EIO, the message naming the file and the field), never
 * repaired; a symbolic link, FIFO or device where the file, its lock or
 * the directory should be is refused, never followed nor written; the
 * directory must be the user's own and not writable by others.  Writers
 * take an flock on a lock file beside it and replace the file by rename,
 * so that two processes updating at once lose nothing. */

/* Runs a profile keeps (the newest), and how many consecutive runs above
 * it, agreeing among themselves, move it (sb_profile_add). */
#define SB_PROFILE_MAX_RUNS 64
#define SB_PROFILE_MOVE_RUNS 16
/* ... over at least this many hours between the first and the last. */
#define SB_PROFILE_MOVE_HOURS 24.0
/* The least margin of a judgement (see profile.c for why 3%). */
#define SB_PROFILE_MARGIN_FLOOR 0.03

enum sb_profile_state {
    SB_PROFILE_UNJUDGED = 0, /* not judged (no profile asked for) */
    SB_PROFILE_NEW,          /* no profile yet for this key */
    SB_PROFILE_UNKNOWN,      /* a profile, but the run has no figure it
                                holds (no clock, no reference) */
    SB_PROFILE_QUIET,        /* within the margin, or faster */
    SB_PROFILE_SHARED        /* above it by more than the margin: measured
                                on a shared core */
};
/* "unjudged", "new", "unknown", "quiet", "shared"; "?" otherwise, and the
 * reverse. */
SB_API const char *sb_profile_state_name(int state);
SB_API int sb_profile_state_parse(const char *name);

/* The four structs of the host profile start with a size field, as
 * every struct the library reads or fills (see the conventions above):
 *     sb_profile_key k = {.size = sizeof k};
 * A key or figures the library reads, and a struct it fills, of a size it
 * does not know is refused with SB_EINVAL naming the struct and the size,
 * nothing written.  In sb_profile_find's array, keys[0].size says the
 * layout of every element. */

/* What a profile file is for.  Strings are cut at their size. */
typedef struct sb_profile_key {
    size_t size;           /* sizeof(sb_profile_key), set by the caller */
    char hostname[64];
    char cpu_model[128];
    char microcode[32];
    size_t online_cpus;
    char contention_probe[32];
    size_t probe_ldst_reps;
} sb_profile_key;

/* One run's figures: NAN where unknown.  time is ISO 8601 UTC
 * ("2026-12-01T19:06:09Z"), the run's start. */
typedef struct sb_profile_figures {
    size_t size;             /* sizeof(sb_profile_figures), set by the
                                caller */
    double contention_quiet; /* core cycles per rep (sb_meta's) */
    double reference_cycles; /* core cycles per call (sb_meta's) */
    char time[32];
} sb_profile_figures;

/* The key of the machine a run's metadata describes.  SB_EINVAL for a
 * NULL argument or an unknown out->size. */
SB_API int sb_profile_key_from_meta(const sb_meta *meta, sb_profile_key *out,
                                    sb_error *err);
/* A run's figures from its metadata: the contention probe's quiet level
 * only when it is in core cycles (a clock probe, not "none"), the
 * reference speed, the start time.  SB_EINVAL as above. */
SB_API int sb_profile_figures_from_meta(const sb_meta *meta,
                                        sb_profile_figures *out,
                                        sb_error *err);

/* The file name of key's profile below dir: "profile-" and 16 hex digits
 * of a hash of the key, ".json" (the key's strings never reach a path).
 * SB_EINVAL when it does not fit in len bytes. */
SB_API int sb_profile_path(const char *dir, const sb_profile_key *key,
                           char *buf, size_t len, sb_error *err);

typedef struct sb_profile sb_profile;

/* Read key's profile below dir into *out (the caller frees it with
 * sb_profile_free); a missing directory or file is an empty profile, no
 * error.  SB_EIO with one line naming the file and the field for a
 * corrupt, truncated or foreign file (its key differs), a link, FIFO or
 * device in its place, a directory that is a link, not the user's or
 * writable by others; SB_ENOMEM, SB_EINVAL (NULL, a path too long). */
SB_API int sb_profile_load(const char *dir, const sb_profile_key *key,
                           sb_profile **out, sb_error *err);
SB_API void sb_profile_free(sb_profile *p);

/* What a profile holds, for `statbench profile` and callers' own lines. */
typedef struct sb_profile_figure {
    double level;  /* the lowest credible value: the lowest that another
                      kept run confirms within half the margin floor (the
                      second lowest when none does, the only one of a
                      single run); NAN without values */
    double spread; /* the median's distance above the level, relative */
    double margin; /* a judgement's margin: max(floor, 3 * spread) */
    size_t runs;   /* kept runs with this figure */
} sb_profile_figure;

typedef struct sb_profile_summary {
    size_t size;                 /* sizeof(sb_profile_summary), set by the
                                    caller */
    char path[4096];
    size_t runs;                 /* kept runs */
    size_t seen;                 /* runs given to it since it began: kept,
                                    judged shared, or dropped since */
    char first[32], last[32];    /* the oldest and newest kept runs' times */
    sb_profile_figure quiet;     /* the contention probe's quiet level */
    sb_profile_figure reference; /* the reference memcpy's speed */
    size_t pending;              /* consecutive runs judged shared since the
                                    last quiet one (SB_PROFILE_MOVE_RUNS of
                                    them, agreeing, move it) */
    char pending_first[32];      /* the first of them, "" none */
    char note[256];              /* the last change that was not a plain
                                    addition ("" none) */
    /* Last: a struct with its own size, which may grow, so that a field
     * added to it moves nothing of the summary's. */
    sb_profile_key key;
} sb_profile_summary;

/* p NULL: the summary of an empty profile.  SB_EINVAL for a NULL out
 * or an unknown out->size. */
SB_API int sb_profile_summarize(const sb_profile *p, sb_profile_summary *out,
                                sb_error *err);

/* A run's figures judged against a profile. */
typedef struct sb_profile_judgement {
    size_t size;           /* sizeof(sb_profile_judgement), set by the
                              caller */
    int state;             /* enum sb_profile_state */
    double quiet, quiet_level, quiet_margin;     /* NAN where unknown */
    double reference, reference_level, reference_margin;
    double quiet_excess, reference_excess; /* figure / level - 1 */
    size_t runs;           /* the runs the profile rests on */
    char line[256];        /* one line for a header: "profile: ..." */
} sb_profile_judgement;

/* Judge f against p (NULL: no profile yet): SB_PROFILE_SHARED when a
 * figure lies above its level by more than its margin, SB_PROFILE_QUIET
 * when every figure both have lies within it (or below), SB_PROFILE_NEW
 * for an empty profile, SB_PROFILE_UNKNOWN when none can be compared.
 * Pure: reads nothing, writes nothing.  SB_EINVAL for a NULL f or out,
 * or an unknown size of either. */
SB_API int sb_profile_judge(const sb_profile *p, const sb_profile_figures *f,
                            sb_profile_judgement *out, sb_error *err);

/* Add a run's figures to key's profile below dir, creating the
 * directory (0700, its parents too) and the file as needed, under the
 * profile's lock, judging them against the file as it is then (another
 * process may have written since sb_profile_load).  A run judged new or
 * quiet is kept (the newest SB_PROFILE_MAX_RUNS); kept runs that then
 * sit above the level by more than the margin are dropped (recorded while
 * the profile knew only a shared level).  A run judged shared is not
 * kept: it counts towards a move, which happens when
 * SB_PROFILE_MOVE_RUNS consecutive shared runs, within the margin floor
 * of each other, span SB_PROFILE_MOVE_HOURS (a machine that got slower
 * for good); any quiet run ends the count.  A run with no figure is not
 * added.  *added (optional) is 1 when the run was kept; note (optional,
 * len bytes) receives one line of what happened.  Errors as
 * sb_profile_load's, and SB_ESYS when the directory, lock or file cannot
 * be made or written (nothing is then changed). */
SB_API int sb_profile_add(const char *dir, const sb_profile_key *key,
                          const sb_profile_figures *f, int *added,
                          char *note, size_t len, sb_error *err);

/* Delete key's profile below dir, under its lock.  *removed (optional) is
 * 1 when there was one.  A link, FIFO or device in its place is refused
 * (SB_EIO), not removed. */
SB_API int sb_profile_reset(const char *dir, const sb_profile_key *key,
                            int *removed, sb_error *err);

/* This machine's key, with the contention probe this build times (the
 * key of a run measured here now; sb_profile_find ignores the probe's
 * part). */
SB_API int sb_profile_key_this_host(sb_profile_key *out, sb_error *err);

/* The keys of the profiles below dir for host's hostname, CPU model,
 * microcode and online CPUs (any contention probe): up to max into keys,
 * how many in *n.  Every file named like a profile is checked as
 * sb_profile_load checks one, and one under a name that is not its key's
 * hash is refused: errors as sb_profile_load's.  No directory: *n 0. */
SB_API int sb_profile_find(const char *dir, const sb_profile_key *host,
                           sb_profile_key *keys, size_t max, size_t *n,
                           sb_error *err);

/* A profile as `statbench profile` shows it: its path, key, each figure's
 * level, spread, margin and the runs it rests on, the runs kept and seen
 * and their dates, the runs above it, the last note; lines ending in
 * '\n', cut at len bytes, strings cleaned of control characters. */
SB_API void sb_profile_describe(const sb_profile *p, char *buf, size_t len);

/* Record j in run's metadata (sb_meta.profile, profile_shared,
 * profile_bound) and, when j says shared, make every verdict the run has
 * inconclusive, as sb_run_compare_to does for a run that shared the core
 * throughout; the comparisons made later (sb_run_set_baselines,
 * sb_run_compare_to) are inconclusive too.  One exception, for the
 * comparisons within the run (sb_run_set_baselines): both sides shared
 * every round, so the sharing can have moved their ratio by at most the
 * factor profile_bound, 1 + j's quiet_excess (the contention probe, which
 * a neighbour slows more than any kernel), and a faster or slower
 * verdict whose whole interval lies beyond that factor and the threshold
 * is kept (sb_comparison.shared_bound).  SB_EINVAL for a NULL run or j. */
SB_API int sb_run_set_profile(sb_run *run, const sb_profile_judgement *j,
                              sb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* STATBENCH_H */
