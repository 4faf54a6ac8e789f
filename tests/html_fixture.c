/*
 * html_fixture.c: the runs the HTML tests read (tests/html.sh,
 * tests/html_browser.sh), each written as HTML and as JSON into the
 * directory named, so that a checker can hold the page's cells against
 * the JSON writer's figures of the same run.  Not a test itself.
 *
 *   measured.html/.json: a run shaped like a measured one (three sizes of
 *   two kernels, four invocations), hostile where a run's strings come
 *   from outside: a kernel named <script>alert(1)</script>, a host name
 *   with quotes, an ampersand and an ESC, a CPU model holding an <img>
 *   tag, a title and a command line that try to close the page's title
 *   and comment; the hostile kernel compared with libc at each size.
 *   imported.html/.json: samples measured elsewhere (analyze) under
 *   hostile names, the second and third compared with the first.
 *
 * Exit status 0, or 1 with a line on stderr.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_internal.h"
#include "synth_run.h"

#define NSIZES 3
#define NINV 4
#define NSAMP 40

static const sb_kernel hostile = {
    .size = sizeof(sb_kernel),
    .name = "<script>alert(1)</script>",
    .family = SB_FAMILY_COPY,
    .description = "a kernel whose name is markup",
};

static char *const command[] = {
    "statbench", "--title", "</title><script>alert(2)</script>",
    "-o", "x.html", "--", "<!-- & \"'"};

static int write_as(const sb_run *run, const char *dir, const char *name,
                    int format)
{
    char path[4096];
    sb_error err = {0};
    FILE *f;
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    rc = sb_report(run, format, f, &err);
    if (fclose(f) != 0 || rc != SB_OK) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        return -1;
    }
    return 0;
}

static sb_run *measured(void)
{
    const sb_kernel *libc = sb_kernel_find("libc");
    size_t base[2 * NSIZES];
    sb_error err = {0};
    sb_run *run;
    uint64_t s = 11;
    double ticks[NSAMP];

    if (!libc)
        return NULL;
    run = sb__run_alloc(2 * NSIZES, NULL, NULL);
    if (!run)
        return NULL;
    synth_tsc(run, 3e9);
    snprintf(run->meta.hostname, sizeof run->meta.hostname,
             "host\"'&\x1b[31m<b>");
    snprintf(run->meta.cpu_model, sizeof run->meta.cpu_model,
             "CPU <img src=x onerror=alert(3)> & co");
    for (size_t i = 0; i < 2 * NSIZES; i++) {
        run->cells[i].cell = (sb_cell){i < NSIZES ? libc : &hostile,
                                       (size_t)4096 << (i % NSIZES), 0, 0};
        base[i] = i < NSIZES ? SIZE_MAX : i - NSIZES;
    }
    for (size_t g = 0; g < NINV; g++)
        for (size_t i = 0; i < 2 * NSIZES; i++) {
            sb__raw_cell raw = {.nsamples = NSAMP, .ticks = ticks,
                                .iters = 4};
            double centre = 1000.0 * (double)(1u << (i % NSIZES)) *
                            (i < NSIZES ? 1 : 0.8);
            for (size_t j = 0; j < NSAMP; j++)
                ticks[j] = centre * (1 + 0.02 * (uniform(&s) - 0.5));
            raw.rejected[SB_REJECT_INTERRUPT] = i % 3;
            raw.disturbed[SB_REJECT_INTERRUPT] = i % 3 + 1;
            if (sb__run_add_invocation(run, i, &raw) != SB_OK) {
                sb_run_free(run);
                return NULL;
            }
        }
    if (!(run = synth_analysed(run, NINV)))
        return NULL;
    if (sb_run_set_command(run, (int)(sizeof command / sizeof *command),
                           command, &err) != SB_OK ||
        sb_run_set_title(run, "-->\"<title>&amp;", &err) != SB_OK ||
        sb_run_set_baselines(run, base, &err) != SB_OK) {
        fprintf(stderr, "measured: %s\n", err.text);
        sb_run_free(run);
        return NULL;
    }
    return run;
}

static sb_run *imported(void)
{
    static const char *const names[3] = {"<script>alert(1)</script>",
                                         "a&b \"c\" 'd'", "e\x1b[2Jf"};
    double data[3][NSAMP];
    const double *values[3];
    size_t n[3], base[3] = {SIZE_MAX, 0, 0};
    sb_error err = {0};
    sb_run *run = NULL;
    uint64_t s = 5;

    for (size_t i = 0; i < 3; i++) {
        for (size_t j = 0; j < NSAMP; j++)
            data[i][j] = (10 + (double)i) * (1 + 0.05 * (uniform(&s) - 0.5));
        values[i] = data[i];
        n[i] = NSAMP;
    }
    if (sb_run_from_samples_new(names, values, n, 3, NULL, 1, &run, &err) !=
            SB_OK ||
        sb_run_set_baselines(run, base, &err) != SB_OK) {
        fprintf(stderr, "imported: %s\n", err.text);
        sb_run_free(run);
        return NULL;
    }
    return run;
}

int main(int argc, char **argv)
{
    sb_run *m, *i;
    int bad;

    if (argc != 2) {
        fprintf(stderr, "usage: html_fixture DIR\n");
        return 1;
    }
    m = measured();
    i = imported();
    bad = !m || !i || write_as(m, argv[1], "measured.html", SB_FORMAT_HTML) ||
          write_as(m, argv[1], "measured.json", SB_FORMAT_JSON) ||
          write_as(i, argv[1], "imported.html", SB_FORMAT_HTML) ||
          write_as(i, argv[1], "imported.json", SB_FORMAT_JSON);
    if (!m || !i)
        fprintf(stderr, "html_fixture: a run could not be made\n");
    sb_run_free(m);
    sb_run_free(i);
    return bad;
}
