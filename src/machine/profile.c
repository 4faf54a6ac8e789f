/*
 * profile.c: the host profile, the quiet figures of this host's recent
 * runs kept across runs, and the judgement of a run against them
 * (statbench.h, "The host profile"; README, "The host profile").
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "arch/arch.h"
#include "probe.h"
#include "run_internal.h"
#include "sysinfo.h"
#include "text.h"

#define SCHEMA "statbench-profile"
#define PROFILE_VERSION 1
/* 64 runs of three fields are some 10 KiB: anything near a megabyte is
 * not a profile. */
#define MAX_FILE (1 << 20)
/* A figure outside (0, 1e7) core cycles is no measurement of a 4 KiB
 * copy or of 32 repetitions of 128 L1 accesses. */
#define MAX_FIGURE 1e7

/* Why 3% at least.  A shared core slowed the copies beside flagged
 * samples by 7% on the smallest stretch seen, and whole runs by 30-80%
 * (the EPYC guest's libc 4 KiB: 221.5 against 163.7-164.5 core cycles);
 * quiet runs of one host scatter far less: 0.5% for that copy over nine
 * runs, 1.2% for the contention probe's quiet level there, 0.25% on the
 * Xeon guest.  3% is above every quiet scatter seen by more than twice
 * and under half the smallest shared slowdown; a host that scatters more
 * widens its own margin through its spread (below). */
#define FLOOR SB_PROFILE_MARGIN_FLOOR
/* Two runs confirm each other within half the floor: quiet runs of one
 * core agree that closely (above), one misread clock (an invocation's
 * level 17% low was seen) does not. */
#define CONFIRM (FLOOR / 2)
/* The margin is three spreads: the spread is a median distance above
 * the level, so about half the quiet runs lie within one spread and a
 * quiet run beyond three is rare, while a shared one is far beyond. */
#define SPREAD_TIMES 3.0

typedef struct entry {
    double quiet, ref; /* NAN unknown */
    char time[32];
} entry;

struct sb_profile {
    char path[4096];
    sb_profile_key key;
    size_t n, npend, seen;
    entry runs[SB_PROFILE_MAX_RUNS];
    entry pend[SB_PROFILE_MOVE_RUNS];
    char note[256];
};

/* ---- Key, figures, names ------------------------------------------------ */

/* The one layout of each struct so far: a size this library knows. */
static const size_t key_sizes[] = {sizeof(sb_profile_key)};
static const size_t figures_sizes[] = {sizeof(sb_profile_figures)};
static const size_t summary_sizes[] = {sizeof(sb_profile_summary)};
static const size_t judgement_sizes[] = {sizeof(sb_profile_judgement)};
#define NSIZES(a) (sizeof(a) / sizeof *(a))

/* A caller's key or figures, read into the library's own (in of a known
 * size, else SB_EINVAL naming it, who the function). */
static int key_get(const sb_profile_key *in, sb_profile_key *k,
                   const char *who, sb_error *err)
{
    size_t size = sb__out_size_of(in);
    int rc = sb__out_size(size, key_sizes, NSIZES(key_sizes),
                          "sb_profile_key", who, err);
    if (rc == SB_OK)
        memcpy(k, in, size);
    return rc;
}

static int figures_get(const sb_profile_figures *in, sb_profile_figures *f,
                       const char *who, sb_error *err)
{
    size_t size = sb__out_size_of(in);
    int rc = sb__out_size(size, figures_sizes, NSIZES(figures_sizes),
                          "sb_profile_figures", who, err);
    if (rc == SB_OK)
        memcpy(f, in, size);
    return rc;
}

static void key_from_meta(const sb_meta *m, sb_profile_key *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    snprintf(out->hostname, sizeof out->hostname, "%s", m->hostname);
    snprintf(out->cpu_model, sizeof out->cpu_model, "%s", m->cpu_model);
    snprintf(out->microcode, sizeof out->microcode, "%s", m->microcode);
    out->online_cpus = m->online_cpus;
    snprintf(out->contention_probe, sizeof out->contention_probe, "%s",
             m->contention_probe);
    out->probe_ldst_reps = m->probe_ldst_reps;
}

int sb_profile_key_from_meta(const sb_meta *m, sb_profile_key *out,
                             sb_error *err)
{
    static const char fn[] = "sb_profile_key_from_meta";
    sb_profile_key k;
    int rc;

    if (!m || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !m ? "meta" : "out");
    if ((rc = sb__out_size(sb__out_size_of(out), key_sizes,
                           NSIZES(key_sizes), "sb_profile_key", fn, err)) !=
        SB_OK)
        return rc;
    key_from_meta(m, &k);
    sb__out_put(out, sb__out_size_of(out), &k);
    return SB_OK;
}

static int figure_ok(double x)
{
    return isfinite(x) && x > 0 && x < MAX_FIGURE;
}

static void figures_from_meta(const sb_meta *m, sb_profile_figures *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->contention_quiet = out->reference_cycles = NAN;
    /* Without a clock probe the level is in ticks, which the clock moves
     * by 2x between invocations: no figure of the core. */
    if (strcmp(m->probe, "none") && m->probe[0] &&
        figure_ok(m->contention_quiet))
        out->contention_quiet = m->contention_quiet;
    if (figure_ok(m->reference_cycles))
        out->reference_cycles = m->reference_cycles;
    snprintf(out->time, sizeof out->time, "%s", m->start_time);
}

int sb_profile_figures_from_meta(const sb_meta *m, sb_profile_figures *out,
                                 sb_error *err)
{
    static const char fn[] = "sb_profile_figures_from_meta";
    sb_profile_figures f;
    int rc;

    if (!m || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !m ? "meta" : "out");
    if ((rc = sb__out_size(sb__out_size_of(out), figures_sizes,
                           NSIZES(figures_sizes), "sb_profile_figures", fn,
                           err)) != SB_OK)
        return rc;
    figures_from_meta(m, &f);
    sb__out_put(out, sb__out_size_of(out), &f);
    return SB_OK;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t key_hash(const sb_profile_key *k)
{
    char num[64];
    uint64_t h = 14695981039346656037ull;
    /* Each field with its terminating NUL, so that no two keys run into
     * the same bytes. */
    h = fnv(h, k->hostname, strnlen(k->hostname, sizeof k->hostname) + 1);
    h = fnv(h, k->cpu_model, strnlen(k->cpu_model, sizeof k->cpu_model) + 1);
    h = fnv(h, k->microcode, strnlen(k->microcode, sizeof k->microcode) + 1);
    snprintf(num, sizeof num, "%zu", k->online_cpus);
    h = fnv(h, num, strlen(num) + 1);
    h = fnv(h, k->contention_probe,
            strnlen(k->contention_probe, sizeof k->contention_probe) + 1);
    snprintf(num, sizeof num, "%zu", k->probe_ldst_reps);
    return fnv(h, num, strlen(num) + 1);
}

int sb_profile_path(const char *dir, const sb_profile_key *key, char *buf,
                    size_t len, sb_error *err)
{
    sb_profile_key k;
    int r;
    if (!dir || !key || !buf)
        return sb__error(err, SB_EINVAL, "sb_profile_path: %s is NULL",
                         !dir ? "dir" : !key ? "key" : "buf");
    if ((r = key_get(key, &k, "sb_profile_path", err)) != SB_OK)
        return r;
    if (!dir[0])
        return sb__error(err, SB_EINVAL, "profile directory is empty");
    r = snprintf(buf, len, "%s/profile-%016llx.json", dir,
                 (unsigned long long)key_hash(&k));
    if (r < 0 || (size_t)r >= len)
        return sb__error(err, SB_EINVAL,
                         "profile directory too long (%zu bytes): refused, "
                         "never shortened",
                         strlen(dir));
    return SB_OK;
}

/* A path for a message: cleaned of control characters, as every string
 * that reaches a terminal. */
static const char *shown(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    sb__clean_text(buf);
    return buf;
}

/* ---- Times ---------------------------------------------------------------- */

/* "2026-12-01T19:06:09Z" to seconds since the epoch; -1 for anything
 * else, so that a hostile time cannot pass as one. */
static long long iso_seconds(const char *s)
{
    int y, mo, d, h, mi, se;
    char z, back[32];
    struct tm tm;
    time_t t;

    if (strlen(s) != 20 ||
        sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se,
               &z) != 7 ||
        z != 'Z' || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 ||
        d > 31 || h > 23 || mi > 59 || se > 60 || h < 0 || mi < 0 || se < 0)
        return -1;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    /* What timegm normalised (February 31st) is not a date. */
    gmtime_r(&t, &tm);
    strftime(back, sizeof back, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (strcmp(back, s) && se != 60)
        return -1;
    return (long long)t;
}

/* ---- Levels --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double value_of(const entry *e, int ref)
{
    return ref ? e->ref : e->quiet;
}

static void figure_of(const entry *e, size_t n, int ref,
                      sb_profile_figure *out)
{
    double v[SB_PROFILE_MAX_RUNS + SB_PROFILE_MOVE_RUNS], level = NAN;
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (figure_ok(value_of(&e[i], ref)))
            v[m++] = value_of(&e[i], ref);
    out->level = out->spread = NAN;
    out->margin = FLOOR;
    out->runs = 0;
    if (m == 0)
        return;
    qsort(v, m, sizeof v[0], cmp_double);
    /* The lowest value that another run confirms: one run's low outlier
     * (a misread clock) cannot pull the level down alone, while two
     * faster runs do, at once.  No pair confirmed: the second lowest,
     * never the lowest alone; one run: its value. */
    for (size_t i = 0; i < m && isnan(level); i++)
        if ((i > 0 && v[i] <= v[i - 1] * (1 + CONFIRM)) ||
            (i + 1 < m && v[i + 1] <= v[i] * (1 + CONFIRM)))
            level = v[i];
    if (isnan(level))
        level = m == 1 ? v[0] : v[1];
    out->level = level;
    /* The spread of the runs near the level, widened from the floor until
     * it holds: the median distance above the level of the runs within
     * the margin.  Runs far above it (kept while the profile knew only a
     * shared level) do not widen it. */
    out->spread = 0;
    for (int it = 0; it < 16; it++) {
        double d[SB_PROFILE_MAX_RUNS + SB_PROFILE_MOVE_RUNS], s, margin;
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (v[i] >= level && v[i] <= level * (1 + out->margin))
                d[k++] = v[i] / level - 1;
        s = k == 0 ? 0
            : k % 2 ? d[k / 2]
                    : (d[k / 2 - 1] + d[k / 2]) / 2; /* d is sorted */
        margin = fmax(FLOOR, SPREAD_TIMES * s);
        out->spread = s;
        out->runs = k;
        if (margin <= out->margin)
            break;
        out->margin = margin;
    }
    /* The runs the level rests on: those within the margin, and the
     * confirmed ones just below it. */
    out->runs = 0;
    for (size_t i = 0; i < m; i++)
        if (v[i] <= level * (1 + out->margin))
            out->runs++;
}

/* ---- Reading -------------------------------------------------------------- */

static int refuse(sb_error *err, const char *path, const char *fmt, ...)
    SB__PRINTF(3, 4);
static int refuse(sb_error *err, const char *path, const char *fmt, ...)
{
    char what[512], p[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sb__error(err, SB_EIO, "host profile %s: %s",
                     shown(path, p, sizeof p), what);
}

/* The directory: 1 when it does not exist (and create is 0), 0 when it
 * is a directory of this user's that nobody else may write, else an
 * error.  With create, it and its parents are made, 0700. */
static int check_dir(const char *dir, int create, sb_error *err)
{
    struct stat st;

    if (lstat(dir, &st) != 0) {
        char tmp[4096];
        size_t n;
        if (errno != ENOENT)
            return refuse(err, dir, "cannot be read (%s)", strerror(errno));
        if (!create)
            return 1;
        n = strlen(dir);
        if (n >= sizeof tmp)
            return refuse(err, dir, "too long");
        memcpy(tmp, dir, n + 1);
        /* Parents first: $XDG_STATE_HOME itself may not exist yet. */
        for (size_t i = 1; i < n; i++)
            if (tmp[i] == '/') {
                tmp[i] = '\0';
                if (mkdir(tmp, 0700) != 0 && errno != EEXIST) {
                    int e = errno;
                    tmp[i] = '/';
                    return sb__error(err, SB_ESYS,
                                     "host profile: cannot make the "
                                     "directory's parent (%s)",
                                     strerror(e));
                }
                tmp[i] = '/';
            }
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return sb__error(err, SB_ESYS,
                             "host profile: cannot make its directory (%s)",
                             strerror(errno));
        if (lstat(dir, &st) != 0)
            return refuse(err, dir, "cannot be read (%s)", strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return refuse(err, dir,
                      "the directory is a symbolic link (refused, never "
                      "followed)");
    if (!S_ISDIR(st.st_mode))
        return refuse(err, dir, "not a directory");
    if (st.st_uid != geteuid())
        return refuse(err, dir,
                      "the directory belongs to uid %lu, not to this user "
                      "(%lu)",
                      (unsigned long)st.st_uid, (unsigned long)geteuid());
    if (st.st_mode & 022)
        return refuse(err, dir,
                      "the directory is writable by others (mode %04o)",
                      (unsigned)(st.st_mode & 07777));
    return 0;
}

/* A finite positive figure or null, into *out. */
static int get_figure(json_t *o, const char *k, double *out)
{
    json_t *v = json_object_get(o, k);
    *out = NAN;
    if (json_is_null(v))
        return 0;
    if (!json_is_number(v) || !figure_ok(json_number_value(v)))
        return -1;
    *out = json_number_value(v);
    return 0;
}

static int get_entries(json_t *root, const char *k, entry *e, size_t max,
                       size_t *n, char *field, size_t flen)
{
    json_t *a = json_object_get(root, k), *o;
    size_t i;

    *n = 0;
    if (!json_is_array(a)) {
        snprintf(field, flen, "%s: not a list", k);
        return -1;
    }
    if (json_array_size(a) > max) {
        snprintf(field, flen, "%s: %zu entries, at most %zu", k,
                 json_array_size(a), max);
        return -1;
    }
    json_array_foreach(a, i, o) {
        json_t *t = json_object_get(o, "time");
        if (!json_is_object(o)) {
            snprintf(field, flen, "%s[%zu]: not an object", k, i);
            return -1;
        }
        if (!json_is_string(t) || iso_seconds(json_string_value(t)) < 0) {
            snprintf(field, flen, "%s[%zu].time: not a UTC time", k, i);
            return -1;
        }
        snprintf(e[i].time, sizeof e[i].time, "%s", json_string_value(t));
        {
            const char *name[2] = {"contention_quiet", "reference_cycles"};
            double *to[2] = {&e[i].quiet, &e[i].ref};
            for (int f = 0; f < 2; f++)
                if (get_figure(o, name[f], to[f]) != 0) {
                    snprintf(field, flen,
                             "%s[%zu].%s: not a figure in (0, 1e7) or null",
                             k, i, name[f]);
                    return -1;
                }
        }
        if (!figure_ok(e[i].quiet) && !figure_ok(e[i].ref)) {
            snprintf(field, flen, "%s[%zu]: no figure", k, i);
            return -1;
        }
    }
    *n = json_array_size(a);
    return 0;
}

static int key_str(json_t *key, const char *k, const char *want, size_t size,
                   char *field, size_t flen)
{
    json_t *v = json_object_get(key, k);
    if (!json_is_string(v) || json_string_length(v) >= size) {
        snprintf(field, flen, "key.%s: not a string of under %zu bytes", k,
                 size);
        return -1;
    }
    if (strcmp(json_string_value(v), want)) {
        snprintf(field, flen,
                 "key.%s: another machine's (a hash collision or a file "
                 "put in its place)",
                 k);
        return -1;
    }
    return 0;
}

static int key_num(json_t *key, const char *k, size_t want, char *field,
                   size_t flen)
{
    json_t *v = json_object_get(key, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        snprintf(field, flen, "key.%s: not a whole number", k);
        return -1;
    }
    if ((unsigned long long)json_integer_value(v) != want) {
        snprintf(field, flen, "key.%s: another machine's", k);
        return -1;
    }
    return 0;
}

static int parse(json_t *root, sb_profile *p, char *field, size_t flen)
{
    json_t *v, *key;
    const sb_profile_key *k = &p->key;

    if (!json_is_object(root)) {
        snprintf(field, flen, "not a JSON object");
        return -1;
    }
    v = json_object_get(root, "schema");
    if (!json_is_string(v) || strcmp(json_string_value(v), SCHEMA)) {
        snprintf(field, flen, "schema: not \"%s\"", SCHEMA);
        return -1;
    }
    v = json_object_get(root, "version");
    if (!json_is_integer(v) || json_integer_value(v) != PROFILE_VERSION) {
        snprintf(field, flen, "version: not %d", PROFILE_VERSION);
        return -1;
    }
    key = json_object_get(root, "key");
    if (!json_is_object(key)) {
        snprintf(field, flen, "key: not an object");
        return -1;
    }
    if (key_str(key, "hostname", k->hostname, sizeof k->hostname, field,
                flen) ||
        key_str(key, "cpu_model", k->cpu_model, sizeof k->cpu_model, field,
                flen) ||
        key_str(key, "microcode", k->microcode, sizeof k->microcode, field,
                flen) ||
        key_num(key, "online_cpus", k->online_cpus, field, flen) ||
        key_str(key, "contention_probe", k->contention_probe,
                sizeof k->contention_probe, field, flen) ||
        key_num(key, "probe_ldst_reps", k->probe_ldst_reps, field, flen))
        return -1;
    if (get_entries(root, "runs", p->runs, SB_PROFILE_MAX_RUNS, &p->n, field,
                    flen) ||
        get_entries(root, "pending", p->pend, SB_PROFILE_MOVE_RUNS,
                    &p->npend, field, flen))
        return -1;
    v = json_object_get(root, "seen");
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)p->n) {
        snprintf(field, flen, "seen: not a whole number of at least the "
                              "runs kept");
        return -1;
    }
    p->seen = (size_t)json_integer_value(v);
    v = json_object_get(root, "note");
    if (!json_is_string(v) || json_string_length(v) >= sizeof p->note) {
        snprintf(field, flen, "note: not a string of under %zu bytes",
                 sizeof p->note);
        return -1;
    }
    snprintf(p->note, sizeof p->note, "%s", json_string_value(v));
    sb__clean_text(p->note);
    return 0;
}

/* The JSON of a profile file at path, read with every check a hostile
 * file needs: *root NULL and SB_OK when there is no file. */
static int read_json(const char *path, json_t **root, sb_error *err)
{
    char *buf;
    struct stat st;
    json_error_t je;
    ssize_t got = 0;
    int fd;

    *root = NULL;
    /* O_NONBLOCK: a FIFO put in its place must not hang the run; it is
     * refused below. */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
                        O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            return SB_OK;
        if (errno == ELOOP)
            return refuse(err, path,
                          "a symbolic link (refused, never followed)");
        return refuse(err, path, "cannot be read (%s)", strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(err, path,
                      "not a regular file (a FIFO, device or directory: "
                      "refused)");
    }
    if (st.st_uid != geteuid()) {
        close(fd);
        return refuse(err, path, "belongs to another user (uid %lu)",
                      (unsigned long)st.st_uid);
    }
    if (st.st_size > MAX_FILE) {
        close(fd);
        return refuse(err, path, "%lld bytes, more than a profile holds",
                      (long long)st.st_size);
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    while (got < st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)(st.st_size - got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += r;
    }
    close(fd);
    *root = json_loadb(buf, (size_t)got, JSON_REJECT_DUPLICATES, &je);
    free(buf);
    if (!*root) {
        /* jansson's text may quote the file: cleaned before it is shown. */
        sb__clean_text(je.text);
        return refuse(err, path, "not JSON (line %d: %s)", je.line,
                      je.text);
    }
    return SB_OK;
}

/* Read p->path into p (its key already set): SB_OK with an empty profile
 * when there is no file. */
static int read_file(sb_profile *p, sb_error *err)
{
    char field[256];
    json_t *root;
    int rc;

    p->n = p->npend = p->seen = 0;
    p->note[0] = '\0';
    if ((rc = read_json(p->path, &root, err)) != SB_OK || !root)
        return rc;
    rc = parse(root, p, field, sizeof field);
    json_decref(root);
    if (rc != 0) {
        p->n = p->npend = p->seen = 0;
        return refuse(err, p->path, "%s", field);
    }
    return SB_OK;
}

static int make_profile(const char *dir, const sb_profile_key *key,
                        sb_profile **out, const char *fn, sb_error *err)
{
    sb_profile *p;
    int rc;

    if (!dir || !key || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !dir ? "dir" : !key ? "key" : "out");
    {
        sb_profile_key k;
        if ((rc = key_get(key, &k, fn, err)) != SB_OK)
            return rc;
        p = calloc(1, sizeof *p);
        if (!p)
            return sb__error(err, SB_ENOMEM, "out of memory");
        p->key = k;
    }
    /* Key strings as a file would hold them: cut at their size. */
    p->key.hostname[sizeof p->key.hostname - 1] = '\0';
    p->key.cpu_model[sizeof p->key.cpu_model - 1] = '\0';
    p->key.microcode[sizeof p->key.microcode - 1] = '\0';
    p->key.contention_probe[sizeof p->key.contention_probe - 1] = '\0';
    rc = sb_profile_path(dir, &p->key, p->path, sizeof p->path, err);
    if (rc != SB_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return SB_OK;
}

int sb_profile_load(const char *dir, const sb_profile_key *key,
                    sb_profile **out, sb_error *err)
{
    sb_profile *p;
    int rc;

    if (out)
        *out = NULL;
    if ((rc = make_profile(dir, key, &p, "sb_profile_load", err)) != SB_OK)
        return rc;
    rc = check_dir(dir, 0, err);
    if (rc < 0) {
        free(p);
        return rc;
    }
    if (rc == 0 && (rc = read_file(p, err)) != SB_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return SB_OK;
}

void sb_profile_free(sb_profile *p)
{
    free(p);
}

/* ---- Summary and judgement ------------------------------------------------ */

static void span(const entry *e, size_t n, char *first, char *last)
{
    first[0] = last[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!first[0] || strcmp(e[i].time, first) < 0)
            snprintf(first, 32, "%s", e[i].time);
        if (!last[0] || strcmp(e[i].time, last) > 0)
            snprintf(last, 32, "%s", e[i].time);
    }
}

static void summarize(const sb_profile *p, sb_profile_summary *out)
{
    char pf[32];
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->key.size = sizeof out->key;
    out->quiet.level = out->reference.level = NAN;
    out->quiet.spread = out->reference.spread = NAN;
    out->quiet.margin = out->reference.margin = FLOOR;
    if (!p)
        return;
    snprintf(out->path, sizeof out->path, "%s", p->path);
    out->key = p->key;
    out->runs = p->n;
    out->seen = p->seen;
    span(p->runs, p->n, out->first, out->last);
    figure_of(p->runs, p->n, 0, &out->quiet);
    figure_of(p->runs, p->n, 1, &out->reference);
    out->pending = p->npend;
    span(p->pend, p->npend, out->pending_first, pf);
    snprintf(out->note, sizeof out->note, "%s", p->note);
}

int sb_profile_summarize(const sb_profile *p, sb_profile_summary *out,
                         sb_error *err)
{
    static const char fn[] = "sb_profile_summarize";
    sb_profile_summary *s;
    int rc;

    if (!out)
        return sb__error(err, SB_EINVAL, "%s: out is NULL", fn);
    if ((rc = sb__out_size(sb__out_size_of(out), summary_sizes,
                           NSIZES(summary_sizes), "sb_profile_summary", fn,
                           err)) != SB_OK)
        return rc;
    /* Over 4 KiB: on the heap, not the caller's stack. */
    if (!(s = malloc(sizeof *s)))
        return sb__error(err, SB_ENOMEM, "out of memory");
    summarize(p, s);
    sb__out_put(out, sb__out_size_of(out), s);
    free(s);
    return SB_OK;
}

static void judge_one(double x, const sb_profile_figure *f, double *level,
                      double *margin, double *excess, int *judged,
                      int *shared)
{
    *level = f->level;
    *margin = f->margin;
    *excess = NAN;
    if (!figure_ok(x) || !isfinite(f->level))
        return;
    *excess = x / f->level - 1;
    *judged = 1;
    if (*excess > f->margin)
        *shared = 1;
}

/* "+35.3%" of a relative excess. */
static void pct(char *buf, size_t len, double e)
{
    snprintf(buf, len, "%+.1f%%", 100 * e);
}

/* The judgement of f (the library's own figures) against p, into the
 * library's own judgement. */
static void judge(const sb_profile *p, const sb_profile_figures *f,
                  sb_profile_judgement *out)
{
    sb_profile_figure q = {NAN, NAN, FLOOR, 0}, r = {NAN, NAN, FLOOR, 0};
    int judged = 0, shared = 0;
    char a[32], b[32], parts[200];
    size_t at = 0;

    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->quiet = figure_ok(f->contention_quiet) ? f->contention_quiet : NAN;
    out->reference =
        figure_ok(f->reference_cycles) ? f->reference_cycles : NAN;
    if (p) {
        figure_of(p->runs, p->n, 0, &q);
        figure_of(p->runs, p->n, 1, &r);
        out->runs = p->n;
    }
    judge_one(out->quiet, &q, &out->quiet_level, &out->quiet_margin,
              &out->quiet_excess, &judged, &shared);
    judge_one(out->reference, &r, &out->reference_level,
              &out->reference_margin, &out->reference_excess, &judged,
              &shared);
    parts[0] = '\0';
    if (isfinite(out->reference_excess)) {
        pct(a, sizeof a, out->reference_excess);
        at += (size_t)snprintf(parts + at, sizeof parts - at,
                               "reference %.1f core cycles/call, %s of "
                               "%.1f",
                               out->reference, a, out->reference_level);
    }
    if (isfinite(out->quiet_excess) && at < sizeof parts) {
        pct(b, sizeof b, out->quiet_excess);
        snprintf(parts + at, sizeof parts - at,
                 "%sprobe %.2f core cycles/rep, %s of %.2f",
                 at ? "; " : "", out->quiet, b, out->quiet_level);
    }
    if ((!p || p->n == 0) &&
        (figure_ok(out->quiet) || figure_ok(out->reference))) {
        out->state = SB_PROFILE_NEW;
        snprintf(out->line, sizeof out->line,
                 "profile: none yet for this host (the first run: its "
                 "figures start one)");
    } else if (!p || p->n == 0) {
        /* sb_profile_add keeps nothing of such a run: no promise. */
        out->state = SB_PROFILE_NEW;
        snprintf(out->line, sizeof out->line,
                 "profile: none yet for this host, and this run starts "
                 "none: it has no figure of the core (no core clock, no "
                 "reference copy)");
    } else if (!judged) {
        out->state = SB_PROFILE_UNKNOWN;
        snprintf(out->line, sizeof out->line,
                 "profile: not judged: the run has no figure the profile "
                 "holds (no core clock or no reference copy)");
    } else if (shared) {
        out->state = SB_PROFILE_SHARED;
        snprintf(out->line, sizeof out->line,
                 "profile: measured on a shared core: %s (margin %.1f%%, "
                 "%zu run%s)",
                 parts,
                 100 * (out->reference_excess > out->reference_margin
                            ? out->reference_margin
                            : out->quiet_margin),
                 out->runs, out->runs == 1 ? "" : "s");
    } else {
        out->state = SB_PROFILE_QUIET;
        snprintf(out->line, sizeof out->line,
                 "profile: quiet core: %s (margin %.1f%%, %zu run%s)", parts,
                 100 * fmax(isfinite(out->reference_excess)
                                ? out->reference_margin
                                : 0,
                            isfinite(out->quiet_excess) ? out->quiet_margin
                                                        : 0),
                 out->runs, out->runs == 1 ? "" : "s");
    }
}

int sb_profile_judge(const sb_profile *p, const sb_profile_figures *f,
                     sb_profile_judgement *out, sb_error *err)
{
    static const char fn[] = "sb_profile_judge";
    sb_profile_figures own;
    sb_profile_judgement j;
    int rc;

    if (!f || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !f ? "f" : "out");
    if ((rc = figures_get(f, &own, fn, err)) != SB_OK ||
        (rc = sb__out_size(sb__out_size_of(out), judgement_sizes,
                           NSIZES(judgement_sizes), "sb_profile_judgement",
                           fn, err)) != SB_OK)
        return rc;
    judge(p, &own, &j);
    sb__out_put(out, sb__out_size_of(out), &j);
    return SB_OK;
}

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
                   ? refuse(err, lp,
                            "a symbolic link (refused, never followed)")
                   : refuse(err, lp, "cannot be opened (%s)",
                            strerror(errno));
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid()) {
        close(f);
        return refuse(err, lp,
                      "not a regular file of this user's (refused)");
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
                            figure_ok(e[i].quiet) ? json_real(e[i].quiet)
                                                  : json_null());
        json_object_set_new(o, "reference_cycles",
                            figure_ok(e[i].ref) ? json_real(e[i].ref)
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
        return refuse(err, p->path,
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
        figure_of(p->runs, p->n, 0, &q);
        figure_of(p->runs, p->n, 1, &r);
        *level_q = q.level;
        *level_ref = r.level;
        for (size_t i = 0; i < p->n; i++) {
            const entry *e = &p->runs[i];
            int high = (figure_ok(e->quiet) && isfinite(q.level) &&
                        e->quiet > q.level * (1 + q.margin)) ||
                       (figure_ok(e->ref) && isfinite(r.level) &&
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
            double x = value_of(&p->pend[i], ref);
            if (figure_ok(x)) {
                lo = fmin(lo, x);
                hi = fmax(hi, x);
            }
        }
        if (hi >= lo && hi / lo - 1 > FLOOR)
            return 0;
    }
    for (size_t i = 0; i < p->npend; i++) {
        long long t = iso_seconds(p->pend[i].time);
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
    e->quiet = figure_ok(f->contention_quiet) ? f->contention_quiet : NAN;
    e->ref = figure_ok(f->reference_cycles) ? f->reference_cycles : NAN;
    if (iso_seconds(f->time) < 0)
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
        figure_of(p->runs, p->n, 1, &r0);
        figure_of(p->runs, p->n, 0, &q0);
        memcpy(p->runs, p->pend, p->npend * sizeof *e);
        p->n = p->npend;
        p->npend = 0;
        figure_of(p->runs, p->n, 1, &r1);
        figure_of(p->runs, p->n, 0, &q1);
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
    if ((rc = figures_get(f, &own, "sb_profile_add", err)) != SB_OK)
        return rc;
    f = &own;
    if ((rc = make_profile(dir, key, &p, "sb_profile_add", err)) != SB_OK)
        return rc;
    if ((rc = entry_from(f, &e, err)) != SB_OK) {
        free(p);
        return rc;
    }
    if (!figure_ok(e.quiet) && !figure_ok(e.ref)) {
        say(note, len, "not added: the run has no figure of the core (no "
                       "core clock, no reference copy)");
        free(p);
        return SB_OK;
    }
    if ((rc = check_dir(dir, 1, err)) != SB_OK ||
        (rc = lock(p->path, &fd, err)) != SB_OK) {
        free(p);
        return rc;
    }
    /* Read again under the lock: another process may have added since
     * this one loaded the profile, and its run must not be lost. */
    if ((rc = read_file(p, err)) != SB_OK)
        goto out;
    judge(p, f, &j);
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
    if ((rc = make_profile(dir, key, &p, "sb_profile_reset", err)) != SB_OK)
        return rc;
    rc = check_dir(dir, 0, err);
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
            rc = refuse(err, p->path,
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

/* ---- This host's profiles ------------------------------------------------- */

int sb_profile_key_this_host(sb_profile_key *out, sb_error *err)
{
    static const char fn[] = "sb_profile_key_this_host";
    sb_profile_key k, *own = &k;
    long n;
    int rc;

    if (!out)
        return sb__error(err, SB_EINVAL, "%s: out is NULL", fn);
    if ((rc = sb__out_size(sb__out_size_of(out), key_sizes,
                           NSIZES(key_sizes), "sb_profile_key", fn, err)) !=
        SB_OK)
        return rc;
    memset(own, 0, sizeof *own);
    own->size = sizeof *own;
#define out own
    /* As sb__meta_fill records them, so that the keys agree. */
    if (gethostname(out->hostname, sizeof out->hostname) != 0)
        snprintf(out->hostname, sizeof out->hostname, "unknown");
    out->hostname[sizeof out->hostname - 1] = '\0';
    sb__cpu_model(out->cpu_model, sizeof out->cpu_model);
    if (sb__cpuinfo_microcode("", out->microcode, sizeof out->microcode))
        out->microcode[0] = '\0';
    n = sb__online_cpus("");
    out->online_cpus = n > 0 ? (size_t)n : 0;
    /* The probe this build times, as sb__probe_name_meta names it. */
    snprintf(out->contention_probe, sizeof out->contention_probe, "%s",
             sb__arch_have_chains() ? SB__PROBE_PATTERN : "");
    out->probe_ldst_reps =
        sb__arch_have_chains() ? SB__PROBE_LDST_REPS : 0;
#undef out
    sb__out_put(out, sb__out_size_of(out), own);
    return SB_OK;
}

/* The key a file holds, its strings checked as parse() checks them. */
static int file_key(json_t *root, sb_profile_key *k, char *field,
                    size_t flen)
{
    static const struct {
        const char *name;
        size_t off, size;
    } strs[] = {
        {"hostname", offsetof(sb_profile_key, hostname),
         sizeof(((sb_profile_key *)0)->hostname)},
        {"cpu_model", offsetof(sb_profile_key, cpu_model),
         sizeof(((sb_profile_key *)0)->cpu_model)},
        {"microcode", offsetof(sb_profile_key, microcode),
         sizeof(((sb_profile_key *)0)->microcode)},
        {"contention_probe", offsetof(sb_profile_key, contention_probe),
         sizeof(((sb_profile_key *)0)->contention_probe)},
    };
    json_t *key = json_is_object(root) ? json_object_get(root, "key") : NULL;
    json_t *a, *b;

    memset(k, 0, sizeof *k);
    k->size = sizeof *k;
    if (!json_is_object(key)) {
        snprintf(field, flen, "key: not an object");
        return -1;
    }
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        json_t *v = json_object_get(key, strs[i].name);
        if (!json_is_string(v) || json_string_length(v) >= strs[i].size ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            snprintf(field, flen, "key.%s: not a string of under %zu bytes",
                     strs[i].name, strs[i].size);
            return -1;
        }
        memcpy((char *)k + strs[i].off, json_string_value(v),
               json_string_length(v) + 1);
    }
    a = json_object_get(key, "online_cpus");
    b = json_object_get(key, "probe_ldst_reps");
    if (!json_is_integer(a) || json_integer_value(a) < 0 ||
        !json_is_integer(b) || json_integer_value(b) < 0) {
        snprintf(field, flen, "key.%s: not a whole number",
                 !json_is_integer(a) || json_integer_value(a) < 0
                     ? "online_cpus"
                     : "probe_ldst_reps");
        return -1;
    }
    k->online_cpus = (size_t)json_integer_value(a);
    k->probe_ldst_reps = (size_t)json_integer_value(b);
    return 0;
}

static int name_is_profile(const char *s)
{
    return strlen(s) == 8 + 16 + 5 && !strncmp(s, "profile-", 8) &&
           strspn(s + 8, "0123456789abcdef") == 16 &&
           !strcmp(s + 24, ".json");
}

int sb_profile_find(const char *dir, const sb_profile_key *host,
                    sb_profile_key *keys, size_t max, size_t *n,
                    sb_error *err)
{
    static const char fn[] = "sb_profile_find";
    sb_profile_key own_host;
    size_t stride = 0;
    DIR *d;
    struct dirent *e;
    int rc;

    if (n)
        *n = 0;
    if (!dir || !host || !n || (max && !keys))
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !dir ? "dir" : !host ? "host" : !n ? "n" : "keys");
    if ((rc = key_get(host, &own_host, fn, err)) != SB_OK)
        return rc;
    host = &own_host;
    /* keys[0].size is the layout of every element: the array's step. */
    if (max) {
        stride = sb__out_size_of(keys);
        if ((rc = sb__out_size(stride, key_sizes, NSIZES(key_sizes),
                               "sb_profile_key", fn, err)) != SB_OK)
            return rc;
    }
    rc = check_dir(dir, 0, err);
    if (rc != 0)
        return rc < 0 ? rc : SB_OK;
    d = opendir(dir);
    if (!d)
        return refuse(err, dir, "cannot be read (%s)", strerror(errno));
    rc = SB_OK;
    while (rc == SB_OK && (e = readdir(d))) {
        char path[4200], want[4200], field[256];
        sb_profile_key k;
        sb_profile *p;
        json_t *root;

        if (!name_is_profile(e->d_name))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            (int)sizeof path) {
            rc = sb__error(err, SB_EINVAL, "profile directory too long");
            break;
        }
        if ((rc = read_json(path, &root, err)) != SB_OK)
            break;
        if (!root)
            continue; /* gone since readdir */
        if (file_key(root, &k, field, sizeof field) != 0) {
            json_decref(root);
            rc = refuse(err, path, "%s", field);
            break;
        }
        json_decref(root);
        /* A file under another key's name was put there: refused, as a
         * profile that could stand in for another's. */
        sb_profile_path(dir, &k, want, sizeof want, NULL);
        if (strcmp(want, path)) {
            rc = refuse(err, path,
                        "its name is not its key's hash (refused)");
            break;
        }
        if (strcmp(k.hostname, host->hostname) ||
            strcmp(k.cpu_model, host->cpu_model) ||
            strcmp(k.microcode, host->microcode) ||
            k.online_cpus != host->online_cpus)
            continue;
        /* Every other field checked as a load checks it. */
        if ((rc = sb_profile_load(dir, &k, &p, err)) != SB_OK)
            break;
        sb_profile_free(p);
        if (*n < max)
            sb__out_put((char *)keys + *n * stride, stride, &k);
        (*n)++;
    }
    closedir(d);
    return rc;
}

/* A string of a file for a line: control characters as '?'. */
static const char *clean(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s);
    sb__clean_text(buf);
    return buf;
}

static void describe_figure(char *buf, size_t len, size_t *at,
                            const char *what, const char *unit,
                            const sb_profile_figure *f)
{
    int k;
    if (*at >= len)
        return;
    if (!isfinite(f->level))
        k = snprintf(buf + *at, len - *at, "  %s: none\n", what);
    else
        k = snprintf(buf + *at, len - *at,
                     "  %s: %.2f %s (spread %.1f%%, margin %.1f%%), "
                     "resting on %zu run%s\n",
                     what, f->level, unit, 100 * f->spread, 100 * f->margin,
                     f->runs, f->runs == 1 ? "" : "s");
    if (k > 0)
        *at += (size_t)k;
}

void sb_profile_describe(const sb_profile *p, char *buf, size_t len)
{
    sb_profile_summary s;
    char a[4200], b[200], c[200], d[64], e[64];
    size_t at = 0;
    int k;

    if (!buf || !len)
        return;
    buf[0] = '\0';
    if (!p)
        return;
    summarize(p, &s);
    k = snprintf(buf, len,
                 "host profile: %s\n"
                 "  key: host %s, CPU %s, microcode %s, %zu online CPUs, "
                 "contention probe %s x %zu\n",
                 clean(s.path, a, sizeof a),
                 clean(s.key.hostname, b, sizeof b),
                 clean(s.key.cpu_model, c, sizeof c),
                 s.key.microcode[0] ? clean(s.key.microcode, d, sizeof d)
                                    : "unknown",
                 s.key.online_cpus,
                 s.key.contention_probe[0]
                     ? clean(s.key.contention_probe, e, sizeof e)
                     : "unknown",
                 s.key.probe_ldst_reps);
    if (k < 0)
        return;
    at = (size_t)k;
    if (s.runs == 0 && at < len) {
        k = snprintf(buf + at, len - at,
                     "  no runs yet (the next measuring run starts it)\n");
        if (k > 0)
            at += (size_t)k;
    }
    describe_figure(buf, len, &at, "reference copy", "core cycles/call",
                    &s.reference);
    describe_figure(buf, len, &at, "contention probe", "core cycles/rep",
                    &s.quiet);
    if (at < len && s.runs) {
        k = snprintf(buf + at, len - at,
                     "  runs: %zu kept (at most %d) of %zu seen, from %s to "
                     "%s\n",
                     s.runs, SB_PROFILE_MAX_RUNS, s.seen, s.first, s.last);
        if (k > 0)
            at += (size_t)k;
    }
    if (at < len && s.pending) {
        k = snprintf(buf + at, len - at,
                     "  above it: %zu consecutive run%s judged shared "
                     "since %s (%d agreeing over %.0f hours move it)\n",
                     s.pending, s.pending == 1 ? "" : "s", s.pending_first,
                     SB_PROFILE_MOVE_RUNS, SB_PROFILE_MOVE_HOURS);
        if (k > 0)
            at += (size_t)k;
    }
    if (at < len && s.note[0])
        snprintf(buf + at, len - at, "  note: %s\n", s.note);
}

/* ---- The run's record ----------------------------------------------------- */

int sb_run_set_profile(sb_run *run, const sb_profile_judgement *j,
                       sb_error *err)
{
    int rc;

    if (!run || !j)
        return sb__error(err, SB_EINVAL, "sb_run_set_profile: %s is NULL",
                         !run ? "run" : "j");
    if ((rc = sb__out_size(sb__out_size_of(j), judgement_sizes,
                           NSIZES(judgement_sizes), "sb_profile_judgement",
                           "sb_run_set_profile", err)) != SB_OK)
        return rc;
    snprintf(run->meta.profile, sizeof run->meta.profile, "%s", j->line);
    sb__clean_text(run->meta.profile);
    run->meta.profile_shared = j->state == SB_PROFILE_SHARED;
    /* The comparisons made already: their figures are a shared core's,
     * so their verdicts judge the neighbour (compare_run.c does the same
     * for the comparisons made from now on). */
    if (run->meta.profile_shared && run->cmp)
        for (size_t i = 0; i < run->ncells; i++)
            if (run->cmp[i].valid && run->cmp[i].verdict != SB_VERDICT_NONE) {
                run->cmp[i].verdict = SB_VERDICT_INCONCLUSIVE;
                run->cmp[i].withheld = 1;
            }
    return SB_OK;
}
