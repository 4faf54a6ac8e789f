/*
 * test_tex.c: sb_format_rounded's rule on many cases, then the Markdown
 * and LaTeX reporters on runs made from samples (sb_run_from_samples_new),
 * with and without comparisons, and on a run shaped like a measured one
 * (six invocations, kernels, sizes and offsets) built through the
 * internal run API.  The outputs are checked for their structure: the
 * booktabs rules, one row per cell with the right number of cells,
 * escaped names and captions, balanced braces and math shifts, one
 * header and one separator of the same width.  When pdflatex is
 * installed the LaTeX is compiled too.  The compact report of both runs:
 * two header lines, one short line per cell in its metric's unit, the
 * comparison on the compared cell's line.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"
#include "tap.h"
#include "report_text.h"
#include "synth_run.h"

/* ---- sb_format_rounded -------------------------------------------------- */

struct rcase {
    double value, hw;
    const char *want;
    int decimals;
    const char *why;
};

static const struct rcase rcases[] = {
    /* The examples of the rule. */
    {123.456, 0.34, "123.5", 1, "hw 0.34: the tenths"},
    {123.456, 3.4, "123", 0, "hw 3.4: the units"},
    {12345, 340, "12300", -2, "hw 340: hundreds, rounded away"},
    {0.001234, 0.000012, "0.001234", 6, "hw 1.2e-5 leads with 1: one more"},
    {1.23456, 0.0123, "1.235", 3, "hw 0.0123: 3 decimals"},
    {1.23456, 0.0345, "1.23", 2, "hw 0.0345: 2 decimals"},
    {1.23456, 0.0299, "1.235", 3, "hw 0.0299 leads with 2: one more"},
    {1.23456, 0.3, "1.2", 1, "hw 0.3 (stored 0.2999...) leads with 3"},
    {0.4, (0.7 - 0.1) / 2, "0.4", 1,
     "hw (0.7 - 0.1) / 2 = 0.29999999999999993"},
    {5.678, 1, "5.7", 1, "hw 1 leads with 1: the tenths"},
    {5.678, 2.9, "5.7", 1, "hw 2.9 leads with 2: the tenths"},
    {5.678, 3.0, "6", 0, "hw 3: the units"},
    {99.96, 0.25, "99.96", 2, "hw 0.25: hundredths"},
    {99.96, 0.5, "100.0", 1, "rounding carries into a new digit"},
    {9.96, 1.0, "10.0", 1, "carry with a kept decimal"},
    {0.5, 0.0123, "0.500", 3, "trailing zeros the interval supports stay"},
    {12345, 12, "12345", 0, "hw 12 leads with 1: the units"},
    {12345, 29, "12345", 0, "hw 29 leads with 2: the units"},
    {12344, 30, "12340", -1, "hw 30: tens"},
    {12345, 1e4, "12000", -3, "hw 1e4 leads with 1: thousands"},
    {12345, 3e4, "10000", -4, "hw 3e4: ten thousands"},
    {4000, 3e4, "0", -4, "a value below its rounding unit is 0"},
    {1.5e20, 2e18, "150000000000000000000", -17, "large values keep zeros"},
    {0, 0.0123, "0.000", 3, "zero value, 3 decimals"},
    {7, 0.5, "7.0", 1, "integer value, one decimal"},
    /* Negative values. */
    {-123.456, 0.34, "-123.5", 1, "negative, tenths"},
    {-12345, 340, "-12300", -2, "negative, hundreds"},
    {-0.04, 0.3, "0.0", 1, "no minus sign on a value rounded to 0"},
    {-40, 300, "0", -2, "no minus sign on 0 with rounding to hundreds"},
    {-0.001234, 0.000012, "-0.001234", 6, "negative, small"},
    /* A half-width that says nothing: 6 significant digits, trailing
     * zeros dropped. */
    {123.456789, 0, "123.457", 3, "zero hw: 6 significant digits"},
    {2.5, 0, "2.5", 1, "zero hw: no zeros made up"},
    {100, 0, "100", 0, "zero hw on an integer"},
    {123456789, 0, "123457000", -3, "zero hw on a large value"},
    {0.000123456789, 0, "0.000123457", 9, "zero hw on a small value"},
    {0, 0, "0", 0, "zero value and zero hw"},
    {-2.5, 0, "-2.5", 1, "zero hw, negative"},
    {123.456789, NAN, "123.457", 3, "NaN hw as zero"},
    {123.456789, INFINITY, "123.457", 3, "infinite hw as zero"},
    {123.456789, -1, "123.457", 3, "negative hw as zero"},
    /* A half-width below a double's resolution: DBL_DIG digits at most. */
    {123, 1e-20, "123.000000000000", 12, "tiny hw capped at 15 digits"},
    /* Values that are no number. */
    {NAN, 1, "--", 0, "NaN value"},
    {NAN, 0, "--", 0, "NaN value, zero hw"},
    {INFINITY, 1, "inf", 0, "infinite value"},
    {-INFINITY, 1, "-inf", 0, "negative infinite value"},
};

static void test_rounding(void)
{
    char buf[64];
    int d;

    for (size_t i = 0; i < sizeof rcases / sizeof rcases[0]; i++) {
        const struct rcase *c = &rcases[i];
        memset(buf, 'x', sizeof buf);
        d = sb_format_rounded(c->value, c->hw, buf, sizeof buf);
        TAP_IS_STR(buf, c->want, "rounded %.17g +- %.17g: %s", c->value,
                   c->hw, c->why);
        TAP_IS_INT(d, c->decimals, "decimals of %.17g +- %.17g", c->value,
                   c->hw);
    }
    /* Truncation as snprintf, the decimals still returned. */
    d = sb_format_rounded(123.456, 0.34, buf, 4);
    TAP_IS_STR(buf, "123", "a short buffer truncates");
    TAP_IS_INT(d, 1, "a short buffer still returns the decimals");
    TAP_IS_INT(sb_format_rounded(123.456, 0.034, NULL, 0), 2,
               "a NULL buffer returns the decimals");
    /* Locale independence: the point is '.' under a decimal comma. */
    {
        static const char *const loc[] = {"de_DE.UTF-8", "de_DE.utf8",
                                           "fr_FR.UTF-8", "fr_FR.utf8"};
        const char *got = NULL;
        for (size_t i = 0; !got && i < sizeof loc / sizeof loc[0]; i++)
            got = setlocale(LC_NUMERIC, loc[i]);
        if (got) {
            sb_format_rounded(123.456, 0.34, buf, sizeof buf);
            TAP_IS_STR(buf, "123.5", "'.' under LC_NUMERIC=%s", got);
            setlocale(LC_NUMERIC, "C");
        } else {
            tap_skip("no locale with a decimal comma installed");
        }
    }
}

/* ---- Helpers over the reports ------------------------------------------- */

/* The lines of s: an array of n strings (copies), freed by free_lines. */
static char **split_lines(const char *s, size_t *n)
{
    size_t cap = 16, k = 0;
    char **v = malloc(cap * sizeof *v);
    while (v && *s) {
        size_t len = strcspn(s, "\n");
        if (k == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        if (!v)
            break;
        v[k] = strndup(s, len);
        k++;
        s += len;
        if (*s)
            s++;
    }
    *n = k;
    return v;
}

static void free_lines(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && !strcmp(s + a - b, end);
}

static size_t count_substr(const char *s, const char *sub)
{
    size_t k = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub))
        k++;
    return k;
}

/* Occurrences of c in s not escaped by a backslash (a backslash escapes
 * the character after it, a backslash included). */
static size_t count_unescaped(const char *s, char c)
{
    size_t k = 0;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            continue;
        }
        if (*s == c)
            k++;
    }
    return k;
}

/* LaTeX: checks over one document's text, skipping comment lines.
 * Returns a description of the first problem, or NULL: no empty line,
 * braces balanced
 * (never below zero), '$' balanced on every line, no '#', '%', '~', '_'
 * or '^' outside an escape (the last two allowed in math), and '&' only
 * on table rows (lines ending with \\). */
static const char *latex_problem(const char *doc, char *where, size_t len)
{
    size_t nlines;
    char **lines = split_lines(doc, &nlines);
    long depth = 0;
    const char *bad = NULL;

    for (size_t i = 0; !bad && i < nlines; i++) {
        const char *l = lines[i];
        int math = 0, row = ends_with(l, "\\\\");
        if (l[0] == '%')
            continue;
        if (l[0] == '\0') {
            bad = "an empty line (a paragraph break)";
            snprintf(where, len, "line %zu", i + 1);
            break;
        }
        for (const char *p = l; *p && !bad; p++) {
            if (*p == '\\' && p[1]) {
                p++; /* \{ \} \% \& \$ \# \_ \\ or a command's first
                        letter; the rest of a command name is letters */
                continue;
            }
            switch (*p) {
            case '{':
                depth++;
                break;
            case '}':
                if (--depth < 0)
                    bad = "a '}' closes nothing";
                break;
            case '$':
                math = !math;
                break;
            case '#':
            case '%':
            case '~':
                bad = "an unescaped # % or ~";
                break;
            case '_':
            case '^':
                if (!math)
                    bad = "an unescaped _ or ^ outside math";
                break;
            case '&':
                if (!row || math)
                    bad = "an '&' outside a table row";
                break;
            }
        }
        if (!bad && math)
            bad = "a '$' not closed on its line";
        if (bad)
            snprintf(where, len, "line %zu: %s", i + 1, l);
    }
    if (!bad && depth != 0)
        bad = "unbalanced braces";
    free_lines(lines, nlines);
    return bad;
}

/* The rows of a LaTeX table: lines ending with \\. */
static size_t latex_rows(const char *doc, size_t ncols, int *cells_ok)
{
    size_t nlines, rows = 0;
    char **lines = split_lines(doc, &nlines);
    *cells_ok = 1;
    for (size_t i = 0; i < nlines; i++) {
        if (!ends_with(lines[i], "\\\\"))
            continue;
        rows++;
        if (count_unescaped(lines[i], '&') + 1 != ncols) {
            *cells_ok = 0;
            tap_diag("  row with a wrong cell count: %s", lines[i]);
        }
    }
    free_lines(lines, nlines);
    return rows;
}

/* The column count of \begin{tabular}{...}. */
static size_t latex_columns(const char *doc)
{
    const char *p = strstr(doc, "\\begin{tabular}{");
    if (!p)
        return 0;
    p += strlen("\\begin{tabular}{");
    return strcspn(p, "}");
}

/* s with every run of blanks made one blank, in place: the reporters pad
 * their columns. */
static char *squeeze(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++)
        if (!(*r == ' ' && w > s && w[-1] == ' '))
            *w++ = *r;
    *w = '\0';
    return s;
}

/* The first line of doc that starts with s (starts) or, once squeezed,
 * holds s (!starts); squeezed, into buf.  NULL when there is none. */
static const char *row_where(const char *doc, const char *s, int starts,
                             char *buf, size_t len)
{
    size_t n = strlen(s);
    for (const char *p = doc; *p;) {
        size_t l = strcspn(p, "\n");
        if (!starts || (l >= n && !strncmp(p, s, n))) {
            snprintf(buf, len, "%.*s", (int)l, p);
            if (starts || strstr(squeeze(buf), s))
                return starts ? squeeze(buf) : buf;
        }
        p += l;
        if (*p)
            p++;
    }
    return NULL;
}

/* The first line of doc starting with prefix, squeezed, into buf. */
static const char *row_starting(const char *doc, const char *prefix,
                                char *buf, size_t len)
{
    return row_where(doc, prefix, 1, buf, len);
}

/* The first line of doc holding sub once squeezed, squeezed, into buf. */
static const char *row_with(const char *doc, const char *sub, char *buf,
                            size_t len)
{
    return row_where(doc, sub, 0, buf, len);
}

/* The line of text holding s, copied into buf. */
static const char *line_with(const char *doc, const char *s, char *buf,
                             size_t len)
{
    const char *p = strstr(doc, s), *b, *e;
    if (!p)
        return NULL;
    for (b = p; b > doc && b[-1] != '\n'; b--)
        ;
    e = p + strcspn(p, "\n");
    snprintf(buf, len, "%.*s", (int)(e - b), b);
    return buf;
}

/* pdflatex on doc, when installed: "ok", "skip" or the failure. */
static void compile_latex(const char *const *docs, size_t ndocs)
{
    char dir[] = "/tmp/sbtexXXXXXX", path[256], cmd[512];
    FILE *f;
    int rc;

    if (system("command -v pdflatex >/dev/null 2>&1") != 0) {
        tap_skip("no pdflatex");
        return;
    }
    if (!mkdtemp(dir)) {
        tap_ok(0, "a temporary directory for pdflatex");
        return;
    }
    snprintf(path, sizeof path, "%s/doc.tex", dir);
    f = fopen(path, "w");
    if (!f) {
        tap_ok(0, "writing %s", path);
        return;
    }
    fputs("\\documentclass{article}\n\\usepackage{booktabs}\n"
          "\\begin{document}\n",
          f);
    for (size_t i = 0; i < ndocs; i++)
        fputs(docs[i], f);
    fputs("\\end{document}\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd %s && pdflatex -interaction=nonstopmode -halt-on-error "
             "doc.tex >/dev/null 2>&1",
             dir);
    rc = system(cmd);
    tap_ok(rc == 0, "pdflatex compiles the tables (exit %d, in %s)", rc, dir);
    if (rc == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            tap_diag("could not remove %s", dir);
    }
}

/* A document as TAP diagnostics, so that the driver never reads its
 * lines as results. */
static void diag_doc(const char *doc)
{
    size_t n;
    char **lines = split_lines(doc, &n);
    for (size_t i = 0; i < n; i++)
        tap_diag("%s", lines[i]);
    free_lines(lines, n);
}

/* ---- Runs --------------------------------------------------------------- */

#define NCELLS 5
#define NSAMPLES 300

static const char *const names[NCELLS] = {
    "fast", "slow", "a_b&c%", "pipe|name", "t~^\\{}$#_*`",
};

/* Escaped forms of names[2..4]. */
static const char *const tex_names[NCELLS] = {
    "fast", "slow", "a\\_b\\&c\\%", "pipe\\textbar{}name",
    ("t\\textasciitilde{}\\textasciicircum{}\\textbackslash{}\\{\\}\\$\\#"
     "\\_*`"),
};
static const char *const md_names[NCELLS] = {
    "fast", "slow", "a_b&c%", "pipe\\|name", "t\\~^\\\\{}$#\\_\\*\\`",
};

static char *const command[] = {
    "statbench", "analyze", "--ci", "95", "a_b&c%.txt", "$HOME/#x",
    "{y}~^\\|", "two\n\nlines",
};
#define NCOMMAND (sizeof command / sizeof command[0])

static const char *const tex_command =
    "\\texttt{statbench analyze -{}-ci 95 a\\_b\\&c\\%.txt \\$HOME/\\#x "
    "\\{y\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
    "\\textbar{} two  lines}";
static const char *const md_command =
    "statbench analyze --ci 95 a_b&c%.txt $HOME/#x {y}\\~^\\\\\\| two  "
    "lines";

static sb_run *imported_run(void)
{
    static const double centre[NCELLS] = {100, 110, 100.3, 99.8, 250};
    static double data[NCELLS][NSAMPLES];
    const double *values[NCELLS];
    size_t n[NCELLS];
    uint64_t s = 42;
    sb_run *run = NULL;
    sb_error err = {0};

    for (size_t i = 0; i < NCELLS; i++) {
        for (size_t j = 0; j < NSAMPLES; j++)
            data[i][j] = centre[i] * (1 + 0.02 * (uniform(&s) - 0.5));
        values[i] = data[i];
        n[i] = NSAMPLES;
    }
    if (sb_run_from_samples_new(names, values, n, NCELLS, NULL, 1, &run,
                                &err) != SB_OK) {
        tap_diag("sb_run_from_samples_new: %s", err.text);
        return NULL;
    }
    if (sb_run_set_command(run, (int)NCOMMAND, command, &err) != SB_OK) {
        tap_diag("sb_run_set_command: %s", err.text);
        sb_run_free(run);
        return NULL;
    }
    return run;
}

/* A run shaped like a measured one: one kernel at 10240 bytes, source
 * offsets 0..3, six invocations of 50 samples each, TSC ticks at 3 GHz.
 * Offset 1 is 20% slower, the others within noise. */
#define MCELLS 4
#define MINV 6

/* A run of n cells not measured here, libc's at 10240 bytes and source
 * offsets 0, 1, ..., with the options' default but for the precision
 * target: a TSC at 3 GHz on a test CPU. */
static sb_run *new_run(size_t n, double precision)
{
    const sb_kernel *k = sb_kernel_find("libc");
    sb_analysis_options oa;
    sb_run *run;

    if (!k)
        k = sb_kernel_at(0);
    sb_analysis_options_init(&oa);
    oa.precision = precision;
    run = sb__run_alloc(n, NULL, &oa);
    if (!run)
        return NULL;
    for (size_t i = 0; i < n; i++)
        run->cells[i].cell = (sb_cell){k, 10240, i, 0};
    synth_tsc(run, 3e9);
    snprintf(run->meta.cpu_model, sizeof run->meta.cpu_model,
             "Test CPU_X #1 & co. 100%% ~fast");
    return run;
}

static sb_run *measured_run(void)
{
    sb_measure_options o;
    sb_analysis_options oa;
    sb_run *run;
    sb_error err = {0};
    uint64_t s = 7;
    double ticks[50];

    sb_measure_options_init(&o);
    sb_analysis_options_init(&oa);
    run = new_run(MCELLS, oa.precision);
    if (!run)
        return NULL;
    for (size_t g = 0; g < MINV; g++) {
        double shift = 1 + 0.01 * (uniform(&s) - 0.5);
        for (size_t i = 0; i < MCELLS; i++) {
            sb__raw_cell raw = {.nsamples = 50, .ticks = ticks, .iters = 8};
            for (size_t j = 0; j < 50; j++)
                ticks[j] = 1000 * shift * (i == 1 ? 1.2 : 1) *
                           (1 + 0.01 * (uniform(&s) - 0.5));
            if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    }
    if (!(run = synth_analysed(run, MINV)))
        return NULL;
    if (sb_run_set_command(run, (int)NCOMMAND, command, &err) != SB_OK) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

/* ---- LaTeX -------------------------------------------------------------- */

static void check_latex(const char *doc, const char *what, size_t ncells,
                        size_t ncols)
{
    char where[512];
    const char *bad;
    int cells_ok;
    const char *top, *mid, *bottom;

    if (!tap_ok(doc != NULL, "%s: LaTeX written", what))
        return;
    tap_ok(doc[0] == '%' && strstr(doc, "\\usepackage{booktabs}") &&
               strstr(doc, "\\usepackage{booktabs}") < strchr(doc, '\n'),
           "%s: the first line is a comment naming booktabs", what);
    tap_ok(!strncmp(strchr(doc, '\n') + 1, "\\begin{table}", 13) &&
               ends_with(doc, "\\end{table}\n"),
           "%s: one table environment, begin to end", what);
    TAP_IS_INT(count_substr(doc, "\\begin{tabular}"), 1,
               "%s: one tabular", what);
    TAP_IS_INT(count_substr(doc, "\\toprule"), 1, "%s: one \\toprule", what);
    TAP_IS_INT(count_substr(doc, "\\midrule"), 1, "%s: one \\midrule", what);
    TAP_IS_INT(count_substr(doc, "\\bottomrule"), 1, "%s: one \\bottomrule",
               what);
    top = strstr(doc, "\\toprule");
    mid = strstr(doc, "\\midrule");
    bottom = strstr(doc, "\\bottomrule");
    tap_ok(top && mid && bottom && top < mid && mid < bottom &&
               bottom < strstr(doc, "\\end{tabular}"),
           "%s: rules in order inside the tabular", what);
    TAP_IS_INT(count_substr(doc, "\\caption{"), 1, "%s: one caption", what);
    TAP_IS_INT(count_substr(doc, "\\label{tab:statbench}"), 1,
               "%s: the label", what);
    tap_ok(!strstr(doc, "siunitx") && !strstr(doc, "\\num{") &&
               !strstr(doc, "\\SI{"),
           "%s: no siunitx", what);
    TAP_IS_INT(latex_columns(doc), ncols, "%s: tabular columns", what);
    TAP_IS_INT(latex_rows(doc, ncols, &cells_ok), ncells + 1,
               "%s: a header and one row per cell end with \\\\", what);
    tap_ok(cells_ok, "%s: every row has %zu cells", what, ncols);
    bad = latex_problem(doc, where, sizeof where);
    if (!tap_ok(bad == NULL,
                "%s: braces and $ balanced, no unescaped specials", what))
        tap_diag("  %s: %s", bad, where);
    tap_ok(strstr(doc, tex_command) != NULL,
           "%s: the command escaped in the caption", what);
}

static void test_latex_imported(sb_run *run, char **keep)
{
    char *doc = report_text(run, SB_FORMAT_LATEX), line[1024];

    check_latex(doc, "imported", NCELLS, 4);
    if (!doc)
        return;
    for (size_t i = 0; i < NCELLS; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        char v[64], lo[64], hi[64], want[256];
        int d = sb_format_rounded(r->interval.estimate,
                                  (r->interval.hi - r->interval.lo) / 2, v,
                                  sizeof v);
        snprintf(lo, sizeof lo, "%.*f", d, r->interval.lo);
        snprintf(hi, sizeof hi, "%.*f", d, r->interval.hi);
        tap_ok(d >= 0 && d <= 3, "cell %zu: %d decimals for +-%.3g", i, d,
               (r->interval.hi - r->interval.lo) / 2);
        snprintf(want, sizeof want, "%s ", tex_names[i]);
        if (!tap_ok(row_starting(doc, want, line, sizeof line) != NULL,
                    "latex: a row of %s starts with its escaped name",
                    names[i]))
            continue;
        snprintf(want, sizeof want, " & %s & [%s, %s] & ", v, lo, hi);
        if (!tap_ok(strstr(line, want) != NULL,
                    "latex: %s's median and interval rounded alike",
                    names[i]))
            tap_diag("  want \"%s\" in \"%s\"", want, line);
    }
    tap_ok(!strstr(doc, "a_b&c%"), "latex: the raw name appears nowhere");
    /* The level in percent, as the table's header gives it. */
    if (!tap_ok(strstr(doc, "with 95\\,\\% confidence intervals (one "
                            "invocation)") != NULL,
                "latex: the caption's confidence level in percent"))
        tap_diag("  no '95\\,\\%% confidence' in the caption");
    *keep = doc;
}

static void test_latex_compared(sb_run *run, char **keep)
{
    size_t base[NCELLS] = {SIZE_MAX, 0, 0, 0, 0};
    sb_error err = {0};
    char *doc, line[1024];

    if (!tap_ok(sb_run_set_baselines(run, base, &err) == SB_OK,
                "baselines set"))
        tap_diag("  %s", err.text);
    doc = report_text(run, SB_FORMAT_LATEX);
    check_latex(doc, "compared", NCELLS, 8);
    if (!doc)
        return;
    tap_ok(strstr(doc, "$p$ (Holm)") && strstr(doc, "verdict"),
           "compared: p and verdict columns");
    tap_ok(row_starting(doc, "fast ", line, sizeof line) &&
               ends_with(line, "baseline \\\\"),
           "compared: the baseline row says so");
    /* slow is 10% slower with 1% noise: p far below 0.001. */
    if (tap_ok(row_starting(doc, "slow ", line, sizeof line) != NULL,
               "compared: a row for slow")) {
        tap_ok(strstr(line, "\\times10^{-") && strstr(line, "slower"),
               "compared: slow has p in scientific notation, slower");
        tap_diag("  %s", line);
    }
    tap_ok(strstr(doc, "Holm-adjusted") && strstr(doc, "$\\alpha = 0.05$"),
           "compared: the caption explains the comparison");
    *keep = doc;
}

static void test_latex_measured(sb_run *run, char **keep)
{
    size_t base[MCELLS] = {SIZE_MAX, 0, 0, 0};
    sb_error err = {0};
    char *doc, line[1024];
    const sb_cell_result *r = sb_run_cell(run, 1);

    doc = report_text(run, SB_FORMAT_LATEX);
    check_latex(doc, "measured", MCELLS, 8); /* + metric */
    if (doc) {
        tap_ok(strstr(doc, "over 6 invocations") &&
                   strstr(doc, "Test CPU\\_X \\#1 \\& co. 100\\% "
                               "\\textasciitilde{}fast"),
               "measured: invocations and the escaped CPU in the caption");
        tap_ok(row_starting(doc, "kernel ", line, sizeof line) &&
                   !strncmp(line, "kernel & size (B) & src & dst & MB/s & ",
                            39),
               "measured: kernel, size, offsets, MB/s");
    }
    free(doc);
    if (!tap_ok(sb_run_set_baselines(run, base, &err) == SB_OK,
                "measured: baselines set"))
        tap_diag("  %s", err.text);
    doc = report_text(run, SB_FORMAT_LATEX);
    check_latex(doc, "measured, compared", MCELLS, 12);
    if (doc && row_with(doc, " & 10240 & 1 & 0 & ", line, sizeof line)) {
        char v[64];
        sb_format_rounded(r->mbps.estimate, (r->mbps.hi - r->mbps.lo) / 2, v,
                          sizeof v);
        tap_ok(strstr(line, v) && strstr(line, "slower"),
               "measured: offset 1 at %s MB/s, slower", v);
        tap_diag("  %s", line);
    } else {
        tap_ok(0, "measured: a row for offset 1");
    }
    *keep = doc;
}

/* ---- Markdown ----------------------------------------------------------- */

static void check_markdown(const char *doc, const char *what, size_t ncells,
                           size_t ncols)
{
    size_t nlines, first = 0, ntable = 0, bad_cells = 0;
    char **lines;
    int sep_ok = 1;

    if (!tap_ok(doc != NULL, "%s: Markdown written", what))
        return;
    lines = split_lines(doc, &nlines);
    tap_ok(nlines > 2 && lines[0][0] == '*' && ends_with(lines[0], "*") &&
               lines[1][0] == '\0',
           "%s: a one-line italic caption, then a blank line", what);
    for (size_t i = 0; i < nlines; i++)
        if (lines[i][0] == '|') {
            if (!ntable++)
                first = i;
        }
    TAP_IS_INT(ntable, ncells + 2,
               "%s: header, separator and one line per cell", what);
    for (size_t i = first; i < first + ntable && i < nlines; i++) {
        if (lines[i][0] != '|' || !ends_with(lines[i], "|") ||
            count_unescaped(lines[i], '|') != ncols + 1) {
            bad_cells++;
            tap_diag("  %s", lines[i]);
        }
    }
    TAP_IS_INT(bad_cells, 0, "%s: every table line has %zu cells", what,
               ncols);
    if (first + 1 < nlines) {
        const char *s = lines[first + 1];
        sep_ok = strspn(s, "|-: ") == strlen(s) && strstr(s, "---");
        TAP_IS_INT(count_substr(doc, lines[first]), 1,
                   "%s: the header line appears once", what);
    }
    tap_ok(sep_ok, "%s: the second line is the separator", what);
    free_lines(lines, nlines);
}

static void test_markdown(sb_run *imported, sb_run *measured)
{
    char *doc = report_text(imported, SB_FORMAT_MARKDOWN), line[1024];

    /* imported has comparisons by now. */
    check_markdown(doc, "md imported", NCELLS, 8);
    if (doc) {
        for (size_t i = 0; i < NCELLS; i++) {
            char want[64];
            snprintf(want, sizeof want, "| %s ", md_names[i]);
            tap_ok(line_with(doc, want, line, sizeof line) &&
                       !strncmp(line, want, strlen(want)),
                   "md: %s escaped as %s, first in its row", names[i],
                   md_names[i]);
        }
        tap_ok(!strstr(doc, "pipe|name"), "md: no unescaped '|' in a name");
        tap_ok(strstr(doc, md_command) != NULL,
               "md: the command escaped in the caption");
        tap_ok(line_with(doc, "| slow ", line, sizeof line) &&
                   strstr(line, "e-") && strstr(line, "slower"),
               "md: slow has p in scientific notation, slower");
        tap_ok(strstr(doc, "ratio 95% CI") != NULL,
               "md: the ratio's interval column");
    }
    free(doc);
    doc = report_text(measured, SB_FORMAT_MARKDOWN);
    check_markdown(doc, "md measured", MCELLS, 12);
    if (doc) {
        tap_ok(strstr(doc, "Test CPU_X #1 & co. 100% \\~fast") &&
                   strstr(doc, "over 6 invocations"),
               "md measured: CPU and invocations in the caption");
        tap_ok(row_starting(doc, "| kernel ", line, sizeof line) &&
                   !strncmp(line, "| kernel | size | src | dst | MB/s | "
                                  "95% CI | +-% | metric | ratio |", 68),
               "md measured: kernel, size, offsets, MB/s, +-%% beside its "
               "metric, then the comparison");
        /* The delimiter row aligns the numbers right (a colon on the
         * right) and the kernel's name left. */
        tap_ok(row_starting(doc, "| -", line, sizeof line) &&
                   strstr(line, "-: |") && !strncmp(line, "| -", 3) &&
                   strchr(line, ':') > strstr(line, "- |"),
               "md measured: the delimiter row right-aligns the numbers, "
               "not the name (%s)", line);
        diag_doc(doc);
    }
    free(doc);
}

/* ---- Errors ------------------------------------------------------------- */

static void test_errors(sb_run *run)
{
    FILE *f = fopen("/dev/full", "w");
    sb_error err = {0};

    if (!f) {
        tap_skip("no /dev/full");
        tap_skip("no /dev/full");
        return;
    }
    TAP_IS_INT(sb_report(run, SB_FORMAT_MARKDOWN, f, &err), SB_EIO,
               "markdown to a full device: SB_EIO");
    clearerr(f);
    TAP_IS_INT(sb_report(run, SB_FORMAT_LATEX, f, &err), SB_EIO,
               "latex to a full device: SB_EIO");
    fclose(f);
}

/* ---- Every writer counts the same cells short ---------------------------- */

/* Two cells with samples, both short of a tight precision target, and one
 * without samples, which has no interval and is not counted short. */
static void test_short_cells(void)
{
    static const struct {
        int format;
        const char *note;
    } f[] = {
        {SB_FORMAT_TABLE, "\n* 2 cells stopped short"},
        {SB_FORMAT_MARKDOWN, "\n\\* 2 cells stopped short"},
        {SB_FORMAT_LATEX, "{\\footnotesize * 2 cells stopped short"},
        /* The target (1e-6) in percent of the median, as --precision
         * takes it. */
        {SB_FORMAT_LATEX, "short of the precision target ($\\pm0.0001$\\,"
                          "\\% of the median)"},
    };
    sb_run *run = new_run(3, 1e-6);
    sb_error err = {0};
    uint64_t s = 11;
    double ticks[40];

    if (!tap_ok(run != NULL, "short cells: run made"))
        return;
    run->invocations = 1;
    for (size_t i = 0; i < 2; i++) {
        sb__raw_cell raw = {.nsamples = 40, .ticks = ticks, .iters = 8};
        for (size_t j = 0; j < 40; j++)
            ticks[j] = 1000 * (1 + 0.05 * (uniform(&s) - 0.5));
        if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
            tap_ok(0, "short cells: samples added");
            sb_run_free(run);
            return;
        }
    }
    if (!tap_ok(sb__run_analyse(run, &err) == SB_OK, "short cells: analysed"))
        tap_diag("  %s", err.text);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char *doc = report_text(run, f[i].format);
        if (!tap_ok(doc && strstr(doc, f[i].note),
                    "short cells: format %d says '%s'", f[i].format,
                    f[i].note + (f[i].note[0] == '\n')) &&
            doc)
            diag_doc(doc);
        free(doc);
    }
    sb_run_free(run);
}

/* ---- Compact ------------------------------------------------------------ */

static void test_compact(sb_run *imported, sb_run *measured)
{
    size_t base[MCELLS] = {SIZE_MAX, 0, 0, 0}, n = 0, widest = 0;
    sb_error err = {0};
    char *doc, **lines, line[1024];

    TAP_IS_INT(sb_format_parse("compact"), SB_FORMAT_COMPACT,
               "compact: the format's name");
    TAP_IS_STR(sb_format_name(SB_FORMAT_COMPACT), "compact",
               "compact: and back");
    TAP_IS_INT(sb_format_for_path("gate.compact"), -1,
               "compact: no file ending selects it");
    TAP_IS_INT(sb_format_for_path("gate.txt"), SB_FORMAT_TABLE,
               "compact: .txt stays the table's");
    if (!tap_ok(sb_run_set_baselines(measured, base, &err) == SB_OK,
                "compact: baselines set (%s)", err.text))
        return;
    doc = report_text(measured, SB_FORMAT_COMPACT);
    if (!tap_ok(doc != NULL, "compact: written"))
        return;
    lines = split_lines(doc, &n);
    /* Two header lines, the four cells; no cell is short here. */
    TAP_IS_INT(n, 2 + MCELLS, "compact: two header lines and a line a cell");
    for (size_t i = 0; i < n; i++)
        if (strlen(lines[i]) > widest)
            widest = strlen(lines[i]);
    if (!tap_ok(widest <= 120, "compact: lines of at most 120 characters "
                               "(%zu)", widest) || getenv("SB_SHOW"))
        diag_doc(doc);
    tap_ok(n > 1 && !strncmp(lines[0], "statbench ", 10) &&
               strstr(lines[0], "two??lines") != NULL,
           "compact: the command on the first line, its newlines as '?'");
    tap_ok(n > 1 && strstr(lines[1], "over 6 invocations") &&
               strstr(lines[1], "Test CPU_X #1 & co. 100% ~fast"),
           "compact: the CPU and the invocations on the second");
    /* 1000 ticks at 3 GHz: 333 ns, judged in time (no core clock). */
    tap_ok(line_with(doc, "libc 10240 0/0  333", line, sizeof line) &&
               strstr(line, " ns [") && !strstr(line, " vs "),
           "compact: the baseline in ns, without a comparison");
    tap_ok(line_with(doc, "libc 10240 1/0", line, sizeof line) &&
               strstr(line, "  400.") && strstr(line, " ns [") &&
               strstr(line, "vs libc 10240 0/0 1.2") &&
               strstr(line, " slower p(adj) "),
           "compact: the slow offset named against its baseline, slower");
    tap_ok(line_with(doc, "libc 10240 2/0", line, sizeof line) &&
               strstr(line, "vs libc 10240 0/0 ") && !strstr(line, "slower"),
           "compact: an offset within noise is not slower");
    free_lines(lines, n);
    free(doc);

    doc = report_text(imported, SB_FORMAT_COMPACT);
    if (!tap_ok(doc != NULL, "compact imported: written"))
        return;
    lines = split_lines(doc, &n);
    TAP_IS_INT(n, 2 + NCELLS, "compact imported: a line a cell");
    tap_ok(n > 1 && strstr(lines[1], "over 1 unit"),
           "compact imported: its units counted as units");
    free_lines(lines, n);
    free(doc);

    /* The caller's title leads the first line, as in the table; its
     * control characters print as '?'. */
    if (!tap_ok(sb_run_set_title(imported, "gate\x1b[2J 4 KiB", NULL) ==
                    SB_OK,
                "compact imported: a title set"))
        return;
    doc = report_text(imported, SB_FORMAT_COMPACT);
    if (!tap_ok(doc != NULL, "compact titled: written"))
        return;
    lines = split_lines(doc, &n);
    tap_ok(n > 0 && !strncmp(lines[0], "gate?[2J 4 KiB (statbench ", 26) &&
               !strchr(lines[0], '\x1b'),
           "compact titled: the title first, cleaned (%s)",
           n > 0 ? lines[0] : "");
    sb_run_set_title(imported, "", NULL);
    tap_ok(line_with(doc, "pipe|name", line, sizeof line) &&
               !strncmp(line, "pipe|name", 9),
           "compact imported: a name as it is, first on its line");
    free_lines(lines, n);
    free(doc);
}

/* The compact report of a cell of milliseconds, in ms, and its header's
 * count of warnings: the audit's items that warn, not all of them. */
static void test_compact_units(void)
{
    sb_run *run = synth_one_cell("libc", 1e9);
    double ticks[40];
    char *doc, line[1024];
    uint64_t s = 11;

    if (!run) {
        tap_ok(0, "compact ms: a run");
        return;
    }
    /* 2.5e6 ticks of a 1 GHz timer: 2.5 ms a call. */
    for (size_t g = 0; g < 6; g++) {
        sb__raw_cell raw = {.nsamples = 40, .ticks = ticks, .iters = 1};
        for (size_t j = 0; j < 40; j++)
            ticks[j] = 2.5e6 * (1 + 0.001 * (uniform(&s) - 0.5));
        sb__run_add_invocation(run, 0, &raw);
    }
    run->meta.env.n = 3;
    run->meta.env.items[1].warn = 1;
    if (!(run = synth_analysed(run, 6))) {
        tap_ok(0, "compact ms: analysed");
        return;
    }
    doc = report_text(run, SB_FORMAT_COMPACT);
    line[0] = '\0';
    if (!tap_ok(doc && line_with(doc, "libc 4096 0/0  2.49", line,
                                 sizeof line) &&
                    strstr(line, " ms ["),
                "compact: 2.5e6 ticks at 1 GHz as 2.5 ms (%s)", line) &&
        doc)
        diag_doc(doc);
    tap_ok(doc && strstr(doc, "; 1 warning, "),
           "compact: one warning of the three audit items counted");
    free(doc);
    sb_run_free(run);
}

/* ---- The table's header ------------------------------------------------ */

/* The table's header gives each figure in the unit it names: the timer's
 * rate in MHz, the checks' cost in us, the probe's core clock in GHz (core
 * cycles per tick times ticks per second), the wait for a quiet core in
 * percent of the run, a sample in us, and at most one invocation when one
 * was asked for, whatever --max-invocations says. */
static void test_table_header(void)
{
    static const char *const want[] = {
        " at 2000 MHz (test)",
        "cost 2.5 us per sample",
        "core clock from an imul chain",
        "(core 3.00 GHz)",
        "waited 2.5 s for a quiet core (25% of the run)",
        "(at least 1, at most 1)",
        "sample ~50 us",
    };
    sb_measure_options o;
    sb_run *run;
    double ticks[40];
    uint64_t s = 5;
    char *doc;
    int ok = 1;

    sb_measure_options_init(&o);
    o.invocations = 1;
    o.max_invocations = 100;
    o.sample_seconds = 50e-6;
    run = sb__run_alloc(1, &o, NULL);
    if (!tap_ok(run != NULL, "table header: a run"))
        return;
    synth_tsc(run, 2e9);
    run->cells[0].cell =
        (sb_cell){.kernel = sb_kernel_find("libc"), .size = 4096};
    {
        sb__raw_cell raw = {.nsamples = 40, .ticks = ticks, .iters = 1};
        for (size_t j = 0; j < 40; j++)
            ticks[j] = 1000 * (1 + 0.01 * (uniform(&s) - 0.5));
        sb__run_add_invocation(run, 0, &raw);
    }
    run->meta.check_cost_seconds = 2.5e-6;
    snprintf(run->meta.probe, sizeof run->meta.probe, "imul-chain");
    run->meta.probe_clock = 1.5;
    run->meta.shared_wait_seconds = 2.5;
    run->elapsed = 10;
    if (!(run = synth_analysed(run, 1))) {
        tap_ok(0, "table header: analysed");
        return;
    }
    doc = report_text(run, SB_FORMAT_TABLE);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ok &= tap_ok(doc && strstr(doc, want[i]), "table header: '%s'",
                     want[i]);
    if (!ok && doc)
        diag_doc(doc);
    free(doc);
    sb_run_free(run);
}

/* The table's alignment matrix (one kernel and size over 2 x 2 offsets):
 * its half-width part gives each cell's relative half-width in percent,
 * as the rows' +-% column does. */
static void test_table_matrix(void)
{
    sb_run *run = sb__run_alloc(4, NULL, NULL);
    double ticks[40];
    uint64_t s = 23;
    char *doc, *part, *end;
    int ok = 1;

    if (!tap_ok(run != NULL, "table matrix: a run"))
        return;
    synth_tsc(run, 1e9);
    for (size_t i = 0; i < 4; i++)
        run->cells[i].cell = (sb_cell){.kernel = sb_kernel_find("libc"),
                                       .size = 4096,
                                       .src_align = i % 2,
                                       .dst_align = i / 2};
    /* Each cell's spread a few percent, a different one each. */
    for (size_t g = 0; g < 6; g++)
        for (size_t i = 0; i < 4; i++) {
            sb__raw_cell raw = {.nsamples = 40, .ticks = ticks, .iters = 1};
            for (size_t j = 0; j < 40; j++)
                ticks[j] = 1000 * (1 + 0.02 * (double)(g + i) / 6 +
                                   0.01 * (uniform(&s) - 0.5));
            sb__run_add_invocation(run, i, &raw);
        }
    if (!(run = synth_analysed(run, 6))) {
        tap_ok(0, "table matrix: analysed");
        return;
    }
    doc = report_text(run, SB_FORMAT_TABLE);
    part = doc ? strstr(doc, "CI half-width, +-% of median") : NULL;
    end = part ? strstr(part, "\n\n") : NULL;
    if (end)
        *end = '\0';
    if (!tap_ok(part != NULL, "table matrix: a half-width part"))
        ok = 0;
    for (size_t i = 0; part && i < 4; i++) {
        char want[64];
        const sb_cell_result *r = sb_run_cell(run, i);
        snprintf(want, sizeof want, " %8.2f", 100 * r->rel_halfwidth);
        ok &= tap_ok(100 * r->rel_halfwidth >= 0.1 && strstr(part, want),
                     "table matrix: cell %zu's half-width, %.2f%% of its "
                     "median", i, 100 * r->rel_halfwidth);
    }
    if (!ok && doc)
        diag_doc(doc);
    free(doc);
    sb_run_free(run);
}

/* A DEL in a string LaTeX prints (the title) is printed as a space, as
 * the other control characters are: a byte pdflatex rejects. */
static void test_latex_del(sb_run *run)
{
    char *doc;
    if (!tap_ok(sb_run_set_title(run, "del\x7f" "here", NULL) == SB_OK,
                "latex: a title with a DEL set"))
        return;
    doc = report_text(run, SB_FORMAT_LATEX);
    tap_ok(doc && !strchr(doc, 0x7f) && strstr(doc, "del here"),
           "latex: the title's DEL printed as a space");
    free(doc);
    sb_run_set_title(run, "", NULL);
}

int main(void)
{
    sb_run *imported, *measured;
    char *docs[3] = {NULL, NULL, NULL};

    test_rounding();
    imported = imported_run();
    measured = measured_run();
    if (!tap_ok(imported && measured, "runs made")) {
        sb_run_free(imported);
        sb_run_free(measured);
        return tap_done();
    }
    test_latex_imported(imported, &docs[0]);
    if (docs[0])
        diag_doc(docs[0]);
    test_latex_compared(imported, &docs[1]);
    test_latex_measured(measured, &docs[2]);
    if (docs[2])
        diag_doc(docs[2]);
    test_markdown(imported, measured);
    test_compact(imported, measured);
    test_compact_units();
    test_table_header();
    test_table_matrix();
    test_latex_del(imported);
    test_errors(imported);
    test_short_cells();
    {
        const char *d[3];
        size_t k = 0;
        for (size_t i = 0; i < 3; i++)
            if (docs[i])
                d[k++] = docs[i];
        compile_latex(d, k);
    }
    for (size_t i = 0; i < 3; i++)
        free(docs[i]);
    sb_run_free(imported);
    sb_run_free(measured);
    return tap_done();
}
