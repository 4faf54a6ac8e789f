/*
 * counters.c: the counters read around every sample.
 *
 * Which counters: the names of sb_measure_options.counters (PAPI presets
 * such as PAPI_TOT_CYC, PAPI native names, perf software events
 * "perf::NAME"), or by default the hardware presets PAPI_TOT_CYC,
 * PAPI_TOT_INS, PAPI_L1_DCM, PAPI_L2_DCM and PAPI_TLB_DM; and always the
 * software events perf::CONTEXT-SWITCHES, perf::CPU-MIGRATIONS and
 * perf::PAGE-FAULTS, which the disturbance checks need.
 *
 * Where each comes from, first that works:
 *  1. PAPI (built with it, and the name can be added to this thread's
 *     event set).  On a virtual machine without a PMU, PAPI initialises
 *     but its perf_event component is disabled ("libpfm4 no default PMU
 *     found"): no preset and no perf:: event can be added there.
 *  2. perf_event_open(2), for the perf software events only: one group
 *     (PERF_FORMAT_GROUP, so that one read(2) returns every count), this
 *     thread on any CPU, nothing excluded.  With kernel.perf_event_paranoid
 *     at 2 or more this needs CAP_PERFMON (or root): counting context
 *     switches and migrations happens in the kernel, and excluding the
 *     kernel would count none.
 *  3. getrusage(RUSAGE_THREAD): context switches (ru_nvcsw + ru_nivcsw)
 *     and page faults (ru_minflt + ru_majflt, or either alone).  CPU
 *     migrations have no such fallback: the measuring loop still compares
 *     sched_getcpu() before and after each sample.
 * A counter none of these gives is reported missing with the reason, once,
 * in sb_meta.counters; it is never an error.  A name that is no counter
 * at all (sb__counters_check_names, run by sb_plan_check) is.
 *
 * The counters run for the whole invocation; a sample's count is the
 * difference of two reads, one just before the timer starts and one just
 * after it stops.
 *
 * This file asks for the counters, opens each from the first source that
 * works, reads them and stands getrusage in; PAPI's start is in
 * counters_papi.c, the software events and perf_event_open in
 * counters_perf.c (counters_internal.h), both below this file.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef SB_HAVE_PAPI
#include <papi.h>
#endif

#include "counters.h"
#include "counters_internal.h"
#include "text.h"

/* The default hardware counters (PAPI presets). */
static const char *const default_hw[] = {
    "PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L2_DCM",
    "PAPI_TLB_DM",
};
#define NDEFAULT_HW (sizeof default_hw / sizeof default_hw[0])

enum src { SRC_NONE = 0, SRC_PAPI, SRC_PERF, SRC_RUSAGE };

static const char *const src_name[] = {"", "PAPI", "perf_event_open",
                                       "getrusage"};

/* One counter asked for (by default or by name), read or missing. */
struct entry {
    char name[64];
    int sw;       /* software event index, or -1 */
    int src;      /* enum src; SRC_NONE: missing */
    size_t at;    /* index in the PAPI values or the perf group */
    char why[96]; /* why it is missing */
};

struct sb__counters {
    size_t nentries;
    struct entry e[SB_MAX_COUNTERS];
    size_t nused;               /* counters read, in entry order */
    size_t used[SB_MAX_COUNTERS]; /* their entries */
    int special[3];             /* read index of SW_CTXSW, SW_MIGR,
                                   SW_FAULTS, or -1 */
#ifdef SB_HAVE_PAPI
    int es;                     /* PAPI event set, or PAPI_NULL */
    int papi_running;
    size_t npapi;
#endif
    int perf_fd[SB_MAX_COUNTERS];
    size_t nperf;
};

/* ---- Parsing -------------------------------------------------------- */

int sb__counters_parse(const char *list, char (*names)[64], size_t max,
                       size_t *n, sb_error *err)
{
    const char *p = list;
    size_t count = 0, nsw = 0;
    int have_sw[SW_N] = {0};

    *n = 0;
    if (!list)
        return SB_OK;
    for (size_t pos = 1;; pos++) {
        const char *end = strchr(p, ',');
        const char *a = p, *b = end ? end : p + strlen(p);
        size_t len;
        int sw;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        len = (size_t)(b - a);
        if (len == 0)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": name %zu is empty", list, pos);
        if (len >= 64)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": name %zu is longer than 63 "
                             "characters", list, pos);
        for (const char *c = a; c < b; c++)
            if (*c == ' ' || *c == '\t' || (unsigned char)*c < 0x20)
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": name %zu has a blank "
                                 "inside", list, pos);
        if (count >= max)
            return sb__error(err, SB_EINVAL,
                             "counters \"%s\": more than %zu names", list,
                             max);
        memcpy(names[count], a, len);
        names[count][len] = '\0';
        for (size_t i = 0; i < count; i++)
            if (!strcasecmp(names[i], names[count]))
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": %s is listed twice", list,
                                 names[count]);
        sw = sb__sw_index(names[count]);
        if (sw >= 0) {
            if (have_sw[sw])
                return sb__error(err, SB_EINVAL,
                                 "counters \"%s\": %s is listed twice (as "
                                 "%s)", list, sb__sw_events[sw].name,
                                 names[count]);
            have_sw[sw] = 1;
        }
        count++;
        if (!end)
            break;
        p = end + 1;
    }
    /* The three software events are always read, so they take room. */
    for (int i = SW_CTXSW; i <= SW_FAULTS; i++)
        nsw += !have_sw[i];
    if (count + nsw > SB_MAX_COUNTERS)
        return sb__error(err, SB_EINVAL,
                         "counters \"%s\": %zu names, with the %zu software "
                         "events always read more than the %d allowed",
                         list, count, nsw, SB_MAX_COUNTERS);
    *n = count;
    return SB_OK;
}

int sb__counters_check_names(const char (*names)[64], size_t n,
                             sb_error *err)
{
#ifdef SB_HAVE_PAPI
    char line[160];
    for (size_t i = 0; i < n; i++) {
        int code = 0;
        if (sb__sw_index(names[i]) >= 0)
            continue;
        /* Without PAPI running (too few descriptors, a failed start)
         * nothing can be told: the run reports the name missing. */
        if (!sb__papi_init(line, sizeof line))
            return SB_OK;
        if (PAPI_event_name_to_code(names[i], &code) != PAPI_OK)
            return sb__error(err, SB_EINVAL,
                             "counters: no counter named '%.63s' (not a "
                             "perf software event, and unknown to %.120s)",
                             names[i], line);
    }
#else
    (void)names;
    (void)n;
    (void)err;
#endif
    return SB_OK;
}

void sb__counters_describe(char *buf, size_t len)
{
#ifdef SB_HAVE_PAPI
    sb__papi_init(buf, len);
#else
    snprintf(buf, len, "counters off (built --without-papi)");
#endif
}

/* ---- Opening and reading ---------------------------------------------- */

static void add_entry(struct sb__counters *c, const char *name)
{
    struct entry *e = &c->e[c->nentries++];
    snprintf(e->name, sizeof e->name, "%.63s", name);
    e->sw = sb__sw_index(name);
    e->src = SRC_NONE;
}

/* Try the sources of entry e in order; leave e->why when none works. */
static void open_entry(struct sb__counters *c, struct entry *e, int try_papi)
{
    char why[96] = "";
#ifdef SB_HAVE_PAPI
    if (!try_papi) {
        snprintf(why, sizeof why, "%.95s", e->why);
    } else if (sb__papi_init(why, sizeof why)) {
        int rc = PAPI_OK;
        if (c->es == PAPI_NULL)
            rc = PAPI_create_eventset(&c->es);
        if (rc == PAPI_OK)
            rc = PAPI_add_named_event(c->es, e->name);
        if (rc == PAPI_OK) {
            e->src = SRC_PAPI;
            e->at = c->npapi++;
            return;
        }
        sb__papi_why(e->name, rc, why, sizeof why);
    }
#else
    (void)try_papi;
    snprintf(why, sizeof why, "counters off (built --without-papi)");
#endif
    if (e->sw < 0) {
        snprintf(e->why, sizeof e->why, "%s", why);
        return;
    }
#ifdef HAVE_PERF_EVENT
    {
        int at =
            sb__perf_open(c->perf_fd, &c->nperf, e->sw, why, sizeof why);
        if (at >= 0) {
            e->src = SRC_PERF;
            e->at = (size_t)at;
            return;
        }
    }
#else
    snprintf(why, sizeof why, "no perf_event_open on this system");
#endif
    if (sb__sw_events[e->sw].rusage) {
        e->src = SRC_RUSAGE;
        e->at = (size_t)e->sw;
        /* Say why getrusage stands in. */
        snprintf(e->why, sizeof e->why, "%s", why);
        return;
    }
    snprintf(e->why, sizeof e->why, "%s", why);
}

void sb__counters_close(sb__counters *c)
{
    if (!c)
        return;
#ifdef SB_HAVE_PAPI
    if (c->es != PAPI_NULL) {
        long long v[SB_MAX_COUNTERS];
        if (c->papi_running)
            PAPI_stop(c->es, v);
        PAPI_cleanup_eventset(c->es);
        PAPI_destroy_eventset(&c->es);
    }
#endif
    for (size_t i = 0; i < c->nperf; i++)
        close(c->perf_fd[i]);
    free(c);
}

/* Append "names (what)" groups to buf: entries with the same source (in
 * use) or the same reason (missing) share one group. */
static void describe(const struct sb__counters *c, char *buf, size_t len)
{
    size_t used = strlen(buf);
    int done[SB_MAX_COUNTERS] = {0};

#define PUT(...)                                                          \
    do {                                                                  \
        if (used < len) {                                                 \
            int w_ = snprintf(buf + used, len - used, __VA_ARGS__);       \
            if (w_ > 0)                                                   \
                used += (size_t)w_;                                       \
        }                                                                 \
    } while (0)

    for (int pass = 0; pass < 2; pass++) {
        int first_group = 1;
        for (size_t i = 0; i < c->nentries; i++) {
            const struct entry *e = &c->e[i];
            int in_use = e->src != SRC_NONE;
            if (done[i] || in_use != (pass == 0))
                continue;
            PUT("%s%s", used ? "; " : "",
                first_group ? (pass == 0 ? "in use: " : "missing: ") : "");
            first_group = 0;
            for (size_t j = i, n = 0; j < c->nentries; j++) {
                const struct entry *f = &c->e[j];
                if (done[j] || (f->src != SRC_NONE) != in_use ||
                    (in_use ? f->src != e->src : strcmp(f->why, e->why)))
                    continue;
                done[j] = 1;
                PUT("%s%s", n++ ? ", " : "", f->name);
            }
            if (in_use && e->src == SRC_RUSAGE)
                PUT(" (getrusage, since %s)", e->why);
            else
                PUT(" (%s)", in_use ? src_name[e->src] : e->why);
        }
    }
#undef PUT
    if (used >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
}

int sb__counters_open(const char *list, sb__counters **out, sb_meta *meta,
                      sb_error *err)
{
    char names[SB_MAX_COUNTERS][64];
    size_t n = 0;
    struct sb__counters *c;
    int have[3] = {0, 0, 0};
    int rc;

    *out = NULL;
    if (list) {
        rc = sb__counters_parse(list, names, SB_MAX_COUNTERS, &n, err);
        if (rc != SB_OK)
            return rc;
    } else {
        for (n = 0; n < NDEFAULT_HW; n++)
            snprintf(names[n], sizeof names[n], "%s", default_hw[n]);
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return sb__error(err, SB_ENOMEM, "out of memory");
#ifdef SB_HAVE_PAPI
    c->es = PAPI_NULL;
#endif
    for (size_t i = 0; i < n; i++) {
        add_entry(c, names[i]);
        if (c->e[i].sw >= SW_CTXSW && c->e[i].sw <= SW_FAULTS)
            have[c->e[i].sw] = 1;
    }
    for (int s = SW_CTXSW; s <= SW_FAULTS; s++)
        if (!have[s])
            add_entry(c, sb__sw_events[s].name);
    /* The software events never go through PAPI: its perf_event
     * component counts user space only (PAPI_DOM_USER), and context
     * switches and migrations happen in the kernel, so PAPI would count
     * none of them.  perf_event_open (kernel included) or getrusage. */
    for (size_t i = 0; i < c->nentries; i++)
        open_entry(c, &c->e[i], c->e[i].sw < 0);
#ifdef SB_HAVE_PAPI
    if (c->npapi) {
        int r = PAPI_start(c->es);
        if (r != PAPI_OK) {
            /* The set cannot run as a whole: software events try the
             * other sources, the rest are missing. */
            c->npapi = 0;
            PAPI_cleanup_eventset(c->es);
            PAPI_destroy_eventset(&c->es);
            for (size_t i = 0; i < c->nentries; i++)
                if (c->e[i].src == SRC_PAPI) {
                    c->e[i].src = SRC_NONE;
                    snprintf(c->e[i].why, sizeof c->e[i].why,
                             "PAPI_start: %s", PAPI_strerror(r));
                    open_entry(c, &c->e[i], 0);
                }
        } else {
            c->papi_running = 1;
        }
    }
#endif
    c->special[0] = c->special[1] = c->special[2] = -1;
    for (size_t i = 0; i < c->nentries; i++) {
        const struct entry *e = &c->e[i];
        if (e->src == SRC_NONE)
            continue;
        if (e->sw >= SW_CTXSW && e->sw <= SW_FAULTS)
            c->special[e->sw] = (int)c->nused;
        c->used[c->nused++] = i;
    }
    if (meta) {
        meta->ncounters = c->nused;
        for (size_t i = 0; i < c->nused; i++)
            snprintf(meta->counter_names[i], sizeof meta->counter_names[i],
                     "%s", c->e[c->used[i]].name);
        /* The backend first, when there is one to speak of. */
        meta->counters[0] = '\0';
#ifdef SB_HAVE_PAPI
        sb__counters_describe(meta->counters, sizeof meta->counters);
#endif
        describe(c, meta->counters, sizeof meta->counters);
    }
    *out = c;
    return SB_OK;
}

size_t sb__counters_count(const sb__counters *c)
{
    return c ? c->nused : 0;
}

int sb__counters_special(const sb__counters *c, int which)
{
    return c && which >= 0 && which < 3 ? c->special[which] : -1;
}

int sb__counters_read(sb__counters *c, uint64_t *v)
{
    int ok = 0;
#ifdef SB_HAVE_PAPI
    long long pv[SB_MAX_COUNTERS];
    if (c->npapi && PAPI_read(c->es, pv) != PAPI_OK)
        ok = -1;
#endif
#ifdef HAVE_PERF_EVENT
    uint64_t g[SB_MAX_COUNTERS + 1];
    if (c->nperf) {
        ssize_t want = (ssize_t)((c->nperf + 1) * sizeof g[0]);
        if (read(c->perf_fd[0], g, (size_t)want) != want ||
            g[0] != c->nperf)
            ok = -1;
    }
#endif
    for (size_t i = 0; i < c->nused && ok == 0; i++) {
        const struct entry *e = &c->e[c->used[i]];
#ifdef SB_HAVE_PAPI
        if (e->src == SRC_PAPI)
            v[i] = (uint64_t)pv[e->at];
#endif
#ifdef HAVE_PERF_EVENT
        if (e->src == SRC_PERF)
            v[i] = g[1 + e->at];
#endif
        (void)e;
    }
    return ok;
}

void sb__counters_rusage(const sb__counters *c, const struct rusage *ru,
                         uint64_t *v)
{
    for (size_t i = 0; i < c->nused; i++) {
        const struct entry *e = &c->e[c->used[i]];
        if (e->src != SRC_RUSAGE)
            continue;
        if (e->sw == SW_CTXSW)
            v[i] = (uint64_t)(ru->ru_nvcsw + ru->ru_nivcsw);
        else if (e->sw == SW_MINFLT)
            v[i] = (uint64_t)ru->ru_minflt;
        else if (e->sw == SW_MAJFLT)
            v[i] = (uint64_t)ru->ru_majflt;
        else
            v[i] = (uint64_t)(ru->ru_minflt + ru->ru_majflt);
    }
}

int sb__counters_from_rusage(const sb__counters *c, int which)
{
    int i = sb__counters_special(c, which);
    return i >= 0 && c->e[c->used[i]].src == SRC_RUSAGE;
}

size_t sb_counters_available(char names[][64], char why[][96], size_t max)
{
    sb__counters *c = NULL;
    size_t n;

    sb_init();
    if (sb__counters_open(NULL, &c, NULL, NULL) != SB_OK)
        return 0;
    n = c->nentries;
    for (size_t i = 0; i < n && i < max; i++) {
        const struct entry *e = &c->e[i];
        if (names)
            snprintf(names[i], 64, "%s", e->name);
        if (why) {
            if (e->src == SRC_NONE)
                snprintf(why[i], 96, "%s", e->why);
            else
                why[i][0] = '\0';
        }
    }
    sb__counters_close(c);
    return n;
}
