/*
 * report/history_out.c: a history of runs (src/run/history.c) as a table,
 * CSV or JSON (sb_history_report).  It reads the history and its runs
 * through statbench.h only, as every writer does; strings from outside
 * (file names, kernel names, host and CPU) reach the output cleaned of
 * control characters.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_seed.h"
#include "report.h"
#include "text.h"

/* "libc 4096 B 0/0", or the name alone for imported values, cleaned. */
static void cell_label(const sb_history_cell *c, char *buf, size_t len)
{
    const char *k = c->cell.kernel && c->cell.kernel->name
                        ? c->cell.kernel->name
                        : "?";
    if (!strcmp(c->unit, ""))
        snprintf(buf, len, "%s", k);
    else
        snprintf(buf, len, "%s %zu B %zu/%zu", k, c->cell.size,
                 c->cell.src_align, c->cell.dst_align);
    sb__clean_text(buf);
}

static const char *start_of(const sb_history *h, size_t r)
{
    return sb_run_meta(sb_history_run(h, r))->start_time;
}

/* ---- table ----------------------------------------------------------- */

static void ratio_words(const sb_history_change *x, char *buf, size_t len)
{
    char e[48], lo[48], hi[48];
    double hw = (x->ratio.hi - x->ratio.lo) / 2;
    sb_format_rounded(x->ratio.estimate, hw, e, sizeof e);
    sb_format_rounded(x->ratio.lo, hw, lo, sizeof lo);
    sb_format_rounded(x->ratio.hi, hw, hi, sizeof hi);
    snprintf(buf, len, "%s [%s, %s] %s", e, lo, hi,
             x->slower ? "slower" : x->faster ? "faster" : "within threshold");
}

static void write_table(const sb_history *h, FILE *f)
{
    const sb_history_options *o = sb_history_options_of(h);
    const sb_meta *m = sb_run_meta(sb_history_run(h, sb_history_runs(h) - 1));
    char host[128], cpu[160], buf[256];
    const char *notes = sb_history_notes(h);

    snprintf(host, sizeof host, "%s", m->hostname);
    snprintf(cpu, sizeof cpu, "%s", m->cpu_model);
    sb__clean_text(host);
    sb__clean_text(cpu);
    fprintf(f, "statbench history: %zu run%s of host '%s', CPU '%s', %s to "
            "%s\n",
            sb_history_runs(h), sb_history_runs(h) == 1 ? "" : "s", host,
            cpu, start_of(h, 0), start_of(h, sb_history_runs(h) - 1));
    fprintf(f, "change points: E-Divisive means (exponent %g), p <= %g by "
            "%zu permutations, segments of %zu runs or more, seed %llu\n",
            o->exponent, o->pvalue, o->permutations, o->min_size,
            (unsigned long long)o->seed);
    fprintf(f, "size: median of the runs after / before, %g%% bootstrap "
            "CI; a regression: slower beyond %g%%\n",
            100 * o->level, 100 * o->threshold);
    while (*notes) {
        const char *nl = strchr(notes, '\n');
        size_t l = nl ? (size_t)(nl - notes) : strlen(notes);
        fprintf(f, "note: %.*s\n", (int)l, notes);
        notes += l + (nl != NULL);
    }
    for (size_t i = 0; i < sb_history_cells(h); i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        size_t k = 0;
        char label[160];
        cell_label(c, label, sizeof label);
        fprintf(f, "\n%s (%s%s): %zu run%s, %zu change point%s%s\n", label,
                c->unit[0] ? c->unit : "values",
                c->unit[0] ? " per call" : "", c->n, c->n == 1 ? "" : "s",
                c->nchanges, c->nchanges == 1 ? "" : "s",
                c->n < 2 * o->min_size ? " (too few runs to look for one)"
                                       : "");
        fprintf(f, "   run  start                 %12s  %-26s  file\n",
                "estimate", "interval");
        for (size_t p = 0; p < c->n; p++) {
            char e[48], lo[48], hi[48], iv[100];
            double hw = (c->hi[p] - c->lo[p]) / 2;
            if (k < c->nchanges && c->changes[k].point == p) {
                ratio_words(&c->changes[k], buf, sizeof buf);
                fprintf(f, "  ---- change: %s, p %.3g\n", buf,
                        c->changes[k].p);
                k++;
            }
            sb_format_rounded(c->estimate[p], hw, e, sizeof e);
            sb_format_rounded(c->lo[p], hw, lo, sizeof lo);
            sb_format_rounded(c->hi[p], hw, hi, sizeof hi);
            snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
            fprintf(f, "  %4zu  %-20s  %12s  %-26s  %s\n", c->run[p] + 1,
                    start_of(h, c->run[p]), e, iv,
                    sb_history_run_name(h, c->run[p]));
        }
        for (k = 0; k < c->nchanges; k++) {
            const sb_history_change *x = &c->changes[k];
            ratio_words(x, buf, sizeof buf);
            fprintf(f, "  change %zu: between runs %zu (%s) and %zu (%s): %s, "
                    "p %.3g\n",
                    k + 1, x->run_before + 1, start_of(h, x->run_before),
                    x->run_after + 1, start_of(h, x->run_after), buf, x->p);
        }
        if (c->regression)
            fprintf(f, "  REGRESSION: the newest run (%zu) makes the change "
                    "at run %zu detectable, slower beyond %g%%\n",
                    sb_history_runs(h),
                    c->changes[c->nchanges - 1].run_after + 1,
                    100 * o->threshold);
    }
    fprintf(f, "\n%zu cell%s where the newest run starts a regression\n",
            sb_history_regressions(h),
            sb_history_regressions(h) == 1 ? "" : "s");
}

/* ---- CSV ------------------------------------------------------------- */

/* A text field: cleaned, quoted when it holds a comma or a quote. */
static void csv_text(FILE *f, const char *s)
{
    char *c = sb__clean_copy(s ? s : "");
    const char *p = c ? c : "?";
    if (strpbrk(p, ",\"\r\n")) {
        fputc('"', f);
        for (; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    } else {
        fputs(p, f);
    }
    free(c);
}

static void csv_num(FILE *f, double v)
{
    if (isnan(v))
        return;
    if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", f);
    else
        fprintf(f, "%.10g", v);
}

static void write_csv(const sb_history *h, FILE *f)
{
    fputs("kernel,size,src_align,dst_align,unit,run,start_time,file,"
          "estimate,ci_lo,ci_hi,segment,change,ratio,ratio_ci_lo,"
          "ratio_ci_hi,p,regression\n",
          f);
    for (size_t i = 0; i < sb_history_cells(h); i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        size_t k = 0;
        for (size_t p = 0; p < c->n; p++) {
            const sb_history_change *x = NULL;
            if (k < c->nchanges && c->changes[k].point == p)
                x = &c->changes[k++];
            csv_text(f, c->cell.kernel ? c->cell.kernel->name : "?");
            fprintf(f, ",%zu,%zu,%zu,", c->cell.size, c->cell.src_align,
                    c->cell.dst_align);
            csv_text(f, c->unit);
            fprintf(f, ",%zu,", c->run[p] + 1);
            csv_text(f, start_of(h, c->run[p]));
            fputc(',', f);
            csv_text(f, sb_history_run_name(h, c->run[p]));
            fputc(',', f);
            csv_num(f, c->estimate[p]);
            fputc(',', f);
            csv_num(f, c->lo[p]);
            fputc(',', f);
            csv_num(f, c->hi[p]);
            fprintf(f, ",%zu,%d,", k + 1, x != NULL);
            if (x) {
                csv_num(f, x->ratio.estimate);
                fputc(',', f);
                csv_num(f, x->ratio.lo);
                fputc(',', f);
                csv_num(f, x->ratio.hi);
                fputc(',', f);
                csv_num(f, x->p);
                fprintf(f, ",%d\n",
                        c->regression && x == &c->changes[c->nchanges - 1]);
            } else {
                fputs(",,,,0\n", f);
            }
        }
    }
}

/* ---- JSON ------------------------------------------------------------ */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    char *c = sb__clean_copy(s ? s : "");
    json_t *j = c ? json_string(c) : json_null();
    free(c);
    return j;
}

static json_t *history_json(const sb_history *h)
{
    const sb_history_options *o = sb_history_options_of(h);
    json_t *runs = json_array(), *apart = json_array(), *cells = json_array();
    json_t *notes = json_array();
    const char *n = sb_history_notes(h);

    while (*n) {
        const char *nl = strchr(n, '\n');
        size_t l = nl ? (size_t)(nl - n) : strlen(n);
        char *line = strndup(n, l);
        json_array_append_new(notes, str(line));
        free(line);
        n += l + (nl != NULL);
    }
    for (size_t r = 0; r < sb_history_runs(h); r++) {
        const sb_meta *m = sb_run_meta(sb_history_run(h, r));
        json_array_append_new(
            runs, json_pack("{s:o, s:o, s:o, s:o}", "file",
                            str(sb_history_run_name(h, r)), "start_time",
                            str(m->start_time), "hostname", str(m->hostname),
                            "cpu_model", str(m->cpu_model)));
    }
    for (size_t r = 0; r < sb_history_apart(h); r++)
        json_array_append_new(apart, str(sb_history_apart_name(h, r)));
    for (size_t i = 0; i < sb_history_cells(h); i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        json_t *pts = json_array(), *chs = json_array();
        for (size_t p = 0; p < c->n; p++)
            json_array_append_new(
                pts, json_pack("{s:I, s:o, s:o, s:o}", "run",
                               (json_int_t)c->run[p], "estimate",
                               num(c->estimate[p]), "lo", num(c->lo[p]),
                               "hi", num(c->hi[p])));
        for (size_t k = 0; k < c->nchanges; k++) {
            const sb_history_change *x = &c->changes[k];
            json_array_append_new(
                chs,
                json_pack("{s:I, s:I, s:I, s:{s:o, s:o, s:o, s:o}, s:o, "
                          "s:o, s:b, s:b}",
                          "point", (json_int_t)x->point, "run_before",
                          (json_int_t)x->run_before, "run_after",
                          (json_int_t)x->run_after, "ratio", "estimate",
                          num(x->ratio.estimate), "lo", num(x->ratio.lo),
                          "hi", num(x->ratio.hi), "level",
                          num(x->ratio.level), "p", num(x->p), "q",
                          num(x->q), "slower", x->slower, "faster",
                          x->faster));
        }
        json_array_append_new(
            cells,
            json_pack("{s:o, s:I, s:I, s:I, s:s, s:o, s:o, s:b}", "kernel",
                      str(c->cell.kernel ? c->cell.kernel->name : "?"),
                      "size", (json_int_t)c->cell.size, "src_align",
                      (json_int_t)c->cell.src_align, "dst_align",
                      (json_int_t)c->cell.dst_align, "unit", c->unit,
                      "points", pts, "change_points", chs, "regression",
                      c->regression));
    }
    return json_pack(
        "{s:s, s:i, s:{s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o}, s:o, s:o, "
        "s:o, s:o, s:I}",
        "schema", "statbench-history", "schema_version", 1, "options",
        "method", "e-divisive-means", "exponent", num(o->exponent), "pvalue",
        num(o->pvalue), "permutations", (json_int_t)o->permutations,
        "min_size", (json_int_t)o->min_size, "seed", sb__json_seed(o->seed),
        "level", num(o->level), "threshold", num(o->threshold), "runs", runs,
        "kept_apart", apart, "notes", notes, "cells", cells, "regressions",
        (json_int_t)sb_history_regressions(h));
}

int sb_history_report(const sb_history *h, int format, FILE *f,
                      sb_error *err)
{
    locale_t c_locale, old = (locale_t)0;
    int rc = SB_OK;

    if (!h || !f)
        return sb__error(err, SB_EINVAL, "sb_history_report: %s is NULL",
                         h ? "f" : "h");
    if (format != SB_FORMAT_TABLE && format != SB_FORMAT_CSV &&
        format != SB_FORMAT_JSON)
        return sb__error(err, SB_EINVAL,
                         "a history is written as table, csv or json, not "
                         "%s",
                         sb_format_name(format));
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c_locale)
        old = uselocale(c_locale);
    if (format == SB_FORMAT_TABLE) {
        write_table(h, f);
    } else if (format == SB_FORMAT_CSV) {
        write_csv(h, f);
    } else {
        json_t *root = history_json(h);
        if (!root || json_dumpf(root, f, JSON_INDENT(1) |
                                             JSON_REAL_PRECISION(10)) != 0)
            rc = sb__error(err, root ? SB_EIO : SB_ENOMEM,
                           root ? "writing the history failed"
                                : "out of memory");
        else
            fputc('\n', f);
        json_decref(root);
    }
    if (c_locale) {
        uselocale(old);
        freelocale(c_locale);
    }
    if (rc == SB_OK && ferror(f))
        rc = sb__error(err, SB_EIO, "writing the history failed");
    return rc;
}
