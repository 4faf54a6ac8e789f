/*
 * failed.c: sb_kernel_failed(), the one way a kernel says that a call did
 * not do its work (docs/design.md, "Where a new thing goes"), and the
 * count the measuring loop reads around each sample (failed.h).  Apart
 * from the registry, so that the kernels that report failures and the
 * registry that lists them do not call each other.
 */
#include "config.h"

#include "failed.h"

/* The failed calls sb_kernel_failed() counted in this thread, and the
 * errno of the last.  Per thread because a run measures in one thread
 * (its own, or a forked invocation's only one) and several runs may
 * measure at once in different threads; the measuring loop reads the
 * count around each sample, outside the timed region. */
static _Thread_local size_t sb__failures;
static _Thread_local int sb__failure_errno;

void sb_kernel_failed(int errnum)
{
    sb__failures++;
    sb__failure_errno = errnum;
}

size_t sb__kernel_failures(int *last_errno)
{
    if (last_errno)
        *last_errno = sb__failure_errno;
    return sb__failures;
}
