/*
 * run_internal.h: the run object and the raw data of one invocation,
 * shared by the runner, the analysis, the loader and the reporters, and
 * the functions over them of run.c (the object), results.c (its
 * statistics), redecide.c (the shared core decided again), metric.c and
 * compare_run.c, each comment naming its file.  The measuring of one invocation is
 * measure.h's.
 */
#ifndef SB_RUN_INTERNAL_H
#define SB_RUN_INTERNAL_H

#include "sb_internal.h"

/* What one invocation measured for one cell.  A zeroed struct with
 * nsamples and ticks set is valid (no counters, no disturbance flags). */
typedef struct sb__raw_cell {
    size_t iters;
    size_t warmup_samples;
    size_t rejected[SB_REJECT_NREASONS];
    size_t disturbed[SB_REJECT_NREASONS]; /* samples showing each reason */
    size_t nsamples, cap;
    double *ticks;
    double user, sys;  /* thread CPU seconds over the kept samples */
    double calls;      /* kernel calls in the kept samples */
    /* Over the kept samples that waited for the CPU (record.c: a cell
     * that cannot dodge the waits keeps them): the seconds of the wait
     * taken off their time, and their timed seconds before that. */
    double waited, waited_timed;
    /* Counters: ncounters values per kept sample, sample-major
     * (counters[s * ncounters + j] is counter j of sample s), per call;
     * counter_names[j] names them (the invocation's meta.counter_names). */
    size_t ncounters;
    const char (*counter_names)[64];
    double *counters;
    unsigned char *flags; /* per kept sample: 1u << reason; or NULL */
    /* Per kept sample: the core clock measured around it, in core cycles
     * per timer tick (core cycles = ticks * clock), NAN where no core
     * clock could be had; or NULL (none at all). */
    double *clock;
    /* Per kept sample: its probes' raw readings (SB_PROBE_READINGS each,
     * sb_run_sample_probes), NAN where not read; or NULL (none). */
    double *probes;
    /* The samples rejected for a shared core alone, kept so that an
     * analysis can decide again (sb_analysis_options.shared_margin):
     * held->nsamples of them with their columns, counted in
     * rejected[SB_REJECT_SHARED_CORE] as well; held_at[q] is held sample
     * q's place among all the invocation's recorded samples (kept and
     * held) in the order measured.  held NULL: none. */
    struct sb__raw_cell *held;
    size_t *held_at;
} sb__raw_cell;

/* What one invocation (one process) measured. */
typedef struct sb__invocation {
    size_t ncells;
    sb__raw_cell *cells;
    size_t rounds;
    double elapsed;
    int interrupted;
    double irq_count;   /* interrupts on the pinned CPU while measuring */
    double irq_seconds; /* over this long (0: not checked) */
    sb_meta meta;
} sb__invocation;

/* The per-sample columns of a cell beside its ticks, in the same order. */
typedef struct sb__cell_samples {
    double *counters[SB_MAX_COUNTERS]; /* run meta.ncounters arrays */
    unsigned char *flags;
    double *clock; /* core cycles per tick (sb__raw_cell.clock), NAN:
                      unknown */
    double *probes; /* SB_PROBE_READINGS per sample, or NULL */
} sb__cell_samples;

/* A cell's held samples (sb__raw_cell.held) over the run: n of them,
 * inv_n[g] of invocation g (the cell's invocations), at[q] the place of
 * held sample q in its invocation's recorded samples, and their columns
 * (counters matched to the run's as the kept samples' are). */
typedef struct sb__cell_held {
    size_t n;
    double *ticks;
    size_t *inv_n;
    size_t *at;
    sb__cell_samples cols;
} sb__cell_held;

/* A cell's samples before the outlier policy removed any, and its
 * rejection counts then: what sb_run_reanalyse starts again from. */
typedef struct sb__cell_before {
    double *ticks;
    size_t *inv_nsamples;
    size_t nsamples;
    sb__cell_samples cols;
    size_t rejected_outlier, rejected_total, rejected_shared;
    size_t disturbed_shared;
    sb__cell_held held; /* the held samples as recorded */
} sb__cell_before;

struct sb_run {
    sb_measure_options measure;   /* what was measured */
    sb_analysis_options analysis; /* how it is analysed: sb_run_reanalyse
                                     replaces it */
    sb_meta meta;
    sb_cell_result *cells;
    sb__cell_samples *samples; /* ncells entries */
    /* ncells entries: the samples the current decision rejects for a
     * shared core alone (as measured, or as the analysis' shared_margin
     * decided again); n 0 everywhere in runs without any. */
    sb__cell_held *held;
    size_t ncells;
    sb_comparison *cmp;     /* ncells entries, or NULL */
    int cmp_within;         /* 1: cmp holds comparisons within the run
                               (sb_run_set_baselines), 0: against another
                               run (sb_run_compare_to) */
    int interrupted;
    char partial[256];      /* why it stopped early unasked, or "" */
    double elapsed;
    size_t rounds;
    size_t invocations;     /* invocations that delivered data */
    char *command;
    sb_kernel *own_kernels; /* stand-ins of a loaded run, or NULL */
    size_t nown;
    char hz_source[64];     /* a loaded run's timer.hz_source points here */
    int imported;           /* made by sb_run_from_samples_new: no machine */
    char unit[16];          /* an imported run's unit ("ms"), or "" */
    /* ncells entries: the samples before the first outlier policy that
     * was not keep; NULL while none ran (the cells hold every sample). */
    sb__cell_before *before;
    /* A run merged from several (sb__run_merge): nruns >= 2, inv_run[g]
     * the run invocation g came from, runs[r] the metadata of run r.
     * nruns 0 for a run measured or saved as one. */
    size_t nruns;
    size_t *inv_run;
    sb_meta *runs;
    char *title;            /* sb_run_set_title's, or NULL */
    /* The probes' figures of every invocation, in order (nprobe of
     * them; meta.probe_inv_* keep only the first SB_PROBE_MAX_INV):
     * its effective core clock and its contention probe's quiet level,
     * NAN where unknown.  Set by sb__run_invocation_probe. */
    size_t nprobe;
    double *inv_clock, *inv_quiet;
    /* The kernels of the run loaded from shared objects (where each came
     * from: sb_run_loaded), nloaded of them, owned; NULL when none. */
    sb_kernel_origin *loaded;
    size_t nloaded;
};

/* run.c: record invocation g's effective core clock and its
 * contention probe's quiet level (NAN: unknown) in the run, for every
 * invocation, and in meta.probe_inv_* for the first SB_PROBE_MAX_INV;
 * invocations before g not yet recorded are unknown.  SB_ENOMEM. */
int sb__run_invocation_probe(sb_run *run, size_t g, double clock,
                             double quiet);
/* compare_run.c: the run's contention quiet level in core cycles per
 * repetition (meta.contention_quiet), NAN when unknown or in ticks (no
 * clock probe): what sb_run_contention_differ compares. */
double sb__run_quiet_cycles(const sb_run *run);

/* redecide.c: why run's shared core cannot be decided again
 * (sb_analysis_options.shared_margin), or NULL when it can. */
const char *sb__run_redecide_refused(const sb_run *run);
/* redecide.c: every sample's shared-core verdict decided again from the
 * run's record, at margin given over each invocation's quiet level
 * (level_of SB_SHARED_INVOCATION) or the run's (SB_SHARED_RUN); the
 * samples it finds quiet are kept, the others held.  SB_EINVAL (said)
 * when the record cannot tell, SB_ENOMEM. */
int sb__run_redecide_shared(sb_run *run, double given, int level_of,
                            sb_error *err);
/* redecide.c: why run's core clock cannot be decided again from its
 * chain readings (sb_analysis_options.chain_apart), or NULL when it can. */
const char *sb__run_reclock_refused(const sb_run *run);
/* redecide.c: every sample's core clock, kept and held, decided again
 * from its two chain readings with the ratio apart
 * (sb__probe_chain_clock); a sample without a clock keeps none, and one
 * whose readings give none keeps its own.  SB_EINVAL (said) when the
 * record cannot tell. */
int sb__run_redecide_clock(sb_run *run, double apart, sb_error *err);
/* redecide.c: SB_OK when run's record can make the decisions a asks
 * for again (chain_apart, shared_margin), else SB_EINVAL saying why. */
int sb__run_redecide_check(const sb_run *run, const sb_analysis_options *a,
                           sb_error *err);

/* results.c: the interval of a cell over its m invocations' medians:
 * their median with the order-statistic interval when m is large enough
 * for the level (6 at 95%), robust to one disturbed invocation; else
 * Student t over them.  *method names which. */
int sb__invocation_ci(const double *med, size_t m, double level,
                      sb_interval *out, const char **method);

/* results.c: the one interval of a cell's median (design.md, protocol
 * steps 8 and 9), from its samples x in ngroups invocation groups of
 * group[g] samples each: with two or more non-empty groups, over their
 * medians (sb__invocation_ci); with one, over its samples, by a BCa
 * bootstrap seeded by seed when a->bootstrap asks for one, else by order
 * statistics.  work holds as many doubles as x.  *method names which.
 * SB_EINVAL without samples (out then NAN), SB_ENOMEM.  The stop rule,
 * the runner's invocation loop and the results all ask this. */
int sb__cell_interval(const double *x, const size_t *group, size_t ngroups,
                      const sb_analysis_options *a, uint64_t seed,
                      double *work, sb_interval *out, const char **method);

/* results.c: the one precision rule: 1 when the interval ci meets the
 * relative target (half-width / |estimate| <= target, finite, the level
 * achieved), and always without a target (target 0: no
 * cell falls short).  Whether to stop early is the caller's question:
 * without a target nothing stops on precision. */
int sb__precision_met(const sb_interval *ci, double target);
/* results.c: the relative half-width that rule compares with the target
 * (half-width / |estimate|), INFINITY when it is not finite or the
 * interval does not achieve its level: how far a cell is from the target,
 * for sb_progress.widest. */
double sb__precision_width(const sb_interval *ci);

/* metric.c: the values of cell i's kept samples, in measured order, in
 * the metric the cell is judged in (its result's metric): ticks, or core
 * cycles (ticks times the sample's clock) for SB_METRIC_CYCLES.  Fills
 * out with the cell's nsamples values.  Everything that judges a cell
 * (the stop rule, its interval, verdicts between runs) asks this. */
void sb__cell_metric_values(const sb_run *run, size_t i, double *out);

/* compare_run.c: cell i's smallest detectable change (its result's
 * mde): what the comparison of this run with another like it, told
 * --run-sd 0, calls at 80% power and alpha 0.05.  From the same unit
 * medians the comparison takes (side_make: invocations, or a merged
 * run's runs, in the cell's metric), the standard error of the log
 * median that comparison's bootstrap sees on one side (with fewer than
 * its 5 units, Welch's: of the mean log), and Student t quantiles with
 * the 2m - 2 degrees of freedom of m units a side.  NAN with fewer than
 * two units or a non-positive median (the caller keeps its figure from
 * the cell's interval); SB_ENOMEM. */
int sb__cell_mde(const sb_run *run, size_t i, double *mde);
/* The process-to-process standard deviation assumed where a comparison
 * of separate runs rests on samples pooled over a side's invocations
 * (with one invocation, one process's samples): the level the processes
 * share is in no such interval, and with one invocation in no data, so
 * it is added as the run level is (divided by the side's invocations),
 * told run_sd or not.  3%, as the run level's: the process level of the
 * model in which one invocation a side keeps its false verdicts at alpha
 * (tests/test_runlevel.c).  Processes that differ more need more
 * invocations, whose medians show it. */
#define SB_PROCESS_SD_ASSUMED 0.03

/* 1 when comparison c's interval was widened by the process-to-process
 * sd assumed (SB_PROCESS_SD_ASSUMED): samples pooled over a side's
 * invocations, the process level in no data. */
int sb__comparison_process_assumed(const sb_comparison *c);


/* run.c: a new run with ncells empty cells and the options m and a
 * (NULL: the defaults), without m's callbacks; NULL on ENOMEM. */
sb_run *sb__run_alloc(size_t ncells, const sb_measure_options *m,
                      const sb_analysis_options *a);

/* run.c: append one invocation's samples of cell i to the run.  Its
 * counters are matched to the run's meta.counter_names by name; a counter
 * the invocation lacks gets NAN. */
int sb__run_add_invocation(sb_run *run, size_t i, const sb__raw_cell *raw);
/* run.c: the counters the run's samples carry (meta.ncounters, at most
 * SB_MAX_COUNTERS); the columns of one cell's samples, one cell's held
 * samples, and the samples kept for reanalysis, freed (and zeroed). */
size_t sb__run_ncounters(const sb_run *run);
void sb__columns_free(sb__cell_samples *cs);
void sb__held_free(sb__cell_held *h);
void sb__before_free(sb_run *run);
/* run.c: the run's stand-in kernels, for names this build lacks or for
 * imported values (they cannot be measured): m of them made from names
 * (cleaned) and families (NULL: SB_FAMILY_EXTERNAL); sorted by name;
 * and the one of a name (NULL: none; after the sort).  SB_ENOMEM. */
int sb__run_add_own_kernels(sb_run *run, const char *const *names,
                            const int *family, size_t m);
void sb__run_sort_own_kernels(sb_run *run);
const sb_kernel *sb__run_own_kernel(const sb_run *run, const char *name);

/* results.c: apply the outlier policy and compute every statistic of
 * every cell from its samples. */
int sb__run_analyse(sb_run *run, sb_error *err);

/* metric.c: the medians of the units a cell's interval is built over,
 * from its m invocation medians med[] (NAN: an invocation without
 * samples): for a run merged from several, each run's median of its
 * invocations' medians (the level above them); else the invocation
 * medians themselves.  Compacts med in place, NaN-free, and sets *m to
 * their number.  SB_OK, SB_ENOMEM. */
int sb__unit_medians(const sb_run *run, double *med, size_t *m);

#endif
