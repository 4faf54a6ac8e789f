/*
 * fuzz.h: what the libFuzzer harnesses share: a CHECK that aborts (so the
 * fuzzer reports it), /dev/null opened once, and rendering a run in every
 * format.
 */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "statbench.h"
#include "check.h"

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

/* The whole file at path, NUL-terminated; NULL when there is none (the
 * figure harnesses read back the scripts they made). */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    FILE *m;
    int c;

    if (!f)
        return NULL;
    m = open_memstream(&buf, &len);
    CHECK(m != NULL);
    while ((c = getc(f)) != EOF)
        putc(c, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* Every reporter must write any run it is given. */
static void render(const sb_run *run)
{
    static const int formats[] = {SB_FORMAT_TABLE, SB_FORMAT_CSV,
                                  SB_FORMAT_JSON, SB_FORMAT_MARKDOWN,
                                  SB_FORMAT_LATEX, SB_FORMAT_HTML};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        sb_error e = {0};
        CHECK(sb_report(run, formats[i], devnull, &e) == SB_OK);
    }
}

#endif
