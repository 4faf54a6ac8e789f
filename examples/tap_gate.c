/*
 * tap_gate.c: performance gates as a TAP test, for automake's make check
 * (TESTS with the TAP driver), prove or any TAP harness.
 *
 * Each candidate is a named benchmark measured beside a reference,
 * memcpy, in one run; each comparison is one TAP line with the ratio (of
 * core cycles or of times, as the cells were judged)
 * and its interval, "ok" when the gate passes, "not ok" when it fails,
 * and the gate's full account as a diagnostic.  The gates here allow 25%
 * and warn on an inconclusive comparison (SB_INCONCLUSIVE_WARN), so that
 * a noisy machine passes an unchanged function; only a slowdown shown
 * with significance beyond 25% fails.
 *     cc tap_gate.c $(pkg-config --cflags --libs statbench)
 * Usage: tap_gate [slow]   (with "slow" a third candidate copies four
 *                           times, a slowdown no machine's noise hides
 *                           and its line must be "not ok"; exit 1)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <statbench.h>

static void copy(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memcpy(dst, src, n);
}

static void move(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memmove(dst, src, n);
}

static void four_times(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    for (int i = 0; i < 4; i++) {
        memcpy(dst, src, n);
        SB_CLOBBER_MEMORY(); /* or the copies may become one */
    }
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        sb_kernel_fn fn;
    } cand[] = {{"via-memmove", move},
                {"memcpy-again", copy},
                {"four-times", four_times}};
    size_t ncand = argc > 1 && !strcmp(argv[1], "slow") ? 3 : 2;
    sb_plan *plan = sb_plan_new();
    sb_measure_options measure;
    sb_analysis_options analysis;
    sb_run *run = NULL;
    sb_error err = {0};
    int failed = 0;

#if defined(__SANITIZE_ADDRESS__)
    /* Under AddressSanitizer memmove and memcpy are its checking
     * stand-ins, whose speeds say nothing about the real ones. */
    (void)cand, (void)ncand, (void)plan, (void)run, (void)err, (void)failed;
    sb_plan_free(plan);
    printf("1..0 # SKIP a sanitizer build: the gates time instrumented "
           "copies\n");
    return 0;
#endif
    sb_measure_options_init(&measure);
    sb_analysis_options_init(&analysis);
    measure.max_time = 2;
    analysis.threshold = 0.25;
    analysis.inconclusive = SB_INCONCLUSIVE_WARN;
    /* A TAP harness reads stdout: the plan first, errors as "Bail out!". */
    printf("1..%zu\n", ncand);
    int rc = plan ? sb_bench_add(plan, "memcpy", copy, NULL, 4096, &err)
                  : SB_ENOMEM;
    for (size_t i = 0; rc == SB_OK && i < ncand; i++)
        rc = sb_bench_add(plan, cand[i].name, cand[i].fn, NULL, 4096, &err);
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &measure, &analysis, &run, &err);
    sb_plan_free(plan);
    if (rc == SB_OK)
        rc = sb_run_baseline_by(run, "memcpy", 0, NULL, &err);
    if (rc != SB_OK) {
        printf("Bail out! %s\n", rc == SB_ENOMEM ? "out of memory" : err.text);
        sb_run_free(run);
        return 2;
    }
    for (size_t i = 0; i < ncand; i++) {
        /* Cell 0 is memcpy, candidate i is cell i + 1. */
        const sb_comparison *c = sb_run_comparison(run, i + 1);
        char what[64], line[512];
        int out;
        snprintf(what, sizeof what, "%s vs memcpy", cand[i].name);
        out = sb_gate_judge(c, &analysis, what, NULL, line, sizeof line);
        failed |= out == SB_GATE_FAIL;
        /* The ratio is of core cycles when both cells were judged in
         * them (the comparison's test says so), else of times. */
        printf("%s %zu - %s: %s ratio %.3f [%.3f, %.3f], %s\n",
               out == SB_GATE_FAIL ? "not ok" : "ok", i + 1, what,
               c && c->test && strstr(c->test, "core cycles") ? "core-cycle"
                                                              : "time",
               c ? c->ratio.estimate : NAN, c ? c->ratio.lo : NAN,
               c ? c->ratio.hi : NAN,
               sb_verdict_name(c ? c->verdict : SB_VERDICT_NONE));
        printf("# %s\n", line);
    }
    sb_run_free(run);
    return failed;
}
