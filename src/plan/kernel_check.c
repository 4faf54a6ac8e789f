/*
 * kernel_check.c: a kernel checked byte for byte before its speed is
 * believed (sb_kernel_verify).  A wrong kernel's speed means nothing, and
 * a kernel from a shared object is code nobody here has tested: each cell
 * of it is called on buffers whose every byte is known, the bytes around
 * the destination are guards, and the result is compared byte for byte.
 * The check runs in a forked process, so that a kernel that crashes or
 * scribbles over the heap is refused, not fatal.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sb_internal.h"

/* The byte check's time limit, in its forked process. */
#define VERIFY_SECONDS 60

/* Guard bytes hold GUARD; the source holds pattern(), which is never
 * GUARD nor 0, so that a copy past the end (of any source byte) and a
 * clear past the end (0) both change a guard.  A copy's destination
 * starts as 0 and a clear's as FILL, so a byte the kernel skipped is
 * wrong too. */
#define GUARD 0xffu
#define FILL 0xa5u

/* Prime period, and 7 is no multiple of it: a copy shifted by a byte
 * differs from the source at every byte. */
static unsigned char pattern(size_t pos)
{
    return (unsigned char)((pos * 7u + 1u) % 251u + 1u);
}

/* Past these the cells of a kernel are checked on a representative set
 * (statbench.h, sb_kernel_verify). */
#define ALL_CELLS_MAX 4096
#define ALL_BYTES_MAX ((size_t)256 << 20)
#define SMALL_SIZE_MAX ((size_t)64 << 10)

struct cand {
    size_t idx, size, pair;
};

static int by_size(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_pair(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    return by_size(a, b);
}

/* The mapping of a buffer of n bytes at offset off of its second page,
 * a whole page of guard before it and at least one after. */
struct buf {
    unsigned char *map, *at;
    size_t len;
};

static int buf_map(struct buf *b, size_t n, size_t off)
{
    size_t pages = (off + n + SB_PAGE_SIZE - 1) / SB_PAGE_SIZE + 2;
    b->len = pages * SB_PAGE_SIZE;
    b->map = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->map == MAP_FAILED) {
        b->map = NULL;
        return -1;
    }
    b->at = b->map + SB_PAGE_SIZE + off;
    return 0;
}

static void buf_unmap(struct buf *b)
{
    if (b->map)
        munmap(b->map, b->len);
    b->map = NULL;
}

/* Where a byte of dst lies, in words: "dst[17]", "dst[-3] (a guard byte
 * 3 before dst)", "dst[4096] (a guard byte 1 past the end)". */
static void where(char *buf, size_t len, const char *name, long long i,
                  size_t n)
{
    if (i < 0)
        snprintf(buf, len, "%s[%lld] (a guard byte %lld before %s)", name, i,
                 -i, name);
    else if ((size_t)i >= n)
        snprintf(buf, len, "%s[%lld] (a guard byte %llu past the end)",
                 name, i, (unsigned long long)((size_t)i - n + 1));
    else
        snprintf(buf, len, "%s[%lld]", name, i);
}

/* One cell: setup, two calls each checked, teardown.  SB_OK or a status
 * with err naming the cell and the first wrong byte. */
static int check_cell(const sb_cell *c, sb_error *err)
{
    const sb_kernel *k = c->kernel;
    int copy = k->family == SB_FAMILY_COPY;
    struct buf s = {0}, d = {0};
    size_t n = c->size, soff, doff;
    void *state = NULL;
    char cell[200];
    int rc = SB_OK;

    snprintf(cell, sizeof cell, "kernel %s, %zu bytes, offsets %zu/%zu",
             k->name, n, c->src_align, c->dst_align);
    if (buf_map(&s, n, c->src_align) || buf_map(&d, n, c->dst_align)) {
        buf_unmap(&s);
        return sb__error(err, SB_ENOMEM, "%s: no memory for the byte check",
                         cell);
    }
    soff = (size_t)(s.at - s.map);
    doff = (size_t)(d.at - d.map);
    for (size_t i = 0; i < s.len; i++)
        s.map[i] = pattern(i);
    if (k->setup) {
        sb_error se = {0};
        rc = k->setup(&state, c, &se);
        if (rc != SB_OK) {
            buf_unmap(&s);
            buf_unmap(&d);
            return sb__error(err, rc, "%s: setup for the byte check: %s",
                             cell, se.text);
        }
    }
    for (int call = 0; call < 2 && rc == SB_OK; call++) {
        memset(d.map, GUARD, d.len);
        memset(d.at, copy ? 0 : FILL, n);
        k->fn(d.at, s.at, n, state);
        for (size_t i = 0; i < d.len && rc == SB_OK; i++) {
            long long at = (long long)i - (long long)doff;
            int inside = i >= doff && i - doff < n;
            unsigned want = !inside ? GUARD : copy ? pattern(soff + (i - doff))
                                                   : 0u;
            char w[96];
            if (d.map[i] == want)
                continue;
            where(w, sizeof w, "dst", at, n);
            rc = sb__error(err, SB_EINVAL,
                           "%s: %s is 0x%02x, expected 0x%02x%s%s", cell, w,
                           d.map[i], want,
                           !inside ? ": the kernel wrote outside dst"
                           : copy  ? " (a copy makes dst equal src)"
                                   : " (a clear zeroes dst)",
                           call ? ", on the second call" : "");
        }
        for (size_t i = 0; i < s.len && rc == SB_OK; i++) {
            char w[96];
            if (s.map[i] == pattern(i))
                continue;
            where(w, sizeof w, "src", (long long)i - (long long)soff, n);
            rc = sb__error(err, SB_EINVAL,
                           "%s: %s is 0x%02x, expected 0x%02x: the kernel "
                           "wrote to its source",
                           cell, w, s.map[i], pattern(i));
        }
    }
    if (k->teardown && k->setup)
        k->teardown(state);
    buf_unmap(&s);
    buf_unmap(&d);
    return rc;
}

/* The cells to check, as plan indices into *out (count in *nout): all of
 * k's, or the representative set. */
static int choose(const sb_kernel *k, const sb_plan *plan, size_t **out,
                  size_t *nout, sb_error *err)
{
    size_t n = 0, bytes = 0, m = 0;
    struct cand *c;
    size_t *pick;

    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < sb_plan_count(plan); i++)
        if (sb_plan_cell(plan, i)->kernel == k)
            n++;
    if (n == 0)
        return sb__error(err, SB_EINVAL,
                         "sb_kernel_verify: the plan has no cell of kernel "
                         "%s", k->name);
    c = malloc(n * sizeof *c);
    pick = malloc(2 * n * sizeof *pick + 1);
    if (!c || !pick) {
        free(c);
        free(pick);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < sb_plan_count(plan); i++) {
        const sb_cell *cl = sb_plan_cell(plan, i);
        if (cl->kernel != k)
            continue;
        c[m++] = (struct cand){i, cl->size,
                               cl->src_align * SB_PAGE_SIZE + cl->dst_align};
        bytes = bytes + cl->size < bytes ? SIZE_MAX : bytes + cl->size;
    }
    if (n <= ALL_CELLS_MAX && bytes <= ALL_BYTES_MAX) {
        for (size_t i = 0; i < n; i++)
            pick[i] = c[i].idx;
        *out = pick;
        *nout = n;
        free(c);
        return SB_OK;
    }
    m = 0;
    /* Every size, at the first cell of it in the plan. */
    qsort(c, n, sizeof *c, by_size);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || c[i].size != c[i - 1].size)
            pick[m++] = c[i].idx;
    /* Every offset pair at its smallest size, and at its largest up to
     * SMALL_SIZE_MAX, where a head or tail that depends on alignment
     * goes wrong. */
    qsort(c, n, sizeof *c, by_pair);
    for (size_t i = 0; i < n;) {
        size_t j = i, small = SIZE_MAX;
        while (j < n && c[j].pair == c[i].pair) {
            if (c[j].size <= SMALL_SIZE_MAX)
                small = j;
            j++;
        }
        pick[m++] = c[i].idx;
        if (small != SIZE_MAX && small != i)
            pick[m++] = c[small].idx;
        i = j;
    }
    free(c);
    *out = pick;
    *nout = m;
    return SB_OK;
}

/* The kernel and its plan as sb_kernel_verify can check them: a copy or
 * clear kernel, callable, that works on the buffers it is given. */
static int verify_refused(const sb_kernel *k, const sb_plan *plan,
                          sb_error *err)
{
    if (!k || !plan)
        return sb__error(err, SB_EINVAL, "sb_kernel_verify: %s is NULL",
                         !k ? "kernel" : "plan");
    if (k->size != sizeof(sb_kernel) || !k->fn || !k->name)
        return sb__error(err, SB_EINVAL,
                         "sb_kernel_verify: not a kernel to call (its size, "
                         "name or fn)");
    if ((k->family != SB_FAMILY_COPY && k->family != SB_FAMILY_CLEAR) ||
        (k->flags & SB_KERNEL_OWN_MEMORY))
        return sb__error(err, SB_EINVAL,
                         "sb_kernel_verify: kernel %s: only a copy or clear "
                         "kernel that works on the buffers it is given can "
                         "be checked", k->name);
    return SB_OK;
}

/* The checking child: the picked cells checked in turn, each one's index
 * in *at first (shared with the parent, for the message when the child
 * dies), until one fails; the first error, or none, written whole on w.
 * r is the parent's end, closed here. */
_Noreturn static void verify_child(const sb_plan *plan, const size_t *pick,
                                   size_t npick, volatile size_t *at, int r,
                                   int w)
{
    sb_error e = {0};
    /* A kernel (or its init) that loops or blocks must not hold the
     * run before its budget starts: the check has a minute. */
    signal(SIGALRM, SIG_DFL);
    alarm(VERIFY_SECONDS);
    close(r);
    for (size_t i = 0; i < npick && e.code == SB_OK; i++) {
        *at = pick[i];
        check_cell(sb_plan_cell(plan, pick[i]), &e);
    }
    if (write(w, &e, sizeof e) != (ssize_t)sizeof e)
        _exit(3);
    _exit(0);
}

/* The child's error as read from fd, into *got: the bytes read, all of
 * them only when the child wrote its record. */
static ssize_t verify_read(int fd, sb_error *got)
{
    ssize_t r, have = 0;

    while (have < (ssize_t)sizeof *got &&
           ((r = read(fd, (char *)got + have,
                      sizeof *got - (size_t)have)) > 0 ||
            (r < 0 && errno == EINTR)))
        if (r > 0)
            have += r;
    return have;
}

/* The check's outcome: the child's record when it wrote one whole (have
 * bytes of got), else how it ended (status), naming the cell at *at when
 * it had begun one. */
static int verify_verdict(const sb_kernel *k, const sb_plan *plan,
                          volatile size_t *at, sb_error *got, ssize_t have,
                          int status, sb_error *err)
{
    char cell[200] = "";

    if (have == (ssize_t)sizeof *got) {
        got->text[sizeof got->text - 1] = '\0';
        return got->code == SB_OK ? SB_OK
                                  : sb__error(err, got->code, "%s",
                                              got->text);
    }
    if (*at != SIZE_MAX) {
        const sb_cell *c = sb_plan_cell(plan, *at);
        snprintf(cell, sizeof cell, ", %zu bytes, offsets %zu/%zu",
                 c->size, c->src_align, c->dst_align);
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return sb__error(err, SB_EINVAL,
                         "kernel %s%s: the byte check did not finish in "
                         "%d s (a kernel or init that hangs?)",
                         k->name, cell, VERIFY_SECONDS);
    if (WIFSIGNALED(status))
        return sb__error(err, SB_EINVAL,
                         "kernel %s%s: died of signal %d (%s) in the byte "
                         "check", k->name, cell, WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
    return sb__error(err, SB_EINVAL,
                     "kernel %s%s: the byte check exited with status "
                     "%d", k->name, cell,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int sb_kernel_verify(const sb_kernel *k, const sb_plan *plan, sb_error *err)
{
    size_t *pick = NULL, npick = 0;
    volatile size_t *at;
    sb_error got = {0};
    int fds[2], rc, status;
    ssize_t have;
    pid_t pid;

    if ((rc = verify_refused(k, plan, err)) != SB_OK)
        return rc;
    if ((rc = choose(k, plan, &pick, &npick, err)) != SB_OK)
        return rc;
    /* The cell being checked, for the message when the child dies. */
    at = mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
        free(pick);
        return sb__error(err, SB_ESYS, "sb_kernel_verify: mmap: %s",
                         strerror(errno));
    }
    *at = SIZE_MAX;
    if (pipe(fds) != 0) {
        munmap((void *)at, sizeof *at);
        free(pick);
        return sb__error(err, SB_ESYS, "sb_kernel_verify: pipe: %s",
                         strerror(errno));
    }
    /* The child ends with _exit: nothing the caller buffered is
     * written twice. */
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        munmap((void *)at, sizeof *at);
        free(pick);
        return sb__error(err, SB_ESYS, "sb_kernel_verify: fork: %s",
                         strerror(errno));
    }
    if (pid == 0)
        verify_child(plan, pick, npick, at, fds[0], fds[1]);
    close(fds[1]);
    have = verify_read(fds[0], &got);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    rc = verify_verdict(k, plan, at, &got, have, status, err);
    munmap((void *)at, sizeof *at);
    free(pick);
    return rc;
}
