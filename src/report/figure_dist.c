/*
 * report/figure_dist.c: the distribution figure: a box of each cell's
 * kept samples beside the reported median and its interval.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "figure.h"

/* The data of a distribution figure: block 0 the reported medians and
 * intervals of the nsel cells sel, then every kept sample of each cell
 * with its invocation.  *lo and *hi receive the range of the samples. */
static void dist_data(sb__fig *F, const size_t *sel, size_t nsel, double *lo,
                      double *hi)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;

    sb__fig_dat_header(
        F,
        "block 0: position median ci_lo ci_hi samples invocations "
        "size src_align dst_align (one line per cell, ticks per "
        "call); blocks 1..N: ticks invocation (every kept sample of "
        "cell N)",
        "blocks separated by two blank lines (gnuplot's index)");
    fputs("\n\n# block 0: the reported median and its interval\n", d);
    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        fprintf(d, "%zu ", j + 1);
        sb__fig_put_num(d, r->interval.estimate);
        fputc(' ', d);
        sb__fig_put_num(d, r->interval.lo);
        fputc(' ', d);
        sb__fig_put_num(d, r->interval.hi);
        fprintf(d, " %zu %zu %zu %zu %zu\n", r->nsamples, r->invocations,
                r->cell.size, r->cell.src_align, r->cell.dst_align);
    }
    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        size_t k = 0;
        fprintf(d, "\n\n# block %zu: ", j + 1);
        sb__fig_put_comment(d, sb__fig_kernel_name(r));
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
                sb__fig_put_num(d, v);
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
static void dist_xtics(sb__fig *F, const size_t *sel, size_t nsel,
                       int label_kernel, int vary_size, int vary_offsets)
{
    const sb_run *run = F->run;
    FILE *g = F->gp;
    char labels[SB__FIG_DIST_MAX_CELLS][160];
    size_t widest = 0, nlines = 1;
    int slant;

    for (size_t j = 0; j < nsel; j++) {
        const sb_cell_result *r = sb_run_cell(run, sel[j]);
        char *label = labels[j], part[48];
        size_t n = 0;
        label[0] = '\0';
        if (label_kernel)
            sb__fig_append(label, sizeof labels[j], "\n",
                           sb__fig_kernel_name(r));
        if (vary_size) {
            sb__fig_human_size(r->cell.size, part, sizeof part);
            sb__fig_append(label, sizeof labels[j], "\n", part);
        }
        if (vary_offsets) {
            snprintf(part, sizeof part, "+%zu/+%zu", r->cell.src_align,
                     r->cell.dst_align);
            sb__fig_append(label, sizeof labels[j], "\n", part);
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
        /* sb__fig_put_str would hide the newlines: write the label by
         * lines, joined by newlines or, slanted, by blanks. */
        for (int first = 1;; first = 0) {
            size_t len = strcspn(p, "\n");
            char piece[160];
            snprintf(piece, sizeof piece, "%.*s", (int)len, p);
            if (!first)
                fputs(slant ? ".' '." : ".\"\\n\".", g);
            sb__fig_put_str(g, piece);
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

void sb__fig_write_distribution(sb__fig *F, const size_t *sel, size_t nsel,
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
        vary_kernel |=
            strcmp(sb__fig_kernel_name(r), sb__fig_kernel_name(r0)) != 0;
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
        sb__fig_append(common, sizeof common, ", ", sb__fig_kernel_name(r0));
    if (!vary_size && !sb_run_imported(run)) {
        char size[32];
        sb__fig_human_size(r0->cell.size, size, sizeof size);
        sb__fig_append(common, sizeof common, ", ", size);
    }
    if (nsel < nwith)
        snprintf(what, sizeof what,
                 "%s%sdistribution of the samples (first %zu of %zu cells)",
                 common, common[0] ? ": " : "", nsel, nwith);
    else
        snprintf(what, sizeof what, "%s%sdistribution of the samples%s",
                 common, common[0] ? ": " : "", nsel > 1 ? " per cell" : "");
    sb__fig_preamble(F);
    sb__fig_put_title(g, what, run);
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
    sb__fig_put_str(g, heading);
    fputs("\n", g);
}
