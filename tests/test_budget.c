/*
 * test_budget.c: max_time is a budget for kernels whose one call is long
 * (issue 10, case 10: a kernel of 1 s a call with a budget of 2 s ran for
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
 * Either way the relation asserted is the one the issue sets, with a
 * generous margin: wall time <= 3 T + 5 s (T the budget), or a refusal
 * within that time.  The margin covers a shared, noisy VM that may
 * deschedule the process for seconds; the old code took 25-100 s here.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "statbench.h"
#include "tap.h"
#include "own_kernel.h"

static const sb_kernel slow_kernel =
    TEST_KERNEL("test_slow", SB_FAMILY_COPY,
                "spins for spin_seconds a call", spin, NULL, 0);

/* Run the slow kernel with budget t over the given invocations; the
 * wall time in *took. */
static int run_slow(double call, double t, size_t invocations, sb_run **run,
                    sb_error *err, double *took)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    double t0;
    int rc;

    spin_seconds = call;
    sb_measure_options_init(&o);
    o.max_time = t;
    o.invocations = o.max_invocations = invocations;
    o.reject = SB_REJECT_NONE; /* a long call sees interrupts: keep them */
    o.mlock = 0;
    if (!plan)
        return SB_ENOMEM;
    rc = sb_plan_add(plan, &slow_kernel, 64, 0, 0, err);
    t0 = now_s();
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &o, NULL, run, err);
    *took = now_s() - t0;
    sb_plan_free(plan);
    return rc;
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
    tap_ok(took <= bound, "  up front: after %.2f s (<= %.0f s)", took,
           bound);
    sb_run_free(run);
    run = NULL;

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
    return tap_done();
}
