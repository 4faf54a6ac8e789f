/*
 * report/figure.c: figures of a run, drawn by gnuplot at run time.
 *
 * sb_plot() writes two plain files beside the figure: STEM.dat, the
 * numbers (commented, one gnuplot data block per line of the figure), and
 * STEM.gp, a script that reads STEM.dat from its own directory and draws
 * the figure.  Then it runs gnuplot on the script, without a shell, and
 * renames the finished figure into place.  The two files stay, so that a
 * figure can be restyled or rendered on another machine with
 * `gnuplot STEM.gp`; a machine without gnuplot still gets them.
 *
 * Numbers are written in the C locale (gnuplot reads '.' decimals).  The
 * library never prints: gnuplot's stderr is read through a pipe and its
 * first error line, if any, goes into the sb_error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "safefile.h"
#include "sb_internal.h"
#include "program.h"

extern char **environ;

/* At most this many cells in a distribution figure: more boxes than this
 * cannot be told apart at 900 pixels. */
#define DIST_MAX_CELLS 12

/* Line colours: the Okabe-Ito palette, which readers with the common
 * colour-vision deficiencies can still tell apart, with Tol's wine for
 * its yellow (too faint on white).  Point types differ too, for
 * greyscale print. */
static const char *const line_colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7",
    "#E69F00", "#56B4E9", "#000000", "#882255",
};
static const int line_points[] = {7, 5, 9, 13, 11, 15, 6, 4};
#define NCOLORS (sizeof line_colors / sizeof line_colors[0])

enum { TERM_SVG, TERM_PDF, TERM_PNG };

/* One figure being made. */
typedef struct fig {
    const sb_run *run;
    int kind;           /* enum sb_plot_kind, never SB_PLOT_AUTO */
    int term;
    char *stem;         /* path without its ending */
    const char *name;   /* the stem's last component (inside stem) */
    const char *ending; /* path's ending, after the dot (inside path) */
    char *gp_path, *dat_path;
    char *gp_tmp, *dat_tmp; /* where they are written, until renamed */
    FILE *gp, *dat;
} fig;

/* ---- Small helpers --------------------------------------------------- */

static const char *kernel_name(const sb_cell_result *r)
{
    return r->cell.kernel && r->cell.kernel->name ? r->cell.kernel->name
                                                  : "?";
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* "10 KiB" for whole multiples of 1024, else "1000 B". */
static void human_size(size_t v, char *buf, size_t len)
{
    if (v >= (1u << 30) && v % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", v >> 30);
    else if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zu KiB", v >> 10);
    else
        snprintf(buf, len, "%zu B", v);
}

static int is_ctrl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Append to a fixed buffer, parts joined by sep.  A control character in
 * part (a name may hold one) becomes '?': sep alone may bring a newline,
 * which the distribution's tick labels split at. */
static void append(char *buf, size_t len, const char *sep, const char *part)
{
    size_t used = strlen(buf);
    char *p;
    if (used >= len - 1)
        return;
    p = buf + used + strlen(used ? sep : "");
    snprintf(buf + used, len - used, "%s%s", used ? sep : "", part);
    for (; p < buf + len && *p; p++)
        if (is_ctrl((unsigned char)*p))
            *p = '?';
}

/* Every string from the data (kernel and file names, the CPU model) goes
 * into the script as a gnuplot single-quoted string.  Double quotes would
 * not do: gnuplot runs `text` in backquotes inside them as a shell
 * command.  Inside single quotes gnuplot substitutes nothing (neither
 * backquotes nor @macros) and the only escape is the quote written twice.
 * The script is read line by line, so control characters (a newline
 * would end the line) become '?'.  Text shown in the figure is set
 * noenhanced, so that '_', '^', '@', '&' and braces show as written. */
static void put_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputc('\'', f);
        fputc(is_ctrl(c) ? '?' : c, f);
    }
    fputc('\'', f);
}

/* Text from the data in a comment of the script or the data file: control
 * characters become blanks (a newline would end the comment and make the
 * rest a command, or data), and a comment never ends in a backslash,
 * which would make gnuplot read the next line as part of the comment. */
static void put_comment(FILE *f, const char *s)
{
    int last = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(last = is_ctrl(c) ? ' ' : c, f);
    }
    if (last == '\\')
        fputc(' ', f);
}

/* A number for the data file; gnuplot skips points with NaN. */
static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("NaN", f);
}

/* A cell whose samples can be drawn: some, one of them at least finite,
 * and a finite median. */
static int has_samples(const sb_cell_result *r)
{
    if (r->nsamples == 0 || !r->ticks || !isfinite(r->interval.estimate))
        return 0;
    for (size_t k = 0; k < r->nsamples; k++)
        if (isfinite(r->ticks[k]))
            return 1;
    return 0;
}

/* A cell whose throughput can be drawn. */
static int has_mbps(const sb_cell_result *r)
{
    return r->nsamples > 0 && r->cell.size > 0 && isfinite(r->mbps.estimate);
}

/* The smallest power of two step that gives at most max ticks. */
static double tick_step(double range, double max)
{
    double s = 1;
    while (range / s > max)
        s *= 2;
    return s;
}

/* ---- Lines of a sweep or size figure --------------------------------- */

/* A cell on a line: the line's key (kernel, k1, k2) and its x. */
typedef struct item {
    size_t idx;
    const char *kernel;
    size_t k1, k2, x;
} item;

/* A line: items[first .. first + n), ordered by x. */
typedef struct series {
    size_t first, n;
    size_t rank;     /* its first cell in the run: lines keep run order */
    size_t distinct; /* distinct x values */
} series;

typedef struct lines {
    int by_size;     /* x is the size (k1 src, k2 dst); else the source
                        offset (k1 size, k2 dst) */
    item *it;
    size_t nit;
    series *s;
    size_t ns;
    int vary_kernel, vary_k1, vary_k2;
    int multi;       /* some line has two x values or more */
    size_t xmin, xmax;
} lines;

static int cmp_item(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    int c = strcmp(a->kernel, b->kernel);
    if (c)
        return c;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2 ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int same_line(const item *a, const item *b)
{
    return !strcmp(a->kernel, b->kernel) && a->k1 == b->k1 && a->k2 == b->k2;
}

static int cmp_series(const void *pa, const void *pb)
{
    const series *a = pa, *b = pb;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static void lines_free(lines *L)
{
    free(L->it);
    free(L->s);
    memset(L, 0, sizeof *L);
}

static int lines_build(const sb_run *run, int by_size, lines *L)
{
    size_t n = sb_run_count(run);

    memset(L, 0, sizeof *L);
    L->by_size = by_size;
    L->it = malloc((n ? n : 1) * sizeof *L->it);
    L->s = malloc((n ? n : 1) * sizeof *L->s);
    if (!L->it || !L->s) {
        lines_free(L);
        return SB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_cell *c = &r->cell;
        if (!has_mbps(r))
            continue;
        L->it[L->nit++] = (item){
            .idx = i,
            .kernel = kernel_name(r),
            .k1 = by_size ? c->src_align : c->size,
            .k2 = c->dst_align,
            .x = by_size ? c->size : c->src_align,
        };
    }
    qsort(L->it, L->nit, sizeof *L->it, cmp_item);
    for (size_t j = 0; j < L->nit;) {
        series s = {.first = j, .n = 1, .rank = L->it[j].idx, .distinct = 1};
        size_t k = j + 1;
        for (; k < L->nit && same_line(&L->it[j], &L->it[k]); k++) {
            s.n++;
            if (L->it[k].idx < s.rank)
                s.rank = L->it[k].idx;
            if (L->it[k].x != L->it[k - 1].x)
                s.distinct++;
        }
        if (s.distinct >= 2)
            L->multi = 1;
        L->s[L->ns++] = s;
        j = k;
    }
    qsort(L->s, L->ns, sizeof *L->s, cmp_series);
    for (size_t j = 0; j < L->nit; j++) {
        if (j == 0 || L->it[j].x < L->xmin)
            L->xmin = L->it[j].x;
        if (j == 0 || L->it[j].x > L->xmax)
            L->xmax = L->it[j].x;
    }
    for (size_t j = 1; j < L->ns; j++) {
        const item *a = &L->it[L->s[0].first], *b = &L->it[L->s[j].first];
        L->vary_kernel |= strcmp(a->kernel, b->kernel) != 0;
        L->vary_k1 |= a->k1 != b->k1;
        L->vary_k2 |= a->k2 != b->k2;
    }
    return SB_OK;
}

/* The key entry of line j: what tells it from the others. */
static void line_label(const lines *L, size_t j, char *buf, size_t len)
{
    const item *a = &L->it[L->s[j].first];
    char part[64];

    buf[0] = '\0';
    if (L->vary_kernel || (!L->vary_k1 && !L->vary_k2))
        append(buf, len, ", ", a->kernel);
    if (L->vary_k1) {
        if (L->by_size)
            snprintf(part, sizeof part, "src +%zu", a->k1);
        else
            human_size(a->k1, part, sizeof part);
        append(buf, len, ", ", part);
    }
    if (L->vary_k2) {
        snprintf(part, sizeof part, "dst +%zu", a->k2);
        append(buf, len, ", ", part);
    }
}

/* What all lines share, for the title: "movsl, 10 KiB". */
static void lines_common(const lines *L, char *buf, size_t len)
{
    const item *a = &L->it[L->s[0].first];
    char part[64];

    buf[0] = '\0';
    if (!L->vary_kernel)
        append(buf, len, ", ", a->kernel);
    if (!L->vary_k1 && (!L->by_size || a->k1)) {
        if (L->by_size)
            snprintf(part, sizeof part, "src +%zu", a->k1);
        else
            human_size(a->k1, part, sizeof part);
        append(buf, len, ", ", part);
    }
    if (!L->vary_k2 && a->k2) {
        snprintf(part, sizeof part, "dst +%zu", a->k2);
        append(buf, len, ", ", part);
    }
}

/* ---- The 2D alignment matrix ------------------------------------------ */

/* Cells [first, end) of one kernel and size, the same rule as the table's
 * (table.c, sb__matrix_width): every pair of at least two source and two
 * destination offsets, destination outer and source inner, in plan
 * order. */
typedef struct matrix {
    size_t first, end, w, h;
    size_t ref; /* the aligned cell (0, 0), or the first cell */
} matrix;


/* The first full matrix with something to draw; 0 when there is none. */
static int matrix_find(const sb_run *run, matrix *m)
{
    size_t n = sb_run_count(run);
    for (size_t i = 0; i < n;) {
        size_t e = sb__group_end(run, i), w = sb__matrix_width(run, i, e);
        int any = 0;
        for (size_t j = i; w && j < e; j++)
            any |= has_mbps(sb_run_cell(run, j));
        if (w && any) {
            *m = (matrix){.first = i, .end = e, .w = w, .h = (e - i) / w,
                          .ref = i};
            for (size_t j = i; j < e; j++) {
                const sb_cell *c = &sb_run_cell(run, j)->cell;
                if (c->src_align == 0 && c->dst_align == 0)
                    m->ref = j;
            }
            return 1;
        }
        i = e;
    }
    return 0;
}

/* ---- The figure's files ----------------------------------------------- */

/* The second line of every title: the machine and the cache state. */
static void machine_line(const sb_run *run, char *buf, size_t len)
{
    const sb_meta *m = sb_run_meta(run);
    buf[0] = '\0';
    if (sb_run_imported(run))
        return;
    if (m->cpu_model[0])
        append(buf, len, "; ", m->cpu_model);
    append(buf, len, "; ",
           sb_run_measure_options(run)->cache == SB_CACHE_COLD
               ? "cold cache"
               : "hot cache");
}

/* The key's heading for throughput figures: "median, 95% CI (6
 * invocations)". */
static void ci_heading(const sb_run *run, char *buf, size_t len)
{
    double level = 100 * sb_run_analysis_options(run)->ci_level;
    if (sb_run_invocations(run) > 1)
        snprintf(buf, len, "median, %g%% CI (%zu invocations)", level,
                 sb_run_invocations(run));
    else
        snprintf(buf, len, "median, %g%% CI", level);
}

static void put_title(FILE *f, const char *what, const sb_run *run)
{
    char machine[256];
    machine_line(run, machine, sizeof machine);
    fputs("set title ", f);
    put_str(f, what);
    if (machine[0]) {
        fputs(".\"\\n\".", f);
        put_str(f, machine);
    }
    fputs(" noenhanced\n", f);
}

/* The script's beginning: where its files are, the terminal, the style. */
static void gp_preamble(fig *F)
{
    FILE *f = F->gp;
    const char *cmd = sb_run_command(F->run);

    fprintf(f, "# statbench %s: %s figure, for gnuplot 5.2 or newer.\n",
            sb_version(), sb_plot_kind_name(F->kind));
    fputs("# run: ", f);
    put_comment(f, cmd ? cmd : "");
    fprintf(f,
            "\n#\n"
            "# Render with `gnuplot %s.gp` from anywhere: the script reads "
            "%s.dat and\n"
            "# writes %s.%s in its own directory (out='FILE' given with -e "
            "overrides\n"
            "# the figure's name; the terminal stays the one chosen below).\n"
            "\n",
            F->name, F->name, F->name, F->ending);
    /* gnuplot opens a file name that starts with '<' as a command's
     * output and one that starts with '|' as a command's input, quotes or
     * not: every name the script opens starts with "./" or "/", so that a
     * figure called "<touch x.svg" is a file of that name. */
    fputs("dir = ''\n"
          "if (exists(\"ARG0\")) { i = strlen(ARG0); "
          "while (i > 0 && ARG0[i:i] ne '/') { i = i - 1 }; "
          "if (i > 0) { dir = ARG0[1:i] } }\n"
          "if (strlen(dir) == 0 || (dir[1:1] ne '/' && dir[1:1] ne '.')) "
          "{ dir = './'.dir }\n",
          f);
    fputs("data = dir.", f);
    put_str(f, F->name);
    fputs(".'.dat'\n", f);
    fputs("if (!exists(\"out\")) { out = dir.", f);
    put_str(f, F->name);
    fputc('.', f);
    put_str(f, F->ending - 1); /* ".svg": checked, but quoted all the same */
    fputs(" }\n\n", f);

    fputs("set encoding utf8\n", f);
    switch (F->term) {
    case TERM_SVG:
        fputs("set terminal svg size 900,560 dynamic enhanced "
              "font \"sans,11\" background rgb 'white'\n",
              f);
        break;
    case TERM_PDF:
        fputs("terms = ' '.GPVAL_TERMINALS.' '\n"
              "if (strstrt(terms, ' pdfcairo ') == 0) { exit error "
              "\"this gnuplot has no pdfcairo terminal (built without "
              "cairo): draw an .svg instead\" }\n"
              "set terminal pdfcairo size 6.4in,4in enhanced "
              "font \"sans,9\" linewidth 0.6 pointscale 0.6 "
              "background rgb 'white'\n",
              f);
        break;
    default:
        fputs("terms = ' '.GPVAL_TERMINALS.' '\n"
              "if (strstrt(terms, ' pngcairo ') > 0) {\n"
              "    set terminal pngcairo size 900,560 enhanced "
              "font \"sans,11\" background rgb 'white'\n"
              "} else {\n"
              "    # No cairo: the libgd png terminal.\n"
              "    if (strstrt(terms, ' png ') == 0) { exit error "
              "\"this gnuplot has neither the pngcairo nor the png "
              "terminal: draw an .svg instead\" }\n"
              "    set terminal png size 900,560 enhanced font \"sans,11\" "
              "background rgb 'white'\n"
              "}\n",
              f);
        break;
    }
    fputs("set output out\n\n", f);
    fputs("set border 3 lw 1\n"
          "set tics nomirror out\n"
          "set grid back lc rgb '#e4e4e4' lw 1 dt 1\n"
          "set key noenhanced\n"
          "set errorbars small\n",
          f);
    for (size_t i = 0; i < NCOLORS; i++)
        fprintf(f, "set linetype %zu lc rgb '%s' lw 1.5 pt %d ps 0.7\n",
                i + 1, line_colors[i], line_points[i]);
    fprintf(f, "set linetype cycle %zu\n\n", NCOLORS);
}

/* The data file's header: what it is and its columns. */
static void dat_header(fig *F, const char *columns, const char *blocks)
{
    FILE *f = F->dat;
    const char *cmd = sb_run_command(F->run);
    fprintf(f, "# statbench %s: data of a %s figure (%s.gp draws it)\n",
            sb_version(), sb_plot_kind_name(F->kind), F->name);
    fputs("# run: ", f);
    put_comment(f, cmd ? cmd : "");
    fputc('\n', f);
    if (!sb_run_imported(F->run)) {
        fputs("# cpu: ", f);
        put_comment(f, sb_run_meta(F->run)->cpu_model);
        fputc('\n', f);
    }
    fprintf(f, "# columns: %s\n", columns);
    fprintf(f, "# %s\n", blocks);
}

/* ---- Sweep and sizes -------------------------------------------------- */

/* Throughput lines with their CI bars; x the source offset or the size. */
/* The data of a line figure: one block per line, one row per cell. */
static void lines_data(fig *F, const lines *L)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;
    char label[256];

    dat_header(F,
               L->by_size ? "size mbps_median mbps_ci_lo mbps_ci_hi "
                            "ticks_median samples src_align dst_align"
                          : "src_align mbps_median mbps_ci_lo mbps_ci_hi "
                            "ticks_median samples size dst_align",
               "one block per line of the figure (gnuplot's index), "
               "blocks separated by two blank lines; MB = 10^6 bytes");
    for (size_t j = 0; j < L->ns; j++) {
        const series *s = &L->s[j];
        line_label(L, j, label, sizeof label);
        fprintf(d, "\n\n# block %zu: ", j);
        put_comment(d, label);
        fputc('\n', d);
        for (size_t k = s->first; k < s->first + s->n; k++) {
            const sb_cell_result *r = sb_run_cell(run, L->it[k].idx);
            fprintf(d, "%zu ", L->it[k].x);
            put_num(d, r->mbps.estimate);
            fputc(' ', d);
            put_num(d, r->mbps.lo);
            fputc(' ', d);
            /* An unbounded upper end (a t interval reaching 0) is drawn
             * up to the estimate rather than dropping the point. */
            put_num(d, isfinite(r->mbps.hi) ? r->mbps.hi : r->mbps.estimate);
            fputc(' ', d);
            put_num(d, r->interval.estimate);
            fprintf(d, " %zu %zu %zu\n", r->nsamples,
                    L->by_size ? r->cell.src_align : r->cell.size,
                    r->cell.dst_align);
        }
    }
}

/* The x axis of a line figure: source offsets on a linear axis, or sizes
 * on a log2 axis with ticks at powers of two, labelled in bytes. */
static void lines_xaxis(fig *F, const lines *L)
{
    FILE *g = F->gp;

    if (!L->by_size) {
        double range = (double)(L->xmax - L->xmin);
        double step = tick_step(range > 0 ? range : 1, 10);
        double pad = range * 0.02 > 0.5 ? range * 0.02 : 0.5;
        fputs("set xlabel \"source offset (bytes)\"\n", g);
        fprintf(g, "set xrange [%g:%g]\n", (double)L->xmin - pad,
                (double)L->xmax + pad);
        fprintf(g, "set xtics %g, %g\n",
                floor((double)L->xmin / step) * step, step);
        if (step > 1)
            fprintf(g, "set mxtics %g\n", step <= 8 ? step : 2);
    } else {
        /* A log2 axis with ticks at powers of two, labelled in bytes. */
        double lo = (double)L->xmin, hi = (double)L->xmax;
        int e0 = (int)floor(log2(lo)), e1 = (int)ceil(log2(hi));
        int every = 1, first = 1;
        while ((e1 - e0) / every > 12)
            every++;
        fputs("set logscale x 2\n", g);
        fprintf(g, "set xrange [%.9g:%.9g]\n", lo / 1.25, hi * 1.25);
        fputs("set xtics (", g);
        for (int e = e0; e <= e1; e += every) {
            char h[32];
            double v = ldexp(1.0, e);
            if (v < lo / 1.25 || v > hi * 1.25)
                continue;
            human_size((size_t)v, h, sizeof h);
            fprintf(g, "%s\"%s\" %.0f", first ? "" : ", ", h, v);
            first = 0;
        }
        if (first)
            fprintf(g, "\"%zu B\" %zu", L->xmin, L->xmin);
        fputs(")\nset mxtics default\n", g);
    }
}

static void write_lines(fig *F, const lines *L)
{
    int drawn = 0; /* cache sizes drawn */
    const sb_run *run = F->run;
    FILE *g = F->gp;
    char common[256], what[320], label[256], heading[96];

    lines_data(F, L);
    lines_common(L, common, sizeof common);
    snprintf(what, sizeof what, "%s%sthroughput against %s", common,
             common[0] ? ": " : "",
             L->by_size ? "size" : "source offset");
    gp_preamble(F);
    put_title(g, what, run);
    fputs("set ylabel \"throughput (MB/s, 1 MB = 10^6 B)\"\n", g);
    fputs("set offsets 0, 0, graph 0.06, graph 0.06\n", g);
    ci_heading(run, heading, sizeof heading);
    fputs("set key below horizontal title ", g);
    put_str(g, heading);
    fputs("\n", g);

    lines_xaxis(F, L);

    /* The caches of the CPU the run was measured on, as its record says
     * (a figure drawn elsewhere marks the same).  A label goes into the
     * script between quotes: only letters and digits are drawn. */
    if (L->by_size) {
        const sb_meta *mt = sb_run_meta(run);
        const sb_cache_size *c = mt->caches;
        size_t nc = mt->ncaches < SB_MAX_CACHES ? mt->ncaches : SB_MAX_CACHES;
        for (size_t k = 0; k < nc; k++) {
            char h[32];
            if ((double)c[k].bytes < L->xmin / 1.25 ||
                (double)c[k].bytes > L->xmax * 1.25 || !c[k].label[0] ||
                strspn(c[k].label, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") !=
                    strlen(c[k].label))
                continue;
            human_size(c[k].bytes, h, sizeof h);
            fprintf(g,
                    "set arrow from %zu, graph 0 to %zu, graph 1 "
                    "nohead back dt 2 lw 1 lc rgb '#888888'\n",
                    c[k].bytes, c[k].bytes);
            fprintf(g,
                    "set label \"%s %s\" at %zu, graph 0.98 right "
                    "rotate by 90 offset character -0.9, 0 "
                    "tc rgb '#555555' font \",9\"\n",
                    c[k].label, h, c[k].bytes);
            drawn++;
        }
        if (!sb_run_imported(run) && !drawn)
            fprintf(g, "# Cache sizes not drawn: %s.\n",
                    nc ? "none within the sizes measured with a plain name"
                       : "the run's record has none (saved before they "
                         "were recorded, or none in sysfs)");
    }

    /* The caches are explained under the axis, not in the key, so that
     * the key's entries stay short enough to sit side by side. */
    if (L->by_size)
        fprintf(g, "set xlabel \"size (bytes per call, log scale)%s\"\n",
                drawn ? "; dashed: the measuring CPU's caches (a copy "
                        "touches 2x its size)"
                      : "");
    fputs("\nplot \\\n", g);
    for (size_t j = 0; j < L->ns; j++) {
        line_label(L, j, label, sizeof label);
        fprintf(g, "    data index %zu using 1:2:3:4 with yerrorlines "
                   "lt %zu title ",
                j, j % NCOLORS + 1);
        put_str(g, label);
        fputs(j + 1 < L->ns ? ", \\\n" : "\n", g);
    }
}

/* ---- Matrix ------------------------------------------------------------ */

/* What the data of a matrix figure found: the range of the medians shown,
 * the cells marked as differing from the reference, by the run's test or
 * by disjoint intervals, the cells without samples, and the test's name. */
typedef struct tally {
    double vmin, vmax;
    size_t by_test, by_ci, marked, shown, missing;
    const char *test;
} tally;

/* The data of a matrix figure: one line per cell, a blank line after each
 * destination offset; *t receives what it found. */
static void matrix_data(fig *F, const matrix *m, tally *t)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;
    const sb_cell_result *ref = sb_run_cell(run, m->ref);
    double alpha = sb_run_analysis_options(run)->alpha;
    char size[32];

    dat_header(F,
               "src_index dst_index mbps_median mbps_ci_lo mbps_ci_hi "
               "src_align dst_align differs",
               "one line per cell, a blank line after each destination "
               "offset (gnuplot's image rows); differs: 1 when the cell "
               "differs significantly from the reference cell (see the "
               "script's key)");
    human_size(ref->cell.size, size, sizeof size);
    fputs("# ", d);
    put_comment(d, kernel_name(ref));
    fprintf(d, " %s, reference cell: src +%zu, dst +%zu\n", size,
            ref->cell.src_align, ref->cell.dst_align);
    for (size_t y = 0; y < m->h; y++) {
        fputc('\n', d);
        for (size_t x = 0; x < m->w; x++) {
            size_t i = m->first + y * m->w + x;
            const sb_cell_result *r = sb_run_cell(run, i);
            const sb_comparison *c = sb_run_comparison(run, i);
            int differs = 0, ok = has_mbps(r);
            if (ok && i != m->ref && has_mbps(ref)) {
                if (c && c->base == m->ref && isfinite(c->p_adjusted)) {
                    /* The run's own test against the reference cell. */
                    differs = c->p_adjusted < alpha;
                    t->by_test++;
                    if (!t->test)
                        t->test = c->test;
                } else {
                    differs = r->mbps.hi < ref->mbps.lo ||
                              r->mbps.lo > ref->mbps.hi;
                    t->by_ci++;
                }
            }
            t->marked += differs;
            t->missing += !ok;
            if (ok) {
                t->shown++;
                if (r->mbps.estimate < t->vmin)
                    t->vmin = r->mbps.estimate;
                if (r->mbps.estimate > t->vmax)
                    t->vmax = r->mbps.estimate;
            }
            fprintf(d, "%zu %zu ", x, y);
            put_num(d, ok ? r->mbps.estimate : NAN);
            fputc(' ', d);
            put_num(d, ok ? r->mbps.lo : NAN);
            fputc(' ', d);
            put_num(d, ok ? r->mbps.hi : NAN);
            fprintf(d, " %zu %zu %d\n", r->cell.src_align, r->cell.dst_align,
                    differs);
        }
    }
}

/* The tick labels of a matrix figure: the offsets themselves, at most
 * about 16 a side. */
static void matrix_tics(fig *F, const matrix *m)
{
    const sb_run *run = F->run;
    FILE *g = F->gp;

    for (int axis = 0; axis < 2; axis++) {
        size_t n = axis ? m->h : m->w;
        size_t every = (size_t)tick_step((double)n, 16);
        int first = 1;
        fprintf(g, "set %ctics (", axis ? 'y' : 'x');
        for (size_t k = 0; k < n; k += every) {
            const sb_cell *c =
                &sb_run_cell(run, m->first + (axis ? k * m->w : k))->cell;
            fprintf(g, "%s\"%zu\" %zu", first ? "" : ", ",
                    axis ? c->dst_align : c->src_align, k);
            first = 0;
        }
        fputs(")\n", g);
    }
}

static void write_matrix(fig *F, const matrix *m)
{
    const sb_run *run = F->run;
    FILE *g = F->gp;
    const sb_cell_result *ref = sb_run_cell(run, m->ref);
    double alpha = sb_run_analysis_options(run)->alpha;
    double level = 100 * sb_run_analysis_options(run)->ci_level;
    tally t = {INFINITY, -INFINITY, 0, 0, 0, 0, 0, NULL};
    char what[256], size[32], rule[320], refname[64], count[160];
    /* Small matrices show their values and outline the marked cells;
     * large ones mark them with a dot, which leaves the colour visible. */
    int small = m->w <= 12 && m->h <= 12;

    matrix_data(F, m, &t);
    human_size(ref->cell.size, size, sizeof size);
    snprintf(refname, sizeof refname, "(%zu, %zu)", ref->cell.src_align,
             ref->cell.dst_align);
    /* The rule goes into the key's title, the count into its entry. */
    if (t.by_test && t.by_ci)
        snprintf(rule, sizeof rule,
                 "marked: differs from %s, by the run's test (Holm-adjusted "
                 "p < %g) for %zu cells, else by disjoint %g%% CIs",
                 refname, alpha, t.by_test, level);
    else if (t.by_test)
        snprintf(rule, sizeof rule,
                 "marked: differs from %s by the run's test "
                 "(Holm-adjusted p < %g)",
                 refname, alpha);
    else
        snprintf(rule, sizeof rule,
                 "marked: differs from %s (their %g%% CIs do not overlap)",
                 refname, level);
    snprintf(count, sizeof count, "%zu of %zu cells differ from %s%s",
             t.marked, t.by_test + t.by_ci, refname,
             t.missing ? " (white: no samples)" : "");

    snprintf(what, sizeof what,
             "%s, %s: median throughput by source and destination offset",
             kernel_name(ref), size);
    gp_preamble(F);
    put_title(g, what, run);
    fputs("set xlabel \"source offset (bytes)\"\n"
          "set ylabel \"destination offset (bytes)\"\n"
          "set cblabel \"median throughput (MB/s, 1 MB = 10^6 B)\" "
          "offset 0.8, 0\n"
          "set rmargin 12\n"
          "set grid noxtics noytics\n"
          "set border 15\n"
          "set tics nomirror out scale 0.5\n",
          g);
    fprintf(g, "set xrange [-0.5:%g]\nset yrange [-0.5:%g]\n",
            (double)m->w - 0.5, (double)m->h - 0.5);
    matrix_tics(F, m);
    /* viridis: perceptually uniform, readable in greyscale. */
    fputs("set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', "
          "3 '#31688e', 4 '#26828e', 5 '#1f9e89', 6 '#35b779', "
          "7 '#6ece58', 8 '#b5de2b', 9 '#fde725')\n",
          g);
    if (t.shown && t.vmax > t.vmin)
        fprintf(g, "set cbrange [%.9g:%.9g]\n", t.vmin, t.vmax);
    if (t.test) {
        fprintf(g, "# The run's test against %s: ", refname);
        put_comment(g, t.test);
        fputs(".\n", g);
    }
    fputs("set key below title ", g);
    put_str(g, rule);
    fputs("\n", g);
    fprintf(g, "mid = %.9g\n",
            t.shown ? (t.vmin + t.vmax) / 2 : 0.0);
    /* "pixels": one rectangle per cell.  A bitmap would be scaled up,
     * and smoothed into a blur, by SVG and PDF viewers. */
    fputs("\nplot data using 1:2:3 with image pixels notitle, \\\n", g);
    if (small)
        fputs("    data using 1:2:(sprintf('%.0f', $3)):"
              "($3 < mid ? 0xffffff : 0x000000) with labels "
              "tc rgb variable font \",9\" notitle, \\\n"
              "    data using ($8 > 0 ? $1 : NaN):2:(0.46):(0.46) "
              "with boxxyerror fs empty lc rgb '#e8112d' lw 3 title ",
              g);
    else
        fputs("    data using ($8 > 0 ? $1 : NaN):2 with points pt 7 "
              "ps 0.8 lc rgb 'white' notitle, \\\n"
              "    data using ($8 > 0 ? $1 : NaN):2 with points pt 7 "
              "ps 0.5 lc rgb '#e8112d' title ",
              g);
    put_str(g, count);
    fputs("\n", g);
}

/* The data of a distribution figure: block 0 the reported medians and
 * intervals of the nsel cells sel, then every kept sample of each cell
 * with its invocation.  *lo and *hi receive the range of the samples. */
static void dist_data(fig *F, const size_t *sel, size_t nsel, double *lo,
                      double *hi)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;

    dat_header(F,
               "block 0: position median ci_lo ci_hi samples invocations "
               "size src_align dst_align (one line per cell, ticks per "
               "call); blocks 1..N: ticks invocation (every kept sample of "
               "cell N)",
               "blocks separated by two blank lines (gnuplot's index)");
    fputs("\n\n# block 0: the reported median and its interval\n", d);
    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        fprintf(d, "%zu ", j + 1);
        put_num(d, r->interval.estimate);
        fputc(' ', d);
        put_num(d, r->interval.lo);
        fputc(' ', d);
        put_num(d, r->interval.hi);
        fprintf(d, " %zu %zu %zu %zu %zu\n", r->nsamples, r->invocations,
                r->cell.size, r->cell.src_align, r->cell.dst_align);
    }
    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        size_t k = 0;
        fprintf(d, "\n\n# block %zu: ", j + 1);
        put_comment(d, kernel_name(r));
        fprintf(d, " size %zu src %zu dst %zu\n", r->cell.size,
                r->cell.src_align, r->cell.dst_align);
        /* Samples come invocation after invocation. */
        for (size_t inv = 0; k < r->nsamples; inv++) {
            size_t end = r->nsamples;
            if (r->inv_nsamples && inv + 1 < r->invocations &&
                r->inv_nsamples[inv] < r->nsamples - k)
                end = k + r->inv_nsamples[inv];
            for (; k < end; k++) {
                double v = r->ticks[k];
                put_num(d, v);
                fprintf(d, " %zu\n", inv);
                if (v < *lo)
                    *lo = v;
                if (v > *hi)
                    *hi = v;
            }
        }
    }
}

/* The tick labels of a distribution figure: one line per varying part
 * under each box, or on one line, slanted, when the lines would run into
 * each other (about 8 pixels a character at 11 points over some 800
 * pixels). */
static void dist_xtics(fig *F, const size_t *sel, size_t nsel,
                       int label_kernel, int vary_size, int vary_offsets)
{
    const sb_run *run = F->run;
    FILE *g = F->gp;
    char labels[DIST_MAX_CELLS][160];
    size_t widest = 0, nlines = 1;
    int slant;

    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        char *label = labels[j], part[48];
        size_t n = 0;
        label[0] = '\0';
        if (label_kernel)
            append(label, sizeof labels[j], "\n", kernel_name(r));
        if (vary_size) {
            human_size(r->cell.size, part, sizeof part);
            append(label, sizeof labels[j], "\n", part);
        }
        if (vary_offsets) {
            snprintf(part, sizeof part, "+%zu/+%zu", r->cell.src_align,
                     r->cell.dst_align);
            append(label, sizeof labels[j], "\n", part);
        }
        for (const char *p = label; *p; p += strcspn(p, "\n"),
                        p += *p ? 1 : 0, n++) {
            size_t len = strcspn(p, "\n");
            if (len > widest)
                widest = len;
        }
        if (n > nlines)
            nlines = n;
    }
    slant = (widest + 1) * 8 * nsel > 760;
    fputs("set xtics (", g);
    for (size_t j = 0; j < nsel; j++) {
        const char *p = labels[j];
        fputs(j ? ", " : "", g);
        /* put_str would hide the newlines: write the label by lines,
         * joined by newlines or, slanted, by blanks. */
        for (int first = 1;; first = 0) {
            size_t len = strcspn(p, "\n");
            char piece[160];
            snprintf(piece, sizeof piece, "%.*s", (int)len, p);
            if (!first)
                fputs(slant ? ".' '." : ".\"\\n\".", g);
            put_str(g, piece);
            p += len;
            if (!*p)
                break;
            p++;
        }
        fprintf(g, " %zu", j + 1);
    }
    /* Names may hold '_' or '^', which enhanced text would typeset. */
    fprintf(g, ") noenhanced%s\n", slant ? " rotate by 30 right" : "");
    if (vary_offsets)
        fprintf(g,
                "set xlabel \"cells: +source/+destination offset "
                "(bytes)\"%s\n",
                !slant && nlines > 1 ? " offset 0, -0.6" : "");
}

/* ---- Distribution ------------------------------------------------------ */

static void write_distribution(fig *F, const size_t *sel, size_t nsel,
                               size_t nwith)
{
    const sb_run *run = F->run;
    const sb_meta *meta = sb_run_meta(run);
    FILE *g = F->gp;
    int vary_kernel = 0, vary_size = 0, vary_src = 0, vary_dst = 0;
    double lo = INFINITY, hi = -INFINITY;
    char what[320], heading[160], common[192] = "";
    const sb_cell_result *r0 = sb_run_cell(run, sel[0]);
    int label_kernel;
    char unit[64];

    for (size_t j = 1; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        vary_kernel |= strcmp(kernel_name(r), kernel_name(r0)) != 0;
        vary_size |= r->cell.size != r0->cell.size;
        vary_src |= r->cell.src_align != r0->cell.src_align;
        vary_dst |= r->cell.dst_align != r0->cell.dst_align;
    }

    dist_data(F, sel, nsel, &lo, &hi);
    if (sb_run_imported(run))
        snprintf(unit, sizeof unit, "value per sample (the input's unit)");
    else
        snprintf(unit, sizeof unit, "time per call (%s)",
                 sb__timer_kind_of(meta->timer.kind)->axis);
    /* What all boxes share goes into the title, the rest under them. */
    label_kernel = vary_kernel || !(vary_size || vary_src || vary_dst);
    if (!label_kernel)
        append(common, sizeof common, ", ", kernel_name(r0));
    if (!vary_size && !sb_run_imported(run)) {
        char size[32];
        human_size(r0->cell.size, size, sizeof size);
        append(common, sizeof common, ", ", size);
    }
    if (nsel < nwith)
        snprintf(what, sizeof what,
                 "%s%sdistribution of the samples (first %zu of %zu cells)",
                 common, common[0] ? ": " : "", nsel, nwith);
    else
        snprintf(what, sizeof what, "%s%sdistribution of the samples%s",
                 common, common[0] ? ": " : "", nsel > 1 ? " per cell" : "");
    gp_preamble(F);
    put_title(g, what, run);
    fprintf(g, "set ylabel \"%s\"\n", unit);
    fputs("set grid noxtics ytics\n"
          "set style data boxplot\n"
          "set style boxplot outliers pointtype 7 range 1.5\n"
          "set boxwidth 0.5\n"
          "set style fill solid 0.25 border\n"
          "set key below horizontal\n",
          g);
    fprintf(g, "set xrange [0.4:%g]\n", (double)nsel + 0.6);
    if (lo > 0 && hi / lo > 30)
        fputs("set logscale y\n", g);
    else
        fputs("set offsets 0, 0, graph 0.05, graph 0.05\n", g);
    dist_xtics(F, sel, nsel, label_kernel, vary_size, vary_src || vary_dst);
    if (r0->invocations > 1)
        snprintf(heading, sizeof heading,
                 "reported median, %g%% CI over %zu invocations' medians",
                 100 * sb_run_analysis_options(run)->ci_level,
                 r0->invocations);
    else
        snprintf(heading, sizeof heading, "reported median, %g%% CI",
                 100 * sb_run_analysis_options(run)->ci_level);
    fprintf(g, "\nn = %zu\nplot \\\n", nsel);
    fputs("    for [i=1:n] data index i using (i):1 lt i "
          "title (i == 1 ? \"samples: box quartiles, whiskers to 1.5 IQR, "
          "dots beyond\" : \"\"), \\\n",
          g);
    fputs("    data index 0 using ($1 + 0.36):2:3:4 with yerrorbars "
          "lc rgb 'black' pt 7 ps 0.6 lw 1.5 title ",
          g);
    put_str(g, heading);
    fputs("\n", g);
}

/* ---- Running gnuplot ---------------------------------------------------- */

/* The program to run: name with a '/' as given, else looked up in PATH;
 * NULL (no name) is "gnuplot" from PATH, then the one configure found.
 * Returns a new string, or NULL when there is none. */
static char *find_gnuplot(const char *name)
{
    char *found = sb__find_program(name ? name : "gnuplot",
                                   "/usr/local/bin:/usr/bin:/bin");

    if (found || name)
        return found;
#ifdef SB_GNUPLOT_PATH
    {
        const char *configured = SB_GNUPLOT_PATH;
        if (!name && configured[0] && access(configured, X_OK) == 0)
            return strdup(configured);
    }
#endif
    return NULL;
}

/* The line of gnuplot's stderr that says what went wrong: the one naming
 * the script's line ("fig.gp" line 12: ...), else the first that is not
 * blank, an echo of the script or the caret under it. */
static void first_error_line(const char *text, char *buf, size_t len)
{
    const char *p = text, *pick = NULL;
    size_t picklen = 0;

    buf[0] = '\0';
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        if (q < p + n && *q != '^') {
            int names_line = memchr(p, '"', n) && strstr(p, " line ") &&
                             strstr(p, " line ") < p + n;
            if (names_line || !pick) {
                pick = p;
                picklen = n;
                if (names_line)
                    break;
            }
        }
        p += n;
        if (*p)
            p++;
    }
    if (pick)
        snprintf(buf, len, "%.*s", (int)picklen, pick);
    /* gnuplot echoes the script's line, names and all. */
    for (char *q = buf; *q; q++)
        if (is_ctrl((unsigned char)*q))
            *q = '?';
}

/* gnuplot's two arguments: "out='tmp'" for -e and the script's name, in
 * *setout and *scriptarg (malloc'ed).  SB_ENOMEM leaves neither. */
static int gnuplot_args(const char *script, const char *tmp, char **setout,
                        char **scriptarg)
{
    /* out='tmp' with the quote doubled, as gnuplot's single quotes want. */
    *setout = malloc(2 * strlen(tmp) + 18);
    *scriptarg = malloc(strlen(script) + 3);
    if (!*setout || !*scriptarg) {
        free(*setout);
        free(*scriptarg);
        return SB_ENOMEM;
    }
    {
        /* "./" before a relative name: see the script's dir above. */
        char *o = *setout + sprintf(*setout, "out='%s",
                                    tmp[0] == '/' ? "" : "./");
        for (const char *p = tmp; *p; p++) {
            if (*p == '\'')
                *o++ = '\'';
            *o++ = *p;
        }
        strcpy(o, "'");
    }
    /* A script named "-x.gp" would read as an option, and one named
     * "<x.gp" or "|x.gp" would give the script a dir that gnuplot reads
     * as a command: "./" before every relative name. */
    sprintf(*scriptarg, "%s%s", script[0] == '/' ? "" : "./", script);
    return SB_OK;
}

/* Start prog with argv, its stdin and stdout on /dev/null and its stderr
 * on errfd.  Returns posix_spawn's status (0, or an errno). */
static int spawn_gnuplot(const char *prog, char *const argv[], int errfd,
                         pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dflt;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    /* gnuplot starts with no signal blocked and the usual dispositions,
     * whatever the caller set up for itself (a SIGINT handler, say). */
    posix_spawnattr_init(&attr);
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGCHLD);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dflt);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(pid, prog, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Read fd to its end into text (size bytes, NUL-terminated), keeping the
 * beginning: gnuplot must never block on a full pipe. */
static void read_stderr(int fd, char *text, size_t size)
{
    size_t used = 0;

    for (;;) {
        char chunk[1024];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (used < size - 1) {
            size_t take = (size_t)n < size - 1 - used ? (size_t)n
                                                      : size - 1 - used;
            memcpy(text + used, chunk, take);
            used += take;
        }
    }
    text[used] = '\0';
}

/* Run prog on the script with out set to tmp; collect stderr.  Returns
 * SB_OK; SB_EUNAVAIL when prog cannot be run (the script can still be
 * rendered elsewhere); SB_EIO when it ran and failed: no figure, an
 * error. */
static int run_gnuplot(const char *prog, const char *script, const char *tmp,
                       const char *hint, sb_error *err)
{
    int pfd[2], rc, status = 0;
    pid_t pid;
    char *setout, *argv[5], *scriptarg;
    char text[4096], line[200];

    if (gnuplot_args(script, tmp, &setout, &scriptarg) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    argv[0] = (char *)prog;
    argv[1] = "-e";
    argv[2] = setout;
    argv[3] = scriptarg;
    argv[4] = NULL;

    if (pipe(pfd) != 0) {
        int e = errno;
        free(setout);
        free(scriptarg);
        return sb__error(err, SB_EUNAVAIL,
                         "cannot run gnuplot (pipe: %s): render with "
                         "`%s`",
                         strerror(e), hint);
    }
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    rc = spawn_gnuplot(prog, argv, pfd[1], &pid);
    close(pfd[1]);
    free(setout);
    free(scriptarg);
    if (rc != 0) {
        close(pfd[0]);
        return sb__error(err, SB_EUNAVAIL,
                         "gnuplot not found (%s: %s): render with `%s`", prog,
                         strerror(rc), hint);
    }
    read_stderr(pfd[0], text, sizeof text);
    close(pfd[0]);
    while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    first_error_line(text, line, sizeof line);
    if (rc < 0) {
        /* The caller ignores SIGCHLD, so the status is lost: judge by the
         * figure (the caller checks that it is there). */
        return SB_OK;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SB_OK;
    if (WIFEXITED(status))
        return sb__error(err, SB_EIO,
                         "gnuplot failed (exit status %d)%s%s; the script "
                         "is %s",
                         WEXITSTATUS(status), line[0] ? ": " : "", line,
                         script);
    return sb__error(err, SB_EIO,
                     "gnuplot failed (signal %d)%s%s; the script is %s",
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                     line[0] ? ": " : "", line, script);
}

/* "gnuplot PATH", PATH in single quotes when a shell would split or
 * expand it: the command the error message tells the user to run. */
static char *shell_command(const char *path)
{
    size_t n = strlen(path);
    int plain = n > 0 && path[0] != '-';
    char *s, *o;

    for (const char *p = path; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._/+-,:@%", *p))
            plain = 0;
    s = malloc(4 * n + 16);
    if (!s)
        return NULL;
    o = s + sprintf(s, "gnuplot ");
    if (plain) {
        strcpy(o, path);
        return s;
    }
    if (strchr("-<|", path[0])) { /* an option, or a command to gnuplot */
        strcpy(o, "./");
        o += 2;
    }
    *o++ = '\'';
    for (const char *p = path; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else
            *o++ = *p;
    }
    strcpy(o, "'");
    return s;
}

/* ---- Files made safely ------------------------------------------------- */

/* Open a new file for final (sb__replace_begin) as a stdio stream. */
static FILE *open_beside(const char *final, char **tmp, sb_error *err)
{
    int fd = sb__replace_begin(final, (mode_t)-1, tmp), e;
    FILE *f;

    if (fd < 0) {
        sb__error(err, SB_EIO, "cannot write %s: %s", final,
                  strerror(errno));
        return NULL;
    }
    f = fdopen(fd, "w");
    if (!f) {
        e = errno;
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        sb__error(err, SB_EIO, "cannot write %s: %s", final, strerror(e));
    }
    return f;
}

/* A path that is there but is neither a regular file nor a symbolic link
 * (a directory, a device, a FIFO) is refused before anything is written:
 * the rename below would replace a device node with a plain file. */
static int check_target(const char *path, sb_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
        return SB_OK;
    return sb__error(err, SB_EINVAL,
                     "%s: %s, not a regular file (a figure's files are "
                     "written anew and renamed into place)",
                     path, S_ISDIR(st.st_mode) ? "a directory"
                                               : "a device, FIFO or socket");
}

/* Put a finished file in place (sb__replace_commit). */
static int put_in_place(char **tmp, const char *final, sb_error *err)
{
    if (sb__replace_commit(tmp, final) != 0)
        return sb__error(err, SB_EIO, "cannot write %s: %s", final,
                         strerror(errno));
    return SB_OK;
}

/* ---- The entry point ---------------------------------------------------- */

static int close_file(FILE **f, const char *path, sb_error *err)
{
    int bad = ferror(*f), e = errno;
    if (fclose(*f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    *f = NULL;
    if (bad)
        return sb__error(err, SB_EIO, "cannot write %s: %s", path,
                         strerror(e ? e : EIO));
    return SB_OK;
}

/* Close what is open and remove what was not put in place: a failed
 * figure leaves no partial file behind. */
static void fig_free(fig *F)
{
    if (F->gp)
        fclose(F->gp);
    if (F->dat)
        fclose(F->dat);
    if (F->gp_tmp)
        unlink(F->gp_tmp);
    if (F->dat_tmp)
        unlink(F->dat_tmp);
    free(F->gp_tmp);
    free(F->dat_tmp);
    free(F->stem);
    free(F->gp_path);
    free(F->dat_path);
}

/* Which figure: the one asked for, or under SB_PLOT_AUTO the first of
 * matrix, sizes, sweep and distribution with something to draw. */
static int choose(const sb_run *run, int kind, matrix *m, lines *L,
                  size_t *sel, size_t *nsel, size_t *nwith, sb_error *err)
{
    /* A size figure and a sweep are both lines, over sizes or offsets. */
    static const struct {
        int kind, by_size;
        const char *why;
    } line_kinds[] = {
        {SB_PLOT_SIZES, 1,
         "a size figure needs a kernel measured at two sizes or more"},
        {SB_PLOT_SWEEP, 0,
         "a sweep needs a kernel measured at two source offsets or more"},
    };
    int rc;

    if (kind == SB_PLOT_AUTO || kind == SB_PLOT_MATRIX) {
        if (matrix_find(run, m))
            return SB_PLOT_MATRIX;
        if (kind == SB_PLOT_MATRIX)
            return sb__error(err, SB_EINVAL,
                             "nothing to plot: no kernel and size was "
                             "measured at every pair of two or more source "
                             "and destination offsets (a full matrix)");
    }
    for (size_t i = 0; i < sizeof line_kinds / sizeof *line_kinds; i++) {
        if (kind != SB_PLOT_AUTO && kind != line_kinds[i].kind)
            continue;
        if ((rc = lines_build(run, line_kinds[i].by_size, L)) != SB_OK)
            return sb__error(err, rc, "out of memory");
        if (L->multi)
            return line_kinds[i].kind;
        lines_free(L);
        if (kind == line_kinds[i].kind)
            return sb__error(err, SB_EINVAL, "nothing to plot: %s",
                             line_kinds[i].why);
    }
    *nsel = *nwith = 0;
    for (size_t i = 0; i < sb_run_count(run); i++) {
        if (!has_samples(sb_run_cell(run, i)))
            continue;
        if (*nsel < DIST_MAX_CELLS)
            sel[(*nsel)++] = i;
        (*nwith)++;
    }
    if (!*nsel)
        return sb__error(err, SB_EINVAL,
                         "nothing to plot: no cell has finite samples");
    return SB_PLOT_DISTRIBUTION;
}

/* The figure's format from the ending of path (.svg, .pdf or .png, in
 * any case), with *dotp at the ending's dot; a negative SB_ error with err
 * filled for a name with a control character or without such an ending. */
static int figure_term(const char *path, const char **dotp, sb_error *err)
{
    const char *slash, *dot;

    for (const char *p = path; *p; p++)
        if (is_ctrl((unsigned char)*p))
            return sb__error(err, SB_EINVAL,
                             "%s: a control character in the file name",
                             path);
    slash = strrchr(path, '/');
    *dotp = dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot || dot == (slash ? slash + 1 : path))
        return sb__error(err, SB_EINVAL,
                         "%s: no ending to choose the figure's format by "
                         "(.svg, .pdf or .png)",
                         path);
    if (!strcasecmp(dot, ".svg"))
        return TERM_SVG;
    if (!strcasecmp(dot, ".pdf"))
        return TERM_PDF;
    if (!strcasecmp(dot, ".png"))
        return TERM_PNG;
    return sb__error(err, SB_EINVAL,
                     "%s: unknown figure ending \"%s\" (use .svg, .pdf "
                     "or .png)",
                     path, dot);
}

/* The figure's data and script, each written under a new name beside it
 * and renamed into place; SB_OK or an SB_ error with err filled. */
static int write_files(fig *F, const matrix *m, const lines *L,
                       const size_t *sel, size_t nsel, size_t nwith,
                       sb_error *err)
{
    locale_t c_locale, old = (locale_t)0;
    int rc;

    /* Each file is written under a new name beside it and renamed into
     * place when complete: nothing is written through a link at the
     * final names, and a failure leaves no half-written file. */
    F->dat = open_beside(F->dat_path, &F->dat_tmp, err);
    if (!F->dat)
        return SB_EIO;
    F->gp = open_beside(F->gp_path, &F->gp_tmp, err);
    if (!F->gp)
        return SB_EIO;
    /* Numbers in the C locale whatever the caller's LC_NUMERIC. */
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_locale)
        old = uselocale(c_locale);
    switch (F->kind) {
    case SB_PLOT_MATRIX:
        write_matrix(F, m);
        break;
    case SB_PLOT_SIZES:
    case SB_PLOT_SWEEP:
        write_lines(F, L);
        break;
    default:
        write_distribution(F, sel, nsel, nwith);
        break;
    }
    if (c_locale) {
        uselocale(old);
        freelocale(c_locale);
    }
    rc = close_file(&F->dat, F->dat_path, err);
    if (rc == SB_OK)
        rc = close_file(&F->gp, F->gp_path, err);
    if (rc == SB_OK)
        rc = put_in_place(&F->dat_tmp, F->dat_path, err);
    if (rc == SB_OK)
        rc = put_in_place(&F->gp_tmp, F->gp_path, err);
    return rc;
}

int sb_plot(const sb_run *run, const char *path, int kind,
            const char *gnuplot, sb_error *err)
{
    fig F = {0};
    matrix m = {0};
    lines L = {0};
    size_t sel[DIST_MAX_CELLS], nsel = 0, nwith = 0;
    const char *dot = NULL;
    char *prog = NULL, *tmp = NULL, *hint = NULL;
    int rc, fd = -1;
    struct stat st, lst;

    if (!run || sb_run_count(run) == 0)
        return sb__error(err, SB_EINVAL, "sb_plot: no run");
    if (!path || !*path)
        return sb__error(err, SB_EINVAL, "sb_plot: no file name");
    if (kind < SB_PLOT_AUTO || kind > SB_PLOT_DISTRIBUTION)
        return sb__error(err, SB_EINVAL, "sb_plot: unknown figure kind %d",
                         kind);
    rc = figure_term(path, &dot, err);
    if (rc < 0)
        return rc;
    F.term = rc;
    sb_init();

    rc = choose(run, kind, &m, &L, sel, &nsel, &nwith, err);
    if (rc < 0)
        return rc;
    F.kind = rc;
    F.run = run;
    F.ending = dot + 1;
    F.stem = strdup(path);
    if (F.stem)
        F.stem[dot - path] = '\0';
    F.gp_path = F.stem ? concat(F.stem, ".gp") : NULL;
    F.dat_path = F.stem ? concat(F.stem, ".dat") : NULL;
    hint = F.gp_path ? shell_command(F.gp_path) : NULL;
    if (!F.stem || !F.gp_path || !F.dat_path || !hint) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto out;
    }
    F.name = strrchr(F.stem, '/') ? strrchr(F.stem, '/') + 1 : F.stem;
    if ((rc = check_target(F.dat_path, err)) != SB_OK ||
        (rc = check_target(F.gp_path, err)) != SB_OK ||
        (rc = check_target(path, err)) != SB_OK)
        goto out;

    rc = write_files(&F, &m, &L, sel, nsel, nwith, err);
    if (rc != SB_OK)
        goto out;

    prog = find_gnuplot(gnuplot);
    if (!prog) {
        rc = sb__error(err, SB_EUNAVAIL,
                       "gnuplot not found%s%s%s: render with `%s`",
                       gnuplot ? " (" : "", gnuplot ? gnuplot : "",
                       gnuplot ? ")" : "", hint);
        goto out;
    }
    /* gnuplot draws into a new file of ours (it opens the name, which
     * is ours alone), renamed into place when gnuplot has finished and
     * the file is still the one made here: a failed run leaves no
     * half-drawn figure behind. */
    fd = sb__replace_begin(path, (mode_t)-1, &tmp);
    if (fd < 0) {
        rc = sb__error(err, SB_EIO, "cannot write %s: %s", path,
                       strerror(errno));
        goto out;
    }
    rc = run_gnuplot(prog, F.gp_path, tmp, hint, err);
    if (rc == SB_OK &&
        (fstat(fd, &st) != 0 || lstat(tmp, &lst) != 0 ||
         !S_ISREG(lst.st_mode) || lst.st_dev != st.st_dev ||
         lst.st_ino != st.st_ino))
        rc = sb__error(err, SB_EIO,
                       "%s: the figure's temporary file was replaced while "
                       "gnuplot drew it",
                       path);
    if (rc == SB_OK && st.st_size == 0)
        rc = sb__error(err, SB_EIO,
                       "gnuplot drew nothing into %s; the script is %s", path,
                       F.gp_path);
    if (rc == SB_OK && rename(tmp, path) != 0)
        rc = sb__error(err, SB_EIO, "cannot write %s: %s", path,
                       strerror(errno));
    if (rc != SB_OK)
        unlink(tmp);
out:
    if (fd >= 0)
        close(fd);
    lines_free(&L);
    fig_free(&F);
    free(prog);
    free(tmp);
    free(hint);
    return rc;
}
