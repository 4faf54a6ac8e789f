/*
 * redecide.c: the shared core decided again from a run's record (every
 * sample's contention readings and the samples held back), with another
 * margin or at the run's level rather than each invocation's: what
 * --shared-margin and --shared-level do to a saved run; and the core
 * clock decided again from the same record (every sample's two chain
 * readings), with another rule for chains that disagree: what
 * --chain-apart does.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "run_internal.h"
#include "stats_internal.h"

/* ---- The shared core decided again (record, then decide) ------------ */

/* A sample's contention value: the slower of its two contention
 * readings, in core cycles per repetition with its clock when the run has
 * a core clock (cycles), else in ticks per repetition; NAN without. */
static double contention_value(const double *p, double clock, int cycles)
{
    double b = p[SB_PROBE_CONTENTION_BEFORE];
    double a = p[SB_PROBE_CONTENTION_AFTER];
    double v = isnan(b) ? a : isnan(a) ? b : fmax(a, b);
    return cycles ? v * clock : v;
}

/* Columns for n samples: flags, clocks, readings (probes), nc counters. */
static int alloc_columns(sb__cell_samples *cs, size_t n, int probes,
                         size_t nc)
{
    memset(cs, 0, sizeof *cs);
    cs->flags = malloc(n + 1);
    cs->clock = malloc((n + 1) * sizeof *cs->clock);
    cs->probes = probes ? malloc((n + 1) * SB_PROBE_READINGS *
                                 sizeof *cs->probes)
                        : NULL;
    if (!cs->flags || !cs->clock || (probes && !cs->probes))
        return SB_ENOMEM;
    for (size_t j = 0; j < nc; j++)
        if (!(cs->counters[j] = malloc((n + 1) * sizeof *cs->counters[j])))
            return SB_ENOMEM;
    return SB_OK;
}

/* Sample from of (st, sc) as sample to of (dt, dc), flags f. */
static void put_sample(double *dt, sb__cell_samples *dc, size_t to,
                       const double *st, const sb__cell_samples *sc,
                       size_t from, unsigned char f, size_t nc)
{
    dt[to] = st[from];
    dc->flags[to] = f;
    dc->clock[to] = sc->clock ? sc->clock[from] : NAN;
    for (size_t k = 0; dc->probes && k < SB_PROBE_READINGS; k++)
        dc->probes[to * SB_PROBE_READINGS + k] =
            sc->probes ? sc->probes[from * SB_PROBE_READINGS + k] : NAN;
    for (size_t j = 0; j < nc; j++)
        dc->counters[j][to] =
            sc->counters[j] ? sc->counters[j][from] : NAN;
}

/* Which of invocation g's recorded samples of a cell comes at place p:
 * its held sample *hq when that one's place is p (or no kept sample is
 * left), else its kept sample *kq; 1 for held.  The places come from the
 * measurement or a file, so a place out of order only reorders. */
static int next_is_held(const sb__cell_held *h, size_t hoff, size_t nh,
                        size_t hq, size_t nk, size_t kq, size_t p)
{
    if (hq >= nh)
        return 0;
    return kq >= nk || h->at[hoff + hq] == p;
}

/* Invocation quiet models: level[g] and margin[g] fitted to every
 * reading of invocation g's recorded samples, over all cells (as the
 * measurement's model is one per invocation); NAN where too few. */
static int fit_invocations(const sb_run *run, int cycles, size_t ninv,
                           double *level, double *margin)
{
    size_t most = 1;
    double *x;
    /* Each cell's first kept and first held sample of invocation g. */
    size_t *kat = calloc(run->ncells + 1, sizeof *kat);
    size_t *hat = calloc(run->ncells + 1, sizeof *hat);

    for (size_t i = 0; i < run->ncells; i++)
        most += run->cells[i].nsamples +
                (run->held ? run->held[i].n : 0);
    if (!kat || !hat || !(x = malloc(2 * most * sizeof *x))) {
        free(kat);
        free(hat);
        return SB_ENOMEM;
    }
    for (size_t g = 0; g < ninv; g++) {
        size_t n = 0;
        for (size_t i = 0; i < run->ncells; i++) {
            const sb_cell_result *r = &run->cells[i];
            const sb__cell_samples *cs = &run->samples[i];
            const sb__cell_held *h = run->held ? &run->held[i] : NULL;
            size_t ko = kat[i], ho = hat[i];
            if (g >= r->invocations)
                continue;
            kat[i] += r->inv_nsamples[g];
            hat[i] += h && h->inv_n ? h->inv_n[g] : 0;
            for (size_t q = 0; cs->probes && q < r->inv_nsamples[g]; q++)
                for (int k = SB_PROBE_CONTENTION_BEFORE;
                     k <= SB_PROBE_CONTENTION_AFTER; k++) {
                    double c = cs->clock ? cs->clock[ko + q] : NAN;
                    double v = cs->probes[(ko + q) * SB_PROBE_READINGS + k];
                    x[n++] = cycles ? v * c : v;
                }
            for (size_t q = 0; h && h->inv_n && h->cols.probes &&
                               q < h->inv_n[g];
                 q++)
                for (int k = SB_PROBE_CONTENTION_BEFORE;
                     k <= SB_PROBE_CONTENTION_AFTER; k++) {
                    double c = h->cols.clock ? h->cols.clock[ho + q] : NAN;
                    double v =
                        h->cols.probes[(ho + q) * SB_PROBE_READINGS + k];
                    x[n++] = cycles ? v * c : v;
                }
        }
        sb__probe_model(x, n, &level[g], &margin[g], NULL);
    }
    free(x);
    free(kat);
    free(hat);
    return SB_OK;
}

/* Decide cell i's shared core again against the invocations' models:
 * its kept and held samples, merged in the order measured, split anew;
 * where an invocation has no model its samples keep their decision. */
static int redecide_cell(sb_run *run, size_t i, const double *level,
                         const double *margin, double given, double floor)
{
    sb_cell_result *r = &run->cells[i];
    sb__cell_samples *cs = &run->samples[i], kc, hc;
    sb__cell_held *h = &run->held[i];
    size_t nc = sb__run_ncounters(run), total = r->nsamples + h->n;
    size_t ko = 0, ho = 0, nk = 0, nh = 0, *hat, *hinv;
    size_t was_flagged = 0, now_flagged = 0, old_held = h->n;
    double *kt, *ht;
    const unsigned char bit = 1u << SB_REJECT_SHARED_CORE;
    int probes = cs->probes || h->cols.probes;

    kt = malloc((total + 1) * sizeof *kt);
    ht = malloc((total + 1) * sizeof *ht);
    hat = malloc((total + 1) * sizeof *hat);
    hinv = calloc(r->invocations + 1, sizeof *hinv);
    if (!kt || !ht || !hat || !hinv ||
        alloc_columns(&kc, total, probes, nc) != SB_OK ||
        alloc_columns(&hc, total, probes, nc) != SB_OK) {
        free(kt), free(ht), free(hat), free(hinv);
        sb__columns_free(&kc);
        sb__columns_free(&hc);
        return SB_ENOMEM;
    }
    for (size_t g = 0; g < r->invocations; g++) {
        size_t k = r->inv_nsamples[g], hn = h->inv_n ? h->inv_n[g] : 0;
        size_t kq = 0, hq = 0, kept = 0;
        double lim = isfinite(level[g])
                         ? level[g] * (1 + (given > 0 ? given
                                                      : fmax(margin[g],
                                                             floor)))
                         : NAN;
        for (size_t p = 0; p < k + hn; p++) {
            int held = next_is_held(h, ho, hn, hq, k, kq, p);
            const double *st = held ? h->ticks : r->ticks;
            const sb__cell_samples *sc = held ? &h->cols : cs;
            size_t from = held ? ho + hq++ : ko + kq++;
            unsigned char f = sc->flags ? sc->flags[from] : 0;
            double c = sc->clock ? sc->clock[from] : NAN;
            int shared = held;
            was_flagged += (f & bit) != 0;
            if (isfinite(lim) && sc->probes) {
                double v = contention_value(
                    sc->probes + from * SB_PROBE_READINGS, c,
                    floor == 0);
                shared = isfinite(v) && v > lim;
                f = shared ? (unsigned char)(f | bit)
                           : (unsigned char)(f & ~bit);
            }
            now_flagged += (f & bit) != 0;
            if (shared) {
                hat[nh] = p;
                put_sample(ht, &hc, nh++, st, sc, from, f, nc);
                hinv[g]++;
            } else {
                put_sample(kt, &kc, nk++, st, sc, from, f, nc);
                kept++;
            }
        }
        ko += k;
        ho += hn;
        r->inv_nsamples[g] = kept;
    }
    free(r->ticks);
    sb__columns_free(cs);
    r->ticks = kt;
    *cs = kc;
    r->nsamples = nk;
    sb__held_free(h);
    h->n = nh;
    h->ticks = ht;
    h->at = hat;
    h->inv_n = hinv;
    h->cols = hc;
    r->rejected[SB_REJECT_SHARED_CORE] += nh;
    r->rejected[SB_REJECT_SHARED_CORE] -= old_held;
    r->rejected_total += nh;
    r->rejected_total -= old_held;
    r->disturbed[SB_REJECT_SHARED_CORE] += now_flagged;
    r->disturbed[SB_REJECT_SHARED_CORE] -= was_flagged;
    return SB_OK;
}

const char *sb__run_redecide_refused(const sb_run *run)
{
    int any = 0;
    for (size_t i = 0; i < run->ncells; i++)
        any |= run->samples[i].probes != NULL ||
               (run->held && run->held[i].cols.probes);
    return run->imported ? "imported samples have no probes"
           : run->measure.reject != SB_REJECT_DISTURBED
               ? "the run kept every sample (--reject none)"
           : !any ? "the run has no probe readings (measured without the "
                    "contention probe, or saved before readings were "
                    "recorded)"
                  : NULL;
}

/* The analysis' shared-core decision (sb_analysis_options.shared_margin)
 * over every cell.  SB_EINVAL when the run cannot be decided again. */
/* The run's level (sb_analysis_options.shared_level SB_SHARED_RUN): the
 * lowest invocation level another confirms, within the invocations'
 * median margin, for each invocation whose own lies above it (but not
 * three times above: a level that low is a wrong figure, as the
 * measurement's prior rule says, probe.h). */
static int run_level(double *level, const double *margin, size_t ninv)
{
    double *m = malloc((ninv + 1) * sizeof *m), lr, mm;
    size_t n = 0;
    if (!m)
        return SB_ENOMEM;
    for (size_t g = 0; g < ninv; g++)
        if (isfinite(margin[g]))
            m[n++] = margin[g];
    mm = n ? sb__median_inplace(m, n) : NAN;
    free(m);
    lr = isfinite(mm) ? sb__quiet_prior(level, ninv, mm) : NAN;
    for (size_t g = 0; isfinite(lr) && g < ninv; g++)
        if (isfinite(level[g]) && lr < level[g] && lr * 3 >= level[g])
            level[g] = lr;
    return SB_OK;
}

int sb__run_redecide_shared(sb_run *run, double given, int level_of,
                            sb_error *err)
{
    int cycles = run->meta.probe[0] && strcmp(run->meta.probe, "none");
    int rc = SB_OK;
    size_t ninv = 0;
    double *level, *margin;
    const char *why = sb__run_redecide_refused(run);

    for (size_t i = 0; i < run->ncells; i++)
        if (run->cells[i].invocations > ninv)
            ninv = run->cells[i].invocations;
    if (why)
        return sb__error(err, SB_EINVAL,
                         "the shared core cannot be decided again: %s", why);
    if (!run->held &&
        !(run->held = calloc(run->ncells ? run->ncells : 1,
                             sizeof *run->held)))
        return sb__error(err, SB_ENOMEM, "out of memory");
    level = malloc((ninv + 1) * sizeof *level);
    margin = malloc((ninv + 1) * sizeof *margin);
    if (!level || !margin ||
        fit_invocations(run, cycles, ninv, level, margin) != SB_OK ||
        (level_of == SB_SHARED_RUN &&
         run_level(level, margin, ninv) != SB_OK))
        rc = SB_ENOMEM;
    for (size_t i = 0; rc == SB_OK && i < run->ncells; i++)
        rc = redecide_cell(run, i, level, margin, given,
                           cycles ? 0 : SB__PROBE_MARGIN_TICKS);
    free(level);
    free(margin);
    return rc == SB_OK ? SB_OK : sb__error(err, rc, "out of memory");
}

/* ---- The core clock decided again (record, then decide) ------------- */

/* Where invocation g's clock came from: its own run's source in a merge
 * that records one (runs measured apart may differ: one with a PMU, one
 * without), else the run's. */
static const char *clock_source(const sb_run *run, size_t g)
{
    if (run->nruns >= 2 && run->runs && run->inv_run &&
        g < run->invocations && run->runs[run->inv_run[g]].probe[0])
        return run->runs[run->inv_run[g]].probe;
    return run->meta.probe;
}

const char *sb__run_reclock_refused(const sb_run *run)
{
    int any = 0;
    size_t chains = 0;

    for (size_t i = 0; i < run->ncells; i++)
        any |= run->samples[i].probes != NULL ||
               (run->held && run->held[i].cols.probes);
    for (size_t g = 0; g < run->invocations; g++)
        chains += !strcmp(clock_source(run, g), "imul-chain");
    return run->imported ? "imported samples have no probes"
           : !any ? "the run has no probe readings (measured without the "
                    "probes, or saved before readings were recorded)"
           : chains ? NULL
           : run->nruns >= 2
               ? "none of its runs' clocks came from the chains"
           : !strcmp(run->meta.probe, "pmu")
               ? "its clock came from the PMU's cycle counter "
                 "(PAPI_TOT_CYC), not from the chains"
               : "it had no core clock (its clock probe was absent, or "
                 "refused at start-up)";
}

/* The clocks of n samples with readings p decided again: where a sample
 * has a clock and its readings give one. */
static void reclock(double *clock, const double *p, size_t n, double apart)
{
    for (size_t q = 0; clock && p && q < n; q++) {
        const double *r = p + q * SB_PROBE_READINGS;
        double c = sb__probe_chain_clock(r[SB_PROBE_CHAIN_BEFORE],
                                         r[SB_PROBE_CHAIN_AFTER], apart);
        if (isfinite(clock[q]) && isfinite(c))
            clock[q] = c;
    }
}

int sb__run_redecide_clock(sb_run *run, double apart, sb_error *err)
{
    const char *why = sb__run_reclock_refused(run);

    if (why)
        return sb__error(err, SB_EINVAL,
                         "the core clock cannot be decided again: %s", why);
    /* Invocation by invocation: in a merge, only the invocations of runs
     * whose clock came from the chains (a PMU's stays as it was). */
    for (size_t i = 0; i < run->ncells; i++) {
        const sb_cell_result *r = &run->cells[i];
        sb__cell_samples *cs = &run->samples[i];
        sb__cell_held *h = run->held ? &run->held[i] : NULL;
        size_t ko = 0, ho = 0;
        for (size_t g = 0; g < r->invocations; g++) {
            size_t nk = r->inv_nsamples[g];
            size_t nh = h && h->inv_n ? h->inv_n[g] : 0;
            if (!strcmp(clock_source(run, g), "imul-chain")) {
                reclock(cs->clock ? cs->clock + ko : NULL,
                        cs->probes ? cs->probes + ko * SB_PROBE_READINGS
                                   : NULL,
                        nk, apart);
                if (h)
                    reclock(h->cols.clock ? h->cols.clock + ho : NULL,
                            h->cols.probes
                                ? h->cols.probes + ho * SB_PROBE_READINGS
                                : NULL,
                            nh, apart);
            }
            ko += nk;
            ho += nh;
        }
        if (h && !h->inv_n && !strcmp(run->meta.probe, "imul-chain"))
            reclock(h->cols.clock, h->cols.probes, h->n, apart);
    }
    return SB_OK;
}

int sb__run_redecide_check(const sb_run *run, const sb_analysis_options *a,
                           sb_error *err)
{
    const char *why;

    if (a->chain_apart >= 0 && (why = sb__run_reclock_refused(run)))
        return sb__error(err, SB_EINVAL,
                         "the core clock cannot be decided again: %s", why);
    if (a->shared_margin >= 0 && (why = sb__run_redecide_refused(run)))
        return sb__error(err, SB_EINVAL,
                         "the shared core cannot be decided again: %s", why);
    return SB_OK;
}
