/*
 * cmd_compare.c: statbench compare A.json B.json compares two saved runs
 * cell by cell (B against A), with the library's matcher.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

#include "cli.h"

void cli_warn_two_runs(const sb_run *a, const char *name_a, const sb_run *b,
                       const char *name_b)
{
    double ga, gb;
    const sb_meta *ma = sb_run_meta(a), *mb = sb_run_meta(b);

    /* One run given twice (a file and its copy): every ratio is 1 by
     * construction, which says nothing of a change. */
    if (ma && mb && ma->start_time[0] &&
        !strcmp(ma->start_time, mb->start_time) &&
        !strcmp(ma->hostname, mb->hostname))
        say("warning: %s and %s are the same run (host '%s', started %s): "
            "their ratios are 1 by construction",
            name_a, name_b, ma->hostname, ma->start_time);
    if (sb_run_clocks_differ(a, b, &ga, &gb))
        say("warning: the runs ran at different core clocks: %s at %.3f "
            "GHz, %s at %.3f GHz (%+.1f%%); cells judged in core cycles in "
            "both are compared in cycles, the others in time, which moves "
            "with the clock",
            name_a, ga, name_b, gb, 100 * (gb / ga - 1));
    if (sb_run_contention_differ(a, b, &ga, &gb))
        say("warning: %s was measured on a shared core: its contention "
            "probe's quiet level is %.1f core cycles per repetition, %s's "
            "%.1f (%+.0f%%); the louder run's figures are the shared "
            "core's, not the core's: rerun it",
            ga > gb ? name_a : name_b, fmax(ga, gb),
            ga > gb ? name_b : name_a, fmin(ga, gb),
            100 * (fmax(ga, gb) / fmin(ga, gb) - 1));
}

int cmd_compare(int argc, char **argv, struct cli *cli)
{
    sb_run *a, *b;
    sb_error err = {0};
    size_t matched = 0;
    int status;

    if (argc - optind != 2)
        die_usage("compare takes two saved runs: %s compare A.json B.json",
                  progname);
    a = cli_load_or_die(argv[optind], cli);
    b = cli_load_or_die(argv[optind + 1], cli);
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
