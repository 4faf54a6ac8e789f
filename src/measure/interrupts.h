/*
 * interrupts.h: interrupts.c's internal functions, never installed.
 */
#ifndef SB_INTERRUPTS_H
#define SB_INTERRUPTS_H

#include "sb_internal.h"

/* The interrupts delivered to one CPU (/proc/interrupts,
 * that CPU's column summed over all lines), with the file kept open. */
typedef struct sb__irq {
    int fd;
    int col, ncols;      /* the CPU's column, columns in all */
    char *buf;
    size_t cap;
    size_t longest_line;
} sb__irq;

/* Open for cpu; 0, or -1 with why filled (q is then closed). */
int sb__irq_open(sb__irq *q, int cpu, char *why, size_t whylen);
/* The same from a file in the format of /proc/interrupts (tests). */
int sb__irq_open_file(sb__irq *q, const char *path, int cpu, char *why,
                      size_t whylen);
/* The CPU's total so far; 0 or -1. */
int sb__irq_read(sb__irq *q, uint64_t *total);
void sb__irq_close(sb__irq *q);

#endif
