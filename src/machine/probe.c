/*
 * probe.c: the probes timed beside every sample (docs/design.md, protocol
 * step 5; measure.c's top comment, step 6; sample.c times them).
 *
 * The core clock.  The TSC counts reference ticks at a constant rate; the
 * core runs at whatever clock the host gives the vCPU (steps of about
 * 100 MHz, 2.69-2.99 GHz against a 2.00 GHz TSC on the machine this was
 * written on).  Where the PMU exists, sample.c takes the core
 * cycles of a sample from PAPI_TOT_CYC, read around it anyway.  Elsewhere
 * a chain of dependent imul r64, r64 runs a known number of core cycles
 * (3 per imul on every Intel core since Nehalem and AMD core since Zen),
 * and the ticks it takes give the clock: cycles / (ticks - overhead), the
 * overhead that of an empty timer pair.  It is timed just before and just
 * after the timed region of each sample, outside it.
 *
 * The assumption of 3 cycles is checked at start-up against a chain of
 * another kind: dependent add r64, r64, one cycle each on the same cores.
 * Both are timed alike, interleaved, 31 times each; when the ratio of
 * their medians per op is not 3 within SB__PROBE_TOLERANCE (in any of 5
 * tries) the invocation's clock is unverified: its clocks are computed
 * all the same and the runner keeps them only if the check passed in
 * another invocation of the run, else every clock is NAN, the probe is
 * refused and sb_meta.probe_note says why.  Not
 * add r64, imm: recent Intel cores fold it at rename (0.54 cycles per add
 * measured here), and a chain of it checks nothing.
 *
 * The contention probe.  A shared core (the host's hyperthread sibling
 * running another tenant) slows the copy kernels by up to 2x and no
 * counter in the guest sees it.  A short walk over 4 KiB of L1, each
 * line's 16 bytes loaded and stored to the line half a page away, so
 * that the second half loads the lines the first half has just stored,
 * slows with it, about 2x on the hosts recorded (README, "The probes"):
 * its core cycles per rep are a property of the core when nobody shares
 * it.  sample.c times it before and after each sample and compares the
 * slower with its quiet model (sb__probe_model, sb__quiet).
 *
 * The chains and the loop are x86-64 inline assembly; elsewhere there is
 * no probe (every clock NAN, no contention check).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>

#include "meta.h"
#include "probe.h"
#include "timer.h"
#include "arch/arch.h"
#include "arch/ticks.h"
#include "stats_internal.h"

/* Ops of the imul chain beside each sample, and reps of the contention
 * probe, chosen by measurement (README, "The probes"): 512 ops, about
 * 1080 ticks (0.5 us) a chain, timed twice, 2.2% of a 50 us sample; the
 * median clock of a cell then sits on a lattice of 1/2160 = 0.05%.
 * Twice, before and after each sample, rather than once a round: the
 * clock here changed level 2166 times in 62.7 s (by more than 1.5%, about
 * every 30 ms), so a round of 33 cells (3-5 ms) would hold a change one
 * time in ten, and a sample's two chains differed by more than 1.5% in
 * 6.7% of 100000 samples of about 0.6 ms.
 * 32 reps of the contention probe, about 2150 core cycles (0.6 us at
 * 3.7 GHz), timed twice: with fewer the timer pair's own jitter (54
 * ticks, a few either way) rules it (with 8 reps of the probe before this
 * one, 30% of the samples looked contended while the copy beside them
 * ran at its quiet speed), and a walk of 16 reps here still ran part of
 * it before its stores had filled up (a second mode at 87 against 125
 * ticks per rep back to back). */
#define CHAIN_OPS 512
/* A power of two, so that a reading (ticks over ops) is exact and the
 * clock from the readings (sb__probe_chain_clock) is the clock from the
 * raw ticks to the bit: what lets a run's clocks be decided again from
 * its record and come back as measured.  With 500 or 1000 ops a quarter
 * of the clocks would differ in their last bits. */
_Static_assert((CHAIN_OPS & (CHAIN_OPS - 1)) == 0,
               "CHAIN_OPS must be a power of two");
/* Start-up check: pairs of chains timed, and how often it is tried
 * before the probe is refused. */
#define CHECK_PAIRS 31
#define CHECK_TRIES 5

double sb__probe_clock(double cycles, double ticks, double overhead)
{
    double d = ticks - overhead;
    if (!isfinite(cycles) || !isfinite(d) || !(cycles > 0) || !(d > 0))
        return NAN;
    return cycles / d;
}

/* A chain's reading, ticks per imul with the overhead off, from its raw
 * ticks; NAN when there is none (not read, or no longer than the
 * overhead).  cycles / IMUL_CYCLES is the chain's ops exactly (a whole
 * number times 3, divided by 3), so this is what sample.c records. */
static double chain_reading(double cycles, double ticks, double overhead)
{
    double ops = cycles / SB__PROBE_IMUL_CYCLES, d = ticks - overhead;
    if (!isfinite(ops) || !(ops > 0) || !isfinite(d) || !(d > 0))
        return NAN;
    return d / ops;
}

double sb__probe_sample_clock(double cycles, double before, double after,
                              double overhead)
{
    return sb__probe_chain_clock(chain_reading(cycles, before, overhead),
                                 chain_reading(cycles, after, overhead),
                                 SB__PROBE_CHAIN_APART);
}

/* The clock one chain reading gives; NAN without one. */
static double reading_clock(double r)
{
    return isfinite(r) && r > 0 ? SB__PROBE_IMUL_CYCLES / r : NAN;
}

double sb__probe_chain_clock(double before, double after, double apart)
{
    double a = reading_clock(before);
    double b = reading_clock(after);
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    /* A chain is never faster than the clock allows, but it can be slowed
     * far past any clock state: an interrupt, the host taking the vCPU or
     * a trapped timer read lands on one chain and makes it 1.5 to 20 times
     * slower (seen here: a kept sample's clock at a tenth of the run's,
     * and the contention probe's quiet level, converted with such clocks,
     * 17% low).  The two chains are one sample apart, some 50 us, and the
     * host moves the clock one state (3.5-3.8%) every few tens of ms: a
     * step between them is one state, two at most, never half again
     * (from one invocation to the next, seconds apart, the clock has
     * moved 2x here).  Chains further apart than that (the measurement's
     * SB__PROBE_CHAIN_APART) are one clock and one disturbance, and the
     * faster is the clock. */
    if (a > b * apart || b > a * apart)
        return a > b ? a : b;
    /* Total cycles over total ticks: a step inside the sample gives a
     * clock between its two states. */
    return 2 * SB__PROBE_IMUL_CYCLES / (before + after);
}

int sb__probe_validate(double imul, double add, double tol, char *why,
                       size_t len)
{
    double r;
    char dummy[8];

    if (!why) {
        why = dummy;
        len = sizeof dummy;
    }
    if (!isfinite(imul) || !isfinite(add) || !(imul > 0) || !(add > 0)) {
        snprintf(why, len, "the chains could not be timed");
        return 0;
    }
    r = imul / add;
    if (fabs(r / SB__PROBE_IMUL_CYCLES - 1) > tol) {
        snprintf(why, len,
                 "imul/add latency ratio %.3f, not %.0f within %.0f%%: the "
                 "imul chain's %.0f cycles per op cannot be trusted on this "
                 "CPU", r, SB__PROBE_IMUL_CYCLES, 100 * tol,
                 SB__PROBE_IMUL_CYCLES);
        return 0;
    }
    snprintf(why, len, "imul/add latency ratio %.3f", r);
    return 1;
}

/* The first index in the sorted x[from, m) whose value exceeds v. */
static size_t above(const double *x, size_t from, size_t m, double v)
{
    while (from < m && x[from] <= v)
        from++;
    return from;
}

size_t sb__probe_model(double *x, size_t n, double *level, double *margin,
                       double *jitter)
{
    const double w = SB__PROBE_MODEL_WINDOW;
    size_t m = 0, cmax = 0, need, i0, best, bestc = 0, lo, hi, cnt, r;
    size_t i, j = 0, sparse;
    double lev, sigma, valley;

    *level = *margin = NAN;
    if (jitter)
        *jitter = NAN;
    for (i = 0; i < n; i++)
        if (isfinite(x[i]) && x[i] > 0)
            x[m++] = x[i];
    if (m < 2 * SB__PROBE_MODEL_MIN)
        return m;
    gsl_sort(x, 1, m);
    /* The densest window's count, by two pointers (j only moves up). */
    for (i = 0; i < m; i++) {
        j = above(x, j > i ? j : i, m, x[i] * (1 + w));
        if (j - i > cmax)
            cmax = j - i;
    }
    need = cmax / 8 > SB__PROBE_MODEL_MIN ? cmax / 8 : SB__PROBE_MODEL_MIN;
    /* The lowest window holding that many: the quiet cluster's start. */
    j = 0;
    for (i0 = 0; i0 < m; i0++) {
        j = above(x, j > i0 ? j : i0, m, x[i0] * (1 + w));
        if (j - i0 >= need)
            break;
    }
    if (i0 == m)
        return m; /* cannot happen: the densest window qualifies */
    /* Its densest window, starting within two widths above it. */
    best = i0;
    j = i0;
    for (i = i0; i < m && x[i] <= x[i0] * (1 + 2 * w); i++) {
        j = above(x, j > i ? j : i, m, x[i] * (1 + w));
        if (j - i > bestc) {
            bestc = j - i;
            best = i;
        }
    }
    lev = bestc % 2 ? x[best + bestc / 2]
                    : (x[best + bestc / 2 - 1] + x[best + bestc / 2]) / 2;
    *level = lev;
    /* The valley above the mode: the first value above the level whose
     * window holds at most a 64th of the mode's (or only itself), each
     * run of equal values taken from its first, or the first value past
     * a gap of two windows (a mode on a lattice has no sparse window
     * before the gap: its values repeat); the mode ends there, or where
     * the window before it ended if that was sooner. */
    sparse = bestc / 64 > 1 ? bestc / 64 : 1;
    i = above(x, best, m, lev);
    for (j = i; i < m;) {
        size_t next = above(x, i, m, x[i]);
        j = above(x, j > i ? j : i, m, x[i] * (1 + w));
        if (j - i <= sparse)
            break;
        if (next < m && x[next] > x[i] * (1 + 2 * w)) {
            i = next;
            break;
        }
        i = next;
    }
    /* x[i - 1] is the last value before the valley (i > best). */
    valley = x[i - 1] * (1 + w);
    if (i < m && x[i] < valley)
        valley = x[i];
    valley = valley / lev - 1;
    /* The lower side: values within 10% below the level. */
    for (lo = 0; lo < m && x[lo] < lev * 0.9; lo++)
        ;
    hi = above(x, lo, m, lev);
    cnt = hi - lo;
    sigma = NAN;
    if (cnt >= SB__PROBE_MODEL_MIN) {
        /* The distances below the level ascend as the index descends:
         * their 90th percentile (lower rank) is that of x[hi - 1 - r]. */
        r = (size_t)(0.9 * (double)(cnt - 1));
        sigma = (lev - x[hi - 1 - r]) / 1.645 / lev;
    }
    if (jitter)
        *jitter = sigma;
    *margin = valley;
    /* The valley no further than 8 sigmas (probe.h). */
    if (isfinite(sigma) && sigma > 0 &&
        *margin > 2 * SB__PROBE_MODEL_K * sigma)
        *margin = 2 * SB__PROBE_MODEL_K * sigma;
    if (isfinite(sigma) && SB__PROBE_MODEL_K * sigma > *margin)
        *margin = SB__PROBE_MODEL_K * sigma;
    if (*margin < SB__PROBE_MODEL_FLOOR)
        *margin = SB__PROBE_MODEL_FLOOR;
    if (*margin > SB__PROBE_MODEL_CEIL)
        *margin = SB__PROBE_MODEL_CEIL;
    return m;
}

static double floor_margin(const sb__quiet *q, double margin)
{
    return margin < q->min_margin ? q->min_margin : margin;
}

void sb__quiet_init(sb__quiet *q, double *ring, double *work, size_t cap,
                    double min_margin)
{
    q->ring = ring;
    q->work = work;
    q->cap = cap;
    q->n = 0;
    q->min_margin = min_margin;
    q->level = q->own_level = q->prior_level = q->prior_margin = NAN;
    q->margin = q->own_margin = floor_margin(q, SB__PROBE_MARGIN);
}

/* The deciding level and margin from the own fit and the prior. */
static void decide(sb__quiet *q)
{
    double p = q->prior_level, o = q->own_level;
    q->level = o;
    q->margin = q->own_margin;
    if (!isfinite(p) || (isfinite(o) && (p >= o || p < o / 3)))
        return;
    q->level = p;
    if (!isfinite(o) || o > p * (1 + q->prior_margin))
        q->margin = isfinite(q->prior_margin) ? q->prior_margin
                                              : q->own_margin;
}

void sb__quiet_seed(sb__quiet *q, double level, double margin, int prior)
{
    if (!isfinite(level) || !(level > 0))
        return;
    if (prior) {
        if (isfinite(q->prior_level) && !(level < q->prior_level))
            return;
        q->prior_level = level;
        q->prior_margin = isfinite(margin) ? floor_margin(q, margin) : NAN;
    } else {
        q->own_level = level;
        if (isfinite(margin))
            q->own_margin = floor_margin(q, margin);
    }
    decide(q);
}

void sb__quiet_add(sb__quiet *q, double v)
{
    double lev, mg;
    size_t m, n;

    if (!isfinite(v) || !q->ring || !q->cap)
        return;
    q->ring[q->n++ % q->cap] = v;
    n = q->n;
    if (!(n % 256 == 0 || n == 32 || n == 64 || n == 128))
        return;
    m = n < q->cap ? n : q->cap;
    memcpy(q->work, q->ring, m * sizeof *q->work);
    sb__probe_model(q->work, m, &lev, &mg, NULL);
    if (!isfinite(lev))
        return;
    mg = floor_margin(q, mg);
    if (!isfinite(q->own_level) || n == 32 ||
        lev < q->own_level / (1 + q->own_margin)) {
        /* No level yet, the calibration's replaced, or a quieter mode
         * than the one held: the fit's own level and margin. */
        q->own_level = lev;
        q->own_margin = mg;
    } else if (lev <= q->own_level * (1 + q->own_margin)) {
        /* The same mode, measured again. */
        if (lev < q->own_level)
            q->own_level = lev;
        q->own_margin = mg;
    }
    decide(q);
}

double sb__quiet_prior(const double *levels, size_t n, double margin)
{
    double best = NAN;
    for (size_t i = 0; i < n; i++) {
        double a = levels[i];
        if (!isfinite(a) || !(a > 0) || a >= best)
            continue;
        for (size_t j = 0; j < n; j++) {
            double b = levels[j];
            if (j != i && isfinite(b) && b > 0 &&
                fabs(a / b - 1) <= margin) {
                best = a;
                break;
            }
        }
    }
    return best;
}

int sb__probe_contended(double v, double quiet, double margin)
{
    if (!isfinite(v) || !isfinite(quiet) || !isfinite(margin))
        return 0;
    return v > quiet * (1 + margin);
}

int sb__probe_parse_schedstat(const char *text, uint64_t *run_delay)
{
    uint64_t exec, delay;
    char *end;
    const char *p = text;

    errno = 0;
    exec = strtoull(p, &end, 10);
    if (end == p || errno || (*end != ' ' && *end != '\t'))
        return -1;
    p = end;
    delay = strtoull(p, &end, 10);
    if (end == p || errno || (*end != ' ' && *end != '\t' && *end != '\n' &&
                              *end != '\0'))
        return -1;
    /* strtoull takes a sign: the kernel writes none. */
    if (strchr(text, '-') && strchr(text, '-') < end)
        return -1;
    (void)exec;
    *run_delay = delay;
    return 0;
}

uint64_t sb__probe_time_chain(const sb__probe *p)
{
    uint64_t t0, t1;
    if (!p->imul_ops)
        return 0;
    t0 = sb__timer_start(p->tsc);
    sb__arch_imul_chain(p->imul_ops);
    t1 = sb__timer_stop(p->tsc);
    return t1 - t0;
}

uint64_t sb__probe_time_ldst(const sb__probe *p)
{
    uint64_t t0, t1;
    if (!p->ldst_reps || !p->buf)
        return 0;
    /* The checks' system calls before it evict the buffer from L1: one
     * untimed rep brings it back, so that the probe measures the ports,
     * not the refill. */
    sb__arch_ldst(p->buf, 1);
    t0 = sb__timer_start(p->tsc);
    sb__arch_ldst(p->buf, p->ldst_reps);
    t1 = sb__timer_stop(p->tsc);
    return t1 - t0;
}

double sb__probe_pair(sb__probe *p)
{
    double d[16];
    size_t m;
    uint64_t t0 = sb__timer_start(p->tsc);
    uint64_t t1 = sb__timer_stop(p->tsc);
    p->pair[p->npair++ % 16] = (double)(t1 - t0);
    m = p->npair < 16 ? p->npair : 16;
    memcpy(d, p->pair, m * sizeof *d);
    p->overhead = sb__median_inplace(d, m);
    return p->overhead;
}

int sb__probe_run_delay(const sb__probe *p, uint64_t *ns)
{
    char buf[128];
    ssize_t r;
    if (p->sched_fd < 0)
        return -1;
    r = pread(p->sched_fd, buf, sizeof buf - 1, 0);
    if (r <= 0)
        return -1;
    buf[r] = '\0';
    return sb__probe_parse_schedstat(buf, ns);
}

/* Ticks of an empty timer pair: the median of 101. */
static double pair_overhead(int tsc)
{
    double d[101];
    for (int i = 0; i < 101; i++) {
        uint64_t t0 = sb__timer_start(tsc);
        uint64_t t1 = sb__timer_stop(tsc);
        d[i] = (double)(t1 - t0);
    }
    return sb__median_inplace(d, 101);
}

/* The start-up check: an imul chain of n ops and an add chain of the same
 * cycles (3n ops), interleaved, so that a clock step lands on both. */
static void check_chains(sb__probe *p, uint64_t n)
{
    double im[CHECK_PAIRS], ad[CHECK_PAIRS];
    for (int i = 0; i < CHECK_PAIRS; i++) {
        uint64_t t0, t1, t2, t3;
        t0 = sb__timer_start(p->tsc);
        sb__arch_imul_chain(n);
        t1 = sb__timer_stop(p->tsc);
        t2 = sb__timer_start(p->tsc);
        sb__arch_add_chain(3 * n);
        t3 = sb__timer_stop(p->tsc);
        im[i] = ((double)(t1 - t0) - p->overhead) / (double)n;
        ad[i] = ((double)(t3 - t2) - p->overhead) / (double)(3 * n);
    }
    p->imul_tpo = sb__median_inplace(im, CHECK_PAIRS);
    p->add_tpo = sb__median_inplace(ad, CHECK_PAIRS);
}

static void open_schedstat(sb__probe *p)
{
    p->sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (p->sched_fd < 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat",
                 (long)syscall(SYS_gettid));
        p->sched_fd = open(path, O_RDONLY | O_CLOEXEC);
    }
}

void sb__probe_name_meta(sb_meta *meta)
{
    snprintf(meta->contention_probe, sizeof meta->contention_probe, "%s",
             sb__arch_have_chains() ? SB__PROBE_PATTERN : "");
}

int sb__probe_open(sb__probe *p, int tsc, double hz, sb_meta *meta,
                   sb_error *err)
{
    char why[200];
    uint64_t d;
    int passed = 0;

    memset(p, 0, sizeof *p);
    p->tsc = tsc;
    p->hz = hz;
    p->sched_fd = -1;
    sb__meta_probe_unknown(meta);
    meta->contention_margin = SB__PROBE_MARGIN;
    open_schedstat(p);
    if (p->sched_fd >= 0 && sb__probe_run_delay(p, &d) != 0) {
        close(p->sched_fd);
        p->sched_fd = -1;
    }
    if (p->sched_fd < 0)
        sb__meta_note(meta, "cpu-wait: not checked (no readable "
                            "/proc/thread-self/schedstat)");
    /* Without the chains only PAPI_TOT_CYC gives a core clock (aarch64's
     * PMU cycle counter, where PAPI's perf_event component knows the
     * core), and checks.c replaces this note when it is read: a note that
     * stays means neither. */
    if (!sb__arch_have_chains()) {
        snprintf(meta->probe, sizeof meta->probe, "none");
        snprintf(meta->probe_note, sizeof meta->probe_note,
                 "no PAPI_TOT_CYC read and no clock probe on this "
                 "architecture (the imul chain is x86-64's)");
        return SB_OK;
    }
    if (posix_memalign(&p->buf, 64, 4096) != 0)
        return sb__error(err, SB_ENOMEM, "out of memory");
    memset(p->buf, 1, 4096);
    p->ldst_reps = SB__PROBE_LDST_REPS;
    meta->probe_ldst_reps = SB__PROBE_LDST_REPS;
    p->overhead = pair_overhead(tsc);
    for (int i = 0; i < 16; i++)
        sb__probe_pair(p); /* the ring the samples keep up to date */
    /* A first pass warms the chains' code and lets the core settle. */
    check_chains(p, CHAIN_OPS);
    /* A CPU whose imul is not 3 adds fails every try; a disturbance fails
     * one (a timer pair timed while the hypervisor trapped the TSC takes
     * 5-10 times its 54 ticks off every chain and skews the ratio; a busy
     * host refused one invocation in a hundred here, which then measured
     * without a clock), so the check is tried again, the overhead with
     * it, before the probe is refused. */
    for (int t = 0; t < CHECK_TRIES && !passed; t++) {
        if (t)
            p->overhead = pair_overhead(tsc);
        check_chains(p, CHAIN_OPS);
        if (SB__PROBE_FORCE & 16)
            p->add_tpo = 0.54 / SB__PROBE_IMUL_CYCLES * p->imul_tpo;
        meta->probe_ratio = p->imul_tpo / p->add_tpo;
        passed = sb__probe_validate(p->imul_tpo, p->add_tpo,
                                    SB__PROBE_TOLERANCE, why, sizeof why);
    }
    if (!passed) {
        /* A core shared with another tenant for seconds slows the add
         * chain more than the imul chain (ratios of 2.3 seen here, in
         * five invocations running), and retries a few microseconds apart
         * do not outlast it; a CPU whose imul is not 3 adds fails in
         * every invocation.  So the clocks are computed all the same, and
         * the runner keeps them only if another invocation's check
         * passed (runner_collect.c); else it refuses the probe, as here. */
        snprintf(meta->probe, sizeof meta->probe, "unverified");
        snprintf(meta->probe_note, sizeof meta->probe_note,
                 "clock probe refused: %s", why);
        p->clock_unverified = isfinite(p->imul_tpo) && p->imul_tpo > 0;
        p->imul_ops = CHAIN_OPS;
        meta->probe_chain_ops = CHAIN_OPS;
        return SB_OK;
    }
    p->clock_ok = 1;
    p->imul_ops = CHAIN_OPS;
    meta->probe_chain_ops = CHAIN_OPS;
    snprintf(meta->probe, sizeof meta->probe, "imul-chain");
    snprintf(meta->probe_note, sizeof meta->probe_note, "%s", why);
    return SB_OK;
}

void sb__probe_close(sb__probe *p)
{
    if (p->sched_fd >= 0)
        close(p->sched_fd);
    p->sched_fd = -1;
    free(p->buf);
    p->buf = NULL;
}
