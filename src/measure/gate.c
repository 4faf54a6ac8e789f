/*
 * gate.c: the test-suite helpers: compare two functions, and a one-call
 * regression gate built on it.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "plan.h"
#include "run_internal.h"
#include "text.h"

/* What a returned run's cells point at once the caller's functions are
 * gone from view: names and descriptions, no function. */
static const sb_kernel stand_in[2] = {
    {.size = sizeof(sb_kernel), .name = "baseline", .family = SB_FAMILY_COPY,
     .description = "the baseline function"},
    {.size = sizeof(sb_kernel), .name = "candidate", .family = SB_FAMILY_COPY,
     .description = "the candidate function"},
};

/* The layouts of sb_comparison a caller may have, the current first (a
 * field added later goes at the end, and the size before it stays
 * here). */
static const size_t comparison_sizes[] = {
    sizeof(sb_comparison), offsetof(sb_comparison, shared_bound)};
#define NCOMPARISON_SIZES (sizeof comparison_sizes / sizeof *comparison_sizes)

/* SB_OK when out is a comparison of a size this library knows (NULL: no
 * output, also SB_OK), else SB_EINVAL naming who and the size. */
static int comparison_size(const sb_comparison *out, const char *who,
                           sb_error *err)
{
    if (!out)
        return SB_OK;
    return sb__out_size(sb__out_size_of(out), comparison_sizes,
                        NCOMPARISON_SIZES, "sb_comparison", who, err);
}

/* The whole comparison c into the caller's out, as much as its size
 * holds; nothing for a NULL out or one of an unknown size. */
static void put_comparison(sb_comparison *out, const sb_comparison *c)
{
    if (out && comparison_size(out, "", NULL) == SB_OK)
        sb__out_put(out, sb__out_size_of(out), c);
}

/* What a failed call leaves in its comparison: no verdict, no ratio, so
 * that it cannot be read as a result (statbench.h, enum sb_verdict).
 * none fills the library's whole struct c; no_comparison the caller's
 * out, as far as its size holds. */
static void none(sb_comparison *c)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->valid = 0;
    c->base = SIZE_MAX;
    c->ratio = (sb_interval){NAN, NAN, NAN, NAN, NAN};
    c->p = c->p_adjusted = c->a12 = c->mde = c->run_sd = NAN;
    c->shared_bound = NAN;
    c->verdict = SB_VERDICT_NONE;
    c->test = "none: the call failed";
}

static void no_comparison(sb_comparison *out)
{
    sb_comparison c;

    none(&c);
    put_comparison(out, &c);
}

/* A caller's comparison c in the library's whole layout, *full: the
 * fields its size holds, the later ones as a failed call leaves them.
 * SB_EINVAL for an unknown size (*full then says no comparison). */
static int get_comparison(const sb_comparison *c, sb_comparison *full)
{
    size_t size = sb__out_size_of(c);

    none(full);
    if (sb__out_size(size, comparison_sizes, NCOMPARISON_SIZES,
                     "sb_comparison", "", NULL) != SB_OK)
        return SB_EINVAL;
    memcpy(full, c, size);
    full->size = sizeof *full;
    return SB_OK;
}

/* run judged against the host profile below dir, the verdict recorded
 * in it; *f receives its figures for the update. */
static int judge_profile(sb_run *run, const char *dir, sb_profile_figures *f,
                         sb_error *err)
{
    sb_profile_key key = {.size = sizeof key};
    sb_profile_judgement j = {.size = sizeof j};
    sb_profile *p = NULL;
    int rc;

    f->size = sizeof *f;
    if ((rc = sb_profile_key_from_meta(sb_run_meta(run), &key, err)) !=
            SB_OK ||
        (rc = sb_profile_figures_from_meta(sb_run_meta(run), f, err)) !=
            SB_OK ||
        (rc = sb_profile_load(dir, &key, &p, err)) != SB_OK)
        return rc;
    rc = sb_profile_judge(p, f, &j, err);
    sb_profile_free(p);
    return rc == SB_OK ? sb_run_set_profile(run, &j, err) : rc;
}

/* SB_OK when both functions have samples; a function without any has no
 * time to compare (every call failed, or every sample was disturbed),
 * which is never a pass. */
static int both_sampled(const sb_run *run, const sb_kernel k[2],
                        sb_error *err)
{
    for (size_t i = 0; i < 2; i++) {
        const sb_cell_result *r = sb_run_cell(run, i);
        if (r->nsamples == 0)
            return sb__error(err, SB_ENOSAMPLES,
                             "the %s function has no valid sample (%zu "
                             "taken, all rejected: %zu of them with a "
                             "failed call)",
                             k[i].name, r->rejected_total,
                             r->rejected[SB_REJECT_KERNEL_FAILED]);
    }
    return SB_OK;
}

/* The run's figures added to the host profile in dir. */
static int profile_keep(const sb_run *run, const char *dir,
                        const sb_profile_figures *f, sb_error *err)
{
    sb_profile_key key = {.size = sizeof key};
    int rc = sb_profile_key_from_meta(sb_run_meta(run), &key, err);
    return rc == SB_OK ? sb_profile_add(dir, &key, f, NULL, NULL, 0, err)
                       : rc;
}

int sb_compare_functions(sb_kernel_fn baseline, sb_kernel_fn candidate,
                         size_t n, const sb_measure_options *m,
                         const sb_analysis_options *a, sb_comparison *out,
                         sb_run **run_new, sb_error *err)
{
    /* The two functions as kernels of the copy family, for this call. */
    sb_kernel k[2] = {
        {.size = sizeof(sb_kernel), .name = "baseline",
         .family = SB_FAMILY_COPY,
         .description = "the baseline function", .fn = baseline},
        {.size = sizeof(sb_kernel), .name = "candidate",
         .family = SB_FAMILY_COPY,
         .description = "the candidate function", .fn = candidate},
    };
    sb_measure_options fm;
    sb_analysis_options fa;
    sb_plan *plan;
    sb_run *run = NULL;
    size_t base[2] = {SIZE_MAX, 0};
    sb_profile_figures figures = {.size = sizeof figures};
    int rc;

    if (run_new)
        *run_new = NULL;
    /* Before anything is written to it: a size this library does not
     * know is a layout it must not write. */
    if ((rc = comparison_size(out, "sb_compare_functions", err)) != SB_OK)
        return rc;
    no_comparison(out);
    if (!baseline || !candidate || !out)
        return sb__error(err, SB_EINVAL, "sb_compare_functions: %s is NULL",
                         !baseline ? "baseline"
                         : !candidate ? "candidate" : "out");
    if (n == 0)
        return sb__error(err, SB_EINVAL,
                         "sb_compare_functions: n is 0 (the functions "
                         "would be timed on no bytes)");
    if ((rc = sb__measure_get(m, &fm, "sb_compare_functions", err)) !=
            SB_OK ||
        (rc = sb__analysis_get(a, &fa, "sb_compare_functions", err)) != SB_OK)
        return rc;
    plan = sb_plan_new();
    if (!plan)
        return sb__error(err, SB_ENOMEM, "out of memory");
    rc = sb_plan_add(plan, &k[0], n, 0, 0, err);
    if (rc == SB_OK)
        rc = sb_plan_add(plan, &k[1], n, 0, 0, err);
    if (rc == SB_OK)
        rc = sb_run_execute_new(plan, &fm, &fa, &run, err);
    if (rc == SB_OK)
        rc = both_sampled(run, k, err);
    /* Judged before the comparison: a run on a shared core must not give
     * a verdict at all (sb_run_set_profile). */
    if (rc == SB_OK && fm.profile_dir)
        rc = judge_profile(run, fm.profile_dir, &figures, err);
    if (rc == SB_OK)
        rc = sb_run_set_baselines(run, base, err);
    if (rc == SB_OK && fm.profile_dir && !sb_run_interrupted(run))
        rc = profile_keep(run, fm.profile_dir, &figures, err);
    if (rc == SB_OK) {
        const sb_comparison *c = sb_run_comparison(run, 1);
        if (c) {
            put_comparison(out, c);
        } else {
            rc = sb__error(err, SB_ENUMERIC, "no comparison could be made");
        }
    }
    if (rc != SB_OK)
        no_comparison(out);
    if (rc == SB_OK && run_new) {
        /* The run must not point at the kernels on this stack frame. */
        for (size_t i = 0; i < run->ncells; i++)
            run->cells[i].cell.kernel = &stand_in[i];
        *run_new = run;
        run = NULL;
    }
    sb_run_free(run);
    sb_plan_free(plan);
    return rc;
}

int sb_gate(sb_kernel_fn baseline, sb_kernel_fn candidate, size_t n,
            const sb_measure_options *m, const sb_analysis_options *a,
            sb_comparison *out, int *outcome, sb_error *err)
{
    sb_comparison c = {.size = sizeof c};
    int rc;

    /* A failed call fails the gate, whatever the caller does with the
     * status: a gate must not pass what it could not measure. */
    if (outcome)
        *outcome = SB_GATE_FAIL;
    if ((rc = comparison_size(out, "sb_gate", err)) != SB_OK)
        return rc;
    if (!outcome) {
        no_comparison(out);
        return sb__error(err, SB_EINVAL, "sb_gate: outcome is NULL");
    }
    rc = sb_compare_functions(baseline, candidate, n, m, a, &c, NULL, err);
    if (rc != SB_OK) {
        no_comparison(out);
        return rc;
    }
    put_comparison(out, &c);
    *outcome = sb_gate_judge(&c, a, NULL, NULL, NULL, 0);
    return SB_OK;
}

int sb_comparison_regressed(const sb_comparison *in, double threshold)
{
    sb_comparison full;
    const sb_comparison *c = in ? &full : NULL;

    /* A comparison of a layout this library does not know cannot be
     * read: a gate must not pass it. */
    if (in && get_comparison(in, &full) != SB_OK)
        return 1;
    /* Slower (significant, the whole interval above 1) and by more than
     * the threshold: a difference too small to matter never fails.  A
     * comparison that could not be made (a cell without samples) fails:
     * a gate must not pass what it could not measure. */
    if (c && c->valid && !isfinite(c->ratio.estimate))
        return 1;
    return c && c->valid && c->verdict == SB_VERDICT_SLOWER &&
           c->ratio.estimate > 1 + threshold;
}

void sb_do_not_optimize_escape(volatile void *p)
{
    /* Nothing: the guards' fallback needs only a call the compiler cannot
     * see into (statbench.h, SB_DO_NOT_OPTIMIZE). */
    (void)p;
}

/* Append to buf at *at, never past len; *at counts what was asked for. */
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(buf && *at < len ? buf + *at : NULL,
                  buf && *at < len ? len - *at : 0, fmt, ap);
    va_end(ap);
    if (k > 0)
        *at += (size_t)k;
}

/* A caller's string (a kernel name, a file name: hostile) into the one
 * line: control characters become '?', so that it stays one line. */
static void put_text(char *buf, size_t len, size_t *at, const char *s)
{
    /* Names may come from a loaded file: cleaned as every printed string
     * is (text.c: C0, DEL, C1 and broken UTF-8 as '?'). */
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", s);
    sb__clean_text(tmp);
    put(buf, len, at, "%s", tmp);
}

/* What decided a comparison at the gate: sb_gate_judge's outcome told
 * apart by cause, as the tally counts it. */
enum gate_cause { G_PASS, G_WARN, G_SLOWER, G_LOST, G_UNDECIDED };

/* The one judgement behind sb_gate_judge and sb_gate_tally_add: c under
 * a's threshold and policy, its line in buf; *cause says what decided. */
/* The gate's outcome for a comparison c (NULL: none) at threshold th,
 * with the policy for an inconclusive one; *cause and *why say why. */
static int decide(const sb_comparison *c, double th, int policy,
                  enum gate_cause *cause, const char **why)
{
    int out;

    if (!c || !c->valid || c->verdict == SB_VERDICT_NONE) {
        out = SB_GATE_FAIL;
        *cause = G_LOST;
        *why = "no comparison (an error, or no baseline to compare with)";
    } else if (!isfinite(c->ratio.estimate)) {
        out = SB_GATE_FAIL;
        *cause = G_LOST;
        *why = "not comparable (no samples, or times that are not "
              "positive)";
    } else if (c->verdict == SB_VERDICT_SLOWER) {
        out = c->ratio.estimate > 1 + th ? SB_GATE_FAIL : SB_GATE_PASS;
        *cause = out ? G_SLOWER : G_PASS;
        /* A verdict kept on a shared core says what it had to beat. */
        *why = !out ? "slower, by less than the threshold"
               : isfinite(c->shared_bound)
                   ? "slower, beyond the threshold and beyond what the "
                     "shared core could explain (the probe's slowdown; "
                     "see the warning)"
                   : "slower, beyond the threshold";
    } else if (c->verdict == SB_VERDICT_INCONCLUSIVE &&
               !(c->ratio.hi <= 1 + th)) {
        /* Neither shown slower nor ruled out: the policy decides. */
        out = policy == SB_INCONCLUSIVE_PASS   ? SB_GATE_PASS
              : policy == SB_INCONCLUSIVE_WARN ? SB_GATE_WARN
                                               : SB_GATE_FAIL;
        *cause = out == SB_GATE_PASS   ? G_PASS
                 : out == SB_GATE_WARN ? G_WARN
                                       : G_UNDECIDED;
        /* A verdict withheld (a run measured on a shared core) is not
         * one short of evidence. */
        *why = c->withheld
                  ? "inconclusive: the verdict was withheld, since a run "
                    "was measured on a shared core (its figures judge the "
                    "neighbour; see the warning), and the interval reaches "
                    "past the threshold"
                  : "inconclusive: the interval reaches past the threshold "
                    "without significance";
    } else if (c->verdict == SB_VERDICT_INCONCLUSIVE) {
        out = SB_GATE_PASS;
        *cause = G_PASS;
        *why = "inconclusive, but the interval rules out a slowdown "
              "beyond the threshold";
    } else {
        out = SB_GATE_PASS;
        *cause = G_PASS;
        *why = sb_verdict_name(c->verdict);
    }
    return out;
}

static int judge(const sb_comparison *in, const sb_analysis_options *a,
                 const char *what, const char *baseline_from, char *buf,
                 size_t len, enum gate_cause *cause)
{
    sb_analysis_options d;
    const sb_analysis_options *opt = &d;
    sb_comparison full;
    const sb_comparison *c = in ? &full : NULL;
    double th;
    int out, policy, bad_opt = 0, bad_size = 0;
    size_t at = 0;
    const char *why;

    if (sb__analysis_get(a, &d, "sb_gate_judge", NULL) != SB_OK)
        bad_opt = 1; /* d holds the defaults; the gate fails below */
    if (in && get_comparison(in, &full) != SB_OK)
        bad_size = 1; /* full says no comparison: the gate fails */
    th = opt->threshold;
    policy = opt->inconclusive;
    if (buf && len)
        buf[0] = '\0';
    if (!what)
        what = "candidate vs baseline";
    if (!baseline_from)
        baseline_from = "measured in the same run";

    out = decide(c, th, policy, cause, &why);
    if (bad_opt) {
        out = SB_GATE_FAIL;
        *cause = G_LOST;
        why = "the analysis options' size is unknown to this library "
              "(fill them with sb_analysis_options_init)";
    }
    if (bad_size) {
        char size[64];
        out = SB_GATE_FAIL;
        *cause = G_LOST;
        snprintf(size, sizeof size, "sb_comparison.size %zu",
                 sb__out_size_of(in));
        put(buf, len, &at, "FAIL ");
        put_text(buf, len, &at, what);
        put(buf, len, &at,
            ": %s: unknown to this library (%zu; set it to "
            "sizeof(sb_comparison))",
            size, sizeof(sb_comparison));
        return out;
    }
    put(buf, len, &at, "%s ", out == SB_GATE_FAIL   ? "FAIL"
                              : out == SB_GATE_WARN ? "WARN"
                                                    : "PASS");
    put_text(buf, len, &at, what);
    put(buf, len, &at, ": %s", why);
    if (c && c->valid && isfinite(c->ratio.estimate))
        /* What the ratio is of: the comparison says when it was made in
         * core cycles (both cells judged in cycles). */
        put(buf, len, &at, "; %s ratio %.4g [%.4g, %.4g], p(adj) %.2g",
            c->test && strstr(c->test, "core cycles") ? "core-cycle" : "time",
            c->ratio.estimate, c->ratio.lo, c->ratio.hi, c->p_adjusted);
    put(buf, len, &at, "; threshold %g%%", th * 100);
    if (c && c->valid && isfinite(c->mde))
        put(buf, len, &at, "; smallest detectable change %.2g%%",
            c->mde * 100);
    else
        put(buf, len, &at, "; smallest detectable change unknown");
    put(buf, len, &at, "; baseline: ");
    put_text(buf, len, &at, baseline_from);
    return out;
}

int sb_gate_judge(const sb_comparison *c, const sb_analysis_options *a,
                  const char *what, const char *baseline_from, char *buf,
                  size_t len)
{
    enum gate_cause cause;

    return judge(c, a, what, baseline_from, buf, len, &cause);
}

/* The layouts of sb_gate_tally a caller may have, the current first. */
static const size_t tally_sizes[] = {sizeof(sb_gate_tally)};
#define NTALLY_SIZES (sizeof tally_sizes / sizeof *tally_sizes)

/* A caller's tally t in the library's whole layout, *full (later fields
 * 0, as a caller who zeroed an older layout would have them); SB_EINVAL
 * for NULL or an unknown size, and then t must not be written. */
static int get_tally(const sb_gate_tally *t, sb_gate_tally *full)
{
    size_t size;

    memset(full, 0, sizeof *full);
    full->size = sizeof *full;
    if (!t)
        return SB_EINVAL;
    size = sb__out_size_of(t);
    if (sb__out_size(size, tally_sizes, NTALLY_SIZES, "sb_gate_tally", "",
                     NULL) != SB_OK)
        return SB_EINVAL;
    memcpy(full, t, size);
    full->size = sizeof *full;
    return SB_OK;
}

int sb_gate_tally_add(sb_gate_tally *t, const sb_comparison *c,
                      const sb_analysis_options *a, const char *what,
                      const char *baseline_from, char *buf, size_t len)
{
    sb_gate_tally full;
    enum gate_cause cause;
    int out;

    if (get_tally(t, &full) != SB_OK) {
        /* Nothing can be counted, so nothing may pass: the line says
         * why in place of the comparison's. */
        size_t at = 0;
        if (buf && len)
            buf[0] = '\0';
        put(buf, len, &at, "FAIL ");
        put_text(buf, len, &at, what ? what : "candidate vs baseline");
        if (t)
            put(buf, len, &at,
                ": sb_gate_tally.size %zu: unknown to this library (%zu; "
                "set it to sizeof(sb_gate_tally))",
                sb__out_size_of(t), sizeof(sb_gate_tally));
        else
            put(buf, len, &at, ": sb_gate_tally_add: tally is NULL");
        return SB_GATE_FAIL;
    }
    out = judge(c, a, what, baseline_from, buf, len, &cause);
    full.judged++;
    switch (cause) {
    case G_PASS:
        full.passed++;
        break;
    case G_WARN:
        full.warned++;
        break;
    case G_SLOWER:
        full.slower++;
        break;
    case G_LOST:
        full.lost++;
        break;
    case G_UNDECIDED:
        full.undecided++;
        out = SB_GATE_UNDECIDED;
        break;
    }
    sb__out_put(t, sb__out_size_of(t), &full);
    return out;
}

int sb_gate_tally_outcome(const sb_gate_tally *t)
{
    sb_gate_tally full;

    if (get_tally(t, &full) != SB_OK)
        return SB_GATE_FAIL;
    /* Counts that do not add up are no tally the library made (a caller
     * who forgot to zero it): not a pass. */
    if (full.judged == 0 || full.slower || full.lost ||
        full.passed + full.warned + full.undecided != full.judged)
        return SB_GATE_FAIL;
    if (full.undecided)
        return SB_GATE_UNDECIDED;
    if (full.warned)
        return SB_GATE_WARN;
    return SB_GATE_PASS;
}
