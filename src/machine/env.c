/*
 * env.c: the environment audit.
 *
 * Every run records the state of the machine that can disturb or bias a
 * measurement: the frequency governor and driver, turbo, a busy SMT
 * sibling, a hypervisor, CPU isolation, the load, transparent huge pages,
 * ASLR, the kernel's clocksource and perf's paranoia.  Each finding is an
 * item with a warning flag and, when something is wrong, the command that
 * fixes it.
 *
 * Every file is read below a root ("" for the real system) so that the
 * tests can run the audit against fake /sys and /proc trees.  Files are
 * read into fixed buffers and every string is truncated safely; nothing
 * is allocated, printed or kept between calls, so the audit is
 * thread-safe.  What cannot be read is "unknown" and never a warning.
 * Numbers are parsed and printed without the C library's locale-dependent
 * floating-point conversions, so a caller's LC_NUMERIC cannot change the
 * text.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/personality.h>
#endif
#include "env_internal.h"
#include "arch/arch.h"
#include "sysinfo.h"

/* A sibling busier than this share of the sampling window warns.  With
 * USER_HZ 100 a 100 ms window holds about 10 ticks per CPU, so one busy
 * tick (10%) does not warn and two do. */
#define BUSY_WARN 0.10

/* Siblings sampled at most (SMT-8 on POWER has 7). */
#define MAX_SIBLINGS 8

/* What every check sees.  cpuinfo is read once, by the driver. */
struct ctx {
    const char *root;
    int cpu;               /* the CPU audited: the pinned one, or 0 */
    int pinned;            /* 0: cpu < 0 was asked for */
    int real;              /* root is "": CPUID and personality apply */
    double sample_seconds;
    sb__cpuinfo ci;        /* /proc/cpuinfo: model and hypervisor flag */
};

/* ---- Small string helpers ---------------------------------------------- */

/* printf into buf, truncating. */
static void setf(char *buf, size_t len, const char *fmt, ...)
    SB__PRINTF(3, 4);
static void setf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(buf, len, fmt, ap) < 0)
        buf[0] = '\0';
    va_end(ap);
}

/* printf at the end of buf, truncating. */
static void appendf(char *buf, size_t len, const char *fmt, ...)
    SB__PRINTF(3, 4);
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t at = strnlen(buf, len);
    va_list ap;
    if (at + 1 >= len)
        return;
    va_start(ap, fmt);
    if (vsnprintf(buf + at, len - at, fmt, ap) < 0)
        buf[at] = '\0';
    va_end(ap);
}

#define VALUE(it, ...) setf((it)->value, sizeof (it)->value, __VA_ARGS__)
#define ADVICE(it, ...) setf((it)->advice, sizeof (it)->advice, __VA_ARGS__)

/* A non-negative decimal such as "1.34" (the format of /proc/loadavg),
 * parsed without strtod, whose decimal point follows the locale.
 * Returns 0, or -1 when s does not start with a digit. */
static int parse_decimal(const char *s, double *out)
{
    double v = 0, scale = 1;
    if (!isdigit((unsigned char)*s))
        return -1;
    while (isdigit((unsigned char)*s))
        v = 10 * v + (*s++ - '0');
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++)
            v += (*s - '0') * (scale /= 10);
    *out = v;
    return 0;
}

/* ---- Files below the root ----------------------------------------------- */

static FILE *open_at(const struct ctx *c, const char *fmt, ...)
    SB__PRINTF(2, 3);
static FILE *open_at(const struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    FILE *f;
    va_start(ap, fmt);
    f = sb__sys_vopen(c->root, fmt, ap);
    va_end(ap);
    return f;
}

/* The first line of a file, without trailing white space, truncated to
 * len - 1 bytes.  An empty file gives "".  Returns 0, or -1 when the file
 * cannot be opened or read (a directory, say). */
static int read_line(const struct ctx *c, char *buf, size_t len,
                     const char *fmt, ...) SB__PRINTF(4, 5);
static int read_line(const struct ctx *c, char *buf, size_t len,
                     const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = sb__sys_vline(c->root, buf, len, fmt, ap);
    va_end(ap);
    return r;
}

/* Whether a path below the root exists. */
static int exists_at(const struct ctx *c, const char *fmt, ...)
    SB__PRINTF(2, 3);
static int exists_at(const struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = sb__sys_vexists(c->root, fmt, ap);
    va_end(ap);
    return r;
}

/* ---- /proc/stat --------------------------------------------------------- */

/* The "cpuN" lines of /proc/stat for the CPUs in want[0..n-1], appended
 * to buf (truncated lines are dropped whole).  Reading stops at the first
 * line that is not a cpu line, before the long "intr" line.  Returns 0,
 * or -1 when the file cannot be opened. */
static int stat_snapshot(const struct ctx *c, const int *want, size_t n,
                         char *buf, size_t len)
{
    FILE *f = open_at(c, "/proc/stat");
    int ch;

    buf[0] = '\0';
    if (!f)
        return -1;
    for (;;) {
        char tok[24], rest[256], *end;
        size_t tn = 0, rn = 0;
        int keep = 0, over = 0;
        long id;

        while ((ch = getc(f)) != EOF && ch != ' ' && ch != '\n')
            if (tn + 1 < sizeof tok)
                tok[tn++] = (char)ch;
        tok[tn] = '\0';
        if (ch == EOF || strncmp(tok, "cpu", 3))
            break;
        if (isdigit((unsigned char)tok[3])) {
            errno = 0;
            id = strtol(tok + 3, &end, 10);
            for (size_t i = 0; !errno && !*end && i < n; i++)
                keep |= want[i] == id;
        }
        for (; ch != '\n' && ch != EOF; ch = getc(f)) {
            if (rn + 1 < sizeof rest)
                rest[rn++] = (char)ch;
            else
                over = 1;
        }
        rest[rn] = '\0';
        if (keep && !over) {
            size_t at = strlen(buf);
            int w = snprintf(buf + at, len - at, "%s%s\n", tok, rest);
            if (w < 0 || (size_t)w >= len - at)
                buf[at] = '\0';
        }
        if (ch == EOF)
            break;
    }
    fclose(f);
    return 0;
}

int sb__env_stat_snapshot(const char *root, const int *want, size_t n,
                          char *buf, size_t len)
{
    struct ctx c;
    if (!buf || len == 0)
        return -1;
    buf[0] = '\0';
    if (!root || (n && !want))
        return -1;
    memset(&c, 0, sizeof c);
    c.root = root;
    return stat_snapshot(&c, want, n, buf, len);
}

/* The counters of cpu's line in a snapshot: v[0..7] user, nice, system,
 * idle, iowait, irq, softirq, steal (missing ones 0).  Returns how many
 * were present, or -1 when there is no such line. */
static int stat_line(const char *s, int cpu, unsigned long long v[8])
{
    char name[24];
    size_t nl;

    snprintf(name, sizeof name, "cpu%d", cpu);
    nl = strlen(name);
    for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        const char *q;
        int k = 0;
        if (strncmp(p, name, nl) || (p[nl] != ' ' && p[nl] != '\t'))
            continue;
        for (q = p + nl; k < 8; k++) {
            char *end;
            while (*q == ' ' || *q == '\t')
                q++;
            if (!isdigit((unsigned char)*q))
                break;
            errno = 0;
            v[k] = strtoull(q, &end, 10);
            if (errno)
                return -1;
            q = end;
        }
        for (int i = k; i < 8; i++)
            v[i] = 0;
        return k;
    }
    return -1;
}

int sb__env_sibling_busy(const char *stat_before, const char *stat_after,
                         int cpu, double *busy)
{
    unsigned long long a[8], b[8], d[8], total = 0, work;
    int na, nb;

    if (!stat_before || !stat_after || !busy || cpu < 0)
        return -1;
    na = stat_line(stat_before, cpu, a);
    nb = stat_line(stat_after, cpu, b);
    if (na < 4 || nb != na)
        return -1;
    for (int i = 0; i < 8; i++) {
        d[i] = b[i] > a[i] ? b[i] - a[i] : 0;
        total += d[i];
    }
    /* Steal is time the host gave to someone else: not the sibling's
     * work, so it counts with idle. */
    work = d[0] + d[1] + d[2] + d[5] + d[6];
    if (total == 0)
        return -1;
    *busy = (double)work / (double)total;
    return 0;
}

void sb__env_smt_judge(sb_env_item *it, const int *sib, size_t n,
                       const char *stat_before, const char *stat_after)
{
    int busiest = -1;
    double worst = 0;

    it->value[0] = '\0';
    it->advice[0] = '\0';
    it->warn = 0;
    if (n == 0) {
        VALUE(it, "none");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double busy;
        const char *sep = i ? ", " : "";
        if (sb__env_sibling_busy(stat_before, stat_after, sib[i], &busy) ==
            0) {
            /* Whole percent, rounded, without locale-dependent %f. */
            appendf(it->value, sizeof it->value, "%scpu %d busy %d%%", sep,
                    sib[i], (int)(busy * 100 + 0.5));
            if (busy > BUSY_WARN && busy > worst) {
                worst = busy;
                busiest = sib[i];
            }
        } else {
            appendf(it->value, sizeof it->value, "%scpu %d busy unknown",
                    sep, sib[i]);
        }
    }
    if (busiest >= 0) {
        it->warn = 1;
        ADVICE(it,
               "stop what runs on cpu %d, pin to a CPU whose sibling is "
               "idle, or turn SMT off: echo off | sudo tee "
               "/sys/devices/system/cpu/smt/control",
               busiest);
    }
}

/* ---- The checks, in the order of the report ------------------------------ */

static void check_cpu(const struct ctx *c, sb_env_item *it)
{
    char model[128], list[256];
    const char *kind = "";

    sb__cpuinfo_model(c->root, &c->ci, model, sizeof model);
    /* Hybrid parts (Alder Lake and later) list their core types: a P-core
     * and an E-core give different figures for the same kernel. */
    if (read_line(c, list, sizeof list, "/sys/devices/cpu_core/cpus") == 0 &&
        sb__cpulist_has(list, c->cpu) == 1)
        kind = " (P-core)";
    else if (read_line(c, list, sizeof list, "/sys/devices/cpu_atom/cpus") ==
                 0 &&
             sb__cpulist_has(list, c->cpu) == 1)
        kind = " (E-core)";
    if (c->pinned)
        VALUE(it, "cpu %d%s: %s", c->cpu, kind, model);
    else
        VALUE(it, "not pinned (per-CPU items: cpu 0%s): %s", kind, model);
}

static void check_governor(const struct ctx *c, sb_env_item *it)
{
    char g[64];

    if (read_line(c, g, sizeof g,
                  "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                  c->cpu) == 0 &&
        g[0]) {
        VALUE(it, "%s", g);
        /* userspace holds the frequency the user set: steady. */
        if (strcmp(g, "performance") && strcmp(g, "userspace")) {
            it->warn = 1;
            ADVICE(it, "set the performance governor: cpupower "
                       "frequency-set -g performance");
        }
    } else if (exists_at(c, "/sys/devices/system/cpu/cpu%d", c->cpu) &&
               !exists_at(c, "/sys/devices/system/cpu/cpu%d/cpufreq",
                          c->cpu)) {
        VALUE(it, "none (no cpufreq: a VM or a fixed clock)");
    }
}

static void check_driver(const struct ctx *c, sb_env_item *it)
{
    char d[64], status[32];

    if (read_line(c, d, sizeof d,
                  "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver",
                  c->cpu) == 0 &&
        d[0]) {
        if (!strncmp(d, "intel_", 6) &&
            read_line(c, status, sizeof status,
                      "/sys/devices/system/cpu/intel_pstate/status") == 0 &&
            status[0])
            VALUE(it, "%s (mode %s)", d, status);
        else
            VALUE(it, "%s", d);
    } else if (exists_at(c, "/sys/devices/system/cpu/cpu%d", c->cpu) &&
               !exists_at(c, "/sys/devices/system/cpu/cpu%d/cpufreq",
                          c->cpu)) {
        VALUE(it, "none");
    }
}

/* The first of the knobs below that reads 0 or 1 says whether the clock
 * may rise above its base: intel_pstate's no_turbo (on at 0), cpufreq's
 * global boost, then (amd-pstate and others) the boost of the pinned CPU's
 * policy (on at 1). */
static void check_turbo(const struct ctx *c, sb_env_item *it)
{
    static const char why[] = "the clock follows temperature and the "
                              "other cores' load";
    static const struct {
        const char *file; /* below /sys/devices/system/cpu/ */
        int per_cpu;      /* below cpuN/ of the pinned CPU */
        const char *what; /* the advice's name of the feature */
        char on;          /* the value that means on */
    } knobs[] = {
        {"intel_pstate/no_turbo", 0, "turbo", '0'},
        {"cpufreq/boost", 0, "boost", '1'},
        {"cpufreq/boost", 1, "boost", '1'},
    };
    char v[16], name[64];

    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
        if (knobs[i].per_cpu)
            snprintf(name, sizeof name, "cpu%d/%s", c->cpu, knobs[i].file);
        else
            snprintf(name, sizeof name, "%s", knobs[i].file);
        if (read_line(c, v, sizeof v, "/sys/devices/system/cpu/%s",
                      name) != 0 ||
            (strcmp(v, "0") && strcmp(v, "1")))
            continue;
        if (v[0] == knobs[i].on) {
            VALUE(it, "on (%s %s): %s", name, v, why);
            it->warn = 1;
            ADVICE(it, "turn %s off: echo %c | sudo tee "
                       "/sys/devices/system/cpu/%s%s",
                   knobs[i].what, knobs[i].on == '0' ? '1' : '0',
                   knobs[i].per_cpu ? "cpu*/" : "", knobs[i].file);
        } else {
            VALUE(it, "off (%s %s)", name, v);
        }
        return;
    }
}

/* Sleep for s seconds (at most 10), resuming after signals. */
static void pause_for(double s)
{
    struct timespec t, rem;
    if (!(s > 0))
        return;
    if (s > 10)
        s = 10;
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    while (nanosleep(&t, &rem) != 0 && errno == EINTR)
        t = rem;
}

static void check_smt(const struct ctx *c, sb_env_item *it)
{
    char list[256], before[2048], after[2048];
    const char *p = list;
    int sib[MAX_SIBLINGS], r, rb, ra;
    size_t n = 0;
    long lo, hi;

    if (!c->pinned) {
        VALUE(it, "not pinned: no sibling to check");
        return;
    }
    if (read_line(c, list, sizeof list,
                  "/sys/devices/system/cpu/cpu%d/topology/"
                  "thread_siblings_list",
                  c->cpu) != 0 ||
        !list[0])
        return;
    while ((r = sb__cpulist_next(&p, &lo, &hi)) == 1)
        for (long id = lo; id <= hi && n < MAX_SIBLINGS; id++)
            if (id != c->cpu)
                sib[n++] = (int)id;
    if (r < 0)
        return;
    if (n == 0) {
        sb__env_smt_judge(it, sib, 0, NULL, NULL);
        return;
    }
    rb = stat_snapshot(c, sib, n, before, sizeof before);
    if (rb == 0)
        pause_for(c->sample_seconds);
    ra = rb == 0 ? stat_snapshot(c, sib, n, after, sizeof after) : -1;
    sb__env_smt_judge(it, sib, n, rb == 0 ? before : NULL,
                      ra == 0 ? after : NULL);
}

static void check_vm(const struct ctx *c, sb_env_item *it)
{
    char type[32], name[40];
    int cpuid_hv = -1;

    /* An emulator's CPU is no CPU to time: the host's /proc/cpuinfo
     * (qemu-user passes it through) names another architecture's.  Only
     * of this machine: a fake root's file is of whatever CPU the test
     * chose. */
    if (c->real && c->ci.native == 0) {
        VALUE(it, "emulated: /proc/cpuinfo has no \"%s\" line, so it "
                  "describes another architecture's CPU (qemu-user)",
              sb__arch_cpuinfo_key());
        it->warn = 1;
        ADVICE(it, "timing figures under emulation say nothing of the "
                   "emulated CPU: measure on the real one");
        return;
    }
    /* CPUID describes this machine only, never a fake root. */
    if (c->real)
        cpuid_hv = sb__arch_hypervisor(name, sizeof name);
    if (cpuid_hv == 1)
        VALUE(it, "yes: %s (CPUID hypervisor bit)", name);
    else if (read_line(c, type, sizeof type, "/sys/hypervisor/type") == 0 &&
             type[0])
        VALUE(it, "yes: %s (/sys/hypervisor/type)", type);
    else if (c->ci.hypervisor == 1)
        VALUE(it, "yes (hypervisor flag in /proc/cpuinfo)");
    else {
        if (cpuid_hv == 0 || c->ci.hypervisor == 0)
            VALUE(it, "no");
        return;
    }
    it->warn = 1;
    ADVICE(it, "compare only runs from the same VM: steal time and a "
               "shared host add noise; use bare metal for absolute figures");
}

static void check_isolation(const struct ctx *c, sb_env_item *it)
{
    char iso[96], nohz[96];
    const char *iso_txt, *nohz_txt;
    long niso, nnohz, first;

    if (read_line(c, iso, sizeof iso,
                  "/sys/devices/system/cpu/isolated") != 0)
        return;
    /* nohz_full exists only in kernels built with NO_HZ_FULL. */
    if (read_line(c, nohz, sizeof nohz,
                  "/sys/devices/system/cpu/nohz_full") != 0)
        nohz[0] = '\0';
    niso = sb__cpulist_count(iso);
    nnohz = sb__cpulist_count(nohz);
    if (niso < 0 || nnohz < 0)
        return;
    iso_txt = niso ? iso : "none";
    nohz_txt = nnohz ? nohz : "none";
    if (niso == 0 && nnohz == 0) {
        VALUE(it, "no CPU isolated (isolcpus none, nohz_full none)");
        it->warn = 1;
        /* cpu 0 keeps housekeeping work and cannot be nohz_full. */
        if (c->pinned && c->cpu > 0)
            ADVICE(it,
                   "isolate cpu %d on the kernel command line "
                   "(isolcpus=%d nohz_full=%d rcu_nocbs=%d), then reboot",
                   c->cpu, c->cpu, c->cpu, c->cpu);
        else
            ADVICE(it, "isolate a CPU other than 0 on the kernel command "
                       "line (isolcpus=N nohz_full=N rcu_nocbs=N), reboot "
                       "and pin to it with --cpu N");
        return;
    }
    if (c->pinned &&
        (sb__cpulist_has(iso, c->cpu) == 1 ||
         sb__cpulist_has(nohz, c->cpu) == 1)) {
        VALUE(it, "cpu %d isolated (isolcpus %s, nohz_full %s)", c->cpu,
              iso_txt, nohz_txt);
        return;
    }
    if (c->pinned)
        VALUE(it, "cpu %d not isolated (isolcpus %s, nohz_full %s)", c->cpu,
              iso_txt, nohz_txt);
    else
        VALUE(it, "not pinned (isolcpus %s, nohz_full %s)", iso_txt,
              nohz_txt);
    first = niso ? sb__cpulist_first(iso) : sb__cpulist_first(nohz);
    it->warn = 1;
    ADVICE(it, "pin to an isolated CPU: --cpu %ld", first);
}

/* Online CPUs, from sysfs (or, on the real system, sysconf); -1. */
static long online_cpus(const struct ctx *c)
{
    char list[256];
    long n = -1;
    if (read_line(c, list, sizeof list, "/sys/devices/system/cpu/online") ==
        0)
        n = sb__cpulist_count(list);
    if (n <= 0 && c->real)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : -1;
}

static void check_load(const struct ctx *c, sb_env_item *it)
{
    char la[128], three[64];
    size_t n = 0;
    int fields = 0;
    double l1;
    long ncpu;

    if (read_line(c, la, sizeof la, "/proc/loadavg") != 0 ||
        parse_decimal(la, &l1) != 0)
        return;
    /* The 1-, 5- and 15-minute averages as the kernel wrote them. */
    for (const char *p = la; *p && n + 1 < sizeof three; p++) {
        if (*p == ' ' && ++fields == 3)
            break;
        three[n++] = *p;
    }
    three[n] = '\0';
    ncpu = online_cpus(c);
    if (ncpu < 0) {
        VALUE(it, "%s (CPUs unknown)", three);
        return;
    }
    VALUE(it, "%s on %ld CPU%s", three, ncpu, ncpu == 1 ? "" : "s");
    if (l1 > (double)(ncpu - 1)) {
        it->warn = 1;
        ADVICE(it,
               "stop other work, or wait for the 1-minute load to fall to "
               "%ld or less (top shows what runs)",
               ncpu - 1);
    }
}

/* The bracketed choice of a sysfs selector, "always [madvise] never". */
static int selected(const char *s, char *out, size_t len)
{
    const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
    if (!b)
        return -1;
    setf(out, len, "%.*s", (int)(b - a - 1), a + 1);
    return 0;
}

static void check_thp(const struct ctx *c, sb_env_item *it)
{
    static const char dir[] = "/sys/kernel/mm/transparent_hugepage";
    char line[128], en[24], df[24];
    int ge, gd, wa, wd;

    ge = read_line(c, line, sizeof line, "%s/enabled", dir) == 0 &&
         selected(line, en, sizeof en) == 0;
    gd = read_line(c, line, sizeof line, "%s/defrag", dir) == 0 &&
         selected(line, df, sizeof df) == 0;
    if (!ge && !gd)
        return;
    wa = ge && !strcmp(en, "always");
    wd = gd && !strcmp(df, "always");
    VALUE(it, "enabled %s, defrag %s%s", ge ? en : "unknown",
          gd ? df : "unknown",
          wa || wd ? ": khugepaged and compaction can disturb" : "");
    if (wa || wd) {
        it->warn = 1;
        ADVICE(it, "set THP to madvise: echo madvise | sudo tee%s%s%s%s%s%s",
               wa ? " " : "", wa ? dir : "", wa ? "/enabled" : "",
               wd ? " " : "", wd ? dir : "", wd ? "/defrag" : "");
    }
}

static void check_aslr(const struct ctx *c, sb_env_item *it)
{
    long x;
    int have = sb__sys_long(c->root, &x, "%s",
                            "/proc/sys/kernel/randomize_va_space") == 0;

#ifdef __linux__
    if (c->real) {
        int p = personality(0xffffffff);
        if (p != -1 && (p & ADDR_NO_RANDOMIZE)) {
            char sys[24] = "unknown";
            if (have)
                snprintf(sys, sizeof sys, "%ld", x);
            VALUE(it, "off for this process (setarch -R), system %s", sys);
            it->warn = 1;
            ADVICE(it, "run without setarch -R so that layouts differ "
                       "between runs");
            return;
        }
    }
#endif
    if (!have)
        return;
    /* Invocations are forked, not executed anew: each starts from its
     * parent's layout, so ASLR varies the layout between runs only. */
    switch (x) {
    case 0:
        VALUE(it, "off (0): every run gets the same layout, which can "
                  "bias all of them alike");
        it->warn = 1;
        ADVICE(it, "turn ASLR on: echo 2 | sudo tee "
                   "/proc/sys/kernel/randomize_va_space");
        break;
    case 1:
        VALUE(it, "partial (1): layout varies between runs (not the heap); "
                  "forked invocations shift their buffers by a seeded shim");
        break;
    case 2:
        VALUE(it, "on (2): layout varies between runs; forked invocations "
                  "shift their buffers by a seeded shim");
        break;
    default:
        VALUE(it, "%ld", x);
    }
}

static void check_clocksource(const struct ctx *c, sb_env_item *it)
{
    char cs[64];

    if (sb__clocksource(c->root, cs, sizeof cs) != 0)
        return;
    if (!strcmp(cs, "tsc")) {
        VALUE(it, "tsc");
        return;
    }
    VALUE(it, "%s: not tsc, so clock_gettime costs more and the TSC may be "
              "unstable", cs);
    it->warn = 1;
    ADVICE(it, "find why the kernel left the TSC: dmesg | grep -i -e tsc "
               "-e clocksource");
}

static void check_paranoid(const struct ctx *c, sb_env_item *it)
{
    long x;

    if (sb__perf_paranoid(c->root, &x) != 0)
        return;
    if (x < 0)
        VALUE(it, "%ld: no restrictions", x);
    else if (x == 0)
        VALUE(it, "0: users may count CPU-wide and kernel events");
    else if (x == 1)
        VALUE(it, "1: users may count kernel and user space of their "
                  "processes");
    else if (x == 2)
        VALUE(it, "2: users may count user space only");
    else {
        /* Not a disturbance, so no warning: counters are evidence. */
        VALUE(it, "%ld: users may not use perf events", x);
        ADVICE(it, "allow user-space counting: sudo sysctl "
                   "kernel.perf_event_paranoid=2");
    }
}

static const struct {
    const char *key;
    void (*fn)(const struct ctx *c, sb_env_item *it);
} checks[] = {
    {"cpu", check_cpu},
    {"governor", check_governor},
    {"scaling-driver", check_driver},
    {"turbo", check_turbo},
    {"smt-sibling", check_smt},
    {"virtual-machine", check_vm},
    {"isolation", check_isolation},
    {"load", check_load},
    {"thp", check_thp},
    {"aslr", check_aslr},
    {"clocksource", check_clocksource},
    {"perf-paranoid", check_paranoid},
};

_Static_assert(sizeof checks / sizeof checks[0] <= SB_ENV_MAX,
               "more checks than SB_ENV_MAX items");

void sb__env_audit_at(const char *root, int cpu, double sample_seconds,
                      sb_env *out)
{
    struct ctx c;
    int saved = errno;

    if (!root || !out)
        return;
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    c.root = root;
    c.pinned = cpu >= 0;
    c.cpu = cpu >= 0 ? cpu : 0;
    c.real = root[0] == '\0';
    c.sample_seconds = sample_seconds;
    sb__cpuinfo_read(root, &c.ci);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        sb_env_item *it = &out->items[out->n++];
        setf(it->key, sizeof it->key, "%s", checks[i].key);
        setf(it->value, sizeof it->value, "unknown");
        checks[i].fn(&c, it);
    }
    errno = saved; /* failed opens are findings, not the caller's errors */
}

/* The layouts of sb_env a caller may have, the current first. */
static const size_t env_sizes[] = {sizeof(sb_env)};

int sb_env_audit(int cpu, sb_env *out, sb_error *err)
{
    sb_env full;
    size_t size, fit;
    int rc;

    if (!out)
        return sb__error(err, SB_EINVAL, "sb_env_audit: out is NULL");
    size = sb__out_size_of(out);
    if ((rc = sb__out_size(size, env_sizes,
                           sizeof env_sizes / sizeof *env_sizes, "sb_env",
                           "sb_env_audit", err)) != SB_OK)
        return rc;
    sb__env_audit_at("", cpu, 0.1, &full);
    /* An older layout may hold fewer items (a smaller SB_ENV_MAX): n
     * counts only those written. */
    fit = (size - offsetof(sb_env, items)) / sizeof full.items[0];
    if (full.n > fit)
        full.n = fit;
    sb__out_put(out, size, &full);
    return SB_OK;
}
