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
#include <sys/mman.h>

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

/* The reason a check cannot run under emulation, or NULL when the test
 * does not run under emulation: SB_TEST_EMULATED set, and not "0"
 * (tools/aarch64.sh sets it for qemu-user; tests/lib.sh reads it too).
 * qemu-user maps the guest's memory itself, inside its own address
 * space, so an RLIMIT_AS or a count of page faults or of mapped pages
 * measures the emulator, not the kernel's work for the program. */
static inline const char *tap_emulated(void)
{
    const char *e = getenv("SB_TEST_EMULATED");
    if (!e || !*e || !strcmp(e, "0"))
        return NULL;
    return "under emulation (SB_TEST_EMULATED): qemu-user maps the "
           "program's memory itself";
}

/* The factor a time bound grows by under emulation: SB_TEST_TIME_SCALE
 * (a whole number, 20 unless set; tests/lib.sh scales the shell tests'
 * budgets by the same), and 1 when the test does not run under
 * emulation. */
static inline double tap_time_scale(void)
{
    const char *s = getenv("SB_TEST_TIME_SCALE");
    char *end;
    long v;
    if (!tap_emulated())
        return 1.0;
    if (!s || !*s)
        return 20.0;
    v = strtol(s, &end, 10);
    return *end == '\0' && v >= 1 ? (double)v : 20.0;
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

/* A reference fixture read record by record: tap_fixture_open, then
 * tap_fixture_next until NULL, then tap_fixture_close. */
typedef struct tap_reader {
    FILE *f;
    char path[4096];
    char line[1024];
    int lineno; /* lines read */
    int toolong; /* a line longer than the buffer ended the reading */
} tap_reader;

/* Opens tests/fixtures/NAME; -1 after a failed check "open fixture". */
static inline int tap_fixture_open(tap_reader *r, const char *name)
{
    memset(r, 0, sizeof *r);
    tap_fixture(r->path, sizeof r->path, name);
    r->f = fopen(r->path, "r");
    if (!r->f) {
        tap_ok(0, "open fixture %s", r->path);
        return -1;
    }
    return 0;
}

/* The next record, passing over comments and blank lines; NULL at the end
 * of the file or at a line longer than the buffer (a format error). */
static inline char *tap_fixture_next(tap_reader *r)
{
    while (fgets(r->line, sizeof r->line, r->f)) {
        ++r->lineno;
        if (!strchr(r->line, '\n') && !feof(r->f)) {
            r->toolong = 1;
            return NULL;
        }
        if (r->line[0] == '#' || r->line[0] == '\n')
            continue;
        return r->line;
    }
    return NULL;
}

/* Closes the fixture; bad (or a line too long) is a failed check "format
 * error at line N" and -1. */
static inline int tap_fixture_close(tap_reader *r, int bad)
{
    fclose(r->f);
    if (bad || r->toolong) {
        tap_ok(0, "fixture %s: format error at line %d", r->path, r->lineno);
        return -1;
    }
    return 0;
}

/* A zeroed block of size bytes shared with the test's forked children
 * (the invocations of a run), for what they record; NULL, with a skip "no
 * shared page for what", when there is none.  munmap it at the end. */
static inline void *tap_shared(size_t size, const char *what)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        tap_skip("no shared page for %s", what);
        return NULL;
    }
    return p;
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

/* Wilson's 95% interval of k successes in n (n > 0): what a simulated
 * rate is checked with. */
static inline void tap_wilson(size_t k, size_t n, double *lo, double *hi)
{
    double z = 1.959963984540054, p = (double)k / (double)n;
    double d = 1 + z * z / (double)n;
    double c = (p + z * z / (2.0 * (double)n)) / d;
    double h = z * sqrt(p * (1 - p) / (double)n +
                        z * z / (4.0 * (double)n * (double)n)) /
               d;
    *lo = c - h;
    *hi = c + h;
}

static inline int tap_done(void)
{
    printf("1..%d\n", tap__n);
    return tap__failed ? 1 : 0;
}

#endif
