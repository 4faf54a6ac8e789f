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
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_parse.h"
#include "statbench.h"

#define DEFAULT_SIZE 10240
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
"  -s, --size LIST        bytes per call (default %d: the size of the\n"
"                         threads' cptimer runs; source and destination\n"
"                         together fit in the L1 data cache, so a hot-cache\n"
"                         sweep measures the copy itself, not DRAM)\n"
"  -a, --align LIST       source offset from a page boundary, 0..4095\n"
"                         (default 0); the destination stays page-aligned\n"
"      --dst-align LIST   destination offset from a page boundary (default 0)\n"
"  LIST is comma-separated values and ranges: 0..32, 0..64:8, 512..16M:*2.\n"
"  Sizes take K, M, G suffixes (K = 1024).\n"
"\n"
"How to measure:\n"
"      --ci LEVEL         confidence level in percent, in (0, 100) (default 95)\n"
"      --precision PCT    stop when every cell's CI half-width is within PCT\n"
"                         percent of its median (default 1)\n"
"      --max-time SEC     time budget of the whole run (default 30)\n"
"      --min-samples N    samples per cell before the stop rule (default 100)\n"
"      --max-samples N    samples per cell at most (default 10000)\n"
"      --sample-us US     target length of one sample in microseconds\n"
"                         (default 50)\n"
"      --seed N           seed of the random cell order (default 1)\n"
"      --cpu N            CPU to pin to (default: the last allowed CPU)\n"
"      --no-pin           do not pin\n"
"      --timer tsc|clock  timer (default tsc where invariant, else clock)\n"
"\n"
"Output:\n"
"  -f, --format FMT       table, csv or json (default table)\n"
"  -o, --output FILE      write FMT to FILE (the table still goes to stdout)\n"
"  -q, --quiet            no progress line on stderr\n"
"  -l, --list             list the kernels and whether this CPU runs them\n"
"  -h, --help             this help\n"
"  -V, --version          version\n"
"\n"
"Throughput is in MB/s with 1 MB = 10^6 bytes.  Exit status: 0 success,\n"
"1 failure, 2 bad input, 130/143 interrupted (partial results written).\n",
            DEFAULT_SIZE);
}

/* One line naming the bad value, then exit 2. */
static void die_usage(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(EXIT_USAGE);
}

static int list_kernels(void)
{
    printf("%-8s %-7s %-24s %s\n", "kernel", "family", "available",
           "description");
    for (size_t i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        const char *why = NULL;
        char avail[64];
        if (sb_kernel_available(k, &why))
            snprintf(avail, sizeof avail, "yes");
        else
            snprintf(avail, sizeof avail, "no (%s)", why ? why : "?");
        printf("%-8s %-7s %-24s %s\n", k->name, sb_family_name(k->family),
               avail, k->description);
    }
    return ferror(stdout) ? 1 : 0;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    if (got_signal) {
        /* A second signal: stop at once. */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    got_signal = sig;
    sb_run_request_stop();
}

static int progress(void *arg, size_t round, double elapsed)
{
    (void)arg;
    fprintf(stderr, "\r%s: round %zu, %.1f s ", progname, round, elapsed);
    return 0;
}

/* Write the report to path atomically: a temporary file, then rename. */
static int write_file(const sb_run *run, int format, const char *path)
{
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    FILE *f;
    sb_error err = {0};
    int rc;

    if (!tmp)
        return -1;
    snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        free(tmp);
        return -1;
    }
    rc = sb_report(run, format, f, &err);
    if (fclose(f) != 0 && rc == SB_OK)
        rc = SB_EIO;
    if (rc == SB_OK && rename(tmp, path) != 0)
        rc = SB_EIO;
    if (rc != SB_OK) {
        fprintf(stderr, "%s: %s: writing failed: %s\n", progname, path,
                err.text[0] ? err.text : strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return rc == SB_OK ? 0 : -1;
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
};

static uint64_t int_option(const char *name, const char *arg, uint64_t max)
{
    uint64_t v;
    char msg[200];
    if (cli_parse_value(arg, CLI_INT, &v, msg, sizeof msg) != 0)
        die_usage("%s %s", name, msg);
    if (v > max) {
        char m[64];
        snprintf(m, sizeof m, "%llu", (unsigned long long)max);
        die_usage("%s: must be at most %s", arg, m);
    }
    return v;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"kernel", required_argument, NULL, 'k'},
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
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *kernels = "movsl", *sizes = NULL, *aligns = "0",
               *dst_aligns = "0", *output = NULL;
    uint64_t *sz = NULL, *al = NULL, *dal = NULL;
    size_t nsz = 0, nal = 0, ndal = 0;
    int format = SB_FORMAT_TABLE, quiet = 0, c, status = 0;
    char msg[256], defsize[32];
    sb_options opt;
    sb_plan *plan;
    sb_run *run = NULL;
    sb_error err = {0};

    sb_options_init(&opt);
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":k:s:a:f:o:qlhV", longopts,
                            NULL)) != -1) {
        double d;
        switch (c) {
        case 'k':
            kernels = optarg;
            break;
        case 's':
            sizes = optarg;
            break;
        case 'a':
            aligns = optarg;
            break;
        case OPT_DST_ALIGN:
            dst_aligns = optarg;
            break;
        case OPT_CI:
            if (cli_parse_double(optarg, 0, 100, &d, msg, sizeof msg))
                die_usage("--ci %s%s", msg, " (a percentage)");
            opt.ci_level = d / 100;
            break;
        case OPT_PRECISION:
            if (cli_parse_double(optarg, 0, 100, &d, msg, sizeof msg))
                die_usage("--precision %s%s", msg, " (a percentage)");
            opt.precision = d / 100;
            break;
        case OPT_MAX_TIME:
            if (cli_parse_double(optarg, 0, 1e7, &d, msg, sizeof msg))
                die_usage("--max-time %s%s", msg, " (seconds)");
            opt.max_time = d;
            break;
        case OPT_SAMPLE_US:
            if (cli_parse_double(optarg, 0, 1e6, &d, msg, sizeof msg))
                die_usage("--sample-us %s%s", msg, " (microseconds)");
            opt.sample_seconds = d * 1e-6;
            break;
        case OPT_MIN_SAMPLES:
            opt.min_samples =
                (size_t)int_option("--min-samples", optarg, 100000000);
            break;
        case OPT_MAX_SAMPLES:
            opt.max_samples =
                (size_t)int_option("--max-samples", optarg, 100000000);
            break;
        case OPT_SEED:
            opt.seed = int_option("--seed", optarg, UINT64_MAX);
            break;
        case OPT_CPU:
            opt.cpu = (int)int_option("--cpu", optarg, 1u << 20);
            break;
        case OPT_NO_PIN:
            opt.no_pin = 1;
            break;
        case OPT_TIMER:
            if (!strcmp(optarg, "tsc"))
                opt.force_clock_timer = 0;
            else if (!strcmp(optarg, "clock"))
                opt.force_clock_timer = 1;
            else
                die_usage("--timer '%s': unknown timer (use tsc or clock)%s",
                          optarg, "");
            break;
        case 'f':
            if (!strcmp(optarg, "table"))
                format = SB_FORMAT_TABLE;
            else if (!strcmp(optarg, "csv"))
                format = SB_FORMAT_CSV;
            else if (!strcmp(optarg, "json"))
                format = SB_FORMAT_JSON;
            else
                die_usage("--format '%s': unknown format (use table, csv or "
                          "json)%s", optarg, "");
            break;
        case 'o':
            output = optarg;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'l':
            return list_kernels();
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("statbench %s\n", sb_version());
            return 0;
        case ':':
            die_usage("%s: missing value%s", argv[optind - 1], "");
            break;
        default:
            die_usage("unknown option '%s' (see %s --help)",
                      argv[optind - 1], progname);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument '%s' (see %s --help)", argv[optind],
                  progname);

    snprintf(defsize, sizeof defsize, "%d", DEFAULT_SIZE);
    if (cli_parse_list(sizes ? sizes : defsize, CLI_SIZE, &sz, &nsz, msg,
                       sizeof msg))
        die_usage("--size %s%s", msg, "");
    if (cli_parse_list(aligns, CLI_INT, &al, &nal, msg, sizeof msg))
        die_usage("--align %s%s", msg, "");
    if (cli_parse_list(dst_aligns, CLI_INT, &dal, &ndal, msg, sizeof msg))
        die_usage("--dst-align %s%s", msg, "");
    for (size_t i = 0; i < nal; i++)
        if (al[i] >= 4096)
            die_usage("--align %s: offset %s must be below the page size "
                      "4096", aligns,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)al[i]), msg));
    for (size_t i = 0; i < ndal; i++)
        if (dal[i] >= 4096)
            die_usage("--dst-align %s: offset %s must be below the page "
                      "size 4096", dst_aligns,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)dal[i]), msg));
    for (size_t i = 0; i < nsz; i++)
        if (sz[i] > SIZE_MAX / 4)
            die_usage("--size %s: %s is too large for memory", sizes,
                      (snprintf(msg, sizeof msg, "%llu",
                                (unsigned long long)sz[i]), msg));

    plan = sb_plan_new();
    if (!plan) {
        fprintf(stderr, "%s: out of memory\n", progname);
        return 1;
    }
    {
        char *copy = strdup(kernels), *save = NULL, *name;
        if (!copy) {
            fprintf(stderr, "%s: out of memory\n", progname);
            return 1;
        }
        if (!*copy || copy[strlen(copy) - 1] == ',' || copy[0] == ',' ||
            strstr(copy, ",,"))
            die_usage("--kernel '%s': empty kernel name%s", kernels, "");
        for (name = strtok_r(copy, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            size_t first = 0, last = 0;
            if (!strcmp(name, "all")) {
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
                if (!strcmp(name, "all") && !sb_kernel_available(k, NULL))
                    continue;
                for (size_t i = 0; i < nsz; i++)
                    for (size_t j = 0; j < ndal; j++)
                        for (size_t a = 0; a < nal; a++)
                            if (sb_plan_add(plan, k, (size_t)sz[i],
                                            (size_t)al[a], (size_t)dal[j],
                                            &err) != SB_OK)
                                die_usage("%s%s", err.text, "");
            }
        }
        free(copy);
    }
    free(sz);
    free(al);
    free(dal);

    if (sb_plan_check(plan, &opt, &err) != SB_OK)
        die_usage("%s%s", err.text, "");

    if (!quiet && isatty(STDERR_FILENO)) {
        opt.progress = progress;
        opt.progress_arg = NULL;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (sb_run_execute(plan, &opt, &run, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_plan_free(plan);
        return err.code == SB_EINVAL || err.code == SB_EUNAVAIL ? EXIT_USAGE
                                                                : 1;
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (opt.progress)
        fputs("\r\033[K", stderr);
    {
        /* Record the command as typed, whatever libtool named the binary. */
        char *saved = argv[0];
        argv[0] = (char *)progname;
        sb_run_set_command(run, argc, argv, NULL);
        argv[0] = saved;
    }

    if (output) {
        if (write_file(run, format, output) != 0)
            status = 1;
        if (format != SB_FORMAT_TABLE &&
            sb_report(run, SB_FORMAT_TABLE, stdout, &err) != SB_OK)
            status = 1;
    } else if (sb_report(run, format, stdout, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        status = 1;
    }
    if (sb_run_interrupted(run)) {
        fprintf(stderr, "%s: interrupted: partial results above\n",
                progname);
        status = got_signal == SIGTERM ? 143 : 130;
    }
    sb_run_free(run);
    sb_plan_free(plan);
    return status;
}
