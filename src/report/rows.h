/*
 * report/rows.h: what the Markdown and LaTeX writers share (rows.c): the
 * grid of escaped strings with one row per cell, and the one function
 * that writes it, told by a style what goes around the rows.  Never
 * installed.
 */
#ifndef SB_REPORT_ROWS_H
#define SB_REPORT_ROWS_H

#include <stdio.h>

#include "report.h"

/* A growable string; failed is set (and later writes ignored) when out of
 * memory. */
typedef struct sb__sbuf {
    char *s;
    size_t n, cap;
    int failed;
} sb__sbuf;

void sb__sbuf_puts(sb__sbuf *b, const char *s);
void sb__sbuf_printf(sb__sbuf *b, const char *fmt, ...) SB__PRINTF(2, 3);

/* s escaped for Markdown (GitHub), LaTeX or HTML text (HTML's also for
 * an attribute's value between quotes). */
void sb__md_escape(sb__sbuf *b, const char *s);
void sb__tex_escape(sb__sbuf *b, const char *s);
void sb__html_escape(sb__sbuf *b, const char *s);

/* The languages the rows are written in. */
enum { SB__LANG_MD, SB__LANG_TEX, SB__LANG_HTML };

/* "6 invocations" / "one invocation". */
void sb__put_invocations(sb__sbuf *b, size_t m);

/* The rows of a table as strings, row 0 the header.  align[c] is 'l' or
 * 'r'. */
typedef struct sb__grid {
    size_t ncols, nrows, cap;
    char **cell; /* nrows * ncols strings */
    char align[24];
    int failed;
} sb__grid;

/* What differs between the Markdown and the LaTeX table: the escaping and
 * number forms, the least column width, the cell separators, and what is
 * written before the header row (given the caption), between the header
 * and the rows, and after the rows (given the cells short of the
 * precision target). */
typedef struct sb__rows_style {
    int lang; /* SB__LANG_MD or SB__LANG_TEX */
    size_t min_width;
    const char *open, *sep, *close;
    void (*caption)(const sb_run *run, int cmp, sb__sbuf *b);
    void (*begin)(const sb_run *run, const sb__grid *g, const char *caption,
                  FILE *f);
    void (*rule)(const sb__grid *g, const size_t *w, FILE *f);
    void (*end)(const sb_run *run, size_t nshort, FILE *f);
} sb__rows_style;

/* The run as a table in style st: SB_OK, or SB_ENOMEM or SB_EIO with err
 * filled. */
int sb__rows_write(const sb_run *run, const sb__rows_style *st, FILE *f,
                   sb_error *err);

/* The rows of run as a grid in lang (SB__LANG_*), its strings escaped
 * for it, *cmp set when the run has comparisons: 0, or -1 when out of
 * memory (g then empty).  sb__grid_free frees it; sb__grid_at is the
 * string at row r (0: the heads) and column c, "" for none. */
int sb__rows_grid(const sb_run *run, int lang, sb__grid *g, int *cmp);
void sb__grid_free(sb__grid *g);
const char *sb__grid_at(const sb__grid *g, size_t r, size_t c);

#endif
