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
/* The contention probe's pattern, as sb_meta.contention_probe names it
 * (a quiet level means something only beside levels of the same pattern
 * and reps, so the host profile keys on both: change the name with the
 * pattern), and its reps per probe. */
#define SB__PROBE_PATTERN "walk64-ld16-st2048-4k"
#define SB__PROBE_LDST_REPS 32
/* The start-up check: imul over add latency must be 3 within this. */
#define SB__PROBE_TOLERANCE 0.03
/* The margin of a quiet model fitted to too few values to measure its
 * jitter (sb__probe_model): a sample is contended when its contention
 * probe is slower than the quiet level by more than this fraction. */
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

/* The same clock from the two chains' readings (sb_run_sample_probes:
 * ticks per imul, the timer's overhead off): SB__PROBE_IMUL_CYCLES over
 * their mean; one NAN (or not positive): the other's; two clocks more
 * than apart (>= 1) times apart: the higher.  sb__probe_sample_clock is
 * this with apart SB__PROBE_CHAIN_APART, so that a run's clocks decided
 * again from its readings with that ratio are the measured ones, to the
 * bit (sb_analysis_options.chain_apart). */
double sb__probe_chain_clock(double before, double after, double apart);

/* The start-up check.  imul and add are ticks per op of the two chains
 * (timed alike).  1 when imul / add is SB__PROBE_IMUL_CYCLES within the
 * relative tolerance tol (the latency assumption holds); else 0 with why
 * (optional) saying what was seen.  Not finite or not positive: 0. */
int sb__probe_validate(double imul, double add, double tol, char *why,
                       size_t len);

/* The quiet model of the contention probe: where its quiet mode lies and
 * how far above it a value is contended, from the probe's own values
 * (docs/design.md, protocol step 5).  The quiet mode is the lowest narrow
 * cluster that holds a fair share of the values: the lowest value x_i
 * whose window [x_i, x_i * (1 + SB__PROBE_MODEL_WINDOW)] holds at least
 * an eighth of the densest window's count (and SB__PROBE_MODEL_MIN
 * values), then the densest window within two widths above it, whose
 * median is the level.  A lone low value (a chain slowed by a disturbance
 * converts its probe too low) is no cluster.  The margin is the wider of
 * two measures of the mode's own width, clamped to
 * [SB__PROBE_MODEL_FLOOR, SB__PROBE_MODEL_CEIL]:
 *  - the valley: the first value above the level whose window holds at
 *    most a 64th of the mode's window (or only itself), where the mode's
 *    upper tail has thinned out; a shared core's values lie beyond it
 *    (+50% to +100% on the hosts recorded) and do not fill it;
 *  - SB__PROBE_MODEL_K sigmas of the mode's lower side, which a shared
 *    core, only ever slowing the probe, cannot reach: the 90th percentile
 *    of the distances below the level of the values within 10% below it,
 *    over 1.645 (a normal mode's sigma), where there are
 *    SB__PROBE_MODEL_MIN such values.
 * The valley counts only up to twice the sigmas' margin (8 sigmas) when
 * sigma is known and above 0: on a host whose shared core slows the probe
 * by any amount from a few percent up (the Intel Xeon guest: no valley,
 * the copies 5-15% slower where the probe reads 8-15% above its level),
 * the valley lies far out and would keep the mildly shared samples.
 * Either alone cuts some quiet modes: the sigmas one whose values sit on
 * a lattice of the clock conversion (a sigma of 0 seen here, the mode
 * 3% wide), the valley a smooth mode whose tail thins early (1% on the
 * Zen 3 trace, where 8 sigmas are 3.5%).
 * Fitted on both recorded hosts (tests/test_replay.c); nothing in it
 * names a CPU. */
#define SB__PROBE_MODEL_WINDOW 0.01
#define SB__PROBE_MODEL_MIN 8
#define SB__PROBE_MODEL_K 4.0
#define SB__PROBE_MODEL_FLOOR 0.01
#define SB__PROBE_MODEL_CEIL 0.25

/* Fit the quiet model to the n values at x (NANs and values <= 0
 * skipped; x is sorted in place): *level and *margin, NAN both when fewer
 * than 2 * SB__PROBE_MODEL_MIN values remain.  *jitter (optional)
 * receives the mode's relative sigma (NAN when not measured).  Returns
 * the number of values used. */
size_t sb__probe_model(double *x, size_t n, double *level, double *margin,
                       double *jitter);

/* The quiet model of one invocation, kept up to date as its probe values
 * arrive (sample.c; tests/test_replay.c replays recorded hosts through
 * it).  Its own level starts from a calibration and is refitted over
 * the values so far at 32, 64, 128, then every 256 values, over a ring
 * of the last cap.  It only goes down, so that a stretch of contention
 * does not raise it; the first refit replaces the calibration (which
 * may have run in other conditions); a refit of the same mode (its
 * level within the margin) brings its margin, measured on more values,
 * and a refit far below brings its own.  A prior (a level earlier
 * invocations or the host's profile found) decides instead where it is
 * lower, with its own margin while the invocation's level sits above
 * the prior's margin (shared throughout, so far), but not when it is
 * below a third of the own level: a level that low is a wrong figure,
 * not a quieter core (a shared core slows the probe 2x on the hosts
 * recorded), and would reject every sample.  Decisions take level and
 * margin; the invocation reports own_level, what it saw.  min_margin
 * floors every margin (ticks without a core clock: the host's clock
 * steps move the probe too). */
typedef struct sb__quiet {
    double *ring;       /* cap values, the caller's */
    double *work;       /* cap values, the caller's */
    size_t cap, n;      /* n: values seen so far */
    double level, margin;         /* what decides a sample */
    double own_level, own_margin; /* the invocation's own fit */
    double prior_level, prior_margin; /* NAN: none */
    double min_margin;
} sb__quiet;

/* Start: no level (NAN) and SB__PROBE_MARGIN, over the caller's ring
 * and work arrays of cap values each. */
void sb__quiet_init(sb__quiet *q, double *ring, double *work, size_t cap,
                    double min_margin);
/* Seed the level from a calibration (prior 0) or a prior (1), with its
 * margin (NAN: keep the current one).  A NAN level does nothing. */
void sb__quiet_seed(sb__quiet *q, double level, double margin, int prior);
/* Add one probe value (not finite: ignored) and refit when due. */
void sb__quiet_add(sb__quiet *q, double v);

/* The prior a run's later invocations start their quiet model from: the
 * lowest of the n levels of its earlier invocations that another of them
 * confirms (the two within margin of each other), so that one
 * invocation's level, too low from suspect clock readings, cannot make
 * every later sample look contended; NAN when none is confirmed. */
double sb__quiet_prior(const double *levels, size_t n, double margin);

/* 1 when a probe value v is slower than the quiet level by more than the
 * margin (v > quiet * (1 + margin)); 0 otherwise, or when either is not
 * finite. */
int sb__probe_contended(double v, double quiet, double margin);

/* The run_delay (nanoseconds waited for a CPU) in the text of
 * /proc/PID/schedstat ("exec_ns run_delay_ns timeslices"); -1 when the
 * text is not that. */
int sb__probe_parse_schedstat(const char *text, uint64_t *run_delay);

/* The pattern the contention probe of this build times, in
 * meta->contention_probe ("" without one, when the architecture has no
 * chains: sb__arch_have_chains): the host profile keys on it.  Here, not
 * in meta.c, so that calls go from the probe to the meta and not back. */
void sb__probe_name_meta(sb_meta *meta);

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
                             the run (runner_collect.c) */
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
 * sb__probe_force makes sample.c see, beside every sample taken, a wait
 * for the CPU when bit 0 is set and a shared core when bit 1 is set; bit
 * 2 limits both to every other sample, bit 3 to every third sample
 * (tests/test_probe.c: a real disturbance may not happen during a test);
 * bit 4 makes the start-up check see a folded add chain, which refuses
 * the clock probe; bit 5 turns the contention probe's verdict off, for
 * tests of the other disturbances (tests/test_disturb.c) that a busy
 * sibling vCPU would otherwise empty of samples; bit 6 makes the check
 * fail in a run's first invocation and pass in the others, whatever the
 * chains measured (a shared core at start-up), so that the runner keeps
 * the first one's clocks; bit 7 makes the wait for a quiet core after a
 * shared-core sample (rounds.c, wait_quiet) see the core shared
 * throughout.
 * The library holds no definition. */
#if defined(__GNUC__)
extern int sb__probe_force __attribute__((weak, visibility("hidden")));
#define SB__PROBE_FORCE (&sb__probe_force ? sb__probe_force : 0)
#else
#define SB__PROBE_FORCE 0
#endif

#endif
