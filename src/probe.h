/*
 * probe.h: probe.c's internal functions, never installed: the core clock
 * probe (a calibrated imul latency chain), its start-up check against an
 * add chain, the contention probe (an L1 load/store loop) and the wait
 * for the CPU (/proc/thread-self/schedstat).  The arithmetic is kept in
 * pure functions so that tests can feed it simulated tick streams.
 */
#ifndef SB_PROBE_H
#define SB_PROBE_H

#include "sb_internal.h"

/* Core cycles of one imul r64, r64 of the chain: 3 on every Intel core
 * since Nehalem and every AMD core since Zen (Agner Fog's tables). */
#define SB__PROBE_IMUL_CYCLES 3.0
/* Ops of the chains are a multiple of this (the loops' unrolling). */
#define SB__PROBE_UNROLL 16
/* The start-up check: imul over add latency must be 3 within this. */
#define SB__PROBE_TOLERANCE 0.03
/* A sample is contended when its contention probe is slower than the
 * quiet level by more than this fraction. */
#define SB__PROBE_MARGIN 0.05
/* The same in ticks, when there is no core clock to convert with: the
 * host's clock steps (3.5% each) move the probe too. */
#define SB__PROBE_MARGIN_TICKS 0.15

/* --- Pure arithmetic (tests/test_probe.c) --- */

/* Core cycles per tick of a chain of `cycles` core cycles that took
 * `ticks` timer ticks, a timer pair's own `overhead` included: cycles /
 * (ticks - overhead); NAN when that is not a positive finite number. */
double sb__probe_clock(double cycles, double ticks, double overhead);

/* The clock around one sample from the chain timed before it and the one
 * timed after it (raw ticks, each holding one timer overhead): the total
 * cycles over the total ticks, so that a clock step inside the sample
 * gives a value between the two states.  One side NAN: the other's.  Two
 * clocks more than SB__PROBE_CHAIN_APART times apart: the higher, the
 * other chain having been disturbed. */
#define SB__PROBE_CHAIN_APART 1.5
double sb__probe_sample_clock(double cycles, double before, double after,
                              double overhead);

/* The start-up check.  imul and add are ticks per op of the two chains
 * (timed alike).  1 when imul / add is SB__PROBE_IMUL_CYCLES within the
 * relative tolerance tol (the latency assumption holds); else 0 with why
 * (optional) saying what was seen.  Not finite or not positive: 0. */
int sb__probe_validate(double imul, double add, double tol, char *why,
                       size_t len);

/* The quiet level of the contention probe: the 5th percentile of its n
 * values (NANs skipped; x is sorted in place).  NAN when none. */
double sb__probe_quiet(double *x, size_t n);

/* 1 when a probe value v is slower than the quiet level by more than the
 * margin (v > quiet * (1 + margin)); 0 otherwise, or when either is not
 * finite. */
int sb__probe_contended(double v, double quiet, double margin);

/* The run_delay (nanoseconds waited for a CPU) in the text of
 * /proc/PID/schedstat ("exec_ns run_delay_ns timeslices"); -1 when the
 * text is not that. */
int sb__probe_parse_schedstat(const char *text, uint64_t *run_delay);

/* --- The probes (x86-64; elsewhere they do nothing) --- */

/* 1 when this build has the chains (x86-64). */
int sb__probe_have_chains(void);
/* A dependent chain of n imul r64, r64 (n a multiple of SB__PROBE_UNROLL),
 * and of n add r64, r64 (NOT add r64, imm, which recent Intel cores fold
 * at rename: 0.54 cycles per add measured on this project's VM). */
void sb__probe_imul_chain(uint64_t n);
void sb__probe_add_chain(uint64_t n);
/* The contention probe: reps times 64 aligned 16-byte loads from the
 * first half of the 4 KiB at buf (64-byte aligned) and 64 stores to its
 * second half, throughput-bound on the load and store ports the copy
 * kernels use. */
void sb__probe_ldst(void *buf, unsigned reps);

/* The probes of one invocation. */
typedef struct sb__probe {
    int tsc;              /* the timer is the TSC */
    double hz;
    double overhead;      /* ticks of an empty timer pair: the median of
                             the last SB__PROBE_NPAIR (sb__probe_pair) */
    double pair[16];      /* the last empty pairs' ticks, a ring */
    size_t npair;
    int clock_ok;         /* the imul chain passed the start-up check */
    int clock_unverified; /* it failed it, perhaps disturbed: the clocks
                             are computed all the same, meta.probe says
                             "unverified", and the runner keeps them only
                             if the check passed in another invocation of
                             the run (runner.c) */
    uint64_t imul_ops;    /* ops of the chain timed beside each sample */
    unsigned ldst_reps;   /* reps of the contention probe per sample */
    double imul_tpo, add_tpo; /* ticks per op at start-up (medians) */
    void *buf;            /* 4 KiB for the contention probe */
    int sched_fd;         /* /proc/thread-self/schedstat, or -1 */
} sb__probe;

/* Set up the probes on the pinned CPU: the empty pair's overhead, the
 * chains' start-up check (failed: clock_ok 0, clock_unverified 1 where
 * the chains could be timed, meta.probe "unverified" and probe_note
 * why), the
 * schedstat file.  Fills meta's probe fields.  SB_OK or SB_ENOMEM. */
int sb__probe_open(sb__probe *p, int tsc, double hz, sb_meta *meta,
                   sb_error *err);
void sb__probe_close(sb__probe *p);

/* Time one empty timer pair and return p->overhead, the median of the
 * last 16: a pair costs 54 ticks here, but 250-700 while the hypervisor
 * traps the TSC (seen in single invocations), and a clock computed with a
 * stale overhead is off by as much. */
double sb__probe_pair(sb__probe *p);

/* Raw ticks (the timer pair included) of one imul chain of p->imul_ops;
 * 0 when there is no chain. */
uint64_t sb__probe_time_chain(const sb__probe *p);
/* Raw ticks of one contention probe of p->ldst_reps; 0 without one. */
uint64_t sb__probe_time_ldst(const sb__probe *p);
/* The thread's run_delay so far in ns; 0 or -1 (unreadable). */
int sb__probe_run_delay(const sb__probe *p, uint64_t *ns);

/* Test hook, as counters.h's: a test program that defines int
 * sb__probe_force makes measure.c see, beside every sample taken, a wait
 * for the CPU when bit 0 is set and a shared core when bit 1 is set; bit
 * 2 limits both to every other sample, bit 3 to every third sample
 * (tests/test_probe.c: a real disturbance may not happen during a test);
 * bit 4 makes the start-up check see a folded add chain, which refuses
 * the clock probe; bit 5 turns the contention probe's verdict off, for
 * tests of the other disturbances (tests/test_disturb.c) that a busy
 * sibling vCPU would otherwise empty of samples; bit 6 makes the check
 * fail in a run's first invocation and pass in the others, whatever the
 * chains measured (a shared core at start-up), so that the runner keeps
 * the first one's clocks.
 * The library holds no definition. */
#if defined(__GNUC__)
extern int sb__probe_force __attribute__((weak, visibility("hidden")));
#define SB__PROBE_FORCE (&sb__probe_force ? sb__probe_force : 0)
#else
#define SB__PROBE_FORCE 0
#endif

#endif
