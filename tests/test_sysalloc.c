/*
 * test_sysalloc.c: the alloc and system-call kernels do what they claim.
 *
 * Their fn cannot report, so this test looks at what one call really did:
 *
 *  - alloc kernels take the page faults they should, counted with
 *    getrusage(RUSAGE_SELF).ru_minflt around a call of n = 16 MiB.  The
 *    expected number depends on the machine's transparent huge page
 *    settings, read from sysfs: a fault may map a 4 KiB page, a multi-size
 *    THP folio (16 KiB .. 1 MiB) or a PMD huge page (2 MiB), whichever the
 *    settings allow for that kind of mapping.  The lower bound is 90% of
 *    n divided by the largest of these (each such folio needs at least one
 *    fault), the upper bound one fault per 4 KiB page plus slack for the
 *    test's own stack and code.
 *  - syscall kernels move exactly the right bytes: pread at every file
 *    offset 0..64 into every destination offset 0..64 gives the file's
 *    bytes with the guard bytes either side untouched; write at every
 *    file offset 0..64 from every source offset 0..64 puts the source's
 *    bytes in the file and nothing else.
 *  - their temporary files have no name once setup returns, and setup
 *    fails cleanly with a message when $TMPDIR does not exist.
 *
 * The kernels are built from SB__SYS_KERNEL_ROWS, the rows the registry
 * pastes, so the rows are tested too.  Runs in about a second.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* glibc's own malloc, not a sanitizer's or valgrind's replacement (whose
 * policies differ: the malloc_touch checks then assert less). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED_MALLOC 1
#endif
#if defined(__GLIBC__) && !defined(SANITIZED_MALLOC)
#define GLIBC_MALLOC 1
#endif

#include "failed.h"
#include "kernels_sys.h"
#include "statbench.h"
#include "tap.h"

#define MIB ((size_t)1 << 20)
#define ALLOC_N (16 * MIB) /* thread 001's size */
#define SLACK 64           /* faults the test's own code may take */

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

static const sb_kernel rows[] = {SB__SYS_KERNEL_ROWS};
#define NROWS (sizeof rows / sizeof rows[0])

static const sb_kernel *row(const char *name)
{
    size_t i;
    for (i = 0; i < NROWS; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    printf("Bail out! no row named %s in SB__SYS_KERNEL_ROWS\n", name);
    exit(1);
}

static size_t page;

/* ---- Page faults -------------------------------------------------------- */

static long minflt(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_minflt;
}

/* The word in brackets of a sysfs setting ("always [madvise] never"), or
 * "" when the file is missing. */
static void thp_setting(const char *path, char *word, size_t len)
{
    char line[256], *a, *b;
    FILE *f = fopen(path, "r");
    word[0] = '\0';
    if (!f)
        return;
    if (fgets(line, sizeof line, f) && (a = strchr(line, '[')) &&
        (b = strchr(a, ']')) && (size_t)(b - a) < len) {
        memcpy(word, a + 1, (size_t)(b - a - 1));
        word[b - a - 1] = '\0';
    }
    fclose(f);
}

static size_t pmd_size(void)
{
    unsigned long long v = 0;
    FILE *f = fopen(THP_DIR "/hpage_pmd_size", "r");
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v ? (size_t)v : 2 * MIB;
}

/* The largest folio the kernel may map with one fault in a fresh private
 * anonymous mapping, with (madvised) or without MADV_HUGEPAGE, and why.
 * Each hugepages-<size>kB/enabled says always, madvise, never, or inherit
 * (follow the top-level enabled); kernels before multi-size THP (6.8)
 * have only the top-level file, which governs the PMD size. */
static size_t fault_unit(int madvised, char *why, size_t whylen)
{
    char top[32], word[32], path[512];
    size_t unit = page, pmd = pmd_size();
    int pmd_listed = 0;
    DIR *d;
    struct dirent *e;

    thp_setting(THP_DIR "/enabled", top, sizeof top);
    snprintf(why, whylen, "THP top-level [%s]: one fault per %zu B page",
             top[0] ? top : "missing", page);
    d = opendir(THP_DIR);
    while (d && (e = readdir(d)) != NULL) {
        unsigned long kb;
        const char *eff;
        if (sscanf(e->d_name, "hugepages-%lukB", &kb) != 1)
            continue;
        if ((size_t)kb * 1024 == pmd)
            pmd_listed = 1;
        snprintf(path, sizeof path, THP_DIR "/%s/enabled", e->d_name);
        thp_setting(path, word, sizeof word);
        eff = strcmp(word, "inherit") == 0 ? top : word;
        if ((strcmp(eff, "always") == 0 ||
             (madvised && strcmp(eff, "madvise") == 0)) &&
            (size_t)kb * 1024 > unit) {
            unit = (size_t)kb * 1024;
            snprintf(why, whylen,
                     "THP hugepages-%lukB is [%.16s]%s: folios of up to "
                     "%lu KiB, so expecting at least n / %lu KiB faults",
                     kb, word,
                     strcmp(word, "inherit") == 0 ? " (top-level)" : "", kb,
                     kb);
        }
    }
    if (d)
        closedir(d);
    if (!pmd_listed && (strcmp(top, "always") == 0 ||
                        (madvised && strcmp(top, "madvise") == 0)) &&
        pmd > unit) {
        unit = pmd;
        snprintf(why, whylen,
                 "THP [%s]: the mapping may get %zu KiB huge pages, so "
                 "expecting at least n / %zu KiB faults",
                 top, pmd / 1024, pmd / 1024);
    }
    return unit;
}

/* Minor faults of one call of k's fn.  Callers make one untimed call
 * first, which faults in the code and stack both sides use. */
static long faults_of_call(const sb_kernel *k, void *state, size_t n)
{
    long before, after;
    before = minflt();
    k->fn(NULL, NULL, n, state);
    after = minflt();
    return after - before;
}

static void *setup_or_bail(const sb_kernel *k, size_t n, size_t sa,
                           size_t da)
{
    sb_cell cell = {.kernel = k, .size = n, .src_align = sa, .dst_align = da};
    sb_error err = {0, ""};
    void *state = NULL;
    if (k->setup(&state, &cell, &err) != SB_OK) {
        printf("Bail out! %s setup (size %zu, offsets %zu/%zu): %s\n",
               k->name, n, sa, da, err.text);
        exit(1);
    }
    return state;
}

/* One call of the kernel name for 16 MiB: its minor faults, at least 0.9
 * of one a unit and at most one a page (and SLACK). */
static void check_call_faults(const char *name, size_t unit, const char *why)
{
    const sb_kernel *k = row(name);
    void *state = setup_or_bail(k, ALLOC_N, 0, 0);
    long pages = (long)(ALLOC_N / page), lo = (long)(0.9 * ALLOC_N / unit);
    long d;
    k->fn(NULL, NULL, ALLOC_N, state);
    d = faults_of_call(k, state, ALLOC_N);
    if (!tap_ok(d >= lo && d <= pages + SLACK,
                "%s: one call of 16 MiB takes %ld minor faults, "
                "within [%ld, %ld]",
                name, d, lo, pages + SLACK))
        tap_diag("  %s", why);
    k->teardown(state);
}

static void test_mmap_touch(size_t unit, const char *why)
{
    check_call_faults("mmap_touch", unit, why);
}

/* MAP_POPULATE faults every page in inside mmap, through get_user_pages,
 * and the kernel charges those faults to the calling task's min_flt like
 * trap faults (mm_account_fault counts them before it skips the perf
 * events of a fault that has no registers).  So the call's ru_minflt
 * rises by one per page as for mmap_touch (4096 on Linux 6.18), and the
 * difference is where the faults happen: the touch loop afterwards takes
 * none.  The second check repeats the kernel's steps to see the split. */
static void test_mmap_populate(size_t unit, const char *why)
{
    long lo = (long)(0.9 * ALLOC_N / unit);
    long d_map, d_touch;
    void *p;

    check_call_faults("mmap_populate", unit, why);
    if (tap_emulated()) {
        tap_skip("mmap_populate: where the faults are taken: %s",
                 tap_emulated());
        return;
    }
    d_map = minflt();
    p = mmap(NULL, ALLOC_N, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    d_map = minflt() - d_map;
    if (p == MAP_FAILED) {
        printf("Bail out! mmap of 16 MiB failed: %s\n", strerror(errno));
        exit(1);
    }
    d_touch = minflt();
    sb__alloc_touch(p, ALLOC_N, page);
    d_touch = minflt() - d_touch;
    munmap(p, ALLOC_N);
    tap_ok(d_map >= lo && d_touch <= SLACK,
           "mmap_populate: the faults are taken inside mmap (%ld, at least "
           "%ld), the touch loop finds the pages present (%ld faults)",
           d_map, lo, d_touch);
}

/* malloc_touch with glibc's threshold fixed (mallopt), in a child process
 * so that the parent's allocator keeps its defaults: every call maps a
 * fresh block and faults like mmap_touch.  Returns the faults of three
 * calls in f[0..2], 0 on success. */
static int malloc_fixed_threshold(long f[3])
{
#ifdef GLIBC_MALLOC
    int fds[2], status;
    pid_t pid;
    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const sb_kernel *k = row("malloc_touch");
        long g[3] = {-1, -1, -1};
        void *state;
        sb_cell cell = {.kernel = k, .size = ALLOC_N};
        sb_error err = {0, ""};
        close(fds[0]);
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        if (k->setup(&state, &cell, &err) == SB_OK) {
            for (int i = 0; i < 3; i++)
                g[i] = faults_of_call(k, state, ALLOC_N);
            k->teardown(state);
        }
        if (write(fds[1], g, sizeof g) != (ssize_t)sizeof g)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], f, 3 * sizeof *f) != (ssize_t)(3 * sizeof *f))
        f[0] = f[1] = f[2] = -1;
    close(fds[0]);
    waitpid(pid, &status, 0);
    return 0;
#else
    (void)f;
    return -1;
#endif
}

/* What malloc_touch measures depends on the allocator: see alloc.c.  With
 * glibc's defaults, setup's free of an mmapped block raises the mmap
 * threshold to its size, so the first call extends the heap (fresh pages,
 * faults) and free keeps the block: later calls take no faults.  With the
 * threshold fixed, every call faults. */
static void test_malloc_touch(size_t unit, const char *why)
{
    const sb_kernel *k = row("malloc_touch");
    long pages = (long)(ALLOC_N / page), lo = (long)(0.9 * ALLOC_N / unit);
    long f[3], g[3];
    const char *tun = getenv("GLIBC_TUNABLES");
    int fixed = getenv("MALLOC_MMAP_THRESHOLD_") != NULL ||
                (tun && strstr(tun, "mmap_threshold"));
    void *state;

    /* First the child: the parent's heap must not yet hold a 16 MiB
     * block when it forks. */
    if (malloc_fixed_threshold(g) == 0)
        tap_ok(g[0] >= lo && g[1] >= lo && g[2] >= lo,
               "malloc_touch with M_MMAP_THRESHOLD fixed at 128 KiB: every "
               "call maps afresh and faults (%ld, %ld, %ld; at least %ld)",
               g[0], g[1], g[2], lo);
    else
        tap_skip("malloc_touch with a fixed threshold: not glibc's malloc, "
                 "or fork failed");

    state = setup_or_bail(k, ALLOC_N, 0, 0);
    for (int i = 0; i < 3; i++)
        f[i] = faults_of_call(k, state, ALLOC_N);
    k->teardown(state);
#ifndef GLIBC_MALLOC
    /* Another allocator may add its own pages (redzones, headers). */
    pages = LONG_MAX - SLACK;
#endif
    if (!tap_ok(f[0] >= lo && f[0] <= pages + SLACK,
                "malloc_touch: the first call after setup faults its pages "
                "in (%ld faults, at least %ld)",
                f[0], lo))
        tap_diag("  %s", why);
#ifdef GLIBC_MALLOC
    if (!fixed) {
        tap_ok(f[1] <= SLACK && f[2] <= SLACK,
               "malloc_touch with glibc's dynamic threshold: later calls "
               "reuse the kept block (%ld, %ld faults)",
               f[1], f[2]);
        return;
    }
#endif
    (void)fixed;
    tap_ok((f[1] <= SLACK && f[2] <= SLACK) || (f[1] >= lo && f[2] >= lo),
           "malloc_touch: later calls either all reuse the block or all "
           "fault (%ld, %ld faults)",
           f[1], f[2]);
}

/* A counter of /proc/vmstat, or -1. */
static long vmstat(const char *name)
{
    char key[64];
    unsigned long long v;
    long r = -1;
    FILE *f = fopen("/proc/vmstat", "r");
    if (!f)
        return -1;
    while (fscanf(f, "%63s %llu", key, &v) == 2)
        if (strcmp(key, name) == 0) {
            r = (long)v;
            break;
        }
    fclose(f);
    return r;
}

static void test_thp(void)
{
    const sb_kernel *k = row("thp");
    const char *why = NULL;
    char top[32];
    int avail = k->available(&why);
    long pages = (long)(ALLOC_N / page), lo = (long)(ALLOC_N / pmd_size());
    long d, fb0, fb1, al0, al1;
    void *state;

    /* available() agrees with sysfs. */
    thp_setting(THP_DIR "/enabled", top, sizeof top);
    if (top[0] == '\0')
        tap_ok(!avail && why && strstr(why, "not supported"),
               "thp: unavailable without THP support: %s", why ? why : "");
    else if (strcmp(top, "never") == 0)
        tap_ok(!avail && why && strstr(why, "[never]"),
               "thp: unavailable with THP [never]: %s", why ? why : "");
    else
        tap_ok(avail, "thp: available with THP [%s]", top);

    if (!avail) {
        tap_skip("thp: %s", why ? why : "unavailable");
        return;
    }
    if (tap_emulated()) {
        tap_skip("thp: the faults of one call: %s", tap_emulated());
        return;
    }
    state = setup_or_bail(k, ALLOC_N, 0, 0);
    k->fn(NULL, NULL, ALLOC_N, state);
    fb0 = vmstat("thp_fault_fallback");
    al0 = vmstat("thp_fault_alloc");
    d = faults_of_call(k, state, ALLOC_N);
    fb1 = vmstat("thp_fault_fallback");
    al1 = vmstat("thp_fault_alloc");
    k->teardown(state);
    if (d >= pages && fb1 > fb0) {
        tap_skip("thp: the kernel fell back to small pages (%ld faults; "
                 "thp_fault_fallback +%ld): no free huge pages",
                 d, fb1 - fb0);
        return;
    }
    if (!tap_ok(d >= lo && d < pages,
                "thp: one call of 16 MiB takes %ld faults, fewer than its "
                "%ld pages (at least %ld huge pages)",
                d, pages, lo))
        tap_diag("  thp_fault_alloc +%ld, thp_fault_fallback +%ld",
                 al1 - al0, fb1 - fb0);
}

/* Pages of address space this process has mapped (/proc/self/statm's
 * first field), or -1. */
static long vm_pages(void)
{
    long v = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Sizes that are not whole pages, and thp's trimmed over-allocation,
 * leave no mapping behind: ten calls, then the address space is the size
 * it was.  (malloc_touch is left out: the heap may keep what it likes.) */
static void test_no_leak(void)
{
    static const char *const names[] = {"mmap_touch", "mmap_populate",
                                        "thp"};
    const size_t n = 3 * MIB + 123;
    if (tap_emulated()) {
        tap_skip("the alloc kernels leave the address space as it was: %s",
                 tap_emulated());
        return;
    }
    for (int i = 0; i < 3; i++) {
        const sb_kernel *k = row(names[i]);
        void *state;
        long before, after;
        if (k->available && !k->available(NULL)) {
            tap_skip("%s: unavailable here", names[i]);
            continue;
        }
        state = setup_or_bail(k, n, 0, 0);
        k->fn(NULL, NULL, n, state);
        before = vm_pages();
        for (int j = 0; j < 10; j++)
            k->fn(NULL, NULL, n, state);
        after = vm_pages();
        k->teardown(state);
        tap_ok(before > 0 && after == before,
               "%s: ten calls of %zu B leave the address space as it was "
               "(%ld pages, then %ld)",
               names[i], n, before, after);
    }
}

/* ---- Bytes moved by pread and write -------------------------------------- */

#define MAX_ALIGN 64
#define GUARD 64
#define MAX_SIZE 262144
static const size_t sizes[] = {1, 4095, 4096, 65536, MAX_SIZE};
#define NSIZES (sizeof sizes / sizeof sizes[0])
/* Every buffer: a page before the window, then room for the largest
 * offset, size and guard, rounded up to pages. */
#define BUF_LEN \
    (4096 + ((MAX_ALIGN + MAX_SIZE + GUARD + 4096 - 1) / 4096) * 4096)

static unsigned char *file_pat; /* sb__sys_pattern(0 .. BUF_LEN - 1) */
static unsigned char *file_inv; /* ~file_pat */
static unsigned char *src_pat;  /* the write kernel's source bytes */
static unsigned char *src_inv;  /* ~src_pat */
static unsigned char *buf;      /* kernel destination / source */
static unsigned char *back;     /* the file read back */

static unsigned char *map_or_bail(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        printf("Bail out! mmap of %zu bytes: %s\n", len, strerror(errno));
        exit(1);
    }
    return p;
}

static void buffers_init(void)
{
    uint32_t x = 12345;
    size_t i;
    file_pat = map_or_bail(BUF_LEN);
    file_inv = map_or_bail(BUF_LEN);
    src_pat = map_or_bail(BUF_LEN);
    src_inv = map_or_bail(BUF_LEN);
    buf = map_or_bail(BUF_LEN);
    back = map_or_bail(BUF_LEN);
    for (i = 0; i < BUF_LEN; i++) {
        x = x * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
        file_pat[i] = sb__sys_pattern(i);
        file_inv[i] = (unsigned char)~file_pat[i];
        src_pat[i] = (unsigned char)(x >> 24);
        src_inv[i] = (unsigned char)~src_pat[i];
    }
}

static long first_diff(const unsigned char *a, const unsigned char *b,
                       size_t n)
{
    size_t i;
    if (memcmp(a, b, n) == 0)
        return -1;
    for (i = 0; i < n; i++)
        if (a[i] != b[i])
            break;
    return (long)i;
}

/* pread of n bytes at file offset sa into buf + 4096 + da.  The window is
 * first filled with the complement of the file's bytes that a correct
 * read, or one running past either end, would put there: a byte left
 * unwritten or written from a wrong place then differs with certainty.
 * (Guard bytes before file offset 0 get 0x5a: nothing can read those.)
 * Returns NULL when all is well, else what went wrong, with *at its
 * offset from the start of the destination. */
static const char *pread_one(const sb_kernel *k, void *state, size_t n,
                             size_t sa, size_t da, long *at)
{
    unsigned char *d = buf + 4096 + da;
    unsigned char before[GUARD];
    for (size_t j = 1; j <= GUARD; j++)
        before[GUARD - j] = sa >= j ? file_inv[sa - j] : 0x5a;
    memcpy(d - GUARD, before, GUARD);
    memcpy(d, file_inv + sa, n + GUARD);
    k->fn(d, NULL, n, state);
    if ((*at = first_diff(d, file_pat + sa, n)) >= 0)
        return "destination";
    if ((*at = first_diff(d - GUARD, before, GUARD)) >= 0) {
        *at -= GUARD;
        return "guard before the destination";
    }
    if ((*at = first_diff(d + n, file_inv + sa + n, GUARD)) >= 0) {
        *at += (long)n;
        return "guard after the destination";
    }
    return NULL;
}

static void test_pread_bytes(void)
{
    const sb_kernel *k = row("pread");
    for (size_t z = 0; z < NSIZES; z++) {
        size_t n = sizes[z], bad = 0, fails = 0;
        char first[160] = "";
        for (size_t sa = 0; sa <= MAX_ALIGN; sa++) {
            void *state = setup_or_bail(k, n, sa, 0);
            size_t failed0 = sb__kernel_failures(NULL);
            for (size_t da = 0; da <= MAX_ALIGN; da++) {
                long at;
                const char *what = pread_one(k, state, n, sa, da, &at);
                if (what && bad++ == 0)
                    snprintf(first, sizeof first,
                             "file offset %zu, dst offset %zu: %s byte %ld "
                             "wrong",
                             sa, da, what, at);
            }
            fails += sb__kernel_failures(NULL) - failed0;
            k->teardown(state);
        }
        if (!tap_ok(bad == 0 && fails == 0,
                    "pread: %zu B at file offsets 0..%d into dst offsets "
                    "0..%d: the file's bytes, guards untouched",
                    n, MAX_ALIGN, MAX_ALIGN))
            tap_diag("  %zu of %d calls wrong, %zu gave up; first: %s", bad,
                     (MAX_ALIGN + 1) * (MAX_ALIGN + 1), fails, first);
    }
}

/* Read the whole file (len bytes) into back; 0 on success. */
static int read_back(int fd, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, back + got, len - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* write of n bytes from buf + 4096 + sa at file offset da.  Before the
 * call the file's target range is set to the complement of the source
 * bytes (by the test's own pwrite), so a byte the kernel failed to write
 * differs with certainty; after it the whole file is read back: the
 * source's bytes in [da, da + n), the setup pattern everywhere else, and
 * the source buffer unchanged. */
static const char *write_one(const sb_kernel *k, void *state, size_t n,
                             size_t sa, size_t da, size_t len, long *at)
{
    int fd = sb__sys_fd(state);
    const unsigned char *s = buf + 4096 + sa;
    *at = -1;
    if (pwrite(fd, src_inv + 4096 + sa, n, (off_t)da) != (ssize_t)n)
        return "the test's own pwrite failed";
    k->fn(NULL, s, n, state);
    if (read_back(fd, len) != 0)
        return "reading the file back failed";
    if ((*at = first_diff(back + da, s, n)) >= 0)
        return "file byte (from the write offset)";
    if ((*at = first_diff(back, file_pat, da)) >= 0)
        return "file byte before the write offset";
    if ((*at = first_diff(back + da + n, file_pat + da + n, len - da - n)) >=
        0)
        return "file byte after the written range";
    if ((*at = first_diff(s - GUARD, src_pat + 4096 + sa - GUARD,
                          n + 2 * GUARD)) >= 0)
        return "source byte (changed)";
    return NULL;
}

static void test_write_bytes(void)
{
    const sb_kernel *k = row("write");
    memcpy(buf, src_pat, BUF_LEN);
    for (size_t z = 0; z < NSIZES; z++) {
        size_t n = sizes[z], bad = 0, fails = 0;
        char first[160] = "";
        for (size_t da = 0; da <= MAX_ALIGN; da++) {
            void *state = setup_or_bail(k, n, 0, da);
            size_t len = (n + da + 4095) / 4096 * 4096;
            size_t failed0 = sb__kernel_failures(NULL);
            for (size_t sa = 0; sa <= MAX_ALIGN; sa++) {
                long at;
                const char *what = write_one(k, state, n, sa, da, len, &at);
                if (what && bad++ == 0)
                    snprintf(first, sizeof first,
                             "src offset %zu, file offset %zu: %s %ld", sa,
                             da, what, at);
            }
            fails += sb__kernel_failures(NULL) - failed0;
            k->teardown(state);
        }
        if (!tap_ok(bad == 0 && fails == 0,
                    "write: %zu B from src offsets 0..%d at file offsets "
                    "0..%d: the file holds the source's bytes there and "
                    "nothing else changed",
                    n, MAX_ALIGN, MAX_ALIGN))
            tap_diag("  %zu of %d calls wrong, %zu gave up; first: %s", bad,
                     (MAX_ALIGN + 1) * (MAX_ALIGN + 1), fails, first);
    }
}

/* ---- Temporary files and setup errors ------------------------------------ */

/* Entries of dir other than . and .., or -1. */
static long count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    long c = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            c++;
    closedir(d);
    return c;
}

/* While the states of both syscall kernels are alive, the private TMPDIR
 * holds no file, and each descriptor's /proc link names a deleted file
 * in that directory. */
static void test_temp_files(const char *dir)
{
    static const char *const names[] = {"pread", "write"};
    void *states[2];
    char link[64], target[PATH_MAX + 16];
    size_t dl = strlen(dir);
    for (int i = 0; i < 2; i++)
        states[i] = setup_or_bail(row(names[i]), 4096, 7, 9);
    TAP_IS_INT(count_entries(dir), 0,
               "temporary files: none left in TMPDIR while pread and write "
               "hold theirs open");
    for (int i = 0; i < 2; i++) {
        ssize_t r;
        int fd = sb__sys_fd(states[i]);
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        r = readlink(link, target, sizeof target - 1);
        target[r > 0 ? r : 0] = '\0';
        if (r < 0) {
            tap_skip("%s: cannot read %s: %s", names[i], link,
                     strerror(errno));
            continue;
        }
        if (!tap_ok(strncmp(target, dir, dl) == 0 && target[dl] == '/' &&
                        strstr(target, "/statbench-") &&
                        strlen(target) > 10 &&
                        strcmp(target + strlen(target) - 10, " (deleted)") ==
                            0,
                    "%s: the descriptor's file is unlinked (%s)", names[i],
                    target))
            tap_diag("  want %s/statbench-%s-XXXXXX (deleted)", dir,
                     names[i]);
        TAP_IS_INT(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC,
                   "%s: the descriptor is close-on-exec", names[i]);
    }
    for (int i = 0; i < 2; i++)
        row(names[i])->teardown(states[i]);
}

static void test_setup_errors(void)
{
    static const char *const sys[] = {"pread", "write"};
    static const char *const alloc[] = {"mmap_touch", "mmap_populate",
                                        "malloc_touch", "thp"};
    const char *nodir = "/nonexistent-statbench-test/sub";
    char huge[32];

    setenv("TMPDIR", nodir, 1);
    for (int i = 0; i < 2; i++) {
        const sb_kernel *k = row(sys[i]);
        sb_cell cell = {.kernel = k, .size = 4096, .src_align = 3};
        sb_error err = {0, ""};
        void *state = (void *)&cell; /* must come back NULL */
        int rc = k->setup(&state, &cell, &err);
        tap_ok(rc == SB_ESYS && err.code == rc && state == NULL &&
                   strstr(err.text, nodir) &&
                   strstr(err.text, strerror(ENOENT)),
               "%s: TMPDIR=%s fails with %d: %s", sys[i], nodir, rc,
               err.text);
    }

    snprintf(huge, sizeof huge, "%zu", SIZE_MAX / 2);
    for (int i = 0; i < 4; i++) {
        const sb_kernel *k = row(alloc[i]);
        sb_cell cell = {.kernel = k, .size = SIZE_MAX / 2};
        sb_error err = {0, ""};
        void *state = NULL;
        int rc;
        if (k->available && !k->available(NULL)) {
            tap_skip("%s: unavailable here", alloc[i]);
            tap_skip("%s: unavailable here", alloc[i]);
            continue;
        }
#ifndef GLIBC_MALLOC
        /* A sanitizer's malloc aborts on such a size by default. */
        if (strcmp(alloc[i], "malloc_touch") == 0) {
            tap_skip("%s: %s bytes: not glibc's malloc", alloc[i], huge);
            goto size0;
        }
#endif
        rc = k->setup(&state, &cell, &err);
        tap_ok(rc == SB_ENOMEM && err.code == rc && state == NULL &&
                   strstr(err.text, huge) && strstr(err.text, alloc[i]),
               "%s: %s bytes fails with %d: %s", alloc[i], huge, rc,
               err.text);
#ifndef GLIBC_MALLOC
    size0:
#endif
        cell.size = 0;
        err.text[0] = '\0';
        rc = k->setup(&state, &cell, &err);
        tap_ok(rc == SB_EINVAL && err.code == rc && state == NULL &&
                   strstr(err.text, "size 0"),
               "%s: size 0 fails with %d: %s", alloc[i], rc, err.text);
    }

    /* No cell, NULL states, calls without state: no crash. */
    {
        sb_error err = {0, ""};
        void *state = NULL;
        TAP_IS_INT(row("pread")->setup(&state, NULL, &err), SB_EINVAL,
                   "pread: setup without a cell is SB_EINVAL");
        TAP_IS_INT(row("mmap_touch")->setup(&state, NULL, &err), SB_EINVAL,
                   "mmap_touch: setup without a cell is SB_EINVAL");
        sb__sys_teardown(NULL);
        sb__alloc_teardown(NULL);
        row("pread")->fn(buf, NULL, 16, NULL);
        row("write")->fn(NULL, buf, 16, NULL);
        tap_ok(1, "teardown(NULL) and fn without state return quietly");
    }
}

/* The rows the registry will paste: complete and one line each. */
static void test_rows(void)
{
    size_t i, j;
    int ok = NROWS == 6;
    for (i = 0; i < NROWS; i++) {
        const sb_kernel *k = &rows[i];
        ok = ok && k->name && k->description && k->fn && k->setup &&
             k->teardown && k->features == 0 &&
             !strchr(k->description, '\n') &&
             (k->family == SB_FAMILY_ALLOC || k->family == SB_FAMILY_SYSCALL) &&
             /* The alloc rows make their own memory; pread and write
              * work on the buffers. */
             k->flags == (k->family == SB_FAMILY_ALLOC ? SB_KERNEL_OWN_MEMORY
                                                       : 0u);
        for (j = 0; j < i; j++)
            ok = ok && strcmp(rows[j].name, k->name) != 0;
    }
    tap_ok(ok, "SB__SYS_KERNEL_ROWS: 6 rows, unique names, fn, setup and "
               "teardown, no CPU features, own memory for alloc only");
}

int main(void)
{
    char why[256], why_madv[256], tmpl[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    size_t unit;
    long ps = sysconf(_SC_PAGESIZE);

    page = ps > 0 ? (size_t)ps : 4096;
    unit = fault_unit(0, why, sizeof why);
    fault_unit(1, why_madv, sizeof why_madv);
    tap_diag("page size %zu; plain anonymous mappings: %s", page, why);
    tap_diag("MADV_HUGEPAGE mappings: %s", why_madv);

    test_rows();
    /* The alloc tests first, while this process's heap is small (the
     * malloc test depends on glibc's thresholds being at their start
     * values). */
    test_malloc_touch(unit, why);
    test_mmap_touch(unit, why);
    test_mmap_populate(unit, why);
    test_thp();
    test_no_leak();

    /* The syscall tests in a private TMPDIR, so that its entries can be
     * counted without other programs' files. */
    snprintf(tmpl, sizeof tmpl, "%s/statbench-test-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        printf("Bail out! mkdtemp %s: %s\n", tmpl, strerror(errno));
        return 1;
    }
    setenv("TMPDIR", tmpl, 1);
    buffers_init();
    test_temp_files(tmpl);
    test_pread_bytes();
    test_write_bytes();
    TAP_IS_INT(count_entries(tmpl), 0,
               "temporary files: TMPDIR empty after %d setups",
               (int)(2 * NSIZES * (MAX_ALIGN + 1) + 2));
    if (rmdir(tmpl) != 0)
        tap_diag("cannot remove %s: %s", tmpl, strerror(errno));
    test_setup_errors();
    return tap_done();
}
