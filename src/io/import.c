/*
 * import.c: runs of values measured elsewhere (statbench analyze, and
 * statbench cmd's rounds): each named set of values a cell, its
 * invocations the blocks the caller gives, in the values' own unit.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "plan.h"
#include "run_internal.h"

/* The metadata of a run of values measured elsewhere: this statbench,
 * a clock of 1 Hz (the values are in their own unit), no CPU. */
static void imported_meta(sb_run *run)
{
    snprintf(run->meta.statbench_version, sizeof run->meta.statbench_version,
             "%s", PACKAGE_VERSION);
    run->meta.timer.kind = SB_TIMER_CLOCK;
    run->meta.timer.hz = 1;
    run->meta.timer.hz_source = "samples measured elsewhere";
    run->meta.cpu = -1;
}

/* The run analysed into *out, or freed when the analysis fails. */
static int analysed(sb_run *run, sb_run **out, sb_error *err)
{
    int rc = sb__run_analyse(run, err);
    if (rc != SB_OK) {
        sb_run_free(run);
        return rc;
    }
    *out = run;
    return SB_OK;
}

int sb_run_from_samples_new(const char *const *names,
                            const double *const *values, const size_t *n,
                            size_t m, const sb_analysis_options *a,
                            uint64_t seed, sb_run **out, sb_error *err)
{
    sb_measure_options o;
    sb_analysis_options fa;
    sb_run *run;
    int rc;

    sb_init();
    if (!out || !names || !values || !n || m == 0)
        return sb__error(err, SB_EINVAL, "sb_run_from_samples_new: %s",
                         !out ? "out is NULL" : !names ? "names is NULL"
                         : !values ? "values is NULL" : !n ? "n is NULL"
                                                          : "no cells");
    *out = NULL;
    for (size_t i = 0; i < m; i++)
        if (!names[i] || (n[i] > 0 && !values[i]))
            return sb__error(err, SB_EINVAL,
                             "sb_run_from_samples_new: %s[%zu] is NULL",
                             !names[i] ? "names" : "values", i);
    if ((rc = sb__analysis_get(a, &fa, "sb_run_from_samples_new", err)) !=
        SB_OK)
        return rc;
    if (sb_analysis_options_check(&fa, err) != SB_OK)
        return SB_EINVAL;
    /* Never measured: the defaults, one invocation, and the seed of its
     * bootstraps. */
    sb_measure_options_init(&o);
    o.invocations = 1;
    o.seed = seed;
    for (size_t i = 0; i < m; i++) {
        if (n[i] == 0)
            return sb__error(err, SB_EINVAL, "%s: no values", names[i]);
        for (size_t j = 0; j < n[i]; j++)
            if (!isfinite(values[i][j]) ||
                fabs(values[i][j]) > SB_VALUE_MAX)
                return sb__error(err, SB_EINVAL,
                                 "%s: value %zu %s", names[i], j + 1,
                                 !isfinite(values[i][j])
                                     ? "is not a finite number"
                                     : "is beyond 1e300 in magnitude, "
                                       "where a sum or a midpoint of two "
                                       "values overflows");
    }
    run = sb__run_alloc(m, &o, &fa);
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    run->imported = 1;
    if (sb__run_add_own_kernels(run, names, NULL, m) != SB_OK) {
        sb_run_free(run);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    imported_meta(run);
    run->invocations = 1;
    for (size_t i = 0; i < m; i++) {
        sb__raw_cell raw = {.nsamples = n[i], .ticks = (double *)values[i]};
        run->cells[i].cell = (sb_cell){.kernel = &run->own_kernels[i]};
        if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
            sb_run_free(run);
            return sb__error(err, SB_ENOMEM, "out of memory");
        }
    }
    return analysed(run, out, err);
}

/* A value of an imported set: finite, and small enough that sums and
 * midpoints of two stay finite.  0, or SB_EINVAL naming value j of
 * name. */
static int check_value(const char *name, size_t j, double v, sb_error *err)
{
    if (isfinite(v) && fabs(v) <= SB_VALUE_MAX)
        return SB_OK;
    return sb__error(err, SB_EINVAL, "%s: value %zu %s", name, j + 1,
                     !isfinite(v) ? "is not a finite number"
                                  : "is beyond 1e300 in magnitude, where a "
                                    "sum or a midpoint of two values "
                                    "overflows");
}

/* The arguments of sb_run_from_sets_new that are not the values. */
static int check_sets(const sb_sample_set *sets, size_t m,
                      const char *const *counter_names, size_t ncounters,
                      const char *unit, sb_error *err)
{
    static const char fn[] = "sb_run_from_sets_new";

    if (!sets || m == 0)
        return sb__error(err, SB_EINVAL, "%s: %s", fn,
                         !sets ? "sets is NULL" : "no cells");
    if (ncounters > SB_MAX_COUNTERS || (ncounters && !counter_names))
        return sb__error(err, SB_EINVAL, "%s: %s", fn,
                         ncounters > SB_MAX_COUNTERS
                             ? "more counters than SB_MAX_COUNTERS"
                             : "counter_names is NULL");
    for (size_t j = 0; j < ncounters; j++) {
        size_t len = counter_names[j] ? strlen(counter_names[j]) : 0;
        if (len == 0 || len > 63)
            return sb__error(err, SB_EINVAL,
                             "%s: counter name %zu is %s", fn, j,
                             !counter_names[j] ? "NULL"
                             : len ? "longer than 63 bytes" : "empty");
        for (size_t k = 0; k < j; k++)
            if (!strcmp(counter_names[j], counter_names[k]))
                return sb__error(err, SB_EINVAL,
                                 "%s: counter name %zu repeats %zu", fn,
                                 j, k);
    }
    if (unit && strlen(unit) > 15)
        return sb__error(err, SB_EINVAL, "%s: unit longer than 15 bytes",
                         fn);
    for (size_t i = 0; i < m; i++) {
        const sb_sample_set *c = &sets[i];
        size_t sum = 0;
        if (!c->name || (c->n > 0 && !c->values))
            return sb__error(err, SB_EINVAL, "%s: sets[%zu].%s is NULL", fn,
                             i, !c->name ? "name" : "values");
        if (c->n == 0)
            return sb__error(err, SB_EINVAL, "%s: no values", c->name);
        if (c->invocation_samples) {
            if (c->ninvocations == 0)
                return sb__error(err, SB_EINVAL,
                                 "%s: invocation_samples of no "
                                 "invocation",
                                 c->name);
            for (size_t g = 0; g < c->ninvocations; g++) {
                if (c->invocation_samples[g] > c->n - sum)
                    break;
                sum += c->invocation_samples[g];
            }
            if (sum != c->n)
                return sb__error(err, SB_EINVAL,
                                 "%s: invocation_samples do not add up to "
                                 "its %zu values",
                                 c->name, c->n);
        }
    }
    return SB_OK;
}

/* Every value of every set, by check_value: 0, or SB_EINVAL naming the
 * first that is not one. */
static int check_values(const sb_sample_set *sets, size_t m, sb_error *err)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < sets[i].n; j++)
            if (check_value(sets[i].name, j, sets[i].values[j], err) !=
                SB_OK)
                return SB_EINVAL;
    return SB_OK;
}

/* A kernel of run's own per set, named as the set: a stand-in, since
 * the values were measured elsewhere.  0, or SB_ENOMEM. */
static int add_kernels(sb_run *run, const sb_sample_set *sets, size_t m)
{
    const char **names = malloc(m * sizeof *names);
    int rc;

    if (!names)
        return SB_ENOMEM;
    for (size_t i = 0; i < m; i++)
        names[i] = sets[i].name;
    rc = sb__run_add_own_kernels(run, names, NULL, m);
    free(names);
    return rc != SB_OK ? SB_ENOMEM : SB_OK;
}

/* Each line of notes a note of its own, cleaned as a loaded run's are. */
static void add_notes(sb_meta *meta, const char *notes)
{
    const char *p = notes;

    while (*p) {
        size_t len = strcspn(p, "\n");
        char line[sizeof meta->notes];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        sb__clean_text(line);
        if (len)
            sb__meta_note(meta, "%s", line);
        p += len + (p[len] == '\n');
    }
}

/* The samples of each set into its cell, one invocation per block of
 * invocation_samples (or all in one), with their counters.  0, or
 * SB_ENOMEM. */
static int add_sets(sb_run *run, const sb_sample_set *sets, size_t m,
                    size_t ncounters)
{
    run->invocations = 1;
    for (size_t i = 0; i < m; i++) {
        const sb_sample_set *c = &sets[i];
        size_t groups = c->invocation_samples ? c->ninvocations : 1, at = 0;
        run->cells[i].cell = (sb_cell){.kernel = &run->own_kernels[i]};
        for (size_t g = 0; g < groups; g++) {
            size_t n = c->invocation_samples ? c->invocation_samples[g]
                                             : c->n;
            sb__raw_cell raw = {
                .nsamples = n,
                .ticks = (double *)c->values + at,
                .ncounters = c->counters ? ncounters : 0,
                .counter_names = run->meta.counter_names,
                .counters = c->counters ? (double *)c->counters +
                                              at * ncounters
                                        : NULL};
            if (sb__run_add_invocation(run, i, &raw) != SB_OK)
                return SB_ENOMEM;
            at += n;
        }
        if (groups > run->invocations)
            run->invocations = groups;
    }
    return SB_OK;
}

int sb_run_from_sets_new(const sb_sample_set *sets, size_t m,
                         const char *const *counter_names, size_t ncounters,
                         const char *unit, const char *notes,
                         const sb_analysis_options *a, uint64_t seed,
                         sb_run **out, sb_error *err)
{
    sb_measure_options o;
    sb_analysis_options fa;
    sb_run *run;
    int rc;

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "sb_run_from_sets_new: out is "
                                         "NULL");
    *out = NULL;
    if ((rc = check_sets(sets, m, counter_names, ncounters, unit, err)) !=
        SB_OK)
        return rc;
    if ((rc = sb__analysis_get(a, &fa, "sb_run_from_sets_new", err)) !=
        SB_OK)
        return rc;
    if (sb_analysis_options_check(&fa, err) != SB_OK)
        return SB_EINVAL;
    if ((rc = check_values(sets, m, err)) != SB_OK)
        return rc;
    sb_measure_options_init(&o);
    o.invocations = 1;
    o.seed = seed;
    run = sb__run_alloc(m, &o, &fa);
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    run->imported = 1;
    if (add_kernels(run, sets, m) != SB_OK) {
        sb_run_free(run);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    snprintf(run->unit, sizeof run->unit, "%s", unit ? unit : "");
    sb__clean_text(run->unit);
    imported_meta(run);
    for (size_t j = 0; j < ncounters; j++) {
        snprintf(run->meta.counter_names[j], sizeof run->meta.counter_names[j],
                 "%s", counter_names[j]);
        sb__clean_text(run->meta.counter_names[j]);
    }
    run->meta.ncounters = ncounters;
    if (notes)
        add_notes(&run->meta, notes);
    if (add_sets(run, sets, m, ncounters) != SB_OK) {
        sb_run_free(run);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    return analysed(run, out, err);
}
