/*
 * report/latex.c: the run as a LaTeX table with booktabs rules
 * (SB_FORMAT_LATEX), for a paper: a caption saying what was measured, how
 * and how to read it, the rows (report/rows.c, shared with Markdown), the
 * footnote on cells short of the precision target.
 */
#include "config.h"

#include <stdio.h>

#include "rows.h"

/* The caption says what was measured, how, and how to read it. */
static void caption(const sb_run *run, int cmp, sb__sbuf *b)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_analysis_options *o = sb_run_analysis_options(run);
    const char *cmd = sb_run_command(run);

    if (*sb_run_title(run)) {
        sb__tex_escape(b, sb_run_title(run));
        sb__sbuf_puts(b, ": ");
    }
    if (sb_run_imported(run)) {
        sb__sbuf_printf(b, "Medians of samples measured elsewhere, in the "
                           "data's own unit, with %g\\,\\%% confidence "
                           "intervals (one invocation)",
                        100 * o->ci_level);
    } else {
        sb__sbuf_printf(b, "Median throughput in MB/s (1\\,MB = $10^6$ "
                           "bytes) with %g\\,\\%% confidence intervals "
                           "over ",
                        100 * o->ci_level);
        sb__put_invocations(b, sb_run_invocations(run));
        sb__sbuf_puts(b, " on ");
        sb__tex_escape(b, m->cpu_model[0] ? m->cpu_model : "an unknown CPU");
    }
    sb__sbuf_puts(b, ", statbench ");
    sb__tex_escape(b, m->statbench_version);
    if (*cmd) {
        sb__sbuf_puts(b, ": \\texttt{");
        sb__tex_escape(b, cmd);
        sb__sbuf_puts(b, "}");
    }
    sb__sbuf_puts(b, ". Each value shows the digits its interval supports");
    if (!sb_run_imported(run))
        sb__sbuf_puts(b, "; size and offsets (src, dst) in bytes");
    sb__sbuf_puts(b, ".");
    /* Which interval each column is: MB/s's from the time, the
     * half-width of the one in the cell's metric. */
    if (!sb_run_imported(run))
        sb__sbuf_puts(b, " The MB/s interval is the time's; core cycles per "
                         "call and per byte, where the core clock is known, "
                         "come with their own; $\\pm$\\,\\% is half "
                         "the interval in the cell's metric, in percent of "
                         "its median.");
    if (cmp)
        sb__sbuf_printf(b, " Ratio: time over the baseline's (below 1: "
                           "faster), of the estimates its test (JSON, CSV) "
                           "names; $p$ Holm-adjusted; verdict at "
                           "$\\alpha = %g$ and a threshold of "
                           "$\\pm%g$\\,\\%%.",
                        o->alpha, 100 * o->threshold);
    if (sb_run_interrupted(run))
        sb__sbuf_puts(b, " Interrupted: partial results.");
}

static void begin(const sb_run *run, const sb__grid *g, const char *cap,
                  FILE *f)
{
    fprintf(f, "%% statbench %s (sb_report, latex): a table with booktabs "
               "rules; needs \\usepackage{booktabs} in the preamble.\n",
            sb_run_meta(run)->statbench_version);
    fputs("\\begin{table}\n\\centering\n", f);
    fprintf(f, "\\caption{%s}\n\\label{tab:statbench}\n", cap);
    fprintf(f, "\\begin{tabular}{%.*s}\n\\toprule\n", (int)g->ncols,
            g->align);
}

static void rule(const sb__grid *g, const size_t *w, FILE *f)
{
    (void)g;
    (void)w;
    fputs("\\midrule\n", f);
}

static void end(const sb_run *run, size_t nshort, FILE *f)
{
    fputs("\\bottomrule\n\\end{tabular}\n", f);
    if (nshort)
        fprintf(f, "\\par\\smallskip{\\footnotesize * %zu cell%s stopped "
                   "short of the precision target ($\\pm%g$\\,\\%% of the "
                   "median).}\n",
                nshort, nshort == 1 ? "" : "s",
                100 * sb_run_analysis_options(run)->precision);
    fputs("\\end{table}\n", f);
}

int sb__write_latex(const sb_run *run, FILE *f, sb_error *err)
{
    static const sb__rows_style style = {
        1, 0, "", " & ", " \\\\", caption, begin, rule, end,
    };
    return sb__rows_write(run, &style, f, err);
}
