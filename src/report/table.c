/* report/table.c: the human table (SB_FORMAT_TABLE): a header describing
 * the run, the cells as rows, matrices or allocation rows, and the
 * disturbance table.  See docs/design.md, "Who owns what". */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "run_internal.h"

static void features(unsigned bits, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned b = 0; b < 32; b++) {
        if (bits & (1u << b)) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                             sb_feature_name(1u << b));
            if (w < 0 || (size_t)w >= len - used)
                break;
            used += (size_t)w;
        }
    }
    if (!used)
        snprintf(buf, len, "none detected");
}

/* Samples from elsewhere (analyze): no machine, no sizes, own units. */
static int external(const sb_run *run)
{
    return sb_run_imported(run);
}

/* A whole string to f, cleaned (sb__report_put). */
static void puts_clean(FILE *f, const char *s)
{
    sb__report_put(f, s, (size_t)-1);
}

/* The header's line on the probes beside every sample (probe.c): where
 * the core clock came from or why there is none, what the probes cost,
 * the shares of samples that waited for the CPU or found the core
 * shared, and how long the run waited for a quiet core (elapsed: the
 * run's seconds measuring).  Nothing for a run without them (imported,
 * or saved before). */
static void probes(const sb_meta *m, double elapsed, FILE *f)
{
    if (!m->probe[0])
        return;
    fputs("probes:   ", f);
    if (!strcmp(m->probe, "none")) {
        fputs("no core clock (", f);
        puts_clean(f, m->probe_note);
        fputs(")", f);
    } else {
        /* A loaded run's string may be anything: printed as it is. */
        fputs("core clock from ", f);
        if (!strcmp(m->probe, "pmu"))
            fputs("PAPI_TOT_CYC", f);
        else if (!strcmp(m->probe, "imul-chain"))
            fputs("an imul chain", f);
        else
            puts_clean(f, m->probe);
        if (strcmp(m->probe, "pmu") && m->probe_note[0]) {
            fputs(" (", f);
            puts_clean(f, m->probe_note);
            fputc(')', f);
        }
        if (isfinite(m->probe_clock))
            fprintf(f, ", %.3g core cycles per tick", m->probe_clock);
        /* Core cycles per tick times ticks per second. */
        if (isfinite(m->probe_clock))
            fprintf(f, " (core %.2f GHz)", m->probe_clock * m->timer.hz / 1e9);
    }
    if (isfinite(m->probe_cost_share))
        fprintf(f, "; %.1f%% of measuring time", 100 * m->probe_cost_share);
    if (isfinite(m->contended_share))
        fprintf(f, "; shared core: %.1f%% of samples contended (quiet "
                   "level %.3g %s per probe rep, margin %.0f%%)",
                100 * m->contended_share, m->contention_quiet,
                strcmp(m->probe, "none") ? "core cycles" : "ticks",
                100 * m->contention_margin);
    if (isfinite(m->cpu_wait_share))
        fprintf(f, "; waited for the CPU: %.1f%%",
                100 * m->cpu_wait_share);
    if (isfinite(m->shared_wait_seconds) && m->shared_wait_seconds > 0) {
        fprintf(f, "; waited %.3g s for a quiet core",
                m->shared_wait_seconds);
        if (elapsed > 0)
            fprintf(f, " (%.0f%% of the run)",
                    100 * m->shared_wait_seconds / elapsed);
    }
    fputc('\n', f);
}

/* The run's notes, one "note:" line each. */
static void notes(const sb_meta *m, FILE *f)
{
    const char *p = m->notes;

    while (*p) {
        size_t len = strcspn(p, "\n");
        fputs("note:     ", f);
        sb__report_put(f, p, len);
        fputc('\n', f);
        p += len;
        if (*p)
            p++;
    }
}

/* The header's lines on the machine: CPU, kernel, host, features, the
 * pinning, the timer and its overhead, the counters, the cost of the
 * checks, the environment's warnings and the notes. */
static void machine(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_timer_info *t = &m->timer;
    const sb__timer_kind *tk = sb__timer_kind_of(t->kind);
    const char *unit = tk->unit;
    char feat[256];

    features(m->cpu_features, feat, sizeof feat);
    fputs("machine:  ", f);
    puts_clean(f, m->cpu_model);
    fputs("; ", f);
    puts_clean(f, m->kernel_version);
    fputs("; ", f);
    puts_clean(f, m->hostname);
    fprintf(f, "\nfeatures: %s\n", feat);
    if (m->cpu >= 0)
        fprintf(f, "cpu:      pinned to CPU %d, ", m->cpu);
    else
        fputs("cpu:      ", f);
    puts_clean(f, m->pin_note);
    fprintf(f, "\ntimer:    %s at %.6g MHz (", tk->reader,
            t->hz / 1e6);
    puts_clean(f, t->hz_source);
    fprintf(f, ")%s%s", t->invariant ? ", invariant" : "",
            t->reason[0] ? "; " : "");
    puts_clean(f, t->reason);
    fputc('\n', f);
    fprintf(f,
            "overhead: %.0f %s per sample, subtracted (bare timer pair "
            "%.0f %s, ratio ",
            t->overhead, unit, t->bare_overhead, unit);
    /* A coarse counter (aarch64's generic timer at 24 to 100 MHz) can
     * read a bare pair within one tick: no ratio then, "-" as in the
     * tables, never "nan". */
    if (t->bare_overhead > 0)
        fprintf(f, "%.2f)\n", t->overhead / t->bare_overhead);
    else
        fputs("-)\n", f);
    fputs("counters: ", f);
    puts_clean(f, m->counters);
    fputc('\n', f);
    if (isfinite(m->interrupts_per_second) ||
        isfinite(m->check_cost_seconds)) {
        fprintf(f, "checks:   ");
        if (isfinite(m->interrupts_per_second))
            fprintf(f, "%.1f interrupts/s on the pinned CPU; ",
                    m->interrupts_per_second);
        fprintf(f,
                "counter reads and disturbance checks cost %.1f us per "
                "sample, outside the timed region\n",
                m->check_cost_seconds * 1e6);
    }
    probes(m, sb_run_elapsed(run), f);
    /* The host profile's verdict ("profile: measured on a shared core:
     * ..."): one line, as recorded; a run not judged has none. */
    if (m->profile[0]) {
        puts_clean(f, m->profile);
        fputc('\n', f);
    }
    for (size_t i = 0; i < m->env.n; i++)
        if (m->env.items[i].warn) {
            fputs("warning:  ", f);
            puts_clean(f, m->env.items[i].key);
            fputs(": ", f);
            puts_clean(f, m->env.items[i].value);
            fputs(m->env.items[i].advice[0] ? "; " : "", f);
            puts_clean(f, m->env.items[i].advice);
            fputc('\n', f);
        }
    notes(m, f);
}

/* Where the variation between runs of the comparisons came from, when
 * they compare separate runs: what a reader must know before trusting a
 * ratio of two runs (sb_comparison.run_level). */
static void run_level_line(const sb_run *run, FILE *f)
{
    size_t n[SB_RUN_LEVEL_ASSUMED + 1] = {0}, process = 0;
    double sd = NAN, mde = NAN, sdmax = NAN;

    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_comparison *c = sb_run_comparison(run, i);
        if (!c || !c->valid || (int)c->run_level < 0 ||
            c->run_level > SB_RUN_LEVEL_ASSUMED)
            continue;
        n[c->run_level]++;
        process += (size_t)sb__comparison_process_assumed(c);
        if (c->run_level >= SB_RUN_LEVEL_GIVEN) {
            sd = c->run_sd;
            if (isfinite(c->mde) && !(c->mde <= mde))
                mde = c->mde;
        } else if (c->run_level == SB_RUN_LEVEL_BASELINE &&
                   isfinite(c->run_sd) && !(c->run_sd <= sdmax)) {
            sdmax = c->run_sd;
        }
    }
    if (n[SB_RUN_LEVEL_ASSUMED] || n[SB_RUN_LEVEL_GIVEN]) {
        fprintf(f,
                "between:  one run a side: the run-to-run sd is not in the "
                "data; %.3g%% %s widens each ratio's interval",
                100 * sd,
                /* A run without a command line (a library's, a file made
                 * elsewhere) is told no flag, as the footnotes below. */
                n[SB_RUN_LEVEL_GIVEN]
                    ? (*sb_run_command(run) ? "as given (--run-sd)"
                                            : "as given")
                : *sb_run_command(run)
                    ? "assumed (--run-sd PCT if this host's is known, or "
                      "a baseline of several runs: --save NAME --append)"
                    : "assumed (unless this host's is known, or a "
                      "baseline of several runs)");
        if (isfinite(mde))
            fprintf(f, "; no change below %.3g%% can be claimed at 80%% "
                       "power", 100 * mde);
        fputc('\n', f);
        /* One invocation on a side (or samples pooled over
         * invocations): the processes' level is not in the data either,
         * and is assumed. */
        if (process)
            fprintf(f,
                    "between:  %zu ratio%s resting on one process's "
                    "samples (one invocation on a side): the "
                    "process-to-process sd is not in the data; %.3g%% "
                    "assumed widens them too (more invocations show it)\n",
                    process, process == 1 ? "" : "s",
                    100 * SB_PROCESS_SD_ASSUMED);
    }
    if (n[SB_RUN_LEVEL_BASELINE])
        fprintf(f,
                "between:  one run against a merged run: the run-to-run sd "
                "from the merged run's runs (up to %.3g%%)\n",
                100 * sdmax);
    if (n[SB_RUN_LEVEL_RUNS])
        fprintf(f, "between:  merged runs a side: the run level is in the "
                   "run medians\n");
}

/* The header's lines on what each cell is judged in (sb_metric_choose),
 * the core clock seen over the run, and the warning when invocations ran
 * at different clocks while some cell is reported in time, whose figures
 * then move with the clock. */
static void metric_lines(const sb_run *run, FILE *f)
{
    const sb_analysis_options *o = sb_run_analysis_options(run);
    size_t l2 = sb_run_meta(run)->l2_bytes;
    size_t cyc = sb__report_metric_cells(run, SB_METRIC_CYCLES);
    size_t tim = sb__report_metric_cells(run, SB_METRIC_TIME);
    size_t states;
    char clock[160], l2s[32];

    if (l2)
        snprintf(l2s, sizeof l2s, "%zu KiB", l2 / 1024);
    else
        snprintf(l2s, sizeof l2s, "size unknown");
    if (o->metric == SB_METRIC_TIME)
        fprintf(f, "metric:   time (--metric time): every cell in time\n");
    else if (o->metric == SB_METRIC_CYCLES)
        fprintf(f,
                "metric:   cycles (--metric cycles): %zu cell%s in core "
                "cycles, %zu without a known core clock in time\n",
                cyc, cyc == 1 ? "" : "s", tim);
    else
        fprintf(f,
                "metric:   auto: core cycles for hot copy and clear cells "
                "within the L2 cache (%s) with a known core clock, time "
                "for the rest: %zu cell%s in cycles, %zu in time\n",
                l2s, cyc, cyc == 1 ? "" : "s", tim);
    states = sb__report_clock_line(run, clock, sizeof clock);
    fprintf(f, "clock:    %s\n", clock);
    if (o->chain_apart >= 0)
        fprintf(f,
                "clock:    each sample's core clock decided again from its "
                "recorded chains%s: the faster of two more than %g times "
                "apart, else their mean (the header's clock and probe "
                "figures are as measured)\n",
                *sb_run_command(run) ? " (--chain-apart)" : "",
                o->chain_apart);
    if (states > 1 && tim)
        fprintf(f,
                "warning:  clock: invocations ran at %zu core clock "
                "states; the %zu cell%s reported in time move%s with the "
                "clock (compare runs on the same clock, or use --metric "
                "cycles)\n",
                states, tim, tim == 1 ? "" : "s", tim == 1 ? "s" : "");
}

/* The plan of a measured run: its cells, invocations and limits. */
static void plan_line(const sb_run *run, FILE *f)
{
    const sb_measure_options *o = sb_run_measure_options(run);
    const sb_analysis_options *an = sb_run_analysis_options(run);
    char target[64];

    /* Precision 0 sets no target (measure for the whole budget). */
    if (an->precision > 0)
        snprintf(target, sizeof target,
                 "precision target +-%g%% of the median",
                 100 * an->precision);
    else
        snprintf(target, sizeof target, "no precision target");
    fprintf(f,
            "plan:     %zu cells, %zu invocation%s (at least %zu, at "
            "most %zu), %g%% CI, %s, "
            "seed %llu, %zu..%zu samples per cell and invocation, max "
            "time %g s, sample ~%g us, cache %s\n",
            sb_run_count(run), sb_run_invocations(run),
            sb_run_invocations(run) == 1 ? "" : "s", o->invocations,
            o->invocations > 1 ? o->max_invocations : 1,
            100 * an->ci_level,
            target,
            (unsigned long long)o->seed,
            o->min_samples, o->max_samples, o->max_time,
            o->sample_seconds * 1e6, sb_cache_name(o->cache));
}

/* What the columns' units are, and the run's rounds and time. */
static void units_lines(const sb_run *run, FILE *f)
{
    const sb__timer_kind *tk =
        sb__timer_kind_of(sb_run_meta(run)->timer.kind);

    /* What each column of the rows is, and of which interval: MB/s's
     * is the time's, +-% the one of the cell's metric. */
    fprintf(f, "units:    MB/s with 1 MB = 10^6 bytes; MB/s-lo, MB/s-hi: "
               "its interval, from the time's whatever the cell's "
               "metric\n");
    if (sb__report_any_clock(run))
        fputs("          core/call, core/B: core cycles (timer ticks "
              "times the core clock measured around each sample) per "
              "call and per byte, each with its interval (-lo, -hi; "
              "per byte: the per-call interval over the size)\n",
              f);
    fprintf(f, "          +-%%: half the width of the interval in the "
               "cell's metric (column in: cyc, the core cycles'; time, "
               "the time's), in %% of its median; %s/B, %s/call in %s\n",
            tk->column, tk->column, tk->ticks);
    fprintf(f, "run:      %zu rounds in %.1f s%s\n", sb_run_rounds(run),
            sb_run_elapsed(run),
            sb_run_interrupted(run) ? ", INTERRUPTED: partial results"
                                    : "");
}

/* Which build each loaded kernel came from: a comparison of two builds
 * names them.  The strings were cleaned when recorded. */
static void loaded_lines(const sb_run *run, FILE *f)
{
    for (size_t i = 0; i < sb_run_loaded_count(run); i++) {
        const sb_kernel_origin *lk = sb_run_loaded(run, i);
        if (lk->build_id[0])
            fprintf(f, "loaded:   %s = %s from %s, build-id %s\n", lk->name,
                    lk->symbol, lk->path, lk->build_id);
        else
            fprintf(f, "loaded:   %s = %s from %s, %llu bytes, mtime "
                       "%lld\n", lk->name, lk->symbol, lk->path,
                    (unsigned long long)lk->file_size,
                    (long long)lk->file_mtime);
    }
}

void sb__table_header(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_measure_options *o = sb_run_measure_options(run);
    const sb_analysis_options *an = sb_run_analysis_options(run);
    const sb_cell_result *c0 = sb_run_cell(run, 0);

    sb__report_title(run, f);
    fputc('\n', f);
    if (!external(run)) {
        machine(run, f);
        plan_line(run, f);
    } else {
        fprintf(f, "data:     %zu sample set%s, %g%% CI, values in ",
                sb_run_count(run), sb_run_count(run) == 1 ? "" : "s",
                100 * an->ci_level);
        if (*sb_run_unit(run))
            puts_clean(f, sb_run_unit(run));
        else
            fputs("their own unit", f);
        fputc('\n', f);
        /* Imported runs of analyze have none; statbench cmd's say how
         * its commands ran. */
        notes(m, f);
    }
    /* Too few units for order statistics at the level: the estimate is
     * then the t interval's centre, not a median, and the line says so. */
    fprintf(f,
            "method:   %s, CI by %s; outliers (Tukey) counted, policy "
            "%s%s\n",
            c0 && strstr(c0->method, "(a geometric mean)")
                ? "geometric mean (too few units for order statistics; its "
                  "level holds if their logs are normal)"
            : c0 && strstr(c0->method, "(a mean)") ? "mean" : "median",
            c0 ? c0->method : "?", sb_outlier_policy_name(an->outliers),
            external(run) ? ""
            : o->reject == SB_REJECT_NONE
                ? (*sb_run_command(run)
                       ? "; disturbed samples counted, kept (--reject none)"
                       : "; disturbed samples counted, kept (reject none)")
                : "; samples with a context switch, a CPU migration, an "
                  "interrupt on the pinned CPU, a wait for the CPU or a "
                  "shared core rejected");
    if (!external(run))
        metric_lines(run, f);
    /* Which estimates the ratio is of depends on the test (medians of
     * unit medians, geometric means in a paired t or below 5 units;
     * README's "Ratio and its interval"), not always the figures the
     * table prints. */
    if (sb__report_any_comparison(run))
        fprintf(f,
                "compare:  ratio = time / baseline's (below 1: faster), "
                "of the estimates its test (JSON, CSV) names; p "
                "Holm-adjusted over %s; verdict at alpha %g, threshold "
                "+-%g%%\n",
                "all rows", an->alpha, 100 * an->threshold);
    if (sb__report_any_comparison(run))
        run_level_line(run, f);
    if (!external(run))
        units_lines(run, f);
    loaded_lines(run, f);
}

/* The table's columns of the list (columns.c) that a run of cr shows in
 * layout (one SB__TAB_* bit). */
static int shown(const sb__column *k, const sb__colrun *cr, unsigned layout)
{
    unsigned in = k->layouts ? k->layouts : SB__TAB_THROUGHPUT;

    return k->table[0] && (in & layout) && sb__column_shown(k, cr);
}

/* An interval's three columns, or its estimate alone (SB__COL_EST). */
static int parts(const sb__column *k)
{
    return k->kind == SB__COL_IV && !(k->flags & SB__COL_EST) ? 3 : 1;
}

/* The heads of the rows: the columns of the layout, in the list's order. */
static void row_header(const sb_run *run, FILE *f, unsigned layout,
                       const sb__colrun *cr)
{
    const char *tk = sb__timer_kind_of(sb_run_meta(run)->timer.kind)->column;
    int first = 1;

    fputc('\n', f);
    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        for (int p = 0; shown(k, cr, layout) && p < parts(k); p++) {
            char head[32];
            snprintf(head, sizeof head, "%s%s",
                     k->flags & SB__COL_TICKS ? tk : "", k->table[p]);
            fprintf(f, "%s%*s", first ? "" : " ", k->width, head);
            first = 0;
        }
    }
    fputc('\n', f);
}

/* Cell i's values of the layout's columns, "-" where it has none. */
static void cells(const sb_run *run, size_t i, const sb__colrun *cr,
                  unsigned layout, FILE *f)
{
    int first = 1;

    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        sb__colval v;
        if (!shown(k, cr, layout))
            continue;
        sb__column_value(k, run, i, SB__COL_TABLE, &v);
        for (int p = 0; p < parts(k); p++) {
            const char *sp = first ? "" : " ";
            int w = k->width, d = k->prec;
            first = 0;
            if (v.absent)
                fprintf(f, "%s%*s", sp, w, "-");
            else if (k->kind == SB__COL_TEXT)
                fprintf(f, "%s%*s", sp, w, v.s);
            else if (k->kind == SB__COL_COUNT)
                fprintf(f, "%s%*zu", sp, w, v.n);
            else if (k->conv == 'g')
                fprintf(f, "%s%*.*g", sp, w, d, v.v[p]);
            else if (k->conv == '#')
                fprintf(f, "%s%#*.*g", sp, w, d, v.v[p]);
            else
                fprintf(f, "%s%*.*f", sp, w, d, v.v[p]);
        }
    }
}

static void row(const sb_run *run, size_t i, FILE *f, unsigned layout,
                const sb__colrun *cr)
{
    const sb_cell_result *r = sb_run_cell(run, i);

    cells(run, i, cr, layout, f);
    /* '~' warns when the reported interval is built from one process's
     * samples; the invocation-level interval uses one median per process
     * and is not narrowed by correlated samples. */
    /* 'w': the time is the thread's on its CPU, the waits taken off. */
    fprintf(f, "%s%s%s\n", sb__report_cell_short(r) ? " *" : "",
            r->autocorrelated && !cr->inv ? " ~" : "",
            sb__report_cell_waited(run, i) ? " w" : "");
}

/* The 2D alignment matrix of one kernel and size: median MB/s with rows
 * for destination offsets and columns for source offsets, then the
 * interval's half-width in percent, then (clk: the run has a core clock)
 * the median core cycles per call, "-" for a cell without a clock; '*'
 * marks a cell short of the precision target. */
static void matrix(const sb_run *run, size_t first, size_t end, size_t w,
                   int clk, FILE *f)
{
    static const char *const title[3] = {
        "median MB/s", "CI half-width, +-% of median, in ",
        "median core cycles per call"};
    const sb_cell_result *r0 = sb_run_cell(run, first);
    const char *in = r0->metric == SB_METRIC_CYCLES ? "core cycles" : "time";
    for (size_t i = first; i < end; i++)
        if (sb_run_cell(run, i)->metric != r0->metric)
            in = "each cell's metric";
    for (int part = 0; part < (clk ? 3 : 2); part++) {
        fprintf(f, "\n%s %zu B: %s%s (rows: dst offset, columns: src "
                   "offset)\n",
                r0->cell.kernel->name, r0->cell.size, title[part],
                part == 1 ? in : "");
        fprintf(f, "%8s", "dst\\src");
        for (size_t j = 0; j < w; j++)
            fprintf(f, " %9zu", sb_run_cell(run, first + j)->cell.src_align);
        fputc('\n', f);
        for (size_t i = first; i < end; i += w) {
            fprintf(f, "%8zu", sb_run_cell(run, i)->cell.dst_align);
            for (size_t j = 0; j < w; j++) {
                const sb_cell_result *r = sb_run_cell(run, i + j);
                double v = part == 0   ? r->mbps.estimate
                           : part == 1 ? 100 * r->rel_halfwidth
                                       : r->core_cycles.estimate;
                if (r->nsamples == 0 || !isfinite(v) ||
                    (part == 2 && !r->clock_samples))
                    fprintf(f, " %9s", "-");
                else
                    fprintf(f, part == 0   ? " %8.0f%c"
                               : part == 1 ? " %8.2f%c"
                                           : " %8.1f%c",
                            v, sb__report_cell_short(r) ? '*' : ' ');
            }
            fputc('\n', f);
        }
    }
}


/* The counters' column heads, the part after "::" (perf::PAGE-FAULTS:
 * PAGE-FAULTS), 16 bytes at most (said so to the compiler too), then
 * the line's end. */
static void counter_columns(const sb_meta *m, FILE *f)
{
    for (size_t c = 0; c < m->ncounters; c++) {
        const char *name = m->counter_names[c];
        const char *colon = strstr(name, "::");
        char col[17];
        snprintf(col, sizeof col, "%.16s", colon ? colon + 2 : name);
        sb__clean_text(col);
        fprintf(f, " %16s", col);
    }
    fputc('\n', f);
}

/* Rejects and disturbances by reason, and the counters per call, one row
 * per cell: what every sample saw besides its time. */
static void disturbance_table(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    size_t n = sb_run_count(run), nc = m->ncounters;
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        if (r->rejected_total || r->ncounters)
            any = 1;
        for (int k = 0; k < SB_REJECT_NREASONS; k++)
            if (r->disturbed[k])
                any = 1;
    }
    if (!any)
        return;
    fprintf(f, "\nrejected (disturbed) by reason%s\n",
            nc ? "; counters per call (median)" : "");
    fprintf(f, "%-13s %9s %4s %4s", "kernel", "size", "src", "dst");
    for (int k = 0; k < SB_REJECT_NREASONS; k++)
        fprintf(f, " %15s", sb_reject_name(k));
    counter_columns(m, f);
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        fprintf(f, "%-13s %9zu %4zu %4zu", r->cell.kernel->name,
                r->cell.size, r->cell.src_align, r->cell.dst_align);
        for (int k = 0; k < SB_REJECT_NREASONS; k++) {
            char cellbuf[32];
            snprintf(cellbuf, sizeof cellbuf, "%zu (%zu)", r->rejected[k],
                     k == SB_REJECT_OUTLIER ? r->rejected[k]
                                            : r->disturbed[k]);
            fprintf(f, " %15s", cellbuf);
        }
        for (size_t c = 0; c < nc; c++) {
            if (c < r->ncounters && isfinite(r->counters[c].per_call.estimate))
                fprintf(f, " %16.4g", r->counters[c].per_call.estimate);
            else
                fprintf(f, " %16s", "-");
        }
        fputc('\n', f);
    }
}

/* The figures beside each value of imported sets (statbench cmd's
 * rusage of every run), their medians, one row per set (their intervals
 * are in the JSON and the CSV). */
static void external_counters(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    size_t n = sb_run_count(run), nc = m->ncounters;

    if (!nc)
        return;
    fprintf(f, "\nbeside each value (median):\n");
    fprintf(f, "%-16s", "data");
    counter_columns(m, f);
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        fprintf(f, "%-16s", r->cell.kernel->name);
        for (size_t c = 0; c < nc; c++) {
            const sb_interval *v =
                c < r->ncounters ? &r->counters[c].per_call : NULL;
            if (v && isfinite(v->estimate))
                fprintf(f, " %16.6g", v->estimate);
            else
                fprintf(f, " %16s", "-");
        }
        fputc('\n', f);
    }
}

/* A run merged from several (statbench merge): each run, and each cell's
 * runs with the between-run share of its invocation medians' variance. */
void sb__table_runs(const sb_run *run, FILE *f)
{
    size_t nr = sb_run_runs(run);
    char host[sizeof sb_run_meta(run)->hostname];
    char when[sizeof sb_run_meta(run)->start_time];

    if (nr < 2)
        return;
    fprintf(f, "\nmerged from %zu runs; each cell's interval is over its "
            "runs' medians:\n", nr);
    for (size_t r = 0; r < nr; r++) {
        const sb_meta *m = sb_run_run_meta(run, r);
        size_t ninv = 0;
        for (size_t g = 0; g < sb_run_invocations(run); g++)
            ninv += sb_run_invocation_run(run, g) == r;
        snprintf(host, sizeof host, "%s", m->hostname);
        snprintf(when, sizeof when, "%s", m->start_time);
        sb__clean_text(host);
        sb__clean_text(when);
        fprintf(f, "  run %zu: %s, %s, %zu invocation%s\n", r + 1, host,
                when, ninv, ninv == 1 ? "" : "s");
    }
    fprintf(f, "%-12s %9s %4s %4s %5s %8s\n", "kernel", "size", "src",
            "dst", "runs", "btw-run%");
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        fprintf(f, "%-12.12s %9zu %4zu %4zu %5zu", r->cell.kernel->name,
                r->cell.size, r->cell.src_align, r->cell.dst_align, r->runs);
        if (r->run_levels.m >= 2 &&
            isfinite(r->run_levels.between_fraction))
            fprintf(f, " %8.0f\n", 100 * r->run_levels.between_fraction);
        else
            fprintf(f, " %8s\n", "-");
    }
    fprintf(f, "btw-run%%: share of the invocation medians' variance that "
            "lies between runs.\n");
}

static int table(const sb_run *run, FILE *f)
{
    size_t n = sb_run_count(run);
    sb__colrun cr;
    int cmp, ext = external(run), clk, headed = 0;
    unsigned layout = ext ? SB__TAB_IMPORTED : SB__TAB_THROUGHPUT;
    size_t *matrix_w = calloc(n ? n : 1, sizeof *matrix_w);

    if (!matrix_w)
        return -1;
    sb__column_run(run, &cr);
    cmp = cr.cmp;
    clk = cr.clk;
    sb__table_header(run, f);
    /* Rows: external data, or every copy, clear and system-call cell not
     * shown in a matrix.  Matrices are only for the plain table. */
    for (size_t i = 0; i < n;) {
        size_t e = sb__group_end(run, i);
        if (!ext && !cmp)
            matrix_w[i] = sb__matrix_width(run, i, e);
        i = e;
    }
    for (size_t i = 0; i < n;) {
        size_t e = sb__group_end(run, i);
        const sb_cell_result *r = sb_run_cell(run, i);
        if (!matrix_w[i] &&
            (ext || r->cell.kernel->family != SB_FAMILY_ALLOC)) {
            if (!headed++)
                row_header(run, f, layout, &cr);
            for (size_t j = i; j < e; j++)
                row(run, j, f, layout, &cr);
        }
        i = e;
    }
    for (size_t i = 0; i < n;) {
        size_t e = sb__group_end(run, i);
        if (matrix_w[i])
            matrix(run, i, e, matrix_w[i], clk, f);
        i = e;
    }
    headed = 0;
    for (size_t i = 0; !ext && i < n; i++) {
        if (sb_run_cell(run, i)->cell.kernel->family != SB_FAMILY_ALLOC)
            continue;
        if (!headed++)
            row_header(run, f, SB__TAB_ALLOC, &cr);
        row(run, i, f, SB__TAB_ALLOC, &cr);
    }
    free(matrix_w);
    if (!ext)
        disturbance_table(run, f);
    else
        external_counters(run, f);
    sb__table_footnotes(run, f);
    sb__table_runs(run, f);
    return ferror(f) ? -1 : 0;
}

void sb__table_footnotes(const sb_run *run, FILE *f)
{
    size_t n = sb_run_count(run), short_cells = sb__report_short_cells(run);
    size_t autocorr = 0, waited = 0;
    int ext = external(run), inv = sb_run_invocations(run) > 1;

    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        if (r->autocorrelated && !inv)
            autocorr++;
        waited += (size_t)sb__report_cell_waited(run, i);
    }
    if (short_cells)
        fprintf(f,
                "\n* %zu cell%s stopped short of the precision target "
                "(+-%g%%)%s.\n",
                short_cells, short_cells == 1 ? "" : "s",
                100 * sb_run_analysis_options(run)->precision,
                ext                   ? ""
                : *sb_run_command(run) ? ": more --max-time, more "
                                         "--invocations or a quieter machine"
                                       : ": more time or more invocations "
                                         "where it was measured, or a "
                                         "quieter machine");
    if (autocorr)
        fprintf(f,
                "~ %zu cell%s with lag-1 autocorrelation above 0.2: "
                "successive samples are not independent (the machine "
                "drifted), so the interval is too narrow: use several "
                "%s.\n",
                autocorr, autocorr == 1 ? "" : "s",
                *sb_run_command(run) ? "--invocations"
                                     : "invocations where it is measured");
    if (waited)
        fprintf(f,
                "w %zu cell%s measured on a busy CPU: %s samples could not "
                "dodge the waits for it, and those that waited are kept "
                "with the wait taken off their time.\n",
                waited, waited == 1 ? "" : "s",
                waited == 1 ? "its" : "their");
    if (inv && !ext)
        fprintf(f,
                "btw%%: share of the sample variance that lies between "
                "invocations (processes).\n");
}

int sb__write_table(const sb_run *run, FILE *f, sb_error *err)
{
    if (table(run, f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return sb__report_flush(f, err);
}
