/*
 * profile.c: the host profile, the quiet figures of this host's recent
 * runs kept across runs, and the judgement of a run against them
 * (statbench.h, "The host profile"; README, "The host profile").  This
 * file holds its update: the heal rules that add a run, hold it pending
 * or move the profile, and the file written and reset under its lock.
 * The key, the path and the checked reading are in profile_file.c, the
 * levels and the judgement in profile_judge.c, this host's profiles and
 * their description in profile_host.c (profile_internal.h).
 *
 * A run spent entirely on a shared core cannot tell from inside: its
 * contention probe's quiet level is the shared one.  Across runs it can:
 * the profile holds the lowest credible quiet figures of the core, and a
 * run whose figures sit above them by more than the profile's own
 * scatter allows was measured on a shared core.
 *
 * The file is hostile input: every field is checked, a foreign key
 * refused, and nothing is followed or written through but a regular file
 * of the user's own directory.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "profile_internal.h"
#include "run_internal.h"

/* ---- Writing -------------------------------------------------------------- */

/* The lock beside the file, taken exclusively: SB_OK with *fd set. */
static int lock(const char *path, int *fd, sb_error *err)
{
    char lp[4200];
    struct stat st;
    int f;

    snprintf(lp, sizeof lp, "%s.lock", path);
    f = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                     O_NOCTTY,
             0600);
    if (f < 0)
        return errno == ELOOP
                   ? sb__profile_refuse(
                         err, lp, "a symbolic link (refused, never followed)")
                   : sb__profile_refuse(err, lp, "cannot be opened (%s)",
                                        strerror(errno));
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid()) {
        close(f);
        return sb__profile_refuse(
            err, lp, "not a regular file of this user's (refused)");
    }
    while (flock(f, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int e = errno;
            close(f);
            return sb__error(err, SB_ESYS, "host profile: cannot lock (%s)",
                             strerror(e));
        }
    }
    *fd = f;
    return SB_OK;
}

static json_t *entries_json(const entry *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        json_t *o = json_object();
        if (!o) {
            json_decref(a);
            return NULL;
        }
        json_object_set_new(o, "time", json_string(e[i].time));
        json_object_set_new(o, "contention_quiet",
                            sb__profile_figure_ok(e[i].quiet)
                                ? json_real(e[i].quiet)
                                : json_null());
        json_object_set_new(o, "reference_cycles",
                            sb__profile_figure_ok(e[i].ref)
                                ? json_real(e[i].ref)
                                : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

/* p as JSON to a new file beside p->path, renamed over it. */
static int write_file(const sb_profile *p, sb_error *err)
{
    json_t *root = json_object(), *key = json_object();
    char tmp[4200], *text;
    struct stat st;
    size_t len, done = 0;
    int fd, ok = 1;

    if (!root || !key) {
        json_decref(root);
        json_decref(key);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    json_object_set_new(key, "hostname", json_string(p->key.hostname));
    json_object_set_new(key, "cpu_model", json_string(p->key.cpu_model));
    json_object_set_new(key, "microcode", json_string(p->key.microcode));
    json_object_set_new(key, "online_cpus",
                        json_integer((json_int_t)p->key.online_cpus));
    json_object_set_new(key, "contention_probe",
                        json_string(p->key.contention_probe));
    json_object_set_new(key, "probe_ldst_reps",
                        json_integer((json_int_t)p->key.probe_ldst_reps));
    json_object_set_new(root, "schema", json_string(SCHEMA));
    json_object_set_new(root, "version", json_integer(PROFILE_VERSION));
    json_object_set_new(root, "key", key);
    json_object_set_new(root, "runs", entries_json(p->runs, p->n));
    json_object_set_new(root, "pending", entries_json(p->pend, p->npend));
    json_object_set_new(root, "seen", json_integer((json_int_t)p->seen));
    json_object_set_new(root, "note", json_string(p->note));
    text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(root);
    /* json_string of a string that is not UTF-8 is NULL: the key's
     * strings come from a live run's metadata, which the writers clean
     * the same way, so this is a failure to write, never a shortened
     * key. */
    if (!text)
        return sb__error(err, SB_ENOMEM,
                         "host profile: cannot make its JSON (out of "
                         "memory, or a key string not UTF-8)");
    /* What is there must be a regular file to replace: a FIFO, device or
     * link put in its place is refused, not written to nor replaced. */
    if (lstat(p->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(text);
        return sb__profile_refuse(
            err, p->path,
            "not a regular file (a link, FIFO or device: "
            "refused)");
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", p->path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(text);
        return sb__error(err, SB_ESYS,
                         "host profile: cannot write beside it (%s)",
                         strerror(e));
    }
    len = strlen(text);
    while (ok && done < len) {
        ssize_t r = write(fd, text + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            ok = 0;
        else
            done += (size_t)r;
    }
    free(text);
    if (ok && (write(fd, "\n", 1) != 1 || fsync(fd) != 0))
        ok = 0;
    if (close(fd) != 0)
        ok = 0;
    if (!ok || rename(tmp, p->path) != 0) {
        int e = errno;
        unlink(tmp);
        return sb__error(err, SB_ESYS, "host profile: cannot write it (%s)",
                         strerror(e));
    }
    return SB_OK;
}

/* Drop the kept runs a figure of which sits above its level by more than
 * the margin: they were kept while the profile knew only a shared level.
 * Returns how many. */
static size_t purge(sb_profile *p, double *level_ref, double *level_q)
{
    size_t dropped = 0;
    for (int it = 0; it < 8; it++) {
        sb_profile_figure q, r;
        size_t k = 0, before = p->n;
        sb__profile_figure_of(p->runs, p->n, 0, &q);
        sb__profile_figure_of(p->runs, p->n, 1, &r);
        *level_q = q.level;
        *level_ref = r.level;
        for (size_t i = 0; i < p->n; i++) {
            const entry *e = &p->runs[i];
            int high = (sb__profile_figure_ok(e->quiet) && isfinite(q.level) &&
                        e->quiet > q.level * (1 + q.margin)) ||
                       (sb__profile_figure_ok(e->ref) && isfinite(r.level) &&
                        e->ref > r.level * (1 + r.margin));
            if (!high)
                p->runs[k++] = *e;
        }
        p->n = k;
        dropped += before - k;
        if (k == before)
            break;
    }
    return dropped;
}

/* Whether the pending runs agree among themselves within the floor, on
 * every figure they have, and span the hours a move asks for. */
static int pending_move(const sb_profile *p, double *hours)
{
    long long t0 = -1, t1 = -1;
    *hours = 0;
    if (p->npend < SB_PROFILE_MOVE_RUNS)
        return 0;
    for (int ref = 0; ref < 2; ref++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < p->npend; i++) {
            double x = sb__profile_value_of(&p->pend[i], ref);
            if (sb__profile_figure_ok(x)) {
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
        }
        if (hi >= lo && hi / lo - 1 > FLOOR)
            return 0;
    }
    for (size_t i = 0; i < p->npend; i++) {
        long long t = sb__profile_iso_seconds(p->pend[i].time);
        if (t < 0)
            return 0;
        if (t0 < 0 || t < t0)
            t0 = t;
        if (t > t1)
            t1 = t;
    }
    *hours = (double)(t1 - t0) / 3600.0;
    return *hours >= SB_PROFILE_MOVE_HOURS;
}

static void say(char *note, size_t len, const char *fmt, ...)
    SB__PRINTF(3, 4);
static void say(char *note, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (!note || !len)
        return;
    va_start(ap, fmt);
    vsnprintf(note, len, fmt, ap);
    va_end(ap);
}

/* The run's entry: its figures of the core (NAN where it has none) and
 * its time, which must be UTC ISO 8601. */
static int entry_from(const sb_profile_figures *f, entry *e, sb_error *err)
{
    e->quiet =
        sb__profile_figure_ok(f->contention_quiet) ? f->contention_quiet : NAN;
    e->ref =
        sb__profile_figure_ok(f->reference_cycles) ? f->reference_cycles : NAN;
    if (sb__profile_iso_seconds(f->time) < 0)
        return sb__error(err, SB_EINVAL,
                         "sb_profile_add: the run's time is not UTC ISO "
                         "8601 (\"2026-12-01T19:06:09Z\")");
    snprintf(e->time, sizeof e->time, "%s", f->time);
    return SB_OK;
}

/* A run judged as on a shared core: pending, the oldest pending run
 * dropped to make room, and when the pending runs agree long enough the
 * profile moves to them (*added then). */
static void add_pending(sb_profile *p, const entry *e, int *added,
                        char *note, size_t len)
{
    double hours;

    if (p->npend == SB_PROFILE_MOVE_RUNS) {
        memmove(p->pend, p->pend + 1, (p->npend - 1) * sizeof *e);
        p->npend--;
    }
    p->pend[p->npend++] = *e;
    if (pending_move(p, &hours)) {
        sb_profile_figure r0, q0, r1, q1;
        sb__profile_figure_of(p->runs, p->n, 1, &r0);
        sb__profile_figure_of(p->runs, p->n, 0, &q0);
        memcpy(p->runs, p->pend, p->npend * sizeof *e);
        p->n = p->npend;
        p->npend = 0;
        sb__profile_figure_of(p->runs, p->n, 1, &r1);
        sb__profile_figure_of(p->runs, p->n, 0, &q1);
        snprintf(p->note, sizeof p->note,
                 "moved to the last %d runs, over %.0f hours, which "
                 "agreed above it: reference %.1f (was %.1f), probe "
                 "%.2f (was %.2f); a slower core for good",
                 SB_PROFILE_MOVE_RUNS, hours, r1.level, r0.level,
                 q1.level, q0.level);
        say(note, len, "%s", p->note);
        if (added)
            *added = 1;
    } else {
        say(note, len,
            "not added: measured on a shared core (%zu of %d "
            "consecutive runs above the profile that would move it)",
            p->npend, SB_PROFILE_MOVE_RUNS);
    }
}

/* A run judged as quiet enough: added, the oldest run dropped to make
 * room, the pending runs forgotten, and the runs above the new level
 * purged. */
static void add_run(sb_profile *p, const entry *e, int *added, char *note,
                    size_t len)
{
    double lr, lq;
    size_t dropped;

    if (p->n == SB_PROFILE_MAX_RUNS) {
        memmove(p->runs, p->runs + 1, (p->n - 1) * sizeof *e);
        p->n--;
    }
    p->runs[p->n++] = *e;
    p->npend = 0;
    dropped = purge(p, &lr, &lq);
    if (dropped) {
        snprintf(p->note, sizeof p->note,
                 "dropped %zu runs above the new level (reference "
                 "%.1f, probe %.2f): kept while it knew only a shared "
                 "core's",
                 dropped, lr, lq);
        say(note, len, "added; %s", p->note);
    } else {
        say(note, len, "added: the profile rests on %zu runs", p->n);
    }
    if (added)
        *added = 1;
}

int sb_profile_add(const char *dir, const sb_profile_key *key,
                   const sb_profile_figures *f, int *added, char *note,
                   size_t len, sb_error *err)
{
    sb_profile *p;
    sb_profile_judgement j;
    sb_profile_figures own;
    entry e;
    int rc, fd = -1;

    if (added)
        *added = 0;
    say(note, len, "%s", "");
    if (!f)
        return sb__error(err, SB_EINVAL, "sb_profile_add: f is NULL");
    if ((rc = sb__profile_figures_get(f, &own, "sb_profile_add", err)) !=
        SB_OK)
        return rc;
    f = &own;
    if ((rc = sb__profile_make(dir, key, &p, "sb_profile_add", err)) != SB_OK)
        return rc;
    if ((rc = entry_from(f, &e, err)) != SB_OK) {
        free(p);
        return rc;
    }
    if (!sb__profile_figure_ok(e.quiet) && !sb__profile_figure_ok(e.ref)) {
        say(note, len, "not added: the run has no figure of the core (no "
                       "core clock, no reference copy)");
        free(p);
        return SB_OK;
    }
    if ((rc = sb__profile_check_dir(dir, 1, err)) != SB_OK ||
        (rc = lock(p->path, &fd, err)) != SB_OK) {
        free(p);
        return rc;
    }
    /* Read again under the lock: another process may have added since
     * this one loaded the profile, and its run must not be lost. */
    if ((rc = sb__profile_read_file(p, err)) != SB_OK)
        goto out;
    sb__profile_judge(p, f, &j);
    p->seen++;
    if (j.state == SB_PROFILE_SHARED)
        add_pending(p, &e, added, note, len);
    else
        add_run(p, &e, added, note, len);
    rc = write_file(p, err);
out:
    /* Closing the lock file releases the lock. */
    close(fd);
    free(p);
    return rc;
}

int sb_profile_reset(const char *dir, const sb_profile_key *key,
                     int *removed, sb_error *err)
{
    sb_profile *p;
    struct stat st;
    int rc, fd = -1;

    if (removed)
        *removed = 0;
    if ((rc = sb__profile_make(dir, key, &p, "sb_profile_reset", err)) !=
        SB_OK)
        return rc;
    rc = sb__profile_check_dir(dir, 0, err);
    if (rc != 0) {
        free(p);
        return rc < 0 ? rc : SB_OK; /* no directory: nothing to reset */
    }
    if ((rc = lock(p->path, &fd, err)) != SB_OK) {
        free(p);
        return rc;
    }
    if (lstat(p->path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            rc = sb__profile_refuse(
                err, p->path,
                "not a regular file (a link, FIFO or device: "
                "refused, not removed)");
        else if (unlink(p->path) != 0)
            rc = sb__error(err, SB_ESYS, "host profile: cannot remove it "
                                         "(%s)",
                           strerror(errno));
        else if (removed)
            *removed = 1;
    }
    close(fd);
    free(p);
    return rc;
}
