/*
 * load.c: a saved JSON run read back (for compare and report; samples
 * from any tool, for analyze, are import.c's).  The keys of the JSON are
 * the schema's list (io/schema.h), shared with the writer.  This file
 * reads the document (counting its cells as the bytes pass) and its top
 * level: the header, the stand-ins, the totals, a merge's runs, the
 * loaded kernels and the baselines; the meta is load_meta.c's and the
 * cells are load_cells.c's (load.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_scan.h"
#include "load.h"
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
    const char *schema = sb__load_str(root, SB__JK_SCHEMA);
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
            const char *k = sb__load_str(c, SB__JK_KERNEL);
            const char *fam = sb__load_str(c, SB__JK_FAMILY);
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
            .name = sb__load_str(e, "name"),
            .path = sb__load_str(e, "path"),
            .symbol = sb__load_str(e, "symbol"),
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
        sb__load_copy(m->hostname, sizeof m->hostname, v, "hostname");
        sb__load_copy(m->cpu_model, sizeof m->cpu_model, v, "cpu_model");
        sb__load_copy(m->kernel_version, sizeof m->kernel_version, v,
                      "kernel_version");
        sb__load_copy(m->statbench_version, sizeof m->statbench_version, v,
                      "statbench_version");
        sb__load_copy(m->start_time, sizeof m->start_time, v, "start_time");
        /* Absent in files saved before it was written: "", and the merged
         * run's own source stands for every run. */
        sb__load_copy(m->probe, sizeof m->probe, v, "clock_source");
        m->timer.hz_source = run->hz_source;
        if (sb__load_num(v, "timer_hz", &m->timer.hz))
            m->timer.hz = NAN;
    }
    run->nruns = n;
    return SB_OK;
}

/* jansson builds the whole document before check_header can count its
 * cells: a file of a million cells took 12 s and 950 MB to be refused,
 * and an endless stream grew without bound.  The reader below hands the
 * file to jansson and counts the elements of the top-level "cells" array
 * as the bytes pass (json_scan.h), so that a document past SB__MAX_CELLS
 * stops at the cell beyond the cap.  A key written with escapes is not
 * recognised, and such a file is refused by check_header after the parse
 * instead; where the scanner stops (a broken nesting, an empty element)
 * jansson refuses the document at that byte. */
struct cell_count {
    FILE *f;
    struct sb__jscan js;
    size_t ncells;
    int over;       /* more than SB__MAX_CELLS: reading stopped */
    int rd_errno;   /* a read failed: its errno */
    char buf[65536];
};

/* buf[0..n) counted: 0, or -1 past the cap. */
static int count_cells(struct cell_count *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        i += sb__jscan(&s->js, s->buf + i, n - i);
        if (s->js.ev & SB__JS_KEY)
            s->js.watch = sb__jscan_key_is(&s->js, "cells");
        if ((s->js.ev & SB__JS_BEGIN) && ++s->ncells > SB__MAX_CELLS) {
            s->over = 1;
            return -1;
        }
    }
    return 0;
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
    if (count_cells(s, n) != 0)
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
int sb__load_read_json(FILE *f, const char *name, json_t **root,
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


/* The run's totals beside its cells (an elapsed time or a count of
 * rounds absent or bad keeps the default), and its invocations, the
 * first cell's. */
static void load_totals(sb_run *run, json_t *root)
{
    double v;
    size_t z;

    run->interrupted =
        json_is_true(json_object_get(root, SB__JK_INTERRUPTED));
    if (!sb__load_num(root, SB__JK_ELAPSED, &v))
        run->elapsed = v;
    if (!sb__load_size(root, SB__JK_ROUNDS, &z))
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

int sb__load_root(json_t *root, const char *name,
                  const sb_analysis_options *fa, sb_run **out, sb_error *err)
{
    json_t *cells;
    sb_measure_options o;
    sb_analysis_options a;
    sb_run *run = NULL;
    int rc = SB_OK;

    *out = NULL;
    cells = check_header(root, name, err);
    if (!cells)
        return SB_EIO;
    sb_measure_options_init(&o);
    sb_analysis_options_init(&a);
    run = sb__run_alloc(json_array_size(cells), &o, &a);
    if (!run)
        return sb__error(err, SB_ENOMEM, "out of memory");
    rc = sb__load_meta(run, root, name, err);
    if (rc != SB_OK)
        goto out;
    /* Samples from elsewhere: marked, or (files written before the mark)
     * told by the clock analyze records. */
    run->imported = json_is_true(json_object_get(root, SB__JK_IMPORTED)) ||
                    !strcmp(run->hz_source, "samples measured elsewhere");
    if (run->imported)
        sb__load_copy(run->unit, sizeof run->unit, root, SB__JK_UNIT);
    /* Stand-ins for kernels this build does not have. */
    rc = load_stand_ins(run, cells);
    if (rc != SB_OK) {
        rc = sb__error(err, rc, "out of memory");
        goto out;
    }
    /* Cleaning may have changed the order (and made names equal):
     * sb__run_own_kernel() searches the cleaned names. */
    sb__run_sort_own_kernels(run);
    rc = sb__load_cells(run, cells, name, err);
    if (rc != SB_OK)
        goto out;
    load_totals(run, root);
    rc = load_merged(run, root, name, err);
    if (rc == SB_OK)
        rc = load_loaded(run, root, name, err);
    if (rc == SB_OK)
        rc = check_options(run, fa, name, err);
    if (rc == SB_OK)
        rc = check_unique(run, name, err);
    if (rc == SB_OK)
        rc = sb__run_analyse(run, err);
    if (rc == SB_OK)
        rc = load_baselines(run, cells, name, err);
out:
    if (rc != SB_OK) {
        sb_run_free(run);
        return rc;
    }
    *out = run;
    return SB_OK;
}

int sb_run_load_new(FILE *f, const char *name, const sb_analysis_options *opt,
                    sb_run **out, sb_error *err)
{
    json_t *root;
    sb_analysis_options fa;
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
    if ((rc = sb__load_read_json(f, name, &root, err)) != SB_OK)
        return rc;
    rc = sb__load_root(root, name, opt ? &fa : NULL, out, err);
    json_decref(root);
    return rc;
}
