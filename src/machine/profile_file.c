/*
 * profile_file.c: the host profile's file and names (profile_internal.h):
 * the key and figures read from a caller or a run's metadata, the file's
 * path from the key's hash, and the reading of the file with every range
 * checked.  The lowest of the profile's files: it calls none of them.
 *
 * The file is hostile input: every field is checked, a foreign key
 * refused, and nothing is followed but a regular file of the user's own
 * directory.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "profile_internal.h"
#include "run_internal.h"
#include "text.h"

/* 64 runs of three fields are some 10 KiB: anything near a megabyte is
 * not a profile. */
#define MAX_FILE (1 << 20)
/* A figure outside (0, 1e7) core cycles is no measurement of a 4 KiB
 * copy or of 32 repetitions of 128 L1 accesses. */
#define MAX_FIGURE 1e7

/* ---- Key, figures, names ------------------------------------------------ */

/* The one layout of each struct so far: a size this library knows. */
static const size_t key_sizes[] = {sizeof(sb_profile_key)};
static const size_t figures_sizes[] = {sizeof(sb_profile_figures)};

int sb__profile_key_size(size_t size, const char *who, sb_error *err)
{
    return sb__out_size(size, key_sizes, NSIZES(key_sizes), "sb_profile_key",
                        who, err);
}

/* in, a caller's struct of the kind type, read into own (in of one of
 * the sizes, n of them, else SB_EINVAL naming it, who the function). */
static int get_known(const void *in, void *own, const size_t *sizes,
                     size_t n, const char *type, const char *who,
                     sb_error *err)
{
    size_t size = sb__out_size_of(in);
    int rc = sb__out_size(size, sizes, n, type, who, err);
    if (rc == SB_OK)
        memcpy(own, in, size);
    return rc;
}

/* A caller's key or figures, read into the library's own (in of a known
 * size, else SB_EINVAL naming it, who the function). */
int sb__profile_key_get(const sb_profile_key *in, sb_profile_key *k,
                        const char *who, sb_error *err)
{
    return get_known(in, k, key_sizes, NSIZES(key_sizes), "sb_profile_key",
                     who, err);
}

int sb__profile_figures_get(const sb_profile_figures *in,
                            sb_profile_figures *f, const char *who,
                            sb_error *err)
{
    return get_known(in, f, figures_sizes, NSIZES(figures_sizes),
                     "sb_profile_figures", who, err);
}

/* The body of the public *_from_meta calls, fn naming the call in
 * messages: out, a struct of the kind type whose size is one of sizes (n
 * of them), receives as much as its size holds of full, which make fills
 * from m.  SB_OK; SB_EINVAL for a NULL m or out or a size not known. */
static int from_meta(const char *fn, const char *type, const size_t *sizes,
                     size_t n, void (*make)(const sb_meta *, void *),
                     const sb_meta *m, void *out, void *full, sb_error *err)
{
    int rc;

    if (!m || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !m ? "meta" : "out");
    if ((rc = sb__out_size(sb__out_size_of(out), sizes, n, type, fn,
                           err)) != SB_OK)
        return rc;
    make(m, full);
    sb__out_put(out, sb__out_size_of(out), full);
    return SB_OK;
}

/* A host's key from m into full, an sb_profile_key. */
static void key_from_meta(const sb_meta *m, void *full)
{
    sb_profile_key *out = full;

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
    sb_profile_key k;

    return from_meta("sb_profile_key_from_meta", "sb_profile_key",
                     key_sizes, NSIZES(key_sizes), key_from_meta, m, out, &k,
                     err);
}

int sb__profile_figure_ok(double x)
{
    return isfinite(x) && x > 0 && x < MAX_FIGURE;
}

/* The figures of a run's core from m into full, an sb_profile_figures. */
static void figures_from_meta(const sb_meta *m, void *full)
{
    sb_profile_figures *out = full;

    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->contention_quiet = out->reference_cycles = NAN;
    /* Without a clock probe the level is in ticks, which the clock moves
     * by 2x between invocations: no figure of the core. */
    if (strcmp(m->probe, "none") && m->probe[0] &&
        sb__profile_figure_ok(m->contention_quiet))
        out->contention_quiet = m->contention_quiet;
    if (sb__profile_figure_ok(m->reference_cycles))
        out->reference_cycles = m->reference_cycles;
    snprintf(out->time, sizeof out->time, "%s", m->start_time);
}

int sb_profile_figures_from_meta(const sb_meta *m, sb_profile_figures *out,
                                 sb_error *err)
{
    sb_profile_figures f;

    return from_meta("sb_profile_figures_from_meta", "sb_profile_figures",
                     figures_sizes, NSIZES(figures_sizes), figures_from_meta,
                     m, out, &f, err);
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
    if ((r = sb__profile_key_get(key, &k, "sb_profile_path", err)) != SB_OK)
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

/* ---- Times -------------------------------------------------------------- */

/* "2026-12-01T19:06:09Z" to seconds since the epoch; -1 for anything
 * else, so that a hostile time cannot pass as one. */
long long sb__profile_iso_seconds(const char *s)
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

/* ---- Reading ------------------------------------------------------------ */

int sb__profile_refuse(sb_error *err, const char *path, const char *fmt, ...)
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
int sb__profile_check_dir(const char *dir, int create, sb_error *err)
{
    struct stat st;

    if (lstat(dir, &st) != 0) {
        char tmp[4096];
        size_t n;
        if (errno != ENOENT)
            return sb__profile_refuse(err, dir, "cannot be read (%s)",
                                      strerror(errno));
        if (!create)
            return 1;
        n = strlen(dir);
        if (n >= sizeof tmp)
            return sb__profile_refuse(err, dir, "too long");
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
            return sb__profile_refuse(err, dir, "cannot be read (%s)",
                                      strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return sb__profile_refuse(
            err, dir,
            "the directory is a symbolic link (refused, never "
            "followed)");
    if (!S_ISDIR(st.st_mode))
        return sb__profile_refuse(err, dir, "not a directory");
    if (st.st_uid != geteuid())
        return sb__profile_refuse(
            err, dir,
            "the directory belongs to uid %lu, not to this user "
            "(%lu)",
            (unsigned long)st.st_uid, (unsigned long)geteuid());
    if (st.st_mode & 022)
        return sb__profile_refuse(
            err, dir, "the directory is writable by others (mode %04o)",
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
    if (!json_is_number(v) || !sb__profile_figure_ok(json_number_value(v)))
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
        if (!json_is_string(t) ||
            sb__profile_iso_seconds(json_string_value(t)) < 0) {
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
        if (!sb__profile_figure_ok(e[i].quiet) &&
            !sb__profile_figure_ok(e[i].ref)) {
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
int sb__profile_read_json(const char *path, json_t **root, sb_error *err)
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
            return sb__profile_refuse(
                err, path, "a symbolic link (refused, never followed)");
        return sb__profile_refuse(err, path, "cannot be read (%s)",
                                  strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sb__profile_refuse(
            err, path,
            "not a regular file (a FIFO, device or directory: "
            "refused)");
    }
    if (st.st_uid != geteuid()) {
        close(fd);
        return sb__profile_refuse(err, path,
                                  "belongs to another user (uid %lu)",
                                  (unsigned long)st.st_uid);
    }
    if (st.st_size > MAX_FILE) {
        close(fd);
        return sb__profile_refuse(err, path,
                                  "%lld bytes, more than a profile holds",
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
        return sb__profile_refuse(err, path, "not JSON (line %d: %s)", je.line,
                                  je.text);
    }
    return SB_OK;
}

/* Read p->path into p (its key already set): SB_OK with an empty profile
 * when there is no file. */
int sb__profile_read_file(sb_profile *p, sb_error *err)
{
    char field[256];
    json_t *root;
    int rc;

    p->n = p->npend = p->seen = 0;
    p->note[0] = '\0';
    if ((rc = sb__profile_read_json(p->path, &root, err)) != SB_OK || !root)
        return rc;
    rc = parse(root, p, field, sizeof field);
    json_decref(root);
    if (rc != 0) {
        p->n = p->npend = p->seen = 0;
        return sb__profile_refuse(err, p->path, "%s", field);
    }
    return SB_OK;
}

int sb__profile_make(const char *dir, const sb_profile_key *key,
                     sb_profile **out, const char *fn, sb_error *err)
{
    sb_profile *p;
    int rc;

    if (!dir || !key || !out)
        return sb__error(err, SB_EINVAL, "%s: %s is NULL", fn,
                         !dir ? "dir" : !key ? "key" : "out");
    {
        sb_profile_key k;
        if ((rc = sb__profile_key_get(key, &k, fn, err)) != SB_OK)
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
    if ((rc = sb__profile_make(dir, key, &p, "sb_profile_load", err)) != SB_OK)
        return rc;
    rc = sb__profile_check_dir(dir, 0, err);
    if (rc < 0) {
        free(p);
        return rc;
    }
    if (rc == 0 && (rc = sb__profile_read_file(p, err)) != SB_OK) {
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
