/*
 * runner.h: the runner's internal names, never installed.  runner.c runs
 * the invocations of a run (their budgets, the stop, the loop); it hands
 * an invocation to be measured in a child process to runner_fork.c, and
 * each invocation's data, and the end of the run, to runner_collect.c.
 * Neither of those calls runner.c or the other, so that the calls go one
 * way.
 */
#ifndef SB_RUNNER_H
#define SB_RUNNER_H

#include "measure.h"
#include "run_internal.h"

/* A sanitizer build (configure --enable-sanitizers): see the child in
 * sb__runner_fork_invocation (runner_fork.c) and the run's root in
 * sb_run_execute_new (runner.c). */
#if defined(__SANITIZE_ADDRESS__)
#define SB_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_LSAN 1
#endif
#endif
#ifndef SB_LSAN
#define SB_LSAN 0
#endif

/* Invocations a run's probe figures are summarised over: every one a run
 * may have (sb_plan_check allows at most 1000 invocations). */
#define SB__TOTALS_INV 1000

/* The machine's figures over every invocation: interrupts per second over
 * all the time checked, the checks' cost as the median of the
 * invocations' medians. */
typedef struct sb__totals {
    double irq_count, irq_seconds;
    double *check_cost;
    size_t ncost;
    /* The probes (probe.c): per invocation, the effective clock, the
     * cost share and the contention probe's quiet level; over all, the
     * samples taken and those that waited or were contended. */
    double clock[SB__TOTALS_INV], share[SB__TOTALS_INV];
    double quiet[SB__TOTALS_INV], margin;
    size_t quiet_inv[SB__TOTALS_INV];
    size_t nclock, nshare, nquiet;
    double taken, waited, contended;
    double shared_wait; /* seconds waited for a quiet core, summed */
    double ref[SB__TOTALS_INV]; /* the invocations' reference speeds */
    size_t nref;
    int wait_known, contention_known, shared_wait_known;
    int ticks; /* some invocation's contention probe was in ticks */
    /* Invocations whose clock probe failed its start-up check (probe.c:
     * meta.probe "unverified"): each one's index, clock and contention
     * quiet level (in ticks); the first one's reason; whether the check
     * passed in any invocation. */
    struct sb__unverified {
        size_t g;
        double clock, quiet;
    } *unverified;
    size_t nunverified;
    char unverified_why[256];
    int verified;
    double verified_ratio; /* the first passed check's imul/add ratio */
    /* Per cell (ncells entries, or NULL before the first invocation):
     * sb__raw_cell.waited and waited_timed summed over the invocations,
     * for runner_collect.c's note of the cells that waited. */
    double *waited_cell, *waited_timed_cell;
} sb__totals;

/* runner_fork.c: run invocation i of plan in a child process, with opt,
 * a, the budget bud and the run's stop, and collect its data into inv
 * (freed on failure).  *died is set when the child ended without sending
 * its data (a signal other than SIGINT and SIGTERM, or exit()), err then
 * saying which and how. */
int sb__runner_fork_invocation(const sb_plan *plan,
                               const sb_measure_options *opt,
                               const sb_analysis_options *a, size_t i,
                               const sb__budget *bud, const sb__stop *stop,
                               sb__invocation *inv, sb_error *err,
                               int *died);

/* runner_collect.c: add a finished invocation's data to the run and to
 * the totals tot (its metadata if it is the first, with the audit env),
 * then free it. */
int sb__runner_add_invocation(sb_run *run, sb__invocation *inv,
                              const sb_env *env, sb__totals *tot,
                              const sb__stop *stop, sb_error *err);
/* runner_collect.c: the end of a run whose invocations stopped with
 * status rc: the machine figures from the totals (freed), the notes, then
 * the analysis.  A failure other than an interruption frees the run. */
int sb__runner_finish(sb_run *run, int rc, sb__totals *tot, sb_error *err);

#endif
