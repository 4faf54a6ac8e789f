/*
 * cmd_measure.c: statbench [OPTION]...: measure the cells the options
 * name, compare them with a baseline (--baseline, --against) and write
 * the outputs.  Exit status: 0 success, 1 a run or output failure (or,
 * with --against, a cell slower than its baseline), 2 bad input, 3 with
 * --against a cell undecided (EXIT_UNDECIDED), 130,
 * 143 or 129 when interrupted by SIGINT, SIGTERM or SIGHUP (partial
 * results are still written).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "cli_parse.h"
#include "progress.h"
#include "text.h"

/* The progress line's state (progress.h).  The callback runs in every
 * forked invocation after each round and in this process after each
 * invocation: there it counts the invocation done (sb_progress.between).
 * The state is in shared memory where it can be, so that the pace holds
 * across the processes (a child's first draw right after the previous
 * child's last would exceed it) and the parent sees what the children
 * saw; else each process keeps its own copy. */
static struct progress local_prog, *progp = &local_prog;

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The progress line drawn (text) or taken away (NULL).  Cut to the
 * terminal's width less one: a line that wraps cannot be taken back by a
 * carriage return.  A dumb terminal (TERM dumb or unset) gets no escape
 * sequence: spaces cover what the line before left. */
static void progress_line(const char *text)
{
    const char *term = getenv("TERM");
    int dumb = !term || !*term || !strcmp(term, "dumb");
    struct winsize ws;
    size_t cols = 80, n = 0;
    char buf[256] = "";

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        cols = ws.ws_col;
    if (text) {
        snprintf(buf, sizeof buf, "%s: %s", progname, text);
        /* argv[0] reaches the terminal too: its controls shown as '?',
         * as every line say() prints. */
        sb__clean_text(buf);
        n = strlen(buf);
        if (n > cols - 1)
            n = cols - 1;
    }
    if (dumb)
        fprintf(stderr, "\r%-*.*s%s", (int)(n > progp->shown ? n : progp->shown),
                (int)n, buf, text ? "" : "\r");
    else
        fprintf(stderr, "\r\033[K%.*s", (int)n, buf);
    progp->shown = n;
}

static int progress(void *arg, const sb_progress *s)
{
    char line[200];
    double now = wall_now();

    (void)arg;
    if (s->between) {
        /* An invocation finished; the line waits for the next one's
         * rounds (or the end). */
        progress_between(progp, s, now);
        return 0;
    }
    progress_round(progp, s, now);
    if (!progress_due(progp, now))
        return 0;
    progress_format(progp, now, line, sizeof line);
    progress_line(line);
    return 0;
}

/* One line per cell that has no valid sample, saying what became of its
 * samples; returns how many cells.  Such a cell's figures are NAN, and a
 * run that has one is no success. */
static size_t report_empty_cells(const sb_run *run)
{
    size_t empty = 0;
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        char why[160] = "";
        size_t used = 0;
        if (r->nsamples)
            continue;
        empty++;
        for (int k = 0; k < SB_REJECT_NREASONS; k++)
            if (r->rejected[k] && used < sizeof why)
                used += (size_t)snprintf(why + used, sizeof why - used,
                                         "%s%s %zu", used ? ", " : "",
                                         sb_reject_name(k), r->rejected[k]);
        /* Rejected for a busy CPU or core, which the run could neither
         * dodge nor count (record.c keeps the waits it can): what the
         * machine did, and what to do about it. */
        if (r->rejected_total && !r->rejected[SB_REJECT_KERNEL_FAILED] &&
            2 * (r->rejected[SB_REJECT_CPU_WAIT] +
                 r->rejected[SB_REJECT_SHARED_CORE]) >= r->rejected_total)
            say("%s, %zu bytes, offsets %zu/%zu: the machine is too busy "
                "for this cell: all %zu samples taken were rejected (%s): "
                "measure it where no other task shares its CPU or core "
                "(--cpu), or keep them with --reject none",
                r->cell.kernel->name, r->cell.size, r->cell.src_align,
                r->cell.dst_align, r->rejected_total, why);
        else if (r->rejected_total)
            say("%s, %zu bytes, offsets %zu/%zu: no valid sample: all %zu "
                "taken were rejected (%s)",
                r->cell.kernel->name, r->cell.size, r->cell.src_align,
                r->cell.dst_align, r->rejected_total, why);
        else
            say("%s, %zu bytes, offsets %zu/%zu: no sample taken before "
                "the run stopped (after %.1f s)",
                r->cell.kernel->name, r->cell.size, r->cell.src_align,
                r->cell.dst_align, sb_run_elapsed(run));
    }
    return empty;
}

/* --baseline KERNEL or align=N: every cell compared with that cell of the
 * run, by the library's matcher, the one compare uses. */
static void set_baselines(sb_run *run, const char *spec)
{
    int by_align = !strncmp(spec, "align=", 6);
    uint64_t align = 0;
    size_t matched = 0;
    sb_error err = {0};
    char msg[200];

    if (by_align &&
        cli_parse_value(spec + 6, CLI_INT, &align, msg, sizeof msg) != 0)
        die_usage("--baseline %s", msg);
    if (sb_run_baseline_by(run, by_align ? NULL : spec, (size_t)align,
                           &matched, &err) != SB_OK)
        fprintf(stderr, "%s: %s\n", progname, err.text);
    else if (matched == 0)
        die_usage("--baseline '%s': no measured cell matches (a kernel of "
                  "--kernel, or align=N of --align)", spec);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A value listed twice (directly or through overlapping ranges) would be
 * measured twice as separate cells: refuse it, naming it. */
static void refuse_repeats(const char *option, const char *text,
                           const uint64_t *v, size_t n)
{
    uint64_t *s = malloc((n ? n : 1) * sizeof *s);

    if (!s) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (s[i] == s[i - 1]) {
            unsigned long long twice = s[i];
            free(s); /* before exiting: a leak checker sees no leak */
            die_usage("%s '%.200s': %llu is listed twice", option, text,
                      twice);
        }
    free(s);
}

/* The cells of one kernel: every size, destination and source offset,
 * source offsets innermost (an alignment sweep reads down the table).
 * asz, when not 0, replaces the default size for alloc kernels.  A kernel
 * that makes its own memory (SB_KERNEL_OWN_MEMORY) has no offsets. */
static void add_kernel_cells(sb_plan *plan, const sb_kernel *k,
                             const uint64_t *sz, size_t nsz, uint64_t asz,
                             const uint64_t *al, size_t nal,
                             const uint64_t *dal, size_t ndal)
{
    sb_error err = {0};
    int alloc = (k->flags & SB_KERNEL_OWN_MEMORY) != 0;

    for (size_t i = 0; i < (alloc && asz ? 1 : nsz); i++)
        for (size_t j = 0; j < (alloc ? 1 : ndal); j++)
            for (size_t a = 0; a < (alloc ? 1 : nal); a++)
                if (sb_plan_add(plan, k,
                                (size_t)(alloc && asz ? asz : sz[i]),
                                alloc ? 0 : (size_t)al[a],
                                alloc ? 0 : (size_t)dal[j], &err) != SB_OK)
                    die_usage("%s", err.text);
}

/* The values of --size, --align and --dst-align, checked. */
struct lists {
    uint64_t *sz, *al, *dal, asz; /* asz: alloc kernels' size, or 0 */
    size_t nsz, nal, ndal;
};

static void parse_lists(const struct cli *cli, struct lists *l)
{
    char msg[256], defsize[32];
    const char *sizes = cli->sizes ? cli->sizes : defsize;

    snprintf(defsize, sizeof defsize, "%d", DEFAULT_SIZE);
    if (cli_parse_list(sizes, CLI_SIZE, &l->sz, &l->nsz, msg, sizeof msg))
        die_usage("--size %s", msg);
    if (!cli->sizes)
        l->asz = DEFAULT_ALLOC_SIZE; /* alloc kernels: the threads' 16 MiB */
    if (cli_parse_list(cli->aligns, CLI_INT, &l->al, &l->nal, msg,
                       sizeof msg))
        die_usage("--align %s", msg);
    if (cli_parse_list(cli->dst_aligns, CLI_INT, &l->dal, &l->ndal, msg,
                       sizeof msg))
        die_usage("--dst-align %s", msg);
    for (size_t i = 0; i < l->nal; i++)
        if (l->al[i] >= 4096)
            die_usage("--align %s: offset %llu must be below the page size "
                      "4096", cli->aligns, (unsigned long long)l->al[i]);
    for (size_t i = 0; i < l->ndal; i++)
        if (l->dal[i] >= 4096)
            die_usage("--dst-align %s: offset %llu must be below the page "
                      "size 4096", cli->dst_aligns,
                      (unsigned long long)l->dal[i]);
    refuse_repeats("--size", sizes, l->sz, l->nsz);
    refuse_repeats("--align", cli->aligns, l->al, l->nal);
    refuse_repeats("--dst-align", cli->dst_aligns, l->dal, l->ndal);
    for (size_t i = 0; i < l->nsz; i++)
        if (l->sz[i] > SIZE_MAX / 4)
            die_usage("--size %s: %llu is too large for memory", cli->sizes,
                      (unsigned long long)l->sz[i]);
}

/* The families of --family, as bits (1u << SB_FAMILY_*). */
static unsigned parse_families(const char *families)
{
    char *fc = strdup(families), *fs = NULL, *fn;
    unsigned fams = 0;

    if (!fc) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    for (fn = strtok_r(fc, ",", &fs); fn; fn = strtok_r(NULL, ",", &fs)) {
        int f = sb_family_parse(fn);
        if (f < 0 || f >= SB_FAMILY_EXTERNAL) {
            char bad[256];
            snprintf(bad, sizeof bad, "%s", fn);
            free(fc); /* before exiting: a leak checker sees no leak */
            die_usage("--family '%s': unknown family (use copy, clear, "
                      "alloc or syscall)", bad);
        }
        /* One rule for lists: an item named twice is refused, as in
         * --kernel (a slip, never a request for two of it). */
        if (fams & (1u << f)) {
            char bad[256];
            snprintf(bad, sizeof bad, "%s", fn);
            free(fc);
            die_usage("--family '%s': %s is listed twice", families, bad);
        }
        fams |= 1u << f;
    }
    free(fc);
    if (!fams)
        die_usage("--family '%s': no family named", families);
    return fams;
}

static void add_kernel(sb_plan *plan, const sb_kernel *k,
                       const struct lists *l)
{
    add_kernel_cells(plan, k, l->sz, l->nsz, l->asz, l->al, l->nal, l->dal,
                     l->ndal);
}

/* The kernels of --kernel, each once, but for those --family added. */
static void add_named_kernels(sb_plan *plan, const struct cli *cli,
                              unsigned fams, const struct lists *l)
{
    char *copy = strdup(cli->kernels), *save = NULL, *name;
    unsigned char *seen = calloc(sb_kernel_count() ? sb_kernel_count() : 1, 1);
    int had_all = 0;

    if (!copy || !seen) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' ||
        strstr(copy, ",,")) {
        free(seen);
        free(copy);
        die_usage("--kernel '%s': empty kernel name", cli->kernels);
    }
    for (name = strtok_r(copy, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        size_t first = 0, last = 0;
        int all = !strcmp(name, "all");
        had_all |= all;
        if (all) {
            last = sb_kernel_count();
        } else {
            const sb_kernel *k = sb_kernel_find(name);
            if (!k) {
                char bad[256];
                snprintf(bad, sizeof bad, "%s", name);
                free(seen); /* before exiting: a leak checker sees none */
                free(copy);
                die_usage("--kernel '%s': unknown kernel (see %s --list)",
                          bad, progname);
            }
            while (sb_kernel_at(first) != k)
                first++;
            last = first + 1;
        }
        for (size_t ki = first; ki < last; ki++) {
            const sb_kernel *k = sb_kernel_at(ki);
            if (all && !sb_kernel_available(k, NULL))
                continue;
            if (seen[ki]) {
                free(seen); /* before exiting: a leak checker sees none */
                free(copy);
                die_usage(had_all ? "--kernel '%.200s': %s is listed twice "
                                    "(all includes every available kernel)"
                                  : "--kernel '%.200s': %s is listed twice",
                          cli->kernels, k->name);
            }
            seen[ki] = 1;
            if (!(fams & (1u << k->family))) /* else added by --family */
                add_kernel(plan, k, l);
        }
    }
    free(seen);
    free(copy);
}

/* What cmd_measure holds while bad input may still end the process
 * (die_usage exits from inside the checks): kept in static storage, so
 * that at such an exit it is reachable memory rather than lost, whatever
 * the compiler keeps in registers (valgrind.sh fails a definite leak).
 * Volatile: stores to a static nothing reads are otherwise dropped. */
static struct {
    sb_plan *volatile plan;
    sb_run *volatile against, *volatile prior;
    sb_kernel *volatile loaded[MAX_KERNEL_FROM];
} held;

/* One --kernel-from SPEC, PATH:SYMBOL[=NAME][:clear], taken apart: a
 * trailing :clear or :copy is the family when a ':' is still left before
 * it (so PATH:clear is the symbol clear), the last ':' then splits PATH
 * from SYMBOL, and a '=' after it starts NAME.  Pieces are new strings
 * in *buf (one allocation, the caller's to free). */
struct kernel_spec {
    char *buf, *path, *symbol, *name; /* name NULL: none given */
    int family;
};

/* The spec as messages show it: cut, its control characters '?'. */
static void spec_shown(const char *spec, char *out, size_t len)
{
    snprintf(out, len, "%.200s%s", spec, strlen(spec) > 200 ? "..." : "");
    sb__clean_text(out);
}

static void parse_kernel_spec(const char *spec, struct kernel_spec *k)
{
    char shown[256], *colon, *eq;
    size_t len;

    spec_shown(spec, shown, sizeof shown);
    k->family = SB_FAMILY_COPY;
    k->buf = strdup(spec);
    if (!k->buf) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    len = strlen(k->buf);
    for (int f = SB_FAMILY_COPY; f <= SB_FAMILY_CLEAR; f++) {
        const char *fam = sb_family_name(f);
        size_t fl = strlen(fam);
        if (len > fl + 1 && k->buf[len - fl - 1] == ':' &&
            !strcmp(k->buf + len - fl, fam)) {
            k->buf[len - fl - 1] = '\0';
            if (strchr(k->buf, ':')) {
                k->family = f;
                break;
            }
            k->buf[len - fl - 1] = ':'; /* PATH:clear: the symbol clear */
        }
    }
    colon = strrchr(k->buf, ':');
    if (!colon || colon == k->buf || !colon[1]) {
        const char *why = !colon            ? "no ':' before the symbol"
                          : colon == k->buf ? "no path before the ':'"
                                            : "no symbol after the last ':'";
        free(k->buf);
        die_usage("--kernel-from '%s': use PATH:SYMBOL[=NAME][:clear] (%s)",
                  shown, why);
    }
    *colon = '\0';
    k->path = k->buf;
    k->symbol = colon + 1;
    k->name = NULL;
    if ((eq = strchr(k->symbol, '='))) {
        *eq = '\0';
        k->name = eq + 1;
        if (!*k->name || !*k->symbol) {
            const char *why = *k->symbol ? "an empty NAME after '='"
                                         : "no symbol before '='";
            free(k->buf);
            die_usage("--kernel-from '%s': %s", shown, why);
        }
    }
}

/* Every --kernel-from loaded, before anything is measured: a spec that
 * cannot be loaded is one line and exit 2.  Two specs of one SYMBOL and
 * no NAME would be two rows of one name: refused, asking for names. */
static void load_kernels(const struct cli *cli)
{
    struct kernel_spec spec[MAX_KERNEL_FROM];

    for (int i = 0; i < cli->nkernel_from; i++) {
        char shown[256];
        const char *name;
        sb_error err = {0};
        sb_kernel *k = NULL;

        spec_shown(cli->kernel_from[i], shown, sizeof shown);
        parse_kernel_spec(cli->kernel_from[i], &spec[i]);
        name = spec[i].name ? spec[i].name : spec[i].symbol;
        for (int j = 0; j < i; j++) {
            const char *other = spec[j].name ? spec[j].name : spec[j].symbol;
            char sym[160];
            if (strcmp(name, other))
                continue;
            snprintf(sym, sizeof sym, "%.150s", name);
            sb__clean_text(sym);
            for (int q = 0; q <= i; q++)
                free(spec[q].buf);
            if (!spec[i].name && !spec[j].name)
                die_usage("--kernel-from '%s': the symbol %s is given twice "
                          "without a name: name them, e.g. "
                          "PATH:%s=old and PATH:%s=new",
                          shown, sym, sym, sym);
            die_usage("--kernel-from '%s': the name %s is given twice", shown,
                      sym);
        }
        if (sb_kernel_load_new(spec[i].path, spec[i].symbol, spec[i].name,
                               spec[i].family, &k, &err) != SB_OK) {
            for (int q = 0; q <= i; q++)
                free(spec[q].buf);
            if (err.code == SB_ENOMEM) {
                say("%s", err.text);
                exit(1);
            }
            if (err.code == SB_ESYS) {
                say("--kernel-from '%s': %s", shown, err.text);
                exit(1);
            }
            die_usage("--kernel-from '%s': %s", shown, err.text);
        }
        if (sb_kernel_loaded(k)->warning[0])
            say("warning: --kernel-from: %s", sb_kernel_loaded(k)->warning);
        held.loaded[i] = k;
    }
    for (int i = 0; i < cli->nkernel_from; i++)
        free(spec[i].buf);
}

/* Each loaded kernel checked byte for byte on its cells of the plan: a
 * wrong kernel's speed means nothing. */
static void verify_loaded(const sb_plan *plan, const struct cli *cli)
{
    for (int i = 0; i < cli->nkernel_from; i++) {
        sb_error err = {0};
        char shown[256];
        if (sb_kernel_verify(held.loaded[i], plan, &err) == SB_OK)
            continue;
        spec_shown(cli->kernel_from[i], shown, sizeof shown);
        if (err.code != SB_EINVAL) {
            say("--kernel-from '%s': %s", shown, err.text);
            exit(1);
        }
        die_usage("--kernel-from '%s': refused: %s", shown, err.text);
    }
}

static void free_loaded(const struct cli *cli)
{
    for (int i = 0; i < cli->nkernel_from; i++) {
        sb_kernel_load_free(held.loaded[i]);
        held.loaded[i] = NULL;
    }
}

static void add_cells(sb_plan *plan, const struct cli *cli)
{
    struct lists l = {0};
    unsigned fams;

    parse_lists(cli, &l);
    fams = cli->families ? parse_families(cli->families) : 0;
    for (size_t ki = 0; ki < sb_kernel_count(); ki++) {
        const sb_kernel *k = sb_kernel_at(ki);
        if ((fams & (1u << k->family)) && sb_kernel_available(k, NULL))
            add_kernel(plan, k, &l);
    }
    /* --family or --kernel-from alone measures its kernels; with
     * --kernel, both. */
    if ((!cli->families && !cli->nkernel_from) || cli->kernel_given)
        add_named_kernels(plan, cli, fams, &l);
    for (int i = 0; i < cli->nkernel_from; i++)
        add_kernel(plan, held.loaded[i], &l);
    free(l.sz);
    free(l.al);
    free(l.dal);
}

/* A baseline spec must name something the plan measures; checked before
 * measuring so that a typo costs no time. */
static void check_baseline(const sb_plan *plan, const char *spec)
{
    uint64_t align;
    char msg[200];
    int by_align = !strncmp(spec, "align=", 6);

    if (by_align &&
        cli_parse_value(spec + 6, CLI_INT, &align, msg, sizeof msg) != 0)
        die_usage("--baseline %s", msg);
    for (size_t i = 0; i < sb_plan_count(plan); i++) {
        const sb_cell *c = sb_plan_cell(plan, i);
        if (by_align ? c->src_align == align
                     : !strcmp(c->kernel->name, spec))
            return;
    }
    die_usage("--baseline '%s': no measured cell matches (a kernel of "
              "--kernel, or align=N of --align)", spec);
}

/* --against, and --append's baseline, must share a cell with the plan
 * (the library's matcher, as compare needs its two runs to): checked
 * before measuring, so that it costs no time, and with compare's exit
 * status 2. */
static void check_against(const sb_plan *plan, const sb_run *base,
                          const char *opt, const char *name)
{
    for (size_t i = 0; i < sb_plan_count(plan); i++)
        for (size_t j = 0; j < sb_run_count(base); j++)
            if (sb_cell_same(sb_plan_cell(plan, i),
                             &sb_run_cell(base, j)->cell))
                return;
    die_usage("%s %s: no cell in common with this run (same kernel, size "
              "and offsets)", opt, name);
}

/* Measure the plan, the stop signals caught; NULL and an exit status in
 * *status when the run could not be made. */
static sb_run *measure(const sb_plan *plan, struct cli *cli, int *status)
{
    sb_run *run = NULL;
    sb_error err = {0};

    if (!cli->quiet && isatty(STDERR_FILENO)) {
        cli->mopt.progress_state = progress;
        cli->mopt.progress_arg = NULL;
        void *shared = mmap(NULL, sizeof *progp, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared != MAP_FAILED)
            progp = shared;
        progress_start(progp, wall_now());
        progp->max_time = cli->mopt.max_time;
        progp->precision = cli->aopt.precision;
        progp->min_samples = cli->mopt.min_samples;
        progp->max_samples = cli->mopt.max_samples;
        progp->cells = sb_plan_count(plan);
        progp->invocations = cli->mopt.invocations;
        progp->max_invocations = cli->mopt.max_invocations;
    }
    cli_share_signals();
    cli_catch_signals();
    if (sb_run_execute_new(plan, &cli->mopt, &cli->aopt, &run, &err) !=
        SB_OK) {
        int sig = cli_stop_signal();
        say("%s", err.text);
        /* Interrupted before any invocation delivered a sample: still
         * the status of an interruption, as the exit status promises. */
        if (err.code == SB_EINTR && sig)
            *status = cli_signal_status(sig);
        else
            *status = err.code == SB_EINVAL || err.code == SB_EUNAVAIL
                          ? EXIT_USAGE
                          : 1;
        return NULL;
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* Kept caught: after a hang-up the outputs and the save still go
     * out (a terminal gone fails the table, not the files). */
    if (cli->mopt.progress_state)
        progress_line(NULL);
    cli_record_command(run, cli);
    return run;
}

/* --against as a gate (cli_gate.c, the one gate of ab too): status 1
 * when a cell is slower than its baseline beyond the threshold, with
 * significance, or cannot be compared; EXIT_UNDECIDED when a cell is
 * inconclusive past the threshold under --inconclusive fail (the
 * default; sb_gate_judge).  Each failing or warned cell gets the gate's
 * line (ratio, threshold, smallest detectable change, where the baseline
 * came from); a passing one too, without -q. */
static int gate(const sb_run *run, const sb_run *against, const char *name,
                const struct cli *cli, int status)
{
    const sb_meta *m = sb_run_meta(against);
    const sb_analysis_options *o = sb_run_analysis_options(run);
    char from[400], versus[300], advice[400];
    struct cli_gate g = {.subject = "this run"};
    sb_gate_tally t = {.size = sizeof t};

    snprintf(from, sizeof from, "saved baseline '%s', measured %s on %s",
             name, m->start_time[0] ? m->start_time : "at an unknown time",
             m->hostname[0] ? m->hostname : "an unknown host");
    snprintf(versus, sizeof versus, "baseline '%s'", name);
    /* Two moments compare two hosts as much as two builds: where the
     * baseline is a build that can be kept, one run of both decides what
     * a second run against a saved one cannot. */
    if (sb_run_runs(against) >= 2 || o->run_sd >= 0)
        snprintf(advice, sizeof advice,
                 "more runs in the baseline (--save NAME --append), more "
                 "--max-time, a larger --threshold, --inconclusive warn, or "
                 "both builds in one run: statbench ab");
    else
        snprintf(advice, sizeof advice,
                 "a baseline of several runs, whose spread replaces the %g%% "
                 "run-to-run sd assumed for one (--save NAME --append, or "
                 "--run-sd PCT), more --max-time, a larger --threshold, "
                 "--inconclusive warn, or both builds in one run: "
                 "statbench ab",
                 100 * SB_RUN_SD_ASSUMED);
    g.from = from;
    g.versus = versus;
    g.advice = advice;
    cli_gate_cells(run, &g, cli->quiet, &t);
    return cli_gate_status(&t, &g, status);
}

/* The comparison --against or --baseline asks for; 1 when --against
 * shares no cell with the run. */
static int compare_run(sb_run *run, const sb_run *against,
                       const struct cli *cli)
{
    sb_error err = {0};
    size_t matched = 0;

    if (against) {
        if (sb_run_compare_to(run, against, &matched, &err) != SB_OK) {
            fprintf(stderr, "%s: %s\n", progname, err.text);
        } else if (matched == 0) {
            say("--against %s: no cell in common (same kernel, size and "
                "offsets)", cli->against);
            return 1;
        }
        cli_warn_two_runs(against, cli->against, run, "this run");
    } else if (cli->baseline) {
        set_baselines(run, cli->baseline);
    }
    return 0;
}

/* The host profile's directory, checked before measuring: this host's
 * profiles are read as a load reads them, so that a hostile file stops
 * the run before it costs its time.  dir "" when the profile is off
 * (--no-profile, STATBENCH_NO_PROFILE). */
static void profile_check(struct cli *cli, char *dir, size_t len)
{
    char why[256];
    sb_profile_key host = {.size = sizeof host};
    sb_profile *p = NULL;
    sb_profile_summary sum = {.size = sizeof sum};
    sb_error err = {0};
    size_t n;
    int rc;

    dir[0] = '\0';
    if (cli->no_profile)
        return;
    rc = cli_profile_dir(dir, len, why, sizeof why);
    if (rc > 0) {
        dir[0] = '\0';
        return;
    }
    if (rc < 0)
        die_usage("%s", why);
    if (sb_profile_key_this_host(&host, &err) != SB_OK ||
        sb_profile_find(dir, &host, NULL, 0, &n, &err) != SB_OK)
        die_usage("%s (remove it, or give --no-profile)", err.text);
    /* The core's quiet probe level, where the profile has one: every
     * invocation's quiet model starts from it (quiet_prior). */
    if (sb_profile_load(dir, &host, &p, &err) != SB_OK)
        die_usage("%s (remove it, or give --no-profile)", err.text);
    rc = sb_profile_summarize(p, &sum, &err);
    sb_profile_free(p);
    if (rc != SB_OK)
        die_usage("%s", err.text);
    if (isfinite(sum.quiet.level) && sum.quiet.level > 0)
        cli->mopt.quiet_prior = sum.quiet.level;
}

/* The run judged against its host's profile and the verdict recorded in
 * it: the header's line, the JSON's fields, and a shared run's verdicts
 * inconclusive (sb_run_set_profile).  0, or EXIT_USAGE when the profile
 * file is refused (then dir is cleared: it is not updated either). */
static int profile_judge(sb_run *run, char *dir, const struct cli *cli,
                         sb_profile_figures *f)
{
    sb_profile_key key = {.size = sizeof key};
    sb_profile *p = NULL;
    sb_profile_judgement j = {.size = sizeof j};
    sb_error err = {0};
    int rc;

    if (!dir[0])
        return 0;
    f->size = sizeof *f;
    if (sb_profile_key_from_meta(sb_run_meta(run), &key, &err) != SB_OK ||
        sb_profile_figures_from_meta(sb_run_meta(run), f, &err) != SB_OK ||
        sb_profile_load(dir, &key, &p, &err) != SB_OK) {
        say("%s (remove it, or give --no-profile)", err.text);
        dir[0] = '\0';
        return EXIT_USAGE;
    }
    rc = sb_profile_judge(p, f, &j, &err);
    sb_profile_free(p);
    if (rc != SB_OK) {
        say("%s", err.text);
        dir[0] = '\0';
        return EXIT_USAGE;
    }
    sb_run_set_profile(run, &j, NULL);
    /* The table's header says it; any other output to stdout, a line
     * here, so that a shared core's speed never passes unremarked. */
    if (j.state == SB_PROFILE_SHARED && cli->format != SB_FORMAT_TABLE)
        say("%s", j.line);
    return 0;
}

/* The run's figures given to the profile (a shared run's count towards a
 * move and are never kept as the core's), unless the run was
 * interrupted: figures of a few samples are not the core's quiet ones.
 * 0, or 1 when the file could not be written. */
static int profile_update(const sb_run *run, const char *dir,
                          const sb_profile_figures *f)
{
    sb_profile_key key = {.size = sizeof key};
    sb_error err = {0};
    char note[256];

    if (!dir[0] || sb_run_interrupted(run))
        return 0;
    if (sb_profile_key_from_meta(sb_run_meta(run), &key, &err) != SB_OK ||
        sb_profile_add(dir, &key, f, NULL, note, sizeof note, &err) !=
            SB_OK) {
        say("%s", err.text);
        return 1;
    }
    if (strstr(note, "moved") || strstr(note, "dropped"))
        say("host profile: %s", note);
    return 0;
}

/* The exit status of an interrupted run. */
static int interrupted(const sb_run *run, int status)
{
    if (!sb_run_interrupted(run))
        return status;
    if (!cli_own_signal() && *sb_run_partial(run)) {
        /* Not a request to stop: an invocation died.  A failure. */
        say("%s: partial results above", sb_run_partial(run));
        return 1;
    }
    fprintf(stderr, "%s: interrupted: partial results above\n", progname);
    /* The signal this process got, else the one a forked invocation
     * got. */
    return cli_signal_status(cli_stop_signal());
}

int cmd_measure(int argc, char **argv, struct cli *cli)
{
    sb_plan *plan = held.plan = sb_plan_new();
    sb_run *run, *against = held.against = cli_load_against(cli);
    /* --append's baseline, read (and refused if hostile) before the
     * run costs its time. */
    sb_run *prior = held.prior = cli->save_append
                                     ? cli_load_saved(cli->save, "--append", 1)
                                     : NULL;
    sb_error err = {0};
    sb_profile_figures figures = {.size = sizeof figures};
    char profile_dir[4000];
    int status = 1, no_common, profile_status;
    size_t empty;

    if (cli->ab_symbol && !cli->ab)
        die_usage("--symbol %s: an option of %s ab OLD.so NEW.so",
                  cli->ab_symbol, progname);
    if (optind < argc)
        die_usage("unexpected argument '%s' (see %s --help)", argv[optind],
                  progname);
    cli_ensure_stack(1);
    if (!plan) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return 1;
    }
    load_kernels(cli);
    add_cells(plan, cli);
    if (cli->baseline)
        check_baseline(plan, cli->baseline);
    if (against)
        check_against(plan, against, "--against", cli->against);
    if (prior)
        check_against(plan, prior, "--append", cli->save);
    cli_decide_like_run(cli, prior, "--append", cli->save);
    if (sb_analysis_options_check(&cli->aopt, &err) != SB_OK ||
        sb_plan_check(plan, &cli->mopt, &err) != SB_OK)
        die_usage("%s", err.text);
    verify_loaded(plan, cli);
    profile_check(cli, profile_dir, sizeof profile_dir);
    if (!(run = measure(plan, cli, &status))) {
        sb_run_free(against);
        sb_run_free(prior);
        sb_plan_free(plan);
        free_loaded(cli);
        return status;
    }
    profile_status = profile_judge(run, profile_dir, cli, &figures);
    no_common = compare_run(run, against, cli);
    status = cli_emit(run, cli);
    /* A cell without samples is no result, nor a baseline to keep. */
    empty = report_empty_cells(run);
    if (empty && status == 0)
        status = 1;
    if (cli->save)
        status = cli_save_baseline(run, prior, cli, empty, status);
    sb_run_free(prior);
    /* Before the gate: a baseline with no cell in common is bad input,
     * as with compare, not a gate that judged nothing. */
    if (no_common && status == 0)
        status = EXIT_USAGE;
    if (cli->ab)
        status = cli_ab_gate(run, cli, status);
    if (against) {
        status = gate(run, against, cli->against, cli, status);
        sb_run_free(against);
    }
    if (profile_update(run, profile_dir, &figures) && status == 0)
        status = 1;
    if (profile_status && status == 0)
        status = profile_status;
    status = interrupted(run, status);
    sb_run_free(run);
    sb_plan_free(plan);
    free_loaded(cli);
    return status;
}
