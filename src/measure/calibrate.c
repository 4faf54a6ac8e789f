/*
 * calibrate.c: what an invocation measures before its rounds (measure.c's
 * top comment, step 4): each cell warmed up and its iterations per
 * sample calibrated, the samples shortened to fit the budget, the cells
 * whose samples cannot dodge the interrupts, the first invocation's
 * check that the plan fits the run's budget (trial calls of large cells
 * included), and the host profile's reference cell.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "measure_internal.h"
#include "meta.h"
#include "plan.h"
#include "probe.h"
#include "timer.h"
#include "stats_internal.h"

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

/* Trial calls before the first whole call of a large cell (sb__check_budget):
 * for cells of at least TRIAL_FROM bytes, the first trial of TRIAL_FIRST. */
#define TRIAL_FROM ((size_t)64 << 20)
#define TRIAL_FIRST ((size_t)4 << 20)

/* Whether sb__check_budget may estimate a call of cell c from calls of
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
int sb__check_budget(const sb_plan *plan, const sb_measure_options *opt,
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

/* The ticks a sample lasts: target, or less, so that ten rounds of the
 * cells fit in the budget left, with a note that says so. */
double sb__fit_samples(const struct held *h, double budget, double target,
                       sb__invocation *inv)
{
    double hz = inv->meta.timer.hz;

    if (budget > 0 && target > 0.9 * budget * hz / (10.0 * (double)h->n)) {
        double was = target;
        target = 0.9 * budget * hz / (10.0 * (double)h->n);
        sb__meta_note(&inv->meta,
                      "budget: samples of about %.0f us instead of "
                      "--sample-us %.0f, so that ten rounds fit in the "
                      "invocation's %.3g s",
                      1e6 * target / h->pr.hz, 1e6 * was / h->pr.hz, budget);
    }
    return target;
}

/* Warm up and calibrate every cell (measure.c's top comment, step 4),
 * in at most a tenth of the budget, then choose which cells keep the samples
 * an interrupt hit. */
void sb__warm_up_cells(struct held *h, double overhead, double target,
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

/* The reference cell of the host profile (README, "The host profile"):
 * a hot 4 KiB libc memcpy in core cycles per call, timed at start-up in
 * 128 samples of about 10 us, each between two clock chains and two
 * contention probes as the plan's samples are.  The samples whose probes
 * the quiet model of their own probe values (started from the run's
 * prior) finds contended are left out; the reference is the median of
 * the rest, NAN with fewer than 16 or without the chain's clock.  Its
 * purpose is to be compared across runs: an invocation on a shared core
 * throughout gives the shared speed here, which the profile then sees. */
double sb__reference_speed(struct probe *pr, const sb__budget *bud)
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
