/*
 * options.h: the option table of options.c, as options_parse.c reads
 * it: the row, the table and the two setters that parsing looks for.
 * options.c holds the rows, what each sets and --help; options_parse.c,
 * above it, reads the command line against them, and options.c never
 * calls it.
 */
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

#include <stddef.h>

#include "cli.h"

/* What a row does with its argument. */
struct cli_option {
    const char *name; /* long name; NULL: a line of help text only */
    int shortc;       /* short name, or 0 */
    const char *arg;  /* the argument in --help; NULL: takes none */
    unsigned subs;    /* the SUB_* that accept it */
    void (*set)(struct cli *cli, const struct cli_option *o,
                const char *arg);
    size_t field;     /* offsetof(struct cli, ...) that set writes */
    double lo, hi;    /* the range of a number; hi also a flag's value */
    double scale, divisor; /* a number is stored as d * scale / divisor
                              (percent / 100, microseconds * 1e-6) */
    const char *unit; /* after a number's message: " (seconds)" */
    const char *(*name_of)(int value); /* an enum's names, 0..hi-1 */
    int (*parse)(const char *name);
    const char *help; /* lines of help, '\n' between them */
    /* The help of the subcommands in help_subs, where theirs differs
     * (history writes three of the formats): NULL, help for all. */
    unsigned help_subs;
    const char *sub_help;
};

#define FIELD(f) offsetof(struct cli, f)

/* Not a subcommand: in a row's subs, an option of how a run is
 * analysed, which report and compare apply to a saved run. */
#define CLI_ANALYSIS (1u << 9)

/* The most rows the table may hold (options.c checks it), so that the
 * arrays getopt_long is given can be sized where the table is not. */
#define CLI_MAX_OPTIONS 256

/* The rows, in the order of --help, and how many. */
extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* The setters of a string and of a number: parsing knows the rows of
 * --kernel and --max-time by their field and their setter. */
void cli_set_string(struct cli *cli, const struct cli_option *o,
                    const char *arg);
void cli_set_double(struct cli *cli, const struct cli_option *o,
                    const char *arg);

#endif
