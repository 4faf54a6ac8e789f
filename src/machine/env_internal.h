/*
 * env_internal.h: the environment audit's testable insides, never
 * installed.  sb_env_audit() in statbench.h is the public face.
 */
#ifndef SB_ENV_INTERNAL_H
#define SB_ENV_INTERNAL_H

#include "statbench.h"

/* The audit of sb_env_audit() against a file-system root: root prefixes
 * every /sys and /proc path ("" for the real system, "tests/fixtures/env/
 * quiet" for a fake tree), and sample_seconds is how long /proc/stat is
 * sampled to judge the SMT sibling's load (0: no wait).  CPUID (the
 * hypervisor bit and its vendor signature) and the process's personality
 * (setarch -R) are consulted only when root is "": with a fake root the
 * "hypervisor" flag of its /proc/cpuinfo stands in for them.  cpu < 0
 * means not pinned; the per-CPU items then describe cpu 0.  out is
 * cleared and filled; a NULL root or out does nothing.  Never fails. */
void sb__env_audit_at(const char *root, int cpu, double sample_seconds,
                      sb_env *out);

/* The share of time cpu was busy between two /proc/stat snapshots (the
 * whole file or just its "cpuN ..." lines).  Busy is user + nice + system
 * + irq + softirq; the whole is those plus idle, iowait and steal (guest
 * time is already inside user).  A counter that went backwards (iowait
 * can) counts 0.  *busy receives a fraction in [0, 1].  Returns 0, or -1
 * when a snapshot lacks the cpu's line or has fewer than 4 counters, or
 * no time passed between them (then *busy is left alone). */
int sb__env_sibling_busy(const char *stat_before, const char *stat_after,
                         int cpu, double *busy);

/* The "cpuN" lines of root's /proc/stat for the CPUs want[0..n-1], each
 * ending in a newline, into buf (len bytes; a line that does not fit is
 * left out).  Reading stops at the first line that is not a cpu line.
 * Returns 0, or -1 when the file cannot be opened (buf is then ""). */
int sb__env_stat_snapshot(const char *root, const int *want, size_t n,
                          char *buf, size_t len);

/* The "smt-sibling" verdict on the siblings sib[0..n-1] of the audited
 * CPU from two /proc/stat snapshots (either may be NULL: unread):
 * it->value lists "cpu 4 busy 37%" (or "cpu 4 busy unknown") per
 * sibling, "none" for n == 0; warn and advice are set when one was busy
 * more than 10% of the time.  Only value, warn and advice are written. */
void sb__env_smt_judge(sb_env_item *it, const int *sib, size_t n,
                       const char *stat_before, const char *stat_after);

#endif
