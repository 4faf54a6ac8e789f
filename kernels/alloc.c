/*
 * alloc.c: allocate n bytes, touch every page, give them back.
 *
 * Thread 001 timed 1000 rounds of "mmap 16 MiB anonymous, touch all
 * pages, munmap" and read user and system seconds from time(1).  One call
 * of mmap_touch is one of those rounds, so its median time is the thread's
 * total divided by 1000, with a confidence interval instead of five
 * eyeballed runs.  Almost all of it is system time: one page fault per
 * page (trap, page allocation from the buddy allocator the thread was
 * patching, zeroing 4 KiB, page table update), then munmap (TLB flush,
 * freeing the pages).  The variants move where that cost falls:
 *
 *  - mmap_populate: MAP_POPULATE makes mmap itself fault every page in
 *    (get_user_pages, no trap per page); the touch loop then finds the
 *    pages present.  The difference to mmap_touch is the price of the
 *    traps.
 *  - malloc_touch: the same through malloc and free.  See the comment
 *    above sb__alloc_malloc_touch: with glibc it usually measures memory
 *    that is not given back at all.
 *  - thp: a 2 MiB-aligned mapping with MADV_HUGEPAGE, so that each fault
 *    maps (and zeroes) a whole transparent huge page: 8 faults for 16 MiB
 *    instead of 4096.
 *
 * What the machine is set up to do changes these figures, and a report
 * should say how it was set up: with /sys/kernel/mm/transparent_hugepage/
 * enabled at [always] (or a multi-size THP size at always), mmap_touch's
 * plain mapping may get huge or large folios too; a process that locks
 * its future memory (mlockall(MCL_FUTURE)) populates every mapping in mmap,
 * which turns mmap_touch into mmap_populate.
 *
 * The stores are volatile: the compiler must emit each of them, and may
 * not drop the touch loop or, for malloc_touch, the whole malloc / free
 * pair (compilers remove a malloc whose memory is never observably used).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels_sys.h"
#include "sb_internal.h"

#define SB__THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define SB__THP_PMD_SIZE "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"

/* What setup learns once so that fn does not ask the system every call. */
typedef struct sb__alloc_state {
    size_t page;  /* sysconf(_SC_PAGESIZE) */
    size_t hpage; /* PMD huge page size (thp only; else 0) */
} sb__alloc_state;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    /* A power of two on every Linux; the fallback is never expected. */
    return p > 0 && ((unsigned long)p & ((unsigned long)p - 1)) == 0
               ? (size_t)p
               : SB_PAGE_SIZE;
}

/* The PMD-level transparent huge page size: 2 MiB on x86-64, other sizes
 * elsewhere (512 MiB on arm64 with 64 KiB pages). */
static size_t huge_page_size(void)
{
    size_t h = 2u << 20;
    FILE *f = fopen(SB__THP_PMD_SIZE, "r");
    if (f) {
        unsigned long long v;
        if (fscanf(f, "%llu", &v) == 1 && v > 0 && (v & (v - 1)) == 0 &&
            v <= SIZE_MAX / 4)
            h = (size_t)v;
        fclose(f);
    }
    return h;
}

void sb__alloc_touch(void *p, size_t n, size_t page)
{
    volatile unsigned char *v = p;
    size_t i;
    if (n == 0)
        return;
    /* The first byte, then the first byte of every following page: one
     * store per page the block overlaps, whether or not p is aligned
     * (malloc's blocks start 16 bytes into a page). */
    v[0] = 1;
    for (i = page - ((uintptr_t)p & (page - 1)); i < n; i += page)
        v[i] = 1;
}

static size_t state_page(const void *state)
{
    return state ? ((const sb__alloc_state *)state)->page : page_size();
}

static void map_touch_unmap(size_t n, int flags, void *state)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    /* Setup made the same mapping, so this only fails when memory ran out
     * since then (an address-space limit near the edge): a call that maps
     * nothing takes no fault and would look thousands of times faster
     * than the truth, so it is reported and its sample rejected. */
    if (p == MAP_FAILED) {
        sb_kernel_failed(errno);
        return;
    }
    sb__alloc_touch(p, n, state_page(state));
    /* A mapping that stays would make every later call fail. */
    if (munmap(p, n) != 0)
        sb_kernel_failed(errno);
}

void sb__alloc_mmap_touch(void *dst, const void *src, size_t n, void *state)
{
    (void)dst;
    (void)src;
    map_touch_unmap(n, 0, state);
}

void sb__alloc_mmap_populate(void *dst, const void *src, size_t n,
                             void *state)
{
    (void)dst;
    (void)src;
    map_touch_unmap(n, MAP_POPULATE, state);
}

/* malloc n, touch, free.  What this measures is the C library's policy,
 * which is the point of having it next to mmap_touch:
 *
 *  - glibc serves a request above M_MMAP_THRESHOLD (128 KiB at start)
 *    with its own mmap, and free gives it back with munmap: the same
 *    faults as mmap_touch plus malloc's bookkeeping.
 *  - But the threshold is dynamic: when free unmaps such a block, glibc
 *    raises the threshold to that block's size (if below 32 MiB, on 64-bit)
 *    and the trim threshold to twice that.  The next malloc of the same
 *    size then comes from the heap (brk), and free keeps it there.  setup
 *    frees one block of n bytes, so for n below 32 MiB the first timed call
 *    faults the heap in and every later call reuses it: the steady state
 *    is malloc/free bookkeeping plus a page-stride write loop over memory
 *    that is already mapped, with no page faults at all.  That is what a
 *    program that reuses its buffers pays, not thread 001's loop.
 *  - For n of 32 MiB or more, or with the threshold fixed (mallopt
 *    M_MMAP_THRESHOLD, or GLIBC_TUNABLES=glibc.malloc.mmap_threshold=
 *    131072 in the environment, which turns the dynamic rule off), every
 *    call maps and faults afresh, like mmap_touch.
 *
 * tests/test_sysalloc.c checks both behaviours.  Other C libraries (musl,
 * jemalloc, tcmalloc) have policies of their own. */
void sb__alloc_malloc_touch(void *dst, const void *src, size_t n,
                            void *state)
{
    unsigned char *p;
    (void)dst;
    (void)src;
    p = malloc(n);
    if (!p) {
        sb_kernel_failed(ENOMEM); /* as for mmap_touch */
        return;
    }
    sb__alloc_touch(p, n, state_page(state));
    free(p);
}

/* A mapping of n bytes (rounded up to whole pages) that starts on a
 * boundary of hpage: map hpage more than needed, then unmap the head
 * before the first boundary and the tail after the rounded n bytes, so
 * that the caller owns exactly that range and munmap(p, n) frees it all.
 * hpage and page are powers of two, hpage a multiple of page; the caller
 * checked that n + hpage + page does not overflow. */
static void *map_aligned(size_t n, size_t hpage, size_t page)
{
    size_t body = (n + page - 1) & ~(page - 1);
    size_t len = body + hpage, head, tail;
    unsigned char *base, *p;
    base = mmap(NULL, len, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return MAP_FAILED;
    head = (hpage - ((uintptr_t)base & (hpage - 1))) & (hpage - 1);
    p = base + head;
    tail = len - head - body;
    /* A trim that fails leaves address space mapped for good, and later
     * calls would fail for want of it: report it now (from setup, the
     * count is harmless: samples compare the count around themselves). */
    if (head && munmap(base, head) != 0)
        sb_kernel_failed(errno);
    if (tail && munmap(p + body, tail) != 0)
        sb_kernel_failed(errno);
    return p;
}

void sb__alloc_thp(void *dst, const void *src, size_t n, void *state)
{
    const sb__alloc_state *s = state;
    size_t hpage = s && s->hpage ? s->hpage : huge_page_size();
    size_t page = state_page(state);
    unsigned char *p;
    (void)dst;
    (void)src;
    if (n == 0 || n > SIZE_MAX - hpage - page) {
        sb_kernel_failed(EINVAL); /* setup refuses these sizes */
        return;
    }
    p = map_aligned(n, hpage, page);
    if (p == MAP_FAILED) {
        sb_kernel_failed(errno); /* as for mmap_touch */
        return;
    }
    /* Before the first touch, so that the first fault in each 2 MiB range
     * allocates a huge page (with THP at [madvise], only advised ranges
     * get them).  A failure leaves small pages, 512 times the faults: not
     * this kernel's figure, so the call is reported failed (after its
     * work, so that the mapping is still freed). */
    if (madvise(p, n, MADV_HUGEPAGE) != 0)
        sb_kernel_failed(errno);
    sb__alloc_touch(p, n, page);
    if (munmap(p, n) != 0)
        sb_kernel_failed(errno);
}

int sb__alloc_thp_available(const char **why)
{
    char line[256];
    FILE *f = fopen(SB__THP_ENABLED, "r");
    const char *reason = NULL;
    if (!f) {
        reason = "transparent huge pages not supported by this kernel "
                 "(no " SB__THP_ENABLED ")";
    } else {
        if (!fgets(line, sizeof line, f))
            reason = "cannot read " SB__THP_ENABLED;
        else if (strstr(line, "[always]") || strstr(line, "[madvise]"))
            reason = NULL;
        else if (strstr(line, "[never]"))
            reason = "transparent huge pages are off (" SB__THP_ENABLED
                     " is [never])";
        else
            reason = "unknown setting in " SB__THP_ENABLED;
        fclose(f);
    }
    if (reason) {
        if (why)
            *why = reason;
        return 0;
    }
    return 1;
}

/* Kinds of alloc kernel, for the one setup they share. */
enum { SB__MMAP, SB__POPULATE, SB__MALLOC, SB__THP };

static const char *kind_name(const struct sb_cell *cell, int kind)
{
    static const char *const names[] = {"mmap_touch", "mmap_populate",
                                        "malloc_touch", "thp"};
    if (cell->kernel && cell->kernel->name)
        return cell->kernel->name;
    return names[kind];
}

/* Allocate and free n bytes once, the way fn will, so that a size this
 * machine cannot map fails here with a message rather than silently in
 * every timed call. */
static int alloc_setup(void **state, const struct sb_cell *cell,
                       sb_error *err, int kind)
{
    sb__alloc_state *s;
    const char *name;
    size_t n;
    int e;
    if (!state || !cell)
        return sb__error(err, SB_EINVAL, "alloc kernel setup without a cell");
    *state = NULL;
    name = kind_name(cell, kind);
    n = cell->size;
    if (n == 0)
        return sb__error(err, SB_EINVAL,
                         "%s: size 0: an alloc kernel needs at least one "
                         "byte to allocate",
                         name);
    s = malloc(sizeof *s);
    if (!s)
        return sb__error(err, SB_ENOMEM, "%s: out of memory", name);
    s->page = page_size();
    s->hpage = kind == SB__THP ? huge_page_size() : 0;
    if (kind == SB__THP && s->hpage < s->page)
        s->hpage = s->page;

    switch (kind) {
    case SB__MMAP:
    case SB__POPULATE: {
        void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS |
                           (kind == SB__POPULATE ? MAP_POPULATE : 0),
                       -1, 0);
        if (p == MAP_FAILED) {
            e = errno;
            free(s);
            return sb__error(err, SB_ENOMEM,
                             "%s: cannot mmap %zu bytes%s: %s", name, n,
                             kind == SB__POPULATE ? " with MAP_POPULATE" : "",
                             strerror(e));
        }
        munmap(p, n);
        break;
    }
    case SB__MALLOC: {
        void *p;
        errno = 0;
        p = malloc(n);
        /* The pointer escapes into an empty asm: without it clang removes
         * a malloc whose block is only freed, folds the NULL test to
         * "succeeded", and this check (and the free that moves glibc's
         * threshold, see above) silently disappears. */
        __asm__ volatile("" : : "r"(p) : "memory");
        if (!p) {
            e = errno ? errno : ENOMEM;
            free(s);
            return sb__error(err, SB_ENOMEM, "%s: cannot malloc %zu bytes: %s",
                             name, n, strerror(e));
        }
        free(p);
        break;
    }
    case SB__THP: {
        void *p;
        if (n > SIZE_MAX - s->hpage - s->page) {
            free(s);
            return sb__error(err, SB_EINVAL,
                             "%s: size %zu plus a huge page of alignment "
                             "overflows",
                             name, n);
        }
        p = map_aligned(n, s->hpage, s->page);
        if (p == MAP_FAILED) {
            size_t len = n + s->hpage;
            e = errno;
            free(s);
            return sb__error(err, SB_ENOMEM,
                             "%s: cannot mmap %zu bytes (%zu with the "
                             "alignment slack): %s",
                             name, n, len, strerror(e));
        }
        if (madvise(p, n, MADV_HUGEPAGE) != 0) {
            e = errno;
            munmap(p, n);
            free(s);
            return sb__error(err, e == EINVAL ? SB_EUNAVAIL : SB_ESYS,
                             "%s: madvise(MADV_HUGEPAGE) of %zu bytes "
                             "failed: %s",
                             name, n, strerror(e));
        }
        munmap(p, n);
        break;
    }
    }
    *state = s;
    return SB_OK;
}

int sb__alloc_mmap_touch_setup(void **state, const struct sb_cell *cell,
                               sb_error *err)
{
    return alloc_setup(state, cell, err, SB__MMAP);
}

int sb__alloc_mmap_populate_setup(void **state, const struct sb_cell *cell,
                                  sb_error *err)
{
    return alloc_setup(state, cell, err, SB__POPULATE);
}

int sb__alloc_malloc_touch_setup(void **state, const struct sb_cell *cell,
                                 sb_error *err)
{
    return alloc_setup(state, cell, err, SB__MALLOC);
}

int sb__alloc_thp_setup(void **state, const struct sb_cell *cell,
                        sb_error *err)
{
    return alloc_setup(state, cell, err, SB__THP);
}

void sb__alloc_teardown(void *state)
{
    free(state);
}
