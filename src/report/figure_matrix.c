/*
 * report/figure_matrix.c: the matrix figure: the median throughput of
 * one kernel and size by source and destination offset, with the cells
 * that differ from the aligned one marked.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "figure.h"

/* The first full matrix with something to draw; 0 when there is none. */
int sb__fig_matrix_find(const sb_run *run, sb__fig_matrix *m)
{
    size_t n = sb_run_count(run);
    for (size_t i = 0; i < n;) {
        size_t e = sb__group_end(run, i), w = sb__matrix_width(run, i, e);
        int any = 0;
        for (size_t j = i; w && j < e; j++)
            any |= sb__fig_has_mbps(sb_run_cell(run, j));
        if (w && any) {
            *m = (sb__fig_matrix){
                .first = i, .end = e, .w = w, .h = (e - i) / w, .ref = i};
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
static void matrix_data(sb__fig *F, const sb__fig_matrix *m, tally *t)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;
    const sb_cell_result *ref = sb_run_cell(run, m->ref);
    double alpha = sb_run_analysis_options(run)->alpha;
    char size[32];

    sb__fig_dat_header(
        F,
        "src_index dst_index mbps_median mbps_ci_lo mbps_ci_hi "
        "src_align dst_align differs",
        "one line per cell, a blank line after each destination "
        "offset (gnuplot's image rows); differs: 1 when the cell "
        "differs significantly from the reference cell (see the "
        "script's key)");
    sb__fig_human_size(ref->cell.size, size, sizeof size);
    fputs("# ", d);
    sb__fig_put_comment(d, sb__fig_kernel_name(ref));
    fprintf(d, " %s, reference cell: src +%zu, dst +%zu\n", size,
            ref->cell.src_align, ref->cell.dst_align);
    for (size_t y = 0; y < m->h; y++) {
        fputc('\n', d);
        for (size_t x = 0; x < m->w; x++) {
            size_t i = m->first + y * m->w + x;
            const sb_cell_result *r = sb_run_cell(run, i);
            const sb_comparison *c = sb_run_comparison(run, i);
            int differs = 0, ok = sb__fig_has_mbps(r);
            if (ok && i != m->ref && sb__fig_has_mbps(ref)) {
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
            sb__fig_put_num(d, ok ? r->mbps.estimate : NAN);
            fputc(' ', d);
            sb__fig_put_num(d, ok ? r->mbps.lo : NAN);
            fputc(' ', d);
            sb__fig_put_num(d, ok ? r->mbps.hi : NAN);
            fprintf(d, " %zu %zu %d\n", r->cell.src_align, r->cell.dst_align,
                    differs);
        }
    }
}

/* The tick labels of a matrix figure: the offsets themselves, at most
 * about 16 a side. */
static void matrix_tics(sb__fig *F, const sb__fig_matrix *m)
{
    const sb_run *run = F->run;
    FILE *g = F->gp;

    for (int axis = 0; axis < 2; axis++) {
        size_t n = axis ? m->h : m->w;
        size_t every = (size_t)sb__fig_tick_step((double)n, 16);
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

void sb__fig_write_matrix(sb__fig *F, const sb__fig_matrix *m)
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
    sb__fig_human_size(ref->cell.size, size, sizeof size);
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
             sb__fig_kernel_name(ref), size);
    sb__fig_preamble(F);
    sb__fig_put_title(g, what, run);
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
        sb__fig_put_comment(g, t.test);
        fputs(".\n", g);
    }
    fputs("set key below title ", g);
    sb__fig_put_str(g, rule);
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
    sb__fig_put_str(g, count);
    fputs("\n", g);
}
