/*
 * gp_check.h: is a gnuplot script that sb_plot() wrote inert?  Shared by
 * tests/test_plot.c and the figure writer's fuzzer (tests/fuzz/).
 *
 * gnuplot runs `text` in backquotes as a shell command, in double-quoted
 * strings too, expands @name macros outside strings, and continues a line
 * (a comment included) that ends in a backslash.  In a single-quoted
 * string nothing is special but the quote itself, written twice.  So a
 * script is inert when, read line by line as gnuplot reads it:
 *   - no string literal runs past the end of its line;
 *   - no literal holds a control character;
 *   - no backquote or '@' stands outside a single-quoted literal;
 *   - no comment ends in a backslash (which would swallow the next line).
 * gp_problem() returns NULL for such a script, else what is wrong and on
 * which line, in a static buffer.
 *
 * gp_skeleton() is the script with what is inside single-quoted literals
 * and comments removed: the code that gnuplot runs.  Two figures drawn
 * from runs that differ only in their names must have the same skeleton,
 * which shows that a name can only ever be the text of a literal.
 */
#ifndef SB_GP_CHECK_H
#define SB_GP_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int gp__ctrl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static inline const char *gp_problem(const char *text)
{
    static char why[160];
    const char *p = text;
    size_t line = 1;

    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *end = p + n, *q = p;
        while (q < end) {
            unsigned char c = (unsigned char)*q;
            if (c == '#') {
                /* A comment: to the end of the line. */
                if (end[-1] == '\\') {
                    snprintf(why, sizeof why,
                             "line %zu: a comment ends in a backslash",
                             line);
                    return why;
                }
                break;
            }
            if (c == '\'' || c == '"') {
                /* A literal, to its closing quote on this line: in a
                 * single-quoted one the quote written twice stands for
                 * itself, in a double-quoted one a backslash escapes the
                 * next character and a backquote runs a command. */
                const char *kind = c == '\'' ? "single" : "double";
                for (q++;; q++) {
                    unsigned char d;
                    if (q >= end) {
                        snprintf(why, sizeof why,
                                 "line %zu: a %s-quoted string runs past "
                                 "the end of the line",
                                 line, kind);
                        return why;
                    }
                    d = (unsigned char)*q;
                    if (q + 1 < end &&
                        (c == '\'' ? d == '\'' && q[1] == '\'' : d == '\\')) {
                        q++;
                        continue;
                    }
                    if (d == c)
                        break;
                    if (c == '"' && d == '`') {
                        snprintf(why, sizeof why,
                                 "line %zu: a backquote in a double-quoted "
                                 "string",
                                 line);
                        return why;
                    }
                    if (gp__ctrl(d)) {
                        snprintf(why, sizeof why,
                                 "line %zu: a control character (0x%02x) "
                                 "in a %s-quoted string",
                                 line, d, kind);
                        return why;
                    }
                }
                q++;
                continue;
            }
            if (c == '`' || c == '@' || (gp__ctrl(c) && c != '\t')) {
                snprintf(why, sizeof why,
                         "line %zu: %s outside a single-quoted string", line,
                         c == '`'   ? "a backquote"
                         : c == '@' ? "an '@' (a macro)"
                                    : "a control character");
                return why;
            }
            q++;
        }
        p = end;
        if (*p)
            p++;
        line++;
    }
    return NULL;
}

/* The script without comments and without the text of single-quoted
 * literals (each becomes ''), as a new string; NULL when out of memory.
 * Call it on a script gp_problem() accepted. */
static inline char *gp_skeleton(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    const char *p = text;

    if (!out)
        return NULL;
    while (*p) {
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        if (*p == '\'') {
            for (p++; *p; p++) {
                if (p[0] == '\'' && p[1] == '\'') {
                    p++;
                    continue;
                }
                if (*p == '\'' || *p == '\n')
                    break;
            }
            if (*p == '\'')
                p++;
            *o++ = '\'';
            *o++ = '\'';
            continue;
        }
        if (*p == '"') {
            /* Double-quoted literals are the writer's own constants:
             * kept as they are. */
            *o++ = *p++;
            while (*p && *p != '"' && *p != '\n') {
                if (*p == '\\' && p[1] && p[1] != '\n')
                    *o++ = *p++;
                *o++ = *p++;
            }
            if (*p == '"')
                *o++ = *p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

/* Both write the runs they draw as JSON: a JSON string of any bytes, with
 * quotes, backslashes and control characters escaped and other bytes as
 * they are (not UTF-8: the reader refuses it). */
static inline void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (gp__ctrl(c))
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

#endif
