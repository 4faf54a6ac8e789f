/*
 * cli_gate.c: the gate of --against and of ab, one loop for both: each
 * compared cell judged and counted by the library's tally
 * (sb_gate_tally_add, the policy and the wording of sb_gate_judge), one
 * line a cell, then one line per cause and the exit status from
 * sb_gate_tally_outcome.  What differs between the two is only words
 * (struct cli_gate).
 */
#include "config.h"

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
