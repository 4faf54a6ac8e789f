/*
 * mem.c: the two shapes of memory handling every part repeats, once: an
 * array grown by doubling as it is appended to, and a struct's arrays
 * freed together (sb_internal.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "sb_internal.h"

void *sb__grow(void *p, size_t *cap, size_t size, size_t first)
{
    size_t ncap = *cap ? 2 * *cap : first;
    void *t;

    if (ncap < *cap || ncap > SIZE_MAX / size)
        return p;
    t = realloc(p, ncap * size);
    if (!t)
        return p;
    *cap = ncap;
    return t;
}

void sb__free_each(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
}
