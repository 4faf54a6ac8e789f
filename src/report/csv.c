/* report/csv.c: the run as CSV (SB_FORMAT_CSV): one header row, one row
 * per cell, numbers in the C locale, for R and pandas as they read a CSV
 * by default.  See docs/design.md; the columns and the rules below are
 * documented in README.md ("Machine formats"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "columns.h"

/* The fixed columns are the cells' columns (columns.c) that have a CSV
 * name, in the list's order, whatever the run: a script finds each at one
 * place.  The counters' columns follow, named by csv_name. */

/* The four columns of each counter: its name (csv_name) and these. */
static const char *const part[] = {"per_call", "per_call_lo", "per_call_hi",
                                   "per_byte"};

/* A row being written: the separator goes before every field but the
 * first. */
typedef struct row {
    FILE *f;
    int first;
} row;

static void sep(row *w)
{
    if (!w->first)
        fputc(',', w->f);
    w->first = 0;
}

static void end_row(row *w)
{
    fputc('\n', w->f);
    w->first = 1;
}

/* A text field, the one way every text field is written (RFC 4180):
 * quoted, inner quotes doubled, when it holds a comma, a double quote, a
 * CR or a LF; as it is otherwise, the empty string (or none) as an empty
 * field.  A control character would be legal inside the quotes, but a
 * CSV is read on a terminal too and a row should stay one line: it is
 * written as '?', as in the table, so no CR or LF is ever left to
 * quote. */
static void text(row *w, const char *s)
{
    int quote = 0;
    size_t n;
    int control;

    sep(w);
    if (!s)
        return;
    for (const char *p = s; *p; p += n) {
        n = sb__char_len(p, &control);
        if (!control && strchr(",\"\r\n", *p))
            quote = 1;
    }
    if (quote)
        fputc('"', w->f);
    for (; *s; s += n) {
        n = sb__char_len(s, &control);
        if (*s == '"')
            fputc('"', w->f);
        if (control)
            fputc('?', w->f);
        else
            fwrite(s, 1, n, w->f);
    }
    if (quote)
        fputc('"', w->f);
}

/* A number with the given significant digits: a missing value (NAN) is
 * an empty field, the one encoding of a missing value; an infinity is
 * inf or -inf, which R, pandas and Python's float read as infinite. */
static void num(row *w, int digits, double x)
{
    sep(w);
    if (isnan(x))
        return;
    if (isinf(x))
        fputs(x > 0 ? "inf" : "-inf", w->f);
    else
        fprintf(w->f, "%.*g", digits, x);
}

static void count(row *w, size_t x)
{
    sep(w);
    fprintf(w->f, "%zu", x);
}

/* A counter's name as a column name (base): ASCII letters in lower case
 * and digits as they are, every run of other bytes ("::", '-', '_', a
 * space, UTF-8) as one '_', none at either end; "counter" before a name
 * that would be empty or start with a digit.  perf::CONTEXT-SWITCHES is
 * perf_context_switches, PAPI_TOT_CYC papi_tot_cyc. */
static void csv_name(char *out, size_t len, const char *name)
{
    size_t o = 0;
    int gap = 0;

    if (!(name[0] >= 'a' && name[0] <= 'z') &&
        !(name[0] >= 'A' && name[0] <= 'Z')) {
        o = (size_t)snprintf(out, len, "counter");
        gap = 1;
    }
    for (const unsigned char *p = (const unsigned char *)name;
         *p && o + 2 < len; p++) {
        int c = *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            if (gap && o > 0)
                out[o++] = '_';
            out[o++] = (char)c;
            gap = 0;
        } else {
            gap = 1;
        }
    }
    out[o] = '\0';
}

/* 1 when name is one of the fixed columns. */
static int csv_fixed(const char *name)
{
    char col[128];

    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        for (int p = 0; k->csv && p < sb__column_csv_parts(k); p++) {
            sb__column_csv_name(k, p, col, sizeof col);
            if (!strcmp(col, name))
                return 1;
        }
    }
    return 0;
}

/* 1 when one of the four columns of base is among the columns so far: the
 * fixed ones and the cols counters named before. */
static int csv_taken(const char *base, char (*names)[80], size_t cols)
{
    char col[128];

    for (int j = 0; j < 4; j++) {
        snprintf(col, sizeof col, "%.79s_%s", base, part[j]);
        if (csv_fixed(col))
            return 1;
        for (size_t k = 0; k < cols; k++) {
            char other[128];
            for (int i = 0; i < 4; i++) {
                snprintf(other, sizeof other, "%.79s_%s", names[k], part[i]);
                if (!strcmp(col, other))
                    return 1;
            }
        }
    }
    return 0;
}

static void csv_header(const sb_meta *m, row *w)
{
    char names[SB_MAX_COUNTERS][80];
    char col[128];

    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        for (int p = 0; k->csv && p < sb__column_csv_parts(k); p++) {
            sb__column_csv_name(k, p, col, sizeof col);
            text(w, col);
        }
    }
    for (size_t k = 0; k < m->ncounters && k < SB_MAX_COUNTERS; k++) {
        char base[64];
        csv_name(base, sizeof base, m->counter_names[k]);
        /* Two counters of one name after the mapping (perf::A-B and
         * perf::a_b), or one named like a fixed column (user_us): the
         * later one takes _2, _3, ... so every column name is unique. */
        snprintf(names[k], sizeof names[k], "%s", base);
        for (int d = 2; csv_taken(names[k], names, k); d++)
            snprintf(names[k], sizeof names[k], "%s_%d", base, d);
        for (int j = 0; j < 4; j++) {
            snprintf(col, sizeof col, "%.79s_%s", names[k], part[j]);
            text(w, col);
        }
    }
    end_row(w);
}

/* One cell's row: the fixed columns, then its counters. */
static void csv_row(const sb_run *run, size_t i, row *w)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_cell_result *r = sb_run_cell(run, i);

    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        sb__colval v;
        if (!k->csv)
            continue;
        sb__column_value(k, run, i, SB__COL_CSV, &v);
        switch (k->kind) {
        case SB__COL_TEXT:
            text(w, v.s);
            break;
        case SB__COL_COUNT:
            count(w, v.n);
            break;
        case SB__COL_IV:
            num(w, k->digits, v.v[0]);
            num(w, k->digits, v.v[1]);
            num(w, k->digits, v.v[2]);
            break;
        default:
            num(w, k->digits, v.v[0]);
        }
    }
    for (size_t k = 0; k < m->ncounters && k < SB_MAX_COUNTERS; k++) {
        int got = k < r->ncounters;
        num(w, 6, got ? r->counters[k].per_call.estimate : NAN);
        num(w, 6, got ? r->counters[k].per_call.lo : NAN);
        num(w, 6, got ? r->counters[k].per_call.hi : NAN);
        num(w, 6, got ? r->counters[k].per_byte : NAN);
    }
    end_row(w);
}

static int csv(const sb_run *run, FILE *f)
{
    row w = {f, 1};

    csv_header(sb_run_meta(run), &w);
    for (size_t i = 0; i < sb_run_count(run); i++)
        csv_row(run, i, &w);
    return ferror(f) ? -1 : 0;
}

int sb__write_csv(const sb_run *run, FILE *f, sb_error *err)
{
    if (csv(run, f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return sb__report_flush(f, err);
}
