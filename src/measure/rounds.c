/*
 * rounds.c: an invocation's rounds (measure.c's top comment, step 5):
 * every cell sampled once a round in a fresh random order until the stop
 * rule, the sample cap, the deadline or a stop request, a wait for a
 * quiet core after a sample that found it shared, and the refill of the
 * cells left without a sample they could keep.
 */
#include "config.h"

#include <math.h>

#include <gsl/gsl_randist.h>

#include "measure.h"
#include "measure_internal.h"
#include "plan.h"
#include "probe.h"
#include "timer.h"

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

/* The rounds (measure.c's top comment, step 5) until the stop rule,
 * the sample cap, the deadline or a stop request.  After a sample rejected
 * for a shared core alone, the next waits for a quiet core
 * (wait_quiet), at most 50 ms at a time and half of the invocation's
 * rounds in all, so that a core shared throughout still gets its
 * samples taken and marked. */
int sb__run_rounds(struct held *h, const sb_measure_options *opt,
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
             * cell a sample: sb__check_budget made sure it fits. */
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
 * from the refill's second sample on, or from its first where the cell's
 * rounds already rejected a sample for a wait (it could not dodge them,
 * and on a CPU busy enough, at a load of 12 on 2 CPUs beside a hog, the
 * refill's time held only one sample of a 16 MiB mmap_touch), with the
 * wait taken off its time (sb__record_sample): a CPU busy with another
 * task throughout must not leave a cell empty when the wait can be
 * counted.  A sample whose only other
 * disturbance is a shared core is kept with its flag once the cell has
 * taken 32 samples in the invocation (its rounds' included) or half the
 * refill's time is gone: a core shared for the whole run is what the
 * cell measured, and the run's notes say so ("measured on a shared
 * core"), rather than an empty cell failing it.  Counted in samples
 * alone, a cell of 20 ms samples (a 16 MiB mmap_touch on a busy CPU)
 * never got that far in a refill of 0.2 s. */
int sb__fill_empty_cells(struct held *h, const sb_measure_options *opt,
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
            if (extra >= 1 || r->rejected[SB_REJECT_CPU_WAIT] > 0)
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
