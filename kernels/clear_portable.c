/*
 * clear_portable.c: clears written in C, built on every architecture: a
 * stream of 32-bit stores (clear_movl) and the C library's memset.  Both
 * ignore src.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* A stream of 32-bit stores of zero, the clear that goes with duff: 8 per
 * loop, then the 0-7 remaining dwords through a Duff's-device switch, then
 * the 0-3 byte tail.  The destination is not aligned first: misalignment
 * costs whatever the CPU charges for it.  Every zero comes out of its own
 * compiler barrier (sb__zero32 in kernels.h), so the compiler sees
 * neither a memset nor a constant it could store with wider or vector
 * stores; each store is a movl of a register.  tests/codegen.sh checks the
 * built library for 32-bit stores and no vector register or call. */
void sb__clear_movl(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t words = n >> 2;
    (void)src;
    (void)state;

    for (; words >= 8; words -= 8, d += 32) {
        sb__zero32(d);
        sb__zero32(d + 4);
        sb__zero32(d + 8);
        sb__zero32(d + 12);
        sb__zero32(d + 16);
        sb__zero32(d + 20);
        sb__zero32(d + 24);
        sb__zero32(d + 28);
    }
    switch (words) {
    case 7:
        sb__zero32(d + 24);
        SB__FALLTHROUGH;
    case 6:
        sb__zero32(d + 20);
        SB__FALLTHROUGH;
    case 5:
        sb__zero32(d + 16);
        SB__FALLTHROUGH;
    case 4:
        sb__zero32(d + 12);
        SB__FALLTHROUGH;
    case 3:
        sb__zero32(d + 8);
        SB__FALLTHROUGH;
    case 2:
        sb__zero32(d + 4);
        SB__FALLTHROUGH;
    case 1:
        sb__zero32(d);
        SB__FALLTHROUGH;
    case 0:
        break;
    }
    d += words * 4;
    switch (n & 3) {
    case 3:
        sb__zero8(d + 2);
        SB__FALLTHROUGH;
    case 2:
        sb__zero8(d + 1);
        SB__FALLTHROUGH;
    case 1:
        sb__zero8(d);
        SB__FALLTHROUGH;
    case 0:
        break;
    }
}

/* The C library's memset through a volatile pointer, for the reasons
 * sb__copy_libc gives for memcpy: no inlining, no expansion for a known
 * size; what runs is what a program calling memset with unknown arguments
 * gets (glibc: its ifunc choice for this CPU). */
static void *(*volatile sb__memset)(void *, int, size_t) = memset;

void sb__clear_memset(void *dst, const void *src, size_t n, void *state)
{
    (void)src;
    (void)state;
    sb__memset(dst, 0, n);
}
