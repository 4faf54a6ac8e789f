/*
 * test_failures.c: a failed kernel call, a cell without samples and a dead
 * invocation are never reported as success.
 *
 *  - sb_kernel_failed() counts per thread; a sample holding a failed call
 *    is rejected under SB_REJECT_KERNEL_FAILED whatever the reject policy,
 *    and the run's notes name the error.
 *  - The alloc kernels report an mmap or malloc that fails: under an
 *    RLIMIT_AS set after their setup, every timed call fails, the cell has
 *    no samples, and sb_run_empty_cells() says so (in a forked child; not
 *    under AddressSanitizer, whose shadow memory needs terabytes of
 *    address space).
 *  - sb_compare_functions and sb_gate fail with SB_ENOSAMPLES when a
 *    function has no valid sample; sb_comparison_regressed counts a
 *    comparison that could not be made as a regression.
 *  - A forked invocation that dies (SIGKILL) or calls exit() keeps the
 *    invocations before it: the run succeeds, interrupted, and
 *    sb_run_partial() and the notes say which invocation and how.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels_sys.h"
#include "failed.h"
#include "statbench.h"
#include "tap.h"
#include "fail_rounds.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif

#define MIB ((size_t)1 << 20)

/* ---- Kernels of the test ------------------------------------------------- */

static void spin(size_t n)
{
    volatile size_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x + i; /* volatile: the loop is not folded away */
}

static void fine(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)state;
    spin(n);
}

static void always_fails(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)state;
    spin(n);
    sb_kernel_failed(ENOSPC);
}

/* Fails in the rounds the progress callback says: every second one
 * (fail_rounds.h's every_other_round); spins where clear_or_fail would
 * clear. */
static void fails_when_told(void *dst, const void *src, size_t n,
                            void *state)
{
    (void)dst, (void)src, (void)state;
    spin(n);
    if (fail_now)
        sb_kernel_failed(EIO);
}

/* Dies in its second invocation: setup counts the invocations in a page
 * shared by the forked processes, and fn ends the process in the second,
 * with exit(3) or SIGKILL as die_by says. */
static volatile int *invocation_count;
static int die_by_signal;
static int counting_setup(void **state, const sb_cell *cell, sb_error *err)
{
    (void)cell, (void)err;
    *state = (void *)(intptr_t)__atomic_add_fetch(invocation_count, 1,
                                                  __ATOMIC_SEQ_CST);
    return SB_OK;
}
static void dies_second(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src;
    spin(n);
    if ((intptr_t)state >= 2) {
        if (die_by_signal)
            raise(SIGKILL);
        exit(3);
    }
}

static void run_options(sb_measure_options *o, size_t rounds)
{
    sb_measure_options_init(o);
    o->invocations = o->max_invocations = 1;
    o->min_samples = o->max_samples = rounds;
    o->max_time = 30;
    o->mlock = 0;
}

static int notes_have(const sb_run *run, const char *needle)
{
    return strstr(sb_run_meta(run)->notes, needle) != NULL;
}

/* A run of one cell: its plan, its run (NULL until made) and its error. */
struct one {
    sb_plan *plan;
    sb_run *run;
    sb_error err;
};

/* Runs k at size bytes under o into t; returns the status. */
static int run_one(struct one *t, const sb_kernel *k, size_t bytes,
                   const sb_measure_options *o)
{
    sb_analysis_options a;
    int rc;
    sb_analysis_options_init(&a);
    a.precision = 1e-9; /* rounds end these runs, not the precision */
    memset(t, 0, sizeof *t);
    t->plan = sb_plan_new();
    rc = t->plan ? sb_plan_add(t->plan, k, bytes, 0, 0, &t->err) : SB_ENOMEM;
    if (rc == SB_OK)
        rc = sb_run_execute_new(t->plan, o, &a, &t->run, &t->err);
    return rc;
}

static void one_free(struct one *t)
{
    sb_run_free(t->run);
    sb_plan_free(t->plan);
}

/* ---- sb_kernel_failed ---------------------------------------------------- */

static void *fail_in_thread(void *arg)
{
    (void)arg;
    sb_kernel_failed(EPERM);
    return NULL;
}

static void test_counter(void)
{
    int e = 0;
    size_t before = sb__kernel_failures(NULL), after;
    pthread_t t;

    tap_ok(strcmp(sb_reject_name(SB_REJECT_KERNEL_FAILED),
                  "kernel-failed") == 0,
           "the reject reason is called kernel-failed");
    sb_kernel_failed(EMFILE);
    after = sb__kernel_failures(&e);
    TAP_IS_INT(after - before, 1, "sb_kernel_failed counts one call");
    TAP_IS_INT(e, EMFILE, "and keeps its errno");
    if (pthread_create(&t, NULL, fail_in_thread, NULL) == 0) {
        pthread_join(t, NULL);
        TAP_IS_INT(sb__kernel_failures(&e), after,
                   "another thread's failure is not counted in this one");
        TAP_IS_INT(e, EMFILE, "nor its errno");
    } else {
        tap_skip("per-thread count: no thread");
        tap_skip("per-thread errno: no thread");
    }
}

/* ---- Every call failing: no samples -------------------------------------- */

static void test_all_fail(int policy)
{
    sb_kernel k = {.size = sizeof(sb_kernel),
                   .name = "always_fails", .family = SB_FAMILY_COPY,
                   .description = "calls sb_kernel_failed every time",
                   .fn = always_fails};
    sb_measure_options o;
    struct one t;
    const char *pname = policy == SB_REJECT_NONE ? "none" : "disturbed";
    int rc;

    run_options(&o, 20);
    o.reject = policy;
    rc = run_one(&t, &k, 64, &o);
    if (!tap_ok(rc == SB_OK, "reject %s: a run whose calls all fail still "
                             "returns its run (%s)", pname, t.err.text)) {
        one_free(&t);
        return;
    }
    {
        const sb_cell_result *r = sb_run_cell(t.run, 0);
        TAP_IS_INT(r->nsamples, 0, "reject %s: no sample kept", pname);
        /* 20 rounds, then up to 64 more samples for the empty cell. */
        tap_ok(r->rejected[SB_REJECT_KERNEL_FAILED] >= 20 &&
                   r->rejected[SB_REJECT_KERNEL_FAILED] <= 20 + 64,
               "reject %s: every sample rejected as kernel-failed: %zu "
               "(20 rounds and at most 64 more)", pname,
               r->rejected[SB_REJECT_KERNEL_FAILED]);
        TAP_IS_INT(r->rejected_total, r->rejected[SB_REJECT_KERNEL_FAILED],
                   "reject %s: and under no other reason", pname);
        TAP_IS_INT(sb_run_empty_cells(t.run), 1,
                   "reject %s: sb_run_empty_cells counts the cell", pname);
        tap_ok(notes_have(t.run, strerror(ENOSPC)) &&
                   notes_have(t.run, "always_fails"),
               "reject %s: the notes name the kernel and the error: %s",
               pname, sb_run_meta(t.run)->notes);
    }
    one_free(&t);
}

/* ---- Some calls failing: the others kept --------------------------------- */

/* A run of fails_when_told (described as description) whose progress
 * callback sets fail_now; fail_now starts as first and is 0 again after
 * the run. */
static int run_told(struct one *t, const char *description,
                    sb_measure_options *o, int first)
{
    static sb_kernel k = {.size = sizeof(sb_kernel),
                          .name = "fails_when_told",
                          .family = SB_FAMILY_COPY, .fn = fails_when_told};
    int rc;

    k.description = description;
    fail_now = first;
    rc = run_one(t, &k, 64, o);
    fail_now = 0;
    return rc;
}

static void test_some_fail(void)
{
    sb_measure_options o;
    struct one t;
    int rc;

    run_options(&o, 40);
    o.reject = SB_REJECT_NONE; /* only a failure rejects */
    o.progress = every_other_round;
    rc = run_told(&t, "fails in every second round", &o, 0);
    if (tap_ok(rc == SB_OK, "calls failing in every second round (%s)",
               t.err.text)) {
        const sb_cell_result *r = sb_run_cell(t.run, 0);
        const unsigned char *fl = sb_run_sample_flags(t.run, 0);
        size_t marked = 0;
        TAP_IS_INT(r->nsamples, 20, "the 20 rounds without failure kept");
        TAP_IS_INT(r->rejected[SB_REJECT_KERNEL_FAILED], 20,
                   "the 20 with one rejected, with --reject none");
        for (size_t i = 0; fl && i < r->nsamples; i++)
            if (fl[i] & (1u << SB_REJECT_KERNEL_FAILED))
                marked++;
        tap_ok(fl && marked == 0, "no kept sample holds a failed call");
        TAP_IS_INT(sb_run_empty_cells(t.run), 0, "no empty cell");
    }
    one_free(&t);
}

/* ---- The empty cell at the deadline takes more samples ------------------- */

/* Fails until both rounds are over: their samples are rejected, and the
 * cell is empty when the round cap ends the run. */
static int two_rounds_fail(void *arg, size_t round, double elapsed)
{
    (void)arg, (void)elapsed;
    fail_now = round < 2;
    return 0;
}

static void test_refill(void)
{
    sb_measure_options o;
    struct one t;
    int rc;

    run_options(&o, 2);
    /* Only the kernel's failures reject: on a busy machine a sibling
     * vCPU's work can have every refill sample rejected for a shared
     * core (64 of them), which is the machine's doing, not the rule's. */
    o.reject = SB_REJECT_NONE;
    o.progress = two_rounds_fail;
    rc = run_told(&t, "fails in the first round", &o, 1);
    if (tap_ok(rc == SB_OK, "two rounds whose samples fail (%s)",
               t.err.text)) {
        const sb_cell_result *r = sb_run_cell(t.run, 0);
        tap_ok(r->rejected[SB_REJECT_KERNEL_FAILED] >= 2,
               "the rounds' samples rejected as kernel-failed (%zu)",
               r->rejected[SB_REJECT_KERNEL_FAILED]);
        tap_ok(r->nsamples >= 1,
               "a cell left empty at the end takes more samples until it "
               "keeps one (%zu kept)", r->nsamples);
        TAP_IS_INT(sb_run_empty_cells(t.run), 0, "so no empty cell");
    }
    one_free(&t);
}

/* ---- A hung invocation is killed ------------------------------------------ */

/* Never returns: a forked invocation stuck for good (a lock held at fork
 * by another thread of the host program, say). */
static int hangs_setup(void **state, const sb_cell *cell, sb_error *err)
{
    (void)state, (void)cell, (void)err;
    for (;;)
        pause();
    return SB_OK;
}

static void test_hung_invocation(void)
{
    sb_kernel k = {.size = sizeof(sb_kernel),
                   .name = "hangs", .family = SB_FAMILY_COPY,
                   .description = "setup never returns", .fn = fine,
                   .setup = hangs_setup};
    sb_measure_options o;
    struct one t;
    int rc;

    run_options(&o, 10);
    o.invocations = o.max_invocations = 2; /* forked */
    o.max_time = 0.5;
    rc = run_one(&t, &k, 64, &o);
    tap_ok(rc == SB_ESYS && strstr(t.err.text, "still measuring") &&
               strstr(t.err.text, "killed"),
           "a hung invocation is killed after the run's deadline, the "
           "budget again and 10 s (rc %d: %s)", rc, t.err.text);
    one_free(&t);
}

/* ---- The gate ------------------------------------------------------------ */

static void test_gate(void)
{
    sb_measure_options o;
    sb_comparison c;
    sb_error err = {0};
    int rc, outcome;

    run_options(&o, 20);
    /* A comparison that reads as a pass (equivalent, ratio 1), as a
     * caller's reused variable might: the failed call must overwrite
     * it. */
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    c.valid = 1;
    c.verdict = SB_VERDICT_EQUIVALENT;
    c.ratio.estimate = c.ratio.lo = c.ratio.hi = 1;
    rc = sb_compare_functions(fine, always_fails, 64, &o, NULL, &c, NULL, &err);
    TAP_IS_INT(rc, SB_ENOSAMPLES,
               "sb_compare_functions: a candidate without samples is an "
               "error");
    tap_ok(strstr(err.text, "candidate") != NULL,
           "which names the function: %s", err.text);
    tap_ok(c.valid == 0 && c.verdict == SB_VERDICT_NONE &&
               isnan(c.ratio.estimate) && isnan(c.ratio.lo) &&
               isnan(c.ratio.hi) && isnan(c.p_adjusted),
           "and leaves no result in its output: valid 0, verdict %s, "
           "ratio %g", sb_verdict_name(c.verdict), c.ratio.estimate);
    memset(&err, 0, sizeof err);
    c.verdict = SB_VERDICT_EQUIVALENT;
    outcome = SB_GATE_PASS;
    rc = sb_gate(fine, always_fails, 64, &o, NULL, &c, &outcome, &err);
    TAP_IS_INT(rc, SB_ENOSAMPLES, "sb_gate fails, never passes, a "
                                  "candidate whose every call failed");
    TAP_IS_INT(outcome, SB_GATE_FAIL, "and its outcome is FAIL");
    tap_ok(c.verdict == SB_VERDICT_NONE && isnan(c.ratio.estimate),
           "sb_gate's output after the failure holds no verdict (%s)",
           sb_verdict_name(c.verdict));
    outcome = SB_GATE_PASS;
    rc = sb_gate(always_fails, fine, 64, &o, NULL, &c, &outcome, &err);
    TAP_IS_INT(rc, SB_ENOSAMPLES, "and a baseline whose every call failed");
    TAP_IS_INT(outcome, SB_GATE_FAIL, "with outcome FAIL");
}

/* Two runs of a cell of the same name, the later without samples: the
 * comparison exists but cannot be made, and it is no pass. */
static void test_regressed(void)
{
    sb_kernel good = {.size = sizeof(sb_kernel),
                      .name = "k", .family = SB_FAMILY_COPY,
                      .description = "fine", .fn = fine};
    sb_kernel bad = {.size = sizeof(sb_kernel),
                     .name = "k", .family = SB_FAMILY_COPY,
                     .description = "fails", .fn = always_fails};
    sb_plan *pg = sb_plan_new(), *pb = sb_plan_new();
    sb_run *rg = NULL, *rb = NULL;
    sb_measure_options o;
    sb_error err = {0};
    size_t matched = 0;
    int rc;

    run_options(&o, 20);
    rc = pg && pb ? sb_plan_add(pg, &good, 64, 0, 0, &err) : SB_ENOMEM;
    if (rc == SB_OK)
        rc = sb_plan_add(pb, &bad, 64, 0, 0, &err);
    if (rc == SB_OK)
        rc = sb_run_execute_new(pg, &o, NULL, &rg, &err);
    if (rc == SB_OK)
        rc = sb_run_execute_new(pb, &o, NULL, &rb, &err);
    if (rc == SB_OK)
        rc = sb_run_compare_to(rb, rg, &matched, &err);
    if (tap_ok(rc == SB_OK && matched == 1,
               "a run without samples compared to one with (%s)",
               err.text)) {
        const sb_comparison *c = sb_run_comparison(rb, 0);
        tap_ok(c && sb_comparison_regressed(c, 0.01) == 1,
               "sb_comparison_regressed: a comparison that could not be "
               "made counts as a regression");
    }
    sb_run_free(rg);
    sb_run_free(rb);
    sb_plan_free(pg);
    sb_plan_free(pb);
}

/* ---- A dead invocation --------------------------------------------------- */

/* Set by test_exit_after_send: runner_fork.c's hook, each forked invocation
 * exits with this status once its data is sent. */
int sb__runner_exit_after_send;

/* A child that sent its data and then exited non-zero: not a success,
 * and the error says both. */
static void test_exit_after_send(void)
{
    sb_kernel k = {.size = sizeof(sb_kernel), .name = "sends_then_fails",
                   .family = SB_FAMILY_COPY, .description = "memcpy",
                   .fn = fine};
    sb_measure_options o;
    struct one t;
    int rc;

    run_options(&o, 10);
    o.invocations = o.max_invocations = 2;
    sb__runner_exit_after_send = 7;
    rc = run_one(&t, &k, 64, &o);
    sb__runner_exit_after_send = 0;
    tap_ok(rc == SB_ESYS && !t.run &&
               strstr(t.err.text, "invocation 0 sent its data but exited "
                                  "with status 7"),
           "an invocation that sent its data, then exited 7: an error "
           "saying so: %s", t.err.text);
    one_free(&t);
}

static void test_dead_invocation(int by_signal)
{
    sb_kernel k = {.size = sizeof(sb_kernel),
                   .name = "dies_second", .family = SB_FAMILY_COPY,
                   .description = "ends its second invocation",
                   .fn = dies_second, .setup = counting_setup};
    sb_measure_options o;
    struct one t;
    const char *how = by_signal ? "SIGKILL" : "exit(3)";
    const char *want = by_signal
                           ? "invocation 1 died with signal 9 (Killed)"
                           : "invocation 1 exited with status 3 before "
                             "sending its data";
    int rc;

    *invocation_count = 0;
    die_by_signal = by_signal;
    run_options(&o, 10);
    o.invocations = o.max_invocations = 3;
    rc = run_one(&t, &k, 64, &o);
    if (tap_ok(rc == SB_OK, "%s in invocation 1: the run keeps "
                            "invocation 0 (%s)", how, t.err.text)) {
        const sb_cell_result *r = sb_run_cell(t.run, 0);
        tap_ok(sb_run_interrupted(t.run), "%s: marked interrupted", how);
        TAP_IS_INT(r->invocations, 1, "%s: one invocation's data", how);
        tap_ok(r->nsamples > 0, "%s: with its samples (%zu)", how,
               r->nsamples);
        tap_ok(strcmp(sb_run_partial(t.run), want) == 0,
               "%s: sb_run_partial says '%s'", how, sb_run_partial(t.run));
        tap_ok(notes_have(t.run, want), "%s: and so do the notes", how);
    }
    one_free(&t);

    /* In the first invocation: nothing to keep, an error naming it. */
    *invocation_count = 1; /* the first to run counts 2 */
    rc = run_one(&t, &k, 64, &o);
    tap_ok(rc != SB_OK && !t.run && strstr(t.err.text, "invocation 0 ") &&
               strstr(t.err.text, by_signal ? "signal 9" : "status 3"),
           "%s in invocation 0: an error saying so: %s", how, t.err.text);
    one_free(&t);
}

/* ---- The alloc kernels under RLIMIT_AS ----------------------------------- */

#ifndef UNDER_ASAN
/* Bytes of address space this process has mapped (VmSize), or 0. */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long kib = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %lu", &kib) == 1)
            break;
    fclose(f);
    return (size_t)kib * 1024;
}

/* Limit the address space to what is mapped now plus slack bytes. */
static int limit_as(size_t slack)
{
    size_t now = vm_size();
    struct rlimit rl;
    if (!now || getrlimit(RLIMIT_AS, &rl) != 0)
        return -1;
    rl.rlim_cur = (rlim_t)(now + slack);
    return setrlimit(RLIMIT_AS, &rl);
}

/* The result bits a child sends back in its exit status. */
enum {
    R_MMAP = 1,      /* mmap_touch's failed mmap was reported, ENOMEM */
    R_POPULATE = 2,  /* mmap_populate's too */
    R_MALLOC = 4,    /* malloc_touch's failed malloc too */
    R_THP = 8,       /* thp's failed mmap too */
    R_RUN = 16,      /* the run: no samples, all rejected kernel-failed */
    R_EMPTY = 32,    /* sb_run_empty_cells() == 1 and the note names it */
    R_SETUP = 64     /* the setups (before the limit) worked */
};

/* One call of fn with a 64 MiB size under the limit: reported? */
static int reports(sb_kernel_fn fn, void *state)
{
    int e = 0;
    size_t before = sb__kernel_failures(NULL);
    fn(NULL, NULL, 64 * MIB, state);
    return sb__kernel_failures(&e) == before + 1 && e == ENOMEM;
}

static int direct_child(void)
{
    const sb_kernel *mt = sb_kernel_find("mmap_touch");
    const sb_kernel *mp = sb_kernel_find("mmap_populate");
    const sb_kernel *ml = sb_kernel_find("malloc_touch");
    sb_cell cell = {.kernel = mt, .size = 64 * MIB};
    void *s_mt = NULL, *s_mp = NULL, *s_ml = NULL;
    sb_error err = {0};
    int bits = 0;

    cell.kernel = mt;
    if (mt->setup(&s_mt, &cell, &err) != SB_OK)
        return 0;
    cell.kernel = mp;
    if (mp->setup(&s_mp, &cell, &err) != SB_OK)
        return 0;
    cell.kernel = ml;
    if (ml->setup(&s_ml, &cell, &err) != SB_OK)
        return 0;
    bits |= R_SETUP;
    if (limit_as(16 * MIB) != 0)
        return bits;
    bits |= reports(mt->fn, s_mt) ? R_MMAP : 0;
    bits |= reports(mp->fn, s_mp) ? R_POPULATE : 0;
    bits |= reports(ml->fn, s_ml) ? R_MALLOC : 0;
    /* thp's fn works without its setup's state (which THP being off
     * would refuse): its aligned mmap is what fails here. */
    bits |= reports(sb__alloc_thp, NULL) ? R_THP : 0;
    return bits;
}

/* mmap_touch, its setup followed by the limit: every timed call of the
 * run then fails, with 32 MiB left for the run's own allocations. */
static int limited_setup(void **state, const sb_cell *cell, sb_error *err)
{
    int rc = sb__alloc_mmap_touch_setup(state, cell, err);
    if (rc == SB_OK && limit_as(32 * MIB) != 0) {
        sb__alloc_teardown(*state);
        return sb__error(err, SB_ESYS, "setrlimit failed");
    }
    return rc;
}

static int run_child(void)
{
    sb_kernel k = {.size = sizeof(sb_kernel),
                   .name = "mmap_touch_limited", .family = SB_FAMILY_ALLOC,
                   .description = "mmap_touch under RLIMIT_AS",
                   .fn = sb__alloc_mmap_touch, .setup = limited_setup,
                   .teardown = sb__alloc_teardown,
                   .flags = SB_KERNEL_OWN_MEMORY};
    sb_measure_options o;
    struct one t;
    int bits = 0;

    run_options(&o, 10);
    o.reject = SB_REJECT_NONE;
    if (run_one(&t, &k, 64 * MIB, &o) != SB_OK) {
        fprintf(stderr, "# run: %s\n", t.err.text);
        return 0;
    }
    {
        const sb_cell_result *r = sb_run_cell(t.run, 0);
        /* 10 rounds, then at most 64 more samples for the empty cell. */
        size_t kf = r->rejected[SB_REJECT_KERNEL_FAILED];
        if (r->nsamples == 0 && kf >= 10 && kf <= 10 + 64 &&
            r->rejected_total == kf)
            bits |= R_RUN;
        if (sb_run_empty_cells(t.run) == 1 &&
            notes_have(t.run, "mmap_touch_limited, 67108864 bytes: ") &&
            notes_have(t.run, " samples rejected: a call failed (Cannot "
                            "allocate memory)"))
            bits |= R_EMPTY;
    }
    one_free(&t);
    return bits;
}

static int in_child(int (*fn)(void))
{
    int status;
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(fn());
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}
#endif

static void test_rlimit(void)
{
#ifdef UNDER_ASAN
    tap_skip("alloc kernels under RLIMIT_AS: AddressSanitizer needs the "
             "address space");
#else
    int bits;
    if (tap_emulated()) {
        tap_skip("alloc kernels under RLIMIT_AS: %s", tap_emulated());
        return;
    }
    bits = in_child(direct_child);
    if (bits < 0 || !(bits & R_SETUP)) {
        tap_ok(0, "the alloc kernels' setup for 64 MiB (child status %d)",
               bits);
        return;
    }
    tap_ok(bits & R_MMAP, "mmap_touch reports its failed mmap (ENOMEM)");
    tap_ok(bits & R_POPULATE, "mmap_populate reports its failed mmap");
    tap_ok(bits & R_MALLOC, "malloc_touch reports its failed malloc");
    tap_ok(bits & R_THP, "thp reports its failed mmap");
    bits = in_child(run_child);
    tap_ok(bits >= 0 && (bits & R_RUN),
           "a run of mmap_touch whose every mmap fails: no samples, all "
           "rejected as kernel-failed (child status %d)", bits);
    tap_ok(bits >= 0 && (bits & R_EMPTY),
           "sb_run_empty_cells and the note report it");
#endif
}

int main(void)
{
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    sb_init();
    test_counter();
    test_all_fail(SB_REJECT_DISTURBED);
    test_all_fail(SB_REJECT_NONE);
    test_some_fail();
    test_refill();
    test_hung_invocation();
    test_gate();
    test_regressed();
    if (page != MAP_FAILED) {
        invocation_count = page;
        test_dead_invocation(0);
        test_dead_invocation(1);
    } else {
        tap_skip("dead invocations: no shared page");
    }
    test_exit_after_send();
    test_rlimit();
    return tap_done();
}
