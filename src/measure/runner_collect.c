/*
 * runner_collect.c: the data of a run's invocations collected into the
 * run (runner.c runs them): each invocation's samples and figures added,
 * the machine's totals over them (interrupts, the checks' cost, the
 * probes' clock, quiet level, waits and contention, and the clocks of
 * invocations whose probe check failed, settled once all are in), the
 * notes they call for, and the end of the run: its analysis.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "meta.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"
#include "stats_internal.h"

/* An invocation's probe figures into the totals. */
static int add_probe_figures(sb_run *run, const sb__invocation *inv,
                             sb__totals *tot)
{
    const sb_meta *m = &inv->meta;
    double taken = 0;

    for (size_t c = 0; c < inv->ncells; c++) {
        const sb__raw_cell *r = &inv->cells[c];
        taken += (double)r->nsamples;
        for (int q = 0; q < SB_REJECT_NREASONS; q++)
            taken += (double)r->rejected[q];
        tot->waited += (double)r->disturbed[SB_REJECT_CPU_WAIT];
        tot->contended += (double)r->disturbed[SB_REJECT_SHARED_CORE];
    }
    tot->taken += taken;
    if (sb__run_invocation_probe(run, run->invocations, m->probe_clock,
                                 m->contention_quiet) != SB_OK)
        return SB_ENOMEM;
    tot->wait_known |= isfinite(m->cpu_wait_share);
    if (isfinite(m->reference_cycles) && tot->nref < SB__TOTALS_INV)
        tot->ref[tot->nref++] = m->reference_cycles;
    if (isfinite(m->shared_wait_seconds)) {
        tot->shared_wait += m->shared_wait_seconds;
        tot->shared_wait_known = 1;
    }
    tot->contention_known |= isfinite(m->contended_share);
    if (!tot->verified && !strcmp(m->probe, "imul-chain"))
        tot->verified_ratio = m->probe_ratio;
    /* A clock from PAPI_TOT_CYC needs no check. */
    tot->verified |= !strcmp(m->probe, "imul-chain") ||
                     !strcmp(m->probe, "pmu");
    if (isfinite(m->probe_cost_share) && tot->nshare < SB__TOTALS_INV)
        tot->share[tot->nshare++] = m->probe_cost_share;
    if (!strcmp(m->probe, "unverified")) {
        /* Its clock and quiet level wait for the run's verdict
         * (resolve_unverified). */
        struct sb__unverified *u = realloc(
            tot->unverified, (tot->nunverified + 1) * sizeof *u);
        if (!u)
            return SB_ENOMEM;
        tot->unverified = u;
        u[tot->nunverified++] = (struct sb__unverified){
            run->invocations, m->probe_clock, m->contention_quiet};
        if (!tot->unverified_why[0])
            snprintf(tot->unverified_why, sizeof tot->unverified_why, "%s",
                     m->probe_note);
        return SB_OK;
    }
    if (isfinite(m->probe_clock) && tot->nclock < SB__TOTALS_INV)
        tot->clock[tot->nclock++] = m->probe_clock;
    /* In ticks (no clock) the levels of invocations at different clocks
     * cannot be compared: only within each (no notes below). */
    if (!strcmp(m->probe, "none"))
        tot->ticks = 1;
    if (isfinite(m->contention_quiet) && tot->nquiet < SB__TOTALS_INV) {
        tot->quiet_inv[tot->nquiet] = run->invocations + 1;
        tot->margin = m->contention_margin;
        tot->quiet[tot->nquiet++] = m->contention_quiet;
    }
    return SB_OK;
}

/* The run's probe figures from the totals.  The quiet level is the
 * median of the invocations' (not their lowest: an invocation whose
 * clock readings were too low has its level too low; 4.4 to 30.3
 * against 32.8 cycles seen here while a stale timer overhead skewed
 * them, before probe.c tracked it).  An invocation whose own is above it
 * by more than the margin was measured on a shared core throughout (its
 * own level could not tell); one below it had suspect clock readings; a
 * note says either. */
static void probe_totals(sb_run *run, sb__totals *tot)
{
    sb_meta *m = &run->meta;

    m->probe_clock = m->probe_clock_min = m->probe_clock_max = NAN;
    for (size_t i = 0; i < tot->nclock; i++) {
        m->probe_clock_min = fmin(m->probe_clock_min, tot->clock[i]);
        m->probe_clock_max = fmax(m->probe_clock_max, tot->clock[i]);
    }
    if (tot->nclock)
        m->probe_clock = sb__median_inplace(tot->clock, tot->nclock);
    m->probe_cost_share =
        tot->nshare ? sb__median_inplace(tot->share, tot->nshare) : NAN;
    m->contention_quiet = NAN;
    if (tot->nquiet) {
        /* Out of memory, the level stays unknown. */
        double *q = malloc(tot->nquiet * sizeof *q);
        if (q) {
            memcpy(q, tot->quiet, tot->nquiet * sizeof *q);
            m->contention_quiet = sb__median_inplace(q, tot->nquiet);
            free(q);
        }
    }
    for (size_t i = 0; i < tot->nquiet && !tot->ticks; i++) {
        double r = tot->quiet[i] / m->contention_quiet - 1;
        if (r > tot->margin)
            sb__meta_note(m, "shared core: invocation %zu's contention "
                             "probe was at %.3g at its quietest, %.0f%% "
                             "above the run's %.3g: measured on a shared "
                             "core throughout", tot->quiet_inv[i],
                          tot->quiet[i], 100 * r, m->contention_quiet);
        else if (r < -tot->margin)
            sb__meta_note(m, "clock probe: invocation %zu's contention "
                             "probe was at %.3g at its quietest, %.0f%% "
                             "below the run's %.3g: its clock readings "
                             "are suspect (too low)", tot->quiet_inv[i],
                          tot->quiet[i], -100 * r, m->contention_quiet);
    }
    m->cpu_wait_share =
        tot->wait_known && tot->taken > 0 ? tot->waited / tot->taken : NAN;
    m->shared_wait_seconds = tot->shared_wait_known ? tot->shared_wait : NAN;
    /* The reference speed: the median over invocations, like the quiet
     * level (a quiet one beside one on a shared core is not the core's
     * speed either way; the profile compares runs). */
    m->reference_cycles =
        tot->nref ? sb__median_inplace(tot->ref, tot->nref) : NAN;
    m->contended_share = tot->contention_known && tot->taken > 0
                             ? tot->contended / tot->taken
                             : NAN;
}

/* Add a finished invocation's data to the run (its metadata if it is the
 * first, with the audit env), then free it. */
int sb__runner_add_invocation(sb_run *run, sb__invocation *inv,
                              const sb_env *env, sb__totals *tot,
                              const sb__stop *stop, sb_error *err)
{
    int rc = SB_OK;
    double *t;

    if (run->invocations == 0) {
        run->meta = inv->meta;
        run->meta.env = *env;
    }
    t = realloc(tot->check_cost, (tot->ncost + 1) * sizeof *t);
    if (t) {
        tot->check_cost = t;
        if (isfinite(inv->meta.check_cost_seconds))
            tot->check_cost[tot->ncost++] = inv->meta.check_cost_seconds;
    }
    tot->irq_count += inv->irq_count;
    tot->irq_seconds += inv->irq_seconds;
    if (add_probe_figures(run, inv, tot) != SB_OK)
        rc = sb__error(err, SB_ENOMEM, "out of memory");
    run->invocations++;
    run->rounds += inv->rounds;
    run->elapsed += inv->elapsed;
    if (inv->interrupted) {
        run->interrupted = 1;
        sb__stop_set(stop); /* the child was asked to stop */
    }
    if (!tot->waited_cell && run->ncells) {
        tot->waited_cell = calloc(run->ncells, sizeof *tot->waited_cell);
        tot->waited_timed_cell =
            calloc(run->ncells, sizeof *tot->waited_timed_cell);
    }
    for (size_t c = 0; c < run->ncells && rc == SB_OK; c++) {
        if (tot->waited_cell && tot->waited_timed_cell &&
            c < inv->ncells) {
            tot->waited_cell[c] += inv->cells[c].waited;
            tot->waited_timed_cell[c] += inv->cells[c].waited_timed;
        }
        if (sb__run_add_invocation(run, c, &inv->cells[c]) != SB_OK)
            rc = sb__error(err, SB_ENOMEM, "out of memory");
    }
    sb__invocation_free(inv);
    return rc;
}

/* A cell whose every sample was contended is never reported as the
 * core's speed without a word: a note names it (with --reject none it
 * keeps them; by default it is left empty). */
static void note_shared_cells(sb_run *run)
{
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        size_t taken = r->nsamples + r->rejected_total -
                       r->rejected[SB_REJECT_OUTLIER];
        size_t shared = r->disturbed[SB_REJECT_SHARED_CORE];
        if (shared && shared >= taken)
            sb__meta_note(&run->meta,
                          "kernel %s, %zu bytes, offsets %zu/%zu: measured "
                          "on a shared core (all %zu samples contended)",
                          r->cell.kernel->name, r->cell.size,
                          r->cell.src_align, r->cell.dst_align, shared);
    }
}

/* A cell whose samples could not dodge the waits for its CPU kept those
 * that waited, each with the wait taken off its time (record.c,
 * keep_wait_from): its figure is the time the thread ran, not that of a
 * quiet machine, and a note says so, with how many samples waited and
 * how much of their time the waits were (as measured, before the
 * analysis' outlier policy).  One cell is named; more are
 * counted, the first named.  Only under SB_REJECT_DISTURBED: with
 * --reject none every sample is kept as it was. */
static void note_waited_cells(sb_run *run, const sb__totals *tot)
{
    size_t cells = 0, kept = 0, all = 0, first = 0;
    double waited = 0, timed = 0;

    if (run->measure.reject != SB_REJECT_DISTURBED || !run->samples)
        return;
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        const unsigned char *fl = run->samples[i].flags;
        size_t k = 0;
        for (size_t q = 0; fl && q < r->nsamples; q++)
            k += (fl[q] & (1u << SB_REJECT_CPU_WAIT)) != 0;
        if (!k)
            continue;
        if (!cells++)
            first = i;
        kept += k;
        all += r->nsamples;
        if (tot->waited_cell && tot->waited_timed_cell) {
            waited += tot->waited_cell[i];
            timed += tot->waited_timed_cell[i];
        }
    }
    if (!cells)
        return;
    {
        const sb_cell *c = &run->cells[first].cell;
        char share[64] = "";
        if (timed > 0)
            snprintf(share, sizeof share, ", %.0f%% of their time,",
                     100 * waited / timed);
        if (cells == 1)
            sb__meta_note(&run->meta,
                          "kernel %s, %zu bytes, offsets %zu/%zu: measured "
                          "on a busy CPU: %zu of its %zu samples waited "
                          "for it, kept with the wait%s taken off",
                          c->kernel->name, c->size, c->src_align,
                          c->dst_align, kept, all, share);
        else
            sb__meta_note(&run->meta,
                          "%zu cells (kernel %s, %zu bytes, ...) measured "
                          "on a busy CPU: %zu of their %zu samples waited "
                          "for it, kept with the wait%s taken off",
                          cells, c->kernel->name, c->size, kept, all,
                          share);
    }
}

/* The invocations whose clock probe failed its start-up check: their
 * clocks stand when it passed in another invocation of the run (the CPU's
 * imul is 3 adds: those failures were disturbances, a shared core most
 * often), else they are dropped and the probe refused, as a CPU whose
 * chains disagree in every invocation must be. */
static void resolve_unverified(sb_run *run, sb__totals *tot)
{
    sb_meta *m = &run->meta;

    if (!tot->nunverified)
        return;
    if (tot->verified) {
        /* Their clocks stand, and their quiet levels, timed in ticks
         * while the clock was in doubt, are converted with them. */
        for (size_t k = 0; k < tot->nunverified; k++) {
            const struct sb__unverified *u = &tot->unverified[k];
            double q = u->quiet * u->clock;
            (void)sb__run_invocation_probe(run, u->g, u->clock, q);
            if (isfinite(u->clock) && tot->nclock < SB__TOTALS_INV)
                tot->clock[tot->nclock++] = u->clock;
            if (isfinite(q) && tot->nquiet < SB__TOTALS_INV) {
                tot->quiet_inv[tot->nquiet] = u->g + 1;
                tot->quiet[tot->nquiet++] = q;
            }
        }
        if (!strcmp(m->probe, "unverified")) {
            /* The run's metadata was that invocation's. */
            m->contention_margin = SB__PROBE_MARGIN;
            m->probe_ratio = tot->verified_ratio;
            snprintf(m->probe, sizeof m->probe, "imul-chain");
            snprintf(m->probe_note, sizeof m->probe_note,
                     "imul/add latency ratio %.3f in a later invocation",
                     tot->verified_ratio);
        }
        sb__meta_note(m, "clock probe: its start-up check failed in %zu "
                         "invocation%s (the first: %s), whose clocks were "
                         "kept: it passed in the others",
                      tot->nunverified, tot->nunverified == 1 ? "" : "s",
                      tot->unverified_why);
        return;
    }
    tot->ticks = 1; /* their quiet levels are in ticks */
    for (size_t k = 0; k < tot->nunverified; k++) {
        size_t g = tot->unverified[k].g;
        if (isfinite(tot->unverified[k].quiet) &&
            tot->nquiet < SB__TOTALS_INV) {
            tot->quiet_inv[tot->nquiet] = g + 1;
            tot->quiet[tot->nquiet++] = tot->unverified[k].quiet;
        }
        (void)sb__run_invocation_probe(run, g, NAN,
                                       sb_run_invocation_quiet(run, g));
    }
    /* Their samples' clocks: one pass over each cell's invocations, the
     * unverified ones in order. */
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        double *clock = run->samples ? run->samples[i].clock : NULL;
        size_t at = 0, k = 0;
        for (size_t g = 0; clock && r->inv_nsamples && g < r->invocations &&
                           k < tot->nunverified;
             at += r->inv_nsamples[g++]) {
            if (g != tot->unverified[k].g)
                continue;
            k++;
            for (size_t q = 0; q < r->inv_nsamples[g]; q++)
                clock[at + q] = NAN;
        }
    }
    snprintf(m->probe, sizeof m->probe, "none");
    sb__meta_note(m, "%s", tot->unverified_why);
}


/* A decision asked for (*asked >= 0) that the run's record cannot make
 * (why) must not lose what it measured: the run stays as measured, and
 * its notes say why. */
static void as_measured(sb_run *run, double *asked, const char *why,
                        const char *what)
{
    if (*asked < 0 || !why)
        return;
    sb__meta_note(&run->meta, "%s: %s", what, why);
    *asked = -1;
}

/* The end of a run whose invocations stopped with status rc: the machine
 * figures from the totals (freed here), then the analysis.  A failure
 * other than an interruption loses the run (freed here): its error says
 * what went wrong. */
int sb__runner_finish(sb_run *run, int rc, sb__totals *tot, sb_error *err)
{
    if (rc == SB_OK && run->invocations > 0) {
        resolve_unverified(run, tot);
        run->meta.interrupts_per_second =
            tot->irq_seconds > 0 ? tot->irq_count / tot->irq_seconds : NAN;
        run->meta.check_cost_seconds =
            tot->ncost ? sb__median_inplace(tot->check_cost, tot->ncost)
                       : NAN;
        /* Before the invocations' notes of probe_totals: sb_meta.notes
         * has a fixed size, and a figure that is not a quiet machine's
         * must not lose its note to them. */
        note_waited_cells(run, tot);
        probe_totals(run, tot);
    }
    free(tot->check_cost);
    free(tot->unverified);
    if (rc == SB_OK && run->invocations == 0)
        rc = sb__error(err, SB_EINTR, "interrupted before any sample");
    if (rc == SB_OK) {
        as_measured(run, &run->analysis.shared_margin,
                    sb__run_redecide_refused(run),
                    "shared core: decided as measured, not again "
                    "(--shared-margin)");
        as_measured(run, &run->analysis.chain_apart,
                    sb__run_reclock_refused(run),
                    "core clock: as measured, not decided again "
                    "(--chain-apart)");
    }
    if (rc == SB_OK)
        rc = sb__run_analyse(run, err);
    if (rc == SB_OK && sb__run_adopt_benches(run) != SB_OK)
        rc = sb__error(err, SB_ENOMEM, "out of memory");
    free(tot->waited_cell);
    free(tot->waited_timed_cell);
    if (rc != SB_OK) {
        sb_run_free(run);
        return rc;
    }
    note_shared_cells(run);
    return SB_OK;
}
