/*
 * cmd_report.c: statbench report RUN.json re-renders a saved run.
 */
#include "config.h"

#include <getopt.h>

#include "cli.h"

int cmd_report(int argc, char **argv, struct cli *cli)
{
    sb_run *run;
    int status;

    if (argc - optind != 1)
        die_usage("report takes one saved run: %s report RUN.json",
                  progname);
    run = cli_load_or_die(argv[optind], cli, 1);
    status = cli_emit(run, cli);
    sb_run_free(run);
    return status;
}
