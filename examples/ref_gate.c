/*
 * ref_gate.c: the gate, the interleaved way: a reference build (the last
 * release's .so) and the build under test loaded into one run, their
 * cells in the same interleaved rounds, and each size of the new build
 * judged against the reference's by the gate's policy and wording
 * (sb_gate_tally_add, sb_gate_tally_outcome): what `statbench ab` does,
 * through the C API.
 *
 * Why not a baseline saved at release time: a run now and a run then
 * compare two hosts as much as two builds (the load, the clock, the
 * neighbours change between two moments), and a gate against a saved
 * run fails unchanged code whenever the host moved.  In one run both
 * builds meet the same host, round by round, and the host cancels.
 *
 * Both objects export SYMBOL, a copy of the sb_kernel_fn shape
 *     void SYMBOL(void *dst, const void *src, size_t n, void *state);
 * each is loaded into a link-map namespace of its own, so that the two
 * builds' identical names do not clash, and each is checked byte for
 * byte before it is timed.
 *     cc ref_gate.c $(pkg-config --cflags --libs statbench)
 * Usage: ref_gate REF.so NEW.so SYMBOL   (paths with a '/': ./libfoo.so)
 * The output is TAP, for automake's make check (the TAP driver), prove
 * or ctest alike: one line a size, "ok" for a pass, "not ok" for a
 * slowdown, "ok ... # SKIP undecided" for a size the run could not
 * decide, the gate's whole line as its description.
 * Exit status: 0 the same or faster (within the 5% threshold), 1 slower
 * beyond it with significance (or a size that could not be compared), 2
 * bad use or an error, 3 undecided: the run could not tell, so retry it
 * or give it more time; it is no verdict on the code.
 */
#include <stdio.h>

#include <statbench.h>

int main(int argc, char **argv)
{
    static const size_t sizes[] = {4096, 65536};
    sb_measure_options measure;
    sb_analysis_options analysis;
    sb_gate_tally tally = {.size = sizeof tally}; /* zeroed, its size set */
    sb_kernel *ref = NULL, *cur = NULL;
    sb_plan *plan = NULL;
    sb_run *run = NULL;
    sb_error err = {0};
    int rc, outcome;

    if (argc != 4) {
        fprintf(stderr, "usage: ref_gate REF.so NEW.so SYMBOL\n");
        return 2;
    }
    sb_measure_options_init(&measure);
    sb_analysis_options_init(&analysis);
    measure.max_time = 2;      /* seconds, for the whole run */
    analysis.threshold = 0.05; /* changes under 5% do not fail the gate */

    /* The two builds under two names, the same symbol in each. */
    rc = sb_kernel_load_new(argv[1], argv[3], "reference", SB_FAMILY_COPY,
                            &ref, &err);
    if (rc == SB_OK)
        rc = sb_kernel_load_new(argv[2], argv[3], "new", SB_FAMILY_COPY,
                                &cur, &err);
    if (rc == SB_OK && !(plan = sb_plan_new()))
        rc = SB_ENOMEM;
    for (size_t i = 0; rc == SB_OK && i < sizeof sizes / sizeof *sizes; i++) {
        rc = sb_plan_add(plan, ref, sizes[i], 0, 0, &err);
        if (rc == SB_OK)
            rc = sb_plan_add(plan, cur, sizes[i], 0, 0, &err);
    }
    /* A wrong copy's speed means nothing: both are checked first. */
    if (rc == SB_OK)
        rc = sb_kernel_verify(ref, plan, &err);
    if (rc == SB_OK)
        rc = sb_kernel_verify(cur, plan, &err);
    /* One run: every round measures every cell of both, in a fresh
     * order, and each invocation pairs them. */
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &measure, &analysis, &run, &err);
    /* Each cell of new against the reference's cell of its size (the
     * reference's own cells get no comparison). */
    if (rc == SB_OK)
        rc = sb_run_baseline_by(run, "reference", 0, NULL, &err);
    if (rc != SB_OK) {
        fprintf(stderr, "ref_gate: %s\n",
                rc == SB_ENOMEM ? "out of memory" : err.text);
        outcome = -1;
    } else {
        size_t n = 0;
        for (size_t i = 0; i < sb_run_count(run); i++)
            n += sb_run_comparison(run, i) != NULL;
        printf("1..%zu\n", n);
        n = 0;
        for (size_t i = 0; i < sb_run_count(run); i++) {
            const sb_comparison *c = sb_run_comparison(run, i);
            char what[64], line[1200];
            int out;
            if (!c)
                continue;
            snprintf(what, sizeof what, "new vs reference, %zu B",
                     sb_run_cell(run, i)->cell.size);
            /* PASS, WARN, FAIL, or UNDECIDED where sb_gate_judge would
             * say FAIL for an interval that reaches past the threshold:
             * to TAP a skip, neither a pass nor a regression. */
            out = sb_gate_tally_add(&tally, c, &analysis, what,
                                    "the reference build, in the same "
                                    "rounds",
                                    line, sizeof line);
            printf("%s %zu - %s%s\n", out == SB_GATE_FAIL ? "not ok" : "ok",
                   ++n, line,
                   out == SB_GATE_UNDECIDED ? " # SKIP undecided" : "");
        }
        outcome = sb_gate_tally_outcome(&tally);
    }
    sb_run_free(run);
    sb_plan_free(plan); /* before the kernels it holds */
    sb_kernel_load_free(cur);
    sb_kernel_load_free(ref);
    switch (outcome) {
    case SB_GATE_PASS:
    case SB_GATE_WARN:
        return 0;
    case SB_GATE_UNDECIDED:
        printf("# undecided: %zu of %zu sizes could not rule out a "
               "slowdown beyond %g%% (retry, or give the run more time)\n",
               tally.undecided, tally.judged, 100 * analysis.threshold);
        return 3;
    case SB_GATE_FAIL:
        return 1;
    default:
        return 2;
    }
}
