/*
 * test_stop.c: a stop belongs to the run.
 *
 *  - Two runs in two threads at once, the invocations measured in this
 *    process (--invocations 1) and then forked: one run's progress
 *    callback returns 1 while the other run is measuring.  That run ends
 *    interrupted; the other runs to its sample limit, not interrupted.
 *    (With one flag for the process, as before, the other run stopped
 *    too, or a run starting reset the first one's request.)
 *  - sb_measure_options.stop, set from another thread, stops that run
 *    only, also when its invocations fork (the caller's memory is not
 *    shared with them: the run passes the request on).
 *  - sb_run_request_stop() stops every run in progress, in both threads,
 *    forked or not; a run that starts after a request is not affected.
 *  - The options check takes precision 0 (no target) and refuses values
 *    outside [0, 1).
 *
 * No assertion is about time.  The runs that must be stopped have no
 * precision target (0) and a budget of 20 s, so only a stop ends them
 * early; the one that must not be stopped ends at its sample limit (300
 * rounds), which its interrupted flag and its round count tell apart from
 * a stop whatever the machine's speed.  The threads meet through flags in
 * a shared page (the progress callbacks of forked invocations run in the
 * children), each wait bounded by 10 s so that a failure cannot hang.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "statbench.h"
#include "tap.h"
#include "fail_rounds.h"

#define LIMIT_ROUNDS 300

/* Flags the runs' progress callbacks and the main thread share, in a
 * MAP_SHARED page so that forked invocations see them too. */
struct shared {
    volatile sig_atomic_t started[2]; /* run i called its callback */
    volatile sig_atomic_t stopper_done; /* run 0's callback returned 1 */
};
static struct shared *sh;

/* Wait up to 10 s for *flag; whether it was set. */
static int wait_for(volatile sig_atomic_t *flag)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 10000 && !*flag; i++)
        nanosleep(&ms, NULL);
    return *flag != 0;
}

/* Run 0 in the first test: stop at once, but only while run 1 measures. */
static int stopper(void *arg, size_t round, double elapsed)
{
    (void)arg, (void)round, (void)elapsed;
    sh->started[0] = 1;
    wait_for(&sh->started[1]);
    sh->stopper_done = 1;
    return 1;
}

/* Run 1 in the first test: go on only after run 0 asked to stop, so that
 * the request happens while this run is in progress. */
static int bystander(void *arg, size_t round, double elapsed)
{
    (void)arg, (void)round, (void)elapsed;
    sh->started[1] = 1;
    wait_for(&sh->stopper_done);
    return 0;
}

/* Say that run *arg is measuring; never stop. */
static int mark(void *arg, size_t round, double elapsed)
{
    (void)round, (void)elapsed;
    sh->started[*(const int *)arg] = 1;
    return 0;
}

struct job {
    sb_measure_options opt;
    sb_analysis_options an;
    sb_plan *plan;
    sb_run *run;
    sb_error err;
    int rc;
    int id;
    pthread_t thread;
};

static void *execute(void *arg)
{
    struct job *j = arg;
    j->rc = sb_run_execute_new(j->plan, &j->opt, &j->an, &j->run, &j->err);
    return NULL;
}

/* A job on a plan of one 4 KiB memcpy cell.  long_run: no precision
 * target and 20 s, so that only a stop ends it early; else exactly
 * LIMIT_ROUNDS rounds per invocation. */
static int job_init(struct job *j, int id, size_t invocations, int long_run)
{
    memset(j, 0, sizeof *j);
    j->id = id;
    sb_measure_options_init(&j->opt);
    sb_analysis_options_init(&j->an);
    j->opt.invocations = j->opt.max_invocations = invocations;
    j->an.precision = 0;
    j->opt.no_pin = 1;  /* the two runs need not share one CPU */
    j->opt.mlock = 0;
    j->opt.min_samples = 10;
    j->opt.max_samples = long_run ? 100000000 : LIMIT_ROUNDS;
    j->opt.max_time = 20;
    j->opt.progress_arg = &j->id;
    j->plan = sb_plan_new();
    return j->plan &&
           sb_plan_add(j->plan, sb_kernel_find("libc"), 4096, 0, 0,
                       &j->err) == SB_OK;
}

static int job_start(struct job *j)
{
    return pthread_create(&j->thread, NULL, execute, j) == 0;
}

static void job_free(struct job *j)
{
    sb_run_free(j->run);
    sb_plan_free(j->plan);
}

static void reset_shared(void)
{
    sh->started[0] = sh->started[1] = 0;
    sh->stopper_done = 0;
}

/* One run's callback stops it; the other run goes on. */
static void test_callback(size_t invocations)
{
    struct job a, b;
    int ok;

    reset_shared();
    ok = job_init(&a, 0, invocations, 1) && job_init(&b, 1, invocations, 0);
    a.opt.progress = stopper;
    b.opt.progress = bystander;
    if (!tap_ok(ok && job_start(&a) && job_start(&b),
                "%zu invocation(s): two runs started in two threads",
                invocations)) {
        return; /* cannot happen short of a broken pthread */
    }
    pthread_join(a.thread, NULL);
    pthread_join(b.thread, NULL);
    tap_ok(a.rc == SB_OK && a.run && sb_run_interrupted(a.run),
           "%zu invocation(s): the run whose callback returned 1 is "
           "interrupted (rc %d, %s)", invocations, a.rc, a.err.text);
    tap_ok(b.rc == SB_OK && b.run && !sb_run_interrupted(b.run),
           "%zu invocation(s): the other run, measuring meanwhile, is not "
           "(rc %d, %s)", invocations, b.rc, b.err.text);
    if (b.rc == SB_OK && b.run)
        TAP_IS_INT(sb_run_rounds(b.run), invocations * LIMIT_ROUNDS,
                   "%zu invocation(s): the other run took all its rounds",
                   invocations);
    else
        tap_ok(0, "%zu invocation(s): the other run took all its rounds",
               invocations);
    job_free(&a);
    job_free(&b);
}

/* sb_measure_options.stop, set from the main thread, stops that run only. */
static void test_stop_field(size_t invocations)
{
    struct job a, b;
    volatile sig_atomic_t stop_a = 0; /* ordinary memory, not shared */
    int ok;

    reset_shared();
    ok = job_init(&a, 0, invocations, 1) && job_init(&b, 1, invocations, 0);
    a.opt.progress = b.opt.progress = mark;
    a.opt.stop = &stop_a;
    if (!tap_ok(ok && job_start(&a), "%zu invocation(s): a run with "
                "sb_measure_options.stop started", invocations))
        return;
    wait_for(&sh->started[0]);
    if (!tap_ok(job_start(&b), "%zu invocation(s): a second run started",
                invocations)) {
        stop_a = 1;
        pthread_join(a.thread, NULL);
        return;
    }
    wait_for(&sh->started[1]);
    stop_a = 1;
    pthread_join(a.thread, NULL);
    pthread_join(b.thread, NULL);
    tap_ok(a.rc == SB_OK && a.run && sb_run_interrupted(a.run),
           "%zu invocation(s): *opt.stop = 1 from another thread stops the "
           "run (rc %d, %s)", invocations, a.rc, a.err.text);
    tap_ok(b.rc == SB_OK && b.run && !sb_run_interrupted(b.run) &&
               sb_run_rounds(b.run) == invocations * LIMIT_ROUNDS,
           "%zu invocation(s): and not the other run (rc %d, %zu rounds)",
           invocations, b.rc, b.run ? sb_run_rounds(b.run) : 0);
    job_free(&a);
    job_free(&b);
}

/* sb_run_request_stop() stops every run in progress. */
static void test_process_wide(size_t invocations)
{
    struct job j[2];
    int ok;

    reset_shared();
    ok = job_init(&j[0], 0, invocations, 1) &&
         job_init(&j[1], 1, invocations, 1);
    j[0].opt.progress = j[1].opt.progress = mark;
    if (!tap_ok(ok && job_start(&j[0]) && job_start(&j[1]),
                "%zu invocation(s): two long runs started", invocations))
        return;
    /* Both measuring (a run started after the request would ignore it). */
    wait_for(&sh->started[0]);
    wait_for(&sh->started[1]);
    sb_run_request_stop();
    pthread_join(j[0].thread, NULL);
    pthread_join(j[1].thread, NULL);
    for (int i = 0; i < 2; i++)
        tap_ok(j[i].rc == SB_OK && j[i].run &&
                   sb_run_interrupted(j[i].run),
               "%zu invocation(s): sb_run_request_stop() stops run %d too "
               "(rc %d, %s)", invocations, i, j[i].rc, j[i].err.text);
    job_free(&j[0]);
    job_free(&j[1]);
}

/* A request made before a run starts is not that run's. */
static void test_request_before(void)
{
    struct job a;
    int ok = job_init(&a, 0, 1, 0);

    sb_run_request_stop();
    a.opt.progress = mark;
    if (ok)
        execute(&a);
    tap_ok(ok && a.rc == SB_OK && a.run && !sb_run_interrupted(a.run) &&
               sb_run_rounds(a.run) == LIMIT_ROUNDS,
           "a run started after sb_run_request_stop() is not stopped by it "
           "(rc %d, %zu rounds)", a.rc, a.run ? sb_run_rounds(a.run) : 0);
    job_free(&a);
}

static void test_precision_range(void)
{
    sb_analysis_options oa;
    sb_error e = {0};

    sb_analysis_options_init(&oa);
    oa.precision = 0;
    TAP_IS_INT(sb_analysis_options_check(&oa, &e), SB_OK,
               "precision 0 (no target) is accepted (%s)", e.text);
    oa.precision = -0.01;
    TAP_IS_INT(sb_analysis_options_check(&oa, &e), SB_EINVAL,
               "precision -0.01 is refused: %s", e.text);
    oa.precision = 1;
    TAP_IS_INT(sb_analysis_options_check(&oa, &e), SB_EINVAL,
               "precision 1 is refused: %s", e.text);
    oa.precision = NAN;
    TAP_IS_INT(sb_analysis_options_check(&oa, &e), SB_EINVAL,
               "precision NaN is refused: %s", e.text);
}

/* The stop rule counts kept samples, not rounds: with half the samples
 * rejected, a run ends with at least --min-samples kept, whether it
 * stopped on its (loose) precision target or at the sample cap; never
 * after --min-samples rounds with half as many. */
static void test_min_kept(void)
{
    /* Its calls fail in every second round (fail_rounds.h), so that half
     * its samples are rejected whatever the machine does. */
    const sb_kernel *k = fail_rounds_kernel();
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_analysis_options oa;
    sb_run *run = NULL;
    sb_error e = {0};

    sb_measure_options_init(&o);
    sb_analysis_options_init(&oa);
    o.invocations = o.max_invocations = 1;
    o.min_samples = 40;
    o.max_samples = 400;
    oa.precision = 0.5;
    o.max_time = 20;
    /* Only the kernel's failures reject (under every policy): a busy
     * machine's switches and shared core would reject more, and the run
     * could reach its 400-round cap with fewer kept. */
    o.reject = SB_REJECT_NONE;
    o.progress = every_other_round;
    fail_now = 0;
    sb_plan_add(plan, k, 4096, 0, 0, NULL);
    if (tap_ok(sb_run_execute_new(plan, &o, &oa, &run, &e) == SB_OK,
               "a run with half its samples rejected (%s)", e.text)) {
        const sb_cell_result *r = sb_run_cell(run, 0);
        tap_ok(r->nsamples >= 40 &&
                   r->rejected[SB_REJECT_KERNEL_FAILED] > 0,
               "it ends with at least --min-samples 40 kept (%zu kept, %zu "
               "rejected, %zu rounds)",
               r->nsamples, r->rejected[SB_REJECT_KERNEL_FAILED],
               sb_run_rounds(run));
    }
    sb_run_free(run);
    sb_plan_free(plan);
}

int main(void)
{
    if (!(sh = tap_shared(sizeof *sh, "the runs' flags")))
        return tap_done();
    test_precision_range();
    test_callback(1);
    test_callback(2);
    test_stop_field(1);
    test_stop_field(2);
    test_process_wide(1);
    test_process_wide(2);
    test_request_before();
    test_min_kept();
    munmap(sh, sizeof *sh);
    return tap_done();
}
