/*
 * registry.c: the table of built-in kernels and the lookups over it.
 *
 * To add a kernel: write its sb_kernel_fn in a kernels/ file, declare it in
 * kernels.h (inside #ifdef SB_HAVE_X86_64 when it uses x86 instructions,
 * SB_HAVE_AARCH64 when aarch64 ones),
 * and add one row below, in the place a reader of the kernel list expects
 * (families together, simplest variant first).  The lookups and the byte
 * checks of tests/test_kernels.c walk this table; that test also lists the
 * copy and clear rows in order (with family and features), so a new row
 * there is added to its list too.  Families other than copy and clear
 * follow the clear family.
 */
#include "config.h"

#include <string.h>

#include "kernels.h"
#include "kernels_sys.h"
#include "sb_internal.h"

#define SB__ROW(kname, kfamily, kdesc, kfeatures, kfn, kavail)          \
    {                                                                     \
        .size = sizeof(sb_kernel), .name = (kname), .family = (kfamily),  \
        .description = (kdesc), .features = (kfeatures), .fn = (kfn),     \
        .setup = NULL, .teardown = NULL, .available = (kavail),           \
        .flags = 0 /* works on the buffers it is given */                 \
    }
#define SB__COPY(kname, kdesc, kfeatures, kfn) \
    SB__ROW(kname, SB_FAMILY_COPY, kdesc, kfeatures, kfn, NULL)
#define SB__CLEAR(kname, kdesc, kfeatures, kfn) \
    SB__ROW(kname, SB_FAMILY_CLEAR, kdesc, kfeatures, kfn, NULL)
/* A clear that needs more than CPU features (an available() hook). */
#define SB__CLEAR_IF(kname, kdesc, kfeatures, kfn, kavail) \
    SB__ROW(kname, SB_FAMILY_CLEAR, kdesc, kfeatures, kfn, kavail)

/* Names are unique across families: a clear kernel whose technique has a
 * copy kernel of the same name takes a "clear_" prefix.  Descriptions are
 * one line for --list: the technique, then where the threads used it. */
static const sb_kernel sb__kernels[] = {
    /* Copy: the string moves first, as the threads compared them; the
     * movl stream and libc; the 64-bit integer copy; the SIMD register
     * files from MMX up, each cached and then non-temporal (on aarch64:
     * the load/store pairs, NEON, the non-temporal pairs); memmove; the
     * fused checksum-and-copy. */
#ifdef SB_HAVE_X86_64
    SB__COPY("movsb",
             "rep movsb: byte string move of all n bytes (fast with ERMS/FSRM)",
             SB_FEAT_X86_64, sb__copy_movsb),
    SB__COPY("movsl",
             "rep movsl: 32-bit string move, then rep movsb for the 0-3 byte "
             "tail (i386 __copy_user)",
             SB_FEAT_X86_64, sb__copy_movsl),
    SB__COPY("movsq",
             "rep movsq: 64-bit string move, then rep movsb for the 0-7 byte "
             "tail",
             SB_FEAT_X86_64, sb__copy_movsq),
#endif
    SB__COPY("duff",
             "a stream of 32-bit movl loads and stores, unrolled 8x, byte "
             "tail (the threads' copy_duff)",
             0, sb__copy_duff),
    SB__COPY("libc",
             "libc memcpy through a function pointer (the C library's own "
             "choice of kernel)",
             0, sb__copy_libc),
    SB__COPY("int64",
             "64-bit integer moves, 8 a loop, after byte moves align the "
             "destination to 8, byte tail (cf. the threads' copy_user_int)",
             0, sb__copy_int64),
#ifdef SB_HAVE_X86_64
    SB__COPY("mmx",
             "MMX movq through mm0-mm7, 64 bytes a loop, unaligned, emms (the "
             "threads' Athlon fast_copy_page, minus its prefetch)",
             SB_FEAT_MMX, sb__copy_mmx),
    SB__COPY("mmx_nt",
             "MMX movq loads, movntq stores of 64-aligned lines, prefetchnta "
             "320 B ahead, sfence, emms (the threads' Athlon faster_copy)",
             SB_FEAT_MMX | SB_FEAT_SSE2, sb__copy_mmx_nt),
    SB__COPY("sse2",
             "SSE2 movdqu loads, movdqa stores after aligning the destination "
             "to 16, 64 bytes a loop",
             SB_FEAT_SSE2, sb__copy_sse2),
    SB__COPY("sse2_nt",
             "SSE2 movdqu loads, movntdq stores of 64-aligned lines, 64 bytes "
             "a loop, sfence (movntq's successor)",
             SB_FEAT_SSE2, sb__copy_sse2_nt),
    SB__COPY("avx2",
             "AVX2 32-byte vmovdqu loads, vmovdqa stores after aligning the "
             "destination to 32, 128 bytes a loop, vzeroupper",
             SB_FEAT_AVX2, sb__copy_avx2),
    SB__COPY("avx2_nt",
             "AVX2 32-byte vmovdqu loads, vmovntdq stores of 64-aligned "
             "lines, 128 bytes a loop, sfence, vzeroupper",
             SB_FEAT_AVX2, sb__copy_avx2_nt),
    SB__COPY("avx512",
             "AVX-512 vmovdqu64 loads, vmovdqa64 stores after aligning the "
             "destination to 64, 256 bytes a loop, vzeroupper",
             SB_FEAT_AVX512F, sb__copy_avx512),
    SB__COPY("avx512_nt",
             "AVX-512 vmovdqu64 loads, vmovntdq zmm stores of 64-aligned "
             "lines, 256 bytes a loop, sfence, vzeroupper",
             SB_FEAT_AVX512F, sb__copy_avx512_nt),
#endif
#ifdef SB_HAVE_AARCH64
    SB__COPY("ldp_stp",
             "ldp/stp of x-register pairs, 64 bytes a loop after aligning "
             "the destination to 16, then 16-byte pairs (arm64 memcpy)",
             0, sb__copy_ldp_stp),
    SB__COPY("neon",
             "NEON ld1/st1 of four q registers, 64 bytes a loop after "
             "aligning the destination to 16, then single q registers",
             SB_FEAT_ASIMD, sb__copy_neon),
    SB__COPY("stnp",
             "ldp loads, stnp stores of 64-aligned lines, prfm pldl1strm a "
             "line ahead, dmb ish (arm64 copy_page)",
             0, sb__copy_stnp),
#endif
    SB__COPY("memmove",
             "libc memmove through a function pointer (the price of not "
             "promising that the buffers do not overlap)",
             0, sb__copy_memmove),
    SB__COPY("csum_copy",
             "RFC 1071 Internet checksum while copying, 64-bit words added "
             "with end-around carry (the threads' csum_and_copy_from_user)",
             0, sb__copy_csum),

    /* Clear: the string stores, the movl stream, the SIMD register files
     * (on aarch64: dc zva), the C library. */
#ifdef SB_HAVE_X86_64
    SB__CLEAR("stosb",
              "rep stosb: byte string store of all n bytes (fast with ERMS)",
              SB_FEAT_X86_64, sb__clear_stosb),
    SB__CLEAR("stosl",
              "rep stosl: 32-bit string store, then rep stosb for the 0-3 "
              "byte tail (the i386 memset and clear_page of 2001)",
              SB_FEAT_X86_64, sb__clear_stosl),
    SB__CLEAR("stosq",
              "rep stosq: 64-bit string store, then rep stosb for the 0-7 "
              "byte tail (x86-64 clear_page_rep)",
              SB_FEAT_X86_64, sb__clear_stosq),
#endif
    SB__CLEAR("clear_movl",
              "a stream of 32-bit movl stores of zero, unrolled 8x, byte tail "
              "(duff's clear)",
              0, sb__clear_movl),
#ifdef SB_HAVE_X86_64
    SB__CLEAR("clear_mmx",
              "MMX movq of a zeroed register, 64 bytes a loop, no alignment, "
              "emms (the threads' Athlon fast_clear_page)",
              SB_FEAT_MMX, sb__clear_mmx),
    SB__CLEAR("clear_mmx_nt",
              "MMX movntq of a zeroed register to 64-aligned lines, 64 bytes "
              "a loop, sfence, emms (the threads' Athlon faster_clear_page)",
              SB_FEAT_MMX | SB_FEAT_SSE2, sb__clear_mmx_nt),
    SB__CLEAR("clear_sse2_nt",
              "SSE2 movntdq of a zeroed register to 64-aligned lines, 64 "
              "bytes a loop, sfence",
              SB_FEAT_SSE2, sb__clear_sse2_nt),
    SB__CLEAR("clear_avx2",
              "AVX vmovdqa of a zeroed ymm after aligning the destination to "
              "32, 128 bytes a loop, vzeroupper",
              SB_FEAT_AVX2, sb__clear_avx2),
    SB__CLEAR("clear_avx512",
              "AVX-512 vmovdqa64 of a zeroed zmm after aligning the "
              "destination to 64, 256 bytes a loop, vzeroupper",
              SB_FEAT_AVX512F, sb__clear_avx512),
#endif
#ifdef SB_HAVE_AARCH64
    SB__CLEAR_IF("dc_zva",
                 "dc zva of DCZID_EL0's block size, stp xzr head and tail; "
                 "unavailable where DCZID_EL0.DZP is set (arm64 clear_page)",
                 0, sb__clear_dc_zva, sb__clear_dc_zva_available),
#endif
    SB__CLEAR("memset",
              "libc memset through a function pointer (the C library's own "
              "choice of clear)",
              0, sb__clear_memset),
    /* Alloc and system-call paths (kernels/alloc.c, kernels/syscall.c). */
    SB__SYS_KERNEL_ROWS,
};

#define SB__NKERNELS (sizeof sb__kernels / sizeof sb__kernels[0])

size_t sb_kernel_count(void)
{
    return SB__NKERNELS;
}

const sb_kernel *sb_kernel_at(size_t i)
{
    return i < SB__NKERNELS ? &sb__kernels[i] : NULL;
}

const sb_kernel *sb_kernel_find(const char *name)
{
    size_t i;
    if (!name)
        return NULL;
    for (i = 0; i < SB__NKERNELS; ++i)
        if (strcmp(sb__kernels[i].name, name) == 0)
            return &sb__kernels[i];
    return NULL;
}

/* The reason a missing feature gives.  Static strings, so that
 * sb_kernel_available() can hand them out without a buffer; each must read
 * "needs " followed by sb_feature_name() of its bit (test_kernels checks
 * the ones this CPU lacks). */
static const char *sb__needs(unsigned bit)
{
    switch (bit) {
    case SB_FEAT_X86_64:
        return "needs x86_64";
    case SB_FEAT_MMX:
        return "needs mmx";
    case SB_FEAT_SSE2:
        return "needs sse2";
    case SB_FEAT_AVX2:
        return "needs avx2";
    case SB_FEAT_AVX512F:
        return "needs avx512f";
    case SB_FEAT_ERMS:
        return "needs erms";
    case SB_FEAT_FSRM:
        return "needs fsrm";
    case SB_FEAT_ASIMD:
        return "needs asimd";
    }
    return "needs an unknown CPU feature";
}

int sb_kernel_available(const sb_kernel *k, const char **why)
{
    unsigned missing;
    if (!k) {
        if (why)
            *why = "no kernel";
        return 0;
    }
    if (k->size != sizeof(sb_kernel)) {
        if (why)
            *why = "sb_kernel.size is not sizeof(sb_kernel)";
        return 0;
    }
    if (!k->fn) {
        if (why)
            *why = "not measurable in this build (a stand-in)";
        return 0;
    }
    missing = k->features & ~sb_cpu_features();
    if (missing) {
        if (why)
            *why = sb__needs(missing & -missing); /* the lowest missing bit */
        return 0;
    }
    if (k->available) {
        const char *reason = "unavailable on this machine";
        if (!k->available(&reason)) {
            if (why)
                *why = reason;
            return 0;
        }
    }
    if (why)
        *why = NULL;
    return 1;
}
