/*
 * output.c: the outputs of a run: every -o file in the format its ending
 * names, the table on standard output, the figure of --plot, and saved
 * runs read back.  A file is never turned against the user: see
 * cli_write_file.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "safefile.h"

/* What an output file holds: a run (sb_report) or a history of runs
 * (sb_history_report); every way of writing a file below serves both. */
struct cli_doc {
    const sb_run *run;
    const sb_history *hist;
};

static int doc_write(const struct cli_doc *d, int format, FILE *f,
                     sb_error *err)
{
    return d->hist ? sb_history_report(d->hist, format, f, err)
                   : sb_report(d->run, format, f, err);
}

/* One line for a failed write: the system's reason when there is one
 * (ENOSPC of /dev/full), else the library's. */
static int write_failed(const char *path, int saved_errno, const sb_error *err)
{
    say("%s: writing failed: %s", path,
        saved_errno ? strerror(saved_errno)
        : err->text[0] ? err->text : "error");
    return -1;
}

/* The report into a stream we keep open (our standard output or error). */
static int write_stream(const struct cli_doc *doc, int format,
                        const char *path, FILE *f)
{
    sb_error err = {0};
    int rc;

    fflush(stdout);
    errno = 0;
    rc = doc_write(doc, format, f, &err);
    if (rc == SB_OK && fflush(f) != 0)
        rc = SB_EIO;
    return rc == SB_OK ? 0 : write_failed(path, errno, &err);
}

/* The report into f, which is closed; the errno of a failure in *e. */
static int report_and_close(const struct cli_doc *doc, int format, FILE *f,
                            sb_error *err, int *e)
{
    int rc;

    errno = 0;
    rc = doc_write(doc, format, f, err);
    *e = errno;
    if (fclose(f) != 0 && rc == SB_OK) {
        rc = SB_EIO;
        *e = errno;
    }
    return rc;
}

/* A FIFO or character device written where it is: replacing it
 * would break it for every other user (root's -o /dev/full).  type is
 * the file type lstat or stat saw; the file opened must still be one. */
static int write_in_place(const struct cli_doc *doc, int format,
                          const char *path, mode_t type, int follow)
{
    struct stat st;
    sb_error err = {0};
    FILE *f;
    int rc, fd, e;

    /* A FIFO without a reader would block the run's end forever: opened
     * without waiting (ENXIO when no one reads), then written blocking. */
    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
                        (follow ? 0 : O_NOFOLLOW) |
                        (type == S_IFIFO ? O_NONBLOCK : 0));
    if (fd < 0) {
        say("%s: %s", path,
            errno == ENXIO && type == S_IFIFO
                ? "a FIFO that no process reads: not written"
                : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type) {
        say("%s: changed while being opened; not written", path);
        close(fd);
        return -1;
    }
    if (type == S_IFIFO) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            say("%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
    }
    f = fdopen(fd, "w");
    if (!f) {
        say("%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    rc = report_and_close(doc, format, f, &err, &e);
    return rc == SB_OK ? 0 : write_failed(path, e, &err);
}

/* A new or regular file replaced atomically (safefile.h, the routine the
 * figures use): mode is the replaced file's permissions (a private file
 * stays private), or (mode_t)-1 for a new file. */
static int replace_file(const struct cli_doc *doc, int format,
                        const char *path, mode_t mode)
{
    FILE *f = NULL;
    char *tmp = NULL;
    sb_error err = {0};
    int rc, fd, e;

    fd = sb__replace_begin(path, mode, &tmp);
    if (fd >= 0 && !(f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        errno = e;
    }
    if (!f) {
        say("%s: %s", path, strerror(errno));
        sb__replace_abort(&tmp);
        return -1;
    }
    rc = report_and_close(doc, format, f, &err, &e);
    if (rc == SB_OK && sb__replace_commit(&tmp, path) != 0) {
        rc = SB_EIO;
        e = errno;
    }
    if (rc != SB_OK) {
        write_failed(path, e, &err);
        sb__replace_abort(&tmp);
    }
    return rc == SB_OK ? 0 : -1;
}

/* Whether st is the file of our standard output or error: -o /dev/stdout
 * (a link to /proc/self/fd/1) or -o FILE >FILE write through the stream
 * already open, in order with the table. */
static FILE *std_stream(const struct stat *st)
{
    struct stat s;
    if (fstat(STDOUT_FILENO, &s) == 0 && s.st_dev == st->st_dev &&
        s.st_ino == st->st_ino)
        return stdout;
    if (fstat(STDERR_FILENO, &s) == 0 && s.st_dev == st->st_dev &&
        s.st_ino == st->st_ino)
        return stderr;
    return NULL;
}

/* Write the report to path (-o and --save), never turning it against the
 * user: a new or regular file is replaced atomically (replace_file); our
 * own standard output or error is written through its stream; a FIFO or
 * character device is written in place.  Refused, with one line: a
 * directory, a block device, a socket (open(2) cannot write one), a
 * regular file without write permission (by its mode bits: root passes
 * access() but a read-only file stays read-only), a symbolic link to
 * anything but a FIFO or device (renaming would replace the link, and
 * writing through it is what a link planted in a shared directory wants:
 * name the target), and a link to a FIFO or device that belongs to
 * another user (who could point it at /dev/port, a tty or their FIFO). */
static int write_doc(const struct cli_doc *doc, int format,
                     const char *path)
{
    struct stat st, t;
    FILE *std;
    const char *what;

    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            say("%s: %s", path, strerror(errno));
            return -1;
        }
        return replace_file(doc, format, path, (mode_t)-1);
    }
    if (S_ISLNK(st.st_mode)) {
        if (stat(path, &t) != 0)
            what = "a symbolic link to nothing";
        else if ((std = std_stream(&t)))
            return write_stream(doc, format, path, std);
        else if ((S_ISCHR(t.st_mode) || S_ISFIFO(t.st_mode)) &&
                 st.st_uid != 0 && st.st_uid != geteuid())
            what = "a symbolic link of another user's (name the target "
                   "itself)";
        else if (S_ISCHR(t.st_mode) || S_ISFIFO(t.st_mode))
            return write_in_place(doc, format, path, t.st_mode & S_IFMT, 1);
        else if (S_ISSOCK(t.st_mode))
            what = "a symbolic link to a socket (a socket cannot be "
                   "opened for writing)";
        else if (S_ISDIR(t.st_mode))
            what = "a symbolic link to a directory";
        else
            what = "a symbolic link (give the path of its target)";
    } else if ((std = std_stream(&st))) {
        return write_stream(doc, format, path, std);
    } else if (S_ISREG(st.st_mode)) {
        int ok = geteuid() == 0 ? (st.st_mode & 0222) != 0
                                : access(path, W_OK) == 0;
        if (ok)
            return replace_file(doc, format, path, st.st_mode);
        what = "read-only (kept; make it writable or choose another name)";
    } else if (S_ISFIFO(st.st_mode) && st.st_uid != 0 &&
               st.st_uid != geteuid()) {
        /* Another user's FIFO in a shared directory would take the run to
         * that user's reader (a planted name), as a link to one would. */
        what = "a FIFO of another user's";
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        return write_in_place(doc, format, path, st.st_mode & S_IFMT, 0);
    } else if (S_ISSOCK(st.st_mode)) {
        what = "a socket (it cannot be opened for writing)";
    } else if (S_ISDIR(st.st_mode)) {
        what = "a directory";
    } else if (S_ISBLK(st.st_mode)) {
        what = "a block device";
    } else {
        what = "not a regular file";
    }
    say("%s: %s: not written", path, what);
    return -1;
}

int cli_write_file(const sb_run *run, int format, const char *path)
{
    struct cli_doc d = {.run = run};
    return write_doc(&d, format, path);
}

int cli_write_history(const sb_history *h, int format, const char *path)
{
    struct cli_doc d = {.hist = h};
    return write_doc(&d, format, path);
}

/* The format of an -o file: from its ending (.json, .csv, .tex, .md,
 * .txt), else the --format given. */
static int output_format(const char *path, int fallback)
{
    /* The library's table of writers knows the endings. */
    int format = sb_format_for_path(path);
    return format >= 0 ? format : fallback;
}

/* Write the run: each -o FILE in its format (and the table to stdout), or
 * FMT to stdout; and the figure of --plot.  Returns 0 or 1. */
int cli_emit(const sb_run *run, const struct cli *cli)
{
    sb_error err = {0};
    int status = 0;

    if (cli->plot) {
        int rc = sb_plot(run, cli->plot, cli->plot_kind, NULL, &err);
        if (rc == SB_EUNAVAIL) {
            /* No gnuplot: the script and data are there; say how. */
            say("--plot %s: %s", cli->plot, err.text);
        } else if (rc != SB_OK) {
            say("--plot %s: %s", cli->plot, err.text);
            status = 1;
        }
        memset(&err, 0, sizeof err);
    }
    if (cli->noutputs) {
        for (int i = 0; i < cli->noutputs; i++)
            if (cli_write_file(run,
                               output_format(cli->outputs[i], cli->format),
                               cli->outputs[i]) != 0)
                status = 1;
        if (sb_report(run, SB_FORMAT_TABLE, stdout, &err) != SB_OK)
            status = 1;
    } else if (sb_report(run, cli->format, stdout, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        status = 1;
    }
    return status;
}

void cli_record_command(sb_run *run, const struct cli *cli)
{
    int argc = cli->argc;
    char **argv = cli->argv;
    /* Record the command as typed, whatever libtool named the binary. */
    char *saved = argv[0];
    argv[0] = (char *)progname;
    sb_run_set_command(run, argc, argv, NULL);
    argv[0] = saved;
}

sb_run *cli_load_or_die(const char *path, const struct cli *cli,
                        int reanalyse)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

    if (!f) {
        say("%s: %s", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    return cli_load_file_or_die(f, path, cli, reanalyse);
}

sb_run *cli_load_file_or_die(FILE *f, const char *path,
                             const struct cli *cli, int reanalyse)
{
    sb_error err = {0};
    sb_run *run = NULL;
    sb_analysis_options a;
    /* Without a command line (a saved baseline): a statbench run. */
    int from = cli ? cli->from : SB_IMPORT_STATBENCH, rc;

    if (from == SB_IMPORT_NUMBERS)
        die_usage("--from numbers: only analyze reads files of numbers; "
                  "report, compare and merge read runs (statbench, "
                  "gbench, hyperfine or pyperf JSON)");
    /* The run as saved, then, when analysis options were given, again
     * with those over the saved ones: an option not given keeps the
     * run's value rather than taking the command's default.  A tool's
     * file is read with the defaults, then the same way. */
    rc = sb_run_import_new(f, path, from,
                           cli && cli->gbench_cpu ? SB_IMPORT_GBENCH_CPU_TIME
                                                  : 0,
                           NULL, cli ? cli->mopt.seed : 1, NULL, &run, &err);
    if (f != stdin)
        fclose(f);
    if (rc != SB_OK) {
        say("%s", err.text);
        exit(EXIT_USAGE);
    }
    if (reanalyse && cli && cli->nanalysis) {
        a = *sb_run_analysis_options(run);
        cli_analysis_over(cli, &a);
        if (sb_run_reanalyse(run, &a, &err) != SB_OK) {
            say("%s: %s", path, err.text);
            sb_run_free(run);
            exit(EXIT_USAGE);
        }
    }
    return run;
}

/* noise and check-env pin to one CPU: one that exists. */
void cli_check_cpu(const struct cli *cli)
{
    if (cli->mopt.cpu >= 0 && cli->mopt.cpu >= sysconf(_SC_NPROCESSORS_CONF))
        die_usage("cpu %d: no such CPU on this machine", cli->mopt.cpu);
}
