/*
 * pending.h: pending.c's queue, never installed: what setup hooks hand
 * their teardowns, for named benchmarks (plan.c) and loaded kernels
 * (kernel_load.c) alike.
 */
#ifndef SB_PENDING_H
#define SB_PENDING_H

#include "statbench.h"

/* Which kernel a state came from, for a teardown that gets only the
 * state (named benchmarks, loaded kernels): setup pushes (state, owner)
 * at the tail, and teardown pops the oldest entry with that state (the
 * harness tears cells down in the order it set them up), so that two
 * kernels whose setup gives the same state (NULL, say) each get their
 * own teardown.  Each user keeps its own list, per measuring thread. */
typedef struct sb__pending {
    void *state;
    const void *owner;
    struct sb__pending *next;
} sb__pending;
/* SB_OK, or SB_ENOMEM with err set and nothing queued, after undo(state)
 * (when undo is not NULL): a setup whose state cannot be queued would
 * never be torn down, so it is undone at once. */
int sb__pending_push(sb__pending **head, void *state, const void *owner,
                     void (*undo)(void *state), sb_error *err);
/* The owner of the oldest entry with state, removed; NULL when none. */
const void *sb__pending_pop(sb__pending **head, void *state);

#endif
