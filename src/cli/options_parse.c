/*
 * options_parse.c: the command line read against the option table
 * (options.h): getopt_long's arrays made from the rows, each option
 * given passed to its row's setter, an ambiguous abbreviation refused
 * naming what it could mean, the outputs checked to be distinct files in
 * directories that are there, an option the subcommand does not take
 * refused in its words, and the analysis options kept to apply again
 * over a saved run's.  The rows, what each sets and --help are
 * options.c's, below this file.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "options.h"

/* An analysis option given: kept with its argument (the last one given)
 * so that cli_analysis_over can apply it again on top of a saved run's. */
static void remember_analysis(struct cli *cli, const struct cli_option *o,
                              const char *arg)
{
    size_t i = 0;
    const size_t max = sizeof cli->analysis / sizeof *cli->analysis;

    while (i < cli->nanalysis && cli->analysis[i] != o)
        i++;
    if (i == max)
        return; /* cannot happen: fewer rows are CLI_ANALYSIS */
    cli->analysis[i] = o;
    cli->analysis_arg[i] = arg;
    if (i == cli->nanalysis)
        cli->nanalysis++;
}

/* The analysis options given on the command line over a (a saved run's
 * own): each is set again by its row's setter with its last argument,
 * and those not given keep a's values.  The arguments were checked when they
 * were first parsed. */
void cli_analysis_over(const struct cli *cli, sb_analysis_options *a)
{
    struct cli over = *cli;

    over.aopt = *a;
    for (size_t i = 0; i < cli->nanalysis; i++)
        cli->analysis[i]->set(&over, cli->analysis[i], cli->analysis_arg[i]);
    *a = over.aopt;
}

/* The row of what getopt_long returned: a long option's code is 256 plus
 * its row; a short one is its letter.  NULL for ':' and '?'. */
static const struct cli_option *by_code(int c)
{
    if (c >= 256)
        return &cli_options[c - 256];
    for (size_t i = 0; i < cli_noptions; i++)
        if (cli_options[i].name && cli_options[i].shortc == c)
            return &cli_options[i];
    return NULL;
}

/* An abbreviation that getopt_long found ambiguous: refused naming the
 * options it could mean (it returns as for an unknown one). */
static void ambiguous(const char *arg)
{
    char list[512] = "";
    size_t len, n = 0, used = 0;
    const char *eq;

    if (strncmp(arg, "--", 2) || !arg[2])
        return;
    arg += 2;
    eq = strchr(arg, '=');
    len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (size_t i = 0; i < cli_noptions; i++)
        if (cli_options[i].name && !strncmp(cli_options[i].name, arg, len)) {
            int w = snprintf(list + used, sizeof list - used, "%s--%s",
                             n ? ", " : "", cli_options[i].name);
            if (w > 0 && (size_t)w < sizeof list - used)
                used += (size_t)w;
            n++;
        }
    if (n >= 2)
        die_usage("option '--%.*s' is ambiguous: %s", (int)len, arg, list);
}

/* Where an output lands: the path with its directory resolved (a file
 * named twice through ./ or a link to its directory is one file), or the
 * path itself when the directory cannot be resolved.  NULL for a device
 * or FIFO, which several outputs may share (-o /dev/null twice). */
static char *output_key(const char *path)
{
    struct stat st;
    const char *slash = strrchr(path, '/');
    char *dir, *real, *key;

    if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
        return NULL;
    dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
                : strdup(".");
    real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real)
        return strdup(path);
    key = malloc(strlen(real) + strlen(slash ? slash + 1 : path) + 2);
    if (key)
        sprintf(key, "%s/%s", real, slash ? slash + 1 : path);
    free(real);
    return key;
}

/* Every -o and the figure of --plot with its STEM.gp and STEM.dat name
 * distinct files: else one output overwrites another, and the run exits
 * 0 with the figure gone.  An empty -o is refused too. */
static void check_outputs(const struct cli *cli)
{
    const char *name[MAX_OUTPUTS + 3], *what[MAX_OUTPUTS + 3];
    char *key[MAX_OUTPUTS + 3], *stem = NULL;
    size_t n = 0;

    for (int i = 0; i < cli->noutputs; i++) {
        if (!*cli->outputs[i])
            die_usage("-o '': an empty file name");
        name[n] = cli->outputs[i];
        what[n++] = "-o";
    }
    if (cli->plot) {
        size_t len = (size_t)(strrchr(cli->plot, '.') - cli->plot);
        stem = malloc(2 * (len + 5));
        if (stem) {
            sprintf(stem, "%.*s.gp", (int)len, cli->plot);
            sprintf(stem + len + 5, "%.*s.dat", (int)len, cli->plot);
            name[n] = cli->plot;
            what[n++] = "--plot";
            name[n] = stem;
            what[n++] = "--plot's script";
            name[n] = stem + len + 5;
            what[n++] = "--plot's data";
        }
    }
    /* A directory that is not there fails the write after the whole
     * measurement: refused first, as a baseline that is not there. */
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(name[i], '/');
        char *dir = slash ? strndup(name[i], (size_t)(slash - name[i]) +
                                                 (slash == name[i]))
                          : NULL;
        struct stat st;
        const char *why = NULL;
        if (dir && stat(dir, &st) != 0)
            why = errno == ENOENT ? "is not there" : strerror(errno);
        else if (dir && !S_ISDIR(st.st_mode))
            why = "is not a directory";
        if (why) {
            char d[300];
            snprintf(d, sizeof d, "%s", dir);
            free(dir);
            free(stem);
            die_usage("%s %s: its directory '%s' %s", what[i], name[i], d,
                      why);
        }
        free(dir);
    }
    for (size_t i = 0; i < n; i++)
        key[i] = output_key(name[i]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (key[i] && key[j] && !strcmp(key[i], key[j])) {
                char a[300], b[300];
                snprintf(a, sizeof a, "%s %s", what[j], name[j]);
                snprintf(b, sizeof b, "%s %s", what[i], name[i]);
                for (size_t k = 0; k < n; k++)
                    free(key[k]);
                free(stem);
                die_usage("%s and %s are one file: give each output its own",
                          a, b);
            }
    for (size_t k = 0; k < n; k++)
        free(key[k]);
    free(stem);
}

void cli_parse_options(int argc, char **argv, struct cli *cli)
{
    struct option longopts[CLI_MAX_OPTIONS + 1];
    char shorts[2 * CLI_MAX_OPTIONS + 2] = ":";
    size_t n = 0, ns = 1;
    int c, idx;

    for (size_t i = 0; i < cli_noptions; i++) {
        const struct cli_option *o = &cli_options[i];
        if (!o->name)
            continue;
        longopts[n++] = (struct option){o->name, o->arg ? required_argument
                                                         : no_argument,
                                        NULL, 256 + (int)i};
        if (o->shortc) {
            shorts[ns++] = (char)o->shortc;
            if (o->arg)
                shorts[ns++] = ':';
        }
    }
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';

    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, shorts, longopts, &idx)) != -1) {
        const struct cli_option *o = by_code(c);
        if (c == ':')
            die_usage("%s: missing value", argv[optind - 1]);
        if (!o && optopt >= 256)
            die_usage("%s: --%s takes no value", argv[optind - 1],
                      cli_options[optopt - 256].name);
        if (!o) {
            if (optopt)
                die_usage("unknown option '-%c' (see %s --help)",
                          (char)optopt, progname);
            ambiguous(argv[optind - 1]);
            die_usage("unknown option '%s' (see %s --help)",
                      argv[optind - 1], progname);
        }
        if (!(o->subs & cli->sub) && !cli->refused)
            cli->refused = o;
        if (o->subs & CLI_ANALYSIS)
            remember_analysis(cli, o, optarg);
        if (o->field == FIELD(kernels) && o->set == cli_set_string)
            cli->kernel_given = 1;
        if (o->field == FIELD(mopt.max_time) && o->set == cli_set_double)
            cli->max_time_given = 1;
        o->set(cli, o, optarg);
    }
    check_outputs(cli);
}

/* The first option given that this subcommand does not take, refused in
 * the words of the subcommand: compare, report and analyze take none of
 * the measurement's options; noise and check-env a few of them. */
void cli_check_subcommand(const struct cli *cli, const char *sub)
{
    if (!cli->refused)
        return;
    if (cli->refused->subs == SUB_PROFILE)
        die_usage("'--%s' is an option of 'statbench profile' only",
                  cli->refused->name);
    if (cli->refused->subs == SUB_CMD)
        die_usage("'--%s' is an option of 'statbench cmd' only",
                  cli->refused->name);
    if (cli->refused->subs == SUB_HISTORY)
        die_usage("'--%s' is an option of 'statbench history' only",
                  cli->refused->name);
    if (cli->sub &
        (SUB_NOISE | SUB_CHECK_ENV | SUB_PROFILE | SUB_CMD | SUB_HISTORY))
        die_usage("%s: '--%s' is not an option of this subcommand", sub,
                  cli->refused->name);
    die_usage("%s: '--%s' is an option of a measurement, not of this "
              "subcommand", sub, cli->refused->name);
}
