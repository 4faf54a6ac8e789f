/* report/csv.c: the run as CSV (SB_FORMAT_CSV): one header row, one row
 * per cell, numbers in the C locale, for R and pandas as they read a CSV
 * by default.  See docs/design.md; the columns and the rules below are
 * documented in README.md ("Machine formats"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The fixed columns, in the order csv_row writes them.  Every name is a
 * name R and pandas take as it is: lower case, [a-z0-9_], not starting
 * with a digit, unique (the counter columns follow, named by csv_name). */
static const char *const fixed[] = {
    "kernel", "family", "size", "src_align", "dst_align", "mbps_median",
    "mbps_ci_lo", "mbps_ci_hi", "core_cycles_median", "core_cycles_ci_lo",
    "core_cycles_ci_hi", "core_cycles_per_byte", "core_cycles_per_byte_ci_lo",
    "core_cycles_per_byte_ci_hi", "halfwidth_pct", "metric", "ticks_per_byte",
    "ticks_median", "ticks_ci_lo", "ticks_ci_hi", "ci_level", "ci_achieved",
    "ci_method", "ticks_mean", "ticks_sd", "ticks_min", "ticks_max",
    "samples", "rejected", "rejected_context_switch", "rejected_outlier",
    "outliers_mild", "outliers_severe", "outliers_mad", "iters_per_sample",
    "invocations", "between_fraction", "lag1", "mde", "reached_precision",
    "ratio", "ratio_ci_lo", "ratio_ci_hi", "p", "p_adjusted", "a12",
    "verdict", "test", "user_us_per_call", "sys_us_per_call",
    "rejected_migration", "rejected_interrupt", "disturbed_context_switch",
    "disturbed_migration", "disturbed_interrupt", "rejected_kernel_failed",
    "rejected_cpu_wait", "rejected_shared_core", "disturbed_cpu_wait",
    "disturbed_shared_core", "clock_samples", "unit", "timer_hz",
    "run_level", "run_sd"};
#define NFIXED (sizeof fixed / sizeof fixed[0])

/* The four columns of each counter: its name (csv_name) and these. */
static const char *const part[] = {"per_call", "per_call_lo", "per_call_hi",
                                   "per_byte"};

/* A row being written: the separator goes before every field but the
 * first. */
typedef struct row {
    FILE *f;
    int first;
} row;

static void sep(row *w)
{
    if (!w->first)
        fputc(',', w->f);
    w->first = 0;
}

static void end_row(row *w)
{
    fputc('\n', w->f);
    w->first = 1;
}

/* A text field, the one way every text field is written (RFC 4180):
 * quoted, inner quotes doubled, when it holds a comma, a double quote, a
 * CR or a LF; as it is otherwise, the empty string (or none) as an empty
 * field.  A control character would be legal inside the quotes, but a
 * CSV is read on a terminal too and a row should stay one line: it is
 * written as '?', as in the table, so no CR or LF is ever left to
 * quote. */
static void text(row *w, const char *s)
{
    int quote = 0;
    size_t n;
    int control;

    sep(w);
    if (!s)
        return;
    for (const char *p = s; *p; p += n) {
        n = sb__char_len(p, &control);
        if (!control && strchr(",\"\r\n", *p))
            quote = 1;
    }
    if (quote)
        fputc('"', w->f);
    for (; *s; s += n) {
        n = sb__char_len(s, &control);
        if (*s == '"')
            fputc('"', w->f);
        if (control)
            fputc('?', w->f);
        else
            fwrite(s, 1, n, w->f);
    }
    if (quote)
        fputc('"', w->f);
}

/* A number with the given significant digits: a missing value (NAN) is
 * an empty field, the one encoding of a missing value; an infinity is
 * inf or -inf, which R, pandas and Python's float read as infinite. */
static void num(row *w, int digits, double x)
{
    sep(w);
    if (isnan(x))
        return;
    if (isinf(x))
        fputs(x > 0 ? "inf" : "-inf", w->f);
    else
        fprintf(w->f, "%.*g", digits, x);
}

static void count(row *w, size_t x)
{
    sep(w);
    fprintf(w->f, "%zu", x);
}

/* A counter's name as a column name (base): ASCII letters in lower case
 * and digits as they are, every run of other bytes ("::", '-', '_', a
 * space, UTF-8) as one '_', none at either end; "counter" before a name
 * that would be empty or start with a digit.  perf::CONTEXT-SWITCHES is
 * perf_context_switches, PAPI_TOT_CYC papi_tot_cyc. */
static void csv_name(char *out, size_t len, const char *name)
{
    size_t o = 0;
    int gap = 0;

    if (!(name[0] >= 'a' && name[0] <= 'z') &&
        !(name[0] >= 'A' && name[0] <= 'Z')) {
        o = (size_t)snprintf(out, len, "counter");
        gap = 1;
    }
    for (const unsigned char *p = (const unsigned char *)name;
         *p && o + 2 < len; p++) {
        int c = *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (gap && o > 0)
                out[o++] = '_';
            out[o++] = (char)c;
            gap = 0;
        } else {
            gap = 1;
        }
    }
    out[o] = '\0';
}

/* 1 when one of the four columns of base is among the columns so far: the
 * fixed ones and the cols counters named before. */
static int csv_taken(const char *base, char (*names)[80], size_t cols)
{
    char col[128];

    for (int j = 0; j < 4; j++) {
        snprintf(col, sizeof col, "%.79s_%s", base, part[j]);
        for (size_t i = 0; i < NFIXED; i++)
            if (!strcmp(col, fixed[i]))
                return 1;
        for (size_t k = 0; k < cols; k++) {
            char other[128];
            for (int i = 0; i < 4; i++) {
                snprintf(other, sizeof other, "%.79s_%s", names[k], part[i]);
                if (!strcmp(col, other))
                    return 1;
            }
        }
    }
    return 0;
}

static void csv_header(const sb_meta *m, row *w)
{
    char names[SB_MAX_COUNTERS][80];
    char col[128];

    for (size_t i = 0; i < NFIXED; i++)
        text(w, fixed[i]);
    for (size_t k = 0; k < m->ncounters && k < SB_MAX_COUNTERS; k++) {
        char base[64];
        csv_name(base, sizeof base, m->counter_names[k]);
        /* Two counters of one name after the mapping (perf::A-B and
         * perf::a_b), or one named like a fixed column (user_us): the
         * later one takes _2, _3, ... so every column name is unique. */
        snprintf(names[k], sizeof names[k], "%s", base);
        for (int d = 2; csv_taken(names[k], names, k); d++)
            snprintf(names[k], sizeof names[k], "%s_%d", base, d);
        for (int j = 0; j < 4; j++) {
            snprintf(col, sizeof col, "%.79s_%s", names[k], part[j]);
            text(w, col);
        }
    }
    end_row(w);
}

/* One cell's row, in the order of fixed[], then its counters. */
static void csv_row(const sb_run *run, size_t i, row *w)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_cell_result *r = sb_run_cell(run, i);
    const sb_summary *s = &r->ticks_summary;
    const sb_outliers *o = &s->outliers;
    const sb_comparison *c = sb_run_comparison(run, i);
    int have = r->nsamples > 0;
    /* Imported samples (analyze) are in their file's unit: no unit and no
     * rate to give. */
    int imported = sb_run_imported(run);
    double hz = m->timer.hz;

    text(w, r->cell.kernel->name);
    text(w, sb_family_name(r->cell.kernel->family));
    count(w, r->cell.size);
    count(w, r->cell.src_align);
    count(w, r->cell.dst_align);
    num(w, 6, r->mbps.estimate);
    num(w, 6, r->mbps.lo);
    num(w, 6, r->mbps.hi);
    /* Beside MB/s (whose interval is the time's): the core cycles per
     * call and per byte with their intervals, empty fields (NAN) without
     * a core clock; then the half-width of the interval in the cell's
     * metric, and that metric. */
    num(w, 9, r->core_cycles.estimate);
    num(w, 9, r->core_cycles.lo);
    num(w, 9, r->core_cycles.hi);
    num(w, 9, r->core_per_byte.estimate);
    num(w, 9, r->core_per_byte.lo);
    num(w, 9, r->core_per_byte.hi);
    num(w, 6, 100 * r->rel_halfwidth);
    text(w, sb_metric_name(r->metric));
    num(w, 6, r->cycles_per_byte);
    num(w, 9, r->interval.estimate);
    num(w, 9, r->interval.lo);
    num(w, 9, r->interval.hi);
    num(w, 6, r->interval.level);
    num(w, 6, r->interval.achieved);
    text(w, r->method);
    num(w, 9, have ? s->mean : NAN);
    num(w, 6, have ? s->sd : NAN);
    num(w, 9, have ? s->min : NAN);
    num(w, 9, have ? s->max : NAN);
    count(w, r->nsamples);
    count(w, r->rejected_total);
    count(w, r->rejected[SB_REJECT_CTXSW]);
    count(w, r->rejected[SB_REJECT_OUTLIER]);
    count(w, have ? o->low_mild + o->high_mild : 0);
    count(w, have ? o->low_severe + o->high_severe : 0);
    count(w, have ? r->mad.low + r->mad.high : 0);
    count(w, r->iters);
    count(w, r->invocations);
    num(w, 4, r->invocations > 1 ? r->levels.between_fraction : NAN);
    num(w, 4, r->lag1);
    num(w, 4, r->mde);
    count(w, (size_t)(r->reached_precision != 0));
    /* The comparison with the row's baseline: empty without one. */
    num(w, 6, c ? c->ratio.estimate : NAN);
    num(w, 6, c ? c->ratio.lo : NAN);
    num(w, 6, c ? c->ratio.hi : NAN);
    num(w, 4, c ? c->p : NAN);
    num(w, 4, c ? c->p_adjusted : NAN);
    num(w, 4, c ? c->a12 : NAN);
    text(w, c ? sb_verdict_name(c->verdict) : NULL);
    text(w, c ? c->test : NULL);
    num(w, 6, sb__report_cpu_share(r, 0, 1e6 * r->interval.estimate / hz));
    num(w, 6, sb__report_cpu_share(r, 1, 1e6 * r->interval.estimate / hz));
    count(w, r->rejected[SB_REJECT_MIGRATION]);
    count(w, r->rejected[SB_REJECT_INTERRUPT]);
    count(w, r->disturbed[SB_REJECT_CTXSW]);
    count(w, r->disturbed[SB_REJECT_MIGRATION]);
    count(w, r->disturbed[SB_REJECT_INTERRUPT]);
    count(w, r->rejected[SB_REJECT_KERNEL_FAILED]);
    count(w, r->rejected[SB_REJECT_CPU_WAIT]);
    count(w, r->rejected[SB_REJECT_SHARED_CORE]);
    count(w, r->disturbed[SB_REJECT_CPU_WAIT]);
    count(w, r->disturbed[SB_REJECT_SHARED_CORE]);
    count(w, r->clock_samples);
    /* What the ticks_* columns count, and the timer's rate: ticks_median
     * / timer_hz is seconds per call. */
    text(w, imported ? (*sb_run_unit(run) ? sb_run_unit(run) : NULL)
         : sb__timer_kind_of(m->timer.kind)->csv_unit);
    num(w, 17, imported || !(hz > 0) ? NAN : hz);
    /* Where the comparison's variation between runs came from. */
    text(w, c ? sb_run_level_name((int)c->run_level) : NULL);
    num(w, 4, c ? c->run_sd : NAN);
    for (size_t k = 0; k < m->ncounters && k < SB_MAX_COUNTERS; k++) {
        int got = k < r->ncounters;
        num(w, 6, got ? r->counters[k].per_call.estimate : NAN);
        num(w, 6, got ? r->counters[k].per_call.lo : NAN);
        num(w, 6, got ? r->counters[k].per_call.hi : NAN);
        num(w, 6, got ? r->counters[k].per_byte : NAN);
    }
    end_row(w);
}

static int csv(const sb_run *run, FILE *f)
{
    row w = {f, 1};

    csv_header(sb_run_meta(run), &w);
    for (size_t i = 0; i < sb_run_count(run); i++)
        csv_row(run, i, &w);
    return ferror(f) ? -1 : 0;
}

int sb__write_csv(const sb_run *run, FILE *f, sb_error *err)
{
    if (csv(run, f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return sb__report_flush(f, err);
}
