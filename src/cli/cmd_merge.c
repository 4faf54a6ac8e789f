/*
 * cmd_merge.c: statbench merge A.json B.json ... -o ALL.json: several
 * saved runs of one plan as one run, each run a level above its
 * invocations (sb_run_merge_new).  What differs between the runs is said one
 * line each: the library refuses what cannot be one measurement, and
 * names the rest.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_merge(int argc, char **argv, struct cli *cli)
{
    size_t n = argc > optind ? (size_t)(argc - optind) : 0;
    sb_run **runs, *all = NULL;
    sb_error err = {0};
    char warnings[4096];
    int status;

    if (n < 2)
        die_usage("merge takes two or more saved runs: %s merge A.json "
                  "B.json ... -o ALL.json",
                  progname);
    runs = calloc(n, sizeof *runs);
    if (!runs) {
        say("out of memory");
        return 1;
    }
    /* As saved: a merge keeps each run's samples as its own analysis
     * kept them; the analysis options given apply to the merged run. */
    for (size_t r = 0; r < n; r++)
        runs[r] = cli_load_or_die(argv[optind + r], cli, 0);
    status = sb_run_merge_new((const sb_run *const *)runs, n, &all, warnings,
                              sizeof warnings, &err);
    if (status == SB_OK && cli->nanalysis) {
        /* Over the merged run's own options, as report does: an option
         * not given keeps the saved value. */
        sb_analysis_options a;
        a = *sb_run_analysis_options(all);
        cli_analysis_over(cli, &a);
        status = sb_run_reanalyse(all, &a, &err);
    }
    if (status != SB_OK) {
        /* The library's messages name the merge already. */
        say("%s%s", strncmp(err.text, "merge: ", 7) ? "merge: " : "",
            err.text);
        for (size_t r = 0; r < n; r++)
            sb_run_free(runs[r]);
        free(runs);
        sb_run_free(all);
        return status == SB_EINVAL ? EXIT_USAGE : 1;
    }
    if (warnings[0]) {
        for (size_t r = 0; r < n; r++)
            say("merge: run %zu is %s", r + 1, argv[optind + r]);
        say_lines("merge: warning: ", warnings);
    }
    for (size_t r = 0; r < n; r++)
        sb_run_free(runs[r]);
    free(runs);
    cli_record_command(all, cli);
    status = cli_emit(all, cli);
    sb_run_free(all);
    return status;
}
