/*
 * kernels.h: the built-in kernels, private to libstatbench.
 *
 * Each kernel file defines its sb_kernel_fn functions; registry.c lists
 * them.  Kernels know nothing of timing or statistics.  Every kernel must
 * produce exactly the bytes its family promises (memcpy's or memset's
 * result) for every size, including 0, and every alignment.  A clear
 * kernel ignores src.
 *
 * The second half of this header holds the small building blocks the
 * kernel files share: the compiler barrier that keeps the integer kernels
 * scalar, and the scalar head and tail moves of the SIMD kernels.
 */
#ifndef SB_KERNELS_H
#define SB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "statbench.h"

/* kernels/copy_portable.c: copies in C, built everywhere. */
void sb__copy_duff(void *dst, const void *src, size_t n, void *state);
void sb__copy_libc(void *dst, const void *src, size_t n, void *state);
void sb__copy_int64(void *dst, const void *src, size_t n, void *state);
void sb__copy_memmove(void *dst, const void *src, size_t n, void *state);
void sb__copy_csum(void *dst, const void *src, size_t n, void *state);

/* Copy n bytes from src to dst (which do not overlap) and return the
 * Internet checksum of them (RFC 1071): the one's complement of the
 * 16-bit one's-complement sum of the bytes taken as big-endian 16-bit
 * words, an odd last byte padded with a zero byte.  The value is the
 * number a protocol header stores in network byte order: for the RFC's
 * example bytes 00 01 f2 03 f4 f5 f6 f7 it is 0x220d (sum 0xddf2); for
 * n == 0 it is 0xffff. */
uint16_t sb__csum_copy(void *dst, const void *src, size_t n);

/* kernels/clear_portable.c: clears in C, built everywhere. */
void sb__clear_movl(void *dst, const void *src, size_t n, void *state);
void sb__clear_memset(void *dst, const void *src, size_t n, void *state);

#ifdef SB_HAVE_X86_64
/* kernels/copy_x86.c: rep string moves. */
void sb__copy_movsb(void *dst, const void *src, size_t n, void *state);
void sb__copy_movsl(void *dst, const void *src, size_t n, void *state);
void sb__copy_movsq(void *dst, const void *src, size_t n, void *state);

/* kernels/copy_simd.c: MMX, SSE2, AVX2 and AVX-512 copies, each compiled
 * for its own instruction set (target attribute); call one only when
 * sb_cpu_features() has the features its registry row names. */
void sb__copy_mmx(void *dst, const void *src, size_t n, void *state);
void sb__copy_mmx_nt(void *dst, const void *src, size_t n, void *state);
void sb__copy_sse2(void *dst, const void *src, size_t n, void *state);
void sb__copy_sse2_nt(void *dst, const void *src, size_t n, void *state);
void sb__copy_avx2(void *dst, const void *src, size_t n, void *state);
void sb__copy_avx2_nt(void *dst, const void *src, size_t n, void *state);
void sb__copy_avx512(void *dst, const void *src, size_t n, void *state);
void sb__copy_avx512_nt(void *dst, const void *src, size_t n, void *state);

/* kernels/clear_x86.c: rep stos and SIMD clears. */
void sb__clear_stosb(void *dst, const void *src, size_t n, void *state);
void sb__clear_stosl(void *dst, const void *src, size_t n, void *state);
void sb__clear_stosq(void *dst, const void *src, size_t n, void *state);
void sb__clear_mmx(void *dst, const void *src, size_t n, void *state);
void sb__clear_mmx_nt(void *dst, const void *src, size_t n, void *state);
void sb__clear_sse2_nt(void *dst, const void *src, size_t n, void *state);
void sb__clear_avx2(void *dst, const void *src, size_t n, void *state);
void sb__clear_avx512(void *dst, const void *src, size_t n, void *state);
#endif

#ifdef SB_HAVE_AARCH64
/* kernels/copy_aarch64.c: ldp/stp, NEON and stnp copies; call
 * sb__copy_neon only when sb_cpu_features() has SB_FEAT_ASIMD. */
void sb__copy_ldp_stp(void *dst, const void *src, size_t n, void *state);
void sb__copy_neon(void *dst, const void *src, size_t n, void *state);
void sb__copy_stnp(void *dst, const void *src, size_t n, void *state);

/* kernels/clear_aarch64.c: the dc zva clear and its available() hook,
 * which reads DCZID_EL0 (sb__zva_block below). */
void sb__clear_dc_zva(void *dst, const void *src, size_t n, void *state);
int sb__clear_dc_zva_available(const char **why);
#endif

/* The bytes one dc zva zeroes, from the value of DCZID_EL0: 4 << BS, BS
 * its bits 3:0 (log2 of the block in 4-byte words), or 0 when its DZP
 * bit (bit 4) prohibits the instruction (it is then undefined at EL0: a
 * SIGILL).  Plain arithmetic, so that tests/test_kernels.c checks it on
 * every architecture. */
static inline size_t sb__zva_block(uint64_t dczid)
{
    if (dczid & (1u << 4))
        return 0;
    return (size_t)4 << (dczid & 0xf);
}

/* ------------------------------------------------------------------------ */
/* Building blocks for the kernel files                                      */
/* ------------------------------------------------------------------------ */

/* The checking build: tests/test_kstores compiles the kernel files again
 * with -DSB_KERNEL_CHECK, and then each store of a kernel's main loop
 * (the qword moves of int64, the vector and line stores of the SIMD
 * copies and clears) first reports its address and width to
 * sb__check_store, which only that test defines.  It asserts what each
 * kernel's description promises and the copied bytes cannot show: which
 * pointer is aligned, and that non-temporal stores fill whole 64-byte
 * lines.  Without the
 * define the hook is nothing, and the library's kernels are the same
 * code (tests/codegen.sh checks them). */
#ifdef SB_KERNEL_CHECK
void sb__check_store(const void *p, size_t bytes);
#define SB__CHECK_STORE(p, bytes) sb__check_store((p), (bytes))
#else
#define SB__CHECK_STORE(p, bytes) ((void)0)
#endif

/* Make the compiler forget what it knows about v: v must be in a register
 * at this point, and may have changed.  The asm emits no instruction, but
 * the compiler can no longer see a copy or clear loop through it, so it
 * can neither vectorise the loop nor replace it with a call to memcpy or
 * memset (idiom recognition); nor can it merge two narrow moves into one
 * wide move, since the values come out of the asm one at a time.
 * "volatile" keeps each asm, and so each load and store, where it is
 * written.  tests/codegen.sh checks the result in the built library. */
#define SB__OPAQUE(v) __asm__ volatile("" : "+r"(v))

#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define SB__FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef SB__FALLTHROUGH
#define SB__FALLTHROUGH ((void)0)
#endif

/* The helpers below are always inlined, even at -O0: a kernel is the code
 * in its own function, without calls (tests/codegen.sh checks). */
#define SB__INLINE __attribute__((always_inline))

/* One scalar move of 8, 4, 2 or 1 bytes from s to d, neither aligned.
 * memcpy of a fixed small size to and from an integer is how C spells an
 * unaligned load or store without undefined behaviour; compilers emit a
 * single mov for it.  The builtin is named outright so that a build with
 * -fno-builtin or -ffreestanding (which make a plain memcpy a real call)
 * still gets a single mov. */
#define SB__MOVE_N(bits)                                                 \
    static inline SB__INLINE void sb__move##bits(unsigned char *d,       \
                                                 const unsigned char *s) \
    {                                                                    \
        uint##bits##_t v;                                                \
        __builtin_memcpy(&v, s, sizeof v);                               \
        SB__OPAQUE(v);                                                   \
        __builtin_memcpy(d, &v, sizeof v);                               \
    }
SB__MOVE_N(64)
SB__MOVE_N(32)
SB__MOVE_N(16)
SB__MOVE_N(8)
#undef SB__MOVE_N

/* One scalar store of 8, 4, 2 or 1 zero bytes at d, not aligned.  The
 * zero comes out of a barrier, so neighbouring stores are not merged into
 * a vector store or a call to memset. */
#define SB__ZERO_N(bits)                                                 \
    static inline SB__INLINE void sb__zero##bits(unsigned char *d)       \
    {                                                                    \
        uint##bits##_t v = 0;                                            \
        SB__OPAQUE(v);                                                   \
        __builtin_memcpy(d, &v, sizeof v);                               \
    }
SB__ZERO_N(64)
SB__ZERO_N(32)
SB__ZERO_N(16)
SB__ZERO_N(8)
#undef SB__ZERO_N

#ifdef SB_HAVE_X86_64
/* One vector load or store by the instruction named, for the SIMD kernels
 * (copy_simd.c, clear_x86.c).  Intrinsics leave the choice of instruction
 * to the compiler, and compilers differ: for _mm_stream_si128 GCC emits
 * movntdq, clang movntps; for _mm256_store_si256 GCC vmovdqa, clang
 * vmovaps.  The kernels are named after their instructions, so the
 * instructions are spelled out.  The memory operand (an lvalue of exactly
 * the vector's size) tells the compiler which bytes the asm reads or
 * writes and lets it pick the addressing mode; a store is volatile so
 * that it is never dropped.  A loaded value comes out of an asm, so the
 * compiler cannot see a load-store loop as a memcpy (nor a loop storing a
 * known zero as a memset) and replace it with a call.  "v" is any vector
 * register the function's instruction set can name (xmm0-15 without
 * AVX-512), and the operand's type (__m128i, __m256i, __m512i) selects the
 * register width printed.  AT&T syntax, like all asm here. */
typedef struct sb__bytes16 { unsigned char b[16]; } sb__bytes16;
typedef struct sb__bytes32 { unsigned char b[32]; } sb__bytes32;
typedef struct sb__bytes64 { unsigned char b[64]; } sb__bytes64;

#define SB__VLOAD(insn, bytes, v, p)                                      \
    __asm__(insn " %1, %0" : "=v"(v) : "m"(*(const sb__bytes##bytes *)(p)))
#define SB__VSTORE(insn, bytes, p, v)                                     \
    do {                                                                  \
        SB__CHECK_STORE((p), (bytes));                                    \
        __asm__ volatile(insn " %1, %0"                                   \
                         : "=m"(*(sb__bytes##bytes *)(p))                 \
                         : "v"(v));                                       \
    } while (0)
#endif

/* Copy the n < 64 bytes of a SIMD kernel's head or tail with scalar moves,
 * touching nothing outside [d, d + n): 8-byte moves and one last 8-byte
 * move that may overlap the one before (src and dst never overlap each
 * other, so moving a byte twice is harmless); below 8 bytes, two 4- or
 * 2-byte moves in the same way, or one byte. */
static inline SB__INLINE void sb__copy_small(unsigned char *d,
                                             const unsigned char *s, size_t n)
{
    if (n >= 8) {
        size_t i;
        for (i = 0; i + 8 < n; i += 8)
            sb__move64(d + i, s + i);
        sb__move64(d + n - 8, s + n - 8);
    } else if (n >= 4) {
        sb__move32(d, s);
        sb__move32(d + n - 4, s + n - 4);
    } else if (n >= 2) {
        sb__move16(d, s);
        sb__move16(d + n - 2, s + n - 2);
    } else if (n == 1) {
        sb__move8(d, s);
    }
}

/* Clear the n < 64 bytes of a SIMD kernel's head or tail the same way. */
static inline SB__INLINE void sb__zero_small(unsigned char *d, size_t n)
{
    if (n >= 8) {
        size_t i;
        for (i = 0; i + 8 < n; i += 8)
            sb__zero64(d + i);
        sb__zero64(d + n - 8);
    } else if (n >= 4) {
        sb__zero32(d);
        sb__zero32(d + n - 4);
    } else if (n >= 2) {
        sb__zero16(d);
        sb__zero16(d + n - 2);
    } else if (n == 1) {
        sb__zero8(d);
    }
}

/* The bytes from p up to the next multiple of align (a power of two), but
 * at most n: the head a kernel moves before its aligned body. */
static inline SB__INLINE size_t sb__head(const void *p, size_t align,
                                         size_t n)
{
    size_t h = (size_t)(-(uintptr_t)p & (uintptr_t)(align - 1));
    return h < n ? h : n;
}

#endif
