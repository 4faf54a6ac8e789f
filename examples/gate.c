/*
 * gate.c: a performance regression gate in a test program.
 *
 * sb_gate measures a baseline and a candidate function and decides: FAIL
 * when the candidate is slower beyond the threshold with significance, or
 * when the run could not tell (an interval reaching past the threshold,
 * the default policy); PASS otherwise.  The exit status of this program is
 * 1 for FAIL, 0 for PASS and 2 for an error, so a test suite can run it.
 *     cc gate.c $(pkg-config --cflags --libs statbench)
 * Usage: gate [slow]   (with "slow" the candidate does twice the work and
 *                       the gate must fail)
 */
#include <stdio.h>
#include <string.h>

#include <statbench.h>

static int slow;

static void baseline(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memcpy(dst, src, n);
}

static void candidate(void *dst, const void *src, size_t n, void *state)
{
    (void)state;
    memcpy(dst, src, n);
    if (slow) { /* a "patch" that copies everything twice */
        /* Without the guard the compiler may merge the two copies of the
         * same bytes into one. */
        SB_CLOBBER_MEMORY();
        memcpy(dst, src, n);
    }
}

int main(int argc, char **argv)
{
    sb_measure_options measure;
    sb_analysis_options analysis;
    sb_comparison c = {.size = sizeof c}; /* the size this program knows */
    sb_error err = {0};
    char line[512];
    int rc, outcome;

    slow = argc > 1 && !strcmp(argv[1], "slow");
    sb_measure_options_init(&measure);
    sb_analysis_options_init(&analysis);
    measure.max_time = 2;      /* a short gate; more time, finer verdicts */
    analysis.threshold = 0.05; /* changes under 5% do not fail the gate */
    rc = sb_gate(baseline, candidate, 65536, &measure, &analysis, &c,
                 &outcome, &err);
    if (rc != SB_OK) {
        fprintf(stderr, "gate: %s\n", err.text);
        return 2;
    }
    /* The gate's own line: the verdict, ratio and interval, the threshold
     * and the smallest change this run could have detected. */
    sb_gate_judge(&c, &analysis, "candidate vs baseline", NULL, line,
                  sizeof line);
    printf("%s\n", line);
    return outcome == SB_GATE_FAIL;
}
