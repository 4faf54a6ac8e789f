/*
 * import_pyperf.c: pyperf's JSON (version 1.x) read as imported samples
 * (import_tools.h): each benchmark a cell, the values of each worker
 * process an invocation; calibration runs (no values) and warm-ups
 * skipped, the Python and the machine of the file's metadata in the
 * notes and the run's meta.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "import_tools.h"
#include "load.h"
#include "text.h"

/* The unit of benchmark b (its metadata's, else the file's, else
 * seconds) as statbench names it into buf: SB_OK, or SB_EIO. */
static int pp_unit(struct imp *im, json_t *bm, json_t *common, size_t i,
                   char *buf, size_t size)
{
    json_t *u = json_object_get(bm, "unit");

    if (!u)
        u = json_object_get(common, "unit");
    if (!u || (json_is_string(u) && !strcmp(json_string_value(u),
                                            "second"))) {
        snprintf(buf, size, "s");
        return SB_OK;
    }
    if (!json_is_string(u) || strlen(json_string_value(u)) == 0 ||
        strlen(json_string_value(u)) >= size)
        return sb__imp_bad(im, "benchmarks[%zu].metadata.unit: %s", i,
                           json_is_string(u)
                               ? "empty or longer than 15 bytes"
                               : "not a string");
    sb__clean_into(buf, size, json_string_value(u));
    return SB_OK;
}

/* The document's version: SB_OK for pyperf's 1.x, else SB_EIO naming
 * it. */
static int pp_version(struct imp *im, json_t *ver)
{
    char buf[80];

    if (json_is_string(ver) && !strncmp(json_string_value(ver), "1.", 2))
        return SB_OK;
    return sb__imp_bad(im, "version: %s%s%s: pyperf's JSON of version 1.x "
                           "is what statbench reads",
                       json_is_string(ver) ? "'" : "",
                       json_is_string(ver)
                           ? sb__imp_shown(buf, sizeof buf,
                                           json_string_value(ver))
                       : ver ? "not a string"
                             : "missing",
                       json_is_string(ver) ? "'" : "");
}

/* The runs of benchmark i into its set s, each run with values an
 * invocation, counted in *processes, each without one in *calibration:
 * SB_OK, or the refusal's status. */
static int pp_runs(struct imp *im, json_t *runs, size_t i,
                   struct imp_set *s, size_t *calibration,
                   size_t *processes)
{
    json_t *run;
    size_t j;
    int rc;

    json_array_foreach(runs, j, run)
    {
        json_t *vals, *v;
        size_t k, before = s->n;
        char path[128];
        if (!json_is_object(run))
            return sb__imp_bad(im, "benchmarks[%zu].runs[%zu]: not an "
                                   "object",
                               i, j);
        vals = json_object_get(run, "values");
        if (vals && !json_is_array(vals))
            return sb__imp_bad(im, "benchmarks[%zu].runs[%zu].values: not "
                                   "a list",
                               i, j);
        if (json_array_size(vals) == 0) {
            (*calibration)++;
            continue;
        }
        json_array_foreach(vals, k, v)
        {
            double x;
            snprintf(path, sizeof path,
                     "benchmarks[%zu].runs[%zu].values[%zu]", i, j, k);
            /* Positive, whatever unit a file names, but pyperf's two
             * that are not times (a size or a count may be 0). */
            if ((rc = sb__imp_number_at(im, v, path,
                                        strcmp(im->unit, "byte") &&
                                            strcmp(im->unit, "integer"),
                                        &x)) != SB_OK ||
                (rc = sb__imp_push_value(im, s, x)) != SB_OK)
                return rc;
        }
        if ((rc = sb__imp_push_invocation(im, s, s->n - before)) != SB_OK)
            return rc;
        (*processes)++;
    }
    return SB_OK;
}

/* Benchmark i of the list a cell (common: the file's metadata), its runs
 * counted as pp_runs counts them: SB_OK, or the refusal's status. */
static int pp_benchmark(struct imp *im, json_t *common, size_t i,
                        size_t *calibration, size_t *processes)
{
    json_t *b, *bm, *runs;
    struct imp_set *s;
    const char *name;
    char unit[16];
    int rc;

    if (!(b = sb__imp_el_get(im, "benchmarks", i)))
        return im->el_rc;
    if (!json_is_object(b))
        return sb__imp_bad(im, "benchmarks[%zu]: not an object", i);
    bm = json_object_get(b, "metadata");
    if (bm && !json_is_object(bm))
        return sb__imp_bad(im, "benchmarks[%zu].metadata: not an object",
                           i);
    name = sb__imp_str(bm, "name");
    if (!name)
        name = sb__imp_str(common, "name");
    if (!name)
        return sb__imp_bad(im, "benchmarks[%zu].metadata.name: missing "
                               "(and no metadata.name for all)",
                           i);
    if ((rc = pp_unit(im, bm, common, i, unit, sizeof unit)) != SB_OK)
        return rc;
    if (!im->unit[0])
        snprintf(im->unit, sizeof im->unit, "%s", unit);
    else if (strcmp(unit, im->unit))
        return sb__imp_bad(im, "benchmarks[%zu].metadata.unit: %s differs "
                               "from the first benchmark's %s",
                           i, unit, im->unit);
    runs = json_object_get(b, "runs");
    if (!json_is_array(runs))
        return sb__imp_bad(im, "benchmarks[%zu].runs: %s", i,
                           runs ? "not a list" : "missing");
    if ((rc = sb__imp_new_set(im, name, i, &s)) != SB_OK ||
        (rc = pp_runs(im, runs, i, s, calibration, processes)) != SB_OK)
        return rc;
    if (s->n == 0)
        return sb__imp_bad(im, "benchmarks[%zu].runs: no run with values "
                               "(only calibration)",
                           i);
    return SB_OK;
}

/* Each benchmark a cell, each run with values (one worker process) an
 * invocation; calibration runs (no values) and warm-ups skipped. */
int sb__imp_read_pyperf(struct imp *im, json_t *root,
                        const struct spans *sp)
{
    json_t *common = json_object_get(root, "metadata");
    const char *py = sb__imp_str(common, "python_version");
    size_t calibration = 0, processes = 0;
    char buf[80], b2[96];
    int rc;

    im->name_list = "benchmarks";
    im->name_key = ".metadata.name";
    if ((rc = pp_version(im, json_object_get(root, "version"))) != SB_OK)
        return rc;
    if (common && !json_is_object(common))
        return sb__imp_bad(im, "metadata: not an object");
    if ((rc = sb__imp_use_list(im, root, sp)) != SB_OK)
        return rc;
    for (size_t i = 0; i < sb__imp_el_count(im); i++)
        if ((rc = pp_benchmark(im, common, i, &calibration, &processes)) !=
            SB_OK)
            return rc;
    sb__imp_note(im, "pyperf JSON%s: %zu benchmarks, each worker process's "
                     "values an invocation (%zu), in %s; warm-ups and %zu "
                     "calibration runs skipped",
                 sb__imp_version_words(b2, sizeof b2, common,
                                       "perf_version", "pyperf", 80),
                 im->nsets, processes, im->unit, calibration);
    if (py)
        sb__imp_note(im, "python: %s", sb__imp_shown(buf, sizeof buf, py));
    sb__load_copy(im->host, sizeof im->host, common, "hostname");
    sb__load_copy(im->cpu, sizeof im->cpu, common, "cpu_model_name");
    sb__load_copy(im->date, sizeof im->date, common, "date");
    return SB_OK;
}
