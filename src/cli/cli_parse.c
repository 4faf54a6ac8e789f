/* cli_parse.c: sizes, lists and ranges from the command line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_parse.h"
#include "statbench.h"

static int fail(char *msg, size_t msglen, const char *fmt, const char *what,
                const char *why)
{
    if (msg && msglen) {
        snprintf(msg, msglen, fmt, what, why);
        /* The message is one line, whatever the value held. */
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    return -1;
}

/* Parse [start, end) as one value. */
static int parse_value_n(const char *start, size_t len,
                         enum cli_value_kind kind, uint64_t *out, char *msg,
                         size_t msglen)
{
    char buf[64];
    const char *p;
    uint64_t v = 0, mult = 1;

    if (len == 0)
        return fail(msg, msglen, "'%s': %s", "", "empty value");
    if (len >= sizeof buf)
        return fail(msg, msglen, "'%.40s...': %s", start, "value too long");
    memcpy(buf, start, len);
    buf[len] = '\0';

    p = buf;
    /* "0x10" gets its own reason: values are decimal only. */
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        return fail(msg, msglen, "'%s': %s", buf,
                    "hexadecimal is not accepted (decimal only)");
    if (!isdigit((unsigned char)*p))
        return fail(msg, msglen, "'%s': %s", buf,
                    kind == CLI_SIZE ? "not a size (want e.g. 4096, 10K, 1M)"
                                     : "not a non-negative integer");
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return fail(msg, msglen, "'%s': %s", buf, "too large");
        v = v * 10 + d;
    }
    if (*p) {
        if (kind != CLI_SIZE)
            return fail(msg, msglen, "'%s': %s", buf,
                        "not a non-negative integer");
        if (!strcasecmp(p, "k") || !strcasecmp(p, "kib"))
            mult = UINT64_C(1) << 10;
        else if (!strcasecmp(p, "m") || !strcasecmp(p, "mib"))
            mult = UINT64_C(1) << 20;
        else if (!strcasecmp(p, "g") || !strcasecmp(p, "gib"))
            mult = UINT64_C(1) << 30;
        else if (!strcasecmp(p, "b"))
            mult = 1;
        else
            return fail(msg, msglen, "'%s': %s", buf,
                        "unknown size suffix (use K, M or G; K = 1024)");
        if (v > UINT64_MAX / mult)
            return fail(msg, msglen, "'%s': %s", buf, "too large");
    }
    *out = v * mult;
    return 0;
}

int cli_parse_value(const char *s, enum cli_value_kind kind, uint64_t *out,
                    char *msg, size_t msglen)
{
    if (!s)
        return fail(msg, msglen, "'%s': %s", "", "missing value");
    return parse_value_n(s, strlen(s), kind, out, msg, msglen);
}

struct vec {
    uint64_t *v;
    size_t n, cap;
};

static int push(struct vec *a, uint64_t x, const char *item, char *msg,
                size_t msglen)
{
    if (a->n >= CLI_LIST_MAX)
        return fail(msg, msglen, "'%s': %s", item,
                    "expands to more than 100000 values");
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        uint64_t *nv = realloc(a->v, cap * sizeof *nv);
        if (!nv)
            return fail(msg, msglen, "'%s': %s", item, "out of memory");
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* One item of a list: VALUE, A..B, A..B:STEP or A..B:*F. */
static int parse_item(const char *item, enum cli_value_kind kind,
                      struct vec *out, char *msg, size_t msglen)
{
    const char *dots = strstr(item, "..");
    const char *colon;
    uint64_t a, b, step = 1;
    int geometric = 0;
    char sub[128];

    if (!dots)
        return parse_value_n(item, strlen(item), kind, &a, msg, msglen) ||
               push(out, a, item, msg, msglen);

    if (parse_value_n(item, (size_t)(dots - item), kind, &a, sub,
                      sizeof sub))
        return fail(msg, msglen, "range '%s': start %s", item, sub);
    colon = strchr(dots + 2, ':');
    if (parse_value_n(dots + 2,
                      colon ? (size_t)(colon - dots - 2) : strlen(dots + 2),
                      kind, &b, sub, sizeof sub))
        return fail(msg, msglen, "range '%s': end %s", item, sub);
    if (colon) {
        const char *s = colon + 1;
        if (*s == '*') {
            geometric = 1;
            s++;
        }
        if (parse_value_n(s, strlen(s), CLI_INT, &step, sub, sizeof sub))
            return fail(msg, msglen, "range '%s': step %s", item, sub);
        if (geometric && step < 2)
            return fail(msg, msglen, "range '%s': %s", item,
                        "geometric factor must be at least 2");
        if (!geometric && step == 0)
            return fail(msg, msglen, "range '%s': %s", item,
                        "step must be at least 1");
    }
    if (a > b)
        return fail(msg, msglen, "range '%s': %s", item,
                    "start is greater than end");
    if (geometric && a == 0)
        return fail(msg, msglen, "range '%s': %s", item,
                    "a geometric range cannot start at 0");
    for (uint64_t x = a;;) {
        if (push(out, x, item, msg, msglen))
            return -1;
        if (geometric) {
            if (x > b / step)
                break;
            x *= step;
        } else {
            if (b - x < step)
                break;
            x += step;
        }
        if (x > b)
            break;
    }
    return 0;
}

int cli_parse_list(const char *s, enum cli_value_kind kind, uint64_t **vals,
                   size_t *n, char *msg, size_t msglen)
{
    struct vec out = {0};
    char *copy, *item, *save = NULL;

    if (!s || !*s)
        return fail(msg, msglen, "'%s': %s", s ? s : "", "empty list");
    if (s[strlen(s) - 1] == ',' || s[0] == ',' || strstr(s, ",,"))
        return fail(msg, msglen, "'%s': %s", s, "empty item in list");
    copy = strdup(s);
    if (!copy)
        return fail(msg, msglen, "'%s': %s", s, "out of memory");
    for (item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        if (parse_item(item, kind, &out, msg, msglen)) {
            free(copy);
            free(out.v);
            return -1;
        }
    }
    free(copy);
    *vals = out.v;
    *n = out.n;
    return 0;
}

/* The length of the decimal number at s ([+-] digits [. digits]
 * [e [+-] digits], at least one digit before the exponent), or 0.  strtod
 * alone would also take hexadecimal ("0x10" as 16), "inf", "nan" and
 * "infinity". */
static size_t decimal_len(const char *s)
{
    size_t i = 0, digits = 0;

    if (s[i] == '+' || s[i] == '-')
        i++;
    for (; isdigit((unsigned char)s[i]); i++)
        digits++;
    if (s[i] == '.')
        for (i++; isdigit((unsigned char)s[i]); i++)
            digits++;
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1, e = 0;
        if (s[j] == '+' || s[j] == '-')
            j++;
        for (; isdigit((unsigned char)s[j]); j++)
            e++;
        if (e)
            i = j;
    }
    return i;
}

/* Read the decimal number at s into *v; *end is set past it.  Returns
 * NULL, or why s is refused. */
static const char *read_decimal(const char *s, double *v, const char **end)
{
    size_t len = decimal_len(s);
    const char *p = s;
    char *e;

    *end = s;
    if (*p == '+' || *p == '-')
        p++;
    if (*p == '0' && (p[1] == 'x' || p[1] == 'X'))
        return "hexadecimal is not accepted (decimal only)";
    if (!len) {
        if (!strncasecmp(p, "inf", 3) || !strncasecmp(p, "nan", 3))
            return "not a finite number";
        return "not a number";
    }
    errno = 0;
    *v = strtod(s, &e);
    if ((size_t)(e - s) != len)
        return "not a number";
    *end = e;
    /* ERANGE is set for subnormal results too (1e-320), which are finite
     * and kept; only an overflow and an underflow to zero are refused. */
    if (isinf(*v))
        return "too large for a double (above 1.8e308)";
    if (errno == ERANGE && *v == 0)
        return "too small for a double: it rounds to 0 (below 4.9e-324)";
    /* The midpoint of two such values (an even count's median), a sum or
     * a square overflows to infinity. */
    if (fabs(*v) > SB_VALUE_MAX)
        return "beyond 1e300 in magnitude, where a sum or a midpoint of "
               "two values overflows";
    return NULL;
}

int cli_parse_double(const char *s, double lo, double hi, double *out,
                     char *msg, size_t msglen)
{
    const char *end, *why;
    double v = 0;

    if (!s || !*s)
        return fail(msg, msglen, "'%s': %s", s ? s : "", "empty number");
    why = read_decimal(s, &v, &end);
    if (!why && *end)
        why = "not a number";
    if (why)
        return fail(msg, msglen, "'%s': %s", s, why);
    if (!(v > lo && v < hi)) {
        char range[96];
        snprintf(range, sizeof range, "must lie strictly between %g and %g",
                 lo, hi);
        return fail(msg, msglen, "'%s': %s", s, range);
    }
    *out = v;
    return 0;
}

char *cli_format_size(uint64_t bytes, char *buf, size_t buflen)
{
    static const char *unit[] = {"KiB", "MiB", "GiB"};
    int u = -1;
    uint64_t v = bytes;

    while (u < 2 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, buflen, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, buflen, "%llu B (%llu %s)", (unsigned long long)bytes,
                 (unsigned long long)v, unit[u]);
    return buf;
}

/* Read one line of f into line (without its newline): 1, or 0 at the
 * end of the file, -1 for a line longer than CLI_LINE_MAX characters, -2
 * for a NUL byte.  fgets cannot tell a NUL from the end of its buffer. */
static int read_line(FILE *f, char line[CLI_LINE_MAX + 1])
{
    size_t len = 0;
    int c;

    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0')
            return -2;
        if (len == CLI_LINE_MAX)
            return -1;
        line[len++] = (char)c;
    }
    line[len] = '\0';
    return c == EOF && len == 0 ? 0 : 1;
}

int cli_read_numbers(FILE *f, const char *name, double **vals, size_t *n,
                     char *msg, size_t msglen)
{
    char line[CLI_LINE_MAX + 1];
    size_t cap = 0, lineno = 0, count = 0;
    double *v = NULL;
    int got;

    *vals = NULL;
    *n = 0;
    while ((got = read_line(f, line)) != 0) {
        const char *p = line, *end, *why;
        double x = 0;
        lineno++;
        if (got < 0) {
            if (got == -2)
                snprintf(msg, msglen, "%s:%zu: NUL byte in line %zu", name,
                         lineno, lineno);
            else
                snprintf(msg, msglen,
                         "%s:%zu: line longer than %d characters", name,
                         lineno, CLI_LINE_MAX);
            free(v);
            return -1;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\r' || *p == '\0' || *p == '#')
            continue;
        why = read_decimal(p, &x, &end);
        while (!why && (*end == ' ' || *end == '\t' || *end == '\r'))
            end++;
        if (!why && *end)
            why = "not a number";
        if (why) {
            char shown[72];
            snprintf(shown, sizeof shown, "%.64s", p);
            shown[strcspn(shown, "\r")] = '\0';
            /* One line, whatever the file held. */
            for (char *q = shown; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    *q = '?';
            snprintf(msg, msglen, "%s:%zu: '%s': %s", name, lineno, shown,
                     why);
            free(v);
            return -1;
        }
        if (count == CLI_NUMBERS_MAX) {
            /* A stream that never ends (yes 1 | statbench analyze
             * /dev/stdin) must not take the machine's memory. */
            snprintf(msg, msglen,
                     "%s: more than %d values (a stream that does not "
                     "end?): analyze reads at most that many",
                     name, CLI_NUMBERS_MAX);
            free(v);
            return -1;
        }
        if (count == cap) {
            size_t ncap = cap ? 2 * cap : 1024;
            double *t = realloc(v, ncap * sizeof *t);
            if (!t) {
                snprintf(msg, msglen, "%s: out of memory", name);
                free(v);
                return -1;
            }
            v = t;
            cap = ncap;
        }
        v[count++] = x;
    }
    if (ferror(f)) {
        /* A directory opens and fails its first read: say which. */
        snprintf(msg, msglen, "%s: read error (%s)", name,
                 errno ? strerror(errno) : "unknown");
        free(v);
        return -1;
    }
    if (count == 0) {
        snprintf(msg, msglen, "%s: no numbers", name);
        free(v);
        return -1;
    }
    *vals = v;
    *n = count;
    return 0;
}
