/*
 * fuzz_history.c: libFuzzer harness for the history of runs and its
 * writers: sb_history_new() (src/run/history.c: start times read,
 * machines told apart, cells matched, change points and their sizes)
 * and sb_history_report() (src/report/history_out.c: table, CSV, JSON)
 * and sb_history_plot() (src/report/figure_history.c).
 *
 * The input: two bytes of options (segments of 2 to 5 runs, 19 to 58
 * permutations, a threshold of 0 to 49%), then up to 48 runs separated
 * by NUL bytes, each its file name up to the first newline (any bytes:
 * the names reach every output) and a saved run's JSON after it, read
 * by sb_run_load_new.  Runs the reader refuses are left out, as
 * `statbench history` never gets that far with them.  Then:
 *   - a refused history says why, and leaves nothing;
 *   - each of table, CSV and JSON is written (SB_OK), with no control
 *     character but newlines (names are cleaned), and the JSON reads back
 *     as a statbench-history with as many runs and cells as the history;
 *   - a format a history is not written in is refused, not written;
 *   - the figure's script, written beside a gnuplot that does not exist,
 *     is inert (tests/gp_check.h).
 * Every history and run is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../gp_check.h"
#include "fuzz.h"
#include "statbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RUNS 48

static char dir[256];

/* Each input unlinks what it wrote there, so the directory is empty at
 * the end (libFuzzer ends by exit()): one left per process otherwise. */
static void remove_dir(void)
{
    rmdir(dir);
}

static void init(void)
{
    snprintf(dir, sizeof dir, "%s/sbfuzzhistXXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    atexit(remove_dir);
}

/* The history written in format into a new string (SB_OK required). */
static char *written(const sb_history *h, int format, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    sb_error err = {0};

    CHECK(m != NULL);
    CHECK(sb_history_report(h, format, m, &err) == SB_OK);
    fclose(m);
    return buf;
}

static void check_writers(const sb_history *h)
{
    static const int formats[] = {SB_FORMAT_TABLE, SB_FORMAT_CSV,
                                  SB_FORMAT_JSON};
    sb_error err = {0};

    for (size_t k = 0; k < sizeof formats / sizeof *formats; k++) {
        size_t len = 0;
        char *out = written(h, formats[k], &len);
        CHECK(out != NULL && len > 0 && strlen(out) == len);
        for (size_t i = 0; i < len; i++)
            CHECK(out[i] == '\n' || !gp__ctrl((unsigned char)out[i]));
        if (formats[k] == SB_FORMAT_JSON) {
            json_error_t je;
            json_t *doc = json_loads(out, 0, &je);
            CHECK(doc != NULL);
            CHECK(json_is_string(json_object_get(doc, "schema")) &&
                  !strcmp(json_string_value(json_object_get(doc, "schema")),
                          "statbench-history"));
            CHECK(json_array_size(json_object_get(doc, "runs")) ==
                  sb_history_runs(h));
            CHECK(json_array_size(json_object_get(doc, "cells")) ==
                  sb_history_cells(h));
            json_decref(doc);
        }
        free(out);
    }
    CHECK(sb_history_report(h, SB_FORMAT_MARKDOWN, devnull, &err) !=
          SB_OK);
    CHECK(err.text[0] != '\0');
}

/* The figure's script beside a gnuplot that does not exist: inert. */
static void check_figure(const sb_history *h)
{
    char fig[300], gp[300], dat[300];
    sb_error err = {0};
    char *text;
    int rc;

    snprintf(fig, sizeof fig, "%s/h.svg", dir);
    snprintf(gp, sizeof gp, "%s/h.gp", dir);
    snprintf(dat, sizeof dat, "%s/h.dat", dir);
    rc = sb_history_plot(h, fig, "/nonexistent/gnuplot", &err);
    CHECK(rc != SB_OK && err.text[0] && !strchr(err.text, '\n'));
    text = slurp(gp);
    if (text) {
        const char *why = gp_problem(text);
        if (why) {
            fprintf(stderr, "script: %s\n", why);
            CHECK(why == NULL);
        }
        free(text);
    }
    unlink(gp);
    unlink(dat);
    unlink(fig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sb_run *runs[MAX_RUNS];
    char *names[MAX_RUNS];
    size_t n = 0, at = 2;
    sb_history_options o;
    sb_history *h = NULL;
    sb_error err = {0};
    int rc;

    if (!dir[0])
        init();
    if (size < 2)
        return 0;
    sb_history_options_init(&o);
    o.min_size = 2 + data[0] % 4;
    o.permutations = 19 + (size_t)(data[0] >> 2) % 40;
    o.threshold = (data[1] % 50) / 100.0;
    while (at < size && n < MAX_RUNS) {
        const uint8_t *end = memchr(data + at, '\0', size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        const uint8_t *nl = memchr(data + at, '\n', len);
        size_t nlen = nl ? (size_t)(nl - (data + at)) : 0;
        /* fmemopen wants a writable buffer; an exact-size copy keeps
         * ASan's eye on reads past the end. */
        char *json = malloc(len - nlen ? len - nlen : 1);
        FILE *f;
        sb_run *run = NULL;

        CHECK(json != NULL);
        names[n] = malloc(nlen + 1);
        CHECK(names[n] != NULL);
        memcpy(names[n], data + at, nlen);
        names[n][nlen] = '\0';
        memcpy(json, data + at + nlen, len - nlen);
        f = fmemopen(json, len - nlen, "r");
        if (f && sb_run_load_new(f, names[n], NULL, &run, NULL) == SB_OK)
            runs[n++] = run;
        else
            free(names[n]);
        if (f)
            fclose(f);
        free(json);
        at += len + 1;
    }
    if (n > 0) {
        rc = sb_history_new((const sb_run *const *)runs,
                            (const char *const *)names, n, &o, &h, &err);
        if (rc != SB_OK) {
            CHECK(h == NULL && err.code == rc && err.text[0] != '\0');
        } else {
            CHECK(sb_history_runs(h) + sb_history_apart(h) == n);
            check_writers(h);
            check_figure(h);
        }
    }
    sb_history_free(h);
    for (size_t i = 0; i < n; i++) {
        sb_run_free(runs[i]);
        free(names[i]);
    }
    return 0;
}
