/*
 * report/figure.h: what the files of sb_plot() share, never installed.
 * figure.c is the entry point: it chooses the figure and writes its two
 * files; figure_lines.c (sweep and sizes), figure_matrix.c and
 * figure_dist.c each write one kind; figure_script.c holds what every
 * kind's script and data share; figure_gnuplot.c quotes the data's
 * strings, runs gnuplot and puts the files in place safely.  Calls go
 * down that list: figure_gnuplot.c calls none of the others.
 */
#ifndef SB_REPORT_FIGURE_H
#define SB_REPORT_FIGURE_H

#include <stdio.h>

#include "sb_internal.h"

/* At most this many cells in a distribution figure: more boxes than this
 * cannot be told apart at 900 pixels. */
#define SB__FIG_DIST_MAX_CELLS 12

/* The line types the script defines (figure_script.c, its palette). */
#define SB__FIG_NCOLORS ((size_t)8)

enum { SB__FIG_SVG, SB__FIG_PDF, SB__FIG_PNG };

/* One figure being made. */
typedef struct sb__fig {
    const sb_run *run;
    int kind;           /* enum sb_plot_kind, never SB_PLOT_AUTO */
    int term;
    char *stem;         /* path without its ending */
    const char *name;   /* the stem's last component (inside stem) */
    const char *ending; /* path's ending, after the dot (inside path) */
    char *gp_path, *dat_path;
    char *gp_tmp, *dat_tmp; /* where they are written, until renamed */
    FILE *gp, *dat;
    const char *what;   /* the figure's kind in words; NULL: kind's name
                           (a history's figure has no sb_plot_kind) */
} sb__fig;

/* ---- figure_lines.c: sweep and sizes ------------------------------------ */

/* A cell on a line: the line's key (kernel, k1, k2) and its x. */
typedef struct sb__fig_item {
    size_t idx;
    const char *kernel;
    size_t k1, k2, x;
} sb__fig_item;

/* A line: items[first .. first + n), ordered by x. */
typedef struct sb__fig_series {
    size_t first, n;
    size_t rank;     /* its first cell in the run: lines keep run order */
    size_t distinct; /* distinct x values */
} sb__fig_series;

typedef struct sb__fig_lines {
    int by_size;     /* x is the size (k1 src, k2 dst); else the source
                        offset (k1 size, k2 dst) */
    sb__fig_item *it;
    size_t nit;
    sb__fig_series *s;
    size_t ns;
    int vary_kernel, vary_k1, vary_k2;
    int multi;       /* some line has two x values or more */
    size_t xmin, xmax;
} sb__fig_lines;

/* The lines of the run's cells with a throughput, over sizes (by_size)
 * or source offsets, into *L: SB_OK, or SB_ENOMEM with *L empty.
 * sb__fig_lines_free frees them and empties *L. */
int sb__fig_lines_build(const sb_run *run, int by_size, sb__fig_lines *L);
void sb__fig_lines_free(sb__fig_lines *L);

/* The data and the script of a line figure. */
void sb__fig_write_lines(sb__fig *F, const sb__fig_lines *L);

/* The key entry of line j, what tells it from the others ("src +4");
 * what all lines share, for the title ("movsl, 10 KiB").  The HTML
 * writer's figures name their lines the same way. */
void sb__fig_line_label(const sb__fig_lines *L, size_t j, char *buf,
                        size_t len);
void sb__fig_lines_common(const sb__fig_lines *L, char *buf, size_t len);

/* ---- figure_matrix.c ---------------------------------------------------- */

/* Cells [first, end) of one kernel and size, the same rule as the table's
 * (table.c, sb__matrix_width): every pair of at least two source and two
 * destination offsets, destination outer and source inner, in plan
 * order. */
typedef struct sb__fig_matrix {
    size_t first, end, w, h;
    size_t ref; /* the aligned cell (0, 0), or the first cell */
} sb__fig_matrix;

/* The first full matrix with something to draw into *m; 0 when there is
 * none. */
int sb__fig_matrix_find(const sb_run *run, sb__fig_matrix *m);

/* The data and the script of a matrix figure. */
void sb__fig_write_matrix(sb__fig *F, const sb__fig_matrix *m);

/* ---- figure_dist.c ------------------------------------------------------ */

/* The data and the script of a distribution figure of the nsel cells sel,
 * the first of nwith cells with samples. */
void sb__fig_write_distribution(sb__fig *F, const size_t *sel, size_t nsel,
                                size_t nwith);

/* ---- figure_script.c: what the kinds share ------------------------------ */

/* The colour ("#0072B2") of line j, the palette's colours in turn. */
const char *sb__fig_color(size_t j);

/* The cell's kernel name, "?" when it has none. */
const char *sb__fig_kernel_name(const sb_cell_result *r);

/* "10 KiB" for whole multiples of 1024, else "1000 B". */
void sb__fig_human_size(size_t v, char *buf, size_t len);

/* Append part to buf (len bytes), joined by sep, control characters of
 * part made '?'. */
void sb__fig_append(char *buf, size_t len, const char *sep,
                    const char *part);

/* A cell whose samples can be drawn; a cell whose throughput can. */
int sb__fig_has_samples(const sb_cell_result *r);
int sb__fig_has_mbps(const sb_cell_result *r);

/* The smallest power of two step that gives at most max ticks. */
double sb__fig_tick_step(double range, double max);

/* The key's heading for throughput figures. */
void sb__fig_ci_heading(const sb_run *run, char *buf, size_t len);

/* The script's title: what, then the machine's line. */
void sb__fig_put_title(FILE *f, const char *what, const sb_run *run);

/* The script's beginning: where its files are, the terminal, the style. */
void sb__fig_preamble(sb__fig *F);

/* The data file's header: what it is and its columns. */
void sb__fig_dat_header(sb__fig *F, const char *columns,
                        const char *blocks);

/* ---- figure_history.c (sb_history_plot) -------------------------------- */

/* The files beside a figure at path into *F (stem, names, the terminal);
 * SB_OK or an SB_ error with err filled.  figure.c's, shared with the
 * history's figure. */
int sb__fig_setup(sb__fig *F, const char *path, char **hint, sb_error *err);
/* Close, remove what was not put in place, free. */
void sb__fig_free(sb__fig *F);

/* ---- figure_gnuplot.c: quoting, gnuplot, the files ---------------------- */

/* 1 for a control character (below 0x20, or DEL). */
int sb__fig_is_ctrl(unsigned char c);

/* s as a gnuplot single-quoted string; s in a comment of the script or
 * the data file; a number for the data file (NaN when not finite). */
void sb__fig_put_str(FILE *f, const char *s);
void sb__fig_put_comment(FILE *f, const char *s);
void sb__fig_put_num(FILE *f, double v);

/* "gnuplot PATH", quoted for a shell: a new string, or NULL. */
char *sb__fig_shell_command(const char *path);

/* A stream on a new file beside final (*tmp its name), or NULL with err
 * filled. */
FILE *sb__fig_open_beside(const char *final, char **tmp, sb_error *err);

/* SB_OK unless path is there and is neither a regular file nor a symbolic
 * link (SB_EINVAL with err filled). */
int sb__fig_check_target(const char *path, sb_error *err);

/* Rename *tmp over final; SB_OK or SB_EIO with err filled. */
int sb__fig_put_in_place(char **tmp, const char *final, sb_error *err);

/* Close *f (and set it NULL); SB_OK, or SB_EIO with err filled when a
 * write or the close failed. */
int sb__fig_close_file(FILE **f, const char *path, sb_error *err);

/* Run gnuplot (the program named, or NULL for the default) on script into
 * a new file beside path, and rename that into place: SB_OK, SB_EUNAVAIL
 * when gnuplot cannot be run (hint: the command that renders the script)
 * or SB_EIO, with err filled. */
int sb__fig_draw(const char *path, const char *gnuplot, const char *script,
                 const char *hint, sb_error *err);

#endif
