/*
 * load_meta.c: the meta of a saved run read back (load.c reads the
 * document and its top level): the fields of the schema's list, the CPU,
 * the timer, the arrays of notes, findings, counters, caches and probes,
 * the seed and the options, each bad value noted and its default kept.
 * The readers of one JSON value that the loader's other files share are
 * here too, since this file is the lowest of them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "load.h"
#include "meta.h"
#include "plan.h"
#include "run_internal.h"
#include "schema.h"

/* ---- JSON --------------------------------------------------------------- */

const char *sb__load_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int sb__load_num(json_t *o, const char *key, double *out)
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

int sb__load_size(json_t *o, const char *key, size_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (size_t)json_integer_value(v);
    return 0;
}

/* Every string of a loaded run is printed somewhere (the header, a
 * note, a message): its control characters become '?' here, once. */
void sb__load_copy(char *dst, size_t len, json_t *o, const char *key)
{
    const char *s = sb__load_str(o, key);
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
            sb__load_copy(it->key, sizeof it->key, v, SB__JK_ENV_KEY);
            sb__load_copy(it->value, sizeof it->value, v, SB__JK_ENV_VALUE);
            sb__load_copy(it->advice, sizeof it->advice, v, SB__JK_ENV_ADVICE);
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

    if (!json_is_object(t) || sb__load_num(t, SB__JK_HZ, &meta->timer.hz) ||
        !(meta->timer.hz > 0))
        return sb__error(err, SB_EIO,
                         "%s: missing or bad \"" SB__JK_META "." SB__JK_TIMER
                         "." SB__JK_HZ "\"",
                         name);
    /* Without a kind (a minimal file), ticks at hz are nanoseconds at
     * 1e9; a kind this build does not know has ticks it cannot name. */
    if (!sb__load_str(t, SB__JK_KIND)) {
        meta->timer.kind = SB_TIMER_CLOCK;
    } else if (sb__timer_kind_json(sb__load_str(t, SB__JK_KIND)) >= 0) {
        meta->timer.kind = sb__timer_kind_json(sb__load_str(t, SB__JK_KIND));
    } else {
        char bad[48];
        snprintf(bad, sizeof bad, "%s", sb__load_str(t, SB__JK_KIND));
        sb__clean_text(bad);
        return sb__error(err, SB_EIO,
                         "%s: unknown \"" SB__JK_META "." SB__JK_TIMER
                         "." SB__JK_KIND "\" '%s': not a timer this build "
                         "knows",
                         name, bad);
    }
    sb__load_copy(run->hz_source, sizeof run->hz_source, t, SB__JK_HZ_SOURCE);
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
        const char *cache = sb__load_str(o, SB__JK_CACHE);
        const char *reject = sb__load_str(o, SB__JK_REJECT);
        const char *metric = sb__load_str(o, SB__JK_METRIC);
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

/* The meta (load.h): the plain fields first, then by hand the rest. */
int sb__load_meta(sb_run *run, json_t *root, const char *name,
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
    if (sb__load_str(m, SB__JK_COMMAND)) {
        run->command = sb__clean_copy(sb__load_str(m, SB__JK_COMMAND));
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
