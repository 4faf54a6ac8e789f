/*
 * test_progress_state.c: sb_measure_options.progress_state, what the library
 * tells a progress display (sb_progress).  Real runs of two memcpy cells,
 * forked and in process; every assertion holds whatever the machine's
 * speed or noise: the records must agree with each other and with the
 * run (the last count of cells done is the run's count of cells that
 * reached the target, by the one rule), never with a figure fixed here.
 * The callbacks of forked invocations run in the children: they write
 * into a shared page.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "statbench.h"
#include "tap.h"

#define MAX_RECORDS 20000

struct shared {
    size_t n;      /* records taken */
    size_t lost;   /* records past MAX_RECORDS */
    size_t plain;  /* calls of the old progress callback */
    size_t stop_at; /* progress_state returns 1 at this round; 0: never */
    sb_progress rec[MAX_RECORDS];
};
static struct shared *sh;

static int plain(void *arg, size_t round, double elapsed)
{
    (void)arg, (void)round, (void)elapsed;
    sh->plain++;
    return 0;
}

static int record(void *arg, const sb_progress *p)
{
    (void)arg;
    if (sh->n < MAX_RECORDS)
        sh->rec[sh->n++] = *p;
    else
        sh->lost++;
    return sh->stop_at && !p->between && p->round >= sh->stop_at;
}

static sb_plan *two_cells(void)
{
    sb_plan *plan = sb_plan_new();
    if (!plan ||
        sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, NULL) !=
            SB_OK ||
        sb_plan_add(plan, sb_kernel_find("libc"), 65536, 0, 0, NULL) !=
            SB_OK) {
        sb_plan_free(plan);
        return NULL;
    }
    return plan;
}

static void options(sb_measure_options *o, sb_analysis_options *a,
                    size_t invocations, double precision)
{
    sb_measure_options_init(o);
    sb_analysis_options_init(a);
    o->invocations = o->max_invocations = invocations;
    a->precision = precision;
    o->min_samples = 20;
    o->max_samples = 400;
    o->max_time = 3;
    o->no_pin = 1;
    o->mlock = 0;
    o->progress = plain;
    o->progress_state = record;
}

/* What every record must say of itself and of the one before it. */
static void check_records(const sb_measure_options *o,
                          const sb_analysis_options *a, size_t ncells,
                          const char *what)
{
    size_t bad_self = 0, bad_order = 0, between = 0, bad_check = 0;
    size_t expect_inv = 0, last_round = 0;

    for (size_t i = 0; i < sh->n; i++) {
        const sb_progress *p = &sh->rec[i];
        int target = a->precision > 0;
        if (p->size != sizeof(sb_progress) || p->cells != ncells ||
            p->invocations != o->invocations || p->cells_done > ncells ||
            !(p->time_left >= 0) || !(p->elapsed >= 0))
            bad_self++;
        if (p->invocation != expect_inv)
            bad_order++;
        if (p->between) {
            between++;
            expect_inv++;
            last_round = 0;
            /* The runner's check counts the invocations so far. */
            if (target && p->checked_at != expect_inv)
                bad_check++;
        } else {
            if (p->round != last_round + 1)
                bad_order++;
            last_round = p->round;
            /* The stop rule checks from min_samples rounds on, at a
             * round already passed. */
            if (p->checked_at &&
                (p->checked_at < o->min_samples || p->checked_at >= p->round))
                bad_check++;
        }
        if (!target) {
            if (p->cells_done != ncells || p->checked_at ||
                !isnan(p->widest))
                bad_check++;
            continue;
        }
        /* A check has a width; done cells are within the target, and a
         * cell short of it is the widest, or short of min_samples. */
        if (!p->checked_at ? !isnan(p->widest) || p->cells_done
                           : isnan(p->widest) || p->widest < 0 ||
                                 (p->cells_done == ncells &&
                                  !(p->widest <= a->precision)))
            bad_check++;
        if (p->between && p->checked_at && p->cells_done < ncells &&
            !(p->widest > a->precision))
            bad_check++;
    }
    tap_ok(sh->lost == 0 && sh->n > 0, "%s: %zu records", what, sh->n);
    tap_ok(sh->plain == sh->n,
           "%s: progress and progress_state are both called, as often "
           "(%zu, %zu)", what, sh->plain, sh->n);
    tap_ok(bad_self == 0, "%s: size, cells, invocations, counts in range "
                          "(%zu bad)", what, bad_self);
    tap_ok(bad_order == 0, "%s: invocations in order, rounds 1, 2, ... "
                           "within each (%zu bad)", what, bad_order);
    tap_ok(bad_check == 0, "%s: the checks' fields agree (%zu bad)", what,
           bad_check);
    tap_ok(between == o->invocations,
           "%s: one call between invocations after each (%zu)", what,
           between);
}

/* The last call, after the last invocation: its count of cells done is
 * the run's count of cells that reached the target (the same interval
 * over the invocations, the same rule, the outliers kept), and its widest
 * width is the widest of theirs. */
static void check_last(const sb_run *run, const char *what)
{
    const sb_progress *last = &sh->rec[sh->n - 1];
    size_t reached = 0;
    double widest = 0;
    int finite = 1;

    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        reached += r->reached_precision != 0;
        if (!isfinite(r->rel_halfwidth))
            finite = 0;
        else if (r->rel_halfwidth > widest)
            widest = r->rel_halfwidth;
    }
    /* A clock probe whose start-up check failed in every invocation is
     * refused only when the run ends: its clocks, with which the last
     * call judged the cells in core cycles, are dropped, and the run
     * judges them in time (the notes say so, "clock probe: ..." or, with
     * one invocation, "clock probe refused: ...").  Both the count and
     * the width of the last call are then the cycles', not the run's. */
    int refused = strstr(sb_run_meta(run)->notes, "clock probe") &&
                  !strcmp(sb_run_meta(run)->probe, "none");

    if (refused)
        tap_skip("%s: the clock probe was refused after the invocations "
                 "(cells done %zu, %zu)", what, last->cells_done, reached);
    else
        tap_ok(last->between && last->cells_done == reached,
               "%s: the last call's cells done are the run's cells that "
               "reached the target (%zu, %zu)", what, last->cells_done,
               reached);
    if (refused)
        tap_skip("%s: the clock probe was refused after the invocations "
                 "(%g, %g)", what, last->widest, widest);
    else if (!tap_ok(!finite || !isfinite(last->widest) ||
                         fabs(last->widest - widest) <= 1e-12 * widest,
                     "%s: its widest width is the run's (%g, %g)", what,
                     last->widest, widest))
        for (size_t i = 0; i < sb_run_count(run); i++) {
            const sb_cell_result *r = sb_run_cell(run, i);
            tap_diag("cell %zu: %s, %zu samples, %zu with a clock, width "
                     "%g, %s; notes: %s",
                     i, sb_metric_name(r->metric), r->nsamples,
                     r->clock_samples, r->rel_halfwidth, r->method,
                     sb_run_meta(run)->notes);
        }
}

static void run_one(size_t invocations, double precision, const char *what)
{
    sb_measure_options o;
    sb_analysis_options a;
    sb_plan *plan = two_cells();
    sb_run *run = NULL;
    sb_error err = {0};
    int rc;

    memset(sh, 0, sizeof *sh);
    options(&o, &a, invocations, precision);
    rc = plan ? sb_run_execute_new(plan, &o, &a, &run, &err) : SB_ENOMEM;
    tap_ok(rc == SB_OK, "%s: the run is made (%s)", what, err.text);
    if (rc == SB_OK) {
        check_records(&o, &a, 2, what);
        if (precision > 0 && sh->n)
            check_last(run, what);
    }
    sb_run_free(run);
    sb_plan_free(plan);
}

/* A non-zero return stops the run, as progress's does. */
static void stops(void)
{
    sb_measure_options o;
    sb_analysis_options a;
    sb_plan *plan = two_cells();
    sb_run *run = NULL;
    int rc;

    memset(sh, 0, sizeof *sh);
    sh->stop_at = 5;
    options(&o, &a, 1, 0);
    o.max_samples = 100000000;
    o.max_time = 20;
    rc = plan ? sb_run_execute_new(plan, &o, &a, &run, NULL) : SB_ENOMEM;
    tap_ok(rc == SB_OK && sb_run_interrupted(run) &&
               sb_run_rounds(run) == 5,
           "progress_state returning 1 at round 5 stops the run there "
           "(%zu rounds)", run ? sb_run_rounds(run) : 0);
    sb_run_free(run);
    sb_plan_free(plan);
}

int main(void)
{
    if (!(sh = tap_shared(sizeof *sh, "the records")))
        return tap_done();
    run_one(1, 0.05, "1 invocation, in process");
    run_one(3, 0.002, "3 forked invocations, a tight target");
    run_one(2, 0, "precision 0");
    stops();
    munmap(sh, sizeof *sh);
    return tap_done();
}
