/*
 * main.c: the statbench command.
 *
 *   statbench --kernel movsl --align 0..32 --ci 95
 *
 * Finds the subcommand, has the options parsed against the option table
 * (options_parse.c, options.c) and checked against what the subcommand
 * takes, and dispatches to cmd_*.c.  Exit status: 0 success, 1 a run or
 * output failure, 2 bad input, 130, 143 or 129 when interrupted by
 * SIGINT, SIGTERM or SIGHUP (partial results are still written).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* At exit: what went to stdout must have arrived.  printf to a full disk
 * or /dev/full fails only when the buffer is flushed, after the command
 * has returned 0 (--help, --version, check-env, a table). */
static void check_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: writing to standard output failed%s%s\n",
                progname, errno ? ": " : "", errno ? strerror(errno) : "");
        _exit(1);
    }
}

static const struct {
    const char *name;
    unsigned bit;
    int (*cmd)(int argc, char **argv, struct cli *cli);
} subcommands[] = {
    {"compare", SUB_COMPARE, cmd_compare},
    {"analyze", SUB_ANALYZE, cmd_analyze},
    {"check-env", SUB_CHECK_ENV, cmd_check_env},
    {"noise", SUB_NOISE, cmd_noise},
    {"report", SUB_REPORT, cmd_report},
    {"merge", SUB_MERGE, cmd_merge},
    {"profile", SUB_PROFILE, cmd_profile},
    {"cmd", SUB_CMD, cmd_cmd},
    {"history", SUB_HISTORY, cmd_history},
    /* ab is a measurement: it takes the measuring options. */
    {"ab", SUB_MEASURE, cmd_ab},
};

int main(int argc, char **argv)
{
    struct cli cli = {.kernels = DEFAULT_KERNEL, .aligns = "0",
                      .dst_aligns = "0", .format = SB_FORMAT_TABLE,
                      .sub = SUB_MEASURE, .argc = argc, .argv = argv};
    const char *sub = argc > 1 ? argv[1] : "";
    int (*cmd)(int, char **, struct cli *) = cmd_measure;

    atexit(check_stdout);
    /* A reader that goes away (| head) or a file size limit (ulimit -f)
     * must fail a write, not kill the run before it saves: the write
     * then returns EPIPE or EFBIG, and the output that failed says so. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    cli_ensure_stack(0);
    sb_measure_options_init(&cli.mopt);
    sb_analysis_options_init(&cli.aopt);
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        if (!strcmp(sub, subcommands[i].name)) {
            cmd = subcommands[i].cmd;
            cli.sub = subcommands[i].bit;
            /* getopt_long permutes: the files may come anywhere. */
            argv++;
            argc--;
            break;
        }
    cli_parse_options(argc, argv, &cli);
    if (cli.list_counters) {
        if (cli.sub != SUB_MEASURE)
            die_usage("%s: '--counters list' is an option of a measurement",
                      sub);
        return cli_list_counters();
    }
    cli_check_subcommand(&cli, sub);
    return cmd(argc, argv, &cli);
}
