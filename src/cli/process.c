/*
 * process.c: what the command sets up in its own process before it
 * measures: the stop signals (SIGINT, SIGTERM, SIGHUP end a run with its
 * partial results; a second one ends the process at once) and a stack
 * large enough for a measurement.
 */
#include "config.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "cli.h"

static volatile sig_atomic_t got_signal;

/* The first signal any process of the run got.  The forked invocations
 * inherit on_signal, and their stop request ends the run in every process,
 * so a SIGTERM sent to a child alone must reach the parent's exit status:
 * cli_share_signals() maps this to shared memory. */
static volatile sig_atomic_t local_signal;
static volatile sig_atomic_t *run_signal = &local_signal;

static void on_signal(int sig)
{
    if (got_signal) {
        /* A second signal: stop at once. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    got_signal = sig;
    if (!*run_signal)
        *run_signal = sig;
    sb_run_request_stop();
}

void cli_catch_signals(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* A dropped ssh session or a closed terminal: the run stops as for
     * SIGTERM and keeps what it measured. */
    signal(SIGHUP, on_signal);
}

/* The exit status of a stop by signal sig: 128 + its number. */
int cli_signal_status(int sig)
{
    return sig == SIGTERM ? 143 : sig == SIGHUP ? 129 : 130;
}

void cli_share_signals(void)
{
    void *m = mmap(NULL, sizeof *run_signal, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED)
        run_signal = m;
}

int cli_own_signal(void)
{
    return got_signal;
}

int cli_stop_signal(void)
{
    return got_signal ? got_signal : *run_signal;
}

/* The stack a measurement needs: its frames (the environment audit, the
 * runner's records) and PAPI's start take about 100 KiB; 64 to 90 KiB
 * (ulimit -s) ended in SIGSEGV.  1 MiB is a wide margin. */
#define STACK_NEED (1024 * 1024)

void cli_ensure_stack(int refuse)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= STACK_NEED)
        return;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= STACK_NEED) {
        rl.rlim_cur = STACK_NEED;
        if (setrlimit(RLIMIT_STACK, &rl) == 0)
            return;
    }
    if (refuse)
        die_usage("stack limit %llu KiB (ulimit -s), at most %llu KiB: a "
                  "measurement needs %d KiB (raise it with ulimit -s %d)",
                  (unsigned long long)rl.rlim_cur / 1024,
                  (unsigned long long)rl.rlim_max / 1024, STACK_NEED / 1024,
                  STACK_NEED / 1024);
}
