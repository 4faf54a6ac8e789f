/*
 * test_schema.c: a saved run read back, field by field over the whole
 * JSON schema.  The test walks the schema's one list
 * (src/io/schema.c), so a field added there is covered without a
 * change here:
 *
 *  - every field the loader reads (SB__J_LOAD) is first given a distinct
 *    value that is not its default, then must read back equal;
 *  - every other plain field is either read by hand (listed below, with
 *    the reason) or recomputed from the samples on load; either way it
 *    must come back equal, bit for bit (the samples are first rounded to
 *    the ten digits the writer keeps, so that the recomputation sees the
 *    very same doubles);
 *  - every custom field (arrays, objects keyed by name) has its own check
 *    below, by id; one the test does not know fails, naming it;
 *  - the list and docs/schema.md agree: every key of the list is
 *    documented, and every meta field, timer field and option the
 *    document names is in the list (a field dropped from the list is
 *    neither written nor read, and nothing else would notice);
 *  - every column of the reports (src/report/columns.c) that names the
 *    JSON field its value is names a field of the cell.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "schema.h"
#include "run_internal.h"
#include "tap.h"
#include "report_text.h"

/* Plain fields outside a cell that the loader reads by hand, not by the
 * walk, and why. */
static const struct {
    const char *key, *why;
} by_hand[] = {
    {"hz", "required, refused with its own message when missing or not "
           "positive"},
    {"hz_source", "a pointer: the loaded run keeps the text in its own "
                  "buffer"},
    {"cpu", "range-checked: a CPU number or -1"},
};

/* Cell fields read by hand: the cell's identity and its sample counts.
 * Every other plain cell field not marked SB__J_LOAD is a statistic,
 * recomputed from the samples by sb__run_analyse. */
static const char *const cell_by_hand[] = {
    "size", "src_align", "dst_align", "samples", "rejected_total",
    "invocations",
};

/* Custom fields that are written and deliberately not read back. */
static const struct {
    int id;
    const char *why;
} written_only[] = {
    {SB__JC_TICK_UNIT, "follows from the timer's kind"},
    {SB__JC_OUTLIERS, "the saved samples are what the saved policy kept; "
                      "the loader applies the caller's policy, or keeps "
                      "them all"},
    {SB__JC_COMPARISON, "a comparison is made again against a baseline "
                        "(compare, --against), not restored"},
    {SB__JC_SHARED_MARGIN, "the saved samples and held samples are what "
                           "the saved decision made of them; the loader "
                           "decides as saved unless asked"},
    {SB__JC_SHARED_LEVEL, "as shared_margin"},
    {SB__JC_CHAIN_APART, "the saved clocks are what the saved decision "
                         "made of the chain readings; the loader decides "
                         "as saved unless asked"},
};

static unsigned serial; /* makes every value set distinct */
static const char *written; /* the JSON text of the run */

static void *at(void *const base[SB__J_NBASES], const sb__jfield *f)
{
    return (char *)base[f->base] + f->offset;
}

/* A number with at most ten significant digits, as strtod reads the
 * writer's text back. */
static double decimal(const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    return strtod(buf, NULL);
}

/* Give every field the walk loads a distinct value its check accepts. */
static void set_loaded(const sb__jfield *t, size_t n,
                       void *const base[SB__J_NBASES])
{
    for (size_t i = 0; i < n; i++) {
        const sb__jfield *f = &t[i];
        if (f->type == SB__J_OBJECT) {
            set_loaded(f->sub, f->nsub, base);
            continue;
        }
        if (!(f->flags & SB__J_LOAD))
            continue;
        serial++;
        switch (f->type) {
        case SB__J_STR:
            snprintf(at(base, f), f->size, "%s, set by the test (%u)",
                     f->key, serial);
            break;
        case SB__J_NUM: {
            double v = f->check == SB__J_OPEN_UNIT ||
                               f->check == SB__J_HALF_UNIT
                           ? decimal("%.3f", 0.5 + 0.001 * serial)
                           : decimal("%.2f", 1000.25 + serial);
            if (f->check == SB__J_HALF_UNIT)
                v = decimal("%.4f", 0.01 + 0.0001 * serial);
            memcpy(at(base, f), &v, sizeof v);
            break;
        }
        case SB__J_SIZE: {
            size_t v = 100 + serial;
            memcpy(at(base, f), &v, sizeof v);
            break;
        }
        case SB__J_BOOL:
        case SB__J_INT: {
            int v;
            memcpy(&v, at(base, f), sizeof v);
            v = f->type == SB__J_BOOL ? !v : v + 7;
            memcpy(at(base, f), &v, sizeof v);
            break;
        }
        }
    }
}

static int same_num(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int same_iv(const sb_interval *a, const sb_interval *b)
{
    return same_num(a->estimate, b->estimate) && same_num(a->lo, b->lo) &&
           same_num(a->hi, b->hi) && same_num(a->level, b->level) &&
           same_num(a->achieved, b->achieved);
}

static int listed(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(key, list[i]))
            return 1;
    return 0;
}

/* Compare one plain field of a and b; 1 when equal. */
static int same_field(const sb__jfield *f, void *const a[SB__J_NBASES],
                      void *const b[SB__J_NBASES])
{
    const void *x = at(a, f), *y = at(b, f);
    switch (f->type) {
    case SB__J_STR:
        return !strcmp(x, y);
    case SB__J_STRPTR: {
        const char *s, *t;
        memcpy(&s, x, sizeof s);
        memcpy(&t, y, sizeof t);
        return s && t ? !strcmp(s, t) : s == t;
    }
    case SB__J_NUM: {
        double u, v;
        memcpy(&u, x, sizeof u);
        memcpy(&v, y, sizeof v);
        return same_num(u, v);
    }
    case SB__J_SIZE: {
        size_t u, v;
        memcpy(&u, x, sizeof u);
        memcpy(&v, y, sizeof v);
        return u == v;
    }
    case SB__J_INT:
    case SB__J_BOOL: {
        int u, v;
        memcpy(&u, x, sizeof u);
        memcpy(&v, y, sizeof v);
        return f->type == SB__J_BOOL ? !u == !v : u == v;
    }
    case SB__J_INTERVAL: {
        sb_interval u, v;
        memcpy(&u, x, sizeof u);
        memcpy(&v, y, sizeof v);
        return same_iv(&u, &v);
    }
    }
    return 0;
}

static int same_doubles(const double *a, const double *b, size_t n)
{
    if (!a || !b)
        return a == b || n == 0;
    for (size_t i = 0; i < n; i++)
        if (!same_num(a[i], b[i]))
            return 0;
    return 1;
}

/* The check of one custom field: 1 when a and b agree, -1 when the test
 * does not know the field. */
static int same_custom(int id, const sb_run *a, const sb_run *b, size_t i)
{
    const sb_meta *m = &a->meta, *n = &b->meta;
    const sb_cell_result *r = i < a->ncells ? &a->cells[i] : NULL;
    const sb_cell_result *s = i < b->ncells ? &b->cells[i] : NULL;
    int ok = 1;

    switch (id) {
    case SB__JC_TIMER_KIND:
        return m->timer.kind == n->timer.kind;
    case SB__JC_COMMAND:
        return a->command && b->command && !strcmp(a->command, b->command);
    case SB__JC_CPU_FEATURES:
        return m->cpu_features == n->cpu_features;
    case SB__JC_SEED:
        return a->measure.seed == b->measure.seed;
    case SB__JC_CACHE:
        return a->measure.cache == b->measure.cache;
    case SB__JC_REJECT:
        return a->measure.reject == b->measure.reject;
    case SB__JC_COUNTER_NAMES:
        ok = m->ncounters == n->ncounters;
        for (size_t j = 0; ok && j < m->ncounters; j++)
            ok = !strcmp(m->counter_names[j], n->counter_names[j]);
        return ok;
    case SB__JC_NOTES:
        return !strcmp(m->notes, n->notes);
    case SB__JC_CACHES:
        ok = m->ncaches == n->ncaches;
        for (size_t j = 0; ok && j < m->ncaches; j++)
            ok = !strcmp(m->caches[j].label, n->caches[j].label) &&
                 m->caches[j].bytes == n->caches[j].bytes;
        return ok;
    case SB__JC_ENV:
        ok = m->env.n == n->env.n;
        for (size_t j = 0; ok && j < m->env.n; j++)
            ok = !strcmp(m->env.items[j].key, n->env.items[j].key) &&
                 !strcmp(m->env.items[j].value, n->env.items[j].value) &&
                 !m->env.items[j].warn == !n->env.items[j].warn &&
                 !strcmp(m->env.items[j].advice, n->env.items[j].advice);
        return ok;
    case SB__JC_KERNEL:
        return !strcmp(r->cell.kernel->name, s->cell.kernel->name);
    case SB__JC_FAMILY:
        return r->cell.kernel->family == s->cell.kernel->family;
    case SB__JC_REJECTED:
        return !memcmp(r->rejected, s->rejected, sizeof r->rejected);
    case SB__JC_DISTURBED:
        return !memcmp(r->disturbed, s->disturbed, sizeof r->disturbed);
    case SB__JC_INVOCATION_SAMPLES:
        ok = r->invocations == s->invocations;
        for (size_t g = 0; ok && g < r->invocations; g++)
            ok = r->inv_nsamples[g] == s->inv_nsamples[g];
        return ok;
    case SB__JC_INVOCATION_MEDIANS:
        return r->invocations == s->invocations &&
               same_doubles(r->inv_median, s->inv_median, r->invocations);
    case SB__JC_SAMPLES_TICKS:
        return r->nsamples == s->nsamples &&
               same_doubles(r->ticks, s->ticks, r->nsamples);
    case SB__JC_COUNTERS:
        ok = r->ncounters == s->ncounters;
        for (size_t j = 0; ok && j < r->ncounters; j++)
            ok = !strcmp(r->counters[j].name, s->counters[j].name) &&
                 same_iv(&r->counters[j].per_call,
                         &s->counters[j].per_call) &&
                 same_num(r->counters[j].per_byte, s->counters[j].per_byte);
        return ok;
    case SB__JC_SAMPLES_COUNTERS:
        for (size_t j = 0; ok && j < m->ncounters; j++)
            ok = same_doubles(sb_run_counter_samples(a, i, j),
                              sb_run_counter_samples(b, i, j), r->nsamples);
        return ok;
    case SB__JC_SAMPLES_FLAGS: {
        const unsigned char *x = sb_run_sample_flags(a, i),
                            *y = sb_run_sample_flags(b, i);
        return x && y ? !memcmp(x, y, r->nsamples) : x == y;
    }
    case SB__JC_METRIC:
        return a->analysis.metric == b->analysis.metric;
    case SB__JC_CELL_METRIC:
        return r->metric == s->metric;
    case SB__JC_SAMPLES_CLOCK:
        return same_doubles(sb_run_sample_clock(a, i),
                            sb_run_sample_clock(b, i), r->nsamples);
    case SB__JC_SAMPLES_PROBES: {
        const double *p = sb_run_sample_probes(a, i);
        const double *q = sb_run_sample_probes(b, i);
        return (p == NULL) == (q == NULL) &&
               (!p || same_doubles(p, q, r->nsamples * SB_PROBE_READINGS));
    }
    case SB__JC_HELD: {
        sb_held_samples h = {.size = sizeof h}, g = {.size = sizeof g};
        if (sb_run_held_samples(a, i, &h, NULL) != SB_OK ||
            sb_run_held_samples(b, i, &g, NULL) != SB_OK || h.n != g.n)
            return 0;
        return !h.n ||
               (same_doubles(h.ticks, g.ticks, h.n) &&
                !memcmp(h.at, g.at, h.n * sizeof *h.at) &&
                !memcmp(h.invocation_samples, g.invocation_samples,
                        r->invocations * sizeof *h.invocation_samples) &&
                (h.probes == NULL) == (g.probes == NULL) &&
                (!h.probes ||
                 same_doubles(h.probes, g.probes, h.n * SB_PROBE_READINGS)));
    }
    case SB__JC_INV_CLOCK:
        return m->probe_ninv == n->probe_ninv &&
               same_doubles(m->probe_inv_clock, n->probe_inv_clock,
                            m->probe_ninv);
    case SB__JC_INV_QUIET:
        return m->probe_ninv == n->probe_ninv &&
               same_doubles(m->probe_inv_quiet, n->probe_inv_quiet,
                            m->probe_ninv);
    case SB__JC_RUN_MEDIANS:
        return r->runs == s->runs &&
               same_doubles(r->run_median, s->run_median, r->runs);
    case SB__JC_RUN_BETWEEN:
        return same_num(r->run_levels.between_fraction,
                        s->run_levels.between_fraction);
    }
    return -1;
}

static const char *written_only_why(int id)
{
    for (size_t k = 0; k < sizeof written_only / sizeof written_only[0];
         k++)
        if (written_only[k].id == id)
            return written_only[k].why;
    return NULL;
}

/* Walk a table: every field of a and b compared; where names the cell
 * ("cell 1") or is "meta". */
static void compare(const sb__jfield *t, size_t n, const char *path,
                    const sb_run *a, const sb_run *b, size_t cell,
                    void *const ba[SB__J_NBASES],
                    void *const bb[SB__J_NBASES])
{
    for (size_t i = 0; i < n; i++) {
        const sb__jfield *f = &t[i];
        char sub[160];
        snprintf(sub, sizeof sub, "%s.%s", path, f->key);
        if (f->type == SB__J_OBJECT) {
            compare(f->sub, f->nsub, sub, a, b, cell, ba, bb);
            continue;
        }
        if (f->type == SB__J_CUSTOM) {
            const char *why = written_only_why(f->custom);
            int same;
            if (why) {
                /* Not read back: what can be checked is that it is
                 * written. */
                char quoted[96];
                snprintf(quoted, sizeof quoted, "\"%s\":", f->key);
                tap_ok(written && strstr(written, quoted) != NULL,
                       "%s: written (not read back: %s)", sub, why);
                continue;
            }
            same = same_custom(f->custom, a, b, cell);
            if (same < 0)
                tap_ok(0, "%s: a custom field (id %d) this test has no "
                          "check for: add one to same_custom",
                       sub, f->custom);
            else
                tap_ok(same, "%s: read back equal", sub);
            continue;
        }
        if (f->flags & SB__J_LOAD) {
            tap_ok(same_field(f, ba, bb), "%s: loaded, equal", sub);
        } else if (f->base == SB__J_CELL) {
            tap_ok(same_field(f, ba, bb), "%s: %s, equal", sub,
                   listed(f->key, cell_by_hand,
                          sizeof cell_by_hand / sizeof cell_by_hand[0])
                       ? "read by hand"
                       : "recomputed from the samples");
        } else {
            const char *why = NULL;
            for (size_t k = 0; k < sizeof by_hand / sizeof by_hand[0]; k++)
                if (!strcmp(by_hand[k].key, f->key))
                    why = by_hand[k].why;
            tap_ok(why && same_field(f, ba, bb),
                   "%s: read by hand (%s), equal", sub,
                   why ? why : "NOT LISTED: neither walked nor listed");
        }
    }
}

static const sb_kernel *libc_kernel(void)
{
    return sb_kernel_find("libc");
}

static sb_run *measure(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;

    sb_measure_options_init(&o);
    o.invocations = o.max_invocations = 2;
    o.max_time = 30;
    o.min_samples = o.max_samples = 20;
    /* Two cells that differ only in the destination offset. */
    sb_plan_add(plan, libc_kernel(), 4096, 0, 0, NULL);
    sb_plan_add(plan, libc_kernel(), 4096, 0, 64, NULL);
    return measure_plan(plan, &o);
}

/* Every value set, the samples rounded to the writer's ten digits, the
 * statistics recomputed. */
static int populate(sb_run *run)
{
    void *base[SB__J_NBASES] = {&run->meta, &run->measure, &run->analysis,
                                NULL};
    sb_analysis_options a;
    sb_error e = {0};
    size_t bl[2] = {SIZE_MAX, 0};

    set_loaded(sb__json_meta, sb__json_nmeta, base);
    run->meta.timer.hz = 2345500000.0;
    run->meta.timer.hz_source = "set by the test";
    run->meta.timer.kind = run->meta.timer.kind == SB_TIMER_TSC
                               ? SB_TIMER_CLOCK
                               : SB_TIMER_TSC;
    run->meta.cpu = run->meta.cpu == 1 ? 0 : 1;
    run->meta.cpu_features = SB_FEAT_MMX | SB_FEAT_AVX512F | SB_FEAT_FSRM;
    snprintf(run->meta.notes, sizeof run->meta.notes,
             "a first note\na second note");
    run->meta.env.n = 2;
    for (size_t j = 0; j < 2; j++) {
        sb_env_item *it = &run->meta.env.items[j];
        snprintf(it->key, sizeof it->key, "key%zu", j);
        snprintf(it->value, sizeof it->value, "value %zu", j);
        it->warn = (int)j;
        snprintf(it->advice, sizeof it->advice, "advice %zu", j);
    }
    /* Caches that no machine has, so that equal means read back. */
    run->meta.ncaches = 2;
    run->meta.caches[0] = (sb_cache_size){"L1d", 12345};
    run->meta.caches[1] = (sb_cache_size){"L9", (size_t)1 << 40};
    free(run->command);
    run->command = strdup("statbench --set-by-the-test");
    run->measure.seed = UINT64_C(0xF00000000000012B); /* above INT64_MAX */
    run->measure.cache = SB_CACHE_COLD;
    run->measure.reject = SB_REJECT_NONE;
    run->analysis.outliers = SB_OUTLIERS_KEEP; /* what the loader keeps */
    for (size_t g = 0; g < run->meta.probe_ninv; g++) {
        run->meta.probe_inv_clock[g] =
            decimal("%.9e", run->meta.probe_inv_clock[g]);
        run->meta.probe_inv_quiet[g] =
            decimal("%.9e", run->meta.probe_inv_quiet[g]);
    }
    run->interrupted = 1;
    run->elapsed = 12.5;
    run->rounds = 777;
    for (size_t i = 0; i < run->ncells; i++) {
        sb_cell_result *r = &run->cells[i];
        void *cb[SB__J_NBASES] = {NULL, NULL, NULL, r};
        set_loaded(sb__json_cell, sb__json_ncell, cb);
        r->rejected_total = 0;
        for (int k = 0; k < SB_REJECT_NREASONS; k++) {
            r->rejected[k] = 3 + (size_t)k + 10 * i;
            r->rejected_total += r->rejected[k];
            r->disturbed[k] = 40 + (size_t)k + 10 * i;
        }
        for (size_t j = 0; j < r->nsamples; j++) {
            r->ticks[j] = decimal("%.9e", r->ticks[j]);
            for (size_t c = 0; c < run->meta.ncounters; c++)
                if (run->samples[i].counters[c])
                    run->samples[i].counters[c][j] =
                        decimal("%.9e", run->samples[i].counters[c][j]);
            if (run->samples[i].clock)
                run->samples[i].clock[j] =
                    decimal("%.9e", run->samples[i].clock[j]);
            if (run->samples[i].flags)
                run->samples[i].flags[j] =
                    (unsigned char)((j % 3 == 0 ? 1u : 0u) |
                                    (j % 5 == 0 ? 8u : 0u));
            for (size_t k = 0;
                 run->samples[i].probes && k < SB_PROBE_READINGS; k++)
                run->samples[i].probes[j * SB_PROBE_READINGS + k] = decimal(
                    "%.9e", run->samples[i].probes[j * SB_PROBE_READINGS + k]);
        }
        /* The held samples, which this host's shared core may give the
         * measured run, as the writer keeps them too. */
        for (size_t j = 0; run->held && j < run->held[i].n; j++) {
            sb__cell_held *h = &run->held[i];
            h->ticks[j] = decimal("%.9e", h->ticks[j]);
            if (h->cols.clock)
                h->cols.clock[j] = decimal("%.9e", h->cols.clock[j]);
            for (size_t k = 0; h->cols.probes && k < SB_PROBE_READINGS; k++)
                h->cols.probes[j * SB_PROBE_READINGS + k] = decimal(
                    "%.9e", h->cols.probes[j * SB_PROBE_READINGS + k]);
        }
    }
    if (!tap_ok(run->samples[0].flags != NULL, "the run keeps sample flags"))
        return -1;
    a = run->analysis;
    if (sb_run_reanalyse(run, &a, &e) != SB_OK ||
        sb_run_set_baselines(run, bl, &e) != SB_OK) {
        tap_diag("reanalyse: %s", e.text);
        return -1;
    }
    return 0;
}

/* ---- values the checks refuse ------------------------------------------- */

/* Load doc; NULL when refused. */
static sb_run *load_json(json_t *doc)
{
    char *t = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    FILE *f = t ? fmemopen(t, strlen(t), "r") : NULL;
    sb_run *run = NULL;
    sb_error e = {0};
    if (!f || sb_run_load_new(f, "refused", NULL, &run, &e) != SB_OK)
        tap_diag("load: %s", e.text);
    if (f)
        fclose(f);
    free(t);
    return run;
}

/* Values just outside what each check accepts. */
static size_t bad_values(int check, double *v)
{
    switch (check) {
    case SB__J_POSITIVE:
        v[0] = 0, v[1] = -1;
        return 2;
    case SB__J_NONNEG:
        v[0] = -1e-9, v[1] = -1;
        return 2;
    case SB__J_OPEN_UNIT:
        v[0] = 0, v[1] = 1;
        return 2;
    case SB__J_HALF_UNIT:
        v[0] = -1e-9, v[1] = 1;
        return 2;
    case SB__J_AT_LEAST_1:
        v[0] = 0;
        return 1;
    }
    return 0;
}

/* For every field of t (in object o of doc) that the loader checks: a
 * value the check refuses loads as if the field were absent. */
static void check_refusals(json_t *doc, json_t *o, const sb__jfield *t,
                           size_t n, const char *path, int cell)
{
    for (size_t i = 0; i < n; i++) {
        const sb__jfield *f = &t[i];
        char sub[128];
        double bad[2];
        size_t nbad;
        json_t *saved;
        sb_run *absent, *refused;
        snprintf(sub, sizeof sub, "%s.%s", path, f->key);
        if (f->type == SB__J_OBJECT) {
            json_t *s = json_object_get(o, f->key);
            if ((f->flags & SB__J_LOAD) && json_is_object(s))
                check_refusals(doc, s, f->sub, f->nsub, sub, cell);
            continue;
        }
        if (!(f->flags & SB__J_LOAD) ||
            (nbad = bad_values(f->check, bad)) == 0)
            continue;
        saved = json_incref(json_object_get(o, f->key));
        json_object_del(o, f->key);
        absent = load_json(doc);
        for (size_t k = 0; k < nbad; k++) {
            void *ba[SB__J_NBASES], *bb[SB__J_NBASES];
            json_object_set_new(o, f->key,
                                f->type == SB__J_SIZE
                                    ? json_integer((json_int_t)bad[k])
                                    : json_real(bad[k]));
            refused = load_json(doc);
            if (absent && refused) {
                ba[SB__J_META] = &absent->meta;
                ba[SB__J_MOPTS] = &absent->measure;
                ba[SB__J_AOPTS] = &absent->analysis;
                ba[SB__J_CELL] = &absent->cells[cell];
                bb[SB__J_META] = &refused->meta;
                bb[SB__J_MOPTS] = &refused->measure;
                bb[SB__J_AOPTS] = &refused->analysis;
                bb[SB__J_CELL] = &refused->cells[cell];
            }
            tap_ok(absent && refused && same_field(f, ba, bb),
                   "%s = %g is refused: loaded as if absent", sub, bad[k]);
            sb_run_free(refused);
        }
        sb_run_free(absent);
        json_object_set_new(o, f->key, saved);
    }
}

static void check_refused_values(const char *text)
{
    json_t *doc = json_loads(text, 0, NULL);
    json_t *meta = json_object_get(doc, SB__JK_META);
    json_t *cells = json_object_get(doc, SB__JK_CELLS);

    if (!tap_ok(json_is_object(meta) && json_array_size(cells) > 0,
                "the written run parses"))
        return;
    check_refusals(doc, meta, sb__json_meta, sb__json_nmeta, "meta", 0);
    check_refusals(doc, json_array_get(cells, 0), sb__json_cell,
                   sb__json_ncell, "cells[0]", 0);
    json_decref(doc);
}

/* ---- the list against docs/schema.md ------------------------------------ */

static int documented(const char *doc, const char *key)
{
    char tick[96];
    snprintf(tick, sizeof tick, "`%s`", key);
    if (strstr(doc, tick))
        return 1;
    snprintf(tick, sizeof tick, "`meta.%s`", key);
    return strstr(doc, tick) != NULL;
}

static void keys_documented(const sb__jfield *t, size_t n, const char *doc,
                            const char *path, size_t *missing)
{
    for (size_t i = 0; i < n; i++) {
        if (!documented(doc, t[i].key)) {
            tap_diag("%s.%s: not in docs/schema.md", path, t[i].key);
            ++*missing;
        }
        if (t[i].type == SB__J_OBJECT)
            keys_documented(t[i].sub, t[i].nsub, doc, path, missing);
    }
}

static const sb__jfield *find_key(const sb__jfield *t, size_t n,
                                  const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].key, key))
            return &t[i];
    return NULL;
}

/* The backquoted names of text outside parentheses, each looked up in
 * table t; returns how many are missing (diagnosed). */
static size_t names_in_list(const char *text, const char *end,
                            const sb__jfield *t, size_t n, const char *what,
                            size_t *seen)
{
    size_t missing = 0;
    int depth = 0;
    for (const char *p = text; p < end; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if (*p == '`' && depth == 0) {
            const char *q = strchr(p + 1, '`');
            char key[64];
            if (!q || q >= end || (size_t)(q - p) >= sizeof key)
                break;
            snprintf(key, sizeof key, "%.*s", (int)(q - p - 1), p + 1);
            if (!strncmp(key, "meta.", 5))
                memmove(key, key + 5, strlen(key + 5) + 1);
            ++*seen;
            if (!find_key(t, n, key)) {
                tap_diag("docs/schema.md names %s `%s`: not in the list",
                         what, key);
                missing++;
            }
            p = q;
        }
    }
    return missing;
}

static void check_docs(void)
{
    const char *top = getenv("top_srcdir");
    char path[1024], *doc = NULL;
    size_t len = 0, missing = 0, seen = 0, wrong = 0;
    FILE *f;
    const sb__jfield *timer, *opts;

    snprintf(path, sizeof path, "%s/docs/schema.md", top ? top : ".");
    f = fopen(path, "r");
    if (!f) {
        tap_skip("%s: cannot read it", path);
        return;
    }
    doc = malloc(1 << 20);
    if (doc)
        len = fread(doc, 1, (1 << 20) - 1, f);
    fclose(f);
    if (!doc)
        return;
    doc[len] = '\0';
    keys_documented(sb__json_meta, sb__json_nmeta, doc, "meta", &missing);
    keys_documented(sb__json_cell, sb__json_ncell, doc, "cells[]",
                    &missing);
    tap_ok(missing == 0, "every key of the schema's list is documented in "
                         "docs/schema.md (%zu missing)", missing);

    timer = find_key(sb__json_meta, sb__json_nmeta, SB__JK_TIMER);
    opts = find_key(sb__json_meta, sb__json_nmeta, SB__JK_OPTIONS);
    /* The table's rows: "| `meta.x`, `meta.y` | meaning |".  The first
     * column names meta fields; the timer's and the options' rows list
     * their keys in the second (values in parentheses). */
    for (char *line = doc; line && *line;) {
        char *eol = strchr(line, '\n');
        char *end = eol ? eol : line + strlen(line);
        if (!strncmp(line, "| `meta.", 8)) {
            char *bar = strchr(line + 1, '|');
            if (bar && bar < end) {
                wrong += names_in_list(line + 1, bar, sb__json_meta,
                                       sb__json_nmeta, "the meta field",
                                       &seen);
                if (!strncmp(line, "| `meta.timer` |", 16) && timer)
                    wrong += names_in_list(bar + 1, end, timer->sub,
                                           timer->nsub, "the timer field",
                                           &seen);
                if (!strncmp(line, "| `meta.options` |", 18) && opts)
                    wrong += names_in_list(bar + 1, end, opts->sub,
                                           opts->nsub, "the option",
                                           &seen);
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    tap_ok(wrong == 0 && seen >= 30,
           "every meta field, timer field and option docs/schema.md names "
           "is in the list (%zu names, %zu missing)", seen, wrong);
    free(doc);
}

/* The link from the reports' columns to the schema's one list of keys:
 * a column's JSON field (an SB__JK_* key) is a field of the cell, and a
 * column without one is a figure of the run's. */
static void check_columns(void)
{
    size_t linked = 0;

    for (size_t c = 0; c < sb__ncolumns; c++) {
        const sb__column *k = &sb__columns[c];
        const char *name = k->csv    ? k->csv
                           : k->md   ? k->md
                                     : k->table[0];
        int found = 0;
        if (!k->json)
            continue;
        for (size_t j = 0; j < sb__json_ncell; j++)
            found |= !strcmp(k->json, sb__json_cell[j].key);
        linked += (size_t)found;
        tap_ok(found, "column %s: its JSON field %s is a field of the cell",
               name ? name : "?", k->json);
    }
    tap_ok(linked + 2 >= sb__ncolumns,
           "%zu of %zu columns name their JSON field (unit and timer_hz "
           "are the run's)", linked, sb__ncolumns);
}

int main(void)
{
    sb_run *run, *back;
    char *text = NULL;

    check_docs();
    check_columns();
    run = measure();
    if (!tap_ok(run != NULL, "a run to write") || populate(run) != 0) {
        sb_run_free(run);
        return tap_done();
    }
    tap_ok(run->meta.ncounters > 0 && run->cells[1].ncounters > 0,
           "the run has counters to carry (%zu)", run->meta.ncounters);
    back = json_round_trip(run, &text);
    written = text;
    if (tap_ok(back != NULL, "written and read back")) {
        void *ba[SB__J_NBASES] = {&run->meta, &run->measure, &run->analysis,
                                  NULL};
        void *bb[SB__J_NBASES] = {&back->meta, &back->measure,
                                  &back->analysis, NULL};
        TAP_IS_INT(back->ncells, run->ncells, "cells");
        tap_ok(back->interrupted == run->interrupted &&
                   back->elapsed == run->elapsed &&
                   back->rounds == run->rounds,
               "interrupted, elapsed_s, rounds: read back equal");
        /* invocations_run: recomputed, the first cell's invocations. */
        TAP_IS_INT(back->invocations, run->invocations, "invocations_run");
        compare(sb__json_meta, sb__json_nmeta, "meta", run, back, 0, ba,
                bb);
        for (size_t i = 0; i < run->ncells && i < back->ncells; i++) {
            char path[32];
            void *ca[SB__J_NBASES] = {NULL, NULL, NULL, &run->cells[i]};
            void *cb[SB__J_NBASES] = {NULL, NULL, NULL, &back->cells[i]};
            snprintf(path, sizeof path, "cells[%zu]", i);
            compare(sb__json_cell, sb__json_ncell, path, run, back, i, ca,
                    cb);
        }
        {
            /* A seed above INT64_MAX is written as a string of digits
             * (docs/schema.md); the negative integer earlier builds wrote
             * reads back the same, so only the text shows it. */
            char want[64];
            snprintf(want, sizeof want, "\"seed\": \"%llu\"",
                     (unsigned long long)run->measure.seed);
            tap_ok(strstr(text, want) != NULL, "the seed is written as %s",
                   want);
        }
        check_refused_values(text);
        {
            const sb_comparison *c = sb_run_comparison(run, 1);
            tap_ok(c && c->valid, "the written run held a comparison "
                                  "(so the comparison field was written)");
        }
    }
    free(text);
    sb_run_free(back);
    sb_run_free(run);
    return tap_done();
}
