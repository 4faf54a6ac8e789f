/*
 * test_disturb.c: disturbances and counters are measured per sample.
 *
 * The proofs use injected events whose place in the call sequence the test
 * knows:
 *
 *  - A copy kernel sleeps (usleep(200)) on every call whose index is 1
 *    modulo 10, and asks getrusage whether the sleep switched: nearly
 *    always, but when the host holds the vCPU past the timer between its
 *    arming and the switch, the kernel wakes the thread before it leaves
 *    and the sleep returns without one.  Such a sleep is still a long
 *    sample and must be rejected, for some reason; the switch checks
 *    count the sleeps that switched.  With k = 1 (a tiny
 *    sample_seconds) every sample is one untimed re-warm call (even index)
 *    and one timed call (odd index), so exactly the timed calls 1, 11, 21,
 *    ... sleep, one sample in five.  The rounds are the last 2 x ROUNDS
 *    calls, so the test knows which samples of the rounds slept.  Rejected
 *    context switches must be at least the sleeps, and beyond them only as
 *    many as a control cell (the same kernel without sleeps, in the same
 *    run) shows; under SB_REJECT_NONE every sleeping sample is kept and
 *    flagged, sample by sample.
 *  - A kernel maps 64 fresh pages (no huge pages), touches them and unmaps
 *    them: perf::PAGE-FAULTS per call is at least 64, also when the data
 *    comes from forked invocations through the runner's pipe.
 *  - Counters this machine lacks (PAPI_TOT_CYC on a VM without PMU, an
 *    unknown name) are reported missing with a reason and the run goes on.
 *  - A kernel that spins for three intervals between interrupts (measured
 *    first) keeps its samples with interrupts, and says so in the notes;
 *    a short cell of the same run still rejects them.
 *  - Without perf_event_open (a test hook; an unprivileged child when run
 *    as root) context switches come from getrusage and are still caught.
 *  - /proc/interrupts parsing on a fixture with machine-wide lines.
 *
 * No absolute times: the only time threshold is the sleep's own 200 us
 * lower bound.  Runs in a few seconds.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "interrupts.h"
#include "run_internal.h"
#include "tap.h"
#include "own_kernel.h"

#define ROUNDS 200
#define SLEEP_US 200
#define MAX_CALLS 100000
#define FAULT_PAGES 64

/* ---- The sleepy kernel and its control ------------------------------ */

/* What a call did: no sleep, a sleep with a switch, one without. */
enum { AWAKE, SWITCHED, NO_SWITCH };

struct calls {
    size_t n;                 /* calls so far */
    int sleepy;               /* sleep on calls = 1 mod 10 */
    unsigned char slept[MAX_CALLS];
};

static long switches(void)
{
    struct rusage u;
    return getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_nvcsw + u.ru_nivcsw
                                              : -1;
}

static struct calls sleepy_calls, control_calls;

static void counted_copy(void *dst, const void *src, size_t n, void *state)
{
    struct calls *c = state;
    memcpy(dst, src, n);
    if (c->sleepy && c->n % 10 == 1) {
        long before = switches();
        usleep(SLEEP_US);
        if (c->n < MAX_CALLS)
            c->slept[c->n] = before >= 0 && switches() == before
                                 ? NO_SWITCH
                                 : SWITCHED;
    }
    c->n++;
}

/* A kernel's setup, fn, that gives each cell a fresh record calls (a
 * struct calls), sleeping on calls 1 mod 10 when sleepy_. */
#define CALLS_SETUP(fn, calls, sleepy_)                                   \
    static int fn(void **state, const sb_cell *cell, sb_error *err)       \
    {                                                                     \
        (void)cell, (void)err;                                            \
        memset(&(calls), 0, sizeof(calls));                               \
        (calls).sleepy = (sleepy_);                                       \
        *state = &(calls);                                                \
        return SB_OK;                                                     \
    }

CALLS_SETUP(setup_sleepy, sleepy_calls, 1)
CALLS_SETUP(setup_control, control_calls, 0)

static const sb_kernel sleepy_kernel =
    TEST_KERNEL("test_sleepy", SB_FAMILY_COPY,
                "memcpy; usleep(200) on calls 1 mod 10", counted_copy,
                setup_sleepy, 0);
static const sb_kernel control_kernel =
    TEST_KERNEL("test_control", SB_FAMILY_COPY, "memcpy, counted",
                counted_copy, setup_control, 0);

/* ---- The preempted kernel ------------------------------------------- */

/* A CPU hog, a thread pinned to the measuring thread's CPU that spins
 * while told to: on calls 1 mod 10 the kernel wakes it and yields until
 * it has run, so that the sample loses its CPU to a runnable thread, an
 * involuntary switch (sched_yield leaves the thread runnable), then
 * stops it and yields until it sleeps again.  Whether the call was
 * switched out involuntarily only is asked of getrusage, as the sleepy
 * kernel asks; a call whose hog never ran (another CPU, a refused
 * affinity) or that also switched voluntarily is not counted. */
static struct {
    pthread_t t;
    pid_t pid;     /* the process that made it (0: none) */
    sem_t wake;
    atomic_int go, ran, idle, quit;
} hog;

static void *hog_main(void *arg)
{
    (void)arg;
    for (;;) {
        atomic_store(&hog.idle, 1);
        while (sem_wait(&hog.wake) != 0 && errno == EINTR)
            ;
        if (atomic_load(&hog.quit))
            return NULL;
        atomic_store(&hog.idle, 0);
        atomic_store(&hog.ran, 1);
        while (atomic_load(&hog.go))
            ;
    }
}

/* The hog of this process, made on first use (a forked invocation makes
 * its own); 0 or -1. */
static int hog_ready(void)
{
    if (hog.pid == getpid())
        return 0;
    memset(&hog, 0, sizeof hog);
    if (sem_init(&hog.wake, 0, 0) != 0)
        return -1;
    atomic_store(&hog.idle, 0);
    if (pthread_create(&hog.t, NULL, hog_main, NULL) != 0)
        return -1;
    hog.pid = getpid();
    return 0;
}

static void hog_stop(void)
{
    if (hog.pid != getpid())
        return;
    atomic_store(&hog.quit, 1);
    sem_post(&hog.wake);
    pthread_join(hog.t, NULL);
    sem_destroy(&hog.wake);
    hog.pid = 0;
}

static void rusage_switches(long *vol, long *invol)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) == 0) {
        *vol = u.ru_nvcsw;
        *invol = u.ru_nivcsw;
    } else {
        *vol = *invol = -1;
    }
}

static struct calls preempted_calls;

static void preempted_copy(void *dst, const void *src, size_t n,
                           void *state)
{
    struct calls *c = state;
    memcpy(dst, src, n);
    if (c->n % 10 == 1 && hog_ready() == 0) {
        cpu_set_t set;
        long v0, i0, v1, i1;
        int cpu = sched_getcpu(), tries;
        CPU_ZERO(&set);
        if (cpu >= 0)
            CPU_SET(cpu, &set);
        rusage_switches(&v0, &i0);
        if (cpu >= 0 &&
            pthread_setaffinity_np(hog.t, sizeof set, &set) == 0) {
            atomic_store(&hog.ran, 0);
            atomic_store(&hog.go, 1);
            sem_post(&hog.wake);
            for (tries = 0; !atomic_load(&hog.ran) && tries < 100000; tries++)
                sched_yield();
            atomic_store(&hog.go, 0);
            for (tries = 0; !atomic_load(&hog.idle) && tries < 100000; tries++)
                sched_yield();
        }
        rusage_switches(&v1, &i1);
        if (c->n < MAX_CALLS)
            c->slept[c->n] = v0 >= 0 && v1 == v0 && i1 > i0 ? SWITCHED
                                                            : NO_SWITCH;
    }
    c->n++;
}

CALLS_SETUP(setup_preempted, preempted_calls, 0)

static const sb_kernel preempted_kernel =
    TEST_KERNEL("test_preempted", SB_FAMILY_COPY,
                "memcpy; a CPU hog on its CPU on calls 1 mod 10",
                preempted_copy, setup_preempted, 0);

/* ---- The page-faulting kernel --------------------------------------- */

static void fresh_pages(void *dst, const void *src, size_t n, void *state)
{
    volatile char *p;
    (void)dst, (void)src, (void)state;
    p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED)
        return;
#ifdef MADV_NOHUGEPAGE
    madvise((void *)p, n, MADV_NOHUGEPAGE); /* one fault per 4 KiB page */
#endif
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    munmap((void *)p, n);
}

/* ---- A kernel longer than the interval between interrupts ----------- */

/* spin (own_kernel.h), for spin_seconds: about 3 such intervals. */
static const sb_kernel spin_kernel =
    TEST_KERNEL("test_spin", SB_FAMILY_COPY,
                "spin for 3 intervals between interrupts", spin, NULL, 0);

static const sb_kernel fault_kernel =
    TEST_KERNEL("test_faults", SB_FAMILY_ALLOC,
                "mmap, touch, munmap 64 pages", fresh_pages, NULL,
                SB_KERNEL_OWN_MEMORY);

/* ---- Helpers -------------------------------------------------------- */

static void options(sb_measure_options *o, int reject)
{
    sb_measure_options_init(o);
    o->invocations = 1;
    o->min_samples = o->max_samples = ROUNDS;
    o->sample_seconds = 1e-9; /* k = 1 */
    o->max_time = 20;
    o->reject = reject;
}

static int counter_index(const sb_meta *m, const char *name)
{
    for (size_t j = 0; j < m->ncounters; j++)
        if (!strcmp(m->counter_names[j], name))
            return (int)j;
    return -1;
}

/* Sleeps that switched among the timed calls of the rounds (the last
 * 2 x ROUNDS calls); *all counts those without a switch too. */
/* Cell 0's per-sample context-switch counts in run, or NULL when that
 * counter is not among the run's. */
static const double *ctxsw_counts(const sb_run *run)
{
    int ic = counter_index(sb_run_meta(run), "perf::CONTEXT-SWITCHES");
    return ic >= 0 ? sb_run_counter_samples(run, 0, (size_t)ic) : NULL;
}

static size_t sleeps_in_rounds(const struct calls *c, int *odd_only,
                               size_t *all)
{
    size_t n = 0, any = 0;
    *odd_only = 1;
    for (size_t i = 0; i < c->n && i < MAX_CALLS; i++)
        if (c->slept[i] != AWAKE) {
            if (i % 2 != 1)
                *odd_only = 0;
            if (i + 2 * ROUNDS >= c->n) {
                any++;
                n += c->slept[i] == SWITCHED;
            }
        }
    if (all)
        *all = any;
    return n;
}

static int run_pair_of(const sb_kernel *k, int reject, sb_run **run,
                       sb_error *err);

/* Measure the sleepy and the control cell; SB_OK or the error. */
static int run_pair(int reject, sb_run **run, sb_error *err)
{
    return run_pair_of(&sleepy_kernel, reject, run, err);
}

/* Measure cell k and the control cell; SB_OK or the error. */
static int run_pair_of(const sb_kernel *k, int reject, sb_run **run,
                       sb_error *err)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    int rc;

    options(&o, reject);
    if (!plan)
        return SB_ENOMEM;
    rc = sb_plan_add(plan, k, 4096, 0, 0, err);
    if (rc == SB_OK)
        rc = sb_plan_add(plan, &control_kernel, 4096, 0, 0, err);
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &o, NULL, run, err);
    sb_plan_free(plan);
    return rc;
}

/* ---- The tests ------------------------------------------------------ */

static void test_options(void)
{
    sb_measure_options o;
    sb_error e = {0};
    sb_plan *plan = sb_plan_new();

    sb_measure_options_init(&o);
    tap_ok(o.counters == NULL && o.reject == SB_REJECT_DISTURBED &&
               o.rt == 0 && o.mlock == 1,
           "defaults: counters NULL, reject disturbed, rt off, mlock on");
    sb_plan_add(plan, &control_kernel, 64, 0, 0, NULL);

    o.counters = "a,,b";
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_EINVAL,
               "counters \"a,,b\" is SB_EINVAL");
    tap_ok(strstr(e.text, "a,,b") != NULL, "the message names the list: %s",
           e.text);
    o.counters = "PAPI_TOT_CYC,";
    TAP_IS_INT(sb_plan_check(plan, &o, NULL), SB_EINVAL,
               "a trailing comma is SB_EINVAL");
    o.counters = "";
    TAP_IS_INT(sb_plan_check(plan, &o, NULL), SB_EINVAL,
               "an empty list is SB_EINVAL");
    o.counters = "PAPI_TOT_CYC,PAPI_TOT_CYC";
    TAP_IS_INT(sb_plan_check(plan, &o, NULL), SB_EINVAL,
               "a name listed twice is SB_EINVAL");
    o.counters = "A1,A2,A3,A4,A5,A6,A7,A8,A9,A10";
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_EINVAL,
               "10 names and the 3 software events exceed %d",
               SB_MAX_COUNTERS);
    /* Names that exist (PAPI presets resolve by name even where the
     * hardware lacks them), so that only the count is tested. */
    o.counters = "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_DCM,"
                 "PAPI_TLB_DM,PAPI_BR_MSP,PAPI_BR_INS,PAPI_L1_ICM,"
                 "perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS,"
                 "perf::PAGE-FAULTS,perf::CPU-CLOCK";
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_OK,
               "12 names including the software events fit (%s)",
               e.text);
    /* A name that is no counter at all is an error naming it, where PAPI
     * can tell (opt.counters = "BOGUS" was once accepted); a known
     * counter the machine lacks is not (reported at run time). */
    o.counters = " PAPI_TOT_CYC , perf::PAGE-FAULTS,NO_SUCH_COUNTER";
    memset(&e, 0, sizeof e);
#ifdef SB_HAVE_PAPI
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_EINVAL,
               "an unknown counter name is SB_EINVAL");
    tap_ok(strstr(e.text, "'NO_SUCH_COUNTER'") != NULL &&
               !strchr(e.text, '\n'),
           "in one line naming it: %s", e.text);
#else
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_OK,
               "without PAPI an unknown name cannot be told: reported at "
               "run time");
#endif
    o.counters = "PAPI_TOT_CYC,perf::CPU-CLOCK";
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_OK,
               "known counters pass the check, read or not (%s)", e.text);
    o.counters = NULL;
    o.reject = 7;
    TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_EINVAL,
               "reject policy 7 is SB_EINVAL");
    sb_plan_free(plan);
}

static void test_irq_parse(void)
{
    char path[] = "/tmp/sb_irq_XXXXXX", why[160];
    const char *text =
        "           CPU0       CPU1       CPU3\n"
        "  0:         10          1          7   IO-APIC   2-edge  timer\n"
        " 24:          0         16        100   PCI-MSI 0-edge  virtio\n"
        "LOC:     457147     451777       1000   Local timer interrupts\n"
        "ERR:          5\n"
        "MIS:          9\n"
        "PIN:          0          2          0   Posted-interrupt\n";
    int fd = mkstemp(path);
    sb__irq q;
    uint64_t v = 0;

    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        tap_skip("cannot write a fixture in /tmp");
        return;
    }
    close(fd);
    tap_ok(sb__irq_open_file(&q, path, 0, why, sizeof why) == 0 &&
               sb__irq_read(&q, &v) == 0,
           "fixture opened for CPU0");
    TAP_IS_INT(v, 10 + 0 + 457147 + 0, "CPU0: its column, ERR/MIS skipped");
    sb__irq_close(&q);
    tap_ok(sb__irq_open_file(&q, path, 3, why, sizeof why) == 0 &&
               sb__irq_read(&q, &v) == 0,
           "CPU3 is the third column");
    TAP_IS_INT(v, 7 + 100 + 1000 + 0, "CPU3: the last column");
    sb__irq_close(&q);
    tap_ok(sb__irq_open_file(&q, path, 2, why, sizeof why) != 0 &&
               strstr(why, "CPU 2") != NULL,
           "an offline CPU has no column: %s", why);
    unlink(path);

    if (sb__irq_open(&q, 0, why, sizeof why) == 0) {
        uint64_t a = 0, b = 0;
        int ok = sb__irq_read(&q, &a) == 0;
        usleep(20000);
        ok = ok && sb__irq_read(&q, &b) == 0;
        tap_ok(ok && b >= a, "/proc/interrupts read twice: %llu then %llu",
               (unsigned long long)a, (unsigned long long)b);
        sb__irq_close(&q);
    } else {
        tap_skip("/proc/interrupts: %s", why);
    }
}

/* Samples rejected for a switch: as a context switch, or as a wait for
 * the CPU, which comes with one and counts first. */
static size_t switched(const sb_cell_result *r)
{
    return r->rejected[SB_REJECT_CTXSW] + r->rejected[SB_REJECT_CPU_WAIT];
}

static void test_sleeps_rejected(void)
{
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *s, *c;
    const sb_meta *m;
    size_t sleeps, all, extra, ctrl, sw;
    int odd, rc = run_pair(SB_REJECT_DISTURBED, &run, &e);

    if (!tap_ok(rc == SB_OK, "sleepy and control cells measured (%s)",
                e.text))
        return;
    s = sb_run_cell(run, 0);
    c = sb_run_cell(run, 1);
    m = sb_run_meta(run);
    sleeps = sleeps_in_rounds(&sleepy_calls, &odd, &all);
    tap_ok(odd && sleepy_calls.n % 2 == 0 && s->iters == 1,
           "k = 1 and only timed calls slept (%zu calls)", sleepy_calls.n);
    TAP_IS_INT(s->nsamples + s->rejected_total, ROUNDS,
               "every round took one sample of the sleepy cell");
    tap_ok(all >= ROUNDS / 5 - 1 && all <= ROUNDS / 5 + 1,
           "%zu sleeps in the rounds, one sample in five (%zu without a "
           "switch)", all, all - sleeps);
    ctrl = c->disturbed[SB_REJECT_CTXSW];
    tap_ok(ctrl <= ROUNDS / 10, "control cell: few context switches (%zu)",
           ctrl);
    /* A sleep is a switch; on waking the thread may wait for its CPU
     * too, and is then rejected under cpu-wait, which counts first. */
    sw = switched(s);
    tap_ok(sw >= sleeps,
           "every sleep that switched rejected as a context switch or a "
           "wait for the CPU (%zu >= %zu)", sw, sleeps);
    extra = sw >= sleeps ? sw - sleeps : 0;
    tap_ok(extra <= 2 * ctrl + 5,
           "beyond the sleeps only the background's switches: %zu extra, "
           "control %zu", extra, ctrl);
    TAP_IS_INT(s->disturbed[SB_REJECT_CTXSW], sw,
               "context switches (with or without a wait) count first "
               "among the other reasons");
    tap_ok(s->disturbed[SB_REJECT_CPU_WAIT] ==
               s->rejected[SB_REJECT_CPU_WAIT],
           "every wait for the CPU is rejected under its own reason "
           "(%zu)", s->rejected[SB_REJECT_CPU_WAIT]);
    tap_ok(s->rejected[SB_REJECT_OUTLIER] == 0,
           "no outlier rejections under the keep policy");
    {
        size_t sum = 0;
        for (int r = 0; r < SB_REJECT_NREASONS; r++)
            sum += s->rejected[r];
        TAP_IS_INT(sum, s->rejected_total, "rejected[] adds up");
    }
    tap_ok(counter_index(m, "perf::CONTEXT-SWITCHES") >= 0 &&
               counter_index(m, "perf::PAGE-FAULTS") >= 0,
           "context switches and page faults always among the counters");
    tap_ok(strstr(m->counters, "in use:") != NULL,
           "sb_meta.counters: %s", m->counters);
    tap_ok(isfinite(m->check_cost_seconds) && m->check_cost_seconds > 0,
           "check cost measured: %.2f us per sample",
           1e6 * m->check_cost_seconds);
    if (m->cpu >= 0 && !strstr(m->notes, "interrupts"))
        tap_ok(isfinite(m->interrupts_per_second) &&
                   m->interrupts_per_second >= 0,
               "interrupts per second on CPU %d: %.1f", m->cpu,
               m->interrupts_per_second);
    else
        tap_skip("interrupts not checked: %s", m->notes);
    {
        /* Kept samples never slept with a switch.  A sleep without one
         * (the host held the vCPU) may show no evidence the guest can
         * read, and be kept. */
        double floor = SLEEP_US * 1e-6 * m->timer.hz, worst = 0;
        size_t long_kept = 0;
        for (size_t i = 0; i < s->nsamples; i++) {
            if (s->ticks[i] > worst)
                worst = s->ticks[i];
            long_kept += s->ticks[i] >= floor;
        }
        tap_ok(long_kept <= all - sleeps,
               "no kept sample lasts a sleep that switched (%zu kept of at "
               "least %.0f ticks, the longest %.0f; %zu sleeps without a "
               "switch)", long_kept, floor, worst, all - sleeps);
    }
    sb_run_free(run);
}

static void test_sleeps_kept(void)
{
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *s;
    const unsigned char *flags;
    const double *cs;
    size_t sleeps, base, flagged = 0, missed = 0, extra = 0, ctx_low = 0;
    size_t quiet = 0;
    int odd, rc = run_pair(SB_REJECT_NONE, &run, &e);

    if (!tap_ok(rc == SB_OK, "reject none: measured (%s)", e.text))
        return;
    s = sb_run_cell(run, 0);
    sleeps = sleeps_in_rounds(&sleepy_calls, &odd, NULL);
    TAP_IS_INT(s->nsamples, ROUNDS, "reject none keeps every sample");
    TAP_IS_INT(s->rejected_total, 0, "and rejects none");
    tap_ok(s->disturbed[SB_REJECT_CTXSW] >= sleeps,
           "the sleeps still counted in disturbed[] (%zu >= %zu)",
           s->disturbed[SB_REJECT_CTXSW], sleeps);
    flags = sb_run_sample_flags(run, 0);
    cs = ctxsw_counts(run);
    tap_ok(flags && cs, "per-sample flags and context-switch counts");
    if (!flags || !cs || !odd) {
        sb_run_free(run);
        return;
    }
    /* Sample i of the rounds is timed call base + 2 i + 1. */
    base = sleepy_calls.n - 2 * ROUNDS;
    for (size_t i = 0; i < ROUNDS; i++) {
        int what = sleepy_calls.slept[base + 2 * i + 1];
        int slept = what == SWITCHED;
        int f = (flags[i] >> SB_REJECT_CTXSW) & 1;
        if (what == NO_SWITCH) {
            quiet++; /* nothing to see: no switch happened */
            continue;
        }
        flagged += slept && f;
        missed += slept && !f;
        extra += !slept && f;
        ctx_low += slept && !(cs[i] >= 1);
    }
    if (quiet)
        tap_diag("%zu sleeps returned without a switch", quiet);
    TAP_IS_INT(flagged, sleeps,
               "each sample whose sleep switched flagged, one by one");
    TAP_IS_INT(missed, 0, "no sample whose sleep switched unflagged");
    TAP_IS_INT(ctx_low, 0,
               "each sample whose sleep switched counts a context switch");
    tap_ok(extra <= 2 * sb_run_cell(run, 1)->disturbed[SB_REJECT_CTXSW] + 5,
           "few flags on samples that did not sleep (%zu)", extra);
    sb_run_free(run);
}

static void test_faults(size_t invocations)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    int rc, j;

    options(&o, SB_REJECT_DISTURBED);
    o.invocations = o.max_invocations = invocations;
    o.min_samples = o.max_samples = 50;
    sb_plan_add(plan, &fault_kernel, FAULT_PAGES * 4096, 0, 0, NULL);
    rc = sb_run_execute_new(plan, &o, NULL, &run, &e);
    sb_plan_free(plan);
    if (!tap_ok(rc == SB_OK, "%zu invocation(s) of fresh pages (%s)",
                invocations, e.text))
        return;
    j = counter_index(sb_run_meta(run), "perf::PAGE-FAULTS");
    if (tap_ok(j >= 0, "perf::PAGE-FAULTS read")) {
        const sb_cell_result *r = sb_run_cell(run, 0);
        const sb_counter_result *c = &r->counters[j];
        const double *v = sb_run_counter_samples(run, 0, (size_t)j);
        size_t low = 0;
        TAP_IS_INT(r->ncounters, sb_run_meta(run)->ncounters,
                   "every counter has a result");
        TAP_IS_STR(c->name, "perf::PAGE-FAULTS", "named as read");
        if (r->nsamples == 0) {
            /* Every sample lost, mostly to a shared core (a test on the
             * sibling vCPU): no count to check; the accounting below
             * checks the rejects. */
            tap_skip("page faults per call: every sample on a shared core");
            tap_skip("per byte is per call / size: no sample kept");
        } else {
            tap_ok(c->per_call.estimate >= FAULT_PAGES,
                   "page faults per call %.1f >= %d pages [%.1f, %.1f]",
                   c->per_call.estimate, FAULT_PAGES, c->per_call.lo,
                   c->per_call.hi);
            TAP_IS_REL(c->per_byte,
                       c->per_call.estimate / (FAULT_PAGES * 4096.0), 1e-12,
                       "per byte is per call / size");
        }
        for (size_t i = 0; v && i < r->nsamples; i++)
            low += !(v[i] >= FAULT_PAGES);
        tap_ok(v && low == 0, "every sample: >= %d faults per call (%zu "
               "below)", FAULT_PAGES, low);
        /* Every sample takes 64 page faults: were they a reason, every
         * sample would go.  Whatever the machine does (a busy one
         * switches, interrupts and shares the core often), each rejected
         * sample is counted under a disturbance it showed, and none
         * under a kernel failure: the rejects are explained without the
         * faults. */
        size_t shared = r->rejected[SB_REJECT_SHARED_CORE], sum = 0;
        int shown = r->rejected[SB_REJECT_KERNEL_FAILED] == 0;
        static const int seen[] = {SB_REJECT_CTXSW, SB_REJECT_MIGRATION,
                                   SB_REJECT_INTERRUPT, SB_REJECT_CPU_WAIT,
                                   SB_REJECT_SHARED_CORE};
        for (int k = 0; k < SB_REJECT_NREASONS; k++)
            sum += r->rejected[k];
        for (size_t k = 0; k < sizeof seen / sizeof *seen; k++)
            shown &= r->rejected[seen[k]] <= r->disturbed[seen[k]];
        tap_ok(sum == r->rejected_total && shown,
               "page faults are never a reason to reject (%zu kept, %zu "
               "rejected, each under a disturbance it showed, %zu of them "
               "on a shared core)", r->nsamples, r->rejected_total, shared);
        if (invocations > 1)
            tap_ok((r->invocations == invocations &&
                    strstr(r->method, "invocation") != NULL) ||
                       (shared >= 25 && r->invocations >= 1),
                   "through the pipe, from %zu invocations", r->invocations);
    }
    sb_run_free(run);
}

static void test_missing_counters(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_meta *m;
    int rc;

    options(&o, SB_REJECT_DISTURBED);
    o.min_samples = o.max_samples = 20;
#ifdef SB_HAVE_PAPI
    /* With PAPI an unknown name is refused before the run (above). */
    o.counters = "PAPI_TOT_CYC,perf::PAGE-FAULTS";
#else
    o.counters = "PAPI_TOT_CYC,perf::PAGE-FAULTS,NO_SUCH_COUNTER";
#endif
    sb_plan_add(plan, &control_kernel, 256, 0, 0, NULL);
    rc = sb_run_execute_new(plan, &o, NULL, &run, &e);
    sb_plan_free(plan);
    if (!tap_ok(rc == SB_OK, "a run asking for absent counters succeeds "
                "(%s)", e.text))
        return;
    m = sb_run_meta(run);
    tap_diag("counters: %s", m->counters);
    tap_ok(counter_index(m, "perf::PAGE-FAULTS") >= 0 &&
               counter_index(m, "perf::CONTEXT-SWITCHES") >= 0 &&
               counter_index(m, "NO_SUCH_COUNTER") < 0,
           "the software events are read, the unknown name is not");
    if (counter_index(m, "PAPI_TOT_CYC") < 0) {
        const char *miss = strstr(m->counters, "missing: ");
        const char *at = miss ? strstr(miss, "PAPI_TOT_CYC") : NULL;
        tap_ok(at != NULL, "PAPI_TOT_CYC is listed missing");
        tap_ok(at && strchr(at, '(') != NULL,
               "with the reason it is missing");
    } else {
        const char *miss = strstr(m->counters, "missing: ");
        tap_ok(!miss || !strstr(miss, "PAPI_TOT_CYC"),
               "PAPI_TOT_CYC, read here, is not listed missing");
        tap_ok(strstr(m->counters, "PAPI_TOT_CYC") != NULL,
               "and listed in use");
    }
#ifndef SB_HAVE_PAPI
    tap_ok(strstr(strstr(m->counters, "missing: ") ? strstr(m->counters,
                                                            "missing: ")
                                                   : "",
                  "NO_SUCH_COUNTER") != NULL,
           "an unknown name is listed missing");
#endif
    TAP_IS_INT(sb_run_cell(run, 0)->ncounters, m->ncounters,
               "cells carry every counter read");
    sb_run_free(run);
}

static void test_available(void)
{
    char names[16][64], why[16][96];
    size_t n = sb_counters_available(names, why, 16);
    int pf = -1;

    TAP_IS_INT(n, 8, "sb_counters_available lists 5 presets and 3 events");
    if (n != 8)
        return;
    TAP_IS_STR(names[0], "PAPI_TOT_CYC", "the presets first");
    TAP_IS_STR(names[7], "perf::PAGE-FAULTS", "the software events last");
    for (size_t i = 0; i < n; i++) {
        tap_diag("%-24s %s", names[i], why[i][0] ? why[i] : "available");
        if (!strcmp(names[i], "perf::PAGE-FAULTS"))
            pf = (int)i;
    }
    tap_ok(pf >= 0 && why[pf][0] == '\0',
           "page faults are always available (getrusage at worst)");
    TAP_IS_INT(sb_counters_available(NULL, NULL, 0), 8,
               "NULL arrays just count");
}

/* The hook of counters.h, which only a test defines: the library sees it
 * through a weak reference. */
int sb__counters_no_perf;
/* The probe's test hook (probe.h), bit 5: no shared-core verdicts.  These
 * tests count context switches, interrupts and page faults; a sibling
 * vCPU busy with the rest of the suite would have the contention probe
 * reject their samples too (all of them, on a loaded machine), which
 * test_probe.c tests on its own. */
int sb__probe_force = 32;

/* Without perf_event_open: context switches from getrusage. */
static void test_no_perf(void)
{
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *s;
    size_t sleeps;
    int odd, rc;

    sb__counters_no_perf = 1;
    rc = run_pair(SB_REJECT_DISTURBED, &run, &e);
    sb__counters_no_perf = 0;
    if (!tap_ok(rc == SB_OK, "without perf_event_open: measured (%s)",
                e.text))
        return;
    s = sb_run_cell(run, 0);
    sleeps = sleeps_in_rounds(&sleepy_calls, &odd, NULL);
    tap_diag("counters: %s", sb_run_meta(run)->counters);
    tap_ok(strstr(sb_run_meta(run)->counters, "getrusage") != NULL,
           "sb_meta.counters says getrusage stands in");
    tap_ok(switched(s) >= sleeps &&
               switched(s) - sleeps <=
                   2 * sb_run_cell(run, 1)->disturbed[SB_REJECT_CTXSW] + 5,
           "getrusage catches every sleep (%zu rejected, %zu sleeps)",
           switched(s), sleeps);
    sb_run_free(run);
}

/* Without perf_event_open, a sample preempted by a CPU hog on its CPU (an
 * involuntary switch only: no sleep, no block) is flagged, its
 * context-switch count at least 1, and rejected: getrusage's count is
 * both kinds of switch. */
static void test_preempted_no_perf(void)
{
    size_t pre, all, base, missed = 0, low = 0;
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *s;
    const unsigned char *flags;
    const double *cs;
    int odd, rc;

    sb__counters_no_perf = 1;
    rc = run_pair_of(&preempted_kernel, SB_REJECT_NONE, &run, &e);
    sb__counters_no_perf = 0;
    if (!tap_ok(rc == SB_OK, "preempted, without perf_event_open: measured "
                "(%s)", e.text)) {
        hog_stop();
        return;
    }
    s = sb_run_cell(run, 0);
    pre = sleeps_in_rounds(&preempted_calls, &odd, &all);
    tap_diag("%zu of %zu hog calls in the rounds were preempted only", pre,
             all);
    if (pre == 0 || !odd || s->nsamples != ROUNDS) {
        tap_skip("preempted samples: none preempted involuntarily (the hog "
                 "could not share the CPU)");
        sb_run_free(run);
        hog_stop();
        return;
    }
    flags = sb_run_sample_flags(run, 0);
    cs = ctxsw_counts(run);
    tap_ok(flags && cs && strstr(sb_run_meta(run)->counters, "getrusage"),
           "per-sample flags and context switches, from getrusage");
    if (flags && cs) {
        base = preempted_calls.n - 2 * ROUNDS;
        for (size_t i = 0; i < ROUNDS; i++) {
            if (preempted_calls.slept[base + 2 * i + 1] != SWITCHED)
                continue;
            missed += !((flags[i] >> SB_REJECT_CTXSW) & 1);
            low += !(cs[i] >= 1);
        }
        TAP_IS_INT(missed, 0, "every preempted sample flagged a context "
                   "switch (%zu preempted)", pre);
        TAP_IS_INT(low, 0, "every preempted sample counts a context switch");
    }
    tap_ok(s->disturbed[SB_REJECT_CTXSW] >= pre,
           "preempted samples counted in disturbed[] (%zu >= %zu)",
           s->disturbed[SB_REJECT_CTXSW], pre);
    sb_run_free(run);
    run = NULL;

    /* Under the default policy they are rejected. */
    sb__counters_no_perf = 1;
    rc = run_pair_of(&preempted_kernel, SB_REJECT_DISTURBED, &run, &e);
    sb__counters_no_perf = 0;
    if (tap_ok(rc == SB_OK, "preempted, reject disturbed: measured (%s)",
               e.text)) {
        s = sb_run_cell(run, 0);
        pre = sleeps_in_rounds(&preempted_calls, &odd, NULL);
        /* Nothing to judge when no call was preempted, nor when the
         * cell waited so often that its waits are kept (the busy-CPU
         * rule, tested in test_busy). */
        if (pre == 0 || strstr(sb_run_meta(run)->notes, "busy CPU"))
            tap_skip("preempted, reject disturbed: %s",
                     pre == 0 ? "no call was preempted"
                              : "the cell's waits were kept (busy CPU)");
        else
            tap_ok(switched(s) >= pre &&
                       s->disturbed[SB_REJECT_CTXSW] >= pre,
                   "every preempted sample rejected as a context switch "
                   "or a wait for the CPU (%zu rejected, %zu preempted)",
                   switched(s), pre);
    }
    sb_run_free(run);
    hog_stop();
}

/* As an unprivileged user (when run as root): no SCHED_FIFO, a note. */
struct child_report {
    int rc;
    int rt_note;
    int getrusage;
    size_t rejected, sleeps;
    char notes[512];
};

static void test_unprivileged(void)
{
    struct passwd *pw = getpwnam("nobody");
    struct child_report rep;
    int fd[2], status = 0;
    pid_t pid;

    if (geteuid() != 0 || !pw) {
        tap_skip("not root, or no user nobody: cannot drop privileges");
        tap_skip("(as above)");
        return;
    }
    if (pipe(fd) != 0) {
        tap_skip("pipe failed");
        tap_skip("(as above)");
        return;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        sb_run *run = NULL;
        sb_plan *plan;
        sb_measure_options o;
        int odd;
        memset(&rep, 0, sizeof rep);
        close(fd[0]);
        if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
            _exit(3);
        plan = sb_plan_new();
        options(&o, SB_REJECT_DISTURBED);
        o.rt = 1;
        sb_plan_add(plan, &sleepy_kernel, 4096, 0, 0, NULL);
        rep.rc = sb_run_execute_new(plan, &o, NULL, &run, NULL);
        if (rep.rc == SB_OK) {
            const sb_meta *m = sb_run_meta(run);
            /* The notes go into a failing check's line: their start is enough. */
            snprintf(rep.notes, sizeof rep.notes, "%.*s",
                     (int)sizeof rep.notes - 1, m->notes);
            rep.rt_note = strstr(m->notes, "--rt") != NULL;
            rep.getrusage = strstr(m->counters, "getrusage") != NULL;
            rep.rejected = switched(sb_run_cell(run, 0));
            rep.sleeps = sleeps_in_rounds(&sleepy_calls, &odd, NULL);
        }
        if (write(fd[1], &rep, sizeof rep) != (ssize_t)sizeof rep)
            _exit(4);
        _exit(0);
    }
    close(fd[1]);
    memset(&rep, 0, sizeof rep);
    rep.rc = -100;
    if (read(fd[0], &rep, sizeof rep) != (ssize_t)sizeof rep)
        rep.rc = -100;
    close(fd[0]);
    waitpid(pid, &status, 0);
    tap_ok(rep.rc == SB_OK && rep.rt_note,
           "unprivileged: the run goes on and notes the refused --rt (%s)",
           rep.notes);
    tap_ok(rep.rc == SB_OK && rep.rejected >= rep.sleeps,
           "unprivileged: every sleep rejected (%zu >= %zu%s)", rep.rejected,
           rep.sleeps, rep.getrusage ? ", through getrusage" : "");
}

static void test_rt_privileged(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    int rc;

    options(&o, SB_REJECT_DISTURBED);
    o.min_samples = o.max_samples = 20;
    o.rt = 1;
    sb_plan_add(plan, &control_kernel, 256, 0, 0, NULL);
    rc = sb_run_execute_new(plan, &o, NULL, &run, &e);
    sb_plan_free(plan);
    if (!tap_ok(rc == SB_OK, "--rt run (%s)", e.text))
        return;
    if (geteuid() == 0)
        tap_ok(strstr(sb_run_meta(run)->notes, "--rt") == NULL,
               "as root SCHED_FIFO is granted (notes: \"%s\")",
               sb_run_meta(run)->notes);
    else {
        /* Not root: refused, and said so, unless this user may raise a
         * real-time priority (RLIMIT_RTPRIO above 0). */
        struct rlimit rl;
        int may = getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur > 0;
        tap_ok(may || strstr(sb_run_meta(run)->notes, "--rt") != NULL,
               "not root: the refused --rt is in the notes (\"%s\")",
               sb_run_meta(run)->notes);
    }
    {
        int policy = sched_getscheduler(0);
        tap_ok(policy == SCHED_OTHER, "the policy is restored afterwards");
    }
    sb_run_free(run);
}

/* Interrupts per second on the last allowed CPU while this thread spins
 * there for 0.2 s; NAN when they cannot be read. */
static double irq_rate(int *cpu)
{
    cpu_set_t saved, one;
    sb__irq q;
    char why[160];
    uint64_t a, b;
    double t0, t1;

    *cpu = -1;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0)
        return NAN;
    for (int c = CPU_SETSIZE - 1; c >= 0 && *cpu < 0; c--)
        if (CPU_ISSET(c, &saved))
            *cpu = c;
    CPU_ZERO(&one);
    CPU_SET(*cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0 ||
        sb__irq_open(&q, *cpu, why, sizeof why) != 0)
        return NAN;
    t0 = now_s();
    sb__irq_read(&q, &a);
    while ((t1 = now_s()) < t0 + 0.2)
        ;
    sb__irq_read(&q, &b);
    sb__irq_close(&q);
    sched_setaffinity(0, sizeof saved, &saved);
    return (double)(b - a) / (t1 - t0);
}

/* Samples longer than the interval between interrupts keep them. */
static void test_long_samples(void)
{
    sb_plan *plan;
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *l, *c;
    int cpu, rc;
    double rate = irq_rate(&cpu);

    if (!(rate >= 20)) {
        tap_skip("%.1f interrupts/s on CPU %d: too few to test long "
                 "samples", rate, cpu);
        return;
    }
    spin_seconds = 3 / rate; /* about 3 interrupts a call */
    if (spin_seconds > 0.05)
        spin_seconds = 0.05;
    plan = sb_plan_new();
    options(&o, SB_REJECT_DISTURBED);
    o.min_samples = o.max_samples = 20;
    sb_plan_add(plan, &spin_kernel, 64, 0, 0, NULL);
    sb_plan_add(plan, &control_kernel, 4096, 0, 0, NULL);
    rc = sb_run_execute_new(plan, &o, NULL, &run, &e);
    sb_plan_free(plan);
    if (!tap_ok(rc == SB_OK, "a %.1f ms kernel at %.0f interrupts/s "
                "measured (%s)", 1e3 * spin_seconds, rate, e.text))
        return;
    l = sb_run_cell(run, 0);
    c = sb_run_cell(run, 1);
    /* On a busy machine a sample this long may also see a context switch,
     * a wait for the CPU or a shared core, and be rejected for that: what
     * matters here is that no sample was rejected for its interrupts,
     * and that the samples were taken. */
    tap_ok(l->rejected[SB_REJECT_INTERRUPT] == 0 &&
               l->nsamples + l->rejected_total >= 15,
           "its samples with interrupts are not rejected for them (%zu "
           "kept, %zu rejected for context switches, %zu for interrupts)",
           l->nsamples, l->rejected[SB_REJECT_CTXSW],
           l->rejected[SB_REJECT_INTERRUPT]);
    {
        /* Counted in disturbed[] all the same: every kept sample that saw
         * one, plus at most the samples rejected for another reason.  An
         * exact account, whatever the interrupts did during the run (the
         * rate measured before is no promise: "at least half the samples"
         * failed once on a machine whose interrupts came in bursts). */
        const unsigned char *fl = sb_run_sample_flags(run, 0);
        size_t with = 0, other = l->rejected[SB_REJECT_CTXSW] +
                                 l->rejected[SB_REJECT_MIGRATION] +
                                 l->rejected[SB_REJECT_KERNEL_FAILED] +
                                 l->rejected[SB_REJECT_CPU_WAIT] +
                                 l->rejected[SB_REJECT_SHARED_CORE];
        for (size_t i = 0; fl && i < l->nsamples; i++)
            if (fl[i] & (1u << SB_REJECT_INTERRUPT))
                with++;
        tap_ok((fl || !l->nsamples) &&
                   l->disturbed[SB_REJECT_INTERRUPT] >= with &&
                   l->disturbed[SB_REJECT_INTERRUPT] <= with + other,
               "and still counted (%zu seen; %zu kept samples hold one, "
               "%zu were rejected for another reason)",
               l->disturbed[SB_REJECT_INTERRUPT], with, other);
    }
    tap_ok(strstr(sb_run_meta(run)->notes, "interrupts: no reason to "
                                           "reject in 1 cell") != NULL,
           "the notes say so: %s", sb_run_meta(run)->notes);
    {
        /* Every kept sample of the short cell is free of interrupts.  (Not
         * rejected == disturbed: a sample that also saw a context switch,
         * which a busy machine decides, is rejected under that reason.) */
        const unsigned char *fl = sb_run_sample_flags(run, 1);
        size_t with = 0;
        for (size_t i = 0; fl && i < c->nsamples; i++)
            if (fl[i] & (1u << SB_REJECT_INTERRUPT))
                with++;
        tap_ok((fl || !c->nsamples) && with == 0 &&
                   c->rejected[SB_REJECT_INTERRUPT] <=
                       c->disturbed[SB_REJECT_INTERRUPT],
               "a short cell of the same run still rejects them (%zu kept "
               "with an interrupt; %zu rejected for them, %zu seen)", with,
               c->rejected[SB_REJECT_INTERRUPT],
               c->disturbed[SB_REJECT_INTERRUPT]);
    }
    sb_run_free(run);
}

int main(void)
{
    test_options();
    test_irq_parse();
    test_available();
    test_sleeps_rejected();
    test_sleeps_kept();
    test_faults(1);
    test_faults(2);
    test_missing_counters();
    test_long_samples();
    test_no_perf();
    test_preempted_no_perf();
    test_rt_privileged();
    test_unprivileged();
    return tap_done();
}
