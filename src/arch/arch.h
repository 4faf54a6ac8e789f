/*
 * arch.h: what the library asks of the architecture it runs on, never
 * installed.  One file per architecture answers it (src/arch/x86_64.c,
 * src/arch/aarch64.c; src/arch/generic.c for every other CPU and for
 * ./configure --disable-arch; the last two leave to unknown.c what they
 * cannot tell), and configure builds exactly one, so that no file
 * outside src/arch/ and kernels/ tests the architecture.  The inlined
 * timer reads are in ticks.h.  Every answer has a safe "no": the generic
 * file says no to all of them, and the library then runs on the clock,
 * without probes, cache flushes or CPU facts beyond /proc's.
 *
 * These functions print nothing, allocate nothing and keep no state, so
 * that any thread may call them.
 */
#ifndef SB_ARCH_H
#define SB_ARCH_H

#include <stddef.h>
#include <stdint.h>

/* The timer's counter (ticks.h's sb__ticks_start/_stop): 1 when it can
 * time a run (on x86-64: a TSC with rdtscp, at an invariant rate);
 * otherwise 0, with why in reason. */
int sb__arch_ticks_usable(char *reason, size_t len);
/* The counter's rate as the CPU or the hypervisor states it, in Hz, and
 * where it was read in *source; 0 when neither says (the caller then
 * calibrates against the clock, and cross-checks a stated rate anyway). */
double sb__arch_ticks_hz(const char **source);

/* 1 when sb__arch_flush can evict memory from the caches (the cold
 * cache state needs it). */
int sb__arch_can_flush(void);
/* Evict [p, p + n) from every cache level, done before it returns. */
void sb__arch_flush(const void *p, size_t n);

/* The CPU's own name for itself (x86's CPUID brand string) into buf, not
 * trimmed; 0 when filled, -1 when the architecture has none. */
int sb__arch_cpu_brand(char *buf, size_t len);
/* Whether the CPU says it runs under a hypervisor: 1 (its name in name,
 * from its signature), 0 (it says not), -1 (it cannot say). */
int sb__arch_hypervisor(char *name, size_t len);

/* The key of /proc/cpuinfo that every CPU of this architecture has
 * ("flags" on x86-64, "Features" on aarch64); NULL when the architecture
 * names none.  A file without it describes another architecture's CPU:
 * an emulator (qemu-user) passed the host's through. */
const char *sb__arch_cpuinfo_key(void);

/* The core clock and contention probes' code: 1 when this architecture
 * has them.  Without them the functions below return at once. */
int sb__arch_have_chains(void);
/* Ops of the chains are a multiple of this (the loops' unrolling). */
#define SB__ARCH_CHAIN_UNROLL 16
/* A dependent chain of n imul r64, r64 (n a multiple of
 * SB__ARCH_CHAIN_UNROLL; fewer do nothing), and of n add r64, r64 (NOT
 * add r64, imm, which recent Intel cores fold at rename: 0.54 cycles per
 * add measured on this project's VM). */
void sb__arch_imul_chain(uint64_t n);
void sb__arch_add_chain(uint64_t n);
/* The contention probe: reps walks over the 64 lines of the 4 KiB at buf
 * (64-byte aligned), each line's first 16 bytes loaded and stored to the
 * line 2048 bytes further, modulo 4096.  Its loop is aligned to 64 bytes:
 * crossing a line doubled it on a Zen 4 core. */
void sb__arch_ldst(void *buf, unsigned reps);

#endif
