/*
 * command_exec.h: what command.c (the rounds and the run) shares with
 * command_exec.c (what runs one command, and running it once), never
 * installed: the job of one sb_command_run_new and its cells, and the
 * steps that split, spawn and wait.  command_exec.c is the lower of the
 * two: it never calls back into command.c.
 */
#ifndef SB_COMMAND_EXEC_H
#define SB_COMMAND_EXEC_H

#include <stddef.h>
#include <sys/resource.h>

#include "measure.h"

/* The child's figures of each run, beside its wall time (wait4's
 * rusage): CPU time in milliseconds, context switches, page faults. */
enum { RU_USER, RU_SYS, RU_NVCSW, RU_NIVCSW, RU_MINFLT, RU_MAJFLT, RU_N };

/* One thing to execute: its words and the program they start. */
typedef struct sb__cmd_exe {
    char **argv; /* NULL-terminated, owned */
    char *path;  /* argv[0] found in PATH, owned */
} sb__cmd_exe;

/* One cell: a command given, or the shell's start-up row. */
typedef struct sb__cmd_cell {
    const char *text; /* as given, for messages (cleaned when said) */
    const char *name; /* the cell's name */
    sb__cmd_exe run, prep;
    int has_prep;
    double *wall;   /* ms, one per round */
    double *ru;     /* RU_N per round */
    size_t failed;  /* runs that failed (with ignore_failure) */
    size_t prep_failed;
} sb__cmd_cell;

/* One sb_command_run_new: its options, cells and how the rounds went. */
typedef struct sb__cmd_job {
    sb_command_options o;
    sb__cmd_cell *c;
    size_t n;    /* cells: the commands, then the start-up row */
    size_t ncmd; /* the commands given */
    char **shell;
    sb__stop stop;
    double t0, t_end, deadline;
    int stop_sig;      /* the signal a stop sends (0: no stop seen) */
    int by_progress;   /* the progress callback stopped the rounds */
    int past_deadline;
    int polled;        /* some wait had no pidfd: the errno it got */
    size_t killed_cell, killed_round;
    int killed_timed;
    sb_error *err;
} sb__cmd_job;

/* Seconds on CLOCK_MONOTONIC_RAW (CLOCK_MONOTONIC without it): the
 * clock every run is timed by. */
double sb__cmd_now(void);

/* s for a one-line message in buf: at most 200 bytes, control
 * characters as '?'; returns buf. */
const char *sb__cmd_shown(const char *s, char *buf, size_t len);

/* Free a NULL-terminated array of words and each word (NULL: nothing). */
void sb__cmd_free_words(char **w);

/* Free e's words and program, and leave them NULL. */
void sb__cmd_free_exe(sb__cmd_exe *e);

/* The refusal of a name that starts no program: what ('command 2',
 * 'shell') and its text, then the word looked for (prog); SB_ENOMEM
 * when errno says the search ran out of memory. */
int sb__cmd_no_program(sb_error *err, const char *what, const char *text,
                       const char *prog);

/* What runs text: with shell (the shell's words) those words, -c and
 * text as one word; without, text's words (sb__split_words).  what names
 * it in a message ("command 2", "prepare"). */
int sb__cmd_make_exe(sb__cmd_exe *e, const char *text, char **shell,
                     const char *what, sb_error *err);

/* The signal a stop asked for sends, 0 when none is asked (j->stop_sig
 * set once it is seen). */
int sb__cmd_stop_signal(sb__cmd_job *j);

/* Run e (of cell c) once, spawned in a group of its own and waited for
 * with j's deadline and stop; what and nth say which run ("timed run"
 * 3).  *wall its seconds, *ru the child's rusage.  A failure is
 * SB_ECOMMAND unless ignore_failure (then counted in *failed); a run cut
 * short by a stop or the deadline is not a failure (j says so). */
int sb__cmd_run_checked(sb__cmd_job *j, const sb__cmd_cell *c,
                        const sb__cmd_exe *e, const char *what, size_t nth,
                        double *wall, struct rusage *ru, size_t *failed);

#endif
