/*
 * cli.h: what the parts of the statbench command share: the parsed
 * command line, the subcommands, the one-line messages and the writing of
 * outputs (design.md, "Who owns what": src/cli/).
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdio.h>

#include "statbench.h"

#define DEFAULT_SIZE 10240
/* The kernel of a run without --kernel, and the timer --help's first
 * lines name: configure's, by the architecture it builds for (rep movsl
 * and the TSC on x86-64; duff and the clock in the portable build). */
#define DEFAULT_KERNEL SB_DEFAULT_KERNEL
#define TIMER_WORDS SB_TIMER_WORDS
#define DEFAULT_ALLOC_SIZE (16u << 20)
#define MAX_OUTPUTS 8
#define MAX_KERNEL_FROM 32
#define EXIT_USAGE 2
/* A gate (ab, --against) could not decide: neither the same or faster
 * nor slower beyond the threshold (SB_GATE_UNDECIDED). */
#define EXIT_UNDECIDED 3

/* The subcommands, as bits: each option of the table names those that
 * accept it. */
enum {
    SUB_MEASURE = 1u << 0,
    SUB_COMPARE = 1u << 1,
    SUB_REPORT = 1u << 2,
    SUB_ANALYZE = 1u << 3,
    SUB_CHECK_ENV = 1u << 4,
    SUB_NOISE = 1u << 5,
    SUB_MERGE = 1u << 6,
    SUB_ALL = (1u << 7) - 1,
    /* Outside SUB_ALL: profile takes only its own options and --help. */
    SUB_PROFILE = 1u << 7,
    /* Outside SUB_ALL: cmd takes its own options and a few of the
     * statistics and outputs. */
    SUB_CMD = 1u << 8,
    /* Outside SUB_ALL (bit 9 is options.h's CLI_ANALYSIS): history takes
     * its change points' options, a few statistics and outputs. */
    SUB_HISTORY = 1u << 10
};

/* statbench cmd: most commands, and --prepare given at most once per
 * command. */
#define CLI_MAX_COMMANDS SB_MAX_COMMANDS

struct cli_option;

/* Everything the command line says. */
struct cli {
    const char *kernels, *sizes, *aligns, *dst_aligns, *baseline;
    const char *outputs[MAX_OUTPUTS];
    int noutputs;
    const char *families, *save, *against, *plot;
    /* --kernel-from PATH:SYMBOL[=NAME][:clear], as given, in order. */
    const char *kernel_from[MAX_KERNEL_FROM];
    int nkernel_from;
    const char *ab_symbol; /* statbench ab --symbol */
    int ab;                /* the measurement is statbench ab's */
    int plot_kind;
    int kernel_given, max_time_given;
    /* The analysis options given (--ci, --outliers, ...), each once with
     * its last argument: report and compare apply them on top of a saved
     * run's own (cli_analysis_over). */
    const struct cli_option *analysis[16];
    const char *analysis_arg[16];
    size_t nanalysis;
    int list_counters;
    int format, quiet;
    int no_profile, profile_reset; /* --no-profile; profile --reset */
    int save_append;                 /* --append: --save adds a run */
    int from;        /* --from: an sb_import_format, auto by default */
    int gbench_cpu;  /* --gbench-time cpu */
    unsigned sub;                    /* SUB_* of this command */
    const struct cli_option *refused; /* the first option sub refuses */
    int argc;             /* the command line as typed, for the record */
    char **argv;
    /* statbench cmd (cmd_cmd.c) */
    size_t cmd_runs, cmd_warmup;
    const char *cmd_prepare[CLI_MAX_COMMANDS];
    size_t cmd_nprepare;
    const char *cmd_shell;
    int cmd_no_shell, cmd_show_output, cmd_ignore_failure;
    /* statbench history (cmd_history.c): 0 when not given, the
     * library's default then */
    double cp_exponent;
    size_t cp_permutations, cp_min_size;
    sb_measure_options mopt;  /* what is measured */
    sb_analysis_options aopt; /* how it is analysed */
};

/* messages.c: what the command says (every other file calls these; they
 * call none of them). */
extern const char *progname;

/* One line naming the bad value on stderr, then exit 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void die_usage(const char *fmt, ...);

/* One message line on stderr, "statbench: ...". */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void say(const char *fmt, ...);
/* Each line of text (lines ending in '\n', as sb_run_merge_new writes
 * its warnings) said on its own, after prefix; text is cut up in place. */
void say_lines(const char *prefix, char *text);

/* process.c: the process's own set-up.  The stop signals: SIGINT,
 * SIGTERM and SIGHUP request a stop (sb_run_request_stop), a second one
 * ends the process.  cli_share_signals puts the record of the first into
 * shared memory, so that one a forked invocation got reaches the
 * parent's exit status; cli_own_signal is the one this process got,
 * cli_stop_signal that or else the one an invocation got (0: none), and
 * cli_signal_status the exit status of a stop by sig (128 + its number;
 * 130 for 0). */
void cli_catch_signals(void);
void cli_share_signals(void);
int cli_own_signal(void);
int cli_stop_signal(void);
int cli_signal_status(int sig);
/* Raise a soft stack limit below the 1 MiB a measurement needs, as far
 * as the hard limit lets (the main thread's stack grows to the limit in
 * force when it grows; forked invocations inherit it).  refuse: a hard
 * limit below it exits 2 with one line, rather than a SIGSEGV later. */
void cli_ensure_stack(int refuse);

/* store.c: what outlives a run.  The directory of the host profiles into
 * buf: $STATBENCH_STATE, else $XDG_STATE_HOME/statbench (an absolute
 * one), else $HOME/.local/state/statbench.  0; 1 when the profile is off
 * ($STATBENCH_NO_PROFILE set and not empty); -1 with why (none of them
 * set, a path too long: never shortened). */
int cli_profile_dir(char *buf, size_t len, char *why, size_t wlen);
/* Saved baseline name read for option opt (--against, --append), or NULL
 * when missing_ok and there is none; a bad name, a hostile or missing
 * file exits 2, before anything is measured. */
sb_run *cli_load_saved(const char *name, const char *opt, int missing_ok);
/* --against's saved run (NULL without it), and --save's name and path
 * checked, both before anything is measured. */
sb_run *cli_load_against(const struct cli *cli);
/* base (a saved run --against or --append uses) decided again from its
 * record as this run is (--chain-apart, --shared-margin, --shared-level
 * given); one that cannot be exits 2 naming opt and name. */
void cli_decide_like_run(const struct cli *cli, sb_run *base,
                         const char *opt, const char *name);
/* --save: run kept as a baseline unless empty cells have no sample; with
 * --append, merged into the baseline as it is at the save (prior: as it
 * was read before measuring).  The exit status, from status. */
int cli_save_baseline(const sb_run *run, const sb_run *prior,
                      const struct cli *cli, size_t empty, int status);

/* options_parse.c: the command line read against the option table
 * (options.c). */
void cli_parse_options(int argc, char **argv, struct cli *cli);
void cli_check_subcommand(const struct cli *cli, const char *sub);
void cli_analysis_over(const struct cli *cli, sb_analysis_options *a);
/* options.c: the option table; --help: the whole list; with sub, a
 * subcommand's name, its own usage and only the options it takes (the whole list for a name it does not
 * know). */
void cli_usage(FILE *f, const char *sub);
int cli_list_counters(void);

/* output.c: the outputs of a run. */
int cli_write_file(const sb_run *run, int format, const char *path);
/* The same for a history of runs (table, csv or json). */
int cli_write_history(const sb_history *h, int format, const char *path);
int cli_emit(const sb_run *run, const struct cli *cli);
/* The run of the file at path ("-": stdin), of the format --from names
 * (auto: the content's kind, sb_run_import_new), or exit 2 with its
 * line; with reanalyse, again with the analysis options given over its
 * own.  cli NULL: a statbench run, as saved.  cli_load_file_or_die reads an open f (closed unless stdin). */
sb_run *cli_load_or_die(const char *path, const struct cli *cli,
                        int reanalyse);
sb_run *cli_load_file_or_die(FILE *f, const char *path,
                             const struct cli *cli, int reanalyse);
void cli_record_command(sb_run *run, const struct cli *cli);
void cli_check_cpu(const struct cli *cli);

/* The subcommands: argv[optind..argc-1] are their operands. */
int cmd_measure(int argc, char **argv, struct cli *cli);
/* statbench ab OLD.so NEW.so --symbol S (cmd_ab.c): a measurement of
 * both, judged by cli_ab_gate into the exit status (0 the same or
 * faster, 1 slower beyond the threshold or not compared, EXIT_UNDECIDED
 * undecided; status when it is already non-zero). */
int cmd_ab(int argc, char **argv, struct cli *cli);

/* cli_gate.c: the one gate of --against and ab.  What differs between
 * them is words: */
struct cli_gate {
    const char *kernel;  /* only this kernel's cells are judged; NULL:
                            every cell with a comparison */
    const char *label;   /* a cell's line names "LABEL, SIZE B (S/D)";
                            NULL: "KERNEL SIZE (S/D)" */
    const char *from;    /* where the baseline came from (the lines) */
    const char *prefix;  /* before each summary line ("ab: "), or NULL */
    const char *subject; /* what is judged ("new", "this run") */
    const char *versus;  /* against what ("old", "baseline 'x'") */
    const char *advice;  /* what would decide an undecided cell */
};
/* Each compared cell of run judged and counted in t (sb_gate_tally_add),
 * its line said unless it passed under quiet. */
void cli_gate_cells(const sb_run *run, const struct cli_gate *g, int quiet,
                    sb_gate_tally *t);
/* The gate's exit status from t: status itself when it is already
 * non-zero (an earlier failure keeps its own words); else a line per
 * cause (no cell judged, not comparable, slower, undecided) and
 * cli_gate_exit of sb_gate_tally_outcome. */
int cli_gate_status(const sb_gate_tally *t, const struct cli_gate *g,
                    int status);
/* A gate's outcome as an exit status: PASS and WARN 0, UNDECIDED
 * EXIT_UNDECIDED, FAIL (and anything else) 1. */
int cli_gate_exit(int outcome);
/* ab's gate: new's cells against old's, into the exit status (see
 * cmd_ab). */
int cli_ab_gate(const sb_run *run, const struct cli *cli, int status);
/* The warnings on two runs compared (compare, --against): one run given
 * twice, different core clocks, one of them on a shared core, each
 * naming the runs name_a and name_b. */
void cli_warn_two_runs(const sb_run *a, const char *name_a, const sb_run *b,
                       const char *name_b);
int cmd_compare(int argc, char **argv, struct cli *cli);
int cmd_report(int argc, char **argv, struct cli *cli);
int cmd_merge(int argc, char **argv, struct cli *cli);
int cmd_analyze(int argc, char **argv, struct cli *cli);
int cmd_check_env(int argc, char **argv, struct cli *cli);
int cmd_noise(int argc, char **argv, struct cli *cli);
int cmd_profile(int argc, char **argv, struct cli *cli);
int cmd_cmd(int argc, char **argv, struct cli *cli);
int cmd_history(int argc, char **argv, struct cli *cli);


#endif
