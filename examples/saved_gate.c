/*
 * saved_gate.c: a regression gate against baselines saved from earlier
 * runs, through the C API: what `statbench --save NAME --append` and
 * `--against NAME` do, for a test suite that keeps its own files.
 *
 * A new run and a baseline are two runs, and runs differ by more than
 * their own processes show; one baseline run cannot say by how much, so
 * the comparison assumes a run-to-run sd of 3% (SB_RUN_SD_ASSUMED) and
 * only a large change is told apart.  Several baseline runs, merged
 * (sb_run_merge_new), show this host's spread, and the new run is judged
 * against it (run level "baseline-runs").  Take them at different times.
 *     cc saved_gate.c $(pkg-config --cflags --libs statbench)
 * Usage: saved_gate save FILE.json         measure, keep a baseline run
 *        saved_gate check FILE.json...     measure, gate against them
 * Exit status: 0 pass, 1 a cell failed the gate, 2 bad use or an error.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <statbench.h>

/* The benchmark: libc's memcpy of 4 KiB, 1 s a run. */
static sb_run *measure(sb_error *err)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options m;
    sb_run *run = NULL;

    sb_measure_options_init(&m);
    m.max_time = 1.0;
    if (!plan || sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0,
                             err) != SB_OK ||
        sb_run_execute_new(plan, &m, NULL, &run, err) != SB_OK)
        run = NULL;
    sb_plan_free(plan);
    return run;
}

static sb_run *load(const char *path, sb_error *err)
{
    FILE *f = fopen(path, "r");
    sb_run *run = NULL;

    if (!f) {
        snprintf(err->text, sizeof err->text, "%s: cannot open", path);
        return NULL;
    }
    if (sb_run_load_new(f, path, NULL, &run, err) != SB_OK)
        run = NULL;
    fclose(f);
    return run;
}

/* The baseline: one saved run, or the merge of several. */
static sb_run *baseline(char **paths, int n, sb_error *err)
{
    sb_run **runs = calloc((size_t)n, sizeof *runs), *merged = NULL;
    int ok = runs != NULL;

    for (int i = 0; ok && i < n; i++)
        ok = (runs[i] = load(paths[i], err)) != NULL;
    if (ok && n == 1) {
        merged = runs[0];
        runs[0] = NULL;
    } else if (ok) {
        char warnings[2048];
        if (sb_run_merge_new((const sb_run *const *)runs, (size_t)n, &merged,
                             warnings, sizeof warnings, err) != SB_OK)
            merged = NULL;
        else if (warnings[0])
            fprintf(stderr, "saved_gate: %s", warnings);
    }
    for (int i = 0; runs && i < n; i++)
        sb_run_free(runs[i]);
    free(runs);
    return merged;
}

int main(int argc, char **argv)
{
    sb_error err = {0};
    sb_run *run, *base;
    int status = 0;

    if (argc < 3 || (strcmp(argv[1], "save") && strcmp(argv[1], "check")) ||
        (!strcmp(argv[1], "save") && argc != 3)) {
        fprintf(stderr, "usage: saved_gate save FILE.json | saved_gate "
                        "check FILE.json...\n");
        return 2;
    }
    if (!strcmp(argv[1], "save")) {
        FILE *f;
        int fd;
        if (!(run = measure(&err))) {
            fprintf(stderr, "saved_gate: %s\n", err.text);
            return 2;
        }
        /* Never through a link planted at the name. */
        fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (fd >= 0 && !f)
            close(fd);
        if (!f || sb_report(run, SB_FORMAT_JSON, f, &err) != SB_OK) {
            fprintf(stderr, "saved_gate: %s: %s\n", argv[2],
                    f ? err.text : "cannot create");
            status = 2;
        }
        if (f && fclose(f) != 0)
            status = 2;
        sb_run_free(run);
        return status;
    }
    if (!(base = baseline(argv + 2, argc - 2, &err)) ||
        !(run = measure(&err))) {
        fprintf(stderr, "saved_gate: %s\n", err.text);
        sb_run_free(base);
        return 2;
    }
    if (sb_run_compare_to(run, base, NULL, &err) != SB_OK) {
        fprintf(stderr, "saved_gate: %s\n", err.text);
        status = 2;
    }
    for (size_t i = 0; status != 2 && i < sb_run_count(run); i++) {
        const sb_comparison *c = sb_run_comparison(run, i);
        char line[1200];
        if (!c || !c->valid)
            continue;
        /* The gate's account, then where its run level came from. */
        if (sb_gate_judge(c, sb_run_analysis_options(run), "libc 4096",
                          argc - 2 > 1 ? "saved baseline runs"
                                       : "a saved baseline run",
                          line, sizeof line) == SB_GATE_FAIL)
            status = 1;
        printf("%s\nrun level: %s, run-to-run sd %.3g%%\n", line,
               sb_run_level_name((int)c->run_level), 100 * c->run_sd);
    }
    sb_run_free(run);
    sb_run_free(base);
    return status;
}
