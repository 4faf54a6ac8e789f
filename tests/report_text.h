/*
 * report_text.h: a run's report as a string, for the tests that read what
 * a writer wrote (sb_report into an open_memstream).
 */
#ifndef SB_TEST_REPORT_TEXT_H
#define SB_TEST_REPORT_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "tap.h"

/* The report of run in format (SB_FORMAT_*), as a string the caller
 * frees; NULL, with a diagnostic line, when it cannot be written. */
static inline char *report_text(const sb_run *run, int format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sb_error err = {0};
    int rc;

    if (!f)
        return NULL;
    rc = sb_report(run, format, f, &err);
    fclose(f);
    if (rc != SB_OK) {
        tap_diag("sb_report: %s", err.text);
        free(buf);
        return NULL;
    }
    return buf;
}

/* Whether the report of run in format holds needle (not when it cannot
 * be written: report_text's diagnostic line says why). */
static inline int report_has(const sb_run *run, int format,
                             const char *needle)
{
    char *text = report_text(run, format);
    int found = text && strstr(text, needle) != NULL;
    free(text);
    return found;
}

/* run written as JSON (*text, the caller frees it) and loaded back: the
 * loaded run, or NULL with a diagnostic line. */
static inline sb_run *json_round_trip(const sb_run *run, char **text)
{
    sb_run *back = NULL;
    sb_error e = {0};
    FILE *f;

    *text = report_text(run, SB_FORMAT_JSON);
    if (!*text)
        return NULL;
    f = fmemopen(*text, strlen(*text), "r");
    if (!f || sb_run_load_new(f, "mem", NULL, &back, &e) != SB_OK)
        tap_diag("read: %s", e.text);
    if (f)
        fclose(f);
    return back;
}

/* The run saved in the tree's file rel (from the top of the source
 * tree, $top_srcdir as make check sets it), loaded: NULL, with a failed
 * check saying why, when it cannot be. */
static inline sb_run *fixture_run(const char *rel)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    sb_run *run = NULL;
    sb_error e = {0};
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", top && *top ? top : ".", rel);
    f = fopen(path, "r");
    if (!tap_ok(f && sb_run_load_new(f, path, NULL, &run, &e) == SB_OK,
                "%s loads (%s)", rel, f ? e.text : "cannot be opened"))
        run = NULL;
    if (f)
        fclose(f);
    return run;
}

/* The run of plan under o, with the plan freed: NULL, with a diagnostic
 * line, when it fails. */
static inline sb_run *measure_plan(sb_plan *plan,
                                   const sb_measure_options *o)
{
    sb_run *run = NULL;
    sb_error e = {0};

    if (sb_run_execute_new(plan, o, NULL, &run, &e) != SB_OK)
        tap_diag("measure: %s", e.text);
    sb_plan_free(plan);
    return run;
}

#endif
