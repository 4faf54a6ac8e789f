/*
 * test_plot.c: sb_plot() on runs built without measuring: saved runs
 * written here as small JSON documents (kernel, size and offsets per
 * cell) and read back with sb_run_load_new(), and samples handed to
 * sb_run_from_samples_new().
 *
 * For each kind of figure: the script and the data exist, the data has
 * one line per point (per sample for distributions), the right figure is
 * chosen under SB_PLOT_AUTO, and, where gnuplot can be run, the figure is
 * a complete SVG, PNG or PDF.  Then the errors: an unknown ending, nothing
 * to plot, a directory that cannot be written, gnuplot missing or
 * failing (the script and data stay).  Then the hostile cases: names,
 * CPU model, command and directory that gnuplot would run or expand,
 * which must reach it inert (tests/gp_check.h) and run nothing; links
 * planted at the files' names, replaced and never followed; a gnuplot
 * that fails or draws nothing, which leaves no file of the figure; and a
 * run with nothing to draw.  Renders are skipped (TAP SKIP)
 * when no gnuplot is found.  SB_TEST_KEEP=1 keeps the files (the first
 * line of output names their directory) for a look at the figures.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gp_check.h"
#include "run_internal.h"
#include "statbench.h"
#include "sysinfo.h"
#include "tap.h"

static char dir[256];
static int have_gnuplot = -1; /* -1: not yet known */

/* A small deterministic generator: tests must not depend on the clock. */
static uint64_t lcg = 12345;
static double noise(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg >> 11) / 9007199254740992.0 - 0.5; /* [-0.5, 0.5) */
}

/* One cell of a JSON run. */
typedef struct spec {
    const char *kernel;
    size_t size, src, dst;
    double ticks;  /* typical ticks per call */
    uint64_t seed; /* same seed, same samples (up to the scale) */
} spec;

#define INVOCATIONS 6
#define PER_INV 20

/* Write a run of the documented schema and read it back. */
/* A run of cells c on a CPU of that model, loaded from a file;
 * caches, when not NULL, is the JSON array of its record's caches. */
static sb_run *json_run_caches(const char *name, const char *cpu,
                               const spec *c, size_t n, const char *caches)
{
    char path[512];
    FILE *f;
    sb_run *run = NULL;
    sb_error err = {0};
    int rc;

    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs("{\"schema\": \"statbench-run\", \"schema_version\": 1,\n"
          " \"meta\": {\"cpu_model\": ",
          f);
    json_str(f, cpu);
    fputs(", \"notes\": [", f);
    json_str(f, cpu);
    fprintf(f,
            "], \"command\": \"test_plot %s\",%s%s%s\n"
            "  \"timer\": {\"kind\": \"tsc\", \"hz\": 3e9}},\n"
            " \"cells\": [\n",
            name, caches ? " \"caches\": " : "", caches ? caches : "",
            caches ? "," : "");
    for (size_t i = 0; i < n; i++) {
        fputs("  {\"kernel\": ", f);
        json_str(f, c[i].kernel);
        fprintf(f,
                ", \"size\": %zu, \"src_align\": %zu, "
                "\"dst_align\": %zu,\n   \"invocation_samples\": [",
                c[i].size, c[i].src, c[i].dst);
        for (int g = 0; g < INVOCATIONS; g++)
            fprintf(f, "%s%d", g ? ", " : "", PER_INV);
        fputs("],\n   \"samples_ticks\": [", f);
        lcg = c[i].seed;
        for (int s = 0; s < INVOCATIONS * PER_INV; s++)
            fprintf(f, "%s%.3f", s ? ", " : "",
                    c[i].ticks * (1 + 0.01 * noise()));
        fprintf(f, "]}%s\n", i + 1 < n ? "," : "");
    }
    fputs(" ]}\n", f);
    fclose(f);
    f = fopen(path, "r");
    if (!f)
        return NULL;
    rc = sb_run_load_new(f, path, NULL, &run, &err);
    fclose(f);
    if (rc != SB_OK)
        tap_diag("loading %s: %s", path, err.text);
    return run;
}

static sb_run *json_run(const char *name, const char *cpu, const spec *c,
                        size_t n)
{
    return json_run_caches(name, cpu, c, n, NULL);
}

/* A whole file, NUL-terminated (read to the end: /proc files have no
 * size). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;

    *len = 0;
    if (!f)
        return NULL;
    do {
        if (cap - n < 4096) {
            char *b = realloc(buf, cap = 2 * cap + 8192);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Data lines: neither blank nor a comment. */
static size_t data_lines(const char *path)
{
    size_t len, n = 0;
    char *t = slurp(path, &len), *p = t;
    if (!t)
        return 0;
    while (*p) {
        size_t l = strcspn(p, "\n");
        if (l && p[0] != '#')
            n++;
        p += l;
        if (*p)
            p++;
    }
    free(t);
    return n;
}

/* The value of column col (1-based) of every data line, summed. */
static double column_sum(const char *path, int col)
{
    size_t len;
    char *t = slurp(path, &len), *p = t;
    double sum = 0;
    if (!t)
        return NAN;
    while (*p) {
        size_t l = strcspn(p, "\n");
        if (l && p[0] != '#') {
            char *q = p;
            for (int c = 1; c < col; c++) {
                q += strcspn(q, " ");
                q += strspn(q, " ");
            }
            sum += strtod(q, NULL);
        }
        p += l;
        if (*p)
            p++;
    }
    free(t);
    return sum;
}

static int file_has(const char *path, const char *needle)
{
    size_t len;
    char *t = slurp(path, &len);
    int yes = t && strstr(t, needle) != NULL;
    free(t);
    return yes;
}

/* The figure's files: stem + ".gp", ".dat", and the figure. */
static void paths(const char *stem, const char *ending, char *fig, char *gp,
                  char *dat)
{
    snprintf(fig, 512, "%s/%s.%s", dir, stem, ending);
    snprintf(gp, 512, "%s/%s.gp", dir, stem);
    snprintf(dat, 512, "%s/%s.dat", dir, stem);
}

/* Whether a temporary figure (FIG.something) is left beside fig. */
static int temp_left(const char *fig)
{
    char d[512];
    const char *base = strrchr(fig, '/');
    size_t blen;
    DIR *dp;
    struct dirent *e;
    int found = 0;

    if (base) {
        snprintf(d, sizeof d, "%.*s", (int)(base - fig), fig);
        base++;
    } else {
        snprintf(d, sizeof d, ".");
        base = fig;
    }
    blen = strlen(base);
    if (!(dp = opendir(d)))
        return 0;
    while ((e = readdir(dp)))
        if (!strncmp(e->d_name, base, blen) && e->d_name[blen] == '.')
            found = 1;
    closedir(dp);
    return found;
}

/* Check the rendered figure by its first bytes and, for SVG, its end. */
static void check_render(const char *what, const char *fig, int rc,
                         const sb_error *err)
{
    size_t len;
    char *t;

    if (!have_gnuplot) {
        tap_skip("%s: rendered (no gnuplot)", what);
        return;
    }
    if (!tap_ok(rc == SB_OK, "%s: gnuplot rendered it", what))
        tap_diag("  rc %d: %s", rc, err->text);
    t = slurp(fig, &len);
    if (strstr(fig, ".svg")) {
        tap_ok(t && (!strncmp(t, "<?xml", 5) || !strncmp(t, "<svg", 4)) &&
                   strstr(t, "</svg>"),
               "%s: a complete SVG", what);
    } else if (strstr(fig, ".png")) {
        tap_ok(t && len > 8 && !memcmp(t, "\x89PNG\r\n\x1a\n", 8),
               "%s: the PNG signature", what);
    } else {
        tap_ok(t && len > 5 && !memcmp(t, "%PDF-", 5), "%s: a PDF", what);
    }
    free(t);
    tap_ok(!temp_left(fig), "%s: no temporary file left", what);
}

/* Plot and check the files; returns sb_plot's status. */
static int plot(const sb_run *run, const char *stem, const char *ending,
                int kind, const char *want_kind, size_t want_lines)
{
    char fig[512], gp[512], dat[512], marker[64];
    sb_error err = {0};
    int rc;

    paths(stem, ending, fig, gp, dat);
    rc = sb_plot(run, fig, kind, NULL, &err);
    if (have_gnuplot < 0) {
        have_gnuplot = !(rc == SB_EUNAVAIL && strstr(err.text, "not found"));
        if (!have_gnuplot)
            tap_diag("no gnuplot: %s", err.text);
    }
    tap_ok(file_size(gp) > 0 && file_size(dat) > 0,
           "%s: %s.gp and %s.dat written", stem, stem, stem);
    snprintf(marker, sizeof marker, ": %s figure", want_kind);
    tap_ok(file_has(gp, marker), "%s: a %s figure", stem, want_kind);
    TAP_IS_INT(data_lines(dat), want_lines, "%s: %zu data lines", stem,
               want_lines);
    check_render(stem, fig, rc, &err);
    return rc;
}

/* sb_plot refuses kind of run (check what) with an error saying says. */
static void check_refused(const sb_run *run, const char *fig, int kind,
                          const char *what, const char *says)
{
    sb_error err = {0};
    TAP_IS_INT(sb_plot(run, fig, kind, NULL, &err), SB_EINVAL, "%s", what);
    tap_ok(strstr(err.text, says) != NULL, "  says so: %s", err.text);
}

static void test_sweep(void)
{
    spec c[18];
    size_t n = 0;
    sb_run *run;

    for (int k = 0; k < 2; k++)
        for (size_t s = 0; s <= 8; s++, n++)
            c[n] = (spec){k ? "my_copy" : "movsl", 10240, s, 0,
                          (k ? 2500 : 3000) * (s % 4 ? 1.15 : 1.0), 100 + n};
    run = json_run("sweep", "Test CPU @ 1.00GHz", c, n);
    if (!tap_ok(run != NULL, "sweep run loaded"))
        return;
    plot(run, "sweep_auto", "svg", SB_PLOT_AUTO, "sweep", 18);
    plot(run, "sweep", "svg", SB_PLOT_SWEEP, "sweep", 18);
    plot(run, "sweep_png", "png", SB_PLOT_SWEEP, "sweep", 18);
    plot(run, "sweep_pdf", "pdf", SB_PLOT_SWEEP, "sweep", 18);
    plot(run, "sweep_dist", "svg", SB_PLOT_DISTRIBUTION, "distribution",
         12 + 12 * INVOCATIONS * PER_INV);
    {
        char gp[512], fig[512], dat[512];
        paths("sweep", "svg", fig, gp, dat);
        tap_ok(file_has(gp, "\"source offset (bytes)\"") &&
                   file_has(gp, "throughput (MB/s, 1 MB = 10^6 B)"),
               "sweep: axes labelled with units");
        tap_ok(file_has(gp, "Test CPU @ 1.00GHz") &&
                   file_has(gp, "10 KiB"),
               "sweep: the title names the size and the CPU");
        tap_ok(file_has(gp, "with yerrorlines") &&
                   file_has(gp, "title 'my_copy'"),
               "sweep: CI bars, one line per kernel");
        tap_ok(file_has(gp, "set terminal svg size 900,560 dynamic "
                            "enhanced font \"sans,11\""),
               "sweep: the SVG terminal");
        paths("sweep_png", "png", fig, gp, dat);
        tap_ok(file_has(gp, "pngcairo") &&
                   file_has(gp, "set terminal png size"),
               "png: pngcairo, else libgd's png");
    }
    {
        char fig[512];
        snprintf(fig, sizeof fig, "%s/none.svg", dir);
        check_refused(run, fig, SB_PLOT_MATRIX,
                      "matrix of a sweep: nothing to plot", "nothing to plot");
        check_refused(run, fig, SB_PLOT_SIZES,
                      "sizes of one size: nothing to plot", "two sizes");
        snprintf(fig, sizeof fig, "%s/none.gp", dir);
        tap_ok(access(fig, F_OK) != 0, "  nothing written");
    }
    sb_run_free(run);
}

static void test_matrix(void)
{
    static const size_t src[] = {0, 1, 2, 3}, dst[] = {0, 8, 16};
    spec c[12];
    size_t n = 0, slow = 0, base[12];
    char fig[512], gp[512], dat[512];
    sb_run *run;
    sb_error err = {0};

    /* Every cell the same samples (one seed), but for one 30% slower:
     * its interval alone stays clear of the reference cell's. */
    for (size_t d = 0; d < 3; d++)
        for (size_t s = 0; s < 4; s++) {
            int is_slow = src[s] == 1 && dst[d] == 8;
            if (is_slow)
                slow = n;
            c[n++] = (spec){"movsl", 4096, src[s], dst[d],
                            is_slow ? 1300 : 1000, 7};
        }
    run = json_run("matrix", "Test CPU", c, n);
    if (!tap_ok(run != NULL, "matrix run loaded"))
        return;
    plot(run, "matrix_auto", "svg", SB_PLOT_AUTO, "matrix", 12);
    plot(run, "matrix", "svg", SB_PLOT_MATRIX, "matrix", 12);
    paths("matrix", "svg", fig, gp, dat);
    TAP_IS_INT(column_sum(dat, 8), 1, "matrix: one cell marked (CI rule)");
    tap_ok(file_has(gp, "CIs do not overlap"), "  the key names the rule");
    tap_ok(file_has(dat, "1 1 ") && file_has(gp, "with image"),
           "  a heat map over (src, dst) indices");

    /* With the run's own comparisons against (0, 0), those decide. */
    for (size_t i = 0; i < n; i++)
        base[i] = i == 0 ? SIZE_MAX : 0;
    if (!tap_ok(sb_run_set_baselines(run, base, &err) == SB_OK,
                "baselines set"))
        tap_diag("  %s", err.text);
    plot(run, "matrix_cmp", "svg", SB_PLOT_MATRIX, "matrix", 12);
    paths("matrix_cmp", "svg", fig, gp, dat);
    TAP_IS_INT(column_sum(dat, 8), 1, "matrix: one cell marked (test)");
    tap_ok(file_has(gp, "Holm-adjusted p < 0.05"),
           "  the key names the test");
    /* The marked line is the slow cell's: index (1, 1), src 1, dst 8. */
    TAP_IS_INT(slow, 5, "  the slow cell is the sixth");
    tap_ok(file_has(dat, " 1 8 1\n"), "  the slow cell is the one marked");
    sb_run_free(run);
}

static void test_sizes(void)
{
    spec c[16];
    size_t n = 0;
    char model[128], fig[512], gp[512], dat[512];
    sb_run *run;

    for (int k = 0; k < 2; k++)
        for (size_t sz = 512; sz <= 65536; sz *= 2, n++)
            c[n] = (spec){k ? "sse2_nt" : "movsl", sz, 0, 0,
                          sz * (sz > 16384 ? 0.4 : 0.15) + (k ? 90 : 40),
                          300 + n};
    /* The caches come from the run's record, whatever machine draws it;
     * a level whose name is not letters and digits would be pasted into
     * the script between quotes: it is not drawn. */
    snprintf(model, sizeof model, "a CPU elsewhere");
    run = json_run_caches(
        "sizes", model, c, n,
        "[{\"level\": \"L1d\", \"bytes\": 32768}, "
        "{\"level\": \"L2\\\"\\nx\", \"bytes\": 16384}, "
        "{\"level\": \"L1\\\"set\", \"bytes\": 8192}, "
        "{\"level\": \"L2\", \"bytes\": 1048576}, "
        "{\"level\": \"L3\", \"bytes\": -5}]");
    if (!tap_ok(run != NULL, "sizes run loaded"))
        return;
    plot(run, "sizes_auto", "svg", SB_PLOT_AUTO, "sizes", 16);
    plot(run, "sizes", "svg", SB_PLOT_SIZES, "sizes", 16);
    paths("sizes", "svg", fig, gp, dat);
    tap_ok(file_has(gp, "set logscale x 2"), "sizes: a log2 size axis");
    tap_ok(file_has(gp, "set arrow from 32768,") &&
               file_has(gp, "set label \"L1d 32 KiB\" at 32768,") &&
               file_has(gp, "the measuring CPU's caches"),
           "sizes: the record's L1d drawn, measured on another CPU");
    tap_ok(!file_has(gp, "1048576,") && !file_has(gp, "L1\"set") &&
               !file_has(gp, "16384, graph") && !file_has(gp, "8192, graph"),
           "sizes: L2 past the sizes not drawn, nor a hostile level's "
           "name");
    sb_run_free(run);
}

static void test_distribution(void)
{
    const char *names[14] = {"a_b", "we\"ird 'name'", "c"};
    double *v[14];
    size_t n[14];
    sb_run *run = NULL;
    sb_error err = {0};
    char fig[512];

    for (size_t i = 0; i < 14; i++) {
        static char buf[14][16];
        if (i >= 3) {
            snprintf(buf[i], sizeof buf[i], "cell%zu", i);
            names[i] = buf[i];
        }
        n[i] = 40 + i;
        v[i] = malloc(n[i] * sizeof *v[i]);
        for (size_t j = 0; j < n[i]; j++)
            v[i][j] = 100 + 10 * (double)i + 5 * noise();
    }
    if (!tap_ok(sb_run_from_samples_new(names, (const double *const *)v, n, 3,
                                        NULL, 1, &run, &err) == SB_OK,
                "samples run made"))
        tap_diag("  %s", err.text);
    if (run) {
        plot(run, "dist_auto", "svg", SB_PLOT_AUTO, "distribution",
             3 + 40 + 41 + 42);
        snprintf(fig, sizeof fig, "%s/dsweep.svg", dir);
        check_refused(run, fig, SB_PLOT_SWEEP,
                      "sweep of one offset: SB_EINVAL", "nothing to plot");
        sb_run_free(run);
    }
    run = NULL;
    if (sb_run_from_samples_new(names, (const double *const *)v, n, 14, NULL, 1,
                                &run, &err) == SB_OK) {
        size_t want = 12;
        for (size_t i = 0; i < 12; i++)
            want += n[i];
        plot(run, "dist12", "png", SB_PLOT_DISTRIBUTION, "distribution",
             want);
        sb_run_free(run);
    } else
        tap_ok(0, "14-cell samples run: %s", err.text);
    for (size_t i = 0; i < 14; i++)
        free(v[i]);
}

/* A run of one kernel, name, with 20 samples of 10 + noise(); NULL after
 * a failed check "what run: ...". */
static sb_run *noise_run(const char *name, const char *what)
{
    const char *names[1] = {name};
    double x[20];
    const double *v[1] = {x};
    size_t n[1] = {20};
    sb_run *run = NULL;
    sb_error err = {0};

    for (size_t i = 0; i < 20; i++)
        x[i] = 10 + noise();
    if (sb_run_from_samples_new(names, v, n, 1, NULL, 1, &run, &err) != SB_OK) {
        tap_ok(0, "%s run: %s", what, err.text);
        return NULL;
    }
    return run;
}

static void test_errors(void)
{
    sb_run *run = noise_run("x", "error");
    sb_error err = {0};
    char fig[512], gp[512], dat[512];
    int rc;

    if (!run)
        return;
    snprintf(fig, sizeof fig, "%s/fig.jpg", dir);
    TAP_IS_INT(sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err), SB_EINVAL,
               "unknown ending: SB_EINVAL");
    tap_ok(strstr(err.text, ".jpg") != NULL, "  names it: %s", err.text);
    snprintf(fig, sizeof fig, "%s/fig", dir);
    TAP_IS_INT(sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err), SB_EINVAL,
               "no ending: SB_EINVAL");
    snprintf(fig, sizeof fig, "%s/fig.svg", dir);
    TAP_IS_INT(sb_plot(run, fig, 99, NULL, &err), SB_EINVAL,
               "unknown kind: SB_EINVAL");

    TAP_IS_INT(sb_plot(run, "/nonexistent-sbplot-dir/fig.svg", SB_PLOT_AUTO,
                       NULL, &err),
               SB_EIO, "unwritable directory: SB_EIO");
    tap_ok(strstr(err.text, "/nonexistent-sbplot-dir/fig.") &&
               strstr(err.text, strerror(ENOENT)),
           "  names the path and the error: %s", err.text);

    paths("nogp", "svg", fig, gp, dat);
    rc = sb_plot(run, fig, SB_PLOT_AUTO, "/nonexistent/gnuplot", &err);
    TAP_IS_INT(rc, SB_EUNAVAIL, "gnuplot missing: SB_EUNAVAIL");
    tap_ok(strstr(err.text, "gnuplot not found") &&
               strstr(err.text, "nogp.gp`"),
           "  says how to render by hand: %s", err.text);
    tap_ok(file_size(gp) > 0 && file_size(dat) > 0,
           "  the .gp and .dat stay");
    tap_ok(access(fig, F_OK) != 0, "  no figure");

    paths("false", "svg", fig, gp, dat);
    rc = sb_plot(run, fig, SB_PLOT_AUTO, "/bin/false", &err);
    TAP_IS_INT(rc, SB_EIO, "gnuplot failing: SB_EIO (an error)");
    tap_ok(strstr(err.text, "failed") && strstr(err.text, "false.gp"),
           "  says so: %s", err.text);
    tap_ok(file_size(gp) > 0 && access(fig, F_OK) != 0,
           "  the script stays, no figure");

    /* A gnuplot that fails the way gnuplot does: its error line (the one
     * naming the script's line) goes into the message. */
    {
        char fake[512];
        FILE *f;
        snprintf(fake, sizeof fake, "%s/fake-gnuplot", dir);
        f = fopen(fake, "w");
        if (f) {
            fputs("#!/bin/sh\n"
                  "echo 'some output'\n"
                  "printf '\\nplot data using 1:2\\n     ^\\n' >&2\n"
                  "echo '\"x.gp\" line 7: pdfcairo terminal missing' >&2\n"
                  "exit 1\n",
                  f);
            fclose(f);
            chmod(fake, 0755);
        }
        paths("fake", "svg", fig, gp, dat);
        rc = sb_plot(run, fig, SB_PLOT_AUTO, fake, &err);
        TAP_IS_INT(rc, SB_EIO, "gnuplot reporting an error");
        tap_ok(strstr(err.text, "line 7: pdfcairo terminal missing") != NULL,
               "  its error line is in the message: %s", err.text);
    }

    /* A file name that gnuplot's quoting must survive, in a directory of
     * its own; and one that looks like an option. */
    {
        char sub[400], cwd[512];
        snprintf(sub, sizeof sub, "%s/it's here", dir);
        mkdir(sub, 0700);
        snprintf(fig, sizeof fig, "%s/o'dd.svg", sub);
        rc = sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err);
        check_render("quoted path", fig, rc, &err);

        /* The command the message suggests works from anywhere: the
         * script finds its data beside itself. */
        unlink(fig);
        rc = sb_plot(run, fig, SB_PLOT_AUTO, "/nonexistent/gnuplot", &err);
        TAP_IS_INT(rc, SB_EUNAVAIL, "quoted path without gnuplot");
        if (have_gnuplot && strchr(err.text, '`')) {
            char cmd[600], here[512];
            const char *a = strchr(err.text, '`') + 1;
            size_t len = strcspn(a, "`");
            snprintf(cmd, sizeof cmd, "%.*s >/dev/null 2>&1", (int)len, a);
            if (getcwd(here, sizeof here) && chdir("/") == 0) {
                tap_ok(system(cmd) == 0 && file_size(fig) > 0,
                       "  `%.*s` from / draws the figure", (int)len, a);
                if (chdir(here) != 0)
                    tap_diag("cannot return to %s", here);
            }
        } else
            tap_skip("  rendering by hand (no gnuplot)");
        if (getcwd(cwd, sizeof cwd) && chdir(dir) == 0) {
            rc = sb_plot(run, "-dash.svg", SB_PLOT_AUTO, NULL, &err);
            check_render("leading dash", "-dash.svg", rc, &err);
            if (chdir(cwd) != 0)
                tap_diag("cannot return to %s", cwd);
        }
    }
    sb_run_free(run);
}

/* ---- Hostile names -------------------------------------------------- */

/* Names that gnuplot would run, expand or break on if the script let them
 * be code: each tries to create a file PWNED... in gnuplot's current
 * directory. */
static const char *const hostile[] = {
    "`touch PWNED1`",
    "$(touch PWNED2)",
    "it's `touch PWNED3`",
    "q\"`touch PWNED4`\"\\",
    "@m `touch PWNED5`",
    "nl\n`touch PWNED6`\n",
    "esc\x1b[31m`touch PWNED7`",
    "x' . system('touch PWNED8') . '",
    "bs\\",
    "semi; print 'PWNED9' # hash {^_&}",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* Entries of directory d whose name starts with "PWNED", removed (so
 * that the next figure is judged by itself); returns how many. */
static int pwned_in(const char *d)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    char path[1024];
    int n = 0;
    if (!dp)
        return 0;
    while ((e = readdir(dp)))
        if (!strncmp(e->d_name, "PWNED", 5)) {
            n++;
            snprintf(path, sizeof path, "%s/%s", d, e->d_name);
            unlink(path);
        }
    closedir(dp);
    return n;
}

/* Plot run into fig with gnuplot run in cwd; check the script is inert
 * and, where gnuplot is installed, that running it made no PWNED file
 * and drew the figure. */
static void hostile_plot(const sb_run *run, const char *cwd, const char *fig,
                         const char *figdir, int kind, const char *what)
{
    char gp[600], here[512];
    const char *problem;
    sb_error err = {0};
    size_t len;
    char *script;
    int rc = SB_EIO;

    snprintf(gp, sizeof gp, "%.*s.gp", (int)(strrchr(fig, '.') - fig), fig);
    if (getcwd(here, sizeof here) && chdir(cwd) == 0) {
        rc = sb_plot(run, fig, kind, NULL, &err);
        if (chdir(here) != 0)
            tap_diag("cannot return to %s", here);
    }
    script = slurp(gp, &len);
    problem = script ? gp_problem(script) : "no script";
    if (!tap_ok(!problem, "%s: the script is inert", what))
        tap_diag("  %s", problem);
    free(script);
    if (!have_gnuplot) {
        tap_skip("%s: gnuplot made no file (no gnuplot)", what);
        return;
    }
    {
        int made = pwned_in(cwd) + pwned_in(figdir);
        tap_ok(made == 0,
               "%s: gnuplot ran nothing found in the names (no PWNED file)",
               what);
    }
    if (!tap_ok(rc == SB_OK && file_size(fig) > 0, "%s: the figure drawn",
                what))
        tap_diag("  rc %d: %s", rc, err.text);
}

static void test_hostile(void)
{
    char cwd[400], figdir[400], fig[600];
    const char *args[] = {"statbench", "--plot", "x`touch PWNED20`",
                          "ends in a backslash \\"};
    const char *cpu = "CPU `touch PWNED21` @m $(touch PWNED22) 'q' \"d\"\n"
                      "\x1b[2J\\";
    spec c[12];
    size_t n = 0;
    sb_run *run;
    sb_error err = {0};

    /* gnuplot runs in cwd; the figure goes into a directory whose name
     * is hostile too. */
    snprintf(cwd, sizeof cwd, "%s/hostile-cwd", dir);
    snprintf(figdir, sizeof figdir,
             "%s/`touch PWNED30`$(touch PWNED31)@m;#'x\"", dir);
    if (mkdir(cwd, 0700) != 0 || mkdir(figdir, 0700) != 0) {
        tap_ok(0, "hostile: directories: %s", strerror(errno));
        return;
    }

    /* Throughput against size: two hostile kernels at three sizes. */
    for (int k = 0; k < 2; k++)
        for (size_t sz = 1024; sz <= 4096; sz *= 2, n++)
            c[n] = (spec){hostile[k ? 4 : 0], sz, 0, 0,
                          (double)sz * (k ? 0.3 : 0.2), 500 + n};
    run = json_run("hostile-sizes", cpu, c, n);
    if (tap_ok(run != NULL, "hostile sizes run loaded")) {
        sb_run_set_command(run, 4, (char *const *)args, &err);
        snprintf(fig, sizeof fig, "%s/f'`touch PWNED32`.svg", figdir);
        hostile_plot(run, cwd, fig, figdir, SB_PLOT_SIZES, "hostile sizes");
        if (have_gnuplot) {
            /* Shown as written: neither run nor typeset ('@' and '_' in
             * enhanced text). */
            tap_ok(file_has(fig, "@m `touch PWNED5`") &&
                       file_has(fig, "`touch PWNED21` @m $(touch PWNED22)"),
                   "hostile sizes: the names shown literally");
        }
        sb_run_free(run);
    }

    /* A sweep and a matrix, the other names. */
    n = 0;
    for (int k = 0; k < 2; k++)
        for (size_t s = 0; s < 3; s++, n++)
            c[n] = (spec){hostile[k ? 7 : 2], 4096, s, 0, 1000 + 100 * s,
                          600 + n};
    run = json_run("hostile-sweep", hostile[3], c, n);
    if (tap_ok(run != NULL, "hostile sweep run loaded")) {
        snprintf(fig, sizeof fig, "%s/sweep.png", figdir);
        hostile_plot(run, cwd, fig, figdir, SB_PLOT_SWEEP, "hostile sweep");
        sb_run_free(run);
    }
    n = 0;
    for (size_t d = 0; d < 2; d++)
        for (size_t s = 0; s < 2; s++, n++)
            c[n] = (spec){hostile[9], 4096, s, 8 * d, 1000 + 300 * s * d, 7};
    run = json_run("hostile-matrix", hostile[8], c, n);
    if (tap_ok(run != NULL, "hostile matrix run loaded")) {
        snprintf(fig, sizeof fig, "%s/matrix.svg", figdir);
        hostile_plot(run, cwd, fig, figdir, SB_PLOT_MATRIX,
                     "hostile matrix");
        sb_run_free(run);
    }

    /* Every name as a cell of its own (as `analyze` names its files). */
    {
        double *v[NHOSTILE];
        size_t nv[NHOSTILE];
        run = NULL;
        for (size_t i = 0; i < NHOSTILE; i++) {
            nv[i] = 30;
            v[i] = malloc(nv[i] * sizeof *v[i]);
            for (size_t j = 0; v[i] && j < nv[i]; j++)
                v[i][j] = 50 + (double)i + noise();
        }
        if (sb_run_from_samples_new(hostile, (const double *const *)v, nv,
                                    NHOSTILE, NULL, 1, &run, &err) == SB_OK) {
            sb_run_set_command(run, 4, (char *const *)args, &err);
            snprintf(fig, sizeof fig, "%s/dist.svg", figdir);
            hostile_plot(run, cwd, fig, figdir, SB_PLOT_DISTRIBUTION,
                         "hostile distribution");
            sb_run_free(run);
        } else
            tap_ok(0, "hostile distribution run: %s", err.text);
        for (size_t i = 0; i < NHOSTILE; i++)
            free(v[i]);
    }
}

/* A caller's own kernels (sb_kernel structs, not a loaded file, whose
 * names the loader cleans) named with newlines and escapes: the figure
 * writer's own cleaning is all that stands between such a name and a
 * line of the script.  The runs are loaded, then their cells handed
 * these kernels. */
static void test_caller_names(void)
{
    static const sb_kernel k[] = {
        {.size = sizeof(sb_kernel), .name = "nl\n`touch PWNED40`\nsystem "
                                            "'touch PWNED41'\n#",
         .family = SB_FAMILY_COPY, .description = "d\n!touch PWNED42"},
        {.size = sizeof(sb_kernel), .name = "esc\x1b[2J\rprint 'x' \\",
         .family = SB_FAMILY_COPY, .description = "e"},
    };
    static const struct {
        int kind;
        const char *what, *ending;
    } kinds[] = {{SB_PLOT_SIZES, "caller names: sizes", "svg"},
                 {SB_PLOT_SWEEP, "caller names: sweep", "png"},
                 {SB_PLOT_MATRIX, "caller names: matrix", "svg"},
                 {SB_PLOT_DISTRIBUTION, "caller names: distribution", "svg"}};
    char cwd[400], fig[600], pname[2][64];
    sb_kernel plain[2];
    spec c[8];
    size_t n;

    for (int i = 0; i < 2; i++) {
        size_t l = strlen(k[i].name);
        memset(pname[i], 'a' + i, l);
        pname[i][l] = '\0';
        plain[i] = k[i];
        plain[i].name = pname[i];
        plain[i].description = "plain";
    }
    snprintf(cwd, sizeof cwd, "%s/caller-cwd", dir);
    if (mkdir(cwd, 0700) != 0) {
        tap_ok(0, "caller names: directory: %s", strerror(errno));
        return;
    }
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
        sb_run *run;
        n = 0;
        for (size_t q = 0; q < 2; q++)
            for (size_t s = 0; s < 3; s++) {
                const char *nm = q ? "b" : "a";
                double t = 1000 + 100.0 * (double)s + 50.0 * (double)q;
                uint64_t seed = 700 + n;
                if (kinds[j].kind == SB_PLOT_SIZES)
                    c[n++] = (spec){nm, (size_t)1024 << s, 0, 0, t, seed};
                else if (kinds[j].kind != SB_PLOT_MATRIX)
                    c[n++] = (spec){nm, 4096, s, 0, t, seed};
                else if (s < 2)
                    c[n++] = (spec){"a", 4096, s, 8 * q, t, seed};
            }
        run = json_run("caller", "cpu", c, n);
        if (!tap_ok(run != NULL, "%s: run loaded", kinds[j].what))
            continue;
        for (size_t i = 0; i < run->ncells; i++)
            run->cells[i].cell.kernel = &k[kinds[j].kind == SB_PLOT_MATRIX
                                               ? 0
                                               : i * 2 / run->ncells];
        snprintf(fig, sizeof fig, "%s/caller%zu.%s", dir, j, kinds[j].ending);
        hostile_plot(run, cwd, fig, dir, kinds[j].kind, kinds[j].what);
        /* The same figure of kernels with plain names of the same
         * lengths: the names may only ever be the text of literals, so
         * the code around them is the same; and the data file holds
         * comments and numbers only (a newline in a comment would make
         * the rest of the name a line of data). */
        {
            char gp[700], pgp[700], dat[700], *a, *b, *sa, *sb, *d;
            const char *bad = NULL;
            size_t len;
            snprintf(gp, sizeof gp, "%s/caller%zu.gp", dir, j);
            snprintf(dat, sizeof dat, "%s/caller%zu.dat", dir, j);
            snprintf(pgp, sizeof pgp, "%s/plain%zu.gp", dir, j);
            for (size_t i = 0; i < run->ncells; i++)
                run->cells[i].cell.kernel =
                    &plain[run->cells[i].cell.kernel == &k[0] ? 0 : 1];
            snprintf(fig, sizeof fig, "%s/plain%zu.%s", dir, j,
                     kinds[j].ending);
            sb_plot(run, fig, kinds[j].kind, NULL, NULL);
            a = slurp(gp, &len);
            b = slurp(pgp, &len);
            d = slurp(dat, &len);
            sa = a ? gp_skeleton(a) : NULL;
            sb = b ? gp_skeleton(b) : NULL;
            tap_ok(sa && sb && !strcmp(sa, sb),
                   "%s: the script's code is that of plain names",
                   kinds[j].what);
            for (const char *p = d; p && *p && !bad; p += strcspn(p, "\n"),
                            p += *p ? 1 : 0)
                if (*p != '#' && *p != '\n' && !strchr("0123456789-N", *p))
                    bad = p;
            if (!tap_ok(d && !bad, "%s: the data file holds comments and "
                        "numbers only", kinds[j].what))
                tap_diag("  %.*s", bad ? (int)strcspn(bad, "\n") : 0,
                         bad ? bad : "");
            free(a);
            free(b);
            free(d);
            free(sa);
            free(sb);
        }
        sb_run_free(run);
    }
}

/* ---- Links and leftovers --------------------------------------------- */

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int is_regular(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A symbolic link another user planted at a path sb_plot writes (FIG.gp,
 * FIG.dat, the figure, the temporary name the figure once had) is
 * replaced, never followed: the file it points to keeps its contents. */
static void test_links(const sb_run *run)
{
    static const char *const ends[] = {"gp", "dat", "svg"};
    char sub[400], victim[4][600], at[4][600], fig[600], path[600];
    sb_error err = {0};
    int rc, kept = 1;
    size_t len;

    snprintf(sub, sizeof sub, "%s/links", dir);
    mkdir(sub, 0700);
    for (int i = 0; i < 4; i++) {
        snprintf(victim[i], sizeof victim[i], "%s/victim%d", sub, i);
        put_file(victim[i], "precious\n");
        chmod(victim[i], 0600);
        if (i < 3)
            snprintf(at[i], sizeof at[i], "%s/fig.%s", sub, ends[i]);
        else /* the figure's temporary name of older versions */
            snprintf(at[i], sizeof at[i], "%s/fig.svg.tmp%ld", sub,
                     (long)getpid());
        if (symlink(victim[i], at[i]) != 0)
            tap_diag("symlink %s: %s", at[i], strerror(errno));
    }
    snprintf(fig, sizeof fig, "%s/fig.svg", sub);
    rc = sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err);
    for (int i = 0; i < 4; i++) {
        char *t = slurp(victim[i], &len);
        if (!t || strcmp(t, "precious\n"))
            kept = 0;
        free(t);
    }
    tap_ok(kept, "links: the files the links point to are untouched");
    tap_ok(is_regular(at[0]) && is_regular(at[1]),
           "links: FIG.gp and FIG.dat are new files in the links' place");
    if (have_gnuplot) {
        if (!tap_ok(rc == SB_OK && is_regular(fig) && file_size(fig) > 0,
                    "links: the figure is a new file in the link's place"))
            tap_diag("  rc %d: %s", rc, err.text);
    } else
        tap_skip("links: the figure replaces its link (no gnuplot)");

    /* A dangling link: following it would create its target. */
    snprintf(path, sizeof path, "%s/created-through-link", sub);
    snprintf(at[0], sizeof at[0], "%s/dangling.gp", sub);
    snprintf(at[1], sizeof at[1], "%s/dangling.dat", sub);
    if (symlink(path, at[0]) != 0 || symlink(path, at[1]) != 0)
        tap_diag("symlink: %s", strerror(errno));
    snprintf(fig, sizeof fig, "%s/dangling.svg", sub);
    sb_plot(run, fig, SB_PLOT_AUTO, "/nonexistent/gnuplot", &err);
    tap_ok(access(path, F_OK) != 0 && is_regular(at[0]) && is_regular(at[1]),
           "links: a dangling link is replaced, its target not created");

    /* What is neither a file nor a link is refused, and stays. */
    snprintf(at[0], sizeof at[0], "%s/fifo.dat", sub);
    snprintf(fig, sizeof fig, "%s/fifo.svg", sub);
    if (mkfifo(at[0], 0600) == 0) {
        struct stat st;
        TAP_IS_INT(sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err), SB_EINVAL,
                   "a FIFO at FIG.dat: refused");
        tap_ok(strstr(err.text, "fifo.dat: a device, FIFO or socket") &&
                   lstat(at[0], &st) == 0 && S_ISFIFO(st.st_mode),
               "  says so, and the FIFO stays: %s", err.text);
    } else
        tap_skip("a FIFO at FIG.dat: mkfifo: %s", strerror(errno));
    snprintf(fig, sizeof fig, "%s/dir.svg", sub);
    mkdir(fig, 0700);
    TAP_IS_INT(sb_plot(run, fig, SB_PLOT_AUTO, NULL, &err), SB_EINVAL,
               "a directory at FIG: refused");
    snprintf(at[0], sizeof at[0], "%s/dir.gp", sub);
    tap_ok(strstr(err.text, "a directory") && access(at[0], F_OK) != 0,
           "  says so, before writing anything: %s", err.text);
}

/* A gnuplot that fails after writing part of the figure, and one that
 * succeeds without drawing anything: an error, and nothing left of the
 * figure. */
static void test_leftovers(const sb_run *run)
{
    static const struct {
        const char *name, *body, *says;
    } fakes[] = {
        {"partial", "echo '<svg partial' >\"$out\"\nexit 1\n", "failed"},
        {"empty", "exit 0\n", "drew nothing"},
    };
    char sub[400], fake[600], fig[600];
    sb_error err = {0};

    snprintf(sub, sizeof sub, "%s/leftovers", dir);
    mkdir(sub, 0700);
    for (size_t i = 0; i < sizeof fakes / sizeof fakes[0]; i++) {
        FILE *f;
        int rc;
        snprintf(fake, sizeof fake, "%s/gnuplot-%s", sub, fakes[i].name);
        f = fopen(fake, "w");
        if (f) {
            /* argv: -e out='TMP' SCRIPT (no quote in these paths). */
            fprintf(f, "#!/bin/sh\nout=${2#out=\\'}\nout=${out%%\\'}\n%s",
                    fakes[i].body);
            fclose(f);
            chmod(fake, 0755);
        }
        snprintf(fig, sizeof fig, "%s/%s.svg", sub, fakes[i].name);
        rc = sb_plot(run, fig, SB_PLOT_AUTO, fake, &err);
        TAP_IS_INT(rc, SB_EIO, "%s gnuplot: an error (SB_EIO)",
                   fakes[i].name);
        tap_ok(strstr(err.text, fakes[i].says) && !strchr(err.text, '\n'),
               "  one line saying so: %s", err.text);
        tap_ok(access(fig, F_OK) != 0 && !temp_left(fig),
               "  no figure and no temporary file left");
    }
}

/* A run with no sample to draw is refused before anything is written. */
static void test_nothing(void)
{
    char path[512], fig[512];
    FILE *f;
    sb_run *run = NULL;
    sb_error err = {0};

    snprintf(path, sizeof path, "%s/empty.json", dir);
    f = fopen(path, "w");
    if (!f)
        return;
    fputs("{\"schema\": \"statbench-run\", \"schema_version\": 1,\n"
          " \"meta\": {\"timer\": {\"kind\": \"tsc\", \"hz\": 3e9}},\n"
          " \"cells\": [{\"kernel\": \"a\", \"size\": 64, \"src_align\": 0,"
          " \"dst_align\": 0, \"samples_ticks\": []},\n"
          "  {\"kernel\": \"a\", \"size\": 128, \"src_align\": 0,"
          " \"dst_align\": 0, \"samples_ticks\": []}]}\n",
          f);
    fclose(f);
    f = fopen(path, "r");
    if (f && sb_run_load_new(f, path, NULL, &run, &err) == SB_OK) {
        snprintf(fig, sizeof fig, "%s/empty.svg", dir);
        check_refused(run, fig, SB_PLOT_AUTO,
                      "no samples: no figure (SB_EINVAL)", "nothing to plot");
        snprintf(fig, sizeof fig, "%s/empty.gp", dir);
        tap_ok(access(fig, F_OK) != 0, "  nothing written");
        sb_run_free(run);
    } else
        tap_skip("no samples: the loader refuses it (%s)", err.text);
    if (f)
        fclose(f);
}

int main(void)
{
    const char *keep = getenv("SB_TEST_KEEP");

    snprintf(dir, sizeof dir, "%s/sbplotXXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    tap_diag("files in %s", dir);
    test_sweep();
    test_matrix();
    test_sizes();
    test_distribution();
    test_errors();
    test_hostile();
    test_caller_names();
    {
        sb_run *run = noise_run("links", "links");
        if (run) {
            test_links(run);
            test_leftovers(run);
        }
        sb_run_free(run);
    }
    test_nothing();
    if (!keep || !*keep) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            tap_diag("could not remove %s", dir);
    }
    return tap_done();
}
