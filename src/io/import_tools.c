/*
 * import_tools.c: the files of other benchmark tools read as runs of
 * imported samples (Google Benchmark's JSON, hyperfine's --export-json,
 * pyperf's JSON), and sb_run_import_new, which tells them and a statbench
 * run apart by their keys.  Each reader turns its document into one set
 * of samples per cell, split into the invocations the tool knows (a
 * repetition, a worker process), and hands them to sb_run_from_sets_new
 * (import.c), so that their intervals and verdicts are those of every
 * imported run.  Every string of the file is hostile: names are cut and
 * cleaned before they reach a message, a note or a cell.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_scan.h"
#include "load.h"
#include "meta.h"
#include "plan.h"
#include "run_internal.h"
#include "text.h"

/* The elements of a top-level list left on disk: each one's offset and
 * length in bytes. */
struct spans {
    off_t *start;
    size_t *len;
    size_t n, cap;
    int split; /* the list was seen and left on disk: else it is in the
                  skeleton (its key written with escapes) */
};

/* Longest cell name kept from a file, in bytes: a name of a megabyte
 * makes no table row anyone reads, and the cut keeps a message short. */
#define IMP_NAME_MAX 200

/* One cell as its rows are read: its values in the order of the file and
 * the samples of each invocation. */
struct imp_set {
    char *raw;       /* the name as the file spells it (a copy: an element
                        read from disk lives until the next one) */
    char *name;      /* cut and cleaned: the cell's */
    size_t first;    /* the element that named it first, for messages */
    double *v;
    size_t n, cap;
    size_t *inv;
    size_t ninv, invcap;
};

struct imp {
    const char *file;
    sb_error *err;
    /* Where the file names a cell: name_list[i]name_key. */
    const char *name_list, *name_key;
    struct imp_set *sets;
    size_t nsets, cap;
    size_t *slots; /* open addressing by raw name: set index + 1 */
    size_t nslots;
    size_t nvalues;
    char notes[4096];
    size_t notes_len;
    char unit[16];
    char host[64], cpu[128], date[32];
    /* The elements of the list being read (el_use): in memory (arr), or
     * on disk as byte ranges of f (spans), parsed one at a time into cur,
     * which the next el_get or imp_free drops. */
    json_t *arr, *cur;
    const struct spans *spans;
    FILE *f;
    char *buf;
    size_t bufcap;
    int el_rc; /* why el_get gave NULL */
};

/* The file's refusal: SB_EIO, "FILE: " before the message. */
static int bad(struct imp *im, const char *fmt, ...) SB__PRINTF(2, 3);
static int bad(struct imp *im, const char *fmt, ...)
{
    char text[sizeof im->err->text];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return sb__error(im->err, SB_EIO, "%s: %s", im->file, text);
}

/* A line of the run's notes; what does not fit is dropped (the run's own
 * notes hold 4096 bytes in all). */
static void note(struct imp *im, const char *fmt, ...) SB__PRINTF(2, 3);
static void note(struct imp *im, const char *fmt, ...)
{
    size_t room = sizeof im->notes - im->notes_len;
    va_list ap;
    int len;

    if (room < 2)
        return;
    va_start(ap, fmt);
    len = vsnprintf(im->notes + im->notes_len, room - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    if ((size_t)len >= room - 1)
        len = (int)(room - 2);
    im->notes_len += (size_t)len;
    im->notes[im->notes_len++] = '\n';
    im->notes[im->notes_len] = '\0';
}

/* s cut to at most IMP_NAME_MAX bytes (at a character's start) and
 * cleaned: a new string, or NULL when out of memory. */
static char *cut_name(const char *s)
{
    size_t len = strlen(s);
    char *c;

    if (len > IMP_NAME_MAX) {
        len = IMP_NAME_MAX;
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--;
    }
    c = malloc(len + 1);
    if (!c)
        return NULL;
    memcpy(c, s, len);
    c[len] = '\0';
    sb__clean_text(c);
    return c;
}

/* A string of the file for a message: cut and cleaned into buf. */
static const char *shown(char *buf, size_t size, const char *s)
{
    sb__clean_into(buf, size, s ? s : "");
    return buf;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slots for twice the sets: SB_OK or SB_ENOMEM. */
static int rehash(struct imp *im)
{
    size_t n = im->nslots ? 2 * im->nslots : 64;
    size_t *s = calloc(n, sizeof *s);

    if (!s)
        return SB_ENOMEM;
    for (size_t i = 0; i < im->nsets; i++) {
        size_t h = (size_t)hash_name(im->sets[i].raw) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = i + 1;
    }
    free(im->slots);
    im->slots = s;
    im->nslots = n;
    return SB_OK;
}

/* The set named raw (element `at` of the file names it), made when new:
 * SB_OK with *out, or SB_EIO (too many cells), SB_ENOMEM.
 * Rows of one benchmark need not be together (Google Benchmark's random
 * interleaving), hence the table by name. */
static int find_set(struct imp *im, const char *raw, size_t at,
                    struct imp_set **out)
{
    size_t h;
    struct imp_set *s;

    if (2 * (im->nsets + 1) > im->nslots && rehash(im) != SB_OK)
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    h = (size_t)hash_name(raw) & (im->nslots - 1);
    while (im->slots[h]) {
        s = &im->sets[im->slots[h] - 1];
        if (!strcmp(s->raw, raw)) {
            *out = s;
            return SB_OK;
        }
        h = (h + 1) & (im->nslots - 1);
    }
    if (im->nsets == SB__MAX_CELLS)
        return bad(im, "more than %d cells (benchmarks or commands)",
                   SB__MAX_CELLS);
    if (!SB__ROOM(im->sets, im->nsets, im->cap, 16))
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    s = &im->sets[im->nsets];
    *s = (struct imp_set){.raw = strdup(raw), .first = at,
                          .name = cut_name(raw)};
    if (!s->name || !s->raw) {
        free(s->raw);
        free(s->name);
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    }
    im->slots[h] = ++im->nsets;
    *out = s;
    return SB_OK;
}

/* The set of a cell that element at of the list names raw, where each
 * cell is named once (a command, a pyperf benchmark): SB_OK with *out, or
 * SB_EIO when the name is empty or repeats an earlier element's. */
static int new_set(struct imp *im, const char *raw, size_t at,
                   struct imp_set **out)
{
    char buf[80];
    int rc;

    if (!raw[0])
        return bad(im, "%s[%zu]%s: empty", im->name_list, at,
                   im->name_key);
    if ((rc = find_set(im, raw, at, out)) != SB_OK)
        return rc;
    if ((*out)->n)
        return bad(im, "%s[%zu]%s: '%s' repeats %s[%zu]", im->name_list,
                   at, im->name_key, shown(buf, sizeof buf, (*out)->name),
                   im->name_list, (*out)->first);
    return SB_OK;
}

/* Value x appended to set s: SB_OK, or SB_EIO past SB_IMPORT_MAX_VALUES,
 * SB_ENOMEM. */
static int push_value(struct imp *im, struct imp_set *s, double x)
{
    if (im->nvalues == SB_IMPORT_MAX_VALUES)
        return bad(im, "more than %d values: statbench reads at most that "
                       "many from one file",
                   SB_IMPORT_MAX_VALUES);
    if (!SB__ROOM(s->v, s->n, s->cap, 16))
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    s->v[s->n++] = x;
    im->nvalues++;
    return SB_OK;
}

/* The last k values of s one invocation: SB_OK or SB_ENOMEM. */
static int push_invocation(struct imp *im, struct imp_set *s, size_t k)
{
    if (!SB__ROOM(s->inv, s->ninv, s->invcap, 16))
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    s->inv[s->ninv++] = k;
    return SB_OK;
}

/* The value v at path (a time when positive is set) into *out: SB_OK, or
 * SB_EIO naming path when it is missing, not a number, not positive or
 * beyond SB_VALUE_MAX.  JSON has no NaN or infinity: jansson refuses
 * them, and a literal too large for a double, as it parses. */
static int number_at(struct imp *im, json_t *v, const char *path,
                     int positive, double *out)
{
    double x;

    if (!v)
        return bad(im, "%s: missing", path);
    if (!json_is_number(v))
        return bad(im, "%s: not a number", path);
    x = json_number_value(v);
    if (!isfinite(x) || fabs(x) > SB_VALUE_MAX)
        return bad(im, "%s: %g is beyond 1e300 in magnitude", path, x);
    if (positive && !(x > 0))
        return bad(im, "%s: %g is not a positive time", path, x);
    *out = x;
    return SB_OK;
}

/* A string of metadata object o (NULL when absent or not a string: the
 * metadata only informs). */
static const char *meta_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The words of a note for the version at key of o: " of WHAT V", V cut
 * to fit cut bytes (at most 80) and cleaned, in buf (96 bytes hold them
 * for a WHAT of up to 12); "" when o has none. */
static const char *version_words(char *buf, size_t size, json_t *o,
                                 const char *key, const char *what,
                                 size_t cut)
{
    const char *v = meta_str(o, key);
    char c[80];

    if (!v)
        return "";
    shown(c, cut < sizeof c ? cut : sizeof c, v);
    snprintf(buf, size, " of %s %s", what, c);
    return buf;
}

/* ---- the elements of a list, in memory or on disk ------------------- */

/* The list arr of the document read next: in memory, or, when the
 * document was split (im->spans), the ranges the split recorded for it. */
static void el_use(struct imp *im, json_t *arr, const struct spans *sp)
{
    if (sp && !sp->split)
        sp = NULL;
    im->arr = sp ? NULL : arr;
    im->spans = sp;
}

static size_t el_count(const struct imp *im)
{
    return im->spans ? im->spans->n : json_array_size(im->arr);
}

/* The list of root that names the cells (im->name_list) the one read
 * next: SB_OK, or SB_EIO when it is missing, not a list or empty. */
static int use_list(struct imp *im, json_t *root, const struct spans *sp)
{
    json_t *l = json_object_get(root, im->name_list);

    if (json_is_array(l))
        el_use(im, l, sp);
    if (!json_is_array(l) || el_count(im) == 0)
        return bad(im, "%s: %s", im->name_list,
                   !l ? "missing"
                   : !json_is_array(l) ? "not a list"
                                       : "empty");
    return SB_OK;
}

/* Element i of the list (list[i] in messages), valid until the next
 * call: NULL with err filled when on disk it is not JSON or cannot be
 * read. */
static json_t *el_get(struct imp *im, const char *list, size_t i)
{
    const struct spans *sp = im->spans;
    json_error_t je;
    size_t len;

    if (!sp)
        return json_array_get(im->arr, i);
    json_decref(im->cur);
    im->cur = NULL;
    len = sp->len[i];
    if (len + 1 > im->bufcap) {
        char *t = realloc(im->buf, len + 1);
        if (!t) {
            im->el_rc = sb__error(im->err, SB_ENOMEM, "out of memory");
            return NULL;
        }
        im->buf = t;
        im->bufcap = len + 1;
    }
    if (fseeko(im->f, sp->start[i], SEEK_SET) != 0 ||
        fread(im->buf, 1, len, im->f) != len) {
        im->el_rc = bad(im, "%s[%zu]: read error", list, i);
        return NULL;
    }
    im->cur = json_loadb(im->buf, len,
                         JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!im->cur)
        im->el_rc = bad(im, "%s[%zu]: not JSON (%s)", list, i, je.text);
    return im->cur;
}

/* ---- Google Benchmark ---------------------------------------------- */

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
        bad(im, "benchmarks[%zu].run_type: not a string", i);
        return -1;
    }
    if (!strcmp(json_string_value(rt), "iteration"))
        return 1;
    if (!strcmp(json_string_value(rt), "aggregate"))
        return 0;
    bad(im, "benchmarks[%zu].run_type: '%s' is neither iteration nor "
            "aggregate",
        i, shown(buf, sizeof buf, json_string_value(rt)));
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
        bad(im, "benchmarks[%zu].time_unit: not a string", i);
        return -1;
    }
    for (size_t k = 0; k < sizeof gb_units / sizeof gb_units[0]; k++)
        if (!strcmp(json_string_value(tu), gb_units[k].name))
            return (int)k;
    bad(im, "benchmarks[%zu].time_unit: '%s' is not ns, us, ms or s", i,
        shown(buf, sizeof buf, json_string_value(tu)));
    return -1;
}

/* Row i of the benchmarks into *r (until the next el_get), checked an
 * object, and *it its run type (gb_iteration's 1 or 0): SB_OK, or the
 * refusal's status with err filled. */
static int gb_row(struct imp *im, size_t i, json_t **r, int *it)
{
    if (!(*r = el_get(im, "benchmarks", i)))
        return im->el_rc;
    if (!json_is_object(*r))
        return bad(im, "benchmarks[%zu]: not an object", i);
    return (*it = gb_iteration(im, *r, i)) < 0 ? SB_EIO : SB_OK;
}

/* The row's name: run_name (the benchmark without its repetition or
 * aggregate suffix, 1.5 on), else name. */
static const char *gb_name(json_t *r)
{
    const char *n = meta_str(r, "run_name");
    return n ? n : meta_str(r, "name");
}

/* Each iteration row of root's benchmarks an invocation of one sample of
 * its benchmark, in the one time unit of the file's rows (ns when they
 * differ). */
static int read_gbench(struct imp *im, json_t *root, unsigned flags,
                       const struct spans *sp)
{
    json_t *ctx = json_object_get(root, "context");
    json_t *rows = json_object_get(root, "benchmarks"), *r;
    const char *key =
        flags & SB_IMPORT_GBENCH_CPU_TIME ? "cpu_time" : "real_time";
    size_t i, aggregates = 0, errors = 0;
    int unit = -1, mixed = 0, rc;

    im->name_list = "benchmarks";
    im->name_key = ".name";
    if (!json_is_object(ctx))
        return bad(im, "context: %s (Google Benchmark writes an object "
                       "of the machine and the date)",
                   ctx ? "not an object" : "missing");
    if (!json_is_array(rows))
        return bad(im, "benchmarks: %s", rows ? "not a list" : "missing");
    el_use(im, rows, sp);
    /* The unit first, so that a file of one unit keeps its values as
     * written, not scaled to ns and back. */
    for (i = 0; i < el_count(im); i++) {
        int it, u;
        if ((rc = gb_row(im, i, &r, &it)) != SB_OK)
            return rc;
        if ((u = gb_unit(im, r, i)) < 0)
            return SB_EIO;
        if (!it || json_is_true(json_object_get(r, "error_occurred")))
            continue;
        if (unit >= 0 && u != unit)
            mixed = 1;
        unit = u;
    }
    if (mixed)
        unit = 0;
    for (i = 0; i < el_count(im); i++) {
        struct imp_set *s;
        const char *name;
        char path[64];
        double x;
        int it, u;
        /* Read again from the file: what the first pass checked is
         * checked again, so that a file changed in between is refused,
         * never read past its checks. */
        if ((rc = gb_row(im, i, &r, &it)) != SB_OK)
            return rc;
        if (!it) {
            aggregates++;
            continue;
        }
        if (json_is_true(json_object_get(r, "error_occurred"))) {
            errors++;
            continue;
        }
        if (!(name = gb_name(r)))
            return bad(im, "benchmarks[%zu].name: %s", i,
                       json_object_get(r, "name") ? "not a string"
                                                  : "missing");
        snprintf(path, sizeof path, "benchmarks[%zu].%s", i, key);
        if ((rc = number_at(im, json_object_get(r, key), path, 1, &x)) !=
            SB_OK)
            return rc;
        if ((u = gb_unit(im, r, i)) < 0)
            return SB_EIO;
        if (unit < 0)
            return bad(im, "benchmarks[%zu]: an iteration row the first "
                           "reading of the file did not have (did it "
                           "change while read?)",
                       i);
        x *= gb_units[u].ns / gb_units[unit].ns;
        if (!isfinite(x) || x > SB_VALUE_MAX)
            return bad(im, "%s: beyond 1e300 %s", path,
                       gb_units[unit].name);
        if (!name[0])
            return bad(im, "benchmarks[%zu].name: empty", i);
        if ((rc = find_set(im, name, i, &s)) != SB_OK)
            return rc;
        if ((rc = push_value(im, s, x)) != SB_OK ||
            (rc = push_invocation(im, s, 1)) != SB_OK)
            return rc;
    }
    if (im->nsets == 0)
        return bad(im, "benchmarks: no iteration rows (%zu aggregate, %zu "
                       "with error_occurred): statbench needs each "
                       "repetition's row (run without "
                       "--benchmark_report_aggregates_only)",
                   aggregates, errors);
    snprintf(im->unit, sizeof im->unit, "%s", gb_units[unit].name);
    {
        char buf[96];
        note(im, "Google Benchmark JSON%s: %zu benchmarks, %s per "
                 "iteration in %s; each repetition an invocation of one "
                 "sample",
             version_words(buf, sizeof buf, ctx, "library_version",
                           "library", 40),
             im->nsets, key, im->unit);
    }
    if (mixed)
        note(im, "the benchmarks' time units differ: all in ns");
    if (aggregates)
        note(im, "%zu aggregate rows skipped (mean, median, stddev, cv: "
                 "statbench computes its own)",
             aggregates);
    if (errors)
        note(im, "%zu rows with error_occurred skipped", errors);
    {
        json_t *cpus = json_object_get(ctx, "num_cpus");
        json_t *mhz = json_object_get(ctx, "mhz_per_cpu");
        const char *exe = meta_str(ctx, "executable");
        const char *build = meta_str(ctx, "library_build_type");
        char buf[160];
        if (exe)
            note(im, "executable: %s", shown(buf, sizeof buf, exe));
        if (json_is_integer(cpus) && json_is_number(mhz))
            note(im, "%lld CPUs at %.0f MHz (Google Benchmark's context)",
                 (long long)json_integer_value(cpus),
                 json_number_value(mhz));
        if (json_is_true(json_object_get(ctx, "cpu_scaling_enabled")))
            note(im, "CPU frequency scaling was enabled while measuring "
                     "(Google Benchmark's warning)");
        if (build && !strcmp(build, "debug"))
            note(im, "a debug build of the Google Benchmark library "
                     "measured");
    }
    sb__clean_into(im->host, sizeof im->host,
                   meta_str(ctx, "host_name") ? meta_str(ctx, "host_name")
                                              : "");
    sb__clean_into(im->date, sizeof im->date,
                   meta_str(ctx, "date") ? meta_str(ctx, "date") : "");
    return SB_OK;
}

/* ---- hyperfine ----------------------------------------------------- */

/* Each result a cell, its times one invocation of samples in seconds:
 * hyperfine runs one command's runs one after another, so there are no
 * rounds to pair. */
static int read_hyperfine(struct imp *im, json_t *root,
                          const struct spans *sp)
{
    json_t *r;
    size_t i;
    int rc;

    im->name_list = "results";
    im->name_key = ".command";
    if ((rc = use_list(im, root, sp)) != SB_OK)
        return rc;
    note(im, "hyperfine JSON: %zu commands, each run a sample, all of a "
             "command's runs one invocation, in seconds",
         el_count(im));
    for (i = 0; i < el_count(im); i++) {
        json_t *times, *codes, *t;
        struct imp_set *s;
        const char *cmd;
        size_t j, failed = 0;
        char path[64];
        if (!(r = el_get(im, "results", i)))
            return im->el_rc;
        if (!json_is_object(r))
            return bad(im, "results[%zu]: not an object", i);
        if (!(cmd = meta_str(r, "command")))
            return bad(im, "results[%zu].command: %s", i,
                       json_object_get(r, "command") ? "not a string"
                                                     : "missing");
        times = json_object_get(r, "times");
        if (!json_is_array(times) || json_array_size(times) == 0)
            return bad(im, "results[%zu].times: %s", i,
                       !times ? "missing"
                       : !json_is_array(times) ? "not a list"
                                               : "empty");
        if ((rc = new_set(im, cmd, i, &s)) != SB_OK)
            return rc;
        json_array_foreach(times, j, t)
        {
            double x;
            snprintf(path, sizeof path, "results[%zu].times[%zu]", i, j);
            if ((rc = number_at(im, t, path, 1, &x)) != SB_OK ||
                (rc = push_value(im, s, x)) != SB_OK)
                return rc;
        }
        if ((rc = push_invocation(im, s, s->n)) != SB_OK)
            return rc;
        codes = json_object_get(r, "exit_codes");
        if (codes && !json_is_array(codes))
            return bad(im, "results[%zu].exit_codes: not a list", i);
        json_array_foreach(codes, j, t)
        {
            /* null: killed by a signal. */
            if (!json_is_integer(t) && !json_is_null(t))
                return bad(im, "results[%zu].exit_codes[%zu]: not an "
                               "integer",
                           i, j);
            failed += !json_is_integer(t) || json_integer_value(t) != 0;
        }
        if (failed)
            note(im, "%s: %zu of %zu runs failed (a non-zero exit code or "
                     "a signal), their times kept as hyperfine kept them",
                 s->name, failed, json_array_size(codes));
        {
            json_t *u = json_object_get(r, "user"),
                   *sy = json_object_get(r, "system");
            if (json_is_number(u) && json_is_number(sy))
                note(im, "%s: user %.3g s, system %.3g s (hyperfine's "
                         "means)",
                     s->name, json_number_value(u), json_number_value(sy));
        }
    }
    snprintf(im->unit, sizeof im->unit, "s");
    return SB_OK;
}

/* ---- pyperf -------------------------------------------------------- */

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
        return bad(im, "benchmarks[%zu].metadata.unit: %s", i,
                   json_is_string(u) ? "empty or longer than 15 bytes"
                                     : "not a string");
    sb__clean_into(buf, size, json_string_value(u));
    return SB_OK;
}

/* Each benchmark a cell, each run with values (one worker process) an
 * invocation; calibration runs (no values) and warm-ups skipped. */
static int read_pyperf(struct imp *im, json_t *root,
                       const struct spans *sp)
{
    json_t *ver = json_object_get(root, "version");
    json_t *common = json_object_get(root, "metadata");
    json_t *b;
    size_t i, calibration = 0, processes = 0;
    char buf[80];
    int rc;

    im->name_list = "benchmarks";
    im->name_key = ".metadata.name";
    if (!json_is_string(ver) || strncmp(json_string_value(ver), "1.", 2))
        return bad(im, "version: %s%s%s: pyperf's JSON of version 1.x is "
                       "what statbench reads",
                   json_is_string(ver) ? "'" : "",
                   json_is_string(ver)
                       ? shown(buf, sizeof buf, json_string_value(ver))
                   : ver ? "not a string"
                         : "missing",
                   json_is_string(ver) ? "'" : "");
    if (common && !json_is_object(common))
        return bad(im, "metadata: not an object");
    if ((rc = use_list(im, root, sp)) != SB_OK)
        return rc;
    for (i = 0; i < el_count(im); i++) {
        json_t *bm, *runs, *run;
        struct imp_set *s;
        const char *name;
        char unit[16];
        size_t j;
        if (!(b = el_get(im, "benchmarks", i)))
            return im->el_rc;
        if (!json_is_object(b))
            return bad(im, "benchmarks[%zu]: not an object", i);
        bm = json_object_get(b, "metadata");
        if (bm && !json_is_object(bm))
            return bad(im, "benchmarks[%zu].metadata: not an object", i);
        name = meta_str(bm, "name");
        if (!name)
            name = meta_str(common, "name");
        if (!name)
            return bad(im, "benchmarks[%zu].metadata.name: missing (and "
                           "no metadata.name for all)",
                       i);
        if ((rc = pp_unit(im, bm, common, i, unit, sizeof unit)) != SB_OK)
            return rc;
        if (!im->unit[0])
            snprintf(im->unit, sizeof im->unit, "%s", unit);
        else if (strcmp(unit, im->unit))
            return bad(im, "benchmarks[%zu].metadata.unit: %s differs from "
                           "the first benchmark's %s",
                       i, unit, im->unit);
        runs = json_object_get(b, "runs");
        if (!json_is_array(runs))
            return bad(im, "benchmarks[%zu].runs: %s", i,
                       runs ? "not a list" : "missing");
        if ((rc = new_set(im, name, i, &s)) != SB_OK)
            return rc;
        json_array_foreach(runs, j, run)
        {
            json_t *vals, *v;
            size_t k, before = s->n;
            char path[128];
            if (!json_is_object(run))
                return bad(im, "benchmarks[%zu].runs[%zu]: not an object",
                           i, j);
            vals = json_object_get(run, "values");
            if (vals && !json_is_array(vals))
                return bad(im, "benchmarks[%zu].runs[%zu].values: not a "
                               "list",
                           i, j);
            if (json_array_size(vals) == 0) {
                calibration++;
                continue;
            }
            json_array_foreach(vals, k, v)
            {
                double x;
                snprintf(path, sizeof path,
                         "benchmarks[%zu].runs[%zu].values[%zu]", i, j, k);
                /* Positive, whatever unit a file names, but pyperf's two
                 * that are not times (a size or a count may be 0). */
                if ((rc = number_at(im, v, path,
                                    strcmp(im->unit, "byte") &&
                                        strcmp(im->unit, "integer"),
                                    &x)) != SB_OK ||
                    (rc = push_value(im, s, x)) != SB_OK)
                    return rc;
            }
            if ((rc = push_invocation(im, s, s->n - before)) != SB_OK)
                return rc;
            processes++;
        }
        if (s->n == 0)
            return bad(im, "benchmarks[%zu].runs: no run with values (only "
                           "calibration)",
                       i);
    }
    {
        const char *py = meta_str(common, "python_version");
        char b2[96];
        note(im, "pyperf JSON%s: %zu benchmarks, each worker process's "
                 "values an invocation (%zu), in %s; warm-ups and %zu "
                 "calibration runs skipped",
             version_words(b2, sizeof b2, common, "perf_version", "pyperf",
                           80),
             im->nsets, processes, im->unit, calibration);
        if (py)
            note(im, "python: %s", shown(buf, sizeof buf, py));
    }
    sb__clean_into(im->host, sizeof im->host,
                   meta_str(common, "hostname") ? meta_str(common,
                                                           "hostname")
                                                : "");
    sb__clean_into(im->cpu, sizeof im->cpu,
                   meta_str(common, "cpu_model_name")
                       ? meta_str(common, "cpu_model_name")
                       : "");
    sb__clean_into(im->date, sizeof im->date,
                   meta_str(common, "date") ? meta_str(common, "date") : "");
    return SB_OK;
}

/* ---- the kind of a document and the run ------------------------------ */

/* Sets in name order, to find two names that cleaning made one. */
static int by_set_name(const void *a, const void *b)
{
    return strcmp((*(const struct imp_set *const *)a)->name,
                  (*(const struct imp_set *const *)b)->name);
}

/* Two cells whose names read the same once cut and cleaned ("a\x1b" and
 * "a\x1c") would be one row twice: refused, naming both. */
static int check_names(struct imp *im)
{
    struct imp_set **by = malloc((im->nsets + 1) * sizeof *by);
    int rc = SB_OK;

    if (!by)
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < im->nsets; i++)
        by[i] = &im->sets[i];
    qsort(by, im->nsets, sizeof *by, by_set_name);
    for (size_t i = 1; i < im->nsets && rc == SB_OK; i++)
        if (!strcmp(by[i - 1]->name, by[i]->name)) {
            char buf[80];
            size_t a = by[i - 1]->first, b = by[i]->first;
            rc = bad(im, "%s[%zu]%s and %s[%zu]%s both read '%s' once cut "
                         "to %d bytes and cleaned of control characters",
                     im->name_list, a < b ? a : b, im->name_key,
                     im->name_list, a < b ? b : a, im->name_key,
                     shown(buf, sizeof buf, by[i]->name), IMP_NAME_MAX);
        }
    free(by);
    return rc;
}

static void imp_free(struct imp *im)
{
    for (size_t i = 0; i < im->nsets; i++) {
        free(im->sets[i].raw);
        free(im->sets[i].name);
        free(im->sets[i].v);
        free(im->sets[i].inv);
    }
    free(im->sets);
    free(im->slots);
    json_decref(im->cur);
    free(im->buf);
}

/* A tool's document into *out by its reader; sp (NULL: root holds
 * them) the elements of its top-level "benchmarks" ([0]) and "results"
 * ([1]) left in f. */
static int import_tool(json_t *root, FILE *f, const struct spans *sp,
                       const char *file, int format, unsigned flags,
                       const sb_analysis_options *a, uint64_t seed,
                       sb_run **out, sb_error *err)
{
    struct imp *im = calloc(1, sizeof *im);
    sb_sample_set *sets = NULL;
    int rc;

    if (!im)
        return sb__error(err, SB_ENOMEM, "out of memory");
    im->file = file;
    im->err = err;
    im->f = f;
    rc = format == SB_IMPORT_GBENCH
             ? read_gbench(im, root, flags, sp ? &sp[0] : NULL)
         : format == SB_IMPORT_HYPERFINE
             ? read_hyperfine(im, root, sp ? &sp[1] : NULL)
             : read_pyperf(im, root, sp ? &sp[0] : NULL);
    if (rc == SB_OK)
        rc = check_names(im);
    if (rc == SB_OK && !(sets = calloc(im->nsets, sizeof *sets)))
        rc = sb__error(err, SB_ENOMEM, "out of memory");
    if (rc == SB_OK) {
        for (size_t i = 0; i < im->nsets; i++)
            sets[i] = (sb_sample_set){.name = im->sets[i].name,
                                      .values = im->sets[i].v,
                                      .n = im->sets[i].n,
                                      .invocation_samples = im->sets[i].inv,
                                      .ninvocations = im->sets[i].ninv};
        rc = sb_run_from_sets_new(sets, im->nsets, NULL, 0, im->unit,
                                  im->notes, a, seed, out, err);
    }
    if (rc == SB_OK) {
        sb_meta *m = &(*out)->meta;
        snprintf(m->hostname, sizeof m->hostname, "%s", im->host);
        snprintf(m->cpu_model, sizeof m->cpu_model, "%s", im->cpu);
        snprintf(m->start_time, sizeof m->start_time, "%s", im->date);
    }
    free(sets);
    imp_free(im);
    free(im);
    return rc;
}

/* The kind of root by its keys: SB_OK with *format, or SB_EIO when it is
 * none or could be two. */
static int detect(json_t *root, const char *file, int *format,
                  sb_error *err)
{
    json_t *bench = json_object_get(root, "benchmarks");
    int kinds[4], n = 0;

    if (!json_is_object(root))
        return sb__error(err, SB_EIO,
                         "%s: a JSON document that is not an object: not "
                         "a statbench run, nor Google Benchmark, hyperfine "
                         "or pyperf JSON",
                         file);
    if (json_object_get(root, "schema"))
        kinds[n++] = SB_IMPORT_STATBENCH;
    if (json_is_object(json_object_get(root, "context")) &&
        json_is_array(bench))
        kinds[n++] = SB_IMPORT_GBENCH;
    if (json_is_array(json_object_get(root, "results")))
        kinds[n++] = SB_IMPORT_HYPERFINE;
    if (json_is_array(bench) && !json_object_get(root, "context") &&
        (json_is_string(json_object_get(root, "version")) ||
         json_is_object(json_object_get(root, "metadata"))))
        kinds[n++] = SB_IMPORT_PYPERF;
    if (n == 0)
        return sb__error(err, SB_EIO,
                         "%s: not a statbench run, nor Google Benchmark, "
                         "hyperfine or pyperf JSON (none of \"schema\", "
                         "\"context\" with \"benchmarks\", \"results\", "
                         "\"benchmarks\" with \"version\"): name its "
                         "format (--from)",
                         file);
    if (n > 1)
        return sb__error(err, SB_EIO,
                         "%s: could be %s or %s JSON: name its format "
                         "(--from)",
                         file, sb_import_format_name(kinds[0]),
                         sb_import_format_name(kinds[1]));
    *format = kinds[0];
    return SB_OK;
}

/* ---- a document split as it is read -------------------------------- *
 *
 * jansson builds a whole document in memory, several times the file's
 * size (a 100 MB Google Benchmark file took 512 MB).  A file that can
 * seek is read once by the scanner below instead: the document less the
 * elements of its top-level "benchmarks" and "results" lists (the
 * skeleton, which keeps the lists, empty) is kept and parsed, and each
 * element is only noted as a range of bytes, parsed later one at a time
 * (el_get).  It follows strings and nesting as JSON's grammar allows
 * (json_scan.h); a key written with escapes is not recognised (its list
 * stays in the skeleton).  The commas between the elements never reach a
 * parser, so the scanner checks them: an empty element ("[1,,2]", "[,1]",
 * "[1,]") is refused, naming it, as jansson refuses the whole document.
 * A statbench run (a root key "schema" or "cells"), a root string written
 * with an escape, and anything odd (a skeleton past SPLIT_SKELETON_MAX,
 * nesting past SB__JSCAN_DEPTH_MAX, a document that does not end where
 * JSON would) sends the file to the whole-document reader, which caps a
 * run's cells as it reads and whose message names the line. */
#define SPLIT_SKELETON_MAX ((size_t)64 << 20)
/* Elements of the two lists at most: as many as values a file may hold,
 * and twice for the aggregate rows beside them. */
#define SPLIT_ELEMENTS_MAX (2 * (size_t)SB_IMPORT_MAX_VALUES)

struct split {
    off_t pos;      /* of the first byte the scanner reads next */
    struct sb__jscan js;
    off_t elem_start;
    char *skel;
    size_t slen, scap;
    struct spans sp[2];
    int odd;        /* read the whole document instead */
    int oom;
};

/* The list numbers the scanner watches, 1 + the index of sp. */
static const char *const split_lists[] = {"benchmarks", "results"};

/* len bytes at b onto the skeleton: 0, or -1 past its cap or out of
 * memory. */
static int keep(struct split *s, const char *b, size_t len)
{
    while (s->slen + len >= s->scap) {
        size_t ncap = s->scap ? 2 * s->scap : 65536;
        char *t;
        if (ncap > SPLIT_SKELETON_MAX) {
            s->odd = 1;
            return -1;
        }
        if (!(t = realloc(s->skel, ncap))) {
            s->oom = 1;
            return -1;
        }
        s->skel = t;
        s->scap = ncap;
    }
    memcpy(s->skel + s->slen, b, len);
    s->slen += len;
    return 0;
}

/* The element of list (1 or 2) that ends before end recorded in its
 * spans. */
static int add_span(struct split *s, int list, off_t end)
{
    struct spans *sp = &s->sp[list - 1];

    if (sp->n + s->sp[2 - list].n >= SPLIT_ELEMENTS_MAX) {
        s->odd = 1; /* the whole reader refuses it by its values */
        return -1;
    }
    if (sp->n == sp->cap) {
        size_t ncap = sp->cap ? 2 * sp->cap : 1024;
        off_t *a = realloc(sp->start, ncap * sizeof *a);
        size_t *b;
        if (a)
            sp->start = a;
        b = a ? realloc(sp->len, ncap * sizeof *b) : NULL;
        if (!b) {
            s->oom = 1;
            return -1;
        }
        sp->len = b;
        sp->cap = ncap;
    }
    sp->start[sp->n] = s->elem_start;
    sp->len[sp->n++] = (size_t)(end - s->elem_start);
    return 0;
}

/* The len bytes at b that the scanner read last (the last of them did
 * s->js.ev), list the watched list before them: 0, or -1 to stop
 * reading. */
static int split_bytes(struct split *s, const char *b, size_t len, int list)
{
    unsigned ev = s->js.ev;
    off_t at = s->pos + (off_t)len - 1; /* the byte of ev */

    if (ev & (SB__JS_BAD | SB__JS_EMPTY)) {
        s->odd = !(ev & SB__JS_EMPTY);
        return -1;
    }
    if (ev & SB__JS_KEY) {
        /* A statbench run (its own reader counts its cells as the bytes
         * pass), or a root string with an escape, which may be a key the
         * scanner cannot read ("\u0073chema"): the whole-document reader
         * takes it. */
        if (s->js.escaped || sb__jscan_key_is(&s->js, "schema") ||
            sb__jscan_key_is(&s->js, "cells")) {
            s->odd = 1;
            return -1;
        }
        for (int k = 0; k < 2; k++)
            if (sb__jscan_key_is(&s->js, split_lists[k]))
                s->js.watch = k + 1;
    }
    if ((ev & SB__JS_END) && add_span(s, list, at) != 0)
        return -1;
    if (ev & SB__JS_BEGIN)
        s->elem_start = at;
    if (ev & SB__JS_OPEN)
        s->sp[s->js.list - 1].split = 1;
    /* An element's bytes, and the commas between them, stay on disk; the
     * list's '[' and ']' go to the skeleton, which keeps it empty. */
    if (!list)
        return keep(s, b, len);
    return ev & SB__JS_CLOSE ? keep(s, b + len - 1, 1) : 0;
}

/* f read by the scanner into its skeleton's root and the spans: SB_OK,
 * SB_ENOMEM, SB_EIO (an empty element in a list), or 1: read the whole
 * document instead. */
static int split_read(FILE *f, struct split *s, const char *name,
                      json_t **root, sb_error *err)
{
    char buf[65536];
    json_error_t je;
    size_t n;

    s->pos = ftello(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0, k; i < n; i += k, s->pos += (off_t)k) {
            int list = s->js.list;
            k = sb__jscan(&s->js, buf + i, n - i);
            if (split_bytes(s, buf + i, k, list) == 0)
                continue;
            if (s->oom)
                return SB_ENOMEM;
            if (s->odd)
                return 1;
            return sb__error(err, SB_EIO,
                             "%s: %s[%zu]: missing (a stray ',' in the "
                             "list)",
                             name, split_lists[s->js.list - 1],
                             s->js.nelem);
        }
    if (ferror(f) || s->js.depth != 0 || s->js.in_str || s->js.list)
        return 1;
    *root = json_loadb(s->skel, s->slen, JSON_REJECT_DUPLICATES, &je);
    return *root ? SB_OK : 1;
}

static void split_free(struct split *s)
{
    free(s->skel);
    for (int k = 0; k < 2; k++) {
        free(s->sp[k].start);
        free(s->sp[k].len);
    }
    free(s);
}

int sb_run_import_new(FILE *f, const char *name, int format,
                      unsigned flags, const sb_analysis_options *a,
                      uint64_t seed, int *found, sb_run **out,
                      sb_error *err)
{
    static const char fn[] = "sb_run_import_new";
    sb_analysis_options fa;
    struct split *sp = NULL;
    json_t *root = NULL;
    off_t start;
    int rc;

    sb_init();
    if (!out || !f)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !f ? "f" : "out");
    *out = NULL;
    if (found)
        *found = SB_IMPORT_AUTO;
    if (format < SB_IMPORT_AUTO || format > SB_IMPORT_PYPERF)
        return sb__error(err, SB_EINVAL, "%s: format %d is not an "
                                         "sb_import_format",
                         fn, format);
    if (format == SB_IMPORT_NUMBERS)
        return sb__error(err, SB_EINVAL,
                         "%s: files of numbers are the caller's to read "
                         "(sb_run_from_samples_new)",
                         fn);
    if (flags & ~SB_IMPORT_GBENCH_CPU_TIME)
        return sb__error(err, SB_EINVAL, "%s: unknown flags 0x%x", fn,
                         flags & ~SB_IMPORT_GBENCH_CPU_TIME);
    if (a && (rc = sb__analysis_get(a, &fa, fn, err)) != SB_OK)
        return rc;
    if (!name)
        name = "run";
    /* A file that can seek is split as it is read; a pipe, or a document
     * the scanner gives up on, is read whole from where it started. */
    start = ftello(f);
    if (start >= 0 && fseeko(f, start, SEEK_SET) == 0) {
        if (!(sp = calloc(1, sizeof *sp)))
            return sb__error(err, SB_ENOMEM, "out of memory");
        rc = split_read(f, sp, name, &root, err);
        if (rc == SB_ENOMEM || rc == SB_EIO) {
            split_free(sp);
            return rc == SB_ENOMEM
                       ? sb__error(err, SB_ENOMEM, "out of memory")
                       : rc;
        }
        if (rc != SB_OK) {
            split_free(sp);
            sp = NULL;
            if (fseeko(f, start, SEEK_SET) != 0)
                return sb__error(err, SB_EIO, "%s: cannot read it again "
                                              "from its start",
                                 name);
        } else {
            /* The skeleton is all the reader needs of it. */
            free(sp->skel);
            sp->skel = NULL;
        }
    }
    if (!root && (rc = sb__load_read_json(f, name, &root, err)) != SB_OK)
        return rc;
    rc = SB_OK;
    if (format == SB_IMPORT_AUTO)
        rc = detect(root, name, &format, err);
    else if (!json_is_object(root))
        rc = sb__error(err, SB_EIO, "%s: not a JSON object", name);
    if (rc == SB_OK) {
        if (found)
            *found = format;
        rc = format == SB_IMPORT_STATBENCH
                 ? sb__load_root(root, name, a ? &fa : NULL, out, err)
                 : import_tool(root, f, sp ? sp->sp : NULL, name, format,
                               flags, a ? &fa : NULL, seed, out, err);
    }
    json_decref(root);
    if (sp)
        split_free(sp);
    return rc;
}
