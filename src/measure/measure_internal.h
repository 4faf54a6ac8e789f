/*
 * measure_internal.h: what the files of one invocation's measuring share,
 * never installed: the per-cell working state, the checks and probes of
 * the invocation, one sample's readings and what the invocation holds
 * while it measures, with the functions that cross between those files.
 * measure.c (sb__measure, the protocol's steps in order) calls down into
 * the others, each comment naming its file; they never call back up.
 * measure.h holds the names the runner sees.
 */
#ifndef SB_MEASURE_INTERNAL_H
#define SB_MEASURE_INTERNAL_H

#include <sched.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "counters.h"
#include "interrupts.h"
#include "measure.h"
#include "plan.h"
#include "probe.h"

/* Per-cell working state of one invocation. */
struct work {
    void *state; /* from the kernel's setup */
    int has_state;
    int cold;    /* flush the buffers before each timed call */
    char *dst;
    const char *src;
    double per_iter;   /* ticks per call, from the warm-up */
    int keep_irq;      /* samples too long to dodge interrupts: an
                          interrupt is no reason to reject them */
    int keep_wait;     /* samples that cannot dodge the waits for the CPU
                          (keep_wait_from): kept, the wait taken off */
    int fail_errno;    /* of the last failed call in a sample, for the
                          note (sb_kernel_failed) */
};

/* Check costs kept for their median: the last this many samples'. */
#define COST_RING 8191

/* The disturbance checks and counters of one invocation. */
struct probe {
    int tsc;
    double hz;
    sb__counters *ctr;
    size_t nctr;
    int i_ctxsw, i_migr;   /* read index of those counters, or -1 */
    int ctxsw_rusage;      /* context switches come from getrusage */
    double ctr_overhead[SB_MAX_COUNTERS]; /* median count of an empty
                                             sample, subtracted */
    sb__irq irq;
    int irq_ok;
    uint64_t irq_last, irq_first;  /* counts at the last and first read */
    uint64_t irq_tick, irq_tick0;  /* timer ticks of those reads */
    uint64_t rebase_ticks;         /* re-read before a sample after this */
    double *cost;                  /* ring of check costs, in ticks */
    size_t ncost;
    /* The clock and contention probes (probe.c). */
    sb__probe cp;
    int cp_open;
    int i_cyc;                     /* read index of PAPI_TOT_CYC, or -1 */
    sb__quiet quiet;               /* the contention probe's quiet model */
    double *ldst;                  /* its ring and work (2 * COST_RING) */
    double *clk;                   /* ring of sample clocks */
    double *share;                 /* ring of the probes' cost shares */
    size_t nclk, nshare;
    size_t nforced;                /* samples seen by the test hook */
    double waited;                 /* seconds waited for a quiet core */
    double gap_min;                /* the fewest ticks of a sample's
                                      checks inside its run_delay window
                                      (sb__take_sample), INFINITY: none yet */
};

/* What one sample saw. */
struct sample {
    double ticks;  /* per iteration, timer overhead subtracted */
    unsigned flags; /* 1u << SB_REJECT_CTXSW, _MIGRATION, _INTERRUPT */
    double clock;   /* core cycles per tick around it, NAN: unknown */
    double ldst;    /* the contention probe beside it, core cycles per rep
                       (ticks per rep without a clock); NAN: none */
    double user, sys; /* CPU seconds of the thread during it */
    double wait;    /* ticks per iteration that the thread waited for
                       its CPU inside the timed region (estimated from
                       run_delay, sb__take_sample); 0: none */
    double wait_s, timed_s; /* that wait and the timed region, seconds */
    int voluntary;  /* a voluntary context switch (or none could be
                       read): a sleep, whose time run_delay does not
                       hold */
    double ctr[SB_MAX_COUNTERS]; /* per iteration; NAN when unread */
    double probes[SB_PROBE_READINGS]; /* sb_run_sample_probes' readings */
};

/* What one invocation holds while it measures, so that every way out
 * releases the same things in the same order (release(), measure.c). */
struct held {
    const sb_plan *plan;
    size_t n;                 /* cells */
    struct work *w;           /* per cell */
    size_t *order;            /* of the cells in this round */
    gsl_rng *rng;             /* the shim, then the rounds' order */
    struct probe pr;
    int probing;              /* sb__checks_open succeeded */
    char *src, *dst;
    size_t src_bytes, dst_bytes;
    void *shim;
    size_t shim_bytes;
    double *scratch;          /* the stop rule's */
    size_t index;             /* of this invocation, 0-based */
    sb__check seen;           /* the stop rule's last check, when
                                 progress_state asks for it */
    const sb_analysis_options *a; /* the stop rule's target and metric */
    cpu_set_t saved;          /* affinity before sb__pin */
    int restore;              /* put it back */
    struct sched_param saved_param;
    int saved_policy, fifo;   /* the policy before --rt, and --rt took */
    int locked, unlock;       /* mlockall took, and munlockall at the end */
};

/* One sample of k iterations of cell c with its checks, into s
 * (sample.c; measure.c's top comment, step 6).  Hot: one untimed call
 * first brings the buffers back into the cache.  Cold: the buffers are
 * flushed from every cache level instead (k is then 1). */
void sb__take_sample(const sb_cell *c, struct work *w, size_t k,
                     struct probe *pr, double overhead, struct sample *s);
/* One contention probe's raw ticks ld as sample s's metric (sample.c):
 * core cycles per rep with its clock, ticks per rep while the clock is
 * unverified or unknown; NAN: none. */
double sb__ldst_value(const struct probe *pr, const struct sample *s,
                      uint64_t ld);

/* Sample v taken for cell r counted, then kept or rejected by the policy
 * (record.c); keep: disturbances that are no reason to reject it.
 * SB_OK, or SB_ENOMEM when keeping it failed. */
int sb__record_sample(const sb_measure_options *opt, struct work *w,
                      sb__raw_cell *r, const struct sample *v,
                      unsigned keep);
/* The samples cell r rejected so far, for every reason (record.c). */
size_t sb__rejected_of(const sb__raw_cell *r);

/* The stop rule after a round (stop_rule.c): 1 when every cell has
 * opt->min_samples and meets the precision target, 0 to go on,
 * SB_ENOMEM.  *check_at is the next round to check at; *scratch grows to
 * fit; seen (optional) counts every cell for progress_state. */
int sb__stop_rule(const sb_plan *plan, const sb__invocation *inv,
                  const sb_measure_options *opt,
                  const sb_analysis_options *a, size_t *check_at,
                  double **scratch, sb__check *seen);

/* Open the checks of an invocation (checks.c): counters, the pinned
 * CPU's interrupts, then the clock and contention probes and the quiet
 * model.  pr->tsc and pr->hz are set before. */
int sb__checks_open(struct probe *pr, const sb_measure_options *opt,
                    sb__invocation *inv, sb_error *err);
/* Close them and fill the invocation's figures (checks.c). */
void sb__checks_close(struct probe *pr, sb__invocation *inv);
/* The probes' part of that alone, for a start that failed (checks.c). */
void sb__free_probes(struct probe *pr);
/* The test hook's verdict on the probes' start-up check (checks.c). */
void sb__force_check(struct probe *pr, sb_meta *m, int pass);

/* Whether the plan keeps to the run's budget, in the first invocation
 * (calibrate.c): SB_EINVAL, saying how long it needs, when it cannot. */
int sb__check_budget(const sb_plan *plan, const sb_measure_options *opt,
                     const sb__budget *bud, struct work *w,
                     struct probe *pr, double overhead, double target_s,
                     sb__invocation *inv, sb_error *err);
/* The ticks a sample lasts, target or less to fit ten rounds in the
 * budget (calibrate.c). */
double sb__fit_samples(const struct held *h, double budget, double target,
                       sb__invocation *inv);
/* Warm up and calibrate every cell, then choose the interrupt
 * exemptions (calibrate.c). */
void sb__warm_up_cells(struct held *h, double overhead, double target,
                       double t0, double budget, const sb__stop *stop,
                       sb__invocation *inv);
/* The host profile's reference cell, core cycles per call, NAN: none
 * (calibrate.c). */
double sb__reference_speed(struct probe *pr, const sb__budget *bud);

/* The rounds until the stop rule, the sample cap, the deadline or a stop
 * request (rounds.c). */
int sb__run_rounds(struct held *h, const sb_measure_options *opt,
                   double overhead, double t0, double deadline,
                   const sb__stop *stop, sb__invocation *inv,
                   sb_error *err);
/* More samples for the cells still empty after the rounds (rounds.c). */
int sb__fill_empty_cells(struct held *h, const sb_measure_options *opt,
                         double overhead, double deadline, double budget,
                         const sb__stop *stop, sb__invocation *inv,
                         sb_error *err);

#endif
