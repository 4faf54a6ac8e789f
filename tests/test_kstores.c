/*
 * test_kstores.c: the stores each copy kernel's main loop makes, and each
 * aligned clear kernel's, against what its description promises.  The
 * copied bytes cannot
 * show which pointer a kernel aligns, nor whether its non-temporal stores
 * fill whole lines: a kernel that aligns the source instead of the
 * destination, or heads to 16 bytes instead of 64, copies every byte
 * right.  So this program compiles the kernel files again with
 * -DSB_KERNEL_CHECK (Makefile.am), which makes each main-loop store call
 * sb__check_store below first (kernels/kernels.h); the library's kernels
 * are built without it and are unchanged.
 *
 * The promise, per kernel: a head of scalar moves up to alignment A of the
 * destination (A - 1 bytes at most, fewer when n is short), then stores of
 * whole units of L bytes, each aligned to W, covering one contiguous range
 * from the aligned destination on, as many units as fit, then a tail of
 * fewer than L bytes.  For a non-temporal kernel A = L = 64: every line it
 * stores to it fills.  The expected range is computed here from the
 * pointers alone, not by the kernels' sb__head.
 *
 * The aarch64 kernels store from asm too; each calls the hook in C with
 * the address and width its asm then stores to, as the x86 ones do, so
 * the hook sees them the same way.  dc_zva's unit is the block DCZID_EL0
 * states, read here with its own mrs; a kernel whose unit is more than
 * 64 bytes gets the sizes scaled by its unit / 64, so that as many of its
 * calls reach the main loop as a 64-byte kernel's do.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SB_HAVE_AARCH64) && defined(__aarch64__)
#include <sys/auxv.h>
#define TEST_HWCAP_ASIMD (1ul << 1) /* Linux's arm64 AT_HWCAP bit */

/* dc zva's block from DCZID_EL0, or 0 when DZP prohibits it. */
static size_t zva_block(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
    return v & 0x10 ? 0 : (size_t)4 << (v & 0xf);
}
#endif

#include "kernels.h"
#include "tap.h"

#define MAX_STORES 8192

static struct store {
    uintptr_t at;
    size_t bytes;
} stores[MAX_STORES];
static size_t nstores, lost;

void sb__check_store(const void *p, size_t bytes)
{
    if (nstores < MAX_STORES)
        stores[nstores++] = (struct store){(uintptr_t)p, bytes};
    else
        lost++;
}

struct kernel {
    const char *name;
    void (*fn)(void *, const void *, size_t, void *);
    int available;
    size_t a; /* the destination's alignment after the head */
    size_t l; /* the unit the main loop stores whole */
    size_t w; /* each store's alignment (and at least its width) */
    int clear; /* a clear: the destination must end up zero */
};

static int by_address(const void *x, const void *y)
{
    const struct store *a = x, *b = y;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Check one call; returns 0 or a diagnostic in why. */
static int check_call(const struct kernel *k, unsigned char *dst,
                      const unsigned char *src, size_t n, char *why,
                      size_t len)
{
    uintptr_t d = (uintptr_t)dst, want_lo, want_hi, at;
    size_t head = (size_t)((k->a - d % k->a) % k->a);

    if (head > n)
        head = n;
    want_lo = d + head;
    want_hi = want_lo + (n - head) / k->l * k->l;
    nstores = lost = 0;
    memset(dst - 64, 0xee, n + 128);
    k->fn(dst, src, n, NULL);
    for (size_t i = 0; k->clear && i < n; i++)
        if (dst[i] != 0) {
            snprintf(why, len, "byte %zu not cleared", i);
            return -1;
        }
    if (!k->clear && memcmp(dst, src, n) != 0) {
        snprintf(why, len, "bytes differ");
        return -1;
    }
    for (size_t i = 0; i < 64; i++)
        if (dst[-1 - (long)i] != 0xee || dst[n + i] != 0xee) {
            snprintf(why, len, "a byte outside the destination changed");
            return -1;
        }
    if (lost) {
        snprintf(why, len, "more than %d stores", MAX_STORES);
        return -1;
    }
    qsort(stores, nstores, sizeof stores[0], by_address);
    at = want_lo;
    for (size_t i = 0; i < nstores; i++) {
        if (stores[i].at % k->w != 0) {
            snprintf(why, len, "a %zu-byte store at destination + %zu is "
                     "not aligned to %zu", stores[i].bytes,
                     (size_t)(stores[i].at - d), k->w);
            return -1;
        }
        if (stores[i].at != at) {
            snprintf(why, len, "a store at destination + %zu where the "
                     "main loop's range wants + %zu", (size_t)(stores[i].at -
                     d), (size_t)(at - d));
            return -1;
        }
        at += stores[i].bytes;
    }
    if (at != want_hi) {
        snprintf(why, len, "the main loop stored [+%zu, +%zu), want "
                 "[+%zu, +%zu)", (size_t)(want_lo - d), (size_t)(at - d),
                 (size_t)(want_lo - d), (size_t)(want_hi - d));
        return -1;
    }
    return 0;
}

int main(void)
{
    static const size_t dst_off[] = {0, 1, 3, 8, 16, 17, 32, 33, 48, 63};
    static const size_t src_off[] = {0, 5, 8, 16, 40};
    static const size_t sizes[] = {0, 7, 8, 63, 64, 65, 127, 128, 200,
                                   255, 256, 257, 1000, 4096, 4096 + 13};
    struct kernel ks[] = {
        {"int64", sb__copy_int64, 1, 8, 8, 8, 0},
#ifdef SB_HAVE_X86_64
        {"mmx_nt", sb__copy_mmx_nt,
         __builtin_cpu_supports("mmx") && __builtin_cpu_supports("sse"), 64,
         64, 64, 0},
        {"sse2", sb__copy_sse2, __builtin_cpu_supports("sse2"), 16, 16, 16,
         0},
        {"sse2_nt", sb__copy_sse2_nt, __builtin_cpu_supports("sse2"), 64, 64,
         16, 0},
        {"avx2", sb__copy_avx2, __builtin_cpu_supports("avx2"), 32, 32, 32,
         0},
        {"avx2_nt", sb__copy_avx2_nt, __builtin_cpu_supports("avx2"), 64, 64,
         32, 0},
        {"avx512", sb__copy_avx512, __builtin_cpu_supports("avx512f"), 64, 64,
         64, 0},
        {"avx512_nt", sb__copy_avx512_nt, __builtin_cpu_supports("avx512f"),
         64, 64, 64, 0},
        /* The clears (clear_x86.c) whose stores are aligned: the
         * non-temporal ones fill whole lines, as the copies do. */
        {"clear_mmx_nt", sb__clear_mmx_nt,
         __builtin_cpu_supports("mmx") && __builtin_cpu_supports("sse"), 64,
         64, 64, 1},
        {"clear_sse2_nt", sb__clear_sse2_nt, __builtin_cpu_supports("sse2"),
         64, 64, 16, 1},
        {"clear_avx2", sb__clear_avx2, __builtin_cpu_supports("avx2"), 32,
         32, 32, 1},
        {"clear_avx512", sb__clear_avx512, __builtin_cpu_supports("avx512f"),
         64, 64, 64, 1},
#endif
#if defined(SB_HAVE_AARCH64) && defined(__aarch64__)
        /* ldp_stp and neon: the 64-byte loop, then 16-byte pairs or
         * single q registers, so whole 16-byte units from the aligned
         * destination on; stnp fills whole lines with 16-byte stnp. */
        {"ldp_stp", sb__copy_ldp_stp, 1, 16, 16, 16, 0},
        {"neon", sb__copy_neon,
         (getauxval(AT_HWCAP) & TEST_HWCAP_ASIMD) != 0, 16, 16, 16, 0},
        {"stnp", sb__copy_stnp, 1, 64, 64, 16, 0},
        {"dc_zva", sb__clear_dc_zva, zva_block() != 0, zva_block(),
         zva_block(), zva_block(), 1},
#endif
    };
    size_t nks = sizeof ks / sizeof ks[0], maxscale = 1, big;
    unsigned char *src, *dst;

    for (size_t j = 0; j < nks; j++)
        if (ks[j].available && ks[j].l / 64 > maxscale)
            maxscale = ks[j].l / 64;
    /* Room for the 64 bytes before the destination, the largest offset,
     * the largest scaled size and the guard after it, in whole pages. */
    big = (64 + 64 + (4096 + 13) * maxscale + 64 + 4095) / 4096 * 4096;
    src = aligned_alloc(4096, big);
    dst = aligned_alloc(4096, big);

    if (!src || !dst) {
        printf("Bail out! out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < big; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    for (size_t j = 0; j < nks; j++) {
        const struct kernel *k = &ks[j];
        size_t calls = 0, looped = 0, bad = 0;
        size_t scale = k->l > 64 ? k->l / 64 : 1;
        char why[320] = "";
        if (!k->available) {
            tap_skip("%s: the CPU lacks its instructions", k->name);
            continue;
        }
        for (size_t a = 0; a < sizeof dst_off / sizeof dst_off[0]; a++)
            for (size_t b = 0; b < sizeof src_off / sizeof src_off[0]; b++)
                for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
                    char w[160];
                    size_t n = sizes[c] * scale;
                    calls++;
                    if (check_call(k, dst + 64 + dst_off[a],
                                   src + 64 + src_off[b], n, w,
                                   sizeof w) != 0) {
                        if (!bad++)
                            snprintf(why, sizeof why,
                                     "dst +%zu, src +%zu, %zu bytes: %s",
                                     dst_off[a], src_off[b], n, w);
                    } else if (nstores) {
                        looped++;
                    }
                }
        tap_ok(bad == 0,
               "%s: destination aligned to %zu, then whole %zu-byte units "
               "of stores aligned to %zu (%zu calls, %zu failed%s%s)",
               k->name, k->a, k->l, k->w, calls, bad, bad ? ": " : "", why);
        /* The hook must have seen the main loop: a kernel whose stores it
         * no longer sees would pass the check above vacuously. */
        tap_ok(looped * 2 > calls, "%s: the hook saw the main loop in %zu "
               "of the %zu calls", k->name, looped, calls);
    }
    free(src);
    free(dst);
    return tap_done();
}
