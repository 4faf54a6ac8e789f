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
#include <string.h>

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

/* A run of n libc cells of 4 KiB, 8 KiB, ... with no sample yet, a TSC
 * at hz, and the core clock's source probe ("imul-chain", "pmu",
 * "none"): NULL when out of memory. */
static inline sb_run *synth_libc_cells(size_t n, double hz,
                                       const char *probe)
{
    sb_run *run = sb__run_alloc(n, NULL, NULL);

    if (!run)
        return NULL;
    synth_tsc(run, hz);
    snprintf(run->meta.probe, sizeof run->meta.probe, "%s", probe);
    for (size_t i = 0; i < n; i++) {
        run->cells[i].cell.kernel = sb_kernel_find("libc");
        run->cells[i].cell.size = (size_t)4096 << i;
    }
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

/* One invocation of a cell being made, sample by sample, as the runner
 * sends it: the kept samples' columns, and the samples held for a shared
 * core alone with their places among all the invocation's samples. */
#define SYNTH_MAX 512
typedef struct synth_inv {
    size_t nk, nh;
    double kt[SYNTH_MAX], kc[SYNTH_MAX], kp[SYNTH_MAX * SB_PROBE_READINGS];
    double ht[SYNTH_MAX], hc[SYNTH_MAX], hp[SYNTH_MAX * SB_PROBE_READINGS];
    unsigned char kf[SYNTH_MAX], hf[SYNTH_MAX];
    size_t at[SYNTH_MAX];
} synth_inv;

/* The next sample of v: kept (flags f) or held for a shared core, with
 * its ticks t, clock c and readings p (SB_PROBE_READINGS). */
static inline void synth_sample(synth_inv *v, int hold, double t, double c,
                                unsigned char f, const double *p)
{
    size_t q = hold ? v->nh : v->nk;
    if (v->nk + v->nh >= SYNTH_MAX) {
        /* Said, so that a test cannot shrink its run unseen. */
        tap_diag("synth_sample: more than %d samples in an invocation",
                 SYNTH_MAX);
        return;
    }
    if (hold) {
        v->at[q] = v->nk + v->nh;
        v->hf[q] = 1u << SB_REJECT_SHARED_CORE;
    } else {
        v->kf[q] = f;
    }
    (hold ? v->ht : v->kt)[q] = t;
    (hold ? v->hc : v->kc)[q] = c;
    memcpy((hold ? v->hp : v->kp) + q * SB_PROBE_READINGS, p,
           SB_PROBE_READINGS * sizeof *p);
    if (hold)
        v->nh++;
    else
        v->nk++;
}

/* v added to cell i of run as an invocation (with its readings, or none
 * when readings is 0), and emptied for the next: SB_OK or the
 * library's status. */
static inline int synth_add(sb_run *run, size_t i, synth_inv *v,
                            int readings)
{
    sb__raw_cell raw = {0}, held = {0};
    int rc;

    raw.iters = 1;
    raw.nsamples = v->nk;
    raw.ticks = v->kt;
    raw.clock = v->kc;
    raw.flags = v->kf;
    raw.probes = readings ? v->kp : NULL;
    held.nsamples = v->nh;
    held.ticks = v->ht;
    held.clock = v->hc;
    held.flags = v->hf;
    held.probes = readings ? v->hp : NULL;
    raw.rejected[SB_REJECT_SHARED_CORE] = v->nh;
    raw.disturbed[SB_REJECT_SHARED_CORE] = v->nh;
    if (v->nh) {
        raw.held = &held;
        raw.held_at = v->at;
    }
    rc = sb__run_add_invocation(run, i, &raw);
    v->nk = v->nh = 0;
    return rc;
}

/* The maker of synth_invocations' samples: sample q of invocation g of
 * cell i added to v by synth_sample (or skipped), from state. */
typedef void synth_make_fn(synth_inv *v, size_t i, size_t g, size_t q,
                           void *state);

/* run (synth_libc_cells) with ninv invocations of each cell, per
 * samples each made by make (state its own), added with their readings
 * unless readings is 0, then analysed: run, or NULL (run freed) when out
 * of memory or the analysis fails. */
static inline sb_run *synth_invocations(sb_run *run, size_t ninv,
                                        size_t per, int readings,
                                        synth_make_fn *make, void *state)
{
    static synth_inv v;

    if (!run)
        return NULL;
    for (size_t g = 0; g < ninv; g++)
        for (size_t i = 0; i < run->ncells; i++) {
            for (size_t q = 0; q < per; q++)
                make(&v, i, g, q, state);
            if (synth_add(run, i, &v, readings) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    return synth_analysed(run, ninv);
}

#endif
