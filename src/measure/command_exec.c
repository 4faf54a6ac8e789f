/*
 * command_exec.c: what runs one command of sb_command_run_new, and
 * running it once: a command's words split without a shell, or the
 * shell's words, -c and the command; its program found in PATH; the run
 * spawned in a process group of its own with its output on /dev/null;
 * and the wait for its end.  The rounds, their order and the run made of
 * them are command.c's, above this file.
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
#include "command_exec.h"
#include "measure.h"
#include "program.h"

extern char **environ;

int sb__command_poll_only;

/* How often a wait without a pidfd looks at the child, and the longest
 * a wait with one sleeps before it looks at the stop flags again (a
 * signal that lands just before poll is entered does not interrupt it). */
#define POLL_NS 100000L
#define WAIT_SLICE_MS 100
/* How long a command has to end after it is passed a stop before its
 * group is killed. */
#define STOP_GRACE 1.0

double sb__cmd_now(void)
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
const char *sb__cmd_shown(const char *s, char *buf, size_t len)
{
    if (strlen(s) > 200)
        snprintf(buf, len, "%.200s...", s);
    else
        snprintf(buf, len, "%s", s);
    sb__clean_text(buf);
    return buf;
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

void sb__cmd_free_words(char **w)
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
        sb__cmd_free_words(w);
        return SB_EINVAL;
    }
    *out = w;
    return SB_OK;
fail:
    free(word);
    sb__cmd_free_words(w);
    return SB_EINVAL;
fail_mem:
    free(word);
    sb__cmd_free_words(w);
    return SB_ENOMEM;
}

/* ---- what runs ---------------------------------------------------------- */

void sb__cmd_free_exe(sb__cmd_exe *e)
{
    sb__cmd_free_words(e->argv);
    free(e->path);
    e->argv = NULL;
    e->path = NULL;
}

/* The refusal of a name that starts no program: what ('command 2',
 * 'shell') and its text, then the word looked for. */
int sb__cmd_no_program(sb_error *err, const char *what, const char *text,
                       const char *prog)
{
    char buf[256], pbuf[256];

    if (errno == ENOMEM)
        return sb__error(err, SB_ENOMEM, "out of memory");
    return sb__error(err, SB_EINVAL,
                     "%s '%s': no program '%s' to run (not an executable "
                     "file%s)",
                     what, sb__cmd_shown(text, buf, sizeof buf),
                     sb__cmd_shown(prog, pbuf, sizeof pbuf),
                     strchr(prog, '/') ? "" : " in PATH");
}

/* What runs text: the shell's words, -c and text as one word of its own
 * (never pasted into another command line), or without a shell text's
 * words.  what names it in a message ("command 2", "prepare"). */
int sb__cmd_make_exe(sb__cmd_exe *e, const char *text, char **shell,
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
                         what, sb__cmd_shown(text, buf, sizeof buf), why);
    }
    if (!(e->path = sb__find_program(e->argv[0], NULL)))
        return sb__cmd_no_program(err, what, text, e->argv[0]);
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
int sb__cmd_stop_signal(sb__cmd_job *j)
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
static int wait_child(sb__cmd_job *j, pid_t pid, int *st, struct rusage *ru)
{
    int fd = open_pidfd(pid), sent = 0;
    double sent_at = 0;

    /* ENOSYS (a kernel before 5.3) or a process out of descriptors
     * (EMFILE): the note says which. */
    if (fd < 0 && !j->polled)
        j->polled = errno ? errno : ENOSYS;
    for (;;) {
        double left = j->deadline - sb__cmd_now();
        int sig = sb__cmd_stop_signal(j);
        pid_t w;

        if (left <= 0 && sent != SIGKILL) {
            j->past_deadline = 1;
            kill(-pid, SIGKILL);
            sent = SIGKILL;
        } else if (sig && !sent) {
            kill(-pid, sig);
            sent = sig;
            sent_at = sb__cmd_now();
        } else if (sent && sent != SIGKILL &&
                   sb__cmd_now() - sent_at > STOP_GRACE) {
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
static int run_exe(sb__cmd_job *j, const sb__cmd_exe *e, double *wall,
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
    t0 = sb__cmd_now();
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
    *wall = sb__cmd_now() - t0;
    return 0;
}

/* Run e (of command c; what and nth say which run: "timed run" 3).  A
 * failure is SB_ECOMMAND unless ignore_failure (then counted in
 * *failed).  A run cut short by a stop or the deadline is not a failure:
 * the caller stops. */
int sb__cmd_run_checked(sb__cmd_job *j, const sb__cmd_cell *c,
                        const sb__cmd_exe *e, const char *what, size_t nth,
                        double *wall, struct rusage *ru, size_t *failed)
{
    char buf[256], sbuf[96];
    int st = 0;

    if (run_exe(j, e, wall, ru, &st) != 0)
        return sb__error(j->err, SB_ESYS, "command '%s': %s %zu: cannot "
                                          "run %s: %s",
                         sb__cmd_shown(c->text, buf, sizeof buf), what, nth,
                         e->path, strerror(errno));
    if ((WIFEXITED(st) && WEXITSTATUS(st) == 0) || j->stop_sig ||
        j->past_deadline)
        return SB_OK;
    status_text(st, sbuf, sizeof sbuf);
    if (!j->o.ignore_failure)
        return sb__error(j->err, SB_ECOMMAND,
                         "command '%s': %s %zu failed: %s (--ignore-failure "
                         "keeps going)",
                         sb__cmd_shown(c->text, buf, sizeof buf), what, nth,
                         sbuf);
    (*failed)++;
    return SB_OK;
}
