/*
 * cached_read.c: buffer-cache reads in the manner of hdparm -T, for
 * statbench cmd where hdparm cannot run (no root, no disk of one's own):
 * FILE is read whole PASSES times with read(2) of BLOCK bytes (default 2
 * MiB, hdparm's), from the page cache once the first pass has filled it.
 * Two block sizes are the before and after of one run:
 *     statbench cmd -N --warmup 1 './examples/cached_read F 200' \
 *         './examples/cached_read F 200 4096'
 * Usage: cached_read FILE [PASSES [BLOCK]].  Every pass must read the
 * file's size: a short pass is exit status 1 (a time of a run that did
 * not do its work is no figure); bad arguments 2.  Prints nothing unless
 * something is wrong.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "whole_number.h"

int main(int argc, char **argv)
{
    long passes = 100, block = 2L << 20;
    struct stat st;
    char *buf;
    int fd;

    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: cached_read FILE [PASSES [BLOCK]]\n");
        return 2;
    }
    if (argc > 2 && (passes = whole_number(argv[2], 1, 1000000000L)) < 0) {
        fprintf(stderr, "cached_read: PASSES '%s': not a whole number from "
                "1 to 1000000000\n", argv[2]);
        return 2;
    }
    if (argc > 3 && (block = whole_number(argv[3], 1, 1L << 30)) < 0) {
        fprintf(stderr, "cached_read: BLOCK '%s': not a whole number of "
                "bytes from 1 to 1073741824\n", argv[3]);
        return 2;
    }
    /* O_NONBLOCK: a FIFO under the name must not hold the open; it is
     * refused below as not a regular file. */
    fd = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "cached_read: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0) {
        fprintf(stderr, "cached_read: %s: not a regular file with data\n",
                argv[1]);
        return 1;
    }
    if (!(buf = malloc((size_t)block))) {
        fprintf(stderr, "cached_read: out of memory for %ld bytes\n", block);
        return 1;
    }
    for (long p = 0; p < passes; p++) {
        off_t got = 0;
        ssize_t n;
        while ((n = pread(fd, buf, (size_t)block, got)) > 0)
            got += n;
        if (n < 0 || got != st.st_size) {
            fprintf(stderr, "cached_read: %s: pass %ld read %lld of %lld "
                    "bytes%s%s\n", argv[1], p + 1, (long long)got,
                    (long long)st.st_size, n < 0 ? ": " : "",
                    n < 0 ? strerror(errno) : "");
            free(buf);
            return 1;
        }
    }
    free(buf);
    close(fd);
    return 0;
}
