/*
 * runner_fork.c: one invocation of a run measured in a child process
 * (runner.c decides which and when, with what budget): the fork, a child
 * that dies with its parent, the pipe protocol by which it sends its
 * samples back, the stop request passed on to it, the kill of a hung
 * one, and what its end was (an interruption, a death, an error).  The
 * variance between processes is why invocations fork: see runner.c.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure.h"
#include "plan.h"
#include "runner.h"
#include "timer.h"

#if SB_LSAN
#include <sanitizer/lsan_interface.h>
#endif

/* ---- The pipe protocol between an invocation and the parent ------------ */

#define WIRE_MAGIC 0x5342494eu /* "SBIN" */

/* All len bytes of buf written to fd (out != 0, buf only read) or read
 * from it, through interruptions and short transfers; -1 on an error or
 * the end of the pipe. */
static int transfer_all(int fd, void *buf, size_t len, int out)
{
    char *p = buf;
    while (len) {
        ssize_t k = out ? write(fd, p, len) : read(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
    return transfer_all(fd, (void *)buf, len, 1);
}

static int read_all(int fd, void *buf, size_t len)
{
    return transfer_all(fd, buf, len, 0);
}

/* The fixed-size fields of an invocation and of each of its cells, in
 * the order they travel: send_invocation and receive_invocation both walk
 * these lists, so that what is read is what was written. */
struct wire_field {
    size_t off, size;
};
#define WIRE(type, field) {offsetof(type, field), sizeof ((type *)0)->field}
static const struct wire_field inv_wire[] = {
    WIRE(sb__invocation, meta),        WIRE(sb__invocation, rounds),
    WIRE(sb__invocation, elapsed),     WIRE(sb__invocation, interrupted),
    WIRE(sb__invocation, irq_count),   WIRE(sb__invocation, irq_seconds),
};
static const struct wire_field cell_wire[] = {
    WIRE(sb__raw_cell, iters),     WIRE(sb__raw_cell, warmup_samples),
    WIRE(sb__raw_cell, rejected),  WIRE(sb__raw_cell, disturbed),
    WIRE(sb__raw_cell, user),      WIRE(sb__raw_cell, sys),
    WIRE(sb__raw_cell, calls),     WIRE(sb__raw_cell, nsamples),
    WIRE(sb__raw_cell, waited),    WIRE(sb__raw_cell, waited_timed),
};
#define NWIRE(list) (sizeof list / sizeof *list)

/* The n fields f of the struct at base, as transfer_all moves them. */
static int transfer_fields(int fd, void *base, const struct wire_field *f,
                           size_t n, int out)
{
    for (size_t i = 0; i < n; i++)
        if (transfer_all(fd, (char *)base + f[i].off, f[i].size, out))
            return -1;
    return 0;
}

/* A raw cell's per-sample arrays (nsamples of each): ticks, then flags,
 * clocks and probe readings where present, then nc counters each. */
static int send_samples(int fd, const sb__raw_cell *c, size_t nc)
{
    unsigned char has_flags = c->flags != NULL;
    unsigned char has_clock = c->clock != NULL;
    unsigned char has_probes = c->probes != NULL;
    size_t n = c->nsamples;
    return write_all(fd, &nc, sizeof nc) ||
           write_all(fd, &has_flags, sizeof has_flags) ||
           write_all(fd, &has_clock, sizeof has_clock) ||
           write_all(fd, &has_probes, sizeof has_probes) ||
           write_all(fd, c->ticks, n * sizeof *c->ticks) ||
           (has_flags && write_all(fd, c->flags, n)) ||
           (has_clock && write_all(fd, c->clock, n * sizeof *c->clock)) ||
           (has_probes &&
            write_all(fd, c->probes,
                      n * SB_PROBE_READINGS * sizeof *c->probes)) ||
           write_all(fd, c->counters, n * nc * sizeof *c->counters);
}

/* A malloc'd array of n elements of size each read from fd (one more,
 * so that n 0 is not a NULL), or NULL. */
static void *read_array(int fd, size_t n, size_t size)
{
    void *p = malloc((n + 1) * size);
    if (p && read_all(fd, p, n * size)) {
        free(p);
        p = NULL;
    }
    return p;
}

/* send_samples' arrays into c, whose nsamples is set; at most max_nc
 * counters, named by names.  -1 on a short read, a bad count or no
 * memory (what was allocated is c's, for sb__invocation_free). */
static int receive_samples(int fd, sb__raw_cell *c, size_t max_nc,
                           const char (*names)[64])
{
    unsigned char has_flags, has_clock, has_probes;
    size_t nc, n = c->nsamples;
    if (read_all(fd, &nc, sizeof nc) ||
        read_all(fd, &has_flags, sizeof has_flags) ||
        read_all(fd, &has_clock, sizeof has_clock) ||
        read_all(fd, &has_probes, sizeof has_probes) ||
        n > ((size_t)1 << 34) || nc > max_nc)
        return -1;
    c->cap = n;
    if (!(c->ticks = read_array(fd, n, sizeof *c->ticks)) ||
        (has_flags && !(c->flags = read_array(fd, n, 1))) ||
        (has_clock && !(c->clock = read_array(fd, n, sizeof *c->clock))) ||
        (has_probes && !(c->probes = read_array(fd, n * SB_PROBE_READINGS,
                                                sizeof *c->probes))))
        return -1;
    c->ncounters = nc;
    c->counter_names = names;
    if (nc && !(c->counters = read_array(fd, n * nc, sizeof *c->counters)))
        return -1;
    return 0;
}

/* The child's side: status, then its error or its data: the meta struct,
 * the invocation's figures, then per cell its counts, its kept samples'
 * arrays (send_samples), and its held samples (sb__raw_cell.held): their
 * number, places and arrays.  The meta struct travels as bytes: both
 * processes run the same binary, so its static string pointers
 * (timer.hz_source) stay valid. */
static int send_invocation(int fd, int rc, const sb_error *err,
                           const sb__invocation *inv)
{
    uint32_t magic = WIRE_MAGIC;
    int32_t status = rc;
    if (write_all(fd, &magic, sizeof magic) ||
        write_all(fd, &status, sizeof status))
        return -1;
    if (rc != SB_OK)
        return write_all(fd, err, sizeof *err);
    if (transfer_fields(fd, (void *)inv, inv_wire, NWIRE(inv_wire), 1))
        return -1;
    for (size_t i = 0; i < inv->ncells; i++) {
        const sb__raw_cell *c = &inv->cells[i], *h = c->held;
        size_t nc = c->counters ? c->ncounters : 0;
        size_t nh = h ? h->nsamples : 0;
        if (transfer_fields(fd, (void *)c, cell_wire, NWIRE(cell_wire), 1) ||
            send_samples(fd, c, nc) || write_all(fd, &nh, sizeof nh) ||
            (nh && (write_all(fd, c->held_at, nh * sizeof *c->held_at) ||
                    send_samples(fd, h, h->counters ? h->ncounters : 0))))
            return -1;
    }
    return 0;
}

static int receive_invocation(int fd, size_t ncells, sb__invocation *inv,
                              sb_error *err, int *child_rc)
{
    uint32_t magic;
    int32_t status;

    memset(inv, 0, sizeof *inv);
    *child_rc = SB_OK;
    if (read_all(fd, &magic, sizeof magic) || magic != WIRE_MAGIC ||
        read_all(fd, &status, sizeof status))
        return -1;
    if (status != SB_OK) {
        sb_error e;
        if (read_all(fd, &e, sizeof e))
            return -1;
        e.text[sizeof e.text - 1] = '\0';
        if (err)
            *err = e;
        *child_rc = status;
        return 0;
    }
    inv->cells = calloc(ncells, sizeof *inv->cells);
    if (!inv->cells)
        return -1;
    inv->ncells = ncells;
    if (transfer_fields(fd, inv, inv_wire, NWIRE(inv_wire), 0))
        return -1;
    if (inv->meta.ncounters > SB_MAX_COUNTERS)
        return -1;
    for (size_t i = 0; i < ncells; i++) {
        sb__raw_cell *c = &inv->cells[i];
        const char (*names)[64] =
            (const char (*)[64])inv->meta.counter_names;
        size_t nh;
        if (transfer_fields(fd, c, cell_wire, NWIRE(cell_wire), 0) ||
            receive_samples(fd, c, inv->meta.ncounters, names) ||
            read_all(fd, &nh, sizeof nh) || nh > ((size_t)1 << 34))
            return -1;
        if (!nh)
            continue;
        if (!(c->held = calloc(1, sizeof *c->held)) ||
            !(c->held_at = read_array(fd, nh, sizeof *c->held_at)))
            return -1;
        c->held->nsamples = nh;
        if (receive_samples(fd, c->held, inv->meta.ncounters, names))
            return -1;
    }
    return 0;
}

/* Wait until the child's data start to arrive (it writes them only
 * when it has measured) or it ends; kill it at kill_at (returns -1).
 * Meanwhile a stop asked for here (sb_run_request_stop() from a signal
 * handler, sb_measure_options.stop), in memory the child does not share, is
 * passed on through the run's shared flag: at once after a signal (poll
 * returns EINTR), within 0.2 s otherwise.  The parent is not pinned and
 * may share the measuring CPU: it wakes rarely, so as not to preempt the
 * child's samples. */
static int await_child(int fd, const sb__stop *stop, pid_t pid,
                       double kill_at)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int relayed = 0;
    for (;;) {
        int r = poll(&p, 1, 200);
        if (r > 0 || (r < 0 && errno != EINTR))
            return 0;
        if (!relayed && sb__stopped(stop)) {
            sb__stop_set(stop);
            relayed = 1;
        }
        /* A child that measures far past its budget is hung (a lock held
         * by another thread of the parent at fork, say): --max-time must
         * still bound the run. */
        if (sb__now() > kill_at) {
            kill(pid, SIGKILL);
            return -1;
        }
    }
}

/* Test hook: a test program that defines int sb__runner_exit_after_send
 * and sets it non-zero makes each forked invocation exit with that status
 * once its data is sent (tests/test_failures.c), the one case of a child
 * that no kernel can bring about (a kernel's exit() leaves before the
 * data goes).  Weak and hidden, like sb__counters_no_perf (counters.h). */
#if defined(__GNUC__)
extern int sb__runner_exit_after_send
    __attribute__((weak, visibility("hidden")));
#define SB__RUNNER_EXIT_AFTER_SEND \
    (&sb__runner_exit_after_send ? sb__runner_exit_after_send : 0)
#else
#define SB__RUNNER_EXIT_AFTER_SEND 0
#endif

/* Run invocation i in a child process and collect its data.  *died is
 * set when the child ended without sending its data (a signal other than
 * SIGINT and SIGTERM, or exit()), err then saying which and how. */
int sb__runner_fork_invocation(const sb_plan *plan,
                               const sb_measure_options *opt,
                               const sb_analysis_options *a, size_t i,
                               const sb__budget *bud, const sb__stop *stop,
                               sb__invocation *inv, sb_error *err,
                               int *died)
{
    int fd[2], status = 0, child_rc = SB_OK, got, hung;
    pid_t pid, parent = getpid();

    *died = 0;
    if (pipe(fd) != 0)
        return sb__error(err, SB_ESYS, "pipe failed: %s", strerror(errno));
    pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return sb__error(err, SB_ESYS, "fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        /* The child: measure, send, and leave without running the
         * parent's exit handlers or flushing its stdio buffers. */
        sb_error e = {0};
        int rc;
#if SB_LSAN
        /* In a sanitizer build, a kernel that calls exit() would have
         * LeakSanitizer report what this child allocates and never
         * frees (it leaves by _exit otherwise), and change the exit
         * status it reports; the parent's run is reachable through
         * sb__lsan_root (runner.c). */
        __lsan_disable();
#endif
        /* A parent killed outright (SIGKILL, the OOM killer) must not
         * leave its child measuring, pinned and with its memory locked,
         * to the end of its budget: the kernel kills the child when the
         * parent goes.  A parent gone before prctl took effect is caught
         * by the check of getppid() (the child was re-parented). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        close(fd[0]);
        rc = sb__measure(plan, opt, a, opt->seed + i, bud, stop, inv, &e);
        rc = send_invocation(fd[1], rc, &e, inv) == 0 ? 0 : 1;
        _exit(rc ? rc : SB__RUNNER_EXIT_AFTER_SEND);
    }
    close(fd[1]);
    /* Past the run's deadline by the budget again and 10 s, no
     * invocation is still measuring: sb__check_budget refused any plan whose
     * unavoidable samples could not fit. */
    hung = await_child(fd[0], stop, pid,
                       bud->run_deadline + opt->max_time + 10.0) != 0;
    got = receive_invocation(fd[0], sb_plan_count(plan), inv, err,
                             &child_rc);
    close(fd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        sb__invocation_free(inv);
        if (WIFSIGNALED(status) &&
            (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM ||
             WTERMSIG(status) == SIGHUP))
            return sb__error(err, SB_EINTR,
                             "invocation %zu ended by signal %d", i,
                             WTERMSIG(status));
        *died = 1;
        if (hung)
            return sb__error(err, SB_ESYS,
                             "invocation %zu was still measuring %.3g s "
                             "after the run's deadline: killed", i,
                             opt->max_time + 10.0);
        if (WIFSIGNALED(status))
            return sb__error(err, SB_ESYS,
                             "invocation %zu died with signal %d (%s)", i,
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
        /* A kernel of the caller's that called exit(), say (status 0
         * included: the data is still missing). */
        if (WIFEXITED(status) && got != 0)
            return sb__error(err, SB_ESYS,
                             "invocation %zu exited with status %d before "
                             "sending its data",
                             i, WEXITSTATUS(status));
        return sb__error(err, SB_ESYS,
                         "invocation %zu sent its data but exited with "
                         "status %d", i, WEXITSTATUS(status));
    }
    if (child_rc != SB_OK) {
        sb__invocation_free(inv);
        if (err)
            err->code = child_rc;
        return child_rc;
    }
    return SB_OK;
}
