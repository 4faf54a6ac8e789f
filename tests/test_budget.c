/*
 * test_budget.c: max_time is a budget for kernels whose one call is long
 * (a kernel of 1 s a call with a budget of 2 s once ran for
 * 34 s: warm-up took at least 16 samples of 2 calls in each of 6
 * invocations).
 *
 *  - A kernel of at least 0.5 s a call with a budget of 1 s and 6
 *    invocations: no deadline can cut the two samples (four calls, 2 s) a
 *    cell needs in each invocation, so the run must be refused up front:
 *    SB_EINVAL, a message saying how long the plan needs.  That follows
 *    from the kernel's own length (it spins for 0.5 s by the clock),
 *    whatever the machine's speed or noise.
 *  - A kernel of 20 ms a call with a budget of 1.5 s and 2 invocations:
 *    it fits (refused only on an overloaded machine, which the relation
 *    below allows), its samples are fewer than --min-samples, and a note
 *    says so.
 *
 *  - A cell whose one call outlasts the budget (an 11 GiB mmap_touch took
 *    37 s a call, and was refused only after two of them) is estimated
 *    from trial calls of a fraction of its size and refused before any
 *    call of its own size.  What is asserted is a count, not a time:
 *    with the test hook, a kernel of the test's own that spins in
 *    proportion to the size it is given records every size it was
 *    called with; none may be the cell's.  The real mmap_touch of 1 GiB
 *    with a budget of 0.1 s is refused with fewer page faults than one
 *    whole call takes (where the machine is fast enough to run it, the
 *    relation below is asserted instead).
 *
 * Either way the relation asserted is the one the issue sets, with a
 * generous margin: wall time <= 3 T + 5 s (T the budget), or a refusal
 * within that time.  The margin covers a shared, noisy VM that may
 * deschedule the process for seconds; the old code took 25-100 s here.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "statbench.h"
#include "measure.h"
#include "tap.h"
#include "own_kernel.h"

/* The test hook (measure.h): trial calls of the kernels of this test. */
int sb__trial_force = 1;

static const sb_kernel slow_kernel =
    TEST_KERNEL("test_slow", SB_FAMILY_COPY,
                "spins for spin_seconds a call", spin, NULL, 0);

/* A kernel that makes its own memory (none, in fact) and spins for
 * per_gib seconds a GiB of the size it is given, recording the sizes. */
static double per_gib;
static size_t sizes[64], nsizes, ncalls;

static void scaled(void *dst, const void *src, size_t n, void *state)
{
    double until = now_s() + per_gib * (double)n / (double)(1u << 30);
    (void)dst, (void)src, (void)state;
    if (nsizes < sizeof sizes / sizeof *sizes)
        sizes[nsizes++] = n;
    ncalls++;
    while (now_s() < until)
        ;
}

static const sb_kernel scaled_kernel =
    TEST_KERNEL("test_scaled", SB_FAMILY_ALLOC,
                "spins per_gib seconds a GiB of its size", scaled, NULL,
                SB_KERNEL_OWN_MEMORY);

/* Run one cell of kernel k and size bytes with budget t over the given
 * invocations; the wall time in *took. */
static int run_cell(const sb_kernel *k, size_t bytes, double t,
                    size_t invocations, sb_run **run, sb_error *err,
                    double *took)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    double t0;
    int rc;

    sb_measure_options_init(&o);
    o.max_time = t;
    o.invocations = o.max_invocations = invocations;
    o.reject = SB_REJECT_NONE; /* a long call sees interrupts: keep them */
    o.mlock = 0;
    if (!plan)
        return SB_ENOMEM;
    rc = sb_plan_add(plan, k, bytes, 0, 0, err);
    t0 = now_s();
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &o, NULL, run, err);
    *took = now_s() - t0;
    sb_plan_free(plan);
    return rc;
}

/* A refusal's last check: it came up front, within bound seconds (it
 * took took); then *run, if any, is freed and cleared. */
static void up_front(double took, double bound, sb_run **run)
{
    tap_ok(took <= bound, "  up front: after %.2f s (<= %.0f s)", took,
           bound);
    sb_run_free(*run);
    *run = NULL;
}

/* Calls of the scaled kernel so far of n bytes or more. */
static size_t calls_from(size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < nsizes; i++)
        c += sizes[i] >= n;
    return c;
}

static void test_trials(void)
{
    const size_t gib = (size_t)1 << 30, mib64 = (size_t)64 << 20;
    sb_run *run = NULL;
    sb_error e = {0};
    struct rusage ra, rb;
    double took, bound = 3 * 1 + 5;
    int rc;

    /* 8 s a call of 1 GiB, a budget of 1 s: refused on the trials. */
    per_gib = 8;
    nsizes = ncalls = 0;
    rc = run_cell(&scaled_kernel, gib, 1, 1, &run, &e, &took);
    tap_diag("8 s a call, budget 1 s: rc %d after %.2f s, %zu calls: %s",
             rc, took, ncalls, e.text);
    TAP_IS_INT(rc, SB_EINVAL, "a call of 8 s in a budget of 1 s: refused");
    tap_ok(ncalls > 0 && calls_from(gib / 16 + 1) == 0,
           "  before any call larger than a 16th of the cell (%zu calls, "
           "the largest %zu bytes)", ncalls, nsizes ? sizes[nsizes - 1] : 0);
    tap_ok(strstr(e.text, "the plan needs about") &&
               strstr(e.text, "kernel test_scaled, 1073741824 bytes: about ") &&
               strstr(e.text, " s a call, from a trial of ") &&
               strstr(e.text, "more than --max-time 1: raise --max-time"),
           "  naming the cell, its cost a call and the budget: %s", e.text);
    up_front(took, bound, &run);

    /* 20 ms a call of 64 MiB in 1.5 s: the trial (4 MiB, a 16th) comes
     * first, then the cell's own calls. */
    per_gib = 0.02 * 16;
    nsizes = ncalls = 0;
    memset(&e, 0, sizeof e);
    rc = run_cell(&scaled_kernel, mib64, 1.5, 1, &run, &e, &took);
    tap_diag("20 ms a call, budget 1.5 s: rc %d after %.2f s, %zu calls: "
             "%s", rc, took, ncalls, e.text);
    if (rc == SB_OK) {
        tap_ok(nsizes >= 3 && sizes[0] == mib64 / 16 &&
                   sizes[1] == mib64 / 16 && sizes[2] == mib64 &&
                   sb_run_cell(run, 0)->nsamples > 0,
               "a cell that fits: two trials of a 16th, then its own "
               "calls (%zu calls, %zu samples)", ncalls,
               sb_run_cell(run, 0)->nsamples);
        tap_ok(took <= 3 * 1.5 + 5, "  within its budget (%.2f s)", took);
    } else {
        tap_skip("refused on this machine: %s", e.text);
        tap_skip("(as above)");
    }
    sb_run_free(run);
    run = NULL;

    /* The real thing: 1 GiB of mmap_touch, 0.1 s.  A whole call faults
     * 262144 pages of 4 KiB; the trials 2 x (4 + 16 + 64) MiB at most. */
    memset(&e, 0, sizeof e);
    getrusage(RUSAGE_SELF, &ra);
    rc = run_cell(sb_kernel_find("mmap_touch"), gib, 0.1, 1, &run, &e,
                  &took);
    getrusage(RUSAGE_SELF, &rb);
    tap_diag("mmap_touch 1 GiB, budget 0.1 s: rc %d after %.2f s, %ld "
             "faults: %s", rc, took, rb.ru_minflt - ra.ru_minflt, e.text);
    if (rc == SB_EINVAL) {
        tap_ok(rb.ru_minflt - ra.ru_minflt < (long)(gib / 4096 / 2),
               "mmap_touch of 1 GiB in 0.1 s: refused before a whole call "
               "(%ld page faults)", rb.ru_minflt - ra.ru_minflt);
        tap_ok(strstr(e.text, "kernel mmap_touch, 1073741824 bytes: "
                              "about ") != NULL,
               "  naming the cell: %s", e.text);
    } else {
        tap_ok(rc == SB_OK && took <= 3 * 0.1 + 5,
               "mmap_touch of 1 GiB in 0.1 s fits on this machine, and "
               "keeps to it (rc %d, %.2f s)", rc, took);
        tap_skip("not refused here");
    }
    sb_run_free(run);
}

/* Run the slow kernel, call seconds a call, with budget t over the given
 * invocations; the wall time in *took. */
static int run_slow(double call, double t, size_t invocations, sb_run **run,
                    sb_error *err, double *took)
{
    spin_seconds = call;
    return run_cell(&slow_kernel, 64, t, invocations, run, err, took);
}

int main(void)
{
    sb_run *run = NULL;
    sb_error e = {0};
    double took, t = 1, bound = 3 * 1 + 5;
    int rc;

    /* 0.5 s a call, 1 s for 6 invocations: cannot fit. */
    rc = run_slow(0.5, t, 6, &run, &e, &took);
    tap_diag("0.5 s a call, budget 1 s: rc %d after %.2f s: %s", rc, took,
             e.text);
    TAP_IS_INT(rc, SB_EINVAL, "0.5 s a call, 6 invocations in 1 s: refused");
    tap_ok(strstr(e.text, "the plan needs about") &&
               strstr(e.text, "more than --max-time 1"),
           "  saying how long the plan needs: %s", e.text);
    up_front(took, bound, &run);

    /* 20 ms a call, 1.5 s for 2 invocations: fits, with fewer samples. */
    t = 1.5;
    bound = 3 * t + 5;
    memset(&e, 0, sizeof e);
    rc = run_slow(0.02, t, 2, &run, &e, &took);
    tap_diag("20 ms a call, budget 1.5 s: rc %d after %.2f s: %s", rc, took,
             e.text);
    tap_ok((rc == SB_OK || (rc == SB_EINVAL &&
                            strstr(e.text, "the plan needs about"))) &&
               took <= bound,
           "20 ms a call, 2 invocations in 1.5 s: kept to the budget or "
           "refused (rc %d, %.2f s <= %.1f s)", rc, took, bound);
    if (rc == SB_OK) {
        const sb_cell_result *r = sb_run_cell(run, 0);
        tap_ok(r->nsamples > 0 && r->invocations == 2,
               "  every invocation measured it (%zu samples, %zu "
               "invocations)", r->nsamples, r->invocations);
        tap_ok(strstr(sb_run_meta(run)->notes, "budget: the plan needs") !=
                   NULL,
               "  a note says --min-samples do not fit: %s",
               sb_run_meta(run)->notes);
    } else {
        tap_skip("refused on this machine: %s", e.text);
        tap_skip("(as above)");
    }
    sb_run_free(run);
    test_trials();
    return tap_done();
}
