/* plan.c: the list of cells a run measures, and the options it runs with. */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "counters.h"
#include "loaded.h"
#include "plan.h"
#include "run_internal.h"
#include "sysinfo.h"
#include "text.h"

struct sb__bench;

struct sb_plan {
    sb_cell *cells;
    size_t n, cap;
    struct sb__bench *benches; /* sb_bench_add's kernels, owned */
};

/* A named benchmark: a kernel of the copy family owned by the plan, with
 * the caller's state and hooks.  k comes first, so that the kernel
 * pointer a cell holds leads back to its bench (bench_setup). */
struct sb__bench {
    sb_kernel k;
    void *state;
    sb_bench_setup_fn setup;
    sb_bench_teardown_fn teardown;
    struct sb__bench *next;
    char name[];
};

sb_plan *sb_plan_new(void)
{
    return calloc(1, sizeof(sb_plan));
}

void sb_plan_free(sb_plan *plan)
{
    if (!plan)
        return;
    while (plan->benches) {
        struct sb__bench *b = plan->benches;
        plan->benches = b->next;
        free(b);
    }
    free(plan->cells);
    free(plan);
}

int sb_plan_add(sb_plan *plan, const sb_kernel *kernel, size_t size,
                size_t src_align, size_t dst_align, sb_error *err)
{
    if (!plan)
        return sb__error(err, SB_EINVAL, "sb_plan_add: plan is NULL");
    if (!kernel)
        return sb__error(err, SB_EINVAL, "sb_plan_add: kernel is NULL");
    /* Before any other field: with another size they lie elsewhere. */
    if (kernel->size != sizeof(sb_kernel))
        return sb__error(err, SB_EINVAL,
                         "sb_plan_add: sb_kernel.size %zu: unknown to this "
                         "library (%zu: set .size = sizeof(sb_kernel))",
                         kernel->size, sizeof(sb_kernel));
    /* Reports, JSON and comparisons all use the name. */
    if (!kernel->name || !*kernel->name)
        return sb__error(err, SB_EINVAL,
                         "sb_plan_add: the kernel's name is %s",
                         kernel->name ? "empty" : "NULL");
    /* Names are printed as they are in every table: a control character
     * (an escape sequence) is refused here, at the one door a live run's
     * names come in by; a loaded run's are cleaned by the loader. */
    for (const char *p = kernel->name; *p;) {
        int control;
        p += sb__char_len(p, &control);
        if (control)
            return sb__error(err, SB_EINVAL,
                             "sb_plan_add: the kernel's name holds a control "
                             "character or invalid UTF-8");
    }
    if (!kernel->fn)
        return sb__error(err, SB_EINVAL, "sb_plan_add: kernel %s: fn is NULL",
                         kernel->name);
    /* A kernel of the caller's under a built-in's name would be taken for
     * that one by every report and comparison of the run's file. */
    if (sb_kernel_find(kernel->name) &&
        sb_kernel_find(kernel->name) != kernel)
        return sb__error(err, SB_EINVAL,
                         "sb_plan_add: %s is the name of a built-in kernel: "
                         "give yours another", kernel->name);
    if ((int)kernel->family < SB_FAMILY_COPY ||
        (int)kernel->family > SB_FAMILY_EXTERNAL)
        return sb__error(err, SB_EINVAL,
                         "sb_plan_add: kernel %s: family %d is not an enum "
                         "sb_family value", kernel->name, (int)kernel->family);
    if (src_align >= SB_PAGE_SIZE || dst_align >= SB_PAGE_SIZE)
        return sb__error(err, SB_EINVAL,
                         "alignment %zu: must be below the page size %d",
                         src_align >= SB_PAGE_SIZE ? src_align : dst_align,
                         SB_PAGE_SIZE);
    if (plan->n >= SB__MAX_CELLS)
        return sb__error(err, SB_EINVAL,
                         "the plan has more than %d cells: measure fewer "
                         "kernels, sizes or offsets at once", SB__MAX_CELLS);
    if (plan->n == plan->cap) {
        size_t cap = plan->cap ? 2 * plan->cap : 16;
        sb_cell *c = realloc(plan->cells, cap * sizeof *c);
        if (!c)
            return sb__error(err, SB_ENOMEM, "out of memory for the plan");
        plan->cells = c;
        plan->cap = cap;
    }
    plan->cells[plan->n++] =
        (sb_cell){.kernel = kernel,
                  .size = size,
                  .src_align = src_align,
                  .dst_align = dst_align};
    return SB_OK;
}

int sb__cell_order(const sb_cell *a, const sb_cell *b)
{
    int c = strcmp(a->kernel->name, b->kernel->name);

    /* Then by size, source and destination offset: -1, 0 or 1 each. */
    if (!c)
        c = (a->size > b->size) - (a->size < b->size);
    if (!c)
        c = (a->src_align > b->src_align) - (a->src_align < b->src_align);
    if (!c)
        c = (a->dst_align > b->dst_align) - (a->dst_align < b->dst_align);
    return c;
}

int sb__cell_order_at(const sb_cell *a, size_t ia, const sb_cell *b,
                      size_t ib)
{
    int c = sb__cell_order(a, b);
    if (c)
        return c;
    return ia < ib ? -1 : ia > ib;
}

struct cell_key {
    const sb_cell *c;
    size_t index;
};

static int key_cmp(const void *a, const void *b)
{
    const struct cell_key *x = a, *y = b;
    return sb__cell_order_at(x->c, x->index, y->c, y->index);
}

size_t sb__cell_duplicate(const sb_cell *first, size_t n, size_t stride,
                          size_t *earlier)
{
    struct cell_key *k = malloc((n + 1) * sizeof *k);
    size_t found = SIZE_MAX;

    *earlier = SIZE_MAX;
    if (!k)
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        const sb_cell *c =
            (const sb_cell *)(const void *)((const char *)first + i * stride);
        if (!c->kernel || !c->kernel->name) {
            free(k);
            return SIZE_MAX; /* not a cell yet: nothing to compare */
        }
        k[i] = (struct cell_key){c, i};
    }
    qsort(k, n, sizeof *k, key_cmp);
    /* Of every pair of equal neighbours, the one listed later; the first
     * in the list of those reported. */
    for (size_t i = 1; i < n; i++)
        if (!sb__cell_order(k[i].c, k[i - 1].c) &&
            (found == SIZE_MAX || k[i].index < found)) {
            found = k[i].index;
            *earlier = k[i - 1].index;
        }
    free(k);
    return found;
}

const char *sb__cell_text(const sb_cell *c, char *buf, size_t len)
{
    snprintf(buf, len, "%.64s, %zu bytes, offsets %zu/%zu",
             c->kernel && c->kernel->name ? c->kernel->name : "?", c->size,
             c->src_align, c->dst_align);
    return buf;
}

size_t sb_plan_count(const sb_plan *plan)
{
    return plan ? plan->n : 0;
}

const sb_cell *sb_plan_cell(const sb_plan *plan, size_t i)
{
    return plan && i < plan->n ? &plan->cells[i] : NULL;
}

/* The defaults of each part of the options, which its _init copies. */
static const sb_measure_options measure_defaults = {
    .size = sizeof(sb_measure_options),
    .max_time = 30.0,
    .min_samples = 100,
    .max_samples = 10000,
    .seed = 1,
    .cpu = -1,
    .no_pin = 0,
    .sample_seconds = 50e-6,
    .force_clock_timer = 0,
    .invocations = 6,
    .max_invocations = 100,
    .cache = SB_CACHE_HOT,
    .counters = NULL,
    .reject = SB_REJECT_DISTURBED,
    .rt = 0,
    .mlock = 1,
};

void sb_measure_options_init(sb_measure_options *m)
{
    if (m)
        *m = measure_defaults;
}

static const sb_analysis_options analysis_defaults = {
    .size = sizeof(sb_analysis_options),
    .ci_level = 0.95,
    .precision = 0.01,
    .outliers = SB_OUTLIERS_KEEP,
    .bootstrap = 0,
    .alpha = 0.05,
    .threshold = 0.01,
    .metric = SB_METRIC_AUTO,
    .inconclusive = SB_INCONCLUSIVE_FAIL,
    .shared_margin = -1,
    .run_sd = -1,
    .chain_apart = -1,
};

void sb_analysis_options_init(sb_analysis_options *a)
{
    if (a)
        *a = analysis_defaults;
}

/* The sizes of each part's layouts this library reads, the current one
 * first.  A later release that adds fields at the end appends its new
 * sizeof and keeps the older ones here: a caller built against an older
 * header is then read with the later fields at their defaults (the
 * layouts are prefixes of each other).  The flat sb_options of 0.1.0 is
 * not read: it belongs to soname 0, and soname 1 (not yet released) has
 * had no other layout. */
static const size_t measure_sizes[] = {sizeof(sb_measure_options)};
static const size_t analysis_sizes[] = {sizeof(sb_analysis_options)};

int sb__options_part(const void *in, size_t size, void *full,
                     size_t fullsize, const size_t *known, size_t nknown,
                     const char *what, const char *init, const char *who,
                     sb_error *err)
{
    for (size_t i = 0; i < nknown; i++)
        if (size == known[i]) {
            memcpy(full, in, size);
            /* The size field comes first in every layout. */
            memcpy(full, &fullsize, sizeof fullsize);
            return SB_OK;
        }
    return sb__error(err, SB_EINVAL,
                     "%s: %s.size %zu: unknown to this library (%zu; fill "
                     "the options with %s)",
                     who, what, size, fullsize, init);
}

/* Each part as sb__options_part reads it: its defaults, the sizes of its
 * layouts above (the current one first), the struct's name and its
 * _init's. */
struct part {
    const void *defaults;
    const size_t *known;
    size_t nknown;
    const char *what, *init;
};

static const struct part measure_part = {
    &measure_defaults, measure_sizes,
    sizeof measure_sizes / sizeof *measure_sizes, "sb_measure_options",
    "sb_measure_options_init"};
static const struct part analysis_part = {
    &analysis_defaults, analysis_sizes,
    sizeof analysis_sizes / sizeof *analysis_sizes, "sb_analysis_options",
    "sb_analysis_options_init"};

/* in, a caller's struct of part p or NULL, into full: the defaults, then
 * the caller's fields. */
static int part_get(const void *in, void *full, const struct part *p,
                    const char *who, sb_error *err)
{
    size_t size;

    memcpy(full, p->defaults, p->known[0]);
    if (!in)
        return SB_OK;
    /* The size field comes first in every layout. */
    memcpy(&size, in, sizeof size);
    return sb__options_part(in, size, full, p->known[0], p->known,
                            p->nknown, p->what, p->init, who, err);
}

int sb__measure_get(const sb_measure_options *m, sb_measure_options *full,
                    const char *who, sb_error *err)
{
    return part_get(m, full, &measure_part, who, err);
}

int sb__analysis_get(const sb_analysis_options *a, sb_analysis_options *full,
                     const char *who, sb_error *err)
{
    return part_get(a, full, &analysis_part, who, err);
}

int sb_precision_check(double precision, sb_error *err)
{
    if (!(precision >= 0 && precision < 1))
        return sb__error(err, SB_EINVAL,
                         "precision %g: must lie in [0, 1) (0: no target)",
                         precision);
    return SB_OK;
}

int sb_analysis_options_check(const sb_analysis_options *in, sb_error *err)
{
    sb_analysis_options full;
    const sb_analysis_options *a = &full;
    int rc;
    if (!in)
        return sb__error(err, SB_EINVAL,
                         "sb_analysis_options_check: a is NULL");
    if ((rc = sb__analysis_get(in, &full, "sb_analysis_options_check",
                               err)) != SB_OK)
        return rc;
    if (!(a->ci_level > 0 && a->ci_level < 1))
        return sb__error(err, SB_EINVAL,
                         "confidence level %g: must lie strictly between 0 "
                         "and 1 (0 and 100 %%)", a->ci_level);
    if ((rc = sb_precision_check(a->precision, err)) != SB_OK)
        return rc;
    /* As ints: gcc makes an enum without negative values unsigned, and a
     * caller may have stored -1 (an unknown name's _parse). */
    if ((int)a->outliers < SB_OUTLIERS_KEEP ||
        (int)a->outliers > SB_OUTLIERS_REJECT_ALL)
        return sb__error(err, SB_EINVAL, "outlier policy %d: unknown",
                         (int)a->outliers);
    if (a->bootstrap != 0 && (a->bootstrap < 100 || a->bootstrap > 1000000))
        return sb__error(err, SB_EINVAL,
                         "bootstrap %zu: use 0 (off) or 100 to 1000000 "
                         "resamples", a->bootstrap);
    if (!(a->alpha > 0 && a->alpha < 1))
        return sb__error(err, SB_EINVAL,
                         "alpha %g: must lie strictly between 0 and 1",
                         a->alpha);
    if (!(a->threshold >= 0 && a->threshold < 1))
        return sb__error(err, SB_EINVAL,
                         "threshold %g: must lie in [0, 1)", a->threshold);
    if ((int)a->metric < SB_METRIC_AUTO || (int)a->metric > SB_METRIC_CYCLES)
        return sb__error(err, SB_EINVAL, "metric %d: unknown", (int)a->metric);
    if (!strcmp(sb_inconclusive_policy_name((int)a->inconclusive), "?"))
        return sb__error(err, SB_EINVAL, "inconclusive policy %d: unknown",
                         (int)a->inconclusive);
    if (!strcmp(sb_shared_level_name((int)a->shared_level), "?"))
        return sb__error(err, SB_EINVAL, "shared-core level %d: unknown",
                         (int)a->shared_level);
    if (!(a->shared_margin < 1) || isnan(a->shared_margin))
        return sb__error(err, SB_EINVAL,
                         "shared-core margin %g: use a negative value (as "
                         "measured), 0 (the refitted model's own) or a "
                         "share below 1", a->shared_margin);
    if (!(a->run_sd < 1) || isnan(a->run_sd))
        return sb__error(err, SB_EINVAL,
                         "run-to-run sd %g: use a negative value (not "
                         "known), 0 or a share below 1", a->run_sd);
    if (isnan(a->chain_apart) ||
        (a->chain_apart >= 0 &&
         !(a->chain_apart >= 1 && a->chain_apart <= SB_CHAIN_APART_MAX)))
        return sb__error(err, SB_EINVAL,
                         "chain ratio %g: use a negative value (the clock "
                         "as measured) or a ratio from 1 to %g",
                         a->chain_apart, SB_CHAIN_APART_MAX);
    return SB_OK;
}

/* The measure options that need no plan. */
int sb__measure_check(const sb_measure_options *opt, sb_error *err)
{
    int rc;

    if (opt->invocations < 1 || opt->invocations > 1000)
        return sb__error(err, SB_EINVAL,
                         "invocations %zu: must lie between 1 and 1000",
                         opt->invocations);
    if (opt->max_invocations > 1000)
        return sb__error(err, SB_EINVAL,
                         "max invocations %zu: must be at most 1000",
                         opt->max_invocations);
    if (!(opt->quiet_prior >= 0) || !isfinite(opt->quiet_prior))
        return sb__error(err, SB_EINVAL,
                         "quiet prior %g: not a quiet level (finite, >= 0; "
                         "0: none)", opt->quiet_prior);
    if (opt->reject != SB_REJECT_DISTURBED && opt->reject != SB_REJECT_NONE)
        return sb__error(err, SB_EINVAL, "reject policy %d: unknown",
                         (int)opt->reject);
    if (opt->counters) {
        char names[SB_MAX_COUNTERS][64];
        size_t n;
        rc = sb__counters_parse(opt->counters, names, SB_MAX_COUNTERS, &n,
                                err);
        if (rc == SB_OK)
            rc = sb__counters_check_names((const char (*)[64])names, n,
                                          err);
        if (rc != SB_OK)
            return rc;
    }
    return SB_OK;
}

int sb__buffer_bytes(const sb_plan *plan, size_t *src_bytes,
                     size_t *dst_bytes)
{
    size_t s = 0, d = 0;
    for (size_t i = 0; i < plan->n; i++) {
        const sb_cell *c = &plan->cells[i];
        if (c->kernel->flags & SB_KERNEL_OWN_MEMORY)
            continue; /* allocates its own memory */
        if (c->size > SIZE_MAX / 2 - 2 * SB_PAGE_SIZE)
            return -1;
        /* Every other kernel gets a source of the cell's size: copy and
         * write read it, and --cache cold flushes it. */
        if (c->size + c->src_align > s)
            s = c->size + c->src_align;
        if (c->size + c->dst_align > d)
            d = c->size + c->dst_align;
    }
    /* Round up to whole pages, at least one page each. */
    *src_bytes = (s / SB_PAGE_SIZE + 1) * SB_PAGE_SIZE;
    *dst_bytes = (d / SB_PAGE_SIZE + 1) * SB_PAGE_SIZE;
    return 0;
}

/* One cell measured twice would be two rows of one name, and a file
 * that compare and --against read by name. */
static int plan_duplicate_refused(const sb_plan *plan, sb_error *err)
{
    size_t before, twice = sb__cell_duplicate(plan->cells, plan->n,
                                              sizeof *plan->cells, &before);
    char nm[128];

    if (twice != SIZE_MAX)
        return sb__error(err, SB_EINVAL,
                         "the plan lists the cell %s twice (cells %zu "
                         "and %zu)",
                         sb__cell_text(&plan->cells[twice], nm, sizeof nm),
                         before, twice);
    return SB_OK;
}

/* The budget and the samples: a positive time, samples of at most a
 * second, at least two of them. */
static int sampling_refused(const sb_measure_options *opt, sb_error *err)
{
    if (!(opt->max_time > 0) || !isfinite(opt->max_time))
        return sb__error(err, SB_EINVAL, "max time %g s: must be positive",
                         opt->max_time);
    if (!(opt->sample_seconds > 0) || opt->sample_seconds > 1)
        return sb__error(err, SB_EINVAL,
                         "sample length %g s: must lie in (0, 1]",
                         opt->sample_seconds);
    if (opt->min_samples < 2)
        return sb__error(err, SB_EINVAL,
                         "min samples %zu: need at least 2", opt->min_samples);
    if (opt->max_samples < opt->min_samples)
        return sb__error(err, SB_EINVAL,
                         "max samples %zu is below min samples %zu",
                         opt->max_samples, opt->min_samples);
    return SB_OK;
}

/* The CPU to pin to: -1 or a CPU number, and when pinning, one that is
 * online and inside this process's affinity mask. */
static int cpu_refused(const sb_measure_options *opt, sb_error *err)
{
    char set[128];
    int ok;

    if (opt->cpu < -1)
        return sb__error(err, SB_EINVAL,
                         "cpu %d: not a CPU (-1 picks one, else a CPU "
                         "number from 0)", opt->cpu);
    if (opt->no_pin || opt->cpu < 0)
        return SB_OK;
    ok = sb__cpu_allowed(opt->cpu, set, sizeof set);
    if (ok < 0)
        return sb__error(err, SB_ESYS, "sched_getaffinity failed");
    if (!ok)
        return sb__error(err, SB_EINVAL, "cpu %d: no such CPU (online: %s)",
                         opt->cpu, set);
    /* taskset -c 0 statbench --cpu 1 is two answers to one question: the
     * mask was left (any process may widen its own mask), now the
     * contradiction is refused. */
    ok = sb__cpu_may_use("", opt->cpu, set, sizeof set);
    if (ok < 0)
        return sb__error(err, SB_ESYS, "sched_getaffinity failed");
    if (!ok)
        return sb__error(err, SB_EINVAL,
                         "cpu %d: outside this process's CPU affinity "
                         "mask (%s, set by taskset or the parent): pin "
                         "within it, or widen it",
                         opt->cpu, set);
    return SB_OK;
}

/* The cache state: hot, or cold where the CPU can flush. */
static int cache_refused(const sb_measure_options *opt, sb_error *err)
{
    if (opt->cache != SB_CACHE_HOT && opt->cache != SB_CACHE_COLD)
        return sb__error(err, SB_EINVAL, "cache state %d: unknown",
                         (int)opt->cache);
    if (opt->cache == SB_CACHE_COLD && !sb__arch_can_flush())
        return sb__error(err, SB_EINVAL,
                         "cache cold: flushing needs clflush (x86-64) or "
                         "dc civac (aarch64)");
    return SB_OK;
}

/* Every cell's kernel runs on this CPU. */
static int kernels_unavailable(const sb_plan *plan, sb_error *err)
{
    for (size_t i = 0; i < plan->n; i++) {
        const char *why = NULL;
        if (!sb_kernel_available(plan->cells[i].kernel, &why))
            return sb__error(err, SB_EUNAVAIL,
                             "kernel %s is unavailable on this CPU: %s",
                             plan->cells[i].kernel->name, why ? why : "");
    }
    return SB_OK;
}

/* What the plan maps fits in half of this machine's memory: the sizes
 * that kernels of their own memory map on every call, and the buffers
 * of all the others. */
static int memory_refused(const sb_plan *plan, sb_error *err)
{
    size_t sb, db;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

    /* Kernels that map their size on every call: it counts too. */
    for (size_t i = 0; i < plan->n; i++)
        if ((plan->cells[i].kernel->flags & SB_KERNEL_OWN_MEMORY) &&
            pages > 0 && psz > 0 &&
            (double)plan->cells[i].size > 0.5 * (double)pages * (double)psz)
            return sb__error(err, SB_EINVAL,
                             "size %zu too large for memory: kernel %s maps "
                             "it on every call, more than half of this "
                             "machine's %.1f GiB",
                             plan->cells[i].size,
                             plan->cells[i].kernel->name,
                             (double)pages * (double)psz / 1073741824.0);
    if (sb__buffer_bytes(plan, &sb, &db) != 0 ||
        (pages > 0 && psz > 0 &&
         (double)sb + (double)db > 0.5 * (double)pages * (double)psz)) {
        size_t biggest = 0;
        for (size_t i = 0; i < plan->n; i++)
            if (plan->cells[i].size > biggest)
                biggest = plan->cells[i].size;
        return sb__error(err, SB_EINVAL,
                         "size %zu too large for memory: the buffers would "
                         "need %.1f GiB, more than half of this machine's "
                         "%.1f GiB", biggest,
                         2.0 * (double)biggest / 1073741824.0,
                         (double)pages * (double)psz / 1073741824.0);
    }
    return SB_OK;
}

int sb_plan_check(const sb_plan *plan, const sb_measure_options *m,
                  sb_error *err)
{
    sb_measure_options full;
    const sb_measure_options *opt = &full;
    int rc;

    if (!plan)
        return sb__error(err, SB_EINVAL, "sb_plan_check: plan is NULL");
    if (sb__measure_get(m, &full, "sb_plan_check", err) != SB_OK)
        return SB_EINVAL;
    if (plan->n == 0)
        return sb__error(err, SB_EINVAL, "the plan has no cells");
    if ((rc = plan_duplicate_refused(plan, err)) != SB_OK)
        return rc;
    if (sb__measure_check(opt, err) != SB_OK)
        return SB_EINVAL;
    if ((rc = sampling_refused(opt, err)) != SB_OK ||
        (rc = cpu_refused(opt, err)) != SB_OK ||
        (rc = cache_refused(opt, err)) != SB_OK ||
        (rc = kernels_unavailable(plan, err)) != SB_OK)
        return rc;
    return memory_refused(plan, err);
}

/* ---- Named benchmarks (sb_bench_add) ------------------------------------ */

/* The hooks' bookkeeping in the measuring thread (sb__pending). */
static _Thread_local sb__pending *pending_head;

static int bench_setup(void **state, const sb_cell *cell, sb_error *err)
{
    const struct sb__bench *b = (const struct sb__bench *)cell->kernel;

    /* Every bench is queued, hooks or not: two benches may share a state
     * pointer (NULL, say), and the queue must then pair each teardown
     * with its own bench, in the harness's order. */
    *state = b->state;
    if (b->setup) {
        int rc = b->setup(b->state, cell->size, err);
        if (rc != SB_OK)
            return rc < 0 ? rc
                          : sb__error(err, SB_EINVAL,
                                      "benchmark %s: its setup returned %d",
                                      b->name, rc);
    }
    return sb__pending_push(&pending_head, b->state, b, b->teardown, err);
}

static void bench_teardown(void *state)
{
    const struct sb__bench *b = sb__pending_pop(&pending_head, state);
    if (b && b->teardown)
        b->teardown(state);
}

static struct sb__bench *bench_find(const sb_plan *plan, const char *name)
{
    for (struct sb__bench *b = plan->benches; b; b = b->next)
        if (!strcmp(b->name, name))
            return b;
    return NULL;
}

int sb_bench_add(sb_plan *plan, const char *name, sb_kernel_fn fn,
                 void *state, size_t n, sb_error *err)
{
    struct sb__bench *b;
    size_t len;
    int rc;

    if (!plan || !name || !fn)
        return sb__error(err, SB_EINVAL, "sb_bench_add: %s is NULL",
                         !plan ? "plan" : !name ? "name" : "fn");
    if (n == 0)
        return sb__error(err, SB_EINVAL,
                         "sb_bench_add: benchmark %.64s: n is 0 (it would "
                         "be timed on no bytes)", name);
    b = bench_find(plan, name);
    if (b) {
        /* The same benchmark at another size: one kernel, one name. */
        if (b->k.fn != fn || b->state != state)
            return sb__error(err, SB_EINVAL,
                             "sb_bench_add: the name %.64s is taken by "
                             "another function or state", name);
        return sb_plan_add(plan, &b->k, n, 0, 0, err);
    }
    if (sb_kernel_find(name))
        return sb__error(err, SB_EINVAL,
                         "sb_bench_add: %.64s is the name of a built-in "
                         "kernel", name);
    len = strlen(name);
    b = calloc(1, sizeof *b + len + 1);
    if (!b)
        return sb__error(err, SB_ENOMEM, "out of memory");
    memcpy(b->name, name, len + 1);
    b->k = (sb_kernel){.size = sizeof(sb_kernel), .name = b->name,
                       .family = SB_FAMILY_COPY,
                       .description = "a named benchmark (sb_bench_add)",
                       .fn = fn,
                       .setup = bench_setup,
                       .teardown = bench_teardown};
    b->state = state;
    /* sb_plan_add checks the name (empty, control characters). */
    rc = sb_plan_add(plan, &b->k, n, 0, 0, err);
    if (rc != SB_OK) {
        free(b);
        return rc;
    }
    b->next = plan->benches;
    plan->benches = b;
    return SB_OK;
}

int sb_bench_hooks(sb_plan *plan, const char *name, sb_bench_setup_fn setup,
                   sb_bench_teardown_fn teardown, sb_error *err)
{
    struct sb__bench *b;
    if (!plan || !name)
        return sb__error(err, SB_EINVAL, "sb_bench_hooks: %s is NULL",
                         !plan ? "plan" : "name");
    b = bench_find(plan, name);
    if (!b)
        return sb__error(err, SB_EINVAL,
                         "sb_bench_hooks: no benchmark named %.64s in the "
                         "plan (sb_bench_add it first)", name);
    b->setup = setup;
    b->teardown = teardown;
    return SB_OK;
}

int sb__run_adopt_benches(sb_run *run)
{
    size_t nb = 0;
    sb_kernel *own;

    /* Kernels loaded from shared objects are adopted alike, and the run
     * keeps where each came from. */
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_kernel *k = run->cells[i].cell.kernel;
        const sb_kernel_origin *o = sb_kernel_loaded(k);
        nb += k->setup == bench_setup || o;
        if (o && sb__run_add_loaded(run, o) != SB_OK)
            return SB_ENOMEM;
    }
    if (nb == 0 || run->own_kernels)
        return SB_OK;
    own = calloc(nb, sizeof *own);
    if (!own)
        return SB_ENOMEM;
    run->own_kernels = own;
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_kernel *k = run->cells[i].cell.kernel;
        size_t j;
        if (k->setup != bench_setup && !sb_kernel_loaded(k))
            continue;
        for (j = 0; j < run->nown; j++)
            if (!strcmp(own[j].name, k->name))
                break;
        if (j == run->nown) {
            char *name = strdup(k->name);
            if (!name)
                return SB_ENOMEM;
            /* A record of what was measured, not a kernel to measure:
             * no function, no state, no hooks. */
            own[run->nown++] = (sb_kernel){.size = sizeof(sb_kernel),
                                           .name = name,
                                           .family = k->family,
                                           .description =
                                               sb_kernel_loaded(k)
                                                   ? "a kernel loaded from a "
                                                     "shared object"
                                                   : k->description};
        }
        run->cells[i].cell.kernel = &own[j];
    }
    return SB_OK;
}
