/*
 * syscall.c: copies the kernel makes between a user buffer and the page
 * cache, timed from user space.
 *
 * Thread 000 read a 262144-byte file from the page cache into a user buffer
 * 16384 times and tabulated KB/s against the misalignment of the source (a
 * file offset) and of the destination (the user buffer), to choose between
 * copy_user_int and rep movsl in __copy_to_user.  Thread 004 read the
 * block device's buffer cache with hdparm -T (2 MiB reads) before and after
 * a copy_user patch.  pread is that copy: the file offset src_align
 * misaligns the source inside the page cache page, the buffer offset
 * dst_align misaligns the user destination.  write is the other direction,
 * copy_from_user into cached pages at file offset dst_align.
 *
 * What a call costs besides the copy, and must be kept in mind when
 * comparing small sizes: the system call entry and exit (with the
 * mitigations of the running kernel), the file's locks and page cache
 * lookups (one per page), and for write the inode's timestamp update and
 * dirtying of the pages.  The file lives in $TMPDIR: on tmpfs the pages
 * never go anywhere; on a disk filesystem the write kernel's dirty pages are
 * written back now and then while it is measured (the flusher thread, the
 * journal), which shows up as disturbed samples.  Point TMPDIR at a tmpfs
 * (/dev/shm) for the bare copy.  Memory pressure can evict the file's
 * pages: pread then reads the disk, which the runner's page-fault counts do
 * not show.
 *
 * fn retries on EINTR and on short transfers and gives up on anything
 * else, reported with sb_kernel_failed() (its sample is rejected); setup has
 * already done the same transfer's system calls successfully, so a
 * failure means the machine changed under the run.  tests/test_sysalloc.c
 * checks that every byte moved is the right one, at every source and
 * destination offset 0..64.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "kernels_sys.h"
#include "sb_internal.h"

typedef struct sb__sys_state {
    int fd;
    off_t offset;    /* file offset of every transfer: the cell's source
                        (pread) or destination (write) alignment */
} sb__sys_state;

unsigned char sb__sys_pattern(size_t off)
{
    /* The top byte of a Weyl sequence: consecutive bytes differ, and a copy
     * from a wrong offset k (k < 2^32) gives wrong bytes at nearly every
     * position, so the tests catch an off-by-k error with certainty. */
    uint32_t x = (uint32_t)off * 2654435761u +
                 (uint32_t)((uint64_t)off >> 32);
    return (unsigned char)(x >> 24);
}

int sb__sys_fd(const void *state)
{
    return state ? ((const sb__sys_state *)state)->fd : -1;
}

void sb__sys_pread(void *dst, const void *src, size_t n, void *state)
{
    sb__sys_state *s = state;
    unsigned char *d = dst;
    off_t off;
    (void)src;
    if (!s) {
        sb_kernel_failed(EINVAL); /* called without its setup */
        return;
    }
    off = s->offset;
    while (n > 0) {
        ssize_t r = pread(s->fd, d, n, off);
        if (r > 0) {
            d += r;
            n -= (size_t)r;
            off += r;
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else {
            /* 0: end of file (n beyond the cell's size); < 0: a real
             * error.  Either way no further call would do better. */
            sb_kernel_failed(r < 0 ? errno : 0);
            return;
        }
    }
}

void sb__sys_write(void *dst, const void *src, size_t n, void *state)
{
    sb__sys_state *s = state;
    const unsigned char *p = src;
    off_t off;
    (void)dst;
    if (!s) {
        sb_kernel_failed(EINVAL); /* called without its setup */
        return;
    }
    off = s->offset;
    while (n > 0) {
        ssize_t r = pwrite(s->fd, p, n, off);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
            off += r;
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else {
            sb_kernel_failed(r < 0 ? errno : 0); /* 0: a full device */
            return;
        }
    }
}

void sb__sys_teardown(void *state)
{
    sb__sys_state *s = state;
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}

/* Largest value of off_t, which has no standard macro. */
#define SB__OFF_MAX \
    ((off_t)(((uintmax_t)1 << (sizeof(off_t) * CHAR_BIT - 2)) - 1) * 2 + 1)

/* Write len bytes of the pattern from offset 0, chunk by chunk. */
static int fill_file(int fd, size_t len, const char *name, const char *path,
                     sb_error *err)
{
    enum { CHUNK = 65536 };
    unsigned char *buf = malloc(CHUNK);
    size_t done = 0;
    if (!buf)
        return sb__error(err, SB_ENOMEM, "%s: out of memory", name);
    while (done < len) {
        size_t want = len - done < CHUNK ? len - done : CHUNK, i;
        size_t got = 0;
        for (i = 0; i < want; i++)
            buf[i] = sb__sys_pattern(done + i);
        while (got < want) {
            ssize_t r = pwrite(fd, buf + got, want - got, (off_t)(done + got));
            if (r > 0) {
                got += (size_t)r;
            } else if (r < 0 && errno == EINTR) {
                continue;
            } else {
                int e = r < 0 ? errno : ENOSPC;
                free(buf);
                return sb__error(err, SB_ESYS,
                                 "%s: cannot write %zu bytes to a temporary "
                                 "file in %s: %s",
                                 name, len, path, strerror(e));
            }
        }
        done += want;
    }
    /* Read it all back once: the pages are then in the page cache (they
     * are already, having just been written; the read also proves the file
     * holds what the tests will expect). */
    done = 0;
    while (done < len) {
        size_t want = len - done < CHUNK ? len - done : CHUNK, i;
        ssize_t r = pread(fd, buf, want, (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            free(buf);
            return sb__error(err, SB_ESYS,
                             "%s: cannot read back the temporary file in "
                             "%s: %s",
                             name, path, r < 0 ? strerror(e) : "short file");
        }
        for (i = 0; i < (size_t)r; i++)
            if (buf[i] != sb__sys_pattern(done + i)) {
                free(buf);
                return sb__error(err, SB_EIO,
                                 "%s: the temporary file in %s reads back "
                                 "wrong at byte %zu",
                                 name, path, done + i);
            }
        done += (size_t)r;
    }
    free(buf);
    return SB_OK;
}

/* A file of size + align bytes, rounded up to whole pages, filled with the
 * pattern, clean in the page cache, with no name. */
static int sys_setup(void **state, const struct sb_cell *cell, sb_error *err,
                     int is_read)
{
    const char *name, *dir;
    char path[PATH_MAX];
    sb__sys_state *s;
    size_t align, len;
    int fd, rc, e;

    if (!state || !cell)
        return sb__error(err, SB_EINVAL, "syscall kernel setup without a cell");
    *state = NULL;
    name = cell->kernel && cell->kernel->name ? cell->kernel->name
                                              : (is_read ? "pread" : "write");
    align = is_read ? cell->src_align : cell->dst_align;
    if (align > SIZE_MAX - SB_PAGE_SIZE ||
        cell->size > SIZE_MAX - SB_PAGE_SIZE - align)
        return sb__error(err, SB_EINVAL, "%s: size %zu is too large", name,
                         cell->size);
    len = (cell->size + align + SB_PAGE_SIZE - 1) / SB_PAGE_SIZE *
          SB_PAGE_SIZE;
    if ((uintmax_t)len > (uintmax_t)SB__OFF_MAX)
        return sb__error(err, SB_EINVAL,
                         "%s: a file of %zu bytes is beyond off_t", name, len);

    dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    if (snprintf(path, sizeof path, "%s/statbench-%s-XXXXXX", dir, name) >=
        (int)sizeof path)
        return sb__error(err, SB_EINVAL,
                         "%s: TMPDIR is too long for a path: %s", name, dir);

    /* The name exists only between mkostemp and unlink, a few
     * microseconds: from then on the open descriptor is the file's only
     * reference, and the kernel frees it when the descriptor closes, which
     * happens on every way out of the process (teardown, exit, a crash,
     * Ctrl-C, SIGKILL) with no handler or cleanup code.  Only a kill inside
     * that window can leave a statbench-NAME-XXXXXX file behind.
     * O_CLOEXEC keeps it out of programs the process may exec (gnuplot). */
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return sb__error(err, SB_ESYS,
                         "%s: cannot create a temporary file in %s "
                         "(TMPDIR): %s",
                         name, dir, strerror(errno));
    if (unlink(path) != 0) {
        e = errno;
        close(fd);
        return sb__error(err, SB_ESYS, "%s: cannot unlink %s: %s", name, path,
                         strerror(e));
    }

    rc = fill_file(fd, len, name, dir, err);
    /* Written back now, so that the flusher does not write these pages
     * while pread is measured, and write starts from clean, allocated
     * blocks.  Filesystems that cannot sync (EINVAL) need not. */
    if (rc == SB_OK && fdatasync(fd) != 0) {
        e = errno;
        if (e != EINVAL && e != EROFS)
            rc = sb__error(err, SB_ESYS,
                           "%s: fdatasync of the temporary file in %s: %s",
                           name, dir, strerror(e));
    }
    if (rc != SB_OK) {
        close(fd);
        return rc;
    }

    s = malloc(sizeof *s);
    if (!s) {
        close(fd);
        return sb__error(err, SB_ENOMEM, "%s: out of memory", name);
    }
    s->fd = fd;
    s->offset = (off_t)align;
    *state = s;
    return SB_OK;
}

int sb__sys_pread_setup(void **state, const struct sb_cell *cell,
                        sb_error *err)
{
    return sys_setup(state, cell, err, 1);
}

int sb__sys_write_setup(void **state, const struct sb_cell *cell,
                        sb_error *err)
{
    return sys_setup(state, cell, err, 0);
}
