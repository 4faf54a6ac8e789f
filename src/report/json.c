/*
 * report/json.c: the whole run as JSON, built with jansson.
 * The schema ("statbench-run", version 1) is documented in docs/schema.md,
 * and listed once in io/schema.c, which this writer walks in order and
 * the loader (load.c) walks too.  Like every writer it reads the run only
 * through the public accessors: everything the file holds (the raw
 * samples, per-sample counters and flags) is public.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_seed.h"
#include "report.h"
#include "schema.h"


/* JSON has no NaN or infinity: such values become null. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* A string as JSON, with its control characters as '?' (sb__clean_text):
 * text that is not valid UTF-8 (a file name, a host name cut short) could
 * not be written at all, and a C1 control or DEL would reach the
 * terminal of whoever reads the file (jansson escapes only C0). */
static json_t *str(const char *s)
{
    json_t *j;
    char *copy;

    if (!s)
        return json_null();
    copy = strdup(s);
    if (!copy)
        return NULL;
    sb__clean_text(copy);
    j = json_string(copy);
    free(copy);
    return j;
}

static json_t *interval(const sb_interval *i)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "estimate",
                     num(i->estimate), "lo", num(i->lo), "hi", num(i->hi),
                     "level", num(i->level), "achieved", num(i->achieved));
}

static json_t *features(unsigned bits)
{
    json_t *a = json_array();
    for (unsigned b = 0; a && b < 32; b++)
        if (bits & (1u << b))
            json_array_append_new(a, json_string(sb_feature_name(1u << b)));
    return a;
}

static json_t *env(const sb_env *e)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < e->n && i < SB_ENV_MAX; i++)
        json_array_append_new(
            a, json_pack("{s:o, s:o, s:b, s:o}", SB__JK_ENV_KEY,
                         str(e->items[i].key), SB__JK_ENV_VALUE,
                         str(e->items[i].value), SB__JK_ENV_WARN,
                         e->items[i].warn, SB__JK_ENV_ADVICE,
                         str(e->items[i].advice)));
    return a;
}

static json_t *lines(const char *text)
{
    json_t *a = json_array();
    while (a && *text) {
        size_t len = strcspn(text, "\n");
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)len, text);
        json_array_append_new(a, str(buf));
        text += len;
        if (*text)
            text++;
    }
    return a;
}

json_t *sb__json_seed(uint64_t seed)
{
    char buf[24];
    if (seed <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)seed);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    return json_string(buf);
}

/* The value of one plain field of a table (io/schema.h) from the
 * structs of base; NULL for a custom field or when out of memory.
 * Without samples (flag SB__J_SAMPLES) or without two invocation medians
 * (SB__J_LEVELS) a number is null, a count 0 and an interval empty. */
static json_t *plain(const sb__jfield *f, const void *const *base, int have,
                     int levels)
{
    static const sb_interval none = {NAN, NAN, NAN, NAN, NAN};
    const char *at = (const char *)base[f->base] + f->offset;
    int absent = ((f->flags & SB__J_SAMPLES) && !have) ||
                 ((f->flags & SB__J_LEVELS) && !levels);
    double d;
    size_t z;
    int b;
    const char *p;

    switch (f->type) {
    case SB__J_STR:
        return str(at);
    case SB__J_STRPTR:
        memcpy(&p, at, sizeof p);
        return str(p);
    case SB__J_NUM:
        memcpy(&d, at, sizeof d);
        return num(absent ? NAN : d);
    case SB__J_SIZE:
        memcpy(&z, at, sizeof z);
        return json_integer((json_int_t)(absent ? 0 : z));
    case SB__J_INT:
        memcpy(&b, at, sizeof b);
        return json_integer(b);
    case SB__J_BOOL:
        memcpy(&b, at, sizeof b);
        return json_boolean(b);
    case SB__J_INTERVAL:
        return interval(absent ? &none : (const sb_interval *)(const void *)at);
    }
    return NULL;
}


/* meta.caches: [{"level": "L1d", "bytes": 49152}, ...]. */
static json_t *caches(const sb_meta *m)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < m->ncaches && i < SB_MAX_CACHES; i++) {
        json_t *c = json_object();
        if (!c ||
            json_object_set_new(c, SB__JK_CACHE_LABEL,
                                str(m->caches[i].label)) ||
            json_object_set_new(c, SB__JK_CACHE_BYTES,
                                json_integer((json_int_t)m->caches[i].bytes)) ||
            json_array_append_new(a, c)) {
            json_decref(c);
            json_decref(a);
            return json_null();
        }
    }
    return a ? a : json_null();
}

/* What a custom field needs: the run and, for a cell, its index and
 * result (NULL for the meta object). */
typedef struct ctx {
    const sb_run *run;
    size_t idx;
    const sb_cell_result *r;
} ctx;

static json_t *custom(int id, const ctx *x);

/* An object of the fields of table t, in order. */
static json_t *object(const sb__jfield *t, size_t n, const void *const *base,
                      const ctx *x, int have, int levels)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < n; i++) {
        const sb__jfield *f = &t[i];
        json_t *v = f->type == SB__J_CUSTOM   ? custom(f->custom, x)
                    : f->type == SB__J_OBJECT ? object(f->sub, f->nsub, base,
                                                       x, have, levels)
                                              : plain(f, base, have, levels);
        if (!v || json_object_set_new(o, f->key, v) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *meta(const sb_run *run)
{
    const void *base[SB__J_NBASES] = {sb_run_meta(run),
                                      sb_run_measure_options(run),
                                      sb_run_analysis_options(run), NULL};
    ctx x = {run, 0, NULL};
    return object(sb__json_meta, sb__json_nmeta, base, &x, 1, 1);
}

static json_t *comparison(const sb_comparison *c)
{
    if (!c)
        return json_null();
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:s, s:o, "
                     "s:b, s:o}",
                     "base", (json_int_t)c->base, "ratio",
                     interval(&c->ratio), "p", num(c->p), "p_adjusted",
                     num(c->p_adjusted), "a12", num(c->a12), "mde",
                     num(c->mde), "verdict", sb_verdict_name(c->verdict),
                     "test", str(c->test), "run_level",
                     sb_run_level_name((int)c->run_level), "run_sd",
                     num(c->run_sd), "withheld", c->withheld != 0,
                     "shared_bound", num(c->shared_bound));
}

static json_t *counters(const sb_cell_result *r)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < r->ncounters && i < SB_MAX_COUNTERS; i++)
        json_object_set_new(
            o, r->counters[i].name,
            json_pack("{s:o, s:o}", SB__JK_PER_CALL,
                      interval(&r->counters[i].per_call), SB__JK_PER_BYTE,
                      num(r->counters[i].per_byte)));
    return o;
}

/* Counts by reject reason: rejected (disturbed 0) or disturbed. */
static json_t *by_reason(const size_t *count)
{
    json_t *o = json_object();
    for (int k = 0; o && k < SB_REJECT_NREASONS; k++)
        json_object_set_new(o, sb_reject_name(k),
                            json_integer((json_int_t)count[k]));
    return o;
}

/* Per-sample counter values, in the order of samples_ticks. */
static json_t *samples_counters(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    json_t *sc = json_object();
    for (size_t k = 0; sc && k < r->ncounters; k++) {
        const double *v = sb_run_counter_samples(run, idx, k);
        json_t *a = json_array();
        for (size_t i = 0; a && v && i < r->nsamples; i++)
            json_array_append_new(a, num(v[i]));
        json_object_set_new(sc, r->counters[k].name, a ? a : json_null());
    }
    return sc ? sc : json_null();
}

/* Per-sample disturbance bits, in the order of samples_ticks. */
static json_t *samples_flags(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    const unsigned char *flags = sb_run_sample_flags(run, idx);
    json_t *fl = json_array();
    for (size_t i = 0; fl && flags && i < r->nsamples; i++)
        json_array_append_new(fl, json_integer(flags[i]));
    return fl ? fl : json_null();
}

/* Per-sample core clocks (core cycles per tick), in the order of
 * samples_ticks; null for a cell none of whose samples has one. */
static json_t *samples_clock(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    const double *clock = sb_run_sample_clock(run, idx);
    json_t *a;

    if (!clock || r->clock_samples == 0)
        return json_null();
    a = json_array();
    for (size_t i = 0; a && i < r->nsamples; i++)
        json_array_append_new(a, num(clock[i]));
    return a ? a : json_null();
}

/* n samples' probe readings (SB_PROBE_READINGS each) as an array of
 * arrays, null for a reading not made; null for none at all. */
static json_t *readings(const double *p, size_t n)
{
    json_t *a;
    if (!p)
        return json_null();
    a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        json_t *one = json_array();
        for (size_t k = 0; one && k < SB_PROBE_READINGS; k++)
            json_array_append_new(one, num(p[i * SB_PROBE_READINGS + k]));
        json_array_append_new(a, one ? one : json_null());
    }
    return a ? a : json_null();
}

static json_t *numbers(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, num(v[i]));
    return a;
}

static json_t *sizes(const size_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

/* The samples held for a shared core alone (sb_run_held_samples), with
 * the columns of the kept ones; null when the cell holds none. */
static json_t *held(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    sb_held_samples h = {.size = sizeof h};
    json_t *o, *fl, *sc;

    if (sb_run_held_samples(run, idx, &h, NULL) != SB_OK || !h.n)
        return json_null();
    fl = json_array();
    for (size_t i = 0; fl && h.flags && i < h.n; i++)
        json_array_append_new(fl, json_integer(h.flags[i]));
    sc = json_object();
    for (size_t k = 0; sc && k < r->ncounters; k++)
        json_object_set_new(sc, r->counters[k].name,
                            h.counters[k] ? numbers(h.counters[k], h.n)
                                          : json_null());
    o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                  SB__JK_SAMPLES_TICKS, numbers(h.ticks, h.n),
                  SB__JK_INVOCATION_SAMPLES,
                  sizes(h.invocation_samples, r->invocations),
                  SB__JK_HELD_AT, sizes(h.at, h.n), SB__JK_SAMPLES_FLAGS,
                  fl ? fl : json_null(), SB__JK_SAMPLES_CLOCK,
                  h.clock ? numbers(h.clock, h.n) : json_null(),
                  SB__JK_SAMPLES_PROBES, readings(h.probes, h.n),
                  SB__JK_SAMPLES_COUNTERS, sc ? sc : json_null());
    return o ? o : json_null();
}

/* The custom fields of the run and its record of the machine (NULL for
 * an id of the cells'). */
static json_t *custom_run(int id, const ctx *x)
{
    const sb_run *run = x->run;
    const sb_meta *m = sb_run_meta(run);
    const sb_measure_options *o = sb_run_measure_options(run);
    const sb_analysis_options *an = sb_run_analysis_options(run);
    const sb_cell_result *r = x->r; /* the kernel's name is the cell's */
    json_t *a;

    switch (id) {
    case SB__JC_KERNEL:
        return str(r->cell.kernel->name);
    case SB__JC_COMMAND:
        return str(sb_run_command(run));
    case SB__JC_CPU_FEATURES:
        return features(m->cpu_features);
    case SB__JC_SEED:
        return sb__json_seed(o->seed);
    case SB__JC_TIMER_KIND:
        return json_string(sb__timer_kind_of(m->timer.kind)->json);
    case SB__JC_TICK_UNIT:
        return json_string(sb__timer_kind_of(m->timer.kind)->tick);
    case SB__JC_OUTLIERS:
        return json_string(sb_outlier_policy_name(an->outliers));
    case SB__JC_CACHE:
        return json_string(sb_cache_name(o->cache));
    case SB__JC_REJECT:
        return json_string(o->reject == SB_REJECT_NONE
                               ? SB__JV_REJECT_NONE
                               : "disturbed");
    case SB__JC_COUNTER_NAMES:
        a = json_array();
        for (size_t i = 0; a && i < m->ncounters && i < SB_MAX_COUNTERS; i++)
            json_array_append_new(a, str(m->counter_names[i]));
        return a ? a : json_null();
    case SB__JC_NOTES:
        return lines(m->notes);
    case SB__JC_CACHES:
        return caches(m);
    case SB__JC_INV_CLOCK:
    case SB__JC_INV_QUIET:
        /* Every invocation's, not only the first SB_PROBE_MAX_INV that
         * sb_meta holds. */
        a = json_array();
        for (size_t i = 0; a && i < sb_run_invocation_probes(run); i++)
            json_array_append_new(a, num(id == SB__JC_INV_CLOCK
                                             ? sb_run_invocation_clock(run, i)
                                             : sb_run_invocation_quiet(run,
                                                                       i)));
        return a ? a : json_null();
    case SB__JC_ENV:
        return env(&m->env);
    default:
        return NULL;
    }
}

/* The custom fields of a cell (NULL for an id of the run's). */
static json_t *custom_cell(int id, const ctx *x)
{
    const sb_run *run = x->run;
    const sb_analysis_options *an = sb_run_analysis_options(run);
    const sb_cell_result *r = x->r;
    json_t *a;

    switch (id) {
    case SB__JC_FAMILY:
        return json_string(sb_family_name(r->cell.kernel->family));
    case SB__JC_REJECTED:
        return by_reason(r->rejected);
    case SB__JC_INVOCATION_SAMPLES:
        a = json_array();
        for (size_t i = 0; a && i < r->invocations; i++)
            json_array_append_new(
                a, json_integer((json_int_t)r->inv_nsamples[i]));
        return a;
    case SB__JC_RUN_MEDIANS:
        if (r->runs < 2 || !r->run_median)
            return json_null();
        a = json_array();
        for (size_t i = 0; a && i < r->runs; i++)
            json_array_append_new(a, num(r->run_median[i]));
        return a;
    case SB__JC_RUN_BETWEEN:
        return num(r->run_levels.m >= 2 ? r->run_levels.between_fraction
                                        : NAN);
    case SB__JC_INVOCATION_MEDIANS:
        a = json_array();
        for (size_t i = 0; a && i < r->invocations; i++)
            json_array_append_new(a,
                                  num(r->inv_median ? r->inv_median[i] : NAN));
        return a;
    case SB__JC_COMPARISON:
        return comparison(sb_run_comparison(run, x->idx));
    case SB__JC_SAMPLES_TICKS:
        a = json_array();
        for (size_t i = 0; a && i < r->nsamples; i++)
            json_array_append_new(a, num(r->ticks[i]));
        return a;
    case SB__JC_DISTURBED: {
        json_t *d = by_reason(r->disturbed);
        return d ? d : json_null();
    }
    case SB__JC_COUNTERS:
        return counters(r);
    case SB__JC_SAMPLES_COUNTERS:
        return samples_counters(run, x->idx);
    case SB__JC_SAMPLES_FLAGS:
        return samples_flags(run, x->idx);
    case SB__JC_METRIC:
        return json_string(sb_metric_name(an->metric));
    case SB__JC_CELL_METRIC:
        return json_string(sb_metric_name(r->metric));
    case SB__JC_SAMPLES_CLOCK:
        return samples_clock(run, x->idx);
    case SB__JC_SAMPLES_PROBES:
        return readings(sb_run_sample_probes(run, x->idx), r->nsamples);
    case SB__JC_HELD:
        return held(run, x->idx);
    case SB__JC_SHARED_MARGIN:
        return an->shared_margin < 0 ? json_null() : num(an->shared_margin);
    case SB__JC_SHARED_LEVEL:
        return an->shared_margin < 0
                   ? json_null()
                   : json_string(sb_shared_level_name((int)an->shared_level));
    case SB__JC_CHAIN_APART:
        return an->chain_apart < 0 ? json_null() : num(an->chain_apart);
    }
    return NULL;
}

/* A field the schema marks SB__J_CUSTOM: one of the run's, or one of a
 * cell's. */
static json_t *custom(int id, const ctx *x)
{
    json_t *v = custom_run(id, x);
    return v ? v : custom_cell(id, x);
}

static json_t *cell(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    const void *base[SB__J_NBASES] = {NULL, NULL, NULL, r};
    ctx x = {run, idx, r};
    return object(sb__json_cell, sb__json_ncell, base, &x, r->nsamples > 0,
                  r->levels.m >= 2);
}

/* A run merged from several (statbench merge): each run's machine and
 * start, and the run every invocation came from. */
static int merged(const sb_run *run, json_t *root)
{
    json_t *runs = json_array(), *inv = json_array();
    int bad = !runs || !inv;

    for (size_t r = 0; !bad && r < sb_run_runs(run); r++) {
        const sb_meta *m = sb_run_run_meta(run, r);
        json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                              "hostname", str(m->hostname), "cpu_model",
                              str(m->cpu_model), "kernel_version",
                              str(m->kernel_version), "statbench_version",
                              str(m->statbench_version), "start_time",
                              str(m->start_time), "timer_hz",
                              num(m->timer.hz), "clock_source",
                              str(m->probe));
        bad = !o || json_array_append_new(runs, o) != 0;
    }
    for (size_t g = 0; !bad && g < sb_run_invocations(run); g++)
        bad = json_array_append_new(
                  inv, json_integer((json_int_t)sb_run_invocation_run(
                           run, g))) != 0;
    if (bad) {
        json_decref(runs);
        json_decref(inv);
        return -1;
    }
    return json_object_set_new(root, SB__JK_MERGED_RUNS, runs) ||
           json_object_set_new(root, SB__JK_INVOCATION_RUN, inv);
}

/* The kernels loaded from shared objects: where each came from, so that
 * a comparison can tell which builds it compared. */
static int loaded(const sb_run *run, json_t *root)
{
    json_t *a = json_array();
    int bad = !a;

    for (size_t i = 0; !bad && i < sb_run_loaded_count(run); i++) {
        const sb_kernel_origin *o = sb_run_loaded(run, i);
        json_t *e = json_pack(
            "{s:o, s:o, s:o, s:o, s:I, s:I}", "name", str(o->name), "path",
            str(o->path), "symbol", str(o->symbol), "build_id",
            o->build_id[0] ? str(o->build_id) : json_null(), "file_size",
            (json_int_t)o->file_size, "file_mtime", (json_int_t)o->file_mtime);
        if (e && o->warning && o->warning[0])
            bad = json_object_set_new(e, "warning", str(o->warning)) != 0;
        bad = bad || !e || json_array_append_new(a, e) != 0;
    }
    if (bad) {
        json_decref(a);
        return -1;
    }
    return json_object_set_new(root, SB__JK_LOADED_KERNELS, a);
}

int sb__write_json(const sb_run *run, FILE *f, sb_error *err)
{
    json_t *cells = json_array(), *root;
    int rc;

    for (size_t i = 0; cells && i < sb_run_count(run); i++) {
        json_t *c = cell(run, i);
        if (!c || json_array_append_new(cells, c) != 0) {
            json_decref(cells);
            return sb__error(err, SB_ENOMEM, "building the JSON failed");
        }
    }
    root = json_pack("{s:s, s:i, s:o, s:b, s:o, s:I, s:I, s:o}",
                     SB__JK_SCHEMA, SB__JSON_SCHEMA, SB__JK_SCHEMA_VERSION,
                     SB__JSON_SCHEMA_VERSION, SB__JK_META, meta(run),
                     SB__JK_INTERRUPTED, sb_run_interrupted(run),
                     SB__JK_ELAPSED, num(sb_run_elapsed(run)), SB__JK_ROUNDS,
                     (json_int_t)sb_run_rounds(run), SB__JK_INVOCATIONS_RUN,
                     (json_int_t)sb_run_invocations(run), SB__JK_CELLS,
                     cells);
    if (!root)
        return sb__error(err, SB_ENOMEM, "building the JSON failed");
    /* Samples from elsewhere (analyze) may be any finite value, in their
     * own unit: the loader must know not to read them as times. */
    if (sb_run_imported(run))
        json_object_set_new(root, SB__JK_IMPORTED, json_true());
    /* Their unit, when the maker of the run said it (statbench cmd). */
    if (sb_run_imported(run) && *sb_run_unit(run))
        json_object_set_new(root, SB__JK_UNIT, str(sb_run_unit(run)));
    if ((sb_run_runs(run) >= 2 && merged(run, root) != 0) ||
        (sb_run_loaded_count(run) && loaded(run, root) != 0)) {
        json_decref(root);
        return sb__error(err, SB_ENOMEM, "building the JSON failed");
    }
    rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
        return sb__error(err, SB_EIO, "writing the JSON failed");
    return SB_OK;
}
