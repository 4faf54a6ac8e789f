/*
 * test_compare_clocks.c: compare of two runs whose core clocks differ.
 *
 * The fixture runs are built through the internal API (sb__run_alloc and
 * sb__run_add_invocation with each sample's clock set), since the saved
 * JSON has no per-sample clock yet.  An A/A pair: the same code, 74.4 core
 * cycles a call with 0.2% noise, measured once at a core clock of 2.79 GHz
 * and once at 2.89 GHz against a 2.00 GHz TSC: its times differ by the
 * clock ratio (3.6%), its core cycles agree.
 *  - sb_run_core_clock gives each run's clock, sb_run_clocks_differ says
 *    they differ (and not for two runs at one clock);
 *  - compared in time (the cells' metric is time) the pair is called
 *    faster, as it is in time;
 *  - with both cells judged in core cycles (sb_cell_result.metric set
 *    here by hand: the metric's choice, --metric auto, comes with another
 *    change) the verdict is equivalent;
 *  - with one cell in cycles and the other in time, both are compared in
 *    time.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "run_internal.h"
#include "statbench.h"
#include "tap.h"
#include "synth_run.h"

/* The copy kernel the runs are of: movsl where the build has the
 * string-instruction kernels, else duff, a C copy every build has.  Only
 * its name matters here, never its code. */
#ifdef SB_HAVE_X86_64
#define COPY_NAME "movsl"
#else
#define COPY_NAME "duff"
#endif

#define INVS 8
#define SAMPLES 50
#define TSC_HZ 2.0e9

/* A run of one cell (COPY_NAME, 4 KiB): INVS invocations of SAMPLES
 * samples of 74.4 core cycles, timed at a core clock of ghz.  NULL
 * without the kernel: the comparison reads its name. */
static sb_run *fixture(gsl_rng *r, double ghz)
{
    sb_run *run = synth_one_cell(COPY_NAME, TSC_HZ);
    double t[SAMPLES], c[SAMPLES];
    double clock = ghz * 1e9 / TSC_HZ; /* core cycles per tick */

    if (!run)
        return NULL;
    for (size_t g = 0; g < INVS; g++) {
        sb__raw_cell raw = {.nsamples = SAMPLES, .ticks = t, .clock = c};
        for (size_t s = 0; s < SAMPLES; s++) {
            double cycles = 74.4 * exp(gsl_ran_gaussian(r, 0.002));
            /* The clock as the probe would measure it: 0.1% noise. */
            c[s] = clock * exp(gsl_ran_gaussian(r, 0.001));
            t[s] = cycles / c[s];
        }
        if (sb__run_add_invocation(run, 0, &raw) != SB_OK) {
            sb_run_free(run);
            return NULL;
        }
        run->invocations++;
    }
    if (sb__run_analyse(run, NULL) != SB_OK) {
        sb_run_free(run);
        return NULL;
    }
    return run;
}

static int verdict(sb_run *b, const sb_run *a, const char **test)
{
    const sb_comparison *c;
    /* The fixture's runs have no run level by construction: told so, the
     * comparison is the within-run one whose metric is tested here. */
    b->analysis.run_sd = 0;
    if (sb_run_compare_to(b, a, NULL, NULL) != SB_OK)
        return -1;
    c = sb_run_comparison(b, 0);
    *test = c ? c->test : "";
    return c ? (int)c->verdict : -1;
}

int main(void)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    sb_run *a, *b, *a2;
    double ga, gb;
    const char *test = "";
    int v;

    sb_init();
    if (!r)
        return 1;
    gsl_rng_set(r, 12);
    a = fixture(r, 2.79);
    b = fixture(r, 2.89);
    a2 = fixture(r, 2.79);
    if (!tap_ok(a && b && a2, "three fixture runs"))
        return tap_done();

    tap_ok(fabs(sb_run_core_clock(a) * TSC_HZ / 1e9 - 2.79) < 0.01 &&
               fabs(sb_run_core_clock(b) * TSC_HZ / 1e9 - 2.89) < 0.01,
           "core clocks of the runs: %.4f and %.4f GHz",
           sb_run_core_clock(a) * TSC_HZ / 1e9,
           sb_run_core_clock(b) * TSC_HZ / 1e9);
    v = sb_run_clocks_differ(a, b, &ga, &gb);
    tap_ok(v == 1 && ga < gb,
           "2.79 against 2.89 GHz: the clocks differ (%.3f, %.3f GHz)", ga,
           gb);
    tap_ok(sb_run_clocks_differ(a, a2, NULL, NULL) == 0,
           "two runs at 2.79 GHz: the clocks do not differ");
    {
        sb_run *none = NULL;
        static const double x[] = {1, 2, 3};
        const double *xv[] = {x};
        const char *nm[] = {"k"};
        size_t n[] = {3};
        sb_run_from_samples_new(nm, xv, n, 1, NULL, 1, &none, NULL);
        tap_ok(none && isnan(sb_run_core_clock(none)) &&
                   sb_run_clocks_differ(a, none, NULL, NULL) == 0 &&
                   sb_run_clocks_differ(NULL, a, NULL, NULL) == 0,
               "a run without clocks: unknown, never 'different'");
        sb_run_free(none);
    }

    v = verdict(b, a, &test);
    tap_ok(v == SB_VERDICT_FASTER,
           "in time, the run at the faster clock is faster: %s (%s)",
           sb_verdict_name(v), test);

    a->cells[0].metric = SB_METRIC_CYCLES;
    v = verdict(b, a, &test);
    tap_ok(v == SB_VERDICT_FASTER && !strstr(test, "cycles"),
           "one cell in cycles, the other in time: compared in time: %s "
           "(%s)", sb_verdict_name(v), test);

    b->cells[0].metric = SB_METRIC_CYCLES;
    v = verdict(b, a, &test);
    tap_ok(v == SB_VERDICT_EQUIVALENT && strstr(test, "core cycles"),
           "both cells in cycles: equivalent: %s (%s)", sb_verdict_name(v),
           test);
    {
        const sb_comparison *c = sb_run_comparison(b, 0);
        tap_ok(c && c->ratio.lo <= 1 && 1 <= c->ratio.hi &&
                   c->ratio.hi - c->ratio.lo < 0.01,
               "in cycles the ratio's interval [%.4f, %.4f] holds 1",
               c ? c->ratio.lo : NAN, c ? c->ratio.hi : NAN);
    }

    sb_run_free(a);
    sb_run_free(b);
    sb_run_free(a2);
    gsl_rng_free(r);
    return tap_done();
}
