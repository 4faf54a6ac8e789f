/*
 * progress.h: the progress line of a measuring run on a terminal, its
 * text, its estimate of the time left and its pace kept apart from the
 * terminal so that tests can reach them (tests/test_progress.c).
 */
#ifndef SB_CLI_PROGRESS_H
#define SB_CLI_PROGRESS_H

#include <stddef.h>

#include "statbench.h"

/* What the line shows, and what its estimate needs.  The library's
 * progress_state callback (sb_progress) runs in each forked invocation
 * after every round (progress_round) and in the parent after each
 * invocation (progress_between); the state is the command's own account
 * of both, kept where both processes see it (cmd_measure.c). */
struct progress {
    double started;      /* seconds (CLOCK_MONOTONIC) when the run began */
    double max_time;     /* the run's budget, seconds */
    double precision;    /* the target; 0: none */
    size_t min_samples;  /* rounds before the stop rule's first check */
    size_t max_samples;  /* rounds at most in an invocation */
    size_t cells;        /* cells in the plan */
    size_t invocation;   /* 0-based: the one measuring now */
    size_t invocations;  /* requested (more may follow while time lasts) */
    size_t max_invocations; /* at most */
    /* This invocation, from its last sb_progress: */
    double inv_started;  /* when it began (the previous one ended) */
    size_t rounds;       /* its rounds so far */
    double inv_elapsed;  /* seconds of those rounds */
    double inv_deadline; /* when it must end; < 0: not known yet */
    size_t done;         /* its cells done at the stop rule's last check */
    size_t checked_at;   /* the round of that check; 0: none yet */
    double widest;       /* the widest relative half-width then; NAN */
    /* The invocations finished, from the parent's sb_progress: */
    size_t finished;     /* how many */
    double finished_time; /* seconds they took, setup included */
    size_t inv_checked;  /* invocations at the runner's last check; 0 */
    double inv_widest;   /* the widest interval over them then; NAN */
    double last_drawn;   /* when the line was last drawn; < 0: never */
    size_t shown;        /* characters of the line on the terminal now */
};

/* The minimum interval between two redraws, seconds: at most 10 a
 * second. */
#define PROGRESS_INTERVAL 0.1

/* The state at the start of a run: started and last_drawn set, no
 * invocation finished, nothing checked.  The caller fills the options'
 * fields (max_time, precision, min_samples, max_samples, cells,
 * invocations, max_invocations) afterwards. */
void progress_start(struct progress *p, double now);

/* s, a call within an invocation (s->between 0), at now. */
void progress_round(struct progress *p, const sb_progress *s, double now);
/* s, a call between invocations (s->between 1), at now: invocation
 * s->invocation finished, the next one begins. */
void progress_between(struct progress *p, const sb_progress *s, double now);

/* How progress_eta's figure was made. */
enum progress_eta_kind {
    PROGRESS_ETA_ESTIMATE, /* from the stop rule: rounds still needed */
    PROGRESS_ETA_CAPPED,   /* the estimate reached the time cap: the cap */
    PROGRESS_ETA_CAP_ONLY  /* no estimate yet: the time left at most */
};

/* The seconds left at now, and how they were made (*kind).  The current
 * invocation needs the rounds at which its widest cell's half-width,
 * shrinking as 1 / sqrt(rounds) from the last check, meets the target
 * (at least min_samples, at most max_samples; max_samples without a
 * target), at its rate of rounds, by its deadline at the latest.  Each
 * requested invocation still to come takes as long as those finished
 * did on average (or as this one will, when none has).  Past the
 * requested ones, the invocations still needed come from the runner's
 * last check the same way.  Never more than the run's time left; no
 * estimate before the first round, or while the target is set and no
 * check has given a finite width. */
double progress_eta(const struct progress *p, double now,
                    enum progress_eta_kind *kind);

/* 1 when the line is due at now (never drawn, or PROGRESS_INTERVAL or
 * more since the last draw), and then records now as drawn; else 0.  A
 * clock that went backwards draws again. */
int progress_due(struct progress *p, double now);

/* The line at now into buf (len bytes, always terminated): cells done of
 * the plan's (in this invocation, at the stop rule's last check),
 * invocation i of n, elapsed seconds and the ETA (progress_eta): "ETA ~X
 * s", "ETA ~X s (time cap)" when the estimate reaches the cap, "ETA at
 * most X s (time cap)" without an estimate.  Returns the length snprintf
 * gave. */
int progress_format(const struct progress *p, double now, char *buf,
                    size_t len);

#endif
