/*
 * options.c: the command line as one table.  Each option is one row:
 * its names, its argument, what it sets, the subcommands that accept it
 * and its help.  getopt_long's array, the check that a subcommand accepts
 * what it was given and --help are all made from the rows, so that the
 * three cannot drift apart (design.md, "Where a new thing goes").
 *
 * This file holds the rows, what each sets and --help; reading the
 * command line against them is options_parse.c's, above it (options.h
 * is what it sees of the table).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_parse.h"
#include "options.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define AT(cli, o, type) ((type *)((char *)(cli) + (o)->field))

/* ---- what an option sets --------------------------------------------- */

void cli_set_string(struct cli *cli, const struct cli_option *o,
                    const char *arg)
{
    *AT(cli, o, const char *) = arg;
}

static void set_flag(struct cli *cli, const struct cli_option *o,
                     const char *arg)
{
    (void)arg;
    *AT(cli, o, int) = (int)o->hi;
}

/* A number in (lo, hi), times scale. */
void cli_set_double(struct cli *cli, const struct cli_option *o,
                    const char *arg)
{
    char msg[256];
    double d;
    if (cli_parse_double(arg, o->lo, o->hi, &d, msg, sizeof msg))
        die_usage("--%s %s%s", o->name, msg, o->unit);
    *AT(cli, o, double) = d * o->scale / o->divisor;
}

/* A percentage in [0, 100); 0 is allowed (--precision 0: no target). */
static void set_percent(struct cli *cli, const struct cli_option *o,
                        const char *arg)
{
    char msg[256];
    double d;
    if (cli_parse_double(arg, -1, 100, &d, msg, sizeof msg) || d < 0)
        die_usage("--%s '%s': must lie in [0, 100) (a percentage%s)",
                  o->name, arg, o->unit);
    *AT(cli, o, double) = d / 100;
}

/* A whole number in [lo, hi]. */
static uint64_t whole(const struct cli_option *o, const char *arg)
{
    uint64_t v;
    char msg[200];
    if (cli_parse_value(arg, CLI_INT, &v, msg, sizeof msg) != 0)
        die_usage("--%s %s", o->name, msg);
    if ((double)v > o->hi)
        die_usage("--%s '%s': must be at most %llu", o->name, arg,
                  (unsigned long long)o->hi);
    if ((double)v < o->lo)
        die_usage("--%s '%s': must be at least %.0f", o->name, arg, o->lo);
    return v;
}

static void set_size_t(struct cli *cli, const struct cli_option *o,
                       const char *arg)
{
    *AT(cli, o, size_t) = (size_t)whole(o, arg);
}

static void set_int(struct cli *cli, const struct cli_option *o,
                    const char *arg)
{
    *AT(cli, o, int) = (int)whole(o, arg);
}

static void set_u64(struct cli *cli, const struct cli_option *o,
                    const char *arg)
{
    uint64_t v;
    char msg[200];
    if (cli_parse_value(arg, CLI_INT, &v, msg, sizeof msg) != 0)
        die_usage("--%s %s", o->name, msg);
    *AT(cli, o, uint64_t) = v;
}

/* measured (-1), auto (0: the refitted model's margin) or a percentage
 * in (0, 100). */
static void set_shared_margin(struct cli *cli, const struct cli_option *o,
                              const char *arg)
{
    char msg[256];
    double d;
    if (!strcmp(arg, "measured")) {
        *AT(cli, o, double) = -1;
        return;
    }
    if (!strcmp(arg, "auto")) {
        *AT(cli, o, double) = 0;
        return;
    }
    if (cli_parse_double(arg, 0, 100, &d, msg, sizeof msg) || !(d > 0))
        die_usage("--%s '%s': use measured, auto or a percentage in "
                  "(0, 100)", o->name, arg);
    *AT(cli, o, double) = d / 100;
}

/* measured (-1) or a ratio in [1, SB_CHAIN_APART_MAX]. */
static void set_chain_apart(struct cli *cli, const struct cli_option *o,
                            const char *arg)
{
    char msg[256];
    double d;
    if (!strcmp(arg, "measured")) {
        *AT(cli, o, double) = -1;
        return;
    }
    /* The parser's bounds are open: 0 lets 1 in, refused below it. */
    if (cli_parse_double(arg, 0, 2 * SB_CHAIN_APART_MAX, &d, msg,
                         sizeof msg) ||
        !(d >= 1 && d <= SB_CHAIN_APART_MAX))
        die_usage("--%s '%s': use measured or a ratio from 1 to %g",
                  o->name, arg, SB_CHAIN_APART_MAX);
    *AT(cli, o, double) = d;
}

/* unknown (-1: from a merged side, else assumed) or a percentage in
 * [0, 100). */
static void set_run_sd(struct cli *cli, const struct cli_option *o,
                       const char *arg)
{
    char msg[256];
    double d;
    if (!strcmp(arg, "unknown")) {
        *AT(cli, o, double) = -1;
        return;
    }
    /* The parser's bounds are open: -1 lets 0 in, refused below it. */
    if (cli_parse_double(arg, -1, 100, &d, msg, sizeof msg) || !(d >= 0))
        die_usage("--%s '%s': use unknown or a percentage in [0, 100)",
                  o->name, arg);
    *AT(cli, o, double) = d / 100;
}

static void set_bootstrap(struct cli *cli, const struct cli_option *o,
                          const char *arg)
{
    set_size_t(cli, o, arg);
    if (cli->aopt.bootstrap != 0 && cli->aopt.bootstrap < 100)
        die_usage("--bootstrap '%s': use 0 (off) or at least 100 "
                  "resamples", arg);
}

/* One of an enum's first hi names (the library's sb_*_parse); the message
 * lists them from the library's sb_*_name.  A name past hi is refused:
 * the field takes only the first hi values (--timer's 0 and 1, the
 * counter or the clock, of a kind list that names aarch64's counter
 * too). */
/* --gbench-time real|cpu: Google Benchmark's real_time or cpu_time. */
static void set_gbench_time(struct cli *cli, const struct cli_option *o,
                            const char *arg)
{
    if (strcmp(arg, "real") && strcmp(arg, "cpu"))
        die_usage("--%s '%s': unknown time (use real or cpu)", o->name,
                  arg);
    cli->gbench_cpu = !strcmp(arg, "cpu");
}

static void set_enum(struct cli *cli, const struct cli_option *o,
                     const char *arg)
{
    int v = o->parse(arg);
    char list[256] = "";
    size_t used = 0;

    if (v >= 0 && v < (int)o->hi) {
        *AT(cli, o, int) = v;
        return;
    }
    for (int i = 0; i < (int)o->hi && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 i == 0 ? "" : i + 1 < (int)o->hi ? ", "
                                                                  : " or ",
                                 o->name_of(i));
    die_usage("--%s '%s': unknown %s(use %s)", o->name, arg, o->unit, list);
}

/* The format of --format.  The ending of an -o file is output.c's. */
static void set_format(struct cli *cli, const struct cli_option *o,
                       const char *arg)
{
    (void)o;
    /* The library's table of writers knows the names. */
    cli->format = sb_format_parse(arg);
    /* A history is written in three of them: the line names those. */
    if (cli->sub == SUB_HISTORY && cli->format != SB_FORMAT_TABLE &&
        cli->format != SB_FORMAT_CSV && cli->format != SB_FORMAT_JSON)
        die_usage("history: --format '%s': %s (use table, csv or json)",
                  arg, cli->format < 0 ? "unknown format"
                                       : "a history is not written so");
    if (cli->format < 0)
        die_usage("--format '%s': unknown format (use table, csv, json, "
                  "markdown, latex, html or compact)", arg);
}

static void set_output(struct cli *cli, const struct cli_option *o,
                       const char *arg)
{
    (void)o;
    if (cli->noutputs == MAX_OUTPUTS)
        die_usage("-o %s: at most 8 output files", arg);
    cli->outputs[cli->noutputs++] = arg;
}

static void set_kernel_from(struct cli *cli, const struct cli_option *o,
                            const char *arg)
{
    (void)o;
    if (cli->nkernel_from == MAX_KERNEL_FROM)
        die_usage("--kernel-from: at most %d kernels", MAX_KERNEL_FROM);
    cli->kernel_from[cli->nkernel_from++] = arg;
}

/* --prepare: once for every command, or once per command in order. */
static void set_prepare(struct cli *cli, const struct cli_option *o,
                        const char *arg)
{
    (void)o;
    if (cli->cmd_nprepare == CLI_MAX_COMMANDS)
        die_usage("--prepare %s: at most %d, one per command", arg,
                  CLI_MAX_COMMANDS);
    cli->cmd_prepare[cli->cmd_nprepare++] = arg;
}

static void set_plot(struct cli *cli, const struct cli_option *o,
                     const char *arg)
{
    const char *dot = strrchr(arg, '.');
    (void)o;
    if (!dot ||
        (strcmp(dot, ".svg") && strcmp(dot, ".pdf") && strcmp(dot, ".png")))
        die_usage("--plot '%s': the file must end in .svg, .pdf or .png",
                  arg);
    cli->plot = arg;
}

static void set_counters(struct cli *cli, const struct cli_option *o,
                         const char *arg)
{
    (void)o;
    if (!strcmp(arg, "list"))
        cli->list_counters = 1; /* after all options are checked */
    else
        cli->mopt.counters = arg;
}

static int list_kernels(void)
{
    printf("%-13s %-7s %-24s %s\n", "kernel", "family", "available",
           "description");
    for (size_t i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL;
        char avail[64];
        if (sb_kernel_available(k, &why))
            snprintf(avail, sizeof avail, "yes");
        else
            snprintf(avail, sizeof avail, "no (%s)", why ? why : "?");
        printf("%-13s %-7s %-24s %s\n", k->name, sb_family_name(k->family),
               avail, k->description);
    }
    return ferror(stdout) ? 1 : 0;
}

int cli_list_counters(void)
{
    char names[SB_MAX_COUNTERS * 2][64], why[SB_MAX_COUNTERS * 2][96];
    size_t n = sb_counters_available(names, why, SB_MAX_COUNTERS * 2);

    if (n > SB_MAX_COUNTERS * 2)
        n = SB_MAX_COUNTERS * 2;
    printf("%-24s %s\n", "counter", "on this machine");
    for (size_t i = 0; i < n; i++)
        printf("%-24s %s\n", names[i], why[i][0] ? why[i] : "available");
    printf("\nAny other PAPI preset or native event name may be given to "
           "--counters;\none this machine lacks is reported missing in the "
           "run's header,\none PAPI does not know by that name is refused."
           "\n");
    return ferror(stdout) ? 1 : 0;
}

/* -l, -h and -V: an answer, then exit. */
static void act(struct cli *cli, const struct cli_option *o, const char *arg)
{
    (void)arg;
    switch (o->shortc) {
    case 'l':
        exit(list_kernels());
    case 'h':
        /* The subcommand, where one was named: main keeps it in argv[1]
         * (anything else there is no subcommand's name). */
        cli_usage(stdout, cli->argc > 1 ? cli->argv[1] : NULL);
        exit(0);
    default:
        printf("statbench %s\n", sb_version());
        exit(0);
    }
}

/* ---- the subcommands, in --help and in each one's own ------------------ */

/* Each subcommand: how it is called (after "statbench NAME") and what it
 * does, its lines '\n' apart; the main help lists them, and NAME --help
 * starts with them before the options NAME takes. */
static const struct {
    const char *name, *args, *what;
    unsigned sub;
} sub_help[] = {
    {"check-env", "[--cpu N]",
     "audit this machine for noise sources,\nwith advice for each finding",
     SUB_CHECK_ENV},
    {"noise", "[--max-time SEC]",
     "measure this machine's timing jitter,\ninterrupt rate and "
     "between-process\nvariation (default 10 s), and the\nsmallest change "
     "a time budget detects",
     SUB_NOISE},
    {"compare", "A.json B.json",
     "compare two saved runs (or two\nfiles of another tool) cell by "
     "cell\n(B against A)", SUB_COMPARE},
    {"report", "RUN.json", "re-render a saved run (--format, -o)",
     SUB_REPORT},
    {"merge", "A.json B.json ... -o ALL.json",
     "several runs of one plan as one, each\nrun a level above its "
     "invocations",
     SUB_MERGE},
    {"profile", "[--reset]",
     "show (or delete) this host's profile:\nthe quiet figures of its "
     "recent runs\nthat a run is judged against",
     SUB_PROFILE},
    {"analyze", "FILE [FILE2]",
     "statistics of plain files of numbers,\none per line, or of Google "
     "Benchmark,\nhyperfine or pyperf JSON; FILE2 is\ncompared with FILE",
     SUB_ANALYZE},
    {"cmd", "'A' 'B' ...",
     "time whole commands in interleaved\nrounds (see Commands)", SUB_CMD},
    {"history", "DIR|FILE...",
     "saved runs of one plan in time order:\neach cell's series, its "
     "change points\n(E-Divisive means) and their size;\nexit 0 when the "
     "newest run starts no\nregression, 1 when it starts one beyond\n"
     "--threshold, 2 on an error (bad input,\nan output not written)",
     SUB_HISTORY},
    {"ab", "OLD.so NEW.so --symbol S",
     "two builds of kernel S in the same\nrounds: NEW/OLD per cell, a "
     "gate's\nverdict; exit 0 same or faster, 1\nslower, 2 error, 3 "
     "undecided",
     SUB_MEASURE},
};
#define NSUB_HELP (sizeof sub_help / sizeof *sub_help)

/* lines, '\n' apart, the first after what is already on the line, the
 * others indented to column indent. */
static void put_lines(FILE *f, const char *lines, int indent)
{
    const char *nl;

    while ((nl = strchr(lines, '\n'))) {
        fprintf(f, "%.*s\n%*s", (int)(nl - lines), lines, indent, "");
        lines = nl + 1;
    }
    fprintf(f, "%s\n", lines);
}

static void sub_list(FILE *f)
{
    fputs("\nSubcommands:\n", f);
    for (size_t i = 0; i < NSUB_HELP; i++) {
        char head[80];
        snprintf(head, sizeof head, "  statbench %s %s", sub_help[i].name,
                 sub_help[i].args);
        if (strlen(head) > 34)
            fprintf(f, "%s\n%36s", head, "");
        else
            fprintf(f, "%-34s  ", head);
        put_lines(f, sub_help[i].what, 36);
    }
}

/* ---- the table, in the order of --help -------------------------------- */

/* Who accepts what: the measuring options are the measurement's; noise
 * and check-env take a few of them; the statistics and output options
 * are everybody's. */
#define M SUB_MEASURE
#define NZ SUB_NOISE
#define ENV SUB_CHECK_ENV
#define ALL SUB_ALL
/* Not a subcommand (options.h): an option of how a run is analysed. */
#define ANALYSIS CLI_ANALYSIS
#define PROF SUB_PROFILE
#define CMD SUB_CMD
#define HIST SUB_HISTORY
/* The outputs of a run (formats, files, figures): noise and check-env
 * print a report of their own, in text, and refuse them rather than
 * ignore them. */
#define RUN_OUT (ALL & ~(SUB_NOISE | SUB_CHECK_ENV))
/* The subcommands that read files of runs or samples. */
#define READ (SUB_ANALYZE | SUB_REPORT | SUB_COMPARE | SUB_MERGE)

#define TEXT(t) {.help = t}
#define STRING(n, s, a, subs, f, h)                                         \
    {n, s, a, subs, cli_set_string, FIELD(f), .help = h}
#define FLAG(n, s, subs, f, v, h)                                           \
    {n, s, NULL, subs, set_flag, FIELD(f), .hi = v, .help = h}
#define NUMBER(n, a, subs, f, l, u, k, d, unit_, h)                         \
    {n, 0, a, subs, cli_set_double, FIELD(f), l, u, k, d, unit_, .help = h}
#define WHOLE(n, a, subs, fn, f, l, u, h)                                   \
    {n, 0, a, subs, fn, FIELD(f), l, u, .help = h}
#define ENUM(n, a, subs, f, count, what, pair, h)                           \
    {n, 0, a, subs, set_enum, FIELD(f), .hi = count, .unit = what,          \
     .name_of = sb_##pair##_name, .parse = sb_##pair##_parse, .help = h}
#define SPECIAL(n, s, a, subs, fn, h) {n, s, a, subs, fn, .help = h}

const struct cli_option cli_options[] = {
    TEXT("Usage: statbench [OPTION]...\n"
         "Measure memory kernels with " TIMER_WORDS " and report each "
         "cell's\n"
         "median throughput with a distribution-free confidence interval.\n"
         "\n"
         "  statbench --kernel " DEFAULT_KERNEL " --align 0..32 --ci 95\n"
         "\n"
         "What to measure:\n"),
    STRING("kernel", 'k', "LIST", M, kernels,
           "kernels, comma-separated, or 'all' (default " DEFAULT_KERNEL ");\n"
           "see --list"),
    STRING("family", 0, "LIST", M, families,
           "every available kernel of these families: copy,\n"
           "clear, alloc, syscall"),
    SPECIAL("kernel-from", 0, "SPEC", M, set_kernel_from,
            "a kernel from a shared object, SPEC\n"
            "PATH:SYMBOL[=NAME][:clear]: the function SYMBOL\n"
            "of the sb_kernel_fn shape, measured as NAME\n"
            "(default SYMBOL), a copy unless :clear ends SPEC;\n"
            "PATH must contain a '/'; SYMBOL_init and\n"
            "SYMBOL_fini, when exported, are its setup and\n"
            "teardown; each file in a namespace of its own\n"
            "(dlmopen), so two builds of one library load side\n"
            "by side; checked byte for byte before measuring;\n"
            "may be given up to 32 times"),
    STRING("size", 's', "LIST", M, sizes,
           "bytes per call (default " STR(DEFAULT_SIZE) ": the size of the\n"
           "threads' cptimer runs; source and destination\n"
           "together fit in the L1 data cache, so a hot-cache\n"
           "sweep measures the copy itself, not DRAM; alloc\n"
           "kernels default to 16M, the threads' mmap size)"),
    STRING("align", 'a', "LIST", M, aligns,
           "source offset from a page boundary, 0..4095\n"
           "(default 0); the destination stays page-aligned"),
    STRING("dst-align", 0, "LIST", M, dst_aligns,
           "destination offset from a page boundary (default 0);\n"
           "with several source and destination offsets the\n"
           "table is a matrix per kernel and size"),
    ENUM("cache", "hot|cold", M, mopt.cache, 2, "cache state ", cache,
         "hot: buffers in the cache (an untimed call before\n"
         "each sample); cold: every line of both buffers\n"
         "flushed (clflush) before each timed call\n"
         "(default hot)"),
    TEXT("  LIST is comma-separated values and ranges: 0..32, 0..64:8, "
         "512..16M:*2.\n"
         "  Sizes take K, M, G suffixes (K = 1024).\n"
         "\n"
         "How to measure:\n"),
    NUMBER("ci", "LEVEL", ALL | CMD | HIST | ANALYSIS, aopt.ci_level, 0, 100,
           1, 100, " (a percentage)",
           "confidence level in percent, in (0, 100) (default 95)"),
    /* Also an analysis option: report, compare and analyze re-apply it
     * to saved samples; noise and check-env have no target. */
    {"precision", 0, "PCT", M | SUB_REPORT | SUB_COMPARE | SUB_ANALYZE |
     SUB_MERGE | ANALYSIS, set_percent, FIELD(aopt.precision),
     .unit = "; 0: no target",
     .help = "stop when every cell's CI half-width is within PCT\n"
             "percent of its median (default 1); 0: no target,\n"
             "measure until --max-time, --max-samples or a stop\n"
             "(exactly --invocations invocations)"},
    NUMBER("max-time", "SEC", M | NZ | CMD, mopt.max_time, 0, 1e7, 1, 1,
           " (seconds)",
           "time budget of the whole run, setup and warm-up\n"
           "included (default 30); a plan that cannot fit is\n"
           "refused with the time it needs (cmd: stops after\n"
           "the last whole round that fits)"),
    WHOLE("min-samples", "N", M, set_size_t, mopt.min_samples, 0, 100000000,
          "samples per cell before the stop rule (default 100)"),
    WHOLE("max-samples", "N", M, set_size_t, mopt.max_samples, 0, 100000000,
          "samples per cell at most (default 10000)"),
    NUMBER("sample-us", "US", M, mopt.sample_seconds, 0, 1e6, 1e-6, 1,
           " (microseconds)",
           "target length of one sample in microseconds\n"
           "(default 50)"),
    {"seed", 0, "N", ALL | CMD | HIST, set_u64, FIELD(mopt.seed),
     .help = "seed of the random cell order (default 1);\n"
             "history: of the permutations and the bootstrap"},
    WHOLE("cpu", "N", M | NZ | ENV, set_int, mopt.cpu, 0, 1u << 20,
          "CPU to pin to (default: the last allowed CPU)"),
    FLAG("no-pin", 0, M | NZ, mopt.no_pin, 1, "do not pin"),
    ENUM("timer", "tsc|clock", M | NZ, mopt.force_clock_timer, 2, "timer ",
         timer, "timer (default tsc where invariant, else clock)"),
    SPECIAL("counters", 0, "LIST", M | NZ, set_counters,
            "counters read around every sample: PAPI preset or\n"
            "native names and perf::CONTEXT-SWITCHES,\n"
            "perf::CPU-MIGRATIONS, perf::PAGE-FAULTS; 'list'\n"
            "shows what this machine offers (default: cycles,\n"
            "instructions, L1/L2 data-cache and data-TLB misses\n"
            "where the hardware has them, and the three\n"
            "software events)"),
    ENUM("reject", "POLICY", M | NZ, mopt.reject, 2, "policy ", reject_policy,
         "disturbed (default: reject samples with a context\n"
         "switch, CPU migration, interrupt on the pinned CPU,\n"
         "a wait for the CPU or a shared core) or none (keep\n"
         "them; still counted); a sample with a failed kernel\n"
         "call is rejected under both"),
    FLAG("rt", 0, M | NZ, mopt.rt, 1,
         "SCHED_FIFO while measuring (needs the privilege;\n"
         "without it a note, and the run goes on)"),
    FLAG("no-mlock", 0, M | NZ, mopt.mlock, 0,
         "do not lock the buffers in memory (mlockall)"),
    WHOLE("invocations", "N", M | NZ, set_size_t, mopt.invocations, 1, 1000,
          "fresh processes measuring the whole plan, each\n"
          "with MAX-TIME / N (default 6: the interval then\n"
          "holds the variation between processes)"),
    WHOLE("max-invocations", "M", M, set_size_t, mopt.max_invocations, 0,
          1000,
          "more invocations while time remains and a\n"
          "cell misses the precision target (default 100;\n"
          "at or below --invocations: none beyond them)"),
    TEXT("\n"
         "Commands (statbench cmd 'COMMAND'...: whole commands timed in "
         "interleaved\n"
         "rounds, each command once a round in a fresh random order):\n"),
    WHOLE("runs", "N", CMD, set_size_t, cmd_runs, 2, 1000000,
          "rounds (default 20; --max-time may stop sooner,\n"
          "after a whole round, never before 2)"),
    WHOLE("warmup", "N", CMD, set_size_t, cmd_warmup, 0, 1000000,
          "untimed runs of each command first (default 0)"),
    SPECIAL("prepare", 0, "CMD", CMD, set_prepare,
            "run CMD, untimed, before every run of a command\n"
            "(warm-up too): given once, for every command;\n"
            "given once per command, the i-th for the i-th"),
    STRING("shell", 0, "SHELL", CMD, cmd_shell,
           "run each command as SHELL -c COMMAND (default\n"
           "/bin/sh; SHELL is split into words as with -N)"),
    FLAG("no-shell", 'N', CMD, cmd_no_shell, 1,
         "run each command without a shell, split into words\n"
         "at blanks ('...' and \"...\" quote, \\ escapes); an\n"
         "unquoted | & ; < > ( ) $ ` * ? [ ~ # is refused"),
    FLAG("show-output", 0, CMD, cmd_show_output, 1,
         "pass the commands' stdout and stderr through\n"
         "(default /dev/null; stdin is always /dev/null)"),
    FLAG("ignore-failure", 'i', CMD, cmd_ignore_failure, 1,
         "a run or prepare that exits non-zero or is killed\n"
         "is counted and kept, not an error"),
    TEXT("\n"
         "Statistics:\n"),
    ENUM("outliers", "POLICY", ALL | ANALYSIS, aopt.outliers, 3, "policy ",
         outlier_policy,
         "keep, reject-severe (beyond 3 IQR) or reject-all\n"
         "(beyond 1.5 IQR) Tukey outliers (default keep)"),
    {"shared-margin", 0, "M", ALL | ANALYSIS, set_shared_margin,
     FIELD(aopt.shared_margin), .unit = "",
     .help = "decide the shared core again from the samples'\n"
             "recorded contention probes: auto (each invocation's\n"
             "quiet level and margin refitted), PCT (the refitted\n"
             "level, this margin) or measured (default: as the\n"
             "run decided while measuring)"},
    ENUM("shared-level", "L", ALL | ANALYSIS, aopt.shared_level, 2,
         "level ", shared_level,
         "the quiet level --shared-margin judges against:\n"
         "invocation (each its own, the default) or run (the\n"
         "lowest level another invocation confirms, for the\n"
         "invocations whose own lies above it)"),
    {"chain-apart", 0, "R", ALL | ANALYSIS, set_chain_apart,
     FIELD(aopt.chain_apart), .unit = "",
     .help = "decide every sample's core clock again from its two\n"
             "recorded clock chains: R, the ratio beyond which\n"
             "two chains are one clock and one disturbance (the\n"
             "faster is the clock; else their mean), or measured\n"
             "(default: as measured, with the ratio 1.5)"},
    WHOLE("bootstrap", "N", ALL | ANALYSIS, set_bootstrap, aopt.bootstrap, 0,
          1000000,
          "median CI of a single invocation by BCa bootstrap\n"
          "with N resamples (default 0: order statistics)"),
    STRING("baseline", 0, "B", M | CMD, baseline,
           "compare every row with a baseline: a kernel name\n"
           "(the same cell of that kernel) or align=N (the\n"
           "same kernel at source offset N); cmd: a command\n"
           "as given, or its number from 1 (default 1)"),
    ENUM("metric", "M", ALL | ANALYSIS, aopt.metric, 3, "metric ", metric,
         "what the stop rule, intervals and precision use:\n"
         "cycles (core cycles: ticks times the core clock\n"
         "measured around each sample), time, or auto\n"
         "(default: cycles for hot copy/clear cells within\n"
         "the L2 cache when the clock is known, else time)"),
    {"run-sd", 0, "PCT", ALL | ANALYSIS, set_run_sd, FIELD(aopt.run_sd),
     .unit = "",
     .help = "run-to-run sd of this host, for comparing two\n"
             "separate runs when one is a single run (compare,\n"
             "--against): PCT, or unknown (default: from a side\n"
             "merged from several runs, else 3% assumed)"},
    {"threshold", 0, "PCT", ALL | CMD | HIST | ANALYSIS, set_percent,
     FIELD(aopt.threshold), .unit = "",
     .help = "practical threshold of verdicts (default 1);\n"
             "history: a change slower beyond it is a regression"},
    NUMBER("alpha", "A", ALL | CMD | HIST | ANALYSIS, aopt.alpha, 0, 1, 1, 1,
           "",
           "significance level of verdicts (default 0.05);\n"
           "history: a change point is kept while its\n"
           "permutation p is at most A"),
    TEXT("\n"
         "Change points (statbench history: E-Divisive means, Matteson and "
         "James\n"
         "2014, as Daly et al. use it on performance series):\n"),
    NUMBER("cp-exponent", "E", HIST, cp_exponent, 0, 2, 1, 1, "",
           "the energy statistic's exponent (Matteson and\n"
           "James's alpha), in (0, 2) (default 1)"),
    WHOLE("cp-permutations", "R", HIST, set_size_t, cp_permutations, 1,
          100000,
          "permutations of the test of each change point\n"
          "(default 199: p resolves to 0.005)"),
    WHOLE("cp-min-size", "N", HIST, set_size_t, cp_min_size, 2, 100000,
          "fewest runs on either side of a change point\n"
          "(default 5: a run's bad day is not a segment)"),
    /* The subcommands' list, from sub_help below. */
    {.name = NULL, .help = NULL},
    TEXT("\n"
         "Files read (analyze, report, compare, merge):\n"),
    ENUM("from", "FORMAT", READ, from, 6, "format ", import_format,
         "the files' format: auto (default: told from the\n"
         "content), statbench, numbers (analyze), gbench\n"
         "(Google Benchmark JSON), hyperfine or pyperf"),
    SPECIAL("gbench-time", 0, "TIME", READ, set_gbench_time,
            "Google Benchmark's time read: real (real_time, the\n"
            "default) or cpu (cpu_time)"),
    TEXT("\n"
         "Output:\n"),
    {"format", 'f', "FMT", RUN_OUT | CMD | HIST, set_format,
     .help = "table, csv, json, markdown, latex, html (one page:\n"
             "tables, SVG figures, no script) or compact (a line\n"
             "per cell, for a gate's log) (default table)",
     .help_subs = HIST,
     .sub_help = "table, csv or json (default table)"},
    {"output", 'o', "FILE", RUN_OUT | CMD | HIST, set_output,
     .help = "write to FILE, in the format its ending names (.json,\n"
             ".csv, .tex, .md, .html, .txt) or else FMT; may be\n"
             "given up to 8 times; the table still goes to stdout",
     .help_subs = HIST,
     .sub_help = "write to FILE, in the format its ending names (.json,\n"
                 ".csv, .txt) or else FMT; may be given up to 8\n"
                 "times; the table still goes to stdout"},
    FLAG("quiet", 'q', ALL | CMD, quiet, 1, "no progress line on stderr"),
    SPECIAL("plot", 0, "FILE", RUN_OUT | HIST, set_plot,
            "a figure with gnuplot: FILE.svg, .pdf or .png (the\n"
            ".gp script and .dat data are written beside it)"),
    ENUM("plot-kind", "KIND", RUN_OUT, plot_kind, 5, "", plot_kind,
         "auto, sweep, matrix, sizes or distribution\n"
         "(default auto: from the run's shape)"),
    STRING("symbol", 0, "SYMBOL", M, ab_symbol,
           "statbench ab OLD.so NEW.so: the kernel function both\n"
           "export (SYMBOL:clear for a clear kernel)"),
    STRING("save", 0, "NAME", M, save,
           "keep the run as baseline NAME (JSON under\n"
           "$STATBENCH_BASELINES or ~/.local/share/statbench)"),
    FLAG("append", 0, M, save_append, 1,
         "--save adds this run to baseline NAME (merged with\n"
         "its runs) instead of replacing it: a baseline of\n"
         "several runs holds the host's run-to-run spread"),
    STRING("against", 0, "NAME", M, against,
           "compare every cell with baseline NAME; exit status\n"
           "1 when a cell is slower with significance and by\n"
           "more than --threshold, or cannot be compared (a\n"
           "CI gate)"),
    FLAG("no-profile", 0, M, no_profile, 1,
         "neither read nor update this host's profile (see\n"
         "statbench profile): the run is not judged against\n"
         "the quiet figures of the runs before it"),
    FLAG("reset", 0, PROF, profile_reset, 1,
         "profile: delete this host's profiles (one per contention probe)"),
    ENUM("inconclusive", "POLICY", M, aopt.inconclusive, 3, "policy ",
         inconclusive_policy,
         "what --against does with a cell whose interval\n"
         "reaches past --threshold without significance:\n"
         "fail (default), warn or pass"),
    SPECIAL("list", 'l', NULL, ALL, act,
            "list the kernels and whether this CPU runs them"),
    SPECIAL("help", 'h', NULL, ALL | PROF | CMD | HIST, act, "this help"),
    SPECIAL("version", 'V', NULL, ALL | PROF | CMD | HIST, act, "version"),
    TEXT("\n"
         "Throughput is in MB/s with 1 MB = 10^6 bytes.  Exit status: 0 "
         "success,\n"
         "1 failure (a cell without a valid sample, an invocation that died, "
         "or,\n"
         "with --against, a cell slower than its baseline), 2 bad input or a "
         "plan\n"
         "that cannot fit in --max-time, 3 with --against or ab a cell "
         "undecided,\n"
         "130/143 interrupted (partial results written).\n"),
};

#define NOPTIONS (sizeof cli_options / sizeof *cli_options)
const size_t cli_noptions = NOPTIONS;
_Static_assert(NOPTIONS <= CLI_MAX_OPTIONS,
               "more rows than CLI_MAX_OPTIONS (options.h): raise it");

/* Each row as --help shows it: "  -k, --kernel LIST", the help beside it
 * from column 25, its further lines indented as far. */
static void option_row(FILE *f, const struct cli_option *o, unsigned sub)
{
    const char *help =
        o->sub_help && (o->help_subs & sub) ? o->sub_help : o->help;
    char head[64];

    snprintf(head, sizeof head, "  %c%c%s--%s%s%s", o->shortc ? '-' : ' ',
             o->shortc ? o->shortc : ' ', o->shortc ? ", " : "  ", o->name,
             o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(f, "%-23s  ", head);
    put_lines(f, help, 25);
}

void cli_usage(FILE *f, const char *sub)
{
    for (size_t k = 0; sub && k < NSUB_HELP; k++) {
        if (strcmp(sub, sub_help[k].name))
            continue;
        /* A subcommand's own: how it is called, what it does, and only
         * the options it takes. */
        fprintf(f, "Usage: statbench %s %s [OPTION]...\n", sub_help[k].name,
                sub_help[k].args);
        fputs("  ", f);
        put_lines(f, sub_help[k].what, 2);
        fputs("\nOptions:\n", f);
        for (size_t i = 0; i < NOPTIONS; i++)
            if (cli_options[i].name &&
                (cli_options[i].subs & sub_help[k].sub))
                option_row(f, &cli_options[i], sub_help[k].sub);
        fputs("\nThe whole list: statbench --help; the manual: man "
              "statbench.\n",
              f);
        return;
    }
    for (size_t i = 0; i < NOPTIONS; i++) {
        const struct cli_option *o = &cli_options[i];
        if (o->name)
            option_row(f, o, 0);
        else if (o->help)
            fputs(o->help, f);
        else
            sub_list(f);
    }
}
