/*
 * cmd_history.c: statbench history DIR|FILE...: saved runs of one plan
 * in time order, each cell's series with its change points (the
 * library's sb_history_new), as a table, CSV or JSON, and a figure.
 *
 * A directory stands for every *.json in it, in name order (the library
 * orders the runs by their start times).  A file of the directory that
 * is not a regular file (a symbolic link someone planted, a FIFO that
 * would block the read) is passed over with a line; a file named on the
 * command line is read through links, as the user named it, but must be
 * a regular file too.  A file that is not a run is refused, naming it
 * (the loader's line), exit 2.
 *
 * Exit status: 0 when the newest run starts no regression, 1 when it
 * does at some cell, 2 on any error: bad input, or an output (a file,
 * the figure, standard output) not written.  A CI gate reads 1 as "the
 * newest run made things slower", so an error never gives 1.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The paths read, grown as needed. */
struct paths {
    char **p;
    size_t n, cap;
};

static void add_path(struct paths *ps, char *path)
{
    if (!path) {
        say("out of memory");
        exit(EXIT_USAGE);
    }
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 32;
        char **p = realloc(ps->p, cap * sizeof *p);
        if (!p) {
            say("out of memory");
            exit(EXIT_USAGE);
        }
        ps->p = p;
        ps->cap = cap;
    }
    ps->p[ps->n++] = path;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json of directory dir, in name order. */
static void add_dir(struct paths *ps, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = ps->n;

    if (!d)
        die_usage("history: %s: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        char *p;
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") ||
            e->d_name[0] == '.')
            continue;
        p = malloc(strlen(dir) + l + 2);
        if (p)
            sprintf(p, "%s%s%s", dir,
                    dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
                    e->d_name);
        add_path(ps, p);
    }
    closedir(d);
    /* An empty directory leaves no list at all: qsort takes no NULL. */
    if (ps->n > first)
        qsort(ps->p + first, ps->n - first, sizeof *ps->p, by_name);
}

/* The run at path, or NULL (said) for a directory's entry that is not a
 * regular file.  named: given on the command line (links followed). */
static sb_run *load(const char *path, int named)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
                            (named ? 0 : O_NOFOLLOW));
    struct stat st;
    sb_error err = {0};
    sb_run *run = NULL;
    FILE *f;

    if (fd < 0 && !named && errno == ELOOP) {
        say("history: %s: a symbolic link: passed over (name its target)",
            path);
        return NULL;
    }
    if (fd < 0)
        die_usage("history: %s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        if (!named) {
            say("history: %s: not a regular file: passed over", path);
            return NULL;
        }
        die_usage("history: %s: not a regular file", path);
    }
    f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        die_usage("history: %s: %s", path, strerror(errno));
    }
    if (sb_run_load_new(f, path, NULL, &run, &err) != SB_OK) {
        fclose(f);
        say("%s", err.text);
        exit(EXIT_USAGE);
    }
    fclose(f);
    return run;
}

static int writable_format(int format)
{
    return format == SB_FORMAT_TABLE || format == SB_FORMAT_CSV ||
           format == SB_FORMAT_JSON;
}

/* The cell in a line: "libc 4096 B 0/0". */
static void cell_words(const sb_history_cell *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s %zu B %zu/%zu",
             c->cell.kernel && c->cell.kernel->name ? c->cell.kernel->name
                                                    : "?",
             c->cell.size, c->cell.src_align, c->cell.dst_align);
}

/* Static, where a leak checker finds them: a refusal (die_usage) exits
 * with the paths and the runs read so far still allocated, which is no
 * leak. */
static struct paths ps;
static sb_run **volatile runs;
static const char **volatile names;

/* Each -o's ending a history's format.  -f was checked as it was read
 * (options.c's set_format). */
static void check_outputs(const struct cli *cli)
{
    for (int i = 0; i < cli->noutputs; i++) {
        int fmt = sb_format_for_path(cli->outputs[i]);
        if (!writable_format(fmt >= 0 ? fmt : cli->format))
            die_usage("history: -o %s: a history is written as table "
                      "(.txt), csv or json",
                      cli->outputs[i]);
    }
}

/* The history's options from the command line's. */
static void history_options(const struct cli *cli, sb_history_options *o)
{
    sb_history_options_init(o);
    if (cli->cp_exponent > 0)
        o->exponent = cli->cp_exponent;
    if (cli->cp_permutations)
        o->permutations = cli->cp_permutations;
    if (cli->cp_min_size)
        o->min_size = cli->cp_min_size;
    o->seed = cli->mopt.seed;
    o->level = cli->aopt.ci_level;
    o->threshold = cli->aopt.threshold;
    o->pvalue = cli->aopt.alpha;
}

/* The operands' paths into ps, a directory's *.json in name order;
 * refused past the runs a series may hold. */
static void add_operands(int argc, char **argv)
{
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            add_dir(&ps, argv[i]);
        else
            add_path(&ps, strdup(argv[i]));
    }
    /* Refused before any is read: a series can be no longer. */
    if (ps.n > SB_CP_MAX_N)
        die_usage("history: %zu files to read, at most %d runs (keep the "
                  "newest in a directory of their own)",
                  ps.n, SB_CP_MAX_N);
}

/* Each path of ps loaded into runs, and its path into names, *n counting
 * them (a directory's entry passed over is not one): 0, or -1 out of
 * memory (said). */
static int load_runs(int argc, char **argv, size_t *n)
{
    runs = calloc(ps.n ? ps.n : 1, sizeof *runs);
    if (!runs) {
        say("out of memory");
        return -1;
    }
    /* Which paths were named on the command line: those equal to an
     * operand that is not a directory. */
    names = calloc(ps.n ? ps.n : 1, sizeof *names);
    if (!names) {
        say("out of memory");
        return -1;
    }
    for (size_t k = 0; k < ps.n; k++) {
        int named = 0;
        sb_run *r;
        for (int i = optind; i < argc && !named; i++)
            named = !strcmp(ps.p[k], argv[i]);
        if ((r = load(ps.p[k], named))) {
            names[*n] = ps.p[k];
            runs[(*n)++] = r;
        }
    }
    return 0;
}

/* The history's figure, its -o files and its report on standard output:
 * 0, or EXIT_USAGE (said) when one was not written. */
static int write_history(sb_history *h, const struct cli *cli)
{
    sb_error err = {0};
    int status = 0, rc;

    if (cli->plot) {
        rc = sb_history_plot(h, cli->plot, NULL, &err);
        if (rc != SB_OK) {
            say("--plot %s: %s", cli->plot, err.text);
            if (rc != SB_EUNAVAIL)
                status = EXIT_USAGE;
        }
        memset(&err, 0, sizeof err);
    }
    for (int i = 0; i < cli->noutputs; i++) {
        int fmt = sb_format_for_path(cli->outputs[i]);
        if (cli_write_history(h, fmt >= 0 ? fmt : cli->format,
                              cli->outputs[i]) != 0)
            status = EXIT_USAGE;
    }
    errno = 0;
    if (sb_history_report(h, cli->noutputs ? SB_FORMAT_TABLE : cli->format,
                          stdout, &err) != SB_OK) {
        say("%s", err.text);
        status = EXIT_USAGE;
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        /* Flushed here, not at exit (main's check, status 1): a table
         * lost on a full disk is an error, never "a regression".  Said
         * once: the error cleared, main's check finds nothing more. */
        say("history: writing to standard output failed%s%s",
            errno ? ": " : "", errno ? strerror(errno) : "");
        clearerr(stdout);
        status = EXIT_USAGE;
    }
    return status;
}

/* A line on stderr for each cell whose newest run starts a regression
 * beyond threshold. */
static void say_regressions(sb_history *h, double threshold)
{
    for (size_t i = 0; i < sb_history_cells(h); i++) {
        const sb_history_cell *c = sb_history_cell_at(h, i);
        const sb_history_change *x;
        char cell[256];
        if (!c->regression)
            continue;
        x = &c->changes[c->nchanges - 1];
        cell_words(c, cell, sizeof cell);
        say("history: REGRESSION %s: %.4f [%.4f, %.4f] slower from run %zu "
            "(%s, %s), p %.3g, beyond --threshold %g%%",
            cell, x->ratio.estimate, x->ratio.lo, x->ratio.hi,
            x->run_after + 1, sb_history_run_name(h, x->run_after),
            sb_run_meta(sb_history_run(h, x->run_after))->start_time, x->p,
            100 * threshold);
    }
}

int cmd_history(int argc, char **argv, struct cli *cli)
{
    sb_history *h = NULL;
    sb_history_options o;
    sb_error err = {0};
    size_t n = 0;
    int status = 0, rc;

    if (argc <= optind)
        die_usage("history takes a directory or saved runs: %s history "
                  "DIR|FILE...",
                  progname);
    check_outputs(cli);
    history_options(cli, &o);
    add_operands(argc, argv);
    if (load_runs(argc, argv, &n) != 0)
        return EXIT_USAGE;
    if (n == 0)
        die_usage("history: no saved run (*.json) to read in %s%s",
                  argv[optind], argc - optind > 1 ? " ..." : "");
    rc = sb_history_new((const sb_run *const *)runs,
                        (const char *const *)names, n, &o, &h, &err);
    free((void *)names);
    names = NULL;
    if (rc != SB_OK) {
        say("history: %s", err.text);
        status = EXIT_USAGE;
        goto out;
    }
    {
        /* What was kept apart, on stderr too: a CI log shows it even
         * when the table goes to a file. */
        char *notes = strdup(sb_history_notes(h));
        if (notes)
            say_lines("history: ", notes);
        free(notes);
    }
    status = write_history(h, cli);
    say_regressions(h, o.threshold);
    if (status == 0 && sb_history_regressions(h))
        status = 1;
out:
    sb_history_free(h);
    for (size_t k = 0; k < n; k++)
        sb_run_free(runs[k]);
    free(runs);
    for (size_t k = 0; k < ps.n; k++)
        free(ps.p[k]);
    free(ps.p);
    return status;
}
