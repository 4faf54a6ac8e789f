/*
 * measure.c: one invocation of the measurement protocol (DESIGN.md,
 * steps 2 to 6), in the calling process.
 *
 *  1. Pin the thread to one CPU (the last allowed one unless told).
 *  2. Map one source and one destination buffer, page-aligned, big enough
 *     for the largest cell plus its offset, and pre-fault them; every cell
 *     uses them at its own offsets, so all cells see the same pages.
 *  3. Per cell: warm up until two successive batch medians agree within 2%,
 *     then calibrate k, the iterations per sample, so that a sample lasts
 *     opt->sample_seconds (50 us by default: over a thousand times the
 *     timer overhead, and short enough that a 250 Hz tick lands in about
 *     one sample in eighty).
 *  4. Rounds: each round visits every cell once, in a fresh random order
 *     from a seeded generator, so slow drift of the machine lands on all
 *     cells alike.  Every cell gets one sample per round, so all cells end
 *     with the same number of samples taken.
 *  5. Per sample: one untimed call brings the cell's buffers back into the
 *     cache after the other cells ran (the "hot" cache state), then k timed
 *     calls.  Context switches are read with getrusage(RUSAGE_THREAD) just
 *     outside the timed region; a sample with one is rejected.
 *  6. Stop when every cell's median CI half-width is within opt->precision
 *     of its median and every cell has opt->min_samples, or at
 *     opt->max_samples rounds, or when the budget is spent.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "run_internal.h"

/* Per-cell working state of one invocation. */
struct work {
    void *state; /* from the kernel's setup */
    int has_state;
    int cold;    /* flush the buffers before each timed call */
    char *dst;
    const char *src;
};

/* What one sample saw. */
struct sample {
    double ticks; /* per iteration, timer overhead subtracted */
    int ctxsw;    /* a context switch happened around it */
    double user, sys; /* CPU seconds of the thread during it */
};

/* The stop flag.  Before invocations fork, it moves to a shared page so
 * that a request in the parent (its SIGTERM handler, say) reaches the
 * child that is measuring, and one in the child reaches the parent. */
static volatile sig_atomic_t local_stop;
static volatile sig_atomic_t *volatile stop_flag = &local_stop;

void sb_run_request_stop(void)
{
    *stop_flag = 1;
}

int sb__stop_requested(void)
{
    return *stop_flag != 0;
}

void sb__stop_share(void)
{
    void *p;
    if (stop_flag != &local_stop)
        return;
    p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
             -1, 0);
    if (p == MAP_FAILED)
        return; /* the child then stops at the end of its budget */
    *(volatile sig_atomic_t *)p = local_stop;
    stop_flag = p; /* kept for the life of the process */
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

#ifdef SB_HAVE_X86_64
/* Evict [p, p + n) from every cache level: clflush each line, then mfence
 * so that the flushes are done before the timed call starts. */
static void flush_range(const void *p, size_t n)
{
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    const char *end = (const char *)p + n;
    for (; c < end; c += 64)
        __asm__ volatile("clflush %0" : : "m"(*(const volatile char *)c));
    __asm__ volatile("mfence" ::: "memory");
}
#endif

/* Choose and apply the CPU; fills meta->cpu and meta->pin_note. */
int sb__pin(const sb_options *opt, sb_meta *meta, cpu_set_t *saved,
            int *restore, sb_error *err)
{
    cpu_set_t one;
    int cpu = opt->cpu;
    char set[128];

    *restore = 0;
    meta->cpu = -1;
    if (opt->no_pin) {
        snprintf(meta->pin_note, sizeof meta->pin_note,
                 "not pinned (--no-pin)");
        return SB_OK;
    }
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return sb__error(err, SB_ESYS, "sched_getaffinity failed");
    sb__cpu_allowed(-1, set, sizeof set);
    if (cpu < 0) {
        for (int c = CPU_SETSIZE - 1; c >= 0; c--)
            if (CPU_ISSET(c, saved)) {
                cpu = c;
                break;
            }
        snprintf(meta->pin_note, sizeof meta->pin_note,
                 "the last of the allowed CPUs %s (CPU 0 takes most "
                 "housekeeping interrupts)", set);
    } else {
        snprintf(meta->pin_note, sizeof meta->pin_note,
                 "chosen with --cpu (allowed: %s)", set);
    }
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return sb__error(err, SB_ESYS, "cpu %d: sched_setaffinity failed",
                         cpu);
    *restore = 1;
    meta->cpu = cpu;
    return SB_OK;
}

static void *map_buffer(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int push_sample(sb__raw_cell *r, double v)
{
    if (r->nsamples == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        double *t = realloc(r->ticks, cap * sizeof *t);
        if (!t)
            return SB_ENOMEM;
        r->ticks = t;
        r->cap = cap;
    }
    r->ticks[r->nsamples++] = v;
    return SB_OK;
}

/* One timed sample of k iterations.  Hot: one untimed call first brings
 * the buffers back into the cache.  Cold: the buffers are flushed from
 * every cache level instead (k is then 1).  getrusage(RUSAGE_THREAD) just
 * outside the timed region tells context switches and CPU time. */
static struct sample take_sample(const sb_cell *c, struct work *w, size_t k,
                                 int tsc, double overhead)
{
    sb_kernel_fn fn = c->kernel->fn;
    struct rusage a, b;
    struct sample s;
    uint64_t t;
    int ok;

#ifdef SB_HAVE_X86_64
    if (w->cold) {
        flush_range(w->src, c->size);
        flush_range(w->dst, c->size);
    } else
#endif
        fn(w->dst, w->src, c->size, w->state); /* re-warm, untimed */
    ok = getrusage(RUSAGE_THREAD, &a) == 0;
    t = sb__timed_sample(tsc, fn, w->dst, w->src, c->size, w->state, k);
    ok = getrusage(RUSAGE_THREAD, &b) == 0 && ok;
    s.ticks = ((double)t - overhead) / (double)k;
    s.ctxsw = ok && (a.ru_nvcsw + a.ru_nivcsw != b.ru_nvcsw + b.ru_nivcsw);
    s.user = ok ? seconds(b.ru_utime) - seconds(a.ru_utime) : 0;
    s.sys = ok ? seconds(b.ru_stime) - seconds(a.ru_stime) : 0;
    return s;
}

static size_t iters_for(double per_iter, double target_ticks)
{
    double k = per_iter > 1 ? ceil(target_ticks / per_iter) : target_ticks;
    if (k < 1)
        k = 1;
    if (k > (double)(1u << 24))
        k = (double)(1u << 24);
    return (size_t)k;
}

/* Warm a cell up and calibrate its iterations per sample. */
static size_t warm_up(const sb_cell *c, sb__raw_cell *r, struct work *w,
                      int tsc, double overhead, double target_ticks,
                      double deadline)
{
    enum { BATCH = 8, MAX_BATCHES = 12 };
    double b[BATCH], prev = NAN, per_iter;

    /* A first estimate from single iterations. */
    for (int i = 0; i < BATCH; i++)
        b[i] = take_sample(c, w, 1, tsc, overhead).ticks;
    per_iter = sb__median_inplace(b, BATCH);
    for (int batch = 0; batch < MAX_BATCHES; batch++) {
        size_t k = w->cold ? 1 : iters_for(per_iter, target_ticks);
        double m;
        for (int i = 0; i < BATCH; i++)
            b[i] = take_sample(c, w, k, tsc, overhead).ticks;
        r->warmup_samples += BATCH;
        m = sb__median_inplace(b, BATCH);
        if (m > 0)
            per_iter = m;
        if (isfinite(prev) && fabs(m - prev) <= 0.02 * fabs(prev))
            break;
        prev = m;
        if (sb__now() > deadline || *stop_flag)
            break;
    }
    return w->cold ? 1 : iters_for(per_iter, target_ticks);
}

/* Relative half-width of the median CI of a cell's samples so far. */
static double rel_halfwidth(const sb__raw_cell *r, double level,
                            double *scratch)
{
    sb_interval ci;
    if (r->nsamples < 2)
        return INFINITY;
    memcpy(scratch, r->ticks, r->nsamples * sizeof *scratch);
    gsl_sort(scratch, 1, r->nsamples);
    if (sb_stats_median_ci(scratch, r->nsamples, level, &ci) != SB_OK ||
        !(ci.estimate > 0))
        return INFINITY;
    return (ci.hi - ci.lo) / 2 / ci.estimate;
}

void sb__invocation_free(sb__invocation *inv)
{
    for (size_t i = 0; inv->cells && i < inv->ncells; i++)
        free(inv->cells[i].ticks);
    free(inv->cells);
    inv->cells = NULL;
    inv->ncells = 0;
}

int sb__measure(const sb_plan *plan, const sb_options *opt, uint64_t seed,
                double budget, sb__invocation *inv, sb_error *err)
{
    size_t n = sb_plan_count(plan), src_bytes = 0, dst_bytes = 0;
    size_t *order = NULL, check_at = 0;
    struct work *w = NULL;
    char *src = NULL, *dst = NULL;
    double *scratch = NULL, t0, target, overhead;
    gsl_rng *rng = NULL;
    cpu_set_t saved;
    int restore = 0, rc, tsc;

    memset(inv, 0, sizeof *inv);
    inv->cells = calloc(n, sizeof *inv->cells);
    inv->ncells = n;
    w = calloc(n, sizeof *w);
    order = malloc(n * sizeof *order);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!inv->cells || !w || !order || !rng) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto out;
    }
    gsl_rng_set(rng, (unsigned long)seed);
    sb__meta_fill(&inv->meta);

    rc = sb__pin(opt, &inv->meta, &saved, &restore, err);
    if (rc != SB_OK)
        goto out;
    /* Measure the timer on the CPU the samples will run on. */
    rc = sb_timer_init(&inv->meta.timer, opt->force_clock_timer, err);
    if (rc != SB_OK)
        goto out;
    tsc = inv->meta.timer.kind == SB_TIMER_TSC;
    overhead = inv->meta.timer.overhead;
    target = opt->sample_seconds * inv->meta.timer.hz;

    sb__buffer_bytes(plan, &src_bytes, &dst_bytes);
    src = map_buffer(src_bytes);
    dst = map_buffer(dst_bytes);
    if (!src || !dst) {
        rc = sb__error(err, SB_ENOMEM,
                       "cannot map %zu + %zu bytes of buffers", src_bytes,
                       dst_bytes);
        goto out;
    }
    /* Pre-fault both buffers; the source gets a non-repeating pattern. */
    for (size_t i = 0; i < src_bytes; i++)
        src[i] = (char)(i * 131u + (i >> 12) + 7u);
    memset(dst, 0, dst_bytes);

    for (size_t i = 0; i < n; i++) {
        const sb_cell *c = sb_plan_cell(plan, i);
        w[i].src = src + c->src_align;
        w[i].dst = dst + c->dst_align;
        w[i].cold = opt->cache == SB_CACHE_COLD &&
                    c->kernel->family != SB_FAMILY_ALLOC;
        if (c->kernel->setup) {
            rc = c->kernel->setup(&w[i].state, c, err);
            if (rc != SB_OK)
                goto out;
            w[i].has_state = 1;
        }
        order[i] = i;
    }

    /* Warm-up and calibration take at most a tenth of the budget. */
    t0 = sb__now();
    for (size_t i = 0; i < n && !*stop_flag; i++) {
        double deadline = t0 + 0.1 * budget * (double)(i + 1) / (double)n;
        inv->cells[i].iters =
            warm_up(sb_plan_cell(plan, i), &inv->cells[i], &w[i], tsc,
                    overhead, target, deadline);
    }

    while (!*stop_flag) {
        int done;
        gsl_ran_shuffle(rng, order, n, sizeof *order);
        for (size_t j = 0; j < n && !*stop_flag; j++) {
            sb__raw_cell *r = &inv->cells[order[j]];
            struct sample v = take_sample(sb_plan_cell(plan, order[j]),
                                          &w[order[j]], r->iters, tsc,
                                          overhead);
            if (v.ctxsw) {
                r->rejected[SB_REJECT_CTXSW]++;
                continue;
            }
            r->user += v.user;
            r->sys += v.sys;
            r->calls += r->iters;
            if (push_sample(r, v.ticks) != SB_OK) {
                rc = sb__error(err, SB_ENOMEM, "out of memory for samples");
                goto out;
            }
        }
        if (*stop_flag)
            break; /* the partial round's samples are kept */
        inv->rounds++;
        inv->elapsed = sb__now() - t0;
        if (opt->progress &&
            opt->progress(opt->progress_arg, inv->rounds, inv->elapsed)) {
            *stop_flag = 1;
            break;
        }
        if (inv->rounds >= opt->max_samples || inv->elapsed >= budget)
            break;
        if (inv->rounds < opt->min_samples || inv->rounds < check_at)
            continue;
        /* The stop rule sorts every cell: check it at rounds that grow by
         * about 1/16 each time, so its cost stays a small part of the run. */
        check_at = inv->rounds + 1 + inv->rounds / 16;
        {
            double *t = realloc(scratch, inv->rounds * sizeof *t);
            if (!t) {
                rc = sb__error(err, SB_ENOMEM, "out of memory");
                goto out;
            }
            scratch = t;
        }
        done = 1;
        for (size_t i = 0; i < n && done; i++)
            done = inv->cells[i].nsamples >= opt->min_samples &&
                   rel_halfwidth(&inv->cells[i], opt->ci_level, scratch) <=
                       opt->precision;
        if (done)
            break;
    }
    inv->interrupted = *stop_flag != 0;
    inv->elapsed = sb__now() - t0;
    rc = SB_OK;

out:
    if (restore)
        sched_setaffinity(0, sizeof saved, &saved);
    for (size_t i = 0; w && i < n; i++)
        if (w[i].has_state && sb_plan_cell(plan, i)->kernel->teardown)
            sb_plan_cell(plan, i)->kernel->teardown(w[i].state);
    if (src)
        munmap(src, src_bytes);
    if (dst)
        munmap(dst, dst_bytes);
    free(w);
    free(scratch);
    free(order);
    gsl_rng_free(rng);
    if (rc != SB_OK)
        sb__invocation_free(inv);
    return rc;
}

void sb__stop_reset(void)
{
    *stop_flag = 0;
}
