/*
 * cmd_noise.c: statbench noise measures this machine's timing jitter,
 * interrupt rate and between-process variation, and the smallest change a
 * time budget detects.  The statistics are the library's
 * (sb_stats_spread, sb_stats_mde_runs); this file chooses and prints.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "text.h"

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
    {.size = sizeof(sb_kernel), .name = "empty", .family = SB_FAMILY_EXTERNAL,
     .description = "an empty timed region", .fn = noise_empty},
    {.size = sizeof(sb_kernel), .name = "work", .family = SB_FAMILY_EXTERNAL,
     .description = "2000 dependent multiply-adds", .fn = noise_work},
};

static void print_machine(const sb_run *run)
{
    const sb_meta *m = sb_run_meta(run);
    /* From the system: printed without control characters. */
    char model[sizeof m->cpu_model], kver[sizeof m->kernel_version];

    printf("statbench %s noise: this machine's timing noise on CPU %d\n",
           sb_version(), m->cpu);
    snprintf(model, sizeof model, "%s", m->cpu_model);
    snprintf(kver, sizeof kver, "%s", m->kernel_version);
    sb__clean_text(model);
    sb__clean_text(kver);
    printf("machine:  %s; %s\n", model, kver);
    printf("timer:    %s at %.6g MHz; overhead %.0f ticks (bare pair %.0f)\n",
           sb_timer_label(m->timer.kind), m->timer.hz / 1e6,
           m->timer.overhead, m->timer.bare_overhead);
    printf("run:      %zu invocations in %.1f s of measuring, one call per "
           "sample\n",
           sb_run_cell(run, 0)->invocations, sb_run_elapsed(run));
    printf("checks:   %.1f interrupts/s on CPU %d; %.1f us of checks per "
           "sample\n\n",
           m->interrupts_per_second, m->cpu, m->check_cost_seconds * 1e6);
}

/* The lines of one cell: its spread sample to sample and, after the
 * first cell, between invocations and the change each budget detects. */
static void print_cell(const sb_cell_result *r, int first,
                       const sb_kernel *memcpy_k, double per_inv)
{
    static const double budgets[] = {10, 60, 300};
    size_t rej = r->rejected_total, tot = r->nsamples + rej;
    sb_spread s;
    double rel_b;

    if (!r->nsamples || sb_stats_spread(r->ticks, r->nsamples, &s) != SB_OK)
        return;
    printf("%s (%s):\n", r->cell.kernel->name,
           r->cell.kernel == memcpy_k ? "memcpy of 4 KiB"
                                      : r->cell.kernel->description);
    printf("  per sample: median %.1f ticks, IQR %.1f, p99 - median "
           "%.1f, max %.0f; %.2f%% of samples rejected as disturbed\n",
           s.median, s.q3 - s.q1, s.p99 - s.median, s.max,
           tot ? 100.0 * (double)rej / (double)tot : 0.0);
    if (first || r->invocations < 2)
        return;
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
    for (size_t b = 0; b < sizeof budgets / sizeof *budgets; b++)
        printf("%s%.2f%% in %g s", b ? ", " : " ",
               100 * sb_stats_mde_runs(rel_b, budgets[b] / per_inv, 0.05,
                                       0.8),
               budgets[b]);
    printf("\n");
}

int cmd_noise(int argc, char **argv, struct cli *cli)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options opt = cli->mopt;
    sb_analysis_options a = cli->aopt;
    sb_run *run = NULL;
    sb_error err = {0};
    const sb_kernel *memcpy_k = sb_kernel_find("libc");
    double per_inv;

    cli_check_cpu(cli);
    if (optind < argc)
        die_usage("noise takes no file: unexpected '%s'", argv[optind]);
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
    a.precision = 0;           /* no target: the whole budget */
    opt.max_invocations = opt.invocations;
    if (sb_analysis_options_check(&a, &err) != SB_OK ||
        sb_plan_check(plan, &opt, &err) != SB_OK)
        die_usage("%s", err.text);
    cli_catch_signals();
    if (sb_run_execute_new(plan, &opt, &a, &run, &err) != SB_OK) {
        fprintf(stderr, "%s: %s\n", progname, err.text);
        sb_plan_free(plan);
        return 1;
    }
    per_inv = sb_run_elapsed(run) / (double)sb_run_cell(run, 0)->invocations;
    print_machine(run);
    for (size_t i = 0; i < sb_run_count(run); i++)
        print_cell(sb_run_cell(run, i), i == 0, memcpy_k, per_inv);
    printf("\n(one invocation takes %.2f s here; a budget buys that many "
           "fresh processes, and the\nbetween-process variation is what "
           "limits the comparison of two runs)\n",
           per_inv);
    sb_run_free(run);
    sb_plan_free(plan);
    return 0;
}
