/*
 * cpu.c: which SB_FEAT_* features the running CPU has: read with CPUID on
 * x86-64, from the auxiliary vector's AT_HWCAP on aarch64.
 *
 * aarch64: the ID registers that describe the CPU's features are EL1's;
 * user space reads them only where the kernel traps and emulates the read
 * (HWCAP_CPUID), and what the kernel then shows is what it supports, not
 * only what the silicon has.  AT_HWCAP is the kernel's own answer of what
 * user space may use, the same answer on every Linux arm64 kernel, so
 * that is what is read.
 *
 * x86-64: a feature counts only when the CPU has it AND, for the SIMD register
 * files wider than SSE, the operating system saves that state on a context
 * switch: CPUID says what the silicon can do, XCR0 (read with xgetbv, which
 * exists only when CPUID.1:ECX.OSXSAVE is set) says what the OS enabled.
 * Executing an AVX-512 instruction on a CPU whose OS left the ZMM state off
 * raises #UD, so a kernel gated on CPUID alone would kill the process.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>

#include "kernels.h"

#if defined(SB_HAVE_X86_64) && defined(__x86_64__) && defined(__GNUC__)
#define SB__CPUID 1
#include <cpuid.h>
#endif

#ifdef SB__CPUID
/* XCR0 bits (Intel SDM vol. 1, 13.1): the state components the OS saves. */
#define SB__XCR0_SSE       (1u << 1) /* XMM registers */
#define SB__XCR0_AVX       (1u << 2) /* upper halves of YMM */
#define SB__XCR0_OPMASK    (1u << 5) /* k0-k7 */
#define SB__XCR0_ZMM_HI256 (1u << 6) /* upper halves of ZMM0-15 */
#define SB__XCR0_HI16_ZMM  (1u << 7) /* ZMM16-31 */

#define SB__XCR0_YMM (SB__XCR0_SSE | SB__XCR0_AVX)
#define SB__XCR0_ZMM \
    (SB__XCR0_YMM | SB__XCR0_OPMASK | SB__XCR0_ZMM_HI256 | SB__XCR0_HI16_ZMM)

/* The low half of XCR0.  Call only when CPUID.1:ECX.OSXSAVE is set:
 * otherwise xgetbv is an invalid opcode. */
static uint32_t sb__xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
    (void)hi;
    return lo;
}

static unsigned sb__detect(void)
{
    unsigned a, b, c, d, max_leaf;
    unsigned f = SB_FEAT_X86_64;
    uint32_t xcr0 = 0;
    int avx_os;

    max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf < 1 || !__get_cpuid(1, &a, &b, &c, &d))
        return f;

    if (d & bit_MMX)
        f |= SB_FEAT_MMX;
    if (d & bit_SSE2)
        f |= SB_FEAT_SSE2;
    if (c & bit_OSXSAVE)
        xcr0 = sb__xcr0();
    /* AVX2 and AVX-512 also need the AVX bit (the VEX encoding). */
    avx_os = (c & bit_AVX) && (xcr0 & SB__XCR0_YMM) == SB__XCR0_YMM;

    if (max_leaf >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        if ((b & bit_AVX2) && avx_os)
            f |= SB_FEAT_AVX2;
        if ((b & bit_AVX512F) && avx_os &&
            (xcr0 & SB__XCR0_ZMM) == SB__XCR0_ZMM)
            f |= SB_FEAT_AVX512F;
        if (b & (1u << 9)) /* leaf 7 EBX bit 9: ERMS */
            f |= SB_FEAT_ERMS;
        if (d & (1u << 4)) /* leaf 7 EDX bit 4: FSRM */
            f |= SB_FEAT_FSRM;
    }
    return f;
}
#elif defined(SB_HAVE_AARCH64) && defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>

/* HWCAP_ASIMD is bit 1 of AT_HWCAP in Linux's arm64 ABI
 * (arch/arm64/include/uapi/asm/hwcap.h); glibc's <sys/auxv.h> names it
 * through <bits/hwcap.h>, a C library without that header may not. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)
#endif

static unsigned sb__detect(void)
{
    unsigned f = 0;
    if (getauxval(AT_HWCAP) & HWCAP_ASIMD)
        f |= SB_FEAT_ASIMD;
    return f;
}
#else
static unsigned sb__detect(void)
{
    return 0;
}
#endif

/* The cache: 0 until the first call, then the features with SB__CACHED set
 * (so a CPU with no features is not probed again and again).  Two threads
 * racing on the first call both store the same value. */
#define SB__CACHED (1u << 31)
static _Atomic unsigned sb__features;

unsigned sb_cpu_features(void)
{
    unsigned f = atomic_load_explicit(&sb__features, memory_order_relaxed);
    if (!(f & SB__CACHED)) {
        f = sb__detect() | SB__CACHED;
        atomic_store_explicit(&sb__features, f, memory_order_relaxed);
    }
    return f & ~SB__CACHED;
}

const char *sb_feature_name(unsigned bit)
{
    switch (bit) {
    case SB_FEAT_X86_64:
        return "x86_64";
    case SB_FEAT_MMX:
        return "mmx";
    case SB_FEAT_SSE2:
        return "sse2";
    case SB_FEAT_AVX2:
        return "avx2";
    case SB_FEAT_AVX512F:
        return "avx512f";
    case SB_FEAT_ERMS:
        return "erms";
    case SB_FEAT_FSRM:
        return "fsrm";
    case SB_FEAT_ASIMD:
        return "asimd";
    }
    return "?";
}
