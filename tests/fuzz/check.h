/*
 * check.h: the libFuzzer harnesses' CHECK.  A broken promise is a crash,
 * so that libFuzzer keeps the input.
 */
#ifndef SB_FUZZ_CHECK_H
#define SB_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                    \
            abort();                                                     \
        }                                                                \
    } while (0)

#endif
