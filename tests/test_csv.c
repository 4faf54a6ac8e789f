/*
 * test_csv.c: the CSV writer through the C API: cells named by the
 * caller with a comma, a quote, a newline and a CR; infinities and
 * missing values.  The file is split again by an RFC 4180 reader written
 * here, independent of the writer: every row as wide as the header, the
 * names back (controls as '?'), inf and -inf where the values are
 * infinite, no "nan" anywhere, and quotes only around the fields that
 * hold a comma or a quote.  tests/csv.sh reads files of the command
 * with Python's csv module.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"
#include "statbench.h"
#include "tap.h"

#define MAXF 128
#define MAXR 8

/* The CSV split by RFC 4180: fields[r][c] (owned by text, which is
 * changed in place), widths in w[r], 1 in quoted[r][c] for a quoted
 * field.  Returns the number of rows, or -1 for a stray quote. */
static int split(char *text, char *fields[MAXR][MAXF], int w[MAXR],
                 int quoted[MAXR][MAXF])
{
    int r = 0, c = 0;
    char *p = text;

    while (*p && r < MAXR) {
        char *out = p, *start = p;
        quoted[r][c] = *p == '"';
        if (quoted[r][c]) {
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"' && p[1] == '"')
                    p++;
                else if (*p == '"')
                    break;
                *out++ = *p++;
            }
            p++;
        } else {
            while (*p && *p != ',' && *p != '\n') {
                if (*p == '"' || *p == '\r')
                    return -1;
                *out++ = *p++;
            }
        }
        if (*p != ',' && *p != '\n')
            return -1;
        if (c < MAXF)
            fields[r][c++] = start;
        if (*p == '\n') {
            w[r++] = c;
            c = 0;
        }
        *out = '\0';
        p++;
    }
    return r;
}

static int col(char *fields[MAXR][MAXF], int w, const char *name)
{
    for (int c = 0; c < w; c++)
        if (!strcmp(fields[0][c], name))
            return c;
    return -1;
}

int main(void)
{
    static const char *const names[] = {"a,b\"c\nd\re", "plain", "x\"y"};
    static const double v[] = {5, 7, 6, 8, 9, 4, 6, 7};
    const double *values[] = {v, v, v};
    const size_t n[] = {8, 8, 8};
    sb_run *run = NULL;
    sb_error err = {0};
    char *buf = NULL, *fields[MAXR][MAXF];
    size_t len = 0;
    int w[MAXR], quoted[MAXR][MAXF], rows, c;
    FILE *f;

    if (!tap_ok(sb_run_from_samples_new(names, values, n, 3, NULL, 1, &run,
                                        &err) == SB_OK,
                "a run of three named cells (%s)", err.text)) {
        tap_done();
        return 1;
    }
    /* An unbounded interval, as a throughput over a zero time would be. */
    run->cells[1].mbps.hi = INFINITY;
    run->cells[1].mbps.lo = -INFINITY;
    f = open_memstream(&buf, &len);
    tap_ok(f && sb_report(run, SB_FORMAT_CSV, f, &err) == SB_OK,
           "sb_report SB_FORMAT_CSV (%s)", err.text);
    if (f)
        fclose(f);
    tap_ok(buf && !strstr(buf, "nan") && !strstr(buf, "NaN"),
           "no nan: a missing value is an empty field");
    tap_ok(buf && !strchr(buf, '\r'), "no CR: LF line ends, CR as '?'");
    rows = buf ? split(buf, fields, w, quoted) : -1;
    if (!tap_ok(rows == 4, "RFC 4180: a header and 3 rows (got %d)", rows)) {
        free(buf);
        sb_run_free(run);
        tap_done();
        return 1;
    }
    tap_ok(w[1] == w[0] && w[2] == w[0] && w[3] == w[0] && w[0] == 65,
           "every row as wide as the header, 65 columns (%d %d %d %d)",
           w[0], w[1], w[2], w[3]);
    tap_ok(!strcmp(fields[1][0], "a,b\"c?d?e") && quoted[1][0],
           "a name with a comma, a quote, LF and CR: quoted, controls '?'");
    tap_ok(!strcmp(fields[2][0], "plain") && !quoted[2][0],
           "a plain name: bare");
    tap_ok(!strcmp(fields[3][0], "x\"y") && quoted[3][0],
           "a name with a quote: quoted");
    c = col(fields, w[0], "mbps_ci_hi");
    tap_ok(c >= 0 && !strcmp(fields[2][c], "inf"), "+infinity as inf");
    c = col(fields, w[0], "mbps_ci_lo");
    tap_ok(c >= 0 && !strcmp(fields[2][c], "-inf"), "-infinity as -inf");
    c = col(fields, w[0], "ratio");
    tap_ok(c >= 0 && !strcmp(fields[1][c], ""), "no comparison: empty");
    c = col(fields, w[0], "ci_method");
    tap_ok(c >= 0 && fields[1][c][0] && !quoted[1][c],
           "a text without a comma or quote (ci_method) is bare");
    /* Samples from elsewhere: their unit is unknown, and so is a rate. */
    c = col(fields, w[0], "unit");
    tap_ok(c >= 0 && !strcmp(fields[1][c], ""), "imported: unit empty");
    c = col(fields, w[0], "timer_hz");
    tap_ok(c >= 0 && !strcmp(fields[1][c], ""), "imported: timer_hz empty");
    {
        int bad = 0;
        for (int r = 0; r < 4; r++)
            for (int k = 1; k < w[r]; k++)
                if (quoted[r][k] && !strpbrk(fields[r][k], ",\""))
                    bad++;
        tap_ok(!bad, "no other field quoted (%d)", bad);
    }
    free(buf);
    sb_run_free(run);
    return tap_done();
}
