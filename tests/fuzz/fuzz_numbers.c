/*
 * fuzz_numbers.c: libFuzzer harness for the analyze reader,
 * cli_read_numbers() in src/cli/cli_parse.c, and for what `statbench analyze`
 * does with the numbers it accepts.  The input is the whole file, read
 * through a memory FILE.  Besides the sanitizers, the harness checks the
 * header's promises: on success at least one value, every one finite; on
 * failure no array, no count and a one-line message.  The values then go
 * through sb_run_from_samples_new() as one file and as two (the second
 * compared with the first, sb_run_set_baselines, as `analyze A B` does),
 * and each run is written with sb_report() to /dev/null in every format.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "fuzz.h"
#include "statbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* As `statbench analyze FILE` and `analyze FILE FILE`. */
static void analyze(const double *vals, size_t n)
{
    const char *names[2] = {"a.txt", "b.txt"};
    const double *v[2] = {vals, vals};
    size_t ns[2] = {n, n};

    for (size_t m = 1; m <= 2; m++) {
        sb_run *run = NULL;
        sb_error err = {0};
        int rc = sb_run_from_samples_new(names, v, ns, m, NULL, 1, &run, &err);
        if (rc != SB_OK) {
            /* Finite values always make a run; only the statistics may
             * fail (SB_ENUMERIC), and then they say so. */
            CHECK(run == NULL && err.text[0] != '\0');
            continue;
        }
        if (m == 2) {
            size_t base[2] = {SIZE_MAX, 0};
            CHECK(sb_run_set_baselines(run, base, &err) == SB_OK);
        }
        render(run);
        sb_run_free(run);
    }
}

static void read_all(char *buf, size_t size, size_t msglen, int go_on)
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
    if (go_on)
        analyze(vals, n);
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
    read_all(buf, size, 256, 1);
    /* A short message buffer: truncated, never overrun. */
    read_all(buf, size, 8, 0);
    free(buf);
    return 0;
}
