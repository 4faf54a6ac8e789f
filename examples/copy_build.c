/*
 * copy_build.c: a kernel as a library under test exports it, built twice
 * by examples/cmake, as the last release and the build under test would
 * be: the same symbol, copy_bytes, in two shared objects, which
 * ref_gate.c loads side by side.  COPY_REPEAT (1 by default) is the work
 * one call does; the CMake example's "slow" build sets 3, a slowdown no
 * host's noise hides.  A kernel needs no statbench header, only the
 * shape of sb_kernel_fn.
 */
#include <stddef.h>

#ifndef COPY_REPEAT
#define COPY_REPEAT 1
#endif

void copy_bytes(void *dst, const void *src, size_t n, void *state);

/* A byte loop through a volatile pointer, so that no compiler turns it
 * into memcpy or vector moves: the work stays what COPY_REPEAT says. */
void copy_bytes(void *dst, const void *src, size_t n, void *state)
{
    volatile unsigned char *d = dst;
    const unsigned char *s = src;

    (void)state;
    for (int r = 0; r < COPY_REPEAT; r++)
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
}
