/*
 * cmd_analyze.c: statbench analyze FILE [FILE2]: the statistics of plain
 * files of numbers, one per line; FILE2 is compared with FILE.
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

/* The numbers of an analyze file (cli_read_numbers), or exit 2 with its
 * one-line message. */
static double *read_numbers(const char *path, size_t *n)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    char msg[512];
    double *v = NULL;

    if (!f) {
        say("%s: %s", path, strerror(errno));
        exit(EXIT_USAGE);
    }
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

int cmd_analyze(int argc, char **argv, struct cli *cli)
{
    size_t m = (size_t)(argc - optind), n[2];
    const char *names[2];
    double *v[2];
    const double *cv[2];
    sb_run *run = NULL;
    sb_error err = {0};
    int status;

    if (m < 1 || m > 2)
        die_usage("analyze takes one or two files: %s analyze FILE "
                  "[FILE2]", progname);
    for (size_t i = 0; i < m; i++) {
        names[i] = argv[optind + (int)i];
        v[i] = read_numbers(names[i], &n[i]);
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
