/*
 * history.c: saved runs of one plan in time order, and the change points
 * of each cell's series (statbench history).
 *
 * A point of a series is one run's estimate of the cell and its interval,
 * in the cell's metric: core cycles per call when every run judged the
 * cell in core cycles (sb_cell_result.metric, with a core clock), else
 * time per call in ns (ticks over the run's timer rate, so runs of
 * another timer rate still line up); imported values stay in their own
 * unit.  A run's estimate already summarises its invocations, so the
 * series' noise is the run-to-run noise that a history is about.
 *
 * Runs of another host or CPU model are not points of the same series:
 * a faster machine would read as a change.  The history is that of the
 * newest run's host and CPU model; the others are kept apart, named, and
 * said once per host and CPU model in the notes.
 *
 * A change point's size is median(after) / median(before) over the run
 * estimates of the two segments it separates (up to the change points
 * either side), with a percentile bootstrap interval (sb_stats_ratio_
 * boot_ci, 2000 resamples, seeded).  Whether the newest run starts a
 * regression is decided by running the detection again without it
 * (sb_history_cell.regression): a change that the newest run's arrival
 * made detectable: the runs without it showed no slowdown within
 * min_size runs of the change.  So a regression fails a gate once, at
 * the run that reveals it, which may come before min_size runs follow
 * the change (the split then lies a run or two early); the output names
 * the run where it was placed.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "sb_internal.h"
#include "stats_internal.h"
#include "text.h"

#define HISTORY_BOOT 2000

/* A cell: its series are slices of the history's arrays of points. */
typedef struct hcell {
    sb_history_cell pub;
    size_t *run;
    double *est, *lo, *hi;
    sb_history_change *ch;
} hcell;

struct sb_history {
    sb_history_options opt;
    size_t nruns, napart;
    const sb_run **runs;
    char **names;
    char **apart;
    char *notes;
    size_t nnotes, notes_cap;
    hcell *cells;
    size_t ncells, regressions;
    /* Every cell's points, one slice a cell: four blocks, not four a
     * cell (ten thousands of cells made as many allocations). */
    size_t *point_run;
    double *point_values; /* estimates, then lows, then highs */
};

void sb_history_options_init(sb_history_options *o)
{
    sb_cp_options cp;

    if (!o)
        return;
    /* The method's defaults are the change points' own, one place. */
    sb_cp_options_init(&cp);
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->exponent = cp.exponent;
    o->pvalue = cp.pvalue;
    o->permutations = cp.permutations;
    o->min_size = cp.min_size;
    o->seed = cp.seed;
    o->level = 0.95;
    o->threshold = 0.01;
}

static int note(sb_history *h, const char *fmt, ...) SB__PRINTF(2, 3);
static int note(sb_history *h, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    size_t len;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    sb__clean_text(line);
    len = strlen(line);
    line[len++] = '\n';
    line[len] = '\0';
    if (h->nnotes + len + 1 > h->notes_cap) {
        size_t cap = (h->notes_cap + len + 1) * 2;
        char *p = realloc(h->notes, cap);
        if (!p)
            return SB_ENOMEM;
        h->notes = p;
        h->notes_cap = cap;
    }
    memcpy(h->notes + h->nnotes, line, len + 1);
    h->nnotes += len;
    return SB_OK;
}

/* The n names of v, and v. */
static void free_names(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void sb_history_free(sb_history *h)
{
    if (!h)
        return;
    free_names(h->names, h->nruns);
    free_names(h->apart, h->napart);
    for (size_t i = 0; i < h->ncells; i++)
        free(h->cells[i].ch);
    free(h->cells);
    free(h->point_run);
    free(h->point_values);
    free(h->runs);
    free(h->notes);
    free(h);
}

/* The same machine: host, CPU model, and measured or imported alike;
 * imported values in the same unit too (1.0 us and 1000 ns are one
 * duration, and a series of both would show a thousandfold change). */
static int same_machine(const sb_run *a, const sb_run *b)
{
    const sb_meta *x = sb_run_meta(a), *y = sb_run_meta(b);
    return sb_run_imported(a) == sb_run_imported(b) &&
           (!sb_run_imported(a) || !strcmp(sb_run_unit(a), sb_run_unit(b))) &&
           !strcmp(x->hostname, y->hostname) &&
           !strcmp(x->cpu_model, y->cpu_model);
}

/* The point of run r's cell x: its estimate and interval in the unit. */
static void point_of(const sb_run *run, const sb_cell_result *x, int cycles,
                     double *e, double *lo, double *hi)
{
    const sb_interval *iv = cycles ? &x->core_cycles : &x->interval;
    double scale = 1.0;
    if (!cycles && !sb_run_imported(run) && sb_run_meta(run)->timer.hz > 0)
        scale = 1e9 / sb_run_meta(run)->timer.hz;
    *e = iv->estimate * scale;
    *lo = iv->lo * scale;
    *hi = iv->hi * scale;
}

/* The median of x[0..n-1] (a sorted copy); NAN when n is 0 or memory
 * runs out. */
static double median_of(const double *x, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v), m = NAN;
    if (!v || n == 0) {
        free(v);
        return NAN;
    }
    memcpy(v, x, n * sizeof *v);
    m = sb__median_inplace(v, n);
    free(v);
    return m;
}

/* The change points of est[0..n-1] into *ch (a new array, *nch of them). */
static int detect(const sb_history *h, const double *est, size_t n,
                  sb_change_point **cp, size_t *ncp)
{
    sb_cp_options o;
    size_t max = n / (h->opt.min_size ? h->opt.min_size : 1) + 1;
    int rc;

    sb_cp_options_init(&o);
    o.exponent = h->opt.exponent;
    o.pvalue = h->opt.pvalue;
    o.permutations = h->opt.permutations;
    o.min_size = h->opt.min_size;
    o.seed = h->opt.seed;
    *ncp = 0;
    *cp = malloc(max * sizeof **cp);
    if (!*cp)
        return SB_ENOMEM;
    rc = sb_stats_edivisive(est, n, &o, *cp, max, ncp);
    if (*ncp > max)
        *ncp = max;
    return rc;
}

/* The cell's series, its change points with their sizes, and whether
 * the newest run starts a regression there. */
static int analyse(sb_history *h, hcell *c)
{
    sb_change_point *cp = NULL, *cp0 = NULL;
    size_t ncp = 0, ncp0 = 0, n = c->pub.n;
    int rc = SB_OK;

    if (n < 2 * h->opt.min_size)
        return SB_OK;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(c->est[i]))
            return SB_OK; /* a cell without samples in some run */
    if ((rc = detect(h, c->est, n, &cp, &ncp)) != SB_OK)
        goto done;
    c->ch = calloc(ncp ? ncp : 1, sizeof *c->ch);
    if (!c->ch) {
        rc = SB_ENOMEM;
        goto done;
    }
    for (size_t k = 0; k < ncp; k++) {
        sb_history_change *x = &c->ch[k];
        size_t from = k ? cp[k - 1].index : 0, at = cp[k].index;
        size_t to = k + 1 < ncp ? cp[k + 1].index : n;
        int positive = 1;
        x->point = at;
        x->run_before = c->run[at - 1];
        x->run_after = c->run[at];
        x->p = cp[k].p;
        x->q = cp[k].q;
        for (size_t i = from; i < to; i++)
            positive &= c->est[i] > 0;
        x->ratio = (sb_interval){NAN, NAN, NAN, h->opt.level, NAN};
        if (positive &&
            sb_stats_ratio_boot_ci(c->est + from, at - from, c->est + at,
                                   to - at, h->opt.level, HISTORY_BOOT,
                                   SB_BOOT_PERCENTILE, h->opt.seed + k,
                                   &x->ratio) != SB_OK)
            x->ratio = (sb_interval){NAN, NAN, NAN, h->opt.level, NAN};
        x->slower = x->ratio.estimate > 1 + h->opt.threshold;
        x->faster = x->ratio.estimate < 1 / (1 + h->opt.threshold);
    }
    c->pub.nchanges = ncp;
    c->pub.changes = c->ch;
    /* Started by the newest run: the newest run is this cell's last
     * point, the last change is a slowdown beyond the threshold, and the
     * series without the newest run did not show it already: no slowdown
     * beyond the threshold within min_size runs of it.  Within, not at:
     * while the runs after a change are fewer than min_size, the split
     * that leaves min_size on its right lies a run or two early, and
     * moves to its place as runs come; that is the same change. */
    if (ncp && c->ch[ncp - 1].slower && c->run[n - 1] == h->nruns - 1) {
        size_t at = cp[ncp - 1].index;
        int before = 0;
        if (n - 1 >= 2 * h->opt.min_size) {
            if ((rc = detect(h, c->est, n - 1, &cp0, &ncp0)) != SB_OK)
                goto done;
            for (size_t k = 0; k < ncp0; k++) {
                size_t a = cp0[k].index;
                size_t from = k ? cp0[k - 1].index : 0;
                size_t to = k + 1 < ncp0 ? cp0[k + 1].index : n - 1;
                if ((a > at ? a - at : at - a) < h->opt.min_size &&
                    median_of(c->est + a, to - a) >
                        (1 + h->opt.threshold) *
                            median_of(c->est + from, a - from))
                    before = 1;
            }
        }
        c->pub.regression = !before;
        h->regressions += !before;
    }
done:
    free(cp);
    free(cp0);
    return rc;
}

/* A start time as an instant: seconds since 1970-01-01T00:00:00Z and
 * nanoseconds, and whether the text named its zone. */
typedef struct when {
    int64_t sec;
    long nsec;
    int zoned;
    size_t given; /* its place among the runs given: ties keep it */
} when;

/* n digits at *p into *v, *p moved past them; 0 when one is no digit. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return 0;
        *v = *v * 10 + (**p - '0');
    }
    return 1;
}

/* Days from 1970-01-01 to the date y-m-d of the proleptic Gregorian
 * calendar (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The start time t as an instant: the form statbench writes
 * (2026-12-07T19:42:06Z) and ISO 8601's extended form with a zone
 * offset (+05:30, +0530, +05) or Z, a space or T between date and time
 * (pyperf writes a space), a fraction of a second; no zone is read as
 * UTC, and said (*w zoned 0).  0 when t is none of these. */
static int parse_when(const char *t, when *w)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30,
                                31, 31, 30, 31, 30, 31};
    const char *p = t;
    int y, mo, d, hh, mm, ss, oh = 0, om = 0, sign = 0;
    long ns = 0;

    if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
        *p++ != '-' || !digits(&p, 2, &d))
        return 0;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return 0;
    p++;
    if (!digits(&p, 2, &hh) || *p++ != ':' || !digits(&p, 2, &mm) ||
        *p++ != ':' || !digits(&p, 2, &ss))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))) ||
        hh > 23 || mm > 59 || ss > 60)
        return 0;
    if (*p == '.' || *p == ',') {
        long scale = 100000000;
        p++;
        if (*p < '0' || *p > '9')
            return 0;
        for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
            ns += (*p - '0') * scale;
    }
    w->zoned = *p != '\0';
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '-' ? -1 : 1;
        if (!digits(&p, 2, &oh))
            return 0;
        if (*p == ':')
            p++;
        if (*p && !digits(&p, 2, &om))
            return 0;
        if (oh > 23 || om > 59)
            return 0;
    }
    if (*p)
        return 0;
    /* A leap second's 60 is the next second's 0: the same order. */
    w->sec = days_from_civil(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss -
             sign * (oh * 3600 + om * 60);
    w->nsec = ns;
    return 1;
}

static int by_when(const void *a, const void *b)
{
    const when *x = a, *y = b;
    if (x->sec != y->sec)
        return x->sec < y->sec ? -1 : 1;
    if (x->nsec != y->nsec)
        return x->nsec < y->nsec ? -1 : 1;
    return (x->given > y->given) - (x->given < y->given);
}

/* The runs in time order: w[k] the k-th oldest (its run w[k].given),
 * by the instant its start time names, ties in the order given.  A start
 * time that is missing or cannot be read is refused, naming the file and
 * the value: ordered as text it would put a run in another zone or
 * format anywhere in the series. */
static int order_runs(const sb_run *const *runs, const char *const *names,
                      size_t n, when *w, size_t *unzoned, sb_error *err)
{
    *unzoned = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = sb_run_meta(runs[i])->start_time;
        if (!t[0] || !parse_when(t, &w[i])) {
            char name[256], value[64];
            sb__clean_into(name, sizeof name,
                           names && names[i] ? names[i] : "?");
            sb__clean_into(value, sizeof value, t);
            if (!t[0])
                return sb__error(err, SB_EINVAL,
                                 "%s: no meta.start_time: a history needs "
                                 "each run's start time",
                                 name);
            return sb__error(err, SB_EINVAL,
                             "%s: meta.start_time '%s' is no time "
                             "(YYYY-MM-DDTHH:MM:SS with Z or an offset "
                             "such as +01:00)",
                             name, value);
        }
        w[i].given = i;
        *unzoned += !w[i].zoned;
    }
    qsort(w, n, sizeof *w, by_when);
    return SB_OK;
}

static int check_options(const sb_history_options *o, sb_error *err)
{
    if (o->size != sizeof(sb_history_options))
        return sb__error(err, SB_EINVAL,
                         "sb_history_new: unknown options size %zu",
                         o->size);
    if (!(o->exponent > 0 && o->exponent < 2))
        return sb__error(err, SB_EINVAL,
                         "change points: exponent %g outside (0, 2)",
                         o->exponent);
    if (!(o->pvalue > 0 && o->pvalue < 1))
        return sb__error(err, SB_EINVAL,
                         "change points: p cutoff %g outside (0, 1)",
                         o->pvalue);
    if (o->permutations < 1 || o->permutations > 100000)
        return sb__error(err, SB_EINVAL,
                         "change points: %zu permutations (1 to 100000)",
                         o->permutations);
    /* With R permutations p is at least 1 / (R + 1): below 1 / alpha - 1
     * of them no split could ever be kept, and the history would say "no
     * change" of any series. */
    if ((double)(o->permutations + 1) * o->pvalue < 1.0)
        return sb__error(err, SB_EINVAL,
                         "change points: %zu permutations cannot give a p "
                         "of %g or less (p is at least 1 / (R + 1)): use at "
                         "least %.0f",
                         o->permutations, o->pvalue,
                         ceil(1.0 / o->pvalue - 1.0));
    if (o->min_size < 2)
        return sb__error(err, SB_EINVAL,
                         "change points: segments of %zu runs (2 or more)",
                         o->min_size);
    if (!(o->level > 0 && o->level < 1))
        return sb__error(err, SB_EINVAL, "level %g outside (0, 1)",
                         o->level);
    if (!(o->threshold >= 0 && o->threshold < 1))
        return sb__error(err, SB_EINVAL, "threshold %g outside [0, 1)",
                         o->threshold);
    return SB_OK;
}

/* A cell of a kept run: run r's i-th. */
typedef struct entry {
    const sb_cell_result *x;
    size_t r, i;
} entry;

/* Whether the cell can be matched at all (sb_cell_same: a kernel with a
 * name); one that cannot is a cell of its own, with no point, as the
 * matcher never finds it. */
static int matchable(const sb_cell *c)
{
    return c->kernel && c->kernel->name;
}

/* The entries by cell (the matcher's order), each cell's in the order
 * seen (run, then place in the run); cells that cannot be matched last,
 * each apart. */
static int by_cell(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int mx = matchable(&x->x->cell), my = matchable(&y->x->cell), c;
    if (mx != my)
        return my - mx;
    if (mx && (c = sb__cell_order(&x->x->cell, &y->x->cell)) != 0)
        return c;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* A cell's entries: from its first entry, those of the same cell. */
static size_t group_end(const entry *e, size_t from, size_t n)
{
    size_t to = from + 1;
    if (!matchable(&e[from].x->cell))
        return to;
    while (to < n && matchable(&e[to].x->cell) &&
           sb__cell_order(&e[from].x->cell, &e[to].x->cell) == 0)
        to++;
    return to;
}

/* A cell: where its entries start in the sorted e, and where it was
 * first seen (its first entry's run and place). */
typedef struct group {
    size_t r, i, from;
} group;

/* The cells in the order first seen. */
static int by_first_seen(const void *a, const void *b)
{
    const group *x = a, *y = b;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The points of the cell whose entries are e[0..m-1] (in run order)
 * into c, whose slices of the history's points have room for m: the
 * first of each run's, when it has an estimate.  In core cycles when
 * every entry judged the cell in core cycles with a clock. */
static void fill_cell(const sb_history *h, hcell *c, const entry *e,
                      size_t m)
{
    int cycles = m > 0;

    for (size_t k = 0; k < m; k++)
        if (e[k].x->metric != SB_METRIC_CYCLES ||
            !isfinite(e[k].x->core_cycles.estimate))
            cycles = 0;
    c->pub.unit = cycles ? "core cycles"
                  : sb_run_imported(h->runs[0]) ? sb_run_unit(h->runs[0])
                                                 : "ns";
    for (size_t k = 0; k < m; k++) {
        size_t p = c->pub.n;
        if (k > 0 && e[k].r == e[k - 1].r)
            continue; /* the run's first of the cell is its point */
        point_of(h->runs[e[k].r], e[k].x, cycles, &c->est[p], &c->lo[p],
                 &c->hi[p]);
        /* A run whose cell has no estimate (no sample kept) is no point
         * of the series, as a run without the cell: one such run must
         * not stop the whole cell's detection. */
        if (!isfinite(c->est[p]))
            continue;
        c->run[p] = e[k].r;
        c->pub.n++;
    }
    c->pub.run = c->run;
    c->pub.estimate = c->est;
    c->pub.lo = c->lo;
    c->pub.hi = c->hi;
}

/* The kept runs' cells, each in the order first seen, with their points:
 * every cell of every run sorted by cell (n log n in all the cells read;
 * matching each against a list of those seen was quadratic), then each
 * cell's entries made its series. */
static int collect_cells(sb_history *h)
{
    entry *e;
    group *first;
    size_t n = 0, ngroups = 0, k = 0;
    int rc = SB_OK;

    for (size_t r = 0; r < h->nruns; r++)
        n += sb_run_count(h->runs[r]);
    e = malloc((n ? n : 1) * sizeof *e);
    first = malloc((n ? n : 1) * sizeof *first);
    if (!e || !first) {
        free(e);
        free(first);
        return SB_ENOMEM;
    }
    for (size_t r = 0; r < h->nruns; r++)
        for (size_t i = 0; i < sb_run_count(h->runs[r]); i++)
            e[k++] = (entry){sb_run_cell(h->runs[r], i), r, i};
    if (n)
        qsort(e, n, sizeof *e, by_cell);
    for (size_t g = 0; g < n; g = group_end(e, g, n))
        first[ngroups++] = (group){e[g].r, e[g].i, g};
    if (ngroups)
        qsort(first, ngroups, sizeof *first, by_first_seen);
    /* Room for a point per cell read: no more than the runs read hold,
     * whatever the runs and cells (a grid of runs x cells would be far
     * more when each run has cells of its own). */
    h->cells = calloc(ngroups ? ngroups : 1, sizeof *h->cells);
    h->point_run = malloc((n ? n : 1) * sizeof *h->point_run);
    h->point_values = malloc((n ? 3 * n : 1) * sizeof *h->point_values);
    if (!h->cells || !h->point_run || !h->point_values)
        rc = SB_ENOMEM;
    for (size_t g = 0; g < ngroups && rc == SB_OK; g++) {
        hcell *c = &h->cells[h->ncells++];
        size_t from = first[g].from;
        c->pub.cell = e[from].x->cell;
        c->run = h->point_run + from;
        c->est = h->point_values + from;
        c->lo = h->point_values + n + from;
        c->hi = h->point_values + 2 * n + from;
        fill_cell(h, c, e + from, group_end(e, from, n) - from);
    }
    free(e);
    free(first);
    return rc;
}

/* runs, n of them, each one: SB_OK, or SB_EINVAL. */
static int check_runs(const sb_run *const *runs, size_t n, sb_error *err)
{
    if (!runs || n == 0)
        return sb__error(err, SB_EINVAL, "sb_history_new: no run");
    if (n > SB_CP_MAX_N)
        return sb__error(err, SB_EINVAL,
                         "sb_history_new: %zu runs, at most %d", n,
                         SB_CP_MAX_N);
    for (size_t i = 0; i < n; i++)
        if (!runs[i])
            return sb__error(err, SB_EINVAL, "sb_history_new: run %zu is "
                             "NULL", i);
    return SB_OK;
}

/* The runs in time order (ord) into h: those of the newest run's machine
 * kept, their places in ord in kept, the others' names apart: SB_OK or
 * SB_ENOMEM. */
static int keep_runs(sb_history *h, const sb_run *const *runs,
                     const char *const *names, size_t n, const when *ord,
                     size_t *kept)
{
    size_t newest = ord[n - 1].given;

    for (size_t k = 0; k < n; k++) {
        size_t i = ord[k].given;
        char *name = sb__clean_copy(names && names[i] ? names[i] : "?");
        if (!name)
            return SB_ENOMEM;
        if (same_machine(runs[i], runs[newest])) {
            kept[h->nruns] = k;
            h->runs[h->nruns] = runs[i];
            h->names[h->nruns++] = name;
        } else {
            h->apart[h->napart++] = name;
        }
    }
    return SB_OK;
}

/* One note per other machine than the newest run's: how many runs,
 * which, and why.  SB_OK or SB_ENOMEM. */
static int note_apart(sb_history *h, const sb_run *const *runs, size_t n,
                      const when *ord)
{
    size_t newest = ord[n - 1].given;

    for (size_t k = 0; k < n; k++) {
        size_t i = ord[k].given, count = 0, first = 1;
        const sb_meta *m = sb_run_meta(runs[i]);
        if (same_machine(runs[i], runs[newest]))
            continue;
        for (size_t j = 0; j < k && first; j++)
            first = same_machine(runs[ord[j].given], runs[i]) == 0;
        if (!first)
            continue;
        for (size_t j = k; j < n; j++)
            count += same_machine(runs[ord[j].given], runs[i]);
        if (note(h, "kept apart: %zu run%s of host '%s', CPU '%s'%s%s%s "
                 "(the history is of the newest run's host '%s', CPU "
                 "'%s')",
                 count, count == 1 ? "" : "s", m->hostname, m->cpu_model,
                 sb_run_imported(runs[i]) != sb_run_imported(runs[newest])
                     ? ", imported values"
                 : sb_run_imported(runs[i]) ? ", values in '" : "",
                 sb_run_imported(runs[i]) &&
                         sb_run_imported(runs[newest])
                     ? sb_run_unit(runs[i])
                     : "",
                 sb_run_imported(runs[i]) && sb_run_imported(runs[newest])
                     ? "'"
                     : "",
                 sb_run_meta(runs[newest])->hostname,
                 sb_run_meta(runs[newest])->cpu_model) != SB_OK)
            return SB_ENOMEM;
    }
    return SB_OK;
}

/* The same run twice is one point given twice: said, kept.  The same
 * instant, however written.  SB_OK or SB_ENOMEM. */
static int note_same_start(sb_history *h, const when *ord,
                           const size_t *kept)
{
    for (size_t r = 1; r < h->nruns; r++)
        if (ord[kept[r]].sec == ord[kept[r - 1]].sec &&
            ord[kept[r]].nsec == ord[kept[r - 1]].nsec &&
            note(h, "%s and %s start at the same time, %s: one run given "
                 "twice?",
                 h->names[r - 1], h->names[r],
                 sb_run_meta(h->runs[r])->start_time) != SB_OK)
            return SB_ENOMEM;
    return SB_OK;
}

int sb_history_new(const sb_run *const *runs, const char *const *names,
                   size_t n, const sb_history_options *o, sb_history **out,
                   sb_error *err)
{
    sb_history *h;
    when *ord = NULL;
    size_t *kept = NULL, unzoned;
    int rc;

    if (!out)
        return sb__error(err, SB_EINVAL, "sb_history_new: out is NULL");
    *out = NULL;
    if ((rc = check_runs(runs, n, err)) != SB_OK)
        return rc;
    h = calloc(1, sizeof *h);
    if (!h)
        return sb__error(err, SB_ENOMEM, "out of memory");
    if (o)
        h->opt = *o;
    else
        sb_history_options_init(&h->opt);
    if ((rc = check_options(&h->opt, err)) != SB_OK)
        goto fail;
    rc = SB_ENOMEM;
    ord = malloc(n * sizeof *ord);
    kept = malloc(n * sizeof *kept);
    h->runs = malloc(n * sizeof *h->runs);
    h->names = calloc(n, sizeof *h->names);
    h->apart = calloc(n, sizeof *h->apart);
    if (!ord || !kept || !h->runs || !h->names || !h->apart)
        goto nomem;
    if ((rc = order_runs(runs, names, n, ord, &unzoned, err)) != SB_OK)
        goto fail;
    if (keep_runs(h, runs, names, n, ord, kept) != SB_OK ||
        note_apart(h, runs, n, ord) != SB_OK)
        goto nomem;
    if (unzoned &&
        note(h, "%zu of %zu runs have a start time without a zone: read "
             "as UTC (a machine's local times order right among "
             "themselves, not among times with a zone)",
             unzoned, n) != SB_OK)
        goto nomem;
    if (note_same_start(h, ord, kept) != SB_OK)
        goto nomem;
    if ((rc = collect_cells(h)) != SB_OK)
        goto nomem;
    for (size_t k = 0; k < h->ncells; k++)
        if ((rc = analyse(h, &h->cells[k])) != SB_OK) {
            if (rc == SB_ENOMEM)
                goto nomem;
            sb__error(err, rc, "change points: error %d", rc);
            goto fail;
        }
    free(ord);
    free(kept);
    *out = h;
    return SB_OK;
nomem:
    rc = sb__error(err, SB_ENOMEM, "out of memory");
fail:
    free(ord);
    free(kept);
    sb_history_free(h);
    return rc;
}

const sb_history_options *sb_history_options_of(const sb_history *h)
{
    return h ? &h->opt : NULL;
}

size_t sb_history_runs(const sb_history *h)
{
    return h ? h->nruns : 0;
}

const sb_run *sb_history_run(const sb_history *h, size_t i)
{
    return h && i < h->nruns ? h->runs[i] : NULL;
}

const char *sb_history_run_name(const sb_history *h, size_t i)
{
    return h && i < h->nruns ? h->names[i] : NULL;
}

size_t sb_history_apart(const sb_history *h)
{
    return h ? h->napart : 0;
}

const char *sb_history_apart_name(const sb_history *h, size_t i)
{
    return h && i < h->napart ? h->apart[i] : NULL;
}

const char *sb_history_notes(const sb_history *h)
{
    return h && h->notes ? h->notes : "";
}

size_t sb_history_cells(const sb_history *h)
{
    return h ? h->ncells : 0;
}

const sb_history_cell *sb_history_cell_at(const sb_history *h, size_t i)
{
    return h && i < h->ncells ? &h->cells[i].pub : NULL;
}

size_t sb_history_regressions(const sb_history *h)
{
    return h ? h->regressions : 0;
}
