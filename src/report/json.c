/*
 * report/json.c: the whole run as JSON, built with jansson.
 * The schema ("statbench-run", version 1) is documented in README.md.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"


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
            a, json_pack("{s:o, s:o, s:b, s:o}", "key", str(e->items[i].key),
                         "value", str(e->items[i].value), "warn",
                         e->items[i].warn, "advice",
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

/* The seed losslessly: jansson's integers are signed 64-bit, so a seed
 * above INT64_MAX is written as a string of its decimal digits (a JSON
 * number would wrap to a negative value). */
static json_t *seed_json(uint64_t seed)
{
    char buf[24];
    if (seed <= (uint64_t)INT64_MAX)
        return json_integer((json_int_t)seed);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    return json_string(buf);
}

static json_t *meta(const sb_run *run)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_options *o = sb_run_options(run);
    const sb_timer_info *t = &m->timer;
    json_t *j, *names = json_array();

    for (size_t i = 0; names && i < m->ncounters && i < SB_MAX_COUNTERS; i++)
        json_array_append_new(names, str(m->counter_names[i]));
    j = json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o,"
        " s:{s:s, s:o, s:o, s:b, s:o, s:o, s:s, s:o},"
        " s:{s:o, s:o, s:o, s:I, s:I, s:o, s:I, s:I, s:s, s:I, s:o, s:o,"
        "    s:s}}",
        "statbench_version", str(m->statbench_version), "command",
        str(sb_run_command(run)), "start_time", str(m->start_time),
        "hostname", str(m->hostname), "cpu_model", str(m->cpu_model),
        "kernel_version", str(m->kernel_version), "cpu_features",
        features(m->cpu_features), "cpu", m->cpu, "pin_note",
        str(m->pin_note), "seed", seed_json(o->seed), "counters",
        str(m->counters), "timer", "kind",
        t->kind == SB_TIMER_TSC ? "tsc" : "clock_monotonic_raw", "hz",
        num(t->hz), "hz_source", str(t->hz_source), "invariant",
        t->invariant, "overhead_ticks", num(t->overhead),
        "bare_overhead_ticks", num(t->bare_overhead), "tick_unit",
        t->kind == SB_TIMER_TSC ? "TSC reference cycle" : "nanosecond",
        "reason", str(t->reason), "options", "ci_level", num(o->ci_level),
        "precision", num(o->precision), "max_time_s", num(o->max_time),
        "min_samples", (json_int_t)o->min_samples, "max_samples",
        (json_int_t)o->max_samples, "sample_seconds",
        num(o->sample_seconds), "invocations", (json_int_t)o->invocations,
        "max_invocations", (json_int_t)o->max_invocations, "outliers",
        sb_outlier_policy_name(o->outliers), "bootstrap",
        (json_int_t)o->bootstrap, "alpha", num(o->alpha), "threshold",
        num(o->threshold), "cache", sb_cache_name(o->cache));
    if (j) {
        json_object_set_new(j, "counter_names", names ? names : json_null());
        json_object_set_new(j, "interrupts_per_second",
                            num(m->interrupts_per_second));
        json_object_set_new(j, "check_cost_seconds",
                            num(m->check_cost_seconds));
        json_object_set_new(j, "notes", lines(m->notes));
        json_object_set_new(j, "env", env(&m->env));
        json_object_set_new(
            json_object_get(j, "options"), "reject",
            json_string(o->reject == SB_REJECT_NONE ? "none" : "disturbed"));
    } else {
        json_decref(names);
    }
    return j;
}

static json_t *comparison(const sb_comparison *c)
{
    if (!c)
        return json_null();
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:s, s:o}", "base",
                     (json_int_t)c->base, "ratio", interval(&c->ratio), "p",
                     num(c->p), "p_adjusted", num(c->p_adjusted), "a12",
                     num(c->a12), "mde", num(c->mde), "verdict",
                     sb_verdict_name(c->verdict), "test", str(c->test));
}

static json_t *counters(const sb_cell_result *r)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < r->ncounters && i < SB_MAX_COUNTERS; i++)
        json_object_set_new(
            o, r->counters[i].name,
            json_pack("{s:o, s:o}", "per_call",
                      interval(&r->counters[i].per_call), "per_byte",
                      num(r->counters[i].per_byte)));
    return o;
}

static json_t *cell(const sb_run *run, size_t idx)
{
    const sb_cell_result *r = sb_run_cell(run, idx);
    const sb_summary *s = &r->ticks_summary;
    const sb_outliers *o = &s->outliers;
    const sb_levels *l = &r->levels;
    json_t *samples = json_array(), *rej = json_object(), *c;
    json_t *invn = json_array(), *invm = json_array();
    int have = r->nsamples > 0;
    const sb_interval none = {NAN, NAN, NAN, NAN, NAN};

    for (size_t i = 0; samples && i < r->nsamples; i++)
        json_array_append_new(samples, num(r->ticks[i]));
    for (size_t i = 0; invn && invm && i < r->invocations; i++) {
        json_array_append_new(invn,
                              json_integer((json_int_t)r->inv_nsamples[i]));
        json_array_append_new(invm,
                              num(r->inv_median ? r->inv_median[i] : NAN));
    }
    for (int k = 0; rej && k < SB_REJECT_NREASONS; k++)
        json_object_set_new(rej, sb_reject_name(k),
                            json_integer((json_int_t)r->rejected[k]));
    c = json_pack(
        "{s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:b,"
        " s:o, s:o, s:o, s:o, s:o,"
        " s:{s:I, s:o, s:o, s:o, s:o, s:o, s:o,"
        "    s:{s:o, s:o, s:I, s:I, s:I, s:I},"
        "    s:{s:o, s:o, s:I, s:I}},"
        " s:I, s:o, s:o,"
        " s:{s:o, s:o, s:o, s:o},"
        " s:o, s:b, s:o, s:o, s:o,"
        " s:{s:o, s:o, s:o}}",
        "kernel", str(r->cell.kernel->name), "family",
        sb_family_name(r->cell.kernel->family), "size",
        (json_int_t)r->cell.size, "src_align", (json_int_t)r->cell.src_align,
        "dst_align", (json_int_t)r->cell.dst_align, "iters_per_sample",
        (json_int_t)r->iters, "samples", (json_int_t)r->nsamples,
        "rejected_total", (json_int_t)r->rejected_total, "rejected", rej,
        "warmup_samples", (json_int_t)r->warmup_samples, "reached_precision",
        r->reached_precision, "interval", interval(&r->interval), "method",
        str(r->method), "mbps", interval(&r->mbps), "ticks_per_byte",
        num(r->cycles_per_byte), "rel_halfwidth", num(r->rel_halfwidth),
        "ticks", "n", (json_int_t)s->n, "min", num(have ? s->min : NAN),
        "max", num(have ? s->max : NAN), "mean", num(have ? s->mean : NAN),
        "sd", num(have ? s->sd : NAN), "median_pooled",
        interval(have ? &s->median : &none), "mean_ci",
        interval(have ? &s->mean_ci : &none), "outliers",
        "q1", num(have ? o->q1 : NAN), "q3", num(have ? o->q3 : NAN),
        "low_mild", (json_int_t)(have ? o->low_mild : 0), "high_mild",
        (json_int_t)(have ? o->high_mild : 0), "low_severe",
        (json_int_t)(have ? o->low_severe : 0), "high_severe",
        (json_int_t)(have ? o->high_severe : 0), "mad", "median",
        num(have ? r->mad.median : NAN), "mad", num(have ? r->mad.mad : NAN),
        "low", (json_int_t)(have ? r->mad.low : 0), "high",
        (json_int_t)(have ? r->mad.high : 0), "invocations",
        (json_int_t)r->invocations, "invocation_samples", invn,
        "invocation_medians", invm, "levels", "sd_between_medians",
        num(l->m >= 2 ? l->sd_between_est : NAN), "var_between",
        num(l->m >= 2 ? l->var_between : NAN), "var_within",
        num(l->m >= 2 ? l->var_within : NAN), "between_fraction",
        num(l->m >= 2 ? l->between_fraction : NAN), "lag1", num(r->lag1),
        "autocorrelated", r->autocorrelated, "mde", num(r->mde),
        "comparison", comparison(sb_run_comparison(run, idx)),
        "samples_ticks", samples, "cpu_time", "calls", num(r->calls),
        "user_seconds", num(r->user_seconds), "sys_seconds",
        num(r->sys_seconds));
    if (c) {
        json_t *d = json_object();
        for (int k = 0; d && k < SB_REJECT_NREASONS; k++)
            json_object_set_new(d, sb_reject_name(k),
                                json_integer((json_int_t)r->disturbed[k]));
        json_object_set_new(c, "disturbed", d ? d : json_null());
        json_object_set_new(c, "counters", counters(r));
        {
            /* Per-sample counter values and disturbance bits, in the
             * order of samples_ticks. */
            json_t *sc = json_object(), *fl = json_array();
            const unsigned char *flags = sb_run_sample_flags(run, idx);
            for (size_t k = 0; sc && k < r->ncounters; k++) {
                const double *v = sb_run_counter_samples(run, idx, k);
                json_t *a = json_array();
                for (size_t i = 0; a && v && i < r->nsamples; i++)
                    json_array_append_new(a, num(v[i]));
                json_object_set_new(sc, r->counters[k].name,
                                    a ? a : json_null());
            }
            for (size_t i = 0; fl && flags && i < r->nsamples; i++)
                json_array_append_new(fl, json_integer(flags[i]));
            json_object_set_new(c, "samples_counters", sc ? sc : json_null());
            json_object_set_new(c, "samples_flags", fl ? fl : json_null());
        }
    }
    return c;
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
    root = json_pack("{s:s, s:i, s:o, s:b, s:o, s:I, s:I, s:o}", "schema",
                     "statbench-run", "schema_version", 1, "meta", meta(run),
                     "interrupted", sb_run_interrupted(run), "elapsed_s",
                     num(sb_run_elapsed(run)), "rounds",
                     (json_int_t)sb_run_rounds(run), "invocations_run",
                     (json_int_t)sb_run_invocations(run), "cells", cells);
    if (!root)
        return sb__error(err, SB_ENOMEM, "building the JSON failed");
    /* Samples from elsewhere (analyze) may be any finite value, in their
     * own unit: the loader must know not to read them as times. */
    if (sb_run_imported(run))
        json_object_set_new(root, "imported", json_true());
    rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
        return sb__error(err, SB_EIO, "writing the JSON failed");
    return SB_OK;
}
