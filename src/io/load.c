/*
 * load.c: a saved JSON run read back (for compare and report; samples
 * from any tool, for analyze, are import.c's).  The keys of the JSON are
 * the schema's list (io/schema.h), shared with the writer.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "loaded.h"
#include "plan.h"
#include "schema.h"
#include "meta.h"
#include "run_internal.h"

/* Names and families of stand-ins, sorted by name to drop repeats. */
struct stand_in {
    const char *name;
    int family;
};

static int by_stand_in(const void *a, const void *b)
{
    return strcmp(((const struct stand_in *)a)->name,
                  ((const struct stand_in *)b)->name);
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *get_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int get_num(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 0;
    }
    if (json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    return -1;
}

static int get_size(json_t *o, const char *key, size_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (size_t)json_integer_value(v);
    return 0;
}

/* Every string of a loaded run is printed somewhere (the header, a
 * note, a message): its control characters become '?' here, once. */
static void copy_str(char *dst, size_t len, json_t *o, const char *key)
{
    const char *s = get_str(o, key);
    snprintf(dst, len, "%s", s ? s : "");
    sb__clean_text(dst);
}

/* The saved fields the loader could not take, kept for the run's notes
 * once the file's own notes are in (a library never prints). */
struct skipped {
    char key[8][96];
    size_t n;
};

static void note_skipped(void *arg, const char *path, const char *key)
{
    struct skipped *k = arg;
    if (k->n < sizeof k->key / sizeof *k->key)
        snprintf(k->key[k->n++], sizeof k->key[0], "%s.%s", path, key);
}

/* The run goes on with the default of each, and its notes say so. */
static void note_skips(sb_meta *meta, const struct skipped *k)
{
    for (size_t i = 0; i < k->n; i++)
        sb__meta_note(meta, "loaded: %s is not a valid value of its kind "
                      "(the wrong type, or out of range): the default is "
                      "used", k->key[i]);
}

/* A seed written as a string: 1 to 20 decimal digits that fit in 64 bits
 * (anything else leaves *out alone). */
static int parse_seed(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;

    for (i = 0; s[i]; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (i > 0)
        *out = v;
    return i > 0;
}

/* The arrays of meta: the notes (one string per line), the environment
 * audit's findings and the counters read around every sample, in order. */
static int load_meta_arrays(sb_run *run, json_t *m)
{
    sb_meta *meta = &run->meta;

    {
        /* notes: one string per line */
        json_t *notes = json_object_get(m, SB__JK_NOTES), *v;
        size_t i;
        json_array_foreach(notes, i, v)
        {
            char line[sizeof meta->notes];
            if (!json_is_string(v))
                continue;
            snprintf(line, sizeof line, "%s", json_string_value(v));
            sb__clean_text(line); /* a newline would split it */
            sb__meta_note(meta, "%s", line);
        }
    }
    {
        json_t *env = json_object_get(m, SB__JK_ENV), *v;
        size_t i;
        json_array_foreach(env, i, v)
        {
            sb_env_item *it;
            if (!json_is_object(v) || meta->env.n >= SB_ENV_MAX)
                continue;
            it = &meta->env.items[meta->env.n++];
            copy_str(it->key, sizeof it->key, v, SB__JK_ENV_KEY);
            copy_str(it->value, sizeof it->value, v, SB__JK_ENV_VALUE);
            copy_str(it->advice, sizeof it->advice, v, SB__JK_ENV_ADVICE);
            it->warn = json_is_true(json_object_get(v, SB__JK_ENV_WARN));
        }
    }
    {
        /* The counters read around every sample, in order. */
        json_t *names = json_object_get(m, SB__JK_COUNTER_NAMES), *v;
        size_t i;
        json_array_foreach(names, i, v)
        {
            if (!json_is_string(v) || meta->ncounters >= SB_MAX_COUNTERS)
                continue;
            snprintf(meta->counter_names[meta->ncounters],
                     sizeof meta->counter_names[0], "%s",
                     json_string_value(v));
            /* Cleaned: per-sample counters of a name with controls are
             * then not found, and read as missing. */
            sb__clean_text(meta->counter_names[meta->ncounters++]);
        }
    }
    {
        /* The caches of the CPU measured on: a level's name (at most 7
         * bytes, never cut; cleaned) and a whole positive size, at most
         * SB_MAX_CACHES; an entry that is not one is skipped, as a file
         * without them has none. */
        json_t *caches = json_object_get(m, SB__JK_CACHES), *v;
        size_t i;
        meta->ncaches = 0;
        json_array_foreach(caches, i, v)
        {
            json_t *l = json_object_get(v, SB__JK_CACHE_LABEL);
            json_t *b = json_object_get(v, SB__JK_CACHE_BYTES);
            sb_cache_size *c = &meta->caches[meta->ncaches];
            if (meta->ncaches >= SB_MAX_CACHES || !json_is_string(l) ||
                !json_string_length(l) ||
                json_string_length(l) >= sizeof c->label ||
                !json_is_integer(b) || json_integer_value(b) <= 0)
                continue;
            snprintf(c->label, sizeof c->label, "%s", json_string_value(l));
            sb__clean_text(c->label);
            c->bytes = (size_t)json_integer_value(b);
            meta->ncaches++;
        }
    }
    {
        /* The probes' figures per invocation: positive numbers, or null
         * for one not known; anything else is read as not known. */
        json_t *p = json_object_get(m, SB__JK_PROBES);
        json_t *c = json_object_get(p, SB__JK_INV_CLOCK);
        json_t *q = json_object_get(p, SB__JK_INV_QUIET);
        size_t n = json_array_size(c) > json_array_size(q)
                       ? json_array_size(c)
                       : json_array_size(q);
        /* Every invocation's, into the run (and the first
         * SB_PROBE_MAX_INV into meta, as before). */
        meta->probe_ninv = 0;
        for (size_t i = 0; i < n; i++) {
            json_t *a = json_array_get(c, i), *b = json_array_get(q, i);
            if (sb__run_invocation_probe(
                    run, i,
                    json_is_number(a) && json_number_value(a) > 0
                        ? json_number_value(a)
                        : NAN,
                    json_is_number(b) && json_number_value(b) > 0
                        ? json_number_value(b)
                        : NAN) != SB_OK)
                return SB_ENOMEM;
        }
    }
    return SB_OK;
}

/* meta.cpu, an integer from -1 below 2^20 (else -1), and the CPU's
 * features by the names this build gives them. */
static void load_cpu(sb_meta *meta, json_t *m)
{
    json_t *cpu = json_object_get(m, SB__JK_CPU);
    json_t *f = json_object_get(m, SB__JK_CPU_FEATURES), *v;
    size_t i;

    meta->cpu = json_is_integer(cpu) && json_integer_value(cpu) >= -1 &&
                        json_integer_value(cpu) < (1 << 20)
                    ? (int)json_integer_value(cpu)
                    : -1;
    json_array_foreach(f, i, v)
    {
        for (unsigned b = 0; b < 32; b++)
            if (json_is_string(v) &&
                !strcmp(sb_feature_name(1u << b), json_string_value(v)))
                meta->cpu_features |= 1u << b;
    }
}

/* meta.timer: its rate is required, since every time of the run is in
 * its ticks; its kind, when given, must be one this build knows. */
static int load_timer(sb_run *run, json_t *m, const char *name,
                      sb_error *err)
{
    sb_meta *meta = &run->meta;
    json_t *t = json_object_get(m, SB__JK_TIMER);

    if (!json_is_object(t) || get_num(t, SB__JK_HZ, &meta->timer.hz) ||
        !(meta->timer.hz > 0))
        return sb__error(err, SB_EIO,
                         "%s: missing or bad \"" SB__JK_META "." SB__JK_TIMER
                         "." SB__JK_HZ "\"",
                         name);
    /* Without a kind (a minimal file), ticks at hz are nanoseconds at
     * 1e9; a kind this build does not know has ticks it cannot name. */
    if (!get_str(t, SB__JK_KIND)) {
        meta->timer.kind = SB_TIMER_CLOCK;
    } else if (sb__timer_kind_json(get_str(t, SB__JK_KIND)) >= 0) {
        meta->timer.kind = sb__timer_kind_json(get_str(t, SB__JK_KIND));
    } else {
        char bad[48];
        snprintf(bad, sizeof bad, "%s", get_str(t, SB__JK_KIND));
        sb__clean_text(bad);
        return sb__error(err, SB_EIO,
                         "%s: unknown \"" SB__JK_META "." SB__JK_TIMER
                         "." SB__JK_KIND "\" '%s': not a timer this build knows",
                         name, bad);
    }
    copy_str(run->hz_source, sizeof run->hz_source, t, SB__JK_HZ_SOURCE);
    meta->timer.hz_source = run->hz_source;
    return SB_OK;
}

/* The seed is meta's, with or without options beside it. */
static void load_seed(sb_run *run, json_t *m)
{
    json_t *seed = json_object_get(m, SB__JK_SEED);

    /* A negative integer is what earlier versions wrote for a seed
     * above INT64_MAX: the same 64 bits.  Now such a seed is a string
     * of decimal digits. */
    if (json_is_integer(seed))
        run->measure.seed = (uint64_t)json_integer_value(seed);
    else if (json_is_string(seed) &&
             parse_seed(json_string_value(seed), &run->measure.seed))
        ;
    else if (seed && !json_is_null(seed))
        sb__meta_note(&run->meta, "loaded: meta.seed is not a seed (an "
                      "integer, or up to 20 digits below 2^64): the "
                      "default is used");
}

/* meta.options by name: the cache state, the reject policy and the
 * metric; a name this build does not know leaves the default, said. */
static void load_options(sb_run *run, json_t *m)
{
    sb_meta *meta = &run->meta;
    json_t *o = json_object_get(m, SB__JK_OPTIONS);

    if (json_is_object(o)) {
        sb_measure_options *op = &run->measure;
        const char *cache = get_str(o, SB__JK_CACHE);
        const char *reject = get_str(o, SB__JK_REJECT);
        const char *metric = get_str(o, SB__JK_METRIC);
        if (cache && !strcmp(cache, sb_cache_name(SB_CACHE_COLD)))
            op->cache = SB_CACHE_COLD;
        if (reject && !strcmp(reject, SB__JV_REJECT_NONE))
            op->reject = SB_REJECT_NONE;
        /* Absent (an older file): auto, the default; unknown: the same,
         * said. */
        if (metric && sb_metric_parse(metric) >= 0)
            run->analysis.metric = sb_metric_parse(metric);
        if ((cache && sb_cache_parse(cache) < 0) ||
            (reject && sb_reject_policy_parse(reject) < 0) ||
            (metric && sb_metric_parse(metric) < 0))
            sb__meta_note(meta, "loaded: meta.options.%s '%s' is unknown: "
                          "the default is used",
                          cache && sb_cache_parse(cache) < 0 ? "cache"
                          : reject && sb_reject_policy_parse(reject) < 0
                              ? "reject"
                              : "metric",
                          cache && sb_cache_parse(cache) < 0 ? cache
                          : reject && sb_reject_policy_parse(reject) < 0
                              ? reject
                              : metric);
    }
}

static int load_meta(sb_run *run, json_t *root, const char *name,
                     sb_error *err)
{
    json_t *m = json_object_get(root, SB__JK_META);
    sb_meta *meta = &run->meta;
    void *const base[SB__J_NBASES] = {meta, &run->measure, &run->analysis,
                                      NULL};
    struct skipped skipped = {0};
    int rc;

    if (!json_is_object(m))
        return sb__error(err, SB_EIO, "%s: missing \"" SB__JK_META "\"",
                         name);
    /* The plain fields (strings, the timer's overhead, the interrupt rate,
     * the options in their ranges), as the schema's list says; the rest
     * by hand below. */
    meta->interrupts_per_second = NAN;
    meta->check_cost_seconds = NAN;
    sb__meta_probe_unknown(meta);
    sb__json_load_fields(sb__json_meta, sb__json_nmeta, m, base,
                         SB__JK_META, note_skipped, &skipped);
    load_cpu(meta, m);
    if (get_str(m, SB__JK_COMMAND)) {
        run->command = sb__clean_copy(get_str(m, SB__JK_COMMAND));
        if (!run->command)
            return sb__error(err, SB_ENOMEM, "out of memory");
    }
    if ((rc = load_timer(run, m, name, err)) != SB_OK)
        return rc;
    if (load_meta_arrays(run, m) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    /* A report lists the notes as they were added: the file's own (with
     * the arrays), then the fields skipped, the seed's, the options'. */
    note_skips(meta, &skipped);
    load_seed(run, m);
    load_options(run, m);
    return SB_OK;
}

/* The times of cell i (r): finite, and above zero for a measured cell of
 * some size.  *out receives a new array of them. */
static int load_ticks(const sb_run *run, const sb_cell_result *r,
                      json_t *samples, const char *name, size_t i,
                      const char *in, double **out, sb_error *err)
{
    size_t ns = json_array_size(samples);
    double *all = malloc((ns + 1) * sizeof *all);

    if (!all)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t j = 0; j < ns; j++) {
        json_t *v = json_array_get(samples, j);
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!json_is_number(v) || !isfinite(x)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: not a finite number",
                             name, i, in, j);
        }
        if (fabs(x) > SB_VALUE_MAX) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is beyond 1e300 in magnitude, where "
                             "a sum or a midpoint of two values overflows",
                             name, i, in, j, x);
        }
        /* A measured cell of some size has times: one not above zero is
         * nonsense that would print as a negative or infinite MB/s.
         * Imported values (analyze) are in their own unit, and a cell of
         * no size (an empty region) may measure below the timer's
         * overhead. */
        if (!run->imported && r->cell.size > 0 && !(x > 0)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is not a positive time",
                             name, i, in, j, x);
        }
        /* A time so small (a subnormal, 1e-310) that the cell's MB/s,
         * size x rate / time, overflows to inf is no time either. */
        if (!run->imported && r->cell.size > 0 &&
            !isfinite((double)r->cell.size * run->meta.timer.hz / x)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is too small to be a time (%zu "
                             "bytes in it overflow the MB/s)",
                             name, i, in, j, x, r->cell.size);
        }
        all[j] = x;
    }
    *out = all;
    return SB_OK;
}

/* The per-sample core clocks of a cell of ns samples into a new *clk
 * when the file has them (an older file has not: NULL, every clock
 * unknown).  A clock that is not a positive finite number is unknown
 * (NAN).  0, or -1 when out of memory. */
static int load_clock(json_t *c, size_t ns, double **clk)
{
    json_t *a = json_object_get(c, SB__JK_SAMPLES_CLOCK);

    if (!json_is_array(a) || json_array_size(a) != ns)
        return 0;
    *clk = malloc((ns + 1) * sizeof **clk);
    if (!*clk)
        return -1;
    for (size_t q = 0; q < ns; q++) {
        json_t *v = json_array_get(a, q);
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        (*clk)[q] = isfinite(x) && x > 0 ? x : NAN;
    }
    return 0;
}

/* The probe readings of ns samples (SB_PROBE_READINGS each) into a new
 * *out when the object c has them, one array of readings per sample (an
 * older file has none: NULL).  A reading that is not a positive finite
 * number was not made (NAN).  0, or -1 when out of memory. */
static int load_probes(json_t *c, size_t ns, double **out)
{
    json_t *a = json_object_get(c, SB__JK_SAMPLES_PROBES);

    if (!json_is_array(a) || json_array_size(a) != ns)
        return 0;
    *out = malloc((ns + 1) * SB_PROBE_READINGS * sizeof **out);
    if (!*out)
        return -1;
    for (size_t q = 0; q < ns; q++) {
        json_t *one = json_array_get(a, q);
        for (size_t k = 0; k < SB_PROBE_READINGS; k++) {
            json_t *v = json_is_array(one) ? json_array_get(one, k) : NULL;
            double x = json_is_number(v) ? json_number_value(v) : NAN;
            (*out)[q * SB_PROBE_READINGS + k] = isfinite(x) && x > 0 ? x
                                                                   : NAN;
        }
    }
    return 0;
}

/* The per-sample counters (sample-major, in meta.counter_names' order)
 * and disturbance flags of a cell of ns samples, when the file has them:
 * *ctr and *flags receive new arrays, or stay NULL.  0, or -1 when out of
 * memory. */
static int load_columns(const sb_run *run, json_t *c, size_t ns,
                        double **ctr, unsigned char **flags)
{
    json_t *sc = json_object_get(c, SB__JK_SAMPLES_COUNTERS);
    json_t *fl = json_object_get(c, SB__JK_SAMPLES_FLAGS);
    size_t nc = run->meta.ncounters;
    if (json_is_object(sc) && nc) {
        *ctr = malloc((ns + 1) * nc * sizeof **ctr);
        if (!*ctr)
            return -1;
        for (size_t j = 0; j < nc; j++) {
            json_t *a = json_object_get(sc, run->meta.counter_names[j]);
            for (size_t q = 0; q < ns; q++) {
                json_t *v = json_is_array(a) ? json_array_get(a, q) : NULL;
                (*ctr)[q * nc + j] =
                    json_is_number(v) ? json_number_value(v) : NAN;
            }
        }
    }
    if (json_is_array(fl) && json_array_size(fl) == ns) {
        *flags = malloc(ns + 1);
        if (!*flags) {
            free(*ctr);
            *ctr = NULL;
            return -1;
        }
        for (size_t q = 0; q < ns; q++) {
            json_t *v = json_array_get(fl, q);
            (*flags)[q] = json_is_integer(v)
                              ? (unsigned char)json_integer_value(v)
                              : 0;
        }
    }
    return 0;
}

/* The samples of one object of a cell (the cell's kept ones, or its
 * held ones): their ticks, counters, flags, clocks and probe readings. */
struct set {
    size_t n;
    double *ticks, *ctr, *clk, *probes;
    unsigned char *flags;
    size_t *at; /* held samples: their places (held.at) */
};

static void set_free(struct set *s)
{
    free(s->ticks);
    free(s->ctr);
    free(s->clk);
    free(s->probes);
    free(s->flags);
    free(s->at);
    memset(s, 0, sizeof *s);
}

/* The samples of object o of cell i, "in" naming o in messages. */
static int load_set(sb_run *run, const sb_cell_result *r, json_t *o,
                    const char *name, size_t i, const char *in,
                    struct set *s, sb_error *err)
{
    json_t *t = json_object_get(o, SB__JK_SAMPLES_TICKS);
    int rc;

    if (!json_is_array(t))
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                         ": missing, or not an array",
                         name, i, in);
    s->n = json_array_size(t);
    rc = load_ticks(run, r, t, name, i, in, &s->ticks, err);
    if (rc != SB_OK)
        return rc;
    if (load_columns(run, o, s->n, &s->ctr, &s->flags) != 0 ||
        load_clock(o, s->n, &s->clk) != 0 ||
        load_probes(o, s->n, &s->probes) != 0)
        return sb__error(err, SB_ENOMEM, "out of memory");
    if (*in) {
        json_t *at = json_object_get(o, SB__JK_HELD_AT);
        if (!json_is_array(at) || json_array_size(at) != s->n)
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_HELD_AT
                             ": not an array of one place per held sample",
                             name, i, in);
        if (!(s->at = malloc((s->n + 1) * sizeof *s->at)))
            return sb__error(err, SB_ENOMEM, "out of memory");
        for (size_t q = 0; q < s->n; q++) {
            json_t *v = json_array_get(at, q);
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].%s" SB__JK_HELD_AT
                                 "[%zu]: not a place (an integer >= 0)",
                                 name, i, in, q);
            s->at[q] = (size_t)json_integer_value(v);
        }
    }
    return SB_OK;
}

/* A raw cell of s's n samples from sample at on. */
static void raw_of(const sb_run *run, const struct set *s, size_t at,
                   size_t n, sb__raw_cell *raw)
{
    size_t nc = run->meta.ncounters;
    raw->nsamples = n;
    raw->ticks = s->ticks + at;
    raw->ncounters = s->ctr ? nc : 0;
    raw->counter_names = run->meta.counter_names;
    raw->counters = s->ctr ? s->ctr + at * nc : NULL;
    raw->flags = s->flags ? s->flags + at : NULL;
    raw->clock = s->clk ? s->clk + at : NULL;
    raw->probes = s->probes ? s->probes + at * SB_PROBE_READINGS : NULL;
}

/* invocation_samples[g] of array invs, into *n: 0, or -1 when it is not
 * a count that fits in left. */
static int inv_count(json_t *invs, size_t g, size_t left, size_t *n)
{
    json_t *v = json_array_get(invs, g);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        (size_t)json_integer_value(v) > left)
        return -1;
    *n = (size_t)json_integer_value(v);
    return 0;
}

/* Cell i's invocations from its kept samples and (held an object) its
 * held ones, split by their invocation_samples (one invocation when the
 * cell has none). */
static int add_invocations(sb_run *run, size_t i, json_t *invs,
                           json_t *held, const struct set *kept,
                           const struct set *hold, const char *name,
                           sb_error *err)
{
    size_t ninv = json_is_array(invs) ? json_array_size(invs) : 0;
    json_t *hinv = json_is_object(held)
                       ? json_object_get(held, SB__JK_INVOCATION_SAMPLES)
                       : NULL;
    size_t at = 0, hat = 0, groups = ninv ? ninv : 1;

    /* An empty list is not "no boundaries": it says the samples belong to
     * no invocation. */
    if (json_is_array(invs) && ninv == 0 && kept->n > 0)
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_INVOCATION_SAMPLES
                         ": an empty list for %zu samples (leave it out "
                         "for one invocation)",
                         name, i, kept->n);
    if (hold->n && (!json_is_array(hinv) ||
                    json_array_size(hinv) != groups))
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_HELD
                         "." SB__JK_INVOCATION_SAMPLES
                         ": not one count per invocation (%zu)",
                         name, i, groups);
    for (size_t g = 0; g < groups; g++) {
        sb__raw_cell raw = {0}, rh = {0};
        size_t nk = kept->n, nh = 0;
        if (ninv && inv_count(invs, g, kept->n - at, &nk) != 0)
            return sb__error(err, SB_EIO,
                             "%s: cell %zu: \"" SB__JK_INVOCATION_SAMPLES
                             "\" does not add up to the samples",
                             name, i);
        if (hold->n && inv_count(hinv, g, hold->n - hat, &nh) != 0)
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu]." SB__JK_HELD
                             "." SB__JK_INVOCATION_SAMPLES
                             " does not add up to the held samples",
                             name, i);
        /* The places of an invocation's held samples: rising, among its
         * nk + nh recorded samples. */
        for (size_t q = 0; q < nh; q++)
            if (hold->at[hat + q] >= nk + nh ||
                (q && hold->at[hat + q] <= hold->at[hat + q - 1]))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu]." SB__JK_HELD
                                 "." SB__JK_HELD_AT "[%zu]: %zu is not "
                                 "a place after the one before among "
                                 "the invocation's %zu samples",
                                 name, i, hat + q, hold->at[hat + q],
                                 nk + nh);
        raw_of(run, kept, at, nk, &raw);
        if (hold->n) {
            raw_of(run, hold, hat, nh, &rh);
            raw.held = &rh;
            raw.held_at = hold->at + hat;
        }
        if (sb__run_add_invocation(run, i, &raw) != SB_OK)
            return sb__error(err, SB_ENOMEM, "out of memory");
        at += nk;
        hat += nh;
    }
    if (at != kept->n)
        return sb__error(err, SB_EIO,
                         "%s: cell %zu: \"" SB__JK_INVOCATION_SAMPLES
                         "\" does not add up to the samples",
                         name, i);
    if (hat != hold->n)
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_HELD
                         "." SB__JK_INVOCATION_SAMPLES
                         " does not add up to the held samples",
                         name, i);
    return SB_OK;
}

static int load_cell(sb_run *run, size_t i, json_t *c, const char *name,
                     sb_error *err)
{
    sb_cell_result *r = &run->cells[i];
    json_t *samples = json_object_get(c, SB__JK_SAMPLES_TICKS);
    json_t *invs = json_object_get(c, SB__JK_INVOCATION_SAMPLES);
    json_t *rej = json_object_get(c, SB__JK_REJECTED);
    const char *kname = get_str(c, SB__JK_KERNEL);
    void *const base[SB__J_NBASES] = {NULL, NULL, NULL, r};
    json_t *held = json_object_get(c, SB__JK_HELD);
    const sb_kernel *k;
    struct set kept = {0}, hold = {0};
    int rc;

    {
        /* Present but not a count: named, rather than called missing. */
        static const char *const keys[] = {SB__JK_SIZE, SB__JK_SRC_ALIGN,
                                           SB__JK_DST_ALIGN};
        for (size_t q = 0; q < 3; q++) {
            json_t *v = json_object_get(c, keys[q]);
            if (v && (!json_is_integer(v) || json_integer_value(v) < 0))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].%s: not a whole number of "
                                 "bytes (an integer >= 0)",
                                 name, i, keys[q]);
        }
    }
    if (!kname || get_size(c, SB__JK_SIZE, &r->cell.size) ||
        get_size(c, SB__JK_SRC_ALIGN, &r->cell.src_align) ||
        get_size(c, SB__JK_DST_ALIGN, &r->cell.dst_align) ||
        !json_is_array(samples))
        return sb__error(err, SB_EIO,
                         "%s: cell %zu: missing \"" SB__JK_KERNEL "\", \""
                         SB__JK_SIZE "\", \"" SB__JK_SRC_ALIGN "\", \""
                         SB__JK_DST_ALIGN "\" or \"" SB__JK_SAMPLES_TICKS
                         "\"",
                         name, i);
    k = sb_kernel_find(kname);
    if (!k) {
        /* The stand-ins carry cleaned names: look the cleaned name up. */
        char *clean = sb__clean_copy(kname);
        if (!clean)
            return sb__error(err, SB_ENOMEM, "out of memory");
        k = sb__run_own_kernel(run, clean);
        free(clean);
    }
    r->cell.kernel = k;
    /* The plain fields a cell keeps (iterations per sample, warm-up, CPU
     * time); its statistics are recomputed from the samples. */
    sb__json_load_fields(sb__json_cell, sb__json_ncell, c, base, "cells",
                         NULL, NULL);
    for (int j = 0; j < SB_REJECT_NREASONS; j++) {
        size_t v = 0;
        json_t *dist = json_object_get(c, SB__JK_DISTURBED);
        if (json_is_object(rej) && !get_size(rej, sb_reject_name(j), &v)) {
            /* Far above any run's samples (2^50 of 10 us is 357 years),
             * and low enough that no sum of them, over reasons and over
             * the runs of a merge, wraps. */
            if (v > ((size_t)1 << 50))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].rejected.%s: %zu is more "
                                 "samples than a run takes",
                                 name, i, sb_reject_name(j), v);
            r->rejected[j] = v;
            r->rejected_total += v;
        }
        if (json_is_object(dist) && !get_size(dist, sb_reject_name(j), &v)) {
            if (v > ((size_t)1 << 50))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].disturbed.%s: %zu is more "
                                 "samples than a run takes",
                                 name, i, sb_reject_name(j), v);
            r->disturbed[j] = v;
        }
    }

    rc = load_set(run, r, c, name, i, "", &kept, err);
    if (rc == SB_OK && json_is_object(held))
        rc = load_set(run, r, held, name, i, SB__JK_HELD ".", &hold, err);
    if (rc == SB_OK)
        rc = add_invocations(run, i, invs, held, &kept, &hold, name, err);
    set_free(&kept);
    set_free(&hold);
    /* The totals came from the file; adding invocations counted none. */
    return rc;
}

/* sb__error with SB_EIO, returning NULL: for check_header. */
static json_t *fail(sb_error *err, const char *fmt, ...) SB__PRINTF(2, 3);
static json_t *fail(sb_error *err, const char *fmt, ...)
{
    char text[sizeof err->text];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sb__error(err, SB_EIO, "%s", text);
    return NULL;
}

/* The schema and its version, and the cells (one at least, at most
 * SB__MAX_CELLS): the cells, or NULL with err filled (SB_EIO). */
static json_t *check_header(json_t *root, const char *name, sb_error *err)
{
    const char *schema = get_str(root, SB__JK_SCHEMA);
    json_t *cells;


    if (!schema || strcmp(schema, SB__JSON_SCHEMA)) {
        return fail(err, "%s: not a statbench run (no \"" SB__JK_SCHEMA
                         "\": \"" SB__JSON_SCHEMA "\")",
                    name);
    }
    {
        json_t *v = json_object_get(root, SB__JK_SCHEMA_VERSION);
        long long version = json_is_integer(v) ? json_integer_value(v) : 0;
        if (version < 1 || version > SB__JSON_SCHEMA_VERSION) {
                if (version < 1)
                return fail(err, "%s: bad \"" SB__JK_SCHEMA_VERSION "\"",
                            name);
            return fail(err,
                        "%s: schema version %lld is newer than this "
                        "statbench reads (%d): upgrade statbench",
                        name, version, SB__JSON_SCHEMA_VERSION);
        }
    }
    cells = json_object_get(root, SB__JK_CELLS);
    if (!json_is_array(cells) || json_array_size(cells) == 0) {
        return fail(err, "%s: no \"" SB__JK_CELLS "\"", name);
    }
    if (json_array_size(cells) > SB__MAX_CELLS) {
        return fail(err, "%s: %zu cells, more than %d", name,
                    json_array_size(cells), SB__MAX_CELLS);
    }
    return cells;
}

/* Stand-ins for the kernels of cells that this build does not have, one
 * per name, with the family the file names.  SB_OK or SB_ENOMEM. */
static int load_stand_ins(sb_run *run, json_t *cells)
{
    size_t n = json_array_size(cells), i, nnames = 0;
    const char **names = calloc(n, sizeof *names);
    int *families = calloc(n, sizeof *families);
    struct stand_in *si = calloc(n, sizeof *si);
    json_t *c;
    int rc = SB_ENOMEM;

    if (names && families && si) {
        size_t nsi = 0;
        json_array_foreach(cells, i, c)
        {
            const char *k = get_str(c, SB__JK_KERNEL);
            const char *fam = get_str(c, SB__JK_FAMILY);
            if (!k || sb_kernel_find(k))
                continue;
            si[nsi].name = k;
            si[nsi].family = SB_FAMILY_EXTERNAL;
            for (int fi = SB_FAMILY_COPY; fam && fi < SB_FAMILY_EXTERNAL;
                 fi++)
                if (!strcmp(fam, sb_family_name(fi)))
                    si[nsi].family = fi;
            nsi++;
        }
        qsort(si, nsi, sizeof *si, by_stand_in);
        for (size_t j = 0; j < nsi; j++) {
            if (nnames && !strcmp(names[nnames - 1], si[j].name))
                continue;
            families[nnames] = si[j].family;
            names[nnames++] = si[j].name;
        }
        rc = sb__run_add_own_kernels(run, names, families, nnames);
    }
    free(names);
    free(families);
    free(si);
    return rc;
}

/* The kernels loaded from shared objects, where each came from: kept as
 * written (the file need not exist here), so that a report or a
 * comparison of the run can still name the builds.  Absent in a run
 * without them; an entry that is not what the writer writes refuses the
 * file, naming it. */
static int load_loaded(sb_run *run, json_t *root, const char *name,
                       sb_error *err)
{
    json_t *a = json_object_get(root, SB__JK_LOADED_KERNELS), *e;
    size_t i;

    if (!a)
        return SB_OK;
    if (!json_is_array(a) || json_array_size(a) > run->ncells)
        return sb__error(err, SB_EIO,
                         "%s: \"" SB__JK_LOADED_KERNELS "\" is not a list "
                         "of at most %zu kernels (one per cell at most)",
                         name, run->ncells);
    json_array_foreach(a, i, e)
    {
        json_t *bid = json_object_get(e, "build_id");
        json_t *sz = json_object_get(e, "file_size");
        json_t *mt = json_object_get(e, "file_mtime");
        json_t *w = json_object_get(e, "warning");
        sb_kernel_origin o = {
            .name = get_str(e, "name"),
            .path = get_str(e, "path"),
            .symbol = get_str(e, "symbol"),
            .build_id = json_is_string(bid) ? json_string_value(bid) : "",
            .warning = json_is_string(w) ? json_string_value(w) : ""};
        if (!json_is_object(e) || !o.name || !o.path || !o.symbol ||
            (bid && !json_is_string(bid) && !json_is_null(bid)) ||
            (w && !json_is_string(w)) ||
            !json_is_integer(sz) || json_integer_value(sz) < 0 ||
            !json_is_integer(mt))
            return sb__error(err, SB_EIO,
                             "%s: \"" SB__JK_LOADED_KERNELS "[%zu]\": not "
                             "an object of strings name, path, symbol, "
                             "build_id (or null), an optional string "
                             "warning and integers file_size, file_mtime",
                             name, i);
        o.file_size = (uint64_t)json_integer_value(sz);
        o.file_mtime = (int64_t)json_integer_value(mt);
        if (sb__run_add_loaded(run, &o) != SB_OK)
            return sb__error(err, SB_ENOMEM, "out of memory");
    }
    return SB_OK;
}

/* A run merged from several (statbench merge): the runs' metadata and
 * the run of every invocation.  Absent in a single run. */
static int load_merged(sb_run *run, json_t *root, const char *name,
                       sb_error *err)
{
    json_t *runs = json_object_get(root, SB__JK_MERGED_RUNS);
    json_t *inv = json_object_get(root, SB__JK_INVOCATION_RUN), *v;
    size_t n, g;

    if (!runs && !inv)
        return SB_OK;
    n = json_array_size(runs);
    if (!json_is_array(runs) || n < 2 || n > run->invocations)
        return sb__error(err, SB_EIO,
                         "%s: \"" SB__JK_MERGED_RUNS "\" is not a list of "
                         "2 to %zu runs (one per run merged)",
                         name, run->invocations);
    if (!json_is_array(inv) || json_array_size(inv) != run->invocations)
        return sb__error(err, SB_EIO,
                         "%s: \"" SB__JK_INVOCATION_RUN "\" is not a list "
                         "of %zu run numbers (one per invocation)",
                         name, run->invocations);
    for (size_t c = 0; c < run->ncells; c++)
        if (run->cells[c].invocations != run->invocations)
            return sb__error(err, SB_EIO,
                             "%s: cell %zu: %zu invocations in a merged "
                             "run of %zu",
                             name, c, run->cells[c].invocations,
                             run->invocations);
    run->inv_run = malloc((run->invocations + 1) * sizeof *run->inv_run);
    run->runs = calloc(n, sizeof *run->runs);
    if (!run->inv_run || !run->runs)
        return sb__error(err, SB_ENOMEM, "out of memory");
    json_array_foreach(inv, g, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            (size_t)json_integer_value(v) >= n)
            return sb__error(err, SB_EIO,
                             "%s: \"" SB__JK_INVOCATION_RUN "[%zu]\": not "
                             "a run number below %zu",
                             name, g, n);
        run->inv_run[g] = (size_t)json_integer_value(v);
    }
    {
        /* A run listed with no invocation tagged with it is not a run of
         * the merge (all zeros once read as one run of all of them). */
        unsigned char *seen = calloc(n, 1);
        size_t missing = SIZE_MAX;
        if (!seen)
            return sb__error(err, SB_ENOMEM, "out of memory");
        for (g = 0; g < run->invocations; g++)
            seen[run->inv_run[g]] = 1;
        for (size_t r = 0; r < n && missing == SIZE_MAX; r++)
            if (!seen[r])
                missing = r;
        free(seen);
        if (missing != SIZE_MAX)
            return sb__error(err, SB_EIO,
                             "%s: \"" SB__JK_INVOCATION_RUN "\": no "
                             "invocation of run %zu, one of the %zu in \""
                             SB__JK_MERGED_RUNS "\"",
                             name, missing, n);
    }
    json_array_foreach(runs, g, v)
    {
        sb_meta *m = &run->runs[g];
        if (!json_is_object(v))
            return sb__error(err, SB_EIO,
                             "%s: \"" SB__JK_MERGED_RUNS "[%zu]\" is not "
                             "an object",
                             name, g);
        copy_str(m->hostname, sizeof m->hostname, v, "hostname");
        copy_str(m->cpu_model, sizeof m->cpu_model, v, "cpu_model");
        copy_str(m->kernel_version, sizeof m->kernel_version, v,
                 "kernel_version");
        copy_str(m->statbench_version, sizeof m->statbench_version, v,
                 "statbench_version");
        copy_str(m->start_time, sizeof m->start_time, v, "start_time");
        m->timer.hz_source = run->hz_source;
        if (get_num(v, "timer_hz", &m->timer.hz))
            m->timer.hz = NAN;
    }
    run->nruns = n;
    return SB_OK;
}

/* jansson builds the whole document before check_header can count its
 * cells: a file of a million cells took 12 s and 950 MB to be refused,
 * and an endless stream grew without bound.  The reader below hands the
 * file to jansson and counts the elements of the top-level "cells" array
 * as the bytes pass, so that a document past SB__MAX_CELLS stops at the
 * cell beyond the cap.  It follows strings and nesting only, as JSON's
 * grammar allows; a key written with escapes is not recognised, and such
 * a file is refused by check_header after the parse instead. */
struct cell_count {
    FILE *f;
    int depth;      /* nesting of objects and arrays, 1 inside the root */
    int in_str, esc;
    char key[8];    /* a string of the root object as it is read */
    size_t keylen;  /* its length, or past sizeof key when not "cells" */
    int was_cells;  /* the last string of the root object was "cells" */
    int colon;      /* ... and a ':' followed it: the value comes next */
    int in_cells;   /* inside the cells array (at depth 2) */
    int pending;    /* an element of it begun since the last ',' */
    size_t ncells;
    int over;       /* more than SB__MAX_CELLS: reading stopped */
    int rd_errno;   /* a read failed: its errno */
    char buf[65536];
};

static void count_byte(struct cell_count *s, char c)
{
    if (s->in_str) {
        if (s->esc)
            s->esc = 0;
        else if (c == '\\') {
            s->esc = 1;
            s->keylen = sizeof s->key; /* escaped: not recognised */
        } else if (c == '"') {
            s->in_str = 0;
            if (s->depth == 1)
                s->was_cells = s->keylen == 5 && !memcmp(s->key, "cells", 5);
        } else if (s->depth == 1 && s->keylen < sizeof s->key)
            s->key[s->keylen++] = c;
        else
            s->keylen = sizeof s->key;
        return;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        return;
    if (s->in_cells && s->depth == 2 && c != ',' && c != ']' &&
        !s->pending) {
        s->pending = 1;
        if (++s->ncells > SB__MAX_CELLS)
            s->over = 1;
    }
    if (s->depth == 1 && c != ':') {
        /* The value after "cells": is it the array? */
        if (s->colon && c == '[')
            s->in_cells = 1, s->pending = 0;
        if (c != '"')
            s->was_cells = 0;
        s->colon = 0;
    }
    switch (c) {
    case '"':
        s->in_str = 1;
        s->keylen = 0;
        break;
    case ':':
        if (s->depth == 1)
            s->colon = s->was_cells;
        s->was_cells = 0;
        break;
    case ',':
        if (s->in_cells && s->depth == 2)
            s->pending = 0;
        break;
    case '{':
    case '[':
        s->depth++;
        break;
    case '}':
    case ']':
        if (s->in_cells && s->depth == 2)
            s->in_cells = 0;
        s->depth--;
        break;
    default:
        break;
    }
}

static size_t count_read(void *buffer, size_t buflen, void *data)
{
    struct cell_count *s = data;
    size_t n;

    if (s->over)
        return (size_t)-1;
    if (buflen > sizeof s->buf)
        buflen = sizeof s->buf;
    n = fread(s->buf, 1, buflen, s->f);
    if (n == 0 && ferror(s->f)) {
        s->rd_errno = errno ? errno : EIO;
        return (size_t)-1;
    }
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n && !s->over; i++)
        count_byte(s, s->buf[i]);
    if (s->over)
        return (size_t)-1;
    memcpy(buffer, s->buf, n);
    return n;
}

/* The baselines of the cells compared within the run (run_level
 * "same-run"), set again so that a report of the file shows the
 * comparisons the run made, recomputed from its samples at the options
 * in force.  A comparison with another run's cell (compare, --against:
 * "runs", "assumed", ...) names a cell of that run and is not restored.
 * A base out of range or the cell itself is refused, naming the field. */
static int load_baselines(sb_run *run, json_t *cells, const char *name,
                          sb_error *err)
{
    size_t *base = NULL, i, any = 0;
    json_t *c;
    int rc = SB_OK;

    json_array_foreach(cells, i, c)
    {
        json_t *cmp = json_object_get(c, SB__JK_COMPARISON);
        json_t *lv = json_object_get(cmp, "run_level"),
               *b = json_object_get(cmp, "base");
        json_int_t v;
        if (!json_is_object(cmp) || !json_is_string(lv) ||
            strcmp(json_string_value(lv),
                   sb_run_level_name(SB_RUN_LEVEL_SAME_RUN)))
            continue;
        v = json_is_integer(b) ? json_integer_value(b) : -1;
        if (v < 0 || (size_t)v >= run->ncells || (size_t)v == i) {
            rc = sb__error(err, SB_EIO,
                           "%s: cells[%zu].comparison.base: %s", name, i,
                           !json_is_integer(b) ? "not an integer"
                           : (size_t)v == i   ? "the cell itself"
                                              : "no such cell");
            break;
        }
        if (!base) {
            base = malloc(run->ncells * sizeof *base);
            if (!base)
                return sb__error(err, SB_ENOMEM, "out of memory");
            for (size_t k = 0; k < run->ncells; k++)
                base[k] = SIZE_MAX;
        }
        base[i] = (size_t)v;
        any++;
    }
    if (rc == SB_OK && any)
        rc = sb_run_set_baselines(run, base, err);
    free(base);
    return rc;
}

/* The document of f in *root.  It is read through count_read, so that a
 * file of too many cells stops early; a refusal names the cap, the read's
 * error or the JSON's line. */
static int read_json(FILE *f, const char *name, json_t **root,
                     sb_error *err)
{
    json_error_t je;
    struct cell_count *count = calloc(1, sizeof *count);

    if (!count)
        return sb__error(err, SB_ENOMEM, "out of memory");
    count->f = f;
    *root = json_load_callback(count_read, count, JSON_REJECT_DUPLICATES,
                               &je);
    if (!*root) {
        int over = count->over, rd = count->rd_errno;
        free(count);
        if (over)
            return sb__error(err, SB_EIO,
                             "%s: more than %d cells (reading stopped "
                             "at the one beyond)",
                             name, SB__MAX_CELLS);
        if (rd)
            return sb__error(err, SB_EIO, "%s: read error (%s)", name,
                             strerror(rd));
        return sb__error(err, SB_EIO, "%s: not JSON (line %d: %s)",
                         name, je.line, je.text);
    }
    free(count);
    return SB_OK;
}

/* The cells of the file, each an object, into run's. */
static int load_cells(sb_run *run, json_t *cells, const char *name,
                      sb_error *err)
{
    json_t *c;
    size_t i;
    int rc;

    json_array_foreach(cells, i, c)
    {
        if (!json_is_object(c))
            return sb__error(err, SB_EIO, "%s: cell %zu is not an object",
                             name, i);
        rc = load_cell(run, i, c, name, err);
        if (rc != SB_OK)
            return rc;
    }
    return SB_OK;
}

/* The run's totals beside its cells (an elapsed time or a count of
 * rounds absent or bad keeps the default), and its invocations, the
 * first cell's. */
static void load_totals(sb_run *run, json_t *root)
{
    double v;
    size_t z;

    run->interrupted =
        json_is_true(json_object_get(root, SB__JK_INTERRUPTED));
    if (!get_num(root, SB__JK_ELAPSED, &v))
        run->elapsed = v;
    if (!get_size(root, SB__JK_ROUNDS, &z))
        run->rounds = z;
    run->invocations = run->cells[0].invocations;
}

/* The analysis options in force (fa, the caller's, or with none the
 * saved ones), and the saved measure options, checked. */
static int check_options(sb_run *run, const sb_analysis_options *fa,
                         const char *name, sb_error *err)
{
    int rc;

    if (fa) {
        /* The analysis options are the caller's; the measure options
         * stay as saved. */
        run->analysis = *fa;
    } else {
        /* The saved samples are what the saved policy kept. */
        run->analysis.outliers = SB_OUTLIERS_KEEP;
    }
    rc = sb_analysis_options_check(&run->analysis, err);
    if (rc == SB_OK)
        rc = sb__measure_check(&run->measure, err);
    if (rc != SB_OK && err) {
        /* The check names the value; the reader needs the file and that
         * it came from the saved options. */
        char why[sizeof err->text];
        snprintf(why, sizeof why, "%s", err->text);
        sb__error(err, rc, "%s: \"" SB__JK_META "." SB__JK_OPTIONS
                  "\": %s", name, why);
    }
    return rc;
}

/* A cell listed twice: report, compare and --against would use the first
 * and never show the other (a caller's kernel under a built-in's name,
 * 4x slower and listed first, once made compare call identical code
 * "faster"). */
static int check_unique(const sb_run *run, const char *name, sb_error *err)
{
    size_t before, twice = sb__cell_duplicate(
        &run->cells[0].cell, run->ncells, sizeof *run->cells, &before);
    char nm[128];

    if (twice != SIZE_MAX)
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu] repeats cells[%zu] (%s): a run "
                         "lists each cell once",
                         name, twice, before,
                         sb__cell_text(&run->cells[twice].cell, nm,
                                       sizeof nm));
    return SB_OK;
}

int sb_run_load_new(FILE *f, const char *name, const sb_analysis_options *opt,
                    sb_run **out, sb_error *err)
{
    json_t *root, *cells;
    sb_measure_options o;
    sb_analysis_options a, fa;
    sb_run *run = NULL;
    int rc = SB_OK;

    sb_init();
    if (!out || !f)
        return sb__error(err, SB_EINVAL, "sb_run_load_new: %s is NULL",
                         !f ? "f" : "out");
    *out = NULL;
    /* Checked here, applied once the saved options are read. */
    if (opt && (rc = sb__analysis_get(opt, &fa, "sb_run_load_new", err)) !=
                   SB_OK)
        return rc;
    if (!name)
        name = "run";
    if ((rc = read_json(f, name, &root, err)) != SB_OK)
        return rc;
    cells = check_header(root, name, err);
    if (!cells) {
        json_decref(root);
        return SB_EIO;
    }
    sb_measure_options_init(&o);
    sb_analysis_options_init(&a);
    run = sb__run_alloc(json_array_size(cells), &o, &a);
    if (!run) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto out;
    }
    rc = load_meta(run, root, name, err);
    if (rc != SB_OK)
        goto out;
    /* Samples from elsewhere: marked, or (files written before the mark)
     * told by the clock analyze records. */
    run->imported = json_is_true(json_object_get(root, SB__JK_IMPORTED)) ||
                    !strcmp(run->hz_source, "samples measured elsewhere");
    if (run->imported)
        copy_str(run->unit, sizeof run->unit, root, SB__JK_UNIT);
    /* Stand-ins for kernels this build does not have. */
    rc = load_stand_ins(run, cells);
    if (rc != SB_OK) {
        rc = sb__error(err, rc, "out of memory");
        goto out;
    }
    /* Cleaning may have changed the order (and made names equal):
     * sb__run_own_kernel() searches the cleaned names. */
    sb__run_sort_own_kernels(run);
    rc = load_cells(run, cells, name, err);
    if (rc != SB_OK)
        goto out;
    load_totals(run, root);
    rc = load_merged(run, root, name, err);
    if (rc == SB_OK)
        rc = load_loaded(run, root, name, err);
    if (rc == SB_OK)
        rc = check_options(run, opt ? &fa : NULL, name, err);
    if (rc == SB_OK)
        rc = check_unique(run, name, err);
    if (rc == SB_OK)
        rc = sb__run_analyse(run, err);
    if (rc == SB_OK)
        rc = load_baselines(run, cells, name, err);
out:
    json_decref(root);
    if (rc != SB_OK) {
        sb_run_free(run);
        return rc;
    }
    *out = run;
    return SB_OK;
}
