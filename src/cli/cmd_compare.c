/*
 * cmd_compare.c: statbench compare A.json B.json compares two saved runs
 * (or two files of another tool: Google Benchmark, hyperfine, pyperf)
 * cell by cell (B against A), with the library's matcher.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

#include "cli.h"

int cmd_compare(int argc, char **argv, struct cli *cli)
{
    sb_run *a, *b;
    sb_error err = {0};
    size_t matched = 0;
    int status;

    if (argc - optind != 2)
        die_usage("compare takes two saved runs: %s compare A.json B.json",
                  progname);
    a = cli_load_or_die(argv[optind], cli, 1);
    b = cli_load_or_die(argv[optind + 1], cli, 1);
    if (sb_run_compare_to(b, a, &matched, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_run_free(a);
        sb_run_free(b);
        return err.code == SB_EINVAL ? EXIT_USAGE : 1;
    }
    if (matched == 0) {
        say("%s and %s have no cell in common (same kernel, size and "
            "offsets)", argv[optind], argv[optind + 1]);
        sb_run_free(a);
        sb_run_free(b);
        return EXIT_USAGE;
    }
    cli_warn_two_runs(a, argv[optind], b, argv[optind + 1]);
    status = cli_emit(b, cli);
    sb_run_free(a);
    sb_run_free(b);
    return status;
}
