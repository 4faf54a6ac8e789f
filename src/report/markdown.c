/*
 * report/markdown.c: the run as a GitHub-flavoured Markdown table
 * (SB_FORMAT_MARKDOWN), for a mail or an issue: an italic caption, the
 * rows (report/rows.c, shared with LaTeX), the footnote on cells short of
 * the precision target.
 */
#include "config.h"

#include <stdio.h>

#include "rows.h"

/* The caption: one italic line. */
static void caption(const sb_run *run, int cmp, sb__sbuf *b)
{
    const sb_meta *m = sb_run_meta(run);
    const sb_analysis_options *o = sb_run_analysis_options(run);
    const char *cmd = sb_run_command(run);

    sb__sbuf_puts(b, "*");
    if (*sb_run_title(run)) {
        sb__md_escape(b, sb_run_title(run));
        sb__sbuf_puts(b, "; ");
    }
    sb__sbuf_puts(b, "statbench ");
    sb__md_escape(b, m->statbench_version);
    if (*cmd) {
        sb__sbuf_puts(b, ": ");
        sb__md_escape(b, cmd);
    }
    if (sb_run_imported(run)) {
        sb__sbuf_printf(b, "; samples measured elsewhere: median with %g%% "
                           "CI in the data's unit",
                        100 * o->ci_level);
    } else {
        sb__sbuf_puts(b, "; ");
        sb__md_escape(b, m->cpu_model[0] ? m->cpu_model : "unknown CPU");
        sb__sbuf_printf(b, "; median MB/s (1 MB = 10^6 B), %g%% CI over ",
                        100 * o->ci_level);
        sb__put_invocations(b, sb_run_invocations(run));
        /* Which interval each column is: MB/s's from the time, +-% of the
         * one in the cell's metric. */
        sb__sbuf_puts(b, ", the MB/s CI from the time; core cycles per "
                         "call and per byte with their CIs where the core "
                         "clock is known; +-%: half the CI in the cell's "
                         "metric, in % of its median");
    }
    if (cmp)
        sb__sbuf_printf(b, "; ratio = time / baseline's (below 1: "
                           "faster), of the estimates its test (JSON, CSV) "
                           "names, p "
                           "Holm-adjusted, verdict at alpha %g, "
                           "threshold +-%g%%",
                        o->alpha, 100 * o->threshold);
    if (sb_run_interrupted(run))
        sb__sbuf_puts(b, "; INTERRUPTED: partial results");
    sb__sbuf_puts(b, "*");
}

static void begin(const sb_run *run, const sb__grid *g, const char *cap,
                  FILE *f)
{
    (void)run;
    (void)g;
    fprintf(f, "%s\n\n", cap);
}

/* The delimiter row: a colon on the right of right-aligned columns. */
static void rule(const sb__grid *g, const size_t *w, FILE *f)
{
    fputc('|', f);
    for (size_t c = 0; c < g->ncols; c++) {
        fputc(' ', f);
        for (size_t k = 1; k < w[c]; k++)
            fputc('-', f);
        fputc(g->align[c] == 'r' ? ':' : '-', f);
        fputs(" |", f);
    }
    fputc('\n', f);
}

static void end(const sb_run *run, size_t nshort, FILE *f)
{
    if (nshort)
        fprintf(f, "\n\\* %zu cell%s stopped short of the precision target "
                   "(+-%g%% of the median).\n",
                nshort, nshort == 1 ? "" : "s",
                100 * sb_run_analysis_options(run)->precision);
}

int sb__write_markdown(const sb_run *run, FILE *f, sb_error *err)
{
    static const sb__rows_style style = {
        0, 3, "| ", " | ", " |", caption, begin, rule, end,
    };
    return sb__rows_write(run, &style, f, err);
}
