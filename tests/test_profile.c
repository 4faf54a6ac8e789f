/*
 * test_profile.c: the host profile's life (src/machine/profile*.c): the
 * first run, a quiet run, a shared run, reset; a corrupt, truncated and
 * hostile file, a planted link and FIFO; two processes writing at once;
 * the rules by which a wrong profile heals; and the ten libc 4 KiB runs recorded on an
 * EPYC guest replayed through it (tests/fixtures/amd: the tenth was
 * measured on a shared core, 35% slower, with a tight interval).
 *
 * Times are made up from a base the test chooses: no check depends on
 * the clock of the machine running it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "run_internal.h"
#include "statbench.h"
#include "synth_run.h"
#include "tap.h"

static char dir[4096];

static sb_profile_key host_key(void)
{
    sb_profile_key k;
    memset(&k, 0, sizeof k);
    k.size = sizeof k;
    snprintf(k.hostname, sizeof k.hostname, "host-a");
    snprintf(k.cpu_model, sizeof k.cpu_model, "AMD EPYC");
    snprintf(k.microcode, sizeof k.microcode, "0xa0011d1");
    k.online_cpus = 2;
    snprintf(k.contention_probe, sizeof k.contention_probe,
             "walk64-ld16-st2048-4k");
    k.probe_ldst_reps = 32;
    return k;
}

/* Hour h after a fixed base, as a run's start time. */
static sb_profile_figures fig(double quiet, double ref, double hour)
{
    sb_profile_figures f = {.size = sizeof f};
    time_t t = (time_t)(1796151969 + hour * 3600);
    struct tm tm;
    gmtime_r(&t, &tm);
    f.contention_quiet = quiet;
    f.reference_cycles = ref;
    strftime(f.time, sizeof f.time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return f;
}

static int add(const sb_profile_key *k, sb_profile_figures f, int *added)
{
    sb_error err = {0};
    char note[256];
    int rc = sb_profile_add(dir, k, &f, added, note, sizeof note, &err);
    if (rc != SB_OK)
        tap_diag("sb_profile_add: %s", err.text);
    return rc;
}

static int judge(const sb_profile_key *k, sb_profile_figures f,
                 sb_profile_judgement *j)
{
    sb_profile *p = NULL;
    sb_error err = {0};
    int rc = sb_profile_load(dir, k, &p, &err);
    if (rc != SB_OK) {
        tap_diag("sb_profile_load: %s", err.text);
        return -1;
    }
    j->size = sizeof *j;
    rc = sb_profile_judge(p, &f, j, &err);
    sb_profile_free(p);
    if (rc != SB_OK) {
        tap_diag("sb_profile_judge: %s", err.text);
        return -1;
    }
    return j->state;
}

static sb_profile_summary summary(const sb_profile_key *k)
{
    sb_profile_summary s;
    sb_profile *p = NULL;
    sb_error err = {0};
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    if (sb_profile_load(dir, k, &p, &err) != SB_OK ||
        sb_profile_summarize(p, &s, &err) != SB_OK)
        tap_diag("summary: %s", err.text);
    sb_profile_free(p);
    return s;
}

static void reset(const sb_profile_key *k)
{
    sb_error err = {0};
    if (sb_profile_reset(dir, k, NULL, &err) != SB_OK)
        tap_diag("sb_profile_reset: %s", err.text);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 16];
    size_t n;
    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- the life of a profile ---------------------------------------------- */

static void test_life(void)
{
    sb_profile_key k = host_key(), k2;
    sb_profile_judgement j;
    sb_profile_summary s;
    char path[4200], path2[4200];
    const char *base;
    int added = -1, removed = -1;
    sb_error err = {0};

    TAP_IS_INT(sb_profile_path(dir, &k, path, sizeof path, &err), SB_OK,
               "path of a key");
    base = strrchr(path, '/') + 1;
    tap_ok(strlen(base) == strlen("profile-0123456789abcdef.json") &&
               !strncmp(base, "profile-", 8) &&
               strspn(base + 8, "0123456789abcdef") == 16,
           "the file name is a hash of the key (%s)", base);
    k2 = k;
    snprintf(k2.hostname, sizeof k2.hostname, "../../etc/passwd\n");
    sb_profile_path(dir, &k2, path2, sizeof path2, NULL);
    tap_ok(!strstr(path2, "passwd") && strcmp(path, path2),
           "a hostile host name never reaches the path: %s",
           strrchr(path2, '/') + 1);
    k2 = k;
    snprintf(k2.microcode, sizeof k2.microcode, "0xa0011d5");
    sb_profile_path(dir, &k2, path2, sizeof path2, NULL);
    tap_ok(strcmp(path, path2) != 0, "new microcode: another profile");
    k2 = k;
    k2.online_cpus = 4;
    sb_profile_path(dir, &k2, path2, sizeof path2, NULL);
    tap_ok(strcmp(path, path2) != 0, "another VM size: another profile");

    TAP_IS_INT(judge(&k, fig(63.5, 163.8, 0), &j), SB_PROFILE_NEW,
               "first run: no profile yet");
    tap_ok(strstr(j.line, "none yet") != NULL, "first run's line: %s",
           j.line);
    TAP_IS_INT(add(&k, fig(63.5, 163.8, 0), &added), SB_OK,
               "first run added");
    TAP_IS_INT(added, 1, "first run kept");
    {
        struct stat st;
        stat(dir, &st);
        TAP_IS_INT(st.st_mode & 0777, 0700, "directory made 0700");
        stat(path, &st);
        TAP_IS_INT(st.st_mode & 0777, 0600, "file 0600");
    }
    TAP_IS_INT(judge(&k, fig(63.6, 164.2, 1), &j), SB_PROFILE_QUIET,
               "a quiet run: quiet");
    tap_ok(strstr(j.line, "quiet core") != NULL, "quiet run's line: %s",
           j.line);
    add(&k, fig(63.6, 164.2, 1), &added);
    TAP_IS_INT(added, 1, "a quiet run is kept");
    TAP_IS_INT(judge(&k, fig(65.3, 221.5, 2), &j), SB_PROFILE_SHARED,
               "35%% slower: shared");
    tap_ok(strstr(j.line, "measured on a shared core") && strstr(j.line,
                                                                 "221.5"),
           "shared run's line names it and its figures: %s", j.line);
    TAP_IS_REL(j.reference_excess, 221.5 / 163.8 - 1, 1e-9,
               "the excess over the level");
    TAP_IS_REL(j.reference_margin, SB_PROFILE_MARGIN_FLOOR, 1e-12,
               "two runs' margin is the floor");
    add(&k, fig(65.3, 221.5, 2), &added);
    TAP_IS_INT(added, 0, "a shared run is not kept");
    s = summary(&k);
    TAP_IS_INT(s.runs, 2, "two runs kept");
    TAP_IS_INT(s.seen, 3, "three seen");
    TAP_IS_INT(s.pending, 1, "one run counts towards a move");
    TAP_IS_REL(s.reference.level, 163.8, 1e-12, "level: the lowest of two "
                                                 "that confirm each other");
    TAP_IS_INT(judge(&k, fig(NAN, 164.0, 3), &j), SB_PROFILE_QUIET,
               "a run with the reference only is judged on it");
    TAP_IS_INT(judge(&k, fig(NAN, NAN, 3), &j), SB_PROFILE_UNKNOWN,
               "a run with no figure: unknown");
    add(&k, fig(NAN, NAN, 3), &added);
    TAP_IS_INT(added, 0, "a run with no figure is not added");
    TAP_IS_INT(summary(&k).seen, 3, "... nor counted");
    TAP_IS_INT(sb_profile_reset(dir, &k, &removed, &err), SB_OK, "reset");
    TAP_IS_INT(removed, 1, "reset removed the profile");
    TAP_IS_INT(judge(&k, fig(63.5, 163.8, 4), &j), SB_PROFILE_NEW,
               "after reset: no profile yet");
    sb_profile_reset(dir, &k, &removed, &err);
    TAP_IS_INT(removed, 0, "reset of no profile: nothing removed");
}

/* ---- hostile files ------------------------------------------------------- */

/* good with its first occurrence of from (as long as to) made to, into
 * bad (len bytes). */
static void replaced(const char *good, const char *from, const char *to,
                     char *bad, size_t len)
{
    char *at;
    snprintf(bad, len, "%s", good);
    if ((at = strstr(bad, from)) != NULL)
        memcpy(at, to, strlen(to));
}

static int load_refused(const sb_profile_key *k, const char *want,
                        const char *what)
{
    sb_profile *p = NULL;
    sb_error err = {0};
    int rc = sb_profile_load(dir, k, &p, &err);
    sb_profile_free(p);
    return tap_ok(rc == SB_EIO && strstr(err.text, want) &&
                      strstr(err.text, "profile-") && !strchr(err.text, '\n'),
                  "%s: refused in one line naming the file and \"%s\" (%s)",
                  what, want, err.text);
}

static void test_hostile(void)
{
    sb_profile_key k = host_key();
    char path[4200], good[1 << 16], bad[1 << 16], outside[4200];
    char *text;
    struct stat st;
    sb_error err = {0};
    int added;

    reset(&k);
    add(&k, fig(63.5, 163.8, 0), NULL);
    add(&k, fig(63.6, 164.2, 1), NULL);
    sb_profile_path(dir, &k, path, sizeof path, NULL);
    text = read_text(path);
    snprintf(good, sizeof good, "%s", text ? text : "");
    tap_ok(strstr(good, "\"statbench-profile\"") && strstr(good, "host-a"),
           "the file holds its schema and its key");

    write_text(path, "this is not JSON {");
    load_refused(&k, "not JSON", "corrupt file");
    TAP_IS_INT(add(&k, fig(63.5, 163.8, 2), &added) == SB_EIO, 1,
               "a corrupt file is not overwritten by an update");
    text = read_text(path);
    tap_ok(text && !strcmp(text, "this is not JSON {"),
           "the corrupt file is left as it was");

    snprintf(bad, sizeof bad, "%.*s", (int)(strlen(good) / 2), good);
    write_text(path, bad);
    load_refused(&k, "not JSON", "truncated file");

    replaced(good, "host-a", "host-b", bad, sizeof bad);
    write_text(path, bad);
    load_refused(&k, "key.hostname", "another host's key");

    snprintf(bad, sizeof bad, "%s", good);
    {
        char *q = strstr(bad, "\"contention_quiet\": ");
        q += strlen("\"contention_quiet\": ");
        *q = '-';
    }
    write_text(path, bad);
    load_refused(&k, "runs[0].contention_quiet", "a negative figure");

    replaced(good, "statbench-profile", "statbench-profilX", bad,
             sizeof bad);
    write_text(path, bad);
    load_refused(&k, "schema", "another schema");

    snprintf(bad, sizeof bad, "%s", good);
    {
        /* An escape character, written as JSON escapes it. */
        char *q = strstr(good, "\"time\": \"") + strlen("\"time\": \"");
        snprintf(bad, sizeof bad, "%.*s\\u001b%s", (int)(q - good), good,
                 q + 1);
    }
    write_text(path, bad);
    load_refused(&k, "runs[0].time", "a control character in a time");

    {
        /* More runs than a profile keeps. */
        json_t *root = json_loads(good, 0, NULL), *runs, *one;
        char *dump;
        runs = json_object_get(root, "runs");
        one = json_array_get(runs, 0);
        while (json_array_size(runs) <= SB_PROFILE_MAX_RUNS)
            json_array_append(runs, one);
        dump = json_dumps(root, 0);
        write_text(path, dump);
        free(dump);
        json_decref(root);
        load_refused(&k, "runs: 65 entries", "too many runs");
    }

    /* A planted link: never followed, for reading or writing. */
    snprintf(outside, sizeof outside, "%s.outside", dir);
    write_text(outside, good);
    unlink(path);
    if (symlink(outside, path) == 0) {
        load_refused(&k, "symbolic link", "a link in the file's place");
        TAP_IS_INT(add(&k, fig(63.5, 163.8, 2), &added), SB_EIO,
                   "an update refuses the link");
        text = read_text(outside);
        tap_ok(text && !strcmp(text, good),
               "the link's target is never written");
        tap_ok(lstat(path, &st) == 0 && S_ISLNK(st.st_mode),
               "the link is left in place");
        TAP_IS_INT(sb_profile_reset(dir, &k, NULL, &err), SB_EIO,
                   "reset refuses the link, not removing it");
    } else {
        tap_ok(0, "symlink: %s", strerror(errno));
    }
    unlink(path);
    unlink(outside);

    /* A FIFO: never opened for writing, never blocks a reader. */
    if (mkfifo(path, 0600) == 0) {
        load_refused(&k, "not a regular file", "a FIFO in the file's place");
        TAP_IS_INT(add(&k, fig(63.5, 163.8, 2), &added), SB_EIO,
                   "an update refuses the FIFO");
        tap_ok(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode),
               "the FIFO is still a FIFO (never replaced or written)");
    } else {
        tap_ok(0, "mkfifo: %s", strerror(errno));
    }
    unlink(path);

    /* A FIFO as the lock. */
    {
        char lp[4300];
        snprintf(lp, sizeof lp, "%s.lock", path);
        unlink(lp);
        if (mkfifo(lp, 0600) == 0) {
            sb_profile_figures f = fig(63.5, 163.8, 2);
            err.text[0] = '\0';
            TAP_IS_INT(sb_profile_add(dir, &k, &f, NULL, NULL, 0, &err),
                       SB_EIO, "a FIFO as the lock is refused");
            unlink(lp);
        }
    }

    /* The directory: a link to it, or one others may write, is refused. */
    {
        char link_dir[4200], sub[4200];
        snprintf(link_dir, sizeof link_dir, "%s.link", dir);
        if (symlink(dir, link_dir) == 0) {
            sb_profile *p = NULL;
            sb_profile_figures f = fig(63.5, 163.8, 2);
            TAP_IS_INT(sb_profile_load(link_dir, &k, &p, &err), SB_EIO,
                       "a directory that is a link is refused");
            tap_ok(strstr(err.text, "symbolic link") != NULL, "... saying "
                   "so: %s", err.text);
            TAP_IS_INT(sb_profile_add(link_dir, &k, &f, NULL, NULL, 0, &err),
                       SB_EIO, "... for updates too");
            unlink(link_dir);
        }
        snprintf(sub, sizeof sub, "%s/open", dir);
        mkdir(sub, 0700);
        chmod(sub, 0777);
        {
            sb_profile *p = NULL;
            TAP_IS_INT(sb_profile_load(sub, &k, &p, &err), SB_EIO,
                       "a directory others may write is refused");
            tap_ok(strstr(err.text, "writable by others") != NULL,
                   "... saying so: %s", err.text);
        }
        rmdir(sub);
        snprintf(sub, sizeof sub, "%s/a/b/c", dir);
        {
            sb_profile_figures f = fig(63.5, 163.8, 2);
            TAP_IS_INT(sb_profile_add(sub, &k, &f, NULL, NULL, 0, &err),
                       SB_OK, "a missing directory is made with its "
                              "parents");
            tap_ok(stat(sub, &st) == 0 && (st.st_mode & 0777) == 0700,
                   "... 0700");
        }
    }
    reset(&k);
}

/* ---- two writers ---------------------------------------------------------- */

static void test_writers(void)
{
    sb_profile_key k = host_key();
    sb_profile_summary s;
    pid_t pid[2];
    int ok = 1;

    reset(&k);
    for (int w = 0; w < 2; w++) {
        pid[w] = fork();
        if (pid[w] == 0) {
            int bad = 0;
            for (int i = 0; i < 50; i++) {
                sb_profile_figures f =
                    fig(63.5 + 0.01 * (i % 5), 163.8 + 0.01 * w, w * 50 + i);
                if (sb_profile_add(dir, &k, &f, NULL, NULL, 0, NULL) !=
                    SB_OK)
                    bad++;
            }
            _exit(bad ? 1 : 0);
        }
    }
    for (int w = 0; w < 2; w++) {
        int status = 0;
        waitpid(pid[w], &status, 0);
        ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    tap_ok(ok, "two writers, 50 updates each, no error");
    s = summary(&k);
    TAP_IS_INT(s.seen, 100, "all 100 updates recorded");
    TAP_IS_INT(s.runs, SB_PROFILE_MAX_RUNS, "the newest 64 kept");
    tap_ok(isfinite(s.reference.level) && isfinite(s.quiet.level),
           "the file is valid after them");
    {
        char path[4200], lp[4300];
        struct stat st;
        int strays = 0;
        sb_profile_path(dir, &k, path, sizeof path, NULL);
        snprintf(lp, sizeof lp, "%s.lock", path);
        tap_ok(stat(lp, &st) == 0 && S_ISREG(st.st_mode),
               "the lock file stays beside it");
        /* No temporary file left behind. */
        {
            FILE *ls;
            char cmd[4400], line[4400];
            snprintf(cmd, sizeof cmd, "ls -a '%s'", dir);
            ls = popen(cmd, "r");
            while (ls && fgets(line, sizeof line, ls))
                if (strstr(line, ".json.") && !strstr(line, ".lock"))
                    strays++;
            if (ls)
                pclose(ls);
        }
        TAP_IS_INT(strays, 0, "no temporary file left");
    }
    reset(&k);
}

/* ---- how a profile heals -------------------------------------------------- */

static void test_heal(void)
{
    sb_profile_key k = host_key();
    sb_profile_judgement j;
    sb_profile_summary s;
    int added;

    /* A host never quiet so far: the profile holds a shared level; the
     * first quiet run is judged against it (faster, so quiet), the second
     * confirms it, and the shared runs are dropped. */
    reset(&k);
    for (int i = 0; i < 3; i++)
        add(&k, fig(65.3, 221.5 + i * 0.3, i), NULL);
    TAP_IS_REL(summary(&k).reference.level, 221.5, 1e-12,
               "a never-quiet host: the profile holds the shared level");
    TAP_IS_INT(judge(&k, fig(63.5, 163.8, 4), &j), SB_PROFILE_QUIET,
               "a faster run is quiet against it");
    add(&k, fig(63.5, 163.8, 4), &added);
    TAP_IS_INT(added, 1, "... and kept");
    TAP_IS_REL(summary(&k).reference.level, 221.5, 1e-12,
               "one faster run alone does not move the level");
    add(&k, fig(63.4, 164.1, 5), &added);
    s = summary(&k);
    TAP_IS_REL(s.reference.level, 163.8, 1e-12,
               "a second, confirming it, does");
    TAP_IS_INT(s.runs, 2, "the shared-level runs are dropped");
    tap_ok(strstr(s.note, "dropped 3 runs") != NULL, "with a note: %s",
           s.note);
    TAP_IS_INT(judge(&k, fig(65.3, 221.5, 6), &j), SB_PROFILE_SHARED,
               "the shared level is now shared");

    /* One low outlier does not pull the level down. */
    reset(&k);
    for (int i = 0; i < 5; i++)
        add(&k, fig(63.5, 163.8 + 0.1 * i, i), NULL);
    add(&k, fig(50.0, 140.0, 6), &added);
    s = summary(&k);
    TAP_IS_REL(s.reference.level, 163.8, 1e-12,
               "one low outlier (140.0) leaves the level at 163.8");
    TAP_IS_REL(s.quiet.level, 63.5, 1e-12, "... and the probe's at 63.5");
    TAP_IS_INT(judge(&k, fig(63.6, 164.0, 7), &j), SB_PROFILE_QUIET,
               "a quiet run stays quiet after it");

    /* A core slower for good: 16 consecutive runs above the profile that
     * agree, over more than a day, move it. */
    reset(&k);
    for (int i = 0; i < 5; i++)
        add(&k, fig(63.5, 163.8, i), NULL);
    for (int i = 0; i < SB_PROFILE_MOVE_RUNS - 1; i++)
        add(&k, fig(68.0 + 0.05 * (i % 3), 180.0 + 0.2 * (i % 4),
                    10 + 2 * i), NULL);
    s = summary(&k);
    TAP_IS_REL(s.reference.level, 163.8, 1e-12,
               "15 slower runs: the profile stands");
    TAP_IS_INT(s.pending, SB_PROFILE_MOVE_RUNS - 1, "15 pending");
    add(&k, fig(68.0, 180.1, 10 + 2 * 15), &added);
    s = summary(&k);
    TAP_IS_INT(added, 1, "the 16th moves it");
    TAP_IS_REL(s.reference.level, 180.0, 1e-12, "to the slower level");
    tap_ok(strstr(s.note, "moved") != NULL, "with a note: %s", s.note);
    TAP_IS_INT(judge(&k, fig(68.0, 180.2, 50), &j), SB_PROFILE_QUIET,
               "the slower core is quiet now");

    /* Not within a day: no move. */
    reset(&k);
    for (int i = 0; i < 5; i++)
        add(&k, fig(63.5, 163.8, i), NULL);
    for (int i = 0; i < 2 * SB_PROFILE_MOVE_RUNS; i++)
        add(&k, fig(68.0, 180.0, 10 + 0.5 * i), NULL);
    TAP_IS_REL(summary(&k).reference.level, 163.8, 1e-12,
               "32 slower runs within 16 hours do not move it");

    /* A host shared 75% of the time: three shared runs in four, at the
     * scattered levels a neighbour's load gives, over weeks. */
    reset(&k);
    for (int i = 0; i < 5; i++)
        add(&k, fig(63.5, 163.8, i), NULL);
    {
        int moved = 0;
        for (int i = 0; i < 400; i++) {
            int quiet = i % 4 == 3;
            double slow = 1.3 + 0.5 * ((i * 7) % 11) / 10.0;
            add(&k, quiet ? fig(63.5, 163.9, 10 + 3 * i)
                          : fig(63.5 * slow, 163.8 * slow, 10 + 3 * i),
                NULL);
            moved |= !(fabs(summary(&k).reference.level - 163.8) < 1);
        }
        TAP_IS_INT(moved, 0, "a host shared 75%% of the time never moves "
                             "it (400 runs over 50 days)");
    }
    /* ... nor a long stretch of sharing at levels that scatter. */
    reset(&k);
    for (int i = 0; i < 5; i++)
        add(&k, fig(63.5, 163.8, i), NULL);
    for (int i = 0; i < 40; i++) {
        double slow = 1.3 + 0.5 * ((i * 7) % 11) / 10.0;
        add(&k, fig(63.5 * slow, 163.8 * slow, 10 + 3 * i), NULL);
    }
    TAP_IS_REL(summary(&k).reference.level, 163.8, 1e-12,
               "40 shared runs over 5 days at scattered levels do not");
    reset(&k);
}

/* ---- the run's record ---------------------------------------------------- */

static int load(const char *path, sb_run **out, sb_error *err)
{
    FILE *f = fopen(path, "r");
    int rc;
    if (!f) {
        snprintf(err->text, sizeof err->text, "%s: %s", path,
                 strerror(errno));
        return SB_EIO;
    }
    rc = sb_run_load_new(f, path, NULL, out, err);
    fclose(f);
    return rc;
}

static void test_run(void)
{
    char a[4096], b[4096];
    sb_run *ra = NULL, *rb = NULL;
    sb_error err = {0};
    sb_profile_judgement j;
    const sb_comparison *c;
    int before;

    tap_fixture(a, sizeof a, "reanalyse_a.json");
    tap_fixture(b, sizeof b, "reanalyse_b.json");
    if (load(a, &ra, &err) != SB_OK || load(b, &rb, &err) != SB_OK) {
        tap_ok(0, "load the fixtures: %s", err.text);
        return;
    }
    /* The verdict that a shared profile must take away: one the two
     * runs' own spread decides, with no run-to-run sd assumed. */
    rb->analysis.run_sd = 0;
    TAP_IS_INT(sb_run_compare_to(rb, ra, NULL, &err), SB_OK, "compare");
    c = sb_run_comparison(rb, 0);
    before = c ? (int)c->verdict : -1;
    tap_ok(before != SB_VERDICT_INCONCLUSIVE && before >= 0,
           "before: a verdict (%s)", sb_verdict_name(before));
    tap_ok(c && !c->withheld, "before: not withheld");
    memset(&j, 0, sizeof j);
    j.size = sizeof j;
    j.state = SB_PROFILE_SHARED;
    snprintf(j.line, sizeof j.line, "profile: measured on a shared core\x1b");
    TAP_IS_INT(sb_run_set_profile(rb, &j, &err), SB_OK, "set the verdict");
    TAP_IS_INT(sb_run_meta(rb)->profile_shared, 1, "recorded as shared");
    TAP_IS_STR(sb_run_meta(rb)->profile,
               "profile: measured on a shared core?",
               "the line recorded, cleaned");
    c = sb_run_comparison(rb, 0);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
               "the comparison made before is inconclusive");
    tap_ok(c && c->withheld, "  and marked withheld");
    TAP_IS_INT(sb_run_compare_to(rb, ra, NULL, &err), SB_OK, "again");
    c = sb_run_comparison(rb, 0);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
               "a comparison made after is inconclusive");
    tap_ok(c && c->withheld, "  and marked withheld");
    TAP_IS_INT(sb_run_compare_to(ra, rb, NULL, &err), SB_OK,
               "the other way round");
    c = sb_run_comparison(ra, 0);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
               "against a shared run: inconclusive");
    TAP_IS_INT(sb_run_baseline_by(rb, "libc", 0, NULL, &err), SB_OK,
               "a baseline within the run");
    c = sb_run_comparison(rb, 1);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
               "within a shared run: inconclusive");
    {
        /* Saved and read back, the verdict stays. */
        char out[4200];
        sb_run *back = NULL;
        FILE *f;
        snprintf(out, sizeof out, "%s/shared.json", dir);
        f = fopen(out, "w");
        sb_report(rb, SB_FORMAT_JSON, f, &err);
        fclose(f);
        TAP_IS_INT(load(out, &back, &err), SB_OK,
                   "saved and loaded");
        TAP_IS_INT(back ? sb_run_meta(back)->profile_shared : -1, 1,
                   "profile_shared read back");
        TAP_IS_INT(sb_run_compare_to(back, ra, NULL, &err), SB_OK,
                   "compared");
        c = sb_run_comparison(back, 0);
        TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
                   "a loaded shared run's verdicts are inconclusive");
        sb_run_free(back);
        unlink(out);
    }
    TAP_IS_INT(sb_run_meta(ra)->profile_shared, 0,
               "an older file: not judged");
    TAP_IS_STR(sb_run_meta(ra)->profile, "", "... no line");
    tap_ok(isnan(sb_run_meta(ra)->reference_cycles),
           "... reference unknown");
    sb_run_free(ra);
    sb_run_free(rb);
}

/* ---- sb_gate with a profile ---------------------------------------------- */

static void copy_fn(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memcpy(dst, src, n);
}

/* copy_fn against itself under m, the run kept in *run: checks "what
 * with a profile" exits SB_OK, and says whether it did. */
static int compared(const sb_measure_options *m, sb_comparison *c,
                    sb_run **run, sb_error *err, const char *what)
{
    int rc = sb_compare_functions(copy_fn, copy_fn, 4096, m, NULL, c, run,
                                  err);
    TAP_IS_INT(rc, SB_OK, "%s with a profile (%s)", what, err->text);
    return rc == SB_OK;
}

/* Whether run's contention probe read core cycles: a figure a profile
 * can judge. */
static int core_cycles_probe(const sb_run *run)
{
    return isfinite(sb_run_meta(run)->contention_quiet) &&
           strcmp(sb_run_meta(run)->probe, "none") != 0;
}

static void test_gate(void)
{
    char gdir[4200], path[4200], *text;
    sb_measure_options m;
    sb_comparison c = {.size = sizeof c};
    sb_run *run = NULL;
    sb_profile_key key = {.size = sizeof key};
    sb_error err = {0};
    int outcome = -1, rc;

    snprintf(gdir, sizeof gdir, "%s/gate", dir);
    sb_measure_options_init(&m);
    m.max_time = 1.5 * tap_time_scale(); /* longer under emulation */
    m.invocations = 2;
    m.profile_dir = gdir;
    if (!compared(&m, &c, &run, &err, "sb_compare_functions"))
        return;
    tap_ok(strstr(sb_run_meta(run)->profile, "none yet") != NULL,
           "its first run: no profile yet (%s)", sb_run_meta(run)->profile);
    sb_profile_key_from_meta(sb_run_meta(run), &key, NULL);
    if (!core_cycles_probe(run)) {
        skip_gate:
        tap_skip("no contention probe in core cycles here");
        sb_run_free(run);
        return;
    }
    sb_run_free(run);
    run = NULL;
    /* The profile made far faster than this core: the next gate's run
     * was measured on a shared core according to it. */
    sb_profile_path(gdir, &key, path, sizeof path, NULL);
    text = read_text(path);
    if (!text || !strstr(text, "\"contention_quiet\": "))
        goto skip_gate;
    {
        json_t *root = json_loads(text, 0, NULL), *r0, *runs;
        char *dump;
        runs = json_object_get(root, "runs");
        r0 = json_array_get(runs, 0);
        json_object_set_new(r0, "contention_quiet", json_real(1.0));
        json_object_set_new(r0, "reference_cycles", json_null());
        dump = json_dumps(root, 0);
        write_text(path, dump);
        free(dump);
        json_decref(root);
    }
    /* sb_gate's comparison (sb_gate is sb_compare_functions and
     * sb_gate_judge), with the run kept: a run whose own contention probe
     * is not in core cycles (its start-up check failed on a busy core)
     * has no figure the profile can judge, whatever the profile holds, so
     * this run proves nothing either way. */
    if (!compared(&m, &c, &run, &err, "sb_gate's comparison"))
        return;
    if (!core_cycles_probe(run)) {
        tap_skip("this run's contention probe is not in core cycles: "
                 "nothing for the profile to judge");
        sb_run_free(run);
        return;
    }
    sb_run_free(run);
    run = NULL;
    TAP_IS_INT((int)c.verdict, SB_VERDICT_INCONCLUSIVE,
               "sb_gate on a shared core by the profile: inconclusive");
    tap_ok(c.withheld, "... the verdict withheld, not short of evidence");
    {
        sb_profile_summary s = {.size = sizeof s};
        sb_profile *p = NULL;
        sb_profile_load(gdir, &key, &p, NULL);
        sb_profile_summarize(p, &s, NULL);
        sb_profile_free(p);
        TAP_IS_INT(s.runs, 1, "... its run not kept");
        TAP_IS_INT(s.pending, 1, "... but counted towards a move");
    }
    write_text(path, "{");
    rc = sb_gate(copy_fn, copy_fn, 4096, &m, NULL, &c, &outcome, &err);
    TAP_IS_INT(rc, SB_EIO, "sb_gate refuses a corrupt profile");
    TAP_IS_INT(outcome, SB_GATE_FAIL, "... and fails the gate");
}

/* ---- the recorded EPYC runs ---------------------------------------------- */

typedef struct amd_run {
    sb_profile_key key;
    sb_profile_figures f;
    double lo, hi;
} amd_run;

static int amd_load(int i, amd_run *r)
{
    char name[64], path[4096];
    json_t *root, *meta, *probes, *cell, *cc;
    json_error_t je;

    snprintf(name, sizeof name, "amd/libc-4k-run%d.json", i);
    tap_fixture(path, sizeof path, name);
    root = json_load_file(path, 0, &je);
    if (!root)
        return -1;
    meta = json_object_get(root, "meta");
    probes = json_object_get(meta, "probes");
    cell = json_array_get(json_object_get(root, "cells"), 0);
    cc = json_object_get(cell, "core_cycles");
    memset(r, 0, sizeof *r);
    r->key.size = sizeof r->key;
    r->f.size = sizeof r->f;
    /* The key as those runs' metadata give it: they predate the microcode
     * and the probe's name, which are then "" for all ten alike. */
    snprintf(r->key.hostname, sizeof r->key.hostname, "%s",
             json_string_value(json_object_get(meta, "hostname")));
    snprintf(r->key.cpu_model, sizeof r->key.cpu_model, "%s",
             json_string_value(json_object_get(meta, "cpu_model")));
    r->key.probe_ldst_reps =
        (size_t)json_integer_value(json_object_get(probes, "contention_reps"));
    r->f.contention_quiet =
        json_number_value(json_object_get(probes, "contention_quiet"));
    /* The cell is a hot 4 KiB libc memcpy in core cycles: what the
     * reference copy measures, standing in for it. */
    r->f.reference_cycles = json_number_value(json_object_get(cc, "estimate"));
    r->lo = json_number_value(json_object_get(cc, "lo"));
    r->hi = json_number_value(json_object_get(cc, "hi"));
    snprintf(r->f.time, sizeof r->f.time, "%s",
             json_string_value(json_object_get(meta, "start_time")));
    json_decref(root);
    return 0;
}

static void test_amd(void)
{
    amd_run r[11];
    int loaded = 1;

    for (int i = 1; i <= 10; i++)
        loaded &= amd_load(i, &r[i]) == 0;
    if (!tap_ok(loaded, "the ten recorded EPYC runs (tests/fixtures/amd)"))
        return;
    for (int i = 1; i <= 10; i++) {
        sb_profile_judgement j;
        sb_profile_key k = r[i].key;
        reset(&k);
        /* A profile of the other nine, in the order they were measured. */
        for (int o = 1; o <= 10; o++)
            if (o != i)
                add(&k, r[o].f, NULL);
        judge(&k, r[i].f, &j);
        tap_diag("run %d: reference %.1f [%.1f, %.1f] against %.1f "
                 "(%+.1f%%, margin %.1f%%); probe %.2f against %.2f "
                 "(%+.1f%%, margin %.1f%%): %s",
                 i, r[i].f.reference_cycles, r[i].lo, r[i].hi,
                 j.reference_level, 100 * j.reference_excess,
                 100 * j.reference_margin, r[i].f.contention_quiet,
                 j.quiet_level, 100 * j.quiet_excess, 100 * j.quiet_margin,
                 sb_profile_state_name(j.state));
        TAP_IS_INT(j.state, i == 10 ? SB_PROFILE_SHARED : SB_PROFILE_QUIET,
                   "EPYC run %d against a profile of the others: %s", i,
                   i == 10 ? "shared" : "quiet");
        if (i == 10)
            tap_ok(strstr(j.line, "measured on a shared core") != NULL,
                   "run 10's line: %s", j.line);
        reset(&k);
    }
}

/* ---- sizes ---------------------------------------------------------------- */

/* Each struct of the profile API of a size the library does not know is
 * refused naming the struct and the size, and nothing is written to a
 * struct the library would fill. */
static void test_sizes(void)
{
    const size_t bad[] = {0, sizeof(size_t), sizeof(sb_profile_key) + 8};
    sb_profile_key k = host_key();
    sb_profile_figures f = fig(63.5, 163.8, 0);
    sb_profile *p = NULL, *q = NULL;
    sb_error err = {0};
    sb_meta *m = calloc(1, sizeof *m);
    char path[4200];

    if (!tap_ok(m && sb_profile_load(dir, &k, &p, &err) == SB_OK,
                "sizes: a profile to read (%s)", err.text)) {
        free(m);
        return;
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        union {
            sb_profile_key k;
            sb_profile_figures f;
            sb_profile_summary s;
            sb_profile_judgement j;
        } out, before;
        sb_profile_key kb = k;
        sb_profile_figures fb = f;
        size_t n = 9;

        memset(&out, 0x5a, sizeof out);
        memcpy(&out, &bad[i], sizeof bad[i]);
        before = out;
        snprintf(want, sizeof want, "sb_profile_key.size %zu", bad[i]);
        tap_ok(sb_profile_key_from_meta(m, &out.k, &err) == SB_EINVAL &&
                   strstr(err.text, want) &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: key_from_meta refuses %s, writing nothing", want);
        tap_ok(sb_profile_key_this_host(&out.k, &err) == SB_EINVAL &&
                   strstr(err.text, want) &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: key_this_host refuses %s, writing nothing", want);
        tap_ok(sb_profile_find(dir, &k, &out.k, 1, &n, &err) == SB_EINVAL &&
                   strstr(err.text, want) && n == 0 &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: find refuses keys[0] of %s, writing nothing", want);
        kb.size = bad[i];
        tap_ok(sb_profile_path(dir, &kb, path, sizeof path, &err) ==
                       SB_EINVAL &&
                   strstr(err.text, want),
               "sizes: path refuses a key of %s", want);
        tap_ok(sb_profile_load(dir, &kb, &q, &err) == SB_EINVAL &&
                   strstr(err.text, want) && q == NULL,
               "sizes: load refuses a key of %s", want);
        snprintf(want, sizeof want, "sb_profile_figures.size %zu", bad[i]);
        tap_ok(sb_profile_figures_from_meta(m, &out.f, &err) == SB_EINVAL &&
                   strstr(err.text, want) &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: figures_from_meta refuses %s, writing nothing", want);
        fb.size = bad[i];
        tap_ok(sb_profile_add(dir, &k, &fb, NULL, NULL, 0, &err) ==
                       SB_EINVAL &&
                   strstr(err.text, want),
               "sizes: add refuses figures of %s", want);
        snprintf(want, sizeof want, "sb_profile_summary.size %zu", bad[i]);
        tap_ok(sb_profile_summarize(p, &out.s, &err) == SB_EINVAL &&
                   strstr(err.text, want) &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: summarize refuses %s, writing nothing (%s)", want,
               err.text);
        snprintf(want, sizeof want, "sb_profile_judgement.size %zu", bad[i]);
        tap_ok(sb_profile_judge(p, &f, &out.j, &err) == SB_EINVAL &&
                   strstr(err.text, want) &&
                   !memcmp(&out, &before, sizeof out),
               "sizes: judge refuses %s, writing nothing", want);
    }
    {
        /* Each struct's own size plus 8: a layout from a newer header,
         * which the library cannot fill. */
        sb_profile_figures fo;
        sb_profile_summary so;
        sb_profile_judgement jo;
        char want[64];
        fo.size = sizeof fo + 8;
        snprintf(want, sizeof want, "sb_profile_figures.size %zu", fo.size);
        tap_ok(sb_profile_figures_from_meta(m, &fo, &err) == SB_EINVAL &&
                   strstr(err.text, want),
               "sizes: figures_from_meta refuses %s", want);
        so.size = sizeof so + 8;
        snprintf(want, sizeof want, "sb_profile_summary.size %zu", so.size);
        tap_ok(sb_profile_summarize(p, &so, &err) == SB_EINVAL &&
                   strstr(err.text, want),
               "sizes: summarize refuses %s", want);
        jo.size = sizeof jo + 8;
        snprintf(want, sizeof want, "sb_profile_judgement.size %zu",
                 jo.size);
        tap_ok(sb_profile_judge(p, &f, &jo, &err) == SB_EINVAL &&
                   strstr(err.text, want),
               "sizes: judge refuses %s", want);
    }
    {
        /* find steps over the array by keys[0].size, whatever the
         * other elements' size fields held. */
        sb_profile_key keys[2];
        size_t n = 0;
        memset(keys, 0, sizeof keys);
        keys[0].size = sizeof keys[0];
        add(&k, f, NULL);
        tap_ok(sb_profile_find(dir, &k, keys, 2, &n, &err) == SB_OK &&
                   n >= 1 && keys[0].size == sizeof keys[0] &&
                   !strcmp(keys[0].hostname, k.hostname),
               "sizes: find fills keys of the size of keys[0] (%s)",
               err.text);
    }
    sb_profile_free(p);
    free(m);
}

/* ---- a verdict beyond what the sharing could explain --------------------- */

/* A run of three libc cells whose medians stand at 1 : factor[1] :
 * factor[2] (200 ticks apart in every invocation, so that each ratio's
 * interval is tight), analysed, each cell compared within the run with
 * cell base[i]. */
static sb_run *bound_run(const double factor[3], const size_t base[3])
{
    sb_run *run = synth_libc_cells(3, 1e9, "imul-chain");
    synth_inv v = {0};
    uint64_t seed = 17;
    double p[SB_PROBE_READINGS] = {0};
    sb_error err = {0};

    if (!run)
        return NULL;
    for (size_t g = 0; g < 8; g++)
        for (size_t i = 0; i < 3; i++) {
            for (int k = 0; k < 40; k++)
                synth_sample(&v, 0,
                             1e4 * factor[i] * (1 + 0.002 * uniform(&seed)),
                             NAN, 0, p);
            if (synth_add(run, i, &v, 0) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    if (!(run = synth_analysed(run, 8)))
        return NULL;
    if (sb_run_set_baselines(run, base, &err) != SB_OK) {
        tap_diag("baselines: %s", err.text);
        sb_run_free(run);
        return NULL;
    }
    return run;
}

/* run judged shared by a profile whose probe read excess above its
 * quiet level. */
static void judged_shared(sb_run *run, double excess)
{
    sb_profile_judgement j;

    memset(&j, 0, sizeof j);
    j.size = sizeof j;
    j.state = SB_PROFILE_SHARED;
    j.quiet_excess = excess;
    j.reference_excess = NAN;
    snprintf(j.line, sizeof j.line, "profile: measured on a shared core");
    sb_run_set_profile(run, &j, NULL);
}

static void test_bound(void)
{
    /* Cell 1 three times cell 0's time, cell 2 1.5 times; then cell 0
     * against cell 1 (a third: faster). */
    const double factor[3] = {1, 3, 1.5};
    const size_t base[3] = {1, 0, 0};
    sb_run *run = bound_run(factor, base), *back = NULL;
    const sb_comparison *c;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    sb_error err = {0};

    if (!run) {
        tap_ok(0, "a run of three cells");
        return;
    }
    c = sb_run_comparison(run, 1);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_SLOWER,
               "bound: 3x slower, before any profile");
    tap_ok(c && isnan(c->shared_bound), "  with no bound");
    /* The probe read 90% slow: a ratio could have moved by 1.9x. */
    judged_shared(run, 0.9);
    TAP_IS_REL(sb_run_meta(run)->profile_bound, 1.9, 1e-12,
               "bound: the run's bound is 1 + the probe's excess");
    c = sb_run_comparison(run, 1);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_SLOWER,
               "bound: 3x slower on a 1.9x shared core: kept");
    tap_ok(c && !c->withheld && c->shared_bound == 1.9,
           "  not withheld, its bound recorded (%g)",
           c ? c->shared_bound : NAN);
    {
        char line[512];
        TAP_IS_INT(sb_gate_judge(c, NULL, "x", NULL, line, sizeof line),
                   SB_GATE_FAIL, "bound: the kept verdict fails the gate");
        tap_ok(strstr(line, "beyond what the shared core could explain") !=
                   NULL,
               "  saying what it had to beat: %s", line);
    }
    c = sb_run_comparison(run, 2);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_INCONCLUSIVE,
               "bound: 1.5x slower on a 1.9x shared core: inconclusive");
    tap_ok(c && c->withheld && isnan(c->shared_bound), "  and withheld");
    c = sb_run_comparison(run, 0);
    TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_FASTER,
               "bound: a third of the time on a 1.9x shared core: kept");
    /* Saved and read back, the baselines set again: the same verdicts. */
    f = open_memstream(&text, &len);
    if (!f || sb_report(run, SB_FORMAT_JSON, f, &err) != SB_OK) {
        tap_ok(0, "bound: write the run: %s", err.text);
        if (f)
            fclose(f);
        free(text);
        sb_run_free(run);
        return;
    }
    fclose(f);
    tap_ok(strstr(text, "\"shared_bound\": 1.9") != NULL,
           "bound: the JSON records the kept verdict's bound");
    {
        char *page = NULL;
        size_t plen = 0;
        FILE *h = open_memstream(&page, &plen);
        int rc = h ? sb_report(run, SB_FORMAT_HTML, h, &err) : SB_ENOMEM;
        if (h)
            fclose(h);
        tap_ok(rc == SB_OK && page &&
                   strstr(page, "kept on a shared core: beyond the 1.9x") &&
                   strstr(page, "withheld: a run was measured on a shared"),
               "bound: the HTML page says which verdict was kept and which "
               "withheld");
        free(page);
    }
    f = fmemopen(text, len, "r");
    if (f && sb_run_load_new(f, "bound.json", NULL, &back, &err) == SB_OK &&
        sb_run_set_baselines(back, base, &err) == SB_OK) {
        TAP_IS_REL(sb_run_meta(back)->profile_bound, 1.9, 1e-12,
                   "bound: loaded with the run");
        c = sb_run_comparison(back, 1);
        TAP_IS_INT(c ? (int)c->verdict : -1, SB_VERDICT_SLOWER,
                   "bound: loaded, 3x slower is kept");
        c = sb_run_comparison(back, 2);
        tap_ok(c && c->withheld, "bound: loaded, 1.5x is withheld");
    } else {
        tap_ok(0, "bound: load the run back: %s", err.text);
    }
    if (f)
        fclose(f);
    free(text);
    sb_run_free(back);
    /* A probe 3.5x slow could explain a 3x ratio. */
    judged_shared(run, 2.5);
    c = sb_run_comparison(run, 1);
    tap_ok(c && c->verdict == SB_VERDICT_INCONCLUSIVE && c->withheld,
           "bound: 3x slower on a 3.5x shared core: withheld");
    /* Without a probe figure, nothing bounds the sharing. */
    judged_shared(run, NAN);
    tap_ok(isnan(sb_run_meta(run)->profile_bound),
           "bound: none without the probe's figure");
    c = sb_run_comparison(run, 1);
    tap_ok(c && c->verdict == SB_VERDICT_INCONCLUSIVE && c->withheld,
           "bound: 3x slower with no bound: withheld");
    sb_run_free(run);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[2048];

    umask(022);
    snprintf(tmpl, sizeof tmpl, "%s/sb_profile.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) {
        tap_ok(0, "mkdtemp: %s", strerror(errno));
        return tap_done();
    }
    /* The profile directory does not exist yet: the first run makes it. */
    snprintf(dir, sizeof dir, "%s/state/statbench", tmpl);
    TAP_IS_STR(sb_profile_state_name(SB_PROFILE_SHARED), "shared",
               "state names");
    TAP_IS_INT(sb_profile_state_parse("quiet"), SB_PROFILE_QUIET,
               "state parse");
    test_life();
    test_hostile();
    test_writers();
    test_heal();
    test_run();
    test_bound();
    test_gate();
    test_amd();
    test_sizes();
    {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
        if (system(cmd) != 0)
            tap_diag("could not remove %s", tmpl);
    }
    return tap_done();
}
