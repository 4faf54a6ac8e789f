/*
 * measure.c: one invocation of the measurement protocol (docs/design.md,
 * steps 2 to 6), in the calling process.
 *
 *  1. Pin the thread to one CPU: the last of the isolated CPUs
 *     (/sys/devices/system/cpu/isolated) this process may run on, else the
 *     last allowed one, unless told.
 *  2. Map one source and one destination buffer, page-aligned, big enough
 *     for the largest cell plus its offset, and pre-fault them; every cell
 *     uses them at its own offsets, so all cells see the same pages.
 *  3. Open the counters (counters.c) and /proc/interrupts (interrupts.c).
 *     Then (sb_measure_options.mlock) mlockall(MCL_CURRENT): the buffers, the
 *     kernels' state and the code stay in memory; munlockall at the end,
 *     unless the process had memory locked before (a caller's own locks
 *     stay).  Not MCL_FUTURE, which would pre-fault every mapping the
 *     alloc kernels make and turn mmap_touch into mmap_populate.  With
 *     sb_measure_options.rt, SCHED_FIFO at the lowest priority but one for this
 *     thread, its old policy restored at the end (mind that a FIFO thread
 *     that never sleeps keeps the CPU's kernel threads waiting, up to the
 *     kernel's RT throttling, 0.95 s in every second by default).  Either
 *     one refused adds a line to sb_meta.notes; the run goes on.
 *  4. Per cell: warm up until two successive batch medians agree within 2%,
 *     then calibrate k, the iterations per sample, so that a sample lasts
 *     opt->sample_seconds (50 us by default: over a thousand times the
 *     timer overhead, and short enough that a 250 Hz tick lands in about
 *     one sample in eighty).  The first invocation first checks that the
 *     plan fits in the run's budget (sb__check_budget); warm-up stops at its
 *     deadline between any two samples, and a sample is shortened so that
 *     ten rounds fit.
 *  5. Rounds: each round visits every cell once, in a fresh random order
 *     from a seeded generator, so slow drift of the machine lands on all
 *     cells alike.  Every cell gets one sample per round, so all cells end
 *     with the same number of samples taken, but for a round the deadline
 *     cut, and for the samples that a cell without one it could keep
 *     takes after the deadline (at most a tenth of the budget, 20 ms at
 *     least, and 64 samples: one context switch must not leave a cell of
 *     a short run empty).
 *  6. Per sample: one untimed call brings the cell's buffers back into the
 *     cache after the other cells ran (the "hot" state), then the checks
 *     and counters are read, then k timed calls, then the checks again:
 *
 *         re-warm call
 *         getrusage, sched_getcpu, schedstat,
 *         contention probe, clock chain, counter read    (checks, before)
 *         timer start; k calls; timer stop               (timed)
 *         counter read, clock chain, contention probe,
 *         sched_getcpu, schedstat, getrusage,
 *         /proc/interrupts                               (checks, after)
 *
 *     The probes (probe.c) sit next to the timed region, inside the
 *     checks: the core clock of the sample is the two imul chains' cycles
 *     over their ticks (or PAPI_TOT_CYC's cycles over the sample's ticks,
 *     where it is read), and the contention probe's ticks, timed before
 *     and after the sample, times that clock are its core cycles; the
 *     slower of the two is compared with the quiet model (probe.h,
 *     sb__quiet): fitted to 255 probes at start-up until there are 32
 *     values beside samples, then to those so far (at 32, 64, 128, then
 *     every 256, over the last 8191), its level only going down, and
 *     from the level the run's earlier invocations confirmed
 *     (sb__budget.quiet_prior) when there is one.  schedstat's
 *     run_delay is read inside getrusage's window, so that a wait for the
 *     CPU always comes with the switch that caused it.
 *
 *     A sample is disturbed by a context switch (the perf software event,
 *     else getrusage's voluntary plus involuntary switches), a CPU
 *     migration (the perf software event, or sched_getcpu differing before
 *     and after), an interrupt on the pinned CPU, a wait for the CPU
 *     (run_delay grew) or a shared core (the contention probe).  Under
 *     SB_REJECT_DISTURBED it is rejected and counted under the strongest
 *     of these it showed (a wait, a switch, a migration, a shared core,
 *     an interrupt); every disturbance it showed is counted in
 *     disturbed[] whatever the policy.  Page faults are counted, never a
 *     reason to reject: the alloc kernels take them by design.  A sample
 *     in which the kernel reported a failed call (sb_kernel_failed) is
 *     rejected under every policy: its time is not that of the work.
 *     A cell whose samples cannot dodge the waits for the CPU (three in
 *     four waited: keep_wait_from) keeps those that waited, the wait
 *     taken off their ticks (wait_in_sample, sb__record_sample).
 *  7. Stop when every cell has opt->min_samples and the interval of its
 *     median meets the precision target by the one rule of the results
 *     (stop_rule: sb__cell_interval, sb__precision_met; order
 *     statistics, never a bootstrap), never with a precision of 0 (no
 *     target); or at opt->max_samples rounds, or when the budget is
 *     spent.
 *
 * The files.  This one holds the order of the steps (sb__measure) and
 * the invocation's setting up and giving back (the buffers, mlock and
 * --rt, the probes' start, release); below it, through
 * measure_internal.h: calibrate.c (step 4, the budget check and the host
 * profile's reference), rounds.c (step 5 and the refill of empty cells),
 * stop_rule.c (step 7), checks.c (the checks' opening and closing, the
 * invocation's figures), sample.c (one sample and its checks, step 6)
 * and record.c (the reject policy and the kept samples).
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <gsl/gsl_rng.h>

#include "measure.h"
#include "measure_internal.h"
#include "meta.h"
#include "plan.h"
#include "probe.h"
#include "timer.h"

static void *map_buffer(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* KiB of memory the process has locked (VmLck), or -1. */
static long locked_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmLck: %ld", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* The buffers, behind a shim.  Forked invocations inherit the parent's
 * address layout (ASLR acts at exec, not at fork), so each invocation
 * first maps a shim of 0 to 255 pages, drawn from its seed: the buffers
 * then start at a different virtual address in each, as the layout would
 * differ between separate runs (Mytkowicz et al. 2009).  The page offsets
 * of the cells do not change. */
static int map_buffers(struct held *h, sb_error *err)
{
    sb__buffer_bytes(h->plan, &h->src_bytes, &h->dst_bytes);
    h->shim_bytes =
        (size_t)(gsl_rng_uniform_int(h->rng, 256) + 1) * SB_PAGE_SIZE;
    h->shim = mmap(NULL, h->shim_bytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h->shim == MAP_FAILED)
        h->shim = NULL;
    h->src = map_buffer(h->src_bytes);
    h->dst = map_buffer(h->dst_bytes);
    if (!h->src || !h->dst)
        return sb__error(err, SB_ENOMEM,
                         "cannot map %zu + %zu bytes of buffers",
                         h->src_bytes, h->dst_bytes);
    /* Pre-fault both buffers; the source gets a non-repeating pattern. */
    for (size_t i = 0; i < h->src_bytes; i++)
        h->src[i] = (char)(i * 131u + (i >> 12) + 7u);
    memset(h->dst, 0, h->dst_bytes);
    return SB_OK;
}

/* Each cell's place in the buffers, its cache state and its kernel's
 * state; the order of the first round before its shuffle. */
static int set_up_cells(struct held *h, const sb_measure_options *opt,
                        sb_error *err)
{
    for (size_t i = 0; i < h->n; i++) {
        const sb_cell *c = sb_plan_cell(h->plan, i);
        struct work *w = &h->w[i];
        w->src = h->src + c->src_align;
        w->dst = h->dst + c->dst_align;
        w->cold = opt->cache == SB_CACHE_COLD &&
                  !(c->kernel->flags & SB_KERNEL_OWN_MEMORY);
        if (c->kernel->setup) {
            int rc = c->kernel->setup(&w->state, c, err);
            if (rc != SB_OK)
                return rc;
            w->has_state = 1;
        }
        h->order[i] = i;
    }
    return SB_OK;
}

/* mlock and --rt (the top of the file, step 3): either one refused is a
 * note, and the run goes on. */
static void lock_and_raise(struct held *h, const sb_measure_options *opt,
                           sb__invocation *inv)
{
    if (opt->mlock) {
        /* Memory the caller had locked stays locked after the run. */
        long before = locked_kib();
        if (mlockall(MCL_CURRENT) == 0) {
            h->locked = 1;
            h->unlock = before == 0;
        } else {
            sb__meta_note(&inv->meta,
                          "mlock: mlockall(MCL_CURRENT) failed (%s); "
                          "buffers may be paged out",
                          strerror(errno));
        }
    }

    if (opt->rt) {
        struct sched_param p;
        h->saved_policy = sched_getscheduler(0);
        if (h->saved_policy >= 0 &&
            sched_getparam(0, &h->saved_param) == 0) {
            p.sched_priority = sched_get_priority_min(SCHED_FIFO) + 1;
            if (sched_setscheduler(0, SCHED_FIFO, &p) == 0)
                h->fifo = 1;
            else
                sb__meta_note(&inv->meta,
                              "--rt: no privilege for SCHED_FIFO (%s); "
                              "measured at normal priority",
                              strerror(errno));
        } else {
            sb__meta_note(&inv->meta,
                          "--rt: cannot read the scheduling policy (%s)",
                          strerror(errno));
        }
    }
}

/* Samples with a failed kernel call were rejected as they came; the notes
 * say which cells lost some and why, since the counts alone do not name
 * the error. */
static void note_failed_calls(const struct held *h, sb__invocation *inv)
{
    for (size_t i = 0; i < h->n; i++) {
        const sb_cell *c = sb_plan_cell(h->plan, i);
        size_t lost = inv->cells[i].rejected[SB_REJECT_KERNEL_FAILED];
        if (lost)
            sb__meta_note(&inv->meta,
                 "kernel %s, %zu bytes: %zu sample%s rejected: a call "
                 "failed (%s)", c->kernel->name, c->size, lost,
                 lost == 1 ? "" : "s",
                 h->w[i].fail_errno ? strerror(h->w[i].fail_errno)
                                    : "no error code");
    }
}

/* Give back what the invocation took, whatever it got to: the scheduling
 * policy, the checks, the affinity, the kernels' state, the locks, the
 * mappings and the memory. */
static void release(struct held *h, sb__invocation *inv)
{
    if (h->fifo)
        sched_setscheduler(0, h->saved_policy, &h->saved_param);
    if (h->probing)
        sb__checks_close(&h->pr, inv);
    else {
        free(h->pr.cost);
        sb__free_probes(&h->pr);
    }
    if (h->restore)
        sched_setaffinity(0, sizeof h->saved, &h->saved);
    for (size_t i = 0; h->w && i < h->n; i++)
        if (h->w[i].has_state && sb_plan_cell(h->plan, i)->kernel->teardown)
            sb_plan_cell(h->plan, i)->kernel->teardown(h->w[i].state);
    if (h->locked && h->unlock)
        munlockall();
    if (h->src)
        munmap(h->src, h->src_bytes);
    if (h->shim)
        munmap(h->shim, h->shim_bytes);
    if (h->dst)
        munmap(h->dst, h->dst_bytes);
    free(h->w);
    free(h->scratch);
    free(h->order);
    gsl_rng_free(h->rng);
}

/* The invocation's and the held state's first values and allocations. */
static int held_init(struct held *h, const sb_plan *plan,
                     const sb_analysis_options *a, uint64_t seed,
                     const sb__budget *bud, sb__invocation *inv,
                     sb_error *err)
{
    size_t n = sb_plan_count(plan);

    memset(inv, 0, sizeof *inv);
    memset(h, 0, sizeof *h);
    h->plan = plan;
    h->a = a;
    h->n = n;
    h->index = bud->invocation;
    h->saved_policy = -1;
    inv->cells = calloc(n, sizeof *inv->cells);
    inv->ncells = n;
    h->w = calloc(n, sizeof *h->w);
    h->order = malloc(n * sizeof *h->order);
    h->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!inv->cells || !h->w || !h->order || !h->rng)
        return sb__error(err, SB_ENOMEM, "out of memory");
    gsl_rng_set(h->rng, (unsigned long)seed);
    return SB_OK;
}

/* The probes of the invocation, opened once its cells are set up, and
 * the counters' names given to every cell. */
static int start_probes(struct held *h, const sb_measure_options *opt,
                        const sb__budget *bud, sb__invocation *inv,
                        sb_error *err)
{
    int rc = sb__checks_open(&h->pr, opt, inv, err);
    if (rc != SB_OK)
        return rc;
    h->probing = 1;
    /* The test hook's bit 6 (probe.h): the start-up check fails in the
     * run's first invocation and passes in the others, whatever the
     * chains measured, as a shared core made it fail here. */
    if ((SB__PROBE_FORCE & 64) && h->pr.i_cyc < 0 &&
        (h->pr.cp.clock_ok || h->pr.cp.clock_unverified))
        sb__force_check(&h->pr, &inv->meta, h->index > 0);
    /* Measured in core cycles, the quiet level the earlier invocations
     * confirmed is this one's too: the core's, whoever shares it now. */
    if (h->pr.i_cyc >= 0 || h->pr.cp.clock_ok)
        sb__quiet_seed(&h->pr.quiet, bud->quiet_prior,
                       bud->quiet_prior_margin, 1);
    for (size_t i = 0; i < h->n; i++) {
        inv->cells[i].ncounters = h->pr.nctr;
        inv->cells[i].counter_names =
            (const char (*)[64])inv->meta.counter_names;
    }
    return SB_OK;
}

int sb__measure(const sb_plan *plan, const sb_measure_options *opt,
                const sb_analysis_options *a, uint64_t seed,
                const sb__budget *bud, const sb__stop *stop,
                sb__invocation *inv, sb_error *err)
{
    struct held h;
    double t0, target, overhead, budget;
    double deadline = bud->deadline;
    int rc;

    rc = held_init(&h, plan, a, seed, bud, inv, err);
    if (rc != SB_OK)
        goto out;
    sb__meta_fill(&inv->meta);
    sb__probe_name_meta(&inv->meta);

    rc = sb__pin(opt, &inv->meta, &h.saved, &h.restore, err);
    if (rc != SB_OK)
        goto out;
    sb__meta_l2(&inv->meta); /* of the CPU pinned to */
    /* Measure the timer on the CPU the samples will run on. */
    rc = sb_timer_init(&inv->meta.timer, opt->force_clock_timer, err);
    if (rc != SB_OK)
        goto out;
    h.pr.tsc = inv->meta.timer.kind != SB_TIMER_CLOCK;
    h.pr.hz = inv->meta.timer.hz;
    overhead = inv->meta.timer.overhead;
    target = opt->sample_seconds * inv->meta.timer.hz;

    rc = map_buffers(&h, err);
    if (rc != SB_OK)
        goto out;
    rc = set_up_cells(&h, opt, err);
    if (rc != SB_OK)
        goto out;
    rc = start_probes(&h, opt, bud, inv, err);
    if (rc != SB_OK)
        goto out;

    lock_and_raise(&h, opt, inv);
    inv->meta.reference_cycles = sb__reference_speed(&h.pr, bud);

    if (bud->check) {
        rc = sb__check_budget(plan, opt, bud, h.w, &h.pr, overhead,
                              opt->sample_seconds, inv, err);
        if (rc != SB_OK)
            goto out;
    }

    /* What is left of the invocation's time, after its setup.  A sample
     * is kept short enough that ten rounds fit in it (--sample-us 200000
     * with a budget of 1 s ran 9.8 s), and said so.  An invocation with
     * no time left (a late one) takes its first samples only, at their
     * usual length. */
    t0 = sb__now();
    budget = deadline - t0;
    if (budget < 0)
        budget = 0;
    target = sb__fit_samples(&h, budget, target, inv);
    sb__warm_up_cells(&h, overhead, target, t0, budget, stop, inv);

    rc = sb__run_rounds(&h, opt, overhead, t0, deadline, stop, inv, err);
    if (rc != SB_OK)
        goto out;
    if (!sb__stopped(stop)) {
        rc = sb__fill_empty_cells(&h, opt, overhead, deadline, budget, stop,
                                  inv, err);
        if (rc != SB_OK)
            goto out;
    }
    note_failed_calls(&h, inv);
    inv->interrupted = sb__stopped(stop);
    inv->elapsed = sb__now() - t0;
    rc = SB_OK;

out:
    release(&h, inv);
    if (rc != SB_OK)
        sb__invocation_free(inv);
    return rc;
}
