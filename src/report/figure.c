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
 *
 * This file chooses the figure and writes its two files; each kind is
 * drawn in a file of its own, and figure_gnuplot.c runs gnuplot and puts
 * the files in place (figure.h lists them).
 */
#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "figure.h"

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

/* Close what is open and remove what was not put in place: a failed
 * figure leaves no partial file behind. */
void sb__fig_free(sb__fig *F)
{
    if (F->gp)
        fclose(F->gp);
    if (F->dat)
        fclose(F->dat);
    if (F->gp_tmp)
        unlink(F->gp_tmp);
    if (F->dat_tmp)
        unlink(F->dat_tmp);
    SB__FREE_ALL(F->gp_tmp, F->dat_tmp, F->stem, F->gp_path, F->dat_path);
}

/* Which figure: the one asked for, or under SB_PLOT_AUTO the first of
 * matrix, sizes, sweep and distribution with something to draw. */
static int choose(const sb_run *run, int kind, sb__fig_matrix *m,
                  sb__fig_lines *L, size_t *sel, size_t *nsel, size_t *nwith,
                  sb_error *err)
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
        if (sb__fig_matrix_find(run, m))
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
        if ((rc = sb__fig_lines_build(run, line_kinds[i].by_size, L)) != SB_OK)
            return sb__error(err, rc, "out of memory");
        if (L->multi)
            return line_kinds[i].kind;
        sb__fig_lines_free(L);
        if (kind == line_kinds[i].kind)
            return sb__error(err, SB_EINVAL, "nothing to plot: %s",
                             line_kinds[i].why);
    }
    *nsel = *nwith = 0;
    for (size_t i = 0; i < sb_run_count(run); i++) {
        if (!sb__fig_has_samples(sb_run_cell(run, i)))
            continue;
        if (*nsel < SB__FIG_DIST_MAX_CELLS)
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
        if (sb__fig_is_ctrl((unsigned char)*p))
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
        return SB__FIG_SVG;
    if (!strcasecmp(dot, ".pdf"))
        return SB__FIG_PDF;
    if (!strcasecmp(dot, ".png"))
        return SB__FIG_PNG;
    return sb__error(err, SB_EINVAL,
                     "%s: unknown figure ending \"%s\" (use .svg, .pdf "
                     "or .png)",
                     path, dot);
}

/* The figure's terminal from path's ending, its stem, the names of its
 * script and data beside it, and the command that renders the script
 * (*hint, the caller's to free); SB_OK, or an SB_ error with err filled
 * when a name is refused or a target is neither a regular file nor a
 * link. */
int sb__fig_setup(sb__fig *F, const char *path, char **hint, sb_error *err)
{
    const char *dot = NULL;
    int rc = figure_term(path, &dot, err);

    if (rc < 0)
        return rc;
    F->term = rc;
    F->ending = dot + 1;
    F->stem = strdup(path);
    if (F->stem)
        F->stem[dot - path] = '\0';
    F->gp_path = F->stem ? concat(F->stem, ".gp") : NULL;
    F->dat_path = F->stem ? concat(F->stem, ".dat") : NULL;
    *hint = F->gp_path ? sb__fig_shell_command(F->gp_path) : NULL;
    if (!F->stem || !F->gp_path || !F->dat_path || !*hint)
        return sb__error(err, SB_ENOMEM, "out of memory");
    F->name = strrchr(F->stem, '/') ? strrchr(F->stem, '/') + 1 : F->stem;
    if ((rc = sb__fig_check_target(F->dat_path, err)) != SB_OK ||
        (rc = sb__fig_check_target(F->gp_path, err)) != SB_OK ||
        (rc = sb__fig_check_target(path, err)) != SB_OK)
        return rc;
    return SB_OK;
}

/* The figure's data and script, each written under a new name beside it
 * and renamed into place; SB_OK or an SB_ error with err filled. */
static int write_files(sb__fig *F, const sb__fig_matrix *m,
                       const sb__fig_lines *L, const size_t *sel, size_t nsel,
                       size_t nwith, sb_error *err)
{
    locale_t c_locale, old = (locale_t)0;
    int rc;

    /* Each file is written under a new name beside it and renamed into
     * place when complete: nothing is written through a link at the
     * final names, and a failure leaves no half-written file. */
    F->dat = sb__fig_open_beside(F->dat_path, &F->dat_tmp, err);
    if (!F->dat)
        return SB_EIO;
    F->gp = sb__fig_open_beside(F->gp_path, &F->gp_tmp, err);
    if (!F->gp)
        return SB_EIO;
    /* Numbers in the C locale whatever the caller's LC_NUMERIC. */
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_locale)
        old = uselocale(c_locale);
    switch (F->kind) {
    case SB_PLOT_MATRIX:
        sb__fig_write_matrix(F, m);
        break;
    case SB_PLOT_SIZES:
    case SB_PLOT_SWEEP:
        sb__fig_write_lines(F, L);
        break;
    default:
        sb__fig_write_distribution(F, sel, nsel, nwith);
        break;
    }
    if (c_locale) {
        uselocale(old);
        freelocale(c_locale);
    }
    rc = sb__fig_close_file(&F->dat, F->dat_path, err);
    if (rc == SB_OK)
        rc = sb__fig_close_file(&F->gp, F->gp_path, err);
    if (rc == SB_OK)
        rc = sb__fig_put_in_place(&F->dat_tmp, F->dat_path, err);
    if (rc == SB_OK)
        rc = sb__fig_put_in_place(&F->gp_tmp, F->gp_path, err);
    return rc;
}

int sb_plot(const sb_run *run, const char *path, int kind,
            const char *gnuplot, sb_error *err)
{
    sb__fig F = {0};
    sb__fig_matrix m = {0};
    sb__fig_lines L = {0};
    size_t sel[SB__FIG_DIST_MAX_CELLS], nsel = 0, nwith = 0;
    const char *dot = NULL;
    char *hint = NULL;
    int rc;

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
    sb_init();

    rc = choose(run, kind, &m, &L, sel, &nsel, &nwith, err);
    if (rc < 0)
        return rc;
    F.kind = rc;
    F.run = run;
    if ((rc = sb__fig_setup(&F, path, &hint, err)) != SB_OK)
        goto out;

    rc = write_files(&F, &m, &L, sel, nsel, nwith, err);
    if (rc == SB_OK)
        rc = sb__fig_draw(path, gnuplot, F.gp_path, hint, err);
out:
    sb__fig_lines_free(&L);
    sb__fig_free(&F);
    free(hint);
    return rc;
}
