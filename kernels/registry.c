/*
 * registry.c: the table of built-in kernels and the lookups over it.
 *
 * To add a kernel: write its sb_kernel_fn in a kernels/ file, declare it in
 * kernels.h (inside #ifdef SB_HAVE_X86_64 when it uses x86 instructions),
 * and add one row below, in the place a reader of the kernel list expects
 * (families together, simplest variant first).  Nothing else changes: the
 * lookups and tests/test_kernels.c walk this table.
 */
#include "config.h"

#include <string.h>

#include "kernels.h"

#define SB__COPY(kname, kdesc, kfeatures, kfn)                           \
    {                                                                     \
        .name = (kname), .family = SB_FAMILY_COPY,                        \
        .description = (kdesc), .features = (kfeatures), .fn = (kfn),     \
        .setup = NULL, .teardown = NULL, .available = NULL                \
    }

static const sb_kernel sb__kernels[] = {
    /* Copy: the string moves first, as the threads compared them. */
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

const char *sb_family_name(int family)
{
    switch (family) {
    case SB_FAMILY_COPY:
        return "copy";
    case SB_FAMILY_CLEAR:
        return "clear";
    case SB_FAMILY_ALLOC:
        return "alloc";
    case SB_FAMILY_SYSCALL:
        return "syscall";
    case SB_FAMILY_EXTERNAL:
        return "external";
    }
    return "?";
}
