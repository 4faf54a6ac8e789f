/*
 * progress.c: the text, the estimate and the pace of the progress line
 * (progress.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "progress.h"

void progress_start(struct progress *p, double now)
{
    *p = (struct progress){.started = now,
                           .inv_started = now,
                           .inv_deadline = -1,
                           .widest = NAN,
                           .inv_widest = NAN,
                           .last_drawn = -1};
}

void progress_round(struct progress *p, const sb_progress *s, double now)
{
    p->invocation = s->invocation;
    p->rounds = s->round;
    p->inv_elapsed = s->elapsed;
    p->inv_deadline = now + s->time_left;
    p->done = s->cells_done;
    p->checked_at = s->checked_at;
    p->widest = s->widest;
}

void progress_between(struct progress *p, const sb_progress *s, double now)
{
    p->finished++;
    if (now > p->inv_started)
        p->finished_time += now - p->inv_started;
    p->inv_checked = s->checked_at;
    p->inv_widest = s->widest;
    /* The next invocation starts now, with nothing measured yet. */
    p->invocation = s->invocation + 1;
    p->inv_started = now;
    p->rounds = 0;
    p->inv_elapsed = 0;
    p->inv_deadline = -1;
    p->done = 0;
    p->checked_at = 0;
    p->widest = NAN;
}

/* The rounds (or invocations) at which a width w, measured at `at`,
 * meets the target when it shrinks as 1 / sqrt of their number. */
static double needed(size_t at, double w, double target)
{
    double r = w / target;
    return (double)at * r * r;
}

double progress_eta(const struct progress *p, double now,
                    enum progress_eta_kind *kind)
{
    double left = p->max_time - (now - p->started), need, cur, each,
           rest = 0;
    size_t n = p->invocations ? p->invocations : 1;
    int target = p->precision > 0;

    if (!(left > 0))
        left = 0;
    *kind = PROGRESS_ETA_CAP_ONLY;
    if (target && (!p->checked_at || !isfinite(p->widest))) {
        /* No width to go by yet: as long as the finished invocations
         * took on average, if any did and this one has not outlasted
         * them. */
        if (!p->finished)
            return left;
        cur = p->finished_time / (double)p->finished -
              (now - p->inv_started);
        if (cur < 0)
            return left;
    } else {
        if (p->rounds == 0 || !(p->inv_elapsed > 0))
            return left; /* no rate of rounds yet */
        need = target ? needed(p->checked_at, p->widest, p->precision)
                      : (double)p->max_samples; /* nothing stops it */
        if (need < (double)p->min_samples)
            need = (double)p->min_samples;
        if (p->max_samples && need > (double)p->max_samples)
            need = (double)p->max_samples;
        cur = (need - (double)p->rounds) * p->inv_elapsed /
              (double)p->rounds;
    }
    if (cur < 0)
        cur = 0;
    if (p->inv_deadline >= 0 && cur > p->inv_deadline - now)
        cur = p->inv_deadline > now ? p->inv_deadline - now : 0;
    /* Each invocation to come as long as the finished ones on average,
     * their setup included; before any finished, as long as this one. */
    each = p->finished ? p->finished_time / (double)p->finished
                       : now - p->inv_started + cur;
    if (p->invocation + 1 < n) {
        rest = (double)(n - p->invocation - 1) * each;
    } else if (p->invocation >= n && target) {
        /* Past the requested ones, the runner goes on while its interval
         * over the invocations misses the target. */
        double want;
        if (!p->inv_checked || !isfinite(p->inv_widest))
            return left;
        want = ceil(needed(p->inv_checked, p->inv_widest, p->precision));
        if (p->max_invocations && want > (double)p->max_invocations)
            want = (double)p->max_invocations;
        if (want > (double)(p->invocation + 1))
            rest = (want - (double)(p->invocation + 1)) * each;
    }
    if (!(cur + rest < left)) {
        *kind = PROGRESS_ETA_CAPPED;
        return left;
    }
    *kind = PROGRESS_ETA_ESTIMATE;
    return cur + rest;
}

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
    enum progress_eta_kind kind;
    double elapsed = now - p->started, eta = progress_eta(p, now, &kind);
    size_t n = p->invocations ? p->invocations : 1;
    char cells[64], left[64];

    if (elapsed < 0)
        elapsed = 0;
    if (p->precision > 0)
        snprintf(cells, sizeof cells, "%zu of %zu cell%s done", p->done,
                 p->cells, p->cells == 1 ? "" : "s");
    else
        snprintf(cells, sizeof cells, "%zu cell%s (no precision target)",
                 p->cells, p->cells == 1 ? "" : "s");
    snprintf(left, sizeof left,
             kind == PROGRESS_ETA_CAP_ONLY ? "ETA at most %.1f s (time cap)"
             : kind == PROGRESS_ETA_CAPPED ? "ETA ~%.1f s (time cap)"
                                           : "ETA ~%.1f s",
             eta);
    /* "i of n+" once invocations beyond the requested ones run (the
     * precision target not met while time remains). */
    return snprintf(buf, len, "%s, invocation %zu of %zu%s, %.1f s, %s",
                    cells, p->invocation + 1, n,
                    p->invocation + 1 > n ? "+" : "", elapsed, left);
}
