/*
 * sb_internal.h: names shared inside libstatbench, never installed.
 * Internal non-static names start with "sb__".  This header holds only
 * what every part uses (the error filler, the printf attribute, the page
 * size, the growth and freeing of arrays); each module declares its own
 * functions in its own header (counters.h, interrupts.h, measure.h,
 * meta.h, plan.h, sysinfo.h, timer.h, run_internal.h, env_internal.h;
 * kernels/failed.h for the kernels).
 */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include "statbench.h"
#include "text.h"

#if defined(__GNUC__)
#define SB__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SB__PRINTF(a, b)
#endif

/* A timer kind in words (src/base/names.c holds one row per kind).  Writers
 * and the loader take the words from here, never from the kind's value. */
typedef struct sb__timer_kind {
    const char *name;     /* --timer's name: "tsc" */
    const char *json;     /* meta.timer.kind in JSON: "tsc" */
    const char *label;    /* in prose: "TSC" */
    const char *reader;   /* how it is read, for the table's header */
    const char *tick;     /* one tick, JSON's tick_unit */
    const char *ticks;    /* what its ticks are, in a sentence */
    const char *unit;     /* a count of ticks in a table: "cycles" */
    const char *column;   /* the per-byte and per-call columns: "tsc" */
    const char *csv_unit; /* CSV's ticks_unit: "ticks" */
    const char *axis;     /* a figure's time axis: "TSC cycles" */
} sb__timer_kind;

/* The row of kind (outside the list, words that claim no unit: "?",
 * "ticks"); the kind whose JSON name is json, -1 for any other (NULL
 * included). */
const sb__timer_kind *sb__timer_kind_of(int kind);
int sb__timer_kind_json(const char *json);

/* Buffers are page-aligned plus the cell's offset; offsets stay below a
 * page.  4096 is the x86 base page, and the offsets of the threads are
 * measured against it whatever the machine's page size. */
#define SB_PAGE_SIZE 4096

/* Most cells a plan or a loaded run may have: a guard against a typo such
 * as --align 0..4095 --dst-align 0..4095 (16.7 million cells). */
#define SB__MAX_CELLS 100000

/* Fill err (when not NULL) with code and a printf-style message; returns
 * code so that callers can write "return sb__error(err, SB_EINVAL, ...)". */
int sb__error(sb_error *err, int code, const char *fmt, ...) SB__PRINTF(3, 4);

/* mem.c: p, an array of *cap elements of size bytes (NULL and 0 at
 * first), grown to twice as many (first when empty) and *cap updated;
 * when out of memory, p itself with *cap unchanged (p still the
 * caller's).  SB__ROOM(a, n, cap, first): true when array a, of n
 * elements in use, has room for one more, grown so when it is full;
 * false when out of memory, a unchanged:
 *     if (!SB__ROOM(s->v, s->n, s->cap, 16)) return ...ENOMEM...;
 *     s->v[s->n++] = x;  */
void *sb__grow(void *p, size_t *cap, size_t size, size_t first);
#define SB__ROOM(a, n, cap, first)                                         \
    ((n) < (cap) ||                                                        \
     ((a) = sb__grow((a), &(cap), sizeof *(a), (first)), (n) < (cap)))
/* mem.c: free() of each of the n pointers at p; SB__FREE_ALL(a, b, ...)
 * frees each of its arguments, object pointers that are not const. */
void sb__free_each(void *const *p, size_t n);
#define SB__FREE_ALL(...)                                                  \
    sb__free_each((void *const[]){__VA_ARGS__},                            \
                  sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* A struct the library fills in the caller's memory (sb_comparison,
 * sb_timer_info, ...): its layouts are prefixes of each other, with a
 * size_t size first, which the caller sets to the sizeof it compiled.
 * sb__out_size: SB_OK when size is one of known[] (nknown sizes, the
 * current layout's first), else SB_EINVAL naming who, what (the struct)
 * and the size; the caller's memory is then not to be written at all,
 * since its layout is unknown.  sb__out_put: the first size bytes of
 * full (the library's whole struct) into out, for a size sb__out_size
 * accepted, out's size field left at size: nothing past it is written. */
int sb__out_size(size_t size, const size_t *known, size_t nknown,
                 const char *what, const char *who, sb_error *err);
void sb__out_put(void *out, size_t size, const void *full);
/* The size field of out, a struct of that kind (read without assuming
 * out's type or alignment). */
size_t sb__out_size_of(const void *out);

/* run.c (here, not in run_internal.h, because the writers use them
 * and see the run only through the public accessors): the cells of one
 * kernel and size start at first and end before the returned index (the
 * plan keeps them together). */
size_t sb__group_end(const sb_run *run, size_t first);

/* run.c: the number of source offsets when the group [first, end)
 * holds every pair of at least two source and two destination offsets in
 * plan order (destination outer, source inner): a 2D alignment matrix;
 * else 0. */
size_t sb__matrix_width(const sb_run *run, size_t first, size_t end);

#endif
