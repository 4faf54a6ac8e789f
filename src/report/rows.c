/*
 * report/rows.c: the rows the Markdown and LaTeX writers share, the one
 * function that writes them in either style (rows.h), and
 * sb_format_rounded.
 *
 * Both formats are for pasting a result into a mail, an issue or a paper:
 * a caption saying what was measured, then one row per cell with the
 * median, its interval and, when the run has them, the comparison
 * columns.  Every value shows only the digits its interval supports
 * (sb_format_rounded), so that no table claims 12345.678 MB/s when the
 * interval is +-300.
 *
 * Both reporters first build the table as a grid of strings, already
 * escaped for the target format, then write it with padded columns, so
 * that the Markdown reads well as plain text and the LaTeX source lines
 * up.  sb_report() calls them inside its C-locale wrapper; the number
 * formatting here does not depend on the locale anyway, since
 * sb_format_rounded is public and may be called outside that wrapper.
 */
#include "config.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "rows.h"

/* Significant digits of a value whose half-width says nothing about its
 * precision (zero, negative, NaN or infinite): as the plain table's %.6g. */
#define SIG_FALLBACK 6

/* Longest number format_fixed writes: 309 integer digits of DBL_MAX, the
 * point and up to ~340 decimals of a subnormal half-width, with room. */
#define NUMBUF 800

/* ---- Numbers ------------------------------------------------------------ */

/* The decimal exponent of x > 0 (finite), and its leading digit in *lead
 * (optional), read from x written with DBL_DIG significant digits: the
 * double nearest 0.3 is 0.29999..., and must lead with 3 at 10^-1. */
static int decimal_exponent(double x, int *lead)
{
    char b[48];
    const char *e;

    snprintf(b, sizeof b, "%.*e", DBL_DIG - 1, x);
    if (lead)
        *lead = b[0] - '0';
    e = strchr(b, 'e');
    return e ? atoi(e + 1) : 0;
}

/* The decimals to show value with, by the rule of statbench.h; *fallback
 * is set when the half-width is unusable and the value gets SIG_FALLBACK
 * significant digits instead. */
static int rounding_decimals(double value, double hw, int *fallback)
{
    int lead, d;

    if (!(hw > 0) || !isfinite(hw)) {
        *fallback = 1;
        if (value == 0 || !isfinite(value))
            return 0;
        return SIG_FALLBACK - 1 - decimal_exponent(fabs(value), NULL);
    }
    *fallback = 0;
    d = -decimal_exponent(hw, &lead);
    if (lead <= 2)
        d++;
    /* A half-width far below the value's own resolution (1e-20 on 123)
     * would ask for digits a double does not have: at most DBL_DIG
     * significant digits. */
    if (value != 0 && isfinite(value)) {
        int cap = DBL_DIG - 1 - decimal_exponent(fabs(value), NULL);
        if (d > cap)
            d = cap;
    }
    return d;
}

/* v (finite) with d decimals into buf (NUMBUF bytes); d < 0 rounds to
 * 10^-d and writes the zeros.  The decimal point is '.' whatever the
 * locale, and a value that rounds to zero has no minus sign. */
static void format_fixed(double v, int d, char *buf)
{
    char *w, *r;
    int zero = 1;

    if (d >= 0) {
        snprintf(buf, NUMBUF, "%.*f", d, v);
    } else {
        int k = -d;
        double q = round(v / pow(10.0, k));
        int n = snprintf(buf, NUMBUF, "%.0f", q);
        if (q != 0)
            for (int i = 0; i < k && n + 1 < NUMBUF; i++)
                buf[n++] = '0';
        buf[n < NUMBUF ? n : NUMBUF - 1] = '\0';
    }
    /* %f writes a sign, digits and the locale's radix character (one or
     * more bytes): make the radix a single '.'. */
    for (w = r = buf; *r;) {
        if (isdigit((unsigned char)*r) || *r == '-') {
            *w++ = *r++;
        } else {
            *w++ = '.';
            while (*r && !isdigit((unsigned char)*r))
                r++;
        }
    }
    *w = '\0';
    for (r = buf; *r; r++)
        if (*r >= '1' && *r <= '9')
            zero = 0;
    if (zero && buf[0] == '-')
        memmove(buf, buf + 1, strlen(buf));
}

/* Drop trailing zeros after the point (and the point itself); returns the
 * decimals left. */
static int strip_zeros(char *buf, int d)
{
    char *dot = strchr(buf, '.');
    size_t n;

    if (!dot || d <= 0)
        return d;
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0' && &buf[n - 1] > dot) {
        buf[--n] = '\0';
        d--;
    }
    if (buf[n - 1] == '.')
        buf[n - 1] = '\0';
    return d;
}

static void copy_out(char *buf, size_t len, const char *s)
{
    if (buf && len)
        snprintf(buf, len, "%s", s);
}

int sb_format_rounded(double value, double halfwidth, char *buf, size_t len)
{
    char tmp[NUMBUF];
    int fallback, d;

    if (isnan(value)) {
        copy_out(buf, len, "--");
        return 0;
    }
    if (isinf(value)) {
        copy_out(buf, len, value > 0 ? "inf" : "-inf");
        return 0;
    }
    d = rounding_decimals(value, halfwidth, &fallback);
    format_fixed(value, d, tmp);
    if (fallback)
        d = strip_zeros(tmp, d);
    copy_out(buf, len, tmp);
    return d;
}

/* x with two significant digits in fixed notation (0.012, 0.41, 1.2, 12,
 * 123): a relative half-width in percent, or a p-value.  "--" for NaN. */
static void format_sig2(double x, char *buf)
{
    char t[48];
    const char *e;
    int ex;

    if (isnan(x)) {
        strcpy(buf, "--");
        return;
    }
    if (isinf(x)) {
        strcpy(buf, x > 0 ? "inf" : "-inf");
        return;
    }
    if (x == 0) {
        strcpy(buf, "0");
        return;
    }
    /* The exponent after rounding to two digits: 9.96 is 1.0e+01. */
    snprintf(t, sizeof t, "%.1e", fabs(x));
    e = strchr(t, 'e');
    ex = e ? atoi(e + 1) : 0;
    format_fixed(x, ex < 1 ? 1 - ex : 0, buf);
}

/* A p-value: two significant digits; below 0.001 in scientific notation,
 * "1.2e-5" in Markdown and "$1.2\times10^{-5}$" in LaTeX. */
static void format_p(double p, int latex, char *buf)
{
    char t[48], a, b = '0';
    const char *e, *s;

    if (!(p > 0) || p >= 0.001) {
        format_sig2(p, buf);
        return;
    }
    snprintf(t, sizeof t, "%.1e", p);
    a = t[0];
    for (s = t + 1; *s && *s != 'e'; s++)
        if (isdigit((unsigned char)*s)) {
            b = *s;
            break;
        }
    e = strchr(t, 'e');
    snprintf(buf, NUMBUF, latex ? "$%c.%c\\times10^{%d}$" : "%c.%ce%d", a, b,
             e ? atoi(e + 1) : 0);
}

/* ---- Growable strings and the grid -------------------------------------- */

typedef sb__sbuf sbuf;

static void sbuf_putn(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *p;
        while (cap < b->n + n + 1)
            cap *= 2;
        p = realloc(b->s, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void sb__sbuf_puts(sbuf *b, const char *s)
{
    sbuf_putn(b, s, strlen(s));
}

static void sbuf_putc(sbuf *b, char c)
{
    sbuf_putn(b, &c, 1);
}

void sb__sbuf_printf(sbuf *b, const char *fmt, ...)
{
    char t[NUMBUF + 64];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    sbuf_putn(b, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

typedef sb__grid grid;

static void grid_free(grid *g)
{
    for (size_t i = 0; i < g->nrows * g->ncols; i++)
        free(g->cell[i]);
    free(g->cell);
}

/* Start a new row; its cells are NULL until set. */
static void grid_row(grid *g)
{
    if (g->failed)
        return;
    if (g->nrows == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 16;
        char **p = realloc(g->cell, cap * g->ncols * sizeof *p);
        if (!p) {
            g->failed = 1;
            return;
        }
        g->cell = p;
        g->cap = cap;
    }
    for (size_t c = 0; c < g->ncols; c++)
        g->cell[g->nrows * g->ncols + c] = NULL;
    g->nrows++;
}

/* Set column col of the last row to s (copied). */
static void grid_set(grid *g, size_t col, const char *s)
{
    char **slot;
    if (g->failed || g->nrows == 0 || col >= g->ncols)
        return;
    slot = &g->cell[(g->nrows - 1) * g->ncols + col];
    free(*slot);
    *slot = strdup(s);
    if (!*slot)
        g->failed = 1;
}

/* Set a cell from an sbuf, which is emptied. */
static void grid_take(grid *g, size_t col, sbuf *b)
{
    if (b->failed)
        g->failed = 1;
    grid_set(g, col, b->s ? b->s : "");
    free(b->s);
    *b = (sbuf){0};
}

static const char *grid_at(const grid *g, size_t r, size_t c)
{
    const char *s = g->cell[r * g->ncols + c];
    return s ? s : "";
}

/* Columns a string takes on a terminal: UTF-8 lead bytes. */
static size_t display_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

static void pad(FILE *f, size_t n)
{
    while (n--)
        fputc(' ', f);
}

/* Each column's width, at least min. */
static void grid_widths(const grid *g, size_t *w, size_t min)
{
    for (size_t c = 0; c < g->ncols; c++) {
        w[c] = min;
        for (size_t r = 0; r < g->nrows; r++) {
            size_t x = display_width(grid_at(g, r, c));
            if (x > w[c])
                w[c] = x;
        }
    }
}

/* One row: cells padded to w and joined by sep, between open and close. */
static void grid_write_row(const grid *g, size_t r, const size_t *w,
                           const char *open, const char *sep,
                           const char *close, FILE *f)
{
    fputs(open, f);
    for (size_t c = 0; c < g->ncols; c++) {
        const char *s = grid_at(g, r, c);
        size_t x = display_width(s);
        size_t gap = w[c] > x ? w[c] - x : 0;
        if (c)
            fputs(sep, f);
        if (g->align[c] == 'r')
            pad(f, gap);
        fputs(s, f);
        if (g->align[c] != 'r')
            pad(f, gap);
    }
    fputs(close, f);
    fputc('\n', f);
}

/* ---- Escaping ----------------------------------------------------------- */

/* What neither format escapes, at p: a control character (C0, DEL, C1)
 * or a byte that is not UTF-8 as a blank (sb__char_len), another multibyte
 * character as it is.  Returns the bytes taken, or 0 for a plain ASCII
 * character, which the caller escapes. */
static size_t put_unescaped(sbuf *b, const char *p)
{
    int control;
    size_t n = sb__char_len(p, &control);

    if (!control && n == 1)
        return 0;
    for (size_t i = 0; i < (control ? 1 : n); i++)
        sbuf_putc(b, control ? ' ' : p[i]);
    return n;
}

/* Markdown (GitHub): '|' would end a table cell and must be "\|"; the
 * characters that start emphasis, strikethrough, code, links or HTML are
 * escaped too, but '_' only where it can start or end emphasis (GitHub
 * never does so between two letters or digits: "sse2_nt" stays readable
 * in a mail).  Control characters (a newline in a command line) become
 * blanks. */
void sb__md_escape(sbuf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        size_t n = put_unescaped(b, p);
        if (n) {
            p += n - 1;
        } else if (c == '_') {
            int before = p > s && isalnum((unsigned char)p[-1]);
            int after = isalnum((unsigned char)p[1]);
            if (!(before && after))
                sbuf_putc(b, '\\');
            sbuf_putc(b, '_');
        } else if (strchr("|\\*`<>[]~", c)) {
            sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
        } else {
            sbuf_putc(b, (char)c);
        }
    }
}

/* The text command of a LaTeX special that a backslash does not escape,
 * or of a character the OT1 encoding draws as something else; NULL for
 * the others. */
static const char *tex_command(unsigned char c)
{
    switch (c) {
    case '~': return "\\textasciitilde{}";
    case '^': return "\\textasciicircum{}";
    case '\\': return "\\textbackslash{}";
    case '<': return "\\textless{}";
    case '>': return "\\textgreater{}";
    case '|': return "\\textbar{}";
    }
    return NULL;
}

/* LaTeX text: the ten specials, the three characters the OT1 encoding
 * draws as something else, "--" (a dash ligature: a command's --kernel),
 * control characters (a blank line in a caption ends the paragraph and
 * breaks \caption) as blanks. */
void sb__tex_escape(sbuf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        size_t n = put_unescaped(b, p);
        const char *command = tex_command(c);
        if (n) {
            p += n - 1;
            continue;
        }
        if (command) {
            sb__sbuf_puts(b, command);
            continue;
        }
        switch (c) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            sbuf_putc(b, '\\');
            sbuf_putc(b, (char)c);
            break;
        case '-':
            sb__sbuf_puts(b, p[1] == '-' ? "-{}" : "-");
            break;
        default:
            sbuf_putc(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
        }
    }
}

/* A formatted number for LaTeX: a minus sign in math ("-" would be a
 * hyphen), infinity as the symbol; "--" (no value) stays an en dash. */
static void tex_number(sbuf *b, const char *num)
{
    if (!strcmp(num, "inf"))
        sb__sbuf_puts(b, "$\\infty$");
    else if (!strcmp(num, "-inf"))
        sb__sbuf_puts(b, "$-\\infty$");
    else if (num[0] == '-' && num[1] != '-') {
        sb__sbuf_puts(b, "$-$");
        sb__sbuf_puts(b, num + 1);
    } else
        sb__sbuf_puts(b, num);
}

/* HTML text and attribute values alike: the five characters that could
 * end a text, an attribute or a tag (& < > " ') as references, a control
 * character or a byte that is not UTF-8 as '?' (sb__char_len, the one
 * cleaning the table and the CSV do), another character as it is. */
void sb__html_escape(sbuf *b, const char *s)
{
    for (const char *p = s; *p;) {
        int control;
        size_t n = sb__char_len(p, &control);
        switch (control ? '?' : *p) {
        case '&': sb__sbuf_puts(b, "&amp;"); break;
        case '<': sb__sbuf_puts(b, "&lt;"); break;
        case '>': sb__sbuf_puts(b, "&gt;"); break;
        case '"': sb__sbuf_puts(b, "&quot;"); break;
        case '\'': sb__sbuf_puts(b, "&#39;"); break;
        case '?': sbuf_putc(b, '?'); break;
        default: sbuf_putn(b, p, n);
        }
        p += n;
    }
}

/* ---- Rows --------------------------------------------------------------- */

typedef struct fmt {
    int lang; /* SB__LANG_* */
    sbuf *b;
} fmt;

static void put_text(const fmt *x, const char *s)
{
    if (x->lang == SB__LANG_TEX)
        sb__tex_escape(x->b, s);
    else if (x->lang == SB__LANG_HTML)
        sb__html_escape(x->b, s);
    else
        sb__md_escape(x->b, s);
}

static void put_number(const fmt *x, const char *num)
{
    if (x->lang == SB__LANG_TEX)
        tex_number(x->b, num);
    else
        sb__sbuf_puts(x->b, num);
}

/* An interval end with the value's decimals. */
static void put_end(const fmt *x, double v, int d)
{
    char t[NUMBUF];
    if (isnan(v))
        strcpy(t, "--");
    else if (isinf(v))
        strcpy(t, v > 0 ? "inf" : "-inf");
    else
        format_fixed(v, d, t);
    put_number(x, t);
}

/* The value and "[lo, hi]" of an interval into columns col, col + 1, all
 * three rounded to the digits the interval's half-width supports. */
static void put_interval(const fmt *x, grid *g, size_t col,
                         const sb_interval *iv)
{
    char t[NUMBUF];
    int d;

    if (isnan(iv->estimate)) {
        grid_set(g, col, "--");
        grid_set(g, col + 1, "--");
        return;
    }
    d = sb_format_rounded(iv->estimate, (iv->hi - iv->lo) / 2, t, sizeof t);
    put_number(x, t);
    grid_take(g, col, x->b);
    sbuf_putc(x->b, '[');
    put_end(x, iv->lo, d);
    sb__sbuf_puts(x->b, ", ");
    put_end(x, iv->hi, d);
    sbuf_putc(x->b, ']');
    grid_take(g, col + 1, x->b);
}


/* The rows' columns of the list (columns.c) that a run of cr shows, and
 * in HTML those marked for it too: an interval takes two, its value and
 * "[lo, hi]". */
static int shown(const sb__column *k, const fmt *x, const sb__colrun *cr)
{
    return (k->md || (x->lang == SB__LANG_HTML && (k->flags & SB__COL_HTML))) &&
           sb__column_shown(k, cr);
}

/* A column's head: the rows' name, the CSV's for a column HTML alone
 * shows. */
static const char *head(const sb__column *k, const fmt *x,
                        const sb__colrun *cr)
{
    if (cr->imported && k->data)
        return k->data;
    if (!k->md)
        return k->csv;
    return x->lang == SB__LANG_TEX ? k->tex : k->md;
}

/* The header row. */
static void header_row(const sb_run *run, const fmt *x, grid *g,
                       const sb__colrun *cr)
{
    double level = 100 * sb_run_analysis_options(run)->ci_level;
    size_t c = 0;

    grid_row(g);
    for (size_t j = 0; j < sb__ncolumns; j++) {
        const sb__column *k = &sb__columns[j];
        if (!shown(k, x, cr))
            continue;
        grid_set(g, c++, head(k, x, cr));
        if (k->kind != SB__COL_IV)
            continue;
        if (x->lang == SB__LANG_TEX)
            sb__sbuf_printf(x->b, "%g\\,\\%% CI", level);
        else
            sb__sbuf_printf(x->b, "%s%g%% CI", k->md_ci ? k->md_ci : "",
                            level);
        grid_take(g, c++, x->b);
    }
}

/* One row per cell: "--" where the cell has no value. */
static void cell_row(const sb_run *run, size_t i, const fmt *x, grid *g,
                     const sb__colrun *cr)
{
    char t[NUMBUF];
    size_t c = 0;

    grid_row(g);
    for (size_t j = 0; j < sb__ncolumns; j++) {
        const sb__column *k = &sb__columns[j];
        sb__colval v;
        if (!shown(k, x, cr))
            continue;
        sb__column_value(k, run, i, SB__COL_ROWS, &v);
        if (v.absent) {
            grid_set(g, c++, "--");
            if (k->kind == SB__COL_IV)
                grid_set(g, c++, "--");
            continue;
        }
        switch (k->rows) {
        case SB__ROWS_TEXT:
            put_text(x, v.s);
            grid_take(g, c++, x->b);
            break;
        case SB__ROWS_WORD:
            grid_set(g, c++, v.s);
            break;
        case SB__ROWS_COUNT:
            sb__sbuf_printf(x->b, "%zu", v.n);
            grid_take(g, c++, x->b);
            break;
        case SB__ROWS_ROUNDED: {
            sb_interval iv = {v.v[0], v.v[1], v.v[2], NAN, NAN};
            put_interval(x, g, c, &iv);
            c += 2;
            break;
        }
        case SB__ROWS_SIG2:
            format_sig2(v.v[0], t);
            put_number(x, t);
            /* '*': short of the precision target, as in the plain table. */
            if ((k->flags & SB__COL_SHORT) &&
                sb__report_cell_short(sb_run_cell(run, i)))
                sbuf_putc(x->b, '*');
            grid_take(g, c++, x->b);
            break;
        case SB__ROWS_P:
            format_p(v.v[0], x->lang == SB__LANG_TEX, t);
            grid_set(g, c++, t);
            break;
        }
    }
}

/* The whole grid of a run. */
static int build(const sb_run *run, int lang, grid *g, int *cmp_out)
{
    sbuf b = {0};
    fmt x = {lang, &b};
    sb__colrun cr;
    size_t n = sb_run_count(run);

    *g = (grid){0};
    sb__column_run(run, &cr);
    /* Left-aligned where the table's column is (the kernel, the
     * verdict), right-aligned elsewhere. */
    for (size_t j = 0; j < sb__ncolumns; j++) {
        const sb__column *k = &sb__columns[j];
        for (int p = 0;
             shown(k, &x, &cr) && p < (k->kind == SB__COL_IV ? 2 : 1);
             p++) {
            if (g->ncols == sizeof g->align)
                return -1;
            g->align[g->ncols++] = k->width < 0 ? 'l' : 'r';
        }
    }
    header_row(run, &x, g, &cr);
    for (size_t i = 0; i < n; i++)
        cell_row(run, i, &x, g, &cr);
    free(b.s);
    if (b.failed)
        g->failed = 1;
    *cmp_out = cr.cmp;
    return g->failed ? -1 : 0;
}

int sb__rows_grid(const sb_run *run, int lang, sb__grid *g, int *cmp)
{
    if (build(run, lang, g, cmp) != 0) {
        grid_free(g);
        *g = (grid){0};
        return -1;
    }
    return 0;
}

void sb__grid_free(sb__grid *g)
{
    grid_free(g);
    *g = (grid){0};
}

const char *sb__grid_at(const sb__grid *g, size_t r, size_t c)
{
    return grid_at(g, r, c);
}

void sb__put_invocations(sbuf *b, size_t m)
{
    if (m == 1)
        sb__sbuf_puts(b, "one invocation");
    else
        sb__sbuf_printf(b, "%zu invocations", m);
}

/* ---- The table in either style ------------------------------------------ */

int sb__rows_write(const sb_run *run, const sb__rows_style *st, FILE *f,
                   sb_error *err)
{
    sbuf b = {0};
    grid g;
    size_t *w;
    size_t nshort = sb__report_short_cells(run);
    int cmp;

    if (build(run, st->lang, &g, &cmp) != 0) {
        grid_free(&g);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    w = malloc(g.ncols * sizeof *w);
    st->caption(run, cmp, &b);
    if (b.failed || !w) {
        free(b.s);
        free(w);
        grid_free(&g);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    st->begin(run, &g, b.s, f);
    free(b.s);
    grid_widths(&g, w, st->min_width);
    grid_write_row(&g, 0, w, st->open, st->sep, st->close, f);
    st->rule(&g, w, f);
    for (size_t r = 1; r < g.nrows; r++)
        grid_write_row(&g, r, w, st->open, st->sep, st->close, f);
    st->end(run, nshort, f);
    free(w);
    grid_free(&g);
    return sb__report_flush(f, err);
}
