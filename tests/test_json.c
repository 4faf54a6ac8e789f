/*
 * test_json.c: a run written as JSON and read back is the same run: the
 * samples, their split by invocation, the statistics recomputed from them,
 * the rejects and the metadata, and the comparisons made within it.  And
 * a file that is not a run is refused.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "report/report.h"
#include "tap.h"
#include "report_text.h"
#include "fail_rounds.h"
#include "text.h"

static sb_run *measure(void)
{
    sb_plan *plan = sb_plan_new();
    sb_measure_options o;

    sb_measure_options_init(&o);
    o.invocations = 2;
    o.max_invocations = 2;
    o.max_time = 30; /* the 50 rounds end the run, however slow */
    o.min_samples = o.max_samples = 50;
    sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, NULL);
    sb_plan_add(plan, sb_kernel_find("duff"), 4096, 3, 5, NULL);
    /* Calls that fail in every second round (fail_rounds.h), so that its
     * cell has rejects to carry through the round trip whatever the
     * machine does: every second round is rejected as kernel-failed (25
     * of the 50 rounds of each invocation). */
    sb_plan_add(plan, fail_rounds_kernel(), 4096, 0, 0, NULL);
    o.progress = every_other_round;
    fail_now = 0;
    return measure_plan(plan, &o);
}

static int same_interval(const sb_interval *a, const sb_interval *b)
{
    return a->estimate == b->estimate && a->lo == b->lo && a->hi == b->hi &&
           a->level == b->level;
}

/* The run of document text doc, named "doc": sb_run_load_new's status,
 * *run and *e as it leaves them. */
static int load_doc(const char *doc, sb_run **run, sb_error *e)
{
    FILE *f = fmemopen((void *)doc, strlen(doc), "r");
    int rc;
    *run = NULL;
    if (!f)
        return SB_EIO;
    rc = sb_run_load_new(f, "doc", NULL, run, e);
    fclose(f);
    return rc;
}

static void refused(const char *doc, const char *needle, const char *what)
{
    sb_run *run = NULL;
    sb_error e = {0};
    int rc = load_doc(doc, &run, &e);
    tap_ok(rc == SB_EIO && run == NULL && strstr(e.text, needle) != NULL,
           "%s is refused: %s", what, e.text);
    sb_run_free(run);
}

/* Figures at the edges: negative imported values have a positive
 * relative half-width; CPU times near the largest double still split. */
static void figures_of_extremes(void)
{
    static const char doc[] =
        "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
        "\"imported\": true, \"meta\": {\"timer\": {\"hz\": 1}}, "
        "\"cells\": [{\"kernel\": \"data\", \"size\": 0, "
        "\"src_align\": 0, \"dst_align\": 0, \"samples_ticks\": "
        "[-1, -2, -3, -2, -1, -3, -2, -2, -1, -3]}]}";
    sb_run *run = NULL;
    sb_error e = {0};
    sb_cell_result big;

    if (tap_ok(load_doc(doc, &run, &e) == SB_OK,
               "negative imported values: loaded (%s)", e.text))
        tap_ok(sb_run_cell(run, 0)->rel_halfwidth >= 0,
               "their relative half-width is positive (%g)",
               sb_run_cell(run, 0)->rel_halfwidth);
    sb_run_free(run);
    memset(&big, 0, sizeof big);
    big.user_seconds = 1e308;
    big.sys_seconds = 1e308;
    TAP_IS_REL(sb__report_cpu_share(&big, 0, 8.0), 4.0, 1e-12,
               "user and system times of 1e308 each: half of 8 us each");
}

/* A run of 2 invocations whose first kept no sample: the one
 * process's interval, said, and the cell short of any target. */
static void lonely_invocation(void)
{
    static const char doc[] =
        "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
        "\"meta\": {\"timer\": {\"hz\": 1e9}, \"options\": "
        "{\"precision\": 0.5}}, \"cells\": [{\"kernel\": \"libc\", "
        "\"size\": 4096, \"src_align\": 0, \"dst_align\": 0, "
        "\"samples_ticks\": [100, 101, 100, 102, 101, 100], "
        "\"invocation_samples\": [0, 6]}]}";
    sb_run *run = NULL;
    sb_error e = {0};
    const sb_cell_result *r;

    if (!tap_ok(load_doc(doc, &run, &e) == SB_OK,
                "invocation_samples [0, 6]: loaded (%s)", e.text))
        return;
    r = sb_run_cell(run, 0);
    tap_ok(strstr(r->method, "one invocation") != NULL,
           "the method says one invocation's samples: %s", r->method);
    tap_ok(!r->reached_precision && r->rel_halfwidth < 0.5,
           "short of the target, whatever its width (+-%.1f%% of 50%%)",
           100 * r->rel_halfwidth);
    sb_run_free(run);
}

/* text with the first from replaced by to: a new string. */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);

    if (!out || !at) {
        free(out);
        return NULL;
    }
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, to,
             at + strlen(from));
    return out;
}

/* The comparisons a run made of its own cells come back from its file,
 * recomputed from the samples as they were made; one with another run's
 * cell (compare, --against) does not, and a base that names no cell is
 * refused. */
static void baselines_back(sb_run *run)
{
    size_t base[3] = {SIZE_MAX, 0, SIZE_MAX};
    sb_error e = {0};
    char *text = NULL, *doc;
    sb_run *back;
    const sb_comparison *a, *b;

    if (!tap_ok(sb_run_set_baselines(run, base, &e) == SB_OK,
                "baselines set (%s)", e.text))
        return;
    back = json_round_trip(run, &text);
    a = sb_run_comparison(run, 1);
    b = back ? sb_run_comparison(back, 1) : NULL;
    if (tap_ok(a && b, "the comparison comes back from the file")) {
        TAP_IS_INT(b->base, 0, "with its baseline");
        TAP_IS_REL(b->ratio.estimate, a->ratio.estimate, 1e-9, "its ratio");
        /* The file holds 10 significant digits a sample; the ends come
         * from the spread of two invocations' log medians, which
         * magnifies that rounding (2e-9 seen): 1e-6 is still far below
         * any difference a recomputation with other data would give. */
        TAP_IS_REL(b->ratio.lo, a->ratio.lo, 1e-6, "its interval's low end");
        TAP_IS_REL(b->ratio.hi, a->ratio.hi, 1e-6, "its high end");
        TAP_IS_INT(b->verdict, a->verdict, "its verdict");
        tap_ok(sb_run_comparison(back, 0) == NULL &&
                   sb_run_comparison(back, 2) == NULL,
               "and the cells without a baseline stay without");
        tap_ok(report_has(back, SB_FORMAT_COMPACT, "vs libc 4096 0/0"),
               "a compact report of the file shows it");
    }
    sb_run_free(back);
    back = NULL;
    if (text && (doc = replaced(text, "\"same-run\"", "\"assumed\""))) {
        tap_ok(load_doc(doc, &back, &e) == SB_OK && back &&
                   sb_run_comparison(back, 1) == NULL,
               "a comparison with another run's cell is not restored (%s)",
               e.text);
        sb_run_free(back);
        free(doc);
    }
    if (text && (doc = replaced(text, "\"base\": 0", "\"base\": 3"))) {
        refused(doc, "doc: cells[1].comparison.base: no such cell",
                "a base past the cells");
        free(doc);
    }
    if (text && (doc = replaced(text, "\"base\": 0", "\"base\": 1"))) {
        refused(doc, "doc: cells[1].comparison.base: the cell itself",
                "a cell its own base");
        free(doc);
    }
    free(text);
}

int main(void)
{
    sb_run *run = measure(), *back;
    char *text = NULL;

    if (!tap_ok(run != NULL, "a run to write"))
        return tap_done();
    back = json_round_trip(run, &text);
    if (tap_ok(back != NULL, "written and read back")) {
        TAP_IS_INT(sb_run_count(back), sb_run_count(run), "cell count");
        TAP_IS_STR(sb_run_command(back), sb_run_command(run), "command");
        TAP_IS_STR(sb_run_meta(back)->cpu_model, sb_run_meta(run)->cpu_model,
                   "cpu model");
        TAP_IS_REL(sb_run_meta(back)->timer.hz, sb_run_meta(run)->timer.hz,
                   1e-9, "timer rate");
        TAP_IS_INT(sb_run_measure_options(back)->seed,
                   sb_run_measure_options(run)->seed, "seed");
        {
            /* The caches of the CPU measured on, level by level (none
             * where sysfs has none: then none come back). */
            const sb_meta *ma = sb_run_meta(run), *mb = sb_run_meta(back);
            int same = ma->ncaches == mb->ncaches;
            for (size_t k = 0; same && k < ma->ncaches; k++)
                same = !strcmp(ma->caches[k].label, mb->caches[k].label) &&
                       ma->caches[k].bytes == mb->caches[k].bytes;
            tap_ok(same, "the CPU's %zu cache level%s back", ma->ncaches,
                   ma->ncaches == 1 ? "" : "s");
        }
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
            {
                int each = 1;
                for (int q = 0; q < SB_REJECT_NREASONS; q++)
                    each = each && b->rejected[q] == a->rejected[q];
                tap_ok(each, "cell %zu: rejects by reason alike", i);
            }
            if (!strcmp(a->cell.kernel->name, fail_rounds_kernel()->name))
                tap_ok(a->rejected[SB_REJECT_KERNEL_FAILED] >= 1 &&
                           b->rejected[SB_REJECT_KERNEL_FAILED] ==
                               a->rejected[SB_REJECT_KERNEL_FAILED],
                       "cell %zu: its failed rounds are rejects, kept "
                       "through the round trip (%zu), so the check above "
                       "is not vacuous", i,
                       b->rejected[SB_REJECT_KERNEL_FAILED]);
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
            sb_run *again = json_round_trip(back, &text2);
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
    baselines_back(run);
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
            "doc: cells[0].samples_ticks[1]: not a finite number",
            "a sample that is a word");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"x\", \"size\": 1, \"src_align\": 0, \"dst_align\": 0, "
            "\"samples_ticks\": [1, 2], \"invocation_samples\": [1, 5]}]}",
            "does not add up", "invocation counts that do not add up");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"x\", \"size\": 1, \"src_align\": 0, \"dst_align\": 0, "
            "\"samples_ticks\": [1, 2, 3], \"invocation_samples\": [1, 1]}]}",
            "does not add up", "invocation counts that add up to fewer "
            "samples than there are");
    {
        /* A merged run of 2 runs, 2 invocations: the run numbers must lie
         * below 2.  The same document with [0, 1] loads, so that the
         * refusal is the run number's. */
        static const char head[] =
            "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"merged_runs\": "
            "[{\"hostname\": \"a\"}, {\"hostname\": \"b\"}], "
            "\"invocation_run\": ";
        static const char tail[] =
            ", \"cells\": [{\"kernel\": \"libc\", \"size\": 4096, "
            "\"src_align\": 0, \"dst_align\": 0, \"samples_ticks\": "
            "[100, 101, 102, 103], \"invocation_samples\": [2, 2]}]}";
        char doc[1024];
        sb_run *mr = NULL;
        sb_error e = {0};
        snprintf(doc, sizeof doc, "%s[0, 1]%s", head, tail);
        tap_ok(load_doc(doc, &mr, &e) == SB_OK && sb_run_runs(mr) == 2 &&
                   sb_run_invocation_run(mr, 1) == 1,
               "a merged run tagging its invocations 0 and 1 loads (%s)",
               e.text);
        sb_run_free(mr);
        snprintf(doc, sizeof doc, "%s[0, 2]%s", head, tail);
        refused(doc, "invocation_run[1]\": not a run number below 2",
                "a merged run's invocation_run holding n (2 of 2 runs)");
        snprintf(doc, sizeof doc, "%s[0, -1]%s", head, tail);
        refused(doc, "invocation_run[1]\": not a run number below 2",
                "a negative run number");
    }
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": ["
            "{\"kernel\": \"libc\", \"size\": 4096, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [4, 4]}, "
            "{\"kernel\": \"x\", \"size\": 4096, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [1, 1]}, "
            "{\"kernel\": \"libc\", \"size\": 4096, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [1, 1]}]}",
            "doc: cells[2] repeats cells[0] (libc, 4096 bytes, offsets 0/0)",
            "a cell listed twice");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": ["
            "{\"kernel\": \"libc\", \"size\": 4096.7, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [4, 4]}]}",
            "doc: cells[0].size: not a whole number of bytes",
            "a size of 4096.7");
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": ["
            "{\"kernel\": \"libc\", \"size\": 4096, \"src_align\": -1, "
            "\"dst_align\": 0, \"samples_ticks\": [4, 4]}]}",
            "doc: cells[0].src_align: not a whole number of bytes",
            "a src_align of -1");
    lonely_invocation();
    refused("{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"timer\": {\"hz\": 1e9}}, \"cells\": ["
            "{\"kernel\": \"libc\", \"size\": 4096, \"src_align\": 0, "
            "\"dst_align\": 0, \"samples_ticks\": [4, 4], \"rejected\": "
            "{\"outlier\": 9223372036854775807}}]}",
            "doc: cells[0].rejected.outlier: 9223372036854775807 is more "
            "samples than a run takes",
            "a reject count of 2^63 - 1");
    figures_of_extremes();

    /* Loaded nonsense: a time that is not positive in
     * a measured cell of some size, named by file and field; a clock
     * rate that is not positive. */
#define DOC(hz, extra, size, samples)                                     \
    "{\"schema\": \"statbench-run\", \"schema_version\": 1, "            \
    "\"meta\": {\"timer\": {\"hz\": " hz "}}" extra ", \"cells\": ["     \
    "{\"kernel\": \"x\", \"size\": 64, \"src_align\": 0, "             \
    "\"dst_align\": 0, \"samples_ticks\": [1, 2, 3]}, "                 \
    "{\"kernel\": \"x\", \"size\": " size ", \"src_align\": 1, "       \
    "\"dst_align\": 0, \"samples_ticks\": " samples "}]}"
    refused(DOC("1e9", "", "64", "[5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
                                 "16, 17, 18, 19, 20, 21, -4.2]"),
            "doc: cells[1].samples_ticks[17]: -4.2 is not a positive time",
            "a negative sample");
    refused(DOC("1e9", "", "64", "[0, 0, 0, 0]"),
            "doc: cells[1].samples_ticks[0]: 0 is not a positive time",
            "all-zero samples");
    refused(DOC("0", "", "64", "[1, 2]"), "\"meta.timer.hz\"",
            "a clock rate of zero");
    refused(DOC("-2e9", "", "64", "[1, 2]"), "\"meta.timer.hz\"",
            "a negative clock rate");
    refused(DOC("\"nan\"", "", "64", "[1, 2]"), "\"meta.timer.hz\"",
            "a clock rate that is a string");
    /* A timer kind this build has no words for: its ticks would be
     * printed as nanoseconds.  Named, its control character cleaned. */
    refused(DOC("1e9, \"kind\": \"hp\\u001bet\"", "", "64", "[1, 2]"),
            "doc: unknown \"meta.timer.kind\" 'hp?et': not a timer this "
            "build knows",
            "a timer kind no build has");
    {
        /* The kinds the writer spells, and none, which is the clock. */
        static const struct {
            const char *doc;
            int kind;
        } k[] = {
            {DOC("2e9, \"kind\": \"tsc\"", "", "64", "[1, 2]"),
             SB_TIMER_TSC},
            {DOC("1e9, \"kind\": \"clock_monotonic_raw\"", "", "64",
                 "[1, 2]"),
             SB_TIMER_CLOCK},
            {DOC("1e9", "", "64", "[1, 2]"), SB_TIMER_CLOCK},
            {DOC("2.5e7, \"kind\": \"cntvct\"", "", "64", "[1, 2]"),
             SB_TIMER_CNTVCT},
        };
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
            sb_run *got = NULL;
            sb_error e = {0};
            int rc = load_doc(k[i].doc, &got, &e);
            tap_ok(rc == SB_OK && got &&
                       (int)sb_run_meta(got)->timer.kind == k[i].kind,
                   "timer kind %zu of 4 read as %s (%s)", i + 1,
                   sb_timer_name(k[i].kind), e.text);
            sb_run_free(got);
        }
    }
    refused(DOC("1e9", "", "64", "[1, \"NaN\"]"),
            "doc: cells[1].samples_ticks[1]: not a finite number",
            "a sample that is the string NaN");
    {
        /* Values from elsewhere (analyze) are any finite number; so are
         * the times of a cell of no size (an empty region can measure
         * below the timer's overhead). */
        const char *docs[] = {
            DOC("1", ", \"imported\": true", "64", "[-1, 0, 2]"),
            DOC("1e9", "", "0", "[-1, 0, 2]"),
        };
        for (size_t d = 0; d < 2; d++) {
            FILE *f = fmemopen((void *)docs[d], strlen(docs[d]), "r");
            sb_run *r = NULL;
            sb_error e = {0};
            tap_ok(sb_run_load_new(f, "doc", NULL, &r, &e) == SB_OK,
                   "%s: loaded %s", d ? "a cell of no size" : "imported "
                   "values", e.text);
            fclose(f);
            sb_run_free(r);
        }
    }

    /* Control characters of a loaded string never reach a terminal: C0,
     * DEL, C1 (as UTF-8) become '?', other UTF-8 stays. */
    {
        const char *doc =
            "{\"schema\": \"statbench-run\", \"schema_version\": 1, "
            "\"meta\": {\"cpu_model\": \"a\\u001b[31mb\\u009bc\\u007f"
            "\\u00e9\", \"notes\": [\"n\\u0007\", \"m\"], "
            "\"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
            "\"k\\u001bk\", \"size\": 1, \"src_align\": 0, \"dst_align\": "
            "0, \"samples_ticks\": [1, 2]}]}";
        FILE *f = fmemopen((void *)doc, strlen(doc), "r");
        sb_run *r = NULL;
        sb_error e = {0};
        if (tap_ok(sb_run_load_new(f, "doc", NULL, &r, &e) == SB_OK,
                   "a run with control characters loads: %s", e.text)) {
            TAP_IS_STR(sb_run_meta(r)->cpu_model, "a?[31mb?c?\xc3\xa9",
                       "cpu model cleaned, UTF-8 kept");
            TAP_IS_STR(sb_run_meta(r)->notes, "n?\nm", "notes cleaned");
            TAP_IS_STR(sb_run_cell(r, 0)->cell.kernel->name, "k?k",
                       "kernel name cleaned");
        }
        fclose(f);
        sb_run_free(r);
    }
    {
        /* More notes than sb_meta.notes holds: each kept note is whole,
         * in order, and the last line says the rest were dropped; a cut
         * note would read as another one. */
        char doc[20000], want[64];
        size_t used, kept = 0, whole = 1;
        const char *p;
        used = (size_t)snprintf(doc, sizeof doc,
                                "{\"schema\": \"statbench-run\", "
                                "\"schema_version\": 1, \"meta\": "
                                "{\"notes\": [");
        for (int i = 0; i < 100; i++)
            used += (size_t)snprintf(doc + used, sizeof doc - used,
                                     "%s\"note %03d %s\"", i ? ", " : "", i,
                                     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                                     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        snprintf(doc + used, sizeof doc - used,
                 "], \"timer\": {\"hz\": 1e9}}, \"cells\": [{\"kernel\": "
                 "\"k\", \"size\": 1, \"src_align\": 0, \"dst_align\": 0, "
                 "\"samples_ticks\": [1, 2]}]}");
        FILE *f = fmemopen(doc, strlen(doc), "r");
        sb_run *r = NULL;
        sb_error e = {0};
        if (tap_ok(f && sb_run_load_new(f, "doc", NULL, &r, &e) == SB_OK,
                   "a run of 100 notes of 81 bytes loads: %s", e.text)) {
            const char *n = sb_run_meta(r)->notes;
            for (p = n; *p; kept++) {
                size_t len = strcspn(p, "\n");
                snprintf(want, sizeof want, "note %03zu ", kept);
                if (p[len] != '\0') /* not the last line */
                    whole &= len == 81 && !strncmp(p, want, 9);
                else
                    whole &= !strcmp(p, "(later notes dropped: the run's "
                                        "notes are full)");
                p += len + (p[len] == '\n');
            }
            tap_ok(whole && kept > 40 && kept < 100,
                   "the %zu kept lines are whole notes in order, then the "
                   "line saying the others were dropped (%zu bytes)",
                   kept, strlen(n));
        }
        if (f)
            fclose(f);
        sb_run_free(r);
    }
    {
        /* sb__clean_text: bytes that are not UTF-8 too. */
        char t[] = "x\x9b\xc2\x9by\xe2\x82\xacz\xc3";
        sb__clean_text(t);
        TAP_IS_STR(t, "x??y\xe2\x82\xacz?", "a lone C1 byte, C1 as UTF-8, "
                   "a cut character");
    }
    {
        /* Overlong forms of U+00E9 (3 and 4 bytes) and a surrogate are not
         * UTF-8: each byte becomes '?', none reaches a terminal whole. */
        char t[] = "a\xe0\x83\xa9" "b\xf0\x80\x83\xa9"
                   "c\xed\xa0\x80" "d\xc3\xa9";
        sb__clean_text(t);
        TAP_IS_STR(t, "a???b????c???d\xc3\xa9", "overlong forms and a "
                   "surrogate cleaned, the real U+00E9 kept");
    }
    return tap_done();
}
