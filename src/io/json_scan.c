/*
 * json_scan.c: a JSON document followed byte by byte (json_scan.h), for
 * the readers that must not hold all of it: load.c's count of a run's
 * cells and import_tools.c's split of a benchmark tool's long list.
 */
#include "config.h"

#include <string.h>

#include "json_scan.h"

/* c, outside any string, inside the watched list: its element's bytes,
 * and the ',' and ']' that end one. */
static unsigned in_list(struct sb__jscan *s, char c)
{
    unsigned ev = 0;

    if (s->depth == 2 && (c == ',' || c == ']')) {
        if (s->in_elem)
            ev = SB__JS_END;
        else if (c == ',' || s->comma) {
            /* Nothing between '[' or ',' and this byte: jansson refuses
             * the document, and a list split from it must too. */
            s->stop = 1;
            return SB__JS_EMPTY;
        }
        s->in_elem = 0;
        s->comma = c == ',';
        if (c == ']') {
            s->list = 0;
            s->depth--;
            ev |= SB__JS_CLOSE;
        }
        return ev;
    }
    if (!s->in_elem) {
        s->in_elem = 1;
        s->nelem++;
        ev = SB__JS_BEGIN;
    }
    if (c == '"')
        s->in_str = 1;
    else if (c == '{' || c == '[') {
        if (++s->depth > SB__JSCAN_DEPTH_MAX)
            ev |= SB__JS_BAD;
    } else if (c == '}' || c == ']') {
        if (--s->depth < 2)
            ev |= SB__JS_BAD;
    }
    if (ev & SB__JS_BAD)
        s->stop = 1;
    return ev;
}

/* c, outside any string and any watched list. */
static unsigned outside(struct sb__jscan *s, char c)
{
    int start = 0;

    if (s->depth == 1 && c != ':') {
        /* The value after a watched key: is it a list? */
        if (s->colon && c == '[')
            start = s->colon;
        if (c != '"')
            s->watch = 0;
        s->colon = 0;
    }
    switch (c) {
    case '"':
        s->in_str = 1;
        s->keylen = 0;
        s->escaped = 0;
        break;
    case ':':
        if (s->depth == 1)
            s->colon = s->watch;
        s->watch = 0;
        break;
    case '{':
    case '[':
        if (++s->depth > SB__JSCAN_DEPTH_MAX) {
            s->stop = 1;
            return SB__JS_BAD;
        }
        break;
    case '}':
    case ']':
        if (--s->depth < 0) {
            s->stop = 1;
            return SB__JS_BAD;
        }
        break;
    default:
        break;
    }
    if (!start)
        return 0;
    s->list = start;
    s->in_elem = 0;
    s->comma = 0;
    s->nelem = 0;
    return SB__JS_OPEN;
}

size_t sb__jscan(struct sb__jscan *s, const char *buf, size_t n)
{
    s->ev = 0;
    if (s->stop)
        return n;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        unsigned ev = 0;

        if (s->in_str) {
            if (s->esc)
                s->esc = 0;
            else if (c == '\\') {
                s->esc = 1;
                if (s->depth == 1)
                    s->escaped = 1;
            } else if (c == '"') {
                s->in_str = 0;
                if (s->depth == 1) {
                    s->watch = 0;
                    ev = SB__JS_KEY;
                }
            } else if (s->depth == 1 && s->keylen < sizeof s->key)
                s->key[s->keylen++] = c;
            else
                s->keylen = sizeof s->key;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        else
            ev = s->list ? in_list(s, c) : outside(s, c);
        if (ev) {
            s->ev = ev;
            return i + 1;
        }
    }
    return n;
}

int sb__jscan_key_is(const struct sb__jscan *s, const char *word)
{
    size_t len = strlen(word);

    return !s->escaped && s->keylen == len && !memcmp(s->key, word, len);
}
