/*
 * progress.c: the text and the pace of the progress line (progress.h).
 */
#include "config.h"

#include <stdio.h>

#include "progress.h"

int progress_due(struct progress *p, double now)
{
    if (p->last_drawn >= 0 && now >= p->last_drawn &&
        now - p->last_drawn < PROGRESS_INTERVAL)
        return 0;
    p->last_drawn = now;
    return 1;
}

int progress_format(const struct progress *p, double now, char *buf,
                    size_t len)
{
    double elapsed = now - p->started, left = p->max_time - elapsed;
    size_t n = p->invocations ? p->invocations : 1;

    if (elapsed < 0)
        elapsed = 0;
    if (left < 0)
        left = 0;
    /* "i of n+" once invocations beyond the requested ones run (the
     * precision target not met while time remains). */
    return snprintf(buf, len,
                    "%zu cell%s, invocation %zu of %zu%s, round %zu, "
                    "%.1f s, at most %.1f s left",
                    p->cells, p->cells == 1 ? "" : "s", p->invocation + 1,
                    n, p->invocation + 1 > n ? "+" : "", p->rounds, elapsed,
                    left);
}
