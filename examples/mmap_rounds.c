/*
 * mmap_rounds.c: the test program of the 2004 buddy-allocator thread,
 * timed whole by statbench cmd: ROUNDS times, map SIZE bytes of anonymous
 * memory, write one byte in every page, check it reads back, unmap.
 * With "populate" the pages come from MAP_POPULATE instead of the writes
 * (and are then checked the same way), the before and after of one
 * run:
 *     statbench cmd -N './examples/mmap_rounds 1000' \
 *         './examples/mmap_rounds 1000 populate'
 * Usage: mmap_rounds [ROUNDS [populate] [MIB]]  (default 1000 rounds of
 * 16 MiB).  Exit status 0; 1 when a mapping fails or a page reads back
 * wrong (a time of a run that did not do its work is no figure); 2 on
 * bad arguments.  It prints nothing unless something is wrong.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "whole_number.h"

int main(int argc, char **argv)
{
    long rounds = 1000, mib = 16, page = sysconf(_SC_PAGESIZE);
    int populate = 0, a = 2;

    if (argc > 1 && (rounds = whole_number(argv[1], 1, 1000000000L)) < 0) {
        fprintf(stderr, "mmap_rounds: ROUNDS '%s': not a whole number "
                "from 1 to 1000000000\n", argv[1]);
        return 2;
    }
    if (argc > a && !strcmp(argv[a], "populate")) {
        populate = 1;
        a++;
    }
    if (argc > a && (mib = whole_number(argv[a], 1, 1 << 20)) < 0) {
        fprintf(stderr, "mmap_rounds: MIB '%s': not a whole number from 1 "
                "to 1048576\n", argv[a]);
        return 2;
    }
    if (argc > a + 1 || page <= 0) {
        fprintf(stderr, "usage: mmap_rounds [ROUNDS [populate] [MIB]]\n");
        return 2;
    }
    for (long r = 0; r < rounds; r++) {
        size_t len = (size_t)mib << 20;
        volatile unsigned char *p =
            mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0),
                 -1, 0);
        if (p == (void *)MAP_FAILED) {
            fprintf(stderr, "mmap_rounds: round %ld: mmap of %ld MiB: %s\n",
                    r + 1, mib, strerror(errno));
            return 1;
        }
        if (!populate)
            for (size_t off = 0; off < len; off += (size_t)page)
                p[off] = (unsigned char)(off / (size_t)page) | 1u;
        for (size_t off = 0; off < len; off += (size_t)page)
            if (p[off] != (populate ? 0 : ((unsigned char)(off / (size_t)page) | 1u))) {
                fprintf(stderr, "mmap_rounds: round %ld: page %zu reads "
                        "back %u\n", r + 1, off / (size_t)page, p[off]);
                return 1;
            }
        if (munmap((void *)p, len) != 0) {
            fprintf(stderr, "mmap_rounds: round %ld: munmap: %s\n", r + 1,
                    strerror(errno));
            return 1;
        }
    }
    return 0;
}
