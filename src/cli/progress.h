/*
 * progress.h: the progress line of a measuring run on a terminal, its
 * text and its pace kept apart from the terminal so that tests can reach
 * them (tests/test_progress.c).
 */
#ifndef SB_CLI_PROGRESS_H
#define SB_CLI_PROGRESS_H

#include <stddef.h>

/* What the line shows.  The library's progress callback gives rounds and
 * seconds; the rest is the command's own account: the callback runs in
 * each forked invocation (a copy of the parent's memory at its fork) and
 * in the parent after each invocation, which counts them. */
struct progress {
    double started;      /* sb__now-like seconds when the run began */
    double max_time;     /* the run's budget, seconds */
    size_t cells;        /* cells in the plan */
    size_t invocation;   /* 0-based: the one measuring now */
    size_t invocations;  /* requested (more may follow while time lasts) */
    size_t rounds;       /* rounds of this invocation so far */
    double last_drawn;   /* when the line was last drawn; < 0: never */
};

/* The minimum interval between two redraws, seconds: at most 10 a
 * second. */
#define PROGRESS_INTERVAL 0.1

/* 1 when the line is due at now (never drawn, or PROGRESS_INTERVAL or
 * more since the last draw), and then records now as drawn; else 0.  A
 * clock that went backwards draws again. */
int progress_due(struct progress *p, double now);

/* The line at now into buf (len bytes, always terminated): cells,
 * invocation i of n, elapsed seconds and the time left at most (the
 * budget's end is the stop rule's last word: it stops earlier once every
 * cell meets the precision target).  Returns the length snprintf gave. */
int progress_format(const struct progress *p, double now, char *buf,
                    size_t len);

#endif
