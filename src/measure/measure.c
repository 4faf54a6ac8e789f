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
 *     plan fits in the run's budget (check_budget); warm-up stops at its
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
 *     taken off their ticks (wait_in_sample, record_sample).
 *  7. Stop when every cell has opt->min_samples and the interval of its
 *     median meets the precision target by the one rule of the results
 *     (stop_rule: sb__cell_interval, sb__precision_met; order
 *     statistics, never a bootstrap), never with a precision of 0 (no
 *     target); or at opt->max_samples rounds, or when the budget is
 *     spent.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "counters.h"
#include "failed.h"
#include "interrupts.h"
#include "measure.h"
#include "measure_internal.h"
#include "meta.h"
#include "metric.h"
#include "plan.h"
#include "probe.h"
#include "sysinfo.h"
#include "timer.h"
#include "arch/arch.h"
#include "arch/ticks.h"
#include "stats_internal.h"

static void *map_buffer(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static size_t iters_for(double per_iter, double target_ticks)
{
    double k = per_iter > 1 ? ceil(target_ticks / per_iter) : target_ticks;
    if (k < 1)
        k = 1;
    if (k > (double)(1u << 24))
        k = (double)(1u << 24);
    return (size_t)k;
}

/* Warm a cell up and calibrate its iterations per sample. */
static size_t warm_up(const sb_cell *c, sb__raw_cell *r, struct work *w,
                      struct probe *pr, double overhead, double target_ticks,
                      double deadline, const sb__stop *stop)
{
    enum { BATCH = 8, MAX_BATCHES = 12 };
    double b[BATCH], prev = NAN, per_iter;
    struct sample s;
    int got = 0;

    /* A first estimate from single iterations.  The deadline is checked
     * before every sample but the first, which the cell cannot do without
     * (a kernel whose call outlasts the budget's share takes one). */
    for (int i = 0; i < BATCH; i++) {
        if (i > 0 && (sb__now() > deadline || sb__stopped(stop)))
            break;
        sb__take_sample(c, w, 1, pr, overhead, &s);
        b[got++] = s.ticks;
    }
    per_iter = sb__median_inplace(b, (size_t)got);
    for (int batch = 0; batch < MAX_BATCHES; batch++) {
        size_t k = w->cold ? 1 : iters_for(per_iter, target_ticks);
        double m;
        got = 0;
        for (int i = 0; i < BATCH; i++) {
            if (sb__now() > deadline || sb__stopped(stop))
                break;
            sb__take_sample(c, w, k, pr, overhead, &s);
            b[got++] = s.ticks;
        }
        r->warmup_samples += (size_t)got;
        if (got < BATCH) {
            /* Out of time: calibrate from what there is. */
            if (got && (m = sb__median_inplace(b, (size_t)got)) > 0)
                per_iter = m;
            break;
        }
        m = sb__median_inplace(b, BATCH);
        if (m > 0)
            per_iter = m;
        if (isfinite(prev) && fabs(m - prev) <= 0.02 * fabs(prev))
            break;
        prev = m;
    }
    w->per_iter = per_iter;
    return w->cold ? 1 : iters_for(per_iter, target_ticks);
}

/* After the warm-up: which cells' samples are too long to dodge the
 * interrupts.  A sample is blamed for the interrupts between two reads of
 * /proc/interrupts, a window of about k + 1 calls and the checks (one call
 * fewer when the file is read again before the sample); at the rate seen
 * so far, the interrupts in it are about Poisson with mean lambda.  Where
 * lambda > ln 2, fewer than half the samples would survive rejection, and
 * they would be a biased few (the luckiest): such a cell (one call of a
 * 16 MiB mmap_touch lasts longer than a 250 Hz tick) keeps its samples
 * with interrupts, which then weigh on all of them alike, and still counts
 * them in disturbed[].  A note in the run's metadata names how many. */
static void choose_irq_exemptions(const sb_plan *plan, sb__invocation *inv,
                                  struct work *w, const struct probe *pr)
{
    double rate, cost = 0, longest = 0;
    size_t kept = 0, n = sb_plan_count(plan);

    if (!pr->irq_ok || pr->irq_tick <= pr->irq_tick0)
        return;
    rate = (double)(pr->irq_last - pr->irq_first) /
           ((double)(pr->irq_tick - pr->irq_tick0) / pr->hz);
    if (pr->ncost) {
        double c[64];
        size_t m = pr->ncost < 64 ? pr->ncost : 64;
        memcpy(c, pr->cost, m * sizeof *c);
        cost = sb__median_inplace(c, m) / pr->hz;
    }
    for (size_t i = 0; i < n; i++) {
        double call = w[i].per_iter > 0 ? w[i].per_iter : 0;
        double sample = (double)inv->cells[i].iters * call;
        /* A re-warm call longer than the re-read threshold is left out. */
        double rewarm = call > (double)pr->rebase_ticks ? 0 : call;
        double window = (sample + rewarm) / pr->hz + cost;
        if (rate * window > M_LN2) {
            w[i].keep_irq = 1;
            kept++;
            if (sample / pr->hz > longest)
                longest = sample / pr->hz;
        }
    }
    (void)plan;
    if (kept)
        sb__meta_note(&inv->meta,
             "interrupts: no reason to reject in %zu cell%s whose samples "
             "(up to %.3g ms) cannot dodge the %.0f interrupts/s of CPU %d; "
             "still counted", kept, kept == 1 ? "" : "s", 1e3 * longest,
             rate, inv->meta.cpu);
}

/* Decimal places for a duration in seconds: two significant digits or
 * whole seconds. */
static int places(double s)
{
    return s >= 10 ? 0 : s >= 1 ? 1 : 2;
}

/* Trial calls before the first whole call of a large cell (check_budget):
 * for cells of at least TRIAL_FROM bytes, the first trial of TRIAL_FIRST. */
#define TRIAL_FROM ((size_t)64 << 20)
#define TRIAL_FIRST ((size_t)4 << 20)

/* Whether check_budget may estimate a call of cell c from calls of
 * smaller sizes: a built-in kernel that makes its own memory of the size
 * it is given (an mmap, a malloc), so that its call costs about in
 * proportion to that size (a page fault per page) and a smaller call
 * leaves nothing that later calls would see; and a cell large enough for
 * one whole call to outlast a budget (1000 rounds of 16 MiB took 10 s in
 * thread 001; 11 GiB took 37 s a call here).  A kernel of the caller's
 * own may ignore n (a pool set up for the cell's size): its trial would
 * say nothing, and only the test hook (measure.h) tries it. */
static int trial_applies(const sb_cell *c)
{
    const sb_kernel *k = c->kernel;
    if (c->size < TRIAL_FROM || !(k->flags & SB_KERNEL_OWN_MEMORY))
        return 0;
    return SB__TRIAL_FORCE || sb_kernel_find(k->name) == k;
}

/* Wall seconds of one call of cell c's kernel on n bytes. */
static double time_call(const sb_cell *c, struct work *w, size_t n)
{
    double t0 = sb__now();
    c->kernel->fn(w->dst, w->src, n, w->state);
    return sb__now() - t0;
}

/* The seconds one call of cell c takes, estimated before any call of its
 * own size (trial_applies): a call of 4 MiB, then of 4 times more each
 * time up to a 16th of the cell, each scaled to the cell's size.  The
 * larger trials correct the smaller: the cost per page here is 0.9 us at
 * 1 to 4 MiB and 2.3 us from 16 MiB on (the zeroing leaves the caches).
 * Each size is called twice and the faster call counts: a wait for the
 * CPU during one must not refuse a plan that fits (two calls of one size
 * differed by 1.5 to 9 times here while the machine was busy).  It
 * stops at the first estimate above bound.  The
 * trials cost about a sixth of the cell's call when they go all the way,
 * and an eighth of bound when they stop (each size is 4 times the one
 * before, which was within bound).  *trial: the size of the last. */
static double trial_cost(const sb_cell *c, struct work *w, double bound,
                         size_t *trial)
{
    size_t n = c->size, s = TRIAL_FIRST;
    size_t last = (n / 16) & ~(size_t)(SB_PAGE_SIZE - 1);
    double est;

    for (;;) {
        double t = fmin(time_call(c, w, s), time_call(c, w, s));
        est = t * (double)n / (double)s;
        *trial = s;
        if (est > bound || s >= last)
            return est;
        s = s > last / 4 ? last : 4 * s;
    }
}

/* Whether the plan can keep to the run's time budget, judged in the first
 * invocation once it is set up (a budget of 1 s once ran for 55 s,
 * its warm-up alone taking 16 samples of each of 10000 cells in each of 6
 * invocations).  One sample of one call per cell gives its cost and that
 * of the checks (a whole sample, re-warm call included, so that the
 * kernels see calls in the usual pairs).  What no deadline can cut, per
 * invocation: its setup (fork, timer calibration, buffers, counters;
 * measured here, from when the runner began it) and two samples per cell,
 * the warm-up's first and the first round's, each a call to re-warm, a
 * timed call and the checks.  When that cannot fit in the time left for
 * this and the remaining invocations (with some slack, below), the run is
 * refused (SB_EINVAL) with the time the whole plan needs: every
 * invocation's setup, warm-up (16 samples a cell) and --min-samples
 * rounds.  When only that fuller need exceeds the budget, a note says so:
 * the deadlines then give cells fewer samples.
 *
 * A cell whose one call may itself outlast the budget (an 11 GiB
 * mmap_touch: 37 s a call, and a budget of 0.1 s was refused only after
 * 74 s, the two calls of this sample) is first estimated from trial calls
 * of a fraction of its size (trial_cost), and refused before any whole
 * call when the six calls this invocation cannot do without (this
 * sample's two and the next two samples') and four in each later
 * invocation would not fit, beside what the cells before it will take.
 * The refusal names the cell and its cost a call. */
static int check_budget(const sb_plan *plan, const sb_measure_options *opt,
                        const sb__budget *bud, struct work *w,
                        struct probe *pr, double overhead, double target_s,
                        sb__invocation *inv, sb_error *err)
{
    size_t n = sb_plan_count(plan), done = 0, later, worst = 0;
    double now = sb__now(), setup = now - bud->started, t, check = 0;
    double hard = 0, full = 0, left, need, spent, worst_call = 0;
    /* The goal is to end within max(1.2 max_time, max_time + 2 s); half
     * of that allowance may go to what cannot be cut, the rest is kept
     * for the analysis and the machine's hiccups. */
    double allow = 0.5 * fmax(0.2 * opt->max_time, 2.0), committed = 0;

    later = bud->invocations_left ? bud->invocations_left - 1 : 0;
    spent = bud->started - bud->run_started; /* before this invocation */
    for (size_t i = 0; i < n; i++) {
        const sb_cell *c = sb_plan_cell(plan, i);
        struct sample s;
        double call, sample;
        size_t from = pr->ncost;
        if (i > 0 && sb__now() > bud->run_deadline)
            break; /* the rest is extrapolated */
        if (trial_applies(c)) {
            double calls = 6 + 4 * (double)later, est;
            double room = fmax(bud->run_deadline - sb__now(), 0) + allow -
                          (double)later * setup - committed;
            size_t trial = 0;
            est = trial_cost(c, &w[i], room / calls, &trial);
            if (calls * est > room) {
                /* The plan's need as below, from what is known: the
                 * cells so far and this one's estimate. */
                double f = full + 16 * est +
                           (8 + (double)opt->min_samples) *
                               (fmax(est, target_s) + est);
                need = spent + (double)(later + 1) * (setup + f);
                return sb__error(err, SB_EINVAL,
                                 "the plan needs about %.*f s (kernel %s, "
                                 "%zu bytes: about %.*f s a call, from a "
                                 "trial of %.3g MiB), more than --max-time "
                                 "%g: raise --max-time or shrink the plan",
                                 places(need), need, c->kernel->name,
                                 c->size, places(est), est,
                                 (double)trial / (1 << 20), opt->max_time);
            }
        }
        sb__take_sample(c, &w[i], 1, pr, overhead, &s);
        call = s.ticks / pr->hz;
        if (!(call > 0))
            call = 0;
        if (pr->ncost > from)
            check += pr->cost[from % COST_RING] / pr->hz;
        sample = w[i].cold || call > target_s ? call : target_s;
        hard += 2 * (2 * call);
        full += 8 * (2 * call) + (8 + (double)opt->min_samples) *
                                     (sample + call);
        /* What the cells so far will still take that no deadline cuts. */
        committed += (4 + 4 * (double)later) * call;
        if (call > worst_call) {
            worst_call = call;
            worst = i;
        }
        done++;
    }
    check /= (double)done; /* the mean checks of one sample */
    t = (double)n / (double)done; /* extrapolation to every cell */
    hard = t * (hard + 2 * check * (double)done);
    full = t * (full + check * (double)done * (16 + (double)opt->min_samples));
    need = spent + (double)(later + 1) * (setup + full);
    left = bud->run_deadline - sb__now();
    /* A plan that would overrun by more than the allowance is refused now
     * rather than run.  Time already overrun (a setup under valgrind) is
     * spent either way: only what is still to come counts.  When one
     * cell's calls are most of it, the line names that cell. */
    if (hard + (double)later * (setup + hard) > fmax(left, 0) + allow) {
        char why[128] = "";
        const sb_cell *c = sb_plan_cell(plan, worst);
        if (8 * worst_call >= hard)
            snprintf(why, sizeof why, "; kernel %s, %zu bytes: about %.*f "
                     "s a call", c->kernel->name, c->size,
                     places(worst_call), worst_call);
        return sb__error(err, SB_EINVAL,
                         "the plan needs about %.*f s (%zu invocation%s of "
                         "%.*f s for %zu cell%s and --min-samples %zu%s), "
                         "more than --max-time %g: raise --max-time or "
                         "shrink the plan", places(need), need, later + 1,
                         later ? "s" : "", places(setup + full), setup + full,
                         n, n == 1 ? "" : "s",
                         opt->min_samples, why, opt->max_time);
    }
    if (need > opt->max_time)
        sb__meta_note(&inv->meta, "budget: the plan needs about %.*f s for "
                         "--min-samples %zu in every cell, more than "
                         "--max-time %g; cells get fewer samples",
             places(need), need, opt->min_samples, opt->max_time);
    return SB_OK;
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

/* The ticks a sample lasts: target, or less, so that ten rounds of the
 * cells fit in the budget left, with a note that says so. */
static double fit_samples(const struct held *h, double budget, double target,
                          sb__invocation *inv)
{
    double hz = inv->meta.timer.hz;

    if (budget > 0 && target > 0.9 * budget * hz / (10.0 * (double)h->n)) {
        double was = target;
        target = 0.9 * budget * hz / (10.0 * (double)h->n);
        sb__meta_note(&inv->meta, "budget: samples of about %.0f us instead of "
                         "--sample-us %.0f, so that ten rounds fit in the "
                         "invocation's %.3g s", 1e6 * target / h->pr.hz,
             1e6 * was / h->pr.hz, budget);
    }
    return target;
}

/* Warm up and calibrate every cell (the top of the file, step 4), in at
 * most a tenth of the budget, then choose which cells keep the samples
 * an interrupt hit. */
static void warm_up_cells(struct held *h, double overhead, double target,
                          double t0, double budget, const sb__stop *stop,
                          sb__invocation *inv)
{
    size_t n = h->n;

    for (size_t i = 0; i < n && !sb__stopped(stop); i++) {
        double until = t0 + 0.1 * budget * (double)(i + 1) / (double)n;
        inv->cells[i].iters =
            warm_up(sb_plan_cell(h->plan, i), &inv->cells[i], &h->w[i],
                    &h->pr, overhead, target, until, stop);
    }
    choose_irq_exemptions(h->plan, inv, h->w, &h->pr);
}

/* Wait for the core to become quiet again after a sample that found it
 * shared, until the contention probe (timed between two clock chains, as
 * beside a sample) reads quiet twice in a row or until `until`; returns
 * the seconds waited.  A host shared 75% of the time otherwise fills a
 * run with rejects: each sample costs its checks (50-100 us) as well as
 * its own time, a probe 1-2 us. */
static double wait_quiet(struct probe *pr, double until)
{
    const sb__probe *cp = &pr->cp;
    double t0 = sb__now(), now = t0;
    int quiet = 0;

    while (quiet < 2 && now < until) {
        struct sample s;
        uint64_t cb = sb__probe_time_chain(cp), ld = sb__probe_time_ldst(cp);
        uint64_t ca = sb__probe_time_chain(cp);
        s.clock = sb__probe_sample_clock(SB__PROBE_IMUL_CYCLES *
                                             (double)cp->imul_ops,
                                         (double)cb, (double)ca,
                                         cp->overhead);
        if (sb__probe_contended(sb__ldst_value(pr, &s, ld), pr->quiet.level,
                                pr->quiet.margin) ||
            (SB__PROBE_FORCE & 128))
            quiet = 0;
        else
            quiet++;
        now = sb__now();
    }
    return now - t0;
}

/* The reference cell of the host profile (README, "The host profile"):
 * a hot 4 KiB libc memcpy in core cycles per call, timed at start-up in
 * 128 samples of about 10 us, each between two clock chains and two
 * contention probes as the plan's samples are.  The samples whose probes
 * the quiet model of their own probe values (started from the run's
 * prior) finds contended are left out; the reference is the median of
 * the rest, NAN with fewer than 16 or without the chain's clock.  Its
 * purpose is to be compared across runs: an invocation on a shared core
 * throughout gives the shared speed here, which the profile then sees. */
static double reference_speed(struct probe *pr, const sb__budget *bud)
{
    enum { N = 128, SIZE = 4096 };
    const sb_kernel *libc = sb_kernel_find("libc");
    const sb__probe *cp = &pr->cp;
    double v[N], pv[N], work[N], level, margin, ops;
    size_t k, m = 0;
    void *buf = NULL;
    char *src, *dst;

    if (!libc || !cp->clock_ok || pr->i_cyc >= 0 || !cp->ldst_reps ||
        posix_memalign(&buf, 4096, 2 * SIZE) != 0)
        return NAN;
    src = buf;
    dst = src + SIZE;
    memset(src, 1, SIZE);
    memset(dst, 2, SIZE);
    ops = SB__PROBE_IMUL_CYCLES * (double)cp->imul_ops;
    /* k calls of about 10 us: a 4 KiB copy takes 40-80 ns on the hosts
     * seen (150-220 core cycles). */
    k = 128;
    libc->fn(dst, src, SIZE, NULL);
    for (int i = 0; i < N; i++) {
        struct sample s;
        uint64_t lb = sb__probe_time_ldst(cp), cb = sb__probe_time_chain(cp);
        uint64_t t = sb__timed_sample(pr->tsc, libc->fn, dst, src, SIZE,
                                      NULL, k);
        uint64_t ca = sb__probe_time_chain(cp), la = sb__probe_time_ldst(cp);
        double a, b;
        s.clock = sb__probe_sample_clock(ops, (double)cb, (double)ca,
                                         cp->overhead);
        a = sb__ldst_value(pr, &s, lb);
        b = sb__ldst_value(pr, &s, la);
        if (!isfinite(s.clock) || !isfinite(a) || !isfinite(b))
            continue;
        v[m] = ((double)t - cp->overhead) / (double)k * s.clock;
        pv[m++] = a > b ? a : b;
    }
    free(buf);
    if (m < 16)
        return NAN;
    memcpy(work, pv, m * sizeof *work);
    sb__probe_model(work, m, &level, &margin, NULL);
    /* The prior decides as in the invocation's quiet model (probe.h);
     * where it leaves too few samples, the copy's own quiet mode: the
     * shared core's speed, then, which is what the profile must see. */
    for (int pass = 0; pass < 2; pass++) {
        sb__quiet q;
        size_t kept = 0;
        sb__quiet_init(&q, NULL, NULL, 0, 0);
        sb__quiet_seed(&q, level, margin, 0);
        if (!pass)
            sb__quiet_seed(&q, bud->quiet_prior, bud->quiet_prior_margin, 1);
        for (size_t i = 0; i < m; i++)
            if (!sb__probe_contended(pv[i], q.level, q.margin))
                work[kept++] = v[i];
        if (kept >= 16)
            return sb__median_inplace(work, kept);
    }
    return NAN;
}

/* The rounds (the top of the file, step 5) until the stop rule, the
 * sample cap, the deadline or a stop request.  After a sample rejected
 * for a shared core alone, the next waits for a quiet core
 * (wait_quiet), at most 50 ms at a time and half of the invocation's
 * rounds in all, so that a core shared throughout still gets its
 * samples taken and marked. */
static int run_rounds(struct held *h, const sb_measure_options *opt,
                      double overhead, double t0, double deadline,
                      const sb__stop *stop, sb__invocation *inv,
                      sb_error *err)
{
    size_t n = h->n, check_at = 0;
    double now, seen_at = -1, start = sb__now();
    double wait_cap = 0.5 * (deadline - start);
    /* Only with the chain's clock: PAPI's cycles come with samples, and
     * without a clock the probe in ticks moves with the clock steps. */
    int can_wait = opt->reject == SB_REJECT_DISTURBED &&
                   h->pr.cp.clock_ok && h->pr.i_cyc < 0 &&
                   !(SB__PROBE_FORCE & 32);

    while (!sb__stopped(stop)) {
        int done, late = 0, count_all;
        gsl_ran_shuffle(h->rng, h->order, n, sizeof *h->order);
        for (size_t j = 0; j < n && !sb__stopped(stop); j++) {
            size_t i = h->order[j];
            sb__raw_cell *r = &inv->cells[i];
            struct sample v;
            /* The deadline ends a round in its middle (a round of 10000
             * cells lasts a second), but not the first, which gives every
             * cell a sample: check_budget made sure it fits. */
            if (inv->rounds > 0 && sb__now() >= deadline) {
                late = 1;
                break;
            }
            sb__take_sample(sb_plan_cell(h->plan, i), &h->w[i], r->iters,
                            &h->pr, overhead, &v);
            if (sb__record_sample(opt, &h->w[i], r, &v, 0) != SB_OK)
                return sb__error(err, SB_ENOMEM,
                                 "out of memory for samples");
            if (can_wait && v.flags == 1u << SB_REJECT_SHARED_CORE &&
                h->pr.waited < wait_cap && isfinite(h->pr.quiet.level)) {
                double until = fmin(deadline, sb__now() + 0.05);
                until = fmin(until, sb__now() + wait_cap - h->pr.waited);
                h->pr.waited += wait_quiet(&h->pr, until);
            }
        }
        if (sb__stopped(stop) || late)
            break; /* the partial round's samples are kept */
        inv->rounds++;
        now = sb__now();
        inv->elapsed = now - t0;
        if (sb__progress_call(opt, h->a, 0, h->index, inv->rounds,
                              inv->elapsed, deadline - now, n, &h->seen)) {
            sb__stop_set(stop); /* this run only */
            break;
        }
        if (inv->rounds >= opt->max_samples || now >= deadline)
            break;
        /* A check that judges every cell for progress_state, at most as
         * often as a progress line is drawn (10 a second); between them
         * the first cell short of the target ends it, as without. */
        count_all = opt->progress_state && now - seen_at >= 0.1;
        done = sb__stop_rule(h->plan, inv, opt, h->a, &check_at, &h->scratch,
                             count_all ? &h->seen : NULL);
        if (count_all && h->seen.at == inv->rounds)
            seen_at = now;
        if (done == SB_ENOMEM)
            return sb__error(err, SB_ENOMEM, "out of memory");
        if (done)
            break;
    }
    return SB_OK;
}

/* The deadline (or the sample cap) came before some cell had a sample it
 * could keep: a run of 0.05 s takes one sample a cell, and one context
 * switch in it would leave the cell empty, which fails the run.  Such
 * cells take more samples, until each has one, for at most a tenth of the
 * invocation's budget (20 ms at least) past the deadline and 64 samples
 * each: only a persistent disturbance, or a kernel whose calls keep
 * failing, leaves a cell empty.  A sample that waited for the CPU is kept
 * from the refill's second sample on, with the wait taken off its time
 * (record_sample): a CPU busy with another task throughout must not leave
 * a cell empty when the wait can be counted.  A sample whose only other
 * disturbance is a shared core is kept with its flag once the cell has
 * taken 32 samples in the invocation (its rounds' included) or half the
 * refill's time is gone: a core shared for the whole run is what the
 * cell measured, and the run's notes say so ("measured on a shared
 * core"), rather than an empty cell failing it.  Counted in samples
 * alone, a cell of 20 ms samples (a 16 MiB mmap_touch on a busy CPU)
 * never got that far in a refill of 0.2 s. */
static int fill_empty_cells(struct held *h, const sb_measure_options *opt,
                            double overhead, double deadline, double budget,
                            const sb__stop *stop, sb__invocation *inv,
                            sb_error *err)
{
    /* From now when the deadline has passed already: a budget of 10 ms
     * is gone in the setup, and the refill must still get its time. */
    double start = fmax(deadline, sb__now());
    double hard = start + fmax(0.1 * budget, 0.02);
    double half = start + 0.5 * (hard - start);

    for (int extra = 0; extra < 64 && sb__now() < hard; extra++) {
        int wanting = 0;
        for (size_t i = 0; i < h->n && !sb__stopped(stop); i++) {
            sb__raw_cell *r = &inv->cells[i];
            struct sample v;
            unsigned keep = 0;
            if (r->nsamples || !r->iters)
                continue;
            wanting = 1;
            if (sb__rejected_of(r) >= 32 || sb__now() >= half)
                keep |= 1u << SB_REJECT_SHARED_CORE;
            if (extra >= 1)
                keep |= 1u << SB_REJECT_CPU_WAIT;
            sb__take_sample(sb_plan_cell(h->plan, i), &h->w[i], r->iters,
                            &h->pr, overhead, &v);
            if (sb__record_sample(opt, &h->w[i], r, &v, keep) != SB_OK)
                return sb__error(err, SB_ENOMEM,
                                 "out of memory for samples");
        }
        if (!wanting || sb__stopped(stop))
            break;
    }
    return SB_OK;
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
    h.pr.tsc = inv->meta.timer.kind == SB_TIMER_TSC;
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
    inv->meta.reference_cycles = reference_speed(&h.pr, bud);

    if (bud->check) {
        rc = check_budget(plan, opt, bud, h.w, &h.pr, overhead,
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
    target = fit_samples(&h, budget, target, inv);
    warm_up_cells(&h, overhead, target, t0, budget, stop, inv);

    rc = run_rounds(&h, opt, overhead, t0, deadline, stop, inv, err);
    if (rc != SB_OK)
        goto out;
    if (!sb__stopped(stop)) {
        rc = fill_empty_cells(&h, opt, overhead, deadline, budget, stop,
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
