/*
 * test_busy.c: a cell whose samples cannot dodge the waits for its CPU
 * gets a figure, the waits taken off, and a note that says so; never
 * nothing.  A 16 MiB mmap_touch sample lasts milliseconds: with another
 * task on its CPU every one of them waits (426 of 438 rejected for a
 * wait at a load of 2.6 on 2 CPUs, then "no valid sample").
 *
 *  - The test hook (probe.h, bit 0) makes every sample wait: the cell
 *    rejects its first 15 (a cell that can dodge the waits must), keeps
 *    the rest from its 16th on, each flagged cpu-wait, and the notes say
 *    the cell was measured on a busy CPU.  With --reject none nothing
 *    is taken off and no such note is written.
 *  - The same hook on every other sample: half is not enough, the cell
 *    still rejects each one that waited.
 *  - A real busy CPU: a child spins on the CPU the run is pinned to.
 *    The cell has samples; those it kept that waited carry the flag and
 *    the note, and their time, the wait taken off, is the time the
 *    thread ran: it stays within 1.5 times the thread's CPU time per
 *    call (getrusage, read around every sample), while the hog takes
 *    half the CPU or more (the fair share of two tasks; 74-87% of the
 *    kept samples' time here), so that the time with the waits left in
 *    would be twice the CPU time or more.  Where the hog never got the
 *    CPU during a kept sample (the scheduler's choice), only the figure
 *    is checked.
 *
 * No absolute time is asserted.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "statbench.h"
#include "tap.h"

int sb__probe_force; /* the test hook (probe.h) */

static sb_run *run_cell(size_t bytes, int reject, int cpu, double max_time,
                        size_t invocations)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};

    sb_measure_options_init(&o);
    o.invocations = o.max_invocations = invocations;
    o.min_samples = o.max_samples = 64;
    o.max_time = max_time * tap_time_scale(); /* longer under emulation */
    o.reject = reject;
    o.cpu = cpu;
    sb_plan_add(plan, sb_kernel_find("mmap_touch"), bytes, 0, 0, NULL);
    if (sb_run_execute_new(plan, &o, NULL, &run, &e) != SB_OK) {
        tap_diag("run: %s", e.text);
        run = NULL;
    }
    sb_plan_free(plan);
    return run;
}

/* Kept samples of cell 0 flagged cpu-wait. */
static size_t kept_waited(const sb_run *run)
{
    const unsigned char *fl = sb_run_sample_flags(run, 0);
    size_t n = 0;
    for (size_t i = 0; fl && i < sb_run_cell(run, 0)->nsamples; i++)
        n += (fl[i] & (1u << SB_REJECT_CPU_WAIT)) != 0;
    return n;
}

static void test_forced(void)
{
    const sb_cell_result *r;
    sb_run *run;

    /* Every sample waits; the shared-core verdict off (bit 5), so that a
     * busy sibling vCPU does not decide this instead. */
    sb__probe_force = 1 | 32;
    run = run_cell((size_t)1 << 20, SB_REJECT_DISTURBED, -1, 5, 1);
    sb__probe_force = 0;
    if (tap_ok(run != NULL, "every sample waited: the run succeeds")) {
        r = sb_run_cell(run, 0);
        tap_diag("kept %zu, rejected %zu (cpu-wait %zu); notes: %s",
                 r->nsamples, r->rejected_total,
                 r->rejected[SB_REJECT_CPU_WAIT], sb_run_meta(run)->notes);
        tap_ok(r->nsamples > 0 && sb_run_empty_cells(run) == 0,
               "  the cell has a figure (%zu samples)", r->nsamples);
        tap_ok(r->rejected[SB_REJECT_CPU_WAIT] >= 15,
               "  its first 15 samples rejected for the wait (%zu)",
               r->rejected[SB_REJECT_CPU_WAIT]);
        /* The refill would give it one sample: the rounds keep the rest
         * of their 64 from the 16th on. */
        tap_ok(r->nsamples >= 16,
               "  the rounds kept their samples from the 16th on (%zu)",
               r->nsamples);
        TAP_IS_INT(kept_waited(run), r->nsamples,
                   "  every kept sample flagged cpu-wait");
        tap_ok(strstr(sb_run_meta(run)->notes,
                      "mmap_touch, 1048576 bytes, offsets 0/0: measured on "
                      "a busy CPU: ") != NULL &&
                   strstr(sb_run_meta(run)->notes, "taken off") != NULL,
               "  the notes say it was measured on a busy CPU");
        sb_run_free(run);
    }

    sb__probe_force = 1 | 32;
    run = run_cell((size_t)1 << 20, SB_REJECT_NONE, -1, 5, 1);
    sb__probe_force = 0;
    if (tap_ok(run != NULL, "--reject none, every sample waited")) {
        r = sb_run_cell(run, 0);
        tap_ok(r->nsamples > 0 && r->rejected_total ==
                                      r->rejected[SB_REJECT_OUTLIER],
               "  every sample kept as it was (%zu)", r->nsamples);
        tap_ok(!strstr(sb_run_meta(run)->notes, "busy CPU"),
               "  and no wait taken off: no busy-CPU note");
        sb_run_free(run);
    }

    /* Every other sample: the cell can still dodge the waits. */
    sb__probe_force = 1 | 4 | 32;
    run = run_cell((size_t)1 << 20, SB_REJECT_DISTURBED, -1, 5, 1);
    sb__probe_force = 0;
    if (tap_ok(run != NULL, "every other sample waited")) {
        size_t taken, waited;
        r = sb_run_cell(run, 0);
        taken = r->nsamples + r->rejected_total;
        waited = r->disturbed[SB_REJECT_CPU_WAIT];
        /* The forced waits are every other sample's: more means the host
         * made the rest wait too, and three in four waiting is where the
         * rule keeps them (record.c), rightly. */
        if (kept_waited(run) > 0 && 2 * waited > taken + 1)
            tap_skip("the host made %zu of %zu samples wait, beyond the "
                     "forced half: the cell could not dodge them",
                     waited, taken);
        else
            tap_ok(r->nsamples > 0 && kept_waited(run) == 0,
                   "  the waits rejected, the rest kept (%zu kept, %zu "
                   "flagged)", r->nsamples, kept_waited(run));
        sb_run_free(run);
    }
}

static int cpu_of_run(void)
{
    int cpu = sb_cpu_default();
    return cpu >= 0 ? cpu : 0;
}

static void test_hog(void)
{
    int cpu = cpu_of_run();
    pid_t hog = fork();
    sb_run *run;

    if (hog == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        alarm(60); /* ends even if the parent dies */
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    if (!tap_ok(hog > 0, "a CPU hog on CPU %d", cpu))
        return;
    run = run_cell((size_t)16 << 20, SB_REJECT_DISTURBED, cpu, 4, 2);
    kill(hog, SIGKILL);
    waitpid(hog, NULL, 0);
    if (!tap_ok(run != NULL, "16 MiB mmap_touch beside a hog: the run "
                             "succeeds"))
        return;
    {
        const sb_cell_result *r = sb_run_cell(run, 0);
        size_t w = kept_waited(run);
        double hz = sb_run_meta(run)->timer.hz;
        double cpu_call = r->calls > 0
                              ? (r->user_seconds + r->sys_seconds) / r->calls
                              : NAN;
        double med = r->nsamples ? r->interval.estimate / hz : NAN;
        tap_diag("kept %zu (%zu waited), rejected %zu (cpu-wait %zu, "
                 "shared-core %zu); median %.3g ms a call, CPU %.3g ms a "
                 "call; notes: %s", r->nsamples, w, r->rejected_total,
                 r->rejected[SB_REJECT_CPU_WAIT],
                 r->rejected[SB_REJECT_SHARED_CORE], 1e3 * med,
                 1e3 * cpu_call, sb_run_meta(run)->notes);
        /* The rule keeps the samples that waited for the CPU; the host
         * can still empty the cell by what the rule does not excuse (a
         * shared core, an interrupt), which says nothing of the rule. */
        if (r->nsamples == 0 &&
            r->rejected_total > r->rejected[SB_REJECT_CPU_WAIT]) {
            tap_skip("the host emptied the cell beyond the waits (%zu of "
                     "%zu rejections not cpu-wait)",
                     r->rejected_total - r->rejected[SB_REJECT_CPU_WAIT],
                     r->rejected_total);
            tap_skip("(as above)");
            tap_skip("(as above)");
            sb_run_free(run);
            return;
        }
        tap_ok(r->nsamples > 0 && sb_run_empty_cells(run) == 0,
               "  a figure, not an empty cell (%zu samples)", r->nsamples);
        if (w) {
            tap_ok(strstr(sb_run_meta(run)->notes, "measured on a busy "
                                                   "CPU") != NULL,
                   "  its %zu kept samples that waited are named in a "
                   "note", w);
            tap_ok(med <= 1.5 * cpu_call,
                   "  with the waits taken off, the time a call is within "
                   "1.5 times its CPU time (%.3g ms, %.3g ms)", 1e3 * med,
                   1e3 * cpu_call);
        } else {
            tap_skip("no kept sample waited here: the normal path");
            tap_skip("(as above)");
        }
    }
    sb_run_free(run);
}

int main(void)
{
    test_forced();
    test_hog();
    return tap_done();
}
