/*
 * report/figure_script.c: what every figure's script and data file
 * share: the words and numbers of labels, the title, the script's
 * beginning (where its files are, the terminal, the style) and the data
 * file's header.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figure.h"

/* Line colours: the Okabe-Ito palette, which readers with the common
 * colour-vision deficiencies can still tell apart, with Tol's wine for
 * its yellow (too faint on white).  Point types differ too, for
 * greyscale print. */
static const char *const line_colors[] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7",
    "#E69F00", "#56B4E9", "#000000", "#882255",
};
static const int line_points[] = {7, 5, 9, 13, 11, 15, 6, 4};
_Static_assert(sizeof line_colors / sizeof line_colors[0] ==
                       SB__FIG_NCOLORS &&
                   sizeof line_points / sizeof line_points[0] ==
                       SB__FIG_NCOLORS,
               "one colour and one point type per line type");

/* ---- Small helpers --------------------------------------------------- */

const char *sb__fig_color(size_t j)
{
    return line_colors[j % SB__FIG_NCOLORS];
}

const char *sb__fig_kernel_name(const sb_cell_result *r)
{
    return r->cell.kernel && r->cell.kernel->name ? r->cell.kernel->name
                                                  : "?";
}

/* "10 KiB" for whole multiples of 1024, else "1000 B". */
void sb__fig_human_size(size_t v, char *buf, size_t len)
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

/* Append to a fixed buffer, parts joined by sep.  A control character in
 * part (a name may hold one) becomes '?': sep alone may bring a newline,
 * which the distribution's tick labels split at. */
void sb__fig_append(char *buf, size_t len, const char *sep, const char *part)
{
    size_t used = strlen(buf);
    char *p;
    if (used >= len - 1)
        return;
    p = buf + used + strlen(used ? sep : "");
    snprintf(buf + used, len - used, "%s%s", used ? sep : "", part);
    for (; p < buf + len && *p; p++)
        if (sb__fig_is_ctrl((unsigned char)*p))
            *p = '?';
}

/* A cell whose samples can be drawn: some, one of them at least finite,
 * and a finite median. */
int sb__fig_has_samples(const sb_cell_result *r)
{
    if (r->nsamples == 0 || !r->ticks || !isfinite(r->interval.estimate))
        return 0;
    for (size_t k = 0; k < r->nsamples; k++)
        if (isfinite(r->ticks[k]))
            return 1;
    return 0;
}

/* A cell whose throughput can be drawn. */
int sb__fig_has_mbps(const sb_cell_result *r)
{
    return r->nsamples > 0 && r->cell.size > 0 && isfinite(r->mbps.estimate);
}

/* The smallest power of two step that gives at most max ticks. */
double sb__fig_tick_step(double range, double max)
{
    double s = 1;
    while (range / s > max)
        s *= 2;
    return s;
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
        sb__fig_append(buf, len, "; ", m->cpu_model);
    sb__fig_append(buf, len, "; ",
           sb_run_measure_options(run)->cache == SB_CACHE_COLD
               ? "cold cache"
               : "hot cache");
}

/* The key's heading for throughput figures: "median, 95% CI (6
 * invocations)". */
void sb__fig_ci_heading(const sb_run *run, char *buf, size_t len)
{
    double level = 100 * sb_run_analysis_options(run)->ci_level;
    if (sb_run_invocations(run) > 1)
        snprintf(buf, len, "median, %g%% CI (%zu invocations)", level,
                 sb_run_invocations(run));
    else
        snprintf(buf, len, "median, %g%% CI", level);
}

void sb__fig_put_title(FILE *f, const char *what, const sb_run *run)
{
    char machine[256];
    machine_line(run, machine, sizeof machine);
    fputs("set title ", f);
    sb__fig_put_str(f, what);
    if (machine[0]) {
        fputs(".\"\\n\".", f);
        sb__fig_put_str(f, machine);
    }
    fputs(" noenhanced\n", f);
}

/* The script's beginning: where its files are, the terminal, the style. */
void sb__fig_preamble(sb__fig *F)
{
    FILE *f = F->gp;
    const char *cmd = sb_run_command(F->run);

    fprintf(f, "# statbench %s: %s figure, for gnuplot 5.2 or newer.\n",
            sb_version(), F->what ? F->what : sb_plot_kind_name(F->kind));
    fputs("# run: ", f);
    sb__fig_put_comment(f, cmd ? cmd : "");
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
    sb__fig_put_str(f, F->name);
    fputs(".'.dat'\n", f);
    fputs("if (!exists(\"out\")) { out = dir.", f);
    sb__fig_put_str(f, F->name);
    fputc('.', f);
    /* ".svg": checked, but quoted all the same. */
    sb__fig_put_str(f, F->ending - 1);
    fputs(" }\n\n", f);

    fputs("set encoding utf8\n", f);
    switch (F->term) {
    case SB__FIG_SVG:
        fputs("set terminal svg size 900,560 dynamic enhanced "
              "font \"sans,11\" background rgb 'white'\n",
              f);
        break;
    case SB__FIG_PDF:
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
    for (size_t i = 0; i < SB__FIG_NCOLORS; i++)
        fprintf(f, "set linetype %zu lc rgb '%s' lw 1.5 pt %d ps 0.7\n",
                i + 1, line_colors[i], line_points[i]);
    fprintf(f, "set linetype cycle %zu\n\n", SB__FIG_NCOLORS);
}

/* The data file's header: what it is and its columns. */
void sb__fig_dat_header(sb__fig *F, const char *columns, const char *blocks)
{
    FILE *f = F->dat;
    const char *cmd = sb_run_command(F->run);
    fprintf(f, "# statbench %s: data of a %s figure (%s.gp draws it)\n",
            sb_version(), sb_plot_kind_name(F->kind), F->name);
    fputs("# run: ", f);
    sb__fig_put_comment(f, cmd ? cmd : "");
    fputc('\n', f);
    if (!sb_run_imported(F->run)) {
        fputs("# cpu: ", f);
        sb__fig_put_comment(f, sb_run_meta(F->run)->cpu_model);
        fputc('\n', f);
    }
    fprintf(f, "# columns: %s\n", columns);
    fprintf(f, "# %s\n", blocks);
}
