/*
 * profile_judge.c: the host profile's levels and verdicts
 * (profile_internal.h): the level, spread and margin of each figure the
 * kept runs hold, the summary of a profile, the judgement of a run
 * against it, and the record of that verdict in the run.  Above
 * profile_file.c; profile.c and profile_host.c call it.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "run_internal.h"
#include "stats_internal.h"
#include "text.h"

/* Two runs confirm each other within half the floor: quiet runs of one
 * core agree that closely (profile_internal.h), one misread clock (an
 * invocation's level 17% low was seen) does not. */
#define CONFIRM (FLOOR / 2)
/* The margin is three spreads: the spread is a median distance above
 * the level, so about half the quiet runs lie within one spread and a
 * quiet run beyond three is rare, while a shared one is far beyond. */
#define SPREAD_TIMES 3.0

static const size_t summary_sizes[] = {sizeof(sb_profile_summary)};
static const size_t judgement_sizes[] = {sizeof(sb_profile_judgement)};

/* ---- Levels ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sb__profile_value_of(const entry *e, int ref)
{
    return ref ? e->ref : e->quiet;
}

void sb__profile_figure_of(const entry *e, size_t n, int ref,
                           sb_profile_figure *out)
{
    double v[SB_PROFILE_MAX_RUNS + SB_PROFILE_MOVE_RUNS], level = NAN;
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (sb__profile_figure_ok(sb__profile_value_of(&e[i], ref)))
            v[m++] = sb__profile_value_of(&e[i], ref);
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


/* ---- Summary and judgement ---------------------------------------------- */

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

void sb__profile_summarize(const sb_profile *p, sb_profile_summary *out)
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
    sb__profile_figure_of(p->runs, p->n, 0, &out->quiet);
    sb__profile_figure_of(p->runs, p->n, 1, &out->reference);
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
    sb__profile_summarize(p, s);
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
    if (!sb__profile_figure_ok(x) || !isfinite(f->level))
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
void sb__profile_judge(const sb_profile *p, const sb_profile_figures *f,
                       sb_profile_judgement *out)
{
    sb_profile_figure q = {NAN, NAN, FLOOR, 0}, r = {NAN, NAN, FLOOR, 0};
    int judged = 0, shared = 0;
    char a[32], b[32], parts[200];
    size_t at = 0;

    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->quiet =
        sb__profile_figure_ok(f->contention_quiet) ? f->contention_quiet : NAN;
    out->reference =
        sb__profile_figure_ok(f->reference_cycles) ? f->reference_cycles : NAN;
    if (p) {
        sb__profile_figure_of(p->runs, p->n, 0, &q);
        sb__profile_figure_of(p->runs, p->n, 1, &r);
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
    if ((!p || p->n == 0) && (sb__profile_figure_ok(out->quiet) ||
                              sb__profile_figure_ok(out->reference))) {
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
    if ((rc = sb__profile_figures_get(f, &own, fn, err)) != SB_OK ||
        (rc = sb__out_size(sb__out_size_of(out), judgement_sizes,
                           NSIZES(judgement_sizes), "sb_profile_judgement", fn,
                           err)) != SB_OK)
        return rc;
    sb__profile_judge(p, &own, &j);
    sb__out_put(out, sb__out_size_of(out), &j);
    return SB_OK;
}

/* ---- The run's record --------------------------------------------------- */

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
    /* The probe is what a neighbour slows most (in the recorded traces,
     * 2x where copies slowed 1.06-1.75x), so its excess bounds how far
     * the sharing moved any one cell. */
    run->meta.profile_bound =
        run->meta.profile_shared && isfinite(j->quiet_excess) &&
                j->quiet_excess > 0
            ? 1 + j->quiet_excess
            : NAN;
    /* The comparisons made already: their figures are a shared core's,
     * so their verdicts judge the neighbour (compare_run.c does the same
     * for the comparisons made from now on), except those within the run
     * that lie beyond what the sharing could explain. */
    if (run->meta.profile_shared && run->cmp)
        for (size_t i = 0; i < run->ncells; i++)
            if (run->cmp[i].valid && run->cmp[i].verdict != SB_VERDICT_NONE)
                sb__comparison_withhold(&run->cmp[i],
                                        run->cmp_within
                                            ? run->meta.profile_bound
                                            : NAN,
                                        run->analysis.threshold);
    return SB_OK;
}
