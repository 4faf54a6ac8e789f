/*
 * cmd_cmd.c: statbench cmd 'A' 'B' ...: whole commands timed in
 * interleaved rounds by the library (sb_command_run_new, command.c).
 * This file parses what the library does not (--baseline as a command or
 * a number), draws the progress line, passes SIGINT, SIGTERM and SIGHUP
 * on as a stop, and prints the run as any other.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

/* SIGINT, SIGTERM and SIGHUP end the rounds: the library sees the signal
 * number in got_signal (sb_command_options.stop) and passes it on to the
 * command under way. */
static void catch_stops(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* The progress line, on a terminal only: "round 3 of 20, 1.2 s". */
static int progress(void *arg, size_t round, size_t rounds, double elapsed)
{
    (void)arg;
    fprintf(stderr, "\rstatbench cmd: round %zu of %zu, %.1f s  ", round,
            rounds, elapsed);
    return 0;
}

/* --baseline: a command as given, else its number from 1. */
static size_t baseline_of(const struct cli *cli, char **cmds, size_t ncmd)
{
    char *end;
    unsigned long v;

    if (!cli->baseline)
        return 0;
    for (size_t i = 0; i < ncmd; i++)
        if (!strcmp(cmds[i], cli->baseline))
            return i;
    errno = 0;
    v = strtoul(cli->baseline, &end, 10);
    if (!errno && *cli->baseline >= '1' && *cli->baseline <= '9' && !*end &&
        v >= 1 && v <= ncmd)
        return (size_t)v - 1;
    /* die_usage cleans what it prints; 200 bytes of a long one. */
    die_usage("--baseline '%.200s': not one of the commands, nor a number "
              "from 1 to %zu",
              cli->baseline, ncmd);
}

int cmd_cmd(int argc, char **argv, struct cli *cli)
{
    sb_command_options o;
    size_t ncmd = (size_t)(argc - optind);
    sb_run *run = NULL;
    sb_error err = {0};
    int rc, status, bar;

    if (ncmd < 1)
        die_usage("cmd takes one or more commands: %s cmd [OPTION]... "
                  "'COMMAND'...",
                  progname);
    if (ncmd > CLI_MAX_COMMANDS)
        die_usage("cmd takes at most %d commands, not %zu",
                  CLI_MAX_COMMANDS, ncmd);
    if (cli->cmd_no_shell && cli->cmd_shell)
        die_usage("--shell '%.200s' and -N (no shell): give one of them",
                  cli->cmd_shell);
    if (cli->cmd_nprepare > 1 && cli->cmd_nprepare != ncmd)
        die_usage("--prepare given %zu times for %zu commands: give it "
                  "once (for every command) or once per command",
                  cli->cmd_nprepare, ncmd);
    sb_command_options_init(&o);
    o.commands = (const char *const *)argv + optind;
    o.ncommands = ncmd;
    o.prepare = cli->cmd_prepare;
    o.nprepare = cli->cmd_nprepare;
    o.shell = cli->cmd_shell;
    o.no_shell = cli->cmd_no_shell;
    o.show_output = cli->cmd_show_output;
    o.ignore_failure = cli->cmd_ignore_failure;
    if (cli->cmd_runs)
        o.runs = cli->cmd_runs;
    o.warmup = cli->cmd_warmup;
    o.max_time = cli->mopt.max_time;
    o.seed = cli->mopt.seed;
    o.baseline = baseline_of(cli, argv + optind, ncmd);
    o.stop = &got_signal;
    /* A SIGCHLD ignored by whoever started statbench is inherited across
     * exec, and would leave no child to wait for: this process owns its
     * signals, so it takes the default back. */
    signal(SIGCHLD, SIG_DFL);
    bar = !cli->quiet && !cli->cmd_show_output && isatty(STDERR_FILENO);
    if (bar)
        o.progress = progress;

    catch_stops();
    rc = sb_command_run_new(&o, &cli->aopt, &run, &err);
    if (bar)
        fprintf(stderr, "\r%60s\r", "");
    if (rc == SB_EINVAL)
        die_usage("%s", err.text);
    if (rc != SB_OK) {
        say("%s", err.text);
        return rc == SB_EINTR && got_signal ? cli_signal_status(got_signal) : 1;
    }
    cli_record_command(run, cli);
    status = cli_emit(run, cli);
    sb_run_free(run);
    if (got_signal)
        return cli_signal_status(got_signal);
    return status;
}
