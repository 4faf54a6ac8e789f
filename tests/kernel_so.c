/*
 * kernel_so.c: the shared objects tests/loaded.sh and tests/test_loaded
 * load kernels from (sb_kernel_load_new, --kernel-from).  One source,
 * built into several objects by the macros below, so that the objects
 * export the same symbol names with different work, as two builds of one
 * library do:
 *   SBK_REPEAT  how many times sbk_copy copies (1; 3 for the heavy one)
 *   SBK_SHORT   1: sbk_copy skips the last byte
 *   SBK_OVER    1: sbk_copy writes one byte past the end
 *   SBK_CTOR    1: a constructor prints when the object is loaded; 2: it
 *               calls exit(7); 3: it waits (sleeps far past any limit)
 * No statbench header: a loaded kernel needs none.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SBK_REPEAT
#define SBK_REPEAT 1
#endif
#ifndef SBK_SHORT
#define SBK_SHORT 0
#endif
#ifndef SBK_OVER
#define SBK_OVER 0
#endif
#ifndef SBK_CTOR
#define SBK_CTOR 0
#endif

/* The exports, declared (the warnings want a prototype for each). */
void sbk_copy(void *dst, const void *src, size_t n, void *state);
int sbk_copy_init(void **state, size_t n);
void sbk_copy_fini(void *state);
void sbk_clear(void *dst, const void *src, size_t n, void *state);
void sbk_noinit(void *dst, const void *src, size_t n, void *state);
int sbk_noinit_init(void **state, size_t n);
void sbk_crash(void *dst, const void *src, size_t n, void *state);
void sbk_count(void *dst, const void *src, size_t n, void *state);
extern unsigned char sbk_table[64];

/* A symbol that is data, not a function: loading it as a kernel must be
 * refused, not called. */
unsigned char sbk_table[64] = {1};

#if SBK_CTOR
/* What a careless library does when it is loaded: a banner on standard
 * output, an exit from a check that failed, a wait for something that
 * never comes.  Each would mix with, end or hold the caller's run. */
__attribute__((constructor)) static void sbk_ctor(void)
{
    if (SBK_CTOR == 1)
        printf("sbk: hello from a constructor\n");
    else if (SBK_CTOR == 2)
        exit(7);
    else
        sleep(600);
}
#endif

/* What init makes: the cell's size and the calls counted by the kernel. */
struct sbk_state {
    size_t n, calls;
};

/* A plain byte loop through a volatile pointer: the compiler can neither
 * turn it into memcpy nor vectorise it, so SBK_REPEAT 3 does three times
 * the work of SBK_REPEAT 1. */
void sbk_copy(void *dst, const void *src, size_t n, void *state)
{
    volatile unsigned char *d = dst;
    const unsigned char *s = src;
    size_t end = n + SBK_OVER;

    if (SBK_SHORT && end > 0)
        end--;

    for (int r = 0; r < SBK_REPEAT; r++)
        for (size_t i = 0; i < end; i++)
            d[i] = s[i];
    if (state)
        ((struct sbk_state *)state)->calls++;
}

int sbk_copy_init(void **state, size_t n)
{
    struct sbk_state *st = calloc(1, sizeof *st);
    if (!st)
        return ENOMEM;
    st->n = n;
    *state = st;
    return 0;
}

/* One line per cell torn down, appended to the file $SBK_MARK names
 * (when set): the size and the calls the kernel counted. */
void sbk_copy_fini(void *state)
{
    struct sbk_state *st = state;
    const char *mark = getenv("SBK_MARK");

    if (st && mark && *mark) {
        char line[96];
        int fd = open(mark, O_WRONLY | O_APPEND | O_CREAT, 0644);
        int len = snprintf(line, sizeof line, "fini n=%zu calls=%zu\n",
                           st->n, st->calls);
        if (fd >= 0) {
            if (write(fd, line, (size_t)len) != len)
                len = -1;
            close(fd);
        }
    }
    free(st);
}

/* A clear kernel: zero bytes, a byte at a time. */
void sbk_clear(void *dst, const void *src, size_t n, void *state)
{
    volatile unsigned char *d = dst;
    (void)src, (void)state;
    for (size_t i = 0; i < n; i++)
        d[i] = 0;
}

/* An init that fails: the run must say so, naming the errno value. */
void sbk_noinit(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memcpy(dst, src, n);
}

int sbk_noinit_init(void **state, size_t n)
{
    (void)state, (void)n;
    return ENOSPC;
}

/* A kernel that crashes: the byte check must refuse it, not die. */
void sbk_crash(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)n, (void)state;
    abort();
}

/* The object's own counter, bumped and written to dst as a size_t: two
 * kernels of one namespace count together, of two namespaces apart. */
static size_t sbk_counter;

void sbk_count(void *dst, const void *src, size_t n, void *state)
{
    (void)src, (void)n, (void)state;
    ++sbk_counter;
    memcpy(dst, &sbk_counter, sizeof sbk_counter);
}
