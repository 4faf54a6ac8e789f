/*
 * import_tools.h: the importer's internal names, never installed.
 * import_tools.c tells the tools' documents apart, splits a seekable file
 * as it is read and makes the run; it hands the document to the reader of
 * its tool, import_gbench.c, import_hyperfine.c or import_pyperf.c, each
 * of which fills the sets of samples through import_sets.c's table of
 * sets, its list elements and its messages (and load_meta.c's copy of a
 * metadata string, load.h).  import_sets.c calls none of the others and
 * no reader calls another, so that the calls go one way.
 */
#ifndef SB_IO_IMPORT_TOOLS_H
#define SB_IO_IMPORT_TOOLS_H

#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "run_internal.h"

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
#define SB__IMP_NAME_MAX 200

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
    /* The elements of the list being read (sb__imp_el_use): in memory
     * (arr), or on disk as byte ranges of f (spans), parsed one at a time
     * into cur, which the next sb__imp_el_get or the importer's end
     * drops. */
    json_t *arr, *cur;
    const struct spans *spans;
    FILE *f;
    char *buf;
    size_t bufcap;
    int el_rc; /* why sb__imp_el_get gave NULL */
};

/* ---- import_sets.c: messages, sets, values, list elements ---------- */

/* The file's refusal: SB_EIO, "FILE: " before the message. */
int sb__imp_bad(struct imp *im, const char *fmt, ...) SB__PRINTF(2, 3);
/* A line of the run's notes; what does not fit is dropped (the run's own
 * notes hold 4096 bytes in all). */
void sb__imp_note(struct imp *im, const char *fmt, ...) SB__PRINTF(2, 3);
/* A string of the file for a message: cut and cleaned into buf. */
const char *sb__imp_shown(char *buf, size_t size, const char *s);
/* The set named raw (element `at` of the file names it), made when new:
 * SB_OK with *out, or SB_EIO (too many cells), SB_ENOMEM. */
int sb__imp_find_set(struct imp *im, const char *raw, size_t at,
                     struct imp_set **out);
/* The set of a cell that element at of the list names raw, where each
 * cell is named once (a command, a pyperf benchmark): SB_OK with *out, or
 * SB_EIO when the name is empty or repeats an earlier element's. */
int sb__imp_new_set(struct imp *im, const char *raw, size_t at,
                    struct imp_set **out);
/* Value x appended to set s: SB_OK, or SB_EIO past SB_IMPORT_MAX_VALUES,
 * SB_ENOMEM. */
int sb__imp_push_value(struct imp *im, struct imp_set *s, double x);
/* The last k values of s one invocation: SB_OK or SB_ENOMEM. */
int sb__imp_push_invocation(struct imp *im, struct imp_set *s, size_t k);
/* The value v at path (a time when positive is set) into *out: SB_OK, or
 * SB_EIO naming path when it is missing, not a number, not positive or
 * beyond SB_VALUE_MAX. */
int sb__imp_number_at(struct imp *im, json_t *v, const char *path,
                      int positive, double *out);
/* A string of metadata object o (NULL when absent or not a string: the
 * metadata only informs). */
const char *sb__imp_str(json_t *o, const char *key);
/* The words of a note for the version at key of o: " of WHAT V", V cut
 * to fit cut bytes (at most 80) and cleaned, in buf (96 bytes hold them
 * for a WHAT of up to 12); "" when o has none. */
const char *sb__imp_version_words(char *buf, size_t size, json_t *o,
                                  const char *key, const char *what,
                                  size_t cut);
/* The list arr of the document read next: in memory, or, when the
 * document was split (sp), the ranges the split recorded for it. */
void sb__imp_el_use(struct imp *im, json_t *arr, const struct spans *sp);
/* The number of elements of the list being read. */
size_t sb__imp_el_count(const struct imp *im);
/* The list of root that names the cells (im->name_list) the one read
 * next: SB_OK, or SB_EIO when it is missing, not a list or empty. */
int sb__imp_use_list(struct imp *im, json_t *root, const struct spans *sp);
/* Element i of the list (list[i] in messages), valid until the next
 * call: NULL with err filled (and im->el_rc) when on disk it is not JSON
 * or cannot be read. */
json_t *sb__imp_el_get(struct imp *im, const char *list, size_t i);

/* ---- the readers: SB_OK, or the refusal's status with err filled ---- */

/* import_gbench.c: Google Benchmark's JSON, each iteration row an
 * invocation of one sample (flags: SB_IMPORT_GBENCH_CPU_TIME). */
int sb__imp_read_gbench(struct imp *im, json_t *root, unsigned flags,
                        const struct spans *sp);
/* import_hyperfine.c: hyperfine's --export-json, each command a cell. */
int sb__imp_read_hyperfine(struct imp *im, json_t *root,
                           const struct spans *sp);
/* import_pyperf.c: pyperf's JSON, each worker process an invocation. */
int sb__imp_read_pyperf(struct imp *im, json_t *root,
                        const struct spans *sp);

#endif
