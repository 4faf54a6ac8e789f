/*
 * own_kernel.h: what the tests that measure kernels of their own share:
 * a kernel written as one initialiser, so that each says only what
 * differs, and a kernel that spins for a time the test sets (longer than
 * the budget, longer than the interval between interrupts).
 */
#ifndef SB_TEST_OWN_KERNEL_H
#define SB_TEST_OWN_KERNEL_H

#include <time.h>

#include "statbench.h"

/* The initialiser of an sb_kernel of the right size with its name,
 * family, one-line description, function, setup (or NULL) and SB_KERNEL_*
 * flags (or 0); no CPU features, teardown or availability check:
 *     static const sb_kernel k = TEST_KERNEL("test_x", SB_FAMILY_COPY,
 *                                            "what it does", fn, NULL, 0);
 */
#define TEST_KERNEL(name_, family_, description_, fn_, setup_, flags_)    \
    {.size = sizeof(sb_kernel), .name = (name_), .family = (family_),     \
     .description = (description_), .fn = (fn_), .setup = (setup_),       \
     .flags = (flags_)}

/* The monotonic clock, in seconds. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds each call of spin takes: the test sets it before the run. */
static double spin_seconds;

/* A kernel's call that spins on the monotonic clock for spin_seconds and
 * touches no memory. */
static inline void spin(void *dst, const void *src, size_t n, void *state)
{
    double until = now_s() + spin_seconds;
    (void)dst, (void)src, (void)n, (void)state;
    while (now_s() < until)
        ;
}

#endif
