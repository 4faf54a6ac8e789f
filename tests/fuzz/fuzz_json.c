/*
 * fuzz_json.c: libFuzzer harness for the JSON run reader, sb_run_load()
 * (src/load.c), and, through the runs it accepts, for every reporter.
 *
 * The input is the whole file, read through a memory FILE, twice: with
 * NULL options (the statistics as saved) and with options that differ
 * from the defaults in every field the reader takes from the caller (so
 * that outliers are removed again and other levels are used).  A run that
 * comes back is written with sb_report() to /dev/null in every format and
 * freed; a refusal must say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                    \
            abort();                                                     \
        }                                                                \
    } while (0)

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    if (!devnull) {
        perror("/dev/null");
        abort();
    }
    return 0;
}

static void load(char *buf, size_t size, const sb_options *opt)
{
    static const int formats[] = {SB_FORMAT_TABLE, SB_FORMAT_CSV,
                                  SB_FORMAT_JSON, SB_FORMAT_MARKDOWN,
                                  SB_FORMAT_LATEX};
    sb_run *run = NULL;
    sb_error err = {0};
    FILE *f = fmemopen(buf, size, "r");
    int rc;

    if (!f)
        return;
    rc = sb_run_load(f, "fuzz.json", opt, &run, &err);
    fclose(f);
    if (rc != SB_OK) {
        CHECK(run == NULL);
        CHECK(err.code == rc && err.text[0] != '\0');
        return;
    }
    CHECK(run != NULL && sb_run_count(run) >= 1);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        sb_error e = {0};
        CHECK(sb_report(run, formats[i], devnull, &e) == SB_OK);
    }
    sb_run_free(run);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen wants a writable buffer; an exact-size copy keeps ASan's
     * eye on reads past the end. */
    char *buf = malloc(size ? size : 1);
    sb_options o;

    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    load(buf, size, NULL);

    sb_options_init(&o);
    o.ci_level = 0.99;
    o.precision = 0.05;
    o.outliers = SB_OUTLIERS_REJECT_ALL;
    o.alpha = 0.01;
    o.threshold = 0.02;
    load(buf, size, &o);
    free(buf);
    return 0;
}
