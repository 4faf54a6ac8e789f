/*
 * test_env.c: the environment audit against fake /sys and /proc trees
 * (tests/fixtures/env/quiet, noisy and vm; see the README there), the
 * SMT sibling's load from two /proc/stat snapshots, "unknown" for an
 * empty root, and the real machine (whatever it reports, the items must
 * be well formed); and the system-information module the audit reads
 * through (sysinfo.c: cpuinfo, CPU lists, caches, the clocksource).
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env_internal.h"
#include "arch/arch.h"
#include "sysinfo.h"
#include "tap.h"

static const char *const keys[] = {
    "cpu",       "governor", "scaling-driver", "turbo",
    "smt-sibling", "virtual-machine", "isolation", "load",
    "thp",       "aslr",     "clocksource",    "perf-paranoid",
};
#define NKEYS (sizeof keys / sizeof keys[0])

struct want {
    const char *value;
    int warn;
    const char *advice;
};

static const char vm_advice[] =
    "compare only runs from the same VM: steal time and a shared host add "
    "noise; use bare metal for absolute figures";

static char fixtures[1024];

/* A file of a fake tree: text written to dir/rel, its folders made as
 * needed.  1 on success. */
static int put_file(const char *dir, const char *rel, const char *text)
{
    char path[1200];
    FILE *f;
    int ok;

    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *q = path + strlen(dir) + 1; (q = strchr(q, '/')); q++) {
        *q = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return 0;
        *q = '/';
    }
    ok = (f = fopen(path, "w")) != NULL && fputs(text, f) >= 0;
    return f && fclose(f) == 0 && ok;
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    if (remove(path) != 0)
        tap_diag("could not remove %s: %s", path, strerror(errno));
    return 0;
}

/* Remove a fake tree, the files first, without following a link. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Poison out, run the audit on a fixture tree and compare every item. */
static void check_tree(const char *tree, int cpu, const struct want *w)
{
    char root[1200];
    sb_env env = {.size = sizeof env};

    snprintf(root, sizeof root, "%s/%s", fixtures, tree);
    memset(&env, 0x5a, sizeof env);
    sb__env_audit_at(root, cpu, 0, &env);
    TAP_IS_INT(env.n, NKEYS, "%s, cpu %d: %zu items", tree, cpu, NKEYS);
    for (size_t i = 0; i < NKEYS; i++) {
        const sb_env_item *it = &env.items[i];
        const char *key = keys[i];
        TAP_IS_STR(it->key, key, "%s, cpu %d: key of item %zu", tree, cpu,
                   i);
        TAP_IS_STR(it->value, w[i].value, "%s, cpu %d: %s value", tree, cpu,
                   key);
        TAP_IS_INT(it->warn, w[i].warn, "%s, cpu %d: %s warn", tree, cpu,
                   key);
        TAP_IS_STR(it->advice, w[i].advice, "%s, cpu %d: %s advice", tree,
                   cpu, key);
    }
}

/* The load threshold: the run needs one CPU to itself, so a 1-minute
 * load above the other CPUs' count warns (3.5 on 4 CPUs), at it does not
 * (the vm fixture's 3.00).  A tree of the two files the check reads. */
static void test_load_between(void)
{
    char dir[] = "/tmp/sb_env_loadXXXXXX";
    const sb_env_item *load = NULL;
    sb_env env = {.size = sizeof env};
    int ok;

    if (!mkdtemp(dir)) {
        tap_skip("load threshold: no temporary directory");
        return;
    }
    ok = put_file(dir, "proc/loadavg", "3.50 3.00 2.00 4/120 777\n") &&
         put_file(dir, "sys/devices/system/cpu/online", "0-3\n");
    if (!tap_ok(ok, "load threshold: a tree with 3.50 on 4 CPUs")) {
        remove_tree(dir);
        return;
    }
    memset(&env, 0, sizeof env);
    sb__env_audit_at(dir, 1, 0, &env);
    for (size_t i = 0; i < env.n; i++)
        if (!strcmp(env.items[i].key, "load"))
            load = &env.items[i];
    tap_ok(load && load->warn &&
               strstr(load->advice, "fall to 3 or less") != NULL,
           "load 3.50 on 4 CPUs warns: more than the 3 other CPUs (%s)",
           load ? load->advice : "no load item");
    remove_tree(dir);
}

static void test_quiet(void)
{
    /* A tuned bare-metal box: nothing warns for the isolated cpu 2. */
    const struct want w[NKEYS] = {
        {"cpu 2: Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", 0, ""},
        {"performance", 0, ""},
        {"intel_pstate (mode active)", 0, ""},
        {"off (intel_pstate/no_turbo 1)", 0, ""},
        {"none", 0, ""},
        {"no", 0, ""},
        {"cpu 2 isolated (isolcpus 1-3, nohz_full 1-3)", 0, ""},
        {"0.08 0.12 0.10 on 8 CPUs", 0, ""},
        {"enabled never, defrag madvise", 0, ""},
        {"on (2): layout varies between runs; forked invocations "
         "shift their buffers by a seeded shim", 0, ""},
        {"tsc", 0, ""},
        {"2: users may count user space only", 0, ""},
    };
    struct want u[NKEYS];

    check_tree("quiet", 2, w);

    /* Not pinned: per-CPU items from cpu 0, no sibling, and the isolated
     * CPUs go unused. */
    memcpy(u, w, sizeof u);
    u[0].value = "not pinned (per-CPU items: cpu 0): Intel(R) Core(TM) "
                 "i7-8700 CPU @ 3.20GHz";
    u[4].value = "not pinned: no sibling to check";
    u[6] = (struct want){"not pinned (isolcpus 1-3, nohz_full 1-3)", 1,
                         "pin to an isolated CPU: --cpu 1"};
    check_tree("quiet", -1, u);
}

static void test_noisy(void)
{
    static const char model[] =
        "Intel(R) Core(TM) Ultra 9 Engineering Sample with a model name far "
        "longer than the one hundred and twenty-eight bytes a value holds, "
        "so it is truncated";
    static const char prefix[] = "cpu 0 (E-core): ";
    char cpu[sizeof ((sb_env_item *)0)->value];
    /* The model name is longer than a value: cut at 127 bytes. */
    memcpy(cpu, prefix, sizeof prefix - 1);
    memcpy(cpu + sizeof prefix - 1, model, sizeof cpu - sizeof prefix);
    cpu[sizeof cpu - 1] = '\0';
    {
        const struct want w[NKEYS] = {
            {cpu, 0, ""},
            {"powersave", 1,
             "set the performance governor: cpupower frequency-set -g "
             "performance"},
            {"acpi-cpufreq", 0, ""},
            {"on (cpufreq/boost 1): the clock follows temperature and the "
             "other cores' load", 1,
             "turn boost off: echo 0 | sudo tee "
             "/sys/devices/system/cpu/cpufreq/boost"},
            /* The fixture's /proc/stat cannot change between the two
             * reads: no time passed, so the load is unknown. */
            {"cpu 2 busy unknown", 0, ""},
            {"yes (hypervisor flag in /proc/cpuinfo)", 1, vm_advice},
            {"no CPU isolated (isolcpus none, nohz_full none)", 1,
             "isolate a CPU other than 0 on the kernel command line "
             "(isolcpus=N nohz_full=N rcu_nocbs=N), reboot and pin to it "
             "with --cpu N"},
            {"7.50 6.00 5.00 on 4 CPUs", 1,
             "stop other work, or wait for the 1-minute load to fall to 3 "
             "or less (top shows what runs)"},
            {"enabled always, defrag always: khugepaged and compaction can "
             "disturb", 1,
             "set THP to madvise: echo madvise | sudo tee "
             "/sys/kernel/mm/transparent_hugepage/enabled "
             "/sys/kernel/mm/transparent_hugepage/defrag"},
            {"off (0): every run gets the same layout, which can bias all "
             "of them alike", 1,
             "turn ASLR on: echo 2 | sudo tee "
             "/proc/sys/kernel/randomize_va_space"},
            {"hpet: not tsc, so clock_gettime costs more and the TSC may be "
             "unstable", 1,
             "find why the kernel left the TSC: dmesg | grep -i -e tsc -e "
             "clocksource"},
            {"3: users may not use perf events", 0,
             "allow user-space counting: sudo sysctl "
             "kernel.perf_event_paranoid=2"},
        };
        tap_ok(strlen(cpu) == sizeof cpu - 1, "long model name truncated");
        check_tree("noisy", 0, w);
    }
}

static void test_vm(void)
{
    /* A Xen guest: no cpufreq, one other CPU isolated, load exactly at
     * the threshold (3.00 on 4 CPUs does not warn), defrag alone always. */
    const struct want w[NKEYS] = {
        {"cpu 1: QEMU Virtual CPU version 2.5+", 0, ""},
        {"none (no cpufreq: a VM or a fixed clock)", 0, ""},
        {"none", 0, ""},
        {"unknown", 0, ""},
        {"none", 0, ""},
        {"yes: xen (/sys/hypervisor/type)", 1, vm_advice},
        {"cpu 1 not isolated (isolcpus 3, nohz_full none)", 1,
         "pin to an isolated CPU: --cpu 3"},
        {"3.00 2.50 2.00 on 4 CPUs", 0, ""},
        {"enabled madvise, defrag always: khugepaged and compaction can "
         "disturb", 1,
         "set THP to madvise: echo madvise | sudo tee "
         "/sys/kernel/mm/transparent_hugepage/defrag"},
        {"partial (1): layout varies between runs (not the heap); "
         "forked invocations shift their buffers by a seeded shim", 0, ""},
        {"xen: not tsc, so clock_gettime costs more and the TSC may be "
         "unstable", 1,
         "find why the kernel left the TSC: dmesg | grep -i -e tsc -e "
         "clocksource"},
        {"-1: no restrictions", 0, ""},
    };
    check_tree("vm", 1, w);
}

/* An empty root (and one too long to form a path): everything unknown,
 * nothing warns, no advice. */
static void check_unknown(const char *root, const char *what)
{
    sb_env env = {.size = sizeof env};
    int all = 1;

    memset(&env, 0x5a, sizeof env);
    sb__env_audit_at(root, 0, 0, &env);
    TAP_IS_INT(env.n, NKEYS, "%s: %zu items", what, NKEYS);
    TAP_IS_STR(env.items[0].value, "cpu 0: unknown", "%s: cpu unknown",
               what);
    for (size_t i = 0; i < NKEYS && i < env.n; i++) {
        const sb_env_item *it = &env.items[i];
        int ok = !strcmp(it->key, keys[i]) && !it->warn && !it->advice[0] &&
                 (i == 0 || !strcmp(it->value, "unknown"));
        if (!ok)
            tap_diag("%s: %s = \"%s\" warn %d advice \"%s\"", what, it->key,
                     it->value, it->warn, it->advice);
        all &= ok;
    }
    tap_ok(all, "%s: every item unknown, no warning, no advice", what);
}

static void test_unknown(void)
{
    char dir[] = "/tmp/sb_env_emptyXXXXXX", longroot[700];

    if (mkdtemp(dir)) {
        check_unknown(dir, "empty root");
        rmdir(dir);
    } else {
        tap_skip("mkdtemp failed: %s", strerror(errno));
    }
    memset(longroot, 'x', sizeof longroot - 1);
    longroot[0] = '/';
    longroot[sizeof longroot - 1] = '\0';
    check_unknown(longroot, "root longer than a path");
}

static void test_sibling_busy(void)
{
    /* cpu10 comes first so that a prefix match on "cpu1" would take it. */
    static const char before[] =
        "cpu  1000 0 1000 8000 0 0 0 0 0 0\n"
        "cpu10 900 0 0 100 0 0 0 0 0 0\n"
        "cpu1 100 5 50 800 20 3 2 0 0 0\n"
        "cpu2 0 0 0 100 50 0 0 10 0 0\n"
        "cpu3 10 0 10 10\n"
        "cpu4 0 0 0 100 0 0 0 0 0 0\n"
        "intr 1 2 3\n";
    static const char after[] =
        "cpu  1000 0 1000 8000 0 0 0 0 0 0\n"
        "cpu10 999 0 0 101 0 0 0 0 0 0\n"
        /* +20 user +1 nice +10 system +60 idle +4 iowait +3 irq +2 soft */
        "cpu1 120 6 60 860 24 6 4 0 0 0\n"
        /* +30 user, +70 idle, iowait went backwards (-40, counted 0) */
        "cpu2 30 0 0 170 10 0 0 10 0 0\n"
        "cpu3 20 0 10 20\n"
        /* +40 steal, +60 idle */
        "cpu4 0 0 0 160 0 0 0 40 0 0\n";
    double busy = -1;
    int rc;

    rc = sb__env_sibling_busy(before, after, 1, &busy);
    TAP_IS_INT(rc, 0, "sibling busy: cpu1 read");
    TAP_IS_REL(busy, 36.0 / 100.0, 1e-12,
               "sibling busy: (user+nice+system+irq+softirq) / all, not "
               "cpu10's line");
    rc = sb__env_sibling_busy(before, after, 10, &busy);
    TAP_IS_INT(rc, 0, "sibling busy: cpu10 read");
    TAP_IS_REL(busy, 0.99, 1e-12, "sibling busy: cpu10 99%%");
    rc = sb__env_sibling_busy(before, after, 2, &busy);
    TAP_IS_INT(rc, 0, "sibling busy: cpu2 read");
    TAP_IS_REL(busy, 0.3, 1e-12,
               "sibling busy: a backwards counter counts 0");
    rc = sb__env_sibling_busy(before, after, 4, &busy);
    TAP_IS_INT(rc, 0, "sibling busy: cpu4 read");
    TAP_IS_REL(busy, 0, 0, "sibling busy: steal is not the sibling's work");
    rc = sb__env_sibling_busy(before, after, 3, &busy);
    TAP_IS_INT(rc, 0, "sibling busy: 4-counter lines (old kernels)");
    TAP_IS_REL(busy, 0.5, 1e-12, "sibling busy: cpu3 50%%");

    busy = 42;
    TAP_IS_INT(sb__env_sibling_busy(before, after, 5, &busy), -1,
               "sibling busy: a missing line is an error");
    TAP_IS_INT(sb__env_sibling_busy(before, before, 1, &busy), -1,
               "sibling busy: no time passed is an error");
    TAP_IS_INT(sb__env_sibling_busy("cpu1 1 2 3\n", "cpu1 2 3 4\n", 1,
                                    &busy),
               -1, "sibling busy: fewer than 4 counters is an error");
    TAP_IS_INT(sb__env_sibling_busy(before, "cpu1 1 2 3 4 5\n", 1, &busy),
               -1, "sibling busy: snapshots of different shapes");
    TAP_IS_INT(sb__env_sibling_busy(NULL, after, 1, &busy), -1,
               "sibling busy: NULL snapshot");
    TAP_IS_INT(sb__env_sibling_busy(before, after, -1, &busy), -1,
               "sibling busy: cpu -1");
    TAP_IS_REL(busy, 42, 0, "sibling busy: errors leave *busy alone");
}

static void test_snapshot(void)
{
    char root[1200], buf[512], b2[512];
    const int two[] = {2}, seven_one[] = {7, 1}, zero[] = {0};
    double busy = -1;
    int rc;

    snprintf(root, sizeof root, "%s/noisy", fixtures);
    rc = sb__env_stat_snapshot(root, two, 1, buf, sizeof buf);
    TAP_IS_INT(rc, 0, "snapshot: fixture read");
    TAP_IS_STR(buf, "cpu2 1000 0 500 23500 0 0 0 0 0 0\n",
               "snapshot: only the wanted cpu line");
    snprintf(root, sizeof root, "%s/quiet", fixtures);
    sb__env_stat_snapshot(root, seven_one, 2, buf, sizeof buf);
    TAP_IS_STR(buf,
               "cpu1 500 0 250 11750 0 0 0 0 0 0\n"
               "cpu7 500 0 250 11750 0 0 0 0 0 0\n",
               "snapshot: two lines in file order");
    rc = sb__env_stat_snapshot(root, seven_one, 2, buf, 40);
    TAP_IS_INT(rc, 0, "snapshot: small buffer still succeeds");
    TAP_IS_STR(buf, "cpu1 500 0 250 11750 0 0 0 0 0 0\n",
               "snapshot: a line that does not fit is left out whole");
    sb__env_stat_snapshot(root, NULL, 0, buf, sizeof buf);
    TAP_IS_STR(buf, "", "snapshot: no CPU wanted, nothing kept");
    TAP_IS_INT(sb__env_stat_snapshot("/nonexistent/root", two, 1, buf,
                                     sizeof buf),
               -1, "snapshot: missing file");

    /* The real /proc/stat, 100 ms apart. */
    rc = sb__env_stat_snapshot("", zero, 1, buf, sizeof buf);
    tap_ok(rc == 0 && !strncmp(buf, "cpu0 ", 5),
           "snapshot: real /proc/stat has cpu0 (%.40s)", buf);
    {
        struct timespec t = {0, 100000000};
        nanosleep(&t, NULL);
    }
    sb__env_stat_snapshot("", zero, 1, b2, sizeof b2);
    rc = sb__env_sibling_busy(buf, b2, 0, &busy);
    if (rc == 0)
        tap_ok(busy >= 0 && busy <= 1, "real cpu0 busy %d%% in 100 ms",
               (int)(busy * 100 + 0.5));
    else
        tap_skip("cpu0's counters did not move in 100 ms");
}

static void test_smt_judge(void)
{
    static const char before[] = "cpu1 100 0 0 900 0 0 0 0 0 0\n"
                                 "cpu5 100 0 0 900 0 0 0 0 0 0\n";
    static const char after[] = "cpu1 137 0 0 963 0 0 0 0 0 0\n"
                                "cpu5 110 0 0 990 0 0 0 0 0 0\n";
    static const char advice1[] =
        "stop what runs on cpu 1, pin to a CPU whose sibling is idle, or "
        "turn SMT off: echo off | sudo tee "
        "/sys/devices/system/cpu/smt/control";
    const int one[] = {1}, five[] = {5}, both[] = {5, 1}, many[] = {
        1000000, 1000001, 1000002, 1000003, 1000004, 1000005, 1000006, 1000007};
    sb_env_item it;

    memset(&it, 0x5a, sizeof it);
    sb__env_smt_judge(&it, one, 1, before, after);
    TAP_IS_STR(it.value, "cpu 1 busy 37%", "smt: busy sibling value");
    TAP_IS_INT(it.warn, 1, "smt: 37%% warns");
    TAP_IS_STR(it.advice, advice1, "smt: busy sibling advice");

    sb__env_smt_judge(&it, five, 1, before, after);
    TAP_IS_STR(it.value, "cpu 5 busy 10%", "smt: idle sibling value");
    TAP_IS_INT(it.warn, 0, "smt: 10%% does not warn");
    TAP_IS_STR(it.advice, "", "smt: idle sibling, no advice");

    sb__env_smt_judge(&it, both, 2, before, after);
    TAP_IS_STR(it.value, "cpu 5 busy 10%, cpu 1 busy 37%",
               "smt: two siblings listed");
    TAP_IS_INT(it.warn, 1, "smt: one busy sibling of two warns");
    TAP_IS_STR(it.advice, advice1, "smt: advice names the busy one");

    sb__env_smt_judge(&it, one, 1, NULL, after);
    TAP_IS_STR(it.value, "cpu 1 busy unknown", "smt: unread snapshot");
    TAP_IS_INT(it.warn, 0, "smt: unknown does not warn");

    sb__env_smt_judge(&it, one, 0, before, after);
    TAP_IS_STR(it.value, "none", "smt: no sibling");
    TAP_IS_INT(it.warn, 0, "smt: no sibling, no warning");

    sb__env_smt_judge(&it, many, 8, NULL, NULL);
    tap_ok(memchr(it.value, '\0', sizeof it.value) != NULL &&
               strlen(it.value) == sizeof it.value - 1,
           "smt: eight siblings truncate the value safely (%zu bytes)",
           strlen(it.value));
}

/* Every item of an audit of this machine is well formed. */
static void check_real(int cpu)
{
    sb_env env = {.size = sizeof env};
    int ok = 1;

    memset(&env, 0x5a, sizeof env);
    env.size = sizeof env;
    TAP_IS_INT(sb_env_audit(cpu, &env, NULL), SB_OK,
               "real system, cpu %d: audited", cpu);
    TAP_IS_INT(env.n, NKEYS, "real system, cpu %d: %zu items", cpu, NKEYS);
    for (size_t i = 0; i < env.n && i < SB_ENV_MAX; i++) {
        const sb_env_item *it = &env.items[i];
        int good =
            memchr(it->key, '\0', sizeof it->key) &&
            memchr(it->value, '\0', sizeof it->value) &&
            memchr(it->advice, '\0', sizeof it->advice) &&
            i < NKEYS && !strcmp(it->key, keys[i]) && it->value[0] &&
            (it->warn == 0 || it->warn == 1) && (!it->warn || it->advice[0]);
        ok &= good;
        if (!good || cpu >= 0)
            tap_diag("%-15s %s %s%s%s", memchr(it->key, '\0', sizeof it->key)
                                            ? it->key : "?",
                     it->warn ? "WARN" : "ok  ",
                     memchr(it->value, '\0', sizeof it->value) ? it->value
                                                               : "?",
                     it->advice[0] && memchr(it->advice, '\0',
                                             sizeof it->advice)
                         ? " -- " : "",
                     it->advice[0] && memchr(it->advice, '\0',
                                             sizeof it->advice)
                         ? it->advice : "");
    }
    tap_ok(ok, "real system, cpu %d: keys in order, values set, a warning "
               "always has advice", cpu);
}

/* sysinfo.c against the fixture trees. */
static void test_sysinfo(void)
{
    char root[1200], buf[64];
    sb__cpuinfo ci;
    sb__cache c[8];
    cpu_set_t set;
    const char *p;
    long lo, hi;
    size_t n;

    snprintf(root, sizeof root, "%s/quiet", fixtures);
    sb__cpuinfo_read(root, &ci);
    TAP_IS_STR(ci.model, "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz",
               "cpuinfo: the first model name");
    TAP_IS_INT(ci.hypervisor, 0, "cpuinfo: no hypervisor flag");
    sb__cpuinfo_model(root, &ci, buf, sizeof buf);
    TAP_IS_STR(buf, ci.model, "cpuinfo: the model as recorded");
    TAP_IS_INT(sb__cpuinfo_flag(root, "sse2"), 1, "cpuinfo: sse2 flag");
    TAP_IS_INT(sb__cpuinfo_flag(root, "sse"), 1, "cpuinfo: sse flag");
    TAP_IS_INT(sb__cpuinfo_flag(root, "ss2"), 0, "cpuinfo: no ss2 flag");
    snprintf(root, sizeof root, "%s/vm", fixtures);
    sb__cpuinfo_read(root, &ci);
    TAP_IS_INT(ci.hypervisor, 1, "cpuinfo: the hypervisor flag");
    TAP_IS_INT(sb__cpuinfo_flag(root, "lm"), 1, "cpuinfo: the last flag");
    snprintf(root, sizeof root, "%s/nonexistent", fixtures);
    sb__cpuinfo_read(root, &ci);
    TAP_IS_INT(ci.hypervisor, -1, "cpuinfo: no file, flag unknown");
    TAP_IS_INT(sb__cpuinfo_flag(root, "sse2"), -1, "cpuinfo: no file, -1");
    sb__cpuinfo_model(root, &ci, buf, sizeof buf);
    TAP_IS_STR(buf, "unknown", "cpuinfo: no file, no CPUID for a fake root");
    snprintf(root, sizeof root, "%s/quiet", fixtures);
    TAP_IS_INT(sb__cpuinfo_microcode(root, buf, sizeof buf), 0,
               "cpuinfo: a microcode line");
    TAP_IS_STR(buf, "0xf4", "cpuinfo: the first microcode revision");
    snprintf(root, sizeof root, "%s/noisy", fixtures);
    TAP_IS_INT(sb__cpuinfo_microcode(root, buf, 3), 0,
               "cpuinfo: microcode after a flags line of any length");
    TAP_IS_STR(buf, "0x", "cpuinfo: microcode cut at the buffer");
    snprintf(root, sizeof root, "%s/vm", fixtures);
    TAP_IS_INT(sb__cpuinfo_microcode(root, buf, sizeof buf), -1,
               "cpuinfo: no microcode line, -1");
    TAP_IS_STR(buf, "", "cpuinfo: no microcode line, empty");
    TAP_IS_INT(sb__online_cpus(root), 4, "online CPUs: 0-3 is 4");
    snprintf(root, sizeof root, "%s/quiet", fixtures);
    TAP_IS_INT(sb__online_cpus(root), 8, "online CPUs: 0-7 is 8");
    snprintf(root, sizeof root, "%s/nonexistent", fixtures);
    TAP_IS_INT(sb__cpuinfo_microcode(root, buf, sizeof buf), -1,
               "cpuinfo: microcode, no file");
    TAP_IS_INT(sb__online_cpus(root), -1, "online CPUs: no file, -1");

    TAP_IS_INT(sb__cpulist_count("0-3,6"), 5, "cpulist: 0-3,6 counts 5");
    TAP_IS_INT(sb__cpulist_count("(null)"), 0, "cpulist: (null) is empty");
    TAP_IS_INT(sb__cpulist_count("3-1"), -1, "cpulist: 3-1 is not a list");
    TAP_IS_INT(sb__cpulist_count("5-1"), -1, "cpulist: 5-1 is not a list");
    TAP_IS_INT(sb__cpulist_has("3-1", 2), -1,
               "cpulist: 3-1 is not a list to find 2 in");
    TAP_IS_INT(sb__cpulist_count("1,x"), -1, "cpulist: 1,x is not a list");
    TAP_IS_INT(sb__cpulist_has("0-3,6", 6), 1, "cpulist: 6 in 0-3,6");
    TAP_IS_INT(sb__cpulist_has("0-3,6", 4), 0, "cpulist: 4 not in 0-3,6");
    TAP_IS_INT(sb__cpulist_first("5,1"), 5, "cpulist: first of 5,1");
    p = "2-4,";
    tap_ok(sb__cpulist_next(&p, &lo, &hi) == 1 && lo == 2 && hi == 4 &&
               sb__cpulist_next(&p, &lo, &hi) == 0,
           "cpulist: 2-4 then the end (a trailing comma allowed)");

    snprintf(root, sizeof root, "%s/quiet", fixtures);
    tap_ok(sb__read_cpulist(root, "/sys/devices/system/cpu/isolated",
                            &set) == 0 &&
               CPU_COUNT(&set) == 3 && CPU_ISSET(1, &set) &&
               CPU_ISSET(3, &set),
           "read_cpulist: quiet's isolated 1-3");
    snprintf(root, sizeof root, "%s/noisy", fixtures);
    TAP_IS_INT(sb__read_cpulist(root, "/sys/devices/system/cpu/isolated",
                                &set),
               -1, "read_cpulist: an empty list is -1");
    TAP_IS_INT(sb__read_cpulist(root, "/sys/devices/system/cpu/nohz_full",
                                &set),
               -1, "read_cpulist: (null) is -1");
    TAP_IS_INT(sb__read_cpulist(root, "/nonexistent", &set), -1,
               "read_cpulist: no file is -1");

    snprintf(root, sizeof root, "%s/quiet", fixtures);
    n = sb__caches(root, 0, c, 8);
    TAP_IS_INT(n, 3, "caches: L1d, L2, L3 (no instruction cache, L3 once)");
    tap_ok(n == 3 && !strcmp(c[0].label, "L1d") && c[0].bytes == 32768 &&
               !strcmp(c[1].label, "L2") && c[1].bytes == 262144 &&
               !strcmp(c[2].label, "L3") && c[2].bytes == 12582912,
           "caches: labels and sizes");
    TAP_IS_INT(sb__caches(root, 0, c, 2), 2, "caches: at most max");
    TAP_IS_INT(sb__caches(root, 5, c, 8), 0, "caches: none for cpu 5");
    tap_ok(sb__clocksource(root, buf, sizeof buf) == 0 &&
               !strcmp(buf, "tsc"),
           "clocksource: quiet's tsc");
    tap_ok(sb__perf_paranoid(root, &lo) == 0 && lo == 2,
           "perf_event_paranoid: quiet's 2");
    snprintf(root, sizeof root, "%s/vm", fixtures);
    tap_ok(sb__perf_paranoid(root, &lo) == 0 && lo == -1,
           "perf_event_paranoid: vm's -1");
    snprintf(root, sizeof root, "%s/nonexistent", fixtures);
    TAP_IS_INT(sb__clocksource(root, buf, sizeof buf), -1,
               "clocksource: no file is -1");
    TAP_IS_INT(sb__perf_paranoid(root, &lo), -1,
               "perf_event_paranoid: no file is -1");
}

/* The one rule for the default CPU (sb__default_cpu, which the pinning
 * and check-env's sb_cpu_default ask): the last isolated CPU that is
 * online, else the last allowed one, on the fixture trees and on a tree
 * whose only isolated CPU is offline. */
static void test_default_cpu(void)
{
    char root[1100], dir[] = "/tmp/sb_env_cpuXXXXXX";
    cpu_set_t allowed;
    int iso = -1, ok;

    CPU_ZERO(&allowed);
    CPU_SET(0, &allowed);
    CPU_SET(1, &allowed);
    snprintf(root, sizeof root, "%s/quiet", fixtures);
    TAP_IS_INT(sb__default_cpu(root, &allowed, &iso), 3,
               "default cpu: quiet's last isolated of 1-3, though not "
               "in the mask");
    TAP_IS_INT(iso, 1, "default cpu: quiet's by isolation");
    snprintf(root, sizeof root, "%s/vm", fixtures);
    TAP_IS_INT(sb__default_cpu(root, &allowed, NULL), 3,
               "default cpu: vm's isolated 3");
    snprintf(root, sizeof root, "%s/noisy", fixtures);
    TAP_IS_INT(sb__default_cpu(root, &allowed, &iso), 1,
               "default cpu: noisy isolates none: the last allowed");
    TAP_IS_INT(iso, 0, "default cpu: noisy's not by isolation");
    CPU_ZERO(&allowed);
    TAP_IS_INT(sb__default_cpu(root, &allowed, NULL), -1,
               "default cpu: nothing allowed, nothing isolated: -1");

    if (!mkdtemp(dir)) {
        tap_skip("mkdtemp failed: %s", strerror(errno));
        return;
    }
    ok = put_file(dir, "sys/devices/system/cpu/online", "0-1\n") &&
         put_file(dir, "sys/devices/system/cpu/isolated", "3\n");
    if (tap_ok(ok, "a tree with cpu 3 isolated and 0-1 online")) {
        CPU_SET(0, &allowed);
        TAP_IS_INT(sb__default_cpu(dir, &allowed, &iso), 0,
                   "default cpu: an offline isolated CPU is passed over");
        TAP_IS_INT(iso, 0, "default cpu: not by isolation");
    }
    remove_tree(dir);
}

/* A /proc/cpuinfo of another architecture's CPU, as qemu-user passes the
 * host's through: the x86-64 build finds no "flags" line in the aarch64
 * file (arm/), the aarch64 build no "Features" line in the x86 one (vm/);
 * the portable build names no key and cannot tell.  The audit of this
 * machine says the CPU is emulated, with a warning, exactly when its own
 * file is foreign (under qemu-user, the aarch64 suite's case). */
static void test_emulated(void)
{
    static const char *const trees[2] = {"vm", "arm"};
    const char *key = sb__arch_cpuinfo_key();
    int native_tree = !key                     ? -1
                      : !strcmp(key, "flags")    ? 0
                      : !strcmp(key, "Features") ? 1
                                                 : -2;

    tap_ok(native_tree != -2, "emulated: the test knows this "
           "architecture's cpuinfo key (%s)", key ? key : "none");
    for (int t = 0; t < 2; t++) {
        char root[1200];
        sb__cpuinfo ci;
        sb_env env = {.size = sizeof env};
        const sb_env_item *vm = NULL;
        int want = native_tree < 0 ? -1 : native_tree == t;

        snprintf(root, sizeof root, "%s/%s", fixtures, trees[t]);
        sb__cpuinfo_read(root, &ci);
        TAP_IS_INT(ci.native, want, "emulated: %s's cpuinfo native %d",
                   trees[t], want);
        sb__env_audit_at(root, 0, 0, &env);
        for (size_t i = 0; i < env.n; i++)
            if (!strcmp(env.items[i].key, "virtual-machine"))
                vm = &env.items[i];
        tap_ok(vm && strncmp(vm->value, "emulated", 8),
               "emulated: not said of a fake root (%s: '%s')", trees[t],
               vm ? vm->value : "(none)");
    }
    {
        sb__cpuinfo ci;
        sb_env env = {.size = sizeof env};
        const sb_env_item *vm = NULL;
        int emulated;

        sb__cpuinfo_read("", &ci);
        TAP_IS_INT(sb_env_audit(-1, &env, NULL), SB_OK,
                   "emulated: this machine audited");
        for (size_t i = 0; i < env.n; i++)
            if (!strcmp(env.items[i].key, "virtual-machine"))
                vm = &env.items[i];
        emulated = vm && !strncmp(vm->value, "emulated: ", 10);
        tap_ok(vm && emulated == (ci.native == 0) &&
                   (!emulated || (vm->warn && vm->advice[0])),
               "emulated: this machine's cpuinfo native %d, the audit says "
               "'%s'", ci.native, vm ? vm->value : "(none)");
    }
}

int main(void)
{
    sb_env env = {.size = sizeof env};

    tap_fixture(fixtures, sizeof fixtures, "env");
    tap_ok(access(fixtures, R_OK) == 0, "fixtures at %s (set top_srcdir)",
           fixtures);

    test_quiet();
    test_noisy();
    test_vm();
    test_unknown();
    test_sibling_busy();
    test_snapshot();
    test_smt_judge();
    test_sysinfo();
    test_default_cpu();
    test_load_between();
    test_emulated();

    /* The audit's failed opens do not leak into the caller's errno. */
    errno = EDOM;
    sb__env_audit_at("/nonexistent/statbench/root", 0, 0, &env);
    TAP_IS_INT(errno, EDOM, "errno is kept");

    /* A NULL out is refused; a NULL root does nothing. */
    TAP_IS_INT(sb_env_audit(0, NULL, NULL), SB_EINVAL,
               "sb_env_audit refuses a NULL out");
    env.n = 7;
    sb__env_audit_at(NULL, 0, 0, &env);
    TAP_IS_INT(env.n, 7, "NULL root leaves out alone");

    check_real(-1);
    check_real(0);
    {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        if (n > 1)
            check_real((int)n - 1);
    }
    return tap_done();
}
