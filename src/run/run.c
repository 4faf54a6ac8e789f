/*
 * run.c: the run object: made for a plan's cells, filled invocation by
 * invocation (sb__run_add_invocation: the samples, their columns and the
 * samples held back on a shared core), freed, and read through the
 * public accessors.  The statistics are results.c's.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loaded.h"
#include "meta.h"
#include "run_internal.h"

sb_run *sb__run_alloc(size_t ncells, const sb_measure_options *m,
                      const sb_analysis_options *a)
{
    sb_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    if (m)
        run->measure = *m;
    else
        sb_measure_options_init(&run->measure);
    run->measure.progress = NULL;
    run->measure.progress_arg = NULL;
    run->measure.progress_state = NULL;
    if (a)
        run->analysis = *a;
    else
        sb_analysis_options_init(&run->analysis);
    sb__meta_probe_unknown(&run->meta);
    run->ncells = ncells;
    run->cells = calloc(ncells ? ncells : 1, sizeof *run->cells);
    run->samples = calloc(ncells ? ncells : 1, sizeof *run->samples);
    if (!run->cells || !run->samples) {
        free(run->cells);
        free(run->samples);
        free(run);
        return NULL;
    }
    for (size_t i = 0; i < ncells; i++)
        run->cells[i].metric = SB_METRIC_TIME; /* until the analysis
                                                  chooses */
    return run;
}

/* Counters of the run: meta.ncounters, within bounds. */
size_t sb__run_ncounters(const sb_run *run)
{
    return run->meta.ncounters < SB_MAX_COUNTERS ? run->meta.ncounters
                                                 : SB_MAX_COUNTERS;
}

/* Append raw's per-sample columns to cs, which holds n samples: flags,
 * clocks, probe readings, then each counter of the run, matched by name
 * to the invocation's. */
static int append_columns(const sb_run *run, sb__cell_samples *cs, size_t n,
                          const sb__raw_cell *raw)
{
    size_t total = n + raw->nsamples + 1;
    unsigned char *f = realloc(cs->flags, total);
    double *c;
    if (!f)
        return SB_ENOMEM;
    cs->flags = f;
    if (raw->nsamples && raw->flags)
        memcpy(f + n, raw->flags, raw->nsamples);
    else if (raw->nsamples)
        memset(f + n, 0, raw->nsamples);
    if (!(c = realloc(cs->clock, total * sizeof *c)))
        return SB_ENOMEM;
    cs->clock = c;
    for (size_t q = 0; q < raw->nsamples; q++)
        c[n + q] = raw->clock ? raw->clock[q] : NAN;
    /* Readings only when some invocation has them: the column stays
     * NULL for runs without (older files, imported samples). */
    if (raw->probes || cs->probes) {
        double *p = realloc(cs->probes,
                            total * SB_PROBE_READINGS * sizeof *p);
        if (!p)
            return SB_ENOMEM;
        if (!cs->probes)
            for (size_t q = 0; q < n * SB_PROBE_READINGS; q++)
                p[q] = NAN;
        cs->probes = p;
        for (size_t q = 0; q < raw->nsamples * SB_PROBE_READINGS; q++)
            p[n * SB_PROBE_READINGS + q] = raw->probes ? raw->probes[q] : NAN;
    }
    for (size_t j = 0; j < sb__run_ncounters(run); j++) {
        double *v = realloc(cs->counters[j], total * sizeof *v);
        size_t k = raw->ncounters;
        if (!v)
            return SB_ENOMEM;
        cs->counters[j] = v;
        if (raw->counters && raw->counter_names)
            for (k = 0; k < raw->ncounters; k++)
                if (!strcmp(raw->counter_names[k],
                            run->meta.counter_names[j]))
                    break;
        for (size_t q = 0; q < raw->nsamples; q++)
            v[n + q] = k < raw->ncounters && raw->counters
                           ? raw->counters[q * raw->ncounters + k]
                           : NAN;
    }
    return SB_OK;
}

/* Add invocation m - 1's held samples (raw->held) to cell i's. */
static int append_held(sb_run *run, size_t i, size_t m,
                       const sb__raw_cell *raw)
{
    sb__cell_held *h;
    size_t nh = raw->held ? raw->held->nsamples : 0, *v;
    double *t;

    if (!run->held &&
        !(run->held = calloc(run->ncells ? run->ncells : 1,
                             sizeof *run->held)))
        return SB_ENOMEM;
    h = &run->held[i];
    if (!(v = realloc(h->inv_n, m * sizeof *v)))
        return SB_ENOMEM;
    /* Once the run holds samples every invocation comes through here:
     * a cell's invocations before that held none. */
    if (!h->inv_n)
        for (size_t g = 0; g + 1 < m; g++)
            v[g] = 0;
    h->inv_n = v;
    v[m - 1] = nh;
    if (!nh)
        return SB_OK;
    if (!(t = realloc(h->ticks, (h->n + nh) * sizeof *t)))
        return SB_ENOMEM;
    h->ticks = t;
    if (!(v = realloc(h->at, (h->n + nh) * sizeof *v)))
        return SB_ENOMEM;
    h->at = v;
    if (append_columns(run, &h->cols, h->n, raw->held) != SB_OK)
        return SB_ENOMEM;
    memcpy(t + h->n, raw->held->ticks, nh * sizeof *t);
    memcpy(v + h->n, raw->held_at, nh * sizeof *v);
    h->n += nh;
    return SB_OK;
}

int sb__run_add_invocation(sb_run *run, size_t i, const sb__raw_cell *raw)
{
    sb_cell_result *r = &run->cells[i];
    size_t m = r->invocations + 1;
    double *t = realloc(r->ticks, (r->nsamples + raw->nsamples + 1) *
                                      sizeof *t);
    size_t *in;

    if (!t)
        return SB_ENOMEM;
    r->ticks = t;
    in = realloc(r->inv_nsamples, m * sizeof *in);
    if (!in)
        return SB_ENOMEM;
    r->inv_nsamples = in;
    if (append_columns(run, &run->samples[i], r->nsamples, raw) != SB_OK ||
        ((raw->held || run->held) && append_held(run, i, m, raw) != SB_OK))
        return SB_ENOMEM;
    if (raw->nsamples)
        memcpy(r->ticks + r->nsamples, raw->ticks,
               raw->nsamples * sizeof *t);
    r->nsamples += raw->nsamples;
    r->inv_nsamples[r->invocations] = raw->nsamples;
    r->invocations = m;
    if (raw->iters > r->iters)
        r->iters = raw->iters;
    r->warmup_samples += raw->warmup_samples;
    r->calls += raw->calls;
    r->user_seconds += raw->user;
    r->sys_seconds += raw->sys;
    for (int k = 0; k < SB_REJECT_NREASONS; k++) {
        r->rejected[k] += raw->rejected[k];
        r->rejected_total += raw->rejected[k];
        r->disturbed[k] += raw->disturbed[k];
    }
    return SB_OK;
}

void sb__columns_free(sb__cell_samples *cs)
{
    free(cs->flags);
    free(cs->clock);
    free(cs->probes);
    for (size_t j = 0; j < SB_MAX_COUNTERS; j++)
        free(cs->counters[j]);
    memset(cs, 0, sizeof *cs);
}

void sb__held_free(sb__cell_held *h)
{
    free(h->ticks);
    free(h->inv_n);
    free(h->at);
    sb__columns_free(&h->cols);
    memset(h, 0, sizeof *h);
}

/* Free the samples kept for reanalysis. */
void sb__before_free(sb_run *run)
{
    for (size_t i = 0; run->before && i < run->ncells; i++) {
        sb__cell_before *b = &run->before[i];
        free(b->ticks);
        free(b->inv_nsamples);
        sb__columns_free(&b->cols);
        sb__held_free(&b->held);
    }
    free(run->before);
    run->before = NULL;
}

int sb__run_invocation_probe(sb_run *run, size_t g, double clock,
                             double quiet)
{
    if (g >= run->nprobe) {
        double *c = realloc(run->inv_clock, (g + 1) * sizeof *c);
        double *q;
        if (!c)
            return SB_ENOMEM;
        run->inv_clock = c;
        q = realloc(run->inv_quiet, (g + 1) * sizeof *q);
        if (!q)
            return SB_ENOMEM;
        run->inv_quiet = q;
        for (size_t k = run->nprobe; k < g; k++)
            c[k] = q[k] = NAN;
        run->nprobe = g + 1;
    }
    run->inv_clock[g] = clock;
    run->inv_quiet[g] = quiet;
    if (g < SB_PROBE_MAX_INV) {
        for (size_t k = run->meta.probe_ninv; k < g; k++)
            run->meta.probe_inv_clock[k] = run->meta.probe_inv_quiet[k] = NAN;
        run->meta.probe_inv_clock[g] = clock;
        run->meta.probe_inv_quiet[g] = quiet;
        if (run->meta.probe_ninv < g + 1)
            run->meta.probe_ninv = g + 1;
    }
    return SB_OK;
}

/* The invocations with probe figures: those recorded in the run, or a
 * run whose meta alone holds them (a caller's, or one built by a test). */
size_t sb_run_invocation_probes(const sb_run *run)
{
    size_t m;

    if (!run)
        return 0;
    m = run->meta.probe_ninv < SB_PROBE_MAX_INV ? run->meta.probe_ninv
                                                : SB_PROBE_MAX_INV;
    return run->nprobe > m ? run->nprobe : m;
}

static double invocation_probe(const sb_run *run, size_t g, int quiet)
{
    if (!run)
        return NAN;
    if (g < run->nprobe)
        return quiet ? run->inv_quiet[g] : run->inv_clock[g];
    if (g < run->meta.probe_ninv && g < SB_PROBE_MAX_INV)
        return quiet ? run->meta.probe_inv_quiet[g]
                     : run->meta.probe_inv_clock[g];
    return NAN;
}

double sb_run_invocation_clock(const sb_run *run, size_t g)
{
    return invocation_probe(run, g, 0);
}

double sb_run_invocation_quiet(const sb_run *run, size_t g)
{
    return invocation_probe(run, g, 1);
}

void sb_run_free(sb_run *run)
{
    if (!run)
        return;
    for (size_t i = 0; run->cells && i < run->ncells; i++) {
        free(run->cells[i].ticks);
        free(run->cells[i].inv_nsamples);
        free(run->cells[i].inv_median);
        free(run->cells[i].run_median);
        if (run->samples)
            sb__columns_free(&run->samples[i]);
        if (run->held)
            sb__held_free(&run->held[i]);
    }
    free(run->samples);
    free(run->held);
    sb__before_free(run);
    for (size_t i = 0; run->own_kernels && i < run->nown; i++)
        free((char *)run->own_kernels[i].name);
    SB__FREE_ALL(run->own_kernels, run->cells, run->cmp, run->command,
                 run->inv_run, run->runs, run->title, run->inv_clock,
                 run->inv_quiet);
    sb__run_free_loaded(run);
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

const sb_measure_options *sb_run_measure_options(const sb_run *run)
{
    return run ? &run->measure : NULL;
}

const sb_analysis_options *sb_run_analysis_options(const sb_run *run)
{
    return run ? &run->analysis : NULL;
}

int sb_run_interrupted(const sb_run *run)
{
    return run ? run->interrupted : 0;
}

const char *sb_run_partial(const sb_run *run)
{
    return run ? run->partial : "";
}

size_t sb_run_empty_cells(const sb_run *run)
{
    size_t empty = 0;
    for (size_t i = 0; run && i < run->ncells; i++)
        if (run->cells[i].nsamples == 0)
            empty++;
    return empty;
}

double sb_run_elapsed(const sb_run *run)
{
    return run ? run->elapsed : 0;
}

size_t sb_run_rounds(const sb_run *run)
{
    return run ? run->rounds : 0;
}

size_t sb_run_invocations(const sb_run *run)
{
    return run ? run->invocations : 0;
}

int sb_run_imported(const sb_run *run)
{
    return run ? run->imported : 0;
}

const char *sb_run_unit(const sb_run *run)
{
    return run ? run->unit : "";
}

const double *sb_run_counter_samples(const sb_run *run, size_t i,
                                     size_t j)
{
    if (!run || !run->samples || i >= run->ncells || j >= sb__run_ncounters(run))
        return NULL;
    return run->samples[i].counters[j];
}

const unsigned char *sb_run_sample_flags(const sb_run *run, size_t i)
{
    if (!run || !run->samples || i >= run->ncells)
        return NULL;
    return run->samples[i].flags;
}


const double *sb_run_sample_clock(const sb_run *run, size_t i)
{
    if (!run || !run->samples || i >= run->ncells)
        return NULL;
    return run->samples[i].clock;
}

const double *sb_run_sample_probes(const sb_run *run, size_t i)
{
    if (!run || i >= run->ncells || !run->cells[i].nsamples)
        return NULL;
    return run->samples[i].probes;
}

/* The layouts of sb_held_samples a caller may have, the current
 * first. */
static const size_t held_sizes[] = {sizeof(sb_held_samples)};

int sb_run_held_samples(const sb_run *run, size_t i, sb_held_samples *out,
                        sb_error *err)
{
    const sb__cell_held *h;
    sb_held_samples full = {.size = sizeof full};
    size_t size;
    int rc;

    if (!run || !out)
        return sb__error(err, SB_EINVAL, "sb_run_held_samples: %s is NULL",
                         !run ? "run" : "out");
    if (i >= run->ncells)
        return sb__error(err, SB_EINVAL,
                         "sb_run_held_samples: cell %zu: the run has %zu", i,
                         run->ncells);
    size = sb__out_size_of(out);
    if ((rc = sb__out_size(size, held_sizes,
                           sizeof held_sizes / sizeof *held_sizes,
                           "sb_held_samples", "sb_run_held_samples", err)) !=
        SB_OK)
        return rc;
    h = run->held ? &run->held[i] : NULL;
    if (h && h->n) {
        full.n = h->n;
        full.ticks = h->ticks;
        full.flags = h->cols.flags;
        full.clock = h->cols.clock;
        full.probes = h->cols.probes;
        for (size_t j = 0; j < sb__run_ncounters(run); j++)
            full.counters[j] = h->cols.counters[j];
        full.invocation_samples = h->inv_n;
        full.at = h->at;
    }
    sb__out_put(out, size, &full);
    return SB_OK;
}

const char *sb_run_command(const sb_run *run)
{
    return run && run->command ? run->command : "";
}

const sb_comparison *sb_run_comparison(const sb_run *run, size_t i)
{
    if (!run || !run->cmp || i >= run->ncells || !run->cmp[i].valid)
        return NULL;
    return &run->cmp[i];
}

int sb_run_set_command(sb_run *run, int argc, char *const argv[],
                       sb_error *err)
{
    size_t len = 1;
    char *s;

    if (!run || argc < 0 || (argc > 0 && !argv))
        return sb__error(err, SB_EINVAL, "sb_run_set_command: %s",
                         !run ? "run is NULL" : argc < 0 ? "argc is negative"
                                                         : "argv is NULL");
    for (int i = 0; i < argc; i++) {
        if (!argv[i])
            return sb__error(err, SB_EINVAL,
                             "sb_run_set_command: argv[%d] is NULL", i);
        len += strlen(argv[i]) + 1;
    }
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

int sb_run_set_title(sb_run *run, const char *title, sb_error *err)
{
    char *s;
    if (!run || !title)
        return sb__error(err, SB_EINVAL, "sb_run_set_title: %s is NULL",
                         !run ? "run" : "title");
    s = strdup(title);
    if (!s)
        return sb__error(err, SB_ENOMEM, "out of memory");
    free(run->title);
    run->title = s;
    return SB_OK;
}

const char *sb_run_title(const sb_run *run)
{
    return run && run->title ? run->title : "";
}

size_t sb__group_end(const sb_run *run, size_t first)
{
    const sb_cell *a = &run->cells[first].cell;
    size_t e = first + 1;
    while (e < run->ncells) {
        const sb_cell *b = &run->cells[e].cell;
        if (b->kernel != a->kernel || b->size != a->size)
            break;
        e++;
    }
    return e;
}

size_t sb__matrix_width(const sb_run *run, size_t first, size_t end)
{
    size_t w = 1, n = end - first;
    const sb_cell *a = &run->cells[first].cell;
    while (first + w < end &&
           run->cells[first + w].cell.dst_align == a->dst_align)
        w++;
    if (w < 2 || n % w || n / w < 2)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const sb_cell *c = &run->cells[first + i].cell;
        if (c->src_align != run->cells[first + i % w].cell.src_align ||
            c->dst_align != run->cells[first + i / w * w].cell.dst_align)
            return 0;
    }
    return w;
}

/* ---- Stand-ins ------------------------------------------------------- */

/* A stand-in kernel is owned by the run, for a name this build lacks or
 * for imported samples.  It cannot be measured (fn is NULL).  The run's
 * stand-ins are kept sorted by name, for bsearch. */
static int by_name(const void *a, const void *b)
{
    return strcmp(((const sb_kernel *)a)->name, ((const sb_kernel *)b)->name);
}

const sb_kernel *sb__run_own_kernel(const sb_run *run, const char *name)
{
    sb_kernel key = {.name = name};
    return bsearch(&key, run->own_kernels, run->nown, sizeof key, by_name);
}

int sb__run_add_own_kernels(sb_run *run, const char *const *names,
                            const int *family, size_t m)
{
    run->own_kernels = calloc(m ? m : 1, sizeof *run->own_kernels);
    if (!run->own_kernels)
        return SB_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        char *n = sb__clean_copy(names[i]);
        if (!n)
            return SB_ENOMEM;
        run->own_kernels[run->nown++] = (sb_kernel){
            .size = sizeof(sb_kernel),
            .name = n,
            .family = family ? family[i] : SB_FAMILY_EXTERNAL,
            .description = "not measured by this build",
        };
    }
    return SB_OK;
}

void sb__run_sort_own_kernels(sb_run *run)
{
    qsort(run->own_kernels, run->nown, sizeof *run->own_kernels, by_name);
}
