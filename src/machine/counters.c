/*
 * counters.c: the counters read around every sample.
 *
 * Which counters: the names of sb_measure_options.counters (PAPI presets
 * such as PAPI_TOT_CYC, PAPI native names, perf software events
 * "perf::NAME"), or by default the hardware presets PAPI_TOT_CYC,
 * PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM and PAPI_TLB_DM; and always the
 * software events perf::CONTEXT-SWITCHES, perf::CPU-MIGRATIONS and
 * perf::PAGE-FAULTS, which the disturbance checks need.
 *
 * Where each comes from, first that works:
 *  1. PAPI (built with it, and the name can be added to this thread's
 *     event set).  On a virtual machine without a PMU, PAPI initialises
 *     but its perf_event component is disabled ("libpfm4 no default PMU
 *     found"): no preset and no perf:: event can be added there.
 *  2. perf_event_open(2), for the perf software events only: one group
 *     (PERF_FORMAT_GROUP, so that one read(2) returns every count), this
 *     thread on any CPU, nothing excluded.  With kernel.perf_event_paranoid
 *     at 2 or more this needs CAP_PERFMON (or root): counting context
 *     switches and migrations happens in the kernel, and excluding the
 *     kernel would count none.
 *  3. getrusage(RUSAGE_THREAD): context switches (ru_nvcsw + ru_nivcsw)
 *     and page faults (ru_minflt + ru_majflt, or either alone).  CPU
 *     migrations have no such fallback: the measuring loop still compares
 *     sched_getcpu() before and after each sample.
 * A counter none of these gives is reported missing with the reason, once,
 * in sb_meta.counters; it is never an error.  A name that is no counter
 * at all (sb__counters_check_names, run by sb_plan_check) is.
 *
 * The counters run for the whole invocation; a sample's count is the
 * difference of two reads, one just before the timer starts and one just
 * after it stops.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/perf_event.h>
#define HAVE_PERF_EVENT 1
#endif

#ifdef SB_HAVE_PAPI
#include <papi.h>
#include <poll.h>
#include <signal.h>
#include <stdio_ext.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#endif

#include "counters.h"
#include "sysinfo.h"
#include "text.h"

/* The default hardware counters (PAPI presets). */
static const char *const default_hw[] = {
    "PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_DCM",
    "PAPI_TLB_DM",
};
#define NDEFAULT_HW (sizeof default_hw / sizeof default_hw[0])

/* Software events: the first three are always read. */
enum { SW_CTXSW, SW_MIGR, SW_FAULTS, SW_MINFLT, SW_MAJFLT, SW_TASK_CLOCK,
       SW_CPU_CLOCK, SW_ALIGN, SW_EMUL, SW_N };

static const struct sw_event {
    const char *name; /* the name PAPI (libpfm4) gives it */
    const char *alias;
    int rusage;       /* 1 when getrusage can stand in */
#ifdef HAVE_PERF_EVENT
    unsigned long long config;
#endif
} sw_events[SW_N] = {
#ifdef HAVE_PERF_EVENT
#define SW(name, alias, ru, cfg) {name, alias, ru, cfg}
#else
#define SW(name, alias, ru, cfg) {name, alias, ru}
#endif
    SW("perf::CONTEXT-SWITCHES", "perf::CS", 1,
       PERF_COUNT_SW_CONTEXT_SWITCHES),
    SW("perf::CPU-MIGRATIONS", "perf::MIGRATIONS", 0,
       PERF_COUNT_SW_CPU_MIGRATIONS),
    SW("perf::PAGE-FAULTS", "perf::FAULTS", 1, PERF_COUNT_SW_PAGE_FAULTS),
    SW("perf::MINOR-FAULTS", NULL, 1, PERF_COUNT_SW_PAGE_FAULTS_MIN),
    SW("perf::MAJOR-FAULTS", NULL, 1, PERF_COUNT_SW_PAGE_FAULTS_MAJ),
    SW("perf::TASK-CLOCK", NULL, 0, PERF_COUNT_SW_TASK_CLOCK),
    SW("perf::CPU-CLOCK", NULL, 0, PERF_COUNT_SW_CPU_CLOCK),
    SW("perf::ALIGNMENT-FAULTS", NULL, 0, PERF_COUNT_SW_ALIGNMENT_FAULTS),
    SW("perf::EMULATION-FAULTS", NULL, 0, PERF_COUNT_SW_EMULATION_FAULTS),
#undef SW
};

/* Which software event a name is, or -1.  libpfm4 ignores case. */
static int sw_index(const char *name)
{
    for (int i = 0; i < SW_N; i++)
        if (!strcasecmp(name, sw_events[i].name) ||
            (sw_events[i].alias && !strcasecmp(name, sw_events[i].alias)))
            return i;
    return -1;
}

enum src { SRC_NONE = 0, SRC_PAPI, SRC_PERF, SRC_RUSAGE };

static const char *const src_name[] = {"", "PAPI", "perf_event_open",
                                       "getrusage"};

/* One counter asked for (by default or by name), read or missing. */
struct entry {
    char name[64];
    int sw;       /* software event index, or -1 */
    int src;      /* enum src; SRC_NONE: missing */
    size_t at;    /* index in the PAPI values or the perf group */
    char why[96]; /* why it is missing */
};

struct sb__counters {
    size_t nentries;
    struct entry e[SB_MAX_COUNTERS];
    size_t nused;               /* counters read, in entry order */
    size_t used[SB_MAX_COUNTERS]; /* their entries */
    int special[3];             /* read index of SW_CTXSW, SW_MIGR,
                                   SW_FAULTS, or -1 */
#ifdef SB_HAVE_PAPI
    int es;                     /* PAPI event set, or PAPI_NULL */
    int papi_running;
    size_t npapi;
#endif
    int perf_fd[SB_MAX_COUNTERS];
    size_t nperf;
};

/* ---- Parsing -------------------------------------------------------- */

int sb__counters_parse(const char *list, char (*names)[64], size_t max,
                       size_t *n, sb_error *err)
{
    const char *p = list;
    size_t count = 0, nsw = 0;
    int have_sw[SW_N] = {0};

    *n = 0;
    if (!list)
        return SB_OK;
    for (size_t pos = 1;; pos++) {
        const char *end = strchr(p, ',');
        const char *a = p, *b = end ? end : p + strlen(p);
        size_t len;
        int sw;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        len = (size_t)(b - a);
        if (len == 0)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": name %zu is empty", list, pos);
        if (len >= 64)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": name %zu is longer than 63 "
                             "characters", list, pos);
        for (const char *c = a; c < b; c++)
            if (*c == ' ' || *c == '\t' || (unsigned char)*c < 0x20)
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": name %zu has a blank "
                                 "inside", list, pos);
        if (count >= max)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": more than %zu names", list,
                             max);
        memcpy(names[count], a, len);
        names[count][len] = '\0';
        for (size_t i = 0; i < count; i++)
            if (!strcasecmp(names[i], names[count]))
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": %s is listed twice", list,
                                 names[count]);
        sw = sw_index(names[count]);
        if (sw >= 0) {
            if (have_sw[sw])
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": %s is listed twice (as "
                                 "%s)", list, sw_events[sw].name,
                                 names[count]);
            have_sw[sw] = 1;
        }
        count++;
        if (!end)
            break;
        p = end + 1;
    }
    /* The three software events are always read, so they take room. */
    for (int i = SW_CTXSW; i <= SW_FAULTS; i++)
        nsw += !have_sw[i];
    if (count + nsw > SB_MAX_COUNTERS)
        return sb__error(err, SB_EINVAL,
                         "counters \"%s\": %zu names, with the %zu software "
                         "events always read more than the %d allowed",
                         list, count, nsw, SB_MAX_COUNTERS);
    *n = count;
    return SB_OK;
}

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

/* Initialise PAPI, once per process (papi_init) and once in the trial
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
static int papi_init(char *line, size_t len)
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
static void papi_why(const char *name, int rc, char *why, size_t len)
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

int sb__counters_check_names(const char (*names)[64], size_t n,
                             sb_error *err)
{
#ifdef SB_HAVE_PAPI
    char line[160];
    for (size_t i = 0; i < n; i++) {
        int code = 0;
        if (sw_index(names[i]) >= 0)
            continue;
        /* Without PAPI running (too few descriptors, a failed start)
         * nothing can be told: the run reports the name missing. */
        if (!papi_init(line, sizeof line))
            return SB_OK;
        if (PAPI_event_name_to_code(names[i], &code) != PAPI_OK)
            return sb__error(err, SB_EINVAL,
                             "counters: no counter named '%.63s' (not a "
                             "perf software event, and unknown to %.120s)",
                             names[i], line);
    }
#else
    (void)names;
    (void)n;
    (void)err;
#endif
    return SB_OK;
}

void sb__counters_describe(char *buf, size_t len)
{
#ifdef SB_HAVE_PAPI
    papi_init(buf, len);
#else
    snprintf(buf, len, "counters off (built --without-papi)");
#endif
}

/* ---- perf_event_open ------------------------------------------------ */

#ifdef HAVE_PERF_EVENT
static int perf_open(struct sb__counters *c, int sw, char *why, size_t len)
{
    struct perf_event_attr a;
    int fd, group = c->nperf ? c->perf_fd[0] : -1;

    if (SB__COUNTERS_NO_PERF) {
        snprintf(why, len, "perf_event_open: refused (test)");
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = sw_events[sw].config;
    a.read_format = PERF_FORMAT_GROUP;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
                      PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        long paranoid = 0;
        int have = sb__perf_paranoid("", &paranoid) == 0;
        if ((e == EACCES || e == EPERM) && have)
            snprintf(why, len,
                     "perf_event_open: %s (kernel.perf_event_paranoid is "
                     "%ld)", strerror(e), paranoid);
        else
            snprintf(why, len, "perf_event_open: %s", strerror(e));
        return -1;
    }
    c->perf_fd[c->nperf] = fd;
    return (int)c->nperf++;
}
#endif

/* ---- Opening and reading ---------------------------------------------- */

static void add_entry(struct sb__counters *c, const char *name)
{
    struct entry *e = &c->e[c->nentries++];
    snprintf(e->name, sizeof e->name, "%.63s", name);
    e->sw = sw_index(name);
    e->src = SRC_NONE;
}

/* Try the sources of entry e in order; leave e->why when none works. */
static void open_entry(struct sb__counters *c, struct entry *e, int try_papi)
{
    char why[96] = "";
#ifdef SB_HAVE_PAPI
    if (!try_papi) {
        snprintf(why, sizeof why, "%.95s", e->why);
    } else if (papi_init(why, sizeof why)) {
        int rc = PAPI_OK;
        if (c->es == PAPI_NULL)
            rc = PAPI_create_eventset(&c->es);
        if (rc == PAPI_OK)
            rc = PAPI_add_named_event(c->es, e->name);
        if (rc == PAPI_OK) {
            e->src = SRC_PAPI;
            e->at = c->npapi++;
            return;
        }
        papi_why(e->name, rc, why, sizeof why);
    }
#else
    (void)try_papi;
    snprintf(why, sizeof why, "counters off (built --without-papi)");
#endif
    if (e->sw < 0) {
        snprintf(e->why, sizeof e->why, "%s", why);
        return;
    }
#ifdef HAVE_PERF_EVENT
    {
        int at = perf_open(c, e->sw, why, sizeof why);
        if (at >= 0) {
            e->src = SRC_PERF;
            e->at = (size_t)at;
            return;
        }
    }
#else
    snprintf(why, sizeof why, "no perf_event_open on this system");
#endif
    if (sw_events[e->sw].rusage) {
        e->src = SRC_RUSAGE;
        e->at = (size_t)e->sw;
        /* Say why getrusage stands in. */
        snprintf(e->why, sizeof e->why, "%s", why);
        return;
    }
    snprintf(e->why, sizeof e->why, "%s", why);
}

void sb__counters_close(sb__counters *c)
{
    if (!c)
        return;
#ifdef SB_HAVE_PAPI
    if (c->es != PAPI_NULL) {
        long long v[SB_MAX_COUNTERS];
        if (c->papi_running)
            PAPI_stop(c->es, v);
        PAPI_cleanup_eventset(c->es);
        PAPI_destroy_eventset(&c->es);
    }
#endif
    for (size_t i = 0; i < c->nperf; i++)
        close(c->perf_fd[i]);
    free(c);
}

/* Append "names (what)" groups to buf: entries with the same source (in
 * use) or the same reason (missing) share one group. */
static void describe(const struct sb__counters *c, char *buf, size_t len)
{
    size_t used = strlen(buf);
    int done[SB_MAX_COUNTERS] = {0};

#define PUT(...)                                                          \
    do {                                                                  \
        if (used < len) {                                                 \
            int w_ = snprintf(buf + used, len - used, __VA_ARGS__);       \
            if (w_ > 0)                                                   \
                used += (size_t)w_;                                       \
        }                                                                 \
    } while (0)

    for (int pass = 0; pass < 2; pass++) {
        int first_group = 1;
        for (size_t i = 0; i < c->nentries; i++) {
            const struct entry *e = &c->e[i];
            int in_use = e->src != SRC_NONE;
            if (done[i] || in_use != (pass == 0))
                continue;
            PUT("%s%s", used ? "; " : "",
                first_group ? (pass == 0 ? "in use: " : "missing: ") : "");
            first_group = 0;
            for (size_t j = i, n = 0; j < c->nentries; j++) {
                const struct entry *f = &c->e[j];
                if (done[j] || (f->src != SRC_NONE) != in_use ||
                    (in_use ? f->src != e->src : strcmp(f->why, e->why)))
                    continue;
                done[j] = 1;
                PUT("%s%s", n++ ? ", " : "", f->name);
            }
            if (in_use && e->src == SRC_RUSAGE)
                PUT(" (getrusage, since %s)", e->why);
            else
                PUT(" (%s)", in_use ? src_name[e->src] : e->why);
        }
    }
#undef PUT
    if (used >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}

int sb__counters_open(const char *list, sb__counters **out, sb_meta *meta,
                      sb_error *err)
{
    char names[SB_MAX_COUNTERS][64];
    size_t n = 0;
    struct sb__counters *c;
    int have[3] = {0, 0, 0};
    int rc;

    *out = NULL;
    if (list) {
        rc = sb__counters_parse(list, names, SB_MAX_COUNTERS, &n, err);
        if (rc != SB_OK)
            return rc;
    } else {
        for (n = 0; n < NDEFAULT_HW; n++)
            snprintf(names[n], sizeof names[n], "%s", default_hw[n]);
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return sb__error(err, SB_ENOMEM, "out of memory");
#ifdef SB_HAVE_PAPI
    c->es = PAPI_NULL;
#endif
    for (size_t i = 0; i < n; i++) {
        add_entry(c, names[i]);
        if (c->e[i].sw >= SW_CTXSW && c->e[i].sw <= SW_FAULTS)
            have[c->e[i].sw] = 1;
    }
    for (int s = SW_CTXSW; s <= SW_FAULTS; s++)
        if (!have[s])
            add_entry(c, sw_events[s].name);
    /* The software events never go through PAPI: its perf_event
     * component counts user space only (PAPI_DOM_USER), and context
     * switches and migrations happen in the kernel, so PAPI would count
     * none of them.  perf_event_open (kernel included) or getrusage. */
    for (size_t i = 0; i < c->nentries; i++)
        open_entry(c, &c->e[i], c->e[i].sw < 0);
#ifdef SB_HAVE_PAPI
    if (c->npapi) {
        int r = PAPI_start(c->es);
        if (r != PAPI_OK) {
            /* The set cannot run as a whole: software events try the
             * other sources, the rest are missing. */
            c->npapi = 0;
            PAPI_cleanup_eventset(c->es);
            PAPI_destroy_eventset(&c->es);
            for (size_t i = 0; i < c->nentries; i++)
                if (c->e[i].src == SRC_PAPI) {
                    c->e[i].src = SRC_NONE;
                    snprintf(c->e[i].why, sizeof c->e[i].why,
                             "PAPI_start: %s", PAPI_strerror(r));
                    open_entry(c, &c->e[i], 0);
                }
        } else {
            c->papi_running = 1;
        }
    }
#endif
    c->special[0] = c->special[1] = c->special[2] = -1;
    for (size_t i = 0; i < c->nentries; i++) {
        const struct entry *e = &c->e[i];
        if (e->src == SRC_NONE)
            continue;
        if (e->sw >= SW_CTXSW && e->sw <= SW_FAULTS)
            c->special[e->sw] = (int)c->nused;
        c->used[c->nused++] = i;
    }
    if (meta) {
        meta->ncounters = c->nused;
        for (size_t i = 0; i < c->nused; i++)
            snprintf(meta->counter_names[i], sizeof meta->counter_names[i],
                     "%s", c->e[c->used[i]].name);
        /* The backend first, when there is one to speak of. */
        meta->counters[0] = '\0';
#ifdef SB_HAVE_PAPI
        sb__counters_describe(meta->counters, sizeof meta->counters);
#endif
        describe(c, meta->counters, sizeof meta->counters);
    }
    *out = c;
    return SB_OK;
}

size_t sb__counters_count(const sb__counters *c)
{
    return c ? c->nused : 0;
}

int sb__counters_special(const sb__counters *c, int which)
{
    return c && which >= 0 && which < 3 ? c->special[which] : -1;
}

int sb__counters_read(sb__counters *c, uint64_t *v)
{
    int ok = 0;
#ifdef SB_HAVE_PAPI
    long long pv[SB_MAX_COUNTERS];
    if (c->npapi && PAPI_read(c->es, pv) != PAPI_OK)
        ok = -1;
#endif
#ifdef HAVE_PERF_EVENT
    uint64_t g[SB_MAX_COUNTERS + 1];
    if (c->nperf) {
        ssize_t want = (ssize_t)((c->nperf + 1) * sizeof g[0]);
        if (read(c->perf_fd[0], g, (size_t)want) != want ||
            g[0] != c->nperf)
            ok = -1;
    }
#endif
    for (size_t i = 0; i < c->nused && ok == 0; i++) {
        const struct entry *e = &c->e[c->used[i]];
#ifdef SB_HAVE_PAPI
        if (e->src == SRC_PAPI)
            v[i] = (uint64_t)pv[e->at];
#endif
#ifdef HAVE_PERF_EVENT
        if (e->src == SRC_PERF)
            v[i] = g[1 + e->at];
#endif
        (void)e;
    }
    return ok;
}

void sb__counters_rusage(const sb__counters *c, const struct rusage *ru,
                         uint64_t *v)
{
    for (size_t i = 0; i < c->nused; i++) {
        const struct entry *e = &c->e[c->used[i]];
        if (e->src != SRC_RUSAGE)
            continue;
        if (e->sw == SW_CTXSW)
            v[i] = (uint64_t)(ru->ru_nvcsw + ru->ru_nivcsw);
        else if (e->sw == SW_MINFLT)
            v[i] = (uint64_t)ru->ru_minflt;
        else if (e->sw == SW_MAJFLT)
            v[i] = (uint64_t)ru->ru_majflt;
        else
            v[i] = (uint64_t)(ru->ru_minflt + ru->ru_majflt);
    }
}

int sb__counters_from_rusage(const sb__counters *c, int which)
{
    int i = sb__counters_special(c, which);
    return i >= 0 && c->e[c->used[i]].src == SRC_RUSAGE;
}

size_t sb_counters_available(char names[][64], char why[][96], size_t max)
{
    sb__counters *c = NULL;
    size_t n;

    sb_init();
    if (sb__counters_open(NULL, &c, NULL, NULL) != SB_OK)
        return 0;
    n = c->nentries;
    for (size_t i = 0; i < n && i < max; i++) {
        const struct entry *e = &c->e[i];
        if (names)
            snprintf(names[i], 64, "%s", e->name);
        if (why) {
            if (e->src == SRC_NONE)
                snprintf(why[i], 96, "%s", e->why);
            else
                why[i][0] = '\0';
        }
    }
    sb__counters_close(c);
    return n;
}
