/*
 * cmd_ab.c: statbench ab OLD.so NEW.so --symbol S, two builds of one
 * kernel measured in the same interleaved rounds, judged as a gate.
 *
 * It is a measurement like any other: the two objects become two
 * --kernel-from specs, "old" and "new", and --baseline old pairs every
 * cell of new with old's cell of the same size and offsets, invocation by
 * invocation (cmd_measure.c does the rest, outputs and --save included).
 * What ab adds is the verdict per cell, in sb_gate_judge's words, and an
 * exit status that tells a slowdown from a run that could not decide:
 * the gate --against uses too (cli_gate.c), with ab's words.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <getopt.h>

#include "cli.h"

/* One object's --kernel-from spec: PATH:SYMBOL=NAME, ":clear" for a
 * clear kernel.  A path without '/' is a file of the current directory,
 * named so (the loader takes nothing from the library search path). */
static const char *ab_spec(const char *path, const char *symbol,
                           const char *name, int clear)
{
    const char *dir = strchr(path, '/') ? "" : "./";
    size_t len = strlen(dir) + strlen(path) + strlen(symbol) +
                 strlen(name) + 16;
    char *spec = malloc(len);

    if (!spec)
        die_usage("out of memory");
    snprintf(spec, len, "%s%s:%s=%s%s", dir, path, symbol, name,
             clear ? ":clear" : "");
    return spec; /* the command line's: kept until exit */
}

int cmd_ab(int argc, char **argv, struct cli *cli)
{
    char symbol[256];
    const char *colon;
    int clear = 0;

    if (argc - optind != 2)
        die_usage("ab takes two shared objects: %s ab OLD.so NEW.so "
                  "--symbol SYMBOL",
                  progname);
    if (!cli->ab_symbol || !*cli->ab_symbol)
        die_usage("ab: --symbol SYMBOL names the kernel both objects "
                  "export");
    if (cli->nkernel_from || cli->kernel_given || cli->families)
        die_usage("ab measures the two objects' SYMBOL only: -k, --family "
                  "and --kernel-from belong to a plain measurement");
    if (cli->baseline || cli->against)
        die_usage("ab compares NEW with OLD in the same rounds: "
                  "--baseline and --against cannot be given");
    /* --symbol S:clear for a clear kernel, as a --kernel-from spec ends. */
    colon = strrchr(cli->ab_symbol, ':');
    if (colon && (!strcmp(colon, ":clear") || !strcmp(colon, ":copy"))) {
        clear = !strcmp(colon, ":clear");
        snprintf(symbol, sizeof symbol, "%.*s",
                 (int)(colon - cli->ab_symbol), cli->ab_symbol);
    } else
        snprintf(symbol, sizeof symbol, "%s", cli->ab_symbol);
    if (strlen(cli->ab_symbol) >= sizeof symbol)
        die_usage("ab: --symbol of %zu characters, at most %zu",
                  strlen(cli->ab_symbol), sizeof symbol - 1);
    cli->kernel_from[cli->nkernel_from++] =
        ab_spec(argv[optind], symbol, "old", clear);
    cli->kernel_from[cli->nkernel_from++] =
        ab_spec(argv[optind + 1], symbol, "new", clear);
    cli->baseline = "old";
    cli->ab = 1;
    optind = argc;
    return cmd_measure(argc, argv, cli);
}
