/*
 * pending.c: the queue a setup hook leaves for the teardown that gets
 * only the state (pending.h): one list per user, per measuring thread.
 * Its own file, below both users, so that neither plan.c nor
 * kernel_load.c calls the other for it.
 */
#include "config.h"

#include <stdlib.h>

#include "pending.h"
#include "sb_internal.h"

int sb__pending_push(sb__pending **head, void *state, const void *owner,
                     void (*undo)(void *state), sb_error *err)
{
    sb__pending *p = malloc(sizeof *p), **tail;

    if (!p) {
        if (undo)
            undo(state);
        return sb__error(err, SB_ENOMEM, "out of memory");
    }
    *p = (sb__pending){.state = state, .owner = owner};
    for (tail = head; *tail; tail = &(*tail)->next)
        ;
    *tail = p;
    return SB_OK;
}

const void *sb__pending_pop(sb__pending **head, void *state)
{
    for (sb__pending **at = head; *at; at = &(*at)->next) {
        sb__pending *p = *at;
        const void *owner = p->owner;
        if (p->state != state)
            continue;
        *at = p->next;
        free(p);
        return owner;
    }
    return NULL;
}
