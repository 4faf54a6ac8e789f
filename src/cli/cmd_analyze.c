/*
 * cmd_analyze.c: statbench analyze FILE [FILE2]: the statistics of plain
 * files of numbers, one per line, or of another tool's JSON (Google
 * Benchmark, hyperfine, pyperf: sb_run_import_new); FILE2 is compared
 * with FILE.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_parse.h"

/* The pooled-values check of a file (warn_pooled): ten blocks, from 50
 * values on, a warning below p 0.001 (one false alarm in 1000 files of
 * independent values). */
#define ANALYZE_BLOCKS 10
#define ANALYZE_BLOCK_MIN 50
#define ANALYZE_BLOCK_P 0.001

/* The file at path opened ("-": stdin), or exit 2 naming it. */
static FILE *open_or_die(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

    if (!f) {
        say("%s: %s", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    return f;
}

/* Whether f holds JSON rather than numbers, as --from says, else by its
 * first character that is not blank: '{' starts every file of the tools
 * and of statbench, never a number.  A file that can seek is read from
 * its start again, so that the numbers' line count stays right; a pipe
 * is told by its first byte alone. */
static int is_json(FILE *f, const struct cli *cli)
{
    long start;
    int c;

    if (cli->from != SB_IMPORT_AUTO)
        return cli->from != SB_IMPORT_NUMBERS;
    start = ftell(f);
    c = getc(f);
    while (start >= 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        c = getc(f);
    if (start >= 0 && fseek(f, start, SEEK_SET) == 0)
        return c == '{';
    if (c != EOF)
        ungetc(c, f);
    return c == '{';
}

/* The numbers of an analyze file (cli_read_numbers), or exit 2 with its
 * one-line message. */
static double *read_numbers(FILE *f, const char *path, size_t *n)
{
    char msg[512];
    double *v = NULL;

    if (cli_read_numbers(f, path, &v, n, msg, sizeof msg) != 0)
        die_usage("%s", msg);
    if (f != stdin)
        fclose(f);
    return v;
}

/* One file's values as independent draws: what its interval assumes.
 * Values of several processes or runs one after the other are not (each
 * block shares its process's level), and the interval then covers the
 * truth far less often than it says (36-48% at 95% in simulations of six
 * processes).  In the order measured such blocks, or a drift, show as
 * ten consecutive blocks that differ (sb_stats_blocks_test); shuffled
 * values cannot show it, which README says.  v: the file's values in
 * their order. */
static void warn_pooled(const double *v, size_t n, const char *name)
{
    double h, p;

    /* Too few to tell: said, so that the assumption is not silent. */
    if (n >= 2 && n < ANALYZE_BLOCK_MIN) {
        say("note: %s: %zu values, too few to check that they are "
            "independent draws (%d are needed); the interval takes them "
            "to be: if they come from several processes or runs, give each "
            "one's values as a minimal JSON's invocation_samples",
            name, n, ANALYZE_BLOCK_MIN);
        return;
    }
    if (n < ANALYZE_BLOCK_MIN ||
        sb_stats_blocks_test(v, n, ANALYZE_BLOCKS, &h, &p) != SB_OK ||
        !(p < ANALYZE_BLOCK_P))
        return;
    say("warning: %s: its values differ between stretches of the file "
        "(Kruskal-Wallis over %d consecutive blocks: p %.2g): they are not "
        "independent draws, as from several processes or runs one after "
        "another, or a drift, and the interval, which treats them as "
        "independent, is too narrow; give each process's values as a "
        "minimal JSON's invocation_samples (statbench report FILE.json)",
        name, ANALYZE_BLOCKS, p);
}

/* Two or one runs of JSON files: the second compared with the first, as
 * compare does; the boundaries of processes are the file's (a
 * repetition, a worker), so no block test. */
static int analyze_runs(FILE **f, const char **names, size_t m,
                        struct cli *cli)
{
    sb_run *run[2] = {NULL, NULL};
    sb_error err = {0};
    size_t matched = 0;
    int status;

    for (size_t i = 0; i < m; i++)
        run[i] = cli_load_file_or_die(f[i], names[i], cli, 1);
    if (m == 2) {
        if (sb_run_compare_to(run[1], run[0], &matched, &err) != SB_OK) {
            say("%s", err.text);
            sb_run_free(run[0]);
            sb_run_free(run[1]);
            return err.code == SB_EINVAL ? EXIT_USAGE : 1;
        }
        if (matched == 0) {
            say("%s and %s have no cell in common (the same benchmark or "
                "command name)",
                names[0], names[1]);
            sb_run_free(run[0]);
            sb_run_free(run[1]);
            return EXIT_USAGE;
        }
        cli_warn_two_runs(run[0], names[0], run[1], names[1]);
    }
    cli_record_command(run[m - 1], cli);
    status = cli_emit(run[m - 1], cli);
    sb_run_free(run[0]);
    sb_run_free(run[1]);
    return status;
}

int cmd_analyze(int argc, char **argv, struct cli *cli)
{
    size_t m = (size_t)(argc - optind), n[2];
    const char *names[2];
    double *v[2];
    const double *cv[2];
    FILE *f[2];
    int json[2];
    sb_run *run = NULL;
    sb_error err = {0};
    int status;

    if (m < 1 || m > 2)
        die_usage("analyze takes one or two files: %s analyze FILE "
                  "[FILE2]", progname);
    for (size_t i = 0; i < m; i++) {
        names[i] = argv[optind + (int)i];
        f[i] = open_or_die(names[i]);
        json[i] = is_json(f[i], cli);
    }
    if (m == 2 && json[0] != json[1])
        die_usage("analyze: %s holds %s and %s %s: give two of one kind",
                  names[0], json[0] ? "JSON" : "numbers", names[1],
                  json[1] ? "JSON" : "numbers");
    if (json[0])
        return analyze_runs(f, names, m, cli);
    for (size_t i = 0; i < m; i++) {
        v[i] = read_numbers(f[i], names[i], &n[i]);
        cv[i] = v[i];
    }
    status = sb_run_from_samples_new(names, cv, n, m, &cli->aopt,
                                     cli->mopt.seed, &run, &err);
    for (size_t i = 0; i < m; i++) {
        if (status == SB_OK)
            warn_pooled(v[i], n[i], names[i]);
        free(v[i]); /* the run holds its own copy */
    }
    if (status != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        return EXIT_USAGE;
    }
    if (m == 2) {
        size_t base[2] = {SIZE_MAX, 0};
        if (sb_run_set_baselines(run, base, &err) != SB_OK) {
            fprintf(stderr, "%s: %s\n", progname, err.text);
            sb_run_free(run);
            return 1;
        }
    }
    cli_record_command(run, cli);
    status = cli_emit(run, cli);
    sb_run_free(run);
    return status;
}
