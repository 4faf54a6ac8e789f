/*
 * json_scan.h: a JSON document followed as its bytes pass, never
 * installed.  Two readers use it before (or instead of) building the
 * document with jansson, which holds all of it in memory: load.c counts
 * the elements of a saved run's "cells" as jansson is fed, so that a
 * file of too many cells stops early, and import_tools.c leaves the
 * elements of a benchmark tool's long list on disk and reads them one at
 * a time.  The scanner follows strings, escapes and nesting as JSON's
 * grammar allows, the keys of the root object, and the elements of one
 * list that is the value of a root key the caller picks; it checks no
 * more of the grammar than that (jansson checks the rest).
 */
#ifndef SB_IO_JSON_SCAN_H
#define SB_IO_JSON_SCAN_H

#include <stddef.h>

/* Nesting past this is odd (jansson refuses past 2048): SB__JS_BAD. */
#define SB__JSCAN_DEPTH_MAX 4096

/* What the last byte scanned did, as bits of sb__jscan.ev. */
enum {
    SB__JS_KEY = 1,   /* a string of the root object ended: key, keylen,
                         escaped; the caller may set watch before the next
                         call to follow the list that is its value */
    SB__JS_OPEN = 2,  /* the '[' of the watched list: list is set */
    SB__JS_BEGIN = 4, /* the first byte of an element of the list */
    SB__JS_END = 8,   /* the ',' or ']' after an element of the list */
    SB__JS_CLOSE = 16, /* the list's ']': list is 0 again */
    SB__JS_EMPTY = 32, /* a ',' or ']' where an element should stand
                          ("[,1]", "[1,,2]", "[1,]"): element nelem of
                          the list is missing, and scanning stopped */
    SB__JS_BAD = 64    /* nesting closed below the root or the list's
                          level, or past SB__JSCAN_DEPTH_MAX: scanning
                          stopped */
};

/* The scanner's state: zeroed to begin a document. */
struct sb__jscan {
    int depth;      /* nesting of objects and lists, 1 inside the root */
    int in_str, esc;
    char key[12];   /* a string of the root object as it is read */
    size_t keylen;  /* its length, or past sizeof key when longer */
    int escaped;    /* the last string of the root had an escape */
    int watch;      /* the caller's: the last key names a list to follow
                       (a number > 0 it chooses) */
    int colon;      /* watch, then a ':' followed it */
    int list;       /* inside the watched list: its watch number */
    int in_elem;    /* inside an element of it */
    int comma;      /* a ',' of the list came after the last element */
    size_t nelem;   /* elements of the list begun */
    int stop;       /* SB__JS_EMPTY or SB__JS_BAD was seen */
    unsigned ev;    /* the bits of what the last byte scanned did */
};

/* Scans buf[0..n) on from where s stopped, until a byte does something
 * (s->ev not 0) or the end: the number of bytes read, the byte that did
 * something the last of them.  Once stopped, it reads nothing (0). */
size_t sb__jscan(struct sb__jscan *s, const char *buf, size_t n);

/* The key of the last SB__JS_KEY is word (not written with escapes). */
int sb__jscan_key_is(const struct sb__jscan *s, const char *word);

#endif
