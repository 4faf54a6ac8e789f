/*
 * interrupts.c: interrupts delivered to one CPU, from /proc/interrupts.
 *
 * The file has a header line naming the online CPUs ("CPU0 CPU1 ...") and
 * one line per interrupt source with one count per online CPU, then the
 * source's name.  The count of a CPU is the sum of its column over every
 * line.  A few lines (ERR, MIS on x86) hold one machine-wide count instead
 * of a column per CPU; they are skipped.  Only the wanted column is parsed.
 *
 * The file is opened once and read with pread from offset 0, which makes
 * the kernel generate it afresh.  The kernel hands out at most one seq_file
 * buffer (a page or more) per read, so reading goes on until a read ends
 * well short of a page (the next line would have fit, so there is none) or
 * returns 0.  One read of this 2-CPU machine's 2.2 KB file costs about
 * 30 us, almost all of it the kernel formatting the text.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interrupts.h"

#define PROC_INTERRUPTS "/proc/interrupts"

/* Smallest seq_file buffer: a page. */
#define SEQ_MIN_BUFFER 4096

/* Read the whole file into q->buf (NUL-terminated); its length or -1. */
static ssize_t read_all(sb__irq *q)
{
    size_t used = 0;

    for (;;) {
        ssize_t r;
        if (q->cap - used < SEQ_MIN_BUFFER + 1) {
            size_t cap = q->cap ? 2 * q->cap : 4 * SEQ_MIN_BUFFER;
            char *b = realloc(q->buf, cap);
            if (!b)
                return -1;
            q->buf = b;
            q->cap = cap;
        }
        r = pread(q->fd, q->buf + used, q->cap - used - 1, (off_t)used);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        used += (size_t)r;
        /* A read stops early only when the next line does not fit in the
         * kernel's buffer; with room for a longest line left, it was the
         * end of the file. */
        if (r == 0 || (size_t)r + q->longest_line + 64 < SEQ_MIN_BUFFER)
            break;
    }
    q->buf[used] = '\0';
    return (ssize_t)used;
}

int sb__irq_open(sb__irq *q, int cpu, char *why, size_t whylen)
{
    return sb__irq_open_file(q, PROC_INTERRUPTS, cpu, why, whylen);
}

int sb__irq_open_file(sb__irq *q, const char *path, int cpu, char *why,
                      size_t whylen)
{
    const char *p, *eol;
    int col = 0;

    memset(q, 0, sizeof *q);
    q->fd = -1;
    q->col = -1;
    q->longest_line = 256;
    if (cpu < 0) {
        snprintf(why, whylen, "not pinned");
        return -1;
    }
    q->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (q->fd < 0) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (read_all(q) < 0) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        sb__irq_close(q);
        return -1;
    }
    /* The header: which column is this CPU's. */
    p = q->buf;
    eol = strchr(p, '\n');
    if (!eol)
        eol = p + strlen(p);
    while (p < eol) {
        char *end;
        long c;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= eol)
            break;
        if (strncmp(p, "CPU", 3) != 0)
            break;
        c = strtol(p + 3, &end, 10);
        if (end == p + 3)
            break;
        if (c == cpu)
            q->col = col;
        col++;
        p = end;
    }
    q->ncols = col;
    if (q->col < 0) {
        snprintf(why, whylen, "CPU %d has no column in %s", cpu, path);
        sb__irq_close(q);
        return -1;
    }
    /* The longest line, for read_all's end-of-file test. */
    for (p = q->buf; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > q->longest_line)
            q->longest_line = len;
        p += len + (e != NULL);
    }
    return 0;
}

/* Parse an unsigned decimal at *pp after blanks; 0 when there is none. */
static int number(const char **pp, unsigned long long *v)
{
    const char *p = *pp;
    unsigned long long x = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        x = 10 * x + (unsigned long long)(*p++ - '0');
    *pp = p;
    *v = x;
    return 1;
}

int sb__irq_read(sb__irq *q, uint64_t *total)
{
    const char *p;
    uint64_t sum = 0;

    if (q->fd < 0 || read_all(q) < 0)
        return -1;
    p = strchr(q->buf, '\n'); /* skip the header */
    while (p && *++p) {
        const char *colon = strchr(p, ':');
        const char *eol = strchr(p, '\n');
        unsigned long long v = 0, next;
        int ok = 1;
        if (!eol)
            eol = p + strlen(p);
        if (colon && colon < eol) {
            const char *s = colon + 1;
            for (int c = 0; c <= q->col && ok; c++)
                ok = number(&s, &v);
            /* A machine-wide line has fewer numbers than CPUs: when this
             * column is not the last, the next one must be there too. */
            if (ok && q->col + 1 < q->ncols)
                ok = number(&s, &next);
            if (ok)
                sum += v;
        }
        p = *eol ? eol : NULL;
    }
    *total = sum;
    return 0;
}

void sb__irq_close(sb__irq *q)
{
    if (q->fd >= 0)
        close(q->fd);
    free(q->buf);
    q->buf = NULL;
    q->cap = 0;
    q->fd = -1;
}
