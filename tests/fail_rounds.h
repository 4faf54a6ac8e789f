/*
 * fail_rounds.h: a kernel that fails when the test says, and the progress
 * callback that says so in every second round.  With it a run has
 * kernel-failed rejects whatever the machine does: half its rounds are
 * rejected, the others kept (under --reject none, only those).
 */
#ifndef SB_TEST_FAIL_ROUNDS_H
#define SB_TEST_FAIL_ROUNDS_H

#include <errno.h>
#include <string.h>

#include "statbench.h"

/* Whether the kernel's calls in this round fail: set by the progress
 * callback, which runs between rounds. */
static volatile int fail_now;

/* memset's work; each call fails with EIO while fail_now is set. */
static inline void clear_or_fail(void *dst, const void *src, size_t n,
                                 void *state)
{
    (void)src, (void)state;
    memset(dst, 0, n);
    if (fail_now)
        sb_kernel_failed(EIO);
}

/* The run's progress callback: calls fail in every odd round. */
static inline int every_other_round(void *arg, size_t round, double elapsed)
{
    (void)arg, (void)elapsed;
    fail_now = (int)(round % 2);
    return 0;
}

/* The kernel of clear_or_fail, for the tests' plans. */
static inline const sb_kernel *fail_rounds_kernel(void)
{
    static const sb_kernel k = {.size = sizeof(sb_kernel),
                                .name = "sometimes_fails",
                                .family = SB_FAMILY_CLEAR,
                                .description = "fails in every second "
                                               "round",
                                .fn = clear_or_fail};
    return &k;
}

#endif
