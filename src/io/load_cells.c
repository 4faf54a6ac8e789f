/*
 * load_cells.c: the cells of a saved run read back (load.c reads the
 * document, load_meta.c the meta before them): each cell's fields and
 * counts, its kept and held samples with their columns (ticks, counters,
 * flags, clocks, probe readings), validated, and split into the
 * invocations that measured them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "load.h"
#include "plan.h"
#include "run_internal.h"
#include "schema.h"

/* The times of cell i (r): finite, and above zero for a measured cell of
 * some size.  *out receives a new array of them. */
static int load_ticks(const sb_run *run, const sb_cell_result *r,
                      json_t *samples, const char *name, size_t i,
                      const char *in, double **out, sb_error *err)
{
    size_t ns = json_array_size(samples);
    double *all = malloc((ns + 1) * sizeof *all);

    if (!all)
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t j = 0; j < ns; j++) {
        json_t *v = json_array_get(samples, j);
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!json_is_number(v) || !isfinite(x)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: not a finite number",
                             name, i, in, j);
        }
        if (fabs(x) > SB_VALUE_MAX) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is beyond 1e300 in magnitude, where "
                             "a sum or a midpoint of two values overflows",
                             name, i, in, j, x);
        }
        /* A measured cell of some size has times: one not above zero is
         * nonsense that would print as a negative or infinite MB/s.
         * Imported values (analyze) are in their own unit, and a cell of
         * no size (an empty region) may measure below the timer's
         * overhead. */
        if (!run->imported && r->cell.size > 0 && !(x > 0)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is not a positive time",
                             name, i, in, j, x);
        }
        /* A time so small (a subnormal, 1e-310) that the cell's MB/s,
         * size x rate / time, overflows to inf is no time either. */
        if (!run->imported && r->cell.size > 0 &&
            !isfinite((double)r->cell.size * run->meta.timer.hz / x)) {
            free(all);
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                             "[%zu]: %g is too small to be a time (%zu "
                             "bytes in it overflow the MB/s)",
                             name, i, in, j, x, r->cell.size);
        }
        all[j] = x;
    }
    *out = all;
    return SB_OK;
}

/* The per-sample readings under key in object c, width a sample, into a
 * new *out when c has one entry for each of the ns samples: a number
 * each for width 1, else an array of width numbers (an older file has
 * none: NULL).  A reading that is not a positive finite number is
 * unknown, or was not made (NAN).  0, or -1 when out of memory.  The
 * core clocks are read so (width 1), and the probe readings
 * (SB_PROBE_READINGS). */
static int load_readings(json_t *c, const char *key, size_t ns,
                         size_t width, double **out)
{
    json_t *a = json_object_get(c, key);

    if (!json_is_array(a) || json_array_size(a) != ns)
        return 0;
    *out = malloc((ns + 1) * width * sizeof **out);
    if (!*out)
        return -1;
    for (size_t q = 0; q < ns; q++) {
        json_t *one = json_array_get(a, q);
        for (size_t k = 0; k < width; k++) {
            json_t *v = width == 1            ? one
                        : json_is_array(one) ? json_array_get(one, k)
                                             : NULL;
            double x = json_is_number(v) ? json_number_value(v) : NAN;
            (*out)[q * width + k] = isfinite(x) && x > 0 ? x : NAN;
        }
    }
    return 0;
}

/* The per-sample counters (sample-major, in meta.counter_names' order)
 * and disturbance flags of a cell of ns samples, when the file has them:
 * *ctr and *flags receive new arrays, or stay NULL.  0, or -1 when out of
 * memory. */
static int load_columns(const sb_run *run, json_t *c, size_t ns,
                        double **ctr, unsigned char **flags)
{
    json_t *sc = json_object_get(c, SB__JK_SAMPLES_COUNTERS);
    json_t *fl = json_object_get(c, SB__JK_SAMPLES_FLAGS);
    size_t nc = run->meta.ncounters;
    if (json_is_object(sc) && nc) {
        *ctr = malloc((ns + 1) * nc * sizeof **ctr);
        if (!*ctr)
            return -1;
        for (size_t j = 0; j < nc; j++) {
            json_t *a = json_object_get(sc, run->meta.counter_names[j]);
            for (size_t q = 0; q < ns; q++) {
                json_t *v = json_is_array(a) ? json_array_get(a, q) : NULL;
                (*ctr)[q * nc + j] =
                    json_is_number(v) ? json_number_value(v) : NAN;
            }
        }
    }
    if (json_is_array(fl) && json_array_size(fl) == ns) {
        *flags = malloc(ns + 1);
        if (!*flags) {
            free(*ctr);
            *ctr = NULL;
            return -1;
        }
        for (size_t q = 0; q < ns; q++) {
            json_t *v = json_array_get(fl, q);
            (*flags)[q] = json_is_integer(v)
                              ? (unsigned char)json_integer_value(v)
                              : 0;
        }
    }
    return 0;
}

/* The samples of one object of a cell (the cell's kept ones, or its
 * held ones): their ticks, counters, flags, clocks and probe readings. */
struct set {
    size_t n;
    double *ticks, *ctr, *clk, *probes;
    unsigned char *flags;
    size_t *at; /* held samples: their places (held.at) */
};

static void set_free(struct set *s)
{
    SB__FREE_ALL(s->ticks, s->ctr, s->clk, s->probes, s->flags, s->at);
    memset(s, 0, sizeof *s);
}

/* The count of reject reason j in o, the object cells[i].what of file
 * name (what: "rejected" or "disturbed"): 1 with it in *v, 0 when o holds
 * none, or SB_EIO for a count above 2^50.  That is far above any run's
 * samples (2^50 of 10 us is 357 years), and low enough that no sum of
 * them, over reasons and over the runs of a merge, wraps. */
static int reason_count(json_t *o, const char *name, size_t i,
                        const char *what, int j, size_t *v, sb_error *err)
{
    if (!json_is_object(o) || sb__load_size(o, sb_reject_name(j), v))
        return 0;
    if (*v > ((size_t)1 << 50))
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu].%s.%s: %zu is more samples than a "
                         "run takes",
                         name, i, what, sb_reject_name(j), *v);
    return 1;
}

/* The samples of object o of cell i, "in" naming o in messages. */
static int load_set(sb_run *run, const sb_cell_result *r, json_t *o,
                    const char *name, size_t i, const char *in,
                    struct set *s, sb_error *err)
{
    json_t *t = json_object_get(o, SB__JK_SAMPLES_TICKS);
    int rc;

    if (!json_is_array(t))
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu].%s" SB__JK_SAMPLES_TICKS
                         ": missing, or not an array",
                         name, i, in);
    s->n = json_array_size(t);
    rc = load_ticks(run, r, t, name, i, in, &s->ticks, err);
    if (rc != SB_OK)
        return rc;
    if (load_columns(run, o, s->n, &s->ctr, &s->flags) != 0 ||
        load_readings(o, SB__JK_SAMPLES_CLOCK, s->n, 1, &s->clk) != 0 ||
        load_readings(o, SB__JK_SAMPLES_PROBES, s->n, SB_PROBE_READINGS,
                      &s->probes) != 0)
        return sb__error(err, SB_ENOMEM, "out of memory");
    if (*in) {
        json_t *at = json_object_get(o, SB__JK_HELD_AT);
        if (!json_is_array(at) || json_array_size(at) != s->n)
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu].%s" SB__JK_HELD_AT
                             ": not an array of one place per held sample",
                             name, i, in);
        if (!(s->at = malloc((s->n + 1) * sizeof *s->at)))
            return sb__error(err, SB_ENOMEM, "out of memory");
        for (size_t q = 0; q < s->n; q++) {
            json_t *v = json_array_get(at, q);
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].%s" SB__JK_HELD_AT
                                 "[%zu]: not a place (an integer >= 0)",
                                 name, i, in, q);
            s->at[q] = (size_t)json_integer_value(v);
        }
    }
    return SB_OK;
}

/* A raw cell of s's n samples from sample at on. */
static void raw_of(const sb_run *run, const struct set *s, size_t at,
                   size_t n, sb__raw_cell *raw)
{
    size_t nc = run->meta.ncounters;
    raw->nsamples = n;
    raw->ticks = s->ticks + at;
    raw->ncounters = s->ctr ? nc : 0;
    raw->counter_names = run->meta.counter_names;
    raw->counters = s->ctr ? s->ctr + at * nc : NULL;
    raw->flags = s->flags ? s->flags + at : NULL;
    raw->clock = s->clk ? s->clk + at : NULL;
    raw->probes = s->probes ? s->probes + at * SB_PROBE_READINGS : NULL;
}

/* invocation_samples[g] of array invs, into *n: 0, or -1 when it is not
 * a count that fits in left. */
static int inv_count(json_t *invs, size_t g, size_t left, size_t *n)
{
    json_t *v = json_array_get(invs, g);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        (size_t)json_integer_value(v) > left)
        return -1;
    *n = (size_t)json_integer_value(v);
    return 0;
}

/* Cell i's invocations from its kept samples and (held an object) its
 * held ones, split by their invocation_samples (one invocation when the
 * cell has none). */
static int add_invocations(sb_run *run, size_t i, json_t *invs,
                           json_t *held, const struct set *kept,
                           const struct set *hold, const char *name,
                           sb_error *err)
{
    size_t ninv = json_is_array(invs) ? json_array_size(invs) : 0;
    json_t *hinv = json_is_object(held)
                       ? json_object_get(held, SB__JK_INVOCATION_SAMPLES)
                       : NULL;
    size_t at = 0, hat = 0, groups = ninv ? ninv : 1;

    /* An empty list is not "no boundaries": it says the samples belong to
     * no invocation. */
    if (json_is_array(invs) && ninv == 0 && kept->n > 0)
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_INVOCATION_SAMPLES
                         ": an empty list for %zu samples (leave it out "
                         "for one invocation)",
                         name, i, kept->n);
    if (hold->n && (!json_is_array(hinv) ||
                    json_array_size(hinv) != groups))
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_HELD
                         "." SB__JK_INVOCATION_SAMPLES
                         ": not one count per invocation (%zu)",
                         name, i, groups);
    for (size_t g = 0; g < groups; g++) {
        sb__raw_cell raw = {0}, rh = {0};
        size_t nk = kept->n, nh = 0;
        if (ninv && inv_count(invs, g, kept->n - at, &nk) != 0)
            return sb__error(err, SB_EIO,
                             "%s: cell %zu: \"" SB__JK_INVOCATION_SAMPLES
                             "\" does not add up to the samples",
                             name, i);
        if (hold->n && inv_count(hinv, g, hold->n - hat, &nh) != 0)
            return sb__error(err, SB_EIO,
                             "%s: cells[%zu]." SB__JK_HELD
                             "." SB__JK_INVOCATION_SAMPLES
                             " does not add up to the held samples",
                             name, i);
        /* The places of an invocation's held samples: rising, among its
         * nk + nh recorded samples. */
        for (size_t q = 0; q < nh; q++)
            if (hold->at[hat + q] >= nk + nh ||
                (q && hold->at[hat + q] <= hold->at[hat + q - 1]))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu]." SB__JK_HELD
                                 "." SB__JK_HELD_AT "[%zu]: %zu is not "
                                 "a place after the one before among "
                                 "the invocation's %zu samples",
                                 name, i, hat + q, hold->at[hat + q],
                                 nk + nh);
        raw_of(run, kept, at, nk, &raw);
        if (hold->n) {
            raw_of(run, hold, hat, nh, &rh);
            raw.held = &rh;
            raw.held_at = hold->at + hat;
        }
        if (sb__run_add_invocation(run, i, &raw) != SB_OK)
            return sb__error(err, SB_ENOMEM, "out of memory");
        at += nk;
        hat += nh;
    }
    if (at != kept->n)
        return sb__error(err, SB_EIO,
                         "%s: cell %zu: \"" SB__JK_INVOCATION_SAMPLES
                         "\" does not add up to the samples",
                         name, i);
    if (hat != hold->n)
        return sb__error(err, SB_EIO,
                         "%s: cells[%zu]." SB__JK_HELD
                         "." SB__JK_INVOCATION_SAMPLES
                         " does not add up to the held samples",
                         name, i);
    return SB_OK;
}

/* Cell i of the file, the object c, into run->cells[i]. */
static int load_cell(sb_run *run, size_t i, json_t *c, const char *name,
                     sb_error *err)
{
    sb_cell_result *r = &run->cells[i];
    json_t *samples = json_object_get(c, SB__JK_SAMPLES_TICKS);
    json_t *invs = json_object_get(c, SB__JK_INVOCATION_SAMPLES);
    json_t *rej = json_object_get(c, SB__JK_REJECTED);
    const char *kname = sb__load_str(c, SB__JK_KERNEL);
    void *const base[SB__J_NBASES] = {NULL, NULL, NULL, r};
    json_t *held = json_object_get(c, SB__JK_HELD);
    const sb_kernel *k;
    struct set kept = {0}, hold = {0};
    int rc;

    {
        /* Present but not a count: named, rather than called missing. */
        static const char *const keys[] = {SB__JK_SIZE, SB__JK_SRC_ALIGN,
                                           SB__JK_DST_ALIGN};
        for (size_t q = 0; q < 3; q++) {
            json_t *v = json_object_get(c, keys[q]);
            if (v && (!json_is_integer(v) || json_integer_value(v) < 0))
                return sb__error(err, SB_EIO,
                                 "%s: cells[%zu].%s: not a whole number of "
                                 "bytes (an integer >= 0)",
                                 name, i, keys[q]);
        }
    }
    if (!kname || sb__load_size(c, SB__JK_SIZE, &r->cell.size) ||
        sb__load_size(c, SB__JK_SRC_ALIGN, &r->cell.src_align) ||
        sb__load_size(c, SB__JK_DST_ALIGN, &r->cell.dst_align) ||
        !json_is_array(samples))
        return sb__error(err, SB_EIO,
                         "%s: cell %zu: missing \"" SB__JK_KERNEL "\", \""
                         SB__JK_SIZE "\", \"" SB__JK_SRC_ALIGN "\", \""
                         SB__JK_DST_ALIGN "\" or \"" SB__JK_SAMPLES_TICKS
                         "\"",
                         name, i);
    k = sb_kernel_find(kname);
    if (!k) {
        /* The stand-ins carry cleaned names: look the cleaned name up. */
        char *clean = sb__clean_copy(kname);
        if (!clean)
            return sb__error(err, SB_ENOMEM, "out of memory");
        k = sb__run_own_kernel(run, clean);
        free(clean);
    }
    r->cell.kernel = k;
    /* The plain fields a cell keeps (iterations per sample, warm-up, CPU
     * time); its statistics are recomputed from the samples. */
    sb__json_load_fields(sb__json_cell, sb__json_ncell, c, base, "cells",
                         NULL, NULL);
    for (int j = 0; j < SB_REJECT_NREASONS; j++) {
        size_t v = 0;
        json_t *dist = json_object_get(c, SB__JK_DISTURBED);
        int got = reason_count(rej, name, i, "rejected", j, &v, err);
        if (got < 0)
            return got;
        if (got) {
            r->rejected[j] = v;
            r->rejected_total += v;
        }
        got = reason_count(dist, name, i, "disturbed", j, &v, err);
        if (got < 0)
            return got;
        if (got)
            r->disturbed[j] = v;
    }

    rc = load_set(run, r, c, name, i, "", &kept, err);
    if (rc == SB_OK && json_is_object(held))
        rc = load_set(run, r, held, name, i, SB__JK_HELD ".", &hold, err);
    if (rc == SB_OK)
        rc = add_invocations(run, i, invs, held, &kept, &hold, name, err);
    set_free(&kept);
    set_free(&hold);
    /* The totals came from the file; adding invocations counted none. */
    return rc;
}

/* The cells of the file, each an object, into run's. */
int sb__load_cells(sb_run *run, json_t *cells, const char *name,
                   sb_error *err)
{
    json_t *c;
    size_t i;
    int rc;

    json_array_foreach(cells, i, c)
    {
        if (!json_is_object(c))
            return sb__error(err, SB_EIO, "%s: cell %zu is not an object",
                             name, i);
        rc = load_cell(run, i, c, name, err);
        if (rc != SB_OK)
            return rc;
    }
    return SB_OK;
}
