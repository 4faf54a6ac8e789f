/*
 * test_bench.c: named benchmarks (sb_bench_add, sb_bench_hooks): their
 * refusals, their state and hooks (seen by counting, in one invocation:
 * the measuring happens in this process), their names in every output and
 * in a run that outlives its plan, and a comparison by name.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statbench.h"
#include "tap.h"
#include "report_text.h"

struct counts {
    size_t calls, setups, teardowns, last_n;
    int fail_setup;
};

static void bytes(void *dst, const void *src, size_t n, void *state)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    struct counts *c = state;
    if (c)
        c->calls++;
    for (size_t i = 0; i < n; i++) {
        d[i] = s[i];
        SB_CLOBBER_MEMORY();
    }
}

static void copy(void *dst, const void *src, size_t n, void *state)
{
    struct counts *c = state;
    if (c)
        c->calls++;
    memcpy(dst, src, n);
}

static int setup(void *state, size_t n, sb_error *err)
{
    struct counts *c = state;
    c->setups++;
    c->last_n = n;
    if (c->fail_setup) {
        if (err) {
            err->code = SB_EUNAVAIL;
            snprintf(err->text, sizeof err->text, "no widget for %zu", n);
        }
        return SB_EUNAVAIL;
    }
    return SB_OK;
}

static void teardown(void *state)
{
    ((struct counts *)state)->teardowns++;
}

static void options(sb_measure_options *o)
{
    sb_measure_options_init(o);
    o->invocations = 1; /* measured in this process: the counts are ours */
    o->max_time = 1;
    o->min_samples = 20;
    o->max_samples = 40;
    o->no_pin = 1;
    o->mlock = 0;
}

/* One named benchmark of a plan: its name, its function, the counts its
 * function and hooks keep, and its size. */
struct bench {
    const char *name;
    sb_kernel_fn fn;
    struct counts *state;
    size_t n;
};

/* The run of the benchmarks b[0..nb), each with the hooks setup and
 * teardown, under o and no precision target.  The plan is freed before
 * the caller sees the run: the run must not need it.  Returns
 * sb_run_execute_new's status. */
static int run_benches(const struct bench *b, size_t nb,
                       const sb_measure_options *o, sb_run **run,
                       sb_error *e)
{
    sb_plan *plan = sb_plan_new();
    sb_analysis_options an;
    int rc;

    sb_analysis_options_init(&an);
    an.precision = 0;
    for (size_t i = 0; i < nb; i++) {
        sb_bench_add(plan, b[i].name, b[i].fn, b[i].state, b[i].n, NULL);
        sb_bench_hooks(plan, b[i].name, setup, teardown, NULL);
    }
    rc = sb_run_execute_new(plan, o, &an, run, e);
    sb_plan_free(plan);
    return rc;
}

static void refusals(void)
{
    sb_plan *plan = sb_plan_new();
    sb_error e = {0};
    struct counts a = {0}, b = {0};

    TAP_IS_INT(sb_bench_add(NULL, "x", bytes, NULL, 64, &e), SB_EINVAL,
               "sb_bench_add: a NULL plan");
    TAP_IS_INT(sb_bench_add(plan, NULL, bytes, NULL, 64, &e), SB_EINVAL,
               "a NULL name");
    TAP_IS_INT(sb_bench_add(plan, "x", NULL, NULL, 64, &e), SB_EINVAL,
               "a NULL function");
    tap_ok(strstr(e.text, "fn is NULL") != NULL, "named: %s", e.text);
    TAP_IS_INT(sb_bench_add(plan, "x", bytes, NULL, 0, &e), SB_EINVAL,
               "n = 0");
    tap_ok(strstr(e.text, "n is 0") != NULL, "named: %s", e.text);
    TAP_IS_INT(sb_bench_add(plan, "", bytes, NULL, 64, &e), SB_EINVAL,
               "an empty name");
    TAP_IS_INT(sb_bench_add(plan, "a\033[2Jb", bytes, NULL, 64, &e),
               SB_EINVAL, "a name with an escape sequence");
    TAP_IS_INT(sb_bench_add(plan, "libc", bytes, NULL, 64, &e), SB_EINVAL,
               "the name of a built-in kernel");
    TAP_IS_INT(sb_plan_count(plan), 0, "none of them reached the plan");
    TAP_IS_INT(sb_bench_add(plan, "mine", bytes, &a, 64, &e), SB_OK,
               "a benchmark");
    TAP_IS_INT(sb_bench_add(plan, "mine", bytes, &a, 128, &e), SB_OK,
               "the same benchmark at another size");
    TAP_IS_INT(sb_bench_add(plan, "mine", copy, &a, 64, &e), SB_EINVAL,
               "the name with another function");
    TAP_IS_INT(sb_bench_add(plan, "mine", bytes, &b, 64, &e), SB_EINVAL,
               "the name with another state");
    tap_ok(strstr(e.text, "mine") != NULL, "named: %s", e.text);
    tap_ok(sb_plan_count(plan) == 2 &&
               sb_plan_cell(plan, 0)->kernel == sb_plan_cell(plan, 1)->kernel,
           "two cells, one kernel");
    TAP_IS_INT(sb_bench_hooks(plan, "theirs", setup, teardown, &e),
               SB_EINVAL, "hooks of a name no sb_bench_add gave");
    tap_ok(strstr(e.text, "theirs") != NULL, "named: %s", e.text);
    TAP_IS_INT(sb_bench_hooks(NULL, "mine", setup, teardown, &e), SB_EINVAL,
               "hooks of a NULL plan");
    {
        /* One cell twice: refused before anything is measured. */
        sb_measure_options o;
        sb_run *run = NULL;
        sb_kernel impostor = *sb_kernel_find("libc");
        options(&o);
        TAP_IS_INT(sb_bench_add(plan, "mine", bytes, &a, 64, &e), SB_OK,
                   "the same benchmark at the same size again: added");
        TAP_IS_INT(sb_plan_check(plan, &o, &e), SB_EINVAL,
                   "then the plan is refused");
        tap_ok(strstr(e.text, "mine, 64 bytes") && strstr(e.text, "twice"),
               "naming the cell: %s", e.text);
        TAP_IS_INT(sb_run_execute_new(plan, &o, NULL, &run, &e), SB_EINVAL,
                   "and so is its run");
        tap_ok(run == NULL, "nothing measured");
        impostor.fn = copy; /* a caller's kernel named libc */
        TAP_IS_INT(sb_plan_add(plan, &impostor, 4096, 0, 0, &e), SB_EINVAL,
                   "a caller's kernel under a built-in's name: refused");
        tap_ok(strstr(e.text, "built-in") != NULL, "named: %s", e.text);
        TAP_IS_INT(sb_plan_add(plan, sb_kernel_find("libc"), 4096, 0, 0, &e),
                   SB_OK, "the built-in itself: added");
    }
    sb_plan_free(plan);
}

/* 1 when the report in format f names both benchmarks. */
static int names_in(const sb_run *run, int f)
{
    return report_has(run, f, "mine") && report_has(run, f, "reference");
}

/* A run from the API says so: no empty command, no command-line advice;
 * a title of the caller's heads the table and the captions. */
static void api_report(sb_run *run)
{
    char *t = report_text(run, SB_FORMAT_TABLE), *nl;
    sb_error e = {0};

    if (!tap_ok(t != NULL, "the table is written"))
        return;
    nl = strchr(t, '\n');
    if (nl)
        *nl = '\0';
    tap_ok(strstr(t, ": a library run") != NULL,
           "without a title the first line says a library run: %s", t);
    if (nl)
        *nl = '\n';
    tap_ok(!strstr(t, "--max-time") && !strstr(t, "--invocations") &&
               !strstr(t, "--reject") && strstr(t, "kept (reject none)"),
           "and the table names no command-line flag (reject none, not "
           "--reject none)");
    free(t);
    TAP_IS_INT(sb_run_set_title(run, NULL, &e), SB_EINVAL, "a NULL title");
    TAP_IS_INT(sb_run_set_title(run, "memcpy gate\033[2J, 4 KiB", &e), SB_OK,
               "sb_run_set_title");
    TAP_IS_STR(sb_run_title(run), "memcpy gate\033[2J, 4 KiB",
               "sb_run_title gives it back");
    t = report_text(run, SB_FORMAT_TABLE);
    tap_ok(t && !strncmp(t, "memcpy gate?[2J, 4 KiB (statbench ", 34),
           "the table's first line is the title, its escape harmless: %.50s",
           t ? t : "");
    free(t);
    tap_ok(report_has(run, SB_FORMAT_MARKDOWN,
                      "memcpy gate \\[2J, 4 KiB; statbench"),
           "the Markdown caption has it");
    tap_ok(report_has(run, SB_FORMAT_LATEX, "memcpy gate [2J, 4 KiB: "),
           "the LaTeX caption has it");
}

static void measured(void)
{
    struct counts mine = {0}, ref = {0};
    const struct bench b[] = {{"mine", bytes, &mine, 4096},
                              {"reference", copy, &ref, 4096}};
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    size_t matched = 0;
    const sb_comparison *c;
    char line[512];
    int rc;

    options(&o);
    o.reject = SB_REJECT_NONE; /* the header then mentions the policy */
    rc = run_benches(b, 2, &o, &run, &e);
    if (!tap_ok(rc == SB_OK, "a plan of two named benchmarks runs (%s)",
                e.text))
        return;
    tap_ok(mine.calls > 0 && ref.calls > 0,
           "each function got its own state (%zu and %zu calls)",
           mine.calls, ref.calls);
    tap_ok(mine.setups == 1 && mine.teardowns == 1 && ref.setups == 1 &&
               ref.teardowns == 1,
           "each setup and teardown ran once (%zu/%zu, %zu/%zu)",
           mine.setups, mine.teardowns, ref.setups, ref.teardowns);
    TAP_IS_INT(mine.last_n, 4096, "setup got the size");
    TAP_IS_STR(sb_run_cell(run, 0)->cell.kernel->name, "mine",
               "the run's cell 0 is named mine, after the plan is freed");
    TAP_IS_STR(sb_run_cell(run, 1)->cell.kernel->name, "reference",
               "and cell 1 reference");
    tap_ok(sb_run_cell(run, 0)->cell.kernel->fn == NULL,
           "the run's copy holds no function (a record, not a kernel)");
    tap_ok(names_in(run, SB_FORMAT_TABLE), "the table names both");
    tap_ok(names_in(run, SB_FORMAT_CSV), "the CSV names both");
    tap_ok(names_in(run, SB_FORMAT_JSON), "the JSON names both");
    tap_ok(names_in(run, SB_FORMAT_MARKDOWN), "the Markdown names both");
    api_report(run);
    rc = sb_run_baseline_by(run, "reference", 0, &matched, &e);
    TAP_IS_INT(rc, SB_OK, "compared with the reference by name");
    TAP_IS_INT(matched, 2, "both cells found the reference cell");
    c = sb_run_comparison(run, 0);
    tap_ok(c && c->valid && c->base == 1, "mine has a comparison with "
           "reference");
    if (c) {
        sb_gate_judge(c, NULL, "mine vs reference", NULL, line, sizeof line);
        tap_ok(strstr(line, "mine vs reference") != NULL,
               "the gate's line names them: %s", line);
    }
    sb_run_free(run);
}

static void failing_setup(void)
{
    struct counts a = {.fail_setup = 1}, b = {0};
    const struct bench benches[] = {{"ok", copy, &b, 256},
                                    {"broken", copy, &a, 256}};
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    int rc;

    options(&o);
    rc = run_benches(benches, 2, &o, &run, &e);
    TAP_IS_INT(rc, SB_EUNAVAIL, "a setup's failure fails the run with its "
               "status");
    tap_ok(strstr(e.text, "no widget for 256") != NULL,
           "and its message: %s", e.text);
    tap_ok(run == NULL, "no run");
    tap_ok(a.teardowns == 0 && b.setups == b.teardowns,
           "the failed setup is not torn down, the others are (%zu/%zu)",
           b.setups, b.teardowns);
}

/* With forked invocations the hooks and the function run in the
 * children: the caller's state is untouched, and the names still reach
 * the run. */
static void forked(void)
{
    struct counts mine = {0};
    const struct bench b = {"mine", bytes, &mine, 1024};
    sb_measure_options o;
    sb_run *run = NULL;
    sb_error e = {0};
    int rc;

    options(&o);
    o.invocations = 2;
    rc = run_benches(&b, 1, &o, &run, &e);
    if (!tap_ok(rc == SB_OK, "two forked invocations of a named benchmark "
                "(%s)", e.text))
        return;
    tap_ok(mine.calls == 0 && mine.setups == 0,
           "the children's writes through state stay in the children");
    TAP_IS_STR(sb_run_cell(run, 0)->cell.kernel->name, "mine",
               "the name reaches the run");
    TAP_IS_INT(sb_run_invocations(run), 2, "from both invocations");
    sb_run_free(run);
}

int main(void)
{
    refusals();
    measured();
    forked();
    failing_setup();
    return tap_done();
}
