/*
 * test_kernels.c: every built-in kernel produces exactly the bytes of its
 * family, at every alignment; csum_copy's checksum is RFC 1071's; the
 * SIMD kernels leave the x87/MMX and AVX state clean; and the registry and
 * CPU-feature lookups answer what they promise.
 *
 * The byte check.  For each kernel and size, the kernel runs once for every
 * source alignment 0..64 and every destination alignment 0..64 (65 x 65
 * calls per size).  Buffers are page-aligned plus the alignment.  The source
 * holds a non-repeating pattern (the top byte of a 32-bit LCG, period 2^32),
 * so copying from or to a wrong offset gives wrong bytes.  Before each call
 * the destination window (64 guard bytes, the destination, 64 guard bytes)
 * is filled with the complement of the source byte at the same offset: a
 * destination byte left unwritten, and a guard byte overwritten by a copy
 * that ran past either end of the source, then differ from what is
 * expected with certainty rather than with probability 255/256.  After the
 * call: the destination holds the expected bytes, the guards are
 * untouched, and the source window (64 bytes either side too) still
 * matches the pattern.
 *
 * Copy kernels are checked against the source, clear kernels against
 * zeros.  Alloc and syscall kernels have no destination bytes to check here
 * and get a SKIP line per size; their own tests cover them.  A kernel this
 * CPU cannot run gets a SKIP line per size, so the number of TAP lines is
 * the same on every machine that has the same registry.
 *
 * The whole 65 x 65 matrix runs at every size, 262144 bytes included: it
 * is affordable (the program takes about 6 s at -O2 for the 26 copy and
 * clear kernels of x86-64, on a KVM guest; each call at 262144 bytes moves
 * about 1 MB through the cache, checks included), so nothing is left
 * out.  Should it grow too slow, the reduction to make is, at 262144 bytes
 * only, every source alignment with destination 0, every destination
 * alignment with source 0, and the diagonal: the sizes up to 4096 already
 * put every head and tail length against every source misalignment.
 *
 * The registry is walked, so on aarch64 its own kernels (ldp_stp, neon,
 * stnp, dc_zva; tools/aarch64.sh runs this under qemu-user) get the same
 * matrix; and on every architecture the decoding of dc zva's block from
 * DCZID_EL0 is checked, prohibited values included.
 *
 * Then: csum_copy's checksum against a plain RFC 1071 implementation at
 * every alignment and every length 0..256 (odd ones included) and at
 * larger sizes; and, after each MMX kernel, an empty x87 tag word and
 * long double arithmetic that still works (emms), after each AVX2 and
 * AVX-512 kernel clean upper ymm/zmm state by XINUSE (vzeroupper), each
 * with a control that shows the check can fail.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SB_HAVE_AARCH64) && defined(__linux__)
#include <sys/auxv.h>
/* Linux's arm64 ABI: bit 1 of AT_HWCAP (asm/hwcap.h), spelled out so that
 * the test does not take it from the header the library uses. */
#define TEST_HWCAP_ASIMD (1ul << 1)
#endif

#include "kernels.h"
#include "statbench.h"
#include "sysinfo.h"
#include "tap.h"

#define PAGE 4096
#define MAX_ALIGN 64
#define GUARD 64
#define MAX_SIZE 262144

static const size_t sizes[] = {0, 1, 7, 63, 64, 65, 4095, 4096, MAX_SIZE};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Each buffer: a page (its last GUARD bytes are the window before an
 * alignment 0 destination), then room for the largest alignment, size and
 * trailing guard, rounded up to whole pages. */
#define BUF_LEN \
    (PAGE + ((MAX_ALIGN + MAX_SIZE + GUARD + PAGE - 1) / PAGE) * PAGE)

static unsigned char *page_alloc(void)
{
    /* C11's aligned_alloc: BUF_LEN is a multiple of the alignment. */
    unsigned char *p = aligned_alloc(PAGE, BUF_LEN);
    if (!p) {
        printf("Bail out! aligned_alloc of %d bytes failed\n", BUF_LEN);
        exit(1);
    }
    return p;
}

/* The buffers, all BUF_LEN bytes and page-aligned; a window at alignment a
 * starts at offset PAGE + a in each. */
static unsigned char *src_buf; /* the kernels' source */
static unsigned char *dst_buf; /* the kernels' destination */
static unsigned char *pattern; /* what src_buf must always hold */
static unsigned char *inverse; /* ~pattern */
static unsigned char *zeros;   /* what a clear kernel writes */
static unsigned char *ones;    /* ~zeros */

static void buffers_init(void)
{
    uint32_t x = 12345;
    size_t i;
    src_buf = page_alloc();
    dst_buf = page_alloc();
    pattern = page_alloc();
    inverse = page_alloc();
    zeros = page_alloc();
    ones = page_alloc();
    for (i = 0; i < BUF_LEN; ++i) {
        x = x * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
        pattern[i] = (unsigned char)(x >> 24);
        inverse[i] = (unsigned char)~pattern[i];
    }
    memcpy(src_buf, pattern, BUF_LEN);
    memset(zeros, 0, BUF_LEN);
    memset(ones, 0xff, BUF_LEN);
    memset(dst_buf, 0x5a, BUF_LEN);
}

/* The first differing byte of two n-byte ranges, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b,
                       size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (a[i] != b[i])
            return (long)i;
    return -1;
}

/* The first failure of one kernel at one size. */
typedef struct failure {
    size_t src_align, dst_align;
    long offset;       /* from the destination (or source) start */
    const char *where; /* "source", "destination", "guard ..." */
    unsigned got, want;
} failure;

/* One call of k at (n, sa, da) and its checks.  want/fill: the reference
 * buffers laid out like src_buf; the destination must end up equal to
 * want's window and the guards to fill's window.  Returns 1 when all is
 * well, else 0 with *f filled. */
static int check_one(const sb_kernel *k, void *state, size_t n, size_t sa,
                     size_t da, const unsigned char *want,
                     const unsigned char *fill, failure *f)
{
    unsigned char *s = src_buf + PAGE + sa;
    unsigned char *d = dst_buf + PAGE + da;
    const unsigned char *w = want + PAGE + sa;
    const unsigned char *g = fill + PAGE + sa;
    const unsigned char *p = pattern + PAGE + sa;
    long off;

    memcpy(d - GUARD, g - GUARD, n + 2 * GUARD);
    k->fn(d, s, n, state);

    f->src_align = sa;
    f->dst_align = da;
    /* The source first: a kernel that wrote it must not spoil the calls
     * after this one, and "source changed" names the cause better than
     * the wrong destination bytes it may also have made. */
    if (memcmp(s - GUARD, p - GUARD, n + 2 * GUARD) != 0) {
        off = first_diff(s - GUARD, p - GUARD, n + 2 * GUARD) - GUARD;
        f->where = "source";
        f->offset = off;
        f->got = s[off];
        f->want = p[off];
        memcpy(src_buf, pattern, BUF_LEN);
        return 0;
    }
    if (memcmp(d, w, n) != 0) {
        off = first_diff(d, w, n);
        f->where = "destination";
        f->offset = off;
        f->got = d[off];
        f->want = w[off];
        return 0;
    }
    if (memcmp(d - GUARD, g - GUARD, GUARD) != 0) {
        off = first_diff(d - GUARD, g - GUARD, GUARD);
        f->where = "guard before the destination";
        f->offset = off - GUARD;
        f->got = d[off - GUARD];
        f->want = g[off - GUARD];
        return 0;
    }
    if (memcmp(d + n, g + n, GUARD) != 0) {
        off = first_diff(d + n, g + n, GUARD);
        f->where = "guard after the destination";
        f->offset = (long)n + off;
        f->got = d[(long)n + off];
        f->want = g[(long)n + off];
        return 0;
    }
    return 1;
}

/* One TAP line: k at size n over all 65 x 65 alignments. */
static void check_size(const sb_kernel *k, size_t n)
{
    const unsigned char *want, *fill;
    void *state = NULL;
    sb_error err = {0, ""};
    failure f = {0, 0, 0, "", 0, 0};
    size_t sa, da, bad = 0;
    int ok = 1;

    if (k->family == SB_FAMILY_COPY) {
        want = pattern;
        fill = inverse;
    } else {
        want = zeros;
        fill = ones;
    }
    sb_cell cell = {.kernel = k, .size = n};
    if (k->setup && k->setup(&state, &cell, &err) != SB_OK) {
        tap_ok(0, "%s: %zu B: setup", k->name, n);
        tap_diag("  setup failed: %s", err.text);
        return;
    }
    for (sa = 0; sa <= MAX_ALIGN; ++sa) {
        for (da = 0; da <= MAX_ALIGN; ++da) {
            failure this_f;
            if (!check_one(k, state, n, sa, da, want, fill, &this_f)) {
                if (ok)
                    f = this_f;
                ok = 0;
                ++bad;
            }
        }
    }
    if (k->teardown)
        k->teardown(state);
    if (!tap_ok(ok, "%s: %zu B at every source and destination alignment "
                    "0..%d",
                k->name, n, MAX_ALIGN))
        tap_diag("  %zu of %d alignment pairs wrong; first: src_align %zu, "
                 "dst_align %zu, %s byte at offset %ld is 0x%02x, want "
                 "0x%02x",
                 bad, (MAX_ALIGN + 1) * (MAX_ALIGN + 1), f.src_align,
                 f.dst_align, f.where, f.offset, f.got, f.want);
}

static void test_bytes(void)
{
    size_t i, j;
    for (i = 0; i < sb_kernel_count(); ++i) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL;
        int avail = sb_kernel_available(k, &why);
        for (j = 0; j < NSIZES; ++j) {
            if (!avail)
                tap_skip("%s: %zu B: %s", k->name, sizes[j], why);
            else if (k->family != SB_FAMILY_COPY &&
                     k->family != SB_FAMILY_CLEAR)
                tap_skip("%s: %zu B: no byte check for the %s family",
                         k->name, sizes[j], sb_family_name(k->family));
            else
                check_size(k, sizes[j]);
        }
    }
}

/* The table itself: well-formed rows, unique names, the documented order. */
static void test_table(void)
{
    size_t i, j, n = sb_kernel_count();
    /* The copy and clear families, in the order of registry.c; other
     * families follow them.  A row: the name and the CPU features. */
#define COPY(name, features) {name, SB_FAMILY_COPY, features}
#define CLEAR(name, features) {name, SB_FAMILY_CLEAR, features}
    static const struct {
        const char *name;
        int family;
        unsigned features;
    } expect[] = {
#ifdef SB_HAVE_X86_64
        COPY("movsb", SB_FEAT_X86_64),
        COPY("movsl", SB_FEAT_X86_64),
        COPY("movsq", SB_FEAT_X86_64),
#endif
        COPY("duff", 0),
        COPY("libc", 0),
        COPY("int64", 0),
#ifdef SB_HAVE_X86_64
        COPY("mmx", SB_FEAT_MMX),
        COPY("mmx_nt", SB_FEAT_MMX | SB_FEAT_SSE2),
        COPY("sse2", SB_FEAT_SSE2),
        COPY("sse2_nt", SB_FEAT_SSE2),
        COPY("avx2", SB_FEAT_AVX2),
        COPY("avx2_nt", SB_FEAT_AVX2),
        COPY("avx512", SB_FEAT_AVX512F),
        COPY("avx512_nt", SB_FEAT_AVX512F),
#endif
#ifdef SB_HAVE_AARCH64
        COPY("ldp_stp", 0),
        COPY("neon", SB_FEAT_ASIMD),
        COPY("stnp", 0),
#endif
        COPY("memmove", 0),
        COPY("csum_copy", 0),
#ifdef SB_HAVE_X86_64
        CLEAR("stosb", SB_FEAT_X86_64),
        CLEAR("stosl", SB_FEAT_X86_64),
        CLEAR("stosq", SB_FEAT_X86_64),
#endif
        CLEAR("clear_movl", 0),
#ifdef SB_HAVE_X86_64
        CLEAR("clear_mmx", SB_FEAT_MMX),
        CLEAR("clear_mmx_nt", SB_FEAT_MMX | SB_FEAT_SSE2),
        CLEAR("clear_sse2_nt", SB_FEAT_SSE2),
        CLEAR("clear_avx2", SB_FEAT_AVX2),
        CLEAR("clear_avx512", SB_FEAT_AVX512F),
#endif
#ifdef SB_HAVE_AARCH64
        CLEAR("dc_zva", 0),
#endif
        CLEAR("memset", 0),
    };
#undef COPY
#undef CLEAR
    size_t nexpect = sizeof expect / sizeof expect[0];

    tap_ok(n >= nexpect, "at least %zu kernels registered (%zu)", nexpect, n);
    for (i = 0; i < nexpect && i < n; ++i) {
        const sb_kernel *k = sb_kernel_at(i);
        if (!tap_ok(strcmp(k->name, expect[i].name) == 0 &&
                        (int)k->family == expect[i].family &&
                        k->features == expect[i].features,
                    "kernel %zu is %s (%s, features 0x%x)", i, expect[i].name,
                    sb_family_name(expect[i].family), expect[i].features))
            tap_diag("  got %s (%s, features 0x%x)", k->name,
                     sb_family_name(k->family), k->features);
    }
    for (i = nexpect; i < n; ++i)
        tap_ok(sb_kernel_at(i)->family != SB_FAMILY_COPY &&
                   sb_kernel_at(i)->family != SB_FAMILY_CLEAR,
               "kernel %zu (%s) after the copy and clear families is neither",
               i, sb_kernel_at(i)->name);
    tap_ok(sb_kernel_at(n) == NULL, "sb_kernel_at(count) is NULL");
    tap_ok(sb_kernel_at((size_t)-1) == NULL, "sb_kernel_at(SIZE_MAX) is NULL");

    for (i = 0; i < n; ++i) {
        const sb_kernel *k = sb_kernel_at(i);
        int good = k && k->name && k->name[0] && k->description &&
                   k->description[0] && !strchr(k->description, '\n') &&
                   k->fn && strcmp(sb_family_name(k->family), "?") != 0 &&
                   (k->teardown == NULL || k->setup != NULL);
        const char *c;
        for (c = k && k->name ? k->name : ""; *c; ++c)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
                  *c == '_' || *c == '-'))
                good = 0;
        for (j = 0; j < i; ++j)
            if (good && strcmp(sb_kernel_at(j)->name, k->name) == 0)
                good = 0;
        /* Only the alloc family makes its own memory. */
        good = good && k->flags == (k->family == SB_FAMILY_ALLOC
                                        ? SB_KERNEL_OWN_MEMORY
                                        : 0u);
        tap_ok(good, "kernel %zu (%s, %s): lower-case unique name, one-line "
                     "description, a function, own memory for alloc only",
               i, k && k->name ? k->name : "(null)",
               k ? sb_family_name(k->family) : "?");
        if (k)
            tap_ok(sb_kernel_find(k->name) == k, "sb_kernel_find(\"%s\")",
                   k->name);
    }
    tap_ok(sb_kernel_find("no-such-kernel") == NULL,
           "sb_kernel_find of an unknown name is NULL");
    tap_ok(sb_kernel_find(NULL) == NULL, "sb_kernel_find(NULL) is NULL");
    tap_ok(sb_kernel_find("") == NULL, "sb_kernel_find(\"\") is NULL");
    tap_ok(sb_kernel_find("DUFF") == NULL && sb_kernel_find("duf") == NULL &&
               sb_kernel_find("duff ") == NULL,
           "sb_kernel_find matches names exactly");

    TAP_IS_STR(sb_family_name(SB_FAMILY_COPY), "copy", "family name copy");
    TAP_IS_STR(sb_family_name(SB_FAMILY_CLEAR), "clear", "family name clear");
    TAP_IS_STR(sb_family_name(SB_FAMILY_ALLOC), "alloc", "family name alloc");
    TAP_IS_STR(sb_family_name(SB_FAMILY_SYSCALL), "syscall",
               "family name syscall");
    TAP_IS_STR(sb_family_name(-1), "?", "family name of -1");
    TAP_IS_STR(sb_family_name(SB_FAMILY_EXTERNAL), "external",
               "family name external");
    TAP_IS_STR(sb_family_name(SB_FAMILY_EXTERNAL + 1), "?",
               "family name past the last");
}

static const struct {
    unsigned bit;
    const char *name;
} features[] = {
    {SB_FEAT_X86_64, "x86_64"}, {SB_FEAT_MMX, "mmx"},
    {SB_FEAT_SSE2, "sse2"},     {SB_FEAT_AVX2, "avx2"},
    {SB_FEAT_AVX512F, "avx512f"}, {SB_FEAT_ERMS, "erms"},
    {SB_FEAT_FSRM, "fsrm"},     {SB_FEAT_ASIMD, "asimd"},
};
#define NFEATURES (sizeof features / sizeof features[0])

/* Compare with the features the Linux kernel found, which it also gates on
 * XCR0.  The kernel shows "fsrm" only since Linux 5.6, so for fsrm only
 * "the kernel has it, so must we" is checked. */
static void test_cpuinfo(unsigned have)
{
#if defined(SB_HAVE_X86_64) && defined(__linux__)
    static const struct {
        unsigned bit;
        const char *flag;
        int both_ways;
    } flags[] = {
        {SB_FEAT_MMX, "mmx", 1},     {SB_FEAT_SSE2, "sse2", 1},
        {SB_FEAT_AVX2, "avx2", 1},   {SB_FEAT_AVX512F, "avx512f", 1},
        {SB_FEAT_ERMS, "erms", 1},   {SB_FEAT_FSRM, "fsrm", 0},
    };
    size_t i;
    for (i = 0; i < sizeof flags / sizeof flags[0]; ++i) {
        /* sysinfo.c's reader, itself tested on fixtures (test_env). */
        int k = sb__cpuinfo_flag("", flags[i].flag), ours;
        if (k < 0) {
            tap_skip("%s agrees with /proc/cpuinfo: no flags line",
                     flags[i].flag);
            continue;
        }
        ours = (have & flags[i].bit) != 0;
        if (!tap_ok(flags[i].both_ways ? k == ours : (!k || ours),
                    "%s agrees with /proc/cpuinfo", flags[i].flag))
            tap_diag("  sb_cpu_features says %d, /proc/cpuinfo says %d", ours,
                     k);
    }
#else
    (void)have;
    tap_skip("features agree with /proc/cpuinfo: not Linux on x86-64");
#endif
}

/* dc zva's block from DCZID_EL0 (kernels.h), on every architecture: the
 * decoding is arithmetic.  On aarch64, the dc_zva kernel is available
 * exactly when this CPU's DCZID_EL0, read here, says dc zva is allowed. */
static void test_zva(void)
{
    TAP_IS_INT(sb__zva_block(0x4), 64, "DCZID_EL0 BS 4: 64-byte blocks");
    TAP_IS_INT(sb__zva_block(0x0), 4, "DCZID_EL0 BS 0: 4-byte blocks");
    TAP_IS_INT(sb__zva_block(0x9), 2048, "DCZID_EL0 BS 9: 2 KiB blocks");
    TAP_IS_INT(sb__zva_block(0x14), 0, "DCZID_EL0 DZP set: prohibited");
    TAP_IS_INT(sb__zva_block(0x10), 0, "DCZID_EL0 DZP, BS 0: prohibited");
#if defined(SB_HAVE_AARCH64) && defined(__aarch64__)
    {
        uint64_t dczid;
        const sb_kernel *k = sb_kernel_find("dc_zva");
        const char *why = NULL;
        int avail;
        __asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
        avail = sb_kernel_available(k, &why);
        tap_diag("DCZID_EL0 0x%llx: dc zva %s, blocks of %zu bytes",
                 (unsigned long long)dczid,
                 dczid & 0x10 ? "prohibited" : "allowed",
                 (size_t)4 << (dczid & 0xf));
        tap_ok(k && avail == !(dczid & 0x10) &&
                   (avail || (why && strstr(why, "DZP"))),
               "dc_zva available %d as DCZID_EL0.DZP says (%s)", avail,
               why ? why : "no reason");
    }
#else
    tap_skip("dc_zva available as DCZID_EL0 says: not aarch64");
#endif
}

static void test_features(void)
{
    unsigned have = sb_cpu_features(), known = 0;
    size_t i;
    char list[256] = "";

    for (i = 0; i < NFEATURES; ++i) {
        known |= features[i].bit;
        TAP_IS_STR(sb_feature_name(features[i].bit), features[i].name,
                   "sb_feature_name(1u << %d)", __builtin_ctz(features[i].bit));
        if (have & features[i].bit) {
            strcat(list, " ");
            strcat(list, features[i].name);
        }
    }
    TAP_IS_STR(sb_feature_name(0), "?", "sb_feature_name(0)");
    TAP_IS_STR(sb_feature_name(1u << 20), "?", "sb_feature_name(1u << 20)");
    TAP_IS_STR(sb_feature_name(SB_FEAT_MMX | SB_FEAT_SSE2), "?",
               "sb_feature_name of two bits");
    tap_diag("this CPU:%s", list[0] ? list : " (none)");

    tap_ok((have & ~known) == 0, "sb_cpu_features has only known bits");
    TAP_IS_INT(sb_cpu_features(), have, "sb_cpu_features is stable");
#ifdef SB_HAVE_X86_64
    tap_ok((have & (SB_FEAT_X86_64 | SB_FEAT_SSE2 | SB_FEAT_MMX)) ==
               (SB_FEAT_X86_64 | SB_FEAT_SSE2 | SB_FEAT_MMX),
           "x86-64 has x86_64, mmx and sse2");
    tap_ok(!(have & SB_FEAT_AVX512F) || (have & SB_FEAT_AVX2),
           "avx512f comes with avx2");
    tap_ok(!(have & SB_FEAT_ASIMD), "no aarch64 feature on x86-64");
#elif defined(SB_HAVE_AARCH64) && defined(__linux__)
    TAP_IS_INT(have & ~SB_FEAT_ASIMD, 0, "no feature but asimd on aarch64");
    TAP_IS_INT(!!(have & SB_FEAT_ASIMD),
               !!(getauxval(AT_HWCAP) & TEST_HWCAP_ASIMD),
               "asimd exactly when AT_HWCAP has HWCAP_ASIMD");
#else
    TAP_IS_INT(have, 0, "no CPU features off x86-64 and aarch64");
#endif
    test_cpuinfo(have);

    /* sb_kernel_available: a made-up kernel per feature bit. */
    for (i = 0; i < NFEATURES; ++i) {
        sb_kernel fake = {sizeof(sb_kernel), "fake", SB_FAMILY_COPY, "fake",
                          features[i].bit, sb__copy_duff, NULL, NULL, NULL, 0};
        const char *why = "unchanged";
        int avail = sb_kernel_available(&fake, &why);
        if (have & features[i].bit) {
            tap_ok(avail == 1 && why == NULL,
                   "a kernel needing %s is available, why NULL",
                   features[i].name);
        } else {
            char want[64];
            snprintf(want, sizeof want, "needs %s", features[i].name);
            TAP_IS_INT(avail, 0, "a kernel needing %s is unavailable",
                       features[i].name);
            TAP_IS_STR(why, want, "why names %s", features[i].name);
        }
        TAP_IS_INT(sb_kernel_available(&fake, NULL), avail,
                   "sb_kernel_available(%s) without why", features[i].name);
    }
    {
        sb_kernel fake = {sizeof(sb_kernel), "fake", SB_FAMILY_COPY, "fake",
                          1u << 20, sb__copy_duff, NULL, NULL, NULL, 0};
        const char *why = NULL;
        int avail = sb_kernel_available(&fake, &why);
        tap_ok(avail == 0 && why && why[0],
               "a kernel needing an unknown feature is unavailable (%s)",
               why ? why : "(null)");
        why = NULL;
        avail = sb_kernel_available(NULL, &why);
        tap_ok(avail == 0 && why && why[0],
               "sb_kernel_available(NULL) is 0 (%s)", why ? why : "(null)");
    }
    /* The registered kernels: available exactly when the features are
     * and the kernel's own check (when it has one) agrees. */
    for (i = 0; i < sb_kernel_count(); ++i) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL, *own = NULL;
        int avail = sb_kernel_available(k, &why);
        int want = (k->features & ~have) == 0 &&
                   (!k->available || k->available(&own));
        tap_ok(avail == want && (avail ? why == NULL : why != NULL),
               "%s: available %d%s%s", k->name, avail, why ? ", " : "",
               why ? why : "");
    }
    test_zva();
}

/* ------------------------------------------------------------------------ */
/* csum_copy: the checksum                                                   */
/* ------------------------------------------------------------------------ */

/* RFC 1071 done the plain way: big-endian 16-bit words added one at a time
 * with end-around carry, an odd last byte padded with a zero byte, the
 * complement of the sum. */
static uint16_t ref_csum(const unsigned char *p, size_t n)
{
    uint32_t sum = 0;
    size_t i;
    for (i = 0; i + 1 < n; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
        if (sum > 0xffff)
            sum -= 0xffff;
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
        if (sum > 0xffff)
            sum -= 0xffff;
    }
    return (uint16_t)~sum;
}

/* sb__csum_copy at (n, sa, da) from src_buf (which holds data) into
 * dst_buf: the checksum is want, the copy exact, the guards untouched.
 * Returns 1 when all is well; else 0 and a diagnostic for the first
 * failure of a TAP line (*reported counts them). */
static int csum_one(const unsigned char *data, size_t n, size_t sa, size_t da,
                    uint16_t want, int *reported)
{
    unsigned char *s = src_buf + PAGE + sa;
    unsigned char *d = dst_buf + PAGE + da;
    uint16_t got;
    int good;

    memset(d - GUARD, 0xa5, n + 2 * GUARD);
    got = sb__csum_copy(d, s, n);
    good = got == want && memcmp(d, data + PAGE + sa, n) == 0;
    for (size_t i = 0; good && i < GUARD; ++i)
        good = d[-1 - (long)i] == 0xa5 && d[n + i] == 0xa5;
    if (!good && (*reported)++ == 0)
        tap_diag("  n %zu, src_align %zu, dst_align %zu: checksum 0x%04x, "
                 "want 0x%04x; copy %s", n, sa, da, got, want,
                 memcmp(d, data + PAGE + sa, n) == 0 ? "right" : "wrong");
    return good;
}

/* Over a set of sizes: every source alignment 0..64, and for each every
 * destination alignment (full) or three of them (0, 1 and one that moves
 * with the source). */
static void csum_sizes(const unsigned char *data, const size_t *ns,
                       size_t count, int full, const char *what)
{
    size_t i, sa, da, bad = 0, calls = 0;
    int reported = 0;
    for (i = 0; i < count; ++i) {
        size_t n = ns[i];
        for (sa = 0; sa <= MAX_ALIGN; ++sa) {
            uint16_t want = ref_csum(data + PAGE + sa, n);
            for (da = 0; da <= MAX_ALIGN; ++da) {
                if (!full && da != 0 && da != 1 && da != (sa * 7 + 3) % 65)
                    continue;
                ++calls;
                if (!csum_one(data, n, sa, da, want, &reported))
                    ++bad;
            }
        }
    }
    if (!tap_ok(bad == 0, "csum_copy: %s (%zu calls)", what, calls))
        tap_diag("  %zu of %zu calls wrong", bad, calls);
}

static void test_csum(void)
{
    /* RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2. */
    static const unsigned char rfc[8] = {0x00, 0x01, 0xf2, 0x03,
                                         0xf4, 0xf5, 0xf6, 0xf7};
    unsigned char out[16], buf[16];
    size_t small[257], big[] = {255, 256, 257, 1023, 1024, 1025, 4095,
                                4096, 4097, 65535, 65537};
    size_t huge[] = {MAX_SIZE - 1, MAX_SIZE};
    size_t i;
    const sb_kernel *k = sb_kernel_find("csum_copy");
    unsigned char *ffs;

    TAP_IS_INT(sb__csum_copy(out, rfc, 8), 0x220d,
               "csum_copy: RFC 1071's example gives ~0xddf2");
    tap_ok(memcmp(out, rfc, 8) == 0, "csum_copy: RFC 1071's example copied");
    TAP_IS_INT(ref_csum(rfc, 8), 0x220d, "the reference agrees on it");
    TAP_IS_INT(sb__csum_copy(out, rfc, 0), 0xffff,
               "csum_copy: no bytes give 0xffff");
    TAP_IS_INT(sb__csum_copy(out, rfc, 1), 0xffff,
               "csum_copy: one zero byte gives 0xffff");
    TAP_IS_INT(sb__csum_copy(out, rfc + 2, 1), 0x0dff,
               "csum_copy: a lone byte f2 is the word f200");
    /* A checksum stored after the data (big-endian, at an even offset)
     * makes the checksum of the whole 0: the receiver's check. */
    memcpy(buf, rfc, 8);
    buf[8] = 0x22;
    buf[9] = 0x0d;
    TAP_IS_INT(sb__csum_copy(out, buf, 10), 0,
               "csum_copy: data with its checksum appended sums to 0");

    for (i = 0; i < sizeof small / sizeof small[0]; ++i)
        small[i] = i;
    csum_sizes(pattern, small, sizeof small / sizeof small[0], 1,
               "n = 0..256, every source and destination alignment 0..64");
    csum_sizes(pattern, big, sizeof big / sizeof big[0], 0,
               "n = 255 .. 65537, every source alignment, 3 destination "
               "alignments each");
    csum_sizes(pattern, huge, sizeof huge / sizeof huge[0], 0,
               "n = 262143, 262144, every source alignment, 3 destination "
               "alignments each");

    /* All-ones data: the sum is 0xffff (every add carries around), the
     * checksum 0.  All zeros: sum 0, checksum 0xffff. */
    ffs = page_alloc();
    memset(ffs, 0xff, BUF_LEN);
    memcpy(src_buf, ffs, BUF_LEN);
    csum_sizes(ffs, huge, 1, 0, "all-ones data, n = 262143 (carries)");
    memset(src_buf, 0, BUF_LEN);
    csum_sizes(zeros, small + 255, 2, 0, "all-zero data, n = 255, 256");
    memcpy(src_buf, pattern, BUF_LEN);
    free(ffs);

    /* The registered kernel copies; its checksum goes to a sink. */
    tap_ok(k && k->fn == sb__copy_csum && k->family == SB_FAMILY_COPY,
           "csum_copy is registered with sb__copy_csum");
}

/* ------------------------------------------------------------------------ */
/* SIMD state after the MMX and AVX kernels                                  */
/* ------------------------------------------------------------------------ */

#if defined(SB_HAVE_X86_64) && defined(__x86_64__)
#include <cpuid.h>

/* The x87 tag word as fxsave stores it (abridged, one bit per register,
 * 1 = valid): 0 when the x87 stack is empty, as emms leaves it.  After
 * MMX code without emms it is 0xff, and every x87 load overflows the
 * stack and yields NaN.  fxsave changes no state. */
static unsigned x87_tags(void)
{
    _Alignas(16) unsigned char area[512];
    __asm__ volatile("fxsave %0" : "=m"(area));
    return area[4];
}

/* A long double computation (x87 on x86-64) that comes out right only on
 * an empty x87 stack.  This and the MMX helpers below are functions the
 * compiler may not inline: the ABI has the x87 stack empty at every call,
 * so no x87 value lives across one, and the calls keep their order.  (An
 * inline emms between x87 code is another matter: clang moves x87 loads
 * across it.) */
__attribute__((noinline)) static int x87_works(void)
{
    volatile long double a = 1.5L, b = 2.25L;
    long double c = a * b + a; /* 4.875 */
    return c == 4.875L;
}

/* XINUSE (xgetbv with ecx = 1) has bit 2 set while the upper halves of
 * the ymm registers may be non-zero and bit 6 while those of zmm0-15 may;
 * vzeroupper clears both.  (Bit 7, zmm16-31, is left alone: vzeroupper
 * does not touch those, and glibc's own EVEX string functions use them.)
 * Usable when CPUID.(0xd, 1):EAX bit 2 says so and the OS enabled
 * XSAVE. */
#define XINUSE_UPPER ((1u << 2) | (1u << 6))

static int xinuse_usable(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
        return 0;
    if (__get_cpuid_max(0, NULL) < 0xd)
        return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a & (1u << 2)) != 0;
}

static unsigned xinuse(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1u));
    (void)hi;
    return lo;
}

/* The AVX instructions of the controls are in asm of functions compiled
 * for baseline x86-64 (callers check the CPU first): in a function
 * compiled for AVX, GCC would add a vzeroupper of its own before the
 * return and spoil the dirty control. */
__attribute__((noinline)) static void upper_clean(void)
{
    __asm__ volatile("vzeroupper" ::: "memory");
}

/* Leaves the upper half of ymm0 all ones: the dirty state a kernel
 * without vzeroupper would leave. */
__attribute__((noinline)) static void upper_dirty(void)
{
    __asm__ volatile("vpcmpeqd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}

/* MMX without emms: the tags full, as a kernel that forgot it would leave
 * them. */
__attribute__((noinline)) static void mmx_dirty(void)
{
    __asm__ volatile("pxor %%mm0, %%mm0" ::: "mm0");
}

__attribute__((noinline)) static void mmx_emms(void)
{
    __asm__ volatile("emms");
}

static void test_simd_state(void)
{
    unsigned have = sb_cpu_features();
    int xin = xinuse_usable() && (have & SB_FEAT_AVX2);
    int xin_works = 0;
    size_t i;

    /* The checks must be able to fail: a forgotten emms shows. */
    if (have & SB_FEAT_MMX) {
        unsigned before, after;
        int works;
        before = x87_tags();
        mmx_dirty();
        after = x87_tags();
        works = x87_works();
        mmx_emms();
        tap_ok(before == 0 && after == 0xff && !works && x87_works(),
               "control: MMX without emms fills the x87 tags (0x%02x -> "
               "0x%02x) and breaks long double arithmetic; emms mends it",
               before, after);
    } else {
        tap_skip("control: MMX without emms: needs mmx");
    }
    if (xin) {
        unsigned clean, dirty;
        upper_clean();
        clean = xinuse() & XINUSE_UPPER;
        upper_dirty();
        dirty = xinuse() & XINUSE_UPPER;
        upper_clean();
        xin_works = clean == 0 && dirty != 0 && (xinuse() & XINUSE_UPPER) == 0;
        if (xin_works)
            tap_ok(1, "control: XINUSE shows dirty upper ymm state and its "
                      "clearing by vzeroupper");
        else
            tap_skip("control: XINUSE does not track the upper ymm state "
                     "here (clean 0x%x, dirty 0x%x)", clean, dirty);
    } else {
        tap_skip("control: XINUSE: needs avx2 and xgetbv with ecx = 1");
    }

    for (i = 0; i < sb_kernel_count(); ++i) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL;
        size_t len = 4096 + 77; /* head, body and tail */
        unsigned char *d = dst_buf + PAGE + 3, *s = src_buf + PAGE + 5;
        if (k->family != SB_FAMILY_COPY && k->family != SB_FAMILY_CLEAR)
            continue;
        if (k->features & SB_FEAT_MMX) {
            unsigned tags;
            int works;
            if (!sb_kernel_available(k, &why)) {
                tap_skip("%s: x87 state clean after the call: %s", k->name,
                         why);
                continue;
            }
            k->fn(d, s, len, NULL);
            tags = x87_tags();
            works = x87_works();
            k->fn(d, s, 5, NULL); /* no MMX instruction but emms */
            tags |= x87_tags();
            works = works && x87_works();
            mmx_emms(); /* in case the kernel left it */
            if (!tap_ok(tags == 0 && works,
                        "%s: x87 state clean after the call (emms): long "
                        "double arithmetic right", k->name))
                tap_diag("  x87 tags 0x%02x, arithmetic %s", tags,
                         works ? "right" : "wrong");
        }
        if (k->features & (SB_FEAT_AVX2 | SB_FEAT_AVX512F)) {
            unsigned upper;
            if (!sb_kernel_available(k, &why)) {
                tap_skip("%s: upper ymm/zmm state clean after the call: %s",
                         k->name, why);
                continue;
            }
            if (!xin_works) {
                tap_skip("%s: upper ymm/zmm state clean after the call: "
                         "XINUSE unusable here (vzeroupper checked by "
                         "tests/codegen.sh)", k->name);
                continue;
            }
            upper_clean();
            k->fn(d, s, len, NULL);
            upper = xinuse() & XINUSE_UPPER;
            upper_clean();
            if (!tap_ok(upper == 0,
                        "%s: upper ymm/zmm state clean after the call "
                        "(vzeroupper)", k->name))
                tap_diag("  XINUSE upper bits 0x%x", upper);
        }
    }
    memcpy(src_buf, pattern, BUF_LEN);
}
#else
static void test_simd_state(void)
{
    tap_skip("SIMD state after the MMX and AVX kernels: not x86-64");
}
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    buffers_init();
    test_table();
    test_features();
    test_bytes();
    test_csum();
    test_simd_state();
    free(src_buf);
    free(dst_buf);
    free(pattern);
    free(inverse);
    free(zeros);
    free(ones);
    return tap_done();
}
