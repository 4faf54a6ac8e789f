/*
 * ab_kernel.c: the kernel bench/ab.sh loads from shared objects, one
 * source for every build it compares:
 *   EXTRA_PCT  0 (default): a plain copy of n bytes; P: the same copy,
 *              then the first P% of the bytes (rounded to the nearest
 *              byte) copied again by the same loop, so that the build does
 *              P% more of the same work (a slowdown of about P% injected
 *              on purpose, which the comparison should find)
 * No statbench header: a loaded kernel needs none, only the shape
 * void ab_copy(void *dst, const void *src, size_t n, void *state).
 */
#include <stddef.h>

#ifndef EXTRA_PCT
#define EXTRA_PCT 0
#endif

/* Declared, as the warnings want a prototype for an export. */
void ab_copy(void *dst, const void *src, size_t n, void *state);

/* A byte loop through a volatile pointer: the compiler can neither turn
 * it into memcpy nor vectorise it, so the time is proportional to the
 * bytes copied and EXTRA_PCT more bytes cost EXTRA_PCT more time. */
static void copy_bytes(volatile unsigned char *d, const unsigned char *s,
                       size_t n)
{
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
}

void ab_copy(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    copy_bytes(dst, src, n);
#if EXTRA_PCT > 0
    /* Copying bytes again leaves dst equal to src: the byte check that
     * runs before measuring passes both builds alike. */
    copy_bytes(dst, src, (n * EXTRA_PCT + 50) / 100);
#endif
}
