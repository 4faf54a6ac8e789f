/*
 * import_tools.c: the files of other benchmark tools read as runs of
 * imported samples (Google Benchmark's JSON, hyperfine's --export-json,
 * pyperf's JSON), and sb_run_import_new, which tells them and a statbench
 * run apart by their keys.  Each reader (import_gbench.c,
 * import_hyperfine.c, import_pyperf.c, on import_sets.c's table of sets:
 * import_tools.h) turns its document into one set of samples per cell,
 * split into the invocations the tool knows (a repetition, a worker
 * process); this file hands them to sb_run_from_sets_new (import.c), so
 * that their intervals and verdicts are those of every imported run.
 * Every string of the file is hostile: names are cut and cleaned before
 * they reach a message, a note or a cell.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "import_tools.h"
#include "json_scan.h"
#include "load.h"
#include "plan.h"

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
            rc = sb__imp_bad(im, "%s[%zu]%s and %s[%zu]%s both read '%s' "
                                 "once cut to %d bytes and cleaned of "
                                 "control characters",
                             im->name_list, a < b ? a : b, im->name_key,
                             im->name_list, a < b ? b : a, im->name_key,
                             sb__imp_shown(buf, sizeof buf, by[i]->name),
                             SB__IMP_NAME_MAX);
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
             ? sb__imp_read_gbench(im, root, flags, sp ? &sp[0] : NULL)
         : format == SB_IMPORT_HYPERFINE
             ? sb__imp_read_hyperfine(im, root, sp ? &sp[1] : NULL)
             : sb__imp_read_pyperf(im, root, sp ? &sp[0] : NULL);
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
 * (sb__imp_el_get).  It follows strings and nesting as JSON's grammar
 * allows (json_scan.h); a key written with escapes is not recognised (its
 * list stays in the skeleton).  The commas between the elements never reach a
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
