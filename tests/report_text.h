/*
 * report_text.h: a run's report as a string, for the tests that read what
 * a writer wrote (sb_report into an open_memstream).
 */
#ifndef SB_TEST_REPORT_TEXT_H
#define SB_TEST_REPORT_TEXT_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
