/*
 * copy_portable.c: copies written in C, built on every architecture: the
 * integer streams (duff, int64), the fused checksum-and-copy (csum_copy),
 * and the C library's own memcpy and memmove.
 *
 * The integer kernels pass every value through SB__OPAQUE (kernels.h), so
 * that the compiler emits the loads and stores as written: no vector
 * registers, no call to memcpy, no two moves merged into one.
 * tests/codegen.sh checks this in the built library.
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

/* One 64-bit move at byte offset off, the same way.  On a 32-bit target
 * the compiler splits it into two 32-bit moves. */
#define SB__MOVQ(d, s, off)                         \
    do {                                            \
        uint64_t sb__v;                             \
        __builtin_memcpy(&sb__v, (s) + (off), 8);   \
        SB__OPAQUE(sb__v);                          \
        SB__CHECK_STORE((d) + (off), 8);            \
        __builtin_memcpy((d) + (off), &sb__v, 8);   \
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

/* 64-bit integer moves, the destination aligned first: byte moves up to
 * the next multiple of 8 at the destination, then 8 qwords per loop, the
 * 0-7 remaining qwords through a Duff's-device switch, and the 0-7 byte
 * tail.  Only the destination is aligned; the source keeps whatever
 * misalignment the caller gave it, so the stores never split a cache line
 * and the loads may.  On a 32-bit target each 64-bit move is two 32-bit
 * ones.  Generated code (tests/codegen.sh's checks, gcc 12.2 and clang
 * 14.0 on x86-64 at -O0, -O1, -O2, -Os, -O3 -march=native -funroll-loops,
 * -O2 -ffreestanding, -O2 -flto): pairs "mov off(%src),%r..; mov
 * %r..,off(%dst)" of 64-bit registers (8 + 7 at -O2, more where the
 * compiler unrolls), no vector register, no call. */
void sb__copy_int64(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = sb__head(d, 8, n), words;
    (void)state;

    n -= head;
    for (; head; --head, ++d, ++s)
        SB__MOVB(d, s, 0);
    words = n >> 3;
    for (; words >= 8; words -= 8, d += 64, s += 64) {
        SB__MOVQ(d, s, 0);
        SB__MOVQ(d, s, 8);
        SB__MOVQ(d, s, 16);
        SB__MOVQ(d, s, 24);
        SB__MOVQ(d, s, 32);
        SB__MOVQ(d, s, 40);
        SB__MOVQ(d, s, 48);
        SB__MOVQ(d, s, 56);
    }
    switch (words) {
    case 7:
        SB__MOVQ(d, s, 48);
        SB__FALLTHROUGH;
    case 6:
        SB__MOVQ(d, s, 40);
        SB__FALLTHROUGH;
    case 5:
        SB__MOVQ(d, s, 32);
        SB__FALLTHROUGH;
    case 4:
        SB__MOVQ(d, s, 24);
        SB__FALLTHROUGH;
    case 3:
        SB__MOVQ(d, s, 16);
        SB__FALLTHROUGH;
    case 2:
        SB__MOVQ(d, s, 8);
        SB__FALLTHROUGH;
    case 1:
        SB__MOVQ(d, s, 0);
        SB__FALLTHROUGH;
    case 0:
        break;
    }
    d += words * 8;
    s += words * 8;
    switch (n & 7) {
    case 7:
        SB__MOVB(d, s, 6);
        SB__FALLTHROUGH;
    case 6:
        SB__MOVB(d, s, 5);
        SB__FALLTHROUGH;
    case 5:
        SB__MOVB(d, s, 4);
        SB__FALLTHROUGH;
    case 4:
        SB__MOVB(d, s, 3);
        SB__FALLTHROUGH;
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

/* memmove, called the same way as memcpy above: what a copy costs when the
 * caller cannot promise that the buffers do not overlap (they never do
 * here, so glibc takes its forward path). */
static void *(*volatile sb__memmove)(void *, const void *, size_t) = memmove;

void sb__copy_memmove(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    sb__memmove(dst, src, n);
}

/* Add the 64-bit word w to the one's-complement sum: the carry out of bit
 * 63 comes back in at bit 0 (end-around carry), so sum stays congruent to
 * the sum of all words modulo 2^64 - 1.  As 2^64 - 1 is a multiple of
 * 2^16 - 1 and 2^16 is 1 modulo 2^16 - 1, this is also the 16-bit
 * one's-complement sum of the four 16-bit pieces of every word (RFC 1071,
 * section 2 (C), "parallel summation"), folded at the end.  On x86-64,
 * GCC and clang turn the overflow builtin into add and adc $0. */
#define SB__CSUM_ADD(sum, w)                           \
    do {                                               \
        if (__builtin_add_overflow((sum), (w), &(sum))) \
            ++(sum);                                   \
    } while (0)

/* One 8-byte move at off that also adds the word to sum.  The value is
 * loaded once, goes through the barrier, and is both stored and added:
 * the compiler can neither split the loop into a memcpy and a separate
 * summing loop nor vectorise it. */
#define SB__CSUM_MOVQ(sum, d, s, off)               \
    do {                                            \
        uint64_t sb__w;                             \
        __builtin_memcpy(&sb__w, (s) + (off), 8);   \
        SB__OPAQUE(sb__w);                          \
        __builtin_memcpy((d) + (off), &sb__w, 8);   \
        SB__CSUM_ADD(sum, sb__w);                   \
    } while (0)

/* The checksum while copying, the way the kernels' csum_partial_copy
 * routines do it: 64-bit words summed in the CPU's byte order, 32 bytes
 * a loop into two sums, then the 0-3 remaining words, then a 4-, 2- and
 * 1-byte tail (each at an even offset from the start, so its 16-bit words
 * line up with the data's).  Neither pointer is aligned first.
 * RFC 1071 section 2 (B): the one's-complement sum is independent of
 * byte order; a sum of byte-swapped words is the byte-swapped sum.  So on
 * a little-endian CPU the folded sum is swapped once at the end to give
 * the big-endian value the header stores, and a lone last byte, the high
 * byte of its big-endian word, is the low byte of the CPU's word. */
static inline __attribute__((always_inline)) uint16_t
sb__csum_copy_inline(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    uint64_t sum = 0, sum2 = 0;

    /* Two sums, so that the add-with-carry chains of alternate words run
     * side by side, joined (with end-around carry) after the loop. */
    for (; n >= 32; n -= 32, d += 32, s += 32) {
        SB__CSUM_MOVQ(sum, d, s, 0);
        SB__CSUM_MOVQ(sum2, d, s, 8);
        SB__CSUM_MOVQ(sum, d, s, 16);
        SB__CSUM_MOVQ(sum2, d, s, 24);
    }
    SB__CSUM_ADD(sum, sum2);
    for (; n >= 8; n -= 8, d += 8, s += 8)
        SB__CSUM_MOVQ(sum, d, s, 0);
    if (n & 4) {
        uint32_t w;
        __builtin_memcpy(&w, s, 4);
        SB__OPAQUE(w);
        __builtin_memcpy(d, &w, 4);
        SB__CSUM_ADD(sum, (uint64_t)w);
        d += 4;
        s += 4;
    }
    if (n & 2) {
        uint16_t w;
        __builtin_memcpy(&w, s, 2);
        SB__OPAQUE(w);
        __builtin_memcpy(d, &w, 2);
        SB__CSUM_ADD(sum, (uint64_t)w);
        d += 2;
        s += 2;
    }
    if (n & 1) {
        unsigned char b = *s;
        SB__OPAQUE(b);
        *d = b;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        SB__CSUM_ADD(sum, (uint64_t)b << 8);
#else
        SB__CSUM_ADD(sum, (uint64_t)b);
#endif
    }
    /* Fold 64 bits to 16 with end-around carries.  The result is 0 only
     * when every byte was 0, as with a 16-bit one's-complement adder. */
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    sum = ((sum & 0xff) << 8) | (sum >> 8);
#endif
    return (uint16_t)~sum;
}

uint16_t sb__csum_copy(void *dst, const void *src, size_t n)
{
    return sb__csum_copy_inline(dst, src, n);
}

/* The checksum kernel: the loop itself (inlined, not a call), the result
 * stored to a volatile so that the compiler must compute it even though
 * nobody reads it. */
void sb__copy_csum(void *dst, const void *src, size_t n, void *state)
{
    volatile uint16_t sink;
    (void)state;
    sink = sb__csum_copy_inline(dst, src, n);
    (void)sink;
}
