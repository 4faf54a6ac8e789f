/*
 * runner.c: a run of several invocations (docs/design.md, protocol step 9).
 *
 * With one invocation the plan is measured in this process.  With N > 1
 * each invocation is a fresh process (fork) that measures the whole plan
 * with its own seed (seed + i) and a budget of max_time / N, and sends its
 * samples back through a pipe; the variance that lives between processes
 * (page placement, layout, the state of the machine) then shows in the
 * statistics instead of hiding in one process's luck.  The parent measures
 * nothing itself.
 *
 * SIGINT during a run: sb_run_request_stop() (from the caller's handler)
 * stops the current invocation after its sample (the parent passes it on
 * to the child measuring); a child's own copy of the handler does the
 * same there, since the terminal signals the whole process group.  Every
 * sample measured so far is kept.  A run's own stop (its progress
 * callback, sb_measure_options.stop) stops that run only: see sb__stop in
 * stop.c.
 *
 * An invocation that dies (SIGKILL, SIGSEGV, a kernel of the caller's
 * calling exit()) ends the run the same way: the invocations that
 * finished are kept, the run is marked interrupted, and sb_run_partial()
 * and a note say which invocation died and how.  A child dies with its
 * parent (PR_SET_PDEATHSIG), so that no pinned, memory-locked process
 * outlives a killed run.
 *
 * This file runs the invocations: their budgets, the stop, the loop.  An
 * invocation in a child and its pipe protocol are runner_fork.c's; what
 * each one measured, collected into the run with the machine's totals,
 * and the end of the run are runner_collect.c's (runner.h).
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"
#include "measure.h"
#include "meta.h"
#include "metric.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"
#include "timer.h"

#if SB_LSAN
/* The run, reachable from a global while a forked child holds it too. */
static void *volatile sb__lsan_root;
#endif

/* Whether every cell's interval, over the invocations so far, meets the
 * precision target: the interval and the rule of the results
 * (sb__cell_interval, sb__precision_met), on the samples as measured
 * (the outlier policy applies once, at the end), each cell in the metric
 * the results will judge it in (sb_metric_choose).  With seen (for
 * sb_measure_options.progress_state), every cell is judged, and seen says what
 * the check found; without, the first cell short of the target ends it. */
static int invocation_precision_met(const sb_run *run, sb__check *seen)
{
    size_t most = 1;
    double *work;
    size_t *group, ninv = 1;
    sb_analysis_options a;
    int met = 1;

    a = run->analysis;
    a.bootstrap = 0; /* as the stop rule: a check, not the result */
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].nsamples > most)
            most = run->cells[i].nsamples;
    work = malloc(2 * most * sizeof *work);
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].invocations > ninv)
            ninv = run->cells[i].invocations;
    group = malloc(ninv * sizeof *group);
    if (!work || !group) {
        free(work);
        free(group);
        return 0;
    }
    if (seen)
        *seen = (sb__check){.at = run->invocations, .widest = 0};
    for (size_t i = 0; (met || seen) && i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        const double *clock = run->samples[i].clock;
        int metric = sb_metric_choose(a.metric, &r->cell, run->measure.cache,
                                      run->meta.l2_bytes, clock,
                                      r->nsamples);
        size_t n = 0, at = 0;
        sb_interval ci;
        const char *how;
        /* Samples without a clock are left out, as in the results. */
        sb__metric_values(metric, r->ticks, clock, r->nsamples, work);
        for (size_t g = 0; g < r->invocations; g++) {
            group[g] = 0;
            for (size_t q = 0; q < r->inv_nsamples[g]; q++)
                if (isfinite(work[at + q])) {
                    work[n++] = work[at + q];
                    group[g]++;
                }
            at += r->inv_nsamples[g];
        }
        double w = sb__cell_interval(work, group, r->invocations, &a,
                                     run->measure.seed, work + most, &ci,
                                     &how) == SB_OK
                       ? sb__precision_width(&ci)
                       : NAN;
        int ok = !isnan(w) && sb__precision_met(&ci, a.precision);
        if (seen)
            sb__check_add(seen, ok, w);
        met = met && ok;
    }
    free(work);
    free(group);
    return met;
}

/* The environment audit, for the CPU the invocations will pin to, taken
 * before measuring (it samples the SMT sibling's load). */
static void audit_env(const sb_measure_options *opt, sb_env *env)
{
    cpu_set_t allowed;
    int cpu = -1;
    if (!opt->no_pin && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        cpu = sb__choose_cpu(opt, &allowed, NULL, 0);
    /* The library's own full struct: no caller's size to check. */
    sb__env_audit_at("", cpu, 0.1, env);
}

/* The budget of invocation i, in *b: an equal share of what is left
 * (left) for each of the requested invocations still to come, the
 * per-invocation budget past them.  0 when invocation i, one past the
 * requested ones, is not to run. */
static int invocation_budget(const sb_run *run, size_t i, size_t ninv,
                             double budget, double left, double *b)
{
    *b = i < ninv ? left / (double)(ninv - i) : budget;
    if (!(*b > 0))
        *b = 0; /* late: the invocation takes its first samples only */
    if (i >= ninv) {
        /* Past the minimum: go on only while a cell still misses the
         * target at the invocation level and time remains.  Without a
         * target (precision 0) the requested invocations are the whole
         * run: each already measured for its share of the budget, and
         * more would only split the same time again. */
        if (!(run->analysis.precision > 0) || left < 0.25 * budget ||
            invocation_precision_met(run, NULL))
            return 0;
        if (*b > left)
            *b = left;
    }
    return 1;
}

/* An invocation that failed with rc (ie saying why): the status of the
 * run.  An interruption, or a child that died after others finished,
 * keeps the run, partial; anything else loses it, with ie in *err. */
static int invocation_failed(sb_run *run, int rc, int died,
                             const sb_error *ie, sb_error *err)
{
    if (rc == SB_EINTR && run->invocations > 0) {
        /* A child ended by SIGINT, SIGTERM or SIGHUP: an interruption. */
        run->interrupted = 1;
        return SB_OK;
    }
    if (died && run->invocations > 0) {
        /* A child killed (SIGKILL, SIGSEGV, the OOM killer) or ended by
         * exit(): the invocations before it keep their data, and the run
         * ends there, partial, as after an interruption. */
        run->interrupted = 1;
        snprintf(run->partial, sizeof run->partial, "%s", ie->text);
        sb__meta_note(&run->meta, "%s", run->partial);
        return SB_OK;
    }
    if (err)
        *err = *ie;
    return rc;
}

/* Invocation i's budget, without its deadline: the run's times, and the
 * quiet level the earlier invocations confirmed (or the caller's, a host
 * profile's, when it is lower). */
static sb__budget next_budget(const sb_measure_options *opt,
                              const sb__totals *tot, double wall0,
                              double now, size_t i, size_t ninv)
{
    sb__budget bud = {.run_started = wall0,
                      .run_deadline = wall0 + opt->max_time,
                      .started = now,
                      .invocations_left = i < ninv ? ninv - i : 1,
                      .invocation = i,
                      .check = i == 0,
                      .quiet_prior = NAN,
                      .quiet_prior_margin = tot->nquiet ? tot->margin : NAN};
    if (!tot->ticks)
        bud.quiet_prior = sb__quiet_prior(tot->quiet, tot->nquiet,
                                          tot->margin);
    if (opt->quiet_prior > 0 && !(bud.quiet_prior <= opt->quiet_prior))
        bud.quiet_prior = opt->quiet_prior;
    return bud;
}

int sb_run_execute_new(const sb_plan *plan, const sb_measure_options *m,
                       const sb_analysis_options *a, sb_run **out,
                       sb_error *err)
{
    sb_run *run;
    size_t n, ninv, max_inv;
    sb_env env;
    double budget, wall0 = sb__now();
    sb__totals tot = {0};
    int rc = SB_OK, died = 0;
    sb_error ie = {0};
    sb__stop stop;
    sb_measure_options full;
    sb_analysis_options fa;
    const sb_measure_options *opt = &full;
    sb__check seen = {0};

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "sb_run_execute_new: out is NULL");
    *out = NULL;
    /* From here on, the options in this library's layout; the analysis
     * options are checked first, as one group. */
    if ((rc = sb__measure_get(m, &full, "sb_run_execute_new", err)) !=
            SB_OK ||
        (rc = sb__analysis_get(a, &fa, "sb_run_execute_new", err)) != SB_OK ||
        (rc = sb_analysis_options_check(&fa, err)) != SB_OK ||
        (rc = sb_plan_check(plan, opt, err)) != SB_OK)
        return rc;
    if (fa.shared_margin >= 0 && opt->reject != SB_REJECT_DISTURBED)
        return sb__error(err, SB_EINVAL,
                         "shared-core margin %g: only samples rejected for "
                         "disturbances can be decided again, and this run "
                         "keeps every sample (--reject none)",
                         fa.shared_margin);

    n = sb_plan_count(plan);
    ninv = opt->invocations ? opt->invocations : 1;
    max_inv = ninv == 1 ? 1 : opt->max_invocations;
    if (max_inv < ninv)
        max_inv = ninv;
    budget = opt->max_time / (double)ninv;
    run = sb__run_alloc(n, opt, &fa);
#if SB_LSAN
    /* A sanitizer build: the forked child holds this run too, and a
     * kernel that calls exit() there would have LeakSanitizer report it
     * (and change the exit status): a global makes it reachable. */
    sb__lsan_root = run;
#endif
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    sb__stop_begin(&stop, opt, ninv > 1);
    run->measure.invocations = ninv;
    run->measure.max_invocations = max_inv;
    for (size_t i = 0; i < n; i++)
        run->cells[i].cell = *sb_plan_cell(plan, i);

    audit_env(opt, &env);
    /* Once here, not in every forked invocation (timer.c). */
    if (ninv > 1 && !opt->force_clock_timer)
        sb__timer_calibrate_once();
    /* The budget counts from the start of the call, the audit, forks,
     * setups and the parent's work between invocations included: each
     * of the invocations still to come gets an equal share of what is
     * left, so that their budgets sum to max_time.  The requested
     * invocations all run (fewer would change the interval's method);
     * the first one's sb__check_budget refused the plan if their unavoidable
     * part could not fit. */
    for (size_t i = 0; i < max_inv && !sb__stopped(&stop); i++) {
        sb__invocation inv;
        double now = sb__now(), left = opt->max_time - (now - wall0), b;
        sb__budget bud = next_budget(opt, &tot, wall0, now, i, ninv);
        if (!invocation_budget(run, i, ninv, budget, left, &b))
            break;
        bud.deadline = now + b;
        rc = ninv == 1
                 ? sb__measure(plan, opt, &fa, opt->seed, &bud, &stop, &inv,
                               &ie)
                 : sb__runner_fork_invocation(plan, opt, &fa, i, &bud, &stop,
                                              &inv, &ie, &died);
        if (rc != SB_OK) {
            rc = invocation_failed(run, rc, died, &ie, err);
            break;
        }
        rc = sb__runner_add_invocation(run, &inv, &env, &tot, &stop, err);
        if (rc != SB_OK)
            break;
        if (opt->progress_state && fa.precision > 0)
            (void)invocation_precision_met(run, &seen);
        if (sb__progress_call(opt, &fa, 1, i, run->rounds, run->elapsed,
                              wall0 + opt->max_time - sb__now(), n, &seen))
            sb__stop_set(&stop); /* this run only */
    }
    if (sb__stopped(&stop))
        run->interrupted = 1;
    sb__stop_end(&stop);
    rc = sb__runner_finish(run, rc, &tot, err);
    *out = rc == SB_OK ? run : NULL;
    return rc;
}
