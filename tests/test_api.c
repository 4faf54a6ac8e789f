/*
 * test_api.c: the public API refuses bad arguments instead of crashing,
 * and never exits the host program.
 *
 * Each case runs in a forked child, so that a crash (or an exit from
 * inside a library the library calls) fails that case alone and the
 * report names it: the child ends with _exit(CASE_OK) only when every
 * call returned what it should.
 */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "statbench.h"
#include "tap.h"

/* A status no library exit would give: err(1, ...) ends with 1. */
#define CASE_OK 42

/* Run fn in a child; return a description of how the child ended. */
static int run_case(int (*fn)(void), char *how, size_t len)
{
    int st;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        snprintf(how, len, "fork failed");
        return 0;
    }
    if (pid == 0)
        _exit(fn() ? CASE_OK : 1);
    if (waitpid(pid, &st, 0) != pid) {
        snprintf(how, len, "waitpid failed");
        return 0;
    }
    if (WIFSIGNALED(st))
        snprintf(how, len, "child killed by signal %d", WTERMSIG(st));
    else if (WEXITSTATUS(st) != CASE_OK)
        snprintf(how, len, "child exited with %d", WEXITSTATUS(st));
    else
        snprintf(how, len, "returned");
    return WIFEXITED(st) && WEXITSTATUS(st) == CASE_OK;
}

#define CASE(fn)                                                          \
    do {                                                                  \
        char how_[64];                                                    \
        if (!tap_ok(run_case(fn, how_, sizeof how_), "%s", #fn))          \
            tap_diag("  %s", how_);                                       \
    } while (0)

/* An error that is SB_EINVAL with a message naming the argument. */
static int einval(int rc, const sb_error *e, const char *arg)
{
    return rc == SB_EINVAL && e->code == SB_EINVAL && strstr(e->text, arg);
}

/* ---- Few file descriptors ------------------------------------------ */

/* The lowest descriptor a new open would get. */
static int lowest_free(void)
{
    int fd = fcntl(0, F_DUPFD, 0);
    if (fd < 0)
        fd = open("/dev/null", O_RDONLY);
    if (fd >= 0)
        close(fd);
    return fd < 0 ? 3 : fd;
}

static int fd_limit;

/* A plan of one libc 4 KiB cell, or NULL. */
static sb_plan *libc_plan(void)
{
    sb_plan *plan = sb_plan_new();
    if (plan && sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0,
                            NULL) != SB_OK) {
        sb_plan_free(plan);
        plan = NULL;
    }
    return plan;
}

/* The options of a short run of one invocation, unpinned. */
static void short_run(sb_measure_options *opt)
{
    sb_measure_options_init(opt);
    opt->invocations = 1;
    opt->max_time = 0.2;
    opt->min_samples = 10;
    opt->max_samples = 20;
    opt->no_pin = 1;
}

/* stderr into a new temporary file, to see that nothing was printed;
 * 0 when that fails. */
static int stderr_to_tmpfile(void)
{
    FILE *t = tmpfile();
    if (!t || dup2(fileno(t), 2) < 0)
        return 0;
    fclose(t);
    return 1;
}

static int few_fds(void)
{
    struct rlimit r = {(rlim_t)fd_limit, (rlim_t)fd_limit};
    char names[8][64], why[8][96];
    sb_measure_options opt;
    sb_plan *plan;
    sb_run *run = NULL;
    sb_error e = {0, ""};
    size_t n;

    /* Made before the limit: the run itself is allowed to fail for lack
     * of descriptors, but only by returning. */
    if (!(plan = libc_plan()))
        return 0;
    short_run(&opt);
    opt.mlock = 0;
    opt.counters = "PAPI_TOT_CYC,PAPI_TOT_INS,NO_SUCH_EVENT";
    /* PAPI_VERBOSE would make PAPI print its errors unless the library
     * quiets it. */
    if (!stderr_to_tmpfile())
        return 0;
    setenv("PAPI_VERBOSE", "1", 1);
    if (setrlimit(RLIMIT_NOFILE, &r) != 0)
        return 0;
    n = sb_counters_available(names, why, 8);
    if (n != 8)
        return 0;
    if (sb_run_execute_new(plan, &opt, NULL, &run, &e) == SB_OK)
        sb_run_free(run);
    sb_plan_free(plan);
    return lseek(2, 0, SEEK_END) == 0;
}

static void check_few_fds(void)
{
    int low = lowest_free();
    /* Absolute limits, and limits leaving 0 .. 40 descriptors free above
     * those this process already holds: PAPI_library_init used to call
     * err(1, ...) when it could open one file but not the next, and with
     * PAPI_VERBOSE set its perf_event component prints on a VM without a
     * PMU once PAPI is tried at all (17 free and up here).  40 is far
     * past both: PAPI started, or not, with descriptors to spare. */
    for (int lim = 3; lim <= 10; lim++) {
        char how[64];
        fd_limit = lim;
        if (!tap_ok(run_case(few_fds, how, sizeof how),
                    "RLIMIT_NOFILE %d: counters and a run return", lim))
            tap_diag("  %s", how);
    }
    for (int spare = 0; spare <= 40; spare++) {
        char how[64];
        fd_limit = low + spare;
        if (!tap_ok(run_case(few_fds, how, sizeof how),
                    "%d descriptors free: counters and a run return",
                    spare))
            tap_diag("  %s", how);
    }
}

/* With too few descriptors for PAPI, the hardware counters are missing
 * with a reason that says so (built with PAPI). */
static int few_fds_reason(void)
{
    struct rlimit r;
    char names[8][64], why[8][96];
    r.rlim_cur = r.rlim_max = (rlim_t)(lowest_free() + 2);
    if (setrlimit(RLIMIT_NOFILE, &r) != 0)
        return 0;
    if (sb_counters_available(names, why, 8) != 8)
        return 0;
#ifdef SB_HAVE_PAPI
    return strstr(why[0], "file descriptor") != NULL;
#else
    return why[0][0] != '\0';
#endif
}

/* The test hook of counters_papi.c: the child that tries PAPI's start first
 * prints (1) or exits (2). */
int sb__counters_trial_fails;

/* A trial start of PAPI that prints: nothing reaches this process's
 * stderr, PAPI is not started, and the reason quotes the first line
 * printed, cleaned (the ESC as '?'); a counter's reason, too short for
 * the quote, says it without. */
static int trial_prints(void)
{
    char names[8][64], why[8][96];
    sb_measure_options opt;
    sb_plan *plan;
    sb_run *run = NULL;
    int ok;

    if (!stderr_to_tmpfile())
        return 0;
    sb__counters_trial_fails = 1;
    if (sb_counters_available(names, why, 8) != 8)
        return 0;
#ifdef SB_HAVE_PAPI
    ok = !strcmp(why[0], "PAPI not started: its initialisation printed "
                         "messages here");
#else
    ok = why[0][0] != '\0';
#endif
    if (!(plan = libc_plan()))
        return 0;
    short_run(&opt);
    if (sb_run_execute_new(plan, &opt, NULL, &run, NULL) != SB_OK)
        return 0;
#ifdef SB_HAVE_PAPI
    {
        const char *want = "PAPI not started: its initialisation printed "
                           "messages here (first line: PAPI Error: "
                           "?[1mtest?[0m of the trial.); ";
        ok = ok && !strncmp(sb_run_meta(run)->counters, want, strlen(want));
    }
#endif
    sb_run_free(run);
    sb_plan_free(plan);
    return ok && lseek(2, 0, SEEK_END) == 0;
}

/* A trial start that exits, as PAPI's err(1) does: this process goes on,
 * PAPI not started, and the reason says how the trial ended. */
static int trial_exits(void)
{
    char names[8][64], why[8][96];

    sb__counters_trial_fails = 2;
    if (sb_counters_available(names, why, 8) != 8)
        return 0;
#ifdef SB_HAVE_PAPI
    return !strcmp(why[0], "PAPI not started: its trial start exited with "
                           "status 1");
#else
    return why[0][0] != '\0';
#endif
}

/* ---- NULL and invalid arguments ------------------------------------ */

static void nop(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)n, (void)state;
}

static sb_run *small_run(void)
{
    static const double a[] = {1, 2, 3, 4, 5}, b[] = {2, 3, 4, 5, 6};
    const char *names[] = {"a", "b"};
    const double *values[] = {a, b};
    size_t n[] = {5, 5};
    sb_run *run = NULL;
    if (sb_run_from_samples_new(names, values, n, 2, NULL, 1, &run, NULL) !=
        SB_OK)
        return NULL;
    return run;
}

static int timer_null(void)
{
    sb_error e = {0, ""};
    return einval(sb_timer_init(NULL, 0, &e), &e, "out") &&
           sb_timer_init(NULL, 1, NULL) == SB_EINVAL;
}

static int plan_add_bad(void)
{
    sb_error e = {0, ""};
    sb_plan *plan = sb_plan_new();
    sb_kernel k = {.size = sizeof(sb_kernel),
                   .name = NULL, .family = SB_FAMILY_COPY,
                   .description = "x", .fn = nop};
    int ok = plan != NULL;

    ok = ok && einval(sb_plan_add(NULL, sb_kernel_find("libc"), 64, 0, 0,
                                  &e), &e, "plan");
    ok = ok && einval(sb_plan_add(plan, NULL, 64, 0, 0, &e), &e, "kernel");
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "name");
    k.name = "";
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "name");
    k.name = "red\033[31m"; /* an escape sequence for every table */
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "name");
    k.name = "mine";
    k.fn = NULL;
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "fn");
    k.fn = nop;
    k.family = 99;
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "family");
    k.family = -1;
    ok = ok && einval(sb_plan_add(plan, &k, 64, 0, 0, &e), &e, "family");
    /* An offset is within a page: 4095 is the last one. */
    k.family = SB_FAMILY_COPY;
    ok = ok && sb_plan_add(plan, &k, 64, 4096, 0, &e) == SB_EINVAL &&
         sb_plan_add(plan, &k, 64, 0, 4096, &e) == SB_EINVAL &&
         strstr(e.text, "4096") != NULL;
    ok = ok && sb_plan_count(plan) == 0;
    /* Nothing bad got in, so the report of a run cannot meet it. */
    ok = ok && sb_plan_add(plan, &k, 64, 0, 0, &e) == SB_OK &&
         sb_plan_add(plan, &k, 64, 4095, 4095, &e) == SB_OK;
    ok = ok && sb_plan_count(NULL) == 0 && sb_plan_cell(NULL, 0) == NULL &&
         sb_plan_cell(plan, 2) == NULL;
    sb_plan_free(plan);
    sb_plan_free(NULL);
    return ok;
}

static int options_env_null(void)
{
    sb_measure_options_init(NULL);
    sb_analysis_options_init(NULL);
    return sb_env_audit(-1, NULL, NULL) == SB_EINVAL &&
           sb_strerror(12345) != NULL && sb_kernel_find(NULL) == NULL &&
           sb_kernel_at(sb_kernel_count()) == NULL &&
           !sb_kernel_available(NULL, NULL) &&
           sb_counters_available(NULL, NULL, 8) == 8;
}

static int check_execute_null(void)
{
    sb_error e = {0, ""};
    sb_measure_options opt;
    sb_plan *plan = sb_plan_new();
    sb_run *run = (sb_run *)&e;
    int ok = plan != NULL;

    sb_measure_options_init(&opt);
    ok = ok && sb_plan_add(plan, sb_kernel_find("libc"), 64, 0, 0, NULL) ==
                   SB_OK;
    ok = ok && einval(sb_plan_check(NULL, &opt, &e), &e, "plan");
    /* NULL options are the defaults. */
    ok = ok && sb_plan_check(plan, NULL, &e) == SB_OK;
    ok = ok && einval(sb_run_execute_new(plan, &opt, NULL, NULL, &e), &e,
                      "out");
    ok = ok && einval(sb_run_execute_new(NULL, &opt, NULL, &run, &e), &e,
                      "plan") &&
         run == NULL;
    sb_plan_free(plan);
    return ok;
}

/* Each invalid option value alone is refused by sb_analysis_options_check
 * or sb_plan_check (which sb_run_execute_new runs first). */
static int options_invalid(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options opt;
    sb_analysis_options opta;
    sb_error e = {0, ""};
    int ok = plan != NULL, bad;

    ok = ok && sb_plan_add(plan, sb_kernel_find("libc"), 64, 0, 0, NULL) ==
                   SB_OK;
    for (int i = 0; ok && i < 17; i++) {
        sb_measure_options_init(&opt);
        sb_analysis_options_init(&opta);
        switch (i) {
        case 0: opta.ci_level = NAN; break;
        case 1: opta.ci_level = 1; break;
        case 2: opta.precision = -0.1; break;
        case 3: opt.max_time = NAN; break;
        case 4: opt.max_time = INFINITY; break;
        case 5: opt.sample_seconds = 0; break;
        case 6: opt.min_samples = 1; break;
        case 7: opt.max_samples = 50; break;
        case 8: opt.invocations = 0; break;
        case 9: opta.outliers = 99; break;
        case 10: opta.bootstrap = 50; break;
        case 11: opt.cache = 99; break;
        case 12: opta.alpha = NAN; break;
        case 13: opt.counters = ""; break;
        case 14: opt.cpu = -2; break;
        case 15: opta.run_sd = 1; break;
        case 16: opta.run_sd = NAN; break;
        }
        bad = sb_analysis_options_check(&opta, &e);
        if (bad == SB_OK)
            bad = sb_plan_check(plan, &opt, &e);
        if (bad != SB_EINVAL)
            ok = 0;
    }
    sb_measure_options_init(&opt);
    sb_analysis_options_init(&opta);
    ok = ok && sb_analysis_options_check(&opta, &e) == SB_OK &&
         sb_plan_check(plan, &opt, &e) == SB_OK;
    sb_plan_free(plan);
    return ok;
}

static int run_accessors_null(void)
{
    sb_error e = {0, ""};
    size_t base[2] = {SIZE_MAX, 0};
    char *argv[] = {"x", NULL, "y"};
    sb_run *run = small_run();
    int ok = run != NULL;

    sb_run_free(NULL);
    ok = ok && sb_run_count(NULL) == 0 && sb_run_cell(NULL, 0) == NULL &&
         sb_run_cell(run, 2) == NULL && sb_run_meta(NULL) == NULL &&
         sb_run_measure_options(NULL) == NULL &&
         sb_run_analysis_options(NULL) == NULL &&
         sb_run_interrupted(NULL) == 0 &&
         sb_run_elapsed(NULL) == 0 && sb_run_rounds(NULL) == 0 &&
         sb_run_invocations(NULL) == 0 && sb_run_imported(NULL) == 0 &&
         sb_run_imported(run) == 1 && sb_run_invocations(run) == 1 &&
         sb_run_counter_samples(NULL, 0, 0) == NULL &&
         sb_run_counter_samples(run, 0, 99) == NULL &&
         sb_run_sample_flags(NULL, 0) == NULL &&
         sb_run_comparison(NULL, 0) == NULL &&
         sb_run_command(NULL) != NULL;
    ok = ok && einval(sb_run_set_baselines(NULL, base, &e), &e, "run");
    ok = ok && einval(sb_run_set_baselines(run, NULL, &e), &e, "base");
    ok = ok && einval(sb_run_compare_to(NULL, run, NULL, &e), &e, "run");
    ok = ok && einval(sb_run_compare_to(run, NULL, NULL, &e), &e, "before");
    ok = ok && einval(sb_run_set_command(NULL, 1, argv, &e), &e, "run");
    ok = ok && einval(sb_run_set_command(run, 1, NULL, &e), &e, "argv");
    ok = ok && einval(sb_run_set_command(run, 3, argv, &e), &e, "argv[1]");
    ok = ok && einval(sb_run_set_command(run, -1, argv, &e), &e, "argc");
    ok = ok && sb_run_set_command(run, 1, argv, &e) == SB_OK &&
         !strcmp(sb_run_command(run), "x");
    ok = ok && einval(sb_report(NULL, SB_FORMAT_TABLE, stdout, &e), &e,
                      "run");
    ok = ok && einval(sb_report(run, SB_FORMAT_TABLE, NULL, &e), &e, "f");
    ok = ok && einval(sb_report(run, 99, stdout, &e), &e, "format");
    ok = ok && sb_plot(NULL, "x.svg", SB_PLOT_AUTO, NULL, &e) == SB_EINVAL;
    ok = ok && sb_plot(run, NULL, SB_PLOT_AUTO, NULL, &e) == SB_EINVAL;
    sb_run_free(run);
    return ok;
}

/* The one table of writers: names, the aliases --format accepts, the
 * endings -o goes by, and nothing else. */
static int formats(void)
{
    static const struct {
        const char *name, *path;
        int format;
    } f[] = {
        {"table", "a/b.txt", SB_FORMAT_TABLE},
        {"csv", "x.csv", SB_FORMAT_CSV},
        {"json", "run.json", SB_FORMAT_JSON},
        {"markdown", "x.y.md", SB_FORMAT_MARKDOWN},
        {"latex", ".tex", SB_FORMAT_LATEX},
    };
    int ok = 1;

    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        ok = ok && sb_format_parse(f[i].name) == f[i].format &&
             sb_format_for_path(f[i].path) == f[i].format &&
             !strcmp(sb_format_name(f[i].format), f[i].name);
    ok = ok && sb_format_parse("md") == SB_FORMAT_MARKDOWN &&
         sb_format_parse("tex") == SB_FORMAT_LATEX &&
         sb_format_parse("txt") == -1 && sb_format_parse("JSON") == -1 &&
         sb_format_parse("") == -1 && sb_format_parse(NULL) == -1;
    ok = ok && sb_format_for_path("x.JSON") == -1 &&
         sb_format_for_path("x.json/y") == -1 &&
         sb_format_for_path("json") == -1 && sb_format_for_path("x.") == -1 &&
         sb_format_for_path(NULL) == -1;
    ok = ok && !strcmp(sb_format_name(-1), "?") &&
         !strcmp(sb_format_name(99), "?");
    return ok;
}

static int from_samples_null(void)
{
    static const double a[] = {1, 2, 3};
    const char *names[] = {"a", NULL};
    const double *values[] = {a, NULL};
    const char *good_names[] = {"a", "b"};
    size_t n[] = {3, 3};
    sb_error e = {0, ""};
    sb_run *run = NULL;

    return einval(sb_run_from_samples_new(names, values, n, 2, NULL, 1, &run,
                                          &e), &e, "names[1]") &&
           einval(sb_run_from_samples_new(good_names, values, n, 2, NULL, 1,
                                          &run, &e), &e, "values[1]") &&
           einval(sb_run_from_samples_new(NULL, values, n, 1, NULL, 1, &run,
                                          &e), &e, "names") &&
           einval(sb_run_from_samples_new(good_names, NULL, n, 1, NULL, 1,
                                          &run, &e), &e, "values") &&
           einval(sb_run_from_samples_new(good_names, values, NULL, 1, NULL, 1,
                                          &run, &e), &e, "n") &&
           einval(sb_run_from_samples_new(good_names, values, n, 1, NULL, 1,
                                          NULL, &e), &e, "out") &&
           run == NULL;
}

static int load_null(void)
{
    sb_error e = {0, ""};
    sb_run *run = NULL;
    return einval(sb_run_load_new(NULL, "x", NULL, &run, &e), &e, "f") &&
           einval(sb_run_load_new(stdin, "x", NULL, NULL, &e), &e, "out");
}

static int gate_null(void)
{
    sb_error e = {0, ""};
    sb_comparison c = {.size = sizeof c};
    char buf[8] = "z";
    int ok, gate;

    ok = einval(sb_compare_functions(NULL, nop, 64, NULL, NULL, &c, NULL,
                                     &e), &e, "baseline");
    ok = ok && einval(sb_compare_functions(nop, NULL, 64, NULL, NULL, &c, NULL,
                                           &e), &e, "candidate");
    ok = ok && einval(sb_compare_functions(nop, nop, 64, NULL, NULL, NULL, NULL,
                                           &e), &e, "out");
    gate = SB_GATE_PASS;
    ok = ok &&
         sb_gate(NULL, nop, 64, NULL, NULL, NULL, &gate, &e) == SB_EINVAL &&
         gate == SB_GATE_FAIL;
    ok = ok && einval(sb_gate(nop, nop, 64, NULL, NULL, NULL, NULL, &e), &e,
                      "outcome is NULL");
    /* n = 0 times nothing: an error naming n, never a comparison. */
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    ok = ok && einval(sb_compare_functions(nop, nop, 0, NULL, NULL, &c, NULL,
                                           &e), &e, "n is 0");
    ok = ok && c.verdict == SB_VERDICT_NONE && !c.valid &&
         isnan(c.ratio.estimate);
    gate = SB_GATE_PASS;
    ok = ok && sb_gate(nop, nop, 0, NULL, NULL, &c, &gate, &e) == SB_EINVAL &&
         c.verdict == SB_VERDICT_NONE && gate == SB_GATE_FAIL;
    ok = ok && sb_comparison_regressed(NULL, 0.01) == 0;
    ok = ok && sb_format_rounded(1.5, 0.1, NULL, 8) >= 0 &&
         sb_format_rounded(1.5, 0.1, buf, 0) >= 0 && buf[0] == 'z';
    return ok;
}

static int stats_null(void)
{
    static const double x[] = {1, 2, 3, 4, 5, 6};
    sb_interval iv;
    sb_summary s;
    sb_outliers o;
    sb_mad_outliers mo;
    sb_levels lv;
    double d, u, p, t, df, w[6];
    const double *groups[] = {x, NULL};
    size_t gn[] = {6, 6};

    return sb_stats_median_ci(NULL, 6, 0.95, &iv) == SB_EINVAL &&
           sb_stats_median_ci(x, 6, 0.95, NULL) == SB_EINVAL &&
           sb_stats_mean_ci(NULL, 6, 0.95, &iv) == SB_EINVAL &&
           sb_stats_mean_ci(x, 6, 0.95, NULL) == SB_EINVAL &&
           sb_stats_tukey(NULL, 6, &o) == SB_EINVAL &&
           sb_stats_tukey(x, 6, NULL) == SB_EINVAL &&
           sb_stats_summarize(NULL, 6, 0.95, w, &s) == SB_EINVAL &&
           sb_stats_summarize(x, 6, 0.95, NULL, &s) == SB_EINVAL &&
           sb_stats_summarize(x, 6, 0.95, w, NULL) == SB_EINVAL &&
           sb_stats_quantile_ci(NULL, 6, 0.5, 0.95, &iv) == SB_EINVAL &&
           sb_stats_quantile_ci(x, 6, 0.5, 0.95, NULL) == SB_EINVAL &&
           sb_stats_median_boot_ci(NULL, 6, 0.95, 100, SB_BOOT_BCA, 1,
                                   &iv) == SB_EINVAL &&
           sb_stats_median_boot_ci(x, 6, 0.95, 100, SB_BOOT_BCA, 1,
                                   NULL) == SB_EINVAL &&
           sb_stats_ratio_boot_ci(x, 6, NULL, 6, 0.95, 100, SB_BOOT_BCA, 1,
                                  &iv) == SB_EINVAL &&
           sb_stats_ratio_boot_ci(NULL, 6, x, 6, 0.95, 100, SB_BOOT_BCA, 1,
                                  &iv) == SB_EINVAL &&
           sb_stats_mad_outliers(NULL, 6, 3, &mo) == SB_EINVAL &&
           sb_stats_mad_outliers(x, 6, 3, NULL) == SB_EINVAL &&
           sb_stats_lag1(NULL, 6, &d) == SB_EINVAL &&
           sb_stats_lag1(x, 6, NULL) == SB_EINVAL &&
           sb_stats_mann_whitney(NULL, 6, x, 6, &u, &p, NULL) ==
               SB_EINVAL &&
           sb_stats_mann_whitney(x, 6, x, 6, NULL, &p, NULL) == SB_EINVAL &&
           sb_stats_welch_log(x, 6, NULL, 6, 0.95, &t, &df, &p, NULL) ==
               SB_EINVAL &&
           sb_stats_paired_log(x, NULL, 6, 0.95, &iv, &p) == SB_EINVAL &&
           sb_stats_paired_log(x, x, 6, 0.95, NULL, &p) == SB_EINVAL &&
           sb_stats_holm(NULL, 3, w) == SB_EINVAL &&
           sb_stats_holm(x, 1, NULL) == SB_EINVAL &&
           sb_stats_verdict(NULL, 0.01, 0.05, 0.01) ==
               SB_VERDICT_INCONCLUSIVE &&
           sb_stats_levels(groups, gn, 2, 0.95, &lv) == SB_EINVAL &&
           sb_stats_levels(NULL, gn, 2, 0.95, &lv) == SB_EINVAL &&
           sb_stats_levels(groups, NULL, 2, 0.95, &lv) == SB_EINVAL &&
           sb_stats_levels(groups, gn, 2, 0.95, NULL) == SB_EINVAL;
}

/* Every name of the enums parses back to its value; anything else is -1. */
static int names_round_trip(void)
{
    static const struct {
        const char *(*name)(int);
        int (*parse)(const char *);
        int n;
    } pairs[] = {
        {sb_family_name, sb_family_parse, SB_FAMILY_EXTERNAL + 1},
        {sb_cache_name, sb_cache_parse, 2},
        {sb_outlier_policy_name, sb_outlier_policy_parse, 3},
        {sb_reject_policy_name, sb_reject_policy_parse, 2},
        {sb_reject_name, sb_reject_parse, SB_REJECT_NREASONS},
        {sb_verdict_name, sb_verdict_parse, SB_VERDICT_INCONCLUSIVE + 1},
        {sb_timer_name, sb_timer_parse, 3},
        {sb_plot_kind_name, sb_plot_kind_parse, 5},
        {sb_inconclusive_policy_name, sb_inconclusive_policy_parse, 3},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        for (int v = 0; v < pairs[i].n; v++)
            ok &= strcmp(pairs[i].name(v), "?") != 0 &&
                  pairs[i].parse(pairs[i].name(v)) == v;
        ok &= !strcmp(pairs[i].name(pairs[i].n), "?") &&
              pairs[i].parse("?") == -1 && pairs[i].parse(NULL) == -1 &&
              pairs[i].parse("") == -1;
    }
    /* The timer kinds' words: one for each kind, none claimed for a kind
     * outside the list. */
    ok &= !strcmp(sb_timer_label(SB_TIMER_TSC), "TSC") &&
          !strcmp(sb_timer_unit(SB_TIMER_TSC), "TSC reference cycle") &&
          !strcmp(sb_timer_label(SB_TIMER_CLOCK), "clock") &&
          !strcmp(sb_timer_unit(SB_TIMER_CLOCK), "nanosecond") &&
          !strcmp(sb_timer_label(SB_TIMER_CNTVCT), "generic timer") &&
          !strcmp(sb_timer_unit(SB_TIMER_CNTVCT), "generic timer tick") &&
          !strcmp(sb_timer_label(3), "timer") &&
          !strcmp(sb_timer_unit(-1), "tick");
    return ok && sb_cache_parse("cold") == SB_CACHE_COLD &&
           sb_reject_policy_parse("none") == SB_REJECT_NONE &&
           sb_cache_parse("Hot") == -1;
}

/* --baseline's matcher: by kernel name, by source offset, and none. */
static int baseline_by(void)
{
    sb_run *run = small_run();
    size_t matched = 99;
    int ok = run != NULL;

    if (!run)
        return 0;
    ok &= sb_run_baseline_by(run, "zzz", 0, &matched, NULL) == SB_OK &&
          matched == 0 && !sb_run_comparison(run, 1);
    ok &= sb_run_baseline_by(run, NULL, 5, &matched, NULL) == SB_OK &&
          matched == 0;
    ok &= sb_run_baseline_by(run, "a", 0, &matched, NULL) == SB_OK &&
          matched == 2 && !sb_run_comparison(run, 0) &&
          sb_run_comparison(run, 1) && sb_run_comparison(run, 1)->base == 0;
    ok &= sb_cell_same(&sb_run_cell(run, 0)->cell,
                       &sb_run_cell(run, 0)->cell) &&
          !sb_cell_same(&sb_run_cell(run, 0)->cell,
                        &sb_run_cell(run, 1)->cell) &&
          !sb_cell_same(NULL, &sb_run_cell(run, 1)->cell);
    ok &= sb_run_baseline_by(NULL, "a", 0, NULL, NULL) == SB_EINVAL;
    sb_run_free(run);
    return ok;
}

/* A kernel that declares SB_KERNEL_OWN_MEMORY gets no buffers of its
 * size, and its size counts once against half of the memory; the same
 * kernel without the flag, family alloc or not, gets two buffers of its
 * size.  At 40% of the memory the first passes the plan's check and the
 * second (80% in buffers) does not; at 60% both are refused, each for
 * its own reason. */
static void nothing(void *dst, const void *src, size_t n, void *state)
{
    (void)dst;
    (void)src;
    (void)n;
    (void)state;
}

static int plan_verdict(const sb_kernel *k, double share, sb_error *err)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t size = (size_t)(share * (double)pages * (double)psz) /
                  (size_t)psz * (size_t)psz;
    sb_measure_options o;
    sb_plan *plan = sb_plan_new();
    int rc;

    sb_measure_options_init(&o);
    memset(err, 0, sizeof *err);
    if (!plan || sb_plan_add(plan, k, size, 0, 0, err) != SB_OK) {
        sb_plan_free(plan);
        return -1;
    }
    rc = sb_plan_check(plan, &o, err);
    sb_plan_free(plan);
    return rc;
}

static int own_memory(void)
{
    const sb_kernel own = {.size = sizeof(sb_kernel),
                           .name = "own", .family = SB_FAMILY_COPY,
                           .description = "makes its own memory",
                           .fn = nothing, .flags = SB_KERNEL_OWN_MEMORY};
    const sb_kernel given = {.size = sizeof(sb_kernel),
                             .name = "given", .family = SB_FAMILY_ALLOC,
                             .description = "declares nothing",
                             .fn = nothing};
    sb_error err;
    int ok = 1, rc;

    if (sysconf(_SC_PHYS_PAGES) <= 0 || sysconf(_SC_PAGESIZE) <= 0)
        return 1; /* no size to test against: nothing refuses */
    rc = plan_verdict(&own, 0.4, &err);
    ok &= rc == SB_OK;
    if (rc != SB_OK)
        fprintf(stderr, "# own at 40%%: %d %s\n", rc, err.text);
    rc = plan_verdict(&given, 0.4, &err);
    ok &= rc == SB_EINVAL && strstr(err.text, "the buffers would need");
    if (!ok)
        fprintf(stderr, "# given at 40%%: %d %s\n", rc, err.text);
    rc = plan_verdict(&own, 0.6, &err);
    ok &= rc == SB_EINVAL && strstr(err.text, "kernel own maps it on every");
    rc = plan_verdict(&given, 0.6, &err);
    ok &= rc == SB_EINVAL && strstr(err.text, "the buffers would need");
    return ok;
}

/* sb_comparison_regressed: slower and by more than the threshold, or a
 * comparison that could not be made; on comparisons written by hand. */
static void check_regressed(void)
{
    sb_comparison c = {.size = sizeof(sb_comparison),
                       .valid = 1,
                       .ratio = {1.005, 1.003, 1.007, 0.95, 0.95},
                       .p = 1e-6,
                       .p_adjusted = 1e-6,
                       .verdict = SB_VERDICT_SLOWER};

    tap_ok(sb_comparison_regressed(&c, 0.01) == 0,
           "regressed: slower by 0.5%% is within a threshold of 1%%");
    c.ratio = (sb_interval){1.05, 1.03, 1.07, 0.95, 0.95};
    tap_ok(sb_comparison_regressed(&c, 0.01) == 1 &&
               sb_comparison_regressed(&c, 0.06) == 0,
           "regressed: slower by 5%% is beyond 1%%, not beyond 6%%");
    c.verdict = SB_VERDICT_INCONCLUSIVE;
    tap_ok(sb_comparison_regressed(&c, 0.01) == 0,
           "regressed: not when the verdict is not slower");
    c.verdict = SB_VERDICT_SLOWER;
    c.valid = 0;
    tap_ok(sb_comparison_regressed(&c, 0.01) == 0,
           "regressed: not for a cell without a baseline");
}

int main(void)
{
    /* Before anything initialises PAPI in this process: the children
     * must each start it under their own limit. */
    check_few_fds();
    CASE(few_fds_reason);
    CASE(trial_prints);
    CASE(trial_exits);
    CASE(timer_null);
    CASE(plan_add_bad);
    CASE(options_env_null);
    CASE(check_execute_null);
    CASE(options_invalid);
    CASE(run_accessors_null);
    CASE(formats);
    CASE(from_samples_null);
    CASE(load_null);
    CASE(gate_null);
    CASE(stats_null);
    CASE(names_round_trip);
    CASE(baseline_by);
    CASE(own_memory);
    check_regressed();
    return tap_done();
}
