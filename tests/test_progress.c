/*
 * test_progress.c: the progress line's text and pace (src/cli/progress.c),
 * without a terminal.  The pace is driven by a clock the test sets: at most
 * one draw per PROGRESS_INTERVAL whatever the rate of calls.
 */
#include "config.h"

#include <string.h>

#include "progress.h"
#include "tap.h"

static void pace(void)
{
    struct progress p = {.last_drawn = -1};
    size_t drawn = 0;

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

static void text(void)
{
    struct progress p = {.started = 100.0,
                         .max_time = 30,
                         .cells = 4,
                         .invocation = 2,
                         .invocations = 6,
                         .rounds = 412,
                         .last_drawn = -1};
    char buf[200];

    progress_format(&p, 112.34, buf, sizeof buf);
    TAP_IS_STR(buf, "4 cells, invocation 3 of 6, round 412, 12.3 s, at "
                    "most 17.7 s left",
               "the line: cells, invocation i of n, round, elapsed, time "
               "left");
    p.invocation = 6;
    p.cells = 1;
    progress_format(&p, 131.0, buf, sizeof buf);
    TAP_IS_STR(buf, "1 cell, invocation 7 of 6+, round 412, 31.0 s, at "
                    "most 0.0 s left",
               "past the requested invocations: n+, and no negative time");
    p.invocations = 0;
    p.invocation = 0;
    progress_format(&p, 99.0, buf, sizeof buf);
    tap_ok(strstr(buf, "invocation 1 of 1,") && strstr(buf, " 0.0 s,"),
           "no invocation count reads 1 of 1; a clock before the start "
           "reads 0 s: %s", buf);
    tap_ok(progress_format(&p, 99.0, buf, 10) > 9 && strlen(buf) == 9,
           "a short buffer is cut and terminated");
}

int main(void)
{
    pace();
    text();
    return tap_done();
}
