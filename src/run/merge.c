/*
 * merge.c: several runs of one plan as one run whose runs are a level
 * above its invocations (statbench merge).
 *
 * A run's invocations share its day, its clock step and its neighbours:
 * their spread says nothing of the next run's.  So a merged run keeps
 * every invocation, tagged with the run it came from (sb_run.inv_run),
 * and the analysis builds a cell's interval over its runs' medians
 * (results.c, analyse_runs), by the rule it uses over invocation medians.
 *
 * What differs between the runs is told, one line each: an error when the
 * runs cannot be one measurement (no cell in common, samples measured
 * elsewhere mixed with measured ones, hot against cold caches), a warning
 * otherwise (another host, CPU model, kernel,
 * statbench version, timer rate, counters, a cell missing from some
 * runs).  Times of a run whose timer ran at another rate are converted to
 * the first run's ticks.  A run merged already brings its runs, so that a
 * merged baseline can take one more run (statbench --save --append).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaded.h"
#include "plan.h"
#include "run_internal.h"

/* Append one line to the warnings (cut when they do not fit). */
static void warn(char *buf, size_t len, const char *fmt, ...)
    SB__PRINTF(3, 4);
static void warn(char *buf, size_t len, const char *fmt, ...)
{
    size_t at;
    va_list ap;

    if (!buf || len == 0)
        return;
    at = strlen(buf);
    if (at + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    at = strlen(buf);
    if (at + 1 < len) {
        buf[at] = '\n';
        buf[at + 1] = '\0';
    }
}

/* Where cell c of a run is in the merged cells, or SIZE_MAX. */
static const char *cell_name(const sb_cell *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s size %zu offsets %zu/%zu", c->kernel->name,
             c->size, c->src_align, c->dst_align);
    return buf;
}

/* The differences of run r from run 0 that make a warning. */
/* The loaded kernels' records of every run, once per name (the first
 * run's); a name that came from another build in a later run is a
 * warning: its cells are merged by name all the same. */
static int merge_loaded(sb_run *m, const sb_run *const *runs, size_t n,
                        char *warnings, size_t len)
{
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < sb_run_loaded_count(runs[r]); i++) {
            const sb_kernel_origin *o = sb_run_loaded(runs[r], i);
            for (size_t j = 0; j < m->nloaded; j++) {
                const sb_kernel_origin *f = &m->loaded[j];
                if (strcmp(f->name, o->name))
                    continue;
                if (strcmp(f->build_id, o->build_id) ||
                    (!f->build_id[0] && (f->file_size != o->file_size ||
                                         f->file_mtime != o->file_mtime)))
                    warn(warnings, len,
                         "run %zu: kernel %s is another build (%s), not "
                         "that of the first run with it (%s)",
                         r + 1, o->name,
                         o->build_id[0] ? o->build_id : o->path,
                         f->build_id[0] ? f->build_id : f->path);
                break;
            }
            if (sb__run_add_loaded(m, o) != SB_OK)
                return SB_ENOMEM;
        }
    return SB_OK;
}

static void compare_meta(const sb_run *a, const sb_run *b, size_t r,
                         char *buf, size_t len)
{
    /* The text fields of the metadata, each with its name in the line. */
    static const struct {
        size_t off;
        const char *what;
    } texts[] = {
        {offsetof(sb_meta, hostname), "host"},
        {offsetof(sb_meta, cpu_model), "CPU model"},
        {offsetof(sb_meta, kernel_version), "kernel"},
        {offsetof(sb_meta, statbench_version), "statbench"},
    };
    const sb_meta *x = &a->meta, *y = &b->meta;

    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        const char *s = (const char *)x + texts[i].off;
        const char *t = (const char *)y + texts[i].off;
        if (strcmp(s, t))
            warn(buf, len, "run %zu: another %s: '%s', run 1 '%s'", r + 1,
                 texts[i].what, t, s);
    }
    /* A calibrated TSC rate moves in its fifth digit from run to run:
     * only a rate 0.1% away is another timer. */
    if (x->timer.kind != y->timer.kind ||
        !(fabs(y->timer.hz / x->timer.hz - 1) <= 1e-3))
        warn(buf, len,
             "run %zu: another timer: %s at %.2f MHz, run 1 %s at %.2f MHz "
             "(its times are converted to run 1's ticks)",
             r + 1, sb_timer_name(y->timer.kind), y->timer.hz / 1e6,
             sb_timer_name(x->timer.kind), x->timer.hz / 1e6);
    if (x->ncounters != y->ncounters)
        warn(buf, len, "run %zu: %zu counters, run 1 %zu (counters it "
             "lacks are missing from its invocations)", r + 1,
             y->ncounters, x->ncounters);
    /* Two single runs of one second and host whose samples differ are
     * two runs (started together, as two --append at once); the same
     * samples were refused by same_run. */
    if (x->start_time[0] && !strcmp(x->start_time, y->start_time) &&
        !strcmp(x->hostname, y->hostname) && (a->nruns >= 2 || b->nruns >= 2))
        warn(buf, len, "run %zu: the same host and start time as run 1 "
             "(%s): the same run given twice?", r + 1, y->start_time);
    if (a->measure.reject != b->measure.reject)
        warn(buf, len, "run %zu: reject policy %s, run 1 %s", r + 1,
             sb_reject_policy_name(b->measure.reject),
             sb_reject_policy_name(a->measure.reject));
}

/* The runs measured on a shared core throughout: louder than the
 * quietest run beyond the contention margin (sb_run_contention_differ),
 * one warning each. */
static void shared_core_runs(const sb_run *const *runs, size_t n,
                             char *buf, size_t len)
{
    size_t quiet = SIZE_MAX;
    double q = NAN, qr;

    /* The quietest run whose level is known (in core cycles). */
    for (size_t r = 0; r < n; r++) {
        qr = sb__run_quiet_cycles(runs[r]);
        if (isfinite(qr) && !(qr >= q)) {
            q = qr;
            quiet = r;
        }
    }
    if (quiet == SIZE_MAX)
        return;
    for (size_t r = 0; r < n; r++)
        if (r != quiet &&
            sb_run_contention_differ(runs[quiet], runs[r], &q, &qr) &&
            qr > q)
            warn(buf, len,
                 "run %zu: measured on a shared core: its contention "
                 "probe's quiet level is %.1f core cycles per repetition, "
                 "run %zu's %.1f (%+.0f%%); its figures are the shared "
                 "core's (merge without it, or rerun it)",
                 r + 1, qr, quiet + 1, q, 100 * (qr / q - 1));
}

/* n samples of (t, cs) from o on as a raw cell's arrays, in new arrays
 * (freed by raw_free), ticks and probe readings scaled by scale and
 * clocks by 1 / scale; nc counters. */
static int raw_copy(sb__raw_cell *raw, const double *t,
                    const sb__cell_samples *cs, size_t o, size_t n,
                    size_t nc, double scale)
{
    double *tt = malloc((n + 1) * sizeof *tt);
    double *ctr = nc ? malloc((n * nc + 1) * sizeof *ctr) : NULL;
    double *clk = cs->clock ? malloc((n + 1) * sizeof *clk) : NULL;
    double *pr = cs->probes ? malloc((n * SB_PROBE_READINGS + 1) *
                                     sizeof *pr)
                            : NULL;
    raw->nsamples = n;
    raw->ticks = tt;
    raw->counters = ctr;
    raw->ncounters = nc;
    raw->clock = clk;
    raw->probes = pr;
    raw->flags = cs->flags ? cs->flags + o : NULL;
    if (!tt || (nc && !ctr) || (cs->clock && !clk) || (cs->probes && !pr))
        return SB_ENOMEM;
    for (size_t q = 0; q < n; q++) {
        tt[q] = t[o + q] * scale;
        /* Core cycles per tick, of ticks scaled by scale: the sample's
         * core cycles stay what they were. */
        if (clk)
            clk[q] = cs->clock[o + q] / scale;
        for (size_t k = 0; pr && k < SB_PROBE_READINGS; k++)
            pr[q * SB_PROBE_READINGS + k] =
                cs->probes[(o + q) * SB_PROBE_READINGS + k] * scale;
        for (size_t k = 0; k < nc; k++)
            ctr[q * nc + k] = cs->counters[k] ? cs->counters[k][o + q] : NAN;
    }
    return SB_OK;
}

static void raw_free(sb__raw_cell *raw)
{
    free(raw->ticks);
    free(raw->counters);
    free(raw->clock);
    free(raw->probes);
}

/* Add every invocation of input run src (number r of the merge) to the
 * merged run m, whose cells are matched by where[] (SIZE_MAX: not in
 * src); cells of m that src lacks get empty invocations.  Its ticks are
 * scaled by scale (another timer rate); held samples go with their
 * invocations. */
static int add_run(sb_run *m, const sb_run *src, const size_t *where,
                   double scale)
{
    size_t ninv = src->invocations;
    size_t *at = calloc(m->ncells + 1, sizeof *at);
    size_t *hat = calloc(m->ncells + 1, sizeof *hat);
    /* back[i]: the cell of src that merged cell i is, SIZE_MAX: none. */
    size_t *back = malloc((m->ncells + 1) * sizeof *back);
    size_t nc = src->meta.ncounters < SB_MAX_COUNTERS ? src->meta.ncounters
                                                      : SB_MAX_COUNTERS;
    int rc = SB_OK;

    if (!at || !hat || !back) {
        free(at);
        free(hat);
        free(back);
        return SB_ENOMEM;
    }
    for (size_t i = 0; i < m->ncells; i++)
        back[i] = SIZE_MAX;
    for (size_t q = 0; q < src->ncells; q++)
        if (where[q] < m->ncells)
            back[where[q]] = q;
    for (size_t g = 0; g < ninv && rc == SB_OK; g++) {
        for (size_t i = 0; i < m->ncells && rc == SB_OK; i++) {
            sb__raw_cell raw = {0}, held = {0};
            const sb_cell_result *s = NULL;
            const sb__cell_samples *cs = NULL;
            const sb__cell_held *h = NULL;
            size_t j = back[i], nh = 0;

            if (j != SIZE_MAX && g < src->cells[j].invocations &&
                src->cells[j].inv_nsamples) {
                s = &src->cells[j];
                cs = &src->samples[j];
                raw.nsamples = s->inv_nsamples[g];
                raw.iters = s->iters;
                h = src->held && src->held[j].inv_n ? &src->held[j] : NULL;
                nh = h ? h->inv_n[g] : 0;
            }
            if (raw.nsamples &&
                raw_copy(&raw, s->ticks, cs, at[i], raw.nsamples, nc,
                         scale) != SB_OK)
                rc = SB_ENOMEM;
            if (rc == SB_OK && nh) {
                if (raw_copy(&held, h->ticks, &h->cols, hat[i], nh, nc,
                             scale) != SB_OK)
                    rc = SB_ENOMEM;
                raw.held = &held;
                raw.held_at = h->at + hat[i];
            }
            if (rc != SB_OK) {
                raw_free(&raw);
                raw_free(&held);
                break;
            }
            raw.counter_names = src->meta.counter_names;
            held.counter_names = src->meta.counter_names;
            at[i] += raw.nsamples;
            hat[i] += nh;
            /* The per-cell totals of the run go with its first
             * invocation: the file keeps them per cell only. */
            if (s && g == 0) {
                memcpy(raw.rejected, s->rejected, sizeof raw.rejected);
                memcpy(raw.disturbed, s->disturbed, sizeof raw.disturbed);
                raw.warmup_samples = s->warmup_samples;
                raw.calls = s->calls;
                raw.user = s->user_seconds;
                raw.sys = s->sys_seconds;
            }
            rc = sb__run_add_invocation(m, i, &raw);
            raw_free(&raw);
            raw_free(&held);
        }
    }
    free(at);
    free(hat);
    free(back);
    return rc;
}

/* The runs can be one measurement: none NULL, all measured or all
 * imported, all at one cache state.  Their cells, invocations and runs
 * (a merged input counts its own) counted into *total, *ninv and
 * *nruns. */
static int check_runs(const sb_run *const *runs, size_t n, size_t *total,
                      size_t *ninv, size_t *nruns, sb_error *err)
{
    for (size_t r = 0; r < n; r++) {
        if (!runs[r])
            return sb__error(err, SB_EINVAL, "sb_run_merge_new: runs[%zu] is "
                             "NULL", r);
        if (runs[r]->imported != runs[0]->imported)
            return sb__error(err, SB_EINVAL,
                             "run %zu %s, run 1 %s: not one measurement",
                             r + 1,
                             runs[r]->imported
                                 ? "holds samples measured elsewhere"
                                 : "was measured by statbench",
                             runs[0]->imported
                                 ? "holds samples measured elsewhere"
                                 : "was measured by statbench");
        if (strcmp(runs[r]->unit, runs[0]->unit))
            return sb__error(err, SB_EINVAL,
                             "run %zu holds values in '%s', run 1 in '%s': "
                             "not one measurement",
                             r + 1, runs[r]->unit, runs[0]->unit);
        if (runs[r]->measure.cache != runs[0]->measure.cache)
            return sb__error(err, SB_EINVAL,
                             "run %zu measured with cache %s, run 1 with "
                             "cache %s: not one measurement",
                             r + 1, sb_cache_name(runs[r]->measure.cache),
                             sb_cache_name(runs[0]->measure.cache));
        *total += runs[r]->ncells;
        *ninv += runs[r]->invocations;
        *nruns += runs[r]->nruns >= 2 ? runs[r]->nruns : 1;
    }
    return SB_OK;
}

/* 1 when runs a and b are one run given twice: the same host, start
 * time (a run that has one) and cells, and every cell the same
 * samples.  Its merge would be
 * a run-to-run spread of zero: an interval of no width. */
static int same_run(const sb_run *a, const sb_run *b)
{
    if (a == b)
        return 1;
    if (!a->meta.start_time[0] ||
        strcmp(a->meta.start_time, b->meta.start_time) ||
        strcmp(a->meta.hostname, b->meta.hostname) ||
        a->ncells != b->ncells || a->invocations != b->invocations ||
        a->nruns != b->nruns)
        return 0;
    for (size_t i = 0; i < a->ncells; i++) {
        const sb_cell_result *x = &a->cells[i], *y = &b->cells[i];
        if (sb__cell_order(&x->cell, &y->cell) ||
            x->nsamples != y->nsamples ||
            (x->nsamples &&
             memcmp(x->ticks, y->ticks, x->nsamples * sizeof *x->ticks)))
            return 0;
    }
    return 1;
}

/* One cell of one input run, for the union's sort. */
struct entry {
    const sb_cell *c;
    size_t run, cell, order; /* order: its place in all the runs' lists */
};

static int entry_cmp(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    return sb__cell_order_at(a->c, a->order, b->c, b->order);
}

/* Add cell c (of an input run) to m as its cell i. */
static int add_union_cell(sb_run *m, size_t i, const sb_cell *c,
                          sb_error *err)
{
    const sb_kernel *k = sb_kernel_find(c->kernel->name);
    m->cells[i].cell = *c;
    if (k != c->kernel) {
        /* A stand-in of the input: the merged run owns its own, since the
         * inputs may be freed first. */
        sb_kernel *own = &m->own_kernels[m->nown];
        *own = *c->kernel;
        own->name = strdup(c->kernel->name);
        if (!own->name)
            return sb__error(err, SB_ENOMEM, "out of memory");
        m->nown++;
        m->cells[i].cell.kernel = own;
    }
    return SB_OK;
}

/* The union of the runs' cells in m, in the order the runs list them:
 * where[r][j] is the cell of m that cell j of run r is; *ncells counts
 * them.  A run listing a cell twice is refused.  Sorted, not searched
 * cell by cell: two runs of 100,000 cells merge in O(n log n). */
static int union_cells(sb_run *m, const sb_run *const *runs, size_t n,
                       size_t **where, size_t *ncells, sb_error *err)
{
    char nm[192];
    size_t total = 0, at = 0, groups = 0, *group, *merged;
    struct entry *e;
    int rc = SB_OK;

    for (size_t r = 0; r < n; r++) {
        where[r] = malloc((runs[r]->ncells + 1) * sizeof *where[r]);
        if (!where[r])
            return sb__error(err, SB_ENOMEM, "out of memory");
        total += runs[r]->ncells;
    }
    e = malloc((total + 1) * sizeof *e);
    group = malloc((total + 1) * sizeof *group);   /* by list order */
    merged = malloc((total + 1) * sizeof *merged); /* by group */
    if (!e || !group || !merged) {
        free(e);
        free(group);
        free(merged);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < runs[r]->ncells; j++, at++)
            e[at] = (struct entry){&runs[r]->cells[j].cell, r, j, at};
    qsort(e, total, sizeof *e, entry_cmp);
    /* Equal cells are neighbours now: one group number each, and within
     * a group the runs in list order, so a run's second copy follows
     * its first. */
    for (size_t q = 0; q < total; q++) {
        int same = q && !sb__cell_order(e[q].c, e[q - 1].c);
        if (same && e[q].run == e[q - 1].run) {
            /* One run's data per cell and run: a second copy would count
             * as another run and hide the first. */
            rc = sb__error(err, SB_EINVAL,
                           "merge: run %zu lists the cell %s twice",
                           e[q].run + 1, cell_name(e[q].c, nm, sizeof nm));
            break;
        }
        if (!same)
            merged[groups++] = SIZE_MAX; /* no merged cell yet */
        group[e[q].order] = groups - 1;
    }
    /* The merged cells in the order of their first listing. */
    at = 0;
    for (size_t r = 0; rc == SB_OK && r < n; r++)
        for (size_t j = 0; rc == SB_OK && j < runs[r]->ncells; j++, at++) {
            size_t *m_i = &merged[group[at]];
            if (*m_i == SIZE_MAX) {
                *m_i = (*ncells)++;
                rc = add_union_cell(m, *m_i, &runs[r]->cells[j].cell, err);
            }
            where[r][j] = *m_i;
        }
    free(e);
    free(group);
    free(merged);
    return rc;
}

/* The cells every run measured; a warning line for each other one. */
static size_t common_cells(const sb_run *m, const sb_run *const *runs,
                           size_t n, size_t *const *where, size_t ncells,
                           char *warnings, size_t len)
{
    size_t common = 0, *count = calloc(ncells + 1, sizeof *count);
    char nm[192];

    if (!count)
        return 0; /* out of memory: no cell is counted common */
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < runs[r]->ncells; j++)
            if (where[r][j] < ncells)
                count[where[r][j]]++;
    for (size_t i = 0; i < ncells; i++) {
        size_t in = count[i];
        if (in == n)
            common++;
        else
            warn(warnings, len, "cell %s: in %zu of the %zu runs",
                 cell_name(&m->cells[i].cell, nm, sizeof nm), in, n);
    }
    free(count);
    return common;
}

/* No run is another given twice (same_run): merged with itself, a run
 * would show no spread between runs. */
static int check_distinct(const sb_run *const *runs, size_t n,
                          sb_error *err)
{
    for (size_t j = 1; j < n; j++)
        for (size_t i = 0; i < j; i++)
            if (same_run(runs[i], runs[j]))
                return sb__error(err, SB_EINVAL,
                                 "run %zu is run %zu again (the same host, "
                                 "start time and samples): a run merged "
                                 "with itself has no spread between runs",
                                 j + 1, i + 1);
    return SB_OK;
}

/* The merged run's metadata: the first run's, with nruns runs and the
 * clock's source a string of its own. */
static void merged_meta(sb_run *m, const sb_run *first, size_t nruns)
{
    m->meta = first->meta;
    m->imported = first->imported;
    memcpy(m->unit, first->unit, sizeof m->unit);
    m->nruns = nruns;
    snprintf(m->hz_source, sizeof m->hz_source, "%s",
             first->meta.timer.hz_source ? first->meta.timer.hz_source
                                         : "");
    m->meta.timer.hz_source = m->hz_source;
    /* The invocations' probe figures are every run's, in order
     * (merge_run). */
    m->meta.probe_ninv = 0;
}

/* Run r of runs into m, its runs from *base on (advanced past them):
 * its differences from the first run told, its runs' metadata, its
 * invocations (each with its probes' figures and the run it is of), its
 * totals and its cells at where, its times in the first run's ticks. */
static int merge_run(sb_run *m, const sb_run *const *runs, size_t r,
                     const size_t *where, size_t *base, char *warnings,
                     size_t len, sb_error *err)
{
    double scale = 1;
    int rc;

    if (r > 0)
        compare_meta(runs[0], runs[r], r, warnings, len);
    if (runs[r]->meta.timer.hz > 0 && runs[0]->meta.timer.hz > 0)
        scale = runs[0]->meta.timer.hz / runs[r]->meta.timer.hz;
    /* A merged input brings its runs, each a run of the merge: a
     * baseline saved with --append grows one run at a time. */
    size_t own = runs[r]->nruns >= 2 ? runs[r]->nruns : 1;
    for (size_t k = 0; k < own; k++) {
        m->runs[*base + k] = own >= 2 ? runs[r]->runs[k] : runs[r]->meta;
        m->runs[*base + k].timer.hz_source = m->hz_source;
    }
    for (size_t g = 0; g < runs[r]->invocations; g++) {
        /* Its probes' figures with its ticks converted: the clock is
         * core cycles per tick, the quiet level ticks per rep when
         * the run had no clock. */
        double q = sb_run_invocation_quiet(runs[r], g);
        if (!strcmp(runs[r]->meta.probe, "none"))
            q *= scale;
        if (g < sb_run_invocation_probes(runs[r]) &&
            sb__run_invocation_probe(
                m, m->invocations,
                sb_run_invocation_clock(runs[r], g) / scale,
                q) != SB_OK)
            return sb__error(err, SB_ENOMEM, "out of memory");
        m->inv_run[m->invocations++] =
            *base + (own >= 2 ? sb_run_invocation_run(runs[r], g) : 0);
    }
    *base += own;
    m->elapsed += runs[r]->elapsed;
    m->rounds += runs[r]->rounds;
    m->interrupted |= runs[r]->interrupted;
    if ((rc = add_run(m, runs[r], where, scale)) != SB_OK)
        return sb__error(err, rc, "out of memory");
    return SB_OK;
}

int sb_run_merge_new(const sb_run *const *runs, size_t n, sb_run **out,
                     char *warnings, size_t len, sb_error *err)
{
    size_t total = 0, ncells = 0, ninv = 0, nruns = 0, base = 0;
    size_t **where = NULL;
    sb_run *m = NULL;
    int rc = SB_OK;

    if (warnings && len)
        warnings[0] = '\0';
    if (!out || !runs)
        return sb__error(err, SB_EINVAL, "sb_run_merge_new: %s is NULL",
                         !out ? "out" : "runs");
    *out = NULL;
    if (n < 2)
        return sb__error(err, SB_EINVAL,
                         "merge: %zu run%s given: at least 2 to merge", n,
                         n == 1 ? "" : "s");
    if ((rc = check_runs(runs, n, &total, &ninv, &nruns, err)) != SB_OK)
        return rc;
    if ((rc = check_distinct(runs, n, err)) != SB_OK)
        return rc;
    m = sb__run_alloc(total, &runs[0]->measure, &runs[0]->analysis);
    where = calloc(n, sizeof *where);
    if (m) {
        m->own_kernels = calloc(total + 1, sizeof *m->own_kernels);
        m->inv_run = malloc((ninv + 1) * sizeof *m->inv_run);
        m->runs = calloc(nruns, sizeof *m->runs);
    }
    if (!m || !where || !m->own_kernels || !m->inv_run || !m->runs) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = union_cells(m, runs, n, where, &ncells, err)) != SB_OK)
        goto fail;
    if (common_cells(m, runs, n, where, ncells, warnings, len) == 0) {
        rc = sb__error(err, SB_EINVAL,
                       "no cell is in every run: different plans "
                       "(compare the runs instead)");
        goto fail;
    }
    m->ncells = ncells;
    if ((rc = merge_loaded(m, runs, n, warnings, len)) != SB_OK) {
        rc = sb__error(err, rc, "out of memory");
        goto fail;
    }
    merged_meta(m, runs[0], nruns);
    shared_core_runs(runs, n, warnings, len);
    for (size_t r = 0; r < n; r++)
        if ((rc = merge_run(m, runs, r, where[r], &base, warnings, len,
                            err)) != SB_OK)
            goto fail;
    rc = sb__run_analyse(m, err);
    if (rc != SB_OK)
        goto fail;
    for (size_t r = 0; r < n; r++)
        free(where[r]);
    free(where);
    *out = m;
    return SB_OK;
fail:
    for (size_t r = 0; where && r < n; r++)
        free(where[r]);
    free(where);
    if (m)
        m->ncells = m->ncells < ncells ? m->ncells : ncells;
    sb_run_free(m);
    return rc;
}

size_t sb_run_runs(const sb_run *run)
{
    return run ? run->nruns : 0;
}

const sb_meta *sb_run_run_meta(const sb_run *run, size_t r)
{
    return run && run->runs && r < run->nruns ? &run->runs[r] : NULL;
}

size_t sb_run_invocation_run(const sb_run *run, size_t g)
{
    return run && run->inv_run && g < run->invocations ? run->inv_run[g]
                                                       : 0;
}
