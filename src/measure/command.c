/*
 * command.c: whole commands timed in interleaved rounds
 * (sb_command_run_new).  Each round runs every command once, in a fresh
 * random order drawn from the seed, so that what the host does meanwhile
 * (a neighbour's job, a frequency change, a cache warming) lands on every
 * command alike, and the runs of one round are compared paired (Abedi
 * and Brecht, ICPE 2017, randomized multiple interleaved trials).
 *
 * Each command is one cell; each round one invocation of it with one
 * sample, its wall time in milliseconds, beside the child's rusage.  The
 * run is built by sb_run_from_sets_new, so that every interval, the
 * paired ratios, Holm and the verdicts are the library's, as for any
 * other run.
 *
 * A child is waited for in poll(2) on its pidfd, with a timeout: the
 * deadline and a stop are seen without a signal handler or a timer
 * signal, which a library must not take from its caller.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "measure.h"
#include "meta.h"
#include "plan.h"
#include "program.h"
#include "run_internal.h"

extern char **environ;

int sb__command_poll_only;

#define DEFAULT_RUNS 20
#define DEFAULT_SHELL "/bin/sh"
#define STARTUP_NAME "(shell start-up)"
/* How often a wait without a pidfd looks at the child, and the longest
 * a wait with one sleeps before it looks at the stop flags again (a
 * signal that lands just before poll is entered does not interrupt it). */
#define POLL_NS 100000L
#define WAIT_SLICE_MS 100
/* How long a command has to end after it is passed a stop before its
 * group is killed. */
#define STOP_GRACE 1.0

/* The child's figures of each run, beside its wall time (wait4's
 * rusage): CPU time in milliseconds, context switches, page faults. */
enum { RU_USER, RU_SYS, RU_NVCSW, RU_NIVCSW, RU_MINFLT, RU_MAJFLT, RU_N };
static const char *const ru_names[RU_N] = {
    "rusage::user-ms",        "rusage::system-ms",
    "rusage::voluntary-cs",   "rusage::involuntary-cs",
    "rusage::minor-faults",   "rusage::major-faults",
};

static const sb_command_options defaults = {
    .size = sizeof(sb_command_options),
    .runs = DEFAULT_RUNS,
    .max_time = 30.0,
    .seed = 1,
};
static const size_t known_sizes[] = {sizeof(sb_command_options)};

void sb_command_options_init(sb_command_options *o)
{
    if (o)
        *o = defaults;
}

/* One thing to execute: its words and the program they start. */
struct exe {
    char **argv; /* NULL-terminated, owned */
    char *path;  /* argv[0] found in PATH, owned */
};

struct cmd {
    const char *text; /* as given, for messages (cleaned when said) */
    const char *name; /* the cell's name */
    struct exe run, prep;
    int has_prep;
    double *wall;   /* ms, one per round */
    double *ru;     /* RU_N per round */
    size_t failed;  /* runs that failed (with ignore_failure) */
    size_t prep_failed;
};

struct job {
    sb_command_options o;
    struct cmd *c;
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
};

static double now(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_RAW
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0)
        return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* s for a one-line message: at most 200 bytes, control characters as
 * '?'. */
static const char *shown(const char *s, char *buf, size_t len)
{
    if (strlen(s) > 200)
        snprintf(buf, len, "%.200s...", s);
    else
        snprintf(buf, len, "%s", s);
    sb__clean_text(buf);
    return buf;
}

double sb__command_deadline(double max_time)
{
    return max_time * 1.2 > max_time + 2 ? max_time * 1.2 : max_time + 2;
}

/* ---- splitting into words ---------------------------------------------- */

/* Characters that mean something only to a shell: a command without one
 * would pass them on literally, which is never what was meant.  '~' and
 * '#' only at the start of a word (a home directory, a comment). */
static int shell_only(char c, int word_start)
{
    return strchr("|&;<>()$`*?[\n", c) != NULL ||
           (word_start && (c == '~' || c == '#'));
}

static void free_words(char **w)
{
    for (size_t i = 0; w && w[i]; i++)
        free(w[i]);
    free(w);
}

int sb__split_words(const char *s, char ***out, char *why, size_t wlen)
{
    size_t len = strlen(s), nw = 0, at = 0;
    char **w = malloc((len / 2 + 2) * sizeof *w);
    char *word = malloc(len + 1);
    int in_word = 0;

    *out = NULL;
    if (!w || !word) {
        free(w);
        free(word);
        snprintf(why, wlen, "out of memory");
        return SB_ENOMEM;
    }
    w[0] = NULL;
    for (const char *p = s;; p++) {
        if (*p == '\0' || *p == ' ' || *p == '\t') {
            if (in_word) {
                word[at] = '\0';
                if (!(w[nw] = strdup(word))) {
                    snprintf(why, wlen, "out of memory");
                    goto fail_mem;
                }
                w[++nw] = NULL;
                at = 0;
                in_word = 0;
            }
            if (*p == '\0')
                break;
            continue;
        }
        if (*p == '\'') {
            const char *e = strchr(p + 1, '\'');
            if (!e) {
                snprintf(why, wlen, "an unclosed '");
                goto fail;
            }
            memcpy(word + at, p + 1, (size_t)(e - p - 1));
            at += (size_t)(e - p - 1);
            p = e;
            in_word = 1;
        } else if (*p == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                word[at++] = *p;
            }
            if (!*p) {
                snprintf(why, wlen, "an unclosed \"");
                goto fail;
            }
            in_word = 1;
        } else if (*p == '\\') {
            if (!p[1]) {
                snprintf(why, wlen, "a \\ at the end");
                goto fail;
            }
            word[at++] = *++p;
            in_word = 1;
        } else if (shell_only(*p, !in_word)) {
            snprintf(why, wlen,
                     "'%c' means something only to a shell (quote it, or "
                     "use a shell)",
                     *p == '\n' ? ' ' : *p);
            goto fail;
        } else {
            word[at++] = *p;
            in_word = 1;
        }
    }
    free(word);
    if (nw == 0) {
        snprintf(why, wlen, "no word to run");
        free_words(w);
        return SB_EINVAL;
    }
    *out = w;
    return SB_OK;
fail:
    free(word);
    free_words(w);
    return SB_EINVAL;
fail_mem:
    free(word);
    free_words(w);
    return SB_ENOMEM;
}

/* ---- what runs ---------------------------------------------------------- */

static void free_exe(struct exe *e)
{
    free_words(e->argv);
    free(e->path);
    e->argv = NULL;
    e->path = NULL;
}

/* The refusal of a name that starts no program: what ('command 2',
 * 'shell') and its text, then the word looked for. */
static int no_program(sb_error *err, const char *what, const char *text,
                      const char *prog)
{
    char buf[256], pbuf[256];

    if (errno == ENOMEM)
        return sb__error(err, SB_ENOMEM, "out of memory");
    return sb__error(err, SB_EINVAL,
                     "%s '%s': no program '%s' to run (not an executable "
                     "file%s)",
                     what, shown(text, buf, sizeof buf),
                     shown(prog, pbuf, sizeof pbuf),
                     strchr(prog, '/') ? "" : " in PATH");
}

/* What runs text: the shell's words, -c and text as one word of its own
 * (never pasted into another command line), or without a shell text's
 * words.  what names it in a message ("command 2", "prepare"). */
static int make_exe(struct exe *e, const char *text, char **shell,
                    const char *what, sb_error *err)
{
    char why[160], buf[256];
    int rc;

    if (!*text)
        return sb__error(err, SB_EINVAL, "%s is empty", what);
    if (shell) {
        size_t n = 0;
        while (shell[n])
            n++;
        if (!(e->argv = calloc(n + 3, sizeof *e->argv)))
            return sb__error(err, SB_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            if (!(e->argv[i] = strdup(shell[i])))
                return sb__error(err, SB_ENOMEM, "out of memory");
        if (!(e->argv[n] = strdup("-c")) ||
            !(e->argv[n + 1] = strdup(text)))
            return sb__error(err, SB_ENOMEM, "out of memory");
    } else if ((rc = sb__split_words(text, &e->argv, why, sizeof why)) !=
               SB_OK) {
        return sb__error(err, rc,
                         "%s '%s': cannot split it into words without a "
                         "shell: %s",
                         what, shown(text, buf, sizeof buf), why);
    }
    if (!(e->path = sb__find_program(e->argv[0], NULL)))
        return no_program(err, what, text, e->argv[0]);
    return SB_OK;
}

/* ---- running ------------------------------------------------------------ */

/* How a run ended, for a message: "exit status 3", "killed by signal 9
 * (Killed)". */
static void status_text(int st, char *buf, size_t len)
{
    if (WIFEXITED(st))
        snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else
        snprintf(buf, len, "wait status %#x", st);
}

/* The signal a stop asked for sends, 0 when none is asked: the caller's
 * *stop when it is a signal number, else SIGTERM. */
static int stop_signal(struct job *j)
{
    if (j->stop_sig)
        return j->stop_sig;
    if (!sb__stopped(&j->stop))
        return 0;
    if (j->o.stop && *j->o.stop > 0 && *j->o.stop < NSIG)
        j->stop_sig = (int)*j->o.stop;
    else
        j->stop_sig = SIGTERM;
    return j->stop_sig;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    if (!sb__command_poll_only)
        return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
#endif
    errno = ENOSYS;
    return -1;
}

/* Wait for pid, passing a stop on to its group and killing the group at
 * the deadline.  0 with the wait status and rusage; -1 (errno) when the
 * wait itself fails. */
static int wait_child(struct job *j, pid_t pid, int *st, struct rusage *ru)
{
    int fd = open_pidfd(pid), sent = 0;
    double sent_at = 0;

    /* ENOSYS (a kernel before 5.3) or a process out of descriptors
     * (EMFILE): the note says which. */
    if (fd < 0 && !j->polled)
        j->polled = errno ? errno : ENOSYS;
    for (;;) {
        double left = j->deadline - now();
        int sig = stop_signal(j);
        pid_t w;

        if (left <= 0 && sent != SIGKILL) {
            j->past_deadline = 1;
            kill(-pid, SIGKILL);
            sent = SIGKILL;
        } else if (sig && !sent) {
            kill(-pid, sig);
            sent = sig;
            sent_at = now();
        } else if (sent && sent != SIGKILL && now() - sent_at > STOP_GRACE) {
            /* A command that ignores the stop must not hold the caller
             * until the deadline: the group is killed after the grace. */
            kill(-pid, SIGKILL);
            sent = SIGKILL;
        }
        if (fd >= 0) {
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            int ms = WAIT_SLICE_MS;
            if (left > 0 && left * 1e3 < ms)
                ms = (int)ceil(left * 1e3);
            int r = poll(&pf, 1, ms);
            if (r < 0 && errno != EINTR) {
                int e = errno;
                close(fd);
                /* The child must not outlive the call. */
                kill(-pid, SIGKILL);
                waitpid(pid, NULL, 0);
                errno = e;
                return -1;
            }
            if (r <= 0)
                continue;
        }
        {
            /* Seen, not reaped (WNOWAIT): the leader stays a zombie
             * until the group is killed below.  On both paths, so that
             * a leader someone else reaped (a waitpid(-1) in another
             * thread) is an error here, never a kill of its number. */
            struct timespec ts = {0, POLL_NS};
            siginfo_t si;
            int r;
            memset(&si, 0, sizeof si);
            r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                int e = errno;
                if (fd >= 0)
                    close(fd);
                errno = e;
                return -1;
            }
            if (si.si_pid == 0) {
                if (fd < 0)
                    nanosleep(&ts, NULL);
                continue;
            }
        }
        /* The leader has ended and is not yet reaped, so its pid, the
         * group's id, cannot have been given to another process: what
         * the command left running in its group after a stop goes with
         * it now, never a group that took the number later. */
        if (sent)
            kill(-pid, SIGKILL);
        w = wait4(pid, st, 0, ru);
        if (w == pid)
            break;
        if (w < 0 && errno == EINTR)
            continue;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/* Run e once: stdin from /dev/null, stdout and stderr to /dev/null
 * unless show_output; every signal at its default and none blocked in
 * the child (a caller that ignores SIGPIPE would pass that on through
 * exec).  *wall: seconds from before the spawn to after wait4; *ru the
 * child's rusage.  0 and the wait status in *st; -1 when it could not be
 * started or waited for (errno). */
static int run_exe(struct job *j, const struct exe *e, double *wall,
                   struct rusage *ru, int *st)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t all, none;
    pid_t pid;
    double t0;
    int rc;

    if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
        errno = rc;
        return -1;
    }
    if ((rc = posix_spawnattr_init(&at)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        errno = rc;
        return -1;
    }
    /* Each step can fail (out of memory): a command started without its
     * own group or with its output on the terminal would not be the
     * command asked for, so any failure is the run's. */
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc && !j->o.show_output)
        rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
                                              0);
    if (!rc && !j->o.show_output)
        rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&at, &all);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&at, &none);
    /* A process group of its own (its id the command's pid): a stop or
     * the deadline reaches what the command started too, a shell's
     * pipeline or a program's children, not only the command. */
    if (!rc)
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
                                               POSIX_SPAWN_SETSIGMASK |
                                               POSIX_SPAWN_SETPGROUP);
    if (j->o.show_output) {
        fflush(stdout);
        fflush(stderr);
    }
    t0 = now();
    if (!rc)
        rc = posix_spawn(&pid, e->path, &fa, &at, e->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    if (wait_child(j, pid, st, ru) != 0)
        return -1;
    *wall = now() - t0;
    return 0;
}

/* Run e (of command c; what and nth say which run: "timed run" 3).  A
 * failure is SB_ECOMMAND unless ignore_failure (then counted in
 * *failed).  A run cut short by a stop or the deadline is not a failure:
 * the caller stops. */
static int run_checked(struct job *j, const struct cmd *c,
                       const struct exe *e, const char *what, size_t nth,
                       double *wall, struct rusage *ru, size_t *failed)
{
    char buf[256], sbuf[96];
    int st = 0;

    if (run_exe(j, e, wall, ru, &st) != 0)
        return sb__error(j->err, SB_ESYS, "command '%s': %s %zu: cannot "
                                          "run %s: %s",
                         shown(c->text, buf, sizeof buf), what, nth,
                         e->path, strerror(errno));
    if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || j->stop_sig ||
        j->past_deadline)
        return SB_OK;
    status_text(st, sbuf, sizeof sbuf);
    if (!j->o.ignore_failure)
        return sb__error(j->err, SB_ECOMMAND,
                         "command '%s': %s %zu failed: %s (--ignore-failure "
                         "keeps going)",
                         shown(c->text, buf, sizeof buf), what, nth, sbuf);
    (*failed)++;
    return SB_OK;
}

/* The next value of a splitmix64 generator: the round orders come from
 * the seed alone, the same on every machine and with every GSL. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sb__command_shuffle(size_t *order, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t k = (size_t)(next_random(s) % i), t = order[i - 1];
        order[i - 1] = order[k];
        order[k] = t;
    }
}

static int halted(const struct job *j)
{
    return j->stop_sig || j->past_deadline || j->by_progress;
}

/* One run of cell i: its prepare, untimed, then the run, timed (timed:
 * its figures go to round r; else a warm-up run). */
static int one_run(struct job *j, size_t i, int timed, size_t nth, size_t r)
{
    struct cmd *c = &j->c[i];
    struct rusage ru, pru;
    double wall = 0, pw;
    char what[64];
    int rc;

    memset(&ru, 0, sizeof ru);
    if (c->has_prep) {
        snprintf(what, sizeof what, "prepare before %s run",
                 timed ? "timed" : "warm-up");
        if ((rc = run_checked(j, c, &c->prep, what, nth, &pw, &pru,
                              &c->prep_failed)) != SB_OK)
            return rc;
        if (halted(j))
            goto cut;
    }
    if ((rc = run_checked(j, c, &c->run, timed ? "timed run" : "warm-up run",
                          nth, &wall, &ru, &c->failed)) != SB_OK)
        return rc;
    if (halted(j))
        goto cut;
    if (!timed)
        return SB_OK;
    c->wall[r] = wall * 1e3;
    c->ru[r * RU_N + RU_USER] =
        (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_SYS] =
        (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_NVCSW] = (double)ru.ru_nvcsw;
    c->ru[r * RU_N + RU_NIVCSW] = (double)ru.ru_nivcsw;
    c->ru[r * RU_N + RU_MINFLT] = (double)ru.ru_minflt;
    c->ru[r * RU_N + RU_MAJFLT] = (double)ru.ru_majflt;
    return SB_OK;
cut:
    if (j->past_deadline) {
        j->killed_cell = i;
        j->killed_round = nth;
        j->killed_timed = timed;
    }
    return SB_OK;
}

/* The rounds: warm-up first (each command warmup times, in the order
 * given, round by round), then up to runs rounds, each in a fresh order.
 * Stops after a whole round when the next, as long as the mean round so
 * far, would end past max_time (counted from the start, warm-up
 * included), but never before two rounds; or at a stop, whose round is
 * dropped; or at the hard deadline, where the command under way is
 * killed and its round dropped.  *done: the whole rounds measured;
 * *budget 1 when the budget stopped them, 2 when the deadline did. */
static int rounds(struct job *j, size_t *done, int *budget)
{
    size_t *order = malloc(j->n * sizeof *order);
    uint64_t s = j->o.seed;
    double r0;
    int rc = SB_OK;

    *done = 0;
    *budget = 0;
    if (!order)
        return sb__error(j->err, SB_ENOMEM, "out of memory");
    j->t0 = now();
    j->deadline = j->t0 + sb__command_deadline(j->o.max_time);
    for (size_t w = 0; w < j->o.warmup && !halted(j) && rc == SB_OK; w++)
        for (size_t i = 0; i < j->n && !halted(j) && rc == SB_OK; i++)
            rc = one_run(j, i, 0, w + 1, 0);
    r0 = now();
    for (size_t r = 0; r < j->o.runs && !halted(j) && rc == SB_OK; r++) {
        double t;
        if (stop_signal(j))
            break;
        if (j->o.progress &&
            j->o.progress(j->o.progress_arg, r + 1, j->o.runs,
                          now() - j->t0)) {
            j->by_progress = 1;
            break;
        }
        for (size_t i = 0; i < j->n; i++)
            order[i] = i;
        sb__command_shuffle(order, j->n, &s);
        for (size_t k = 0; k < j->n && !halted(j) && rc == SB_OK; k++)
            rc = one_run(j, order[k], 1, r + 1, r);
        if (halted(j) || rc != SB_OK)
            break;
        *done = r + 1;
        t = now();
        if (*done >= 2 && *done < j->o.runs &&
            t - j->t0 + (t - r0) / (double)*done > j->o.max_time) {
            *budget = 1;
            break;
        }
    }
    if (j->past_deadline)
        *budget = 2;
    j->t_end = now();
    free(order);
    return rc;
}

/* ---- the run ------------------------------------------------------------ */

/* What stopped the rounds, for a message: "SIGINT's Interrupt". */
static void stop_text(const struct job *j, char *buf, size_t len)
{
    if (j->by_progress)
        snprintf(buf, len, "the progress callback");
    else if (j->o.stop && *j->o.stop == j->stop_sig)
        snprintf(buf, len, "%s", strsignal(j->stop_sig));
    else
        snprintf(buf, len, "a stop request");
}

/* The notes of the run's header: how the commands ran. */
static void make_notes(const struct job *j, size_t done, int budget,
                       const char *shell_text, char *notes, size_t len)
{
    size_t used = 0;
    char buf[256], buf2[256];

#define ADD(...)                                                            \
    do {                                                                    \
        if (used < len)                                                     \
            used += (size_t)snprintf(notes + used, len - used, __VA_ARGS__); \
    } while (0)
    ADD("cmd: %zu rounds (seed %llu), each command once a round in a "
        "fresh random order, after %zu warm-up run%s; a round is an "
        "invocation: CIs over rounds, ratios paired by round\n",
        done, (unsigned long long)j->o.seed, j->o.warmup,
        j->o.warmup == 1 ? "" : "s");
    if (j->stop_sig || j->by_progress) {
        stop_text(j, buf, sizeof buf);
        ADD("interrupted by %s: the %zu whole rounds before it\n", buf,
            done);
    }
    if (budget == 1)
        ADD("budget: --max-time %g s stopped it after %zu of %zu rounds\n",
            j->o.max_time, done, j->o.runs);
    if (budget == 2)
        ADD("budget: command '%s' was still running at --max-time %g s's "
            "deadline (%g s): killed with its process group, its round "
            "dropped; the %zu whole rounds before it kept\n",
            j->killed_cell < j->n
                ? shown(j->c[j->killed_cell].name, buf, sizeof buf)
                : "?",
            j->o.max_time, sb__command_deadline(j->o.max_time), done);
    for (size_t i = 0; i < j->ncmd; i++)
        if (j->c[i].failed || j->c[i].prep_failed)
            ADD("command %zu failed in %zu run%s and %zu prepare%s, kept "
                "(--ignore-failure)\n",
                i + 1, j->c[i].failed, j->c[i].failed == 1 ? "" : "s",
                j->c[i].prep_failed, j->c[i].prep_failed == 1 ? "" : "s");
    if (shell_text)
        ADD("shell: each time includes the start-up of %s (not "
            "subtracted); row " STARTUP_NAME " is %s -c '' in the "
            "same rounds\n",
            shown(shell_text, buf, sizeof buf),
            shown(shell_text, buf2, sizeof buf2));
    else
        ADD("no shell: each command's words run as they are\n");
    if (j->polled)
        ADD("no pidfd (pidfd_open: %s): the end of each run was polled "
            "every 0.1 ms, which each time may hold\n",
            strerror(j->polled));
    ADD("ms from spawn to wait4; user-ms ... major-faults: the child's "
        "rusage\n");
#undef ADD
}

static void free_job(struct job *j)
{
    for (size_t i = 0; j->c && i < j->n; i++) {
        free_exe(&j->c[i].run);
        free_exe(&j->c[i].prep);
        free(j->c[i].wall);
        free(j->c[i].ru);
    }
    free(j->c);
    free_words(j->shell);
    sb__stop_end(&j->stop);
}

/* The options, checked before anything runs. */
static int check_options(const sb_command_options *o, sb_error *err)
{
    static const char fn[] = "sb_command_run_new";
    char buf[256];

    if (!o->commands || o->ncommands == 0)
        return sb__error(err, SB_EINVAL, "%s: no command", fn);
    if (o->ncommands > SB_MAX_COMMANDS)
        return sb__error(err, SB_EINVAL, "%s: %zu commands, more than %d",
                         fn, o->ncommands, SB_MAX_COMMANDS);
    if (o->nprepare > 1 && o->nprepare != o->ncommands)
        return sb__error(err, SB_EINVAL,
                         "prepare given %zu times for %zu commands: give it "
                         "once (for every command) or once per command",
                         o->nprepare, o->ncommands);
    if (o->nprepare && !o->prepare)
        return sb__error(err, SB_EINVAL, "%s: prepare is NULL", fn);
    if (o->no_shell && o->shell)
        return sb__error(err, SB_EINVAL,
                         "shell '%s' and no shell: give one of them",
                         shown(o->shell, buf, sizeof buf));
    if (!(o->max_time > 0) || !isfinite(o->max_time))
        return sb__error(err, SB_EINVAL,
                         "max_time %g: must be a positive number of "
                         "seconds",
                         o->max_time);
    if (o->runs < 2)
        return sb__error(err, SB_EINVAL,
                         "runs %zu: at least 2 rounds (an interval needs "
                         "two)",
                         o->runs);
    if (o->baseline != SIZE_MAX && o->baseline >= o->ncommands)
        return sb__error(err, SB_EINVAL,
                         "baseline %zu: there are %zu commands (0 to %zu)",
                         o->baseline, o->ncommands, o->ncommands - 1);
    for (size_t i = 0; i < o->ncommands; i++) {
        const char *t = o->commands[i];
        const char *n = o->names ? o->names[i] : t;
        if (!t)
            return sb__error(err, SB_EINVAL, "%s: command %zu is NULL", fn,
                             i + 1);
        if (!*t)
            return sb__error(err, SB_EINVAL, "command %zu is empty", i + 1);
        if (!n || !*n)
            return sb__error(err, SB_EINVAL, "%s: name %zu is %s", fn,
                             i + 1, n ? "empty" : "NULL");
        if (o->nprepare && !o->prepare[o->nprepare == 1 ? 0 : i])
            return sb__error(err, SB_EINVAL, "%s: prepare %zu is NULL", fn,
                             i + 1);
        for (size_t k = 0; k < i; k++) {
            const char *nk = o->names ? o->names[k] : o->commands[k];
            if (!strcmp(o->commands[k], t))
                return sb__error(err, SB_EINVAL,
                                 "command '%s' given twice (commands %zu "
                                 "and %zu): each is one row",
                                 shown(t, buf, sizeof buf), k + 1, i + 1);
            if (nk && !strcmp(nk, n))
                return sb__error(err, SB_EINVAL,
                                 "name '%s' given twice (commands %zu and "
                                 "%zu): each row needs its own",
                                 shown(n, buf, sizeof buf), k + 1, i + 1);
        }
        if (!o->no_shell && !strcmp(n, STARTUP_NAME))
            return sb__error(err, SB_EINVAL,
                             "command '%s': the name of the shell's "
                             "start-up row",
                             STARTUP_NAME);
    }
    return SB_OK;
}

/* The cells, what each runs, and room for the rounds. */
static int make_cells(struct job *j, const char *shell_text, sb_error *err)
{
    const sb_command_options *o = &j->o;
    char why[160], buf[256];
    int rc;

    if (!o->no_shell) {
        if ((rc = sb__split_words(shell_text, &j->shell, why, sizeof why)) !=
            SB_OK)
            return sb__error(err, rc, "shell '%s': %s",
                             shown(shell_text, buf, sizeof buf), why);
        char *found = sb__find_program(j->shell[0], NULL);
        if (!found)
            return no_program(err, "shell", shell_text, j->shell[0]);
        free(found);
    }
    j->ncmd = o->ncommands;
    j->n = j->ncmd + (j->shell != NULL);
    if (!(j->c = calloc(j->n, sizeof *j->c)))
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < j->n; i++) {
        struct cmd *c = &j->c[i];
        char what[64];
        if (i < j->ncmd) {
            c->text = o->commands[i];
            c->name = o->names ? o->names[i] : c->text;
            snprintf(what, sizeof what, "command %zu", i + 1);
            if ((rc = make_exe(&c->run, c->text, j->shell, what, err)) !=
                SB_OK)
                return rc;
            if (o->nprepare) {
                if ((rc = make_exe(&c->prep,
                                   o->prepare[o->nprepare == 1 ? 0 : i],
                                   j->shell, "prepare", err)) != SB_OK)
                    return rc;
                c->has_prep = 1;
            }
        } else {
            /* The shell starting, and nothing else: -c with an empty
             * command, which make_exe refuses as a command given. */
            size_t n = 0;
            c->text = "";
            c->name = STARTUP_NAME;
            while (j->shell[n])
                n++;
            if (!(c->run.argv = calloc(n + 3, sizeof *c->run.argv)))
                return sb__error(err, SB_ENOMEM, "out of memory");
            for (size_t k = 0; k < n; k++)
                if (!(c->run.argv[k] = strdup(j->shell[k])))
                    return sb__error(err, SB_ENOMEM, "out of memory");
            if (!(c->run.argv[n] = strdup("-c")) ||
                !(c->run.argv[n + 1] = strdup("")) ||
                !(c->run.path = sb__find_program(j->shell[0], NULL)))
                return sb__error(err, SB_ENOMEM, "out of memory");
        }
        c->wall = calloc(o->runs, sizeof *c->wall);
        c->ru = calloc(o->runs, RU_N * sizeof *c->ru);
        if (!c->wall || !c->ru)
            return sb__error(err, SB_ENOMEM,
                             "out of memory for %zu rounds", o->runs);
    }
    return SB_OK;
}

/* The run of the done whole rounds, with the machine's metadata. */
static int make_run(struct job *j, size_t done, int budget,
                    const char *shell_text, const sb_analysis_options *a,
                    time_t start, sb_run **out, sb_error *err)
{
    sb_sample_set *sets = calloc(j->n, sizeof *sets);
    size_t *ones = calloc(done, sizeof *ones);
    char *notes = malloc(SB__COMMAND_NOTES);
    int rc;

    if (!sets || !ones || !notes) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t r = 0; r < done; r++)
        ones[r] = 1; /* one run per round: a round is an invocation */
    for (size_t i = 0; i < j->n; i++)
        sets[i] = (sb_sample_set){.name = j->c[i].name,
                                  .values = j->c[i].wall,
                                  .n = done,
                                  .invocation_samples = ones,
                                  .ninvocations = done,
                                  .counters = j->c[i].ru};
    make_notes(j, done, budget, j->shell ? shell_text : NULL, notes,
               SB__COMMAND_NOTES);
    if ((rc = sb_run_from_sets_new(sets, j->n, ru_names, RU_N, "ms", notes,
                                   a, j->o.seed, out, err)) != SB_OK)
        goto out;
    sb__meta_machine(&(*out)->meta, start);
    (*out)->meta.timer.hz_source = "wall time from spawn to wait4 "
                                   "(CLOCK_MONOTONIC_RAW)";
    (*out)->interrupted = j->stop_sig || j->by_progress;
    /* The rounds and the time they took, warm-up included, as a
     * measured run reports its own. */
    (*out)->rounds = done;
    (*out)->elapsed = j->t_end - j->t0;
    if (j->ncmd >= 2 && j->o.baseline != SIZE_MAX) {
        size_t *bases = malloc(j->n * sizeof *bases);
        if (!bases) {
            rc = sb__error(err, SB_ENOMEM, "out of memory");
        } else {
            for (size_t i = 0; i < j->n; i++)
                bases[i] = i == j->o.baseline || i >= j->ncmd
                               ? SIZE_MAX
                               : j->o.baseline;
            rc = sb_run_set_baselines(*out, bases, err);
            free(bases);
        }
        if (rc != SB_OK) {
            sb_run_free(*out);
            *out = NULL;
        }
    }
out:
    free(sets);
    free(ones);
    free(notes);
    return rc;
}

int sb_command_run_new(const sb_command_options *o,
                       const sb_analysis_options *a, sb_run **out,
                       sb_error *err)
{
    static const char fn[] = "sb_command_run_new";
    struct job j;
    sb_analysis_options fa;
    sb_measure_options mo;
    const char *shell_text;
    size_t done = 0, size;
    int budget = 0, rc;
    time_t start;

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!o)
        return sb__error(err, SB_EINVAL, "%s: o is NULL", fn);
    memset(&j, 0, sizeof j);
    j.err = err;
    j.killed_cell = SIZE_MAX;
    memcpy(&j.o, &defaults, sizeof defaults);
    memcpy(&size, o, sizeof size);
    if ((rc = sb__options_part(o, size, &j.o, sizeof j.o, known_sizes,
                               sizeof known_sizes / sizeof *known_sizes,
                               "sb_command_options",
                               "sb_command_options_init", fn, err)) != SB_OK)
        return rc;
    if (j.o.runs == 0)
        j.o.runs = DEFAULT_RUNS;
    if ((rc = check_options(&j.o, err)) != SB_OK)
        return rc;
    {
        /* With SIGCHLD ignored the kernel reaps the children itself:
         * wait4 would find none, and no run could be timed. */
        struct sigaction sa;
        if (sigaction(SIGCHLD, NULL, &sa) == 0 &&
            (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT)))
            return sb__error(err, SB_EINVAL,
                             "%s: SIGCHLD is ignored (SIG_IGN or "
                             "SA_NOCLDWAIT) in this process: its children "
                             "cannot be waited for; restore SIG_DFL first",
                             fn);
    }
    if ((rc = sb__analysis_get(a, &fa, fn, err)) != SB_OK)
        return rc;
    /* No precision target: the rounds asked for, or the budget, end the
     * run (a cell's interval is over its rounds, not a stop rule's). */
    fa.precision = 0;
    if ((rc = sb_analysis_options_check(&fa, err)) != SB_OK)
        return rc;
    shell_text = j.o.shell ? j.o.shell : DEFAULT_SHELL;
    sb_measure_options_init(&mo);
    mo.stop = j.o.stop;
    sb__stop_begin(&j.stop, &mo, 0);
    if ((rc = make_cells(&j, shell_text, err)) != SB_OK) {
        free_job(&j);
        return rc;
    }
    start = time(NULL);
    if ((rc = rounds(&j, &done, &budget)) != SB_OK) {
        free_job(&j);
        return rc;
    }
    if (done < 2) {
        char buf[256];
        if (budget == 2 && !j.stop_sig && !j.by_progress)
            rc = sb__error(err, SB_EINTR,
                           "command '%s' was still running at --max-time "
                           "%g s's deadline (%g s), in %s %zu: killed; "
                           "fewer than two whole rounds, nothing to "
                           "report: raise --max-time",
                           j.killed_cell < j.n
                               ? shown(j.c[j.killed_cell].name, buf,
                                       sizeof buf)
                               : "?",
                           j.o.max_time, sb__command_deadline(j.o.max_time),
                           j.killed_timed ? "timed round" : "warm-up run",
                           j.killed_round);
        else {
            stop_text(&j, buf, sizeof buf);
            rc = sb__error(err, SB_EINTR,
                           "interrupted by %s before two whole rounds: "
                           "nothing to report",
                           buf);
        }
        free_job(&j);
        return rc;
    }
    rc = make_run(&j, done, budget, shell_text, &fa, start, out, err);
    free_job(&j);
    return rc;
}
