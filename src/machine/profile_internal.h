/*
 * profile_internal.h: the host profile's internal names, never installed:
 * what a profile holds in memory, the file's constants, and the helpers
 * its four files share.  They are layered: profile_file.c (the key, the
 * path, the checked reading) is below profile_judge.c (the levels and
 * the judgement), and profile.c (the locked update) and profile_host.c
 * (this host's profiles, the description) sit above both.
 */
#ifndef SB_PROFILE_INTERNAL_H
#define SB_PROFILE_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "run_internal.h"

#define SCHEMA "statbench-profile"
#define PROFILE_VERSION 1

/* Why 3% at least.  A shared core slowed the copies beside flagged
 * samples by 7% on the smallest stretch seen, and whole runs by 30-80%
 * (the EPYC guest's libc 4 KiB: 221.5 against 163.7-164.5 core cycles);
 * quiet runs of one host scatter far less: 0.5% for that copy over nine
 * runs, 1.2% for the contention probe's quiet level there, 0.25% on the
 * Xeon guest.  3% is above every quiet scatter seen by more than twice
 * and under half the smallest shared slowdown; a host that scatters more
 * widens its own margin through its spread (profile_judge.c). */
#define FLOOR SB_PROFILE_MARGIN_FLOOR

#define NSIZES(a) (sizeof(a) / sizeof *(a))

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

/* ---- profile_file.c: the key, the path, the checked reading ---------- */

/* Whether x is a figure of the core: finite, in (0, 1e7) core cycles. */
int sb__profile_figure_ok(double x);
/* SB_OK when size is a layout of sb_profile_key this library knows, else
 * SB_EINVAL naming who. */
int sb__profile_key_size(size_t size, const char *who, sb_error *err);
/* A caller's key or figures, read into the library's own (in of a known
 * size, else SB_EINVAL naming it, who the function). */
int sb__profile_key_get(const sb_profile_key *in, sb_profile_key *k,
                        const char *who, sb_error *err);
int sb__profile_figures_get(const sb_profile_figures *in,
                            sb_profile_figures *f, const char *who,
                            sb_error *err);
/* "2026-12-01T19:06:09Z" to seconds since the epoch; -1 for anything
 * else, so that a hostile time cannot pass as one. */
long long sb__profile_iso_seconds(const char *s);
/* SB_EIO "host profile PATH: WHAT", the path cleaned for a terminal. */
int sb__profile_refuse(sb_error *err, const char *path, const char *fmt,
                       ...) SB__PRINTF(3, 4);
/* The directory: 1 when it does not exist (and create is 0), 0 when it
 * is a directory of this user's that nobody else may write, else an
 * error.  With create, it and its parents are made, 0700. */
int sb__profile_check_dir(const char *dir, int create, sb_error *err);
/* The JSON of a profile file at path, read with every check a hostile
 * file needs: *root NULL and SB_OK when there is no file. */
int sb__profile_read_json(const char *path, json_t **root, sb_error *err);
/* Read p->path into p (its key already set): SB_OK with an empty profile
 * when there is no file. */
int sb__profile_read_file(sb_profile *p, sb_error *err);
/* A new empty profile of key in dir, its path set; fn names the caller
 * in errors. */
int sb__profile_make(const char *dir, const sb_profile_key *key,
                     sb_profile **out, const char *fn, sb_error *err);

/* ---- profile_judge.c: the levels, the summary, the judgement --------- */

/* An entry's figure: its reference copy's (ref) or its probe's. */
double sb__profile_value_of(const entry *e, int ref);
/* The level, spread and margin of the figure ref (as above) of the n
 * entries e. */
void sb__profile_figure_of(const entry *e, size_t n, int ref,
                           sb_profile_figure *out);
/* The summary of p (NULL: of none), into the library's own. */
void sb__profile_summarize(const sb_profile *p, sb_profile_summary *out);
/* The judgement of f (the library's own figures) against p, into the
 * library's own judgement. */
void sb__profile_judge(const sb_profile *p, const sb_profile_figures *f,
                       sb_profile_judgement *out);

#endif
