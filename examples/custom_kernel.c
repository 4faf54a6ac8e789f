/*
 * custom_kernel.c: measure a kernel of your own next to a built-in one.
 *
 * The kernel is any function of the sb_kernel_fn shape; an sb_kernel
 * describes it (name, family, features) and sb_plan_add takes it like a
 * built-in.  Here: a byte-by-byte copy against libc memcpy on 4 KiB, with
 * the ratio of their times and its interval.
 *     cc custom_kernel.c $(pkg-config --cflags --libs statbench)
 * Usage: custom_kernel [MAX_SECONDS]  (default 2)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statbench.h>

static void bytewise(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    (void)state;
    /* Without the guard gcc -O3 vectorises this loop (or calls memcpy for
     * it), and the kernel is no longer the one named. */
    for (size_t i = 0; i < n; i++) {
        d[i] = s[i];
        SB_CLOBBER_MEMORY();
    }
}

static const sb_kernel my_kernel = {
    .size = sizeof(sb_kernel),
    .name = "bytewise",
    .family = SB_FAMILY_COPY,
    .description = "a byte loop (SB_CLOBBER_MEMORY: not vectorised)",
    .features = 0,
    .fn = bytewise,
};

int main(int argc, char **argv)
{
    sb_measure_options opt;
    sb_error err = {0};
    sb_plan *plan = sb_plan_new();
    sb_run *run = NULL;
    size_t base[2] = {SIZE_MAX, 0}; /* cell 1 against cell 0 */
    int status = 1;

    if (!plan)
        return 1;
    sb_measure_options_init(&opt);
    opt.max_time = argc > 1 ? atof(argv[1]) : 2.0;
    if (sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, &err) ||
        sb_plan_add(plan, &my_kernel, 4096, 0, 0, &err) ||
        sb_run_execute_new(plan, &opt, NULL, &run, &err) ||
        sb_run_set_baselines(run, base, &err)) {
        fprintf(stderr, "custom_kernel: %s\n", err.text);
        goto out;
    }
    {
        const sb_cell_result *r = sb_run_cell(run, 1);
        const sb_comparison *c = sb_run_comparison(run, 1);
        printf("%s: %.1f MB/s [%.1f, %.1f]; %s ratio to libc %.2f "
               "[%.2f, %.2f]: %s\n",
               r->cell.kernel->name, r->mbps.estimate, r->mbps.lo,
               r->mbps.hi,
               c->test && strstr(c->test, "core cycles") ? "core-cycle"
                                                         : "time",
               c->ratio.estimate, c->ratio.lo, c->ratio.hi,
               sb_verdict_name(c->verdict));
    }
    status = 0;
out:
    sb_run_free(run);
    sb_plan_free(plan);
    return status;
}
