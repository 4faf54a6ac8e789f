/*
 * fuzz_numbers.c: libFuzzer harness for the analyze reader,
 * cli_read_numbers() in src/cli_parse.c: the input is the whole file,
 * read through a memory FILE.  Besides the sanitizers, the harness checks
 * the header's promises: on success at least one value, every one finite;
 * on failure no array, no count and a one-line message.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                    \
            abort();                                                     \
        }                                                                \
    } while (0)

static void read_all(char *buf, size_t size, size_t msglen)
{
    char msg[256] = "";
    double *vals = (double *)1;
    size_t n = 1;
    FILE *f = fmemopen(buf, size, "r");
    int rc;

    if (!f)
        return;
    rc = cli_read_numbers(f, "fuzz.txt", &vals, &n, msg, msglen);
    fclose(f);
    if (rc != 0) {
        CHECK(rc == -1);
        CHECK(vals == NULL && n == 0);
        CHECK(msglen == 0 || strlen(msg) < msglen);
        CHECK(msglen < 2 || (msg[0] != '\0' && !strchr(msg, '\n')));
        return;
    }
    CHECK(vals != NULL && n >= 1);
    for (size_t i = 0; i < n; i++)
        CHECK(isfinite(vals[i]));
    free(vals);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen wants a writable buffer; an exact-size copy keeps ASan's
     * eye on reads past the end.  (An empty input is an empty file: glibc
     * 2.22 and later open a buffer of size 0.) */
    char *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    read_all(buf, size, 256);
    /* A short message buffer: truncated, never overrun. */
    read_all(buf, size, 8);
    free(buf);
    return 0;
}
