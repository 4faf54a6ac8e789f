/*
 * counters_papi.c: PAPI's start (counters_internal.h), once a process:
 * the check that enough descriptors are free, the trial start in a child
 * that keeps whatever PAPI prints or exits with out of the caller's
 * process, then the start itself, and the account of the backend or of
 * why PAPI is off.  Also why PAPI cannot add a counter.  Below
 * counters.c, which adds and reads the counters; it calls none of the
 * counters' files.
 */
#include "config.h"

#include "counters_internal.h"

#ifdef SB_HAVE_PAPI
#include <errno.h>
#include <fcntl.h>
#include <papi.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "text.h"
#endif

/* ---- PAPI ------------------------------------------------------------ */

#ifdef SB_HAVE_PAPI
static char papi_line[256];
static char papi_brief[96]; /* papi_line without its quote, or "" */
static int papi_ok;
static int papi_tried;
static pthread_mutex_t papi_lock = PTHREAD_MUTEX_INITIALIZER;

/* PAPI_library_init reads /proc and /sys files, some while another is
 * open (two at once on a VM without a PMU, more where the perf_event
 * component and libpfm4 scan the PMUs).  Some of those reads go through
 * PAPI's fopen_or_die(), which calls err(1, ...) when the open fails: with
 * one or two free descriptors, PAPI exits the process it runs in.  The
 * trial start in a child (papi_trial) keeps that exit, and anything PAPI
 * prints, out of the caller's process whatever the margin; this check
 * comes first all the same, to spare the fork where PAPI could not start
 * and to say why in plain words.  So PAPI is only tried when this many
 * descriptors are free, a wide margin over what it was seen to need;
 * below that the counters it would give are reported missing with the
 * reason, and the software events keep their other sources. */
#define PAPI_FDS 16

/* How many descriptors (up to want) this process can still open: dup an
 * open descriptor until that fails, then close the copies.  Opening
 * /dev/null stands in when 0, 1 and 2 are all closed. */
static int spare_fds(int want)
{
    int fds[PAPI_FDS], n = 0, src = -1, own = -1;

    for (int fd = 0; fd <= 2 && src < 0; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            src = fd;
    if (src < 0) {
        own = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (own < 0)
            return 0;
        src = own;
    }
    while (n < want && n < PAPI_FDS) {
        int fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            break;
        fds[n++] = fd;
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    if (own >= 0) {
        close(own);
        n++;
    }
    return n;
}

/* Initialise PAPI, once per process (sb__papi_init) and once in the trial
 * child before that (papi_trial); thread support lets each measuring
 * thread have its own event set.  Sets papi_ok and papi_line. */
static void papi_probe(void)
{
    int v;
    char perf[160] = "no perf_event component";

    v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        /* PAPI_strerror gives NULL for some codes before PAPI is up. */
        const char *e = v < 0 ? PAPI_strerror(v) : "version mismatch";
        snprintf(papi_line, sizeof papi_line,
                 "PAPI %d.%d: initialisation failed (%s, %d)",
                 PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
                 PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
                 e ? e : "no message", v);
        return;
    }
    /* Quiet PAPI's own error handler for the calls to come.  It does not
     * quiet PAPIERROR, which prints whenever PAPI_VERBOSE is set: that is
     * why the initialisation is tried in a child first (papi_trial). */
    PAPI_set_debug(PAPI_QUIET);
    if (PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK) {
        snprintf(papi_line, sizeof papi_line,
                 "PAPI %d.%d: thread support failed",
                 PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
                 PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
        return;
    }
    papi_ok = 1;
    for (int i = 0; i < PAPI_num_components(); i++) {
        const PAPI_component_info_t *ci = PAPI_get_component_info(i);
        if (ci && !strcmp(ci->name, "perf_event")) {
            if (ci->disabled)
                snprintf(perf, sizeof perf,
                         "perf_event component disabled (%.100s)",
                         ci->disabled_reason);
            else
                snprintf(perf, sizeof perf, "perf_event component enabled");
            break;
        }
    }
    snprintf(papi_line, sizeof papi_line, "PAPI %d.%d.%d, %s",
             PAPI_VERSION_MAJOR(PAPI_VER_CURRENT),
             PAPI_VERSION_MINOR(PAPI_VER_CURRENT),
             PAPI_VERSION_REVISION(PAPI_VER_CURRENT), perf);
}

/* How long the parent waits for the trial child.  PAPI_library_init takes
 * about 3 ms here; a child still at it after this long is stuck (on a
 * lock another thread of the parent held at fork, say) and is killed. */
#define TRIAL_SECONDS 5.0

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The trial child, r and w the pipe's ends.  Its stdout and stderr go
 * onto w, and both ends are closed, so that it holds the descriptors the
 * parent holds, no more; then PAPI's start, and the record: a NUL (no
 * text PAPI prints holds one), '1' or '0' for papi_ok, papi_line and a
 * NUL.  Never returns. */
static void trial_child(int r, int w)
{
    char rec[3 + sizeof papi_line];
    size_t n;
    int out_open = r != 1 && w != 1 && fcntl(1, F_GETFD) >= 0;

    /* A parent killed while it waits must not leave this child behind. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* What the parent's stdio had buffered is the parent's to write: not
     * flushed into the pipe, where it would read as PAPI's. */
    __fpurge(stdout);
    __fpurge(stderr);
    close(r);
    if ((w != 2 && dup2(w, 2) < 0) || (out_open && dup2(w, 1) < 0))
        _exit(1);
    if (w > 2)
        close(w);
    if (SB__COUNTERS_TRIAL_FAILS == 1)
        fputs("\nPAPI Error: \033[1mtest\033[0m of the trial.\n", stderr);
    else if (SB__COUNTERS_TRIAL_FAILS == 2)
        _exit(1);
    papi_probe();
    /* A caller's setvbuf may have made either stream buffered. */
    fflush(stdout);
    fflush(stderr);
    n = strlen(papi_line);
    rec[0] = '\0';
    rec[1] = papi_ok ? '1' : '0';
    memcpy(rec + 2, papi_line, n + 1);
    _exit(write(2, rec, n + 3) == (ssize_t)(n + 3) ? 0 : 1);
}

/* What the parent learns of its trial child: what it wrote (the first
 * sizeof out bytes; the rest is read and dropped), where its record
 * starts (mark, the first NUL, or NULL), whether it is gone or hung, and
 * its wait status when this process reaped it. */
struct trial {
    char out[1024];
    size_t n;
    const char *mark;
    int st, have_st, hung, gone;
};

/* The pipe and the child; its start's failure in papi_line.  In the
 * child trial_child never returns.  0, or -1 with nothing left open. */
static int trial_start(int p[2], pid_t *pid)
{
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(papi_line, sizeof papi_line,
                 "PAPI not started: no pipe for its trial start (%s)",
                 strerror(errno));
        return -1;
    }
    *pid = fork();
    if (*pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        snprintf(papi_line, sizeof papi_line,
                 "PAPI not started: no fork for its trial start (%s)",
                 strerror(e));
        return -1;
    }
    if (*pid == 0)
        trial_child(p[0], p[1]);
    return 0;
}

/* Read the child's pipe, fd (non-blocking), until its record is whole,
 * the pipe ends, the child is gone (and the pipe drained once more) or
 * the deadline passes (t->hung). */
static void trial_read(struct trial *t, int fd, pid_t pid)
{
    char drain[256];
    double deadline = mono_now() + TRIAL_SECONDS;

    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        double left = deadline - mono_now();
        int was_gone = t->gone;
        ssize_t k;

        /* Everything there is now (a child that prints much must not block
         * on a full pipe: what does not fit in out is read and dropped). */
        while ((k = read(fd, t->n < sizeof t->out ? t->out + t->n : drain,
                         t->n < sizeof t->out ? sizeof t->out - t->n
                                              : sizeof drain)) > 0)
            if (t->n < sizeof t->out)
                t->n += (size_t)k;
        t->mark = memchr(t->out, '\0', t->n);
        if (k == 0 ||
            (t->mark && memchr(t->mark + 1, '\0',
                               t->n - (size_t)(t->mark - t->out) - 1)))
            break; /* the end of the pipe, or the whole record */
        if (was_gone)
            break; /* drained once more after the child was gone */
        if (left <= 0) {
            t->hung = 1;
            break;
        }
        if (!t->gone) {
            pid_t w = waitpid(pid, &t->st, WNOHANG);
            /* ECHILD: reaped by someone else (SIGCHLD ignored, a caller
             * waiting for any child). */
            t->gone = w == pid || (w < 0 && errno == ECHILD);
            t->have_st = w == pid;
        }
        if (!t->gone)
            poll(&pf, 1, left < 0.05 ? (int)(left * 1000) + 1 : 50);
    }
}

/* The child still there after the reading: killed when it hung, then
 * reaped. */
static void trial_reap(struct trial *t, pid_t pid)
{
    pid_t w;

    if (t->hung)
        kill(pid, SIGKILL);
    while ((w = waitpid(pid, &t->st, 0)) < 0 && errno == EINTR)
        ;
    t->have_st = w == pid;
}

/* The child printed before its record (or printed and left none): PAPI
 * stays off, and papi_brief and papi_line say so with the first line
 * (PAPIERROR starts with a newline), at most 100 bytes; a character cut
 * at the end is cleaned into a '?'.  -1. */
static int trial_printed(const struct trial *t)
{
    char line[128];
    size_t at = 0, end;
    size_t stop = t->mark ? (size_t)(t->mark - t->out) : t->n;

    while (at < stop && (t->out[at] == '\n' || t->out[at] == '\r'))
        at++;
    for (end = at; end < stop && end - at < 100 && t->out[end] != '\n';)
        end++;
    snprintf(line, sizeof line, "%.*s", (int)(end - at), t->out + at);
    sb__clean_text(line);
    snprintf(papi_brief, sizeof papi_brief,
             "PAPI not started: its initialisation printed messages "
             "here");
    if (line[0])
        snprintf(papi_line, sizeof papi_line, "%s (first line: %s)",
                 papi_brief, line);
    else
        snprintf(papi_line, sizeof papi_line, "%s (blank lines)",
                 papi_brief);
    return -1;
}

/* The child printed nothing: 0 when its record says PAPI started, else
 * -1 with papi_line saying why not (the record's account, or how the
 * child ended without one). */
static int trial_verdict(const struct trial *t)
{
    if (!t->mark) {
        if (t->hung)
            snprintf(papi_line, sizeof papi_line,
                     "PAPI not started: its trial start had not finished "
                     "after %.0f s", TRIAL_SECONDS);
        else if (t->have_st && WIFSIGNALED(t->st))
            snprintf(papi_line, sizeof papi_line,
                     "PAPI not started: its trial start died of signal %d "
                     "(%s)", WTERMSIG(t->st), strsignal(WTERMSIG(t->st)));
        else if (t->have_st && WIFEXITED(t->st))
            snprintf(papi_line, sizeof papi_line,
                     "PAPI not started: its trial start exited with "
                     "status %d", WEXITSTATUS(t->st));
        else
            snprintf(papi_line, sizeof papi_line,
                     "PAPI not started: its trial start ended without a "
                     "word");
        return -1;
    }
    if (t->n > 1 && t->out[1] == '1')
        return 0;
    /* PAPI failed, silently: the child's account, as this process would
     * have given it. */
    snprintf(papi_line, sizeof papi_line, "%.*s",
             t->n > 2 ? (int)strnlen(t->out + 2, t->n - 2) : 0, t->out + 2);
    sb__clean_text(papi_line);
    if (!papi_line[0])
        snprintf(papi_line, sizeof papi_line,
                 "PAPI not started: its trial start failed");
    return -1;
}

/* Try PAPI's initialisation in a child before the process does it.
 * PAPI prints from inside its components (PAPIERROR, whenever PAPI_VERBOSE
 * is set, PAPI_set_debug or not: "Couldn't open hw_instructions" on a VM
 * without a PMU), and exits from them (err(1) when a /proc or /sys file
 * cannot be opened); the library never prints and never exits, however
 * PAPI's components fail.  So a child starts PAPI with its stdout and
 * stderr on a pipe and reports, and this process starts PAPI only when
 * the child printed nothing and succeeded.  The ways without a fork are
 * worse: pointing this process's fd 2 elsewhere around the call, or
 * unsetting PAPI_VERBOSE, would act on every thread of the caller's
 * program (their writes to stderr lost meanwhile, getenv racing unsetenv),
 * and no margin of free descriptors covers a component that prints with
 * plenty of them, as this one does.  A fork is sound in a threaded
 * program here: only this thread is copied; glibc makes malloc and stdio
 * usable in the child; PAPI and libpfm4 are not started in this process
 * yet (papi_tried is 0 under papi_lock), so no other thread can hold a
 * lock of theirs; a lock of something else held at fork would leave the
 * child stuck, and the deadline kills it.  Another thread's fork may copy
 * the write end into a child of its own, which keeps the pipe from ending:
 * so the reading stops at the record or when this child is gone, not at
 * the end of the pipe.  The cost, once a process: a fork (0.2 ms for a
 * small process on the 2-vCPU guest measured, 30 ms with 1 GiB of heap
 * touched: the page tables are copied) and PAPI's start once more in the
 * child (3-4 ms there).
 * 0: start PAPI here.  -1: PAPI stays off, papi_line says why. */
static int papi_trial(void)
{
    struct trial t = {.n = 0};
    int p[2];
    pid_t pid;

    if (trial_start(p, &pid) != 0)
        return -1;
    close(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    trial_read(&t, p[0], pid);
    close(p[0]);
    if (!t.gone)
        trial_reap(&t, pid);
    if (t.mark ? t.mark > t.out : t.n > 0)
        return trial_printed(&t);
    return trial_verdict(&t);
}

/* 1 when PAPI is initialised.  line (len bytes) receives the backend's
 * description or why PAPI is off.  Too few free descriptors leave PAPI
 * uninitialised for now, so a later call with more may still start it.
 * Once tried (in the trial child, then here), the answer is the process's:
 * a trial that printed would print again, and each would cost a fork.
 * Under a lock, so that concurrent runs do not race on the start. */
int sb__papi_init(char *line, size_t len)
{
    int ok, spare;

    pthread_mutex_lock(&papi_lock);
    if (!papi_tried && (spare = spare_fds(PAPI_FDS)) < PAPI_FDS)
        snprintf(line, len,
                 "PAPI not started: %d file descriptor%s free, it needs "
                 "%d (ulimit -n)", spare, spare == 1 ? "" : "s", PAPI_FDS);
    else {
        if (!papi_tried) {
            papi_tried = 1;
            if (papi_trial() == 0)
                papi_probe();
        }
        /* A line too short for the quote of what PAPI printed (a
         * counter's reason) gets the reason without it. */
        snprintf(line, len, "%s",
                 papi_brief[0] && strlen(papi_line) >= len ? papi_brief
                                                          : papi_line);
        /* A cut in the middle of a character is no UTF-8. */
        sb__clean_text(line);
    }
    ok = papi_ok;
    pthread_mutex_unlock(&papi_lock);
    return ok;
}

/* Why PAPI cannot add name: its error, or for a disabled component the
 * component and its own reason. */
void sb__papi_why(const char *name, int rc, char *why, size_t len)
{
    int code = 0;
    if (PAPI_event_name_to_code(name, &code) != PAPI_OK) {
        snprintf(why, len, "PAPI: no event of that name");
        return;
    }
    if (rc == PAPI_ECMP_DISABLED) {
        const PAPI_component_info_t *ci =
            PAPI_get_component_info(PAPI_get_event_component(code));
        if (ci && ci->disabled_reason[0]) {
            snprintf(why, len, "PAPI: %.16s component disabled (%.50s)",
                     ci->name, ci->disabled_reason);
            return;
        }
    }
    snprintf(why, len, "PAPI: %.80s", PAPI_strerror(rc));
}
#endif
