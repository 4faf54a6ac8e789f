/*
 * read_run.c: read a run saved with `statbench --format json -o RUN.json`
 * and print each cell's median throughput and interval.
 *     cc read_run.c $(pkg-config --cflags --libs statbench)
 * Usage: read_run RUN.json
 */
#include <stdio.h>

#include <statbench.h>

int main(int argc, char **argv)
{
    FILE *f;
    sb_run *run = NULL;
    sb_error err = {0};

    if (argc != 2) {
        fprintf(stderr, "usage: read_run RUN.json\n");
        return 2;
    }
    f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    /* NULL options: the statistics are recomputed as the run was made. */
    if (sb_run_load_new(f, argv[1], NULL, &run, &err) != SB_OK) {
        fclose(f);
        fprintf(stderr, "read_run: %s\n", err.text);
        return 2;
    }
    fclose(f);
    printf("%s, %s: %zu cells\n", sb_run_meta(run)->cpu_model,
           sb_run_command(run), sb_run_count(run));
    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        printf("%-10s %8zu %4zu %4zu %12.1f [%.1f, %.1f] MB/s\n",
               r->cell.kernel->name, r->cell.size, r->cell.src_align,
               r->cell.dst_align, r->mbps.estimate, r->mbps.lo, r->mbps.hi);
    }
    sb_run_free(run);
    return 0;
}
