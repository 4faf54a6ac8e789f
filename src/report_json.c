/*
 * report_json.c: the whole run as JSON, built with jansson.
 * The schema ("statbench-run", version 1) is documented in README.md.
 */
#include "config.h"

#include <math.h>

#include <jansson.h>

#include "sb_internal.h"

int sb__report_json(const sb_run *run, FILE *f, sb_error *err);

/* JSON has no NaN or infinity: such values become null. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
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

static json_t *meta(const sb_run *run)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_options *o = sb_run_options(run);
    const sb_timer_info *t = &m->timer;

    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:i, s:s, s:I, s:s,"
        " s:{s:s, s:f, s:s, s:b, s:f, s:f, s:s, s:s},"
        " s:{s:f, s:f, s:f, s:I, s:I, s:f}}",
        "statbench_version", m->statbench_version, "command",
        sb_run_command(run), "start_time", m->start_time, "hostname",
        m->hostname, "cpu_model", m->cpu_model, "kernel_version",
        m->kernel_version, "cpu_features", features(m->cpu_features), "cpu",
        m->cpu, "pin_note", m->pin_note, "seed", (json_int_t)o->seed,
        "counters", m->counters, "timer", "kind",
        t->kind == SB_TIMER_TSC ? "tsc" : "clock_monotonic_raw", "hz", t->hz,
        "hz_source", t->hz_source, "invariant", t->invariant,
        "overhead_ticks", t->overhead, "bare_overhead_ticks",
        t->bare_overhead, "tick_unit",
        t->kind == SB_TIMER_TSC ? "TSC reference cycle" : "nanosecond",
        "reason", t->reason, "options", "ci_level", o->ci_level, "precision",
        o->precision, "max_time_s", o->max_time, "min_samples",
        (json_int_t)o->min_samples, "max_samples",
        (json_int_t)o->max_samples, "sample_seconds", o->sample_seconds);
}

static json_t *cell(const sb_cell_result *r)
{
    const sb_summary *s = &r->ticks_summary;
    const sb_outliers *o = &s->outliers;
    json_t *samples = json_array(), *rej = json_object(), *c;

    for (size_t i = 0; samples && i < r->nsamples; i++)
        json_array_append_new(samples, num(r->ticks[i]));
    for (int k = 0; rej && k < SB_REJECT_NREASONS; k++)
        json_object_set_new(rej, sb_reject_name(k),
                            json_integer((json_int_t)r->rejected[k]));
    c = json_pack(
        "{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:b,"
        " s:o, s:o, s:o,"
        " s:{s:I, s:o, s:o, s:o, s:o, s:o, s:o,"
        "    s:{s:o, s:o, s:I, s:I, s:I, s:I}},"
        " s:o}",
        "kernel", r->cell.kernel->name, "family",
        sb_family_name(r->cell.kernel->family), "size",
        (json_int_t)r->cell.size, "src_align", (json_int_t)r->cell.src_align,
        "dst_align", (json_int_t)r->cell.dst_align, "iters_per_sample",
        (json_int_t)r->iters, "samples", (json_int_t)r->nsamples,
        "rejected_total", (json_int_t)r->rejected_total, "rejected", rej,
        "warmup_samples", (json_int_t)r->warmup_samples, "reached_precision",
        r->reached_precision, "mbps", interval(&r->mbps),
        "ticks_per_byte", num(r->cycles_per_byte), "rel_halfwidth",
        num(r->rel_halfwidth), "ticks", "n", (json_int_t)s->n, "min",
        num(r->nsamples ? s->min : NAN), "max",
        num(r->nsamples ? s->max : NAN), "mean",
        num(r->nsamples ? s->mean : NAN), "sd",
        num(r->nsamples ? s->sd : NAN), "median", interval(&s->median),
        "mean_ci", interval(&s->mean_ci), "outliers", "q1", num(o->q1), "q3",
        num(o->q3), "low_mild", (json_int_t)o->low_mild, "high_mild",
        (json_int_t)o->high_mild, "low_severe", (json_int_t)o->low_severe,
        "high_severe", (json_int_t)o->high_severe, "samples_ticks", samples);
    return c;
}

int sb__report_json(const sb_run *run, FILE *f, sb_error *err)
{
    json_t *cells = json_array(), *root;
    int rc;

    for (size_t i = 0; cells && i < sb_run_count(run); i++) {
        json_t *c = cell(sb_run_cell(run, i));
        if (!c || json_array_append_new(cells, c) != 0) {
            json_decref(cells);
            return sb__error(err, SB_ENOMEM, "building the JSON failed");
        }
    }
    root = json_pack("{s:s, s:i, s:o, s:b, s:f, s:I, s:o}", "schema",
                     "statbench-run", "schema_version", 1, "meta", meta(run),
                     "interrupted", sb_run_interrupted(run), "elapsed_s",
                     sb_run_elapsed(run), "rounds",
                     (json_int_t)sb_run_rounds(run), "cells", cells);
    if (!root)
        return sb__error(err, SB_ENOMEM, "building the JSON failed");
    rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
        return sb__error(err, SB_EIO, "writing the JSON failed");
    return SB_OK;
}
