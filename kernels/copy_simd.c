/*
 * copy_simd.c: copies through the SIMD register files, MMX to AVX-512
 * (built only on x86-64).
 *
 * Each function is compiled for its own instruction set with a target
 * attribute, so the file needs no -mavx flags and the rest of the library
 * stays baseline x86-64; registry.c names the CPU features each needs and
 * the runner never calls one this CPU lacks.
 *
 * The shape, common to all:
 *
 *   head  scalar moves (kernels.h, sb__copy_small) up to the alignment
 *         the body wants at the destination: the vector width for the
 *         cached kernels, a 64-byte cache line for the non-temporal ones,
 *         nothing for mmx;
 *   body  the SIMD loop: 64 bytes a loop for MMX (eight movq) and SSE2
 *         (four vectors), four vectors for AVX2 (128 bytes) and AVX-512
 *         (256 bytes); then single vectors, or whole lines for the
 *         non-temporal kernels.  The source keeps its misalignment, so
 *         the loads are unaligned ones;
 *   tail  the last bytes, fewer than one vector (fewer than a line for
 *         the non-temporal kernels), with scalar moves again.
 *
 * The non-temporal kernels store whole, aligned cache lines only: the
 * head and tail, which share a line with bytes outside the copy, take
 * ordinary stores, so a line is never written partly through the
 * write-combining buffers and partly through the cache.  Non-temporal
 * stores are weakly ordered: sfence makes them globally visible before
 * the function returns, as any caller of a copy expects.
 *
 * SIMD state is left clean for the caller: emms after MMX (the MMX
 * registers are the x87 stack; without emms every later x87 instruction
 * sees a full stack and computes NaN), vzeroupper after AVX and AVX-512
 * (dirty upper halves make later SSE code pay a state transition or a
 * false dependency).  tests/test_kernels.c checks both.
 *
 * MMX is written in inline asm: GCC 10 and later implement the MMX
 * intrinsics with SSE registers on x86-64 where they can, so intrinsics
 * would not reliably give the movq and movntq through mm registers these
 * kernels are meant to measure.  Each asm is self-contained (it loads
 * what it stores and names every mm register it uses as clobbered);
 * none relies on a register keeping its value between two asm
 * statements.  SSE2, AVX2 and
 * AVX-512 name their loads and stores too (SB__VLOAD and SB__VSTORE in
 * kernels.h), for the same reason: with intrinsics, clang turns movntdq
 * into movntps and vmovdqa into vmovaps.  The compiler still writes the
 * loops and allocates the registers.  Intrinsics remain for vzeroupper
 * and for the zero vectors of the clears.
 */
#include "config.h"

#include <immintrin.h>
#include <stdint.h>

#include "kernels.h"

#define SB__MMX_CLOBBERS \
    "mm0", "mm1", "mm2", "mm3", "mm4", "mm5", "mm6", "mm7"

/* ------------------------------------------------------------------------ */
/* MMX                                                                       */
/* ------------------------------------------------------------------------ */

/* movq through mm0-mm7, 64 bytes a loop: eight loads, then eight stores,
 * like the Athlon fast_copy_page of the threads (which also prefetched;
 * mmx_nt does).  MMX has no alignment requirement and, like the kernel's
 * _mmx_memcpy, this aligns neither pointer: the alignment sweep shows what
 * split loads and stores cost.  Then one movq per remaining qword and a
 * scalar tail of 0-7 bytes. */
__attribute__((target("mmx")))
void sb__copy_mmx(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    for (; n >= 64; n -= 64, d += 64, s += 64)
        __asm__ volatile("movq    (%1), %%mm0\n\t"
                         "movq   8(%1), %%mm1\n\t"
                         "movq  16(%1), %%mm2\n\t"
                         "movq  24(%1), %%mm3\n\t"
                         "movq  32(%1), %%mm4\n\t"
                         "movq  40(%1), %%mm5\n\t"
                         "movq  48(%1), %%mm6\n\t"
                         "movq  56(%1), %%mm7\n\t"
                         "movq  %%mm0,   (%0)\n\t"
                         "movq  %%mm1,  8(%0)\n\t"
                         "movq  %%mm2, 16(%0)\n\t"
                         "movq  %%mm3, 24(%0)\n\t"
                         "movq  %%mm4, 32(%0)\n\t"
                         "movq  %%mm5, 40(%0)\n\t"
                         "movq  %%mm6, 48(%0)\n\t"
                         "movq  %%mm7, 56(%0)"
                         :
                         : "r"(d), "r"(s)
                         : "memory", SB__MMX_CLOBBERS);
    for (; n >= 8; n -= 8, d += 8, s += 8)
        __asm__ volatile("movq (%1), %%mm0\n\t"
                         "movq %%mm0, (%0)"
                         :
                         : "r"(d), "r"(s)
                         : "memory", "mm0");
    sb__copy_small(d, s, n);
    __asm__ volatile("emms" ::: "memory");
}

/* movq loads and movntq stores, 64 bytes (one cache line) a loop, with
 * prefetchnta 320 bytes (five lines) ahead of the loads: the Athlon
 * faster_copy of the threads.  The destination is aligned to 64 first so
 * that each loop fills exactly one line.  A prefetch past the end of the
 * source is harmless: prefetches never fault.  movntq, prefetchnta and
 * sfence are SSE (or AMD's MMX extensions), hence the "sse" target. */
__attribute__((target("mmx,sse")))
void sb__copy_mmx_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = sb__head(d, 64, n);
    (void)state;

    sb__copy_small(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        SB__CHECK_STORE(d, 64); /* the eight movntq: one line */
        __asm__ volatile("prefetchnta 320(%1)\n\t"
                         "movq    (%1), %%mm0\n\t"
                         "movq   8(%1), %%mm1\n\t"
                         "movq  16(%1), %%mm2\n\t"
                         "movq  24(%1), %%mm3\n\t"
                         "movq  32(%1), %%mm4\n\t"
                         "movq  40(%1), %%mm5\n\t"
                         "movq  48(%1), %%mm6\n\t"
                         "movq  56(%1), %%mm7\n\t"
                         "movntq %%mm0,   (%0)\n\t"
                         "movntq %%mm1,  8(%0)\n\t"
                         "movntq %%mm2, 16(%0)\n\t"
                         "movntq %%mm3, 24(%0)\n\t"
                         "movntq %%mm4, 32(%0)\n\t"
                         "movntq %%mm5, 40(%0)\n\t"
                         "movntq %%mm6, 48(%0)\n\t"
                         "movntq %%mm7, 56(%0)"
                         :
                         : "r"(d), "r"(s)
                         : "memory", SB__MMX_CLOBBERS);
    }
    sb__copy_small(d, s, n);
    __asm__ volatile("sfence\n\t"
                     "emms" ::: "memory");
}

/* ------------------------------------------------------------------------ */
/* SSE2, AVX2, AVX-512                                                       */
/* ------------------------------------------------------------------------ */

/* The body of a cached copy: four vectors of W bytes a loop, loaded with
 * LD, stored with ST at the aligned destination, then one vector at a
 * time while one is left.  T is the vector type. */
#define SB__BODY_CACHED(T, W, LD, ST)                                      \
    do {                                                                  \
        for (; n >= 4 * (W); n -= 4 * (W), d += 4 * (W), s += 4 * (W)) {   \
            T a, b, c, e;                                                 \
            SB__VLOAD(LD, W, a, s);                                       \
            SB__VLOAD(LD, W, b, s + (W));                                 \
            SB__VLOAD(LD, W, c, s + 2 * (W));                             \
            SB__VLOAD(LD, W, e, s + 3 * (W));                             \
            SB__VSTORE(ST, W, d, a);                                      \
            SB__VSTORE(ST, W, d + (W), b);                                \
            SB__VSTORE(ST, W, d + 2 * (W), c);                            \
            SB__VSTORE(ST, W, d + 3 * (W), e);                            \
        }                                                                 \
        for (; n >= (W); n -= (W), d += (W), s += (W)) {                  \
            T a;                                                          \
            SB__VLOAD(LD, W, a, s);                                       \
            SB__VSTORE(ST, W, d, a);                                      \
        }                                                                 \
    } while (0)

/* The body of a non-temporal copy, the destination aligned to 64: four
 * vectors of W bytes a loop (64 bytes for SSE2, 128 for AVX2, 256 for
 * AVX-512), then whole 64-byte lines while one is left (64 / W vectors
 * each), stored with NT. */
#define SB__BODY_NT(T, W, LD, NT)                                          \
    do {                                                                  \
        for (; n >= 4 * (W); n -= 4 * (W), d += 4 * (W), s += 4 * (W)) {   \
            T a, b, c, e;                                                 \
            SB__VLOAD(LD, W, a, s);                                       \
            SB__VLOAD(LD, W, b, s + (W));                                 \
            SB__VLOAD(LD, W, c, s + 2 * (W));                             \
            SB__VLOAD(LD, W, e, s + 3 * (W));                             \
            SB__VSTORE(NT, W, d, a);                                      \
            SB__VSTORE(NT, W, d + (W), b);                                \
            SB__VSTORE(NT, W, d + 2 * (W), c);                            \
            SB__VSTORE(NT, W, d + 3 * (W), e);                            \
        }                                                                 \
        for (; n >= 64; n -= 64) {                                        \
            size_t i;                                                     \
            for (i = 0; i < 64 / (W); ++i, d += (W), s += (W)) {          \
                T a;                                                      \
                SB__VLOAD(LD, W, a, s);                                   \
                SB__VSTORE(NT, W, d, a);                                  \
            }                                                             \
        }                                                                 \
    } while (0)

/* The head: scalar moves up to alignment A at the destination. */
#define SB__HEAD(A)                                                        \
    do {                                                                  \
        size_t sb__h = sb__head(d, (A), n);                               \
        sb__copy_small(d, s, sb__h);                                      \
        d += sb__h;                                                       \
        s += sb__h;                                                       \
        n -= sb__h;                                                       \
    } while (0)

/* movdqu loads, movdqa stores after aligning the destination to 16, four
 * vectors (64 bytes) a loop. */
__attribute__((target("sse2")))
void sb__copy_sse2(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(16);
    SB__BODY_CACHED(__m128i, 16, "movdqu", "movdqa");
    sb__copy_small(d, s, n);
}

/* movdqu loads, movntdq stores of whole lines (destination aligned to 64),
 * 64 bytes a loop, sfence: movntq's SSE2 successor. */
__attribute__((target("sse2")))
void sb__copy_sse2_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(64);
    SB__BODY_NT(__m128i, 16, "movdqu", "movntdq");
    sb__copy_small(d, s, n);
    __asm__ volatile("sfence" ::: "memory");
}

/* 32-byte vmovdqu loads, vmovdqa stores after aligning the destination to
 * 32, four vectors (128 bytes) a loop, vzeroupper.  (Moves of ymm are
 * AVX instructions; the registry, which has no AVX bit, gates the kernel on
 * AVX2, a superset, and the target attribute matches.) */
__attribute__((target("avx2")))
void sb__copy_avx2(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(32);
    SB__BODY_CACHED(__m256i, 32, "vmovdqu", "vmovdqa");
    sb__copy_small(d, s, n);
    _mm256_zeroupper();
}

/* 32-byte loads, vmovntdq stores of whole lines (destination aligned to
 * 64), 128 bytes a loop, then one line if 64-127 bytes are left, sfence,
 * vzeroupper. */
__attribute__((target("avx2")))
void sb__copy_avx2_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(64);
    SB__BODY_NT(__m256i, 32, "vmovdqu", "vmovntdq");
    sb__copy_small(d, s, n);
    __asm__ volatile("sfence" ::: "memory");
    _mm256_zeroupper();
}

/* 64-byte vmovdqu64 loads, vmovdqa64 stores after aligning the destination
 * to 64 (so every store is exactly one line), four vectors (256 bytes) a
 * loop, vzeroupper.  AVX-512F instructions only. */
__attribute__((target("avx512f")))
void sb__copy_avx512(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(64);
    SB__BODY_CACHED(__m512i, 64, "vmovdqu64", "vmovdqa64");
    sb__copy_small(d, s, n);
    _mm256_zeroupper();
}

/* vmovdqu64 loads, vmovntdq zmm stores (one store, one line), 256 bytes a
 * loop, then one line at a time, sfence, vzeroupper. */
__attribute__((target("avx512f")))
void sb__copy_avx512_nt(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;

    SB__HEAD(64);
    SB__BODY_NT(__m512i, 64, "vmovdqu64", "vmovntdq");
    sb__copy_small(d, s, n);
    __asm__ volatile("sfence" ::: "memory");
    _mm256_zeroupper();
}
