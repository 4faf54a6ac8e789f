/*
 * whole_number.h: the argument parser of the standalone example programs
 * (mmap_rounds.c, cached_read.c), which link nothing of statbench.  Copy
 * it beside whichever of them you take.
 */
#ifndef SB_EXAMPLE_WHOLE_NUMBER_H
#define SB_EXAMPLE_WHOLE_NUMBER_H

#include <errno.h>
#include <stdlib.h>

/* The whole number s in [lo, hi], or -1 (not a number, trailing
 * characters, out of range). */
static long whole_number(const char *s, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    return v;
}

#endif
