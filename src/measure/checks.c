/*
 * checks.c: the disturbance checks of one invocation opened and closed
 * (measure.c's top comment, steps 3 and 6): the counters and their cost
 * in an empty sample, /proc/interrupts on the pinned CPU, the clock and
 * contention probes (probe.c) with the quiet model's start-up
 * calibration; at the end the invocation's figures (interrupt rate,
 * check cost, the probes' clock, cost and shares).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "interrupts.h"
#include "measure_internal.h"
#include "meta.h"
#include "probe.h"
#include "timer.h"
#include "arch/ticks.h"
#include "stats_internal.h"

static void empty_call(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)n, (void)state;
}

/* The counts an empty sample (no kernel call) shows: the counters' own
 * reads and the timer's, subtracted from every sample like the timer
 * overhead.  0 for the software events, which count events, not work. */
static void counter_overhead(struct probe *pr)
{
    enum { REPS = 101 };
    double d[SB_MAX_COUNTERS][REPS];
    volatile size_t k = 0; /* the compiler must not know it is 0 */
    uint64_t va[SB_MAX_COUNTERS] = {0}, vb[SB_MAX_COUNTERS] = {0};
    size_t got = 0;

    memset(pr->ctr_overhead, 0, sizeof pr->ctr_overhead);
    if (!pr->nctr)
        return;
    for (int i = 0; i < REPS; i++) {
        if (sb__counters_read(pr->ctr, va) != 0)
            continue;
        (void)sb__timed_sample(pr->tsc, empty_call, NULL, NULL, 0, NULL, k);
        if (sb__counters_read(pr->ctr, vb) != 0)
            continue;
        for (size_t j = 0; j < pr->nctr; j++)
            d[j][got] = (double)(vb[j] - va[j]);
        got++;
    }
    /* Counters from getrusage are not read here: their places stay 0. */
    for (size_t j = 0; j < pr->nctr && got; j++)
        pr->ctr_overhead[j] = sb__median_inplace(d[j], got);
}

void sb__free_probes(struct probe *pr)
{
    if (pr->cp_open)
        sb__probe_close(&pr->cp);
    pr->cp_open = 0;
    free(pr->ldst);
    free(pr->clk);
    free(pr->share);
    pr->ldst = pr->clk = pr->share = NULL;
}

/* The contention probe's quiet model at start-up, before any sample:
 * sb__probe_model over 255 probes, each converted with the clock of a
 * chain timed next to it.  Without a clock, ticks per rep. */
static void calibrate_quiet(struct probe *pr)
{
    enum { N = 255 };
    double v[N], level, margin;
    size_t m = 0;
    const sb__probe *cp = &pr->cp;

    if (!cp->ldst_reps)
        return;
    for (int i = 0; i < N; i++) {
        double ld = (double)sb__probe_time_ldst(cp) - cp->overhead, clk = 1;
        if (cp->clock_ok)
            clk = sb__probe_clock(SB__PROBE_IMUL_CYCLES *
                                      (double)cp->imul_ops,
                                  (double)sb__probe_time_chain(cp),
                                  cp->overhead);
        else if (pr->i_cyc >= 0)
            return; /* PAPI's cycles only beside samples: the run's
                       values set the level */
        if (ld > 0 && isfinite(clk))
            v[m++] = ld / (double)cp->ldst_reps * clk;
    }
    sb__probe_model(v, m, &level, &margin, NULL);
    sb__quiet_seed(&pr->quiet, level, margin, 0);
}

/* A fresh quiet model.  Without a core clock, ticks mix the host's clock
 * steps (3.5% each, up to 11% apart here) into the probe: its margins are
 * at least SB__PROBE_MARGIN_TICKS. */
static void open_quiet(struct probe *pr)
{
    int cycles = pr->i_cyc >= 0 || pr->cp.clock_ok;
    sb__quiet_init(&pr->quiet, pr->ldst, pr->ldst ? pr->ldst + COST_RING
                                                  : NULL,
                   pr->ldst ? COST_RING : 0,
                   cycles ? 0 : SB__PROBE_MARGIN_TICKS);
}

/* The test hook's verdict on the start-up check (bit 6 of
 * SB__PROBE_FORCE): passed, or failed as a disturbance fails it; the
 * margin and the quiet level follow, as open_probes sets them. */
void sb__force_check(struct probe *pr, sb_meta *m, int pass)
{
    pr->cp.clock_ok = pass;
    pr->cp.clock_unverified = !pass;
    snprintf(m->probe, sizeof m->probe, pass ? "imul-chain" : "unverified");
    snprintf(m->probe_note, sizeof m->probe_note, "%s",
             pass ? "imul/add latency ratio 3.000 (the test hook)"
                  : "clock probe refused: the test hook failed the check");
    if (pass)
        m->probe_ratio = SB__PROBE_IMUL_CYCLES;
    open_quiet(pr);
    calibrate_quiet(pr);
}

/* Open the probes (probe.c): the clock from PAPI_TOT_CYC when it is read,
 * else the imul chain once it passed its start-up check. */
static int open_probes(struct probe *pr, sb__invocation *inv,
                       sb_error *err)
{
    sb_meta *m = &inv->meta;
    int rc;

    pr->i_cyc = -1;
    rc = sb__probe_open(&pr->cp, pr->tsc, pr->hz, m, err);
    if (rc != SB_OK)
        return rc;
    pr->cp_open = 1;
    for (size_t j = 0; j < m->ncounters && j < SB_MAX_COUNTERS; j++)
        if (strcmp(m->counter_names[j], "PAPI_TOT_CYC") == 0)
            pr->i_cyc = (int)j;
    if (pr->i_cyc >= 0) {
        /* Without the chains (aarch64) there was nothing to refuse. */
        const char *chain = pr->cp.clock_ok ? "agrees with add"
                            : strcmp(m->probe, "none") == 0
                                ? "none on this architecture"
                                : "refused";
        snprintf(m->probe, sizeof m->probe, "pmu");
        snprintf(m->probe_note, sizeof m->probe_note,
                 "core cycles from PAPI_TOT_CYC (imul chain: %s)", chain);
    }
    pr->ldst = malloc(2 * COST_RING * sizeof *pr->ldst);
    pr->clk = malloc(COST_RING * sizeof *pr->clk);
    pr->share = malloc(COST_RING * sizeof *pr->share);
    if (!pr->ldst || !pr->clk || !pr->share)
        return sb__error(err, SB_ENOMEM, "out of memory");
    open_quiet(pr);
    calibrate_quiet(pr);
    return SB_OK;
}

/* Open the checks: counters, the pinned CPU's interrupts. */
int sb__checks_open(struct probe *pr, const sb_measure_options *opt,
                    sb__invocation *inv, sb_error *err)
{
    char why[160];
    int rc;

    pr->cost = malloc(COST_RING * sizeof *pr->cost);
    if (!pr->cost)
        return sb__error(err, SB_ENOMEM, "out of memory");
    rc = sb__counters_open(opt->counters, &pr->ctr, &inv->meta, err);
    if (rc != SB_OK)
        return rc;
    pr->nctr = sb__counters_count(pr->ctr);
    pr->i_ctxsw = sb__counters_special(pr->ctr, 0);
    pr->i_migr = sb__counters_special(pr->ctr, 1);
    pr->ctxsw_rusage = sb__counters_from_rusage(pr->ctr, 0);
    counter_overhead(pr);

    pr->rebase_ticks = (uint64_t)(1e-3 * pr->hz);
    pr->gap_min = INFINITY;
    if (sb__irq_open(&pr->irq, inv->meta.cpu, why, sizeof why) == 0 &&
        sb__irq_read(&pr->irq, &pr->irq_first) == 0) {
        pr->irq_ok = 1;
        pr->irq_last = pr->irq_first;
        pr->irq_tick = pr->irq_tick0 = sb__timer_start(pr->tsc);
    } else {
        sb__irq_close(&pr->irq);
        sb__meta_note(&inv->meta, "interrupts: not checked (%s)", why);
    }
    inv->meta.interrupts_per_second = NAN;
    inv->meta.check_cost_seconds = NAN;
    return open_probes(pr, inv, err);
}

/* The probes' figures of the invocation (sb_meta's probe fields). */
static void probe_figures(struct probe *pr, sb__invocation *inv)
{
    double taken = 0, wait = 0, shared = 0;

    if (pr->clk && pr->nclk) {
        inv->meta.probe_clock = sb__median_inplace(
            pr->clk, pr->nclk < COST_RING ? pr->nclk : COST_RING);
        inv->meta.probe_clock_min = inv->meta.probe_clock_max =
            inv->meta.probe_clock;
    }
    if (pr->share && pr->nshare)
        inv->meta.probe_cost_share = sb__median_inplace(
            pr->share, pr->nshare < COST_RING ? pr->nshare : COST_RING);
    /* What the invocation saw, not a prior that decided for it: a run on
     * a shared core throughout then shows it (runner_collect.c, the
     * profile). */
    inv->meta.contention_quiet = isfinite(pr->quiet.own_level)
                                     ? pr->quiet.own_level
                                     : pr->quiet.level;
    if (isfinite(pr->quiet.level))
        inv->meta.shared_wait_seconds = pr->waited;
    inv->meta.contention_margin = pr->quiet.margin;
    for (size_t i = 0; i < inv->ncells; i++) {
        const sb__raw_cell *r = &inv->cells[i];
        taken += (double)(r->nsamples + sb__rejected_of(r));
        wait += (double)r->disturbed[SB_REJECT_CPU_WAIT];
        shared += (double)r->disturbed[SB_REJECT_SHARED_CORE];
    }
    if (taken > 0) {
        if (pr->cp.sched_fd >= 0)
            inv->meta.cpu_wait_share = wait / taken;
        if (isfinite(pr->quiet.level))
            inv->meta.contended_share = shared / taken;
    }
}

/* Close the checks and fill the invocation's figures. */
void sb__checks_close(struct probe *pr, sb__invocation *inv)
{
    if (pr->irq_ok && pr->irq_tick > pr->irq_tick0) {
        inv->irq_count = (double)(pr->irq_last - pr->irq_first);
        inv->irq_seconds = (double)(pr->irq_tick - pr->irq_tick0) / pr->hz;
        inv->meta.interrupts_per_second = inv->irq_count / inv->irq_seconds;
    }
    if (pr->ncost && pr->cost)
        inv->meta.check_cost_seconds =
            sb__median_inplace(pr->cost, pr->ncost < COST_RING ? pr->ncost
                                                               : COST_RING) /
            pr->hz;
    probe_figures(pr, inv);
    if (pr->irq_ok)
        sb__irq_close(&pr->irq);
    pr->irq_ok = 0;
    sb__counters_close(pr->ctr);
    pr->ctr = NULL;
    free(pr->cost);
    pr->cost = NULL;
    sb__free_probes(pr);
}
