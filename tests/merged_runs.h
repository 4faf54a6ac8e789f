/*
 * merged_runs.h: the run records of a simulated merged run, for the
 * tests that build one sample by sample through the internal API
 * (run_internal.h) and then give each invocation its run.
 */
#ifndef SB_TEST_MERGED_RUNS_H
#define SB_TEST_MERGED_RUNS_H

#include <stdlib.h>

#include "run_internal.h"

/* Room in run for nruns runs of k invocations each: run->inv_run (the
 * run of each invocation, for the caller to fill) and run->runs.  run, or
 * NULL with run freed when there is no memory. */
static inline sb_run *merged_runs(sb_run *run, size_t nruns, size_t k)
{
    run->nruns = nruns;
    run->inv_run = malloc(nruns * k * sizeof *run->inv_run);
    run->runs = calloc(nruns, sizeof *run->runs);
    if (!run->inv_run || !run->runs) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

#endif
