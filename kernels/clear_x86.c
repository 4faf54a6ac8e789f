/*
 * clear_x86.c: clears by the x86 string stores and through the SIMD
 * register files (built only on x86-64).  Every function sets n bytes at
 * dst to zero and ignores src.
 *
 * rep stos{b,l,q} stores al/eax/rax to rcx elements at [rdi], advancing
 * rdi; the direction flag is clear on entry (SysV ABI).  The asm operands
 * follow copy_x86.c: rdi and rcx read-write, the value an input, "memory"
 * clobbered.
 *
 * The SIMD clears have the shape of the SIMD copies (copy_simd.c, whose
 * header comment explains the head, body and tail, the whole-line rule of
 * the non-temporal kernels, sfence, emms, vzeroupper and the asm for
 * MMX): scalar zero stores up to the alignment the body wants, the
 * vector stores, scalar zero stores for the tail.
 */
#include "config.h"

#include <immintrin.h>
#include <stdint.h>

#include "kernels.h"

/* ------------------------------------------------------------------------ */
/* rep stos                                                                  */
/* ------------------------------------------------------------------------ */

/* rep stosb of all n bytes (fast with ERMS). */
void sb__clear_stosb(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    (void)src;
    (void)state;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
}

/* rep stosl of n / 4 dwords, then rep stosb of the n % 4 tail: the i386
 * clear_page and memset of the threads' time. */
void sb__clear_stosl(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t words = n >> 2, tail = n & 3;
    (void)src;
    (void)state;
    __asm__ volatile("rep stosl" : "+D"(d), "+c"(words) : "a"(0u) : "memory");
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(tail) : "a"(0u) : "memory");
}

/* rep stosq of n / 8 qwords, then rep stosb of the n % 8 tail (x86-64
 * clear_page_rep).  The zero is a 64-bit operand so that all of rax is
 * set, not only eax. */
void sb__clear_stosq(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t words = n >> 3, tail = n & 7;
    (void)src;
    (void)state;
    __asm__ volatile("rep stosq"
                     : "+D"(d), "+c"(words)
                     : "a"((uint64_t)0)
                     : "memory");
    __asm__ volatile("rep stosb"
                     : "+D"(d), "+c"(tail)
                     : "a"((uint64_t)0)
                     : "memory");
}

/* ------------------------------------------------------------------------ */
/* MMX                                                                       */
/* ------------------------------------------------------------------------ */

/* movq of a zeroed mm0, 64 bytes a loop, no alignment (the Athlon
 * fast_clear_page of the threads), then one movq per remaining qword, a
 * scalar tail of 0-7 bytes, emms.  Each asm zeroes mm0 itself (pxor, one
 * per 64 bytes) rather than trusting mm0 to survive between asm
 * statements. */
__attribute__((target("mmx")))
void sb__clear_mmx(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    (void)src;
    (void)state;

    for (; n >= 64; n -= 64, d += 64)
        __asm__ volatile("pxor  %%mm0, %%mm0\n\t"
                         "movq  %%mm0,   (%0)\n\t"
                         "movq  %%mm0,  8(%0)\n\t"
                         "movq  %%mm0, 16(%0)\n\t"
                         "movq  %%mm0, 24(%0)\n\t"
                         "movq  %%mm0, 32(%0)\n\t"
                         "movq  %%mm0, 40(%0)\n\t"
                         "movq  %%mm0, 48(%0)\n\t"
                         "movq  %%mm0, 56(%0)"
                         :
                         : "r"(d)
                         : "memory", "mm0");
    for (; n >= 8; n -= 8, d += 8)
        __asm__ volatile("pxor  %%mm0, %%mm0\n\t"
                         "movq  %%mm0, (%0)"
                         :
                         : "r"(d)
                         : "memory", "mm0");
    sb__zero_small(d, n);
    __asm__ volatile("emms" ::: "memory");
}

/* movntq of a zeroed mm0 to whole lines (destination aligned to 64), 64
 * bytes a loop, sfence, emms: the Athlon faster_clear_page of the
 * threads (2574 cycles a page against 7221 for normal_clear_page on a
 * Duron/600). */
__attribute__((target("mmx,sse")))
void sb__clear_mmx_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t head = sb__head(d, 64, n);
    (void)src;
    (void)state;

    sb__zero_small(d, head);
    d += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64) {
        SB__CHECK_STORE(d, 64); /* the eight movntq: one line */
        __asm__ volatile("pxor   %%mm0, %%mm0\n\t"
                         "movntq %%mm0,   (%0)\n\t"
                         "movntq %%mm0,  8(%0)\n\t"
                         "movntq %%mm0, 16(%0)\n\t"
                         "movntq %%mm0, 24(%0)\n\t"
                         "movntq %%mm0, 32(%0)\n\t"
                         "movntq %%mm0, 40(%0)\n\t"
                         "movntq %%mm0, 48(%0)\n\t"
                         "movntq %%mm0, 56(%0)"
                         :
                         : "r"(d)
                         : "memory", "mm0");
    }
    sb__zero_small(d, n);
    __asm__ volatile("sfence\n\t"
                     "emms" ::: "memory");
}

/* ------------------------------------------------------------------------ */
/* SSE2, AVX2, AVX-512                                                       */
/* ------------------------------------------------------------------------ */

/* The body of a SIMD clear: four stores of the W-byte zero vector z by ST
 * a loop, then one at a time while W bytes are left. */
#define SB__CLEAR_BODY(W, ST)                                              \
    do {                                                                  \
        for (; n >= 4 * (W); n -= 4 * (W), d += 4 * (W)) {                 \
            SB__VSTORE(ST, W, d, z);                                      \
            SB__VSTORE(ST, W, d + (W), z);                                \
            SB__VSTORE(ST, W, d + 2 * (W), z);                            \
            SB__VSTORE(ST, W, d + 3 * (W), z);                            \
        }                                                                 \
        for (; n >= (W); n -= (W), d += (W))                              \
            SB__VSTORE(ST, W, d, z);                                      \
    } while (0)

/* movntdq of a zeroed xmm to whole lines (destination aligned to 64), 64
 * bytes a loop, sfence.  Only whole lines: the 16-64 bytes left after the
 * last one share a line with bytes outside the clear and take the scalar
 * tail, as in the copies (a single-vector loop here would write a line
 * partly through the non-temporal path). */
__attribute__((target("sse2")))
void sb__clear_sse2_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t head = sb__head(d, 64, n);
    __m128i z = _mm_setzero_si128();
    (void)src;
    (void)state;

    sb__zero_small(d, head);
    d += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64) {
        SB__VSTORE("movntdq", 16, d, z);
        SB__VSTORE("movntdq", 16, d + 16, z);
        SB__VSTORE("movntdq", 16, d + 32, z);
        SB__VSTORE("movntdq", 16, d + 48, z);
    }
    sb__zero_small(d, n);
    __asm__ volatile("sfence" ::: "memory");
}

/* 32-byte vmovdqa stores of a zeroed ymm after aligning the destination to
 * 32, four (128 bytes) a loop, vzeroupper.  (vmovdqa of a ymm is AVX; the
 * kernel is gated on AVX2 like the avx2 copy.) */
__attribute__((target("avx2")))
void sb__clear_avx2(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t head = sb__head(d, 32, n);
    __m256i z = _mm256_setzero_si256();
    (void)src;
    (void)state;

    sb__zero_small(d, head);
    d += head;
    n -= head;
    SB__CLEAR_BODY(32, "vmovdqa");
    sb__zero_small(d, n);
    _mm256_zeroupper();
}

/* 64-byte vmovdqa64 stores of a zeroed zmm after aligning the destination
 * to 64 (one store, one line), four (256 bytes) a loop, vzeroupper. */
__attribute__((target("avx512f")))
void sb__clear_avx512(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    size_t head = sb__head(d, 64, n);
    __m512i z = _mm512_setzero_si512();
    (void)src;
    (void)state;

    sb__zero_small(d, head);
    d += head;
    n -= head;
    SB__CLEAR_BODY(64, "vmovdqa64");
    sb__zero_small(d, n);
    _mm256_zeroupper();
}
