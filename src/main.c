/*
 * main.c: the statbench command.
 *
 *   statbench --kernel movsl --align 0..32 --ci 95
 *
 * Parses the options into a plan and run options, measures through the
 * library, and writes the table (and, with --format/-o, CSV or JSON).
 * Exit status: 0 success, 1 a run or output failure, 2 bad input,
 * 130 or 143 when interrupted by SIGINT or SIGTERM (partial results are
 * still written).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_parse.h"
#include "statbench.h"
#include "text.h"

#define DEFAULT_SIZE 10240
#define MAX_OUTPUTS 8
#define DEFAULT_ALLOC_SIZE (16u << 20)
#define EXIT_USAGE 2

static const char *progname = "statbench";

static void usage(FILE *f)
{
    fprintf(f,
"Usage: statbench [OPTION]...\n"
"Measure memory kernels with serialized TSC reads and report each cell's\n"
"median throughput with a distribution-free confidence interval.\n"
"\n"
"  statbench --kernel movsl --align 0..32 --ci 95\n"
"\n"
"What to measure:\n"
"  -k, --kernel LIST      kernels, comma-separated, or 'all' (default movsl);\n"
"                         see --list\n"
"      --family LIST      every available kernel of these families: copy,\n"
"                         clear, alloc, syscall\n"
"  -s, --size LIST        bytes per call (default %d: the size of the\n"
"                         threads' cptimer runs; source and destination\n"
"                         together fit in the L1 data cache, so a hot-cache\n"
"                         sweep measures the copy itself, not DRAM; alloc\n"
"                         kernels default to 16M, the threads' mmap size)\n"
"  -a, --align LIST       source offset from a page boundary, 0..4095\n"
"                         (default 0); the destination stays page-aligned\n"
"      --dst-align LIST   destination offset from a page boundary (default 0);\n"
"                         with several source and destination offsets the\n"
"                         table is a matrix per kernel and size\n"
"      --cache hot|cold   hot: buffers in the cache (an untimed call before\n"
"                         each sample); cold: every line of both buffers\n"
"                         flushed (clflush) before each timed call\n"
"                         (default hot)\n"
"  LIST is comma-separated values and ranges: 0..32, 0..64:8, 512..16M:*2.\n"
"  Sizes take K, M, G suffixes (K = 1024).\n"
"\n"
"How to measure:\n"
"      --ci LEVEL         confidence level in percent, in (0, 100) (default 95)\n"
"      --precision PCT    stop when every cell's CI half-width is within PCT\n"
"                         percent of its median (default 1); 0: no target,\n"
"                         measure until --max-time, --max-samples or a stop\n"
"                         (exactly --invocations invocations)\n"
"      --max-time SEC     time budget of the whole run, setup and warm-up\n"
"                         included (default 30); a plan that cannot fit is\n"
"                         refused with the time it needs\n"
"      --min-samples N    samples per cell before the stop rule (default 100)\n"
"      --max-samples N    samples per cell at most (default 10000)\n"
"      --sample-us US     target length of one sample in microseconds\n"
"                         (default 50)\n"
"      --seed N           seed of the random cell order (default 1)\n"
"      --cpu N            CPU to pin to (default: the last allowed CPU)\n"
"      --no-pin           do not pin\n"
"      --timer tsc|clock  timer (default tsc where invariant, else clock)\n"
"      --counters LIST    counters read around every sample: PAPI preset or\n"
"                         native names and perf::CONTEXT-SWITCHES,\n"
"                         perf::CPU-MIGRATIONS, perf::PAGE-FAULTS; 'list'\n"
"                         shows what this machine offers (default: cycles,\n"
"                         instructions, L1/L2 data-cache and data-TLB misses\n"
"                         where the hardware has them, and the three\n"
"                         software events)\n"
"      --reject POLICY    disturbed (default: reject samples with a context\n"
"                         switch, CPU migration or interrupt on the pinned\n"
"                         CPU) or none (keep them; still counted)\n"
"      --rt               SCHED_FIFO while measuring (needs the privilege;\n"
"                         without it a note, and the run goes on)\n"
"      --no-mlock         do not lock the buffers in memory (mlockall)\n"
"      --invocations N    fresh processes measuring the whole plan, each\n"
"                         with MAX-TIME / N (default 6: the interval then\n"
"                         holds the variation between processes)\n"
"      --max-invocations M  more invocations while time remains and a\n"
"                         cell misses the precision target (default 100)\n"
"\n"
"Statistics:\n"
"      --outliers POLICY  keep, reject-severe (beyond 3 IQR) or reject-all\n"
"                         (beyond 1.5 IQR) Tukey outliers (default keep)\n"
"      --bootstrap N      median CI of a single invocation by BCa bootstrap\n"
"                         with N resamples (default 0: order statistics)\n"
"      --baseline B       compare every row with a baseline: a kernel name\n"
"                         (the same cell of that kernel) or align=N (the\n"
"                         same kernel at source offset N)\n"
"      --threshold PCT    practical threshold of verdicts (default 1)\n"
"      --alpha A          significance level of verdicts (default 0.05)\n"
"\n"
"Subcommands:\n"
"  statbench check-env [--cpu N]     audit this machine for noise sources,\n"
"                                    with advice for each finding\n"
"  statbench noise [--max-time SEC]  measure this machine's timing jitter,\n"
"                                    interrupt rate and between-process\n"
"                                    variation (default 10 s), and the\n"
"                                    smallest change a time budget detects\n"
"  statbench compare A.json B.json   compare two saved runs cell by cell\n"
"                                    (B against A)\n"
"  statbench report RUN.json         re-render a saved run (--format, -o)\n"
"  statbench analyze FILE [FILE2]    statistics of plain files of numbers,\n"
"                                    one per line; FILE2 is compared with\n"
"                                    FILE\n"
"\n"
"Output:\n"
"  -f, --format FMT       table, csv, json, markdown or latex (default table)\n"
"  -o, --output FILE      write to FILE, in the format its ending names (.json,\n"
"                         .csv, .tex, .md, .txt) or else FMT; may be given up\n"
"                         to 8 times; the table still goes to stdout\n"
"  -q, --quiet            no progress line on stderr\n"
"      --plot FILE        a figure with gnuplot: FILE.svg, .pdf or .png (the\n"
"                         .gp script and .dat data are written beside it)\n"
"      --plot-kind KIND   auto, sweep, matrix, sizes or distribution\n"
"                         (default auto: from the run's shape)\n"
"      --save NAME        keep the run as baseline NAME (JSON under\n"
"                         $STATBENCH_BASELINES or ~/.local/share/statbench)\n"
"      --against NAME     compare every cell with baseline NAME; exit status\n"
"                         1 when a cell is slower with significance and by\n"
"                         more than --threshold, or cannot be compared (a\n"
"                         CI gate)\n"
"  -l, --list             list the kernels and whether this CPU runs them\n"
"  -h, --help             this help\n"
"  -V, --version          version\n"
"\n"
"Throughput is in MB/s with 1 MB = 10^6 bytes.  Exit status: 0 success,\n"
"1 failure (or, with --against, a cell slower than its baseline), 2 bad\n"
"input, 130/143 interrupted (partial results written).\n",
            DEFAULT_SIZE);
}

/* One line naming the bad value, then exit 2. */
/* One line naming the bad value, then exit 2.  Control characters in the
 * user's text are shown as '?', so the message stays one line. */
static void die_usage(const char *fmt, const char *a, const char *b)
{
    char line[1024];
    snprintf(line, sizeof line, fmt, a, b);
    sb__clean_text(line);
    fprintf(stderr, "%s: %s\n", progname, line);
    exit(EXIT_USAGE);
}

/* One message line on stderr, "statbench: ...": the file names and
 * values it quotes have their control characters as '?' (sb__clean_text),
 * so a hostile name cannot reach the terminal as an escape sequence. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void say(const char *fmt, ...)
{
    char line[8192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sb__clean_text(line);
    fprintf(stderr, "%s: %s\n", progname, line);
}

static int list_kernels(void)
{
    printf("%-13s %-7s %-24s %s\n", "kernel", "family", "available",
           "description");
    for (size_t i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL;
        char avail[64];
        if (sb_kernel_available(k, &why))
            snprintf(avail, sizeof avail, "yes");
        else
            snprintf(avail, sizeof avail, "no (%s)", why ? why : "?");
        printf("%-13s %-7s %-24s %s\n", k->name, sb_family_name(k->family),
               avail, k->description);
    }
    return ferror(stdout) ? 1 : 0;
}

static int list_counters(void)
{
    char names[SB_MAX_COUNTERS * 2][64], why[SB_MAX_COUNTERS * 2][96];
    size_t n = sb_counters_available(names, why, SB_MAX_COUNTERS * 2);

    if (n > SB_MAX_COUNTERS * 2)
        n = SB_MAX_COUNTERS * 2;
    printf("%-24s %s\n", "counter", "on this machine");
    for (size_t i = 0; i < n; i++)
        printf("%-24s %s\n", names[i], why[i][0] ? why[i] : "available");
    printf("\nAny other PAPI preset or native event name may be given to "
           "--counters;\none this machine lacks is reported missing in the "
           "run's header.\n");
    return ferror(stdout) ? 1 : 0;
}

static volatile sig_atomic_t got_signal;

/* The first signal any process of the run got.  The forked invocations
 * inherit on_signal, and their stop request ends the run in every process,
 * so a SIGTERM sent to a child alone must reach the parent's exit status:
 * cmd_measure() maps this to shared memory. */
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

static int progress(void *arg, size_t round, double elapsed)
{
    (void)arg;
    fprintf(stderr, "\r%s: round %zu, %.1f s ", progname, round, elapsed);
    return 0;
}

static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* One line for a failed write: the system's reason when there is one
 * (ENOSPC of /dev/full), else the library's. */
static int write_failed(const char *path, int saved_errno, const sb_error *err)
{
    say("%s: writing failed: %s", path,
        saved_errno ? strerror(saved_errno)
        : err->text[0] ? err->text : "error");
    return -1;
}

/* The report into a stream we keep open (our standard output or error). */
static int write_stream(const sb_run *run, int format, const char *path,
                        FILE *f)
{
    sb_error err = {0};
    int rc;

    fflush(stdout);
    errno = 0;
    rc = sb_report(run, format, f, &err);
    if (rc == SB_OK && fflush(f) != 0)
        rc = SB_EIO;
    return rc == SB_OK ? 0 : write_failed(path, errno, &err);
}

/* A FIFO, character device or socket written where it is: replacing it
 * would break it for every other user (root's -o /dev/full).  type is
 * the file type lstat or stat saw; the file opened must still be one. */
static int write_in_place(const sb_run *run, int format, const char *path,
                          mode_t type, int follow)
{
    struct stat st;
    sb_error err = {0};
    FILE *f;
    int rc, fd, e;

    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
                        (follow ? 0 : O_NOFOLLOW));
    if (fd < 0) {
        say("%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type) {
        say("%s: changed while being opened; not written", path);
        close(fd);
        return -1;
    }
    f = fdopen(fd, "w");
    if (!f) {
        say("%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    errno = 0;
    rc = sb_report(run, format, f, &err);
    e = errno;
    if (fclose(f) != 0 && rc == SB_OK) {
        rc = SB_EIO;
        e = errno;
    }
    return rc == SB_OK ? 0 : write_failed(path, e, &err);
}

/* A new or regular file replaced atomically: a fresh temporary file beside
 * the target (mkstemp: never an existing file or link), renamed over it
 * once complete.  mode is the replaced file's permissions (a private file
 * stays private), or (mode_t)-1 for a new file. */
static int replace_file(const sb_run *run, int format, const char *path,
                        mode_t mode)
{
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    FILE *f = NULL;
    sb_error err = {0};
    int rc, fd = -1, e;

    if (!tmp) {
        say("%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, len, "%s.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd >= 0) {
        fchmod(fd, mode != (mode_t)-1 ? mode & 07777
                                       : 0644 & ~current_umask());
        f = fdopen(fd, "w");
        if (!f)
            close(fd);
    }
    if (!f) {
        say("%s: %s", path, strerror(errno));
        if (fd >= 0)
            remove(tmp);
        free(tmp);
        return -1;
    }
    errno = 0;
    rc = sb_report(run, format, f, &err);
    e = errno;
    if (fclose(f) != 0 && rc == SB_OK) {
        rc = SB_EIO;
        e = errno;
    }
    if (rc == SB_OK && rename(tmp, path) != 0) {
        rc = SB_EIO;
        e = errno;
    }
    if (rc != SB_OK) {
        write_failed(path, e, &err);
        remove(tmp);
    }
    free(tmp);
    return rc == SB_OK ? 0 : -1;
}

/* Whether st is the file of our standard output or error: -o /dev/stdout
 * (a link to /proc/self/fd/1) or -o FILE >FILE write through the stream
 * already open, in order with the table. */
static FILE *std_stream(const struct stat *st)
{
    struct stat s;
    if (fstat(STDOUT_FILENO, &s) == 0 && s.st_dev == st->st_dev &&
        s.st_ino == st->st_ino)
        return stdout;
    if (fstat(STDERR_FILENO, &s) == 0 && s.st_dev == st->st_dev &&
        s.st_ino == st->st_ino)
        return stderr;
    return NULL;
}

/* Write the report to path (-o and --save), never turning it against the
 * user: a new or regular file is replaced atomically (replace_file); our
 * own standard output or error is written through its stream; a FIFO,
 * character device or socket is written in place.  Refused, with one
 * line: a directory, a block device, a regular file without write
 * permission (by its mode bits: root passes access() but a read-only file
 * stays read-only), and a symbolic link to anything but a FIFO, device
 * or socket (renaming would replace the link, and writing through it is
 * what a link planted in a shared directory wants: name the target). */
static int write_file(const sb_run *run, int format, const char *path)
{
    struct stat st, t;
    FILE *std;
    const char *what;

    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) {
            say("%s: %s", path, strerror(errno));
            return -1;
        }
        return replace_file(run, format, path, (mode_t)-1);
    }
    if (S_ISLNK(st.st_mode)) {
        if (stat(path, &t) != 0)
            what = "a symbolic link to nothing";
        else if ((std = std_stream(&t)))
            return write_stream(run, format, path, std);
        else if (S_ISCHR(t.st_mode) || S_ISFIFO(t.st_mode) ||
                 S_ISSOCK(t.st_mode))
            return write_in_place(run, format, path, t.st_mode & S_IFMT, 1);
        else if (S_ISDIR(t.st_mode))
            what = "a symbolic link to a directory";
        else
            what = "a symbolic link (give the path of its target)";
    } else if ((std = std_stream(&st))) {
        return write_stream(run, format, path, std);
    } else if (S_ISREG(st.st_mode)) {
        int ok = geteuid() == 0 ? (st.st_mode & 0222) != 0
                                : access(path, W_OK) == 0;
        if (ok)
            return replace_file(run, format, path, st.st_mode);
        what = "read-only (kept; make it writable or choose another name)";
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
               S_ISSOCK(st.st_mode)) {
        return write_in_place(run, format, path, st.st_mode & S_IFMT, 0);
    } else if (S_ISDIR(st.st_mode)) {
        what = "a directory";
    } else if (S_ISBLK(st.st_mode)) {
        what = "a block device";
    } else {
        what = "not a regular file";
    }
    say("%s: %s: not written", path, what);
    return -1;
}

enum {
    OPT_DST_ALIGN = 256,
    OPT_CI,
    OPT_PRECISION,
    OPT_MAX_TIME,
    OPT_MIN_SAMPLES,
    OPT_MAX_SAMPLES,
    OPT_SAMPLE_US,
    OPT_SEED,
    OPT_CPU,
    OPT_NO_PIN,
    OPT_TIMER,
    OPT_INVOCATIONS,
    OPT_MAX_INVOCATIONS,
    OPT_OUTLIERS,
    OPT_BOOTSTRAP,
    OPT_BASELINE,
    OPT_THRESHOLD,
    OPT_ALPHA,
    OPT_FAMILY,
    OPT_CACHE,
    OPT_COUNTERS,
    OPT_REJECT,
    OPT_RT,
    OPT_NO_MLOCK,
    OPT_SAVE,
    OPT_AGAINST,
    OPT_PLOT,
    OPT_PLOT_KIND,
};

static uint64_t int_option(const char *name, const char *arg, uint64_t max)
{
    uint64_t v;
    char msg[200];
    if (cli_parse_value(arg, CLI_INT, &v, msg, sizeof msg) != 0)
        die_usage("%s %s", name, msg);
    if (v > max) {
        snprintf(msg, sizeof msg, "'%s': must be at most %llu", arg,
                 (unsigned long long)max);
        die_usage("%s %s", name, msg);
    }
    return v;
}

/* Everything the command line says. */
struct cli {
    const char *kernels, *sizes, *aligns, *dst_aligns, *baseline;
    const char *outputs[MAX_OUTPUTS];
    int noutputs;
    const char *families, *save, *against, *plot;
    int plot_kind;
    int kernel_given, max_time_given;
    int stats_option; /* --ci, --outliers, ... given */
    int list_counters;
    int format, quiet;
    int measuring_option; /* an option that only a measurement takes */
    const char *measuring_name; /* the first of them */
    char measuring_given[512];  /* all of them, " name " each */
    int argc;             /* the command line as typed, for the record */
    char **argv;
    sb_options opt;
};

static void parse_options(int argc, char **argv, struct cli *cli)
{
    static const struct option longopts[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"family", required_argument, NULL, OPT_FAMILY},
        {"save", required_argument, NULL, OPT_SAVE},
        {"plot", required_argument, NULL, OPT_PLOT},
        {"plot-kind", required_argument, NULL, OPT_PLOT_KIND},
        {"against", required_argument, NULL, OPT_AGAINST},
        {"counters", required_argument, NULL, OPT_COUNTERS},
        {"reject", required_argument, NULL, OPT_REJECT},
        {"rt", no_argument, NULL, OPT_RT},
        {"no-mlock", no_argument, NULL, OPT_NO_MLOCK},
        {"cache", required_argument, NULL, OPT_CACHE},
        {"size", required_argument, NULL, 's'},
        {"align", required_argument, NULL, 'a'},
        {"dst-align", required_argument, NULL, OPT_DST_ALIGN},
        {"ci", required_argument, NULL, OPT_CI},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"max-time", required_argument, NULL, OPT_MAX_TIME},
        {"min-samples", required_argument, NULL, OPT_MIN_SAMPLES},
        {"max-samples", required_argument, NULL, OPT_MAX_SAMPLES},
        {"sample-us", required_argument, NULL, OPT_SAMPLE_US},
        {"seed", required_argument, NULL, OPT_SEED},
        {"cpu", required_argument, NULL, OPT_CPU},
        {"no-pin", no_argument, NULL, OPT_NO_PIN},
        {"timer", required_argument, NULL, OPT_TIMER},
        {"invocations", required_argument, NULL, OPT_INVOCATIONS},
        {"max-invocations", required_argument, NULL, OPT_MAX_INVOCATIONS},
        {"outliers", required_argument, NULL, OPT_OUTLIERS},
        {"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
        {"baseline", required_argument, NULL, OPT_BASELINE},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    sb_options *opt = &cli->opt;
    int c, idx;
    char msg[256];

    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":k:s:a:f:o:qlhV", longopts, &idx)) !=
           -1) {
        double d;
        switch (c) {
        case 'k':
        case OPT_SAVE:
        case OPT_AGAINST:
        case OPT_COUNTERS:
        case OPT_REJECT:
        case OPT_RT:
        case OPT_NO_MLOCK:
        case OPT_FAMILY:
        case OPT_CACHE:
        case 's':
        case 'a':
        case OPT_DST_ALIGN:
        case OPT_MAX_TIME:
        case OPT_MIN_SAMPLES:
        case OPT_MAX_SAMPLES:
        case OPT_SAMPLE_US:
        case OPT_CPU:
        case OPT_NO_PIN:
        case OPT_TIMER:
        case OPT_INVOCATIONS:
        case OPT_MAX_INVOCATIONS:
        case OPT_BASELINE:
        case OPT_PRECISION:
            cli->measuring_option = 1;
            for (size_t i = 0; longopts[i].name; i++)
                if (longopts[i].val == c) {
                    size_t used = strlen(cli->measuring_given);
                    if (!cli->measuring_name)
                        cli->measuring_name = longopts[i].name;
                    snprintf(cli->measuring_given + used,
                             sizeof cli->measuring_given - used, " %s ",
                             longopts[i].name);
                    break;
                }
            break;
        }
        switch (c) {
        case OPT_CI:
        case OPT_OUTLIERS:
        case OPT_BOOTSTRAP:
        case OPT_THRESHOLD:
        case OPT_ALPHA:
            cli->stats_option = 1;
            break;
        }
        switch (c) {
        case 'k':
            cli->kernels = optarg;
            cli->kernel_given = 1;
            break;
        case OPT_FAMILY:
            cli->families = optarg;
            break;
        case OPT_SAVE:
            cli->save = optarg;
            break;
        case OPT_PLOT: {
            const char *dot = strrchr(optarg, '.');
            if (!dot || (strcmp(dot, ".svg") && strcmp(dot, ".pdf") &&
                         strcmp(dot, ".png")))
                die_usage("--plot '%s': the file must end in .svg, .pdf or "
                          ".png%s", optarg, "");
            cli->plot = optarg;
            break;
        }
        case OPT_PLOT_KIND:
            if (!strcmp(optarg, "auto"))
                cli->plot_kind = SB_PLOT_AUTO;
            else if (!strcmp(optarg, "sweep"))
                cli->plot_kind = SB_PLOT_SWEEP;
            else if (!strcmp(optarg, "matrix"))
                cli->plot_kind = SB_PLOT_MATRIX;
            else if (!strcmp(optarg, "sizes"))
                cli->plot_kind = SB_PLOT_SIZES;
            else if (!strcmp(optarg, "distribution"))
                cli->plot_kind = SB_PLOT_DISTRIBUTION;
            else
                die_usage("--plot-kind '%s': unknown (use auto, sweep, "
                          "matrix, sizes or distribution)%s", optarg, "");
            break;
        case OPT_AGAINST:
            cli->against = optarg;
            break;
        case OPT_COUNTERS:
            if (!strcmp(optarg, "list"))
                cli->list_counters = 1; /* after all options are checked */
            else
                opt->counters = optarg;
            break;
        case OPT_REJECT:
            if (!strcmp(optarg, "disturbed"))
                opt->reject = SB_REJECT_DISTURBED;
            else if (!strcmp(optarg, "none"))
                opt->reject = SB_REJECT_NONE;
            else
                die_usage("--reject '%s': unknown policy (use disturbed or "
                          "none)%s", optarg, "");
            break;
        case OPT_RT:
            opt->rt = 1;
            break;
        case OPT_NO_MLOCK:
            opt->mlock = 0;
            break;
        case OPT_CACHE:
            if (!strcmp(optarg, "hot"))
                opt->cache = SB_CACHE_HOT;
            else if (!strcmp(optarg, "cold"))
                opt->cache = SB_CACHE_COLD;
            else
                die_usage("--cache '%s': unknown cache state (use hot or "
                          "cold)%s", optarg, "");
            break;
        case 's':
            cli->sizes = optarg;
            break;
        case 'a':
            cli->aligns = optarg;
            break;
        case OPT_DST_ALIGN:
            cli->dst_aligns = optarg;
            break;
        case OPT_CI:
            if (cli_parse_double(optarg, 0, 100, &d, msg, sizeof msg))
                die_usage("--ci %s%s", msg, " (a percentage)");
            opt->ci_level = d / 100;
            break;
        case OPT_PRECISION:
            /* 0 is allowed: no target, measure for the whole budget. */
            if (cli_parse_double(optarg, -1, 100, &d, msg, sizeof msg) ||
                d < 0)
                die_usage("--precision '%s': %s", optarg,
                          "must lie in [0, 100) (a percentage; 0: no "
                          "target)");
            opt->precision = d / 100;
            break;
        case OPT_THRESHOLD:
            if (cli_parse_double(optarg, -1, 100, &d, msg, sizeof msg) ||
                d < 0)
                die_usage("--threshold '%s': %s", optarg,
                          "must lie in [0, 100) (a percentage)");
            opt->threshold = d / 100;
            break;
        case OPT_ALPHA:
            if (cli_parse_double(optarg, 0, 1, &d, msg, sizeof msg))
                die_usage("--alpha %s%s", msg, "");
            opt->alpha = d;
            break;
        case OPT_MAX_TIME:
            if (cli_parse_double(optarg, 0, 1e7, &d, msg, sizeof msg))
                die_usage("--max-time %s%s", msg, " (seconds)");
            opt->max_time = d;
            cli->max_time_given = 1;
            break;
        case OPT_SAMPLE_US:
            if (cli_parse_double(optarg, 0, 1e6, &d, msg, sizeof msg))
                die_usage("--sample-us %s%s", msg, " (microseconds)");
            opt->sample_seconds = d * 1e-6;
            break;
        case OPT_MIN_SAMPLES:
            opt->min_samples =
                (size_t)int_option("--min-samples", optarg, 100000000);
            break;
        case OPT_MAX_SAMPLES:
            opt->max_samples =
                (size_t)int_option("--max-samples", optarg, 100000000);
            break;
        case OPT_INVOCATIONS:
            opt->invocations =
                (size_t)int_option("--invocations", optarg, 1000);
            if (opt->invocations == 0)
                die_usage("--invocations '%s': must be at least 1%s", optarg,
                          "");
            break;
        case OPT_MAX_INVOCATIONS:
            opt->max_invocations =
                (size_t)int_option("--max-invocations", optarg, 1000);
            break;
        case OPT_BOOTSTRAP:
            opt->bootstrap =
                (size_t)int_option("--bootstrap", optarg, 1000000);
            if (opt->bootstrap != 0 && opt->bootstrap < 100)
                die_usage("--bootstrap '%s': use 0 (off) or at least 100 "
                          "resamples%s", optarg, "");
            break;
        case OPT_OUTLIERS:
            if (!strcmp(optarg, "keep"))
                opt->outliers = SB_OUTLIERS_KEEP;
            else if (!strcmp(optarg, "reject-severe"))
                opt->outliers = SB_OUTLIERS_REJECT_SEVERE;
            else if (!strcmp(optarg, "reject-all"))
                opt->outliers = SB_OUTLIERS_REJECT_ALL;
            else
                die_usage("--outliers '%s': unknown policy (use keep, "
                          "reject-severe or reject-all)%s", optarg, "");
            break;
        case OPT_BASELINE:
            cli->baseline = optarg;
            break;
        case OPT_SEED:
            opt->seed = int_option("--seed", optarg, UINT64_MAX);
            break;
        case OPT_CPU:
            opt->cpu = (int)int_option("--cpu", optarg, 1u << 20);
            break;
        case OPT_NO_PIN:
            opt->no_pin = 1;
            break;
        case OPT_TIMER:
            if (!strcmp(optarg, "tsc"))
                opt->force_clock_timer = 0;
            else if (!strcmp(optarg, "clock"))
                opt->force_clock_timer = 1;
            else
                die_usage("--timer '%s': unknown timer (use tsc or clock)%s",
                          optarg, "");
            break;
        case 'f':
            if ((cli->format = sb_format_parse(optarg)) < 0)
                die_usage("--format '%s': unknown format (use table, csv, "
                          "json, markdown or latex)%s", optarg, "");
            break;
        case 'o':
            if (cli->noutputs == MAX_OUTPUTS)
                die_usage("-o %s: at most 8 output files%s", optarg, "");
            cli->outputs[cli->noutputs++] = optarg;
            break;
        case 'q':
            cli->quiet = 1;
            break;
        case 'l':
            exit(list_kernels());
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            printf("statbench %s\n", sb_version());
            exit(0);
        case ':':
            die_usage("%s: missing value%s", argv[optind - 1], "");
            break;
        default:
            if (optopt) {
                char o[3] = {'-', (char)optopt, '\0'};
                die_usage("unknown option '%s' (see %s --help)", o,
                          progname);
            }
            die_usage("unknown option '%s' (see %s --help)",
                      argv[optind - 1], progname);
        }
    }
}

/* The format of an -o file: from its ending (.json, .csv, .tex, .md,
 * .txt), else the --format given. */
static int output_format(const char *path, int fallback)
{
    int format = sb_format_for_path(path);
    return format >= 0 ? format : fallback;
}

/* Write the run: each -o FILE in its format (and the table to stdout), or
 * FMT to stdout; and the figure of --plot.  Returns 0 or 1. */
static int emit(const sb_run *run, const struct cli *cli)
{
    sb_error err = {0};
    int status = 0;

    if (cli->plot) {
        int rc = sb_plot(run, cli->plot, cli->plot_kind, NULL, &err);
        if (rc == SB_EUNAVAIL) {
            /* No gnuplot: the script and data are there; say how. */
            say("--plot %s: %s", cli->plot, err.text);
        } else if (rc != SB_OK) {
            say("--plot %s: %s", cli->plot, err.text);
            status = 1;
        }
        memset(&err, 0, sizeof err);
    }
    if (cli->noutputs) {
        for (int i = 0; i < cli->noutputs; i++)
            if (write_file(run, output_format(cli->outputs[i], cli->format),
                           cli->outputs[i]) != 0)
                status = 1;
        if (sb_report(run, SB_FORMAT_TABLE, stdout, &err) != SB_OK)
            status = 1;
    } else if (sb_report(run, cli->format, stdout, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        status = 1;
    }
    return status;
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
        if (r->rejected_total)
            fprintf(stderr, "%s: %s, %zu bytes, offsets %zu/%zu: no valid "
                            "sample: all %zu taken were rejected (%s)\n",
                    progname, r->cell.kernel->name, r->cell.size,
                    r->cell.src_align, r->cell.dst_align, r->rejected_total,
                    why);
        else
            fprintf(stderr, "%s: %s, %zu bytes, offsets %zu/%zu: no sample "
                            "taken before the run stopped (after %.1f s)\n",
                    progname, r->cell.kernel->name, r->cell.size,
                    r->cell.src_align, r->cell.dst_align,
                    sb_run_elapsed(run));
    }
    return empty;
}

static void record_command(sb_run *run, const struct cli *cli)
{
    int argc = cli->argc;
    char **argv = cli->argv;
    /* Record the command as typed, whatever libtool named the binary. */
    char *saved = argv[0];
    argv[0] = (char *)progname;
    sb_run_set_command(run, argc, argv, NULL);
    argv[0] = saved;
}

/* ---- statbench compare A.json B.json ------------------------------------- */

static sb_run *load_or_die(const char *path, const sb_options *opt)
{
    FILE *f = fopen(path, "r");
    sb_error err = {0};
    sb_run *run = NULL;

    if (!f) {
        say("%s: %s", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    if (sb_run_load(f, path, opt, &run, &err) != SB_OK) {
        fclose(f);
        fprintf(stderr, "%s: %s\n", progname, err.text);
        exit(EXIT_USAGE);
    }
    fclose(f);
    return run;
}

/* Where saved baselines live: $STATBENCH_BASELINES, else
 * $XDG_DATA_HOME/statbench/baselines, else
 * ~/.local/share/statbench/baselines; with none of the three set, nowhere
 * (not the current directory without a word: refused, asking for
 * STATBENCH_BASELINES).  A name is letters, digits, '.', '_' and '-' (no
 * path).  With create, the directory is made.  Returns a new path
 * NAME.json or exits with status 2 on a bad name or directory. */
static char *baseline_path(const char *name, int create)
{
    const char *dir = getenv("STATBENCH_BASELINES"), *xdg, *home;
    char base[4096], *path;
    size_t len;
    int w;

    if (!*name || strlen(name) > 128 || name[0] == '.' ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789._-") != strlen(name))
        die_usage("baseline name '%s': use letters, digits, '.', '_' and "
                  "'-'%s", name, "");
    if (dir && *dir) {
        w = snprintf(base, sizeof base, "%s", dir);
        dir = "STATBENCH_BASELINES";
    } else if ((xdg = getenv("XDG_DATA_HOME")) && *xdg) {
        w = snprintf(base, sizeof base, "%s/statbench/baselines", xdg);
        dir = "XDG_DATA_HOME";
    } else if ((home = getenv("HOME")) && *home) {
        w = snprintf(base, sizeof base, "%s/.local/share/statbench/baselines",
                     home);
        dir = "HOME";
    } else {
        die_usage("baseline '%s': HOME is not set: set STATBENCH_BASELINES "
                  "to the directory of baselines%s", name, "");
        return NULL;
    }
    /* Never a shortened path: it would name another directory. */
    if (w < 0 || (size_t)w >= sizeof base) {
        char n[32];
        snprintf(n, sizeof n, "%zu", sizeof base - 1);
        die_usage("baseline directory from %s: longer than %s bytes", dir,
                  n);
    }
    if (create) {
        /* mkdir -p */
        for (char *p = base + 1; *p; p++)
            if (*p == '/') {
                *p = '\0';
                mkdir(base, 0755);
                *p = '/';
            }
        if (mkdir(base, 0755) != 0 && errno != EEXIST) {
            say("%s: %s", base, strerror(errno));
            return NULL;
        }
    }
    len = strlen(base) + strlen(name) + 8;
    path = malloc(len);
    if (path)
        snprintf(path, len, "%s/%s.json", base, name);
    return path;
}

/* ---- statbench report RUN.json ---------------------------------------------- */

static int cmd_report(int argc, char **argv, struct cli *cli)
{
    sb_run *run;
    int status;

    if (argc - optind != 1)
        die_usage("report takes one saved run: %s report RUN.json%s",
                  progname, "");
    run = load_or_die(argv[optind], cli->stats_option ? &cli->opt : NULL);
    status = emit(run, cli);
    sb_run_free(run);
    return status;
}

static int cmd_compare(int argc, char **argv, struct cli *cli)
{
    sb_run *a, *b;
    sb_error err = {0};
    size_t matched = 0;
    int status;

    if (argc - optind != 2)
        die_usage("compare takes two saved runs: %s compare A.json B.json%s",
                  progname, "");
    a = load_or_die(argv[optind], &cli->opt);
    b = load_or_die(argv[optind + 1], &cli->opt);
    if (sb_run_compare_to(b, a, &matched, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_run_free(a);
        sb_run_free(b);
        return 1;
    }
    if (matched == 0) {
        say("%s and %s have no cell in common (same kernel, size and "
            "offsets)", argv[optind], argv[optind + 1]);
        sb_run_free(a);
        sb_run_free(b);
        return EXIT_USAGE;
    }
    status = emit(b, cli);
    sb_run_free(a);
    sb_run_free(b);
    return status;
}

/* ---- statbench analyze FILE [FILE2] -------------------------------------- */

/* The numbers of an analyze file (cli_read_numbers), or exit 2 with its
 * one-line message. */
static double *read_numbers(const char *path, size_t *n)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    char msg[512];
    double *v = NULL;

    if (!f) {
        say("%s: %s", path, strerror(errno));
        exit(EXIT_USAGE);
    }
    if (cli_read_numbers(f, path, &v, n, msg, sizeof msg) != 0)
        die_usage("%s%s", msg, "");
    if (f != stdin)
        fclose(f);
    return v;
}

static int cmd_analyze(int argc, char **argv, struct cli *cli)
{
    size_t m = (size_t)(argc - optind), n[2];
    const char *names[2];
    double *v[2];
    const double *cv[2];
    sb_run *run = NULL;
    sb_error err = {0};
    int status;

    if (m < 1 || m > 2)
        die_usage("analyze takes one or two files: %s analyze FILE "
                  "[FILE2]%s", progname, "");
    for (size_t i = 0; i < m; i++) {
        names[i] = argv[optind + (int)i];
        v[i] = read_numbers(names[i], &n[i]);
        cv[i] = v[i];
    }
    status = sb_run_from_samples(names, cv, n, m, &cli->opt, &run, &err);
    for (size_t i = 0; i < m; i++)
        free(v[i]); /* the run holds its own copy */
    if (status != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        return EXIT_USAGE;
    }
    if (m == 2) {
        size_t base[2] = {SIZE_MAX, 0};
        if (sb_run_set_baselines(run, base, &err) != SB_OK) {
            fprintf(stderr, "%s: %s\n", progname, err.text);
            sb_run_free(run);
            return 1;
        }
    }
    record_command(run, cli);
    status = emit(run, cli);
    sb_run_free(run);
    return status;
}

/* ---- statbench check-env ------------------------------------------------- */

/* The CPU a run would pin to by default: the last one allowed. */
static int default_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

static int cmd_check_env(int argc, char **argv, struct cli *cli)
{
    sb_env env;
    int cpu = cli->opt.cpu >= 0 ? cli->opt.cpu : default_cpu(), warns = 0;

    if (optind < argc)
        die_usage("check-env takes no file: unexpected '%s'%s", argv[optind],
                  "");
    sb_env_audit(cpu, &env);
    printf("statbench %s check-env: the environment of CPU %d\n\n",
           sb_version(), cpu);
    for (size_t i = 0; i < env.n; i++) {
        sb_env_item *e = &env.items[i];
        /* Values read from the system (a CPU model, a host's files):
         * printed without their control characters. */
        sb__clean_text(e->key);
        sb__clean_text(e->value);
        sb__clean_text(e->advice);
        printf("%-7s %-16s %s\n", e->warn ? "WARN" : "ok", e->key, e->value);
        if (e->advice[0])
            printf("%-7s %-16s -> %s\n", "", "", e->advice);
        warns += e->warn;
    }
    printf("\n%d finding%s to look at.  Every run records this audit in its "
           "metadata\nand prints the warnings in its header.\n",
           warns, warns == 1 ? "" : "s");
    return ferror(stdout) ? 1 : 0;
}

/* ---- statbench noise ------------------------------------------------------ */

/* An empty timed region: what the timer itself adds, sample to sample. */
static void noise_empty(void *dst, const void *src, size_t n, void *state)
{
    (void)dst, (void)src, (void)n, (void)state;
}

/* Fixed work: a chain of dependent integer operations the compiler cannot
 * shorten, about 4000 cycles whatever the memory system does. */
static void noise_work(void *dst, const void *src, size_t n, void *state)
{
    unsigned x = 1;
    (void)dst, (void)src, (void)n, (void)state;
    for (int i = 0; i < 2000; i++) {
        x = x * 2654435761u + 1;
        __asm__ volatile("" : "+r"(x));
    }
}

static const sb_kernel noise_kernels[] = {
    {.name = "empty", .family = SB_FAMILY_EXTERNAL,
     .description = "an empty timed region", .fn = noise_empty},
    {.name = "work", .family = SB_FAMILY_EXTERNAL,
     .description = "2000 dependent multiply-adds", .fn = noise_work},
};

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *sorted, size_t n, double p)
{
    double h = p * (double)(n - 1);
    size_t i = (size_t)h;
    if (n == 0)
        return NAN;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

static int cmd_noise(int argc, char **argv, struct cli *cli)
{
    sb_plan *plan = sb_plan_new();
    sb_options opt = cli->opt;
    sb_run *run = NULL;
    sb_error err = {0};
    const sb_kernel *memcpy_k = sb_kernel_find("libc");
    double budgets[] = {10, 60, 300}, per_inv;
    const sb_meta *m;

    if (optind < argc)
        die_usage("noise takes no file: unexpected '%s'%s", argv[optind], "");
    if (!plan || sb_plan_add(plan, &noise_kernels[0], 0, 0, 0, &err) ||
        sb_plan_add(plan, &noise_kernels[1], 0, 0, 0, &err) ||
        (memcpy_k && sb_plan_add(plan, memcpy_k, 4096, 0, 0, &err))) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        return 1;
    }
    if (!cli->max_time_given)
        opt.max_time = 10;
    opt.sample_seconds = 1e-9; /* one call per sample: raw jitter */
    opt.max_samples = 200000;  /* the budget, not a count, ends it */
    opt.precision = 0;         /* no target: the whole budget */
    opt.max_invocations = opt.invocations;
    if (sb_plan_check(plan, &opt, &err) != SB_OK)
        die_usage("%s%s", err.text, "");
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (sb_run_execute(plan, &opt, &run, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_plan_free(plan);
        return 1;
    }
    m = sb_run_meta(run);
    per_inv = sb_run_elapsed(run) / (double)sb_run_cell(run, 0)->invocations;
    printf("statbench %s noise: this machine's timing noise on CPU %d\n",
           sb_version(), m->cpu);
    {
        /* From the system: printed without control characters. */
        char model[sizeof m->cpu_model], kver[sizeof m->kernel_version];
        snprintf(model, sizeof model, "%s", m->cpu_model);
        snprintf(kver, sizeof kver, "%s", m->kernel_version);
        sb__clean_text(model);
        sb__clean_text(kver);
        printf("machine:  %s; %s\n", model, kver);
    }
    printf("timer:    %s at %.6g MHz; overhead %.0f ticks (bare pair %.0f)\n",
           m->timer.kind == SB_TIMER_TSC ? "TSC" : "clock", m->timer.hz / 1e6,
           m->timer.overhead, m->timer.bare_overhead);
    printf("run:      %zu invocations in %.1f s of measuring, one call per "
           "sample\n",
           sb_run_cell(run, 0)->invocations, sb_run_elapsed(run));
    printf("checks:   %.1f interrupts/s on CPU %d; %.1f us of checks per "
           "sample\n\n",
           m->interrupts_per_second, m->cpu, m->check_cost_seconds * 1e6);
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        double *x = malloc((r->nsamples + 1) * sizeof *x), med, rel_b;
        size_t rej = r->rejected_total, tot = r->nsamples + rej;
        if (!x || !r->nsamples) {
            free(x);
            continue;
        }
        memcpy(x, r->ticks, r->nsamples * sizeof *x);
        qsort(x, r->nsamples, sizeof *x, by_double);
        med = quantile(x, r->nsamples, 0.5);
        printf("%s (%s):\n", r->cell.kernel->name,
               r->cell.kernel == memcpy_k ? "memcpy of 4 KiB"
                                          : r->cell.kernel->description);
        printf("  per sample: median %.1f ticks, IQR %.1f, p99 - median "
               "%.1f, max %.0f; %.2f%% of samples rejected as disturbed\n",
               med, quantile(x, r->nsamples, 0.75) -
                        quantile(x, r->nsamples, 0.25),
               quantile(x, r->nsamples, 0.99) - med, x[r->nsamples - 1],
               tot ? 100.0 * (double)rej / (double)tot : 0.0);
        free(x);
        if (i == 0 || r->invocations < 2)
            continue;
        rel_b = r->levels.sd_between_est / r->interval.estimate;
        /* One call per sample gives whole ticks: medians that tie say the
         * spread is below one tick, not zero. */
        if (rel_b < 1 / r->interval.estimate)
            rel_b = 1 / r->interval.estimate;
        printf("  between invocations: the medians vary by %.2f%% (sd); "
               "%.0f%% of the variance lies between processes\n",
               100 * rel_b, 100 * r->levels.between_fraction);
        printf("  smallest change two runs can tell apart (alpha 0.05, "
               "power 80%%):");
        for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++) {
            double mi = budgets[b] / per_inv;
            if (mi < 2)
                mi = 2;
            printf("%s%.2f%% in %g s", b ? ", " : " ",
                   100 * sb_stats_mde(rel_b / sqrt(mi), 2 * mi - 2, 0.05,
                                      0.8),
                   budgets[b]);
        }
        printf("\n");
    }
    printf("\n(one invocation takes %.2f s here; a budget buys that many "
           "fresh processes, and the\nbetween-process variation is what "
           "limits the comparison of two runs)\n",
           per_inv);
    sb_run_free(run);
    sb_plan_free(plan);
    return 0;
}

/* ---- statbench [measure] -------------------------------------------------- */

/* The baseline cell of each cell, from --baseline KERNEL or align=N. */
static size_t *baselines(const sb_run *run, const char *spec)
{
    size_t n = sb_run_count(run), *base = malloc(n * sizeof *base);
    int by_align = !strncmp(spec, "align=", 6), found = 0;
    uint64_t align = 0;
    char msg[200];

    if (!base) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    if (by_align &&
        cli_parse_value(spec + 6, CLI_INT, &align, msg, sizeof msg) != 0)
        die_usage("--baseline %s%s", msg, "");
    for (size_t i = 0; i < n; i++) {
        const sb_cell *c = &sb_run_cell(run, i)->cell;
        base[i] = SIZE_MAX;
        for (size_t j = 0; j < n; j++) {
            const sb_cell *b = &sb_run_cell(run, j)->cell;
            int match = by_align
                            ? b->kernel == c->kernel && b->size == c->size &&
                                  b->dst_align == c->dst_align &&
                                  b->src_align == align
                            : !strcmp(b->kernel->name, spec) &&
                                  b->size == c->size &&
                                  b->src_align == c->src_align &&
                                  b->dst_align == c->dst_align;
            if (match) {
                base[i] = j;
                found = 1;
                break;
            }
        }
    }
    if (!found)
        die_usage("--baseline '%s': no measured cell matches (a kernel of "
                  "--kernel, or align=N of --align)%s", spec, "");
    return base;
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
    char num[32];

    if (!s) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (s[i] == s[i - 1]) {
            char head[300];
            snprintf(num, sizeof num, "%llu", (unsigned long long)s[i]);
            free(s);
            snprintf(head, sizeof head, "%s '%.200s'", option, text);
            die_usage("%s: %s is listed twice", head, num);
        }
    free(s);
}

/* The cells of one kernel: every size, destination and source offset,
 * source offsets innermost (an alignment sweep reads down the table).
 * asz, when not 0, replaces the default size for alloc kernels. */
static void add_kernel_cells(sb_plan *plan, const sb_kernel *k,
                             const uint64_t *sz, size_t nsz, uint64_t asz,
                             const uint64_t *al, size_t nal,
                             const uint64_t *dal, size_t ndal)
{
    sb_error err = {0};
    int alloc = k->family == SB_FAMILY_ALLOC;

    for (size_t i = 0; i < (alloc && asz ? 1 : nsz); i++)
        for (size_t j = 0; j < (alloc ? 1 : ndal); j++)
            for (size_t a = 0; a < (alloc ? 1 : nal); a++)
                if (sb_plan_add(plan, k,
                                (size_t)(alloc && asz ? asz : sz[i]),
                                alloc ? 0 : (size_t)al[a],
                                alloc ? 0 : (size_t)dal[j], &err) != SB_OK)
                    die_usage("%s%s", err.text, "");
}

static void add_cells(sb_plan *plan, const struct cli *cli)
{
    uint64_t *sz = NULL, *al = NULL, *dal = NULL, asz = 0;
    size_t nsz = 0, nal = 0, ndal = 0;
    char msg[256], defsize[32], *copy, *save = NULL, *name;
    unsigned char *seen;
    int had_all = 0;
    unsigned fams = 0;

    snprintf(defsize, sizeof defsize, "%d", DEFAULT_SIZE);
    if (cli_parse_list(cli->sizes ? cli->sizes : defsize, CLI_SIZE, &sz, &nsz,
                       msg, sizeof msg))
        die_usage("--size %s%s", msg, "");
    if (!cli->sizes)
        asz = DEFAULT_ALLOC_SIZE; /* alloc kernels: the threads' 16 MiB */
    if (cli_parse_list(cli->aligns, CLI_INT, &al, &nal, msg, sizeof msg))
        die_usage("--align %s%s", msg, "");
    if (cli_parse_list(cli->dst_aligns, CLI_INT, &dal, &ndal, msg,
                       sizeof msg))
        die_usage("--dst-align %s%s", msg, "");
    for (size_t i = 0; i < nal; i++)
        if (al[i] >= 4096)
            die_usage("--align %s: offset %s must be below the page size "
                      "4096", cli->aligns,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)al[i]), msg));
    for (size_t i = 0; i < ndal; i++)
        if (dal[i] >= 4096)
            die_usage("--dst-align %s: offset %s must be below the page "
                      "size 4096", cli->dst_aligns,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)dal[i]), msg));
    refuse_repeats("--size", cli->sizes ? cli->sizes : defsize, sz, nsz);
    refuse_repeats("--align", cli->aligns, al, nal);
    refuse_repeats("--dst-align", cli->dst_aligns, dal, ndal);
    for (size_t i = 0; i < nsz; i++)
        if (sz[i] > SIZE_MAX / 4)
            die_usage("--size %s: %s is too large for memory", cli->sizes,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)sz[i]), msg));

    if (cli->families) {
        char *fc = strdup(cli->families), *fs = NULL, *fn;
        if (!fc) {
            fprintf(stderr, "%s: out of memory\n", progname);
            exit(1);
        }
        for (fn = strtok_r(fc, ",", &fs); fn; fn = strtok_r(NULL, ",", &fs)) {
            int f, found = 0;
            for (f = SB_FAMILY_COPY; f < SB_FAMILY_EXTERNAL; f++)
                if (!strcmp(fn, sb_family_name(f))) {
                    fams |= 1u << f;
                    found = 1;
                }
            if (!found)
                die_usage("--family '%s': unknown family (use copy, clear, "
                          "alloc or syscall)%s", fn, "");
        }
        free(fc);
        if (!fams)
            die_usage("--family '%s': no family named%s", cli->families, "");
    }
    /* --family alone measures its kernels; with --kernel, both. */
    copy = strdup(cli->families && !cli->kernel_given ? "" : cli->kernels);
    if (!copy) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
    }
    for (size_t ki = 0; ki < sb_kernel_count(); ki++) {
        const sb_kernel *k = sb_kernel_at(ki);
        if (!(fams & (1u << k->family)) || !sb_kernel_available(k, NULL))
            continue;
        add_kernel_cells(plan, k, sz, nsz, asz, al, nal, dal, ndal);
    }
    if (cli->families && !cli->kernel_given) {
        free(copy);
        free(sz);
        free(al);
        free(dal);
        return;
    }
    if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' ||
        strstr(copy, ",,"))
        die_usage("--kernel '%s': empty kernel name%s", cli->kernels, "");
    /* Which kernels --kernel named, so that none is measured twice. */
    seen = calloc(sb_kernel_count() ? sb_kernel_count() : 1, 1);
    if (!seen) {
        fprintf(stderr, "%s: out of memory\n", progname);
        exit(1);
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
            if (!k)
                die_usage("--kernel '%s': unknown kernel (see %s --list)",
                          name, progname);
            while (sb_kernel_at(first) != k)
                first++;
            last = first + 1;
        }
        for (size_t ki = first; ki < last; ki++) {
            const sb_kernel *k = sb_kernel_at(ki);
            if (all && !sb_kernel_available(k, NULL))
                continue;
            if (seen[ki]) {
                char head[300];
                snprintf(head, sizeof head, "--kernel '%.200s'",
                         cli->kernels);
                die_usage(had_all ? "%s: %s is listed twice (all includes "
                                    "every available kernel)"
                                  : "%s: %s is listed twice",
                          head, k->name);
            }
            seen[ki] = 1;
            if (fams & (1u << k->family))
                continue; /* already added by --family */
            add_kernel_cells(plan, k, sz, nsz, asz, al, nal, dal, ndal);
        }
    }
    free(seen);
    free(copy);
    free(sz);
    free(al);
    free(dal);
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
        die_usage("--baseline %s%s", msg, "");
    for (size_t i = 0; i < sb_plan_count(plan); i++) {
        const sb_cell *c = sb_plan_cell(plan, i);
        if (by_align ? c->src_align == align
                     : !strcmp(c->kernel->name, spec))
            return;
    }
    die_usage("--baseline '%s': no measured cell matches (a kernel of "
              "--kernel, or align=N of --align)%s", spec, "");
}

/* --against must share a cell with the plan (same kernel, size and
 * offsets), as compare needs its two runs to: checked before measuring,
 * so that it costs no time, and with compare's exit status 2. */
static void check_against(const sb_plan *plan, const sb_run *base,
                          const char *name)
{
    for (size_t i = 0; i < sb_plan_count(plan); i++) {
        const sb_cell *c = sb_plan_cell(plan, i);
        for (size_t j = 0; j < sb_run_count(base); j++) {
            const sb_cell *b = &sb_run_cell(base, j)->cell;
            if (!strcmp(b->kernel->name, c->kernel->name) &&
                b->size == c->size && b->src_align == c->src_align &&
                b->dst_align == c->dst_align)
                return;
        }
    }
    die_usage("--against %s: no cell in common with this run (same "
              "kernel, size and offsets)%s", name, "");
}

static int cmd_measure(int argc, char **argv, struct cli *cli)
{
    sb_plan *plan = sb_plan_new();
    sb_run *run = NULL, *against = NULL;
    sb_error err = {0};
    int status, no_common = 0;
    size_t empty;

    if (cli->save)
        free(baseline_path(cli->save, 0)); /* checks the name, early */
    if (cli->against) {
        char *path = baseline_path(cli->against, 0);
        FILE *f = path ? fopen(path, "r") : NULL;
        if (!f)
            die_usage("--against '%s': no such saved baseline (save one "
                      "with --save NAME)%s", cli->against, "");
        fclose(f);
        against = load_or_die(path, NULL);
        free(path);
        if (sb_run_interrupted(against))
            say("--against %s: this baseline was interrupted (saved from "
                "partial results): its cells rest on fewer samples",
                cli->against);
        if (cli->baseline)
            die_usage("--against and --baseline '%s' cannot be combined%s",
                      cli->baseline, "");
    }

    if (optind < argc)
        die_usage("unexpected argument '%s' (see %s --help)", argv[optind],
                  progname);
    if (!plan) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return 1;
    }
    add_cells(plan, cli);
    if (cli->baseline)
        check_baseline(plan, cli->baseline);
    if (against)
        check_against(plan, against, cli->against);
    if (sb_plan_check(plan, &cli->opt, &err) != SB_OK)
        die_usage("%s%s", err.text, "");

    if (!cli->quiet && isatty(STDERR_FILENO)) {
        cli->opt.progress = progress;
        cli->opt.progress_arg = NULL;
    }
    {
        void *m = mmap(NULL, sizeof *run_signal, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            run_signal = m;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (sb_run_execute(plan, &cli->opt, &run, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_plan_free(plan);
        return err.code == SB_EINVAL || err.code == SB_EUNAVAIL ? EXIT_USAGE
                                                                : 1;
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (cli->opt.progress)
        fputs("\r\033[K", stderr);
    record_command(run, cli);
    if (against) {
        size_t matched = 0;
        if (sb_run_compare_to(run, against, &matched, &err) != SB_OK) {
            fprintf(stderr, "%s: %s\n", progname, err.text);
        } else if (matched == 0) {
            say("--against %s: no cell in common (same kernel, size and "
                "offsets)", cli->against);
            no_common = 1;
        }
    } else if (cli->baseline) {
        size_t *base = baselines(run, cli->baseline);
        if (sb_run_set_baselines(run, base, &err) != SB_OK)
            fprintf(stderr, "%s: %s\n", progname, err.text);
        free(base);
    }
    status = emit(run, cli);
    /* A cell without samples is no result, nor a baseline to keep. */
    empty = report_empty_cells(run);
    if (empty && status == 0)
        status = 1;
    if (cli->save && empty) {
        say("not saved as baseline '%s': %zu cell%s without a valid sample",
            cli->save, empty, empty == 1 ? "" : "s");
    } else if (cli->save) {
        /* Saved even when an output above failed (the measurement is
         * good), and then said even with -q: the exit status is 1. */
        char *path = baseline_path(cli->save, 1);
        int failed = status;
        if (!path || write_file(run, SB_FORMAT_JSON, path) != 0)
            status = 1;
        else if (!cli->quiet || failed)
            say("saved as baseline '%s' (%s)%s%s", cli->save, path,
                sb_run_interrupted(run) ? ", marked interrupted" : "",
                failed ? "; an output above was not written" : "");
        free(path);
    }
    if (against) {
        size_t slower = 0, lost = 0;
        for (size_t i = 0; i < sb_run_count(run); i++) {
            const sb_comparison *c = sb_run_comparison(run, i);
            /* A cell without samples has failed above, in its own
             * words; one whose baseline cell has none cannot be judged,
             * which is no pass either. */
            if (!sb_run_cell(run, i)->nsamples ||
                !sb_comparison_regressed(c, sb_run_options(run)->threshold))
                continue;
            if (isfinite(c->ratio.estimate))
                slower++;
            else
                lost++;
        }
        if (lost && status == 0) {
            say("%zu cell%s cannot be compared with baseline '%s' "
                "(no valid samples there)",
                lost, lost == 1 ? "" : "s", cli->against);
            status = 1;
        }
        if (slower && status == 0) {
            say("%zu cell%s slower than baseline '%s' beyond the "
                "threshold, with significance",
                slower, slower == 1 ? "" : "s", cli->against);
            status = 1;
        }
        sb_run_free(against);
    }
    if (no_common && status == 0)
        status = EXIT_USAGE; /* as compare */
    if (sb_run_interrupted(run) && !got_signal && *sb_run_partial(run)) {
        /* Not a request to stop: an invocation died.  A failure. */
        say("%s: partial results above", sb_run_partial(run));
        status = 1;
    } else if (sb_run_interrupted(run)) {
        fprintf(stderr, "%s: interrupted: partial results above\n",
                progname);
        /* The signal this process got, else the one a forked invocation
         * got. */
        int sig = got_signal ? got_signal : *run_signal;
        status = sig == SIGTERM ? 143 : 130;
    }
    sb_run_free(run);
    sb_plan_free(plan);
    return status;
}

/* At exit: what went to stdout must have arrived.  printf to a full disk
 * or /dev/full fails only when the buffer is flushed, after the command
 * has returned 0 (--help, --version, check-env, a table). */
static void check_stdout(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: writing to standard output failed%s%s\n",
                progname, errno ? ": " : "", errno ? strerror(errno) : "");
        _exit(1);
    }
}

int main(int argc, char **argv)
{
    struct cli cli = {.kernels = "movsl", .aligns = "0", .dst_aligns = "0",
                      .format = SB_FORMAT_TABLE, .argc = argc, .argv = argv};
    const char *sub = argc > 1 ? argv[1] : "";
    int (*cmd)(int, char **, struct cli *) = cmd_measure;

    atexit(check_stdout);
    sb_options_init(&cli.opt);
    if (!strcmp(sub, "compare") || !strcmp(sub, "analyze") ||
        !strcmp(sub, "check-env") || !strcmp(sub, "noise") ||
        !strcmp(sub, "report")) {
        cmd = !strcmp(sub, "compare")   ? cmd_compare
              : !strcmp(sub, "analyze") ? cmd_analyze
              : !strcmp(sub, "noise")   ? cmd_noise
              : !strcmp(sub, "report")  ? cmd_report
                                        : cmd_check_env;
        /* getopt_long permutes: the files may come anywhere. */
        argv++;
        argc--;
    }
    parse_options(argc, argv, &cli);
    if (cli.list_counters) {
        if (cmd != cmd_measure)
            die_usage("%s: '--counters list' is an option of a measurement"
                      "%s", sub, "");
        return list_counters();
    }
    if (cmd == cmd_check_env || cmd == cmd_noise) {
        /* Each takes a few of the measuring options, and only those. */
        const char *ok = cmd == cmd_check_env
                             ? " cpu "
                             : " max-time invocations cpu no-pin timer rt "
                               "no-mlock counters reject ";
        char given[512], *save = NULL;
        snprintf(given, sizeof given, "%s", cli.measuring_given);
        for (char *name = strtok_r(given, " ", &save); name;
             name = strtok_r(NULL, " ", &save)) {
            char key[80];
            snprintf(key, sizeof key, " %s ", name);
            if (!strstr(ok, key))
                die_usage("%s: '--%s' is not an option of this subcommand",
                          sub, name);
        }
        if (cli.opt.cpu >= 0 && cli.opt.cpu >= sysconf(_SC_NPROCESSORS_CONF)) {
            char n[32];
            snprintf(n, sizeof n, "%d", cli.opt.cpu);
            die_usage("cpu %s: no such CPU on this machine%s", n, "");
        }
    }
    if (cmd != cmd_measure && cmd != cmd_noise && cmd != cmd_check_env &&
        cli.measuring_option)
        die_usage("%s: '--%s' is an option of a measurement, not of this "
                  "subcommand", sub, cli.measuring_name);
    return cmd(argc, argv, &cli);
}
