/*
 * fuzz_json.c: libFuzzer harness for the JSON readers, sb_run_import_new()
 * (src/io/import_tools.c: a statbench run through sb_run_load_new's code
 * in src/io/load.c, or Google Benchmark, hyperfine or pyperf JSON, told
 * from the keys), and, through the runs they accept, for every reporter
 * and for the comparison of two saved runs.
 *
 * The input is the whole file, read through a memory FILE, twice: with
 * NULL options (the statistics as saved, as `statbench report` does) and
 * with options that differ from the defaults in the fields the reader
 * takes from the caller (outliers removed again, other levels; bootstrap
 * stays 0, so that an input stays fast).  A run
 * that comes back is written with sb_report() to /dev/null in every
 * format; a refusal must say why.  When both loads succeed, the second is
 * compared with the first (sb_run_compare_to, as `statbench compare A B`
 * does) and written again, now with its comparison columns; and every
 * cell of the first is compared with its first cell (sb_run_set_baselines,
 * as --baseline does) and written again.  Every run is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "statbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);



static sb_run *load(char *buf, size_t size, const sb_analysis_options *opt)
{
    sb_run *run = NULL;
    sb_error err = {0};
    FILE *f = fmemopen(buf, size, "r");
    int rc;

    if (!f)
        return NULL;
    rc = sb_run_import_new(f, "fuzz.json", SB_IMPORT_AUTO, 0, opt, 1, NULL,
                           &run, &err);
    fclose(f);
    if (rc != SB_OK) {
        CHECK(run == NULL);
        CHECK(err.code == rc && err.text[0] != '\0');
        return NULL;
    }
    CHECK(run != NULL && sb_run_count(run) >= 1);
    render(run);
    return run;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen wants a writable buffer; an exact-size copy keeps ASan's
     * eye on reads past the end. */
    char *buf = malloc(size ? size : 1);
    sb_run *saved, *again;
    sb_analysis_options oa;

    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    saved = load(buf, size, NULL);

    sb_analysis_options_init(&oa);
    oa.ci_level = 0.99;
    oa.precision = 0.05;
    oa.outliers = SB_OUTLIERS_REJECT_ALL;
    oa.alpha = 0.01;
    oa.threshold = 0.02;
    again = load(buf, size, &oa);

    if (saved && again) {
        sb_error err = {0};
        size_t matched = 0;
        CHECK(sb_run_compare_to(again, saved, &matched, &err) == SB_OK);
        CHECK(matched <= sb_run_count(again));
        render(again);
    }
    if (saved && sb_run_count(saved) >= 2) {
        /* Every cell against the first, as --baseline does: the paired
         * comparison of cells of one run. */
        size_t n = sb_run_count(saved), *base = malloc(n * sizeof *base);
        sb_error err = {0};
        if (base) {
            base[0] = SIZE_MAX;
            for (size_t i = 1; i < n; i++)
                base[i] = 0;
            CHECK(sb_run_set_baselines(saved, base, &err) == SB_OK);
            render(saved);
            free(base);
        }
    }
    sb_run_free(saved);
    sb_run_free(again);
    free(buf);
    return 0;
}
