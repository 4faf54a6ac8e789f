/*
 * cli_gate.c: the gate of --against and of ab, one loop for both: each
 * compared cell judged and counted by the library's tally
 * (sb_gate_tally_add, the policy and the wording of sb_gate_judge), one
 * line a cell, then one line per cause and the exit status from
 * sb_gate_tally_outcome.  What differs between the two is only words
 * (struct cli_gate).  Also what compare and --against both say of two
 * runs before they are compared.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_gate_cells(const sb_run *run, const struct cli_gate *g, int quiet,
                    sb_gate_tally *t)
{
    const sb_analysis_options *o = sb_run_analysis_options(run);
    char what[200], line[1200];

    for (size_t i = 0; i < sb_run_count(run); i++) {
        const sb_comparison *c = sb_run_comparison(run, i);
        const sb_cell_result *r = sb_run_cell(run, i);
        /* A cell without a baseline cell is not gated (a baseline's own
         * cells have none); one without samples has failed above, in its
         * own words, and the status says so already. */
        if (!c || !r || !r->nsamples ||
            (g->kernel && strcmp(r->cell.kernel->name, g->kernel)))
            continue;
        if (g->label)
            snprintf(what, sizeof what, "%s, %zu B (%zu/%zu)", g->label,
                     r->cell.size, r->cell.src_align, r->cell.dst_align);
        else
            snprintf(what, sizeof what, "%s %zu (%zu/%zu)",
                     r->cell.kernel->name, r->cell.size, r->cell.src_align,
                     r->cell.dst_align);
        if (sb_gate_tally_add(t, c, o, what, g->from, line, sizeof line) !=
                SB_GATE_PASS ||
            !quiet)
            say("%s", line);
    }
}

int cli_gate_exit(int outcome)
{
    switch (outcome) {
    case SB_GATE_PASS:
    case SB_GATE_WARN:
        return 0;
    case SB_GATE_UNDECIDED:
        return EXIT_UNDECIDED;
    default:
        return 1; /* FAIL, or anything else: never a pass */
    }
}

int cli_gate_status(const sb_gate_tally *t, const struct cli_gate *g,
                    int status)
{
    const char *p = g->prefix ? g->prefix : "";

    /* An earlier failure (an output, an empty cell, no cell in common)
     * keeps its own status and words; the cells' lines are out. */
    if (status != 0)
        return status;
    if (t->judged == 0)
        say("%sno cell of %s could be compared with %s", p, g->subject,
            g->versus);
    if (t->lost)
        say("%s%s cannot be compared with %s in %zu of %zu cells (no valid "
            "samples there)",
            p, g->subject, g->versus, t->lost, t->judged);
    if (t->slower)
        say("%s%s slower than %s beyond the threshold, with significance, "
            "in %zu of %zu cells",
            p, g->subject, g->versus, t->slower, t->judged);
    if (t->undecided)
        say("%s%zu of %zu cells undecided: a slowdown beyond the threshold "
            "is not ruled out against %s (%s)",
            p, t->undecided, t->judged, g->versus, g->advice);
    return cli_gate_exit(sb_gate_tally_outcome(t));
}

void cli_warn_two_runs(const sb_run *a, const char *name_a, const sb_run *b,
                       const char *name_b)
{
    double ga, gb;
    const sb_meta *ma = sb_run_meta(a), *mb = sb_run_meta(b);

    /* One run given twice (a file and its copy): every ratio is 1 by
     * construction, which says nothing of a change. */
    if (ma && mb && ma->start_time[0] &&
        !strcmp(ma->start_time, mb->start_time) &&
        !strcmp(ma->hostname, mb->hostname))
        say("warning: %s and %s are the same run (host '%s', started %s): "
            "their ratios are 1 by construction",
            name_a, name_b, ma->hostname, ma->start_time);
    if (sb_run_clocks_differ(a, b, &ga, &gb))
        say("warning: the runs ran at different core clocks: %s at %.3f "
            "GHz, %s at %.3f GHz (%+.1f%%); cells judged in core cycles in "
            "both are compared in cycles, the others in time, which moves "
            "with the clock",
            name_a, ga, name_b, gb, 100 * (gb / ga - 1));
    if (sb_run_contention_differ(a, b, &ga, &gb))
        say("warning: %s was measured on a shared core: its contention "
            "probe's quiet level is %.1f core cycles per repetition, %s's "
            "%.1f (%+.0f%%); the louder run's figures are the shared "
            "core's, not the core's: rerun it",
            ga > gb ? name_a : name_b, fmax(ga, gb),
            ga > gb ? name_b : name_a, fmin(ga, gb),
            100 * (fmax(ga, gb) / fmin(ga, gb) - 1));
}

int cli_ab_gate(const sb_run *run, const struct cli *cli, int status)
{
    /* old's own cells have no baseline; only new's are judged. */
    const struct cli_gate g = {
        .kernel = "new",
        .label = "new vs old",
        .from = "old, in the same rounds",
        .prefix = "ab: ",
        .subject = "new",
        .versus = "old",
        .advice = "more --max-time or --invocations, a larger --threshold, "
                  "or --inconclusive warn",
    };
    sb_gate_tally t = {.size = sizeof t};

    cli_gate_cells(run, &g, cli->quiet, &t);
    return cli_gate_status(&t, &g, status);
}
