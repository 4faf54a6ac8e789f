/*
 * report/columns.c: the one list of a cell's columns that the table, the
 * CSV and the Markdown and LaTeX rows walk (columns.h), and how each
 * value is read from a cell through the public accessors.
 *
 * A new column is one row here, in the CSV's order (at the end, unless it
 * must sit elsewhere in the table), with its names in the writers that
 * show it, the JSON field it is and, for a plain field of the cell, a
 * generic getter and the field's offset; docs/schema.md and README.md
 * describe it.  What a writer shows differently (the table's "-" for a
 * figure that is not finite, the metric's words) is the getter's answer
 * to that writer, so that the writers themselves stay free of columns.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"
#include "schema.h"

/* ---- Getters ------------------------------------------------------------ */

static const void *field(const sb__column *col, const sb_run *run, size_t i)
{
    return (const char *)sb_run_cell(run, i) + col->off;
}

static void iv_out(const sb_interval *iv, sb__colval *out)
{
    out->v[0] = iv->estimate;
    out->v[1] = iv->lo;
    out->v[2] = iv->hi;
}

/* A size_t, a double or an sb_interval of the cell at col->off. */
static void g_count(const sb__column *col, const sb_run *run, size_t i,
                    int writer, sb__colval *out)
{
    (void)writer;
    memcpy(&out->n, field(col, run, i), sizeof out->n);
}

static void g_num(const sb__column *col, const sb_run *run, size_t i,
                  int writer, sb__colval *out)
{
    (void)writer;
    memcpy(&out->v[0], field(col, run, i), sizeof out->v[0]);
}

static void g_iv(const sb__column *col, const sb_run *run, size_t i,
                 int writer, sb__colval *out)
{
    sb_interval iv;

    (void)writer;
    memcpy(&iv, field(col, run, i), sizeof iv);
    iv_out(&iv, out);
}

/* A double of the cell in percent. */
static void g_pct(const sb__column *col, const sb_run *run, size_t i,
                  int writer, sb__colval *out)
{
    g_num(col, run, i, writer, out);
    out->v[0] *= 100;
}

/* A summary of the samples: NAN without samples. */
static void g_sampled(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    g_num(col, run, i, writer, out);
    if (!sb_run_cell(run, i)->nsamples)
        out->v[0] = NAN;
}

static void g_kernel(const sb__column *col, const sb_run *run, size_t i,
                     int writer, sb__colval *out)
{
    (void)col;
    (void)writer;
    out->s = sb_run_cell(run, i)->cell.kernel->name;
}

static void g_family(const sb__column *col, const sb_run *run, size_t i,
                     int writer, sb__colval *out)
{
    (void)col;
    (void)writer;
    out->s = sb_family_name(sb_run_cell(run, i)->cell.kernel->family);
}

static void g_method(const sb__column *col, const sb_run *run, size_t i,
                     int writer, sb__colval *out)
{
    (void)col;
    (void)writer;
    out->s = sb_run_cell(run, i)->method;
}

/* What the cell's +-% and precision were judged in: the table's short
 * word, the rows' full one, the CSV's name of the metric. */
static void g_metric(const sb__column *col, const sb_run *run, size_t i,
                     int writer, sb__colval *out)
{
    int m = (int)sb_run_cell(run, i)->metric;

    (void)col;
    out->s = writer == SB__COL_CSV    ? sb_metric_name(m)
             : m == SB_METRIC_CYCLES ? (writer == SB__COL_TABLE ? "cyc"
                                                                : "cycles")
                                     : "time";
}

/* The core cycles per call and per byte: none without a core clock.  The
 * rows show both when the per-call figure is finite (a figure per byte
 * that is not is then "--" as any NAN), the table each when it is. */
static void g_core(const sb__column *col, const sb_run *run, size_t i,
                   int writer, sb__colval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    const sb_interval *own = col->arg ? &r->core_per_byte : &r->core_cycles;
    double asked = col->arg && writer != SB__COL_ROWS
                       ? r->core_per_byte.estimate
                       : r->core_cycles.estimate;

    iv_out(own, out);
    out->absent = !r->clock_samples || !isfinite(asked);
}

/* Outliers by Tukey's fences (arg 0: mild, 1: severe, 3: all four) or
 * the MAD rule (2); 0 without samples. */
static void g_outliers(const sb__column *col, const sb_run *run, size_t i,
                       int writer, sb__colval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    const sb_outliers *o = &r->ticks_summary.outliers;
    size_t mild = o->low_mild + o->high_mild;
    size_t severe = o->low_severe + o->high_severe;

    (void)writer;
    if (!r->nsamples)
        return;
    out->n = col->arg == 0   ? mild
             : col->arg == 1 ? severe
             : col->arg == 2 ? r->mad.low + r->mad.high
                             : mild + severe;
}

/* The share of the variance between invocations: the CSV's fraction when
 * the cell ran in several, the table's percentage when there are two
 * medians to give it. */
static void g_between(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    double b = r->levels.between_fraction;

    (void)col;
    if (writer == SB__COL_CSV) {
        out->v[0] = r->invocations > 1 ? b : NAN;
        return;
    }
    out->v[0] = 100 * b;
    out->absent = !(r->levels.m >= 2 && isfinite(b));
}

static void g_reached(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    (void)col;
    (void)writer;
    out->n = (size_t)(sb_run_cell(run, i)->reached_precision != 0);
}

/* The comparison with the row's baseline: none without one.  g_cmp_num
 * reads a double of sb_comparison at col->off. */
static void g_ratio(const sb__column *col, const sb_run *run, size_t i,
                    int writer, sb__colval *out)
{
    const sb_comparison *c = sb_run_comparison(run, i);
    static const sb_interval none = {NAN, NAN, NAN, NAN, NAN};

    (void)col;
    (void)writer;
    iv_out(c ? &c->ratio : &none, out);
    out->absent = !c;
}

static void g_cmp_num(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    const sb_comparison *c = sb_run_comparison(run, i);

    (void)writer;
    out->v[0] = NAN;
    if (c)
        memcpy(&out->v[0], (const char *)c + col->off, sizeof out->v[0]);
    out->absent = !c;
}

/* The verdict, or for a row compared with nothing whether it is a
 * baseline: in the table every measured row is (a row compared with
 * nothing among imported sets, statbench cmd's shell start-up, is not),
 * in the rows only a cell that some comparison has as its baseline. */
static void g_verdict(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    const sb_comparison *c = sb_run_comparison(run, i);
    int base = sb__report_is_baseline(run, i);

    (void)col;
    if (c)
        out->s = sb_verdict_name(c->verdict);
    else if (writer == SB__COL_TABLE)
        out->s = base || !sb_run_imported(run) ? "baseline" : NULL;
    else if (writer == SB__COL_ROWS)
        out->s = base ? "baseline" : NULL;
    out->absent = !out->s;
}

static void g_test(const sb__column *col, const sb_run *run, size_t i,
                   int writer, sb__colval *out)
{
    const sb_comparison *c = sb_run_comparison(run, i);

    (void)col;
    (void)writer;
    out->s = c ? c->test : NULL;
    out->absent = !c;
}

/* Where the comparison's variation between runs came from. */
static void g_run_level(const sb__column *col, const sb_run *run, size_t i,
                        int writer, sb__colval *out)
{
    const sb_comparison *c = sb_run_comparison(run, i);

    (void)col;
    (void)writer;
    out->s = c ? sb_run_level_name((int)c->run_level) : NULL;
}

/* Microseconds per tick of the run's timer. */
static double tick_us(const sb_run *run)
{
    return 1e6 / sb_run_meta(run)->timer.hz;
}

/* The median time per call in us split between user (arg 0) and system
 * (arg 1) time. */
static void g_cpu(const sb__column *col, const sb_run *run, size_t i,
                  int writer, sb__colval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);

    (void)writer;
    out->v[0] = sb__report_cpu_share(r, col->arg,
                                     r->interval.estimate * tick_us(run));
}

/* The allocation rows' figures: the time per call in us, and per page
 * of the size in ns (none for a size under a page's). */
static void g_us(const sb__column *col, const sb_run *run, size_t i,
                 int writer, sb__colval *out)
{
    double us = tick_us(run);

    (void)col;
    (void)writer;
    iv_out(&sb_run_cell(run, i)->interval, out);
    for (int p = 0; p < 3; p++)
        out->v[p] *= us;
}

static void g_ns_page(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    double pages = (double)r->cell.size / SB_PAGE_SIZE;
    double us = tick_us(run);

    (void)col;
    (void)writer;
    out->v[0] = pages > 0 ? r->interval.estimate * us * 1e3 / pages : NAN;
}

/* What the ticks_* columns count, and the timer's rate: ticks_median /
 * timer_hz is seconds per call.  Imported samples (analyze) are in their
 * file's unit: no unit and no rate to give. */
static void g_unit(const sb__column *col, const sb_run *run, size_t i,
                   int writer, sb__colval *out)
{
    (void)col;
    (void)i;
    (void)writer;
    if (sb_run_imported(run))
        out->s = *sb_run_unit(run) ? sb_run_unit(run) : NULL;
    else
        out->s = sb__timer_kind_of(sb_run_meta(run)->timer.kind)->csv_unit;
}

static void g_hz(const sb__column *col, const sb_run *run, size_t i,
                 int writer, sb__colval *out)
{
    double hz = sb_run_meta(run)->timer.hz;

    (void)col;
    (void)i;
    (void)writer;
    out->v[0] = sb_run_imported(run) || !(hz > 0) ? NAN : hz;
}

/* ---- The list ----------------------------------------------------------- */

#define OFF(m) offsetof(sb_cell_result, m)

/* Columns of the CSV alone: a plain count, a number of the cell, a
 * count of samples rejected (R) or disturbed (D) for a reason, a number
 * of the comparison. */
#define CSV_COUNT(name, key, m)                                              \
    {.csv = name, .json = key, .kind = SB__COL_COUNT, .get = g_count,        \
     .off = OFF(m)}
#define CSV_NUM(name, key, d, getter, m)                                     \
    {.csv = name, .json = key, .kind = SB__COL_NUM, .digits = d,             \
     .get = getter, .off = OFF(m)}
#define CSV_R(name, k) CSV_COUNT(name, SB__JK_REJECTED, rejected[k])
#define CSV_D(name, k) CSV_COUNT(name, SB__JK_DISTURBED, disturbed[k])
#define CSV_CMP(name, m)                                                     \
    {.csv = name, .json = SB__JK_COMPARISON, .kind = SB__COL_NUM,            \
     .digits = 4, .get = g_cmp_num, .off = offsetof(sb_comparison, m)}
#define CSV_TEXT(name, key, getter)                                          \
    {.csv = name, .json = key, .kind = SB__COL_TEXT, .get = getter}

/* Every name is one R and pandas take as it is: lower case, [a-z0-9_],
 * not starting with a digit, unique (csv.c names the counters' columns
 * after these).  In the table, one word per column, none twice, so that
 * a script finds a column by its name. */
const sb__column sb__columns[] = {
    {.csv = "kernel", .table = {"kernel"}, .md = "kernel", .tex = "kernel",
     .data = "data", .json = SB__JK_KERNEL, .kind = SB__COL_TEXT,
     .width = -13, .rows = SB__ROWS_TEXT, .get = g_kernel},
    {.table = {"kernel"}, .json = SB__JK_KERNEL, .kind = SB__COL_TEXT,
     .layouts = SB__TAB_ALLOC, .width = -14, .get = g_kernel},
    {.table = {"data"}, .json = SB__JK_KERNEL, .kind = SB__COL_TEXT,
     .layouts = SB__TAB_IMPORTED, .width = -16, .get = g_kernel},
    CSV_TEXT("family", SB__JK_FAMILY, g_family),
    {.csv = "size", .table = {"size"}, .md = "size", .tex = "size (B)",
     .json = SB__JK_SIZE, .kind = SB__COL_COUNT, .flags = SB__COL_MEASURED,
     .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC, .width = 9,
     .rows = SB__ROWS_COUNT, .get = g_count, .off = OFF(cell.size)},
    {.csv = "src_align", .table = {"src"}, .md = "src", .tex = "src",
     .json = SB__JK_SRC_ALIGN, .kind = SB__COL_COUNT,
     .flags = SB__COL_MEASURED, .width = 4, .rows = SB__ROWS_COUNT,
     .get = g_count, .off = OFF(cell.src_align)},
    {.csv = "dst_align", .table = {"dst"}, .md = "dst", .tex = "dst",
     .json = SB__JK_DST_ALIGN, .kind = SB__COL_COUNT,
     .flags = SB__COL_MEASURED, .width = 4, .rows = SB__ROWS_COUNT,
     .get = g_count, .off = OFF(cell.dst_align)},
    /* The throughput, whose interval is the time's whatever the cell's
     * metric; in the table none where it is not finite (a cell of no
     * size has no MB/s). */
    {.csv = "mbps_median", .csv_ci = "mbps_ci",
     .table = {"MB/s", "MB/s-lo", "MB/s-hi"}, .md = "MB/s", .tex = "MB/s",
     .json = SB__JK_MBPS, .kind = SB__COL_IV,
     .flags = SB__COL_MEASURED | SB__COL_SAMPLES | SB__COL_FINITE,
     .width = 12, .conv = 'f', .prec = 1, .digits = 6,
     .rows = SB__ROWS_ROUNDED, .get = g_iv, .off = OFF(mbps)},
    /* Imported samples' median in the rows, where MB/s is for a measured
     * run (the CSV has it as ticks_median). */
    {.md = "median", .tex = "median", .json = SB__JK_INTERVAL,
     .kind = SB__COL_IV, .flags = SB__COL_IMPORTED | SB__COL_SAMPLES,
     .width = 12, .rows = SB__ROWS_ROUNDED, .get = g_iv, .off = OFF(interval)},
    /* The table's figure of imported samples is their interval as it is,
     * in the file's unit; the allocation rows' is the time per call. */
    {.table = {"median", "CI low", "CI high"}, .json = SB__JK_INTERVAL,
     .kind = SB__COL_IV, .layouts = SB__TAB_IMPORTED, .width = 12,
     .conv = 'g', .prec = 6, .get = g_iv, .off = OFF(interval)},
    {.table = {"us/call", "CI low", "CI high"}, .json = SB__JK_INTERVAL,
     .kind = SB__COL_IV, .flags = SB__COL_SAMPLES, .layouts = SB__TAB_ALLOC,
     .width = 10, .conv = 'f', .prec = 2, .get = g_us},
    /* Beside MB/s, the core cycles per call and per byte with their
     * intervals, where the core clock is known. */
    {.csv = "core_cycles_median", .csv_ci = "core_cycles_ci",
     .table = {"core/call", "core/call-lo", "core/call-hi"},
     .md = "core cyc/call", .tex = "core cyc/call",
     .json = SB__JK_CORE_CYCLES, .kind = SB__COL_IV, .flags = SB__COL_CLOCK,
     .width = 12, .conv = 'f', .prec = 1, .digits = 9,
     .rows = SB__ROWS_ROUNDED, .get = g_core},
    {.csv = "core_cycles_per_byte", .csv_ci = "core_cycles_per_byte_ci",
     .table = {"core/B", "core/B-lo", "core/B-hi"}, .md = "core cyc/B",
     .tex = "core cyc/B", .json = SB__JK_CORE_PER_BYTE, .kind = SB__COL_IV,
     .flags = SB__COL_CLOCK, .width = 9, .conv = '#', .prec = 5, .digits = 9,
     .rows = SB__ROWS_ROUNDED, .get = g_core, .arg = 1},
    /* The half-width of the interval in the cell's metric, and that
     * metric, side by side. */
    {.csv = "halfwidth_pct", .table = {"+-%"}, .md = "+-%",
     .tex = "$\\pm$\\,\\%", .json = SB__JK_REL_HALFWIDTH, .kind = SB__COL_NUM,
     .flags = SB__COL_SAMPLES | SB__COL_SHORT,
     .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC, .width = 7, .conv = 'f',
     .prec = 2, .digits = 6, .rows = SB__ROWS_SIG2, .get = g_pct,
     .off = OFF(rel_halfwidth)},
    /* Imported samples' figures are shown as their file gave them, even
     * for a set without samples. */
    {.table = {"+-%"}, .json = SB__JK_REL_HALFWIDTH, .kind = SB__COL_NUM,
     .layouts = SB__TAB_IMPORTED, .width = 7, .conv = 'f', .prec = 2,
     .get = g_pct, .off = OFF(rel_halfwidth)},
    {.csv = "metric", .table = {"in"}, .md = "metric", .tex = "metric",
     .json = SB__JK_METRIC, .kind = SB__COL_TEXT,
     .flags = SB__COL_MEASURED | SB__COL_SAMPLES, .width = 4,
     .rows = SB__ROWS_WORD, .get = g_metric},
    /* Then the timer's ticks, named by the timer's word for them. */
    {.csv = "ticks_per_byte", .table = {"/B"},
     .json = SB__JK_TICKS_PER_BYTE, .kind = SB__COL_NUM,
     .flags = SB__COL_SAMPLES | SB__COL_FINITE | SB__COL_TICKS, .width = 8,
     .conv = 'f', .prec = 4, .digits = 6, .get = g_num,
     .off = OFF(cycles_per_byte)},
    {.csv = "ticks_median", .csv_ci = "ticks_ci", .table = {"/call"},
     .json = SB__JK_INTERVAL, .kind = SB__COL_IV,
     .flags = SB__COL_SAMPLES | SB__COL_EST | SB__COL_TICKS, .width = 10,
     .conv = 'f', .prec = 1, .digits = 9, .get = g_iv, .off = OFF(interval)},
    /* The threads' figures for an allocation: per page, and the time
     * split into user and system time (getrusage of the measuring
     * thread); "-" where one cannot be given (too few CPU-time ticks for
     * the split, no page). */
    {.table = {"ns/page"}, .json = SB__JK_INTERVAL, .kind = SB__COL_NUM,
     .flags = SB__COL_SAMPLES | SB__COL_FINITE, .layouts = SB__TAB_ALLOC,
     .width = 8, .conv = 'f', .prec = 1, .get = g_ns_page},
    {.table = {"user us"}, .json = SB__JK_CPU_TIME, .kind = SB__COL_NUM,
     .flags = SB__COL_SAMPLES | SB__COL_FINITE, .layouts = SB__TAB_ALLOC,
     .width = 9, .conv = 'f', .prec = 2, .get = g_cpu, .arg = 0},
    {.table = {"sys us"}, .json = SB__JK_CPU_TIME, .kind = SB__COL_NUM,
     .flags = SB__COL_SAMPLES | SB__COL_FINITE, .layouts = SB__TAB_ALLOC,
     .width = 9, .conv = 'f', .prec = 2, .get = g_cpu, .arg = 1},
    {.table = {"mean"}, .json = SB__JK_TICKS, .kind = SB__COL_NUM,
     .layouts = SB__TAB_IMPORTED, .width = 12, .conv = 'g', .prec = 6,
     .get = g_num, .off = OFF(ticks_summary.mean)},
    {.table = {"sd"}, .json = SB__JK_TICKS, .kind = SB__COL_NUM,
     .layouts = SB__TAB_IMPORTED, .width = 12, .conv = 'g', .prec = 6,
     .get = g_num, .off = OFF(ticks_summary.sd)},
    {.table = {"n"}, .json = SB__JK_SAMPLES, .kind = SB__COL_COUNT,
     .layouts = SB__TAB_IMPORTED, .width = 6, .get = g_count,
     .off = OFF(nsamples)},
    {.table = {"outl"}, .json = SB__JK_TICKS, .kind = SB__COL_COUNT,
     .layouts = SB__TAB_IMPORTED, .width = 5, .get = g_outliers, .arg = 3},
    CSV_NUM("ci_level", SB__JK_INTERVAL, 6, g_num, interval.level),
    CSV_NUM("ci_achieved", SB__JK_INTERVAL, 6, g_num, interval.achieved),
    CSV_TEXT("ci_method", SB__JK_METHOD, g_method),
    CSV_NUM("ticks_mean", SB__JK_TICKS, 9, g_sampled, ticks_summary.mean),
    CSV_NUM("ticks_sd", SB__JK_TICKS, 6, g_sampled, ticks_summary.sd),
    CSV_NUM("ticks_min", SB__JK_TICKS, 9, g_sampled, ticks_summary.min),
    CSV_NUM("ticks_max", SB__JK_TICKS, 9, g_sampled, ticks_summary.max),
    {.csv = "samples", .table = {"kept"}, .json = SB__JK_SAMPLES,
     .kind = SB__COL_COUNT, .flags = SB__COL_HTML,
     .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC, .width = 6,
     .rows = SB__ROWS_COUNT, .get = g_count, .off = OFF(nsamples)},
    {.csv = "rejected", .table = {"rej"}, .json = SB__JK_REJECTED_TOTAL,
     .kind = SB__COL_COUNT, .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC,
     .width = 5, .get = g_count,
     .off = OFF(rejected_total)},
    CSV_R("rejected_context_switch", SB_REJECT_CTXSW),
    CSV_R("rejected_outlier", SB_REJECT_OUTLIER),
    /* The table's count of Tukey's outliers, mild and severe together. */
    {.table = {"outl"}, .json = SB__JK_TICKS, .kind = SB__COL_COUNT,
     .flags = SB__COL_SAMPLES, .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC,
     .width = 5, .get = g_outliers, .arg = 3},
    {.csv = "outliers_mild", .json = SB__JK_TICKS, .kind = SB__COL_COUNT,
     .get = g_outliers, .arg = 0},
    {.csv = "outliers_severe", .json = SB__JK_TICKS, .kind = SB__COL_COUNT,
     .get = g_outliers, .arg = 1},
    {.csv = "outliers_mad", .json = SB__JK_TICKS, .kind = SB__COL_COUNT,
     .get = g_outliers, .arg = 2},
    CSV_COUNT("iters_per_sample", SB__JK_ITERS, iters),
    CSV_COUNT("invocations", SB__JK_INVOCATIONS, invocations),
    {.csv = "between_fraction", .table = {"btw%"}, .json = SB__JK_LEVELS,
     .kind = SB__COL_NUM, .flags = SB__COL_INV | SB__COL_SAMPLES,
     .layouts = SB__TAB_THROUGHPUT | SB__TAB_ALLOC, .width = 4,
     .conv = 'f', .prec = 0, .digits = 4, .get = g_between},
    CSV_NUM("lag1", SB__JK_LAG1, 4, g_num, lag1),
    CSV_NUM("mde", SB__JK_MDE, 4, g_num, mde),
    {.csv = "reached_precision", .json = SB__JK_REACHED,
     .kind = SB__COL_COUNT, .get = g_reached},
    /* The comparison with the row's baseline. */
    {.csv = "ratio", .csv_ci = "ratio_ci", .table = {"ratio", "lo", "hi"},
     .md = "ratio", .tex = "ratio", .md_ci = "ratio ",
     .json = SB__JK_COMPARISON, .kind = SB__COL_IV, .flags = SB__COL_CMP,
     .layouts = SB__TAB_ALL, .width = 7, .conv = 'f', .prec = 4, .digits = 6,
     .rows = SB__ROWS_ROUNDED, .get = g_ratio},
    CSV_CMP("p", p),
    {.csv = "p_adjusted", .table = {"p(adj)"}, .md = "p (Holm)",
     .tex = "$p$ (Holm)", .json = SB__JK_COMPARISON, .kind = SB__COL_NUM,
     .flags = SB__COL_CMP, .layouts = SB__TAB_ALL, .width = 8, .conv = 'g',
     .prec = 2, .digits = 4,
     .rows = SB__ROWS_P, .get = g_cmp_num,
     .off = offsetof(sb_comparison, p_adjusted)},
    CSV_CMP("a12", a12),
    {.csv = "verdict", .table = {"verdict"}, .md = "verdict",
     .tex = "verdict", .json = SB__JK_COMPARISON, .kind = SB__COL_TEXT,
     .flags = SB__COL_CMP, .layouts = SB__TAB_ALL, .width = -12,
     .rows = SB__ROWS_WORD,
     .get = g_verdict},
    /* The comparison's method in words, in HTML beside its verdict. */
    {.csv = "test", .json = SB__JK_COMPARISON, .kind = SB__COL_TEXT,
     .flags = SB__COL_CMP | SB__COL_HTML, .width = -1,
     .rows = SB__ROWS_TEXT, .get = g_test},
    {.csv = "user_us_per_call", .json = SB__JK_CPU_TIME, .kind = SB__COL_NUM,
     .digits = 6, .get = g_cpu, .arg = 0},
    {.csv = "sys_us_per_call", .json = SB__JK_CPU_TIME, .kind = SB__COL_NUM,
     .digits = 6, .get = g_cpu, .arg = 1},
    CSV_R("rejected_migration", SB_REJECT_MIGRATION),
    CSV_R("rejected_interrupt", SB_REJECT_INTERRUPT),
    CSV_D("disturbed_context_switch", SB_REJECT_CTXSW),
    CSV_D("disturbed_migration", SB_REJECT_MIGRATION),
    CSV_D("disturbed_interrupt", SB_REJECT_INTERRUPT),
    CSV_R("rejected_kernel_failed", SB_REJECT_KERNEL_FAILED),
    CSV_R("rejected_cpu_wait", SB_REJECT_CPU_WAIT),
    CSV_R("rejected_shared_core", SB_REJECT_SHARED_CORE),
    CSV_D("disturbed_cpu_wait", SB_REJECT_CPU_WAIT),
    CSV_D("disturbed_shared_core", SB_REJECT_SHARED_CORE),
    CSV_COUNT("clock_samples", SB__JK_CLOCK_SAMPLES, clock_samples),
    /* Figures of the run's, on every row so that a row reads alone. */
    CSV_TEXT("unit", NULL, g_unit),
    {.csv = "timer_hz", .kind = SB__COL_NUM, .digits = 17, .get = g_hz},
    CSV_TEXT("run_level", SB__JK_COMPARISON, g_run_level),
    CSV_CMP("run_sd", run_sd),
    /* Last in the allocation rows, so that the columns before keep their
     * places: what +-% and the precision were judged in. */
    {.table = {"in"}, .json = SB__JK_METRIC, .kind = SB__COL_TEXT,
     .flags = SB__COL_SAMPLES, .layouts = SB__TAB_ALLOC, .width = 4,
     .get = g_metric},
};
const size_t sb__ncolumns = sizeof sb__columns / sizeof sb__columns[0];

/* ---- Questions ---------------------------------------------------------- */

void sb__column_run(const sb_run *run, sb__colrun *cr)
{
    cr->imported = sb_run_imported(run);
    cr->clk = !cr->imported && sb__report_any_clock(run);
    cr->cmp = sb__report_any_comparison(run);
    cr->inv = sb_run_invocations(run) > 1;
}

int sb__column_shown(const sb__column *col, const sb__colrun *cr)
{
    unsigned f = col->flags;

    return !((f & SB__COL_MEASURED) && cr->imported) &&
           !((f & SB__COL_IMPORTED) && !cr->imported) &&
           !((f & SB__COL_CLOCK) && !cr->clk) &&
           !((f & SB__COL_CMP) && !cr->cmp) &&
           !((f & SB__COL_INV) && !cr->inv);
}

void sb__column_value(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out)
{
    *out = (sb__colval){{0, 0, 0}, 0, NULL, 0};
    col->get(col, run, i, writer, out);
    if (writer == SB__COL_CSV)
        return;
    if ((col->flags & SB__COL_SAMPLES) && !sb_run_cell(run, i)->nsamples)
        out->absent = 1;
    if ((col->flags & SB__COL_FINITE) && writer == SB__COL_TABLE &&
        !isfinite(out->v[0]))
        out->absent = 1;
}

int sb__column_csv_parts(const sb__column *col)
{
    return col->kind == SB__COL_IV ? 3 : 1;
}

void sb__column_csv_name(const sb__column *col, int part, char *buf,
                         size_t len)
{
    if (part == 0)
        snprintf(buf, len, "%s", col->csv);
    else
        snprintf(buf, len, "%s_%s", col->csv_ci, part == 1 ? "lo" : "hi");
}
