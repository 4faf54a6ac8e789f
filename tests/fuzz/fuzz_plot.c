/*
 * fuzz_plot.c: libFuzzer harness for the figure writer, sb_plot()
 * (src/report/figure*.c), with hostile strings: kernel names, the CPU
 * model, the command line and the file name all come from the input.
 *
 * The input: one byte choosing the figure (kind, cells, ending), then up
 * to five strings separated by NUL bytes: two kernel names, the CPU
 * model, an argument of the command line and the figure's file name.
 * The names and the CPU model go into a saved run (JSON, as `statbench
 * report` reads it: sizes, offsets, or a matrix); when the reader refuses
 * it (bytes that are not UTF-8, say), the two names make a run of samples
 * (as `statbench analyze` does with its file names), which takes any
 * bytes.  sb_plot() writes FIG.gp and FIG.dat and is given a gnuplot that
 * does not exist, so that nothing is run.  Then:
 *   - the script is inert (tests/gp_check.h: names only ever inside
 *     single-quoted literals, no control character in a literal, no
 *     backquote or '@' outside one, no comment ending in a backslash);
 *   - the same run with every name replaced by a plain one of the same
 *     length (the "twin") gives a script with the same code once literals
 *     and comments are emptied, and the same data lines: a name can change
 *     what a literal says, never what gnuplot does;
 *   - the data file's comments hold no control character;
 *   - the message is one line, and nothing but FIG.gp and FIG.dat is left
 *     in the directory (no temporary file).
 * The run is also written by every reporter (fuzz.h), with the same names.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../gp_check.h"
#include "fuzz.h"
#include "statbench.h"
#include "sysinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFIELDS 5
#define NSAMPLES 5

static char top[256], hdir[300], tdir[300];
static char here_cpu[128]; /* this machine's, as plot.c reads it */

/* One cell of a run: which of the two names, where, how fast. */
typedef struct cellspec {
    int name;
    size_t size, src, dst;
    double ticks;
} cellspec;

static void init(void)
{
    snprintf(top, sizeof top, "%s/sbfuzzplotXXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(top) != NULL);
    snprintf(hdir, sizeof hdir, "%s/hostile", top);
    snprintf(tdir, sizeof tdir, "%s/twin", top);
    CHECK(mkdir(hdir, 0700) == 0 && mkdir(tdir, 0700) == 0);
    sb__cpu_model(here_cpu, sizeof here_cpu); /* sysinfo.c, as plot.c */
}

static sb_run *json_run(const char *const names[2], const char *cpu,
                        const cellspec *c, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sb_run *run = NULL;
    sb_error err = {0};

    if (!f)
        return NULL;
    fputs("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
          "\"meta\": {\"cpu_model\": ",
          f);
    json_str(f, cpu);
    fputs(", \"notes\": [", f);
    json_str(f, cpu);
    fputs("], \"timer\": {\"kind\": \"tsc\", \"hz\": 3e9}}, \"cells\": [",
          f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ", {\"kernel\": " : "{\"kernel\": ", f);
        json_str(f, names[c[i].name]);
        fprintf(f,
                ", \"size\": %zu, \"src_align\": %zu, \"dst_align\": %zu, "
                "\"samples_ticks\": [",
                c[i].size, c[i].src, c[i].dst);
        for (int j = 0; j < NSAMPLES; j++)
            fprintf(f, "%s%.1f", j ? ", " : "", c[i].ticks + j);
        fputs("]}", f);
    }
    fputs("]}", f);
    fclose(f);
    f = fmemopen(buf, len, "r");
    if (f) {
        if (sb_run_load_new(f, "fuzz.json", NULL, &run, &err) != SB_OK)
            run = NULL;
        fclose(f);
    }
    free(buf);
    return run;
}

static sb_run *samples_run(const char *const names[2])
{
    double a[NSAMPLES], b[NSAMPLES];
    const double *v[2] = {a, b};
    size_t n[2] = {NSAMPLES, NSAMPLES};
    sb_run *run = NULL;
    sb_error err = {0};

    for (int j = 0; j < NSAMPLES; j++) {
        a[j] = 100 + j;
        b[j] = 130 + 2 * j;
    }
    if (sb_run_from_samples_new(names, v, n, 2, NULL, 1, &run, &err) != SB_OK)
        return NULL;
    return run;
}

/* A plain name of len bytes, the k-th distinct one. */
static char *plain(size_t k, size_t len)
{
    char *s = malloc(len + 1);
    CHECK(s != NULL);
    memset(s, 'x', len);
    if (len > 0)
        s[0] = (char)('a' + k % 26);
    if (len > 1)
        s[1] = (char)('a' + k / 26 % 26);
    s[len] = '\0';
    return s;
}

/* The data lines of a .dat (comments dropped); its comments must hold no
 * control character, its other lines nothing but numbers. */
static char *dat_numbers(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    const char *p = text;
    CHECK(out != NULL);
    while (*p) {
        size_t n = strcspn(p, "\n");
        for (size_t i = 0; i < n; i++)
            CHECK((unsigned char)p[i] >= 0x20 && p[i] != 0x7f);
        if (p[0] != '#') {
            CHECK(strspn(p, "0123456789.eE+- NaN") == n);
            memcpy(o, p, n);
            o += n;
            *o++ = '\n';
        }
        p += n;
        if (*p)
            p++;
    }
    *o = '\0';
    return out;
}

/* Plot into directory d; returns sb_plot's status, the script and the
 * data lines (NULL when nothing was written). */
static int plot(const sb_run *run, const char *d, const char *stem,
                const char *ending, int kind, char **gp, char **dat)
{
    char fig[700], gpp[700], datp[700];
    sb_error err = {0};
    int rc;
    DIR *dp;
    struct dirent *e;

    snprintf(fig, sizeof fig, "%s/%s.%s", d, stem, ending);
    snprintf(gpp, sizeof gpp, "%s/%s.gp", d, stem);
    snprintf(datp, sizeof datp, "%s/%s.dat", d, stem);
    rc = sb_plot(run, fig, kind, "/nonexistent/gnuplot", &err);
    CHECK(rc != SB_OK);
    CHECK(err.code == rc && err.text[0] && !strchr(err.text, '\n'));
    *gp = slurp(gpp);
    *dat = NULL;
    if (*gp) {
        char *t = slurp(datp);
        CHECK(t != NULL);
        *dat = dat_numbers(t);
        free(t);
    }
    /* Nothing else is left, then the directory is emptied. */
    dp = opendir(d);
    CHECK(dp != NULL);
    while ((e = readdir(dp))) {
        char path[1000];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        if (strcmp(path, gpp) && strcmp(path, datp)) {
            fprintf(stderr, "left behind: %s\n", path);
            CHECK(0);
        }
        unlink(path);
    }
    closedir(dp);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static const char *const endings[] = {"svg", "pdf", "png"};
    const char *field[NFIELDS] = {"a", "b", "CPU", "x", "fig"};
    char *buf, *p, *end;
    const char *names[2], *tnames[2], *stem, *ending, *lname[2];
    char *owned[3] = {NULL, NULL, NULL};
    const char *tcpu;
    cellspec c[8];
    size_t n = 0, nf = 0;
    int kind, layout, rc, trc;
    sb_run *run = NULL, *twin = NULL;
    char *gp = NULL, *dat = NULL, *tgp = NULL, *tdat = NULL;

    if (!ready) {
        init();
        ready = 1;
    }
    if (size == 0)
        return 0;
    kind = data[0] % 5; /* SB_PLOT_AUTO .. SB_PLOT_DISTRIBUTION */
    layout = data[0] / 5 % 4;
    ending = endings[data[0] / 20 % 3];
    buf = malloc(size);
    CHECK(buf != NULL);
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    for (p = buf, end = buf + size - 1; nf < NFIELDS && p < end; nf++) {
        field[nf] = p;
        p += strlen(p) + 1;
    }
    names[0] = field[0];
    names[1] = field[1];
    /* The file name: hostile too, but a name (no '/', no control
     * character, which sb_plot refuses: see test_plot.c). */
    stem = field[4];
    if (!*stem || strlen(stem) > 100 || strchr(stem, '/') ||
        !strcmp(stem, ".") || !strcmp(stem, ".."))
        stem = "fig";
    for (const char *q = stem; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            stem = "fig";

    switch (layout) {
    case 0: /* two kernels at three sizes */
        for (int k = 0; k < 2; k++)
            for (size_t s = 1024; s <= 4096; s *= 2)
                c[n++] = (cellspec){k, s, 0, 0, (double)s * (k + 1) / 8};
        break;
    case 1: /* two kernels at three source offsets */
        for (int k = 0; k < 2; k++)
            for (size_t s = 0; s < 3; s++)
                c[n++] = (cellspec){k, 4096, s, 0, 1000 + 50.0 * s + k};
        break;
    case 2: /* a 2x2 matrix of one kernel, and the other beside it */
        for (size_t d = 0; d < 2; d++)
            for (size_t s = 0; s < 2; s++)
                c[n++] = (cellspec){0, 4096, s, 8 * d, 1000 + 200.0 * s * d};
        c[n++] = (cellspec){1, 4096, 0, 0, 900};
        break;
    default:
        break;
    }
    if (n)
        run = json_run(names, field[2], c, n);
    if (!run) {
        n = 0;
        run = samples_run(names);
    }
    if (!run)
        goto out;
    render(run); /* the reporters take the same names */
    {
        char *argv[2] = {(char *)"statbench", (char *)field[3]};
        sb_error err = {0};
        CHECK(sb_run_set_command(run, 2, argv, &err) == SB_OK);
    }

    /* The twin: every distinct name as read (the reader may have changed
     * it) becomes a plain one of the same length, and so does the CPU
     * model unless it is this machine's (whose caches are drawn). */
    for (int k = 0; k < 2; k++) {
        const sb_cell_result *r;
        size_t i = 0;
        if (n) {
            while (i < n && c[i].name != k)
                i++;
            CHECK(i < n && sb_run_count(run) == n);
        } else
            i = (size_t)k;
        r = sb_run_cell(run, i);
        lname[k] = r->cell.kernel && r->cell.kernel->name
                       ? r->cell.kernel->name
                       : "?";
    }
    owned[0] = plain(0, strlen(lname[0]));
    owned[1] = strcmp(lname[0], lname[1]) ? plain(1, strlen(lname[1]))
                                          : strdup(owned[0]);
    CHECK(owned[1] != NULL);
    tnames[0] = owned[0];
    tnames[1] = owned[1];
    tcpu = sb_run_meta(run)->cpu_model;
    if (strcmp(tcpu, here_cpu))
        tcpu = owned[2] = plain(2, strlen(tcpu));
    twin = n ? json_run(tnames, tcpu, c, n) : samples_run(tnames);
    CHECK(twin != NULL);
    {
        char *argv[2] = {(char *)"statbench", (char *)field[3]};
        sb_error err = {0};
        CHECK(sb_run_set_command(twin, 2, argv, &err) == SB_OK);
    }

    rc = plot(run, hdir, stem, ending, kind, &gp, &dat);
    trc = plot(twin, tdir, stem, ending, kind, &tgp, &tdat);
    CHECK(rc == trc);
    CHECK(!gp == !tgp);
    if (gp) {
        const char *why = gp_problem(gp);
        char *a, *b;
        if (why) {
            fprintf(stderr, "script not inert: %s\n%s\n", why, gp);
            CHECK(!why);
        }
        CHECK(gp_problem(tgp) == NULL);
        a = gp_skeleton(gp);
        b = gp_skeleton(tgp);
        CHECK(a && b);
        if (strcmp(a, b)) {
            fprintf(stderr, "the names changed the code:\n%s\n--- twin:\n%s\n",
                    a, b);
            CHECK(0);
        }
        CHECK(!strcmp(dat, tdat));
        free(a);
        free(b);
    }
out:
    free(gp);
    free(dat);
    free(tgp);
    free(tdat);
    for (int k = 0; k < 3; k++)
        free(owned[k]);
    sb_run_free(run);
    sb_run_free(twin);
    free(buf);
    return 0;
}
