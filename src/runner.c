/*
 * runner.c: the measurement protocol of DESIGN.md, steps 2 to 7.
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
 *     opt->max_samples rounds, or after opt->max_time seconds.
 */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "sb_internal.h"

struct sb_run {
    sb_options opt;
    sb_meta meta;
    sb_cell_result *cells;
    size_t ncells;
    int interrupted;
    double elapsed;
    size_t rounds;
    char *command;
};

/* Per-cell working state, private to one execution. */
struct work {
    void *state;      /* from the kernel's setup */
    int has_state;
    char *dst;
    const char *src;
    size_t cap;       /* capacity of the result's ticks array */
};

static volatile sig_atomic_t stop_requested;

void sb_run_request_stop(void)
{
    stop_requested = 1;
}

static long context_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return -1;
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Choose and apply the CPU; fills meta->cpu and meta->pin_note. */
static int pin(const sb_options *opt, sb_meta *meta, cpu_set_t *saved,
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

static int push_sample(sb_cell_result *r, struct work *w, double v)
{
    if (r->nsamples == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        double *t = realloc(r->ticks, cap * sizeof *t);
        if (!t)
            return SB_ENOMEM;
        r->ticks = t;
        w->cap = cap;
    }
    r->ticks[r->nsamples++] = v;
    return SB_OK;
}

/* One timed sample of k iterations; returns ticks per iteration with the
 * harness overhead subtracted, or NAN when a context switch was seen. */
static double take_sample(const sb_cell *c, struct work *w, size_t k,
                          int tsc, double overhead, int *ctxsw)
{
    sb_kernel_fn fn = c->kernel->fn;
    long before, after;
    uint64_t t;

    fn(w->dst, w->src, c->size, w->state); /* re-warm, untimed */
    before = context_switches();
    t = sb__timed_sample(tsc, fn, w->dst, w->src, c->size, w->state, k);
    after = context_switches();
    *ctxsw = before != after;
    return ((double)t - overhead) / (double)k;
}

/* Warm a cell up and calibrate its iterations per sample. */
static size_t warm_up(sb_cell_result *r, struct work *w, int tsc,
                      double overhead, double target_ticks, double deadline)
{
    enum { BATCH = 8, MAX_BATCHES = 12 };
    double b[BATCH], prev = NAN, per_iter = NAN;
    size_t k;
    int sw;

    /* A first estimate from single iterations. */
    for (int i = 0; i < BATCH; i++)
        b[i] = take_sample(&r->cell, w, 1, tsc, overhead, &sw);
    per_iter = sb__median_inplace(b, BATCH);
    for (int batch = 0; batch < MAX_BATCHES; batch++) {
        double m;
        k = per_iter > 1 ? (size_t)ceil(target_ticks / per_iter) : 1;
        if (per_iter <= 1)
            k = (size_t)target_ticks;
        if (k < 1)
            k = 1;
        if (k > (1u << 24))
            k = 1u << 24;
        for (int i = 0; i < BATCH; i++)
            b[i] = take_sample(&r->cell, w, k, tsc, overhead, &sw);
        r->warmup_samples += BATCH;
        m = sb__median_inplace(b, BATCH);
        if (m > 0)
            per_iter = m;
        if (isfinite(prev) && fabs(m - prev) <= 0.02 * fabs(prev))
            break;
        prev = m;
        if (sb__now() > deadline || stop_requested)
            break;
    }
    k = per_iter > 1 ? (size_t)ceil(target_ticks / per_iter)
                     : (size_t)target_ticks;
    if (k < 1)
        k = 1;
    if (k > (1u << 24))
        k = 1u << 24;
    return k;
}

/* Relative half-width of the median CI of a cell's samples so far. */
static double rel_halfwidth(const sb_cell_result *r, double level,
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

static int finish_cell(sb_cell_result *r, const sb_run *run)
{
    double hz = run->meta.timer.hz;
    double *work;
    int rc;

    r->mbps = (sb_interval){NAN, NAN, NAN, run->opt.ci_level, NAN};
    r->cycles_per_byte = NAN;
    r->rel_halfwidth = NAN;
    r->reached_precision = 0;
    if (r->nsamples == 0)
        return SB_OK;
    work = malloc(r->nsamples * sizeof *work);
    if (!work)
        return SB_ENOMEM;
    rc = sb_stats_summarize(r->ticks, r->nsamples, run->opt.ci_level, work,
                            &r->ticks_summary);
    free(work);
    if (rc != SB_OK)
        return rc;
    {
        const sb_interval *m = &r->ticks_summary.median;
        double bytes = (double)r->cell.size;
        /* Throughput falls as time rises: the CI's ends swap. */
        r->mbps.estimate = bytes * hz / m->estimate / 1e6;
        r->mbps.lo = bytes * hz / m->hi / 1e6;
        r->mbps.hi = bytes * hz / m->lo / 1e6;
        r->mbps.achieved = m->achieved;
        if (r->cell.size > 0)
            r->cycles_per_byte = m->estimate / bytes;
        r->rel_halfwidth = (m->hi - m->lo) / 2 / m->estimate;
        r->reached_precision = r->nsamples >= 2 &&
                               r->rel_halfwidth <= run->opt.precision &&
                               m->achieved >= m->level;
    }
    return SB_OK;
}

static void release(struct work *w, const sb_run *run)
{
    for (size_t i = 0; w && i < run->ncells; i++)
        if (w[i].has_state && run->cells[i].cell.kernel->teardown)
            run->cells[i].cell.kernel->teardown(w[i].state);
    free(w);
}

int sb_run_execute(const sb_plan *plan, const sb_options *opt, sb_run **out,
                   sb_error *err)
{
    sb_run *run = NULL;
    struct work *w = NULL;
    size_t src_bytes = 0, dst_bytes = 0, *order = NULL;
    char *src = NULL, *dst = NULL;
    double *scratch = NULL;
    gsl_rng *rng = NULL;
    cpu_set_t saved;
    int restore = 0, rc, tsc;
    double t0, target, overhead;
    size_t check_at = 0;

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "sb_run_execute: out is NULL");
    *out = NULL;
    if ((rc = sb_plan_check(plan, opt, err)) != SB_OK)
        return rc;
    stop_requested = 0;

    run = calloc(1, sizeof *run);
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    run->opt = *opt;
    run->ncells = sb_plan_count(plan);
    run->cells = calloc(run->ncells, sizeof *run->cells);
    w = calloc(run->ncells, sizeof *w);
    order = malloc(run->ncells * sizeof *order);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!run->cells || !w || !order || !rng) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto fail;
    }
    gsl_rng_set(rng, (unsigned long)opt->seed);
    sb__meta_fill(&run->meta);

    rc = pin(opt, &run->meta, &saved, &restore, err);
    if (rc != SB_OK)
        goto fail;
    /* Measure the timer on the CPU the samples will run on. */
    rc = sb_timer_init(&run->meta.timer, opt->force_clock_timer, err);
    if (rc != SB_OK)
        goto fail;
    tsc = run->meta.timer.kind == SB_TIMER_TSC;
    overhead = run->meta.timer.overhead;
    target = opt->sample_seconds * run->meta.timer.hz;

    sb__buffer_bytes(plan, &src_bytes, &dst_bytes);
    src = map_buffer(src_bytes);
    dst = map_buffer(dst_bytes);
    if (!src || !dst) {
        rc = sb__error(err, SB_ENOMEM,
                       "cannot map %zu + %zu bytes of buffers", src_bytes,
                       dst_bytes);
        goto fail;
    }
    /* Pre-fault both buffers; the source gets a non-repeating pattern. */
    for (size_t i = 0; i < src_bytes; i++)
        src[i] = (char)(i * 131u + (i >> 12) + 7u);
    memset(dst, 0, dst_bytes);

    for (size_t i = 0; i < run->ncells; i++) {
        sb_cell_result *r = &run->cells[i];
        r->cell = *sb_plan_cell(plan, i);
        w[i].src = src + r->cell.src_align;
        w[i].dst = dst + r->cell.dst_align;
        if (r->cell.kernel->setup) {
            rc = r->cell.kernel->setup(&w[i].state, r->cell.size, err);
            if (rc != SB_OK)
                goto fail;
            w[i].has_state = 1;
        }
        order[i] = i;
    }

    /* Warm-up and calibration take at most a tenth of the time budget. */
    t0 = sb__now();
    for (size_t i = 0; i < run->ncells && !stop_requested; i++) {
        double deadline = t0 + 0.1 * opt->max_time * (double)(i + 1) /
                                   (double)run->ncells;
        run->cells[i].iters =
            warm_up(&run->cells[i], &w[i], tsc, overhead, target, deadline);
    }

    while (!stop_requested) {
        int done;
        gsl_ran_shuffle(rng, order, run->ncells, sizeof *order);
        for (size_t j = 0; j < run->ncells && !stop_requested; j++) {
            sb_cell_result *r = &run->cells[order[j]];
            int sw;
            double v = take_sample(&r->cell, &w[order[j]], r->iters, tsc,
                                   overhead, &sw);
            if (sw) {
                r->rejected[SB_REJECT_CTXSW]++;
                r->rejected_total++;
            } else if (push_sample(r, &w[order[j]], v) != SB_OK) {
                rc = sb__error(err, SB_ENOMEM, "out of memory for samples");
                goto fail;
            }
        }
        if (stop_requested)
            break; /* the partial round's samples are kept */
        run->rounds++;
        run->elapsed = sb__now() - t0;
        if (opt->progress &&
            opt->progress(opt->progress_arg, run->rounds, run->elapsed)) {
            stop_requested = 1;
            break;
        }
        if (run->rounds >= opt->max_samples || run->elapsed >= opt->max_time)
            break;
        if (run->rounds < opt->min_samples || run->rounds < check_at)
            continue;
        /* The stop rule sorts every cell: check it at rounds that grow by
         * about 1/16 each time, so its cost stays a small part of the run. */
        check_at = run->rounds + 1 + run->rounds / 16;
        {
            double *t = realloc(scratch, run->rounds * sizeof *t);
            if (!t) {
                rc = sb__error(err, SB_ENOMEM, "out of memory");
                goto fail;
            }
            scratch = t;
        }
        done = 1;
        for (size_t i = 0; i < run->ncells && done; i++)
            done = run->cells[i].nsamples >= opt->min_samples &&
                   rel_halfwidth(&run->cells[i], opt->ci_level, scratch) <=
                       opt->precision;
        if (done)
            break;
    }
    run->interrupted = stop_requested != 0;
    run->elapsed = sb__now() - t0;

    for (size_t i = 0; i < run->ncells; i++) {
        rc = finish_cell(&run->cells[i], run);
        if (rc != SB_OK) {
            sb__error(err, rc, "statistics failed for cell %zu: %s", i,
                      sb_strerror(rc));
            goto fail;
        }
    }
    rc = SB_OK;
    *out = run;
    run = NULL;

fail:
    if (restore)
        sched_setaffinity(0, sizeof saved, &saved);
    if (run) {
        release(w, run);
        w = NULL;
        sb_run_free(run);
    } else if (*out) {
        release(w, *out);
    }
    if (src)
        munmap(src, src_bytes);
    if (dst)
        munmap(dst, dst_bytes);
    free(scratch);
    free(order);
    gsl_rng_free(rng);
    return rc;
}

void sb_run_free(sb_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; run->cells && i < run->ncells; i++)
        free(run->cells[i].ticks);
    free(run->cells);
    free(run->command);
    free(run);
}

size_t sb_run_count(const sb_run *run)
{
    return run ? run->ncells : 0;
}

const sb_cell_result *sb_run_cell(const sb_run *run, size_t i)
{
    return run && i < run->ncells ? &run->cells[i] : NULL;
}

const sb_meta *sb_run_meta(const sb_run *run)
{
    return run ? &run->meta : NULL;
}

const sb_options *sb_run_options(const sb_run *run)
{
    return run ? &run->opt : NULL;
}

int sb_run_interrupted(const sb_run *run)
{
    return run ? run->interrupted : 0;
}

double sb_run_elapsed(const sb_run *run)
{
    return run ? run->elapsed : 0;
}

size_t sb_run_rounds(const sb_run *run)
{
    return run ? run->rounds : 0;
}

const char *sb_run_command(const sb_run *run)
{
    return run && run->command ? run->command : "";
}

int sb_run_set_command(sb_run *run, int argc, char *const argv[],
                       sb_error *err)
{
    size_t len = 1;
    char *s;

    if (!run || argc < 0 || (argc > 0 && !argv))
        return sb__error(err, SB_EINVAL, "sb_run_set_command: bad argument");
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    s = malloc(len);
    if (!s)
        return sb__error(err, SB_ENOMEM, "out of memory");
    s[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    free(run->command);
    run->command = s;
    return SB_OK;
}
