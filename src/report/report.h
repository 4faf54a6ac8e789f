/*
 * report/report.h: what the writers of src/report/ share, never installed.
 * A writer sees the run only through the public accessors of statbench.h
 * (docs/design.md, "Who owns what"); this header adds the writers' entry
 * points (report.c dispatches to them) and the few questions every
 * writer asks the same way (ask.c).
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>

#include "sb_internal.h"

/* One writer per format, each in its own file, reached from sb_report's
 * table of writers (report.c) inside its C-locale wrapper.  Each returns
 * SB_OK, or SB_ENOMEM or SB_EIO with err filled. */
int sb__write_table(const sb_run *run, FILE *f, sb_error *err);
int sb__write_csv(const sb_run *run, FILE *f, sb_error *err);
int sb__write_json(const sb_run *run, FILE *f, sb_error *err);
int sb__write_markdown(const sb_run *run, FILE *f, sb_error *err);
int sb__write_latex(const sb_run *run, FILE *f, sb_error *err);
int sb__write_compact(const sb_run *run, FILE *f, sb_error *err);
int sb__write_html(const sb_run *run, FILE *f, sb_error *err);

/* table.c's parts that the HTML page shows too, so that the two say the
 * same: the header (the title line, then "key:     text" lines, a line
 * that goes on starting with blanks), the footnotes under the rows (each
 * line a note; blank lines between), and a merged run's runs (nothing
 * for a run of one). */
void sb__table_header(const sb_run *run, FILE *f);
void sb__table_footnotes(const sb_run *run, FILE *f);
void sb__table_runs(const sb_run *run, FILE *f);

/* ask.c: */

/* 1 when some cell of the run has a comparison (a baseline or a run
 * compared against): the writers then add the comparison columns. */
int sb__report_any_comparison(const sb_run *run);

/* 1 when cell r is short of the precision target: it has samples and
 * results.c did not find its interval within the target.  A cell without
 * samples has no interval at all; it is reported as empty instead. */
int sb__report_cell_short(const sb_cell_result *r);

/* 1 when some comparison of run has cell i as its baseline. */
int sb__report_is_baseline(const sb_run *run, size_t i);

/* The number of cells of the run that sb__report_cell_short marks. */
size_t sb__report_short_cells(const sb_run *run);

/* 1 when cell i of the run kept samples that waited for the CPU, the
 * wait taken off their time (record.c: a cell that could not dodge the
 * waits): under --reject disturbed, a kept sample flagged cpu-wait. */
int sb__report_cell_waited(const sb_run *run, size_t i);

/* The median time per call split between user (sys 0) and system (sys 1)
 * time; NAN when too few CPU-time ticks were counted. */
double sb__report_cpu_share(const sb_cell_result *r, int sys,
                            double per_call);

/* The cells with samples that the analysis judged in metric
 * (SB_METRIC_TIME or SB_METRIC_CYCLES). */
size_t sb__report_metric_cells(const sb_run *run, int metric);

/* 1 when some cell has core cycles (a sample with a known core clock):
 * the writers then add the core-cycle columns. */
int sb__report_any_clock(const sb_run *run);
/* s to f with its control characters and invalid UTF-8 as '?' (as
 * sb__clean_text): the command line holds file names, and a loaded run's
 * strings or a live run's host name come from outside.  At most max
 * bytes of s. */
void sb__report_put(FILE *f, const char *s, size_t max);
/* A report's first line, without its newline, every string cleaned: the
 * caller's title first, then statbench's version and the command; a run
 * from the API without a command says so, never an empty "statbench
 * 0.1.0: ".  The table and the compact report both open with it. */
void sb__report_title(const sb_run *run, FILE *f);

/* The header's clock line into buf: "core 2.79-2.99 GHz in 2 states over
 * 23 invocations (TSC 2.00 GHz)", or why the core clock is unknown.
 * Returns the number of clock states (0: unknown). */
size_t sb__report_clock_line(const sb_run *run, char *buf, size_t len);

/* The end of a writer that printed with stdio: SB_EIO with err filled when
 * an earlier write or the final flush failed, else SB_OK. */
int sb__report_flush(FILE *f, sb_error *err);

#endif
