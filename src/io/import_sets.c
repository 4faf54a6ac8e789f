/*
 * import_sets.c: what the readers of other tools' files share
 * (import_tools.h): the refusal and the notes, the table of sets by name
 * with their values and invocations, the checked numbers and strings of
 * a document, and the elements of its list, in memory or read one at a
 * time from the byte ranges the split left on disk.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "import_tools.h"
#include "text.h"

/* The file's refusal: SB_EIO, "FILE: " before the message. */
int sb__imp_bad(struct imp *im, const char *fmt, ...)
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
void sb__imp_note(struct imp *im, const char *fmt, ...)
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

/* s cut to at most SB__IMP_NAME_MAX bytes (at a character's start) and
 * cleaned: a new string, or NULL when out of memory. */
static char *cut_name(const char *s)
{
    size_t len = strlen(s);
    char *c;

    if (len > SB__IMP_NAME_MAX) {
        len = SB__IMP_NAME_MAX;
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
const char *sb__imp_shown(char *buf, size_t size, const char *s)
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
int sb__imp_find_set(struct imp *im, const char *raw, size_t at,
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
        return sb__imp_bad(im, "more than %d cells (benchmarks or commands)",
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
int sb__imp_new_set(struct imp *im, const char *raw, size_t at,
                    struct imp_set **out)
{
    char buf[80];
    int rc;

    if (!raw[0])
        return sb__imp_bad(im, "%s[%zu]%s: empty", im->name_list, at,
                           im->name_key);
    if ((rc = sb__imp_find_set(im, raw, at, out)) != SB_OK)
        return rc;
    if ((*out)->n)
        return sb__imp_bad(im, "%s[%zu]%s: '%s' repeats %s[%zu]",
                           im->name_list, at, im->name_key,
                           sb__imp_shown(buf, sizeof buf, (*out)->name),
                           im->name_list, (*out)->first);
    return SB_OK;
}

/* Value x appended to set s: SB_OK, or SB_EIO past SB_IMPORT_MAX_VALUES,
 * SB_ENOMEM. */
int sb__imp_push_value(struct imp *im, struct imp_set *s, double x)
{
    if (im->nvalues == SB_IMPORT_MAX_VALUES)
        return sb__imp_bad(im, "more than %d values: statbench reads at "
                               "most that many from one file",
                           SB_IMPORT_MAX_VALUES);
    if (!SB__ROOM(s->v, s->n, s->cap, 16))
        return sb__error(im->err, SB_ENOMEM, "out of memory");
    s->v[s->n++] = x;
    im->nvalues++;
    return SB_OK;
}

/* The last k values of s one invocation: SB_OK or SB_ENOMEM. */
int sb__imp_push_invocation(struct imp *im, struct imp_set *s, size_t k)
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
int sb__imp_number_at(struct imp *im, json_t *v, const char *path,
                      int positive, double *out)
{
    double x;

    if (!v)
        return sb__imp_bad(im, "%s: missing", path);
    if (!json_is_number(v))
        return sb__imp_bad(im, "%s: not a number", path);
    x = json_number_value(v);
    if (!isfinite(x) || fabs(x) > SB_VALUE_MAX)
        return sb__imp_bad(im, "%s: %g is beyond 1e300 in magnitude", path, x);
    if (positive && !(x > 0))
        return sb__imp_bad(im, "%s: %g is not a positive time", path, x);
    *out = x;
    return SB_OK;
}

/* A string of metadata object o (NULL when absent or not a string: the
 * metadata only informs). */
const char *sb__imp_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The words of a note for the version at key of o: " of WHAT V", V cut
 * to fit cut bytes (at most 80) and cleaned, in buf (96 bytes hold them
 * for a WHAT of up to 12); "" when o has none. */
const char *sb__imp_version_words(char *buf, size_t size, json_t *o,
                                  const char *key, const char *what,
                                  size_t cut)
{
    const char *v = sb__imp_str(o, key);
    char c[80];

    if (!v)
        return "";
    sb__imp_shown(c, cut < sizeof c ? cut : sizeof c, v);
    snprintf(buf, size, " of %s %s", what, c);
    return buf;
}

/* ---- the elements of a list, in memory or on disk ------------------- */

/* The list arr of the document read next: in memory, or, when the
 * document was split (im->spans), the ranges the split recorded for it. */
void sb__imp_el_use(struct imp *im, json_t *arr, const struct spans *sp)
{
    if (sp && !sp->split)
        sp = NULL;
    im->arr = sp ? NULL : arr;
    im->spans = sp;
}

size_t sb__imp_el_count(const struct imp *im)
{
    return im->spans ? im->spans->n : json_array_size(im->arr);
}

/* The list of root that names the cells (im->name_list) the one read
 * next: SB_OK, or SB_EIO when it is missing, not a list or empty. */
int sb__imp_use_list(struct imp *im, json_t *root, const struct spans *sp)
{
    json_t *l = json_object_get(root, im->name_list);

    if (json_is_array(l))
        sb__imp_el_use(im, l, sp);
    if (!json_is_array(l) || sb__imp_el_count(im) == 0)
        return sb__imp_bad(im, "%s: %s", im->name_list,
                           !l ? "missing"
                           : !json_is_array(l) ? "not a list"
                                               : "empty");
    return SB_OK;
}

/* Element i of the list (list[i] in messages), valid until the next
 * call: NULL with err filled when on disk it is not JSON or cannot be
 * read. */
json_t *sb__imp_el_get(struct imp *im, const char *list, size_t i)
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
        im->el_rc = sb__imp_bad(im, "%s[%zu]: read error", list, i);
        return NULL;
    }
    im->cur = json_loadb(im->buf, len,
                         JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!im->cur)
        im->el_rc =
            sb__imp_bad(im, "%s[%zu]: not JSON (%s)", list, i, je.text);
    return im->cur;
}
