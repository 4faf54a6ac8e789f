/*
 * command.c: whole commands timed in interleaved rounds
 * (sb_command_run_new).  Each round runs every command once, in a fresh
 * random order drawn from the seed, so that what the host does meanwhile
 * (a neighbour's job, a frequency change, a cache warming) lands on every
 * command alike, and the runs of one round are compared paired (Abedi
 * and Brecht, ICPE 2017, randomized multiple interleaved trials).
 *
 * Each command is one cell; each round one invocation of it with one
 * sample, its wall time in milliseconds, beside the child's rusage.  The
 * run is built by sb_run_from_sets_new, so that every interval, the
 * paired ratios, Holm and the verdicts are the library's, as for any
 * other run.
 *
 * What runs each command, and running it once (the spawn, and the wait
 * with the deadline and the stop), are command_exec.c's, below this
 * file; the job they share is command_exec.h's.
 */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "command.h"
#include "command_exec.h"
#include "measure.h"
#include "meta.h"
#include "plan.h"
#include "program.h"
#include "run_internal.h"

#define DEFAULT_RUNS 20
#define DEFAULT_SHELL "/bin/sh"
#define STARTUP_NAME "(shell start-up)"

/* The names of the rusage figures (command_exec.h's RU_*), as the run's
 * counters. */
static const char *const ru_names[RU_N] = {
    "rusage::user-ms",        "rusage::system-ms",
    "rusage::voluntary-cs",   "rusage::involuntary-cs",
    "rusage::minor-faults",   "rusage::major-faults",
};

static const sb_command_options defaults = {
    .size = sizeof(sb_command_options),
    .runs = DEFAULT_RUNS,
    .max_time = 30.0,
    .seed = 1,
};
static const size_t known_sizes[] = {sizeof(sb_command_options)};

void sb_command_options_init(sb_command_options *o)
{
    if (o)
        *o = defaults;
}

double sb__command_deadline(double max_time)
{
    return max_time * 1.2 > max_time + 2 ? max_time * 1.2 : max_time + 2;
}

/* ---- the rounds --------------------------------------------------------- */

/* The next value of a splitmix64 generator: the round orders come from
 * the seed alone, the same on every machine and with every GSL. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void sb__command_shuffle(size_t *order, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t k = (size_t)(next_random(s) % i), t = order[i - 1];
        order[i - 1] = order[k];
        order[k] = t;
    }
}

static int halted(const sb__cmd_job *j)
{
    return j->stop_sig || j->past_deadline || j->by_progress;
}

/* One run of cell i: its prepare, untimed, then the run, timed (timed:
 * its figures go to round r; else a warm-up run). */
static int one_run(sb__cmd_job *j, size_t i, int timed, size_t nth, size_t r)
{
    sb__cmd_cell *c = &j->c[i];
    struct rusage ru, pru;
    double wall = 0, pw;
    char what[64];
    int rc;

    memset(&ru, 0, sizeof ru);
    if (c->has_prep) {
        snprintf(what, sizeof what, "prepare before %s run",
                 timed ? "timed" : "warm-up");
        if ((rc = sb__cmd_run_checked(j, c, &c->prep, what, nth, &pw, &pru,
                                      &c->prep_failed)) != SB_OK)
            return rc;
        if (halted(j))
            goto cut;
    }
    if ((rc = sb__cmd_run_checked(j, c, &c->run,
                                  timed ? "timed run" : "warm-up run", nth,
                                  &wall, &ru, &c->failed)) != SB_OK)
        return rc;
    if (halted(j))
        goto cut;
    if (!timed)
        return SB_OK;
    c->wall[r] = wall * 1e3;
    c->ru[r * RU_N + RU_USER] =
        (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_SYS] =
        (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
    c->ru[r * RU_N + RU_NVCSW] = (double)ru.ru_nvcsw;
    c->ru[r * RU_N + RU_NIVCSW] = (double)ru.ru_nivcsw;
    c->ru[r * RU_N + RU_MINFLT] = (double)ru.ru_minflt;
    c->ru[r * RU_N + RU_MAJFLT] = (double)ru.ru_majflt;
    return SB_OK;
cut:
    if (j->past_deadline) {
        j->killed_cell = i;
        j->killed_round = nth;
        j->killed_timed = timed;
    }
    return SB_OK;
}

/* The rounds: warm-up first (each command warmup times, in the order
 * given, round by round), then up to runs rounds, each in a fresh order.
 * Stops after a whole round when the next, as long as the mean round so
 * far, would end past max_time (counted from the start, warm-up
 * included), but never before two rounds; or at a stop, whose round is
 * dropped; or at the hard deadline, where the command under way is
 * killed and its round dropped.  *done: the whole rounds measured;
 * *budget 1 when the budget stopped them, 2 when the deadline did. */
static int rounds(sb__cmd_job *j, size_t *done, int *budget)
{
    size_t *order = malloc(j->n * sizeof *order);
    uint64_t s = j->o.seed;
    double r0;
    int rc = SB_OK;

    *done = 0;
    *budget = 0;
    if (!order)
        return sb__error(j->err, SB_ENOMEM, "out of memory");
    j->t0 = sb__cmd_now();
    j->deadline = j->t0 + sb__command_deadline(j->o.max_time);
    for (size_t w = 0; w < j->o.warmup && !halted(j) && rc == SB_OK; w++)
        for (size_t i = 0; i < j->n && !halted(j) && rc == SB_OK; i++)
            rc = one_run(j, i, 0, w + 1, 0);
    r0 = sb__cmd_now();
    for (size_t r = 0; r < j->o.runs && !halted(j) && rc == SB_OK; r++) {
        double t;
        if (sb__cmd_stop_signal(j))
            break;
        if (j->o.progress &&
            j->o.progress(j->o.progress_arg, r + 1, j->o.runs,
                          sb__cmd_now() - j->t0)) {
            j->by_progress = 1;
            break;
        }
        for (size_t i = 0; i < j->n; i++)
            order[i] = i;
        sb__command_shuffle(order, j->n, &s);
        for (size_t k = 0; k < j->n && !halted(j) && rc == SB_OK; k++)
            rc = one_run(j, order[k], 1, r + 1, r);
        if (halted(j) || rc != SB_OK)
            break;
        *done = r + 1;
        t = sb__cmd_now();
        if (*done >= 2 && *done < j->o.runs &&
            t - j->t0 + (t - r0) / (double)*done > j->o.max_time) {
            *budget = 1;
            break;
        }
    }
    if (j->past_deadline)
        *budget = 2;
    j->t_end = sb__cmd_now();
    free(order);
    return rc;
}

/* ---- the run ------------------------------------------------------------ */

/* What stopped the rounds, for a message: "SIGINT's Interrupt". */
static void stop_text(const sb__cmd_job *j, char *buf, size_t len)
{
    if (j->by_progress)
        snprintf(buf, len, "the progress callback");
    else if (j->o.stop && *j->o.stop == j->stop_sig)
        snprintf(buf, len, "%s", strsignal(j->stop_sig));
    else
        snprintf(buf, len, "a stop request");
}

/* The notes of the run's header: how the commands ran. */
static void make_notes(const sb__cmd_job *j, size_t done, int budget,
                       const char *shell_text, char *notes, size_t len)
{
    size_t used = 0;
    char buf[256], buf2[256];

#define ADD(...)                                                            \
    do {                                                                    \
        if (used < len)                                                     \
            used += (size_t)snprintf(notes + used, len - used, __VA_ARGS__); \
    } while (0)
    ADD("cmd: %zu rounds (seed %llu), each command once a round in a "
        "fresh random order, after %zu warm-up run%s; a round is an "
        "invocation: CIs over rounds, ratios paired by round\n",
        done, (unsigned long long)j->o.seed, j->o.warmup,
        j->o.warmup == 1 ? "" : "s");
    if (j->stop_sig || j->by_progress) {
        stop_text(j, buf, sizeof buf);
        ADD("interrupted by %s: the %zu whole rounds before it\n", buf,
            done);
    }
    if (budget == 1)
        ADD("budget: --max-time %g s stopped it after %zu of %zu rounds\n",
            j->o.max_time, done, j->o.runs);
    if (budget == 2)
        ADD("budget: command '%s' was still running at --max-time %g s's "
            "deadline (%g s): killed with its process group, its round "
            "dropped; the %zu whole rounds before it kept\n",
            j->killed_cell < j->n
                ? sb__cmd_shown(j->c[j->killed_cell].name, buf,
                                sizeof buf)
                : "?",
            j->o.max_time, sb__command_deadline(j->o.max_time), done);
    for (size_t i = 0; i < j->ncmd; i++)
        if (j->c[i].failed || j->c[i].prep_failed)
            ADD("command %zu failed in %zu run%s and %zu prepare%s, kept "
                "(--ignore-failure)\n",
                i + 1, j->c[i].failed, j->c[i].failed == 1 ? "" : "s",
                j->c[i].prep_failed, j->c[i].prep_failed == 1 ? "" : "s");
    if (shell_text)
        ADD("shell: each time includes the start-up of %s (not "
            "subtracted); row " STARTUP_NAME " is %s -c '' in the "
            "same rounds\n",
            sb__cmd_shown(shell_text, buf, sizeof buf),
            sb__cmd_shown(shell_text, buf2, sizeof buf2));
    else
        ADD("no shell: each command's words run as they are\n");
    if (j->polled)
        ADD("no pidfd (pidfd_open: %s): the end of each run was polled "
            "every 0.1 ms, which each time may hold\n",
            strerror(j->polled));
    ADD("ms from spawn to wait4; user-ms ... major-faults: the child's "
        "rusage\n");
#undef ADD
}

static void free_job(sb__cmd_job *j)
{
    for (size_t i = 0; j->c && i < j->n; i++) {
        sb__cmd_free_exe(&j->c[i].run);
        sb__cmd_free_exe(&j->c[i].prep);
        free(j->c[i].wall);
        free(j->c[i].ru);
    }
    free(j->c);
    sb__cmd_free_words(j->shell);
    sb__stop_end(&j->stop);
}

/* The options, checked before anything runs. */
static int check_options(const sb_command_options *o, sb_error *err)
{
    static const char fn[] = "sb_command_run_new";
    char buf[256];

    if (!o->commands || o->ncommands == 0)
        return sb__error(err, SB_EINVAL, "%s: no command", fn);
    if (o->ncommands > SB_MAX_COMMANDS)
        return sb__error(err, SB_EINVAL, "%s: %zu commands, more than %d",
                         fn, o->ncommands, SB_MAX_COMMANDS);
    if (o->nprepare > 1 && o->nprepare != o->ncommands)
        return sb__error(err, SB_EINVAL,
                         "prepare given %zu times for %zu commands: give it "
                         "once (for every command) or once per command",
                         o->nprepare, o->ncommands);
    if (o->nprepare && !o->prepare)
        return sb__error(err, SB_EINVAL, "%s: prepare is NULL", fn);
    if (o->no_shell && o->shell)
        return sb__error(err, SB_EINVAL,
                         "shell '%s' and no shell: give one of them",
                         sb__cmd_shown(o->shell, buf, sizeof buf));
    if (!(o->max_time > 0) || !isfinite(o->max_time))
        return sb__error(err, SB_EINVAL,
                         "max_time %g: must be a positive number of "
                         "seconds",
                         o->max_time);
    if (o->runs < 2)
        return sb__error(err, SB_EINVAL,
                         "runs %zu: at least 2 rounds (an interval needs "
                         "two)",
                         o->runs);
    if (o->baseline != SIZE_MAX && o->baseline >= o->ncommands)
        return sb__error(err, SB_EINVAL,
                         "baseline %zu: there are %zu commands (0 to %zu)",
                         o->baseline, o->ncommands, o->ncommands - 1);
    for (size_t i = 0; i < o->ncommands; i++) {
        const char *t = o->commands[i];
        const char *n = o->names ? o->names[i] : t;
        if (!t)
            return sb__error(err, SB_EINVAL, "%s: command %zu is NULL", fn,
                             i + 1);
        if (!*t)
            return sb__error(err, SB_EINVAL, "command %zu is empty", i + 1);
        if (!n || !*n)
            return sb__error(err, SB_EINVAL, "%s: name %zu is %s", fn,
                             i + 1, n ? "empty" : "NULL");
        if (o->nprepare && !o->prepare[o->nprepare == 1 ? 0 : i])
            return sb__error(err, SB_EINVAL, "%s: prepare %zu is NULL", fn,
                             i + 1);
        for (size_t k = 0; k < i; k++) {
            const char *nk = o->names ? o->names[k] : o->commands[k];
            if (!strcmp(o->commands[k], t))
                return sb__error(err, SB_EINVAL,
                                 "command '%s' given twice (commands %zu "
                                 "and %zu): each is one row",
                                 sb__cmd_shown(t, buf, sizeof buf), k + 1,
                                 i + 1);
            if (nk && !strcmp(nk, n))
                return sb__error(err, SB_EINVAL,
                                 "name '%s' given twice (commands %zu and "
                                 "%zu): each row needs its own",
                                 sb__cmd_shown(n, buf, sizeof buf), k + 1,
                                 i + 1);
        }
        if (!o->no_shell && !strcmp(n, STARTUP_NAME))
            return sb__error(err, SB_EINVAL,
                             "command '%s': the name of the shell's "
                             "start-up row",
                             STARTUP_NAME);
    }
    return SB_OK;
}

/* The cells, what each runs, and room for the rounds. */
static int make_cells(sb__cmd_job *j, const char *shell_text, sb_error *err)
{
    const sb_command_options *o = &j->o;
    char why[160], buf[256];
    int rc;

    if (!o->no_shell) {
        if ((rc = sb__split_words(shell_text, &j->shell, why, sizeof why)) !=
            SB_OK)
            return sb__error(err, rc, "shell '%s': %s",
                             sb__cmd_shown(shell_text, buf, sizeof buf), why);
        char *found = sb__find_program(j->shell[0], NULL);
        if (!found)
            return sb__cmd_no_program(err, "shell", shell_text, j->shell[0]);
        free(found);
    }
    j->ncmd = o->ncommands;
    j->n = j->ncmd + (j->shell != NULL);
    if (!(j->c = calloc(j->n, sizeof *j->c)))
        return sb__error(err, SB_ENOMEM, "out of memory");
    for (size_t i = 0; i < j->n; i++) {
        sb__cmd_cell *c = &j->c[i];
        char what[64];
        if (i < j->ncmd) {
            c->text = o->commands[i];
            c->name = o->names ? o->names[i] : c->text;
            snprintf(what, sizeof what, "command %zu", i + 1);
            if ((rc = sb__cmd_make_exe(&c->run, c->text, j->shell, what,
                                       err)) != SB_OK)
                return rc;
            if (o->nprepare) {
                const char *prep = o->prepare[o->nprepare == 1 ? 0 : i];
                if ((rc = sb__cmd_make_exe(&c->prep, prep, j->shell,
                                           "prepare", err)) != SB_OK)
                    return rc;
                c->has_prep = 1;
            }
        } else {
            /* The shell starting, and nothing else: -c with an empty
             * command, which sb__cmd_make_exe refuses as a command given. */
            size_t n = 0;
            c->text = "";
            c->name = STARTUP_NAME;
            while (j->shell[n])
                n++;
            if (!(c->run.argv = calloc(n + 3, sizeof *c->run.argv)))
                return sb__error(err, SB_ENOMEM, "out of memory");
            for (size_t k = 0; k < n; k++)
                if (!(c->run.argv[k] = strdup(j->shell[k])))
                    return sb__error(err, SB_ENOMEM, "out of memory");
            if (!(c->run.argv[n] = strdup("-c")) ||
                !(c->run.argv[n + 1] = strdup("")) ||
                !(c->run.path = sb__find_program(j->shell[0], NULL)))
                return sb__error(err, SB_ENOMEM, "out of memory");
        }
        c->wall = calloc(o->runs, sizeof *c->wall);
        c->ru = calloc(o->runs, RU_N * sizeof *c->ru);
        if (!c->wall || !c->ru)
            return sb__error(err, SB_ENOMEM,
                             "out of memory for %zu rounds", o->runs);
    }
    return SB_OK;
}

/* The run of the done whole rounds, with the machine's metadata. */
static int make_run(sb__cmd_job *j, size_t done, int budget,
                    const char *shell_text, const sb_analysis_options *a,
                    time_t start, sb_run **out, sb_error *err)
{
    sb_sample_set *sets = calloc(j->n, sizeof *sets);
    size_t *ones = calloc(done, sizeof *ones);
    char *notes = malloc(SB__COMMAND_NOTES);
    int rc;

    if (!sets || !ones || !notes) {
        rc = sb__error(err, SB_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t r = 0; r < done; r++)
        ones[r] = 1; /* one run per round: a round is an invocation */
    for (size_t i = 0; i < j->n; i++)
        sets[i] = (sb_sample_set){.name = j->c[i].name,
                                  .values = j->c[i].wall,
                                  .n = done,
                                  .invocation_samples = ones,
                                  .ninvocations = done,
                                  .counters = j->c[i].ru};
    make_notes(j, done, budget, j->shell ? shell_text : NULL, notes,
               SB__COMMAND_NOTES);
    if ((rc = sb_run_from_sets_new(sets, j->n, ru_names, RU_N, "ms", notes,
                                   a, j->o.seed, out, err)) != SB_OK)
        goto out;
    sb__meta_machine(&(*out)->meta, start);
    (*out)->meta.timer.hz_source = "wall time from spawn to wait4 "
                                   "(CLOCK_MONOTONIC_RAW)";
    (*out)->interrupted = j->stop_sig || j->by_progress;
    /* The rounds and the time they took, warm-up included, as a
     * measured run reports its own. */
    (*out)->rounds = done;
    (*out)->elapsed = j->t_end - j->t0;
    if (j->ncmd >= 2 && j->o.baseline != SIZE_MAX) {
        size_t *bases = malloc(j->n * sizeof *bases);
        if (!bases) {
            rc = sb__error(err, SB_ENOMEM, "out of memory");
        } else {
            for (size_t i = 0; i < j->n; i++)
                bases[i] = i == j->o.baseline || i >= j->ncmd
                               ? SIZE_MAX
                               : j->o.baseline;
            rc = sb_run_set_baselines(*out, bases, err);
            free(bases);
        }
        if (rc != SB_OK) {
            sb_run_free(*out);
            *out = NULL;
        }
    }
out:
    free(sets);
    free(ones);
    free(notes);
    return rc;
}

int sb_command_run_new(const sb_command_options *o,
                       const sb_analysis_options *a, sb_run **out,
                       sb_error *err)
{
    static const char fn[] = "sb_command_run_new";
    sb__cmd_job j;
    sb_analysis_options fa;
    sb_measure_options mo;
    const char *shell_text;
    size_t done = 0, size;
    int budget = 0, rc;
    time_t start;

    sb_init();
    if (!out)
        return sb__error(err, SB_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (!o)
        return sb__error(err, SB_EINVAL, "%s: o is NULL", fn);
    memset(&j, 0, sizeof j);
    j.err = err;
    j.killed_cell = SIZE_MAX;
    memcpy(&j.o, &defaults, sizeof defaults);
    memcpy(&size, o, sizeof size);
    if ((rc = sb__options_part(o, size, &j.o, sizeof j.o, known_sizes,
                               sizeof known_sizes / sizeof *known_sizes,
                               "sb_command_options",
                               "sb_command_options_init", fn, err)) != SB_OK)
        return rc;
    if (j.o.runs == 0)
        j.o.runs = DEFAULT_RUNS;
    if ((rc = check_options(&j.o, err)) != SB_OK)
        return rc;
    {
        /* With SIGCHLD ignored the kernel reaps the children itself:
         * wait4 would find none, and no run could be timed. */
        struct sigaction sa;
        if (sigaction(SIGCHLD, NULL, &sa) == 0 &&
            (sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT)))
            return sb__error(err, SB_EINVAL,
                             "%s: SIGCHLD is ignored (SIG_IGN or "
                             "SA_NOCLDWAIT) in this process: its children "
                             "cannot be waited for; restore SIG_DFL first",
                             fn);
    }
    if ((rc = sb__analysis_get(a, &fa, fn, err)) != SB_OK)
        return rc;
    /* No precision target: the rounds asked for, or the budget, end the
     * run (a cell's interval is over its rounds, not a stop rule's). */
    fa.precision = 0;
    if ((rc = sb_analysis_options_check(&fa, err)) != SB_OK)
        return rc;
    shell_text = j.o.shell ? j.o.shell : DEFAULT_SHELL;
    sb_measure_options_init(&mo);
    mo.stop = j.o.stop;
    sb__stop_begin(&j.stop, &mo, 0);
    if ((rc = make_cells(&j, shell_text, err)) != SB_OK) {
        free_job(&j);
        return rc;
    }
    start = time(NULL);
    if ((rc = rounds(&j, &done, &budget)) != SB_OK) {
        free_job(&j);
        return rc;
    }
    if (done < 2) {
        char buf[256];
        if (budget == 2 && !j.stop_sig && !j.by_progress)
            rc = sb__error(err, SB_EINTR,
                           "command '%s' was still running at --max-time "
                           "%g s's deadline (%g s), in %s %zu: killed; "
                           "fewer than two whole rounds, nothing to "
                           "report: raise --max-time",
                           j.killed_cell < j.n
                               ? sb__cmd_shown(j.c[j.killed_cell].name,
                                               buf, sizeof buf)
                               : "?",
                           j.o.max_time, sb__command_deadline(j.o.max_time),
                           j.killed_timed ? "timed round" : "warm-up run",
                           j.killed_round);
        else {
            stop_text(&j, buf, sizeof buf);
            rc = sb__error(err, SB_EINTR,
                           "interrupted by %s before two whole rounds: "
                           "nothing to report",
                           buf);
        }
        free_job(&j);
        return rc;
    }
    rc = make_run(&j, done, budget, shell_text, &fa, start, out, err);
    free_job(&j);
    return rc;
}
