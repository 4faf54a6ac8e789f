/*
 * stop.c: the stop of a run in progress (measure.h's sb__stop): the
 * process-wide request, the run's own flag and the caller's, for the
 * invocations, the runner and whole commands alike.
 */
#include "config.h"

#include <signal.h>
#include <sys/mman.h>

#include "measure.h"

/* Stopping.  Three things stop a run (sb__stopped):
 *
 *  - the process-wide request, sb_run_request_stop(), for every run in
 *    progress.  It is a count of requests, not a flag: each run notes the
 *    count when it starts and stops when the count moves, so a run that
 *    starts never clears a request another run is still honouring (the
 *    flag this replaces was reset by every run at its start, and one
 *    thread's run could wipe out another's Ctrl-C).  The count is the
 *    process's own: a forked invocation has its copy, and learns of a
 *    request in the parent through the run's flag (below), which the
 *    parent sets when it sees one; a request in the child (the terminal
 *    signals the whole group) ends the invocation interrupted, which
 *    stops the run.  A page shared with every later child would also
 *    reach the processes the caller forks for its own purposes.
 *  - the run's own flag, set when its progress callback returns non-zero;
 *    in a shared page of its own when the run forks invocations.  It
 *    stops that run only.
 *  - the caller's sb_measure_options.stop, read wherever the other two are. */
static volatile sig_atomic_t requests;

void sb_run_request_stop(void)
{
    /* Async-signal-safe: one read and one store.  Two racing requests may
     * count as one; the count still moves, which is all a run looks at.
     * Masked so that it wraps without overflowing a signed int. */
    requests = (requests + 1) & 0x3fffffff;
}

void sb__stop_begin(sb__stop *s, const sb_measure_options *opt, int shared)
{
    s->own = 0;
    s->run = &s->own;
    s->user = opt->stop;
    s->requests = requests;
    if (shared) {
        /* Without the page, a stop asked for in the parent (a signal,
         * sb_measure_options.stop) does not reach the child measuring: it ends
         * at its budget, and no further invocation starts. */
        void *p = mmap(NULL, sizeof *s->run, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            s->run = p;
            *s->run = 0;
        }
    }
}

void sb__stop_end(sb__stop *s)
{
    if (s->run != &s->own)
        munmap((void *)s->run, sizeof *s->run);
    s->run = &s->own;
}

int sb__stopped(const sb__stop *s)
{
    return *s->run || (s->user && *s->user) || requests != s->requests;
}

void sb__stop_set(const sb__stop *s)
{
    *s->run = 1;
}
