/*
 * test_compare.c: stats/compare.c and stats/levels.c against reference
 * values computed independently with numpy and scipy
 * (tests/fixtures/make_compare_ref.py writes tests/fixtures/compare_ref.txt;
 * its header describes the format), then the verdict's truth table, Holm's
 * edge cases and every SB_EINVAL case.
 *
 * Tolerances, relative to the reference value (absolute when it is 0):
 *  - REL_EXACT 1e-12 for U, A12, t, the Welch df, the ratio estimates, the
 *    mean of the group medians, their sd and the Holm values: the same
 *    arithmetic up to rounding (U is a sum of halves, exact in practice);
 *  - REL_P 1e-9 for p-values.  The exact Mann-Whitney p is a ratio of
 *    exact integer counts, and the asymptotic one the same normal tail
 *    GSL and scipy both compute to ~1e-15; the t tails come from the
 *    incomplete beta function (see compare.c), within ~1e-13 of mpmath.
 *    The largest difference seen is 8e-12, on asym_far's Welch p of
 *    5e-108: there t = 31 differs by 2.7e-14 between numpy's pairwise
 *    sums and our running means (the mean logs cancel two digits), and
 *    d ln p / d ln t = (df + 1) t^2 / (df + t^2) = 280 magnifies it; both
 *    tail functions agree with mpmath to 6e-14 at their own t.  1e-9
 *    leaves room for other libm and GSL builds;
 *  - REL_T 1e-9 for interval ends, which use gsl_cdf_tdist_Pinv against
 *    scipy's polished quantile (as in test_stats.c);
 *  - REL_ANOVA 1e-10 for the variance components: var_between is the
 *    difference MSB - MSW, and the script keeps MSB / (MSB - MSW) < 100,
 *    so rounding of ~1e-14 in the sums stays below 1e-11 in the result.
 * A NaN reference ("nan" in the fixture) must be matched by a NaN.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "stats_internal.h"
#include "synth_run.h"
#include "tap.h"

#define REL_EXACT 1e-12
#define REL_P 1e-9
#define REL_T 1e-9
#define REL_ANOVA 1e-10

#define MAX_KEYS 16

/* The copy kernel of the simulated runs: movsl where the build has the
 * string-instruction kernels, else duff, a C copy every build has.  Only
 * its name matters here, never its code. */
#ifdef SB_HAVE_X86_64
#define COPY_NAME "movsl"
#else
#define COPY_NAME "duff"
#endif

/* Worst relative errors seen, printed at the end as a diagnostic. */
static double worst_p, worst_t;

static double rel_err(double got, double want)
{
    double e = fabs(got - want);
    return want != 0.0 ? e / fabs(want) : e;
}

/* TAP_IS_REL that also accepts NaN for a NaN reference. */
#define IS_REL_NAN(got, want, rel, ...)                                   \
    do {                                                                  \
        double g_ = (got), w_ = (want);                                   \
        if (isnan(w_)) {                                                  \
            if (!tap_ok(isnan(g_), __VA_ARGS__))                          \
                tap_diag("  got %.17g, want nan", g_);                    \
        } else {                                                          \
            TAP_IS_REL(g_, w_, rel, __VA_ARGS__);                         \
        }                                                                 \
    } while (0)

/* One block of the fixture: its kind, name and keyed arrays. */
struct block {
    char kind[32];
    char name[64];
    size_t nkeys;
    struct {
        char key[16];
        double *v;
        size_t n, cap;
    } k[MAX_KEYS];
};

static void block_free(struct block *b)
{
    size_t i;
    for (i = 0; i < b->nkeys; ++i)
        free(b->k[i].v);
    memset(b, 0, sizeof *b);
}

/* The values of key (NULL when absent), their count in *n. */
static const double *block_get(const struct block *b, const char *key,
                               size_t *n)
{
    size_t i;
    for (i = 0; i < b->nkeys; ++i) {
        if (strcmp(b->k[i].key, key) == 0) {
            *n = b->k[i].n;
            return b->k[i].v;
        }
    }
    *n = 0;
    return NULL;
}

/* Append the numbers of one "KEY V V ..." line.  0 on success. */
static int block_add(struct block *b, const char *key, const char *p)
{
    size_t i;
    char *end;

    for (i = 0; i < b->nkeys; ++i)
        if (strcmp(b->k[i].key, key) == 0)
            break;
    if (i == b->nkeys) {
        if (b->nkeys == MAX_KEYS || strlen(key) >= sizeof b->k[0].key)
            return -1;
        snprintf(b->k[i].key, sizeof b->k[i].key, "%s", key);
        ++b->nkeys;
    }
    for (;;) {
        double v = strtod(p, &end);
        if (end == p)
            break;
        if (b->k[i].n == b->k[i].cap) {
            size_t cap = b->k[i].cap ? 2 * b->k[i].cap : 16;
            double *nv = realloc(b->k[i].v, cap * sizeof *nv);
            if (!nv)
                return -1;
            b->k[i].v = nv;
            b->k[i].cap = cap;
        }
        b->k[i].v[b->k[i].n++] = v;
        p = end;
    }
    while (*p == ' ' || *p == '\n')
        ++p;
    return *p ? -1 : 0; /* trailing garbage */
}

/* ---- Checks of one block -------------------------------------------- */

/* The ratio interval r at level lv against want[0..2] (estimate, lo,
 * hi), its level and achieved coverage; the ends count in worst_t. */
static void check_ratio(const char *nm, double lv, const sb_interval *r,
                        const double want[3])
{
    TAP_IS_REL(r->estimate, want[0], REL_EXACT, "%s@%g: ratio", nm, lv);
    TAP_IS_REL(r->lo, want[1], REL_T, "%s@%g: ratio lo", nm, lv);
    TAP_IS_REL(r->hi, want[2], REL_T, "%s@%g: ratio hi", nm, lv);
    TAP_IS_REL(r->level, lv, 0.0, "%s@%g: level", nm, lv);
    TAP_IS_REL(r->achieved, lv, 0.0, "%s@%g: achieved", nm, lv);
    if (rel_err(r->lo, want[1]) > worst_t)
        worst_t = rel_err(r->lo, want[1]);
    if (rel_err(r->hi, want[2]) > worst_t)
        worst_t = rel_err(r->hi, want[2]);
}

/* A p-value (called what) against the reference; counts in worst_p. */
static void check_p(const char *nm, double lv, const char *what, double p,
                    double want)
{
    TAP_IS_REL(p, want, REL_P, "%s@%g: %s = %.6g", nm, lv, what, want);
    if (rel_err(p, want) > worst_p)
        worst_p = rel_err(p, want);
}

static int check_mw(const struct block *b)
{
    size_t nx, ny, ne, nw, j;
    const double *x = block_get(b, "x", &nx), *y = block_get(b, "y", &ny);
    const double *e = block_get(b, "mwu", &ne);
    const double *w = block_get(b, "welch", &nw);
    const char *nm = b->name;
    double u, p, a12, u2, p2;
    int rc;

    if (!x || !y || !e || ne != 4 || nw % 7 != 0)
        return -1;

    rc = sb_stats_mann_whitney(x, nx, y, ny, &u, &p, &a12);
    TAP_IS_INT(rc, SB_OK, "%s: mann_whitney returns SB_OK", nm);
    TAP_IS_REL(u, e[1], REL_EXACT, "%s: U = %g", nm, e[1]);
    TAP_IS_REL(p, e[2], REL_P, "%s: p (%s) = %.6g", nm,
               e[0] == 0 ? "exact" : "asymptotic", e[2]);
    TAP_IS_REL(a12, e[3], REL_EXACT, "%s: A12", nm);
    if (rel_err(p, e[2]) > worst_p)
        worst_p = rel_err(p, e[2]);

    /* Swapping the samples: U' = nx ny - U, the same p; a12 optional. */
    rc = sb_stats_mann_whitney(y, ny, x, nx, &u2, &p2, NULL);
    TAP_IS_INT(rc, SB_OK, "%s: swapped, SB_OK", nm);
    TAP_IS_REL(u2, (double)nx * (double)ny - e[1], REL_EXACT,
               "%s: swapped U = nx ny - U", nm);
    TAP_IS_REL(p2, p, 0.0, "%s: swapped, same p", nm);

    for (j = 0; j < nw; j += 7) {
        double lv = w[j], t, df, pw;
        sb_interval r;

        rc = sb_stats_welch_log(x, nx, y, ny, lv, &t, &df, &pw, &r);
        TAP_IS_INT(rc, SB_OK, "%s@%g: welch_log returns SB_OK", nm, lv);
        TAP_IS_REL(t, w[j + 1], REL_EXACT, "%s@%g: Welch t", nm, lv);
        TAP_IS_REL(df, w[j + 2], REL_EXACT, "%s@%g: Welch df", nm, lv);
        check_p(nm, lv, "Welch p", pw, w[j + 3]);
        check_ratio(nm, lv, &r, &w[j + 4]);

        /* The other way round: -t, the same p, the reciprocal ratio.  The
         * interval is optional. */
        if (j == 0) {
            double t2, df2, pw2;
            rc = sb_stats_welch_log(y, ny, x, nx, lv, &t2, &df2, &pw2, NULL);
            TAP_IS_INT(rc, SB_OK, "%s: welch swapped, no ratio: SB_OK", nm);
            TAP_IS_REL(t2, -t, REL_EXACT, "%s: welch swapped: -t", nm);
            TAP_IS_REL(df2, df, REL_EXACT, "%s: welch swapped: same df", nm);
            TAP_IS_REL(pw2, pw, REL_EXACT, "%s: welch swapped: same p", nm);
        }
    }
    return 0;
}

static int check_paired(const struct block *b)
{
    size_t na, nb, ne, j;
    const double *a = block_get(b, "a", &na), *bb = block_get(b, "b", &nb);
    const double *e = block_get(b, "paired", &ne);
    const char *nm = b->name;

    if (!a || !bb || na != nb || !e || ne == 0 || ne % 5 != 0)
        return -1;
    for (j = 0; j < ne; j += 5) {
        double lv = e[j], p;
        sb_interval r;
        int rc = sb_stats_paired_log(a, bb, na, lv, &r, &p);
        TAP_IS_INT(rc, SB_OK, "%s@%g: paired_log returns SB_OK", nm, lv);
        check_ratio(nm, lv, &r, &e[j + 1]);
        check_p(nm, lv, "p", p, e[j + 4]);
    }
    return 0;
}

static int check_holm(const struct block *b)
{
    size_t np, na, i;
    const double *p = block_get(b, "p", &np), *adj = block_get(b, "adj", &na);
    const char *nm = b->name;
    double *out, *inplace;
    int rc;

    if (!p || !adj || np != na || np == 0)
        return -1;
    out = malloc(np * sizeof *out);
    inplace = malloc(np * sizeof *inplace);
    if (!out || !inplace) {
        free(out);
        free(inplace);
        return -1;
    }
    rc = sb_stats_holm(p, np, out);
    TAP_IS_INT(rc, SB_OK, "holm %s: SB_OK", nm);
    for (i = 0; i < np; ++i)
        TAP_IS_REL(out[i], adj[i], REL_EXACT, "holm %s: adjusted[%zu]", nm,
                   i);
    /* adjusted may alias p. */
    memcpy(inplace, p, np * sizeof *inplace);
    rc = sb_stats_holm(inplace, np, inplace);
    TAP_IS_INT(rc, SB_OK, "holm %s in place: SB_OK", nm);
    for (i = 0; i < np && inplace[i] == out[i]; ++i)
        ;
    TAP_IS_INT(i, np, "holm %s in place: same values", nm);
    free(out);
    free(inplace);
    return 0;
}

static int check_levels(const struct block *b)
{
    size_t ns, nx, nm_, nc, na, i, j, off = 0;
    const double *sizes = block_get(b, "sizes", &ns);
    const double *x = block_get(b, "x", &nx);
    const double *meds = block_get(b, "medians", &nm_);
    const double *ci = block_get(b, "ci", &nc);
    const double *an = block_get(b, "anova", &na);
    const char *nm = b->name;
    const double **groups;
    size_t *n;
    int ret = 0;

    if (!sizes || !x || !meds || nm_ != ns || !ci || nc % 4 || !an ||
        na != 4)
        return -1;
    groups = malloc(ns * sizeof *groups);
    n = malloc(ns * sizeof *n);
    if (!groups || !n) {
        ret = -1;
        goto done;
    }
    for (i = 0; i < ns; ++i) {
        n[i] = (size_t)sizes[i];
        groups[i] = x + off;
        off += n[i];
    }
    if (off != nx) {
        ret = -1;
        goto done;
    }
    for (j = 0; j < nc; j += 4) {
        double lv = ci[j];
        sb_levels L;
        int rc = sb_stats_levels(groups, n, ns, lv, &L);
        TAP_IS_INT(rc, SB_OK, "levels %s@%g: SB_OK", nm, lv);
        TAP_IS_INT(L.m, ns, "levels %s@%g: m", nm, lv);
        TAP_IS_INT(L.n, nx, "levels %s@%g: n", nm, lv);
        TAP_IS_REL(L.ci.estimate, ci[j + 1], REL_EXACT,
                   "levels %s@%g: mean of the medians", nm, lv);
        TAP_IS_REL(L.ci.lo, ci[j + 2], REL_T, "levels %s@%g: lo", nm, lv);
        TAP_IS_REL(L.ci.hi, ci[j + 3], REL_T, "levels %s@%g: hi", nm, lv);
        TAP_IS_REL(L.ci.level, lv, 0.0, "levels %s@%g: level", nm, lv);
        TAP_IS_REL(L.sd_between_est, an[0], REL_EXACT,
                   "levels %s@%g: sd of the medians", nm, lv);
        IS_REL_NAN(L.var_between, an[1], REL_ANOVA,
                   "levels %s@%g: var_between = %g", nm, lv, an[1]);
        IS_REL_NAN(L.var_within, an[2], REL_ANOVA,
                   "levels %s@%g: var_within = %g", nm, lv, an[2]);
        IS_REL_NAN(L.between_fraction, an[3], REL_ANOVA,
                   "levels %s@%g: between_fraction = %g", nm, lv, an[3]);
        if (rel_err(L.ci.lo, ci[j + 2]) > worst_t)
            worst_t = rel_err(L.ci.lo, ci[j + 2]);
        if (rel_err(L.ci.hi, ci[j + 3]) > worst_t)
            worst_t = rel_err(L.ci.hi, ci[j + 3]);
    }
    /* The group medians, through groups of one value each: the estimate
     * of each single-group level is its median, so check them through a
     * two-group call pairing each group with itself. */
    for (i = 0; i < ns; ++i) {
        const double *g2[2];
        size_t n2[2];
        sb_levels L;
        g2[0] = g2[1] = groups[i];
        n2[0] = n2[1] = n[i];
        TAP_IS_INT(sb_stats_levels(g2, n2, 2, 0.95, &L), SB_OK,
                   "levels %s: group %zu doubled, SB_OK", nm, i);
        TAP_IS_REL(L.ci.estimate, meds[i], REL_EXACT,
                   "levels %s: median of group %zu", nm, i);
    }
done:
    free(groups);
    free(n);
    return ret;
}

/* The fixture's kinds of block: how each is checked, and how many of
 * them the fixture must hold at least. */
static const struct {
    const char *kind;
    int (*check)(const struct block *b);
    size_t min;
    const char *what;
} kinds[] = {
    {"mw", check_mw, 18, "two-sample sets"},
    {"paired", check_paired, 4, "paired sets"},
    {"holm", check_holm, 7, "Holm families"},
    {"levels", check_levels, 6, "level sets"},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* Read the fixture and check every block, counting the blocks of each
 * kind that pass.  0 when read to the end. */
static int run_fixture(const char *name, size_t counts[NKINDS])
{
    tap_reader fx;
    char *line;
    struct block b;
    int in = 0, bad = 0;

    if (tap_fixture_open(&fx, name) != 0)
        return -1;
    memset(&b, 0, sizeof b);
    while (!bad && (line = tap_fixture_next(&fx))) {
        char key[32];
        int len;
        if (sscanf(line, "%31s%n", key, &len) != 1) {
            bad = 1;
        } else if (!in) {
            block_free(&b);
            if (strlen(key) >= sizeof b.kind ||
                sscanf(line + len, "%63s", b.name) != 1)
                bad = 1;
            snprintf(b.kind, sizeof b.kind, "%s", key);
            in = 1;
        } else if (strcmp(key, "end") == 0) {
            int r = -1; /* an unknown kind is a format error */
            for (size_t k = 0; k < NKINDS; k++)
                if (strcmp(b.kind, kinds[k].kind) == 0 &&
                    (r = kinds[k].check(&b)) == 0)
                    ++counts[k];
            bad = r != 0;
            in = 0;
        } else {
            bad = block_add(&b, key, line + len) != 0;
        }
    }
    block_free(&b);
    return tap_fixture_close(&fx, bad || in);
}

/* ---- Hand-checked cases ----------------------------------------------- */

static void check_verdict(void)
{
    const double a = 0.05, th = 0.01;
    sb_interval r = {1.0, 0.995, 1.005, 0.95, 0.95};
    struct {
        double est, lo, hi, p;
        int want;
        const char *why;
    } c[] = {
        {1.0, 0.995, 1.005, 0.5, SB_VERDICT_EQUIVALENT, "CI inside 1 +- 1%"},
        {1.0, 0.99, 1.01, 0.5, SB_VERDICT_EQUIVALENT, "CI on the bounds"},
        {0.995, 0.992, 0.998, 1e-6, SB_VERDICT_EQUIVALENT,
         "significant but inside the threshold: equivalent first"},
        {0.9, 0.85, 0.95, 0.001, SB_VERDICT_FASTER, "significant, below 1"},
        {0.9, 0.85, 0.95, 0.049, SB_VERDICT_FASTER, "p just under alpha"},
        {0.9, 0.85, 0.95, 0.05, SB_VERDICT_INCONCLUSIVE,
         "p == alpha is not significant"},
        {0.97, 0.94, 1.0, 0.01, SB_VERDICT_INCONCLUSIVE,
         "hi == 1 is not below 1"},
        {1.1, 1.05, 1.15, 0.001, SB_VERDICT_SLOWER, "significant, above 1"},
        {1.03, 1.0, 1.06, 0.01, SB_VERDICT_INCONCLUSIVE,
         "lo == 1 is not above 1"},
        {1.1, 1.05, 1.15, 0.2, SB_VERDICT_INCONCLUSIVE,
         "above 1 but not significant"},
        {1.0, 0.9, 1.1, 0.9, SB_VERDICT_INCONCLUSIVE, "wide CI across 1"},
        {0.9, 0.85, 0.95, NAN, SB_VERDICT_INCONCLUSIVE, "NaN p"},
        {0.9, NAN, 0.95, 0.001, SB_VERDICT_INCONCLUSIVE, "NaN lo"},
        {0.9, 0.85, NAN, 0.001, SB_VERDICT_INCONCLUSIVE, "NaN hi"},
        {NAN, 0.85, 0.95, 0.001, SB_VERDICT_INCONCLUSIVE, "NaN estimate"},
    };
    size_t i;

    for (i = 0; i < sizeof c / sizeof c[0]; ++i) {
        r.estimate = c[i].est;
        r.lo = c[i].lo;
        r.hi = c[i].hi;
        TAP_IS_INT(sb_stats_verdict(&r, c[i].p, a, th), c[i].want,
                   "verdict: %s -> %s", c[i].why, sb_verdict_name(c[i].want));
    }
    r.estimate = 0.9;
    r.lo = 0.85;
    r.hi = 0.95;
    TAP_IS_INT(sb_stats_verdict(&r, 0.001, NAN, th), SB_VERDICT_INCONCLUSIVE,
               "verdict: NaN alpha -> inconclusive");
    TAP_IS_INT(sb_stats_verdict(&r, 0.001, a, NAN), SB_VERDICT_INCONCLUSIVE,
               "verdict: NaN threshold -> inconclusive");
    TAP_IS_INT(sb_stats_verdict(NULL, 0.001, a, th), SB_VERDICT_INCONCLUSIVE,
               "verdict: NULL ratio -> inconclusive");
    /* A threshold of 0 makes equivalence need a zero-width CI at 1. */
    r.estimate = r.lo = r.hi = 1.0;
    TAP_IS_INT(sb_stats_verdict(&r, 1.0, a, 0.0), SB_VERDICT_EQUIVALENT,
               "verdict: threshold 0, CI exactly 1 -> equivalent");

    TAP_IS_STR(sb_verdict_name(SB_VERDICT_EQUIVALENT), "equivalent",
               "verdict name: equivalent");
    TAP_IS_STR(sb_verdict_name(SB_VERDICT_FASTER), "faster",
               "verdict name: faster");
    TAP_IS_STR(sb_verdict_name(SB_VERDICT_SLOWER), "slower",
               "verdict name: slower");
    TAP_IS_STR(sb_verdict_name(SB_VERDICT_INCONCLUSIVE), "inconclusive",
               "verdict name: inconclusive");
    TAP_IS_STR(sb_verdict_name(SB_VERDICT_NONE), "none",
               "verdict name: none");
    /* A zeroed comparison (an untouched output) must not read as a
     * result: 0 is no verdict. */
    TAP_IS_INT(SB_VERDICT_NONE, 0, "verdict 0 is none");
    TAP_IS_INT(sb_verdict_parse("none"), SB_VERDICT_NONE,
               "verdict parse: none");
    TAP_IS_INT(sb_verdict_parse("inconclusive"), SB_VERDICT_INCONCLUSIVE,
               "verdict parse: inconclusive");
    TAP_IS_STR(sb_verdict_name(5), "?", "verdict name: 5 -> ?");
    TAP_IS_STR(sb_verdict_name(-1), "?", "verdict name: -1 -> ?");
}

static void check_holm_edges(void)
{
    double p[4], adj[4];

    p[0] = 0.03;
    TAP_IS_INT(sb_stats_holm(p, 1, adj), SB_OK, "holm m=1: SB_OK");
    TAP_IS_REL(adj[0], 0.03, 0.0, "holm m=1: p unchanged");

    /* Ties: both tied values get the larger multiplier's product. */
    p[0] = 0.02; p[1] = 0.01; p[2] = 0.02; p[3] = 0.01;
    TAP_IS_INT(sb_stats_holm(p, 4, adj), SB_OK, "holm ties: SB_OK");
    TAP_IS_REL(adj[1], 0.04, REL_EXACT, "holm ties: 4 x 0.01");
    TAP_IS_REL(adj[3], 0.04, REL_EXACT, "holm ties: tied 0.01 also 0.04");
    TAP_IS_REL(adj[0], 0.04, REL_EXACT, "holm ties: 2 x 0.02 = 0.04");
    TAP_IS_REL(adj[2], 0.04, REL_EXACT, "holm ties: tied 0.02 also 0.04");

    /* In place with monotonicity: 0.01 x 3 = 0.03, then max(0.03, 2 x
     * 0.012) = 0.03, then max(0.03, 0.5) = 0.5. */
    p[0] = 0.5; p[1] = 0.012; p[2] = 0.01;
    TAP_IS_INT(sb_stats_holm(p, 3, p), SB_OK, "holm aliased: SB_OK");
    TAP_IS_REL(p[2], 0.03, REL_EXACT, "holm aliased: smallest x 3");
    TAP_IS_REL(p[1], 0.03, REL_EXACT, "holm aliased: kept monotone");
    TAP_IS_REL(p[0], 0.5, REL_EXACT, "holm aliased: largest x 1");

    /* The bounds 0 and 1 are valid p-values. */
    p[0] = 0.0; p[1] = 1.0;
    TAP_IS_INT(sb_stats_holm(p, 2, adj), SB_OK, "holm 0 and 1: SB_OK");
    TAP_IS_REL(adj[0], 0.0, 0.0, "holm: 0 stays 0");
    TAP_IS_REL(adj[1], 1.0, 0.0, "holm: 1 stays 1");
}

static void check_hand(void)
{
    sb_interval r;
    double p, u, a12, t, df;

    /* All log ratios equal: the interval is the ratio, p is 0. */
    {
        const double a[3] = {2.0, 2.0, 2.0}, b[3] = {3.0, 3.0, 3.0};
        TAP_IS_INT(sb_stats_paired_log(a, b, 3, 0.95, &r, &p), SB_OK,
                   "paired, equal ratios: SB_OK");
        TAP_IS_REL(r.estimate, 1.5, 1e-15, "paired, equal ratios: 1.5");
        TAP_IS_REL(r.lo, r.estimate, 0.0, "paired, equal ratios: lo = est");
        TAP_IS_REL(r.hi, r.estimate, 0.0, "paired, equal ratios: hi = est");
        TAP_IS_REL(p, 0.0, 0.0, "paired, equal ratios: p = 0");
    }
    /* Ratio exactly 1 everywhere: p = 1. */
    {
        const double a[4] = {5.0, 6.0, 7.0, 8.0};
        TAP_IS_INT(sb_stats_paired_log(a, a, 4, 0.95, &r, &p), SB_OK,
                   "paired, a == b: SB_OK");
        TAP_IS_REL(r.estimate, 1.0, 0.0, "paired, a == b: ratio 1");
        TAP_IS_REL(r.lo, 1.0, 0.0, "paired, a == b: lo 1");
        TAP_IS_REL(r.hi, 1.0, 0.0, "paired, a == b: hi 1");
        TAP_IS_REL(p, 1.0, 0.0, "paired, a == b: p = 1");
    }
    /* Mann-Whitney: nx = ny = 20 apart, p = 2 / C(40, 20) exactly. */
    {
        double x[20], y[20];
        size_t i;
        for (i = 0; i < 20; ++i) {
            x[i] = 100.0 + (double)i;
            y[i] = (double)i;
        }
        TAP_IS_INT(sb_stats_mann_whitney(x, 20, y, 20, &u, &p, &a12), SB_OK,
                   "MW 20/20 apart: SB_OK");
        TAP_IS_REL(u, 400.0, 0.0, "MW 20/20 apart: U = 400");
        TAP_IS_REL(a12, 1.0, 0.0, "MW 20/20 apart: A12 = 1");
        TAP_IS_REL(p, 2.0 / 137846528820.0, 1e-15,
                   "MW 20/20 apart: p = 2 / C(40, 20)");
    }
    /* Large samples run in n log n: 200000 per side, no ties. */
    {
        size_t n = 200000, i;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        if (x && y) {
            for (i = 0; i < n; ++i) {
                x[i] = (double)(2 * i);     /* even */
                y[i] = (double)(2 * i + 1); /* odd: y_i beats x_0..x_i */
            }
            /* U = pairs x_i > y_j = sum over i of i = n (n - 1) / 2. */
            TAP_IS_INT(sb_stats_mann_whitney(x, n, y, n, &u, &p, NULL), SB_OK,
                       "MW 200000/200000: SB_OK");
            TAP_IS_REL(u, (double)n * (double)(n - 1) / 2.0, 0.0,
                       "MW 200000/200000: U = n (n - 1) / 2");
            tap_ok(p > 0.99, "MW 200000/200000: p = %.6f near 1", p);
        } else {
            tap_ok(0, "MW large: out of memory");
        }
        free(x);
        free(y);
    }
    /* Welch with a zero-variance sample: df is the other's n - 1. */
    {
        const double x[3] = {4.0, 4.0, 4.0}, y[4] = {4.0, 5.0, 6.0, 4.5};
        TAP_IS_INT(sb_stats_welch_log(x, 3, y, 4, 0.95, &t, &df, &p, &r),
                   SB_OK, "welch, x constant: SB_OK");
        TAP_IS_REL(df, 3.0, 1e-15, "welch, x constant: df = ny - 1");
    }
}

static void check_bad_input(void)
{
    const double x[4] = {1.0, 2.0, 3.0, 4.0}, y[4] = {2.0, 3.0, 4.0, 5.0};
    const double bad_levels[] = {0.0, 1.0, -0.1, 1.5, NAN};
    double v[4], u, p, t, df, adj[4];
    sb_interval r;
    sb_levels L;
    size_t i;

    /* Mann-Whitney. */
    TAP_IS_INT(sb_stats_mann_whitney(x, 0, y, 4, &u, &p, NULL), SB_EINVAL,
               "MW: nx = 0 is SB_EINVAL");
    TAP_IS_INT(sb_stats_mann_whitney(x, 4, y, 0, &u, &p, NULL), SB_EINVAL,
               "MW: ny = 0 is SB_EINVAL");
    TAP_IS_INT(sb_stats_mann_whitney(NULL, 4, y, 4, &u, &p, NULL), SB_EINVAL,
               "MW: NULL x is SB_EINVAL");
    TAP_IS_INT(sb_stats_mann_whitney(x, 4, y, 4, NULL, &p, NULL), SB_EINVAL,
               "MW: NULL u is SB_EINVAL");
    TAP_IS_INT(sb_stats_mann_whitney(x, 4, y, 4, &u, NULL, NULL), SB_EINVAL,
               "MW: NULL p is SB_EINVAL");
    memcpy(v, x, sizeof v);
    v[1] = NAN;
    TAP_IS_INT(sb_stats_mann_whitney(v, 4, y, 4, &u, &p, NULL), SB_EINVAL,
               "MW: NaN in x is SB_EINVAL");
    v[1] = INFINITY;
    TAP_IS_INT(sb_stats_mann_whitney(x, 4, v, 4, &u, &p, NULL), SB_EINVAL,
               "MW: infinity in y is SB_EINVAL");

    /* Welch on logs. */
    TAP_IS_INT(sb_stats_welch_log(x, 1, y, 4, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: nx = 1 is SB_EINVAL");
    TAP_IS_INT(sb_stats_welch_log(x, 4, y, 1, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: ny = 1 is SB_EINVAL");
    memcpy(v, y, sizeof v);
    v[2] = 0.0;
    TAP_IS_INT(sb_stats_welch_log(x, 4, v, 4, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: a zero value is SB_EINVAL");
    v[2] = -3.0;
    TAP_IS_INT(sb_stats_welch_log(v, 4, y, 4, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: a negative value is SB_EINVAL");
    v[2] = NAN;
    TAP_IS_INT(sb_stats_welch_log(x, 4, v, 4, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: NaN is SB_EINVAL");
    v[2] = INFINITY;
    TAP_IS_INT(sb_stats_welch_log(x, 4, v, 4, 0.95, &t, &df, &p, &r),
               SB_EINVAL, "welch: infinity is SB_EINVAL");
    {
        const double c1[3] = {7.0, 7.0, 7.0}, c2[2] = {9.0, 9.0};
        TAP_IS_INT(sb_stats_welch_log(c1, 3, c2, 2, 0.95, &t, &df, &p, &r),
                   SB_EINVAL, "welch: zero variance in both is SB_EINVAL");
    }
    for (i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; ++i)
        TAP_IS_INT(sb_stats_welch_log(x, 4, y, 4, bad_levels[i], &t, &df, &p,
                                      &r),
                   SB_EINVAL, "welch: level %g is SB_EINVAL", bad_levels[i]);
    TAP_IS_INT(sb_stats_welch_log(x, 4, y, 4, 0.95, NULL, &df, &p, &r),
               SB_EINVAL, "welch: NULL t is SB_EINVAL");

    /* Paired on logs. */
    TAP_IS_INT(sb_stats_paired_log(x, y, 1, 0.95, &r, &p), SB_EINVAL,
               "paired: m = 1 is SB_EINVAL");
    TAP_IS_INT(sb_stats_paired_log(x, y, 0, 0.95, &r, &p), SB_EINVAL,
               "paired: m = 0 is SB_EINVAL");
    memcpy(v, y, sizeof v);
    v[0] = 0.0;
    TAP_IS_INT(sb_stats_paired_log(x, v, 4, 0.95, &r, &p), SB_EINVAL,
               "paired: a zero value is SB_EINVAL");
    v[0] = -1.0;
    TAP_IS_INT(sb_stats_paired_log(v, y, 4, 0.95, &r, &p), SB_EINVAL,
               "paired: a negative value is SB_EINVAL");
    v[0] = NAN;
    TAP_IS_INT(sb_stats_paired_log(x, v, 4, 0.95, &r, &p), SB_EINVAL,
               "paired: NaN is SB_EINVAL");
    v[0] = INFINITY;
    TAP_IS_INT(sb_stats_paired_log(x, v, 4, 0.95, &r, &p), SB_EINVAL,
               "paired: infinity is SB_EINVAL");
    for (i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; ++i)
        TAP_IS_INT(sb_stats_paired_log(x, y, 4, bad_levels[i], &r, &p),
                   SB_EINVAL, "paired: level %g is SB_EINVAL", bad_levels[i]);
    TAP_IS_INT(sb_stats_paired_log(x, y, 4, 0.95, NULL, &p), SB_EINVAL,
               "paired: NULL ratio is SB_EINVAL");

    /* Holm. */
    TAP_IS_INT(sb_stats_holm(x, 0, adj), SB_EINVAL,
               "holm: m = 0 is SB_EINVAL");
    v[0] = 0.1; v[1] = 1.0000001; v[2] = 0.2; v[3] = 0.3;
    adj[1] = -7.0;
    TAP_IS_INT(sb_stats_holm(v, 4, adj), SB_EINVAL,
               "holm: p > 1 is SB_EINVAL");
    TAP_IS_REL(adj[1], -7.0, 0.0, "holm: nothing written on SB_EINVAL");
    v[1] = -1e-300;
    TAP_IS_INT(sb_stats_holm(v, 4, adj), SB_EINVAL,
               "holm: p < 0 is SB_EINVAL");
    v[1] = NAN;
    TAP_IS_INT(sb_stats_holm(v, 4, adj), SB_EINVAL, "holm: NaN is SB_EINVAL");
    v[1] = 0.5;
    TAP_IS_INT(sb_stats_holm(NULL, 4, adj), SB_EINVAL,
               "holm: NULL p is SB_EINVAL");
    TAP_IS_INT(sb_stats_holm(v, 4, NULL), SB_EINVAL,
               "holm: NULL adjusted is SB_EINVAL");

    /* Levels. */
    {
        const double g0[3] = {1.0, 2.0, 3.0}, g1[2] = {2.0, 4.0};
        const double gnan[2] = {1.0, NAN}, ginf[2] = {1.0, -INFINITY};
        const double *gs[2] = {g0, g1};
        const double *gnull[2] = {g0, NULL};
        const double *gn[2] = {g0, gnan}, *gi[2] = {g0, ginf};
        const size_t n[2] = {3, 2}, n0[2] = {3, 0};
        const struct {
            const double *const *groups;
            const size_t *n;
            size_t m;
            sb_levels *out;
            const char *what;
        } bad[] = {
            {gs, n, 1, &L, "m = 1"},
            {gs, n, 0, &L, "m = 0"},
            {gs, n0, 2, &L, "an empty group"},
            {gn, n, 2, &L, "NaN data"},
            {gi, n, 2, &L, "infinite data"},
            {gnull, n, 2, &L, "a NULL group"},
            {NULL, n, 2, &L, "NULL groups"},
            {gs, NULL, 2, &L, "NULL n"},
            {gs, n, 2, NULL, "NULL out"},
        };

        TAP_IS_INT(sb_stats_levels(gs, n, 2, 0.95, &L), SB_OK,
                   "levels: the good call is SB_OK");
        for (i = 0; i < sizeof bad / sizeof bad[0]; ++i)
            TAP_IS_INT(sb_stats_levels(bad[i].groups, bad[i].n, bad[i].m,
                                       0.95, bad[i].out),
                       SB_EINVAL, "levels: %s is SB_EINVAL", bad[i].what);
        for (i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; ++i)
            TAP_IS_INT(sb_stats_levels(gs, n, 2, bad_levels[i], &L),
                       SB_EINVAL, "levels: level %g is SB_EINVAL",
                       bad_levels[i]);
    }
}

/* The bootstrap test between runs.  Reference values by hand in python3:
 *   def p(rs, null):
 *       b = sum(r < null for r in rs); e = sum(r == null for r in rs)
 *       lo = b + 0.5 * e; return min(1, 2 * min(lo, len(rs) - lo) / len(rs))
 * gives 0.8 and 0.4 for the ten replicates below at 1 and 1.035, and 0 for
 * replicates all on one side; statistics.median(y) / statistics.median(x)
 * gives 0.9375 for the x and y below. */
static void check_boot_test(void)
{
    static const double reps[] = {0.97, 0.98, 0.99, 1.0,  1.0,
                                  1.01, 1.02, 1.03, 1.04, 1.05};
    static const double above[] = {1.1, 1.1, 1.2, 1.3, 1.4};
    static const double x[] = {10, 12, 11, 13, 50};
    static const double y[] = {11, 11.5, 12.5, 60, 10.5, 11};
    double big[40], p, p2;
    sb_interval ci, ci2;

    TAP_IS_REL(sb__boot_p(reps, 10, 1.0), 0.8, 1e-15,
               "boot p: ties with the null value count half");
    TAP_IS_REL(sb__boot_p(reps, 10, 1.035), 0.4, 1e-15,
               "boot p: the smaller tail, doubled");
    tap_ok(sb__boot_p(above, 5, 1.0) == 0.0, "boot p: all replicates above");
    tap_ok(isnan(sb__boot_p(NULL, 5, 1.0)), "boot p: NULL is NAN");

    tap_ok(sb_stats_ratio_boot_test(x, 5, y, 6, 0.95, 1000, 42, &ci, &p) ==
               SB_OK,
           "ratio boot test: SB_OK");
    TAP_IS_REL(ci.estimate, 0.9375, 1e-15,
               "ratio boot test: the ratio of the two medians");
    tap_ok(sb_stats_ratio_boot_ci(x, 5, y, 6, 0.95, 1000, SB_BOOT_PERCENTILE,
                                  42, &ci2) == SB_OK &&
               ci.lo == ci2.lo && ci.hi == ci2.hi,
           "ratio boot test: the interval is the percentile one of "
           "sb_stats_ratio_boot_ci on the same stream");
    tap_ok(p > 0.05 && ci.lo < 1 && ci.hi > 1,
           "ratio boot test: overlapping samples, p %.3g, interval holds 1",
           p);
    tap_ok(sb_stats_ratio_boot_test(x, 5, y, 6, 0.95, 1000, 42, &ci2, &p2) ==
               SB_OK &&
               p2 == p && ci2.lo == ci.lo,
           "ratio boot test: the same seed, the same result");
    /* A clear shift: every resampled ratio above 1. */
    for (size_t i = 0; i < 20; i++) {
        big[i] = 100 + (double)i;
        big[20 + i] = 200 + (double)i;
    }
    tap_ok(sb_stats_ratio_boot_test(big, 20, big + 20, 20, 0.95, 1000, 1,
                                    &ci, &p) == SB_OK &&
               p > 0 && p < 1e-6 && ci.lo > 1,
           "ratio boot test: a clear shift, p %.3g below the counted floor "
           "1/(B+1) and the interval above 1", p);
    /* Where the count cannot resolve the p (fewer than 10 replicates
     * beyond 1) it is the normal tail of the log replicates.  Replicates
     * exp(c + 0.01 z_i), z_i = -1.5 + 3 i / 999 (python3: math.erfc of
     * the mean over the n - 1 standard deviation, over sqrt 2). */
    {
        static const struct {
            double c, want;
            const char *what;
        } pr[] = {
            {0.1, 9.347430873700506e-31, "none beyond 1: the normal tail"},
            {0.01489, 0.08602091536748523,
             "4 beyond 1: the normal tail, not the count's 0.008"},
            {0.01, 0.334, "167 beyond 1: the count"},
        };
        static double rs[1000];
        for (size_t k = 0; k < sizeof pr / sizeof *pr; k++) {
            for (size_t i = 0; i < 1000; i++)
                rs[i] = exp(pr[k].c + 0.01 * (-1.5 + 3.0 * (double)i / 999));
            TAP_IS_REL(sb__boot_p_resolved(rs, 1000), pr[k].want, 1e-9,
                       "bootstrap p, %s", pr[k].what);
        }
    }
    /* An A/A pair seen on a shared VM, rebuilt: 48 clean invocation medians, 8 on
     * each of the six clock levels it measured (53.73 to 65.42 ticks),
     * and in A 19 contended ones at 92 to 117, in B 19 clean ones at the
     * two top levels instead.  Both medians are 62.70 (python3:
     * statistics.median), but the ratio of geometric means is 0.8707
     * (math.exp of the difference of the mean logs). */
    {
        static const double lv[] = {53.73, 55.72, 57.86, 60.18, 62.70,
                                    65.42};
        double a[67], b[67], t, df;
        int v;
        for (size_t i = 0; i < 48; i++)
            a[i] = b[i] = lv[i / 8];
        for (size_t i = 0; i < 19; i++) {
            a[48 + i] = 92 + 25 * (double)i / 18;
            b[48 + i] = i < 10 ? 62.70 : 65.42;
        }
        v = sb_stats_welch_log(a, 67, b, 67, 0.95, &t, &df, &p, &ci);
        tap_ok(v == SB_OK &&
                   fabs(ci.estimate - 0.8707489873008718) < 1e-12 &&
                   sb_stats_verdict(&ci, p, 0.05, 0.01) ==
                       SB_VERDICT_FASTER,
               "the shared-VM A/A pair: Welch on logs says 'faster' at ratio "
               "%.4f", ci.estimate);
        v = sb_stats_ratio_boot_test(a, 67, b, 67, 0.95, 1000, 1, &ci, &p) ==
                    SB_OK
                ? sb_stats_verdict(&ci, p, 0.05, 0.01)
                : -1;
        tap_ok(ci.estimate == 1.0 && v != SB_VERDICT_FASTER &&
                   v != SB_VERDICT_SLOWER && v != -1,
               "the shared-VM A/A pair: the bootstrap of the medians says "
               "%s at ratio %.4f [%.4f, %.4f]",
               v >= 0 ? sb_verdict_name(v) : "error", ci.estimate, ci.lo,
               ci.hi);
    }
    tap_ok(sb_stats_ratio_boot_test(big, 20, big + 20, 20, 0.95, 1000, 1,
                                    &ci, NULL) == SB_EINVAL &&
               sb_stats_ratio_boot_test(big, 1, big + 20, 20, 0.95, 1000, 1,
                                        &ci, &p) == SB_EINVAL &&
               sb_stats_ratio_boot_test(big, 20, big + 20, 20, 0.95, 99, 1,
                                        &ci, &p) == SB_EINVAL,
           "ratio boot test: NULL p, one value, B < 100 are SB_EINVAL");
}

/* sb_gate_judge: the decision for every verdict, the inconclusive policy,
 * and the one line it writes.  The comparisons are made by hand: the
 * decision is a pure function of them. */
static void check_gate_judge(void)
{
    sb_measure_options o;
    sb_analysis_options oa;
    sb_comparison c;
    char line[512];
    int r;

    sb_measure_options_init(&o);
    sb_analysis_options_init(&oa);
    oa.threshold = 0.10;
    TAP_IS_INT(oa.inconclusive, SB_INCONCLUSIVE_FAIL,
               "the default inconclusive policy is fail");
    TAP_IS_INT(sb_gate_judge(NULL, &oa, NULL, NULL, line, sizeof line),
               SB_GATE_FAIL, "gate: no comparison fails");
    tap_ok(strstr(line, "FAIL") == line && strstr(line, "no comparison"),
           "and says so: %s", line);
    memset(&c, 0, sizeof c);
    c.size = sizeof c;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_FAIL,
               "gate: a zeroed comparison (verdict none) fails");
    c = (sb_comparison){.size = sizeof c,
                        .valid = 1, .ratio = {1.5, 1.4, 1.6, 0.95, 0.95},
                        .p = 0.001, .p_adjusted = 0.001, .a12 = NAN,
                        .mde = 0.02, .verdict = SB_VERDICT_SLOWER,
                        .test = "t"};
    r = sb_gate_judge(&c, &oa, "mine vs memcpy", NULL, line, sizeof line);
    TAP_IS_INT(r, SB_GATE_FAIL, "gate: slower by 50%% at a 10%% threshold "
               "fails");
    tap_ok(strstr(line, "FAIL mine vs memcpy: slower, beyond") == line &&
               strstr(line, "time ratio 1.5 [1.4, 1.6]") &&
               strstr(line, "threshold 10%") &&
               strstr(line, "smallest detectable change 2%") &&
               strstr(line, "baseline: measured in the same run"),
           "the line gives the ratio, threshold, MDE and baseline: %s",
           line);
    c.ratio = (sb_interval){1.05, 1.02, 1.08, 0.95, 0.95};
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "gate: slower by 5%% at a 10%% threshold passes");
    {
        /* Slower, 5% past a 1% threshold, with an interval whose low end
         * lies below 1 + threshold: the estimate decides, not the low
         * end (a gate that waited for the whole interval to clear the
         * threshold would pass this slowdown). */
        sb_analysis_options one = oa;
        sb_comparison s = c;
        one.threshold = 0.01;
        s.ratio = (sb_interval){1.05, 1.005, 1.09, 0.95, 0.95};
        TAP_IS_INT(sb_gate_judge(&s, &one, NULL, NULL, line, sizeof line),
                   SB_GATE_FAIL, "gate: slower 1.05 [1.005, 1.09] at a 1%% "
                   "threshold fails");
        tap_ok(strstr(line, "slower, beyond the threshold") != NULL,
               "  as slower beyond the threshold: %s", line);
        TAP_IS_INT(sb_comparison_regressed(&s, 0.01), 1,
                   "  and sb_comparison_regressed agrees");
    }
    TAP_IS_INT(sb_comparison_regressed(&c, 0.10), 0,
               "as sb_comparison_regressed says");
    /* Inconclusive, reaching 30% slower: the policy decides. */
    c.ratio = (sb_interval){1.0, 0.8, 1.3, 0.95, 0.95};
    c.p_adjusted = 0.5;
    c.verdict = SB_VERDICT_INCONCLUSIVE;
    r = sb_gate_judge(&c, &oa, NULL, "saved baseline 'x'", line,
                      sizeof line);
    TAP_IS_INT(r, SB_GATE_FAIL, "gate: inconclusive past the threshold "
               "fails by default");
    tap_ok(strstr(line, "inconclusive") && strstr(line, "baseline: saved "
                                                        "baseline 'x'") &&
               strstr(line, "without significance"),
           "saying why and where the baseline came from: %s", line);
    {
        /* Significant and off 1, yet inconclusive: a withheld verdict
         * (a run on a shared core), which the line must not call short
         * of significance. */
        sb_comparison w = c;
        w.ratio = (sb_interval){1.5, 1.3, 1.7, 0.95, 0.95};
        w.p_adjusted = 0.003;
        w.withheld = 1;
        TAP_IS_INT(sb_gate_judge(&w, &oa, NULL, NULL, line, sizeof line),
                   SB_GATE_FAIL, "gate: a withheld verdict past the "
                   "threshold fails");
        tap_ok(strstr(line, "verdict was withheld") &&
                   !strstr(line, "without significance"),
               "and says it was withheld, not insignificant: %s", line);
    }
    oa.inconclusive = SB_INCONCLUSIVE_WARN;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, line, sizeof line),
               SB_GATE_WARN, "under warn it warns");
    tap_ok(strncmp(line, "WARN ", 5) == 0, "with a WARN line: %s", line);
    oa.inconclusive = SB_INCONCLUSIVE_PASS;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "under pass it passes");
    TAP_IS_INT(sb_comparison_regressed(&c, 0.10), 0,
               "as sb_comparison_regressed always did");
    oa.inconclusive = SB_INCONCLUSIVE_FAIL;
    /* Inconclusive but below 1 + threshold: ruled out, a pass. */
    c.ratio = (sb_interval){0.9, 0.8, 1.05, 0.95, 0.95};
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "gate: inconclusive within 1 + threshold passes under fail");
    c.ratio.hi = 1.10;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "gate: hi exactly 1 + threshold passes");
    c.ratio.hi = 1.12;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_FAIL,
               "gate: inconclusive, hi 1.12 just past 1 + threshold, fails");
    c.ratio.hi = NAN;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_FAIL,
               "gate: inconclusive with a NaN end fails");
    c.verdict = SB_VERDICT_EQUIVALENT;
    c.ratio = (sb_interval){1.0, 0.95, 1.05, 0.95, 0.95};
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "gate: equivalent passes");
    c.verdict = SB_VERDICT_FASTER;
    c.ratio = (sb_interval){0.5, 0.45, 0.55, 0.95, 0.95};
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_PASS,
               "gate: faster passes");
    c.ratio.estimate = NAN;
    TAP_IS_INT(sb_gate_judge(&c, &oa, NULL, NULL, NULL, 0), SB_GATE_FAIL,
               "gate: a NaN ratio fails");
    c.ratio.estimate = 0.5;
    c.mde = NAN;
    sb_gate_judge(&c, &oa, "a\nb\tc", "x\ny", line, sizeof line);
    tap_ok(!strchr(line, '\n') && !strchr(line, '\t') &&
               strstr(line, "a?b?c") && strstr(line, "x?y") &&
               strstr(line, "detectable change unknown"),
           "hostile names stay on one line: %s", line);
    memset(line, 'z', sizeof line);
    r = sb_gate_judge(&c, &oa, "a long name", NULL, line, 8);
    tap_ok(r == SB_GATE_PASS && strlen(line) == 7 && line[8] == 'z',
           "a short buffer is cut and terminated, nothing past it");
    /* NULL options: the defaults (1% threshold, fail). */
    c.verdict = SB_VERDICT_SLOWER;
    c.ratio = (sb_interval){1.02, 1.015, 1.025, 0.95, 0.95};
    TAP_IS_INT(sb_gate_judge(&c, NULL, NULL, NULL, NULL, 0), SB_GATE_FAIL,
               "gate: NULL options mean a 1%% threshold");
    /* A name from a loaded file: an ESC and a C1 CSI never reach the
     * terminal through the gate's line. */
    sb_gate_judge(&c, &oa, "k\x1b[2Jx\xc2\x9b", "from \xc2\x9b" "1m", line,
                  sizeof line);
    tap_ok(!strchr(line, '\x1b') && !strstr(line, "\xc2\x9b") &&
               strstr(line, "k?[2Jx?") != NULL &&
               strstr(line, "from ?1m") != NULL,
           "gate line: control characters in names cleaned: %s", line);
    TAP_IS_STR(sb_inconclusive_policy_name(SB_INCONCLUSIVE_WARN), "warn",
               "policy name: warn");
    TAP_IS_INT(sb_inconclusive_policy_parse("pass"), SB_INCONCLUSIVE_PASS,
               "policy parse: pass");
    TAP_IS_INT(sb_inconclusive_policy_parse("PASS"), -1,
               "policy parse: case matters");
}

/* The far tail of Student t between 30 and 2000 degrees of freedom, where
 * compare.c still takes the incomplete beta (T_BETA_MAX_DF): paired tests
 * on m = 32 and m = 101 log ratios d_i = mu + s z_i, z_i = ((7 i) mod 11 -
 * 5) / 5, with t near 12 and 30, whose p-values (about 3e-13 and 5e-52)
 * a normal-tail or cancelling formula gets wrong by orders of magnitude.
 * The references come from tests/fixtures/make_tail_ref.py: t from the
 * same doubles in 60-digit arithmetic, p = I_x(nu / 2, 1 / 2), x = nu /
 * (nu + t^2), by mpmath.betainc, checked against 2 times the integral of
 * the t density from t to infinity (mpmath.quad; agreement 1e-14 or
 * better). */
static void check_far_tail(void)
{
    static const struct {
        size_t m;
        double mu, s, t, p;
    } ref[] = {
        {32, 0.05, 0.036, 12.113397331824428106, 2.7307725014569829903e-13},
        {101, 0.05, 0.026, 30.179746394439647067, 4.8908005046370643033e-52},
    };
    for (size_t r = 0; r < sizeof ref / sizeof ref[0]; r++) {
        double a[101], b[101], p = NAN;
        sb_interval ratio;
        int rc;
        for (size_t i = 0; i < ref[r].m; i++) {
            double z = (double)((int)((i * 7) % 11) - 5) / 5.0;
            a[i] = 1.0;
            b[i] = exp(ref[r].mu + ref[r].s * z);
        }
        rc = sb_stats_paired_log(a, b, ref[r].m, 0.95, &ratio, &p);
        tap_ok(rc == SB_OK, "far tail: paired test of %zu pairs is SB_OK",
               ref[r].m);
        TAP_IS_REL(p, ref[r].p, 1e-9,
                   "far tail: df %zu, t %.1f: p %.3g as mpmath's incomplete "
                   "beta", ref[r].m - 1, ref[r].t, ref[r].p);
    }
}

/* An interval's reference values: r's ends lo and hi within ends_rel,
 * and its p within p_rel, checked as "what: lower end", "what: upper end"
 * and "what: p". */
static void ends_and_p(const sb_interval *r, double p, double lo, double hi,
                       double ends_rel, double want_p, double p_rel,
                       const char *what)
{
    TAP_IS_REL(r->lo, lo, ends_rel, "%s: lower end", what);
    TAP_IS_REL(r->hi, hi, ends_rel, "%s: upper end", what);
    TAP_IS_REL(p, want_p, p_rel, "%s: p", what);
}

/* The run level: one run against earlier runs, and a within-run ratio
 * widened by a run-to-run variance.  References from mpmath at 40
 * digits, written from the formulas in statbench.h, not from the code:
 * logs, their mean and n - 1 variance, the t tail from the regularized
 * incomplete beta (betainc), the quantiles by findroot on it, and for
 * the normal erfc and erfinv. */
static void check_run_level(void)
{
    static const double runs[] = {100, 103, 98, 101, 99};
    static const double same[] = {100, 100, 100};
    sb_interval r, w = {1.05, 1.01, 1.09, 0.95, 0.95};
    double p, df, sd;

    tap_ok(sb_stats_run_vs_runs(runs, 5, 107, 0.95, &r, &p, &df, &sd) == SB_OK,
           "run vs runs: SB_OK");
    TAP_IS_REL(r.estimate, 1.068021029074776, 1e-12,
               "run vs runs: 107 over the runs' geometric mean");
    TAP_IS_REL(r.lo, 1.007635184974503, 1e-10,
               "run vs runs: t(4) interval, s^2 (1 + 1/m), lower end");
    TAP_IS_REL(r.hi, 1.132025692984120, 1e-10,
               "run vs runs: t(4) interval, upper end");
    TAP_IS_REL(p, 0.03487150086494771, 1e-9, "run vs runs: two-sided p");
    tap_ok(df == 4, "run vs runs: m - 1 = 4 df");
    TAP_IS_REL(sd, 0.01913606194879629, 1e-12,
               "run vs runs: the runs' sd of log estimates");
    tap_ok(sb_stats_run_vs_runs(same, 3, 107, 0.95, &r, &p, NULL, NULL) ==
               SB_EINVAL,
           "run vs runs: runs all equal have no spread to judge by");
    tap_ok(sb_stats_run_vs_runs(runs, 1, 107, 0.95, &r, &p, NULL, NULL) ==
               SB_EINVAL &&
               sb_stats_run_vs_runs(runs, 5, 0, 0.95, &r, &p, NULL, NULL) ==
                   SB_EINVAL &&
               sb_stats_run_vs_runs(runs, 5, NAN, 0.95, &r, &p, NULL, NULL) ==
                   SB_EINVAL,
           "run vs runs: one run, or a new estimate that is not positive "
           "and finite, refused");

    tap_ok(sb_stats_ratio_add_level(&w, 10, 2 * 0.03 * 0.03, 0.95, &r, &p,
                                    &df) == SB_OK,
           "add level: SB_OK");
    TAP_IS_REL(r.estimate, 1.05, 1e-15, "add level: the estimate stays");
    ends_and_p(&r, p, 0.9595060406284612, 1.148446569198380, 1e-9,
               0.2879946404710356, 1e-8, "add level (t, 10 df)");
    TAP_IS_REL(df, 479.3936641163635, 1e-9,
               "add level: Welch-Satterthwaite df of the side facing 1");
    tap_ok(sb_stats_ratio_add_level(&w, 0, 2 * 0.03 * 0.03, 0.95, &r, &p,
                                    &df) == SB_OK &&
               df == 0,
           "add level (normal): SB_OK, a normal sum");
    ends_and_p(&r, p, 0.9579232654585401, 1.150231034115374, 1e-10,
               0.2974393057810982, 1e-10, "add level (normal)");
    tap_ok(sb_stats_ratio_add_level(&w, 10, 0, 0.95, &r, &p, &df) == SB_OK &&
               fabs(r.lo / 1.01 - 1) < 1e-12 && fabs(r.hi / 1.09 - 1) < 1e-12,
           "add level: nothing added keeps the within interval, each side "
           "its own width (%.6f %.6f)", r.lo, r.hi);
    {
        /* A skewed bootstrap interval stays skewed. */
        sb_interval sk = {1.1, 1.02, 3.1, 0.95, 0.95};
        tap_ok(sb_stats_ratio_add_level(&sk, 0, 2 * 0.03 * 0.03, 0.95, &r,
                                        &p, NULL) == SB_OK &&
                   r.lo < 1.02 && r.hi > 3.1 &&
                   log(r.hi / 1.1) > 5 * log(1.1 / r.lo),
               "add level: a skewed interval [1.02, 3.1] around 1.1 stays "
               "skewed: [%.4f, %.4f]", r.lo, r.hi);
    }
    tap_ok(sb_stats_ratio_add_level(&w, 10, -1, 0.95, &r, &p, NULL) ==
                   SB_EINVAL &&
               sb_stats_ratio_add_level(&w, -1, 0, 0.95, &r, &p, NULL) ==
                   SB_EINVAL &&
               sb_stats_ratio_add_level(&(sb_interval){1, 0, 2, 0.95, 0.95},
                                        10, 0, 0.95, &r, &p, NULL) ==
                   SB_EINVAL,
           "add level: a negative variance or df, or an interval reaching "
           "0, refused");
}

static sb_run *n_invocations(const double *t, size_t n);

/* A run of one cell (COPY_NAME, 4096 bytes): invocation g holds 5
 * samples of t[g] ticks at 1 GHz, analysed; NULL without the kernel (the
 * comparison reads its name). */
static sb_run *four_invocations(const double *t)
{
    return n_invocations(t, 4);
}

/* The same with n invocations. */
static sb_run *n_invocations(const double *t, size_t n)
{
    sb_run *run = synth_one_cell(COPY_NAME, 1e9);
    double x[5];

    if (!run)
        return NULL;
    synth_tsc(run, 1e9);
    for (size_t g = 0; g < n; g++) {
        sb__raw_cell raw = {.nsamples = 5, .ticks = x};
        for (size_t q = 0; q < 5; q++)
            x[q] = t[g];
        if (sb__run_add_invocation(run, 0, &raw) != SB_OK) {
            sb_run_free(run);
            return NULL;
        }
    }
    return synth_analysed(run, n);
}

/* A comparison's mde, and the gate's "smallest detectable change", for
 * two separate runs of 4 invocations each (Welch on the logarithms of
 * the invocation medians), the run-to-run sd told to be 0 (no widening).
 * The reference is computed apart from the C code, in python3 with
 * mpmath at 40 digits: x = log(baseline), y = log(candidate), v = s^2 /
 * 4 for each side, se = sqrt(v_x + v_y), df by Welch-Satterthwaite
 * (v_x + v_y)^2 / (v_x^2 / 3 + v_y^2 / 3) = 4.7604, and mde = (t_0.975
 * + t_0.8) se, the t quantiles found by mpmath.findroot on the t CDF 1 -
 * I_{df / (df + t^2)}(df / 2, 1 / 2) / 2 (mpmath.betainc): 2.6100 +
 * 0.92379 times 0.0065063. */
static void check_mde_reference(void)
{
    static const double base[] = {1000, 1010, 995, 1005},
                        cand[] = {1100, 1090, 1120, 1105};
    sb_run *b = four_invocations(base), *c = four_invocations(cand);
    const sb_comparison *cmp;
    char line[512], want[64];
    size_t matched = 0;
    sb_error err = {0};

    if (!tap_ok(b && c, "mde: two runs of 4 invocations made"))
        goto done;
    c->analysis.run_sd = 0;
    if (!tap_ok(sb_run_compare_to(c, b, &matched, &err) == SB_OK &&
                    matched == 1,
                "mde: compared (%s)", err.text))
        goto done;
    cmp = sb_run_comparison(c, 0);
    tap_ok(cmp && cmp->valid && cmp->test && strstr(cmp->test, "Welch"),
           "mde: by Welch's t on the logarithms (%s)",
           cmp && cmp->test ? cmp->test : "-");
    TAP_IS_REL(cmp->ratio.lo, 1.082423718226768, 1e-9,
               "mde: the interval's low end as mpmath's exp(d - t se)");
    TAP_IS_REL(cmp->mde, 0.0229919213250565, 1e-9,
               "mde: (t_0.975 + t_0.8) se, as mpmath computes it");
    sb_gate_judge(cmp, NULL, NULL, NULL, line, sizeof line);
    snprintf(want, sizeof want, "smallest detectable change %.2g%%",
             0.0229919213250565 * 100);
    tap_ok(strstr(line, want) != NULL && strstr(line, "2.3%") != NULL,
           "mde: the gate's line says '%s': %s", want, line);
    /* The cell's own interval, over its 4 invocations: t on the log
     * medians (order statistics reach 87.5% at most), df 3, its relative
     * half-width h = (hi - lo) / 2 / estimate 0.010246 (mpmath, from
     * the four logs' mean and sd).  Its mde is that of the comparison it
     * stands for, Welch's t on the logs of two such sides: se = sd of
     * the four logs / 2, df 2 x 4 - 2 = 6, mde = (t_0.975,6 + t_0.8,6)
     * sqrt(2) se, with mpmath's t quantiles (2.446912, 0.905703, found
     * by inverting the regularised incomplete beta). */
    tap_ok(strncmp(sb_run_cell(b, 0)->method, "t over log", 10) == 0,
           "mde: the cell's interval is t on the log medians (%s)",
           sb_run_cell(b, 0)->method);
    TAP_IS_REL(sb_run_cell(b, 0)->rel_halfwidth, 0.01024606598512334, 1e-9,
               "mde: the cell's relative half-width as mpmath's");
    TAP_IS_REL(sb_run_cell(b, 0)->mde, 0.01526466101295919, 1e-9,
               "mde: the cell's, Welch's with 6 degrees of freedom, as "
               "mpmath's");
    {
        /* Too few units on one side only (4 against 6) is too few for a
         * bootstrap: Welch still. */
        static const double six[] = {1100, 1090, 1120, 1105, 1095, 1110};
        sb_run *d = n_invocations(six, 6);
        const sb_comparison *w;
        if (d && sb_run_compare_to(d, b, NULL, &err) == SB_OK &&
            (w = sb_run_comparison(d, 0)) && w->test)
            tap_ok(strstr(w->test, "Welch") != NULL,
                   "4 invocations against 6: Welch, too few for a "
                   "bootstrap on one side (%s)", w->test);
        else
            tap_ok(0, "4 invocations against 6 compared (%s)", err.text);
        sb_run_free(d);
    }
done:
    sb_run_free(b);
    sb_run_free(c);
}

/* Two cells of one run, 6 invocations each, paired over invocations
 * only when both have samples in every one: cell 0's first invocation
 * and cell 1's second are empty, so the 5 medians left a side are of
 * different invocations and must not be paired. */
static void check_pairing_needs_every_invocation(void)
{
    const sb_kernel *k0 = sb_kernel_find(COPY_NAME),
                    *k1 = sb_kernel_find("libc");
    sb_measure_options o;
    sb_run *run;
    double x[5];
    size_t base[2] = {SIZE_MAX, 0};
    sb_error err = {0};
    const sb_comparison *c;
    int ok = 1;

    sb_measure_options_init(&o);
    run = k0 && k1 ? sb__run_alloc(2, &o, NULL) : NULL;
    if (!run) {
        tap_ok(0, "pairing: run made (kernels %s and libc)", COPY_NAME);
        return;
    }
    synth_tsc(run, 1e9);
    run->cells[0].cell = (sb_cell){.kernel = k0, .size = 4096};
    run->cells[1].cell = (sb_cell){.kernel = k1, .size = 4096};
    for (size_t g = 0; g < 6; g++)
        for (size_t i = 0; i < 2; i++) {
            sb__raw_cell raw = {.nsamples = g == i ? 0 : 5, .ticks = x};
            for (size_t q = 0; q < 5; q++)
                x[q] = (i ? 1100.0 : 1000.0) + 7.0 * (double)((g * 3) % 5);
            ok = ok && sb__run_add_invocation(run, i, &raw) == SB_OK;
        }
    run = ok ? synth_analysed(run, 6) : run;
    if (!tap_ok(ok && run, "pairing: a run with an empty invocation a cell"))
        goto done;
    c = sb_run_set_baselines(run, base, &err) == SB_OK
            ? sb_run_comparison(run, 1)
            : NULL;
    tap_ok(c && c->valid && c->test && !strstr(c->test, "paired"),
           "pairing: invocations empty on one side or the other are not "
           "paired (%s)", c && c->test ? c->test : err.text);
done:
    sb_run_free(run);
}

/* Kruskal-Wallis against a reference written from the formula in python3
 * (average ranks by hand, the chi-squared tail from mpmath's regularized
 * upper incomplete gamma), one case without ties and one with. */
static void check_kruskal(void)
{
    static const double a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    static const double b[] = {1, 2, 2, 3, 2, 3, 3, 4, 1, 5, 5, 6};
    static const double same[] = {7, 7, 7, 7};
    static const size_t n[] = {4, 3, 5}, n2[] = {2, 2}, n0[] = {2, 0};
    double h, p;

    tap_ok(sb_stats_kruskal(a, n, 3, &h, &p) == SB_OK, "kruskal: SB_OK");
    TAP_IS_REL(h, 9.692307692307692, 1e-12, "kruskal: H without ties");
    TAP_IS_REL(p, 0.007858544670151703, 1e-9, "kruskal: p without ties");
    tap_ok(sb_stats_kruskal(b, n, 3, &h, &p) == SB_OK, "kruskal: ties, SB_OK");
    TAP_IS_REL(h, 3.787228260869569, 1e-12, "kruskal: H with the tie term");
    TAP_IS_REL(p, 0.1505268010720296, 1e-9, "kruskal: p with ties");
    tap_ok(sb_stats_kruskal(same, n2, 2, &h, &p) == SB_OK && h == 0 &&
               p == 1,
           "kruskal: every value equal, H 0 and p 1");
    tap_ok(sb_stats_kruskal(a, n, 1, &h, &p) == SB_EINVAL &&
               sb_stats_kruskal(a, n0, 2, &h, &p) == SB_EINVAL,
           "kruskal: one group, or an empty one, refused");
}

int main(void)
{
    size_t counts[NKINDS] = {0};

    sb_init();
    if (run_fixture("compare_ref.txt", counts) == 0) {
        for (size_t k = 0; k < NKINDS; k++)
            tap_at_least(counts[k], kinds[k].min, kinds[k].what);
        tap_diag("worst relative error: p %.2g, t-based interval ends %.2g",
                 worst_p, worst_t);
    }
    check_verdict();
    check_gate_judge();
    check_mde_reference();
    check_pairing_needs_every_invocation();
    check_holm_edges();
    check_hand();
    check_boot_test();
    check_far_tail();
    check_run_level();
    check_kruskal();
    check_bad_input();
    return tap_done();
}
