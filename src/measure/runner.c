/*
 * runner.c: a run of several invocations (docs/design.md, protocol step 9).
 *
 * With one invocation the plan is measured in this process.  With N > 1
 * each invocation is a fresh process (fork) that measures the whole plan
 * with its own seed (seed + i) and a budget of max_time / N, and sends its
 * samples back through a pipe; the variance that lives between processes
 * (page placement, layout, the state of the machine) then shows in the
 * statistics instead of hiding in one process's luck.  The parent measures
 * nothing itself.
 *
 * SIGINT during a run: sb_run_request_stop() (from the caller's handler)
 * stops the current invocation after its sample (the parent passes it on
 * to the child measuring); a child's own copy of the handler does the
 * same there, since the terminal signals the whole process group.  Every
 * sample measured so far is kept.  A run's own stop (its progress
 * callback, sb_measure_options.stop) stops that run only: see sb__stop in
 * measure.c.
 *
 * An invocation that dies (SIGKILL, SIGSEGV, a kernel of the caller's
 * calling exit()) ends the run the same way: the invocations that
 * finished are kept, the run is marked interrupted, and sb_run_partial()
 * and a note say which invocation died and how.  A child dies with its
 * parent (PR_SET_PDEATHSIG), so that no pinned, memory-locked process
 * outlives a killed run.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
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

#include "env_internal.h"
#include "measure.h"
#include "meta.h"
#include "metric.h"
#include "plan.h"
#include "probe.h"
#include "timer.h"
#include "stats_internal.h"

/* A sanitizer build (configure --enable-sanitizers): see the child in
 * forked_invocation. */
#if defined(__SANITIZE_ADDRESS__)
#define SB_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_LSAN 1
#endif
#endif
#ifndef SB_LSAN
#define SB_LSAN 0
#endif
#if SB_LSAN
#include <sanitizer/lsan_interface.h>
static void *volatile sb__lsan_root;
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
static int forked_invocation(const sb_plan *plan,
                             const sb_measure_options *opt,
                             const sb_analysis_options *a,
                             size_t i, const sb__budget *bud,
                             const sb__stop *stop, sb__invocation *inv,
                             sb_error *err, int *died)
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
         * sb__lsan_root. */
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
     * invocation is still measuring: check_budget refused any plan whose
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

/* Whether every cell's interval, over the invocations so far, meets the
 * precision target: the interval and the rule of the results
 * (sb__cell_interval, sb__precision_met), on the samples as measured
 * (the outlier policy applies once, at the end), each cell in the metric
 * the results will judge it in (sb_metric_choose).  With seen (for
 * sb_measure_options.progress_state), every cell is judged, and seen says what
 * the check found; without, the first cell short of the target ends it. */
static int invocation_precision_met(const sb_run *run, sb__check *seen)
{
    size_t most = 1;
    double *work;
    size_t *group, ninv = 1;
    sb_analysis_options a;
    int met = 1;

    a = run->analysis;
    a.bootstrap = 0; /* as the stop rule: a check, not the result */
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].nsamples > most)
            most = run->cells[i].nsamples;
    work = malloc(2 * most * sizeof *work);
    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].invocations > ninv)
            ninv = run->cells[i].invocations;
    group = malloc(ninv * sizeof *group);
    if (!work || !group) {
        free(work);
        free(group);
        return 0;
    }
    if (seen)
        *seen = (sb__check){.at = run->invocations, .widest = 0};
    for (size_t i = 0; (met || seen) && i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        const double *clock = run->samples[i].clock;
        int metric = sb_metric_choose(a.metric, &r->cell, run->measure.cache,
                                      run->meta.l2_bytes, clock,
                                      r->nsamples);
        size_t n = 0, at = 0;
        sb_interval ci;
        const char *how;
        /* Samples without a clock are left out, as in the results. */
        sb__metric_values(metric, r->ticks, clock, r->nsamples, work);
        for (size_t g = 0; g < r->invocations; g++) {
            group[g] = 0;
            for (size_t q = 0; q < r->inv_nsamples[g]; q++)
                if (isfinite(work[at + q])) {
                    work[n++] = work[at + q];
                    group[g]++;
                }
            at += r->inv_nsamples[g];
        }
        double w = sb__cell_interval(work, group, r->invocations, &a,
                                     run->measure.seed, work + most, &ci,
                                     &how) == SB_OK
                       ? sb__precision_width(&ci)
                       : NAN;
        int ok = !isnan(w) && sb__precision_met(&ci, a.precision);
        if (seen)
            sb__check_add(seen, ok, w);
        met = met && ok;
    }
    free(work);
    free(group);
    return met;
}

/* The environment audit, for the CPU the invocations will pin to, taken
 * before measuring (it samples the SMT sibling's load). */
static void audit_env(const sb_measure_options *opt, sb_env *env)
{
    cpu_set_t allowed;
    int cpu = -1;
    if (!opt->no_pin && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        cpu = sb__choose_cpu(opt, &allowed, NULL, 0);
    /* The library's own full struct: no caller's size to check. */
    sb__env_audit_at("", cpu, 0.1, env);
}

/* The budget of invocation i, in *b: an equal share of what is left
 * (left) for each of the requested invocations still to come, the
 * per-invocation budget past them.  0 when invocation i, one past the
 * requested ones, is not to run. */
static int invocation_budget(const sb_run *run, size_t i, size_t ninv,
                             double budget, double left, double *b)
{
    *b = i < ninv ? left / (double)(ninv - i) : budget;
    if (!(*b > 0))
        *b = 0; /* late: the invocation takes its first samples only */
    if (i >= ninv) {
        /* Past the minimum: go on only while a cell still misses the
         * target at the invocation level and time remains.  Without a
         * target (precision 0) the requested invocations are the whole
         * run: each already measured for its share of the budget, and
         * more would only split the same time again. */
        if (!(run->analysis.precision > 0) || left < 0.25 * budget ||
            invocation_precision_met(run, NULL))
            return 0;
        if (*b > left)
            *b = left;
    }
    return 1;
}

/* An invocation that failed with rc (ie saying why): the status of the
 * run.  An interruption, or a child that died after others finished,
 * keeps the run, partial; anything else loses it, with ie in *err. */
static int invocation_failed(sb_run *run, int rc, int died,
                             const sb_error *ie, sb_error *err)
{
    if (rc == SB_EINTR && run->invocations > 0) {
        /* A child ended by SIGINT, SIGTERM or SIGHUP: an interruption. */
        run->interrupted = 1;
        return SB_OK;
    }
    if (died && run->invocations > 0) {
        /* A child killed (SIGKILL, SIGSEGV, the OOM killer) or ended by
         * exit(): the invocations before it keep their data, and the run
         * ends there, partial, as after an interruption. */
        run->interrupted = 1;
        snprintf(run->partial, sizeof run->partial, "%s", ie->text);
        sb__meta_note(&run->meta, "%s", run->partial);
        return SB_OK;
    }
    if (err)
        *err = *ie;
    return rc;
}

/* Invocations a run's probe figures are summarised over: every one a run
 * may have (sb_plan_check allows at most 1000 invocations). */
#define TOTALS_INV 1000

/* The machine's figures over every invocation: interrupts per second over
 * all the time checked, the checks' cost as the median of the
 * invocations' medians. */
struct machine_totals {
    double irq_count, irq_seconds;
    double *check_cost;
    size_t ncost;
    /* The probes (probe.c): per invocation, the effective clock, the
     * cost share and the contention probe's quiet level; over all, the
     * samples taken and those that waited or were contended. */
    double clock[TOTALS_INV], share[TOTALS_INV], quiet[TOTALS_INV], margin;
    size_t quiet_inv[TOTALS_INV];
    size_t nclock, nshare, nquiet;
    double taken, waited, contended;
    double shared_wait; /* seconds waited for a quiet core, summed */
    double ref[TOTALS_INV]; /* the invocations' reference speeds */
    size_t nref;
    int wait_known, contention_known, shared_wait_known;
    int ticks; /* some invocation's contention probe was in ticks */
    /* Invocations whose clock probe failed its start-up check (probe.c:
     * meta.probe "unverified"): each one's index, clock and contention
     * quiet level (in ticks); the first one's reason; whether the check
     * passed in any invocation. */
    struct unverified {
        size_t g;
        double clock, quiet;
    } *unverified;
    size_t nunverified;
    char unverified_why[256];
    int verified;
    double verified_ratio; /* the first passed check's imul/add ratio */
    /* Per cell (ncells entries, or NULL before the first invocation):
     * sb__raw_cell.waited and waited_timed summed over the invocations,
     * for note_waited_cells. */
    double *waited_cell, *waited_timed_cell;
};

/* An invocation's probe figures into the totals. */
static int add_probe_figures(sb_run *run, const sb__invocation *inv,
                             struct machine_totals *tot)
{
    const sb_meta *m = &inv->meta;
    double taken = 0;

    for (size_t c = 0; c < inv->ncells; c++) {
        const sb__raw_cell *r = &inv->cells[c];
        taken += (double)r->nsamples;
        for (int q = 0; q < SB_REJECT_NREASONS; q++)
            taken += (double)r->rejected[q];
        tot->waited += (double)r->disturbed[SB_REJECT_CPU_WAIT];
        tot->contended += (double)r->disturbed[SB_REJECT_SHARED_CORE];
    }
    tot->taken += taken;
    if (sb__run_invocation_probe(run, run->invocations, m->probe_clock,
                                 m->contention_quiet) != SB_OK)
        return SB_ENOMEM;
    tot->wait_known |= isfinite(m->cpu_wait_share);
    if (isfinite(m->reference_cycles) && tot->nref < TOTALS_INV)
        tot->ref[tot->nref++] = m->reference_cycles;
    if (isfinite(m->shared_wait_seconds)) {
        tot->shared_wait += m->shared_wait_seconds;
        tot->shared_wait_known = 1;
    }
    tot->contention_known |= isfinite(m->contended_share);
    if (!tot->verified && !strcmp(m->probe, "imul-chain"))
        tot->verified_ratio = m->probe_ratio;
    /* A clock from PAPI_TOT_CYC needs no check. */
    tot->verified |= !strcmp(m->probe, "imul-chain") ||
                     !strcmp(m->probe, "pmu");
    if (isfinite(m->probe_cost_share) && tot->nshare < TOTALS_INV)
        tot->share[tot->nshare++] = m->probe_cost_share;
    if (!strcmp(m->probe, "unverified")) {
        /* Its clock and quiet level wait for the run's verdict
         * (resolve_unverified). */
        struct unverified *u = realloc(
            tot->unverified, (tot->nunverified + 1) * sizeof *u);
        if (!u)
            return SB_ENOMEM;
        tot->unverified = u;
        u[tot->nunverified++] = (struct unverified){
            run->invocations, m->probe_clock, m->contention_quiet};
        if (!tot->unverified_why[0])
            snprintf(tot->unverified_why, sizeof tot->unverified_why, "%s",
                     m->probe_note);
        return SB_OK;
    }
    if (isfinite(m->probe_clock) && tot->nclock < TOTALS_INV)
        tot->clock[tot->nclock++] = m->probe_clock;
    /* In ticks (no clock) the levels of invocations at different clocks
     * cannot be compared: only within each (no notes below). */
    if (!strcmp(m->probe, "none"))
        tot->ticks = 1;
    if (isfinite(m->contention_quiet) && tot->nquiet < TOTALS_INV) {
        tot->quiet_inv[tot->nquiet] = run->invocations + 1;
        tot->margin = m->contention_margin;
        tot->quiet[tot->nquiet++] = m->contention_quiet;
    }
    return SB_OK;
}

/* The run's probe figures from the totals.  The quiet level is the
 * median of the invocations' (not their lowest: an invocation whose
 * clock readings were too low has its level too low; 4.4 to 30.3
 * against 32.8 cycles seen here while a stale timer overhead skewed
 * them, before probe.c tracked it).  An invocation whose own is above it
 * by more than the margin was measured on a shared core throughout (its
 * own level could not tell); one below it had suspect clock readings; a
 * note says either. */
static void probe_totals(sb_run *run, struct machine_totals *tot)
{
    sb_meta *m = &run->meta;

    m->probe_clock = m->probe_clock_min = m->probe_clock_max = NAN;
    for (size_t i = 0; i < tot->nclock; i++) {
        m->probe_clock_min = fmin(m->probe_clock_min, tot->clock[i]);
        m->probe_clock_max = fmax(m->probe_clock_max, tot->clock[i]);
    }
    if (tot->nclock)
        m->probe_clock = sb__median_inplace(tot->clock, tot->nclock);
    m->probe_cost_share =
        tot->nshare ? sb__median_inplace(tot->share, tot->nshare) : NAN;
    m->contention_quiet = NAN;
    if (tot->nquiet) {
        /* Out of memory, the level stays unknown. */
        double *q = malloc(tot->nquiet * sizeof *q);
        if (q) {
            memcpy(q, tot->quiet, tot->nquiet * sizeof *q);
            m->contention_quiet = sb__median_inplace(q, tot->nquiet);
            free(q);
        }
    }
    for (size_t i = 0; i < tot->nquiet && !tot->ticks; i++) {
        double r = tot->quiet[i] / m->contention_quiet - 1;
        if (r > tot->margin)
            sb__meta_note(m, "shared core: invocation %zu's contention "
                             "probe was at %.3g at its quietest, %.0f%% "
                             "above the run's %.3g: measured on a shared "
                             "core throughout", tot->quiet_inv[i],
                          tot->quiet[i], 100 * r, m->contention_quiet);
        else if (r < -tot->margin)
            sb__meta_note(m, "clock probe: invocation %zu's contention "
                             "probe was at %.3g at its quietest, %.0f%% "
                             "below the run's %.3g: its clock readings "
                             "are suspect (too low)", tot->quiet_inv[i],
                          tot->quiet[i], -100 * r, m->contention_quiet);
    }
    m->cpu_wait_share =
        tot->wait_known && tot->taken > 0 ? tot->waited / tot->taken : NAN;
    m->shared_wait_seconds = tot->shared_wait_known ? tot->shared_wait : NAN;
    /* The reference speed: the median over invocations, like the quiet
     * level (a quiet one beside one on a shared core is not the core's
     * speed either way; the profile compares runs). */
    m->reference_cycles =
        tot->nref ? sb__median_inplace(tot->ref, tot->nref) : NAN;
    m->contended_share = tot->contention_known && tot->taken > 0
                             ? tot->contended / tot->taken
                             : NAN;
}

/* Add a finished invocation's data to the run (its metadata if it is the
 * first, with the audit env), then free it. */
static int add_invocation(sb_run *run, sb__invocation *inv,
                          const sb_env *env, struct machine_totals *tot,
                          const sb__stop *stop, sb_error *err)
{
    int rc = SB_OK;
    double *t;

    if (run->invocations == 0) {
        run->meta = inv->meta;
        run->meta.env = *env;
    }
    t = realloc(tot->check_cost, (tot->ncost + 1) * sizeof *t);
    if (t) {
        tot->check_cost = t;
        if (isfinite(inv->meta.check_cost_seconds))
            tot->check_cost[tot->ncost++] = inv->meta.check_cost_seconds;
    }
    tot->irq_count += inv->irq_count;
    tot->irq_seconds += inv->irq_seconds;
    if (add_probe_figures(run, inv, tot) != SB_OK)
        rc = sb__error(err, SB_ENOMEM, "out of memory");
    run->invocations++;
    run->rounds += inv->rounds;
    run->elapsed += inv->elapsed;
    if (inv->interrupted) {
        run->interrupted = 1;
        sb__stop_set(stop); /* the child was asked to stop */
    }
    if (!tot->waited_cell && run->ncells) {
        tot->waited_cell = calloc(run->ncells, sizeof *tot->waited_cell);
        tot->waited_timed_cell =
            calloc(run->ncells, sizeof *tot->waited_timed_cell);
    }
    for (size_t c = 0; c < run->ncells && rc == SB_OK; c++) {
        if (tot->waited_cell && tot->waited_timed_cell &&
            c < inv->ncells) {
            tot->waited_cell[c] += inv->cells[c].waited;
            tot->waited_timed_cell[c] += inv->cells[c].waited_timed;
        }
        if (sb__run_add_invocation(run, c, &inv->cells[c]) != SB_OK)
            rc = sb__error(err, SB_ENOMEM, "out of memory");
    }
    sb__invocation_free(inv);
    return rc;
}

/* A cell whose every sample was contended is never reported as the
 * core's speed without a word: a note names it (with --reject none it
 * keeps them; by default it is left empty). */
static void note_shared_cells(sb_run *run)
{
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        size_t taken = r->nsamples + r->rejected_total -
                       r->rejected[SB_REJECT_OUTLIER];
        size_t shared = r->disturbed[SB_REJECT_SHARED_CORE];
        if (shared && shared >= taken)
            sb__meta_note(&run->meta,
                          "kernel %s, %zu bytes, offsets %zu/%zu: measured "
                          "on a shared core (all %zu samples contended)",
                          r->cell.kernel->name, r->cell.size,
                          r->cell.src_align, r->cell.dst_align, shared);
    }
}

/* A cell whose samples could not dodge the waits for its CPU kept those
 * that waited, each with the wait taken off its time (measure.c,
 * keep_wait_from): its figure is the time the thread ran, not that of a
 * quiet machine, and a note says so, with how many samples waited and
 * how much of their time the waits were (as measured, before the
 * analysis' outlier policy).  One cell is named; more are
 * counted, the first named.  Only under SB_REJECT_DISTURBED: with
 * --reject none every sample is kept as it was. */
static void note_waited_cells(sb_run *run, const struct machine_totals *tot)
{
    size_t cells = 0, kept = 0, all = 0, first = 0;
    double waited = 0, timed = 0;

    if (run->measure.reject != SB_REJECT_DISTURBED || !run->samples)
        return;
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        const unsigned char *fl = run->samples[i].flags;
        size_t k = 0;
        for (size_t q = 0; fl && q < r->nsamples; q++)
            k += (fl[q] & (1u << SB_REJECT_CPU_WAIT)) != 0;
        if (!k)
            continue;
        if (!cells++)
            first = i;
        kept += k;
        all += r->nsamples;
        if (tot->waited_cell && tot->waited_timed_cell) {
            waited += tot->waited_cell[i];
            timed += tot->waited_timed_cell[i];
        }
    }
    if (!cells)
        return;
    {
        const sb_cell *c = &run->cells[first].cell;
        char share[64] = "";
        if (timed > 0)
            snprintf(share, sizeof share, ", %.0f%% of their time,",
                     100 * waited / timed);
        if (cells == 1)
            sb__meta_note(&run->meta,
                          "kernel %s, %zu bytes, offsets %zu/%zu: measured "
                          "on a busy CPU: %zu of its %zu samples waited "
                          "for it, kept with the wait%s taken off",
                          c->kernel->name, c->size, c->src_align,
                          c->dst_align, kept, all, share);
        else
            sb__meta_note(&run->meta,
                          "%zu cells (kernel %s, %zu bytes, ...) measured "
                          "on a busy CPU: %zu of their %zu samples waited "
                          "for it, kept with the wait%s taken off",
                          cells, c->kernel->name, c->size, kept, all,
                          share);
    }
}

/* The invocations whose clock probe failed its start-up check: their
 * clocks stand when it passed in another invocation of the run (the CPU's
 * imul is 3 adds: those failures were disturbances, a shared core most
 * often), else they are dropped and the probe refused, as a CPU whose
 * chains disagree in every invocation must be. */
static void resolve_unverified(sb_run *run, struct machine_totals *tot)
{
    sb_meta *m = &run->meta;

    if (!tot->nunverified)
        return;
    if (tot->verified) {
        /* Their clocks stand, and their quiet levels, timed in ticks
         * while the clock was in doubt, are converted with them. */
        for (size_t k = 0; k < tot->nunverified; k++) {
            const struct unverified *u = &tot->unverified[k];
            double q = u->quiet * u->clock;
            (void)sb__run_invocation_probe(run, u->g, u->clock, q);
            if (isfinite(u->clock) && tot->nclock < TOTALS_INV)
                tot->clock[tot->nclock++] = u->clock;
            if (isfinite(q) && tot->nquiet < TOTALS_INV) {
                tot->quiet_inv[tot->nquiet] = u->g + 1;
                tot->quiet[tot->nquiet++] = q;
            }
        }
        if (!strcmp(m->probe, "unverified")) {
            /* The run's metadata was that invocation's. */
            m->contention_margin = SB__PROBE_MARGIN;
            m->probe_ratio = tot->verified_ratio;
            snprintf(m->probe, sizeof m->probe, "imul-chain");
            snprintf(m->probe_note, sizeof m->probe_note,
                     "imul/add latency ratio %.3f in a later invocation",
                     tot->verified_ratio);
        }
        sb__meta_note(m, "clock probe: its start-up check failed in %zu "
                         "invocation%s (the first: %s), whose clocks were "
                         "kept: it passed in the others",
                      tot->nunverified, tot->nunverified == 1 ? "" : "s",
                      tot->unverified_why);
        return;
    }
    tot->ticks = 1; /* their quiet levels are in ticks */
    for (size_t k = 0; k < tot->nunverified; k++) {
        size_t g = tot->unverified[k].g;
        if (isfinite(tot->unverified[k].quiet) && tot->nquiet < TOTALS_INV) {
            tot->quiet_inv[tot->nquiet] = g + 1;
            tot->quiet[tot->nquiet++] = tot->unverified[k].quiet;
        }
        (void)sb__run_invocation_probe(run, g, NAN,
                                       sb_run_invocation_quiet(run, g));
    }
    /* Their samples' clocks: one pass over each cell's invocations, the
     * unverified ones in order. */
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        double *clock = run->samples ? run->samples[i].clock : NULL;
        size_t at = 0, k = 0;
        for (size_t g = 0; clock && r->inv_nsamples && g < r->invocations &&
                           k < tot->nunverified;
             at += r->inv_nsamples[g++]) {
            if (g != tot->unverified[k].g)
                continue;
            k++;
            for (size_t q = 0; q < r->inv_nsamples[g]; q++)
                clock[at + q] = NAN;
        }
    }
    snprintf(m->probe, sizeof m->probe, "none");
    sb__meta_note(m, "%s", tot->unverified_why);
}

/* The end of a run whose invocations stopped with status rc: the machine
 * figures from the totals (freed here), then the analysis.  A failure
 * other than an interruption loses the run (freed here): its error says
 * what went wrong. */
static int finish_run(sb_run *run, int rc, struct machine_totals *tot,
                      sb_error *err)
{
    if (rc == SB_OK && run->invocations > 0) {
        resolve_unverified(run, tot);
        run->meta.interrupts_per_second =
            tot->irq_seconds > 0 ? tot->irq_count / tot->irq_seconds : NAN;
        run->meta.check_cost_seconds =
            tot->ncost ? sb__median_inplace(tot->check_cost, tot->ncost)
                       : NAN;
        /* Before the invocations' notes of probe_totals: sb_meta.notes
         * has a fixed size, and a figure that is not a quiet machine's
         * must not lose its note to them. */
        note_waited_cells(run, tot);
        probe_totals(run, tot);
    }
    free(tot->check_cost);
    free(tot->unverified);
    if (rc == SB_OK && run->invocations == 0)
        rc = sb__error(err, SB_EINTR, "interrupted before any sample");
    /* A decision asked for that the run cannot make must not lose what
     * it measured: it stays as measured, and the notes say why. */
    if (rc == SB_OK && run->analysis.shared_margin >= 0) {
        const char *why = sb__run_redecide_refused(run);
        if (why) {
            sb__meta_note(&run->meta,
                          "shared core: decided as measured, not again "
                          "(--shared-margin): %s", why);
            run->analysis.shared_margin = -1;
        }
    }
    if (rc == SB_OK)
        rc = sb__run_analyse(run, err);
    if (rc == SB_OK && sb__run_adopt_benches(run) != SB_OK)
        rc = sb__error(err, SB_ENOMEM, "out of memory");
    free(tot->waited_cell);
    free(tot->waited_timed_cell);
    if (rc != SB_OK) {
        sb_run_free(run);
        return rc;
    }
    note_shared_cells(run);
    return SB_OK;
}

/* Invocation i's budget, without its deadline: the run's times, and the
 * quiet level the earlier invocations confirmed (or the caller's, a host
 * profile's, when it is lower). */
static sb__budget next_budget(const sb_measure_options *opt,
                              const struct machine_totals *tot, double wall0,
                              double now, size_t i, size_t ninv)
{
    sb__budget bud = {.run_started = wall0,
                      .run_deadline = wall0 + opt->max_time,
                      .started = now,
                      .invocations_left = i < ninv ? ninv - i : 1,
                      .invocation = i,
                      .check = i == 0,
                      .quiet_prior = NAN,
                      .quiet_prior_margin = tot->nquiet ? tot->margin : NAN};
    if (!tot->ticks)
        bud.quiet_prior = sb__quiet_prior(tot->quiet, tot->nquiet,
                                          tot->margin);
    if (opt->quiet_prior > 0 && !(bud.quiet_prior <= opt->quiet_prior))
        bud.quiet_prior = opt->quiet_prior;
    return bud;
}

int sb_run_execute_new(const sb_plan *plan, const sb_measure_options *m,
                       const sb_analysis_options *a, sb_run **out,
                       sb_error *err)
{
    sb_run *run;
    size_t n, ninv, max_inv;
    sb_env env;
    double budget, wall0 = sb__now();
    struct machine_totals tot = {0};
    int rc = SB_OK, died = 0;
    sb_error ie = {0};
    sb__stop stop;
    sb_measure_options full;
    sb_analysis_options fa;
    const sb_measure_options *opt = &full;
    sb__check seen = {0};

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "sb_run_execute_new: out is NULL");
    *out = NULL;
    /* From here on, the options in this library's layout; the analysis
     * options are checked first, as one group. */
    if ((rc = sb__measure_get(m, &full, "sb_run_execute_new", err)) !=
            SB_OK ||
        (rc = sb__analysis_get(a, &fa, "sb_run_execute_new", err)) != SB_OK ||
        (rc = sb_analysis_options_check(&fa, err)) != SB_OK ||
        (rc = sb_plan_check(plan, opt, err)) != SB_OK)
        return rc;
    if (fa.shared_margin >= 0 && opt->reject != SB_REJECT_DISTURBED)
        return sb__error(err, SB_EINVAL,
                         "shared-core margin %g: only samples rejected for "
                         "disturbances can be decided again, and this run "
                         "keeps every sample (--reject none)",
                         fa.shared_margin);

    n = sb_plan_count(plan);
    ninv = opt->invocations ? opt->invocations : 1;
    max_inv = ninv == 1 ? 1 : opt->max_invocations;
    if (max_inv < ninv)
        max_inv = ninv;
    budget = opt->max_time / (double)ninv;
    run = sb__run_alloc(n, opt, &fa);
#if SB_LSAN
    /* A sanitizer build: the forked child holds this run too, and a
     * kernel that calls exit() there would have LeakSanitizer report it
     * (and change the exit status): a global makes it reachable. */
    sb__lsan_root = run;
#endif
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    sb__stop_begin(&stop, opt, ninv > 1);
    run->measure.invocations = ninv;
    run->measure.max_invocations = max_inv;
    for (size_t i = 0; i < n; i++)
        run->cells[i].cell = *sb_plan_cell(plan, i);

    audit_env(opt, &env);
    /* Once here, not in every forked invocation (timer.c). */
    if (ninv > 1 && !opt->force_clock_timer)
        sb__timer_calibrate_once();
    /* The budget counts from the start of the call, the audit, forks,
     * setups and the parent's work between invocations included: each
     * of the invocations still to come gets an equal share of what is
     * left, so that their budgets sum to max_time.  The requested
     * invocations all run (fewer would change the interval's method);
     * the first one's check_budget refused the plan if their unavoidable
     * part could not fit. */
    for (size_t i = 0; i < max_inv && !sb__stopped(&stop); i++) {
        sb__invocation inv;
        double now = sb__now(), left = opt->max_time - (now - wall0), b;
        sb__budget bud = next_budget(opt, &tot, wall0, now, i, ninv);
        if (!invocation_budget(run, i, ninv, budget, left, &b))
            break;
        bud.deadline = now + b;
        rc = ninv == 1
                 ? sb__measure(plan, opt, &fa, opt->seed, &bud, &stop, &inv,
                               &ie)
                 : forked_invocation(plan, opt, &fa, i, &bud, &stop, &inv,
                                     &ie, &died);
        if (rc != SB_OK) {
            rc = invocation_failed(run, rc, died, &ie, err);
            break;
        }
        rc = add_invocation(run, &inv, &env, &tot, &stop, err);
        if (rc != SB_OK)
            break;
        if (opt->progress_state && fa.precision > 0)
            (void)invocation_precision_met(run, &seen);
        if (sb__progress_call(opt, &fa, 1, i, run->rounds, run->elapsed,
                              wall0 + opt->max_time - sb__now(), n, &seen))
            sb__stop_set(&stop); /* this run only */
    }
    if (sb__stopped(&stop))
        run->interrupted = 1;
    sb__stop_end(&stop);
    rc = finish_run(run, rc, &tot, err);
    *out = rc == SB_OK ? run : NULL;
    return rc;
}
