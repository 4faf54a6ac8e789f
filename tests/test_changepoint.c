/*
 * test_changepoint.c: E-Divisive means (stats/changepoint.c).
 *
 * The energy statistic and the best split against the exact rational
 * values of tests/fixtures/make_changepoint_ref.py (every tau's Q-hat of
 * eight small series, within 1e-12 of the largest); the refusals; and the
 * permutation test by simulation: the false-alarm rate on series with no
 * change against the p cutoff, the detection rate (at the right run) of
 * one step of 5% and of 10% in run-to-run noise of 2%, and the false
 * change points beside a real one.
 *
 * Rates are judged by their Wilson 95% interval: a false-alarm rate fails
 * when its interval lies wholly above the cutoff, or wholly below half of
 * it (a test that never fires is no test either); a detection rate when
 * its interval lies wholly below the rate claimed.  Each section draws
 * from gsl_rng_mt19937 with its own fixed seed, and the permutations
 * from their own seeds, so a failure reproduces exactly.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "statbench.h"
#include "own_kernel.h"
#include "tap.h"

#define SEED 20261207UL

/* ---- the reference values ------------------------------------------- */

#define MAXN 64

/* Values after key on the record line into v[*n ...]. */
static int append_values(const char *line, const char *key, double *v,
                         size_t *n)
{
    size_t kl = strlen(key);
    const char *p;
    char *end;
    if (strncmp(line, key, kl) || line[kl] != ' ')
        return 0;
    p = line + kl;
    for (;;) {
        double d = strtod(p, &end);
        if (end == p)
            break;
        if (*n >= MAXN)
            return -1;
        v[(*n)++] = d;
        p = end;
    }
    return 1;
}

static void check_case(const char *name, size_t n, size_t min, double alpha,
                       size_t tau, double q, const double *x, size_t nx,
                       const double *qs, size_t nq)
{
    double got[MAXN], scale = 0.0, worst = 0.0, gq = NAN;
    size_t gt = 0;
    int rc;

    if (nx != n || nq != n) {
        tap_ok(0, "%s: fixture holds %zu values and %zu Q, want %zu", name,
               nx, nq, n);
        return;
    }
    rc = sb_stats_energy_split(x, n, min, alpha, got, &gt, &gq);
    TAP_IS_INT(rc, SB_OK, "%s: energy split succeeds", name);
    TAP_IS_INT(gt, tau, "%s: best split at tau %zu", name, tau);
    for (size_t t = 0; t < n; t++)
        if (isfinite(qs[t]) && fabs(qs[t]) > scale)
            scale = fabs(qs[t]);
    for (size_t t = 0; t < n; t++) {
        if (isnan(qs[t]) != isnan(got[t])) {
            worst = INFINITY;
            continue;
        }
        if (!isnan(qs[t]) && fabs(got[t] - qs[t]) > worst)
            worst = fabs(got[t] - qs[t]);
    }
    if (!tap_ok(worst <= 1e-12 * scale,
                "%s: every tau's Q-hat within 1e-12 of the largest", name))
        tap_diag("  worst difference %.3g, largest |Q| %.6g", worst, scale);
    TAP_IS_REL(gq, q, 1e-12, "%s: Q-hat of the best split", name);
}

static void reference(void)
{
    tap_reader r;
    char *line, name[64] = "";
    size_t n = 0, min = 0, tau = 0, nx = 0, nq = 0, cases = 0;
    double alpha = 0, q = 0, x[MAXN], qs[MAXN];
    int bad = 0, open = 0;

    if (tap_fixture_open(&r, "changepoint_ref.txt") != 0)
        return;
    while ((line = tap_fixture_next(&r))) {
        int a;
        if (!strncmp(line, "case ", 5)) {
            if (open)
                check_case(name, n, min, alpha, tau, q, x, nx, qs, nq);
            if (sscanf(line, "case %63s %zu %zu %lf %zu %lf", name, &n, &min,
                       &alpha, &tau, &q) != 6 ||
                n > MAXN) {
                bad = 1;
                break;
            }
            nx = nq = 0;
            open = 1;
            cases++;
        } else if ((a = append_values(line, "x", x, &nx)) != 0 ||
                   (a = append_values(line, "q", qs, &nq)) != 0) {
            if (a < 0 || !open) {
                bad = 1;
                break;
            }
        } else {
            bad = 1;
            break;
        }
    }
    if (!bad && open)
        check_case(name, n, min, alpha, tau, q, x, nx, qs, nq);
    tap_fixture_close(&r, bad);
    tap_at_least(cases, 8, "cases");
}

/* ---- refusals and small cases --------------------------------------- */

static void refusals(void)
{
    double x[20] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}, q;
    size_t tau, nf = 99;
    sb_change_point cp[4];
    sb_cp_options o;

    TAP_IS_INT(sb_stats_energy_split(NULL, 12, 3, 1, NULL, &tau, &q),
               SB_EINVAL, "energy split: NULL data refused");
    TAP_IS_INT(sb_stats_energy_split(x, 12, 1, 1, NULL, &tau, &q), SB_EINVAL,
               "energy split: min_size 1 refused");
    TAP_IS_INT(sb_stats_energy_split(x, 12, 3, 2, NULL, &tau, &q), SB_EINVAL,
               "energy split: exponent 2 refused");
    TAP_IS_INT(sb_stats_energy_split(x, 12, 3, 0, NULL, &tau, &q), SB_EINVAL,
               "energy split: exponent 0 refused");
    TAP_IS_INT(sb_stats_energy_split(x, 12, 7, 1, NULL, &tau, &q),
               SB_ENUMERIC, "energy split: too short for min_size 7");
    x[3] = NAN;
    TAP_IS_INT(sb_stats_energy_split(x, 12, 3, 1, NULL, &tau, &q), SB_EINVAL,
               "energy split: NaN refused");
    TAP_IS_INT(sb_stats_edivisive(x, 12, NULL, cp, 4, &nf), SB_EINVAL,
               "edivisive: NaN refused");
    x[3] = 1;
    sb_cp_options_init(&o);
    o.size = 4;
    TAP_IS_INT(sb_stats_edivisive(x, 12, &o, cp, 4, &nf), SB_EINVAL,
               "edivisive: unknown options size refused");
    sb_cp_options_init(&o);
    o.pvalue = 1;
    TAP_IS_INT(sb_stats_edivisive(x, 12, &o, cp, 4, &nf), SB_EINVAL,
               "edivisive: p cutoff 1 refused");
    sb_cp_options_init(&o);
    o.permutations = 0;
    TAP_IS_INT(sb_stats_edivisive(x, 12, &o, cp, 4, &nf), SB_EINVAL,
               "edivisive: 0 permutations refused");
    sb_cp_options_init(&o);
    TAP_IS_INT(sb_stats_edivisive(x, 12, &o, NULL, 4, &nf), SB_EINVAL,
               "edivisive: NULL out refused");
    TAP_IS_INT(sb_stats_edivisive(x, 9, &o, cp, 4, &nf), SB_OK,
               "edivisive: a series shorter than two segments");
    TAP_IS_INT(nf, 0, "... has no change point");

    /* A clean step: found at its run, with the smallest p there is (a
     * permutation that puts every 1 on one side, 2 in C(20, 10), is too
     * rare to count). */
    for (int i = 0; i < 20; i++)
        x[i] = i < 10 ? 1 : 2;
    o.min_size = 3;
    TAP_IS_INT(sb_stats_edivisive(x, 20, &o, cp, 4, &nf), SB_OK,
               "edivisive: a clean step");
    TAP_IS_INT(nf, 1, "... one change point");
    TAP_IS_INT(nf ? cp[0].index : 0, 10, "... at value 10");
    TAP_IS_REL(nf ? cp[0].p : 0, 1.0 / 200, 1e-12, "... p = 1/200");
    /* Every value equal: no split scores, no change point. */
    for (int i = 0; i < 20; i++)
        x[i] = 7;
    TAP_IS_INT(sb_stats_edivisive(x, 20, &o, cp, 4, &nf), SB_OK,
               "edivisive: a constant series");
    TAP_IS_INT(nf, 0, "... has no change point");
}

/* ---- simulation ------------------------------------------------------- */

/* Run-to-run noise: each run's estimate exp(N(log level, sd)). */
static void series(gsl_rng *r, double *x, size_t n, size_t at, double step,
                   double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 1000.0 * (i >= at ? 1.0 + step : 1.0) *
               exp(gsl_ran_gaussian_ziggurat(r, sd));
}

#define TRIALS 1000
#define RUNS 30

static void false_alarms(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[RUNS], lo, hi;
    sb_change_point cp[RUNS];
    sb_cp_options o;
    size_t alarms = 0, nf;

    if (!r) {
        tap_ok(0, "gsl_rng_alloc");
        return;
    }
    gsl_rng_set(r, SEED + 1);
    sb_cp_options_init(&o);
    for (size_t t = 0; t < TRIALS; t++) {
        series(r, x, RUNS, RUNS, 0, 0.02);
        o.seed = SEED + 1000 + t;
        if (sb_stats_edivisive(x, RUNS, &o, cp, RUNS, &nf) != SB_OK)
            break;
        alarms += nf > 0;
    }
    tap_wilson(alarms, TRIALS, &lo, &hi);
    if (!tap_ok(lo <= o.pvalue && hi >= o.pvalue / 2,
                "no change, %d runs, sd 2%%: false alarms %zu of %d, "
                "Wilson [%.3f, %.3f] reaches %.3f and stays above half "
                "of it",
                RUNS, alarms, TRIALS, lo, hi, o.pvalue))
        tap_diag("  a rate wholly above the cutoff is a test that lies");
    gsl_rng_free(r);
}

/* One step of size step at run RUNS / 2 in sd-2% noise: the share of
 * series where a change point lands within one run of it, and the false
 * change points (those farther away) per series. */
static void detection(double step, double claim, unsigned long section)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[RUNS], lo, hi;
    sb_change_point cp[RUNS];
    sb_cp_options o;
    size_t hits = 0, extra = 0, nf, at = RUNS / 2;

    if (!r) {
        tap_ok(0, "gsl_rng_alloc");
        return;
    }
    gsl_rng_set(r, SEED + section);
    sb_cp_options_init(&o);
    for (size_t t = 0; t < TRIALS / 2; t++) {
        int hit = 0;
        series(r, x, RUNS, at, step, 0.02);
        o.seed = SEED + 5000 * section + t;
        if (sb_stats_edivisive(x, RUNS, &o, cp, RUNS, &nf) != SB_OK)
            break;
        for (size_t k = 0; k < nf; k++) {
            if (!hit && cp[k].index + 1 >= at && cp[k].index <= at + 1)
                hit = 1;
            else
                extra++;
        }
        hits += hit;
    }
    tap_wilson(hits, TRIALS / 2, &lo, &hi);
    tap_ok(hi >= claim,
           "a %.0f%% step at run %zu of %d, sd 2%%: found within a run in "
           "%zu of %d (Wilson [%.3f, %.3f], claimed %.2f)",
           100 * step, at, RUNS, hits, TRIALS / 2, lo, hi, claim);
    tap_ok((double)extra / (TRIALS / 2) <= 0.15,
           "... false change points beside it: %.3f per series (at most "
           "0.15)",
           (double)extra / (TRIALS / 2));
    gsl_rng_free(r);
}

/* The same seed gives the same answer; the answer is not the seed's. */
static void determinism(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[RUNS];
    sb_change_point a[RUNS], b[RUNS], c[RUNS];
    sb_cp_options o;
    size_t na = 0, nb = 0, nc = 0;

    if (!r) {
        tap_ok(0, "gsl_rng_alloc");
        return;
    }
    gsl_rng_set(r, SEED + 9);
    series(r, x, RUNS, 10, 0.10, 0.02);
    sb_cp_options_init(&o);
    sb_stats_edivisive(x, RUNS, &o, a, RUNS, &na);
    sb_stats_edivisive(x, RUNS, &o, b, RUNS, &nb);
    o.seed = 77;
    sb_stats_edivisive(x, RUNS, &o, c, RUNS, &nc);
    tap_ok(na == nb && na > 0 && !memcmp(a, b, na * sizeof *a),
           "the same seed: the same change points and p");
    tap_ok(nc == na && nc > 0 && c[0].index == a[0].index,
           "another seed: the same change point (run %zu)",
           na ? a[0].index : 0);
    gsl_rng_free(r);
}

/* ---- the history over runs (src/run/history.c) ---------------------- */

/* A saved run of one cell at level ticks, started at time, of host. */
static sb_run *history_run_at(double level, const char *time,
                              const char *host)
{
    char json[1024];
    FILE *f;
    sb_run *run = NULL;
    int len = snprintf(
        json, sizeof json,
        "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
        "\"meta\": {\"hostname\": \"%s\", \"cpu_model\": \"C\", "
        "\"start_time\": \"%s\", "
        "\"timer\": {\"kind\": \"tsc\", \"hz\": 1e9}}, "
        "\"cells\": [{\"kernel\": \"libc\", \"size\": 64, "
        "\"src_align\": 0, \"dst_align\": 0, \"samples_ticks\": "
        "[%.3f, %.3f, %.3f]}]}",
        host, time, level, level * 1.001, level * 1.002);
    f = fmemopen(json, (size_t)len, "r");
    if (f && sb_run_load_new(f, "mem.json", NULL, &run, NULL) != SB_OK)
        run = NULL;
    if (f)
        fclose(f);
    return run;
}

/* A saved run of one cell at level ticks, started on day d, of host. */
static sb_run *history_run(double level, int day, const char *host)
{
    char time[32];
    snprintf(time, sizeof time, "2026-01-%02dT00:00:00Z", day);
    return history_run_at(level, time, host);
}

/* Start times in other zones and forms are ordered by the instant they
 * name, not as text; one that names none is refused, naming the file and
 * the value. */
static void history_order(void)
{
    /* Given in this order; the instants, oldest first: 1, 2, 3, 0, 4, 5
     * (4 and 5 the same instant, written in two zones).  As text the
     * order would be 0 (the space sorts first), 4, 1, 3, 2, 5. */
    static const char *const times[] = {
        "2026-01-01 07:30:00.5",     /* 07:30:00.5, no zone: UTC */
        "2026-01-01T10:00:00+05:00", /* 05:00:00Z */
        "2026-01-01T06:00:00Z",
        "2026-01-01T07:30:00.25z",
        "2026-01-01T03:00:00-05:00", /* 08:00:00Z */
        "2026-01-01T09:00:00+0100",  /* 08:00:00Z */
    };
    static const size_t want[] = {1, 2, 3, 0, 4, 5};
    static const char *const bad[] = {
        "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "yesterday",
        "2026-01-01T00:00:00+5", "2026-01-01T24:00:00Z",
        "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00.Z",
    };
    enum { N = sizeof times / sizeof *times };
    sb_run *runs[N + 1] = {0};
    const char *names[N + 1] = {"r0", "r1", "r2", "r3", "r4", "r5", "bad"};
    sb_history *h = NULL;
    sb_error err = {0};
    int ok = 1, rc;

    for (size_t i = 0; i < N; i++)
        ok &= (runs[i] = history_run_at(100.0, times[i], "a")) != NULL;
    if (!tap_ok(ok, "history order: %d runs loaded", N))
        goto out;
    rc = sb_history_new((const sb_run *const *)runs, names, N, NULL, &h,
                        &err);
    TAP_IS_INT(rc, SB_OK, "history order: made (%s)", err.text);
    if (rc == SB_OK) {
        int in_order = sb_history_runs(h) == N;
        for (size_t k = 0; k < N && in_order; k++)
            in_order = sb_history_run(h, k) == runs[want[k]];
        tap_ok(in_order, "history order: by the instant, zones and forms "
               "read (oldest %s)",
               sb_history_runs(h) ? sb_history_run_name(h, 0) : "?");
        tap_ok(strstr(sb_history_notes(h), "r4 and r5 start at the same "
                      "time") != NULL,
               "history order: one instant in two zones is said");
        tap_ok(strstr(sb_history_notes(h), "1 of 6 runs have a start time "
                      "without a zone: read as UTC") != NULL,
               "history order: the time without a zone is said");
    }
    sb_history_free(h);
    h = NULL;
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        sb_run_free(runs[N]);
        runs[N] = history_run_at(100.0, bad[b], "a");
        memset(&err, 0, sizeof err);
        rc = runs[N] ? sb_history_new((const sb_run *const *)runs, names,
                                      N + 1, NULL, &h, &err)
                     : -1;
        tap_ok(rc == SB_EINVAL && h == NULL &&
                   strstr(err.text, "bad: meta.start_time '") &&
                   strstr(err.text, bad[b]),
               "history order: start time '%s' refused, naming the file "
               "and the value (%s)",
               bad[b], err.text);
        sb_history_free(h);
        h = NULL;
    }
out:
    for (size_t i = 0; i <= N; i++)
        sb_run_free(runs[i]);
}

/* 12 runs at 100 then 5 at 108 (ticks at 1 GHz: ns), given newest first,
 * and 2 runs of another host among them. */
static void history(void)
{
    sb_run *runs[19];
    const char *names[19];
    sb_history *h = NULL;
    const sb_history_cell *c;
    size_t n = 0;
    double jitter[] = {0.3, -0.2, 0.1, 0.4, -0.4, 0.0, 0.2, -0.1, -0.3, 0.1,
                       0.3, -0.2, 0.2, -0.1, 0.0, 0.3, -0.3};
    int ok = 1, rc;

    TAP_IS_INT(sb_history_new(NULL, NULL, 0, NULL, &h, NULL), SB_EINVAL,
               "history: no run refused");
    TAP_IS_INT(sb_history_runs(NULL) + sb_history_cells(NULL) +
                   sb_history_regressions(NULL),
               0, "history: NULL counts 0");
    tap_ok(sb_history_cell_at(NULL, 0) == NULL &&
               sb_history_run_name(NULL, 0) == NULL,
           "history: NULL accessors NULL");
    for (int d = 17; d >= 1; d--) {
        names[n] = "run";
        runs[n++] = history_run((d > 12 ? 108.0 : 100.0) + jitter[d - 1],
                                d, "a");
    }
    names[n] = "other";
    runs[n++] = history_run(50, 5, "b");
    names[n] = "other";
    runs[n++] = history_run(50, 6, "b");
    for (size_t i = 0; i < n; i++)
        ok &= runs[i] != NULL;
    if (!tap_ok(ok, "history: 19 runs loaded"))
        goto out;
    rc = sb_history_new((const sb_run *const *)runs, names, n, NULL, &h,
                        NULL);
    TAP_IS_INT(rc, SB_OK, "history: made");
    if (rc != SB_OK)
        goto out;
    TAP_IS_INT(sb_history_runs(h), 17, "history: host a's 17 runs kept");
    TAP_IS_INT(sb_history_apart(h), 2, "history: host b's 2 kept apart");
    tap_ok(strstr(sb_history_notes(h), "kept apart: 2 runs of host 'b'") !=
               NULL,
           "history: the notes say so");
    tap_ok(!strcmp(sb_run_meta(sb_history_run(h, 0))->start_time,
                   "2026-01-01T00:00:00Z"),
           "history: oldest first");
    c = sb_history_cell_at(h, 0);
    TAP_IS_INT(sb_history_cells(h), 1, "history: one cell");
    TAP_IS_INT(c ? c->n : 0, 17, "history: 17 points");
    TAP_IS_INT(c ? c->nchanges : 0, 1, "history: one change point");
    if (c && c->nchanges == 1) {
        TAP_IS_INT(c->changes[0].point, 12, "history: at the 13th run");
        TAP_IS_REL(c->changes[0].ratio.estimate, 1.08, 0.01,
                   "history: its size about 1.08");
        tap_ok(c->changes[0].ratio.lo > 1 && c->changes[0].slower,
               "history: its interval above 1, slower");
    }
    /* The runs after the step arriving one at a time (the newest j left
     * out: they come first in runs): exactly one of the five histories
     * has its newest run start the regression, the one that reveals it;
     * a change placed a run early and then in its place is one change. */
    {
        size_t flagged = 0, when = 0;
        for (size_t j = 5; j-- > 0;) {
            sb_history *hj = NULL;
            if (sb_history_new((const sb_run *const *)runs + j, names + j,
                               n - j, NULL, &hj, NULL) != SB_OK)
                break;
            if (sb_history_regressions(hj)) {
                flagged++;
                when = 5 - j;
            }
            sb_history_free(hj);
        }
        TAP_IS_INT(flagged, 1, "history: runs after a step one at a time: "
                   "one newest run starts the regression (the slow run "
                   "number %zu)", when);
    }
    {
        sb_history_options o;
        sb_history *hj = NULL;
        size_t built = 0;
        sb_history_options_init(&o);
        o.threshold = 0.10;
        for (size_t j = 5; j-- > 0 && hj == NULL;) {
            if (sb_history_new((const sb_run *const *)runs + j, names + j,
                               n - j, &o, &hj, NULL) != SB_OK)
                break;
            built++;
            if (!sb_history_regressions(hj)) {
                sb_history_free(hj);
                hj = NULL;
                continue;
            }
        }
        tap_ok(built == 5 && hj == NULL,
               "history: none with a threshold of 10%% (%zu of 5 built)",
               built);
        sb_history_free(hj);
    }
out:
    sb_history_free(h);
    for (size_t i = 0; i < n; i++)
        sb_run_free(runs[i]);
}

/* The statistic of a series far from 1: Q is homogeneous (c x gives
 * c^alpha Q), so a series of values near 1e153 or 1e-300 has the splits
 * and p of the same series near 1.  Unscaled, |a - b|^1.99 near 1e153
 * summed to inf and 1e-300^1.5 underflowed to 0: no change point. */
static void far_from_one(void)
{
    static const struct {
        double base, exponent;
    } cases[] = {{1e153, 1.99}, {1e153, 1.0}, {1e-300, 1.5},
                 {1e-300, 1.99}, {1e300, 1.0}};
    enum { N = 200 };
    double x[N], y[N];

    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sb_cp_options o;
        sb_change_point got[8], want[8];
        size_t ng = 0, nw = 0, tau = 0;
        double q = NAN, q1 = NAN;
        int rc, rw;
        sb_cp_options_init(&o);
        o.exponent = cases[c].exponent;
        /* A step of 4x at 100 in 1% of deterministic noise. */
        for (size_t i = 0; i < N; i++) {
            y[i] = (i < 100 ? 1.0 : 4.0) * (1 + 0.01 * (double)(i * 7 % 5));
            x[i] = cases[c].base * y[i];
        }
        rc = sb_stats_edivisive(x, N, &o, got, 8, &ng);
        rw = sb_stats_edivisive(y, N, &o, want, 8, &nw);
        tap_ok(rc == SB_OK && rw == SB_OK && ng == 1 && nw == 1 &&
                   got[0].index == 100 && got[0].p == want[0].p &&
                   !isnan(got[0].q),
               "values near %g, exponent %g: the step at 100 found as near "
               "1 (%zu change points, p %g)",
               cases[c].base, cases[c].exponent, ng, ng ? got[0].p : NAN);
        if (cases[c].exponent != 1.0)
            continue;
        /* In the series' units: c Q of the series near 1. */
        sb_stats_energy_split(x, N, 5, 1.0, NULL, &tau, &q);
        sb_stats_energy_split(y, N, 5, 1.0, NULL, &tau, &q1);
        TAP_IS_REL(q / cases[c].base, q1, 1e-12,
                   "values near %g: Q-hat in the series' units",
                   cases[c].base);
    }
}

/* A saved run of n cells (kernels k0 .. k<n-1>, listed last first),
 * started minute m of 2026. */
static sb_run *wide_run(size_t n, int m)
{
    size_t cap = 256 + 160 * n, len;
    char *json = malloc(cap);
    FILE *f;
    sb_run *run = NULL;

    if (!json)
        return NULL;
    len = (size_t)snprintf(
        json, cap,
        "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
        "\"meta\": {\"hostname\": \"a\", \"cpu_model\": \"C\", "
        "\"start_time\": \"2026-01-01T%02d:%02d:00Z\", "
        "\"timer\": {\"kind\": \"tsc\", \"hz\": 1e9}}, \"cells\": [",
        m / 60 % 24, m % 60);
    for (size_t i = n; i-- > 0;)
        len += (size_t)snprintf(json + len, cap - len,
                                "{\"kernel\": \"k%zu\", \"size\": 64, "
                                "\"src_align\": 0, \"dst_align\": 0, "
                                "\"samples_ticks\": [100, 101, 102]}%s",
                                i, i ? ", " : "]}");
    f = fmemopen(json, len, "r");
    if (f && sb_run_load_new(f, "wide.json", NULL, &run, NULL) != SB_OK)
        run = NULL;
    if (f)
        fclose(f);
    free(json);
    return run;
}

/* The least of up to reps timings of sb_history_new over nruns runs of
 * n cells each (segments of nruns runs: no change point is looked for,
 * only the cells matched), no more tries once one is under enough
 * seconds; *ok 0 when one fails or the cells are not matched right. */
static double history_time(size_t nruns, size_t n, int reps, double enough,
                           int *ok)
{
    sb_run **runs = calloc(nruns, sizeof *runs);
    sb_history_options o;
    double best = NAN;

    sb_history_options_init(&o);
    o.min_size = nruns;
    *ok &= runs != NULL;
    for (size_t r = 0; runs && r < nruns; r++)
        *ok &= (runs[r] = wide_run(n, (int)r)) != NULL;
    for (int k = 0; k < reps && *ok && !(best < enough); k++) {
        sb_history *h = NULL;
        char last[32];
        double t0 = now_s(), t;
        int rc = sb_history_new((const sb_run *const *)runs, NULL, nruns,
                                &o, &h, NULL);
        t = now_s() - t0;
        /* Every cell one series of all the runs, in the order seen: the
         * last kernel first. */
        snprintf(last, sizeof last, "k%zu", n - 1);
        *ok &= rc == SB_OK && sb_history_cells(h) == n &&
               sb_history_cell_at(h, 0)->n == nruns &&
               !strcmp(sb_history_cell_at(h, 0)->cell.kernel->name, last) &&
               sb_history_cell_at(h, n - 1)->n == nruns &&
               !strcmp(sb_history_cell_at(h, n - 1)->cell.kernel->name, "k0");
        sb_history_free(h);
        if (!(t >= best))
            best = t;
    }
    for (size_t r = 0; runs && r < nruns; r++)
        sb_run_free(runs[r]);
    free(runs);
    return best;
}

/* Cells matched across runs in n log n of the cells read, whatever how
 * many differ: 48,000 cells read as 2 runs of 24,000 cells take about as
 * long as 48 runs of 1,000 (the same memory, the same sort).  Matching
 * each cell against a list of those seen took 24 times as long for the
 * first (10,000 cells in a run took 1.35 s).  A ratio of two timings on
 * one machine, never an absolute time: the second the least of 5, the
 * first's tries stop at the first under the bound of 6. */
static void history_scaling(void)
{
    int ok = 1;
    double many = history_time(48, 1000, 5, 0, &ok);
    double wide = history_time(2, 24000, 3, 6 * many, &ok);
    tap_ok(ok, "history: 2 x 24000 and 48 x 1000 cells each matched "
           "across the runs, in the order first seen");
    tap_ok(many > 0 && wide / many < 6,
           "history: 24000 cells in 2 runs take %.1fx the time of 1000 in "
           "48 (%.4f s and %.4f s; quadratic: 24x)",
           wide / many, wide, many);
}

int main(void)
{
    reference();
    history();
    history_order();
    history_scaling();
    far_from_one();
    refusals();
    determinism();
    false_alarms();
    detection(0.05, 0.90, 2);
    detection(0.10, 0.99, 3);
    return tap_done();
}
