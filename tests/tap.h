/*
 * tap.h: a tiny Test Anything Protocol producer for the test programs.
 *
 * Each check prints one "ok N - description" or "not ok N - description"
 * line; failures add a diagnostic with both values.  tap_done() prints the
 * plan and returns the exit status.  automake's tap-driver counts the lines.
 */
#ifndef SB_TAP_H
#define SB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap__n, tap__failed;

static inline int tap_ok(int cond, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    ++tap__n;
    if (!cond)
        ++tap__failed;
    printf("%sok %d - ", cond ? "" : "not ", tap__n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    return cond;
}

static inline void tap_diag(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* A check that cannot run here: "ok N # SKIP reason". */
static inline void tap_skip(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline void tap_skip(const char *fmt, ...)
{
    va_list ap;
    printf("ok %d # SKIP ", ++tap__n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* Integer equality, printing both values on failure. */
#define TAP_IS_INT(got, want, ...)                                        \
    do {                                                                  \
        long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);  \
        if (!tap_ok(tap_g_ == tap_w_, __VA_ARGS__))                       \
            tap_diag("  got %lld, want %lld (%s)", tap_g_, tap_w_, #got); \
    } while (0)

/* Relative closeness |got - want| <= rel * |want| (or abs when want == 0). */
#define TAP_IS_REL(got, want, rel, ...)                                   \
    do {                                                                  \
        double tap_g_ = (got), tap_w_ = (want);                           \
        double tap_e_ = fabs(tap_g_ - tap_w_);                            \
        double tap_t_ = (rel) * (tap_w_ != 0 ? fabs(tap_w_) : 1.0);       \
        if (!tap_ok(tap_e_ <= tap_t_, __VA_ARGS__))                       \
            tap_diag("  got %.17g, want %.17g, tolerance %.3g (%s)",      \
                     tap_g_, tap_w_, (double)(rel), #got);                \
    } while (0)

/* String equality. */
#define TAP_IS_STR(got, want, ...)                                        \
    do {                                                                  \
        const char *tap_g_ = (got), *tap_w_ = (want);                     \
        int tap_c_ = tap_g_ && tap_w_ && strcmp(tap_g_, tap_w_) == 0;     \
        if (!tap_ok(tap_c_, __VA_ARGS__))                                 \
            tap_diag("  got \"%s\", want \"%s\"", tap_g_ ? tap_g_ : "(null)", \
                     tap_w_ ? tap_w_ : "(null)");                         \
    } while (0)

/* The path of tests/fixtures/NAME in buf: below $top_srcdir when it is
 * set, else below the current directory. */
static inline const char *tap_fixture(char *buf, size_t size,
                                      const char *name)
{
    const char *top = getenv("top_srcdir");
    snprintf(buf, size, "%s/tests/fixtures/%s", top && *top ? top : ".",
             name);
    return buf;
}

/* The next record of a fixture opened as f: reads lines into line (size
 * bytes), passing over comments and blank lines, and counts every line
 * read in *lineno.  Returns 1 for a record, 0 at the end of the file, -1
 * for a line longer than the buffer (a format error). */
static inline int tap_fixture_line(FILE *f, char *line, int size,
                                   int *lineno)
{
    while (fgets(line, size, f)) {
        ++*lineno;
        if (!strchr(line, '\n') && !feof(f))
            return -1;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        return 1;
    }
    return 0;
}

/* A guard against a truncated or emptied fixture passing quietly: it
 * holds at least min records of what. */
static inline int tap_at_least(size_t got, size_t min, const char *what)
{
    return tap_ok(got >= min, "fixture: %zu %s (want >= %zu)", got, what,
                  min);
}

/* The ranks 1, 2, ..., n in a buffer kept from call to call (grown as
 * needed; n = 0 frees it and returns NULL).  Out of memory: a failed check
 * "what n=N: out of memory", and NULL. */
static inline double *tap_ranks(size_t n, const char *what)
{
    static double *x;
    static size_t cap;
    size_t i;

    if (n == 0) {
        free(x);
        x = NULL;
        cap = 0;
        return NULL;
    }
    if (n > cap) {
        double *q = realloc(x, n * sizeof *x);
        if (!q) {
            tap_ok(0, "%s n=%zu: out of memory", what, n);
            return NULL;
        }
        x = q;
        cap = n;
    }
    for (i = 0; i < n; ++i)
        x[i] = (double)(i + 1);
    return x;
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap__n);
    return tap__failed ? 1 : 0;
}

#endif
