/*
 * run_internal.h: the run object and the raw data of one invocation,
 * shared by the runner, the analysis, the loader and the reporters.
 */
#ifndef SB_RUN_INTERNAL_H
#define SB_RUN_INTERNAL_H

#include <sched.h>
#include <signal.h>

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
    /* Counters: ncounters values per kept sample, sample-major
     * (counters[s * ncounters + j] is counter j of sample s), per call;
     * counter_names[j] names them (the invocation's meta.counter_names). */
    size_t ncounters;
    const char (*counter_names)[64];
    double *counters;
    unsigned char *flags; /* per kept sample: 1u << reason; or NULL */
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
} sb__cell_samples;

struct sb_run {
    sb_options opt;
    sb_meta meta;
    sb_cell_result *cells;
    sb__cell_samples *samples; /* ncells entries */
    size_t ncells;
    sb_comparison *cmp;     /* ncells entries, or NULL */
    int interrupted;
    char partial[256];      /* why it stopped early unasked, or "" */
    double elapsed;
    size_t rounds;
    size_t invocations;     /* invocations that delivered data */
    char *command;
    sb_kernel *own_kernels; /* stand-ins of a loaded run, or NULL */
    size_t nown;
    char hz_source[64];     /* a loaded run's timer.hz_source points here */
    int imported;           /* made by sb_run_from_samples: no machine */
};

/* measure.c: what stops one run (see measure.c): its own flag (in a
 * shared page when it forks invocations), the caller's sb_options.stop,
 * and the process-wide count of sb_run_request_stop() calls, as it was
 * when the run began. */
typedef struct sb__stop {
    volatile sig_atomic_t own;   /* the flag, when not shared */
    volatile sig_atomic_t *run;  /* the run's flag: &own or a shared page */
    volatile sig_atomic_t *user; /* sb_options.stop, or NULL */
    sig_atomic_t requests;       /* process-wide requests at the start */
} sb__stop;
/* Start stopping state for a run; shared: its flag in a page that forked
 * children share. */
void sb__stop_begin(sb__stop *s, const sb_options *opt, int shared);
void sb__stop_end(sb__stop *s);
/* Whether the run is asked to stop; sb__stop_set asks it (only it). */
int sb__stopped(const sb__stop *s);
void sb__stop_set(const sb__stop *s);

/* The time of one invocation, as sb__now() instants (CLOCK_MONOTONIC,
 * the same in a forked child). */
typedef struct sb__budget {
    double run_started;  /* when the run began */
    double run_deadline; /* when the whole run must be done */
    double started;      /* when the runner began this invocation (before
                            the fork) */
    double deadline;     /* when this invocation must be done */
    size_t invocations_left; /* this one and those still to come */
    int check;           /* 1: check that the plan fits first (the first
                            invocation) */
} sb__budget;

/* measure.c: measure every cell of plan once, in this process, with
 * seed, by the budget's deadline, until stop says so.  Fills inv (which
 * the caller frees with sb__invocation_free).  Interruption is not an
 * error.  With bud->check, SB_EINVAL when the plan cannot keep to the
 * run's budget, saying how long it needs. */
int sb__measure(const sb_plan *plan, const sb_options *opt, uint64_t seed,
                const sb__budget *bud, const sb__stop *stop,
                sb__invocation *inv, sb_error *err);
void sb__invocation_free(sb__invocation *inv);

/* measure.c: parse a CPU list file ("0-3,6") into set; -1 when there
 * is no such file or it does not parse. */
int sb__read_cpulist(const char *path, cpu_set_t *set);

/* measure.c: the CPU a run pins to (see the file's comment), -1 when
 * none is allowed; note (optional) says why. */
int sb__choose_cpu(const sb_options *opt, const cpu_set_t *allowed,
                   char *note, size_t len);

/* measure.c: pin to the CPU of opt; fills meta->cpu and pin_note. */
int sb__pin(const sb_options *opt, sb_meta *meta, cpu_set_t *saved,
            int *restore, sb_error *err);

/* results.c: the interval of a cell over its m invocations' medians:
 * their median with the order-statistic interval when m is large enough
 * for the level (6 at 95%), robust to one disturbed invocation; else
 * Student t over them.  *method names which. */
int sb__invocation_ci(const double *med, size_t m, double level,
                      sb_interval *out, const char **method);

/* results.c: a new run with ncells empty cells; NULL on ENOMEM. */
sb_run *sb__run_alloc(size_t ncells, const sb_options *opt);

/* results.c: append one invocation's samples of cell i to the run.  Its
 * counters are matched to the run's meta.counter_names by name; a counter
 * the invocation lacks gets NAN. */
int sb__run_add_invocation(sb_run *run, size_t i, const sb__raw_cell *raw);

/* results.c: apply the outlier policy and compute every statistic of
 * every cell from its samples. */
int sb__run_analyse(sb_run *run, sb_error *err);

#endif
