/*
 * report/html.c: the run as one self-contained HTML page
 * (SB_FORMAT_HTML): the table's header as a list of facts, the rows of
 * every cell, the rejects by reason, the comparisons with their method in
 * words, and figures drawn here as inline SVG from the run's numbers.
 *
 * The page is read on any machine, a phone among them, and often far
 * from the run: it holds no script and names nothing outside itself (no
 * font, no style sheet, no image; its Content-Security-Policy forbids
 * every fetch, so that a string that escaped could still fetch nothing),
 * its tables scroll inside a box of their own on a narrow screen, and
 * its figures scale with the page.  Every string from outside (a kernel's
 * name, the host name, the command line, a loaded run's method words) is
 * escaped once, by sb__html_escape (rows.c), which also makes its control
 * characters and bytes that are not UTF-8 '?', as the table does.
 *
 * Nothing here repeats another writer: the header and the footnotes are
 * the table's (table.c, captured and set as HTML), the rows are the
 * Markdown and LaTeX rows (rows.c) in a third language, walking the one
 * list of columns (columns.c), and the line figure groups the cells as
 * gnuplot's does (figure_lines.c).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "figure.h"
#include "rows.h"

/* At most this many cells in a figure of one row per cell: beyond it a
 * figure is a wall, and the table holds every cell. */
#define FOREST_MAX 200
/* The figures' coordinates: a viewBox this wide, scaled to the page. */
#define SVG_W 720.0

typedef struct page {
    const sb_run *run;
    FILE *f;
    int failed; /* out of memory */
} page;

static void esc(page *P, const char *s)
{
    sb__sbuf b = {0};

    sb__html_escape(&b, s ? s : "");
    if (b.failed)
        P->failed = 1;
    else if (b.s)
        fputs(b.s, P->f);
    free(b.s);
}

/* s escaped, its first max characters at most (an ellipsis for the
 * rest): a figure's label has room for so many. */
static void esc_cut(page *P, const char *s, size_t max)
{
    char buf[256];
    size_t at = 0, chars = 0;

    while (s[at] && chars < max && at < sizeof buf - 4) {
        int control;
        size_t n = sb__char_len(s + at, &control);
        if (at + n >= sizeof buf - 4)
            break;
        at += n;
        chars++;
    }
    memcpy(buf, s, at);
    strcpy(buf + at, s[at] ? "\xe2\x80\xa6" : "");
    esc(P, buf);
}

/* What fn writes of the run, as a string the caller frees (NULL when out
 * of memory). */
static char *capture(page *P, void (*fn)(const sb_run *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    if (!m) {
        P->failed = 1;
        return NULL;
    }
    fn(P->run, m);
    if (fclose(m) != 0 || !buf) {
        free(buf);
        P->failed = 1;
        return NULL;
    }
    return buf;
}

/* ---- The page around ----------------------------------------------------- */

/* The style: system fonts only, tables in a box that scrolls sideways,
 * the facts in two columns that become one on a phone. */
static const char style[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0 auto;padding:0 12px 32px;max-width:1100px;color:#222;"
    "background:#fff}"
    "h1{font-size:1.2em;overflow-wrap:anywhere}"
    "h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "dl.facts{display:grid;grid-template-columns:max-content 1fr;"
    "gap:2px 12px}"
    "dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;font-size:.9em;color:#555;padding:4px 0}"
    "th,td{padding:3px 8px;border-bottom:1px solid #ddd;"
    "white-space:nowrap;text-align:left}"
    "th{background:#f4f4f4}.r{text-align:right}"
    "p,li{overflow-wrap:anywhere}.note{font-size:.9em;color:#444}"
    "figure{margin:16px 0}svg{width:100%;height:auto;max-width:760px}"
    "pre{overflow-x:auto;font-size:.85em}"
    "@media (max-width:600px){dl.facts{grid-template-columns:1fr}"
    "dt{margin-top:6px}}";

static void open_page(page *P, const char *title)
{
    FILE *f = P->f;

    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n"
          "<meta charset=\"utf-8\">\n"
          /* Nothing may be fetched: no script, no image but data:, no
           * font, no frame, no form's target; the inline style only. */
          "<meta http-equiv=\"Content-Security-Policy\" "
          "content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:; form-action 'none'; base-uri 'none'\">\n"
          "<meta name=\"viewport\" "
          "content=\"width=device-width,initial-scale=1\">\n"
          "<meta name=\"referrer\" content=\"no-referrer\">\n"
          "<meta name=\"generator\" content=\"statbench ",
          f);
    esc(P, sb_run_meta(P->run)->statbench_version);
    fputs("\">\n<title>", f);
    esc(P, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>",
            style);
    esc(P, title);
    fputs("</h1>\n", f);
}

/* ---- The header's facts -------------------------------------------------- */

/* The table's header as a list: "machine:  text" is a term and its
 * text, a line starting with blanks goes on the text before it. */
static void facts(page *P, const char *text)
{
    FILE *f = P->f;
    const char *p = strchr(text, '\n');
    int open = 0;

    fputs("<section id=\"run\">\n<h2>The run</h2>\n<dl class=\"facts\">\n",
          f);
    while (p && *++p) {
        size_t len = strcspn(p, "\n");
        char *line = strndup(p, len);
        char *colon = line ? strchr(line, ':') : NULL;
        size_t key = colon ? (size_t)(colon - line) : 0;
        if (!line) {
            P->failed = 1;
            break;
        }
        /* A key is one or two words before the colon, at the start. */
        if (line[0] != ' ' && colon && key > 0 && key <= 10 &&
            strspn(line, "abcdefghijklmnopqrstuvwxyz -") == key) {
            const char *v = colon + 1;
            v += strspn(v, " ");
            *colon = '\0';
            fputs(open ? "</dd>\n<dt>" : "<dt>", f);
            esc(P, line);
            fputs("</dt><dd>", f);
            esc(P, v);
            open = 1;
        } else {
            const char *v = line + strspn(line, " ");
            fputs(open ? "<br>" : "<dt></dt><dd>", f);
            esc(P, v);
            open = 1;
        }
        free(line);
        p += len;
        if (!*p)
            break;
    }
    fputs(open ? "</dd>\n</dl>\n</section>\n" : "</dl>\n</section>\n", f);
}

/* Lines of text as paragraphs of class note, blank lines skipped. */
static void notes(page *P, const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len) {
            char *line = strndup(p, len);
            if (!line) {
                P->failed = 1;
                return;
            }
            fputs("<p class=\"note\">", P->f);
            esc(P, line);
            fputs("</p>\n", P->f);
            free(line);
        }
        p += len;
        if (*p)
            p++;
    }
}

/* ---- The tables ------------------------------------------------------------ */

/* The rows (rows.c's grid, already escaped for HTML), heads and all. */
static void cells_table(page *P)
{
    const sb_analysis_options *o = sb_run_analysis_options(P->run);
    FILE *f = P->f;
    sb__grid g;
    int cmp;

    if (sb__rows_grid(P->run, SB__LANG_HTML, &g, &cmp) != 0) {
        P->failed = 1;
        return;
    }
    fputs("<section id=\"cells\">\n<h2>Cells</h2>\n<div class=\"scroll\">\n"
          "<table id=\"cells-table\">\n<caption>",
          f);
    fprintf(f,
            "One row per cell: %s with its %g%% CI, each to the digits "
            "its interval supports; +-%%: half the CI in the cell's "
            "metric, in %% of its median (* short of the precision "
            "target)",
            sb_run_imported(P->run) ? "the median in the data's unit"
                                    : "the median MB/s (1 MB = 10^6 B)",
            100 * o->ci_level);
    if (cmp)
        fprintf(f, "; ratio: time over the baseline's (below 1: faster), "
                   "p Holm-adjusted, verdict at alpha %g and a threshold "
                   "of +-%g%%, test: the comparison's method",
                o->alpha, 100 * o->threshold);
    fputs(".</caption>\n<thead><tr>", f);
    for (size_t c = 0; c < g.ncols; c++)
        fprintf(f, "<th scope=\"col\"%s>%s</th>",
                g.align[c] == 'r' ? " class=\"r\"" : "",
                sb__grid_at(&g, 0, c));
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t r = 1; r < g.nrows; r++) {
        fputs("<tr>", f);
        for (size_t c = 0; c < g.ncols; c++)
            fprintf(f, "<td%s>%s</td>",
                    g.align[c] == 'r' ? " class=\"r\"" : "",
                    sb__grid_at(&g, r, c));
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n</div>\n", f);
    sb__grid_free(&g);
}

/* The samples rejected and disturbed by reason, one row per cell, when
 * some cell has any. */
static void rejects_table(page *P)
{
    const sb_run *run = P->run;
    FILE *f = P->f;
    size_t n = sb_run_count(run);
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        any |= r->rejected_total != 0;
        for (int k = 0; k < SB_REJECT_NREASONS; k++)
            any |= r->disturbed[k] != 0;
    }
    if (!any || sb_run_imported(run))
        return;
    fputs("<h3>Samples rejected (disturbed) by reason</h3>\n"
          "<div class=\"scroll\">\n<table id=\"rejects-table\">\n"
          "<caption>Each reason's samples rejected, and in brackets those "
          "that saw the disturbance (kept or not); outliers: rejected "
          "under the outlier policy.</caption>\n<thead><tr>"
          "<th scope=\"col\">kernel</th><th scope=\"col\" class=\"r\">"
          "size</th><th scope=\"col\" class=\"r\">src</th>"
          "<th scope=\"col\" class=\"r\">dst</th>",
          f);
    for (int k = 0; k < SB_REJECT_NREASONS; k++)
        fprintf(f, "<th scope=\"col\" class=\"r\">%s</th>",
                sb_reject_name(k));
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        fputs("<tr><td>", f);
        esc(P, sb__fig_kernel_name(r));
        fprintf(f, "</td><td class=\"r\">%zu</td><td class=\"r\">%zu</td>"
                   "<td class=\"r\">%zu</td>",
                r->cell.size, r->cell.src_align, r->cell.dst_align);
        for (int k = 0; k < SB_REJECT_NREASONS; k++)
            fprintf(f, "<td class=\"r\">%zu (%zu)</td>", r->rejected[k],
                    k == SB_REJECT_OUTLIER ? r->rejected[k]
                                           : r->disturbed[k]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody>\n</table>\n</div>\n", f);
}

/* ---- The comparisons in words --------------------------------------------- */

/* A cell in words: "libc 4096 B 0/0", or the data's name alone. */
static void cell_words(const sb_run *run, size_t i, char *buf, size_t len)
{
    const sb_cell_result *r = sb_run_cell(run, i);

    if (sb_run_imported(run))
        snprintf(buf, len, "%s", sb__fig_kernel_name(r));
    else
        snprintf(buf, len, "%s %zu B %zu/%zu", sb__fig_kernel_name(r),
                 r->cell.size, r->cell.src_align, r->cell.dst_align);
}

/* An interval as "0.83 [0.80, 0.86]", to the digits it supports. */
static void interval_words(const sb_interval *iv, char *buf, size_t len)
{
    char e[64], lo[64], hi[64];
    int d = sb_format_rounded(iv->estimate, (iv->hi - iv->lo) / 2, e,
                              sizeof e);

    if (!isfinite(iv->lo) || !isfinite(iv->hi)) {
        snprintf(buf, len, "%s", e);
        return;
    }
    snprintf(lo, sizeof lo, "%.*f", d > 0 ? d : 0, iv->lo);
    snprintf(hi, sizeof hi, "%.*f", d > 0 ? d : 0, iv->hi);
    snprintf(buf, len, "%s [%s, %s]", e, lo, hi);
}

static void comparisons(page *P)
{
    const sb_run *run = P->run;
    const sb_analysis_options *o = sb_run_analysis_options(run);
    FILE *f = P->f;
    char a[256], b[256], iv[200];

    if (!sb__report_any_comparison(run))
        return;
    fprintf(f,
            "<section id=\"comparisons\">\n<h2>Comparisons</h2>\n"
            "<p>Each ratio is the time over its baseline's (below 1: "
            "faster), with its %g%% CI, by the test named; the p-values "
            "are adjusted for the number of comparisons by Holm's method "
            "over all rows, and the verdict is read at alpha %g with a "
            "threshold of +-%g%% (a change inside it is no change).</p>\n"
            "<ul>\n",
            100 * o->ci_level, o->alpha, 100 * o->threshold);
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_comparison *c = sb_run_comparison(run, i);
        if (!c)
            continue;
        cell_words(run, i, a, sizeof a);
        if (c->base < sb_run_count(run))
            cell_words(run, c->base, b, sizeof b);
        else
            snprintf(b, sizeof b, "its baseline");
        interval_words(&c->ratio, iv, sizeof iv);
        fputs("<li><b>", f);
        esc(P, a);
        fputs("</b> against ", f);
        esc(P, b);
        fprintf(f, ": ratio %s, p (Holm) %.2g: <b>%s</b>", iv,
                c->p_adjusted, sb_verdict_name(c->verdict));
        /* The shared core's part in the verdict, as the gate says it. */
        if (c->withheld)
            fputs(" (withheld: a run was measured on a shared core, so "
                  "its figures judge the neighbour as much as the code)",
                  f);
        else if (isfinite(c->shared_bound))
            fprintf(f, " (kept on a shared core: beyond the %.3gx the "
                       "sharing could explain)",
                    c->shared_bound);
        fputs(". Method: ", f);
        esc(P, c->test[0] ? c->test : "not recorded");
        fputs("; variation between runs: ", f);
        esc(P, sb_run_level_name((int)c->run_level));
        fputs(".</li>\n", f);
    }
    fputs("</ul>\n</section>\n", f);
}

/* ---- Figures ------------------------------------------------------------- */

/* A step of 1, 2 or 5 times a power of ten giving at most max ticks over
 * range. */
static double nice_step(double range, int max)
{
    double raw = range / max, p = pow(10, floor(log10(raw)));

    if (!(raw > 0) || !isfinite(raw))
        return 1;
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p
                                                              : 10 * p;
}

/* At most this many ticks on an axis, whatever its numbers. */
#define MAX_TICKS 24

/* lo, hi widened to room for the points with a margin; a single value
 * gets a span around it.  Returns 0 when the axis cannot be drawn: a
 * span that overflows (a loaded run's -1e308 and 1e308) would put
 * "inf" and "nan" into the coordinates. */
static int pad_range(double *lo, double *hi)
{
    double span = *hi - *lo;

    if (!isfinite(*lo) || !isfinite(*hi) || !isfinite(span) ||
        !isfinite(span * 1.2) || !isfinite(*lo - span) ||
        !isfinite(*hi + span))
        return 0;
    if (!(span > 0)) {
        span = fabs(*lo) > 0 ? fabs(*lo) * 0.2 : 1;
        *lo -= span / 2;
        *hi += span / 2;
        return *hi > *lo;
    }
    *lo -= span * 0.06;
    *hi += span * 0.06;
    return 1;
}

static void svg_open(page *P, const char *id, double h, const char *title)
{
    fprintf(P->f,
            "<figure id=\"%s\">\n<svg "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n<title>",
            id, SVG_W, h);
    esc(P, title);
    fprintf(P->f, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" "
                  "fill=\"#fff\"/>\n<text x=\"%.0f\" y=\"20\" "
                  "text-anchor=\"middle\" font-size=\"14\">",
            SVG_W, h, SVG_W / 2);
    esc_cut(P, title, 95);
    fputs("</text>\n", P->f);
}

static void svg_close(page *P, const char *caption)
{
    fputs("</svg>\n<figcaption class=\"note\">", P->f);
    esc(P, caption);
    fputs("</figcaption>\n</figure>\n", P->f);
}

/* The value axis along x from x0 to x1 at y (ticks, grid lines up to
 * top, the label under it), for values lo..hi. */
static void x_axis(page *P, double lo, double hi, double x0, double x1,
                   double y, double top, const char *label)
{
    double step = nice_step(hi - lo, 6);

    fprintf(P->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"#444\"/>\n",
            x0, y, x1, y);
    double t = ceil(lo / step) * step;

    for (int k = 0; k < MAX_TICKS && t <= hi; k++, t += step) {
        double x = x0 + (t - lo) / (hi - lo) * (x1 - x0);
        fprintf(P->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e4e4e4\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"middle\">%.6g</text>\n",
                x, top, x, y, x, y + 16, fabs(t) < step * 1e-9 ? 0 : t);
    }
    fprintf(P->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (x0 + x1) / 2, y + 34);
    esc(P, label);
    fputs("</text>\n", P->f);
}

/* One row of a forest figure. */
typedef struct item {
    char label[160];
    double est, lo, hi;
} item;

/* One row per item: its estimate as a dot, its interval as a bar, the
 * value axis below; refs[0..nrefs) vertical lines (dashed after the
 * first). */
static void forest(page *P, const char *id, const char *title,
                   const char *xlabel, const item *it, size_t n,
                   const double *refs, size_t nrefs, const char *caption)
{
    const double left = 250, right = SVG_W - 20, top = 34, row = 20;
    double lo = INFINITY, hi = -INFINITY, h = top + row * (double)n + 56;
    double y0 = top + row * (double)n + 6;

    for (size_t j = 0; j < n; j++) {
        double v[3] = {it[j].est, it[j].lo, it[j].hi};
        for (int k = 0; k < 3; k++)
            if (isfinite(v[k])) {
                lo = fmin(lo, v[k]);
                hi = fmax(hi, v[k]);
            }
    }
    for (size_t k = 0; k < nrefs; k++) {
        lo = fmin(lo, refs[k]);
        hi = fmax(hi, refs[k]);
    }
    if (!pad_range(&lo, &hi))
        return;
#define X(v) (left + ((v) - lo) / (hi - lo) * (right - left))
    svg_open(P, id, h, title);
    x_axis(P, lo, hi, left, right, y0, top, xlabel);
    for (size_t k = 0; k < nrefs; k++)
        fprintf(P->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#888\"%s/>\n",
                X(refs[k]), top, X(refs[k]), y0,
                k ? " stroke-dasharray=\"4 3\"" : "");
    for (size_t j = 0; j < n; j++) {
        double y = top + row * ((double)j + 0.5);
        double a = isfinite(it[j].lo) ? it[j].lo : it[j].est;
        double b = isfinite(it[j].hi) ? it[j].hi : it[j].est;
        fprintf(P->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                left - 8, y + 4);
        esc_cut(P, it[j].label, 36);
        fprintf(P->f,
                "</text>\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n"
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n",
                X(a), y, X(b), y, sb__fig_color(0), X(it[j].est), y,
                sb__fig_color(0));
    }
#undef X
    svg_close(P, caption);
}

/* Each cell's estimate with its interval: MB/s for a measured run, the
 * data's own figure for imported samples. */
static void cells_figure(page *P)
{
    const sb_run *run = P->run;
    int imp = sb_run_imported(run);
    size_t n = sb_run_count(run), k = 0, with = 0;
    item *it = calloc(FOREST_MAX, sizeof *it);
    char title[200], xlabel[160], caption[200];

    if (!it) {
        P->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_interval *iv = imp ? &r->interval : &r->mbps;
        if (!r->nsamples || !isfinite(iv->estimate) ||
            (!imp && !sb__fig_has_mbps(r)))
            continue;
        with++;
        if (k == FOREST_MAX)
            continue;
        cell_words(run, i, it[k].label, sizeof it[k].label);
        it[k].est = iv->estimate;
        it[k].lo = iv->lo;
        it[k].hi = iv->hi;
        k++;
    }
    if (k) {
        double level = 100 * sb_run_analysis_options(run)->ci_level;
        snprintf(title, sizeof title, "%s with its %g%% CI, per cell",
                 imp ? "The median" : "Median throughput", level);
        if (imp)
            snprintf(xlabel, sizeof xlabel, "median (%s)",
                     *sb_run_unit(run) ? sb_run_unit(run)
                                       : "the data's unit");
        else
            snprintf(xlabel, sizeof xlabel,
                     "throughput (MB/s, 1 MB = 10^6 B)");
        if (with > k)
            snprintf(caption, sizeof caption,
                     "The first %zu of %zu cells; the table holds them "
                     "all.", k, with);
        else
            snprintf(caption, sizeof caption,
                     "Dot: the median; bar: its %g%% CI.", level);
        forest(P, "fig-cells", title, xlabel, it, k, NULL, 0, caption);
    }
    free(it);
}

/* Each comparison's ratio with its interval, the line of no change and
 * the threshold's either side. */
static void ratio_figure(page *P)
{
    const sb_run *run = P->run;
    const sb_analysis_options *o = sb_run_analysis_options(run);
    size_t n = sb_run_count(run), k = 0;
    item *it = calloc(FOREST_MAX, sizeof *it);
    double refs[3] = {1, 1 - o->threshold, 1 + o->threshold};
    char title[160], caption[200], cell[150];

    if (!it) {
        P->failed = 1;
        return;
    }
    for (size_t i = 0; i < n && k < FOREST_MAX; i++) {
        const sb_comparison *c = sb_run_comparison(run, i);
        if (!c || !isfinite(c->ratio.estimate))
            continue;
        cell_words(run, i, cell, sizeof cell);
        /* The verdict first: a long name is cut at its end. */
        snprintf(it[k].label, sizeof it[k].label, "%s: %s",
                 sb_verdict_name(c->verdict), cell);
        it[k].est = c->ratio.estimate;
        it[k].lo = c->ratio.lo;
        it[k].hi = c->ratio.hi;
        k++;
    }
    if (k) {
        snprintf(title, sizeof title,
                 "Ratio to the baseline with its %g%% CI",
                 100 * o->ci_level);
        snprintf(caption, sizeof caption,
                 "Solid line: no change (1); dashed: the threshold, "
                 "+-%g%%. Below 1: faster than the baseline.",
                 100 * o->threshold);
        forest(P, "fig-ratios", title,
               "ratio (time / baseline's time)", it, k, refs,
               o->threshold > 0 ? 3 : 1, caption);
    }
    free(it);
}

/* The x of a line figure: a size on a log2 axis, an offset linear. */
static double line_x(const sb__fig_lines *L, size_t x)
{
    return L->by_size ? log2((double)(x ? x : 1)) : (double)x;
}

/* The ticks of a line figure's x axis: powers of two for sizes, a step
 * of the gnuplot figure's rule for offsets. */
static void lines_xticks(page *P, const sb__fig_lines *L, double lo,
                         double hi, double x0, double x1, double y,
                         double top)
{
    int every = 1;
    double step = L->by_size ? 1 : sb__fig_tick_step(hi - lo, 10);

    while (L->by_size && (hi - lo) / every > 10)
        every++;
    step *= every;
    for (double t = ceil(lo / step) * step, k = 0; k < MAX_TICKS && t <= hi;
         k++, t += step) {
        double x = x0 + (t - lo) / (hi - lo) * (x1 - x0);
        char h[32];
        if (L->by_size)
            sb__fig_human_size((size_t)ldexp(1.0, (int)t), h, sizeof h);
        else
            snprintf(h, sizeof h, "%.0f", t);
        fprintf(P->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#e4e4e4\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"middle\">%s</text>\n",
                x, top, x, y, x, y + 16, h);
    }
}

/* The throughput against size or source offset, a line per kernel and
 * the rest of the cell, as the gnuplot figure groups them
 * (figure_lines.c): the medians joined, each with its interval. */
static void lines_figure(page *P, const sb__fig_lines *L)
{
    const sb_run *run = P->run;
    const double left = 80, right = SVG_W - 20, top = 34, ph = 280;
    const double y0 = top + ph, lh = 18;
    double h = y0 + 56 + lh * (double)L->ns;
    double xlo = line_x(L, L->xmin), xhi = line_x(L, L->xmax);
    double ylo = INFINITY, yhi = -INFINITY;
    char common[256], title[400], label[256];

    for (size_t j = 0; j < L->nit; j++) {
        const sb_interval *m = &sb_run_cell(run, L->it[j].idx)->mbps;
        double v[3] = {m->estimate, m->lo, m->hi};
        for (int k = 0; k < 3; k++)
            if (isfinite(v[k])) {
                ylo = fmin(ylo, v[k]);
                yhi = fmax(yhi, v[k]);
            }
    }
    if (!pad_range(&xlo, &xhi) || !pad_range(&ylo, &yhi))
        return;
    sb__fig_lines_common(L, common, sizeof common);
    snprintf(title, sizeof title, "%s%sthroughput against %s", common,
             common[0] ? ": " : "", L->by_size ? "size" : "source offset");
#define X(v) (left + (line_x(L, v) - xlo) / (xhi - xlo) * (right - left))
#define Y(v) (y0 - ((v) - ylo) / (yhi - ylo) * ph)
    svg_open(P, "fig-lines", h, title);
    /* The value axis up the left side, its label turned. */
    {
        double step = nice_step(yhi - ylo, 6);
        double t = ceil(ylo / step) * step;
        for (int k = 0; k < MAX_TICKS && t <= yhi; k++, t += step)
            fprintf(P->f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"#e4e4e4\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"end\">%.6g</text>\n",
                    left, Y(t), right, Y(t), left - 6, Y(t) + 4, t);
        fprintf(P->f,
                "<text transform=\"translate(16 %.1f) rotate(-90)\" "
                "text-anchor=\"middle\">throughput (MB/s, 1 MB = 10^6 "
                "B)</text>\n",
                top + ph / 2);
    }
    lines_xticks(P, L, xlo, xhi, left, right, y0, top);
    fprintf(P->f,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"#444\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%s</text>\n",
            left, y0, right, y0, (left + right) / 2, y0 + 34,
            L->by_size ? "size (bytes per call, log scale)"
                       : "source offset (bytes)");
    for (size_t j = 0; j < L->ns; j++) {
        const sb__fig_series *s = &L->s[j];
        const char *color = sb__fig_color(j);
        fprintf(P->f, "<polyline fill=\"none\" stroke=\"%s\" "
                      "stroke-width=\"1.5\" points=\"",
                color);
        for (size_t k = s->first; k < s->first + s->n; k++) {
            const sb_cell_result *r = sb_run_cell(run, L->it[k].idx);
            fprintf(P->f, "%s%.1f,%.1f", k == s->first ? "" : " ",
                    X(L->it[k].x), Y(r->mbps.estimate));
        }
        fputs("\"/>\n", P->f);
        for (size_t k = s->first; k < s->first + s->n; k++) {
            const sb_interval *m = &sb_run_cell(run, L->it[k].idx)->mbps;
            double x = X(L->it[k].x);
            fprintf(P->f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"%s\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" "
                    "r=\"3\" fill=\"%s\"/>\n",
                    x, Y(isfinite(m->lo) ? m->lo : m->estimate), x,
                    Y(isfinite(m->hi) ? m->hi : m->estimate), color, x,
                    Y(m->estimate), color);
        }
        sb__fig_line_label(L, j, label, sizeof label);
        fprintf(P->f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"3\"/>\n<text x=\"%.1f\" "
                "y=\"%.1f\">",
                left, y0 + 50 + lh * (double)j, left + 24,
                y0 + 50 + lh * (double)j, color, left + 30,
                y0 + 54 + lh * (double)j);
        esc_cut(P, label, 80);
        fputs("</text>\n", P->f);
    }
#undef X
#undef Y
    svg_close(P, "Each line: the median MB/s of its cells, each with its "
                 "CI as a vertical bar.");
}

static void figures(page *P)
{
    sb__fig_lines L = {0};
    int drawn = 0;

    fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", P->f);
    for (int by_size = 1; !sb_run_imported(P->run) && by_size >= 0;
         by_size--) {
        if (sb__fig_lines_build(P->run, by_size, &L) != SB_OK) {
            P->failed = 1;
            break;
        }
        if (L.multi && !drawn++)
            lines_figure(P, &L);
        sb__fig_lines_free(&L);
    }
    cells_figure(P);
    ratio_figure(P);
    fputs("</section>\n", P->f);
}

/* ---- The page ----------------------------------------------------------- */

int sb__write_html(const sb_run *run, FILE *f, sb_error *err)
{
    page P = {run, f, 0};
    char *head = capture(&P, sb__table_header);
    char *foot = capture(&P, sb__table_footnotes);
    char *runs = capture(&P, sb__table_runs);
    char *title = head ? strndup(head, strcspn(head, "\n")) : NULL;

    if (!head || !foot || !runs || !title) {
        free(head);
        free(foot);
        free(runs);
        free(title);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    open_page(&P, title);
    facts(&P, head);
    cells_table(&P);
    notes(&P, foot);
    rejects_table(&P);
    if (*runs) {
        fputs("<h3>Merged runs</h3>\n<pre>", f);
        for (const char *p = runs; *p;) {
            size_t len = strcspn(p, "\n");
            char *line = strndup(p, len);
            if (!line) {
                P.failed = 1;
                break;
            }
            esc(&P, line);
            fputc('\n', f);
            free(line);
            p += len + (p[len] != '\0');
        }
        fputs("</pre>\n", f);
    }
    fputs("</section>\n", f);
    comparisons(&P);
    figures(&P);
    fputs("</main>\n</body>\n</html>\n", f);
    free(head);
    free(foot);
    free(runs);
    free(title);
    if (P.failed)
        return sb__error(err, SB_ENOMEM, "out of memory");
    return sb__report_flush(f, err);
}
