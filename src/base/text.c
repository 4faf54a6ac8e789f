/*
 * text.c: text for a terminal.  Compiled into the library and into the
 * command (whose messages quote file names), so that both clean the
 * same way.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

/* The length of the character at s (at least 1; s is not at its end), and
 * in *control whether a terminal could take it for a control: a C0
 * control or DEL, a C1 control (U+0080..U+009F: an 8-bit terminal obeys
 * U+009B as CSI), or a byte that is not valid UTF-8 (a lone 0x9b). */
size_t sb__char_len(const char *s, int *control)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned cp;
    size_t n;

    *control = 0;
    if (p[0] < 0x80) {
        *control = p[0] < 0x20 || p[0] == 0x7f;
        return 1;
    }
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        cp = p[0] & 0x1f;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        cp = p[0] & 0x0f;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        cp = p[0] & 0x07;
    } else {
        *control = 1;
        return 1;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            *control = 1; /* cut short (the end of the string too) */
            return 1;
        }
        cp = cp << 6 | (p[i] & 0x3f);
    }
    /* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
        *control = 1;
        return 1;
    }
    *control = cp <= 0x9f;
    return n;
}

void sb__clean_text(char *s)
{
    char *w = s;

    while (s && *s) {
        int control;
        size_t n = sb__char_len(s, &control);
        if (control) {
            *w++ = '?';
        } else {
            memmove(w, s, n);
            w += n;
        }
        s += n;
    }
    if (w)
        *w = '\0';
}

char *sb__clean_copy(const char *s)
{
    char *n = strdup(s);
    sb__clean_text(n);
    return n;
}

void sb__clean_into(char *buf, size_t size, const char *s)
{
    snprintf(buf, size, "%s", s);
    sb__clean_text(buf);
}
