/*
 * report/ask.c: the questions every writer asks the same way (which
 * cells are short, compared, waited, in which metric; the clock line; a
 * writer's final flush), through the public accessors only.  A file of
 * their own, below the writers and below report.c, which dispatches to
 * the writers: so that no writer and the dispatcher call each other.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

int sb__report_flush(FILE *f, sb_error *err)
{
    if (ferror(f) || fflush(f) != 0)
        return sb__error(err, SB_EIO, "writing the report failed");
    return SB_OK;
}

int sb__report_any_comparison(const sb_run *run)
{
    for (size_t i = 0; i < sb_run_count(run); i++)
        if (sb_run_comparison(run, i))
            return 1;
    return 0;
}

size_t sb__report_metric_cells(const sb_run *run, int metric)
{
    size_t k = 0;
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        k += r->nsamples && (int)r->metric == metric;
    }
    return k;
}

int sb__report_any_clock(const sb_run *run)
{
    for (size_t i = 0; i < sb_run_count(run); i++)
        if (sb_run_cell(run, i)->clock_samples)
            return 1;
    return 0;
}

size_t sb__report_clock_line(const sb_run *run, char *buf, size_t len)
{
    const sb_timer_info *t = &sb_run_meta(run)->timer;
    sb_clock_summary c = {.size = sizeof c};
    char of[32] = "";

    if (sb_run_clock(run, &c, NULL) != SB_OK || c.invocations == 0) {
        /* Why, when the probe said (refused, not x86-64, no PMU). */
        const char *why = sb_run_meta(run)->probe_note;
        snprintf(buf, len,
                 "core clock unknown (%s): every cell is judged in time",
                 why[0] ? why : "no core clock measured in this run");
        return 0;
    }
    if (c.invocations < c.total)
        snprintf(of, sizeof of, " of %zu", c.total);
    /* Two decimals in GHz: a state is 100 MHz or so wide. */
    if (c.hi_hz - c.lo_hz < 5e6)
        snprintf(buf, len, "core %.2f GHz", c.lo_hz / 1e9);
    else
        snprintf(buf, len, "core %.2f-%.2f GHz", c.lo_hz / 1e9,
                 c.hi_hz / 1e9);
    snprintf(buf + strlen(buf), len - strlen(buf),
             " in %zu state%s over %zu%s invocation%s (%s %.2f GHz)",
             c.states, c.states == 1 ? "" : "s", c.invocations, of,
             c.total == 1 ? "" : "s",
             sb__timer_kind_of(t->kind)->label, t->hz / 1e9);
    return c.states;
}

int sb__report_is_baseline(const sb_run *run, size_t i)
{
    for (size_t j = 0; j < sb_run_count(run); j++) {
        const sb_comparison *c = sb_run_comparison(run, j);
        if (c && c->base == i)
            return 1;
    }
    return 0;
}

int sb__report_cell_short(const sb_cell_result *r)
{
    return r->nsamples && !r->reached_precision;
}

size_t sb__report_short_cells(const sb_run *run)
{
    size_t k = 0;
    for (size_t i = 0; i < sb_run_count(run); i++)
        if (sb__report_cell_short(sb_run_cell(run, i)))
            k++;
    return k;
}

int sb__report_cell_waited(const sb_run *run, size_t i)
{
    const sb_cell_result *r = sb_run_cell(run, i);
    const unsigned char *fl = sb_run_sample_flags(run, i);
    if (!r || !fl || sb_run_measure_options(run)->reject != SB_REJECT_DISTURBED)
        return 0;
    for (size_t q = 0; q < r->nsamples; q++)
        if (fl[q] & (1u << SB_REJECT_CPU_WAIT))
            return 1;
    return 0;
}

/* The median time per call split between user and system time in the
 * proportion getrusage measured over all samples taken.  getrusage counts
 * at the scheduler tick and over a slightly longer span than the timed
 * calls, so its totals per call are not the kernel's; its proportion is,
 * once enough ticks have been counted. */
double sb__report_cpu_share(const sb_cell_result *r, int sys,
                            double per_call)
{
    double u = r->user_seconds, s = r->sys_seconds, m = fmax(u, s);
    double tot = u + s;
    /* Below 0.1 s (25 ticks at 250 Hz) the split is mostly tick luck. */
    if (!(tot >= 0.1) || !isfinite(per_call) || !isfinite(m))
        return NAN;
    /* The proportion of values scaled to the larger: two times near the
     * largest double would overflow their sum (a file's 1e308 gave 0). */
    return per_call * ((sys ? s : u) / m) / (u / m + s / m);
}

/* s to f with its control characters as '?' (sb__clean_text): the command
 * line holds file names, and a loaded run's strings or a live run's host
 * name come from outside.  At most max bytes of s. */
void sb__report_put(FILE *f, const char *s, size_t max)
{
    size_t at = 0;

    while (s && s[at] && at < max) {
        int control;
        size_t n = sb__char_len(s + at, &control);
        if (control || at + n > max)
            fputc('?', f);
        else
            fwrite(s + at, 1, n, f);
        at += n;
    }
}

void sb__report_title(const sb_run *run, FILE *f)
{
    const char *title = sb_run_title(run), *cmd = sb_run_command(run);
    const char *ver = sb_run_meta(run)->statbench_version;

    if (*title) {
        sb__report_put(f, title, (size_t)-1);
        fputs(" (statbench ", f);
        sb__report_put(f, ver, (size_t)-1);
        fputs(*cmd ? "): " : ")", f);
    } else {
        fputs("statbench ", f);
        sb__report_put(f, ver, (size_t)-1);
        fputs(*cmd ? ": " : ": a library run", f);
    }
    sb__report_put(f, cmd, (size_t)-1);
}
