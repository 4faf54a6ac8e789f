/*
 * sample.c: one sample of one cell and its checks (measure.c's top
 * comment, step 6): the re-warm call, the checks and probes before and
 * after the timed calls, and what they saw as a struct sample (its
 * ticks, disturbance flags, core clock, contention probe, CPU time, wait
 * for the CPU and counters).  What is kept of it is record.c's.
 *
 * Interrupts.  /proc/interrupts is read once per sample, after the timed
 * region, and the increase since the previous read is blamed on this
 * sample.  That window also holds the previous sample's last checks and
 * this sample's re-warm call and first checks: an interrupt there rejects
 * a sample it did not touch (a false positive, never a miss).  When more
 * than 1 ms passed since the previous read (a long re-warm call, the stop
 * rule's sorting, another cell's long sample), the file is read again just
 * before the sample, so the window stays short.  A cell whose samples
 * cannot dodge interrupts (more than half would see one: a 16 MiB
 * mmap_touch call outlasts a 250 Hz tick) does not reject for them; see
 * choose_irq_exemptions() (calibrate.c).
 *
 * Counters.  A sample's count is (after - before - e) / k, e the median
 * count of an empty sample (the two reads with nothing between, measured
 * once when the counters open), subtracted like the timer's overhead: the
 * hardware counters see the reads' own cycles and instructions; for the
 * software events e is 0.
 *
 * What the checks cost per sample, measured in place (medians of 20001
 * calls, pinned, on the 2-vCPU KVM guest this was written on, Linux 6.18,
 * 2.1 GHz Xeon; timer reads excluded):
 *     getrusage(RUSAGE_THREAD)              0.29-0.37 us, twice
 *     sched_getcpu() (vDSO)                 0.005-0.01 us, twice
 *     read(2) of the perf group of 3        0.54-0.65 us, twice
 *     PAPI_read                             not measured here (no PMU)
 *     schedstat pread and parse             0.34 us, twice
 *     clock chain (512 imul)                0.54 us, twice
 *     contention probe (32 reps, 1 warm)    0.37 us, twice (the walk of
 *                                           stores to lines loaded
 *                                           later: 0.6 us at 3.7 GHz on a
 *                                           Zen 4 guest)
 *     /proc/interrupts pread and parse      36 us (2.2 KB), once
 *     timer reads around the checks         0.04 us per pair, twice
 * about 40 us in all, of which /proc/interrupts is 90%: that is why it is
 * read once per sample rather than on both sides of the timed region.  A
 * run measures its own (ticks from before the first check to after the
 * last, per sample, outside the timed region) and reports the median of
 * the last 8191 samples as sb_meta.check_cost_seconds: 24-54 us here,
 * depending on what else runs.  With the default 50 us samples the checks
 * add roughly 70% to the wall time of a run.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>

#include "counters.h"
#include "failed.h"
#include "interrupts.h"
#include "measure_internal.h"
#include "probe.h"
#include "timer.h"
#include "arch/arch.h"
#include "arch/ticks.h"

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* Read /proc/interrupts: 0 and the increase since the last read in *d, or
 * -1.  tick: the timer now. */
static int irq_update(struct probe *pr, uint64_t tick, uint64_t *d)
{
    uint64_t now;
    if (sb__irq_read(&pr->irq, &now) != 0)
        return -1;
    *d = now >= pr->irq_last ? now - pr->irq_last : 0;
    pr->irq_last = now;
    pr->irq_tick = tick;
    return 0;
}

/* One contention probe's raw ticks ld as the sample's metric: core
 * cycles per rep with the sample's clock, ticks per rep while the clock
 * is unverified (the run may yet refuse it) or unknown; NAN: none. */
double sb__ldst_value(const struct probe *pr, const struct sample *s,
                      uint64_t ld)
{
    const sb__probe *cp = &pr->cp;
    double v;
    if (!ld || !((double)ld > cp->overhead))
        return NAN;
    v = ((double)ld - cp->overhead) / (double)cp->ldst_reps;
    if (pr->i_cyc >= 0 || cp->clock_ok)
        v *= s->clock; /* NAN when this sample's is unknown */
    return v;
}

/* A probe's raw ticks t over ops operations as a reading: ticks per
 * operation, the timer's overhead taken off; NAN when not read. */
static double per_op(const sb__probe *cp, uint64_t t, double ops)
{
    if (!t || !(ops > 0) || !((double)t > cp->overhead))
        return NAN;
    return ((double)t - cp->overhead) / ops;
}

/* The sample's core clock and contention probe value, from the counters
 * (PAPI_TOT_CYC) or the chains timed before (cb) and after (ca) it, and
 * the contention probes' raw ticks before (lb) and after (la) it; the
 * probes' cost and the rings of their values, of which the quiet model
 * is fitted. */
static void probe_values(struct probe *pr, struct sample *s, uint64_t t,
                         uint64_t cb, uint64_t ca, uint64_t lb, uint64_t la)
{
    const sb__probe *cp = &pr->cp;
    double ops = (double)cp->imul_ops, vb, va;

    s->probes[SB_PROBE_CHAIN_BEFORE] = per_op(cp, cb, ops);
    s->probes[SB_PROBE_CHAIN_AFTER] = per_op(cp, ca, ops);
    s->probes[SB_PROBE_CONTENTION_BEFORE] =
        per_op(cp, lb, (double)cp->ldst_reps);
    s->probes[SB_PROBE_CONTENTION_AFTER] =
        per_op(cp, la, (double)cp->ldst_reps);
    /* The chains' clock from the readings just recorded, so that a run
     * decided again from them (sb_analysis_options.chain_apart) with the
     * measurement's rule gives back this clock to the bit. */
    s->clock = NAN;
    if (pr->i_cyc >= 0 && isfinite(s->ctr[pr->i_cyc]) &&
        s->ctr[pr->i_cyc] > 0 && s->ticks > 0)
        s->clock = s->ctr[pr->i_cyc] / s->ticks;
    else if (cp->clock_ok || cp->clock_unverified)
        s->clock = sb__probe_chain_clock(s->probes[SB_PROBE_CHAIN_BEFORE],
                                         s->probes[SB_PROBE_CHAIN_AFTER],
                                         SB__PROBE_CHAIN_APART);
    /* The slower of the two contention probes: a core shared from either
     * end of the sample on shows in one of them (a single probe before
     * each sample kept 6.5% of its samples at a shared core's speed here,
     * both 4%). */
    vb = sb__ldst_value(pr, s, lb);
    va = sb__ldst_value(pr, s, la);
    s->ldst = isnan(vb) ? va : isnan(va) ? vb : vb > va ? vb : va;
    /* The cost share per sample, for its median: a sum would be ruled
     * by the few samples a preemption stretched. */
    if (pr->share && t > 0 && (cb || ca || lb || la))
        pr->share[pr->nshare++ % COST_RING] =
            (double)(cb + ca + lb + la) / (double)t;
    if (pr->clk && isfinite(s->clock))
        pr->clk[pr->nclk++ % COST_RING] = s->clock;
    /* The invocation's quiet model (probe.h, sb__quiet): the start-up's
     * calibration until there are 32 values, then fits of the values so
     * far.  The calibration, 255 probes back to back, runs in other
     * conditions than the probes beside samples and is not kept. */
    sb__quiet_add(&pr->quiet, vb);
    sb__quiet_add(&pr->quiet, va);
}

/* The test hook (probe.h): disturbances made up beside chosen samples. */
static void force_probes(struct probe *pr, struct sample *s)
{
    int f = SB__PROBE_FORCE;
    size_t n = pr->nforced++;
    if ((f & 4 && n % 2) || (f & 8 && n % 3))
        return;
    if (f & 1)
        s->flags |= 1u << SB_REJECT_CPU_WAIT;
    if (f & 2)
        s->flags |= 1u << SB_REJECT_SHARED_CORE;
}

/* How long the thread waited for its CPU inside a sample's timed region,
 * into s (wait, wait_s, timed_s): run_delay grew by ns between its two
 * reads, which hold the timed region (timed ticks, the timer's overhead
 * taken off) and gap ticks of the checks beside it.  A quiet sample's
 * checks take pr->gap_min (the fewest seen); any more the gap took was
 * a wait there, outside the timed region, and is not taken off the
 * sample.  So the wait counted is ns less the gap's excess, within 0 and
 * the timed ticks: exact to the checks' own jitter (a few tenths of a
 * microsecond, against waits of milliseconds). */
static void wait_in_sample(struct probe *pr, struct sample *s, uint64_t ns,
                           double gap, double timed, size_t k)
{
    double wait = (double)ns * 1e-9 * pr->hz;

    /* A wait only lengthens a gap: the fewest of all the samples' is a
     * quiet one's. */
    if (!(gap >= pr->gap_min))
        pr->gap_min = gap;
    if (isfinite(pr->gap_min) && gap > pr->gap_min)
        wait -= gap - pr->gap_min;
    if (!(timed > 0))
        timed = 0;
    wait = fmin(fmax(wait, 0), timed);
    s->wait = wait / (double)k;
    s->wait_s = wait / pr->hz;
    s->timed_s = timed / pr->hz;
}

/* A sample's user and system time and its counters per iteration, from
 * the reads either side of it: a (before) and b (after) are NULL when
 * getrusage failed, which leaves the counters unknown (NAN) too, since
 * those from getrusage are filled from them here. */
static void sample_counters(const struct probe *pr, struct sample *s,
                            const struct rusage *a, const struct rusage *b,
                            uint64_t *va, uint64_t *vb, int ok_ctr, size_t k)
{
    s->user = a ? seconds(b->ru_utime) - seconds(a->ru_utime) : 0;
    s->sys = a ? seconds(b->ru_stime) - seconds(a->ru_stime) : 0;
    if (a) {
        sb__counters_rusage(pr->ctr, a, va);
        sb__counters_rusage(pr->ctr, b, vb);
    }
    for (size_t j = 0; j < pr->nctr; j++)
        s->ctr[j] = ok_ctr && a
                        ? ((double)(vb[j] - va[j]) - pr->ctr_overhead[j]) /
                              (double)k
                        : NAN;
}

/* One sample of k iterations with its checks (measure.c's top comment,
 * step 6).  Hot: one untimed call first brings the buffers back into the
 * cache.  Cold: the buffers are flushed from every cache level instead
 * (k is then 1). */
void sb__take_sample(const sb_cell *c, struct work *w, size_t k,
                     struct probe *pr, double overhead, struct sample *s)
{
    sb_kernel_fn fn = c->kernel->fn;
    struct rusage a, b;
    uint64_t va[SB_MAX_COUNTERS], vb[SB_MAX_COUNTERS];
    uint64_t c0, c0w, c1, c2, c2b, c3, t, dirq = 0, cb, ca, lb, la, rd0 = 0,
             rd1 = 0;
    int ok_ru, ok_ctr, cpu0, cpu1, tsc = pr->tsc, e, ok_rd;
    size_t failed;

    if (w->cold) {
        sb__arch_flush(w->src, c->size);
        sb__arch_flush(w->dst, c->size);
    } else
        fn(w->dst, w->src, c->size, w->state); /* re-warm, untimed */

    /* Checks before: the counters last, next to the timer. */
    c0 = sb__timer_start(tsc);
    if (pr->irq_ok && c0 - pr->irq_tick > pr->rebase_ticks)
        irq_update(pr, c0, &dirq);
    ok_ru = getrusage(RUSAGE_THREAD, &a) == 0;
    cpu0 = sched_getcpu();
    /* The gap that prices a wait outside the timed region starts here, at
     * run_delay's first read: the interrupt counts and getrusage above
     * are outside its window, and a slow read of /proc/interrupts there
     * must not be taken for a wait inside it. */
    c0w = sb__timer_start(tsc);
    ok_rd = sb__probe_run_delay(&pr->cp, &rd0) == 0;
    /* The probes next to the timed region: contention, then the clock. */
    lb = sb__probe_time_ldst(&pr->cp);
    if (pr->cp.imul_ops || pr->cp.ldst_reps)
        sb__probe_pair(&pr->cp);
    cb = sb__probe_time_chain(&pr->cp);
    failed = sb__kernel_failures(NULL);
    ok_ctr = !pr->nctr || sb__counters_read(pr->ctr, va) == 0;
    c1 = sb__timer_stop(tsc);

    t = sb__timed_sample(tsc, fn, w->dst, w->src, c->size, w->state, k);

    /* Checks after: the counters first. */
    c2 = sb__timer_start(tsc);
    ok_ctr = (!pr->nctr || sb__counters_read(pr->ctr, vb) == 0) && ok_ctr;
    ca = sb__probe_time_chain(&pr->cp);
    la = sb__probe_time_ldst(&pr->cp);
    failed = sb__kernel_failures(&e) - failed;
    cpu1 = sched_getcpu();
    /* run_delay inside getrusage's window: a wait always shows a switch
     * too (the reject counts name the wait). */
    ok_rd = ok_rd && sb__probe_run_delay(&pr->cp, &rd1) == 0;
    c2b = sb__timer_start(tsc);
    ok_ru = getrusage(RUSAGE_THREAD, &b) == 0 && ok_ru;
    dirq = 0;
    if (pr->irq_ok && irq_update(pr, c2, &dirq) != 0)
        dirq = 0;
    c3 = sb__timer_stop(tsc);

    pr->cost[pr->ncost++ % COST_RING] = (double)((c1 - c0) + (c3 - c2));

    s->ticks = ((double)t - overhead) / (double)k;
    sample_counters(pr, s, ok_ru ? &a : NULL, ok_ru ? &b : NULL, va, vb,
                    ok_ctr, k);

    probe_values(pr, s, t, cb, ca, lb, la);
    s->flags = 0;
    s->voluntary = !ok_ru || a.ru_nvcsw != b.ru_nvcsw;
    wait_in_sample(pr, s, ok_rd && rd1 > rd0 ? rd1 - rd0 : 0,
                   (double)((c1 - c0w) + (c2b - c2)), (double)t - overhead,
                   k);
    if (ok_rd && rd1 > rd0)
        s->flags |= 1u << SB_REJECT_CPU_WAIT;
    if (sb__probe_contended(s->ldst, pr->quiet.level, pr->quiet.margin) &&
        !(SB__PROBE_FORCE & 32))
        s->flags |= 1u << SB_REJECT_SHARED_CORE;
    if (SB__PROBE_FORCE)
        force_probes(pr, s);
    if (pr->i_ctxsw >= 0 && ok_ctr && (ok_ru || !pr->ctxsw_rusage) &&
        vb[pr->i_ctxsw] != va[pr->i_ctxsw])
        s->flags |= 1u << SB_REJECT_CTXSW;
    /* getrusage is read for every sample anyway: its count of switches
     * backs up the counter, whatever the counter's source. */
    if (ok_ru && a.ru_nvcsw + a.ru_nivcsw != b.ru_nvcsw + b.ru_nivcsw)
        s->flags |= 1u << SB_REJECT_CTXSW;
    if ((pr->i_migr >= 0 && ok_ctr && vb[pr->i_migr] != va[pr->i_migr]) ||
        (cpu0 >= 0 && cpu1 >= 0 && cpu0 != cpu1))
        s->flags |= 1u << SB_REJECT_MIGRATION;
    if (dirq)
        s->flags |= 1u << SB_REJECT_INTERRUPT;
    if (failed) {
        s->flags |= 1u << SB_REJECT_KERNEL_FAILED;
        w->fail_errno = e;
    }
}
