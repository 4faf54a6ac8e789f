/*
 * kernels_sys.h: the alloc and system-call kernels (kernels/alloc.c,
 * kernels/syscall.c), private to libstatbench.
 *
 * These kernels measure the operating system rather than an instruction
 * sequence: page faults (alloc) and the kernel's copy_to_user /
 * copy_from_user between a user buffer and the page cache (syscall).
 * Setup checks that the work can be done (allocates n bytes once, creates
 * and fills the file) and fails there with a message naming the size, the
 * directory and errno; a call of fn that fails all the same (memory ran
 * out since setup) reports it with sb_kernel_failed(), and its sample is
 * rejected.  tests/test_sysalloc.c
 * checks what a call really does: the page faults it takes and the bytes
 * it moves.
 *
 * The registry rows are the SB__SYS_KERNEL_ROWS macro at the end: paste it
 * into the table of kernels/registry.c (after the copy and clear families,
 * alloc before syscall).  They need no CPU feature and build everywhere
 * Linux does.
 */
#ifndef SB_KERNELS_SYS_H
#define SB_KERNELS_SYS_H

#include <stddef.h>

#include "statbench.h"

/* ---- kernels/alloc.c: family SB_FAMILY_ALLOC ---------------------------
 *
 * n is the allocation size; dst and src are not used.  Every kernel writes
 * one byte to every page of the block (volatile stores at the page size of
 * sysconf(_SC_PAGESIZE)) and gives the block back, so one call costs one
 * page fault per page (or per huge page) plus the mapping and unmapping.
 * setup allocates and frees n bytes once, the same way fn will, and fails
 * with SB_ENOMEM naming the size and errno when it cannot (SB_EINVAL for
 * n == 0).  state is a small struct that teardown frees. */

/* mmap n bytes (anonymous, private), touch, munmap. */
void sb__alloc_mmap_touch(void *dst, const void *src, size_t n, void *state);
/* The same with MAP_POPULATE: the faults happen inside mmap, and the
 * touching finds the pages present. */
void sb__alloc_mmap_populate(void *dst, const void *src, size_t n,
                             void *state);
/* malloc n, touch, free.  What this measures depends on the C library:
 * see alloc.c (glibc's dynamic mmap threshold). */
void sb__alloc_malloc_touch(void *dst, const void *src, size_t n,
                            void *state);
/* mmap n bytes aligned to the PMD huge page size (over-allocate and trim),
 * madvise(MADV_HUGEPAGE), touch, munmap. */
void sb__alloc_thp(void *dst, const void *src, size_t n, void *state);

int sb__alloc_mmap_touch_setup(void **state, const struct sb_cell *cell,
                               sb_error *err);
int sb__alloc_mmap_populate_setup(void **state, const struct sb_cell *cell,
                                  sb_error *err);
int sb__alloc_malloc_touch_setup(void **state, const struct sb_cell *cell,
                                 sb_error *err);
int sb__alloc_thp_setup(void **state, const struct sb_cell *cell,
                        sb_error *err);
/* Frees the state of any alloc setup; NULL is allowed. */
void sb__alloc_teardown(void *state);

/* thp's available() hook: 1 when /sys/kernel/mm/transparent_hugepage/
 * enabled shows [always] or [madvise], else 0 with a static reason. */
int sb__alloc_thp_available(const char **why);

/* The touch loop every alloc kernel runs, for the tests: one volatile
 * store into every page of size page that [p, p + n) overlaps (p need not
 * be aligned).  page must be a power of two. */
void sb__alloc_touch(void *p, size_t n, size_t page);

/* ---- kernels/syscall.c: family SB_FAMILY_SYSCALL -----------------------
 *
 * setup creates an unlinked temporary file in $TMPDIR (default /tmp),
 * fills it with sb__sys_pattern() bytes, flushes it to its filesystem
 * and reads it once so that every page sits in the page cache, clean.
 * fn retries on EINTR and on short transfers and gives up on any other
 * error, reported with sb_kernel_failed().  Errors of setup: SB_EINVAL (no
 * cell, a size whose file would overflow off_t), SB_ENOMEM, SB_ESYS with
 * the directory, the system call and errno. */

/* pread(fd, dst, n, cell->src_align) until n bytes are read: page cache to
 * user buffer (copy_to_user), the source misaligned by the file offset,
 * the destination by dst's own offset.  src is not used.  The file holds
 * cell->size + cell->src_align bytes, rounded up to whole pages. */
void sb__sys_pread(void *dst, const void *src, size_t n, void *state);
int sb__sys_pread_setup(void **state, const struct sb_cell *cell,
                        sb_error *err);

/* pwrite(fd, src, n, cell->dst_align) until n bytes are written: user
 * buffer to page cache (copy_from_user), the destination misaligned by the
 * file offset.  dst is not used.  The file holds cell->size +
 * cell->dst_align bytes, rounded up to whole pages, so every write lands
 * on pages that are already cached and inside the file. */
void sb__sys_write(void *dst, const void *src, size_t n, void *state);
int sb__sys_write_setup(void **state, const struct sb_cell *cell,
                        sb_error *err);

/* Closes the file and frees the state; NULL is allowed. */
void sb__sys_teardown(void *state);

/* For the tests: the byte setup writes at file offset off; the file's
 * descriptor (-1 for NULL). */
unsigned char sb__sys_pattern(size_t off);
int sb__sys_fd(const void *state);

/* ---- Registry rows -------------------------------------------------------
 * One sb_kernel initialiser per kernel, in the order a reader expects:
 * the thread's mmap loop first, then its variants, then the system-call
 * paths.  Paste SB__SYS_KERNEL_ROWS into the table of registry.c. */
#define SB__SYS_ROW(kname, kfamily, kdesc, kfn, ksetup, kteardown, kavail, \
                    kflags)                                                \
    {                                                                      \
        .size = sizeof(sb_kernel),                                         \
        .name = (kname), .family = (kfamily), .description = (kdesc),      \
        .features = 0, .fn = (kfn), .setup = (ksetup),                     \
        .teardown = (kteardown), .available = (kavail), .flags = (kflags)  \
    }

#define SB__SYS_KERNEL_ROWS                                                \
    SB__SYS_ROW("mmap_touch", SB_FAMILY_ALLOC,                             \
                "mmap n bytes anonymous, write a byte per page, munmap: "  \
                "page fault, zeroing and unmap cost (thread 001's 1000 x " \
                "16 MiB loop)",                                            \
                sb__alloc_mmap_touch, sb__alloc_mmap_touch_setup,          \
                sb__alloc_teardown, NULL, SB_KERNEL_OWN_MEMORY),           \
    SB__SYS_ROW("mmap_populate", SB_FAMILY_ALLOC,                          \
                "mmap n bytes with MAP_POPULATE, touch, munmap: the "      \
                "faults of thread 001 taken in one go inside mmap (GUP), " \
                "no trap per page",                                        \
                sb__alloc_mmap_populate, sb__alloc_mmap_populate_setup,    \
                sb__alloc_teardown, NULL, SB_KERNEL_OWN_MEMORY),           \
    SB__SYS_ROW("malloc_touch", SB_FAMILY_ALLOC,                           \
                "malloc n, write a byte per page, free: thread 001 through " \
                "libc (glibc keeps blocks below 32 MiB after the first "   \
                "free: then no faults)",                                   \
                sb__alloc_malloc_touch, sb__alloc_malloc_touch_setup,      \
                sb__alloc_teardown, NULL, SB_KERNEL_OWN_MEMORY),           \
    SB__SYS_ROW("thp", SB_FAMILY_ALLOC,                                    \
                "mmap n bytes 2 MiB-aligned, madvise(MADV_HUGEPAGE), "     \
                "touch, munmap: thread 001's loop with one fault per "     \
                "transparent huge page",                                   \
                sb__alloc_thp, sb__alloc_thp_setup, sb__alloc_teardown,    \
                sb__alloc_thp_available, SB_KERNEL_OWN_MEMORY),            \
    SB__SYS_ROW("pread", SB_FAMILY_SYSCALL,                                \
                "pread from a page-cached file at offset src_align into "  \
                "dst: copy_to_user (thread 000's pagecache reads, thread " \
                "004's hdparm -T)",                                        \
                sb__sys_pread, sb__sys_pread_setup, sb__sys_teardown,      \
                NULL, 0),                                                  \
    SB__SYS_ROW("write", SB_FAMILY_SYSCALL,                                \
                "pwrite src into a page-cached file at offset dst_align: " \
                "copy_from_user into the page cache (thread 000's other "  \
                "direction)",                                              \
                sb__sys_write, sb__sys_write_setup, sb__sys_teardown,      \
                NULL, 0)

#endif
