/*
 * report/compact.c: the run in a few short lines (SB_FORMAT_COMPACT),
 * for a gate's log in CI: the table's header runs to 30 lines and its
 * rows to 250 characters, which a CI log folds into noise.  Two lines say
 * what ran, where and how many warnings and notes the full table would
 * show; then one line per cell, in the cell's own metric (core cycles,
 * time or the imported unit), with its interval and, where the cell has
 * a baseline, the ratio, its interval, the verdict and Holm's p.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* "movsl 10240 3/0": what tells the cell from its neighbours. */
static void label(const sb_run *run, size_t i, char *buf, size_t len)
{
    const sb_cell *c = &sb_run_cell(run, i)->cell;
    char name[128];

    snprintf(name, sizeof name, "%s", c->kernel ? c->kernel->name : "?");
    sb__clean_text(name);
    if (sb_run_imported(run))
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "%s %zu %zu/%zu", name, c->size, c->src_align,
                 c->dst_align);
}

/* The cell's figure in its metric: the interval, its unit and a scale
 * that turns the interval's numbers into that unit. */
static const sb_interval *figure(const sb_run *run, const sb_cell_result *r,
                                 const char **unit, double *scale)
{
    const sb_meta *m = sb_run_meta(run);
    double hz = m->timer.hz;

    *scale = 1;
    if (sb_run_imported(run)) {
        *unit = sb_run_unit(run);
        return &r->interval;
    }
    if (r->metric == SB_METRIC_CYCLES && r->clock_samples &&
        isfinite(r->core_cycles.estimate)) {
        *unit = "cyc";
        return &r->core_cycles;
    }
    /* Time: ticks over the timer's rate, in the prefix that keeps the
     * estimate between 1 and 1000 (a reference tick is no reader's
     * unit). */
    if (!(hz > 0)) {
        *unit = "ticks";
        return &r->interval;
    }
    {
        double s = r->interval.estimate / hz;
        if (s >= 1)
            *unit = "s", *scale = 1 / hz;
        else if (s >= 1e-3)
            *unit = "ms", *scale = 1e3 / hz;
        else if (s >= 1e-6)
            *unit = "us", *scale = 1e6 / hz;
        else
            *unit = "ns", *scale = 1e9 / hz;
    }
    return &r->interval;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    while (s && *s) {
        size_t len = strcspn(s, "\n");
        n += len > 0;
        s += len + (s[len] == '\n');
    }
    return n;
}

static void header(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_analysis_options *o = sb_run_analysis_options(run);
    size_t warnings = 0, notes = count_lines(m->notes), inv = 0;
    char host[sizeof m->hostname], cpu[sizeof m->cpu_model];

    /* Every string may come from a loaded file: cleaned. */
    sb__report_title(run, f);
    fprintf(f, "%s\n", sb_run_interrupted(run)
                          ? " (INTERRUPTED: partial results)"
                          : "");
    for (size_t i = 0; i < m->env.n; i++)
        warnings += m->env.items[i].warn != 0;
    for (size_t i = 0; i < sb_run_count(run); i++)
        if (sb_run_cell(run, i)->invocations > inv)
            inv = sb_run_cell(run, i)->invocations;
    snprintf(host, sizeof host, "%s", m->hostname[0] ? m->hostname : "?");
    snprintf(cpu, sizeof cpu, "%s", m->cpu_model[0] ? m->cpu_model : "?");
    sb__clean_text(host);
    sb__clean_text(cpu);
    fprintf(f, "run: %s, %s, %s; %g%% CI over %zu %s; %zu warning%s, %zu "
               "note%s (-f table shows them)\n",
            host, cpu, m->start_time[0] ? m->start_time : "?",
            100 * o->ci_level, inv,
            /* A cmd run's units are its rounds (it counts them); another
             * imported run's are its input's blocks. */
            sb_run_imported(run) && sb_run_rounds(run) > 0
                ? (inv == 1 ? "round" : "rounds")
            : sb_run_imported(run) ? (inv == 1 ? "unit" : "units")
                                   : (inv == 1 ? "invocation" : "invocations"),
            warnings, warnings == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
}

static void row(const sb_run *run, size_t i, int width, FILE *f)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    const sb_comparison *c = sb_run_comparison(run, i);
    const sb_interval *v;
    const char *unit;
    double scale;
    char lab[192], est[48], lo[48], hi[48];

    label(run, i, lab, sizeof lab);
    fprintf(f, "%-*s", width, lab);
    if (!r->nsamples) {
        fputs("  no sample\n", f);
        return;
    }
    v = figure(run, r, &unit, &scale);
    sb_format_rounded(v->estimate * scale, (v->hi - v->lo) * scale / 2, est,
                      sizeof est);
    sb_format_rounded(v->lo * scale, (v->hi - v->lo) * scale / 2, lo,
                      sizeof lo);
    sb_format_rounded(v->hi * scale, (v->hi - v->lo) * scale / 2, hi,
                      sizeof hi);
    fprintf(f, "  %s%s%s [%s, %s] +-%.1f%%%s%s", est, *unit ? " " : "", unit,
            lo, hi, 100 * r->rel_halfwidth,
            sb__report_cell_short(r) ? "*" : "",
            sb__report_cell_waited(run, i) ? "w" : "");
    if (c && c->valid && c->base < sb_run_count(run)) {
        const sb_cell *a = &r->cell, *b = &sb_run_cell(run, c->base)->cell;
        char base[192];
        /* The baseline by its kernel alone where the size and offsets
         * are the cell's own, as they are in a gate. */
        if (!sb_run_imported(run) && a->size == b->size &&
            a->src_align == b->src_align && a->dst_align == b->dst_align) {
            snprintf(base, sizeof base, "%s", b->kernel ? b->kernel->name
                                                        : "?");
            sb__clean_text(base);
        } else {
            label(run, c->base, base, sizeof base);
        }
        fprintf(f, "  vs %s %.4f [%.4f, %.4f] %s p(adj) %.2g", base,
                c->ratio.estimate, c->ratio.lo, c->ratio.hi,
                sb_verdict_name(c->verdict), c->p_adjusted);
        if (c->withheld)
            fputs(" (withheld: shared core)", f);
        else if (isfinite(c->shared_bound))
            fprintf(f, " (kept: shared core, beyond its %.3gx)",
                    c->shared_bound);
    }
    fputc('\n', f);
}

int sb__write_compact(const sb_run *run, FILE *f, sb_error *err)
{
    size_t n = sb_run_count(run), nshort = sb__report_short_cells(run);
    int width = 0, waited = 0;

    header(run, f);
    for (size_t i = 0; i < n; i++) {
        char lab[192];
        label(run, i, lab, sizeof lab);
        if ((int)strlen(lab) > width)
            width = (int)strlen(lab);
        waited |= sb__report_cell_waited(run, i);
    }
    if (width > 60)
        width = 60;
    for (size_t i = 0; i < n; i++)
        row(run, i, width, f);
    if (nshort)
        fprintf(f, "* %zu cell%s short of the precision target (+-%g%%)\n",
                nshort, nshort == 1 ? "" : "s",
                100 * sb_run_analysis_options(run)->precision);
    if (waited)
        fputs("w: samples that waited for the CPU kept, the wait taken "
              "off\n",
              f);
    return sb__report_flush(f, err);
}
