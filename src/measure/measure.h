/*
 * measure.h: the internal names of measure.c and the files below it
 * (measure_internal.h lists them), never installed: what stops a run,
 * the time of one invocation, measuring one invocation, and the CPU it
 * pins to.  The runner (runner.c, runner_fork.c) is its one user.
 */
#ifndef SB_MEASURE_H
#define SB_MEASURE_H

#include <sched.h>
#include <signal.h>

#include "run_internal.h"

/* What stops one run (see measure.c): its own flag (in a shared page when
 * it forks invocations), the caller's sb_measure_options.stop, and the
 * process-wide count of sb_run_request_stop() calls, as it was when the
 * run began. */
typedef struct sb__stop {
    volatile sig_atomic_t own;   /* the flag, when not shared */
    volatile sig_atomic_t *run;  /* the run's flag: &own or a shared page */
    volatile sig_atomic_t *user; /* sb_measure_options.stop, or NULL */
    sig_atomic_t requests;       /* process-wide requests at the start */
} sb__stop;
/* Start stopping state for a run; shared: its flag in a page that forked
 * children share. */
void sb__stop_begin(sb__stop *s, const sb_measure_options *opt, int shared);
void sb__stop_end(sb__stop *s);
/* Whether the run is asked to stop; sb__stop_set asks it (only it). */
int sb__stopped(const sb__stop *s);
void sb__stop_set(const sb__stop *s);

/* The time of one invocation, as sb__now() instants (CLOCK_MONOTONIC,
 * the same in a forked child). */
typedef struct sb__budget {
    double run_started;  /* when the run began */
    double run_deadline; /* when the whole run must be done */
    double started;      /* when the runner began this invocation (before
                            the fork) */
    double deadline;     /* when this invocation must be done */
    size_t invocations_left; /* this one and those still to come */
    size_t invocation;   /* 0-based index of this invocation */
    int check;           /* 1: check that the plan fits first (the first
                            invocation) */
    /* The contention probe's quiet level that the run's earlier
     * invocations confirmed (sb__quiet_prior), or the caller's
     * sb_measure_options.quiet_prior when lower, in core cycles per rep,
     * and its margin (NAN: the invocation's own); NAN: none.  Its quiet
     * model starts from it. */
    double quiet_prior, quiet_prior_margin;
} sb__budget;

/* Measure every cell of plan once, in this process, with opt (towards
 * a's precision target in a's metric) and seed, by the budget's
 * deadline, until stop says so.  Fills inv (which the caller frees with
 * sb__invocation_free).  Interruption is not an error.  With
 * bud->check, SB_EINVAL when the plan cannot keep to the run's budget,
 * saying how long it needs. */
int sb__measure(const sb_plan *plan, const sb_measure_options *opt,
                const sb_analysis_options *a, uint64_t seed,
                const sb__budget *bud, const sb__stop *stop,
                sb__invocation *inv, sb_error *err);
void sb__invocation_free(sb__invocation *inv);

/* Test hook, as probe.h's: a test program that defines int
 * sb__trial_force non-zero makes the budget check (calibrate.c) time trial
 * calls of every kernel with SB_KERNEL_OWN_MEMORY, its own included, not
 * only of the built-in ones, so that a test can count the calls and
 * sizes a budget check makes.  The library holds no definition. */
#if defined(__GNUC__)
extern int sb__trial_force __attribute__((weak, visibility("hidden")));
#define SB__TRIAL_FORCE (&sb__trial_force ? sb__trial_force : 0)
#else
#define SB__TRIAL_FORCE 0
#endif

/* The stop rule's question for one cell (design.md, protocol step 6):
 * whether its samples so far, in the metric sb_metric_choose gives it
 * (a->metric, opt->cache, l2_bytes, its clocks), meet a->precision;
 * order statistics, samples without a clock left out.  work holds
 * 2 * r->nsamples doubles. */
int sb__raw_precision_met(const sb_cell *cell, const sb__raw_cell *r,
                          const sb_measure_options *opt,
                          const sb_analysis_options *a, size_t l2_bytes,
                          double *work);
/* The same cell's relative half-width, as the rule measures it
 * (sb__precision_width); NAN when it has no interval (no sample with a
 * value).  sb__raw_precision_met is this against a->precision. */
double sb__raw_precision_width(const sb_cell *cell, const sb__raw_cell *r,
                               const sb_measure_options *opt,
                               const sb_analysis_options *a,
                               size_t l2_bytes, double *work);

/* What a check of the precision rule over every cell found, for
 * sb_measure_options.progress_state: within an invocation the stop rule's last
 * check, between invocations the runner's. */
typedef struct sb__check {
    size_t done;   /* cells that met the target */
    size_t at;     /* the round (between: invocations) of the check; 0:
                      none yet */
    double widest; /* the largest relative half-width; NAN: none yet */
} sb__check;
/* Count cell of a check: met or not, at its relative half-width w (NAN
 * for none, taken as INFINITY). */
void sb__check_add(sb__check *c, int met, double w);
/* Call opt's progress and progress_state, as sb_measure_options says;
 * the sb_progress is made of the others, a's precision target among
 * them.  Non-zero: stop the run. */
int sb__progress_call(const sb_measure_options *opt,
                      const sb_analysis_options *a, int between,
                      size_t invocation, size_t round, double elapsed,
                      double time_left, size_t ncells,
                      const sb__check *seen);

/* The CPU a run pins to (see the file's comment), -1 when
 * none is allowed; note (optional) says why. */
int sb__choose_cpu(const sb_measure_options *opt, const cpu_set_t *allowed,
                   char *note, size_t len);

/* Pin to the CPU of opt; fills meta->cpu and pin_note. */
int sb__pin(const sb_measure_options *opt, sb_meta *meta, cpu_set_t *saved,
            int *restore, sb_error *err);

#endif
