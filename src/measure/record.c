/*
 * record.c: the samples an invocation keeps (measure.c's top comment,
 * step 6): each sample taken counted, then kept or rejected by the
 * policy, a cell that cannot dodge the waits for its CPU keeping them
 * with the wait taken off, the samples rejected for a shared core alone
 * held for a later decision; and the raw cells' arrays freed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "measure_internal.h"

/* *p resized to n doubles: 0, or -1 with *p as it was. */
static int grow_doubles(double **p, size_t n)
{
    double *q = realloc(*p, n * sizeof *q);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

/* Keep one sample: its ticks, flags and counters. */
static int push_sample(sb__raw_cell *r, const struct sample *s)
{
    if (r->nsamples == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        unsigned char *f = realloc(r->flags, cap);
        if (!f)
            return SB_ENOMEM;
        r->flags = f;
        if (grow_doubles(&r->ticks, cap) || grow_doubles(&r->clock, cap) ||
            grow_doubles(&r->probes, cap * SB_PROBE_READINGS) ||
            (r->ncounters &&
             grow_doubles(&r->counters, cap * r->ncounters)))
            return SB_ENOMEM;
        r->cap = cap;
    }
    r->ticks[r->nsamples] = s->ticks;
    r->flags[r->nsamples] = (unsigned char)s->flags;
    r->clock[r->nsamples] = s->clock;
    memcpy(r->probes + r->nsamples * SB_PROBE_READINGS, s->probes,
           sizeof s->probes);
    if (r->ncounters)
        memcpy(r->counters + r->nsamples * r->ncounters, s->ctr,
               r->ncounters * sizeof *s->ctr);
    r->nsamples++;
    return SB_OK;
}

/* Hold a sample rejected for a shared core alone (sb__raw_cell.held), at
 * its place among the invocation's recorded samples. */
static int hold_sample(sb__raw_cell *r, const struct sample *s)
{
    sb__raw_cell *h = r->held;
    size_t at = r->nsamples + (h ? h->nsamples : 0);
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h)
            return SB_ENOMEM;
        h->ncounters = r->ncounters;
        h->counter_names = r->counter_names;
        r->held = h;
    }
    if (h->nsamples == h->cap) {
        size_t *a = realloc(r->held_at, (h->cap ? 2 * h->cap : 256) *
                                            sizeof *a);
        if (!a)
            return SB_ENOMEM;
        r->held_at = a;
    }
    r->held_at[h->nsamples] = at;
    return push_sample(h, s);
}

/* Whether cell w, r can no longer dodge the waits for its CPU: checked
 * when its samples taken in this invocation reach 16, 32, 64, ... (this
 * one counted), and once true for the rest of the invocation.  At least
 * three in four of them waited: a sample that outlasts the scheduler's
 * slice (a 16 MiB mmap_touch call, milliseconds, against 3 ms slices)
 * waits whenever another task shares the CPU, and rejecting them leaves
 * the cell empty (426 of 438 samples of a 16 MiB mmap_touch rejected for
 * a wait at a load of 2.6 on 2 CPUs, all 221 at a load of 7), or keeps
 * only the luckiest few.  A sample of 50 us waits far less often: a cell
 * of them that can still dodge the waits keeps rejecting them, which
 * costs nothing but the sample.  Three in four, not the one in two of
 * the interrupts' rule (choose_irq_exemptions), so that a cell does not
 * cross it by chance when every other sample waits. */
size_t sb__rejected_of(const sb__raw_cell *r)
{
    size_t n = 0;
    for (int q = 0; q < SB_REJECT_NREASONS; q++)
        n += r->rejected[q];
    return n;
}

static void keep_wait_from(struct work *w, const sb__raw_cell *r)
{
    size_t taken = r->nsamples + sb__rejected_of(r) + 1; /* 1: this sample */
    if (!w->keep_wait && taken >= 16 && !(taken & (taken - 1)) &&
        4 * r->disturbed[SB_REJECT_CPU_WAIT] >= 3 * taken)
        w->keep_wait = 1;
}

/* One sample taken for cell r: its CPU time and disturbances counted, then
 * kept or rejected by the policy (design.md, protocol steps 5 and 7).
 * keep: disturbances that are no reason to reject it (the refill's).  A
 * sample that waited for its CPU, in a cell that cannot dodge the waits
 * (keep_wait_from) or with SB_REJECT_CPU_WAIT in keep, is kept with the
 * wait taken off its time, and with the context switch and the timer
 * interrupt that came with the wait; not when it also switched
 * voluntarily (a sleep, whose time is not in run_delay).
 * Returns SB_OK, or SB_ENOMEM when keeping it failed. */
int sb__record_sample(const sb_measure_options *opt, struct work *w,
                      sb__raw_cell *r, const struct sample *v,
                      unsigned keep)
{
    const unsigned wait = 1u << SB_REJECT_CPU_WAIT;
    struct sample u;
    /* CPU time over every sample taken, kept or not: getrusage moves at
     * the timer tick, and the samples that hold a tick are the ones with
     * an interrupt, so counting only kept samples would count none. */
    r->user += v->user;
    r->sys += v->sys;
    r->calls += (double)r->iters;
    for (int q = 0; q < SB_REJECT_NREASONS; q++)
        if (v->flags & (1u << q))
            r->disturbed[q]++;
    if (v->flags & (1u << SB_REJECT_KERNEL_FAILED)) {
        /* Under every policy: its time is not that of the work (an mmap
         * that failed maps and faults nothing). */
        r->rejected[SB_REJECT_KERNEL_FAILED]++;
        return SB_OK;
    }
    if (opt->reject != SB_REJECT_DISTURBED)
        return push_sample(r, v);
    keep_wait_from(w, r);
    u = *v;
    if ((v->flags & wait) && (w->keep_wait || (keep & wait)) &&
        !v->voluntary) {
        keep |= wait | 1u << SB_REJECT_CTXSW | 1u << SB_REJECT_INTERRUPT;
        u.ticks -= u.wait;
    } else
        keep &= ~wait;
    if (w->keep_irq)
        keep |= 1u << SB_REJECT_INTERRUPT;
    if (v->flags & ~keep) {
        /* Counted under the strongest evidence it showed that is not
         * kept: a wait for the CPU comes with a context switch and says
         * more; a wait taken off leaves what else the sample showed. */
        unsigned f = v->flags & ~keep;
        int why = f & (1u << SB_REJECT_CPU_WAIT)    ? SB_REJECT_CPU_WAIT
                  : f & (1u << SB_REJECT_CTXSW)     ? SB_REJECT_CTXSW
                  : f & (1u << SB_REJECT_MIGRATION) ? SB_REJECT_MIGRATION
                  : f & (1u << SB_REJECT_INTERRUPT) ? SB_REJECT_INTERRUPT
                                                    : SB_REJECT_SHARED_CORE;
        r->rejected[why]++;
        /* Rejected for a shared core alone: held, for an analysis that
         * decides again from the probes (record, then decide). */
        if (f == 1u << SB_REJECT_SHARED_CORE)
            return hold_sample(r, &u);
        return SB_OK;
    }
    if (v->flags & wait) {
        r->waited += u.wait_s;
        r->waited_timed += u.timed_s;
    }
    return push_sample(r, &u);
}

/* A raw cell's arrays, its held samples' included. */
static void raw_cell_free(sb__raw_cell *c)
{
    free(c->ticks);
    free(c->flags);
    free(c->clock);
    free(c->counters);
    free(c->probes);
    if (c->held) {
        raw_cell_free(c->held);
        free(c->held);
    }
    free(c->held_at);
}

void sb__invocation_free(sb__invocation *inv)
{
    for (size_t i = 0; inv->cells && i < inv->ncells; i++)
        raw_cell_free(&inv->cells[i]);
    free(inv->cells);
    inv->cells = NULL;
    inv->ncells = 0;
}
