/*
 * names.c: the names of the public enums, each pair of sb_X_name and
 * sb_X_parse generated from one list, so that a value is spelled once
 * for the writers, the loader and the command line (design.md, "Where a
 * new thing goes").
 */
#include "config.h"

#include <string.h>

#include "sb_internal.h"

/* Each list is X(value, "name"), in the order of the enum. */
#define SB__FAMILIES(X)                                                     \
    X(SB_FAMILY_COPY, "copy") X(SB_FAMILY_CLEAR, "clear")                  \
    X(SB_FAMILY_ALLOC, "alloc") X(SB_FAMILY_SYSCALL, "syscall")            \
    X(SB_FAMILY_EXTERNAL, "external")
#define SB__CACHES(X) X(SB_CACHE_HOT, "hot") X(SB_CACHE_COLD, "cold")
#define SB__OUTLIER_POLICIES(X)                                             \
    X(SB_OUTLIERS_KEEP, "keep")                                             \
    X(SB_OUTLIERS_REJECT_SEVERE, "reject-severe")                           \
    X(SB_OUTLIERS_REJECT_ALL, "reject-all")
#define SB__REJECT_POLICIES(X)                                              \
    X(SB_REJECT_DISTURBED, "disturbed") X(SB_REJECT_NONE, "none")
#define SB__REJECT_REASONS(X)                                               \
    X(SB_REJECT_CTXSW, "context-switch") X(SB_REJECT_OUTLIER, "outlier")   \
    X(SB_REJECT_MIGRATION, "migration")                                     \
    X(SB_REJECT_INTERRUPT, "interrupt")                                     \
    X(SB_REJECT_KERNEL_FAILED, "kernel-failed")                             \
    X(SB_REJECT_CPU_WAIT, "cpu-wait")                                       \
    X(SB_REJECT_SHARED_CORE, "shared-core")
#define SB__VERDICTS(X)                                                     \
    X(SB_VERDICT_NONE, "none")                                              \
    X(SB_VERDICT_EQUIVALENT, "equivalent") X(SB_VERDICT_FASTER, "faster")  \
    X(SB_VERDICT_SLOWER, "slower")                                          \
    X(SB_VERDICT_INCONCLUSIVE, "inconclusive")
#define SB__INCONCLUSIVE_POLICIES(X)                                        \
    X(SB_INCONCLUSIVE_FAIL, "fail") X(SB_INCONCLUSIVE_WARN, "warn")        \
    X(SB_INCONCLUSIVE_PASS, "pass")
#define SB__PLOT_KINDS(X)                                                   \
    X(SB_PLOT_AUTO, "auto") X(SB_PLOT_SWEEP, "sweep")                      \
    X(SB_PLOT_MATRIX, "matrix") X(SB_PLOT_SIZES, "sizes")                  \
    X(SB_PLOT_DISTRIBUTION, "distribution")
#define SB__METRICS(X)                                                      \
    X(SB_METRIC_AUTO, "auto") X(SB_METRIC_TIME, "time")                     \
    X(SB_METRIC_CYCLES, "cycles")

#define SB__PROFILE_STATES(X)                                               \
    X(SB_PROFILE_UNJUDGED, "unjudged") X(SB_PROFILE_NEW, "new")            \
    X(SB_PROFILE_UNKNOWN, "unknown") X(SB_PROFILE_QUIET, "quiet")          \
    X(SB_PROFILE_SHARED, "shared")

#define SB__SHARED_LEVELS(X)                                                \
    X(SB_SHARED_INVOCATION, "invocation") X(SB_SHARED_RUN, "run")

#define SB__RUN_LEVELS(X)                                                   \
    X(SB_RUN_LEVEL_SAME_RUN, "same-run") X(SB_RUN_LEVEL_RUNS, "runs")       \
    X(SB_RUN_LEVEL_BASELINE, "baseline-runs")                               \
    X(SB_RUN_LEVEL_GIVEN, "given") X(SB_RUN_LEVEL_ASSUMED, "assumed")

#define SB__IMPORT_FORMATS(X)                                               \
    X(SB_IMPORT_AUTO, "auto") X(SB_IMPORT_STATBENCH, "statbench")           \
    X(SB_IMPORT_NUMBERS, "numbers") X(SB_IMPORT_GBENCH, "gbench")           \
    X(SB_IMPORT_HYPERFINE, "hyperfine") X(SB_IMPORT_PYPERF, "pyperf")

#define SB__NAME_CASE(value, text)                                          \
    case value:                                                             \
        return text;
#define SB__PARSE_IF(value, text)                                           \
    if (!strcmp(name, text))                                                \
        return value;

/* sb_<fn>_name: the name, "?" for a value outside the list; sb_<fn>_parse:
 * the value of a name, -1 for anything else (NULL included). */
#define SB__NAME_PAIR(fn, LIST)                                             \
    const char *sb_##fn##_name(int value)                                   \
    {                                                                       \
        switch (value) { LIST(SB__NAME_CASE) }                              \
        return "?";                                                         \
    }                                                                       \
    int sb_##fn##_parse(const char *name)                                   \
    {                                                                       \
        if (!name)                                                          \
            return -1;                                                      \
        LIST(SB__PARSE_IF)                                                  \
        return -1;                                                          \
    }

SB__NAME_PAIR(family, SB__FAMILIES)
SB__NAME_PAIR(cache, SB__CACHES)
SB__NAME_PAIR(outlier_policy, SB__OUTLIER_POLICIES)
SB__NAME_PAIR(reject_policy, SB__REJECT_POLICIES)
SB__NAME_PAIR(reject, SB__REJECT_REASONS)
SB__NAME_PAIR(verdict, SB__VERDICTS)
SB__NAME_PAIR(inconclusive_policy, SB__INCONCLUSIVE_POLICIES)
SB__NAME_PAIR(plot_kind, SB__PLOT_KINDS)
SB__NAME_PAIR(metric, SB__METRICS)
SB__NAME_PAIR(profile_state, SB__PROFILE_STATES)
SB__NAME_PAIR(shared_level, SB__SHARED_LEVELS)
SB__NAME_PAIR(run_level, SB__RUN_LEVELS)
SB__NAME_PAIR(import_format, SB__IMPORT_FORMATS)

/* What each timer's ticks are, in the words of every writer and of the
 * loader, indexed by enum sb_timer_kind: a new timer is one row here and
 * its reader. */
static const sb__timer_kind timer_kinds[] = {
    [SB_TIMER_TSC] = {"tsc", "tsc", "TSC",
                      "TSC (lfence;rdtsc .. rdtscp;lfence)",
                      "TSC reference cycle",
                      "TSC reference cycles (constant rate, not core clocks)",
                      "cycles", "tsc", "ticks", "TSC cycles"},
    [SB_TIMER_CLOCK] = {"clock", "clock_monotonic_raw", "clock",
                        "clock_gettime(CLOCK_MONOTONIC_RAW)", "nanosecond",
                        "nanoseconds", "ns", "ns", "ns", "ns"},
    [SB_TIMER_CNTVCT] = {"cntvct", "cntvct", "generic timer",
                         "generic timer (isb;mrs cntvct_el0;isb)",
                         "generic timer tick",
                         "generic timer ticks (constant rate, not core "
                         "clocks)",
                         "ticks", "cnt", "ticks", "generic timer ticks"},
};
#define NTIMERS (sizeof timer_kinds / sizeof timer_kinds[0])

/* The words of a kind outside the list: ticks of an unknown rate's
 * name, never a claim of cycles or nanoseconds. */
static const sb__timer_kind unknown_timer = {
    "?", "?", "timer", "an unknown timer", "tick", "timer ticks", "ticks",
    "tick", "ticks", "timer ticks"};

const sb__timer_kind *sb__timer_kind_of(int kind)
{
    return kind >= 0 && (size_t)kind < NTIMERS ? &timer_kinds[kind]
                                               : &unknown_timer;
}

int sb__timer_kind_json(const char *json)
{
    for (size_t i = 0; json && i < NTIMERS; i++)
        if (!strcmp(json, timer_kinds[i].json))
            return (int)i;
    return -1;
}

const char *sb_timer_name(int kind)
{
    return sb__timer_kind_of(kind)->name;
}

const char *sb_timer_label(int kind)
{
    return sb__timer_kind_of(kind)->label;
}

const char *sb_timer_unit(int kind)
{
    return sb__timer_kind_of(kind)->tick;
}

int sb_timer_parse(const char *name)
{
    for (size_t i = 0; name && i < NTIMERS; i++)
        if (!strcmp(name, timer_kinds[i].name))
            return (int)i;
    return -1;
}
