/*
 * test_metric.c: what each cell is judged in.
 *
 *  - sb_metric_choose on a table of cells: kernels of every family, sizes
 *    and offsets at the L2 boundary, hot and cold, clocks known, unknown
 *    or partly known, each metric asked.  The expected metric of each
 *    row is worked out by hand from the rule in statbench.h.
 *  - the stop rule's question (sb__raw_precision_met) on simulated
 *    samples whose core clock steps by 3.6% every 20 samples: met in
 *    core cycles, not in time.
 *  - a run built from simulated invocations at two clock states
 *    (2.79 and 2.89 GHz against a 2 GHz TSC): the core-cycle interval is
 *    tight and the time interval is not, the clock summary finds 2
 *    states, the table's clock line says so, and its warning appears
 *    while a cell is reported in time and not when none is.
 *  - the JSON round trip of the new fields, and an older file without
 *    them (every clock unknown, every cell in time).
 *
 * The simulated values are fixed (a seeded generator): nothing here
 * depends on this machine's speed or noise.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "measure.h"
#include "metric.h"
#include "report/report.h"
#include "run_internal.h"
#include "statbench.h"
#include "tap.h"
#include "report_text.h"
#include "synth_run.h"

#define L2 (1024 * 1024)

/* The copy kernel of the simulated runs: movsl where the build has the
 * string-instruction kernels, else duff, a C copy every build has.  Only
 * its name and family (a copy) matter here, never its code. */
#ifdef SB_HAVE_X86_64
#define COPY_NAME "movsl"
#else
#define COPY_NAME "duff"
#endif

static const sb_kernel *of_family(int family)
{
    for (size_t i = 0; i < sb_kernel_count(); i++)
        if ((int)sb_kernel_at(i)->family == family)
            return sb_kernel_at(i);
    return NULL;
}

/* ---- The choice, on a table of cells ------------------------------------ */

enum clocks { ALL, NONE, NULLC, P95, P90, P85, ZEROS };

struct choice {
    int family;
    size_t size, src, dst;
    int cache, asked;
    enum clocks clocks;
    size_t l2, n;
    int want;
    const char *why;
};

static void test_choice_table(void)
{
    static const struct choice t[] = {
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_CYCLES, "hot 4K copy with a clock"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_COLD, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_TIME, "cold copy"},
        {SB_FAMILY_COPY, L2 / 2, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_CYCLES, "copy of source plus destination = L2"},
        {SB_FAMILY_COPY, L2 / 2, 1, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_TIME, "one byte of source offset beyond L2"},
        {SB_FAMILY_COPY, L2 / 2, 0, 1, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_TIME, "one byte of destination offset beyond L2"},
        {SB_FAMILY_COPY, 16 << 20, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL,
         L2, 100, SB_METRIC_TIME, "DRAM-bound 16M copy"},
        {SB_FAMILY_CLEAR, L2, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_CYCLES, "clear of exactly L2 (destination only)"},
        {SB_FAMILY_CLEAR, L2, 5, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_CYCLES, "a clear's source offset does not count"},
        {SB_FAMILY_CLEAR, L2, 0, 1, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_TIME, "a clear's destination offset counts"},
        {SB_FAMILY_ALLOC, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2,
         100, SB_METRIC_TIME, "alloc: page faults, not the core clock"},
        {SB_FAMILY_SYSCALL, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL,
         L2, 100, SB_METRIC_TIME, "system call"},
        {SB_FAMILY_EXTERNAL, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL,
         L2, 100, SB_METRIC_TIME, "samples from elsewhere"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, NONE, L2,
         100, SB_METRIC_TIME, "auto without a clock"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, NULLC, L2,
         100, SB_METRIC_TIME, "auto without a clock column"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, P95, L2,
         100, SB_METRIC_CYCLES, "95% of the clocks known"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, P90, L2,
         100, SB_METRIC_CYCLES, "exactly 90% known"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, P85, L2,
         100, SB_METRIC_TIME, "85% known"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ZEROS, L2,
         100, SB_METRIC_TIME, "clocks of 0 or below are unknown"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, 0,
         100, SB_METRIC_TIME, "L2 size unknown"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_AUTO, ALL, L2, 0,
         SB_METRIC_TIME, "no samples"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_TIME, ALL, L2,
         100, SB_METRIC_TIME, "time asked"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_COLD, SB_METRIC_CYCLES, ALL, L2,
         100, SB_METRIC_CYCLES, "cycles asked: a cold copy too"},
        {SB_FAMILY_SYSCALL, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_CYCLES, ALL,
         L2, 100, SB_METRIC_CYCLES, "cycles asked: a system call too"},
        {SB_FAMILY_SYSCALL, 4096, 0, 0, SB_CACHE_HOT, SB_METRIC_CYCLES, NONE,
         L2, 100, SB_METRIC_TIME, "cycles asked without a clock: time"},
        {SB_FAMILY_COPY, 16 << 20, 0, 0, SB_CACHE_HOT, SB_METRIC_CYCLES, P85,
         0, 100, SB_METRIC_TIME, "cycles asked, 85% known: time"},
        {SB_FAMILY_COPY, 4096, 0, 0, SB_CACHE_HOT, 7, ALL, L2, 100,
         SB_METRIC_TIME, "an unknown metric asked"},
    };
    double clock[100];
    sb_kernel ext = {.size = sizeof(sb_kernel),
                     .name = "ext", .family = SB_FAMILY_EXTERNAL};

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const sb_kernel *k = t[i].family == SB_FAMILY_EXTERNAL
                                 ? &ext
                                 : of_family(t[i].family);
        sb_cell c = {k, t[i].size, t[i].src, t[i].dst};
        size_t unknown = t[i].clocks == NONE  ? 100
                         : t[i].clocks == P95 ? 5
                         : t[i].clocks == P90 ? 10
                         : t[i].clocks == P85 ? 15
                         : t[i].clocks == ZEROS ? 15
                                                : 0;
        if (!k) {
            tap_skip("%s: no kernel of that family in this build", t[i].why);
            continue;
        }
        for (size_t s = 0; s < 100; s++)
            clock[s] = 1.4 + 0.001 * (double)s;
        /* The unknown ones spread over the run, not at its start. */
        for (size_t s = 0; s < unknown; s++)
            clock[(s * 7) % 100] = t[i].clocks == ZEROS ? -(double)(s % 2)
                                                        : NAN;
        TAP_IS_INT(sb_metric_choose(t[i].asked, &c, t[i].cache, t[i].l2,
                                    t[i].clocks == NULLC ? NULL : clock,
                                    t[i].n),
                   t[i].want, "choice: %s: %s", t[i].why,
                   sb_metric_name(t[i].want));
    }
    TAP_IS_INT(sb_metric_choose(SB_METRIC_AUTO, NULL, SB_CACHE_HOT, L2,
                                clock, 100),
               SB_METRIC_TIME, "choice: no cell: time");
    for (int m = SB_METRIC_AUTO; m <= SB_METRIC_CYCLES; m++)
        TAP_IS_INT(sb_metric_parse(sb_metric_name(m)), m,
                   "metric name %s parses back", sb_metric_name(m));
    TAP_IS_INT(sb_metric_parse("cycles\n"), -1, "metric 'cycles\\n' refused");
}

/* ---- The stop rule's question on simulated samples --------------------- */

/* 200 samples of a 100-core-cycle call whose clock steps between 1.395
 * and 1.445 core cycles per tick (2.79 and 2.89 GHz on a 2 GHz TSC)
 * every 20 samples; noise 0.1% on the time, 0.01% on the clock. */
static void stepping(double *ticks, double *clock, size_t n, uint64_t seed)
{
    for (size_t s = 0; s < n; s++) {
        double c = (s / 20) % 2 ? 1.445 : 1.395;
        ticks[s] = 100 / c * (1 + 0.001 * (uniform(&seed) - 0.5));
        clock[s] = c * (1 + 0.0001 * (uniform(&seed) - 0.5));
    }
}

static void test_stop_rule(void)
{
    enum { N = 200 };
    double ticks[N], clock[N], work[2 * N];
    const sb_kernel *k = sb_kernel_find(COPY_NAME);
    sb_cell cell = {k ? k : of_family(SB_FAMILY_COPY), 4096, 0, 0};
    sb__raw_cell r = {.nsamples = N, .ticks = ticks, .clock = clock};
    sb_measure_options o;
    sb_analysis_options oa;

    sb_measure_options_init(&o);
    sb_analysis_options_init(&oa); /* auto, precision 1% */
    stepping(ticks, clock, N, 11);
    tap_ok(sb__raw_precision_met(&cell, &r, &o, &oa, L2, work),
           "stop rule: a stepping clock, in core cycles: precision met");
    oa.metric = SB_METRIC_TIME;
    tap_ok(!sb__raw_precision_met(&cell, &r, &o, &oa, L2, work),
           "stop rule: the same samples in time: not met (two states)");
    oa.metric = SB_METRIC_AUTO;
    tap_ok(!sb__raw_precision_met(&cell, &r, &o, &oa, 0, work),
           "stop rule: auto with the L2 size unknown judges in time");
    r.clock = NULL;
    tap_ok(!sb__raw_precision_met(&cell, &r, &o, &oa, L2, work),
           "stop rule: auto without clocks judges in time");
    r.clock = clock;
    /* 30% of the clocks unknown: below the share, so time. */
    for (size_t s = 0; s < N; s += 3)
        clock[s] = NAN;
    oa.metric = SB_METRIC_CYCLES;
    tap_ok(!sb__raw_precision_met(&cell, &r, &o, &oa, L2, work),
           "stop rule: cycles asked, a third of the clocks unknown: time");
    /* 5% unknown: cycles, the unknown samples left out. */
    stepping(ticks, clock, N, 11);
    for (size_t s = 0; s < N; s += 20)
        clock[s] = NAN;
    tap_ok(sb__raw_precision_met(&cell, &r, &o, &oa, L2, work),
           "stop rule: 5%% of the clocks unknown: still core cycles");
}

/* ---- A run at two clock states ------------------------------------------ */

#define NINV 8
#define NS 60

/* Cell 0 a hot 4K copy (auto: cycles), cell 1 a system call (auto:
 * time), cell 2 (when three) a 16M copy (DRAM: time).  Invocation g runs
 * at state[g % nstates]. */
/* unclocked: the cell whose samples have no core clock (NAN), or
 * NO_CELL. */
#define NO_CELL ((size_t)-1)
static sb_run *two_state_run(size_t ncells, size_t nstates, int metric,
                             size_t unclocked)
{
    static const double state[2] = {1.395, 1.445};
    const sb_kernel *copy = sb_kernel_find(COPY_NAME);
    const sb_kernel *sys = of_family(SB_FAMILY_SYSCALL);
    sb_analysis_options oa;
    sb_run *run;
    uint64_t seed = 5;
    double ticks[NS], clock[NS];

    if (!copy || !sys)
        return NULL;
    sb_analysis_options_init(&oa);
    oa.metric = metric;
    run = sb__run_alloc(ncells, NULL, &oa);
    if (!run)
        return NULL;
    run->cells[0].cell = (sb_cell){copy, 4096, 0, 0};
    run->cells[1].cell = (sb_cell){sys, 4096, 0, 0};
    if (ncells > 2)
        run->cells[2].cell = (sb_cell){copy, 16 << 20, 0, 0};
    synth_tsc(run, 2e9);
    run->meta.l2_bytes = L2;
    for (size_t g = 0; g < NINV; g++) {
        double c = state[g % nstates];
        for (size_t i = 0; i < ncells; i++) {
            sb__raw_cell raw = {.nsamples = NS, .ticks = ticks,
                                .clock = clock, .iters = 10};
            double cycles = i == 0 ? 100 : i == 1 ? 5000 : 400000;
            for (size_t s = 0; s < NS; s++) {
                ticks[s] = cycles / c * (1 + 0.001 * (uniform(&seed) - 0.5));
                clock[s] = c * (1 + 0.0001 * (uniform(&seed) - 0.5));
                if (i == unclocked)
                    clock[s] = NAN;
            }
            if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    }
    return synth_analysed(run, NINV);
}

static double rel_half(const sb_interval *i)
{
    return (i->hi - i->lo) / 2 / i->estimate;
}

static void test_two_states(void)
{
    sb_run *run = two_state_run(3, 2, SB_METRIC_AUTO, NO_CELL);
    const sb_cell_result *c, *s, *d;
    sb_clock_summary cs = {.size = sizeof cs};
    sb_analysis_options a;
    sb_error err = {0};
    char line[256], *text;

    if (!tap_ok(run != NULL, "two states: the run is built"))
        return;
    c = sb_run_cell(run, 0);
    s = sb_run_cell(run, 1);
    d = sb_run_cell(run, 2);
    TAP_IS_INT(c->metric, SB_METRIC_CYCLES, "two states: hot copy in cycles");
    TAP_IS_INT(s->metric, SB_METRIC_TIME, "two states: system call in time");
    TAP_IS_INT(d->metric, SB_METRIC_TIME, "two states: 16M copy in time");
    TAP_IS_INT(c->clock_samples, NINV * NS, "two states: every clock known");
    TAP_IS_REL(c->core_cycles.estimate, 100, 0.002,
               "two states: core cycles per call 100");
    TAP_IS_REL(c->core_cycles_per_byte, 100.0 / 4096, 0.002,
               "two states: core cycles per byte");
    tap_ok(rel_half(&c->core_cycles) < 0.002,
           "two states: the core-cycle interval is tight (+-%.3f%%)",
           100 * rel_half(&c->core_cycles));
    tap_ok(rel_half(&c->interval) > 0.01,
           "two states: the time interval is not (+-%.2f%%)",
           100 * rel_half(&c->interval));
    TAP_IS_REL(c->rel_halfwidth, rel_half(&c->core_cycles), 1e-12,
               "two states: the copy's +-%% is of its cycles");
    TAP_IS_REL(s->rel_halfwidth, rel_half(&s->interval), 1e-12,
               "two states: the system call's +-%% is of its time");
    tap_ok(c->reached_precision && !s->reached_precision,
           "two states: the copy reaches +-1%%, the system call does not");
    /* MB/s stays from time. */
    TAP_IS_REL(c->mbps.estimate, 4096 * 2e9 / c->interval.estimate / 1e6,
               1e-12, "two states: MB/s from the time");

    if (tap_ok(sb_run_clock(run, &cs, NULL) == SB_OK,
               "two states: clock summary")) {
        TAP_IS_INT(cs.invocations, NINV, "two states: clock of every "
                                         "invocation");
        TAP_IS_INT(cs.states, 2, "two states: 2 states");
        TAP_IS_REL(cs.lo_hz, 2.79e9, 1e-3, "two states: slowest 2.79 GHz");
        TAP_IS_REL(cs.hi_hz, 2.89e9, 1e-3, "two states: fastest 2.89 GHz");
    }
    sb__report_clock_line(run, line, sizeof line);
    TAP_IS_STR(line, "core 2.79-2.89 GHz in 2 states over 8 invocations "
                     "(TSC 2.00 GHz)", "two states: the clock line");
    text = report_text(run, SB_FORMAT_TABLE);
    tap_ok(text && strstr(text, "clock:    core 2.79-2.89 GHz in 2 states"),
           "two states: the table's header has the clock line");
    tap_ok(text && strstr(text, "warning:  clock: invocations ran at 2 core "
                                "clock states; the 2 cells reported in time"),
           "two states: the warning names the 2 time cells");
    tap_ok(text && strstr(text, " core/call ") && strstr(text, " cyc "),
           "two states: core-cycle columns and the metric column");
    if (text && !strstr(text, "warning:  clock"))
        tap_diag("%s", text);
    free(text);
    text = report_text(run, SB_FORMAT_CSV);
    tap_ok(text && strstr(text, ",core_cycles_median,") &&
               strstr(text, ",halfwidth_pct,metric,") &&
               strstr(text, ",cycles,") && strstr(text, ",time,"),
           "two states: CSV has the metric and core-cycle columns");
    free(text);
    text = report_text(run, SB_FORMAT_MARKDOWN);
    tap_ok(text && strstr(text, "| core cyc/call |") &&
               strstr(text, "| metric |") &&
               strstr(text, "| cycles |"),
           "two states: Markdown has the metric and core cycles");
    free(text);

    /* Everything in cycles: no cell in time, so no warning. */
    a = *sb_run_analysis_options(run);
    a.metric = SB_METRIC_CYCLES;
    tap_ok(sb_run_reanalyse(run, &a, &err) == SB_OK, "reanalysed in cycles");
    TAP_IS_INT(sb_run_cell(run, 1)->metric, SB_METRIC_CYCLES,
               "--metric cycles: the system call in cycles");
    tap_ok(sb_run_cell(run, 1)->reached_precision,
           "--metric cycles: the system call reaches +-1%%");
    text = report_text(run, SB_FORMAT_TABLE);
    tap_ok(text && strstr(text, "clock:    core 2.79-2.89 GHz") &&
               !strstr(text, "warning:  clock"),
           "--metric cycles: clock line, no warning without a time cell");
    free(text);
    /* Everything in time: the copy falls short. */
    a.metric = SB_METRIC_TIME;
    tap_ok(sb_run_reanalyse(run, &a, &err) == SB_OK, "reanalysed in time");
    c = sb_run_cell(run, 0);
    TAP_IS_INT(c->metric, SB_METRIC_TIME, "--metric time: the copy in time");
    tap_ok(!c->reached_precision && c->rel_halfwidth > 0.01,
           "--metric time: the copy is short of +-1%% (+-%.2f%%)",
           100 * c->rel_halfwidth);
    tap_ok(rel_half(&c->core_cycles) < 0.002,
           "--metric time: its core cycles are still given");
    sb_run_free(run);

    /* One state: no warning even with cells in time. */
    run = two_state_run(2, 1, SB_METRIC_AUTO, NO_CELL);
    if (tap_ok(run != NULL, "one state: the run is built")) {
        sb__report_clock_line(run, line, sizeof line);
        TAP_IS_STR(line, "core 2.79 GHz in 1 state over 8 invocations (TSC "
                         "2.00 GHz)", "one state: the clock line");
        text = report_text(run, SB_FORMAT_TABLE);
        tap_ok(text && !strstr(text, "warning:  clock"),
               "one state: no clock warning");
        free(text);
        tap_ok(sb_run_cell(run, 1)->reached_precision,
               "one state: the system call in time reaches +-1%%");
        sb_run_free(run);
    }
}

/* ---- JSON --------------------------------------------------------------- */

static sb_run *load_text(const char *text, const sb_analysis_options *opt)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    sb_run *run = NULL;
    sb_error err = {0};

    if (!f)
        return NULL;
    if (sb_run_load_new(f, "test.json", opt, &run, &err) != SB_OK)
        tap_diag("load: %s", err.text);
    fclose(f);
    return run;
}

static void test_json(void)
{
    sb_run *run = two_state_run(3, 2, SB_METRIC_CYCLES, NO_CELL),
           *back;
    char *text, *old;
    json_t *root, *cells;
    json_error_t jerr;

    if (!tap_ok(run != NULL, "json: the run is built"))
        return;
    text = report_text(run, SB_FORMAT_JSON);
    back = text ? load_text(text, NULL) : NULL;
    if (tap_ok(back != NULL, "json: written and loaded back")) {
        int same = 1;
        TAP_IS_INT(sb_run_analysis_options(back)->metric, SB_METRIC_CYCLES,
                   "json: options.metric read back");
        TAP_IS_INT(sb_run_meta(back)->l2_bytes, L2,
                   "json: meta.l2_bytes read back");
        for (size_t i = 0; i < sb_run_count(run); i++) {
            const sb_cell_result *a = sb_run_cell(run, i);
            const sb_cell_result *b = sb_run_cell(back, i);
            const double *ca = sb_run_sample_clock(run, i);
            const double *cb = sb_run_sample_clock(back, i);
            same &= a->metric == b->metric &&
                    a->clock_samples == b->clock_samples &&
                    a->nsamples == b->nsamples && ca && cb &&
                    fabs(a->core_cycles.estimate - b->core_cycles.estimate) <=
                        1e-8 * a->core_cycles.estimate &&
                    fabs(a->core_cycles.hi - b->core_cycles.hi) <=
                        1e-8 * a->core_cycles.hi;
            for (size_t s = 0; same && s < a->nsamples; s++)
                same &= fabs(ca[s] - cb[s]) <= 1e-9 * ca[s];
        }
        tap_ok(same, "json: per-sample clocks, metrics and core cycles "
                     "round-trip");
        sb_run_free(back);
    }

    /* An older file: no samples_clock, l2_bytes or metric. */
    root = text ? json_loads(text, 0, &jerr) : NULL;
    cells = json_object_get(root, "cells");
    for (size_t i = 0; i < json_array_size(cells); i++) {
        json_t *cell = json_array_get(cells, i);
        json_object_del(cell, "samples_clock");
        json_object_del(cell, "metric");
        /* Older files held the core cycles per byte as a number. */
        json_object_set_new(cell, "core_cycles_per_byte", json_real(0.0244));
    }
    json_object_del(json_object_get(root, "meta"), "l2_bytes");
    json_object_del(json_object_get(json_object_get(root, "meta"), "options"),
                    "metric");
    old = root ? json_dumps(root, 0) : NULL;
    back = old ? load_text(old, NULL) : NULL;
    if (tap_ok(back != NULL, "json: an older file loads")) {
        const double *cl = sb_run_sample_clock(back, 0);
        const sb_cell_result *r = sb_run_cell(back, 0);
        int unknown = cl != NULL;
        for (size_t s = 0; cl && s < r->nsamples; s++)
            unknown &= isnan(cl[s]);
        TAP_IS_INT(sb_run_analysis_options(back)->metric, SB_METRIC_AUTO,
                   "json: an older file is auto");
        TAP_IS_INT(sb_run_meta(back)->l2_bytes, 0,
                   "json: an older file has no L2 size");
        tap_ok(unknown, "json: an older file's clocks are unknown");
        tap_ok(r->metric == SB_METRIC_TIME && r->clock_samples == 0 &&
                   isnan(r->core_cycles.estimate) &&
                   isnan(r->core_cycles_per_byte) &&
                   isnan(r->core_per_byte.estimate) &&
                   isnan(r->core_per_byte.lo) && isnan(r->core_per_byte.hi),
               "json: an older file's cells are in time, without cycles");
        sb_run_free(back);
    }
    free(old);

    /* Hostile clocks: a string, a negative value, a short array. */
    {
        json_t *c0 = json_array_get(cells, 0), *c1 = json_array_get(cells, 1);
        json_t *a = json_array();
        for (size_t s = 0; s < NINV * NS; s++)
            json_array_append_new(a, s == 0   ? json_string("fast")
                                     : s == 1 ? json_real(-1.4)
                                              : json_real(1.4));
        json_object_set_new(c0, "samples_clock", a);
        a = json_array();
        json_array_append_new(a, json_real(1.4));
        json_object_set_new(c1, "samples_clock", a);
        json_object_set_new(json_object_get(root, "meta"), "l2_bytes",
                            json_integer(-5));
        json_object_set_new(
            json_object_get(json_object_get(root, "meta"), "options"),
            "metric", json_string("cycles\x1b[2J"));
    }
    old = root ? json_dumps(root, 0) : NULL;
    back = old ? load_text(old, NULL) : NULL;
    if (tap_ok(back != NULL, "json: hostile clocks load")) {
        const double *cl = sb_run_sample_clock(back, 0);
        TAP_IS_INT(sb_run_cell(back, 0)->clock_samples, NINV * NS - 2,
                   "json: a string and a negative clock are unknown");
        tap_ok(cl && isnan(cl[0]) && isnan(cl[1]) && cl[2] == 1.4,
               "json: the others are kept");
        TAP_IS_INT(sb_run_cell(back, 1)->clock_samples, 0,
                   "json: a clock array of the wrong length is ignored");
        TAP_IS_INT(sb_run_meta(back)->l2_bytes, 0,
                   "json: a negative l2_bytes is unknown");
        TAP_IS_INT(sb_run_analysis_options(back)->metric, SB_METRIC_AUTO,
                   "json: an unknown metric name is auto");
        sb_run_free(back);
    }
    free(old);
    json_decref(root);
    free(text);
    sb_run_free(run);
}

/* ---- Core cycles per call and per byte, beside MB/s ---------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place): the middle one, or the mean
 * of the two middle ones. */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The field of the plain table's rows under the header word name, in the
 * row whose kernel and size are given; NULL when not there.  The header
 * names every column of the rows in one word (table.c). */
static const char *table_field(const char *text, const char *kernel,
                               size_t size, const char *name, char *out,
                               size_t len)
{
    const char *head = strstr(text, "\nkernel ");
    int col = -1, k = 0;
    char line[1024], *tok, *save;
    size_t want_size;

    if (!head || !strstr(head, " MB/s "))
        return NULL;
    head++;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(head, "\n"), head);
    for (tok = strtok_r(line, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save), k++)
        if (!strcmp(tok, name))
            col = k;
    if (col < 0)
        return NULL;
    for (const char *p = strchr(head, '\n'); p && p[1] && p[1] != '\n';
         p = strchr(p + 1, '\n')) {
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 1, "\n"),
                 p + 1);
        tok = strtok_r(line, " ", &save);
        if (!tok || strcmp(tok, kernel))
            continue;
        tok = strtok_r(NULL, " ", &save);
        if (!tok || sscanf(tok, "%zu", &want_size) != 1 || want_size != size)
            continue;
        for (k = 1; tok && k < col; k++)
            tok = strtok_r(NULL, " ", &save);
        if (!tok)
            return NULL;
        snprintf(out, len, "%s", tok);
        return out;
    }
    return NULL;
}

/* The field under name in CSV row (1-based after the header) of text;
 * the writer quotes no field of these rows, so a split on ',' serves. */
static const char *csv_field(const char *text, size_t row, const char *name,
                             char *out, size_t len)
{
    char line[8192], *tok, *save;
    int col = -1, k = 0;
    const char *p = text;

    snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
    for (tok = strtok_r(line, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), k++)
        if (!strcmp(tok, name))
            col = k;
    for (size_t r = 0; p && r < row; r++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    if (col < 0 || !p)
        return NULL;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
    /* Empty fields: strsep keeps them, strtok would skip them. */
    tok = line;
    for (k = 0; tok && k < col; k++) {
        tok = strchr(tok, ',');
        tok = tok ? tok + 1 : NULL;
    }
    if (!tok)
        return NULL;
    snprintf(out, len, "%.*s", (int)strcspn(tok, ","), tok);
    return out;
}

/* The run of two clock states with the system call's samples without a
 * core clock: the copies' core cycles per call and per byte against an
 * interval computed here, from the samples, without the library's
 * statistics; the per-byte interval the per-call one over the size; the
 * writers show both beside MB/s, and "-", an empty field, "--" or null
 * for the cell without a clock. */
static void test_per_byte(void)
{
    sb_run *run = two_state_run(3, 2, SB_METRIC_AUTO, 1);
    const double sizes[3] = {4096, 4096, 16 << 20};
    char *text, buf[64];
    json_t *root, *cells;
    json_error_t jerr;

    if (!tap_ok(run != NULL, "per byte: the run is built"))
        return;
    for (size_t i = 0; i < 3; i += 2) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const double *clock = sb_run_sample_clock(run, i);
        double med[NINV], v[NS], lo, hi, est;
        size_t at = 0;

        if (!clock || r->invocations != NINV) {
            tap_ok(0, "per byte: cell %zu has clocks and %d invocations", i,
                   NINV);
            continue;
        }
        /* Each invocation's median core cycles (ticks times the clock),
         * then the median of those eight with the order-statistic
         * interval at 95%: for 8 values ranks 1 and 8 (coverage
         * 1 - 2 / 2^8 = 0.992; ranks 2 and 7 cover 1 - 18 / 2^8 = 0.930,
         * short of 0.95). */
        for (size_t g = 0; g < NINV; g++) {
            size_t n = r->inv_nsamples[g];
            for (size_t s = 0; s < n && s < NS; s++)
                v[s] = r->ticks[at + s] * clock[at + s];
            med[g] = median_of(v, n < NS ? n : NS);
            at += n;
        }
        est = median_of(med, NINV);
        lo = med[0];
        hi = med[NINV - 1];
        TAP_IS_REL(r->core_cycles.estimate, est, 1e-12,
                   "per byte: cell %zu: core cycles per call, the median "
                   "of the invocation medians", i);
        TAP_IS_REL(r->core_cycles.lo, lo, 1e-12,
                   "per byte: cell %zu: its interval's low end, the "
                   "lowest invocation median", i);
        TAP_IS_REL(r->core_cycles.hi, hi, 1e-12,
                   "per byte: cell %zu: its high end, the highest", i);
        TAP_IS_REL(r->core_cycles.achieved, 1 - 2.0 / 256, 1e-12,
                   "per byte: cell %zu: coverage 0.992", i);
        TAP_IS_REL(r->core_per_byte.estimate, est / sizes[i], 1e-12,
                   "per byte: cell %zu: core cycles per byte", i);
        TAP_IS_REL(r->core_per_byte.lo, lo / sizes[i], 1e-12,
                   "per byte: cell %zu: its low end, per call over size", i);
        TAP_IS_REL(r->core_per_byte.hi, hi / sizes[i], 1e-12,
                   "per byte: cell %zu: its high end", i);
        tap_ok(r->core_per_byte.level == r->core_cycles.level &&
                   r->core_per_byte.achieved == r->core_cycles.achieved,
               "per byte: cell %zu: the same level and coverage", i);
        TAP_IS_REL(r->core_cycles_per_byte, r->core_per_byte.estimate, 0,
                   "per byte: cell %zu: core_cycles_per_byte its estimate",
                   i);
    }
    {
        const sb_cell_result *r = sb_run_cell(run, 1);
        tap_ok(r->clock_samples == 0 && isnan(r->core_cycles.estimate) &&
                   isnan(r->core_per_byte.estimate) &&
                   isnan(r->core_per_byte.lo) && isnan(r->core_per_byte.hi),
               "per byte: a cell without a clock: NAN");
    }

    /* The table: the columns by their header words, beside MB/s. */
    text = report_text(run, SB_FORMAT_TABLE);
    if (text) {
        const sb_cell_result *r = sb_run_cell(run, 0);
        const char *sys = sb_run_cell(run, 1)->cell.kernel->name;
        const char *head = strstr(text, "\nkernel ");
        const char *mb = head ? strstr(head, " MB/s-hi ") : NULL;
        const char *cc = head ? strstr(head, " core/call ") : NULL;
        const char *pm = head ? strstr(head, " +-% ") : NULL;
        const char *kept = head ? strstr(head, " kept ") : NULL;
        tap_ok(mb && cc && pm && kept && mb < cc && cc < pm && pm < kept,
               "per byte: table: MB/s, then core cycles, then +-%%, then "
               "kept");
        tap_ok(table_field(text, COPY_NAME, 4096, "core/B-lo", buf,
                           sizeof buf) &&
                   fabs(atof(buf) / r->core_per_byte.lo - 1) < 1e-4,
               "per byte: table: core/B-lo %s, the interval's %.6g", buf,
               r->core_per_byte.lo);
        tap_ok(table_field(text, COPY_NAME, 4096, "core/call-hi", buf,
                           sizeof buf) &&
                   fabs(atof(buf) - r->core_cycles.hi) <= 0.05,
               "per byte: table: core/call-hi %s, the interval's %.6g", buf,
               r->core_cycles.hi);
        tap_ok(table_field(text, sys, 4096, "core/B", buf, sizeof buf) &&
                   !strcmp(buf, "-"),
               "per byte: table: '-' for the cell without a clock (%s)",
               buf);
        tap_ok(table_field(text, sys, 4096, "in", buf, sizeof buf) &&
                   !strcmp(buf, "time"),
               "per byte: table: the metric beside +-%% (%s)", buf);
        tap_ok(strstr(text, "+-%: half the width of the interval in the "
                            "cell's metric") != NULL,
               "per byte: table: the units line says what +-%% is of");
    }
    free(text);

    text = report_text(run, SB_FORMAT_CSV);
    if (text) {
        const sb_cell_result *r = sb_run_cell(run, 2);
        tap_ok(csv_field(text, 3, "core_cycles_per_byte_ci_hi", buf,
                         sizeof buf) &&
                   fabs(atof(buf) / r->core_per_byte.hi - 1) < 1e-8,
               "per byte: CSV core_cycles_per_byte_ci_hi %s", buf);
        tap_ok(csv_field(text, 2, "core_cycles_per_byte_ci_lo", buf,
                         sizeof buf) &&
                   !buf[0],
               "per byte: CSV: empty for the cell without a clock");
        tap_ok(strstr(text, "mbps_ci_hi,core_cycles_median,") != NULL,
               "per byte: CSV: the core cycles beside MB/s");
    }
    free(text);

    text = report_text(run, SB_FORMAT_JSON);
    root = text ? json_loads(text, 0, &jerr) : NULL;
    cells = json_object_get(root, "cells");
    {
        json_t *c0 = json_object_get(json_array_get(cells, 0),
                                     "core_cycles_per_byte");
        json_t *c1 = json_object_get(json_array_get(cells, 1),
                                     "core_cycles_per_byte");
        const sb_interval *b = &sb_run_cell(run, 0)->core_per_byte;
        tap_ok(json_is_object(c0) &&
                   fabs(json_number_value(json_object_get(c0, "lo")) /
                            b->lo - 1) < 1e-8 &&
                   fabs(json_number_value(json_object_get(c0, "hi")) /
                            b->hi - 1) < 1e-8,
               "per byte: JSON core_cycles_per_byte is the interval");
        tap_ok(json_is_object(c1) &&
                   json_is_null(json_object_get(c1, "estimate")),
               "per byte: JSON: null without a clock");
    }
    json_decref(root);
    free(text);

    text = report_text(run, SB_FORMAT_MARKDOWN);
    /* Right-aligned columns are padded on the left. */
    tap_ok(text && strstr(text, " MB/s |") &&
               strstr(text, " core cyc/call |") &&
               strstr(text, " core cyc/B |") && strstr(text, " +-% |") &&
               strstr(text, " MB/s |") < strstr(text, " core cyc/call |") &&
               strstr(text, " core cyc/B |") < strstr(text, " +-% |"),
           "per byte: Markdown: core cycles per call and per byte beside "
           "MB/s");
    free(text);
    tap_ok(report_has(run, SB_FORMAT_LATEX, "& core cyc/B &"),
           "per byte: LaTeX: core cycles per byte");
    sb_run_free(run);
}

/* ---- Every invocation's clock in the JSON -------------------------------- */

#define NBIG 200 /* invocations: more than sb_meta's SB_PROBE_MAX_INV */

/* A run of NBIG invocations, each with its own clock and quiet level
 * recorded as the runner records them: the JSON keeps every one, the
 * loader reads every one back, and a merge of two such runs holds both
 * runs' in order. */
static void test_every_invocation(void)
{
    const sb_kernel *copy = sb_kernel_find(COPY_NAME);
    sb_run *run, *back = NULL, *merged = NULL;
    sb_error err = {0};
    double ticks[5], clock[5];
    char *text = NULL;
    json_t *root, *ic;
    json_error_t jerr;
    int ok = 1;

    run = copy ? sb__run_alloc(1, NULL, NULL) : NULL;
    if (!tap_ok(run != NULL, "every invocation: the run is made"))
        return;
    run->cells[0].cell = (sb_cell){copy, 4096, 0, 0};
    run->meta.timer.kind = SB_TIMER_TSC;
    run->meta.timer.hz = 2e9;
    run->meta.timer.hz_source = "test";
    snprintf(run->meta.probe, sizeof run->meta.probe, "imul-chain");
    for (size_t g = 0; g < NBIG && ok; g++) {
        double c = 1.25 + g / 256.0; /* exact in binary and in %.10g */
        sb__raw_cell raw = {.nsamples = 5, .ticks = ticks, .clock = clock,
                            .iters = 10};
        for (size_t k = 0; k < 5; k++) {
            ticks[k] = 100 / c + (double)k;
            clock[k] = c;
        }
        ok = sb__run_add_invocation(run, 0, &raw) == SB_OK &&
             sb__run_invocation_probe(run, g, c, 32 + g / 8.0) == SB_OK;
        run->invocations = g + 1;
    }
    ok = ok && sb__run_analyse(run, &err) == SB_OK;
    if (!tap_ok(ok, "every invocation: %d invocations recorded (%s)", NBIG,
                err.text)) {
        sb_run_free(run);
        return;
    }
    TAP_IS_INT(sb_run_invocation_probes(run), NBIG,
               "every invocation: all %d have probe figures", NBIG);
    TAP_IS_INT(sb_run_meta(run)->probe_ninv, SB_PROBE_MAX_INV,
               "every invocation: sb_meta keeps the first %d",
               SB_PROBE_MAX_INV);
    tap_ok(isnan(sb_run_invocation_clock(run, NBIG)) &&
               isnan(sb_run_invocation_quiet(NULL, 0)),
           "every invocation: NAN past the last and for no run");

    back = json_round_trip(run, &text);
    root = text ? json_loads(text, 0, &jerr) : NULL;
    ic = json_object_get(json_object_get(json_object_get(root, "meta"),
                                         "probes"),
                         "invocation_clock");
    ok = json_array_size(ic) == NBIG;
    for (size_t g = 0; ok && g < NBIG; g++)
        ok = json_number_value(json_array_get(ic, g)) == 1.25 + g / 256.0;
    tap_ok(ok, "every invocation: the JSON's invocation_clock holds all "
               "%d (%zu)", NBIG, json_array_size(ic));
    json_decref(root);
    ok = back && sb_run_invocation_probes(back) == NBIG;
    for (size_t g = 0; ok && g < NBIG; g++)
        ok = sb_run_invocation_clock(back, g) == 1.25 + g / 256.0 &&
             sb_run_invocation_quiet(back, g) == 32 + g / 8.0;
    tap_ok(ok, "every invocation: read back, every clock and quiet level");

    if (back) {
        const sb_run *two[2] = {run, back};
        char warn[512];
        ok = sb_run_merge_new(two, 2, &merged, warn, sizeof warn, &err) ==
                 SB_OK &&
             sb_run_invocation_probes(merged) == 2 * NBIG;
        for (size_t g = 0; ok && g < 2 * NBIG; g++)
            ok = sb_run_invocation_clock(merged, g) ==
                     1.25 + (g % NBIG) / 256.0 &&
                 sb_run_invocation_quiet(merged, g) == 32 + (g % NBIG) / 8.0;
        tap_ok(ok, "every invocation: a merge of two holds both runs' %d, "
                   "in order (%s)", 2 * NBIG, err.text);
    }
    sb_run_free(merged);
    sb_run_free(back);
    free(text);
    sb_run_free(run);
}

/* ---- The alignment matrix ----------------------------------------------- */

/* A 2 x 2 matrix of hot copies (source and destination offsets 0 and 1),
 * the cell at src 1, dst 1 without a core clock: the table's matrix has
 * a third part, the median core cycles per call, with "-" for that
 * cell. */
static void test_matrix(void)
{
    const sb_kernel *copy = sb_kernel_find(COPY_NAME);
    sb_run *run;
    sb_error err = {0};
    double ticks[NS], clock[NS];
    char *text, want[128];
    const char *part;
    int ok = 1;

    run = copy ? sb__run_alloc(4, NULL, NULL) : NULL;
    if (!tap_ok(run != NULL, "matrix: the run is made"))
        return;
    for (size_t i = 0; i < 4; i++)
        run->cells[i].cell = (sb_cell){copy, 4096, i % 2, i / 2};
    run->meta.timer.kind = SB_TIMER_TSC;
    run->meta.timer.hz = 2e9;
    run->meta.timer.hz_source = "test";
    run->meta.cpu = -1;
    run->meta.l2_bytes = L2;
    for (size_t g = 0; g < 2 && ok; g++)
        for (size_t i = 0; i < 4 && ok; i++) {
            sb__raw_cell raw = {.nsamples = NS, .ticks = ticks,
                                .clock = clock, .iters = 10};
            for (size_t k = 0; k < NS; k++) {
                /* 100, 101, 102 core cycles at 1.4 cycles per tick. */
                ticks[k] = (100.0 + (double)i) / 1.4;
                clock[k] = i == 3 ? NAN : 1.4;
            }
            ok = sb__run_add_invocation(run, i, &raw) == SB_OK;
        }
    run->invocations = 2;
    ok = ok && sb__run_analyse(run, &err) == SB_OK;
    text = ok ? report_text(run, SB_FORMAT_TABLE) : NULL;
    part = text ? strstr(text, COPY_NAME " 4096 B: median core cycles per "
                               "call")
                : NULL;
    snprintf(want, sizeof want, "\n%8d %8.1f%c %8.1f%c\n%8d %8.1f%c %9s\n",
             0, 100.0, ' ', 101.0, ' ', 1, 102.0, ' ', "-");
    tap_ok(part && strstr(part, want),
           "matrix: the core cycles per call of each cell, '-' without a "
           "clock");
    if (text && !(part && strstr(part, want)))
        tap_diag("%s", text);
    free(text);
    sb_run_free(run);
}

/* A sample's core cycles are its ticks times its clock, and none (NaN)
 * where the clock is unknown: not finite, negative, or 0 (a chain that
 * could not be timed); in time, the ticks whatever the clock. */
static void test_values(void)
{
    static const double ticks[] = {100, 200, 300, 400, 500};
    const double clock[] = {1.5, 0, -1, NAN, INFINITY};
    double out[5];
    int none = 1;

    sb__metric_values(SB_METRIC_CYCLES, ticks, clock, 5, out);
    TAP_IS_REL(out[0], 150, 1e-15, "values: 100 ticks at 1.5 cycles a tick");
    for (size_t s = 1; s < 5; s++)
        none = none && isnan(out[s]);
    tap_ok(none, "values: a clock of 0, -1, NaN or inf gives no cycles "
           "(%g %g %g %g)", out[1], out[2], out[3], out[4]);
    sb__metric_values(SB_METRIC_TIME, ticks, clock, 5, out);
    tap_ok(out[1] == 200 && out[4] == 500, "values: in time, the ticks");
}

int main(void)
{
    sb_init();
    test_choice_table();
    test_stop_rule();
    test_two_states();
    test_json();
    test_per_byte();
    test_every_invocation();
    test_matrix();
    test_values();
    return tap_done();
}
