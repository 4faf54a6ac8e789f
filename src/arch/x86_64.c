/*
 * x86_64.c: the architecture layer (arch.h) on x86-64: CPUID, clflush,
 * and the probes' dependency chains in inline assembly.  The TSC reads
 * themselves are inlined from ticks.h.
 *
 * The TSC times a run when the CPU has rdtscp and an invariant TSC
 * (constant rate through P- and C-states, CPUID 0x80000007 EDX bit 8).
 * Its stated rate comes from CPUID leaf 0x15 (crystal clock times the
 * TSC/crystal ratio) when the CPU fills it, else from the hypervisor's
 * timing leaf 0x40000010 under KVM or VMware when present; timer.c
 * cross-checks it against CLOCK_MONOTONIC_RAW.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <cpuid.h>

#include "arch.h"

int sb__arch_ticks_usable(char *reason, size_t len)
{
    unsigned a, b, c, d;

    if (!__get_cpuid(1, &a, &b, &c, &d) || !(d & (1u << 4))) {
        snprintf(reason, len, "no TSC");
        return 0;
    }
    if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) {
        snprintf(reason, len, "no rdtscp instruction");
        return 0;
    }
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) {
        snprintf(reason, len,
                 "TSC is not invariant (its rate follows the CPU clock)");
        return 0;
    }
    return 1;
}

/* 1 when CPUID's hypervisor bit is set (leaf 1, ECX bit 31). */
static int under_hypervisor(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31));
}

double sb__arch_ticks_hz(const char **source)
{
    unsigned a, b, c, d, max;

    __cpuid(0, max, b, c, d);
    if (max >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        if (a && b && c) {
            *source = "cpuid 0x15";
            return (double)c * b / a;
        }
    }
    if (under_hypervisor()) {
        __cpuid(0x40000000, max, b, c, d);
        if (max >= 0x40000010) {
            __cpuid(0x40000010, a, b, c, d);
            if (a) {
                *source = "hypervisor leaf 0x40000010";
                return (double)a * 1000.0;
            }
        }
    }
    return 0;
}

int sb__arch_can_flush(void)
{
    return 1;
}

/* clflush each line, then mfence so that the flushes are done before the
 * timed call starts. */
void sb__arch_flush(const void *p, size_t n)
{
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    const char *end = (const char *)p + n;
    for (; c < end; c += 64)
        __asm__ volatile("clflush %0" : : "m"(*(const volatile char *)c));
    __asm__ volatile("mfence" ::: "memory");
}

int sb__arch_cpu_brand(char *buf, size_t len)
{
    unsigned r[12];

    if (!__get_cpuid(0x80000004, &r[0], &r[1], &r[2], &r[3]))
        return -1;
    for (unsigned i = 0; i < 3; i++)
        __cpuid(0x80000002 + i, r[4 * i], r[4 * i + 1], r[4 * i + 2],
                r[4 * i + 3]);
    snprintf(buf, len, "%.48s", (const char *)r);
    return 0;
}

/* The name of a hypervisor from its CPUID 0x40000000 signature. */
static void hv_name(const char sig[13], char *buf, size_t len)
{
    static const char *const known[][2] = {
        {"KVMKVMKVM", "KVM"},        {"Microsoft Hv", "Hyper-V"},
        {"VMwareVMware", "VMware"},  {"XenVMMXenVMM", "Xen"},
        {"VBoxVBoxVBox", "VirtualBox"}, {"TCGTCGTCGTCG", "QEMU TCG"},
        {"bhyve bhyve ", "bhyve"},   {" lrpepyh  vr", "Parallels"},
        {"ACRNACRNACRN", "ACRN"},    {"QNXQVMBSQG", "QNX"},
    };
    char clean[13];
    size_t n = 0;

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(sig, known[i][0])) {
            snprintf(buf, len, "%s", known[i][1]);
            return;
        }
    for (size_t i = 0; i < 12 && sig[i]; i++)
        if (isprint((unsigned char)sig[i]))
            clean[n++] = sig[i];
    clean[n] = '\0';
    snprintf(buf, len, n ? "signature \"%s\"" : "unnamed%s", clean);
}

int sb__arch_hypervisor(char *name, size_t len)
{
    unsigned a, b, c, d;
    char sig[13];

    if (!under_hypervisor())
        return 0;
    __cpuid(0x40000000, a, b, c, d);
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    hv_name(sig, name, len);
    return 1;
}

int sb__arch_have_chains(void)
{
    return 1;
}

/* A chain of n dependent ops (n rounded down to whole unrolls of 16): x
 * depends on the previous op's result every time, so the chain lasts n
 * times the op's latency.  The two chains differ only in the op. */
#define SB__ARCH_CHAIN(fn, op)                                               \
    void fn(uint64_t n)                                                      \
    {                                                                        \
        uint64_t x = 3, m = 0x9e3779b97f4a7c15u;                             \
        if (n < SB__ARCH_CHAIN_UNROLL)                                       \
            return;                                                          \
        n -= n % SB__ARCH_CHAIN_UNROLL;                                      \
        __asm__ volatile("1:\n\t"                                            \
                         ".rept 16\n\t" op " %[m], %[x]\n\t"                  \
                         ".endr\n\t"                                         \
                         "sub $16, %[n]\n\t"                                 \
                         "jnz 1b"                                            \
                         : [x] "+r"(x), [n] "+r"(n)                          \
                         : [m] "r"(m)                                        \
                         : "cc");                                            \
    }

SB__ARCH_CHAIN(sb__arch_imul_chain, "imul")
SB__ARCH_CHAIN(sb__arch_add_chain, "add")

void sb__arch_ldst(void *buf, unsigned reps)
{
    uint64_t i, j;
    if (!reps)
        return;
    /* Each rep walks the 64 lines of the 4 KiB in order: a 16-byte load
     * from line i, stored to the line half a page away, so that the
     * second half loads the lines the first half has just stored. */
    __asm__ volatile(
        "1:\n\t"
        "xor %[i], %[i]\n\t"
        ".p2align 6\n"
        "2:\n\t"
        "movdqa (%[b],%[i]), %%xmm0\n\t"
        "lea 2048(%[i]), %[j]\n\t"
        "and $4095, %[j]\n\t"
        "movdqa %%xmm0, (%[b],%[j])\n\t"
        "add $64, %[i]\n\t"
        "cmp $4096, %[i]\n\t"
        "jne 2b\n\t"
        "dec %[r]\n\t"
        "jnz 1b"
        : [i] "=&r"(i), [j] "=&r"(j), [r] "+r"(reps)
        : [b] "r"(buf)
        : "cc", "memory", "xmm0");
}

const char *sb__arch_cpuinfo_key(void)
{
    return "flags";
}
