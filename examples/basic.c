/*
 * basic.c: embed statbench in a program.
 *
 * Measures libc memcpy and the 32-bit movl stream (duff) on 4 KiB at
 * source offsets 0 and 1, then prints each cell's median throughput with
 * its confidence interval.  Build against an installed statbench with
 *     cc basic.c $(pkg-config --cflags --libs statbench)
 * Usage: basic [MAX_SECONDS]  (default 2)
 */
#include <stdio.h>
#include <stdlib.h>

#include <statbench.h>

int main(int argc, char **argv)
{
    const char *names[] = {"libc", "duff"};
    sb_measure_options opt;
    sb_error err = {0};
    sb_plan *plan = sb_plan_new();
    sb_run *run = NULL;
    int status = 1;

    if (!plan)
        return 1;
    for (size_t i = 0; i < 2; i++) {
        const sb_kernel *k = sb_kernel_find(names[i]);
        for (size_t align = 0; align < 2; align++)
            if (!k || sb_plan_add(plan, k, 4096, align, 0, &err) != SB_OK) {
                fprintf(stderr, "basic: %s\n",
                        k ? err.text : "kernel not found");
                goto out;
            }
    }
    sb_measure_options_init(&opt);
    opt.max_time = argc > 1 ? atof(argv[1]) : 2.0;
    if (sb_run_execute_new(plan, &opt, NULL, &run, &err) != SB_OK) {
        fprintf(stderr, "basic: %s (%s)\n", err.text, sb_strerror(err.code));
        goto out;
    }
    printf("%-6s %5s %12s %23s\n", "kernel", "align", "MB/s",
           "95% CI");
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        printf("%-6s %5zu %12.1f [%.1f, %.1f]\n", r->cell.kernel->name,
               r->cell.src_align, r->mbps.estimate, r->mbps.lo, r->mbps.hi);
    }
    status = 0;
out:
    sb_run_free(run);
    sb_plan_free(plan);
    return status;
}
