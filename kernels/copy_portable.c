/*
 * copy_portable.c: copies written in C, built on every architecture.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* One 32-bit move at byte offset off.  memcpy of 4 bytes to and from a
 * uint32_t is how C spells an unaligned 32-bit load or store without
 * undefined behaviour; compilers emit a single mov for it.  The builtin is
 * named outright so that a build with -fno-builtin or -ffreestanding
 * (which make a plain memcpy a real call) still gets a single mov. */
#define SB__MOVL(d, s, off)                         \
    do {                                            \
        uint32_t sb__v;                             \
        __builtin_memcpy(&sb__v, (s) + (off), 4);   \
        SB__OPAQUE(sb__v);                          \
        __builtin_memcpy((d) + (off), &sb__v, 4);   \
    } while (0)

#define SB__MOVB(d, s, off)                 \
    do {                                    \
        unsigned char sb__b = (s)[off];     \
        SB__OPAQUE(sb__b);                  \
        (d)[off] = sb__b;                   \
    } while (0)

/* A stream of 32-bit loads and stores (copy_duff in the threads): 8 per
 * loop, then the 0-7 remaining dwords through a Duff's-device switch
 * (highest first; at most 28 bytes), then the 0-3 byte tail.  Neither
 * pointer is aligned first: misalignment costs whatever the CPU charges
 * for it, which is what the alignment sweeps measure. */
void sb__copy_duff(void *dst, const void *src, size_t n, void *state)
{
    /* Generated code, checked with objdump -d, gcc 12.2 and clang 14.0 on
     * x86-64, at -O2 and also -O0, -O1, -O3, -Os, -O3 -march=native
     * (AVX-512), -O3 -march=x86-64-v4 -funroll-loops, -O2 -fno-builtin,
     * -O2 -ffreestanding, and gcc -O2 -flto in the linked test program:
     * the loop body is 8 pairs "mov off(%src),%e..; mov %e..,off(%dst)"
     * (32-bit registers only), the remainder a jump table into 7 such
     * pairs, the tail byte moves (movzbl, mov %al); no xmm, ymm or zmm
     * register, no rep movs, no call (so no memcpy), no 64-bit load or
     * store.  clang -O2 for aarch64, armv7a, ppc64le and i686: 32-bit
     * loads and stores (ldr/str w, ldr/str, lwz/stw, movl), no call.
     * riscv64 (clang's default there assumes slow misaligned access)
     * splits each 32-bit move into byte loads and stores: a property of
     * that target.  Check again whenever this function changes. */
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t words = n >> 2;
    (void)state;

    for (; words >= 8; words -= 8, d += 32, s += 32) {
        SB__MOVL(d, s, 0);
        SB__MOVL(d, s, 4);
        SB__MOVL(d, s, 8);
        SB__MOVL(d, s, 12);
        SB__MOVL(d, s, 16);
        SB__MOVL(d, s, 20);
        SB__MOVL(d, s, 24);
        SB__MOVL(d, s, 28);
    }
    switch (words) {
    case 7:
        SB__MOVL(d, s, 24);
        SB__FALLTHROUGH;
    case 6:
        SB__MOVL(d, s, 20);
        SB__FALLTHROUGH;
    case 5:
        SB__MOVL(d, s, 16);
        SB__FALLTHROUGH;
    case 4:
        SB__MOVL(d, s, 12);
        SB__FALLTHROUGH;
    case 3:
        SB__MOVL(d, s, 8);
        SB__FALLTHROUGH;
    case 2:
        SB__MOVL(d, s, 4);
        SB__FALLTHROUGH;
    case 1:
        SB__MOVL(d, s, 0);
        SB__FALLTHROUGH;
    case 0:
        break;
    }
    d += words * 4;
    s += words * 4;
    switch (n & 3) {
    case 3:
        SB__MOVB(d, s, 2);
        SB__FALLTHROUGH;
    case 2:
        SB__MOVB(d, s, 1);
        SB__FALLTHROUGH;
    case 1:
        SB__MOVB(d, s, 0);
        SB__FALLTHROUGH;
    case 0:
        break;
    }
}

/* The C library's memcpy, called through a volatile pointer: the compiler
 * must load the pointer at every call, so it cannot inline memcpy, expand
 * it for a known size, or pick a variant for known alignments.  What runs
 * is exactly what a program calling memcpy with unknown arguments gets
 * (glibc: its ifunc choice for this CPU). */
static void *(*volatile sb__memcpy)(void *, const void *, size_t) = memcpy;

void sb__copy_libc(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    sb__memcpy(dst, src, n);
}
