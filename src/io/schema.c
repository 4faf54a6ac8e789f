/*
 * io/schema.c: the fields of a saved run's JSON, in the order they
 * are written, and the loader's walk over them (io/schema.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "schema.h"
#include "sb_internal.h"

#define MEMBER_SIZE(type, m) sizeof(((type *)0)->m)

/* A field in struct TYPE (of base B) at member M. */
#define STR(key, B, TYPE, M, fl)                                             \
    {key, SB__J_STR, fl, SB__J_ANY, B, 0, offsetof(TYPE, M),                  \
     MEMBER_SIZE(TYPE, M), NULL, 0}
#define FIELD(key, T, B, TYPE, M, fl, ck)                                    \
    {key, T, fl, ck, B, 0, offsetof(TYPE, M), 0, NULL, 0}
#define CUSTOM(key, id) {key, SB__J_CUSTOM, 0, SB__J_ANY, 0, id, 0, 0, NULL, 0}
#define OBJECT(key, t, fl)                                                   \
    {key, SB__J_OBJECT, fl, SB__J_ANY, 0, 0, 0, 0, t,                         \
     sizeof t / sizeof t[0]}

#define M_STR(key, m) STR(key, SB__J_META, sb_meta, m, SB__J_LOAD)
#define M_NUM(key, m)                                                        \
    FIELD(key, SB__J_NUM, SB__J_META, sb_meta, m, SB__J_LOAD, SB__J_ANY)
/* The options: measure (MO_) and analysis (AO_) ones. */
#define MO_NUM(key, m, ck)                                                   \
    FIELD(key, SB__J_NUM, SB__J_MOPTS, sb_measure_options, m, SB__J_LOAD, ck)
#define MO_SIZE(key, m, ck)                                                  \
    FIELD(key, SB__J_SIZE, SB__J_MOPTS, sb_measure_options, m, SB__J_LOAD,  \
          ck)
#define AO_NUM(key, m, ck)                                                   \
    FIELD(key, SB__J_NUM, SB__J_AOPTS, sb_analysis_options, m, SB__J_LOAD,  \
          ck)
#define AO_SIZE(key, m, ck)                                                  \
    FIELD(key, SB__J_SIZE, SB__J_AOPTS, sb_analysis_options, m, SB__J_LOAD, \
          ck)
#define C_(key, T, m, fl) FIELD(key, T, SB__J_CELL, sb_cell_result, m, fl, 0)

static const sb__jfield timer[] = {
    CUSTOM(SB__JK_KIND, SB__JC_TIMER_KIND),
    /* Required, with its own message: the loader reads it by hand. */
    FIELD(SB__JK_HZ, SB__J_NUM, SB__J_META, sb_meta, timer.hz, 0, 0),
    FIELD(SB__JK_HZ_SOURCE, SB__J_STRPTR, SB__J_META, sb_meta,
          timer.hz_source, 0, 0),
    FIELD("invariant", SB__J_BOOL, SB__J_META, sb_meta, timer.invariant,
          SB__J_LOAD, 0),
    M_NUM("overhead_ticks", timer.overhead),
    M_NUM("bare_overhead_ticks", timer.bare_overhead),
    CUSTOM("tick_unit", SB__JC_TICK_UNIT),
    M_STR("reason", timer.reason),
};

static const sb__jfield options[] = {
    AO_NUM("ci_level", ci_level, SB__J_OPEN_UNIT),
    AO_NUM("precision", precision, SB__J_HALF_UNIT),
    MO_NUM("max_time_s", max_time, SB__J_POSITIVE),
    MO_SIZE("min_samples", min_samples, SB__J_ANY),
    MO_SIZE("max_samples", max_samples, SB__J_ANY),
    MO_NUM("sample_seconds", sample_seconds, SB__J_POSITIVE),
    MO_SIZE("invocations", invocations, SB__J_AT_LEAST_1),
    MO_SIZE("max_invocations", max_invocations, SB__J_AT_LEAST_1),
    MO_NUM("quiet_prior", quiet_prior, SB__J_NONNEG),
    /* Written, not read back: the saved samples are what the saved policy
     * kept, and sb_run_load_new applies the caller's (or keeps them all). */
    CUSTOM("outliers", SB__JC_OUTLIERS),
    AO_SIZE("bootstrap", bootstrap, SB__J_ANY),
    AO_NUM("alpha", alpha, SB__J_OPEN_UNIT),
    AO_NUM("threshold", threshold, SB__J_HALF_UNIT),
    CUSTOM(SB__JK_METRIC, SB__JC_METRIC),
    CUSTOM(SB__JK_CACHE, SB__JC_CACHE),
    CUSTOM(SB__JK_REJECT, SB__JC_REJECT),
    /* Written, not read back, as outliers: the saved samples and held
     * samples are what the saved decision made of them. */
    CUSTOM(SB__JK_SHARED_MARGIN, SB__JC_SHARED_MARGIN),
    CUSTOM(SB__JK_SHARED_LEVEL, SB__JC_SHARED_LEVEL),
    /* Written, not read back, as shared_margin: the saved clocks are
     * that decision's (the readings stay as measured). */
    CUSTOM(SB__JK_CHAIN_APART, SB__JC_CHAIN_APART),
};

/* The probes beside every sample (probe.c; docs/schema.md). */
#define M_SIZE(key, m)                                                       \
    FIELD(key, SB__J_SIZE, SB__J_META, sb_meta, m, SB__J_LOAD, SB__J_ANY)
static const sb__jfield probes[] = {
    M_STR("clock_source", probe),
    M_STR("note", probe_note),
    M_NUM("imul_add_ratio", probe_ratio),
    M_SIZE("chain_ops", probe_chain_ops),
    M_SIZE("contention_reps", probe_ldst_reps),
    M_NUM("cost_share", probe_cost_share),
    M_NUM("clock", probe_clock),
    M_NUM("clock_min", probe_clock_min),
    M_NUM("clock_max", probe_clock_max),
    M_NUM("contention_quiet", contention_quiet),
    M_NUM("contention_margin", contention_margin),
    M_NUM("contended_share", contended_share),
    M_NUM("cpu_wait_share", cpu_wait_share),
    M_NUM("shared_wait_s", shared_wait_seconds),
    CUSTOM(SB__JK_INV_CLOCK, SB__JC_INV_CLOCK),
    CUSTOM(SB__JK_INV_QUIET, SB__JC_INV_QUIET),
    M_STR("contention_probe", contention_probe),
    M_NUM("reference_cycles", reference_cycles),
};

const sb__jfield sb__json_meta[] = {
    M_STR("statbench_version", statbench_version),
    CUSTOM(SB__JK_COMMAND, SB__JC_COMMAND),
    M_STR("start_time", start_time),
    M_STR("hostname", hostname),
    M_STR("cpu_model", cpu_model),
    M_STR("kernel_version", kernel_version),
    CUSTOM(SB__JK_CPU_FEATURES, SB__JC_CPU_FEATURES),
    /* Range-checked by hand: a CPU number or -1. */
    FIELD(SB__JK_CPU, SB__J_INT, SB__J_META, sb_meta, cpu, 0, 0),
    M_STR("pin_note", pin_note),
    CUSTOM(SB__JK_SEED, SB__JC_SEED),
    M_STR("counters", counters),
    OBJECT(SB__JK_TIMER, timer, SB__J_LOAD),
    OBJECT(SB__JK_OPTIONS, options, SB__J_LOAD),
    CUSTOM(SB__JK_COUNTER_NAMES, SB__JC_COUNTER_NAMES),
    M_NUM("interrupts_per_second", interrupts_per_second),
    M_NUM("check_cost_seconds", check_cost_seconds),
    FIELD("l2_bytes", SB__J_SIZE, SB__J_META, sb_meta, l2_bytes, SB__J_LOAD,
          SB__J_ANY),
    CUSTOM(SB__JK_NOTES, SB__JC_NOTES),
    CUSTOM(SB__JK_ENV, SB__JC_ENV),
    OBJECT(SB__JK_PROBES, probes, SB__J_LOAD),
    M_STR("microcode", microcode),
    M_SIZE("online_cpus", online_cpus),
    M_STR("profile", profile),
    FIELD("profile_shared", SB__J_BOOL, SB__J_META, sb_meta, profile_shared,
          SB__J_LOAD, 0),
    M_NUM("profile_bound", profile_bound),
    CUSTOM(SB__JK_CACHES, SB__JC_CACHES),
};
const size_t sb__json_nmeta = sizeof sb__json_meta / sizeof sb__json_meta[0];

static const sb__jfield outliers[] = {
    C_("q1", SB__J_NUM, ticks_summary.outliers.q1, SB__J_SAMPLES),
    C_("q3", SB__J_NUM, ticks_summary.outliers.q3, SB__J_SAMPLES),
    C_("low_mild", SB__J_SIZE, ticks_summary.outliers.low_mild, SB__J_SAMPLES),
    C_("high_mild", SB__J_SIZE, ticks_summary.outliers.high_mild,
       SB__J_SAMPLES),
    C_("low_severe", SB__J_SIZE, ticks_summary.outliers.low_severe,
       SB__J_SAMPLES),
    C_("high_severe", SB__J_SIZE, ticks_summary.outliers.high_severe,
       SB__J_SAMPLES),
};

static const sb__jfield mad[] = {
    C_("median", SB__J_NUM, mad.median, SB__J_SAMPLES),
    C_("mad", SB__J_NUM, mad.mad, SB__J_SAMPLES),
    C_("low", SB__J_SIZE, mad.low, SB__J_SAMPLES),
    C_("high", SB__J_SIZE, mad.high, SB__J_SAMPLES),
};

static const sb__jfield ticks[] = {
    C_("n", SB__J_SIZE, ticks_summary.n, 0),
    C_("min", SB__J_NUM, ticks_summary.min, SB__J_SAMPLES),
    C_("max", SB__J_NUM, ticks_summary.max, SB__J_SAMPLES),
    C_("mean", SB__J_NUM, ticks_summary.mean, SB__J_SAMPLES),
    C_("sd", SB__J_NUM, ticks_summary.sd, SB__J_SAMPLES),
    C_("median_pooled", SB__J_INTERVAL, ticks_summary.median, SB__J_SAMPLES),
    C_("mean_ci", SB__J_INTERVAL, ticks_summary.mean_ci, SB__J_SAMPLES),
    OBJECT("outliers", outliers, 0),
    OBJECT("mad", mad, 0),
};

static const sb__jfield levels[] = {
    C_("sd_between_medians", SB__J_NUM, levels.sd_between_est, SB__J_LEVELS),
    C_("var_between", SB__J_NUM, levels.var_between, SB__J_LEVELS),
    C_("var_within", SB__J_NUM, levels.var_within, SB__J_LEVELS),
    C_("between_fraction", SB__J_NUM, levels.between_fraction, SB__J_LEVELS),
};

/* Kept when their values pass the check: the rest of a cell's statistics
 * are recomputed from its samples. */
static const sb__jfield cpu_time[] = {
    FIELD("calls", SB__J_NUM, SB__J_CELL, sb_cell_result, calls, SB__J_LOAD,
          SB__J_NONNEG),
    FIELD("user_seconds", SB__J_NUM, SB__J_CELL, sb_cell_result,
          user_seconds, SB__J_LOAD, SB__J_NONNEG),
    FIELD("sys_seconds", SB__J_NUM, SB__J_CELL, sb_cell_result, sys_seconds,
          SB__J_LOAD, SB__J_NONNEG),
};

const sb__jfield sb__json_cell[] = {
    CUSTOM(SB__JK_KERNEL, SB__JC_KERNEL),
    CUSTOM(SB__JK_FAMILY, SB__JC_FAMILY),
    C_(SB__JK_SIZE, SB__J_SIZE, cell.size, 0),
    C_(SB__JK_SRC_ALIGN, SB__J_SIZE, cell.src_align, 0),
    C_(SB__JK_DST_ALIGN, SB__J_SIZE, cell.dst_align, 0),
    C_(SB__JK_ITERS, SB__J_SIZE, iters, SB__J_LOAD),
    C_(SB__JK_SAMPLES, SB__J_SIZE, nsamples, 0),
    C_(SB__JK_REJECTED_TOTAL, SB__J_SIZE, rejected_total, 0),
    CUSTOM(SB__JK_REJECTED, SB__JC_REJECTED),
    C_("warmup_samples", SB__J_SIZE, warmup_samples, SB__J_LOAD),
    C_(SB__JK_REACHED, SB__J_BOOL, reached_precision, 0),
    C_(SB__JK_INTERVAL, SB__J_INTERVAL, interval, 0),
    C_(SB__JK_METHOD, SB__J_STRPTR, method, 0),
    C_(SB__JK_MBPS, SB__J_INTERVAL, mbps, 0),
    C_(SB__JK_TICKS_PER_BYTE, SB__J_NUM, cycles_per_byte, 0),
    C_(SB__JK_REL_HALFWIDTH, SB__J_NUM, rel_halfwidth, 0),
    OBJECT(SB__JK_TICKS, ticks, 0),
    C_(SB__JK_INVOCATIONS, SB__J_SIZE, invocations, 0),
    CUSTOM(SB__JK_INVOCATION_SAMPLES, SB__JC_INVOCATION_SAMPLES),
    CUSTOM(SB__JK_INVOCATION_MEDIANS, SB__JC_INVOCATION_MEDIANS),
    OBJECT(SB__JK_LEVELS, levels, 0),
    C_(SB__JK_LAG1, SB__J_NUM, lag1, 0),
    C_("autocorrelated", SB__J_BOOL, autocorrelated, 0),
    C_(SB__JK_MDE, SB__J_NUM, mde, 0),
    CUSTOM(SB__JK_METRIC, SB__JC_CELL_METRIC),
    C_(SB__JK_CORE_CYCLES, SB__J_INTERVAL, core_cycles, 0),
    C_(SB__JK_CORE_PER_BYTE, SB__J_INTERVAL, core_per_byte, 0),
    C_(SB__JK_CLOCK_SAMPLES, SB__J_SIZE, clock_samples, 0),
    CUSTOM(SB__JK_COMPARISON, SB__JC_COMPARISON),
    CUSTOM(SB__JK_SAMPLES_TICKS, SB__JC_SAMPLES_TICKS),
    OBJECT(SB__JK_CPU_TIME, cpu_time, SB__J_LOAD),
    CUSTOM(SB__JK_DISTURBED, SB__JC_DISTURBED),
    CUSTOM(SB__JK_COUNTERS, SB__JC_COUNTERS),
    CUSTOM(SB__JK_SAMPLES_COUNTERS, SB__JC_SAMPLES_COUNTERS),
    CUSTOM(SB__JK_SAMPLES_FLAGS, SB__JC_SAMPLES_FLAGS),
    CUSTOM(SB__JK_SAMPLES_CLOCK, SB__JC_SAMPLES_CLOCK),
    CUSTOM(SB__JK_SAMPLES_PROBES, SB__JC_SAMPLES_PROBES),
    CUSTOM(SB__JK_HELD, SB__JC_HELD),
    /* A run merged from several: recomputed on loading. */
    C_("runs", SB__J_SIZE, runs, 0),
    CUSTOM("run_medians", SB__JC_RUN_MEDIANS),
    CUSTOM("run_between_fraction", SB__JC_RUN_BETWEEN),
};
const size_t sb__json_ncell = sizeof sb__json_cell / sizeof sb__json_cell[0];

static int passes(int check, double v)
{
    switch (check) {
    case SB__J_POSITIVE:
        return v > 0;
    case SB__J_NONNEG:
        return v >= 0;
    case SB__J_OPEN_UNIT:
        return v > 0 && v < 1;
    case SB__J_HALF_UNIT:
        return v >= 0 && v < 1;
    case SB__J_AT_LEAST_1:
        return v >= 1;
    }
    return 1;
}

void sb__json_load_fields(const sb__jfield *t, size_t n, json_t *o,
                          void *const base[SB__J_NBASES], const char *path,
                          sb__jskip skip, void *arg)
{
    for (size_t i = 0; i < n; i++) {
        const sb__jfield *f = &t[i];
        json_t *v;
        char *at;
        int taken = 1;

        /* Not read back, or a nested object whose base is its fields'. */
        if (!(f->flags & SB__J_LOAD))
            continue;
        v = json_object_get(o, f->key);
        if (f->type == SB__J_OBJECT) {
            char sub[128];
            snprintf(sub, sizeof sub, "%s.%s", path, f->key);
            if (json_is_object(v))
                sb__json_load_fields(f->sub, f->nsub, v, base, sub, skip,
                                     arg);
            else if (v)
                taken = 0;
            if (!taken && skip)
                skip(arg, path, f->key);
            continue;
        }
        at = (char *)base[f->base] + f->offset;
        switch (f->type) {
        case SB__J_STR:
            /* Every string of a loaded run is printed somewhere: its
             * control characters become '?' here, once. */
            snprintf(at, f->size, "%s",
                     json_is_string(v) ? json_string_value(v) : "");
            sb__clean_text(at);
            taken = !v || json_is_string(v) || json_is_null(v);
            break;
        case SB__J_NUM: {
            /* null stands for a value that was not finite. */
            double x = json_is_number(v) ? json_number_value(v) : NAN;
            if ((json_is_number(v) || json_is_null(v)) && passes(f->check, x))
                memcpy(at, &x, sizeof x);
            else
                taken = !v || json_is_null(v);
            break;
        }
        case SB__J_SIZE:
            if (json_is_integer(v) && json_integer_value(v) >= 0 &&
                passes(f->check, (double)json_integer_value(v))) {
                size_t z = (size_t)json_integer_value(v);
                memcpy(at, &z, sizeof z);
            } else {
                taken = !v || json_is_null(v);
            }
            break;
        case SB__J_BOOL: {
            int b = json_is_true(v);
            memcpy(at, &b, sizeof b);
            taken = !v || json_is_boolean(v) || json_is_null(v);
            break;
        }
        }
        if (!taken && skip)
            skip(arg, path, f->key);
    }
}
