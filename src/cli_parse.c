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

int cli_parse_double(const char *s, double lo, double hi, double *out,
                     char *msg, size_t msglen)
{
    char *end;
    double v;

    if (!s || !*s)
        return fail(msg, msglen, "'%s': %s", s ? s : "", "empty number");
    errno = 0;
    v = strtod(s, &end);
    if (*end || end == s || errno == ERANGE || !isfinite(v))
        return fail(msg, msglen, "'%s': %s", s, "not a number");
    if (!(v > lo && v < hi)) {
        char why[96];
        snprintf(why, sizeof why, "must lie strictly between %g and %g", lo,
                 hi);
        return fail(msg, msglen, "'%s': %s", s, why);
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

int cli_read_numbers(FILE *f, const char *name, double **vals, size_t *n,
                     char *msg, size_t msglen)
{
    char line[512];
    size_t cap = 0, lineno = 0, count = 0;
    double *v = NULL;

    *vals = NULL;
    *n = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line, *end;
        double x;
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(msg, msglen, "%s:%zu: line too long", name, lineno);
            free(v);
            return -1;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || *p == '\0' || *p == '#')
            continue;
        errno = 0;
        x = strtod(p, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (end == p || *end || errno == ERANGE || !isfinite(x)) {
            p[strcspn(p, "\r\n")] = '\0';
            snprintf(msg, msglen, "%s:%zu: '%.64s' is not a finite number",
                     name, lineno, p);
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
        snprintf(msg, msglen, "%s: read error", name);
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
