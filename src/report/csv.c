/* report/csv.c: the run as CSV (SB_FORMAT_CSV): one header row, one row
 * per cell, numbers in the C locale.  See docs/design.md. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* A CSV text field: quoted, inner quotes doubled (RFC 4180). */
static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    while (*s) {
        /* A control character would be legal inside the quotes, but a
         * CSV is read on a terminal too: '?' as in the table. */
        int control;
        size_t n = sb__char_len(s, &control);
        if (*s == '"')
            fputc('"', f);
        if (control)
            fputc('?', f);
        else
            fwrite(s, 1, n, f);
        s += n;
    }
    fputc('"', f);
}

/* CSV: one header row, one row per cell; numbers in C locale.  Columns
 * are documented in README.md. */
static int csv(const sb_run *run, FILE *f)
{
    size_t n = sb_run_count(run);
    const sb_meta *m = sb_run_meta(run);

    fputs("kernel,family,size,src_align,dst_align,mbps_median,mbps_ci_lo,"
          "mbps_ci_hi,halfwidth_pct,ticks_per_byte,ticks_median,"
          "ticks_ci_lo,ticks_ci_hi,ci_level,ci_achieved,ci_method,"
          "ticks_mean,ticks_sd,ticks_min,ticks_max,samples,rejected,"
          "rejected_context_switch,rejected_outlier,outliers_mild,"
          "outliers_severe,outliers_mad,iters_per_sample,invocations,"
          "between_fraction,lag1,mde,reached_precision,ratio,ratio_ci_lo,"
          "ratio_ci_hi,p,p_adjusted,a12,verdict,test,user_us_per_call,"
          "sys_us_per_call,rejected_migration,rejected_interrupt,"
          "disturbed_context_switch,disturbed_migration,"
          "disturbed_interrupt,rejected_kernel_failed,rejected_cpu_wait,"
          "rejected_shared_core,disturbed_cpu_wait,disturbed_shared_core,"
          "metric,core_cycles_median,core_cycles_ci_lo,core_cycles_ci_hi,"
          "core_cycles_per_byte,clock_samples",
          f);
    for (size_t k = 0; k < m->ncounters; k++) {
        static const char *const part[] = {"per_call", "per_call_lo",
                                           "per_call_hi", "per_byte"};
        for (int j = 0; j < 4; j++) {
            char col[96];
            snprintf(col, sizeof col, "%s_%s", m->counter_names[k], part[j]);
            fputc(',', f);
            csv_str(f, col);
        }
    }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_summary *s = &r->ticks_summary;
        const sb_outliers *o = &s->outliers;
        const sb_comparison *c = sb_run_comparison(run, i);
        csv_str(f, r->cell.kernel->name);
        fprintf(f,
                ",%s,%zu,%zu,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.9g,%.9g,%.9g,"
                "%g,%.6g,\"%s\",%.9g,%.6g,%.9g,%.9g,%zu,%zu,%zu,%zu,%zu,%zu,%zu,"
                "%zu,%zu,%.4g,%.4g,%.4g,%d,",
                sb_family_name(r->cell.kernel->family),
                r->cell.size, r->cell.src_align, r->cell.dst_align,
                r->mbps.estimate, r->mbps.lo, r->mbps.hi,
                100 * r->rel_halfwidth, r->cycles_per_byte,
                r->interval.estimate, r->interval.lo, r->interval.hi,
                r->interval.level, r->interval.achieved, r->method,
                r->nsamples ? s->mean : NAN, r->nsamples ? s->sd : NAN,
                r->nsamples ? s->min : NAN, r->nsamples ? s->max : NAN,
                r->nsamples, r->rejected_total, r->rejected[SB_REJECT_CTXSW],
                r->rejected[SB_REJECT_OUTLIER],
                r->nsamples ? o->low_mild + o->high_mild : 0,
                r->nsamples ? o->low_severe + o->high_severe : 0,
                r->nsamples ? r->mad.low + r->mad.high : 0, r->iters,
                r->invocations,
                r->invocations > 1 ? r->levels.between_fraction : NAN,
                r->lag1, r->mde, r->reached_precision);
        if (c)
            fprintf(f, "%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%s,\"%s\",",
                    c->ratio.estimate, c->ratio.lo, c->ratio.hi, c->p,
                    c->p_adjusted, c->a12, sb_verdict_name(c->verdict),
                    c->test);
        else
            fputs(",,,,,,,,", f);
        fprintf(f, "%.6g,%.6g,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu",
                sb__report_cpu_share(r, 0, 1e6 * r->interval.estimate /
                                    sb_run_meta(run)->timer.hz),
                sb__report_cpu_share(r, 1, 1e6 * r->interval.estimate /
                                    sb_run_meta(run)->timer.hz),
                r->rejected[SB_REJECT_MIGRATION],
                r->rejected[SB_REJECT_INTERRUPT],
                r->disturbed[SB_REJECT_CTXSW],
                r->disturbed[SB_REJECT_MIGRATION],
                r->disturbed[SB_REJECT_INTERRUPT],
                r->rejected[SB_REJECT_KERNEL_FAILED],
                r->rejected[SB_REJECT_CPU_WAIT],
                r->rejected[SB_REJECT_SHARED_CORE],
                r->disturbed[SB_REJECT_CPU_WAIT],
                r->disturbed[SB_REJECT_SHARED_CORE]);
        /* The metric the cell was judged in; its core cycles are empty
         * fields (NAN) without a core clock. */
        fprintf(f, ",%s,%.9g,%.9g,%.9g,%.6g,%zu", sb_metric_name(r->metric),
                r->core_cycles.estimate, r->core_cycles.lo,
                r->core_cycles.hi, r->core_cycles_per_byte, r->clock_samples);
        for (size_t k = 0; k < m->ncounters; k++) {
            if (k < r->ncounters)
                fprintf(f, ",%.6g,%.6g,%.6g,%.6g",
                        r->counters[k].per_call.estimate,
                        r->counters[k].per_call.lo,
                        r->counters[k].per_call.hi, r->counters[k].per_byte);
            else
                fputs(",,,,", f);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int sb__write_csv(const sb_run *run, FILE *f, sb_error *err)
{
    if (csv(run, f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return sb__report_flush(f, err);
}
