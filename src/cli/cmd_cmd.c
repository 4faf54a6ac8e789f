/*
 * cmd_cmd.c: statbench cmd 'A' 'B' ...: whole commands timed in
 * interleaved rounds.  Each round runs every command once, in a fresh
 * random order (seeded by --seed), so that what the host does meanwhile
 * (a neighbour's job, a frequency change, a cache warming) lands on every
 * command alike, and the runs of one round are compared paired (Abedi
 * and Brecht, ICPE 2017, randomized multiple interleaved trials).
 *
 * Each command is one cell; each round one invocation of it with one
 * sample, its wall time in milliseconds, beside the child's rusage.  The
 * run is built by sb_run_from_sets_new, so that every interval, the
 * paired ratios, Holm and the verdicts, the table, JSON and CSV are the
 * library's, as for any other run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "text.h"

extern char **environ;

#define CMD_DEFAULT_RUNS 20
#define CMD_DEFAULT_SHELL "/bin/sh"
/* The row of the empty command, measured in the same rounds when a
 * shell is used: what the shell's start-up alone costs. */
#define CMD_STARTUP_NAME "(shell start-up)"

/* The child's figures of each run, beside its wall time (wait4's
 * rusage): CPU time in milliseconds, context switches, page faults. */
enum { RU_USER, RU_SYS, RU_NVCSW, RU_NIVCSW, RU_MINFLT, RU_MAJFLT, RU_N };
static const char *const ru_names[RU_N] = {
    "rusage::user-ms",        "rusage::system-ms",
    "rusage::voluntary-cs",   "rusage::involuntary-cs",
    "rusage::minor-faults",   "rusage::major-faults",
};

/* One thing to execute: its words and the program they start. */
struct exe {
    char **argv; /* NULL-terminated, owned */
    char *path;  /* argv[0] found in PATH, owned */
};

struct command {
    const char *text; /* as given, for messages (cleaned when said) */
    const char *name; /* the cell's name */
    struct exe run, prep;
    int has_prep;
    const char *prep_text;
    double *wall;   /* ms, one per round */
    double *ru;     /* RU_N per round */
    size_t failed;  /* runs that failed (with --ignore-failure) */
    size_t prep_failed;
};

static volatile sig_atomic_t got_signal;
/* Set by SIGALRM at the run's hard deadline (arm_deadline). */
static volatile sig_atomic_t past_deadline;
/* The command that was killed there, and the round it was in. */
static size_t killed_cell = SIZE_MAX, killed_round;
static int killed_timed;

static void on_signal(int sig)
{
    got_signal = sig;
}

static void on_alarm(int sig)
{
    (void)sig;
    past_deadline = 1;
}

static double deadline_of(double max_time)
{
    return max_time * 1.2 > max_time + 2 ? max_time * 1.2 : max_time + 2;
}

/* The run's hard deadline, seconds from now: the budget's promise,
 * max(1.2 x --max-time, --max-time + 2 s), holds for a command that does
 * not end.  The alarm repeats every 0.2 s past it, so that a wait4
 * entered just after the first one is still interrupted.  No
 * SA_RESTART, as for the stops. */
static void arm_deadline(double max_time)
{
    struct sigaction sa;
    struct itimerval it = {{0, 200000}, {0, 0}};
    double d = deadline_of(max_time);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    if (d > 1e8)
        d = 1e8; /* far past any run, inside itimerval's range */
    it.it_value.tv_sec = (time_t)d;
    it.it_value.tv_usec = (suseconds_t)((d - (double)(time_t)d) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm_deadline(void)
{
    struct itimerval it = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &it, NULL);
}

/* SIGINT, SIGTERM and SIGHUP end the rounds: without SA_RESTART, so that
 * a wait4 under way returns and passes the stop on to the command. */
static void catch_stops(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

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
 * '?' (the message functions clean them again). */
static const char *shown(const char *s, char *buf, size_t len)
{
    size_t n = strlen(s);
    if (n > 200)
        snprintf(buf, len, "%.200s...", s);
    else
        snprintf(buf, len, "%s", s);
    sb__clean_text(buf);
    return buf;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        say("out of memory");
        exit(1);
    }
    return p;
}

/* ---- splitting into words (-N, --shell) -------------------------------- */

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

/* s split into words: blanks (space, tab) separate them; '...' keeps
 * everything to the next ' as it is; "..." too, except that \" and \\
 * are a " and a \; outside quotes \ takes the next character as it is.
 * NULL with the reason in why: an unclosed quote, a trailing \, a
 * character only a shell understands, or no word at all. */
static char **split_words(const char *s, char *why, size_t wlen)
{
    size_t len = strlen(s), nw = 0;
    char **w = xmalloc((len / 2 + 2) * sizeof *w);
    char *word = xmalloc(len + 1);
    size_t at = 0;
    int in_word = 0;

    for (const char *p = s;; p++) {
        if (*p == '\0' || *p == ' ' || *p == '\t') {
            if (in_word) {
                word[at] = '\0';
                w[nw] = strdup(word);
                if (!w[nw]) {
                    say("out of memory");
                    exit(1);
                }
                nw++;
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
                     "leave out -N)",
                     *p == '\n' ? ' ' : *p);
            goto fail;
        } else {
            word[at++] = *p;
            in_word = 1;
        }
    }
    free(word);
    w[nw] = NULL;
    if (nw == 0) {
        snprintf(why, wlen, "no word to run");
        free_words(w);
        return NULL;
    }
    return w;
fail:
    w[nw] = NULL;
    free(word);
    free_words(w);
    return NULL;
}

/* The file a program name starts: the name itself when it has a '/',
 * else the first executable regular file of that name in $PATH.  NULL
 * when there is none. */
static char *find_program(const char *name)
{
    const char *path = getenv("PATH");
    struct stat st;

    if (!*name)
        return NULL;
    if (strchr(name, '/'))
        return stat(name, &st) == 0 && S_ISREG(st.st_mode) &&
                       access(name, X_OK) == 0
                   ? strdup(name)
                   : NULL;
    if (!path || !*path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char *full = xmalloc(n + strlen(name) + 3);
        /* An empty element of PATH is the current directory. */
        snprintf(full, n + strlen(name) + 3, "%.*s%s%s", (int)n,
                 n ? path : ".", "/", name);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
            access(full, X_OK) == 0)
            return full;
        free(full);
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* What runs text: the shell's words, -c and text as one word of its own
 * (never pasted into another command line), or with -N text's words.
 * what names it in a message ("command 2", "--prepare").  Bad input
 * exits 2. */
static void make_exe(struct exe *e, const char *text, char **shell,
                     const char *what)
{
    char why[160], buf[256];

    if (!*text)
        die_usage("%s is empty", what);
    if (shell) {
        size_t n = 0;
        while (shell[n])
            n++;
        e->argv = xmalloc((n + 3) * sizeof *e->argv);
        for (size_t i = 0; i < n; i++)
            if (!(e->argv[i] = strdup(shell[i]))) {
                say("out of memory");
                exit(1);
            }
        e->argv[n] = strdup("-c");
        e->argv[n + 1] = strdup(text);
        e->argv[n + 2] = NULL;
        if (!e->argv[n] || !e->argv[n + 1]) {
            say("out of memory");
            exit(1);
        }
    } else if (!(e->argv = split_words(text, why, sizeof why))) {
        die_usage("%s '%s': cannot split it into words without a shell: "
                  "%s",
                  what, shown(text, buf, sizeof buf), why);
    }
    e->path = find_program(e->argv[0]);
    if (!e->path)
        die_usage("%s '%s': no program '%s' to run (not an executable "
                  "file%s)",
                  what, shown(text, buf, sizeof buf), e->argv[0],
                  strchr(e->argv[0], '/') ? "" : " in PATH");
}

static void free_exe(struct exe *e)
{
    free_words(e->argv);
    free(e->path);
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

/* Run e once: stdin from /dev/null, stdout and stderr to /dev/null
 * unless show; every signal at its default and none blocked in the
 * child (statbench ignores SIGPIPE, which a child would inherit through
 * exec).  *wall: seconds from before the spawn to after wait4; *ru the
 * child's rusage.  0 and the wait status in *st; -1 when it could not be
 * started (errno). */
static int run_exe(const struct exe *e, int show, double *wall,
                   struct rusage *ru, int *st)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t all, none;
    pid_t pid;
    double t0;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!show) {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setsigmask(&at, &none);
    /* A process group of its own (its id the command's pid): a stop or
     * the deadline reaches what the command started too, a shell's
     * pipeline or a program's children, not only the command. */
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETPGROUP);
    if (show)
        fflush(stdout);
    t0 = now();
    rc = posix_spawn(&pid, e->path, &fa, &at, e->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    for (int sent = 0;;) {
        pid_t w = wait4(pid, st, 0, ru);
        if (w == pid)
            break;
        if (w < 0 && errno == EINTR) {
            /* A stop asked of statbench alone (kill PID) reaches the
             * command's group too: the run ends now, not at its own
             * end.  Past the deadline the group is killed outright. */
            if (past_deadline) {
                if (!sent)
                    kill(-pid, SIGKILL);
                sent = 1;
            } else if (got_signal && sent != got_signal) {
                kill(-pid, got_signal);
                sent = got_signal;
            }
            continue;
        }
        return -1;
    }
    /* What the command left running in its group goes with it. */
    if (past_deadline || got_signal)
        kill(-pid, SIGKILL);
    *wall = now() - t0;
    return 0;
}

struct plan {
    struct command *c;
    size_t n;      /* cells: the commands, then the start-up row */
    size_t ncmd;   /* the commands given */
    int show, ignore;
    size_t runs, warmup;
    double max_time;
    uint64_t seed;
    int quiet;
};

/* Run e (of command c, "timed run 3", "warm-up run 1", "prepare before
 * timed run 3"); a failure is an error, exit 1, unless --ignore-failure
 * (then counted in *failed).  A run cut short by a stop signal is not a
 * failure: the caller stops. */
static void run_checked(const struct plan *p, const struct command *c,
                        const struct exe *e, const char *what, size_t nth,
                        double *wall, struct rusage *ru, size_t *failed)
{
    char buf[256], sbuf[96];
    int st = 0;

    if (run_exe(e, p->show, wall, ru, &st) != 0) {
        say("command '%s': %s %zu: cannot run %s: %s",
            shown(c->text, buf, sizeof buf), what, nth, e->path,
            strerror(errno));
        exit(1);
    }
    if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || got_signal ||
        past_deadline)
        return;
    status_text(st, sbuf, sizeof sbuf);
    if (!p->ignore) {
        say("command '%s': %s %zu failed: %s (--ignore-failure keeps "
            "going)",
            shown(c->text, buf, sizeof buf), what, nth, sbuf);
        exit(1);
    }
    (*failed)++;
}

/* The next value of a splitmix64 generator: the round orders come from
 * --seed alone, the same on every machine. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* order[0..n) in a fresh random order (Fisher-Yates). */
static void shuffle(size_t *order, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_random(s) % i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

static void progress(const struct plan *p, size_t round, double t0)
{
    if (p->quiet || p->show || !isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\rstatbench cmd: round %zu of %zu, %.1f s  ", round,
            p->runs, now() - t0);
}

/* One run of cell i: its prepare, untimed, then the run, timed (timed:
 * its figures go to round r; else a warm-up run). */
static void one_run(struct plan *p, size_t i, int timed, size_t nth,
                    size_t r)
{
    struct command *c = &p->c[i];
    struct rusage ru = {0};
    double wall = 0, pw;
    struct rusage pru;
    char what[64];

    if (c->has_prep) {
        snprintf(what, sizeof what, "--prepare before %s run",
                 timed ? "timed" : "warm-up");
        run_checked(p, c, &c->prep, what, nth, &pw, &pru, &c->prep_failed);
        if (got_signal)
            return;
        if (past_deadline) {
            killed_cell = i;
            killed_round = nth;
            killed_timed = timed;
            return;
        }
    }
    run_checked(p, c, &c->run, timed ? "timed run" : "warm-up run", nth,
                &wall, &ru, &c->failed);
    if (past_deadline) {
        killed_cell = i;
        killed_round = nth;
        killed_timed = timed;
        return;
    }
    if (!timed)
        return;
    c->wall[r] = wall * 1e3;
    c->ru[r * RU_N + RU_USER] =
        (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_SYS] =
        (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_NVCSW] = (double)ru.ru_nvcsw;
    c->ru[r * RU_N + RU_NIVCSW] = (double)ru.ru_nivcsw;
    c->ru[r * RU_N + RU_MINFLT] = (double)ru.ru_minflt;
    c->ru[r * RU_N + RU_MAJFLT] = (double)ru.ru_majflt;
}

/* The rounds: warm-up first (each command --warmup times, in the order
 * given, round by round), then up to --runs rounds, each in a fresh
 * order.  Stops after a whole round when the next, as long as the mean
 * round so far, would end past --max-time (counted from the start,
 * warm-up included), but never before two rounds; or at a stop signal,
 * whose round is dropped; or at the hard deadline (arm_deadline), where
 * the command under way is killed and its round dropped.  Returns the
 * whole rounds measured; *budget 1 when the budget stopped them, 2 when
 * the deadline did. */
static size_t rounds(struct plan *p, int *budget)
{
    size_t *order = xmalloc(p->n * sizeof *order), done = 0;
    uint64_t s = p->seed;
    double t0 = now(), r0;

    *budget = 0;
    arm_deadline(p->max_time);
    for (size_t w = 0; w < p->warmup && !got_signal && !past_deadline; w++)
        for (size_t i = 0; i < p->n && !got_signal && !past_deadline; i++)
            one_run(p, i, 0, w + 1, 0);
    r0 = now();
    for (size_t r = 0; r < p->runs && !got_signal && !past_deadline; r++) {
        double t;
        progress(p, r + 1, t0);
        for (size_t i = 0; i < p->n; i++)
            order[i] = i;
        shuffle(order, p->n, &s);
        for (size_t k = 0; k < p->n && !got_signal && !past_deadline; k++)
            one_run(p, order[k], 1, r + 1, r);
        if (got_signal || past_deadline)
            break;
        done = r + 1;
        t = now();
        if (done >= 2 && done < p->runs &&
            t - t0 + (t - r0) / (double)done > p->max_time) {
            *budget = 1;
            break;
        }
    }
    disarm_deadline();
    if (past_deadline)
        *budget = 2;
    if (!p->quiet && !p->show && isatty(STDERR_FILENO))
        fprintf(stderr, "\r%60s\r", "");
    free(order);
    return done;
}

/* ---- the run ------------------------------------------------------------ */

/* The notes of the run's header: how the commands ran. */
static void make_notes(const struct plan *p, size_t done, int budget,
                       const char *shell, char *notes, size_t len)
{
    size_t used = 0;
    char buf[256], buf2[256];

#define ADD(...)                                                            \
    do {                                                                    \
        if (used < len)                                                     \
            used += (size_t)snprintf(notes + used, len - used, __VA_ARGS__); \
    } while (0)
    /* sb_meta.notes holds 4096 bytes: what a reader must know first. */
    ADD("cmd: %zu rounds (seed %llu), each command once a round in a "
        "fresh random order, after %zu warm-up run%s; a round is an "
        "invocation: CIs over rounds, ratios paired by round\n",
        done, (unsigned long long)p->seed, p->warmup,
        p->warmup == 1 ? "" : "s");
    if (got_signal)
        ADD("interrupted by %s: the %zu whole rounds before it\n",
            strsignal(got_signal), done);
    if (budget == 1)
        ADD("budget: --max-time %g s stopped it after %zu of %zu rounds\n",
            p->max_time, done, p->runs);
    if (budget == 2)
        ADD("budget: command '%s' was still running at --max-time %g s's "
            "deadline (%g s): killed with its process group, its round "
            "dropped; the %zu whole rounds before it kept\n",
            killed_cell < p->n ? shown(p->c[killed_cell].name, buf,
                                       sizeof buf)
                               : "?",
            p->max_time, deadline_of(p->max_time), done);
    for (size_t i = 0; i < p->ncmd; i++)
        if (p->c[i].failed || p->c[i].prep_failed)
            ADD("command %zu failed in %zu run%s and %zu prepare%s, kept "
                "(--ignore-failure)\n",
                i + 1, p->c[i].failed, p->c[i].failed == 1 ? "" : "s",
                p->c[i].prep_failed, p->c[i].prep_failed == 1 ? "" : "s");
    if (shell)
        ADD("shell: each time includes the start-up of %s (not "
            "subtracted); row " CMD_STARTUP_NAME " is %s -c '' in the "
            "same rounds\n",
            shown(shell, buf, sizeof buf), shown(shell, buf2, sizeof buf2));
    else
        ADD("no shell (-N): each command's words run as they are\n");
    ADD("ms from spawn to wait4; user-ms ... major-faults: the child's "
        "rusage\n");
#undef ADD
}

/* --baseline: a command as given, else its number from 1. */
static size_t baseline_of(const struct cli *cli, const struct plan *p)
{
    char *end;
    unsigned long v;
    char buf[256];

    if (!cli->baseline)
        return 0;
    for (size_t i = 0; i < p->ncmd; i++)
        if (!strcmp(p->c[i].text, cli->baseline))
            return i;
    errno = 0;
    v = strtoul(cli->baseline, &end, 10);
    if (!errno && *cli->baseline >= '1' && *cli->baseline <= '9' && !*end &&
        v >= 1 && v <= p->ncmd)
        return (size_t)v - 1;
    die_usage("--baseline '%s': not one of the commands, nor a number from "
              "1 to %zu",
              shown(cli->baseline, buf, sizeof buf), p->ncmd);
}

/* What cmd_cmd allocated for the rounds, on every way out after them:
 * a leak checker sees none. */
static void free_plan(struct plan *p, char **shell)
{
    for (size_t i = 0; i < p->n; i++) {
        free_exe(&p->c[i].run);
        if (p->c[i].has_prep)
            free_exe(&p->c[i].prep);
        free(p->c[i].wall);
        free(p->c[i].ru);
    }
    free(p->c);
    free_words(shell);
}

static int signal_status(int sig)
{
    return sig == SIGTERM ? 143 : sig == SIGHUP ? 129 : 130;
}

int cmd_cmd(int argc, char **argv, struct cli *cli)
{
    struct plan p = {0};
    char **shell = NULL, buf[256];
    const char *shell_text = cli->cmd_shell ? cli->cmd_shell
                                            : CMD_DEFAULT_SHELL;
    size_t ncmd = (size_t)(argc - optind), base, done;
    sb_sample_set *sets;
    size_t *ones;
    sb_analysis_options a = cli->aopt;
    sb_run *run = NULL;
    sb_error err = {0};
    char notes[1024];
    int budget, status;

    if (ncmd < 1)
        die_usage("cmd takes one or more commands: %s cmd [OPTION]... "
                  "'COMMAND'...",
                  progname);
    if (ncmd > CLI_MAX_COMMANDS)
        die_usage("cmd takes at most %d commands, not %zu",
                  CLI_MAX_COMMANDS, ncmd);
    if (cli->cmd_no_shell && cli->cmd_shell)
        die_usage("--shell '%s' and -N (no shell): give one of them",
                  shown(cli->cmd_shell, buf, sizeof buf));
    if (cli->cmd_nprepare > 1 && cli->cmd_nprepare != ncmd)
        die_usage("--prepare given %zu times for %zu commands: give it "
                  "once (for every command) or once per command",
                  cli->cmd_nprepare, ncmd);
    if (!cli->cmd_no_shell) {
        char why[160];
        if (!(shell = split_words(shell_text, why, sizeof why)))
            die_usage("--shell '%s': %s", shown(shell_text, buf, sizeof buf),
                      why);
        char *found = find_program(shell[0]);
        if (!found) {
            /* Freed before the exit: a leak checker sees no leak. */
            char prog[256];
            int in_path = !strchr(shell[0], '/');
            shown(shell[0], prog, sizeof prog);
            free_words(shell);
            die_usage("--shell '%s': no program '%s' to run (not an "
                      "executable file%s)",
                      shown(shell_text, buf, sizeof buf), prog,
                      in_path ? " in PATH" : "");
        }
        free(found);
    }
    p.ncmd = ncmd;
    p.n = ncmd + (shell != NULL);
    p.c = calloc(p.n, sizeof *p.c);
    p.show = cli->cmd_show_output;
    p.ignore = cli->cmd_ignore_failure;
    p.runs = cli->cmd_runs ? cli->cmd_runs : CMD_DEFAULT_RUNS;
    p.warmup = cli->cmd_warmup;
    p.max_time = cli->mopt.max_time;
    p.seed = cli->mopt.seed;
    p.quiet = cli->quiet;
    if (!p.c) {
        say("out of memory");
        return 1;
    }
    for (size_t i = 0; i < p.n; i++) {
        struct command *c = &p.c[i];
        char what[64];
        c->text = i < ncmd ? argv[optind + (int)i] : "";
        c->name = i < ncmd ? c->text : CMD_STARTUP_NAME;
        for (size_t j = 0; j < i && i < ncmd; j++)
            if (!strcmp(p.c[j].text, c->text))
                die_usage("command '%s' given twice (commands %zu and "
                          "%zu): each is one row",
                          shown(c->text, buf, sizeof buf), j + 1, i + 1);
        if (i < ncmd && shell && !strcmp(c->text, CMD_STARTUP_NAME))
            die_usage("command '%s': the name of the shell's start-up row",
                      CMD_STARTUP_NAME);
        snprintf(what, sizeof what, "command %zu", i + 1);
        if (i < ncmd) {
            make_exe(&c->run, c->text, shell, what);
        } else {
            /* The empty command: the shell starting, and nothing else. */
            size_t n = 0;
            while (shell[n])
                n++;
            c->run.argv = xmalloc((n + 3) * sizeof *c->run.argv);
            for (size_t k = 0; k < n; k++)
                c->run.argv[k] = strdup(shell[k]);
            c->run.argv[n] = strdup("-c");
            c->run.argv[n + 1] = strdup("");
            c->run.argv[n + 2] = NULL;
            c->run.path = find_program(shell[0]);
        }
        if (i < ncmd && cli->cmd_nprepare) {
            c->prep_text =
                cli->cmd_prepare[cli->cmd_nprepare == 1 ? 0 : i];
            make_exe(&c->prep, c->prep_text, shell, "--prepare");
            c->has_prep = 1;
        }
        c->wall = xmalloc(p.runs * sizeof *c->wall);
        c->ru = xmalloc(p.runs * RU_N * sizeof *c->ru);
    }
    base = baseline_of(cli, &p);
    /* No precision target: the rounds asked for, or the budget, end the
     * run (a cell's interval is over its rounds, not a stop rule's). */
    a.precision = 0;
    if (sb_analysis_options_check(&a, &err) != SB_OK)
        die_usage("%s", err.text);

    catch_stops();
    done = rounds(&p, &budget);
    if (done < 2 && budget == 2) {
        say("command '%s' was still running at --max-time %g s's deadline "
            "(%g s), in %s %zu: killed; fewer than two whole rounds, "
            "nothing to report: raise --max-time",
            killed_cell < p.n ? shown(p.c[killed_cell].name, buf, sizeof buf)
                              : "?",
            p.max_time, deadline_of(p.max_time),
            killed_timed ? "timed round" : "warm-up run", killed_round);
        free_plan(&p, shell);
        return 1;
    }
    if (done < 2) {
        say("interrupted by %s before two whole rounds: nothing to report",
            strsignal(got_signal ? got_signal : SIGINT));
        free_plan(&p, shell);
        return signal_status(got_signal);
    }

    sets = xmalloc(p.n * sizeof *sets);
    ones = xmalloc(done * sizeof *ones);
    for (size_t r = 0; r < done; r++)
        ones[r] = 1; /* one run per round: a round is an invocation */
    for (size_t i = 0; i < p.n; i++)
        sets[i] = (sb_sample_set){.name = p.c[i].name,
                                  .values = p.c[i].wall,
                                  .n = done,
                                  .invocation_samples = ones,
                                  .ninvocations = done,
                                  .counters = p.c[i].ru};
    make_notes(&p, done, budget, shell ? shell_text : NULL, notes,
               sizeof notes);
    if (sb_run_from_sets_new(sets, p.n, ru_names, RU_N, "ms", notes, &a,
                             p.seed, &run, &err) != SB_OK) {
        say("%s", err.text);
        return 1;
    }
    if (p.ncmd >= 2) {
        size_t *bases = xmalloc(p.n * sizeof *bases);
        for (size_t i = 0; i < p.n; i++)
            bases[i] = i == base || i >= p.ncmd ? SIZE_MAX : base;
        if (sb_run_set_baselines(run, bases, &err) != SB_OK) {
            say("%s", err.text);
            return 1;
        }
        free(bases);
    }
    cli_record_command(run, cli);
    status = cli_emit(run, cli);
    sb_run_free(run);
    free_plan(&p, shell);
    free(sets);
    free(ones);
    if (got_signal)
        return signal_status(got_signal);
    return status;
}
