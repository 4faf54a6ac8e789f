/*
 * report/figure_lines.c: the sweep and size figures: throughput lines
 * with their CI bars, x the source offset or the size.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figure.h"

/* ---- The lines ---------------------------------------------------------- */

static int cmp_item(const void *pa, const void *pb)
{
    const sb__fig_item *a = pa, *b = pb;
    int c = strcmp(a->kernel, b->kernel);
    if (c)
        return c;
    if (a->k1 != b->k1)
        return a->k1 < b->k1 ? -1 : 1;
    if (a->k2 != b->k2)
        return a->k2 < b->k2 ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int same_line(const sb__fig_item *a, const sb__fig_item *b)
{
    return !strcmp(a->kernel, b->kernel) && a->k1 == b->k1 && a->k2 == b->k2;
}

static int cmp_series(const void *pa, const void *pb)
{
    const sb__fig_series *a = pa, *b = pb;
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

void sb__fig_lines_free(sb__fig_lines *L)
{
    free(L->it);
    free(L->s);
    memset(L, 0, sizeof *L);
}

int sb__fig_lines_build(const sb_run *run, int by_size, sb__fig_lines *L)
{
    size_t n = sb_run_count(run);

    memset(L, 0, sizeof *L);
    L->by_size = by_size;
    L->it = malloc((n ? n : 1) * sizeof *L->it);
    L->s = malloc((n ? n : 1) * sizeof *L->s);
    if (!L->it || !L->s) {
        sb__fig_lines_free(L);
        return SB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        const sb_cell *c = &r->cell;
        if (!sb__fig_has_mbps(r))
            continue;
        L->it[L->nit++] = (sb__fig_item){
            .idx = i,
            .kernel = sb__fig_kernel_name(r),
            .k1 = by_size ? c->src_align : c->size,
            .k2 = c->dst_align,
            .x = by_size ? c->size : c->src_align,
        };
    }
    qsort(L->it, L->nit, sizeof *L->it, cmp_item);
    for (size_t j = 0; j < L->nit;) {
        sb__fig_series s = {
            .first = j, .n = 1, .rank = L->it[j].idx, .distinct = 1};
        size_t k = j + 1;
        for (; k < L->nit && same_line(&L->it[j], &L->it[k]); k++) {
            s.n++;
            if (L->it[k].idx < s.rank)
                s.rank = L->it[k].idx;
            if (L->it[k].x != L->it[k - 1].x)
                s.distinct++;
        }
        if (s.distinct >= 2)
            L->multi = 1;
        L->s[L->ns++] = s;
        j = k;
    }
    qsort(L->s, L->ns, sizeof *L->s, cmp_series);
    for (size_t j = 0; j < L->nit; j++) {
        if (j == 0 || L->it[j].x < L->xmin)
            L->xmin = L->it[j].x;
        if (j == 0 || L->it[j].x > L->xmax)
            L->xmax = L->it[j].x;
    }
    for (size_t j = 1; j < L->ns; j++) {
        const sb__fig_item *a = &L->it[L->s[0].first],
                           *b = &L->it[L->s[j].first];
        L->vary_kernel |= strcmp(a->kernel, b->kernel) != 0;
        L->vary_k1 |= a->k1 != b->k1;
        L->vary_k2 |= a->k2 != b->k2;
    }
    return SB_OK;
}

void sb__fig_line_label(const sb__fig_lines *L, size_t j, char *buf,
                        size_t len)
{
    const sb__fig_item *a = &L->it[L->s[j].first];
    char part[64];

    buf[0] = '\0';
    if (L->vary_kernel || (!L->vary_k1 && !L->vary_k2))
        sb__fig_append(buf, len, ", ", a->kernel);
    if (L->vary_k1) {
        if (L->by_size)
            snprintf(part, sizeof part, "src +%zu", a->k1);
        else
            sb__fig_human_size(a->k1, part, sizeof part);
        sb__fig_append(buf, len, ", ", part);
    }
    if (L->vary_k2) {
        snprintf(part, sizeof part, "dst +%zu", a->k2);
        sb__fig_append(buf, len, ", ", part);
    }
}

void sb__fig_lines_common(const sb__fig_lines *L, char *buf, size_t len)
{
    const sb__fig_item *a = &L->it[L->s[0].first];
    char part[64];

    buf[0] = '\0';
    if (!L->vary_kernel)
        sb__fig_append(buf, len, ", ", a->kernel);
    if (!L->vary_k1 && (!L->by_size || a->k1)) {
        if (L->by_size)
            snprintf(part, sizeof part, "src +%zu", a->k1);
        else
            sb__fig_human_size(a->k1, part, sizeof part);
        sb__fig_append(buf, len, ", ", part);
    }
    if (!L->vary_k2 && a->k2) {
        snprintf(part, sizeof part, "dst +%zu", a->k2);
        sb__fig_append(buf, len, ", ", part);
    }
}

/* ---- The files ---------------------------------------------------------- */

/* The data of a line figure: one block per line, one row per cell. */
static void lines_data(sb__fig *F, const sb__fig_lines *L)
{
    const sb_run *run = F->run;
    FILE *d = F->dat;
    char label[256];

    sb__fig_dat_header(F,
                       L->by_size
                           ? "size mbps_median mbps_ci_lo mbps_ci_hi "
                             "ticks_median samples src_align dst_align"
                           : "src_align mbps_median mbps_ci_lo mbps_ci_hi "
                             "ticks_median samples size dst_align",
                       "one block per line of the figure (gnuplot's index), "
                       "blocks separated by two blank lines; MB = 10^6 bytes");
    for (size_t j = 0; j < L->ns; j++) {
        const sb__fig_series *s = &L->s[j];
        sb__fig_line_label(L, j, label, sizeof label);
        fprintf(d, "\n\n# block %zu: ", j);
        sb__fig_put_comment(d, label);
        fputc('\n', d);
        for (size_t k = s->first; k < s->first + s->n; k++) {
            const sb_cell_result *r = sb_run_cell(run, L->it[k].idx);
            fprintf(d, "%zu ", L->it[k].x);
            sb__fig_put_num(d, r->mbps.estimate);
            fputc(' ', d);
            sb__fig_put_num(d, r->mbps.lo);
            fputc(' ', d);
            /* An unbounded upper end (a t interval reaching 0) is drawn
             * up to the estimate rather than dropping the point. */
            sb__fig_put_num(d, isfinite(r->mbps.hi) ? r->mbps.hi
                                                    : r->mbps.estimate);
            fputc(' ', d);
            sb__fig_put_num(d, r->interval.estimate);
            fprintf(d, " %zu %zu %zu\n", r->nsamples,
                    L->by_size ? r->cell.src_align : r->cell.size,
                    r->cell.dst_align);
        }
    }
}

/* The x axis of a line figure: source offsets on a linear axis, or sizes
 * on a log2 axis with ticks at powers of two, labelled in bytes. */
static void lines_xaxis(sb__fig *F, const sb__fig_lines *L)
{
    FILE *g = F->gp;

    if (!L->by_size) {
        double range = (double)(L->xmax - L->xmin);
        double step = sb__fig_tick_step(range > 0 ? range : 1, 10);
        double pad = range * 0.02 > 0.5 ? range * 0.02 : 0.5;
        fputs("set xlabel \"source offset (bytes)\"\n", g);
        fprintf(g, "set xrange [%g:%g]\n", (double)L->xmin - pad,
                (double)L->xmax + pad);
        fprintf(g, "set xtics %g, %g\n",
                floor((double)L->xmin / step) * step, step);
        if (step > 1)
            fprintf(g, "set mxtics %g\n", step <= 8 ? step : 2);
    } else {
        /* A log2 axis with ticks at powers of two, labelled in bytes. */
        double lo = (double)L->xmin, hi = (double)L->xmax;
        int e0 = (int)floor(log2(lo)), e1 = (int)ceil(log2(hi));
        int every = 1, first = 1;
        while ((e1 - e0) / every > 12)
            every++;
        fputs("set logscale x 2\n", g);
        fprintf(g, "set xrange [%.9g:%.9g]\n", lo / 1.25, hi * 1.25);
        fputs("set xtics (", g);
        for (int e = e0; e <= e1; e += every) {
            char h[32];
            double v = ldexp(1.0, e);
            if (v < lo / 1.25 || v > hi * 1.25)
                continue;
            sb__fig_human_size((size_t)v, h, sizeof h);
            fprintf(g, "%s\"%s\" %.0f", first ? "" : ", ", h, v);
            first = 0;
        }
        if (first)
            fprintf(g, "\"%zu B\" %zu", L->xmin, L->xmin);
        fputs(")\nset mxtics default\n", g);
    }
}

void sb__fig_write_lines(sb__fig *F, const sb__fig_lines *L)
{
    int drawn = 0; /* cache sizes drawn */
    const sb_run *run = F->run;
    FILE *g = F->gp;
    char common[256], what[320], label[256], heading[96];

    lines_data(F, L);
    sb__fig_lines_common(L, common, sizeof common);
    snprintf(what, sizeof what, "%s%sthroughput against %s", common,
             common[0] ? ": " : "",
             L->by_size ? "size" : "source offset");
    sb__fig_preamble(F);
    sb__fig_put_title(g, what, run);
    fputs("set ylabel \"throughput (MB/s, 1 MB = 10^6 B)\"\n", g);
    fputs("set offsets 0, 0, graph 0.06, graph 0.06\n", g);
    sb__fig_ci_heading(run, heading, sizeof heading);
    fputs("set key below horizontal title ", g);
    sb__fig_put_str(g, heading);
    fputs("\n", g);

    lines_xaxis(F, L);

    /* The caches of the CPU the run was measured on, as its record says
     * (a figure drawn elsewhere marks the same).  A label goes into the
     * script between quotes: only letters and digits are drawn. */
    if (L->by_size) {
        const sb_meta *mt = sb_run_meta(run);
        const sb_cache_size *c = mt->caches;
        size_t nc = mt->ncaches < SB_MAX_CACHES ? mt->ncaches : SB_MAX_CACHES;
        for (size_t k = 0; k < nc; k++) {
            char h[32];
            if ((double)c[k].bytes < L->xmin / 1.25 ||
                (double)c[k].bytes > L->xmax * 1.25 || !c[k].label[0] ||
                strspn(c[k].label, "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") !=
                    strlen(c[k].label))
                continue;
            sb__fig_human_size(c[k].bytes, h, sizeof h);
            fprintf(g,
                    "set arrow from %zu, graph 0 to %zu, graph 1 "
                    "nohead back dt 2 lw 1 lc rgb '#888888'\n",
                    c[k].bytes, c[k].bytes);
            fprintf(g,
                    "set label \"%s %s\" at %zu, graph 0.98 right "
                    "rotate by 90 offset character -0.9, 0 "
                    "tc rgb '#555555' font \",9\"\n",
                    c[k].label, h, c[k].bytes);
            drawn++;
        }
        if (!sb_run_imported(run) && !drawn)
            fprintf(g, "# Cache sizes not drawn: %s.\n",
                    nc ? "none within the sizes measured with a plain name"
                       : "the run's record has none (saved before they "
                         "were recorded, or none in sysfs)");
    }

    /* The caches are explained under the axis, not in the key, so that
     * the key's entries stay short enough to sit side by side. */
    if (L->by_size)
        fprintf(g, "set xlabel \"size (bytes per call, log scale)%s\"\n",
                drawn ? "; dashed: the measuring CPU's caches (a copy "
                        "touches 2x its size)"
                      : "");
    fputs("\nplot \\\n", g);
    for (size_t j = 0; j < L->ns; j++) {
        sb__fig_line_label(L, j, label, sizeof label);
        fprintf(g,
                "    data index %zu using 1:2:3:4 with yerrorlines "
                "lt %zu title ",
                j, j % SB__FIG_NCOLORS + 1);
        sb__fig_put_str(g, label);
        fputs(j + 1 < L->ns ? ", \\\n" : "\n", g);
    }
}
