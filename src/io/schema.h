/*
 * io/schema.h: the JSON schema of a saved run ("statbench-run",
 * version 1; docs/schema.md) as one list of fields, which the writer
 * (report/json.c) and the loader (load.c) both walk, so that each key is
 * spelled once.  Never installed.
 *
 * A table lists an object's keys in the order they are written.  Plain
 * fields (a string, a number, a size, a flag, an interval, a nested
 * object) are written and, when marked SB__J_LOAD, read back by the
 * walkers from the struct at the given offset.  The rest (arrays, objects
 * keyed by name, values computed from several fields) are SB__J_CUSTOM:
 * the writer builds them by their id; the loader reads them by hand,
 * with the SB__JK_* names below.  What the loader does not read it
 * recomputes from the samples (sb__run_analyse).
 */
#ifndef SB_REPORT_SCHEMA_H
#define SB_REPORT_SCHEMA_H

#include <stddef.h>

#include <jansson.h>

#include "statbench.h"

#define SB__JSON_SCHEMA "statbench-run"
#define SB__JSON_SCHEMA_VERSION 1

/* Keys the loader reads by hand (custom fields, required fields with
 * their own message, the top level and the arrays' items), and below
 * those a cell's columns name. */
#define SB__JK_SCHEMA "schema"
#define SB__JK_SCHEMA_VERSION "schema_version"
#define SB__JK_META "meta"
#define SB__JK_INTERRUPTED "interrupted"
#define SB__JK_ELAPSED "elapsed_s"
#define SB__JK_ROUNDS "rounds"
#define SB__JK_INVOCATIONS_RUN "invocations_run"
#define SB__JK_CELLS "cells"
#define SB__JK_IMPORTED "imported"
#define SB__JK_UNIT "unit"
#define SB__JK_COMMAND "command"
#define SB__JK_CPU_FEATURES "cpu_features"
#define SB__JK_CPU "cpu"
#define SB__JK_SEED "seed"
#define SB__JK_TIMER "timer"
#define SB__JK_KIND "kind"
#define SB__JK_HZ "hz"
#define SB__JK_HZ_SOURCE "hz_source"
#define SB__JK_OPTIONS "options"
#define SB__JK_CACHE "cache"
#define SB__JK_REJECT "reject"
#define SB__JK_COUNTER_NAMES "counter_names"
#define SB__JK_CACHES "caches"
#define SB__JK_CACHE_LABEL "level"
#define SB__JK_CACHE_BYTES "bytes"
#define SB__JK_NOTES "notes"
#define SB__JK_ENV "env"
#define SB__JK_ENV_KEY "key"
#define SB__JK_ENV_VALUE "value"
#define SB__JK_ENV_WARN "warn"
#define SB__JK_ENV_ADVICE "advice"
#define SB__JK_KERNEL "kernel"
#define SB__JK_FAMILY "family"
#define SB__JK_SIZE "size"
#define SB__JK_SRC_ALIGN "src_align"
#define SB__JK_DST_ALIGN "dst_align"
#define SB__JK_REJECTED "rejected"
#define SB__JK_INVOCATION_SAMPLES "invocation_samples"
#define SB__JK_INVOCATION_MEDIANS "invocation_medians"
#define SB__JK_COMPARISON "comparison"
#define SB__JK_SAMPLES_TICKS "samples_ticks"
#define SB__JK_DISTURBED "disturbed"
#define SB__JK_COUNTERS "counters"
#define SB__JK_SAMPLES_COUNTERS "samples_counters"
#define SB__JK_SAMPLES_FLAGS "samples_flags"
#define SB__JK_PER_CALL "per_call"
#define SB__JK_PER_BYTE "per_byte"
#define SB__JK_METRIC "metric"
#define SB__JK_SAMPLES_CLOCK "samples_clock"
#define SB__JK_SAMPLES_PROBES "samples_probes"
#define SB__JK_HELD "held"
#define SB__JK_HELD_AT "at"
#define SB__JK_SHARED_MARGIN "shared_margin"
#define SB__JK_SHARED_LEVEL "shared_level"
#define SB__JK_CHAIN_APART "chain_apart"
#define SB__JK_MERGED_RUNS "merged_runs"
#define SB__JK_INVOCATION_RUN "invocation_run"
#define SB__JK_PROBES "probes"
#define SB__JK_INV_CLOCK "invocation_clock"
#define SB__JK_INV_QUIET "invocation_contention_quiet"
/* Keys of a cell that the columns of the reports name (report/columns.c)
 * as the field their value is. */
#define SB__JK_ITERS "iters_per_sample"
#define SB__JK_SAMPLES "samples"
#define SB__JK_REJECTED_TOTAL "rejected_total"
#define SB__JK_REACHED "reached_precision"
#define SB__JK_INTERVAL "interval"
#define SB__JK_METHOD "method"
#define SB__JK_MBPS "mbps"
#define SB__JK_TICKS_PER_BYTE "ticks_per_byte"
#define SB__JK_REL_HALFWIDTH "rel_halfwidth"
#define SB__JK_TICKS "ticks"
#define SB__JK_INVOCATIONS "invocations"
#define SB__JK_LEVELS "levels"
#define SB__JK_LAG1 "lag1"
#define SB__JK_MDE "mde"
#define SB__JK_CORE_CYCLES "core_cycles"
#define SB__JK_CORE_PER_BYTE "core_cycles_per_byte"
#define SB__JK_CLOCK_SAMPLES "clock_samples"
#define SB__JK_CPU_TIME "cpu_time"
/* The kernels loaded from shared objects (top level, read by hand). */
#define SB__JK_LOADED_KERNELS "loaded_kernels"

/* A value that both sides spell: the reject policy that keeps disturbed
 * samples (the timer kinds' names are sb__timer_kind_of's). */
#define SB__JV_REJECT_NONE "none"

enum sb__jtype {
    SB__J_STR,      /* a char array of size bytes */
    SB__J_STRPTR,   /* a const char * (written only) */
    SB__J_NUM,      /* a double; null when not finite */
    SB__J_SIZE,     /* a size_t, as an integer */
    SB__J_INT,      /* an int, as an integer */
    SB__J_BOOL,     /* an int, as true or false */
    SB__J_INTERVAL, /* an sb_interval: estimate, lo, hi, level, achieved */
    SB__J_OBJECT,   /* a nested object: the fields of sub */
    SB__J_CUSTOM    /* built by the writer by id, read by hand */
};

/* Flags of a field. */
#define SB__J_LOAD 1u    /* the loader's walk reads it back */
#define SB__J_SAMPLES 2u /* NaN (0, an empty interval) without samples */
#define SB__J_LEVELS 4u  /* NaN unless two or more invocation medians */

/* What the loader requires of a value before it takes it; a value that
 * fails keeps the default. */
enum sb__jcheck {
    SB__J_ANY,
    SB__J_POSITIVE,  /* > 0 */
    SB__J_NONNEG,    /* >= 0 */
    SB__J_OPEN_UNIT, /* in (0, 1) */
    SB__J_HALF_UNIT, /* in [0, 1) */
    SB__J_AT_LEAST_1 /* a size of 1 or more */
};

/* Which struct a field's offset is in. */
enum sb__jbase {
    SB__J_META,    /* sb_meta */
    SB__J_MOPTS,   /* sb_measure_options */
    SB__J_AOPTS,   /* sb_analysis_options */
    SB__J_CELL,    /* sb_cell_result */
    SB__J_NBASES
};

/* Custom fields, built by the writer (report/json.c). */
enum sb__jcustom {
    SB__JC_NONE,
    SB__JC_KERNEL,
    SB__JC_COMMAND,
    SB__JC_CPU_FEATURES,
    SB__JC_SEED,
    SB__JC_TIMER_KIND,
    SB__JC_TICK_UNIT,
    SB__JC_OUTLIERS,
    SB__JC_CACHE,
    SB__JC_REJECT,
    SB__JC_COUNTER_NAMES,
    SB__JC_NOTES,
    SB__JC_ENV,
    SB__JC_FAMILY,
    SB__JC_REJECTED,
    SB__JC_INVOCATION_SAMPLES,
    SB__JC_INVOCATION_MEDIANS,
    SB__JC_COMPARISON,
    SB__JC_SAMPLES_TICKS,
    SB__JC_DISTURBED,
    SB__JC_COUNTERS,
    SB__JC_SAMPLES_COUNTERS,
    SB__JC_SAMPLES_FLAGS,
    SB__JC_METRIC,      /* the analysis option (auto, time, cycles) */
    SB__JC_CELL_METRIC, /* what a cell was judged in (time, cycles) */
    SB__JC_SAMPLES_CLOCK,
    SB__JC_RUN_MEDIANS,
    SB__JC_RUN_BETWEEN,
    SB__JC_INV_CLOCK,
    SB__JC_INV_QUIET,
    SB__JC_SAMPLES_PROBES,
    SB__JC_HELD,
    SB__JC_SHARED_MARGIN,
    SB__JC_SHARED_LEVEL,
    SB__JC_CACHES,
    SB__JC_CHAIN_APART
};

typedef struct sb__jfield {
    const char *key;
    unsigned char type, flags, check, base;
    int custom;          /* enum sb__jcustom of an SB__J_CUSTOM field */
    size_t offset, size; /* in the struct of base; size of an SB__J_STR */
    const struct sb__jfield *sub; /* the fields of an SB__J_OBJECT */
    size_t nsub;
} sb__jfield;

/* The meta object (sb_meta and the options) and one cell. */
extern const sb__jfield sb__json_meta[];
extern const size_t sb__json_nmeta;
extern const sb__jfield sb__json_cell[];
extern const size_t sb__json_ncell;

/* A field present in the file but not taken (the wrong type, or outside
 * its range): path is where the walk is ("meta.options"), key the field's
 * name; the value stays at its default. */
typedef void (*sb__jskip)(void *arg, const char *path, const char *key);

/* The loader's walk: every SB__J_LOAD field of t found in o, into the
 * structs of base (indexed by enum sb__jbase), checked as the field says.
 * Strings lose their control characters (sb__clean_text).  skip (may be
 * NULL) hears of each field not taken, path naming o. */
void sb__json_load_fields(const sb__jfield *t, size_t n, json_t *o,
                          void *const base[SB__J_NBASES], const char *path,
                          sb__jskip skip, void *arg);

#endif
