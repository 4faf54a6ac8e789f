/*
 * report/columns.h: the one list of a cell's columns (columns.c) that the
 * table's rows, the CSV and the Markdown and LaTeX rows (rows.c) walk, as
 * Google Benchmark's reporters walk a run's counters.  Never installed.
 *
 * A row of the list is one figure of a cell: its name in each writer
 * that shows it (NULL: that writer does not), when the table and the
 * rows show it, how each writer formats it, and how its value is read
 * from the cell through the public accessors.  The list is in the CSV's
 * order, which is append-only (a script may read a column by its place);
 * the table and the rows show their columns in the same order, so that a
 * new column goes at the end or, when it must sit elsewhere in the table,
 * at its place among the CSV's.  The JSON keeps its own list (schema.c,
 * which the loader walks too): a row names the cell's JSON field its
 * value is, by the schema's SB__JK_* key, and tests/test_schema.c checks
 * that every key it names is a field of the cell.
 */
#ifndef SB_REPORT_COLUMNS_H
#define SB_REPORT_COLUMNS_H

#include <stddef.h>

#include "report.h"

/* The writers that walk the list; a getter may answer each its own way. */
enum sb__col_writer { SB__COL_TABLE, SB__COL_CSV, SB__COL_ROWS };

/* What a column holds: a text, a number, a count, or an interval (three
 * columns in the table and the CSV, two in the rows: the value and
 * "[lo, hi]"). */
enum sb__col_kind { SB__COL_TEXT, SB__COL_NUM, SB__COL_COUNT, SB__COL_IV };

/* How the rows (Markdown, LaTeX) write a value. */
enum sb__col_rows {
    SB__ROWS_TEXT,    /* escaped: a string from outside (a kernel's name) */
    SB__ROWS_WORD,    /* as it is: one of the program's own words */
    SB__ROWS_COUNT,   /* %zu */
    SB__ROWS_ROUNDED, /* an interval, to the digits its width supports */
    SB__ROWS_SIG2,    /* two significant digits */
    SB__ROWS_P        /* a p-value (scientific below 0.001) */
};

/* When the table and the rows show a column (the CSV writes every column
 * it names, whatever the run, so that each stays at its place). */
#define SB__COL_MEASURED 0x01u /* not for imported samples */
#define SB__COL_IMPORTED 0x02u /* only for imported samples */
#define SB__COL_CLOCK 0x04u    /* only when some cell has a core clock */
#define SB__COL_CMP 0x08u      /* only when some cell has a comparison */
#define SB__COL_INV 0x10u      /* only with more than one invocation */
/* How they show it. */
#define SB__COL_SAMPLES 0x20u /* none ("-", "--") for a cell without samples */
#define SB__COL_EST 0x40u     /* the table: an interval's estimate alone */
#define SB__COL_TICKS 0x80u   /* the table: its head is the timer's word for
                                 its ticks (sb__timer_kind.column), then
                                 table[0] */
#define SB__COL_SHORT 0x100u  /* the rows: '*' after the value of a cell
                                 short of the precision target */
#define SB__COL_FINITE 0x200u /* the table: none where the value (an
                                 interval's estimate) is not finite */
#define SB__COL_HTML 0x400u   /* HTML's rows show it beside the rows'
                                 columns, headed by its CSV name (rows:
                                 how it is written) */

/* Which of the table's layouts show a column (sb__column.layouts; 0 is
 * the throughput rows alone): the throughput rows of a measured copy or
 * clear run, the rows of imported samples, and the allocation rows.  Each
 * layout shows its columns in the list's order, so that a column of one
 * layout alone sits among the others where that layout wants it. */
#define SB__TAB_THROUGHPUT 0x01u
#define SB__TAB_IMPORTED 0x02u
#define SB__TAB_ALLOC 0x04u
#define SB__TAB_ALL (SB__TAB_THROUGHPUT | SB__TAB_IMPORTED | SB__TAB_ALLOC)

/* One cell's value of a column, for one writer.  absent: nothing to show
 * ("-" in the table, "--" in the rows); the CSV writes a missing number
 * (NAN) or text (NULL) as an empty field and ignores absent. */
typedef struct sb__colval {
    double v[3]; /* a number, or an interval's estimate, lo and hi */
    size_t n;    /* a count */
    const char *s;
    int absent;
} sb__colval;

typedef struct sb__column sb__column;

/* Fills out with cell i's value of col for writer (enum sb__col_writer);
 * out arrives zeroed. */
typedef void (*sb__col_get)(const sb__column *col, const sb_run *run,
                            size_t i, int writer, sb__colval *out);

struct sb__column {
    /* The names: the CSV's (an interval's estimate; csv_ci + "_lo" and
     * "_hi" name its ends), the table's (an interval's three columns),
     * the rows' in Markdown and in LaTeX (md_ci: what goes before the
     * level in the head of an interval's "[lo, hi]" column in Markdown;
     * data: the Markdown and LaTeX head for imported samples). */
    const char *csv, *csv_ci;
    const char *table[3];
    const char *md, *tex, *md_ci, *data;
    /* The cell's field in the JSON (an SB__JK_* key of schema.h); NULL
     * for a figure of the run's rather than of the cell's. */
    const char *json;
    unsigned char kind; /* enum sb__col_kind */
    unsigned flags;     /* SB__COL_* */
    unsigned char layouts; /* SB__TAB_*: the table's layouts showing it */
    /* The table's format: the field's width (negative: left-aligned) and
     * a number's conversion ('f', 'g' or '#' for %#g) and precision. */
    int width;
    char conv;
    int prec;
    int digits;        /* the CSV's significant digits of a number */
    unsigned char rows; /* enum sb__col_rows */
    sb__col_get get;
    /* What a generic getter reads: an offset in sb_cell_result (or in
     * sb_comparison), and an argument (a reject reason, user or sys). */
    size_t off;
    int arg;
};

extern const sb__column sb__columns[];
extern const size_t sb__ncolumns;

/* What the conditions of SB__COL_* ask of a run, answered once. */
typedef struct sb__colrun {
    int imported, clk, cmp, inv;
} sb__colrun;

void sb__column_run(const sb_run *run, sb__colrun *cr);

/* 1 when the table or the rows show col for a run of cr. */
int sb__column_shown(const sb__column *col, const sb__colrun *cr);

/* Cell i's value of col for writer, SB__COL_SAMPLES applied. */
void sb__column_value(const sb__column *col, const sb_run *run, size_t i,
                      int writer, sb__colval *out);

/* The CSV's name of part (0: the value; 1, 2: an interval's ends) of col
 * into buf. */
void sb__column_csv_name(const sb__column *col, int part, char *buf,
                         size_t len);

/* The number of CSV columns of col: 3 for an interval, else 1. */
int sb__column_csv_parts(const sb__column *col);

#endif
