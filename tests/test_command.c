/*
 * test_command.c: whole commands in interleaved rounds through the C API
 * (sb_command_run_new): the refusals, each before anything runs and with
 * a message naming the bad value; the run's cells, unit, counters and
 * machine record; hostile arguments passed through intact without a
 * shell; a failing command and a failing prepare; a stop from the
 * progress callback and from the stop flag, passed on to the command's
 * process group as the signal stored; the deadline; the wait without a
 * pidfd; the word splitting; and the round orders of a seed, which are
 * permutations drawn uniformly (a chi-square test over 6000 draws).
 *
 * Commands are /bin/sh one-liners and true: nothing here reads a time,
 * only counts, names, files and messages.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "command.h"
#include "program.h"
#include "report_text.h"
#include "statbench.h"
#include "tap.h"

static char dir[] = "/tmp/sb_test_command.XXXXXX";

static const char *in_dir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* The whole of file, or "" (static buffer). */
static const char *slurp(const char *file)
{
    static char buf[4096];
    FILE *f = fopen(file, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

/* The call must fail with want, no run, and a message holding needle. */
static void refused(const sb_command_options *o, int want,
                    const char *needle, const char *what)
{
    sb_run *run = (sb_run *)&run;
    sb_error err = {0};
    int rc = sb_command_run_new(o, NULL, &run, &err);

    if (!tap_ok(rc == want && run == NULL && strstr(err.text, needle),
                "refused: %s", what))
        tap_diag("  rc %d (want %d), message '%s', want '%s'", rc, want,
                 err.text, needle);
    if (rc == SB_OK)
        sb_run_free(run);
}

/* Options for n commands cmds and that many rounds, else the defaults. */
static void options(sb_command_options *o, const char **cmds, size_t n,
                    size_t runs)
{
    sb_command_options_init(o);
    o->commands = cmds;
    o->ncommands = n;
    o->runs = runs;
}

static int has_note(const sb_run *run, const char *needle)
{
    return strstr(sb_run_meta(run)->notes, needle) != NULL;
}

static void test_refusals(void)
{
    const char *two[] = {"true", "true"};
    const char *one[] = {"true"};
    const char *empty[] = {""};
    const char *pipe[] = {"echo a | wc"};
    const char *quote[] = {"echo 'a"};
    const char *missing[] = {"no-such-program-sbx 1"};
    const char *prep[] = {"true", "true"};
    const char *names[] = {"a", "a"};
    const char *pair[] = {"true", ":"};
    sb_command_options o;
    sb_run *run = (sb_run *)&run;

    TAP_IS_INT(sb_command_run_new(NULL, NULL, &run, NULL), SB_EINVAL,
               "NULL options are refused");
    tap_ok(run == NULL, "and *out is cleared");
    sb_command_options_init(&o);
    TAP_IS_INT(sb_command_run_new(&o, NULL, NULL, NULL), SB_EINVAL,
               "a NULL out is refused");
    refused(&o, SB_EINVAL, "no command", "no command");
    o.commands = two;
    o.ncommands = 2;
    refused(&o, SB_EINVAL, "command 'true' given twice (commands 1 and 2)",
            "a command given twice");
    o.ncommands = SB_MAX_COMMANDS + 1;
    refused(&o, SB_EINVAL, "more than 64", "too many commands");
    o.commands = pair;
    o.ncommands = 2;
    o.names = names;
    refused(&o, SB_EINVAL, "name 'a' given twice", "a name given twice");
    o.names = NULL;
    o.commands = one;
    o.ncommands = 1;
    o.size = 8;
    refused(&o, SB_EINVAL, "sb_command_options.size 8", "an unknown size");
    sb_command_options_init(&o);
    o.commands = empty;
    o.ncommands = 1;
    refused(&o, SB_EINVAL, "command 1 is empty", "an empty command");
    o.commands = pipe;
    o.no_shell = 1;
    refused(&o, SB_EINVAL, "without a shell: '|' means something only to a "
                           "shell",
            "a pipe without a shell");
    o.commands = quote;
    refused(&o, SB_EINVAL, "an unclosed '", "an unclosed quote");
    o.commands = missing;
    refused(&o, SB_EINVAL, "no program 'no-such-program-sbx' to run",
            "a program not in PATH");
    o.commands = one;
    o.shell = "/bin/sh";
    refused(&o, SB_EINVAL, "and no shell", "a shell and no shell");
    o.no_shell = 0;
    o.shell = "/nonexistent/sh -e";
    refused(&o, SB_EINVAL, "shell '/nonexistent/sh -e': no program "
                           "'/nonexistent/sh'",
            "a shell that is not there");
    o.shell = NULL;
    o.prepare = prep;
    o.nprepare = 2;
    refused(&o, SB_EINVAL, "prepare given 2 times for 1 commands",
            "prepares neither once nor per command");
    o.nprepare = 0;
    o.runs = 1;
    refused(&o, SB_EINVAL, "runs 1", "one round");
    o.runs = 3;
    o.max_time = NAN;
    refused(&o, SB_EINVAL, "max_time nan", "a budget that is not a number");
    o.max_time = 10;
    {
        /* A process that ignores SIGCHLD has its children reaped for
         * it; refused before any command runs, either way it is said. */
        struct sigaction ign = {.sa_handler = SIG_IGN}, old, nocld;
        sigemptyset(&ign.sa_mask);
        if (sigaction(SIGCHLD, &ign, &old) == 0) {
            refused(&o, SB_EINVAL, "SIGCHLD is ignored", "SIGCHLD ignored");
            nocld = old;
            nocld.sa_flags |= SA_NOCLDWAIT;
            if (sigaction(SIGCHLD, &nocld, NULL) == 0)
                refused(&o, SB_EINVAL, "SIGCHLD is ignored",
                        "SIGCHLD with SA_NOCLDWAIT");
            sigaction(SIGCHLD, &old, NULL);
        } else {
            tap_ok(0, "SIGCHLD ignored for a moment");
        }
    }
    o.commands = pair;
    o.ncommands = 2;
    o.baseline = 2;
    refused(&o, SB_EINVAL, "baseline 2: there are 2 commands",
            "a baseline past the commands");
    {
        sb_analysis_options a;
        sb_error err = {0};
        sb_analysis_options_init(&a);
        a.ci_level = 2;
        o.baseline = 0;
        TAP_IS_INT(sb_command_run_new(&o, &a, &run, &err), SB_EINVAL,
                   "bad analysis options are refused");
        tap_ok(strstr(err.text, "confidence level 2") != NULL,
               "naming the level ('%s')", err.text);
    }
}

static void test_run(void)
{
    char out[256], cmd[512];
    const char *cmds[2];
    sb_command_options o;
    sb_run *run = NULL;
    sb_error err = {0};
    int rc;

    snprintf(cmd, sizeof cmd, "echo x >> %s", in_dir(out, sizeof out,
                                                     "count"));
    cmds[0] = "true";
    cmds[1] = cmd;
    options(&o, cmds, 2, 5);
    o.warmup = 2;
    o.max_time = 120;
    rc = sb_command_run_new(&o, NULL, &run, &err);
    TAP_IS_INT(rc, SB_OK, "two commands run (%s)", err.text);
    if (rc != SB_OK)
        return;
    TAP_IS_INT(sb_run_count(run), 3, "a cell each and the shell's start-up");
    TAP_IS_STR(sb_run_cell(run, 0)->cell.kernel->name, "true",
               "cell 0 is the first command");
    TAP_IS_STR(sb_run_cell(run, 2)->cell.kernel->name, "(shell start-up)",
               "the last the shell's start-up");
    TAP_IS_INT(sb_run_cell(run, 1)->invocations, 5,
               "a round is an invocation");
    TAP_IS_INT(sb_run_cell(run, 1)->nsamples, 5, "of one sample each");
    TAP_IS_INT(strlen(slurp(out)), 2 * 7,
               "the second command ran 2 warm-up and 5 timed times");
    tap_ok(sb_run_imported(run), "the run holds values in their own unit");
    TAP_IS_STR(sb_run_unit(run), "ms", "in milliseconds");
    TAP_IS_INT(sb_run_meta(run)->ncounters, 6, "six rusage counters");
    TAP_IS_STR(sb_run_meta(run)->counter_names[4], "rusage::minor-faults",
               "named as documented");
    tap_ok(sb_run_meta(run)->hostname[0] && sb_run_meta(run)->start_time[0] &&
               sb_run_meta(run)->cpu_model[0],
           "the machine and the start are recorded ('%s', '%s')",
           sb_run_meta(run)->hostname, sb_run_meta(run)->start_time);
    tap_ok(has_note(run, "cmd: 5 rounds (seed 1)"), "the notes say how");
    TAP_IS_INT(sb_run_rounds(run), 5, "the run's rounds are the rounds");
    {
        /* The rounds' time holds every kept run's wall time. */
        double kept = 0;
        for (size_t i = 0; i < sb_run_count(run); i++)
            for (size_t k = 0; k < sb_run_cell(run, i)->nsamples; k++)
                kept += sb_run_cell(run, i)->ticks[k] / 1e3;
        tap_ok(sb_run_elapsed(run) >= kept,
               "its elapsed time (%g s) holds the runs kept (%g s)",
               sb_run_elapsed(run), kept);
    }
    tap_ok(!sb_run_interrupted(run), "not interrupted");
    tap_ok(sb_run_comparison(run, 1) != NULL &&
               sb_run_comparison(run, 0) == NULL &&
               sb_run_comparison(run, 2) == NULL,
           "the second command is compared with the first, the shell's "
           "row with none");
    sb_run_free(run);
}

/* Arguments with what a shell would act on reach the program as they
 * are when no shell is used. */
static void test_hostile_words(void)
{
    const char *want = "a;b $(touch pwned) `id` | > *";
    char out[256], cmd[1024];
    const char *cmds[1];
    sb_command_options o;
    sb_run *run = NULL;
    sb_error err = {0};

    in_dir(out, sizeof out, "words");
    snprintf(cmd, sizeof cmd,
             "/bin/sh -c 'printf %%s \"$1\" > \"$2\"' x '%s' '%s'", want,
             out);
    cmds[0] = cmd;
    sb_command_options_init(&o);
    o.commands = cmds;
    o.ncommands = 1;
    o.no_shell = 1;
    o.runs = 2;
    TAP_IS_INT(sb_command_run_new(&o, NULL, &run, &err), SB_OK,
               "a quoted command runs without a shell (%s)", err.text);
    TAP_IS_STR(slurp(out), want, "its words arrive unchanged");
    {
        char pw[256];
        tap_ok(access(in_dir(pw, sizeof pw, "pwned"), F_OK) != 0 &&
                   access("pwned", F_OK) != 0,
               "and nothing in them ran");
    }
    if (run) {
        char *doc = report_text(run, SB_FORMAT_COMPACT);
        TAP_IS_INT(sb_run_count(run), 1, "no shell, no start-up row");
        tap_ok(has_note(run, "no shell"), "the notes say no shell");
        /* A run of the API has no command line: the compact report says
         * so, and counts its rounds as rounds. */
        tap_ok(doc && strstr(doc, ": a library run\n") &&
                   strstr(doc, "CI over 2 rounds;"),
               "compact: a library run, over 2 rounds (%.120s)",
               doc ? doc : "not written");
        free(doc);
    }
    sb_run_free(run);
}

static void test_failures(void)
{
    const char *cmds[] = {"true", "exit 3"};
    const char *prep[] = {"false"};
    sb_command_options o;
    sb_run *run = (sb_run *)&run;
    sb_error err = {0};

    options(&o, cmds, 2, 3);
    refused(&o, SB_ECOMMAND, "command 'exit 3': timed run 1 failed: exit "
                             "status 3",
            "a command that fails");
    o.ignore_failure = 1;
    TAP_IS_INT(sb_command_run_new(&o, NULL, &run, &err), SB_OK,
               "kept with ignore_failure (%s)", err.text);
    if (run)
        tap_ok(has_note(run, "command 2 failed in 3 runs and 0 prepares"),
               "and counted in the notes");
    sb_run_free(run);
    o.ignore_failure = 0;
    o.ncommands = 1;
    o.prepare = prep;
    o.nprepare = 1;
    refused(&o, SB_ECOMMAND, "command 'true': prepare before timed run 1 "
                             "failed: exit status 1",
            "a prepare that fails");
    o.nprepare = 0;
    cmds[1] = "kill -9 $$";
    o.ncommands = 2;
    refused(&o, SB_ECOMMAND, "killed by signal 9", "a command killed");
}

static volatile sig_atomic_t stop_flag;

static int stop_at_3(void *arg, size_t round, size_t rounds, double elapsed)
{
    (void)rounds;
    (void)elapsed;
    if (round == 3) {
        if (arg)
            return 1;
        stop_flag = SIGUSR1;
    }
    return 0;
}

/* The run of o, which by stops after two rounds: checks that it succeeds
 * and keeps those two; the run, or NULL. */
static sb_run *stopped(const sb_command_options *o, const char *by)
{
    sb_run *run = NULL;
    sb_error err = {0};

    TAP_IS_INT(sb_command_run_new(o, NULL, &run, &err), SB_OK,
               "a run %s stops succeeds (%s)", by, err.text);
    if (run)
        TAP_IS_INT(sb_run_cell(run, 0)->invocations, 2,
                   "with the two rounds before the stop");
    return run;
}

static void test_stops(void)
{
    const char *cmds[] = {"true"};
    sb_command_options o;
    sb_run *run;

    options(&o, cmds, 1, 10);
    o.progress = stop_at_3;
    o.progress_arg = &o;
    if ((run = stopped(&o, "the progress callback"))) {
        tap_ok(sb_run_interrupted(run), "marked interrupted");
        tap_ok(has_note(run, "interrupted by the progress callback"),
               "and says by what");
    }
    sb_run_free(run);
    stop_flag = 0;
    o.progress_arg = NULL;
    o.stop = &stop_flag;
    if ((run = stopped(&o, "the stop flag")))
        tap_ok(has_note(run, strsignal(SIGUSR1)),
               "the notes name the signal stored");
    sb_run_free(run);
    stop_flag = SIGUSR1;
    refused(&o, SB_EINTR, "before two whole rounds: nothing to report",
            "a stop before two rounds");
}

struct stopper {
    const char *file;
    volatile sig_atomic_t *flag;
};

/* Store SIGTERM in the flag once the command shows that it waits. */
static void *stop_when_waiting(void *arg)
{
    struct stopper *s = arg;
    for (int i = 0; i < 60000 && access(s->file, F_OK) != 0; i++)
        usleep(1000);
    *s->flag = SIGTERM;
    return NULL;
}

/* Store SIGTERM once the file holds three lines (round 3 has begun),
 * and a little later, so that the command has set its trap. */
static void *stop_when_three(void *arg)
{
    struct stopper *s = arg;
    for (int i = 0; i < 60000; i++) {
        FILE *f = fopen(s->file, "r");
        int lines = 0, c;
        while (f && (c = fgetc(f)) != EOF)
            lines += c == '\n';
        if (f)
            fclose(f);
        if (lines >= 3)
            break;
        usleep(1000);
    }
    usleep(200000);
    *s->flag = SIGTERM;
    return NULL;
}

/* o run while a thread sets *o->stop when fn decides, watching file:
 * sb_command_run_new's status, or -1 (a failed check said) when the
 * thread cannot start. */
static int run_stopped(sb_command_options *o, const char *file,
                       void *(*fn)(void *), sb_run **run, sb_error *err)
{
    struct stopper s = {.file = file, .flag = o->stop};
    pthread_t t;
    int rc;

    if (pthread_create(&t, NULL, fn, &s) != 0) {
        tap_ok(0, "a thread to stop the run");
        return -1;
    }
    rc = sb_command_run_new(o, NULL, run, err);
    pthread_join(t, NULL);
    return rc;
}

/* One command of a test, its options and its run. */
struct one_command {
    char cmd[2048];
    const char *cmds[1];
    sb_command_options o;
    sb_run *run;
    sb_error err;
};

/* c's command in 5 rounds (else the default options), of which the first
 * two end at once and the third runs then, a shell command line: each
 * round appends a line to file and counts them. */
static void third_round(struct one_command *c, const char *file,
                        const char *then)
{
    snprintf(c->cmd, sizeof c->cmd,
             "echo x >> %s; [ $(wc -l < %s) -lt 3 ] && exit 0; %s", file,
             file, then);
    c->cmds[0] = c->cmd;
    options(&c->o, c->cmds, 1, 5);
}

/* A stop reaches the command under way, as the signal stored, in its
 * process group: the command's trap writes a file. */
static void test_stop_passed_on(void)
{
    char n[256], waiting[256], got[256], then[1024];
    struct one_command c = {.run = NULL};
    static volatile sig_atomic_t flag;
    int rc;

    in_dir(n, sizeof n, "rounds");
    in_dir(waiting, sizeof waiting, "waiting");
    in_dir(got, sizeof got, "got");
    /* Rounds 1 and 2 end at once; round 3 waits on a child in the
     * command's group, and its trap records the signal. */
    snprintf(then, sizeof then,
             "trap 'echo TERM > %s; exit 0' TERM; sleep 97.8765 & "
             "touch %s; wait",
             got, waiting);
    third_round(&c, n, then);
    c.o.max_time = 3000; /* the deadline must not be what ends it */
    c.o.stop = &flag;
    rc = run_stopped(&c.o, waiting, stop_when_waiting, &c.run, &c.err);
    if (rc < 0)
        return;
    TAP_IS_INT(rc, SB_OK,
               "a stop while a command runs keeps the rounds before (%s)",
               c.err.text);
    TAP_IS_STR(slurp(got), "TERM\n",
               "the command got the signal stored in the flag");
    if (c.run) {
        TAP_IS_INT(sb_run_cell(c.run, 0)->invocations, 2,
                   "its round dropped, the two before kept");
        tap_ok(sb_run_interrupted(c.run), "marked interrupted");
    }
    sb_run_free(c.run);
}

/* A command that ignores the stop is killed with its group after the
 * grace, long before a far deadline: the rounds before it are kept. */
static void test_stop_ignored(void)
{
    struct one_command c = {.run = NULL};
    static volatile sig_atomic_t flag;
    char n[256];
    int rc;

    in_dir(n, sizeof n, "ignored");
    third_round(&c, n, "trap '' TERM INT; sleep 97.8767");
    c.o.max_time = 3000; /* a deadline of an hour: not what ends it */
    c.o.stop = &flag;
    /* The flag is set from a thread once round 3's command runs. */
    if ((rc = run_stopped(&c.o, n, stop_when_three, &c.run, &c.err)) < 0)
        return;
    TAP_IS_INT(rc, SB_OK, "a command that ignores the stop ends the run (%s)",
               c.err.text);
    if (c.run)
        TAP_IS_INT(sb_run_cell(c.run, 0)->invocations, 2,
                   "its round dropped, the two before kept");
    sb_run_free(c.run);
}

/* 1 once pid has ended (gone, or a zombie its new parent has not yet
 * reaped), waiting up to 10 s for the kill to land: the check is that it
 * ends, not how soon. */
static int ended(pid_t pid)
{
    for (int i = 0; i < 1000; i++) {
        char path[64], stat[256];
        FILE *f;
        size_t n;
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        if (!(f = fopen(path, "r")))
            return 1;
        n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        /* The state follows the name's closing parenthesis. */
        if (strrchr(stat, ')') && strrchr(stat, ')')[1] == ' ' &&
            strrchr(stat, ')')[2] == 'Z')
            return 1;
        usleep(10000);
    }
    return 0;
}

/* What a stopped command leaves running in its process group is killed
 * with it: here a child that ignores SIGTERM outlives its shell, which
 * the stop ends.  Polled or waited for on a pidfd alike. */
static void test_group_killed(int poll_only)
{
    char n[256], p[256], then[1024];
    struct one_command c = {.run = NULL};
    static volatile sig_atomic_t flag;
    FILE *f;
    long child = 0;
    int rc;

    sb__command_poll_only = poll_only;
    flag = 0;
    snprintf(n, sizeof n, "%s/group%d", dir, poll_only);
    snprintf(p, sizeof p, "%s/group%d.pid", dir, poll_only);
    snprintf(then, sizeof then,
             "sh -c 'trap \"\" TERM; echo $$ > %s.tmp; mv %s.tmp %s; "
             "exec sleep 97.8768' & wait",
             p, p, p);
    third_round(&c, n, then);
    c.o.max_time = 3000; /* a deadline of an hour: not what ends it */
    c.o.no_shell = 0;
    c.o.stop = &flag;
    if ((rc = run_stopped(&c.o, p, stop_when_waiting, &c.run, &c.err)) < 0) {
        sb__command_poll_only = 0;
        return;
    }
    TAP_IS_INT(rc, SB_OK,
               "%s: a stop ends the run of a command with a child that "
               "ignores it (%s)",
               poll_only ? "polled" : "pidfd", c.err.text);
    sb_run_free(c.run);
    sb__command_poll_only = 0;
    if ((f = fopen(p, "r"))) {
        if (fscanf(f, "%ld", &child) != 1)
            child = 0;
        fclose(f);
    }
    if (!tap_ok(child > 1, "%s: the child wrote its pid (%ld)",
                poll_only ? "polled" : "pidfd", child))
        return;
    tap_ok(ended((pid_t)child),
           "%s: the child that ignored SIGTERM is killed with its group",
           poll_only ? "polled" : "pidfd");
    if (!ended((pid_t)child))
        kill((pid_t)child, SIGKILL);
}

/* A command still running at the deadline is killed and its round
 * dropped; polled or waited for on a pidfd alike. */
static void test_deadline(int poll_only)
{
    struct one_command c = {.run = NULL};
    char n[256];

    sb__command_poll_only = poll_only;
    snprintf(n, sizeof n, "%s/deadline%d", dir, poll_only);
    third_round(&c, n, "exec sleep 97.8766");
    c.o.max_time = 0.5; /* deadline 2.5 s */
    c.o.no_shell = 0;
    TAP_IS_INT(sb_command_run_new(&c.o, NULL, &c.run, &c.err), SB_OK,
               "%s: a command past the deadline keeps the rounds before "
               "(%s)",
               poll_only ? "polled" : "pidfd", c.err.text);
    if (c.run) {
        /* Rounds 1 and 2 are quick, but a slow machine may take the
         * budget's stop after them before round 3: either way, two. */
        TAP_IS_INT(sb_run_cell(c.run, 0)->invocations, 2,
                   "%s: two whole rounds", poll_only ? "polled" : "pidfd");
        /* The check is of the deadline; a budget's stop is said as a
         * skip, never passed for it. */
        if (!has_note(c.run, "was still running") &&
            has_note(c.run, "budget: --max-time 0.5 s stopped it"))
            tap_skip("%s: the budget stopped the run before round 3 on "
                     "this slow machine: the deadline was not reached",
                     poll_only ? "polled" : "pidfd");
        else
            tap_ok(has_note(c.run, "was still running at --max-time 0.5 "
                                   "s's deadline (2.5 s): killed with its "
                                   "process group"),
                   "%s: the notes say the deadline killed it",
                   poll_only ? "polled" : "pidfd");
        tap_ok(!poll_only == !has_note(c.run, "no pidfd"),
               "%s: the notes say how the end was seen",
               poll_only ? "polled" : "pidfd");
    }
    sb_run_free(c.run);
    sb__command_poll_only = 0;
}

/* PATH as execvp reads it: an empty entry (first, inner or last) is the
 * current directory; a directory named like the program is not one. */
static void test_path(void)
{
    char here[256], prog[300], cwd[4096], *old = getenv("PATH");
    char *keep = NULL, *got;
    static const char *const paths[] = {"/nonexistent:", ":/nonexistent",
                                        "/nonexistent::/nonexistent"};
    FILE *f;

    if (old && !(keep = strdup(old))) {
        tap_ok(0, "a copy of PATH");
        return;
    }
    snprintf(here, sizeof here, "%s/pathdir", dir);
    snprintf(prog, sizeof prog, "%s/sbx-prog", here);
    if (mkdir(here, 0700) != 0 || !(f = fopen(prog, "w"))) {
        tap_ok(0, "a program in %s", here);
        free(keep);
        return;
    }
    fputs("#!/bin/sh\n", f);
    fclose(f);
    chmod(prog, 0700);
    if (!getcwd(cwd, sizeof cwd) || chdir(here) != 0) {
        tap_ok(0, "into %s", here);
        free(keep);
        return;
    }
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        setenv("PATH", paths[i], 1);
        got = sb__find_program("sbx-prog", NULL);
        tap_ok(got && !strcmp(got, "./sbx-prog"),
               "PATH '%s': the empty entry is the current directory (%s)",
               paths[i], got ? got : "not found");
        free(got);
    }
    setenv("PATH", "/nonexistent", 1);
    got = sb__find_program("sbx-prog", NULL);
    tap_ok(!got && errno == ENOENT,
           "PATH '/nonexistent': not found, ENOENT (%s)", got ? got : "-");
    free(got);
    mkdir("sub", 0700);
    mkdir("sub/sbx-dir", 0700);
    setenv("PATH", "sub", 1);
    got = sb__find_program("sbx-dir", NULL);
    tap_ok(!got, "a directory in PATH named like the program is not it");
    free(got);
    if (keep)
        setenv("PATH", keep, 1);
    else
        unsetenv("PATH");
    free(keep);
    if (chdir(cwd) != 0)
        tap_diag("could not go back to %s", cwd);
}

static void test_words(void)
{
    static const struct {
        const char *in;
        const char *want; /* words joined by '|', NULL: refused */
    } cases[] = {
        {"a b\tc", "a|b|c"},
        {"  'a b'  \"c \\\" d\" e\\ f", "a b|c \" d|e f"},
        {"x''y \"\"", "xy|"},
        {"a#b c~", "a#b|c~"},
        {"#a", NULL},
        {"~/x", NULL},
        {"a;b", NULL},
        {"a\\", NULL},
        {"\"a", NULL},
        {"   ", NULL},
        {"$HOME", NULL},
        {"'$HOME'", "$HOME"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[160] = "", got[256] = "";
        char **w = NULL;
        int rc = sb__split_words(cases[i].in, &w, why, sizeof why);
        for (size_t k = 0; rc == SB_OK && w[k]; k++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s",
                     k ? "|" : "", w[k]);
        if (cases[i].want)
            TAP_IS_STR(rc == SB_OK ? got : why, cases[i].want,
                       "words of [%s]", cases[i].in);
        else
            tap_ok(rc == SB_EINVAL && w == NULL && why[0],
                   "[%s] refused: %s", cases[i].in, why);
        for (size_t k = 0; w && w[k]; k++)
            free(w[k]);
        free(w);
    }
}

/* The orders of a seed: the same again, permutations, and uniform. */
static void test_shuffle(void)
{
    size_t count[6] = {0}, a[5], b[5];
    uint64_t s1 = 42, s2 = 42, s = 7;
    double chi2 = 0;
    int same = 1, perm = 1;

    for (int r = 0; r < 100; r++) {
        int seen[5] = {0};
        for (size_t i = 0; i < 5; i++)
            a[i] = b[i] = i;
        sb__command_shuffle(a, 5, &s1);
        sb__command_shuffle(b, 5, &s2);
        for (size_t i = 0; i < 5; i++) {
            same &= a[i] == b[i];
            if (a[i] < 5)
                seen[a[i]]++;
        }
        for (size_t i = 0; i < 5; i++)
            perm &= seen[i] == 1;
    }
    tap_ok(same, "a seed gives the same orders again");
    tap_ok(perm, "each order is a permutation");
    for (int r = 0; r < 6000; r++) {
        size_t o[3] = {0, 1, 2};
        sb__command_shuffle(o, 3, &s);
        /* The permutation's index: first element x2, then the order of
         * the other two. */
        count[o[0] * 2 + (o[1] > o[2])]++;
    }
    for (int k = 0; k < 6; k++)
        chi2 += ((double)count[k] - 1000) * ((double)count[k] - 1000) / 1000;
    /* 5 degrees of freedom: P(chi2 > 20.52) = 0.001 (the chi-square
     * table).  The classic biased shuffle, j drawn from all n places at
     * every step, gives orders of 4/27 and 5/27: chi2 about 74 here. */
    if (!tap_ok(chi2 < 20.52, "the six orders of three are uniform "
                              "(chi2 %.2f, 5 df)",
                chi2))
        tap_diag("  counts %zu %zu %zu %zu %zu %zu", count[0], count[1],
                 count[2], count[3], count[4], count[5]);
}

int main(void)
{
    char cmd[256];

    printf("TAP version 13\n");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_refusals();
    test_run();
    test_hostile_words();
    test_failures();
    test_stops();
    test_stop_passed_on();
    test_stop_ignored();
    test_group_killed(0);
    test_group_killed(1);
    test_deadline(0);
    test_deadline(1);
    test_words();
    test_path();
    test_shuffle();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        tap_diag("could not remove %s", dir);
    return tap_done();
}
