/*
 * report/figure_history.c: the figure of a history of runs
 * (sb_history_plot): each cell's series over the runs in time order,
 * relative to the median of its first segment (so cells of different
 * sizes share one axis and a change reads as a percentage), with each
 * run's interval as a bar and each change point as a dashed line between
 * the runs either side, in the cell's colour.
 *
 * The files and their safety are the other figures' (figure.c's set-up,
 * figure_gnuplot.c's writing and drawing): names reach the script only
 * as gnuplot single-quoted strings, the file names of the runs never (the
 * data file's comments hold them, cleaned).
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"

/* Every cell is drawn: past the colours, the next cells take them again
 * in the next of gnuplot's five dash types (solid, dashed, dotted,
 * dash-dot, dash-dot-dot), so 40 lines differ; past 40 the styles
 * repeat, each line still named in the key.  A cell left out would
 * vanish from the figure with nothing said on the run's stderr. */
#define HIST_DASH_TYPES 5

/* Cell i's line type (its colour) and dash type. */
static size_t cell_lt(size_t i)
{
    return i % SB__FIG_NCOLORS + 1;
}
static size_t cell_dt(size_t i)
{
    return i / SB__FIG_NCOLORS % HIST_DASH_TYPES + 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the cell's first segment (up to its first change). */
static double first_level(const sb_history_cell *c)
{
    size_t n = c->nchanges ? c->changes[0].point : c->n, k = 0;
    double *v = malloc((n ? n : 1) * sizeof *v), m = NAN;
    if (!v)
        return NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(c->estimate[i]))
            v[k++] = c->estimate[i];
    if (k) {
        qsort(v, k, sizeof *v, cmp_double);
        m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    }
    free(v);
    return m;
}

static void label_of(const sb_history_cell *c, char *buf, size_t len)
{
    char size[32];
    buf[0] = '\0';
    sb__fig_append(buf, len, "",
                   c->cell.kernel && c->cell.kernel->name
                       ? c->cell.kernel->name
                       : "?");
    if (c->unit[0]) {
        sb__fig_human_size(c->cell.size, size, sizeof size);
        sb__fig_append(buf, len, " ", size);
        if (c->cell.src_align || c->cell.dst_align) {
            char off[48];
            snprintf(off, sizeof off, "%zu/%zu", c->cell.src_align,
                     c->cell.dst_align);
            sb__fig_append(buf, len, " ", off);
        }
    }
}

static void write_history(sb__fig *F, const sb_history *h, size_t ncells)
{
    FILE *d = F->dat, *g = F->gp;
    const sb_meta *m = sb_run_meta(F->run);
    char what[256], label[256];

    fprintf(d, "# statbench %s: data of a history figure (%s.gp draws it)\n",
            sb_version(), F->name);
    fputs("# columns: run (1 = oldest), estimate, interval low, interval "
          "high, each over the median of the cell's first segment\n",
          d);
    fputs("# one block per cell (gnuplot's index); its runs' files:\n", d);
    for (size_t r = 0; r < sb_history_runs(h); r++) {
        fprintf(d, "#   run %zu: ", r + 1);
        sb__fig_put_comment(d, sb_history_run_name(h, r));
        fputc('\n', d);
    }
    for (size_t i = 0; i < ncells; i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        double base = first_level(c);
        label_of(c, label, sizeof label);
        fputs(i ? "\n\n# " : "# ", d);
        sb__fig_put_comment(d, label);
        fputc('\n', d);
        for (size_t p = 0; p < c->n; p++) {
            fprintf(d, "%zu ", c->run[p] + 1);
            sb__fig_put_num(d, c->estimate[p] / base);
            fputc(' ', d);
            sb__fig_put_num(d, c->lo[p] / base);
            fputc(' ', d);
            sb__fig_put_num(d, c->hi[p] / base);
            fputc('\n', d);
        }
    }

    sb__fig_preamble(F);
    snprintf(what, sizeof what, "history of %zu runs: ",
             sb_history_runs(h));
    sb__fig_append(what, sizeof what, "", m->hostname);
    sb__fig_put_title(g, what, F->run);
    fputs("set ylabel \"estimate / median of the first segment\"\n", g);
    fputs("set xlabel \"run, oldest first (dashed: change points)\"\n", g);
    fputs("set offsets graph 0.02, graph 0.02, graph 0.06, graph 0.06\n", g);
    fputs("set key below horizontal\n", g);
    for (size_t i = 0; i < ncells; i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        for (size_t k = 0; k < c->nchanges; k++) {
            double x = (double)(c->changes[k].run_before +
                                c->changes[k].run_after) / 2 + 1;
            fprintf(g,
                    "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead "
                    "back dt 2 lw 1.5 lt %zu\n",
                    x, x, cell_lt(i));
        }
    }
    fputs("\nplot \\\n", g);
    for (size_t i = 0; i < ncells; i++) {
        label_of(sb_history_cell_at(h, i), label, sizeof label);
        fprintf(g,
                "    data index %zu using 1:2:3:4 with yerrorlines "
                "lt %zu dt %zu title ",
                i, cell_lt(i), cell_dt(i));
        sb__fig_put_str(g, label);
        fputs(i + 1 < ncells ? ", \\\n" : "\n", g);
    }
}

int sb_history_plot(const sb_history *h, const char *path,
                    const char *gnuplot, sb_error *err)
{
    sb__fig F = {0};
    char *hint = NULL;
    size_t ncells = 0;
    locale_t c_locale, old = (locale_t)0;
    int rc;

    if (!h || sb_history_runs(h) == 0)
        return sb__error(err, SB_EINVAL, "sb_history_plot: no history");
    if (!path || !*path)
        return sb__error(err, SB_EINVAL, "sb_history_plot: no file name");
    for (size_t i = 0; i < sb_history_cells(h); i++)
        if (sb_history_cell_at(h, i)->n > 0)
            ncells = i + 1;
    if (!ncells)
        return sb__error(err, SB_EINVAL, "nothing to plot: no cell");
    sb_init();
    F.run = sb_history_run(h, sb_history_runs(h) - 1);
    F.what = "history";
    if ((rc = sb__fig_setup(&F, path, &hint, err)) != SB_OK)
        goto out;
    rc = SB_EIO;
    F.dat = sb__fig_open_beside(F.dat_path, &F.dat_tmp, err);
    if (!F.dat)
        goto out;
    F.gp = sb__fig_open_beside(F.gp_path, &F.gp_tmp, err);
    if (!F.gp)
        goto out;
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_locale)
        old = uselocale(c_locale);
    write_history(&F, h, ncells);
    if (c_locale) {
        uselocale(old);
        freelocale(c_locale);
    }
    rc = sb__fig_close_file(&F.dat, F.dat_path, err);
    if (rc == SB_OK)
        rc = sb__fig_close_file(&F.gp, F.gp_path, err);
    if (rc == SB_OK)
        rc = sb__fig_put_in_place(&F.dat_tmp, F.dat_path, err);
    if (rc == SB_OK)
        rc = sb__fig_put_in_place(&F.gp_tmp, F.gp_path, err);
    if (rc == SB_OK)
        rc = sb__fig_draw(path, gnuplot, F.gp_path, hint, err);
out:
    sb__fig_free(&F);
    free(hint);
    return rc;
}
