/*
 * cli_parse.h: parsers for the command line's values (sizes, lists and
 * ranges, levels).  Each returns 0 on success or -1 with a one-line
 * message in msg that names the bad value.
 */
#ifndef SB_CLI_PARSE_H
#define SB_CLI_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the items of a list are. */
enum cli_value_kind {
    CLI_SIZE,   /* byte counts: 4096, 10K, 1M, 2G (K = 1024) */
    CLI_INT     /* plain non-negative integers: alignments, CPUs */
};

/* Most values a list may expand to: a guard against "0..1G" typos. */
#define CLI_LIST_MAX 100000

/* One value: a decimal integer, for CLI_SIZE optionally followed by a
 * binary suffix K, M or G (also k, KiB, m, MiB, ...). */
int cli_parse_value(const char *s, enum cli_value_kind kind, uint64_t *out,
                    char *msg, size_t msglen);

/* A comma-separated list whose items are a value, a range A..B (step 1),
 * A..B:STEP (arithmetic) or A..B:*F (geometric, factor F >= 2).  Ranges
 * include both ends that the steps reach.  On success *vals is a new
 * malloc'd array of *n values the caller frees. */
int cli_parse_list(const char *s, enum cli_value_kind kind, uint64_t **vals,
                   size_t *n, char *msg, size_t msglen);

/* A decimal floating-point number strictly between lo and hi (exclusive),
 * all of s consumed: no hexadecimal, "inf" or "nan". */
int cli_parse_double(const char *s, double lo, double hi, double *out,
                     char *msg, size_t msglen);

/* Longest line of an analyze file, without its newline. */
#define CLI_LINE_MAX 511
/* The most values cli_read_numbers reads from one file (80 MB of
 * doubles): more is refused, naming the file. */
#define CLI_NUMBERS_MAX 10000000

/* The numbers of an analyze file: one decimal number per line (subnormals
 * included); blank lines and lines whose first non-blank character is '#'
 * are skipped; anything else (a word, NaN, an infinity, hexadecimal, an
 * overflow, a value that rounds to 0, a NUL byte, a line over
 * CLI_LINE_MAX characters) is an error "NAME:LINE: ..." in msg.  No number
 * at all is an error too.  On success *vals is a new malloc'd array of *n
 * values. */
int cli_read_numbers(FILE *f, const char *name, double **vals, size_t *n,
                     char *msg, size_t msglen);

/* Format a byte count the way a reader wants it: "262144 B (256 KiB)".
 * Returns buf. */
char *cli_format_size(uint64_t bytes, char *buf, size_t buflen);

#endif
