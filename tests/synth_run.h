/*
 * synth_run.h: runs made of synthetic samples through the internal API
 * (run_internal.h), for the tests of what is computed and written from a
 * run's samples without measuring any.  Include it after config.h, as
 * every test does (PACKAGE_VERSION).
 */
#ifndef SB_TEST_SYNTH_RUN_H
#define SB_TEST_SYNTH_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "run_internal.h"
#include "tap.h"

/* A uniform double in [0, 1) from a 64-bit LCG (Knuth's MMIX constants):
 * the same samples on every machine and C library, from the seed *s. */
static inline double uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* run's metadata: this statbench, a TSC at hz (the test's rate, not a
 * calibration), pinned to no CPU. */
static inline void synth_tsc(sb_run *run, double hz)
{
    snprintf(run->meta.statbench_version, sizeof run->meta.statbench_version,
             "%s", PACKAGE_VERSION);
    run->meta.timer.kind = SB_TIMER_TSC;
    run->meta.timer.hz = hz;
    run->meta.timer.hz_source = "test";
    run->meta.cpu = -1;
}

/* A run of one cell of the kernel called name, 4 KiB, with no sample
 * yet and a timer that is a TSC at hz: NULL, with a diagnostic line when
 * the build has no such kernel. */
static inline sb_run *synth_one_cell(const char *name, double hz)
{
    const sb_kernel *k = sb_kernel_find(name);
    sb_measure_options o;
    sb_run *run;

    if (!k) {
        tap_diag("no kernel %s in this build", name);
        return NULL;
    }
    sb_measure_options_init(&o);
    run = sb__run_alloc(1, &o, NULL);
    if (!run)
        return NULL;
    run->meta.timer.kind = SB_TIMER_TSC;
    run->meta.timer.hz = hz;
    run->cells[0].cell = (sb_cell){.kernel = k, .size = 4096};
    return run;
}

/* run, whose invocations were added, analysed: run, or NULL (with a
 * diagnostic line, and run freed) when the analysis fails. */
static inline sb_run *synth_analysed(sb_run *run, size_t invocations)
{
    sb_error err = {0};

    run->invocations = invocations;
    if (sb__run_analyse(run, &err) != SB_OK) {
        tap_diag("analyse: %s", err.text);
        sb_run_free(run);
        return NULL;
    }
    return run;
}

#endif
