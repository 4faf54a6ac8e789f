/* report.c: the human table and CSV; JSON lives in report_json.c. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb_internal.h"

int sb__report_json(const sb_run *run, FILE *f, sb_error *err);

static const char *timer_name(const sb_timer_info *t)
{
    return t->kind == SB_TIMER_TSC ? "TSC (lfence;rdtsc .. rdtscp;lfence)"
                                   : "clock_gettime(CLOCK_MONOTONIC_RAW)";
}

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

static void header(const sb_run *run, FILE *f)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_options *o = sb_run_options(run);
    const sb_timer_info *t = &m->timer;
    const char *unit = t->kind == SB_TIMER_TSC ? "cycles" : "ns";
    char feat[256];

    features(m->cpu_features, feat, sizeof feat);
    fprintf(f, "statbench %s: %s\n", m->statbench_version,
            sb_run_command(run));
    fprintf(f, "machine:  %s; %s; %s\n", m->cpu_model, m->kernel_version,
            m->hostname);
    fprintf(f, "features: %s\n", feat);
    if (m->cpu >= 0)
        fprintf(f, "cpu:      pinned to CPU %d, %s\n", m->cpu, m->pin_note);
    else
        fprintf(f, "cpu:      %s\n", m->pin_note);
    fprintf(f, "timer:    %s at %.6g MHz (%s)%s%s%s\n", timer_name(t),
            t->hz / 1e6, t->hz_source,
            t->kind == SB_TIMER_TSC ? ", invariant" : "",
            t->reason[0] ? "; " : "", t->reason);
    fprintf(f,
            "overhead: %.0f %s per sample, subtracted (bare timer pair %.0f "
            "%s, ratio %.2f)\n",
            t->overhead, unit, t->bare_overhead, unit,
            t->bare_overhead > 0 ? t->overhead / t->bare_overhead : NAN);
    fprintf(f, "counters: %s\n", m->counters);
    fprintf(f,
            "plan:     %zu cells, %g%% CI, precision target +-%g%% of the "
            "median, seed %llu, %zu..%zu samples per cell, max time %g s, "
            "sample ~%g us\n",
            sb_run_count(run), 100 * o->ci_level, 100 * o->precision,
            (unsigned long long)o->seed, o->min_samples, o->max_samples,
            o->max_time, o->sample_seconds * 1e6);
    fprintf(f,
            "method:   median with a distribution-free CI (order "
            "statistics); Tukey outliers counted, kept; samples with a "
            "context switch rejected\n");
    fprintf(f,
            "units:    MB/s with 1 MB = 10^6 bytes; %s/B in %s\n",
            t->kind == SB_TIMER_TSC ? "cyc" : "ns",
            t->kind == SB_TIMER_TSC
                ? "TSC reference cycles (constant rate, not core clocks)"
                : "nanoseconds");
    fprintf(f, "run:      %zu rounds in %.1f s%s\n", sb_run_rounds(run),
            sb_run_elapsed(run),
            sb_run_interrupted(run) ? ", INTERRUPTED: partial results" : "");
}

static int table(const sb_run *run, FILE *f)
{
    size_t n = sb_run_count(run), short_cells = 0;
    int cyc = sb_run_meta(run)->timer.kind == SB_TIMER_TSC;

    header(run, f);
    fprintf(f, "\n%-8s %9s %4s %4s %12s %12s %12s %7s %8s %6s %5s %5s\n",
            "kernel", "size", "src", "dst", "MB/s", "CI low", "CI high",
            "+-%", cyc ? "cyc/B" : "ns/B", "kept", "rej", "outl");
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_outliers *o = &r->ticks_summary.outliers;
        size_t outl = o->low_mild + o->high_mild + o->low_severe +
                      o->high_severe;
        if (!r->reached_precision)
            short_cells++;
        if (r->nsamples == 0) {
            fprintf(f, "%-8s %9zu %4zu %4zu %12s %12s %12s %7s %8s %6zu "
                       "%5zu %5s *\n",
                    r->cell.kernel->name, r->cell.size, r->cell.src_align,
                    r->cell.dst_align, "-", "-", "-", "-", "-", r->nsamples,
                    r->rejected_total, "-");
            continue;
        }
        fprintf(f,
                "%-8s %9zu %4zu %4zu %12.1f %12.1f %12.1f %7.2f %8.4f %6zu "
                "%5zu %5zu%s\n",
                r->cell.kernel->name, r->cell.size, r->cell.src_align,
                r->cell.dst_align, r->mbps.estimate, r->mbps.lo, r->mbps.hi,
                100 * r->rel_halfwidth, r->cycles_per_byte, r->nsamples,
                r->rejected_total, r->nsamples ? outl : 0,
                r->reached_precision ? "" : " *");
    }
    if (short_cells)
        fprintf(f,
                "\n* %zu cell%s stopped short of the precision target "
                "(+-%g%%): more --max-time or a quieter machine.\n",
                short_cells, short_cells == 1 ? "" : "s",
                100 * sb_run_options(run)->precision);
    return ferror(f) ? -1 : 0;
}

/* CSV: one header row, one row per cell; numbers in C locale. */
static int csv(const sb_run *run, FILE *f)
{
    size_t n = sb_run_count(run);

    fputs("kernel,family,size,src_align,dst_align,mbps_median,mbps_ci_lo,"
          "mbps_ci_hi,halfwidth_pct,ticks_per_byte,ticks_median,"
          "ticks_ci_lo,ticks_ci_hi,ci_level,ci_achieved,ticks_mean,"
          "ticks_sd,ticks_min,ticks_max,samples,rejected,"
          "rejected_context_switch,outliers_mild,outliers_severe,"
          "iters_per_sample,reached_precision\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_summary *s = &r->ticks_summary;
        const sb_outliers *o = &s->outliers;
        fprintf(f,
                "%s,%s,%zu,%zu,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.9g,%.9g,%.9g,"
                "%g,%.6g,%.9g,%.6g,%.9g,%.9g,%zu,%zu,%zu,%zu,%zu,%zu,%d\n",
                r->cell.kernel->name, sb_family_name(r->cell.kernel->family),
                r->cell.size, r->cell.src_align, r->cell.dst_align,
                r->mbps.estimate, r->mbps.lo, r->mbps.hi,
                100 * r->rel_halfwidth, r->cycles_per_byte,
                s->median.estimate, s->median.lo, s->median.hi,
                r->mbps.level, s->median.achieved, s->mean, s->sd, s->min,
                s->max, r->nsamples, r->rejected_total,
                r->rejected[SB_REJECT_CTXSW],
                o->low_mild + o->high_mild, o->low_severe + o->high_severe,
                r->iters, r->reached_precision);
    }
    return ferror(f) ? -1 : 0;
}

int sb_report(const sb_run *run, int format, FILE *f, sb_error *err)
{
    int rc;
    if (!run || !f)
        return sb__error(err, SB_EINVAL, "sb_report: no run or file");
    switch (format) {
    case SB_FORMAT_TABLE:
        rc = table(run, f);
        break;
    case SB_FORMAT_CSV:
        rc = csv(run, f);
        break;
    case SB_FORMAT_JSON:
        return sb__report_json(run, f, err);
    default:
        return sb__error(err, SB_EINVAL, "unknown report format %d", format);
    }
    if (rc != 0 || fflush(f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return SB_OK;
}

const char *sb_reject_name(int reason)
{
    switch (reason) {
    case SB_REJECT_CTXSW:
        return "context-switch";
    }
    return "?";
}
