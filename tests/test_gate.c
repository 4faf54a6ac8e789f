/*
 * test_gate.c: the gate's tally and its exit mapping on comparisons built
 * by hand, so that every outcome, UNDECIDED (exit status 3) among them,
 * is reached on any machine without measuring anything: the library's
 * sb_gate_tally_add and sb_gate_tally_outcome, and the command's one
 * gate of --against and ab (src/cli/cli_gate.c, compiled in here), with
 * the lines it says captured.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tap.h"

/* The command's say() and progname, here: the lines are kept to be
 * read back. */
const char *progname = "statbench";
static char said[8192];

void say(const char *fmt, ...)
{
    size_t at = strlen(said);
    va_list ap;

    va_start(ap, fmt);
    if (at < sizeof said)
        vsnprintf(said + at, sizeof said - at, fmt, ap);
    va_end(ap);
    at = strlen(said);
    if (at + 1 < sizeof said) {
        said[at] = '\n';
        said[at + 1] = '\0';
    }
}

/* What was said, on one line (a TAP description must not break). */
static const char *flat(void)
{
    static char buf[sizeof said];
    size_t n = strlen(said);

    memcpy(buf, said, n + 1);
    while (n > 0 && buf[n - 1] == '\n')
        buf[--n] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = '|';
    return buf;
}

/* The comparisons, at a 5% threshold. */
static sb_comparison cmp(int verdict, double est, double lo, double hi)
{
    return (sb_comparison){.size = sizeof(sb_comparison), .valid = 1,
                           .base = 0, .ratio = {est, lo, hi, 0.95, 0.95},
                           .p = 0.01, .p_adjusted = 0.01, .a12 = NAN,
                           .mde = 0.01, .verdict = verdict, .test = "t",
                           .run_sd = NAN};
}

enum { FASTER, EQUIVALENT, SLOWER_WITHIN, SLOWER_BEYOND, UNDECIDED,
       RULED_OUT, WITHHELD, ERROR_NONE, ERROR_NAN, NKINDS };

static const char *const kind_name[NKINDS] = {
    "faster", "equivalent", "slower within the threshold",
    "slower beyond the threshold", "inconclusive past the threshold",
    "inconclusive within the threshold", "withheld past the threshold",
    "an error (verdict none)", "not comparable (NAN ratio)"};

static sb_comparison kind(int k)
{
    sb_comparison c;

    switch (k) {
    case FASTER:
        return cmp(SB_VERDICT_FASTER, 0.5, 0.45, 0.55);
    case EQUIVALENT:
        return cmp(SB_VERDICT_EQUIVALENT, 1.0, 0.99, 1.01);
    case SLOWER_WITHIN:
        return cmp(SB_VERDICT_SLOWER, 1.02, 1.01, 1.03);
    case SLOWER_BEYOND:
        return cmp(SB_VERDICT_SLOWER, 2.0, 1.9, 2.1);
    case UNDECIDED:
        c = cmp(SB_VERDICT_INCONCLUSIVE, 1.0, 0.9, 1.2);
        c.p = c.p_adjusted = 0.6;
        return c;
    case RULED_OUT:
        c = cmp(SB_VERDICT_INCONCLUSIVE, 1.0, 0.97, 1.04);
        c.p = c.p_adjusted = 0.6;
        return c;
    case WITHHELD:
        c = cmp(SB_VERDICT_INCONCLUSIVE, 2.0, 1.9, 2.1);
        c.withheld = 1;
        return c;
    case ERROR_NONE:
        c = cmp(SB_VERDICT_NONE, NAN, NAN, NAN);
        c.valid = 0;
        return c;
    default:
        return cmp(SB_VERDICT_SLOWER, NAN, NAN, NAN);
    }
}

/* What each kind is, alone, under the default policy (fail): the
 * outcome, the exit status, and what sb_gate_judge says of it. */
static const struct {
    int outcome, status, judge;
} want[NKINDS] = {
    [FASTER] = {SB_GATE_PASS, 0, SB_GATE_PASS},
    [EQUIVALENT] = {SB_GATE_PASS, 0, SB_GATE_PASS},
    [SLOWER_WITHIN] = {SB_GATE_PASS, 0, SB_GATE_PASS},
    [SLOWER_BEYOND] = {SB_GATE_FAIL, 1, SB_GATE_FAIL},
    [UNDECIDED] = {SB_GATE_UNDECIDED, 3, SB_GATE_FAIL},
    [RULED_OUT] = {SB_GATE_PASS, 0, SB_GATE_PASS},
    [WITHHELD] = {SB_GATE_UNDECIDED, 3, SB_GATE_FAIL},
    [ERROR_NONE] = {SB_GATE_FAIL, 1, SB_GATE_FAIL},
    [ERROR_NAN] = {SB_GATE_FAIL, 1, SB_GATE_FAIL},
};

static const struct cli_gate words = {
    .label = "new vs old", .from = "old, in the same rounds",
    .prefix = "ab: ", .subject = "new", .versus = "old",
    .advice = "more --max-time"};

/* The tally of the kinds k[0..n) under a, and the command's status. */
static int tally_of(const int *k, size_t n, const sb_analysis_options *a,
                    sb_gate_tally *t)
{
    *t = (sb_gate_tally){.size = sizeof *t};
    for (size_t i = 0; i < n; i++) {
        sb_comparison c = kind(k[i]);
        sb_gate_tally_add(t, &c, a, NULL, NULL, NULL, 0);
    }
    said[0] = '\0';
    return cli_gate_status(t, &words, 0);
}

static void test_each_alone(const sb_analysis_options *a)
{
    for (int k = 0; k < NKINDS; k++) {
        sb_comparison c = kind(k);
        sb_gate_tally t = {.size = sizeof t};
        char line[512], judged[512];
        int out = sb_gate_tally_add(&t, &c, a, "x", NULL, line, sizeof line);
        int j = sb_gate_judge(&c, a, "x", NULL, judged, sizeof judged);
        int status;

        TAP_IS_INT(out, want[k].outcome, "%s: sb_gate_tally_add's outcome",
                   kind_name[k]);
        TAP_IS_INT(sb_gate_tally_outcome(&t), want[k].outcome,
                   "%s: the tally's outcome", kind_name[k]);
        TAP_IS_INT(j, want[k].judge, "%s: sb_gate_judge says %s",
                   kind_name[k], want[k].judge ? "FAIL" : "PASS");
        TAP_IS_STR(line, judged, "%s: the tally's line is sb_gate_judge's",
                   kind_name[k]);
        tap_ok(t.judged == 1 &&
                   t.passed + t.warned + t.slower + t.lost + t.undecided == 1,
               "%s: counted once (passed %zu warned %zu slower %zu lost %zu "
               "undecided %zu)",
               kind_name[k], t.passed, t.warned, t.slower, t.lost,
               t.undecided);
        said[0] = '\0';
        status = cli_gate_status(&t, &words, 0);
        TAP_IS_INT(status, want[k].status, "%s: exit status %d",
                   kind_name[k], want[k].status);
    }
}

/* Mixed gates: a failure outweighs an undecided cell, which outweighs a
 * pass; and what each says. */
static void test_mixed(const sb_analysis_options *a)
{
    sb_gate_tally t;
    int st;

    st = tally_of((const int[]){FASTER, EQUIVALENT, SLOWER_WITHIN,
                                RULED_OUT},
                  4, a, &t);
    tap_ok(st == 0 && said[0] == '\0',
           "four passing kinds: exit 0, nothing said (%d: %s)", st, flat());
    st = tally_of((const int[]){FASTER, UNDECIDED, EQUIVALENT}, 3, a, &t);
    TAP_IS_INT(st, 3, "a pass and an undecided cell: exit 3 (undecided)");
    tap_ok(strstr(said, "ab: 1 of 3 cells undecided: a slowdown beyond the "
                        "threshold is not ruled out against old (more "
                        "--max-time)") != NULL,
           "  saying so, with the advice: %s", flat());
    st = tally_of((const int[]){UNDECIDED, SLOWER_BEYOND, UNDECIDED}, 3, a,
                  &t);
    TAP_IS_INT(st, 1, "an undecided cell and a slower one: exit 1");
    tap_ok(strstr(said, "ab: new slower than old beyond the threshold, with "
                        "significance, in 1 of 3 cells") != NULL &&
               strstr(said, "2 of 3 cells undecided") != NULL,
           "  naming both causes: %s", flat());
    st = tally_of((const int[]){EQUIVALENT, ERROR_NAN}, 2, a, &t);
    TAP_IS_INT(st, 1, "a pass and a cell not comparable: exit 1");
    tap_ok(strstr(said, "ab: new cannot be compared with old in 1 of 2 "
                        "cells") != NULL,
           "  saying so: %s", flat());
    st = tally_of(NULL, 0, a, &t);
    TAP_IS_INT(st, 1, "nothing judged: exit 1, never a pass");
    tap_ok(strstr(said, "ab: no cell of new could be compared with old") !=
               NULL,
           "  saying so: %s", flat());
    tally_of((const int[]){UNDECIDED}, 1, a, &t);
    said[0] = '\0';
    TAP_IS_INT(cli_gate_status(&t, &words, 2), 2,
               "an earlier status (2) is kept over the gate's");
    TAP_IS_STR(said, "", "  and the gate adds no summary to it");
}

/* The other policies: warn passes an undecided cell with a WARN line
 * (exit 0), pass passes it; neither touches a slowdown. */
static void test_policies(void)
{
    sb_analysis_options a;
    sb_gate_tally t;
    sb_comparison c = kind(UNDECIDED);
    char line[512];
    int st;

    sb_analysis_options_init(&a);
    a.threshold = 0.05;
    a.inconclusive = SB_INCONCLUSIVE_WARN;
    t = (sb_gate_tally){.size = sizeof t};
    TAP_IS_INT(sb_gate_tally_add(&t, &c, &a, "x", NULL, line, sizeof line),
               SB_GATE_WARN, "warn: an undecided cell warns");
    tap_ok(strncmp(line, "WARN x: inconclusive", 20) == 0, "  %s", line);
    st = tally_of((const int[]){FASTER, UNDECIDED}, 2, &a, &t);
    tap_ok(sb_gate_tally_outcome(&t) == SB_GATE_WARN && st == 0 &&
               t.warned == 1,
           "warn: a pass and an undecided cell: WARN, exit 0 (%d)", st);
    st = tally_of((const int[]){UNDECIDED, SLOWER_BEYOND}, 2, &a, &t);
    TAP_IS_INT(st, 1, "warn: a slowdown still fails");
    a.inconclusive = SB_INCONCLUSIVE_PASS;
    st = tally_of((const int[]){UNDECIDED}, 1, &a, &t);
    tap_ok(sb_gate_tally_outcome(&t) == SB_GATE_PASS && st == 0 &&
               t.passed == 1,
           "pass: an undecided cell passes (%d)", st);
    /* One tally over comparisons judged under two policies: the warned
     * cell does not hide the undecided one. */
    t = (sb_gate_tally){.size = sizeof t};
    a.inconclusive = SB_INCONCLUSIVE_WARN;
    sb_gate_tally_add(&t, &c, &a, NULL, NULL, NULL, 0);
    a.inconclusive = SB_INCONCLUSIVE_FAIL;
    sb_gate_tally_add(&t, &c, &a, NULL, NULL, NULL, 0);
    TAP_IS_INT(sb_gate_tally_outcome(&t), SB_GATE_UNDECIDED,
               "warned and undecided: UNDECIDED");
}

/* A tally the library cannot read is never a pass, and is not written. */
static void test_bad_tally(void)
{
    sb_comparison c = kind(EQUIVALENT);
    sb_gate_tally t = {.size = sizeof t + 8}, copy;
    char line[512];

    copy = t;
    TAP_IS_INT(sb_gate_tally_add(&t, &c, NULL, "a vs b", NULL, line,
                                 sizeof line),
               SB_GATE_FAIL, "a tally of an unknown size: FAIL");
    tap_ok(strstr(line, "FAIL a vs b: sb_gate_tally.size ") == line,
           "  naming it: %s", line);
    tap_ok(memcmp(&t, &copy, sizeof t) == 0, "  and it is not written");
    TAP_IS_INT(sb_gate_tally_outcome(&t), SB_GATE_FAIL,
               "  its outcome: FAIL");
    t.size = 0;
    TAP_IS_INT(sb_gate_tally_outcome(&t), SB_GATE_FAIL,
               "a tally of size 0: FAIL");
    TAP_IS_INT(sb_gate_tally_add(NULL, &c, NULL, "a vs b", NULL, line,
                                 sizeof line),
               SB_GATE_FAIL, "a NULL tally: FAIL");
    tap_ok(strstr(line, "tally is NULL") != NULL, "  saying so: %s", line);
    TAP_IS_INT(sb_gate_tally_outcome(NULL), SB_GATE_FAIL,
               "sb_gate_tally_outcome(NULL): FAIL");
    /* Not zeroed: counts that do not add up to what was judged. */
    t = (sb_gate_tally){.size = sizeof t, .judged = 3, .passed = 1};
    TAP_IS_INT(sb_gate_tally_outcome(&t), SB_GATE_FAIL,
               "counts that do not add up: FAIL");
    /* A comparison of an unknown size is counted lost. */
    t = (sb_gate_tally){.size = sizeof t};
    c.size = 8;
    TAP_IS_INT(sb_gate_tally_add(&t, &c, NULL, NULL, NULL, NULL, 0),
               SB_GATE_FAIL, "a comparison of an unknown size: FAIL");
    tap_ok(t.lost == 1 && t.judged == 1, "  counted lost");
}

/* The loop over a run's cells: samples made here, so the comparisons
 * are the same on any machine.  "old" at about 1000 ticks, "new" at
 * twice that, "same" equal to old: ab's gate judges new alone; a gate
 * of every compared cell (--against's) judges both. */
static void test_cells(void)
{
    static double old[200], slow[200], same[200];
    const char *const names[] = {"old", "new", "same"};
    const double *const values[] = {old, slow, same};
    const size_t n[] = {200, 200, 200};
    sb_analysis_options a;
    sb_gate_tally t = {.size = sizeof t};
    sb_error err = {0};
    sb_run *run = NULL;
    int st;

    for (int i = 0; i < 200; i++) {
        old[i] = same[i] = 1000 * (1 + 0.001 * (i % 7));
        slow[i] = 2 * old[i];
    }
    sb_analysis_options_init(&a);
    a.threshold = 0.05;
    if (!tap_ok(sb_run_from_samples_new(names, values, n, 3, &a, 1, &run,
                                        &err) == SB_OK &&
                    sb_run_baseline_by(run, "old", 0, NULL, &err) == SB_OK,
                "a run of three cells, compared with old (%s)", err.text)) {
        sb_run_free(run);
        return;
    }
    said[0] = '\0';
    {
        struct cli_gate g = words;
        g.kernel = "new";
        cli_gate_cells(run, &g, 1, &t);
        st = cli_gate_status(&t, &g, 0);
    }
    tap_ok(t.judged == 1 && t.slower == 1 && st == 1,
           "ab's gate: new alone judged, slower, exit 1 (judged %zu, "
           "exit %d)",
           t.judged, st);
    tap_ok(strstr(said, "FAIL new vs old, 0 B (0/0): slower, beyond the "
                        "threshold; ") != NULL,
           "  its line: %s", flat());
    t = (sb_gate_tally){.size = sizeof t};
    said[0] = '\0';
    {
        struct cli_gate g = {.from = "saved", .subject = "this run",
                             .versus = "baseline 'x'", .advice = "more"};
        cli_gate_cells(run, &g, 0, &t);
        st = cli_gate_status(&t, &g, 0);
    }
    tap_ok(t.judged == 2 && t.slower == 1 && t.passed == 1 && st == 1,
           "every compared cell: new and same, old (its own baseline) not "
           "(judged %zu, passed %zu)",
           t.judged, t.passed);
    tap_ok(strstr(said, "PASS same 0 (0/0): ") != NULL &&
               strstr(said, "this run slower than baseline 'x'") != NULL,
           "  the passing line without quiet, the kernel named: %s", flat());
    sb_run_free(run);
}

int main(void)
{
    sb_analysis_options a;

    sb_analysis_options_init(&a);
    a.threshold = 0.05;
    TAP_IS_INT(cli_gate_exit(SB_GATE_PASS), 0, "exit: PASS 0");
    TAP_IS_INT(cli_gate_exit(SB_GATE_WARN), 0, "exit: WARN 0");
    TAP_IS_INT(cli_gate_exit(SB_GATE_FAIL), 1, "exit: FAIL 1");
    TAP_IS_INT(cli_gate_exit(SB_GATE_UNDECIDED), 3, "exit: UNDECIDED 3");
    TAP_IS_INT(cli_gate_exit(-1), 1, "exit: anything else 1");
    test_each_alone(&a);
    test_mixed(&a);
    test_policies();
    test_bad_tally();
    test_cells();
    return tap_done();
}
