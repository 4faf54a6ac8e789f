/*
 * test_replay.c: the contention probe's quiet model (src/machine/probe.c,
 * sb__probe_model and sb__quiet) replayed over recorded hosts.
 *
 * The recordings (tests/fixtures/hosts, see the README there) are traces
 * of shared/hosts/hosttrace.c: one row per 5 ms of back-to-back rounds
 * on a pinned CPU, each with the imul clock chain before and after, a
 * 16-byte load/store probe of the pattern statbench's contention probe
 * uses, and four kernels (memcpy 4 KiB, memset 8 KiB, an SSE2 copy of
 * 2 KiB at src+3, rep movsl of 10 KiB at src+1), all in TSC ticks per
 * call or rep.  Core cycles per tick are 6 / (chain_before +
 * chain_after) (3 cycles per imul; the chains are ticks per imul).
 *
 * The truth comes from the kernels, which the model never sees: a
 * 1-second window is quiet when its memcpy median is within 3% of the
 * lowest window median (the recordings' README gives < 175 core cycles
 * for the Zen 3 host, whose quiet median is 163), and a row of a quiet
 * window ran on a quiet core when its memcpy and memset both ran within
 * 3% of the quiet windows' medians (the windows mix: 15-30% of a quiet
 * window's rows ran at the shared core's speed, and the probe beside
 * them says so; rep movsl's median over the Zen 3 host's quiet windows
 * is 594.4 core cycles, over their quiet rows 572.4).  Two ways of
 * deciding, each against two goals:
 *
 *  - offline: one model fitted over the whole recording, as an analysis
 *    of recorded samples decides;
 *  - online: the recording cut into invocations of 200 rows (1 s), each
 *    deciding as measure.c does: its model (sb__quiet) starts from the
 *    prior its earlier invocations confirmed (sb__quiet_prior), is
 *    refitted as values arrive, and each row is judged by the model of
 *    that moment.
 *
 * Goals: the rows kept run at each kernel's quiet speed, their median
 * within 1% of the quiet rows' median; and at least 80% of the quiet
 * rows are kept.
 *
 *     test_replay                 TAP over the recordings in the tree
 *     test_replay --bench F...    the figures of each recording F (a
 *                                 hosttrace CSV), no assertion
 *                                 (bench/replay.sh)
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "probe.h"
#include "tap.h"

enum { COL_T, COL_CB, COL_CA, COL_PROBE, NKERN = 4, NCOL = 4 + NKERN };
static const char *const cols[NCOL] = {
    "t_s", "chain_before", "chain_after", "ldst16",
    "memcpy4k", "memset8k", "sse2_2k_src3", "movsl10k_src1"};

/* One recording, in core cycles. */
struct trace {
    size_t n;
    double *t, *probe, *k[NKERN];
};

static void trace_free(struct trace *tr)
{
    free(tr->t);
    free(tr->probe);
    for (int j = 0; j < NKERN; j++)
        free(tr->k[j]);
    memset(tr, 0, sizeof *tr);
}

/* Read a hosttrace CSV (its columns found by name: the tree's recordings
 * keep only the ones used here).  0, or -1 with why. */
static int trace_read(const char *path, struct trace *tr, char *why,
                      size_t len)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int idx[NCOL];
    size_t cap = 0, lineno = 1;

    memset(tr, 0, sizeof *tr);
    if (!f) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!fgets(line, sizeof line, f)) {
        snprintf(why, len, "%s: empty", path);
        fclose(f);
        return -1;
    }
    for (int c = 0; c < NCOL; c++) {
        char *tok, *save = NULL, hdr[1024];
        int at = 0;
        idx[c] = -1;
        snprintf(hdr, sizeof hdr, "%s", line);
        for (tok = strtok_r(hdr, ",\r\n", &save); tok;
             tok = strtok_r(NULL, ",\r\n", &save), at++)
            if (!strcmp(tok, cols[c]))
                idx[c] = at;
        if (idx[c] < 0) {
            snprintf(why, len, "%s: no column %s", path, cols[c]);
            fclose(f);
            return -1;
        }
    }
    while (fgets(line, sizeof line, f)) {
        double v[64];
        int nv = 0, bad = 0;
        char *p = line, *end;
        lineno++;
        while (nv < 64) {
            errno = 0;
            v[nv] = strtod(p, &end);
            if (end == p || errno)
                bad = 1;
            nv++;
            if (*end != ',')
                break;
            p = end + 1;
        }
        for (int c = 0; c < NCOL && !bad; c++)
            bad = idx[c] >= nv || !isfinite(v[idx[c]]);
        if (bad)
            continue; /* a truncated last row */
        if (tr->n == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            double **arr[2 + NKERN] = {&tr->t, &tr->probe};
            for (int j = 0; j < NKERN; j++)
                arr[2 + j] = &tr->k[j];
            for (int a = 0; a < 2 + NKERN; a++) {
                double *q = realloc(*arr[a], nc * sizeof *q);
                if (!q) {
                    snprintf(why, len, "out of memory");
                    fclose(f);
                    trace_free(tr);
                    return -1;
                }
                *arr[a] = q;
            }
            cap = nc;
        }
        {
            double clk = 6 / (v[idx[COL_CB]] + v[idx[COL_CA]]);
            tr->t[tr->n] = v[idx[COL_T]];
            tr->probe[tr->n] = v[idx[COL_PROBE]] * clk;
            for (int j = 0; j < NKERN; j++)
                tr->k[j][tr->n] = v[idx[4 + j]] * clk;
            tr->n++;
        }
    }
    fclose(f);
    if (tr->n < 1000) {
        snprintf(why, len, "%s: %zu rows, too few to replay", path, tr->n);
        trace_free(tr);
        return -1;
    }
    return 0;
}

static double median_of(const double *x, const unsigned char *sel,
                        size_t n, double *work)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!sel || sel[i])
            work[m++] = x[i];
    if (!m)
        return NAN;
    gsl_sort(work, 1, m);
    return m % 2 ? work[m / 2] : (work[m / 2 - 1] + work[m / 2]) / 2;
}

/* The truth: rows of quiet windows (qwin) and, among them, rows on a
 * quiet core (qrow); each kernel's median over the quiet windows. */
struct truth {
    unsigned char *qwin, *qrow;
    size_t nwin, nquietwin, nqwin, nqrow;
    double med[NKERN];  /* each kernel's median over the quiet rows */
    double wmed[NKERN]; /* and over the quiet windows' rows */
};

static int truth_make(const struct trace *tr, struct truth *th,
                      double *work)
{
    size_t nw = (size_t)floor(tr->t[tr->n - 1]) + 1;
    double *wmed = malloc(nw * sizeof *wmed), lowest = INFINITY;
    size_t i0 = 0;

    memset(th, 0, sizeof *th);
    th->qwin = calloc(tr->n, 1);
    th->qrow = calloc(tr->n, 1);
    if (!wmed || !th->qwin || !th->qrow) {
        free(wmed);
        return -1;
    }
    for (size_t w = 0; w < nw; w++) {
        size_t i1 = i0;
        while (i1 < tr->n && tr->t[i1] < (double)(w + 1))
            i1++;
        wmed[w] = i1 > i0 ? median_of(tr->k[0] + i0, NULL, i1 - i0, work)
                          : NAN;
        if (wmed[w] < lowest)
            lowest = wmed[w];
        i0 = i1;
    }
    for (size_t i = 0; i < tr->n; i++) {
        size_t w = (size_t)floor(tr->t[i]);
        th->qwin[i] = w < nw && wmed[w] <= lowest * 1.03;
        th->nqwin += th->qwin[i];
    }
    for (size_t w = 0; w < nw; w++)
        th->nquietwin += wmed[w] <= lowest * 1.03;
    th->nwin = nw;
    for (int j = 0; j < NKERN; j++)
        th->wmed[j] = median_of(tr->k[j], th->qwin, tr->n, work);
    for (size_t i = 0; i < tr->n; i++) {
        th->qrow[i] = th->qwin[i] && tr->k[0][i] <= th->wmed[0] * 1.03 &&
                      tr->k[1][i] <= th->wmed[1] * 1.03;
        th->nqrow += th->qrow[i];
    }
    for (int j = 0; j < NKERN; j++)
        th->med[j] = median_of(tr->k[j], th->qrow, tr->n, work);
    free(wmed);
    return 0;
}

static void truth_free(struct truth *th)
{
    free(th->qwin);
    free(th->qrow);
}

/* What one way of deciding kept, against the truth. */
struct outcome {
    size_t kept, kept_qrow, kept_qwin;
    double med[NKERN];   /* each kernel's median over the kept rows */
    double level, margin; /* offline: the model's */
};

static void judge(const struct trace *tr, const struct truth *th,
                  const unsigned char *keep, struct outcome *o,
                  double *work)
{
    o->kept = o->kept_qrow = o->kept_qwin = 0;
    for (size_t i = 0; i < tr->n; i++) {
        o->kept += keep[i];
        o->kept_qrow += keep[i] && th->qrow[i];
        o->kept_qwin += keep[i] && th->qwin[i];
    }
    for (int j = 0; j < NKERN; j++)
        o->med[j] = median_of(tr->k[j], keep, tr->n, work);
}

/* One model over the whole recording. */
static void offline(const struct trace *tr, unsigned char *keep,
                    struct outcome *o, double *work)
{
    memcpy(work, tr->probe, tr->n * sizeof *work);
    sb__probe_model(work, tr->n, &o->level, &o->margin, NULL);
    for (size_t i = 0; i < tr->n; i++)
        keep[i] = !sb__probe_contended(tr->probe[i], o->level, o->margin);
}

/* Invocations of inv rows, each as measure.c decides. */
static int online(const struct trace *tr, size_t inv, unsigned char *keep)
{
    enum { RING = 8191 };
    double *ring = malloc(2 * RING * sizeof *ring);
    size_t ninv = (tr->n + inv - 1) / inv, nlev = 0;
    double *levels = malloc(ninv * sizeof *levels), margin = 0;

    if (!ring || !levels) {
        free(ring);
        free(levels);
        return -1;
    }
    for (size_t s = 0; s < tr->n; s += inv) {
        sb__quiet q;
        size_t e = s + inv < tr->n ? s + inv : tr->n;
        sb__quiet_init(&q, ring, ring + RING, RING, 0);
        sb__quiet_seed(&q, sb__quiet_prior(levels, nlev, margin), margin,
                       1);
        for (size_t i = s; i < e; i++) {
            /* The row joins the model, then is judged by it, as a sample
             * is (sample.c: probe_values, then the contention check);
             * until a first fit, by the prior alone (no calibration here:
             * the trace has none apart from the rows, and one probe a row
             * where a sample has two). */
            sb__quiet_add(&q, tr->probe[i]);
            keep[i] = !isfinite(q.level) ||
                      !sb__probe_contended(tr->probe[i], q.level, q.margin);
        }
        if (isfinite(q.level)) {
            levels[nlev++] = q.level;
            margin = q.margin;
        }
    }
    free(ring);
    free(levels);
    return 0;
}

static const char *const kname[NKERN] = {"memcpy 4K", "memset 8K",
                                         "sse2 2K+3", "movsl 10K+1"};

static void print_outcome(const char *how, const struct trace *tr,
                          const struct truth *th, const struct outcome *o)
{
    printf("  %-8s kept %zu of %zu rows (%.1f%%); of the quiet rows "
           "%.1f%%, of the quiet windows' rows %.1f%%\n",
           how, o->kept, tr->n, 100.0 * (double)o->kept / (double)tr->n,
           100.0 * (double)o->kept_qrow / (double)th->nqrow,
           100.0 * (double)o->kept_qwin / (double)th->nqwin);
    for (int j = 0; j < NKERN; j++)
        printf("           %-11s kept median %.1f, quiet rows' %.1f "
               "(%+.2f%%), quiet windows' %.1f\n", kname[j], o->med[j],
               th->med[j], 100 * (o->med[j] / th->med[j] - 1),
               th->wmed[j]);
}

/* Replay one recording: 0, or -1 (unreadable).  With assert, TAP checks
 * of the goals; else the figures. */
static int replay(const char *path, const char *name, int assert)
{
    struct trace tr;
    struct truth th;
    struct outcome off = {0}, on = {0};
    unsigned char *keep;
    double *work;
    char why[512];

    if (trace_read(path, &tr, why, sizeof why) != 0) {
        if (assert)
            tap_ok(0, "%s: read (%s)", name, why);
        else
            fprintf(stderr, "test_replay: %s\n", why);
        return -1;
    }
    keep = malloc(tr.n);
    work = malloc(tr.n * sizeof *work);
    if (!keep || !work || truth_make(&tr, &th, work) != 0) {
        free(keep);
        free(work);
        trace_free(&tr);
        return -1;
    }
    offline(&tr, keep, &off, work);
    judge(&tr, &th, keep, &off, work);
    if (online(&tr, 200, keep) == 0)
        judge(&tr, &th, keep, &on, work);
    if (!assert) {
        printf("%s: %zu rows, %.0f s; %zu of %zu one-second windows "
               "quiet; %zu quiet rows in them\n", name, tr.n,
               tr.t[tr.n - 1], th.nquietwin, th.nwin, th.nqrow);
        printf("  model: quiet level %.1f core cycles per rep, margin "
               "%.1f%%\n", off.level, 100 * off.margin);
        print_outcome("offline", &tr, &th, &off);
        print_outcome("online", &tr, &th, &on);
    } else {
        const struct outcome *oc[2] = {&off, &on};
        const char *how[2] = {"offline", "online (1 s invocations)"};
        tap_ok(th.nquietwin >= 10 && th.nquietwin < th.nwin,
               "%s: %zu of %zu windows quiet, a recording of both states",
               name, th.nquietwin, th.nwin);
        for (int h = 0; h < 2; h++) {
            const struct outcome *o = oc[h];
            double share = (double)o->kept_qrow / (double)th.nqrow;
            tap_ok(share >= 0.80, "%s, %s: keeps %.1f%% of the quiet "
                   "rows (>= 80%%)", name, how[h], 100 * share);
            for (int j = 0; j < NKERN; j++)
                tap_ok(fabs(o->med[j] / th.med[j] - 1) <= 0.01,
                       "%s, %s: %s kept at %.1f, within 1%% of the "
                       "quiet rows' %.1f", name, how[h], kname[j],
                       o->med[j], th.med[j]);
        }
    }
    truth_free(&th);
    free(keep);
    free(work);
    trace_free(&tr);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const hosts[] = {"amd-epyc-zen3-kvm",
                                        "amd-epyc-zen4-kvm"};
    const char *top = getenv("top_srcdir");
    char path[4096];
    int rc = 0;

    if (argc > 1 && !strcmp(argv[1], "--bench")) {
        for (int i = 2; i < argc; i++)
            rc |= replay(argv[i], argv[i], 0) != 0;
        return rc;
    }
    for (size_t h = 0; h < sizeof hosts / sizeof *hosts; h++) {
        snprintf(path, sizeof path, "%s/tests/fixtures/hosts/%s.csv",
                 top && *top ? top : ".", hosts[h]);
        replay(path, hosts[h], 1);
    }
    return tap_done();
}
