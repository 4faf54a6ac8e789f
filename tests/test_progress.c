/*
 * test_progress.c: the progress line's text, estimate and pace
 * (src/cli/progress.c), without a terminal, on simulated runs.  The pace
 * is driven by a clock the test sets: at most one draw per
 * PROGRESS_INTERVAL whatever the rate of calls, across invocations too.
 * The expected estimates are worked by hand in the comments beside them
 * (rounds still needed times seconds per round, plus the invocations to
 * come), never read from the code under test.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "progress.h"
#include "tap.h"

static void pace(void)
{
    struct progress p;
    size_t drawn = 0;

    progress_start(&p, 0);
    tap_ok(progress_due(&p, 5.0), "the first call draws");
    tap_ok(!progress_due(&p, 5.05), "50 ms later: not yet");
    tap_ok(progress_due(&p, 5.15), "150 ms later: again");
    /* 1300 calls a second (the rate) for 3 s: at most 10 a
     * second, and at least one in each tenth of a second. */
    p.last_drawn = -1;
    for (int i = 0; i < 3900; i++)
        drawn += (size_t)progress_due(&p, 10.0 + i / 1300.0);
    tap_ok(drawn >= 29 && drawn <= 31,
           "1300 calls a second for 3 s draw 30 times (%zu)", drawn);
    p.last_drawn = 20.0;
    tap_ok(progress_due(&p, 19.0), "a clock that went back draws");
}

/* The pace holds across invocations: six of them, each 0.5 s of rounds
 * at 1300 a second, with the call between them; the state is one (shared
 * between the processes in the command).  3 s: at most 31 draws. */
static void pace_across(void)
{
    struct progress p;
    size_t drawn = 0, round = 0;
    double now = 100;

    progress_start(&p, now);
    p.invocations = 6;
    for (size_t inv = 0; inv < 6; inv++) {
        for (int i = 0; i < 650; i++) {
            sb_progress s = {.size = sizeof s, .invocation = inv,
                             .invocations = 6, .round = ++round,
                             .elapsed = i / 1300.0, .time_left = 1,
                             .cells = 2, .widest = NAN};
            now += 1 / 1300.0;
            progress_round(&p, &s, now);
            drawn += (size_t)progress_due(&p, now);
        }
        sb_progress b = {.size = sizeof b, .between = 1, .invocation = inv,
                         .invocations = 6, .cells = 2, .widest = NAN};
        progress_between(&p, &b, now);
        round = 0;
    }
    tap_ok(drawn >= 29 && drawn <= 31,
           "6 invocations of 0.5 s at 1300 calls a second draw 30 times, "
           "not 10 a second each (%zu)", drawn);
    tap_ok(p.finished == 6 && p.invocation == 6 &&
               fabs(p.finished_time - 3.0) < 1e-6,
           "the calls between count 6 invocations in 3 s (%zu, %g)",
           p.finished, p.finished_time);
}

/* A run 10 s in, invocation 1 of 1, 150 rounds in 1.5 s (0.01 s a round),
 * target 1%, the stop rule's last check at round 100 saw a widest cell of
 * 2%: it needs 100 * (2 / 1)^2 = 400 rounds, 250 more, 2.5 s. */
static struct progress simulated(void)
{
    struct progress p;
    progress_start(&p, 0);
    p.max_time = 30;
    p.precision = 0.01;
    p.min_samples = 100;
    p.max_samples = 10000;
    p.cells = 8;
    p.invocations = 1;
    p.max_invocations = 100;
    p.inv_started = 8.0;
    p.rounds = 150;
    p.inv_elapsed = 1.5;
    p.inv_deadline = 20;
    p.done = 5;
    p.checked_at = 100;
    p.widest = 0.02;
    return p;
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* p in invocation i + 1 of n (0: none asked), finished of them done in
 * finished_time seconds. */
static void at_invocation(struct progress *p, size_t i, size_t n,
                          size_t finished, double finished_time)
{
    p->invocation = i;
    p->invocations = n;
    p->finished = finished;
    p->finished_time = finished_time;
}

/* p with rounds rounds done in elapsed seconds of its invocation, and
 * the stop rule's last check at round checked_at (0: none yet). */
static void at_round(struct progress *p, size_t checked_at, size_t rounds,
                     double elapsed)
{
    p->checked_at = checked_at;
    p->rounds = rounds;
    p->inv_elapsed = elapsed;
}

/* One estimate checked: p's at the clock now is of kind kind and within
 * 1e-9 of want (worked by hand beside each call); what describes it, and
 * the estimate found follows it in parentheses. */
static void eta_is(const struct progress *p, double now,
                   enum progress_eta_kind kind, double want,
                   const char *what)
{
    enum progress_eta_kind k;
    double e = progress_eta(p, now, &k);
    tap_ok(k == kind && NEAR(e, want), "%s (%g)", what, e);
}

static void eta(void)
{
    struct progress p = simulated();
    enum progress_eta_kind k;
    double e;

    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 2.5,
           "2% at round 100, target 1%: 400 rounds, 250 more at 10 ms: "
           "2.5 s");

    p.widest = 0.005;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 0,
           "already within the target: the next check stops it, 0 s");
    at_round(&p, 0, 50, 0.5);
    eta_is(&p, 10, PROGRESS_ETA_CAP_ONLY, 20,
           "no check yet, no invocation finished: the time cap, 30 - 10 = "
           "20 s");

    p = simulated();
    p.widest = 0.011;
    p.checked_at = 100;
    /* 100 * 1.21 = 121 rounds < 150 done: no more. */
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 0,
           "1.1% at round 100 needs 121 rounds, 150 are done: 0 s");
    p.widest = 0.005;
    at_round(&p, 100, 60, 0.6);
    /* Never fewer than min_samples: 40 more at 10 ms. */
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 0.4,
           "never fewer rounds than min_samples: 40 more, 0.4 s");

    p = simulated();
    p.widest = 0.2; /* 100 * 400 = 40000 rounds: the cap of 10000 */
    p.inv_deadline = 1000;
    p.max_time = 1000;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, (10000 - 150) * 0.01,
           "never more rounds than max_samples: 9850 more, 98.5 s");

    p = simulated();
    p.inv_deadline = 11;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 1,
           "the invocation's deadline 1 s away cuts 2.5 s to 1 s");

    p = simulated();
    p.max_time = 11;
    eta_is(&p, 10, PROGRESS_ETA_CAPPED, 1,
           "the run's time cap 1 s away: 1 s, said as the cap");
    e = progress_eta(&p, 12, &k);
    tap_ok(k == PROGRESS_ETA_CAPPED && e == 0,
           "past the cap: 0, never negative (%g)", e);

    p = simulated();
    p.widest = INFINITY;
    eta_is(&p, 10, PROGRESS_ETA_CAP_ONLY, 20,
           "an interval short of its level gives no estimate: the cap");
    p.rounds = 0;
    p.widest = 0.02;
    eta_is(&p, 10, PROGRESS_ETA_CAP_ONLY, 20, "no round yet: the cap");

    /* No target: the invocation goes to max_samples (or its deadline). */
    p = simulated();
    p.precision = 0;
    p.checked_at = 0;
    p.widest = NAN;
    p.max_samples = 400;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 2.5,
           "no target: to max_samples 400, 250 more rounds, 2.5 s");
}

static void eta_invocations(void)
{
    struct progress p = simulated();

    /* Invocation 1 of 6, none finished: each to come as long as this one
     * will be, 10 - 8 + 2.5 = 4.5 s; 2.5 + 5 * 4.5 = 25 s (of 50 left). */
    p.max_time = 60;
    p.invocations = 6;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 25,
           "invocation 1 of 6: 2.5 s, then 5 more of 4.5 s: 25 s");

    /* Invocation 3 of 6, two finished in 6 s: 3 s each; 2.5 + 3 * 3. */
    at_invocation(&p, 2, 6, 2, 6);
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 11.5,
           "invocation 3 of 6, 3 s each so far: 2.5 + 3 * 3 = 11.5 s");

    /* No check yet in this one: as long as the finished ones, 3 s, of
     * which 2 have passed (it began at 8), then 3 more of 3 s. */
    p.checked_at = 0;
    p.widest = NAN;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 10,
           "no check yet: 3 - 2 = 1 s, then 3 * 3: 10 s");
    eta_is(&p, 12, PROGRESS_ETA_CAP_ONLY, 48,
           "outlasting the finished ones without a check: the cap");

    /* Past the requested 6: invocation 7, the runner's check over 6
     * invocations saw 1.5 times the target: 6 * 2.25 = 13.5, so 14
     * invocations, 7 more after this one, 3 s each (6 finished in 18 s):
     * 2.5 + 21 = 23.5 s; with max_time 60 not capped. */
    p = simulated();
    p.max_time = 60;
    p.inv_deadline = 100;
    at_invocation(&p, 6, 6, 6, 18);
    p.inv_checked = 6;
    p.inv_widest = 0.015;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 23.5,
           "past the requested: 14 invocations needed, 7 more of 3 s after "
           "this one's 2.5: 23.5 s");
    p.max_invocations = 10;
    eta_is(&p, 10, PROGRESS_ETA_ESTIMATE, 2.5 + 3 * 3,
           "at most max_invocations 10: 3 more, 11.5 s");
    p.inv_widest = INFINITY;
    eta_is(&p, 10, PROGRESS_ETA_CAP_ONLY, 50,
           "no finite width over the invocations: the cap");
}

static void updates(void)
{
    struct progress p;
    sb_progress s = {.size = sizeof s, .invocation = 2, .invocations = 6,
                     .round = 140, .elapsed = 1.4, .time_left = 3,
                     .cells = 8, .cells_done = 5, .checked_at = 120,
                     .widest = 0.02};
    sb_progress b = {.size = sizeof b, .between = 1, .invocation = 2,
                     .invocations = 6, .round = 900, .elapsed = 9,
                     .time_left = 12, .cells = 8, .cells_done = 3,
                     .checked_at = 3, .widest = 0.04};

    progress_start(&p, 50);
    p.inv_started = 55;
    progress_round(&p, &s, 57);
    tap_ok(p.invocation == 2 && p.rounds == 140 && p.inv_elapsed == 1.4 &&
               p.inv_deadline == 60 && p.done == 5 && p.checked_at == 120 &&
               p.widest == 0.02,
           "a round's call: invocation, rounds, their time, the deadline "
           "3 s on, the check");
    p.last_drawn = 56.9;
    progress_between(&p, &b, 58);
    tap_ok(p.finished == 1 && NEAR(p.finished_time, 3) &&
               p.invocation == 3 && p.inv_started == 58 && p.rounds == 0 &&
               p.checked_at == 0 && p.done == 0 && isnan(p.widest) &&
               p.inv_deadline < 0,
           "the call between: one finished in 58 - 55 = 3 s, the next one "
           "starts with nothing measured");
    tap_ok(p.inv_checked == 3 && p.inv_widest == 0.04 &&
               p.last_drawn == 56.9,
           "it keeps the runner's check, and the pace's last draw");
}

/* p's line at the clock now is want; what describes it. */
static void line_is(const struct progress *p, double now, const char *want,
                    const char *what)
{
    char buf[200];

    progress_format(p, now, buf, sizeof buf);
    TAP_IS_STR(buf, want, "%s", what);
}

static void text(void)
{
    struct progress p = simulated();
    char buf[200];

    at_invocation(&p, 2, 6, 2, 6);
    line_is(&p, 10,
            "5 of 8 cells done, invocation 3 of 6, 10.0 s, ETA ~11.5 s",
            "the line: cells done, invocation i of n, elapsed, ETA");
    p.max_time = 15;
    line_is(&p, 10,
            "5 of 8 cells done, invocation 3 of 6, 10.0 s, "
            "ETA ~5.0 s (time cap)",
            "an estimate past the cap says so");
    p.checked_at = 0;
    p.finished = 0;
    line_is(&p, 10,
            "5 of 8 cells done, invocation 3 of 6, 10.0 s, "
            "ETA at most 5.0 s (time cap)",
            "no estimate: the time cap, said as at most");
    p = simulated();
    at_invocation(&p, 6, 6, 0, 0);
    p.precision = 0;
    p.cells = 1;
    p.max_time = 10;
    line_is(&p, 31.0,
            "1 cell (no precision target), invocation 7 of 6+, 31.0 s, "
            "ETA ~0.0 s (time cap)",
            "no target, past the requested invocations: n+, and no "
            "negative time");
    at_invocation(&p, 0, 0, 0, 0);
    progress_format(&p, -1.0, buf, sizeof buf);
    tap_ok(strstr(buf, "invocation 1 of 1,") && strstr(buf, " 0.0 s,"),
           "no invocation count reads 1 of 1; a clock before the start "
           "reads 0 s: %s", buf);
    tap_ok(progress_format(&p, 99.0, buf, 10) > 9 && strlen(buf) == 9,
           "a short buffer is cut and terminated");
}

int main(void)
{
    pace();
    pace_across();
    eta();
    eta_invocations();
    updates();
    text();
    return tap_done();
}
