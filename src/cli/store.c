/*
 * store.c: what the command keeps from one run to the next, and where:
 * the saved baselines of --save and --against NAME (their directory,
 * their names, reading them back, appending to them under a lock) and
 * the host profile's directory.  Hostile names and planted files are
 * refused here, before anything is measured.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Where saved baselines live: $STATBENCH_BASELINES, else
 * $XDG_DATA_HOME/statbench/baselines (an absolute XDG_DATA_HOME), else
 * ~/.local/share/statbench/baselines; with none of the three set, nowhere
 * (not the current directory without a word: refused, asking for
 * STATBENCH_BASELINES).  A name is letters, digits, '.', '_' and '-' (no
 * path).  With create, the directory is made.  Returns a new path
 * NAME.json or exits with status 2 on a bad name or directory. */
static char *baseline_path(const char *name, int create)
{
    const char *dir = getenv("STATBENCH_BASELINES"), *xdg, *home;
    char base[4096], *path;
    size_t len;
    int w;

    if (strlen(name) > 128)
        die_usage("baseline name '%.40s...': %zu characters, at most 128",
                  name, strlen(name));
    if (!*name || name[0] == '.' ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") != strlen(name))
        die_usage("baseline name '%s': use letters, digits, '.', '_' and "
                  "'-', not first a '.'", name);
    if (dir && *dir) {
        w = snprintf(base, sizeof base, "%s", dir);
        dir = "STATBENCH_BASELINES";
    } else if ((xdg = getenv("XDG_DATA_HOME")) && *xdg == '/') {
        /* A relative XDG_DATA_HOME is invalid, and ignored, by the XDG
         * Base Directory specification. */
        w = snprintf(base, sizeof base, "%s/statbench/baselines", xdg);
        dir = "XDG_DATA_HOME";
    } else if ((home = getenv("HOME")) && *home) {
        w = snprintf(base, sizeof base, "%s/.local/share/statbench/baselines",
                     home);
        dir = "HOME";
    } else {
        die_usage("baseline '%s': HOME is not set: set STATBENCH_BASELINES "
                  "to the directory of baselines", name);
        return NULL;
    }
    /* Never a shortened path: it would name another directory. */
    if (w < 0 || (size_t)w >= sizeof base)
        die_usage("baseline directory from %s: longer than %zu bytes", dir,
                  sizeof base - 1);
    {
        /* A file where the directory should be fails the save after the
         * whole measurement: refused first. */
        struct stat st;
        if (stat(base, &st) == 0 && !S_ISDIR(st.st_mode))
            die_usage("baseline '%s': the baseline directory %s (from %s) "
                      "is not a directory", name, base, dir);
    }
    if (create) {
        /* mkdir -p */
        for (char *p = base + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                mkdir(base, 0755);
                *p = '/';
            }
        if (mkdir(base, 0755) != 0 && errno != EEXIST) {
            say("%s: %s", base, strerror(errno));
            return NULL;
        }
    }
    len = strlen(base) + strlen(name) + 8;
    path = malloc(len);
    if (path)
        snprintf(path, len, "%s/%s.json", base, name);
    return path;
}

/* What is at a baseline's path when it is not a regular file or absent
 * ("a symbolic link", "a FIFO", ...), or NULL.  A baseline is read back
 * later: one "saved" into a device, a FIFO or through a link is saved
 * nowhere (-o may write to those; --save may not).  Not followed: a
 * link is refused whatever it points to. */
static const char *baseline_not_file(const char *path)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return NULL;
    return S_ISREG(st.st_mode)    ? NULL
           : S_ISLNK(st.st_mode)  ? "a symbolic link"
           : S_ISFIFO(st.st_mode) ? "a FIFO"
           : S_ISDIR(st.st_mode)  ? "a directory"
           : S_ISSOCK(st.st_mode) ? "a socket"
                                  : "a device";
}

/* Saved baseline name read for option opt (--against, --append), or NULL
 * when missing_ok and there is none.  A hostile file, or one that is not
 * a regular file, stops the command here, before anything is measured. */
sb_run *cli_load_saved(const char *name, const char *opt, int missing_ok)
{
    char *path = baseline_path(name, 0);
    FILE *f = NULL;
    sb_run *run;
    int e = ENOMEM;

    if (path) {
        /* A saved baseline is a regular file: a FIFO planted under its
         * name would block here, a device would feed it anything, and a
         * link is refused as --save refuses one.  Opened once, without
         * waiting (a FIFO cannot hold the check) and not through a link,
         * and read from the descriptor that was checked: a file renamed
         * over the name between the check and the read is never the one
         * read. */
        struct stat st;
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        const char *what = NULL;
        e = errno;
        if (fd < 0 && e == ELOOP)
            what = "a symbolic link";
        else if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))
            what = "not a regular file";
        if (what) {
            if (fd >= 0)
                close(fd);
            say("%s '%s': %s is %s", opt, name, path, what);
            free(path);
            exit(EXIT_USAGE);
        }
        if (fd >= 0 && !(f = fdopen(fd, "r"))) {
            e = errno;
            close(fd);
        }
    }
    if (!f) {
        free(path); /* before exiting: a leak checker sees no leak */
        if (e == ENOENT && missing_ok)
            return NULL;
        if (e == ENOENT)
            die_usage("%s '%s': no such saved baseline (save one with "
                      "--save NAME)", opt, name);
        die_usage("%s '%s': %s", opt, name, strerror(e));
    }
    /* Closes f. */
    run = cli_load_file_or_die(f, path, NULL, 0);
    free(path);
    if (sb_run_imported(run)) {
        sb_run_free(run);
        die_usage("%s '%s': a baseline of imported samples (statbench "
                  "analyze: values in their own unit), not times to "
                  "compare a measurement with", opt, name);
    }
    return run;
}

/* A saved run to be compared with, or merged with, this one gets this
 * run's decisions from the record: the clocks (--chain-apart) and the
 * shared core (--shared-margin, --shared-level) decided again as given,
 * so that both sides are judged alike.  A baseline that cannot be decided
 * again is refused, before anything is measured. */
void cli_decide_like_run(const struct cli *cli, sb_run *base,
                         const char *opt, const char *name)
{
    sb_analysis_options a;
    sb_error err = {0};

    if (!base || (cli->aopt.chain_apart < 0 && cli->aopt.shared_margin < 0))
        return;
    a = *sb_run_analysis_options(base);
    a.chain_apart = cli->aopt.chain_apart;
    a.shared_margin = cli->aopt.shared_margin;
    a.shared_level = cli->aopt.shared_level;
    if (sb_run_reanalyse(base, &a, &err) != SB_OK) {
        sb_run_free(base);
        die_usage("%s %s: %s", opt, name, err.text);
    }
}

/* The saved run of --against, checked before anything is measured; or
 * NULL without --against. */
sb_run *cli_load_against(const struct cli *cli)
{
    sb_run *against;

    if (cli->save) {
        /* The name, and what is at its path, checked before measuring. */
        char *path = baseline_path(cli->save, 0);
        const char *what = path ? baseline_not_file(path) : NULL;
        if (what) {
            say("--save %s: %s is %s, not a baseline file: remove it, or "
                "save under another name",
                cli->save, path, what);
            free(path);
            exit(EXIT_USAGE);
        }
        free(path);
    }
    if (cli->save_append && !cli->save)
        die_usage("--append adds to the baseline --save NAME names: give "
                  "--save");
    if (!cli->against)
        return NULL;
    if (cli->baseline)
        die_usage("--against and --baseline '%s' cannot be combined",
                  cli->baseline);
    against = cli_load_saved(cli->against, "--against", 0);
    cli_decide_like_run(cli, against, "--against", cli->against);
    if (sb_run_interrupted(against))
        say("--against %s: this baseline was interrupted (saved from "
            "partial results): its cells rest on fewer samples",
            cli->against);
    return against;
}

/* --save NAME --append: this run merged into the saved NAME (its runs
 * and this one), or NULL with the reason said when they cannot be one
 * measurement; prior NULL (no such baseline yet): NULL, nothing said. */
static sb_run *append_run(const sb_run *run, const sb_run *prior,
                          const char *name)
{
    const sb_run *in[2] = {prior, run};
    char warnings[4096];
    sb_run *m = NULL;
    sb_error err = {0};

    if (!prior)
        return NULL;
    if (sb_run_merge_new(in, 2, &m, warnings, sizeof warnings, &err) !=
        SB_OK) {
        say("--append: this run cannot join baseline '%s': %s", name,
            err.text);
        return NULL;
    }
    /* What differs between the baseline's runs and this one, one line
     * each, as statbench merge says it. */
    say_lines("--append: warning: ", warnings);
    return m;
}

/* The baseline directory of path (its last '/' and before), opened and
 * locked for an --append: two runs that append to one baseline at once
 * each merge the baseline as the other left it, instead of the one they
 * read before measuring.  The lock is flock(2) on the directory, so no
 * lock file can be planted.  Waits up to 30 s for another statbench's
 * save; then, or when the directory cannot be opened, says so and goes
 * on without the lock (the run is not lost for it).  The open
 * descriptor, or -1. */
static int lock_baselines(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    int fd;

    if (!slash || (size_t)(slash - path) >= sizeof dir)
        return -1;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        say("--append: %s: %s: appending without a lock", dir,
            strerror(errno));
        return -1;
    }
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || tries == 600) {
            say("--append: %s: %s: appending without a lock", dir,
                errno == EWOULDBLOCK ? "locked by another process for 30 s"
                                     : strerror(errno));
            close(fd);
            return -1;
        }
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    return fd;
}

/* Baseline path as it is now, under the lock: another run may have
 * appended to it since this one read it.  *now is the new read (NULL
 * when the file is gone, or the same as at the start); returns 0, or -1
 * when it cannot be read (said: the start's read is used). */
static int reread_baseline(const char *path, const char *name, sb_run **now)
{
    sb_error err = {0};
    struct stat st;
    FILE *f;
    /* Not through a link planted since the start: the save refuses one
     * (baseline_not_file), and its target must not be merged first. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);

    *now = NULL;
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        !(f = fdopen(fd, "r"))) {
        close(fd);
        say("--append: baseline '%s': %s is no longer a regular file: "
            "appending to the one read before measuring",
            name, path);
        return -1;
    }
    if (sb_run_load_new(f, path, NULL, now, &err) != SB_OK) {
        say("--append: baseline '%s' changed and cannot be read again (%s): "
            "appending to the one read before measuring",
            name, err.text);
        *now = NULL;
        fclose(f);
        return -1;
    }
    fclose(f);
    if (sb_run_imported(*now)) {
        say("--append: baseline '%s' is now of imported samples: appending "
            "to the one read before measuring", name);
        sb_run_free(*now);
        *now = NULL;
        return -1;
    }
    return 0;
}

/* --save: the run kept as a baseline, unless a cell has no sample; with
 * --append, added to the runs of the baseline as it is at the save
 * (prior: as it was read before measuring). */
int cli_save_baseline(const sb_run *run, const sb_run *prior,
                      const struct cli *cli, size_t empty, int status)
{
    char *path;
    int failed = status, lock = -1;
    sb_run *merged = NULL, *now = NULL;

    if (empty) {
        say("not saved as baseline '%s': %zu cell%s without a valid sample",
            cli->save, empty, empty == 1 ? "" : "s");
        return status;
    }
    if (cli->save_append && (path = baseline_path(cli->save, 1))) {
        lock = lock_baselines(path);
        if (lock >= 0 && reread_baseline(path, cli->save, &now) == 0)
            prior = now; /* NULL when the baseline was removed meanwhile */
        free(path);
    }
    if (prior && !(merged = append_run(run, prior, cli->save))) {
        say("not saved as baseline '%s': it keeps its %zu run%s", cli->save,
            sb_run_runs(prior) >= 2 ? sb_run_runs(prior) : 1,
            sb_run_runs(prior) >= 2 ? "s" : "");
        sb_run_free(now);
        if (lock >= 0)
            close(lock);
        return 1;
    }
    /* Saved even when an output above failed (the measurement is good),
     * and then said even with -q: the exit status is 1. */
    path = baseline_path(cli->save, 1);
    if (path && baseline_not_file(path)) {
        /* Planted while the run measured. */
        say("not saved as baseline '%s': %s is %s, not a baseline file",
            cli->save, path, baseline_not_file(path));
        status = 1;
    } else if (!path ||
               cli_write_file(merged ? merged : run, SB_FORMAT_JSON, path) !=
                   0)
        status = 1;
    else if (!cli->quiet || failed) {
        char runs[64] = "";
        if (merged)
            snprintf(runs, sizeof runs, ", now of %zu runs",
                     sb_run_runs(merged));
        say("saved as baseline '%s' (%s)%s%s%s", cli->save, path, runs,
            sb_run_interrupted(run) ? ", marked interrupted" : "",
            failed ? "; an output above was not written" : "");
    }
    sb_run_free(merged);
    sb_run_free(now);
    free(path);
    if (lock >= 0)
        close(lock); /* after the rename: the next append reads this one */
    return status;
}

int cli_profile_dir(char *buf, size_t len, char *why, size_t wlen)
{
    const char *off = getenv("STATBENCH_NO_PROFILE");
    const char *st = getenv("STATBENCH_STATE"), *xdg, *home, *from;
    int w;

    if (off && *off)
        return 1;
    if (st && *st) {
        w = snprintf(buf, len, "%s", st);
        from = "STATBENCH_STATE";
    } else if ((xdg = getenv("XDG_STATE_HOME")) && xdg[0] == '/') {
        /* A relative XDG_STATE_HOME is invalid (the XDG spec): ignored. */
        w = snprintf(buf, len, "%s/statbench", xdg);
        from = "XDG_STATE_HOME";
    } else if ((home = getenv("HOME")) && *home) {
        w = snprintf(buf, len, "%s/.local/state/statbench", home);
        from = "HOME";
    } else {
        snprintf(why, wlen, "host profile: HOME is not set: set "
                            "STATBENCH_STATE to its directory, or give "
                            "--no-profile");
        return -1;
    }
    /* Never a shortened path: it would name another directory. */
    if (w < 0 || (size_t)w >= len) {
        snprintf(why, wlen, "host profile: the directory from %s is longer "
                            "than %zu bytes",
                 from, len - 1);
        return -1;
    }
    return 0;
}
