/*
 * report/figure_gnuplot.c: what keeps gnuplot from being turned against
 * the user.  Strings from the data are written into the script and the
 * data file only through the quoting here; gnuplot runs without a shell,
 * with its stderr on a pipe; the figure's files are written under new
 * names beside the final ones (src/safefile.c) and renamed into place,
 * never through a link, and never over a device or a FIFO.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "figure.h"
#include "program.h"
#include "safefile.h"

extern char **environ;

/* ---- Quoting ------------------------------------------------------------ */

int sb__fig_is_ctrl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Every string from the data (kernel and file names, the CPU model) goes
 * into the script as a gnuplot single-quoted string.  Double quotes would
 * not do: gnuplot runs `text` in backquotes inside them as a shell
 * command.  Inside single quotes gnuplot substitutes nothing (neither
 * backquotes nor @macros) and the only escape is the quote written twice.
 * The script is read line by line, so control characters (a newline
 * would end the line) become '?'.  Text shown in the figure is set
 * noenhanced, so that '_', '^', '@', '&' and braces show as written. */
void sb__fig_put_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputc('\'', f);
        fputc(sb__fig_is_ctrl(c) ? '?' : c, f);
    }
    fputc('\'', f);
}

/* Text from the data in a comment of the script or the data file: control
 * characters become blanks (a newline would end the comment and make the
 * rest a command, or data), and a comment never ends in a backslash,
 * which would make gnuplot read the next line as part of the comment. */
void sb__fig_put_comment(FILE *f, const char *s)
{
    int last = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(last = sb__fig_is_ctrl(c) ? ' ' : c, f);
    }
    if (last == '\\')
        fputc(' ', f);
}

/* A number for the data file; gnuplot skips points with NaN. */
void sb__fig_put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("NaN", f);
}

/* ---- Running gnuplot ---------------------------------------------------- */

/* The program to run: name with a '/' as given, else looked up in PATH;
 * NULL (no name) is "gnuplot" from PATH, then the one configure found.
 * Returns a new string, or NULL when there is none. */
static char *find_gnuplot(const char *name)
{
    char *found = sb__find_program(name ? name : "gnuplot",
                                   "/usr/local/bin:/usr/bin:/bin");

    if (found || name)
        return found;
#ifdef SB_GNUPLOT_PATH
    {
        const char *configured = SB_GNUPLOT_PATH;
        if (!name && configured[0] && access(configured, X_OK) == 0)
            return strdup(configured);
    }
#endif
    return NULL;
}

/* The line of gnuplot's stderr that says what went wrong: the one naming
 * the script's line ("fig.gp" line 12: ...), else the first that is not
 * blank, an echo of the script or the caret under it. */
static void first_error_line(const char *text, char *buf, size_t len)
{
    const char *p = text, *pick = NULL;
    size_t picklen = 0;

    buf[0] = '\0';
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t'))
            q++;
        if (q < p + n && *q != '^') {
            int names_line = memchr(p, '"', n) && strstr(p, " line ") &&
                             strstr(p, " line ") < p + n;
            if (names_line || !pick) {
                pick = p;
                picklen = n;
                if (names_line)
                    break;
            }
        }
        p += n;
        if (*p)
            p++;
    }
    if (pick)
        snprintf(buf, len, "%.*s", (int)picklen, pick);
    /* gnuplot echoes the script's line, names and all. */
    for (char *q = buf; *q; q++)
        if (sb__fig_is_ctrl((unsigned char)*q))
            *q = '?';
}

/* gnuplot's two arguments: "out='tmp'" for -e and the script's name, in
 * *setout and *scriptarg (malloc'ed).  SB_ENOMEM leaves neither. */
static int gnuplot_args(const char *script, const char *tmp, char **setout,
                        char **scriptarg)
{
    /* out='tmp' with the quote doubled, as gnuplot's single quotes want. */
    *setout = malloc(2 * strlen(tmp) + 18);
    *scriptarg = malloc(strlen(script) + 3);
    if (!*setout || !*scriptarg) {
        free(*setout);
        free(*scriptarg);
        return SB_ENOMEM;
    }
    {
        /* "./" before a relative name: see the script's dir
         * (sb__fig_preamble, figure_script.c). */
        char *o = *setout + sprintf(*setout, "out='%s",
                                    tmp[0] == '/' ? "" : "./");
        for (const char *p = tmp; *p; p++) {
            if (*p == '\'')
                *o++ = '\'';
            *o++ = *p;
        }
        strcpy(o, "'");
    }
    /* A script named "-x.gp" would read as an option, and one named
     * "<x.gp" or "|x.gp" would give the script a dir that gnuplot reads
     * as a command: "./" before every relative name. */
    sprintf(*scriptarg, "%s%s", script[0] == '/' ? "" : "./", script);
    return SB_OK;
}

/* Start prog with argv, its stdin and stdout on /dev/null and its stderr
 * on errfd.  Returns posix_spawn's status (0, or an errno). */
static int spawn_gnuplot(const char *prog, char *const argv[], int errfd,
                         pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dflt;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    /* gnuplot starts with no signal blocked and the usual dispositions,
     * whatever the caller set up for itself (a SIGINT handler, say). */
    posix_spawnattr_init(&attr);
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigaddset(&dflt, SIGCHLD);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dflt);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(pid, prog, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Read fd to its end into text (size bytes, NUL-terminated), keeping the
 * beginning: gnuplot must never block on a full pipe. */
static void read_stderr(int fd, char *text, size_t size)
{
    size_t used = 0;

    for (;;) {
        char chunk[1024];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (used < size - 1) {
            size_t take = (size_t)n < size - 1 - used ? (size_t)n
                                                      : size - 1 - used;
            memcpy(text + used, chunk, take);
            used += take;
        }
    }
    text[used] = '\0';
}

/* Run prog on the script with out set to tmp; collect stderr.  Returns
 * SB_OK; SB_EUNAVAIL when prog cannot be run (the script can still be
 * rendered elsewhere); SB_EIO when it ran and failed: no figure, an
 * error. */
static int run_gnuplot(const char *prog, const char *script, const char *tmp,
                       const char *hint, sb_error *err)
{
    int pfd[2], rc, status = 0;
    pid_t pid;
    char *setout, *argv[5], *scriptarg;
    char text[4096], line[200];

    if (gnuplot_args(script, tmp, &setout, &scriptarg) != SB_OK)
        return sb__error(err, SB_ENOMEM, "out of memory");
    argv[0] = (char *)prog;
    argv[1] = "-e";
    argv[2] = setout;
    argv[3] = scriptarg;
    argv[4] = NULL;

    if (pipe(pfd) != 0) {
        int e = errno;
        free(setout);
        free(scriptarg);
        return sb__error(err, SB_EUNAVAIL,
                         "cannot run gnuplot (pipe: %s): render with "
                         "`%s`",
                         strerror(e), hint);
    }
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    rc = spawn_gnuplot(prog, argv, pfd[1], &pid);
    close(pfd[1]);
    free(setout);
    free(scriptarg);
    if (rc != 0) {
        close(pfd[0]);
        return sb__error(err, SB_EUNAVAIL,
                         "gnuplot not found (%s: %s): render with `%s`", prog,
                         strerror(rc), hint);
    }
    read_stderr(pfd[0], text, sizeof text);
    close(pfd[0]);
    while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    first_error_line(text, line, sizeof line);
    if (rc < 0) {
        /* The caller ignores SIGCHLD, so the status is lost: judge by the
         * figure (the caller checks that it is there). */
        return SB_OK;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SB_OK;
    if (WIFEXITED(status))
        return sb__error(err, SB_EIO,
                         "gnuplot failed (exit status %d)%s%s; the script "
                         "is %s",
                         WEXITSTATUS(status), line[0] ? ": " : "", line,
                         script);
    return sb__error(err, SB_EIO,
                     "gnuplot failed (signal %d)%s%s; the script is %s",
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                     line[0] ? ": " : "", line, script);
}

/* "gnuplot PATH", PATH in single quotes when a shell would split or
 * expand it: the command the error message tells the user to run. */
char *sb__fig_shell_command(const char *path)
{
    size_t n = strlen(path);
    int plain = n > 0 && path[0] != '-';
    char *s, *o;

    for (const char *p = path; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._/+-,:@%", *p))
            plain = 0;
    s = malloc(4 * n + 16);
    if (!s)
        return NULL;
    o = s + sprintf(s, "gnuplot ");
    if (plain) {
        strcpy(o, path);
        return s;
    }
    if (strchr("-<|", path[0])) { /* an option, or a command to gnuplot */
        strcpy(o, "./");
        o += 2;
    }
    *o++ = '\'';
    for (const char *p = path; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else
            *o++ = *p;
    }
    strcpy(o, "'");
    return s;
}

/* ---- Files made safely ------------------------------------------------- */

/* Open a new file for final (sb__replace_begin) as a stdio stream. */
FILE *sb__fig_open_beside(const char *final, char **tmp, sb_error *err)
{
    int fd = sb__replace_begin(final, (mode_t)-1, tmp), e;
    FILE *f;

    if (fd < 0) {
        sb__error(err, SB_EIO, "cannot write %s: %s", final,
                  strerror(errno));
        return NULL;
    }
    f = fdopen(fd, "w");
    if (!f) {
        e = errno;
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        sb__error(err, SB_EIO, "cannot write %s: %s", final, strerror(e));
    }
    return f;
}

/* A path that is there but is neither a regular file nor a symbolic link
 * (a directory, a device, a FIFO) is refused before anything is written:
 * the rename below would replace a device node with a plain file. */
int sb__fig_check_target(const char *path, sb_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
        return SB_OK;
    return sb__error(err, SB_EINVAL,
                     "%s: %s, not a regular file (a figure's files are "
                     "written anew and renamed into place)",
                     path, S_ISDIR(st.st_mode) ? "a directory"
                                               : "a device, FIFO or socket");
}

/* Put a finished file in place (sb__replace_commit). */
int sb__fig_put_in_place(char **tmp, const char *final, sb_error *err)
{
    if (sb__replace_commit(tmp, final) != 0)
        return sb__error(err, SB_EIO, "cannot write %s: %s", final,
                         strerror(errno));
    return SB_OK;
}

int sb__fig_close_file(FILE **f, const char *path, sb_error *err)
{
    int bad = ferror(*f), e = errno;
    if (fclose(*f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    *f = NULL;
    if (bad)
        return sb__error(err, SB_EIO, "cannot write %s: %s", path,
                         strerror(e ? e : EIO));
    return SB_OK;
}

/* ---- Drawing the figure ------------------------------------------------- */

int sb__fig_draw(const char *path, const char *gnuplot, const char *script,
                 const char *hint, sb_error *err)
{
    char *prog, *tmp = NULL;
    int rc, fd;
    struct stat st, lst;

    prog = find_gnuplot(gnuplot);
    if (!prog)
        return sb__error(err, SB_EUNAVAIL,
                         "gnuplot not found%s%s%s: render with `%s`",
                         gnuplot ? " (" : "", gnuplot ? gnuplot : "",
                         gnuplot ? ")" : "", hint);
    /* gnuplot draws into a new file of ours (it opens the name, which
     * is ours alone), renamed into place when gnuplot has finished and
     * the file is still the one made here: a failed run leaves no
     * half-drawn figure behind. */
    fd = sb__replace_begin(path, (mode_t)-1, &tmp);
    if (fd < 0) {
        rc = sb__error(err, SB_EIO, "cannot write %s: %s", path,
                       strerror(errno));
        free(prog);
        return rc;
    }
    rc = run_gnuplot(prog, script, tmp, hint, err);
    if (rc == SB_OK &&
        (fstat(fd, &st) != 0 || lstat(tmp, &lst) != 0 ||
         !S_ISREG(lst.st_mode) || lst.st_dev != st.st_dev ||
         lst.st_ino != st.st_ino))
        rc = sb__error(err, SB_EIO,
                       "%s: the figure's temporary file was replaced while "
                       "gnuplot drew it",
                       path);
    if (rc == SB_OK && st.st_size == 0)
        rc = sb__error(err, SB_EIO,
                       "gnuplot drew nothing into %s; the script is %s", path,
                       script);
    if (rc == SB_OK && rename(tmp, path) != 0)
        rc = sb__error(err, SB_EIO, "cannot write %s: %s", path,
                       strerror(errno));
    if (rc != SB_OK)
        unlink(tmp);
    close(fd);
    free(prog);
    free(tmp);
    return rc;
}
