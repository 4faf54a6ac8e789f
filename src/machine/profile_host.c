/*
 * profile_host.c: this host's profiles (profile_internal.h): the key of
 * the host the library runs on, the search of a directory for the
 * profiles of this host under any contention probe, and a profile's
 * description for a terminal.  Above profile_file.c and
 * profile_judge.c, which it calls; nothing of the profile calls it.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <jansson.h>

#include "arch/arch.h"
#include "probe.h"
#include "profile_internal.h"
#include "run_internal.h"
#include "sysinfo.h"
#include "text.h"

/* ---- This host's key ---------------------------------------------------- */

int sb_profile_key_this_host(sb_profile_key *out, sb_error *err)
{
    static const char fn[] = "sb_profile_key_this_host";
    sb_profile_key k, *own = &k;
    long n;
    int rc;

    if (!out)
        return sb__error(err, SB_EINVAL, "%s: out is NULL", fn);
    if ((rc = sb__profile_key_size(sb__out_size_of(out), fn, err)) != SB_OK)
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

/* ---- The profiles of this host in a directory --------------------------- */

/* The key a file holds, its strings checked as parse() in profile_file.c
 * checks them. */
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
    if ((rc = sb__profile_key_get(host, &own_host, fn, err)) != SB_OK)
        return rc;
    host = &own_host;
    /* keys[0].size is the layout of every element: the array's step. */
    if (max) {
        stride = sb__out_size_of(keys);
        if ((rc = sb__profile_key_size(stride, fn, err)) != SB_OK)
            return rc;
    }
    rc = sb__profile_check_dir(dir, 0, err);
    if (rc != 0)
        return rc < 0 ? rc : SB_OK;
    d = opendir(dir);
    if (!d)
        return sb__profile_refuse(err, dir, "cannot be read (%s)",
                                  strerror(errno));
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
        if ((rc = sb__profile_read_json(path, &root, err)) != SB_OK)
            break;
        if (!root)
            continue; /* gone since readdir */
        if (file_key(root, &k, field, sizeof field) != 0) {
            json_decref(root);
            rc = sb__profile_refuse(err, path, "%s", field);
            break;
        }
        json_decref(root);
        /* A file under another key's name was put there: refused, as a
         * profile that could stand in for another's. */
        sb_profile_path(dir, &k, want, sizeof want, NULL);
        if (strcmp(want, path)) {
            rc = sb__profile_refuse(
                err, path, "its name is not its key's hash (refused)");
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

/* ---- The description ---------------------------------------------------- */

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
    sb__profile_summarize(p, &s);
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

