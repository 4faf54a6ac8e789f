/*
 * sysinfo.h: what the library knows of the machine from /proc and /sys,
 * never installed.  src/machine/sysinfo.c is the one reader of /proc/cpuinfo, of
 * CPU lists ("0-3,6"), of the cache sizes, of the clocksource and of
 * perf's paranoia; the environment audit (env.c), the record of the
 * machine (meta.c), the choice of CPU (measure.c, plan.c), the counters
 * (counters.c) and the figures (plot.c) ask it, and so do the tests.
 *
 * Every file is read below a root: "" for the real system, a directory
 * such as "tests/fixtures/env/quiet" for a fake tree in the tests.
 * Nothing is kept between calls, so every function is thread-safe.
 */
#ifndef SB_SYSINFO_H
#define SB_SYSINFO_H

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>

#include "sb_internal.h"

/* ---- Files below the root ----------------------------------------------- */

/* fopen of root followed by the printf-style path; NULL when it cannot be
 * opened or the path does not fit. */
FILE *sb__sys_vopen(const char *root, const char *fmt, va_list ap);

/* The first line of a file below root, without trailing white space,
 * truncated to len - 1 bytes ("" for an empty file).  0, or -1 when the
 * file cannot be opened or read (buf is then ""). */
int sb__sys_vline(const char *root, char *buf, size_t len, const char *fmt,
                  va_list ap);
int sb__sys_line(const char *root, char *buf, size_t len, const char *fmt,
                 ...) SB__PRINTF(4, 5);

/* The first line of a file below root as a whole decimal number,
 * optionally negative, with nothing after it, into *out; 0, or -1. */
int sb__sys_long(const char *root, long *out, const char *fmt, ...)
    SB__PRINTF(3, 4);

/* Whether a path below root exists. */
int sb__sys_vexists(const char *root, const char *fmt, va_list ap);

/* ---- /proc/cpuinfo ------------------------------------------------------ */

typedef struct sb__cpuinfo {
    char model[128]; /* the first "model name", or "" */
    int hypervisor;  /* the first "flags" holds "hypervisor": 1, 0; -1
                        when there is no flags line or no file */
    int native;      /* the file has the key every CPU of this build's
                        architecture has (sb__arch_cpuinfo_key): 1; 0
                        when it lacks it (the CPU is emulated: qemu-user
                        passes the host's file through); -1 when there is
                        no file or the architecture names no key */
} sb__cpuinfo;

/* Read root's /proc/cpuinfo once, character by character: the flags line
 * of a current x86 CPU is longer than any sensible buffer. */
void sb__cpuinfo_read(const char *root, sb__cpuinfo *out);

/* Whether the first "flags" line of root's /proc/cpuinfo holds flag
 * ("avx2", fewer than 32 characters): 1, 0, or -1 when there is no flags
 * line or no file. */
int sb__cpuinfo_flag(const char *root, const char *flag);

/* The CPU's name: ci's model name; else, on the real system (root "") of
 * an x86-64 build, the CPUID brand string; else "unknown". */
void sb__cpuinfo_model(const char *root, const sb__cpuinfo *ci, char *buf,
                       size_t len);

/* Both steps for this machine: what a run records as meta.cpu_model. */
void sb__cpu_model(char *buf, size_t len);

/* The first "microcode" value of root's /proc/cpuinfo ("0xa0011d1", cut
 * at len - 1 bytes) into buf: the revision the CPU runs, which can change
 * its speed (mitigations) without changing its model name.  0, or -1 (buf
 * "") when there is no file or no such line (most guests of other
 * hypervisors, non-x86 machines). */
int sb__cpuinfo_microcode(const char *root, char *buf, size_t len);

/* How many CPUs root's /sys/devices/system/cpu/online names; -1 when it
 * cannot be read or is not a list. */
long sb__online_cpus(const char *root);

/* ---- CPU lists ("0-3,6") ------------------------------------------------ */

/* The next range "a" or "a-b" of the list at *p: 1 with *lo and *hi set
 * and *p moved past it, 0 at the end, -1 when the text is not a list.
 * sysfs writes "" or "(null)" for an empty list: see sb__cpulist_empty. */
int sb__cpulist_next(const char **p, long *lo, long *hi);
int sb__cpulist_empty(const char *s);
/* How many CPUs a list names; -1 when it is not a list. */
long sb__cpulist_count(const char *s);
/* Whether a list holds cpu: 1, 0, or -1 when it is not a list. */
int sb__cpulist_has(const char *s, long cpu);
/* The first CPU of a list, or -1. */
long sb__cpulist_first(const char *s);

/* The CPU list file path below root ("/sys/devices/system/cpu/isolated")
 * into set (CPUs beyond CPU_SETSIZE are left out); 0, or -1 when there is
 * no such file, it does not parse or it names no CPU. */
int sb__read_cpulist(const char *root, const char *path, cpu_set_t *set);

/* 1 when cpu is online, 0 when not, -1 on error; set (optional) receives
 * the online CPUs as "0-3,6".  The online CPUs, not only this process's
 * affinity mask (its fallback when sysfs is missing): with isolcpus=
 * every process starts outside the isolated CPUs, the best ones to pin
 * to. */
int sb__cpu_allowed(int cpu, char *set, size_t setlen);
/* The same below root. */
int sb__cpu_allowed_at(const char *root, int cpu, char *set, size_t setlen);

/* 1 when this process may pin to cpu by the one rule below: cpu is in
 * its affinity mask (what taskset or a parent set), or is an isolated
 * CPU that is online (with isolcpus= every mask starts outside them);
 * 0 when not; -1 on error.  mask (optional) receives the mask as
 * "0-3,6". */
int sb__cpu_may_use(const char *root, int cpu, char *mask, size_t masklen);

/* The one rule for the CPU a run pins to without a CPU given: the last
 * isolated CPU (root's /sys/devices/system/cpu/isolated) that is online,
 * else the last CPU of allowed (this process's affinity); -1 when there
 * is none.  *isolated (optional) is 1 when the first rule chose.  The
 * pinning (measure.c, sb__choose_cpu) and check-env (sb_cpu_default) ask
 * it. */
int sb__default_cpu(const char *root, const cpu_set_t *allowed,
                    int *isolated);

/* ---- Caches and the clocksource ----------------------------------------- */

/* A cache level: "L1d", "L2", "L3" and its bytes (the run's record
 * keeps them as they are). */
typedef sb_cache_size sb__cache;

/* The data and unified caches of cpu from root's
 * /sys/devices/system/cpu/cpuN/cache/index*: level, type, size ("48K").
 * Instruction caches and entries with a missing file are skipped; each
 * label is kept once.  Returns how many were found (at most max). */
size_t sb__caches(const char *root, int cpu, sb__cache *out, size_t max);

/* The kernel's current clocksource ("tsc") into buf; 0, or -1 when it
 * cannot be read or is empty. */
int sb__clocksource(const char *root, char *buf, size_t len);

/* kernel.perf_event_paranoid (-1 to 4 in practice) into *out; 0, or -1
 * when it cannot be read or is not a whole number (sb__sys_long). */
int sb__perf_paranoid(const char *root, long *out);

#endif
