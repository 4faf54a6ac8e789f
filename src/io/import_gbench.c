/*
 * import_gbench.c: Google Benchmark's JSON (--benchmark_out) read as
 * imported samples (import_tools.h): each iteration row, a repetition's
 * measurement, an invocation of one sample of its benchmark, in the one
 * time unit of the file's rows; the aggregate rows and those with
 * error_occurred skipped and counted in the notes.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "import_tools.h"
#include "load.h"

static const struct {
    const char *name;
    double ns;
} gb_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

/* Row r's run type: 1 an iteration row (a repetition's measurement), 0
 * an aggregate (mean, median, stddev, cv of the repetitions: statbench
 * computes its own), -1 refused with err filled.  Files before run_type
 * mark an aggregate by its aggregate_name alone. */
static int gb_iteration(struct imp *im, json_t *r, size_t i)
{
    json_t *rt = json_object_get(r, "run_type");
    char buf[40];

    if (!rt)
        return json_object_get(r, "aggregate_name") ? 0 : 1;
    if (!json_is_string(rt)) {
        sb__imp_bad(im, "benchmarks[%zu].run_type: not a string", i);
        return -1;
    }
    if (!strcmp(json_string_value(rt), "iteration"))
        return 1;
    if (!strcmp(json_string_value(rt), "aggregate"))
        return 0;
    sb__imp_bad(im, "benchmarks[%zu].run_type: '%s' is neither iteration "
                    "nor aggregate",
                i, sb__imp_shown(buf, sizeof buf, json_string_value(rt)));
    return -1;
}

/* Row r's time unit, an index of gb_units (its default, ns, when the row
 * has none), or -1 refused with err filled. */
static int gb_unit(struct imp *im, json_t *r, size_t i)
{
    json_t *tu = json_object_get(r, "time_unit");
    char buf[24];

    if (!tu)
        return 0;
    if (!json_is_string(tu)) {
        sb__imp_bad(im, "benchmarks[%zu].time_unit: not a string", i);
        return -1;
    }
    for (size_t k = 0; k < sizeof gb_units / sizeof gb_units[0]; k++)
        if (!strcmp(json_string_value(tu), gb_units[k].name))
            return (int)k;
    sb__imp_bad(im, "benchmarks[%zu].time_unit: '%s' is not ns, us, ms or s",
                i, sb__imp_shown(buf, sizeof buf, json_string_value(tu)));
    return -1;
}

/* Row i of the benchmarks into *r (until the next sb__imp_el_get),
 * checked an object, and *it its run type (gb_iteration's 1 or 0): SB_OK,
 * or the refusal's status with err filled. */
static int gb_row(struct imp *im, size_t i, json_t **r, int *it)
{
    if (!(*r = sb__imp_el_get(im, "benchmarks", i)))
        return im->el_rc;
    if (!json_is_object(*r))
        return sb__imp_bad(im, "benchmarks[%zu]: not an object", i);
    return (*it = gb_iteration(im, *r, i)) < 0 ? SB_EIO : SB_OK;
}

/* The row's name: run_name (the benchmark without its repetition or
 * aggregate suffix, 1.5 on), else name. */
static const char *gb_name(json_t *r)
{
    const char *n = sb__imp_str(r, "run_name");
    return n ? n : sb__imp_str(r, "name");
}

/* The one time unit of the iteration rows into *unit (an index of
 * gb_units; -1 when there is none), *mixed set when they differ: SB_OK,
 * or the refusal's status.  The unit first, so that a file of one unit
 * keeps its values as written, not scaled to ns and back. */
static int gb_file_unit(struct imp *im, int *unit, int *mixed)
{
    json_t *r;
    int rc;

    for (size_t i = 0; i < sb__imp_el_count(im); i++) {
        int it, u;
        if ((rc = gb_row(im, i, &r, &it)) != SB_OK)
            return rc;
        if ((u = gb_unit(im, r, i)) < 0)
            return SB_EIO;
        if (!it || json_is_true(json_object_get(r, "error_occurred")))
            continue;
        if (*unit >= 0 && u != *unit)
            *mixed = 1;
        *unit = u;
    }
    if (*mixed)
        *unit = 0;
    return SB_OK;
}

/* Iteration row r (row i) a sample at key of its benchmark, in the file's
 * unit: SB_OK, or the refusal's status. */
static int gb_add_row(struct imp *im, json_t *r, size_t i, const char *key,
                      int unit)
{
    struct imp_set *s;
    const char *name;
    char path[64];
    double x;
    int rc, u;

    if (!(name = gb_name(r)))
        return sb__imp_bad(im, "benchmarks[%zu].name: %s", i,
                           json_object_get(r, "name") ? "not a string"
                                                      : "missing");
    snprintf(path, sizeof path, "benchmarks[%zu].%s", i, key);
    if ((rc = sb__imp_number_at(im, json_object_get(r, key), path, 1,
                                &x)) != SB_OK)
        return rc;
    if ((u = gb_unit(im, r, i)) < 0)
        return SB_EIO;
    if (unit < 0)
        return sb__imp_bad(im, "benchmarks[%zu]: an iteration row the "
                               "first reading of the file did not have "
                               "(did it change while read?)",
                           i);
    x *= gb_units[u].ns / gb_units[unit].ns;
    if (!isfinite(x) || x > SB_VALUE_MAX)
        return sb__imp_bad(im, "%s: beyond 1e300 %s", path,
                           gb_units[unit].name);
    if (!name[0])
        return sb__imp_bad(im, "benchmarks[%zu].name: empty", i);
    if ((rc = sb__imp_find_set(im, name, i, &s)) != SB_OK)
        return rc;
    if ((rc = sb__imp_push_value(im, s, x)) != SB_OK ||
        (rc = sb__imp_push_invocation(im, s, 1)) != SB_OK)
        return rc;
    return SB_OK;
}

/* Every iteration row a sample (gb_add_row), the others counted in
 * *aggregates and *errors: SB_OK, or the refusal's status. */
static int gb_rows(struct imp *im, const char *key, int unit,
                   size_t *aggregates, size_t *errors)
{
    json_t *r;
    int rc;

    for (size_t i = 0; i < sb__imp_el_count(im); i++) {
        int it;
        /* Read again from the file: what the first pass checked is
         * checked again, so that a file changed in between is refused,
         * never read past its checks. */
        if ((rc = gb_row(im, i, &r, &it)) != SB_OK)
            return rc;
        if (!it) {
            (*aggregates)++;
            continue;
        }
        if (json_is_true(json_object_get(r, "error_occurred"))) {
            (*errors)++;
            continue;
        }
        if ((rc = gb_add_row(im, r, i, key, unit)) != SB_OK)
            return rc;
    }
    return SB_OK;
}

/* What the context says of the machine and the library, as notes. */
static void gb_context_notes(struct imp *im, json_t *ctx)
{
    json_t *cpus = json_object_get(ctx, "num_cpus");
    json_t *mhz = json_object_get(ctx, "mhz_per_cpu");
    const char *exe = sb__imp_str(ctx, "executable");
    const char *build = sb__imp_str(ctx, "library_build_type");
    char buf[160];

    if (exe)
        sb__imp_note(im, "executable: %s",
                     sb__imp_shown(buf, sizeof buf, exe));
    if (json_is_integer(cpus) && json_is_number(mhz))
        sb__imp_note(im, "%lld CPUs at %.0f MHz (Google Benchmark's "
                         "context)",
                     (long long)json_integer_value(cpus),
                     json_number_value(mhz));
    if (json_is_true(json_object_get(ctx, "cpu_scaling_enabled")))
        sb__imp_note(im, "CPU frequency scaling was enabled while "
                         "measuring (Google Benchmark's warning)");
    if (build && !strcmp(build, "debug"))
        sb__imp_note(im, "a debug build of the Google Benchmark library "
                         "measured");
}

/* Each iteration row of root's benchmarks an invocation of one sample of
 * its benchmark, in the one time unit of the file's rows (ns when they
 * differ). */
int sb__imp_read_gbench(struct imp *im, json_t *root, unsigned flags,
                        const struct spans *sp)
{
    json_t *ctx = json_object_get(root, "context");
    json_t *rows = json_object_get(root, "benchmarks");
    const char *key =
        flags & SB_IMPORT_GBENCH_CPU_TIME ? "cpu_time" : "real_time";
    size_t aggregates = 0, errors = 0;
    int unit = -1, mixed = 0, rc;
    char buf[96];

    im->name_list = "benchmarks";
    im->name_key = ".name";
    if (!json_is_object(ctx))
        return sb__imp_bad(im, "context: %s (Google Benchmark writes an "
                               "object of the machine and the date)",
                           ctx ? "not an object" : "missing");
    if (!json_is_array(rows))
        return sb__imp_bad(im, "benchmarks: %s",
                           rows ? "not a list" : "missing");
    sb__imp_el_use(im, rows, sp);
    if ((rc = gb_file_unit(im, &unit, &mixed)) != SB_OK ||
        (rc = gb_rows(im, key, unit, &aggregates, &errors)) != SB_OK)
        return rc;
    if (im->nsets == 0)
        return sb__imp_bad(im, "benchmarks: no iteration rows (%zu "
                               "aggregate, %zu with error_occurred): "
                               "statbench needs each repetition's row "
                               "(run without "
                               "--benchmark_report_aggregates_only)",
                           aggregates, errors);
    snprintf(im->unit, sizeof im->unit, "%s", gb_units[unit].name);
    sb__imp_note(im, "Google Benchmark JSON%s: %zu benchmarks, %s per "
                     "iteration in %s; each repetition an invocation of "
                     "one sample",
                 sb__imp_version_words(buf, sizeof buf, ctx,
                                       "library_version", "library", 40),
                 im->nsets, key, im->unit);
    if (mixed)
        sb__imp_note(im, "the benchmarks' time units differ: all in ns");
    if (aggregates)
        sb__imp_note(im, "%zu aggregate rows skipped (mean, median, "
                         "stddev, cv: statbench computes its own)",
                     aggregates);
    if (errors)
        sb__imp_note(im, "%zu rows with error_occurred skipped", errors);
    gb_context_notes(im, ctx);
    sb__load_copy(im->host, sizeof im->host, ctx, "host_name");
    sb__load_copy(im->date, sizeof im->date, ctx, "date");
    return SB_OK;
}
