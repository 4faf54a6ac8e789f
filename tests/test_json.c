/*
 * test_json.c: a run written as JSON and read back is the same run: the
 * samples, their split by invocation, the statistics recomputed from them,
 * the rejects and the metadata.  And a file that is not a run is refused.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "tap.h"

static sb_run *measure(void)
{
    sb_plan *plan = sb_plan_new();
    sb_options o;
    sb_run *run = NULL;
    sb_error e = {0};

    sb_options_init(&o);
    o.invocations = 2;
    o.max_invocations = 2;
    o.max_time = 0.6;
    o.min_samples = o.max_samples = 50;
    sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, &e);
    sb_plan_add(plan, sb_kernel_find("duff"), 4096, 3, 5, &e);
    if (sb_run_execute(plan, &o, &run, &e) != SB_OK)
        tap_diag("measure: %s", e.text);
    sb_plan_free(plan);
    return run;
}

static int same_interval(const sb_interval *a, const sb_interval *b)
{
    return a->estimate == b->estimate && a->lo == b->lo && a->hi == b->hi &&
           a->level == b->level;
}

static sb_run *round_trip(const sb_run *run, char **text)
{
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    sb_run *back = NULL;
    sb_error e = {0};

    if (!f || sb_report(run, SB_FORMAT_JSON, f, &e) != SB_OK) {
        tap_diag("write: %s", e.text);
        return NULL;
    }
    fclose(f);
    f = fmemopen(*text, len, "r");
    if (!f || sb_run_load(f, "mem", NULL, &back, &e) != SB_OK)
        tap_diag("read: %s", e.text);
    if (f)
        fclose(f);
    return back;
}

static void refused(const char *doc, const char *needle, const char *what)
{
    FILE *f = fmemopen((void *)doc, strlen(doc), "r");
    sb_run *run = NULL;
    sb_error e = {0};
    int rc = sb_run_load(f, "doc", NULL, &run, &e);
    fclose(f);
    tap_ok(rc == SB_EIO && run == NULL && strstr(e.text, needle) != NULL,
           "%s is refused: %s", what, e.text);
    sb_run_free(run);
}

int main(void)
{
    sb_run *run = measure(), *back;
    char *text = NULL;

    if (!tap_ok(run != NULL, "a run to write"))
        return tap_done();
    back = round_trip(run, &text);
    if (tap_ok(back != NULL, "written and read back")) {
        TAP_IS_INT(sb_run_count(back), sb_run_count(run), "cell count");
        TAP_IS_STR(sb_run_command(back), sb_run_command(run), "command");
        TAP_IS_STR(sb_run_meta(back)->cpu_model, sb_run_meta(run)->cpu_model,
                   "cpu model");
        TAP_IS_REL(sb_run_meta(back)->timer.hz, sb_run_meta(run)->timer.hz,
                   1e-9, "timer rate");
        TAP_IS_INT(sb_run_options(back)->seed, sb_run_options(run)->seed,
                   "seed");
        for (size_t i = 0; i < sb_run_count(run); i++) {
            const sb_cell_result *a = sb_run_cell(run, i),
                                 *b = sb_run_cell(back, i);
            int same = a->nsamples == b->nsamples;
            for (size_t j = 0; same && j < a->nsamples; j++)
                same = fabs(a->ticks[j] - b->ticks[j]) <=
                       1e-9 * fabs(a->ticks[j]);
            tap_ok(same, "cell %zu: every sample back (%zu)", i,
                   b->nsamples);
            TAP_IS_STR(b->cell.kernel->name, a->cell.kernel->name,
                       "cell %zu: kernel", i);
            tap_ok(b->cell.size == a->cell.size &&
                       b->cell.src_align == a->cell.src_align &&
                       b->cell.dst_align == a->cell.dst_align,
                   "cell %zu: size and offsets", i);
            same = a->invocations == b->invocations;
            for (size_t g = 0; same && g < a->invocations; g++)
                same = a->inv_nsamples[g] == b->inv_nsamples[g];
            tap_ok(same, "cell %zu: samples split by invocation alike", i);
            tap_ok(b->rejected_total == a->rejected_total,
                   "cell %zu: rejects (%zu)", i, b->rejected_total);
            /* Ticks are written with 10 significant digits (a relative
             * rounding of up to 5e-10), so the recomputed median agrees
             * to about that.  The interval's ends amplify it: with two
             * invocations they are exp(mean +- t * sd / sqrt 2) over the
             * log medians, with t = 12.7 at one degree of freedom, so an
             * error of 5e-10 in each median moves an end by up to about
             * 7e-9 (seen: 4e-9, in one run in four). */
            TAP_IS_REL(b->interval.estimate, a->interval.estimate, 1e-9,
                       "cell %zu: median recomputed", i);
            TAP_IS_REL(b->interval.lo, a->interval.lo, 1e-8,
                       "cell %zu: interval low", i);
            TAP_IS_REL(b->interval.hi, a->interval.hi, 1e-8,
                       "cell %zu: interval high", i);
            TAP_IS_STR(b->method, a->method, "cell %zu: method", i);
            TAP_IS_REL(b->mbps.estimate, a->mbps.estimate, 1e-9,
                       "cell %zu: throughput", i);
        }
        {
            /* A second trip changes nothing more. */
            char *text2 = NULL;
            sb_run *again = round_trip(back, &text2);
            int same = again && sb_run_count(again) == sb_run_count(back);
            for (size_t i = 0; same && i < sb_run_count(back); i++)
                same = same_interval(&sb_run_cell(again, i)->interval,
                                     &sb_run_cell(back, i)->interval);
            tap_ok(same, "a second round trip gives the same intervals");
            sb_run_free(again);
            free(text2);
        }
        sb_run_free(back);
    }
    free(text);
    sb_run_free(run);

    refused("not json at all", "not JSON", "text that is not JSON");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, \"cells\": [",
            "not JSON", "a truncated run");
    refused("{\"foo\": 1}", "not a statbench run", "a foreign document");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 2, "
            "\"cells\": []}",
            "schema version 2 is newer", "a newer schema");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"x\", \"size\": 1, \"src_align\": 0, \"dst_align\": 0, "
            "\"samples_ticks\": [1, \"two\"]}]}",
            "sample 1 is not a finite number", "a sample that is a word");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"x\", \"size\": 1, \"src_align\": 0, \"dst_align\": 0, "
            "\"samples_ticks\": [1, 2], \"invocation_samples\": [1, 5]}]}",
            "does not add up", "invocation counts that do not add up");
    return tap_done();
}
