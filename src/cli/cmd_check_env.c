/*
 * cmd_check_env.c: statbench check-env audits this machine for noise
 * sources, with advice for each finding.
 */
#include "config.h"

#include <getopt.h>

#include "cli.h"
#include "text.h"

int cmd_check_env(int argc, char **argv, struct cli *cli)
{
    sb_env env = {.size = sizeof env};
    sb_error err = {0};
    int cpu = cli->mopt.cpu >= 0 ? cli->mopt.cpu : sb_cpu_default(), warns = 0;

    cli_check_cpu(cli);
    if (optind < argc)
        die_usage("check-env takes no file: unexpected '%s'", argv[optind]);
    if (sb_env_audit(cpu, &env, &err) != SB_OK) {
        say("%s", err.text);
        return 1;
    }
    printf("statbench %s check-env: the environment of CPU %d\n\n",
           sb_version(), cpu);
    for (size_t i = 0; i < env.n; i++) {
        sb_env_item *e = &env.items[i];
        /* Values read from the system (a CPU model, a host's files):
         * printed without their control characters. */
        sb__clean_text(e->key);
        sb__clean_text(e->value);
        sb__clean_text(e->advice);
        printf("%-7s %-16s %s\n", e->warn ? "WARN" : "ok", e->key, e->value);
        if (e->advice[0])
            printf("%-7s %-16s -> %s\n", "", "", e->advice);
        warns += e->warn;
    }
    printf("\n%d finding%s to look at.  Every run records this audit in its "
           "metadata\nand prints the warnings in its header.\n",
           warns, warns == 1 ? "" : "s");
    return ferror(stdout) ? 1 : 0;
}
